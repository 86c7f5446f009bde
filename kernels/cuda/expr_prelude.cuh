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

/* ---- float16 ----
 *
 * A storage type, as on the CPU: the generated code computes every
 * operation on it in float and rounds the result back. plan_f16 has the
 * layout of CUDA's __half (IEEE binary16), defined here because NVRTC has
 * no cuda_fp16.h of its own. On the device the conversions of numbers are
 * the instructions __half2float and __float2half_rn use; on the host (the
 * tests' element functions) the same rounding to nearest even in integer
 * arithmetic, as libplan's CPU kernels. NaNs are converted by the code
 * after the #if, on both, as numpy's npy_half_to_float and
 * npy_float_to_half convert them: the sign and the payload (its top bits
 * going to float16) are kept and a signalling NaN stays signalling, where
 * the instructions would give a canonical NaN. */
struct __align__ (2) plan_f16
{
  unsigned short x;
};

PLAN_HD plan_f16 plan_f16_bits (unsigned short b)
{
  plan_f16 h;
  h.x = b;
  return h;
}

PLAN_HD unsigned int plan_bits_of_f32 (float f)
{
  union { unsigned int u; float f; } v;
  v.f = f;
  return v.u;
}

PLAN_HD unsigned long long plan_bits_of_f64 (double d)
{
  union { unsigned long long u; double f; } v;
  v.f = d;
  return v.u;
}

/* A float16 NaN's bits in float and double, and a float or double NaN's
 * in float16 (a payload whose top 10 bits are 0 becomes 1, so that the
 * result stays a NaN). */
PLAN_HD float plan_f16_nan_to_f32 (unsigned short h)
{
  return plan_f32_bits (((unsigned int) (h & 0x8000u) << 16) | 0x7f800000u
      | ((unsigned int) (h & 0x3ffu) << 13));
}

PLAN_HD double plan_f16_nan_to_f64 (unsigned short h)
{
  return plan_f64_bits (((unsigned long long) (h & 0x8000u) << 48)
      | 0x7ff0000000000000ull | ((unsigned long long) (h & 0x3ffu) << 42));
}

PLAN_HD plan_f16 plan_f16_nan_of (unsigned int sign, unsigned int top10)
{
  unsigned int p = top10 & 0x3ffu;
  return plan_f16_bits ((unsigned short) (sign | 0x7c00u | p | (p == 0u)));
}

PLAN_HD float plan_f16_to_f32 (plan_f16 h)
{
  float f;
#ifdef __CUDA_ARCH__
  asm ("cvt.f32.f16 %0, %1;" : "=f" (f) : "h" (h.x));
#else
  unsigned int em = h.x & 0x7fffu, bits;
  union { unsigned int u; float f; } sub, v;
  sub.f = (float) em * 5.9604644775390625e-8f;        /* 2**-24 */
  bits = em < 0x400u ? sub.u : em >= 0x7c00u ? ((em << 13) | 0x7f800000u)
      : (em << 13) + (112u << 23);
  v.u = bits | ((unsigned int) (h.x & 0x8000u) << 16);
  f = v.f;
#endif
  return (h.x & 0x7fffu) > 0x7c00u ? plan_f16_nan_to_f32 (h.x) : f;
}

/* Exactly, as numpy's npy_half_to_double: a float16 made a float and
 * then a double would lose a signalling NaN's bit. */
PLAN_HD double plan_f16_to_f64 (plan_f16 h)
{
  return (h.x & 0x7fffu) > 0x7c00u ? plan_f16_nan_to_f64 (h.x)
      : (double) plan_f16_to_f32 (h);
}

PLAN_HD plan_f16 plan_f32_to_f16 (float f)
{
  plan_f16 h;
  unsigned int u = plan_bits_of_f32 (f);
#ifdef __CUDA_ARCH__
  asm ("cvt.rn.f16.f32 %0, %1;" : "=h" (h.x) : "f" (f));
#else
  union { unsigned int u; float f; } s;
  unsigned int a, r;
  a = u & 0x7fffffffu;
  s.u = a;
  s.f += 0.5f;
  r = a >= 0x477ff000u ? 0x7c00u : a >= 0x38800000u
      ? (a - (112u << 23) + 0xfffu + ((a >> 13) & 1u)) >> 13
      : s.u - 0x3f000000u;
  h.x = (unsigned short) (r | ((u >> 16) & 0x8000u));
#endif
  return (u & 0x7fffffffu) > 0x7f800000u ?
      plan_f16_nan_of ((u >> 16) & 0x8000u, u >> 13) : h;
}

