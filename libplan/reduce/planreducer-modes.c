/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanReducer: pushing rows in its three modes (ALL, INNER, ROWS)
 * and finishing. */

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

/* A shard's elements (mode ALL) or rows (mode ROWS) before its first
 * whole block are kept as they are, for the rank that holds the rest of
 * that block: takes them from the @n units of @size bytes at @data.
 * Returns whether none is left. */
static gboolean
keep_head (PlanReducer * r, const guint8 ** data, gsize * n, gsize size)
{
  gsize take;

  if (r->head_len >= r->head_want)
    return FALSE;
  take = MIN (*n, r->head_want - r->head_len);
  memcpy (r->head + r->head_len * size, *data, take * size);
  r->head_len += take;
  *data += take * size;
  *n -= take;
  return *n == 0;
}

/* Mode ALL: worker threads reduce whole blocks of a chunk -------------- */

/* A task's blocks: each reduced and merged into the nodes they make of the
 * run's tree (aligned groups of 2^level blocks, the same merges in the
 * same order as pushing block after block), held in a stack of the task's
 * own that starts at its first block's slot: a node covers at least one
 * block, so the stack never reaches the next task's. */
static void
blocks_func (gsize begin, gsize end, gpointer user_data)
{
  ChunkBlocks *cb = user_data;
  PlanReducer *r = cb->r;
  gpointer scratch = _plan_reducer_scratch_new (r, 2 * BLOCK);
  Tree t = { &cb->results[begin], &cb->levels[begin], &cb->starts[begin], 0 };
  gsize k;

  for (k = begin; k < end; k++) {
    Acc block;

    r->block (r, cb->data + k * BLOCK * r->in_size, BLOCK,
        (cb->first_block + k) * BLOCK, &block, scratch);
    _plan_reducer_tree_push (r, &t, &block, cb->first_block + k);
  }
  cb->nodes[begin] = t.depth;
  cb->ends[begin] = end;
  g_free (scratch);
}

/* Hands the @n_blocks whole blocks at @data to the worker threads, in a
 * slot that is not in flight. */
static ChunkBlocks *
chunk_blocks_submit (PlanReducer * r, const guint8 * data, gsize n_blocks)
{
  ChunkBlocks *cb = r->in_flight == &r->chunks[0] ? &r->chunks[1] :
      &r->chunks[0];

  if (n_blocks > cb->len) {
    cb->results = g_renew (Acc, cb->results, n_blocks);
    cb->levels = g_renew (guint, cb->levels, n_blocks);
    cb->starts = g_renew (guint64, cb->starts, n_blocks);
    cb->nodes = g_renew (gsize, cb->nodes, 2 * n_blocks);
    cb->ends = cb->nodes + n_blocks;
    cb->len = n_blocks;
  }
  cb->r = r;
  cb->data = data;
  cb->first_block = r->n_blocks;
  cb->n_blocks = n_blocks;
  cb->job = _plan_parallel_submit (r->n_threads, n_blocks,
      MAX (1, TASK_BYTES / (BLOCK * r->in_size)), blocks_func, cb);
  r->n_blocks += n_blocks;
  return cb;
}

/* Waits for @cb's blocks (the caller's thread takes the tasks no worker
 * has started) and pushes each task's nodes, in order, into the tree. */
static void
chunk_blocks_join (PlanReducer * r, ChunkBlocks * cb)
{
  Tree t = { r->stack, r->levels, r->starts, r->depth };
  gsize k, i;

  _plan_parallel_join (cb->job);
  cb->job = NULL;
  for (k = 0; k < cb->n_blocks; k = cb->ends[k])
    for (i = k; i < k + cb->nodes[k]; i++)
      _plan_reducer_tree_push_node (r, &t, &cb->results[i], cb->levels[i],
          cb->starts[i]);
  r->depth = t.depth;
  cb->data = NULL;
}

static void column_segments_join (PlanReducer * r, ColumnSegments * job);

void
_plan_reducer_settle (PlanReducer * r)
{
  ChunkBlocks *cb = r->in_flight;
  ColumnSegments *segments = r->columns_in_flight;

  r->in_flight = NULL;
  r->columns_in_flight = NULL;
  if (cb != NULL)
    chunk_blocks_join (r, cb);
  if (segments != NULL)
    column_segments_join (r, segments);
}

