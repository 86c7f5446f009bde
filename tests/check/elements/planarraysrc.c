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

static void
set_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
}

/* An int32 array of @rows x @cols whose element i is i. */
static PlanArray *
make_array (gint64 rows, gint64 cols)
{
  gint64 shape[] = { rows, cols };
  PlanArray *a = plan_array_new (PLAN_DTYPE_INT32, 2, shape, NULL);
  gint32 *v = plan_array_get_writable_data (a, NULL);
  gint64 i;

  for (i = 0; i < rows * cols; i++)
    v[i] = i;
  return a;
}

static void
count_handoff (guint64 * count)
{
  (*count)++;
}

static GstElement *
make_src (void)
{
  GstElement *src = gst_element_factory_make ("planarraysrc", "in");

  fail_unless (src != NULL);
  return src;
}

/* A harness around @src, playing, with a bus of its own. */
static GstHarness *
src_harness (GstElement * src, GstBus ** bus)
{
  GstHarness *h = gst_harness_new_with_element (src, NULL, "src");

  if (bus) {
    *bus = gst_bus_new ();
    gst_element_set_bus (h->element, *bus);
  }
  gst_harness_play (h);
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

/* Pulls events until EOS; fails on a buffer before it. */
static void
expect_eos (GstHarness * h)
{
  GstEvent *event;

  for (;;) {
    event = gst_harness_pull_event (h);
    fail_unless (event != NULL);
    if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
      break;
    gst_event_unref (event);
  }
  gst_event_unref (event);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
}

static GstBuffer *
pull_rows (GstHarness * h, guint64 first, guint64 end)
{
  GstBuffer *buf = gst_harness_pull (h);

  fail_unless (buf != NULL);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), first);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), end);
  return buf;
}

/* Checks that @buf holds int32 elements start..start+n-1. */
static void
check_values (GstBuffer * buf, gint32 start, gsize n)
{
  GstMapInfo map;
  gsize i;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, n * 4);
  for (i = 0; i < n; i++)
    fail_unless_equals_int (((const gint32 *) map.data)[i], start + i);
  gst_buffer_unmap (buf, &map);
}

static void
expect_error (GstBus * bus, GQuark domain, gint code,
    const gchar * const *parts)
{
  GstMessage *msg;
  GError *err = NULL;

  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_ERROR);
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

GST_START_TEST (test_src_array_pushes_rows_with_offsets)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (10, 2);
  GstHarness *h;
  GstBuffer *buf;

  /* 3 rows of 8 bytes a buffer. */
  g_object_set (src, "blocksize", 24, NULL);
  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  h = src_harness (src, NULL);

  buf = pull_rows (h, 0, 3);
  check_values (buf, 0, 6);
  gst_buffer_unref (buf);
  buf = pull_rows (h, 3, 6);
  check_values (buf, 6, 6);
  gst_buffer_unref (buf);
  buf = pull_rows (h, 6, 9);
  check_values (buf, 12, 6);
  gst_buffer_unref (buf);
  buf = pull_rows (h, 9, 10);
  check_values (buf, 18, 2);
  gst_buffer_unref (buf);
  expect_eos (h);

  teardown_harness (h, NULL);
  gst_object_unref (src);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_src_array_caps)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (10, 2);
  GstCaps *caps, *expected;
  GstHarness *h;

  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  h = src_harness (src, NULL);
  gst_buffer_unref (gst_harness_pull (h));
  caps = gst_pad_get_current_caps (h->sinkpad);
  expected = gst_caps_from_string ("array/x-raw, dtype=(string)int32, "
      "shape=(int)<10, 2>");
  fail_unless (gst_caps_is_equal (caps, expected), "%" GST_PTR_FORMAT, caps);
  gst_caps_unref (expected);
  gst_caps_unref (caps);

  teardown_harness (h, NULL);
  gst_object_unref (src);
  g_object_unref (a);
}

GST_END_TEST;

/* Arrays have no rate: a caps filter asking for one is refused with one
 * negotiation error naming the caps on both sides, and no buffer is sent
 * under caps that would claim rows sampled in time. */
GST_START_TEST (test_src_refuses_a_rate_asked_downstream)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstElement *src = make_src ();
  GstElement *filter = gst_element_factory_make ("capsfilter", "rated");
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  PlanArray *a = make_array (10, 2);
  GstCaps *caps = gst_caps_from_string ("array/x-raw, rate=100/1");
  GstBus *bus = gst_element_get_bus (pipeline);
  guint64 handoffs = 0;

  g_object_set (filter, "caps", caps, NULL);
  gst_caps_unref (caps);
  g_object_set (sink, "signal-handoffs", TRUE, NULL);
  g_signal_connect_swapped (sink, "handoff", G_CALLBACK (count_handoff),
      &handoffs);
  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  gst_bin_add_many (GST_BIN (pipeline), src, filter, sink, NULL);
  fail_unless (gst_element_link_many (src, filter, sink, NULL));
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  EXPECT_ERROR (bus, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "dtype=(string)int32", "rated", "rate=(fraction)100/1");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  fail_unless_equals_uint64 (handoffs, 0);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_src_buffers_wrap_array_memory)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (10, 2);
  const guint8 *data = plan_array_get_data (a, NULL);
  gboolean finalized = FALSE;
  GstHarness *h;
  GstBuffer *buf;
  GstMapInfo map;

  g_object_set_qdata_full (G_OBJECT (a),
      g_quark_from_static_string ("test-finalized"), &finalized, set_flag);
  g_object_set (src, "blocksize", 32, NULL);
  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  g_object_unref (a);
  h = src_harness (src, NULL);

  gst_buffer_unref (pull_rows (h, 0, 4));
  buf = pull_rows (h, 4, 8);
  fail_unless (GST_MEMORY_IS_READONLY (gst_buffer_peek_memory (buf, 0)));
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless (map.data == data + 4 * 8);
  gst_buffer_unmap (buf, &map);

  /* The buffer keeps the array alive after the source let it go. */
  teardown_harness (h, NULL);
  gst_object_unref (src);
  fail_if (finalized);
  gst_buffer_unref (buf);
  fail_unless (finalized);
}

GST_END_TEST;

