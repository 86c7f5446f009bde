/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_SHARD_HOOKS_H__
#define __PLAN_SHARD_HOOKS_H__

#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's sharding hooks are unstable and may change; define PLAN_USE_UNSTABLE_API to use them without this warning."
#endif

#include <libplan/plan-prelude.h>
#include <libplan/planshard.h>
#include <libplan/planreducer.h>
#include <libplan/planshardwriter.h>

G_BEGIN_DECLS

PLAN_API
gboolean plan_shard_check_plan (GstElement * element, GError ** error);

PLAN_API
gboolean plan_shard_take_share (guint64 total, PlanShardInfo * info,
    GError ** error);

PLAN_API
gboolean plan_shard_check_same (const gchar * owner, const gchar * what,
    GError ** error);

PLAN_API
void plan_shard_abort (const gchar * why);

PLAN_API
void plan_shard_tell_failure (const gchar * why);

PLAN_API
PlanShardWriter * plan_shard_open_writer (const gchar * owner,
    PlanFileWriter * file_writer, const gchar * location,
    PlanFileFormat format, const PlanArrayInfo * info, guint64 total_rows,
    gboolean sync, GError ** error);

PLAN_API
gboolean plan_shard_combine_reducer (PlanReducer * reducer,
    const gchar * owner, gpointer out, gsize out_size, GError ** error);

G_END_DECLS

#endif /* __PLAN_SHARD_HOOKS_H__ */
