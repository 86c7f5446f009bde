/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The generated CUDA stencil kernels (PlanStencilKernel):
 * - they compile with NVRTC for sm_90, every boundary mode, 1-D, 2-D and
 *   3-D windows (skipped without libnvrtc; the generated source does not
 *   depend on the architecture);
 * - the same source compiled for the host by nvcc (PLAN_EXPR_HOST_ENTRY)
 *   gives the CPU stencil's bits, every boundary mode, for a 1-D window,
 *   a 5 x 5 window on a 2-D array and on the planes of a 3-D one, and a
 *   3 x 3 x 5 window over the three axes of a 3-D array (skipped without
 *   nvcc);
 * - int8 (sums that wrap), float16 and complex64, compiled by nvcc for the
 *   host, give the CPU stencil's bytes with a constant and a reflected
 *   edge;
 * - a stencil over two inputs of different dtypes (a wave step: a 5-point
 *   window of float64 and a two-cell window of float32) compiles with
 *   NVRTC in every mode and, compiled by nvcc for the host, gives the CPU
 *   stencil's bits. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>
#include <libplan/device/plan-testing.h>
#include "nvcchost.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

static const gchar *const windows[][2] = {
  {"a b c d e", "a - 2*b + c*d + e"},
  {"_ n _; w c e; _ s _", "n + s + e + w - 4*c"},
  {"p q _ _ _; _ n _ _ _; w c e _ r; _ s _ _ _; _ _ _ _ t",
      "p*q + n + s + e + w - 4*c + r - t"},
  /* over the three axes of a 3-D array, reaching 2 cells along x */
  {"_ _ _ _ _; _ _ b _ _; _ _ _ _ _ | _ _ n _ _; w v c e x; _ _ s _ _ | "
        "_ _ _ _ _; _ _ f _ _; _ _ _ _ _",
      "b - f + n*s + e + w - 6*c + v - x"},
};

static PlanStencilKernel *
make_kernel (guint w, PlanBoundary boundary, PlanDType dtype, gint64 rows,
    gboolean planes)
{
  PlanWindow *window = plan_window_parse (windows[w][0], NULL);
  PlanArrayInfo info;
  PlanStencilKernel *k;
  GError *err = NULL;

  plan_array_info_init (&info);
  info.dtype = dtype;
  info.ndim = w == 0 ? 1 : 2;
  info.shape[0] = rows;
  info.shape[1] = 13;
  if (planes || w == 3) {
    /* a 2-D window on each plane of a 3-D array */
    info.ndim = 3;
    info.shape[1] = 6;
    info.shape[2] = 7;
  }
  k = plan_stencil_kernel_new (window, windows[w][1], &info, boundary, 1.5,
      &err);
  fail_unless (k != NULL, "%s", err ? err->message : "");
  plan_window_unref (window);
  return k;
}

/* A wave step over u (float64, 5-point window) and u_prev (float32, its
 * centre and the cell below) of @rows x 13. */
static PlanStencilKernel *
make_inputs_kernel (PlanBoundary boundary, gint64 rows)
{
  PlanWindow *w[2];
  PlanArrayInfo info[2];
  PlanStencilKernel *k;
  GError *err = NULL;

  w[0] = plan_window_parse ("_ n _; w c e; _ s _", NULL);
  w[1] = plan_window_parse ("_; p; q", NULL);
  plan_array_info_init (&info[0]);
  info[0].dtype = PLAN_DTYPE_FLOAT64;
  info[0].ndim = 2;
  info[0].shape[0] = rows;
  info[0].shape[1] = 13;
  info[1] = info[0];
  info[1].dtype = PLAN_DTYPE_FLOAT32;
  k = plan_stencil_kernel_new_inputs (2, (const PlanWindow * const *) w,
      info, "2*c - p + 0.25*(n + s + e + w - 4*c) - 0.5*q", boundary, 1.5,
      &err);
  fail_unless (k != NULL, "%s", err ? err->message : "");
  plan_window_unref (w[0]);
  plan_window_unref (w[1]);
  return k;
}

