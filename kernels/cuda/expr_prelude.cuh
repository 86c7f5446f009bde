/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Helpers for code generated from expressions (libplan/expr/exprcuda.c).
 * Embedded at build time and placed in front of every generated source.
 * Needs no header: NVRTC provides the math functions as builtins, and nvcc
 * declares them for host and device through cuda_runtime.h.
 *
 * Every helper is __host__ __device__ so that the same element function
 * runs on the CPU in tests. The semantics are numpy's, exactly as the CPU
 * kernels in kernels/cpu/exprloops.c implement them: integers wrap,
 * integer division by zero gives 0, float-to-integer casts saturate. */

#ifndef PLAN_EXPR_PRELUDE
#define PLAN_EXPR_PRELUDE

#define PLAN_HD __host__ __device__ static inline

typedef signed char plan_i8;
typedef unsigned char plan_u8;
typedef short plan_i16;
typedef unsigned short plan_u16;
typedef int plan_i32;
typedef unsigned int plan_u32;
typedef long long plan_i64;
typedef unsigned long long plan_u64;
typedef unsigned char plan_bool;

/* W: an unsigned type at least as wide as T and as int, so that arithmetic
 * in it wraps instead of overflowing a signed int. */
template <typename T> struct plan_traits;
#define PLAN_TRAITS(T, W_, S_, BITS_) \
  template <> struct plan_traits<T> { typedef W_ W; \
    static const bool is_signed = S_; static const int bits = BITS_; };
PLAN_TRAITS (plan_i8, unsigned int, true, 8)
PLAN_TRAITS (plan_u8, unsigned int, false, 8)
PLAN_TRAITS (plan_i16, unsigned int, true, 16)
PLAN_TRAITS (plan_u16, unsigned int, false, 16)
PLAN_TRAITS (plan_i32, unsigned int, true, 32)
PLAN_TRAITS (plan_u32, unsigned int, false, 32)
PLAN_TRAITS (plan_i64, unsigned long long, true, 64)
PLAN_TRAITS (plan_u64, unsigned long long, false, 64)

PLAN_HD float plan_f32_bits (unsigned int b)
{
  union { unsigned int u; float f; } v;
  v.u = b;
  return v.f;
}

PLAN_HD double plan_f64_bits (unsigned long long b)
{
  union { unsigned long long u; double f; } v;
  v.u = b;
  return v.f;
}

/* ---- integers ---- */

template <typename T> PLAN_HD T plan_add (T a, T b)
{ typedef typename plan_traits<T>::W W; return (T) ((W) a + (W) b); }
template <typename T> PLAN_HD T plan_sub (T a, T b)
{ typedef typename plan_traits<T>::W W; return (T) ((W) a - (W) b); }
template <typename T> PLAN_HD T plan_mul (T a, T b)
{ typedef typename plan_traits<T>::W W; return (T) ((W) a * (W) b); }
template <typename T> PLAN_HD T plan_neg (T a)
{ typedef typename plan_traits<T>::W W; return (T) ((W) 0 - (W) a); }
template <typename T> PLAN_HD T plan_abs (T a)
{ return (plan_traits<T>::is_signed && a < (T) 0) ? plan_neg (a) : a; }
template <typename T> PLAN_HD T plan_sign (T a)
{ return (T) ((a > (T) 0) - (plan_traits<T>::is_signed && a < (T) 0)); }
template <typename T> PLAN_HD T plan_reciprocal (T a)
{ return a == 1 ? (T) 1 : (plan_traits<T>::is_signed && a == (T) -1) ? (T) -1 : (T) 0; }
template <typename T> PLAN_HD T plan_min (T a, T b) { return a < b ? a : b; }
template <typename T> PLAN_HD T plan_max (T a, T b) { return a > b ? a : b; }
template <typename T> PLAN_HD T plan_fmin (T a, T b) { return a < b ? a : b; }
template <typename T> PLAN_HD T plan_fmax (T a, T b) { return a > b ? a : b; }

