/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <libplan/plan.h>

#include <string.h>

#define INT32_CAPS(shape) \
    "array/x-raw, dtype=(string)int32, shape=(int)" shape

static GstElement *
make_sink (void)
{
  GstElement *sink = gst_element_factory_make ("planarraysink", "out");

  fail_unless (sink != NULL);
  return sink;
}

/* A harness around @sink, which it starts at once: bind @sink first. */
static GstHarness *
sink_harness (GstElement * sink, const gchar * caps, GstBus ** bus)
{
  GstHarness *h;

  if (bus) {
    *bus = gst_bus_new ();
    gst_element_set_bus (sink, *bus);
  }
  h = gst_harness_new_with_element (sink, "sink", NULL);
  gst_harness_set_src_caps_str (h, caps);
  return h;
}

static void
teardown_harness (GstHarness * h, GstBus * bus)
{
  if (bus) {
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
  }
  gst_harness_teardown (h);
}

/* Rows [first, first + n) of an int32 stream of @cols columns whose element
 * i is i. */
static GstBuffer *
make_rows (guint64 first, guint n, guint cols)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n * cols * 4, NULL);
  GstMapInfo map;
  guint i;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (i = 0; i < n * cols; i++)
    ((gint32 *) map.data)[i] = first * cols + i;
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_OFFSET (buf) = first;
  GST_BUFFER_OFFSET_END (buf) = first + n;
  return buf;
}

static GstFlowReturn
push_rows (GstHarness * h, guint64 first, guint n, guint cols)
{
  return gst_harness_push (h, make_rows (first, n, cols));
}

static PlanArray *
new_array (PlanDType dtype, gint64 rows, gint64 cols)
{
  gint64 shape[] = { rows, cols };
  PlanArray *a = plan_array_new (dtype, 2, shape, NULL);

  fail_unless (a != NULL);
  return a;
}

/* Checks that @a is int32 (@rows, @cols) holding 0, 1, 2, ... */
static void
check_array (PlanArray * a, gint64 rows, gint64 cols)
{
  const gint32 *v;
  const gint64 *shape;
  guint ndim;
  gint64 i;

  fail_unless (a != NULL);
  fail_unless_equals_int (plan_array_get_dtype (a), PLAN_DTYPE_INT32);
  shape = plan_array_get_shape (a, &ndim);
  fail_unless_equals_int (ndim, 2);
  fail_unless_equals_int64 (shape[0], rows);
  fail_unless_equals_int64 (shape[1], cols);
  fail_unless_equals_int (plan_array_get_size (a), rows * cols * 4);
  v = plan_array_get_data (a, NULL);
  for (i = 0; i < rows * cols; i++)
    fail_unless_equals_int (v[i], i);
}

static void
expect_error (GstBus * bus, GQuark domain, gint code,
    const gchar * const *parts)
{
  GstMessage *msg;
  GError *err = NULL;

  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, domain, code), "%s (%s %d)",
      err->message, g_quark_to_string (err->domain), err->code);
  for (; *parts; parts++)
    fail_unless (strstr (err->message, *parts) != NULL, "'%s' not in '%s'",
        *parts, err->message);
  g_error_free (err);
  gst_message_unref (msg);
}

/* Takes the first error message and checks its domain, code and that its
 * text contains each of the strings that follow. */
#define EXPECT_ERROR(bus, domain, code, ...) \
    expect_error (bus, domain, code, (const gchar *[]) { __VA_ARGS__, NULL })

static gboolean
push_eos (GstHarness * h)
{
  return gst_harness_push_event (h, gst_event_new_eos ());
}

GST_START_TEST (test_sink_fills_caller_array)
{
  GstElement *sink = make_sink ();
  PlanArray *a = new_array (PLAN_DTYPE_INT32, 6, 2);
  PlanArray *result;
  GstHarness *h;

  plan_array_sink_set_array (PLAN_ARRAY_SINK (sink), a);
  h = sink_harness (sink, INT32_CAPS ("<6, 2>"), NULL);
  fail_unless_equals_int (push_rows (h, 0, 4, 2), GST_FLOW_OK);
  fail_unless_equals_int (push_rows (h, 4, 2, 2), GST_FLOW_OK);
  fail_unless (push_eos (h));

  check_array (a, 6, 2);
  result = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  fail_unless (result == a);
  g_object_unref (result);
  fail_unless_equals_uint64 (plan_array_sink_get_n_rows (PLAN_ARRAY_SINK
          (sink)), 6);

  teardown_harness (h, NULL);
  gst_object_unref (sink);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_sink_result_only_after_eos)
{
  GstElement *sink = make_sink ();
  PlanArray *result;
  GstHarness *h;

  h = sink_harness (sink, INT32_CAPS ("<2, 2>"), NULL);
  fail_unless_equals_int (push_rows (h, 0, 2, 2), GST_FLOW_OK);
  fail_unless (plan_array_sink_get_array (PLAN_ARRAY_SINK (sink)) == NULL);
  fail_unless (push_eos (h));
  result = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  fail_unless (result != NULL);
  g_object_unref (result);

  teardown_harness (h, NULL);
  gst_object_unref (sink);
}

