/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planshardhooks
 * @title: Sharding hooks
 * @short_description: what elements do in a sharded run, without PlanComm
 *
 * The calls through which the kernel-element base class and the elements
 * take part in a run sharded across the ranks of an MPI job, without
 * knowing how the ranks talk (#PlanComm): a source takes its share of the
 * rows (plan_shard_take_share()) after the ranks agree on the plan
 * (plan_shard_check_plan()); a reduction combines its ranks' parts
 * (plan_shard_combine_reducer()); the ranks check that they agree on what
 * must be the same everywhere (plan_shard_check_same()); a sink writes
 * its rows into one output shared by the ranks (plan_shard_open_writer());
 * an element that fails
 * tells the other ranks (plan_shard_abort(), plan_shard_tell_failure()),
 * so that none waits for ever for a message from it. A stencil trades its halo rows with #PlanHaloExchange. Outside
 * an MPI job they do what one rank alone does.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planshardhooks.h"
#include <libplan/plancomm.h>
#include <libplan/planerror.h>

#include <string.h>

/**
 * plan_shard_check_plan:
 * @element: an element of the pipeline to check
 * @error: return location for a #GError
 *
 * In a process started as one of several ranks of an MPI job, checks once
 * per pipeline that every rank runs the same plan (plan_comm_check_plan()).
 * Every rank must call it (planfilesrc does when it starts, sharded or
 * not). Outside such a job it returns %TRUE at once.
 *
 * Returns: %TRUE when the plans agree; otherwise %FALSE with @error set
 *   (%PLAN_ERROR_INVALID_ARGUMENT), on every rank.
 *
 * Since: 0.1
 */
gboolean
plan_shard_check_plan (GstElement * element, GError ** error)
{
  return plan_comm_check_plan (element, error);
}

/**
 * plan_shard_take_share:
 * @total: the rows of the whole stream
 * @info: (out caller-allocates): this rank's share of them
 * @error: return location for a #GError
 *
 * This process's share of @total rows shared among the ranks of its MPI
 * job (plan_shard_split()): contiguous, balanced, in rank order.
 *
 * Returns: %TRUE; %FALSE with @error set when the process is not a rank
 *   of a job (or the build has no MPI), or when this rank gets no rows
 *   (%PLAN_ERROR_SHAPE, saying how many ranks the rows allow: a stream
 *   without rows never learns its caps), which the other ranks are then
 *   told (plan_shard_abort()).
 *
 * Since: 0.1
 */
gboolean
plan_shard_take_share (guint64 total, PlanShardInfo * info, GError ** error)
{
  PlanComm *comm = plan_comm_get_world (error);
  guint64 first, count;

  g_return_val_if_fail (info != NULL, FALSE);

  if (comm == NULL)
    return FALSE;
  info->rank = plan_comm_get_rank (comm);
  info->n_ranks = plan_comm_get_size (comm);
  info->total = total;
  info->replicated = FALSE;
  plan_shard_split (info->total, info->n_ranks, info->rank, &first, &count);
  info->origin = first;
  info->n_rows = count;
  if (count == 0) {
    /* Elements of a stream without rows never learn its caps: every rank
     * needs rows. The others are told, rather than left waiting. */
    if (info->total == 0)
      /* No number of ranks would do. */
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE, "rank %u of %u has "
          "no rows: there are none to share (the array has none, or the "
          "offset and length read select none), and a sharded run needs a "
          "row on every rank; read it without shard=mpi", info->rank,
          info->n_ranks);
    else if (info->total == 1)
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE, "rank %u of %u has "
          "no rows: 1 row is shared among %u ranks; run 1 rank, or read "
          "it without shard=mpi", info->rank, info->n_ranks, info->n_ranks);
    else
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE, "rank %u of %u has "
          "no rows: %" G_GUINT64_FORMAT " rows are shared among %u ranks; "
          "run at most %" G_GUINT64_FORMAT " ranks", info->rank,
          info->n_ranks, info->total, info->n_ranks, info->total);
    plan_comm_abort (comm, (*error)->message);
    return FALSE;
  }
  return TRUE;
}

