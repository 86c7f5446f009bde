/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanReducer: shards of a longer stream, their serialized parts
 * and their assembly. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planreducer-private.h"
#include <libplan/planerror.h>
#include <libplan/planexpr.h>
#include <libplan/planparallel.h>
#include <libplan/planarray.h>

#include <math.h>
#include <string.h>

/* Shards -----------------------------------------------------------------
 *
 * A reducer given the rows of one shard of a stream (from global row
 * plan_reducer_set_origin()) keeps what the single run's tree needs from
 * it: the nodes of the blocks wholly inside the shard and, raw, the
 * elements of the block it shares with the shard before it; the block it
 * shares with the shard after it is kept raw (mode ALL) or as its open
 * column blocks (mode ROWS, which the next shard's raw rows continue). The
 * parts of all shards then rebuild exactly the tree of one run over the
 * whole stream (plan_reducer_finish_parts()), so that the result is
 * bit-identical to it whatever the shards. */

#define PART_MAGIC 0x706c7264u    /* "plrd" */

typedef struct
{
  guint64 first_row;
  guint64 n_rows;
  const guint8 *head;           /* elements (rows) before the first block */
  guint64 head_len;
  guint32 depth;
  const guint8 *nodes;          /* depth x (level, start, Acc x columns) */
  const guint8 *tail;           /* mode ALL: elements after the last whole
                                 * block */
  guint64 tail_len;             /* elements in tail (mode ALL), rows in
                                 * cols (mode ROWS) */
  const guint8 *cols;           /* mode ROWS: row_elements Acc */
  const guint8 *cols_raw;       /* custom: row_elements x acc_size */
} Run;

static void
append (GByteArray * out, gconstpointer data, gsize size)
{
  g_byte_array_append (out, data, size);
}

static void
append_u64 (GByteArray * out, guint64 v)
{
  append (out, &v, sizeof v);
}

/* Serializes the current run to @out. */
static void
serialize_run (PlanReducer * r, GByteArray * out)
{
  gboolean all = r->mode == PLAN_REDUCE_AXIS_ALL;
  gsize head_size = all ? r->in_size : r->row_elements * r->in_size;
  gsize width = all ? 1 : r->row_elements;
  guint32 depth = r->depth;
  guint i;

  append_u64 (out, r->run_first);
  append_u64 (out, r->run_rows);
  append_u64 (out, r->head_len);
  append (out, r->head, r->head_len * head_size);
  append (out, &depth, sizeof depth);
  for (i = 0; i < r->depth; i++) {
    guint32 level = r->levels[i];

    append (out, &level, sizeof level);
    append_u64 (out, r->starts[i]);
    append (out, all ? &r->stack[i] : &r->col_nodes[i * width],
        width * sizeof (Acc));
  }
  if (all) {
    append_u64 (out, r->staged);
    append (out, r->staging, r->staged * r->in_size);
  } else {
    /* The open blocks hold the rows since the last block boundary, unless
     * every row so far went to head. */
    append_u64 (out, r->head_len < r->head_want ? 0 :
        r->next_row % r->col_rows);
    append (out, r->cols, r->row_elements * sizeof (Acc));
    if (r->custom)
      append (out, r->cols_raw, r->row_elements * r->acc_size);
  }
}

/**
 * plan_reducer_set_origin:
 * @reducer: a #PlanReducer
 * @first_row: the global row of the next row pushed
 *
 * Says that the rows pushed from now on are the rows of a longer stream
 * from @first_row on: one rank's share of a stream sharded across an MPI
 * job, say. A reducer that was given rows from elsewhere than row 0 keeps
 * what the other shards need to complete its result, plan_reducer_export()
 * gives it, and plan_reducer_finish_parts() on one rank combines every
 * shard's part into the result of the whole stream, bit-identical to one
 * reducer given every row. Called again, it starts a new run of rows
 * (rows that wrap around to the stream's start); plan_reducer_reset()
 * forgets it all.
 * Not for #PLAN_REDUCE_AXIS_INNER, whose results are per row anyway.
 *
 * Since: 0.1
 */
