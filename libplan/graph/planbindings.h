/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_BINDINGS_H__
#define __PLAN_BINDINGS_H__

#include <libplan/plan-prelude.h>
#include <libplan/planarray.h>
#include <libplan/planarraysrc.h>
#include <libplan/planarraysink.h>

G_BEGIN_DECLS

#define PLAN_TYPE_BINDINGS (plan_bindings_get_type ())

/**
 * PlanBindings:
 *
 * What one dispatch of a #PlanWork reads and writes: for each source and
 * output, by name, an in-memory #PlanArray, a file, or an application's
 * chunk reader or writer. Setting a name again replaces its binding.
 * Outputs left unbound are collected into arrays that the #PlanFuture
 * hands back.
 *
 * Since: 0.1
 */
PLAN_API
G_DECLARE_FINAL_TYPE (PlanBindings, plan_bindings, PLAN, BINDINGS, GObject)

PLAN_API
PlanBindings * plan_bindings_new (void);

PLAN_API
void plan_bindings_set_array (PlanBindings * bindings, const gchar * name,
    PlanArray * array);

PLAN_API
void plan_bindings_set_file (PlanBindings * bindings, const gchar * name,
    const gchar * location);

PLAN_API
void plan_bindings_set_file_dataset (PlanBindings * bindings,
    const gchar * name, const gchar * location, const gchar * dataset);

PLAN_API
void plan_bindings_set_raw_file (PlanBindings * bindings, const gchar * name,
    const gchar * location, PlanDType dtype, guint ndim,
    const gint64 * shape);

PLAN_API
void plan_bindings_set_reader (PlanBindings * bindings, const gchar * name,
    PlanDType dtype, guint ndim, const gint64 * shape,
    PlanChunkReadFunc func, gpointer user_data, GDestroyNotify notify);

PLAN_API
void plan_bindings_set_writer (PlanBindings * bindings, const gchar * name,
    PlanChunkWriteFunc func, gpointer user_data, GDestroyNotify notify);

PLAN_API
gchar ** plan_bindings_get_names (PlanBindings * bindings);

G_END_DECLS

#endif /* __PLAN_BINDINGS_H__ */
