/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Vectorisable float32 sin, cos, exp and log.
 *
 * libm is called one element at a time, which no compiler vectorises, so
 * the float32 kernels of the expression evaluator use these instead. Each
 * works in double precision: the argument is reduced exactly enough and a
 * polynomial whose truncation error is below 1e-9 relative is evaluated,
 * then the result is rounded once to float. The results are within 1 ulp
 * of the correctly rounded value (measured: see tests/pipelines/
 * test_expr_numpy.py, which checks them against float64 numpy); special
 * values (NaN, +-inf, +-0, subnormals) follow C99 Annex F.
 *
 * The code has no branches and no calls, only arithmetic, comparisons,
 * selects and bit reinterpretation of doubles as 64-bit integers, so gcc
 * and clang vectorise a loop over it for SSE2, AVX2 and AVX-512 alike.
 * sin and cos reduce by multiples of pi/2 with a three-part constant; that
 * is exact enough for |x| <= 2**18, and the kernels send larger arguments
 * to libm's sinf/cosf.
 */

#ifndef __PLAN_EXPR_MATH_H__
#define __PLAN_EXPR_MATH_H__

#include <stdint.h>
#include <string.h>

#define PLAN_TRIG_LIMIT 262144.0f

static inline uint64_t
plan_d2u (double d)
{
  uint64_t u;
  memcpy (&u, &d, 8);
  return u;
}

static inline double
plan_u2d (uint64_t u)
{
  double d;
  memcpy (&d, &u, 8);
  return d;
}

/* sin(x + q*pi/2) for float x, |x| <= PLAN_TRIG_LIMIT; q = 0 gives sin,
 * q = 1 gives cos. */
static inline float
plan_sincosf_core (float xf, uint64_t shift)
{
  const double two_over_pi = 0x1.45f306dc9c883p-1;
  const double magic = 0x1.8p52;
  /* pi/2 = P1 + P2 + P3, P1 and P2 with 33 significant bits so k * P1 and
   * k * P2 are exact for k < 2**20. */
  const double p1 = 1.57079632673412561417e+00;
  const double p2 = 6.07710050630396597660e-11;
  const double p3 = 2.02226624879595063154e-21;
  double x = xf, t, k, r, r2, s, c, v;
  uint64_t q;

  t = x * two_over_pi + magic;
  k = t - magic;
  q = plan_d2u (t) + shift;
  r = ((x - k * p1) - k * p2) - k * p3;
  r2 = r * r;
  s = r + r * r2 * (-1.0 / 6 + r2 * (1.0 / 120 + r2 * (-1.0 / 5040
              + r2 * (1.0 / 362880 + r2 * (-1.0 / 39916800)))));
  s = x == 0 ? x : s;           /* sin(-0) is -0, which the sums lose */
  c = 1.0 + r2 * (-0.5 + r2 * (1.0 / 24 + r2 * (-1.0 / 720
              + r2 * (1.0 / 40320 + r2 * (-1.0 / 3628800)))));
  v = (q & 1) ? c : s;
  v = plan_u2d (plan_d2u (v) ^ ((q & 2) << 62));
  return (float) v;
}

static inline float
plan_expf_core (float xf)
{
  const double log2e = 0x1.71547652b82fep0;
  const double ln2_hi = 0x1.62e42fefa39efp-1;
  const double ln2_lo = 0x1.abc9e3b39803fp-56;
  const double magic = 0x1.8p52;
  double x = xf, t, k, r, p;
  uint64_t ki;

  /* Beyond these the float result is inf or 0 anyway; clamping keeps the
   * exponent arithmetic in range. NaN fails both tests and stays NaN. */
  x = x > 100.0 ? 100.0 : x;
  x = x < -120.0 ? -120.0 : x;
  t = x * log2e + magic;
  k = t - magic;
  ki = plan_d2u (t) - plan_d2u (magic);
  r = (x - k * ln2_hi) - k * ln2_lo;
  p = 1.0 + r * (1.0 + r * (1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24
                  + r * (1.0 / 120 + r * (1.0 / 720 + r * (1.0 / 5040
                              + r * (1.0 / 40320))))))));
  return (float) (p * plan_u2d ((ki + 1023) << 52));
}