GST_END_TEST;

GST_START_TEST (test_sink_array_too_small)
{
  GstElement *sink = make_sink ();
  PlanArray *a = new_array (PLAN_DTYPE_INT32, 4, 2);
  GstHarness *h;
  GstBus *bus;

  plan_array_sink_set_array (PLAN_ARRAY_SINK (sink), a);
  h = sink_harness (sink, INT32_CAPS ("<-1, 2>"), &bus);
  fail_unless_equals_int (push_rows (h, 0, 4, 2), GST_FLOW_OK);
  fail_unless_equals_int (push_rows (h, 4, 2, 2), GST_FLOW_ERROR);
  EXPECT_ERROR (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
      "output array of 4 rows is too small: got row 5");

  teardown_harness (h, bus);
  gst_object_unref (sink);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_sink_array_too_large)
{
  GstElement *sink = make_sink ();
  PlanArray *a = new_array (PLAN_DTYPE_INT32, 6, 2);
  GstHarness *h;
  GstBus *bus;

  plan_array_sink_set_array (PLAN_ARRAY_SINK (sink), a);
  h = sink_harness (sink, INT32_CAPS ("<-1, 2>"), &bus);
  fail_unless_equals_int (push_rows (h, 0, 4, 2), GST_FLOW_OK);
  fail_if (push_eos (h));
  EXPECT_ERROR (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
      "output array of 6 rows got only 4 rows");
  fail_unless (plan_array_sink_get_array (PLAN_ARRAY_SINK (sink)) == NULL);

  teardown_harness (h, bus);
  gst_object_unref (sink);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_sink_array_mismatched_dtype)
{
  GstElement *sink = make_sink ();
  PlanArray *a = new_array (PLAN_DTYPE_FLOAT32, 4, 2);
  GstHarness *h;
  GstBus *bus;

  plan_array_sink_set_array (PLAN_ARRAY_SINK (sink), a);
  h = sink_harness (sink, INT32_CAPS ("<4, 2>"), &bus);
  fail_unless_equals_int (push_rows (h, 0, 4, 2), GST_FLOW_NOT_NEGOTIATED);
  EXPECT_ERROR (bus, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "out cannot write", "int32 (4, 2)", "float32 (4, 2)");

  teardown_harness (h, bus);
  gst_object_unref (sink);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_sink_array_mismatched_shape)
{
  GstElement *sink = make_sink ();
  PlanArray *a = new_array (PLAN_DTYPE_INT32, 4, 2);
  GstHarness *h;
  GstBus *bus;

  plan_array_sink_set_array (PLAN_ARRAY_SINK (sink), a);
  h = sink_harness (sink, INT32_CAPS ("<4, 3>"), &bus);
  fail_unless_equals_int (push_rows (h, 0, 4, 3), GST_FLOW_NOT_NEGOTIATED);
  EXPECT_ERROR (bus, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "int32 (4, 3)", "int32 (4, 2)");

  teardown_harness (h, bus);
  gst_object_unref (sink);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_sink_read_only_array_refused_at_start)
{
  GstElement *sink = make_sink ();
  GBytes *bytes = g_bytes_new_take (g_malloc0 (16), 16);
  gint64 shape[] = { 4 };
  PlanArray *a = plan_array_new_from_bytes (bytes, PLAN_DTYPE_INT32, 1,
      shape, NULL);
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (sink, bus);
  plan_array_sink_set_array (PLAN_ARRAY_SINK (sink), a);
  fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  EXPECT_ERROR (bus, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "read-only");
  gst_element_set_state (sink, GST_STATE_NULL);
  gst_element_set_bus (sink, NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  g_object_unref (a);
  g_bytes_unref (bytes);
}

GST_END_TEST;

GST_START_TEST (test_sink_rows_out_of_order)
{
  GstElement *sink = make_sink ();
  GstHarness *h;
  GstBus *bus;

  h = sink_harness (sink, INT32_CAPS ("<-1, 2>"), &bus);
  fail_unless_equals_int (push_rows (h, 0, 2, 2), GST_FLOW_OK);
  fail_unless_equals_int (push_rows (h, 3, 2, 2), GST_FLOW_ERROR);
  EXPECT_ERROR (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
      "rows 3-5 where row 2 was due");

  teardown_harness (h, bus);
  gst_object_unref (sink);
}

GST_END_TEST;

/* Sends a segment selecting rows [start, stop) of the stream (stop -1: to
 * its end), as a source answers a seek in rows. */
static void
push_row_segment (GstHarness * h, guint64 start, gint64 stop)
{
  GstSegment segment;

  gst_segment_init (&segment, GST_FORMAT_DEFAULT);
  segment.start = segment.time = segment.position = start;
  segment.stop = stop < 0 ? GST_CLOCK_TIME_NONE : (guint64) stop;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
}

/* Checks that @a is int32 (@rows, @cols) holding rows @from.. of
 * make_rows()'s stream. */
static void
check_rows (PlanArray * a, guint64 from, gint64 rows, gint64 cols)
{
  const gint32 *v;
  const gint64 *shape;
  guint ndim;
  gint64 i;

  fail_unless (a != NULL);
  shape = plan_array_get_shape (a, &ndim);
  fail_unless_equals_int (ndim, 2);
  fail_unless_equals_int64 (shape[0], rows);
  v = plan_array_get_data (a, NULL);
  for (i = 0; i < rows * cols; i++)
    fail_unless_equals_int (v[i], from * cols + i);
}

/* A seek's range of rows (the segment after a flushing seek) is collected
 * from row 0, its buffers carrying the stream's row indices; its end is
 * the stream's end. gst-validate's seek scenarios through planarraysink
 * failed with "received rows 2500-2600 after 0 rows". */
GST_START_TEST (test_sink_collects_the_rows_a_seek_selects)
{
  GstElement *sink = make_sink ();
  PlanArray *result, *target;
  GstHarness *h;
  GstBus *bus;

  h = sink_harness (sink, INT32_CAPS ("<10, 2>"), &bus);
  push_row_segment (h, 4, 9);
  fail_unless_equals_int (push_rows (h, 4, 3, 2), GST_FLOW_OK);
  fail_unless_equals_int (push_rows (h, 7, 2, 2), GST_FLOW_OK);
  fail_unless (push_eos (h));
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  result = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  check_rows (result, 4, 5, 2);
  g_object_unref (result);

  /* A flush and a seek to rows 2 to the end. */
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  push_row_segment (h, 2, -1);
  fail_unless_equals_int (push_rows (h, 2, 5, 2), GST_FLOW_OK);
  fail_unless_equals_int (push_rows (h, 7, 3, 2), GST_FLOW_OK);
  fail_unless (push_eos (h));
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  result = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  check_rows (result, 2, 8, 2);
  g_object_unref (result);

  /* Fewer rows than the range selects: cut short. */
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  push_row_segment (h, 3, 8);
  fail_unless_equals_int (push_rows (h, 3, 2, 2), GST_FLOW_OK);
  fail_if (push_eos (h));
  EXPECT_ERROR (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
      "ended after 2 of the 5 rows");

  /* Rows that are not the range's: out of order. */
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  push_row_segment (h, 4, -1);
  fail_unless_equals_int (push_rows (h, 5, 2, 2), GST_FLOW_ERROR);
  EXPECT_ERROR (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
      "rows 5-7 where row 4 was due");
  teardown_harness (h, bus);
  gst_object_unref (sink);

  /* Into the caller's array: the range from its row 0. */
  sink = make_sink ();
  target = new_array (PLAN_DTYPE_INT32, 10, 2);
  plan_array_sink_set_array (PLAN_ARRAY_SINK (sink), target);
  h = sink_harness (sink, INT32_CAPS ("<10, 2>"), &bus);
  push_row_segment (h, 3, 6);
  fail_unless_equals_int (push_rows (h, 3, 3, 2), GST_FLOW_OK);
  fail_unless (push_eos (h));
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  result = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  fail_unless (result == target);
  {
    const gint32 *v = plan_array_get_data (target, NULL);
    gint i;

    for (i = 0; i < 6; i++)
      fail_unless_equals_int (v[i], 6 + i);
  }
  g_object_unref (result);
  g_object_unref (target);
  teardown_harness (h, bus);
  gst_object_unref (sink);
}

GST_END_TEST;

GST_START_TEST (test_sink_offset_none_follows_on)
{
  GstElement *sink = make_sink ();
  PlanArray *result;
  GstBuffer *buf;
  GstHarness *h;

  h = sink_harness (sink, INT32_CAPS ("<-1, 2>"), NULL);
  fail_unless_equals_int (push_rows (h, 0, 2, 2), GST_FLOW_OK);
  buf = make_rows (2, 3, 2);
  GST_BUFFER_OFFSET (buf) = GST_BUFFER_OFFSET_NONE;
  GST_BUFFER_OFFSET_END (buf) = GST_BUFFER_OFFSET_NONE;
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  fail_unless (push_eos (h));
  result = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  check_array (result, 5, 2);
  g_object_unref (result);

  teardown_harness (h, NULL);
  gst_object_unref (sink);
}

GST_END_TEST;

/* A writer that records what it was given. */
typedef struct
{
  guint calls;
  guint64 first_rows[8];
  gint64 n_rows[8];
  gboolean writable[8];
  gconstpointer data[8];
  GPtrArray *kept;              /* chunks it keeps a reference to, or NULL */
  const gchar *fail_message;    /* fail on the call after fail_after */
  guint fail_after;
  gboolean fail_with_true;      /* ... setting the error, returning TRUE */
  gboolean freed;
} Writer;

static gboolean
write_chunk (PlanArray * chunk, guint64 first_row, gpointer user_data,
    GError ** error)
{
  Writer *w = user_data;
  guint i = w->calls++;

  fail_unless (i < G_N_ELEMENTS (w->first_rows));
  if (w->fail_message && i == w->fail_after) {
    g_set_error_literal (error, PLAN_ERROR, PLAN_ERROR_IO, w->fail_message);
    return w->fail_with_true;
  }
  w->first_rows[i] = first_row;
  w->n_rows[i] = plan_array_get_n_rows (chunk);
  w->writable[i] = plan_array_is_writable (chunk);
  w->data[i] = plan_array_get_data (chunk, NULL);
  if (w->kept)
    g_ptr_array_add (w->kept, g_object_ref (chunk));
  return TRUE;
}

static void
free_writer (gpointer user_data)
{
  ((Writer *) user_data)->freed = TRUE;
}

static void
set_writer (GstElement * sink, Writer * w)
{
  plan_array_sink_set_writer (PLAN_ARRAY_SINK (sink), write_chunk, w,
      free_writer);
}

GST_START_TEST (test_sink_writer_called_in_row_order)
{
  GstElement *sink = make_sink ();
  GstHarness *h;
  GstBuffer *buf;
  GstMapInfo map;
  Writer w = { 0 };

  set_writer (sink, &w);
  h = sink_harness (sink, INT32_CAPS ("<-1, 2>"), NULL);
  fail_unless_equals_int (push_rows (h, 0, 3, 2), GST_FLOW_OK);
  buf = make_rows (3, 2, 2);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  gst_buffer_unmap (buf, &map);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  fail_unless_equals_int (push_rows (h, 5, 1, 2), GST_FLOW_OK);
  fail_unless (push_eos (h));

  fail_unless_equals_int (w.calls, 3);
  fail_unless_equals_uint64 (w.first_rows[0], 0);
  fail_unless_equals_uint64 (w.first_rows[1], 3);
  fail_unless_equals_uint64 (w.first_rows[2], 5);
  fail_unless_equals_int64 (w.n_rows[0], 3);
  fail_unless_equals_int64 (w.n_rows[1], 2);
  fail_unless_equals_int64 (w.n_rows[2], 1);
  fail_if (w.writable[0]);
  /* No copy: the chunk is the buffer's memory. */
  fail_unless (w.data[1] == map.data);
  fail_unless (plan_array_sink_get_array (PLAN_ARRAY_SINK (sink)) == NULL);
  fail_unless_equals_uint64 (plan_array_sink_get_n_rows (PLAN_ARRAY_SINK
          (sink)), 6);

  teardown_harness (h, NULL);
  gst_object_unref (sink);
  fail_unless (w.freed);
}

GST_END_TEST;

GST_START_TEST (test_sink_writer_may_keep_chunk)
{
  GstElement *sink = make_sink ();
  GstHarness *h;
  GstBuffer *buf;
  PlanArray *chunk;
  Writer w = { 0 };
  const gint32 *v;
  guint i;

  w.kept = g_ptr_array_new_with_free_func (g_object_unref);
  set_writer (sink, &w);
  h = sink_harness (sink, INT32_CAPS ("<-1, 2>"), NULL);
  buf = make_rows (0, 3, 2);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (buf)),
      GST_FLOW_OK);
  /* Ours and the chunk's. */
  ASSERT_BUFFER_REFCOUNT (buf, "buf", 2);
  teardown_harness (h, NULL);
  gst_object_unref (sink);

  chunk = g_ptr_array_index (w.kept, 0);
  v = plan_array_get_data (chunk, NULL);
  for (i = 0; i < 6; i++)
    fail_unless_equals_int (v[i], i);
  g_ptr_array_unref (w.kept);
  ASSERT_BUFFER_REFCOUNT (buf, "buf", 1);
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_sink_writer_error)
{
  GstElement *sink = make_sink ();
  GstHarness *h;
  GstBus *bus;
  Writer w = { 0 };

  w.fail_message = "no room for rows";
  w.fail_after = 1;
  set_writer (sink, &w);
  h = sink_harness (sink, INT32_CAPS ("<-1, 2>"), &bus);
  fail_unless_equals_int (push_rows (h, 0, 3, 2), GST_FLOW_OK);
  fail_unless_equals_int (push_rows (h, 3, 3, 2), GST_FLOW_ERROR);
  EXPECT_ERROR (bus, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE,
      "no room for rows");

  teardown_harness (h, bus);
  gst_object_unref (sink);
}

