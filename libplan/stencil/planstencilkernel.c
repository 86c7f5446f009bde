/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planstencilkernel
 * @title: PlanStencilKernel
 * @short_description: a windowed expression over a stream of rows, on the
 *   host or on a device
 *
 * What planstencil computes, for any element that needs it: an expression
 * of the cells of a #PlanWindow around each element of an array that
 * arrives in chunks of rows, with a #PlanBoundary rule for the cells
 * outside. A one-row window runs along the last axis, a taller one over
 * the last two.
 *
 * On the host, the rows go in with plan_stencil_kernel_push() (through
 * the kernel's #PlanHalo) and plan_stencil_kernel_eval() computes the
 * blocks it hands out, on shifted views with no test at the edges, split
 * across worker threads; plan_stencil_kernel_finish() gives the last
 * ones.
 *
 * plan_stencil_kernel_new_iterated() applies the window several times,
 * each time to the output of the time before: on the host the rows go
 * through the applications before the last in small pieces, each piece
 * through all of them while it is in the cache (temporal blocking); on a
 * device each chunk's kernels are queued one after the other.
 *
 * On a device, plan_stencil_kernel_launch() takes each chunk in device
 * memory and queues, on a stream, the kernel for the output rows the
 * chunk completes, then the device-to-device copies that keep the rows
 * the next chunk's windows still need (twice the halo along the streaming
 * axis, and for `wrap` the stream's first rows): nothing goes through
 * the host and nothing waits. plan_stencil_kernel_push_rows() says
 * beforehand how many output rows a chunk gives, so that the caller can
 * get a buffer for them; plan_stencil_kernel_finish_rows() and
 * plan_stencil_kernel_launch_finish() compute the last rows at the end of
 * the stream. `wrap` along the streaming axis needs the stream's last rows
 * before the first output: plan_stencil_kernel_needs_end_rows() says when,
 * and plan_stencil_kernel_set_end_rows() uploads them once. On a CUDA
 * device the kernel is CUDA C generated from the expression
 * (plan_stencil_kernel_to_cuda(), compiled by NVRTC once per stencil and
 * device); on the cpu and sim devices the same index arithmetic
 * (kernels/cuda/stencil_index.h) runs as a host kernel around the CPU
 * evaluator, so the sim device gives the CPU target's bits.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planstencilkernel-private.h"

GST_DEBUG_CATEGORY (plan_stencil_kernel_debug);
#define GST_CAT_DEFAULT plan_stencil_kernel_debug

/* Kernels are made on the elements' threads: once, for all of them. */
static void
init_debug (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (plan_stencil_kernel_debug, "planstencilkernel",
        0, "Stencils on the host and on devices");
    g_once_init_leave (&done, 1);
  }
}

/* The window's offsets along the input's axes, and the geometry of the
 * device path. */
