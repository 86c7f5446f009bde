/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The CUDA code generated from expressions, checked without a GPU:
 *  - NVRTC compiles the kernels of every operator, function and dtype for
 *    sm_90 (NVRTC needs no device; the complex cases also for sm_80: the
 *    generated source does not depend on the architecture, and each
 *    compile of every case takes two minutes);
 *  - nvcc compiles the same element functions for the host, and their
 *    results on inputs full of special values must equal the CPU
 *    evaluator's: bit for bit for exact operations, within 3 ulp for
 *    transcendental functions (glibc on the host, within 1 ulp, against
 *    our own float32 code on the CPU, within 2 ulp);
 *  - the on-disk module cache.
 * The whole file is skipped (exit 77) where libnvrtc cannot be loaded; the
 * host comparison needs nvcc at build time. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gmodule.h>
#include <glib/gstdio.h>
#include <libplan/plan.h>
#include "nvcchost.h"

#include <math.h>
#include <string.h>

#define N_VALUES 128

static const gchar *const unary[] = {
  "-a", "~a", "!a", "abs(a)", "sign(a)", "sqrt(a)", "cbrt(a)", "exp(a)",
  "exp2(a)", "expm1(a)", "log(a)", "log2(a)", "log10(a)", "log1p(a)",
  "sin(a)", "cos(a)", "tan(a)", "asin(a)", "acos(a)", "atan(a)", "sinh(a)",
  "cosh(a)", "tanh(a)", "asinh(a)", "acosh(a)", "atanh(a)", "floor(a)",
  "ceil(a)", "rint(a)", "trunc(a)", "isnan(a)", "isinf(a)", "isfinite(a)",
  "a * 2.5 + inf", "where(a != a, -inf, a) + nan * 0", "a + 1", "2 + 3",
  "(a + 1) ** 2", "square(a)", "reciprocal(a)", "signbit(a)",
  "nan_to_num(a)", "deg2rad(a)", "rad2deg(a)", "fabs(a)", "conj(a)",
  "ones_like(a) + a", "np.copy(a)", "numpy.arcsin(a)", "positive(a)",
};

static const gchar *const binary[] = {
  "a + b", "a - b", "a * b", "a / b", "a // b", "a % b", "a ** b", "a << b",
  "a >> b", "a & b", "a | b", "a ^ b", "a < b", "a <= b", "a > b", "a >= b",
  "a == b", "a != b", "a && b", "a || b", "minimum(a, b)", "maximum(a, b)",
  "fmin(a, b)", "fmax(a, b)", "fmod(a, b)", "atan2(a, b)", "hypot(a, b)",
  "where(a > b, a, b)", "a > 0 ? a : b", "clip(a, b, 5)", "a * b + a",
  "copysign(a, b)", "heaviside(a, b)", "logaddexp(a, b)",
  "logaddexp2(a, b)", "float_power(a, b)", "logical_xor(a, b)",
  "np.remainder(a, b)",
};

/* Not correctly rounded in libm or in our float32 code. */
static const gchar *const inexact[] G_GNUC_UNUSED = {
  "cbrt", "exp", "log", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
  "cosh", "tanh", "asinh", "acosh", "atanh", "**", "hypot", "logaddexp",
  "float_power", "arcsin",
};

typedef struct
{
  gchar *source;
  PlanDType da, db;
  PlanExpr *expr;
  gchar *name;
  gboolean bcast;               /* the names of add_bcast_case() */
} Case;

/* Broadcasting: streams a (rows, 2, 4) and b (rows, 2, 1), a constant c
 * of shape (4,) and a scalar parameter s; a, c of dtype da, b, s of db. */
static const gchar *const bcast_exprs[] = {
  "a - c * b + s", "(a - c) / s", "where(b > s, a, c)", "b + c", "s", "c",
  "b * 2", "a + b",
};

#define BCAST_ROW 8             /* elements of an output row */
G_STATIC_ASSERT (N_VALUES % BCAST_ROW == 0);

static GPtrArray *cases;
static gchar *all_source;

static void
case_free (gpointer p)
{
  Case *c = p;
  plan_expr_unref (c->expr);
  g_free (c->source);
  g_free (c->name);
  g_free (c);
}

static void
add_case (const gchar * src, PlanDType da, PlanDType db)
{
  const gchar *names[] = { "a", "b" };
  PlanDType t[] = { da, db };
  PlanExpr *e = plan_expr_compile (src, 2, names, t, NULL);
  Case *c;

  if (e == NULL)                /* a type error: nothing to generate */
    return;
  c = g_new0 (Case, 1);
  c->source = g_strdup (src);
  c->da = da;
  c->db = db;
  c->expr = e;
  c->name = g_strdup_printf ("plan_case_%u", cases->len);
  g_ptr_array_add (cases, c);
}

