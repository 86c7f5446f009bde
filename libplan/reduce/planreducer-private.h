/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Between the CPU reducer and its device twin (planreducer-device.c);
 * not installed. */

#ifndef __PLAN_REDUCER_PRIVATE_H__
#define __PLAN_REDUCER_PRIVATE_H__

#include "planreducer.h"
#include "planreducer-steps.h"
#include <libplan/planexpr.h>

G_BEGIN_DECLS

G_GNUC_INTERNAL
void _plan_reducer_set_n_rows (PlanReducer * reducer, guint64 n_rows);

G_GNUC_INTERNAL
void _plan_reducer_get_custom_exprs (PlanReducer * reducer,
    PlanExpr ** combiner, PlanExpr ** cast);

G_GNUC_INTERNAL
const gchar *_plan_reducer_get_all_nan_text (PlanReducer * reducer);

G_END_DECLS

#endif /* __PLAN_REDUCER_PRIVATE_H__ */
