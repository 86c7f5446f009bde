/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planreducerdevice
 * @title: PlanDeviceReducer
 * @short_description: a PlanReducer's reduction in stream order on a device
 *
 * The state of the reduction (the tree's stack, the staged partial block,
 * the columns) lives in device memory; each pushed chunk queues kernels on
 * the stream without waiting, and only the final values come back:
 * plan_device_reducer_finish() copies the result (one value, or one per
 * column) to the host, and with #PLAN_REDUCE_AXIS_INNER each push copies
 * the chunk's per-row values.
 *
 * The kernels run the steps of planreducer-steps.h, which repeat the CPU
 * reducer's order of operations, so the results are the CPU's bits for
 * any chunking: on CUDA devices as kernels compiled by NVRTC (once per
 * architecture, through its cache), on the sim and cpu devices as host
 * kernels running the same steps in the kernels' order.
 *
 * Unstable API.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planreducerdevice.h"
#include "libplan/expr/expr-private.h"
#include "planreducer-private.h"
#include <libplan/planerror.h>
#include <libplan/plannvrtc.h>
#include "libplan/core/plan-private.h"
#include "reduce-cuda-sources.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (plan_reducer_device_debug);
#define GST_CAT_DEFAULT plan_reducer_device_debug

typedef enum
{
  K_BLOCKS,
  K_RESET,
  K_STAGE,
  K_PUSH,
  K_FINISH,
  K_COLUMNS,
  K_COLUMNS_FINAL,
  K_ROWS,
  K_N
} KernelId;

static const gchar *const kernel_names[K_N] = {
  "prk_k_blocks", "prk_k_reset", "prk_k_stage", "prk_k_push",
  "prk_k_finish", "prk_k_columns", "prk_k_columns_final", "prk_k_rows"
};

/* A custom combiner's kernels (kernels/cuda/reduce_custom.cuh), with the
 * same arguments. */
static const gchar *const custom_kernel_names[K_N] = {
  "prk_c_blocks", "prk_c_reset", "prk_c_stage", "prk_c_push",
  "prk_c_finish", "prk_c_columns", "prk_c_columns_final", "prk_c_rows"
};


/* The steps' text, as NVRTC compiles it: planreducer-steps.h and the
 * run over its steps (planreducer-steps-run.h), one after the other, with
 * no include between them. */
static GString *
steps_source (const PrkParams * P)
{
  GString *s = g_string_new ("#define PLAN_REDUCER_STEPS_EMBEDDED 1\n");

  /* Kernels for this reduction alone (planreducer-steps.h, PRK_ALGO()). */
  if (P != NULL)
    g_string_append_printf (s, "#define PRK_FIXED_ALGO %d\n"
        "#define PRK_FIXED_FINAL %d\n#define PRK_FIXED_DTYPE %d\n"
        "#define PRK_FIXED_KIND %d\n", P->algo, P->final, P->dtype, P->kind);

  g_string_append (s, plan_reduce_cuda_steps);
  g_string_append_c (s, '\n');
  g_string_append (s, plan_reduce_cuda_steps_run);
  return s;
}

/* The kernels of a custom combiner: the steps, the CUDA generated from the
 * combiner (and from the cast of the input to the accumulator dtype), and
 * the custom tree over them. */
static gchar *
custom_source (PlanReducer * reducer, const PrkParams * P)
{
  PlanDType in = P->dtype, acc = P->out_dtype;
  PlanExpr *combiner, *cast;
  GString *s = steps_source (P);
  gchar *code;

  _plan_reducer_get_custom_exprs (reducer, &combiner, &cast);
  code = plan_expr_to_cuda (combiner, "prk_comb");
  g_string_append_printf (s, "\n%s\n", code);
  g_free (code);
  if (cast) {
    code = plan_expr_to_cuda (cast, "prk_cast");
    g_string_append_printf (s, "%s\n#define PRK_CAST(v) prk_cast_element "
        "(v)\n", code);
    g_free (code);
  } else {
    g_string_append (s, "#define PRK_CAST(v) (v)\n");
  }
  g_string_append_printf (s, "#define PRK_T %s\n#define PRK_IN_T %s\n%s",
      _plan_cuda_type_name (acc), _plan_cuda_type_name (in), plan_reduce_cuda_custom);
  return g_string_free (s, FALSE);
}

