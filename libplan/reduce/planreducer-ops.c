/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanReducer: the loops of every real op and dtype (blocks, merges,
 * columns; the finals are the steps', planreducer-steps.c), their tables,
 * and the choice of them for an op and a dtype. Compiled once per
 * instruction set (planreducer-isa.h); complex and float16 input are
 * planreducer-complex.c's, custom combiners planreducer-custom.c's, the
 * ops' kinds and result dtypes planreducer.c's. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planreducer-private.h"
#include <libplan/planerror.h>
#include <libplan/planexpr.h>
#include <libplan/planparallel.h>
#include <libplan/planarray.h>
#include "libplan/core/plan-private.h"
#include "planreducerdevice.h"

#include <math.h>
#include <string.h>

/* Lane loops --------------------------------------------------------------
 *
 * LANE_LOOP runs BODY for i in [start, n) with l = i % LANES. The inner loop
 * has a fixed trip count, which the compiler vectorises even under its
 * cheapest cost model; the remainder runs the same body on the first lanes.
 * @start must be a multiple of LANES. */
#define LANE_LOOP(start, n, ...) \
  G_STMT_START { \
    gsize j_, l; \
    for (j_ = (start); j_ + LANES <= (n); j_ += LANES) { \
      for (l = 0; l < LANES; l++) { \
        const gsize i = j_ + l; \
        __VA_ARGS__; \
      } \
    } \
    for (l = 0; j_ + l < (n); l++) { \
      const gsize i = j_ + l; \
      __VA_ARGS__; \
    } \
  } G_STMT_END

/* LANE_LOOP with the lanes kept in registers: its inner loop unrolled
 * whole, so that lane[l] has a constant index in every step. GCC otherwise
 * keeps the lanes of a loop that widens its elements (float32 and smaller
 * integers summed in float64: four vectors of lanes) in memory, loading
 * and storing them every step. The same operations in the same order. */
G_STATIC_ASSERT (LANES == 16);
#define LANE_LOOP_UNROLLED(start, n, ...) \
  G_STMT_START { \
    gsize j_, l; \
    for (j_ = (start); j_ + LANES <= (n); j_ += LANES) { \
      _Pragma ("GCC unroll 16") \
      for (l = 0; l < LANES; l++) { \
        const gsize i = j_ + l; \
        __VA_ARGS__; \
      } \
    } \
    for (l = 0; j_ + l < (n); l++) { \
      const gsize i = j_ + l; \
      __VA_ARGS__; \
    } \
  } G_STMT_END

/* How an element enters arithmetic, by kind: B(ool), S(igned), U(nsigned),
 * F(loat). Bools count as 0 or 1 whatever byte they hold. */
#define LOAD_B(x) ((guint8) ((x) != 0))
#define LOAD_S(x) (x)
#define LOAD_U(x) (x)
#define LOAD_F(x) (x)

#define TO_U64_B(x) ((guint64) ((x) != 0))
#define TO_U64_S(x) ((guint64) (gint64) (x))
#define TO_U64_U(x) ((guint64) (x))

/* Where a kind's min/max/argmin/argmax live in a Value. */
#define VAL_B(acc) ((acc)->v.u)
#define VAL_S(acc) ((acc)->v.i)
#define VAL_U(acc) ((acc)->v.u)
#define VAL_F(acc) ((acc)->v.f)

/* Combines float64 lanes pairwise (16 -> 8 -> 4 -> 2 -> 1), a fixed order
 * whose levels vectorise; @v is overwritten. */
static inline void
lanes_sum (gdouble * v, Acc * out)
{
  out->v.f = prk_lanes_sum (v);
  out->lo = 0.0;
  out->index = 0;
}

/* Merges --------------------------------------------------------------- */

static void
merge_add_u64 (const PlanReducer * r, Acc * a, const Acc * b)
{
  a->v.u += b->v.u;
}

static void
merge_mul_u64 (const PlanReducer * r, Acc * a, const Acc * b)
{
  a->v.u *= b->v.u;
}

static void
merge_mul_f (const PlanReducer * r, Acc * a, const Acc * b)
{
  a->v.f *= b->v.f;
}

static void
merge_or (const PlanReducer * r, Acc * a, const Acc * b)
{
  a->v.u |= b->v.u;
}

static void
merge_and (const PlanReducer * r, Acc * a, const Acc * b)
{
  a->v.u &= b->v.u;
}

/* The merges of planreducer-steps.h as MergeFuncs: min and max (the
 * first NaN wins), argmin and argmax (equal values go to the smaller
 * index, the first occurrence, as numpy), ptp, of floats (f), signed (S)
 * and unsigned or bool (U) integers. */
#define MERGE_FUNC(name, CALL) \
  static void \
  name (const PlanReducer * r, Acc * a, const Acc * b) \
  { \
    CALL; \
  }

MERGE_FUNC (merge_argmin_f, prk_merge_arg_f (a, b, 1));
MERGE_FUNC (merge_argmax_f, prk_merge_arg_f (a, b, 0));
MERGE_FUNC (merge_ptp_f, prk_merge_ptp_f (a, b));
MERGE_FUNC (merge_min_S, prk_merge_min_s (a, b));
MERGE_FUNC (merge_max_S, prk_merge_max_s (a, b));
MERGE_FUNC (merge_argmin_S, prk_merge_argmin_s (a, b));
MERGE_FUNC (merge_argmax_S, prk_merge_argmax_s (a, b));
MERGE_FUNC (merge_ptp_S, prk_merge_ptp_s (a, b));
MERGE_FUNC (merge_min_U, prk_merge_min_u (a, b));
MERGE_FUNC (merge_max_U, prk_merge_max_u (a, b));
MERGE_FUNC (merge_argmin_U, prk_merge_argmin_u (a, b));
MERGE_FUNC (merge_argmax_U, prk_merge_argmax_u (a, b));
MERGE_FUNC (merge_ptp_U, prk_merge_ptp_u (a, b));
MERGE_FUNC (merge_nanmin, prk_merge_nanminmax (a, b, 1));
MERGE_FUNC (merge_nanmax, prk_merge_nanminmax (a, b, 0));
MERGE_FUNC (merge_nanargmin, prk_merge_nanarg (a, b, 1));
MERGE_FUNC (merge_nanargmax, prk_merge_nanarg (a, b, 0));

/* Block functions, per dtype ------------------------------------------- */

/* The same merges called directly, for a block's lanes: by kind (B, S,
 * U, F), as select_extreme() and select_ptp() pick r->merge. */
#define MERGE_MIN_F(a, b) prk_merge_minmax_f (&(a)->v, (b)->v, 1)
#define MERGE_MAX_F(a, b) prk_merge_minmax_f (&(a)->v, (b)->v, 0)
#define MERGE_MIN_S prk_merge_min_s
#define MERGE_MAX_S prk_merge_max_s
#define MERGE_MIN_U prk_merge_min_u
#define MERGE_MAX_U prk_merge_max_u
#define MERGE_MIN_B MERGE_MIN_U
#define MERGE_MAX_B MERGE_MAX_U
#define MERGE_ARGMIN_F(a, b) prk_merge_arg_f (a, b, 1)
#define MERGE_ARGMAX_F(a, b) prk_merge_arg_f (a, b, 0)
#define MERGE_ARGMIN_S prk_merge_argmin_s
#define MERGE_ARGMAX_S prk_merge_argmax_s
#define MERGE_ARGMIN_U prk_merge_argmin_u
#define MERGE_ARGMAX_U prk_merge_argmax_u
#define MERGE_ARGMIN_B MERGE_ARGMIN_U
#define MERGE_ARGMAX_B MERGE_ARGMAX_U
#define MERGE_PTP_F prk_merge_ptp_f
#define MERGE_PTP_S prk_merge_ptp_s
#define MERGE_PTP_U prk_merge_ptp_u
#define MERGE_PTP_B MERGE_PTP_U


/* Sums of integers and bools wrap in 64 bits, as numpy's: exact, so any
 * order gives the same result. */
#define DEFINE_BLOCK_ISUM(name, T, K) \
  static void BLOCK_CLONES \
  block_isum_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    guint64 lane[LANES] = { 0 }, s = 0; \
    guint k; \
    LANE_LOOP (0, n, lane[l] += TO_U64_##K (x[i])); \
    for (k = 0; k < LANES; k++) \
      s += lane[k]; \
    out->v.u = s; \
  }

#define DEFINE_BLOCK_IPROD(name, T, K) \
  static void BLOCK_CLONES \
  block_iprod_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    guint64 lane[LANES], s = 1; \
    guint k; \
    for (k = 0; k < LANES; k++) \
      lane[k] = 1; \
    LANE_LOOP (0, n, lane[l] *= TO_U64_##K (x[i])); \
    for (k = 0; k < LANES; k++) \
      s *= lane[k]; \
    out->v.u = s; \
  }

/* Sums in float64 lanes: for float32 and the integers up to 32 bits, whose
 * lane sums of BLOCK / LANES elements lose nothing or next to nothing. */
#define DEFINE_BLOCK_DSUM(name, T, K) \
  static void BLOCK_CLONES \
  block_dsum_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    gdouble lane[LANES] = { 0 }; \
    LANE_LOOP_UNROLLED (0, n, lane[l] += (gdouble) LOAD_##K (x[i])); \
    lanes_sum (lane, out); \
  }

/* Compensated float64 lanes, for float64 and 64-bit integers: each lane
 * adds with TwoSum, which gives the rounding error of every addition
 * exactly whatever the magnitudes, and sums those errors apart (Ogita,
 * Rump and Oishi's Sum2; unlike Kahan's compensation it does not lose the
 * error when a large value follows). A block holding infinities or NaNs
 * (which make the error terms meaningless) is summed again plainly, which
 * gives IEEE's answer for them. */
#define DEFINE_BLOCK_KSUM(name, T, K) \
  static void BLOCK_CLONES \
  block_ksum_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    gdouble s[LANES] = { 0 }, c[LANES] = { 0 }; \
    LANE_LOOP (0, n, \
        gdouble v = (gdouble) LOAD_##K (x[i]); \
        prk_ksum_step (&s[l], &c[l], v)); \
    prk_lanes_sum_compensated (s, c, out); \
    if (!isfinite (out->v.f) || !isfinite (out->lo)) \
      block_dsum_##name (r, in, n, base, out, scratch); \
  }