GST_START_TEST (test_src_blocksize_rounds_down_to_rows)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (5, 2);
  GstHarness *h;

  /* 20 bytes is 2.5 rows of 8 bytes. */
  g_object_set (src, "blocksize", 20, NULL);
  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  h = src_harness (src, NULL);
  gst_buffer_unref (pull_rows (h, 0, 2));
  gst_buffer_unref (pull_rows (h, 2, 4));
  gst_buffer_unref (pull_rows (h, 4, 5));
  expect_eos (h);

  teardown_harness (h, NULL);
  gst_object_unref (src);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_src_blocksize_is_at_least_one_row)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (2, 4);
  GstHarness *h;

  g_object_set (src, "blocksize", 1, NULL);
  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  h = src_harness (src, NULL);
  gst_buffer_unref (pull_rows (h, 0, 1));
  gst_buffer_unref (pull_rows (h, 1, 2));
  expect_eos (h);

  teardown_harness (h, NULL);
  gst_object_unref (src);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_src_default_blocksize_is_32_mib)
{
  GstElement *src = make_src ();
  /* 12 Mi rows of 4 bytes: 48 MiB. */
  PlanArray *a = make_array (12 << 20, 1);
  GstHarness *h;

  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  h = src_harness (src, NULL);
  gst_buffer_unref (pull_rows (h, 0, 8 << 20));
  gst_buffer_unref (pull_rows (h, 8 << 20, 12 << 20));
  expect_eos (h);

  teardown_harness (h, NULL);
  gst_object_unref (src);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_src_0d_array_is_one_buffer)
{
  GstElement *src = make_src ();
  PlanArray *a = plan_array_new (PLAN_DTYPE_FLOAT64, 0, NULL, NULL);
  GstCaps *caps, *expected;
  GstHarness *h;
  GstBuffer *buf;
  gdouble value;

  *(gdouble *) plan_array_get_writable_data (a, NULL) = 4.5;
  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  h = src_harness (src, NULL);
  buf = pull_rows (h, 0, 1);
  fail_unless_equals_int (gst_buffer_get_size (buf), 8);
  gst_buffer_extract (buf, 0, &value, 8);
  fail_unless_equals_float (value, 4.5);
  gst_buffer_unref (buf);
  caps = gst_pad_get_current_caps (h->sinkpad);
  expected = gst_caps_from_string ("array/x-raw, dtype=(string)float64, "
      "shape=(int)<>");
  fail_unless (gst_caps_is_equal (caps, expected), "%" GST_PTR_FORMAT, caps);
  gst_caps_unref (expected);
  gst_caps_unref (caps);
  expect_eos (h);

  teardown_harness (h, NULL);
  gst_object_unref (src);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_src_empty_array_sends_only_eos)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (0, 3);
  GstHarness *h;

  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  h = src_harness (src, NULL);
  expect_eos (h);

  teardown_harness (h, NULL);
  gst_object_unref (src);
  g_object_unref (a);
}

GST_END_TEST;

/* A reader that returns the arrays it was given, in order, then NULL. */
typedef struct
{
  GPtrArray *chunks;
  guint calls;
  guint64 first_rows[16];
  const gchar *fail_message;    /* fail on the call after the chunks */
  gboolean fail_with_chunk;     /* ... returning its first chunk again */
  gboolean freed;
} Reader;

static PlanArray *
read_chunk (guint64 first_row, gpointer user_data, GError ** error)
{
  Reader *r = user_data;
  guint i = r->calls++;

  fail_unless (i < G_N_ELEMENTS (r->first_rows));
  r->first_rows[i] = first_row;
  if (i < r->chunks->len)
    return g_object_ref (g_ptr_array_index (r->chunks, i));
  if (r->fail_message)
    g_set_error_literal (error, PLAN_ERROR, PLAN_ERROR_IO, r->fail_message);
  if (r->fail_message && r->fail_with_chunk)
    return g_object_ref (g_ptr_array_index (r->chunks, 0));
  return NULL;
}

static void
free_reader (gpointer user_data)
{
  ((Reader *) user_data)->freed = TRUE;
}

static void
reader_init (Reader * r)
{
  memset (r, 0, sizeof (*r));
  r->chunks = g_ptr_array_new_with_free_func (g_object_unref);
}

static void
reader_clear (Reader * r)
{
  g_ptr_array_unref (r->chunks);
}

static void
set_reader (GstElement * src, Reader * r, PlanDType dtype, gint64 rows,
    gint64 cols)
{
  PlanArrayInfo info;
  gint64 shape[] = { rows, cols };

  fail_unless (plan_array_info_set (&info, dtype, 2, shape, NULL));
  plan_array_src_set_reader (PLAN_ARRAY_SRC (src), &info, read_chunk, r,
      free_reader);
}

