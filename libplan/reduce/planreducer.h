/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_REDUCER_H__
#define __PLAN_REDUCER_H__

#include <libplan/plan-prelude.h>
#include <libplan/plandtype.h>
#include <libplan/planarrayinfo.h>

G_BEGIN_DECLS

/**
 * PlanReduceOp:
 * @PLAN_REDUCE_OP_SUM: the sum; numpy's `sum`.
 * @PLAN_REDUCE_OP_PROD: the product; numpy's `prod`.
 * @PLAN_REDUCE_OP_MIN: the smallest value (NaN if any value is NaN).
 * @PLAN_REDUCE_OP_MAX: the largest value (NaN if any value is NaN).
 * @PLAN_REDUCE_OP_MEAN: the arithmetic mean.
 * @PLAN_REDUCE_OP_ARGMIN: the index of the first smallest value (of the
 *   first NaN, if any).
 * @PLAN_REDUCE_OP_ARGMAX: the index of the first largest value (of the
 *   first NaN, if any).
 * @PLAN_REDUCE_OP_ANY: whether any value is non-zero.
 * @PLAN_REDUCE_OP_ALL: whether every value is non-zero.
 * @PLAN_REDUCE_OP_NANSUM: the sum, NaN counting as 0; numpy's `nansum`.
 * @PLAN_REDUCE_OP_NANPROD: the product, NaN counting as 1.
 * @PLAN_REDUCE_OP_NANMIN: the smallest value that is not NaN (NaN when all
 *   are).
 * @PLAN_REDUCE_OP_NANMAX: the largest value that is not NaN (NaN when all
 *   are).
 * @PLAN_REDUCE_OP_NANMEAN: the mean of the values that are not NaN.
 * @PLAN_REDUCE_OP_NANARGMIN: the index of the first smallest value that is
 *   not NaN (an error when all are NaN); as numpy's, argmin with NaN taken
 *   as inf, so a NaN before the first inf is given where inf is smallest.
 * @PLAN_REDUCE_OP_NANARGMAX: the index of the first largest value that is
 *   not NaN (an error when all are NaN); NaN taken as -inf, likewise.
 * @PLAN_REDUCE_OP_VAR: the variance, divided by `n - ddof` (see
 *   plan_reducer_set_ddof()).
 * @PLAN_REDUCE_OP_STD: the standard deviation, the square root of var.
 * @PLAN_REDUCE_OP_NANVAR: the variance of the values that are not NaN.
 * @PLAN_REDUCE_OP_NANSTD: the standard deviation of the values that are
 *   not NaN.
 * @PLAN_REDUCE_OP_COUNT_NONZERO: the number of values that are not zero.
 * @PLAN_REDUCE_OP_PTP: the largest value minus the smallest ("peak to
 *   peak"); not for bool.
 *
 * The built-in reductions, with numpy's semantics and result dtypes (see
 * plan_reduce_op_get_result_dtype()).
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_REDUCE_OP_SUM,
  PLAN_REDUCE_OP_PROD,
  PLAN_REDUCE_OP_MIN,
  PLAN_REDUCE_OP_MAX,
  PLAN_REDUCE_OP_MEAN,
  PLAN_REDUCE_OP_ARGMIN,
  PLAN_REDUCE_OP_ARGMAX,
  PLAN_REDUCE_OP_ANY,
  PLAN_REDUCE_OP_ALL,
  PLAN_REDUCE_OP_NANSUM,
  PLAN_REDUCE_OP_NANPROD,
  PLAN_REDUCE_OP_NANMIN,
  PLAN_REDUCE_OP_NANMAX,
  PLAN_REDUCE_OP_NANMEAN,
  PLAN_REDUCE_OP_NANARGMIN,
  PLAN_REDUCE_OP_NANARGMAX,
  PLAN_REDUCE_OP_VAR,
  PLAN_REDUCE_OP_STD,
  PLAN_REDUCE_OP_NANVAR,
  PLAN_REDUCE_OP_NANSTD,
  PLAN_REDUCE_OP_COUNT_NONZERO,
  PLAN_REDUCE_OP_PTP,
} PlanReduceOp;

#define PLAN_TYPE_REDUCE_OP (plan_reduce_op_get_type ())
PLAN_API
GType plan_reduce_op_get_type (void);

/**
 * PlanReduceAxis:
 * @PLAN_REDUCE_AXIS_ALL: reduce everything to one value (a 0-d array);
 *   numpy's `axis=None`.
 * @PLAN_REDUCE_AXIS_ROWS: reduce along the outermost axis, the stream
 *   axis: one value per column, giving an array of the inner shape;
 *   numpy's `axis=0`. On a 1-D stream this is the same as
 *   @PLAN_REDUCE_AXIS_ALL. Nick `0`.
 * @PLAN_REDUCE_AXIS_INNER: reduce each row over all its inner axes: one
 *   value per row, giving a stream of shape (N,); numpy's
 *   `axis=tuple(range(1, ndim))`, which is `axis=-1` for 2-D input. On a
 *   1-D stream each row is one value, reduced on its own. Nick `-1`.
 * @PLAN_REDUCE_AXIS_1: numpy's `axis=1`, which on a 2-D stream is the
 *   same as @PLAN_REDUCE_AXIS_INNER (and is run as it: the reducer's axis
 *   is then @PLAN_REDUCE_AXIS_INNER); refused on a stream of another
 *   number of dimensions, where numpy's axis 1 is not the rows' inner
 *   axes. Nick `1`.
 *
 * Which axes a reduction runs over. The values are 0, 1, 2 and 3, in that
 * order (editors show an enum as a list by value). GStreamer would read a
 * number that is no nick as the value (`axis=2` would select
 * @PLAN_REDUCE_AXIS_INNER): the type has its own string conversion, which
 * takes only the names and nicks, so that such a number is refused.
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_REDUCE_AXIS_ALL = 0,
  PLAN_REDUCE_AXIS_ROWS = 1,
  PLAN_REDUCE_AXIS_INNER = 2,
  PLAN_REDUCE_AXIS_1 = 3,
} PlanReduceAxis;

#define PLAN_TYPE_REDUCE_AXIS (plan_reduce_axis_get_type ())
PLAN_API
GType plan_reduce_axis_get_type (void);

/**
 * PLAN_REDUCER_BLOCK_SIZE:
 *
 * The number of elements in one block of the summation tree. Blocks start
 * at global element indices that are multiples of this, whatever the
 * chunk sizes of the stream; see the #PlanReducer description.
 *
 * Since: 0.1
 */
