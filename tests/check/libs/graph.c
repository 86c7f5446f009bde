/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The plan API: graph checks, realize, dispatch, futures. */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>

#include <math.h>
#include <string.h>

#define N 1000

static PlanArray *
ramp (PlanDType dtype, gint64 n, gdouble scale)
{
  PlanArray *array = plan_array_new (dtype, 1, &n, NULL);
  gfloat *f = plan_array_get_writable_data (array, NULL);
  gint64 i;

  fail_unless (dtype == PLAN_DTYPE_FLOAT32);
  for (i = 0; i < n; i++)
    f[i] = (gfloat) (i * scale);
  return array;
}

/* Drops the test's reference to its work last, once the runner thread has
 * let go of the work (a dispatch's runner holds a reference until just
 * after the last future completes): the test's reference must then be
 * the only one, every other accounted for, and the work is finalized
 * here, on the test's thread. */
static void
drop_work (PlanWork * work)
{
  gint64 end = g_get_monotonic_time () + 30 * G_TIME_SPAN_SECOND;

  while (g_atomic_int_get (&G_OBJECT (work)->ref_count) > 1
      && g_get_monotonic_time () < end)
    g_usleep (1000);
  fail_unless_equals_int (g_atomic_int_get (&G_OBJECT (work)->ref_count), 1);
  g_object_unref (work);
}

static void
assert_error_contains (GError * error, const gchar * text)
{
  fail_unless (error != NULL, "expected an error containing '%s'", text);
  fail_unless (strstr (error->message, text) != NULL,
      "expected '%s' in '%s'", text, error->message);
}

/* The design's example plan: c = a + b, d = sum of a, e = stencil of b,
 * with sinks f, g, h. */