GST_START_TEST (test_src_reader_chunks_in_row_order)
{
  GstElement *src = make_src ();
  GstCaps *caps, *expected;
  GstHarness *h;
  GstBuffer *buf;
  GstMapInfo map;
  Reader r;

  reader_init (&r);
  g_ptr_array_add (r.chunks, make_array (3, 2));
  g_ptr_array_add (r.chunks, make_array (2, 2));
  set_reader (src, &r, PLAN_DTYPE_INT32, -1, 2);
  h = src_harness (src, NULL);

  buf = pull_rows (h, 0, 3);
  check_values (buf, 0, 6);
  /* No copy: the buffer is the reader's array. */
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless (map.data == plan_array_get_data (g_ptr_array_index (r.chunks,
              0), NULL));
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  buf = pull_rows (h, 3, 5);
  check_values (buf, 0, 4);
  gst_buffer_unref (buf);
  expect_eos (h);
  fail_unless_equals_int (r.calls, 3);
  fail_unless_equals_uint64 (r.first_rows[0], 0);
  fail_unless_equals_uint64 (r.first_rows[1], 3);
  fail_unless_equals_uint64 (r.first_rows[2], 5);

  caps = gst_pad_get_current_caps (h->sinkpad);
  expected = gst_caps_from_string ("array/x-raw, dtype=(string)int32, "
      "shape=(int)<-1, 2>");
  fail_unless (gst_caps_is_equal (caps, expected), "%" GST_PTR_FORMAT, caps);
  gst_caps_unref (expected);
  gst_caps_unref (caps);

  teardown_harness (h, NULL);
  gst_object_unref (src);
  fail_unless (r.freed);
  reader_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_src_reader_empty_chunk_ends_stream)
{
  GstElement *src = make_src ();
  GstHarness *h;
  Reader r;

  /* An array of no rows is the end, as NULL is: the reader is not called
   * again (a reader returning empty arrays for ever would otherwise keep
   * the source spinning). */
  reader_init (&r);
  g_ptr_array_add (r.chunks, make_array (2, 2));
  g_ptr_array_add (r.chunks, make_array (0, 2));
  g_ptr_array_add (r.chunks, make_array (1, 2));
  set_reader (src, &r, PLAN_DTYPE_INT32, -1, 2);
  h = src_harness (src, NULL);

  gst_buffer_unref (pull_rows (h, 0, 2));
  expect_eos (h);
  fail_unless_equals_int (r.calls, 2);
  fail_unless_equals_uint64 (r.first_rows[1], 2);

  teardown_harness (h, NULL);
  gst_object_unref (src);
  reader_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_src_reader_empty_chunk_before_total_is_error)
{
  GstElement *src = make_src ();
  GstHarness *h;
  GstBus *bus;
  Reader r;

  reader_init (&r);
  g_ptr_array_add (r.chunks, make_array (2, 2));
  g_ptr_array_add (r.chunks, make_array (0, 2));
  set_reader (src, &r, PLAN_DTYPE_INT32, 5, 2);
  h = src_harness (src, &bus);

  EXPECT_ERROR (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
      "ended the stream after 2 of the 5 rows");

  teardown_harness (h, bus);
  gst_object_unref (src);
  reader_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_src_reader_refilled_buffer_is_error)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (3, 2);
  GstBuffer *held;
  GstHarness *h;
  GstBus *bus;
  Reader r;

  /* The same array returned again while the plan still holds the rows it
   * returned first (here: the harness's queue, and `held`). */
  reader_init (&r);
  g_ptr_array_add (r.chunks, g_object_ref (a));
  g_ptr_array_add (r.chunks, g_object_ref (a));
  set_reader (src, &r, PLAN_DTYPE_INT32, -1, 2);
  h = src_harness (src, &bus);

  held = pull_rows (h, 0, 3);
  EXPECT_ERROR (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
      "reader of in", "at row 3", "rows it returned at row 0 still use",
      "copy");
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  gst_buffer_unref (held);

  teardown_harness (h, bus);
  gst_object_unref (src);
  reader_clear (&r);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_src_reader_views_of_one_array_are_not_reuse)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (6, 2);
  GstHarness *h;
  Reader r;

  /* Rows 0-2 and 3-5 of one array: the same allocation, no overlap. */
  reader_init (&r);
  g_ptr_array_add (r.chunks, plan_array_new_rows (a, 0, 3, NULL));
  g_ptr_array_add (r.chunks, plan_array_new_rows (a, 3, 3, NULL));
  set_reader (src, &r, PLAN_DTYPE_INT32, -1, 2);
  h = src_harness (src, NULL);

  gst_buffer_unref (pull_rows (h, 0, 3));
  gst_buffer_unref (pull_rows (h, 3, 6));
  expect_eos (h);

  teardown_harness (h, NULL);
  gst_object_unref (src);
  reader_clear (&r);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_src_reader_known_total_ends_without_another_call)
{
  GstElement *src = make_src ();
  GstHarness *h;
  Reader r;

  reader_init (&r);
  g_ptr_array_add (r.chunks, make_array (3, 2));
  g_ptr_array_add (r.chunks, make_array (2, 2));
  set_reader (src, &r, PLAN_DTYPE_INT32, 5, 2);
  h = src_harness (src, NULL);

  gst_buffer_unref (pull_rows (h, 0, 3));
  gst_buffer_unref (pull_rows (h, 3, 5));
  expect_eos (h);
  fail_unless_equals_int (r.calls, 2);

  teardown_harness (h, NULL);
  gst_object_unref (src);
  reader_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_src_reader_error_is_element_error)
{
  GstElement *src = make_src ();
  GstHarness *h;
  GstBus *bus;
  Reader r;

  reader_init (&r);
  g_ptr_array_add (r.chunks, make_array (3, 2));
  r.fail_message = "the disk is on fire";
  set_reader (src, &r, PLAN_DTYPE_INT32, -1, 2);
  h = src_harness (src, &bus);

  gst_buffer_unref (pull_rows (h, 0, 3));
  EXPECT_ERROR (bus, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
      "the disk is on fire");

  teardown_harness (h, bus);
  gst_object_unref (src);
  reader_clear (&r);
}

GST_END_TEST;

/* A reader that sets an error and returns an array too has failed: its
 * error is the element's, and the array is not pushed (nor leaked). The
 * array was pushed and the error dropped. */
GST_START_TEST (test_src_reader_error_with_an_array_is_element_error)
{
  GstElement *src = make_src ();
  GstHarness *h;
  GstBus *bus;
  Reader r;

  reader_init (&r);
  g_ptr_array_add (r.chunks, make_array (3, 2));
  r.fail_message = "failed, and returned rows anyway";
  r.fail_with_chunk = TRUE;
  set_reader (src, &r, PLAN_DTYPE_INT32, -1, 2);
  h = src_harness (src, &bus);

  gst_buffer_unref (pull_rows (h, 0, 3));
  EXPECT_ERROR (bus, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
      "failed, and returned rows anyway");
  fail_unless_equals_int (r.calls, 2);

  teardown_harness (h, bus);
  gst_object_unref (src);
  reader_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_src_reader_wrong_dtype_is_format_error)
{
  GstElement *src = make_src ();
  gint64 shape[] = { 4, 2 };
  GstHarness *h;
  GstBus *bus;
  Reader r;

  reader_init (&r);
  g_ptr_array_add (r.chunks, plan_array_new (PLAN_DTYPE_FLOAT64, 2, shape,
          NULL));
  set_reader (src, &r, PLAN_DTYPE_FLOAT32, -1, 2);
  h = src_harness (src, &bus);

  EXPECT_ERROR (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, "reader of in",
      "float64 (4, 2)", "float32 (-1, 2)");
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);

  teardown_harness (h, bus);
  gst_object_unref (src);
  reader_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_src_reader_wrong_shape_is_format_error)
{
  GstElement *src = make_src ();
  GstHarness *h;
  GstBus *bus;
  Reader r;

  reader_init (&r);
  g_ptr_array_add (r.chunks, make_array (4, 3));
  set_reader (src, &r, PLAN_DTYPE_INT32, -1, 2);
  h = src_harness (src, &bus);

  EXPECT_ERROR (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "int32 (4, 3)", "int32 (-1, 2)");

  teardown_harness (h, bus);
  gst_object_unref (src);
  reader_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_src_reader_beyond_declared_total_is_format_error)
{
  GstElement *src = make_src ();
  GstHarness *h;
  GstBus *bus;
  Reader r;

  reader_init (&r);
  g_ptr_array_add (r.chunks, make_array (3, 2));
  g_ptr_array_add (r.chunks, make_array (3, 2));
  set_reader (src, &r, PLAN_DTYPE_INT32, 5, 2);
  h = src_harness (src, &bus);

  gst_buffer_unref (pull_rows (h, 0, 3));
  EXPECT_ERROR (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "int32 (3, 2)", "int32 (5, 2)");

  teardown_harness (h, bus);
  gst_object_unref (src);
  reader_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_src_reader_ending_before_declared_total_fails)
{
  GstElement *src = make_src ();
  GstHarness *h;
  GstBus *bus;
  Reader r;

  reader_init (&r);
  g_ptr_array_add (r.chunks, make_array (3, 2));
  set_reader (src, &r, PLAN_DTYPE_INT32, 5, 2);
  h = src_harness (src, &bus);

  gst_buffer_unref (pull_rows (h, 0, 3));
  EXPECT_ERROR (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
      "after 3 of the 5 rows");

  teardown_harness (h, bus);
  gst_object_unref (src);
  reader_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_src_reader_replaced_is_notified)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (1, 1);
  Reader r;

  reader_init (&r);
  set_reader (src, &r, PLAN_DTYPE_INT32, -1, 2);
  fail_if (r.freed);
  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  fail_unless (r.freed);
  gst_object_unref (src);
  g_object_unref (a);
  reader_clear (&r);
}

