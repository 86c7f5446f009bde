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

#include "planreducer-private.h"
#include <libplan/planerror.h>
#include <libplan/planexpr.h>
#include <libplan/planparallel.h>
#include <libplan/planarray.h>

#include <math.h>
#include <string.h>

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

/* Construction ----------------------------------------------------------- */

static PlanReducer *
reducer_alloc (PlanReduceAxis axis, const PlanArrayInfo * input,
    GError ** error)
{
  PlanReducer *r;
  PlanArrayInfo checked;
  GError *shape_error = NULL;

  if (input == NULL || input->dtype <= PLAN_DTYPE_UNKNOWN
      || input->dtype >= PLAN_DTYPE_N)
    goto bad_input;
  /* An info filled in by hand gets plan_array_info_set()'s checks: an inner
   * axis of no elements (rows with nothing in them) or too many axes would
   * otherwise reach the loops. */
  if (!plan_array_info_set (&checked, input->dtype, input->ndim, input->shape,
          &shape_error))
    goto bad_shape;
  if (axis != PLAN_REDUCE_AXIS_ALL && axis != PLAN_REDUCE_AXIS_ROWS
      && axis != PLAN_REDUCE_AXIS_INNER && axis != PLAN_REDUCE_AXIS_1)
    goto bad_axis;
  /* numpy's axis=1 is the rows' inner axis only on 2-D arrays. */
  if (axis == PLAN_REDUCE_AXIS_1 && input->ndim != 2)
    goto axis_1_not_2d;
  if (axis == PLAN_REDUCE_AXIS_1)
    axis = PLAN_REDUCE_AXIS_INNER;
  /* numpy's reductions take axis 0 and -1 of a 0-d array as axis=None (a
   * leniency of its ufunc reductions; mean, var and std refuse them, see
   * plan_reducer_new()). */
  if (input->ndim == 0)
    axis = PLAN_REDUCE_AXIS_ALL;

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
bad_shape:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "a reduction's input array info is not valid: %s",
        shape_error->message);
    g_error_free (shape_error);
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
    if (input->ndim == 0) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "axis=1 is out of bounds for this stream, which has 0 dimensions "
          "(numpy: axis 1 is out of bounds for array of dimension 0): use "
          "axis=all");
      return NULL;
    }
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
 * plan_reducer_get_output_info(). On a 0-d stream, axis 0 and -1 give a
 * 0-d result as #PLAN_REDUCE_AXIS_ALL does (numpy's leniency), except for
 * mean, var and std (and nanmean, nanvar and nanstd of integers and
 * bools), which refuse them as numpy does. It starts with one
 * thread.
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
  /* numpy's mean, var and std, unlike its other reductions, refuse axis 0
   * and -1 of a 0-d array (axis=1 is refused whatever the op); so do
   * nanmean, nanvar and nanstd of integers and bools, which numpy hands
   * to mean, var and std. */
  if (input != NULL && input->ndim == 0 && (axis == PLAN_REDUCE_AXIS_ROWS
          || axis == PLAN_REDUCE_AXIS_INNER) && (op == PLAN_REDUCE_OP_MEAN
          || op == PLAN_REDUCE_OP_VAR || op == PLAN_REDUCE_OP_STD
          || ((op == PLAN_REDUCE_OP_NANMEAN || op == PLAN_REDUCE_OP_NANVAR
                  || op == PLAN_REDUCE_OP_NANSTD)
              && !plan_dtype_is_float (input->dtype)
              && !plan_dtype_is_complex (input->dtype))))
    goto axis_of_0d;
  r = reducer_alloc (axis, input, error);
  if (r == NULL)
    return NULL;
  if (op == PLAN_REDUCE_OP_PTP && input->dtype == PLAN_DTYPE_BOOL) {
    plan_reducer_unref (r);
    goto bool_ptp;
  }
  r->op = op;
  r->name = g_strdup (ev->value_nick);
  _plan_reducer_select_builtin (r);
  reducer_init_state (r, plan_reduce_op_get_result_dtype (op, input->dtype));
  _plan_reducer_prepare_steps (r);
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
axis_of_0d:
  {
    const gchar *nick = axis == PLAN_REDUCE_AXIS_ROWS ? "0" : "-1";

    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "axis=%s is out of bounds for this stream, which has 0 dimensions "
        "(numpy's %s: axis %s is out of bounds for array of dimension 0): "
        "use axis=all", nick, ev->value_nick, nick);
    return NULL;
  }
}

