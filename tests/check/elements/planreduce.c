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

#include <math.h>
#include <string.h>

typedef struct
{
  GstHarness *h;
  GstBus *bus;                  /* receives the element's messages */
} Reduce;

/* Makes a planreduce harness with string properties given as name, value
 * pairs ending with NULL, and input caps @caps (set later when NULL). */
static void
reduce_init (Reduce * r, const gchar * caps, ...)
{
  const gchar *name;
  va_list args;

  r->h = gst_harness_new ("planreduce");
  r->bus = gst_bus_new ();
  gst_element_set_bus (r->h->element, r->bus);
  va_start (args, caps);
  while ((name = va_arg (args, const gchar *)) != NULL)
    gst_util_set_object_arg (G_OBJECT (r->h->element), name,
        va_arg (args, const gchar *));
  va_end (args);
  if (caps)
    gst_harness_set_src_caps_str (r->h, caps);
}

static void
reduce_teardown (Reduce * r)
{
  gst_element_set_bus (r->h->element, NULL);
  gst_object_unref (r->bus);
  gst_harness_teardown (r->h);
}

/* Pushes @n_rows rows of @row_size bytes from @data into @h, @chunk rows
 * a buffer, stamped with row offsets. */
static void
harness_push_rows (GstHarness * h, gconstpointer data, gsize n_rows,
    gsize row_size, gsize chunk)
{
  gsize i;

  for (i = 0; i < n_rows; i += chunk) {
    gsize n = MIN (chunk, n_rows - i);
    GstBuffer *buf = gst_buffer_new_memdup ((const guint8 *) data +
        i * row_size, n * row_size);

    GST_BUFFER_OFFSET (buf) = i;
    GST_BUFFER_OFFSET_END (buf) = i + n;
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
}

static void
push_rows (Reduce * r, gconstpointer data, gsize n_rows, gsize row_size,
    gsize chunk)
{
  harness_push_rows (r->h, data, n_rows, row_size, chunk);
}

/* Pulls the buffers from @h up to EOS, checks that they hold @n_bytes,
 * and returns the bytes. */
static GBytes *
pull_bytes (GstHarness * h, gsize n_bytes)
{
  GByteArray *out = g_byte_array_new ();
  GstBuffer *buf;

  while (TRUE) {
    GstMapInfo map;

    fail_unless (gst_harness_pull_until_eos (h, &buf), "no EOS");
    if (buf == NULL)
      break;
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    g_byte_array_append (out, map.data, map.size);
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
  }
  fail_unless_equals_uint64 (out->len, n_bytes);
  return g_byte_array_free_to_bytes (out);
}

static void
push_eos (Reduce * r)
{
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
}

/* Pulls the one result buffer and copies its bytes to @out; checks that it
 * is stamped as rows 0 .. @n_rows. */
static void
pull_result (Reduce * r, gpointer out, gsize size, guint64 n_rows)
{
  GstBuffer *buf = gst_harness_pull (r->h);

  fail_unless (buf != NULL);
  fail_unless_equals_uint64 (gst_buffer_get_size (buf), size);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), 0);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), n_rows);
  gst_buffer_extract (buf, 0, out, size);
  gst_buffer_unref (buf);
}

/* Returns the output caps as a string, to be freed. */
static gchar *
output_caps (Reduce * r)
{
  GstCaps *caps = gst_pad_get_current_caps (r->h->sinkpad);
  gchar *s;

  fail_unless (caps != NULL);
  s = gst_caps_to_string (caps);
  gst_caps_unref (caps);
  return s;
}

/* Waits for the element's error and returns its user text (to be freed). */
static gchar *
expect_error (Reduce * r)
{
  GstMessage *msg = gst_bus_timed_pop_filtered (r->bus, 30 * GST_SECOND,
      GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *text;

  fail_unless (msg != NULL, "no error posted");
  gst_message_parse_error (msg, &err, NULL);
  text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  return text;
}

/* Returns the next plan-reduce element message's structure (a copy). */
static GstStructure *
expect_message (Reduce * r)
{
  GstMessage *msg = gst_bus_timed_pop_filtered (r->bus, 30 * GST_SECOND,
      GST_MESSAGE_ELEMENT);
  GstStructure *s;

  fail_unless (msg != NULL, "no element message posted");
  fail_unless (gst_message_has_name (msg, PLAN_REDUCER_MESSAGE_NAME));
  s = gst_structure_copy (gst_message_get_structure (msg));
  gst_message_unref (msg);
  return s;
}

/* An element that cannot start; returns the error it posted. */
static gchar *
start_error (const gchar * first_prop, ...)
{
  GstElement *e = gst_element_factory_make ("planreduce", NULL);
  GstBus *bus = gst_bus_new ();
  const gchar *name;
  GstMessage *msg;
  GError *err = NULL;
  gchar *text;
  va_list args;

  gst_element_set_bus (e, bus);
  va_start (args, first_prop);
  for (name = first_prop; name; name = va_arg (args, const gchar *))
    gst_util_set_object_arg (G_OBJECT (e), name, va_arg (args, const gchar *));
  va_end (args);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error posted");
  gst_message_parse_error (msg, &err, NULL);
  text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  return text;
}

/* Deterministic pseudo-random floats with magnitudes 1e-3 .. 1e3. */
static void
fill_random_f64 (gdouble * x, gsize n, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  gsize i;

  for (i = 0; i < n; i++)
    x[i] = g_rand_double_range (rand, -1.0, 1.0) *
        pow (10.0, g_rand_int_range (rand, -3, 4));
  g_rand_free (rand);
}

/* Ops on one small stream --------------------------------------------------- */

static const gint32 small_i32[] = { 5, -3, 7, 7, -3, 0, 2 };

static void
check_i32_op (const gchar * op, const gchar * want_dtype, gconstpointer want,
    gsize want_size)
{
  Reduce r;
  guint8 got[8];
  gchar *caps;

  reduce_init (&r, "array/x-raw, dtype=int32, shape=<7>", "op", op, NULL);
  push_rows (&r, small_i32, 7, 4, 3);
  push_eos (&r);
  pull_result (&r, got, want_size, 1);
  fail_unless (memcmp (got, want, want_size) == 0, "op %s", op);
  caps = output_caps (&r);
  fail_unless (strstr (caps, want_dtype) != NULL, "%s: %s", op, caps);
  g_free (caps);
  reduce_teardown (&r);
}

GST_START_TEST (test_reduce_each_op_on_int32)
{
  gint64 sum = 15, prod = 0, argmin = 1, argmax = 2;
  gint32 min = -3, max = 7;
  gdouble mean = 15.0 / 7;
  guint8 any = 1, all = 0;

  check_i32_op ("sum", "int64", &sum, 8);
  check_i32_op ("prod", "int64", &prod, 8);
  check_i32_op ("min", "int32", &min, 4);
  check_i32_op ("max", "int32", &max, 4);
  check_i32_op ("mean", "float64", &mean, 8);
  check_i32_op ("argmin", "int64", &argmin, 8);
  check_i32_op ("argmax", "int64", &argmax, 8);
  check_i32_op ("any", "bool", &any, 1);
  check_i32_op ("all", "bool", &all, 1);
}

GST_END_TEST;

GST_START_TEST (test_reduce_float32_sum_keeps_dtype_and_is_0d)
{
  static const gfloat x[] = { 0.5f, 1.25f, -2.0f, 4.0f };
  gfloat got, want = 3.75f;
  GstStructure *s;
  gchar *caps;
  gdouble value;

  {
    Reduce r;

    reduce_init (&r, "array/x-raw, dtype=float32, shape=<4>", NULL);
    push_rows (&r, x, 4, 4, 4);
    push_eos (&r);
    pull_result (&r, &got, 4, 1);
    fail_unless (got == want);
    caps = output_caps (&r);
    fail_unless (strstr (caps, "float32") != NULL, "%s", caps);
    fail_unless (strstr (caps, "shape=(int)<  >") != NULL, "%s", caps);
    g_free (caps);

    s = expect_message (&r);
    fail_unless_equals_string (gst_structure_get_string (s, "element"),
        GST_ELEMENT_NAME (r.h->element));
    fail_unless_equals_string (gst_structure_get_string (s, "dtype"),
        "float32");
    fail_unless_equals_string (gst_structure_get_string (s, "op"), "sum");
    fail_unless (gst_structure_get_double (s, "value", &value));
    fail_unless (value == 3.75);
    fail_unless_equals_int (gst_value_array_get_size (gst_structure_get_value
            (s, "shape")), 0);
    gst_structure_free (s);
    reduce_teardown (&r);
  }
}

GST_END_TEST;

GST_START_TEST (test_reduce_result_property_equals_message)
{
  static const guint16 x[] = { 3, 9, 1 };
  GstStructure *msg, *prop = NULL;
  guint64 got;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=uint16, shape=<-1>", "op", "sum",
      NULL);
  g_object_get (r.h->element, "result", &prop, NULL);
  fail_unless (prop == NULL);
  push_rows (&r, x, 3, 2, 2);
  push_eos (&r);
  pull_result (&r, &got, 8, 1);
  fail_unless_equals_uint64 (got, 13);
  msg = expect_message (&r);
  g_object_get (r.h->element, "result", &prop, NULL);
  fail_unless (prop != NULL);
  fail_unless (gst_structure_is_equal (msg, prop));
  fail_unless (G_VALUE_HOLDS_UINT64 (gst_structure_get_value (msg, "value")));
  fail_unless_equals_uint64 (g_value_get_uint64 (gst_structure_get_value (msg,
              "value")), 13);
  gst_structure_free (msg);
  gst_structure_free (prop);
  reduce_teardown (&r);
}

