/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* plan_reducer_push_async(): the bytes of one synchronous reduction,
 * whatever the chunk sizes, and no read of a chunk's rows once the reducer
 * says it is done with them (each chunk is a copy that is overwritten and
 * freed then: a late read would change the result, or show under ASan and
 * valgrind). */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>
#include <string.h>

#include "reducercases.h"

/* About 2.4 MiB of float32: chunks of many blocks, several tasks each. */
#define N_ELEMENTS 600011

static const PlanDType dtypes[] = {
  PLAN_DTYPE_INT32, PLAN_DTYPE_UINT8, PLAN_DTYPE_BOOL, PLAN_DTYPE_COMPLEX64,
  PLAN_DTYPE_FLOAT16,
};

static PlanReducer *
make (PlanReduceOp op, PlanReduceAxis axis, const PlanArrayInfo * info)
{
  GError *err = NULL;
  PlanReducer *r = op == (PlanReduceOp) - 1 ?
      plan_reducer_new_custom ("x + y * 1.0", "0", axis, info, &err) :
      plan_reducer_new (op, axis, info, &err);

  fail_unless (r != NULL, "%s", err ? err->message : "");
  /* Every core: the worker threads read the chunks in flight. */
  plan_reducer_set_n_threads (r, 0);
  return r;
}

/* A chunk the reducer may still read: a copy of rows, freed (after being
 * overwritten) once the reducer is done with it. */
static guint8 *
copy_rows (const guint8 * data, gsize size)
{
  return g_memdup2 (data, size);
}

static void
drop_rows (guint8 ** held, gsize * held_size)
{
  if (*held == NULL)
    return;
  memset (*held, 0xa5, *held_size);
  g_clear_pointer (held, g_free);
}

/* Pushes the @n_rows rows of @data asynchronously in chunks of random
 * sizes (some of less than a block, which the reducer stages, some
 * synchronously) and finishes into @got. */
static gboolean
reduce_async (PlanReducer * r, const guint8 * data, gsize row_size,
    guint64 n_rows, guint8 * got, GRand * rand, GError ** error)
{
  guint8 *held = NULL;
  gsize held_size = 0;
  guint64 first = 0;
  gboolean ok;

  while (first < n_rows) {
    guint64 most = n_rows / (g_rand_boolean (rand) ? 200 : 3);
    guint64 size = g_rand_int_range (rand, 1, MAX (2, most));
    guint64 n = MIN (n_rows - first, size);
    guint8 *chunk = copy_rows (data + first * row_size, n * row_size);

    if (g_rand_int_range (rand, 0, 8) == 0) {
      /* A synchronous push waits for the chunk before it as well. */
      fail_unless (plan_reducer_push (r, chunk, n, NULL, NULL));
      drop_rows (&held, &held_size);
      memset (chunk, 0xa5, n * row_size);
      g_free (chunk);
    } else {
      fail_unless (plan_reducer_push_async (r, chunk, n, NULL));
      drop_rows (&held, &held_size);
      held = chunk;
      held_size = n * row_size;
    }
    if (g_rand_int_range (rand, 0, 16) == 0) {
      plan_reducer_wait (r);
      drop_rows (&held, &held_size);
    }
    first += n;
  }
  ok = plan_reducer_finish (r, got, error);
  drop_rows (&held, &held_size);
  return ok;
}