template <typename T> PLAN_HD T plan_floordiv (T x, T y)
{
  T q;
  if (y == (T) 0)
    return 0;
  if (plan_traits<T>::is_signed && y == (T) -1)
    return plan_neg (x);
  q = (T) (x / y);
  if (plan_traits<T>::is_signed && (T) (x % y) != (T) 0
      && ((x < (T) 0) != (y < (T) 0)))
    q = (T) (q - 1);
  return q;
}

template <typename T> PLAN_HD T plan_mod (T x, T y)
{
  T r;
  if (y == (T) 0 || (plan_traits<T>::is_signed && y == (T) -1))
    return 0;
  r = (T) (x % y);
  if (plan_traits<T>::is_signed && r != (T) 0 && ((r < (T) 0) != (y < (T) 0)))
    r = (T) (r + y);
  return r;
}

template <typename T> PLAN_HD T plan_fmod (T x, T y)
{
  if (y == (T) 0 || (plan_traits<T>::is_signed && y == (T) -1))
    return 0;
  return (T) (x % y);
}

template <typename T> PLAN_HD T plan_pow (T x, T y)
{
  unsigned long long r = 1, b = (unsigned long long) x,
      e = (unsigned long long) y;
  if (plan_traits<T>::is_signed && y < (T) 0)
    return x == (T) 1 ? (T) 1 : x == (T) -1 ? ((y & 1) ? (T) -1 : (T) 1)
        : (T) 0;
  while (e) {
    if (e & 1)
      r *= b;
    b *= b;
    e >>= 1;
  }
  return (T) r;
}

template <typename T> PLAN_HD T plan_shl (T x, T y)
{
  if ((unsigned long long) (long long) y < (unsigned long long)
      plan_traits<T>::bits)
    return (T) ((unsigned long long) x << (int) y);
  return 0;
}

template <typename T> PLAN_HD T plan_shr (T x, T y)
{
  if ((unsigned long long) (long long) y < (unsigned long long)
      plan_traits<T>::bits)
    return (T) (x >> (int) y);
  return (plan_traits<T>::is_signed && x < (T) 0) ? (T) -1 : (T) 0;
}

/* Floats to integers: truncation, NaN to 0, saturation beyond the range;
 * lo and hi are the (power of two) bounds, exact in double. */
template <typename T> PLAN_HD T plan_f2i (double x, double lo, double hi,
    T min, T max)
{
  if (x != x)
    return 0;
  if (x <= lo)
    return min;
  if (x >= hi)
    return max;
  return (T) x;
}

/* ---- floats: numpy's floor division and remainder ---- */