GST_END_TEST;

/* axis=-1 posts one message by default, at the end, saying how many rows
 * were reduced, without the values (they are in the output stream); the
 * result property holds the last chunk's. A message per chunk is what
 * chunk-messages asks for. */
GST_START_TEST (test_reduce_axis_minus_1_posts_one_message_by_default)
{
  static const gint32 rows[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
  GstStructure *s, *prop = NULL;
  guint64 first_row;
  GstMessage *msg;
  GstEvent *ev;
  Reduce r;
  gint i;

  reduce_init (&r, "array/x-raw, dtype=int32, shape=<4, 3>", "op", "sum",
      "axis", "-1", NULL);
  push_rows (&r, rows, 4, 12, 1);
  push_eos (&r);
  for (i = 0; i < 4; i++) {
    GstBuffer *buf = gst_harness_pull (r.h);

    fail_unless (buf != NULL);
    gst_buffer_unref (buf);
  }
  s = expect_message (&r);
  fail_unless (gst_structure_get_uint64 (s, "rows", &first_row));
  fail_unless_equals_uint64 (first_row, 4);
  fail_if (gst_structure_has_field (s, "values"));
  fail_unless_equals_int (gst_value_array_get_size (gst_structure_get_value
          (s, "shape")), 1);
  fail_unless_equals_int64 (g_value_get_int64 (gst_value_array_get_value
          (gst_structure_get_value (s, "shape"), 0)), 4);
  gst_structure_free (s);
  /* After EOS no message is still to come. */
  while ((ev = gst_harness_pull_event (r.h)) != NULL) {
    gboolean eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;

    gst_event_unref (ev);
    if (eos)
      break;
  }
  while ((msg = gst_bus_pop_filtered (r.bus, GST_MESSAGE_ELEMENT))) {
    fail_if (gst_message_has_name (msg, PLAN_REDUCER_MESSAGE_NAME),
        "a second message");
    gst_message_unref (msg);
  }
  g_object_get (r.h->element, "result", &prop, NULL);
  fail_unless (prop != NULL);
  fail_unless (gst_structure_get_uint64 (prop, "first-row", &first_row));
  fail_unless_equals_uint64 (first_row, 3);
  gst_structure_free (prop);
  reduce_teardown (&r);
}

GST_END_TEST;

GST_START_TEST (test_reduce_post_messages_off)
{
  static const gint8 x[] = { 1, 2 };
  GstStructure *prop = NULL;
  gint64 got;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=int8, shape=<2>", "post-messages",
      "false", NULL);
  push_rows (&r, x, 2, 1, 2);
  push_eos (&r);
  pull_result (&r, &got, 8, 1);
  fail_unless_equals_int64 (got, 3);
  fail_unless (gst_bus_pop_filtered (r.bus, GST_MESSAGE_ELEMENT) == NULL);
  g_object_get (r.h->element, "result", &prop, NULL);
  fail_unless (prop != NULL);
  gst_structure_free (prop);
  reduce_teardown (&r);
}

GST_END_TEST;

GST_START_TEST (test_reduce_bool_sum_counts_true)
{
  static const guint8 x[] = { 1, 0, 1, 1, 0 };
  gint64 got;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=bool, shape=<5>", "op", "sum", NULL);
  push_rows (&r, x, 5, 1, 2);
  push_eos (&r);
  pull_result (&r, &got, 8, 1);
  fail_unless_equals_int64 (got, 3);
  reduce_teardown (&r);
}

GST_END_TEST;

GST_START_TEST (test_reduce_integer_sum_wraps_as_numpy)
{
  static const guint64 x[] = { G_MAXUINT64, 2 };
  guint64 got;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=uint64, shape=<2>", NULL);
  push_rows (&r, x, 2, 8, 1);
  push_eos (&r);
  pull_result (&r, &got, 8, 1);
  fail_unless_equals_uint64 (got, 1);
  reduce_teardown (&r);
}

GST_END_TEST;

/* Axes -------------------------------------------------------------------- */

/* A 4 x 3 int32 matrix, 0 .. 11. */
static const gint32 matrix[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };

GST_START_TEST (test_reduce_axis_0_gives_inner_shape)
{
  gint64 got[3], want[3] = { 18, 22, 26 };
  GstStructure *s;
  gchar *caps;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=int32, shape=<4, 3>", "axis", "0",
      NULL);
  push_rows (&r, matrix, 4, 12, 3);
  push_eos (&r);
  pull_result (&r, got, sizeof (got), 3);
  fail_unless (memcmp (got, want, sizeof (got)) == 0);
  caps = output_caps (&r);
  fail_unless (strstr (caps, "shape=(int)< 3 >") != NULL, "%s", caps);
  g_free (caps);
  s = expect_message (&r);
  fail_unless_equals_int (gst_value_array_get_size (gst_structure_get_value
          (s, "values")), 3);
  fail_unless_equals_int64 (g_value_get_int64 (gst_value_array_get_value
          (gst_structure_get_value (s, "values"), 2)), 26);
  gst_structure_free (s);
  reduce_teardown (&r);
}

GST_END_TEST;

/* Streams joined one after another (concat: a STREAM_START with no EOS
 * between them) are reduced one by one: the result of the stream before
 * goes out when the next begins, as at its EOS. The second stream's
 * segment used to start the reduction over, and the first's rows were
 * lost. */
GST_START_TEST (test_reduce_new_stream_ends_the_one_before)
{
  gint64 got[3], first[3] = { 3, 5, 7 }, second[3] = { 15, 17, 19 };
  GstSegment segment;
  GstCaps *caps;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=int32, shape=<2, 3>", "axis", "0",
      NULL);
  push_rows (&r, matrix, 2, 12, 1);
  fail_unless (gst_harness_push_event (r.h,
          gst_event_new_stream_start ("the second stream")));
  caps = gst_caps_from_string ("array/x-raw, dtype=int32, shape=<2, 3>");
  fail_unless (gst_harness_push_event (r.h, gst_event_new_caps (caps)));
  gst_caps_unref (caps);
  gst_segment_init (&segment, GST_FORMAT_DEFAULT);
  fail_unless (gst_harness_push_event (r.h, gst_event_new_segment (&segment)));
  push_rows (&r, matrix + 6, 2, 12, 1);
  push_eos (&r);
  pull_result (&r, got, sizeof (got), 3);
  fail_unless (memcmp (got, first, sizeof (got)) == 0,
      "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT,
      got[0], got[1], got[2]);
  pull_result (&r, got, sizeof (got), 3);
  fail_unless (memcmp (got, second, sizeof (got)) == 0,
      "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT,
      got[0], got[1], got[2]);
  reduce_teardown (&r);
}

GST_END_TEST;

/* A segment seek's range ends with SEGMENT_DONE, not EOS (an application
 * looping over rows): the reduction of the range goes out before the
 * SEGMENT_DONE, and the next range is reduced afresh. There was no result
 * at all. */
GST_START_TEST (test_reduce_segment_done_pushes_the_result)
{
  gint64 got[3], first[3] = { 3, 5, 7 }, second[3] = { 15, 17, 19 };
  GstSegment segment;
  GstEvent *event;
  GstBuffer *buf;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=int32, shape=<4, 3>", "axis", "0",
      NULL);
  /* A segment seek's first range: rows 0 to 2. */
  gst_segment_init (&segment, GST_FORMAT_DEFAULT);
  segment.stop = 2;
  fail_unless (gst_harness_push_event (r.h, gst_event_new_segment (&segment)));
  push_rows (&r, matrix, 2, 12, 1);
  fail_unless (gst_harness_push_event (r.h,
          gst_event_new_segment_done (GST_FORMAT_DEFAULT, 2)));
  pull_result (&r, got, sizeof (got), 3);
  fail_unless (memcmp (got, first, sizeof (got)) == 0,
      "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT,
      got[0], got[1], got[2]);
  /* The SEGMENT_DONE follows the result. */
  while ((event = gst_harness_pull_event (r.h)) != NULL
      && GST_EVENT_TYPE (event) != GST_EVENT_SEGMENT_DONE)
    gst_event_unref (event);
  fail_unless (event != NULL, "no SEGMENT_DONE downstream");
  gst_event_unref (event);

  gst_segment_init (&segment, GST_FORMAT_DEFAULT);
  segment.start = segment.time = segment.position = 2;
  segment.stop = 4;
  fail_unless (gst_harness_push_event (r.h, gst_event_new_segment (&segment)));
  buf = gst_buffer_new_memdup (matrix + 6, 24);
  GST_BUFFER_OFFSET (buf) = 2;
  GST_BUFFER_OFFSET_END (buf) = 4;
  fail_unless_equals_int (gst_harness_push (r.h, buf), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (r.h,
          gst_event_new_segment_done (GST_FORMAT_DEFAULT, 4)));
  pull_result (&r, got, sizeof (got), 3);
  fail_unless (memcmp (got, second, sizeof (got)) == 0,
      "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT,
      got[0], got[1], got[2]);
  reduce_teardown (&r);
}