void
_plan_reducer_free_chunks (PlanReducer * r)
{
  guint i;

  _plan_reducer_settle (r);
  for (i = 0; i < G_N_ELEMENTS (r->chunks); i++) {
    g_free (r->chunks[i].results);
    g_free (r->chunks[i].levels);
    g_free (r->chunks[i].starts);
    g_free (r->chunks[i].nodes);
  }
}

/* Pushes @n elements at @data. With @async, the chunk's whole blocks are
 * left in flight (their input must stay readable until the reducer is
 * settled); otherwise they are reduced before this returns. */
static void
push_all (PlanReducer * r, const guint8 * data, gsize n, gboolean async)
{
  gsize es = r->in_size, n_blocks;
  ChunkBlocks *cb = NULL;
  Tree t;
  Acc block;

  /* What comes before the chunk's whole blocks goes into the tree after
   * the blocks in flight. */
  if (r->head_len < r->head_want || r->staged > 0)
    _plan_reducer_settle (r);
  if (keep_head (r, &data, &n, es))
    return;

  if (r->staged > 0) {
    gsize take = MIN (n, BLOCK - r->staged);

    memcpy (r->staging + r->staged * es, data, take * es);
    r->staged += take;
    data += take * es;
    n -= take;
    if (r->staged < BLOCK)
      return;
    t = (Tree) { r->stack, r->levels, r->starts, r->depth };
    r->block (r, r->staging, BLOCK, r->n_blocks * BLOCK, &block, r->scratch);
    _plan_reducer_tree_push (r, &t, &block, r->n_blocks);
    r->depth = t.depth;
    r->n_blocks++;
    r->staged = 0;
  }

  /* The workers start on this chunk's blocks before the caller waits for
   * the previous chunk's: they go from one to the next without a pause. */
  n_blocks = n / BLOCK;
  if (n_blocks > 0)
    cb = chunk_blocks_submit (r, data, n_blocks);
  _plan_reducer_settle (r);
  if (cb != NULL && async)
    r->in_flight = cb;
  else if (cb != NULL)
    chunk_blocks_join (r, cb);

  /* A partial block left is copied now: the caller's rows may go. */
  r->staged = n - n_blocks * BLOCK;
  memcpy (r->staging, data + n_blocks * BLOCK * es, r->staged * es);
}

/* Mode INNER: threads take rows ------------------------------------------ */

typedef struct
{
  const PlanReducer *r;
  const guint8 *data;
  guint8 *out;
  gint all_nan;                 /* a row of nanargmin/nanargmax was all NaN */
} RowsJob;

static void
rows_func (gsize begin, gsize end, gpointer user_data)
{
  RowsJob *job = user_data;
  const PlanReducer *r = job->r;
  gsize row_size = r->row_elements * r->in_size, i;
  gpointer scratch = _plan_reducer_scratch_new (r, 2 * BLOCK);
  Acc acc;

  for (i = begin; i < end; i++) {
    _plan_reducer_reduce_contiguous (r, job->data + i * row_size, r->row_elements, &acc,
        scratch);
    if (r->custom)
      memcpy (job->out + i * r->out_size, acc.v.raw, r->out_size);
    else
      r->final (r, &acc, r->row_elements, job->out + i * r->out_size);
    if (r->nan_arg && acc.index == G_MAXUINT64)
      g_atomic_int_set (&job->all_nan, 1);
  }
  g_free (scratch);
}

/* Mode INNER on rows of one element: each element is reduced on its own.
 * That is a column update of identities by one row holding the whole
 * chunk, which gives what the block tree gives for one element, without
 * its per-row cost. */
static gboolean
push_single_elements (PlanReducer * r, const guint8 * data, gsize n_rows,
    guint8 * out)
{
  gboolean ok = TRUE;
  gsize i;

  if (n_rows > r->results_len) {
    r->results = g_renew (Acc, r->results, n_rows);
    r->results_len = n_rows;
  }
  for (i = 0; i < n_rows; i++)
    r->results[i] = r->identity;
  r->column (r, r->results, 0, n_rows, data, 0, NULL);
  for (i = 0; i < n_rows; i++) {
    r->final (r, &r->results[i], 1, out + i * r->out_size);
    if (r->nan_arg && r->results[i].index == G_MAXUINT64)
      ok = FALSE;
  }
  return ok;
}