void
plan_reducer_set_origin (PlanReducer * reducer, guint64 first_row)
{
  PlanReducer *r = reducer;

  g_return_if_fail (reducer != NULL);

  _plan_reducer_settle (r);
  if (r->run_rows > 0) {
    if (r->runs == NULL)
      r->runs = g_byte_array_new ();
    serialize_run (r, r->runs);
    r->n_runs++;
  }
  _plan_reducer_clear_run (r);
  r->run_first = first_row;
  r->next_row = first_row;
  if (r->mode == PLAN_REDUCE_AXIS_ALL) {
    guint64 g0 = first_row * r->row_elements;

    r->head_want = (BLOCK - g0 % BLOCK) % BLOCK;
    r->n_blocks = (g0 + r->head_want) / BLOCK;
    if (r->head == NULL && r->head_want > 0)
      r->head = g_malloc (BLOCK * r->in_size);
  } else if (r->mode == PLAN_REDUCE_AXIS_ROWS) {
    r->head_want = (r->col_rows - first_row % r->col_rows) % r->col_rows;
    if (r->head == NULL && r->head_want > 0)
      r->head = g_malloc (r->col_rows * r->row_elements * r->in_size);
  }
}

/**
 * plan_reducer_export:
 * @reducer: a #PlanReducer
 *
 * Returns: (transfer full): what plan_reducer_finish_parts() needs of the
 *   rows given so far, in this machine's byte order
 *
 * Since: 0.1
 */
GBytes *
plan_reducer_export (PlanReducer * reducer)
{
  PlanReducer *r = reducer;
  GByteArray *out;
  guint32 header[2];

  g_return_val_if_fail (reducer != NULL, NULL);

  _plan_reducer_settle (r);
  out = g_byte_array_new ();
  header[0] = PART_MAGIC;
  header[1] = r->n_runs + (r->run_rows > 0 ? 1 : 0);
  append (out, header, sizeof header);
  if (r->runs)
    append (out, r->runs->data, r->runs->len);
  if (r->run_rows > 0)
    serialize_run (r, out);
  return g_byte_array_free_to_bytes (out);
}

typedef struct
{
  const guint8 *p;
  const guint8 *end;
  gboolean bad;
} Reader;

static const guint8 *
take (Reader * rd, gsize size)
{
  const guint8 *p = rd->p;

  if (rd->bad || (gsize) (rd->end - rd->p) < size) {
    rd->bad = TRUE;
    return NULL;
  }
  rd->p += size;
  return p;
}

static guint64
take_u64 (Reader * rd)
{
  const guint8 *p = take (rd, sizeof (guint64));
  guint64 v = 0;

  if (p)
    memcpy (&v, p, sizeof v);
  return v;
}

static gboolean
parse_part (PlanReducer * r, GBytes * part, GArray * runs)
{
  gboolean all = r->mode == PLAN_REDUCE_AXIS_ALL;
  gsize head_size = all ? r->in_size : r->row_elements * r->in_size;
  gsize width = all ? 1 : r->row_elements;
  gsize size;
  Reader rd;
  const guint8 *h;
  guint32 header[2], i;

  rd.p = g_bytes_get_data (part, &size);
  rd.end = rd.p + size;
  rd.bad = FALSE;
  h = take (&rd, sizeof header);
  if (h == NULL)
    return FALSE;
  memcpy (header, h, sizeof header);
  if (header[0] != PART_MAGIC)
    return FALSE;
  for (i = 0; i < header[1] && !rd.bad; i++) {
    Run run = { 0, };
    guint32 depth = 0;
    const guint8 *d;

    run.first_row = take_u64 (&rd);
    run.n_rows = take_u64 (&rd);
    run.head_len = take_u64 (&rd);
    if (run.head_len > (all ? BLOCK : r->col_rows))
      return FALSE;
    run.head = take (&rd, run.head_len * head_size);
    d = take (&rd, sizeof depth);
    if (d)
      memcpy (&depth, d, sizeof depth);
    if (depth > STACK_SIZE)
      return FALSE;
    run.depth = depth;
    run.nodes = take (&rd, depth * (sizeof (guint32) + sizeof (guint64) +
            width * sizeof (Acc)));
    run.tail_len = take_u64 (&rd);
    if (run.tail_len > (all ? BLOCK : r->col_rows))
      return FALSE;
    if (all) {
      run.tail = take (&rd, run.tail_len * r->in_size);
    } else {
      run.cols = take (&rd, r->row_elements * sizeof (Acc));
      if (r->custom)
        run.cols_raw = take (&rd, r->row_elements * r->acc_size);
    }
    if (!rd.bad)
      g_array_append_val (runs, run);
  }
  return !rd.bad && rd.p == rd.end;
}