static void
check_nvrtc (const gchar * arch)
{
  PlanDType dtypes[] = { PLAN_DTYPE_FLOAT32, PLAN_DTYPE_UINT8,
    PLAN_DTYPE_COMPLEX128, PLAN_DTYPE_FLOAT16
  };
  GError *err = NULL;
  guint w, b, d;

  if (!plan_nvrtc_load (&err)) {
    g_print ("NVRTC not loaded, not compiled: %s\n", err->message);
    g_clear_error (&err);
    return;
  }
  for (w = 0; w < G_N_ELEMENTS (windows); w++) {
    for (b = PLAN_BOUNDARY_CONSTANT; b <= PLAN_BOUNDARY_VALID; b++) {
      for (d = 0; d < G_N_ELEMENTS (dtypes); d++) {
        PlanStencilKernel *k = make_kernel (w, b, dtypes[d], -1, FALSE);
        gchar *src = plan_stencil_kernel_to_cuda (k, "plan_stencil_kernel");
        GBytes *code = NULL;

        fail_unless (plan_nvrtc_compile (src, arch, &code, &err),
            "window %u boundary %s dtype %s on %s: %s", w,
            plan_boundary_to_string (b), plan_dtype_to_string (dtypes[d]),
            arch, err ? err->message : "");
        fail_unless (g_bytes_get_size (code) > 0);
        g_bytes_unref (code);
        g_free (src);
        plan_stencil_kernel_free (k);
      }
    }
  }
  for (b = PLAN_BOUNDARY_CONSTANT; b <= PLAN_BOUNDARY_VALID; b++) {
    PlanStencilKernel *k = make_inputs_kernel (b, -1);
    gchar *src = plan_stencil_kernel_to_cuda (k, "plan_stencil_kernel");
    GBytes *code = NULL;

    fail_unless (plan_nvrtc_compile (src, arch, &code, &err),
        "two inputs, boundary %s on %s: %s", plan_boundary_to_string (b),
        arch, err ? err->message : "");
    g_bytes_unref (code);
    g_free (src);
    plan_stencil_kernel_free (k);
  }
}

GST_START_TEST (test_nvrtc_compiles_stencils_sm90)
{
  check_nvrtc ("sm_90");
}

GST_END_TEST;

#ifdef PLAN_NVCC
/* The CPU's answer on a whole array, through the kernel's PlanHalo. */
static guint8 *
cpu_stencil (PlanStencilKernel * k, const guint8 * in, gsize rows,
    gsize * out_rows)
{
  PlanHalo *halo = plan_stencil_kernel_get_halo (k);
  PlanHaloBlock blocks[PLAN_HALO_MAX_BLOCKS];
  PlanArrayInfo out_info;
  guint n_blocks, i;
  gsize row, n = 0;
  guint8 *out;
  GError *err = NULL;

  plan_stencil_kernel_get_output_info (k, &out_info);
  out_info.shape[0] = 1;
  row = plan_array_info_get_row_size (&out_info);
  out = g_malloc0 (rows * row + 1);
  if (plan_halo_needs_end_rows (halo, rows, &n))
    fail_unless (plan_halo_set_end_rows (halo, rows, in + (rows - MIN (n,
                    rows)) * (plan_array_info_get_row_size
                (&out_info) / plan_dtype_get_size (out_info.dtype) * 8),
            MIN (n, rows), &err));
  n = 0;
  fail_unless (plan_halo_push (halo, in, rows, blocks, &n_blocks, &err));
  plan_stencil_kernel_eval (k, blocks, n_blocks, out);
  for (i = 0; i < n_blocks; i++)
    n += blocks[i].n_rows;
  fail_unless (plan_halo_finish (halo, blocks, &n_blocks, &err), "%s",
      err ? err->message : "");
  plan_stencil_kernel_eval (k, blocks, n_blocks, out + n * row);
  for (i = 0; i < n_blocks; i++)
    n += blocks[i].n_rows;
  *out_rows = n;
  return out;
}

/* Mirrors plan_stencil_segs of kernels/cuda/stencil_index.h. */
typedef struct
{
  const char *ptr[4];
  long long first[4];
  long long count[4];
  int n;
} Segs;

typedef void (*StencilHostFunc) (const Segs * segs, void *out, long long c0,
    unsigned long long n, long long n_stream, const void *cval);
#endif