/* Mode ROWS: column blocks and their trees, threads taking columns -------
 *
 * Column c's open block is cols[c] (a custom combiner's value in
 * cols_raw), its tree's node in slot i is nodes[i * row_elements + c]. */

static Acc
column_open (const PlanReducer * r, const Acc * cols, const guint8 * raw,
    gsize c)
{
  Acc a = cols[c];

  if (raw)
    memcpy (a.v.raw, raw + c * r->acc_size, r->acc_size);
  return a;
}

void
_plan_reducer_column_set_open (const PlanReducer * r, Acc * cols, guint8 * raw, gsize c,
    const Acc * a)
{
  cols[c] = *a;
  if (raw)
    memcpy (raw + c * r->acc_size, a->v.raw, r->acc_size);
}

void
_plan_reducer_ensure_slots (Acc ** nodes, guint * slots, guint need, gsize row_elements)
{
  if (need > *slots) {
    *nodes = g_renew (Acc, *nodes, (gsize) need * row_elements);
    *slots = need;
  }
}

/* Pushes the open blocks of columns [c0, c1) into their trees, as a node
 * that goes to @slot after merging with the @merges nodes from there on
 * (_plan_reducer_tree_place()), and opens the next blocks. */
void
_plan_reducer_columns_push (const PlanReducer * r, Acc * cols, guint8 * raw, Acc * nodes,
    gsize c0, gsize c1, guint slot, guint merges)
{
  gsize w = r->row_elements, c;
  guint i;

  for (c = c0; c < c1; c++) {
    Acc acc = column_open (r, cols, raw, c);

    for (i = slot + merges; i > slot; i--) {
      Acc merged = nodes[(i - 1) * w + c];

      r->merge (r, &merged, &acc);
      acc = merged;
    }
    nodes[slot * w + c] = acc;
    _plan_reducer_column_set_open (r, cols, raw, c, &r->identity);
  }
}

/* Column @c's result: its open block when @open, then the nodes of its
 * tree of @depth slots, most recent first (as _plan_reducer_tree_fold()). */
void
_plan_reducer_column_fold (const PlanReducer * r, const Acc * cols, const guint8 * raw,
    const Acc * nodes, guint depth, gboolean open, gsize c, Acc * out)
{
  gsize w = r->row_elements;
  gint i = (gint) depth - 1;
  Acc acc;

  if (open)
    acc = column_open (r, cols, raw, c);
  else if (i >= 0)
    acc = nodes[i-- * w + c];
  else
    acc = r->identity;
  for (; i >= 0; i--) {
    Acc merged = nodes[i * w + c];

    r->merge (r, &merged, &acc);
    acc = merged;
  }
  *out = acc;
}

/* A column block that ends after row @end of a chunk. */
typedef struct
{
  gsize end;
  guint slot;
  guint merges;
} ColumnPush;

typedef struct
{
  PlanReducer *r;
  const guint8 *data;
  gsize n_rows;
  guint64 first_row;
  const ColumnPush *pushes;
  gsize n_pushes;
} ColumnsJob;

/* Moves the fields of the open blocks of columns [c0, c1) between the
 * accumulators and arrays of their own (ColumnRowsFunc), @parts fields
 * a column in each (_plan_reducer_column_parts()). */
static void
columns_to_arrays (const Acc * cols, gsize c0, gsize c1, gsize parts,
    gdouble * v, gdouble * lo)
{
  gsize c;

  for (c = c0; c < c1; c++)
    _plan_reducer_column_to_arrays (&cols[c], parts, v + (c - c0) * parts,
        lo + (c - c0) * parts);
}

static void
columns_from_arrays (Acc * cols, gsize c0, gsize c1, gsize parts,
    const gdouble * v, const gdouble * lo)
{
  gsize c;

  for (c = c0; c < c1; c++)
    _plan_reducer_column_from_arrays (&cols[c], parts, v + (c - c0) * parts,
        lo + (c - c0) * parts);
}

/* The rows up to each block's end, then that block's push; with
 * r->column_rows the rows of a segment in one call, the open blocks'
 * fields in arrays meanwhile. */
