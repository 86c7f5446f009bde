/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanHaloExchange without an MPI job: one rank with boundary=wrap, whose
 * first rows follow its last without a message, against the whole
 * array's wrapped stencil; the shares' arithmetic of the ranks of a job;
 * and a share too short for its halo. test_mpi_stencil.py runs the
 * exchange between ranks under mpirun. */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>
#include <libplan/planhaloexchange.h>

#include <string.h>

#define N 20

static void
push_and_eval (PlanStencilKernel * kernel, const gconstpointer * rows,
    gsize n_rows, gdouble * out, gsize * produced)
{
  PlanHaloBlock blocks[PLAN_HALO_MAX_BLOCKS];
  GError *err = NULL;
  guint n_blocks, i;
  gsize n = 0;

  if (rows)
    fail_unless (plan_stencil_kernel_push_inputs (kernel, rows, n_rows,
            blocks, &n_blocks, &err), "%s", err ? err->message : "");
  else
    fail_unless (plan_stencil_kernel_finish (kernel, blocks, &n_blocks,
            &err), "%s", err ? err->message : "");
  for (i = 0; i < n_blocks; i++)
    n += blocks[i].n_rows;
  fail_unless (*produced + n <= N);
  plan_stencil_kernel_eval (kernel, blocks, n_blocks, out + *produced);
  *produced += n;
}

GST_START_TEST (test_one_rank_wrap_equals_whole_array)
{
  const PlanShardInfo in = { 0, 1, 0, N, N, FALSE };
  const gint64 shape[] = { -1 };
  gdouble x[N], out[N], ref[N];
  gconstpointer rows[1];
  gsize row_size = sizeof (gdouble), produced = 0, i, c, n_tail;
  PlanShardInfo share;
  PlanHaloExchange *ex;
  PlanStencilKernel *kernel;
  PlanWindow *window;
  PlanArrayInfo info;
  GError *err = NULL;

  for (i = 0; i < N; i++)
    x[i] = (gdouble) (i * i % 17);
  for (i = 0; i < N; i++)
    ref[i] = x[(i + N - 1) % N] + 2 * x[i] + x[(i + 1) % N];

  ex = plan_halo_exchange_new ("stencil0", &in, 1, PLAN_BOUNDARY_WRAP,
      "the window \"w c e\"");
  plan_halo_exchange_get_output (ex, &share);
  /* The first row is context: the output starts at global row 1 and
   * wraps round to row 0 with the rows that follow the last. */
  fail_unless_equals_uint64 (share.origin, 1);
  fail_unless_equals_int64 (share.n_rows, N);
  fail_unless_equals_uint64 (share.total, N);
  fail_unless_equals_int64 (plan_halo_exchange_get_rows_delta (ex), 0);
  fail_unless (plan_halo_exchange_check_rows (ex, N, NULL));

  window = plan_window_parse ("w c e", &err);
  fail_unless (window != NULL, "%s", err ? err->message : "");
  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT64, 1, shape,
          NULL));
  kernel = plan_stencil_kernel_new (window, "w + 2*c + e", &info,
      PLAN_BOUNDARY_WRAP, 0, &err);
  fail_unless (kernel != NULL, "%s", err ? err->message : "");

  plan_halo_exchange_start (ex, kernel, 1, &row_size);
  for (i = 0; i < N; i += c) {
    c = MIN (3, N - i);
    rows[0] = x + i;
    /* again and again: started once */
    plan_halo_exchange_start (ex, kernel, 1, &row_size);
    fail_unless (plan_halo_exchange_send_head (ex, rows, c, &err), "%s",
        err ? err->message : "");
    push_and_eval (kernel, rows, c, out, &produced);
  }
  fail_unless (plan_halo_exchange_check_head (ex, N, &err), "%s",
      err ? err->message : "");
  fail_unless (plan_halo_exchange_recv_tail (ex, rows, &n_tail, &err), "%s",
      err ? err->message : "");
  fail_unless_equals_uint64 (n_tail, 2);
  fail_unless (memcmp (rows[0], x, 2 * sizeof (gdouble)) == 0);
  push_and_eval (kernel, rows, n_tail, out, &produced);
  push_and_eval (kernel, NULL, 0, out, &produced);
  fail_unless_equals_uint64 (produced, N);
  for (i = 0; i < N; i++)
    fail_unless (out[i] == ref[(i + 1) % N], "output row %u: %g, not %g",
        (guint) i, out[i], ref[(i + 1) % N]);

  /* A new stream of the same share: the stream ends before the first two
   * rows are all there. */
  plan_halo_exchange_reset (ex);
  plan_stencil_kernel_reset (kernel);
  plan_halo_exchange_start (ex, kernel, 1, &row_size);
  rows[0] = x;
  fail_unless (plan_halo_exchange_send_head (ex, rows, 1, &err));
  fail_if (plan_halo_exchange_check_head (ex, 1, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_SHAPE));
  fail_unless (strstr (err->message, "rank 0 of 1 has 1 row,") != NULL,
      "%s", err->message);
  g_clear_error (&err);
  fail_if (plan_halo_exchange_recv_tail (ex, rows, &n_tail, &err));
  fail_unless (g_str_has_prefix (err->message, "on rank 0 did not get the "
          "halo rows of rank 0: the stream ended before its first 2 rows"),
      "%s", err->message);
  g_clear_error (&err);

  plan_stencil_kernel_free (kernel);
  plan_window_unref (window);
  plan_halo_exchange_free (ex);
}

