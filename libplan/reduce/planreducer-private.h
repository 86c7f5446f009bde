/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the files of PlanReducer (planreducer*.c) share, and what the
 * CPU reducer and its device twin (planreducer-device.c) share; not
 * installed. */

#ifndef __PLAN_REDUCER_PRIVATE_H__
#define __PLAN_REDUCER_PRIVATE_H__

#include "planreducer.h"
#include "planreducer-steps.h"
#include <libplan/planexpr.h>
#include "libplan/core/plan-private.h"
#include "planreducer-isa.h"

G_BEGIN_DECLS

#define LANES PLAN_REDUCER_LANES
#define BLOCK PLAN_REDUCER_BLOCK_SIZE
/* Enough levels for 2^64 blocks; a run that starts inside the stream (a
 * shard) may hold two nodes of each level. */
#define MAX_LEVELS 64
#define STACK_SIZE (2 * MAX_LEVELS)
/* Blocks per task of the worker threads with PLAN_REDUCE_AXIS_INNER: 512 Ki
 * elements. */
#define BLOCK_GRAIN 256
/* Input bytes per task of the worker threads reducing whole blocks
 * (PLAN_REDUCE_AXIS_ALL) or column blocks (PLAN_REDUCE_AXIS_ROWS on narrow
 * rows): a chunk of 2 MiB (planfilesrc's mapped chunks) is shared by two
 * threads. A task reads its input from memory (the page cache) at some
 * 10 GB/s, about 100 us, against a few us to wake a worker; smaller chunks
 * stay on the calling thread. */
#define TASK_BYTES (1 << 20)
/* Columns per task with PLAN_REDUCE_AXIS_ROWS. */
#define COLUMN_GRAIN 1024
/* Rows of up to COLUMN_GRAIN columns are shared out by column blocks
 * (each thread whole rows, the columns' sums of a block in arrays of its
 * own: 16 bytes a column, twice that compensated), being too few to share
 * by columns. Rows of up to COLUMN_SEGMENT_MAX columns are too, where a
 * chunk ends at least COLUMN_SEGMENTS_MIN blocks; other chunks, and wider
 * rows, by ranges of columns. A thread reading a range of columns reads a
 * piece of every row, a quarter to a half of each row's pages, and loses
 * to blocks there; blocks lose where a chunk has few of them (one
 * continues the open block on the calling thread) and where their arrays
 * outgrow the caches (docs/performance.md has the measurements). */
#define COLUMN_SEGMENT_MAX 8192
#define COLUMN_SEGMENTS_MIN 8
/* Rows of a column block with PLAN_REDUCE_AXIS_ROWS: COLUMN_BLOCK elements
 * of the row's columns, and at least COLUMN_BLOCK_ROWS rows (a block's end
 * costs a merge a column). */
#define COLUMN_BLOCK (32 * BLOCK)
#define COLUMN_BLOCK_ROWS 64

/* One value of any result or accumulator dtype (custom combiners keep
 * the raw bytes of their dtype at the start), and a partial result: the
 * value (the high part of a double-double sum), the low part of a sum, and
 * the index of an argmin/argmax; for the moments the mean, M2 and the
 * count; ptp the minimum in w; complex reductions the imaginary parts in
 * im and im_lo. The CPU reducer and the device steps share them: they are
 * PrkValue and PrkAcc of planreducer-steps.h, whose steps and merges the
 * CPU's loops call. */
typedef PrkValue Value;
typedef PrkAcc Acc;

/* Reduces @n (1 .. BLOCK) contiguous elements whose first has index @base. */
typedef void (*BlockFunc) (const PlanReducer * r, gconstpointer in, gsize n,
    guint64 base, Acc * out, gpointer scratch);
/* a = a (+) b, where a holds earlier elements than b, or lanes. */
typedef void (*MergeFunc) (const PlanReducer * r, Acc * a, const Acc * b);
/* Folds one row into the accumulators @cols of columns [c0, c1). */
typedef void (*ColumnFunc) (PlanReducer * r, Acc * cols, gsize c0, gsize c1,
    gconstpointer row, guint64 row_index, gpointer scratch);
