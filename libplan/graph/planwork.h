/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_WORK_H__
#define __PLAN_WORK_H__

#include <libplan/plan-prelude.h>
#include <libplan/plankernelelement.h>
#include <libplan/planbindings.h>
#include <libplan/planfuture.h>
#include <gio/gio.h>

G_BEGIN_DECLS

#define PLAN_TYPE_WORK (plan_work_get_type ())

/**
 * PlanWork:
 *
 * A realized #PlanGraph: a prepared #GstPipeline for one target, to be
 * dispatched on bindings as often as needed. Made by plan_graph_realize().
 *
 * Since: 0.1
 */
PLAN_API
G_DECLARE_FINAL_TYPE (PlanWork, plan_work, PLAN, WORK, GObject)

PLAN_API
PlanFuture * plan_work_dispatch (PlanWork * work, PlanBindings * bindings,
    GError ** error);

PLAN_API
void plan_work_dispatch_async (PlanWork * work, PlanBindings * bindings,
    GCancellable * cancellable, GAsyncReadyCallback callback,
    gpointer user_data);

PLAN_API
PlanFuture * plan_work_dispatch_finish (PlanWork * work,
    GAsyncResult * result, GError ** error);

PLAN_API
void plan_work_set_max_queued (PlanWork * work, guint max_queued);

PLAN_API
guint plan_work_get_max_queued (PlanWork * work);

PLAN_API
GstPipeline * plan_work_get_pipeline (PlanWork * work);

PLAN_API
gchar * plan_work_to_launch_string (PlanWork * work);

PLAN_API
PlanTarget plan_work_get_target (PlanWork * work);

PLAN_API
gchar ** plan_work_get_input_names (PlanWork * work);

PLAN_API
gchar ** plan_work_get_output_names (PlanWork * work);

PLAN_API
guint plan_work_get_n_kernels (PlanWork * work);

G_END_DECLS

#endif /* __PLAN_WORK_H__ */
