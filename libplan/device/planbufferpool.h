/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_BUFFER_POOL_H__
#define __PLAN_BUFFER_POOL_H__

#include <libplan/plan-prelude.h>
#include <libplan/plandevice.h>

G_BEGIN_DECLS

#define PLAN_TYPE_BUFFER_POOL (plan_buffer_pool_get_type ())
PLAN_API
G_DECLARE_FINAL_TYPE (PlanBufferPool, plan_buffer_pool, PLAN, BUFFER_POOL,
    GstBufferPool)

PLAN_API
GstBufferPool * plan_buffer_pool_new (PlanStream * stream);

PLAN_API
guint64 plan_buffer_pool_get_host_waits (PlanBufferPool * pool);

PLAN_API
GError * plan_buffer_pool_take_error (PlanBufferPool * pool);

G_END_DECLS

#endif /* __PLAN_BUFFER_POOL_H__ */
