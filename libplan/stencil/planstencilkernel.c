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

#include "planstencilkernel.h"
#include "libplan/expr/expr-private.h"
#include <libplan/planerror.h>
#include "libplan/core/plan-private.h"
#include <libplan/plannvrtc.h>
#include <libplan/planparallel.h>
#include "stencil-cuda-sources.h"

#include <string.h>

#define PLAN_STENCIL_FN static inline
#include "kernels/cuda/stencil_index.h"

GST_DEBUG_CATEGORY_STATIC (plan_stencil_kernel_debug);
#define GST_CAT_DEFAULT plan_stencil_kernel_debug

/* The most inputs a stencil computes on a device (more: on the host). */
#define DEVICE_MAX_INPUTS 8

/* Outputs per task of the worker threads, when the work is split by line. */
#define LINE_GRAIN_ELEMENTS 16384

/* With several iterations, the input rows that go through the
 * applications before the last one at a time (docs/performance.md). */
#define TEMPORAL_BLOCK_BYTES (64 << 10)

/* Where each cell of an output comes from, for the device path. */
typedef struct
{
  guint ndim;
  guint n_names;
  gint boundary;
  gint64 ishape[PLAN_ARRAY_MAX_DIMS];   /* [0] unused */
  gint64 oshape[PLAN_ARRAY_MAX_DIMS];   /* [0] unused */
  gint64 istride[PLAN_ARRAY_MAX_DIMS];  /* elements, within a row */
  gint64 shift[PLAN_ARRAY_MAX_DIMS];    /* centre minus output index */
  guint halo[PLAN_ARRAY_MAX_DIMS];
  gsize in_esize;
  gsize out_esize;
  gsize in_row_bytes;
  gsize out_row_elems;
  gsize line_len;               /* outputs per line of the host kernel */
} Geometry;

struct _PlanStencilKernel
{
  PlanWindow *window;
  PlanExpr *expr;
  PlanArrayInfo input;
  PlanArrayInfo output;
  PlanBoundary boundary;
  guint8 cval[16];
  guint n_threads;
  guint n_names;
  gint (*deltas)[PLAN_ARRAY_MAX_DIMS];  /* [n_names]: offset per axis */
  Geometry geom;
  guint rows_lost;

  /* host path */
  PlanHalo *halo;
  gssize *offsets;              /* [n_names]: offset in the block */
  gboolean unpadded;            /* rows not padded: edges computed apart */
  guint8 *edge_out;             /* the outputs of the edge blocks */
  gsize edge_out_size;

  /* device path: the rows kept on the device */
  PlanDevice *device;
  PlanKernel *cuda;             /* the generated kernel, on CUDA devices */
  gpointer carry[2];            /* the last rows, alternately */
  guint cur;
  gsize n_carry;                /* rows in carry[cur] */
  gpointer first;               /* wrap: the stream's first rows */
  gsize n_first;
  gpointer end;                 /* wrap: the stream's last rows */
  guint8 *end_host;             /* their host copy, until uploaded */
  gsize n_end;
  guint64 total;
  gboolean have_end;
  guint64 received;
  gint64 next_c;                /* the next output's centre row */

  /* Iterations: the next application of the window, to this one's
   * output (NULL on the last); the fields below are the first's. */
  PlanStencilKernel *next;
  guint iterations;             /* in the chain from this one on */
  guint8 *tmp;                  /* host: this application's outputs */
  gsize tmp_size;
  gpointer dev_tmp;             /* device: this application's outputs */
  gsize dev_tmp_size;
  guint finish_phase;           /* host: how far plan_stencil_kernel_finish() is */
  guint8 *gathered;             /* host: the last application's input */
  gsize gathered_size;

  /* wrap along the streaming axis over several iterations, on the host:
   * the stream goes through as the middle of its periodic extension,
   * every application reading its first and last rows as context. */
  gboolean wrap_chain;
  guint8 *prefix;               /* the extension's rows before row 0 */
  guint8 *joined;               /* the prefix and the first chunk */
  GByteArray *head;             /* the stream's first rows */
  guint64 host_total;
  guint64 host_received;
  gboolean have_prefix;

  /* Several inputs (plan_stencil_kernel_new_inputs()), one application:
   * each input after the first has its own halo, whose blocks match the
   * first's block for block; each name reads one input. */
  guint n_inputs;
  PlanWindow **windows;         /* [n_inputs] */
  PlanHalo **more_halos;        /* [n_inputs - 1] */
  PlanHaloBlock (*more_blocks)[PLAN_HALO_MAX_BLOCKS];   /* [n_inputs - 1] */
  guint *name_input;            /* [n_names]: the input a name reads */
  gsize *name_esize;            /* [n_names]: its element size */
  guint8 (*cvals)[16];          /* [n_inputs]: cval in each input's dtype */
  PlanDType *dtypes;            /* [n_inputs] */
  /* the device rows of the inputs after the first: kernels holding only
   * their rows' state (carry, first, end rows), the first's geometry */
  PlanStencilKernel **dev_inputs;       /* [n_inputs - 1] */
};

/* What the worker threads share to evaluate one block line by line. */
typedef struct
{
  PlanStencilKernel *self;
  const PlanHaloBlock *block;
  guint index;                  /* the block's index among the pushed ones */
  guint8 *out;
  gsize line_len;
} LineJob;

