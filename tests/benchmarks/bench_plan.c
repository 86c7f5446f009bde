/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The plan API's side of tests/benchmarks/bench_plan.py, which runs it and
 * times the numpy peers in the same run:
 *
 *   bench_plan add MIB REPEAT       x + y on two MIB float32 arrays, into a
 *                                   caller's array and into the future's
 *   bench_plan add64 N REPEAT       x + y on two N-element float64 arrays
 *                                   into a caller's array, REPEAT
 *                                   dispatches (the mid-size job of
 *                                   run-all)
 *   bench_plan latency N CYCLES     dispatch -> wait of the design's example
 *                                   on N-element arrays, next to bare
 *                                   GStreamer pipelines' state cycles
 *   bench_plan example MIB REPEAT   the design's example on MIB arrays
 *   bench_plan fusion FILE REPEAT   x*x + 1 summed, fused and unfused, on
 *                                   a float32 .npy file
 *   bench_plan reduce FILE OP AXIS REPEAT
 *                                   OP (sum, max, ...) of a .npy file,
 *                                   AXIS all or 0, one dispatch of the
 *                                   work realized once per run: each
 *                                   run's seconds, then the minimum and
 *                                   median (for profiles of the
 *                                   reductions in process, run-all's
 *                                   -api jobs without Python)
 *
 * The inputs are allocated and filled here, and an output array of the
 * caller's is written once before anything is timed, so no contender pays
 * first-touch page faults on memory it was given. Results the future
 * allocates are timed with their page faults, as numpy's `a + b` is.
 *
 * Prints `result NAME SECONDS` (best of REPEAT) and `latency NAME MEDIAN
 * P10 P90` (microseconds) lines for the script, and `info` lines for the
 * reader. Run by hand, never by `meson test`. */

#include <libplan/plan.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

static void
die (const gchar * what, GError * err)
{
  g_printerr ("bench_plan: %s: %s\n", what, err ? err->message : "failed");
  exit (1);
}

static gdouble
now (void)
{
  return g_get_monotonic_time () / 1e6;
}

/* Keeps the smaller of *@best and @t; returns @t. (MIN() would evaluate
 * a timed call twice.) */
static gdouble
keep_best (gdouble * best, gdouble t)
{
  if (t < *best)
    *best = t;
  return t;
}