struct _PlanDeviceReducer
{
  PlanReducer *reducer;
  PlanStream *stream;
  PlanDevice *device;
  gboolean cuda;
  PlanKernel *kernels[K_N];

  PrkParams params;
  PlanReduceAxis mode;
  gsize row_elements;
  gsize out_size;

  /* device memory */
  gpointer tree;                /* PrkTree */
  gpointer staging;             /* PRK_BLOCK input elements */
  gpointer results;             /* PrkAcc [results_len] */
  gsize results_len;
  gpointer cols;                /* PrkAcc [row_elements] (mode ROWS) */
  gpointer nodes;               /* PrkAcc [nodes_slots][row_elements]: the
                                 * columns' trees (mode ROWS) */
  guint nodes_slots;
  gpointer out;                 /* results [out_len bytes] */
  gsize out_len;
  gpointer flag;                /* prk_u64: an all-NaN slice */

  /* host, streaming thread */
  guint64 n_rows;
  guint64 n_blocks;
  gsize staged;
  guint64 zero;                 /* the source of the flag's reset */
  guint64 flag_host;
  gpointer result_host;         /* where results are copied to */
  gsize result_host_len;
};

/* The reduction kernels' source: the steps, then the kernels; for the
 * reduction of @P only, or for any (%NULL). */
static gchar *
kernel_source (const PrkParams * P)
{
  GString *s = steps_source (P);

  g_string_append_c (s, '\n');
  g_string_append (s, plan_reduce_cuda_kernel);
  return g_string_free (s, FALSE);
}

/* plan_device_reducer_get_cuda_source: a test hook (planreducer-private.h).
 * @reducer: (nullable): a reducer, or %NULL
 *
 * The CUDA C of the reduction kernels: the steps of planreducer-steps.h
 * and the __global__ functions over them, as NVRTC compiles them (with
 * --fmad=false) for a CUDA device: specialised to @reducer's operation
 * and dtype as the device reducer compiles them, or for every reduction
 * (%NULL).
 *
 * Returns: (transfer full): the source
 */
gchar *
plan_device_reducer_get_cuda_source (PlanReducer * reducer)
{
  PrkParams p;

  if (reducer == NULL)
    return kernel_source (NULL);
  if (!plan_reducer_get_device_steps (reducer, &p, NULL, NULL))
    return NULL;
  return kernel_source (&p);
}

/* plan_device_reducer_get_custom_cuda_source: a test hook (planreducer-private.h).
 * @reducer: a custom reducer (plan_reducer_new_custom())
 *
 * The CUDA C of a custom combiner's reduction kernels.
 *
 * Returns: (transfer full) (nullable): the source, or %NULL when @reducer
 *   is not custom
 */
gchar *
plan_device_reducer_get_custom_cuda_source (PlanReducer * reducer)
{
  PrkParams p;

  g_return_val_if_fail (reducer != NULL, NULL);
  if (!plan_reducer_get_device_steps (reducer, &p, NULL, NULL)
      || p.algo != PRK_A_CUSTOM)
    return NULL;
  return custom_source (reducer, &p);
}

static gboolean
build_kernels (PlanDeviceReducer * dr, GError ** error)
{
  gboolean custom = dr->params.algo == PRK_A_CUSTOM;
  gint major = 0, minor = 0;
  gchar *arch, *source = custom ? custom_source (dr->reducer, &dr->params)
      : kernel_source (&dr->params);
  GBytes *code = NULL;
  gboolean ok;
  guint i;

  plan_device_get_compute_capability (dr->device, &major, &minor);
  arch = g_strdup_printf ("sm_%d%d", major, minor);
  ok = plan_nvrtc_compile (source, arch, &code, error);
  for (i = 0; ok && i < K_N; i++) {
    dr->kernels[i] = plan_kernel_new (dr->device, g_bytes_get_data (code,
            NULL), g_bytes_get_size (code), custom ? custom_kernel_names[i]
        : kernel_names[i], error);
    ok = dr->kernels[i] != NULL;
  }
  g_clear_pointer (&code, g_bytes_unref);
  g_free (arch);
  g_free (source);
  return ok;
}

