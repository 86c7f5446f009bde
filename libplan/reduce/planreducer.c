/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planreducer
 * @title: PlanReducer
 * @short_description: exact, reproducible reductions of array streams
 *
 * A #PlanReducer reduces a stream of rows, given in chunks of any size, to
 * one value (#PLAN_REDUCE_AXIS_ALL), to one value per column
 * (#PLAN_REDUCE_AXIS_ROWS) or to one value per row
 * (#PLAN_REDUCE_AXIS_INNER). It computes numpy's sum, prod, min, max, mean,
 * argmin, argmax, any, all, their nan versions (nansum ... nanargmax), var,
 * std, nanvar, nanstd (with a ddof), count_nonzero and ptp with numpy's
 * result dtypes and NaN rules, or
 * folds a binary combiner written in the expression language with an
 * identity (plan_reducer_new_custom()). planreduce is a thin element around
 * it; stencil and custom elements, and third parties, use it the same way:
 *
 * |[<!-- language="C" -->
 * PlanReducer *r = plan_reducer_new (PLAN_REDUCE_OP_SUM,
 *     PLAN_REDUCE_AXIS_ALL, &input_info, &error);
 * plan_reducer_set_n_threads (r, 0);
 * for (each chunk)
 *   plan_reducer_push (r, chunk_data, chunk_rows, NULL, NULL);
 * if (!plan_reducer_finish (r, &result, &error))
 *   ... an empty stream for an op without identity ...
 * plan_reducer_unref (r);
 * ]|
 *
 * The result is bit-identical whatever the chunk sizes and the number of
 * threads. The order of the floating-point operations is fixed by global
 * element indices, never by chunk boundaries:
 *
 * - elements are cut into blocks of #PLAN_REDUCER_BLOCK_SIZE starting at
 *   multiples of it (a chunk that ends inside a block is staged until the
 *   block is complete);
 * - a block is reduced in #PLAN_REDUCER_LANES lanes, element i going to
 *   lane i % #PLAN_REDUCER_LANES, and the lanes are combined in lane order;
 * - block results are merged pairwise by a binary counter on the block
 *   index (two results of the same level merge into one of the next level),
 *   and at the end the partial last block and the pending results are
 *   folded from the most recent to the oldest.
 *
 * Worker threads reduce whole blocks; the caller's thread merges their
 * results in block order. Floating-point sums are compensated: float32 and
 * the small integer types are summed in float64 lanes, float64 and 64-bit
 * integers (for mean) in float64 lanes compensated with TwoSum, and block
 * results are merged as double-double numbers, so that a sum is far more
 * accurate than numpy's pairwise sum. Variances are reduced per block in two
 * passes (the corrected two-pass algorithm) and merged with Chan's update in
 * the same tree. With #PLAN_REDUCE_AXIS_ROWS each column is cut into
 * blocks of rows (#PLAN_REDUCER_BLOCK_SIZE * 32 elements a block, at
 * least 64 rows, from row 0), accumulated row by row within a block
 * (compensated for floats), and a column's block results are merged by
 * the same binary counter, threads taking columns; with #PLAN_REDUCE_AXIS_INNER each row is
 * reduced by the same block tree as a whole stream, threads taking rows.
 *
 * docs/planreduce.md describes the design and the result dtypes.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planreducer.h"
#include "libplan/core/plan-testing.h"
#include <libplan/planerror.h>
#include <libplan/planexpr.h>
#include <libplan/planparallel.h>
#include <libplan/planarray.h>

#include <math.h>
#include <string.h>

#define LANES PLAN_REDUCER_LANES
#define BLOCK PLAN_REDUCER_BLOCK_SIZE
/* Enough levels for 2^64 blocks; a run that starts inside the stream (a
 * shard) may hold two nodes of each level. */
#define MAX_LEVELS 64
#define STACK_SIZE (2 * MAX_LEVELS)
/* Blocks per task of the worker threads: 512 Ki elements. The block loops
 * outrun reading (tens of GB/s a core), so workers only pay when a chunk is
 * large; with smaller chunks waking one would cost more than it saves, and
 * take the core that reads the file. */
#define BLOCK_GRAIN 256
/* Columns per task with PLAN_REDUCE_AXIS_ROWS. */
#define COLUMN_GRAIN 1024
/* Rows of a column block with PLAN_REDUCE_AXIS_ROWS: COLUMN_BLOCK elements
 * of the row's columns, and at least COLUMN_BLOCK_ROWS rows (a block's end
 * costs a merge a column). */
#define COLUMN_BLOCK (32 * BLOCK)
#define COLUMN_BLOCK_ROWS 64

/* One value of any result or accumulator dtype; custom combiners keep the
 * raw bytes of their dtype at the start. */
typedef union
{
  gdouble f;
  gint64 i;
  guint64 u;
  guint8 raw[8];
} Value;

/* A partial result: the value (the high part of a double-double sum), the
 * low part of a sum, and the index of an argmin/argmax; for the moments
 * the mean, M2 and the count (see DEFINE_BLOCK_MOMENTS). */
typedef struct
{
  Value v;
  gdouble lo;
  guint64 index;
  Value w;                      /* ptp: the minimum (v is the maximum) */
} Acc;

/* Reduces @n (1 .. BLOCK) contiguous elements whose first has index @base. */
typedef void (*BlockFunc) (const PlanReducer * r, gconstpointer in, gsize n,
    guint64 base, Acc * out, gpointer scratch);
/* a = a (+) b, where a holds earlier elements than b, or lanes. */
typedef void (*MergeFunc) (const PlanReducer * r, Acc * a, const Acc * b);
/* Folds one row into the accumulators @cols of columns [c0, c1). */
typedef void (*ColumnFunc) (PlanReducer * r, Acc * cols, gsize c0, gsize c1,
    gconstpointer row, guint64 row_index, gpointer scratch);
/* Folds @n_rows rows, @row_size bytes apart, into the fields v.f and lo
 * of the accumulators of columns [c0, c1), each field an array. */
typedef void (*ColumnRowsFunc) (gdouble * restrict v, gdouble * restrict lo,
    const guint8 * rows, gsize n_rows, gsize row_size, gsize c0, gsize c1);
/* Writes the result of @a, over @count elements, in the result dtype. */
typedef void (*FinalFunc) (const PlanReducer * r, const Acc * a, guint64 count, gpointer out);

struct _PlanReducer
{
  gint ref_count;

  /* construct-only, no lock */
  gboolean custom;
  PlanReduceOp op;
  PlanReduceAxis axis;          /* as asked */
  PlanReduceAxis mode;          /* as run: ROWS on 0-d and 1-D input is ALL */
  gchar *name;
  PlanArrayInfo input;
  PlanArrayInfo output;
  gsize in_size;                /* bytes per input element */
  gsize acc_size;               /* bytes per element of a custom combiner */
  gsize out_size;               /* bytes per result element */
  gsize row_elements;
  BlockFunc block;
  MergeFunc merge;
  ColumnFunc column;
  ColumnRowsFunc column_rows;   /* the column function over many rows, or
                                 * NULL */
  FinalFunc final;
  Acc identity;
  gdouble ddof;                 /* var, std, nanvar, nanstd */
  gboolean nan_arg;             /* nanargmin, nanargmax: an all-NaN slice
                                 * is an error */
  PlanExpr *combiner;           /* custom: f(x, y) in the accumulator dtype */
  PlanExpr *cast;               /* custom: input to accumulator dtype, or NULL */

  /* caller's thread only (the streaming thread of an element) */
  guint n_threads;
  guint64 n_rows;
  guint64 n_blocks;             /* the global index of the next block
                                 * (mode ALL) */
  guint8 *staging;              /* [BLOCK] input elements (mode ALL) */
  gsize staged;
  gpointer scratch;             /* for blocks reduced on this thread */
  Acc stack[STACK_SIZE];
  guint levels[STACK_SIZE];
  guint64 starts[STACK_SIZE];   /* the first block of each node */
  guint depth;
  /* A shard of a longer stream (plan_reducer_set_origin()): the current
   * run of rows starts at global row run_first; it keeps the elements
   * (mode ALL) or rows (mode ROWS) before its first whole block raw in
   * head. Runs before the current one are serialized in runs. */
  guint64 next_row;             /* global index of the next row */
  guint64 run_first;
  guint64 run_rows;
  guint8 *head;                 /* [BLOCK] */
  gsize head_len;
  gsize head_want;
  GByteArray *runs;
  guint n_runs;
  Acc *results;                 /* block results of one chunk */
  gsize results_len;
  /* Mode ROWS: the open block of each column, and the columns' trees,
   * whose shape (one for all columns) is in levels, starts and depth. */
  gsize col_rows;               /* rows per column block */
  Acc *cols;                    /* [row_elements] */
  guint8 *cols_raw;             /* custom: [row_elements] accumulator dtype */
  Acc *col_nodes;               /* [col_slots][row_elements] */
  guint col_slots;
};

G_DEFINE_BOXED_TYPE (PlanReducer, plan_reducer, plan_reducer_ref,
    plan_reducer_unref);

GType
plan_reduce_op_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {PLAN_REDUCE_OP_SUM, "Sum", "sum"},
    {PLAN_REDUCE_OP_PROD, "Product", "prod"},
    {PLAN_REDUCE_OP_MIN, "Minimum (NaN if any is NaN)", "min"},
    {PLAN_REDUCE_OP_MAX, "Maximum (NaN if any is NaN)", "max"},
    {PLAN_REDUCE_OP_MEAN, "Arithmetic mean", "mean"},
    {PLAN_REDUCE_OP_ARGMIN, "Index of the first minimum", "argmin"},
    {PLAN_REDUCE_OP_ARGMAX, "Index of the first maximum", "argmax"},
    {PLAN_REDUCE_OP_ANY, "Whether any value is non-zero", "any"},
    {PLAN_REDUCE_OP_ALL, "Whether every value is non-zero", "all"},
    {PLAN_REDUCE_OP_NANSUM, "Sum, NaN counting as zero", "nansum"},
    {PLAN_REDUCE_OP_NANPROD, "Product, NaN counting as one", "nanprod"},
    {PLAN_REDUCE_OP_NANMIN, "Minimum ignoring NaN", "nanmin"},
    {PLAN_REDUCE_OP_NANMAX, "Maximum ignoring NaN", "nanmax"},
    {PLAN_REDUCE_OP_NANMEAN, "Mean ignoring NaN", "nanmean"},
    {PLAN_REDUCE_OP_NANARGMIN, "Index of the first minimum ignoring NaN",
        "nanargmin"},
    {PLAN_REDUCE_OP_NANARGMAX, "Index of the first maximum ignoring NaN",
        "nanargmax"},
    {PLAN_REDUCE_OP_VAR, "Variance (with ddof)", "var"},
    {PLAN_REDUCE_OP_STD, "Standard deviation (with ddof)", "std"},
    {PLAN_REDUCE_OP_NANVAR, "Variance ignoring NaN (with ddof)", "nanvar"},
    {PLAN_REDUCE_OP_NANSTD, "Standard deviation ignoring NaN (with ddof)",
        "nanstd"},
    {PLAN_REDUCE_OP_COUNT_NONZERO, "Number of non-zero values",
        "count_nonzero"},
    {PLAN_REDUCE_OP_PTP, "Maximum minus minimum (peak to peak)", "ptp"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("PlanReduceOp", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* Strings to an axis by name or nick only: a number that is no nick
 * ("1", "2") is refused, where GStreamer's conversion of enums would read
 * it as a value. */
static gboolean
axis_deserialize (GValue * dest, const gchar * s)
{
  GEnumClass *klass = g_type_class_ref (G_VALUE_TYPE (dest));
  GEnumValue *v = g_enum_get_value_by_name (klass, s);

  if (v == NULL)
    v = g_enum_get_value_by_nick (klass, s);
  if (v)
    g_value_set_enum (dest, v->value);
  g_type_class_unref (klass);
  return v != NULL;
}

static gchar *
axis_serialize (const GValue * value)
{
  GEnumClass *klass = g_type_class_ref (G_VALUE_TYPE (value));
  GEnumValue *v = g_enum_get_value (klass, g_value_get_enum (value));
  gchar *s = g_strdup (v ? v->value_nick : NULL);

  g_type_class_unref (klass);
  return s;
}

static gint
axis_compare (const GValue * a, const GValue * b)
{
  gint x = g_value_get_enum (a), y = g_value_get_enum (b);

  return x < y ? GST_VALUE_LESS_THAN : x > y ? GST_VALUE_GREATER_THAN :
      GST_VALUE_EQUAL;
}

GType
plan_reduce_axis_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {PLAN_REDUCE_AXIS_ALL, "Everything, to one value", "all"},
    {PLAN_REDUCE_AXIS_ROWS, "Along the rows: one value per column", "0"},
    {PLAN_REDUCE_AXIS_INNER, "Within each row: one value per row", "-1"},
    {PLAN_REDUCE_AXIS_1, "Numpy's axis 1 of a 2-D stream: the same as -1",
        "1"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("PlanReduceAxis", values);

    /* GStreamer's value tables exist once it is initialized, as it is
     * for every element and launch line. */
    if (gst_is_initialized ()) {
      static GstValueTable table = {
        .compare = axis_compare,
        .serialize = axis_serialize,
        .deserialize = axis_deserialize,
      };

      table.type = t;
      gst_value_register (&table);
    }
    g_once_init_leave (&type, t);
  }
  return type;
}

/* The block loops are compiled for the widest vectors the CPU has (chosen
 * once, when the library loads). Every clone does the same IEEE operations
 * on the same lanes in the same order, and none contracts a multiply and
 * an add, so they give bit-identical results (build with
 * -DPLAN_REDUCER_NO_CLONES to compare). */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__has_attribute) \
    && !defined(PLAN_REDUCER_NO_CLONES)
#if __has_attribute (target_clones) && !defined(__clang__)
#define BLOCK_CLONES __attribute__ ((target_clones ("avx512f", "avx2", \
            "default")))
#elif __has_attribute (target_clones)
/* clang 14 fails to select some AVX-512 integer compares in these loops. */
#define BLOCK_CLONES __attribute__ ((target_clones ("avx2", "default")))
#endif
#endif
#ifndef BLOCK_CLONES
#define BLOCK_CLONES
#endif

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

/* Double-double addition, a += (bhi, blo). Infinities and NaNs make the
 * error terms meaningless, so they fall back to the plain sum. */
static inline void
dd_add (Acc * a, gdouble bhi, gdouble blo)
{
  gdouble s = a->v.f + bhi, bb, e, lo;

  if (!isfinite (s)) {
    a->v.f = s;
    a->lo = 0.0;
    return;
  }
  bb = s - a->v.f;
  e = (a->v.f - (s - bb)) + (bhi - bb);
  lo = e + (a->lo + blo);
  a->v.f = s + lo;
  a->lo = lo - (a->v.f - s);
}

/* Combines float64 lanes pairwise (16 -> 8 -> 4 -> 2 -> 1), a fixed order
 * whose levels vectorise; @v is overwritten. */
static inline void
lanes_sum (gdouble * v, Acc * out)
{
  guint w, l;

  for (w = LANES / 2; w > 0; w /= 2)
    for (l = 0; l < w; l++)
      v[l] = v[l] + v[l + w];
  out->v.f = v[0];
  out->lo = 0.0;
  out->index = 0;
}

/* The same with compensated lanes @s, @c: each pairwise addition's rounding
 * error (TwoSum) joins the compensations. Gives a double-double. */