static void
add_bcast_case (const gchar * src, PlanDType da, PlanDType db)
{
  const gchar *names[] = { "a", "b", "c", "s" };
  PlanArrayInfo infos[4];
  const gint64 sa[] = { -1, 2, 4 }, sb[] = { -1, 2, 1 }, sc[] = { 4 };
  PlanArrayInfo out;
  PlanExpr *e;
  Case *c;

  fail_unless (plan_array_info_set (&infos[0], da, 3, sa, NULL));
  fail_unless (plan_array_info_set (&infos[1], db, 3, sb, NULL));
  fail_unless (plan_array_info_set (&infos[2], da, 1, sc, NULL));
  fail_unless (plan_array_info_set (&infos[3], db, 0, NULL, NULL));
  e = plan_expr_compile_broadcast (src, 4, names, infos, 2,
      PLAN_DTYPE_UNKNOWN, &out, NULL);
  if (e == NULL)
    return;
  fail_unless (out.ndim == 3 && out.shape[1] == 2 && out.shape[2] == 4);
  c = g_new0 (Case, 1);
  c->source = g_strdup (src);
  c->da = da;
  c->db = db;
  c->expr = e;
  c->bcast = TRUE;
  c->name = g_strdup_printf ("plan_case_%u", cases->len);
  g_ptr_array_add (cases, c);
}

static void
build_cases (void)
{
  GString *all;
  guint i, j, k;

  if (cases)
    return;
  cases = g_ptr_array_new_with_free_func (case_free);
  for (i = PLAN_DTYPE_BOOL; i < PLAN_DTYPE_N; i++) {
    if (plan_dtype_is_complex (i))
      continue;
    for (k = 0; k < G_N_ELEMENTS (unary); k++)
      add_case (unary[k], i, i);
    for (k = 0; k < G_N_ELEMENTS (binary); k++)
      add_case (binary[k], i, i);
    for (j = PLAN_DTYPE_BOOL; j < PLAN_DTYPE_N; j++) {
      gchar *cast;

      if (plan_dtype_is_complex (j))
        continue;
      cast = g_strdup_printf ("%s(a)", plan_dtype_to_string (j));
      add_case (cast, i, j);
      add_case ("a + b", i, j);
      add_case ("a < b", i, j);
      g_free (cast);
    }
    for (k = 0; k < G_N_ELEMENTS (bcast_exprs); k++) {
      add_bcast_case (bcast_exprs[k], i, i);
      add_bcast_case (bcast_exprs[k], i, PLAN_DTYPE_FLOAT64);
    }
  }
  all = g_string_new (NULL);
  for (i = 0; i < cases->len; i++) {
    Case *c = g_ptr_array_index (cases, i);
    gchar *src = plan_expr_to_cuda (c->expr, c->name);
    g_string_append (all, src);
    g_free (src);
  }
  all_source = g_string_free (all, FALSE);
}

/* ---- complex numbers ---- */

/* Expressions on complex a and b (and a float32 f), and the bound in ulp of
 * the magnitude of the result that the generated code's functions keep
 * from the CPU's (glibc's): 0 for numpy's arithmetic, which is the same
 * operations in the same order. docs/expressions.md has these figures. */
static const struct
{
  const gchar *source;
  guint ulp;
} complex_exprs[] = {
  {"a + b", 0}, {"a - b", 0}, {"a * b", 0}, {"a / b", 0}, {"a ** 3", 0},
  {"pow(a, -2)", 0}, {"-a", 0}, {"abs(a)", 0}, {"real(a)", 0},
  {"imag(a)", 0}, {"conj(a)", 0}, {"angle(a)", 0}, {"square(a)", 0},
  {"reciprocal(a)", 0}, {"rint(a)", 0}, {"nan_to_num(a)", 0},
  {"a == b", 0}, {"a != b", 0}, {"isnan(a)", 0}, {"isinf(a)", 0},
  {"isfinite(a)", 0}, {"where(real(a) > 0, a, b)", 0}, {"not a", 0},
  {"bool(a)", 0}, {"a * 2 + 1j", 0}, {"complex128(a)", 0},
  {"complex64(b)", 0}, {"f * 1j + a", 0}, {"a ** b", 16}, {"sqrt(a)", 4},
  {"exp(a)", 4}, {"log(a)", 16}, {"exp2(a)", 4}, {"log2(a)", 16},
  {"log10(a)", 16}, {"expm1(a)", 4}, {"log1p(a)", 4}, {"sin(a)", 4},
  {"cos(a)", 4}, {"tan(a)", 16}, {"arcsin(a)", 8}, {"arccos(a)", 8},
  {"arctan(a)", 8}, {"sinh(a)", 4}, {"cosh(a)", 4}, {"tanh(a)", 16},
  {"arcsinh(a)", 8}, {"arccosh(a)", 8}, {"arctanh(a)", 8},
};

/* Every complex case for complex64 and complex128, in order: case i is
 * complex_exprs[i % n] on complex64 for i < n, complex128 after. */
