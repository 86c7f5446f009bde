/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The steps of PlanReducer's reduction tree, for the device: the
 * arithmetic of the elements (the types and parameters, the loads and
 * stores of every dtype, the double-double steps, the element steps and
 * merges of real and complex values, the moments). The run of the
 * algorithm over them (the merge, lanes and passes of a block by
 * algorithm, the tree, the column blocks, the finals, a row, the chunk
 * steps, the host kernels) is planreducer-steps-run.h, which this file
 * includes at its end.
 *
 * Every function here is `__host__ __device__` under CUDA and plain
 * `static inline` C otherwise, so one text is
 *  - compiled by NVRTC into the reduction kernels
 *    (kernels/cuda/reduce_kernel.cuh wraps them in __global__ functions,
 *    one CUDA thread per lane of a block),
 *  - run on the host by the sim and cpu devices (planreducer-device.c,
 *    prk_host_* of planreducer-steps-run.h, in the kernels' order),
 *  - called by the CPU reducer (planreducer-ops.c, planreducer-complex.c
 *    for complex input): its vectorised loops
 *    run the element steps and merges of real values below on their own
 *    lane arrays, its merge functions are these merges, its accumulator
 *    is PrkAcc, and complex input runs these steps whole, and
 *  - compiled on the host, as C and with nvcc, by the tests, which compare
 *    it with the CPU reducer (planreducer-ops.c) bit for bit.
 *
 * It repeats the CPU reducer's order of operations exactly: blocks of
 * PRK_BLOCK elements at global indices that are multiples of it, element i
 * of a block in lane i % PRK_LANES, each lane accumulated in index order,
 * lanes combined as the CPU combines them (pairwise halving for float sums,
 * lane order otherwise), block results merged by the same binary counter
 * and folded from the most recent at the end, the same TwoSum and
 * double-double steps, the same corrected two-pass moments and Chan merge.
 * Loads are widened (float32 to double, integers to 64 bits) where the CPU
 * keeps the narrow type; the values and comparisons are the same. It has
 * no includes under NVRTC and must be compiled without floating-point
 * contraction (NVRTC --fmad=false, gcc -ffp-contract=off).
 *
 * The numbers of dtypes are PlanDType's. */

#ifndef PLAN_REDUCER_STEPS_H
#define PLAN_REDUCER_STEPS_H

/* Unstable, as docs/api.md lists it; not said inside the kernels' source
 * (planreducer-device.c embeds this text). */
#ifndef PLAN_REDUCER_STEPS_EMBEDDED
#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's reduction steps are unstable and may change; define PLAN_USE_UNSTABLE_API to use them without this warning."
#endif
#endif

#if defined(__CUDACC__)
#define PRK_HD static __host__ __device__ inline
#else
#define PRK_HD static inline
#endif

#if !defined(__CUDACC_RTC__)
#include <math.h>
#endif

/* Each operation rounded on its own, on the host too. */
#if !defined(__CUDACC__)
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize ("fp-contract=off")
#endif
#endif

typedef unsigned long long prk_u64;
typedef long long prk_i64;

#define PRK_BLOCK 2048
#define PRK_LANES 16
#define PRK_MAX_LEVELS 64
#define PRK_NONE (~0ull)
/* Reducer blocks per CUDA block of the block kernel (one thread a lane). */
#define PRK_BLOCKS_PER_CTA 8

/* PlanDType */
enum
{
  PRK_BOOL = 1, PRK_INT8, PRK_UINT8, PRK_INT16, PRK_UINT16, PRK_INT32,
  PRK_UINT32, PRK_INT64, PRK_UINT64, PRK_FLOAT32, PRK_FLOAT64,
  PRK_COMPLEX64, PRK_COMPLEX128, PRK_FLOAT16
};

/* Kinds: how an element enters arithmetic. */
enum
{ PRK_KIND_B, PRK_KIND_S, PRK_KIND_U, PRK_KIND_F, PRK_KIND_C };

/* The block algorithm the CPU reducer picked (its block function). */
enum
{
  PRK_A_ISUM, PRK_A_IPROD, PRK_A_DSUM, PRK_A_KSUM, PRK_A_FPROD, PRK_A_MIN,
  PRK_A_MAX, PRK_A_ARGMIN, PRK_A_ARGMAX, PRK_A_ANY, PRK_A_ALL,
  PRK_A_NANDSUM, PRK_A_NANKSUM, PRK_A_NANFPROD, PRK_A_NANMEAN,
  PRK_A_NANMIN, PRK_A_NANMAX, PRK_A_NANARGMIN, PRK_A_NANARGMAX, PRK_A_VAR,
  PRK_A_NANVAR, PRK_A_NONZERO, PRK_A_PTP,
  /* a combiner expression: its own kernels on CUDA (reduce_custom.cuh),
   * the CPU reducer's block and merge through PrkHooks on the host */
  PRK_A_CUSTOM
};

/* Its final function. */
enum
{
  PRK_F_U64, PRK_F_SUM, PRK_F_MEAN, PRK_F_PROD, PRK_F_NANMEAN,
  PRK_F_NANEXTREME, PRK_F_VAR, PRK_F_STD, PRK_F_INDEX, PRK_F_BOOL,
  PRK_F_VALUE, PRK_F_PTP,
  PRK_F_RAW                     /* the accumulator's bytes (custom) */
};

typedef union
{
  double f;
  prk_i64 i;
  prk_u64 u;
  unsigned char raw[8];
} PrkValue;

/* The CPU reducer's Acc, field for field. Complex reductions keep the
 * imaginary parts in im and im_lo: sums (v.f, lo) + i (im, im_lo); products,
 * min, max and their arg and nan versions v.f + i im; ptp the maximum
 * v.f + i im and the minimum w.f + i lo; the moments the mean (v.f, w.f) +
 * i (im, im_lo) as double-doubles, M2 in lo. */
typedef struct
{
  PrkValue v;
  double lo;
  prk_u64 index;
  PrkValue w;
  double im;
  double im_lo;
} PrkAcc;

typedef struct
{
  int algo;
  int final;
  int dtype;                    /* input */
  int kind;                     /* of the input */
  int out_dtype;
  int nan_arg;                  /* nanargmin/nanargmax: NONE is an error */
  int nan_var;                  /* nanvar/nanstd: NaN where n - ddof <= 0 */
  int in_size;
  int out_size;
  double ddof;
  prk_u64 col_rows;             /* axis 0: rows per column block */
  PrkAcc identity;
  const void *hooks;            /* host only: PrkHooks of PRK_A_CUSTOM */
  void *hook_data;
} PrkParams;

/* The fields that choose the code path. The CUDA kernels are compiled for
 * one reduction at a time (planreducer-device.c defines PRK_FIXED_ALGO,
 * PRK_FIXED_FINAL, PRK_FIXED_DTYPE and PRK_FIXED_KIND to the values of its
 * PrkParams): NVRTC then drops the paths of every other operation and
 * dtype, which makes the compile about ten times quicker and the code
 * smaller. Elsewhere (the host, the generic source) they are read from
 * the parameters. */
#ifdef PRK_FIXED_ALGO
#define PRK_ALGO(P) (PRK_FIXED_ALGO)
#define PRK_FINAL(P) (PRK_FIXED_FINAL)
#define PRK_DTYPE(P) (PRK_FIXED_DTYPE)
#define PRK_KIND(P) (PRK_FIXED_KIND)
#else
#define PRK_ALGO(P) ((P)->algo)
#define PRK_FINAL(P) ((P)->final)
#define PRK_DTYPE(P) ((P)->dtype)
#define PRK_KIND(P) ((P)->kind)
#endif

/* A custom combiner's steps on the host, from the CPU reducer. */
typedef struct
{
  void (*block) (void *data, const void *x, prk_u64 n, prk_u64 base,
      PrkAcc * out);
  void (*merge) (void *data, PrkAcc * a, const PrkAcc * b);
  void (*column) (void *data, PrkAcc * a, const void *x, prk_u64 c);
} PrkHooks;

#if defined(__CUDACC_RTC__)
#define PRK_HOOK(P, name, args) ((void) 0)
#else
#define PRK_HOOK(P, name, args) \
  ((const PrkHooks *) (P)->hooks)->name args
#endif

/* One lane's accumulators (what the CPU keeps in its lane arrays). */
typedef struct
{
  PrkValue a;                   /* sums of integers, min/max, arg value */
  PrkValue b;                   /* ptp: the minimum */
  double s, c, p;               /* float sums: sum, compensation, plain */
  prk_u64 n;                    /* counts; nanmin/nanmax: seen */
  prk_u64 idx;                  /* arg index */
  double ai, bi, si, ci, pi;    /* complex: the imaginary parts of a, b, s,
                                 * c, p */
} PrkLane;

typedef struct
{
  double m;
  prk_u64 count;
  double mi;                    /* complex: the mean's imaginary part */
} PrkMid;

typedef struct
{
  PrkAcc stack[PRK_MAX_LEVELS];
  unsigned int levels[PRK_MAX_LEVELS];
  unsigned int depth;
  unsigned int pad;
} PrkTree;

/* Scalars ----------------------------------------------------------------- */

PRK_HD double
prk_bits_to_double (prk_u64 bits)
{
  PrkValue v;

  v.u = bits;
  return v.f;
}

#define PRK_INF prk_bits_to_double (0x7ff0000000000000ull)
#define PRK_NAN prk_bits_to_double (0x7ff8000000000000ull)

PRK_HD int
prk_isnan (double x)
{
  return x != x;
}

PRK_HD int
prk_isfinite (double x)
{
  return (x - x) == 0.0;
}

/* float16 (numpy's, CUDA's __half bits) to double, exactly; a NaN keeps
 * its sign and payload and is quiet, as the CPU's conversion through
 * float makes it. */
PRK_HD double
prk_half_to_double (unsigned short h)
{
  unsigned int em = h & 0x7fffu;
  PrkValue v;

  if (em < 0x400u) {
    v.f = (double) em * (1.0 / 16777216.0);     /* em * 2**-24, exact */
  } else if (em >= 0x7c00u) {
    v.u = 0x7ff0000000000000ull | ((prk_u64) (em & 0x3ffu) << 42);
    if ((em & 0x3ffu) != 0)
      v.u |= 0x0008000000000000ull;
  } else {
    v.u = ((prk_u64) ((em >> 10) - 15 + 1023) << 52)
        | ((prk_u64) (em & 0x3ffu) << 42);
  }
  if (h & 0x8000u)
    v.u |= 0x8000000000000000ull;
  return v.f;
}

/* A double rounded once to float16 (to nearest, ties to even), as numpy's
 * npy_double_to_half: the same bits as the CPU's conversion. */
PRK_HD unsigned short
prk_double_to_half (double d)
{
  PrkValue x, t;
  prk_u64 a, normal, sub;
  unsigned int nan, h;

  x.f = d;
  a = x.u & 0x7fffffffffffffffull;
  nan = 0x7c00u | (unsigned int) ((a >> 42) & 0x3ffu);
  nan |= (nan & 0x3ffu) == 0;
  normal = (a - (1008ull << 52) + ((1ull << 41) - 1) + ((a >> 42) & 1))
      >> 42;
  /* below 2**-14: adding 2**28 rounds |d| to a multiple of 2**-24 */
  t.u = a;
  t.f = t.f + 268435456.0;
  sub = t.u - 0x41b0000000000000ull;
  h = a > 0x7ff0000000000000ull ? nan : a >= 0x40effe0000000000ull ? 0x7c00u
      : a >= 0x3f10000000000000ull ? (unsigned int) normal
      : (unsigned int) sub;
  return (unsigned short) (h | (unsigned int) ((x.u >> 48) & 0x8000u));
}

/* Element i of @x, as the CPU's LOAD_K gives it, widened. */
PRK_HD double
prk_load_f (const PrkParams * P, const void *x, prk_u64 i)
{
  switch (PRK_DTYPE (P)) {
    case PRK_BOOL:
      return ((const unsigned char *) x)[i] != 0;
    case PRK_INT8:
      return ((const signed char *) x)[i];
    case PRK_UINT8:
      return ((const unsigned char *) x)[i];
    case PRK_INT16:
      return ((const short *) x)[i];
    case PRK_UINT16:
      return ((const unsigned short *) x)[i];
    case PRK_INT32:
      return ((const int *) x)[i];
    case PRK_UINT32:
      return ((const unsigned int *) x)[i];
    case PRK_INT64:
      return (double) ((const prk_i64 *) x)[i];
    case PRK_UINT64:
      return (double) ((const prk_u64 *) x)[i];
    case PRK_FLOAT32:
      return ((const float *) x)[i];
    case PRK_FLOAT16:
      return prk_half_to_double (((const unsigned short *) x)[i]);
    default:
      return ((const double *) x)[i];
  }
}

/* Complex element i of @x: its parts, widened. */
PRK_HD void
prk_load_c (const PrkParams * P, const void *x, prk_u64 i, double *re,
    double *im)
{
  if (PRK_DTYPE (P) == PRK_COMPLEX64) {
    const float *f = (const float *) x + 2 * i;

    *re = f[0];
    *im = f[1];
  } else {
    const double *f = (const double *) x + 2 * i;

    *re = f[0];
    *im = f[1];
  }
}

PRK_HD prk_i64
prk_load_i (const PrkParams * P, const void *x, prk_u64 i)
{
  switch (PRK_DTYPE (P)) {
    case PRK_INT8:
      return ((const signed char *) x)[i];
    case PRK_INT16:
      return ((const short *) x)[i];
    case PRK_INT32:
      return ((const int *) x)[i];
    default:
      return ((const prk_i64 *) x)[i];
  }
}

PRK_HD prk_u64
prk_load_u (const PrkParams * P, const void *x, prk_u64 i)
{
  switch (PRK_DTYPE (P)) {
    case PRK_BOOL:
      return ((const unsigned char *) x)[i] != 0;
    case PRK_UINT8:
      return ((const unsigned char *) x)[i];
    case PRK_UINT16:
      return ((const unsigned short *) x)[i];
    case PRK_UINT32:
      return ((const unsigned int *) x)[i];
    default:
      return ((const prk_u64 *) x)[i];
  }
}

/* TO_U64_K: integer sums and products wrap in 64 bits. */
PRK_HD prk_u64
prk_to_u64 (const PrkParams * P, const void *x, prk_u64 i)
{
  return PRK_KIND (P) == PRK_KIND_S ? (prk_u64) prk_load_i (P, x, i)
      : prk_load_u (P, x, i);
}

/* x[i] != 0 in the element's own type (NaN is not zero, -0.0 is). */
PRK_HD int
prk_nonzero (const PrkParams * P, const void *x, prk_u64 i)
{
  switch (PRK_DTYPE (P)) {
    case PRK_FLOAT32:
      return ((const float *) x)[i] != 0;
    case PRK_FLOAT64:
      return ((const double *) x)[i] != 0;
    case PRK_FLOAT16:
      return (((const unsigned short *) x)[i] & 0x7fffu) != 0;
    case PRK_COMPLEX64:
    case PRK_COMPLEX128:{
      double re, im;

      prk_load_c (P, x, i, &re, &im);
      return re != 0 || im != 0;
    }
    case PRK_INT8:
    case PRK_INT16:
    case PRK_INT32:
    case PRK_INT64:
      return prk_load_i (P, x, i) != 0;
    default:
      return prk_load_u (P, x, i) != 0;
  }
}

/* The kind's value of element i in a PrkValue (VAL_K). */
PRK_HD PrkValue
prk_load_value (const PrkParams * P, const void *x, prk_u64 i)
{
  PrkValue v;

  if (PRK_KIND (P) == PRK_KIND_F)
    v.f = prk_load_f (P, x, i);
  else if (PRK_KIND (P) == PRK_KIND_S)
    v.i = prk_load_i (P, x, i);
  else
    v.u = prk_load_u (P, x, i);
  return v;
}

/* The far ends of the input dtype's range: where min (max) lanes start. */
PRK_HD PrkValue
prk_dtype_max (const PrkParams * P)
{
  PrkValue v;

  switch (PRK_DTYPE (P)) {
    case PRK_BOOL:
      v.u = 1;
      break;
    case PRK_INT8:
      v.i = 127;
      break;
    case PRK_UINT8:
      v.u = 255;
      break;
    case PRK_INT16:
      v.i = 32767;
      break;
    case PRK_UINT16:
      v.u = 65535;
      break;
    case PRK_INT32:
      v.i = 2147483647;
      break;
    case PRK_UINT32:
      v.u = 4294967295ull;
      break;
    case PRK_INT64:
      v.i = 9223372036854775807ll;
      break;
    case PRK_UINT64:
      v.u = PRK_NONE;
      break;
    default:
      v.f = PRK_INF;
      break;
  }
  return v;
}

PRK_HD PrkValue
prk_dtype_min (const PrkParams * P)
{
  PrkValue v;

  switch (PRK_DTYPE (P)) {
    case PRK_INT8:
      v.i = -128;
      break;
    case PRK_INT16:
      v.i = -32768;
      break;
    case PRK_INT32:
      v.i = -2147483647 - 1;
      break;
    case PRK_INT64:
      v.i = -9223372036854775807ll - 1;
      break;
    case PRK_FLOAT32:
    case PRK_FLOAT64:
    case PRK_FLOAT16:
      v.f = -PRK_INF;
      break;
    default:
      v.u = 0;
      break;
  }
  return v;
}

/* Kind comparisons of two PrkValues: a < b, a > b. */
PRK_HD int
prk_lt (const PrkParams * P, PrkValue a, PrkValue b)
{
  if (PRK_KIND (P) == PRK_KIND_F)
    return a.f < b.f;
  if (PRK_KIND (P) == PRK_KIND_S)
    return a.i < b.i;
  return a.u < b.u;
}

PRK_HD int
prk_eq (const PrkParams * P, PrkValue a, PrkValue b)
{
  if (PRK_KIND (P) == PRK_KIND_F)
    return a.f == b.f;
  if (PRK_KIND (P) == PRK_KIND_S)
    return a.i == b.i;
  return a.u == b.u;
}

PRK_HD void
prk_copy_bytes (void *dst, const void *src, prk_u64 n)
{
  prk_u64 i;

  for (i = 0; i < n; i++)
    ((unsigned char *) dst)[i] = ((const unsigned char *) src)[i];
}

/* Double-double steps ------------------------------------------------------ */

/* (hi, lo) += (bhi, blo) */
PRK_HD void
prk_dd_add2 (double *hi, double *lo, double bhi, double blo)
{
  double s = *hi + bhi, bb, e, l;

  if (!prk_isfinite (s)) {
    *hi = s;
    *lo = 0.0;
    return;
  }
  bb = s - *hi;
  e = (*hi - (s - bb)) + (bhi - bb);
  l = e + (*lo + blo);
  *hi = s + l;
  *lo = l - (*hi - s);
}

PRK_HD void
prk_dd_add (PrkAcc * a, double bhi, double blo)
{
  prk_dd_add2 (&a->v.f, &a->lo, bhi, blo);
}

PRK_HD void
prk_two_sum (double a, double b, double *hi, double *lo)
{
  double s = a + b, bb = s - a;

  *lo = (a - (s - bb)) + (b - bb);
  *hi = s;
}

/* Pairwise halving of 16 lane values (lanes_sum); @v is overwritten. */
PRK_HD double
prk_lanes_sum (double *v)
{
  unsigned int w, l;

  for (w = PRK_LANES / 2; w > 0; w /= 2)
    for (l = 0; l < w; l++)
      v[l] = v[l] + v[l + w];
  return v[0];
}

PRK_HD void
prk_lanes_sum_compensated (double *s, double *c, PrkAcc * out)
{
  unsigned int w, l;

  for (w = PRK_LANES / 2; w > 0; w /= 2) {
    for (l = 0; l < w; l++) {
      double a = s[l], b = s[l + w], t = a + b, z = t - a;

      c[l] = (c[l] + c[l + w]) + ((a - (t - z)) + (b - z));
      s[l] = t;
    }
  }
  out->v.f = s[0] + c[0];
  out->lo = c[0] - (out->v.f - s[0]);
  out->index = 0;
}

/* A compensated sum of 16 lanes: their sums @s and errors @c combined,
 * or, where that is not finite, their plain sums @p (lo 0). All three are
 * overwritten. */
PRK_HD void
prk_lanes_ksum (double *s, double *c, double *p, PrkAcc * out)
{
  prk_lanes_sum_compensated (s, c, out);
  if (!prk_isfinite (out->v.f) || !prk_isfinite (out->lo)) {
    out->v.f = prk_lanes_sum (p);
    out->lo = 0.0;
  }
}

/* The element steps and merges of real values ---------------------------
 *
 * Written once for the CPU reducer's vectorised loops
 * (planreducer-ops.c, which runs them on its lane arrays, in the input's
 * own type where it keeps it) and for the lanes and merges below (the
 * device kernels, the sim and cpu devices' host kernels). */

/* A compensated lane: s += v, the addition's rounding error (TwoSum) into
 * c (Ogita, Rump and Oishi's Sum2). */
PRK_HD void
prk_ksum_step (double *s, double *c, double v)
{
  double t = *s + v, z = t - *s;

  *c += (*s - (t - z)) + (v - z);
  *s = t;
}

/* Min and max of floats (a NaN, once in, stays), of integers; @m the
 * running value, @x the element, of any one type. */
#define PRK_MIN_F(m, x) (((x) < (m) || (x) != (x)) ? (x) : (m))
#define PRK_MAX_F(m, x) (((x) > (m) || (x) != (x)) ? (x) : (m))
#define PRK_MIN_I(m, x) ((x) < (m) ? (x) : (m))
#define PRK_MAX_I(m, x) ((x) > (m) ? (x) : (m))

/* Whether an argmin (argmax) lane holding @m takes @x, a later element:
 * strictly better, or a first NaN. */
#define PRK_ARG_TAKE_MIN_F(x, m) ((x) < (m) || ((x) != (x) && (m) == (m)))
#define PRK_ARG_TAKE_MAX_F(x, m) ((x) > (m) || ((x) != (x) && (m) == (m)))
#define PRK_ARG_TAKE_MIN_I(x, m) ((x) < (m))
#define PRK_ARG_TAKE_MAX_I(x, m) ((x) > (m))

/* numpy's nanargmin is argmin with every NaN replaced by inf (nanargmax:
 * -inf), an error where all are NaN. A lane holds that argmin: @x is
 * the element with a NaN already replaced, @better whether it is
 * strictly smaller (larger) than the lane's value; the lane's first
 * element is always taken (@idx still none), so a NaN before the first
 * inf is the one given, as numpy gives it. */
#define PRK_NANARG_TAKE(better, idx) ((better) || (idx) == PRK_NONE)

/* a = a (+) b, a holding the earlier elements (or lanes). */

/* The first NaN wins; otherwise the smaller (larger) value. */
PRK_HD void
prk_merge_minmax_f (PrkValue * a, PrkValue b, int is_min)
{
  if (!prk_isnan (a->f) && ((is_min ? b.f < a->f : b.f > a->f)
          || prk_isnan (b.f)))
    a->f = b.f;
}

/* Arg merges see lanes as well as blocks, so equal values are decided by
 * the smaller index: the first occurrence, as numpy; the first NaN wins. */
PRK_HD void
prk_merge_arg_f (PrkAcc * a, const PrkAcc * b, int is_min)
{
  int an = prk_isnan (a->v.f), bn = prk_isnan (b->v.f), take;

  if (an || bn)
    take = bn && (!an || b->index < a->index);
  else
    take = (is_min ? b->v.f < a->v.f : b->v.f > a->v.f)
        || (b->v.f == a->v.f && b->index < a->index);
  if (take)
    *a = *b;
}

/* ptp: the maximum in v, the minimum in w. */
PRK_HD void
prk_merge_ptp_f (PrkAcc * a, const PrkAcc * b)
{
  prk_merge_minmax_f (&a->v, b->v, 0);
  prk_merge_minmax_f (&a->w, b->w, 1);
}

/* The same of signed (K s, field i) and unsigned or bool (K u, field u)
 * integers. */
#define PRK_DEFINE_MERGES_INT(K, field) \
  PRK_HD void \
  prk_merge_min_##K (PrkAcc * a, const PrkAcc * b) \
  { \
    if (b->v.field < a->v.field) \
      a->v.field = b->v.field; \
  } \
  PRK_HD void \
  prk_merge_max_##K (PrkAcc * a, const PrkAcc * b) \
  { \
    if (b->v.field > a->v.field) \
      a->v.field = b->v.field; \
  } \
  PRK_HD void \
  prk_merge_argmin_##K (PrkAcc * a, const PrkAcc * b) \
  { \
    if (b->v.field < a->v.field \
        || (b->v.field == a->v.field && b->index < a->index)) \
      *a = *b; \
  } \
  PRK_HD void \
  prk_merge_argmax_##K (PrkAcc * a, const PrkAcc * b) \
  { \
    if (b->v.field > a->v.field \
        || (b->v.field == a->v.field && b->index < a->index)) \
      *a = *b; \
  } \
  PRK_HD void \
  prk_merge_ptp_##K (PrkAcc * a, const PrkAcc * b) \
  { \
    if (b->v.field > a->v.field) \
      a->v.field = b->v.field; \
    if (b->w.field < a->w.field) \
      a->w.field = b->w.field; \
  }

PRK_DEFINE_MERGES_INT (s, i)
PRK_DEFINE_MERGES_INT (u, u)

/* nanmin, nanmax: values that are not NaN on both sides; index: whether
 * any was seen. */
PRK_HD void
prk_merge_nanminmax (PrkAcc * a, const PrkAcc * b, int is_min)
{
  if (is_min ? b->v.f < a->v.f : b->v.f > a->v.f)
    a->v.f = b->v.f;
  a->index |= b->index;
}

/* nanargmin, nanargmax: v.f and w.u the value (a NaN counted as inf,
 * -inf for nanargmax) and index of the argmin of what was seen, w.u none
 * for nothing; index the same once a value that is not NaN was seen,
 * else none (an all-NaN slice, which numpy refuses). */
PRK_HD void
prk_merge_nanarg (PrkAcc * a, const PrkAcc * b, int is_min)
{
  int seen = a->index != PRK_NONE || b->index != PRK_NONE;

  if (b->w.u != PRK_NONE && (a->w.u == PRK_NONE
          || (is_min ? b->v.f < a->v.f : b->v.f > a->v.f)
          || (b->v.f == a->v.f && b->w.u < a->w.u))) {
    a->v.f = b->v.f;
    a->w.u = b->w.u;
  }
  a->index = seen ? a->w.u : PRK_NONE;
}

/* The moments of real values (var, std, nanvar, nanstd) ------------------
 *
 * The accumulator: index the count, v.f + w.f the mean as a double-double
 * number, lo the sum of squared deviations from it (M2). A block is
 * reduced in two passes over its lanes: the mean m of their float64 sums
 * (prk_moments_sum_step(), prk_moments_mean()), then the deviations from m
 * (prk_moments_dev_step()), whose sum S1 corrects the mean to m + S1/n,
 * kept as the pair, and M2 (prk_moments_block_end(): the corrected
 * two-pass algorithm). Blocks are merged with Chan, Golub and LeVeque's
 * pairwise update (prk_merge_moments()) in the fixed tree of the sums;
 * axis 0 accumulates a column block row by row (Welford,
 * prk_moments_column_step()). The mean's second word keeps the
 * differences of block means exact when the mean is large against the
 * spread (1e9 + N(0, 1) keeps 15 digits of its variance, where one word
 * would lose 6).
 *
 * Every operation is rounded on its own (no contraction: gcc
 * -ffp-contract=off, NVRTC --fmad=false). Where two NaNs can meet in a
 * sum or a product, which one the result keeps (its sign and payload) is
 * not left to the compiler, which may swap the operands of a commutative
 * operation wherever these steps are inlined: prk_add() and prk_mul()
 * keep the left operand's NaN, as x86 does for the order written, so the
 * CPU reducer and every device give the same NaN. @ok: whether the value
 * counts (not a NaN that the nan versions leave out). */

/* a + b and a * b; when both are NaN, a. A NaN a meets 0 (1), which
 * it keeps: b's bits are masked, without a branch or a choice, so that
 * the loops of these vectorise (a choice of an operand is a branch to gcc
 * in the cloned loops, where an operation might trap). */
PRK_HD double
prk_add (double a, double b)
{
  PrkValue x;

  x.f = b;
  x.u &= (prk_u64) (a != a) - 1;
  return a + x.f;
}

PRK_HD double
prk_mul (double a, double b)
{
  PrkValue x, one;

  x.f = b;
  one.f = 1.0;
  x.u = (x.u & ((prk_u64) (a != a) - 1)) | (one.u & (0 - (prk_u64) (a != a)));
  return a * x.f;
}

/* ok ? x : 0.0, by a mask (as above). */
PRK_HD double
prk_keep (double x, int ok)
{
  PrkValue m;

  m.f = x;
  m.u &= 0 - (prk_u64) (ok != 0);
  return m.f;
}

/* A compensated column: prk_ksum_step(), the error dropped once the sum
 * is not finite. A NaN sum meeting a NaN element keeps its own NaN
 * (prk_add()), as the CPU's column loops do (KSUM_COLUMN_STEP): written
 * as a plain addition, the compiler put either operand first, and the
 * sim device's column sums kept the element's NaN where the CPU's kept
 * the sum's. */
PRK_HD void
prk_ksum_column_step (double *s, double *lo, double v)
{
  double t = prk_add (*s, v), z = t - *s;

  *lo += prk_isfinite (t) ? (*s - (t - z)) + (v - z) : 0.0;
  *s = t;
}

/* prk_lanes_sum() with prk_add(). */
PRK_HD double
prk_lanes_sum_ordered (double *v)
{
  unsigned int w, l;

  for (w = PRK_LANES / 2; w > 0; w /= 2)
    for (l = 0; l < w; l++)
      v[l] = prk_add (v[l], v[l + w]);
  return v[0];
}

/* prk_two_sum() with prk_add() for its sum; the error term is only used
 * when the sum is finite. */
PRK_HD void
prk_two_sum_ordered (double a, double b, double *hi, double *lo)
{
  double s = prk_add (a, b), bb = s - a;

  *lo = (a - (s - bb)) + (b - bb);
  *hi = s;
}

/* Pass 0 of a lane: its sum and count. */
PRK_HD void
prk_moments_sum_step (double *s, prk_u64 * n, double v, int ok)
{
  *s = prk_add (*s, prk_keep (v, ok));
  *n += (prk_u64) ok;
}

/* The mean of a block's @count values from its lanes' sums @s
 * (overwritten). */
PRK_HD double
prk_moments_mean (double *s, prk_u64 count)
{
  return prk_lanes_sum_ordered (s) / (double) count;
}

/* Where the float64 sums of a block's finite values overflow (to +inf in
 * one lane and -inf in another, a NaN mean), the mean is taken again from
 * sums of the values scaled by 2^-11: a block's 2048 of them cannot
 * overflow. prk_moments_scaled_step() is the lane's step of pass 0,
 * prk_moments_scaled_mean() the mean from the lanes' scaled sums. An
 * infinite or NaN value leaves that mean infinite or NaN too. */
#define PRK_MOMENTS_SCALE (1.0 / 2048.0)

PRK_HD void
prk_moments_scaled_step (double *s, double v, int ok)
{
  *s = prk_add (*s, prk_keep (v * PRK_MOMENTS_SCALE, ok));
}

PRK_HD double
prk_moments_scaled_mean (double *s, prk_u64 count)
{
  return prk_lanes_sum_ordered (s) / (double) count * 2048.0;
}

/* Pass 1 of a lane: the deviations from the block mean @m, and their
 * squares. */
PRK_HD void
prk_moments_dev_step (double *s1, double *s2, double v, double m, int ok)
{
  double d = prk_keep (v - m, ok);
  double dd = d * d;

  *s1 = prk_add (*s1, d);
  *s2 = prk_add (*s2, dd);
}

/* A block of @count values (more than none) with mean @m, from its lanes'
 * sums of deviations @s1 and of their squares @s2 (both overwritten). */
PRK_HD void
prk_moments_block_end (double *s1, double *s2, prk_u64 count, double m,
    PrkAcc * out)
{
  double nn = (double) count, S1, S2;

  S1 = prk_lanes_sum_ordered (s1);
  S2 = prk_lanes_sum_ordered (s2);
  out->index = count;
  prk_two_sum_ordered (m, S1 / nn, &out->v.f, &out->w.f);
  if (!prk_isfinite (out->v.f))
    out->w.f = 0;
  out->lo = S2 - (S1 * S1) / nn;
  if (out->lo < 0)
    out->lo = 0;
  /* Squared deviations of finite values beyond the largest double (an
   * infinite or NaN value makes S2 NaN, its deviation from the mean being
   * NaN): M2 is infinite, as numpy's variance, not inf - inf. */
  if (S2 == PRK_INF)
    out->lo = PRK_INF;
}

/* M2 after a merge of @alo and @blo gave @lo: infinite where one side's
 * squares overflowed and neither saw a NaN or an infinite value (whose M2
 * is NaN), whatever the means (which may have overflowed too). */
PRK_HD double
prk_moments_merged_m2 (double alo, double blo, double lo)
{
  if ((alo == PRK_INF || blo == PRK_INF) && alo == alo && blo == blo)
    return PRK_INF;
  return lo;
}

/* Chan's merge. */
PRK_HD void
prk_merge_moments (PrkAcc * a, const PrkAcc * b)
{
  double n, delta, f, g, h;

  if (b->index == 0)
    return;
  if (a->index == 0) {
    *a = *b;
    return;
  }
  n = (double) (a->index + b->index);
  delta = prk_add (b->v.f - a->v.f, b->w.f - a->w.f);
  f = (double) b->index / n;
  g = delta * f;
  prk_two_sum_ordered (a->v.f, prk_add (a->w.f, g), &a->v.f, &a->w.f);
  if (!prk_isfinite (a->v.f))
    a->w.f = 0;
  h = delta * delta;
  h = h * ((double) a->index * f);
  a->lo = prk_moments_merged_m2 (a->lo, b->lo,
      prk_add (prk_add (a->lo, b->lo), h));
  a->index += b->index;
}

/* One value @v (that counts) into a column block's accumulator. */
PRK_HD void
prk_moments_column_step (PrkAcc * a, double v)
{
  double d, e, lo = a->lo;

  a->index++;
  /* Once the squares of finite values overflowed, M2 stays infinite (the
   * mean may have overflowed with it); an infinite or NaN value makes it
   * NaN, as numpy's. */
  if (lo == PRK_INF) {
    if (!prk_isfinite (v))
      a->lo = PRK_NAN;
    return;
  }
  d = (v - a->v.f) - a->w.f;
  prk_two_sum_ordered (a->v.f, prk_add (a->w.f, d / (double) a->index),
      &a->v.f, &a->w.f);
  if (!prk_isfinite (a->v.f))
    a->w.f = 0;
  e = prk_mul (d, (v - a->v.f) - a->w.f);
  a->lo = prk_add (a->lo, e);
  /* a finite value into a finite M2 overflowed (a deviation or its
   * square): infinite, not the -inf or NaN of the overflowed terms */
  if (prk_isfinite (v) && prk_isfinite (lo) && !prk_isfinite (a->lo))
    a->lo = PRK_INF;
}

/* Complex ----------------------------------------------------------------
 *
 * numpy orders complex numbers lexicographically (the real parts, then the
 * imaginary parts), and a number with a NaN in either part is NaN: min and
 * max give the first NaN, argmin and argmax its index; the nan functions
 * leave such numbers out. Sums are two float sums, in the same lanes and
 * tree as a float's; products multiply as numpy's complex multiplication
 * does ((a*c - b*d) + (a*d + b*c) i), in float64. */

PRK_HD int
prk_cnan (double re, double im)
{
  return re != re || im != im;
}

/* a < b lexicographically (neither NaN). */
PRK_HD int
prk_clt (double ar, double ai, double br, double bi)
{
  return ar < br || (ar == br && ai < bi);
}

/* (ar, ai) *= (br, bi) */
PRK_HD void
prk_cmul (double *ar, double *ai, double br, double bi)
{
  double r1 = *ar * br, r2 = *ai * bi, i1 = *ar * bi, i2 = *ai * br;

  *ar = r1 - r2;
  *ai = i1 + i2;
}

/* Whether b is strictly better than a for argmin (@is_min) or argmax. */
PRK_HD int
prk_cbetter (double br, double bi, double ar, double ai, int is_min)
{
  return is_min ? prk_clt (br, bi, ar, ai) : prk_clt (ar, ai, br, bi);
}

/* numpy's sequential order for min, max, argmin and argmax: whether b,
 * the element of index @bx, replaces a, of index @ax (none: PRK_NONE): the
 * first NaN (in either part) is kept, else the first smallest (largest). */
PRK_HD int
prk_ctake (double ar, double ai, prk_u64 ax, double br, double bi,
    prk_u64 bx, int is_min)
{
  int an, bn;

  if (bx == PRK_NONE)
    return 0;
  if (ax == PRK_NONE)
    return 1;
  an = prk_cnan (ar, ai);
  bn = prk_cnan (br, bi);
  if (an || bn)
    return bn && (!an || bx < ax);
  return prk_cbetter (br, bi, ar, ai, is_min)
      || (br == ar && bi == ai && bx < ax);
}

/* ptp keeps the index of its minimum in a double (im_lo), -1 for none. */
PRK_HD prk_u64
prk_didx (double d)
{
  return d < 0 ? PRK_NONE : (prk_u64) d;
}

PRK_HD double
prk_idxd (prk_u64 i)
{
  return i == PRK_NONE ? -1.0 : (double) i;
}

PRK_HD int
prk_is_min_algo (int algo)
{
  return algo == PRK_A_MIN || algo == PRK_A_ARGMIN || algo == PRK_A_NANMIN
      || algo == PRK_A_NANARGMIN;
}

/* Whether a complex reduction has steps of its own (any, all and
 * count_nonzero test x != 0 as the real ones). */
PRK_HD int
prk_c_own (const PrkParams * P)
{
  return PRK_KIND (P) == PRK_KIND_C && PRK_ALGO (P) != PRK_A_ANY
      && PRK_ALGO (P) != PRK_A_ALL && PRK_ALGO (P) != PRK_A_NONZERO;
}

PRK_HD void
prk_merge_c (const PrkParams * P, PrkAcc * a, const PrkAcc * b)
{
  int is_min = prk_is_min_algo (PRK_ALGO (P));

  switch (PRK_ALGO (P)) {
    case PRK_A_NANMEAN:
      a->index += b->index;
      /* fall through */
    case PRK_A_DSUM:
    case PRK_A_KSUM:
    case PRK_A_NANDSUM:
    case PRK_A_NANKSUM:
      prk_dd_add2 (&a->v.f, &a->lo, b->v.f, b->lo);
      prk_dd_add2 (&a->im, &a->im_lo, b->im, b->im_lo);
      break;
    case PRK_A_FPROD:
    case PRK_A_NANFPROD:
      prk_cmul (&a->v.f, &a->im, b->v.f, b->im);
      break;
    case PRK_A_MIN:
    case PRK_A_MAX:
    case PRK_A_ARGMIN:
    case PRK_A_ARGMAX:
      if (prk_ctake (a->v.f, a->im, a->index, b->v.f, b->im, b->index,
              is_min)) {
        a->v.f = b->v.f;
        a->im = b->im;
        a->index = b->index;
      }
      break;
    case PRK_A_PTP:
      /* the maximum (v.f, im, index), the minimum (w.f, lo, im_lo) */
      if (prk_ctake (a->v.f, a->im, a->index, b->v.f, b->im, b->index, 0)) {
        a->v.f = b->v.f;
        a->im = b->im;
        a->index = b->index;
      }
      if (prk_ctake (a->w.f, a->lo, prk_didx (a->im_lo), b->w.f, b->lo,
              prk_didx (b->im_lo), 1)) {
        a->w.f = b->w.f;
        a->lo = b->lo;
        a->im_lo = b->im_lo;
      }
      break;
    case PRK_A_NANMIN:
    case PRK_A_NANMAX:{
      /* numpy's fmin, fmax: index 0 nothing, 1 only NaNs, 2 a number;
       * v.f, im the first NaN or the first smallest (largest) number, w.u
       * its index */
      int take = b->index > a->index;

      if (b->index == a->index && a->index == 1)
        take = b->w.u < a->w.u;
      else if (b->index == a->index && a->index == 2)
        take = prk_cbetter (b->v.f, b->im, a->v.f, a->im, is_min)
            || (b->v.f == a->v.f && b->im == a->im && b->w.u < a->w.u);
      if (take) {
        a->v.f = b->v.f;
        a->im = b->im;
        a->index = b->index;
        a->w.u = b->w.u;
      }
      break;
    }
    case PRK_A_NANARGMIN:
    case PRK_A_NANARGMAX:{
      /* numpy's nanargmin is argmin with NaNs replaced by inf (nanargmax:
       * -inf), an error when all are NaN: w.u is the index of that argmin,
       * index the same once a number was seen, else none. */
      int seen = a->index != PRK_NONE || b->index != PRK_NONE;

      if (b->w.u != PRK_NONE && (a->w.u == PRK_NONE
              || prk_cbetter (b->v.f, b->im, a->v.f, a->im, is_min)
              || (b->v.f == a->v.f && b->im == a->im && b->w.u < a->w.u))) {
        a->v.f = b->v.f;
        a->im = b->im;
        a->w.u = b->w.u;
      }
      a->index = seen ? a->w.u : PRK_NONE;
      break;
    }
    case PRK_A_VAR:
    case PRK_A_NANVAR:{
      double n, dr, di, f, h, h2;

      if (b->index == 0)
        break;
      if (a->index == 0) {
        *a = *b;
        break;
      }
      n = (double) (a->index + b->index);
      dr = (b->v.f - a->v.f) + (b->w.f - a->w.f);
      di = (b->im - a->im) + (b->im_lo - a->im_lo);
      f = (double) b->index / n;
      prk_two_sum (a->v.f, a->w.f + dr * f, &a->v.f, &a->w.f);
      if (!prk_isfinite (a->v.f))
        a->w.f = 0;
      prk_two_sum (a->im, a->im_lo + di * f, &a->im, &a->im_lo);
      if (!prk_isfinite (a->im))
        a->im_lo = 0;
      h = dr * dr;
      h2 = di * di;
      h = (h + h2) * ((double) a->index * f);
      a->lo = prk_moments_merged_m2 (a->lo, b->lo, (a->lo + b->lo) + h);
      a->index += b->index;
      break;
    }
  }
}

/* The run of the algorithm over these steps. Embedded for NVRTC, the two
 * files' text comes concatenated, without includes. */
#if !defined(PLAN_REDUCER_STEPS_EMBEDDED)
#include <libplan/planreducer-steps-run.h>
#endif

#endif /* PLAN_REDUCER_STEPS_H */
