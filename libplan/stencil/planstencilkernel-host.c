/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanStencilKernel on the host: the rows go through the kernel's PlanHalo
 * (plan_stencil_kernel_push(), _push_inputs(), _finish()) and the blocks it
 * hands out are computed on shifted views across the worker threads
 * (plan_stencil_kernel_eval()); iterations go through in small pieces, and
 * wrap along the streaming axis over several iterations as the middle of
 * the stream's periodic extension. See planstencilkernel.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planstencilkernel-private.h"

#define GST_CAT_DEFAULT plan_stencil_kernel_debug

/* What the worker threads share to evaluate one block line by line. */
typedef struct
{
  PlanStencilKernel *self;
  const PlanHaloBlock *block;
  guint index;                  /* the block's index among the pushed ones */
  guint8 *out;
  gsize line_len;
} LineJob;

/* The block of input @input that matches block @index of the first
 * input (the first input's is @block itself). */
static const PlanHaloBlock *
input_block (PlanStencilKernel * self, const PlanHaloBlock * block,
    guint index, guint input)
{
  return input == 0 ? block : &self->more_blocks[input - 1][index];
}

/* Sets @inputs to where each name's cell of the output @at elements from
 * the blocks' origins lies: the blocks of all inputs have one layout, in
 * elements of each input's size. */
static void
cell_pointers (PlanStencilKernel * self, const PlanHaloBlock * block,
    guint index, gssize at, gconstpointer * inputs)
{
  guint i;

  for (i = 0; i < self->n_names; i++) {
    const PlanHaloBlock *b = input_block (self, block, index,
        self->name_input[i]);

    inputs[i] = (const guint8 *) b->origin + (at + self->offsets[i]) *
        (gssize) self->name_esize[i];
  }
}

/* Evaluates the lines [begin, end) of a block that is not contiguous: one
 * line along the last axis at a time. */
static void
eval_lines (gsize begin, gsize end, gpointer data)
{
  LineJob *job = data;
  PlanStencilKernel *self = job->self;
  const PlanHaloBlock *block = job->block;
  gconstpointer *inputs = g_newa (gconstpointer, MAX (self->n_names, 1));
  gsize line;

  for (line = begin; line < end; line++) {
    gssize at = 0;
    gsize rest = line;
    gint k;

    for (k = block->ndim - 2; k >= 0; k--) {
      at += (rest % block->shape[k]) * block->strides[k];
      rest /= block->shape[k];
    }
    cell_pointers (self, block, job->index, at, inputs);
    plan_expr_eval (self->expr, inputs,
        job->out + line * job->line_len * self->geom.out_esize,
        job->line_len);
  }
}

/* Computes the outputs near the ends of the rows of @block, unpadded,
 * over the garbage the contiguous run left there. */
static void
eval_edges (PlanStencilKernel * self, const PlanHaloBlock * block,
    guint index, guint8 * out)
{
  PlanHaloBlock edges[2];
  PlanHaloBlock *more = NULL;
  gconstpointer *inputs = g_newa (gconstpointer, MAX (self->n_names, 1));
  gsize ies = self->geom.in_esize, oes = self->geom.out_esize;
  gsize w = block->shape[1], stride, h, gap, span, r;
  guint i, j;

  if (plan_halo_get_edges (self->halo, block, edges) != 2)
    return;
  /* The other inputs' edges: the same layout, in memory of their halos. */
  if (self->n_inputs > 1) {
    more = g_newa (PlanHaloBlock, 2 * (self->n_inputs - 1));
    for (j = 1; j < self->n_inputs; j++)
      plan_halo_get_edges (self->more_halos[j - 1], input_block (self, block,
              index, j), &more[2 * (j - 1)]);
  }
  stride = edges[0].strides[0];
  h = edges[0].shape[1];
  gap = ((const guint8 *) edges[1].origin -
      (const guint8 *) edges[0].origin) / ies;
  /* Both edges as one run, from the first output of edges[0] to the last
   * of edges[1]. */
  span = (block->n_rows - 1) * stride + gap + h;
  if (span * oes > self->edge_out_size) {
    g_free (self->edge_out);
    self->edge_out_size = span * oes;
    self->edge_out = g_malloc (self->edge_out_size);
  }
  for (i = 0; i < self->n_names; i++) {
    j = self->name_input[i];
    inputs[i] = (const guint8 *) (j == 0 ? edges[0].origin :
        more[2 * (j - 1)].origin) +
        plan_halo_block_get_offset (&edges[0], self->deltas[i]) *
        (gssize) self->name_esize[i];
  }
  plan_expr_eval (self->expr, inputs, self->edge_out, span);
  for (r = 0; r < block->n_rows; r++) {
    memcpy (out + r * w * oes, self->edge_out + r * stride * oes, h * oes);
    memcpy (out + (r * w + w - h) * oes,
        self->edge_out + (r * stride + gap) * oes, h * oes);
  }
}