/* log(x) for a positive, finite, normal double, to about 1e-13 relative:
 * x = m * 2**e with m in [sqrt(2)/2, sqrt(2)), the float's exponent read
 * as a double without an integer-to-float conversion, and
 * log(m) = 2 atanh(s) with s = (m - 1) / (m + 1). */
static inline double
plan_log_d (double x)
{
  const double sqrt2 = 0x1.6a09e667f3bcdp0;
  const double ln2 = 0x1.62e42fefa39efp-1;
  double m, e, f, s, s2, l;
  uint64_t bits = plan_d2u (x);
  int adj;

  e = plan_u2d (0x4330000000000000ull | ((bits >> 52) & 0x7ff))
      - 0x1p52 - 1023.0;
  m = plan_u2d ((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
  adj = m > sqrt2;
  m = adj ? m * 0.5 : m;
  e = adj ? e + 1.0 : e;
  f = m - 1.0;
  s = f / (2.0 + f);
  s2 = s * s;
  l = 2.0 * s * (1.0 + s2 * (1.0 / 3 + s2 * (1.0 / 5 + s2 * (1.0 / 7
                  + s2 * (1.0 / 9 + s2 * (1.0 / 11 + s2 * (1.0 / 13)))))));
  return e * ln2 + l;
}

/* The special values of a logarithm of x (0, negative, inf, NaN) over r. */
static inline double
plan_log_special (float x, double r)
{
  r = x == 0.0f ? -__builtin_inf () : r;
  r = x < 0.0f ? __builtin_nan ("") : r;
  r = x == __builtin_inff () ? (double) x : r;
  r = x != x ? (double) x : r;
  return r;
}

static inline float
plan_logf_core (float x)
{
  return (float) plan_log_special (x, plan_log_d (x));
}

static inline float
plan_log2f_d (float x)
{
  return (float) plan_log_special (x, plan_log_d (x) * 0x1.71547652b82fep0);
}

static inline float
plan_log10f_d (float x)
{
  return (float) plan_log_special (x, plan_log_d (x) * 0x1.bcb7b1526e50ep-2);
}

static inline float
plan_log1pf_d (float x)
{
  double d = x, r;

  /* 1 + x is exact in double for |x| >= 2**-29; below, x - x*x/2 is. */
  r = plan_log_d (1.0 + d);
  r = __builtin_fabs (d) < 0x1p-29 ? d - 0.5 * d * d : r;
  r = x == -1.0f ? -__builtin_inf () : r;
  r = x < -1.0f ? __builtin_nan ("") : r;
  r = x == __builtin_inff () ? d : r;
  r = x != x ? d : r;
  return (float) r;
}

/* exp(x) for |x| <= 700, to about 1e-15 relative. */
static inline double
plan_exp_d (double x)
{
  const double log2e = 0x1.71547652b82fep0;
  const double ln2_hi = 6.93147180369123816490e-01;
  const double ln2_lo = 1.90821492927058770002e-10;
  const double magic = 0x1.8p52;
  double t = x * log2e + magic, k = t - magic, r, p;
  uint64_t ki = plan_d2u (t) - plan_d2u (magic);

  r = (x - k * ln2_hi) - k * ln2_lo;
  p = 1.0 + r * (1.0 + r * (1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24
                  + r * (1.0 / 120 + r * (1.0 / 720 + r * (1.0 / 5040
                              + r * (1.0 / 40320 + r * (1.0 / 362880
                                      + r * (1.0 / 3628800 + r
                                          * (1.0 / 39916800)))))))))));
  return p * plan_u2d ((ki + 1023) << 52);
}

static inline double
plan_clamp_d (double x, double lo, double hi)
{
  x = x > hi ? hi : x;
  return x < lo ? lo : x;
}

static inline float
plan_expm1f_d (float xf)
{
  double x = xf, r;

  r = plan_exp_d (plan_clamp_d (x, -120.0, 100.0)) - 1.0;
  /* exp - 1 cancels near 0; the series does not */
  r = __builtin_fabs (x) < 1e-3 ? x + x * x * (0.5 + x * (1.0 / 6
          + x * (1.0 / 24 + x * (1.0 / 120)))) : r;
  r = x == 0.0 || x != x ? x : r;     /* keeps -0.0 */
  return (float) r;
}