static void
check_op_axis (PlanReduceOp op, PlanReduceAxis axis, PlanDType dtype,
    guint n_cols, GRand * rand)
{
  gint64 shape[2] = { N_ELEMENTS / n_cols, n_cols };
  PlanArrayInfo info, out_info;
  PlanReducer *whole, *r;
  guint8 *data, *want, *got;
  GError *err = NULL, *want_err = NULL;
  gsize row_size, out_size;
  gboolean ok;

  fail_unless (plan_array_info_set (&info, dtype, n_cols > 1 ? 2 : 1, shape,
          NULL));
  row_size = plan_array_info_get_row_size (&info);
  whole = make (op, axis, &info);
  plan_reducer_get_output_info (whole, &out_info);
  out_size = plan_dtype_get_size (out_info.dtype) *
      (out_info.ndim == 1 ? out_info.shape[0] : 1);
  data = g_malloc (shape[0] * row_size);
  want = g_malloc0 (out_size);
  got = g_malloc0 (out_size);
  fill (dtype, data, shape[0] * n_cols, 11, op == PLAN_REDUCE_OP_NANARGMAX ?
      0 : 5003);
  ok = plan_reducer_reduce (whole, data, shape[0], want, &want_err);

  r = make (op, axis, &info);
  fail_unless (reduce_async (r, data, row_size, shape[0], got, rand,
          &err) == ok, "%s of %s: %s", plan_reducer_get_name (r),
      plan_dtype_to_string (dtype), err ? err->message : "succeeded");
  if (ok)
    fail_unless (memcmp (got, want, out_size) == 0,
        "%s (axis %s) of %s, rows of %u, pushed asynchronously differs from "
        "one push", plan_reducer_get_name (r), axis == PLAN_REDUCE_AXIS_ALL ?
        "all" : "0", plan_dtype_to_string (dtype), n_cols);

  /* Reset waits for the chunk in flight; the reducer then starts over. */
  memset (got, 0, out_size);
  g_clear_error (&err);
  plan_reducer_reset (r);
  fail_unless (reduce_async (r, data, row_size, shape[0], got, rand,
          &err) == ok);
  if (ok)
    fail_unless (memcmp (got, want, out_size) == 0,
        "%s of %s differs after a reset", plan_reducer_get_name (r),
        plan_dtype_to_string (dtype));

  plan_reducer_unref (r);
  plan_reducer_unref (whole);
  g_clear_error (&err);
  g_clear_error (&want_err);
  g_free (data);
  g_free (want);
  g_free (got);
}

static void
check_op (PlanReduceOp op, PlanDType dtype, guint n_cols, GRand * rand)
{
  check_op_axis (op, PLAN_REDUCE_AXIS_ALL, dtype, n_cols, rand);
}

GST_START_TEST (test_every_op_async_equals_one_push)
{
  static const PlanReduceOp some[] = {
    PLAN_REDUCE_OP_SUM, PLAN_REDUCE_OP_MAX, PLAN_REDUCE_OP_ARGMIN,
    PLAN_REDUCE_OP_ALL, PLAN_REDUCE_OP_STD,
  };
  GRand *rand = g_rand_new_with_seed (5);
  guint d, o;

  /* Every op of float32 and float64; some of the other dtypes. */
  for (o = 0; o < G_N_ELEMENTS (all_ops); o++) {
    check_op (all_ops[o], PLAN_DTYPE_FLOAT32, 1, rand);
    check_op (all_ops[o], PLAN_DTYPE_FLOAT64, 1, rand);
  }
  for (d = 0; d < G_N_ELEMENTS (dtypes); d++)
    for (o = 0; o < G_N_ELEMENTS (some); o++)
      check_op (some[o], dtypes[d], 1, rand);
  /* Rows of 3 (blocks start inside rows), and a custom combiner. */
  check_op (PLAN_REDUCE_OP_SUM, PLAN_DTYPE_FLOAT32, 3, rand);
  check_op ((PlanReduceOp) - 1, PLAN_DTYPE_FLOAT64, 1, rand);
  g_rand_free (rand);
}

GST_END_TEST;

/* Per column: on narrow rows the threads share column blocks, and those
 * of one chunk are reduced while the next chunk comes (rows of 7 and 256
 * elements); on wide rows (2,000) and with a custom combiner the threads
 * take columns, and a push is done with its rows on return. Rows of 1,100
 * are shared by blocks in a push that ends 8 of them (the one push of
 * all 545 rows) and by columns in the smaller chunks: the two give the
 * same bits. */
GST_START_TEST (test_column_ops_async_equal_one_push)
{
  static const PlanReduceOp ops[] = {
    PLAN_REDUCE_OP_SUM, PLAN_REDUCE_OP_MEAN, PLAN_REDUCE_OP_MAX,
    PLAN_REDUCE_OP_NANMIN, PLAN_REDUCE_OP_ARGMAX, PLAN_REDUCE_OP_VAR,
  };
  static const PlanDType types[] = {
    PLAN_DTYPE_FLOAT32, PLAN_DTYPE_FLOAT64, PLAN_DTYPE_COMPLEX64,
    PLAN_DTYPE_FLOAT16, PLAN_DTYPE_INT32,
  };
  static const guint widths[] = { 7, 256, 1100, 2000 };
  GRand *rand = g_rand_new_with_seed (7);
  guint o, d, w;

  /* float16 and int32 (columns, not column blocks) on rows of 256 only. */
  for (w = 0; w < G_N_ELEMENTS (widths); w++)
    for (d = 0; d < G_N_ELEMENTS (types); d++)
      for (o = 0; o < G_N_ELEMENTS (ops); o++)
        if (d < 3 || widths[w] == 256)
          check_op_axis (ops[o], PLAN_REDUCE_AXIS_ROWS, types[d], widths[w],
              rand);
  check_op_axis ((PlanReduceOp) - 1, PLAN_REDUCE_AXIS_ROWS,
      PLAN_DTYPE_FLOAT64, 7, rand);
  g_rand_free (rand);
}

