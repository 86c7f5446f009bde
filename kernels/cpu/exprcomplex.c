/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The CPU loops of the expression evaluator on complex64 and complex128
 * values (pairs of float or double, the real part first).
 *
 * Compiled once, for the baseline instruction set and without contracting
 * products and sums into fused multiply-adds, so that every CPU gives the
 * same bits; exprloops.c adds them to each instruction set's table.
 *
 * The arithmetic is numpy's own (multiplication by the schoolbook formula,
 * division by Smith's algorithm as numpy's loops write it, reciprocal,
 * integer powers by repeated squaring), and the functions numpy takes from
 * the C library (sqrt, exp, log, the trigonometric and hyperbolic
 * functions and their inverses, abs as hypot, the general power) are the
 * same C library functions; exp2, log2, log10, expm1 and log1p are
 * numpy's formulas over them. See docs/expressions.md for the accuracy.
 */

#include "exprtable.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stddef.h>

#define KERNEL_ARGS size_t n, void *restrict o_, const void *restrict a_, \
    const void *restrict b_, const void *restrict c_

/* out = f(x): x and y are the parts of an operand, R the result type. */
#define CK1(name, T, R, NR, ...) \
  static void k_ ## name (KERNEL_ARGS) { \
    R *restrict o = o_; const T *restrict a = a_; size_t i; \
    (void) b_; (void) c_; \
    for (i = 0; i < n; i++) { T x = a[2 * i], y = a[2 * i + 1]; \
      R *r = o + (NR) * i; __VA_ARGS__; (void) x; (void) y; } }

/* out = f(a, b) on complex operands (ar, ai) and (br, bi). */
#define CK2(name, T, R, NR, ...) \
  static void k_ ## name (KERNEL_ARGS) { \
    R *restrict o = o_; const T *restrict a = a_, *restrict b = b_; \
    size_t i; (void) c_; \
    for (i = 0; i < n; i++) { T ar = a[2 * i], ai = a[2 * i + 1], \
      br = b[2 * i], bi = b[2 * i + 1]; R *r = o + (NR) * i; __VA_ARGS__; } }

/* The complex operations of one part type T (float or double), with the
 * C library's functions of suffix S (f or nothing) on C (its complex type).
 * The constants are numpy's NPY_LOGE2, NPY_LOG2E and NPY_LOG10E. */