GST_END_TEST;

GST_START_TEST (test_reduce_axis_0_argmax_gives_row_index)
{
  static const gfloat x[] = { 1, 9, 3, 9, 2, 8 };
  gint64 got[2], want[2] = { 1, 0 };
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=float32, shape=<3, 2>", "op",
      "argmax", "axis", "0", NULL);
  push_rows (&r, x, 3, 8, 1);
  push_eos (&r);
  pull_result (&r, got, sizeof (got), 2);
  fail_unless (memcmp (got, want, sizeof (got)) == 0);
  reduce_teardown (&r);
}

GST_END_TEST;

GST_START_TEST (test_reduce_axis_0_on_1d_is_all)
{
  gint64 got;
  gchar *caps;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=int32, shape=<12>", "axis", "0",
      NULL);
  push_rows (&r, matrix, 12, 4, 5);
  push_eos (&r);
  pull_result (&r, &got, 8, 1);
  fail_unless_equals_int64 (got, 66);
  caps = output_caps (&r);
  fail_unless (strstr (caps, "shape=(int)<  >") != NULL, "%s", caps);
  g_free (caps);
  reduce_teardown (&r);
}

GST_END_TEST;

GST_START_TEST (test_reduce_axis_minus_1_streams_one_value_per_row)
{
  gdouble want[4] = { 1, 4, 7, 10 };
  guint64 expect_row = 0;
  GstStructure *s;
  gchar *caps;
  Reduce r;
  gint i;

  reduce_init (&r, "array/x-raw, dtype=int32, shape=<4, 3>", "op", "mean",
      "axis", "-1", "chunk-messages", "true", NULL);
  push_rows (&r, matrix, 4, 12, 3);
  push_eos (&r);
  /* Two chunks in, two out, stamped with the rows they hold. */
  for (i = 0; i < 2; i++) {
    GstBuffer *buf = gst_harness_pull (r.h);
    gsize n = gst_buffer_get_size (buf) / 8;
    gdouble got[3];
    guint64 first_row;

    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), expect_row);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), expect_row + n);
    gst_buffer_extract (buf, 0, got, n * 8);
    fail_unless (memcmp (got, want + expect_row, n * 8) == 0);
    s = expect_message (&r);
    fail_unless (gst_structure_get_uint64 (s, "first-row", &first_row));
    fail_unless_equals_uint64 (first_row, expect_row);
    fail_unless_equals_int (gst_value_array_get_size (gst_structure_get_value
            (s, "values")), n);
    gst_structure_free (s);
    expect_row += n;
    gst_buffer_unref (buf);
  }
  fail_unless_equals_uint64 (expect_row, 4);
  caps = output_caps (&r);
  fail_unless (strstr (caps, "float64") != NULL, "%s", caps);
  fail_unless (strstr (caps, "shape=(int)< 4 >") != NULL, "%s", caps);
  g_free (caps);
  reduce_teardown (&r);
}

GST_END_TEST;

/* Determinism ------------------------------------------------------------- */

/* Reduces @x (n values of float64, or float32 when @f32) as a stream of
 * rows of @inner values in chunks of @chunk rows with @threads threads;
 * returns the @out_bytes bytes of results. */
static GBytes *
reduce_stream (const gchar * op, const gchar * axis, gconstpointer x,
    gsize n, gboolean f32, gsize inner, gsize chunk, const gchar * threads,
    gsize out_bytes)
{
  gsize es = f32 ? 4 : 8, rows = n / inner;
  const gchar *dtype = f32 ? "float32" : "float64";
  gchar *caps = inner > 1 ?
      g_strdup_printf ("array/x-raw, dtype=%s, shape=<%" G_GSIZE_FORMAT
      ", %" G_GSIZE_FORMAT ">", dtype, rows, inner) :
      g_strdup_printf ("array/x-raw, dtype=%s, shape=<%" G_GSIZE_FORMAT ">",
      dtype, rows);
  GBytes *out;
  Reduce r;

  reduce_init (&r, caps, "op", op, "axis", axis, "n-threads", threads,
      "post-messages", "false", NULL);
  push_rows (&r, x, rows, inner * es, chunk);
  push_eos (&r);
  out = pull_bytes (r.h, out_bytes);
  reduce_teardown (&r);
  g_free (caps);
  return out;
}

/* Chunk sizes in rows; 0 ends the list, G_MAXSIZE means the whole stream
 * in one buffer. */
static const gsize default_chunks[] = { 1, 13, 2047, 4096, G_MAXSIZE, 0 };
static const gsize large_chunks[] = { 4099, 100003, G_MAXSIZE, 0 };

static void
check_invariant (const gchar * op, const gchar * axis, gconstpointer x,
    gsize n, gboolean f32, gsize inner, gsize out_bytes,
    const gsize * chunks)
{
  static const gchar *threads[] = { "1", "3", "0" };
  GBytes *first = NULL;
  guint c, t;

  for (c = 0; chunks[c] != 0; c++) {
    for (t = 0; t < G_N_ELEMENTS (threads); t++) {
      gsize chunk = MIN (chunks[c], n / inner);
      GBytes *got;

      /* Single-row chunks of a long 1-D stream take long; once is
       * enough. */
      if (chunk == 1 && t > 0)
        continue;
      got = reduce_stream (op, axis, x, n, f32, inner, chunk, threads[t],
          out_bytes);
      if (first == NULL)
        first = g_bytes_ref (got);
      fail_unless (g_bytes_equal (first, got),
          "%s axis %s differs with chunks of %" G_GSIZE_FORMAT
          " rows and %s threads", op, axis, chunk, threads[t]);
      g_bytes_unref (got);
    }
  }
  g_bytes_unref (first);
}

GST_START_TEST (test_reduce_float_sum_invariant_to_chunks_and_threads)
{
  gsize n = 20011;
  gdouble *x = g_new (gdouble, n);
  gfloat *y = g_new (gfloat, n);
  gsize i;

  fill_random_f64 (x, n, 7);
  for (i = 0; i < n; i++)
    y[i] = (gfloat) x[i];
  check_invariant ("sum", "all", x, n, FALSE, 1, 8, default_chunks);
  check_invariant ("sum", "all", y, n, TRUE, 1, 4, default_chunks);
  check_invariant ("mean", "all", x, n, FALSE, 1, 8, default_chunks);
  check_invariant ("prod", "all", x, 3001, FALSE, 1, 8, default_chunks);
  /* numpy's moments and nan reductions: the same promise. */
  for (i = 0; i < n; i += 17)
    y[i] = NAN;
  check_invariant ("var", "all", x, n, FALSE, 1, 8, default_chunks);
  check_invariant ("std", "all", y, n, TRUE, 1, 4, default_chunks);
  check_invariant ("nanvar", "all", y, n, TRUE, 1, 4, default_chunks);
  check_invariant ("nanmean", "all", y, n, TRUE, 1, 4, default_chunks);
  check_invariant ("nansum", "all", y, n, TRUE, 1, 4, default_chunks);
  check_invariant ("nanargmin", "all", y, n, TRUE, 1, 8, default_chunks);
  g_free (x);
  g_free (y);

  /* Chunks of hundreds of blocks, which the worker threads share. */
  n = 600011;
  x = g_new (gdouble, n);
  y = g_new (gfloat, n);
  fill_random_f64 (x, n, 9);
  for (i = 0; i < n; i++)
    y[i] = (gfloat) x[i];
  check_invariant ("sum", "all", x, n, FALSE, 1, 8, large_chunks);
  check_invariant ("sum", "all", y, n, TRUE, 1, 4, large_chunks);
  check_invariant ("argmin", "all", y, n, TRUE, 1, 8, large_chunks);
  g_free (x);
  g_free (y);
}

GST_END_TEST;