/* Computes a block of unpadded rows: one contiguous run from the first
 * output whose cells are all in its row to the last such, then the
 * outputs near the ends of the rows. */
static void
eval_block_unpadded (PlanStencilKernel * self, const PlanHaloBlock * block,
    guint index, guint8 * out)
{
  gconstpointer *inputs = g_newa (gconstpointer, MAX (self->n_names, 1));
  gsize n = 1, skip = 0, i;
  guint k;

  for (k = 0; k < block->ndim; k++)
    n *= block->shape[k];
  /* The halo along the rows of a 2-D block (a 1-D block has none). */
  if (block->ndim == 2) {
    for (i = 0; i < self->n_names; i++)
      skip = MAX (skip, (gsize) ABS (self->deltas[i][1]));
  }
  cell_pointers (self, block, index, skip, inputs);
  /* plan_expr_eval_parallel() keeps small or cheap blocks on this thread. */
  plan_expr_eval_parallel (self->expr, inputs, out + skip *
      self->geom.out_esize, n - 2 * skip, self->n_threads);
  if (block->ndim == 2)
    eval_edges (self, block, index, out);
}

static void
eval_block (PlanStencilKernel * self, const PlanHaloBlock * block,
    guint index, guint8 * out)
{
  gsize n_lines = 1, i;
  guint k;
  LineJob job;

  for (i = 0; i < self->n_names; i++)
    self->offsets[i] = plan_halo_block_get_offset (block, self->deltas[i]);

  if (self->unpadded) {
    eval_block_unpadded (self, block, index, out);
    return;
  }
  if (block->contiguous) {
    gconstpointer *inputs = g_newa (gconstpointer, MAX (self->n_names, 1));
    gsize n = 1;

    for (k = 0; k < block->ndim; k++)
      n *= block->shape[k];
    cell_pointers (self, block, index, 0, inputs);
    plan_expr_eval_parallel (self->expr, inputs, out, n, self->n_threads);
    return;
  }

  for (k = 0; k + 1 < block->ndim; k++)
    n_lines *= block->shape[k];
  job.self = self;
  job.block = block;
  job.index = index;
  job.out = out;
  job.line_len = block->shape[block->ndim - 1];
  plan_parallel_for (self->n_threads, n_lines,
      MAX (1, LINE_GRAIN_ELEMENTS / job.line_len), eval_lines, &job);
}

static void
eval_stage (PlanStencilKernel * self, const PlanHaloBlock * blocks,
    guint n_blocks, guint8 * out)
{
  gsize row_size, n_rows = 0;
  guint i;

  row_size = plan_array_info_get_row_size (&self->output);
  for (i = 0; i < n_blocks; n_rows += blocks[i].n_rows, i++)
    eval_block (self, &blocks[i], i, out + n_rows * row_size);
}

/**
 * plan_stencil_kernel_eval:
 * @kernel: a #PlanStencilKernel
 * @blocks: (array length=n_blocks): blocks of consecutive output rows
 *   that plan_stencil_kernel_push() or plan_stencil_kernel_finish() gave
 *   (with one iteration, or the kernel's #PlanHalo)
 * @n_blocks: their number
 * @out: host memory for all their output rows, one after the other
 *
 * Computes the outputs of @blocks on the host, split across the worker
 * threads (plan_stencil_kernel_set_n_threads()).
 *
 * Since: 0.1
 */