static inline void
lanes_sum_compensated (gdouble * s, gdouble * c, Acc * out)
{
  guint w, l;

  for (w = LANES / 2; w > 0; w /= 2) {
    for (l = 0; l < w; l++) {
      gdouble a = s[l], b = s[l + w], t = a + b, z = t - a;

      c[l] = (c[l] + c[l + w]) + ((a - (t - z)) + (b - z));
      s[l] = t;
    }
  }
  out->v.f = s[0] + c[0];
  out->lo = c[0] - (out->v.f - s[0]);
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
merge_dd (const PlanReducer * r, Acc * a, const Acc * b)
{
  dd_add (a, b->v.f, b->lo);
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

/* The first NaN wins; otherwise the smaller (larger) value. */
static void
merge_min_f (const PlanReducer * r, Acc * a, const Acc * b)
{
  if (!isnan (a->v.f) && (b->v.f < a->v.f || isnan (b->v.f)))
    a->v.f = b->v.f;
}

static void
merge_max_f (const PlanReducer * r, Acc * a, const Acc * b)
{
  if (!isnan (a->v.f) && (b->v.f > a->v.f || isnan (b->v.f)))
    a->v.f = b->v.f;
}

#define DEFINE_MERGE_MINMAX_INT(K, field) \
  static void \
  merge_min_##K (const PlanReducer * r, Acc * a, const Acc * b) \
  { \
    if (b->v.field < a->v.field) \
      a->v.field = b->v.field; \
  } \
  static void \
  merge_max_##K (const PlanReducer * r, Acc * a, const Acc * b) \
  { \
    if (b->v.field > a->v.field) \
      a->v.field = b->v.field; \
  }

DEFINE_MERGE_MINMAX_INT (S, i);
DEFINE_MERGE_MINMAX_INT (U, u);

/* Arg merges see lanes as well as blocks, so equal values are decided by
 * the smaller index: the first occurrence, as numpy. */
static void
merge_argmin_f (const PlanReducer * r, Acc * a, const Acc * b)
{
  gboolean an = isnan (a->v.f), bn = isnan (b->v.f), take;

  if (an || bn)
    take = bn && (!an || b->index < a->index);
  else
    take = b->v.f < a->v.f || (b->v.f == a->v.f && b->index < a->index);
  if (take)
    *a = *b;
}

static void
merge_argmax_f (const PlanReducer * r, Acc * a, const Acc * b)
{
  gboolean an = isnan (a->v.f), bn = isnan (b->v.f), take;

  if (an || bn)
    take = bn && (!an || b->index < a->index);
  else
    take = b->v.f > a->v.f || (b->v.f == a->v.f && b->index < a->index);
  if (take)
    *a = *b;
}

#define DEFINE_MERGE_ARG_INT(K, field) \
  static void \
  merge_argmin_##K (const PlanReducer * r, Acc * a, const Acc * b) \
  { \
    if (b->v.field < a->v.field \
        || (b->v.field == a->v.field && b->index < a->index)) \
      *a = *b; \
  } \
  static void \
  merge_argmax_##K (const PlanReducer * r, Acc * a, const Acc * b) \
  { \
    if (b->v.field > a->v.field \
        || (b->v.field == a->v.field && b->index < a->index)) \
      *a = *b; \
  }

DEFINE_MERGE_ARG_INT (S, i);
DEFINE_MERGE_ARG_INT (U, u);

/* Block functions, per dtype ------------------------------------------- */

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
    LANE_LOOP (0, n, lane[l] += (gdouble) LOAD_##K (x[i])); \
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
        gdouble t = s[l] + v; \
        gdouble z = t - s[l]; \
        c[l] += (s[l] - (t - z)) + (v - z); \
        s[l] = t); \
    lanes_sum_compensated (s, c, out); \
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
#define MIN_STEP_F(m, x) ((m) = ((x) < (m) || (x) != (x)) ? (x) : (m))
#define MAX_STEP_F(m, x) ((m) = ((x) > (m) || (x) != (x)) ? (x) : (m))
#define MIN_STEP_S(m, x) ((m) = (x) < (m) ? (x) : (m))
#define MAX_STEP_S(m, x) ((m) = (x) > (m) ? (x) : (m))
#define MIN_STEP_U MIN_STEP_S
#define MAX_STEP_U MAX_STEP_S
#define MIN_STEP_B MIN_STEP_S
#define MAX_STEP_B MAX_STEP_S

#define DEFINE_BLOCK_MINMAX(name, T, K, MINV, MAXV) \
  static void BLOCK_CLONES \
  block_min_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    T lane[LANES]; \
    Acc a; \
    guint k; \
    for (k = 0; k < LANES; k++) \
      lane[k] = MAXV; \
    LANE_LOOP (0, n, T v = LOAD_##K (x[i]); MIN_STEP_##K (lane[l], v)); \
    VAL_##K (out) = lane[0]; \
    for (k = 1; k < LANES; k++) { \
      VAL_##K (&a) = lane[k]; \
      r->merge (r, out, &a); \
    } \
  } \
  static void BLOCK_CLONES \
  block_max_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    T lane[LANES]; \
    Acc a; \
    guint k; \
    for (k = 0; k < LANES; k++) \
      lane[k] = MINV; \
    LANE_LOOP (0, n, T v = LOAD_##K (x[i]); MAX_STEP_##K (lane[l], v)); \
    VAL_##K (out) = lane[0]; \
    for (k = 1; k < LANES; k++) { \
      VAL_##K (&a) = lane[k]; \
      r->merge (r, out, &a); \
    } \
  }

/* Argmin and argmax: a lane starts at its first element, takes strictly
 * better values (and a first NaN), so each lane keeps its first
 * occurrence; lanes are merged with ties going to the smaller index. */
#define ARG_TAKE_MIN_F(x, m) ((x) < (m) || ((x) != (x) && (m) == (m)))
#define ARG_TAKE_MAX_F(x, m) ((x) > (m) || ((x) != (x) && (m) == (m)))
#define ARG_TAKE_MIN_S(x, m) ((x) < (m))
#define ARG_TAKE_MAX_S(x, m) ((x) > (m))
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
      r->merge (r, out, &a); \
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
      gdouble t = a->v.f + v; \
      gdouble z = t - a->v.f; \
      a->lo += isfinite (t) ? (a->v.f - (t - z)) + (v - z) : 0.0; \
      a->v.f = t; \
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

#define DEFINE_FINAL_VALUE(name, T, K) \
  static void \
  final_value_##name (const PlanReducer * r, const Acc * a, guint64 count, gpointer out) \
  { \
    *(T *) out = (T) VAL_##K (a); \
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
  DEFINE_FINAL_VALUE (name, T, K)

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

/* The variance loops multiply and add; like every block loop they must
 * round each operation on its own, in every clone (a fused multiply-add
 * would change the bits between instruction sets). */
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
        gdouble t = s[l] + v; \
        gdouble z = t - s[l]; \
        c[l] += (s[l] - (t - z)) + (v - z); \
        s[l] = t); \
    lanes_sum_compensated (s, c, out); \
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
      r->merge (r, out, &a); \
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
      r->merge (r, out, &a); \
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
      gdouble t = a->v.f + v; \
      gdouble z = t - a->v.f; \
      a->lo += isfinite (t) ? (a->v.f - (t - z)) + (v - z) : 0.0; \
      a->v.f = t; \
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
      a.index = ok ? (r->op == PLAN_REDUCE_OP_NANARGMIN \
          || r->op == PLAN_REDUCE_OP_NANARGMAX ? row_index : 1) \
          : r->identity.index; \
      r->merge (r, &cols[c], &a); \
    } \
  }

/* nanargmin, nanargmax: a lane takes its first value that is not NaN and
 * then strictly better ones; a lane that saw only NaNs keeps the index
 * G_MAXUINT64 (none). */
#define DEFINE_BLOCK_NANARG(which, CMP, EMPTY, name, T) \
  static void BLOCK_CLONES \
  block_nanarg##which##_##name (const PlanReducer * r, gconstpointer in, \
      gsize n, guint64 base, Acc * out, gpointer scratch) \
  { \
    const T *x = in; \
    T lane[LANES]; \
    guint64 idx[LANES]; \
    Acc a; \
    guint k; \
    for (k = 0; k < LANES; k++) { \
      lane[k] = EMPTY; \
      idx[k] = G_MAXUINT64; \
    } \
    LANE_LOOP (0, n, \
        T v = x[i]; \
        gboolean take = (v CMP lane[l]) \
            || (v == v && idx[l] == G_MAXUINT64); \
        lane[l] = take ? v : lane[l]; \
        idx[l] = take ? base + i : idx[l]); \
    out->v.f = lane[0]; \
    out->index = idx[0]; \
    for (k = 1; k < LANES; k++) { \
      a.v.f = lane[k]; \
      a.index = idx[k]; \
      r->merge (r, out, &a); \
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
#if defined(__GNUC__) && !defined(__clang__)
#define VECTORIZE __attribute__ ((optimize ("tree-vectorize", \
            "vect-cost-model=dynamic")))
#else
#define VECTORIZE
#endif

/* A ColumnRowsFunc @fn running BODY for each row's x[c], c in [0, w). */
#define COLUMN_ROWS_FUNC(fn, T, BODY) \
  static void BLOCK_CLONES VECTORIZE \
  fn (gdouble * restrict v, gdouble * restrict lo, const guint8 * rows, \
      gsize n_rows, gsize row_size, gsize c0, gsize c1) \
  { \
    gsize i, c, w = c1 - c0; \
    for (i = 0; i < n_rows; i++) { \
      const T *restrict x = (const T *) (rows + i * row_size) + c0; \
      for (c = 0; c < w; c++) { \
        BODY; \
      } \
    } \
  }

#define DEFINE_COLUMN_ROWS(name, T, K) \
  COLUMN_ROWS_FUNC (rows_ksum_##name, T, \
      gdouble y = (gdouble) LOAD_##K (x[c]); \
      gdouble t = v[c] + y; \
      gdouble z = t - v[c]; \
      lo[c] += isfinite (t) ? (v[c] - (t - z)) + (y - z) : 0.0; \
      v[c] = t) \
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

static void
merge_dd_count (const PlanReducer * r, Acc * a, const Acc * b)
{
  dd_add (a, b->v.f, b->lo);
  a->index += b->index;
}

/* Values that are not NaN on both sides; index: whether any was seen. */
static void
merge_nanmin (const PlanReducer * r, Acc * a, const Acc * b)
{
  if (b->v.f < a->v.f)
    a->v.f = b->v.f;
  a->index |= b->index;
}

static void
merge_nanmax (const PlanReducer * r, Acc * a, const Acc * b)
{
  if (b->v.f > a->v.f)
    a->v.f = b->v.f;
  a->index |= b->index;
}

static void
merge_nanargmin (const PlanReducer * r, Acc * a, const Acc * b)
{
  if (b->index == G_MAXUINT64)
    return;
  if (a->index == G_MAXUINT64 || b->v.f < a->v.f
      || (b->v.f == a->v.f && b->index < a->index))
    *a = *b;
}

static void
merge_nanargmax (const PlanReducer * r, Acc * a, const Acc * b)
{
  if (b->index == G_MAXUINT64)
    return;
  if (a->index == G_MAXUINT64 || b->v.f > a->v.f
      || (b->v.f == a->v.f && b->index < a->index))
    *a = *b;
}

/* Moments: Acc.index is the count, v.f + w.f the mean as a double-double
 * number, and lo the sum of squared deviations from it (M2). A block is
 * reduced in two passes over the block, which is in cache: the mean m of
 * its float64 lane sums, then the deviations from m, whose sum S1 corrects
 * the mean (to m + S1/n, kept as the pair) and M2 (the corrected two-pass
 * algorithm); blocks are merged with Chan, Golub and LeVeque's pairwise
 * update, in the fixed tree of the sums. The mean's second word keeps the
 * differences of block means exact when the mean is large against the
 * spread (1e9 + N(0, 1) keeps 15 digits of its variance, where one word
 * would lose 6). With @NAN_SKIP, NaNs are left out (nanvar). */

/* a + b as a double-double (hi, lo), whatever their magnitudes. */
static inline void NO_CONTRACT
two_sum (gdouble a, gdouble b, gdouble * hi, gdouble * lo)
{
  gdouble s = a + b, bb = s - a;

  *lo = (a - (s - bb)) + (b - bb);
  *hi = s;
}
#define DEFINE_BLOCK_MOMENTS(name, T, K, NAN_SKIP, tag) \
  static void BLOCK_CLONES NO_CONTRACT \
  block_##tag##_##name (const PlanReducer * r, gconstpointer in, gsize n, \
      guint64 base, Acc * out, gpointer scratch) \
  { \
    NO_CONTRACT_BODY \
    const T *x = in; \
    gdouble sum[LANES] = { 0 }, s1[LANES] = { 0 }, s2[LANES] = { 0 }; \
    guint64 cnt[LANES] = { 0 }, count = 0; \
    gdouble m, S1, S2, nn; \
    Acc t; \
    guint k; \
    LANE_LOOP (0, n, \
        gdouble v = (gdouble) LOAD_##K (x[i]); \
        gboolean ok = !(NAN_SKIP) || v == v; \
        sum[l] += ok ? v : 0.0; \
        cnt[l] += ok); \
    for (k = 0; k < LANES; k++) \
      count += cnt[k]; \
    if (count == 0) { \
      memset (out, 0, sizeof (*out)); \
      return; \
    } \
    nn = (gdouble) count; \
    lanes_sum (sum, &t); \
    m = t.v.f / nn; \
    LANE_LOOP (0, n, \
        gdouble v = (gdouble) LOAD_##K (x[i]); \
        gboolean ok = !(NAN_SKIP) || v == v; \
        gdouble d = ok ? v - m : 0.0; \
        gdouble dd = d * d; \
        s1[l] += d; \
        s2[l] += dd); \
    lanes_sum (s1, &t); \
    S1 = t.v.f; \
    lanes_sum (s2, &t); \
    S2 = t.v.f; \
    out->index = count; \
    two_sum (m, S1 / nn, &out->v.f, &out->w.f); \
    if (!isfinite (out->v.f)) \
      out->w.f = 0; \
    out->lo = S2 - (S1 * S1) / nn; \
    if (out->lo < 0) \
      out->lo = 0; \
  } \
  static void NO_CONTRACT \
  column_##tag##_##name (PlanReducer * r, Acc * cols, gsize c0, \
      gsize c1, gconstpointer row, guint64 row_index, gpointer scratch) \
  { \
    NO_CONTRACT_BODY \
    const T *x = row; \
    gsize c; \
    for (c = c0; c < c1; c++) { \
      Acc *a = &cols[c]; \
      gdouble v = (gdouble) LOAD_##K (x[c]), d, e; \
      if ((NAN_SKIP) && v != v) \
        continue; \
      a->index++; \
      d = (v - a->v.f) - a->w.f; \
      two_sum (a->v.f, a->w.f + d / (gdouble) a->index, &a->v.f, &a->w.f); \
      if (!isfinite (a->v.f)) \
        a->w.f = 0; \
      e = d * ((v - a->v.f) - a->w.f); \
      a->lo += e; \
    } \
  }

/* Chan's merge; a holds the earlier elements. */
static void NO_CONTRACT
merge_moments (const PlanReducer * r, Acc * a, const Acc * b)
{
  NO_CONTRACT_BODY gdouble n, delta, f, g, h;

  if (b->index == 0)
    return;
  if (a->index == 0) {
    *a = *b;
    return;
  }
  n = (gdouble) (a->index + b->index);
  delta = (b->v.f - a->v.f) + (b->w.f - a->w.f);
  f = (gdouble) b->index / n;
  g = delta * f;
  two_sum (a->v.f, a->w.f + g, &a->v.f, &a->w.f);
  if (!isfinite (a->v.f))
    a->w.f = 0;
  h = delta * delta;
  h = h * ((gdouble) a->index * f);
  a->lo = (a->lo + b->lo) + h;
  a->index += b->index;
}

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
      r->merge (r, out, &a); \
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
  } \
  static void \
  final_ptp_##name (const PlanReducer * r, const Acc * a, guint64 count, \
      gpointer out) \
  { \
    *(T *) out = PTP_##K (T, a); \
  }

