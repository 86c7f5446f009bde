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

typedef struct
{
  GstHarness *h;
  GstBus *bus;
  GstPadQueryFunction harness_query;
  gboolean seekable;            /* what the harness's sink pad answers */
} Mux;

static Mux *current;

static gboolean
answer_seeking (GstPad * pad, GstObject * parent, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_SEEKING) {
    gst_query_set_seeking (query, GST_FORMAT_BYTES, current->seekable, 0, -1);
    return TRUE;
  }
  return current->harness_query (pad, parent, query);
}

static void
mux_setup (Mux * m, const gchar * caps, gboolean seekable)
{
  m->h = gst_harness_new ("npymux");
  m->bus = gst_bus_new ();
  gst_element_set_bus (m->h->element, m->bus);
  m->seekable = seekable;
  m->harness_query = GST_PAD_QUERYFUNC (m->h->sinkpad);
  current = m;
  gst_pad_set_query_function (m->h->sinkpad, answer_seeking);
  if (caps)
    gst_harness_set_src_caps_str (m->h, caps);
}

static void
mux_teardown (Mux * m)
{
  gst_element_set_bus (m->h->element, NULL);
  gst_object_unref (m->bus);
  gst_harness_teardown (m->h);
  current = NULL;
}

/* @rows rows of @cols float32, value row * cols + i, from @row0. */
static GstBuffer *
float_rows (guint row0, guint rows, guint cols)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, rows * cols * 4, NULL);
  GstMapInfo map;
  guint i;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i < rows * cols; i++)
    ((gfloat *) map.data)[i] = row0 * cols + i;
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_OFFSET (buf) = row0;
  GST_BUFFER_OFFSET_END (buf) = row0 + rows;
  return buf;
}

/* Checks a header buffer: a multiple of 64 bytes, the magic, and the dict
 * text numpy writes for @descr and @shape (such as "(4, 3)"). */
static void
check_header (GstBuffer * buf, const gchar * descr, const gchar * shape)
{
  GstMapInfo map;
  gchar *dict;
  gsize len;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size % 64, 0);
  fail_unless (memcmp (map.data, "\x93NUMPY\x01\x00", 8) == 0);
  len = GST_READ_UINT16_LE (map.data + 8);
  fail_unless_equals_int (len + 10, map.size);
  fail_unless_equals_int (map.data[map.size - 1], '\n');
  dict = g_strdup_printf ("{'descr': '%s', 'fortran_order': False, "
      "'shape': %s, }", descr, shape);
  fail_unless (memcmp (map.data + 10, dict, strlen (dict)) == 0,
      "header %.*s, expected %s", (gint) len, map.data + 10, dict);
  g_free (dict);
  gst_buffer_unmap (buf, &map);
}

static void
check_float_rows (GstBuffer * buf, guint row0, guint rows, guint cols)
{
  GstBuffer *want = float_rows (row0, rows, cols);
  GstMapInfo map;

  fail_unless (gst_buffer_map (want, &map, GST_MAP_READ));
  fail_unless_equals_int (gst_buffer_get_size (buf), map.size);
  fail_unless (gst_buffer_memcmp (buf, 0, map.data, map.size) == 0);
  gst_buffer_unmap (want, &map);
  gst_buffer_unref (want);
}

static gboolean
got_eos (GstHarness * h)
{
  GstEvent *event;
  gboolean eos = FALSE;

  while (!eos && (event = gst_harness_try_pull_event (h))) {
    eos = GST_EVENT_TYPE (event) == GST_EVENT_EOS;
    gst_event_unref (event);
  }
  return eos;
}

