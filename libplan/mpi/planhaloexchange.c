/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planhaloexchange
 * @title: PlanHaloExchange
 * @short_description: a sharded stencil's halo rows, traded between ranks
 *
 * The input is rank k's share of a sharded stream, global rows
 * [o, o + n) of N. Each rank but the first (every rank with wrap) sends
 * its first 2h rows to rank k - 1 (mod the ranks) and reads its first h
 * rows as context, with no output of their own; each rank but the last
 * (every rank with wrap) appends the next rank's first 2h rows at its end
 * and reads the last h of them as context. So every output row is
 * computed by one rank, from the rows the whole array has around it, in
 * the order of the rows; only the global ends have boundary rows.
 *
 * A stencil element makes the exchange when its input turns out to be a
 * share (its #PlanKernelElementClass.shard), tells its output share and
 * row count from it, calls plan_halo_exchange_start() and
 * plan_halo_exchange_send_head() with each chunk before computing it (the
 * first rows travel while this rank computes), and at the end pushes the
 * rows plan_halo_exchange_recv_tail() gives into its stencil kernel
 * before finishing it. With wrap on one rank, the rank's own first rows
 * follow its last, without a message.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planhaloexchange.h"
#include <libplan/plancomm.h>
#include <libplan/planerror.h>

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (plan_halo_exchange_debug);
#define GST_CAT_DEFAULT plan_halo_exchange_debug

struct _PlanHaloExchange
{
  gchar *owner;                 /* the element's name: the messages' tag */
  gchar *reach;                 /* what reaches h rows, for errors */
  PlanShardInfo input;          /* the input's share */
  guint h;                      /* the halo rows along the first axis */
  gboolean send_head;           /* the first 2h rows go to rank prev_rank */
  gboolean recv_tail;           /* the first 2h rows of rank next_rank follow */
  guint prev_rank, next_rank;
  PlanShardInfo output;
  gint64 rows_delta;            /* output rows less input rows */

  gboolean started;             /* the kernel knows its context rows */
  guint n_inputs;
  gsize *row_sizes;             /* of each input */
  GByteArray *head;             /* the first input rows, until 2h are sent:
                                 * each input's 2h rows after the last's */
  gsize head_rows;              /* the rows of each input in head */
  gboolean head_done;
  GBytes *own_head;             /* wrap on one rank: the rows sent to itself */
  GBytes *tail;                 /* the rows recv_tail() gave */
};

/**
 * plan_halo_exchange_new:
 * @owner: the element's name, which tags its messages (the same on every
 *   rank)
 * @input: the input's share (not replicated)
 * @halo_rows: h, the rows the stencil reaches beyond its centre along the
 *   first axis (times its iterations)
 * @boundary: the stencil's boundary mode
 * @reach: what reaches @halo_rows rows, for errors ("the window \"...\"")
 *
 * Returns: (transfer full): the exchange for @input.
 *
 * Since: 0.1
 */
PlanHaloExchange *
plan_halo_exchange_new (const gchar * owner, const PlanShardInfo * input,
    guint halo_rows, PlanBoundary boundary, const gchar * reach)
{
  static gsize debug_done = 0;
  PlanHaloExchange *ex;
  gboolean wrap = boundary == PLAN_BOUNDARY_WRAP;
  gboolean valid = boundary == PLAN_BOUNDARY_VALID;
  guint h = halo_rows;
  PlanShardInfo *output;
  gint64 lost;

  g_return_val_if_fail (owner != NULL, NULL);
  g_return_val_if_fail (input != NULL && input->n_ranks > 0, NULL);

  /* Stencils start on threads of their own: once, for all of them. */
  if (g_once_init_enter (&debug_done)) {
    GST_DEBUG_CATEGORY_INIT (plan_halo_exchange_debug, "planhaloexchange", 0,
        "Halo rows between ranks");
    g_once_init_leave (&debug_done, 1);
  }

  ex = g_new0 (PlanHaloExchange, 1);
  ex->owner = g_strdup (owner);
  ex->reach = g_strdup (reach ? reach : "the stencil");
  ex->input = *input;
  ex->h = h;
  ex->send_head = h > 0 && (input->rank > 0 || wrap);
  ex->recv_tail = h > 0 && (input->rank + 1 < input->n_ranks || wrap);
  ex->prev_rank = (input->rank + input->n_ranks - 1) % input->n_ranks;
  ex->next_rank = (input->rank + 1) % input->n_ranks;
  /* valid has no boundary rows: its first and last h rows are always
   * context. */
  lost = valid ? 2 * (gint64) h : (ex->send_head ? h : 0) +
      (ex->recv_tail ? h : 0);
  ex->rows_delta = (ex->recv_tail ? 2 * (gint64) h : 0) - lost;

  output = &ex->output;
  *output = *input;
  output->origin = valid ? input->origin : input->origin +
      (ex->send_head ? h : 0);
  output->total = valid ? MAX ((gint64) input->total - 2 * (gint64) h, 0) :
      input->total;
  if (output->total > 0)
    output->origin %= output->total;
  output->n_rows = input->n_rows < 0 ? -1 :
      MAX (input->n_rows + ex->rows_delta, 0);
  GST_INFO ("%s: rank %u of %u, %u halo rows: %s%s; output rows %"
      G_GUINT64_FORMAT " + %" G_GINT64_FORMAT " of %" G_GUINT64_FORMAT,
      owner, input->rank, input->n_ranks, h, ex->send_head ?
      "sends its first rows to the previous rank" : "sends nothing",
      ex->recv_tail ? ", appends the next rank's first rows" : "",
      output->origin, output->n_rows, output->total);
  return ex;
}

/**
 * plan_halo_exchange_free:
 * @exchange: (transfer full) (nullable): a #PlanHaloExchange
 *
 * Since: 0.1
 */
void
plan_halo_exchange_free (PlanHaloExchange * exchange)
{
  if (exchange == NULL)
    return;
  if (exchange->head)
    g_byte_array_unref (exchange->head);
  g_clear_pointer (&exchange->own_head, g_bytes_unref);
  g_clear_pointer (&exchange->tail, g_bytes_unref);
  g_free (exchange->row_sizes);
  g_free (exchange->owner);
  g_free (exchange->reach);
  g_free (exchange);
}

/**
 * plan_halo_exchange_get_output:
 * @exchange: a #PlanHaloExchange
 * @output: (out caller-allocates): the output's share: the rows this rank
 *   computes, at their global place
 *
 * Since: 0.1
 */
void
plan_halo_exchange_get_output (PlanHaloExchange * exchange,
    PlanShardInfo * output)
{
  g_return_if_fail (exchange != NULL && output != NULL);
  *output = exchange->output;
}

/**
 * plan_halo_exchange_get_rows_delta:
 * @exchange: a #PlanHaloExchange
 *
 * Returns: the rows this rank outputs less the rows of its input: the
 *   rows received at the end, less those read as context only.
 *
 * Since: 0.1
 */
gint64
plan_halo_exchange_get_rows_delta (PlanHaloExchange * exchange)
{
  g_return_val_if_fail (exchange != NULL, 0);
  return exchange->rows_delta;
}

/* A rank that sends its first 2h rows must have them. */
static void
set_too_few_rows (PlanHaloExchange * ex, guint64 n_rows, GError ** error)
{
  const PlanShardInfo *in = &ex->input;
  guint64 most = in->total / (2 * (guint64) ex->h);

  most = MAX (most, 1);
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
      "rank %u of %u has %" G_GUINT64_FORMAT " row%s, from global row %"
      G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT ", but %s "
      "reaches %u row%s beyond its centre along the first axis: each rank "
      "of a sharded stencil sends its first %u rows to rank %u, so every "
      "rank needs at least %u rows; run at most %" G_GUINT64_FORMAT
      " rank%s for %" G_GUINT64_FORMAT " rows", in->rank, in->n_ranks,
      n_rows, n_rows == 1 ? "" : "s", in->origin, in->total, ex->reach,
      ex->h, ex->h == 1 ? "" : "s", 2 * ex->h, ex->prev_rank, 2 * ex->h,
      most, most == 1 ? "" : "s", in->total);
}