static inline float
plan_exp2f_d (float xf)
{
  double x = xf;
  double r = plan_exp_d (plan_clamp_d (x, -160.0, 140.0) * 0x1.62e42fefa39efp-1);

  return (float) (x != x ? x : r);
}

static inline float
plan_sinhf_d (float xf)
{
  double x = xf, ax = __builtin_fabs (x), e, r;

  e = plan_exp_d (plan_clamp_d (ax, 0.0, 100.0));
  r = 0.5 * (e - 1.0 / e);
  r = ax < 1e-4 ? ax + ax * ax * ax * (1.0 / 6) : r;
  r = __builtin_copysign (r, x);       /* -0.0 too */
  return (float) (x != x ? x : r);
}

static inline float
plan_coshf_d (float xf)
{
  double x = xf, e = plan_exp_d (plan_clamp_d (__builtin_fabs (x), 0.0,
          100.0));

  return (float) (x != x ? x : 0.5 * (e + 1.0 / e));
}

static inline float
plan_tanhf_d (float xf)
{
  double x = xf, ax = __builtin_fabs (x), a2 = ax * ax, r;

  r = 1.0 - 2.0 / (plan_exp_d (2.0 * plan_clamp_d (ax, 0.0, 20.0)) + 1.0);
  r = ax < 0.01 ? ax * (1.0 + a2 * (-1.0 / 3 + a2 * (2.0 / 15
              + a2 * (-17.0 / 315)))) : r;
  r = __builtin_copysign (r, x);       /* -0.0 too */
  return (float) (x != x ? x : r);
}

static inline float
plan_cbrtf_d (float xf)
{
  double x = xf, ax = __builtin_fabs (x), r;

  r = plan_exp_d (plan_log_d (ax) * (1.0 / 3));
  r = x < 0 ? -r : r;
  /* 0, inf and NaN are their own cube roots */
  r = (ax == 0.0 || ax == __builtin_inf () || x != x) ? x : r;
  return (float) r;
}

static inline float
plan_asinhf_d (float xf)
{
  double x = xf, ax = __builtin_fabs (x), r;

  r = plan_log_d (ax + __builtin_sqrt (ax * ax + 1.0));
  r = ax < 1e-4 ? ax - ax * ax * ax * (1.0 / 6) : r;
  r = ax == __builtin_inf () ? ax : r;
  r = __builtin_copysign (r, x);       /* -0.0 too */
  return (float) (x != x ? x : r);
}

static inline float
plan_acoshf_d (float xf)
{
  double x = xf, r;

  /* x * x - 1 is exact in double for a float x */
  r = plan_log_d (x + __builtin_sqrt (x * x - 1.0));
  r = x == 1.0 ? 0.0 : r;
  r = x == __builtin_inf () ? x : r;
  r = x < 1.0 ? __builtin_nan ("") : r;
  return (float) (x != x ? x : r);
}

static inline float
plan_atanhf_d (float xf)
{
  double x = xf, ax = __builtin_fabs (x), a2 = ax * ax, r;

  /* 1 + x and 1 - x are exact in double */
  r = 0.5 * plan_log_d ((1.0 + ax) / (1.0 - ax));
  r = ax < 1e-4 ? ax * (1.0 + a2 * (1.0 / 3 + a2 * (1.0 / 5))) : r;
  r = ax == 1.0 ? __builtin_inf () : r;
  r = ax > 1.0 ? __builtin_nan ("") : r;
  r = __builtin_copysign (r, x);       /* -0.0 too */
  return (float) (x != x ? x : r);
}

/* atan(y) for 0 <= y <= 1, to about 1e-14: two argument halvings
 * (atan(y) = 2 atan(y / (1 + sqrt(1 + y*y)))) bring y below
 * tan(pi/16) = 0.199, where the series up to y**17 suffices. */
