/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The CPU inner loops of the expression evaluator: one small function per
 * (operation, dtype), gathered in an ExprKernelTable.
 *
 * This file is compiled several times, once per instruction set
 * (-DEXPR_ISA=default, avx2, avx512 with the matching -march), and each
 * copy exports its table as _plan_expr_kernels_<isa>; libplan picks the one
 * of the widest set the CPU runs, for these loops and the reducer's alike
 * (libplan/core/plancpuisa.c). Every loop is
 * a plain counted loop over restrict pointers that the compiler vectorises;
 * it is built with -O3 -fwrapv -fno-math-errno -fno-trapping-math, so
 * integer arithmetic wraps as numpy's does and sqrt and rounding inline.
 *
 * Semantics are numpy's; the few differences are listed in
 * docs/expressions.md. Operands may alias the output exactly (in-place
 * evaluation), never partially.
 */

#include "exprtable.h"
#include "half.h"
#include "exprmath.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#define KERNEL_ARGS size_t n, void *restrict o_, const void *restrict a_, \
    const void *restrict b_, const void *restrict c_

#define CAT3_(a, b, c) a ## b ## c
#define CAT3(a, b, c) CAT3_ (a, b, c)
#define TABLE_FUNC CAT3 (_plan_expr_kernels_, EXPR_ISA, )

const ExprKernelTable *TABLE_FUNC (void);

/* out[i] = f(x) */
#define K1(name, T, R, expr) \
  static void k_ ## name (KERNEL_ARGS) { \
    R *restrict o = o_; const T *restrict a = a_; size_t i; \
    (void) b_; (void) c_; \
    for (i = 0; i < n; i++) { T x = a[i]; o[i] = (R) (expr); } }

/* out[i] = f(x, y) */
#define K2(name, T, R, expr) \
  static void k_ ## name (KERNEL_ARGS) { \
    R *restrict o = o_; const T *restrict a = a_, *restrict b = b_; \
    size_t i; (void) c_; \
    for (i = 0; i < n; i++) { T x = a[i], y = b[i]; o[i] = (R) (expr); } }

/* ---- integer helpers with numpy's semantics ---- */

#define INT_HELPERS(T, sfx, SIGNED, BITS) \
  static inline T floordiv_##sfx (T x, T y) { \
    T q; \
    if (y == 0) return 0; \
    if (SIGNED && y == (T) -1) return (T) (0 - (uint64_t) x); \
    q = x / y; \
    if (SIGNED && x % y != 0 && ((x < 0) != (y < 0))) q--; \
    return q; } \
  static inline T mod_##sfx (T x, T y) { \
    T r; \
    if (y == 0 || (SIGNED && y == (T) -1)) return 0; \
    r = x % y; \
    if (SIGNED && r != 0 && ((r < 0) != (y < 0))) r += y; \
    return r; } \
  static inline T fmod_##sfx (T x, T y) { \
    if (y == 0 || (SIGNED && y == (T) -1)) return 0; \
    return x % y; } \
  static inline T pow_##sfx (T x, T y) { \
    uint64_t r = 1, b = (uint64_t) x, e = (uint64_t) y; \
    if (SIGNED && y < 0) \
      return x == 1 ? 1 : x == (T) -1 ? ((y & 1) ? (T) -1 : 1) : 0; \
    while (e) { if (e & 1) r *= b; b *= b; e >>= 1; } \
    return (T) r; } \
  static inline T shl_##sfx (T x, T y) { \
    return (uint64_t) (int64_t) y < BITS ? (T) ((uint64_t) x << y) : 0; } \
  static inline T shr_##sfx (T x, T y) { \
    if ((uint64_t) (int64_t) y < BITS) return (T) (x >> y); \
    return SIGNED && x < 0 ? (T) -1 : 0; }

/* ---- float helpers ---- */

