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

#define F32_CAPS(shape) "array/x-raw, dtype=float32, shape=<" shape ">"

/* A buffer of n float32 values first, first+1, ..., stamped with rows. */
static GstBuffer *
ramp_f32 (guint64 first_row, guint n_rows, guint row_len, gfloat scale)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL,
      n_rows * row_len * sizeof (gfloat), NULL);
  GstMapInfo map;
  guint i;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (i = 0; i < n_rows * row_len; i++)
    ((gfloat *) map.data)[i] = scale * (first_row * row_len + i);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_OFFSET (buf) = first_row;
  GST_BUFFER_OFFSET_END (buf) = first_row + n_rows;
  return buf;
}

typedef struct
{
  GstHarness *h;                /* owns the element; sink_0 and src */
  GstHarness *inputs[8];        /* inputs[0] == h */
  guint n;
  GstBus *bus;                  /* receives the element's errors */
} MapHarness;

static void
map_harness_init (MapHarness * m, const gchar * expr, guint n,
    const gchar * caps)
{
  guint i;

  m->n = n;
  m->h = gst_harness_new_with_padnames ("planmap", "sink_0", "src");
  g_object_set (m->h->element, "expr", expr, NULL);
  m->inputs[0] = m->h;
  m->bus = gst_bus_new ();
  gst_element_set_bus (m->h->element, m->bus);
  for (i = 1; i < n; i++) {
    gchar *name = g_strdup_printf ("sink_%u", i);
    m->inputs[i] = gst_harness_new_with_element (m->h->element, name, NULL);
    g_free (name);
  }
  for (i = 0; i < n; i++)
    gst_harness_set_src_caps_str (m->inputs[i], caps);
}

static void
map_harness_teardown (MapHarness * m)
{
  guint i;

  for (i = 1; i < m->n; i++)
    gst_harness_teardown (m->inputs[i]);
  gst_element_set_bus (m->h->element, NULL);
  gst_object_unref (m->bus);
  gst_harness_teardown (m->h);
}

static void
push_eos_all (MapHarness * m)
{
  guint i;

  for (i = 0; i < m->n; i++)
    fail_unless (gst_harness_push_event (m->inputs[i], gst_event_new_eos ()));
}

/* Waits for EOS, then pulls every output buffer (all of them were queued
 * before it) and checks they tile rows 0..n_rows without gaps; returns all
 * values concatenated. */
static GArray *
pull_all_f32 (GstHarness * h, guint64 n_rows)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (gfloat));
  guint64 next = 0;
  GstEvent *ev;

  while ((ev = gst_harness_pull_event (h)) != NULL) {
    gboolean eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;

    gst_event_unref (ev);
    if (eos)
      break;
  }
  while (gst_harness_buffers_in_queue (h) > 0) {
    GstBuffer *buf = gst_harness_pull (h);
    GstMapInfo map;

    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), next);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    /* Output buffers start on a page (the writer copies them faster). */
    fail_unless_equals_int ((guintptr) map.data % 4096, 0);
    g_array_append_vals (out, map.data, map.size / sizeof (gfloat));
    next = GST_BUFFER_OFFSET_END (buf);
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
  }
  fail_unless_equals_uint64 (next, n_rows);
  return out;
}

GST_START_TEST (test_map_adds_two_inputs)
{
  MapHarness m;
  GArray *out;
  guint i;

  map_harness_init (&m, "x + 2*y", 2, F32_CAPS ("10, 3"));
  fail_unless_equals_int (gst_harness_push (m.inputs[0],
          ramp_f32 (0, 10, 3, 1.0f)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (m.inputs[1],
          ramp_f32 (0, 10, 3, 0.5f)), GST_FLOW_OK);
  push_eos_all (&m);

  out = pull_all_f32 (m.h, 10);
  fail_unless_equals_int (out->len, 30);
  for (i = 0; i < 30; i++)
    fail_unless_equals_float (g_array_index (out, gfloat, i), 2.0f * i);
  g_array_unref (out);
  map_harness_teardown (&m);
}

GST_END_TEST;

GST_START_TEST (test_map_aligns_different_chunk_sizes)
{
  MapHarness m;
  GArray *out;
  guint i;

  map_harness_init (&m, "x - y", 2, F32_CAPS ("12"));
  /* 7 + 5 rows on one input, 3 + 4 + 5 on the other. */
  gst_harness_push (m.inputs[0], ramp_f32 (0, 7, 1, 3.0f));
  gst_harness_push (m.inputs[1], ramp_f32 (0, 3, 1, 1.0f));
  gst_harness_push (m.inputs[1], ramp_f32 (3, 4, 1, 1.0f));
  gst_harness_push (m.inputs[0], ramp_f32 (7, 5, 1, 3.0f));
  gst_harness_push (m.inputs[1], ramp_f32 (7, 5, 1, 1.0f));
  push_eos_all (&m);

  out = pull_all_f32 (m.h, 12);
  for (i = 0; i < 12; i++)
    fail_unless_equals_float (g_array_index (out, gfloat, i), 2.0f * i);
  g_array_unref (out);
  map_harness_teardown (&m);
}

GST_END_TEST;

GST_START_TEST (test_map_slices_large_chunks)
{
  /* 3 MiB of rows of 3 float32 (12 bytes) in one chunk per input: planmap
   * computes and pushes them in slices of 1 MiB of rows, 87381 rows. */
  const guint rows = 262144, slice = (1 << 20) / 12;
  MapHarness m;
  GArray *out;
  GstBuffer *buf;
  guint i, bad = 0;

  map_harness_init (&m, "x + y", 2, F32_CAPS ("262144, 3"));
  gst_harness_push (m.inputs[0], ramp_f32 (0, rows, 3, 1.0f));
  gst_harness_push (m.inputs[1], ramp_f32 (0, rows, 3, 1.0f));
  /* The first slice is pushed as soon as it is computed. */
  buf = gst_harness_pull (m.h);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), 0);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), slice);
  gst_buffer_unref (buf);
  push_eos_all (&m);

  /* The rest tile the remaining rows (pull_all_f32 checks the offsets
   * from its first buffer on, so count from the second slice). */
  out = g_array_new (FALSE, FALSE, sizeof (gfloat));
  for (i = slice; i < rows;) {
    GstMapInfo map;

    buf = gst_harness_pull (m.h);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), i);
    fail_unless (GST_BUFFER_OFFSET_END (buf) - i <= slice);
    i = GST_BUFFER_OFFSET_END (buf);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    /* Output buffers start on a page (the writer copies them faster). */
    fail_unless_equals_int ((guintptr) map.data % 4096, 0);
    g_array_append_vals (out, map.data, map.size / sizeof (gfloat));
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
  }
  fail_unless_equals_int (out->len, (rows - slice) * 3);
  for (i = 0; i < out->len; i++)
    bad += g_array_index (out, gfloat, i) != 2.0f * (slice * 3 + i);
  fail_unless_equals_int (bad, 0);
  g_array_unref (out);
  map_harness_teardown (&m);
}