GST_START_TEST (test_reduce_axes_invariant_to_chunks_and_threads)
{
  gsize n = 67 * 7919;
  gdouble *x = g_new (gdouble, n);

  fill_random_f64 (x, n, 11);
  /* Rows of 7919 values span several blocks; 67 rows are enough for the
   * worker threads to share rows, and 7919 columns to share columns. */
  check_invariant ("sum", "-1", x, n, FALSE, 7919, 67 * 8, default_chunks);
  check_invariant ("sum", "0", x, n, FALSE, 7919, 7919 * 8, default_chunks);
  check_invariant ("argmax", "-1", x, n, FALSE, 7919, 67 * 8,
      default_chunks);
  check_invariant ("var", "-1", x, n, FALSE, 7919, 67 * 8, default_chunks);
  check_invariant ("std", "0", x, n, FALSE, 7919, 7919 * 8, default_chunks);
  g_free (x);
}

GST_END_TEST;

/* The element gives exactly what the library gives for the whole array in
 * one call. */
GST_START_TEST (test_reduce_stream_equals_whole_array)
{
  gsize n = 50021;
  gdouble *x = g_new (gdouble, n), whole;
  PlanArrayInfo info;
  gint64 shape[1];
  PlanReducer *red;
  GBytes *got;

  fill_random_f64 (x, n, 3);
  shape[0] = n;
  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT64, 1, shape,
          NULL));
  red = plan_reducer_new (PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ALL, &info,
      NULL);
  fail_unless (plan_reducer_reduce (red, x, n, &whole, NULL));
  plan_reducer_unref (red);
  got = reduce_stream ("sum", "all", x, n, FALSE, 1, 1000, "2", 8);
  fail_unless (memcmp (g_bytes_get_data (got, NULL), &whole, 8) == 0);
  g_bytes_unref (got);
  g_free (x);
}

GST_END_TEST;

/* An info filled in by hand with an inner axis of no elements is refused
 * with an error, as plan_array_info_set() refuses it, not reduced (its rows
 * hold nothing). */
GST_START_TEST (test_reducer_refuses_an_empty_inner_axis)
{
  PlanArrayInfo info;
  GError *err = NULL;
  gint axis;

  plan_array_info_init (&info);
  info.dtype = PLAN_DTYPE_FLOAT32;
  info.ndim = 2;
  info.shape[0] = 3;
  info.shape[1] = 0;
  for (axis = PLAN_REDUCE_AXIS_ALL; axis <= PLAN_REDUCE_AXIS_1; axis++) {
    fail_unless (plan_reducer_new (PLAN_REDUCE_OP_SUM, axis, &info,
            &err) == NULL);
    fail_unless (g_error_matches (err, PLAN_ERROR,
            PLAN_ERROR_INVALID_ARGUMENT));
    fail_unless (strstr (err->message, "axis 1 has 0 elements") != NULL,
        "%s", err->message);
    g_clear_error (&err);
  }
}

GST_END_TEST;

/* A float64 sum is compensated: pairs of large values that cancel leave the
 * small ones exact, where a plain sum loses them. */
GST_START_TEST (test_reduce_float64_sum_is_compensated)
{
  gsize n = 3 * 4096, i;
  gdouble *x = g_new (gdouble, n), got, naive = 0.0, exact = 0.0;
  GRand *rand = g_rand_new_with_seed (5);
  Reduce r;

  for (i = 0; i < n; i += 3) {
    gdouble big = g_rand_double_range (rand, 1e15, 1e16);

    x[i] = big;
    x[i + 1] = 0.125 * g_rand_int_range (rand, 1, 8);
    x[i + 2] = -big;
    exact += x[i + 1];
  }
  for (i = 0; i < n; i++)
    naive += x[i];
  g_rand_free (rand);

  reduce_init (&r, "array/x-raw, dtype=float64, shape=<-1>", NULL);
  push_rows (&r, x, n, 8, 1000);
  push_eos (&r);
  pull_result (&r, &got, 8, 1);
  fail_unless (got == exact, "got %.17g, exact %.17g", got, exact);
  fail_if (naive == exact, "the test data does not need compensation");
  reduce_teardown (&r);
  g_free (x);
}

GST_END_TEST;

/* NaN --------------------------------------------------------------------- */

static const gdouble with_nan[] = { 3.0, -1.0, NAN, -7.0, NAN, 2.0 };

static void
reduce_nan (const gchar * op, gpointer out, gsize size)
{
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=float64, shape=<6>", "op", op, NULL);
  push_rows (&r, with_nan, 6, 8, 4);
  push_eos (&r);
  pull_result (&r, out, size, 1);
  reduce_teardown (&r);
}

GST_START_TEST (test_reduce_nan_propagates_as_numpy)
{
  gdouble v;
  gint64 i;
  guint8 b;

  reduce_nan ("sum", &v, 8);
  fail_unless (isnan (v));
  reduce_nan ("min", &v, 8);
  fail_unless (isnan (v));
  reduce_nan ("max", &v, 8);
  fail_unless (isnan (v));
  reduce_nan ("mean", &v, 8);
  fail_unless (isnan (v));
  /* The first NaN wins argmin and argmax, as in numpy. */
  reduce_nan ("argmin", &i, 8);
  fail_unless_equals_int64 (i, 2);
  reduce_nan ("argmax", &i, 8);
  fail_unless_equals_int64 (i, 2);
  /* NaN is true. */
  reduce_nan ("all", &b, 1);
  fail_unless_equals_int (b, 1);
}

GST_END_TEST;

GST_START_TEST (test_reduce_infinities_sum_as_ieee)
{
  static const gdouble x[] = { 1.0, INFINITY, 2.0 };
  static const gdouble y[] = { INFINITY, -INFINITY };
  gdouble got;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=float64, shape=<3>", NULL);
  push_rows (&r, x, 3, 8, 3);
  push_eos (&r);
  pull_result (&r, &got, 8, 1);
  fail_unless (isinf (got) && got > 0);
  reduce_teardown (&r);

  reduce_init (&r, "array/x-raw, dtype=float64, shape=<2>", NULL);
  push_rows (&r, y, 2, 8, 2);
  push_eos (&r);
  pull_result (&r, &got, 8, 1);
  fail_unless (isnan (got));
  reduce_teardown (&r);
}

GST_END_TEST;

/* Empty streams ----------------------------------------------------------- */

GST_START_TEST (test_reduce_empty_stream_sum_is_identity)
{
  gint64 got = -1;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=int32, shape=<0>", "op", "sum", NULL);
  push_eos (&r);
  pull_result (&r, &got, 8, 1);
  fail_unless_equals_int64 (got, 0);
  reduce_teardown (&r);
}

GST_END_TEST;

GST_START_TEST (test_reduce_empty_stream_prod_is_one)
{
  gdouble got = 0;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=float64, shape=<0>", "op", "prod",
      NULL);
  push_eos (&r);
  pull_result (&r, &got, 8, 1);
  fail_unless (got == 1.0);
  reduce_teardown (&r);
}

GST_END_TEST;

GST_START_TEST (test_reduce_empty_stream_mean_is_nan)
{
  gfloat got = 0;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=float32, shape=<0>", "op", "mean",
      NULL);
  push_eos (&r);
  pull_result (&r, &got, 4, 1);
  fail_unless (isnan (got));
  reduce_teardown (&r);
}

GST_END_TEST;

/* More rows than the caps announce: the reduction was over them all, of
 * a stream whose caps said otherwise. */
