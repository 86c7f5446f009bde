/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planhalo
 * @title: PlanHalo
 * @short_description: streaming boundary padding for stencils
 *
 * A stencil computes each output element from a window of input elements
 * around it. #PlanHalo does the bookkeeping that makes this work on a
 * stream of row chunks, so that the stencil's loop has no test at all:
 *
 * - every incoming row is copied once into a work block, padded along the
 *   inner axes with boundary cells (see #PlanBoundary);
 * - the last rows of each chunk stay in the block (the halo) until the
 *   rows after them have arrived, so output lags the input by the halo;
 * - the rows before the first and after the last row are made from the
 *   boundary rule once, when the stream starts and ends.
 *
 * Each plan_halo_push() and plan_halo_finish() returns a #PlanHaloBlock:
 * the output rows that can now be computed and where their padded input
 * lies. Together the blocks cover every output row once, in order,
 * whatever the chunk sizes, and give exactly what a computation on the
 * whole array padded as scipy.ndimage pads it gives. With
 * %PLAN_BOUNDARY_VALID nothing is padded and the output shrinks by twice
 * the halo along each axis.
 *
 * On a 2-D array a stencil that can compute the outputs near the ends of
 * the rows apart can skip the copy: with plan_halo_set_pad_inner() %FALSE
 * the rows stay as they come (only the halo rows at the ends of a chunk
 * are kept) and plan_halo_get_edges() pads just the ends of the rows.
 *
 * `wrap` along the first axis needs the last rows of the stream before the
 * first output: plan_halo_needs_end_rows() says when, and the caller hands
 * them over with plan_halo_set_end_rows() (a source that can read rows out
 * of order can provide them).
 *
 * A stream that is one piece of a longer one (one rank's share of rows
 * sharded across processes) has real rows, not boundary cells, beyond its
 * ends: with plan_halo_set_context_rows() its first or last halo rows are
 * context, read by the outputs next to them but with no output of their
 * own, and nothing is padded along the first axis at that end.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planhalo.h"
#include <libplan/planerror.h>
#include "libplan/core/plan-private.h"
#include <libplan/planparallel.h>

#include <string.h>

struct _PlanHalo
{
  PlanArrayInfo info;
  PlanBoundary boundary;
  guint ndim;
  gsize esize;
  guint h[PLAN_ARRAY_MAX_DIMS];
  guint pad[PLAN_ARRAY_MAX_DIMS];       /* cells added each side: h or 0 */
  gint64 pshape[PLAN_ARRAY_MAX_DIMS];   /* padded extents; [0] unused */
  gsize pstride[PLAN_ARRAY_MAX_DIMS];   /* padded strides, elements */
  gsize istride[PLAN_ARRAY_MAX_DIMS];   /* input strides, elements */
  gsize in_row_bytes;
  gsize prow_bytes;
  gboolean inner_padded;
  guint8 *fill;                 /* one padded row of cval */
  guint8 cval[16];              /* one element of cval */
  guint n_threads;

  /* Rows kept unpadded, the caller handling the ends of the last axis
   * (plan_halo_set_pad_inner()): for each column of the edge strips, the
   * column of the row it holds, -1 for cval. */
  gboolean edges_by_caller;
  gint64 *edge_cols;            /* [6 h[1]]: left strip, then right */
  guint8 *edges;                /* the strips of the last block asked */
  gsize edges_size;

  /* The work block holds padded rows [base, received) of the stream,
   * virtual rows before 0 included once they are filled. */
  guint8 *work;
  gsize work_rows;              /* capacity */
  gint64 base;
  guint64 received;
  gint64 next_c;                /* the next output's centre row */
  gboolean started;             /* rows before 0 are filled */

  /* The last rows of a chunk whose middle was read in place: they go to
   * the front of the work block at the next call, once the caller is done
   * with the blocks of this one. */
  guint8 *pending;
  gsize n_pending;

  /* wrap only: padded copies of the first rows, and the last rows */
  guint8 *first_rows;
  gsize n_first;
  guint8 *end_rows;
  gsize n_end;
  guint64 total;
  gboolean have_end;

  /* plan_halo_set_context_rows(): the first / last h[0] rows are context */
  gboolean lead_context;
  gboolean trail_context;
};

static gboolean
check_valid_fits (const PlanArrayInfo * info, const guint * halo,
    GError ** error)
{
  guint k;

  for (k = 0; k < info->ndim; k++) {
    gint64 need = 2 * (gint64) halo[k] + 1;

    /* An axis the window does not reach along (a halo of 0) keeps its
     * length, none included: numpy's slicing of no rows is no rows. */
    if (halo[k] > 0 && info->shape[k] >= 0 && info->shape[k] < need) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "axis %u of the array has %" G_GINT64_FORMAT " elements but the "
          "window spans %" G_GINT64_FORMAT "; with boundary=valid the "
          "output would be empty", k, info->shape[k], need);
      return FALSE;
    }
  }
  return TRUE;
}