static void
columns_func (gsize begin, gsize end, gpointer user_data)
{
  ColumnsJob *job = user_data;
  PlanReducer *r = job->r;
  gsize row_size = r->row_elements * r->in_size, w = end - begin, i = 0, j;
  gsize parts = _plan_reducer_column_parts (r);
  gpointer scratch = NULL;
  gdouble *v = NULL, *lo = NULL;

  if (r->column_rows) {
    v = g_new (gdouble, 2 * parts * w);
    lo = v + parts * w;
    columns_to_arrays (r->cols, begin, end, parts, v, lo);
  } else {
    scratch = _plan_reducer_scratch_new (r, 2 * w);
  }
  for (j = 0; j <= job->n_pushes; j++) {
    gsize stop = j < job->n_pushes ? job->pushes[j].end : job->n_rows;

    if (v) {
      r->column_rows (v, lo, job->data + i * row_size, stop - i, row_size,
          parts * begin, parts * end);
      i = stop;
    }
    for (; i < stop; i++)
      r->column (r, r->cols, begin, end, job->data + i * row_size,
          job->first_row + i, scratch);
    if (j == job->n_pushes)
      break;
    if (v && r->cols_raw == NULL) {
      /* the merges a level at a time across the columns, in the arrays */
      _plan_reducer_columns_push_arrays (r, r->cols, r->col_nodes, v, lo,
          job->pushes[j].slot, job->pushes[j].merges, begin, end);
      columns_to_arrays (r->cols, begin, end, parts, v, lo);
      continue;
    }
    if (v)
      columns_from_arrays (r->cols, begin, end, parts, v, lo);
    _plan_reducer_columns_push (r, r->cols, r->cols_raw, r->col_nodes, begin, end,
        job->pushes[j].slot, job->pushes[j].merges);
    if (v)
      columns_to_arrays (r->cols, begin, end, parts, v, lo);
  }
  if (v)
    columns_from_arrays (r->cols, begin, end, parts, v, lo);
  g_free (v);
  g_free (scratch);
}

/* Narrow rows, and chunks of many blocks of rows of up to
 * COLUMN_SEGMENT_MAX columns: the threads take column blocks rather than
 * ranges of columns. A chunk's rows are cut at the ends of its column
 * blocks into segments; the first continues the open blocks, each other
 * starts from the identity, as a block does. Every column gets the same
 * operations in the same order as columns_func would give it; the caller
 * then pushes the blocks into the trees in order.
 *
 * Pushed asynchronously, a chunk's segments but the first go to the
 * workers at once; the caller takes the first once the chunk before has
 * closed the open blocks it continues. */
struct _ColumnSegments
{
  PlanReducer *r;
  const guint8 *data;
  gsize n_rows;
  ColumnPush *pushes;           /* [n_segments - 1], owned */
  gsize n_segments;
  gsize first;                  /* the first segment the workers take */
  gsize parts;                  /* _plan_reducer_column_parts() */
  gdouble *v;                   /* [n_segments][2][parts * row_elements]:
                                 * v, lo */
  PlanParallelJob *job;
};

static void
segment_run (ColumnSegments * job, gsize k)
{
  PlanReducer *r = job->r;
  gsize w = r->row_elements, row_size = w * r->in_size, c;
  gsize parts = job->parts;
  gsize first = k == 0 ? 0 : job->pushes[k - 1].end;
  gsize stop = k + 1 < job->n_segments ? job->pushes[k].end : job->n_rows;
  gdouble *v = job->v + k * 2 * parts * w, *lo = v + parts * w;

  if (k == 0) {
    columns_to_arrays (r->cols, 0, w, parts, v, lo);
  } else {
    const Acc identity = r->identity;

    for (c = 0; c < w; c++)
      _plan_reducer_column_to_arrays (&identity, parts, v + c * parts,
          lo + c * parts);
  }
  r->column_rows (v, lo, job->data + first * row_size, stop - first,
      row_size, 0, parts * w);
}

static void
segments_func (gsize begin, gsize end, gpointer user_data)
{
  ColumnSegments *job = user_data;
  gsize i;

  for (i = begin; i < end; i++)
    segment_run (job, job->first + i);
}