GST_END_TEST;

GST_START_TEST (test_map_binds_long_names_for_five_inputs)
{
  MapHarness m;
  GArray *out;
  guint i;

  map_harness_init (&m, "in0 + in1 + in2 + in3 + in4 - w", 5, F32_CAPS ("4"));
  for (i = 0; i < 5; i++)
    gst_harness_push (m.inputs[i], ramp_f32 (0, 4, 1, (gfloat) (i + 1)));
  push_eos_all (&m);

  out = pull_all_f32 (m.h, 4);
  /* (1 + 2 + 3 + 4 + 5 - 4) * i */
  for (i = 0; i < 4; i++)
    fail_unless_equals_float (g_array_index (out, gfloat, i), 11.0f * i);
  g_array_unref (out);
  map_harness_teardown (&m);
}

GST_END_TEST;

GST_START_TEST (test_map_output_caps_follow_expression_dtype)
{
  MapHarness m;
  GstCaps *caps;
  PlanArrayInfo info;

  map_harness_init (&m, "x > 3", 1, F32_CAPS ("5, 2"));
  gst_harness_push (m.h, ramp_f32 (0, 5, 2, 1.0f));
  gst_buffer_unref (gst_harness_pull (m.h));
  caps = gst_pad_get_current_caps (m.h->sinkpad);
  fail_unless (caps != NULL);
  fail_unless (plan_array_info_from_caps (&info, caps, NULL));
  fail_unless_equals_int (info.dtype, PLAN_DTYPE_BOOL);
  fail_unless_equals_int (info.ndim, 2);
  fail_unless_equals_int64 (info.shape[0], 5);
  fail_unless_equals_int64 (info.shape[1], 2);
  gst_caps_unref (caps);
  map_harness_teardown (&m);
}

GST_END_TEST;

GST_START_TEST (test_map_dtype_property_casts)
{
  MapHarness m;
  GstBuffer *buf;
  GstMapInfo map;

  map_harness_init (&m, "x * 1.5", 1, F32_CAPS ("4"));
  g_object_set (m.h->element, "dtype", PLAN_DTYPE_INT16, NULL);
  gst_harness_push (m.h, ramp_f32 (0, 4, 1, 1.0f));
  buf = gst_harness_pull (m.h);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 4 * sizeof (gint16));
  fail_unless_equals_int (((gint16 *) map.data)[3], 4); /* 4.5 -> 4 */
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  map_harness_teardown (&m);
}

GST_END_TEST;

/* Waits for the element's error and returns its message. */
static gchar *
expect_error (MapHarness * m)
{
  GstMessage *msg;
  GError *err = NULL;
  gchar *text;

  msg = gst_bus_poll (m->bus, GST_MESSAGE_ERROR, 5 * GST_SECOND);
  fail_unless (msg != NULL, "no error posted");
  gst_message_parse_error (msg, &err, NULL);
  text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  return text;
}

GST_START_TEST (test_map_rejects_mismatched_shapes)
{
  MapHarness m;
  gchar *text;

  map_harness_init (&m, "x + y", 2, F32_CAPS ("4, 3"));
  gst_harness_set_src_caps_str (m.inputs[1], F32_CAPS ("4, 5"));
  gst_harness_push (m.inputs[0], ramp_f32 (0, 4, 3, 1.0f));
  gst_harness_push (m.inputs[1], ramp_f32 (0, 4, 5, 1.0f));
  text = expect_error (&m);
  fail_unless (strstr (text, "sink_0") != NULL, "%s", text);
  fail_unless (strstr (text, "sink_1") != NULL, "%s", text);
  fail_unless (strstr (text, "(4, 3)") != NULL, "%s", text);
  fail_unless (strstr (text, "(4, 5)") != NULL, "%s", text);
  g_free (text);
  map_harness_teardown (&m);
}