#define PLAN_FLOAT_HELPERS(T, S) \
  PLAN_HD T plan_divmod (T a, T b, T *modp) \
  { \
    T mod = fmod##S (a, b), div, fd; \
    if (b == 0) { *modp = mod; return a / b; } \
    div = (a - mod) / b; \
    if (mod != 0) { \
      if ((b < 0) != (mod < 0)) { mod += b; div -= 1; } \
    } else { mod = copysign##S ((T) 0, b); } \
    if (div != 0) { fd = floor##S (div); if (div - fd > (T) 0.5) fd += 1; } \
    else { fd = copysign##S ((T) 0, a / b); } \
    *modp = mod; \
    return fd; \
  } \
  PLAN_HD T plan_floordiv (T a, T b) { T m; return plan_divmod (a, b, &m); } \
  PLAN_HD T plan_mod (T a, T b) \
  { T m; if (b == 0) return fmod##S (a, b); plan_divmod (a, b, &m); return m; } \
  PLAN_HD T plan_add (T a, T b) { return a + b; } \
  PLAN_HD T plan_sub (T a, T b) { return a - b; } \
  PLAN_HD T plan_mul (T a, T b) { return a * b; } \
  PLAN_HD T plan_neg (T a) { return -a; } \
  PLAN_HD T plan_abs (T a) { return fabs##S (a); } \
  PLAN_HD T plan_sign (T a) \
  { return a > 0 ? (T) 1 : a < 0 ? (T) -1 : a == 0 ? (T) 0 : a; } \
  PLAN_HD T plan_min (T a, T b) { return (a <= b || a != a) ? a : b; } \
  PLAN_HD T plan_max (T a, T b) { return (a >= b || a != a) ? a : b; } \
  PLAN_HD T plan_fmin (T a, T b) { return (a <= b || b != b) ? a : b; } \
  PLAN_HD T plan_fmax (T a, T b) { return (a >= b || b != b) ? a : b; } \
  PLAN_HD T plan_fmod (T a, T b) { return fmod##S (a, b); } \
  PLAN_HD T plan_pow (T a, T b) { return pow##S (a, b); } \
  PLAN_HD plan_bool plan_isnan (T a) { return a != a; } \
  PLAN_HD plan_bool plan_isinf (T a) \
  { return fabs##S (a) == (T) plan_f64_bits (0x7ff0000000000000ull); } \
  PLAN_HD plan_bool plan_isfinite (T a) \
  { return fabs##S (a) < (T) plan_f64_bits (0x7ff0000000000000ull); }

PLAN_FLOAT_HELPERS (float, f)
PLAN_FLOAT_HELPERS (double,)

/* numpy's logaddexp and logaddexp2, in double for both float dtypes (as on
 * the CPU). */
PLAN_HD double plan_logaddexp_d (double x, double y)
{
  double d;
  if (x == y) return x + 0.69314718055994530942;
  d = x - y;
  if (d > 0) return x + log1p (exp (-d));
  if (d <= 0) return y + log1p (exp (d));
  return d;
}

PLAN_HD double plan_logaddexp2_d (double x, double y)
{
  double d;
  if (x == y) return x + 1.0;
  d = x - y;
  if (d > 0) return x + log1p (exp2 (-d)) * 1.44269504088896340736;
  if (d <= 0) return y + log1p (exp2 (d)) * 1.44269504088896340736;
  return d;
}

#define PLAN_FLOAT_FUNCS(T, S, MAXBITS) \
  PLAN_HD plan_bool plan_signbit (T a) { return signbit (a) != 0; } \
  PLAN_HD T plan_reciprocal (T a) { return (T) 1 / a; } \
  PLAN_HD T plan_copysign (T a, T b) { return copysign##S (a, b); } \
  PLAN_HD T plan_heaviside (T x, T h) \
  { return x < 0 ? (T) 0 : x > 0 ? (T) 1 : x == 0 ? h : x; } \
  PLAN_HD T plan_nan_to_num (T a) \
  { \
    T big = (T) plan_f64_bits (MAXBITS); \
    return a != a ? (T) 0 : a > big ? big : a < -big ? -big : a; \
  } \
  PLAN_HD T plan_logaddexp (T a, T b) \
  { return (T) plan_logaddexp_d ((double) a, (double) b); } \
  PLAN_HD T plan_logaddexp2 (T a, T b) \
  { return (T) plan_logaddexp2_d ((double) a, (double) b); }

/* The largest finite value of each, as a double: FLT_MAX and DBL_MAX. */
PLAN_FLOAT_FUNCS (float, f, 0x47efffffe0000000ull)
PLAN_FLOAT_FUNCS (double,, 0x7fefffffffffffffull)

/* ---- bool (0 or 1; inputs are normalised when loaded) ---- */

PLAN_HD plan_bool plan_bool_of (plan_bool a) { return a != 0; }

/* ---- vector access for the kernel ---- */

template <typename T> struct __align__ (4 * sizeof (T)) plan_vec4
{
  T v[4];
};

#define PLAN_ALIGNED4(p) \
  (((unsigned long long) (p) % (4 * sizeof (*(p)))) == 0)

#endif /* PLAN_EXPR_PRELUDE */