static GPtrArray *
complex_cases (gchar ** source)
{
  const gchar *names[] = { "a", "b", "f" };
  GPtrArray *all = g_ptr_array_new_with_free_func (case_free);
  GString *src = g_string_new (NULL);
  guint d, k;

  for (d = 0; d < 2; d++) {
    PlanDType cd = d ? PLAN_DTYPE_COMPLEX128 : PLAN_DTYPE_COMPLEX64;
    PlanDType t[] = { cd, cd, PLAN_DTYPE_FLOAT32 };

    for (k = 0; k < G_N_ELEMENTS (complex_exprs); k++) {
      Case *c = g_new0 (Case, 1);
      GError *err = NULL;
      gchar *one;

      c->source = g_strdup (complex_exprs[k].source);
      c->da = c->db = cd;
      c->expr = plan_expr_compile (c->source, 3, names, t, &err);
      fail_unless (c->expr != NULL, "%s: %s", c->source, err ? err->message :
          "");
      c->name = g_strdup_printf ("plan_complex_%u", all->len);
      one = plan_expr_to_cuda (c->expr, c->name);
      g_string_append (src, one);
      g_free (one);
      g_ptr_array_add (all, c);
    }
  }
  *source = g_string_free (src, FALSE);
  return all;
}

GST_START_TEST (test_nvrtc_compiles_complex_cases)
{
  gchar *source;
  GPtrArray *all = complex_cases (&source);
  GBytes *code = NULL;
  GError *err = NULL;

  g_setenv ("PLAN_NVRTC_CACHE", "0", TRUE);
  fail_unless (plan_nvrtc_compile (source, "sm_80", &code, &err), "%s",
      err ? err->message : "");
  fail_unless (g_bytes_get_size (code) > 1000);
  g_bytes_unref (code);
  g_unsetenv ("PLAN_NVRTC_CACHE");
  g_ptr_array_unref (all);
  g_free (source);
}

GST_END_TEST;

/* ---- NVRTC ---- */

static void
check_nvrtc (const gchar * arch)
{
  GError *err = NULL;
  GBytes *code = NULL;

  build_cases ();
  fail_unless (cases->len > 500, "only %u cases", cases->len);
  g_setenv ("PLAN_NVRTC_CACHE", "0", TRUE);
  fail_unless (plan_nvrtc_compile (all_source, arch, &code, &err),
      "%s", err ? err->message : "");
  fail_unless (g_bytes_get_size (code) > 1000);
  g_bytes_unref (code);
  g_unsetenv ("PLAN_NVRTC_CACHE");
}

GST_START_TEST (test_nvrtc_compiles_every_case_sm90)
{
  check_nvrtc ("sm_90");
}

GST_END_TEST;

GST_START_TEST (test_nvrtc_ptx_for_compute_arch)
{
  const gchar *names[] = { "x", "y" };
  PlanDType t[] = { PLAN_DTYPE_FLOAT32, PLAN_DTYPE_FLOAT32 };
  PlanExpr *e = plan_expr_compile ("2*x*y + sin(x)", 2, names, t, NULL);
  gchar *src = plan_expr_to_cuda (e, "bench");
  GBytes *code = NULL;
  GError *err = NULL;
  gsize size;
  const gchar *ptx;

  g_setenv ("PLAN_NVRTC_CACHE", "0", TRUE);
  fail_unless (plan_nvrtc_compile (src, "compute_90", &code, &err));
  ptx = g_bytes_get_data (code, &size);
  fail_unless (g_strstr_len (ptx, size, ".entry bench") != NULL);
  g_bytes_unref (code);
  g_unsetenv ("PLAN_NVRTC_CACHE");
  g_free (src);
  plan_expr_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_nvrtc_rejects_bad_arch)
{
  GBytes *code = NULL;
  GError *err = NULL;

  fail_if (plan_nvrtc_compile ("", "gfx90a", &code, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR,
          PLAN_ERROR_INVALID_ARGUMENT));
  fail_unless (strstr (err->message, "gfx90a") != NULL);
  g_error_free (err);
}

GST_END_TEST;

GST_START_TEST (test_nvrtc_reports_compile_log)
{
  GBytes *code = NULL;
  GError *err = NULL;

  g_setenv ("PLAN_NVRTC_CACHE", "0", TRUE);
  fail_if (plan_nvrtc_compile ("__global__ void k () { undeclared_x = 1; }",
          "sm_80", &code, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_DEVICE));
  fail_unless (strstr (err->message, "undeclared_x") != NULL, "%s",
      err->message);
  g_error_free (err);
  g_unsetenv ("PLAN_NVRTC_CACHE");
}

GST_END_TEST;

