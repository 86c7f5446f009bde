/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_DEVICE_MEMORY_H__
#define __PLAN_DEVICE_MEMORY_H__

#include <libplan/plan-prelude.h>
#include <libplan/plandevice.h>
#include <libplan/plandtype.h>

G_BEGIN_DECLS

/**
 * PLAN_CAPS_FEATURE_MEMORY_DEVICE:
 *
 * The caps feature of array streams whose buffers hold #PlanDeviceMemory:
 * `array/x-raw(memory:PlanDevice), dtype=..., shape=...`.
 *
 * Since: 0.1
 */
#define PLAN_CAPS_FEATURE_MEMORY_DEVICE "memory:PlanDevice"

/**
 * PLAN_ARRAY_CAPS_DEVICE_ANY:
 *
 * Caps string for any array in device memory, for pad templates.
 *
 * Since: 0.1
 */
#define PLAN_ARRAY_CAPS_DEVICE_ANY "array/x-raw(" \
    PLAN_CAPS_FEATURE_MEMORY_DEVICE "), dtype = (string) " PLAN_DTYPE_NAMES

/**
 * PLAN_DEVICE_MEMORY_TYPE_NAME:
 *
 * The name of the device memory allocator, for gst_allocator_find().
 *
 * Since: 0.1
 */
#define PLAN_DEVICE_MEMORY_TYPE_NAME "PlanDeviceMemory"

/**
 * PLAN_MAP_DEVICE:
 *
 * A map flag of our own: with it, mapping #PlanDeviceMemory gives the
 * device pointer at once, without copying or waiting. The caller orders
 * its work with the memory's events (plan_device_memory_wait_ready(),
 * plan_device_memory_record_ready()) and never dereferences the pointer on
 * the host.
 *
 * Since: 0.1
 */
#define PLAN_MAP_DEVICE (GST_MAP_FLAG_LAST << 1)

#define PLAN_TYPE_DEVICE_ALLOCATOR (plan_device_allocator_get_type ())
PLAN_API
G_DECLARE_FINAL_TYPE (PlanDeviceAllocator, plan_device_allocator, PLAN,
    DEVICE_ALLOCATOR, GstAllocator)

PLAN_API
GstMemory * plan_device_allocator_alloc (PlanDevice * device, gsize size,
    GError ** error);

PLAN_API
GstMemory * plan_device_memory_new_wrapped (PlanDevice * device,
    gpointer dptr, gsize size, gpointer user_data, GDestroyNotify notify);

PLAN_API
gboolean plan_is_device_memory (GstMemory * mem);

PLAN_API
gboolean plan_buffer_is_device (GstBuffer * buffer);

PLAN_API
PlanDevice * plan_device_memory_get_device (GstMemory * mem);

PLAN_API
gpointer plan_device_memory_get_pointer (GstMemory * mem);

PLAN_API
gboolean plan_device_memory_record_ready (GstMemory * mem,
    PlanStream * stream, GError ** error);

PLAN_API
gboolean plan_device_memory_record_use (GstMemory * mem, PlanStream * stream,
    GError ** error);

PLAN_API
gboolean plan_device_memory_wait_ready (GstMemory * mem, PlanStream * stream,
    GError ** error);

PLAN_API
gboolean plan_buffer_wait_ready (GstBuffer * buffer, PlanStream * stream,
    GError ** error);

PLAN_API
gboolean plan_buffer_record_ready (GstBuffer * buffer, PlanStream * stream,
    GError ** error);

PLAN_API
gboolean plan_buffer_record_use (GstBuffer * buffer, PlanStream * stream,
    GError ** error);

PLAN_API
GstCaps * plan_caps_set_memory (const GstCaps * caps, const gchar * feature);

PLAN_API
gboolean plan_caps_is_device (const GstCaps * caps);

G_END_DECLS

#endif /* __PLAN_DEVICE_MEMORY_H__ */