#define DEFINE_BLOCK_FPROD(name, T, K) \
  static void BLOCK_CLONES \
  block_fprod_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    gdouble lane[LANES], p = 1.0; \
    guint k; \
    for (k = 0; k < LANES; k++) \
      lane[k] = 1.0; \
    LANE_LOOP (0, n, lane[l] *= (gdouble) x[i]); \
    for (k = 0; k < LANES; k++) \
      p *= lane[k]; \
    out->v.f = p; \
  }

/* Min and max: a NaN, once in a lane, stays. */
#define MIN_STEP_F(m, x) ((m) = PRK_MIN_F (m, x))
#define MAX_STEP_F(m, x) ((m) = PRK_MAX_F (m, x))
#define MIN_STEP_S(m, x) ((m) = PRK_MIN_I (m, x))
#define MAX_STEP_S(m, x) ((m) = PRK_MAX_I (m, x))
#define MIN_STEP_U MIN_STEP_S
#define MAX_STEP_U MAX_STEP_S
#define MIN_STEP_B MIN_STEP_S
#define MAX_STEP_B MAX_STEP_S

/* A block's lanes folded into @out, lane 0 first, as the merges
 * MERGE_MIN_ and MERGE_MAX_ of the kind do one after another. */
#define FOLD_SEQUENTIAL(K, lane, out, WHICH) G_STMT_START { \
    Acc a_; \
    guint k_; \
    VAL_##K (out) = lane[0]; \
    for (k_ = 1; k_ < LANES; k_++) { \
      VAL_##K (&a_) = lane[k_]; \
      MERGE_##WHICH##_##K (out, &a_); \
    } \
  } G_STMT_END
#define FOLD_B(T, lane, out, WHICH, OP) FOLD_SEQUENTIAL (B, lane, out, WHICH)
#define FOLD_S(T, lane, out, WHICH, OP) FOLD_SEQUENTIAL (S, lane, out, WHICH)
#define FOLD_U(T, lane, out, WHICH, OP) FOLD_SEQUENTIAL (U, lane, out, WHICH)
/* Floats: those merges in order keep the first NaN lane if there is one,
 * and otherwise the first lane whose value equals the extreme (a later
 * equal one, the other zero say, never replaces it): found as such,
 * without a chain of fifteen merges that each wait for the one before
 * and branch on the data. The same lane, the same bits. */
#define FOLD_F(T, lane, out, WHICH, OP) G_STMT_START { \
    T t_[LANES / 2]; \
    guint nan_ = 0, eq_ = 0, k_, w_; \
    for (k_ = 0; k_ < LANES; k_++) \
      nan_ |= (guint) (lane[k_] != lane[k_]) << k_; \
    if (nan_ != 0) { \
      VAL_F (out) = lane[__builtin_ctz (nan_)]; \
    } else { \
      for (k_ = 0; k_ < LANES / 2; k_++) \
        t_[k_] = lane[k_ + LANES / 2] OP lane[k_] ? lane[k_ + LANES / 2] \
            : lane[k_]; \
      for (w_ = LANES / 4; w_ > 0; w_ /= 2) \
        for (k_ = 0; k_ < w_; k_++) \
          t_[k_] = t_[k_ + w_] OP t_[k_] ? t_[k_ + w_] : t_[k_]; \
      for (k_ = 0; k_ < LANES; k_++) \
        eq_ |= (guint) (lane[k_] == t_[0]) << k_; \
      VAL_F (out) = lane[__builtin_ctz (eq_)]; \
    } \
  } G_STMT_END

#define DEFINE_BLOCK_MINMAX(name, T, K, MINV, MAXV) \
  static void BLOCK_CLONES \
  block_min_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    T lane[LANES]; \
    guint k; \
    for (k = 0; k < LANES; k++) \
      lane[k] = MAXV; \
    LANE_LOOP (0, n, T v = LOAD_##K (x[i]); MIN_STEP_##K (lane[l], v)); \
    FOLD_##K (T, lane, out, MIN, <); \
  } \
  static void BLOCK_CLONES \
  block_max_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    T lane[LANES]; \
    guint k; \
    for (k = 0; k < LANES; k++) \
      lane[k] = MINV; \
    LANE_LOOP (0, n, T v = LOAD_##K (x[i]); MAX_STEP_##K (lane[l], v)); \
    FOLD_##K (T, lane, out, MAX, >); \
  }

/* Argmin and argmax: a lane starts at its first element, takes strictly
 * better values (and a first NaN), so each lane keeps its first
 * occurrence; lanes are merged with ties going to the smaller index. */
#define ARG_TAKE_MIN_F PRK_ARG_TAKE_MIN_F
#define ARG_TAKE_MAX_F PRK_ARG_TAKE_MAX_F
#define ARG_TAKE_MIN_S PRK_ARG_TAKE_MIN_I
#define ARG_TAKE_MAX_S PRK_ARG_TAKE_MAX_I
#define ARG_TAKE_MIN_U ARG_TAKE_MIN_S
#define ARG_TAKE_MAX_U ARG_TAKE_MAX_S
#define ARG_TAKE_MIN_B ARG_TAKE_MIN_S
#define ARG_TAKE_MAX_B ARG_TAKE_MAX_S

#define DEFINE_BLOCK_ARG(which, WHICH, name, T, K, EMPTY) \
  static void BLOCK_CLONES \
  block_arg##which##_##name (const PlanReducer * r, gconstpointer in, \
      gsize n, guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    T lane[LANES]; \
    guint64 idx[LANES]; \
    Acc a; \
    guint k; \
    for (k = 0; k < LANES; k++) { \
      lane[k] = k < n ? LOAD_##K (x[k]) : EMPTY; \
      idx[k] = k < n ? base + k : G_MAXUINT64; \
    } \
    LANE_LOOP (LANES, n, \
        T v = LOAD_##K (x[i]); \
        gboolean take = ARG_TAKE_##WHICH##_##K (v, lane[l]); \
        lane[l] = take ? v : lane[l]; \
        idx[l] = take ? base + i : idx[l]); \
    VAL_##K (out) = lane[0]; \
    out->index = idx[0]; \
    for (k = 1; k < LANES; k++) { \
      VAL_##K (&a) = lane[k]; \
      a.index = idx[k]; \
      MERGE_ARG##WHICH##_##K (out, &a); \
    } \
  }

