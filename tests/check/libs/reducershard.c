/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanReducer across shards (plan_reducer_set_origin, export,
 * finish_parts): the parts of any split of a stream, pushed in any chunk
 * sizes, give the bytes of one reducer given every row. */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>
#include <libplan/device/plan-testing.h>
#include <libplan/reduce/planreducer-private.h>
#include <string.h>

#include "reducercases.h"

#define N_ELEMENTS 20011

static const PlanDType dtypes[] = {
  PLAN_DTYPE_FLOAT32, PLAN_DTYPE_FLOAT64, PLAN_DTYPE_INT32, PLAN_DTYPE_UINT8,
  PLAN_DTYPE_BOOL, PLAN_DTYPE_COMPLEX64, PLAN_DTYPE_COMPLEX128,
  PLAN_DTYPE_FLOAT16,
};

/* When set, the rows of a column block of the reducers made. */
static gsize column_rows;

static PlanReducer *
make (PlanReduceOp op, PlanReduceAxis axis, const PlanArrayInfo * info)
{
  GError *err = NULL;
  PlanReducer *r = op == (PlanReduceOp) - 1 ?
      plan_reducer_new_custom ("x + y * 1.0", "0", axis, info, &err) :
      plan_reducer_new (op, axis, info, &err);

  fail_unless (r != NULL, "%s", err ? err->message : "");
  if (column_rows && axis == PLAN_REDUCE_AXIS_ROWS && info->ndim > 1)
    plan_reducer_testing_set_column_rows (r, column_rows);
  return r;
}

/* Pushes rows [first, end) of @data in chunks of random sizes. */
static void
push_rows (PlanReducer * r, const guint8 * data, gsize row_size,
    guint64 first, guint64 end, GRand * rand)
{
  while (first < end) {
    guint64 size = g_rand_int_range (rand, 1, 5000);
    guint64 n = MIN (end - first, size);

    fail_unless (plan_reducer_push (r, data + first * row_size, n, NULL,
            NULL));
    first += n;
  }
}

/* Splits @n_rows rows at @n_cuts sorted random places (shards may be
 * empty or shorter than a block) and checks the parts' result. */
static void
check_split (PlanReduceOp op, PlanReduceAxis axis, const PlanArrayInfo * info,
    const guint8 * data, const guint8 * want, gsize out_size, guint n_parts,
    GRand * rand)
{
  gsize row_size = plan_array_info_get_row_size (info);
  guint64 n_rows = info->shape[0];
  guint64 *cuts = g_newa (guint64, n_parts + 1);
  GBytes **parts = g_newa (GBytes *, n_parts);
  guint8 *got = g_malloc0 (out_size);
  PlanReducer *combiner;
  GError *err = NULL;
  guint i, j;

  cuts[0] = 0;
  cuts[n_parts] = n_rows;
  for (i = 1; i < n_parts; i++)
    cuts[i] = g_rand_int_range (rand, 0, n_rows + 1);
  for (i = 1; i < n_parts; i++)
    for (j = i + 1; j < n_parts; j++)
      if (cuts[j] < cuts[i]) {
        guint64 t = cuts[i];

        cuts[i] = cuts[j];
        cuts[j] = t;
      }
  for (i = 0; i < n_parts; i++) {
    PlanReducer *r = make (op, axis, info);

    plan_reducer_set_origin (r, cuts[i]);
    push_rows (r, data, row_size, cuts[i], cuts[i + 1], rand);
    parts[n_parts - 1 - i] = plan_reducer_export (r);
    plan_reducer_unref (r);
  }
  combiner = make (op, axis, info);
  fail_unless (plan_reducer_finish_parts (combiner, parts, n_parts, got,
          &err), "%s in %u parts: %s", plan_reducer_get_name (combiner),
      n_parts, err ? err->message : "");
  fail_unless (memcmp (got, want, out_size) == 0,
      "%s (%s) of %s in %u parts differs from one run",
      plan_reducer_get_name (combiner), axis == PLAN_REDUCE_AXIS_ALL ? "all"
      : "0", plan_dtype_to_string (info->dtype), n_parts);
  plan_reducer_unref (combiner);
  for (i = 0; i < n_parts; i++)
    g_bytes_unref (parts[i]);
  g_free (got);
}

