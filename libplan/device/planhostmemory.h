/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_HOST_MEMORY_H__
#define __PLAN_HOST_MEMORY_H__

#include <libplan/plan-prelude.h>
#include <libplan/plandevice.h>

G_BEGIN_DECLS

/**
 * PLAN_HOST_MEMORY_TYPE_NAME:
 *
 * The name of the pinned host memory allocator, for gst_allocator_find().
 *
 * Since: 0.1
 */
#define PLAN_HOST_MEMORY_TYPE_NAME "PlanHostMemory"

#define PLAN_TYPE_HOST_ALLOCATOR (plan_host_allocator_get_type ())
PLAN_API
G_DECLARE_FINAL_TYPE (PlanHostAllocator, plan_host_allocator, PLAN,
    HOST_ALLOCATOR, GstAllocator)

PLAN_API
GstAllocator * plan_host_allocator_get (void);

PLAN_API
GstMemory * plan_host_allocator_alloc (PlanDevice * device, gsize size,
    GError ** error);

PLAN_API
gboolean plan_is_host_memory (GstMemory * mem);

G_END_DECLS

#endif /* __PLAN_HOST_MEMORY_H__ */