static gint
compare_doubles (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/* Median, 10th and 90th percentile of @n seconds, in microseconds. */
static void
print_latency (const gchar * name, gdouble * t, guint n)
{
  qsort (t, n, sizeof (gdouble), compare_doubles);
  g_print ("latency %s %.1f %.1f %.1f\n", name, t[n / 2] * 1e6,
      t[n / 10] * 1e6, t[n * 9 / 10] * 1e6);
}

/* A float32 array of @n values, every page written. */
static PlanArray *
new_filled (gint64 n, guint step)
{
  GError *err = NULL;
  PlanArray *array = plan_array_new (PLAN_DTYPE_FLOAT32, 1, &n, &err);
  gfloat *v;
  gint64 i;

  if (array == NULL)
    die ("allocating an array", err);
  v = plan_array_get_writable_data (array, NULL);
  for (i = 0; i < n; i++)
    v[i] = (gfloat) ((i * step) % 1000) * 0.001f;
  return array;
}

static glong
minor_faults (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

/* The page faults of the last run_once(). */
static glong last_faults;

/* The process's CPU time (all threads, user and system), seconds. */
static gdouble
cpu_seconds (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec
      + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

/* One dispatch, waited for; the seconds it took. */
static gdouble
run_once (PlanWork * work, PlanBindings * bindings, PlanFuture ** result)
{
  GError *err = NULL;
  PlanFuture *future;
  glong faults = minor_faults ();
  gdouble start = now (), seconds;

  future = plan_work_dispatch (work, bindings, &err);
  if (future == NULL || !plan_future_wait (future, -1, &err))
    die ("dispatch", err);
  seconds = now () - start;
  last_faults = minor_faults () - faults;
  if (result != NULL)
    *result = future;
  else
    g_object_unref (future);
  return seconds;
}

static PlanWork *
realize (PlanGraph * graph, PlanRealizeFlags flags)
{
  GError *err = NULL;
  PlanWork *work = plan_graph_realize (graph, PLAN_TARGET_CPU, flags, &err);

  if (work == NULL)
    die ("realize", err);
  return work;
}

/* ---------------------------------------------------------------------
 * add: f = a + b
 * --------------------------------------------------------------------- */

static PlanGraph *
add_graph (void)
{
  GError *err = NULL;
  PlanGraph *graph = plan_graph_new ();
  PlanNode *in[2], *c;

  in[0] = plan_graph_add_source (graph, "a", 1, PLAN_DTYPE_UNKNOWN, &err);
  in[1] = plan_graph_add_source (graph, "b", 1, PLAN_DTYPE_UNKNOWN, &err);
  c = plan_graph_add_map (graph, "c", "x + y", 2, in, PLAN_DTYPE_UNKNOWN,
      &err);
  if (c == NULL || !plan_graph_add_sink (graph, "f", c, &err))
    die ("building x + y", err);
  return graph;
}

static void
check_add (PlanArray * a, PlanArray * b, PlanArray * f)
{
  const gfloat *x = plan_array_get_data (a, NULL);
  const gfloat *y = plan_array_get_data (b, NULL);
  const gfloat *z = plan_array_get_data (f, NULL);
  gint64 n = plan_array_get_n_rows (a), i;

  for (i = 0; i < n; i += 4099)
    if (z[i] != x[i] + y[i])
      die ("x + y gave a wrong value", NULL);
  if (z[n - 1] != x[n - 1] + y[n - 1])
    die ("x + y gave a wrong last value", NULL);
}

/* What a single thread of plain C does with the same memory: the floor
 * of one pass over it, and the price of one more copy. */
static void
add_references (PlanArray * a, PlanArray * b, PlanArray * out, guint repeat)
{
  const gfloat *x = plan_array_get_data (a, NULL);
  const gfloat *y = plan_array_get_data (b, NULL);
  gsize size;
  gfloat *z = plan_array_get_writable_data (out, &size);
  gdouble best_loop = G_MAXDOUBLE, best_copy = G_MAXDOUBLE, t;
  gsize n = size / sizeof (gfloat), i;
  guint r;

  for (r = 0; r < repeat; r++) {
    t = now ();
    for (i = 0; i < n; i++)
      z[i] = x[i] + y[i];
    keep_best (&best_loop, now () - t);
    t = now ();
    memcpy (z, x, size);
    keep_best (&best_copy, now () - t);
  }
  g_print ("result c-loop-add %.6f\n", best_loop);
  g_print ("result c-memcpy %.6f\n", best_copy);
}

/* Writing once a fresh block of @size bytes, in 4 KiB pages (as
 * posix_memalign() gives it, which is how the future's arrays are
 * allocated) or in transparent huge pages (what numpy asks for with
 * madvise on blocks of 4 MiB and more): the page faults an unbound output
 * pays. */
static gdouble
fresh_touch (gsize size, gboolean huge)
{
  gpointer p;
  gdouble t;

  if (posix_memalign (&p, 2 << 20, size) != 0)
    die ("allocating a block", NULL);
  if (huge)
    madvise (p, size, MADV_HUGEPAGE);
  t = now ();
  memset (p, 1, size);
  t = now () - t;
  free (p);
  return t;
}

static void
bench_add (gint64 mib, guint repeat)
{
  gint64 n = (mib << 20) / 4;
  PlanArray *a = new_filled (n, 1), *b = new_filled (n, 7);
  PlanArray *out = new_filled (n, 3);
  PlanGraph *graph = add_graph ();
  PlanWork *work = realize (graph, PLAN_REALIZE_NONE);
  PlanBindings *bound = plan_bindings_new (), *unbound = plan_bindings_new ();
  gdouble best_bound = G_MAXDOUBLE, best_unbound = G_MAXDOUBLE;
  gdouble best_4k = G_MAXDOUBLE, best_huge = G_MAXDOUBLE;
  PlanFuture *future;
  guint r;

  plan_bindings_set_array (bound, "a", a);
  plan_bindings_set_array (bound, "b", b);
  plan_bindings_set_array (bound, "f", out);
  plan_bindings_set_array (unbound, "a", a);
  plan_bindings_set_array (unbound, "b", b);
  g_print ("info add: %" G_GINT64_FORMAT " float32 elements per array, "
      "kernels %u; inputs filled and output array written before timing\n",
      n, plan_work_get_n_kernels (work));

  /* One untimed run of each, so the pools and threads exist. */
  run_once (work, bound, NULL);
  run_once (work, unbound, NULL);
  for (r = 0; r < repeat; r++) {
    keep_best (&best_bound, run_once (work, bound, NULL));
    g_print ("info add: run %u bound: %ld page faults\n", r, last_faults);
    /* The result is freed before the next run, outside the time. */
    keep_best (&best_unbound, run_once (work, unbound, &future));
    g_print ("info add: run %u unbound: %ld page faults\n", r, last_faults);
    check_add (a, b, plan_future_get_result (future, "f"));
    g_object_unref (future);
    keep_best (&best_4k, fresh_touch (n * sizeof (gfloat), FALSE));
    keep_best (&best_huge, fresh_touch (n * sizeof (gfloat), TRUE));
  }
  check_add (a, b, out);
  g_print ("result plan-add-bound %.6f\n", best_bound);
  g_print ("result plan-add-unbound %.6f\n", best_unbound);
  g_print ("result c-fresh-touch-4k %.6f\n", best_4k);
  g_print ("result c-fresh-touch-thp %.6f\n", best_huge);
  add_references (a, b, out, repeat);

  g_object_unref (bound);
  g_object_unref (unbound);
  g_object_unref (work);
  g_object_unref (graph);
  g_object_unref (out);
  g_object_unref (a);
  g_object_unref (b);
}

/* ---------------------------------------------------------------------
 * add64: f = a + b on float64 arrays of N elements, into a caller's array
 * --------------------------------------------------------------------- */

static void
bench_add64 (gint64 n, guint repeat)
{
  GError *err = NULL;
  PlanArray *a = plan_array_new (PLAN_DTYPE_FLOAT64, 1, &n, &err);
  PlanArray *b = plan_array_new (PLAN_DTYPE_FLOAT64, 1, &n, &err);
  PlanArray *out = plan_array_new (PLAN_DTYPE_FLOAT64, 1, &n, &err);
  PlanGraph *graph = add_graph ();
  PlanWork *work = realize (graph, PLAN_REALIZE_NONE);
  PlanBindings *bound = plan_bindings_new ();
  gdouble *t = g_new (gdouble, MAX (repeat, 1));
  gdouble *x, *y, *z;
  gint64 i;
  guint r;

  if (a == NULL || b == NULL || out == NULL)
    die ("allocating the arrays", err);
  x = plan_array_get_writable_data (a, NULL);
  y = plan_array_get_writable_data (b, NULL);
  z = plan_array_get_writable_data (out, NULL);
  for (i = 0; i < n; i++) {
    x[i] = (gdouble) (i % 1000) * 0.001;
    y[i] = (gdouble) (i % 7);
    z[i] = 0.0;
  }
  plan_bindings_set_array (bound, "a", a);
  plan_bindings_set_array (bound, "b", b);
  plan_bindings_set_array (bound, "f", out);
  for (r = 0; r < 10; r++)
    run_once (work, bound, NULL);
  for (r = 0; r < repeat; r++)
    t[r] = run_once (work, bound, NULL);
  for (i = 0; i < n; i++)
    if (z[i] != x[i] + y[i])
      die ("x + y gave a wrong value", NULL);
  print_latency ("plan-add64", t, MAX (repeat, 1));
  g_print ("result plan-add64-min %.9f\n", t[0]);

  g_free (t);
  g_object_unref (bound);
  g_object_unref (work);
  g_object_unref (graph);
  g_object_unref (out);
  g_object_unref (a);
  g_object_unref (b);
}

/* ---------------------------------------------------------------------
 * The design's example: c = a + b, d = sum of a, e = stencil of b
 * --------------------------------------------------------------------- */

static PlanGraph *
example_graph (void)
{
  GError *err = NULL;
  PlanGraph *graph = plan_graph_new ();
  PlanNode *ab[2], *c, *d, *e;

  ab[0] = plan_graph_add_source (graph, "a", 1, PLAN_DTYPE_UNKNOWN, &err);
  ab[1] = plan_graph_add_source (graph, "b", 1, PLAN_DTYPE_UNKNOWN, &err);
  c = plan_graph_add_map (graph, "c", "x + y", 2, ab, PLAN_DTYPE_UNKNOWN,
      &err);
  d = plan_graph_add_reduce_custom (graph, "d", "x + y", "0",
      PLAN_REDUCE_AXIS_ALL, ab[0], &err);
  e = plan_graph_add_stencil (graph, "e", "x y _", "x + y",
      PLAN_BOUNDARY_CONSTANT, 0.0, ab[1], &err);
  if (c == NULL || d == NULL || e == NULL
      || !plan_graph_add_sink (graph, "f", c, &err)
      || !plan_graph_add_sink (graph, "g", d, &err)
      || !plan_graph_add_sink (graph, "h", e, &err))
    die ("building the example", err);
  return graph;
}

static gdouble
scalar_value (PlanArray * array)
{
  gconstpointer data = plan_array_get_data (array, NULL);

  switch (plan_array_get_dtype (array)) {
    case PLAN_DTYPE_FLOAT32:
      return *(const gfloat *) data;
    case PLAN_DTYPE_FLOAT64:
      return *(const gdouble *) data;
    default:
      die ("a reduction of an unexpected dtype", NULL);
      return 0;
  }
}

static void
check_example (PlanArray * b, PlanArray * e)
{
  const gfloat *y = plan_array_get_data (b, NULL);
  const gfloat *h = plan_array_get_data (e, NULL);
  gint64 n = plan_array_get_n_rows (b), i;

  if (h[0] != y[0])
    die ("the stencil's first value is wrong", NULL);
  for (i = 1; i < n; i += 4099)
    if (h[i] != y[i - 1] + y[i])
      die ("the stencil gave a wrong value", NULL);
}

/* The example, its results into arrays the future allocates, and (to
 * tell the computation from the page faults of fresh results) f and h
 * into arrays of the caller's, written before timing. */
static void
bench_example (gint64 mib, guint repeat)
{
  gint64 n = (mib << 20) / 4;
  PlanArray *a = new_filled (n, 1), *b = new_filled (n, 7), *g;
  PlanArray *f = new_filled (n, 3), *h = new_filled (n, 3);
  PlanGraph *graph = example_graph ();
  PlanWork *work = realize (graph, PLAN_REALIZE_NONE);
  PlanBindings *bindings = plan_bindings_new (), *bound;
  gdouble best = G_MAXDOUBLE, best_bound = G_MAXDOUBLE, t;
  PlanFuture *future;
  guint r;

  plan_bindings_set_array (bindings, "a", a);
  plan_bindings_set_array (bindings, "b", b);
  bound = plan_bindings_new ();
  plan_bindings_set_array (bound, "a", a);
  plan_bindings_set_array (bound, "b", b);
  plan_bindings_set_array (bound, "f", f);
  plan_bindings_set_array (bound, "h", h);
  g_print ("info example: %" G_GINT64_FORMAT " float32 elements per input, "
      "kernels %u, results f g h into arrays the future allocates "
      "(plan-example) or f and h into written arrays of the caller's "
      "(plan-example-bound)\n", n, plan_work_get_n_kernels (work));
  run_once (work, bindings, NULL);
  run_once (work, bound, NULL);
  for (r = 0; r < repeat; r++) {
    t = keep_best (&best, run_once (work, bindings, &future));
    g_print ("info example: run %u unbound: %.4f s, %ld page faults\n", r,
        t, last_faults);
    check_add (a, b, plan_future_get_result (future, "f"));
    check_example (b, plan_future_get_result (future, "h"));
    g = plan_future_get_result (future, "g");
    if (r == 0)
      g_print ("info example: g = %.9g (%s)\n", scalar_value (g),
          plan_dtype_to_string (plan_array_get_dtype (g)));
    g_object_unref (future);
    keep_best (&best_bound, run_once (work, bound, NULL));
    g_print ("info example: run %u bound: %ld page faults\n", r,
        last_faults);
  }
  check_add (a, b, f);
  check_example (b, h);
  g_print ("result plan-example %.6f\n", best);
  g_print ("result plan-example-bound %.6f\n", best_bound);

  g_object_unref (bindings);
  g_object_unref (bound);
  g_object_unref (work);
  g_object_unref (graph);
  g_object_unref (a);
  g_object_unref (b);
  g_object_unref (f);
  g_object_unref (h);
}

/* ---------------------------------------------------------------------
 * latency: the example's dispatch -> wait on small arrays, and what bare
 * pipelines' state changes cost on their own
 * --------------------------------------------------------------------- */

/* Waits for the end of a run; dies on an error. */
static void
wait_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    die (GST_MESSAGE_SRC_NAME (msg), err);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
}

static void
set_state (GstElement * pipeline, GstState state)
{
  if (gst_element_set_state (pipeline, state) == GST_STATE_CHANGE_FAILURE)
    die ("a state change", NULL);
}

/* appsrc ! identity ! appsink: @rest -> PLAYING, one 4000-byte buffer,
 * EOS, the EOS message, the sample taken, @rest again; @cycles times,
 * after a few untimed. The sample is taken after the EOS message
 * (wait-on-eos=false): pulled before, it can meet the EOS flag of the
 * last run, which appsink clears only when the new stream starts. */
static void
bench_appsrc (const gchar * name, GstState rest, guint cycles, gdouble * t)
{
  static guint8 payload[4000];
  GstElement *pipeline = gst_parse_launch ("appsrc name=src ! identity ! "
      "appsink name=sink sync=false wait-on-eos=false", NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstSample *sample;
  guint i;

  if (src == NULL || sink == NULL)
    die ("making appsrc ! identity ! appsink (is GStreamer's app plugin "
        "installed?)", NULL);
  set_state (pipeline, rest);
  for (i = 0; i < cycles + 10; i++) {
    gdouble start = now ();

    set_state (pipeline, GST_STATE_PLAYING);
    gst_app_src_push_buffer (GST_APP_SRC (src),
        gst_buffer_new_memdup (payload, sizeof (payload)));
    gst_app_src_end_of_stream (GST_APP_SRC (src));
    wait_eos (pipeline);
    if ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 0))
        == NULL)
      die ("appsink had no sample at EOS", NULL);
    gst_sample_unref (sample);
    set_state (pipeline, rest);
    if (i >= 10)
      t[i - 10] = now () - start;
  }
  print_latency (name, t, cycles);
  set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (pipeline);
}

