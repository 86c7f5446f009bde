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

#include <math.h>
#include <stddef.h>

#define KERNEL_ARGS size_t n, void *restrict o_, const void *restrict a_, \
    const void *restrict b_, const void *restrict c_

#define HK1(fn) \
  static void k_ ## fn (KERNEL_ARGS) { \
    float *o = o_; const float *a = a_; size_t i; \
    (void) b_; (void) c_; \
    for (i = 0; i < n; i++) o[i] = fn (a[i]); }

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

HK1 (sinf) HK1 (cosf) HK1 (tanf) HK1 (expf) HK1 (exp2f) HK1 (expm1f)
HK1 (logf) HK1 (log2f) HK1 (log10f) HK1 (log1pf) HK1 (cbrtf)
HK1 (asinf) HK1 (acosf) HK1 (atanf) HK1 (sinhf) HK1 (coshf) HK1 (tanhf)
HK1 (asinhf) HK1 (acoshf) HK1 (atanhf)
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