GST_END_TEST;

/* A writer that sets an error has failed, even when it returns TRUE: the
 * error was dropped and the run went on. */
GST_START_TEST (test_sink_writer_error_returning_true)
{
  GstElement *sink = make_sink ();
  GstHarness *h;
  GstBus *bus;
  Writer w = { 0 };

  w.fail_message = "no room, but TRUE";
  w.fail_after = 1;
  w.fail_with_true = TRUE;
  set_writer (sink, &w);
  h = sink_harness (sink, INT32_CAPS ("<-1, 2>"), &bus);
  fail_unless_equals_int (push_rows (h, 0, 3, 2), GST_FLOW_OK);
  fail_unless_equals_int (push_rows (h, 3, 3, 2), GST_FLOW_ERROR);
  EXPECT_ERROR (bus, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE,
      "no room, but TRUE");

  teardown_harness (h, bus);
  gst_object_unref (sink);
}

GST_END_TEST;

GST_START_TEST (test_sink_allocates_known_length)
{
  GstElement *sink = make_sink ();
  PlanArray *result;
  GstHarness *h;

  h = sink_harness (sink, INT32_CAPS ("<5, 2>"), NULL);
  fail_unless_equals_int (push_rows (h, 0, 2, 2), GST_FLOW_OK);
  fail_unless_equals_int (push_rows (h, 2, 3, 2), GST_FLOW_OK);
  fail_unless (push_eos (h));
  result = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  check_array (result, 5, 2);
  fail_unless (plan_array_is_writable (result));
  g_object_unref (result);

  teardown_harness (h, NULL);
  gst_object_unref (sink);
}