static void
compute_layout (PlanHalo * halo)
{
  gint k;

  halo->inner_padded = FALSE;
  halo->pstride[halo->ndim - 1] = 1;
  halo->istride[halo->ndim - 1] = 1;
  for (k = halo->ndim - 1; k >= 1; k--) {
    halo->pshape[k] = halo->info.shape[k] + 2 * halo->pad[k];
    halo->pstride[k - 1] = halo->pstride[k] * halo->pshape[k];
    halo->istride[k - 1] = halo->istride[k] * halo->info.shape[k];
    if (halo->pad[k] > 0)
      halo->inner_padded = TRUE;
  }
  halo->in_row_bytes = halo->istride[0] * halo->esize;
  halo->prow_bytes = halo->pstride[0] * halo->esize;
}

/* One row of cval in the current layout. */
static void
make_fill (PlanHalo * halo)
{
  gsize k;

  g_free (halo->fill);
  halo->fill = g_malloc (halo->prow_bytes);
  for (k = 0; k < halo->pstride[0]; k++)
    memcpy (halo->fill + k * halo->esize, halo->cval, halo->esize);
}

/**
 * plan_halo_size_for_window:
 * @window: a #PlanWindow
 * @input: the array the window slides over
 * @halo: (out caller-allocates) (array fixed-size=8): for each axis of
 *   @input, how many cells the window reaches beyond the centre on each
 *   side; 0 for the axes it does not cover
 * @error: return location for an error
 *
 * Lays @window onto @input's axes as planstencil does: a one-row window
 * onto the last axis, a taller one onto the last two, one of several
 * planes onto the last three: the @halo to give plan_halo_new().
 *
 * Returns: %TRUE, or %FALSE with @error set when @input has too few axes
 *   for the window.
 *
 * Since: 0.1
 */
gboolean
plan_halo_size_for_window (const PlanWindow * window, const PlanArrayInfo * input,
    guint * halo, GError ** error)
{
  guint ndim = input->ndim, height = plan_window_get_height (window);
  guint depth = plan_window_get_depth (window);
  gchar *shape;

  if (ndim == 0 || (height > 1 && ndim < 2) || (depth > 1 && ndim < 3))
    goto too_few_axes;
  memset (halo, 0, sizeof (guint) * PLAN_ARRAY_MAX_DIMS);
  halo[ndim - 1] = plan_window_get_width (window) / 2;
  if (height > 1)
    halo[ndim - 2] = height / 2;
  if (depth > 1)
    halo[ndim - 3] = depth / 2;
  return TRUE;

  /* ERRORS */
too_few_axes:
  {
    shape = plan_shape_to_string (input->ndim, input->shape);
    if (depth > 1)
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "the window has %u planes but the input, of shape %s, has %u %s; "
          "a window of several planes needs an input of at least 3 axes",
          depth, shape, ndim, ndim == 1 ? "axis" : "axes");
    else
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "the window has %u rows but the input, of shape %s, has %u %s; "
          "a window of several rows needs an input of at least 2 axes, a "
          "one-row window at least 1", height, shape, ndim,
          ndim == 1 ? "axis" : "axes");
    g_free (shape);
    return FALSE;
  }
}

/**
 * plan_halo_new:
 * @info: the input array: dtype and shape (`shape[0]` may be -1)
 * @halo: (array): for each axis of @info, how many cells the stencil reads
 *   on each side of its centre
 * @boundary: what cells outside the array hold
 * @cval: the value of those cells for %PLAN_BOUNDARY_CONSTANT
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): a new #PlanHalo, or %NULL with
 *   @error set: a 0-d array, a padded row too large, or (with
 *   %PLAN_BOUNDARY_VALID) an axis shorter than the window.
 *
 * Since: 0.1
 */