static inline double
plan_atan01_d (double y)
{
  double y2;

  y = y / (1.0 + __builtin_sqrt (1.0 + y * y));
  y = y / (1.0 + __builtin_sqrt (1.0 + y * y));
  y2 = y * y;
  return 4.0 * y * (1.0 + y2 * (-1.0 / 3 + y2 * (1.0 / 5 + y2 * (-1.0 / 7
                  + y2 * (1.0 / 9 + y2 * (-1.0 / 11 + y2 * (1.0 / 13
                              + y2 * (-1.0 / 15 + y2 * (1.0 / 17)))))))));
}

/* atan(x) for any double x, inf included. */
static inline double
plan_atan_d (double x)
{
  const double pi_2 = 0x1.921fb54442d18p0;
  double ax = __builtin_fabs (x), r;
  int inv = ax > 1.0;

  r = plan_atan01_d (inv ? 1.0 / ax : ax);
  r = inv ? pi_2 - r : r;
  return __builtin_copysign (r, x);
}

static inline float
plan_atanf_d (float x)
{
  return (float) (x != x ? (double) x : plan_atan_d (x));
}

static inline float
plan_asinf_d (float xf)
{
  double x = xf, r;

  /* 1 - x*x is exact in double for |x| >= 2**-5 and close enough below */
  r = plan_atan_d (x / __builtin_sqrt (1.0 - x * x));
  r = __builtin_fabs (x) > 1.0 ? __builtin_nan ("") : r;
  return (float) (x != x ? x : r);
}

static inline float
plan_acosf_d (float xf)
{
  double x = xf, r;

  /* 1 - x and 1 + x are exact in double: no cancellation near x = 1 */
  r = 2.0 * plan_atan_d (__builtin_sqrt ((1.0 - x) / (1.0 + x)));
  r = __builtin_fabs (x) > 1.0 ? __builtin_nan ("") : r;
  return (float) (x != x ? x : r);
}

/* atan2 of floats: atan(y/x) in double, moved by pi into the quadrant of
 * a negative x, with the zero and infinite cases of C99 Annex F. */
static inline float
plan_atan2f_d (float yf, float xf)
{
  const double pi = 0x1.921fb54442d18p1;
  double y = yf, x = xf, ay = __builtin_fabs (y), r, z;
  int x_neg = __builtin_copysign (1.0, x) < 0;  /* -0.0 too */
  int x_inf = __builtin_fabs (x) == __builtin_inf ();

  r = plan_atan_d (y / x);
  r = x_neg ? r + __builtin_copysign (pi, y) : r;
  /* x = +-0, y != 0: straight up or down */
  r = ((x == 0) & (y != 0)) ? __builtin_copysign (0.5 * pi, y) : r;
  /* y = +-0: +-0 or +-pi by the sign of x */
  z = x_neg ? __builtin_copysign (pi, y) : y;
  r = y == 0 ? z : r;
  /* both infinite */
  z = x_neg ? 0.75 * pi : 0.25 * pi;
  r = ((ay == __builtin_inf ()) & x_inf) ? __builtin_copysign (z, y) : r;
  r = ((x != x) | (y != y)) ? x + y : r;
  return (float) r;
}

/* hypot of floats: the squares are exact in double and cannot overflow */
static inline float
plan_hypotf_d (float xf, float yf)
{
  double x = xf, y = yf, r = __builtin_sqrt (x * x + y * y);

  /* C99: an infinite operand gives inf even with a NaN */
  r = __builtin_fabs (x) == __builtin_inf ()
      || __builtin_fabs (y) == __builtin_inf () ? __builtin_inf () : r;
  return (float) r;
}

/* pow for floats, computed in double as exp(y log|x|) (within 1 ulp: the
 * error of y log|x| stays far below float precision wherever the result
 * neither overflows nor underflows). With log 0 = -inf and log inf = inf
 * the core value is already right for zero and infinite x and y; the
 * selects after it add the sign of odd powers of negative x and the few
 * other special cases of C99 Annex F. Bitwise & and | and few selects
 * keep the code free of branches, so it vectorises. */