static void
map_window (PlanStencilKernel * self, const PlanArrayInfo * inputs,
    const guint * halo)
{
  Geometry *g = &self->geom;
  guint ndim = self->input.ndim, i, j, k, n = 0;
  gint64 stride = 1;

  self->n_names = 0;
  for (j = 0; j < self->n_inputs; j++)
    self->n_names += plan_window_get_n_names (self->windows[j]);
  self->deltas = g_malloc0_n (MAX (self->n_names, 1), sizeof (*self->deltas));
  self->offsets = g_new0 (gssize, MAX (self->n_names, 1));
  self->name_input = g_new0 (guint, MAX (self->n_names, 1));
  self->name_esize = g_new0 (gsize, MAX (self->n_names, 1));
  for (j = 0; j < self->n_inputs; j++) {
    for (i = 0; i < plan_window_get_n_names (self->windows[j]); i++, n++) {
      gint dz, dy, dx;

      plan_window_get_offset_3d (self->windows[j], i, &dz, &dy, &dx);
      self->deltas[n][ndim - 1] = dx;
      if (ndim >= 2)
        self->deltas[n][ndim - 2] = dy;
      if (ndim >= 3)
        self->deltas[n][ndim - 3] = dz;
      self->name_input[n] = j;
      self->name_esize[n] = plan_dtype_get_size (inputs[j].dtype);
    }
  }

  memset (g, 0, sizeof (*g));
  g->ndim = ndim;
  g->n_names = self->n_names;
  g->boundary = self->boundary;
  g->in_esize = plan_dtype_get_size (self->input.dtype);
  g->out_row_elems = 1;
  for (k = ndim - 1; k >= 1; k--) {
    gboolean valid = self->boundary == PLAN_BOUNDARY_VALID;

    g->ishape[k] = self->input.shape[k];
    g->oshape[k] = self->input.shape[k] - (valid ? 2 * halo[k] : 0);
    g->shift[k] = valid ? halo[k] : 0;
    g->istride[k] = stride;
    stride *= g->ishape[k];
    g->out_row_elems *= g->oshape[k];
  }
  for (k = 0; k < ndim; k++)
    g->halo[k] = halo[k];
  g->in_row_bytes = stride * g->in_esize;
  g->line_len = ndim >= 2 ? (gsize) g->oshape[ndim - 1] : 1;
}

/**
 * plan_stencil_kernel_new:
 * @window: the window
 * @expr: the expression, in the names of @window's cells
 * @input: the input array's dtype and shape (`shape[0]` may be -1)
 * @boundary: what cells outside the array hold
 * @cval: their value with %PLAN_BOUNDARY_CONSTANT
 * @error: return location for an error
 *
 * Lays @window onto @input's axes (a one-row window onto the last axis, a
 * taller one onto the last two) and compiles @expr for it.
 *
 * Returns: (transfer full) (nullable): the stencil, or %NULL with @error
 *   set: too few axes for the window, an axis shorter than the window
 *   with %PLAN_BOUNDARY_VALID, or an expression that does not compile.
 *
 * Since: 0.1
 */
PlanStencilKernel *
plan_stencil_kernel_new (const PlanWindow * window, const gchar * expr,
    const PlanArrayInfo * input, PlanBoundary boundary, gdouble cval,
    GError ** error)
{
  g_return_val_if_fail (window != NULL, NULL);
  g_return_val_if_fail (expr != NULL, NULL);
  g_return_val_if_fail (input != NULL, NULL);

  return plan_stencil_kernel_new_inputs (1, &window, input, expr, boundary,
      cval, error);
}

/* Checks that every input has the first one's shape (the number of rows
 * where both know it). */
static gboolean
check_same_shapes (guint n_inputs, const PlanArrayInfo * inputs,
    GError ** error)
{
  guint j, k;

  for (j = 1; j < n_inputs; j++) {
    gboolean same = inputs[j].ndim == inputs[0].ndim;

    for (k = 0; same && k < inputs[0].ndim; k++)
      same = inputs[j].shape[k] == inputs[0].shape[k] || (k == 0
          && (inputs[j].shape[0] < 0 || inputs[0].shape[0] < 0));
    if (!same) {
      gchar *a = plan_shape_to_string (inputs[0].ndim, inputs[0].shape);
      gchar *b = plan_shape_to_string (inputs[j].ndim, inputs[j].shape);

      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "input %u has the shape %s but input 0 has %s; the inputs of a "
          "stencil have the same shape", j, b, a);
      g_free (a);
      g_free (b);
      return FALSE;
    }
  }
  return TRUE;
}

/* Checks that no name is a cell of two windows. */
static gboolean
check_names_once (guint n_inputs, const PlanWindow * const *windows,
    GError ** error)
{
  guint j, j2, i;

  for (j = 1; j < n_inputs; j++) {
    const gchar *const *names = plan_window_get_names (windows[j]);

    for (i = 0; names[i]; i++) {
      for (j2 = 0; j2 < j; j2++) {
        if (plan_window_lookup (windows[j2], names[i]) >= 0) {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_SYNTAX,
              "'%s' names a cell of the window of input %u and one of "
              "input %u; each name may be used once", names[i], j2, j);
          return FALSE;
        }
      }
    }
  }
  return TRUE;
}