/* max - min in T: floats subtract in T (as numpy, rounded once); integers
 * wrap. */
#define PTP_F(T, a) ((T) ((T) (a)->v.f - (T) (a)->w.f))
#define PTP_S(T, a) ((T) ((guint64) (a)->v.i - (guint64) (a)->w.i))
#define PTP_U(T, a) ((T) ((a)->v.u - (a)->w.u))
#define PTP_B(T, a) ((T) ((a)->v.u - (a)->w.u))

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

#define DEFINE_MERGE_PTP_INT(K, field) \
  static void \
  merge_ptp_##K (const PlanReducer * r, Acc * a, const Acc * b) \
  { \
    if (b->v.field > a->v.field) \
      a->v.field = b->v.field; \
    if (b->w.field < a->w.field) \
      a->w.field = b->w.field; \
  }

DEFINE_MERGE_PTP_INT (S, i);
DEFINE_MERGE_PTP_INT (U, u);

static void
merge_ptp_f (const PlanReducer * r, Acc * a, const Acc * b)
{
  if (!isnan (a->v.f) && (b->v.f > a->v.f || isnan (b->v.f)))
    a->v.f = b->v.f;
  if (!isnan (a->w.f) && (b->w.f < a->w.f || isnan (b->w.f)))
    a->w.f = b->w.f;
}

/* Finals ---------------------------------------------------------------- */

static void
final_u64 (const PlanReducer * r, const Acc * a, guint64 count, gpointer out)
{
  *(guint64 *) out = a->v.u;
}

static void
final_sum_f32 (const PlanReducer * r, const Acc * a, guint64 count, gpointer out)
{
  *(gfloat *) out = (gfloat) (a->v.f + a->lo);
}

static void
final_sum_f64 (const PlanReducer * r, const Acc * a, guint64 count, gpointer out)
{
  *(gdouble *) out = a->v.f + a->lo;
}

/* The mean of nothing is 0 / 0, NaN, as numpy's (which also warns). */
static void
final_mean_f32 (const PlanReducer * r, const Acc * a, guint64 count, gpointer out)
{
  *(gfloat *) out = (gfloat) ((a->v.f + a->lo) / (gdouble) count);
}

static void
final_mean_f64 (const PlanReducer * r, const Acc * a, guint64 count, gpointer out)
{
  *(gdouble *) out = (a->v.f + a->lo) / (gdouble) count;
}

static void
final_prod_f32 (const PlanReducer * r, const Acc * a, guint64 count, gpointer out)
{
  *(gfloat *) out = (gfloat) a->v.f;
}

static void
final_prod_f64 (const PlanReducer * r, const Acc * a, guint64 count, gpointer out)
{
  *(gdouble *) out = a->v.f;
}

/* nanmean: the sum of the values that are not NaN over their count (NaN
 * when there is none, as numpy, which also warns). */
static void
final_nanmean_f32 (const PlanReducer * r, const Acc * a, guint64 count,
    gpointer out)
{
  *(gfloat *) out = (gfloat) ((a->v.f + a->lo) / (gdouble) a->index);
}

static void
final_nanmean_f64 (const PlanReducer * r, const Acc * a, guint64 count,
    gpointer out)
{
  *(gdouble *) out = (a->v.f + a->lo) / (gdouble) a->index;
}

/* nanmin, nanmax: NaN when every value is NaN (numpy warns). */
static void
final_nanextreme_f32 (const PlanReducer * r, const Acc * a, guint64 count,
    gpointer out)
{
  *(gfloat *) out = a->index ? (gfloat) a->v.f : NAN;
}

static void
final_nanextreme_f64 (const PlanReducer * r, const Acc * a, guint64 count,
    gpointer out)
{
  *(gdouble *) out = a->index ? a->v.f : NAN;
}

/* var: M2 / max(n - ddof, 0), as numpy (0 / 0 is NaN for no values, and a
 * positive M2 over 0 is inf); nanvar: NaN where n - ddof <= 0, as
 * numpy's. std is the square root, taken in float64. */
static gdouble
variance (const PlanReducer * r, const Acc * a)
{
  gdouble dof = (gdouble) a->index - r->ddof;

  if (r->op == PLAN_REDUCE_OP_NANVAR || r->op == PLAN_REDUCE_OP_NANSTD)
    return dof > 0 ? a->lo / dof : NAN;
  return a->lo / MAX (dof, 0.0);
}

static void
final_var_f32 (const PlanReducer * r, const Acc * a, guint64 count,
    gpointer out)
{
  *(gfloat *) out = (gfloat) variance (r, a);
}

static void
final_var_f64 (const PlanReducer * r, const Acc * a, guint64 count,
    gpointer out)
{
  *(gdouble *) out = variance (r, a);
}

static void
final_std_f32 (const PlanReducer * r, const Acc * a, guint64 count,
    gpointer out)
{
  *(gfloat *) out = (gfloat) sqrt (variance (r, a));
}

static void
final_std_f64 (const PlanReducer * r, const Acc * a, guint64 count,
    gpointer out)
{
  *(gdouble *) out = sqrt (variance (r, a));
}

static void
final_index (const PlanReducer * r, const Acc * a, guint64 count, gpointer out)
{
  *(gint64 *) out = (gint64) a->index;
}

static void
final_bool (const PlanReducer * r, const Acc * a, guint64 count, gpointer out)
{
  *(guint8 *) out = a->v.u != 0;
}

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

static const FinalFunc value_finals[PLAN_DTYPE_N] = ENTRIES (final_value_);

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
static const ColumnRowsFunc fprod_rows[PLAN_DTYPE_N] = ENTRIES (rows_fprod_);

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
static const FinalFunc ptp_finals[PLAN_DTYPE_N] = ENTRIES (final_ptp_);

typedef enum
{
  KIND_B,
  KIND_S,
  KIND_U,
  KIND_F,
} Kind;

static Kind
dtype_kind (PlanDType dtype)
{
  if (dtype == PLAN_DTYPE_BOOL)
    return KIND_B;
  if (plan_dtype_is_float (dtype))
    return KIND_F;
  return plan_dtype_is_signed (dtype) ? KIND_S : KIND_U;
}

/* Whether sums of @dtype need compensated lanes: float64 and the 64-bit
 * integers (for mean), whose values do not all fit a float64 exactly. */
static gboolean
needs_compensation (PlanDType dtype)
{
  return dtype == PLAN_DTYPE_FLOAT64 || dtype == PLAN_DTYPE_INT64
      || dtype == PLAN_DTYPE_UINT64;
}

/**
 * plan_reduce_op_get_result_dtype:
 * @op: a #PlanReduceOp
 * @input: the input dtype
 *
 * The dtype numpy gives the result of @op on @input: sum and prod of bools
 * and signed integers are int64, of unsigned integers uint64, of floats
 * the float dtype; min and max keep the dtype; mean is float64 for bools
 * and integers and keeps float dtypes; argmin and argmax are int64; any
 * and all are bool. The nan ops have the dtypes of the plain ones; var,
 * std, nanvar and nanstd those of mean; count_nonzero is int64; ptp keeps
 * the dtype and is not defined for bool (numpy cannot subtract bools).
 *
 * Returns: the result dtype, or %PLAN_DTYPE_UNKNOWN for an unknown input.
 *
 * Since: 0.1
 */
PlanDType
plan_reduce_op_get_result_dtype (PlanReduceOp op, PlanDType input)
{
  if (input <= PLAN_DTYPE_UNKNOWN || input >= PLAN_DTYPE_N)
    return PLAN_DTYPE_UNKNOWN;

  switch (op) {
    case PLAN_REDUCE_OP_SUM:
    case PLAN_REDUCE_OP_PROD:
    case PLAN_REDUCE_OP_NANSUM:
    case PLAN_REDUCE_OP_NANPROD:
      if (plan_dtype_is_float (input))
        return input;
      return dtype_kind (input) == KIND_U ? PLAN_DTYPE_UINT64 :
          PLAN_DTYPE_INT64;
    case PLAN_REDUCE_OP_MIN:
    case PLAN_REDUCE_OP_MAX:
    case PLAN_REDUCE_OP_NANMIN:
    case PLAN_REDUCE_OP_NANMAX:
      return input;
    case PLAN_REDUCE_OP_PTP:
      return input == PLAN_DTYPE_BOOL ? PLAN_DTYPE_UNKNOWN : input;
    case PLAN_REDUCE_OP_MEAN:
    case PLAN_REDUCE_OP_NANMEAN:
    case PLAN_REDUCE_OP_VAR:
    case PLAN_REDUCE_OP_STD:
    case PLAN_REDUCE_OP_NANVAR:
    case PLAN_REDUCE_OP_NANSTD:
      return plan_dtype_is_float (input) ? input : PLAN_DTYPE_FLOAT64;
    case PLAN_REDUCE_OP_ARGMIN:
    case PLAN_REDUCE_OP_ARGMAX:
    case PLAN_REDUCE_OP_NANARGMIN:
    case PLAN_REDUCE_OP_NANARGMAX:
    case PLAN_REDUCE_OP_COUNT_NONZERO:
      return PLAN_DTYPE_INT64;
    case PLAN_REDUCE_OP_ANY:
    case PLAN_REDUCE_OP_ALL:
      return PLAN_DTYPE_BOOL;
  }
  return PLAN_DTYPE_UNKNOWN;
}

/**
 * plan_reduce_op_has_identity:
 * @op: a #PlanReduceOp
 *
 * Whether @op has a value for an empty input, as in numpy: sum (0), prod
 * (1), mean (NaN), any (false) and all (true) do, and so do nansum (0),
 * nanprod (1), nanmean, var, std, nanvar, nanstd (NaN) and count_nonzero
 * (0); min, max, argmin, argmax, their nan versions and ptp do not, and
 * reducing nothing with them is an error.
 *
 * Returns: %TRUE when @op has a result for no elements.
 *
 * Since: 0.1
 */
gboolean
plan_reduce_op_has_identity (PlanReduceOp op)
{
  switch (op) {
    case PLAN_REDUCE_OP_MIN:
    case PLAN_REDUCE_OP_MAX:
    case PLAN_REDUCE_OP_ARGMIN:
    case PLAN_REDUCE_OP_ARGMAX:
    case PLAN_REDUCE_OP_NANMIN:
    case PLAN_REDUCE_OP_NANMAX:
    case PLAN_REDUCE_OP_NANARGMIN:
    case PLAN_REDUCE_OP_NANARGMAX:
    case PLAN_REDUCE_OP_PTP:
      return FALSE;
    default:
      return TRUE;
  }
}

/* Sums and means: integer sums wrap in 64 bits; float sums and every mean
 * are compensated float64 sums. */
static void
select_sum (PlanReducer * r, PlanDType dt)
{
  gboolean is_f32 = dt == PLAN_DTYPE_FLOAT32;

  if (r->op == PLAN_REDUCE_OP_SUM && !plan_dtype_is_float (dt)) {
    r->block = isum_blocks[dt];
    r->merge = merge_add_u64;
    r->column = isum_columns[dt];
    r->final = final_u64;
    return;
  }
  r->block = needs_compensation (dt) ? ksum_blocks[dt] : dsum_blocks[dt];
  r->merge = merge_dd;
  r->column = ksum_columns[dt];
  r->column_rows = ksum_rows[dt];
  if (r->op == PLAN_REDUCE_OP_SUM)
    r->final = is_f32 ? final_sum_f32 : final_sum_f64;
  else
    r->final = is_f32 ? final_mean_f32 : final_mean_f64;
}

static void
select_prod (PlanReducer * r, PlanDType dt)
{
  if (plan_dtype_is_float (dt)) {
    r->block = fprod_blocks[dt];
    r->merge = merge_mul_f;
    r->column = fprod_columns[dt];
    r->column_rows = fprod_rows[dt];
    r->final = dt == PLAN_DTYPE_FLOAT32 ? final_prod_f32 : final_prod_f64;
    r->identity.v.f = 1.0;
  } else {
    r->block = iprod_blocks[dt];
    r->merge = merge_mul_u64;
    r->column = iprod_columns[dt];
    r->final = final_u64;
    r->identity.v.u = 1;
  }
}

/* min, max, argmin, argmax: merges by kind (B, S, U, F), and an identity
 * at the far end of the kind's range. */
