/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The original design's example, with libplan's plan API:
 *
 *   plan = Plan(); a = plan.source(ndim=1); b = plan.source(ndim=1)
 *   c = plan.map(lambda x, y: x + y, args=(a, b))
 *   d = plan.reduce(lambda x, y: x + y, args=(a,))
 *   e = plan.stencil("x y _", lambda x, y: x + y, args=(b,))
 *   f = plan.sink(c); g = plan.sink(d); h = plan.sink(e)
 *   work = plan.realize(target='gpu')
 *   future = work.dispatch(a=A, b=B, f=F, g=G, h=H); future.wait()
 *   io = IO(work); io.connect(a, reader); io.connect(f, writer); ...
 *
 * Usage: plan-example MODE TARGET A.npy B.npy OUTDIR
 *   MODE   memory: A and B read into arrays, results into arrays
 *          files:  A, B and the results bound as files
 *          io:     A and B through chunk readers, f through a chunk writer
 *   TARGET cpu, cuda or auto (GST_PLAN_DEVICE=sim runs the device path on
 *          the simulated device)
 * Writes OUTDIR/f.npy, g.npy and h.npy.
 */

#include <libplan/plan.h>

#include <stdio.h>
#include <string.h>

/* Reads a whole .npy file into a new array. */
/* A chunk reader over an array: the rows from @first_row on, at most 1000
 * at a time, as an application reading its own file would produce them. */
static PlanArray *
read_rows (guint64 first_row, gpointer user_data, GError ** error)
{
  PlanArray *whole = user_data;
  gint64 n = MIN (1000, plan_array_get_n_rows (whole) - (gint64) first_row);

  return n > 0 ? plan_array_new_rows (whole, first_row, n, error) : NULL;
}

/* A chunk writer appending the rows it gets to a stdio file. */
static gboolean
write_rows (PlanArray * chunk, guint64 first_row, gpointer user_data,
    GError ** error)
{
  gsize size;
  gconstpointer data = plan_array_get_data (chunk, &size);

  if (fwrite (data, 1, size, user_data) == size)
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "short write");
  return FALSE;
}

static PlanGraph *
build_plan (GError ** error)
{
  PlanGraph *plan = plan_graph_new ();
  PlanNode *a, *b, *c, *d, *e, *ab[2];

  a = plan_graph_add_source (plan, "a", 1, PLAN_DTYPE_UNKNOWN, error);
  b = a ? plan_graph_add_source (plan, "b", 1, PLAN_DTYPE_UNKNOWN, error) :
      NULL;
  ab[0] = a;
  ab[1] = b;
  c = b ? plan_graph_add_map (plan, "c", "x + y", 2, ab, PLAN_DTYPE_UNKNOWN,
      error) : NULL;
  d = c ? plan_graph_add_reduce (plan, "d", PLAN_REDUCE_OP_SUM,
      PLAN_REDUCE_AXIS_ALL, a, error) : NULL;
  e = d ? plan_graph_add_stencil (plan, "e", "x y _", "x + y",
      PLAN_BOUNDARY_REFLECT, 0.0, b, error) : NULL;
  if (e == NULL || !plan_graph_add_sink (plan, "f", c, error)
      || !plan_graph_add_sink (plan, "g", d, error)
      || !plan_graph_add_sink (plan, "h", e, error))
    g_clear_object (&plan);
  return plan;
}

static gboolean
run (const gchar * mode, PlanWork * work, const gchar * pa,
    const gchar * pb, const gchar * outdir, GError ** error)
{
  PlanBindings *bindings = plan_bindings_new ();
  PlanArray *a = NULL, *b = NULL;
  PlanFuture *future = NULL;
  gchar *f = g_build_filename (outdir, "f.npy", NULL);
  gchar *g = g_build_filename (outdir, "g.npy", NULL);
  gchar *h = g_build_filename (outdir, "h.npy", NULL);
  gchar *f_raw = g_build_filename (outdir, "f.raw", NULL);
  FILE *f_file = NULL;
  gboolean ok = FALSE;

  if (strcmp (mode, "files") == 0) {
    plan_bindings_set_file (bindings, "a", pa);
    plan_bindings_set_file (bindings, "b", pb);
    plan_bindings_set_file (bindings, "f", f);
    plan_bindings_set_file (bindings, "g", g);
    plan_bindings_set_file (bindings, "h", h);
  } else {
    a = plan_array_load_npy (pa, error);
    b = a ? plan_array_load_npy (pb, error) : NULL;
    if (b == NULL)
      goto done;
    if (strcmp (mode, "memory") == 0) {
      PlanArray *out = plan_array_new (plan_array_get_dtype (a), 1,
          plan_array_get_shape (a, NULL), error);

      plan_bindings_set_array (bindings, "a", a);
      plan_bindings_set_array (bindings, "b", b);
      /* f into an array of ours, g and h into arrays the future makes. */
      plan_bindings_set_array (bindings, "f", out);
      g_object_unref (out);
    } else {
      gint64 rows = -1;

      f_file = fopen (f_raw, "wb");
      plan_bindings_set_reader (bindings, "a", plan_array_get_dtype (a), 1,
          &rows, read_rows, g_object_ref (a), g_object_unref);
      plan_bindings_set_reader (bindings, "b", plan_array_get_dtype (b), 1,
          &rows, read_rows, g_object_ref (b), g_object_unref);
      plan_bindings_set_writer (bindings, "f", write_rows, f_file, NULL);
    }
  }

  future = plan_work_dispatch (work, bindings, error);
  if (future == NULL || !plan_future_wait (future, -1, error))
    goto done;

  if (strcmp (mode, "files") == 0) {
    ok = TRUE;
  } else {
    ok = (strcmp (mode, "io") == 0
        || plan_array_save_npy (plan_future_get_result (future, "f"), f, error))
        && plan_array_save_npy (plan_future_get_result (future, "g"), g, error)
        && plan_array_save_npy (plan_future_get_result (future, "h"), h, error);
  }

done:
  if (f_file)
    fclose (f_file);
  g_clear_object (&future);
  g_clear_object (&a);
  g_clear_object (&b);
  g_object_unref (bindings);
  g_free (f);
  g_free (g);
  g_free (h);
  g_free (f_raw);
  return ok;
}

int
main (int argc, char **argv)
{
  GError *error = NULL;
  PlanGraph *plan;
  PlanWork *work = NULL;
  PlanTarget target;
  gchar *launch;

  gst_init (&argc, &argv);
  plan_init ();
  if (argc != 6) {
    g_printerr ("usage: %s memory|files|io cpu|cuda|auto A.npy B.npy OUTDIR\n",
        argv[0]);
    return 2;
  }
  target = strcmp (argv[2], "cuda") == 0 ? PLAN_TARGET_CUDA :
      strcmp (argv[2], "auto") == 0 ? PLAN_TARGET_AUTO : PLAN_TARGET_CPU;

  plan = build_plan (&error);
  if (plan != NULL)
    work = plan_graph_realize (plan, target, PLAN_REALIZE_NONE, &error);
  if (work != NULL && run (argv[1], work, argv[3], argv[4], argv[5], &error)) {
    launch = plan_work_to_launch_string (work);
    g_print ("%s\n", launch);
    g_free (launch);
  }
  g_clear_object (&work);
  g_clear_object (&plan);
  if (error != NULL) {
    g_printerr ("plan-example: %s\n", error->message);
    g_error_free (error);
    return 1;
  }
  return 0;
}