/* Binds the array elements of a parsed copy of the work's pipeline by
 * name, as plan_work_dispatch() binds its own. */
static void
bind_parsed (GstElement * pipeline, PlanArray * a, PlanArray * b,
    PlanArray * f)
{
  GstElement *e;

  if ((e = gst_bin_get_by_name (GST_BIN (pipeline), "a")) == NULL)
    die ("no element a in the launch string", NULL);
  plan_array_src_set_array (PLAN_ARRAY_SRC (e), a);
  gst_object_unref (e);
  if ((e = gst_bin_get_by_name (GST_BIN (pipeline), "b")) == NULL)
    die ("no element b in the launch string", NULL);
  plan_array_src_set_array (PLAN_ARRAY_SRC (e), b);
  gst_object_unref (e);
  if ((e = gst_bin_get_by_name (GST_BIN (pipeline), "f")) == NULL)
    die ("no element f in the launch string", NULL);
  plan_array_sink_set_array (PLAN_ARRAY_SINK (e), f);
  gst_object_unref (e);
}

/* The work's own pipeline, parsed from its launch string and cycled by
 * hand: @rest -> PLAYING -> EOS -> @rest, each cycle split into its
 * three steps: set_state (PLAYING) returning, the EOS message, and
 * set_state (@rest) returning. */