/**
 * plan_shard_check_same:
 * @owner: the name of the element asking (the same on every rank); it
 *   tags the messages
 * @what: what this rank has that every rank must have the same (a
 *   sharded source's dtype and rows, say)
 * @error: return location for a #GError
 *
 * In a job of several ranks, checks that every rank has the same @what:
 * rank 0 gathers them, compares them with its own, and tells every rank
 * the verdict. Every rank of the job must call it. Ranks that read
 * different copies of an input (a file at the same path on several hosts)
 * would otherwise share rows that do not line up, or write rows of
 * another dtype into the same output. In a job of one rank it returns
 * %TRUE at once.
 *
 * Returns: %TRUE when every rank has @what; otherwise %FALSE with @error
 *   set on every rank: %PLAN_ERROR_INVALID_ARGUMENT, "rank 1 has X where
 *   rank 0 has Y" (the first rank that differs), or why another rank
 *   failed (or the process is not a rank of a job, or the build has no
 *   MPI)
 *
 * Since: 0.1
 */
gboolean
plan_shard_check_same (const gchar * owner, const gchar * what,
    GError ** error)
{
  PlanComm *comm = plan_comm_get_world (error);
  GBytes *mine, **all = NULL, *verdict = NULL, *got;
  gchar *key;
  gint tag;
  guint r, n;
  gboolean ok;

  g_return_val_if_fail (owner != NULL && what != NULL, FALSE);

  if (comm == NULL)
    return FALSE;
  n = plan_comm_get_size (comm);
  if (n < 2)
    return TRUE;
  key = g_strdup_printf ("%s: the same", owner);
  tag = plan_comm_tag (comm, key, PLAN_COMM_OUTPUT);
  g_free (key);
  mine = g_bytes_new (what, strlen (what) + 1);
  ok = plan_comm_gather (comm, tag, mine, &all, NULL, error);
  g_bytes_unref (mine);
  if (!ok)
    return FALSE;
  if (all) {
    gchar *v = NULL;

    for (r = 1; r < n && v == NULL; r++) {
      const gchar *theirs = g_bytes_get_data (all[r], NULL);

      if (g_strcmp0 (theirs, what) != 0)
        v = g_strdup_printf ("rank %u has %s where rank 0 has %s", r, theirs,
            what);
    }
    for (r = 0; r < n; r++)
      g_bytes_unref (all[r]);
    g_free (all);
    if (v == NULL)
      v = g_strdup ("");
    verdict = g_bytes_new_take (v, strlen (v) + 1);
  }
  got = plan_comm_broadcast (comm, tag, verdict, NULL, error);
  if (verdict)
    g_bytes_unref (verdict);
  if (got == NULL)
    return FALSE;
  ok = *(const gchar *) g_bytes_get_data (got, NULL) == '\0';
  if (!ok)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "%s",
        (const gchar *) g_bytes_get_data (got, NULL));
  g_bytes_unref (got);
  return ok;
}

/**
 * plan_shard_abort:
 * @why: what failed
 *
 * Tells the other ranks of the job that this one failed, so that a rank
 * waiting for a message from it fails too, with @why (plan_comm_abort()).
 * Outside an MPI job it does nothing.
 *
 * Since: 0.1
 */
void
plan_shard_abort (const gchar * why)
{
  PlanComm *comm = plan_comm_get_world (NULL);

  if (comm)
    plan_comm_abort (comm, why);
}

/**
 * plan_shard_tell_failure:
 * @why: what went wrong on this rank
 *
 * As plan_shard_abort(), for an element that fails before it knows whether
 * its stream is sharded (a sink's file that cannot be made when the caps
 * come): when this process was started as one of several ranks of an MPI
 * job, the other ranks are told (plan_comm_tell_failure()); else it does
 * nothing, and starts no MPI.
 *
 * Since: 0.1
 */
void
plan_shard_tell_failure (const gchar * why)
{
  plan_comm_tell_failure (why);
}

/**
 * plan_shard_open_writer:
 * @owner: the name of the element writing (the same on every rank)
 * @file_writer: (nullable): as for plan_shard_writer_new_full()
 * @location: the output file (or Zarr store)
 * @format: the output's format, as for plan_shard_writer_new_full()
 * @info: the dtype and row shape of the array
 * @total_rows: the rows of the whole array, across the ranks
 * @sync: whether each rank fsync()s its rows before the file is renamed
 * @error: return location for a #GError
 *
 * The output file that every rank of this process's MPI job writes its
 * rows into (plan_shard_writer_new_full() on the job's communicator).
 * Every rank of the job must call it.
 *
 * Returns: (transfer full): a writer, or %NULL with @error set (also when
 *   the process is not a rank of a job, or the build has no MPI)
 *
 * Since: 0.1
 */