static void
check_op_of (PlanReduceOp op, PlanReduceAxis axis, PlanDType dtype,
    guint n_cols, gsize n_elements, GRand * rand)
{
  PlanArrayInfo info;
  gint64 shape[2] = { n_elements / n_cols, n_cols };
  PlanArrayInfo out_info;
  PlanReducer *whole;
  guint8 *data, *want;
  gsize out_size;
  gboolean ok;
  guint parts;

  fail_unless (plan_array_info_set (&info, dtype, n_cols > 1 ? 2 : 1, shape,
          NULL));
  whole = make (op, axis, &info);
  plan_reducer_get_output_info (whole, &out_info);
  /* A 0-d result is one row of one element; a per-column one, one row. */
  out_size = plan_array_info_get_row_size (&out_info) *
      (out_info.ndim == 0 ? 1 : 1);
  if (out_info.ndim == 1)
    out_size = out_info.shape[0] * plan_dtype_get_size (out_info.dtype);
  data = g_malloc (shape[0] * plan_array_info_get_row_size (&info));
  want = g_malloc0 (MAX (out_size, 1));
  fill (dtype, data, shape[0] * n_cols, 7, 0);
  ok = plan_reducer_reduce (whole, data, shape[0], want, NULL);
  plan_reducer_unref (whole);
  if (ok)
    for (parts = 1; parts <= 7; parts += 2)
      check_split (op, axis, &info, data, want, out_size, parts, rand);
  g_free (data);
  g_free (want);
}

static void
check_op (PlanReduceOp op, PlanReduceAxis axis, PlanDType dtype,
    guint n_cols, GRand * rand)
{
  check_op_of (op, axis, dtype, n_cols, N_ELEMENTS, rand);
}

GST_START_TEST (test_every_op_in_shards_equals_one_run)
{
  GRand *rand = g_rand_new_with_seed (3);
  guint d, o;

  for (d = 0; d < G_N_ELEMENTS (dtypes); d++) {
    for (o = 0; o < G_N_ELEMENTS (all_ops); o++) {
      if (all_ops[o] == PLAN_REDUCE_OP_PTP && dtypes[d] == PLAN_DTYPE_BOOL)
        continue;
      check_op (all_ops[o], PLAN_REDUCE_AXIS_ALL, dtypes[d], 1, rand);
      /* Rows of 3: blocks of the tree start inside rows. */
      check_op (all_ops[o], PLAN_REDUCE_AXIS_ALL, dtypes[d], 3, rand);
    }
  }
  check_op ((PlanReduceOp) - 1, PLAN_REDUCE_AXIS_ALL, PLAN_DTYPE_FLOAT64, 1,
      rand);
  g_rand_free (rand);
}

GST_END_TEST;

/* Per column too, every op: a column's blocks of rows and their tree are
 * rebuilt from the shards. */
GST_START_TEST (test_every_column_op_in_shards_equals_one_run)
{
  static const PlanDType some[] = {
    PLAN_DTYPE_FLOAT32, PLAN_DTYPE_FLOAT64, PLAN_DTYPE_INT32,
    PLAN_DTYPE_COMPLEX128, PLAN_DTYPE_FLOAT16,
  };
  GRand *rand = g_rand_new_with_seed (5);
  guint d, o;

  for (o = 0; o < G_N_ELEMENTS (all_ops); o++) {
    /* Blocks of 41 rows of 7: 69 and an open one, seven levels; shards
     * and chunks end anywhere in them. */
    column_rows = 41;
    for (d = 0; d < G_N_ELEMENTS (some); d++)
      check_op_of (all_ops[o], PLAN_REDUCE_AXIS_ROWS, some[d], 7,
          N_ELEMENTS, rand);
    /* Blocks of 64 rows of 8, ending with the last row. */
    column_rows = 64;
    check_op_of (all_ops[o], PLAN_REDUCE_AXIS_ROWS, PLAN_DTYPE_FLOAT64, 8,
        8 * 64 * 37, rand);
    /* A block a row. */
    column_rows = 1;
    check_op_of (all_ops[o], PLAN_REDUCE_AXIS_ROWS, PLAN_DTYPE_FLOAT32, 13,
        13 * 301, rand);
    /* The default blocks (9362 rows of 7): two and an open one. */
    column_rows = 0;
    check_op_of (all_ops[o], PLAN_REDUCE_AXIS_ROWS, PLAN_DTYPE_FLOAT64, 7,
        7 * 20011, rand);
  }
  column_rows = 41;
  check_op_of ((PlanReduceOp) - 1, PLAN_REDUCE_AXIS_ROWS, PLAN_DTYPE_FLOAT64,
      7, N_ELEMENTS, rand);
  column_rows = 0;
  g_rand_free (rand);
}