/* One step on the host (sim, cpu devices): the kernel's work in its order. */
typedef struct
{
  KernelId id;
  PrkParams P;
  guint64 a, b, c, d;
} HostStep;

static void
host_step_run (gpointer * ptrs, guint n_ptrs, gpointer data)
{
  HostStep *s = data;
  const PrkParams *P = &s->P;
  guint64 r;

  switch (s->id) {
    case K_BLOCKS:             /* x, results; a n_blocks, b base */
      prk_host_blocks (P, ptrs[0], s->a, s->b, ptrs[1]);
      break;
    case K_RESET:{             /* tree, cols; a n_cols */
      PrkTree *t = ptrs[0];
      PrkAcc *cols = ptrs[1];

      t->depth = 0;
      for (r = 0; r < s->a; r++)
        cols[r] = P->identity;
      break;
    }
    case K_STAGE:              /* tree, staging, x; a staged, b take, c base */
      prk_step_stage (P, ptrs[0], ptrs[1], ptrs[2], s->a, s->b, s->c);
      break;
    case K_PUSH:               /* tree, results, staging, tail; a n, b n_tail */
      prk_step_push (P, ptrs[0], ptrs[1], s->a, ptrs[2], ptrs[3], s->b);
      break;
    case K_FINISH:             /* tree, staging, out, flag; a staged, b base,
                                 * c count */
      *(guint64 *) ptrs[3] = prk_step_finish (P, ptrs[0], ptrs[1], s->a,
          s->b, s->c, ptrs[2]);
      break;
    case K_COLUMNS:            /* cols, nodes, x; a n_cols, b n_rows,
                                 * c first_row */
      prk_host_columns (P, ptrs[0], ptrs[1], s->a, ptrs[2], s->b, s->c);
      break;
    case K_COLUMNS_FINAL:{     /* cols, nodes, out, flag; a n_cols, b count,
                                 * c out_size */
      PrkAcc acc;

      for (r = 0; r < s->a; r++) {
        prk_column_fold (P, ptrs[1], s->a, r, (PrkAcc *) ptrs[0] + r, s->b,
            &acc);
        if (prk_final (P, &acc, s->b, (guint8 *) ptrs[2] + r * s->c))
          *(guint64 *) ptrs[3] = 1;
      }
      break;
    }
    case K_ROWS:               /* x, out, flag; a n_rows, b row_elements,
                                 * c out_size */
      for (r = 0; r < s->a; r++)
        if (prk_reduce_row (P, (const guint8 *) ptrs[0] + r * s->b *
                P->in_size, s->b, (guint8 *) ptrs[1] + r * s->c))
          *(guint64 *) ptrs[2] = 1;
      break;
    default:
      g_assert_not_reached ();
  }
}

/* Queues step @id: on CUDA the kernel with @args (pointers to each
 * argument after the params), on a @grid of @threads-thread blocks; on the
 * host the step with the device pointers @ptrs and the scalars. */
