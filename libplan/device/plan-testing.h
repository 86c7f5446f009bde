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

#include "plandevice.h"

G_BEGIN_DECLS

/* PLAN_EXPORT_TEST_HOOKS: set by libplan/meson.build when tests are built. */
#if defined(BUILDING_PLAN) && !defined(PLAN_EXPORT_TEST_HOOKS)
#define PLAN_TEST_API G_GNUC_INTERNAL
#else
#define PLAN_TEST_API PLAN_API
#endif

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

/*
 * PlanWaitSite:
 * @PLAN_WAIT_SITE_POOL_REUSE: the wait of a #PlanBufferPool's stream on
 *   the last use of a buffer it hands out again.
 * @PLAN_WAIT_SITE_READY: the wait of a consumer's stream on the ready
 *   event of device memory (plan_stream_wait_memory()).
 * @PLAN_WAIT_SITE_RESULT: the host's wait for the copy of a device
 *   reduction's result (#PlanDeviceReducer) before it reads the values.
 *
 * The places where libplan makes a stream wait on an event. The sim
 * device can be told to skip the waits of a site
 * (plan_device_sim_skip_waits()), which tests use to prove that they
 * catch a missing wait.
 */
typedef enum
{
  PLAN_WAIT_SITE_POOL_REUSE = (1 << 0),
  PLAN_WAIT_SITE_READY = (1 << 1),
  PLAN_WAIT_SITE_RESULT = (1 << 2),
} PlanWaitSite;

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