GST_START_TEST (test_nvrtc_cache_is_used)
{
  const gchar *src = "extern \"C\" __global__ void plan_cache_probe "
      "(float *o) { o[threadIdx.x] = 1.0f; }";
  gchar *path = plan_nvrtc_get_cache_path (src, "sm_80");
  GBytes *code = NULL, *again = NULL;
  GError *err = NULL;
  gchar *data = NULL;
  gsize size;
  guint n0;

  fail_unless (path != NULL);
  fail_unless (g_str_has_prefix (path, g_get_user_cache_dir ()));
  g_unlink (path);
  n0 = plan_nvrtc_get_n_compilations ();
  fail_unless (plan_nvrtc_compile (src, "sm_80", &code, &err));
  fail_unless_equals_int (plan_nvrtc_get_n_compilations (), n0 + 1);
  /* the entry: a header (magic, size, SHA-256), then the module */
  fail_unless (g_file_get_contents (path, &data, &size, NULL));
  fail_unless_equals_uint64 (size, g_bytes_get_size (code) + 48);
  fail_unless (memcmp (data, "PLANRTC1", 8) == 0);
  fail_unless (memcmp (data + 48, g_bytes_get_data (code, NULL),
          g_bytes_get_size (code)) == 0);

  /* The second compilation compiles nothing: it is the cached module. */
  fail_unless (plan_nvrtc_compile (src, "sm_80", &again, &err));
  fail_unless_equals_int (plan_nvrtc_get_n_compilations (), n0 + 1);
  fail_unless (g_bytes_equal (code, again));
  g_bytes_unref (again);

  /* A damaged entry (one byte of the module changed) is compiled again
   * and rewritten, not loaded. */
  data[48 + size / 3] ^= 0x5a;
  fail_unless (g_file_set_contents (path, data, size, NULL));
  fail_unless (plan_nvrtc_compile (src, "sm_80", &again, &err));
  fail_unless_equals_int (plan_nvrtc_get_n_compilations (), n0 + 2);
  fail_unless (g_bytes_equal (code, again));
  g_bytes_unref (again);
  fail_unless (plan_nvrtc_compile (src, "sm_80", &again, &err));
  fail_unless_equals_int (plan_nvrtc_get_n_compilations (), n0 + 2);
  g_bytes_unref (again);

  /* So is one cut short, or not an entry at all. */
  fail_unless (g_file_set_contents (path, data, size - 7, NULL));
  fail_unless (plan_nvrtc_compile (src, "sm_80", &again, &err));
  fail_unless_equals_int (plan_nvrtc_get_n_compilations (), n0 + 3);
  fail_unless (g_bytes_equal (code, again));
  g_bytes_unref (again);
  fail_unless (g_file_set_contents (path, "cached", 6, NULL));
  fail_unless (plan_nvrtc_compile (src, "sm_80", &again, &err));
  fail_unless_equals_int (plan_nvrtc_get_n_compilations (), n0 + 4);
  fail_unless (g_bytes_equal (code, again));
  g_bytes_unref (again);
  g_free (data);

  /* A different architecture is a different entry. */
  data = plan_nvrtc_get_cache_path (src, "sm_90");
  fail_if (g_strcmp0 (data, path) == 0);
  g_free (data);

  g_unlink (path);
  g_bytes_unref (code);
  g_free (path);
}

GST_END_TEST;

/* Generated code is compiled without contraction (--fmad=false): x*y + z
 * is a rounded multiply and a rounded add in the PTX, never an fma. */
GST_START_TEST (test_nvrtc_compiles_without_contraction)
{
  const gchar *names[] = { "x", "y" };
  PlanDType t[] = { PLAN_DTYPE_FLOAT32, PLAN_DTYPE_FLOAT64 };
  PlanExpr *e = plan_expr_compile ("x*x + y", 2, names, t, NULL);
  gchar *src = plan_expr_to_cuda (e, "nofma"), *ptx;
  gconstpointer data;
  GBytes *code = NULL;
  GError *err = NULL;
  gsize size;

  g_setenv ("PLAN_NVRTC_CACHE", "0", TRUE);
  fail_unless (plan_nvrtc_compile (src, "compute_80", &code, &err), "%s",
      err ? err->message : "");
  data = g_bytes_get_data (code, &size);
  ptx = g_strndup (data, size);
  fail_unless (strstr (ptx, "mul.rn.f") != NULL, "%s", ptx);
  fail_unless (strstr (ptx, "add.rn.f") != NULL, "%s", ptx);
  fail_unless (strstr (ptx, "fma.") == NULL, "an fma in:\n%s", ptx);
  g_free (ptx);
  g_bytes_unref (code);
  g_unsetenv ("PLAN_NVRTC_CACHE");
  g_free (src);
  plan_expr_unref (e);
}

GST_END_TEST;

/* float16 is loaded and stored as 16 bits and computed in float: the PTX
 * converts with the hardware's cvt (round to nearest even going back), and
 * a float64 is rounded to float16 once, not through float. */