/**
 * plan_stencil_kernel_new_inputs:
 * @n_inputs: the number of inputs, at least 1
 * @windows: (array length=n_inputs): each input's window, whose cells name
 *   that input's elements around the centre (a one-cell window names the
 *   input's element at the centre)
 * @inputs: (array length=n_inputs): the inputs' dtypes and shapes, all of
 *   one shape (`shape[0]` may be -1)
 * @expr: the expression, in the names of all the windows' cells
 * @boundary: what cells outside the arrays hold
 * @cval: their value with %PLAN_BOUNDARY_CONSTANT, converted to each
 *   input's dtype
 * @error: return location for an error
 *
 * A stencil over several arrays of the same shape that arrive row by row
 * together (a wave equation's `u` and `u_prev`, an FDTD step's fields):
 * each output reads the cells of every input's window around it, each
 * input padded by @boundary, its rows held back as long as the widest
 * window needs. On the host, push the inputs' rows together with
 * plan_stencil_kernel_push_inputs(), and with %PLAN_BOUNDARY_WRAP along
 * the streaming axis give each input's end rows with
 * plan_stencil_kernel_host_set_input_end_rows(). With one input this is
 * plan_stencil_kernel_new(). On a device, launch the inputs' rows together
 * with plan_stencil_kernel_launch_inputs() (and for wrap give each
 * input's end rows with plan_stencil_kernel_set_input_end_rows()); a
 * device takes up to 8 inputs, plan_stencil_kernel_prepare() refuses
 * more.
 *
 * Returns: (transfer full) (nullable): the stencil, or %NULL with @error
 *   set: inputs of different shapes, a name in two windows, too few axes
 *   for a window, an axis shorter than the window with
 *   %PLAN_BOUNDARY_VALID, or an expression that does not compile.
 *
 * Since: 0.1
 */