static void
init_debug (void)
{
  if (G_UNLIKELY (plan_stencil_kernel_debug == NULL))
    GST_DEBUG_CATEGORY_INIT (plan_stencil_kernel_debug, "planstencilkernel",
        0, "Stencils on the host and on devices");
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

/* The application of the window whose output is the chain's. */
static PlanStencilKernel *
last_stage (PlanStencilKernel * self)
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

  *output = last_stage (kernel)->output;
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

/* ---- the host computation, on PlanHalo blocks ---- */

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

  eval_stage (last_stage (kernel), blocks, n_blocks, out);
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
  PlanStencilKernel *last = last_stage (self);
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
        ok = plan_halo_finish (last_stage (kernel)->halo, blocks, n_blocks,
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

/* ---- the device computation ---- */

/* One launch's worth of work for the host kernel (cpu and sim devices). */
typedef struct
{
  PlanExpr *expr;
  Geometry geom;
  gint (*deltas)[PLAN_ARRAY_MAX_DIMS];
  guint n_inputs;
  guint *name_input;            /* [n_names]: the input a name reads */
  /* per input: firsts and counts of its segments, pointers at run */
  plan_stencil_segs segs[DEVICE_MAX_INPUTS];
  guint n_segs[DEVICE_MAX_INPUTS];
  gsize row_bytes[DEVICE_MAX_INPUTS];
  gsize esize[DEVICE_MAX_INPUTS];
  guint8 cval[DEVICE_MAX_INPUTS][16];
  gint64 c0;
  gsize n_out;
  gint64 n_stream;
  guint n_threads;
  guint8 *out;                  /* set at run */
} HostStencil;

static void
host_stencil_free (gpointer data)
{
  HostStencil *job = data;

  plan_expr_unref (job->expr);
  g_free (job->deltas);
  g_free (job->name_input);
  g_free (job);
}

/* The cell of name @j for the output at centre row @r and inner output
 * coordinates @o (o[1] .. o[ndim-1]), as the CUDA kernel loads it. */
static inline const guint8 *
host_cell (const HostStencil * job, guint j, gint64 r, const gint64 * o)
{
  const Geometry *g = &job->geom;
  gint64 row = r, at = 0;
  guint in = job->name_input[j];
  const char *p;
  guint k;

  if (g->halo[0] > 0)
    row = plan_stencil_map (g->boundary, r + job->deltas[j][0], job->n_stream);
  if (row < 0)
    return NULL;
  for (k = 1; k < g->ndim; k++) {
    gint64 x = o[k];

    if (g->halo[k] > 0) {
      x = plan_stencil_map (g->boundary, o[k] + g->shift[k] +
          job->deltas[j][k], g->ishape[k]);
      if (x < 0)
        return NULL;
    }
    at += x * g->istride[k];
  }
  p = plan_stencil_row (&job->segs[in], row, job->row_bytes[in]);
  g_assert (p != NULL);
  return (const guint8 *) p + at * job->esize[in];
}

/* Output lines [begin, end): on a 1-D array runs of rows, otherwise the
 * lines along the last axis of each output row. */
static void
host_stencil_lines (gsize begin, gsize end, gpointer data)
{
  HostStencil *job = data;
  const Geometry *g = &job->geom;
  guint n = job->geom.n_names, j, k;
  gsize len, line, x, es;
  guint8 *tmp;
  gconstpointer *inputs = g_newa (gconstpointer, MAX (n, 1));
  gint64 o[PLAN_ARRAY_MAX_DIMS] = { 0 };

  if (g->ndim == 1) {
    len = end - begin;
    tmp = g_malloc (MAX (n, 1) * len * 16);
    for (j = 0; j < n; j++) {
      inputs[j] = NULL;
      if (!plan_expr_uses_name (job->expr, j))
        continue;
      es = job->esize[job->name_input[j]];
      for (x = 0; x < len; x++) {
        const guint8 *cell = host_cell (job, j, job->c0 + begin + x, o);

        memcpy (tmp + j * len * 16 + x * es, cell ? cell :
            job->cval[job->name_input[j]], es);
      }
      inputs[j] = tmp + j * len * 16;
    }
    plan_expr_eval (job->expr, inputs, job->out + begin * g->out_esize, len);
    g_free (tmp);
    return;
  }

  len = g->line_len;
  tmp = g_malloc (MAX (n, 1) * len * 16);
  for (line = begin; line < end; line++) {
    gsize rest = line;
    gint64 r;

    /* The line's coordinates: inner axes but the last, then the row. */
    for (k = g->ndim - 2; k >= 1; k--) {
      o[k] = rest % g->oshape[k];
      rest /= g->oshape[k];
    }
    r = job->c0 + (gint64) rest;
    for (j = 0; j < n; j++) {
      inputs[j] = NULL;
      if (!plan_expr_uses_name (job->expr, j))
        continue;
      es = job->esize[job->name_input[j]];
      for (x = 0; x < len; x++) {
        const guint8 *cell;

        o[g->ndim - 1] = x;
        cell = host_cell (job, j, r, o);
        memcpy (tmp + j * len * 16 + x * es, cell ? cell :
            job->cval[job->name_input[j]], es);
      }
      inputs[j] = tmp + j * len * 16;
    }
    plan_expr_eval (job->expr, inputs, job->out + line * len * g->out_esize,
        len);
  }
  g_free (tmp);
}

static void
host_stencil_run (gpointer * ptrs, guint n_ptrs, gpointer data)
{
  HostStencil *job = data;
  const Geometry *g = &job->geom;
  gsize n_lines;
  guint i, k, at = 0;

  for (i = 0; i < job->n_inputs; i++)
    for (k = 0; k < job->n_segs[i]; k++)
      job->segs[i].ptr[k] = ptrs[at++];
  job->out = ptrs[n_ptrs - 1];
  if (g->ndim == 1) {
    plan_parallel_for (job->n_threads, job->n_out, LINE_GRAIN_ELEMENTS,
        host_stencil_lines, job);
    return;
  }
  n_lines = job->n_out * (g->out_row_elems / MAX (g->line_len, 1));
  plan_parallel_for (job->n_threads, n_lines,
      MAX (1, LINE_GRAIN_ELEMENTS / MAX (g->line_len, 1)),
      host_stencil_lines, job);
}


/**
 * plan_stencil_kernel_to_cuda:
 * @kernel: a #PlanStencilKernel
 * @function_name: the name of the `extern "C" __global__` function
 *
 * The stencil as CUDA C: the expression's generated source
 * (plan_expr_to_cuda()), the index arithmetic of
 * kernels/cuda/stencil_index.h, and a kernel
 * `function_name (plan_stencil_segs segs, OUT *out, long long c0,
 * unsigned long long n, long long n_stream, IN cval)` that computes @n
 * outputs from centre row @c0 on, one thread per output in a grid-stride
 * loop, each cell's indices mapped by the boundary rule (the input's
 * inner shape is compiled in; @n_stream is the stream's length as far as
 * it is known). A stencil of several inputs takes each input's segments
 * and constant after the first's: `(segs, segs1, ..., out, c0, n,
 * n_stream, cval, cval1, ...)`. With `PLAN_EXPR_HOST_ENTRY` defined, a
 * host function `function_name_host (segs, out, c0, n, n_stream, cval)`
 * runs the same code on the CPU, @segs an array of each input's
 * segments and @cval each input's constant in 16 bytes.
 *
 * Returns: (transfer full): the source
 *
 * Since: 0.1
 */
gchar *
plan_stencil_kernel_to_cuda (PlanStencilKernel * kernel,
    const gchar * function_name)
{
  const Geometry *g;
  GString *src, *tmpl, *decompose, *loads, *args, *params;
  GString *kparams = g_string_new (NULL), *pass = g_string_new (NULL);
  GString *host_pass = g_string_new (NULL), *cdecl = g_string_new (NULL);
  GString *cpass = g_string_new (NULL), *host_cpass = g_string_new (NULL);
  gchar *expr_src, *element;
  guint j, k;

  g_return_val_if_fail (kernel != NULL, NULL);
  g_return_val_if_fail (function_name != NULL, NULL);

  g = &kernel->geom;
  /* The expression's template names its element function NAME_element. */
  element = g_strdup_printf ("%s_expr", function_name);
  expr_src = plan_expr_to_cuda (kernel->expr, element);
  g_free (element);
  element = g_strdup_printf ("%s_expr_element", function_name);
  src = g_string_new (expr_src);
  g_string_append_c (src, '\n');
  g_string_append (src, "#define PLAN_STENCIL_FN __host__ __device__ "
      "static inline\n");
  g_string_append (src, plan_stencil_cuda_index);
  g_string_append_c (src, '\n');

  decompose = g_string_new (NULL);
  for (k = g->ndim - 1; k >= 1; k--)
    g_string_append_printf (decompose, "  const long long o%u = (long long) "
        "(rest %% %" G_GINT64_FORMAT "ull);\n  rest /= %" G_GINT64_FORMAT
        "ull;\n", k, g->oshape[k], g->oshape[k]);

  loads = g_string_new (NULL);
  args = g_string_new (NULL);
  for (j = 0; j < g->n_names; j++) {
    guint in = kernel->name_input[j];
    const gchar *t = _plan_cuda_type_name (kernel->dtypes[in]);
    gchar *segs = in ? g_strdup_printf ("segs%u", in) : g_strdup ("segs");
    gchar *cval = in ? g_strdup_printf ("cval%u", in) : g_strdup ("cval");

    g_string_append_printf (args, "%sv%u", j ? ", " : "", j);
    if (!plan_expr_uses_name (kernel->expr, j)) {
      g_string_append_printf (loads, "  const %s v%u = %s ();\n", t, j, t);
      g_free (segs);
      g_free (cval);
      continue;
    }
    g_string_append_printf (loads, "  %s v%u;\n  {\n", t, j);
    if (g->halo[0] > 0)
      g_string_append_printf (loads, "    const long long i0 = "
          "plan_stencil_map (%d, r + %d, n_stream);\n", g->boundary,
          kernel->deltas[j][0]);
    else
      g_string_append (loads, "    const long long i0 = r;\n");
    for (k = 1; k < g->ndim; k++) {
      if (g->halo[k] > 0)
        g_string_append_printf (loads, "    const long long i%u = "
            "plan_stencil_map (%d, o%u + %" G_GINT64_FORMAT ", %"
            G_GINT64_FORMAT ");\n", k, g->boundary, k, g->shift[k] +
            kernel->deltas[j][k], g->ishape[k]);
      else
        g_string_append_printf (loads, "    const long long i%u = o%u;\n", k,
            k);
    }
    g_string_append (loads, "    const char *p = (i0 < 0");
    for (k = 1; k < g->ndim; k++)
      g_string_append_printf (loads, " || i%u < 0", k);
    g_string_append_printf (loads, ") ? 0 : plan_stencil_row (%s, i0, %"
        G_GSIZE_FORMAT "ull);\n    v%u = p ? ((const %s *) p)[0", segs,
        g->in_row_bytes / g->in_esize * plan_dtype_get_size
        (kernel->dtypes[in]), j, t);
    for (k = 1; k < g->ndim; k++)
      g_string_append_printf (loads, " + i%u * %" G_GINT64_FORMAT "ll", k,
          g->istride[k]);
    g_string_append_printf (loads, "] : %s;\n  }\n", cval);
    g_free (segs);
    g_free (cval);
  }
  params = g_string_new (NULL);
  for (j = 0; j < kernel->n_inputs; j++) {
    const gchar *t = _plan_cuda_type_name (kernel->dtypes[j]);
    gchar *suffix = j ? g_strdup_printf ("%u", j) : g_strdup ("");

    g_string_append_printf (params, "%s%s segs%s", j ? ", " : "",
        "const plan_stencil_segs *", suffix);
    g_string_append_printf (kparams, "%splan_stencil_segs segs%s",
        j ? ", " : "", suffix);
    g_string_append_printf (pass, "%s&segs%s", j ? ", " : "", suffix);
    g_string_append_printf (host_pass, "%ssegs + %u", j ? ", " : "", j);
    g_string_append_printf (cdecl, "%s%s cval%s", j ? ", " : "", t, suffix);
    g_string_append_printf (cpass, "%scval%s", j ? ", " : "", suffix);
    g_string_append_printf (host_cpass, "%s*(const %s *) ((const char *) "
        "cval + %u)", j ? ", " : "", t, 16 * j);
    g_free (suffix);
  }

  tmpl = g_string_new (plan_stencil_cuda_kernel);
  g_string_replace (tmpl, "@NAME@", function_name, 0);
  g_string_replace (tmpl, "@ELEMENT@", element, 0);
  g_string_replace (tmpl, "@SEGS_DECL@", params->str, 0);
  g_string_replace (tmpl, "@SEGS_PARAMS@", kparams->str, 0);
  g_string_replace (tmpl, "@SEGS_PASS@", pass->str, 0);
  g_string_replace (tmpl, "@HOST_SEGS_PASS@", host_pass->str, 0);
  g_string_replace (tmpl, "@CVAL_DECL@", cdecl->str, 0);
  g_string_replace (tmpl, "@CVAL_PASS@", cpass->str, 0);
  g_string_replace (tmpl, "@HOST_CVAL_PASS@", host_cpass->str, 0);
  g_string_replace (tmpl, "@OUT_T@", _plan_cuda_type_name (kernel->output.dtype), 0);
  g_string_replace (tmpl, "@DECOMPOSE@", decompose->str, 0);
  g_string_replace (tmpl, "@LOADS@", loads->str, 0);
  g_string_replace (tmpl, "@ARGS@", args->str, 0);
  g_string_append (src, tmpl->str);

  g_string_free (tmpl, TRUE);
  g_string_free (params, TRUE);
  g_string_free (kparams, TRUE);
  g_string_free (pass, TRUE);
  g_string_free (host_pass, TRUE);
  g_string_free (cdecl, TRUE);
  g_string_free (cpass, TRUE);
  g_string_free (host_cpass, TRUE);
  g_string_free (decompose, TRUE);
  g_string_free (loads, TRUE);
  g_string_free (args, TRUE);
  g_free (expr_src);
  g_free (element);
  return g_string_free (src, FALSE);
}

/**
 * plan_stencil_kernel_prepare:
 * @kernel: a #PlanStencilKernel
 * @device: the device the stencil will run on
 * @error: return location for an error
 *
 * Gets the stencil ready to run on @device: on a CUDA device builds its
 * kernel (NVRTC, cached on disk), on the cpu and sim devices nothing.
 * plan_stencil_kernel_launch() calls it; call it first to know before the
 * first chunk whether the device can run the stencil at all.
 *
 * Returns: %TRUE, or %FALSE with @error set, %PLAN_ERROR_UNSUPPORTED when
 *   the device cannot run it (no NVRTC, a failed compile), so that the
 *   caller can compute on the host instead
 *
 * Since: 0.1
 */
gboolean
plan_stencil_kernel_prepare (PlanStencilKernel * kernel, PlanDevice * device,
    GError ** error)
{
  gchar *source;
  GError *err = NULL;
  guint i;

  g_return_val_if_fail (kernel != NULL, FALSE);
  g_return_val_if_fail (PLAN_IS_DEVICE (device), FALSE);

  if (kernel->wrap_chain) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "boundary=wrap along the streaming axis over %u iterations is "
        "computed on the host", kernel->iterations);
    return FALSE;
  }
  if (kernel->n_inputs > DEVICE_MAX_INPUTS) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "a stencil of %u inputs is computed on the host (a device takes "
        "at most %u)", kernel->n_inputs, DEVICE_MAX_INPUTS);
    return FALSE;
  }
  if (kernel->next && !plan_stencil_kernel_prepare (kernel->next, device,
          error))
    return FALSE;
  if (kernel->device == device)
    return TRUE;
  if (kernel->device != NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the stencil runs on %s and cannot move to %s within a stream",
        plan_device_get_name (kernel->device), plan_device_get_name (device));
    return FALSE;
  }
  if (plan_device_get_kind (device) == PLAN_DEVICE_KIND_CUDA) {
    source = plan_stencil_kernel_to_cuda (kernel, "plan_stencil_kernel");
    kernel->cuda = plan_nvrtc_build_kernel (device, source,
        "plan_stencil_kernel", &err);
    g_free (source);
    if (kernel->cuda == NULL) {
      GST_WARNING ("no CUDA stencil kernel on %s: %s",
          plan_device_get_name (device), err->message);
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
          "could not build a CUDA kernel for the stencil: %s", err->message);
      g_clear_error (&err);
      return FALSE;
    }
  }
  kernel->device = gst_object_ref (device);
  for (i = 0; i + 1 < kernel->n_inputs; i++)
    kernel->dev_inputs[i]->device = gst_object_ref (device);
  GST_DEBUG ("stencil on %s (%s)", plan_device_get_name (device),
      kernel->cuda ? "generated CUDA kernel" : "host kernel");
  return TRUE;
}