GST_START_TEST (test_nvrtc_float16_computes_in_float)
{
  const gchar *names[] = { "h", "d" };
  PlanDType t[] = { PLAN_DTYPE_FLOAT16, PLAN_DTYPE_FLOAT64 };
  PlanExpr *e = plan_expr_compile ("h * h + float16(d)", 2, names, t, NULL);
  gchar *src = plan_expr_to_cuda (e, "half"), *ptx;
  gconstpointer data;
  GBytes *code = NULL;
  GError *err = NULL;
  gsize size;

  fail_unless_equals_int (plan_expr_get_dtype (e), PLAN_DTYPE_FLOAT16);
  g_setenv ("PLAN_NVRTC_CACHE", "0", TRUE);
  fail_unless (plan_nvrtc_compile (src, "compute_80", &code, &err), "%s",
      err ? err->message : "");
  data = g_bytes_get_data (code, &size);
  ptx = g_strndup (data, size);
  fail_unless (strstr (ptx, "cvt.f32.f16") != NULL, "%s", ptx);
  fail_unless (strstr (ptx, "mul.rn.f32") != NULL, "%s", ptx);
  fail_unless (strstr (ptx, "cvt.rn.f16.f32") != NULL, "%s", ptx);
  fail_unless (strstr (ptx, "cvt.rn.f16.f64") != NULL, "%s", ptx);
  fail_unless (strstr (ptx, "ld.global.u16") != NULL
      || strstr (ptx, "ld.global.nc.u16") != NULL
      || strstr (ptx, "ld.global.nc.v4.u16") != NULL
      || strstr (ptx, "ld.global.v4.u16") != NULL, "%s", ptx);
  g_free (ptx);
  g_bytes_unref (code);
  g_unsetenv ("PLAN_NVRTC_CACHE");
  g_free (src);
  plan_expr_unref (e);
}

GST_END_TEST;

/* ---- the generated code on the host ---- */

#ifdef PLAN_NVCC

static guint64 lcg_state = 88172645463325252ull;

static guint64
lcg (void)
{
  lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
  return lcg_state >> 11;
}

static void
fill_values (PlanDType d, guint8 * buf)
{
  static const gdouble fspecial[] = { 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 2.5,
    INFINITY, -INFINITY, NAN, 1e-40, 3.0, 7.0, -7.0, 1e10, 130.5, 1e30,
    -300.0, 0.75, 5.0
  };
  static const gint64 ispecial[] = { 0, 1, -1, 2, 3, 7, -7, 127, -128,
    255, 32767, -32768, 65535, G_MAXINT32, G_MININT32, G_MAXINT64,
    G_MININT64, 5, 63, 64
  };
  gsize size = plan_dtype_get_size (d);
  guint k;

  for (k = 0; k < N_VALUES; k++) {
    guint8 *p = buf + k * size;
    if (plan_dtype_is_float (d)) {
      gdouble v = k < G_N_ELEMENTS (fspecial) ? fspecial[k]
          : ((gdouble) (lcg () % 20001) - 10000.0) / 100.0;
      if (d == PLAN_DTYPE_FLOAT16) {
        guint16 h = plan_dtype_float16_from_double (v);
        memcpy (p, &h, 2);
      } else if (d == PLAN_DTYPE_FLOAT32) {
        gfloat f = (gfloat) v;
        memcpy (p, &f, 4);
      } else {
        memcpy (p, &v, 8);
      }
    } else if (d == PLAN_DTYPE_BOOL) {
      p[0] = lcg () & 1;
    } else {
      guint64 v = k < G_N_ELEMENTS (ispecial) ? (guint64) ispecial[k]
          : (k & 1) ? lcg () : lcg () % 41 - 20;
      memcpy (p, &v, size);     /* little-endian: the low bytes */
    }
  }
}

static gboolean
is_inexact (const gchar * src)
{
  guint k;

  for (k = 0; k < G_N_ELEMENTS (inexact); k++)
    if (strstr (src, inexact[k]) != NULL)
      return TRUE;
  return FALSE;
}

static gint64
ulp_distance (PlanDType d, const guint8 * a, const guint8 * b)
{
  if (d == PLAN_DTYPE_FLOAT16) {
    guint16 x, y;
    gint64 sx, sy;
    memcpy (&x, a, 2);
    memcpy (&y, b, 2);
    if ((x & 0x7fff) > 0x7c00 || (y & 0x7fff) > 0x7c00)
      return (x & 0x7fff) > 0x7c00 && (y & 0x7fff) > 0x7c00 ? 0 : G_MAXINT64;
    sx = (x & 0x8000) ? -(gint64) (x & 0x7fff) : (gint64) x;
    sy = (y & 0x8000) ? -(gint64) (y & 0x7fff) : (gint64) y;
    return ABS (sx - sy);
  } else if (d == PLAN_DTYPE_FLOAT32) {
    gint32 x, y;
    gfloat fx, fy;
    memcpy (&fx, a, 4);
    memcpy (&fy, b, 4);
    if (isnan (fx) || isnan (fy))
      return isnan (fx) && isnan (fy) ? 0 : G_MAXINT64;
    memcpy (&x, a, 4);
    memcpy (&y, b, 4);
    if (x < 0)
      x = G_MININT32 - x;
    if (y < 0)
      y = G_MININT32 - y;
    return ABS ((gint64) x - (gint64) y);
  } else {
    gint64 x, y;
    gdouble fx, fy;
    memcpy (&fx, a, 8);
    memcpy (&fy, b, 8);
    if (isnan (fx) || isnan (fy))
      return isnan (fx) && isnan (fy) ? 0 : G_MAXINT64;
    memcpy (&x, a, 8);
    memcpy (&y, b, 8);
    if (x < 0)
      x = G_MININT64 - x;
    if (y < 0)
      y = G_MININT64 - y;
    if ((x > 0) != (y > 0))
      return G_MAXINT64;
    return ABS (x - y);
  }
}