GST_START_TEST (test_generated_stencil_matches_cpu)
{
#ifdef PLAN_NVCC
  gchar *dir = g_dir_make_tmp ("plan-stencilcuda-XXXXXX", NULL);
  guint b;

  guint c;

  /* the 1-D window, the 5 x 5 one, which reaches two cells along both
   * axes, the 5 x 5 one on the planes of a 3-D array and the 3-D window
   * over its three axes (the 3 x 3 cross adds nothing but compile time) */
  for (c = 0; c < 4; c++) {
    guint w = c == 0 ? 0 : c == 3 ? 3 : 2;
    gboolean planes = c >= 2;

    for (b = PLAN_BOUNDARY_CONSTANT; b <= PLAN_BOUNDARY_VALID; b++) {
      const gsize rows = 29;
      PlanStencilKernel *k = make_kernel (w, b, PLAN_DTYPE_FLOAT64, rows,
          planes);
      gchar *name = g_strdup_printf ("st_%u_%u", c, b);
      gchar *src = plan_stencil_kernel_to_cuda (k, name);
      gchar *cu = g_strdup_printf ("%s/%s.cu", dir, name);
      gchar *so = g_strdup_printf ("%s/%s.so", dir, name);
      gchar *host = g_strdup_printf ("%s_host", name);
      gsize cols = w == 0 ? 1 : planes ? 6 * 7 : 13, n_cpu, i;
      gsize out_row_elems = 1;
      gdouble *in = g_new (gdouble, rows * cols), *gpu, cval = 1.5;
      guint8 *cpu;
      GModule *module;
      StencilHostFunc func;
      PlanArrayInfo out_info;
      Segs segs;
      /* valid: the first centre row is the halo along the rows */
      guint h = b != PLAN_BOUNDARY_VALID ? 0 : c == 3 ? 1 : planes ? 0 : 2;

      for (i = 0; i < rows * cols; i++)
        in[i] = sin (i * 0.37) * 10 + i % 7;
      cpu = cpu_stencil (k, (const guint8 *) in, rows, &n_cpu);

      nvcc_compile_host (cu, so, src, "-fPIC", "-DPLAN_EXPR_HOST_ENTRY");
      module = g_module_open (so, G_MODULE_BIND_LAZY);
      fail_unless (module != NULL, "%s", g_module_error ());
      fail_unless (g_module_symbol (module, host, (gpointer *) & func));

      plan_stencil_kernel_get_output_info (k, &out_info);
      for (i = 1; i < out_info.ndim; i++)
        out_row_elems *= out_info.shape[i];
      gpu = g_new0 (gdouble, n_cpu * out_row_elems + 1);
      memset (&segs, 0, sizeof (segs));
      segs.ptr[0] = (const char *) in;
      segs.first[0] = 0;
      segs.count[0] = rows;
      segs.n = 1;
      /* valid: the output's first centre is the halo's row */
      func (&segs, gpu, h, n_cpu * out_row_elems, rows, &cval);
      fail_unless (memcmp (gpu, cpu, n_cpu * out_row_elems * 8) == 0,
          "case %u, boundary %s: the generated kernel differs from the "
          "CPU", c, plan_boundary_to_string (b));

      g_module_close (module);
      g_unlink (cu);
      g_unlink (so);
      g_free (gpu);
      g_free (cpu);
      g_free (in);
      g_free (host);
      g_free (so);
      g_free (cu);
      g_free (src);
      g_free (name);
      plan_stencil_kernel_free (k);
    }
  }
  g_rmdir (dir);
  g_free (dir);
#else
  g_print ("nvcc not found at configure time: generated stencils not run "
      "on the host\n");
#endif
}

GST_END_TEST;

/* The generated kernel in the dtypes whose arithmetic is not float64's:
 * int8 sums that wrap around, float16 rounded after each operation,
 * complex64, each with cval 1.5 (int8: 1) and a reflected edge, compiled
 * by nvcc for the host, against the CPU stencil's bytes. */
