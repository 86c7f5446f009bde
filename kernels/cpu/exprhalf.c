/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The float32 step of float16's functions, computed as numpy's float16
 * loops compute it.
 *
 * numpy converts each float16 value to float32, applies a float32
 * function and rounds the result to float16. For the transcendental
 * functions, arctan2, hypot and power that function is the C library's
 * (sinf, expf, atan2f, powf, ...); for logaddexp and logaddexp2 it is
 * numpy's formula evaluated in float32 over the C library's expf, exp2f
 * and log1pf. The float32 kernels of exprloops.c are other code (ours,
 * vectorised, within an ulp of the same values), whose float16 rounding
 * can differ next to a rounding boundary of float16; these give numpy's
 * float16 bits on every input. The typing pass marks the float32
 * operations that stand for a float16 one (ExprNode.numpy_f16).
 *
 * Compiled once, for the baseline instruction set and without contracting
 * products and sums into fused multiply-adds, as numpy's own math library
 * is; the same kernels go into each instruction set's table.
 */

#include "exprtable.h"
#include "half.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define KERNEL_ARGS size_t n, void *restrict o_, const void *restrict a_, \
    const void *restrict b_, const void *restrict c_

/* A function of one operand has 65536 float16 arguments: its results,
 * float16(fn(float(h))) for every h, are a table of 128 KiB, filled on
 * first use (a millisecond), and the kernel looks them up, which is faster
 * than the C library's scalar function and gives its bits. The operand
 * (a float16 converted to float) is one of those 65536 values; one that is
 * not (there is none) would get fn itself. */
enum
{
  T_SIN, T_COS, T_TAN, T_EXP, T_EXP2, T_EXPM1, T_LOG, T_LOG2, T_LOG10,
  T_LOG1P, T_CBRT, T_ASIN, T_ACOS, T_ATAN, T_SINH, T_COSH, T_TANH, T_ASINH,
  T_ACOSH, T_ATANH, T_N
};

static guint16 tables[T_N][65536];
static gsize tables_done[T_N];

static const guint16 *
table (int k, float (*fn) (float))
{
  if (g_once_init_enter (&tables_done[k])) {
    guint32 h;

    for (h = 0; h < 65536; h++)
      tables[k][h] = _plan_half_from_float (fn (_plan_half_to_float (h)));
    g_once_init_leave (&tables_done[k], 1);
  }
  return tables[k];
}

/* In blocks: the operands' float16 bits first (a loop that vectorises),
 * then the lookups. Every operand of a block is read before its results
 * are written, so in-place evaluation is correct. */
#define HK1(fn, k) \
  static void k_ ## fn (KERNEL_ARGS) { \
    float *o = o_; const float *a = a_; size_t i0, i; \
    const guint16 *t = table (k, fn); \
    (void) b_; (void) c_; \
    for (i0 = 0; i0 < n; i0 += 256) { \
      size_t m = n - i0 < 256 ? n - i0 : 256; \
      guint16 hb[256]; \
      guint32 off = 0; \
      for (i = 0; i < m; i++) { \
        float x = a[i0 + i], back; \
        guint32 xb, bb; \
        hb[i] = _plan_half_from_float (x); \
        back = _plan_half_to_float (hb[i]); \
        memcpy (&xb, &x, 4); \
        memcpy (&bb, &back, 4); \
        off |= xb ^ bb; } \
      if (G_LIKELY (off == 0)) { \
        for (i = 0; i < m; i++) \
          o[i0 + i] = _plan_half_to_float (t[hb[i]]); \
      } else { \
        for (i = 0; i < m; i++) \
          o[i0 + i] = fn (a[i0 + i]); } } }

#define HK2(fn) \
  static void k_ ## fn (KERNEL_ARGS) { \
    float *o = o_; const float *a = a_, *b = b_; size_t i; \
    (void) c_; \
    for (i = 0; i < n; i++) o[i] = fn (a[i], b[i]); }

/* numpy's logaddexp and logaddexp2 in float32, with numpy's float
 * constants ln 2 and log2(e). */
static float
logaddexp_f32 (float x, float y)
{
  float d;

  if (x == y)                   /* equal infinities too */
    return x + 0.693147180559945309417232121458176568f;
  d = x - y;
  if (d > 0)
    return x + log1pf (expf (-d));
  if (d <= 0)
    return y + log1pf (expf (d));
  return d;                     /* NaN */
}

static float
logaddexp2_f32 (float x, float y)
{
  float d;

  if (x == y)
    return x + 1;
  d = x - y;
  if (d > 0)
    return x + 1.442695040888963407359924681001892137f * log1pf (exp2f (-d));
  if (d <= 0)
    return y + 1.442695040888963407359924681001892137f * log1pf (exp2f (d));
  return d;
}

HK1 (sinf, T_SIN) HK1 (cosf, T_COS) HK1 (tanf, T_TAN) HK1 (expf, T_EXP)
HK1 (exp2f, T_EXP2) HK1 (expm1f, T_EXPM1) HK1 (logf, T_LOG)
HK1 (log2f, T_LOG2) HK1 (log10f, T_LOG10) HK1 (log1pf, T_LOG1P)
HK1 (cbrtf, T_CBRT) HK1 (asinf, T_ASIN) HK1 (acosf, T_ACOS)
HK1 (atanf, T_ATAN) HK1 (sinhf, T_SINH) HK1 (coshf, T_COSH)
HK1 (tanhf, T_TANH) HK1 (asinhf, T_ASINH) HK1 (acoshf, T_ACOSH)
HK1 (atanhf, T_ATANH)
HK2 (atan2f) HK2 (hypotf) HK2 (powf) HK2 (logaddexp_f32)
HK2 (logaddexp2_f32)

void
_plan_expr_half_kernels_fill (ExprKernelTable * t)
{
  ExprKernel *k = t->numpy_f16;

  k[EXPR_OP_SIN] = k_sinf;
  k[EXPR_OP_COS] = k_cosf;
  k[EXPR_OP_TAN] = k_tanf;
  k[EXPR_OP_EXP] = k_expf;
  k[EXPR_OP_EXP2] = k_exp2f;
  k[EXPR_OP_EXPM1] = k_expm1f;
  k[EXPR_OP_LOG] = k_logf;
  k[EXPR_OP_LOG2] = k_log2f;
  k[EXPR_OP_LOG10] = k_log10f;
  k[EXPR_OP_LOG1P] = k_log1pf;
  k[EXPR_OP_CBRT] = k_cbrtf;
  k[EXPR_OP_ASIN] = k_asinf;
  k[EXPR_OP_ACOS] = k_acosf;
  k[EXPR_OP_ATAN] = k_atanf;
  k[EXPR_OP_SINH] = k_sinhf;
  k[EXPR_OP_COSH] = k_coshf;
  k[EXPR_OP_TANH] = k_tanhf;
  k[EXPR_OP_ASINH] = k_asinhf;
  k[EXPR_OP_ACOSH] = k_acoshf;
  k[EXPR_OP_ATANH] = k_atanhf;
  k[EXPR_OP_ATAN2] = k_atan2f;
  k[EXPR_OP_HYPOT] = k_hypotf;
  k[EXPR_OP_POW] = k_powf;
  k[EXPR_OP_LOGADDEXP] = k_logaddexp_f32;
  k[EXPR_OP_LOGADDEXP2] = k_logaddexp2_f32;
}