GST_END_TEST;


/* Pulls the next output buffer (waiting for it) as float32 values. */
static GArray *
pull_one_f32 (GstHarness * h, guint64 first_row)
{
  GstBuffer *buf = gst_harness_pull (h);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (gfloat));
  GstMapInfo map;

  fail_unless (buf != NULL);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), first_row);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  g_array_append_vals (out, map.data, map.size / sizeof (gfloat));
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  return out;
}

GST_START_TEST (test_map_broadcasts_inputs_row_by_row)
{
  MapHarness m;
  GArray *out;
  GstCaps *caps;
  gchar *s;
  guint r, c;

  /* (5, 1) with (5, 3): each row's value meets the three of the other. */
  map_harness_init (&m, "x * 10 + y", 2, F32_CAPS ("5, 1"));
  gst_harness_set_src_caps_str (m.inputs[1], F32_CAPS ("5, 3"));
  gst_harness_push (m.inputs[0], ramp_f32 (0, 5, 1, 1.0f));
  gst_harness_push (m.inputs[1], ramp_f32 (0, 5, 3, 0.5f));
  push_eos_all (&m);
  out = pull_all_f32 (m.h, 5);
  fail_unless_equals_int (out->len, 15);
  for (r = 0; r < 5; r++)
    for (c = 0; c < 3; c++)
      fail_unless_equals_float (g_array_index (out, gfloat, r * 3 + c),
          r * 10.0f + 0.5f * (r * 3 + c));
  caps = gst_pad_get_current_caps (GST_ELEMENT (m.h->element)->srcpads->data);
  s = gst_caps_to_string (caps);
  fail_unless (strstr (s, "5, 3") != NULL, "%s", s);
  g_free (s);
  gst_caps_unref (caps);
  g_array_unref (out);
  map_harness_teardown (&m);
}

GST_END_TEST;

static PlanArray *
array_f32 (guint n, const gfloat * values)
{
  gint64 shape[1] = { n };
  PlanArray *a = plan_array_new (PLAN_DTYPE_FLOAT32, 1, shape, NULL);

  memcpy (plan_array_get_writable_data (a, NULL), values, n * 4);
  return a;
}

GST_START_TEST (test_map_constants_and_live_params)
{
  static const gfloat mean_v[3] = { 1, 2, 3 }, std_v[3] = { 2, 4, 8 };
  PlanArray *mean = array_f32 (3, mean_v), *std = array_f32 (3, std_v);
  GstStructure *arrays = gst_structure_new ("constants", "mean",
      PLAN_TYPE_ARRAY, mean, "std", PLAN_TYPE_ARRAY, std, NULL);
  MapHarness m;
  GArray *out;
  guint i;

  map_harness_init (&m, "(x - mean) / std * gain", 1, F32_CAPS ("-1, 3"));
  g_object_set (m.h->element, "constant-arrays", arrays, "params",
      "gain:float32=2", NULL);
  gst_structure_free (arrays);
  g_object_unref (mean);
  g_object_unref (std);

  gst_harness_push (m.h, ramp_f32 (0, 4, 3, 1.0f));
  out = pull_one_f32 (m.h, 0);
  fail_unless_equals_int (out->len, 12);
  for (i = 0; i < 12; i++)
    fail_unless_equals_float (g_array_index (out, gfloat, i),
        ((gfloat) i - mean_v[i % 3]) / std_v[i % 3] * 2.0f);
  g_array_unref (out);

  /* While playing: the next chunk takes the new value. */
  g_object_set (m.h->element, "params", "gain:float32=-0.5", NULL);
  gst_harness_push (m.h, ramp_f32 (4, 4, 3, 1.0f));
  out = pull_one_f32 (m.h, 4);
  for (i = 0; i < 12; i++)
    fail_unless_equals_float (g_array_index (out, gfloat, i),
        ((gfloat) (12 + i) - mean_v[i % 3]) / std_v[i % 3] * -0.5f);
  g_array_unref (out);

  /* New names while playing are the element's error at the next chunk. */
  g_object_set (m.h->element, "params", "other=1", NULL);
  gst_harness_push (m.h, ramp_f32 (8, 4, 3, 1.0f));
  {
    gchar *text = expect_error (&m);
    fail_unless (strstr (text, "names or dtypes") != NULL, "%s", text);
    g_free (text);
  }
  map_harness_teardown (&m);
}

GST_END_TEST;