PlanHalo *
plan_halo_new (const PlanArrayInfo * info, const guint * halo,
    PlanBoundary boundary, gdouble cval, GError ** error)
{
  PlanHalo *self;
  PlanArrayInfo checked;
  GError *shape_error = NULL;
  guint k;
  guint64 row = 1;

  g_return_val_if_fail (info != NULL, NULL);
  g_return_val_if_fail (halo != NULL, NULL);

  if (info->ndim == 0) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "a stencil needs an array of at least one axis, not a single value");
    return NULL;
  }
  /* An info filled in by hand gets plan_array_info_set()'s checks: the
   * boundary rules divide by the length of an inner axis, which must not
   * be 0. */
  if (!plan_array_info_set (&checked, info->dtype, info->ndim, info->shape,
          &shape_error)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "a stencil's input array info is not valid: %s",
        shape_error->message);
    g_error_free (shape_error);
    return NULL;
  }
  if (boundary == PLAN_BOUNDARY_VALID && !check_valid_fits (info, halo, error))
    return NULL;
  for (k = 1; k < info->ndim; k++) {
    row *= info->shape[k] + 2 * (guint64) halo[k];
    if (row > G_MAXSIZE / 16 / plan_dtype_get_size (info->dtype)) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "a padded row of the array would be too large to hold in memory");
      return NULL;
    }
  }

  self = g_new0 (PlanHalo, 1);
  self->info = *info;
  self->boundary = boundary;
  self->ndim = info->ndim;
  self->esize = plan_dtype_get_size (info->dtype);
  self->n_threads = 1;
  for (k = 0; k < info->ndim; k++) {
    self->h[k] = halo[k];
    self->pad[k] = boundary == PLAN_BOUNDARY_VALID ? 0 : halo[k];
  }
  plan_boundary_fill_from_double (info->dtype, cval, self->cval);
  compute_layout (self);
  make_fill (self);
  plan_halo_reset (self);
  return self;
}

/**
 * plan_halo_free:
 * @halo: (transfer full): a #PlanHalo
 *
 * Since: 0.1
 */
void
plan_halo_free (PlanHalo * halo)
{
  g_return_if_fail (halo != NULL);

  g_free (halo->work);
  g_free (halo->pending);
  g_free (halo->first_rows);
  g_free (halo->end_rows);
  g_free (halo->fill);
  g_free (halo->edge_cols);
  g_free (halo->edges);
  g_free (halo);
}

/**
 * plan_halo_get_output_info:
 * @halo: a #PlanHalo
 * @output: (out caller-allocates): the shape of the output
 *
 * The stencil's output has the input's shape, or with
 * %PLAN_BOUNDARY_VALID one shrunk by twice the halo along each axis (an
 * unknown number of rows stays unknown). The dtype is the input's; a
 * stencil sets its own.
 *
 * Since: 0.1
 */
void
plan_halo_get_output_info (PlanHalo * halo, PlanArrayInfo * output)
{
  guint k;

  g_return_if_fail (halo != NULL && output != NULL);

  *output = halo->info;
  if (halo->boundary != PLAN_BOUNDARY_VALID)
    return;
  for (k = 0; k < halo->ndim; k++) {
    if (output->shape[k] >= 0)
      output->shape[k] -= 2 * halo->h[k];
  }
}

/* plan_halo_set_n_threads: private to libplan.
 * @halo: a #PlanHalo
 * @n_threads: how many threads may pad rows, 0 for one per core
 */
void
plan_halo_set_n_threads (PlanHalo * halo, guint n_threads)
{
  g_return_if_fail (halo != NULL);

  halo->n_threads = n_threads;
}

/**
 * plan_halo_reset:
 * @halo: a #PlanHalo
 *
 * Forgets the rows seen so far (and the end rows given), to start a new
 * stream.
 *
 * Since: 0.1
 */
void
plan_halo_reset (PlanHalo * halo)
{
  g_return_if_fail (halo != NULL);

  halo->received = 0;
  /* Only the padding modes with a halo along the first axis have rows
   * before row 0 to fill. */
  halo->started = halo->boundary == PLAN_BOUNDARY_VALID || halo->h[0] == 0
      || halo->lead_context;
  if (halo->boundary == PLAN_BOUNDARY_VALID || halo->lead_context) {
    halo->base = 0;
    halo->next_c = halo->h[0];
  } else {
    halo->base = -(gint64) halo->h[0];
    halo->next_c = 0;
  }
  halo->n_first = 0;
  halo->n_pending = 0;
  g_clear_pointer (&halo->end_rows, g_free);
  halo->n_end = 0;
  halo->total = 0;
  halo->have_end = FALSE;
}

/**
 * plan_halo_set_pad_inner:
 * @halo: a #PlanHalo
 * @pad_inner: %FALSE to keep rows unpadded and leave the ends of the last
 *   axis to the caller
 *
 * By default every row is copied into a work block and padded along the
 * inner axes, so that a stencil reads every cell of every output at a
 * fixed offset. With @pad_inner %FALSE, on a 2-D array in a padding mode,
 * rows are kept as they come and the middle of a long chunk is read in
 * place: the blocks then have the input's strides and cover whole rows,
 * but the cells beyond either end of a row are not there (the offsets
 * reach into the row before or after, or outside the block at its first
 * and last output). The caller computes the outputs at least the halo
 * away from both ends from the block, and the others from the padded
 * blocks that plan_halo_get_edges() gives. A stencil computing each
 * output from its cells at fixed offsets can so run over all the rows of
 * a block as one contiguous run from its first output that is far enough
 * from the start of its row, then overwrite the outputs near the ends.
 *
 * On a 1-D array, where there is no inner axis, this changes nothing and
 * returns %TRUE. The arrays it cannot serve keep their padding and it
 * returns %FALSE: more than two axes, %PLAN_BOUNDARY_VALID with a halo
 * along the rows, or rows not longer than twice the halo along them. Call
 * it before the first plan_halo_push() of a stream (or after
 * plan_halo_reset()).
 *
 * Returns: %TRUE when rows are kept unpadded
 *
 * Since: 0.1
 */