GST_END_TEST;

static void
count_critical (const gchar * domain, GLogLevelFlags level,
    const gchar * message, gpointer user_data)
{
  (*(guint *) user_data)++;
}

/* The fields of a PlanArrayInfo are public, so a caller can declare rows
 * of no bytes (an inner axis of 0) without plan_array_info_set(); that is
 * refused at binding, where it divided by the row size at start. */
GST_START_TEST (test_src_reader_with_empty_inner_axis_is_refused)
{
  GstElement *src = make_src ();
  GstBus *bus = gst_bus_new ();
  PlanArrayInfo info;
  guint criticals = 0, id;
  Reader r;

  plan_array_info_init (&info);
  info.dtype = PLAN_DTYPE_FLOAT32;
  info.ndim = 2;
  info.shape[0] = -1;
  info.shape[1] = 0;
  reader_init (&r);
  id = g_log_set_handler ("Plan", G_LOG_LEVEL_CRITICAL, count_critical,
      &criticals);
  plan_array_src_set_reader (PLAN_ARRAY_SRC (src), &info, read_chunk, &r,
      free_reader);
  g_log_remove_handler ("Plan", id);
  fail_unless_equals_int (criticals, 1);
  fail_if (r.freed);
  gst_element_set_bus (src, bus);
  fail_unless_equals_int (gst_element_set_state (src, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  EXPECT_ERROR (bus, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "planarraysrc in has no array or reader bound");
  fail_unless_equals_int (r.calls, 0);
  gst_element_set_state (src, GST_STATE_NULL);
  gst_element_set_bus (src, NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  reader_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_src_without_binding_fails_to_start)
{
  GstElement *src = make_src ();
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (src, bus);
  fail_unless_equals_int (gst_element_set_state (src, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  EXPECT_ERROR (bus, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "planarraysrc in has no array or reader bound");
  /* That one only: not GstBaseSrc's "state change failed and some element
   * failed to post a proper error message" after it. */
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  gst_element_set_state (src, GST_STATE_NULL);
  /* Bound, the same element starts. */
  {
    PlanArray *a = make_array (4, 1);
    GstHarness *h;

    plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
    h = src_harness (src, NULL);
    gst_buffer_unref (pull_rows (h, 0, 4));
    expect_eos (h);
    teardown_harness (h, NULL);
    g_object_unref (a);
  }
  gst_element_set_bus (src, NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
}

GST_END_TEST;

GST_START_TEST (test_src_get_info)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (7, 3);
  PlanArrayInfo info;
  Reader r;

  fail_if (plan_array_src_get_info (PLAN_ARRAY_SRC (src), &info));
  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  fail_unless (plan_array_src_get_info (PLAN_ARRAY_SRC (src), &info));
  fail_unless_equals_int (info.dtype, PLAN_DTYPE_INT32);
  fail_unless_equals_int64 (info.shape[0], 7);
  fail_unless_equals_int64 (info.shape[1], 3);

  reader_init (&r);
  set_reader (src, &r, PLAN_DTYPE_FLOAT32, -1, 4);
  fail_unless (plan_array_src_get_info (PLAN_ARRAY_SRC (src), &info));
  fail_unless_equals_int (info.dtype, PLAN_DTYPE_FLOAT32);
  fail_unless_equals_int64 (info.shape[0], -1);
  fail_unless_equals_int64 (info.shape[1], 4);

  gst_object_unref (src);
  g_object_unref (a);
  reader_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_src_duration_in_rows_and_bytes)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (10, 2);
  gint64 duration;

  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  fail_unless (gst_element_query_duration (src, GST_FORMAT_DEFAULT, &duration));
  fail_unless_equals_int64 (duration, 10);
  fail_unless (gst_element_query_duration (src, GST_FORMAT_BYTES, &duration));
  fail_unless_equals_int64 (duration, 80);
  fail_if (gst_element_query_duration (src, GST_FORMAT_TIME, &duration));
  gst_object_unref (src);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_src_duration_unknown_for_open_reader)
{
  GstElement *src = make_src ();
  gint64 duration;
  Reader r;

  reader_init (&r);
  set_reader (src, &r, PLAN_DTYPE_INT32, -1, 2);
  fail_if (gst_element_query_duration (src, GST_FORMAT_DEFAULT, &duration));
  set_reader (src, &r, PLAN_DTYPE_INT32, 6, 2);
  fail_unless (gst_element_query_duration (src, GST_FORMAT_DEFAULT, &duration));
  fail_unless_equals_int64 (duration, 6);
  gst_object_unref (src);
  reader_clear (&r);
}

GST_END_TEST;

static gboolean
query_seekable (GstElement * src)
{
  GstQuery *q = gst_query_new_seeking (GST_FORMAT_DEFAULT);
  gboolean seekable = FALSE;

  fail_unless (gst_element_query (src, q));
  gst_query_parse_seeking (q, NULL, &seekable, NULL, NULL);
  gst_query_unref (q);
  return seekable;
}

/* With an array, a seek in rows streams the rows asked for, from the
 * array bound then, even after the end of the stream. */
GST_START_TEST (test_src_seeks_in_rows_with_array)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (10, 1);
  GstHarness *h;
  GstBuffer *buf;

  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  h = src_harness (src, NULL);
  gst_buffer_unref (pull_rows (h, 0, 10));
  expect_eos (h);
  fail_unless (query_seekable (src));

  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, 3, GST_SEEK_TYPE_SET, 7)));
  buf = pull_rows (h, 3, 7);
  check_values (buf, 3, 4);
  gst_buffer_unref (buf);
  expect_eos (h);

  /* Past the end: refused, and nothing else is pushed. */
  fail_if (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, 11, GST_SEEK_TYPE_SET, -1)));

  teardown_harness (h, NULL);
  gst_object_unref (src);
  g_object_unref (a);
}

