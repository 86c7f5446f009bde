/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The reduction kernels, checked without a GPU:
 *  - NVRTC compiles them for sm_90 (to a cubin) and compute_90 (to PTX)
 *    with --fmad=false (no fma in the PTX), and the kernels generated for
 *    custom combiners for sm_80 and sm_90;
 *  - nvcc compiles planreducer-steps.h for the host, and the steps run in
 *    the kernels' order (the lanes of each block one thread at a time)
 *    equal the CPU reducer bit for bit for every op and dtype.
 * Skipped (exit 77) where libnvrtc cannot be loaded; the host comparison
 * needs nvcc at build time. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gmodule.h>
#include <glib/gstdio.h>
#include <libplan/plan.h>
#include "libplan/reduce/planreducer-private.h"
#include <math.h>
#include <string.h>

#include "reducercases.h"
#include "nvcchost.h"


static void
info_set (PlanArrayInfo * info, PlanDType dtype, guint ndim,
    const gint64 * shape)
{
  guint i;

  plan_array_info_init (info);
  info->dtype = dtype;
  info->ndim = ndim;
  for (i = 0; i < ndim; i++)
    info->shape[i] = shape[i];
}

static const struct
{
  PlanDType dtype;
  const gchar *expr, *identity;
} customs[] = {
  {PLAN_DTYPE_FLOAT64, "x + y", "0"},
  {PLAN_DTYPE_FLOAT32, "max(x, y)", "-inf"},
  {PLAN_DTYPE_INT32, "x + 1.0 * y", "0"},
  {PLAN_DTYPE_INT64, "min(x, y)", "9223372036854775807"},
  {PLAN_DTYPE_UINT8, "x + y", "0"},
};

/* Reductions whose specialised kernels NVRTC compiles. */
static const struct
{
  PlanReduceOp op;
  PlanDType dtype;
} specialised[] = {
  {PLAN_REDUCE_OP_SUM, PLAN_DTYPE_FLOAT32},
  {PLAN_REDUCE_OP_VAR, PLAN_DTYPE_FLOAT64},
  {PLAN_REDUCE_OP_NANARGMAX, PLAN_DTYPE_FLOAT16},
  {PLAN_REDUCE_OP_PROD, PLAN_DTYPE_INT16},
};

/* NVRTC compiles the kernels for the architectures we target, and the
 * PTX rounds every operation on its own (no fma). */
static void
check_nvrtc (const gchar * arch)
{
  gchar *src = plan_device_reducer_get_cuda_source (NULL);
  GBytes *code = NULL;
  GError *err = NULL;

  if (!plan_nvrtc_load (NULL)) {
    g_free (src);
    return;
  }
  g_setenv ("PLAN_NVRTC_CACHE", "0", TRUE);
  fail_unless (plan_nvrtc_compile (src, arch, &code, &err), "%s",
      err ? err->message : "");
  if (g_str_has_prefix (arch, "compute_")) {
    gsize size;
    gconstpointer data = g_bytes_get_data (code, &size);
    gchar *ptx = g_strndup (data, size);

    fail_unless (strstr (ptx, ".entry prk_k_blocks") != NULL);
    fail_unless (strstr (ptx, ".entry prk_k_rows") != NULL);
    fail_unless (strstr (ptx, "fma.") == NULL, "an fma in the kernels");
    g_free (ptx);
  } else {
    fail_unless (g_bytes_get_size (code) > 10000);
  }
  g_bytes_unref (code);
  g_unsetenv ("PLAN_NVRTC_CACHE");
  g_free (src);
}