static void
bench_parsed (const gchar * name, const gchar * launch, GstState rest,
    PlanArray * a, PlanArray * b, PlanArray * f, guint cycles, gdouble * t)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (launch, &err);
  gdouble *steps[3], mark[4];
  gchar *step_name;
  guint i, k;

  if (pipeline == NULL)
    die ("parsing the work's launch string", err);
  for (k = 0; k < 3; k++)
    steps[k] = g_new (gdouble, cycles);
  bind_parsed (pipeline, a, b, f);
  set_state (pipeline, rest);
  for (i = 0; i < cycles + 10; i++) {
    mark[0] = now ();
    set_state (pipeline, GST_STATE_PLAYING);
    mark[1] = now ();
    wait_eos (pipeline);
    mark[2] = now ();
    set_state (pipeline, rest);
    mark[3] = now ();
    if (i < 10)
      continue;
    t[i - 10] = mark[3] - mark[0];
    for (k = 0; k < 3; k++)
      steps[k][i - 10] = mark[k + 1] - mark[k];
  }
  print_latency (name, t, cycles);
  for (k = 0; k < 3; k++) {
    step_name = g_strdup_printf ("%s:%s", name,
        k == 0 ? "to-playing" : k == 1 ? "to-eos" : "to-rest");
    print_latency (step_name, steps[k], cycles);
    g_free (step_name);
    g_free (steps[k]);
  }
  set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean done;
} Handoff;