GST_START_TEST (test_reduce_more_rows_than_announced_is_an_error)
{
  static const gfloat x[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  gchar *text;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=float32, shape=<2, 3>", NULL);
  gst_harness_push (r.h, gst_buffer_new_memdup (x, sizeof (x)));
  gst_harness_push_event (r.h, gst_event_new_eos ());
  text = expect_error (&r);
  fail_unless (strstr (text, "Input sink of planreduce") != NULL
      && strstr (text, "sent 4 rows, more than the 2 it announced") != NULL,
      "%s", text);
  g_free (text);
  reduce_teardown (&r);
}

GST_END_TEST;

/* Sends new caps alone, as appsrc does when its caps property changes
 * (gst_harness_set_src_caps() starts a new stream and segment too). */
static void
push_caps_only (Reduce * r, const gchar * caps)
{
  GstCaps *c = gst_caps_from_string (caps);

  fail_unless (gst_harness_push_event (r->h, gst_event_new_caps (c)));
  gst_caps_unref (c);
}

/* Caps that change the input's dtype or row shape after rows came: a
 * reduction restarted there, silently, and gave the reduction of the rows
 * after the change as the stream's. */
GST_START_TEST (test_reduce_caps_changed_mid_stream_is_an_error)
{
  static const gfloat x[] = { 1, 1, 1, 1, 1, 1 };
  static const gdouble y[] = { 2, 2, 2, 2, 2, 2 };
  gchar *text;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=float32, shape=<-1, 3>", NULL);
  push_rows (&r, x, 2, 3 * sizeof (gfloat), 2);
  push_caps_only (&r, "array/x-raw, dtype=float64, "
      "shape=<-1, 3>");
  gst_harness_push (r.h, gst_buffer_new_memdup (y, sizeof (y)));
  gst_harness_push_event (r.h, gst_event_new_eos ());
  text = expect_error (&r);
  fail_unless (strstr (text, "Input sink of planreduce") != NULL
      && strstr (text, "changed from float32 (-1, 3) to float64 (-1, 3) in "
          "the middle of the stream, after 2 rows") != NULL, "%s", text);
  g_free (text);
  reduce_teardown (&r);

  reduce_init (&r, "array/x-raw, dtype=float32, shape=<-1, 3>", "axis", "0",
      NULL);
  push_rows (&r, x, 2, 3 * sizeof (gfloat), 2);
  push_caps_only (&r, "array/x-raw, dtype=float32, "
      "shape=<-1, 2>");
  gst_harness_push (r.h, gst_buffer_new_memdup (x, sizeof (x)));
  gst_harness_push_event (r.h, gst_event_new_eos ());
  text = expect_error (&r);
  fail_unless (strstr (text, "changed from float32 (-1, 3) to float32 "
          "(-1, 2)") != NULL, "%s", text);
  g_free (text);
  reduce_teardown (&r);
}

GST_END_TEST;

GST_START_TEST (test_reduce_empty_stream_min_fails)
{
  gchar *text;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=float32, shape=<0>", "op", "min",
      NULL);
  push_eos (&r);
  text = expect_error (&r);
  fail_unless (strstr (text, "min") != NULL, "%s", text);
  fail_unless (strstr (text, "empty") != NULL, "%s", text);
  fail_unless (strstr (text, "no identity") != NULL, "%s", text);
  g_free (text);
  reduce_teardown (&r);
}

GST_END_TEST;

GST_START_TEST (test_reduce_empty_stream_argmax_fails)
{
  gchar *text;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=int8, shape=<0, 4>", "op", "argmax",
      "axis", "0", NULL);
  push_eos (&r);
  text = expect_error (&r);
  fail_unless (strstr (text, "argmax") != NULL, "%s", text);
  g_free (text);
  reduce_teardown (&r);
}

GST_END_TEST;

/* Custom combiners -------------------------------------------------------- */

static const gfloat three_f32[] = { 1, 2, 3 };
static const gint8 three_i8[] = { 1, 2, 3 };

GST_START_TEST (test_reduce_custom_combiner)
{
  static const gint32 x[] = { 4, -9, 12, 3, 12, -1 };
  gint32 got;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=int32, shape=<6>", "expr",
      "max(x, y)", "identity", "-2147483648", NULL);
  push_rows (&r, x, 6, 4, 4);
  push_eos (&r);
  pull_result (&r, &got, 4, 1);
  fail_unless_equals_int (got, 12);
  reduce_teardown (&r);
}

GST_END_TEST;

/* Set when a buffer pushed into the element is freed. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean freed;
} Freed;

static void
on_buffer_freed (gpointer user_data, GstMiniObject * obj)
{
  Freed *f = user_data;

  g_mutex_lock (&f->lock);
  f->freed = TRUE;
  g_cond_signal (&f->cond);
  g_mutex_unlock (&f->lock);
}

/* Pushes @n_bytes of zeros as rows 0 .. @n_rows and returns whether the
 * element lets go of them within 5 s, while no other buffer comes. */
static gboolean
push_and_see_freed (Reduce * r, gsize n_bytes, guint64 n_rows)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n_bytes, NULL);
  gint64 until = g_get_monotonic_time () + 5 * G_TIME_SPAN_SECOND;
  Freed f = { 0 };
  gboolean freed;

  g_mutex_init (&f.lock);
  g_cond_init (&f.cond);
  gst_buffer_memset (buf, 0, 0, n_bytes);
  GST_BUFFER_OFFSET (buf) = 0;
  GST_BUFFER_OFFSET_END (buf) = n_rows;
  gst_mini_object_weak_ref (GST_MINI_OBJECT (buf), on_buffer_freed, &f);
  fail_unless_equals_int (gst_harness_push (r->h, buf), GST_FLOW_OK);
  g_mutex_lock (&f.lock);
  while (!f.freed && g_cond_wait_until (&f.cond, &f.lock, until));
  freed = f.freed;
  g_mutex_unlock (&f.lock);
  /* The buffer may still be freed later, by the teardown: only once
   * freed may @f go. */
  if (!freed) {
    push_eos (r);
    g_mutex_lock (&f.lock);
    while (!f.freed)
      g_cond_wait (&f.cond, &f.lock);
    g_mutex_unlock (&f.lock);
  }
  g_mutex_clear (&f.lock);
  g_cond_clear (&f.cond);
  return freed;
}

/* A chunk that the reducer is done with when its push returns (along axis
 * 0: rows wider than its column blocks, a combiner of the user's) goes
 * back upstream then, not when the next chunk comes. */
GST_START_TEST (test_reduce_lets_go_of_chunks_it_is_done_with)
{
  gfloat sums[2000];
  gint32 best[2];
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=float32, shape=<2, 2000>", "op", "sum",
      "axis", "0", "n-threads", "0", NULL);
  fail_unless (push_and_see_freed (&r, 2 * sizeof sums, 2),
      "planreduce held rows of 2000 after reducing them");
  push_eos (&r);
  pull_result (&r, sums, sizeof sums, 2000);
  fail_unless (sums[0] == 0 && sums[1999] == 0);
  reduce_teardown (&r);

  reduce_init (&r, "array/x-raw, dtype=int32, shape=<4096, 2>", "expr",
      "max(x, y)", "identity", "-2147483648", "axis", "0", "n-threads", "0",
      NULL);
  fail_unless (push_and_see_freed (&r, 4096 * sizeof best, 4096),
      "planreduce held the rows of a custom combiner after reducing them");
  push_eos (&r);
  pull_result (&r, best, sizeof best, 2);
  fail_unless (best[0] == 0 && best[1] == 0);
  reduce_teardown (&r);
}

GST_END_TEST;

GST_START_TEST (test_reduce_custom_sum_axis_0)
{
  static const gdouble x[] = { 1, 2, 3, 4, 5, 6 };
  gdouble got[2], want[2] = { 9, 12 };
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=float64, shape=<3, 2>", "expr",
      "x + y", "identity", "0", "axis", "0", NULL);
  push_rows (&r, x, 3, 16, 2);
  push_eos (&r);
  pull_result (&r, got, 16, 2);
  fail_unless (memcmp (got, want, 16) == 0);
  reduce_teardown (&r);
}

GST_END_TEST;

GST_START_TEST (test_reduce_custom_empty_is_identity)
{
  gdouble got = 0;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=float64, shape=<0>", "expr",
      "fmax(x, y)", "identity", "nan", NULL);
  push_eos (&r);
  pull_result (&r, &got, 8, 1);
  fail_unless (isnan (got));
  reduce_teardown (&r);
}

GST_END_TEST;

/* x + y * 1.0 + x * y * 0.25 gives float64 on int32: the combiner then runs in float64
 * on inputs converted to it. */
GST_START_TEST (test_reduce_custom_combiner_promotes_dtype)
{
  static const gint32 x[] = { 2, 4, 6 };
  gdouble got;
  gchar *caps;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=int32, shape=<3>", "expr",
      "x + y * 1.0 + x * y * 0.25", "identity", "0", NULL);
  push_rows (&r, x, 3, 4, 2);
  push_eos (&r);
  pull_result (&r, &got, 8, 1);
  /* f(x, y) = x + y + xy/4; the tree pads 3 values to 4:
   * f(f(2, 4), f(6, 0)) = f(8, 6) = 26. */
  fail_unless (got == 26.0, "got %g", got);
  caps = output_caps (&r);
  fail_unless (strstr (caps, "float64") != NULL, "%s", caps);
  g_free (caps);
  reduce_teardown (&r);
}

GST_END_TEST;

GST_START_TEST (test_reduce_custom_without_identity_fails)
{
  gchar *text = start_error ("expr", "x + y", NULL);

  fail_unless (strstr (text, "identity") != NULL, "%s", text);
  fail_unless (strstr (text, "x + y") != NULL, "%s", text);
  g_free (text);
}

GST_END_TEST;

GST_START_TEST (test_reduce_invalid_expr_posts_compiler_message)
{
  GError *err = NULL;
  gchar *text;

  fail_if (plan_expr_check ("x +* y", &err));
  text = start_error ("expr", "x +* y", "identity", "0", NULL);
  /* The compiler's own message, as it stands. */
  fail_unless (strstr (text, err->message) != NULL, "%s", text);
  g_free (text);
  g_error_free (err);
}