PlanStencilKernel *
plan_stencil_kernel_new_inputs (guint n_inputs,
    const PlanWindow * const *windows, const PlanArrayInfo * inputs,
    const gchar * expr, PlanBoundary boundary, gdouble cval,
    GError ** error)
{
  PlanStencilKernel *self;
  guint halo[PLAN_ARRAY_MAX_DIMS], h[PLAN_ARRAY_MAX_DIMS], i, j, k, n = 0;
  const gchar **names;
  PlanDType *dtypes;

  g_return_val_if_fail (n_inputs >= 1, NULL);
  g_return_val_if_fail (windows != NULL, NULL);
  g_return_val_if_fail (expr != NULL, NULL);
  g_return_val_if_fail (inputs != NULL, NULL);

  init_debug ();
  if (!check_same_shapes (n_inputs, inputs, error)
      || !check_names_once (n_inputs, windows, error))
    return NULL;
  /* The halo along each axis: the widest window's. */
  memset (halo, 0, sizeof (halo));
  for (j = 0; j < n_inputs; j++) {
    if (!plan_halo_size_for_window (windows[j], &inputs[j], h, error)) {
      if (n_inputs > 1)
        g_prefix_error (error, "input %u: ", j);
      return NULL;
    }
    for (k = 0; k < PLAN_ARRAY_MAX_DIMS; k++)
      halo[k] = MAX (halo[k], h[k]);
  }

  self = g_new0 (PlanStencilKernel, 1);
  self->window = plan_window_ref ((PlanWindow *) windows[0]);
  self->n_inputs = n_inputs;
  self->windows = g_new0 (PlanWindow *, n_inputs);
  for (j = 0; j < n_inputs; j++)
    self->windows[j] = plan_window_ref ((PlanWindow *) windows[j]);
  self->input = inputs[0];
  self->boundary = boundary;
  self->n_threads = 1;
  plan_boundary_fill_from_double (inputs[0].dtype, cval, self->cval);
  map_window (self, inputs, halo);
  self->cvals = g_malloc0_n (n_inputs, sizeof (*self->cvals));
  self->dtypes = g_new0 (PlanDType, n_inputs);
  for (j = 0; j < n_inputs; j++) {
    plan_boundary_fill_from_double (inputs[j].dtype, cval, self->cvals[j]);
    self->dtypes[j] = inputs[j].dtype;
  }
  if (n_inputs > 1)
    self->dev_inputs = g_new0 (PlanStencilKernel *, n_inputs - 1);
  for (j = 1; j < n_inputs; j++) {
    PlanStencilKernel *rows = g_new0 (PlanStencilKernel, 1);

    rows->geom = self->geom;
    rows->geom.in_esize = plan_dtype_get_size (inputs[j].dtype);
    rows->geom.in_row_bytes = self->geom.in_row_bytes / self->geom.in_esize *
        rows->geom.in_esize;
    rows->boundary = boundary;
    rows->n_inputs = 1;
    self->dev_inputs[j - 1] = rows;
  }

  self->halo = plan_halo_new (&inputs[0], halo, boundary, cval, error);
  if (self->halo == NULL)
    goto failed;
  /* Rows are read where they are and only the ends of each row padded
   * apart, where PlanHalo can (up to two axes); otherwise every row is
   * copied and padded. */
  self->unpadded = plan_halo_set_pad_inner (self->halo, FALSE);
  if (n_inputs > 1) {
    self->more_halos = g_new0 (PlanHalo *, n_inputs - 1);
    self->more_blocks = g_malloc0_n (n_inputs - 1,
        sizeof (*self->more_blocks));
  }
  for (j = 1; j < n_inputs; j++) {
    self->more_halos[j - 1] = plan_halo_new (&inputs[j], halo, boundary,
        cval, error);
    if (self->more_halos[j - 1] == NULL)
      goto failed;
    /* The same shape and halo: the same layout as the first's. */
    plan_halo_set_pad_inner (self->more_halos[j - 1], !self->unpadded);
  }

  names = g_newa (const gchar *, MAX (self->n_names, 1));
  dtypes = g_newa (PlanDType, MAX (self->n_names, 1));
  for (j = 0; j < n_inputs; j++) {
    const gchar *const *wn = plan_window_get_names (windows[j]);

    for (i = 0; wn[i]; i++, n++) {
      names[n] = wn[i];
      dtypes[n] = inputs[j].dtype;
    }
  }
  self->expr = plan_expr_compile (expr, self->n_names, names, dtypes, error);
  if (self->expr == NULL)
    goto failed;

  plan_halo_get_output_info (self->halo, &self->output);
  self->output.dtype = plan_expr_get_dtype (self->expr);
  self->geom.out_esize = plan_dtype_get_size (self->output.dtype);
  self->rows_lost = boundary == PLAN_BOUNDARY_VALID ? 2 * halo[0] : 0;
  self->iterations = 1;
  plan_stencil_kernel_reset (self);
  return self;

failed:
  plan_stencil_kernel_free (self);
  return NULL;
}

PlanStencilKernel *
_plan_stencil_kernel_last_stage (PlanStencilKernel * self)
{
  while (self->next)
    self = self->next;
  return self;
}