static void
handoff_run (gpointer data, gpointer user_data)
{
  Handoff *h = user_data;

  g_mutex_lock (&h->lock);
  h->done = TRUE;
  g_cond_signal (&h->cond);
  g_mutex_unlock (&h->lock);
}

/* A job pushed to a GThreadPool and its completion waited for on a
 * condition: the hand-off plan_work_dispatch() and plan_future_wait()
 * make around the runner thread, with nothing in between. */
static void
bench_handoff (guint cycles, gdouble * t)
{
  Handoff h = { 0 };
  GThreadPool *pool = g_thread_pool_new (handoff_run, &h, -1, FALSE, NULL);
  guint i;

  for (i = 0; i < cycles + 10; i++) {
    gdouble start = now ();

    h.done = FALSE;
    g_thread_pool_push (pool, GUINT_TO_POINTER (1), NULL);
    g_mutex_lock (&h.lock);
    while (!h.done)
      g_cond_wait (&h.cond, &h.lock);
    g_mutex_unlock (&h.lock);
    if (i >= 10)
      t[i - 10] = now () - start;
  }
  print_latency ("thread-handoff", t, cycles);
  g_thread_pool_free (pool, FALSE, TRUE);
}

/* The work's dispatch -> wait, split into plan_work_dispatch() (the checks
 * and binding on the caller's thread) and the wait. */
