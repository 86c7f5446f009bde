/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanStencilKernel on a device: the kernel for the output rows each chunk
 * completes, queued on a stream with the copies that keep the rows the
 * next chunk's windows need (plan_stencil_kernel_prepare(), _launch(),
 * _launch_finish()); CUDA C generated from the expression on CUDA devices
 * (plan_stencil_kernel_to_cuda()), the same index arithmetic as a host
 * kernel on the cpu and sim devices. See planstencilkernel.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planstencilkernel-private.h"
#include "stencil-cuda-sources.h"

#define GST_CAT_DEFAULT plan_stencil_kernel_debug

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
    if (self->geom.halo[0] > 0 && n < 2 * (guint64) self->geom.halo[0] + 1) {
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