GST_END_TEST;

/* What runs under valgrind, which the sweep above is too slow for: a late
 * read of a freed chunk is an invalid read there. */
GST_START_TEST (test_some_ops_async_equal_one_push)
{
  GRand *rand = g_rand_new_with_seed (6);

  check_op (PLAN_REDUCE_OP_SUM, PLAN_DTYPE_FLOAT32, 1, rand);
  check_op (PLAN_REDUCE_OP_ARGMIN, PLAN_DTYPE_FLOAT64, 3, rand);
  check_op_axis (PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ROWS,
      PLAN_DTYPE_FLOAT32, 256, rand);
  g_rand_free (rand);
}

GST_END_TEST;

/* A reducer dropped with a chunk in flight waits for it before it goes
 * (a custom combiner's tasks run its expression, which goes with it). */
GST_START_TEST (test_unref_waits)
{
  gint64 shape[1] = { N_ELEMENTS }, cols[2] = { N_ELEMENTS / 8, 8 };
  PlanArrayInfo info, wide;
  PlanReducer *r;
  guint8 *data;
  gsize size;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT64, 1, shape,
          NULL));
  fail_unless (plan_array_info_set (&wide, PLAN_DTYPE_FLOAT64, 2, cols,
          NULL));
  size = N_ELEMENTS * sizeof (gdouble);
  data = g_malloc0 (size);
  r = make (PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ALL, &info);
  fail_unless (plan_reducer_push_async (r, data, N_ELEMENTS, NULL));
  plan_reducer_unref (r);
  r = make ((PlanReduceOp) - 1, PLAN_REDUCE_AXIS_ALL, &info);
  fail_unless (plan_reducer_push_async (r, data, N_ELEMENTS, NULL));
  plan_reducer_unref (r);
  r = make (PLAN_REDUCE_OP_MAX, PLAN_REDUCE_AXIS_ROWS, &wide);
  fail_unless (plan_reducer_push_async (r, data, cols[0], NULL));
  plan_reducer_unref (r);
  memset (data, 0xa5, size);
  g_free (data);
}

GST_END_TEST;

/* Per column it is a push; per row, whose results go to an output, it is
 * refused. */
GST_START_TEST (test_other_axes)
{
  gint64 shape[2] = { 1000, 7 };
  PlanArrayInfo info;
  PlanReducer *r, *sync;
  gdouble *data, got[7], want[7];
  GError *err = NULL;
  gsize i;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT64, 2, shape,
          NULL));
  data = g_new (gdouble, 7000);
  for (i = 0; i < 7000; i++)
    data[i] = (gdouble) (i % 13) - 6.5;
  r = make (PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ROWS, &info);
  sync = make (PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ROWS, &info);
  fail_unless (plan_reducer_push_async (r, data, 600, NULL));
  fail_unless (plan_reducer_push_async (r, data + 600 * 7, 400, NULL));
  fail_unless (plan_reducer_reduce (sync, data, 1000, want, NULL));
  fail_unless (plan_reducer_finish (r, got, NULL));
  fail_unless (memcmp (got, want, sizeof got) == 0);
  plan_reducer_unref (r);
  plan_reducer_unref (sync);

  r = make (PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_INNER, &info);
  fail_if (plan_reducer_push_async (r, data, 1000, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR,
          PLAN_ERROR_INVALID_ARGUMENT), "%s", err ? err->message : "");
  g_clear_error (&err);
  plan_reducer_unref (r);
  g_free (data);
}

GST_END_TEST;

static Suite *
reducerasync_suite (void)
{
  Suite *s = suite_create ("reducerasync");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_every_op_async_equals_one_push);
  tcase_add_test (tc, test_column_ops_async_equal_one_push);
  tcase_add_test (tc, test_some_ops_async_equal_one_push);
  tcase_add_test (tc, test_unref_waits);
  tcase_add_test (tc, test_other_axes);
  return s;
}

GST_CHECK_MAIN (reducerasync);