GST_END_TEST;

GST_START_TEST (test_reduce_expr_unknown_name_fails_at_negotiation)
{
  gchar *text;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=float32, shape=<3>", "expr",
      "x + q", "identity", "0", NULL);
  push_rows (&r, three_f32, 3, 4, 3);
  text = expect_error (&r);
  fail_unless (strstr (text, "q") != NULL, "%s", text);
  fail_unless (strstr (text, GST_ELEMENT_NAME (r.h->element)) != NULL, "%s",
      text);
  g_free (text);
  reduce_teardown (&r);
}

GST_END_TEST;

GST_START_TEST (test_reduce_identity_out_of_range_fails)
{
  gchar *text;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=int8, shape=<3>", "expr",
      "x + y", "identity", "300", NULL);
  push_rows (&r, three_i8, 3, 1, 3);
  text = expect_error (&r);
  fail_unless (strstr (text, "300") != NULL, "%s", text);
  fail_unless (strstr (text, "int8") != NULL, "%s", text);
  g_free (text);
  reduce_teardown (&r);
}

GST_END_TEST;

GST_START_TEST (test_reduce_identity_not_a_number_fails)
{
  gchar *text = start_error ("expr", "x + y", "identity", "zero", NULL);

  fail_unless (strstr (text, "zero") != NULL, "%s", text);
  g_free (text);
}

GST_END_TEST;

GST_START_TEST (test_reduce_unknown_op_is_refused)
{
  GError *err = NULL;
  GstElement *e = gst_parse_launch ("planreduce op=median", &err);
  GEnumClass *klass = g_type_class_ref (PLAN_TYPE_REDUCE_OP);

  fail_unless (err != NULL);
  fail_unless (g_error_matches (err, GST_PARSE_ERROR,
          GST_PARSE_ERROR_COULD_NOT_SET_PROPERTY), "%s", err->message);
  fail_unless (strstr (err->message, "op") != NULL, "%s", err->message);
  fail_unless (strstr (err->message, "median") != NULL, "%s", err->message);
  fail_unless (g_enum_get_value_by_nick (klass, "median") == NULL);
  fail_unless (g_enum_get_value_by_nick (klass, "argmax") != NULL);
  g_type_class_unref (klass);
  g_error_free (err);
  if (e)
    gst_object_unref (e);
}

GST_END_TEST;

/* numpy's axis=1 of a 2-D stream is our axis=-1: the same values. */
GST_START_TEST (test_reduce_axis_1_on_2d_is_axis_minus_1)
{
  gdouble x[6 * 4], want[6];
  GBytes *one, *minus_one;
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (x); i++)
    x[i] = (gdouble) ((i * 7) % 11) - 3.0;
  for (i = 0; i < 6; i++)
    want[i] = x[4 * i] + x[4 * i + 1] + x[4 * i + 2] + x[4 * i + 3];
  one = reduce_stream ("sum", "1", x, 24, FALSE, 4, 4, "1", sizeof (want));
  minus_one = reduce_stream ("sum", "-1", x, 24, FALSE, 4, 4, "1",
      sizeof (want));
  fail_unless (memcmp (g_bytes_get_data (one, NULL), want,
          sizeof (want)) == 0);
  fail_unless (g_bytes_equal (one, minus_one));
  g_bytes_unref (one);
  g_bytes_unref (minus_one);
}

GST_END_TEST;

/* On a stream that is not 2-D, numpy's axis 1 is not what -1 computes:
 * the element fails to start, saying why; a number that is no nick is
 * still refused when the property is set. */
GST_START_TEST (test_reduce_axis_1_refused_off_2d)
{
  const gchar *caps[] = { "array/x-raw, dtype=float64, shape=<5>",
    "array/x-raw, dtype=float64, shape=<2, 3, 4>"
  };
  GError *err = NULL;
  GstElement *e;
  guint k;

  for (k = 0; k < G_N_ELEMENTS (caps); k++) {
    gdouble x[24] = { 0, };
    Reduce r;
    gchar *text;
    GstBuffer *buf;

    reduce_init (&r, caps[k], "axis", "1", NULL);
    buf = gst_buffer_new_memdup (x, k == 0 ? 5 * 8 : 24 * 8);
    GST_BUFFER_OFFSET (buf) = 0;
    GST_BUFFER_OFFSET_END (buf) = k == 0 ? 5 : 2;
    /* planreduce is an aggregator: the push may be queued before the
     * error. */
    gst_harness_push (r.h, buf);
    text = expect_error (&r);
    fail_unless (strstr (text, "axis=1") && strstr (text, "axis=-1")
        && strstr (text, k == 0 ? "1 dimension" : "3 dimensions"), "%s", text);
    g_free (text);
    reduce_teardown (&r);
  }
  e = gst_parse_launch ("planreduce axis=2", &err);
  fail_unless (err != NULL);
  fail_unless (g_error_matches (err, GST_PARSE_ERROR,
          GST_PARSE_ERROR_COULD_NOT_SET_PROPERTY), "%s", err->message);
  g_error_free (err);
  if (e)
    gst_object_unref (e);
}

GST_END_TEST;

/* target=cuda runs on the GPU (tests/check/elements/planreducedevice.c on
 * the sim device); without one the element fails to start, naming what is
 * missing. */
GST_START_TEST (test_reduce_cuda_target_without_device_fails)
{
  PlanDevice *device;
  GstElement *pipeline;
  GstBus *bus;
  GstMessage *msg;
  GError *err = NULL;
  gchar *text;

  g_unsetenv ("GST_PLAN_DEVICE");
  device = plan_device_get ("cuda", NULL);
  if (device != NULL) {
    gst_object_unref (device);
    return;
  }
  pipeline = gst_parse_launch ("fakesrc ! planreduce target=cuda ! fakesink",
      NULL);
  fail_unless (pipeline != NULL);
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error posted");
  gst_message_parse_error (msg, &err, NULL);
  text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  fail_unless (strstr (text, "No device to compute on") != NULL, "%s", text);
  fail_unless (strstr (text, "cuda") != NULL, "%s", text);
  g_free (text);
}

GST_END_TEST;

/* A map before the reduction ------------------------------------------------ */

/* A stream for the map tests: @n_rows rows of @row_size bytes at @data,
 * of caps @caps, pushed @chunk rows a buffer. */
typedef struct
{
  const gchar *caps;
  gconstpointer data;
  gsize n_rows;
  gsize row_size;
  gsize chunk;
} Rows;

/* Sets the name, value pairs of @props (ending with NULL) on @e. */
static void
set_props (GstElement * e, const gchar * const *props)
{
  for (; props[0] != NULL; props += 2)
    gst_util_set_object_arg (G_OBJECT (e), props[0], props[1]);
}

/* planreduce map=@map map-dtype=@map_dtype @props on @in: returns the
 * @out_bytes bytes of results. */
static GBytes *
reduce_fused (const Rows * in, const gchar * map, const gchar * map_dtype,
    const gchar * const *props, gsize out_bytes)
{
  GBytes *out;
  Reduce r;

  reduce_init (&r, NULL, "map", map, "map-dtype", map_dtype ? map_dtype : "unknown",
      "post-messages", "false", NULL);
  set_props (r.h->element, props);
  gst_harness_set_src_caps_str (r.h, in->caps);
  push_rows (&r, in->data, in->n_rows, in->row_size, in->chunk);
  push_eos (&r);
  out = pull_bytes (r.h, out_bytes);
  reduce_teardown (&r);
  return out;
}

/* planmap expr=@map dtype=@map_dtype ! planreduce @props on @in, the
 * buffers planmap pushes going on to planreduce as they come: returns the
 * @out_bytes bytes of results. */
static GBytes *
reduce_unfused (const Rows * in, const gchar * map, const gchar * map_dtype,
    const gchar * const *props, gsize out_bytes)
{
  GstHarness *m = gst_harness_new_with_padnames ("planmap", "sink_0", "src");
  GstBuffer *buf;
  GBytes *out;
  Reduce r;

  gst_util_set_object_arg (G_OBJECT (m->element), "expr", map);
  if (map_dtype)
    gst_util_set_object_arg (G_OBJECT (m->element), "dtype", map_dtype);
  gst_harness_set_src_caps_str (m, in->caps);
  harness_push_rows (m, in->data, in->n_rows, in->row_size, in->chunk);
  fail_unless (gst_harness_push_event (m, gst_event_new_eos ()));

  reduce_init (&r, NULL, "post-messages", "false", NULL);
  set_props (r.h->element, props);
  while (TRUE) {
    fail_unless (gst_harness_pull_until_eos (m, &buf), "no EOS from planmap");
    if (buf == NULL)
      break;
    if (GST_BUFFER_OFFSET (buf) == 0) {
      GstCaps *caps = gst_pad_get_current_caps (m->sinkpad);

      gst_harness_set_src_caps (r.h, caps);
    }
    fail_unless_equals_int (gst_harness_push (r.h, buf), GST_FLOW_OK);
  }
  gst_harness_teardown (m);
  push_eos (&r);
  out = pull_bytes (r.h, out_bytes);
  reduce_teardown (&r);
  return out;
}