GST_END_TEST;

GST_START_TEST (test_sink_allocate_cut_short_fails)
{
  GstElement *sink = make_sink ();
  GstHarness *h;
  GstBus *bus;

  h = sink_harness (sink, INT32_CAPS ("<5, 2>"), &bus);
  fail_unless_equals_int (push_rows (h, 0, 2, 2), GST_FLOW_OK);
  fail_if (push_eos (h));
  EXPECT_ERROR (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
      "after 2 of the 5 rows");
  fail_unless (plan_array_sink_get_array (PLAN_ARRAY_SINK (sink)) == NULL);

  teardown_harness (h, bus);
  gst_object_unref (sink);
}

GST_END_TEST;

/* An EOS the application sent, as a source marks it (planfilesrc), is no
 * cut: the rows that came are the result, as planfilesink writes them. */
GST_START_TEST (test_sink_allocate_ended_early_keeps_rows_received)
{
  GstElement *sink = make_sink ();
  PlanArray *result;
  GstHarness *h;
  GstBus *bus;

  h = sink_harness (sink, INT32_CAPS ("<5, 2>"), &bus);
  fail_unless_equals_int (push_rows (h, 0, 2, 2), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h,
          plan_eos_mark_ended_early (gst_event_new_eos (), 2)));
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  result = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  fail_unless (result != NULL);
  check_array (result, 2, 2);
  g_object_unref (result);

  teardown_harness (h, bus);
  gst_object_unref (sink);
}