/* Compares value by value; NaN equals NaN whatever its payload. */
static void
compare_case (Case * c, const guint8 * got, const guint8 * want)
{
  PlanDType d = plan_expr_get_dtype (c->expr);
  gsize size = plan_dtype_get_size (d);
  gboolean loose = is_inexact (c->source) && plan_dtype_is_float (d);
  guint k;

  for (k = 0; k < N_VALUES; k++) {
    const guint8 *g = got + k * size, *w = want + k * size;
    if (plan_dtype_is_float (d)) {
      gint64 dist = ulp_distance (d, g, w);
      fail_unless (dist <= (loose ? 3 : 0), "%s (%s, %s) element %u: "
          "%" G_GINT64_FORMAT " ulp apart", c->source,
          plan_dtype_to_string (c->da), plan_dtype_to_string (c->db), k, dist);
    } else {
      fail_unless (memcmp (g, w, size) == 0, "%s (%s, %s) element %u "
          "differs", c->source, plan_dtype_to_string (c->da),
          plan_dtype_to_string (c->db), k);
    }
  }
}

typedef void (*HostFunc) (const void *const *in, void *out, guint64 n);

#define N_NAN 65536

/* The casts from and to float16 keep NaNs' bits as numpy's do (and the
 * CPU's casts, which tests/pipelines/test_expr_numpy.py checks against
 * numpy): every float16 value, and float32 and float64 NaNs of both signs
 * with every value of the 10 payload bits float16 keeps, with and without
 * lower bits (infinities among them). The device converts numbers with
 * its cvt instructions, which need not keep a NaN's payload, and NaNs with
 * the same code as the host: run here, bit for bit against the CPU. */
static void
check_float16_nan_casts (GModule * module)
{
  guint16 *h = g_new (guint16, N_NAN);
  guint32 *f = g_new (guint32, N_NAN);
  guint64 *d = g_new (guint64, N_NAN);
  guint8 *got = g_malloc (N_NAN * 16), *want = g_malloc (N_NAN * 16);
  guint i, k, n_checked = 0;

  for (k = 0; k < N_NAN; k++) {
    guint32 low = (k & 0x400) ? ((k >> 11) & 0xf) | 1 : 0;
    h[k] = (guint16) k;
    f[k] = ((guint32) (k & 0x8000) << 16) | 0x7f800000u
        | ((guint32) (k & 0x3ff) << 13) | low;
    d[k] = ((guint64) (k & 0x8000) << 48)
        | G_GUINT64_CONSTANT (0x7ff0000000000000)
        | ((guint64) (k & 0x3ff) << 42) | low;
  }
  for (i = 0; i < cases->len; i++) {
    Case *c = g_ptr_array_index (cases, i);
    PlanDType to = plan_expr_get_dtype (c->expr);
    gsize size = plan_dtype_get_size (to);
    gchar *cast = g_strdup_printf ("%s(a)", plan_dtype_to_string (to));
    gchar *sym = g_strdup_printf ("%s_host", c->name);
    gconstpointer in[4];
    HostFunc fn = NULL;

    in[0] = c->da == PLAN_DTYPE_FLOAT16 ? (gconstpointer) h :
        c->da == PLAN_DTYPE_FLOAT32 ? (gconstpointer) f : (gconstpointer) d;
    in[1] = in[2] = in[3] = in[0];
    if (!c->bcast && strcmp (c->source, cast) == 0
        && (c->da == PLAN_DTYPE_FLOAT16 || (to == PLAN_DTYPE_FLOAT16
                && (c->da == PLAN_DTYPE_FLOAT32
                    || c->da == PLAN_DTYPE_FLOAT64)))) {
      fail_unless (g_module_symbol (module, sym, (gpointer *) & fn), "%s",
          sym);
      fn (in, got, N_NAN);
      plan_expr_eval (c->expr, in, want, N_NAN);
      for (k = 0; k < N_NAN; k++) {
        guint64 g = 0, w = 0;
        memcpy (&g, got + k * size, MIN (size, 8));
        memcpy (&w, want + k * size, MIN (size, 8));
        fail_unless (memcmp (got + k * size, want + k * size, size) == 0,
            "%s (%s to %s) of 0x%" G_GINT64_MODIFIER "x: 0x%"
            G_GINT64_MODIFIER "x, the CPU 0x%" G_GINT64_MODIFIER "x",
            c->source, plan_dtype_to_string (c->da),
            plan_dtype_to_string (to), c->da == PLAN_DTYPE_FLOAT16 ?
            (guint64) h[k] : c->da == PLAN_DTYPE_FLOAT32 ? (guint64) f[k] :
            d[k], g, w);
      }
      n_checked++;
    }
    g_free (sym);
    g_free (cast);
  }
  /* from float16 to bool, the 8 integers, the 3 floats; to it from 2 */
  fail_unless_equals_int (n_checked, 14);
  g_free (h);
  g_free (f);
  g_free (d);
  g_free (got);
  g_free (want);
}