static gboolean
queue_step (PlanDeviceReducer * dr, KernelId id, gpointer * ptrs,
    guint n_ptrs, const guint64 * scalars, guint n_scalars, gpointer * args,
    guint n_args, guint64 work, guint threads, GError ** error)
{
  if (dr->cuda) {
    gpointer *all = g_newa (gpointer, n_args + 1);
    guint grid[3] = { 1, 1, 1 }, block[3] = { 1, 1, 1 };

    all[0] = &dr->params;
    memcpy (all + 1, args, n_args * sizeof (gpointer));
    block[0] = threads;
    grid[0] = (guint) CLAMP ((work + threads - 1) / MAX (threads, 1), 1,
        65535);
    if (threads == 1)
      grid[0] = 1;
    return plan_stream_launch_kernel (dr->stream, dr->kernels[id], grid,
        block, 0, all, error);
  } else {
    HostStep *s = g_new0 (HostStep, 1);

    s->id = id;
    s->P = dr->params;
    s->a = n_scalars > 0 ? scalars[0] : 0;
    s->b = n_scalars > 1 ? scalars[1] : 0;
    s->c = n_scalars > 2 ? scalars[2] : 0;
    s->d = n_scalars > 3 ? scalars[3] : 0;
    return plan_stream_launch_host_kernel (dr->stream, host_step_run, ptrs,
        n_ptrs, s, g_free, error);
  }
}

static gboolean
device_alloc (PlanDeviceReducer * dr, gsize size, gpointer * ptr,
    GError ** error)
{
  return plan_device_alloc (dr->device, MAX (size, 8), ptr, error);
}

static void
device_clear (PlanDeviceReducer * dr, gpointer * ptr)
{
  if (*ptr) {
    plan_device_free (dr->device, *ptr);
    *ptr = NULL;
  }
}

/* Grows device buffer @ptr of *@len bytes to at least @size. */
static gboolean
ensure_size (PlanDeviceReducer * dr, gpointer * ptr, gsize * len, gsize size,
    GError ** error)
{
  if (*ptr && *len >= size)
    return TRUE;
  /* Freeing lets the queued work that still uses it finish first. */
  device_clear (dr, ptr);
  *len = 0;
  if (!device_alloc (dr, size, ptr, error))
    return FALSE;
  *len = size;
  return TRUE;
}

/* Makes room in the columns' trees for the nodes of @n_blocks blocks:
 * one slot per bit of the block count. The nodes so far are copied on the
 * stream, so the kernels queued before and after see them in order. */
static gboolean
ensure_nodes (PlanDeviceReducer * dr, guint64 n_blocks, GError ** error)
{
  gsize slot_size = dr->row_elements * sizeof (PrkAcc);
  guint slots = 1;
  gpointer nodes = NULL;

  while (slots < 64 && (n_blocks >> slots) != 0)
    slots++;
  if (dr->nodes && dr->nodes_slots >= slots)
    return TRUE;
  slots = MAX (slots, 2 * dr->nodes_slots);
  slots = MIN (slots, 64);
  if (!device_alloc (dr, slots * slot_size, &nodes, error))
    return FALSE;
  if (dr->nodes && !plan_stream_copy (dr->stream, PLAN_COPY_DEVICE_TO_DEVICE,
          nodes, dr->nodes, dr->nodes_slots * slot_size, error)) {
    device_clear (dr, &nodes);
    return FALSE;
  }
  device_clear (dr, &dr->nodes);
  dr->nodes = nodes;
  dr->nodes_slots = slots;
  GST_DEBUG ("%s: room for %u tree nodes a column", plan_reducer_get_name
      (dr->reducer), slots);
  return TRUE;
}

/**
 * plan_device_reducer_new:
 * @reducer: the reduction, set up for its input (its ddof is read now)
 * @stream: the stream to queue the work on
 * @error: return location for an error
 *
 * Makes the device twin of @reducer on @stream's device and resets it. On
 * CUDA devices the kernels are compiled by NVRTC for the device's
 * architecture (through the on-disk cache) and loaded.
 *
 * Returns: (transfer full) (nullable): the device reducer, or %NULL with
 *   @error set: %PLAN_ERROR_UNSUPPORTED when NVRTC cannot build the
 *   kernels (the caller reduces on the host then),
 *   %PLAN_ERROR_DEVICE when device memory runs out.
 *
 * Since: 0.1
 */
