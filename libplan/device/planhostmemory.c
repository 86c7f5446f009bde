/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planhostmemory
 * @title: PlanHostMemory
 * @short_description: pinned host memory as GstMemory
 *
 * System memory that copies to and from a device reach at full speed:
 * page-locked memory allocated through the device (cuMemHostAlloc on
 * CUDA). Host code uses it as any system memory; it carries no caps
 * feature. planupload offers this allocator upstream in the allocation
 * query, so that a file source reads straight into pinned buffers.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planhostmemory.h"
#include "libplan/core/plan-private.h"

GST_DEBUG_CATEGORY_STATIC (plan_host_memory_debug);
#define GST_CAT_DEFAULT plan_host_memory_debug

typedef struct
{
  GstMemory mem;

  /* construct-only, no lock */
  PlanDevice *device;
  guint8 *data;
  gboolean owned;
} PlanHostMemory;

struct _PlanHostAllocator
{
  GstAllocator parent;
};

G_DEFINE_TYPE (PlanHostAllocator, plan_host_allocator, GST_TYPE_ALLOCATOR);

static GstAllocator *host_allocator;

static GstMemory *
memory_new (PlanDevice * device, GstMemory * parent, guint8 * data,
    gsize maxsize, gsize offset, gsize size)
{
  PlanHostMemory *self = g_new0 (PlanHostMemory, 1);

  gst_memory_init (GST_MEMORY_CAST (self), 0, host_allocator, parent,
      maxsize, 0, offset, size);
  self->device = gst_object_ref (device);
  self->data = data;
  self->owned = parent == NULL;
  return GST_MEMORY_CAST (self);
}

/**
 * plan_host_allocator_alloc:
 * @device: the #PlanDevice the memory will be copied to or from
 * @size: bytes
 * @error: where to report failure
 *
 * Returns: (transfer full) (nullable): pinned host memory.
 *
 * Since: 0.1
 */
GstMemory *
plan_host_allocator_alloc (PlanDevice * device, gsize size, GError ** error)
{
  gpointer data;

  g_return_val_if_fail (PLAN_IS_DEVICE (device), NULL);

  plan_host_memory_init_once ();
  if (!plan_device_alloc_host (device, size, &data, error))
    return NULL;
  return memory_new (device, NULL, data, size, 0, size);
}

static GstMemory *
plan_host_allocator_alloc_vfunc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GError *err = NULL;
  PlanDevice *device;
  GstMemory *mem;

  /* gst_allocator_alloc() names no device: pin for the default one, or,
   * without a GPU, give plain host memory (from the cpu device). */
  device = plan_device_get (NULL, NULL);
  if (device == NULL)
    device = plan_device_get ("cpu", &err);
  if (device == NULL) {
    GST_ERROR_OBJECT (allocator, "%s", err->message);
    g_error_free (err);
    return NULL;
  }
  mem = plan_host_allocator_alloc (device, size + params->prefix +
      params->padding, &err);
  gst_object_unref (device);
  if (mem == NULL) {
    GST_ERROR_OBJECT (allocator, "%s", err->message);
    g_error_free (err);
    return NULL;
  }
  mem->offset = params->prefix;
  mem->size = size;
  return mem;
}

static void
plan_host_allocator_free (GstAllocator * allocator, GstMemory * mem)
{
  PlanHostMemory *self = (PlanHostMemory *) mem;

  if (self->owned)
    plan_device_free_host (self->device, self->data);
  gst_object_unref (self->device);
  g_free (self);
}

static gpointer
host_mem_map (GstMemory * mem, gsize maxsize, GstMapFlags flags)
{
  return ((PlanHostMemory *) mem)->data;
}

static void
host_mem_unmap (GstMemory * mem)
{
}

static GstMemory *
host_mem_share (GstMemory * mem, gssize offset, gssize size)
{
  PlanHostMemory *self = (PlanHostMemory *) mem;
  GstMemory *parent = mem->parent ? mem->parent : mem;

  if (size == -1)
    size = mem->size - offset;
  return memory_new (self->device, parent, self->data, mem->maxsize,
      mem->offset + offset, size);
}

static void
plan_host_allocator_class_init (PlanHostAllocatorClass * klass)
{
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  allocator_class->alloc = plan_host_allocator_alloc_vfunc;
  allocator_class->free = plan_host_allocator_free;

  GST_DEBUG_CATEGORY_INIT (plan_host_memory_debug, "planhostmemory", 0,
      "pinned host memory");
}

static void
plan_host_allocator_init (PlanHostAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (self);

  allocator->mem_type = PLAN_HOST_MEMORY_TYPE_NAME;
  allocator->mem_map = host_mem_map;
  allocator->mem_unmap = host_mem_unmap;
  allocator->mem_share = host_mem_share;
  /* mem_copy stays GstAllocator's default: a copy into system memory. */
}

/* plan_host_memory_init_once: private to libplan.
 *
 * Registers the pinned host allocator under #PLAN_HOST_MEMORY_TYPE_NAME.
 * plan_init() calls it; it is safe to call again.
 */
void
plan_host_memory_init_once (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    host_allocator = g_object_new (PLAN_TYPE_HOST_ALLOCATOR, NULL);
    gst_object_ref_sink (host_allocator);
    gst_allocator_register (PLAN_HOST_MEMORY_TYPE_NAME,
        gst_object_ref (host_allocator));
    g_once_init_leave (&done, 1);
  }
}

/**
 * plan_host_allocator_get:
 *
 * Returns: (transfer full): the pinned host allocator.
 *
 * Since: 0.1
 */
GstAllocator *
plan_host_allocator_get (void)
{
  plan_host_memory_init_once ();
  return gst_object_ref (host_allocator);
}

/**
 * plan_is_host_memory:
 * @mem: a #GstMemory
 *
 * Returns: %TRUE when @mem is pinned host memory from this allocator.
 *
 * Since: 0.1
 */
gboolean
plan_is_host_memory (GstMemory * mem)
{
  return mem != NULL && mem->allocator != NULL
      && PLAN_IS_HOST_ALLOCATOR (mem->allocator);
}