GST_START_TEST (test_map_rejects_bad_constants_and_params)
{
  static const gfloat four[4] = { 1, 2, 3, 4 };
  PlanArray *c4 = array_f32 (4, four);
  GstStructure *arrays = gst_structure_new ("constants", "c",
      PLAN_TYPE_ARRAY, c4, NULL);
  GstStructure *not_arrays = gst_structure_new ("constants", "c",
      G_TYPE_INT, 3, NULL);
  MapHarness m;
  gchar *text;

  /* (4,) against rows of 3 */
  map_harness_init (&m, "x - c", 1, F32_CAPS ("-1, 3"));
  g_object_set (m.h->element, "constant-arrays", arrays, NULL);
  gst_harness_push (m.h, ramp_f32 (0, 2, 3, 1.0f));
  text = expect_error (&m);
  fail_unless (strstr (text, "(4,)") != NULL, "%s", text);
  fail_unless (strstr (text, "do not broadcast") != NULL, "%s", text);
  g_free (text);
  map_harness_teardown (&m);

  /* a field that is not an array */
  map_harness_init (&m, "x - c", 1, F32_CAPS ("-1, 3"));
  g_object_set (m.h->element, "constant-arrays", not_arrays, NULL);
  gst_harness_push (m.h, ramp_f32 (0, 2, 3, 1.0f));
  text = expect_error (&m);
  fail_unless (strstr (text, "not a PlanArray") != NULL, "%s", text);
  g_free (text);
  map_harness_teardown (&m);

  /* a malformed params string, set before the start */
  map_harness_init (&m, "x * g", 1, F32_CAPS ("-1, 3"));
  g_object_set (m.h->element, "params", "g:int8=300", NULL);
  gst_harness_push (m.h, ramp_f32 (0, 2, 3, 1.0f));
  text = expect_error (&m);
  fail_unless (strstr (text, "parameter 'g': 300 is out of range for int8 "
          "(-128 to 127)") != NULL, "%s", text);
  g_free (text);
  map_harness_teardown (&m);

  /* a missing constants file */
  map_harness_init (&m, "x - c", 1, F32_CAPS ("-1, 3"));
  g_object_set (m.h->element, "constants", "c=/nonexistent/c.npy", NULL);
  gst_harness_push (m.h, ramp_f32 (0, 2, 3, 1.0f));
  text = expect_error (&m);
  fail_unless (strstr (text, "c.npy") != NULL, "%s", text);
  g_free (text);
  map_harness_teardown (&m);

  gst_structure_free (arrays);
  gst_structure_free (not_arrays);
  g_object_unref (c4);
}

GST_END_TEST;

GST_START_TEST (test_map_rejects_mismatched_lengths)
{
  MapHarness m;
  gchar *text;

  map_harness_init (&m, "x + y", 2, F32_CAPS ("-1"));
  gst_harness_push (m.inputs[0], ramp_f32 (0, 6, 1, 1.0f));
  gst_harness_push (m.inputs[1], ramp_f32 (0, 4, 1, 1.0f));
  push_eos_all (&m);
  text = expect_error (&m);
  fail_unless (strstr (text, "6 rows") != NULL, "%s", text);
  fail_unless (strstr (text, "4 rows") != NULL, "%s", text);
  g_free (text);
  map_harness_teardown (&m);
}

GST_END_TEST;

GST_START_TEST (test_map_invalid_expression_posts_compiler_message)
{
  MapHarness m;
  gchar *text;

  map_harness_init (&m, "x + ", 1, F32_CAPS ("4"));
  gst_harness_push (m.h, ramp_f32 (0, 4, 1, 1.0f));
  text = expect_error (&m);
  fail_unless (strstr (text, "x + ") != NULL, "%s", text);
  g_free (text);
  map_harness_teardown (&m);
}

GST_END_TEST;

GST_START_TEST (test_map_unknown_name_lists_bound_names)
{
  MapHarness m;
  gchar *text;

  map_harness_init (&m, "x + q", 2, F32_CAPS ("4"));
  gst_harness_push (m.inputs[0], ramp_f32 (0, 4, 1, 1.0f));
  gst_harness_push (m.inputs[1], ramp_f32 (0, 4, 1, 1.0f));
  text = expect_error (&m);
  fail_unless (strstr (text, "q") != NULL, "%s", text);
  fail_unless (strstr (text, "in1") != NULL, "%s", text);
  g_free (text);
  map_harness_teardown (&m);
}

GST_END_TEST;

GST_START_TEST (test_map_rejects_rows_gap)
{
  MapHarness m;
  gchar *text;

  map_harness_init (&m, "x", 1, F32_CAPS ("-1"));
  gst_harness_push (m.h, ramp_f32 (0, 4, 1, 1.0f));
  gst_harness_push (m.h, ramp_f32 (6, 4, 1, 1.0f));
  text = expect_error (&m);
  fail_unless (strstr (text, "expected row 4") != NULL, "%s", text);
  fail_if (strstr (text, "flush") != NULL, "%s", text);
  g_free (text);
  map_harness_teardown (&m);
}

GST_END_TEST;

/* A flush with no seek (flush events sent to the pipeline): the source
 * resends its segment and goes on after the rows the flush dropped. That
 * is the gap error, saying what made it. */