GST_END_TEST;

/* The first buffer after a flushing seek: what was pushed before the seek
 * reached the source (and its EOS) is dropped. */
static GstBuffer *
pull_after_seek (GstHarness * h, GstSeekFlags flags, GstSeekType start_type,
    gint64 start, GstSeekType stop_type, gint64 stop)
{
  GstBuffer *buf;

  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, GST_FORMAT_DEFAULT,
              GST_SEEK_FLAG_FLUSH | flags, start_type, start, stop_type,
              stop)));
  do {
    buf = gst_harness_pull (h);
    fail_unless (buf != NULL);
    if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT))
      break;
    gst_buffer_unref (buf);
  } while (TRUE);
  return buf;
}

/* A seek from the end (GST_SEEK_TYPE_END, an offset back from the last
 * row) selects the last rows, for the start and for the stop, as
 * planfilesrc's does; one that reaches before the first row is refused. */
GST_START_TEST (test_src_seeks_from_the_end)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (10, 1);
  GstHarness *h;
  GstBuffer *buf;

  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  h = src_harness (src, NULL);
  gst_buffer_unref (pull_rows (h, 0, 10));
  expect_eos (h);

  buf = pull_after_seek (h, 0, GST_SEEK_TYPE_END, -3, GST_SEEK_TYPE_NONE, -1);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), 7);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), 10);
  check_values (buf, 7, 3);
  gst_buffer_unref (buf);
  expect_eos (h);

  buf = pull_after_seek (h, 0, GST_SEEK_TYPE_SET, 2, GST_SEEK_TYPE_END, -5);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), 2);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), 5);
  check_values (buf, 2, 3);
  gst_buffer_unref (buf);
  expect_eos (h);

  fail_if (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_END, -11, GST_SEEK_TYPE_NONE, -1)));

  teardown_harness (h, NULL);
  gst_object_unref (src);
  g_object_unref (a);
}

GST_END_TEST;

/* Pulls events until SEGMENT_DONE, which must come in rows at @position
 * with @seqnum; fails on an EOS before it. */
static void
expect_segment_done (GstHarness * h, gint64 position, guint32 seqnum)
{
  GstEvent *event;

  for (;;) {
    event = gst_harness_pull_event (h);
    fail_unless (event != NULL);
    fail_if (GST_EVENT_TYPE (event) == GST_EVENT_EOS,
        "an EOS, not SEGMENT_DONE, ended a segment seek's range");
    if (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT_DONE)
      break;
    gst_event_unref (event);
  }
  {
    GstFormat format;
    gint64 pos;

    gst_event_parse_segment_done (event, &format, &pos);
    fail_unless_equals_int (format, GST_FORMAT_DEFAULT);
    fail_unless_equals_int64 (pos, position);
    fail_unless_equals_int (gst_event_get_seqnum (event), seqnum);
  }
  gst_event_unref (event);
}

/* A segment seek (GST_SEEK_FLAG_SEGMENT) ends its range with a
 * SEGMENT_DONE event downstream and a segment-done message, not an EOS,
 * so that an application can loop or chain ranges; for a range of no
 * rows too, after its segment. */
GST_START_TEST (test_src_segment_seek_ends_with_segment_done)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (10, 1);
  GstHarness *h;
  GstBuffer *buf;
  GstMessage *msg;
  GstEvent *seek;
  GstBus *bus;
  guint32 seqnum;

  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  h = src_harness (src, &bus);
  gst_buffer_unref (pull_rows (h, 0, 10));
  expect_eos (h);

  seek = gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH |
      GST_SEEK_FLAG_SEGMENT, GST_SEEK_TYPE_SET, 2, GST_SEEK_TYPE_SET, 6);
  seqnum = gst_event_get_seqnum (seek);
  fail_unless (gst_harness_push_upstream_event (h, seek));
  do {
    buf = gst_harness_pull (h);
    fail_unless (buf != NULL);
    if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT))
      break;
    gst_buffer_unref (buf);
  } while (TRUE);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), 2);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), 6);
  check_values (buf, 2, 4);
  gst_buffer_unref (buf);
  expect_segment_done (h, 6, seqnum);
  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND,
      GST_MESSAGE_SEGMENT_DONE);
  fail_unless (msg != NULL, "no segment-done message");
  {
    GstFormat format;
    gint64 pos;

    gst_message_parse_segment_done (msg, &format, &pos);
    fail_unless_equals_int (format, GST_FORMAT_DEFAULT);
    fail_unless_equals_int64 (pos, 6);
  }
  gst_message_unref (msg);

  /* A range of no rows: its segment, then SEGMENT_DONE. */
  seek = gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH |
      GST_SEEK_FLAG_SEGMENT, GST_SEEK_TYPE_SET, 4, GST_SEEK_TYPE_SET, 4);
  seqnum = gst_event_get_seqnum (seek);
  fail_unless (gst_harness_push_upstream_event (h, seek));
  expect_segment_done (h, 4, seqnum);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);

  teardown_harness (h, bus);
  gst_object_unref (src);
  g_object_unref (a);
}

GST_END_TEST;

/* The segment that comes before the EOS (after the flush of @seqnum's
 * seek, or the first EOS for GST_SEQNUM_INVALID): there must be one. */
static void
expect_segment_before_eos (GstHarness * h, guint64 start, guint64 stop,
    guint32 seqnum)
{
  gboolean flushed = seqnum == GST_SEQNUM_INVALID, segment = FALSE;
  GstEvent *event;

  while ((event = gst_harness_pull_event (h))) {
    if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
      flushed = TRUE;
      segment = FALSE;
    } else if (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT && flushed) {
      const GstSegment *seg;

      gst_event_parse_segment (event, &seg);
      fail_unless_equals_uint64 (seg->start, start);
      fail_unless_equals_uint64 (seg->stop, stop);
      if (seqnum != GST_SEQNUM_INVALID)
        fail_unless_equals_int (gst_event_get_seqnum (event), seqnum);
      segment = TRUE;
    } else if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && flushed) {
      gst_event_unref (event);
      break;
    }
    gst_event_unref (event);
  }
  fail_unless (segment, "no segment before the EOS");
}