static PlanGraph *
example_graph (void)
{
  PlanGraph *g = plan_graph_new ();
  PlanNode *a = plan_graph_add_source (g, "a", 1, PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *b = plan_graph_add_source (g, "b", 1, PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *ab[] = { a, b };
  PlanNode *c = plan_graph_add_map (g, "c", "x + y", 2, ab,
      PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *d = plan_graph_add_reduce_custom (g, "d", "x + y", "0",
      PLAN_REDUCE_AXIS_ALL, a, NULL);
  PlanNode *e = plan_graph_add_stencil (g, "e", "x y _", "x + y",
      PLAN_BOUNDARY_CONSTANT, 0.0, b, NULL);

  fail_unless (c && d && e);
  fail_unless (plan_graph_add_sink (g, "f", c, NULL) != NULL);
  fail_unless (plan_graph_add_sink (g, "g", d, NULL) != NULL);
  fail_unless (plan_graph_add_sink (g, "h", e, NULL) != NULL);
  return g;
}

static PlanBindings *
example_bindings (PlanArray * a, PlanArray * b)
{
  PlanBindings *bindings = plan_bindings_new ();

  plan_bindings_set_array (bindings, "a", a);
  plan_bindings_set_array (bindings, "b", b);
  return bindings;
}

static void
check_example_results (PlanFuture * future, PlanArray * a, PlanArray * b)
{
  const gfloat *fa = plan_array_get_data (a, NULL);
  const gfloat *fb = plan_array_get_data (b, NULL);
  PlanArray *f = plan_future_get_result (future, "f");
  PlanArray *g = plan_future_get_result (future, "g");
  PlanArray *h = plan_future_get_result (future, "h");
  const gfloat *ff, *fh;
  gdouble sum = 0;
  guint ndim;
  gint64 i;

  fail_unless (f && g && h);
  fail_unless_equals_int64 (plan_array_get_n_rows (f), N);
  plan_array_get_shape (g, &ndim);
  fail_unless_equals_int (ndim, 0);
  ff = plan_array_get_data (f, NULL);
  fh = plan_array_get_data (h, NULL);
  for (i = 0; i < N; i++) {
    fail_unless_equals_float (ff[i], fa[i] + fb[i]);
    fail_unless_equals_float (fh[i], (i > 0 ? fb[i - 1] : 0) + fb[i]);
    sum += fa[i];
  }
  fail_unless_equals_float (*(const gfloat *) plan_array_get_data (g, NULL),
      (gfloat) sum);
}

/* A custom node: a registered kernel through plancustom, its settings
 * checked at add time, and left alone by fusion. */
static gint
plus_one (PlanCustomChunk * chunk)
{
  const gfloat *in = chunk->inputs[0].data;
  gfloat *out = chunk->output->data;
  gsize i;

  for (i = 0; i < chunk->n_rows; i++)
    out[i] = in[i] + 1;
  return 0;
}

static gint
total (PlanCustomChunk * chunk)
{
  const gfloat *in = chunk->inputs ? chunk->inputs[0].data : NULL;
  gdouble *acc = chunk->output->data;
  gsize i;

  for (i = 0; chunk->phase == PLAN_CUSTOM_PHASE_CHUNK && i < chunk->n_rows;
      i++)
    *acc += in[i];
  return 0;
}

GST_START_TEST (test_graph_custom)
{
  PlanGraph *g = plan_graph_new ();
  PlanNode *a = plan_graph_add_source (g, "a", 1, PLAN_DTYPE_FLOAT32, NULL);
  PlanNode *m, *c, *r;
  PlanArray *in = ramp (PLAN_DTYPE_FLOAT32, N, 0.5), *out;
  PlanBindings *bindings;
  PlanFuture *future;
  PlanWork *work;
  GError *err = NULL;
  const gfloat *f, *fin = plan_array_get_data (in, NULL);
  gchar *launch;
  gint64 i;

  fail_unless (plan_custom_register ("plus-one", plus_one, NULL, NULL, NULL));
  fail_unless (plan_custom_register ("total", total, NULL, NULL, NULL));
  fail_if (plan_graph_add_custom (g, "bad", 1, &a, "colour=red", &err));
  assert_error_contains (err, "custom 'bad': plancustom has no property "
      "'colour'");
  g_clear_error (&err);
  fail_if (plan_graph_add_custom (g, "bad", 1, &a, "halo=-3", &err));
  assert_error_contains (err, "'-3' is not a valid halo");
  g_clear_error (&err);
  fail_if (plan_graph_add_custom (g, "bad", 1, &a, "kernel='unclosed", &err));
  g_clear_error (&err);
  fail_if (plan_graph_add_custom (g, "bad", 1, &a, "mode=reduce out-shape=x",
          &err));
  assert_error_contains (err, "out-shape");
  g_clear_error (&err);

  m = plan_graph_add_map (g, "m", "x * 2", 1, &a, PLAN_DTYPE_UNKNOWN, NULL);
  c = plan_graph_add_custom (g, "c", 1, &m, "kernel=plus-one", &err);
  fail_unless (c != NULL, "%s", err ? err->message : "");
  fail_unless_equals_int (plan_node_get_kind (c), PLAN_NODE_CUSTOM);
  fail_unless_equals_int (plan_node_get_ndim (c), 1);
  r = plan_graph_add_custom (g, "r", 1, &a,
      "kernel=total mode=reduce out-shape='()' out-dtype=float64", &err);
  fail_unless (r != NULL && plan_node_get_ndim (r) == 0);
  fail_unless (plan_graph_add_sink (g, "out", c, NULL) != NULL);
  fail_unless (plan_graph_add_sink (g, "sum", r, NULL) != NULL);

  work = plan_graph_realize (g, PLAN_TARGET_CPU, PLAN_REALIZE_NONE, &err);
  fail_unless (work != NULL, "%s", err ? err->message : "");
  /* the map stays a planmap: nothing fuses into a custom kernel */
  fail_unless_equals_int (plan_work_get_n_kernels (work), 3);
  launch = plan_work_to_launch_string (work);
  fail_unless (strstr (launch, "plancustom name=c") && strstr (launch,
          "kernel=plus-one"), "%s", launch);
  g_free (launch);
  bindings = plan_bindings_new ();
  plan_bindings_set_array (bindings, "a", in);
  future = plan_work_dispatch (work, bindings, &err);
  fail_unless (future != NULL);
  fail_unless (plan_future_wait (future, -1, &err), "%s",
      err ? err->message : "");
  out = plan_future_get_result (future, "out");
  f = plan_array_get_data (out, NULL);
  for (i = 0; i < N; i++)
    fail_unless_equals_float (f[i], fin[i] * 2 + 1);
  out = plan_future_get_result (future, "sum");
  fail_unless_equals_float (*(const gdouble *) plan_array_get_data (out,
          NULL), (N - 1) * N / 2 * 0.5);
  g_object_unref (future);
  g_object_unref (bindings);
  drop_work (work);
  g_object_unref (g);
  g_object_unref (in);
  plan_custom_unregister ("plus-one");
  plan_custom_unregister ("total");
}

GST_END_TEST;

GST_START_TEST (test_graph_map_syntax_error_names_node)
{
  PlanGraph *g = plan_graph_new ();
  PlanNode *a = plan_graph_add_source (g, "a", 1, PLAN_DTYPE_UNKNOWN, NULL);
  GError *error = NULL;

  fail_unless (plan_graph_add_map (g, "c", "x + * 2", 1, &a,
          PLAN_DTYPE_UNKNOWN, &error) == NULL);
  assert_error_contains (error, "map 'c': ");
  assert_error_contains (error, "column 5");
  fail_unless (g_error_matches (error, PLAN_ERROR, PLAN_ERROR_SYNTAX));
  fail_unless (plan_graph_get_node (g, "c") == NULL);
  g_error_free (error);
  g_object_unref (g);
}

GST_END_TEST;

GST_START_TEST (test_graph_map_unknown_name)
{
  PlanGraph *g = plan_graph_new ();
  PlanNode *a = plan_graph_add_source (g, "a", 1, PLAN_DTYPE_UNKNOWN, NULL);
  GError *error = NULL;

  fail_unless (plan_graph_add_map (g, NULL, "x + y", 1, &a,
          PLAN_DTYPE_UNKNOWN, &error) == NULL);
  assert_error_contains (error, "map 'map1': ");
  assert_error_contains (error, "unknown name 'y'");
  g_error_free (error);
  g_object_unref (g);
}

GST_END_TEST;

GST_START_TEST (test_graph_names_checked)
{
  PlanGraph *g = plan_graph_new ();
  PlanGraph *other = plan_graph_new ();
  PlanNode *a = plan_graph_add_source (g, "a", 1, PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *z = plan_graph_add_source (other, "z", 1, PLAN_DTYPE_UNKNOWN,
      NULL);
  PlanNode *s = plan_graph_add_sink (g, "s", a, NULL);
  GError *error = NULL;

  fail_unless (plan_graph_add_source (g, "a", 1, PLAN_DTYPE_UNKNOWN,
          &error) == NULL);
  assert_error_contains (error, "already has a node called 'a'");
  g_clear_error (&error);
  fail_unless (plan_graph_add_source (g, "2x", 1, PLAN_DTYPE_UNKNOWN,
          &error) == NULL);
  assert_error_contains (error, "must be an identifier");
  g_clear_error (&error);
  fail_unless (plan_graph_add_map (g, "m", "x", 1, &z, PLAN_DTYPE_UNKNOWN,
          &error) == NULL);
  assert_error_contains (error, "belongs to another graph");
  g_clear_error (&error);
  fail_unless (plan_graph_add_map (g, "m", "x", 1, &s, PLAN_DTYPE_UNKNOWN,
          &error) == NULL);
  assert_error_contains (error, "is a sink");
  g_clear_error (&error);
  fail_unless_equals_int (plan_graph_get_n_nodes (g), 2);
  g_object_unref (g);
  g_object_unref (other);
}

GST_END_TEST;

GST_START_TEST (test_graph_stencil_and_reduce_checked)
{
  PlanGraph *g = plan_graph_new ();
  PlanNode *a = plan_graph_add_source (g, "a", 1, PLAN_DTYPE_UNKNOWN, NULL);
  GError *error = NULL;

  fail_unless (plan_graph_add_stencil (g, "s", "x y; z", "x", 0, 0, a,
          &error) == NULL);
  assert_error_contains (error, "stencil 's': ");
  g_clear_error (&error);
  fail_unless (plan_graph_add_stencil (g, "s", "x y _", "x + q", 0, 0, a,
          &error) == NULL);
  assert_error_contains (error, "unknown name 'q'");
  g_clear_error (&error);
  fail_unless (plan_graph_add_stencil (g, "s", "_ n _; w c e; _ s _",
          "n + s", 0, 0, a, &error) == NULL);
  assert_error_contains (error, "needs an input of at least 2 axes");
  g_clear_error (&error);
  fail_unless (plan_graph_add_reduce_custom (g, "r", "x + y", NULL,
          PLAN_REDUCE_AXIS_ALL, a, &error) == NULL);
  assert_error_contains (error, "reduce 'r': the combiner \"x + y\" needs "
      "an identity");
  g_clear_error (&error);
  fail_unless (plan_graph_add_reduce_custom (g, "r", "x + z", "0",
          PLAN_REDUCE_AXIS_ALL, a, &error) == NULL);
  assert_error_contains (error, "reduce 'r': ");
  g_clear_error (&error);
  fail_unless (plan_graph_add_reduce (g, "r", PLAN_REDUCE_OP_SUM, 7, a,
          &error) == NULL);
  assert_error_contains (error, "7 is not an axis");
  g_clear_error (&error);
  /* Combiners of integers or bools over an input of a dtype not known
   * yet: refused only at dispatch, where the dtype is a float. The error
   * of a combiner no dtype takes is float64's. */
  fail_unless (plan_graph_add_reduce_custom (g, "or", "x | y", "false",
          PLAN_REDUCE_AXIS_ALL, a, &error) != NULL, "%s",
      error ? error->message : "no error");
  fail_unless (plan_graph_add_reduce_custom (g, "and", "x & y", "true",
          PLAN_REDUCE_AXIS_ALL, a, &error) != NULL, "%s",
      error ? error->message : "no error");
  fail_unless (plan_graph_add_reduce_custom (g, "r", "sin(x) | y", "0",
          PLAN_REDUCE_AXIS_ALL, a, &error) == NULL);
  assert_error_contains (error, "the left operand 'sin(x)' is float64");
  g_clear_error (&error);
  /* typed for int64, where the identity is what fails */
  fail_unless (plan_graph_add_reduce_custom (g, "r", "x << y", "0",
          PLAN_REDUCE_AXIS_ALL, a, &error) == NULL);
  assert_error_contains (error, "is no identity of the combiner");
  g_clear_error (&error);
  g_object_unref (g);
}

GST_END_TEST;

GST_START_TEST (test_realize_structural_errors)
{
  PlanGraph *g = plan_graph_new ();
  PlanNode *a = plan_graph_add_source (g, "a", 1, PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *b = plan_graph_add_source (g, "b", 2, PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *ab[] = { a, b };
  GError *error = NULL;

  fail_unless (plan_graph_realize (g, PLAN_TARGET_CPU, 0, &error) == NULL);
  assert_error_contains (error, "source 'a' is used by no node");
  g_clear_error (&error);

  fail_unless (plan_graph_add_map (g, "m", "x + y", 2, ab,
          PLAN_DTYPE_UNKNOWN, NULL) != NULL);
  fail_unless (plan_graph_realize (g, PLAN_TARGET_CPU, 0, &error) == NULL);
  assert_error_contains (error, "map 'm': its inputs have different numbers "
      "of axes: 'a' has 1 and 'b' has 2; inputs line up row by row");
  assert_error_contains (error, "(N, 1) for (N,)");
  g_clear_error (&error);
  g_object_unref (g);

  g = plan_graph_new ();
  fail_unless (plan_graph_realize (g, PLAN_TARGET_CPU, 0, &error) == NULL);
  assert_error_contains (error, "the graph has no outputs");
  g_clear_error (&error);
  a = plan_graph_add_source (g, "a", 1, PLAN_DTYPE_UNKNOWN, NULL);
  plan_graph_add_map (g, "m", "x * 2", 1, &a, PLAN_DTYPE_UNKNOWN, NULL);
  plan_graph_add_sink (g, "out", a, NULL);
  fail_unless (plan_graph_realize (g, PLAN_TARGET_CPU, 0, &error) == NULL);
  assert_error_contains (error, "map 'm' is used by no output");
  g_clear_error (&error);
  g_object_unref (g);

  /* A target or flags that are none of the enum's values are errors: a
   * target of 77 made GObject warn, and the work ran with the elements'
   * default target. */
  g = plan_graph_new ();
  a = plan_graph_add_source (g, "a", 1, PLAN_DTYPE_UNKNOWN, NULL);
  plan_graph_add_map (g, "m", "x * 2", 1, &a, PLAN_DTYPE_UNKNOWN, NULL);
  fail_unless (plan_graph_realize (g, (PlanTarget) 77, 0, &error) == NULL);
  fail_unless (g_error_matches (error, PLAN_ERROR,
          PLAN_ERROR_INVALID_ARGUMENT));
  assert_error_contains (error, "77 is not a target");
  g_clear_error (&error);
  fail_unless (plan_graph_realize (g, PLAN_TARGET_CPU, 1 << 6, &error) ==
      NULL);
  assert_error_contains (error, "0x40 is not a set of realize flags");
  g_clear_error (&error);
  g_object_unref (g);
}

GST_END_TEST;

GST_START_TEST (test_realize_fuses_chains)
{
  PlanGraph *g = plan_graph_new ();
  PlanNode *a = plan_graph_add_source (g, "a", 1, PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *m1 = plan_graph_add_map (g, "m1", "x * x", 1, &a,
      PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *m2 = plan_graph_add_map (g, "m2", "x + 1", 1, &m1,
      PLAN_DTYPE_UNKNOWN, NULL);
  PlanWork *fused, *unfused;
  gchar *launch;

  plan_graph_add_reduce (g, "s", PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ALL,
      m2, NULL);
  fused = plan_graph_realize (g, PLAN_TARGET_CPU, PLAN_REALIZE_NONE, NULL);
  unfused = plan_graph_realize (g, PLAN_TARGET_CPU, PLAN_REALIZE_NO_FUSE,
      NULL);
  fail_unless (fused && unfused);
  fail_unless_equals_int (plan_work_get_n_kernels (fused), 1);
  fail_unless_equals_int (plan_work_get_n_kernels (unfused), 3);
  launch = plan_work_to_launch_string (fused);
  fail_unless (strstr (launch, "map=\"(x * x) + 1\"") != NULL, "%s", launch);
  g_free (launch);
  g_object_unref (fused);
  g_object_unref (unfused);
  g_object_unref (g);
}

GST_END_TEST;

GST_START_TEST (test_launch_string_parses)
{
  PlanGraph *g = example_graph ();
  PlanWork *work = plan_graph_realize (g, PLAN_TARGET_CPU, 0, NULL);
  gchar *launch = plan_work_to_launch_string (work);
  GError *error = NULL;
  GstElement *parsed = gst_parse_launch (launch, &error);

  fail_unless (parsed != NULL, "%s: %s", launch, error ? error->message : "");
  fail_unless_equals_int (GST_BIN (parsed)->numchildren,
      GST_BIN (plan_work_get_pipeline (work))->numchildren);
  gst_object_unref (parsed);
  g_free (launch);
  drop_work (work);
  g_object_unref (g);
}

GST_END_TEST;


/* Constants from memory: a map with a 2-element constant over (N, 2)
 * inputs, kept out of fusion, its arrays referenced by the node; a
 * reduction with ddof; and their errors. */
GST_START_TEST (test_graph_constants_and_ddof)
{
  PlanGraph *g = plan_graph_new ();
  PlanNode *a = plan_graph_add_source (g, "a", 2, PLAN_DTYPE_FLOAT32, NULL);
  gint64 two[] = { 2 }, shape[] = { 100, 2 };
  PlanArray *c = plan_array_new (PLAN_DTYPE_FLOAT32, 1, two, NULL);
  PlanArray *input = plan_array_new (PLAN_DTYPE_FLOAT32, 2, shape, NULL);
  gfloat *fc = plan_array_get_writable_data (c, NULL);
  gfloat *fa = plan_array_get_writable_data (input, NULL);
  const gchar *names[] = { "c", "c" };
  PlanArray *arrays[] = { c, c };
  PlanNode *m, *r;
  PlanWork *work;
  PlanBindings *bindings;
  PlanFuture *future;
  GError *error = NULL;
  const gfloat *out;
  gdouble mean = 0, ss = 0;
  gint i;

  fc[0] = 10;
  fc[1] = -1;
  for (i = 0; i < 200; i++)
    fa[i] = i * 0.25f;
  m = plan_graph_add_map_with_constants (g, "m", "x * c", 1, &a,
      PLAN_DTYPE_UNKNOWN, 1, names, arrays, &error);
  fail_unless (m != NULL, "%s", error ? error->message : "");
  r = plan_graph_add_reduce_ddof (g, "v", PLAN_REDUCE_OP_VAR,
      PLAN_REDUCE_AXIS_ALL, 1.0, a, &error);
  fail_unless (r != NULL);

  fail_if (plan_graph_add_map_with_constants (g, "m2", "x * c", 1, &a,
          PLAN_DTYPE_UNKNOWN, 2, names, arrays, &error));
  assert_error_contains (error, "constant 'c' is given twice");
  g_clear_error (&error);
  fail_if (plan_graph_add_reduce_ddof (g, "v2", PLAN_REDUCE_OP_STD,
          PLAN_REDUCE_AXIS_ALL, -0.5, a, &error));
  assert_error_contains (error, "ddof -0.5");
  g_clear_error (&error);

  work = plan_graph_realize (g, PLAN_TARGET_CPU, 0, &error);
  fail_unless (work != NULL, "%s", error ? error->message : "");
  bindings = plan_bindings_new ();
  plan_bindings_set_array (bindings, "a", input);
  future = plan_work_dispatch (work, bindings, &error);
  fail_unless (future != NULL);
  fail_unless (plan_future_wait (future, -1, &error), "%s",
      error ? error->message : "");
  out = plan_array_get_data (plan_future_get_result (future, "m"), NULL);
  for (i = 0; i < 200; i++) {
    fail_unless_equals_float (out[i], fa[i] * fc[i % 2]);
    mean += fa[i] / 200.0;
  }
  for (i = 0; i < 200; i++)
    ss += (fa[i] - mean) * (fa[i] - mean);
  fail_unless (fabs (*(const gfloat *) plan_array_get_data
          (plan_future_get_result (future, "v"), NULL) - ss / 199) < 1e-3);
  g_object_unref (future);
  g_object_unref (bindings);
  drop_work (work);
  g_object_unref (g);
  g_object_unref (input);
  g_object_unref (c);
}

GST_END_TEST;

GST_START_TEST (test_dispatch_example_in_memory)
{
  PlanGraph *g = example_graph ();
  PlanWork *work = plan_graph_realize (g, PLAN_TARGET_CPU, 0, NULL);
  PlanArray *a = ramp (PLAN_DTYPE_FLOAT32, N, 0.5);
  PlanArray *b = ramp (PLAN_DTYPE_FLOAT32, N, -2.0);
  PlanBindings *bindings = example_bindings (a, b);
  PlanFuture *future = plan_work_dispatch (work, bindings, NULL);
  GError *error = NULL;
  guint64 done;
  gint64 total;

  fail_unless (future != NULL);
  fail_unless (plan_future_wait (future, -1, &error), "%s",
      error ? error->message : "");
  fail_unless (plan_future_is_done (future));
  check_example_results (future, a, b);
  fail_unless_equals_float (plan_future_get_progress (future, &done, &total),
      1.0);
  fail_unless_equals_uint64 (done, 2 * N);
  fail_unless_equals_int64 (total, 2 * N);
  g_object_unref (future);
  g_object_unref (bindings);
  g_object_unref (a);
  g_object_unref (b);
  drop_work (work);
  g_object_unref (g);
}

GST_END_TEST;

GST_START_TEST (test_dispatch_hundred_times)
{
  PlanGraph *g = example_graph ();
  PlanWork *work = plan_graph_realize (g, PLAN_TARGET_CPU, 0, NULL);
  guint i;

  for (i = 0; i < 100; i++) {
    PlanArray *a = ramp (PLAN_DTYPE_FLOAT32, N, i);
    PlanArray *b = ramp (PLAN_DTYPE_FLOAT32, N, 1.0 / (i + 1));
    PlanBindings *bindings = example_bindings (a, b);
    PlanFuture *future = plan_work_dispatch (work, bindings, NULL);

    fail_unless (future != NULL);
    fail_unless (plan_future_wait (future, -1, NULL));
    check_example_results (future, a, b);
    g_object_unref (future);
    g_object_unref (bindings);
    g_object_unref (a);
    g_object_unref (b);
  }
  drop_work (work);
  g_object_unref (g);
}

GST_END_TEST;

static PlanArray *
no_rows (guint64 first_row, gpointer user_data, GError ** error)
{
  return NULL;
}

GST_START_TEST (test_dispatch_binding_errors)
{
  PlanGraph *g = example_graph ();
  PlanWork *work = plan_graph_realize (g, PLAN_TARGET_CPU, 0, NULL);
  PlanArray *a = ramp (PLAN_DTYPE_FLOAT32, N, 1);
  PlanArray *short_b = ramp (PLAN_DTYPE_FLOAT32, N - 1, 1);
  PlanArray *small_f = ramp (PLAN_DTYPE_FLOAT32, 10, 1);
  gint64 ten = 10;
  PlanArray *small_i = plan_array_new (PLAN_DTYPE_INT32, 1, &ten, NULL);
  PlanArray *small_u = plan_array_new (PLAN_DTYPE_UINT8, 1, &ten, NULL);
  PlanBindings *bindings = plan_bindings_new ();
  GError *error = NULL;

  plan_bindings_set_array (bindings, "a", a);
  fail_unless (plan_work_dispatch (work, bindings, &error) == NULL);
  assert_error_contains (error, "source 'b' is not bound");
  g_clear_error (&error);

  plan_bindings_set_array (bindings, "b", short_b);
  fail_unless (plan_work_dispatch (work, bindings, &error) == NULL);
  assert_error_contains (error, "map 'c': its inputs must have the same "
      "number of rows, but 'a' has shape (1000,) and 'b' has shape (999,)");
  g_clear_error (&error);

  plan_bindings_set_array (bindings, "b", a);
  plan_bindings_set_array (bindings, "f", small_f);
  fail_unless (plan_work_dispatch (work, bindings, &error) == NULL);
  assert_error_contains (error, "output 'f' is float32 of shape (1000,), "
      "but it is bound to a float32 array of shape (10,)");
  g_clear_error (&error);

  /* "an int32", "a uint8": the article is the dtype's */
  plan_bindings_set_array (bindings, "f", small_i);
  fail_unless (plan_work_dispatch (work, bindings, &error) == NULL);
  assert_error_contains (error, "output 'f' is float32 of shape (1000,), "
      "but it is bound to an int32 array of shape (10,)");
  g_clear_error (&error);
  plan_bindings_set_array (bindings, "f", small_u);
  fail_unless (plan_work_dispatch (work, bindings, &error) == NULL);
  assert_error_contains (error, "but it is bound to a uint8 array of shape "
      "(10,)");
  g_clear_error (&error);
  plan_bindings_set_array (bindings, "f", small_f);

  plan_bindings_set_array (bindings, "c", small_f);
  fail_unless (plan_work_dispatch (work, bindings, &error) == NULL);
  assert_error_contains (error, "'c' is bound but is neither an input nor "
      "an output of this work; its inputs are a, b and its outputs f, g, h");
  g_clear_error (&error);
  g_object_unref (bindings);

  /* A reader or raw file of more axes than an array has is refused at
   * dispatch, saying so: it was a CRITICAL and then "not bound". A dtype
   * that is none is named. */
  {
    gint64 shape[PLAN_ARRAY_MAX_DIMS + 1];
    guint i;

    for (i = 0; i < G_N_ELEMENTS (shape); i++)
      shape[i] = 2;
    bindings = example_bindings (a, a);
    plan_bindings_set_reader (bindings, "b", PLAN_DTYPE_FLOAT32,
        G_N_ELEMENTS (shape), shape, no_rows, NULL, NULL);
    fail_unless (plan_work_dispatch (work, bindings, &error) == NULL);
    fail_unless (g_error_matches (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED));
    assert_error_contains (error, "source 'b' is bound to a chunk reader of "
        "9 axes, but arrays have at most 8");
    g_clear_error (&error);
    plan_bindings_set_raw_file (bindings, "b", "b.raw", PLAN_DTYPE_FLOAT32,
        G_N_ELEMENTS (shape), shape);
    plan_bindings_set_raw_file (bindings, "h", "h.raw", PLAN_DTYPE_FLOAT32,
        G_N_ELEMENTS (shape), shape);
    fail_unless (plan_work_dispatch (work, bindings, &error) == NULL);
    assert_error_contains (error, "is bound to a raw file of 9 axes, but "
        "arrays have at most 8");
    g_clear_error (&error);
    plan_bindings_set_reader (bindings, "b", (PlanDType) 99, 1, shape,
        no_rows, NULL, NULL);
    plan_bindings_set_array (bindings, "h", small_f);
    fail_unless (plan_work_dispatch (work, bindings, &error) == NULL);
    assert_error_contains (error, "source 'b': 99 is not a dtype");
    g_clear_error (&error);
    g_object_unref (bindings);
  }

  g_object_unref (a);
  g_object_unref (short_b);
  g_object_unref (small_f);
  g_object_unref (small_i);
  g_object_unref (small_u);
  drop_work (work);
  g_object_unref (g);
}

GST_END_TEST;

/* A sum bound to an array of shape (1,), as numpy's out= of a reduction
 * allows; (2,) stays an error. */
GST_START_TEST (test_dispatch_reduction_into_array_of_its_size)
{
  PlanGraph *g = example_graph ();
  PlanWork *work = plan_graph_realize (g, PLAN_TARGET_CPU, 0, NULL);
  PlanArray *a = ramp (PLAN_DTYPE_FLOAT32, N, 0.5);
  gint64 one = 1, two = 2;
  PlanArray *g1 = plan_array_new (PLAN_DTYPE_FLOAT32, 1, &one, NULL);
  PlanArray *g2 = plan_array_new (PLAN_DTYPE_FLOAT32, 1, &two, NULL);
  PlanBindings *bindings = example_bindings (a, a);
  PlanFuture *future;
  GError *error = NULL;
  gdouble sum = 0;
  guint k;
  gint64 i;

  for (i = 0; i < N; i++)
    sum += i * 0.5;
  plan_bindings_set_array (bindings, "g", g1);
  /* twice: the second run restarts the pipeline where it stands */
  for (k = 0; k < 2; k++) {
    memset (plan_array_get_writable_data (g1, NULL), 0, 4);
    future = plan_work_dispatch (work, bindings, &error);
    fail_unless (future != NULL, "%s", error ? error->message : "");
    fail_unless (plan_future_wait (future, -1, &error), "%s",
        error ? error->message : "");
    fail_unless_equals_float (*(const gfloat *) plan_array_get_data (g1,
            NULL), (gfloat) sum);
    g_object_unref (future);
  }

  plan_bindings_set_array (bindings, "g", g2);
  fail_unless (plan_work_dispatch (work, bindings, &error) == NULL);
  assert_error_contains (error, "output 'g' is float32 of shape (), but it "
      "is bound to a float32 array of shape (2,)");
  g_clear_error (&error);

  /* a float64 array takes the float32 sum, cast (numpy's safe casting);
   * an int16 one does not */
  {
    PlanArray *g64 = plan_array_new (PLAN_DTYPE_FLOAT64, 1, &one, NULL);
    PlanArray *g16 = plan_array_new (PLAN_DTYPE_INT16, 1, &one, NULL);

    plan_bindings_set_array (bindings, "g", g64);
    future = plan_work_dispatch (work, bindings, &error);
    fail_unless (future != NULL, "%s", error ? error->message : "");
    fail_unless (plan_future_wait (future, -1, NULL));
    fail_unless (plan_future_get_result (future, "g") == g64);
    fail_unless_equals_float (*(const gdouble *) plan_array_get_data (g64,
            NULL), (gfloat) sum);
    g_object_unref (future);
    plan_bindings_set_array (bindings, "g", g16);
    fail_unless (plan_work_dispatch (work, bindings, &error) == NULL);
    assert_error_contains (error, "output 'g' is float32 of shape ()");
    g_clear_error (&error);
    g_object_unref (g64);
    g_object_unref (g16);
  }

  g_object_unref (bindings);
  g_object_unref (a);
  g_object_unref (g1);
  g_object_unref (g2);
  drop_work (work);
  g_object_unref (g);
}

GST_END_TEST;

/* Outputs are written while inputs are read: an output array that shares
 * memory with an input, or with another output, is refused. */
GST_START_TEST (test_dispatch_overlapping_output_refused)
{
  PlanGraph *g = example_graph ();
  PlanWork *work = plan_graph_realize (g, PLAN_TARGET_CPU, 0, NULL);
  PlanArray *a = ramp (PLAN_DTYPE_FLOAT32, N, 0.5);
  PlanArray *b = ramp (PLAN_DTYPE_FLOAT32, N, 2);
  PlanArray *f = ramp (PLAN_DTYPE_FLOAT32, N, 0);
  PlanArray *in_a = plan_array_new_rows (a, 3, 1, NULL);
  PlanBindings *bindings = example_bindings (a, b);
  GError *error = NULL;

  plan_bindings_set_array (bindings, "f", a);
  fail_unless (plan_work_dispatch (work, bindings, &error) == NULL);
  assert_error_contains (error, "output 'f' shares memory with the input "
      "'a'");
  g_clear_error (&error);

  plan_bindings_set_array (bindings, "f", f);
  plan_bindings_set_array (bindings, "g", in_a);
  fail_unless (plan_work_dispatch (work, bindings, &error) == NULL);
  assert_error_contains (error, "output 'g' shares memory with the input "
      "'a'");
  g_clear_error (&error);

  g_object_unref (bindings);
  bindings = example_bindings (a, b);
  plan_bindings_set_array (bindings, "f", f);
  plan_bindings_set_array (bindings, "h", f);
  fail_unless (plan_work_dispatch (work, bindings, &error) == NULL);
  assert_error_contains (error, "outputs 'f' and 'h' share memory");
  g_clear_error (&error);

  g_object_unref (bindings);
  g_object_unref (a);
  g_object_unref (b);
  g_object_unref (f);
  g_object_unref (in_a);
  drop_work (work);
  g_object_unref (g);
}

GST_END_TEST;

/* A reader that produces rows until told to stop. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean release;
  guint calls;
} Gate;

static PlanArray *
gated_read (guint64 first_row, gpointer user_data, GError ** error)
{
  Gate *gate = user_data;
  gint64 n = 100;
  PlanArray *rows;

  g_mutex_lock (&gate->lock);
  gate->calls++;
  g_cond_broadcast (&gate->cond);
  while (!gate->release && gate->calls > 3)
    g_cond_wait (&gate->cond, &gate->lock);
  g_mutex_unlock (&gate->lock);
  if (first_row >= 1000)
    return NULL;
  rows = plan_array_new (PLAN_DTYPE_FLOAT32, 1, &n, error);
  return rows;
}

static void
gate_open (Gate * gate)
{
  g_mutex_lock (&gate->lock);
  gate->release = TRUE;
  g_cond_broadcast (&gate->cond);
  g_mutex_unlock (&gate->lock);
}

static PlanWork *
one_map_work (void)
{
  PlanGraph *g = plan_graph_new ();
  PlanNode *a = plan_graph_add_source (g, "a", 1, PLAN_DTYPE_UNKNOWN, NULL);
  PlanWork *work;

  plan_graph_add_map (g, "m", "x + 1", 1, &a, PLAN_DTYPE_UNKNOWN, NULL);
  work = plan_graph_realize (g, PLAN_TARGET_CPU, 0, NULL);
  g_object_unref (g);
  return work;
}

static gboolean
failing_write (PlanArray * chunk, guint64 first_row, gpointer user_data,
    GError ** error)
{
  return FALSE;
}

/* A writer that fails without an error: the message names the output, as
 * the user bound it; it named the sink element ("The writer of m-out"). */
GST_START_TEST (test_writer_failure_names_output)
{
  PlanWork *work = one_map_work ();
  PlanArray *a = ramp (PLAN_DTYPE_FLOAT32, N, 1);
  PlanBindings *bindings = plan_bindings_new ();
  PlanFuture *future;
  GError *error = NULL;

  fail_unless (work != NULL);
  plan_bindings_set_array (bindings, "a", a);
  plan_bindings_set_writer (bindings, "m", failing_write, NULL, NULL);
  future = plan_work_dispatch (work, bindings, &error);
  fail_unless (future != NULL, "%s", error ? error->message : "");
  fail_if (plan_future_wait (future, -1, &error));
  assert_error_contains (error, "The writer of output 'm' failed at row 0");
  fail_if (strstr (error->message, "writer of m-out") != NULL, "%s",
      error->message);
  g_clear_error (&error);
  g_object_unref (future);
  g_object_unref (bindings);
  g_object_unref (a);
  drop_work (work);
}

GST_END_TEST;

static PlanBindings *
gated_bindings (Gate * gate)
{
  PlanBindings *bindings = plan_bindings_new ();
  gint64 rows = -1;

  plan_bindings_set_reader (bindings, "a", PLAN_DTYPE_FLOAT32, 1, &rows,
      gated_read, gate, NULL);
  return bindings;
}

static PlanBindings *
ramp_bindings (gdouble scale, PlanArray ** a)
{
  PlanBindings *bindings = plan_bindings_new ();

  *a = ramp (PLAN_DTYPE_FLOAT32, N, scale);
  plan_bindings_set_array (bindings, "a", *a);
  return bindings;
}

static void
check_ramp_plus_one (PlanFuture * future, gdouble scale)
{
  PlanArray *m = plan_future_get_result (future, "m");
  const gfloat *f;
  gint64 i;

  fail_unless (m != NULL);
  f = plan_array_get_data (m, NULL);
  for (i = 0; i < N; i++)
    fail_unless_equals_float (f[i], (gfloat) (i * scale) + 1);
}

/* Dispatches while one runs wait their turn, checked at once, bounded,
 * cancellable while they wait, and complete in order. */
GST_START_TEST (test_dispatch_while_running_queues)
{
  Gate gate = { };
  PlanWork *work = one_map_work ();
  PlanBindings *gated = gated_bindings (&gate), *b2, *b3, *b4, *bad;
  PlanArray *a2, *a3, *a4, *wrong;
  PlanFuture *f1, *f2, *f3, *f4;
  GError *error = NULL;
  gint64 shape[] = { 4, 2 };

  fail_unless_equals_int (plan_work_get_max_queued (work), 64);
  plan_work_set_max_queued (work, 2);
  f1 = plan_work_dispatch (work, gated, NULL);
  fail_unless (f1 != NULL);
  b2 = ramp_bindings (2, &a2);
  b3 = ramp_bindings (3, &a3);
  b4 = ramp_bindings (4, &a4);
  f2 = plan_work_dispatch (work, b2, &error);
  fail_unless (f2 != NULL, "%s", error ? error->message : "");
  f3 = plan_work_dispatch (work, b3, NULL);
  fail_unless (f3 != NULL);

  /* the bound */
  fail_unless (plan_work_dispatch (work, b4, &error) == NULL);
  fail_unless (g_error_matches (error, PLAN_ERROR, PLAN_ERROR_BUSY));
  assert_error_contains (error, "2 dispatches waiting");
  g_clear_error (&error);

  /* bindings are checked when dispatched, not when their turn comes */
  bad = plan_bindings_new ();
  wrong = plan_array_new (PLAN_DTYPE_FLOAT32, 2, shape, NULL);
  plan_bindings_set_array (bad, "a", wrong);
  plan_work_set_max_queued (work, 3);
  fail_unless (plan_work_dispatch (work, bad, &error) == NULL);
  assert_error_contains (error, "source 'a': it takes arrays of 1 axis but is bound to one of shape");
  g_clear_error (&error);
  plan_work_set_max_queued (work, 2);

  /* a waiting dispatch cancelled never starts, and frees its place */
  plan_future_cancel (f3);
  fail_unless (plan_future_is_done (f3));
  fail_unless (!plan_future_wait (f3, 0, &error));
  fail_unless (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  /* it says which dispatch, and that it never started */
  assert_error_contains (error, "dispatch 3 of the work with input a and "
      "output m was cancelled by plan_future_cancel() before it started");
  g_clear_error (&error);
  fail_unless (!plan_future_is_done (f1));
  f4 = plan_work_dispatch (work, b4, &error);
  fail_unless (f4 != NULL, "%s", error ? error->message : "");

  gate_open (&gate);
  fail_unless (plan_future_wait (f4, -1, &error), "%s",
      error ? error->message : "");
  /* in order: the ones before are done */
  fail_unless (plan_future_is_done (f1) && plan_future_is_done (f2));
  fail_unless (plan_future_wait (f1, 0, NULL));
  fail_unless_equals_int64 (plan_array_get_n_rows (plan_future_get_result
          (f1, "m")), 1000);
  fail_unless (plan_future_wait (f2, 0, NULL));
  check_ramp_plus_one (f2, 2);
  check_ramp_plus_one (f4, 4);

  /* no queue: a dispatch while one runs is refused */
  gate.release = FALSE;
  gate.calls = 0;
  plan_work_set_max_queued (work, 0);
  g_object_unref (f1);
  f1 = plan_work_dispatch (work, gated, NULL);
  fail_unless (f1 != NULL);
  fail_unless (plan_work_dispatch (work, b2, &error) == NULL);
  fail_unless (g_error_matches (error, PLAN_ERROR, PLAN_ERROR_BUSY));
  g_clear_error (&error);
  gate_open (&gate);
  fail_unless (plan_future_wait (f1, -1, NULL));

  g_object_unref (f1);
  g_object_unref (f2);
  g_object_unref (f3);
  g_object_unref (f4);
  g_object_unref (gated);
  g_object_unref (b2);
  g_object_unref (b3);
  g_object_unref (b4);
  g_object_unref (bad);
  g_object_unref (a2);
  g_object_unref (a3);
  g_object_unref (a4);
  g_object_unref (wrong);
  drop_work (work);
}

GST_END_TEST;

/* A dispatch that waits its turn runs on its bindings as they were when
 * it was dispatched: one PlanBindings, rebound and dispatched again while
 * the first run is held, gives each dispatch its own arrays. */
GST_START_TEST (test_queued_dispatch_keeps_its_bindings)
{
  Gate gate = { };
  PlanWork *work = one_map_work ();
  PlanBindings *gated = gated_bindings (&gate);
  PlanBindings *bindings = plan_bindings_new ();
  PlanArray *a[3], *m[3];
  PlanFuture *f0, *f[3];
  GError *error = NULL;
  gint64 n = N;
  guint k;

  f0 = plan_work_dispatch (work, gated, NULL);
  fail_unless (f0 != NULL);
  for (k = 0; k < 3; k++) {
    a[k] = ramp (PLAN_DTYPE_FLOAT32, N, k + 2);
    m[k] = plan_array_new (PLAN_DTYPE_FLOAT32, 1, &n, NULL);
    plan_bindings_set_array (bindings, "a", a[k]);
    plan_bindings_set_array (bindings, "m", m[k]);
    f[k] = plan_work_dispatch (work, bindings, &error);
    fail_unless (f[k] != NULL, "%s", error ? error->message : "");
  }
  /* the caller's object may go too */
  g_object_unref (bindings);
  gate_open (&gate);
  for (k = 3; k-- > 0;) {
    fail_unless (plan_future_wait (f[k], -1, &error), "%s",
        error ? error->message : "");
    fail_unless (plan_future_get_result (f[k], "m") == m[k]);
    check_ramp_plus_one (f[k], k + 2);
  }
  fail_unless (plan_future_wait (f0, -1, NULL));

  g_object_unref (f0);
  for (k = 0; k < 3; k++) {
    g_object_unref (f[k]);
    g_object_unref (a[k]);
    g_object_unref (m[k]);
  }
  g_object_unref (gated);
  drop_work (work);
}

GST_END_TEST;

/* A reader of ten rows, for dispatches that run on the pipeline: it says
 * when it has given its end (the run then ends at once), and, at its first
 * call, whether the future it is told to look at was done by then. */
typedef struct
{
  gint ended;                   /* atomic */
  gint chunks;                  /* 0: one chunk of 10 rows; else 1-ms chunks */
  PlanFuture *before;           /* the dispatch before, or NULL */
  gint started_early;           /* atomic: it was not done at the start */
} EndReader;

static PlanArray *
end_read (guint64 first_row, gpointer user_data, GError ** error)
{
  EndReader *r = user_data;
  gint64 n = 10;

  if (first_row == 0 && r->before != NULL
      && !plan_future_is_done (r->before))
    g_atomic_int_set (&r->started_early, 1);
  if (first_row >= (guint64) MAX (r->chunks, 1) * n) {
    g_atomic_int_set (&r->ended, 1);
    return NULL;
  }
  if (r->chunks > 0)
    g_usleep (1000);
  return plan_array_new (PLAN_DTYPE_FLOAT32, 1, &n, error);
}

static PlanBindings *
end_bindings (EndReader * reader)
{
  PlanBindings *bindings = plan_bindings_new ();
  gint64 rows = -1;

  plan_bindings_set_reader (bindings, "a", PLAN_DTYPE_FLOAT32, 1, &rows,
      end_read, reader, NULL);
  return bindings;
}

/* Spins until @reader has given its end, then for a while that grows with
 * @k: dispatches made at many points of the end of a run. */
static void
spin_past_end (EndReader * reader, guint k)
{
  gint64 until;

  while (!g_atomic_int_get (&reader->ended));
  until = g_get_monotonic_time () + (k * 37) % 1500;
  while (g_get_monotonic_time () < until);
}

/* A dispatch made as a run ends, before its future is done, neither
 * starts nor completes before that future: whether it is computed on the
 * caller's thread (a small map in memory) or runs on the pipeline. Without
 * a queue (max-queued 0) it is refused while the run goes, and is taken at
 * the first try that is not refused. */
GST_START_TEST (test_dispatch_as_run_ends_keeps_order)
{
  PlanWork *work = one_map_work ();
  EndReader first = { 0 }, second = { 0 };
  PlanBindings *pipelined = end_bindings (&first);
  PlanBindings *next_pipelined = end_bindings (&second);
  PlanArray *a;
  PlanBindings *small = ramp_bindings (2, &a);
  GError *error = NULL;
  guint k, early = 0, refused = 0;
  PlanFuture *f1, *f2;

  plan_work_set_max_queued (work, 0);
  for (k = 0; k < 200; k++) {
    g_atomic_int_set (&first.ended, 0);
    f1 = plan_work_dispatch (work, pipelined, &error);
    fail_unless (f1 != NULL, "%s", error ? error->message : "");
    second.before = f1;
    g_atomic_int_set (&second.started_early, 0);
    spin_past_end (&first, k);
    while ((f2 = plan_work_dispatch (work, k % 2 ? small : next_pipelined,
                &error)) == NULL) {
      fail_unless (g_error_matches (error, PLAN_ERROR, PLAN_ERROR_BUSY),
          "%s", error->message);
      g_clear_error (&error);
      refused++;
    }
    /* done at once, computed here: the one before must be done too */
    if (plan_future_is_done (f2) && !plan_future_is_done (f1))
      early++;
    fail_unless (plan_future_wait (f2, -1, &error), "%s",
        error ? error->message : "");
    if (g_atomic_int_get (&second.started_early))
      early++;
    fail_unless (plan_future_wait (f1, 0, NULL));
    if (k % 2)
      check_ramp_plus_one (f2, 2);
    second.before = NULL;
    g_object_unref (f1);
    g_object_unref (f2);
  }
  GST_INFO ("%u dispatches refused while a run went", refused);
  fail_unless_equals_int (early, 0);

  g_object_unref (pipelined);
  g_object_unref (next_pipelined);
  g_object_unref (small);
  g_object_unref (a);
  drop_work (work);
}

GST_END_TEST;

typedef struct
{
  GArray *order;                /* guint: the dispatches, as they completed */
  guint n_left;
  GError *error;                /* the first failure */
} AsyncOrder;

typedef struct
{
  AsyncOrder *all;
  guint index;
} AsyncOne;

static void
dispatched_in_order (GObject * source, GAsyncResult * result,
    gpointer user_data)
{
  AsyncOne *one = user_data;
  GError *error = NULL;
  PlanFuture *future = plan_work_dispatch_finish (PLAN_WORK (source), result,
      &error);

  g_array_append_val (one->all->order, one->index);
  if (future == NULL && one->all->error == NULL)
    one->all->error = error;
  else
    g_clear_error (&error);
  g_clear_object (&future);
  one->all->n_left--;
  g_free (one);
}

static void
dispatch_async_numbered (PlanWork * work, PlanBindings * bindings,
    AsyncOrder * all, guint index)
{
  AsyncOne *one = g_new (AsyncOne, 1);

  one->all = all;
  one->index = index;
  all->n_left++;
  plan_work_dispatch_async (work, bindings, NULL, dispatched_in_order, one);
}

/* The callbacks of plan_work_dispatch_async() come in the order of the
 * dispatches, also for a small dispatch (computed on the caller's thread)
 * made as the run before it ends. */
GST_START_TEST (test_dispatch_async_callbacks_in_order)
{
  PlanWork *work = one_map_work ();
  EndReader reader = { 0 };
  PlanBindings *pipelined = end_bindings (&reader);
  PlanArray *a;
  PlanBindings *small = ramp_bindings (2, &a);
  AsyncOrder all = { g_array_new (FALSE, FALSE, sizeof (guint)), 0, NULL };
  guint k, i;

  for (k = 0; k < 200; k++) {
    g_atomic_int_set (&reader.ended, 0);
    dispatch_async_numbered (work, pipelined, &all, 2 * k);
    spin_past_end (&reader, k);
    dispatch_async_numbered (work, small, &all, 2 * k + 1);
    while (g_main_context_iteration (NULL, FALSE));
  }
  while (all.n_left > 0)
    g_main_context_iteration (NULL, TRUE);
  fail_unless (all.error == NULL, "%s", all.error ? all.error->message : "");
  fail_unless_equals_int (all.order->len, 400);
  for (i = 0; i < all.order->len; i++)
    fail_unless_equals_int (g_array_index (all.order, guint, i), i);

  g_array_unref (all.order);
  g_object_unref (pipelined);
  g_object_unref (small);
  g_object_unref (a);
  drop_work (work);
}

GST_END_TEST;

/* A small dispatch of a plan of maps in memory is computed by
 * plan_work_dispatch() itself: the future is done when it returns. */
GST_START_TEST (test_small_map_dispatch_is_done_at_once)
{
  PlanWork *work = one_map_work ();
  PlanArray *a;
  PlanBindings *bindings = ramp_bindings (3, &a);
  gint64 n = N;
  PlanArray *m = plan_array_new (PLAN_DTYPE_FLOAT32, 1, &n, NULL);
  PlanFuture *future;
  GstState state;
  guint k;

  /* unbound, then into an array, twice each */
  for (k = 0; k < 4; k++) {
    if (k == 2)
      plan_bindings_set_array (bindings, "m", m);
    future = plan_work_dispatch (work, bindings, NULL);
    fail_unless (future != NULL);
    fail_unless (plan_future_is_done (future));
    fail_unless (plan_future_wait (future, 0, NULL));
    check_ramp_plus_one (future, 3);
    if (k >= 2)
      fail_unless (plan_future_get_result (future, "m") == m);
    fail_unless_equals_float (plan_future_get_progress (future, NULL, NULL),
        1.0);
    g_object_unref (future);
  }
  /* the pipeline was not started */
  gst_element_get_state (GST_ELEMENT (plan_work_get_pipeline (work)), &state,
      NULL, 0);
  fail_unless (state == GST_STATE_NULL, "%s",
      gst_element_state_get_name (state));

  g_object_unref (bindings);
  g_object_unref (a);
  g_object_unref (m);
  drop_work (work);
}

GST_END_TEST;

/* A map big enough to be split across the worker threads in the direct
 * path (from 64 Ki element-operations), dispatched in a loop so that each
 * dispatch finds the workers still polling after the last one; then, after
 * a pause longer than they poll, asleep again. Every dispatch gives the
 * serial result. */
GST_START_TEST (test_direct_map_split_across_threads)
{
  const gint64 n = 300007;
  PlanGraph *g = plan_graph_new ();
  PlanNode *ab[2];
  PlanWork *work;
  PlanArray *a = plan_array_new (PLAN_DTYPE_FLOAT64, 1, &n, NULL);
  PlanArray *b = plan_array_new (PLAN_DTYPE_FLOAT64, 1, &n, NULL);
  PlanArray *f = plan_array_new (PLAN_DTYPE_FLOAT64, 1, &n, NULL);
  PlanBindings *bindings = plan_bindings_new ();
  gdouble *x = plan_array_get_writable_data (a, NULL);
  gdouble *y = plan_array_get_writable_data (b, NULL);
  const gdouble *z = plan_array_get_data (f, NULL);
  GError *error = NULL;
  gint64 i;
  guint k;

  ab[0] = plan_graph_add_source (g, "a", 1, PLAN_DTYPE_UNKNOWN, NULL);
  ab[1] = plan_graph_add_source (g, "b", 1, PLAN_DTYPE_UNKNOWN, NULL);
  fail_unless (plan_graph_add_sink (g, "f", plan_graph_add_map (g, "m",
              "x * 3 - y", 2, ab, PLAN_DTYPE_UNKNOWN, NULL), &error), "%s",
      error ? error->message : "");
  work = plan_graph_realize (g, PLAN_TARGET_CPU, 0, &error);
  fail_unless (work != NULL, "%s", error ? error->message : "");
  plan_bindings_set_array (bindings, "a", a);
  plan_bindings_set_array (bindings, "b", b);
  plan_bindings_set_array (bindings, "f", f);
  for (k = 0; k < 12; k++) {
    PlanFuture *future;

    for (i = 0; i < n; i++) {
      x[i] = (gdouble) ((i * 7 + k) % 1001) * 0.5;
      y[i] = (gdouble) (i % 13) - k;
    }
    if (k == 10)
      g_usleep (20000);
    future = plan_work_dispatch (work, bindings, &error);
    fail_unless (future != NULL, "%s", error ? error->message : "");
    fail_unless (plan_future_is_done (future));
    fail_unless (plan_future_wait (future, 0, &error), "%s",
        error ? error->message : "");
    for (i = 0; i < n && z[i] == x[i] * 3 - y[i]; i++);
    fail_unless (i == n, "dispatch %u, element %" G_GINT64_FORMAT ": %.17g",
        k, i, i < n ? z[i] : 0.0);
    g_object_unref (future);
  }
  g_object_unref (bindings);
  drop_work (work);
  g_object_unref (a);
  g_object_unref (b);
  g_object_unref (f);
  g_object_unref (g);
}

GST_END_TEST;

GST_START_TEST (test_wait_timeout_then_cancel)
{
  Gate gate = { };
  PlanWork *work = one_map_work ();
  PlanBindings *bindings = gated_bindings (&gate);
  PlanFuture *future = plan_work_dispatch (work, bindings, NULL);
  GError *error = NULL;
  guint64 done;
  gint64 total;

  /* A wait that times out is FALSE without an error: the run has not
   * failed, it is still going. */
  fail_unless (!plan_future_wait (future, 20000, &error));
  fail_unless (error == NULL, "%s", error ? error->message : "");
  fail_unless (!plan_future_wait (future, 0, &error));
  fail_unless (error == NULL);
  fail_unless (!plan_future_is_done (future));
  fail_unless_equals_float (plan_future_get_progress (future, &done, &total),
      -1.0);
  fail_unless_equals_int64 (total, -1);

  plan_future_cancel (future);
  gate_open (&gate);
  fail_unless (!plan_future_wait (future, -1, &error));
  fail_unless (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED),
      "%s", error->message);
  /* which dispatch, and how far it got: GIO's "Operation was cancelled"
   * said neither */
  assert_error_contains (error, "dispatch 1 of the work with input a and "
      "output m was cancelled by plan_future_cancel() after its sources had "
      "produced ");
  assert_error_contains (error, " rows (of a length not known)");
  fail_unless (plan_future_get_result (future, "m") == NULL);
  g_clear_error (&error);
  g_object_unref (future);
  g_object_unref (bindings);
  drop_work (work);
}

GST_END_TEST;

static gpointer
open_gate_later (gpointer data)
{
  g_usleep (50000);
  gate_open (data);
  return NULL;
}

/* The longest timeout waits for the end: G_MAXINT64 microseconds after
 * now wrapped round to the past, and the wait said at once that the run
 * was still going. */
GST_START_TEST (test_wait_longest_timeout_waits_for_the_end)
{
  Gate gate = { };
  PlanWork *work = one_map_work ();
  PlanBindings *bindings = gated_bindings (&gate);
  PlanFuture *future = plan_work_dispatch (work, bindings, NULL);
  GThread *opener = g_thread_new ("opener", open_gate_later, &gate);
  GError *error = NULL;

  fail_unless (plan_future_wait (future, G_MAXINT64, &error), "%s",
      error ? error->message : "timed out");
  fail_unless (plan_future_is_done (future));
  g_thread_join (opener);
  fail_unless (plan_future_wait (future, G_MAXINT64 - 1, NULL));
  g_object_unref (future);
  g_object_unref (bindings);
  drop_work (work);
}

GST_END_TEST;

typedef struct
{
  GMainLoop *loop;
  PlanFuture *future;
  GError *error;
  GThread *thread;
} AsyncResult;

static void
dispatched (GObject * source, GAsyncResult * result, gpointer user_data)
{
  AsyncResult *r = user_data;

  r->thread = g_thread_self ();
  r->future = plan_work_dispatch_finish (PLAN_WORK (source), result,
      &r->error);
  g_main_loop_quit (r->loop);
}

GST_START_TEST (test_dispatch_async_completes_on_main_context)
{
  PlanGraph *g = example_graph ();
  PlanWork *work = plan_graph_realize (g, PLAN_TARGET_CPU, 0, NULL);
  PlanArray *a = ramp (PLAN_DTYPE_FLOAT32, N, 3);
  PlanArray *b = ramp (PLAN_DTYPE_FLOAT32, N, 4);
  PlanBindings *bindings = example_bindings (a, b);
  AsyncResult r = { g_main_loop_new (NULL, FALSE), };

  plan_work_dispatch_async (work, bindings, NULL, dispatched, &r);
  g_main_loop_run (r.loop);
  fail_unless (r.thread == g_thread_self ());
  fail_unless (r.future != NULL, "%s", r.error ? r.error->message : "");
  check_example_results (r.future, a, b);
  g_object_unref (r.future);
  g_main_loop_unref (r.loop);
  g_object_unref (bindings);
  g_object_unref (a);
  g_object_unref (b);
  drop_work (work);
  g_object_unref (g);
}

GST_END_TEST;

GST_START_TEST (test_dispatch_async_cancellable)
{
  Gate gate = { };
  PlanWork *work = one_map_work ();
  PlanBindings *bindings = gated_bindings (&gate);
  GCancellable *cancellable = g_cancellable_new ();
  AsyncResult r = { g_main_loop_new (NULL, FALSE), };

  plan_work_dispatch_async (work, bindings, cancellable, dispatched, &r);
  g_cancellable_cancel (cancellable);
  gate_open (&gate);
  g_main_loop_run (r.loop);
  fail_unless (r.future == NULL);
  fail_unless (g_error_matches (r.error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  /* the run's own message, not GTask's "Operation was cancelled" */
  assert_error_contains (r.error, "dispatch 1 of the work with input a and "
      "output m was cancelled through its GCancellable after its sources "
      "had produced ");
  g_clear_error (&r.error);
  g_main_loop_unref (r.loop);
  g_object_unref (cancellable);
  g_object_unref (bindings);
  drop_work (work);
}

GST_END_TEST;

static gpointer
cancel_thread (gpointer data)
{
  g_cancellable_cancel (data);
  return GINT_TO_POINTER (1);
}

/* A GCancellable of a dispatch that waits its turn, triggered: the
 * dispatch is taken out of the queue and its callback says cancelled. */
GST_START_TEST (test_dispatch_async_cancel_while_waiting)
{
  Gate gate = { };
  PlanWork *work = one_map_work ();
  PlanBindings *gated = gated_bindings (&gate);
  PlanArray *a;
  PlanBindings *small = ramp_bindings (2, &a);
  GCancellable *cancellable = g_cancellable_new ();
  AsyncResult r = { g_main_loop_new (NULL, FALSE), };
  PlanFuture *f1 = plan_work_dispatch (work, gated, NULL);
  GThread *thread;
  gint64 end;

  fail_unless (f1 != NULL);
  plan_work_dispatch_async (work, small, cancellable, dispatched, &r);
  /* on a thread of its own: a deadlock fails the test, not the suite */
  thread = g_thread_new ("cancel", cancel_thread, cancellable);
  end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (!g_cancellable_is_cancelled (cancellable)
      && g_get_monotonic_time () < end)
    g_usleep (1000);
  while (r.future == NULL && r.error == NULL
      && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
  fail_unless (r.error != NULL || r.future != NULL,
      "no callback 5 s after the cancel of a waiting dispatch");
  fail_unless (r.future == NULL);
  fail_unless (g_error_matches (r.error, G_IO_ERROR, G_IO_ERROR_CANCELLED),
      "%s", r.error->message);
  g_clear_error (&r.error);
  fail_unless (g_thread_join (thread) != NULL);
  fail_unless (!plan_future_is_done (f1));
  gate_open (&gate);
  fail_unless (plan_future_wait (f1, -1, NULL));

  g_object_unref (f1);
  g_main_loop_unref (r.loop);
  g_object_unref (cancellable);
  g_object_unref (gated);
  g_object_unref (small);
  g_object_unref (a);
  drop_work (work);
}

GST_END_TEST;

/* A "cancelled" handler that holds the emission (which
 * g_cancellable_disconnect() waits for) for 300 ms. */
static void
hold_emission (GCancellable * cancellable, gpointer held)
{
  g_atomic_int_set ((gint *) held, 1);
  g_usleep (300000);
}

/* The callback of an async dispatch is on its way before the work takes
 * the next dispatch. Here the end of a run is held up: its cancellable's
 * emission is held on another thread, which completing the future waits
 * for. Without a queue, dispatches are refused until the run before has
 * completed; the first one taken finds that run's callback ready. */
GST_START_TEST (test_dispatch_async_callback_before_next_dispatch)
{
  Gate gate = { };
  PlanWork *work = one_map_work ();
  PlanBindings *gated = gated_bindings (&gate);
  PlanArray *a;
  PlanBindings *small = ramp_bindings (2, &a);
  GCancellable *cancellable = g_cancellable_new ();
  AsyncResult r = { g_main_loop_new (NULL, FALSE), };
  GError *error = NULL;
  PlanFuture *f2;
  GThread *thread;
  gint held = 0;

  plan_work_set_max_queued (work, 0);
  plan_work_dispatch_async (work, gated, cancellable, dispatched, &r);
  g_signal_connect (cancellable, "cancelled", G_CALLBACK (hold_emission),
      &held);
  thread = g_thread_new ("cancel", cancel_thread, cancellable);
  while (!g_atomic_int_get (&held))
    g_usleep (1000);
  gate_open (&gate);
  while ((f2 = plan_work_dispatch (work, small, &error)) == NULL) {
    fail_unless (g_error_matches (error, PLAN_ERROR, PLAN_ERROR_BUSY),
        "%s", error->message);
    g_clear_error (&error);
  }
  /* Computed here, or (taken as the runner was letting go of the run
   * before) queued and run by the runner: done either way once waited. */
  fail_unless (plan_future_wait (f2, -1, NULL));
  while (g_main_context_iteration (NULL, FALSE));
  fail_unless (r.future != NULL || r.error != NULL, "the work took a "
      "dispatch before the callback of the one before was on its way");
  fail_unless (g_thread_join (thread) != NULL);
  check_ramp_plus_one (f2, 2);

  g_clear_object (&r.future);
  g_clear_error (&r.error);
  g_object_unref (f2);
  g_main_loop_unref (r.loop);
  g_object_unref (cancellable);
  g_object_unref (gated);
  g_object_unref (small);
  g_object_unref (a);
  drop_work (work);
}

GST_END_TEST;

/* Cancels @future from the log line the runner writes as it binds a
 * dispatch that waited, after a run in memory (docs/plan-api.md,
 * "Again"): at the first moment it is the running dispatch. */
typedef struct
{
  GThread *test_thread;
  PlanFuture *future;           /* atomic */
  gint fired;                   /* atomic */
  gint on_test_thread;          /* atomic */
} CancelOnRebind;

static void
cancel_on_rebind (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  CancelOnRebind *c = user_data;
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  PlanFuture *future;

  if (strcmp (gst_debug_category_get_name (category), "plangraph") != 0
      || strstr (gst_debug_message_get (message), "new bindings: stopping")
      == NULL || g_atomic_int_get (&c->fired))
    return;
  g_atomic_int_set (&c->fired, 1);
  /* bound by plan_work_dispatch() itself: the run before had ended */
  if (g_thread_self () == c->test_thread) {
    g_atomic_int_set (&c->on_test_thread, 1);
    return;
  }
  while ((future = g_atomic_pointer_get (&c->future)) == NULL
      && g_get_monotonic_time () < end)
    g_usleep (100);
  if (future != NULL)
    plan_future_cancel (future);
}

/* A dispatch that waited, cancelled as soon as it is the running one
 * (while the runner binds it), ends cancelled: the cancel is not lost
 * with the messages of the run before. */
GST_START_TEST (test_cancel_as_waiting_dispatch_is_bound)
{
  PlanWork *work;
  gint64 n = 1 << 20;
  PlanArray *a = plan_array_new (PLAN_DTYPE_FLOAT32, 1, &n, NULL);
  PlanBindings *in_memory = plan_bindings_new ();
  EndReader reader = { 0 };
  PlanBindings *long_run = end_bindings (&reader);
  CancelOnRebind c = { g_thread_self (), NULL, 0, 0 };
  GError *error = NULL;
  PlanFuture *f1, *f2;

  /* on the pipeline, which stays PLAYING after a run in memory */
  g_setenv ("PLAN_DIRECT_MAX_ELEMENTS", "0", TRUE);
  work = one_map_work ();
  g_unsetenv ("PLAN_DIRECT_MAX_ELEMENTS");
  plan_bindings_set_array (in_memory, "a", a);
  /* 100 chunks of 1 ms: a lost cancel lets it run to its end */
  reader.chunks = 100;
  gst_debug_set_threshold_for_name ("plangraph", GST_LEVEL_DEBUG);
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (cancel_on_rebind, &c, NULL);

  f1 = plan_work_dispatch (work, in_memory, NULL);
  f2 = plan_work_dispatch (work, long_run, NULL);
  fail_unless (f1 != NULL && f2 != NULL);
  g_atomic_pointer_set (&c.future, f2);
  fail_unless (plan_future_wait (f1, -1, NULL));
  fail_unless (!plan_future_wait (f2, -1, &error), "not cancelled");
  fail_unless (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED),
      "%s", error->message);
  g_clear_error (&error);
  fail_unless (g_atomic_int_get (&c.fired), "the runner did not rebind");
  fail_unless (!g_atomic_int_get (&c.on_test_thread), "the first run "
      "ended before the second dispatch: it did not wait");

  gst_debug_remove_log_function (cancel_on_rebind);
  gst_debug_add_log_function (gst_debug_log_default, NULL, NULL);
  gst_debug_set_threshold_for_name ("plangraph", GST_LEVEL_NONE);
  g_object_unref (f1);
  g_object_unref (f2);
  g_object_unref (in_memory);
  g_object_unref (long_run);
  g_object_unref (a);
  drop_work (work);
}

GST_END_TEST;

static void
note_finalized (gpointer data, GObject * where_the_object_was)
{
  g_atomic_int_set ((gint *) data, 1);
}

/* A work whose last reference is its runner's (the application dropped
 * the work and the future while the run went) is torn down on the
 * runner's thread as the run ends; gst_deinit() waits for that, as it
 * waits for GStreamer's own threads, rather than free the debug
 * categories and types the teardown uses. gst_task_cleanup_all() is the
 * part of gst_deinit() that waits. */
GST_START_TEST (test_deinit_waits_for_the_runner)
{
  PlanWork *work;
  EndReader reader = { 0 };
  PlanBindings *bindings;
  PlanFuture *future;
  gint finalized = 0;

  /* It leaves GStreamer without its thread pools: only in a process of
   * the test's own. */
  if (g_strcmp0 (g_getenv ("CK_FORK"), "no") == 0)
    return;
  work = one_map_work ();
  bindings = end_bindings (&reader);
  /* 200 chunks of 1 ms */
  reader.chunks = 200;
  g_object_weak_ref (G_OBJECT (work), note_finalized, &finalized);
  future = plan_work_dispatch (work, bindings, NULL);
  fail_unless (future != NULL);
  g_object_unref (future);
  g_object_unref (bindings);
  g_object_unref (work);
  gst_task_cleanup_all ();
  fail_unless (g_atomic_int_get (&finalized), "gst_task_cleanup_all() "
      "returned before the runner had let go of the work");
  fail_unless (g_atomic_int_get (&reader.ended));
}

GST_END_TEST;

/* A reader of 100-row chunks that takes 10 ms a chunk, for 1,000 chunks:
 * a run of ten seconds. */
static PlanArray *
slow_read (guint64 first_row, gpointer user_data, GError ** error)
{
  gint64 n = 100;

  g_atomic_int_inc ((gint *) user_data);
  if (first_row >= 100000)
    return NULL;
  g_usleep (10000);
  return plan_array_new (PLAN_DTYPE_FLOAT32, 1, &n, error);
}

typedef struct
{
  GCancellable *cancellable;
  gint64 cancelled_at;
} CancelLater;

static gboolean
cancel_later (gpointer data)
{
  CancelLater *c = data;

  c->cancelled_at = g_get_monotonic_time ();
  g_cancellable_cancel (c->cancellable);
  return G_SOURCE_REMOVE;
}

/* A GCancellable triggered 200 ms into a long run ends it promptly: the
 * callback comes within the bound a reader's call allows, not at the end
 * of the run. */
GST_START_TEST (test_dispatch_async_cancel_is_prompt)
{
  PlanWork *work = one_map_work ();
  PlanBindings *bindings = plan_bindings_new ();
  CancelLater c = { g_cancellable_new (), 0 };
  AsyncResult r = { g_main_loop_new (NULL, FALSE), };
  gint64 rows = -1, late;
  gint calls = 0;

  plan_bindings_set_reader (bindings, "a", PLAN_DTYPE_FLOAT32, 1, &rows,
      slow_read, &calls, NULL);
  plan_work_dispatch_async (work, bindings, c.cancellable, dispatched, &r);
  g_timeout_add (200, cancel_later, &c);
  g_main_loop_run (r.loop);
  late = g_get_monotonic_time () - c.cancelled_at;
  GST_INFO ("cancelled after %d reader calls; the callback came %"
      G_GINT64_FORMAT " us after the cancel", g_atomic_int_get (&calls), late);
  fail_unless (c.cancelled_at > 0);
  fail_unless (r.future == NULL);
  fail_unless (g_error_matches (r.error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  /* 10 ms per reader call; a generous bound for a loaded machine and
   * valgrind, far below the run's ten seconds */
  fail_unless (late < 2 * G_USEC_PER_SEC, "the callback came %" G_GINT64_FORMAT
      " us after the cancel", late);
  fail_unless (g_atomic_int_get (&calls) < 900);
  g_clear_error (&r.error);
  g_main_loop_unref (r.loop);
  g_object_unref (c.cancellable);
  g_object_unref (bindings);
  drop_work (work);
}

GST_END_TEST;

GST_START_TEST (test_run_error_names_node)
{
  PlanGraph *g = plan_graph_new ();
  PlanNode *a = plan_graph_add_source (g, "a", 1, PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *b = plan_graph_add_source (g, "b", 1, PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *ab[] = { a, b };
  PlanWork *work;
  PlanBindings *bindings = plan_bindings_new ();
  Gate gate_a = {.release = TRUE };
  PlanArray *one = ramp (PLAN_DTYPE_FLOAT32, 1, 1);
  PlanFuture *future;
  GError *error = NULL;
  gint64 rows = -1;

  plan_graph_add_map (g, "sum", "x + y", 2, ab, PLAN_DTYPE_UNKNOWN, NULL);
  work = plan_graph_realize (g, PLAN_TARGET_CPU, 0, NULL);
  plan_bindings_set_reader (bindings, "a", PLAN_DTYPE_FLOAT32, 1, &rows,
      gated_read, &gate_a, NULL);
  plan_bindings_set_array (bindings, "b", one);
  future = plan_work_dispatch (work, bindings, NULL);
  fail_unless (!plan_future_wait (future, -1, &error));
  assert_error_contains (error, "node 'sum' (planmap sum)");
  assert_error_contains (error, "different lengths");
  g_clear_error (&error);
  g_object_unref (future);
  g_object_unref (one);
  g_object_unref (bindings);
  drop_work (work);
  g_object_unref (g);
}

GST_END_TEST;

/* Runs @work on a = 1..4 (float32) and returns the output "c". */
static PlanArray *
run_on_ramp (PlanWork * work)
{
  PlanArray *a = ramp (PLAN_DTYPE_FLOAT32, 4, 1);
  PlanBindings *bindings = plan_bindings_new ();
  PlanFuture *future;
  PlanArray *c;
  gfloat *v = plan_array_get_writable_data (a, NULL);

  v[0] = 1;
  plan_bindings_set_array (bindings, "a", a);
  future = plan_work_dispatch (work, bindings, NULL);
  fail_unless (plan_future_wait (future, -1, NULL));
  c = g_object_ref (plan_future_get_result (future, "c"));
  g_object_unref (future);
  g_object_unref (bindings);
  g_object_unref (a);
  return c;
}

static void
assert_same_arrays (PlanArray * x, PlanArray * y)
{
  gsize nx, ny;
  gconstpointer dx = plan_array_get_data (x, &nx);
  gconstpointer dy = plan_array_get_data (y, &ny);

  fail_unless_equals_int (plan_array_get_dtype (x), plan_array_get_dtype (y));
  fail_unless_equals_uint64 (nx, ny);
  fail_unless (memcmp (dx, dy, nx) == 0);
}

/* Fusion rewrites names in the text of expressions: a hexadecimal literal
 * with an 'e' in it is a number, not an exponent swallowing "-x". */
GST_START_TEST (test_fusion_keeps_hex_literals)
{
  PlanGraph *g = plan_graph_new ();
  PlanNode *a = plan_graph_add_source (g, "a", 1, PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *m = plan_graph_add_map (g, "m", "x * 2", 1, &a,
      PLAN_DTYPE_UNKNOWN, NULL);
  PlanWork *fused, *unfused;
  PlanArray *cf, *cu;
  const gfloat *v;

  plan_graph_add_map (g, "c", "0xe-x", 1, &m, PLAN_DTYPE_UNKNOWN, NULL);
  fused = plan_graph_realize (g, PLAN_TARGET_CPU, 0, NULL);
  unfused = plan_graph_realize (g, PLAN_TARGET_CPU, PLAN_REALIZE_NO_FUSE,
      NULL);
  fail_unless_equals_int (plan_work_get_n_kernels (fused), 1);
  cf = run_on_ramp (fused);
  cu = run_on_ramp (unfused);
  assert_same_arrays (cf, cu);
  v = plan_array_get_data (cf, NULL);
  fail_unless_equals_float (v[0], 14 - 2 * 1);
  fail_unless_equals_float (v[3], 14 - 2 * 3);
  g_object_unref (cf);
  g_object_unref (cu);
  g_object_unref (fused);
  g_object_unref (unfused);
  g_object_unref (g);
}

GST_END_TEST;

/* A map of no input ("1") is int64 as an element of its own; pasted into
 * another expression it would take that expression's dtype, so it is not
 * fused. */
GST_START_TEST (test_fusion_skips_constant_maps)
{
  PlanGraph *g = plan_graph_new ();
  PlanNode *a = plan_graph_add_source (g, "a", 1, PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *one = plan_graph_add_map (g, "one", "1", 1, &a,
      PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *args[] = { a, one };
  PlanWork *fused, *unfused;
  PlanArray *cf, *cu;

  plan_graph_add_map (g, "c", "x + y", 2, args, PLAN_DTYPE_UNKNOWN, NULL);
  fused = plan_graph_realize (g, PLAN_TARGET_CPU, 0, NULL);
  unfused = plan_graph_realize (g, PLAN_TARGET_CPU, PLAN_REALIZE_NO_FUSE,
      NULL);
  fail_unless_equals_int (plan_work_get_n_kernels (fused), 2);
  cf = run_on_ramp (fused);
  cu = run_on_ramp (unfused);
  fail_unless_equals_int (plan_array_get_dtype (cf), PLAN_DTYPE_FLOAT64);
  assert_same_arrays (cf, cu);
  g_object_unref (cf);
  g_object_unref (cu);
  g_object_unref (fused);
  g_object_unref (unfused);
  g_object_unref (g);
}

GST_END_TEST;

GST_START_TEST (test_dispatch_async_already_cancelled)
{
  Gate gate = { };
  PlanWork *work = one_map_work ();
  PlanBindings *bindings = gated_bindings (&gate);
  GCancellable *cancellable = g_cancellable_new ();
  AsyncResult r = { g_main_loop_new (NULL, FALSE), };

  g_cancellable_cancel (cancellable);
  plan_work_dispatch_async (work, bindings, cancellable, dispatched, &r);
  g_main_loop_run (r.loop);
  gate_open (&gate);
  fail_unless (r.future == NULL);
  fail_unless (g_error_matches (r.error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  assert_error_contains (r.error, "a dispatch to the work with input a and "
      "output m was not made: its GCancellable was cancelled before "
      "plan_work_dispatch_async() was called");
  /* Cancelled before it started, the run never started. */
  fail_unless_equals_int (gate.calls, 0);
  g_clear_error (&r.error);
  g_main_loop_unref (r.loop);
  g_object_unref (cancellable);
  g_object_unref (bindings);
  drop_work (work);
}

GST_END_TEST;

/* Application messages from elements an application added are theirs:
 * only the work's own cancel ends a run. */
GST_START_TEST (test_application_messages_do_not_cancel)
{
  Gate gate = { };
  PlanWork *work = one_map_work ();
  PlanBindings *bindings = gated_bindings (&gate);
  PlanFuture *future = plan_work_dispatch (work, bindings, NULL);
  GstElement *pipeline = GST_ELEMENT (plan_work_get_pipeline (work));
  GError *error = NULL;

  gst_element_post_message (pipeline, gst_message_new_application
      (GST_OBJECT (pipeline), gst_structure_new_empty ("my-app-message")));
  gate_open (&gate);
  fail_unless (plan_future_wait (future, -1, &error), "%s",
      error ? error->message : "");
  g_object_unref (future);
  g_object_unref (bindings);
  drop_work (work);
}

GST_END_TEST;

typedef struct
{
  const guint8 *start, *end;
  guint n_buffers, n_inside;
} Span;

static GstPadProbeReturn
note_memory (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Span *span = user_data;
  GstMapInfo map;

  if (gst_buffer_map (GST_PAD_PROBE_INFO_BUFFER (info), &map, GST_MAP_READ)) {
    span->n_buffers++;
    span->n_inside += map.data >= span->start
        && map.data + map.size <= span->end;
    gst_buffer_unmap (GST_PAD_PROBE_INFO_BUFFER (info), &map);
  }
  return GST_PAD_PROBE_OK;
}

/* The map computes straight into the caller's output array: every output
 * buffer is memory of that array, and the values are right. (Past the
 * 4 Mi elements a dispatch computes on the caller's thread, so that the
 * pipeline runs.) */
GST_START_TEST (test_output_computed_in_place)
{
  gint64 n = 5 << 20;
  PlanWork *work = one_map_work ();
  PlanArray *a = ramp (PLAN_DTYPE_FLOAT32, n, 1);
  PlanArray *out = plan_array_new (PLAN_DTYPE_FLOAT32, 1, &n, NULL);
  PlanBindings *bindings = plan_bindings_new ();
  GstElement *m = gst_bin_get_by_name (GST_BIN (plan_work_get_pipeline
          (work)), "m");
  GstPad *pad = gst_element_get_static_pad (m, "src");
  PlanFuture *future;
  gsize size;
  Span span;
  const gfloat *v;

  span.start = plan_array_get_data (out, &size);
  span.end = span.start + size;
  span.n_buffers = span.n_inside = 0;
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, note_memory, &span,
      NULL);
  plan_bindings_set_array (bindings, "a", a);
  plan_bindings_set_array (bindings, "m", out);
  future = plan_work_dispatch (work, bindings, NULL);
  fail_unless (plan_future_wait (future, -1, NULL));
  fail_unless (plan_future_get_result (future, "m") == out);
  fail_unless (span.n_buffers > 0);
  fail_unless_equals_int (span.n_inside, span.n_buffers);
  v = plan_array_get_data (out, NULL);
  fail_unless_equals_float (v[0], 1);
  fail_unless_equals_float (v[n - 1], n);
  gst_object_unref (pad);
  gst_object_unref (m);
  g_object_unref (future);
  g_object_unref (bindings);
  g_object_unref (a);
  g_object_unref (out);
  drop_work (work);
}

GST_END_TEST;

typedef struct
{
  PlanDevice *device;
  gpointer dptr;
  gboolean freed;
} DeviceBlock;

static void
free_block (gpointer data)
{
  DeviceBlock *block = data;

  plan_device_free (block->device, block->dptr);
  block->freed = TRUE;
}

static GstPadProbeReturn
note_device_buffers (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  guint *n = data;

  *n += plan_buffer_is_device (GST_PAD_PROBE_INFO_BUFFER (info));
  return GST_PAD_PROBE_OK;
}

/* An array in (simulated) device memory is streamed in device memory, the
 * map runs on the device, and the result comes back to the host. */
GST_START_TEST (test_dispatch_device_array)
{
  gint64 n = 100000, i;
  PlanWork *work = one_map_work ();
  PlanArray *host = ramp (PLAN_DTYPE_FLOAT32, n, 0.25), *a;
  PlanBindings *bindings = plan_bindings_new ();
  DeviceBlock block = { plan_device_get ("sim", NULL), };
  GstElement *src = gst_bin_get_by_name (GST_BIN (plan_work_get_pipeline
          (work)), "a");
  GstPad *pad = gst_element_get_static_pad (src, "src");
  const gfloat *h, *out;
  PlanFuture *future;
  GError *error = NULL;
  guint n_device = 0;
  gsize size;

  fail_unless (block.device != NULL);
  fail_unless (plan_device_alloc (block.device, n * 4, &block.dptr, NULL));
  fail_unless (plan_device_copy (block.device, PLAN_COPY_HOST_TO_DEVICE,
          block.dptr, plan_array_get_data (host, NULL), n * 4, NULL));
  a = plan_array_new_device (block.device, block.dptr, n * 4,
      PLAN_DTYPE_FLOAT32, 1, &n, &block, free_block, &error);
  fail_unless (a != NULL);
  /* No host data: NULL, and no bytes to read there. */
  size = 1;
  fail_unless (plan_array_get_data (a, &size) == NULL);
  fail_unless_equals_uint64 (size, 0);
  fail_unless_equals_uint64 (plan_array_get_size (a), n * 4);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, note_device_buffers,
      &n_device, NULL);

  plan_bindings_set_array (bindings, "a", a);
  future = plan_work_dispatch (work, bindings, &error);
  fail_unless (future != NULL, "%s", error ? error->message : "");
  fail_unless (plan_future_wait (future, -1, &error), "%s",
      error ? error->message : "");
  fail_unless (n_device > 0);
  h = plan_array_get_data (host, NULL);
  out = plan_array_get_data (plan_future_get_result (future, "m"), NULL);
  for (i = 0; i < n; i++)
    fail_unless_equals_float (out[i], h[i] + 1);

  /* The memory goes back to its owner once the array and its buffers are
   * gone. */
  g_object_unref (future);
  g_object_unref (bindings);
  gst_object_unref (pad);
  gst_object_unref (src);
  drop_work (work);
  fail_unless (!block.freed);
  g_object_unref (a);
  fail_unless (block.freed);
  g_object_unref (host);
  gst_object_unref (block.device);
}

GST_END_TEST;

GST_START_TEST (test_device_array_refused_as_output)
{
  gint64 n = 4;
  PlanWork *work = one_map_work ();
  PlanArray *a = ramp (PLAN_DTYPE_FLOAT32, n, 1), *out;
  PlanBindings *bindings = plan_bindings_new ();
  PlanDevice *device = plan_device_get ("sim", NULL);
  gpointer dptr;
  GError *error = NULL;

  fail_unless (plan_device_alloc (device, n * 4, &dptr, NULL));
  out = plan_array_new_device (device, dptr, n * 4, PLAN_DTYPE_FLOAT32, 1,
      &n, NULL, NULL, NULL);
  plan_bindings_set_array (bindings, "a", a);
  plan_bindings_set_array (bindings, "m", out);
  fail_unless (plan_work_dispatch (work, bindings, &error) == NULL);
  assert_error_contains (error, "output 'm' is bound to an array in device "
      "memory");
  g_clear_error (&error);
  g_object_unref (bindings);
  g_object_unref (out);
  plan_device_free (device, dptr);
  g_object_unref (a);
  drop_work (work);
  gst_object_unref (device);
}

GST_END_TEST;


/* A stencil over several inputs: one step of a 2-D wave equation over u
 * (a 5-point window) and u_prev (its centre), realized as planstencil
 * with u_prev on sink_1, through the pipeline, on the caller's thread and
 * on the simulated device; the same values as a loop here; and its
 * errors. */
static PlanArray *
field (gint64 rows, gint64 cols, gdouble phase)
{
  gint64 shape[] = { rows, cols }, i;
  PlanArray *array = plan_array_new (PLAN_DTYPE_FLOAT64, 2, shape, NULL);
  gdouble *d = plan_array_get_writable_data (array, NULL);

  for (i = 0; i < rows * cols; i++)
    d[i] = sin (0.01 * i + phase) + (i % 7) * 0.125;
  return array;
}

static const gchar *const wave_windows[] = { "_ n _; w c e; _ s _", "p",
  NULL
};

#define WAVE_EXPR "2*c - p + 0.25*(n + s + e + w - 4*c)"

/* u_next as planstencil computes it, boundary=nearest. */
static gdouble
wave_at (const gdouble * u, const gdouble * p, gint64 rows, gint64 cols,
    gint64 r, gint64 c)
{
#define U(rr, cc) u[CLAMP (rr, 0, rows - 1) * cols + CLAMP (cc, 0, cols - 1)]
  gdouble centre = U (r, c);

  return 2 * centre - p[r * cols + c] + 0.25 * (U (r - 1, c) + U (r + 1,
          c) + U (r, c + 1) + U (r, c - 1) - 4 * centre);
#undef U
}

static void
run_wave (PlanTarget target, gboolean direct)
{
  gint64 rows = 300, cols = 17, r, c;
  PlanGraph *g = plan_graph_new ();
  PlanNode *u = plan_graph_add_source (g, "u", 2, PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *up = plan_graph_add_source (g, "up", 2, PLAN_DTYPE_UNKNOWN,
      NULL);
  PlanNode *ins[] = { u, up };
  PlanArray *U = field (rows, cols, 0.0), *P = field (rows, cols, 0.3), *out;
  PlanBindings *bindings = plan_bindings_new ();
  PlanFuture *future;
  PlanWork *work;
  GError *error = NULL;
  const gdouble *o, *du = plan_array_get_data (U, NULL);
  const gdouble *dp = plan_array_get_data (P, NULL);
  gchar *launch;

  fail_unless (plan_graph_add_stencil_inputs (g, "step", 2, ins,
          wave_windows, WAVE_EXPR, PLAN_BOUNDARY_NEAREST, 0.0,
          &error) != NULL, "%s", error ? error->message : "");
  if (!direct)
    g_setenv ("PLAN_DIRECT_MAX_ELEMENTS", "0", TRUE);
  work = plan_graph_realize (g, target, 0, &error);
  g_unsetenv ("PLAN_DIRECT_MAX_ELEMENTS");
  fail_unless (work != NULL, "%s", error ? error->message : "");
  launch = plan_work_to_launch_string (work);
  fail_unless (strstr (launch, "sink_1::window=p") != NULL, "%s", launch);
  fail_unless (strstr (launch, "up. ! step.sink_1") != NULL, "%s", launch);
  g_free (launch);
  plan_bindings_set_array (bindings, "u", U);
  plan_bindings_set_array (bindings, "up", P);
  future = plan_work_dispatch (work, bindings, &error);
  fail_unless (future != NULL, "%s", error ? error->message : "");
  fail_unless (plan_future_wait (future, -1, &error), "%s",
      error ? error->message : "");
  out = plan_future_get_result (future, "step");
  fail_unless (out != NULL);
  fail_unless_equals_int (plan_array_get_dtype (out), PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int64 (plan_array_get_n_rows (out), rows);
  o = plan_array_get_data (out, NULL);
  for (r = 0; r < rows; r++)
    for (c = 0; c < cols; c++) {
      gdouble want = wave_at (du, dp, rows, cols, r, c);

      fail_unless (fabs (o[r * cols + c] - want) <= 1e-12 * (1 + fabs (want)),
          "(%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "): %.17g, want %.17g",
          r, c, o[r * cols + c], want);
    }
  g_object_unref (future);
  g_object_unref (bindings);
  drop_work (work);
  g_object_unref (U);
  g_object_unref (P);
  g_object_unref (g);
}

GST_START_TEST (test_stencil_inputs_wave)
{
  run_wave (PLAN_TARGET_CPU, TRUE);
  run_wave (PLAN_TARGET_CPU, FALSE);
  /* The device path, on the simulated device. */
  g_setenv ("GST_PLAN_DEVICE", "sim", TRUE);
  run_wave (PLAN_TARGET_CUDA, FALSE);
  g_unsetenv ("GST_PLAN_DEVICE");
}

GST_END_TEST;

/* A work for target cuda holds its device from realize to the end: the
 * runs' elements find it open (a CUDA context is not made again for each
 * run that starts them). */
GST_START_TEST (test_cuda_work_holds_its_device)
{
  PlanGraph *g = plan_graph_new ();
  PlanNode *a = plan_graph_add_source (g, "a", 1, PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *m = plan_graph_add_map (g, "m", "x * 2", 1, &a,
      PLAN_DTYPE_UNKNOWN, NULL);
  gint64 shape[] = { 1000 };
  PlanArray *in = plan_array_new (PLAN_DTYPE_FLOAT32, 1, shape, NULL);
  PlanBindings *bindings = plan_bindings_new ();
  PlanDevice *device, *again;
  gpointer held = NULL;
  PlanWork *work;
  GError *err = NULL;
  guint run;

  g_setenv ("GST_PLAN_DEVICE", "sim", TRUE);
  fail_unless (plan_graph_add_sink (g, "out", m, NULL) != NULL);
  g_setenv ("PLAN_DIRECT_MAX_ELEMENTS", "0", TRUE);
  work = plan_graph_realize (g, PLAN_TARGET_CUDA, PLAN_REALIZE_NONE, &err);
  g_unsetenv ("PLAN_DIRECT_MAX_ELEMENTS");
  fail_unless (work != NULL, "%s", err ? err->message : "");
  device = plan_device_get ("cuda", NULL);
  fail_unless (device != NULL);
  held = device;
  g_object_add_weak_pointer (G_OBJECT (device), &held);
  g_object_unref (device);
  fail_unless (held != NULL, "the work does not hold its device");
  plan_bindings_set_array (bindings, "a", in);
  for (run = 0; run < 3; run++) {
    PlanFuture *future = plan_work_dispatch (work, bindings, &err);

    fail_unless (future != NULL, "%s", err ? err->message : "");
    fail_unless (plan_future_wait (future, -1, &err), "%s",
        err ? err->message : "");
    g_object_unref (future);
    again = plan_device_get ("cuda", NULL);
    fail_unless (again == held, "run %u opened the device again", run);
    g_object_unref (again);
  }
  /* (Whether the device closes as the work goes depends on when the
   * pipeline's threads let go of their buffers: not checked.) */
  g_object_remove_weak_pointer (G_OBJECT (held), &held);
  drop_work (work);
  g_unsetenv ("GST_PLAN_DEVICE");
  g_object_unref (bindings);
  g_object_unref (in);
  g_object_unref (g);
}

GST_END_TEST;

GST_START_TEST (test_stencil_inputs_errors)
{
  PlanGraph *g = plan_graph_new ();
  PlanNode *a = plan_graph_add_source (g, "a", 2, PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *b = plan_graph_add_source (g, "b", 2, PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *v = plan_graph_add_source (g, "v", 1, PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *ab[] = { a, b }, *av[] = { a, v };
  const gchar *const one[] = { "_ n _; w c e; _ s _", NULL };
  const gchar *const clash[] = { "_ n _; w c e; _ s _", "c", NULL };
  const gchar *const bad[] = { "l c r", "p (", NULL };
  const gchar *const tall[] = { "l c r", "n; p; s", NULL };
  PlanBindings *bindings;
  PlanWork *work;
  PlanArray *A, *B;
  GError *error = NULL;

  fail_unless (plan_graph_add_stencil_inputs (g, "s", 2, ab, one, "c",
          PLAN_BOUNDARY_REFLECT, 0, &error) == NULL);
  assert_error_contains (error, "stencil 's': 1 window for 2 inputs; a "
      "stencil takes one window per input");
  g_clear_error (&error);
  fail_unless (plan_graph_add_stencil_inputs (g, "s", 2, ab, NULL, "c",
          PLAN_BOUNDARY_REFLECT, 0, &error) == NULL);
  assert_error_contains (error, "0 windows for 2 inputs");
  g_clear_error (&error);
  fail_unless (plan_graph_add_stencil_inputs (g, "s", 0, NULL, one, "c",
          PLAN_BOUNDARY_REFLECT, 0, &error) == NULL);
  assert_error_contains (error, "stencil 's': a stencil needs at least one "
      "input");
  g_clear_error (&error);
  fail_unless (plan_graph_add_stencil_inputs (g, "s", 2, ab, clash, "c",
          PLAN_BOUNDARY_REFLECT, 0, &error) == NULL);
  assert_error_contains (error, "stencil 's': 'c' names a cell of the "
      "window \"_ n _; w c e; _ s _\" of input 0 ('a') and one of the "
      "window \"c\" of input 1 ('b')");
  g_clear_error (&error);
  fail_unless (plan_graph_add_stencil_inputs (g, "s", 2, ab, bad, "c + p",
          PLAN_BOUNDARY_REFLECT, 0, &error) == NULL);
  assert_error_contains (error, "stencil 's': the window \"p (\" of input 1 "
      "('b'): ");
  g_clear_error (&error);
  fail_unless (plan_graph_add_stencil_inputs (g, "s", 2, av, tall, "c + p",
          PLAN_BOUNDARY_REFLECT, 0, &error) == NULL);
  assert_error_contains (error, "its inputs have different numbers of axes: "
      "input 0 ('a') has 2 and input 1 ('v') has 1");
  g_clear_error (&error);
  fail_unless (plan_graph_add_stencil_inputs (g, "s", 2, ab, wave_windows,
          "c + q", PLAN_BOUNDARY_REFLECT, 0, &error) == NULL);
  assert_error_contains (error, "unknown name 'q'");
  g_clear_error (&error);

  g_object_unref (g);

  /* Shapes are known at dispatch. */
  g = plan_graph_new ();
  a = plan_graph_add_source (g, "a", 2, PLAN_DTYPE_UNKNOWN, NULL);
  b = plan_graph_add_source (g, "b", 2, PLAN_DTYPE_UNKNOWN, NULL);
  ab[0] = a;
  ab[1] = b;
  fail_unless (plan_graph_add_stencil_inputs (g, "s", 2, ab, wave_windows,
          WAVE_EXPR, PLAN_BOUNDARY_REFLECT, 0, &error) != NULL);
  work = plan_graph_realize (g, PLAN_TARGET_CPU, 0, &error);
  fail_unless (work != NULL, "%s", error ? error->message : "");
  A = field (10, 5, 0);
  B = field (10, 4, 0);
  bindings = plan_bindings_new ();
  plan_bindings_set_array (bindings, "a", A);
  plan_bindings_set_array (bindings, "b", B);
  fail_unless (plan_work_dispatch (work, bindings, &error) == NULL);
  assert_error_contains (error, "stencil 's': its inputs must have the same "
      "shape, but input 0 ('a') has shape (10, 5) and input 1 ('b') has "
      "shape (10, 4)");
  g_clear_error (&error);
  g_object_unref (bindings);
  g_object_unref (B);
  B = field (9, 5, 0);
  bindings = plan_bindings_new ();
  plan_bindings_set_array (bindings, "a", A);
  plan_bindings_set_array (bindings, "b", B);
  fail_unless (plan_work_dispatch (work, bindings, &error) == NULL);
  assert_error_contains (error, "has shape (10, 5) and input 1 ('b') has "
      "shape (9, 5)");
  g_clear_error (&error);
  g_object_unref (bindings);
  g_object_unref (A);
  g_object_unref (B);
  drop_work (work);
  g_object_unref (g);
}

GST_END_TEST;

/* What a callback that waits inside a run of its own work waits for: its
 * own run ("own"), one it dispatched behind it ("queued"), or a run of
 * another work ("other", which may be waited for). */
typedef struct
{
  PlanWork *work;
  PlanWork *other;
  PlanFuture *future;           /* atomic: the run the callback is in */
  const gchar *how;
  GError *error;                /* what the callback's wait said */
  gint waited;                  /* atomic */
  gboolean every_call;          /* "own" in every call of a parallel
                                 * kernel, on the caller's thread and on
                                 * the workers */
} Waiter;

static Waiter *kernel_waiter;

/* Waits as @w says from inside a callback; FALSE with @error set when the
 * wait was refused (as it must be for the same work). */
static gboolean
wait_inside (Waiter * w, GError ** error)
{
  PlanFuture *future;
  PlanBindings *bindings;
  PlanArray *a;
  GError *err = NULL;
  gboolean ok;

  /* once, but for every_call: a parallel kernel is called on several
   * threads */
  if (w->every_call) {
    g_atomic_int_set (&w->waited, TRUE);
    /* long enough for a worker to take a piece of the chunk too */
    g_usleep (20000);
  } else if (!g_atomic_int_compare_and_exchange (&w->waited, FALSE, TRUE))
    return TRUE;
  if (g_str_equal (w->how, "own")) {
    while ((future = g_atomic_pointer_get (&w->future)) == NULL)
      g_usleep (1000);
    g_object_ref (future);
  } else {
    bindings = ramp_bindings (1.0, &a);
    future = plan_work_dispatch (g_str_equal (w->how, "queued") ? w->work :
        w->other, bindings, error);
    g_object_unref (bindings);
    g_object_unref (a);
    fail_unless (future != NULL);
  }
  /* a poll never blocks, so it is allowed */
  fail_if (plan_future_wait (future, 0, NULL) && !g_str_equal (w->how,
          "other"));
  ok = plan_future_wait (future, 20 * G_TIME_SPAN_SECOND, &err);
  if (!ok && err == NULL)
    g_set_error (&err, G_IO_ERROR, G_IO_ERROR_TIMED_OUT, "the wait "
        "inside the callback timed out: it was not refused");
  if (!ok) {
    g_propagate_error (error, g_error_copy (err));
    /* the first one's is kept; each must be refused */
    fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_BUSY), "%s",
        err->message);
    if (!g_atomic_pointer_compare_and_exchange (&w->error, NULL, err))
      g_error_free (err);
  }
  g_object_unref (future);
  return ok;
}

/* Rows per chunk of the reader: chunks of a parallel kernel are split
 * between threads from 16384 rows of float32 (64 KiB). */
static gint64 read_rows = 100;

static PlanArray *
waiting_read (guint64 first_row, gpointer user_data, GError ** error)
{
  gint64 n = read_rows;

  if (first_row >= (guint64) n * 3)
    return NULL;
  if (first_row == (guint64) n && !wait_inside (user_data, error))
    return NULL;
  return plan_array_new (PLAN_DTYPE_FLOAT32, 1, &n, error);
}

static gboolean
waiting_write (PlanArray * chunk, guint64 first_row, gpointer user_data,
    GError ** error)
{
  return wait_inside (user_data, error);
}

static gint
waiting_kernel (PlanCustomChunk * chunk)
{
  Waiter *w = g_atomic_pointer_get (&kernel_waiter);
  GError *error = NULL;

  memcpy (chunk->output->data, chunk->inputs[0].data,
      chunk->n_rows * chunk->inputs[0].row_size);
  /* the dispatch queued behind the run may end after the test */
  if (w == NULL || wait_inside (w, &error))
    return 0;
  g_strlcpy (chunk->error, error->message, PLAN_CUSTOM_ERROR_SIZE);
  g_error_free (error);
  return 1;
}

/* Runs one dispatch whose @where ("reader", "writer", "kernel" or
 * "parallel-kernel") waits as @how says; returns the run's error. */
static GError *
run_waiting (const gchar * where, const gchar * how)
{
  PlanGraph *g = plan_graph_new ();
  PlanNode *a = plan_graph_add_source (g, "a", 1, PLAN_DTYPE_UNKNOWN, NULL);
  PlanNode *m = plan_graph_add_map (g, "m", "x + 1", 1, &a,
      PLAN_DTYPE_UNKNOWN, NULL);
  Waiter w = { NULL, NULL, NULL, how };
  /* (the reader's when it does not wait: it lives as long as the run) */
  Waiter none = { NULL, NULL, NULL, "none", NULL, TRUE };
  PlanBindings *bindings = plan_bindings_new ();
  PlanFuture *future;
  GError *error = NULL;
  gint64 rows = -1;

  if (g_str_has_suffix (where, "kernel"))
    fail_unless (plan_graph_add_custom (g, "k", 1, &m,
            g_str_equal (where, "parallel-kernel") ?
            "kernel=waiting parallel=true n-threads=2" : "kernel=waiting",
            &error) != NULL, "%s", error ? error->message : "");
  w.work = plan_graph_realize (g, PLAN_TARGET_CPU, 0, &error);
  fail_unless (w.work != NULL, "%s", error ? error->message : "");
  w.every_call = g_str_equal (where, "parallel-kernel")
      && g_str_equal (how, "own");
  read_rows = g_str_equal (where, "parallel-kernel") ? 40000 : 100;
  /* another work whose runs go through its pipeline, never done at once */
  g_setenv ("PLAN_DIRECT_MAX_ELEMENTS", "0", TRUE);
  w.other = one_map_work ();
  g_unsetenv ("PLAN_DIRECT_MAX_ELEMENTS");
  fail_unless (w.work != NULL && w.other != NULL);
  g_atomic_pointer_set (&kernel_waiter, &w);
  if (g_str_equal (where, "reader"))
    plan_bindings_set_reader (bindings, "a", PLAN_DTYPE_FLOAT32, 1, &rows,
        waiting_read, &w, NULL);
  else
    plan_bindings_set_reader (bindings, "a", PLAN_DTYPE_FLOAT32, 1, &rows,
        waiting_read, &none, NULL);
  if (g_str_equal (where, "writer"))
    plan_bindings_set_writer (bindings, "m", waiting_write, &w, NULL);
  future = plan_work_dispatch (w.work, bindings, &error);
  fail_unless (future != NULL, "%s", error ? error->message : "");
  g_atomic_pointer_set (&w.future, future);
  /* Refused, the wait inside is an error the callback returns, and the
   * run ends with it: it hung for ever. */
  if (!plan_future_wait (future, 20 * G_TIME_SPAN_SECOND, &error))
    fail_unless (error != NULL, "%s inside the %s: the run did not end",
        how, where);
  fail_unless (w.waited, "the %s was never called (the run: %s)", where,
      error ? error->message : "succeeded");
  if (g_str_equal (how, "other"))
    fail_unless (w.error == NULL, "%s", w.error ? w.error->message : "");
  else
    fail_unless (g_error_matches (w.error, PLAN_ERROR, PLAN_ERROR_BUSY),
        "%s", w.error ? w.error->message : "no error");
  g_clear_error (&w.error);
  g_object_unref (future);
  g_object_unref (bindings);
  drop_work (w.work);
  g_atomic_pointer_set (&kernel_waiter, NULL);
  drop_work (w.other);
  g_object_unref (g);
  return error;
}

/* A wait inside a reader, writer or kernel for a run of the same work (the
 * run that called it, or one queued behind it) would never end: the work
 * runs one dispatch at a time. It is refused with PLAN_ERROR_BUSY; it
 * hung for ever. A run of another work may be waited for there. */
GST_START_TEST (test_wait_inside_own_callback_is_refused)
{
  const gchar *wheres[] = { "reader", "writer", "kernel", "parallel-kernel" };
  const gchar *hows[] = { "own", "queued", "other" };
  guint i, j;

  fail_unless (plan_custom_register ("waiting", waiting_kernel, NULL, NULL,
          NULL));
  for (i = 0; i < G_N_ELEMENTS (wheres); i++) {
    for (j = 0; j < G_N_ELEMENTS (hows); j++) {
      GError *error = run_waiting (wheres[i], hows[j]);

      if (g_str_equal (hows[j], "other")) {
        fail_unless (error == NULL, "%s: %s", wheres[i], error->message);
        continue;
      }
      assert_error_contains (error, "inside a reader, writer or kernel of "
          "this work");
      assert_error_contains (error, "it would never end");
      g_clear_error (&error);
    }
  }
  plan_custom_unregister ("waiting");
}

GST_END_TEST;

static Suite *
graph_suite (void)
{
  Suite *s = suite_create ("plangraph");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_graph_map_syntax_error_names_node);
  tcase_add_test (tc, test_graph_custom);
  tcase_add_test (tc, test_graph_map_unknown_name);
  tcase_add_test (tc, test_graph_names_checked);
  tcase_add_test (tc, test_graph_stencil_and_reduce_checked);
  tcase_add_test (tc, test_realize_structural_errors);
  tcase_add_test (tc, test_realize_fuses_chains);
  tcase_add_test (tc, test_launch_string_parses);
  tcase_add_test (tc, test_dispatch_example_in_memory);
  tcase_add_test (tc, test_graph_constants_and_ddof);
  tcase_add_test (tc, test_dispatch_hundred_times);
  tcase_add_test (tc, test_dispatch_binding_errors);
  tcase_add_test (tc, test_writer_failure_names_output);
  tcase_add_test (tc, test_dispatch_reduction_into_array_of_its_size);
  tcase_add_test (tc, test_dispatch_overlapping_output_refused);
  tcase_add_test (tc, test_dispatch_while_running_queues);
  tcase_add_test (tc, test_queued_dispatch_keeps_its_bindings);
  tcase_add_test (tc, test_dispatch_as_run_ends_keeps_order);
  tcase_add_test (tc, test_dispatch_async_callbacks_in_order);
  tcase_add_test (tc, test_dispatch_async_cancel_while_waiting);
  tcase_add_test (tc, test_dispatch_async_callback_before_next_dispatch);
  tcase_add_test (tc, test_cancel_as_waiting_dispatch_is_bound);
  tcase_add_test (tc, test_deinit_waits_for_the_runner);
  tcase_add_test (tc, test_small_map_dispatch_is_done_at_once);
  tcase_add_test (tc, test_direct_map_split_across_threads);
  tcase_add_test (tc, test_wait_timeout_then_cancel);
  tcase_add_test (tc, test_wait_longest_timeout_waits_for_the_end);
  tcase_add_test (tc, test_dispatch_async_completes_on_main_context);
  tcase_add_test (tc, test_dispatch_async_cancellable);
  tcase_add_test (tc, test_dispatch_async_cancel_is_prompt);
  tcase_add_test (tc, test_run_error_names_node);
  tcase_add_test (tc, test_fusion_keeps_hex_literals);
  tcase_add_test (tc, test_fusion_skips_constant_maps);
  tcase_add_test (tc, test_dispatch_async_already_cancelled);
  tcase_add_test (tc, test_application_messages_do_not_cancel);
  tcase_add_test (tc, test_output_computed_in_place);
  tcase_add_test (tc, test_dispatch_device_array);
  tcase_add_test (tc, test_device_array_refused_as_output);
  tcase_add_test (tc, test_stencil_inputs_wave);
  tcase_add_test (tc, test_cuda_work_holds_its_device);
  tcase_add_test (tc, test_stencil_inputs_errors);
  tcase_add_test (tc, test_wait_inside_own_callback_is_refused);
  return s;
}

GST_CHECK_MAIN (graph);