GST_START_TEST (test_generated_stencil_dtypes_match_cpu)
{
#ifdef PLAN_NVCC
  const PlanDType dtypes[] = { PLAN_DTYPE_INT8, PLAN_DTYPE_FLOAT16,
    PLAN_DTYPE_COMPLEX64
  };
  const PlanBoundary modes[] = { PLAN_BOUNDARY_CONSTANT,
    PLAN_BOUNDARY_REFLECT
  };
  gchar *dir = g_dir_make_tmp ("plan-stencilcuda-XXXXXX", NULL);
  guint d, m;

  for (d = 0; d < G_N_ELEMENTS (dtypes); d++) {
    for (m = 0; m < G_N_ELEMENTS (modes); m++) {
      const gsize rows = 29;
      PlanStencilKernel *k = make_kernel (0, modes[m], dtypes[d], rows,
          FALSE);
      gchar *name = g_strdup_printf ("dt_%u_%u", d, m);
      gchar *src = plan_stencil_kernel_to_cuda (k, name);
      gchar *cu = g_strdup_printf ("%s/%s.cu", dir, name);
      gchar *so = g_strdup_printf ("%s/%s.so", dir, name);
      gchar *host = g_strdup_printf ("%s_host", name);
      gsize es = plan_dtype_get_size (dtypes[d]), n_cpu, i, out_es;
      guint8 *in = g_malloc (rows * es), *cpu, *gpu, cval[16] = { 0 };
      GModule *module;
      StencilHostFunc func;
      PlanArrayInfo out_info;
      Segs segs;

      /* bytes that make every value of the dtype: int8 sums overflow */
      for (i = 0; i < rows * es; i++)
        in[i] = (guint8) (i * 97 + 31);
      if (dtypes[d] != PLAN_DTYPE_INT8) {
        /* finite values: an exponent below the maximum */
        for (i = 0; i < rows * es; i += es == 2 ? 2 : 4)
          in[i + (es == 2 ? 1 : 3)] &= 0x3f;
      }
      plan_boundary_fill_from_double (dtypes[d], 1.5, cval);
      cpu = cpu_stencil (k, in, rows, &n_cpu);
      fail_unless (n_cpu == rows);

      nvcc_compile_host (cu, so, src, "-fPIC", "-DPLAN_EXPR_HOST_ENTRY");
      module = g_module_open (so, G_MODULE_BIND_LAZY);
      fail_unless (module != NULL, "%s", g_module_error ());
      fail_unless (g_module_symbol (module, host, (gpointer *) & func));

      plan_stencil_kernel_get_output_info (k, &out_info);
      out_es = plan_dtype_get_size (out_info.dtype);
      gpu = g_malloc0 (n_cpu * out_es + 1);
      memset (&segs, 0, sizeof (segs));
      segs.ptr[0] = (const char *) in;
      segs.first[0] = 0;
      segs.count[0] = rows;
      segs.n = 1;
      func (&segs, gpu, 0, n_cpu, rows, cval);
      fail_unless (memcmp (gpu, cpu, n_cpu * out_es) == 0,
          "dtype %s, boundary %s: the generated kernel differs from the CPU",
          plan_dtype_to_string (dtypes[d]),
          plan_boundary_to_string (modes[m]));

      g_module_close (module);
      g_unlink (cu);
      g_unlink (so);
      g_free (gpu);
      g_free (cpu);
      g_free (in);
      g_free (host);
      g_free (so);
      g_free (cu);
      g_free (src);
      g_free (name);
      plan_stencil_kernel_free (k);
    }
  }
  g_rmdir (dir);
  g_free (dir);
#else
  g_print ("nvcc not found at configure time: generated stencils not run "
      "on the host\n");
#endif
}

GST_END_TEST;