/* The map in planreduce gives the bits planmap then planreduce give. */
static void
check_fused (const Rows * in, const gchar * map, const gchar * map_dtype,
    const gchar * const *props, gsize out_bytes)
{
  GBytes *fused = reduce_fused (in, map, map_dtype, props, out_bytes);
  GBytes *unfused = reduce_unfused (in, map, map_dtype, props, out_bytes);
  gchar *what = g_strjoinv (" ", (gchar **) props);

  fail_unless (g_bytes_equal (fused, unfused), "map=\"%s\" %s on %s: not the "
      "bits of planmap ! planreduce", map, what, in->caps);
  g_free (what);
  g_bytes_unref (fused);
  g_bytes_unref (unfused);
}

/* Reductions the map tests run, as name, value pairs. */
static const gchar *const sum_all[] = { "op", "sum", NULL };
static const gchar *const sum_axis_0[] = { "op", "sum", "axis", "0", NULL };

static const gchar *const sum_axis_m1[] = { "op", "sum", "axis", "-1",
  "n-threads", "3", NULL
};

/* 100307 values: 1-D in chunks of several pieces of the map (not
 * multiples of a block), or 2711 rows of 37 in chunks of 1000 rows. */
#define MAP_ROWS 2711
#define MAP_COLS 37
#define MAP_N (MAP_ROWS * MAP_COLS)

GST_START_TEST (test_reduce_map_float32_equals_map_then_reduce)
{
  static const gchar *const max_combiner[] = { "expr", "max(x, y)",
    "identity", "-inf", NULL
  };
  gdouble *x = g_new (gdouble, MAP_N);
  gfloat *y = g_new (gfloat, MAP_N);
  Rows flat = { "array/x-raw, dtype=float32, shape=<100307>", y, MAP_N, 4,
    40009
  };
  Rows grid = { "array/x-raw, dtype=float32, shape=<2711, 37>", y, MAP_ROWS,
    MAP_COLS * 4, 1000
  };
  gsize i;

  fill_random_f64 (x, MAP_N, 5);
  for (i = 0; i < MAP_N; i++)
    y[i] = (gfloat) x[i];
  check_fused (&flat, "x*x + 1", NULL, sum_all, 4);
  check_fused (&grid, "x*x + 1", NULL, sum_axis_0, MAP_COLS * 4);
  check_fused (&grid, "in0*in0 + 1", NULL, sum_axis_m1, MAP_ROWS * 4);
  check_fused (&flat, "abs(x)", NULL, max_combiner, 4);
  g_free (x);
  g_free (y);
}

GST_END_TEST;

GST_START_TEST (test_reduce_map_int32_equals_map_then_reduce)
{
  gint32 *x = g_new (gint32, MAP_N);
  GRand *rand = g_rand_new_with_seed (6);
  Rows flat = { "array/x-raw, dtype=int32, shape=<100307>", x, MAP_N, 4,
    40009
  };
  Rows grid = { "array/x-raw, dtype=int32, shape=<2711, 37>", x, MAP_ROWS,
    MAP_COLS * 4, 1000
  };
  gsize i;

  /* x*x wraps around in int32 for most of them, in both. */
  for (i = 0; i < MAP_N; i++)
    x[i] = g_rand_int_range (rand, -100000, 100000);
  g_rand_free (rand);
  check_fused (&flat, "x*x + 1", NULL, sum_all, 8);
  check_fused (&grid, "x*x + 1", NULL, sum_axis_0, MAP_COLS * 8);
  check_fused (&grid, "x*x + 1", NULL, sum_axis_m1, MAP_ROWS * 8);
  g_free (x);
}

GST_END_TEST;

GST_START_TEST (test_reduce_map_dtype_casts_as_planmap_dtype)
{
  static const gchar *const max_axis_m1[] = { "op", "max", "axis", "-1",
    NULL
  };
  gint32 *x = g_new (gint32, MAP_N);
  gfloat *y = g_new (gfloat, MAP_N);
  Rows flat = { "array/x-raw, dtype=float32, shape=<100307>", y, MAP_N, 4,
    40009
  };
  Rows grid = { "array/x-raw, dtype=int32, shape=<2711, 37>", x, MAP_ROWS,
    MAP_COLS * 4, 1000
  };
  gsize i;

  for (i = 0; i < MAP_N; i++) {
    x[i] = (gint32) (i * 2654435761u);
    y[i] = (gfloat) x[i];
  }
  /* float32 values summed in float64: 8 bytes, where the map's own
   * float32 would give 4. */
  check_fused (&flat, "x * 0.1", "float64", sum_all, 8);
  /* int32 squares cut to int16, whose max is an int16. */
  check_fused (&grid, "x*x", "int16", max_axis_m1, MAP_ROWS * 2);
  g_free (x);
  g_free (y);
}

GST_END_TEST;

GST_START_TEST (test_reduce_invalid_map_posts_compiler_message)
{
  GError *err = NULL;
  gchar *text;

  fail_if (plan_expr_check ("x +* 2", &err));
  text = start_error ("map", "x +* 2", NULL);
  fail_unless (strstr (text, "map \"x +* 2\"") != NULL, "%s", text);
  fail_unless (strstr (text, err->message) != NULL, "%s", text);
  g_free (text);
  g_error_free (err);
}

GST_END_TEST;

GST_START_TEST (test_reduce_invalid_map_reads_back_as_set)
{
  GstElement *e = gst_element_factory_make ("planreduce", NULL);
  gchar *map;

  gst_util_set_object_arg (G_OBJECT (e), "map", "x +* 2");
  g_object_get (e, "map", &map, NULL);
  fail_unless_equals_string (map, "x +* 2");
  g_free (map);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_reduce_map_unknown_name_fails_at_negotiation)
{
  gchar *text, *want;
  Reduce r;

  reduce_init (&r, "array/x-raw, dtype=float32, shape=<3>", "map", "x + y",
      NULL);
  push_rows (&r, three_f32, 3, 4, 3);
  text = expect_error (&r);
  want = g_strdup_printf ("planreduce %s, map \"x + y\": ",
      GST_ELEMENT_NAME (r.h->element));
  fail_unless (g_str_has_prefix (text, want), "%s", text);
  fail_unless (strstr (text, "unknown name 'y'") != NULL, "%s", text);
  g_free (want);
  g_free (text);
  reduce_teardown (&r);
}

GST_END_TEST;

/* Result dtypes ------------------------------------------------------------- */