void
plan_stencil_kernel_eval (PlanStencilKernel * kernel,
    const PlanHaloBlock * blocks, guint n_blocks, gpointer out)
{
  g_return_if_fail (kernel != NULL);
  g_return_if_fail (n_blocks == 0 || (blocks != NULL && out != NULL));

  eval_stage (_plan_stencil_kernel_last_stage (kernel), blocks, n_blocks, out);
}

/* Computes @blocks of an application before the last into its output
 * rows, after the @n_kept rows already there; returns the rows there. */
static gsize
eval_append (PlanStencilKernel * self, const PlanHaloBlock * blocks,
    guint n_blocks, gsize n_kept)
{
  gsize row_size = plan_array_info_get_row_size (&self->output);
  gsize n_rows = n_kept;
  guint i;

  for (i = 0; i < n_blocks; i++)
    n_rows += blocks[i].n_rows;
  if (MAX (n_rows, 1) * row_size > self->tmp_size) {
    self->tmp_size = MAX (n_rows, 1) * row_size;
    self->tmp = g_realloc (self->tmp, self->tmp_size);
  }
  eval_stage (self, blocks, n_blocks, self->tmp + n_kept * row_size);
  return n_rows;
}

/* Pushes rows into the application @self and its output through the
 * ones after it up to @last (excluded), whose input they become: the
 * rows @last gets, in @last's input memory. */
static gboolean
push_through (PlanStencilKernel * self, PlanStencilKernel * last,
    const guint8 * rows, gsize n_rows, const guint8 ** out, gsize * n_out,
    GError ** error)
{
  PlanHaloBlock blocks[PLAN_HALO_MAX_BLOCKS];
  guint n_blocks;

  for (; self != last; self = self->next) {
    if (!plan_halo_push (self->halo, rows, n_rows, blocks, &n_blocks, error))
      return FALSE;
    n_rows = eval_append (self, blocks, n_blocks, 0);
    rows = self->tmp;
  }
  *out = rows;
  *n_out = n_rows;
  return TRUE;
}

/* Pushes rows into the application @self and its output through the
 * ones after it; the last one's blocks are the caller's. Temporal
 * blocking: the rows go through the applications before the last in
 * pieces of TEMPORAL_BLOCK_BYTES, each piece through all of them while
 * it is in the cache, and what the one before the last gives is gathered
 * for the last, which computes into the caller's memory. */
static gboolean
chain_push (PlanStencilKernel * self, const guint8 * rows, gsize n_rows,
    PlanHaloBlock * blocks, guint * n_blocks, GError ** error)
{
  PlanStencilKernel *last = _plan_stencil_kernel_last_stage (self);
  gsize row_size, piece, done, n_out, n_gathered = 0, out_row;
  const guint8 *out;

  if (self == last)
    return plan_halo_push (self->halo, rows, n_rows, blocks, n_blocks,
        error);
  row_size = plan_array_info_get_row_size (&self->input);
  out_row = plan_array_info_get_row_size (&last->input);
  piece = MAX (TEMPORAL_BLOCK_BYTES / MAX (row_size, 1), 1);
  for (done = 0; done < n_rows || done == 0; done += piece) {
    if (!push_through (self, last, rows + done * row_size,
            MIN (piece, n_rows - done), &out, &n_out, error))
      return FALSE;
    if (n_rows <= piece && n_gathered == 0) {
      /* One piece: the last application reads its rows where they are. */
      return plan_halo_push (last->halo, out, n_out, blocks, n_blocks,
          error);
    }
    if ((n_gathered + n_out) * out_row > self->gathered_size) {
      self->gathered_size = MAX ((n_gathered + n_out) * out_row,
          2 * self->gathered_size);
      self->gathered = g_realloc (self->gathered, self->gathered_size);
    }
    memcpy (self->gathered + n_gathered * out_row, out, n_out * out_row);
    n_gathered += n_out;
    if (n_rows == 0)
      break;
  }
  return plan_halo_push (last->halo, self->gathered, n_gathered, blocks,
      n_blocks, error);
}