/**
 * plan_stencil_kernel_new_iterated:
 * @window: the window
 * @expr: the expression, in the names of @window's cells
 * @input: the input array's dtype and shape (`shape[0]` may be -1)
 * @boundary: what cells outside the array hold
 * @cval: their value with %PLAN_BOUNDARY_CONSTANT
 * @iterations: how many times the window is applied, 1 to
 *   #PLAN_STENCIL_MAX_ITERATIONS
 * @error: return location for an error
 *
 * The stencil applied @iterations times, each application to the output
 * of the one before, with the boundary rule applied to each: the same
 * bits as @iterations stencils in a row (each with its own input's dtype
 * and shape, and @cval converted to it), with a halo of @iterations times
 * the window's along the streaming axis. On the host each chunk goes
 * through every application before the next chunk comes, so that the
 * rows in between stay in the cache. With %PLAN_BOUNDARY_WRAP along the
 * streaming axis and more than one iteration, it needs the stream's last
 * @iterations times the halo rows before the first output
 * (plan_stencil_kernel_host_needs_end_rows()) and computes on the host
 * only.
 *
 * Returns: (transfer full) (nullable): the stencil, or %NULL with @error
 *   set, as plan_stencil_kernel_new() (an application after the first
 *   names itself: with %PLAN_BOUNDARY_VALID the array may become shorter
 *   than the window)
 *
 * Since: 0.1
 */
PlanStencilKernel *
plan_stencil_kernel_new_iterated (const PlanWindow * window,
    const gchar * expr, const PlanArrayInfo * input, PlanBoundary boundary,
    gdouble cval, guint iterations, GError ** error)
{
  PlanStencilKernel *self, *stage, *prev;
  guint i;

  g_return_val_if_fail (iterations >= 1, NULL);

  if (iterations > PLAN_STENCIL_MAX_ITERATIONS) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%u iterations; a stencil is applied at most %u times", iterations,
        PLAN_STENCIL_MAX_ITERATIONS);
    return NULL;
  }
  self = plan_stencil_kernel_new (window, expr, input, boundary, cval, error);
  if (self == NULL)
    return NULL;
  prev = self;
  for (i = 1; i < iterations; i++) {
    stage = plan_stencil_kernel_new (window, expr, &prev->output, boundary,
        cval, error);
    if (stage == NULL)
      goto failed;
    prev->next = stage;
    prev = stage;
  }
  self->iterations = iterations;
  self->wrap_chain = iterations > 1 && boundary == PLAN_BOUNDARY_WRAP
      && self->geom.halo[0] > 0;
  if (self->wrap_chain) {
    for (stage = self; stage; stage = stage->next)
      plan_halo_set_context_rows (stage->halo, TRUE, TRUE);
  }
  return self;

failed:
  g_prefix_error (error, "application %u of %u (iterations=%u), on the "
      "output of the one before: ", i + 1, iterations, iterations);
  plan_stencil_kernel_free (self);
  return NULL;
}

/**
 * plan_stencil_kernel_get_iterations:
 * @kernel: a #PlanStencilKernel
 *
 * Returns: how many times the window is applied
 *
 * Since: 0.1
 */
guint
plan_stencil_kernel_get_iterations (PlanStencilKernel * kernel)
{
  g_return_val_if_fail (kernel != NULL, 1);

  return kernel->iterations;
}

/**
 * plan_stencil_kernel_get_first_axis_halo:
 * @kernel: a #PlanStencilKernel
 *
 * Returns: how many rows beyond an output's own row along the streaming
 *   axis its value depends on, on each side: the window's half height
 *   (its half width on a 1-D input, 0 for a one-row window on more
 *   axes) times the iterations
 *
 * Since: 0.1
 */
guint
plan_stencil_kernel_get_first_axis_halo (PlanStencilKernel * kernel)
{
  g_return_val_if_fail (kernel != NULL, 0);

  return kernel->geom.halo[0] * kernel->iterations;
}

/**
 * plan_stencil_kernel_set_context_rows:
 * @kernel: a #PlanStencilKernel
 * @leading: the stream's first rows are context
 * @trailing: the stream's last rows are context
 *
 * Makes the stream one piece of a longer one, as a rank's share is: for
 * every application of the window, plan_halo_set_context_rows() (the
 * first and last plan_stencil_kernel_get_first_axis_halo() rows of the
 * stream have no output of their own and no boundary rows are made at
 * that end). Call it before the first rows of a stream; with
 * %PLAN_BOUNDARY_WRAP the caller then gives the rows around the piece
 * itself.
 *
 * Since: 0.1
 */