/* Hands the segments from @first on to the workers; takes @pushes. */
static ColumnSegments *
column_segments_submit (PlanReducer * r, const guint8 * data, gsize n_rows,
    ColumnPush * pushes, gsize n_pushes, gsize first)
{
  ColumnSegments *job = g_new0 (ColumnSegments, 1);
  gsize w = r->row_elements;

  job->r = r;
  job->data = data;
  job->n_rows = n_rows;
  job->pushes = pushes;
  job->n_segments = n_pushes + 1;
  job->first = first;
  job->parts = _plan_reducer_column_parts (r);
  job->v = g_new (gdouble, job->n_segments * 2 * job->parts * w);
  job->job = _plan_parallel_submit (r->n_threads, job->n_segments - first,
      MAX (1, TASK_BYTES / (r->col_rows * w * r->in_size)), segments_func,
      job);
  return job;
}

/* Waits for the segments, pushes the blocks they end into the trees in
 * order and leaves the last segment's open; frees @job.
 *
 * The blocks after the first start from the identity, and the tree's
 * nodes they make among themselves stay in their segments' arrays
 * (where _plan_reducer_columns_merge_in_arrays()): merged there, 16
 * bytes a column, and stored as nodes once, at the end, rather than each
 * block written to and read back from the 48-byte nodes. The same
 * merges of the same values in the same order. */
static void
column_segments_join (PlanReducer * r, ColumnSegments * job)
{
  gsize w = r->row_elements, parts = job->parts, j, k;
  gboolean in_arrays = _plan_reducer_columns_merge_in_arrays (r);
  /* the nodes held in arrays, the tree's top: their segments and slots
   * (a slot a level, so fewer than 64) */
  gsize held[64], n_held = 0;
  guint held_slot[64];

  _plan_parallel_join (job->job);
  for (j = 0; j < job->n_segments; j++) {
    gdouble *v = job->v + j * 2 * parts * w, *lo = v + parts * w;
    guint slot, merges;

    if (j + 1 == job->n_segments) {
      columns_from_arrays (r->cols, 0, w, parts, v, lo);
      break;
    }
    slot = job->pushes[j].slot;
    merges = job->pushes[j].merges;
    if (!in_arrays || j == 0) {
      /* the open blocks the first continues, in r->cols */
      _plan_reducer_columns_push_arrays (r, r->cols, r->col_nodes, v, lo,
          slot, merges, 0, w);
      continue;
    }
    for (; merges > 0 && n_held > 0; merges--) {
      gdouble *nv = job->v + held[--n_held] * 2 * parts * w;

      g_assert (held_slot[n_held] == slot + merges - 1);
      _plan_reducer_columns_merge_arrays (r, nv, nv + parts * w, v, lo, w);
    }
    if (merges > 0) {
      _plan_reducer_columns_push_arrays (r, NULL, r->col_nodes, v, lo,
          slot, merges, 0, w);
    } else {
      g_assert (n_held < G_N_ELEMENTS (held));
      held[n_held] = j;
      held_slot[n_held++] = slot;
    }
  }
  for (k = 0; k < n_held; k++) {
    gdouble *v = job->v + held[k] * 2 * parts * w;

    _plan_reducer_columns_store_arrays (r, r->col_nodes + held_slot[k] * w,
        v, v + parts * w, w);
  }
  g_free (job->v);
  g_free (job->pushes);
  g_free (job);
}

static void
push_column_segments (PlanReducer * r, const guint8 * data, gsize n_rows,
    ColumnPush * pushes, gsize n_pushes, gboolean async)
{
  ColumnSegments *job;

  if (!async) {
    _plan_reducer_settle (r);
    column_segments_join (r, column_segments_submit (r, data, n_rows,
            pushes, n_pushes, 0));
    return;
  }
  job = column_segments_submit (r, data, n_rows, pushes, n_pushes, 1);
  _plan_reducer_settle (r);
  segment_run (job, 0);
  r->columns_in_flight = job;
}