/* The last output centre row a stream of @received rows completes. */
static gint64
centre_end (PlanStencilKernel * self, guint64 received)
{
  return (gint64) received - (gint64) self->geom.halo[0];
}

/* The output rows of one application for @n_rows more rows. */
static gsize
stage_push_rows (PlanStencilKernel * self, gsize n_rows)
{
  gint64 end = centre_end (self, self->received + n_rows);

  return end > self->next_c ? end - self->next_c : 0;
}

/**
 * plan_stencil_kernel_push_rows:
 * @kernel: a #PlanStencilKernel
 * @n_rows: the rows of the next chunk
 *
 * Returns: how many output rows plan_stencil_kernel_launch() computes
 *   when given the next @n_rows rows
 *
 * Since: 0.1
 */
gsize
plan_stencil_kernel_push_rows (PlanStencilKernel * kernel, gsize n_rows)
{
  g_return_val_if_fail (kernel != NULL, 0);

  for (; kernel; kernel = kernel->next)
    n_rows = stage_push_rows (kernel, n_rows);
  return n_rows;
}

/**
 * plan_stencil_kernel_needs_end_rows:
 * @kernel: a #PlanStencilKernel
 * @n_rows: the rows of the next chunk
 * @n_end_rows: (out) (optional): how many of the stream's last rows it
 *   needs
 *
 * With %PLAN_BOUNDARY_WRAP and a halo along the streaming axis, the first
 * output needs the stream's last rows: when this says so, give them with
 * plan_stencil_kernel_set_end_rows() before launching the chunk.
 *
 * Returns: %TRUE when the end rows are needed before launching @n_rows
 *
 * Since: 0.1
 */