GST_START_TEST (test_map_rows_dropped_by_a_flush_without_seek)
{
  GstSegment segment;
  MapHarness m;
  gchar *text;

  map_harness_init (&m, "x", 1, F32_CAPS ("-1"));
  fail_unless_equals_int (gst_harness_push (m.h, ramp_f32 (0, 4, 1, 1.0f)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (m.h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (m.h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_DEFAULT);
  fail_unless (gst_harness_push_event (m.h, gst_event_new_segment (&segment)));
  gst_harness_push (m.h, ramp_f32 (8, 4, 1, 1.0f));
  text = expect_error (&m);
  fail_unless (strstr (text, "Input sink_0 skipped rows: expected row 0 but "
          "got row 8. A flush that no seek made came before them") != NULL,
      "%s", text);
  g_free (text);
  map_harness_teardown (&m);
}

GST_END_TEST;

static GstPadQueryFunction harness_src_query;

/* planmap expr="2*x" of one input, its errors on @m's bus, whose upstream
 * (the harness's src pad) answers queries with @query, which falls back
 * on harness_src_query. */
static void
map_answering_queries (MapHarness * m, GstPadQueryFunction query)
{
  m->n = 1;
  m->h = m->inputs[0] = gst_harness_new_with_padnames ("planmap", "sink_0",
      "src");
  g_object_set (m->h->element, "expr", "2*x", NULL);
  m->bus = gst_bus_new ();
  gst_element_set_bus (m->h->element, m->bus);
  harness_src_query = GST_PAD_QUERYFUNC (m->h->srcpad);
  gst_pad_set_query_function (m->h->srcpad, query);
}

/* Upstream (the harness) answers that it can seek in time, as planfilesrc
 * and npyparse with a rate do before their caps. */
static gboolean
time_seekable_src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstFormat format;

  if (GST_QUERY_TYPE (query) == GST_QUERY_SEEKING) {
    gst_query_parse_seeking (query, &format, NULL, NULL, NULL);
    gst_query_set_seeking (query, format, format == GST_FORMAT_TIME
        || format == GST_FORMAT_DEFAULT, 0, -1);
    return TRUE;
  }
  return harness_src_query (pad, parent, query);
}

static gboolean
output_seekable (GstHarness * h, GstFormat format, gint64 * end)
{
  GstQuery *query = gst_query_new_seeking (format);
  gboolean seekable = FALSE;

  fail_unless (gst_pad_peer_query (h->sinkpad, query));
  gst_query_parse_seeking (query, NULL, &seekable, NULL, end);
  gst_query_unref (query);
  return seekable;
}

/* An instant rate change (GST_SEEK_FLAG_INSTANT_RATE_CHANGE) is refused
 * at once, nothing sent upstream: planmap passed it on, and GstBaseSrc
 * took it for a seek without FLUSH, which in PAUSED waited for ever for
 * the streaming thread blocked downstream. */
GST_START_TEST (test_map_refuses_instant_rate_change)
{
  MapHarness m;
  GstEvent *event;

  map_answering_queries (&m, time_seekable_src_query);
  gst_harness_set_src_caps_str (m.h, F32_CAPS ("4, 3") ", rate=1000/1");
  fail_unless_equals_int (gst_harness_push (m.h, ramp_f32 (0, 4, 3, 1.0f)),
      GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (m.h));
  fail_if (gst_harness_push_upstream_event (m.h,
          gst_event_new_seek (2.0, GST_FORMAT_TIME,
              GST_SEEK_FLAG_INSTANT_RATE_CHANGE, GST_SEEK_TYPE_NONE, -1,
              GST_SEEK_TYPE_NONE, -1)), "the instant rate change was taken");
  while ((event = gst_harness_try_pull_upstream_event (m.h)) != NULL) {
    fail_if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK,
        "the instant rate change went upstream");
    gst_event_unref (event);
  }
  map_harness_teardown (&m);
}

GST_END_TEST;

/* A seek in time made before the output's caps, where upstream can seek in
 * time, is taken and waits for them (the seeking query says so, to an end
 * not known yet); caps without a rate then rule it out: the seek was
 * accepted, so that is an error, core / seek, saying why, and not a seek
 * lost in silence. */
GST_START_TEST (test_map_time_seek_before_caps_ruled_out_is_an_error)
{
  MapHarness m;
  GstMessage *msg;
  GError *err = NULL;
  gchar *want;
  gint64 end = 0;

  map_answering_queries (&m, time_seekable_src_query);

  fail_unless (output_seekable (m.h, GST_FORMAT_TIME, &end));
  fail_unless_equals_int64 (end, -1);
  fail_unless (output_seekable (m.h, GST_FORMAT_BYTES, &end));
  fail_unless_equals_int64 (end, -1);
  fail_if (output_seekable (m.h, GST_FORMAT_PERCENT, &end));
  fail_unless (gst_harness_push_upstream_event (m.h,
          gst_event_new_seek (1.0, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, GST_SECOND, GST_SEEK_TYPE_NONE, -1)),
      "a seek in time before the caps was refused");
  gst_harness_set_src_caps_str (m.h, F32_CAPS ("4, 3"));
  fail_unless_equals_int (gst_harness_push (m.h, ramp_f32 (0, 4, 3, 1.0f)),
      GST_FLOW_OK);
  /* The seek is made from another thread once the caps are known. */
  msg = gst_bus_timed_pop_filtered (m.bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error within 10 s");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_CORE_ERROR, GST_CORE_ERROR_SEEK),
      "%s", err->message);
  want = g_strdup_printf ("The seek in time sent before %s knew its output "
      "cannot be made now that it does: a seek in time at rate 1 cannot be "
      "made: only rows (default format) or bytes can be sought, forwards.",
      GST_ELEMENT_NAME (m.h->element));
  fail_unless (strstr (err->message, want) != NULL, "%s", err->message);
  g_free (want);
  g_error_free (err);
  gst_message_unref (msg);
  /* Known now: rows without a rate are not sought in time. */
  fail_if (output_seekable (m.h, GST_FORMAT_TIME, &end));
  fail_unless (output_seekable (m.h, GST_FORMAT_BYTES, &end));
  map_harness_teardown (&m);
}

GST_END_TEST;

/* Where upstream is asked whether it can seek (by a seek in time made
 * before the output's caps), the caps, with a rate, and the first rows
 * come meanwhile, and the output is set up before upstream answers. */
typedef struct
{
  GstHarness *h;
  gboolean armed;
} CapsMeanwhile;

static CapsMeanwhile caps_meanwhile;

static gboolean
caps_meanwhile_src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstFormat format;

  if (GST_QUERY_TYPE (query) != GST_QUERY_SEEKING)
    return harness_src_query (pad, parent, query);
  gst_query_parse_seeking (query, &format, NULL, NULL, NULL);
  if (format == GST_FORMAT_TIME && caps_meanwhile.armed) {
    GstHarness *h = caps_meanwhile.h;

    caps_meanwhile.armed = FALSE;
    gst_harness_set_src_caps_str (h, F32_CAPS ("8, 3")
        ", rate=(fraction)100/1");
    fail_unless_equals_int (gst_harness_push (h, ramp_f32 (0, 8, 3, 1.0f)),
        GST_FLOW_OK);
    /* Its output is out: the caps were taken. */
    gst_buffer_unref (gst_harness_pull (h));
  }
  gst_query_set_seeking (query, format, format == GST_FORMAT_TIME
      || format == GST_FORMAT_DEFAULT, 0, -1);
  return TRUE;
}