PlanDeviceReducer *
plan_device_reducer_new (PlanReducer * reducer, PlanStream * stream,
    GError ** error)
{
  PlanDeviceReducer *dr;
  PlanArrayInfo out;
  GError *err = NULL;
  static gsize debug_done = 0;

  g_return_val_if_fail (reducer != NULL, NULL);
  g_return_val_if_fail (stream != NULL, NULL);

  /* Elements start on threads of their own: once, for all of them. */
  if (g_once_init_enter (&debug_done)) {
    GST_DEBUG_CATEGORY_INIT (plan_reducer_device_debug, "planreducerdevice",
        0, "Reductions on devices");
    g_once_init_leave (&debug_done, 1);
  }

  dr = g_new0 (PlanDeviceReducer, 1);
  plan_reducer_get_device_steps (reducer, &dr->params, &dr->mode,
      &dr->row_elements);
  dr->reducer = plan_reducer_ref (reducer);
  dr->stream = plan_stream_ref (stream);
  dr->device = gst_object_ref (plan_stream_get_device (stream));
  dr->cuda = plan_device_get_kind (dr->device) == PLAN_DEVICE_KIND_CUDA;
  plan_reducer_get_output_info (reducer, &out);
  dr->out_size = plan_dtype_get_size (out.dtype);

  if (dr->cuda && !build_kernels (dr, &err)) {
    GST_WARNING ("no CUDA reduction kernels on %s: %s",
        plan_device_get_name (dr->device), err->message);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "could not build the reduction kernels: %s", err->message);
    g_clear_error (&err);
    goto failed;
  }
  if (!device_alloc (dr, sizeof (PrkTree), &dr->tree, error)
      || !device_alloc (dr, PRK_BLOCK * dr->params.in_size, &dr->staging,
          error)
      || !device_alloc (dr, sizeof (guint64), &dr->flag, error)
      || !device_alloc (dr, dr->mode == PLAN_REDUCE_AXIS_ROWS ?
          dr->row_elements * sizeof (PrkAcc) : 8, &dr->cols, error)
      || (dr->mode == PLAN_REDUCE_AXIS_ROWS && !ensure_nodes (dr, 1, error)))
    goto failed;
  if (dr->mode != PLAN_REDUCE_AXIS_INNER && !ensure_size (dr, &dr->out,
          &dr->out_len, (dr->mode == PLAN_REDUCE_AXIS_ROWS ?
              dr->row_elements : 1) * dr->out_size, error))
    goto failed;
  if (!plan_device_reducer_reset (dr, error))
    goto failed;
  GST_DEBUG ("%s on %s: algorithm %d, final %d, mode %d",
      plan_reducer_get_name (reducer), plan_device_get_name (dr->device),
      dr->params.algo, dr->params.final, dr->mode);
  return dr;

failed:
  plan_device_reducer_free (dr);
  return NULL;
}

/**
 * plan_device_reducer_free:
 * @reducer: (transfer full): a device reducer
 *
 * Frees @reducer once the work queued on its stream is done.
 *
 * Since: 0.1
 */
void
plan_device_reducer_free (PlanDeviceReducer * reducer)
{
  PlanDeviceReducer *dr = reducer;
  guint i;

  if (dr == NULL)
    return;
  if (dr->stream && !plan_stream_synchronize (dr->stream, NULL))
    GST_WARNING ("the stream failed before the reducer was freed");
  if (dr->device) {
    device_clear (dr, &dr->tree);
    device_clear (dr, &dr->staging);
    device_clear (dr, &dr->results);
    device_clear (dr, &dr->cols);
    device_clear (dr, &dr->nodes);
    device_clear (dr, &dr->out);
    device_clear (dr, &dr->flag);
  }
  for (i = 0; i < K_N; i++)
    plan_clear_kernel (&dr->kernels[i]);
  plan_clear_stream (&dr->stream);
  gst_clear_object (&dr->device);
  g_clear_pointer (&dr->reducer, plan_reducer_unref);
  g_free (dr->result_host);
  g_free (dr);
}