GST_END_TEST;

GST_START_TEST (test_sink_caller_array_ended_early_keeps_rows_received)
{
  GstElement *sink = make_sink ();
  PlanArray *a = new_array (PLAN_DTYPE_INT32, 6, 2);
  PlanArray *result;
  GstHarness *h;
  GstBus *bus;

  plan_array_sink_set_array (PLAN_ARRAY_SINK (sink), a);
  h = sink_harness (sink, INT32_CAPS ("<6, 2>"), &bus);
  fail_unless_equals_int (push_rows (h, 0, 4, 2), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h,
          plan_eos_mark_ended_early (gst_event_new_eos (), 4)));
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  result = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  fail_unless (result == a);
  g_object_unref (result);
  fail_unless_equals_uint64 (plan_array_sink_get_n_rows (PLAN_ARRAY_SINK
          (sink)), 4);

  teardown_harness (h, bus);
  gst_object_unref (sink);
  g_object_unref (a);
}

GST_END_TEST;

static GstPadProbeReturn
answer_duration (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  GstFormat format;

  if (GST_QUERY_TYPE (query) != GST_QUERY_DURATION)
    return GST_PAD_PROBE_OK;
  gst_query_parse_duration (query, &format, NULL);
  if (format != GST_FORMAT_DEFAULT)
    return GST_PAD_PROBE_OK;
  gst_query_set_duration (query, format, 4);
  (*(guint *) user_data)++;
  return GST_PAD_PROBE_HANDLED;
}