/* A seek in time whose wait for the caps ends before it starts (the caps
 * came while it asked upstream) is made with what the caps say: rows
 * sampled in time are sought in time. It was refused, as if the output
 * had no rate. */
GST_START_TEST (test_map_time_seek_meets_caps_that_came_meanwhile)
{
  MapHarness m;
  GstEvent *ev;
  GstFormat format;
  gint64 start;

  map_answering_queries (&m, caps_meanwhile_src_query);
  caps_meanwhile.h = m.h;
  caps_meanwhile.armed = TRUE;

  fail_unless (gst_harness_push_upstream_event (m.h,
          gst_event_new_seek (1.0, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, 20 * GST_MSECOND, GST_SEEK_TYPE_NONE, -1)),
      "a seek in time was refused where the caps came while it was made");
  fail_if (caps_meanwhile.armed, "upstream was not asked about time");
  while ((ev = gst_harness_try_pull_upstream_event (m.h)) != NULL
      && GST_EVENT_TYPE (ev) != GST_EVENT_SEEK)
    gst_event_unref (ev);
  fail_unless (ev != NULL, "the seek did not reach upstream");
  gst_event_parse_seek (ev, NULL, &format, NULL, NULL, &start, NULL, NULL);
  fail_unless_equals_int (format, GST_FORMAT_TIME);
  fail_unless_equals_int64 (start, 20 * GST_MSECOND);
  gst_event_unref (ev);
  map_harness_teardown (&m);
}

GST_END_TEST;

/* A buffer of no bytes is no rows (appsrc sends one for an empty push):
 * it was taken for a broken row, "a buffer of 0 bytes, which is not a
 * whole number of rows". */
GST_START_TEST (test_map_empty_buffers_are_no_rows)
{
  MapHarness m;
  GstMessage *msg;
  GArray *out;
  guint i;

  map_harness_init (&m, "x + y", 2, F32_CAPS ("8, 3"));
  fail_unless_equals_int (gst_harness_push (m.inputs[0], gst_buffer_new ()),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (m.inputs[0],
          ramp_f32 (0, 4, 3, 1.0f)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (m.inputs[1],
          ramp_f32 (0, 8, 3, 1.0f)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (m.inputs[0], gst_buffer_new ()),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (m.inputs[0],
          ramp_f32 (4, 4, 3, 1.0f)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (m.inputs[1], gst_buffer_new ()),
      GST_FLOW_OK);
  push_eos_all (&m);

  out = pull_all_f32 (m.h, 8);
  fail_unless_equals_int (out->len, 24);
  for (i = 0; i < 24; i++)
    fail_unless_equals_float (g_array_index (out, gfloat, i), 2.0f * i);
  g_array_unref (out);
  msg = gst_bus_pop_filtered (m.bus, GST_MESSAGE_ERROR);
  fail_if (msg != NULL, "an error was posted");
  map_harness_teardown (&m);
}

GST_END_TEST;

/* Rows sent without caps (an appsrc with no caps property): the error
 * names the input that sent them, where it said that nothing upstream sent
 * data. */
GST_START_TEST (test_map_data_without_caps_names_the_input)
{
  GstHarness *h = gst_harness_new_with_padnames ("planmap", "sink_0", "src");
  GstBus *bus = gst_bus_new ();
  GstSegment segment;
  GstMessage *msg;
  GError *err = NULL;

  g_object_set (h->element, "expr", "x * 2", NULL);
  gst_element_set_bus (h->element, bus);
  gst_harness_play (h);
  fail_unless (gst_harness_push_event (h,
          gst_event_new_stream_start ("no-caps")));
  gst_segment_init (&segment, GST_FORMAT_BYTES);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  gst_harness_push (h, ramp_f32 (0, 4, 3, 1.0f));
  gst_harness_push_event (h, gst_event_new_eos ());
  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_CORE_ERROR,
          GST_CORE_ERROR_NEGOTIATION), "%s", err->message);
  fail_unless (strstr (err->message, "Input sink_0 of") != NULL, "%s",
      err->message);
  fail_unless (strstr (err->message, "sent data before its caps") != NULL,
      "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_map_flush_restarts_rows)
{
  MapHarness m;
  GstSegment segment;
  GstBuffer *buf;
  guint i;

  map_harness_init (&m, "x * 2", 1, F32_CAPS ("-1"));
  gst_harness_push (m.h, ramp_f32 (0, 5, 1, 1.0f));
  buf = gst_harness_pull (m.h);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), 5);
  gst_buffer_unref (buf);

  /* A flush forgets the rows seen so far: the stream starts again at row
   * 0, as after a seek to the start. */
  fail_unless (gst_harness_push_event (m.h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (m.h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (m.h, gst_event_new_segment (&segment)));
  while ((buf = gst_harness_try_pull (m.h)))
    gst_buffer_unref (buf);

  fail_unless_equals_int (gst_harness_push (m.h, ramp_f32 (0, 3, 1, 1.0f)),
      GST_FLOW_OK);
  buf = gst_harness_pull (m.h);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), 0);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), 3);
  {
    GstMapInfo map;

    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    for (i = 0; i < 3; i++)
      fail_unless_equals_float (((gfloat *) map.data)[i], 2.0f * i);
    gst_buffer_unmap (buf, &map);
  }
  gst_buffer_unref (buf);
  map_harness_teardown (&m);
}