GST_START_TEST (test_nvrtc_compiles_kernels)
{
  guint i;

  /* sm_90: NVRTC's whole path to a cubin; compute_90: PTX, where the
   * missing fma is checked (the source does not depend on the
   * architecture; the custom combiners below compile for sm_80 too) */
  check_nvrtc ("sm_90");
  check_nvrtc ("compute_90");
  if (!plan_nvrtc_load (NULL))
    return;
  /* the kernels as the device reducer compiles them: for one operation
   * and dtype, every other path left out */
  g_setenv ("PLAN_NVRTC_CACHE", "0", TRUE);
  for (i = 0; i < G_N_ELEMENTS (specialised); i++) {
    const gint64 shape[] = { 10 };
    PlanArrayInfo info;
    PlanReducer *r;
    gchar *src, *generic = plan_device_reducer_get_cuda_source (NULL), *ptx;
    GBytes *code = NULL;
    GError *err = NULL;

    info_set (&info, specialised[i].dtype, 1, shape);
    r = plan_reducer_new (specialised[i].op, PLAN_REDUCE_AXIS_ALL, &info,
        NULL);
    src = plan_device_reducer_get_cuda_source (r);
    fail_unless (src != NULL && strstr (src, "#define PRK_FIXED_ALGO") != NULL);
    fail_unless (strcmp (src, generic) != 0);
    fail_unless (plan_nvrtc_compile (src, "compute_90", &code, &err), "%s",
        err ? err->message : "");
    ptx = g_strndup (g_bytes_get_data (code, NULL), g_bytes_get_size (code));
    fail_unless (strstr (ptx, ".entry prk_k_blocks") != NULL);
    fail_unless (strstr (ptx, "fma.") == NULL, "an fma in the kernels");
    g_free (ptx);
    g_bytes_unref (code);
    fail_unless (plan_nvrtc_compile (src, "sm_90", &code, &err), "%s",
        err ? err->message : "");
    g_bytes_unref (code);
    g_free (src);
    g_free (generic);
    plan_reducer_unref (r);
  }
  /* the kernels of custom combiners, from their generated code: a float32
   * max, and an int32 combiner promoted to float64 (with a cast) */
  g_setenv ("PLAN_NVRTC_CACHE", "0", TRUE);
  for (i = 1; i <= 2; i++) {
    const gint64 shape[] = { 10 };
    PlanArrayInfo info;
    PlanReducer *r;
    gchar *src;
    GBytes *code = NULL;
    GError *err = NULL;

    info_set (&info, customs[i].dtype, 1, shape);
    r = plan_reducer_new_custom (customs[i].expr, customs[i].identity,
        PLAN_REDUCE_AXIS_ALL, &info, NULL);
    src = plan_device_reducer_get_custom_cuda_source (r);
    fail_unless (src != NULL);
    fail_unless (plan_nvrtc_compile (src, i % 2 ? "sm_90" : "sm_80", &code,
            &err), "%s: %s", customs[i].expr, err ? err->message : "");
    g_bytes_unref (code);
    g_free (src);
    plan_reducer_unref (r);
  }
  g_unsetenv ("PLAN_NVRTC_CACHE");
}

GST_END_TEST;

#ifdef PLAN_NVCC
/* The host entry of the nvcc test: the whole-stream reduction of @n
 * elements in chunks of @chunk, each step as its kernel does it (the lanes
 * of each block one "thread" at a time, then the lane-0 steps). */
static const gchar host_entry[] =
    "extern \"C\" int\n"
    "prk_test_all (const PrkParams * P, const char *x, prk_u64 n,\n"
    "    prk_u64 chunk, void *out)\n"
    "{\n"
    "  static PrkTree t;\n"
    "  static char staging[PRK_BLOCK * 16];\n"
    "  static PrkAcc results[64];\n"
    "  prk_u64 done = 0, n_blocks = 0, staged = 0, es = P->in_size;\n"
    "  t.depth = 0;\n"
    "  while (done < n) {\n"
    "    prk_u64 m = n - done < chunk ? n - done : chunk, nb, b, tail;\n"
    "    const char *c = x + done * es;\n"
    "    done += m;\n"
    "    if (staged > 0) {\n"
    "      prk_u64 take = m < PRK_BLOCK - staged ? m : PRK_BLOCK - staged;\n"
    "      prk_step_stage (P, &t, staging, c, staged, take,\n"
    "          n_blocks * PRK_BLOCK);\n"
    "      staged += take; c += take * es; m -= take;\n"
    "      if (staged < PRK_BLOCK) continue;\n"
    "      n_blocks++; staged = 0;\n"
    "    }\n"
    "    nb = m / PRK_BLOCK;\n"
    "    for (b = 0; b < nb; b++) {\n"
    "      PrkLane lanes[PRK_LANES]; PrkMid mid; unsigned l;\n"
    "      const char *xb = c + b * PRK_BLOCK * es;\n"
    "      prk_u64 base = (n_blocks + b) * PRK_BLOCK;\n"
    "      for (l = 0; l < PRK_LANES; l++) {\n"
    "        prk_lane_init (P, &lanes[l], xb, PRK_BLOCK, base, l);\n"
    "        prk_lane_run (P, &lanes[l], xb, PRK_BLOCK, base, l, 0, 0);\n"
    "      }\n"
    "      prk_block_mid (P, lanes, &mid);\n"
    "      for (l = 0; l < PRK_LANES; l++)\n"
    "        if (prk_two_pass (P) && mid.count > 0)\n"
    "          prk_lane_run (P, &lanes[l], xb, PRK_BLOCK, base, l, 1, &mid);\n"
    "      prk_block_end (P, lanes, &mid, &results[b]);\n"
    "    }\n"
    "    tail = m - nb * PRK_BLOCK;\n"
    "    prk_step_push (P, &t, results, nb, staging,\n"
    "        c + nb * PRK_BLOCK * es, tail);\n"
    "    n_blocks += nb; staged = tail;\n"
    "  }\n"
    "  return prk_step_finish (P, &t, staging, staged, n_blocks * PRK_BLOCK,\n"
    "      n, out);\n"
    "}\n";