/**
 * plan_device_reducer_reset:
 * @reducer: a device reducer
 * @error: return location for an error
 *
 * Queues the reset of the state, to reduce a new stream (as
 * plan_reducer_reset(), which it also calls on the CPU reducer).
 *
 * Returns: whether the reset was queued.
 *
 * Since: 0.1
 */
gboolean
plan_device_reducer_reset (PlanDeviceReducer * reducer, GError ** error)
{
  PlanDeviceReducer *dr = reducer;
  guint64 n_cols = dr->mode == PLAN_REDUCE_AXIS_ROWS ? dr->row_elements : 0;
  gpointer ptrs[2] = { dr->tree, dr->cols };
  gpointer args[3] = { &ptrs[0], &ptrs[1], &n_cols };

  dr->n_rows = 0;
  dr->n_blocks = 0;
  dr->staged = 0;
  plan_reducer_reset (dr->reducer);
  return queue_step (dr, K_RESET, ptrs, 2, &n_cols, 1, args, 3, n_cols, 256,
      error);
}

static gboolean
push_all (PlanDeviceReducer * dr, const guint8 * x, guint64 n,
    GError ** error)
{
  gsize es = dr->params.in_size;
  guint64 n_blocks, tail;

  if (dr->staged > 0) {
    guint64 take = MIN (n, PRK_BLOCK - dr->staged);
    guint64 staged = dr->staged, base = dr->n_blocks * PRK_BLOCK;
    gpointer ptrs[3] = { dr->tree, dr->staging, (gpointer) x };
    guint64 sc[3] = { staged, take, base };
    gpointer args[6] = { &ptrs[0], &ptrs[1], &ptrs[2], &sc[0], &sc[1],
      &sc[2]
    };

    if (!queue_step (dr, K_STAGE, ptrs, 3, sc, 3, args, 6, 1, 1, error))
      return FALSE;
    dr->staged += take;
    x += take * es;
    n -= take;
    if (dr->staged < PRK_BLOCK)
      return TRUE;
    dr->n_blocks++;
    dr->staged = 0;
  }

  n_blocks = n / PRK_BLOCK;
  tail = n - n_blocks * PRK_BLOCK;
  if (n_blocks > 0) {
    guint64 base = dr->n_blocks * PRK_BLOCK;
    gpointer ptrs[2];
    guint64 sc[2] = { n_blocks, base };
    gpointer args[4];

    if (!ensure_size (dr, &dr->results, &dr->results_len,
            n_blocks * sizeof (PrkAcc), error))
      return FALSE;
    ptrs[0] = (gpointer) x;
    ptrs[1] = dr->results;
    args[0] = &ptrs[0];
    args[1] = &sc[0];
    args[2] = &sc[1];
    args[3] = &ptrs[1];
    if (!queue_step (dr, K_BLOCKS, ptrs, 2, sc, 2, args, 4,
            n_blocks * PRK_LANES, PRK_BLOCKS_PER_CTA * PRK_LANES, error))
      return FALSE;
  }
  if (n_blocks > 0 || tail > 0) {
    gpointer ptrs[4] = { dr->tree, dr->results ? dr->results : dr->tree,
      dr->staging, (gpointer) (x + n_blocks * PRK_BLOCK * es)
    };
    guint64 sc[2] = { n_blocks, tail };
    gpointer args[6] = { &ptrs[0], &ptrs[1], &sc[0], &ptrs[2], &ptrs[3],
      &sc[1]
    };

    if (!queue_step (dr, K_PUSH, ptrs, 4, sc, 2, args, 6, 1, 1, error))
      return FALSE;
  }
  dr->n_blocks += n_blocks;
  dr->staged = tail;
  return TRUE;
}

/* Copies @size bytes of device memory @src to @dst and waits: where the
 * host must have the values. The copy lands in host memory of ours, and
 * only then in @dst: if the wait is skipped (the sim device's test hook,
 * PLAN_WAIT_SITE_RESULT), the host reads stale values, but the late copy
 * still writes memory we own until the stream is done. */