GST_START_TEST (test_sink_allocates_from_upstream_duration)
{
  GstElement *sink = make_sink ();
  PlanArray *result;
  GstHarness *h;
  guint asked = 0;

  h = gst_harness_new_with_element (sink, "sink", NULL);
  gst_pad_add_probe (h->srcpad, GST_PAD_PROBE_TYPE_QUERY_UPSTREAM,
      answer_duration, &asked, NULL);
  gst_harness_set_src_caps_str (h, INT32_CAPS ("<-1, 3>"));
  fail_unless_equals_int (push_rows (h, 0, 4, 3), GST_FLOW_OK);
  fail_unless (push_eos (h));
  fail_unless_equals_int (asked, 1);
  result = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  check_array (result, 4, 3);
  g_object_unref (result);

  teardown_harness (h, NULL);
  gst_object_unref (sink);
}

GST_END_TEST;

GST_START_TEST (test_sink_allocate_grows_past_wrong_duration)
{
  GstElement *sink = make_sink ();
  PlanArray *result;
  GstHarness *h;
  guint asked = 0;

  h = gst_harness_new_with_element (sink, "sink", NULL);
  gst_pad_add_probe (h->srcpad, GST_PAD_PROBE_TYPE_QUERY_UPSTREAM,
      answer_duration, &asked, NULL);
  gst_harness_set_src_caps_str (h, INT32_CAPS ("<-1, 3>"));
  fail_unless_equals_int (push_rows (h, 0, 4, 3), GST_FLOW_OK);
  fail_unless_equals_int (push_rows (h, 4, 3, 3), GST_FLOW_OK);
  fail_unless (push_eos (h));
  result = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  check_array (result, 7, 3);
  g_object_unref (result);

  teardown_harness (h, NULL);
  gst_object_unref (sink);
}

GST_END_TEST;

GST_START_TEST (test_sink_allocate_grows_without_length)
{
  GstElement *sink = make_sink ();
  PlanArray *result;
  GstHarness *h;
  guint i;

  /* 50 buffers of 8000 bytes: past the first allocation several times. */
  h = sink_harness (sink, INT32_CAPS ("<-1, 2>"), NULL);
  for (i = 0; i < 50; i++)
    fail_unless_equals_int (push_rows (h, i * 1000, 1000, 2), GST_FLOW_OK);
  fail_unless_equals_int (push_rows (h, 50000, 7, 2), GST_FLOW_OK);
  fail_unless (push_eos (h));
  result = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  check_array (result, 50007, 2);
  g_object_unref (result);

  teardown_harness (h, NULL);
  gst_object_unref (sink);
}

GST_END_TEST;

GST_START_TEST (test_sink_allocate_empty_stream)
{
  GstElement *sink = make_sink ();
  PlanArray *result;
  GstHarness *h;

  h = sink_harness (sink, INT32_CAPS ("<-1, 2>"), NULL);
  fail_unless (push_eos (h));
  result = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  check_array (result, 0, 2);
  g_object_unref (result);

  teardown_harness (h, NULL);
  gst_object_unref (sink);
}

GST_END_TEST;

static GstBuffer *
make_value (gdouble value)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 8, NULL);

  gst_buffer_fill (buf, 0, &value, 8);
  GST_BUFFER_OFFSET (buf) = 0;
  GST_BUFFER_OFFSET_END (buf) = 1;
  return buf;
}

#define SCALAR_CAPS "array/x-raw, dtype=(string)float64, shape=(int)<>"

