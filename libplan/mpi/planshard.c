/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planshard
 * @title: PlanShard
 * @short_description: one plan run as many MPI ranks
 *
 * A plan runs sharded when each rank of an MPI job (started by `mpirun` or
 * a batch scheduler) runs the same pipeline on its share of the rows:
 * planfilesrc with `shard=mpi` reads rows plan_shard_split() gives the
 * rank and announces them with a #PLAN_EVENT_SHARD event; the elements
 * downstream exchange what crosses ranks through the #PlanComm of the
 * process: a reduction's partial results, a stencil's halo rows, a sink's
 * shared output.
 *
 * Messages are point to point, tagged by the sending element's name and
 * the message's purpose (plan_comm_tag()), so that elements need not call
 * collective operations in the same order on every rank; every rank runs
 * the same pipeline, so its elements have the same names. A rank that
 * fails tells the others (plan_comm_abort()); a rank waiting for a message
 * then fails too, with the first rank's reason.
 *
 * This build talks MPI when it was configured with MPI (`-Dmpi=enabled`,
 * or found by `auto`); without it plan_comm_get_world() says so.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planshard.h"
#include <libplan/planerror.h>

#include <string.h>

GType
plan_shard_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {PLAN_SHARD_NONE, "Read every row given", "none"},
    {PLAN_SHARD_MPI, "Each MPI rank reads its share of the rows", "mpi"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("PlanShardMode", values);

    g_once_init_leave (&type, t);
  }
  return type;
}

/**
 * plan_shard_split:
 * @n_rows: the rows to share
 * @n_ranks: the number of ranks
 * @rank: a rank, below @n_ranks
 * @first: (out): the first row of @rank's share
 * @count: (out): the number of rows of @rank's share
 *
 * Shares @n_rows among @n_ranks ranks in contiguous runs, in rank order,
 * as evenly as can be: the first `n_rows % n_ranks` ranks get one row
 * more than the others.
 *
 * Since: 0.1
 */
void
plan_shard_split (guint64 n_rows, guint n_ranks, guint rank, guint64 * first,
    guint64 * count)
{
  guint64 base, extra;

  g_return_if_fail (n_ranks > 0 && rank < n_ranks);
  g_return_if_fail (first != NULL && count != NULL);

  base = n_rows / n_ranks;
  extra = n_rows % n_ranks;
  *first = rank * base + MIN ((guint64) rank, extra);
  *count = base + (rank < extra ? 1 : 0);
}

/**
 * plan_shard_event_new:
 * @info: the shard
 *
 * Returns: (transfer full): a #PLAN_EVENT_SHARD event saying @info
 *
 * Since: 0.1
 */
GstEvent *
plan_shard_event_new (const PlanShardInfo * info)
{
  g_return_val_if_fail (info != NULL, NULL);

  return gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM_STICKY,
      gst_structure_new (PLAN_EVENT_SHARD,
          "rank", G_TYPE_UINT, info->rank,
          "n-ranks", G_TYPE_UINT, info->n_ranks,
          "origin", G_TYPE_UINT64, info->origin,
          "n-rows", G_TYPE_INT64, info->n_rows,
          "total", G_TYPE_UINT64, info->total,
          "replicated", G_TYPE_BOOLEAN, info->replicated, NULL));
}

/**
 * plan_shard_event_parse:
 * @event: an event
 * @info: (out caller-allocates): the shard it says
 *
 * Returns: %TRUE when @event is a #PLAN_EVENT_SHARD event; @info is then
 *   filled in
 *
 * Since: 0.1
 */
gboolean
plan_shard_event_parse (GstEvent * event, PlanShardInfo * info)
{
  const GstStructure *s;

  g_return_val_if_fail (GST_IS_EVENT (event), FALSE);
  g_return_val_if_fail (info != NULL, FALSE);

  if (GST_EVENT_TYPE (event) != GST_EVENT_CUSTOM_DOWNSTREAM_STICKY
      || !gst_event_has_name (event, PLAN_EVENT_SHARD))
    return FALSE;
  s = gst_event_get_structure (event);
  memset (info, 0, sizeof (*info));
  return gst_structure_get (s, "rank", G_TYPE_UINT, &info->rank,
      "n-ranks", G_TYPE_UINT, &info->n_ranks,
      "origin", G_TYPE_UINT64, &info->origin,
      "n-rows", G_TYPE_INT64, &info->n_rows,
      "total", G_TYPE_UINT64, &info->total,
      "replicated", G_TYPE_BOOLEAN, &info->replicated, NULL);
}

