/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:plandevicememory
 * @title: PlanDeviceMemory
 * @short_description: GstMemory in device memory, with ready and use events
 *
 * #PlanDeviceMemory is a #GstMemory whose bytes live on a #PlanDevice (a
 * GPU, or the sim device). Streams carrying it announce
 * #PLAN_CAPS_FEATURE_MEMORY_DEVICE in their caps.
 *
 * Each memory carries events that order the work of different streams on
 * it without the host waiting:
 *
 * - the *ready* event, recorded by the producer after the work that writes
 *   the memory (plan_device_memory_record_ready()). A consumer makes its
 *   stream wait on it (plan_device_memory_wait_ready()) before reading.
 * - *use* events, recorded by consumers after the work that reads it
 *   (plan_device_memory_record_use()). Whoever overwrites the memory
 *   next, a #PlanBufferPool handing it out again for instance, makes its
 *   stream wait on them and on the ready event
 *   (plan_device_memory_wait_idle()).
 *
 * Mapping:
 *
 * - gst_memory_map() without #PLAN_MAP_DEVICE gives coherent host memory:
 *   it waits (on the host) for the events, copies the bytes to a host
 *   staging area and returns that; unmapping a write map copies them back.
 *   This is a host wait and is counted in the device's statistics.
 * - with #PLAN_MAP_DEVICE it gives the device pointer at once, for code
 *   that queues device work ordered by the events.
 *
 * The allocator is registered once under #PLAN_DEVICE_MEMORY_TYPE_NAME;
 * plan_device_allocator_alloc() allocates on a given device. Bookkeeping
 * of each memory is under its own lock; nothing blocks while holding it
 * except the host copies of a plain map.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plandevicememory.h"
#include <libplan/planerror.h>
#include "libplan/core/plan-private.h"

#include <string.h>

static PlanEvent * plan_device_memory_get_ready_event (GstMemory * mem);

GST_DEBUG_CATEGORY_STATIC (plan_device_memory_debug);
#define GST_CAT_DEFAULT plan_device_memory_debug

typedef struct
{
  GstMemory mem;

  /* construct-only, no lock */
  PlanDevice *device;
  gpointer dptr;                /* the start of the allocation */
  gboolean owned;               /* FALSE for shared sub-memories */
  gpointer user_data;           /* wrapped memory: its owner's */
  GDestroyNotify notify;

  GMutex lock;
  /* protected by lock */
  PlanEvent *ready;
  GPtrArray *uses;
  gpointer staging;
  guint host_maps;
} PlanDeviceMemory;

struct _PlanDeviceAllocator
{
  GstAllocator parent;
};

G_DEFINE_TYPE (PlanDeviceAllocator, plan_device_allocator, GST_TYPE_ALLOCATOR);

static GstAllocator *device_allocator;

static GstMemory *
memory_new (PlanDevice * device, GstMemory * parent, gpointer dptr,
    gsize maxsize, gsize offset, gsize size)
{
  PlanDeviceMemory *self = g_new0 (PlanDeviceMemory, 1);

  gst_memory_init (GST_MEMORY_CAST (self), 0, device_allocator, parent,
      maxsize, 0, offset, size);
  self->device = gst_object_ref (device);
  self->dptr = dptr;
  self->owned = parent == NULL;
  g_mutex_init (&self->lock);
  self->uses = g_ptr_array_new_with_free_func ((GDestroyNotify)
      plan_event_unref);
  return GST_MEMORY_CAST (self);
}

/**
 * plan_device_allocator_alloc:
 * @device: a #PlanDevice
 * @size: bytes
 * @error: where to report failure (out of memory)
 *
 * Allocates device memory on @device as a #GstMemory.
 *
 * Returns: (transfer full) (nullable): the memory.
 *
 * Since: 0.1
 */
GstMemory *
plan_device_allocator_alloc (PlanDevice * device, gsize size, GError ** error)
{
  gpointer dptr;

  g_return_val_if_fail (PLAN_IS_DEVICE (device), NULL);

  plan_device_memory_init_once ();
  if (!plan_device_alloc (device, size, &dptr, error))
    return NULL;
  return memory_new (device, NULL, dptr, size, 0, size);
}

