/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Test hooks of the sim device. Never installed and not part of the API:
 * nothing here is promised to stay. A build with tests (-Dtests, the
 * default) exports them so that the project's own tests can drive them; a
 * build without (the Debian packages, the wheel) keeps them out of the
 * library's symbol table. */

#ifndef __PLAN_TESTING_H__
#define __PLAN_TESTING_H__

#include "libplan/core/plan-private.h"

G_BEGIN_DECLS

/*
 * PlanSimFault:
 * @PLAN_SIM_FAULT_ALLOC: a device allocation fails with out-of-memory.
 * @PLAN_SIM_FAULT_LAUNCH: a kernel launch fails.
 * @PLAN_SIM_FAULT_COPY: an asynchronous copy fails to enqueue.
 * @PLAN_SIM_FAULT_COPY_QUEUED: an asynchronous copy is queued, and runs
 *   late (after 50 ms), but the call reports a failure: what a caller must
 *   survive without releasing the copy's source early.
 *
 * Faults the sim device can inject, for tests of error paths.
 */
typedef enum
{
  PLAN_SIM_FAULT_ALLOC,
  PLAN_SIM_FAULT_LAUNCH,
  PLAN_SIM_FAULT_COPY,
  PLAN_SIM_FAULT_COPY_QUEUED,
} PlanSimFault;

/* The wait sites (#PlanWaitSite) are named in core/plan-private.h, where
 * the waits of libplan use them. */

PLAN_TEST_API
gboolean plan_device_sim_inject_fault (PlanDevice * device,
    PlanSimFault fault, gint after);

PLAN_TEST_API
gboolean plan_device_sim_set_memory_limit (PlanDevice * device,
    guint64 limit);

PLAN_TEST_API
gboolean plan_device_sim_skip_waits (PlanDevice * device, guint sites);

G_END_DECLS

#endif /* __PLAN_TESTING_H__ */