GST_END_TEST;

/* A shard whose rows wrap around the stream's end is two runs. */
GST_START_TEST (test_wrapped_shard)
{
  GRand *rand = g_rand_new_with_seed (9);
  PlanArrayInfo info;
  gint64 shape[1] = { N_ELEMENTS };
  PlanReducer *r, *whole;
  GBytes *parts[2];
  gdouble want, got;
  guint8 *data;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT64, 1, shape,
          NULL));
  data = g_malloc (N_ELEMENTS * sizeof (gdouble));
  fill (PLAN_DTYPE_FLOAT64, data, N_ELEMENTS, 11, 0);
  whole = make (PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ALL, &info);
  fail_unless (plan_reducer_reduce (whole, data, N_ELEMENTS, &want, NULL));

  /* One shard: rows 15000 to the end, then 0 to 3000; the other the
   * rows between. */
  r = make (PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ALL, &info);
  plan_reducer_set_origin (r, 15000);
  push_rows (r, data, sizeof (gdouble), 15000, N_ELEMENTS, rand);
  plan_reducer_set_origin (r, 0);
  push_rows (r, data, sizeof (gdouble), 0, 3000, rand);
  parts[0] = plan_reducer_export (r);
  plan_reducer_unref (r);
  r = make (PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ALL, &info);
  plan_reducer_set_origin (r, 3000);
  push_rows (r, data, sizeof (gdouble), 3000, 15000, rand);
  parts[1] = plan_reducer_export (r);
  fail_unless (plan_reducer_finish_parts (whole, parts, 2, &got, NULL));
  fail_unless (memcmp (&got, &want, sizeof got) == 0);

  /* A reducer given a shard not from row 0 has no result of its own. */
  fail_if (plan_reducer_finish (r, &got, NULL));
  plan_reducer_unref (r);
  plan_reducer_unref (whole);
  g_bytes_unref (parts[0]);
  g_bytes_unref (parts[1]);
  g_free (data);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_bad_parts_are_refused)
{
  GRand *rand = g_rand_new_with_seed (1);
  PlanArrayInfo info;
  gint64 shape[1] = { 1000 };
  PlanReducer *r;
  GBytes *parts[2];
  GError *err = NULL;
  gdouble data[1000] = { 0 }, got;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT64, 1, shape,
          NULL));
  r = make (PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ALL, &info);
  plan_reducer_set_origin (r, 0);
  push_rows (r, (guint8 *) data, sizeof (gdouble), 0, 400, rand);
  parts[0] = plan_reducer_export (r);
  plan_reducer_reset (r);
  plan_reducer_set_origin (r, 500);
  push_rows (r, (guint8 *) data, sizeof (gdouble), 500, 1000, rand);
  parts[1] = plan_reducer_export (r);
  /* Rows 400 to 500 are missing. */
  fail_if (plan_reducer_finish_parts (r, parts, 2, &got, &err));
  fail_unless (strstr (err->message, "after row 400") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  g_bytes_unref (parts[1]);
  /* Not a reducer's state. */
  parts[1] = g_bytes_new_static ("nonsense", 8);
  fail_if (plan_reducer_finish_parts (r, parts, 2, &got, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT));
  g_clear_error (&err);
  g_bytes_unref (parts[0]);
  g_bytes_unref (parts[1]);
  plan_reducer_unref (r);
  g_rand_free (rand);
}

GST_END_TEST;

static Suite *
reducershard_suite (void)
{
  Suite *s = suite_create ("reducershard");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_every_op_in_shards_equals_one_run);
  tcase_add_test (tc, test_every_column_op_in_shards_equals_one_run);
  tcase_add_test (tc, test_wrapped_shard);
  tcase_add_test (tc, test_bad_parts_are_refused);
  return s;
}

GST_CHECK_MAIN (reducershard);