/* The row of the periodic extension of a stream of @total rows at @row,
 * among the stream's @n_have rows from @first on. */
static const guint8 *
periodic_row (const guint8 * have, guint64 first, gint64 row, guint64 total,
    gsize row_size)
{
  gint64 at = row % (gint64) total;

  if (at < 0)
    at += total;
  return have + (at - (gint64) first) * row_size;
}

/**
 * plan_stencil_kernel_host_needs_end_rows:
 * @kernel: a #PlanStencilKernel
 * @n_rows: the rows of the next chunk
 * @n_end_rows: (out) (optional): how many of the stream's last rows it
 *   needs
 *
 * With %PLAN_BOUNDARY_WRAP and a halo along the streaming axis, the first
 * outputs on the host need the stream's last rows (the window's half
 * height of them, times the iterations): when this says so, give them
 * with plan_stencil_kernel_host_set_end_rows() before pushing the chunk.
 *
 * Returns: %TRUE when the end rows are needed before pushing @n_rows
 *
 * Since: 0.1
 */
gboolean
plan_stencil_kernel_host_needs_end_rows (PlanStencilKernel * kernel,
    gsize n_rows, gsize * n_end_rows)
{
  g_return_val_if_fail (kernel != NULL, FALSE);

  if (!kernel->wrap_chain)
    return plan_halo_needs_end_rows (kernel->halo, n_rows, n_end_rows);
  if (n_end_rows)
    *n_end_rows = plan_stencil_kernel_get_first_axis_halo (kernel);
  return !kernel->have_prefix && kernel->host_received == 0 && n_rows > 0;
}

/**
 * plan_stencil_kernel_host_set_end_rows:
 * @kernel: a #PlanStencilKernel
 * @total_rows: the number of rows of the whole stream
 * @rows: (array): the last @n_rows rows of the stream
 * @n_rows: their number: what plan_stencil_kernel_host_needs_end_rows()
 *   asked, or all rows of a shorter stream
 * @error: return location for an error
 *
 * Returns: %TRUE, or %FALSE with @error set when @n_rows is not what
 *   was asked
 *
 * Since: 0.1
 */
gboolean
plan_stencil_kernel_host_set_end_rows (PlanStencilKernel * kernel,
    guint64 total_rows, gconstpointer rows, gsize n_rows, GError ** error)
{
  gsize row_size, want;
  gint64 r;

  g_return_val_if_fail (kernel != NULL, FALSE);

  if (!kernel->wrap_chain)
    return plan_halo_set_end_rows (kernel->halo, total_rows, rows, n_rows,
        error);
  want = plan_stencil_kernel_get_first_axis_halo (kernel);
  if (n_rows > total_rows || n_rows != MIN (want, total_rows)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "got %" G_GSIZE_FORMAT " of the last rows of a stream of %"
        G_GUINT64_FORMAT " rows but wrap over %u iterations needs its last "
        "%" G_GSIZE_FORMAT " rows", n_rows, total_rows, kernel->iterations,
        want);
    return FALSE;
  }
  /* The rows before row 0: the stream's last ones, repeated when the
   * stream is shorter than them. */
  row_size = plan_array_info_get_row_size (&kernel->input);
  g_free (kernel->prefix);
  kernel->prefix = g_malloc (MAX (want, 1) * row_size);
  for (r = 0; r < (gint64) want && total_rows > 0; r++)
    memcpy (kernel->prefix + r * row_size, periodic_row (rows,
            total_rows - n_rows, r - (gint64) want, total_rows, row_size),
        row_size);
  kernel->host_total = total_rows;
  kernel->have_prefix = TRUE;
  return TRUE;
}