static void
push_columns (PlanReducer * r, const guint8 * data, gsize n_rows,
    gboolean async)
{
  gsize row_size = r->row_elements * r->in_size, n_pushes = 0;
  guint64 g = r->next_row, b, R = r->col_rows;
  gsize n_given = n_rows;
  Tree t = { NULL, r->levels, r->starts, r->depth };
  ColumnPush *pushes;
  ColumnsJob job;
  guint need = r->depth;

  if (r->head_len < r->head_want)
    _plan_reducer_settle (r);
  if (keep_head (r, &data, &n_rows, row_size))
    return;
  g += n_given - n_rows;

  /* The trees' shape changes on the caller's thread; the threads then
   * follow it, each in its columns. */
  pushes = g_new (ColumnPush, (g + n_rows) / R - g / R + 1);
  for (b = (g / R + 1) * R; b <= g + n_rows; b += R) {
    ColumnPush *p = &pushes[n_pushes++];
    guint depth = t.depth;

    p->end = b - g;
    p->merges = _plan_reducer_tree_place (&t, 0, b / R - 1);
    p->slot = depth - p->merges;
    need = MAX (need, t.depth);
  }
  _plan_reducer_ensure_slots (&r->col_nodes, &r->col_slots, need, r->row_elements);
  if (r->column_rows && r->cols_raw == NULL && n_pushes > 0
      && (r->row_elements <= COLUMN_GRAIN
          || (r->row_elements <= COLUMN_SEGMENT_MAX
              && n_pushes >= COLUMN_SEGMENTS_MIN)) && r->n_threads != 1
      && plan_parallel_get_n_cores () > 1) {
    push_column_segments (r, data, n_rows, pushes, n_pushes, async);
    pushes = NULL;
  } else {
    _plan_reducer_settle (r);
    job.r = r;
    job.data = data;
    job.n_rows = n_rows;
    job.first_row = g;
    job.pushes = pushes;
    job.n_pushes = n_pushes;
    plan_parallel_for (r->n_threads, r->row_elements, COLUMN_GRAIN,
        columns_func, &job);
  }
  r->depth = t.depth;
  g_free (pushes);
}

static gboolean
push_rows (PlanReducer * r, gconstpointer rows, gsize n_rows, gpointer out,
    gboolean async, GError ** error)
{
  if (n_rows == 0)
    return TRUE;

  switch (r->mode) {
    case PLAN_REDUCE_AXIS_1:   /* made INNER when the reducer is made */
      g_assert_not_reached ();
      break;
    case PLAN_REDUCE_AXIS_ALL:
      push_all (r, rows, n_rows * r->row_elements, async);
      break;
    case PLAN_REDUCE_AXIS_ROWS:
      push_columns (r, rows, n_rows, async);
      break;
    case PLAN_REDUCE_AXIS_INNER:{
      RowsJob job = { r, rows, out, 0 };
      gsize grain = MAX (1, BLOCK * BLOCK_GRAIN / r->row_elements);

      if (out == NULL)
        goto no_out;
      if (r->row_elements == 1 && !r->custom)
        job.all_nan = !push_single_elements (r, rows, n_rows, out);
      else
        plan_parallel_for (r->n_threads, n_rows, grain, rows_func, &job);
      r->n_rows += n_rows;
      r->next_row += n_rows;
      r->run_rows += n_rows;
      if (job.all_nan)
        goto all_nan;
      return TRUE;
    }
  }
  r->n_rows += n_rows;
  r->next_row += n_rows;
  r->run_rows += n_rows;
  return TRUE;

  /* ERRORS */
all_nan:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "cannot compute %s of a row whose values are all NaN (numpy: "
        "All-NaN slice encountered)", r->name);
    return FALSE;
  }
no_out:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "a reduction of each row needs an output for %" G_GSIZE_FORMAT
        " rows", n_rows);
    return FALSE;
  }
}

/* Writes column @c's result to @out; FALSE when nanargmin or nanargmax
 * found only NaNs in it. */
gboolean
_plan_reducer_final_column (const PlanReducer * r, const Acc * acc, guint64 n_rows,
    gpointer out, gsize c)
{
  guint8 *o = (guint8 *) out + c * r->out_size;

  if (r->custom)
    memcpy (o, acc->v.raw, r->out_size);
  else
    r->final (r, acc, n_rows, o);
  return !(r->nan_arg && acc->index == G_MAXUINT64);
}