static inline float
plan_powf_d (float xf, float yf)
{
  double x = xf, y = yf, ax = __builtin_fabs (x), l, r, half;
  int y_int, y_odd, y_inf = __builtin_fabs (y) == __builtin_inf ();
  int x_inf = ax == __builtin_inf ();

  /* y*0.5 is exact, and every float of 2**24 or more is an even integer */
  half = y * 0.5;
  y_int = __builtin_trunc (y) == y;
  y_odd = y_int & (__builtin_trunc (half) != half) & !y_inf;

  l = plan_log_d (ax);
  l = ax == 0 ? -__builtin_inf () : l;
  l = x_inf ? ax : l;
  r = plan_exp_d (plan_clamp_d (y * l, -700.0, 700.0));
  /* odd powers of negative x, -0.0 and -inf included, are negative */
  r = ((__builtin_copysign (1.0, x) < 0) & y_odd) ? -r : r;
  /* a negative finite x to a non-integer power has no real value */
  r = ((x < 0) & !x_inf & !y_int) ? __builtin_nan ("") : r;
  /* |x| = 1 to an infinite power (0 * inf above) */
  r = ((ax == 1) & y_inf) ? 1.0 : r;
  /* NaN propagates, except to the power 0 and from a base of 1 */
  r = ((x != x) | (y != y)) ? x + y : r;
  r = ((y == 0) | (x == 1)) ? 1.0 : r;
  return (float) r;
}

/* tan from the sin and cos polynomials of plan_sincosf_core, for
 * |x| <= PLAN_TRIG_LIMIT. */
static inline float
plan_tanf_d (float xf)
{
  const double two_over_pi = 0x1.45f306dc9c883p-1;
  const double magic = 0x1.8p52;
  const double p1 = 1.57079632673412561417e+00;
  const double p2 = 6.07710050630396597660e-11;
  const double p3 = 2.02226624879595063154e-21;
  double x = xf, t, k, r, r2, s, c;
  uint64_t q;

  t = x * two_over_pi + magic;
  k = t - magic;
  q = plan_d2u (t);
  r = ((x - k * p1) - k * p2) - k * p3;
  r2 = r * r;
  s = r + r * r2 * (-1.0 / 6 + r2 * (1.0 / 120 + r2 * (-1.0 / 5040
              + r2 * (1.0 / 362880 + r2 * (-1.0 / 39916800)))));
  s = x == 0 ? x : s;           /* tan(-0) is -0, which the sums lose */
  c = 1.0 + r2 * (-0.5 + r2 * (1.0 / 24 + r2 * (-1.0 / 720
              + r2 * (1.0 / 40320 + r2 * (-1.0 / 3628800)))));
  return (float) ((q & 1) ? -c / s : s / c);
}

#if defined(__FMA__)
/* With FMA, float32 sin and cos run in float32 throughout (twice the
 * lanes, no conversions: three times faster than the double code above):
 * a three-part pi/2 reduction with fused multiply-adds and minimax
 * polynomials fitted for this use (truncation error below 1e-8). Within
 * 2 ulp of the correctly rounded result for |x| <= PLAN_TRIG_LIMIT_FMA,
 * checked exhaustively over every non-negative float up to 105000 (the
 * code is exactly odd or even in x): 98 % are correctly rounded and all
 * but about 60 of the 1.2e9 within 1 ulp. */
#define PLAN_TRIG_LIMIT_FMA 100000.0f

static inline uint32_t
plan_f2u (float f)
{
  uint32_t u;
  memcpy (&u, &f, 4);
  return u;
}

static inline float
plan_u2f (uint32_t u)
{
  float f;
  memcpy (&f, &u, 4);
  return f;
}

static inline float
plan_sincosf_fma (float x, uint32_t shift)
{
  const float two_over_pi = 0.636619772367581343f;
  const float magic = 12582912.0f;      /* 1.5 * 2**23 */
  const float p1 = 1.57079637050628662109375f;  /* float (pi/2) */
  const float p2 = -4.37113900018624283e-8f;    /* float (pi/2 - p1) */
  const float p3 = -1.7151245100059018e-15f;    /* pi/2 - p1 - p2 */
  float t = x * two_over_pi + magic, k = t - magic, r, r2, s, c, v;
  uint32_t q = plan_f2u (t) + shift;

  r = __builtin_fmaf (-k, p1, x);
  r = __builtin_fmaf (-k, p2, r);
  r = __builtin_fmaf (-k, p3, r);
  r2 = r * r;
  s = __builtin_fmaf (r * r2, -0.16666653752326965f + r2
      * (0.00833214819431305f + r2 * -0.0001951392914634198f), r);
  s = x == 0 ? x : s;           /* sin(-0) is -0, which the sums lose */
  c = __builtin_fmaf (r2, -0.5f + r2 * (0.04166661947965622f + r2
          * (-0.0013886665692552924f + r2 * 2.438229785184376e-05f)), 1.0f);
  v = (q & 1) ? c : s;
  return plan_u2f (plan_f2u (v) ^ ((q & 2) << 30));
}

