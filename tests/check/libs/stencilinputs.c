/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanStencilKernel over several inputs (plan_stencil_kernel_new_inputs):
 * a 2-D wave equation step, u's 5-point window and u_prev's centre, in
 * every boundary mode, pushed in chunks of 1 to all rows, against a plain
 * loop that pads by the boundary rule; inputs of different dtypes; and
 * the errors (shapes, a name in two windows, too few axes). */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>

#include <math.h>
#include <string.h>

#define ROWS 13
#define COLS 9

/* u_next = 2u - p + 0.25 (n + s + e + w - 4u), each cell read through the
 * boundary rule, in the expression's order. */
static gdouble
reference (const gdouble * u, const gdouble * p, PlanBoundary b, gint r,
    gint c, gdouble cval)
{
  static const gint d[4][2] = { {-1, 0}, {1, 0}, {0, 1}, {0, -1} };
  gdouble cell[4], centre = u[r * COLS + c];
  guint k;

  for (k = 0; k < 4; k++) {
    gint64 rr = plan_boundary_map_index (b, r + d[k][0], ROWS);
    gint64 cc = plan_boundary_map_index (b, c + d[k][1], COLS);

    cell[k] = rr < 0 || cc < 0 ? cval : u[rr * COLS + cc];
  }
  return 2 * centre - p[r * COLS + c] + 0.25 * (cell[0] + cell[1] + cell[2] +
      cell[3] - 4 * centre);
}

static PlanStencilKernel *
wave_kernel (PlanBoundary b, PlanDType dtype1, GError ** error)
{
  PlanWindow *w[2];
  PlanArrayInfo info[2];
  PlanStencilKernel *k;

  w[0] = plan_window_parse ("_ n _; w c e; _ s _", NULL);
  w[1] = plan_window_parse ("p", NULL);
  plan_array_info_init (&info[0]);
  info[0].dtype = PLAN_DTYPE_FLOAT64;
  info[0].ndim = 2;
  info[0].shape[0] = ROWS;
  info[0].shape[1] = COLS;
  info[1] = info[0];
  info[1].dtype = dtype1;
  k = plan_stencil_kernel_new_inputs (2, (const PlanWindow * const *) w,
      info, "2*c - p + 0.25*(n + s + e + w - 4*c)", b, 1.5, error);
  plan_window_unref (w[0]);
  plan_window_unref (w[1]);
  return k;
}

GST_START_TEST (test_wave_step_every_mode_and_chunk)
{
  gdouble u[ROWS * COLS], p[ROWS * COLS], out[ROWS * COLS];
  guint i, b, chunk;

  for (i = 0; i < ROWS * COLS; i++) {
    u[i] = sin (i * 0.7) * 3;
    p[i] = cos (i * 0.3) - 0.5;
  }
  for (b = PLAN_BOUNDARY_CONSTANT; b <= PLAN_BOUNDARY_WRAP; b++) {
    for (chunk = 1; chunk <= ROWS; chunk += 5) {
      PlanStencilKernel *k = wave_kernel (b, PLAN_DTYPE_FLOAT64, NULL);
      PlanHaloBlock blocks[PLAN_HALO_MAX_BLOCKS];
      guint n_blocks, j;
      gsize done = 0, row, n_end;
      GError *err = NULL;

      fail_unless (k != NULL);
      fail_unless_equals_int (plan_stencil_kernel_get_n_inputs (k), 2);
      for (row = 0; row < ROWS; row += chunk) {
        gsize n = MIN (chunk, ROWS - row);
        gconstpointer rows[2] = { u + row * COLS, p + row * COLS };

        if (plan_stencil_kernel_host_needs_end_rows (k, n, &n_end)) {
          fail_unless (plan_stencil_kernel_host_set_input_end_rows (k, 0,
                  ROWS, u + (ROWS - n_end) * COLS, n_end, &err));
          fail_unless (plan_stencil_kernel_host_set_input_end_rows (k, 1,
                  ROWS, p + (ROWS - n_end) * COLS, n_end, &err));
        }
        fail_unless (plan_stencil_kernel_push_inputs (k, rows, n, blocks,
                &n_blocks, &err), "%s", err ? err->message : "");
        plan_stencil_kernel_eval (k, blocks, n_blocks, out + done * COLS);
        for (j = 0; j < n_blocks; j++)
          done += blocks[j].n_rows;
      }
      do {
        fail_unless (plan_stencil_kernel_finish (k, blocks, &n_blocks, &err));
        plan_stencil_kernel_eval (k, blocks, n_blocks, out + done * COLS);
        for (j = 0; j < n_blocks; j++)
          done += blocks[j].n_rows;
      } while (n_blocks > 0);
      fail_unless_equals_int (done, ROWS);
      for (i = 0; i < ROWS * COLS; i++)
        fail_unless (out[i] == reference (u, p, b, i / COLS, i % COLS, 1.5),
            "boundary %s, chunks of %u: output %u is %g, expected %g",
            plan_boundary_to_string (b), chunk, i, out[i], reference (u, p,
                b, i / COLS, i % COLS, 1.5));
      plan_stencil_kernel_free (k);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_dtypes_promote)
{
  PlanStencilKernel *k = wave_kernel (PLAN_BOUNDARY_NEAREST,
      PLAN_DTYPE_INT16, NULL);
  PlanArrayInfo out;

  fail_unless (k != NULL);
  plan_stencil_kernel_get_output_info (k, &out);
  fail_unless_equals_int (out.dtype, PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int (out.shape[1], COLS);
  plan_stencil_kernel_free (k);
}

GST_END_TEST;

static void
check_refused (const gchar * w0, const gchar * w1, gint64 cols1,
    guint ndim1, const gchar * expect)
{
  PlanWindow *w[2];
  PlanArrayInfo info[2];
  GError *err = NULL;

  w[0] = plan_window_parse (w0, NULL);
  w[1] = plan_window_parse (w1, NULL);
  plan_array_info_init (&info[0]);
  info[0].dtype = PLAN_DTYPE_FLOAT32;
  info[0].ndim = 2;
  info[0].shape[0] = -1;
  info[0].shape[1] = COLS;
  info[1] = info[0];
  info[1].ndim = ndim1;
  info[1].shape[1] = cols1;
  fail_unless (plan_stencil_kernel_new_inputs (2, (const PlanWindow *
              const *) w, info, "c", PLAN_BOUNDARY_REFLECT, 0, &err) == NULL);
  fail_unless (err != NULL && strstr (err->message, expect) != NULL,
      "'%s' not in: %s", expect, err ? err->message : "(no error)");
  g_error_free (err);
  plan_window_unref (w[0]);
  plan_window_unref (w[1]);
}

GST_START_TEST (test_refused)
{
  check_refused ("l c r", "p", COLS + 1, 2,
      "input 1 has the shape (-1, 10) but input 0 has (-1, 9)");
  check_refused ("l c r", "p", COLS, 1, "input 1 has the shape (-1,)");
  check_refused ("l c r", "_ c _", COLS, 2,
      "'c' names a cell of the window of input 0 and one of input 1");
  check_refused ("l c r", "a | b | d", COLS, 2,
      "input 1: the window has 3 planes");
}

GST_END_TEST;

static Suite *
stencilinputs_suite (void)
{
  Suite *s = suite_create ("stencilinputs");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_wave_step_every_mode_and_chunk);
  tcase_add_test (tc, test_dtypes_promote);
  tcase_add_test (tc, test_refused);
  return s;
}

GST_CHECK_MAIN (stencilinputs);