const gchar *
_plan_reducer_numpy_op_name (PlanReduceOp op)
{
  switch (op) {
    case PLAN_REDUCE_OP_MIN:
      return "zero-size array to reduction operation minimum which has no "
          "identity";
    case PLAN_REDUCE_OP_MAX:
    case PLAN_REDUCE_OP_PTP:
      return "zero-size array to reduction operation maximum which has no "
          "identity";
    case PLAN_REDUCE_OP_NANMIN:
      return "zero-size array to reduction operation fmin which has no "
          "identity";
    case PLAN_REDUCE_OP_NANMAX:
      return "zero-size array to reduction operation fmax which has no "
          "identity";
    case PLAN_REDUCE_OP_ARGMIN:
    case PLAN_REDUCE_OP_NANARGMIN:
      return "attempt to get argmin of an empty sequence";
    default:
      return "attempt to get argmax of an empty sequence";
  }
}

/**
 * plan_reducer_push:
 * @reducer: a #PlanReducer
 * @rows: (array) (element-type guint8): @n_rows rows of the input,
 *   C-contiguous
 * @n_rows: the number of rows
 * @out: (nullable): with #PLAN_REDUCE_AXIS_INNER, room for @n_rows results
 *   of the output dtype, which are written there; %NULL otherwise
 * @error: return location for a #GError
 *
 * Reduces the next @n_rows rows of the stream. Call it from one thread at
 * a time; it runs the reducer's worker threads and returns when they are
 * done. With #PLAN_REDUCE_AXIS_INNER the result of each row is written to
 * @out at once; otherwise it is kept until plan_reducer_finish().
 *
 * Returns: %TRUE, or %FALSE with @error set when @out is missing.
 *
 * Since: 0.1
 */
gboolean
plan_reducer_push (PlanReducer * reducer, gconstpointer rows, gsize n_rows,
    gpointer out, GError ** error)
{
  g_return_val_if_fail (reducer != NULL, FALSE);
  g_return_val_if_fail (rows != NULL || n_rows == 0, FALSE);

  return push_rows (reducer, rows, n_rows, out, FALSE, error);
}

/**
 * plan_reducer_push_async:
 * @reducer: a #PlanReducer
 * @rows: (array) (element-type guint8): @n_rows rows of the input,
 *   C-contiguous
 * @n_rows: the number of rows
 * @error: return location for a #GError
 *
 * plan_reducer_push() for a caller that can keep @rows readable a while
 * longer. With #PLAN_REDUCE_AXIS_ALL, and with #PLAN_REDUCE_AXIS_ROWS on
 * rows of up to 1,024 elements (the sums, means, minima and maxima of
 * floats, whose column blocks the threads share), the worker threads go
 * on reducing @rows after this returns, while the caller fetches the next
 * chunk, so that they do not wait for it between chunks; the result is
 * the same, bit for bit. @rows must stay readable and unchanged until the reducer
 * is done with them: until plan_reducer_wait() returns, or the next call
 * of plan_reducer_push_async(), plan_reducer_push(), plan_reducer_finish(),
 * plan_reducer_export(), plan_reducer_set_origin(), plan_reducer_reset()
 * or the last plan_reducer_unref() returns, each of which waits for them
 * first. So at most the rows of one call are held: this call returns once
 * the rows of the one before are done with.
 *
 * Otherwise it is plan_reducer_push(), done with @rows on return, except
 * that #PLAN_REDUCE_AXIS_INNER, whose results go to an output, needs
 * plan_reducer_push().
 *
 * Returns: %TRUE, or %FALSE with @error set (#PLAN_REDUCE_AXIS_INNER).
 *
 * Since: 0.1
 */
gboolean
plan_reducer_push_async (PlanReducer * reducer, gconstpointer rows,
    gsize n_rows, GError ** error)
{
  g_return_val_if_fail (reducer != NULL, FALSE);
  g_return_val_if_fail (rows != NULL || n_rows == 0, FALSE);

  return push_rows (reducer, rows, n_rows, NULL, TRUE, error);
}

/**
 * plan_reducer_wait:
 * @reducer: a #PlanReducer
 *
 * Returns once @reducer reads none of the rows given to
 * plan_reducer_push_async() any more: the caller may let them go.
 *
 * Since: 0.1
 */
void
plan_reducer_wait (PlanReducer * reducer)
{
  g_return_if_fail (reducer != NULL);

  _plan_reducer_settle (reducer);
}