static gint
compare_runs (gconstpointer a, gconstpointer b)
{
  const Run *x = a, *y = b;

  return x->first_row < y->first_row ? -1 : x->first_row > y->first_row;
}

/* Mode ALL: elements in stream order into the staging block, whose
 * complete blocks join the tree. */
typedef struct
{
  PlanReducer *r;
  Tree t;
  guint8 *stage;
  gsize staged;
  guint64 pos;                  /* the global index of the next element */
} Assembly;

static void
feed_raw (Assembly * a, const guint8 * data, gsize n)
{
  PlanReducer *r = a->r;
  gsize es = r->in_size;

  while (n > 0) {
    gsize take_n = MIN (n, BLOCK - a->staged);

    memcpy (a->stage + a->staged * es, data, take_n * es);
    a->staged += take_n;
    a->pos += take_n;
    data += take_n * es;
    n -= take_n;
    if (a->staged == BLOCK) {
      Acc block;

      r->block (r, a->stage, BLOCK, a->pos - BLOCK, &block, r->scratch);
      _plan_reducer_tree_push (r, &a->t, &block, (a->pos - BLOCK) / BLOCK);
      a->staged = 0;
    }
  }
}

static gboolean
assemble_all (PlanReducer * r, GArray * runs, Acc * out)
{
  Acc stack[STACK_SIZE];
  guint levels[STACK_SIZE];
  guint64 starts[STACK_SIZE];
  Assembly a = { r, {stack, levels, starts, 0}, NULL, 0, 0 };
  guint i, k;

  a.stage = g_malloc (BLOCK * r->in_size);
  for (i = 0; i < runs->len; i++) {
    const Run *run = &g_array_index (runs, Run, i);
    const guint8 *node = run->nodes;

    feed_raw (&a, run->head, run->head_len);
    for (k = 0; k < run->depth; k++) {
      guint32 level;
      guint64 start;
      Acc acc;

      memcpy (&level, node, sizeof level);
      memcpy (&start, node + sizeof level, sizeof start);
      memcpy (&acc, node + sizeof level + sizeof start, sizeof acc);
      node += sizeof level + sizeof start + sizeof acc;
      /* A node starts at a block the elements so far end at. */
      if (a.staged != 0 || level >= 64 || start * BLOCK != a.pos)
        goto misaligned;
      _plan_reducer_tree_push_node (r, &a.t, &acc, level, start);
      a.pos += ((guint64) BLOCK) << level;
    }
    feed_raw (&a, run->tail, run->tail_len);
  }
  if (a.staged > 0) {
    Acc partial;

    r->block (r, a.stage, a.staged, a.pos - a.staged, &partial, r->scratch);
    _plan_reducer_tree_fold (r, &a.t, &partial, out);
  } else {
    _plan_reducer_tree_fold (r, &a.t, NULL, out);
  }
  g_free (a.stage);
  return TRUE;

misaligned:
  g_free (a.stage);
  return FALSE;
}

/* Mode ROWS: each run's raw rows continue the open blocks, its nodes join
 * the columns' trees, and its open blocks are the next run's to continue.
 * The open blocks live in @r's cols and cols_raw while it runs (a custom
 * combiner's column function folds into cols_raw), and are given back. */
