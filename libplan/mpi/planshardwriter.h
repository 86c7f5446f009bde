/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_SHARD_WRITER_H__
#define __PLAN_SHARD_WRITER_H__

#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's shared output writer is unstable and may change; define PLAN_USE_UNSTABLE_API to use it without this warning."
#endif

#include <libplan/plan-prelude.h>
#include <libplan/planarrayinfo.h>
#include <libplan/planfileformat.h>
#include <libplan/plancomm.h>
#include <libplan/planfilewriter.h>

G_BEGIN_DECLS

/**
 * PlanShardWriter:
 *
 * One output file written by every rank of an MPI job, each its own rows
 * at their place (see plan_shard_writer_new()).
 *
 * Since: 0.1
 */
typedef struct _PlanShardWriter PlanShardWriter;

PLAN_API
PlanShardWriter * plan_shard_writer_new (PlanComm * comm, const gchar * owner,
    const gchar * location, PlanFileFormat format, const PlanArrayInfo * info,
    guint64 total_rows, gboolean sync, GError ** error);

PLAN_API
PlanShardWriter * plan_shard_writer_new_full (PlanComm * comm,
    const gchar * owner, PlanFileWriter * file_writer,
    const gchar * location, PlanFileFormat format,
    const PlanArrayInfo * info, guint64 total_rows, gboolean sync,
    GError ** error);

PLAN_API
gboolean plan_shard_writer_write (PlanShardWriter * writer, guint64 row,
    gconstpointer data, gsize n_rows, GError ** error);

PLAN_API
gboolean plan_shard_writer_finish (PlanShardWriter * writer, GError ** error);

PLAN_API
gboolean plan_shard_writer_finish_full (PlanShardWriter * writer,
    GCancellable * cancellable, GError ** error);

PLAN_API
void plan_shard_writer_free (PlanShardWriter * writer);

PLAN_API
gchar * plan_shard_rank_location (const gchar * location, guint rank,
    guint n_ranks);

G_END_DECLS

#endif /* __PLAN_SHARD_WRITER_H__ */