static void
select_extreme (PlanReducer * r, PlanDType dt)
{
  static const MergeFunc min_merges[] = { merge_min_U, merge_min_S,
    merge_min_U, merge_min_f
  };
  static const MergeFunc max_merges[] = { merge_max_U, merge_max_S,
    merge_max_U, merge_max_f
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
  Kind kind = dtype_kind (dt);

  if (is_arg) {
    r->merge = is_min ? argmin_merges[kind] : argmax_merges[kind];
    r->block = is_min ? argmin_blocks[dt] : argmax_blocks[dt];
    r->column = arg_columns[dt];
    r->final = final_index;
  } else {
    r->merge = is_min ? min_merges[kind] : max_merges[kind];
    r->block = is_min ? min_blocks[dt] : max_blocks[dt];
    r->column = merge_columns[dt];
    r->final = value_finals[dt];
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
      r->merge = merge_dd;
      r->column = nanksum_columns[dt];
      r->final = is_f32 ? final_sum_f32 : final_sum_f64;
      break;
    case PLAN_REDUCE_OP_NANPROD:
      r->block = nanfprod_blocks[dt];
      r->merge = merge_mul_f;
      r->column = nanfprod_columns[dt];
      r->final = is_f32 ? final_prod_f32 : final_prod_f64;
      r->identity.v.f = 1.0;
      break;
    case PLAN_REDUCE_OP_NANMEAN:
      r->block = nanmean_blocks[dt];
      r->merge = merge_dd_count;
      r->column = nanksum_columns[dt];
      r->final = is_f32 ? final_nanmean_f32 : final_nanmean_f64;
      break;
    case PLAN_REDUCE_OP_NANMIN:
    case PLAN_REDUCE_OP_NANMAX:{
      gboolean is_min = r->op == PLAN_REDUCE_OP_NANMIN;

      r->block = is_min ? nanmin_blocks[dt] : nanmax_blocks[dt];
      r->merge = is_min ? merge_nanmin : merge_nanmax;
      r->column = nanmerge_columns[dt];
      r->final = is_f32 ? final_nanextreme_f32 : final_nanextreme_f64;
      r->identity.v.f = is_min ? INFINITY : -INFINITY;
      break;
    }
    default:{
      gboolean is_min = r->op == PLAN_REDUCE_OP_NANARGMIN;

      r->block = is_min ? nanargmin_blocks[dt] : nanargmax_blocks[dt];
      r->merge = is_min ? merge_nanargmin : merge_nanargmax;
      r->column = nanmerge_columns[dt];
      r->final = final_index;
      r->identity.v.f = is_min ? INFINITY : -INFINITY;
      r->identity.index = G_MAXUINT64;
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
  gboolean is_std = r->op == PLAN_REDUCE_OP_STD
      || r->op == PLAN_REDUCE_OP_NANSTD;
  gboolean is_f32 = dt == PLAN_DTYPE_FLOAT32;

  r->block = nan ? nanvar_blocks[dt] : var_blocks[dt];
  r->merge = merge_moments;
  r->column = nan ? nanvar_columns[dt] : var_columns[dt];
  if (is_std)
    r->final = is_f32 ? final_std_f32 : final_std_f64;
  else
    r->final = is_f32 ? final_var_f32 : final_var_f64;
}

static void
select_ptp (PlanReducer * r, PlanDType dt)
{
  static const MergeFunc merges[] = { merge_ptp_U, merge_ptp_S,
    merge_ptp_U, merge_ptp_f
  };
  Kind kind = dtype_kind (dt);

  r->block = ptp_blocks[dt];
  r->merge = merges[kind];
  r->column = ptp_columns[dt];
  r->final = ptp_finals[dt];
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

/* The plain op a nan op is on integers and bools, which have no NaN. */
static PlanReduceOp
plain_op (PlanReduceOp op)
{
  switch (op) {
    case PLAN_REDUCE_OP_NANSUM:
      return PLAN_REDUCE_OP_SUM;
    case PLAN_REDUCE_OP_NANPROD:
      return PLAN_REDUCE_OP_PROD;
    case PLAN_REDUCE_OP_NANMIN:
      return PLAN_REDUCE_OP_MIN;
    case PLAN_REDUCE_OP_NANMAX:
      return PLAN_REDUCE_OP_MAX;
    case PLAN_REDUCE_OP_NANMEAN:
      return PLAN_REDUCE_OP_MEAN;
    case PLAN_REDUCE_OP_NANARGMIN:
      return PLAN_REDUCE_OP_ARGMIN;
    case PLAN_REDUCE_OP_NANARGMAX:
      return PLAN_REDUCE_OP_ARGMAX;
    default:
      return op;
  }
}

/* Picks the functions of a built-in op for the input dtype, and its
 * identity. */
static void
select_builtin (PlanReducer * r)
{
  PlanDType dt = r->input.dtype;
  PlanReduceOp op = r->op;

  memset (&r->identity, 0, sizeof (r->identity));
  if (plain_op (op) != op) {
    if (plan_dtype_is_float (dt)) {
      select_nan (r, dt);
      return;
    }
    /* The plain op's functions test r->op: run as it. */
    r->op = plain_op (op);
    select_builtin (r);
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
      r->final = final_u64;
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
      r->final = final_bool;
      break;
    case PLAN_REDUCE_OP_ALL:
      r->block = all_blocks[dt];
      r->merge = merge_and;
      r->column = all_columns[dt];
      r->final = final_bool;
      r->identity.v.u = 1;
      break;
    default:
      break;
  }
}

/* Custom combiners ------------------------------------------------------- */

static gsize
next_pow2 (gsize n)
{
  gsize p = 1;

  while (p < n)
    p <<= 1;
  return p;
}

/* A block of a custom combiner: the elements, padded with the identity to
 * the next power of two, are combined pairwise by halves, so that each
 * level is one vectorised evaluation of the combiner. The shape of the tree
 * depends only on @n. @scratch holds two blocks of the accumulator dtype. */
static void
block_custom (const PlanReducer * r, gconstpointer in, gsize n,
    guint64 base, Acc * out, gpointer scratch)
{
  gsize es = r->acc_size, p = next_pow2 (n), k;
  guint8 *cur = scratch, *other = cur + BLOCK * es, *tmp;
  gconstpointer inputs[2];

  if (r->cast) {
    inputs[0] = in;
    plan_expr_eval (r->cast, inputs, cur, n);
  } else {
    memcpy (cur, in, n * es);
  }
  for (k = n; k < p; k++)
    memcpy (cur + k * es, r->identity.v.raw, es);
  while (p > 1) {
    p /= 2;
    inputs[0] = cur;
    inputs[1] = cur + p * es;
    plan_expr_eval (r->combiner, inputs, other, p);
    tmp = cur;
    cur = other;
    other = tmp;
  }
  memset (out, 0, sizeof (*out));
  memcpy (out->v.raw, cur, es);
}

static void
merge_custom (const PlanReducer * r, Acc * a, const Acc * b)
{
  gconstpointer inputs[2] = { a->v.raw, b->v.raw };
  Value result;

  plan_expr_eval (r->combiner, inputs, result.raw, 1);
  memcpy (a->v.raw, result.raw, r->acc_size);
}

/* @scratch holds 2 * (c1 - c0) elements of the accumulator dtype. */
static void
column_custom (PlanReducer * r, Acc * cols, gsize c0, gsize c1,
    gconstpointer row, guint64 row_index, gpointer scratch)
{
  gsize es = r->acc_size, n = c1 - c0;
  guint8 *converted = scratch, *result = converted + n * es;
  gconstpointer inputs[2];

  inputs[0] = r->cols_raw + c0 * es;
  if (r->cast) {
    gconstpointer cast_in[1] = { (const guint8 *) row + c0 * r->in_size };

    plan_expr_eval (r->cast, cast_in, converted, n);
    inputs[1] = converted;
  } else {
    inputs[1] = (const guint8 *) row + c0 * es;
  }
  plan_expr_eval (r->combiner, inputs, result, n);
  memcpy (r->cols_raw + c0 * es, result, n * es);
}

/* Stores the low bits of @v as one element of the integer @dtype. */
static void
store_integer (PlanDType dtype, guint64 v, Value * value)
{
  guint8 u8 = (guint8) v;
  guint16 u16 = (guint16) v;
  guint32 u32 = (guint32) v;

  switch (plan_dtype_get_size (dtype)) {
    case 1:
      memcpy (value->raw, &u8, 1);
      break;
    case 2:
      memcpy (value->raw, &u16, 2);
      break;
    case 4:
      memcpy (value->raw, &u32, 4);
      break;
    default:
      value->u = v;
      break;
  }
}

/* Parses @text as one value of @dtype, into @value. */
static gboolean
parse_identity (const gchar * text, PlanDType dtype, Value * value,
    GError ** error)
{
  gchar *end = NULL;

  memset (value, 0, sizeof (*value));
  if (dtype == PLAN_DTYPE_BOOL) {
    if (g_ascii_strcasecmp (text, "true") == 0 || g_strcmp0 (text, "1") == 0)
      value->raw[0] = 1;
    else if (g_ascii_strcasecmp (text, "false") != 0
        && g_strcmp0 (text, "0") != 0)
      goto bad;
  } else if (plan_dtype_is_float (dtype)) {
    gdouble d = g_ascii_strtod (text, &end);

    if (end == text || *end != '\0')
      goto bad;
    if (dtype == PLAN_DTYPE_FLOAT32) {
      gfloat f = (gfloat) d;
      memcpy (value->raw, &f, sizeof (f));
    } else {
      value->f = d;
    }
  } else if (plan_dtype_is_signed (dtype)) {
    gint bits = 8 * plan_dtype_get_size (dtype);
    gint64 max = bits == 64 ? G_MAXINT64 : ((gint64) 1 << (bits - 1)) - 1;
    gint64 v;

    if (!g_ascii_string_to_signed (text, 10, -max - 1, max, &v, NULL))
      goto bad;
    store_integer (dtype, (guint64) v, value);
  } else {
    gint bits = 8 * plan_dtype_get_size (dtype);
    guint64 max = bits == 64 ? G_MAXUINT64 : ((guint64) 1 << bits) - 1;
    guint64 v;

    if (!g_ascii_string_to_unsigned (text, 10, 0, max, &v, NULL))
      goto bad;
    store_integer (dtype, v, value);
  }
  return TRUE;

  /* ERRORS */
bad:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the identity '%s' is not a valid %s value", text,
        plan_dtype_to_string (dtype));
    return FALSE;
  }
}

/* Compiles f(x, y) for @input; when it gives another dtype R (say float64
 * for `x * 0.5` on int32), compiles it again in R and converts the input
 * to R. */
static gboolean
compile_custom (PlanReducer * r, const gchar * combiner, GError ** error)
{
  static const gchar *const names[] = { "x", "y" };
  PlanDType dtypes[2] = { r->input.dtype, r->input.dtype };
  PlanDType acc;
  gchar *source;

  r->combiner = plan_expr_compile (combiner, 2, names, dtypes, error);
  if (r->combiner == NULL)
    return FALSE;
  acc = plan_expr_get_dtype (r->combiner);
  if (acc == r->input.dtype)
    return TRUE;

  plan_expr_unref (r->combiner);
  dtypes[0] = dtypes[1] = acc;
  r->combiner = plan_expr_compile (combiner, 2, names, dtypes, error);
  if (r->combiner == NULL)
    return FALSE;
  if (plan_expr_get_dtype (r->combiner) != acc)
    goto not_closed;

  source = g_strdup_printf ("%s(x)", plan_dtype_to_string (acc));
  r->cast = plan_expr_compile (source, 1, names, &r->input.dtype, error);
  g_free (source);
  return r->cast != NULL;

  /* ERRORS */
not_closed:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_TYPE,
        "the combiner '%s' must give the dtype of its arguments: on %s it "
        "gives %s, and on %s it gives %s", combiner,
        plan_dtype_to_string (r->input.dtype), plan_dtype_to_string (acc),
        plan_dtype_to_string (acc),
        plan_dtype_to_string (plan_expr_get_dtype (r->combiner)));
    return FALSE;
  }
}

/* Construction ----------------------------------------------------------- */

static PlanReducer *
reducer_alloc (PlanReduceAxis axis, const PlanArrayInfo * input,
    GError ** error)
{
  PlanReducer *r;

  if (input == NULL || input->dtype <= PLAN_DTYPE_UNKNOWN
      || input->dtype >= PLAN_DTYPE_N)
    goto bad_input;
  if (axis != PLAN_REDUCE_AXIS_ALL && axis != PLAN_REDUCE_AXIS_ROWS
      && axis != PLAN_REDUCE_AXIS_INNER && axis != PLAN_REDUCE_AXIS_1)
    goto bad_axis;
  /* numpy's axis=1 is the rows' inner axis only on 2-D arrays. */
  if (axis == PLAN_REDUCE_AXIS_1 && input->ndim != 2)
    goto axis_1_not_2d;
  if (axis == PLAN_REDUCE_AXIS_1)
    axis = PLAN_REDUCE_AXIS_INNER;

  r = g_new0 (PlanReducer, 1);
  r->ref_count = 1;
  r->axis = axis;
  r->mode = axis;
  if (axis == PLAN_REDUCE_AXIS_ROWS && input->ndim <= 1)
    r->mode = PLAN_REDUCE_AXIS_ALL;
  r->input = *input;
  r->in_size = plan_dtype_get_size (input->dtype);
  r->row_elements = plan_array_info_get_row_elements (input);
  return r;

  /* ERRORS */
bad_input:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "a reduction needs a valid input array info");
    return NULL;
  }
bad_axis:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%d is not a reduction axis", (gint) axis);
    return NULL;
  }
axis_1_not_2d:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "axis=1 is numpy's axis of a 2-D stream's rows, and this stream has "
        "%u dimension%s: use axis=-1 to reduce each row over all its inner "
        "axes, or 0 or all", input->ndim, input->ndim == 1 ? "" : "s");
    return NULL;
  }
}

/* Sets the output info from the mode and result dtype, and allocates the
 * state. */
static void
reducer_init_state (PlanReducer * r, PlanDType out_dtype)
{
  guint i;

  plan_array_info_init (&r->output);
  r->output.dtype = out_dtype;
  switch (r->mode) {
    case PLAN_REDUCE_AXIS_1:   /* made INNER when the reducer is made */
      g_assert_not_reached ();
      break;
    case PLAN_REDUCE_AXIS_ALL:
      r->output.ndim = 0;
      r->staging = g_malloc (BLOCK * r->in_size);
      break;
    case PLAN_REDUCE_AXIS_ROWS:
      r->output.ndim = r->input.ndim - 1;
      for (i = 1; i < r->input.ndim; i++)
        r->output.shape[i - 1] = r->input.shape[i];
      r->col_rows = MAX (COLUMN_BLOCK_ROWS, COLUMN_BLOCK /
          MAX (r->row_elements, 1));
      r->cols = g_new0 (Acc, r->row_elements);
      if (r->custom)
        r->cols_raw = g_malloc (r->row_elements * r->acc_size);
      break;
    case PLAN_REDUCE_AXIS_INNER:
      r->output.ndim = 1;
      r->output.shape[0] = plan_array_info_get_n_rows (&r->input);
      break;
  }
  r->out_size = plan_dtype_get_size (out_dtype);
  if (r->custom)
    r->scratch = g_malloc (2 * BLOCK * r->acc_size);
  r->n_threads = 1;
  plan_reducer_reset (r);
}

/**
 * plan_reducer_new:
 * @op: the reduction
 * @axis: the axes to reduce
 * @input: the input stream's array info
 * @error: return location for a #GError
 *
 * Makes a reducer of a stream of @input arrays. Its result has the dtype
 * of plan_reduce_op_get_result_dtype() and the shape given by @axis:
 * 0-d for #PLAN_REDUCE_AXIS_ALL, the inner shape for
 * #PLAN_REDUCE_AXIS_ROWS, (N,) for #PLAN_REDUCE_AXIS_INNER; see
 * plan_reducer_get_output_info(). It starts with one thread.
 *
 * Returns: (transfer full) (nullable): a new reducer, or %NULL with @error
 *   set when @input or @axis is invalid.
 *
 * Since: 0.1
 */
PlanReducer *
plan_reducer_new (PlanReduceOp op, PlanReduceAxis axis,
    const PlanArrayInfo * input, GError ** error)
{
  GEnumClass *klass = g_type_class_ref (PLAN_TYPE_REDUCE_OP);
  GEnumValue *ev = g_enum_get_value (klass, op);
  PlanReducer *r;

  /* The nick lives in the static table of the type; it outlives klass. */
  g_type_class_unref (klass);
  if (ev == NULL)
    goto bad_op;
  r = reducer_alloc (axis, input, error);
  if (r == NULL)
    return NULL;
  if (op == PLAN_REDUCE_OP_PTP && input->dtype == PLAN_DTYPE_BOOL) {
    plan_reducer_unref (r);
    goto bool_ptp;
  }
  r->op = op;
  r->name = g_strdup (ev->value_nick);
  select_builtin (r);
  reducer_init_state (r, plan_reduce_op_get_result_dtype (op, input->dtype));
  return r;

  /* ERRORS */
bool_ptp:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_TYPE,
        "ptp is not defined for bool input: max - min would subtract bools "
        "(numpy: numpy boolean subtract, the `-` operator, is not "
        "supported); reduce a cast of it (map=\"int8(x)\")");
    return NULL;
  }
bad_op:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%d is not a reduction op", (gint) op);
    return NULL;
  }
}

/**
 * plan_reducer_new_custom:
 * @combiner: an expression in `x` and `y` combining two partial results,
 *   such as `"x + y"` or `"max(x, y)"`
 * @identity: (nullable): the value of the reduction of nothing, such that
 *   `combiner(v, identity)` is `v`, written as a number (or `true` /
 *   `false`), for example `"0"` or `"-inf"`; required
 * @axis: the axes to reduce
 * @input: the input stream's array info
 * @error: return location for a #GError
 *
 * Makes a reducer that folds @combiner over the elements. The combiner
 * must be associative: elements are combined in a tree fixed by their
 * indices (see the description above), not from left to right. With `x`
 * and `y` of the input dtype it gives the accumulator dtype, which is the
 * result dtype; when that differs from the input dtype the combiner must
 * give it again on arguments of that dtype, and inputs are converted to it.
 * The identity pads partial blocks and is the result of an empty stream.
 *
 * Returns: (transfer full) (nullable): a new reducer, or %NULL with @error
 *   set: the compiler's message for an invalid expression, or a message
 *   saying that the identity is missing or is not a value of the dtype.
 *
 * Since: 0.1
 */
PlanReducer *
plan_reducer_new_custom (const gchar * combiner, const gchar * identity,
    PlanReduceAxis axis, const PlanArrayInfo * input, GError ** error)
{
  PlanReducer *r;
  PlanDType acc;

  if (combiner == NULL || *combiner == '\0')
    goto no_combiner;
  if (identity == NULL || *identity == '\0')
    goto no_identity;
  r = reducer_alloc (axis, input, error);
  if (r == NULL)
    return NULL;
  r->custom = TRUE;
  r->name = g_strdup (combiner);
  if (!compile_custom (r, combiner, error))
    goto failed;
  acc = plan_expr_get_dtype (r->combiner);
  if (!parse_identity (identity, acc, &r->identity.v, error))
    goto failed;
  r->acc_size = plan_dtype_get_size (acc);
  r->block = block_custom;
  r->merge = merge_custom;
  r->column = column_custom;
  reducer_init_state (r, acc);
  return r;

  /* ERRORS */
no_combiner:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "a custom reduction needs a combiner expression in x and y, such "
        "as \"x + y\"");
    return NULL;
  }