void
plan_stencil_kernel_set_context_rows (PlanStencilKernel * kernel,
    gboolean leading, gboolean trailing)
{
  PlanStencilKernel *stage;
  guint i;

  g_return_if_fail (kernel != NULL);

  kernel->wrap_chain = FALSE;
  for (stage = kernel; stage; stage = stage->next)
    plan_halo_set_context_rows (stage->halo, leading, trailing);
  for (i = 0; i + 1 < kernel->n_inputs; i++)
    plan_halo_set_context_rows (kernel->more_halos[i], leading, trailing);
  plan_stencil_kernel_reset (kernel);
}

static void
free_device_rows (PlanStencilKernel * self)
{
  guint i;

  /* Freeing device memory lets the work queued on it finish first, so the
   * host copy of the end rows outlives its upload. */
  for (i = 0; i < 2; i++) {
    if (self->carry[i])
      plan_device_free (self->device, self->carry[i]);
    self->carry[i] = NULL;
  }
  if (self->first)
    plan_device_free (self->device, self->first);
  if (self->end)
    plan_device_free (self->device, self->end);
  self->first = self->end = NULL;
  g_clear_pointer (&self->end_host, g_free);
}

/**
 * plan_stencil_kernel_free:
 * @kernel: (transfer full): a #PlanStencilKernel
 *
 * Since: 0.1
 */
void
plan_stencil_kernel_free (PlanStencilKernel * kernel)
{
  guint i;

  g_return_if_fail (kernel != NULL);

  g_clear_pointer (&kernel->next, plan_stencil_kernel_free);
  free_device_rows (kernel);
  if (kernel->dev_tmp)
    plan_device_free (kernel->device, kernel->dev_tmp);
  g_free (kernel->tmp);
  g_free (kernel->gathered);
  g_free (kernel->prefix);
  g_free (kernel->joined);
  if (kernel->head)
    g_byte_array_unref (kernel->head);
  plan_clear_kernel (&kernel->cuda);
  gst_clear_object (&kernel->device);
  g_clear_pointer (&kernel->halo, plan_halo_free);
  g_clear_pointer (&kernel->expr, plan_expr_unref);
  g_clear_pointer (&kernel->window, plan_window_unref);
  for (i = 0; kernel->windows && i < kernel->n_inputs; i++)
    plan_window_unref (kernel->windows[i]);
  g_free (kernel->windows);
  for (i = 0; kernel->more_halos && i + 1 < kernel->n_inputs; i++)
    if (kernel->more_halos[i])
      plan_halo_free (kernel->more_halos[i]);
  g_free (kernel->more_halos);
  g_free (kernel->more_blocks);
  for (i = 0; kernel->dev_inputs && i + 1 < kernel->n_inputs; i++) {
    PlanStencilKernel *rows = kernel->dev_inputs[i];

    free_device_rows (rows);
    gst_clear_object (&rows->device);
    g_free (rows);
  }
  g_free (kernel->dev_inputs);
  g_free (kernel->cvals);
  g_free (kernel->dtypes);
  g_free (kernel->name_input);
  g_free (kernel->name_esize);
  g_free (kernel->deltas);
  g_free (kernel->offsets);
  g_free (kernel->edge_out);
  g_free (kernel);
}

/**
 * plan_stencil_kernel_get_output_info:
 * @kernel: a #PlanStencilKernel
 * @output: (out caller-allocates): the output array's dtype and shape
 *
 * The input's shape (shrunk by twice the halo along each axis with
 * %PLAN_BOUNDARY_VALID, for each iteration), in the expression's dtype
 * (for the last iteration's input).
 *
 * Since: 0.1
 */