/**
 * plan_stencil_kernel_host_set_input_end_rows:
 * @kernel: a #PlanStencilKernel
 * @input: the input's index, below the number of inputs
 * @total_rows: the number of rows of the whole stream
 * @rows: (array): the last @n_rows rows of input @input's stream
 * @n_rows: their number: what plan_stencil_kernel_host_needs_end_rows()
 *   asked, or all rows of a shorter stream
 * @error: return location for an error
 *
 * plan_stencil_kernel_host_set_end_rows() for each input of a stencil of
 * several inputs: when plan_stencil_kernel_host_needs_end_rows() asks,
 * give every input's last rows before pushing.
 *
 * Returns: %TRUE, or %FALSE with @error set when @n_rows is not what
 *   was asked
 *
 * Since: 0.1
 */
gboolean
plan_stencil_kernel_host_set_input_end_rows (PlanStencilKernel * kernel,
    guint input, guint64 total_rows, gconstpointer rows, gsize n_rows,
    GError ** error)
{
  g_return_val_if_fail (kernel != NULL, FALSE);
  g_return_val_if_fail (input < kernel->n_inputs, FALSE);

  if (input == 0)
    return plan_stencil_kernel_host_set_end_rows (kernel, total_rows, rows,
        n_rows, error);
  return plan_halo_set_end_rows (kernel->more_halos[input - 1], total_rows,
      rows, n_rows, error);
}

/**
 * plan_stencil_kernel_get_n_inputs:
 * @kernel: a #PlanStencilKernel
 *
 * Returns: the number of inputs the stencil reads
 *
 * Since: 0.1
 */
guint
plan_stencil_kernel_get_n_inputs (PlanStencilKernel * kernel)
{
  g_return_val_if_fail (kernel != NULL, 1);

  return kernel->n_inputs;
}

/* wrap over several iterations: the first chunk goes after the rows
 * before row 0, and the stream's first rows are kept to follow its
 * last. */
static gboolean
wrap_chain_push (PlanStencilKernel * self, const guint8 * rows,
    gsize n_rows, PlanHaloBlock * blocks, guint * n_blocks, GError ** error)
{
  gsize row_size = plan_array_info_get_row_size (&self->input);
  gsize want = plan_stencil_kernel_get_first_axis_halo (self), take;
  gboolean ok;

  *n_blocks = 0;
  if (n_rows == 0)
    return TRUE;
  if (!self->have_prefix) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "boundary=wrap along the first axis over %u iterations needs the "
        "last %" G_GSIZE_FORMAT " rows of the stream before the first "
        "output, and they were not given", self->iterations, want);
    return FALSE;
  }
  if (self->head == NULL)
    self->head = g_byte_array_new ();
  take = MIN (n_rows, want - MIN (want, self->head->len / row_size));
  g_byte_array_append (self->head, rows, take * row_size);
  g_clear_pointer (&self->joined, g_free);
  if (self->host_received == 0) {
    self->joined = g_malloc ((want + n_rows) * row_size);
    memcpy (self->joined, self->prefix, want * row_size);
    memcpy (self->joined + want * row_size, rows, n_rows * row_size);
    ok = chain_push (self, self->joined, want + n_rows, blocks, n_blocks,
        error);
  } else {
    ok = chain_push (self, rows, n_rows, blocks, n_blocks, error);
  }
  self->host_received += n_rows;
  return ok;
}

/**
 * plan_stencil_kernel_push:
 * @kernel: a #PlanStencilKernel
 * @rows: (array): the next @n_rows rows of the stream, C-contiguous
 * @n_rows: the number of rows
 * @blocks: (out caller-allocates) (array fixed-size=2): room for
 *   #PLAN_HALO_MAX_BLOCKS blocks
 * @n_blocks: (out): how many blocks of outputs can now be computed with
 *   plan_stencil_kernel_eval(), 0 when none can yet
 * @error: return location for an error
 *
 * The host computation: takes the next rows and says which outputs are
 * now complete, as plan_halo_push() does; with several iterations, the
 * applications before the last are computed here. The blocks may read
 * @rows in place and are valid until the next call.
 *
 * Returns: %TRUE, or %FALSE with @error set (the end rows that
 *   plan_stencil_kernel_host_needs_end_rows() asked for were not given)
 *
 * Since: 0.1
 */