no_identity:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the custom combiner '%s' needs an identity: the value of a "
        "reduction of nothing, such as 0 for x + y or -inf for max(x, y)",
        combiner);
    return NULL;
  }
failed:
  {
    plan_reducer_unref (r);
    return NULL;
  }
}

/**
 * plan_reducer_ref:
 * @reducer: a #PlanReducer
 *
 * Returns: (transfer full): @reducer, with one more reference.
 *
 * Since: 0.1
 */
PlanReducer *
plan_reducer_ref (PlanReducer * reducer)
{
  g_return_val_if_fail (reducer != NULL, NULL);

  g_atomic_int_inc (&reducer->ref_count);
  return reducer;
}

/**
 * plan_reducer_unref:
 * @reducer: (transfer full): a #PlanReducer
 *
 * Drops a reference; the last one frees the reducer.
 *
 * Since: 0.1
 */
void
plan_reducer_unref (PlanReducer * reducer)
{
  g_return_if_fail (reducer != NULL);

  if (!g_atomic_int_dec_and_test (&reducer->ref_count))
    return;
  g_clear_pointer (&reducer->combiner, plan_expr_unref);
  g_clear_pointer (&reducer->cast, plan_expr_unref);
  g_free (reducer->name);
  g_free (reducer->staging);
  g_free (reducer->head);
  if (reducer->runs)
    g_byte_array_unref (reducer->runs);
  g_free (reducer->scratch);
  g_free (reducer->results);
  g_free (reducer->cols);
  g_free (reducer->cols_raw);
  g_free (reducer->col_nodes);
  g_free (reducer);
}

/**
 * plan_reducer_set_n_threads:
 * @reducer: a #PlanReducer
 * @n_threads: worker threads, 0 for one per core
 *
 * Sets how many threads reduce a chunk. The result does not depend on it.
 *
 * Since: 0.1
 */
void
plan_reducer_set_n_threads (PlanReducer * reducer, guint n_threads)
{
  g_return_if_fail (reducer != NULL);

  reducer->n_threads = n_threads;
}

/* plan-testing.h */
void
plan_reducer_testing_set_column_rows (PlanReducer * reducer, gsize rows)
{
  g_return_if_fail (reducer != NULL);
  g_return_if_fail (reducer->mode == PLAN_REDUCE_AXIS_ROWS);
  g_return_if_fail (rows > 0);
  g_return_if_fail (reducer->n_rows == 0 && reducer->head == NULL);

  reducer->col_rows = rows;
}

/**
 * plan_reducer_set_ddof:
 * @reducer: a #PlanReducer
 * @ddof: numpy's delta degrees of freedom, at least 0
 *
 * Sets the divisor of #PLAN_REDUCE_OP_VAR, #PLAN_REDUCE_OP_STD,
 * #PLAN_REDUCE_OP_NANVAR and #PLAN_REDUCE_OP_NANSTD to `n - ddof`, where
 * `n` is the number of values (that are not NaN): 0 (the default) gives
 * the population variance, 1 the sample variance. It only changes the
 * result; it may be set before plan_reducer_finish() at any time. Other
 * ops ignore it.
 *
 * Since: 0.1
 */
void
plan_reducer_set_ddof (PlanReducer * reducer, gdouble ddof)
{
  g_return_if_fail (reducer != NULL);
  g_return_if_fail (ddof >= 0);

  reducer->ddof = ddof;
}

/**
 * plan_reducer_get_ddof:
 * @reducer: a #PlanReducer
 *
 * Returns: the ddof set with plan_reducer_set_ddof(), 0 by default.
 *
 * Since: 0.1
 */
gdouble
plan_reducer_get_ddof (PlanReducer * reducer)
{
  g_return_val_if_fail (reducer != NULL, 0);

  return reducer->ddof;
}

/**
 * plan_reducer_get_output_info:
 * @reducer: a #PlanReducer
 * @info: (out caller-allocates): where to write the result's array info
 *
 * The array info of what the reducer produces: a 0-d array for
 * #PLAN_REDUCE_AXIS_ALL (and #PLAN_REDUCE_AXIS_ROWS on 1-D input), the
 * inner shape for #PLAN_REDUCE_AXIS_ROWS, a stream of shape (N,) for
 * #PLAN_REDUCE_AXIS_INNER, where N is the input's number of rows (-1 when
 * unknown).
 *
 * Since: 0.1
 */
void
plan_reducer_get_output_info (PlanReducer * reducer, PlanArrayInfo * info)
{
  g_return_if_fail (reducer != NULL);
  g_return_if_fail (info != NULL);

  *info = reducer->output;
}

/**
 * plan_reducer_get_axis:
 * @reducer: a #PlanReducer
 *
 * Returns: the axis the reducer was made with.
 *
 * Since: 0.1
 */
PlanReduceAxis
plan_reducer_get_axis (PlanReducer * reducer)
{
  g_return_val_if_fail (reducer != NULL, PLAN_REDUCE_AXIS_ALL);

  return reducer->axis;
}

/**
 * plan_reducer_get_name:
 * @reducer: a #PlanReducer
 *
 * Returns: (transfer none): the op's nick (`"sum"`) or the custom
 *   combiner's source, for messages.
 *
 * Since: 0.1
 */
const gchar *
plan_reducer_get_name (PlanReducer * reducer)
{
  g_return_val_if_fail (reducer != NULL, NULL);

  return reducer->name;
}

/**
 * plan_reducer_get_n_rows:
 * @reducer: a #PlanReducer
 *
 * Returns: the number of rows pushed since the reducer was made or reset.
 *
 * Since: 0.1
 */
guint64
plan_reducer_get_n_rows (PlanReducer * reducer)
{
  g_return_val_if_fail (reducer != NULL, 0);

  return reducer->n_rows;
}

/* Empties the current run's state. */
static void
clear_run (PlanReducer * r)
{
  gsize c;

  r->depth = 0;
  r->staged = 0;
  r->head_len = 0;
  r->run_rows = 0;
  if (r->cols) {
    for (c = 0; c < r->row_elements; c++)
      r->cols[c] = r->identity;
  }
  if (r->cols_raw) {
    for (c = 0; c < r->row_elements; c++)
      memcpy (r->cols_raw + c * r->acc_size, r->identity.v.raw, r->acc_size);
  }
}

/**
 * plan_reducer_reset:
 * @reducer: a #PlanReducer
 *
 * Forgets everything pushed, to reduce a new stream.
 *
 * Since: 0.1
 */
void
plan_reducer_reset (PlanReducer * reducer)
{
  g_return_if_fail (reducer != NULL);

  clear_run (reducer);
  reducer->n_rows = 0;
  reducer->n_blocks = 0;
  reducer->next_row = 0;
  reducer->run_first = 0;
  reducer->head_want = 0;
  reducer->n_runs = 0;
  if (reducer->runs)
    g_byte_array_set_size (reducer->runs, 0);
}

/* The tree ----------------------------------------------------------------
 *
 * A binary counter over block results: a new result enters at level 0 and
 * merges with the top of the stack while that has the same level. */

typedef struct
{
  Acc *stack;
  guint *levels;
  guint64 *starts;
  guint depth;
} Tree;

/* Places the node of @level that covers the blocks from @start in the
 * shape of @t: it merges with the top of the stack while that is its left
 * sibling (a node of the same level, an even one of its level). From
 * block 0 this is a binary counter; from elsewhere (a shard) it makes the
 * nodes that a run from 0 makes, so that shards' nodes merge into the
 * single run's tree. Returns how many nodes it merges with: those in the
 * slots from depth - 1 after it on; it ends in slot depth - 1. */
static guint
tree_place (Tree * t, guint level, guint64 start)
{
  guint merges = 0;

  while (t->depth > 0 && t->levels[t->depth - 1] == level
      && ((t->starts[t->depth - 1] >> level) & 1) == 0) {
    start = t->starts[t->depth - 1];
    level++;
    t->depth--;
    merges++;
  }
  g_assert (t->depth < STACK_SIZE);
  t->levels[t->depth] = level;
  t->starts[t->depth] = start;
  t->depth++;
  return merges;
}

static void
tree_push_node (const PlanReducer * r, Tree * t, const Acc * node,
    guint level, guint64 start)
{
  guint slot = t->depth, merges = tree_place (t, level, start);
  Acc acc = *node;

  while (merges-- > 0) {
    Acc merged = t->stack[--slot];

    r->merge (r, &merged, &acc);
    acc = merged;
  }
  t->stack[slot] = acc;
}

static void
tree_push (const PlanReducer * r, Tree * t, const Acc * block, guint64 index)
{
  tree_push_node (r, t, block, 0, index);
}

/* Folds the pending results, most recent first, after @partial (the last,
 * incomplete block) when there is one. */
static void
tree_fold (const PlanReducer * r, const Tree * t, const Acc * partial,
    Acc * out)
{
  gint i = (gint) t->depth - 1;
  Acc acc;

  if (partial != NULL)
    acc = *partial;
  else if (i >= 0)
    acc = t->stack[i--];
  else
    acc = r->identity;
  for (; i >= 0; i--) {
    Acc merged = t->stack[i];

    r->merge (r, &merged, &acc);
    acc = merged;
  }
  *out = acc;
}

/* Reduces @n contiguous elements (one row) with the block tree, so that a
 * row of n elements gives exactly what a stream of them would. */
static void
reduce_contiguous (const PlanReducer * r, const guint8 * data, gsize n,
    Acc * out, gpointer scratch)
{
  Acc stack[STACK_SIZE], block;
  guint levels[STACK_SIZE];
  guint64 starts[STACK_SIZE];
  Tree t = { stack, levels, starts, 0 };
  gsize k;

  for (k = 0; k + BLOCK <= n; k += BLOCK) {
    r->block (r, data + k * r->in_size, BLOCK, k, &block, scratch);
    tree_push (r, &t, &block, k / BLOCK);
  }
  if (k < n) {
    r->block (r, data + k * r->in_size, n - k, k, &block, scratch);
    tree_fold (r, &t, &block, out);
  } else {
    tree_fold (r, &t, NULL, out);
  }
}

static gpointer
scratch_new (const PlanReducer * r, gsize n_elements)
{
  return r->custom ? g_malloc (n_elements * r->acc_size) : NULL;
}

/* Mode ALL: worker threads reduce whole blocks of a chunk -------------- */

typedef struct
{
  const PlanReducer *r;
  const guint8 *data;
  guint64 base;
} BlocksJob;

static void
blocks_func (gsize begin, gsize end, gpointer user_data)
{
  BlocksJob *job = user_data;
  const PlanReducer *r = job->r;
  gpointer scratch = scratch_new (r, 2 * BLOCK);
  gsize k;

  for (k = begin; k < end; k++)
    r->block (r, job->data + k * BLOCK * r->in_size, BLOCK,
        job->base + k * BLOCK, &r->results[k], scratch);
  g_free (scratch);
}

static void
push_all (PlanReducer * r, const guint8 * data, gsize n)
{
  Tree t = { r->stack, r->levels, r->starts, r->depth };
  gsize es = r->in_size, n_blocks, k;
  Acc block;

  /* A shard's elements before its first whole block are kept as they
   * are, for the rank that holds the rest of that block. */
  if (r->head_len < r->head_want) {
    gsize take = MIN (n, r->head_want - r->head_len);

    memcpy (r->head + r->head_len * es, data, take * es);
    r->head_len += take;
    data += take * es;
    n -= take;
    if (n == 0)
      return;
  }

  if (r->staged > 0) {
    gsize take = MIN (n, BLOCK - r->staged);

    memcpy (r->staging + r->staged * es, data, take * es);
    r->staged += take;
    data += take * es;
    n -= take;
    if (r->staged < BLOCK)
      return;
    r->block (r, r->staging, BLOCK, r->n_blocks * BLOCK, &block, r->scratch);
    tree_push (r, &t, &block, r->n_blocks);
    r->n_blocks++;
    r->staged = 0;
  }

  n_blocks = n / BLOCK;
  if (n_blocks > 0) {
    BlocksJob job = { r, data, r->n_blocks * BLOCK };

    if (n_blocks > r->results_len) {
      r->results = g_renew (Acc, r->results, n_blocks);
      r->results_len = n_blocks;
    }
    plan_parallel_for (r->n_threads, n_blocks, BLOCK_GRAIN, blocks_func,
        &job);
    for (k = 0; k < n_blocks; k++)
      tree_push (r, &t, &r->results[k], r->n_blocks + k);
    r->n_blocks += n_blocks;
  }

  r->staged = n - n_blocks * BLOCK;
  memcpy (r->staging, data + n_blocks * BLOCK * es, r->staged * es);
  r->depth = t.depth;
}

/* Mode INNER: threads take rows ------------------------------------------ */

typedef struct
{
  const PlanReducer *r;
  const guint8 *data;
  guint8 *out;
  gint all_nan;                 /* a row of nanargmin/nanargmax was all NaN */
} RowsJob;

static void
rows_func (gsize begin, gsize end, gpointer user_data)
{
  RowsJob *job = user_data;
  const PlanReducer *r = job->r;
  gsize row_size = r->row_elements * r->in_size, i;
  gpointer scratch = scratch_new (r, 2 * BLOCK);
  Acc acc;

  for (i = begin; i < end; i++) {
    reduce_contiguous (r, job->data + i * row_size, r->row_elements, &acc,
        scratch);
    if (r->custom)
      memcpy (job->out + i * r->out_size, acc.v.raw, r->out_size);
    else
      r->final (r, &acc, r->row_elements, job->out + i * r->out_size);
    if (r->nan_arg && acc.index == G_MAXUINT64)
      g_atomic_int_set (&job->all_nan, 1);
  }
  g_free (scratch);
}

/* Mode INNER on rows of one element: each element is reduced on its own.
 * That is a column update of identities by one row holding the whole
 * chunk, which gives what the block tree gives for one element, without
 * its per-row cost. */
static gboolean
push_single_elements (PlanReducer * r, const guint8 * data, gsize n_rows,
    guint8 * out)
{
  gboolean ok = TRUE;
  gsize i;

  if (n_rows > r->results_len) {
    r->results = g_renew (Acc, r->results, n_rows);
    r->results_len = n_rows;
  }
  for (i = 0; i < n_rows; i++)
    r->results[i] = r->identity;
  r->column (r, r->results, 0, n_rows, data, 0, NULL);
  for (i = 0; i < n_rows; i++) {
    r->final (r, &r->results[i], 1, out + i * r->out_size);
    if (r->nan_arg && r->results[i].index == G_MAXUINT64)
      ok = FALSE;
  }
  return ok;
}

/* Mode ROWS: column blocks and their trees, threads taking columns -------
 *
 * Column c's open block is cols[c] (a custom combiner's value in
 * cols_raw), its tree's node in slot i is nodes[i * row_elements + c]. */

static Acc
column_open (const PlanReducer * r, const Acc * cols, const guint8 * raw,
    gsize c)
{
  Acc a = cols[c];

  if (raw)
    memcpy (a.v.raw, raw + c * r->acc_size, r->acc_size);
  return a;
}

static void
column_set_open (const PlanReducer * r, Acc * cols, guint8 * raw, gsize c,
    const Acc * a)
{
  cols[c] = *a;
  if (raw)
    memcpy (raw + c * r->acc_size, a->v.raw, r->acc_size);
}

static void
ensure_slots (Acc ** nodes, guint * slots, guint need, gsize row_elements)
{
  if (need > *slots) {
    *nodes = g_renew (Acc, *nodes, (gsize) need * row_elements);
    *slots = need;
  }
}

/* Pushes the open blocks of columns [c0, c1) into their trees, as a node
 * that goes to @slot after merging with the @merges nodes from there on
 * (tree_place()), and opens the next blocks. */