gboolean
plan_stencil_kernel_needs_end_rows (PlanStencilKernel * kernel, gsize n_rows,
    gsize * n_end_rows)
{
  g_return_val_if_fail (kernel != NULL, FALSE);

  if (n_end_rows)
    *n_end_rows = kernel->geom.halo[0];
  return kernel->boundary == PLAN_BOUNDARY_WRAP && kernel->geom.halo[0] > 0
      && !kernel->have_end && kernel->next_c == 0
      && stage_push_rows (kernel, n_rows) > 0;
}

/**
 * plan_stencil_kernel_set_end_rows:
 * @kernel: a #PlanStencilKernel prepared for a device
 * @stream: the stream the stencil runs on
 * @total_rows: the number of rows of the whole stream
 * @rows: (array): the last @n_rows rows of the stream, in host memory
 * @n_rows: their number: what plan_stencil_kernel_needs_end_rows() asked,
 *   or all rows of a shorter stream
 * @error: return location for an error
 *
 * Queues the upload of the stream's last rows to the device, once per
 * stream. @rows may be freed when this returns.
 *
 * Returns: %TRUE, or %FALSE with @error set (too few rows, no device
 *   memory)
 *
 * Since: 0.1
 */
gboolean
plan_stencil_kernel_set_end_rows (PlanStencilKernel * kernel,
    PlanStream * stream, guint64 total_rows, gconstpointer rows,
    gsize n_rows, GError ** error)
{
  gsize size;

  g_return_val_if_fail (kernel != NULL, FALSE);
  g_return_val_if_fail (kernel->device != NULL, FALSE);
  g_return_val_if_fail (stream != NULL, FALSE);

  if (n_rows > total_rows || n_rows < MIN (kernel->geom.halo[0], total_rows)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "got %" G_GSIZE_FORMAT " of the last rows of a stream of %"
        G_GUINT64_FORMAT " rows but wrap needs its last %u rows", n_rows,
        total_rows, kernel->geom.halo[0]);
    return FALSE;
  }
  size = MAX (n_rows, 1) * kernel->geom.in_row_bytes;
  if (kernel->end == NULL
      && !plan_device_alloc (kernel->device, size, &kernel->end, error))
    return FALSE;
  g_free (kernel->end_host);
  kernel->end_host = g_memdup2 (rows, n_rows * kernel->geom.in_row_bytes);
  if (n_rows > 0 && !plan_stream_copy (stream, PLAN_COPY_HOST_TO_DEVICE,
          kernel->end, kernel->end_host, n_rows * kernel->geom.in_row_bytes,
          error))
    return FALSE;
  kernel->n_end = n_rows;
  kernel->total = total_rows;
  kernel->have_end = TRUE;
  return TRUE;
}