/**
 * plan_halo_exchange_check_rows:
 * @exchange: a #PlanHaloExchange
 * @n_rows: the rows of the input's share, -1 when not known
 * @error: return location for a #GError
 *
 * Returns: %FALSE with @error set (%PLAN_ERROR_SHAPE, saying how many
 *   ranks the rows allow) when this rank sends its first 2h rows and its
 *   share has fewer.
 *
 * Since: 0.1
 */
gboolean
plan_halo_exchange_check_rows (PlanHaloExchange * exchange, gint64 n_rows,
    GError ** error)
{
  g_return_val_if_fail (exchange != NULL, FALSE);

  if (exchange->send_head && n_rows >= 0 && n_rows < 2 * (gint64) exchange->h) {
    set_too_few_rows (exchange, n_rows, error);
    return FALSE;
  }
  return TRUE;
}

/**
 * plan_halo_exchange_start:
 * @exchange: a #PlanHaloExchange
 * @kernel: the stencil kernel the rows go into
 * @n_inputs: the stencil's inputs
 * @row_sizes: (array length=n_inputs): the bytes of a row of each input
 *
 * Call it before the first rows of a stream go into @kernel (and then
 * before every chunk: it does nothing until plan_halo_exchange_reset()):
 * tells @kernel which of its first and last rows are context only.
 *
 * Since: 0.1
 */