GST_START_TEST (test_sink_allocate_0d)
{
  GstElement *sink = make_sink ();
  PlanArray *result;
  GstHarness *h;
  guint ndim = 99;

  h = sink_harness (sink, SCALAR_CAPS, NULL);
  fail_unless_equals_int (gst_harness_push (h, make_value (2.5)), GST_FLOW_OK);
  fail_unless (push_eos (h));
  result = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  fail_unless (result != NULL);
  plan_array_get_shape (result, &ndim);
  fail_unless_equals_int (ndim, 0);
  fail_unless_equals_int (plan_array_get_size (result), 8);
  fail_unless_equals_float (*(const gdouble *) plan_array_get_data (result,
          NULL), 2.5);
  g_object_unref (result);

  teardown_harness (h, NULL);
  gst_object_unref (sink);
}

GST_END_TEST;

GST_START_TEST (test_sink_caller_array_0d)
{
  GstElement *sink = make_sink ();
  PlanArray *a = plan_array_new (PLAN_DTYPE_FLOAT64, 0, NULL, NULL);
  GstHarness *h;

  plan_array_sink_set_array (PLAN_ARRAY_SINK (sink), a);
  h = sink_harness (sink, SCALAR_CAPS, NULL);
  fail_unless_equals_int (gst_harness_push (h, make_value (-1.25)),
      GST_FLOW_OK);
  fail_unless (push_eos (h));
  fail_unless_equals_float (*(const gdouble *) plan_array_get_data (a, NULL),
      -1.25);

  teardown_harness (h, NULL);
  gst_object_unref (sink);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_sink_writer_0d)
{
  GstElement *sink = make_sink ();
  GstHarness *h;
  Writer w = { 0 };

  set_writer (sink, &w);
  h = sink_harness (sink, SCALAR_CAPS, NULL);
  fail_unless_equals_int (gst_harness_push (h, make_value (3.0)), GST_FLOW_OK);
  fail_unless (push_eos (h));
  fail_unless_equals_int (w.calls, 1);
  fail_unless_equals_uint64 (w.first_rows[0], 0);
  fail_unless_equals_int64 (w.n_rows[0], 1);

  teardown_harness (h, NULL);
  gst_object_unref (sink);
}

GST_END_TEST;

GST_START_TEST (test_sink_0d_stream_holds_one_value)
{
  GstElement *sink = make_sink ();
  GstHarness *h;
  GstBus *bus;
  GstBuffer *buf;

  h = sink_harness (sink, SCALAR_CAPS, &bus);
  fail_unless_equals_int (gst_harness_push (h, make_value (1.0)), GST_FLOW_OK);
  buf = make_value (2.0);
  GST_BUFFER_OFFSET (buf) = 1;
  GST_BUFFER_OFFSET_END (buf) = 2;
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  EXPECT_ERROR (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED, "0-d");

  teardown_harness (h, bus);
  gst_object_unref (sink);
}

GST_END_TEST;

GST_START_TEST (test_sink_sync_and_async_off)
{
  GstElement *sink = make_sink ();
  gboolean sync, async, last_sample;

  g_object_get (sink, "sync", &sync, "async", &async, "enable-last-sample",
      &last_sample, NULL);
  fail_if (sync);
  fail_if (async);
  fail_if (last_sample);
  gst_object_unref (sink);
}

GST_END_TEST;

/* Runs @pipeline to EOS and back to READY. */
static void
run_to_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_object_unref (bus);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
}

/* An int32 array of @rows x @cols holding @first, @first + 1, ... */
static PlanArray *
counting_array (gint64 rows, gint64 cols, gint32 first)
{
  PlanArray *a = new_array (PLAN_DTYPE_INT32, rows, cols);
  gint32 *v = plan_array_get_writable_data (a, NULL);
  gint64 i;

  for (i = 0; i < rows * cols; i++)
    v[i] = first + i;
  return a;
}

