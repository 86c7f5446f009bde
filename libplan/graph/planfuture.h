/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_FUTURE_H__
#define __PLAN_FUTURE_H__

#include <libplan/plan-prelude.h>
#include <libplan/planarray.h>

G_BEGIN_DECLS

#define PLAN_TYPE_FUTURE (plan_future_get_type ())

/**
 * PlanFuture:
 *
 * One running (or finished) dispatch of a #PlanWork: wait for it, cancel
 * it, ask how far it is, and read its results. Every function may be
 * called from any thread.
 *
 * Since: 0.1
 */
PLAN_API
G_DECLARE_FINAL_TYPE (PlanFuture, plan_future, PLAN, FUTURE, GObject)

PLAN_API
gboolean plan_future_wait (PlanFuture * future, gint64 timeout_us,
    GError ** error);

PLAN_API
gboolean plan_future_is_done (PlanFuture * future);

PLAN_API
void plan_future_cancel (PlanFuture * future);

PLAN_API
gdouble plan_future_get_progress (PlanFuture * future, guint64 * rows_done,
    gint64 * rows_total);

PLAN_API
PlanArray * plan_future_get_result (PlanFuture * future, const gchar * name);

PLAN_API
gchar ** plan_future_get_result_names (PlanFuture * future);

G_END_DECLS

#endif /* __PLAN_FUTURE_H__ */