/* Folds @n_rows rows, @row_size bytes apart, into the fields v.f and lo
 * of the accumulators of columns [c0, c1), each field an array. Complex
 * sums run a real one over the parts (_plan_reducer_column_parts()). */
typedef void (*ColumnRowsFunc) (gdouble * restrict v, gdouble * restrict lo,
    const guint8 * rows, gsize n_rows, gsize row_size, gsize c0, gsize c1);
/* Writes the result of @a, over @count elements, in the result dtype. */
typedef void (*FinalFunc) (const PlanReducer * r, const Acc * a, guint64 count, gpointer out);

/* Mode ALL: the whole blocks of one chunk, reduced by tasks on the pool
 * (planreducer-modes.c). Each task merges its blocks into the nodes they
 * make of the run's tree, held in a stack of its own that starts at its
 * first block's slot; the caller then pushes the tasks' nodes, in order,
 * into the run's tree. */
typedef struct
{
  PlanReducer *r;
  const guint8 *data;
  guint64 first_block;          /* the run's index of the chunk's block 0 */
  gsize n_blocks;
  PlanParallelJob *job;         /* while in flight */
  /* [len] each, indexed by block: */
  Acc *results;
  guint *levels;
  guint64 *starts;
  gsize *nodes;                 /* at a task's first block: its nodes */
  gsize *ends;                  /* at a task's first block: its end */
  gsize len;
} ChunkBlocks;

typedef struct _ColumnSegments ColumnSegments;

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
  /* the steps of planreducer-steps.h that compute what the reducer
   * computes (built-in ops): every reducer's final is theirs; complex
   * input runs their block, merge and column too; float16 input runs
   * float32's block and column functions (block16, column16) over the
   * input converted to float32 */
  PrkParams prk;
  BlockFunc block16;
  ColumnFunc column16;

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
  Acc *results;                 /* mode INNER: results of one chunk */
  gsize results_len;
  /* Mode ALL: the whole blocks of a chunk, reduced on the worker threads;
   * two, so that one can be in flight (plan_reducer_push_async()) while
   * the next chunk is handed over. */
  ChunkBlocks chunks[2];
  ChunkBlocks *in_flight;       /* or NULL */
  /* Mode ROWS on narrow rows: the column blocks of a chunk in flight */
  ColumnSegments *columns_in_flight;
  /* Mode ROWS: the open block of each column, and the columns' trees,
   * whose shape (one for all columns) is in levels, starts and depth. */
  gsize col_rows;               /* rows per column block */
  Acc *cols;                    /* [row_elements] */
  guint8 *cols_raw;             /* custom: [row_elements] accumulator dtype */
  Acc *col_nodes;               /* [col_slots][row_elements] */
  guint col_slots;
};

/* The ops and dtypes: their kinds and nan ops (planreducer.c); the choice
 * of their loops (planreducer-ops.c, and planreducer-complex.c for complex
 * and float16 input); the steps' parameters and final
 * (planreducer-steps.c). */

typedef enum
{
  KIND_B,
  KIND_S,
  KIND_U,
  KIND_F,
  KIND_C,
} Kind;

G_GNUC_INTERNAL
Kind _plan_reducer_dtype_kind (PlanDType dtype);

G_GNUC_INTERNAL
gboolean _plan_reducer_needs_compensation (PlanDType dtype);

G_GNUC_INTERNAL
PlanReduceOp _plan_reducer_plain_op (PlanReduceOp op);

G_GNUC_INTERNAL
void _plan_reducer_select_builtin (PlanReducer * r);

G_GNUC_INTERNAL
void _plan_reducer_prepare_steps (PlanReducer * r);

G_GNUC_INTERNAL
void _plan_reducer_select_complex (PlanReducer * r);

G_GNUC_INTERNAL
void _plan_reducer_select_float16 (PlanReducer * r);

/* Custom combiners (planreducer-custom.c). */