/* A range of no rows (a seek to rows 3 to 3, an array of none) has its
 * segment before the EOS, which GstBaseSrc sends only with a first
 * buffer: downstream would take the stream for the rows of the segment
 * before. A seek to no row of a 0-d array is refused. */
GST_START_TEST (test_src_no_rows_have_a_segment)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (10, 1), *empty = make_array (0, 3), *zero_d;
  GstHarness *h;
  GstEvent *seek;
  guint32 seqnum;

  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  h = src_harness (src, NULL);
  gst_buffer_unref (pull_rows (h, 0, 10));
  expect_eos (h);
  seek = gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
      GST_SEEK_TYPE_SET, 3, GST_SEEK_TYPE_SET, 3);
  seqnum = gst_event_get_seqnum (seek);
  fail_unless (gst_harness_push_upstream_event (h, seek));
  expect_segment_before_eos (h, 3, 3, seqnum);
  teardown_harness (h, NULL);
  gst_object_unref (src);

  src = make_src ();
  plan_array_src_set_array (PLAN_ARRAY_SRC (src), empty);
  h = src_harness (src, NULL);
  expect_segment_before_eos (h, 0, -1, GST_SEQNUM_INVALID);
  teardown_harness (h, NULL);
  gst_object_unref (src);

  zero_d = plan_array_new (PLAN_DTYPE_FLOAT64, 0, NULL, NULL);
  src = make_src ();
  plan_array_src_set_array (PLAN_ARRAY_SRC (src), zero_d);
  h = src_harness (src, NULL);
  gst_buffer_unref (pull_rows (h, 0, 1));
  fail_if (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_SET, 0)));
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_SET, 1)));
  teardown_harness (h, NULL);
  gst_object_unref (src);
  g_object_unref (zero_d);
  g_object_unref (empty);
  g_object_unref (a);
}

GST_END_TEST;

/* Forwards only: a seek with a negative rate, in rows (the segment's
 * format, which GstBaseSrc does not ask the element to prepare), is
 * refused before anything is flushed, sent upstream or to the element. */
GST_START_TEST (test_src_refuses_backward_seeks)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (10, 1);
  GstHarness *h;

  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  h = src_harness (src, NULL);
  gst_buffer_unref (pull_rows (h, 0, 10));
  expect_eos (h);

  fail_if (gst_harness_push_upstream_event (h,
          gst_event_new_seek (-1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, 3, GST_SEEK_TYPE_SET, 7)));
  fail_if (gst_element_send_event (src,
          gst_event_new_seek (-2.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE, -1)));
  fail_unless_equals_int (gst_harness_events_in_queue (h), 0);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);

  teardown_harness (h, NULL);
  gst_object_unref (src);
  g_object_unref (a);
}

GST_END_TEST;

/* blocksize is read as the source starts: set while it plays, it is
 * refused with a warning and keeps its value. */
GST_START_TEST (test_src_blocksize_set_while_playing_is_refused)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (10, 1);
  GstHarness *h;
  GstBus *bus;
  GstMessage *msg;
  GError *err = NULL;
  guint blocksize = 0;

  g_object_set (src, "blocksize", 8, NULL);
  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  h = src_harness (src, &bus);
  g_object_set (src, "blocksize", 16, NULL);
  g_object_get (src, "blocksize", &blocksize, NULL);
  fail_unless_equals_int (blocksize, 8);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_LIBRARY_ERROR,
          GST_LIBRARY_ERROR_SETTINGS));
  fail_unless (strstr (err->message, "blocksize cannot change") != NULL,
      "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_buffer_unref (pull_rows (h, 0, 2));

  teardown_harness (h, bus);
  gst_object_unref (src);
  g_object_unref (a);
}

GST_END_TEST;

/* A reader streams forward only. */
GST_START_TEST (test_src_with_reader_is_not_seekable)
{
  GstElement *src = make_src ();
  GstHarness *h;
  Reader r;

  reader_init (&r);
  set_reader (src, &r, PLAN_DTYPE_INT32, 6, 2);
  h = src_harness (src, NULL);
  fail_if (query_seekable (src));
  fail_if (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE, -1)));
  teardown_harness (h, NULL);
  gst_object_unref (src);
  reader_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_src_answers_read_rows_from_array)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (10, 2);
  const guint8 *data = plan_array_get_data (a, NULL);
  GstQuery *q = plan_query_new_read_rows (7, 3);
  GstBuffer *buf;
  GstMapInfo map;

  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  fail_unless (gst_element_query (src, q));
  buf = plan_query_get_read_rows_buffer (q);
  fail_unless (buf != NULL);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), 7);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), 10);
  check_values (buf, 14, 6);
  /* No copy: the rows are the array's. */
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless (map.data == data + 7 * 8);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  gst_query_unref (q);
  gst_object_unref (src);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_src_refuses_read_rows_outside_array)
{
  GstElement *src = make_src ();
  PlanArray *a = make_array (10, 2);
  GstQuery *q = plan_query_new_read_rows (8, 3);

  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  fail_if (gst_element_query (src, q));
  gst_query_unref (q);
  gst_object_unref (src);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_src_refuses_read_rows_from_reader)
{
  GstElement *src = make_src ();
  GstQuery *q = plan_query_new_read_rows (0, 1);
  Reader r;

  reader_init (&r);
  set_reader (src, &r, PLAN_DTYPE_INT32, 5, 2);
  fail_if (gst_element_query (src, q));
  fail_unless_equals_int (r.calls, 0);
  gst_query_unref (q);
  gst_object_unref (src);
  reader_clear (&r);
}

GST_END_TEST;

/* Progress messages: each run of planarraysrc posts them as planfilesrc
 * does. */
typedef struct
{
  GstProgressType type;
  guint64 rows_done, bytes_done, rows_total, bytes_total;
  gboolean has_total;
  gint percent;
} Progress;

static void
parse_progress (GstMessage * msg, Progress * p)
{
  const GstStructure *s = gst_message_get_structure (msg);

  memset (p, 0, sizeof (*p));
  gst_message_parse_progress (msg, &p->type, NULL, NULL);
  fail_unless (gst_structure_get (s, "rows-done", G_TYPE_UINT64,
          &p->rows_done, "bytes-done", G_TYPE_UINT64, &p->bytes_done, NULL));
  p->has_total = gst_structure_has_field (s, "rows-total");
  if (p->has_total)
    fail_unless (gst_structure_get (s, "rows-total", G_TYPE_UINT64,
            &p->rows_total, "bytes-total", G_TYPE_UINT64, &p->bytes_total,
            "percent", G_TYPE_INT, &p->percent, NULL));
}