static void
bench_dispatch (PlanWork * work, PlanBindings * bindings, guint cycles,
    gdouble * t, gdouble * t_dispatch)
{
  GError *err = NULL;
  guint i;

  for (i = 0; i < cycles + 10; i++) {
    gdouble start = now (), dispatched;
    PlanFuture *future = plan_work_dispatch (work, bindings, &err);

    dispatched = now ();
    if (future == NULL || !plan_future_wait (future, -1, &err))
      die ("dispatch", err);
    if (i >= 10) {
      t[i - 10] = now () - start;
      t_dispatch[i - 10] = dispatched - start;
    }
    g_object_unref (future);
  }
  print_latency ("plan-dispatch-wait", t, cycles);
  print_latency ("plan-dispatch-call", t_dispatch, cycles);
}

static void
bench_latency (gint64 n, guint cycles)
{
  PlanArray *a = new_filled (n, 1), *b = new_filled (n, 7);
  PlanArray *f = new_filled (n, 3);
  PlanGraph *graph = example_graph ();
  PlanWork *work = realize (graph, PLAN_REALIZE_NONE);
  PlanBindings *bindings = plan_bindings_new ();
  gdouble *t = g_new (gdouble, cycles), *t2 = g_new (gdouble, cycles);
  gchar *launch;

  /* As plan-example's memory mode: f into an array of ours, g and h into
   * arrays the future makes. */
  plan_bindings_set_array (bindings, "a", a);
  plan_bindings_set_array (bindings, "b", b);
  plan_bindings_set_array (bindings, "f", f);
  g_print ("info latency: example plan, %" G_GINT64_FORMAT " float32 "
      "elements, %u cycles each, after 10 untimed\n", n, cycles);
  bench_dispatch (work, bindings, cycles, t, t2);
  launch = plan_work_to_launch_string (work);
  g_print ("info latency: launch string %s\n", launch);

  bench_appsrc ("appsrc-null-playing-null", GST_STATE_NULL, cycles, t);
  bench_appsrc ("appsrc-ready-playing-ready", GST_STATE_READY, cycles, t);
  bench_parsed ("parsed-ready-playing-ready", launch, GST_STATE_READY, a, b,
      f, cycles, t);
  bench_parsed ("parsed-null-playing-null", launch, GST_STATE_NULL, a, b, f,
      cycles, t);
  bench_handoff (cycles, t);

  g_free (launch);
  g_free (t);
  g_free (t2);
  g_object_unref (bindings);
  g_object_unref (work);
  g_object_unref (graph);
  g_object_unref (a);
  g_object_unref (b);
  g_object_unref (f);
}

