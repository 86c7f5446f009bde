/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* A per-column reduction (axis=0) in process: PlanReducer over an
 * in-memory array of MIB MiB in rows of COLS elements of DTYPE (default
 * float32), pushed in chunks of CHUNK_KIB KiB (default 1024; planreduce
 * asks planfilesrc for 16 MiB) on 2 threads, best of REPEAT. Run by
 * bench_columns.py. With `lean` (float32 sums only) it also times, in
 * the same process and on the same array, the plain loop a C programmer
 * would write: two threads, half the rows each, a float64 sum per column,
 * no blocks, no guarantees on the bits; the two minima are printed on one
 * line. With `async` the chunks are pushed as planreduce pushes them
 * (plan_reducer_push_async(): the next while the workers are still on
 * the one before), and the minimum wall time and the median CPU time of
 * the process a run (getrusage(): the CPU time is what a change of the
 * loops shows on a machine shared with other work) are printed.
 *
 *     columns_inproc COLS OP [MIB [REPEAT [DTYPE [CHUNK_KIB [lean|async]]]]]
 */

#ifndef PLAN_USE_UNSTABLE_API
#define PLAN_USE_UNSTABLE_API
#endif
#include <libplan/plan.h>
#include <libplan/reduce/planreducerasync.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

typedef struct
{
  const gfloat *data;
  gsize rows, cols;
  gdouble *sums;
} LeanPart;

static gpointer
lean_part (gpointer user_data)
{
  LeanPart *p = user_data;
  gdouble *restrict sums = p->sums;
  gsize i, c, cols = p->cols;

  for (c = 0; c < cols; c++)
    sums[c] = 0;
  for (i = 0; i < p->rows; i++) {
    const gfloat *restrict row = p->data + i * cols;

    for (c = 0; c < cols; c++)
      sums[c] += row[c];
  }
  return NULL;
}

/* The plain two-thread column sum; returns its time in seconds. */
static gdouble
lean_column_sum (const gfloat * data, gsize rows, gsize cols)
{
  gint64 t = g_get_monotonic_time ();
  GThread *threads[2];
  LeanPart parts[2];
  gint k;

  for (k = 0; k < 2; k++) {
    parts[k].rows = k == 0 ? rows / 2 : rows - rows / 2;
    parts[k].data = data + (k == 0 ? 0 : rows / 2) * cols;
    parts[k].cols = cols;
    parts[k].sums = g_new (gdouble, cols);
    threads[k] = g_thread_new ("lean", lean_part, &parts[k]);
  }
  for (k = 0; k < 2; k++) {
    g_thread_join (threads[k]);
    g_free (parts[k].sums);
  }
  return (g_get_monotonic_time () - t) / 1e6;
}

static gdouble
cpu_seconds (void)
{
  struct rusage u;

  getrusage (RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec +
      u.ru_stime.tv_usec) / 1e6;
}

static gint
compare_doubles (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  PlanArrayInfo info;
  PlanReduceOp op;
  PlanReducer *r;
  GEnumValue *value;
  GError *err = NULL;
  PlanDType dtype = PLAN_DTYPE_FLOAT32;
  gsize cols, rows, chunk, size, i;
  gint64 shape[2];
  gdouble best = G_MAXDOUBLE, lean_best = G_MAXDOUBLE;
  gboolean lean, async;
  gdouble *cpu;
  gfloat *data;
  guint8 *out;
  gint repeat, k;

  if (argc < 3) {
    g_printerr ("usage: %s COLS OP [MIB [REPEAT [DTYPE]]]\n", argv[0]);
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
  if (argc > 5
      && (dtype = plan_dtype_parse (argv[5], &err)) == PLAN_DTYPE_UNKNOWN) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  if (dtype != PLAN_DTYPE_FLOAT32 && dtype != PLAN_DTYPE_FLOAT64
      && dtype != PLAN_DTYPE_COMPLEX64 && dtype != PLAN_DTYPE_COMPLEX128) {
    g_printerr ("DTYPE is float32, float64, complex64 or complex128\n");
    return 2;
  }
  size = plan_dtype_get_size (dtype);
  rows = ((argc > 3 ? g_ascii_strtoull (argv[3], NULL, 10) : 512) << 20)
      / size / cols;
  repeat = argc > 4 ? atoi (argv[4]) : 3;
  chunk = MAX (1, (argc > 6 ? g_ascii_strtoull (argv[6], NULL, 10) : 1024)
      * 1024 / size / cols);
  lean = argc > 7 && strcmp (argv[7], "lean") == 0;
  async = argc > 7 && strcmp (argv[7], "async") == 0;
  if (lean && (dtype != PLAN_DTYPE_FLOAT32 || op != PLAN_REDUCE_OP_SUM)) {
    g_printerr ("the lean loop is a float32 sum\n");
    return 2;
  }
  shape[0] = rows;
  shape[1] = cols;
  plan_array_info_set (&info, dtype, 2, shape, NULL);
  data = g_malloc (rows * cols * size);
  /* float32 values, or the parts of complex64 ones; float64 and
   * complex128 have the first half of them made float64 */
  for (i = 0; i < rows * cols * size / 4; i++)
    data[i] = 1.0f + (i % 7) * 1e-6f;
  if (dtype == PLAN_DTYPE_FLOAT64 || dtype == PLAN_DTYPE_COMPLEX128)
    for (i = rows * cols * size / 8; i-- > 0;)
      ((gdouble *) data)[i] = data[i];
  out = g_malloc (cols * 16);
  r = plan_reducer_new (op, PLAN_REDUCE_AXIS_ROWS, &info, &err);
  if (r == NULL) {
    g_printerr ("%s\n", err->message);
    return 1;
  }
  plan_reducer_set_n_threads (r, 2);
  repeat = MAX (repeat, 1);
  cpu = g_new (gdouble, repeat);
  for (k = 0; k < repeat; k++) {
    gint64 t = g_get_monotonic_time ();

    cpu[k] = cpu_seconds ();
    plan_reducer_reset (r);
    for (i = 0; i < rows; i += chunk) {
      if (async)
        plan_reducer_push_async (r, (guint8 *) data + i * cols * size,
            MIN (chunk, rows - i), NULL);
      else
        plan_reducer_push (r, (guint8 *) data + i * cols * size,
            MIN (chunk, rows - i), NULL, NULL);
    }
    plan_reducer_finish (r, out, NULL);
    best = MIN (best, (g_get_monotonic_time () - t) / 1e6);
    cpu[k] = cpu_seconds () - cpu[k];
    /* alternated with the reducer's runs, so both see the same machine */
    if (lean)
      lean_best = MIN (lean_best, lean_column_sum (data, rows, cols));
  }
  qsort (cpu, repeat, sizeof (gdouble), compare_doubles);
  if (lean)
    printf ("%.3f %.3f\n", best, lean_best);
  else if (async)
    printf ("%.3f %.4f\n", best, cpu[repeat / 2]);
  else
    printf ("%.3f\n", best);
  g_free (cpu);
  plan_reducer_unref (r);
  g_free (out);
  g_free (data);
  return 0;
}