/* Pops every message of @bus until EOS or an error (or, with @until_start,
 * the first progress start) and appends the progress messages to @out in
 * order; returns the type of the message that ended it. *error_after is
 * the number of progress messages seen before the error. */
static GstMessageType
collect_progress (GstBus * bus, GArray * out, gboolean until_start,
    guint * error_after)
{
  for (;;) {
    GstMessage *msg = gst_bus_timed_pop (bus, 20 * GST_SECOND);
    GstMessageType type;
    Progress p;

    fail_unless (msg != NULL, "no EOS or error within 20 s");
    type = GST_MESSAGE_TYPE (msg);
    if (type == GST_MESSAGE_PROGRESS) {
      parse_progress (msg, &p);
      g_array_append_val (out, p);
    }
    if (type == GST_MESSAGE_ERROR && error_after)
      *error_after = out->len;
    gst_message_unref (msg);
    if (type == GST_MESSAGE_EOS || type == GST_MESSAGE_ERROR
        || (until_start && type == GST_MESSAGE_PROGRESS
            && p.type == GST_PROGRESS_TYPE_START))
      return type;
  }
}

#define PROGRESS_AT(a, i) (&g_array_index ((a), Progress, (i)))

/* An EOS the application sends to planarraysrc ends the stream on purpose,
 * as planfilesrc's: planarraysink's result is the rows it received, where
 * the EOS alone would fail the stream as cut short ("ended after 5 of the
 * 50 rows it announced"). */
GST_START_TEST (test_src_eos_sent_gives_sink_the_rows_received)
{
  GstElement *pipeline = gst_parse_launch ("planarraysrc name=in "
      "blocksize=8 ! identity sleep-time=20000 ! planarraysink name=out",
      NULL);
  GstElement *src, *sink;
  PlanArray *a = make_array (50, 2), *result;       /* a row a buffer */
  GstBus *bus;
  GstMessage *msg;
  gint64 n_rows;
  const gint32 *v;
  gint64 i;

  fail_unless (pipeline != NULL);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "in");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  bus = gst_element_get_bus (pipeline);
  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_element_get_state (pipeline, NULL, NULL,
          GST_CLOCK_TIME_NONE), GST_STATE_CHANGE_SUCCESS);
  g_usleep (100 * 1000);
  fail_unless (gst_element_send_event (src, gst_event_new_eos ()));

  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    fail ("error: %s", err->message);
  }
  gst_message_unref (msg);

  result = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  fail_unless (result != NULL);
  n_rows = plan_array_get_n_rows (result);
  fail_unless (n_rows > 0 && n_rows < 50, "%" G_GINT64_FORMAT " rows",
      n_rows);
  fail_unless_equals_uint64 (plan_array_sink_get_n_rows (PLAN_ARRAY_SINK
          (sink)), n_rows);
  v = plan_array_get_data (result, NULL);
  for (i = 0; i < n_rows * 2; i++)
    fail_unless_equals_int (v[i], i);
  g_object_unref (result);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  g_object_unref (a);
}

GST_END_TEST;

/* A pipeline of planarraysrc "in" ! identity sleeping @sleep_us a buffer !
 * fakesink. */
static GstElement *
progress_pipeline (guint sleep_us, GstElement ** src)
{
  gchar *desc = g_strdup_printf ("planarraysrc name=in blocksize=80 ! "
      "identity sleep-time=%u ! fakesink sync=false", sleep_us);
  GstElement *pipeline = gst_parse_launch (desc, NULL);

  fail_unless (pipeline != NULL);
  g_free (desc);
  *src = gst_bin_get_by_name (GST_BIN (pipeline), "in");
  return pipeline;
}