static void
columns_push (const PlanReducer * r, Acc * cols, guint8 * raw, Acc * nodes,
    gsize c0, gsize c1, guint slot, guint merges)
{
  gsize w = r->row_elements, c;
  guint i;

  for (c = c0; c < c1; c++) {
    Acc acc = column_open (r, cols, raw, c);

    for (i = slot + merges; i > slot; i--) {
      Acc merged = nodes[(i - 1) * w + c];

      r->merge (r, &merged, &acc);
      acc = merged;
    }
    nodes[slot * w + c] = acc;
    column_set_open (r, cols, raw, c, &r->identity);
  }
}

/* Column @c's result: its open block when @open, then the nodes of its
 * tree of @depth slots, most recent first (as tree_fold()). */
static void
column_fold (const PlanReducer * r, const Acc * cols, const guint8 * raw,
    const Acc * nodes, guint depth, gboolean open, gsize c, Acc * out)
{
  gsize w = r->row_elements;
  gint i = (gint) depth - 1;
  Acc acc;

  if (open)
    acc = column_open (r, cols, raw, c);
  else if (i >= 0)
    acc = nodes[i-- * w + c];
  else
    acc = r->identity;
  for (; i >= 0; i--) {
    Acc merged = nodes[i * w + c];

    r->merge (r, &merged, &acc);
    acc = merged;
  }
  *out = acc;
}

/* A column block that ends after row @end of a chunk. */
typedef struct
{
  gsize end;
  guint slot;
  guint merges;
} ColumnPush;

typedef struct
{
  PlanReducer *r;
  const guint8 *data;
  gsize n_rows;
  guint64 first_row;
  const ColumnPush *pushes;
  gsize n_pushes;
} ColumnsJob;

/* Moves the fields of the open blocks of columns [c0, c1) between the
 * accumulators and arrays of their own (ColumnRowsFunc). */
static void
columns_to_arrays (const Acc * cols, gsize c0, gsize c1, gdouble * v,
    gdouble * lo)
{
  gsize c;

  for (c = c0; c < c1; c++) {
    v[c - c0] = cols[c].v.f;
    lo[c - c0] = cols[c].lo;
  }
}

static void
columns_from_arrays (Acc * cols, gsize c0, gsize c1, const gdouble * v,
    const gdouble * lo)
{
  gsize c;

  for (c = c0; c < c1; c++) {
    cols[c].v.f = v[c - c0];
    cols[c].lo = lo[c - c0];
  }
}

/* The rows up to each block's end, then that block's push; with
 * r->column_rows the rows of a segment in one call, the open blocks'
 * fields in arrays meanwhile. */
static void
columns_func (gsize begin, gsize end, gpointer user_data)
{
  ColumnsJob *job = user_data;
  PlanReducer *r = job->r;
  gsize row_size = r->row_elements * r->in_size, w = end - begin, i = 0, j;
  gpointer scratch = NULL;
  gdouble *v = NULL, *lo = NULL;

  if (r->column_rows) {
    v = g_new (gdouble, 2 * w);
    lo = v + w;
    columns_to_arrays (r->cols, begin, end, v, lo);
  } else {
    scratch = scratch_new (r, 2 * w);
  }
  for (j = 0; j <= job->n_pushes; j++) {
    gsize stop = j < job->n_pushes ? job->pushes[j].end : job->n_rows;

    if (v) {
      r->column_rows (v, lo, job->data + i * row_size, stop - i, row_size,
          begin, end);
      i = stop;
    }
    for (; i < stop; i++)
      r->column (r, r->cols, begin, end, job->data + i * row_size,
          job->first_row + i, scratch);
    if (j == job->n_pushes)
      break;
    if (v)
      columns_from_arrays (r->cols, begin, end, v, lo);
    columns_push (r, r->cols, r->cols_raw, r->col_nodes, begin, end,
        job->pushes[j].slot, job->pushes[j].merges);
    if (v)
      columns_to_arrays (r->cols, begin, end, v, lo);
  }
  if (v)
    columns_from_arrays (r->cols, begin, end, v, lo);
  g_free (v);
  g_free (scratch);
}

static void
push_columns (PlanReducer * r, const guint8 * data, gsize n_rows)
{
  gsize row_size = r->row_elements * r->in_size, n_pushes = 0;
  guint64 g = r->next_row, b, R = r->col_rows;
  Tree t = { NULL, r->levels, r->starts, r->depth };
  ColumnPush *pushes;
  ColumnsJob job;
  guint need = r->depth;

  /* A shard's rows before its first whole column block are kept as they
   * are, for the rank that holds the rest of that block. */
  if (r->head_len < r->head_want) {
    gsize take = MIN (n_rows, r->head_want - r->head_len);

    memcpy (r->head + r->head_len * row_size, data, take * row_size);
    r->head_len += take;
    data += take * row_size;
    n_rows -= take;
    g += take;
    if (n_rows == 0)
      return;
  }

  /* The trees' shape changes on the caller's thread; the threads then
   * follow it, each in its columns. */
  pushes = g_new (ColumnPush, (g + n_rows) / R - g / R + 1);
  for (b = (g / R + 1) * R; b <= g + n_rows; b += R) {
    ColumnPush *p = &pushes[n_pushes++];
    guint depth = t.depth;

    p->end = b - g;
    p->merges = tree_place (&t, 0, b / R - 1);
    p->slot = depth - p->merges;
    need = MAX (need, t.depth);
  }
  ensure_slots (&r->col_nodes, &r->col_slots, need, r->row_elements);
  job.r = r;
  job.data = data;
  job.n_rows = n_rows;
  job.first_row = g;
  job.pushes = pushes;
  job.n_pushes = n_pushes;
  plan_parallel_for (r->n_threads, r->row_elements, COLUMN_GRAIN,
      columns_func, &job);
  r->depth = t.depth;
  g_free (pushes);
}

/**
 * plan_reducer_push:
 * @reducer: a #PlanReducer
 * @rows: (array) (element-type guint8): @n_rows rows of the input,
 *   C-contiguous
 * @n_rows: the number of rows
 * @out: (nullable): with #PLAN_REDUCE_AXIS_INNER, room for @n_rows results
 *   of the output dtype, which are written there; %NULL otherwise
 * @error: return location for a #GError
 *
 * Reduces the next @n_rows rows of the stream. Call it from one thread at
 * a time; it runs the reducer's worker threads and returns when they are
 * done. With #PLAN_REDUCE_AXIS_INNER the result of each row is written to
 * @out at once; otherwise it is kept until plan_reducer_finish().
 *
 * Returns: %TRUE, or %FALSE with @error set when @out is missing.
 *
 * Since: 0.1
 */
gboolean
plan_reducer_push (PlanReducer * reducer, gconstpointer rows, gsize n_rows,
    gpointer out, GError ** error)
{
  PlanReducer *r = reducer;

  g_return_val_if_fail (reducer != NULL, FALSE);
  g_return_val_if_fail (rows != NULL || n_rows == 0, FALSE);

  if (n_rows == 0)
    return TRUE;

  switch (r->mode) {
    case PLAN_REDUCE_AXIS_1:   /* made INNER when the reducer is made */
      g_assert_not_reached ();
      break;
    case PLAN_REDUCE_AXIS_ALL:
      push_all (r, rows, n_rows * r->row_elements);
      break;
    case PLAN_REDUCE_AXIS_ROWS:
      push_columns (r, rows, n_rows);
      break;
    case PLAN_REDUCE_AXIS_INNER:{
      RowsJob job = { r, rows, out, 0 };
      gsize grain = MAX (1, BLOCK * BLOCK_GRAIN / r->row_elements);

      if (out == NULL)
        goto no_out;
      if (r->row_elements == 1 && !r->custom)
        job.all_nan = !push_single_elements (r, rows, n_rows, out);
      else
        plan_parallel_for (r->n_threads, n_rows, grain, rows_func, &job);
      r->n_rows += n_rows;
      r->next_row += n_rows;
      r->run_rows += n_rows;
      if (job.all_nan)
        goto all_nan;
      return TRUE;
    }
  }
  r->n_rows += n_rows;
  r->next_row += n_rows;
  r->run_rows += n_rows;
  return TRUE;

  /* ERRORS */
all_nan:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "cannot compute %s of a row whose values are all NaN (numpy: "
        "All-NaN slice encountered)", r->name);
    return FALSE;
  }
no_out:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "a reduction of each row needs an output for %" G_GSIZE_FORMAT
        " rows", n_rows);
    return FALSE;
  }
}

/* Writes column @c's result to @out; FALSE when nanargmin or nanargmax
 * found only NaNs in it. */
static gboolean
final_column (const PlanReducer * r, const Acc * acc, guint64 n_rows,
    gpointer out, gsize c)
{
  guint8 *o = (guint8 *) out + c * r->out_size;

  if (r->custom)
    memcpy (o, acc->v.raw, r->out_size);
  else
    r->final (r, acc, n_rows, o);
  return !(r->nan_arg && acc->index == G_MAXUINT64);
}

static const gchar *
numpy_op_name (PlanReduceOp op)
{
  switch (op) {
    case PLAN_REDUCE_OP_MIN:
      return "zero-size array to reduction operation minimum which has no "
          "identity";
    case PLAN_REDUCE_OP_MAX:
    case PLAN_REDUCE_OP_PTP:
      return "zero-size array to reduction operation maximum which has no "
          "identity";
    case PLAN_REDUCE_OP_NANMIN:
      return "zero-size array to reduction operation fmin which has no "
          "identity";
    case PLAN_REDUCE_OP_NANMAX:
      return "zero-size array to reduction operation fmax which has no "
          "identity";
    case PLAN_REDUCE_OP_ARGMIN:
    case PLAN_REDUCE_OP_NANARGMIN:
      return "attempt to get argmin of an empty sequence";
    default:
      return "attempt to get argmax of an empty sequence";
  }
}

/**
 * plan_reducer_finish:
 * @reducer: a #PlanReducer
 * @out: (nullable): room for the result (the output info's number of
 *   elements, of its dtype); may be %NULL with #PLAN_REDUCE_AXIS_INNER
 * @error: return location for a #GError
 *
 * Completes the reduction at the end of the stream and writes the result
 * to @out (nothing with #PLAN_REDUCE_AXIS_INNER, whose results were
 * written by plan_reducer_push()). The reducer keeps its state; call
 * plan_reducer_reset() before reducing another stream.
 *
 * Returns: %TRUE, or %FALSE with @error set when the stream was empty and
 *   the op has no identity (min, max, argmin, argmax, their nan versions,
 *   ptp), or when nanargmin or nanargmax found only NaNs (in a column with
 *   #PLAN_REDUCE_AXIS_ROWS), as numpy raises.
 *
 * Since: 0.1
 */
gboolean
plan_reducer_finish (PlanReducer * reducer, gpointer out, GError ** error)
{
  PlanReducer *r = reducer;
  Tree t;
  Acc acc, block;
  gsize c;

  g_return_val_if_fail (reducer != NULL, FALSE);
  g_return_val_if_fail (out != NULL || r->mode == PLAN_REDUCE_AXIS_INNER,
      FALSE);

  if (r->mode == PLAN_REDUCE_AXIS_INNER)
    return TRUE;
  if (r->n_runs > 0 || r->run_first > 0)
    goto sharded;
  if (r->n_rows == 0 && !r->custom && !plan_reduce_op_has_identity (r->op))
    goto empty;

  if (r->mode == PLAN_REDUCE_AXIS_ROWS) {
    for (c = 0; c < r->row_elements; c++) {
      column_fold (r, r->cols, r->cols_raw, r->col_nodes, r->depth,
          r->n_rows % r->col_rows != 0, c, &acc);
      if (!final_column (r, &acc, r->n_rows, out, c))
        goto all_nan;
    }
    return TRUE;
  }

  t.stack = r->stack;
  t.levels = r->levels;
  t.starts = r->starts;
  t.depth = r->depth;
  if (r->staged > 0) {
    r->block (r, r->staging, r->staged, r->n_blocks * BLOCK, &block,
        r->scratch);
    tree_fold (r, &t, &block, &acc);
  } else {
    tree_fold (r, &t, NULL, &acc);
  }
  if (r->custom)
    memcpy (out, acc.v.raw, r->out_size);
  else
    r->final (r, &acc, r->n_rows * r->row_elements, out);
  if (r->nan_arg && acc.index == G_MAXUINT64)
    goto all_nan;
  return TRUE;

  /* ERRORS */
all_nan:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "cannot compute %s: %s (numpy: All-NaN slice encountered)", r->name,
        r->mode == PLAN_REDUCE_AXIS_ROWS ? "a column's values are all NaN"
        : "every value is NaN");
    return FALSE;
  }
empty:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "cannot compute %s of an empty stream: %s has no identity "
        "(numpy: %s)", r->name, r->name, numpy_op_name (r->op));
    return FALSE;
  }
sharded:
  {
    /* Rows from elsewhere than row 0: one shard's result is no result. */
    GBytes *part = plan_reducer_export (r);
    gboolean ok = plan_reducer_finish_parts (r, &part, 1, out, error);

    g_bytes_unref (part);
    return ok;
  }
}

/* Shards -----------------------------------------------------------------
 *
 * A reducer given the rows of one shard of a stream (from global row
 * plan_reducer_set_origin()) keeps what the single run's tree needs from
 * it: the nodes of the blocks wholly inside the shard and, raw, the
 * elements of the block it shares with the shard before it; the block it
 * shares with the shard after it is kept raw (mode ALL) or as its open
 * column blocks (mode ROWS, which the next shard's raw rows continue). The
 * parts of all shards then rebuild exactly the tree of one run over the
 * whole stream (plan_reducer_finish_parts()), so that the result is
 * bit-identical to it whatever the shards. */

#define PART_MAGIC 0x706c7264u    /* "plrd" */

typedef struct
{
  guint64 first_row;
  guint64 n_rows;
  const guint8 *head;           /* elements (rows) before the first block */
  guint64 head_len;
  guint32 depth;
  const guint8 *nodes;          /* depth x (level, start, Acc x columns) */
  const guint8 *tail;           /* mode ALL: elements after the last whole
                                 * block */
  guint64 tail_len;             /* elements in tail (mode ALL), rows in
                                 * cols (mode ROWS) */
  const guint8 *cols;           /* mode ROWS: row_elements Acc */
  const guint8 *cols_raw;       /* custom: row_elements x acc_size */
} Run;

static void
append (GByteArray * out, gconstpointer data, gsize size)
{
  g_byte_array_append (out, data, size);
}

static void
append_u64 (GByteArray * out, guint64 v)
{
  append (out, &v, sizeof v);
}

/* Serializes the current run to @out. */
static void
serialize_run (PlanReducer * r, GByteArray * out)
{
  gboolean all = r->mode == PLAN_REDUCE_AXIS_ALL;
  gsize head_size = all ? r->in_size : r->row_elements * r->in_size;
  gsize width = all ? 1 : r->row_elements;
  guint32 depth = r->depth;
  guint i;

  append_u64 (out, r->run_first);
  append_u64 (out, r->run_rows);
  append_u64 (out, r->head_len);
  append (out, r->head, r->head_len * head_size);
  append (out, &depth, sizeof depth);
  for (i = 0; i < r->depth; i++) {
    guint32 level = r->levels[i];

    append (out, &level, sizeof level);
    append_u64 (out, r->starts[i]);
    append (out, all ? &r->stack[i] : &r->col_nodes[i * width],
        width * sizeof (Acc));
  }
  if (all) {
    append_u64 (out, r->staged);
    append (out, r->staging, r->staged * r->in_size);
  } else {
    /* The open blocks hold the rows since the last block boundary, unless
     * every row so far went to head. */
    append_u64 (out, r->head_len < r->head_want ? 0 :
        r->next_row % r->col_rows);
    append (out, r->cols, r->row_elements * sizeof (Acc));
    if (r->custom)
      append (out, r->cols_raw, r->row_elements * r->acc_size);
  }
}