/* exp in float32 with FMA, twice as fast as the double code: x = k ln2 + r
 * with a two-part ln2 (k * ln2_hi exact), a degree-6 polynomial fitted for
 * |r| <= ln2/2 (relative error 4e-9), and 2**k applied in two steps so
 * that subnormal results are rounded once and 2**128 is never formed.
 * Within 1 ulp of the correctly rounded result for every float (checked
 * exhaustively over all 2**32 inputs: 98 % are correctly rounded). */
static inline float
plan_expf_fma (float x)
{
  const float log2e = 1.44269502163f;
  const float magic = 12582912.0f;
  const float ln2_hi = 0.693145751953125f;      /* 16 significant bits */
  const float ln2_lo = 1.428606765330187045e-06f;
  float t, k, r, p, s1, s2;
  int32_t ki, k1;

  /* Beyond these the result is inf or 0 anyway; NaN passes through. */
  x = x > 89.0f ? 89.0f : x;
  x = x < -104.0f ? -104.0f : x;
  t = x * log2e + magic;
  k = t - magic;
  ki = (int32_t) (plan_f2u (t) - plan_f2u (magic));
  r = __builtin_fmaf (-k, ln2_hi, x);
  r = __builtin_fmaf (-k, ln2_lo, r);
  p = 1.0f + r + r * r * (0.49999988079071045f + r * (0.166665181517601f
          + r * (0.04166954383254051f + r * (0.00836898759007454f
                  + r * 0.0013751150108873844f))));
  k1 = ki >> 1;
  s1 = plan_u2f ((uint32_t) (k1 + 127) << 23);
  s2 = plan_u2f ((uint32_t) (ki - k1 + 127) << 23);
  return p * s1 * s2;
}
#endif

#define PLAN_TRIG_LIMIT_F64 1.0e6

/* ---- float64 ----
 *
 * sin, cos, exp and log for doubles, vectorisable, within 1 ulp of the
 * correctly rounded result (measured against the x87 long double
 * functions: sin and cos at most 0.86 ulp on 20 million random arguments
 * up to 1e6 and 0.5 ulp next to every multiple of pi/2 up to 1e6, exp at
 * most 1.0, log at most 0.75). They follow the classic algorithms of
 * Cody & Waite and of fdlibm: a reduction carrying its rounding errors in
 * a second double, minimax polynomials, exp through a rational
 * approximation, log through s = f / (2 + f). Each step is written so
 * that contracting a * b + c into a fused multiply-add does not change
 * the error analysis.
 *
 * sin(x + q pi/2) for |x| <= PLAN_TRIG_LIMIT_F64; q = 0 gives sin, 1 cos. */