#define FLOAT_HELPERS(T, sfx, S) \
  static inline T divmod_##sfx (T a, T b, T *modp) { \
    T mod = fmod##S (a, b), div, fd; \
    if (b == 0) { *modp = mod; return a / b; } \
    div = (a - mod) / b; \
    if (mod != 0) { \
      if ((b < 0) != (mod < 0)) { mod += b; div -= 1; } \
    } else { mod = copysign##S (0, b); } \
    if (div != 0) { fd = floor##S (div); if (div - fd > (T) 0.5) fd += 1; } \
    else { fd = copysign##S (0, a / b); } \
    *modp = mod; return fd; } \
  static inline T floordiv_##sfx (T a, T b) { T m; return divmod_##sfx (a, b, &m); } \
  static inline T mod_##sfx (T a, T b) { \
    T m; if (b == 0) return fmod##S (a, b); divmod_##sfx (a, b, &m); return m; }

/* ---- kernels common to every numeric dtype ---- */

#define NUMERIC_KERNELS(T, sfx) \
  K2 (add_##sfx, T, T, x + y) \
  K2 (sub_##sfx, T, T, x - y) \
  K2 (mul_##sfx, T, T, x * y) \
  K2 (lt_##sfx, T, uint8_t, x < y) \
  K2 (le_##sfx, T, uint8_t, x <= y) \
  K2 (gt_##sfx, T, uint8_t, x > y) \
  K2 (ge_##sfx, T, uint8_t, x >= y) \
  K2 (eq_##sfx, T, uint8_t, x == y) \
  K2 (ne_##sfx, T, uint8_t, x != y) \
  K2 (floordiv_##sfx, T, T, floordiv_##sfx (x, y)) \
  K2 (mod_##sfx, T, T, mod_##sfx (x, y)) \
  K1 (neg_##sfx, T, T, -x) \
  K1 (square_##sfx, T, T, x * x) \
  static void k_where_##sfx (KERNEL_ARGS) { \
    T *restrict o = o_; const uint8_t *restrict c = a_; \
    const T *restrict x = b_, *restrict y = c_; size_t i; \
    for (i = 0; i < n; i++) o[i] = c[i] ? x[i] : y[i]; }

#define INT_KERNELS(T, sfx, SIGNED) \
  K2 (pow_##sfx, T, T, pow_##sfx (x, y)) \
  K2 (fmod_##sfx, T, T, fmod_##sfx (x, y)) \
  K2 (shl_##sfx, T, T, shl_##sfx (x, y)) \
  K2 (shr_##sfx, T, T, shr_##sfx (x, y)) \
  K2 (band_##sfx, T, T, x & y) \
  K2 (bor_##sfx, T, T, x | y) \
  K2 (bxor_##sfx, T, T, x ^ y) \
  K2 (min_##sfx, T, T, x < y ? x : y) \
  K2 (max_##sfx, T, T, x > y ? x : y) \
  K1 (bnot_##sfx, T, T, ~x) \
  K1 (reciprocal_##sfx, T, T, x == 1 ? (T) 1 \
      : (SIGNED && x == (T) -1) ? (T) -1 : (T) 0) \
  K1 (abs_##sfx, T, T, (SIGNED && x < 0) ? (T) (0 - (uint64_t) x) : x) \
  K1 (sign_##sfx, T, T, (x > 0) - (SIGNED && x < 0))

#define FLOAT_KERNELS(T, sfx, S) \
  K2 (div_##sfx, T, T, x / y) \
  K2 (fmod_##sfx, T, T, fmod##S (x, y)) \
  K2 (min_##sfx, T, T, (x <= y || x != x) ? x : y) \
  K2 (max_##sfx, T, T, (x >= y || x != x) ? x : y) \
  K2 (fmin_##sfx, T, T, (x <= y || y != y) ? x : y) \
  K2 (fmax_##sfx, T, T, (x >= y || y != y) ? x : y) \
  K1 (abs_##sfx, T, T, fabs##S (x)) \
  K1 (sign_##sfx, T, T, x > 0 ? (T) 1 : x < 0 ? (T) -1 : x == 0 ? (T) 0 : x) \
  K1 (sqrt_##sfx, T, T, sqrt##S (x)) \
  K1 (floor_##sfx, T, T, floor##S (x)) \
  K1 (ceil_##sfx, T, T, ceil##S (x)) \
  K1 (rint_##sfx, T, T, rint##S (x)) \
  K1 (trunc_##sfx, T, T, trunc##S (x)) \
  K1 (isnan_##sfx, T, uint8_t, x != x) \
  K1 (isinf_##sfx, T, uint8_t, fabs##S (x) == (T) INFINITY) \
  K1 (isfinite_##sfx, T, uint8_t, fabs##S (x) < (T) INFINITY) \
  K1 (signbit_##sfx, T, uint8_t, signbit (x) != 0) \
  K1 (reciprocal_##sfx, T, T, (T) 1 / x) \
  K2 (copysign_##sfx, T, T, copysign##S (x, y)) \
  K2 (heaviside_##sfx, T, T, x < 0 ? (T) 0 : x > 0 ? (T) 1 : x == 0 ? y : x) \
  K2 (logaddexp_##sfx, T, T, _plan_expr_logaddexp (x, y)) \
  K2 (logaddexp2_##sfx, T, T, _plan_expr_logaddexp2 (x, y))

#define FOR_INTS(X) \
  X (int8_t, i8, 1, 8) X (uint8_t, u8, 0, 8) \
  X (int16_t, i16, 1, 16) X (uint16_t, u16, 0, 16) \
  X (int32_t, i32, 1, 32) X (uint32_t, u32, 0, 32) \
  X (int64_t, i64, 1, 64) X (uint64_t, u64, 0, 64)

#define INT_ALL(T, sfx, SIGNED, BITS) \
  INT_HELPERS (T, sfx, SIGNED, BITS) \
  NUMERIC_KERNELS (T, sfx) \
  INT_KERNELS (T, sfx, SIGNED)

FOR_INTS (INT_ALL)

FLOAT_HELPERS (float, f32, f)
FLOAT_HELPERS (double, f64,)
NUMERIC_KERNELS (float, f32)
NUMERIC_KERNELS (double, f64)
FLOAT_KERNELS (float, f32, f)
FLOAT_KERNELS (double, f64,)
K1 (nan_to_num_f32, float, float, x != x ? 0.0f : x == INFINITY ? FLT_MAX
    : x == -INFINITY ? -FLT_MAX : x)
K1 (nan_to_num_f64, double, double, x != x ? 0.0 : x == INFINITY ? DBL_MAX
    : x == -INFINITY ? -DBL_MAX : x)

/* float64 functions: libm, which is correctly rounded or within 1 ulp in
 * glibc. */
K1 (cbrt_f64, double, double, cbrt (x))
K1 (exp2_f64, double, double, exp2 (x))
K1 (expm1_f64, double, double, expm1 (x))
K1 (log2_f64, double, double, log2 (x))
K1 (log10_f64, double, double, log10 (x))
K1 (log1p_f64, double, double, log1p (x))
K1 (tan_f64, double, double, tan (x))
K1 (sinh_f64, double, double, sinh (x))
K1 (cosh_f64, double, double, cosh (x))
K1 (tanh_f64, double, double, tanh (x))
K1 (asinh_f64, double, double, asinh (x))
K1 (acosh_f64, double, double, acosh (x))
K1 (atanh_f64, double, double, atanh (x))
K2 (pow_f64, double, double, pow (x, y))
K2 (atan2_f64, double, double, atan2 (x, y))
K1 (asin_f64, double, double, asin (x))
K1 (acos_f64, double, double, acos (x))
K1 (atan_f64, double, double, atan (x))
K2 (hypot_f64, double, double, hypot (x, y))

/* float32 functions computed in double with our vectorisable exp, log and
 * atan (exprmath.h): within 1 ulp, and 5 to 20 times faster than glibc's
 * scalar float functions. */
K1 (cbrt_f32, float, float, plan_cbrtf_d (x))
K1 (exp2_f32, float, float, plan_exp2f_d (x))
K1 (expm1_f32, float, float, plan_expm1f_d (x))
K1 (log2_f32, float, float, plan_log2f_d (x))
K1 (log10_f32, float, float, plan_log10f_d (x))
K1 (log1p_f32, float, float, plan_log1pf_d (x))
K1 (sinh_f32, float, float, plan_sinhf_d (x))
K1 (cosh_f32, float, float, plan_coshf_d (x))
K1 (tanh_f32, float, float, plan_tanhf_d (x))
K1 (asinh_f32, float, float, plan_asinhf_d (x))
K1 (acosh_f32, float, float, plan_acoshf_d (x))
K1 (atanh_f32, float, float, plan_atanhf_d (x))
K2 (pow_f32, float, float, plan_powf_d (x, y))
K2 (atan2_f32, float, float, plan_atan2f_d (x, y))
K1 (asin_f32, float, float, plan_asinf_d (x))
K1 (acos_f32, float, float, plan_acosf_d (x))
K1 (atan_f32, float, float, plan_atanf_d (x))
K2 (hypot_f32, float, float, plan_hypotf_d (x, y))
K1 (exp_f64, double, double, plan_exp_f64 (x))
K1 (log_f64, double, double, plan_log_f64 (x))
#if defined(__FMA__)
K1 (exp_f32, float, float, plan_expf_fma (x))
#else
K1 (exp_f32, float, float, plan_expf_core (x))
#endif
K1 (log_f32, float, float, plan_logf_core (x))

/* float32 sin and cos: the vector code for blocks whose arguments are all
 * within the limit of the implementation, libm for a block that has a
 * larger one (or a NaN or inf, which libm handles as well). Deciding per
 * block before writing keeps in-place evaluation correct. */
#if defined(__FMA__)
#define TRIG_CORE plan_sincosf_fma
#define TRIG_LIMIT PLAN_TRIG_LIMIT_FMA
#else
#define TRIG_CORE plan_sincosf_core
#define TRIG_LIMIT PLAN_TRIG_LIMIT
#endif

#define TRIG_F32(name, shift, libm_fn) \
  static void k_ ## name (KERNEL_ARGS) { \
    float *restrict o = o_; const float *restrict a = a_; size_t i0, i; \
    (void) b_; (void) c_; \
    for (i0 = 0; i0 < n; i0 += 256) { \
      size_t m = n - i0 < 256 ? n - i0 : 256; int big = 0; \
      for (i = 0; i < m; i++) big |= !(fabsf (a[i0 + i]) <= TRIG_LIMIT); \
      if (big) { for (i = 0; i < m; i++) o[i0 + i] = libm_fn (a[i0 + i]); } \
      else { for (i = 0; i < m; i++) \
          o[i0 + i] = TRIG_CORE (a[i0 + i], shift); } } }

TRIG_F32 (sin_f32, 0, sinf)
TRIG_F32 (cos_f32, 1, cosf)

#define TRIG_F64(name, shift, libm_fn) \
  static void k_ ## name (KERNEL_ARGS) { \
    double *restrict o = o_; const double *restrict a = a_; size_t i0, i; \
    (void) b_; (void) c_; \
    for (i0 = 0; i0 < n; i0 += 256) { \
      size_t m = n - i0 < 256 ? n - i0 : 256; int big = 0; \
      for (i = 0; i < m; i++) \
        big |= !(fabs (a[i0 + i]) <= PLAN_TRIG_LIMIT_F64); \
      if (big) { for (i = 0; i < m; i++) o[i0 + i] = libm_fn (a[i0 + i]); } \
      else { for (i = 0; i < m; i++) \
          o[i0 + i] = plan_sincos_f64 (a[i0 + i], shift); } } }

TRIG_F64 (sin_f64, 0, sin)
TRIG_F64 (cos_f64, 1, cos)

static void
k_tan_f32 (KERNEL_ARGS)
{
  float *restrict o = o_;
  const float *restrict a = a_;
  size_t i0, i;

  (void) b_;
  (void) c_;
  for (i0 = 0; i0 < n; i0 += 256) {
    size_t m = n - i0 < 256 ? n - i0 : 256;
    int big = 0;
    for (i = 0; i < m; i++)
      big |= !(fabsf (a[i0 + i]) <= PLAN_TRIG_LIMIT);
    if (big) {
      for (i = 0; i < m; i++)
        o[i0 + i] = tanf (a[i0 + i]);
    } else {
      for (i = 0; i < m; i++)
        o[i0 + i] = plan_tanf_d (a[i0 + i]);
    }
  }
}

/* ---- bool ---- */

K2 (add_b, uint8_t, uint8_t, (x != 0) | (y != 0))
K2 (mul_b, uint8_t, uint8_t, (x != 0) & (y != 0))
K2 (lt_b, uint8_t, uint8_t, (x != 0) < (y != 0))
K2 (le_b, uint8_t, uint8_t, (x != 0) <= (y != 0))
K2 (gt_b, uint8_t, uint8_t, (x != 0) > (y != 0))
K2 (ge_b, uint8_t, uint8_t, (x != 0) >= (y != 0))
K2 (eq_b, uint8_t, uint8_t, (x != 0) == (y != 0))
K2 (ne_b, uint8_t, uint8_t, (x != 0) != (y != 0))
K1 (lnot_b, uint8_t, uint8_t, x == 0)
K1 (abs_b, uint8_t, uint8_t, x != 0)
static void
k_where_b (KERNEL_ARGS)
{
  uint8_t *restrict o = o_;
  const uint8_t *restrict c = a_, *restrict x = b_, *restrict y = c_;
  size_t i;

  for (i = 0; i < n; i++)
    o[i] = (c[i] ? x[i] : y[i]) != 0;
}

/* ---- casts ---- */

/* Floats to integers truncate toward zero; NaN gives 0 and values beyond
 * the range saturate (C leaves both undefined; numpy gives what the CPU's
 * conversion instruction gives). The bounds are powers of two, exact in
 * every float type. */
#define F2I_VALUE(F, T, LO, HI) \
  (x != x ? (T) 0 : x <= (F) (LO) ? (T) (LO) : x >= (F) (HI) ? (T) ((HI) - 1) \
      : (T) x)
#define F2I(name, F, T, LO, HI) K1 (name, F, T, F2I_VALUE (F, T, LO, HI))

#define CAST_FROM_FLOAT(F, fs) \
  F2I (cast_##fs##_i8, F, int8_t, -128.0, 128.0) \
  F2I (cast_##fs##_u8, F, uint8_t, 0.0, 256.0) \
  F2I (cast_##fs##_i16, F, int16_t, -32768.0, 32768.0) \
  F2I (cast_##fs##_u16, F, uint16_t, 0.0, 65536.0) \
  F2I (cast_##fs##_i32, F, int32_t, -2147483648.0, 2147483648.0) \
  F2I (cast_##fs##_u32, F, uint32_t, 0.0, 4294967296.0) \
  K1 (cast_##fs##_i64, F, int64_t, x != x ? 0 : x <= (F) -0x1p63 ? INT64_MIN \
      : x >= (F) 0x1p63 ? INT64_MAX : (int64_t) x) \
  K1 (cast_##fs##_u64, F, uint64_t, x != x ? 0 : x <= 0 ? 0 \
      : x >= (F) 0x1p64 ? UINT64_MAX : (uint64_t) x) \
  K1 (cast_##fs##_b, F, uint8_t, x != 0)

CAST_FROM_FLOAT (float, f32)
CAST_FROM_FLOAT (double, f64)
K1 (cast_f32_f64, float, double, x)
K1 (cast_f64_f32, double, float, x)

/* float16 is a storage type (the typing pass computes every operation on
 * it in float32, with exprhalf.c's kernels where numpy's float16 loops
 * call the C library): it has casts, selection and nan_to_num. Its values
 * convert exactly to float, and a float16 cast to an integer is the
 * float's; every integer rounds to float16 through float exactly as it
 * would directly (float holds exactly every integer below 65520, the
 * first to become inf). */
#define FROM_F16(name, T, value) \
  static void k_ ## name (KERNEL_ARGS) { \
    T *restrict o = o_; const uint16_t *restrict a = a_; size_t i; \
    (void) b_; (void) c_; \
    for (i = 0; i < n; i++) { float x = _plan_half_to_float (a[i]); \
      o[i] = (T) (value); } }

FROM_F16 (cast_f16_i8, int8_t, F2I_VALUE (float, int8_t, -128.0, 128.0))
FROM_F16 (cast_f16_u8, uint8_t, F2I_VALUE (float, uint8_t, 0.0, 256.0))
FROM_F16 (cast_f16_i16, int16_t,
    F2I_VALUE (float, int16_t, -32768.0, 32768.0))
FROM_F16 (cast_f16_u16, uint16_t, F2I_VALUE (float, uint16_t, 0.0, 65536.0))
FROM_F16 (cast_f16_i32, int32_t, x != x ? 0 : x <= -65536.0f ? INT32_MIN
    : x >= 65536.0f ? INT32_MAX : (int32_t) x)
FROM_F16 (cast_f16_u32, uint32_t, x != x || x <= 0 ? 0 : x >= 65536.0f ?
    UINT32_MAX : (uint32_t) x)
FROM_F16 (cast_f16_i64, int64_t, x != x ? 0 : x <= -65536.0f ? INT64_MIN
    : x >= 65536.0f ? INT64_MAX : (int64_t) x)
FROM_F16 (cast_f16_u64, uint64_t, x != x || x <= 0 ? 0 : x >= 65536.0f ?
    UINT64_MAX : (uint64_t) x)
FROM_F16 (cast_f16_f32, float, x)
K1 (cast_f16_f64, uint16_t, double, _plan_half_to_double (x))
FROM_F16 (cast_f16_b, uint8_t, x != 0)
K1 (cast_f32_f16, float, uint16_t, _plan_half_from_float (x))
K1 (cast_f64_f16, double, uint16_t, _plan_half_from_double (x))
K1 (nan_to_num_f16, uint16_t, uint16_t, (x & 0x7fff) > 0x7c00 ? 0
    : (x & 0x7fff) == 0x7c00 ? (x & 0x8000) | 0x7bff : x)

/* From an integer (or bool) to anything: C's conversion, which wraps. */
#define CAST_FROM_INT(T, ts) \
  K1 (cast_##ts##_i8, T, int8_t, x) K1 (cast_##ts##_u8, T, uint8_t, x) \
  K1 (cast_##ts##_i16, T, int16_t, x) K1 (cast_##ts##_u16, T, uint16_t, x) \
  K1 (cast_##ts##_i32, T, int32_t, x) K1 (cast_##ts##_u32, T, uint32_t, x) \
  K1 (cast_##ts##_i64, T, int64_t, x) K1 (cast_##ts##_u64, T, uint64_t, x) \
  K1 (cast_##ts##_f32, T, float, x) K1 (cast_##ts##_f64, T, double, x) \
  K1 (cast_##ts##_f16, T, uint16_t, _plan_half_from_float ((float) x)) \
  K1 (cast_##ts##_b, T, uint8_t, x != 0)

#define CAST_FROM_INT_ALL(T, sfx, SIGNED, BITS) CAST_FROM_INT (T, sfx)
FOR_INTS (CAST_FROM_INT_ALL)
K1 (cast_b_i8, uint8_t, int8_t, x != 0)
K1 (cast_b_u8, uint8_t, uint8_t, x != 0)
K1 (cast_b_i16, uint8_t, int16_t, x != 0)
K1 (cast_b_u16, uint8_t, uint16_t, x != 0)
K1 (cast_b_i32, uint8_t, int32_t, x != 0)
K1 (cast_b_u32, uint8_t, uint32_t, x != 0)
K1 (cast_b_i64, uint8_t, int64_t, x != 0)
K1 (cast_b_u64, uint8_t, uint64_t, x != 0)
K1 (cast_b_f32, uint8_t, float, x != 0)
K1 (cast_b_f64, uint8_t, double, x != 0)
K1 (cast_b_f16, uint8_t, uint16_t, x != 0 ? 0x3c00 : 0)
/* A same-dtype "cast" is a copy: used when the result is a bare input. */
#define COPY(T, sfx) K1 (copy_##sfx, T, T, x)
COPY (uint8_t, 8)
COPY (uint16_t, 16)
COPY (uint32_t, 32)
COPY (uint64_t, 64)

/* ---- streaming stores for large outputs ---- */

/* Writing a large output with ordinary stores first reads every cache line
 * of it (read for ownership); non-temporal stores skip that read and a
 * third of the memory traffic of "x + y". */
static void
stream_copy (void *dst, const void *src, size_t bytes)
{
  uint8_t *d = dst;
  const uint8_t *s = src;

#if defined(__AVX512F__) || defined(__AVX2__) || defined(__SSE2__)
#if defined(__AVX512F__)
#define STREAM_W 64
#elif defined(__AVX2__)
#define STREAM_W 32
#else
#define STREAM_W 16
#endif
  while (((uintptr_t) d & (STREAM_W - 1)) && bytes) {
    *d++ = *s++;
    bytes--;
  }
  for (; bytes >= STREAM_W; bytes -= STREAM_W, d += STREAM_W, s += STREAM_W) {
#if defined(__AVX512F__)
    _mm512_stream_si512 ((__m512i *) d, _mm512_loadu_si512 (s));
#elif defined(__AVX2__)
    _mm256_stream_si256 ((__m256i *) d, _mm256_loadu_si256 ((const __m256i *)
            s));
#else
    _mm_stream_si128 ((__m128i *) d, _mm_loadu_si128 ((const __m128i *) s));
#endif
  }
#undef STREAM_W
#endif
  memcpy (d, s, bytes);
}

static void
stream_fence (void)
{
#if defined(__SSE2__)
  _mm_sfence ();
#endif
}

/* ---- fused weighted sums ---- */

/* A chain c0 x0 + c1 x1 + ... (see ExprChainKernel) keeps its running sum
 * in registers instead of a block in cache, one pass for all its terms.
 * Its products and sums must round one by one, in order, as numpy's
 * separate operations do: GCC would otherwise contract them into fused
 * multiply-adds wherever the instruction set has them, and clang within a
 * statement, hence the attribute and the separate statements. */
#if defined(__clang__)
#define NO_CONTRACT
#define NO_CONTRACT_BODY _Pragma ("clang fp contract(off)")
#elif defined(__GNUC__)
#define NO_CONTRACT __attribute__ ((optimize ("fp-contract=off")))
#define NO_CONTRACT_BODY
#else
#define NO_CONTRACT
#define NO_CONTRACT_BODY
#endif

/* The terms never overlap the output but exactly (in place), so the
 * loops need no run-time alias checks and their scalar copies. (clang's
 * equivalent warns wherever it does not vectorise, as at -O1.) */
#if defined(__GNUC__) && !defined(__clang__)
#define IVDEP _Pragma ("GCC ivdep")
#else
#define IVDEP
#endif

#define CHAIN_N(T, sfx, N) \
  NO_CONTRACT static void chain_##sfx##_##N (size_t n, T *restrict o, \
      const void *const *x_, const T *c, int first) { \
    NO_CONTRACT_BODY \
    const T *restrict p[N]; T k[N]; size_t i; int t; \
    for (t = 0; t < N; t++) { p[t] = x_[t]; k[t] = c[t]; } \
    if (first) { \
      IVDEP for (i = 0; i < n; i++) { \
        T acc = (T) (k[0] * p[0][i]); \
        for (t = 1; t < N; t++) { T prod = (T) (k[t] * p[t][i]); \
          acc = (T) (acc + prod); } \
        o[i] = acc; } \
    } else { \
      IVDEP for (i = 0; i < n; i++) { \
        T acc = o[i]; \
        for (t = 0; t < N; t++) { T prod = (T) (k[t] * p[t][i]); \
          acc = (T) (acc + prod); } \
        o[i] = acc; } \
    } }

/* The scaling after the last term is a pass of its own over the output,
 * which the caller keeps in cache. */
#define CHAIN_KERNEL(T, sfx) \
  CHAIN_N (T, sfx, 1) CHAIN_N (T, sfx, 2) CHAIN_N (T, sfx, 3) \
  CHAIN_N (T, sfx, 4) CHAIN_N (T, sfx, 5) CHAIN_N (T, sfx, 6) \
  CHAIN_N (T, sfx, 7) CHAIN_N (T, sfx, 8) \
  static void k_chain_##sfx (size_t n, void *o_, const void *const *x, \
      const void *coefs, unsigned n_terms, int first, ExprChainPost post, \
      const void *post_coef) { \
    T *restrict o = o_; size_t i; \
    T pk = post_coef ? *(const T *) post_coef : (T) 1; \
    switch (n_terms) { \
      case 1: chain_##sfx##_1 (n, o, x, coefs, first); break; \
      case 2: chain_##sfx##_2 (n, o, x, coefs, first); break; \
      case 3: chain_##sfx##_3 (n, o, x, coefs, first); break; \
      case 4: chain_##sfx##_4 (n, o, x, coefs, first); break; \
      case 5: chain_##sfx##_5 (n, o, x, coefs, first); break; \
      case 6: chain_##sfx##_6 (n, o, x, coefs, first); break; \
      case 7: chain_##sfx##_7 (n, o, x, coefs, first); break; \
      default: chain_##sfx##_8 (n, o, x, coefs, first); break; \
    } \
    if (post == EXPR_CHAIN_POST_MUL) \
      for (i = 0; i < n; i++) o[i] = (T) (o[i] * pk); \
    else if (post == EXPR_CHAIN_POST_DIV) \
      for (i = 0; i < n; i++) o[i] = (T) (o[i] / pk); }

CHAIN_KERNEL (float, f32)
CHAIN_KERNEL (double, f64)
CHAIN_KERNEL (int16_t, i16)
CHAIN_KERNEL (int32_t, i32)
CHAIN_KERNEL (int64_t, i64)

/* ---- the table ---- */

#define D(name) PLAN_DTYPE_##name

#define SET_NUMERIC(DT, sfx) \
  t->binary[EXPR_OP_ADD][DT] = k_add_##sfx; \
  t->binary[EXPR_OP_SUB][DT] = k_sub_##sfx; \
  t->binary[EXPR_OP_MUL][DT] = k_mul_##sfx; \
  t->binary[EXPR_OP_LT][DT] = k_lt_##sfx; \
  t->binary[EXPR_OP_LE][DT] = k_le_##sfx; \
  t->binary[EXPR_OP_GT][DT] = k_gt_##sfx; \
  t->binary[EXPR_OP_GE][DT] = k_ge_##sfx; \
  t->binary[EXPR_OP_EQ][DT] = k_eq_##sfx; \
  t->binary[EXPR_OP_NE][DT] = k_ne_##sfx; \
  t->binary[EXPR_OP_FLOORDIV][DT] = k_floordiv_##sfx; \
  t->binary[EXPR_OP_MOD][DT] = k_mod_##sfx; \
  t->binary[EXPR_OP_POW][DT] = k_pow_##sfx; \
  t->binary[EXPR_OP_FMOD][DT] = k_fmod_##sfx; \
  t->binary[EXPR_OP_MIN][DT] = k_min_##sfx; \
  t->binary[EXPR_OP_MAX][DT] = k_max_##sfx; \
  t->unary[EXPR_OP_NEG][DT] = k_neg_##sfx; \
  t->unary[EXPR_OP_SQUARE][DT] = k_square_##sfx; \
  t->unary[EXPR_OP_ABS][DT] = k_abs_##sfx; \
  t->unary[EXPR_OP_SIGN][DT] = k_sign_##sfx; \
  t->where[DT] = k_where_##sfx;

#define SET_INT(DT, sfx) \
  SET_NUMERIC (DT, sfx) \
  t->binary[EXPR_OP_FMIN][DT] = k_min_##sfx; \
  t->binary[EXPR_OP_FMAX][DT] = k_max_##sfx; \
  t->binary[EXPR_OP_SHL][DT] = k_shl_##sfx; \
  t->binary[EXPR_OP_SHR][DT] = k_shr_##sfx; \
  t->binary[EXPR_OP_BAND][DT] = k_band_##sfx; \
  t->binary[EXPR_OP_BOR][DT] = k_bor_##sfx; \
  t->binary[EXPR_OP_BXOR][DT] = k_bxor_##sfx; \
  t->unary[EXPR_OP_BNOT][DT] = k_bnot_##sfx; \
  t->unary[EXPR_OP_RECIPROCAL][DT] = k_reciprocal_##sfx; \
  t->cast[DT][D (INT8)] = k_cast_##sfx##_i8; \
  t->cast[DT][D (UINT8)] = k_cast_##sfx##_u8; \
  t->cast[DT][D (INT16)] = k_cast_##sfx##_i16; \
  t->cast[DT][D (UINT16)] = k_cast_##sfx##_u16; \
  t->cast[DT][D (INT32)] = k_cast_##sfx##_i32; \
  t->cast[DT][D (UINT32)] = k_cast_##sfx##_u32; \
  t->cast[DT][D (INT64)] = k_cast_##sfx##_i64; \
  t->cast[DT][D (UINT64)] = k_cast_##sfx##_u64; \
  t->cast[DT][D (FLOAT32)] = k_cast_##sfx##_f32; \
  t->cast[DT][D (FLOAT64)] = k_cast_##sfx##_f64; \
  t->cast[DT][D (FLOAT16)] = k_cast_##sfx##_f16; \
  t->cast[DT][D (BOOL)] = k_cast_##sfx##_b;

#define SET_FLOAT(DT, sfx) \
  SET_NUMERIC (DT, sfx) \
  t->binary[EXPR_OP_DIV][DT] = k_div_##sfx; \
  t->binary[EXPR_OP_FMIN][DT] = k_fmin_##sfx; \
  t->binary[EXPR_OP_FMAX][DT] = k_fmax_##sfx; \
  t->binary[EXPR_OP_ATAN2][DT] = k_atan2_##sfx; \
  t->binary[EXPR_OP_HYPOT][DT] = k_hypot_##sfx; \
  t->unary[EXPR_OP_SQRT][DT] = k_sqrt_##sfx; \
  t->unary[EXPR_OP_CBRT][DT] = k_cbrt_##sfx; \
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
  t->unary[EXPR_OP_FLOOR][DT] = k_floor_##sfx; \
  t->unary[EXPR_OP_CEIL][DT] = k_ceil_##sfx; \
  t->unary[EXPR_OP_RINT][DT] = k_rint_##sfx; \
  t->unary[EXPR_OP_TRUNC][DT] = k_trunc_##sfx; \
  t->unary[EXPR_OP_ISNAN][DT] = k_isnan_##sfx; \
  t->unary[EXPR_OP_ISINF][DT] = k_isinf_##sfx; \
  t->unary[EXPR_OP_ISFINITE][DT] = k_isfinite_##sfx; \
  t->unary[EXPR_OP_SIGNBIT][DT] = k_signbit_##sfx; \
  t->unary[EXPR_OP_NAN_TO_NUM][DT] = k_nan_to_num_##sfx; \
  t->unary[EXPR_OP_RECIPROCAL][DT] = k_reciprocal_##sfx; \
  t->binary[EXPR_OP_COPYSIGN][DT] = k_copysign_##sfx; \
  t->binary[EXPR_OP_HEAVISIDE][DT] = k_heaviside_##sfx; \
  t->binary[EXPR_OP_LOGADDEXP][DT] = k_logaddexp_##sfx; \
  t->binary[EXPR_OP_LOGADDEXP2][DT] = k_logaddexp2_##sfx; \
  t->cast[DT][D (INT8)] = k_cast_##sfx##_i8; \
  t->cast[DT][D (UINT8)] = k_cast_##sfx##_u8; \
  t->cast[DT][D (INT16)] = k_cast_##sfx##_i16; \
  t->cast[DT][D (UINT16)] = k_cast_##sfx##_u16; \
  t->cast[DT][D (INT32)] = k_cast_##sfx##_i32; \
  t->cast[DT][D (UINT32)] = k_cast_##sfx##_u32; \
  t->cast[DT][D (INT64)] = k_cast_##sfx##_i64; \
  t->cast[DT][D (UINT64)] = k_cast_##sfx##_u64; \
  t->cast[DT][D (BOOL)] = k_cast_##sfx##_b;

static void
fill_float16 (ExprKernelTable * t)
{
  t->cast[D (FLOAT16)][D (INT8)] = k_cast_f16_i8;
  t->cast[D (FLOAT16)][D (UINT8)] = k_cast_f16_u8;
  t->cast[D (FLOAT16)][D (INT16)] = k_cast_f16_i16;
  t->cast[D (FLOAT16)][D (UINT16)] = k_cast_f16_u16;
  t->cast[D (FLOAT16)][D (INT32)] = k_cast_f16_i32;
  t->cast[D (FLOAT16)][D (UINT32)] = k_cast_f16_u32;
  t->cast[D (FLOAT16)][D (INT64)] = k_cast_f16_i64;
  t->cast[D (FLOAT16)][D (UINT64)] = k_cast_f16_u64;
  t->cast[D (FLOAT16)][D (FLOAT32)] = k_cast_f16_f32;
  t->cast[D (FLOAT16)][D (FLOAT64)] = k_cast_f16_f64;
  t->cast[D (FLOAT16)][D (BOOL)] = k_cast_f16_b;
  t->cast[D (FLOAT32)][D (FLOAT16)] = k_cast_f32_f16;
  t->cast[D (FLOAT64)][D (FLOAT16)] = k_cast_f64_f16;
  t->cast[D (BOOL)][D (FLOAT16)] = k_cast_b_f16;
  t->where[D (FLOAT16)] = k_where_u16;
  t->unary[EXPR_OP_NAN_TO_NUM][D (FLOAT16)] = k_nan_to_num_f16;
}

static void
fill_table (ExprKernelTable * t)
{
  gint d;

  SET_INT (D (INT8), i8);
  SET_INT (D (UINT8), u8);
  SET_INT (D (INT16), i16);
  SET_INT (D (UINT16), u16);
  SET_INT (D (INT32), i32);
  SET_INT (D (UINT32), u32);
  SET_INT (D (INT64), i64);
  SET_INT (D (UINT64), u64);
  SET_FLOAT (D (FLOAT32), f32);
  SET_FLOAT (D (FLOAT64), f64);
  t->cast[D (FLOAT32)][D (FLOAT64)] = k_cast_f32_f64;
  t->cast[D (FLOAT64)][D (FLOAT32)] = k_cast_f64_f32;
  fill_float16 (t);

  /* bool: the logical meaning of each operation, as numpy's bool loops. */
  t->binary[EXPR_OP_ADD][D (BOOL)] = k_add_b;
  t->binary[EXPR_OP_MUL][D (BOOL)] = k_mul_b;
  t->binary[EXPR_OP_LT][D (BOOL)] = k_lt_b;
  t->binary[EXPR_OP_LE][D (BOOL)] = k_le_b;
  t->binary[EXPR_OP_GT][D (BOOL)] = k_gt_b;
  t->binary[EXPR_OP_GE][D (BOOL)] = k_ge_b;
  t->binary[EXPR_OP_EQ][D (BOOL)] = k_eq_b;
  t->binary[EXPR_OP_NE][D (BOOL)] = k_ne_b;
  t->binary[EXPR_OP_BAND][D (BOOL)] = k_mul_b;
  t->binary[EXPR_OP_LAND][D (BOOL)] = k_mul_b;
  t->binary[EXPR_OP_MIN][D (BOOL)] = k_mul_b;
  t->binary[EXPR_OP_FMIN][D (BOOL)] = k_mul_b;
  t->binary[EXPR_OP_BOR][D (BOOL)] = k_add_b;
  t->binary[EXPR_OP_LOR][D (BOOL)] = k_add_b;
  t->binary[EXPR_OP_MAX][D (BOOL)] = k_add_b;
  t->binary[EXPR_OP_FMAX][D (BOOL)] = k_add_b;
  t->binary[EXPR_OP_BXOR][D (BOOL)] = k_ne_b;
  t->unary[EXPR_OP_LNOT][D (BOOL)] = k_lnot_b;
  t->unary[EXPR_OP_BNOT][D (BOOL)] = k_lnot_b;
  t->unary[EXPR_OP_ABS][D (BOOL)] = k_abs_b;
  t->where[D (BOOL)] = k_where_b;
  t->cast[D (BOOL)][D (INT8)] = k_cast_b_i8;
  t->cast[D (BOOL)][D (UINT8)] = k_cast_b_u8;
  t->cast[D (BOOL)][D (INT16)] = k_cast_b_i16;
  t->cast[D (BOOL)][D (UINT16)] = k_cast_b_u16;
  t->cast[D (BOOL)][D (INT32)] = k_cast_b_i32;
  t->cast[D (BOOL)][D (UINT32)] = k_cast_b_u32;
  t->cast[D (BOOL)][D (INT64)] = k_cast_b_i64;
  t->cast[D (BOOL)][D (UINT64)] = k_cast_b_u64;
  t->cast[D (BOOL)][D (FLOAT32)] = k_cast_b_f32;
  t->cast[D (BOOL)][D (FLOAT64)] = k_cast_b_f64;

  t->stream_copy = stream_copy;
  t->stream_fence = stream_fence;
  t->chain[D (FLOAT32)] = k_chain_f32;
  t->chain[D (FLOAT64)] = k_chain_f64;
  t->chain[D (INT16)] = k_chain_i16;
  t->chain[D (INT32)] = k_chain_i32;
  t->chain[D (INT64)] = k_chain_i64;

  for (d = D (BOOL); d < PLAN_DTYPE_N; d++) {
    switch (plan_dtype_get_size ((PlanDType) d)) {
      case 1:
        t->cast[d][d] = k_copy_8;
        break;
      case 2:
        t->cast[d][d] = k_copy_16;
        break;
      case 4:
        t->cast[d][d] = k_copy_32;
        break;
      default:
        t->cast[d][d] = k_copy_64;
        break;
    }
  }
  _plan_expr_complex_kernels_fill (t);
  _plan_expr_half_kernels_fill (t);
}

const ExprKernelTable *
TABLE_FUNC (void)
{
  static ExprKernelTable table;
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    fill_table (&table);
    g_once_init_leave (&done, 1);
  }
  return &table;
}