static gchar *
expect_error (Mux * m, GQuark domain, gint code)
{
  GstMessage *msg = gst_bus_pop_filtered (m->bus, GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *text;

  fail_unless (msg != NULL, "no error posted");
  gst_message_parse_error (msg, &err, NULL);
  GST_INFO ("error: %s", err->message);
  fail_unless (g_error_matches (err, domain, code), "wrong error %s %d: %s",
      g_quark_to_string (err->domain), err->code, err->message);
  text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  return text;
}

GST_START_TEST (test_mux_known_rows_header_then_rows)
{
  Mux m;
  GstBuffer *buf;
  GstCaps *caps;
  gint64 value;

  mux_setup (&m, "array/x-raw, dtype=(string)float32, shape=(int)<4, 3>",
      FALSE);
  fail_unless_equals_int (gst_harness_push (m.h, float_rows (0, 3, 3)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (m.h, float_rows (3, 1, 3)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (m.h, gst_event_new_eos ()));

  caps = gst_pad_get_current_caps (m.h->sinkpad);
  fail_unless_equals_string (gst_structure_get_name (gst_caps_get_structure
          (caps, 0)), PLAN_NPY_CAPS_MEDIA_TYPE);
  gst_caps_unref (caps);
  buf = gst_harness_pull (m.h);
  check_header (buf, "<f4", "(4, 3)");
  fail_unless_equals_int (gst_buffer_get_size (buf), 128);
  gst_buffer_unref (buf);
  buf = gst_harness_pull (m.h);
  check_float_rows (buf, 0, 3, 3);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), 128);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), 128 + 36);
  gst_buffer_unref (buf);
  buf = gst_harness_pull (m.h);
  check_float_rows (buf, 3, 1, 3);
  gst_buffer_unref (buf);
  fail_unless (got_eos (m.h));
  fail_unless (gst_pad_peer_query_duration (m.h->sinkpad, GST_FORMAT_BYTES,
          &value));
  fail_unless_equals_int64 (value, 128 + 48);
  fail_unless (gst_pad_peer_query_position (m.h->sinkpad, GST_FORMAT_BYTES,
          &value));
  fail_unless_equals_int64 (value, 128 + 48);
  fail_unless (gst_bus_pop_filtered (m.bus, GST_MESSAGE_ERROR) == NULL);
  mux_teardown (&m);
}

GST_END_TEST;

/* shape <-1, 3> into a sink that seeks: a header with the largest count
 * (so that a file whose stream never ended is refused by every reader,
 * not loaded as 0 rows), the rows, then a segment back to byte 0 and the
 * header with the count, of the same size. */
