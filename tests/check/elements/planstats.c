/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The planstats tracer: what it counts per element, and which time it
 * gives an element called by a push (wall clock), an aggregator (CPU, so
 * that waiting for input does not count) and a source. The tracer is
 * enabled by GST_TRACERS before gst_init (see main). */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>

#include <string.h>

static GstTracer *
get_tracer (void)
{
  GList *tracers = gst_tracing_get_active_tracers (), *l;
  GstTracer *found = NULL;

  for (l = tracers; l; l = l->next)
    if (g_str_equal (G_OBJECT_TYPE_NAME (l->data), "PlanStatsTracer"))
      found = gst_object_ref (l->data);
  g_list_free_full (tracers, gst_object_unref);
  fail_unless (found != NULL, "the planstats tracer is not active");
  return found;
}

/* The stats row of the element named @name, copied; NULL if none. */
static GstStructure *
stats_of (const gchar * name)
{
  GstTracer *tracer = get_tracer ();
  GstStructure *all = NULL, *row = NULL;
  const GValue *list;
  guint i;

  g_object_get (tracer, "stats", &all, NULL);
  fail_unless (all != NULL && gst_structure_has_name (all, "plan-stats"));
  list = gst_structure_get_value (all, "elements");
  fail_unless (list != NULL && GST_VALUE_HOLDS_ARRAY (list));
  for (i = 0; i < gst_value_array_get_size (list); i++) {
    const GstStructure *s =
        gst_value_get_structure (gst_value_array_get_value (list, i));

    if (g_strcmp0 (gst_structure_get_string (s, "name"), name) == 0) {
      if (row)
        gst_structure_free (row);       /* the last one made wins */
      row = gst_structure_copy (s);
    }
  }
  gst_structure_free (all);
  gst_object_unref (tracer);
  return row;
}

static guint64
field (const GstStructure * s, const gchar * name)
{
  guint64 v = 0;

  fail_unless (gst_structure_get_uint64 (s, name, &v), "no %s in %"
      GST_PTR_FORMAT, name, s);
  return v;
}

static void
run_to_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "%" GST_PTR_FORMAT, msg);
  gst_message_unref (msg);
  gst_object_unref (bus);
}

/* planarraysrc "in" with @rows x 3 int32 rows in buffers of 10 rows. */
static GstElement *
launch_with_array (const gchar * desc, gint64 rows)
{
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *src;
  gint64 shape[] = { rows, 3 };
  PlanArray *a = plan_array_new (PLAN_DTYPE_INT32, 2, shape, NULL);

  fail_unless (pipeline != NULL, "%s", desc);
  memset (plan_array_get_writable_data (a, NULL), 0, rows * 3 * 4);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "in");
  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  g_object_set (src, "blocksize", 120, NULL);
  gst_object_unref (src);
  g_object_unref (a);
  return pipeline;
}