#define PLAN_REDUCER_BLOCK_SIZE 2048

/**
 * PLAN_REDUCER_LANES:
 *
 * The number of lanes a block is reduced in: element i of a block goes to
 * lane `i % PLAN_REDUCER_LANES`.
 *
 * Since: 0.1
 */
#define PLAN_REDUCER_LANES 16

/**
 * PLAN_REDUCER_MESSAGE_NAME:
 *
 * The name of the #GstStructure built by plan_reducer_make_structure(),
 * which planreduce posts as an element message.
 *
 * Since: 0.1
 */
#define PLAN_REDUCER_MESSAGE_NAME "plan-reduce"

/**
 * PlanReducer:
 *
 * An opaque, reference-counted reduction engine, made for one input
 * array info by plan_reducer_new() or plan_reducer_new_custom(). Its
 * functions are called from one thread at a time (an element's streaming
 * thread); it runs its own worker threads inside plan_reducer_push().
 *
 * Since: 0.1
 */
typedef struct _PlanReducer PlanReducer;

#define PLAN_TYPE_REDUCER (plan_reducer_get_type ())
PLAN_API
GType plan_reducer_get_type (void);

PLAN_API
PlanDType plan_reduce_op_get_result_dtype (PlanReduceOp op,
    PlanDType input);

PLAN_API
gboolean plan_reduce_op_has_identity (PlanReduceOp op);

PLAN_API
PlanReducer * plan_reducer_new (PlanReduceOp op, PlanReduceAxis axis,
    const PlanArrayInfo * input, GError ** error);

PLAN_API
PlanReducer * plan_reducer_new_custom (const gchar * combiner,
    const gchar * identity, PlanReduceAxis axis,
    const PlanArrayInfo * input, GError ** error);

PLAN_API
PlanReducer * plan_reducer_ref (PlanReducer * reducer);

PLAN_API
void plan_reducer_unref (PlanReducer * reducer);

PLAN_API
void plan_reducer_set_n_threads (PlanReducer * reducer, guint n_threads);

PLAN_API
void plan_reducer_set_ddof (PlanReducer * reducer, gdouble ddof);

PLAN_API
gdouble plan_reducer_get_ddof (PlanReducer * reducer);

PLAN_API
void plan_reducer_get_output_info (PlanReducer * reducer,
    PlanArrayInfo * info);

PLAN_API
PlanReduceAxis plan_reducer_get_axis (PlanReducer * reducer);

PLAN_API
const gchar * plan_reducer_get_name (PlanReducer * reducer);

PLAN_API
guint64 plan_reducer_get_n_rows (PlanReducer * reducer);

PLAN_API
gboolean plan_reducer_push (PlanReducer * reducer, gconstpointer rows,
    gsize n_rows, gpointer out, GError ** error);

PLAN_API
gboolean plan_reducer_finish (PlanReducer * reducer, gpointer out,
    GError ** error);

PLAN_API
void plan_reducer_reset (PlanReducer * reducer);

PLAN_API
void plan_reducer_set_origin (PlanReducer * reducer, guint64 first_row);

PLAN_API
GBytes * plan_reducer_export (PlanReducer * reducer);

PLAN_API
gboolean plan_reducer_finish_parts (PlanReducer * reducer, GBytes ** parts,
    guint n_parts, gpointer out, GError ** error);

PLAN_API
gboolean plan_reducer_reduce (PlanReducer * reducer, gconstpointer data,
    gsize n_rows, gpointer out, GError ** error);

PLAN_API
GstStructure * plan_reducer_make_structure (PlanReducer * reducer,
    const gchar * element_name, gconstpointer values, gsize n_rows,
    guint64 first_row);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanReducer, plan_reducer_unref)

G_END_DECLS

#endif /* __PLAN_REDUCER_H__ */