/**
 * plan_device_memory_new_wrapped:
 * @device: the #PlanDevice @dptr belongs to
 * @dptr: device memory of someone else's (a CUDA pointer of @device's
 *   context, or memory of plan_device_alloc())
 * @size: its size in bytes
 * @user_data: (closure): data for @notify
 * @notify: (nullable): called when the memory is freed, to give @dptr back
 *   to its owner
 *
 * Wraps device memory that the caller owns as a #GstMemory, without a
 * copy: the plan API's arrays in device memory. The memory has no ready
 * event: its contents must be complete (the writer's stream synchronized)
 * before it is used.
 *
 * Returns: (transfer full): the memory.
 *
 * Since: 0.1
 */
GstMemory *
plan_device_memory_new_wrapped (PlanDevice * device, gpointer dptr,
    gsize size, gpointer user_data, GDestroyNotify notify)
{
  PlanDeviceMemory *self;

  g_return_val_if_fail (PLAN_IS_DEVICE (device), NULL);
  g_return_val_if_fail (dptr != NULL, NULL);

  plan_device_memory_init_once ();
  self = (PlanDeviceMemory *) memory_new (device, NULL, dptr, size, 0, size);
  self->owned = FALSE;
  self->user_data = user_data;
  self->notify = notify;
  return GST_MEMORY_CAST (self);
}