static guint
add_segs (PlanStencilKernel * rows_of, gconstpointer rows, gsize n_rows,
    plan_stencil_segs * segs, gpointer * ptrs)
{
  guint n = 0;

#define ADD_SEG(p, f, c) G_STMT_START { \
    if ((c) > 0) { \
      segs->ptr[n] = (const char *) (p); \
      segs->first[n] = (f); \
      segs->count[n] = (c); \
      ptrs[n] = (gpointer) (p); \
      n++; \
    } \
  } G_STMT_END

  memset (segs, 0, sizeof (*segs));
  ADD_SEG (rows, (gint64) rows_of->received, (gint64) n_rows);
  ADD_SEG (rows_of->carry[rows_of->cur], (gint64) rows_of->received -
      (gint64) rows_of->n_carry, (gint64) rows_of->n_carry);
  ADD_SEG (rows_of->first, 0, (gint64) rows_of->n_first);
  ADD_SEG (rows_of->end, (gint64) (rows_of->total - rows_of->n_end),
      (gint64) rows_of->n_end);
#undef ADD_SEG
  segs->n = n;
  return n;
}

/* The kernel holding input @j's device rows. */
static PlanStencilKernel *
rows_of_input (PlanStencilKernel * self, guint j)
{
  return j == 0 ? self : self->dev_inputs[j - 1];
}