GST_START_TEST (test_mux_unknown_rows_rewrites_header)
{
  Mux m;
  GstBuffer *buf;
  GstEvent *event;
  const GstSegment *segment;
  guint n_segments = 0;

  mux_setup (&m, "array/x-raw, dtype=(string)float32, shape=(int)<-1, 3>",
      TRUE);
  fail_unless_equals_int (gst_harness_push (m.h, float_rows (0, 2, 3)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (m.h, float_rows (2, 3, 3)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (m.h, gst_event_new_eos ()));

  buf = gst_harness_pull (m.h);
  check_header (buf, "<f4", "(9223372036854775807, 3)");
  fail_unless_equals_int (gst_buffer_get_size (buf), 128);
  gst_buffer_unref (buf);
  buf = gst_harness_pull (m.h);
  check_float_rows (buf, 0, 2, 3);
  gst_buffer_unref (buf);
  buf = gst_harness_pull (m.h);
  check_float_rows (buf, 2, 3, 3);
  gst_buffer_unref (buf);
  buf = gst_harness_pull (m.h);
  check_header (buf, "<f4", "(5, 3)");
  fail_unless_equals_int (gst_buffer_get_size (buf), 128);
  gst_buffer_unref (buf);

  while ((event = gst_harness_try_pull_event (m.h))) {
    if (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT) {
      gst_event_parse_segment (event, &segment);
      fail_unless_equals_int (segment->format, GST_FORMAT_BYTES);
      fail_unless_equals_uint64 (segment->start, 0);
      n_segments++;
    }
    gst_event_unref (event);
  }
  fail_unless_equals_int (n_segments, 2);
  fail_unless (gst_bus_pop_filtered (m.bus, GST_MESSAGE_ERROR) == NULL);
  mux_teardown (&m);
}

GST_END_TEST;

GST_START_TEST (test_mux_unknown_rows_unseekable_is_an_error)
{
  Mux m;
  gchar *text;

  mux_setup (&m, "array/x-raw, dtype=(string)float32, shape=(int)<-1, 3>",
      FALSE);
  fail_unless_equals_int (gst_harness_push (m.h, float_rows (0, 2, 3)),
      GST_FLOW_ERROR);
  text = expect_error (&m, GST_STREAM_ERROR, GST_STREAM_ERROR_MUX);
  fail_unless (strstr (text, "number of rows is not known") != NULL, "%s",
      text);
  fail_unless (strstr (text, "float32 (-1, 3)") != NULL, "%s", text);
  fail_unless_equals_int (gst_harness_buffers_in_queue (m.h), 0);
  g_free (text);
  mux_teardown (&m);
}

GST_END_TEST;

/* The caps announce 10 rows; the segment covers rows 2 to 6. */
GST_START_TEST (test_mux_clips_rows_to_the_segment)
{
  Mux m;
  GstSegment segment;
  GstBuffer *buf;

  mux_setup (&m, "array/x-raw, dtype=(string)float32, shape=(int)<10, 3>",
      FALSE);
  gst_segment_init (&segment, GST_FORMAT_DEFAULT);
  segment.start = 2;
  segment.stop = 6;
  fail_unless (gst_harness_push_event (m.h, gst_event_new_segment (&segment)));
  fail_unless_equals_int (gst_harness_push (m.h, float_rows (0, 4, 3)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (m.h, gst_event_new_eos ()));
  buf = gst_harness_pull (m.h);
  check_header (buf, "<f4", "(4, 3)");
  gst_buffer_unref (buf);
  fail_unless (gst_bus_pop_filtered (m.bus, GST_MESSAGE_ERROR) == NULL);
  mux_teardown (&m);
}

GST_END_TEST;

GST_START_TEST (test_mux_0d_and_empty_arrays)
{
  Mux m;
  GstBuffer *buf;
  gint64 v = -7;

  mux_setup (&m, "array/x-raw, dtype=(string)int64, shape=(int)<>", FALSE);
  buf = gst_buffer_new_memdup (&v, sizeof (v));
  fail_unless_equals_int (gst_harness_push (m.h, buf), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (m.h, gst_event_new_eos ()));
  buf = gst_harness_pull (m.h);
  check_header (buf, "<i8", "()");
  gst_buffer_unref (buf);
  buf = gst_harness_pull (m.h);
  fail_unless (gst_buffer_memcmp (buf, 0, &v, sizeof (v)) == 0);
  gst_buffer_unref (buf);
  mux_teardown (&m);

  mux_setup (&m, "array/x-raw, dtype=(string)uint8, shape=(int)<0, 5>", FALSE);
  fail_unless (gst_harness_push_event (m.h, gst_event_new_eos ()));
  buf = gst_harness_pull (m.h);
  check_header (buf, "|u1", "(0, 5)");
  gst_buffer_unref (buf);
  fail_unless (got_eos (m.h));
  fail_unless (gst_bus_pop_filtered (m.bus, GST_MESSAGE_ERROR) == NULL);
  mux_teardown (&m);
}

GST_END_TEST;

GST_START_TEST (test_mux_more_rows_than_announced)
{
  Mux m;
  gchar *text;

  mux_setup (&m, "array/x-raw, dtype=(string)float32, shape=(int)<2, 3>", TRUE);
  fail_unless_equals_int (gst_harness_push (m.h, float_rows (0, 2, 3)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (m.h, float_rows (2, 1, 3)),
      GST_FLOW_ERROR);
  text = expect_error (&m, GST_STREAM_ERROR, GST_STREAM_ERROR_MUX);
  fail_unless (strstr (text, "3 rows, more than the 2") != NULL, "%s", text);
  g_free (text);
  mux_teardown (&m);
}

GST_END_TEST;

GST_START_TEST (test_mux_fewer_rows_than_announced)
{
  Mux m;
  gchar *text;

  mux_setup (&m, "array/x-raw, dtype=(string)float32, shape=(int)<5, 3>", TRUE);
  fail_unless_equals_int (gst_harness_push (m.h, float_rows (0, 2, 3)),
      GST_FLOW_OK);
  gst_harness_push_event (m.h, gst_event_new_eos ());
  text = expect_error (&m, GST_STREAM_ERROR, GST_STREAM_ERROR_MUX);
  fail_unless (strstr (text, "ended after 2 of the 5 rows") != NULL, "%s",
      text);
  g_free (text);
  mux_teardown (&m);
}

GST_END_TEST;

/* Downstream refuses a push: the buffer's flow, what GstPad returns when
 * nothing is linked. A probe that returns HANDLED owns the buffer. */
static GstPadProbeReturn
refuse_buffers (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  gst_buffer_unref (GST_PAD_PROBE_INFO_BUFFER (info));
  GST_PAD_PROBE_INFO_FLOW_RETURN (info) = GPOINTER_TO_INT (data);
  return GST_PAD_PROBE_HANDLED;
}

/* When downstream fails a push (not linked, an error), whoever sees the
 * failure says so (GstBaseSrc: "Internal data stream error"); the EOS
 * upstream sends after it is no second error from npymux ("The stream
 * ended after 0 of the 5 rows it announced", as before), and does not
 * pass on. */
GST_START_TEST (test_mux_downstream_failure_is_no_second_error)
{
  const GstFlowReturn flows[] = { GST_FLOW_NOT_LINKED, GST_FLOW_ERROR,
    GST_FLOW_NOT_NEGOTIATED
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (flows); i++) {
    GstMessage *msg;
    GstPad *src;
    Mux m;

    mux_setup (&m, "array/x-raw, dtype=(string)float32, shape=(int)<5, 3>",
        TRUE);
    src = gst_element_get_static_pad (m.h->element, "src");
    gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, refuse_buffers,
        GINT_TO_POINTER (flows[i]), NULL);
    fail_unless_equals_int (gst_harness_push (m.h, float_rows (0, 2, 3)),
        flows[i]);
    fail_unless_equals_int (gst_harness_push (m.h, float_rows (2, 2, 3)),
        flows[i]);
    gst_harness_push_event (m.h, gst_event_new_eos ());
    msg = gst_bus_pop_filtered (m.bus, GST_MESSAGE_ERROR);
    if (msg != NULL) {
      GError *err = NULL;

      gst_message_parse_error (msg, &err, NULL);
      fail ("%s downstream: npymux posted '%s'", gst_flow_get_name
          (flows[i]), err->message);
    }
    fail_if (got_eos (m.h), "%s downstream: the EOS passed on",
        gst_flow_get_name (flows[i]));
    gst_object_unref (src);
    mux_teardown (&m);
  }
}

GST_END_TEST;

GST_START_TEST (test_mux_partial_row)
{
  Mux m;
  gchar *text;

  mux_setup (&m, "array/x-raw, dtype=(string)float32, shape=(int)<5, 3>",
      FALSE);
  fail_unless_equals_int (gst_harness_push (m.h,
          gst_buffer_new_allocate (NULL, 10, NULL)), GST_FLOW_ERROR);
  text = expect_error (&m, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT);
  fail_unless (strstr (text, "10 bytes") != NULL, "%s", text);
  g_free (text);
  mux_teardown (&m);
}

GST_END_TEST;

/* Rows sent without caps (an appsrc with no caps property): the error
 * says what is missing, where it was GStreamer's "negotiation problem". */
GST_START_TEST (test_mux_data_without_caps_says_so)
{
  Mux m;
  GstSegment segment;
  gchar *text;

  mux_setup (&m, NULL, FALSE);
  fail_unless (gst_harness_push_event (m.h,
          gst_event_new_stream_start ("no-caps")));
  gst_segment_init (&segment, GST_FORMAT_BYTES);
  fail_unless (gst_harness_push_event (m.h, gst_event_new_segment (&segment)));
  fail_unless_equals_int (gst_harness_push (m.h, float_rows (0, 2, 3)),
      GST_FLOW_NOT_NEGOTIATED);
  text = expect_error (&m, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION);
  fail_unless (strstr (text, "before the array's caps") != NULL, "%s", text);
  g_free (text);
  mux_teardown (&m);
}

GST_END_TEST;

GST_START_TEST (test_mux_caps_change_after_header)
{
  Mux m;
  GstCaps *caps;
  gchar *text;

  mux_setup (&m, "array/x-raw, dtype=(string)float32, shape=(int)<5, 3>",
      FALSE);
  fail_unless_equals_int (gst_harness_push (m.h, float_rows (0, 2, 3)),
      GST_FLOW_OK);
  caps = gst_caps_from_string ("array/x-raw, dtype=(string)float32, "
      "shape=(int)<5, 4>");
  gst_harness_push_event (m.h, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  text = expect_error (&m, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION);
  fail_unless (strstr (text, "changed") != NULL, "%s", text);
  g_free (text);
  mux_teardown (&m);
}

GST_END_TEST;

GST_START_TEST (test_mux_refuses_seeks)
{
  Mux m;

  mux_setup (&m, "array/x-raw, dtype=(string)float32, shape=(int)<5, 3>",
      FALSE);
  fail_if (gst_harness_push_upstream_event (m.h,
          gst_event_new_seek (1.0, GST_FORMAT_BYTES, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE, -1)));
  mux_teardown (&m);
}

GST_END_TEST;

/* What upstream answers in rows and in time, as npyparse with a rate
 * would: position at row 512 of 2000, 1000 rows a second. */
static gboolean
answer_rows_and_time (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstFormat format;

  if (GST_QUERY_TYPE (query) == GST_QUERY_POSITION) {
    gst_query_parse_position (query, &format, NULL);
    if (format == GST_FORMAT_DEFAULT || format == GST_FORMAT_TIME) {
      gst_query_set_position (query, format, format == GST_FORMAT_TIME ?
          512 * GST_MSECOND : 512);
      return TRUE;
    }
  } else if (GST_QUERY_TYPE (query) == GST_QUERY_DURATION) {
    gst_query_parse_duration (query, &format, NULL);
    if (format == GST_FORMAT_DEFAULT || format == GST_FORMAT_TIME) {
      gst_query_set_duration (query, format, format == GST_FORMAT_TIME ?
          2 * GST_SECOND : 2000);
      return TRUE;
    }
  }
  return gst_pad_query_default (pad, parent, query);
}

/* Position and duration in rows and time are upstream's, as applications
 * and gst-validate's scenarios (which wait for a position in time) ask
 * them of the pipeline; bytes are npymux's own. */
GST_START_TEST (test_mux_passes_position_in_rows_and_time_upstream)
{
  Mux m;
  gint64 value;

  mux_setup (&m, "array/x-raw, dtype=(string)float32, shape=(int)<2000, 3>",
      FALSE);
  gst_pad_set_query_function (m.h->srcpad, answer_rows_and_time);
  fail_unless (gst_pad_peer_query_position (m.h->sinkpad, GST_FORMAT_TIME,
          &value));
  fail_unless_equals_uint64 (value, 512 * GST_MSECOND);
  fail_unless (gst_pad_peer_query_position (m.h->sinkpad,
          GST_FORMAT_DEFAULT, &value));
  fail_unless_equals_int64 (value, 512);
  fail_unless (gst_pad_peer_query_duration (m.h->sinkpad, GST_FORMAT_TIME,
          &value));
  fail_unless_equals_uint64 (value, 2 * GST_SECOND);
  fail_unless (gst_pad_peer_query_duration (m.h->sinkpad,
          GST_FORMAT_DEFAULT, &value));
  fail_unless_equals_int64 (value, 2000);

  gst_harness_push (m.h, float_rows (0, 2, 3));
  fail_unless (gst_pad_peer_query_position (m.h->sinkpad, GST_FORMAT_BYTES,
          &value));
  fail_unless_equals_int64 (value, 128 + 2 * 12);
  fail_unless (gst_pad_peer_query_duration (m.h->sinkpad, GST_FORMAT_BYTES,
          &value));
  fail_unless_equals_int64 (value, 128 + 2000 * 12);
  mux_teardown (&m);
}

GST_END_TEST;

static Suite *
npymux_suite (void)
{
  Suite *s = suite_create ("npymux");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_mux_known_rows_header_then_rows);
  tcase_add_test (tc, test_mux_unknown_rows_rewrites_header);
  tcase_add_test (tc, test_mux_unknown_rows_unseekable_is_an_error);
  tcase_add_test (tc, test_mux_clips_rows_to_the_segment);
  tcase_add_test (tc, test_mux_0d_and_empty_arrays);
  tcase_add_test (tc, test_mux_more_rows_than_announced);
  tcase_add_test (tc, test_mux_fewer_rows_than_announced);
  tcase_add_test (tc, test_mux_partial_row);
  tcase_add_test (tc, test_mux_downstream_failure_is_no_second_error);
  tcase_add_test (tc, test_mux_caps_change_after_header);
  tcase_add_test (tc, test_mux_data_without_caps_says_so);
  tcase_add_test (tc, test_mux_refuses_seeks);
  tcase_add_test (tc, test_mux_passes_position_in_rows_and_time_upstream);
  return s;
}

GST_CHECK_MAIN (npymux);