GST_START_TEST (test_counts_buffers_rows_bytes)
{
  GstElement *pipeline = launch_with_array ("planarraysrc name=in ! "
      "identity name=id1 ! planmap name=map1 expr=\"x + 1\" ! "
      "fakesink name=out1", 100);
  GstStructure *src, *id, *map, *sink;

  run_to_eos (pipeline);
  src = stats_of ("in");
  id = stats_of ("id1");
  map = stats_of ("map1");
  sink = stats_of ("out1");
  fail_unless (src && id && map && sink);

  fail_unless (gst_structure_get_string (src, "factory") != NULL);
  fail_unless_equals_string (gst_structure_get_string (src, "factory"),
      "planarraysrc");
  {
    gboolean source = FALSE;

    fail_unless (gst_structure_get_boolean (src, "source", &source));
    fail_unless (source);
    fail_unless (gst_structure_get_boolean (id, "source", &source));
    fail_if (source);
  }
  /* 100 rows of 12 bytes in buffers of 10 rows */
  fail_unless_equals_uint64 (field (src, "buffers-out"), 10);
  fail_unless_equals_uint64 (field (src, "rows-out"), 100);
  fail_unless_equals_uint64 (field (src, "bytes-out"), 1200);
  fail_unless_equals_uint64 (field (src, "buffers-in"), 0);
  fail_unless_equals_uint64 (field (id, "buffers-in"), 10);
  fail_unless_equals_uint64 (field (id, "rows-in"), 100);
  fail_unless_equals_uint64 (field (id, "bytes-in"), 1200);
  fail_unless_equals_uint64 (field (id, "buffers-out"), 10);
  fail_unless_equals_uint64 (field (map, "rows-in"), 100);
  fail_unless_equals_uint64 (field (map, "bytes-in"), 1200);
  fail_unless_equals_uint64 (field (map, "rows-out"), 100);
  fail_unless_equals_uint64 (field (sink, "rows-in"), 100);
  fail_unless_equals_uint64 (field (sink, "bytes-in"), 1200);
  fail_unless_equals_uint64 (field (sink, "buffers-out"), 0);
  /* first and last buffer pushed, on the tracer's clock */
  fail_unless (field (src, "first") <= field (src, "last"));
  fail_unless_equals_uint64 (field (sink, "first"), G_MAXUINT64);

  gst_structure_free (src);
  gst_structure_free (id);
  gst_structure_free (map);
  gst_structure_free (sink);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Bytes without array caps count; rows do not. */
GST_START_TEST (test_rows_only_for_array_caps)
{
  GstElement *pipeline = gst_parse_launch ("fakesrc num-buffers=5 "
      "sizetype=fixed sizemax=64 filltype=zero ! identity name=id2 ! "
      "fakesink", NULL);
  GstStructure *id;

  run_to_eos (pipeline);
  id = stats_of ("id2");
  fail_unless (id != NULL);
  fail_unless_equals_uint64 (field (id, "buffers-in"), 5);
  fail_unless_equals_uint64 (field (id, "bytes-in"), 320);
  fail_unless_equals_uint64 (field (id, "rows-in"), 0);
  gst_structure_free (id);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* identity sleeping in its chain is busy (wall clock) for at least the
 * sleeps; the kernel element after it, an aggregator that waits for
 * each of those buffers, is not charged the wait (CPU time). */
GST_START_TEST (test_waiting_is_not_work)
{
  GstElement *pipeline = launch_with_array ("planarraysrc name=in ! "
      "identity name=slow3 sleep-time=50000 ! planmap name=map3 "
      "expr=\"x * 2\" ! fakesink", 100);
  GstStructure *slow, *map;

  run_to_eos (pipeline);
  slow = stats_of ("slow3");
  map = stats_of ("map3");
  fail_unless (slow && map);
  /* 10 buffers of 50 ms */
  fail_unless (field (slow, "time") >= 500 * GST_MSECOND,
      "identity's time %" GST_TIME_FORMAT,
      GST_TIME_ARGS (field (slow, "time")));
  /* 10 tiny maps: far less than the 500 ms they waited for input (a
   * bound relative to identity's; under valgrind on a loaded machine the
   * maps alone took 61 ms, so the waits are long enough to leave room) */
  fail_unless (field (map, "time") < field (slow, "time") / 4,
      "planmap's time %" GST_TIME_FORMAT " against identity's %"
      GST_TIME_FORMAT, GST_TIME_ARGS (field (map, "time")),
      GST_TIME_ARGS (field (slow, "time")));
  gst_structure_free (slow);
  gst_structure_free (map);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Bins are left out: their pushes are their children's through ghost
 * pads. */
GST_START_TEST (test_bins_left_out)
{
  GstElement *pipeline = gst_parse_launch ("fakesrc num-buffers=3 ! "
      "bin.( name=box4 identity name=inner4 ) ! fakesink", NULL);
  GstStructure *box, *inner;

  fail_unless (pipeline != NULL);
  run_to_eos (pipeline);
  box = stats_of ("box4");
  inner = stats_of ("inner4");
  fail_unless (box == NULL, "the bin has a row: %" GST_PTR_FORMAT, box);
  fail_unless (inner != NULL);
  fail_unless_equals_uint64 (field (inner, "buffers-in"), 3);
  gst_structure_free (inner);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* An element destroyed keeps its row; a new element, whatever address it
 * gets, has a row of its own. */
GST_START_TEST (test_destroyed_elements_keep_their_rows)
{
  gint round;

  for (round = 0; round < 2; round++) {
    GstElement *pipeline = gst_parse_launch ("fakesrc num-buffers=2 ! "
        "identity name=again5 ! fakesink", NULL);
    GstStructure *s;

    run_to_eos (pipeline);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
    /* the last row of that name is this round's: 2 buffers, not 4 */
    s = stats_of ("again5");
    fail_unless (s != NULL);
    fail_unless_equals_uint64 (field (s, "buffers-in"), 2);
    gst_structure_free (s);
  }
}

GST_END_TEST;

static Suite *
planstats_suite (void)
{
  Suite *s = suite_create ("planstats");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_counts_buffers_rows_bytes);
  tcase_add_test (tc, test_rows_only_for_array_caps);
  tcase_add_test (tc, test_waiting_is_not_work);
  tcase_add_test (tc, test_bins_left_out);
  tcase_add_test (tc, test_destroyed_elements_keep_their_rows);
  return s;
}

int
main (int argc, char **argv)
{
  /* The tracer is made by gst_init, from GST_TRACERS. */
  g_setenv ("GST_TRACERS", "planstats", TRUE);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (planstats_suite (), "planstats", __FILE__);
}