#define DEFINE_BLOCK_ANYALL(name, T) \
  static void BLOCK_CLONES \
  block_any_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    guint8 lane[LANES] = { 0 }, s = 0; \
    guint k; \
    LANE_LOOP (0, n, lane[l] |= (x[i] != 0)); \
    for (k = 0; k < LANES; k++) \
      s |= lane[k]; \
    out->v.u = s; \
  } \
  static void BLOCK_CLONES \
  block_all_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    guint8 lane[LANES], s = 1; \
    guint k; \
    for (k = 0; k < LANES; k++) \
      lane[k] = 1; \
    LANE_LOOP (0, n, lane[l] &= (x[i] != 0)); \
    for (k = 0; k < LANES; k++) \
      s &= lane[k]; \
    out->v.u = s; \
  }

/* Column functions (PLAN_REDUCE_AXIS_ROWS): each column is its own
 * sequence, accumulated in row order. */
#define DEFINE_COLUMNS(name, T, K) \
  static void \
  column_fprod_##name (PlanReducer * r, Acc * cols, gsize c0, \
      gsize c1, gconstpointer row, guint64 row_index, gpointer scratch) \
  { \
    const T *x = row; \
    gsize c; \
    for (c = c0; c < c1; c++) \
      cols[c].v.f *= (gdouble) LOAD_##K (x[c]); \
  } \
  static void \
  column_ksum_##name (PlanReducer * r, Acc * cols, gsize c0, \
      gsize c1, gconstpointer row, guint64 row_index, gpointer scratch) \
  { \
    const T *x = row; \
    gsize c; \
    for (c = c0; c < c1; c++) { \
      Acc *a = &cols[c]; \
      gdouble v = (gdouble) LOAD_##K (x[c]); \
      prk_ksum_column_step (&a->v.f, &a->lo, v); \
    } \
  } \
  static void \
  column_merge_##name (PlanReducer * r, Acc * cols, gsize c0, \
      gsize c1, gconstpointer row, guint64 row_index, gpointer scratch) \
  { \
    const T *x = row; \
    gsize c; \
    Acc a; \
    for (c = c0; c < c1; c++) { \
      VAL_##K (&a) = LOAD_##K (x[c]); \
      r->merge (r, &cols[c], &a); \
    } \
  } \
  static void \
  column_arg_##name (PlanReducer * r, Acc * cols, gsize c0, \
      gsize c1, gconstpointer row, guint64 row_index, gpointer scratch) \
  { \
    const T *x = row; \
    gsize c; \
    Acc a; \
    a.index = row_index; \
    for (c = c0; c < c1; c++) { \
      VAL_##K (&a) = LOAD_##K (x[c]); \
      r->merge (r, &cols[c], &a); \
    } \
  } \
  static void \
  column_any_##name (PlanReducer * r, Acc * cols, gsize c0, \
      gsize c1, gconstpointer row, guint64 row_index, gpointer scratch) \
  { \
    const T *x = row; \
    gsize c; \
    for (c = c0; c < c1; c++) \
      cols[c].v.u |= (x[c] != 0); \
  } \
  static void \
  column_all_##name (PlanReducer * r, Acc * cols, gsize c0, \
      gsize c1, gconstpointer row, guint64 row_index, gpointer scratch) \
  { \
    const T *x = row; \
    gsize c; \
    for (c = c0; c < c1; c++) \
      cols[c].v.u &= (x[c] != 0); \
  }

/* Integer sums and products, which wrap in 64 bits. */
#define DEFINE_INTEGER(name, T, K) \
  DEFINE_BLOCK_ISUM (name, T, K) \
  DEFINE_BLOCK_IPROD (name, T, K) \
  static void \
  column_isum_##name (PlanReducer * r, Acc * cols, gsize c0, \
      gsize c1, gconstpointer row, guint64 row_index, gpointer scratch) \
  { \
    const T *x = row; \
    gsize c; \
    for (c = c0; c < c1; c++) \
      cols[c].v.u += TO_U64_##K (x[c]); \
  } \
  static void \
  column_iprod_##name (PlanReducer * r, Acc * cols, gsize c0, \
      gsize c1, gconstpointer row, guint64 row_index, gpointer scratch) \
  { \
    const T *x = row; \
    gsize c; \
    for (c = c0; c < c1; c++) \
      cols[c].v.u *= TO_U64_##K (x[c]); \
  }

#define DEFINE_DTYPE(name, T, K, MINV, MAXV, EMPTY_MIN, EMPTY_MAX) \
  DEFINE_BLOCK_DSUM (name, T, K) \
  DEFINE_BLOCK_KSUM (name, T, K) \
  DEFINE_BLOCK_FPROD (name, T, K) \
  DEFINE_BLOCK_MINMAX (name, T, K, MINV, MAXV) \
  DEFINE_BLOCK_ARG (min, MIN, name, T, K, EMPTY_MIN) \
  DEFINE_BLOCK_ARG (max, MAX, name, T, K, EMPTY_MAX) \
  DEFINE_BLOCK_ANYALL (name, T) \
  DEFINE_COLUMNS (name, T, K) \

/* Lanes of min/max start at the identity of the kind; the Value of a bool
 * or unsigned lane is v.u, of a signed one v.i, of a float one v.f. */
DEFINE_DTYPE (boolean, guint8, B, 0, 1, 1, 0);
DEFINE_DTYPE (int8, gint8, S, G_MININT8, G_MAXINT8, G_MAXINT8, G_MININT8);
DEFINE_DTYPE (uint8, guint8, U, 0, G_MAXUINT8, G_MAXUINT8, 0);
DEFINE_DTYPE (int16, gint16, S, G_MININT16, G_MAXINT16, G_MAXINT16,
    G_MININT16);
DEFINE_DTYPE (uint16, guint16, U, 0, G_MAXUINT16, G_MAXUINT16, 0);
DEFINE_DTYPE (int32, gint32, S, G_MININT32, G_MAXINT32, G_MAXINT32,
    G_MININT32);
DEFINE_DTYPE (uint32, guint32, U, 0, G_MAXUINT32, G_MAXUINT32, 0);
DEFINE_DTYPE (int64, gint64, S, G_MININT64, G_MAXINT64, G_MAXINT64,
    G_MININT64);
DEFINE_DTYPE (uint64, guint64, U, 0, G_MAXUINT64, G_MAXUINT64, 0);
DEFINE_DTYPE (float32, gfloat, F, -INFINITY, INFINITY, INFINITY, -INFINITY);
DEFINE_DTYPE (float64, gdouble, F, -INFINITY, INFINITY, INFINITY, -INFINITY);

DEFINE_INTEGER (boolean, guint8, B);
DEFINE_INTEGER (int8, gint8, S);
DEFINE_INTEGER (uint8, guint8, U);
DEFINE_INTEGER (int16, gint16, S);
DEFINE_INTEGER (uint16, guint16, U);
DEFINE_INTEGER (int32, gint32, S);
DEFINE_INTEGER (uint32, guint32, U);
DEFINE_INTEGER (int64, gint64, S);
DEFINE_INTEGER (uint64, guint64, U);

/* numpy's nan-aware reductions, moments, count_nonzero and ptp --------- */

/* A NaN counts as @id (0 for sums, 1 for products). */
#define NAN_AS(x, id) ((x) == (x) ? (gdouble) (x) : (id))

/* Where the second value of ptp (the minimum) lives. */
#define WVAL_B(acc) ((acc)->w.u)
#define WVAL_S(acc) ((acc)->w.i)
#define WVAL_U(acc) ((acc)->w.u)
#define WVAL_F(acc) ((acc)->w.f)