static gboolean
download (PlanDeviceReducer * dr, gpointer dst, gconstpointer src,
    gsize size, GError ** error)
{
  if (dr->result_host_len < size) {
    g_free (dr->result_host);
    dr->result_host = g_malloc0 (size);
    dr->result_host_len = size;
  }
  if (!plan_stream_copy (dr->stream, PLAN_COPY_DEVICE_TO_HOST,
          dr->result_host, src, size, error)
      || !plan_stream_copy (dr->stream, PLAN_COPY_DEVICE_TO_HOST,
          &dr->flag_host, dr->flag, sizeof (guint64), error))
    return FALSE;
  if (!_plan_stream_synchronize_at (dr->stream, PLAN_WAIT_SITE_RESULT,
          error))
    return FALSE;
  memcpy (dst, dr->result_host, size);
  return TRUE;
}

static gboolean
clear_flag (PlanDeviceReducer * dr, GError ** error)
{
  dr->zero = 0;
  return plan_stream_copy (dr->stream, PLAN_COPY_HOST_TO_DEVICE, dr->flag,
      &dr->zero, sizeof (guint64), error);
}

/**
 * plan_device_reducer_push:
 * @reducer: a device reducer
 * @rows: (not nullable): device pointer to @n_rows rows of the input,
 *   C-contiguous, valid until the work queued now is done (the caller
 *   records a use event after this call)
 * @n_rows: the number of rows
 * @out: with #PLAN_REDUCE_AXIS_INNER, host memory for @n_rows results,
 *   written before this returns (the host waits for them); %NULL otherwise
 * @error: return location for an error
 *
 * Queues the reduction of the next @n_rows rows without waiting (except
 * for the per-row results of #PLAN_REDUCE_AXIS_INNER).
 *
 * Returns: whether the work was queued; %FALSE with @error set when the
 *   device failed, or (#PLAN_REDUCE_AXIS_INNER) when nanargmin or
 *   nanargmax found a row of NaNs, with the CPU reducer's message.
 *
 * Since: 0.1
 */
gboolean
plan_device_reducer_push (PlanDeviceReducer * reducer, gconstpointer rows,
    gsize n_rows, gpointer out, GError ** error)
{
  PlanDeviceReducer *dr = reducer;
  guint64 n_cols = dr->row_elements;
  gboolean ok = TRUE;

  g_return_val_if_fail (dr != NULL, FALSE);

  if (n_rows == 0)
    return TRUE;
  switch (dr->mode) {
    case PLAN_REDUCE_AXIS_1:   /* made INNER when the reducer is made */
      g_assert_not_reached ();
      break;
    case PLAN_REDUCE_AXIS_ALL:
      ok = push_all (dr, rows, n_rows * dr->row_elements, error);
      break;
    case PLAN_REDUCE_AXIS_ROWS:{
      gpointer ptrs[3];
      guint64 sc[3] = { n_cols, n_rows, dr->n_rows };
      gpointer args[6] = { &ptrs[0], &ptrs[1], &sc[0], &ptrs[2], &sc[1],
        &sc[2]
      };

      if (!ensure_nodes (dr, (dr->n_rows + n_rows) / dr->params.col_rows,
              error))
        return FALSE;
      ptrs[0] = dr->cols;
      ptrs[1] = dr->nodes;
      ptrs[2] = (gpointer) rows;
      ok = queue_step (dr, K_COLUMNS, ptrs, 3, sc, 3, args, 6, n_cols, 128,
          error);
      break;
    }
    case PLAN_REDUCE_AXIS_INNER:{
      gpointer ptrs[3];
      guint64 sc[3] = { n_rows, n_cols, dr->out_size };
      gint out_size = dr->out_size;
      gpointer args[6];

      if (out == NULL) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
            "a reduction of each row needs an output for %" G_GSIZE_FORMAT
            " rows", n_rows);
        return FALSE;
      }
      if (!ensure_size (dr, &dr->out, &dr->out_len, n_rows * dr->out_size,
              error) || !clear_flag (dr, error))
        return FALSE;
      ptrs[0] = (gpointer) rows;
      ptrs[1] = dr->out;
      ptrs[2] = dr->flag;
      args[0] = &ptrs[0];
      args[1] = &sc[0];
      args[2] = &sc[1];
      args[3] = &out_size;
      args[4] = &ptrs[1];
      args[5] = &ptrs[2];
      ok = queue_step (dr, K_ROWS, ptrs, 3, sc, 3, args, 6, n_rows, 64,
          error)
          && download (dr, out, dr->out, n_rows * dr->out_size, error);
      if (ok && dr->flag_host) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
            "cannot compute %s of a row whose values are all NaN (numpy: "
            "All-NaN slice encountered)", plan_reducer_get_name
            (dr->reducer));
        ok = FALSE;
      }
      break;
    }
  }
  dr->n_rows += n_rows;
  _plan_reducer_set_n_rows (dr->reducer, dr->n_rows);
  return ok;
}