/**
 * plan_reducer_set_origin:
 * @reducer: a #PlanReducer
 * @first_row: the global row of the next row pushed
 *
 * Says that the rows pushed from now on are the rows of a longer stream
 * from @first_row on: one rank's share of a stream sharded across an MPI
 * job, say. A reducer that was given rows from elsewhere than row 0 keeps
 * what the other shards need to complete its result, plan_reducer_export()
 * gives it, and plan_reducer_finish_parts() on one rank combines every
 * shard's part into the result of the whole stream, bit-identical to one
 * reducer given every row. Called again, it starts a new run of rows
 * (rows that wrap around to the stream's start); plan_reducer_reset()
 * forgets it all.
 * Not for #PLAN_REDUCE_AXIS_INNER, whose results are per row anyway.
 *
 * Since: 0.1
 */
void
plan_reducer_set_origin (PlanReducer * reducer, guint64 first_row)
{
  PlanReducer *r = reducer;

  g_return_if_fail (reducer != NULL);

  if (r->run_rows > 0) {
    if (r->runs == NULL)
      r->runs = g_byte_array_new ();
    serialize_run (r, r->runs);
    r->n_runs++;
  }
  clear_run (r);
  r->run_first = first_row;
  r->next_row = first_row;
  if (r->mode == PLAN_REDUCE_AXIS_ALL) {
    guint64 g0 = first_row * r->row_elements;

    r->head_want = (BLOCK - g0 % BLOCK) % BLOCK;
    r->n_blocks = (g0 + r->head_want) / BLOCK;
    if (r->head == NULL && r->head_want > 0)
      r->head = g_malloc (BLOCK * r->in_size);
  } else if (r->mode == PLAN_REDUCE_AXIS_ROWS) {
    r->head_want = (r->col_rows - first_row % r->col_rows) % r->col_rows;
    if (r->head == NULL && r->head_want > 0)
      r->head = g_malloc (r->col_rows * r->row_elements * r->in_size);
  }
}

/**
 * plan_reducer_export:
 * @reducer: a #PlanReducer
 *
 * Returns: (transfer full): what plan_reducer_finish_parts() needs of the
 *   rows given so far, in this machine's byte order
 *
 * Since: 0.1
 */
GBytes *
plan_reducer_export (PlanReducer * reducer)
{
  PlanReducer *r = reducer;
  GByteArray *out;
  guint32 header[2];

  g_return_val_if_fail (reducer != NULL, NULL);

  out = g_byte_array_new ();
  header[0] = PART_MAGIC;
  header[1] = r->n_runs + (r->run_rows > 0 ? 1 : 0);
  append (out, header, sizeof header);
  if (r->runs)
    append (out, r->runs->data, r->runs->len);
  if (r->run_rows > 0)
    serialize_run (r, out);
  return g_byte_array_free_to_bytes (out);
}

typedef struct
{
  const guint8 *p;
  const guint8 *end;
  gboolean bad;
} Reader;

static const guint8 *
take (Reader * rd, gsize size)
{
  const guint8 *p = rd->p;

  if (rd->bad || (gsize) (rd->end - rd->p) < size) {
    rd->bad = TRUE;
    return NULL;
  }
  rd->p += size;
  return p;
}

static guint64
take_u64 (Reader * rd)
{
  const guint8 *p = take (rd, sizeof (guint64));
  guint64 v = 0;

  if (p)
    memcpy (&v, p, sizeof v);
  return v;
}

static gboolean
parse_part (PlanReducer * r, GBytes * part, GArray * runs)
{
  gboolean all = r->mode == PLAN_REDUCE_AXIS_ALL;
  gsize head_size = all ? r->in_size : r->row_elements * r->in_size;
  gsize width = all ? 1 : r->row_elements;
  gsize size;
  Reader rd;
  const guint8 *h;
  guint32 header[2], i;

  rd.p = g_bytes_get_data (part, &size);
  rd.end = rd.p + size;
  rd.bad = FALSE;
  h = take (&rd, sizeof header);
  if (h == NULL)
    return FALSE;
  memcpy (header, h, sizeof header);
  if (header[0] != PART_MAGIC)
    return FALSE;
  for (i = 0; i < header[1] && !rd.bad; i++) {
    Run run = { 0, };
    guint32 depth = 0;
    const guint8 *d;

    run.first_row = take_u64 (&rd);
    run.n_rows = take_u64 (&rd);
    run.head_len = take_u64 (&rd);
    if (run.head_len > (all ? BLOCK : r->col_rows))
      return FALSE;
    run.head = take (&rd, run.head_len * head_size);
    d = take (&rd, sizeof depth);
    if (d)
      memcpy (&depth, d, sizeof depth);
    if (depth > STACK_SIZE)
      return FALSE;
    run.depth = depth;
    run.nodes = take (&rd, depth * (sizeof (guint32) + sizeof (guint64) +
            width * sizeof (Acc)));
    run.tail_len = take_u64 (&rd);
    if (run.tail_len > (all ? BLOCK : r->col_rows))
      return FALSE;
    if (all) {
      run.tail = take (&rd, run.tail_len * r->in_size);
    } else {
      run.cols = take (&rd, r->row_elements * sizeof (Acc));
      if (r->custom)
        run.cols_raw = take (&rd, r->row_elements * r->acc_size);
    }
    if (!rd.bad)
      g_array_append_val (runs, run);
  }
  return !rd.bad && rd.p == rd.end;
}

static gint
compare_runs (gconstpointer a, gconstpointer b)
{
  const Run *x = a, *y = b;

  return x->first_row < y->first_row ? -1 : x->first_row > y->first_row;
}

/* Mode ALL: elements in stream order into the staging block, whose
 * complete blocks join the tree. */
typedef struct
{
  PlanReducer *r;
  Tree t;
  guint8 *stage;
  gsize staged;
  guint64 pos;                  /* the global index of the next element */
} Assembly;

static void
feed_raw (Assembly * a, const guint8 * data, gsize n)
{
  PlanReducer *r = a->r;
  gsize es = r->in_size;

  while (n > 0) {
    gsize take_n = MIN (n, BLOCK - a->staged);

    memcpy (a->stage + a->staged * es, data, take_n * es);
    a->staged += take_n;
    a->pos += take_n;
    data += take_n * es;
    n -= take_n;
    if (a->staged == BLOCK) {
      Acc block;

      r->block (r, a->stage, BLOCK, a->pos - BLOCK, &block, r->scratch);
      tree_push (r, &a->t, &block, (a->pos - BLOCK) / BLOCK);
      a->staged = 0;
    }
  }
}

static gboolean
assemble_all (PlanReducer * r, GArray * runs, Acc * out)
{
  Acc stack[STACK_SIZE];
  guint levels[STACK_SIZE];
  guint64 starts[STACK_SIZE];
  Assembly a = { r, {stack, levels, starts, 0}, NULL, 0, 0 };
  guint i, k;

  a.stage = g_malloc (BLOCK * r->in_size);
  for (i = 0; i < runs->len; i++) {
    const Run *run = &g_array_index (runs, Run, i);
    const guint8 *node = run->nodes;

    feed_raw (&a, run->head, run->head_len);
    for (k = 0; k < run->depth; k++) {
      guint32 level;
      guint64 start;
      Acc acc;

      memcpy (&level, node, sizeof level);
      memcpy (&start, node + sizeof level, sizeof start);
      memcpy (&acc, node + sizeof level + sizeof start, sizeof acc);
      node += sizeof level + sizeof start + sizeof acc;
      /* A node starts at a block the elements so far end at. */
      if (a.staged != 0 || level >= 64 || start * BLOCK != a.pos)
        goto misaligned;
      tree_push_node (r, &a.t, &acc, level, start);
      a.pos += ((guint64) BLOCK) << level;
    }
    feed_raw (&a, run->tail, run->tail_len);
  }
  if (a.staged > 0) {
    Acc partial;

    r->block (r, a.stage, a.staged, a.pos - a.staged, &partial, r->scratch);
    tree_fold (r, &a.t, &partial, out);
  } else {
    tree_fold (r, &a.t, NULL, out);
  }
  g_free (a.stage);
  return TRUE;

misaligned:
  g_free (a.stage);
  return FALSE;
}

/* Mode ROWS: each run's raw rows continue the open blocks, its nodes join
 * the columns' trees, and its open blocks are the next run's to continue.
 * The open blocks live in @r's cols and cols_raw while it runs (a custom
 * combiner's column function folds into cols_raw), and are given back. */
static gboolean
assemble_columns (PlanReducer * r, GArray * runs, Acc * results)
{
  gsize w = r->row_elements, row_size = w * r->in_size, c;
  guint64 R = r->col_rows, pos = 0, fill = 0;
  guint levels[STACK_SIZE];
  guint64 starts[STACK_SIZE];
  Tree t = { NULL, levels, starts, 0 };
  Acc *own_cols = r->cols, *cols = g_new (Acc, w), *nodes = NULL;
  guint8 *own_raw = r->cols_raw, *raw = NULL;
  gpointer scratch = scratch_new (r, 2 * w);
  gboolean ok = FALSE;
  guint slots = 0, i, k;

  if (r->custom)
    raw = g_malloc (w * r->acc_size);
  for (c = 0; c < w; c++)
    column_set_open (r, cols, raw, c, &r->identity);
  r->cols = cols;
  r->cols_raw = raw;
  for (i = 0; i < runs->len; i++) {
    const Run *run = &g_array_index (runs, Run, i);
    const guint8 *node = run->nodes;

    for (k = 0; k < run->head_len; k++) {
      r->column (r, cols, 0, w, run->head + k * row_size, pos, scratch);
      pos++;
      fill++;
      if (pos % R == 0) {
        guint depth = t.depth, merges = tree_place (&t, 0, pos / R - 1);

        ensure_slots (&nodes, &slots, t.depth, w);
        columns_push (r, cols, raw, nodes, 0, w, depth - merges, merges);
        fill = 0;
      }
    }
    for (k = 0; k < run->depth; k++) {
      guint32 level;
      guint64 start;
      guint depth = t.depth, merges;

      memcpy (&level, node, sizeof level);
      memcpy (&start, node + sizeof level, sizeof start);
      node += sizeof level + sizeof start;
      /* A node starts at a block the rows so far end at. */
      if (fill != 0 || level >= 64 || start * R != pos)
        goto done;
      for (c = 0; c < w; c++) {
        Acc acc;

        memcpy (&acc, node + c * sizeof (Acc), sizeof acc);
        column_set_open (r, cols, raw, c, &acc);
      }
      node += w * sizeof (Acc);
      merges = tree_place (&t, level, start);
      ensure_slots (&nodes, &slots, t.depth, w);
      columns_push (r, cols, raw, nodes, 0, w, depth - merges, merges);
      pos += R << level;
    }
    if (run->tail_len > 0) {
      if (fill != 0 || pos % R != 0)
        goto done;
      for (c = 0; c < w; c++) {
        Acc acc;

        memcpy (&acc, run->cols + c * sizeof (Acc), sizeof acc);
        if (raw)
          memcpy (acc.v.raw, run->cols_raw + c * r->acc_size, r->acc_size);
        column_set_open (r, cols, raw, c, &acc);
      }
      fill = run->tail_len;
      pos += fill;
    }
    if (pos != run->first_row + run->n_rows)
      goto done;
  }
  for (c = 0; c < w; c++)
    column_fold (r, cols, raw, nodes, t.depth, fill > 0, c, &results[c]);
  ok = TRUE;

done:
  r->cols = own_cols;
  r->cols_raw = own_raw;
  g_free (cols);
  g_free (raw);
  g_free (nodes);
  g_free (scratch);
  return ok;
}

/**
 * plan_reducer_finish_parts:
 * @reducer: a #PlanReducer of the same op, axis and input as the ones
 *   that made @parts
 * @parts: (array length=n_parts): what plan_reducer_export() gave on each
 *   shard, in any order
 * @n_parts: the number of parts
 * @out: where the result goes, as for plan_reducer_finish()
 * @error: return location for a #GError
 *
 * Computes the result of the whole stream from its shards' parts, which
 * must cover its rows from 0 with neither gap nor overlap. @reducer's own
 * rows are not used: give its part among @parts.
 *
 * Returns: %TRUE, or %FALSE with @error set: as plan_reducer_finish(), or
 *   parts that are not a reducer's or leave rows out
 *
 * Since: 0.1
 */
gboolean
plan_reducer_finish_parts (PlanReducer * reducer, GBytes ** parts,
    guint n_parts, gpointer out, GError ** error)
{
  PlanReducer *r = reducer;
  GArray *runs;
  guint64 expected = 0, n_rows;
  Acc acc;
  guint i;
  gsize c;

  g_return_val_if_fail (reducer != NULL, FALSE);
  g_return_val_if_fail (parts != NULL || n_parts == 0, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  g_return_val_if_fail (r->mode != PLAN_REDUCE_AXIS_INNER, FALSE);

  runs = g_array_new (FALSE, FALSE, sizeof (Run));
  for (i = 0; i < n_parts; i++)
    if (!parse_part (r, parts[i], runs))
      goto bad_part;
  g_array_sort (runs, compare_runs);
  for (i = 0; i < runs->len; i++) {
    const Run *run = &g_array_index (runs, Run, i);

    if (run->first_row != expected)
      goto gap;
    expected += run->n_rows;
  }
  n_rows = expected;
  if (n_rows == 0 && !r->custom && !plan_reduce_op_has_identity (r->op))
    goto empty;

  if (r->mode == PLAN_REDUCE_AXIS_ROWS) {
    Acc *results = g_new (Acc, r->row_elements);
    gboolean nan_column = FALSE;

    if (!assemble_columns (r, runs, results)) {
      g_free (results);
      goto bad_part;
    }
    for (c = 0; c < r->row_elements; c++)
      nan_column |= !final_column (r, &results[c], n_rows, out, c);
    g_free (results);
    if (nan_column)
      goto all_nan;
    g_array_unref (runs);
    return TRUE;
  }

  if (!assemble_all (r, runs, &acc))
    goto bad_part;
  g_array_unref (runs);
  if (r->custom)
    memcpy (out, acc.v.raw, r->out_size);
  else
    r->final (r, &acc, n_rows * r->row_elements, out);
  if (r->nan_arg && acc.index == G_MAXUINT64)
    goto all_nan_done;
  return TRUE;

  /* ERRORS */
bad_part:
  {
    g_array_unref (runs);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "a part to combine is not the state of a %s reducer of this input",
        r->name);
    return FALSE;
  }
gap:
  {
    const Run *run = &g_array_index (runs, Run, i);

    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "the shards of %s do not cover the stream: after row %"
        G_GUINT64_FORMAT " comes a shard from row %" G_GUINT64_FORMAT,
        r->name, expected, run->first_row);
    g_array_unref (runs);
    return FALSE;
  }
empty:
  {
    g_array_unref (runs);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "cannot compute %s of an empty stream: %s has no identity "
        "(numpy: %s)", r->name, r->name, numpy_op_name (r->op));
    return FALSE;
  }
all_nan:
  g_array_unref (runs);
all_nan_done:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "cannot compute %s: %s (numpy: All-NaN slice encountered)", r->name,
        r->mode == PLAN_REDUCE_AXIS_ROWS ? "a column's values are all NaN"
        : "every value is NaN");
    return FALSE;
  }
}

/**
 * plan_reducer_reduce:
 * @reducer: a #PlanReducer
 * @data: (array) (element-type guint8): @n_rows rows, C-contiguous
 * @n_rows: the number of rows
 * @out: where the result goes: the output info's elements, or @n_rows
 *   results for #PLAN_REDUCE_AXIS_INNER
 * @error: return location for a #GError
 *
 * Reduces a whole array in memory: plan_reducer_reset(),
 * plan_reducer_push() and plan_reducer_finish() in one call. The result is
 * the same as that of the array streamed in chunks.
 *
 * Returns: %TRUE, or %FALSE with @error set as plan_reducer_finish() does.
 *
 * Since: 0.1
 */