GST_END_TEST;

/* GstAggregator would wait for ever for data on inputs that are missing
 * or not linked: the state change fails instead, saying which. */
GST_START_TEST (test_map_without_linked_inputs_fails_at_start)
{
  GstElement *map = gst_element_factory_make ("planmap", "m");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  GstPad *pad;

  g_object_set (map, "expr", "1 + 2", NULL);
  gst_element_set_bus (map, bus);
  fail_unless_equals_int (gst_element_set_state (map, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "m has no inputs") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_element_set_state (map, GST_STATE_NULL);

  pad = gst_element_request_pad_simple (map, "sink_%u");
  fail_unless_equals_int (gst_element_set_state (map, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "Input sink_0 of m is not linked")
      != NULL, "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);

  gst_element_set_state (map, GST_STATE_NULL);
  gst_element_release_request_pad (map, pad);
  gst_object_unref (pad);
  gst_element_set_bus (map, NULL);
  gst_object_unref (bus);
  gst_object_unref (map);
}

GST_END_TEST;

/* Output that goes nowhere is an error before any work, not a hang. */
GST_START_TEST (test_map_unlinked_src_fails_not_linked)
{
  GstHarness *h = gst_harness_new_with_padnames ("planmap", "sink_0", NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;

  g_object_set (h->element, "expr", "x", NULL);
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, F32_CAPS ("4"));
  gst_harness_push (h, ramp_f32 (0, 4, 1, 1.0f));
  msg = gst_bus_poll (bus, GST_MESSAGE_ERROR, 5 * GST_SECOND);
  fail_unless (msg != NULL, "no error posted");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "has nothing linked downstream") != NULL,
      "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A 0-d stream (a reduction's result) is one row of one element: the map
 * of two such inputs is 0-d, its row numbered 0..1. */
GST_START_TEST (test_map_zero_d_inputs)
{
  MapHarness m;
  GstCaps *caps;
  GArray *out;
  const GValue *shape;

  map_harness_init (&m, "x * y + 1", 2, F32_CAPS (""));
  fail_unless_equals_int (gst_harness_push (m.inputs[0],
          ramp_f32 (0, 1, 1, 1.0f)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (m.inputs[1],
          ramp_f32 (0, 1, 1, 1.0f)), GST_FLOW_OK);
  push_eos_all (&m);
  out = pull_all_f32 (m.h, 1);
  fail_unless_equals_int (out->len, 1);
  fail_unless_equals_float (g_array_index (out, gfloat, 0), 1.0f);
  g_array_unref (out);
  caps = gst_pad_get_current_caps (m.h->sinkpad);
  shape = gst_structure_get_value (gst_caps_get_structure (caps, 0), "shape");
  fail_unless (shape != NULL && GST_VALUE_HOLDS_ARRAY (shape));
  fail_unless_equals_int (gst_value_array_get_size (shape), 0);
  gst_caps_unref (caps);
  map_harness_teardown (&m);
}

GST_END_TEST;

/* Deactivates tee's source pad as the event of the type given goes to it. */
typedef struct
{
  GstEventType at;
  GstPad *tee_src;
} Deactivate;

static GstPadProbeReturn
deactivate_at_event (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Deactivate *d = data;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == d->at) {
    fail_unless (gst_pad_set_active (d->tee_src, FALSE));
    return GST_PAD_PROBE_REMOVE;
  }
  return GST_PAD_PROBE_OK;
}

/* planmap ! tee ! fakesink, tee's source pad deactivated as the event
 * @at goes to tee, as a state change down does before tee's sink pad. */
static void
check_tee_being_stopped (GstEventType at)
{
  GstHarness *h = gst_harness_new_with_padnames ("planmap", "sink_0", NULL);
  GstElement *tee = gst_element_factory_make ("tee", "t");
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  GstPad *src = gst_element_get_static_pad (h->element, "src");
  GstPad *tee_sink = gst_element_get_static_pad (tee, "sink");
  GstPad *tee_src = gst_element_request_pad_simple (tee, "src_%u");
  GstPad *sink_pad = gst_element_get_static_pad (sink, "sink");
  Deactivate d = { at, tee_src };
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GstFlowReturn ret;
  guint i;

  g_object_set (h->element, "expr", "2*x", NULL);
  g_object_set (sink, "async", FALSE, NULL);
  gst_element_set_bus (h->element, bus);
  gst_element_set_bus (tee, bus);
  fail_unless_equals_int (gst_pad_link (src, tee_sink), GST_PAD_LINK_OK);
  fail_unless_equals_int (gst_pad_link (tee_src, sink_pad), GST_PAD_LINK_OK);
  fail_unless (gst_element_set_state (sink, GST_STATE_PAUSED)
      != GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_set_state (tee, GST_STATE_PAUSED)
      != GST_STATE_CHANGE_FAILURE);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      deactivate_at_event, &d, NULL);

  gst_harness_set_src_caps_str (h, F32_CAPS ("-1"));
  /* A push returns before the chunk is computed: the element stops at the
   * first, and the pushes after it say how. */
  for (i = 0, ret = GST_FLOW_OK; i < 1000 && ret == GST_FLOW_OK; i++)
    ret = gst_harness_push (h, ramp_f32 (4 * i, 4, 1, 1.0f));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
  if (msg != NULL) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    fail ("tee stopped at %s: %s posted: %s", gst_event_type_get_name (at),
        GST_MESSAGE_SRC_NAME (msg), err->message);
  }
  fail_unless (ret == GST_FLOW_FLUSHING, "tee stopped at %s: %s",
      gst_event_type_get_name (at), gst_flow_get_name (ret));
  fail_if (gst_pad_is_active (tee_src));

  /* The messages left on the bus hold the elements, which hold the bus. */
  gst_bus_set_flushing (bus, TRUE);
  gst_harness_teardown (h);
  gst_element_set_state (tee, GST_STATE_NULL);
  gst_element_set_state (sink, GST_STATE_NULL);
  gst_pad_unlink (tee_src, sink_pad);
  gst_element_release_request_pad (tee, tee_src);
  gst_object_unref (tee_src);
  gst_object_unref (sink_pad);
  gst_object_unref (tee_sink);
  gst_object_unref (src);
  gst_element_set_bus (tee, NULL);
  gst_object_unref (tee);
  gst_object_unref (sink);
  gst_object_unref (bus);
}