GST_START_TEST (test_sink_reuse_across_two_runs)
{
  GstElement *pipeline = gst_parse_launch ("planarraysrc name=in "
      "blocksize=16 ! planarraysink name=out", NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "in");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  PlanArray *in1 = counting_array (5, 2, 0);
  PlanArray *in2 = counting_array (3, 2, 0);
  PlanArray *out1, *out2;

  plan_array_src_set_array (PLAN_ARRAY_SRC (src), in1);
  run_to_eos (pipeline);
  out1 = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  check_array (out1, 5, 2);
  /* Kept after the run stopped. */
  fail_unless_equals_uint64 (plan_array_sink_get_n_rows (PLAN_ARRAY_SINK
          (sink)), 5);

  plan_array_src_set_array (PLAN_ARRAY_SRC (src), in2);
  run_to_eos (pipeline);
  out2 = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  fail_unless (out2 != out1);
  check_array (out2, 3, 2);
  check_array (out1, 5, 2);
  fail_unless_equals_uint64 (plan_array_sink_get_n_rows (PLAN_ARRAY_SINK
          (sink)), 3);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  g_object_unref (out1);
  g_object_unref (out2);
  g_object_unref (in1);
  g_object_unref (in2);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

GST_END_TEST;

GST_START_TEST (test_sink_fills_caller_array_from_source)
{
  GstElement *pipeline = gst_parse_launch ("planarraysrc name=in "
      "blocksize=24 ! planarraysink name=out", NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "in");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  PlanArray *in = counting_array (7, 2, 0);
  PlanArray *out = new_array (PLAN_DTYPE_INT32, 7, 2);

  plan_array_src_set_array (PLAN_ARRAY_SRC (src), in);
  plan_array_sink_set_array (PLAN_ARRAY_SINK (sink), out);
  run_to_eos (pipeline);
  check_array (out, 7, 2);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  g_object_unref (in);
  g_object_unref (out);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A flush takes back the sink's EOS message that the pipeline still holds
 * (posted while the pipeline went to PAUSED): PLAYING after the flush
 * posts no EOS from before it. */
GST_START_TEST (test_sink_flush_forgets_eos_held_by_the_pipeline)
{
  GstElement *p = gst_pipeline_new ("p");
  GstElement *sink = make_sink ();
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstMessage *eos = gst_message_new_eos (GST_OBJECT (sink));

  gst_bin_add (GST_BIN (p), sink);
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PAUSED),
      GST_STATE_CHANGE_SUCCESS);
  gst_message_set_seqnum (eos, 4242);
  fail_unless (gst_element_post_message (sink, eos));
  fail_unless (gst_pad_send_event (pad, gst_event_new_flush_start ()));
  fail_unless (gst_pad_send_event (pad, gst_event_new_flush_stop (TRUE)));
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PLAYING),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_bus_pop_filtered (GST_ELEMENT_BUS (p),
          GST_MESSAGE_EOS) == NULL, "the EOS from before the flush");
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (p);
}

GST_END_TEST;

static Suite *
planarraysink_suite (void)
{
  Suite *s = suite_create ("planarraysink");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_sink_fills_caller_array);
  tcase_add_test (tc, test_sink_result_only_after_eos);
  tcase_add_test (tc, test_sink_array_too_small);
  tcase_add_test (tc, test_sink_array_too_large);
  tcase_add_test (tc, test_sink_array_mismatched_dtype);
  tcase_add_test (tc, test_sink_array_mismatched_shape);
  tcase_add_test (tc, test_sink_read_only_array_refused_at_start);
  tcase_add_test (tc, test_sink_rows_out_of_order);
  tcase_add_test (tc, test_sink_offset_none_follows_on);
  tcase_add_test (tc, test_sink_writer_called_in_row_order);
  tcase_add_test (tc, test_sink_writer_may_keep_chunk);
  tcase_add_test (tc, test_sink_writer_error);
  tcase_add_test (tc, test_sink_writer_error_returning_true);
  tcase_add_test (tc, test_sink_allocates_known_length);
  tcase_add_test (tc, test_sink_allocate_cut_short_fails);
  tcase_add_test (tc, test_sink_allocate_ended_early_keeps_rows_received);
  tcase_add_test (tc, test_sink_caller_array_ended_early_keeps_rows_received);
  tcase_add_test (tc, test_sink_allocates_from_upstream_duration);
  tcase_add_test (tc, test_sink_allocate_grows_past_wrong_duration);
  tcase_add_test (tc, test_sink_allocate_grows_without_length);
  tcase_add_test (tc, test_sink_allocate_empty_stream);
  tcase_add_test (tc, test_sink_allocate_0d);
  tcase_add_test (tc, test_sink_caller_array_0d);
  tcase_add_test (tc, test_sink_writer_0d);
  tcase_add_test (tc, test_sink_0d_stream_holds_one_value);
  tcase_add_test (tc, test_sink_sync_and_async_off);
  tcase_add_test (tc, test_sink_reuse_across_two_runs);
  tcase_add_test (tc, test_sink_fills_caller_array_from_source);
  tcase_add_test (tc, test_sink_flush_forgets_eos_held_by_the_pipeline);
  tcase_add_test (tc, test_sink_collects_the_rows_a_seek_selects);
  return s;
}

GST_CHECK_MAIN (planarraysink);
