/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_REDUCER_ASYNC_H__
#define __PLAN_REDUCER_ASYNC_H__

#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's asynchronous reducer API is unstable and may change; define PLAN_USE_UNSTABLE_API to use it without this warning."
#endif

#include <libplan/plan-prelude.h>
#include <libplan/planreducer.h>

G_BEGIN_DECLS

PLAN_API
gboolean plan_reducer_push_async (PlanReducer * reducer, gconstpointer rows,
    gsize n_rows, GError ** error);

PLAN_API
void plan_reducer_wait (PlanReducer * reducer);

PLAN_API
gboolean plan_reducer_holds_rows (PlanReducer * reducer);

G_END_DECLS

#endif /* __PLAN_REDUCER_ASYNC_H__ */