/**
 * plan_reducer_holds_rows:
 * @reducer: a #PlanReducer
 *
 * Whether @reducer still reads rows given to plan_reducer_push_async():
 * %FALSE when that call reduced them before it returned (along
 * #PLAN_REDUCE_AXIS_ROWS: rows of more than 1,024 elements, a combiner of
 * the caller's), so that the caller may let them go at once
 * rather than at the next call.
 *
 * Returns: %TRUE until plan_reducer_wait() or the next call that waits
 *   for the rows returns
 *
 * Since: 0.1
 */
gboolean
plan_reducer_holds_rows (PlanReducer * reducer)
{
  g_return_val_if_fail (reducer != NULL, FALSE);

  return reducer->in_flight != NULL || reducer->columns_in_flight != NULL;
}

/**
 * plan_reducer_finish:
 * @reducer: a #PlanReducer
 * @out: (nullable): room for the result (the output info's number of
 *   elements, of its dtype); may be %NULL with #PLAN_REDUCE_AXIS_INNER
 * @error: return location for a #GError
 *
 * Completes the reduction at the end of the stream and writes the result
 * to @out (nothing with #PLAN_REDUCE_AXIS_INNER, whose results were
 * written by plan_reducer_push()). The reducer keeps its state; call
 * plan_reducer_reset() before reducing another stream.
 *
 * Returns: %TRUE, or %FALSE with @error set when the stream was empty and
 *   the op has no identity (min, max, argmin, argmax, their nan versions,
 *   ptp), or when nanargmin or nanargmax found only NaNs (in a column with
 *   #PLAN_REDUCE_AXIS_ROWS), as numpy raises.
 *
 * Since: 0.1
 */
gboolean
plan_reducer_finish (PlanReducer * reducer, gpointer out, GError ** error)
{
  PlanReducer *r = reducer;
  Tree t;
  Acc acc, block;
  gsize c;

  g_return_val_if_fail (reducer != NULL, FALSE);
  g_return_val_if_fail (out != NULL || r->mode == PLAN_REDUCE_AXIS_INNER,
      FALSE);

  if (r->mode == PLAN_REDUCE_AXIS_INNER)
    return TRUE;
  _plan_reducer_settle (r);
  if (r->n_runs > 0 || r->run_first > 0)
    goto sharded;
  if (r->n_rows == 0 && !r->custom && !plan_reduce_op_has_identity (r->op))
    goto empty;

  if (r->mode == PLAN_REDUCE_AXIS_ROWS) {
    for (c = 0; c < r->row_elements; c++) {
      _plan_reducer_column_fold (r, r->cols, r->cols_raw, r->col_nodes, r->depth,
          r->n_rows % r->col_rows != 0, c, &acc);
      if (!_plan_reducer_final_column (r, &acc, r->n_rows, out, c))
        goto all_nan;
    }
    return TRUE;
  }

  t.stack = r->stack;
  t.levels = r->levels;
  t.starts = r->starts;
  t.depth = r->depth;
  if (r->staged > 0) {
    r->block (r, r->staging, r->staged, r->n_blocks * BLOCK, &block,
        r->scratch);
    _plan_reducer_tree_fold (r, &t, &block, &acc);
  } else {
    _plan_reducer_tree_fold (r, &t, NULL, &acc);
  }
  if (r->custom)
    memcpy (out, acc.v.raw, r->out_size);
  else
    r->final (r, &acc, r->n_rows * r->row_elements, out);
  if (r->nan_arg && acc.index == G_MAXUINT64)
    goto all_nan;
  return TRUE;

  /* ERRORS */
all_nan:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "cannot compute %s: %s (numpy: All-NaN slice encountered)", r->name,
        r->mode == PLAN_REDUCE_AXIS_ROWS ? "a column's values are all NaN"
        : "every value is NaN");
    return FALSE;
  }
empty:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "cannot compute %s of an empty stream: %s has no identity "
        "(numpy: %s)", r->name, r->name, _plan_reducer_numpy_op_name (r->op));
    return FALSE;
  }
sharded:
  {
    /* Rows from elsewhere than row 0: one shard's result is no result. */
    GBytes *part = plan_reducer_export (r);
    gboolean ok = plan_reducer_finish_parts (r, &part, 1, out, error);

    g_bytes_unref (part);
    return ok;
  }
}