gboolean
plan_stencil_kernel_push (PlanStencilKernel * kernel, gconstpointer rows,
    gsize n_rows, PlanHaloBlock * blocks, guint * n_blocks, GError ** error)
{
  g_return_val_if_fail (kernel != NULL, FALSE);
  g_return_val_if_fail (blocks != NULL && n_blocks != NULL, FALSE);

  if (kernel->wrap_chain)
    return wrap_chain_push (kernel, rows, n_rows, blocks, n_blocks, error);
  return chain_push (kernel, rows, n_rows, blocks, n_blocks, error);
}

/* The other inputs' halos gave the blocks of the first's: the same
 * layout, the same rows. */
static void
check_more_blocks (PlanStencilKernel * self, const PlanHaloBlock * blocks,
    guint n_blocks, const guint * more_n)
{
  guint j, i;

  for (j = 1; j < self->n_inputs; j++) {
    g_assert (more_n[j - 1] == n_blocks);
    for (i = 0; i < n_blocks; i++)
      g_assert (self->more_blocks[j - 1][i].first_row == blocks[i].first_row
          && self->more_blocks[j - 1][i].n_rows == blocks[i].n_rows);
  }
}

/**
 * plan_stencil_kernel_push_inputs:
 * @kernel: a #PlanStencilKernel
 * @rows: (array): for each input, the next @n_rows rows of its stream,
 *   C-contiguous
 * @n_rows: the number of rows, the same for every input
 * @blocks: (out caller-allocates) (array fixed-size=2): room for
 *   #PLAN_HALO_MAX_BLOCKS blocks
 * @n_blocks: (out): how many blocks of outputs can now be computed with
 *   plan_stencil_kernel_eval(), 0 when none can yet
 * @error: return location for an error
 *
 * plan_stencil_kernel_push() for a stencil of several inputs
 * (plan_stencil_kernel_new_inputs()): the blocks are the first input's;
 * the kernel keeps the other inputs' matching blocks for
 * plan_stencil_kernel_eval(). They may read @rows in place and are valid
 * until the next call.
 *
 * Returns: %TRUE, or %FALSE with @error set (the end rows that
 *   plan_stencil_kernel_host_needs_end_rows() asked for were not given)
 *
 * Since: 0.1
 */
gboolean
plan_stencil_kernel_push_inputs (PlanStencilKernel * kernel,
    const gconstpointer * rows, gsize n_rows, PlanHaloBlock * blocks,
    guint * n_blocks, GError ** error)
{
  guint *more_n, j;

  g_return_val_if_fail (kernel != NULL, FALSE);
  g_return_val_if_fail (rows != NULL, FALSE);
  g_return_val_if_fail (blocks != NULL && n_blocks != NULL, FALSE);

  if (kernel->n_inputs == 1)
    return plan_stencil_kernel_push (kernel, rows[0], n_rows, blocks,
        n_blocks, error);
  more_n = g_newa (guint, kernel->n_inputs - 1);
  for (j = 1; j < kernel->n_inputs; j++) {
    if (!plan_halo_push (kernel->more_halos[j - 1], rows[j], n_rows,
            kernel->more_blocks[j - 1], &more_n[j - 1], error))
      return FALSE;
  }
  if (!plan_halo_push (kernel->halo, rows[0], n_rows, blocks, n_blocks,
          error))
    return FALSE;
  check_more_blocks (kernel, blocks, *n_blocks, more_n);
  return TRUE;
}

/* The end of the stream through every application but the last, whose
 * blocks of the rows that completes are the caller's. */
static gboolean
chain_finish (PlanStencilKernel * self, PlanHaloBlock * blocks,
    guint * n_blocks, GError ** error)
{
  const guint8 *carry = NULL;
  gsize n_carry = 0, n;

  for (; self->next; self = self->next) {
    n = 0;
    if (n_carry > 0) {
      if (!plan_halo_push (self->halo, carry, n_carry, blocks, n_blocks,
              error))
        return FALSE;
      n = eval_append (self, blocks, *n_blocks, 0);
    }
    if (!plan_halo_finish (self->halo, blocks, n_blocks, error))
      return FALSE;
    n_carry = eval_append (self, blocks, *n_blocks, n);
    carry = self->tmp;
  }
  *n_blocks = 0;
  return n_carry == 0 || plan_halo_push (self->halo, carry, n_carry, blocks,
      n_blocks, error);
}