/* nansum, nanprod, nanmean, nanmin, nanmax, nanargmin, nanargmax of
 * floats (on integers and bools they are the plain ops). The counts of
 * values that are not NaN live in Acc.index. */
#define DEFINE_NAN_FLOAT(name, T) \
  static void BLOCK_CLONES \
  block_nandsum_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    gdouble lane[LANES] = { 0 }; \
    LANE_LOOP (0, n, lane[l] += NAN_AS (x[i], 0.0)); \
    lanes_sum (lane, out); \
  } \
  static void BLOCK_CLONES \
  block_nanksum_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    gdouble s[LANES] = { 0 }, c[LANES] = { 0 }; \
    LANE_LOOP (0, n, \
        gdouble v = NAN_AS (x[i], 0.0); \
        prk_ksum_step (&s[l], &c[l], v)); \
    prk_lanes_sum_compensated (s, c, out); \
    if (!isfinite (out->v.f) || !isfinite (out->lo)) \
      block_nandsum_##name (r, in, n, base, out, scratch); \
  } \
  static void BLOCK_CLONES \
  block_nanfprod_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    gdouble lane[LANES], p = 1.0; \
    guint k; \
    for (k = 0; k < LANES; k++) \
      lane[k] = 1.0; \
    LANE_LOOP (0, n, lane[l] *= NAN_AS (x[i], 1.0)); \
    for (k = 0; k < LANES; k++) \
      p *= lane[k]; \
    out->v.f = p; \
  } \
  static void BLOCK_CLONES \
  block_nancount_##name (gconstpointer in, gsize n, Acc * out) \
  { \
    const T *x = in; \
    guint64 lane[LANES] = { 0 }, s = 0; \
    guint k; \
    LANE_LOOP (0, n, lane[l] += (x[i] == x[i])); \
    for (k = 0; k < LANES; k++) \
      s += lane[k]; \
    out->index = s; \
  } \
  static void \
  block_nanmean_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    if (sizeof (T) == 8) \
      block_nanksum_##name (r, in, n, base, out, scratch); \
    else \
      block_nandsum_##name (r, in, n, base, out, scratch); \
    block_nancount_##name (in, n, out); \
  } \
  static void BLOCK_CLONES \
  block_nanmin_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    T lane[LANES]; \
    guint8 seen[LANES] = { 0 }; \
    Acc a; \
    guint k; \
    for (k = 0; k < LANES; k++) \
      lane[k] = INFINITY; \
    LANE_LOOP (0, n, T v = x[i]; lane[l] = v < lane[l] ? v : lane[l]; \
        seen[l] |= (v == v)); \
    out->v.f = lane[0]; \
    out->index = seen[0]; \
    for (k = 1; k < LANES; k++) { \
      a.v.f = lane[k]; \
      a.index = seen[k]; \
      prk_merge_nanminmax (out, &a, 1); \
    } \
  } \
  static void BLOCK_CLONES \
  block_nanmax_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    T lane[LANES]; \
    guint8 seen[LANES] = { 0 }; \
    Acc a; \
    guint k; \
    for (k = 0; k < LANES; k++) \
      lane[k] = -INFINITY; \
    LANE_LOOP (0, n, T v = x[i]; lane[l] = v > lane[l] ? v : lane[l]; \
        seen[l] |= (v == v)); \
    out->v.f = lane[0]; \
    out->index = seen[0]; \
    for (k = 1; k < LANES; k++) { \
      a.v.f = lane[k]; \
      a.index = seen[k]; \
      prk_merge_nanminmax (out, &a, 0); \
    } \
  } \
  DEFINE_BLOCK_NANARG (min, <, INFINITY, name, T) \
  DEFINE_BLOCK_NANARG (max, >, -INFINITY, name, T) \
  static void \
  column_nanksum_##name (PlanReducer * r, Acc * cols, gsize c0, \
      gsize c1, gconstpointer row, guint64 row_index, gpointer scratch) \
  { \
    const T *x = row; \
    gsize c; \
    for (c = c0; c < c1; c++) { \
      Acc *a = &cols[c]; \
      gdouble v = NAN_AS (x[c], 0.0); \
      prk_ksum_column_step (&a->v.f, &a->lo, v); \
      a->index += x[c] == x[c]; \
    } \
  } \
  static void \
  column_nanfprod_##name (PlanReducer * r, Acc * cols, gsize c0, \
      gsize c1, gconstpointer row, guint64 row_index, gpointer scratch) \
  { \
    const T *x = row; \
    gsize c; \
    for (c = c0; c < c1; c++) \
      cols[c].v.f *= NAN_AS (x[c], 1.0); \
  } \
  static void \
  column_nanmerge_##name (PlanReducer * r, Acc * cols, gsize c0, \
      gsize c1, gconstpointer row, guint64 row_index, gpointer scratch) \
  { \
    const T *x = row; \
    gsize c; \
    Acc a; \
    for (c = c0; c < c1; c++) { \
      gboolean ok = x[c] == x[c]; \
      a.v.f = ok ? x[c] : r->identity.v.f; \
      a.index = ok ? (r->nan_arg ? row_index : 1) : r->identity.index; \
      a.w.u = row_index;          /* nanarg: a NaN is an argmin too */ \
      r->merge (r, &cols[c], &a); \
    } \
  }

/* nanargmin, nanargmax: numpy's, argmin (argmax) with every NaN replaced
 * by inf (-inf): a lane takes its first element and then strictly better
 * ones, NaNs counted as @EMPTY, and notes whether it saw a value that is
 * not NaN; without one its index is G_MAXUINT64 (none, an all-NaN slice;
 * prk_merge_nanarg() keeps the argmin in w.u). */
/* prk_merge_nanarg()'s is_min for DEFINE_BLOCK_NANARG's @which. */
#define NANARG_IS_min 1
#define NANARG_IS_max 0

#define DEFINE_BLOCK_NANARG(which, CMP, EMPTY, name, T) \
  static void BLOCK_CLONES \
  block_nanarg##which##_##name (const PlanReducer * r, gconstpointer in, \
      gsize n, guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    T lane[LANES]; \
    guint64 idx[LANES]; \
    guint8 seen[LANES] = { 0 }; \
    Acc a; \
    guint k; \
    for (k = 0; k < LANES; k++) { \
      lane[k] = EMPTY; \
      idx[k] = G_MAXUINT64; \
    } \
    LANE_LOOP (0, n, \
        T v = x[i] == x[i] ? x[i] : (T) EMPTY; \
        gboolean take = PRK_NANARG_TAKE (v CMP lane[l], idx[l]); \
        lane[l] = take ? v : lane[l]; \
        idx[l] = take ? base + i : idx[l]; \
        seen[l] |= x[i] == x[i]); \
    out->v.f = lane[0]; \
    out->w.u = idx[0]; \
    out->index = seen[0] ? idx[0] : G_MAXUINT64; \
    for (k = 1; k < LANES; k++) { \
      a.v.f = lane[k]; \
      a.w.u = idx[k]; \
      a.index = seen[k] ? idx[k] : G_MAXUINT64; \
      prk_merge_nanarg (out, &a, NANARG_IS_##which); \
    } \
  }

DEFINE_NAN_FLOAT (float32, gfloat);
DEFINE_NAN_FLOAT (float64, gdouble);

/* Column loops over many rows (PLAN_REDUCE_AXIS_ROWS) --------------------
 *
 * The column functions of sums and products again, over the rows of a
 * chunk at once and with each accumulator field in an array of its own:
 * contiguous arrays rather than 32-byte accumulators, which halves the time
 * of wide rows (and the compiler vectorises the integer loops). Each
 * column gets the same operations in the same order as above, so the bits
 * are the same. v and lo hold the fields v.f and lo of the columns
 * [c0, c1). The nan versions gained nothing this way and are left out. */
/* The rows a column loop reads are asked for ahead of it
 * (PREFETCH_ROW()): those of the row COLUMN_PREFETCH bytes on, or the
 * next, where the columns taken of a row are at most COLUMN_PREFETCH_MAX
 * bytes. On the development VM the hardware's own prefetch left the
 * loops over rows of 16 to 1,024 float32 waiting on their loads
 * (docs/performance.md); wider ranges gained nothing. It changes no
 * value. */