static GstMemory *
plan_device_allocator_alloc_vfunc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GError *err = NULL;
  PlanDevice *device;
  GstMemory *mem;

  /* gst_allocator_alloc() names no device: take the default GPU one. */
  device = plan_device_get (NULL, &err);
  if (device == NULL) {
    GST_ERROR_OBJECT (allocator, "%s", err->message);
    g_error_free (err);
    return NULL;
  }
  mem = plan_device_allocator_alloc (device, size + params->prefix +
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
plan_device_allocator_free (GstAllocator * allocator, GstMemory * mem)
{
  PlanDeviceMemory *self = (PlanDeviceMemory *) mem;

  if (self->owned)
    plan_device_free (self->device, self->dptr);
  if (self->notify)
    self->notify (self->user_data);
  if (self->staging)
    plan_device_free_host (self->device, self->staging);
  g_clear_pointer (&self->ready, plan_event_unref);
  g_ptr_array_unref (self->uses);
  g_mutex_clear (&self->lock);
  gst_object_unref (self->device);
  g_free (self);
}

/* Must be called with the memory's lock held. Waits on the host for the
 * last write and the reads since, so that the host may read or overwrite
 * the memory; then they are all done and forgotten. */
static gboolean
host_wait_idle_unlocked (PlanDeviceMemory * self, GError ** error)
{
  guint i;

  if (self->ready && !plan_event_synchronize (self->ready, error))
    return FALSE;
  g_clear_pointer (&self->ready, plan_event_unref);
  for (i = 0; i < self->uses->len; i++) {
    if (!plan_event_synchronize (g_ptr_array_index (self->uses, i), error))
      return FALSE;
  }
  g_ptr_array_set_size (self->uses, 0);
  return TRUE;
}

static gpointer
device_mem_map (GstMemory * mem, gsize maxsize, GstMapFlags flags)
{
  PlanDeviceMemory *self = (PlanDeviceMemory *) mem;
  GError *err = NULL;
  gpointer data;

  if (flags & PLAN_MAP_DEVICE)
    return self->dptr;

  g_mutex_lock (&self->lock);
  if (self->host_maps == 0) {
    /* The host is about to touch the data: this is where it must wait. */
    if (self->staging == NULL && !plan_device_alloc_host (self->device,
            mem->maxsize, &self->staging, &err))
      goto failed;
    if (!host_wait_idle_unlocked (self, &err))
      goto failed;
    if (!plan_device_copy (self->device, PLAN_COPY_DEVICE_TO_HOST,
            self->staging, self->dptr, mem->maxsize, &err))
      goto failed;
  }
  self->host_maps++;
  data = self->staging;
  g_mutex_unlock (&self->lock);
  return data;

failed:
  g_mutex_unlock (&self->lock);
  GST_ERROR ("mapping device memory %p for the host: %s", mem, err->message);
  g_error_free (err);
  return NULL;
}

static void
device_mem_unmap_full (GstMemory * mem, GstMapInfo * info)
{
  PlanDeviceMemory *self = (PlanDeviceMemory *) mem;
  GError *err = NULL;

  if (info->flags & PLAN_MAP_DEVICE)
    return;

  g_mutex_lock (&self->lock);
  if ((info->flags & GST_MAP_WRITE) && !plan_device_copy (self->device,
          PLAN_COPY_HOST_TO_DEVICE, self->dptr, self->staging,
          mem->maxsize, &err)) {
    GST_ERROR ("writing back device memory %p: %s", mem, err->message);
    g_clear_error (&err);
  }
  self->host_maps--;
  g_mutex_unlock (&self->lock);
}

static GstMemory *
device_mem_copy (GstMemory * mem, gssize offset, gssize size)
{
  PlanDeviceMemory *self = (PlanDeviceMemory *) mem;
  GstMemory *copy;
  GError *err = NULL;

  if (size == -1)
    size = mem->size > (gsize) offset ? mem->size - offset : 0;

  copy = plan_device_allocator_alloc (self->device, size, &err);
  if (copy == NULL)
    goto failed;

  /* A copy outside any stream: the host waits for the writer, then copies
   * synchronously. Elements copy on their streams instead. */
  g_mutex_lock (&self->lock);
  if (!host_wait_idle_unlocked (self, &err)
      || !plan_device_copy (self->device, PLAN_COPY_DEVICE_TO_DEVICE,
          ((PlanDeviceMemory *) copy)->dptr,
          (guint8 *) self->dptr + mem->offset + offset, size, &err)) {
    g_mutex_unlock (&self->lock);
    gst_memory_unref (copy);
    goto failed;
  }
  g_mutex_unlock (&self->lock);
  return copy;

failed:
  GST_ERROR ("copying device memory %p: %s", mem, err->message);
  g_error_free (err);
  return NULL;
}

static GstMemory *
device_mem_share (GstMemory * mem, gssize offset, gssize size)
{
  PlanDeviceMemory *self = (PlanDeviceMemory *) mem;
  GstMemory *parent = mem->parent ? mem->parent : mem;
  PlanDeviceMemory *sub;

  if (size == -1)
    size = mem->size - offset;

  sub = (PlanDeviceMemory *) memory_new (self->device, parent, self->dptr,
      mem->maxsize, mem->offset + offset, size);
  /* The part shares the whole's pending write; its own events are its
   * own from here on. */
  g_mutex_lock (&self->lock);
  if (self->ready)
    sub->ready = plan_event_ref (self->ready);
  g_mutex_unlock (&self->lock);
  return GST_MEMORY_CAST (sub);
}

static void
plan_device_allocator_class_init (PlanDeviceAllocatorClass * klass)
{
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  allocator_class->alloc = plan_device_allocator_alloc_vfunc;
  allocator_class->free = plan_device_allocator_free;

  GST_DEBUG_CATEGORY_INIT (plan_device_memory_debug, "plandevicememory", 0,
      "device memory");
}

static void
plan_device_allocator_init (PlanDeviceAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (self);

  allocator->mem_type = PLAN_DEVICE_MEMORY_TYPE_NAME;
  allocator->mem_map = device_mem_map;
  allocator->mem_unmap_full = device_mem_unmap_full;
  allocator->mem_copy = device_mem_copy;
  allocator->mem_share = device_mem_share;
  GST_OBJECT_FLAG_SET (allocator, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

/* plan_device_memory_init_once: private to libplan.
 *
 * Registers the device memory allocator under
 * #PLAN_DEVICE_MEMORY_TYPE_NAME. plan_init() calls it; it is safe to call
 * again.
 */
void
plan_device_memory_init_once (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    device_allocator = g_object_new (PLAN_TYPE_DEVICE_ALLOCATOR, NULL);
    gst_object_ref_sink (device_allocator);
    /* gst_allocator_register() takes the reference; we keep a pointer for
     * the life of the process, as the registry does. */
    gst_allocator_register (PLAN_DEVICE_MEMORY_TYPE_NAME,
        gst_object_ref (device_allocator));
    g_once_init_leave (&done, 1);
  }
}

/**
 * plan_is_device_memory:
 * @mem: a #GstMemory
 *
 * Returns: %TRUE when @mem is #PlanDeviceMemory.
 *
 * Since: 0.1
 */
gboolean
plan_is_device_memory (GstMemory * mem)
{
  return mem != NULL && mem->allocator != NULL
      && PLAN_IS_DEVICE_ALLOCATOR (mem->allocator);
}

/**
 * plan_buffer_is_device:
 * @buffer: a #GstBuffer
 *
 * Returns: %TRUE when every memory of @buffer is #PlanDeviceMemory (and
 *   there is at least one).
 *
 * Since: 0.1
 */
gboolean
plan_buffer_is_device (GstBuffer * buffer)
{
  guint i, n = gst_buffer_n_memory (buffer);

  for (i = 0; i < n; i++) {
    if (!plan_is_device_memory (gst_buffer_peek_memory (buffer, i)))
      return FALSE;
  }
  return n > 0;
}

/**
 * plan_device_memory_get_device:
 * @mem: a #PlanDeviceMemory
 *
 * Returns: (transfer none): the device of @mem.
 *
 * Since: 0.1
 */
PlanDevice *
plan_device_memory_get_device (GstMemory * mem)
{
  g_return_val_if_fail (plan_is_device_memory (mem), NULL);

  return ((PlanDeviceMemory *) mem)->device;
}

/**
 * plan_device_memory_get_pointer:
 * @mem: a #PlanDeviceMemory
 *
 * Returns: the device pointer of the first byte of @mem (its offset
 *   included), as a #PLAN_MAP_DEVICE map would give. Never dereference it
 *   on the host.
 *
 * Since: 0.1
 */
gpointer
plan_device_memory_get_pointer (GstMemory * mem)
{
  g_return_val_if_fail (plan_is_device_memory (mem), NULL);

  return (guint8 *) ((PlanDeviceMemory *) mem)->dptr + mem->offset;
}

/*
 * plan_device_memory_get_ready_event:
 * @mem: a #PlanDeviceMemory
 *
 * Returns: (transfer full) (nullable): the event after the last write of
 *   @mem, or %NULL when its content is ready already.
 *
 * Since: 0.1
 */
static PlanEvent *
plan_device_memory_get_ready_event (GstMemory * mem)
{
  PlanDeviceMemory *self = (PlanDeviceMemory *) mem;
  PlanEvent *event;

  g_return_val_if_fail (plan_is_device_memory (mem), NULL);

  g_mutex_lock (&self->lock);
  event = self->ready ? plan_event_ref (self->ready) : NULL;
  g_mutex_unlock (&self->lock);
  return event;
}

/* plan_device_memory_set_ready_event: private to libplan.
 * @mem: a #PlanDeviceMemory
 * @event: (nullable) (transfer none): the event after the work that writes
 *   @mem, or %NULL when it is written already
 *
 * Sets the ready event of @mem. The use events of the previous content
 * are kept: a writer must have waited on them
 * (plan_device_memory_wait_idle()), and keeping them costs nothing.
 */
void
plan_device_memory_set_ready_event (GstMemory * mem, PlanEvent * event)
{
  PlanDeviceMemory *self = (PlanDeviceMemory *) mem;

  g_return_if_fail (plan_is_device_memory (mem));

  g_mutex_lock (&self->lock);
  if (event)
    plan_event_ref (event);
  g_clear_pointer (&self->ready, plan_event_unref);
  self->ready = event;
  g_mutex_unlock (&self->lock);
}

/**
 * plan_device_memory_record_ready:
 * @mem: a #PlanDeviceMemory
 * @stream: the stream on which the work that writes @mem was queued
 * @error: where to report failure
 *
 * Records a new event on @stream and makes it the ready event of @mem.
 * Producers call it after queueing their writes, before pushing the
 * buffer.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_device_memory_record_ready (GstMemory * mem, PlanStream * stream,
    GError ** error)
{
  PlanEvent *event;

  g_return_val_if_fail (plan_is_device_memory (mem), FALSE);
  g_return_val_if_fail (stream != NULL, FALSE);

  event = plan_stream_record (stream, error);
  if (event == NULL)
    return FALSE;
  plan_device_memory_set_ready_event (mem, event);
  plan_event_unref (event);
  return TRUE;
}

/**
 * plan_device_memory_record_use:
 * @mem: a #PlanDeviceMemory
 * @stream: the stream on which work that reads @mem was queued
 * @error: where to report failure
 *
 * Records an event on @stream and adds it to the uses of @mem, so that
 * whoever overwrites @mem next (its pool, handing it out again) waits for
 * this read. Consumers call it after queueing their reads, before
 * dropping the buffer.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_device_memory_record_use (GstMemory * mem, PlanStream * stream,
    GError ** error)
{
  PlanDeviceMemory *self = (PlanDeviceMemory *) mem;
  PlanEvent *event;
  guint i;

  g_return_val_if_fail (plan_is_device_memory (mem), FALSE);
  g_return_val_if_fail (stream != NULL, FALSE);

  event = plan_stream_record (stream, error);
  if (event == NULL)
    return FALSE;

  g_mutex_lock (&self->lock);
  /* Uses that are done already need no wait; drop them so that the list
   * stays short on a buffer read many times. */
  for (i = self->uses->len; i > 0; i--) {
    if (plan_event_query (g_ptr_array_index (self->uses, i - 1)))
      g_ptr_array_remove_index_fast (self->uses, i - 1);
  }
  g_ptr_array_add (self->uses, event);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

/**
 * plan_device_memory_wait_ready:
 * @mem: a #PlanDeviceMemory
 * @stream: the consumer's stream
 * @error: where to report failure
 *
 * Makes @stream wait, on the device, until the content of @mem is written.
 * Consumers call it before queueing work that reads @mem. The host does
 * not wait.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_device_memory_wait_ready (GstMemory * mem, PlanStream * stream,
    GError ** error)
{
  PlanEvent *event;
  gboolean ret;

  g_return_val_if_fail (plan_is_device_memory (mem), FALSE);
  g_return_val_if_fail (stream != NULL, FALSE);

  event = plan_device_memory_get_ready_event (mem);
  ret = _plan_stream_wait_event_at (stream, event, PLAN_WAIT_SITE_READY,
      error);
  if (event)
    plan_event_unref (event);
  return ret;
}

/**
 * plan_device_memory_wait_idle:
 * @mem: a #PlanDeviceMemory
 * @stream: the stream of the next writer
 * @site: which wait of libplan's this is, told to the device backend
 *   (the sim device's test hook may skip it)
 * @error: where to report failure
 *
 * Makes @stream wait, on the device, for the last write of @mem and all
 * recorded reads since, so that work queued next on @stream may overwrite
 * it. The host does not wait.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_device_memory_wait_idle (GstMemory * mem, PlanStream * stream,
    PlanWaitSite site, GError ** error)
{
  PlanDeviceMemory *self = (PlanDeviceMemory *) mem;
  GPtrArray *events;
  gboolean ret = TRUE;
  guint i;

  g_return_val_if_fail (plan_is_device_memory (mem), FALSE);
  g_return_val_if_fail (stream != NULL, FALSE);

  events = g_ptr_array_new_with_free_func ((GDestroyNotify)
      plan_event_unref);
  g_mutex_lock (&self->lock);
  if (self->ready)
    g_ptr_array_add (events, plan_event_ref (self->ready));
  for (i = 0; i < self->uses->len; i++)
    g_ptr_array_add (events, plan_event_ref (g_ptr_array_index (self->uses,
                i)));
  g_mutex_unlock (&self->lock);

  for (i = 0; i < events->len && ret; i++)
    ret = _plan_stream_wait_event_at (stream, g_ptr_array_index (events, i),
        site, error);
  g_ptr_array_unref (events);
  return ret;
}

/* @func on every device memory of @buffer, up to the first that fails. */
static gboolean
each_device_memory (GstBuffer * buffer, PlanStream * stream,
    gboolean (*func) (GstMemory * mem, PlanStream * stream, GError ** error),
    GError ** error)
{
  guint i, n = gst_buffer_n_memory (buffer);

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);

    if (plan_is_device_memory (mem) && !func (mem, stream, error))
      return FALSE;
  }
  return TRUE;
}

