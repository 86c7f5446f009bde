/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_KERNEL_INPUT_H__
#define __PLAN_KERNEL_INPUT_H__

#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's held kernel input API is unstable and may change; define PLAN_USE_UNSTABLE_API to use it without this warning."
#endif

#include <libplan/plan-prelude.h>
#include <libplan/plankernelelement.h>

G_BEGIN_DECLS

/**
 * PlanHeldChunk:
 *
 * The input buffers a #PlanChunk's rows are in, kept mapped after
 * process() returns (plan_kernel_element_hold_chunk()), until
 * plan_held_chunk_release().
 *
 * Since: 0.1
 */
typedef struct _PlanHeldChunk PlanHeldChunk;

PLAN_API
PlanHeldChunk * plan_kernel_element_hold_chunk (PlanKernelElement * self,
    const PlanChunk * chunk);

PLAN_API
gboolean plan_held_chunk_release (PlanHeldChunk * held, GError ** error);

G_END_DECLS

#endif /* __PLAN_KERNEL_INPUT_H__ */