/**
 * plan_device_reducer_finish:
 * @reducer: a device reducer
 * @out: (nullable): host memory for the result (the output info's
 *   elements); %NULL with #PLAN_REDUCE_AXIS_INNER, which has nothing left
 * @error: return location for an error
 *
 * Queues the end of the reduction, copies the result to @out and waits for
 * it: the one host wait of a reduction of the whole or of the columns.
 *
 * Returns: %TRUE, or %FALSE with @error set as plan_reducer_finish() sets
 *   it (an empty stream for an op without identity, an all-NaN slice for
 *   nanargmin/nanargmax), or when the device failed.
 *
 * Since: 0.1
 */
gboolean
plan_device_reducer_finish (PlanDeviceReducer * reducer, gpointer out,
    GError ** error)
{
  PlanDeviceReducer *dr = reducer;
  gboolean ok;

  g_return_val_if_fail (dr != NULL, FALSE);

  if (dr->mode == PLAN_REDUCE_AXIS_INNER)
    return TRUE;
  g_return_val_if_fail (out != NULL, FALSE);
  /* Nothing was pushed: the CPU reducer holds the same (empty) state and
   * gives the result, or numpy's error, itself. */
  if (dr->n_rows == 0)
    return plan_reducer_finish (dr->reducer, out, error);

  /* The ddof may have changed since the start. */
  dr->params.ddof = plan_reducer_get_ddof (dr->reducer);
  if (!clear_flag (dr, error))
    return FALSE;
  if (dr->mode == PLAN_REDUCE_AXIS_ALL) {
    gpointer ptrs[4] = { dr->tree, dr->staging, dr->out, dr->flag };
    guint64 sc[3] = { dr->staged, dr->n_blocks * PRK_BLOCK,
      dr->n_rows * dr->row_elements
    };
    gpointer args[7] = { &ptrs[0], &ptrs[1], &sc[0], &sc[1], &sc[2],
      &ptrs[2], &ptrs[3]
    };

    ok = queue_step (dr, K_FINISH, ptrs, 4, sc, 3, args, 7, 1, 1, error)
        && download (dr, out, dr->out, dr->out_size, error);
  } else {
    gpointer ptrs[4] = { dr->cols, dr->nodes, dr->out, dr->flag };
    guint64 sc[3] = { dr->row_elements, dr->n_rows, dr->out_size };
    gpointer args[6] = { &ptrs[0], &ptrs[1], &sc[0], &sc[1], &ptrs[2],
      &ptrs[3]
    };

    ok = queue_step (dr, K_COLUMNS_FINAL, ptrs, 4, sc, 3, args, 6,
        dr->row_elements, 128, error)
        && download (dr, out, dr->out, dr->row_elements * dr->out_size,
        error);
  }
  if (ok && dr->flag_host) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "cannot compute %s: %s (numpy: All-NaN slice encountered)",
        plan_reducer_get_name (dr->reducer),
        _plan_reducer_get_all_nan_text (dr->reducer));
    return FALSE;
  }
  return ok;
}
