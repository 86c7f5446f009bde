/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* A per-column reduction (axis=0) in process: PlanReducer over an
 * in-memory float32 array of MIB MiB in rows of COLS, pushed in 1 MiB
 * chunks on 2 threads, best of REPEAT. Run by bench_columns.py.
 *
 *     columns_inproc COLS OP [MIB [REPEAT]]
 */

#include <libplan/plan.h>
#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
  PlanArrayInfo info;
  PlanReduceOp op;
  PlanReducer *r;
  GEnumValue *value;
  GError *err = NULL;
  gsize cols, rows, chunk, i;
  gint64 shape[2];
  gdouble best = G_MAXDOUBLE;
  gfloat *data;
  guint8 *out;
  gint repeat, k;

  if (argc < 3) {
    g_printerr ("usage: %s COLS OP [MIB [REPEAT]]\n", argv[0]);
    return 2;
  }
  cols = MAX (1, g_ascii_strtoull (argv[1], NULL, 10));
  value = g_enum_get_value_by_nick (g_type_class_ref (PLAN_TYPE_REDUCE_OP),
      argv[2]);
  if (value == NULL) {
    g_printerr ("no reduction '%s'\n", argv[2]);
    return 2;
  }
  op = value->value;
  rows = ((argc > 3 ? g_ascii_strtoull (argv[3], NULL, 10) : 512) << 20) / 4
      / cols;
  repeat = argc > 4 ? atoi (argv[4]) : 3;
  chunk = MAX (1, (1u << 20) / 4 / cols);
  shape[0] = rows;
  shape[1] = cols;
  plan_array_info_set (&info, PLAN_DTYPE_FLOAT32, 2, shape, NULL);
  data = g_malloc (rows * cols * sizeof (gfloat));
  for (i = 0; i < rows * cols; i++)
    data[i] = 1.0f + (i % 7) * 1e-6f;
  out = g_malloc (cols * 8);
  r = plan_reducer_new (op, PLAN_REDUCE_AXIS_ROWS, &info, &err);
  if (r == NULL) {
    g_printerr ("%s\n", err->message);
    return 1;
  }
  plan_reducer_set_n_threads (r, 2);
  for (k = 0; k < repeat; k++) {
    gint64 t = g_get_monotonic_time ();

    plan_reducer_reset (r);
    for (i = 0; i < rows; i += chunk)
      plan_reducer_push (r, data + i * cols, MIN (chunk, rows - i), NULL,
          NULL);
    plan_reducer_finish (r, out, NULL);
    best = MIN (best, (g_get_monotonic_time () - t) / 1e6);
  }
  printf ("%.3f\n", best);
  plan_reducer_unref (r);
  g_free (out);
  g_free (data);
  return 0;
}