/**
 * plan_buffer_wait_ready:
 * @buffer: a #GstBuffer
 * @stream: the consumer's stream
 * @error: where to report failure
 *
 * plan_device_memory_wait_ready() on every device memory of @buffer; other
 * memories are ready already.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_buffer_wait_ready (GstBuffer * buffer, PlanStream * stream,
    GError ** error)
{
  return each_device_memory (buffer, stream, plan_device_memory_wait_ready,
      error);
}

/**
 * plan_buffer_record_ready:
 * @buffer: a #GstBuffer
 * @stream: the producer's stream
 * @error: where to report failure
 *
 * Records one event on @stream and makes it the ready event of every
 * device memory of @buffer.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_buffer_record_ready (GstBuffer * buffer, PlanStream * stream,
    GError ** error)
{
  guint i, n = gst_buffer_n_memory (buffer);
  PlanEvent *event;

  event = plan_stream_record (stream, error);
  if (event == NULL)
    return FALSE;
  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);

    if (plan_is_device_memory (mem))
      plan_device_memory_set_ready_event (mem, event);
  }
  plan_event_unref (event);
  return TRUE;
}

/**
 * plan_buffer_record_use:
 * @buffer: a #GstBuffer
 * @stream: the consumer's stream
 * @error: where to report failure
 *
 * plan_device_memory_record_use() on every device memory of @buffer.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_buffer_record_use (GstBuffer * buffer, PlanStream * stream,
    GError ** error)
{
  return each_device_memory (buffer, stream, plan_device_memory_record_use,
      error);
}

/**
 * plan_caps_set_memory:
 * @caps: caps
 * @feature: (nullable): a memory caps feature, such as
 *   #PLAN_CAPS_FEATURE_MEMORY_DEVICE, or %NULL for system memory
 *
 * Returns a copy of @caps with the features of every structure replaced by
 * @feature, for transform_caps of elements that move arrays between
 * memories.
 *
 * Returns: (transfer full): the new caps.
 *
 * Since: 0.1
 */
GstCaps *
plan_caps_set_memory (const GstCaps * caps, const gchar * feature)
{
  GstCaps *out;
  guint i, n;

  g_return_val_if_fail (GST_IS_CAPS (caps), NULL);

  out = gst_caps_copy (caps);
  if (gst_caps_is_any (out))
    return out;
  n = gst_caps_get_size (out);
  for (i = 0; i < n; i++) {
    gst_caps_set_features (out, i, feature ? gst_caps_features_new (feature,
            NULL) : NULL);
  }
  return out;
}

/**
 * plan_caps_is_device:
 * @caps: fixed caps
 *
 * Returns: %TRUE when the first structure of @caps has the
 *   #PLAN_CAPS_FEATURE_MEMORY_DEVICE feature.
 *
 * Since: 0.1
 */
gboolean
plan_caps_is_device (const GstCaps * caps)
{
  GstCapsFeatures *features;

  g_return_val_if_fail (GST_IS_CAPS (caps), FALSE);

  if (gst_caps_get_size (caps) == 0)
    return FALSE;
  features = gst_caps_get_features (caps, 0);
  return features != NULL && gst_caps_features_contains (features,
      PLAN_CAPS_FEATURE_MEMORY_DEVICE);
}