typedef gint (*TestAll) (const PrkParams * P, gconstpointer x, guint64 n,
    guint64 chunk, gpointer out);

/* planreducer-steps.h compiled by nvcc for the host, run in the kernels'
 * order, against the CPU reducer: every op and dtype, bit for bit. */
GST_START_TEST (test_nvcc_host_steps_equal_cpu_reducer)
{
  gchar *dir = g_dir_make_tmp ("plan-reducerdevice-XXXXXX", NULL);
  gchar *cu = g_build_filename (dir, "steps.cu", NULL);
  gchar *so = g_build_filename (dir, "steps.so", NULL);
  gchar *src = plan_device_reducer_get_cuda_source (NULL);
  gchar *all = g_strconcat (src, host_entry, NULL);
  const gsize n = 9001, chunks[] = { 9001, 777 };
  GModule *module;
  TestAll fn = NULL;
  PlanDType dt;
  guint o, c, cases = 0;

  nvcc_compile_host (cu, so, all, "-fPIC,-ffp-contract=off", NULL);
  module = g_module_open (so, G_MODULE_BIND_LAZY);
  fail_unless (module != NULL, "%s", g_module_error ());
  fail_unless (g_module_symbol (module, "prk_test_all", (gpointer *) & fn));

  for (dt = PLAN_DTYPE_BOOL; dt < PLAN_DTYPE_N; dt++) {
    const gint64 shape[] = { n };
    guint8 *data;
    PlanArrayInfo info;

    data = g_malloc (n * 16);

    info_set (&info, dt, 1, shape);
    fill (dt, data, n, 99 + dt, plan_dtype_is_float (dt)
        || plan_dtype_is_complex (dt) ? 13 : 0);
    for (o = 0; o < G_N_ELEMENTS (all_ops); o++) {
      PlanReducer *r;
      PrkParams P;
      guint8 want[16], got[16];
      gboolean ok;

      if (all_ops[o] == PLAN_REDUCE_OP_PTP && dt == PLAN_DTYPE_BOOL)
        continue;
      r = plan_reducer_new (all_ops[o], PLAN_REDUCE_AXIS_ALL, &info, NULL);
      fail_unless (plan_reducer_get_device_steps (r, &P, NULL, NULL));
      ok = plan_reducer_reduce (r, data, n, want, NULL);
      for (c = 0; c < G_N_ELEMENTS (chunks); c++) {
        memset (got, 0, sizeof (got));
        fail_unless_equals_int (fn (&P, data, n, chunks[c], got), !ok);
        if (ok)
          fail_unless (memcmp (got, want, plan_dtype_get_size
                  (plan_reduce_op_get_result_dtype (all_ops[o], dt))) == 0,
              "op %d on %s, chunks of %" G_GSIZE_FORMAT ": nvcc's host "
              "build is not the CPU's bits", all_ops[o],
              plan_dtype_to_string (dt), chunks[c]);
        cases++;
      }
      plan_reducer_unref (r);
    }
    g_free (data);
  }
  fail_unless (cases > 400);
  g_module_close (module);
  g_unlink (cu);
  g_unlink (so);
  g_rmdir (dir);
  g_free (cu);
  g_free (so);
  g_free (dir);
  g_free (src);
  g_free (all);
}

GST_END_TEST;
#endif

static Suite *
reducercuda_suite (void)
{
  Suite *s = suite_create ("planreducercuda");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_nvrtc_compiles_kernels);
#ifdef PLAN_NVCC
  tcase_add_test (tc, test_nvcc_host_steps_equal_cpu_reducer);
#endif
  return s;
}

int
main (int argc, char **argv)
{
  GError *err = NULL;
  gchar *cache;
  gint ret;

  /* a private NVRTC cache, set before GLib is asked for it */
  cache = g_dir_make_tmp ("plan-cache-XXXXXX", NULL);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  gst_check_init (&argc, &argv);
  if (!plan_nvrtc_load (&err)) {
    g_print ("skipped: %s\n", err->message);
    g_error_free (err);
    g_rmdir (cache);
    g_free (cache);
    return 77;
  }
  ret = gst_check_run_suite (reducercuda_suite (), "reducercuda", __FILE__);
  g_rmdir (cache);
  g_free (cache);
  return ret;
}