gboolean
plan_halo_set_pad_inner (PlanHalo * halo, gboolean pad_inner)
{
  gint64 w, c;
  guint h;

  g_return_val_if_fail (halo != NULL, FALSE);

  if (halo->ndim == 1)
    return TRUE;
  h = halo->h[1];
  w = halo->info.shape[1];
  if (!pad_inner && (halo->ndim > 2 || (halo->boundary == PLAN_BOUNDARY_VALID
              && h > 0) || w <= 2 * (gint64) h))
    return FALSE;
  if (halo->edges_by_caller == !pad_inner)
    return !pad_inner;

  halo->edges_by_caller = !pad_inner;
  halo->pad[1] = pad_inner && halo->boundary != PLAN_BOUNDARY_VALID ? h : 0;
  compute_layout (halo);
  make_fill (halo);
  g_clear_pointer (&halo->work, g_free);
  halo->work_rows = 0;
  g_clear_pointer (&halo->pending, g_free);
  g_clear_pointer (&halo->first_rows, g_free);
  g_clear_pointer (&halo->edge_cols, g_free);
  if (halo->edges_by_caller && h > 0) {
    /* The left strip holds columns [-h, 2h), the right [w - 2h, w + h). */
    halo->edge_cols = g_new (gint64, 6 * h);
    for (c = 0; c < 3 * (gint64) h; c++) {
      halo->edge_cols[c] = plan_boundary_map_index (halo->boundary, c - h, w);
      halo->edge_cols[3 * h + c] =
          plan_boundary_map_index (halo->boundary, w - 2 * h + c, w);
    }
  }
  plan_halo_reset (halo);
  return halo->edges_by_caller;
}

/**
 * plan_halo_set_context_rows:
 * @halo: a #PlanHalo
 * @leading: %TRUE when the stream's first rows follow rows of a longer
 *   stream that come elsewhere
 * @trailing: %TRUE when the stream's last rows are followed by rows of a
 *   longer stream that come elsewhere
 *
 * Makes the stream one piece of a longer one (a rank's share of rows
 * sharded across processes, with its neighbours' rows around it). With
 * @leading, the first halo rows along the first axis are context: the
 * outputs next to them read them, but they have no output of their own
 * and no boundary rows are made before them (with %PLAN_BOUNDARY_WRAP no
 * end rows are asked for); output row 0 is centred on input row `h`. With
 * @trailing, likewise the last halo rows: plan_halo_finish() makes no
 * boundary rows after them. A stream with context rows at both ends so
 * has `2 h` fewer output rows than input rows, one at one end `h` fewer.
 * With %PLAN_BOUNDARY_VALID, where no boundary rows are made anyway, the
 * rows are the same; a piece too short to have any output is then no
 * error at plan_halo_finish() (the whole stream is the caller's to
 * check).
 *
 * The halo along the other axes is unchanged. Call it before the first
 * plan_halo_push() of a stream: it starts the stream over
 * (plan_halo_reset()), and it stays for the streams after.
 *
 * Since: 0.1
 */
void
plan_halo_set_context_rows (PlanHalo * halo, gboolean leading,
    gboolean trailing)
{
  g_return_if_fail (halo != NULL);

  halo->lead_context = leading;
  halo->trail_context = trailing;
  plan_halo_reset (halo);
}

/**
 * plan_halo_get_edges:
 * @halo: a #PlanHalo whose rows are kept unpadded
 *   (see plan_halo_set_pad_inner())
 * @block: a block @halo just gave
 * @edges: (out caller-allocates) (array fixed-size=2): room for two blocks
 *
 * Pads the ends of the rows of @block into blocks of their own:
 * `edges[0]` covers the first `h` outputs of each row of @block and
 * `edges[1]` its last `h`, `h` being the halo along the rows; each has
 * @block's rows, `h` columns and padded strides, every cell of every
 * window there. They point into memory of @halo, valid until the next
 * call on it. Within each, every output's cells lie in one run of memory
 * from the first output's first cell to the last output's last, so that
 * the two can also be computed as one contiguous run starting at
 * `edges[0].origin` that covers `edges[1]`'s outputs at
 * `edges[1].origin - edges[0].origin` further, with values between them
 * that are not outputs of either.
 *
 * Returns: the number of edge blocks: 2, or 0 when rows are padded (or
 *   have no halo along them)
 *
 * Since: 0.1
 */