PlanShardWriter *
plan_shard_open_writer (const gchar * owner, PlanFileWriter * file_writer,
    const gchar * location, PlanFileFormat format, const PlanArrayInfo * info,
    guint64 total_rows, gboolean sync, GError ** error)
{
  PlanComm *comm = plan_comm_get_world (error);

  if (comm == NULL)
    return NULL;
  return plan_shard_writer_new_full (comm, owner, file_writer, location,
      format, info, total_rows, sync, error);
}

/**
 * plan_shard_combine_reducer:
 * @reducer: a #PlanReducer that has reduced this rank's rows (its origin
 *   set with plan_reducer_set_origin())
 * @owner: the element's name, which tags its messages (the same on every
 *   rank)
 * @out: (out caller-allocates): room for @out_size bytes: the result of
 *   the reduction of the whole stream
 * @out_size: the bytes of the result
 * @error: return location for a #GError
 *
 * The reduction of every rank's rows, on every rank: rank 0 gathers each
 * rank's part (plan_reducer_export()), combines them in rank order
 * (plan_reducer_finish_parts(): the bits of one process reducing the
 * whole), and sends every rank the result or why there is none. Every
 * rank of the job must call it.
 *
 * Returns: %TRUE with the result in @out; %FALSE with @error set when the
 *   combination fails (on every rank: the same message), or another rank
 *   failed.
 *
 * Since: 0.1
 */
gboolean
plan_shard_combine_reducer (PlanReducer * reducer, const gchar * owner,
    gpointer out, gsize out_size, GError ** error)
{
  PlanComm *comm = plan_comm_get_world (error);
  GBytes *part, **parts = NULL, *verdict = NULL;
  const guint8 *v;
  gsize n;
  gint tag;
  guint i;

  g_return_val_if_fail (reducer != NULL && owner != NULL, FALSE);

  if (comm == NULL)
    return FALSE;
  tag = plan_comm_tag (comm, owner, PLAN_COMM_REDUCE);
  part = plan_reducer_export (reducer);
  GST_DEBUG ("%s: rank %u: a part of %" G_GSIZE_FORMAT " bytes", owner,
      plan_comm_get_rank (comm), g_bytes_get_size (part));
  if (!plan_comm_gather (comm, tag, part, &parts, NULL, error)) {
    g_bytes_unref (part);
    return FALSE;
  }
  g_bytes_unref (part);
  if (parts != NULL) {
    guint8 *msg = g_malloc (1 + out_size);
    gpointer result = g_malloc (MAX (out_size, 1));
    GError *err = NULL;

    /* The result in memory aligned for its type, then after the byte. */
    if (plan_reducer_finish_parts (reducer, parts,
            plan_comm_get_size (comm), result, &err)) {
      msg[0] = 1;
      memcpy (msg + 1, result, out_size);
      g_free (result);
      verdict = g_bytes_new_take (msg, 1 + out_size);
    } else {
      g_free (result);
      g_free (msg);
      msg = (guint8 *) g_strdup_printf ("%c%s", 0, err->message);
      verdict = g_bytes_new_take (msg, 1 + strlen (err->message));
      g_error_free (err);
    }
    for (i = 0; i < plan_comm_get_size (comm); i++)
      g_bytes_unref (parts[i]);
    g_free (parts);
  }
  part = plan_comm_broadcast (comm, tag, verdict, NULL, error);
  if (verdict)
    g_bytes_unref (verdict);
  if (part == NULL)
    return FALSE;
  v = g_bytes_get_data (part, &n);
  if (n >= 1 && v[0] == 1 && n == 1 + out_size) {
    memcpy (out, v + 1, out_size);
    g_bytes_unref (part);
    return TRUE;
  }
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "%.*s",
      (int) (n > 0 ? n - 1 : 0), n > 0 ? (const gchar *) v + 1 : "");
  g_bytes_unref (part);
  return FALSE;
}