void
plan_halo_exchange_start (PlanHaloExchange * exchange,
    PlanStencilKernel * kernel, guint n_inputs, const gsize * row_sizes)
{
  g_return_if_fail (exchange != NULL && kernel != NULL);

  if (exchange->started)
    return;
  plan_stencil_kernel_set_context_rows (kernel, exchange->send_head,
      exchange->recv_tail);
  exchange->started = TRUE;
  exchange->head_done = !exchange->send_head;
  if (exchange->head)
    g_byte_array_set_size (exchange->head, 0);
  exchange->head_rows = 0;
  g_clear_pointer (&exchange->own_head, g_bytes_unref);
  g_clear_pointer (&exchange->tail, g_bytes_unref);
  g_free (exchange->row_sizes);
  exchange->n_inputs = n_inputs;
  exchange->row_sizes = g_memdup2 (row_sizes, n_inputs * sizeof (gsize));
}

/**
 * plan_halo_exchange_reset:
 * @exchange: a #PlanHaloExchange
 *
 * A new stream of the same share (after a flush): the next
 * plan_halo_exchange_start() starts over.
 *
 * Since: 0.1
 */
void
plan_halo_exchange_reset (PlanHaloExchange * exchange)
{
  g_return_if_fail (exchange != NULL);
  exchange->started = FALSE;
}

/* The bytes of @n_rows rows of each input together, and where input
 * @index's rows start in them (inputs one after the other). */
static gsize
rows_bytes (PlanHaloExchange * ex, gsize n_rows, guint index, gsize * at)
{
  gsize total = 0;
  guint i;

  for (i = 0; i < ex->n_inputs; i++) {
    if (i == index && at)
      *at = total;
    total += n_rows * ex->row_sizes[i];
  }
  return total;
}

/**
 * plan_halo_exchange_send_head:
 * @exchange: a started #PlanHaloExchange
 * @rows: (array): the next @n_rows rows of each input
 * @n_rows: the rows of the chunk
 * @error: return location for a #GError
 *
 * Collects the first 2h input rows and sends them to the previous rank as
 * soon as they are all here: call it with each chunk before computing it,
 * so that they travel while this rank computes.
 *
 * Returns: %FALSE with @error set when the job has no communicator.
 *
 * Since: 0.1
 */
gboolean
plan_halo_exchange_send_head (PlanHaloExchange * exchange,
    const gconstpointer * rows, gsize n_rows, GError ** error)
{
  PlanHaloExchange *ex = exchange;
  gsize h2, want, take, at = 0;
  PlanComm *comm;
  GBytes *bytes;
  guint i;

  g_return_val_if_fail (exchange != NULL && exchange->started, FALSE);

  if (ex->head_done)
    return TRUE;
  h2 = 2 * (gsize) ex->h;
  /* Each input's first 2h rows, one input after the other. */
  want = rows_bytes (ex, h2, 0, NULL);
  if (ex->head == NULL) {
    ex->head = g_byte_array_sized_new (want);
    ex->head_rows = 0;
  }
  g_byte_array_set_size (ex->head, want);
  take = MIN (n_rows, h2 - ex->head_rows);
  for (i = 0; i < ex->n_inputs; i++) {
    rows_bytes (ex, h2, i, &at);
    memcpy (ex->head->data + at + ex->head_rows * ex->row_sizes[i], rows[i],
        take * ex->row_sizes[i]);
  }
  ex->head_rows += take;
  if (ex->head_rows < h2)
    return TRUE;

  bytes = g_byte_array_free_to_bytes (ex->head);
  ex->head = NULL;
  ex->head_done = TRUE;
  if (ex->prev_rank == ex->input.rank) {
    /* wrap on one rank: its own first rows follow its last */
    ex->own_head = bytes;
    return TRUE;
  }
  if ((comm = plan_comm_get_world (error)) == NULL) {
    g_bytes_unref (bytes);
    return FALSE;
  }
  GST_DEBUG ("%s: sending the first %u rows (%" G_GSIZE_FORMAT
      " bytes) to rank %u", ex->owner, 2 * ex->h, want, ex->prev_rank);
  plan_comm_send (comm, ex->prev_rank, plan_comm_tag (comm, ex->owner,
          PLAN_COMM_HALO), bytes);
  g_bytes_unref (bytes);
  return TRUE;
}