/* wrap over several iterations: the stream's first rows after its
 * last. */
static gboolean
wrap_chain_tail (PlanStencilKernel * self, PlanHaloBlock * blocks,
    guint * n_blocks, GError ** error)
{
  gsize row_size = plan_array_info_get_row_size (&self->input);
  gsize want = plan_stencil_kernel_get_first_axis_halo (self), have;
  guint8 *tail;
  gint64 r;
  gboolean ok;

  *n_blocks = 0;
  if (self->host_received == 0)
    return TRUE;
  if (self->host_received != self->host_total) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "the stream has %" G_GUINT64_FORMAT " rows but its source said %"
        G_GUINT64_FORMAT " when asked for its last rows for boundary=wrap",
        self->host_received, self->host_total);
    return FALSE;
  }
  have = self->head->len / row_size;
  tail = g_malloc (want * row_size);
  for (r = 0; r < (gint64) want; r++)
    memcpy (tail + r * row_size, periodic_row (self->head->data, 0, r,
            MIN (have, self->host_total), row_size), row_size);
  g_clear_pointer (&self->joined, g_free);
  self->joined = tail;
  ok = chain_push (self, tail, want, blocks, n_blocks, error);
  return ok;
}

/**
 * plan_stencil_kernel_finish:
 * @kernel: a #PlanStencilKernel
 * @blocks: (out caller-allocates) (array fixed-size=2): room for
 *   #PLAN_HALO_MAX_BLOCKS blocks
 * @n_blocks: (out): how many blocks hold last outputs; 0 once there are
 *   no more
 * @error: return location for an error
 *
 * Ends the stream on the host, as plan_halo_finish() does: gives the
 * blocks of the output rows still held back, in up to three parts with
 * several iterations. Compute each part with plan_stencil_kernel_eval()
 * and call this again, until it gives no block.
 * plan_stencil_kernel_reset() starts a new stream.
 *
 * Returns: %TRUE, or %FALSE with @error set: with %PLAN_BOUNDARY_VALID a
 *   stream shorter than the window, with %PLAN_BOUNDARY_WRAP a stream
 *   whose length differs from the total given with the end rows
 *
 * Since: 0.1
 */
gboolean
plan_stencil_kernel_finish (PlanStencilKernel * kernel,
    PlanHaloBlock * blocks, guint * n_blocks, GError ** error)
{
  g_return_val_if_fail (kernel != NULL, FALSE);
  g_return_val_if_fail (blocks != NULL && n_blocks != NULL, FALSE);

  *n_blocks = 0;
  while (*n_blocks == 0 && kernel->finish_phase < 3) {
    gboolean ok = TRUE;

    switch (kernel->finish_phase++) {
      case 0:
        if (kernel->wrap_chain)
          ok = wrap_chain_tail (kernel, blocks, n_blocks, error);
        break;
      case 1:
        if (kernel->next)
          ok = chain_finish (kernel, blocks, n_blocks, error);
        break;
      default:
        ok = plan_halo_finish (_plan_stencil_kernel_last_stage (kernel)->halo, blocks, n_blocks,
            error);
        if (ok && kernel->n_inputs > 1) {
          guint *more_n = g_newa (guint, kernel->n_inputs - 1), j;

          for (j = 1; ok && j < kernel->n_inputs; j++)
            ok = plan_halo_finish (kernel->more_halos[j - 1],
                kernel->more_blocks[j - 1], &more_n[j - 1], error);
          if (ok)
            check_more_blocks (kernel, blocks, *n_blocks, more_n);
        }
        break;
    }
    if (!ok)
      return FALSE;
  }
  return TRUE;
}