static gboolean
assemble_columns (PlanReducer * r, GArray * runs, Acc * results)
{
  gsize w = r->row_elements, row_size = w * r->in_size, c;
  guint64 R = r->col_rows, pos = 0, fill = 0;
  guint levels[STACK_SIZE];
  guint64 starts[STACK_SIZE];
  Tree t = { NULL, levels, starts, 0 };
  Acc *own_cols = r->cols, *cols = g_new (Acc, w), *nodes = NULL;
  guint8 *own_raw = r->cols_raw, *raw = NULL;
  gpointer scratch = _plan_reducer_scratch_new (r, 2 * w);
  gboolean ok = FALSE;
  guint slots = 0, i, k;

  if (r->custom)
    raw = g_malloc (w * r->acc_size);
  for (c = 0; c < w; c++)
    _plan_reducer_column_set_open (r, cols, raw, c, &r->identity);
  r->cols = cols;
  r->cols_raw = raw;
  for (i = 0; i < runs->len; i++) {
    const Run *run = &g_array_index (runs, Run, i);
    const guint8 *node = run->nodes;

    for (k = 0; k < run->head_len; k++) {
      r->column (r, cols, 0, w, run->head + k * row_size, pos, scratch);
      pos++;
      fill++;
      if (pos % R == 0) {
        guint depth = t.depth, merges = _plan_reducer_tree_place (&t, 0, pos / R - 1);

        _plan_reducer_ensure_slots (&nodes, &slots, t.depth, w);
        _plan_reducer_columns_push (r, cols, raw, nodes, 0, w, depth - merges, merges);
        fill = 0;
      }
    }
    for (k = 0; k < run->depth; k++) {
      guint32 level;
      guint64 start;
      guint depth = t.depth, merges;

      memcpy (&level, node, sizeof level);
      memcpy (&start, node + sizeof level, sizeof start);
      node += sizeof level + sizeof start;
      /* A node starts at a block the rows so far end at. */
      if (fill != 0 || level >= 64 || start * R != pos)
        goto done;
      for (c = 0; c < w; c++) {
        Acc acc;

        memcpy (&acc, node + c * sizeof (Acc), sizeof acc);
        _plan_reducer_column_set_open (r, cols, raw, c, &acc);
      }
      node += w * sizeof (Acc);
      merges = _plan_reducer_tree_place (&t, level, start);
      _plan_reducer_ensure_slots (&nodes, &slots, t.depth, w);
      _plan_reducer_columns_push (r, cols, raw, nodes, 0, w, depth - merges, merges);
      pos += R << level;
    }
    if (run->tail_len > 0) {
      if (fill != 0 || pos % R != 0)
        goto done;
      for (c = 0; c < w; c++) {
        Acc acc;

        memcpy (&acc, run->cols + c * sizeof (Acc), sizeof acc);
        if (raw)
          memcpy (acc.v.raw, run->cols_raw + c * r->acc_size, r->acc_size);
        _plan_reducer_column_set_open (r, cols, raw, c, &acc);
      }
      fill = run->tail_len;
      pos += fill;
    }
    if (pos != run->first_row + run->n_rows)
      goto done;
  }
  for (c = 0; c < w; c++)
    _plan_reducer_column_fold (r, cols, raw, nodes, t.depth, fill > 0, c, &results[c]);
  ok = TRUE;

done:
  r->cols = own_cols;
  r->cols_raw = own_raw;
  g_free (cols);
  g_free (raw);
  g_free (nodes);
  g_free (scratch);
  return ok;
}

/**
 * plan_reducer_finish_parts:
 * @reducer: a #PlanReducer of the same op, axis and input as the ones
 *   that made @parts
 * @parts: (array length=n_parts): what plan_reducer_export() gave on each
 *   shard, in any order
 * @n_parts: the number of parts
 * @out: where the result goes, as for plan_reducer_finish()
 * @error: return location for a #GError
 *
 * Computes the result of the whole stream from its shards' parts, which
 * must cover its rows from 0 with neither gap nor overlap. @reducer's own
 * rows are not used: give its part among @parts.
 *
 * Returns: %TRUE, or %FALSE with @error set: as plan_reducer_finish(), or
 *   parts that are not a reducer's or leave rows out
 *
 * Since: 0.1
 */