/* A state change down deactivates tee's source pads before its sink pad:
 * a sticky event that comes between fails in tee, which GstPad reports as
 * NOT_NEGOTIATED for caps (ERROR for the others), though nothing refused
 * it. The element stops as for any push into a pad being deactivated
 * (FLUSHING), with no error: it posted "m produces ..., which t does not
 * accept" (a rare failure of change_state_intensive on planmap ! tee), or
 * stopped with ERROR and no message. */
GST_START_TEST (test_map_caps_into_a_tee_being_stopped_is_no_refusal)
{
  check_tee_being_stopped (GST_EVENT_CAPS);
  check_tee_being_stopped (GST_EVENT_STREAM_START);
  check_tee_being_stopped (GST_EVENT_SEGMENT);
}

GST_END_TEST;

static Suite *
planmap_suite (void)
{
  Suite *s = suite_create ("planmap");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_map_adds_two_inputs);
  tcase_add_test (tc, test_map_aligns_different_chunk_sizes);
  tcase_add_test (tc, test_map_slices_large_chunks);
  tcase_add_test (tc, test_map_binds_long_names_for_five_inputs);
  tcase_add_test (tc, test_map_output_caps_follow_expression_dtype);
  tcase_add_test (tc, test_map_dtype_property_casts);
  tcase_add_test (tc, test_map_rejects_mismatched_shapes);
  tcase_add_test (tc, test_map_rejects_mismatched_lengths);
  tcase_add_test (tc, test_map_broadcasts_inputs_row_by_row);
  tcase_add_test (tc, test_map_constants_and_live_params);
  tcase_add_test (tc, test_map_rejects_bad_constants_and_params);
  tcase_add_test (tc, test_map_invalid_expression_posts_compiler_message);
  tcase_add_test (tc, test_map_unknown_name_lists_bound_names);
  tcase_add_test (tc, test_map_rejects_rows_gap);
  tcase_add_test (tc, test_map_empty_buffers_are_no_rows);
  tcase_add_test (tc, test_map_data_without_caps_names_the_input);
  tcase_add_test (tc, test_map_flush_restarts_rows);
  tcase_add_test (tc, test_map_without_linked_inputs_fails_at_start);
  tcase_add_test (tc, test_map_unlinked_src_fails_not_linked);
  tcase_add_test (tc, test_map_zero_d_inputs);
  tcase_add_test (tc, test_map_time_seek_before_caps_ruled_out_is_an_error);
  tcase_add_test (tc, test_map_refuses_instant_rate_change);
  tcase_add_test (tc, test_map_time_seek_meets_caps_that_came_meanwhile);
  tcase_add_test (tc, test_map_rows_dropped_by_a_flush_without_seek);
  tcase_add_test (tc, test_map_caps_into_a_tee_being_stopped_is_no_refusal);
  return s;
}

GST_CHECK_MAIN (planmap);