GST_START_TEST (test_reduce_result_dtypes_follow_numpy)
{
  fail_unless_equals_int (plan_reduce_op_get_result_dtype (PLAN_REDUCE_OP_SUM,
          PLAN_DTYPE_INT8), PLAN_DTYPE_INT64);
  fail_unless_equals_int (plan_reduce_op_get_result_dtype (PLAN_REDUCE_OP_SUM,
          PLAN_DTYPE_BOOL), PLAN_DTYPE_INT64);
  fail_unless_equals_int (plan_reduce_op_get_result_dtype (PLAN_REDUCE_OP_SUM,
          PLAN_DTYPE_UINT16), PLAN_DTYPE_UINT64);
  fail_unless_equals_int (plan_reduce_op_get_result_dtype
      (PLAN_REDUCE_OP_PROD, PLAN_DTYPE_FLOAT32), PLAN_DTYPE_FLOAT32);
  fail_unless_equals_int (plan_reduce_op_get_result_dtype (PLAN_REDUCE_OP_MIN,
          PLAN_DTYPE_UINT8), PLAN_DTYPE_UINT8);
  fail_unless_equals_int (plan_reduce_op_get_result_dtype
      (PLAN_REDUCE_OP_MEAN, PLAN_DTYPE_INT64), PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int (plan_reduce_op_get_result_dtype
      (PLAN_REDUCE_OP_MEAN, PLAN_DTYPE_FLOAT32), PLAN_DTYPE_FLOAT32);
  fail_unless_equals_int (plan_reduce_op_get_result_dtype
      (PLAN_REDUCE_OP_ARGMIN, PLAN_DTYPE_FLOAT32), PLAN_DTYPE_INT64);
  fail_unless_equals_int (plan_reduce_op_get_result_dtype (PLAN_REDUCE_OP_ANY,
          PLAN_DTYPE_FLOAT64), PLAN_DTYPE_BOOL);
}

GST_END_TEST;

/* After a seek to rows 6..9 a reduction restarts its accumulation: the
 * result is over the rows sought, numbered as the one output row 0. */
GST_START_TEST (test_reduce_seek_restarts_accumulation)
{
  Reduce r;
  gint32 in[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
  gint64 total = 0;  /* numpy sums int32 in int64 */
  GstSegment segment;
  GstBuffer *buf;
  GstEvent *ev;

  reduce_init (&r, "array/x-raw, dtype=int32, shape=<10>", "op", "sum",
      NULL);
  push_rows (&r, in, 5, sizeof (gint32), 2);

  fail_unless (gst_harness_push_event (r.h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (r.h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_DEFAULT);
  segment.start = segment.time = 6;
  segment.stop = 10;
  fail_unless (gst_harness_push_event (r.h, gst_event_new_segment (&segment)));
  while ((ev = gst_harness_try_pull_event (r.h)))
    gst_event_unref (ev);
  buf = gst_buffer_new_memdup (in + 6, 4 * sizeof (gint32));
  GST_BUFFER_OFFSET (buf) = 6;
  GST_BUFFER_OFFSET_END (buf) = 10;
  fail_unless_equals_int (gst_harness_push (r.h, buf), GST_FLOW_OK);
  push_eos (&r);

  pull_result (&r, &total, sizeof (total), 1);
  fail_unless_equals_int64 (total, 7 + 8 + 9 + 10);
  reduce_teardown (&r);
}

GST_END_TEST;

/* A reduction outputs nothing before the end: after the first rows it
 * sends a GAP, on which sinks preroll, so that the pipeline computes in
 * PLAYING rather than during the state change to PAUSED. */
GST_START_TEST (test_reduce_sends_gap_before_its_result)
{
  Reduce r;
  gint32 in[4] = { 1, 2, 3, 4 };
  gboolean gap = FALSE;
  GstEvent *ev;

  reduce_init (&r, "array/x-raw, dtype=int32, shape=<4>", "op", "sum", NULL);
  push_rows (&r, in, 2, sizeof (gint32), 2);
  while (!gap && (ev = gst_harness_pull_event (r.h)) != NULL) {
    gap = GST_EVENT_TYPE (ev) == GST_EVENT_GAP;
    gst_event_unref (ev);
  }
  fail_unless (gap, "no GAP");
  fail_unless_equals_int (gst_harness_buffers_received (r.h), 0);
  reduce_teardown (&r);
}

GST_END_TEST;

/* A stream that ends before the rows its caps announce was cut short: a
 * sum over part of it is an error naming both counts, not a result. */
GST_START_TEST (test_reduce_truncated_stream_is_an_error)
{
  Reduce r;
  gint32 in[4] = { 1, 2, 3, 4 };
  GstMessage *msg;
  GError *err = NULL;

  reduce_init (&r, "array/x-raw, dtype=int32, shape=<10>", "op", "sum",
      NULL);
  push_rows (&r, in, 4, sizeof (gint32), 2);
  push_eos (&r);
  msg = gst_bus_poll (r.bus, GST_MESSAGE_ERROR, 5 * GST_SECOND);
  fail_unless (msg != NULL, "no error posted");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "ended after 4 of the 10 rows") != NULL,
      "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  fail_unless (gst_harness_try_pull (r.h) == NULL, "a result was pushed");
  reduce_teardown (&r);
}

GST_END_TEST;

/* Arrays have no timestamps: a seek in TIME is refused (the aggregator
 * would otherwise flush a pipeline whose source cannot seek, and it would
 * never end), and so is a row seek when upstream cannot seek. */
GST_START_TEST (test_reduce_refuses_seeks_it_cannot_honour)
{
  Reduce r;
  GstQuery *q;
  gboolean seekable = TRUE;

  reduce_init (&r, "array/x-raw, dtype=int32, shape=<10>", "op", "sum",
      NULL);
  fail_if (gst_harness_push_upstream_event (r.h, gst_event_new_seek (1.0,
              GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET, 0,
              GST_SEEK_TYPE_NONE, -1)));
  fail_if (gst_harness_push_upstream_event (r.h, gst_event_new_seek (1.0,
              GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET, 2,
              GST_SEEK_TYPE_NONE, -1)));
  q = gst_query_new_seeking (GST_FORMAT_DEFAULT);
  fail_unless (gst_pad_peer_query (r.h->sinkpad, q));
  gst_query_parse_seeking (q, NULL, &seekable, NULL, NULL);
  fail_if (seekable);
  gst_query_unref (q);
  reduce_teardown (&r);
}

GST_END_TEST;

static Suite *
planreduce_suite (void)
{
  Suite *s = suite_create ("planreduce");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_reduce_each_op_on_int32);
  tcase_add_test (tc, test_reduce_float32_sum_keeps_dtype_and_is_0d);
  tcase_add_test (tc, test_reduce_result_property_equals_message);
  tcase_add_test (tc, test_reduce_post_messages_off);
  tcase_add_test (tc, test_reduce_axis_minus_1_posts_one_message_by_default);
  tcase_add_test (tc, test_reduce_seek_restarts_accumulation);
  tcase_add_test (tc, test_reduce_truncated_stream_is_an_error);
  tcase_add_test (tc, test_reduce_sends_gap_before_its_result);
  tcase_add_test (tc, test_reduce_refuses_seeks_it_cannot_honour);
  tcase_add_test (tc, test_reduce_bool_sum_counts_true);
  tcase_add_test (tc, test_reduce_integer_sum_wraps_as_numpy);
  tcase_add_test (tc, test_reduce_axis_0_gives_inner_shape);
  tcase_add_test (tc, test_reduce_new_stream_ends_the_one_before);
  tcase_add_test (tc, test_reduce_segment_done_pushes_the_result);
  tcase_add_test (tc, test_reduce_axis_0_argmax_gives_row_index);
  tcase_add_test (tc, test_reduce_axis_0_on_1d_is_all);
  tcase_add_test (tc, test_reduce_axis_minus_1_streams_one_value_per_row);
  tcase_add_test (tc, test_reduce_float_sum_invariant_to_chunks_and_threads);
  tcase_add_test (tc, test_reduce_axes_invariant_to_chunks_and_threads);
  tcase_add_test (tc, test_reduce_stream_equals_whole_array);
  tcase_add_test (tc, test_reduce_float64_sum_is_compensated);
  tcase_add_test (tc, test_reduce_nan_propagates_as_numpy);
  tcase_add_test (tc, test_reduce_infinities_sum_as_ieee);
  tcase_add_test (tc, test_reduce_empty_stream_sum_is_identity);
  tcase_add_test (tc, test_reduce_empty_stream_prod_is_one);
  tcase_add_test (tc, test_reduce_empty_stream_mean_is_nan);
  tcase_add_test (tc, test_reduce_empty_stream_min_fails);
  tcase_add_test (tc, test_reduce_caps_changed_mid_stream_is_an_error);
  tcase_add_test (tc, test_reduce_more_rows_than_announced_is_an_error);
  tcase_add_test (tc, test_reduce_empty_stream_argmax_fails);
  tcase_add_test (tc, test_reduce_custom_combiner);
  tcase_add_test (tc, test_reduce_custom_sum_axis_0);
  tcase_add_test (tc, test_reduce_lets_go_of_chunks_it_is_done_with);
  tcase_add_test (tc, test_reduce_custom_empty_is_identity);
  tcase_add_test (tc, test_reduce_custom_combiner_promotes_dtype);
  tcase_add_test (tc, test_reduce_custom_without_identity_fails);
  tcase_add_test (tc, test_reduce_invalid_expr_posts_compiler_message);
  tcase_add_test (tc, test_reduce_expr_unknown_name_fails_at_negotiation);
  tcase_add_test (tc, test_reduce_identity_out_of_range_fails);
  tcase_add_test (tc, test_reduce_identity_not_a_number_fails);
  tcase_add_test (tc, test_reduce_unknown_op_is_refused);
  tcase_add_test (tc, test_reduce_axis_1_on_2d_is_axis_minus_1);
  tcase_add_test (tc, test_reduce_axis_1_refused_off_2d);
  tcase_add_test (tc, test_reduce_cuda_target_without_device_fails);
  tcase_add_test (tc, test_reduce_map_float32_equals_map_then_reduce);
  tcase_add_test (tc, test_reduce_map_int32_equals_map_then_reduce);
  tcase_add_test (tc, test_reduce_map_dtype_casts_as_planmap_dtype);
  tcase_add_test (tc, test_reduce_invalid_map_posts_compiler_message);
  tcase_add_test (tc, test_reduce_invalid_map_reads_back_as_set);
  tcase_add_test (tc, test_reduce_map_unknown_name_fails_at_negotiation);
  tcase_add_test (tc, test_reduce_result_dtypes_follow_numpy);
  tcase_add_test (tc, test_reducer_refuses_an_empty_inner_axis);
  return s;
}

GST_CHECK_MAIN (planreduce);