GST_START_TEST (test_generated_code_matches_cpu_evaluator)
{
  gchar *dir = g_dir_make_tmp ("plan-exprcuda-XXXXXX", NULL);
  gchar *cu = g_build_filename (dir, "cases.cu", NULL);
  gchar *so = g_build_filename (dir, "cases.so", NULL);
  GModule *module;
  guint8 *inputs[PLAN_DTYPE_N], *others[PLAN_DTYPE_N];
  guint i, k;

  build_cases ();
  nvcc_compile_host (cu, so, all_source, "-fPIC", "-DPLAN_EXPR_HOST_ENTRY");
  module = g_module_open (so, G_MODULE_BIND_LAZY);
  fail_unless (module != NULL, "%s", g_module_error ());

  /* b takes the same values in another order, so that every special
   * value meets others. */
  for (i = PLAN_DTYPE_BOOL; i < PLAN_DTYPE_N; i++) {
    gsize size = plan_dtype_get_size (i);

    if (plan_dtype_is_complex (i))
      continue;
    inputs[i] = g_malloc (N_VALUES * 8);
    others[i] = g_malloc (N_VALUES * 8);
    fill_values (i, inputs[i]);
    for (k = 0; k < N_VALUES; k++)
      memcpy (others[i] + k * size,
          inputs[i] + ((k * 7 + 3) % N_VALUES) * size, size);
  }

  for (i = 0; i < cases->len; i++) {
    Case *c = g_ptr_array_index (cases, i);
    gchar *sym = g_strdup_printf ("%s_host", c->name);
    gconstpointer in[4] = { inputs[c->da], others[c->db], others[c->da],
      inputs[c->db] + 5 * plan_dtype_get_size (c->db)
    };
    guint8 got[N_VALUES * 8], want[N_VALUES * 8];
    HostFunc fn = NULL;

    fail_unless (g_module_symbol (module, sym, (gpointer *) & fn), "%s", sym);
    /* Broadcast cases: 16 rows of 8; b reads 32 values, c 4, s one. */
    fn (in, got, N_VALUES);
    plan_expr_eval (c->expr, in, want, N_VALUES);
    compare_case (c, got, want);
    g_free (sym);
  }
  check_float16_nan_casts (module);

  for (i = PLAN_DTYPE_BOOL; i < PLAN_DTYPE_N; i++) {
    if (plan_dtype_is_complex (i))
      continue;
    g_free (inputs[i]);
    g_free (others[i]);
  }
  g_module_close (module);
  g_unlink (cu);
  g_unlink (so);
  g_rmdir (dir);
  g_free (cu);
  g_free (so);
  g_free (dir);
}

GST_END_TEST;

/* Random finite complex values, parts of magnitudes 1e-2 to 1e2 and
 * either sign, and a few zeros. */
static void
fill_complex (PlanDType d, guint8 * buf, guint n)
{
  guint k, p;

  for (k = 0; k < n; k++) {
    for (p = 0; p < 2; p++) {
      gdouble v = k < 4 && ((k >> p) & 1) ? 0.0 : ldexp ((gdouble) (lcg ()
              % 1000000) / 1e6 + 0.1, (gint) (lcg () % 14) - 7);
      if (lcg () & 1)
        v = -v;
      if (d == PLAN_DTYPE_COMPLEX64) {
        gfloat f = (gfloat) v;
        memcpy (buf + k * 8 + p * 4, &f, 4);
      } else {
        memcpy (buf + k * 16 + p * 8, &v, 8);
      }
    }
  }
}

/* The distance of got from want in ulp of want's magnitude (in the dtype
 * of its parts); 0 for the same bits (NaN matching NaN). */
static gdouble
complex_distance (PlanDType d, const guint8 * got, const guint8 * want)
{
  gdouble g[2], w[2], mag, ulp;
  guint p;

  for (p = 0; p < 2; p++) {
    if (d == PLAN_DTYPE_COMPLEX64) {
      gfloat a, b;
      memcpy (&a, got + 4 * p, 4);
      memcpy (&b, want + 4 * p, 4);
      g[p] = a;
      w[p] = b;
    } else {
      memcpy (&g[p], got + 8 * p, 8);
      memcpy (&w[p], want + 8 * p, 8);
    }
  }
  if ((g[0] == w[0] || (isnan (g[0]) && isnan (w[0])))
      && (g[1] == w[1] || (isnan (g[1]) && isnan (w[1]))))
    return 0;
  mag = hypot (w[0], w[1]);
  if (d == PLAN_DTYPE_COMPLEX64)
    ulp = nextafterf ((gfloat) mag, INFINITY) - (gfloat) mag;
  else
    ulp = nextafter (mag, INFINITY) - mag;
  return MAX (fabs (g[0] - w[0]), fabs (g[1] - w[1])) / ulp;
}