/**
 * plan_reducer_new_custom:
 * @combiner: an expression in `x` and `y` combining two partial results,
 *   such as `"x + y"` or `"max(x, y)"`
 * @identity: (nullable): the value of the reduction of nothing, such that
 *   `combiner(v, identity)` and `combiner(identity, v)` are `v`, written
 *   as a number (or `true` /
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
 *   saying that the identity is missing, is not a value of the dtype, or
 *   is not the combiner's identity (`combiner(v, identity)` or
 *   `combiner(identity, v)` is not `v` for v the identity, 1 and 2, or 0
 *   and 1 for bools).
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
  if (input != NULL && plan_dtype_is_complex (input->dtype))
    goto complex_input;
  r = reducer_alloc (axis, input, error);
  if (r == NULL)
    return NULL;
  r->custom = TRUE;
  r->name = g_strdup (combiner);
  if (!_plan_reducer_compile_custom (r, combiner, error))
    goto failed;
  acc = plan_expr_get_dtype (r->combiner);
  if (!_plan_reducer_parse_identity (identity, acc, &r->identity.v, error)
      || !_plan_reducer_check_identity (r, identity, error))
    goto failed;
  r->acc_size = plan_dtype_get_size (acc);
  r->block = _plan_reducer_block_custom;
  r->merge = _plan_reducer_merge_custom;
  r->column = _plan_reducer_column_custom;
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
complex_input:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "a custom combiner ('%s') cannot reduce %s input: combiners run on "
        "real and integer values only; reduce a real map of it "
        "(map=\"real(x)\", \"imag(x)\" or \"abs(x)\") or use a built-in op",
        combiner, plan_dtype_to_string (input->dtype));
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
  /* The blocks in flight first: their tasks read the reducer. */
  _plan_reducer_free_chunks (reducer);
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

/* planreducer-private.h */
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
 * Returns: the axis the reducer reduces over: the axis it was made with,
 *   except #PLAN_REDUCE_AXIS_INNER for #PLAN_REDUCE_AXIS_1, and
 *   #PLAN_REDUCE_AXIS_ALL for any axis on a 0-d stream.
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
void
_plan_reducer_clear_run (PlanReducer * r)
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

  _plan_reducer_settle (reducer);
  _plan_reducer_clear_run (reducer);
  reducer->n_rows = 0;
  reducer->n_blocks = 0;
  reducer->next_row = 0;
  reducer->run_first = 0;
  reducer->head_want = 0;
  reducer->n_runs = 0;
  if (reducer->runs)
    g_byte_array_set_size (reducer->runs, 0);
}

/* The ops: their dtypes' kinds, result dtypes and identities --------- */

Kind
_plan_reducer_dtype_kind (PlanDType dtype)
{
  if (dtype == PLAN_DTYPE_BOOL)
    return KIND_B;
  if (plan_dtype_is_complex (dtype))
    return KIND_C;
  if (plan_dtype_is_float (dtype))
    return KIND_F;
  return plan_dtype_is_signed (dtype) ? KIND_S : KIND_U;
}

/* Whether sums of @dtype need compensated lanes: float64 (and complex128's
 * parts) and the 64-bit integers (for mean), whose values do not all fit a
 * float64 exactly. */
gboolean
_plan_reducer_needs_compensation (PlanDType dtype)
{
  return dtype == PLAN_DTYPE_FLOAT64 || dtype == PLAN_DTYPE_INT64
      || dtype == PLAN_DTYPE_UINT64 || dtype == PLAN_DTYPE_COMPLEX128;
}

/**
 * plan_reduce_op_get_result_dtype:
 * @op: a #PlanReduceOp
 * @input: the input dtype
 *
 * The dtype numpy gives the result of @op on @input: sum and prod of bools
 * and signed integers are int64, of unsigned integers uint64, of floats
 * the float or complex dtype; min and max keep the dtype; mean is float64
 * for bools and integers and keeps float and complex dtypes; argmin and
 * argmax are int64; any and all are bool. The nan ops have the dtypes of
 * the plain ones; var, std, nanvar and nanstd those of mean, except that
 * of complex input they are real (float32 for complex64, float64 for
 * complex128); count_nonzero is int64; ptp keeps the dtype and is not
 * defined for bool (numpy cannot subtract bools).
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
      if (plan_dtype_is_float (input) || plan_dtype_is_complex (input))
        return input;
      return _plan_reducer_dtype_kind (input) == KIND_U ? PLAN_DTYPE_UINT64 :
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
      return plan_dtype_is_float (input) || plan_dtype_is_complex (input) ?
          input : PLAN_DTYPE_FLOAT64;
    case PLAN_REDUCE_OP_VAR:
    case PLAN_REDUCE_OP_STD:
    case PLAN_REDUCE_OP_NANVAR:
    case PLAN_REDUCE_OP_NANSTD:
      if (input == PLAN_DTYPE_COMPLEX64)
        return PLAN_DTYPE_FLOAT32;
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

/* The plain op a nan op is on integers and bools, which have no NaN. */
PlanReduceOp
_plan_reducer_plain_op (PlanReduceOp op)
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