#define COLUMN_PREFETCH 2048
#define COLUMN_PREFETCH_MAX 4096

/* How many rows ahead PREFETCH_ROW() asks for the @bytes a loop takes of
 * each row, rows being @row_size bytes apart: 0 for none. */
static inline gsize
prefetch_rows_ahead (gsize bytes, gsize row_size)
{
  if (bytes > COLUMN_PREFETCH_MAX || row_size == 0)
    return 0;
  return MAX (1, (COLUMN_PREFETCH + row_size - 1) / row_size);
}

/* Prefetches the @bytes at @x of the row @ahead rows after it, if it is
 * one of the first @n_rows - @i. A macro: gcc inlines no function into
 * one of another optimize attribute (VECTORIZE), and drops the calls of
 * one that does nothing but prefetch. */
#define PREFETCH_ROW(x, bytes, row_size, ahead, i, n_rows) G_STMT_START { \
    if ((ahead) > 0 && (i) + (ahead) < (n_rows)) { \
      const gchar *p_ = (const gchar *) (x) + (ahead) * (row_size); \
      gsize b_; \
      for (b_ = 0; b_ < (bytes); b_ += 64) \
        __builtin_prefetch (p_ + b_); \
    } \
  } G_STMT_END

/* A ColumnRowsFunc @fn running BODY for each row's x[c], c in [0, w). */
#define COLUMN_ROWS_FUNC(fn, T, BODY) \
  static void BLOCK_CLONES VECTORIZE \
  fn (gdouble * restrict v, gdouble * restrict lo, const guint8 * rows, \
      gsize n_rows, gsize row_size, gsize c0, gsize c1) \
  { \
    gsize i, c, w = c1 - c0; \
    gsize ahead = prefetch_rows_ahead (w * sizeof (T), row_size); \
    for (i = 0; i < n_rows; i++) { \
      const T *restrict x = (const T *) (rows + i * row_size) + c0; \
      PREFETCH_ROW (x, w * sizeof (T), row_size, ahead, i, n_rows); \
      for (c = 0; c < w; c++) { \
        BODY; \
      } \
    } \
  }

/* Which NaN a sum keeps where both operands of an addition are NaNs: x86
 * keeps the first one's, and gcc puts either first, in a vectorised loop
 * not always the same in its body and its epilogue, nor in each
 * instruction set's copy. The steps below say which they keep, as the
 * scalar steps they stand for did (prk_ksum_column_step() and
 * column_csum), so that their bits do not depend on the compiler:
 * KSUM_COLUMN_STEP the sum's (a NaN sum is one an addition made, quiet),
 * DSUM_COLUMN_STEP the element's (a NaN @y made float64 is quiet). */
#define DSUM_COLUMN_STEP(s, y) ((s) = (y) != (y) ? (y) : (s) + (y))

/* prk_ksum_column_step (&s, &lo, y) written out: gcc inlines no function
 * into one of another optimize attribute (VECTORIZE), and a call per
 * element is neither vectorised nor cheap. The same operations: the
 * error, computed whether or not it is kept, is dropped (0.0 added) once
 * the sum is not finite, as prk_isfinite() tells. */
#define KSUM_COLUMN_STEP(s, lo, y) G_STMT_START { \
    gdouble t_ = (s) != (s) ? (s) : (s) + (y), z_ = t_ - (s); \
    gdouble e_ = ((s) - (t_ - z_)) + ((y) - z_); \
    (lo) += (t_ - t_) == 0.0 ? e_ : 0.0; \
    (s) = t_; \
  } G_STMT_END

#define DEFINE_COLUMN_ROWS(name, T, K) \
  COLUMN_ROWS_FUNC (rows_ksum_##name, T, \
      gdouble y = (gdouble) LOAD_##K (x[c]); \
      KSUM_COLUMN_STEP (v[c], lo[c], y)) \
  COLUMN_ROWS_FUNC (rows_fprod_##name, T, \
      v[c] *= (gdouble) LOAD_##K (x[c]))

DEFINE_COLUMN_ROWS (boolean, guint8, B);
DEFINE_COLUMN_ROWS (int8, gint8, S);
DEFINE_COLUMN_ROWS (uint8, guint8, U);
DEFINE_COLUMN_ROWS (int16, gint16, S);
DEFINE_COLUMN_ROWS (uint16, guint16, U);
DEFINE_COLUMN_ROWS (int32, gint32, S);
DEFINE_COLUMN_ROWS (uint32, guint32, U);
DEFINE_COLUMN_ROWS (int64, gint64, S);
DEFINE_COLUMN_ROWS (uint64, guint64, U);
DEFINE_COLUMN_ROWS (float32, gfloat, F);
DEFINE_COLUMN_ROWS (float64, gdouble, F);

/* Sums of what _plan_reducer_needs_compensation() leaves out (float32 and
 * integers of up to 32 bits): plain float64 additions within a column
 * block, as block_dsum_ does for the whole stream. A block holds at most
 * 65,536 rows, so the integers' sums are exact and float32's rounding
 * errors are some 2^-29 of float32's; the blocks still merge as
 * double-doubles. The device's column step does the same. */
#define DEFINE_COLUMN_DSUM(name, T, K) \
  static void \
  column_dsum_##name (PlanReducer * r, Acc * cols, gsize c0, \
      gsize c1, gconstpointer row, guint64 row_index, gpointer scratch) \
  { \
    const T *x = row; \
    gsize c; \
    for (c = c0; c < c1; c++) \
      cols[c].v.f += (gdouble) LOAD_##K (x[c]); \
  } \
  COLUMN_ROWS_FUNC (rows_dsum_##name, T, v[c] += (gdouble) LOAD_##K (x[c]))

DEFINE_COLUMN_DSUM (boolean, guint8, B);
DEFINE_COLUMN_DSUM (int8, gint8, S);
DEFINE_COLUMN_DSUM (uint8, guint8, U);
DEFINE_COLUMN_DSUM (int16, gint16, S);
DEFINE_COLUMN_DSUM (uint16, guint16, U);
DEFINE_COLUMN_DSUM (int32, gint32, S);
DEFINE_COLUMN_DSUM (uint32, guint32, U);
DEFINE_COLUMN_DSUM (int64, gint64, S);
DEFINE_COLUMN_DSUM (uint64, guint64, U);
DEFINE_COLUMN_DSUM (float32, gfloat, F);
DEFINE_COLUMN_DSUM (float64, gdouble, F);

/* complex64's over the parts (select_complex_sum_rows()): float32's
 * additions, keeping the element's NaN as column_csum does; float32's own
 * leave that to the compiler, whose choice differs by instruction set
 * (docs/planreduce.md), and are kept as they are. */
COLUMN_ROWS_FUNC (rows_dsum_complex64, gfloat,
    gdouble y = (gdouble) x[c];
    DSUM_COLUMN_STEP (v[c], y))

/* Minimum and maximum of float columns: _plan_reducer_merge_min_f's and
 * _plan_reducer_merge_max_f's test, row after row (the first NaN wins), which column_merge_ makes
 * through a call per element; written as a select, the compiler
 * vectorises it (lo is not used). */
#define DEFINE_COLUMN_ROWS_EXTREME(name, T) \
  COLUMN_ROWS_FUNC (rows_min_##name, T, \
      gdouble y = (gdouble) x[c]; \
      v[c] = !isnan (v[c]) && (y < v[c] || isnan (y)) ? y : v[c]) \
  COLUMN_ROWS_FUNC (rows_max_##name, T, \
      gdouble y = (gdouble) x[c]; \
      v[c] = !isnan (v[c]) && (y > v[c] || isnan (y)) ? y : v[c])

DEFINE_COLUMN_ROWS_EXTREME (float64, gdouble);

/* float32's the same, in float32: the extreme of float32 values is one of
 * them (or the identity, an infinity), which float64 holds exactly, so
 * the columns' values go into float32 for the rows and back unchanged, a
 * NaN too (a float32 NaN made float64 and back is the float64 NaN it was
 * made from). The tests are those above on the same values: the same
 * bits, with half the lanes' work and accumulators of float64. The
 * columns go by tiles whose accumulators stay in the first-level cache;
 * v holds the columns [c0, c1), from v[0]. */
#define EXTREME_TILE 1024
#define DEFINE_COLUMN_ROWS_EXTREME_F32(which, TAKES) \
  static void BLOCK_CLONES VECTORIZE \
  rows_##which##_float32 (gdouble * restrict v, gdouble * restrict lo, \
      const guint8 * rows, gsize n_rows, gsize row_size, gsize c0, \
      gsize c1) \
  { \
    gfloat m[EXTREME_TILE]; \
    gsize i, c, t, w, ahead; \
    for (t = c0; t < c1; t += w) { \
      w = MIN (c1 - t, EXTREME_TILE); \
      ahead = prefetch_rows_ahead (w * sizeof (gfloat), row_size); \
      for (c = 0; c < w; c++) \
        m[c] = (gfloat) v[t - c0 + c]; \
      for (i = 0; i < n_rows; i++) { \
        const gfloat *restrict x = (const gfloat *) (rows + i * row_size) \
            + t; \
        PREFETCH_ROW (x, w * sizeof (gfloat), row_size, ahead, i, \
            n_rows); \
        for (c = 0; c < w; c++) { \
          gfloat y = x[c]; \
          m[c] = !isnan (m[c]) && (TAKES || isnan (y)) ? y : m[c]; \
        } \
      } \
      for (c = 0; c < w; c++) \
        v[t - c0 + c] = (gdouble) m[c]; \
    } \
  }