guint
plan_halo_get_edges (PlanHalo * halo, const PlanHaloBlock * block,
    PlanHaloBlock * edges)
{
  guint h, c, k;
  gsize esize, strip, n_lines, i, need;
  gint64 w;

  g_return_val_if_fail (halo != NULL && block != NULL && edges != NULL, 0);

  if (!halo->edges_by_caller || halo->ndim != 2 || halo->h[1] == 0
      || block->n_rows == 0)
    return 0;
  h = halo->h[1];
  w = halo->info.shape[1];
  esize = halo->esize;
  strip = 6 * h;
  n_lines = block->n_rows + 2 * halo->h[0];
  need = n_lines * strip * esize;
  if (need > halo->edges_size) {
    g_free (halo->edges);
    halo->edges = g_malloc (need);
    halo->edges_size = need;
  }
  for (i = 0; i < n_lines; i++) {
    const guint8 *row = (const guint8 *) block->origin +
        ((gssize) i - halo->h[0]) * w * esize;
    guint8 *dst = halo->edges + i * strip * esize;

    for (c = 0; c < strip; c++) {
      gint64 j = halo->edge_cols[c];
      memcpy (dst + c * esize, j >= 0 ? row + j * esize : halo->cval, esize);
    }
  }
  for (k = 0; k < 2; k++) {
    memset (&edges[k], 0, sizeof (edges[k]));
    edges[k].first_row = block->first_row;
    edges[k].n_rows = block->n_rows;
    edges[k].ndim = 2;
    edges[k].shape[0] = block->n_rows;
    edges[k].shape[1] = h;
    edges[k].strides[0] = strip;
    edges[k].strides[1] = 1;
    edges[k].origin = halo->edges + (halo->h[0] * strip + h + 3 * h * k) *
        esize;
  }
  return 2;
}

/* Pads one input row into one padded row, axis by axis from the innermost
 * outwards. */
static void
pad_axis (PlanHalo * halo, const guint8 * src, guint8 * dst, guint axis)
{
  gsize n = halo->info.shape[axis];
  gsize pstride = halo->pstride[axis] * halo->esize;
  gsize i;

  if (axis == halo->ndim - 1) {
    plan_boundary_pad_line (halo->boundary, halo->esize, src, n,
        halo->pad[axis], halo->pad[axis], halo->fill, dst);
    return;
  }
  for (i = 0; i < n; i++)
    pad_axis (halo, src + i * halo->istride[axis] * halo->esize,
        dst + (i + halo->pad[axis]) * pstride, axis + 1);
  plan_boundary_pad_line (halo->boundary, pstride, NULL, n, halo->pad[axis],
      halo->pad[axis], halo->fill, dst);
}

typedef struct
{
  PlanHalo *halo;
  const guint8 *src;
  guint8 *dst;
} PadJob;

static void
pad_range (gsize begin, gsize end, gpointer data)
{
  PadJob *job = data;
  PlanHalo *halo = job->halo;
  gsize r;

  if (!halo->inner_padded) {
    memcpy (job->dst + begin * halo->prow_bytes,
        job->src + begin * halo->in_row_bytes,
        (end - begin) * halo->prow_bytes);
    return;
  }
  for (r = begin; r < end; r++)
    pad_axis (halo, job->src + r * halo->in_row_bytes,
        job->dst + r * halo->prow_bytes, 1);
}

/* Copies and pads rows on the worker threads, a few hundred KiB each. */
static void
pad_rows (PlanHalo * halo, const guint8 * src, guint8 * dst, gsize n_rows)
{
  PadJob job = { halo, src, dst };

  plan_parallel_for (halo->n_threads, n_rows,
      MAX (1, (256 << 10) / halo->prow_bytes), pad_range, &job);
}

static guint8 *
work_row (PlanHalo * halo, gint64 row)
{
  return halo->work + (row - halo->base) * halo->prow_bytes;
}

static void
ensure_work_rows (PlanHalo * halo, gsize rows)
{
  if (rows <= halo->work_rows)
    return;
  rows = MAX (rows, halo->work_rows + halo->work_rows / 2);
  halo->work = g_realloc (halo->work, rows * halo->prow_bytes);
  halo->work_rows = rows;
}

/* The padded row @row (in [0, n)) of the stream, wherever it is kept. */
static const guint8 *
source_row (PlanHalo * halo, gint64 row)
{
  if (row < 0)
    return halo->fill;
  if (row >= halo->base && row < (gint64) halo->received)
    return work_row (halo, row);
  if (row < (gint64) halo->n_first)
    return halo->first_rows + row * halo->prow_bytes;
  g_assert (halo->have_end && row >= (gint64) (halo->total - halo->n_end));
  return halo->end_rows + (row - (halo->total - halo->n_end)) *
      halo->prow_bytes;
}