GST_START_TEST (test_src_array_progress_start_continue_complete)
{
  GstElement *src, *pipeline = progress_pipeline (5000, &src);
  GstBus *bus = gst_element_get_bus (pipeline);
  GArray *msgs = g_array_new (FALSE, TRUE, sizeof (Progress));
  PlanArray *a = make_array (1000, 2);  /* 10 rows a buffer, 100 buffers */
  guint i, continues = 0;
  guint64 last = 0;

  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (collect_progress (bus, msgs, FALSE, NULL),
      GST_MESSAGE_EOS);

  /* start, continue (100 buffers of 5 ms: at least one 250 ms interval
   * passes), complete */
  fail_unless (msgs->len >= 3, "%u messages", msgs->len);
  fail_unless_equals_int (PROGRESS_AT (msgs, 0)->type,
      GST_PROGRESS_TYPE_START);
  for (i = 0; i < msgs->len; i++) {
    Progress *p = PROGRESS_AT (msgs, i);

    fail_unless (p->has_total);
    fail_unless_equals_uint64 (p->rows_total, 1000);
    fail_unless_equals_uint64 (p->bytes_total, 8000);
    fail_unless_equals_uint64 (p->bytes_done, p->rows_done * 8);
    fail_unless_equals_int (p->percent, (gint) (p->rows_done / 10));
    fail_unless (p->rows_done >= last);
    if (i > 0 && i + 1 < msgs->len) {
      fail_unless_equals_int (p->type, GST_PROGRESS_TYPE_CONTINUE);
      /* at least 1 % (10 rows) since the last message */
      fail_unless (p->rows_done >= last + 10);
      continues++;
    }
    last = p->rows_done;
  }
  fail_unless (continues >= 1);
  fail_unless_equals_int (PROGRESS_AT (msgs, msgs->len - 1)->type,
      GST_PROGRESS_TYPE_COMPLETE);
  fail_unless_equals_uint64 (last, 1000);

  g_array_unref (msgs);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_src_reader_progress_without_total)
{
  GstElement *src, *pipeline = progress_pipeline (0, &src);
  GstBus *bus = gst_element_get_bus (pipeline);
  GArray *msgs = g_array_new (FALSE, TRUE, sizeof (Progress));
  Reader r;

  reader_init (&r);
  g_ptr_array_add (r.chunks, make_array (3, 2));
  g_ptr_array_add (r.chunks, make_array (2, 2));
  set_reader (src, &r, PLAN_DTYPE_INT32, -1, 2);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (collect_progress (bus, msgs, FALSE, NULL),
      GST_MESSAGE_EOS);

  fail_unless (msgs->len >= 2);
  fail_unless_equals_int (PROGRESS_AT (msgs, 0)->type,
      GST_PROGRESS_TYPE_START);
  fail_if (PROGRESS_AT (msgs, 0)->has_total);
  fail_unless_equals_int (PROGRESS_AT (msgs, msgs->len - 1)->type,
      GST_PROGRESS_TYPE_COMPLETE);
  fail_unless_equals_uint64 (PROGRESS_AT (msgs, msgs->len - 1)->rows_done, 5);
  fail_unless_equals_uint64 (PROGRESS_AT (msgs, msgs->len - 1)->bytes_done,
      40);
  fail_if (PROGRESS_AT (msgs, msgs->len - 1)->has_total);

  g_array_unref (msgs);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  /* The reader lives on this stack: unbind it while it does, since the
   * pipeline's last reference may go on another thread. */
  plan_array_src_set_reader (PLAN_ARRAY_SRC (src), NULL, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  reader_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_src_reader_progress_error_before_element_error)
{
  GstElement *src, *pipeline = progress_pipeline (0, &src);
  GstBus *bus = gst_element_get_bus (pipeline);
  GArray *msgs = g_array_new (FALSE, TRUE, sizeof (Progress));
  guint error_after = 0;
  Reader r;

  reader_init (&r);
  g_ptr_array_add (r.chunks, make_array (3, 2));
  r.fail_message = "the disk is on fire";
  set_reader (src, &r, PLAN_DTYPE_INT32, 10, 2);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (collect_progress (bus, msgs, FALSE, &error_after),
      GST_MESSAGE_ERROR);

  fail_unless (error_after >= 2);
  fail_unless_equals_int (PROGRESS_AT (msgs, error_after - 1)->type,
      GST_PROGRESS_TYPE_ERROR);
  fail_unless_equals_uint64 (PROGRESS_AT (msgs, error_after - 1)->rows_done,
      3);
  fail_unless_equals_uint64 (PROGRESS_AT (msgs, error_after - 1)->rows_total,
      10);

  g_array_unref (msgs);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  /* The reader lives on this stack: unbind it while it does, since the
   * pipeline's last reference may go on another thread. */
  plan_array_src_set_reader (PLAN_ARRAY_SRC (src), NULL, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  reader_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_src_array_progress_canceled_when_stopped)
{
  GstElement *src, *pipeline = progress_pipeline (20000, &src);
  GstBus *bus = gst_element_get_bus (pipeline);
  GArray *msgs = g_array_new (FALSE, TRUE, sizeof (Progress));
  PlanArray *a = make_array (1000, 2);  /* 100 buffers of 20 ms */
  GstMessage *msg;
  Progress p;

  plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  collect_progress (bus, msgs, TRUE, NULL);
  fail_unless_equals_int (PROGRESS_AT (msgs, 0)->type,
      GST_PROGRESS_TYPE_START);
  /* READY, not NULL: the bus keeps what stop() posted. */
  fail_unless (gst_element_set_state (pipeline, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  do {
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_PROGRESS);
    fail_unless (msg != NULL, "no canceled message");
    parse_progress (msg, &p);
    gst_message_unref (msg);
  } while (p.type == GST_PROGRESS_TYPE_CONTINUE);
  fail_unless_equals_int (p.type, GST_PROGRESS_TYPE_CANCELED);
  fail_unless (p.rows_done < 1000);

  g_array_unref (msgs);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  g_object_unref (a);
}

GST_END_TEST;

static Suite *
planarraysrc_suite (void)
{
  Suite *s = suite_create ("planarraysrc");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_src_array_pushes_rows_with_offsets);
  tcase_add_test (tc, test_src_array_caps);
  tcase_add_test (tc, test_src_buffers_wrap_array_memory);
  tcase_add_test (tc, test_src_blocksize_rounds_down_to_rows);
  tcase_add_test (tc, test_src_blocksize_is_at_least_one_row);
  tcase_add_test (tc, test_src_default_blocksize_is_32_mib);
  tcase_add_test (tc, test_src_0d_array_is_one_buffer);
  tcase_add_test (tc, test_src_empty_array_sends_only_eos);
  tcase_add_test (tc, test_src_reader_chunks_in_row_order);
  tcase_add_test (tc, test_src_reader_empty_chunk_ends_stream);
  tcase_add_test (tc, test_src_reader_empty_chunk_before_total_is_error);
  tcase_add_test (tc, test_src_reader_refilled_buffer_is_error);
  tcase_add_test (tc, test_src_reader_views_of_one_array_are_not_reuse);
  tcase_add_test (tc, test_src_reader_known_total_ends_without_another_call);
  tcase_add_test (tc, test_src_reader_error_is_element_error);
  tcase_add_test (tc, test_src_reader_error_with_an_array_is_element_error);
  tcase_add_test (tc, test_src_reader_wrong_dtype_is_format_error);
  tcase_add_test (tc, test_src_reader_wrong_shape_is_format_error);
  tcase_add_test (tc, test_src_reader_beyond_declared_total_is_format_error);
  tcase_add_test (tc, test_src_reader_ending_before_declared_total_fails);
  tcase_add_test (tc, test_src_reader_replaced_is_notified);
  tcase_add_test (tc, test_src_without_binding_fails_to_start);
  tcase_add_test (tc, test_src_reader_with_empty_inner_axis_is_refused);
  tcase_add_test (tc, test_src_get_info);
  tcase_add_test (tc, test_src_duration_in_rows_and_bytes);
  tcase_add_test (tc, test_src_duration_unknown_for_open_reader);
  tcase_add_test (tc, test_src_seeks_in_rows_with_array);
  tcase_add_test (tc, test_src_seeks_from_the_end);
  tcase_add_test (tc, test_src_segment_seek_ends_with_segment_done);
  tcase_add_test (tc, test_src_refuses_backward_seeks);
  tcase_add_test (tc, test_src_eos_sent_gives_sink_the_rows_received);
  tcase_add_test (tc, test_src_no_rows_have_a_segment);
  tcase_add_test (tc, test_src_refuses_a_rate_asked_downstream);
  tcase_add_test (tc, test_src_blocksize_set_while_playing_is_refused);
  tcase_add_test (tc, test_src_with_reader_is_not_seekable);
  tcase_add_test (tc, test_src_answers_read_rows_from_array);
  tcase_add_test (tc, test_src_refuses_read_rows_outside_array);
  tcase_add_test (tc, test_src_refuses_read_rows_from_reader);
  tcase_add_test (tc, test_src_array_progress_start_continue_complete);
  tcase_add_test (tc, test_src_reader_progress_without_total);
  tcase_add_test (tc, test_src_reader_progress_error_before_element_error);
  tcase_add_test (tc, test_src_array_progress_canceled_when_stopped);
  return s;
}

GST_CHECK_MAIN (planarraysrc);