GST_START_TEST (test_complex_generated_code_matches_cpu_evaluator)
{
  gchar *dir = g_dir_make_tmp ("plan-exprcuda-XXXXXX", NULL);
  gchar *cu = g_build_filename (dir, "complex.cu", NULL);
  gchar *so = g_build_filename (dir, "complex.so", NULL);
  gchar *source;
  GPtrArray *all = complex_cases (&source);
  GModule *module;
  guint i, k;
  guint8 *a[2], *b[2];
  gfloat f[N_VALUES];

  nvcc_compile_host (cu, so, source, "-fPIC", "-DPLAN_EXPR_HOST_ENTRY");
  module = g_module_open (so, G_MODULE_BIND_LAZY);
  fail_unless (module != NULL, "%s", g_module_error ());

  for (i = 0; i < 2; i++) {
    PlanDType d = i ? PLAN_DTYPE_COMPLEX128 : PLAN_DTYPE_COMPLEX64;
    a[i] = g_malloc (N_VALUES * 16);
    b[i] = g_malloc (N_VALUES * 16);
    fill_complex (d, a[i], N_VALUES);
    fill_complex (d, b[i], N_VALUES);
  }
  for (k = 0; k < N_VALUES; k++)
    f[k] = (gfloat) ((gdouble) (lcg () % 2001) / 100.0 - 10.0);

  for (i = 0; i < all->len; i++) {
    Case *c = g_ptr_array_index (all, i);
    guint n = G_N_ELEMENTS (complex_exprs), bound = complex_exprs[i % n].ulp;
    guint which = i >= n;
    gchar *sym = g_strdup_printf ("%s_host", c->name);
    gconstpointer in[3] = { a[which], b[which], f };
    guint8 got[N_VALUES * 16], want[N_VALUES * 16];
    PlanDType d = plan_expr_get_dtype (c->expr);
    gsize size = plan_dtype_get_size (d);
    HostFunc fn = NULL;

    fail_unless (g_module_symbol (module, sym, (gpointer *) & fn), "%s", sym);
    fn (in, got, N_VALUES);
    plan_expr_eval (c->expr, in, want, N_VALUES);
    for (k = 0; k < N_VALUES; k++) {
      const guint8 *g = got + k * size, *w = want + k * size;
      if (plan_dtype_is_complex (d)) {
        gdouble dist = complex_distance (d, g, w);
        fail_unless (dist <= bound, "%s on %s, element %u: %.1f ulp apart "
            "(bound %u)", c->source, plan_dtype_to_string (c->da), k, dist,
            bound);
      } else if (plan_dtype_is_float (d)) {
        fail_unless (ulp_distance (d, g, w) <= bound, "%s on %s, element "
            "%u differs", c->source, plan_dtype_to_string (c->da), k);
      } else {
        fail_unless (memcmp (g, w, size) == 0, "%s on %s, element %u "
            "differs", c->source, plan_dtype_to_string (c->da), k);
      }
    }
    g_free (sym);
  }

  for (i = 0; i < 2; i++) {
    g_free (a[i]);
    g_free (b[i]);
  }
  g_module_close (module);
  g_ptr_array_unref (all);
  g_unlink (cu);
  g_unlink (so);
  g_rmdir (dir);
  g_free (cu);
  g_free (so);
  g_free (dir);
  g_free (source);
}

GST_END_TEST;

#endif /* PLAN_NVCC */

static Suite *
exprcuda_suite (void)
{
  Suite *s = suite_create ("planexprcuda");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_nvrtc_compiles_every_case_sm90);
  tcase_add_test (tc, test_nvrtc_ptx_for_compute_arch);
  tcase_add_test (tc, test_nvrtc_rejects_bad_arch);
  tcase_add_test (tc, test_nvrtc_reports_compile_log);
  tcase_add_test (tc, test_nvrtc_cache_is_used);
  tcase_add_test (tc, test_nvrtc_compiles_without_contraction);
  tcase_add_test (tc, test_nvrtc_compiles_complex_cases);
  tcase_add_test (tc, test_nvrtc_float16_computes_in_float);
#ifdef PLAN_NVCC
  tcase_add_test (tc, test_generated_code_matches_cpu_evaluator);
  tcase_add_test (tc, test_complex_generated_code_matches_cpu_evaluator);
#endif
  return s;
}

/* rm -r @path: the private cache may hold more than our entries (a
 * GStreamer registry, say). */
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

int
main (int argc, char **argv)
{
  GError *err = NULL;
  gchar *cache;
  gint ret;

  /* A private cache, so the test never reads a stale entry; set before
   * anything asks GLib for the cache directory. */
  cache = g_dir_make_tmp ("plan-cache-XXXXXX", NULL);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  gst_check_init (&argc, &argv);
  if (!plan_nvrtc_load (&err)) {
    g_print ("skipped: %s\n", err->message);
    g_error_free (err);
    remove_tree (cache);
    g_free (cache);
    return 77;
  }
  ret = gst_check_run_suite (exprcuda_suite (), "exprcuda", __FILE__);
  remove_tree (cache);
  g_free (cache);
  return ret;
}