GST_END_TEST;

/* Rank k of a job: which rows it sends, appends and outputs. */
GST_START_TEST (test_shares_of_a_job)
{
  PlanShardInfo in = { 0, 3, 0, 4, 12, FALSE }, out;
  PlanHaloExchange *ex;
  gconstpointer rows[1];
  gsize row_size = 4, n_tail = 99;
  GError *err = NULL;

  /* first rank, constant: no leading context, the next rank's 2h rows */
  ex = plan_halo_exchange_new ("s", &in, 2, PLAN_BOUNDARY_CONSTANT, NULL);
  plan_halo_exchange_get_output (ex, &out);
  fail_unless_equals_uint64 (out.origin, 0);
  fail_unless_equals_int64 (out.n_rows, 6);
  fail_unless_equals_int64 (plan_halo_exchange_get_rows_delta (ex), 2);
  plan_halo_exchange_free (ex);

  /* last rank, constant: sends its first 2h, receives nothing */
  in.rank = 2;
  in.origin = 8;
  ex = plan_halo_exchange_new ("s", &in, 2, PLAN_BOUNDARY_CONSTANT, NULL);
  plan_halo_exchange_get_output (ex, &out);
  fail_unless_equals_uint64 (out.origin, 10);
  fail_unless_equals_int64 (out.n_rows, 2);
  {
    const gint64 shape[] = { -1 };
    PlanWindow *window = plan_window_parse ("w c e", NULL);
    PlanArrayInfo info;
    PlanStencilKernel *kernel;

    fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT32, 1, shape,
            NULL));
    kernel = plan_stencil_kernel_new (window, "w + e", &info,
        PLAN_BOUNDARY_CONSTANT, 0, &err);
    fail_unless (kernel != NULL, "%s", err ? err->message : "");
    plan_halo_exchange_start (ex, kernel, 1, &row_size);
    rows[0] = NULL;
    fail_unless (plan_halo_exchange_recv_tail (ex, rows, &n_tail, &err));
    fail_unless_equals_uint64 (n_tail, 0);
    plan_stencil_kernel_free (kernel);
    plan_window_unref (window);
  }
  plan_halo_exchange_free (ex);

  /* valid: the first and last h rows of every share are context */
  in.rank = 1;
  in.origin = 4;
  ex = plan_halo_exchange_new ("s", &in, 1, PLAN_BOUNDARY_VALID, NULL);
  plan_halo_exchange_get_output (ex, &out);
  fail_unless_equals_uint64 (out.origin, 4);
  fail_unless_equals_uint64 (out.total, 10);
  fail_unless_equals_int64 (out.n_rows, 4);
  plan_halo_exchange_free (ex);
}

GST_END_TEST;

/* A rank that sends its first 2h rows must have them: the error says how
 * many ranks the rows allow. */
GST_START_TEST (test_share_too_short)
{
  const PlanShardInfo in = { 1, 2, 5, 1, 6, FALSE };
  PlanHaloExchange *ex;
  GError *err = NULL;

  ex = plan_halo_exchange_new ("s", &in, 1, PLAN_BOUNDARY_REFLECT,
      "the window \"w c e\"");
  fail_if (plan_halo_exchange_check_rows (ex, 1, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_SHAPE));
  fail_unless_equals_string (err->message, "rank 1 of 2 has 1 row, from "
      "global row 5 of 6, but the window \"w c e\" reaches 1 row beyond its "
      "centre along the first axis: each rank of a sharded stencil sends "
      "its first 2 rows to rank 0, so every rank needs at least 2 rows; run "
      "at most 3 ranks for 6 rows");
  g_clear_error (&err);
  /* not known yet: checked at the end */
  fail_unless (plan_halo_exchange_check_rows (ex, -1, &err));
  plan_halo_exchange_free (ex);
}

GST_END_TEST;

static Suite *
haloexchange_suite (void)
{
  Suite *s = suite_create ("planhaloexchange");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_one_rank_wrap_equals_whole_array);
  tcase_add_test (tc, test_shares_of_a_job);
  tcase_add_test (tc, test_share_too_short);
  return s;
}

GST_CHECK_MAIN (haloexchange);