/* Fills the virtual rows [first, first + count) from the boundary rule
 * for a stream of @n rows. */
static void
fill_virtual_rows (PlanHalo * halo, gint64 first, gsize count, gint64 n)
{
  gsize i;

  for (i = 0; i < count; i++) {
    gint64 row = first + i;
    gint64 j = plan_boundary_map_index (halo->boundary, row, n);

    memcpy (work_row (halo, row), source_row (halo, j), halo->prow_bytes);
  }
}

/* Fills in what every block of @halo shares; returns the offset in
 * elements from a row's first padded cell to its first output's centre. */
static gsize
block_geometry (PlanHalo * halo, PlanHaloBlock * block)
{
  gsize offset = 0;
  guint k;

  memset (block, 0, sizeof (*block));
  block->ndim = halo->ndim;
  block->contiguous = !halo->inner_padded;
  for (k = 0; k < halo->ndim; k++) {
    block->strides[k] = halo->pstride[k];
    if (k > 0 && halo->edges_by_caller) {
      block->shape[k] = halo->info.shape[k];
    } else if (k > 0) {
      block->shape[k] = halo->info.shape[k] - 2 * (halo->h[k] - halo->pad[k]);
      offset += halo->h[k] * halo->pstride[k];
      if (halo->boundary == PLAN_BOUNDARY_VALID && halo->h[k] > 0)
        block->contiguous = FALSE;
    }
  }
  return offset;
}

/* The centre row of output row 0: the rows before it have no output of
 * their own with boundary=valid and when they are context. */
static gint64
first_centre (PlanHalo * halo)
{
  return halo->boundary == PLAN_BOUNDARY_VALID || halo->lead_context ?
      halo->h[0] : 0;
}

/* Makes a block of the outputs centred on rows [next_c, c_end), read
 * from @rows, whose first row is row @rows_first of the stream (the work
 * block when @rows is NULL). Returns FALSE when there are none. */
static gboolean
take_block (PlanHalo * halo, gint64 c_end, const guint8 * rows,
    gint64 rows_first, PlanHaloBlock * block)
{
  gsize offset = block_geometry (halo, block);

  if (c_end <= halo->next_c)
    return FALSE;
  if (rows == NULL) {
    rows = halo->work;
    rows_first = halo->base;
  }
  block->n_rows = c_end - halo->next_c;
  block->shape[0] = block->n_rows;
  block->first_row = halo->next_c - first_centre (halo);
  block->origin = rows + (halo->next_c - rows_first) * halo->prow_bytes +
      offset * halo->esize;
  halo->next_c = c_end;
  return TRUE;
}

/**
 * plan_halo_needs_end_rows:
 * @halo: a #PlanHalo
 * @n_rows: the number of rows about to be pushed
 * @n_end_rows: (out) (optional): how many of the stream's last rows it
 *   needs
 *
 * With %PLAN_BOUNDARY_WRAP and a halo along the first axis, the first
 * output needs the last rows of the stream. Ask before each
 * plan_halo_push(); when this returns %TRUE, give them with
 * plan_halo_set_end_rows() first. A stream shorter than the halo never
 * needs them: its rows are all at hand when it ends.
 *
 * Returns: %TRUE when the end rows are needed before pushing @n_rows
 *
 * Since: 0.1
 */
gboolean
plan_halo_needs_end_rows (PlanHalo * halo, gsize n_rows, gsize * n_end_rows)
{
  g_return_val_if_fail (halo != NULL, FALSE);

  if (n_end_rows)
    *n_end_rows = halo->h[0];
  return halo->boundary == PLAN_BOUNDARY_WRAP && halo->h[0] > 0
      && !halo->lead_context && !halo->have_end && !halo->started
      && halo->received + n_rows > halo->h[0];
}

/**
 * plan_halo_set_end_rows:
 * @halo: a #PlanHalo
 * @total_rows: the number of rows of the whole stream
 * @rows: (array): the last @n_rows rows of the stream, unpadded
 * @n_rows: the number of rows, as plan_halo_needs_end_rows() asked (or all
 *   rows when the stream is shorter)
 * @error: return location for a #GError
 *
 * Returns: %TRUE, or %FALSE with @error set when @n_rows is too few or
 *   more than @total_rows
 *
 * Since: 0.1
 */
