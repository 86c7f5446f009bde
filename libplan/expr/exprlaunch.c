/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Expressions on devices: plan_expr_launch() queues an expression on a
 * stream, as its generated CUDA kernel on CUDA devices and as a host kernel
 * on the cpu and sim devices, so that every element (ours or a third
 * party's) gets GPU execution of an expression from one place. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planexpr.h"
#include <libplan/planerror.h>
#include <libplan/plandevice.h>
#include <libplan/plannvrtc.h>
#include "expr-private.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (plan_expr_launch_debug);
#define GST_CAT_DEFAULT plan_expr_launch_debug

/* The expression as a CUDA kernel on @device: generated CUDA C, compiled
 * by NVRTC for the device's architecture (cached on disk), loaded once per
 * expression. */
static PlanKernel *
cuda_kernel (PlanExpr * expr, PlanDevice * device, GError ** error)
{
  gchar *source;
  PlanKernel *kernel = NULL;
  ExprDeviceCache *cache = _plan_expr_get_device_cache (expr);
  GError *err = NULL;

  g_mutex_lock (&cache->lock);
  if (cache->kernel && cache->device == device) {
    kernel = plan_kernel_ref (cache->kernel);
    g_mutex_unlock (&cache->lock);
    return kernel;
  }
  source = plan_expr_to_cuda (expr, "plan_expr_kernel");
  kernel = plan_nvrtc_build_kernel (device, source, "plan_expr_kernel", &err);
  if (kernel) {
    if (cache->kernel)
      cache->free_kernel (cache->kernel);
    cache->kernel = plan_kernel_ref (kernel);
    cache->free_kernel = (GDestroyNotify) plan_kernel_unref;
    cache->device = device;
  } else {
    GST_WARNING ("no CUDA kernel for %s on %s: %s",
        plan_expr_get_source (expr), plan_device_get_name (device),
        err->message);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "could not build a CUDA kernel for the expression: %s",
        err->message);
    g_clear_error (&err);
  }
  g_mutex_unlock (&cache->lock);
  g_free (source);
  return kernel;
}

/* Whether name @i of @expr is a scalar parameter: given as a host pointer
 * to its value, passed by value. */
static gboolean
is_scalar (PlanExpr * expr, guint i)
{
  const ExprBcast *b = _plan_expr_get_bcast (expr, i);

  return b != NULL && b->kind == EXPR_BCAST_SCALAR && plan_expr_uses_name
      (expr, i);
}

typedef struct
{
  PlanExpr *expr;
  gsize n;
  guint n_threads;
  guint n_names;
  gint *slot;                   /* [n_names]: index into ptrs, or -1 */
  gpointer *inputs;             /* [n_names]: scalars point into values */
  ExprValue *values;            /* [n_names]: the scalars, at launch */
} HostLaunch;

static void
host_launch_free (gpointer data)
{
  HostLaunch *job = data;

  plan_expr_unref (job->expr);
  g_free (job->slot);
  g_free (job->inputs);
  g_free (job->values);
  g_free (job);
}

static void
host_launch_run (gpointer * ptrs, guint n_ptrs, gpointer data)
{
  HostLaunch *job = data;
  guint i;

  for (i = 0; i < job->n_names; i++)
    if (job->slot[i] >= 0)
      job->inputs[i] = ptrs[job->slot[i]];
  plan_expr_eval_parallel (job->expr, (const gconstpointer *) job->inputs,
      ptrs[n_ptrs - 1], job->n, job->n_threads);
}

/**
 * plan_expr_launch: (skip)
 * @expr: a compiled expression
 * @stream: where to queue the evaluation
 * @ptrs: (array): device pointers: @n elements of each bound name of
 *   @expr, in name order, then the output's
 * @n: the number of elements
 * @n_threads: worker threads for the host evaluation on the cpu and sim
 *   devices, 0 for one per core
 * @error: return location for an error
 *
 * Queues the evaluation of @expr over @n elements on @stream, without
 * waiting: on a CUDA device as the expression's generated CUDA kernel
 * (compiled with NVRTC for the device once per expression, and cached on
 * disk across runs), on the cpu and sim devices as a host kernel in stream
 * order. The caller orders @stream after the inputs' writers and records
 * what waits on the output, as for any launch.
 *
 * Returns: %TRUE when queued; %FALSE with @error set, with
 *   %PLAN_ERROR_UNSUPPORTED when this device cannot run the expression
 *   (NVRTC missing, say), so that a caller can fall back to the host.
 *
 * Since: 0.1
 */
gboolean
plan_expr_launch (PlanExpr * expr, PlanStream * stream, gpointer * ptrs,
    gsize n, guint n_threads, GError ** error)
{
  static gsize debug_done = 0;
  PlanDevice *device;
  HostLaunch *job;

  g_return_val_if_fail (expr != NULL, FALSE);
  g_return_val_if_fail (stream != NULL, FALSE);
  g_return_val_if_fail (ptrs != NULL, FALSE);

  /* Launched from every element's thread: once, for all of them. */
  if (g_once_init_enter (&debug_done)) {
    GST_DEBUG_CATEGORY_INIT (plan_expr_launch_debug, "planexprlaunch", 0,
        "Expressions on devices");
    g_once_init_leave (&debug_done, 1);
  }
  device = plan_stream_get_device (stream);
  if (plan_device_get_kind (device) == PLAN_DEVICE_KIND_CUDA) {
    /* The generated kernel takes one pointer per bound name, the output
     * and the element count, and loops over its grid. */
    PlanKernel *kernel = cuda_kernel (expr, device, error);
    guint64 count = n;
    guint n_names = plan_expr_get_n_names (expr);
    gpointer *args = g_newa (gpointer, n_names + 2);
    const guint block[3] = { 256, 1, 1 };
    guint grid[3] = { 1, 1, 1 };
    gboolean ok;
    guint i;

    if (kernel == NULL)
      return FALSE;
    for (i = 0; i <= n_names; i++)
      args[i] = i < n_names && is_scalar (expr, i) ? ptrs[i] : &ptrs[i];
    args[n_names + 1] = &count;
    grid[0] = (guint) CLAMP ((n + 255) / 256, 1, 65535);
    ok = plan_stream_launch_kernel (stream, kernel, grid, block, 0, args,
        error);
    plan_kernel_unref (kernel);
    return ok;
  }

  /* Device pointers are made accessible to the host kernel; the values
   * of scalar parameters are taken now, and unused names are left out
   * (they may be NULL or host pointers). */
  {
    guint n_names = plan_expr_get_n_names (expr), i, n_dev = 0;
    gpointer *dev = g_newa (gpointer, n_names + 1);

    job = g_new0 (HostLaunch, 1);
    job->expr = plan_expr_ref (expr);
    job->n = n;
    job->n_threads = n_threads;
    job->n_names = n_names;
    job->slot = g_new (gint, MAX (n_names, 1));
    job->inputs = g_new0 (gpointer, MAX (n_names, 1));
    job->values = g_new0 (ExprValue, MAX (n_names, 1));
    for (i = 0; i < n_names; i++) {
      job->slot[i] = -1;
      if (!plan_expr_uses_name (expr, i))
        continue;
      if (is_scalar (expr, i)) {
        memcpy (&job->values[i], ptrs[i],
            _plan_expr_get_bcast (expr, i)->size);
        job->inputs[i] = &job->values[i];
      } else {
        job->slot[i] = n_dev;
        dev[n_dev++] = ptrs[i];
      }
    }
    dev[n_dev++] = ptrs[n_names];
    return plan_stream_launch_host_kernel (stream, host_launch_run, dev,
        n_dev, job, host_launch_free, error);
  }
}