DEFINE_COLUMN_ROWS_EXTREME_F32 (min, y < m[c]);
DEFINE_COLUMN_ROWS_EXTREME_F32 (max, y > m[c]);

static void
merge_dd_count (const PlanReducer * r, Acc * a, const Acc * b)
{
  prk_dd_add (a, b->v.f, b->lo);
  a->index += b->index;
}

/* Moments: the steps of planreducer-steps.h (prk_moments_*) in the lane
 * loops, the block in cache for its two passes. With @NAN_SKIP, NaNs are
 * left out (nanvar). */
#define DEFINE_BLOCK_MOMENTS(name, T, K, NAN_SKIP, tag) \
  static void BLOCK_CLONES \
  block_##tag##_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    gdouble sum[LANES] = { 0 }, s1[LANES] = { 0 }, s2[LANES] = { 0 }; \
    prk_u64 cnt[LANES] = { 0 }, count = 0; \
    gdouble m; \
    guint k; \
    LANE_LOOP (0, n, \
        gdouble v = (gdouble) LOAD_##K (x[i]); \
        gboolean ok = !(NAN_SKIP) || v == v; \
        prk_moments_sum_step (&sum[l], &cnt[l], v, ok)); \
    for (k = 0; k < LANES; k++) \
      count += cnt[k]; \
    if (count == 0) { \
      memset (out, 0, sizeof (*out)); \
      return; \
    } \
    m = prk_moments_mean (sum, count); \
    if (!isfinite (m)) { \
      gdouble scaled[LANES] = { 0 }; \
      LANE_LOOP (0, n, \
          gdouble v = (gdouble) LOAD_##K (x[i]); \
          gboolean ok = !(NAN_SKIP) || v == v; \
          prk_moments_scaled_step (&scaled[l], v, ok)); \
      m = prk_moments_scaled_mean (scaled, count); \
    } \
    LANE_LOOP (0, n, \
        gdouble v = (gdouble) LOAD_##K (x[i]); \
        gboolean ok = !(NAN_SKIP) || v == v; \
        prk_moments_dev_step (&s1[l], &s2[l], v, m, ok)); \
    prk_moments_block_end (s1, s2, count, m, out); \
  } \
  static void \
  column_##tag##_##name (PlanReducer * r, Acc * cols, gsize c0, \
      gsize c1, gconstpointer row, guint64 row_index, gpointer scratch) \
  { \
    const T *x = row; \
    gsize c; \
    for (c = c0; c < c1; c++) { \
      gdouble v = (gdouble) LOAD_##K (x[c]); \
      if (!(NAN_SKIP) || v == v) \
        prk_moments_column_step (&cols[c], v); \
    } \
  }

MERGE_FUNC (merge_moments, prk_merge_moments (a, b));

/* count_nonzero (NaN is not zero, -0.0 is) and ptp (max - min in the
 * dtype, with wrap-around for integers as numpy's; NaN if any is NaN). */
#define DEFINE_COUNT_PTP(name, T, K, MINV, MAXV) \
  static void BLOCK_CLONES \
  block_nonzero_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    guint64 lane[LANES] = { 0 }, s = 0; \
    guint k; \
    LANE_LOOP (0, n, lane[l] += (x[i] != 0)); \
    for (k = 0; k < LANES; k++) \
      s += lane[k]; \
    out->v.u = s; \
  } \
  static void \
  column_nonzero_##name (PlanReducer * r, Acc * cols, gsize c0, \
      gsize c1, gconstpointer row, guint64 row_index, gpointer scratch) \
  { \
    const T *x = row; \
    gsize c; \
    for (c = c0; c < c1; c++) \
      cols[c].v.u += (x[c] != 0); \
  } \
  static void BLOCK_CLONES \
  block_ptp_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    T mx[LANES], mn[LANES]; \
    Acc a; \
    guint k; \
    for (k = 0; k < LANES; k++) { \
      mx[k] = MINV; \
      mn[k] = MAXV; \
    } \
    LANE_LOOP (0, n, T v = LOAD_##K (x[i]); MAX_STEP_##K (mx[l], v); \
        MIN_STEP_##K (mn[l], v)); \
    VAL_##K (out) = mx[0]; \
    WVAL_##K (out) = mn[0]; \
    for (k = 1; k < LANES; k++) { \
      VAL_##K (&a) = mx[k]; \
      WVAL_##K (&a) = mn[k]; \
      MERGE_PTP_##K (out, &a); \
    } \
  } \
  static void \
  column_ptp_##name (PlanReducer * r, Acc * cols, gsize c0, \
      gsize c1, gconstpointer row, guint64 row_index, gpointer scratch) \
  { \
    const T *x = row; \
    gsize c; \
    Acc a; \
    for (c = c0; c < c1; c++) { \
      VAL_##K (&a) = LOAD_##K (x[c]); \
      WVAL_##K (&a) = LOAD_##K (x[c]); \
      r->merge (r, &cols[c], &a); \
    } \
  }