static inline double
plan_sincos_f64 (double x, uint64_t shift)
{
  const double invpio2 = 6.36619772367581382433e-01;
  const double magic = 0x1.8p52;
  /* pi/2 = p1 + p2 + p3 + p3t, p1 to p3 of 33 bits each */
  const double p1 = 1.57079632673412561417e+00;
  const double p2 = 6.07710050630396597660e-11;
  const double p3 = 2.02226624871116645580e-21;
  const double p3t = 8.47842766036889956997e-32;
  double t = x * invpio2 + magic, fn = t - magic;
  double r, w, u, e2, e3, y0, y1, z, v, rs, rc, ax, qx, s, c, res;
  uint64_t q = plan_d2u (t) + shift;

  /* x - fn * pi/2 as y0 + y1: each fn * p is exact for |fn| < 2**20, and
   * e2, e3 are the exact rounding errors of the two subtractions. */
  r = x - fn * p1;
  u = r;
  w = fn * p2;
  r = u - w;
  e2 = (u - r) - w;
  u = r;
  w = fn * p3;
  r = u - w;
  e3 = (u - r) - w;
  w = fn * p3t - e3 - e2;
  y0 = r - w;
  y1 = (r - y0) - w;

  /* sin(y0 + y1) and cos(y0 + y1) for |y0| <= pi/4 */
  z = y0 * y0;
  v = z * y0;
  rs = 8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04
      + z * (2.75573137070700676789e-06 + z * (-2.50507602534068634195e-08
              + z * 1.58969099521155010221e-10)));
  s = y0 - ((z * (0.5 * y1 - v * rs) - y1) + v * 1.66666666666666324348e-01);
  rc = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03
          + z * (2.48015872894767294178e-05 + z * (-2.75573143513906633035e-07
                  + z * (2.08757232129817482790e-09
                      + z * -1.13596475577881948265e-11)))));
  /* 1 - z/2 is computed as (1 - qx) - (z/2 - qx), with qx a short
   * approximation of z/2's leading part, so that 1 - qx is exact. */
  ax = __builtin_fabs (y0);
  qx = ax > 0.78125 ? 0.28125 : plan_u2d ((plan_d2u (ax)
          - 0x0020000000000000ull) & 0xffffffff00000000ull);
  qx = ax < 0.3 ? 0.0 : qx;
  c = (1.0 - qx) - ((0.5 * z - qx) - (z * rc - y0 * y1));

  res = (q & 1) ? c : s;
  return plan_u2d (plan_d2u (res) ^ ((q & 2) << 62));
}

static inline double
plan_exp_f64 (double x)
{
  const double log2e = 1.44269504088896338700e+00;
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  const double magic = 0x1.8p52;
  double xc, t, k, hi, lo, r, z, c, y, s1, s2;
  uint64_t ki, k1;

  xc = x > 709.8 ? 709.8 : x;
  xc = xc < -745.2 ? -745.2 : xc;
  t = xc * log2e + magic;
  k = t - magic;
  ki = plan_d2u (t) - plan_d2u (magic);
  hi = xc - k * ln2_hi;
  lo = k * ln2_lo;
  r = hi - lo;
  z = r * r;
  c = r - z * (1.66666666666666019037e-01 + z * (-2.77777777770155933842e-03
      + z * (6.61375632143793436117e-05 + z * (-1.65339022054652515390e-06
          + z * 4.13813679705723846039e-08))));
  y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
  /* 2**k in two steps: no overflow of the scale, one rounding of a subnormal */
  k1 = (uint64_t) ((int64_t) ki >> 1);
  s1 = plan_u2d ((k1 + 1023) << 52);
  s2 = plan_u2d ((ki - k1 + 1023) << 52);
  return x != x ? x : y * s1 * s2;
}

static inline double
plan_log_f64 (double x)
{
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  const double sqrt2 = 0x1.6a09e667f3bcdp0;
  int sub = x < 0x1p-1022;
  double xs = sub ? x * 0x1p54 : x, m, e, f, hfsq, s, z, w, t1, t2, R, r;
  uint64_t bits = plan_d2u (xs);
  int adj;

  e = plan_u2d (0x4330000000000000ull | ((bits >> 52) & 0x7ff)) - 0x1p52 - 1023.0;
  e = sub ? e - 54.0 : e;
  m = plan_u2d ((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
  adj = m > sqrt2;
  m = adj ? m * 0.5 : m;
  e = adj ? e + 1.0 : e;
  f = m - 1.0;
  hfsq = 0.5 * f * f;
  s = f / (2.0 + f);
  z = s * s;
  w = z * z;
  t1 = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01 + w * 1.531383769920937332e-01));
  t2 = z * (6.666666666666735130e-01 + w * (2.857142874366239149e-01 + w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)));
  R = t2 + t1;
  r = e * ln2_hi - ((hfsq - (s * (hfsq + R) + e * ln2_lo)) - f);
  r = x == 0.0 ? -__builtin_inf () : r;
  r = x < 0.0 ? __builtin_nan ("") : r;
  r = x == __builtin_inf () ? x : r;
  r = x != x ? x : r;
  return r;
}

#endif /* __PLAN_EXPR_MATH_H__ */