gboolean
plan_reducer_finish_parts (PlanReducer * reducer, GBytes ** parts,
    guint n_parts, gpointer out, GError ** error)
{
  PlanReducer *r = reducer;
  GArray *runs;
  guint64 expected = 0, n_rows;
  Acc acc;
  guint i;
  gsize c;

  g_return_val_if_fail (reducer != NULL, FALSE);
  g_return_val_if_fail (parts != NULL || n_parts == 0, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  g_return_val_if_fail (r->mode != PLAN_REDUCE_AXIS_INNER, FALSE);

  _plan_reducer_settle (r);
  runs = g_array_new (FALSE, FALSE, sizeof (Run));
  for (i = 0; i < n_parts; i++)
    if (!parse_part (r, parts[i], runs))
      goto bad_part;
  g_array_sort (runs, compare_runs);
  for (i = 0; i < runs->len; i++) {
    const Run *run = &g_array_index (runs, Run, i);

    if (run->first_row != expected)
      goto gap;
    expected += run->n_rows;
  }
  n_rows = expected;
  if (n_rows == 0 && !r->custom && !plan_reduce_op_has_identity (r->op))
    goto empty;

  if (r->mode == PLAN_REDUCE_AXIS_ROWS) {
    Acc *results = g_new (Acc, r->row_elements);
    gboolean nan_column = FALSE;

    if (!assemble_columns (r, runs, results)) {
      g_free (results);
      goto bad_part;
    }
    for (c = 0; c < r->row_elements; c++)
      nan_column |= !_plan_reducer_final_column (r, &results[c], n_rows, out, c);
    g_free (results);
    if (nan_column)
      goto all_nan;
    g_array_unref (runs);
    return TRUE;
  }

  if (!assemble_all (r, runs, &acc))
    goto bad_part;
  g_array_unref (runs);
  if (r->custom)
    memcpy (out, acc.v.raw, r->out_size);
  else
    r->final (r, &acc, n_rows * r->row_elements, out);
  if (r->nan_arg && acc.index == G_MAXUINT64)
    goto all_nan_done;
  return TRUE;

  /* ERRORS */
bad_part:
  {
    g_array_unref (runs);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "a part to combine is not the state of the reducer '%s' of this "
        "input", r->name);
    return FALSE;
  }
gap:
  {
    const Run *run = &g_array_index (runs, Run, i);

    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "the shards of %s do not cover the stream: after row %"
        G_GUINT64_FORMAT " comes a shard from row %" G_GUINT64_FORMAT,
        r->name, expected, run->first_row);
    g_array_unref (runs);
    return FALSE;
  }
empty:
  {
    g_array_unref (runs);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "cannot compute %s of an empty stream: %s has no identity "
        "(numpy: %s)", r->name, r->name, _plan_reducer_numpy_op_name (r->op));
    return FALSE;
  }
all_nan:
  g_array_unref (runs);
all_nan_done:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "cannot compute %s: %s (numpy: All-NaN slice encountered)", r->name,
        r->mode == PLAN_REDUCE_AXIS_ROWS ? "a column's values are all NaN"
        : "every value is NaN");
    return FALSE;
  }
}

/**
 * plan_reducer_reduce:
 * @reducer: a #PlanReducer
 * @data: (array) (element-type guint8): @n_rows rows, C-contiguous
 * @n_rows: the number of rows
 * @out: where the result goes: the output info's elements, or @n_rows
 *   results for #PLAN_REDUCE_AXIS_INNER
 * @error: return location for a #GError
 *
 * Reduces a whole array in memory: plan_reducer_reset(),
 * plan_reducer_push() and plan_reducer_finish() in one call. The result is
 * the same as that of the array streamed in chunks.
 *
 * Returns: %TRUE, or %FALSE with @error set as plan_reducer_finish() does.
 *
 * Since: 0.1
 */
gboolean
plan_reducer_reduce (PlanReducer * reducer, gconstpointer data,
    gsize n_rows, gpointer out, GError ** error)
{
  gboolean inner;

  g_return_val_if_fail (reducer != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  inner = reducer->mode == PLAN_REDUCE_AXIS_INNER;
  plan_reducer_reset (reducer);
  return plan_reducer_push (reducer, data, n_rows, inner ? out : NULL, error)
      && plan_reducer_finish (reducer, inner ? NULL : out, error);
}