#define DEFINE_MOMENTS_AND_COUNTS(name, T, K, MINV, MAXV) \
  DEFINE_BLOCK_MOMENTS (name, T, K, FALSE, var) \
  DEFINE_BLOCK_MOMENTS (name, T, K, K_IS_F_##K, nanvar) \
  DEFINE_COUNT_PTP (name, T, K, MINV, MAXV)

#define K_IS_F_B 0
#define K_IS_F_S 0
#define K_IS_F_U 0
#define K_IS_F_F 1

DEFINE_MOMENTS_AND_COUNTS (boolean, guint8, B, 0, 1);
DEFINE_MOMENTS_AND_COUNTS (int8, gint8, S, G_MININT8, G_MAXINT8);
DEFINE_MOMENTS_AND_COUNTS (uint8, guint8, U, 0, G_MAXUINT8);
DEFINE_MOMENTS_AND_COUNTS (int16, gint16, S, G_MININT16, G_MAXINT16);
DEFINE_MOMENTS_AND_COUNTS (uint16, guint16, U, 0, G_MAXUINT16);
DEFINE_MOMENTS_AND_COUNTS (int32, gint32, S, G_MININT32, G_MAXINT32);
DEFINE_MOMENTS_AND_COUNTS (uint32, guint32, U, 0, G_MAXUINT32);
DEFINE_MOMENTS_AND_COUNTS (int64, gint64, S, G_MININT64, G_MAXINT64);
DEFINE_MOMENTS_AND_COUNTS (uint64, guint64, U, 0, G_MAXUINT64);
DEFINE_MOMENTS_AND_COUNTS (float32, gfloat, F, -INFINITY, INFINITY);
DEFINE_MOMENTS_AND_COUNTS (float64, gdouble, F, -INFINITY, INFINITY);

/* Kernel tables, indexed by input dtype ---------------------------------- */

#define ENTRIES(prefix) { NULL, prefix##boolean, prefix##int8, \
    prefix##uint8, prefix##int16, prefix##uint16, prefix##int32, \
    prefix##uint32, prefix##int64, prefix##uint64, prefix##float32, \
    prefix##float64 }

/* Integer-only tables have no float entries. */
#define INTEGER_ENTRIES(prefix) { NULL, prefix##boolean, prefix##int8, \
    prefix##uint8, prefix##int16, prefix##uint16, prefix##int32, \
    prefix##uint32, prefix##int64, prefix##uint64, NULL, NULL }

static const BlockFunc isum_blocks[PLAN_DTYPE_N] =
INTEGER_ENTRIES (block_isum_);
static const BlockFunc iprod_blocks[PLAN_DTYPE_N] =
INTEGER_ENTRIES (block_iprod_);
static const BlockFunc dsum_blocks[PLAN_DTYPE_N] = ENTRIES (block_dsum_);
static const BlockFunc ksum_blocks[PLAN_DTYPE_N] = ENTRIES (block_ksum_);
static const BlockFunc fprod_blocks[PLAN_DTYPE_N] = ENTRIES (block_fprod_);
static const BlockFunc min_blocks[PLAN_DTYPE_N] = ENTRIES (block_min_);
static const BlockFunc max_blocks[PLAN_DTYPE_N] = ENTRIES (block_max_);
static const BlockFunc argmin_blocks[PLAN_DTYPE_N] = ENTRIES (block_argmin_);
static const BlockFunc argmax_blocks[PLAN_DTYPE_N] = ENTRIES (block_argmax_);
static const BlockFunc any_blocks[PLAN_DTYPE_N] = ENTRIES (block_any_);
static const BlockFunc all_blocks[PLAN_DTYPE_N] = ENTRIES (block_all_);

static const ColumnFunc isum_columns[PLAN_DTYPE_N] =
INTEGER_ENTRIES (column_isum_);
static const ColumnFunc iprod_columns[PLAN_DTYPE_N] =
INTEGER_ENTRIES (column_iprod_);
static const ColumnFunc fprod_columns[PLAN_DTYPE_N] = ENTRIES (column_fprod_);
static const ColumnFunc ksum_columns[PLAN_DTYPE_N] = ENTRIES (column_ksum_);
static const ColumnFunc merge_columns[PLAN_DTYPE_N] = ENTRIES (column_merge_);
static const ColumnFunc arg_columns[PLAN_DTYPE_N] = ENTRIES (column_arg_);
static const ColumnFunc any_columns[PLAN_DTYPE_N] = ENTRIES (column_any_);
static const ColumnFunc all_columns[PLAN_DTYPE_N] = ENTRIES (column_all_);

/* Float-only tables (the nan ops of integers are the plain ops). */
#define FLOAT_ENTRIES(prefix) { NULL, NULL, NULL, NULL, NULL, NULL, NULL, \
    NULL, NULL, NULL, prefix##float32, prefix##float64 }

static const BlockFunc nandsum_blocks[PLAN_DTYPE_N] =
FLOAT_ENTRIES (block_nandsum_);
static const BlockFunc nanksum_blocks[PLAN_DTYPE_N] =
FLOAT_ENTRIES (block_nanksum_);
static const BlockFunc nanfprod_blocks[PLAN_DTYPE_N] =
FLOAT_ENTRIES (block_nanfprod_);
static const BlockFunc nanmean_blocks[PLAN_DTYPE_N] =
FLOAT_ENTRIES (block_nanmean_);
static const BlockFunc nanmin_blocks[PLAN_DTYPE_N] =
FLOAT_ENTRIES (block_nanmin_);
static const BlockFunc nanmax_blocks[PLAN_DTYPE_N] =
FLOAT_ENTRIES (block_nanmax_);
static const BlockFunc nanargmin_blocks[PLAN_DTYPE_N] =
FLOAT_ENTRIES (block_nanargmin_);
static const BlockFunc nanargmax_blocks[PLAN_DTYPE_N] =
FLOAT_ENTRIES (block_nanargmax_);
static const ColumnFunc nanksum_columns[PLAN_DTYPE_N] =
FLOAT_ENTRIES (column_nanksum_);
static const ColumnFunc nanfprod_columns[PLAN_DTYPE_N] =
FLOAT_ENTRIES (column_nanfprod_);
static const ColumnFunc nanmerge_columns[PLAN_DTYPE_N] =
FLOAT_ENTRIES (column_nanmerge_);

static const ColumnRowsFunc ksum_rows[PLAN_DTYPE_N] = ENTRIES (rows_ksum_);
static const ColumnFunc dsum_columns[PLAN_DTYPE_N] = ENTRIES (column_dsum_);
static const ColumnRowsFunc dsum_rows[PLAN_DTYPE_N] = ENTRIES (rows_dsum_);
static const ColumnRowsFunc fprod_rows[PLAN_DTYPE_N] = ENTRIES (rows_fprod_);
static const ColumnRowsFunc min_rows[PLAN_DTYPE_N] = FLOAT_ENTRIES (rows_min_);
static const ColumnRowsFunc max_rows[PLAN_DTYPE_N] = FLOAT_ENTRIES (rows_max_);

static const BlockFunc var_blocks[PLAN_DTYPE_N] = ENTRIES (block_var_);
static const BlockFunc nanvar_blocks[PLAN_DTYPE_N] = ENTRIES (block_nanvar_);
static const ColumnFunc var_columns[PLAN_DTYPE_N] = ENTRIES (column_var_);
static const ColumnFunc nanvar_columns[PLAN_DTYPE_N] =
ENTRIES (column_nanvar_);
static const BlockFunc nonzero_blocks[PLAN_DTYPE_N] =
ENTRIES (block_nonzero_);
static const ColumnFunc nonzero_columns[PLAN_DTYPE_N] =
ENTRIES (column_nonzero_);
static const BlockFunc ptp_blocks[PLAN_DTYPE_N] = ENTRIES (block_ptp_);
static const ColumnFunc ptp_columns[PLAN_DTYPE_N] = ENTRIES (column_ptp_);

/* Sums and means: integer sums wrap in 64 bits; float sums and every mean
 * are compensated float64 sums. */
static void
select_sum (PlanReducer * r, PlanDType dt)
{
  if (r->op == PLAN_REDUCE_OP_SUM && !plan_dtype_is_float (dt)) {
    r->block = isum_blocks[dt];
    r->merge = merge_add_u64;
    r->column = isum_columns[dt];
    return;
  }
  if (_plan_reducer_needs_compensation (dt)) {
    r->block = ksum_blocks[dt];
    r->column = ksum_columns[dt];
    r->column_rows = ksum_rows[dt];
  } else {
    r->block = dsum_blocks[dt];
    r->column = dsum_columns[dt];
    r->column_rows = dsum_rows[dt];
  }
  r->merge = _plan_reducer_merge_dd;
}

static void
select_prod (PlanReducer * r, PlanDType dt)
{
  if (plan_dtype_is_float (dt)) {
    r->block = fprod_blocks[dt];
    r->merge = merge_mul_f;
    r->column = fprod_columns[dt];
    r->column_rows = fprod_rows[dt];
    r->identity.v.f = 1.0;
  } else {
    r->block = iprod_blocks[dt];
    r->merge = merge_mul_u64;
    r->column = iprod_columns[dt];
    r->identity.v.u = 1;
  }
}

/* min, max, argmin, argmax: merges by kind (B, S, U, F), and an identity
 * at the far end of the kind's range. */
static void
select_extreme (PlanReducer * r, PlanDType dt)
{
  static const MergeFunc min_merges[] = { merge_min_U, merge_min_S,
    merge_min_U, _plan_reducer_merge_min_f
  };
  static const MergeFunc max_merges[] = { merge_max_U, merge_max_S,
    merge_max_U, _plan_reducer_merge_max_f
  };
  static const MergeFunc argmin_merges[] = { merge_argmin_U, merge_argmin_S,
    merge_argmin_U, merge_argmin_f
  };
  static const MergeFunc argmax_merges[] = { merge_argmax_U, merge_argmax_S,
    merge_argmax_U, merge_argmax_f
  };
  gboolean is_min = r->op == PLAN_REDUCE_OP_MIN
      || r->op == PLAN_REDUCE_OP_ARGMIN;
  gboolean is_arg = r->op == PLAN_REDUCE_OP_ARGMIN
      || r->op == PLAN_REDUCE_OP_ARGMAX;
  Kind kind = _plan_reducer_dtype_kind (dt);

  if (is_arg) {
    r->merge = is_min ? argmin_merges[kind] : argmax_merges[kind];
    r->block = is_min ? argmin_blocks[dt] : argmax_blocks[dt];
    r->column = arg_columns[dt];
  } else {
    r->merge = is_min ? min_merges[kind] : max_merges[kind];
    r->block = is_min ? min_blocks[dt] : max_blocks[dt];
    r->column = merge_columns[dt];
    r->column_rows = is_min ? min_rows[dt] : max_rows[dt];
  }
  if (kind == KIND_F)
    r->identity.v.f = is_min ? INFINITY : -INFINITY;
  else if (kind == KIND_S)
    r->identity.v.i = is_min ? G_MAXINT64 : G_MININT64;
  else
    r->identity.v.u = is_min ? G_MAXUINT64 : 0;
}

/* The nan ops of floats (of integers and bools they are the plain ops,
 * picked by the caller). */
static void
select_nan (PlanReducer * r, PlanDType dt)
{
  gboolean is_f32 = dt == PLAN_DTYPE_FLOAT32;

  switch (r->op) {
    case PLAN_REDUCE_OP_NANSUM:
      r->block = is_f32 ? nandsum_blocks[dt] : nanksum_blocks[dt];
      r->merge = _plan_reducer_merge_dd;
      r->column = nanksum_columns[dt];
      break;
    case PLAN_REDUCE_OP_NANPROD:
      r->block = nanfprod_blocks[dt];
      r->merge = merge_mul_f;
      r->column = nanfprod_columns[dt];
      r->identity.v.f = 1.0;
      break;
    case PLAN_REDUCE_OP_NANMEAN:
      r->block = nanmean_blocks[dt];
      r->merge = merge_dd_count;
      r->column = nanksum_columns[dt];
      break;
    case PLAN_REDUCE_OP_NANMIN:
    case PLAN_REDUCE_OP_NANMAX:{
      gboolean is_min = r->op == PLAN_REDUCE_OP_NANMIN;

      r->block = is_min ? nanmin_blocks[dt] : nanmax_blocks[dt];
      r->merge = is_min ? merge_nanmin : merge_nanmax;
      r->column = nanmerge_columns[dt];
      r->identity.v.f = is_min ? INFINITY : -INFINITY;
      break;
    }
    default:{
      gboolean is_min = r->op == PLAN_REDUCE_OP_NANARGMIN;

      r->block = is_min ? nanargmin_blocks[dt] : nanargmax_blocks[dt];
      r->merge = is_min ? merge_nanargmin : merge_nanargmax;
      r->column = nanmerge_columns[dt];
      r->identity.v.f = is_min ? INFINITY : -INFINITY;
      r->identity.index = r->identity.w.u = G_MAXUINT64;
      r->nan_arg = TRUE;
      break;
    }
  }
}

/* var, std, nanvar, nanstd. */
static void
select_moments (PlanReducer * r, PlanDType dt)
{
  gboolean nan = r->op == PLAN_REDUCE_OP_NANVAR
      || r->op == PLAN_REDUCE_OP_NANSTD;

  r->block = nan ? nanvar_blocks[dt] : var_blocks[dt];
  r->merge = merge_moments;
  r->column = nan ? nanvar_columns[dt] : var_columns[dt];
}

static void
select_ptp (PlanReducer * r, PlanDType dt)
{
  static const MergeFunc merges[] = { merge_ptp_U, merge_ptp_S,
    merge_ptp_U, merge_ptp_f
  };
  Kind kind = _plan_reducer_dtype_kind (dt);

  r->block = ptp_blocks[dt];
  r->merge = merges[kind];
  r->column = ptp_columns[dt];
  if (kind == KIND_F) {
    r->identity.v.f = -INFINITY;
    r->identity.w.f = INFINITY;
  } else if (kind == KIND_S) {
    r->identity.v.i = G_MININT64;
    r->identity.w.i = G_MAXINT64;
  } else {
    r->identity.v.u = 0;
    r->identity.w.u = G_MAXUINT64;
  }
}

/* Complex sums and means over many rows: column_csum's steps on the
 * real and imaginary parts alike, those of the real sums of the parts'
 * dtype, DSUM for complex64's float32 parts and KSUM for complex128's
 * float64 ones (as the device's steps choose). Their column loops run on
 * the parts as the columns of a real row twice as wide
 * (_plan_reducer_column_parts()), each column's steps in the same order
 * and keeping the same NaN, so the bits are column_csum's. */
static void
select_complex_sum_rows (PlanReducer * r, PlanDType dt)
{
  r->column_rows = dt == PLAN_DTYPE_COMPLEX64 ? rows_dsum_complex64
      : ksum_rows[PLAN_DTYPE_FLOAT64];
}

/* Picks the functions of a built-in op for the input dtype, and its
 * identity. */
void
_plan_reducer_select_builtin (PlanReducer * r)
{
  PlanDType dt = r->input.dtype;
  PlanReduceOp op = r->op;

  memset (&r->identity, 0, sizeof (r->identity));
  if (plan_dtype_is_complex (dt)) {
    _plan_reducer_select_complex (r);
    if (op == PLAN_REDUCE_OP_SUM || op == PLAN_REDUCE_OP_MEAN)
      select_complex_sum_rows (r, dt);
    return;
  }
  if (dt == PLAN_DTYPE_FLOAT16) {
    _plan_reducer_select_float16 (r);
    return;
  }
  if (_plan_reducer_plain_op (op) != op) {
    if (plan_dtype_is_float (dt)) {
      select_nan (r, dt);
      return;
    }
    /* The plain op's functions test r->op: run as it. */
    r->op = _plan_reducer_plain_op (op);
    _plan_reducer_select_builtin (r);
    r->op = op;
    return;
  }
  switch (r->op) {
    case PLAN_REDUCE_OP_VAR:
    case PLAN_REDUCE_OP_STD:
    case PLAN_REDUCE_OP_NANVAR:
    case PLAN_REDUCE_OP_NANSTD:
      select_moments (r, dt);
      break;
    case PLAN_REDUCE_OP_COUNT_NONZERO:
      r->block = nonzero_blocks[dt];
      r->merge = merge_add_u64;
      r->column = nonzero_columns[dt];
      break;
    case PLAN_REDUCE_OP_PTP:
      select_ptp (r, dt);
      break;
    default:
      break;
  }
  switch (r->op) {
    case PLAN_REDUCE_OP_SUM:
    case PLAN_REDUCE_OP_MEAN:
      select_sum (r, dt);
      break;
    case PLAN_REDUCE_OP_PROD:
      select_prod (r, dt);
      break;
    case PLAN_REDUCE_OP_MIN:
    case PLAN_REDUCE_OP_MAX:
    case PLAN_REDUCE_OP_ARGMIN:
    case PLAN_REDUCE_OP_ARGMAX:
      select_extreme (r, dt);
      break;
    case PLAN_REDUCE_OP_ANY:
      r->block = any_blocks[dt];
      r->merge = merge_or;
      r->column = any_columns[dt];
      break;
    case PLAN_REDUCE_OP_ALL:
      r->block = all_blocks[dt];
      r->merge = merge_and;
      r->column = all_columns[dt];
      r->identity.v.u = 1;
      break;
    default:
      break;
  }
}