void
plan_stencil_kernel_get_output_info (PlanStencilKernel * kernel,
    PlanArrayInfo * output)
{
  g_return_if_fail (kernel != NULL && output != NULL);

  *output = _plan_stencil_kernel_last_stage (kernel)->output;
}

/**
 * plan_stencil_kernel_get_rows_lost:
 * @kernel: a #PlanStencilKernel
 *
 * Returns: how many fewer output rows than input rows the stream has:
 *   twice the halo along the streaming axis times the iterations with
 *   %PLAN_BOUNDARY_VALID, else 0
 *
 * Since: 0.1
 */
guint
plan_stencil_kernel_get_rows_lost (PlanStencilKernel * kernel)
{
  guint lost = 0;

  g_return_val_if_fail (kernel != NULL, 0);

  for (; kernel; kernel = kernel->next)
    lost += kernel->rows_lost;
  return lost;
}

/**
 * plan_stencil_kernel_set_n_threads:
 * @kernel: a #PlanStencilKernel
 * @n_threads: worker threads for the host computation, 0 for one per core
 *
 * Since: 0.1
 */
void
plan_stencil_kernel_set_n_threads (PlanStencilKernel * kernel,
    guint n_threads)
{
  guint i;

  g_return_if_fail (kernel != NULL);

  for (i = 0; i + 1 < kernel->n_inputs; i++)
    plan_halo_set_n_threads (kernel->more_halos[i], n_threads);
  for (; kernel; kernel = kernel->next) {
    kernel->n_threads = n_threads;
    plan_halo_set_n_threads (kernel->halo, n_threads);
  }
}

/**
 * plan_stencil_kernel_reset:
 * @kernel: a #PlanStencilKernel
 *
 * Forgets the rows seen, on the host and on the device, to start a new
 * stream. Device memory it kept is freed, after the work queued on it.
 *
 * Since: 0.1
 */
void
plan_stencil_kernel_reset (PlanStencilKernel * kernel)
{
  guint i;

  g_return_if_fail (kernel != NULL);

  if (kernel->next)
    plan_stencil_kernel_reset (kernel->next);
  kernel->finish_phase = 0;
  kernel->host_received = 0;
  kernel->host_total = 0;
  kernel->have_prefix = FALSE;
  g_clear_pointer (&kernel->prefix, g_free);
  g_clear_pointer (&kernel->joined, g_free);
  if (kernel->head)
    g_byte_array_set_size (kernel->head, 0);
  plan_halo_reset (kernel->halo);
  for (i = 0; i + 1 < kernel->n_inputs; i++) {
    PlanStencilKernel *rows = kernel->dev_inputs[i];

    plan_halo_reset (kernel->more_halos[i]);
    free_device_rows (rows);
    rows->cur = 0;
    rows->n_carry = rows->n_first = rows->n_end = 0;
    rows->total = 0;
    rows->have_end = FALSE;
    rows->received = 0;
  }
  free_device_rows (kernel);
  kernel->cur = 0;
  kernel->n_carry = 0;
  kernel->n_first = 0;
  kernel->n_end = 0;
  kernel->total = 0;
  kernel->have_end = FALSE;
  kernel->received = 0;
  kernel->next_c = kernel->boundary == PLAN_BOUNDARY_VALID ?
      (gint64) kernel->geom.halo[0] : 0;
}

/**
 * plan_stencil_kernel_get_halo:
 * @kernel: a #PlanStencilKernel
 *
 * Returns: (transfer none): the #PlanHalo that pads the rows for the host
 *   computation of the first application of the window; with one
 *   iteration, push the rows into it and give its blocks to
 *   plan_stencil_kernel_eval() (plan_stencil_kernel_push() does that for
 *   any number)
 *
 * Since: 0.1
 */
PlanHalo *
plan_stencil_kernel_get_halo (PlanStencilKernel * kernel)
{
  g_return_val_if_fail (kernel != NULL, NULL);

  return kernel->halo;
}