#define COMPLEX_KERNELS(T, C, sfx, S) \
  static inline void cmul_##sfx (T ar, T ai, T br, T bi, T *rr, T *ri) { \
    T re = ar * br - ai * bi, im = ar * bi + ai * br; *rr = re; *ri = im; } \
  static inline void cdiv_##sfx (T ar, T ai, T br, T bi, T *rr, T *ri) { \
    T abr = fabs##S (br), abi = fabs##S (bi); \
    if (abr >= abi) { \
      if (abr == 0 && abi == 0) { *rr = ar / abr; *ri = ai / abr; } \
      else { T rat = bi / br, scl = (T) 1.0 / (br + bi * rat); \
        *rr = (ar + ai * rat) * scl; *ri = (ai - ar * rat) * scl; } \
    } else { T rat = br / bi, scl = (T) 1.0 / (bi + br * rat); \
      *rr = (ar * rat + ai) * scl; *ri = (ai * rat - ar) * scl; } } \
  static inline void cpow_##sfx (T ar, T ai, T br, T bi, T *rr, T *ri) { \
    C z; \
    if (br == 0 && bi == 0) { *rr = 1; *ri = 0; return; } \
    if (ar == 0 && ai == 0) { \
      if (br > 0 && bi == 0) { *rr = 0; *ri = 0; } \
      else { *rr = NAN; *ri = NAN; } \
      return; } \
    if (bi == 0 && fabs##S (br) < 100 && br == (T) (int) br) { \
      int k = (int) br, m = k < 0 ? -k : k, mask = 1; \
      T pr = ar, pi = ai, qr = 1, qi = 0; \
      if (k == 1) { *rr = ar; *ri = ai; return; } \
      if (k == 2) { cmul_##sfx (ar, ai, ar, ai, rr, ri); return; } \
      if (k == 3) { T sr, si; cmul_##sfx (ar, ai, ar, ai, &sr, &si); \
        cmul_##sfx (ar, ai, sr, si, rr, ri); return; } \
      for (;;) { \
        if (m & mask) cmul_##sfx (qr, qi, pr, pi, &qr, &qi); \
        mask <<= 1; \
        if (m < mask) break; \
        cmul_##sfx (pr, pi, pr, pi, &pr, &pi); } \
      if (br < 0) cdiv_##sfx (1, 0, qr, qi, &qr, &qi); \
      *rr = qr; *ri = qi; return; } \
    z = cpow##S (CMPLX##S##_ (ar, ai), CMPLX##S##_ (br, bi)); \
    *rr = creal##S (z); *ri = cimag##S (z); } \
  CK2 (add_##sfx, T, T, 2, r[0] = ar + br; r[1] = ai + bi) \
  CK2 (sub_##sfx, T, T, 2, r[0] = ar - br; r[1] = ai - bi) \
  CK2 (mul_##sfx, T, T, 2, cmul_##sfx (ar, ai, br, bi, &r[0], &r[1])) \
  CK2 (div_##sfx, T, T, 2, cdiv_##sfx (ar, ai, br, bi, &r[0], &r[1])) \
  CK2 (pow_##sfx, T, T, 2, cpow_##sfx (ar, ai, br, bi, &r[0], &r[1])) \
  CK2 (eq_##sfx, T, uint8_t, 1, r[0] = ar == br && ai == bi) \
  CK2 (ne_##sfx, T, uint8_t, 1, r[0] = ar != br || ai != bi) \
  CK1 (neg_##sfx, T, T, 2, r[0] = -x; r[1] = -y) \
  CK1 (conj_##sfx, T, T, 2, r[0] = x; r[1] = -y) \
  CK1 (square_##sfx, T, T, 2, cmul_##sfx (x, y, x, y, &r[0], &r[1])) \
  CK1 (reciprocal_##sfx, T, T, 2, \
      if (fabs##S (y) <= fabs##S (x)) { T q = y / x, d = x + y * q; \
        r[0] = 1 / d; r[1] = -q / d; } \
      else { T q = x / y, d = x * q + y; r[0] = q / d; r[1] = -1 / d; }) \
  CK1 (abs_##sfx, T, T, 1, r[0] = hypot##S (x, y)) \
  CK1 (real_##sfx, T, T, 1, r[0] = x) \
  CK1 (imag_##sfx, T, T, 1, r[0] = y) \
  CK1 (angle_##sfx, T, T, 1, r[0] = atan2##S (y, x)) \
  CK1 (isnan_##sfx, T, uint8_t, 1, r[0] = isnan (x) || isnan (y)) \
  CK1 (isinf_##sfx, T, uint8_t, 1, r[0] = isinf (x) || isinf (y)) \
  CK1 (isfinite_##sfx, T, uint8_t, 1, r[0] = isfinite (x) && isfinite (y)) \
  CK1 (rint_##sfx, T, T, 2, r[0] = rint##S (x); r[1] = rint##S (y)) \
  CK1 (nan_to_num_##sfx, T, T, 2, \
      r[0] = isnan (x) ? 0 : isinf (x) ? copysign##S (MAXV_##sfx, x) : x; \
      r[1] = isnan (y) ? 0 : isinf (y) ? copysign##S (MAXV_##sfx, y) : y) \
  CK1 (exp2_##sfx, T, T, 2, \
      C z = cexp##S (CMPLX##S##_ (x * (T) 0.693147180559945309417232121458176568, \
              y * (T) 0.693147180559945309417232121458176568)); \
      r[0] = creal##S (z); r[1] = cimag##S (z)) \
  CK1 (log2_##sfx, T, T, 2, C z = clog##S (CMPLX##S##_ (x, y)); \
      r[0] = creal##S (z) * (T) 1.442695040888963407359924681001892137; \
      r[1] = cimag##S (z) * (T) 1.442695040888963407359924681001892137) \
  CK1 (log10_##sfx, T, T, 2, C z = clog##S (CMPLX##S##_ (x, y)); \
      r[0] = creal##S (z) * (T) 0.434294481903251827651128918916605082; \
      r[1] = cimag##S (z) * (T) 0.434294481903251827651128918916605082) \
  CK1 (expm1_##sfx, T, T, 2, T h = sin##S (y / 2); \
      r[0] = expm1##S (x) * cos##S (y) - 2 * h * h; \
      r[1] = exp##S (x) * sin##S (y)) \
  CK1 (log1p_##sfx, T, T, 2, T l = hypot##S (x + 1, y); \
      r[1] = atan2##S (y, x + 1); r[0] = log##S (l)) \
  static void k_where_##sfx (KERNEL_ARGS) { \
    T *restrict o = o_; const uint8_t *restrict c = a_; \
    const T *restrict x = b_, *restrict y = c_; size_t i; \
    for (i = 0; i < n; i++) { const T *s = c[i] ? x : y; \
      o[2 * i] = s[2 * i]; o[2 * i + 1] = s[2 * i + 1]; } } \
  CK1 (cast_##sfx##_b, T, uint8_t, 1, r[0] = x != 0 || y != 0)

/* The C library's function of one complex argument, part by part. */
#define CFN(name, T, C, S, fn) \
  CK1 (name, T, T, 2, C z = fn (CMPLX##S##_ (x, y)); r[0] = creal##S (z); \
      r[1] = cimag##S (z))

/* A complex value from its parts (C11 guarantees the layout of T[2];
 * CMPLX() itself needs C11 headers, x + I * y mistreats infinities). */
static inline float complex
make_c64 (float x, float y)
{
  float complex z;

  ((float *) &z)[0] = x;
  ((float *) &z)[1] = y;
  return z;
}

static inline double complex
make_c128 (double x, double y)
{
  double complex z;

  ((double *) &z)[0] = x;
  ((double *) &z)[1] = y;
  return z;
}

#define CMPLX_(x, y) make_c128 (x, y)
#define CMPLXf_(x, y) make_c64 (x, y)
#define MAXV_c64 FLT_MAX
#define MAXV_c128 DBL_MAX

COMPLEX_KERNELS (float, float complex, c64, f)
COMPLEX_KERNELS (double, double complex, c128,)

#define LIBC_FUNCTIONS(T, C, sfx, S) \
  CFN (sqrt_##sfx, T, C, S, csqrt##S) CFN (exp_##sfx, T, C, S, cexp##S) \
  CFN (log_##sfx, T, C, S, clog##S) CFN (sin_##sfx, T, C, S, csin##S) \
  CFN (cos_##sfx, T, C, S, ccos##S) CFN (tan_##sfx, T, C, S, ctan##S) \
  CFN (asin_##sfx, T, C, S, casin##S) CFN (acos_##sfx, T, C, S, cacos##S) \
  CFN (atan_##sfx, T, C, S, catan##S) CFN (sinh_##sfx, T, C, S, csinh##S) \
  CFN (cosh_##sfx, T, C, S, ccosh##S) CFN (tanh_##sfx, T, C, S, ctanh##S) \
  CFN (asinh_##sfx, T, C, S, casinh##S) \
  CFN (acosh_##sfx, T, C, S, cacosh##S) \
  CFN (atanh_##sfx, T, C, S, catanh##S)

LIBC_FUNCTIONS (float, float complex, c64, f)
LIBC_FUNCTIONS (double, double complex, c128,)

/* ---- casts ---- */

/* A real (or bool) value becomes the real part; the imaginary part is 0. */
#define TO_COMPLEX(F, fs, T, ts) \
  static void k_cast_##fs##_##ts (KERNEL_ARGS) { \
    T *restrict o = o_; const F *restrict a = a_; size_t i; \
    (void) b_; (void) c_; \
    for (i = 0; i < n; i++) { o[2 * i] = (T) a[i]; o[2 * i + 1] = 0; } }
#define TO_BOTH(F, fs) TO_COMPLEX (F, fs, float, c64) \
  TO_COMPLEX (F, fs, double, c128)

TO_BOTH (int8_t, i8) TO_BOTH (uint8_t, u8) TO_BOTH (int16_t, i16)
TO_BOTH (uint16_t, u16) TO_BOTH (int32_t, i32) TO_BOTH (uint32_t, u32)
TO_BOTH (int64_t, i64) TO_BOTH (uint64_t, u64) TO_BOTH (float, f32)
TO_BOTH (double, f64)

static void
k_cast_b_c64 (KERNEL_ARGS)
{
  float *restrict o = o_;
  const uint8_t *restrict a = a_;
  size_t i;

  (void) b_;
  (void) c_;
  for (i = 0; i < n; i++) {
    o[2 * i] = a[i] != 0;
    o[2 * i + 1] = 0;
  }
}

static void
k_cast_b_c128 (KERNEL_ARGS)
{
  double *restrict o = o_;
  const uint8_t *restrict a = a_;
  size_t i;

  (void) b_;
  (void) c_;
  for (i = 0; i < n; i++) {
    o[2 * i] = a[i] != 0;
    o[2 * i + 1] = 0;
  }
}

CK1 (cast_c64_c128, float, double, 2, r[0] = x; r[1] = y)
CK1 (cast_c128_c64, double, float, 2, r[0] = (float) x; r[1] = (float) y)
CK1 (copy_c128, double, double, 2, r[0] = x; r[1] = y)

/* ---- the table ---- */

#define D(name) PLAN_DTYPE_##name
#define SET_COMPLEX(DT, sfx) \
  t->binary[EXPR_OP_ADD][DT] = k_add_##sfx; \
  t->binary[EXPR_OP_SUB][DT] = k_sub_##sfx; \
  t->binary[EXPR_OP_MUL][DT] = k_mul_##sfx; \
  t->binary[EXPR_OP_DIV][DT] = k_div_##sfx; \
  t->binary[EXPR_OP_POW][DT] = k_pow_##sfx; \
  t->binary[EXPR_OP_EQ][DT] = k_eq_##sfx; \
  t->binary[EXPR_OP_NE][DT] = k_ne_##sfx; \
  t->unary[EXPR_OP_NEG][DT] = k_neg_##sfx; \
  t->unary[EXPR_OP_CONJ][DT] = k_conj_##sfx; \
  t->unary[EXPR_OP_SQUARE][DT] = k_square_##sfx; \
  t->unary[EXPR_OP_RECIPROCAL][DT] = k_reciprocal_##sfx; \
  t->unary[EXPR_OP_ABS][DT] = k_abs_##sfx; \
  t->unary[EXPR_OP_REAL][DT] = k_real_##sfx; \
  t->unary[EXPR_OP_IMAG][DT] = k_imag_##sfx; \
  t->unary[EXPR_OP_ANGLE][DT] = k_angle_##sfx; \
  t->unary[EXPR_OP_ISNAN][DT] = k_isnan_##sfx; \
  t->unary[EXPR_OP_ISINF][DT] = k_isinf_##sfx; \
  t->unary[EXPR_OP_ISFINITE][DT] = k_isfinite_##sfx; \
  t->unary[EXPR_OP_RINT][DT] = k_rint_##sfx; \
  t->unary[EXPR_OP_NAN_TO_NUM][DT] = k_nan_to_num_##sfx; \
  t->unary[EXPR_OP_SQRT][DT] = k_sqrt_##sfx; \
  t->unary[EXPR_OP_EXP][DT] = k_exp_##sfx; \
  t->unary[EXPR_OP_EXP2][DT] = k_exp2_##sfx; \
  t->unary[EXPR_OP_EXPM1][DT] = k_expm1_##sfx; \
  t->unary[EXPR_OP_LOG][DT] = k_log_##sfx; \
  t->unary[EXPR_OP_LOG2][DT] = k_log2_##sfx; \
  t->unary[EXPR_OP_LOG10][DT] = k_log10_##sfx; \
  t->unary[EXPR_OP_LOG1P][DT] = k_log1p_##sfx; \
  t->unary[EXPR_OP_SIN][DT] = k_sin_##sfx; \
  t->unary[EXPR_OP_COS][DT] = k_cos_##sfx; \
  t->unary[EXPR_OP_TAN][DT] = k_tan_##sfx; \
  t->unary[EXPR_OP_ASIN][DT] = k_asin_##sfx; \
  t->unary[EXPR_OP_ACOS][DT] = k_acos_##sfx; \
  t->unary[EXPR_OP_ATAN][DT] = k_atan_##sfx; \
  t->unary[EXPR_OP_SINH][DT] = k_sinh_##sfx; \
  t->unary[EXPR_OP_COSH][DT] = k_cosh_##sfx; \
  t->unary[EXPR_OP_TANH][DT] = k_tanh_##sfx; \
  t->unary[EXPR_OP_ASINH][DT] = k_asinh_##sfx; \
  t->unary[EXPR_OP_ACOSH][DT] = k_acosh_##sfx; \
  t->unary[EXPR_OP_ATANH][DT] = k_atanh_##sfx; \
  t->where[DT] = k_where_##sfx; \
  t->cast[DT][D (BOOL)] = k_cast_##sfx##_b; \
  t->cast[D (BOOL)][DT] = k_cast_b_##sfx; \
  t->cast[D (INT8)][DT] = k_cast_i8_##sfx; \
  t->cast[D (UINT8)][DT] = k_cast_u8_##sfx; \
  t->cast[D (INT16)][DT] = k_cast_i16_##sfx; \
  t->cast[D (UINT16)][DT] = k_cast_u16_##sfx; \
  t->cast[D (INT32)][DT] = k_cast_i32_##sfx; \
  t->cast[D (UINT32)][DT] = k_cast_u32_##sfx; \
  t->cast[D (INT64)][DT] = k_cast_i64_##sfx; \
  t->cast[D (UINT64)][DT] = k_cast_u64_##sfx; \
  t->cast[D (FLOAT32)][DT] = k_cast_f32_##sfx; \
  t->cast[D (FLOAT64)][DT] = k_cast_f64_##sfx;

void
_plan_expr_complex_kernels_fill (ExprKernelTable * t)
{
  SET_COMPLEX (D (COMPLEX64), c64);
  SET_COMPLEX (D (COMPLEX128), c128);
  t->cast[D (COMPLEX64)][D (COMPLEX128)] = k_cast_c64_c128;
  t->cast[D (COMPLEX128)][D (COMPLEX64)] = k_cast_c128_c64;
  /* complex64 is 8 bytes, copied as such by the table's own copy. */
  t->cast[D (COMPLEX128)][D (COMPLEX128)] = k_copy_c128;
}