/* ---------------------------------------------------------------------
 * fusion: sum (x*x + 1) over a file, fused into one planreduce or not
 * --------------------------------------------------------------------- */

static PlanGraph *
fusion_graph (void)
{
  GError *err = NULL;
  PlanGraph *graph = plan_graph_new ();
  PlanNode *a, *m, *r;

  a = plan_graph_add_source (graph, "a", 1, PLAN_DTYPE_UNKNOWN, &err);
  m = a ? plan_graph_add_map (graph, "m", "x*x + 1", 1, &a,
      PLAN_DTYPE_UNKNOWN, &err) : NULL;
  r = m ? plan_graph_add_reduce (graph, "r", PLAN_REDUCE_OP_SUM,
      PLAN_REDUCE_AXIS_ALL, m, &err) : NULL;
  if (r == NULL || !plan_graph_add_sink (graph, "s", r, &err))
    die ("building sum (x*x + 1)", err);
  return graph;
}

static gdouble
time_fusion (PlanWork * work, PlanBindings * bindings, gdouble * value)
{
  PlanFuture *future;
  gdouble seconds = run_once (work, bindings, &future);

  *value = scalar_value (plan_future_get_result (future, "s"));
  g_object_unref (future);
  return seconds;
}

static void
bench_fusion (const gchar * location, guint repeat)
{
  PlanGraph *graph = fusion_graph ();
  PlanWork *fused = realize (graph, PLAN_REALIZE_NONE);
  PlanWork *unfused = realize (graph, PLAN_REALIZE_NO_FUSE);
  PlanBindings *bindings = plan_bindings_new ();
  gdouble best_fused = G_MAXDOUBLE, best_unfused = G_MAXDOUBLE, v1, v2;
  gchar *launch;
  guint r;

  plan_bindings_set_file (bindings, "a", location);
  time_fusion (fused, bindings, &v1);
  time_fusion (unfused, bindings, &v2);
  /* Alternated, so that both meet the page cache in the same state. */
  for (r = 0; r < repeat; r++) {
    keep_best (&best_fused, time_fusion (fused, bindings, &v1));
    keep_best (&best_unfused, time_fusion (unfused, bindings, &v2));
  }
  launch = plan_work_to_launch_string (fused);
  g_print ("info fusion: fused, %u kernel(s): %s\n",
      plan_work_get_n_kernels (fused), launch);
  g_free (launch);
  launch = plan_work_to_launch_string (unfused);
  g_print ("info fusion: unfused, %u kernel(s): %s\n",
      plan_work_get_n_kernels (unfused), launch);
  g_free (launch);
  g_print ("info fusion: sums %.9g (fused) %.9g (unfused)\n", v1, v2);
  g_print ("result plan-fused %.6f\n", best_fused);
  g_print ("result plan-unfused %.6f\n", best_unfused);

  g_object_unref (bindings);
  g_object_unref (fused);
  g_object_unref (unfused);
  g_object_unref (graph);
}