GST_START_TEST (test_generated_inputs_stencil_matches_cpu)
{
#ifdef PLAN_NVCC
  gchar *dir = g_dir_make_tmp ("plan-stencilcuda-XXXXXX", NULL);
  guint b;

  for (b = PLAN_BOUNDARY_CONSTANT; b <= PLAN_BOUNDARY_VALID; b++) {
    const gsize rows = 23, cols = 13;
    PlanStencilKernel *k = make_inputs_kernel (b, rows);
    gchar *name = g_strdup_printf ("si_%u", b);
    gchar *src = plan_stencil_kernel_to_cuda (k, name);
    gchar *cu = g_strdup_printf ("%s/%s.cu", dir, name);
    gchar *so = g_strdup_printf ("%s/%s.so", dir, name);
    gchar *host = g_strdup_printf ("%s_host", name);
    gdouble *u = g_new (gdouble, rows * cols), *cpu, *gpu;
    gfloat *p = g_new (gfloat, rows * cols);
    guint8 cvals[2][16] = { {0} };
    gdouble cu_val = 1.5;
    gfloat cp_val = 1.5;
    PlanHaloBlock blocks[PLAN_HALO_MAX_BLOCKS];
    gconstpointer in[2];
    PlanArrayInfo out_info;
    guint n_blocks, i;
    gsize n_out = 0, n_end, out_cols;
    GModule *module;
    StencilHostFunc func;
    Segs segs[2];
    GError *err = NULL;
    guint h = b == PLAN_BOUNDARY_VALID ? 1 : 0;

    for (i = 0; i < rows * cols; i++) {
      u[i] = sin (i * 0.37) * 10 + i % 7;
      p[i] = (gfloat) cos (i * 0.11) * 3;
    }
    plan_stencil_kernel_get_output_info (k, &out_info);
    out_cols = out_info.shape[1];
    cpu = g_new0 (gdouble, rows * cols + 1);
    in[0] = u;
    in[1] = p;
    if (plan_stencil_kernel_host_needs_end_rows (k, rows, &n_end)) {
      fail_unless (plan_stencil_kernel_host_set_input_end_rows (k, 0, rows,
              u + (rows - n_end) * cols, n_end, &err));
      fail_unless (plan_stencil_kernel_host_set_input_end_rows (k, 1, rows,
              p + (rows - n_end) * cols, n_end, &err));
    }
    fail_unless (plan_stencil_kernel_push_inputs (k, in, rows, blocks,
            &n_blocks, &err), "%s", err ? err->message : "");
    plan_stencil_kernel_eval (k, blocks, n_blocks, cpu);
    for (i = 0; i < n_blocks; i++)
      n_out += blocks[i].n_rows;
    do {
      fail_unless (plan_stencil_kernel_finish (k, blocks, &n_blocks, &err));
      plan_stencil_kernel_eval (k, blocks, n_blocks, cpu + n_out * out_cols);
      for (i = 0; i < n_blocks; i++)
        n_out += blocks[i].n_rows;
    } while (n_blocks > 0);

    nvcc_compile_host (cu, so, src, "-fPIC", "-DPLAN_EXPR_HOST_ENTRY");
    module = g_module_open (so, G_MODULE_BIND_LAZY);
    fail_unless (module != NULL, "%s", g_module_error ());
    fail_unless (g_module_symbol (module, host, (gpointer *) & func));

    memset (segs, 0, sizeof (segs));
    segs[0].ptr[0] = (const char *) u;
    segs[1].ptr[0] = (const char *) p;
    for (i = 0; i < 2; i++) {
      segs[i].count[0] = rows;
      segs[i].n = 1;
    }
    memcpy (cvals[0], &cu_val, sizeof (cu_val));
    memcpy (cvals[1], &cp_val, sizeof (cp_val));
    gpu = g_new0 (gdouble, n_out * out_cols + 1);
    func (segs, gpu, h, n_out * out_cols, rows, cvals);
    fail_unless (memcmp (gpu, cpu, n_out * out_cols * 8) == 0,
        "two inputs, boundary %s: the generated kernel differs from the CPU",
        plan_boundary_to_string (b));

    g_module_close (module);
    g_unlink (cu);
    g_unlink (so);
    g_free (gpu);
    g_free (cpu);
    g_free (u);
    g_free (p);
    g_free (host);
    g_free (so);
    g_free (cu);
    g_free (src);
    g_free (name);
    plan_stencil_kernel_free (k);
  }
  g_rmdir (dir);
  g_free (dir);
#else
  g_print ("nvcc not found at configure time: generated stencils not run "
      "on the host\n");
#endif
}

GST_END_TEST;

static void
remove_tree (const gchar * path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const gchar *name;

  if (dir != NULL) {
    while ((name = g_dir_read_name (dir)) != NULL) {
      gchar *child = g_build_filename (path, name, NULL);
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

static Suite *
stencilcuda_suite (void)
{
  Suite *s = suite_create ("stencilcuda");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_nvrtc_compiles_stencils_sm90);
  tcase_add_test (tc, test_generated_stencil_matches_cpu);
  tcase_add_test (tc, test_generated_stencil_dtypes_match_cpu);
  tcase_add_test (tc, test_generated_inputs_stencil_matches_cpu);
  return s;
}

int
main (int argc, char **argv)
{
  gchar *cache;
  gint ret;

  /* A private NVRTC cache, so that every kernel really compiles. */
  cache = g_dir_make_tmp ("plan-cache-XXXXXX", NULL);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  gst_check_init (&argc, &argv);
  ret = gst_check_run_suite (stencilcuda_suite (), "stencilcuda", __FILE__);
  remove_tree (cache);
  g_free (cache);
  return ret;
}
