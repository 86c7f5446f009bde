/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_REDUCER_DEVICE_H__
#define __PLAN_REDUCER_DEVICE_H__

#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's device reducer API is unstable and may change; define PLAN_USE_UNSTABLE_API to use it without this warning."
#endif

#include <libplan/plan-prelude.h>
#include <libplan/plandevice.h>
#include <libplan/planreducer.h>
#include <libplan/planreducer-steps.h>

G_BEGIN_DECLS

/**
 * PlanDeviceReducer:
 *
 * A #PlanReducer's reduction run on a device, in stream order: the same
 * blocks, lanes, tree and finals, as CUDA kernels on CUDA devices and as
 * the same steps run on the host (host kernels) on the sim and cpu
 * devices. Unstable API.
 *
 * Since: 0.1
 */
typedef struct _PlanDeviceReducer PlanDeviceReducer;

PLAN_API
PlanDeviceReducer * plan_device_reducer_new (PlanReducer * reducer,
    PlanStream * stream, GError ** error);

PLAN_API
void plan_device_reducer_free (PlanDeviceReducer * reducer);

PLAN_API
gboolean plan_device_reducer_push (PlanDeviceReducer * reducer,
    gconstpointer rows, gsize n_rows, gpointer out, GError ** error);

PLAN_API
gboolean plan_device_reducer_finish (PlanDeviceReducer * reducer,
    gpointer out, GError ** error);

PLAN_API
gboolean plan_device_reducer_reset (PlanDeviceReducer * reducer,
    GError ** error);

G_END_DECLS

#endif /* __PLAN_REDUCER_DEVICE_H__ */