/**
 * plan_halo_exchange_check_head:
 * @exchange: a started #PlanHaloExchange
 * @n_rows: the rows the stream had
 * @error: return location for a #GError
 *
 * At the end of the stream: the first 2h rows must have been sent.
 *
 * Returns: %FALSE with @error set (as plan_halo_exchange_check_rows())
 *   when the stream ended before them.
 *
 * Since: 0.1
 */
gboolean
plan_halo_exchange_check_head (PlanHaloExchange * exchange, guint64 n_rows,
    GError ** error)
{
  g_return_val_if_fail (exchange != NULL && exchange->started, FALSE);

  if (!exchange->head_done) {
    set_too_few_rows (exchange, n_rows, error);
    return FALSE;
  }
  return TRUE;
}

/* The next rank's first 2h rows, which this rank's last outputs need. */
static GBytes *
recv_tail (PlanHaloExchange * ex, GError ** error)
{
  gsize want = rows_bytes (ex, 2 * (gsize) ex->h, 0, NULL);
  PlanComm *comm;
  GBytes *tail;

  if (ex->next_rank == ex->input.rank) {
    /* wrap on one rank: its own first rows */
    if (ex->own_head == NULL) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "the stream ended before its first %u rows", 2 * ex->h);
      return NULL;
    }
    return g_bytes_ref (ex->own_head);
  }
  if ((comm = plan_comm_get_world (error)) == NULL)
    return NULL;
  GST_DEBUG ("%s: waiting for the first %u rows of rank %u", ex->owner,
      2 * ex->h, ex->next_rank);
  tail = plan_comm_recv (comm, ex->next_rank, plan_comm_tag (comm,
          ex->owner, PLAN_COMM_HALO), NULL, error);
  if (tail && g_bytes_get_size (tail) != want) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "rank %u sent %" G_GSIZE_FORMAT " bytes of halo rows, not the %"
        G_GSIZE_FORMAT " of its first %u rows", ex->next_rank,
        g_bytes_get_size (tail), want, 2 * ex->h);
    g_clear_pointer (&tail, g_bytes_unref);
  }
  return tail;
}

/**
 * plan_halo_exchange_recv_tail:
 * @exchange: a started #PlanHaloExchange
 * @rows: (out caller-allocates) (array): for each input, where its rows
 *   are
 * @n_rows: (out): the rows of each input that follow this rank's last:
 *   0 when none do (the last rank without wrap)
 * @error: return location for a #GError
 *
 * At the end of the stream: waits for the next rank's first 2h rows.
 * Push them into the stencil kernel before finishing it; they stay valid
 * until the exchange is started again or freed.
 *
 * Returns: %FALSE with @error set, its message beginning "on rank K did
 *   not get the halo rows of rank J: " (another rank failed, or sent a
 *   wrong size).
 *
 * Since: 0.1
 */
gboolean
plan_halo_exchange_recv_tail (PlanHaloExchange * exchange,
    gconstpointer * rows, gsize * n_rows, GError ** error)
{
  PlanHaloExchange *ex = exchange;
  GError *err = NULL;
  gsize at = 0;
  guint i;

  g_return_val_if_fail (exchange != NULL && exchange->started, FALSE);
  g_return_val_if_fail (rows != NULL && n_rows != NULL, FALSE);

  *n_rows = 0;
  if (!ex->recv_tail)
    return TRUE;
  g_clear_pointer (&ex->tail, g_bytes_unref);
  if ((ex->tail = recv_tail (ex, &err)) == NULL) {
    g_propagate_prefixed_error (error, err, "on rank %u did not get the "
        "halo rows of rank %u: ", ex->input.rank, ex->next_rank);
    return FALSE;
  }
  for (i = 0; i < ex->n_inputs; i++) {
    rows_bytes (ex, 2 * ex->h, i, &at);
    rows[i] = (const guint8 *) g_bytes_get_data (ex->tail, NULL) + at;
  }
  *n_rows = 2 * (gsize) ex->h;
  return TRUE;
}