gboolean
plan_reducer_reduce (PlanReducer * reducer, gconstpointer data,
    gsize n_rows, gpointer out, GError ** error)
{
  gboolean inner;

  g_return_val_if_fail (reducer != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  inner = reducer->mode == PLAN_REDUCE_AXIS_INNER;
  plan_reducer_reset (reducer);
  return plan_reducer_push (reducer, data, n_rows, inner ? out : NULL, error)
      && plan_reducer_finish (reducer, inner ? NULL : out, error);
}

/* Messages ----------------------------------------------------------------- */

static void
value_to_gvalue (PlanDType dtype, const guint8 * p, GValue * v)
{
  switch (dtype) {
    case PLAN_DTYPE_BOOL:
      g_value_init (v, G_TYPE_BOOLEAN);
      g_value_set_boolean (v, *p != 0);
      break;
    case PLAN_DTYPE_INT8:
      g_value_init (v, G_TYPE_INT64);
      g_value_set_int64 (v, *(const gint8 *) p);
      break;
    case PLAN_DTYPE_UINT8:
      g_value_init (v, G_TYPE_UINT64);
      g_value_set_uint64 (v, *p);
      break;
    case PLAN_DTYPE_INT16:
      g_value_init (v, G_TYPE_INT64);
      g_value_set_int64 (v, *(const gint16 *) p);
      break;
    case PLAN_DTYPE_UINT16:
      g_value_init (v, G_TYPE_UINT64);
      g_value_set_uint64 (v, *(const guint16 *) p);
      break;
    case PLAN_DTYPE_INT32:
      g_value_init (v, G_TYPE_INT64);
      g_value_set_int64 (v, *(const gint32 *) p);
      break;
    case PLAN_DTYPE_UINT32:
      g_value_init (v, G_TYPE_UINT64);
      g_value_set_uint64 (v, *(const guint32 *) p);
      break;
    case PLAN_DTYPE_INT64:
      g_value_init (v, G_TYPE_INT64);
      g_value_set_int64 (v, *(const gint64 *) p);
      break;
    case PLAN_DTYPE_UINT64:
      g_value_init (v, G_TYPE_UINT64);
      g_value_set_uint64 (v, *(const guint64 *) p);
      break;
    case PLAN_DTYPE_FLOAT32:
      g_value_init (v, G_TYPE_DOUBLE);
      g_value_set_double (v, *(const gfloat *) p);
      break;
    default:
      g_value_init (v, G_TYPE_DOUBLE);
      g_value_set_double (v, *(const gdouble *) p);
      break;
  }
}

static void
set_shape (GstStructure * s, guint ndim, const gint64 * shape)
{
  GValue array = G_VALUE_INIT;
  guint i;

  gst_value_array_init (&array, ndim);
  for (i = 0; i < ndim; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_INT64);
    g_value_set_int64 (&v, shape[i]);
    gst_value_array_append_and_take_value (&array, &v);
  }
  gst_structure_take_value (s, "shape", &array);
}

/**
 * plan_reducer_make_structure:
 * @reducer: a #PlanReducer
 * @element_name: (nullable): the name of the element that reduced, for the
 *   `element` field
 * @values: (array) (element-type guint8): results, of the output dtype: as
 *   written by plan_reducer_finish(), or @n_rows results of one
 *   plan_reducer_push() with #PLAN_REDUCE_AXIS_INNER
 * @n_rows: with #PLAN_REDUCE_AXIS_INNER, the number of results in @values;
 *   ignored otherwise
 * @first_row: with #PLAN_REDUCE_AXIS_INNER, the index of the row of the
 *   first result; ignored otherwise
 *
 * Describes results in a #GstStructure named #PLAN_REDUCER_MESSAGE_NAME,
 * the body of planreduce's element message, with the fields
 * `element` (string), `op` (string: the op's nick or the combiner),
 * `dtype` (string), `shape` (array of gint64: the result's shape, (n_rows,)
 * for #PLAN_REDUCE_AXIS_INNER) and either `value` (a 0-d result) or
 * `values` (an array, in C order), and `array` (a #PlanArray of the
 * result's own dtype and shape, the form language bindings read). Values
 * are gboolean for bool results, gint64 for signed integers, guint64 for
 * unsigned ones and gdouble for floats. With #PLAN_REDUCE_AXIS_INNER there is also `first-row` (guint64);
 * otherwise `rows` (guint64), the number of input rows reduced.
 *
 * Returns: (transfer full): a new structure.
 *
 * Since: 0.1
 */
GstStructure *
plan_reducer_make_structure (PlanReducer * reducer,
    const gchar * element_name, gconstpointer values, gsize n_rows,
    guint64 first_row)
{
  PlanReducer *r = reducer;
  GstStructure *s;
  PlanArray *array;
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  guint ndim, i;
  gsize n = 1, k;

  g_return_val_if_fail (reducer != NULL, NULL);
  g_return_val_if_fail (values != NULL, NULL);

  s = gst_structure_new (PLAN_REDUCER_MESSAGE_NAME,
      "element", G_TYPE_STRING, element_name,
      "op", G_TYPE_STRING, r->name,
      "dtype", G_TYPE_STRING, plan_dtype_to_string (r->output.dtype), NULL);
  if (r->mode == PLAN_REDUCE_AXIS_INNER) {
    ndim = 1;
    shape[0] = n_rows;
    n = n_rows;
  } else {
    ndim = r->output.ndim;
    for (i = 0; i < ndim; i++) {
      shape[i] = r->output.shape[i];
      n *= shape[i];
    }
  }
  set_shape (s, ndim, shape);

  if (ndim == 0) {
    GValue v = G_VALUE_INIT;

    value_to_gvalue (r->output.dtype, values, &v);
    gst_structure_take_value (s, "value", &v);
  } else {
    GValue array = G_VALUE_INIT;

    gst_value_array_init (&array, n);
    for (k = 0; k < n; k++) {
      GValue v = G_VALUE_INIT;

      value_to_gvalue (r->output.dtype,
          (const guint8 *) values + k * r->out_size, &v);
      gst_value_array_append_and_take_value (&array, &v);
    }
    gst_structure_take_value (s, "values", &array);
  }

  array = plan_array_new (r->output.dtype, ndim, shape, NULL);
  if (array) {
    memcpy (plan_array_get_writable_data (array, NULL), values,
        n * r->out_size);
    gst_structure_set (s, "array", PLAN_TYPE_ARRAY, array, NULL);
    g_object_unref (array);
  }

  if (r->mode == PLAN_REDUCE_AXIS_INNER)
    gst_structure_set (s, "first-row", G_TYPE_UINT64, first_row, NULL);
  else
    gst_structure_set (s, "rows", G_TYPE_UINT64, r->n_rows, NULL);
  return s;
}

/* The device's steps ------------------------------------------------------ */

#include "planreducer-private.h"
#include "planreducerdevice.h"

G_STATIC_ASSERT (sizeof (Acc) == sizeof (PrkAcc));
G_STATIC_ASSERT (G_STRUCT_OFFSET (Acc, w) == G_STRUCT_OFFSET (PrkAcc, w));
G_STATIC_ASSERT (PRK_BLOCK == BLOCK && PRK_LANES == LANES);

/* A custom combiner's steps for the device steps on the host: the CPU's
 * own block, merge and column update. */
static void
hook_block (void *data, const void *x, prk_u64 n, prk_u64 base,
    PrkAcc * out)
{
  PlanReducer *r = data;

  block_custom (r, x, n, base, (Acc *) out, r->scratch);
}

static void
hook_merge (void *data, PrkAcc * a, const PrkAcc * b)
{
  merge_custom (data, (Acc *) a, (const Acc *) b);
}

static void
hook_column (void *data, PrkAcc * a, const void *x, prk_u64 c)
{
  PlanReducer *r = data;
  const guint8 *xc = (const guint8 *) x + c * r->in_size;
  gconstpointer inputs[2];
  Value converted, result;

  inputs[0] = a->v.raw;
  inputs[1] = xc;
  if (r->cast) {
    gconstpointer cast_in[1] = { xc };

    plan_expr_eval (r->cast, cast_in, converted.raw, 1);
    inputs[1] = converted.raw;
  }
  plan_expr_eval (r->combiner, inputs, result.raw, 1);
  memcpy (a->v.raw, result.raw, r->acc_size);
}

/**
 * _plan_reducer_get_custom_exprs:
 *
 * The combiner and the cast (NULL when none) of a custom reducer.
 */
void
_plan_reducer_get_custom_exprs (PlanReducer * reducer, PlanExpr ** combiner,
    PlanExpr ** cast)
{
  *combiner = reducer->custom ? reducer->combiner : NULL;
  *cast = reducer->custom ? reducer->cast : NULL;
}

/**
 * plan_reducer_get_device_steps: (skip)
 * @reducer: a #PlanReducer
 * @params: (out caller-allocates): the parameters of the steps of
 *   planreducer-steps.h that compute what @reducer computes
 * @mode: (out) (optional): the axis as run (#PLAN_REDUCE_AXIS_ROWS of 1-D
 *   input runs as #PLAN_REDUCE_AXIS_ALL)
 * @row_elements: (out) (optional): elements per input row
 *
 * Describes the reducer's block, merge, column and final functions as the
 * device steps: the algorithm of the block function the reducer picked for
 * its op and dtype, its final, its identity and ddof. Unstable API.
 *
 * For a custom combiner the algorithm is %PRK_A_CUSTOM, whose host steps
 * call the reducer's own block and merge (through @params' hooks).
 *
 * Returns: %TRUE
 * Since: 0.1
 */
gboolean
plan_reducer_get_device_steps (PlanReducer * reducer, PrkParams * params,
    PlanReduceAxis * mode, gsize * row_elements)
{
  PlanReducer *r = reducer;
  PlanDType dt;
  PlanReduceOp op;
  PrkParams *p = params;

  g_return_val_if_fail (reducer != NULL, FALSE);
  g_return_val_if_fail (params != NULL, FALSE);

  dt = r->input.dtype;
  memset (p, 0, sizeof (*p));
  if (mode)
    *mode = r->mode;
  if (row_elements)
    *row_elements = r->row_elements;
  p->out_size = r->out_size;
  p->col_rows = MAX (r->col_rows, 1);
  if (r->custom) {
    static const PrkHooks hooks = { hook_block, hook_merge, hook_column };

    p->algo = PRK_A_CUSTOM;
    p->final = PRK_F_RAW;
    p->dtype = dt;
    p->kind = dtype_kind (dt);
    p->out_dtype = r->output.dtype;
    p->in_size = r->in_size;
    memcpy (&p->identity, &r->identity, sizeof (p->identity));
    p->hooks = &hooks;
    p->hook_data = r;
    return TRUE;
  }

  /* The choices of select_builtin(), by op and dtype (function pointers
   * of the target_clones block functions do not compare reliably). */
  op = plan_dtype_is_float (dt) ? r->op : plain_op (r->op);
  switch (op) {
    case PLAN_REDUCE_OP_SUM:
      p->algo = !plan_dtype_is_float (dt) ? PRK_A_ISUM
          : needs_compensation (dt) ? PRK_A_KSUM : PRK_A_DSUM;
      p->final = plan_dtype_is_float (dt) ? PRK_F_SUM : PRK_F_U64;
      break;
    case PLAN_REDUCE_OP_MEAN:
      p->algo = needs_compensation (dt) ? PRK_A_KSUM : PRK_A_DSUM;
      p->final = PRK_F_MEAN;
      break;
    case PLAN_REDUCE_OP_PROD:
      p->algo = plan_dtype_is_float (dt) ? PRK_A_FPROD : PRK_A_IPROD;
      p->final = plan_dtype_is_float (dt) ? PRK_F_PROD : PRK_F_U64;
      break;
    case PLAN_REDUCE_OP_MIN:
    case PLAN_REDUCE_OP_MAX:
      p->algo = op == PLAN_REDUCE_OP_MIN ? PRK_A_MIN : PRK_A_MAX;
      p->final = PRK_F_VALUE;
      break;
    case PLAN_REDUCE_OP_ARGMIN:
    case PLAN_REDUCE_OP_ARGMAX:
      p->algo = op == PLAN_REDUCE_OP_ARGMIN ? PRK_A_ARGMIN : PRK_A_ARGMAX;
      p->final = PRK_F_INDEX;
      break;
    case PLAN_REDUCE_OP_ANY:
    case PLAN_REDUCE_OP_ALL:
      p->algo = op == PLAN_REDUCE_OP_ANY ? PRK_A_ANY : PRK_A_ALL;
      p->final = PRK_F_BOOL;
      break;
    case PLAN_REDUCE_OP_NANSUM:
      p->algo = dt == PLAN_DTYPE_FLOAT32 ? PRK_A_NANDSUM : PRK_A_NANKSUM;
      p->final = PRK_F_SUM;
      break;
    case PLAN_REDUCE_OP_NANPROD:
      p->algo = PRK_A_NANFPROD;
      p->final = PRK_F_PROD;
      break;
    case PLAN_REDUCE_OP_NANMEAN:
      p->algo = PRK_A_NANMEAN;
      p->final = PRK_F_NANMEAN;
      break;
    case PLAN_REDUCE_OP_NANMIN:
    case PLAN_REDUCE_OP_NANMAX:
      p->algo = op == PLAN_REDUCE_OP_NANMIN ? PRK_A_NANMIN : PRK_A_NANMAX;
      p->final = PRK_F_NANEXTREME;
      break;
    case PLAN_REDUCE_OP_NANARGMIN:
    case PLAN_REDUCE_OP_NANARGMAX:
      p->algo = op == PLAN_REDUCE_OP_NANARGMIN ? PRK_A_NANARGMIN :
          PRK_A_NANARGMAX;
      p->final = PRK_F_INDEX;
      break;
    case PLAN_REDUCE_OP_VAR:
    case PLAN_REDUCE_OP_STD:
    case PLAN_REDUCE_OP_NANVAR:
    case PLAN_REDUCE_OP_NANSTD:
      p->algo = op == PLAN_REDUCE_OP_VAR || op == PLAN_REDUCE_OP_STD ?
          PRK_A_VAR : PRK_A_NANVAR;
      p->final = op == PLAN_REDUCE_OP_VAR || op == PLAN_REDUCE_OP_NANVAR ?
          PRK_F_VAR : PRK_F_STD;
      break;
    case PLAN_REDUCE_OP_COUNT_NONZERO:
      p->algo = PRK_A_NONZERO;
      p->final = PRK_F_U64;
      break;
    case PLAN_REDUCE_OP_PTP:
      p->algo = PRK_A_PTP;
      p->final = PRK_F_PTP;
      break;
  }

  p->dtype = dt;
  p->kind = dtype_kind (dt);
  p->out_dtype = r->output.dtype;
  p->nan_arg = r->nan_arg;
  p->nan_var = r->op == PLAN_REDUCE_OP_NANVAR
      || r->op == PLAN_REDUCE_OP_NANSTD;
  p->in_size = r->in_size;
  p->ddof = r->ddof;
  memcpy (&p->identity, &r->identity, sizeof (p->identity));
  return TRUE;
}

void
_plan_reducer_set_n_rows (PlanReducer * reducer, guint64 n_rows)
{
  reducer->n_rows = n_rows;
}

/* The message of plan_reducer_finish() where nanargmin/nanargmax saw only
 * NaNs. */
const gchar *
_plan_reducer_get_all_nan_text (PlanReducer * reducer)
{
  return reducer->mode == PLAN_REDUCE_AXIS_ROWS
      ? "a column's values are all NaN" : "every value is NaN";
}
