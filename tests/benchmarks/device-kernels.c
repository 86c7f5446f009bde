/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Kernels on device-resident arrays, against a device-to-device copy in
 * the same run: planmap's `x + y` (plan_expr_launch()) and planstencil's
 * 2-D Laplacian (PlanStencilKernel, boundary=nearest) on SIDE x SIDE
 * float32 arrays already in device memory, and the NVRTC compile of a
 * stencil cold (fresh cache) against the second, cached one.
 *
 *   device-kernels [DEVICE [SIDE [ITERATIONS]]]     (default: cuda 16384 10)
 *
 * Bandwidth is the bytes each kernel must move (read and written) over
 * wall time: 2 x size for the copy and the Laplacian, 3 x size for x + y;
 * each line gives it and its ratio to the copy's. Each Laplacian is one
 * whole array, its halo buffers freed before the next (a synchronisation
 * per array, as a new stream of planstencil's does):
 *   plan d2d-copy <GB/s>
 *   plan map-x+y <GB/s> <ratio>
 *   plan laplacian <GB/s> <ratio>
 *   plan nvrtc-cold <s> / plan nvrtc-cached <s>  (CUDA devices only)
 * Run by tests/gpu/run-on-device.sh, never by `meson test`. */

#ifndef PLAN_USE_UNSTABLE_API
#define PLAN_USE_UNSTABLE_API
#endif
#include <libplan/plan.h>

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

static PlanDevice *device;
static PlanStream *stream;

static void
die (const gchar * what, GError * err)
{
  g_printerr ("device-kernels: %s: %s\n", what, err ? err->message : "");
  exit (1);
}

static void
sync_stream (const gchar * what)
{
  GError *err = NULL;

  if (!plan_stream_synchronize (stream, &err))
    die (what, err);
}

static void
remove_tree (const gchar * path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const gchar *entry;

  if (dir != NULL) {
    while ((entry = g_dir_read_name (dir)) != NULL) {
      gchar *child = g_build_filename (path, entry, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR)
          && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
      g_free (child);
    }
    g_dir_close (dir);
  }
  g_rmdir (path);
}

static PlanStencilKernel *
laplacian (gsize side, const gchar * expr)
{
  PlanWindow *window = plan_window_parse ("_ n _; w c e; _ s _", NULL);
  PlanArrayInfo info;
  PlanStencilKernel *k;
  GError *err = NULL;

  plan_array_info_init (&info);
  info.dtype = PLAN_DTYPE_FLOAT32;
  info.ndim = 2;
  info.shape[0] = side;
  info.shape[1] = side;
  k = plan_stencil_kernel_new (window, expr, &info, PLAN_BOUNDARY_NEAREST,
      0.0, &err);
  if (k == NULL)
    die ("the Laplacian", err);
  plan_window_unref (window);
  return k;
}

/* One whole array through the stencil: all its rows as one chunk, then
 * the last row at the end. */
static void
run_laplacian (PlanStencilKernel * k, gconstpointer in, gpointer out,
    gsize side)
{
  GError *err = NULL;
  gsize n;

  /* (a new stream frees the last one's halo rows, after its work) */
  plan_stencil_kernel_reset (k);
  n = plan_stencil_kernel_push_rows (k, side);
  if (!plan_stencil_kernel_launch (k, stream, in, side, out, &err)
      || !plan_stencil_kernel_launch_finish (k, stream, (guint8 *) out +
          n * side * 4, &err))
    die ("launching the Laplacian", err);
}

int
main (int argc, char **argv)
{
  const gchar *name = argc > 1 ? argv[1] : "cuda";
  gsize side = argc > 2 ? atoi (argv[2]) : 16384;
  guint iterations = argc > 3 ? atoi (argv[3]) : 10, i;
  gsize size = side * side * 4, n = side * side;
  gchar *cache = g_dir_make_tmp ("plan-bench-cache-XXXXXX", NULL);
  const gchar *names[] = { "x", "y" };
  const PlanDType dtypes[] = { PLAN_DTYPE_FLOAT32, PLAN_DTYPE_FLOAT32 };
  GError *err = NULL;
  gpointer host, x, y, out, ptrs[3];
  PlanStencilKernel *k;
  PlanExpr *expr;
  gint64 start = 0;
  gdouble copy_gbs, gbs, seconds;

  /* a fresh NVRTC cache, for the cold compile */
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  gst_init (&argc, &argv);
  plan_init ();

  device = plan_device_get (name, &err);
  if (device == NULL)
    die ("opening the device", err);
  stream = plan_stream_new (device, &err);
  if (stream == NULL)
    die ("creating a stream", err);
  g_print ("# %s, %" G_GSIZE_FORMAT " x %" G_GSIZE_FORMAT " float32 x %u\n",
      plan_device_get_name (device), side, side, iterations);

  host = g_malloc (size);
  for (i = 0; i < n; i++)
    ((gfloat *) host)[i] = (gfloat) (i % 1013);
  if (!plan_device_alloc (device, size, &x, &err)
      || !plan_device_alloc (device, size, &y, &err)
      || !plan_device_alloc (device, size, &out, &err)
      || !plan_stream_copy (stream, PLAN_COPY_HOST_TO_DEVICE, x, host, size,
          &err)
      || !plan_stream_copy (stream, PLAN_COPY_HOST_TO_DEVICE, y, host, size,
          &err))
    die ("allocating", err);
  sync_stream ("uploading");

  /* the copy, after one untimed */
  for (i = 0; i <= iterations; i++) {
    if (i == 1) {
      sync_stream ("copying");
      start = g_get_monotonic_time ();
    }
    if (!plan_stream_copy (stream, PLAN_COPY_DEVICE_TO_DEVICE, out, x, size,
            &err))
      die ("copying", err);
  }
  sync_stream ("copying");
  seconds = (g_get_monotonic_time () - start) / 1e6;
  copy_gbs = 2.0 * size * iterations / seconds / 1e9;
  g_print ("plan d2d-copy %.2f\n", copy_gbs);

  /* x + y, the expression planmap runs (compiled at the first launch) */
  expr = plan_expr_compile ("x + y", 2, names, dtypes, &err);
  if (expr == NULL)
    die ("compiling x + y", err);
  ptrs[0] = x;
  ptrs[1] = y;
  ptrs[2] = out;
  for (i = 0; i <= iterations; i++) {
    if (i == 1) {
      sync_stream ("x + y");
      start = g_get_monotonic_time ();
    }
    if (!plan_expr_launch (expr, stream, ptrs, n, 0, &err))
      die ("launching x + y", err);
  }
  sync_stream ("x + y");
  seconds = (g_get_monotonic_time () - start) / 1e6;
  gbs = 3.0 * size * iterations / seconds / 1e9;
  g_print ("plan map-x+y %.2f %.2f\n", gbs, gbs / copy_gbs);
  plan_expr_unref (expr);

  /* the Laplacian; its kernel built once before the timing */
  k = laplacian (side, "n + s + e + w - 4*c");
  if (!plan_stencil_kernel_prepare (k, device, &err))
    die ("building the Laplacian", err);
  for (i = 0; i <= iterations; i++) {
    if (i == 1) {
      sync_stream ("the Laplacian");
      start = g_get_monotonic_time ();
    }
    run_laplacian (k, x, out, side);
  }
  sync_stream ("the Laplacian");
  seconds = (g_get_monotonic_time () - start) / 1e6;
  gbs = 2.0 * size * iterations / seconds / 1e9;
  g_print ("plan laplacian %.2f %.2f\n", gbs, gbs / copy_gbs);
  plan_stencil_kernel_free (k);

  /* NVRTC: a stencil not compiled before, then the same again */
  if (plan_device_get_kind (device) == PLAN_DEVICE_KIND_CUDA) {
    const gchar *e = "n * s + e * 0.5 - w * c + 0.125";

    for (i = 0; i < 2; i++) {
      k = laplacian (side, e);
      start = g_get_monotonic_time ();
      if (!plan_stencil_kernel_prepare (k, device, &err))
        die ("building a stencil", err);
      g_print ("plan nvrtc-%s %.3f\n", i == 0 ? "cold" : "cached",
          (g_get_monotonic_time () - start) / 1e6);
      plan_stencil_kernel_free (k);
    }
  } else {
    g_print ("# no NVRTC compile on %s (host kernels)\n",
        plan_device_get_name (device));
  }

  plan_device_free (device, x);
  plan_device_free (device, y);
  plan_device_free (device, out);
  g_free (host);
  plan_stream_unref (stream);
  gst_object_unref (device);
  remove_tree (cache);
  g_free (cache);
  return 0;
}