gboolean
plan_halo_set_end_rows (PlanHalo * halo, guint64 total_rows,
    gconstpointer rows, gsize n_rows, GError ** error)
{
  g_return_val_if_fail (halo != NULL, FALSE);

  if (n_rows > total_rows || n_rows < MIN (halo->h[0], total_rows)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "got %" G_GSIZE_FORMAT " of the last rows of a stream of %"
        G_GUINT64_FORMAT " rows but wrap needs its last %u rows", n_rows,
        total_rows, halo->h[0]);
    return FALSE;
  }
  g_free (halo->end_rows);
  halo->end_rows = g_malloc (MAX (n_rows, 1) * halo->prow_bytes);
  pad_rows (halo, rows, halo->end_rows, n_rows);
  halo->n_end = n_rows;
  halo->total = total_rows;
  halo->have_end = TRUE;
  return TRUE;
}

/* Moves the rows kept aside by the last call to the front of the work
 * block. */
static void
settle_pending (PlanHalo * halo)
{
  if (halo->n_pending == 0)
    return;
  ensure_work_rows (halo, halo->n_pending);
  memcpy (halo->work, halo->pending, halo->n_pending * halo->prow_bytes);
  halo->base = halo->received - halo->n_pending;
  halo->n_pending = 0;
}

/* Drops the rows no output needs any more. */
static void
compact (PlanHalo * halo)
{
  gint64 keep = halo->next_c - halo->h[0];

  if (keep <= halo->base || !halo->started)
    return;
  /* Before the first rows arrive there is no buffer yet. */
  if (halo->work != NULL)
    memmove (halo->work, work_row (halo, keep),
        (halo->received - keep) * halo->prow_bytes);
  halo->base = keep;
}

static void
keep_first_rows (PlanHalo * halo, const guint8 * rows, gsize n_rows)
{
  gsize n = MIN (n_rows, halo->h[0] - halo->n_first);

  if (halo->first_rows == NULL)
    halo->first_rows = g_malloc (halo->h[0] * halo->prow_bytes);
  memcpy (halo->first_rows + halo->n_first * halo->prow_bytes,
      work_row (halo, halo->n_first), n * halo->prow_bytes);
  halo->n_first += n;
}

/* Fills the rows before row 0, once at least h0 + 1 rows have come (so
 * that they no longer depend on the length of the stream, except for
 * wrap, which has the end rows by then). */
static void
start_if_ready (PlanHalo * halo, gint64 c_end)
{
  if (halo->started || c_end <= halo->next_c)
    return;
  if (halo->boundary != PLAN_BOUNDARY_VALID)
    fill_virtual_rows (halo, -(gint64) halo->h[0], halo->h[0],
        halo->have_end ? (gint64) halo->total : (gint64) halo->received);
  halo->started = TRUE;
}

/* Appends @n_rows rows to the work block. */
static void
append_rows (PlanHalo * halo, const guint8 * rows, gsize n_rows)
{
  ensure_work_rows (halo, halo->received + n_rows - halo->base + halo->h[0]);
  pad_rows (halo, rows, work_row (halo, halo->received), n_rows);
  if (halo->boundary == PLAN_BOUNDARY_WRAP && !halo->trail_context
      && halo->n_first < halo->h[0])
    keep_first_rows (halo, rows, n_rows);
  halo->received += n_rows;
}

/* A chunk with nothing to pad along the inner axes and more rows than
 * two halos: only its first and last halos are copied; the outputs in
 * between are read from @rows in place. */
static guint
push_in_place (PlanHalo * halo, const guint8 * rows, gsize n_rows,
    PlanHaloBlock * blocks)
{
  guint64 first = halo->received;
  gsize h2 = 2 * halo->h[0];
  guint n = 0;

  append_rows (halo, rows, h2);
  start_if_ready (halo, halo->received - halo->h[0]);
  if (take_block (halo, halo->received - halo->h[0], NULL, 0, &blocks[n]))
    n++;
  halo->received = first + n_rows;
  if (take_block (halo, halo->received - halo->h[0], rows, first, &blocks[n]))
    n++;

  if (halo->pending == NULL)
    halo->pending = g_malloc (MAX (h2, 1) * halo->prow_bytes);
  memcpy (halo->pending, rows + (n_rows - h2) * halo->prow_bytes,
      h2 * halo->prow_bytes);
  halo->n_pending = h2;
  return n;
}

/**
 * plan_halo_push:
 * @halo: a #PlanHalo
 * @rows: (array): the next @n_rows rows of the stream, C-contiguous
 * @n_rows: the number of rows
 * @blocks: (out caller-allocates) (array fixed-size=2): room for
 *   #PLAN_HALO_MAX_BLOCKS blocks
 * @n_blocks: (out): how many blocks of outputs can now be computed, 0 when
 *   none can yet; they cover consecutive output rows, in order
 * @error: return location for a #GError
 *
 * Takes the next rows and says which outputs are now complete. Rows are
 * copied (and padded) into the work block, except, when there is nothing
 * to pad along the inner axes, the middle of a chunk longer than two
 * halos: a block may then point into @rows, which must stay valid until
 * the caller is done with the blocks.
 *
 * Returns: %TRUE, or %FALSE with @error set (the end rows that
 *   plan_halo_needs_end_rows() asked for were not given)
 *
 * Since: 0.1
 */