/**
 * plan_stencil_kernel_set_input_end_rows:
 * @kernel: a #PlanStencilKernel prepared for a device
 * @input: the input's index
 * @stream: the stream the stencil runs on
 * @total_rows: the number of rows of the whole stream
 * @rows: (array): the last @n_rows rows of input @input, in host memory
 * @n_rows: their number, as plan_stencil_kernel_needs_end_rows() asked
 * @error: return location for an error
 *
 * plan_stencil_kernel_set_end_rows() for each input of a stencil of
 * several inputs.
 *
 * Returns: %TRUE, or %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
plan_stencil_kernel_set_input_end_rows (PlanStencilKernel * kernel,
    guint input, PlanStream * stream, guint64 total_rows,
    gconstpointer rows, gsize n_rows, GError ** error)
{
  g_return_val_if_fail (kernel != NULL, FALSE);
  g_return_val_if_fail (input < kernel->n_inputs, FALSE);

  return plan_stencil_kernel_set_end_rows (rows_of_input (kernel, input),
      stream, total_rows, rows, n_rows, error);
}

/* Queues the computation of @n_out output rows from centre row next_c on,
 * reading each input's rows from its kept rows, @rows[j] (the chunk: rows
 * [received, received + @n_rows); @rows NULL for none), and its first and
 * last rows. */
static gboolean
launch_rows (PlanStencilKernel * self, PlanStream * stream,
    const gconstpointer * rows, gsize n_rows, gsize n_out, gint64 n_stream,
    gpointer out, GError ** error)
{
  const Geometry *g = &self->geom;
  plan_stencil_segs segs[DEVICE_MAX_INPUTS];
  guint n_segs[DEVICE_MAX_INPUTS];
  gpointer ptrs[DEVICE_MAX_INPUTS * PLAN_STENCIL_MAX_SEGS + 1];
  HostStencil *job;
  guint n = 0, j;

  for (j = 0; j < self->n_inputs; j++) {
    n_segs[j] = add_segs (rows_of_input (self, j), rows ? rows[j] : NULL,
        rows ? n_rows : 0, &segs[j], ptrs + n);
    n += n_segs[j];
  }
  ptrs[n] = out;

  GST_LOG ("output centres %" G_GINT64_FORMAT " + %" G_GSIZE_FORMAT
      " from %u segments, stream of %" G_GINT64_FORMAT " rows", self->next_c,
      n_out, n, n_stream);

  if (self->cuda) {
    gpointer args[2 * DEVICE_MAX_INPUTS + 4];
    guint64 count = n_out * g->out_row_elems;
    gint64 c0 = self->next_c;
    const guint block[3] = { 256, 1, 1 };
    guint grid[3] = { 1, 1, 1 };
    guint a = 0;

    for (j = 0; j < self->n_inputs; j++)
      args[a++] = &segs[j];
    args[a++] = &ptrs[n];
    args[a++] = &c0;
    args[a++] = &count;
    args[a++] = &n_stream;
    for (j = 0; j < self->n_inputs; j++)
      args[a++] = self->cvals[j];
    grid[0] = (guint) CLAMP ((count + 255) / 256, 1, 65535);
    return plan_stream_launch_kernel (stream, self->cuda, grid, block, 0,
        args, error);
  }

  job = g_new0 (HostStencil, 1);
  job->expr = plan_expr_ref (self->expr);
  job->geom = *g;
  job->deltas = g_memdup2 (self->deltas, MAX (g->n_names, 1) *
      sizeof (*self->deltas));
  job->name_input = g_memdup2 (self->name_input, MAX (g->n_names, 1) *
      sizeof (guint));
  job->n_inputs = self->n_inputs;
  for (j = 0; j < self->n_inputs; j++) {
    PlanStencilKernel *rows_of = rows_of_input (self, j);

    job->segs[j] = segs[j];
    job->n_segs[j] = n_segs[j];
    job->row_bytes[j] = rows_of->geom.in_row_bytes;
    job->esize[j] = rows_of->geom.in_esize;
    memcpy (job->cval[j], self->cvals[j], 16);
  }
  job->c0 = self->next_c;
  job->n_out = n_out;
  job->n_stream = n_stream;
  job->n_threads = self->n_threads;
  return plan_stream_launch_host_kernel (stream, host_stencil_run, ptrs,
      n + 1, job, host_stencil_free, error);
}

/* Keeps the rows later windows need: the last 2 h of the stream (and for
 * wrap its first h), by copies on the device after the launch. */