/* Rounded once, as numpy rounds a float64 to float16. */
PLAN_HD plan_f16 plan_f64_to_f16 (double d)
{
  plan_f16 h;
  unsigned long long u = plan_bits_of_f64 (d);
#ifdef __CUDA_ARCH__
  asm ("cvt.rn.f16.f64 %0, %1;" : "=h" (h.x) : "d" (d));
#else
  union { unsigned long long u; double f; } s;
  unsigned long long a;
  unsigned int r;
  a = u & 0x7fffffffffffffffull;
  s.u = a;
  s.f += 268435456.0;                                   /* 2**28 */
  r = a >= 0x40effe0000000000ull ? 0x7c00u
      : a >= 0x3f10000000000000ull ? (unsigned int) ((a - (1008ull << 52)
              + ((1ull << 41) - 1) + ((a >> 42) & 1)) >> 42)
      : (unsigned int) (s.u - 0x41b0000000000000ull);
  h.x = (unsigned short) (r | ((u >> 48) & 0x8000u));
#endif
  return (u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull ?
      plan_f16_nan_of ((unsigned int) (u >> 48) & 0x8000u,
      (unsigned int) (u >> 42)) : h;
}

/* NaN to 0, infinities to float16's largest finite value (65504). */
PLAN_HD plan_f16 plan_nan_to_num (plan_f16 h)
{
  unsigned int m = h.x & 0x7fffu;
  return plan_f16_bits ((unsigned short) (m > 0x7c00u ? 0u : m == 0x7c00u ?
          (h.x & 0x8000u) | 0x7bffu : h.x));
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

/* ---- complex numbers: the real part first, as numpy and cuComplex ---- */

struct __align__ (8) plan_c64 { float re, im; };
struct __align__ (16) plan_c128 { double re, im; };

/* numpy's arithmetic (the CPU's kernels/cpu/exprcomplex.c, bit for bit);
 * the functions by their textbook formulas over CUDA's real functions,
 * within a few ulp of the magnitude of the result for finite arguments
 * (docs/expressions.md). MK makes a value from its parts; LIM: where
 * tanh of the real part is 1 in T. */
#define PLAN_COMPLEX(C, MK, T, S, LIM) \
  PLAN_HD C MK (T re, T im) { C z; z.re = re; z.im = im; return z; } \
  PLAN_HD C plan_add (C a, C b) { return MK (a.re + b.re, a.im + b.im); } \
  PLAN_HD C plan_sub (C a, C b) { return MK (a.re - b.re, a.im - b.im); } \
  PLAN_HD C plan_mul (C a, C b) \
  { return MK (a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); } \
  PLAN_HD C plan_div (C a, C b) \
  { \
    T abr = fabs##S (b.re), abi = fabs##S (b.im), rat, scl; \
    if (abr >= abi) { \
      if (abr == 0 && abi == 0) return MK (a.re / abr, a.im / abr); \
      rat = b.im / b.re; scl = (T) 1.0 / (b.re + b.im * rat); \
      return MK ((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl); \
    } \
    rat = b.re / b.im; scl = (T) 1.0 / (b.im + b.re * rat); \
    return MK ((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl); \
  } \
  PLAN_HD C plan_neg (C a) { return MK (-a.re, -a.im); } \
  PLAN_HD C plan_conj (C a) { return MK (a.re, -a.im); } \
  PLAN_HD C plan_reciprocal (C a) \
  { \
    T q, d; \
    if (fabs##S (a.im) <= fabs##S (a.re)) { \
      q = a.im / a.re; d = a.re + a.im * q; return MK (1 / d, -q / d); } \
    q = a.re / a.im; d = a.re * q + a.im; return MK (q / d, -1 / d); \
  } \
  PLAN_HD T plan_abs (C a) { return hypot##S (a.re, a.im); } \
  PLAN_HD T plan_angle (C a) { return atan2##S (a.im, a.re); } \
  PLAN_HD plan_bool plan_eq (C a, C b) { return a.re == b.re && a.im == b.im; } \
  PLAN_HD plan_bool plan_ne (C a, C b) { return a.re != b.re || a.im != b.im; } \
  PLAN_HD plan_bool plan_isnan (C a) { return a.re != a.re || a.im != a.im; } \
  PLAN_HD plan_bool plan_isinf (C a) \
  { return plan_isinf (a.re) || plan_isinf (a.im); } \
  PLAN_HD plan_bool plan_isfinite (C a) \
  { return plan_isfinite (a.re) && plan_isfinite (a.im); } \
  PLAN_HD C plan_nan_to_num (C a) \
  { return MK (plan_nan_to_num (a.re), plan_nan_to_num (a.im)); } \
  PLAN_HD C plan_crint (C a) { return MK (rint##S (a.re), rint##S (a.im)); } \
  PLAN_HD C plan_cexp (C a) \
  { \
    T e = exp##S (a.re); \
    if (a.im == 0) return MK (e, a.im); \
    return MK (e * cos##S (a.im), e * sin##S (a.im)); \
  } \
  PLAN_HD C plan_clog (C a) \
  { return MK (log##S (hypot##S (a.re, a.im)), atan2##S (a.im, a.re)); } \
  PLAN_HD C plan_csqrt (C a) \
  { \
    T t; \
    if (a.re == 0 && a.im == 0) return MK ((T) 0, a.im); \
    if (plan_isinf (a.im)) return MK (fabs##S (a.im), a.im); \
    t = sqrt##S ((fabs##S (a.re) + hypot##S (a.re, a.im)) * (T) 0.5); \
    if (a.re >= 0) return MK (t, a.im / (2 * t)); \
    return MK (fabs##S (a.im) / (2 * t), copysign##S (t, a.im)); \
  } \
  PLAN_HD C plan_csinh (C a) \
  { return MK (sinh##S (a.re) * cos##S (a.im), cosh##S (a.re) * sin##S (a.im)); } \
  PLAN_HD C plan_ccosh (C a) \
  { return MK (cosh##S (a.re) * cos##S (a.im), sinh##S (a.re) * sin##S (a.im)); } \
  PLAN_HD C plan_csin (C a) \
  { return MK (sin##S (a.re) * cosh##S (a.im), cos##S (a.re) * sinh##S (a.im)); } \
  PLAN_HD C plan_ccos (C a) \
  { return MK (cos##S (a.re) * cosh##S (a.im), -(sin##S (a.re) * sinh##S (a.im))); } \
  PLAN_HD C plan_ctanh (C a) \
  { \
    T t, b, s, r, d; \
    if (fabs##S (a.re) > (T) LIM) \
      return MK (copysign##S ((T) 1, a.re), 4 * sin##S (a.im) \
          * cos##S (a.im) * exp##S (-2 * fabs##S (a.re))); \
    t = tan##S (a.im); b = 1 + t * t; s = sinh##S (a.re); \
    r = sqrt##S (1 + s * s); d = 1 + b * s * s; \
    return MK (b * r * s / d, t / d); \
  } \
  PLAN_HD C plan_ctan (C a) \
  { C t = plan_ctanh (MK (-a.im, a.re)); return MK (t.im, -t.re); } \
  PLAN_HD C plan_clog1p_acc (C a) \
  { \
    /* log(1 + a) without the cancellation of 1 + a for small a: \
     * log|1 + a| = log1p(2 re + re^2 + im^2) / 2. */ \
    return MK (log1p##S (a.re * (2 + a.re) + a.im * a.im) * (T) 0.5, \
        atan2##S (a.im, 1 + a.re)); \
  } \
  /* The inverse functions are computed for |re| + i |im| (where the \
   * formulas do not cancel and stay off the branch cuts) and given the \
   * signs of the operand's parts (signed zeros included): asinh, asin, \
   * atanh and atan are odd, and they, acosh and acos commute with the \
   * conjugate. */ \
  PLAN_HD C plan_casinh_q (T x, T y) \
  { \
    /* asinh(z) = log1p(z + z*z / (1 + sqrt(1 + z*z))) */ \
    C z = MK (x, y), zz = plan_mul (z, z), w; \
    w = plan_csqrt (plan_add (zz, MK ((T) 1, (T) 0))); \
    w = plan_div (zz, plan_add (w, MK ((T) 1, (T) 0))); \
    return plan_clog1p_acc (plan_add (z, w)); \
  } \
  PLAN_HD C plan_catanh_q (T x, T y) \
  { \
    /* Kahan's form: log1p(4x / ((1 - x)^2 + y^2)) / 4 and \
     * atan2(2y, (1 - x)(1 + x) - y^2) / 2. */ \
    T d = (1 - x) * (1 - x) + y * y; \
    return MK (log1p##S (4 * x / d) * (T) 0.25, \
        atan2##S (2 * y, (1 - x) * (1 + x) - y * y) * (T) 0.5); \
  } \
  PLAN_HD C plan_csigns (C r, C a) \
  { return MK (copysign##S (r.re, a.re), copysign##S (r.im, a.im)); } \
  PLAN_HD C plan_casinh (C a) \
  { return plan_csigns (plan_casinh_q (fabs##S (a.re), fabs##S (a.im)), a); } \
  PLAN_HD C plan_casin (C a) \
  { \
    C r = plan_casinh_q (fabs##S (a.im), fabs##S (a.re)); \
    return plan_csigns (MK (r.im, r.re), a); \
  } \
  PLAN_HD C plan_catanh (C a) \
  { return plan_csigns (plan_catanh_q (fabs##S (a.re), fabs##S (a.im)), a); } \
  PLAN_HD C plan_catan (C a) \
  { \
    C r = plan_catanh_q (fabs##S (a.im), fabs##S (a.re)); \
    return plan_csigns (MK (r.im, r.re), a); \
  } \
  PLAN_HD C plan_cacosh (C a) \
  { \
    /* log(z + sqrt(z + 1) sqrt(z - 1)) on re + i |im|: imaginary part in \
     * [0, pi], then the operand's sign. */ \
    C one = MK ((T) 1, (T) 0), z = MK (a.re, fabs##S (a.im)), w; \
    w = plan_mul (plan_csqrt (plan_add (z, one)), plan_csqrt (plan_sub (z, one))); \
    w = plan_clog (plan_add (z, w)); \
    return MK (w.re, copysign##S (w.im, a.im)); \
  } \
  PLAN_HD C plan_cacos (C a) \
  { \
    /* acos(z) = -i acosh(z) for im >= 0: real part in [0, pi], imaginary \
     * part of the opposite sign to the operand's. */ \
    C t = plan_cacosh (MK (a.re, fabs##S (a.im))); \
    return MK (t.im, copysign##S (t.re, a.im) * (T) -1); \
  } \
  PLAN_HD C plan_cexp2 (C a) \
  { return plan_cexp (MK (a.re * (T) 0.693147180559945309417232121458176568, \
        a.im * (T) 0.693147180559945309417232121458176568)); } \
  PLAN_HD C plan_clog2 (C a) \
  { C l = plan_clog (a); return MK (l.re * (T) 1.442695040888963407359924681001892137, \
        l.im * (T) 1.442695040888963407359924681001892137); } \
  PLAN_HD C plan_clog10 (C a) \
  { C l = plan_clog (a); return MK (l.re * (T) 0.434294481903251827651128918916605082, \
        l.im * (T) 0.434294481903251827651128918916605082); } \
  PLAN_HD C plan_cexpm1 (C a) \
  { \
    T h = sin##S (a.im / 2); \
    return MK (expm1##S (a.re) * cos##S (a.im) - 2 * h * h, \
        exp##S (a.re) * sin##S (a.im)); \
  } \
  PLAN_HD C plan_clog1p (C a) \
  { \
    T l = hypot##S (a.re + 1, a.im); \
    return MK (log##S (l), atan2##S (a.im, a.re + 1)); \
  } \
  PLAN_HD C plan_pow (C a, C b) \
  { \
    /* numpy's: exact cases, integer exponents by squaring, else \
     * exp(b log a). */ \
    if (b.re == 0 && b.im == 0) return MK ((T) 1, (T) 0); \
    if (a.re == 0 && a.im == 0) { \
      if (b.re > 0 && b.im == 0) return MK ((T) 0, (T) 0); \
      return MK (plan_f32_bits (0x7fc00000u), plan_f32_bits (0x7fc00000u)); \
    } \
    if (b.im == 0 && fabs##S (b.re) < 100 && b.re == (T) (int) b.re) { \
      int k = (int) b.re, m = k < 0 ? -k : k, mask = 1; \
      C p = a, q = MK ((T) 1, (T) 0); \
      if (k == 1) return a; \
      if (k == 2) return plan_mul (a, a); \
      if (k == 3) return plan_mul (a, plan_mul (a, a)); \
      for (;;) { \
        if (m & mask) q = plan_mul (q, p); \
        mask <<= 1; \
        if (m < mask) break; \
        p = plan_mul (p, p); \
      } \
      return k < 0 ? plan_div (MK ((T) 1, (T) 0), q) : q; \
    } \
    return plan_cexp (plan_mul (b, plan_clog (a))); \
  }

PLAN_COMPLEX (plan_c64, plan_c64_make, float, f, 9)
PLAN_COMPLEX (plan_c128, plan_c128_make, double, , 22)

PLAN_HD plan_c64 plan_c64_of (plan_c128 a)
{ return plan_c64_make ((float) a.re, (float) a.im); }
PLAN_HD plan_c128 plan_c128_of (plan_c64 a)
{ return plan_c128_make ((double) a.re, (double) a.im); }

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