gboolean
plan_halo_push (PlanHalo * halo, gconstpointer rows, gsize n_rows,
    PlanHaloBlock * blocks, guint * n_blocks, GError ** error)
{
  g_return_val_if_fail (halo != NULL, FALSE);
  g_return_val_if_fail (blocks != NULL && n_blocks != NULL, FALSE);

  *n_blocks = 0;
  if (plan_halo_needs_end_rows (halo, n_rows, NULL))
    goto no_end_rows;

  settle_pending (halo);
  compact (halo);
  if (!halo->inner_padded && n_rows > 2 * halo->h[0]) {
    *n_blocks = push_in_place (halo, rows, n_rows, blocks);
    return TRUE;
  }

  append_rows (halo, rows, n_rows);
  start_if_ready (halo, halo->received - halo->h[0]);
  if (take_block (halo, halo->received - halo->h[0], NULL, 0, blocks))
    *n_blocks = 1;
  return TRUE;

  /* ERRORS */
no_end_rows:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "boundary=wrap along the first axis needs the last %u rows of the "
        "stream before the first output, and they were not given", halo->h[0]);
    return FALSE;
  }
}

/**
 * plan_halo_finish:
 * @halo: a #PlanHalo
 * @blocks: (out caller-allocates) (array fixed-size=2): room for
 *   #PLAN_HALO_MAX_BLOCKS blocks
 * @n_blocks: (out): how many blocks hold the last outputs (0 or 1)
 * @error: return location for a #GError
 *
 * Ends the stream: pads the rows after the last one and returns the output
 * rows still held back. plan_halo_reset() starts a new stream.
 *
 * Returns: %TRUE, or %FALSE with @error set: with %PLAN_BOUNDARY_VALID a
 *   stream shorter than the window, with %PLAN_BOUNDARY_WRAP a stream
 *   whose length differs from the total given with the end rows
 *
 * Since: 0.1
 */
gboolean
plan_halo_finish (PlanHalo * halo, PlanHaloBlock * blocks, guint * n_blocks,
    GError ** error)
{
  gint64 n;

  g_return_val_if_fail (halo != NULL, FALSE);
  g_return_val_if_fail (blocks != NULL && n_blocks != NULL, FALSE);

  *n_blocks = 0;
  n = halo->received;
  if (halo->have_end && halo->total != (guint64) n)
    goto wrong_total;
  if (halo->boundary == PLAN_BOUNDARY_VALID) {
    /* A piece of a longer stream may have no output at all. */
    if (halo->h[0] > 0 && n < 2 * (gint64) halo->h[0] + 1
        && !halo->lead_context
        && !halo->trail_context)
      goto too_short;
    return TRUE;
  }
  if (n == 0)
    return TRUE;

  settle_pending (halo);
  compact (halo);
  ensure_work_rows (halo, n - halo->base + halo->h[0]);
  if (!halo->started) {
    fill_virtual_rows (halo, -(gint64) halo->h[0], halo->h[0], n);
    halo->started = TRUE;
  }
  if (halo->trail_context) {
    /* The last rows were context: their outputs came with the pushes. */
    if (take_block (halo, n - halo->h[0], NULL, 0, blocks))
      *n_blocks = 1;
    return TRUE;
  }
  fill_virtual_rows (halo, n, halo->h[0], n);
  if (take_block (halo, n, NULL, 0, blocks))
    *n_blocks = 1;
  return TRUE;

  /* ERRORS */
wrong_total:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "the stream has %" G_GINT64_FORMAT " rows but its source said %"
        G_GUINT64_FORMAT " when asked for its last rows for boundary=wrap",
        n, halo->total);
    return FALSE;
  }
too_short:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "the stream has %" G_GINT64_FORMAT " rows but the window spans %u "
        "along the first axis; with boundary=valid the output would be "
        "empty", n, 2 * halo->h[0] + 1);
    return FALSE;
  }
}

/**
 * plan_halo_block_get_offset:
 * @block: a #PlanHaloBlock
 * @delta: (array): an offset from the centre along each of the block's axes
 *
 * Returns: how many elements from an output's centre the cell at @delta
 *   lies in the padded block
 *
 * Since: 0.1
 */
gssize
plan_halo_block_get_offset (const PlanHaloBlock * block, const gint * delta)
{
  gssize offset = 0;
  guint k;

  g_return_val_if_fail (block != NULL && delta != NULL, 0);

  for (k = 0; k < block->ndim; k++)
    offset += delta[k] * block->strides[k];
  return offset;
}