static gboolean
keep_rows (PlanStencilKernel * self, PlanStream * stream,
    gconstpointer rows, gsize n_rows, GError ** error)
{
  gsize h = self->geom.halo[0], rb = self->geom.in_row_bytes, keep, from_new;
  guint next = 1 - self->cur, i;

  if (h == 0)
    return TRUE;
  if (self->boundary == PLAN_BOUNDARY_WRAP && self->n_first < h) {
    gsize n = MIN (n_rows, h - self->n_first);

    if (self->first == NULL
        && !plan_device_alloc (self->device, h * rb, &self->first, error))
      return FALSE;
    if (!plan_stream_copy (stream, PLAN_COPY_DEVICE_TO_DEVICE,
            (guint8 *) self->first + self->n_first * rb, rows, n * rb, error))
      return FALSE;
    self->n_first += n;
  }
  for (i = 0; i < 2; i++) {
    if (self->carry[i] == NULL
        && !plan_device_alloc (self->device, 2 * h * rb, &self->carry[i],
            error))
      return FALSE;
  }
  keep = MIN (2 * h, self->n_carry + n_rows);
  from_new = MIN (keep, n_rows);
  /* carry[next] = the last (keep - from_new) kept rows, then the last
   * from_new rows of the chunk; the launch before read carry[cur]. */
  if (keep > from_new && !plan_stream_copy (stream,
          PLAN_COPY_DEVICE_TO_DEVICE, self->carry[next],
          (guint8 *) self->carry[self->cur] + (self->n_carry - (keep -
                  from_new)) * rb, (keep - from_new) * rb, error))
    return FALSE;
  if (from_new > 0 && !plan_stream_copy (stream, PLAN_COPY_DEVICE_TO_DEVICE,
          (guint8 *) self->carry[next] + (keep - from_new) * rb,
          (const guint8 *) rows + (n_rows - from_new) * rb, from_new * rb,
          error))
    return FALSE;
  self->cur = next;
  self->n_carry = keep;
  return TRUE;
}

/* Device memory for @n_out output rows of an application before the
 * last, the next one's input: kept from chunk to chunk, as the work on
 * the stream reads it in order. */
static gboolean
stage_output (PlanStencilKernel * self, gsize n_out, gpointer * out,
    GError ** error)
{
  gsize size = MAX (n_out, 1) * self->geom.out_row_elems *
      self->geom.out_esize;

  if (size > self->dev_tmp_size) {
    /* Freeing lets the work queued on it finish first. */
    if (self->dev_tmp)
      plan_device_free (self->device, self->dev_tmp);
    self->dev_tmp = NULL;
    self->dev_tmp_size = 0;
    if (!plan_device_alloc (self->device, size, &self->dev_tmp, error))
      return FALSE;
    self->dev_tmp_size = size;
  }
  *out = self->dev_tmp;
  return TRUE;
}

/* One application: the kernel for @n_out output rows, then the copies of
 * the rows later windows need. */
static gboolean
stage_launch (PlanStencilKernel * self, PlanStream * stream,
    const gconstpointer * rows, gsize n_rows, gsize n_out, gpointer out,
    GError ** error)
{
  gint64 n_stream;
  guint j;

  if (n_rows == 0)
    return TRUE;
  n_stream = self->have_end ? (gint64) self->total :
      (gint64) (self->received + n_rows);
  if (n_out > 0 && !launch_rows (self, stream, rows, n_rows, n_out,
          n_stream, out, error))
    return FALSE;
  for (j = 0; j < self->n_inputs; j++) {
    PlanStencilKernel *rows_of = rows_of_input (self, j);

    if (!keep_rows (rows_of, stream, rows[j], n_rows, error))
      return FALSE;
    rows_of->received += n_rows;
  }
  self->next_c += n_out;
  return TRUE;
}

/**
 * plan_stencil_kernel_launch:
 * @kernel: a #PlanStencilKernel
 * @stream: where to queue the work, on the device @kernel was prepared
 *   for (plan_stencil_kernel_prepare(), which this calls the first time)
 * @rows: the next @n_rows rows of the stream, in device memory, ready
 *   in @stream's order
 * @n_rows: their number
 * @out: (nullable): device memory for the
 *   plan_stencil_kernel_push_rows() output rows they complete; %NULL when
 *   that is 0
 * @error: return location for an error
 *
 * Queues, without waiting, the kernel for the output rows that @rows
 * complete, then the device-to-device copies of the rows later windows
 * need. The caller records what waits on @out, and on @rows (the copies
 * read them), after this.
 *
 * Returns: %TRUE, or %FALSE with @error set: the end rows not given (see
 *   plan_stencil_kernel_needs_end_rows()), no device memory, a failed
 *   launch, or %PLAN_ERROR_UNSUPPORTED from
 *   plan_stencil_kernel_prepare() before anything was queued
 *
 * Since: 0.1
 */
gboolean
plan_stencil_kernel_launch (PlanStencilKernel * kernel, PlanStream * stream,
    gconstpointer rows, gsize n_rows, gpointer out, GError ** error)
{
  g_return_val_if_fail (kernel != NULL, FALSE);
  g_return_val_if_fail (kernel->n_inputs == 1, FALSE);

  return plan_stencil_kernel_launch_inputs (kernel, stream, &rows, n_rows,
      out, error);
}

/**
 * plan_stencil_kernel_launch_inputs:
 * @kernel: a #PlanStencilKernel
 * @stream: where to queue the work, as plan_stencil_kernel_launch()
 * @rows: (array): for each input, the next @n_rows rows of its stream, in
 *   device memory, ready in @stream's order
 * @n_rows: their number, the same for every input
 * @out: (nullable): device memory for the output rows they complete
 * @error: return location for an error
 *
 * plan_stencil_kernel_launch() for a stencil of several inputs
 * (plan_stencil_kernel_new_inputs()): each input's halo rows are kept on
 * the device; with %PLAN_BOUNDARY_WRAP along the streaming axis give each
 * input's last rows with plan_stencil_kernel_set_input_end_rows() first.
 *
 * Returns: %TRUE, or %FALSE with @error set, as
 *   plan_stencil_kernel_launch()
 *
 * Since: 0.1
 */
