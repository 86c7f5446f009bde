/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_SHARD_H__
#define __PLAN_SHARD_H__

#include <libplan/plan-prelude.h>
#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * PLAN_EVENT_SHARD:
 *
 * The name of the structure of the sticky custom downstream event
 * (%GST_EVENT_CUSTOM_DOWNSTREAM_STICKY) that says a stream is one rank's
 * share of a stream sharded across the ranks of an MPI job. planfilesrc
 * with `shard=mpi` sends it; kernel elements pass it on, changed as their
 * output differs (a stencil's rows move, a reduction's result is the same
 * on every rank); planfilesink writes the rows at their place in one
 * output. See plan_shard_event_new().
 *
 * Since: 0.1
 */
#define PLAN_EVENT_SHARD "plan-shard"

/**
 * PlanShardInfo:
 * @rank: this process's rank
 * @n_ranks: the number of ranks of the job
 * @origin: the global row of the stream's row 0
 * @n_rows: the rows of this rank's stream, -1 when not known
 * @total: the rows of the whole stream across the ranks; row r of this
 *   rank's stream is global row `(origin + r) % total`
 * @replicated: every rank has the whole stream (a reduction's result):
 *   origin is 0 and n_rows is total
 *
 * One rank's share of a sharded stream.
 *
 * Since: 0.1
 */
typedef struct
{
  guint rank;
  guint n_ranks;
  guint64 origin;
  gint64 n_rows;
  guint64 total;
  gboolean replicated;
} PlanShardInfo;

/**
 * PlanShardMode:
 * @PLAN_SHARD_NONE: the element reads the rows it is given
 * @PLAN_SHARD_MPI: each rank of the MPI job reads its share of them
 *
 * Whether a source shares its rows among the ranks of an MPI job.
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_SHARD_NONE,
  PLAN_SHARD_MPI,
} PlanShardMode;

#define PLAN_TYPE_SHARD_MODE (plan_shard_mode_get_type ())
PLAN_API
GType plan_shard_mode_get_type (void);

PLAN_API
void plan_shard_split (guint64 n_rows, guint n_ranks, guint rank,
    guint64 * first, guint64 * count);

PLAN_API
GstEvent * plan_shard_event_new (const PlanShardInfo * info);

PLAN_API
gboolean plan_shard_event_parse (GstEvent * event, PlanShardInfo * info);

G_END_DECLS

#endif /* __PLAN_SHARD_H__ */