G_GNUC_INTERNAL
void _plan_reducer_block_custom (const PlanReducer * r, gconstpointer in,
    gsize n, guint64 base, Acc * out, gpointer scratch);

G_GNUC_INTERNAL
void _plan_reducer_merge_custom (const PlanReducer * r, Acc * a, const Acc * b);

G_GNUC_INTERNAL
void _plan_reducer_column_custom (PlanReducer * r, Acc * cols, gsize c0,
    gsize c1, gconstpointer row, guint64 row_index, gpointer scratch);

G_GNUC_INTERNAL
gboolean _plan_reducer_check_identity (PlanReducer * r, const gchar * identity,
    GError ** error);

G_GNUC_INTERNAL
gboolean _plan_reducer_parse_identity (const gchar * text, PlanDType dtype,
    Value * value, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_reducer_compile_custom (PlanReducer * r, const gchar * combiner,
    GError ** error);

/* The merge tree (planreducer-tree.c): a binary counter over block
 * results; a stack of nodes with their levels and first blocks. */

typedef struct
{
  Acc *stack;
  guint *levels;
  guint64 *starts;
  guint depth;
} Tree;

G_GNUC_INTERNAL
guint _plan_reducer_tree_place (Tree * t, guint level, guint64 start);

G_GNUC_INTERNAL
void _plan_reducer_tree_push_node (const PlanReducer * r, Tree * t,
    const Acc * node, guint level, guint64 start);

G_GNUC_INTERNAL
void _plan_reducer_tree_push (const PlanReducer * r, Tree * t,
    const Acc * block, guint64 index);

G_GNUC_INTERNAL
void _plan_reducer_tree_fold (const PlanReducer * r, const Tree * t,
    const Acc * partial, Acc * out);

G_GNUC_INTERNAL
void _plan_reducer_reduce_contiguous (const PlanReducer * r,
    const guint8 * data, gsize n, Acc * out, gpointer scratch);

G_GNUC_INTERNAL
gpointer _plan_reducer_scratch_new (const PlanReducer * r, gsize n_elements);

/* Waits for the chunk in flight, if any, and pushes its blocks' nodes
 * into the run's tree (planreducer-modes.c): what every function that
 * reads or resets the tree calls first. */
G_GNUC_INTERNAL
void _plan_reducer_settle (PlanReducer * r);

G_GNUC_INTERNAL
void _plan_reducer_free_chunks (PlanReducer * r);

/* Column blocks and results of mode ROWS (planreducer-modes.c). */

G_GNUC_INTERNAL
void _plan_reducer_column_set_open (const PlanReducer * r, Acc * cols,
    guint8 * raw, gsize c, const Acc * a);

G_GNUC_INTERNAL
void _plan_reducer_ensure_slots (Acc ** nodes, guint * slots, guint need,
    gsize row_elements);

G_GNUC_INTERNAL
void _plan_reducer_columns_push (const PlanReducer * r, Acc * cols,
    guint8 * raw, Acc * nodes, gsize c0, gsize c1, guint slot, guint merges);

/* The arrays of a ColumnRowsFunc hold @parts fields of an accumulator
 * in each of v and lo: 1 for real input, v.f and lo; 2 for complex input,
 * whose sums run the column loops of their parts' real dtype over the
 * real and imaginary parts, interleaved as in the input (row elements
 * 2c and 2c + 1 of a row twice as wide): v.f and im in v, lo and im_lo in
 * lo. */
static inline gsize
_plan_reducer_column_parts (const PlanReducer * r)
{
  return plan_dtype_is_complex (r->input.dtype) ? 2 : 1;
}

/* Accumulator @a to its entries @v[0 .. parts) and @lo[0 .. parts), and
 * back. */
static inline void
_plan_reducer_column_to_arrays (const Acc * a, gsize parts, gdouble * v,
    gdouble * lo)
{
  v[0] = a->v.f;
  lo[0] = a->lo;
  if (parts == 2) {
    v[1] = a->im;
    lo[1] = a->im_lo;
  }
}

static inline void
_plan_reducer_column_from_arrays (Acc * a, gsize parts, const gdouble * v,
    const gdouble * lo)
{
  a->v.f = v[0];
  a->lo = lo[0];
  if (parts == 2) {
    a->im = v[1];
    a->im_lo = lo[1];
  }
}

G_GNUC_INTERNAL
void _plan_reducer_merge_dd (const PlanReducer * r, Acc * a, const Acc * b);
G_GNUC_INTERNAL
void _plan_reducer_merge_min_f (const PlanReducer * r, Acc * a,
    const Acc * b);
G_GNUC_INTERNAL
void _plan_reducer_merge_max_f (const PlanReducer * r, Acc * a,
    const Acc * b);

G_GNUC_INTERNAL
void _plan_reducer_columns_push_arrays (const PlanReducer * r, Acc * cols,
    Acc * nodes, gdouble * v, gdouble * lo, guint slot, guint merges,
    gsize begin, gsize end);
G_GNUC_INTERNAL
gboolean _plan_reducer_columns_merge_in_arrays (const PlanReducer * r);
G_GNUC_INTERNAL
void _plan_reducer_columns_merge_arrays (const PlanReducer * r,
    const gdouble * nv, const gdouble * nlo, gdouble * v, gdouble * lo,
    gsize w);
G_GNUC_INTERNAL
void _plan_reducer_columns_store_arrays (const PlanReducer * r, Acc * dst,
    const gdouble * v, const gdouble * lo, gsize w);

G_GNUC_INTERNAL
void _plan_reducer_column_fold (const PlanReducer * r, const Acc * cols,
    const guint8 * raw, const Acc * nodes, guint depth, gboolean open, gsize c,
    Acc * out);

G_GNUC_INTERNAL
gboolean _plan_reducer_final_column (const PlanReducer * r, const Acc * acc,
    guint64 n_rows, gpointer out, gsize c);

G_GNUC_INTERNAL
const gchar *_plan_reducer_numpy_op_name (PlanReduceOp op);

/* Construction (planreducer.c). */

G_GNUC_INTERNAL
void _plan_reducer_clear_run (PlanReducer * r);

G_GNUC_INTERNAL
void _plan_reducer_set_n_rows (PlanReducer * reducer, guint64 n_rows);

G_GNUC_INTERNAL
void _plan_reducer_get_custom_exprs (PlanReducer * reducer,
    PlanExpr ** combiner, PlanExpr ** cast);

G_GNUC_INTERNAL
const gchar *_plan_reducer_get_all_nan_text (PlanReducer * reducer);

/* Test hooks, exported as those of plan-testing.h are: only by a build
 * with tests. */

/**
 * plan_reducer_testing_set_column_rows:
 * @reducer: a #PlanReducer with #PLAN_REDUCE_AXIS_ROWS, before any row is
 *   pushed
 * @rows: rows per column block, at least 1
 *
 * Cuts the columns into blocks of @rows rows instead of the default, so
 * that tests reach deep column trees with few rows. Its device twins made
 * after the call use the same blocks.
 */
PLAN_TEST_API
void plan_reducer_testing_set_column_rows (PlanReducer * reducer,
    gsize rows);

/* What the device reducer runs, for the tests that compile its kernels
 * with nvcc and compare them with the CPU reducer: the steps' parameters
 * of @reducer (planreducer-steps.c), the CUDA source of the kernels, and
 * that of a custom reduction's combiner (planreducer-device.c). */
PLAN_TEST_API
gboolean plan_reducer_get_device_steps (PlanReducer * reducer,
    PrkParams * params, PlanReduceAxis * mode, gsize * row_elements);

PLAN_TEST_API
gchar * plan_device_reducer_get_cuda_source (PlanReducer * reducer);

PLAN_TEST_API
gchar * plan_device_reducer_get_custom_cuda_source (PlanReducer * reducer);

G_END_DECLS

#endif /* __PLAN_REDUCER_PRIVATE_H__ */