gboolean
plan_stencil_kernel_launch_inputs (PlanStencilKernel * kernel,
    PlanStream * stream, const gconstpointer * rows, gsize n_rows,
    gpointer out, GError ** error)
{
  gconstpointer stage_in;
  gpointer stage_out;
  gsize n_out;

  g_return_val_if_fail (kernel != NULL, FALSE);
  g_return_val_if_fail (stream != NULL, FALSE);
  g_return_val_if_fail (rows != NULL, FALSE);

  if (!plan_stencil_kernel_prepare (kernel, plan_stream_get_device (stream),
          error))
    return FALSE;
  if (n_rows == 0)
    return TRUE;
  if (plan_stencil_kernel_needs_end_rows (kernel, n_rows, NULL)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "boundary=wrap along the first axis needs the last %u rows of the "
        "stream before the first output, and they were not given",
        kernel->geom.halo[0]);
    return FALSE;
  }
  g_return_val_if_fail (plan_stencil_kernel_push_rows (kernel, n_rows) == 0
      || out != NULL, FALSE);
  for (; kernel; kernel = kernel->next) {
    n_out = stage_push_rows (kernel, n_rows);
    stage_out = out;
    if (kernel->next && !stage_output (kernel, n_out, &stage_out, error))
      return FALSE;
    if (!stage_launch (kernel, stream, rows, n_rows, n_out, stage_out,
            error))
      return FALSE;
    /* The next application reads this one's output, its one input. */
    stage_in = stage_out;
    rows = &stage_in;
    n_rows = n_out;
  }
  return TRUE;
}

/* How many output rows one application gives at the end of the stream
 * when @n_more rows still come to it. */
static gboolean
stage_finish_rows (PlanStencilKernel * self, gsize n_more, gsize * n_rows,
    GError ** error)
{
  guint64 n = self->received + n_more;

  *n_rows = 0;
  if (self->have_end && self->total != n) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "the stream has %" G_GUINT64_FORMAT " rows but its source said %"
        G_GUINT64_FORMAT " when asked for its last rows for boundary=wrap",
        n, self->total);
    return FALSE;
  }
  if (self->boundary == PLAN_BOUNDARY_VALID) {
    if (n < 2 * (guint64) self->geom.halo[0] + 1) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "the stream has %" G_GUINT64_FORMAT " rows but the window spans "
          "%u along the first axis; with boundary=valid the output would be "
          "empty", n, 2 * self->geom.halo[0] + 1);
      return FALSE;
    }
    *n_rows = stage_push_rows (self, n_more);
    return TRUE;
  }
  if ((gint64) n > self->next_c)
    *n_rows = n - self->next_c;
  return TRUE;
}

/**
 * plan_stencil_kernel_finish_rows:
 * @kernel: a #PlanStencilKernel
 * @n_rows: (out): how many output rows plan_stencil_kernel_launch_finish()
 *   computes
 * @error: return location for an error
 *
 * Ends the stream launched so far.
 *
 * Returns: %TRUE, or %FALSE with @error set: with %PLAN_BOUNDARY_VALID a
 *   stream shorter than the window, with %PLAN_BOUNDARY_WRAP a stream
 *   whose length differs from the total given with the end rows
 *
 * Since: 0.1
 */
gboolean
plan_stencil_kernel_finish_rows (PlanStencilKernel * kernel, gsize * n_rows,
    GError ** error)
{
  gsize n_more = 0;

  g_return_val_if_fail (kernel != NULL && n_rows != NULL, FALSE);

  for (; kernel; kernel = kernel->next) {
    if (!stage_finish_rows (kernel, n_more, n_rows, error))
      return FALSE;
    n_more = *n_rows;
  }
  return TRUE;
}

/**
 * plan_stencil_kernel_launch_finish:
 * @kernel: a #PlanStencilKernel
 * @stream: the stream the stencil runs on
 * @out: device memory for the plan_stencil_kernel_finish_rows() rows
 * @error: return location for an error
 *
 * Queues the kernel for the last output rows, the cells after the
 * stream's end made by the boundary rule. plan_stencil_kernel_reset()
 * starts a new stream.
 *
 * Returns: %TRUE, or %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
plan_stencil_kernel_launch_finish (PlanStencilKernel * kernel,
    PlanStream * stream, gpointer out, GError ** error)
{
  gconstpointer stage_in = NULL;
  const gconstpointer *rows = NULL;
  gsize n_more = 0, n_out, n_push;
  gpointer stage_out;

  g_return_val_if_fail (kernel != NULL, FALSE);
  g_return_val_if_fail (stream != NULL, FALSE);

  for (; kernel; kernel = kernel->next) {
    if (!stage_finish_rows (kernel, n_more, &n_out, error))
      return FALSE;
    stage_out = out;
    if (kernel->next && !stage_output (kernel, n_out, &stage_out, error))
      return FALSE;
    g_return_val_if_fail (n_out == 0 || (stage_out != NULL
            && kernel->device != NULL), FALSE);
    /* The rows the application before gave at the end, then the rows
     * after the stream's end. */
    n_push = stage_push_rows (kernel, n_more);
    if (!stage_launch (kernel, stream, rows, n_more, n_push, stage_out,
            error))
      return FALSE;
    if (n_out > n_push && !launch_rows (kernel, stream, NULL, 0,
            n_out - n_push, kernel->received, (guint8 *) stage_out + n_push *
            kernel->geom.out_row_elems * kernel->geom.out_esize, error))
      return FALSE;
    kernel->next_c += n_out - n_push;
    stage_in = stage_out;
    rows = &stage_in;
    n_more = n_out;
  }
  return TRUE;
}