/* ---------------------------------------------------------------------
 * reduce: one reduction of a file, realized once, dispatched REPEAT times
 * --------------------------------------------------------------------- */

static void
bench_reduce (const gchar * location, const gchar * op_name,
    const gchar * axis_name, guint repeat)
{
  GError *err = NULL;
  GEnumClass *ops = g_type_class_ref (PLAN_TYPE_REDUCE_OP);
  GEnumValue *op = g_enum_get_value_by_nick (ops, op_name);
  gboolean columns = g_strcmp0 (axis_name, "0") == 0;
  PlanGraph *graph = plan_graph_new ();
  PlanBindings *bindings = plan_bindings_new ();
  PlanNode *a, *r;
  PlanWork *work;
  gdouble *t;
  guint i;

  if (op == NULL || (!columns && g_strcmp0 (axis_name, "all") != 0))
    die ("reduce: OP is a reduction's name, AXIS all or 0", NULL);
  a = plan_graph_add_source (graph, "a", columns ? 2 : 1,
      PLAN_DTYPE_UNKNOWN, &err);
  r = a ? plan_graph_add_reduce (graph, "r", op->value,
      columns ? PLAN_REDUCE_AXIS_ROWS : PLAN_REDUCE_AXIS_ALL, a, &err) : NULL;
  if (r == NULL || !plan_graph_add_sink (graph, "s", r, &err))
    die ("building the reduction", err);
  work = realize (graph, PLAN_REALIZE_NONE);
  plan_bindings_set_file (bindings, "a", location);
  t = g_new (gdouble, MAX (repeat, 1));
  for (i = 0; i < repeat; i++) {
    gdouble cpu = cpu_seconds ();

    t[i] = run_once (work, bindings, NULL);
    cpu = cpu_seconds () - cpu;
    g_print ("run %u %.6f s, %.6f CPU-s (%.2f cores), %ld minor faults\n",
        i, t[i], cpu, cpu / t[i], last_faults);
  }
  if (repeat > 0) {
    qsort (t, repeat, sizeof (gdouble), compare_doubles);
    g_print ("result reduce-%s-%s min %.6f median %.6f\n", op_name,
        axis_name, t[0], t[repeat / 2]);
  }
  g_free (t);
  g_object_unref (work);
  g_object_unref (bindings);
  g_object_unref (graph);
  g_type_class_unref (ops);
}

int
main (int argc, char **argv)
{
  const gchar *what = argc > 1 ? argv[1] : "";

  gst_init (&argc, &argv);
  plan_init ();
  if (argc == 4 && strcmp (what, "add") == 0)
    bench_add (atoll (argv[2]), atoi (argv[3]));
  else if (argc == 4 && strcmp (what, "add64") == 0)
    bench_add64 (atoll (argv[2]), atoi (argv[3]));
  else if (argc == 4 && strcmp (what, "latency") == 0)
    bench_latency (atoll (argv[2]), atoi (argv[3]));
  else if (argc == 4 && strcmp (what, "example") == 0)
    bench_example (atoll (argv[2]), atoi (argv[3]));
  else if (argc == 4 && strcmp (what, "fusion") == 0)
    bench_fusion (argv[2], atoi (argv[3]));
  else if (argc == 6 && strcmp (what, "reduce") == 0)
    bench_reduce (argv[2], argv[3], argv[4], atoi (argv[5]));
  else {
    g_printerr ("usage: %s add MIB REPEAT | add64 N REPEAT | "
        "latency N CYCLES | "
        "example MIB REPEAT | fusion FILE.npy REPEAT | "
        "reduce FILE.npy OP all|0 REPEAT\n", argv[0]);
    return 2;
  }
  return 0;
}
