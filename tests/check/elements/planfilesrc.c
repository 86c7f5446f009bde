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
#include <gst/check/gsttestclock.h>
#include <libplan/plan.h>

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static gchar *tmpdir;

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("planfilesrc-XXXXXX", NULL);
  fail_unless (tmpdir != NULL);
}

static void
remove_tree (const gchar * path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const gchar *name;

  while (dir && (name = g_dir_read_name (dir))) {
    gchar *p = g_build_filename (path, name, NULL);

    if (g_file_test (p, G_FILE_TEST_IS_DIR))
      remove_tree (p);
    else
      g_unlink (p);
    g_free (p);
  }
  if (dir)
    g_dir_close (dir);
  g_rmdir (path);
}

static void
teardown (void)
{
  remove_tree (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

static gchar *
tmp_path (const gchar * name)
{
  return g_build_filename (tmpdir, name, NULL);
}

static gchar *
write_file (const gchar * name, const void *data, gsize size)
{
  gchar *path = tmp_path (name);

  fail_unless (g_file_set_contents (path, data, size, NULL));
  return path;
}

/* A .npy file with the given dict text, version and data, padded as
 * numpy pads it. */
static gchar *
write_npy (const gchar * name, guint version, const gchar * dict,
    const void *data, gsize size)
{
  gsize prefix = version == 1 ? 10 : 12;
  gsize text = strlen (dict) + 1;
  gsize total = (prefix + text + 63) / 64 * 64;
  guint8 *buf = g_malloc0 (total + size);
  gchar *path;

  memcpy (buf, "\x93NUMPY", 6);
  buf[6] = version;
  buf[7] = 0;
  if (version == 1)
    GST_WRITE_UINT16_LE (buf + 8, total - prefix);
  else
    GST_WRITE_UINT32_LE (buf + 8, total - prefix);
  memset (buf + prefix, ' ', total - prefix);
  memcpy (buf + prefix, dict, strlen (dict));
  buf[total - 1] = '\n';
  if (size)
    memcpy (buf + total, data, size);
  path = write_file (name, buf, total + size);
  g_free (buf);
  return path;
}

static gchar *
write_float_npy (const gchar * name, guint rows, guint cols)
{
  gfloat *data = g_new (gfloat, rows * cols);
  gchar *dict, *path;
  guint i;

  for (i = 0; i < rows * cols; i++)
    data[i] = i * 0.5f;
  dict = g_strdup_printf ("{'descr': '<f4', 'fortran_order': False, "
      "'shape': (%u, %u), }", rows, cols);
  path = write_npy (name, 1, dict, data, rows * cols * sizeof (gfloat));
  g_free (dict);
  g_free (data);
  return path;
}

static GstHarness *
src_harness (const gchar * location)
{
  GstHarness *h = gst_harness_new_with_padnames ("planfilesrc", NULL, "src");

  g_object_set (h->element, "location", location, NULL);
  return h;
}

/* Not named "first": gst-check's assertion macros declare that name. */
static void
check_float_rows (GstBuffer * buf, guint row0, guint n, guint cols)
{
  GstMapInfo map;
  const gfloat *v;
  guint i;

  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), row0);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), row0 + n);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, n * cols * sizeof (gfloat));
  v = (const gfloat *) map.data;
  for (i = 0; i < n * cols; i++)
    fail_unless_equals_float (v[i], (row0 * cols + i) * 0.5f);
  gst_buffer_unmap (buf, &map);
}

GST_START_TEST (test_src_npy_chunks_offsets_caps_values)
{
  gchar *path = write_float_npy ("a.npy", 10, 3);
  GstHarness *h = src_harness (path);
  GstCaps *caps, *expected;
  GstBuffer *buf;

  /* 50 bytes round down to 4 rows of 12 bytes. */
  g_object_set (h->element, "blocksize", 50, NULL);
  gst_harness_play (h);

  buf = gst_harness_pull (h);
  check_float_rows (buf, 0, 4, 3);
  gst_buffer_unref (buf);
  buf = gst_harness_pull (h);
  check_float_rows (buf, 4, 4, 3);
  gst_buffer_unref (buf);
  buf = gst_harness_pull (h);
  check_float_rows (buf, 8, 2, 3);
  gst_buffer_unref (buf);

  caps = gst_pad_get_current_caps (h->sinkpad);
  expected = gst_caps_from_string ("array/x-raw, dtype=(string)float32, "
      "shape=(int)<10, 3>");
  fail_unless (gst_caps_is_equal (caps, expected));
  gst_caps_unref (caps);
  gst_caps_unref (expected);

  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_eos_after_last_chunk)
{
  gchar *path = write_float_npy ("a.npy", 3, 1);
  GstHarness *h = src_harness (path);
  GstEvent *event;
  GstBuffer *buf;
  gboolean eos = FALSE;

  gst_harness_play (h);
  buf = gst_harness_pull (h);
  check_float_rows (buf, 0, 3, 1);
  gst_buffer_unref (buf);
  while ((event = gst_harness_pull_event (h))) {
    eos = GST_EVENT_TYPE (event) == GST_EVENT_EOS;
    gst_event_unref (event);
    if (eos)
      break;
  }
  fail_unless (eos);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_raw_infers_outer_axis)
{
  gint16 data[12];
  gchar *path;
  GstHarness *h;
  GstBuffer *buf;
  GstCaps *caps, *expected;
  guint i;

  for (i = 0; i < 12; i++)
    data[i] = i - 6;
  path = write_file ("r.raw", data, sizeof (data));
  h = src_harness (path);
  gst_util_set_object_arg (G_OBJECT (h->element), "dtype", "int16");
  g_object_set (h->element, "shape", "(, 2, 3)", NULL);
  gst_harness_play (h);

  buf = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), 0);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), 2);
  fail_unless (gst_buffer_memcmp (buf, 0, data, sizeof (data)) == 0);
  gst_buffer_unref (buf);
  caps = gst_pad_get_current_caps (h->sinkpad);
  expected = gst_caps_from_string ("array/x-raw, dtype=(string)int16, "
      "shape=(int)<2, 2, 3>");
  fail_unless (gst_caps_is_equal (caps, expected));
  gst_caps_unref (caps);
  gst_caps_unref (expected);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_shard_counts_from_offset)
{
  gchar *path = write_float_npy ("a.npy", 10, 2);
  GstHarness *h = src_harness (path);
  GstBuffer *buf;
  GstMapInfo map;
  GstCaps *caps, *expected;

  g_object_set (h->element, "offset", (guint64) 3, "length", (gint64) 4, NULL);
  gst_harness_play (h);
  buf = gst_harness_pull (h);
  /* Stream rows count from the shard's first row; values are file rows. */
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), 0);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), 4);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 4 * 2 * sizeof (gfloat));
  fail_unless_equals_float (((gfloat *) map.data)[0], 3 * 2 * 0.5f);
  fail_unless_equals_float (((gfloat *) map.data)[7], 13 * 0.5f);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);

  caps = gst_pad_get_current_caps (h->sinkpad);
  expected = gst_caps_from_string ("array/x-raw, dtype=(string)float32, "
      "shape=(int)<4, 2>");
  fail_unless (gst_caps_is_equal (caps, expected));
  gst_caps_unref (caps);
  gst_caps_unref (expected);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_shard_past_end_is_cut)
{
  gchar *path = write_float_npy ("a.npy", 10, 1);
  GstHarness *h = src_harness (path);
  GstBuffer *buf;

  g_object_set (h->element, "offset", (guint64) 8, "length", (gint64) 5, NULL);
  gst_harness_play (h);
  buf = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), 0);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), 2);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_duration_and_position_queries)
{
  gchar *path = write_float_npy ("a.npy", 10, 3);
  GstHarness *h = src_harness (path);
  GstBuffer *buf;
  gint64 value;

  g_object_set (h->element, "blocksize", 12 * 4, NULL);
  /* Nothing is open before the state change: no answer yet. */
  fail_if (gst_element_query_duration (h->element, GST_FORMAT_DEFAULT, &value));
  gst_harness_play (h);

  fail_unless (gst_element_query_duration (h->element, GST_FORMAT_DEFAULT,
          &value));
  fail_unless_equals_int64 (value, 10);
  fail_unless (gst_element_query_duration (h->element, GST_FORMAT_BYTES,
          &value));
  fail_unless_equals_int64 (value, 10 * 12);

  buf = gst_harness_pull (h);
  gst_buffer_unref (buf);
  fail_unless (gst_element_query_position (h->element, GST_FORMAT_DEFAULT,
          &value));
  fail_unless (value >= 4 && value <= 10);
  fail_unless (gst_element_query_position (h->element, GST_FORMAT_BYTES,
          &value));
  fail_unless (value >= 4 * 12 && value <= 10 * 12 && value % 12 == 0);
  fail_unless (gst_element_query_convert (h->element, GST_FORMAT_BYTES, 60,
          GST_FORMAT_DEFAULT, &value));
  fail_unless_equals_int64 (value, 5);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

/* The first buffer after a flushing seek to @start, counted as @type
 * says (from the start, or back from the end). */
static GstBuffer *
pull_after_seek_from (GstHarness * h, GstFormat format, GstSeekType type,
    gint64 start)
{
  GstBuffer *buf;

  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, format, GST_SEEK_FLAG_FLUSH,
              type, start, GST_SEEK_TYPE_NONE, -1)));
  /* Drop what was read before the seek reached the source. */
  do {
    buf = gst_harness_pull (h);
    if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT))
      break;
    gst_buffer_unref (buf);
  } while (TRUE);
  return buf;
}

static GstBuffer *
pull_after_seek (GstHarness * h, GstFormat format, gint64 start)
{
  return pull_after_seek_from (h, format, GST_SEEK_TYPE_SET, start);
}

GST_START_TEST (test_src_seek_in_rows_and_bytes)
{
  gchar *path = write_float_npy ("a.npy", 100, 1);
  GstHarness *h = src_harness (path);
  GstBuffer *buf;

  g_object_set (h->element, "blocksize", 40, "max-chunks", 2, NULL);
  gst_harness_play (h);
  buf = gst_harness_pull (h);
  check_float_rows (buf, 0, 10, 1);
  gst_buffer_unref (buf);

  buf = pull_after_seek (h, GST_FORMAT_DEFAULT, 55);
  check_float_rows (buf, 55, 10, 1);
  gst_buffer_unref (buf);

  /* Byte 83 is inside row 20: the seek starts at that row. */
  buf = pull_after_seek (h, GST_FORMAT_BYTES, 83);
  check_float_rows (buf, 20, 10, 1);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

/* A seek from the end (GST_SEEK_TYPE_END, a negative start) in rows or
 * bytes of rows sampled in time, whose segment is in time: it selects the
 * last rows. It was refused, after GstBaseSrc had flushed (it prepares a
 * seek from the end only then), and the rows went on without a segment. A
 * seek from the end in a format that cannot be sought is refused before
 * anything is flushed. */
GST_START_TEST (test_src_seek_from_the_end)
{
  gchar *path = write_float_npy ("a.npy", 100, 1);
  GstHarness *h = src_harness (path);
  GstEvent *event;
  GstBuffer *buf;

  g_object_set (h->element, "blocksize", 40, "max-chunks", 2, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "rate", "10/1");
  gst_harness_play (h);
  gst_buffer_unref (gst_harness_pull (h));
  buf = pull_after_seek_from (h, GST_FORMAT_DEFAULT, GST_SEEK_TYPE_END, -30);
  check_float_rows (buf, 70, 10, 1);
  gst_buffer_unref (buf);
  buf = pull_after_seek_from (h, GST_FORMAT_BYTES, GST_SEEK_TYPE_END, -40);
  check_float_rows (buf, 90, 10, 1);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);

  /* Back past the first row: refused, before anything is flushed. */
  h = src_harness (path);
  g_object_set (h->element, "blocksize", 40, "max-chunks", 2, NULL);
  gst_harness_play (h);
  gst_buffer_unref (gst_harness_pull (h));
  while ((event = gst_harness_try_pull_event (h)))
    gst_event_unref (event);
  fail_if (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_END, -101, GST_SEEK_TYPE_NONE, -1)));
  while ((event = gst_harness_try_pull_event (h))) {
    fail_if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_START,
        "a refused seek flushed");
    gst_event_unref (event);
  }
  gst_harness_teardown (h);

  /* Without a rate, time cannot be sought: nothing is flushed. */
  h = src_harness (path);
  g_object_set (h->element, "blocksize", 40, "max-chunks", 2, NULL);
  gst_harness_play (h);
  gst_buffer_unref (gst_harness_pull (h));
  while ((event = gst_harness_try_pull_event (h)))
    gst_event_unref (event);
  fail_if (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_END, -GST_SECOND, GST_SEEK_TYPE_NONE, -1)));
  while ((event = gst_harness_try_pull_event (h))) {
    fail_if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_START,
        "a refused seek flushed");
    gst_event_unref (event);
  }
  buf = gst_harness_pull (h);
  check_float_rows (buf, 10, 10, 1);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

/* The events up to the EOS after a flush (with @seqnum, a seek's), or up
 * to the first EOS (GST_SEQNUM_INVALID): the segment among them, which
 * must come (GstBaseSrc sends none before an EOS that comes first), with
 * that seqnum. */
static void
check_segment_before_eos (GstHarness * h, gint64 start, gint64 stop,
    guint32 seqnum)
{
  gboolean flushed = FALSE, segment = FALSE;
  GstEvent *event;

  while ((event = gst_harness_pull_event (h))) {
    GstEventType type = GST_EVENT_TYPE (event);

    if (type == GST_EVENT_FLUSH_STOP) {
      flushed = TRUE;
      segment = FALSE;
    } else if (type == GST_EVENT_SEGMENT && (flushed || seqnum ==
            GST_SEQNUM_INVALID)) {
      const GstSegment *seg;

      gst_event_parse_segment (event, &seg);
      fail_unless_equals_int (seg->format, GST_FORMAT_DEFAULT);
      fail_unless_equals_uint64 (seg->start, start);
      fail_unless_equals_uint64 (seg->stop, stop);
      if (seqnum != GST_SEQNUM_INVALID)
        fail_unless_equals_int (gst_event_get_seqnum (event), seqnum);
      segment = TRUE;
    } else if (type == GST_EVENT_EOS && (flushed || seqnum ==
            GST_SEQNUM_INVALID)) {
      gst_event_unref (event);
      break;
    }
    gst_event_unref (event);
  }
  fail_unless (segment, "no segment before the EOS");
}

/* A seek to a range of no rows, and an array of none: the segment that
 * says so comes before the EOS, so that downstream does not take the
 * stream for the rows of the segment before (and the file for one cut
 * short). */
GST_START_TEST (test_src_no_rows_have_a_segment)
{
  gchar *path = write_float_npy ("a.npy", 100, 1);
  GstHarness *h = src_harness (path);
  GstEvent *seek;
  guint32 seqnum;

  g_object_set (h->element, "blocksize", 40, "max-chunks", 2, NULL);
  gst_harness_play (h);
  gst_buffer_unref (gst_harness_pull (h));
  seek = gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
      GST_SEEK_TYPE_SET, 30, GST_SEEK_TYPE_SET, 30);
  seqnum = gst_event_get_seqnum (seek);
  fail_unless (gst_harness_push_upstream_event (h, seek));
  check_segment_before_eos (h, 30, 30, seqnum);
  gst_harness_teardown (h);
  g_free (path);

  path = write_float_npy ("empty.npy", 0, 3);
  h = src_harness (path);
  gst_harness_play (h);
  check_segment_before_eos (h, 0, -1, GST_SEQNUM_INVALID);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

/* A 0-d array is one row, its value: a seek that selects none of it is
 * refused before anything is flushed (numpy cannot slice a 0-d array, and
 * its caps announce the value); one of its row is made. */
GST_START_TEST (test_src_seek_to_no_row_of_0d_refused)
{
  const gfloat value = 2.5f;
  gchar *path = write_npy ("zero-d.npy", 1, "{'descr': '<f4', "
      "'fortran_order': False, 'shape': (), }", &value, sizeof (value));
  GstHarness *h = src_harness (path);

  gst_harness_play (h);
  gst_buffer_unref (gst_harness_pull (h));
  fail_if (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_SET, 0)));
  fail_if (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, 1, GST_SEEK_TYPE_NONE, -1)));
  fail_if (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, GST_FORMAT_BYTES, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, 4, GST_SEEK_TYPE_NONE, -1)));
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_SET, 1)));
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

/* A seek whose start comes after the stop it keeps (GST_SEEK_TYPE_NONE
 * keeps the segment's) is refused, without the critical warning
 * gst_segment_do_seek() gives it; the stream goes on. */
GST_START_TEST (test_src_seek_start_after_kept_stop_refused)
{
  gchar *path = write_float_npy ("a.npy", 100, 1);
  GstHarness *h = src_harness (path);
  GstBuffer *buf;

  g_object_set (h->element, "blocksize", 40, "max-chunks", 2, NULL);
  gst_harness_play (h);
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_SET, 30)));
  fail_if (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, 55, GST_SEEK_TYPE_NONE, -1)));
  fail_if (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, 40, GST_SEEK_TYPE_SET, 35)));
  /* An explicit new stop makes it a range again. */
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
              GST_SEEK_TYPE_SET, 55, GST_SEEK_TYPE_SET, 100)));
  do {
    buf = gst_harness_pull (h);
    if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT)
        && GST_BUFFER_OFFSET (buf) == 55)
      break;
    gst_buffer_unref (buf);
  } while (TRUE);
  check_float_rows (buf, 55, 10, 1);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_answers_read_rows_query)
{
  gchar *path = write_float_npy ("a.npy", 20, 3);
  GstHarness *h = src_harness (path);
  GstQuery *query;
  GstBuffer *buf;

  g_object_set (h->element, "offset", (guint64) 2, NULL);
  gst_harness_play (h);

  query = plan_query_new_read_rows (15, 3);
  fail_unless (gst_pad_peer_query (h->sinkpad, query));
  buf = plan_query_get_read_rows_buffer (query);
  fail_unless (buf != NULL);
  /* Stream row 15 is file row 17. */
  fail_unless_equals_int (gst_buffer_get_size (buf), 3 * 3 * 4);
  {
    GstMapInfo map;

    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    fail_unless_equals_float (((gfloat *) map.data)[0], 17 * 3 * 0.5f);
    gst_buffer_unmap (buf, &map);
  }
  gst_buffer_unref (buf);
  gst_query_unref (query);

  /* Rows past the end of the stream are refused. */
  query = plan_query_new_read_rows (17, 2);
  fail_if (gst_pad_peer_query (h->sinkpad, query));
  gst_query_unref (query);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_reads_into_proposed_allocator)
{
  gchar *path = write_float_npy ("a.npy", 20, 3);
  GstHarness *h = src_harness (path);
  GstAllocator *allocator = plan_host_allocator_get ();
  GstBuffer *buf;
  guint i;

  /* What a GPU element downstream does: propose pinned host memory. The
   * simulated device pins it when there is no GPU. */
  g_setenv ("GST_PLAN_DEVICE", "sim", TRUE);
  fail_unless (allocator != NULL);
  gst_harness_set_propose_allocator (h, allocator, NULL);
  g_object_set (h->element, "blocksize", 12 * 8, NULL);
  gst_harness_play (h);
  for (i = 0; i < 20; i += 8) {
    buf = gst_harness_pull (h);
    check_float_rows (buf, i, MIN (8, 20 - i), 3);
    fail_unless (plan_is_host_memory (gst_buffer_peek_memory (buf, 0)));
    gst_buffer_unref (buf);
  }
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

/* The same rows whichever way the bytes get into the chunks; mapped chunks
 * are read-only views of the file, read ones are not. */
GST_START_TEST (test_src_io_modes_agree)
{
  gchar *path = write_float_npy ("a.npy", 20, 3);
  const gchar *modes[] = { "auto", "mmap", "read" };
  guint m, i;

  for (m = 0; m < G_N_ELEMENTS (modes); m++) {
    GstHarness *h = src_harness (path);
    GEnumClass *klass = g_type_class_ref (PLAN_TYPE_FILE_IO_MODE);

    gst_util_set_object_arg (G_OBJECT (h->element), "io-mode", modes[m]);
    g_object_get (h->element, "io-mode", &i, NULL);
    fail_unless_equals_string (g_enum_get_value (klass, i)->value_nick,
        modes[m]);
    g_type_class_unref (klass);
    g_object_set (h->element, "blocksize", 12 * 7, NULL);
    gst_harness_play (h);
    for (i = 0; i < 20; i += 7) {
      GstBuffer *buf = gst_harness_pull (h);
      GstMemory *mem = gst_buffer_peek_memory (buf, 0);

      check_float_rows (buf, i, MIN (7, 20 - i), 3);
      /* auto maps: nothing downstream asked for memory of its own. */
      fail_unless (!!GST_MEMORY_IS_READONLY (mem) == (m < 2), "%s", modes[m]);
      gst_buffer_unref (buf);
    }
    gst_harness_teardown (h);
  }
  g_free (path);
}

GST_END_TEST;

/* An allocator that cannot allocate anything. */
typedef struct
{
  GstAllocator parent;
} FailAllocator;

typedef struct
{
  GstAllocatorClass parent_class;
} FailAllocatorClass;

static GType fail_allocator_get_type (void);
G_DEFINE_TYPE (FailAllocator, fail_allocator, GST_TYPE_ALLOCATOR);

static GstMemory *
fail_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  return NULL;
}

static void
fail_allocator_class_init (FailAllocatorClass * klass)
{
  GST_ALLOCATOR_CLASS (klass)->alloc = fail_allocator_alloc;
}

static void
fail_allocator_init (FailAllocator * self)
{
  GST_ALLOCATOR (self)->mem_type = "FailMemory";
}

GST_START_TEST (test_src_falls_back_to_system_memory)
{
  gchar *path = write_float_npy ("a.npy", 20, 3);
  GstHarness *h = src_harness (path);
  GstBuffer *buf;

  gst_harness_set_propose_allocator (h,
      gst_object_ref_sink (g_object_new (fail_allocator_get_type (), NULL)),
      NULL);
  gst_harness_play (h);
  buf = gst_harness_pull (h);
  fail_unless (buf != NULL);
  check_float_rows (buf, 0, 20, 3);
  fail_unless (gst_memory_is_type (gst_buffer_peek_memory (buf, 0),
          GST_ALLOCATOR_SYSMEM));
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_reads_npy_versions_2_and_3)
{
  const gint32 data[4] = { 1, -2, 3, -4 };
  guint version;

  for (version = 2; version <= 3; version++) {
    gchar *path = write_npy (version == 2 ? "v2.npy" : "v3.npy", version,
        "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }",
        data, sizeof (data));
    GstHarness *h = src_harness (path);
    GstBuffer *buf;

    gst_harness_play (h);
    buf = gst_harness_pull (h);
    fail_unless (gst_buffer_memcmp (buf, 0, data, sizeof (data)) == 0);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), 4);
    gst_buffer_unref (buf);
    gst_harness_teardown (h);
    g_free (path);
  }
}

GST_END_TEST;

GST_START_TEST (test_src_uri_handler)
{
  GstElement *src = gst_element_factory_make ("planfilesrc", NULL);
  GError *err = NULL;
  gchar *location, *uri;

  fail_unless (GST_IS_URI_HANDLER (src));
  fail_unless_equals_int (gst_uri_handler_get_uri_type (GST_URI_HANDLER
          (src)), GST_URI_SRC);
  fail_unless_equals_string (gst_uri_handler_get_protocols (GST_URI_HANDLER
          (src))[0], "file");
  fail_unless (gst_uri_handler_set_uri (GST_URI_HANDLER (src),
          "file:///tmp/an%20array.npy", &err));
  g_object_get (src, "location", &location, NULL);
  fail_unless_equals_string (location, "/tmp/an array.npy");
  uri = gst_uri_handler_get_uri (GST_URI_HANDLER (src));
  fail_unless_equals_string (uri, "file:///tmp/an%20array.npy");
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (src),
          "http://example.com/a.npy", &err));
  g_clear_error (&err);
  g_free (uri);
  g_free (location);
  gst_object_unref (src);
}

GST_END_TEST;

GST_START_TEST (test_src_opens_nothing_before_paused)
{
  GstElement *src = gst_element_factory_make ("planfilesrc", NULL);

  g_object_set (src, "location", "/nonexistent/array.npy", NULL);
  fail_unless_equals_int (gst_element_set_state (src, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (gst_element_set_state (src, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (src);
}

GST_END_TEST;

/* Progress messages, as an application sees them on the bus. */
typedef struct
{
  GstProgressType type;
  guint64 rows_done, rows_total, bytes_done, bytes_total;
  gint percent;
  GstClockTime time;            /* the pipeline clock's when posted */
} Progress;

typedef struct
{
  GMutex lock;
  GArray *seen;                 /* Progress */
  GstClock *clock;
  GstClockTime step;            /* the clock advances by it per buffer */
  GstPad *srcpad;
  gulong block_id;
  guint buffers;
  guint block_at;               /* block the source's pad at this buffer */
  guint64 blocked_end;          /* OFFSET_END of the buffer blocked */
} ProgressRun;

static GstBusSyncReply
record_progress (GstBus * bus, GstMessage * msg, gpointer data)
{
  ProgressRun *run = data;
  const GstStructure *s = gst_message_get_structure (msg);
  Progress p = { 0, };
  gchar *code = NULL, *text = NULL;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_PROGRESS)
    return GST_BUS_PASS;
  gst_message_parse_progress (msg, &p.type, &code, &text);
  fail_unless_equals_string (code, "read");
  fail_unless (text != NULL && strstr (text, "a.npy") != NULL, "%s", text);
  fail_unless (gst_structure_get (s, "rows-done", G_TYPE_UINT64, &p.rows_done,
          "rows-total", G_TYPE_UINT64, &p.rows_total,
          "bytes-done", G_TYPE_UINT64, &p.bytes_done,
          "bytes-total", G_TYPE_UINT64, &p.bytes_total,
          "percent", G_TYPE_INT, &p.percent, NULL), "%" GST_PTR_FORMAT, s);
  p.time = run->clock ? gst_clock_get_time (run->clock) : 0;
  g_mutex_lock (&run->lock);
  g_array_append_val (run->seen, p);
  g_mutex_unlock (&run->lock);
  g_free (code);
  g_free (text);
  return GST_BUS_PASS;
}

static void
advance_clock (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer data)
{
  ProgressRun *run = data;

  gst_test_clock_advance_time (GST_TEST_CLOCK (run->clock), run->step);
}

/* Blocks the pad at buffer block_at, and tells the test on the bus. */
static GstPadProbeReturn
block_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  ProgressRun *run = data;
  GstElement *src = GST_ELEMENT (gst_pad_get_parent (pad));

  if (++run->buffers < run->block_at) {
    gst_object_unref (src);
    return GST_PAD_PROBE_PASS;
  }
  run->blocked_end = GST_BUFFER_OFFSET_END (GST_PAD_PROBE_INFO_BUFFER (info));
  gst_element_post_message (src, gst_message_new_application (GST_OBJECT
          (src), gst_structure_new_empty ("blocked")));
  gst_object_unref (src);
  return GST_PAD_PROBE_OK;
}

static void
block_at (ProgressRun * run, guint n)
{
  run->block_at = n;
  run->block_id = gst_pad_add_probe (run->srcpad, GST_PAD_PROBE_TYPE_BLOCK |
      GST_PAD_PROBE_TYPE_BUFFER, block_buffer, run, NULL);
}

static void
wait_blocked (GstBus * bus)
{
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_APPLICATION | GST_MESSAGE_ERROR);

  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) ==
      GST_MESSAGE_APPLICATION, "the source did not reach the probe");
  gst_message_unref (msg);
}

/* "planfilesrc location=PATH PROPS ! fakesink", with progress messages
 * recorded and a test clock that advances by @step per buffer. */
static GstElement *
progress_pipeline (ProgressRun * run, const gchar * path,
    const gchar * props, GstClockTime step)
{
  gchar *desc = g_strdup_printf ("planfilesrc name=src location=\"%s\" %s ! "
      "fakesink name=sink sync=false signal-handoffs=true", path, props);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *src, *sink;
  GstBus *bus;

  fail_unless (pipeline != NULL, "%s", desc);
  g_mutex_init (&run->lock);
  run->seen = g_array_new (FALSE, TRUE, sizeof (Progress));
  run->clock = gst_test_clock_new ();
  run->step = step;
  gst_pipeline_use_clock (GST_PIPELINE (pipeline), run->clock);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  run->srcpad = gst_element_get_static_pad (src, "src");
  g_signal_connect (sink, "handoff", G_CALLBACK (advance_clock), run);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, record_progress, run, NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  g_free (desc);
  return pipeline;
}

static void
progress_run_clear (ProgressRun * run, GstElement * pipeline)
{
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  gst_object_unref (run->srcpad);
  gst_object_unref (run->clock);
  g_array_unref (run->seen);
  g_mutex_clear (&run->lock);
}

/* Sets PLAYING and holds the source at its second chunk (the first
 * prerolls the sink) until the pipeline is PLAYING: from then on the
 * source posts progress messages. */
static void
play_and_block (ProgressRun * run, GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);

  block_at (run, 2);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  wait_blocked (bus);
  fail_unless_equals_int (gst_element_get_state (pipeline, NULL, NULL,
          10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (bus);
}

static GstMessageType
run_to_end (ProgressRun * run, GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  GstMessageType type;

  play_and_block (run, pipeline);
  gst_pad_remove_probe (run->srcpad, run->block_id);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no EOS or error within 60 s");
  type = GST_MESSAGE_TYPE (msg);
  gst_message_unref (msg);
  gst_object_unref (bus);
  return type;
}

/* Every message counts the same rows of the same run: bytes are rows times
 * the row size and percent follows the rows. */
static void
check_progress_fields (ProgressRun * run, guint64 total, gsize row_size)
{
  guint i;

  for (i = 0; i < run->seen->len; i++) {
    Progress *p = &g_array_index (run->seen, Progress, i);

    fail_unless_equals_uint64 (p->rows_total, total);
    fail_unless_equals_uint64 (p->bytes_total, total * row_size);
    fail_unless_equals_uint64 (p->bytes_done, p->rows_done * row_size);
    fail_unless_equals_int (p->percent, (gint) (p->rows_done * 100 / total));
    fail_unless (p->rows_done <= total);
  }
}

/* Checks start, continue..., complete and that continue messages are at
 * least @min_rows and 250 ms apart; returns the number of them. */
static guint
check_progress_sequence (ProgressRun * run, guint64 total, gsize row_size)
{
  Progress *head, *tail;
  guint i;

  check_progress_fields (run, total, row_size);
  fail_unless (run->seen->len >= 2);
  head = &g_array_index (run->seen, Progress, 0);
  tail = &g_array_index (run->seen, Progress, run->seen->len - 1);
  fail_unless_equals_int (head->type, GST_PROGRESS_TYPE_START);
  fail_unless_equals_int (tail->type, GST_PROGRESS_TYPE_COMPLETE);
  fail_unless_equals_uint64 (tail->rows_done, total);
  fail_unless_equals_int (tail->percent, 100);
  for (i = 1; i + 1 < run->seen->len; i++) {
    Progress *prev = &g_array_index (run->seen, Progress, i - 1);
    Progress *p = &g_array_index (run->seen, Progress, i);

    fail_unless_equals_int (p->type, GST_PROGRESS_TYPE_CONTINUE);
    fail_unless (p->rows_done >= prev->rows_done + total / 100,
        "continue at row %" G_GUINT64_FORMAT " after %" G_GUINT64_FORMAT,
        p->rows_done, prev->rows_done);
    fail_unless (p->time >= prev->time + 250 * GST_MSECOND,
        "continue %" GST_TIME_FORMAT " after %" GST_TIME_FORMAT,
        GST_TIME_ARGS (p->time), GST_TIME_ARGS (prev->time));
  }
  return run->seen->len - 2;
}

/* 100 chunks of 1 % each, 100 ms apart: the 250 ms interval is the rarer
 * rule, so a continue message every third chunk. */
GST_START_TEST (test_src_progress_every_250_ms)
{
  gchar *path = write_float_npy ("a.npy", 1000, 3);
  ProgressRun run = { {0}, };
  GstElement *pipeline = progress_pipeline (&run, path,
      "blocksize=120 io-mode=read", 100 * GST_MSECOND);
  guint n;

  fail_unless_equals_int (run_to_end (&run, pipeline), GST_MESSAGE_EOS);
  n = check_progress_sequence (&run, 1000, 12);
  fail_unless (n >= 25 && n <= 33, "%u continue messages", n);
  progress_run_clear (&run, pipeline);
  g_free (path);
}

GST_END_TEST;

/* 500 chunks of 0.2 % each, 1 s apart: 1 % is the rarer rule, so a
 * continue message every fifth chunk. */
GST_START_TEST (test_src_progress_every_percent)
{
  gchar *path = write_float_npy ("a.npy", 1000, 3);
  ProgressRun run = { {0}, };
  GstElement *pipeline = progress_pipeline (&run, path,
      "blocksize=24 io-mode=read", GST_SECOND);
  guint n;

  fail_unless_equals_int (run_to_end (&run, pipeline), GST_MESSAGE_EOS);
  n = check_progress_sequence (&run, 1000, 12);
  fail_unless (n >= 90 && n <= 99, "%u continue messages", n);
  progress_run_clear (&run, pipeline);
  g_free (path);
}

GST_END_TEST;

/* A start message in PAUSED would make gst-launch-1.0 wait for the end of
 * the operation before it sets PLAYING, for ever. */
GST_START_TEST (test_src_progress_not_while_prerolling)
{
  gchar *path = write_float_npy ("a.npy", 1000, 3);
  ProgressRun run = { {0}, };
  GstElement *pipeline = progress_pipeline (&run, path, "blocksize=120", 0);

  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PAUSED),
      GST_STATE_CHANGE_ASYNC);
  fail_unless_equals_int (gst_element_get_state (pipeline, NULL, NULL,
          10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (run.seen->len, 0);
  fail_unless_equals_int (run_to_end (&run, pipeline), GST_MESSAGE_EOS);
  check_progress_sequence (&run, 1000, 12);
  progress_run_clear (&run, pipeline);
  g_free (path);
}

GST_END_TEST;

/* Runs until the source is PLAYING and blocked a few chunks later. */
static void
run_and_block (ProgressRun * run, GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  gulong first_block;

  play_and_block (run, pipeline);
  first_block = run->block_id;
  run->buffers = 0;
  block_at (run, 4);
  gst_pad_remove_probe (run->srcpad, first_block);
  wait_blocked (bus);
  gst_object_unref (bus);
}

GST_START_TEST (test_src_progress_canceled_when_stopped)
{
  gchar *path = write_float_npy ("a.npy", 1000, 3);
  ProgressRun run = { {0}, };
  GstElement *pipeline = progress_pipeline (&run, path,
      "blocksize=120 io-mode=read", 0);
  Progress *p;

  run_and_block (&run, pipeline);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  check_progress_fields (&run, 1000, 12);
  fail_unless_equals_int (run.seen->len, 2);
  p = &g_array_index (run.seen, Progress, 0);
  fail_unless_equals_int (p->type, GST_PROGRESS_TYPE_START);
  p = &g_array_index (run.seen, Progress, 1);
  fail_unless_equals_int (p->type, GST_PROGRESS_TYPE_CANCELED);
  /* The rows read: those of the chunk blocked and before. */
  fail_unless (run.blocked_end >= 40);
  fail_unless_equals_uint64 (p->rows_done, run.blocked_end);
  progress_run_clear (&run, pipeline);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_progress_restarts_after_seek)
{
  gchar *path = write_float_npy ("a.npy", 1000, 3);
  ProgressRun run = { {0}, };
  GstElement *pipeline = progress_pipeline (&run, path,
      "blocksize=120 io-mode=read", 0);
  GstBus *bus = gst_element_get_bus (pipeline);
  guint64 blocked_end;
  GstMessage *msg;
  Progress *p;

  run_and_block (&run, pipeline);
  /* The probe stays until the seek is done, and blocks again at row 600. */
  blocked_end = run.blocked_end;
  fail_unless (gst_element_seek (pipeline, 1.0, GST_FORMAT_DEFAULT,
          GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET, 600, GST_SEEK_TYPE_SET, 900));
  gst_pad_remove_probe (run.srcpad, run.block_id);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);

  /* start, canceled by the seek, then a new run of rows 600 to 900 */
  fail_unless (run.seen->len >= 4);
  p = &g_array_index (run.seen, Progress, 0);
  fail_unless_equals_int (p->type, GST_PROGRESS_TYPE_START);
  fail_unless_equals_uint64 (p->rows_total, 1000);
  p = &g_array_index (run.seen, Progress, 1);
  fail_unless_equals_int (p->type, GST_PROGRESS_TYPE_CANCELED);
  fail_unless_equals_uint64 (p->rows_done, blocked_end);
  p = &g_array_index (run.seen, Progress, 2);
  fail_unless_equals_int (p->type, GST_PROGRESS_TYPE_START);
  fail_unless_equals_uint64 (p->rows_total, 300);
  p = &g_array_index (run.seen, Progress, run.seen->len - 1);
  fail_unless_equals_int (p->type, GST_PROGRESS_TYPE_COMPLETE);
  fail_unless_equals_uint64 (p->rows_done, 300);
  fail_unless_equals_uint64 (p->bytes_done, 300 * 12);
  gst_object_unref (bus);
  progress_run_clear (&run, pipeline);
  g_free (path);
}

GST_END_TEST;

/* An array of no rows: planfilesrc pushes the EOS itself (with its empty
 * segment's seqnum); the complete progress message still comes before the
 * EOS message, at which applications stop. */
GST_START_TEST (test_src_progress_complete_before_eos_of_no_rows)
{
  gchar *path = write_float_npy ("no-rows.npy", 0, 3);
  gchar *desc = g_strdup_printf ("planfilesrc location=%s ! fakesink", path);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  gboolean complete = FALSE;
  GstMessage *msg;

  fail_unless (pipeline != NULL);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
              GST_MESSAGE_PROGRESS | GST_MESSAGE_EOS | GST_MESSAGE_ERROR))) {
    GstMessageType type = GST_MESSAGE_TYPE (msg);

    if (type == GST_MESSAGE_PROGRESS) {
      GstProgressType ptype;

      gst_message_parse_progress (msg, &ptype, NULL, NULL);
      complete |= ptype == GST_PROGRESS_TYPE_COMPLETE;
    }
    gst_message_unref (msg);
    fail_unless (type != GST_MESSAGE_ERROR);
    if (type == GST_MESSAGE_EOS)
      break;
  }
  fail_unless (complete, "no complete progress message before the EOS");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_progress_error_when_read_fails)
{
  gchar *path = write_float_npy ("a.npy", 1000, 3);
  ProgressRun run = { {0}, };
  GstElement *pipeline = progress_pipeline (&run, path,
      "blocksize=120 io-mode=read max-chunks=1", 0);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  Progress *p;

  run_and_block (&run, pipeline);
  /* The file shrinks to its header and 100 rows while chunks are read. */
  fail_unless_equals_int (truncate (path, 128 + 100 * 12), 0);
  gst_pad_remove_probe (run.srcpad, run.block_id);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
  gst_message_unref (msg);
  /* Stopped: nothing posts while the messages are read. */
  gst_element_set_state (pipeline, GST_STATE_NULL);

  check_progress_fields (&run, 1000, 12);
  p = &g_array_index (run.seen, Progress, 0);
  fail_unless_equals_int (p->type, GST_PROGRESS_TYPE_START);
  p = &g_array_index (run.seen, Progress, run.seen->len - 1);
  fail_unless_equals_int (p->type, GST_PROGRESS_TYPE_ERROR);
  fail_unless (p->rows_done >= run.blocked_end && p->rows_done <= 100,
      "error after %" G_GUINT64_FORMAT " rows", p->rows_done);
  gst_object_unref (bus);
  progress_run_clear (&run, pipeline);
  g_free (path);
}

GST_END_TEST;

/* Runs "planfilesrc PROPS ! fakesink" and checks that it fails with an
 * element error of @domain/@code whose message contains @text. */
static void
expect_error (const gchar * props, GQuark domain, gint code, const gchar * text)
{
  gchar *desc = g_strdup_printf ("planfilesrc %s ! fakesink", props);
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstMessage *msg;
  GstBus *bus;

  fail_unless (pipeline != NULL, "%s: %s", desc, err ? err->message : "");
  fail_unless (err == NULL, "%s: %s", desc, err ? err->message : "");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "%s: no error within 10 s", desc);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &err, NULL);
  GST_INFO ("%s: %s", desc, err->message);
  fail_unless (g_error_matches (err, domain, code),
      "%s: wrong error %s %d: %s", desc, g_quark_to_string (err->domain),
      err->code, err->message);
  fail_unless (strstr (err->message, text) != NULL,
      "%s: '%s' not in '%s'", desc, text, err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  g_free (desc);
}

static void
expect_file_error (const gchar * path, const gchar * props, GQuark domain,
    gint code, const gchar * text)
{
  gchar *all = g_strdup_printf ("location=\"%s\" %s", path, props);

  expect_error (all, domain, code, text);
  g_free (all);
}

GST_START_TEST (test_src_missing_file)
{
  gchar *path = tmp_path ("missing.npy");

  expect_file_error (path, "", GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NOT_FOUND, path);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_no_location)
{
  expect_error ("", GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
      "No file name");
}

GST_END_TEST;

GST_START_TEST (test_src_no_permission)
{
  gchar *path = write_float_npy ("secret.npy", 2, 2);

  fail_unless (chmod (path, 0) == 0);
  /* As root, file modes do not stop reads. The test runs in a forked
   * child (CK_FORK), so it can drop to an unprivileged user for good; the
   * files are given to that user first so that teardown can remove them. */
  if (geteuid () == 0) {
    if (g_strcmp0 (g_getenv ("CK_FORK"), "no") == 0) {
      GST_WARNING ("skipped: running as root without CK_FORK");
      g_free (path);
      return;
    }
    if (chown (tmpdir, 65534, 65534) != 0 || chown (path, 65534, 65534) != 0
        || setgid (65534) != 0 || setuid (65534) != 0) {
      GST_WARNING ("skipped: cannot drop root privileges here");
      g_free (path);
      return;
    }
  }
  expect_file_error (path, "", GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_READ, "Permission denied");
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_directory)
{
  expect_file_error (tmpdir, "", GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_READ, "is a directory");
}

GST_END_TEST;

GST_START_TEST (test_src_raw_not_whole_rows)
{
  gchar *path = write_file ("odd.raw", "0123456789", 10);

  expect_file_error (path, "dtype=float32", GST_STREAM_ERROR,
      GST_STREAM_ERROR_FORMAT, "not a whole number of rows");
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_raw_without_dtype)
{
  gchar *path = write_file ("x.raw", "01234567", 8);

  expect_file_error (path, "", GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS, "dtype must be given");
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_raw_shape_mismatch)
{
  gchar *path = write_file ("x.raw", "0123456789ab", 12);

  expect_file_error (path, "dtype=int16 shape=\"(4, 3)\"", GST_STREAM_ERROR,
      GST_STREAM_ERROR_FORMAT, "does not match the shape");
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_bad_shape_property)
{
  gchar *path = write_file ("x.raw", "01234567", 8);

  expect_file_error (path, "dtype=int16 shape=\"(2, x)\"",
      GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, "cannot parse shape");
  g_free (path);
}

GST_END_TEST;

/* A shape that does not parse is quoted as it was typed, with the
 * column counted in it; before, a left-out outermost axis was quoted
 * rewritten as -1, "cannot parse shape '(-1,,3)' at column 5". */
GST_START_TEST (test_src_bad_shape_quoted_as_given)
{
  gchar *path = write_file ("x.raw", "0123456789ab", 12);

  expect_file_error (path, "dtype=float32 shape=\"(,,3)\"",
      GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "cannot parse shape '(,,3)' at column 3:");
  expect_file_error (path, "dtype=float32 shape=\"[ , x, 3]\"",
      GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "cannot parse shape '[ , x, 3]' at column 5:");
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_bad_inner_axis_property)
{
  gchar *path = write_file ("x.raw", "01234567", 8);

  expect_file_error (path, "dtype=int16 shape=\"(2, 0)\"",
      GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, "inner axes");
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_bad_dtype_property)
{
  GError *err = NULL;
  GstElement *pipeline =
      gst_parse_launch ("planfilesrc dtype=float128 ! fakesink", &err);

  /* dtype is an enum: a bad name never reaches the element. */
  fail_unless (err != NULL);
  fail_unless (g_error_matches (err, GST_PARSE_ERROR,
          GST_PARSE_ERROR_COULD_NOT_SET_PROPERTY));
  fail_unless (strstr (err->message, "dtype") != NULL);
  g_error_free (err);
  if (pipeline)
    gst_object_unref (pipeline);
}

GST_END_TEST;

GST_START_TEST (test_src_offset_past_end)
{
  gchar *path = write_float_npy ("a.npy", 4, 1);

  expect_file_error (path, "offset=5", GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS, "past the end");
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_npy_wrong_magic)
{
  gchar *path = write_file ("bad.npy", "\x93NUMPX\x01\x00\x10\x00{}", 12);

  expect_file_error (path, "format=npy", GST_STREAM_ERROR,
      GST_STREAM_ERROR_FORMAT, "magic");
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_npy_truncated_header)
{
  /* The length field says 118 bytes of text; the file ends after 20. */
  gchar *path = write_file ("t.npy", "\x93NUMPY\x01\x00\x76\x00{'descr': ",
      20);

  expect_file_error (path, "", GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "truncated");
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_npy_truncated_preamble)
{
  gchar *path = write_file ("t.npy", "\x93NUMPY\x02", 7);

  expect_file_error (path, "", GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "truncated");
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_npy_absurd_header_length)
{
  gchar *path = write_file ("big.npy", "\x93NUMPY\x02\x00\xff\xff\xff\x7f{",
      13);

  expect_file_error (path, "", GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "length field");
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_npy_unsupported_version)
{
  gchar *path = write_npy ("v4.npy", 1, "{}", NULL, 0);
  gchar *contents;
  gsize len;

  fail_unless (g_file_get_contents (path, &contents, &len, NULL));
  contents[6] = 4;
  fail_unless (g_file_set_contents (path, contents, len, NULL));
  expect_file_error (path, "", GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
      "version 4.0");
  g_free (contents);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_npy_malformed_dict)
{
  gchar *path = write_npy ("m.npy", 1,
      "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }",
      "01234567", 8);

  expect_file_error (path, "", GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "True or False");
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_npy_missing_key)
{
  gchar *path = write_npy ("m.npy", 1,
      "{'descr': '<f4', 'fortran_order': False, }", "01234567", 8);

  expect_file_error (path, "", GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "'shape'");
  g_free (path);
}

GST_END_TEST;

/* A negative rate is kept as given (reading it back returns it) and
 * fails the start, naming the property, the value and the valid rates;
 * before, GLib refused it with a warning and the file was read as if no
 * rate had been set. gst-inspect-1.0 shows the valid rates. */
GST_START_TEST (test_src_negative_rate_fails_at_start)
{
  gchar *path = write_float_npy ("a.npy", 4, 1);
  GstElement *src = gst_element_factory_make ("planfilesrc", NULL);
  GParamSpec *pspec;
  gint n = 0, d = 0;

  g_object_set (src, "rate", -1, 2, NULL);
  g_object_get (src, "rate", &n, &d, NULL);
  fail_unless_equals_int (n, -1);
  fail_unless_equals_int (d, 2);
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (src), "rate");
  fail_unless (g_str_has_suffix (g_param_spec_get_blurb (pspec),
          "(valid: 0/1 to 2147483647/1)"), "%s",
      g_param_spec_get_blurb (pspec));
  gst_object_unref (src);

  expect_file_error (path, "rate=-1/2", GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS, "planfilesrc planfilesrc");
  expect_file_error (path, "rate=-1/2", GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS, ": rate=-1/2 is out of range: valid "
      "values are 0/1 to 2147483647/1");
  g_free (path);
}

GST_END_TEST;

/* A 'rate' in the .npy header: caps and timestamps have it unless the
 * property overrides it; a malformed one fails with the file and value. */
GST_START_TEST (test_src_npy_rate_in_header)
{
  gfloat data[4] = { 0, 1, 2, 3 };
  gchar *path = write_npy ("r.npy", 1, "{'descr': '<f4', 'fortran_order': "
      "False, 'shape': (4,), 'rate': 50, }", data, sizeof (data));
  gint override;

  for (override = 0; override < 2; override++) {
    GstHarness *h = src_harness (path);
    GstCaps *caps;
    GstStructure *s;
    GstBuffer *buf;
    gint n = 0, d = 0;

    g_object_set (h->element, "blocksize", 8, NULL);
    if (override)
      g_object_set (h->element, "rate", 1000, 1, NULL);
    gst_harness_play (h);
    gst_buffer_unref (gst_harness_pull (h));
    buf = gst_harness_pull (h);
    caps = gst_pad_get_current_caps (h->sinkpad);
    s = gst_caps_get_structure (caps, 0);
    fail_unless (gst_structure_get_fraction (s, "rate", &n, &d));
    fail_unless_equals_int (n, override ? 1000 : 50);
    fail_unless_equals_int (d, 1);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), 2);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf),
        override ? 2 * GST_MSECOND : 40 * GST_MSECOND);
    gst_buffer_unref (buf);
    gst_caps_unref (caps);
    gst_harness_teardown (h);
  }
  g_free (path);

  path = write_npy ("bad-rate.npy", 1, "{'descr': '<f4', 'fortran_order': "
      "False, 'shape': (4,), 'rate': '100/0', }", data, sizeof (data));
  expect_file_error (path, "", GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "'rate' is '100/0'");
  expect_file_error (path, "", GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "bad-rate.npy");
  /* The property does not hide a corrupt header. */
  expect_file_error (path, "rate=10/1", GST_STREAM_ERROR,
      GST_STREAM_ERROR_FORMAT, "'rate' is '100/0'");
  g_free (path);
}

GST_END_TEST;

/* A (2, 3) int32 array saved in Fortran order (np.asfortranarray) comes
 * out in C order, read: a mapping cannot transpose. */
GST_START_TEST (test_src_npy_fortran_order)
{
  const gint32 file[6] = { 0, 3, 1, 4, 2, 5 };  /* columns one by one */
  const gint32 rows[6] = { 0, 1, 2, 3, 4, 5 };
  gchar *path = write_npy ("f.npy", 1,
      "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }",
      file, sizeof (file));
  GstHarness *h = src_harness (path);
  GstBuffer *buf;
  gchar *all;

  gst_harness_play (h);
  buf = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_get_size (buf), sizeof (rows));
  fail_unless (gst_buffer_memcmp (buf, 0, rows, sizeof (rows)) == 0);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);

  all = g_strdup_printf ("location=\"%s\" io-mode=mmap", path);
  expect_error (all, GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
      "Fortran order");
  g_free (all);
  g_free (path);
}

GST_END_TEST;

/* Big-endian elements come out in the machine's byte order, read. */
GST_START_TEST (test_src_npy_big_endian)
{
  const guint8 file[8] = { 0x3f, 0x80, 0, 0, 0xc0, 0x20, 0, 0 };
  const gfloat values[2] = { 1.0f, -2.5f };
  gchar *path = write_npy ("be.npy", 1,
      "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
      file, sizeof (file));
  GstHarness *h = src_harness (path);
  GstBuffer *buf;
  GstCaps *caps, *expected;
  gchar *all;

  gst_harness_play (h);
  buf = gst_harness_pull (h);
  fail_unless_equals_int (gst_buffer_get_size (buf), sizeof (values));
  fail_unless (gst_buffer_memcmp (buf, 0, values, sizeof (values)) == 0);
  gst_buffer_unref (buf);
  caps = gst_pad_get_current_caps (h->sinkpad);
  expected = gst_caps_from_string ("array/x-raw, dtype=(string)float32, "
      "shape=(int)<2>");
  fail_unless (gst_caps_is_equal (caps, expected));
  gst_caps_unref (caps);
  gst_caps_unref (expected);
  gst_harness_teardown (h);

  all = g_strdup_printf ("location=\"%s\" io-mode=mmap", path);
  expect_error (all, GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
      "big-endian");
  g_free (all);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_npy_object_dtype)
{
  gchar *path = write_npy ("o.npy", 1,
      "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }",
      "0123456789abcdef", 16);

  expect_file_error (path, "", GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
      "'|O'");
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_npy_structured_dtype)
{
  gchar *path = write_npy ("s.npy", 1,
      "{'descr': [('x', '<f4'), ('y', '<i4')], 'fortran_order': False, "
      "'shape': (1,), }", "01234567", 8);

  expect_file_error (path, "", GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
      "structured");
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_npy_absurd_shape)
{
  gchar *path = write_npy ("s.npy", 1,
      "{'descr': '<f4', 'fortran_order': False, "
      "'shape': (123456789012345678901234567890,), }", "01234567", 8);

  expect_file_error (path, "", GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "axis length");
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_npy_data_shorter_than_shape)
{
  gchar *path = write_npy ("s.npy", 1,
      "{'descr': '<f8', 'fortran_order': False, "
      "'shape': (1099511627776, 3), }", "01234567", 8);

  expect_file_error (path, "", GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "truncated");
  g_free (path);
  /* A shape whose data would take more than G_MAXINT64 bytes is not
   * compared with the file's size: it cannot exist. */
  path = write_npy ("s.npy", 1,
      "{'descr': '<f8', 'fortran_order': False, "
      "'shape': (4611686018427387904, 3), }", "01234567", 8);
  expect_file_error (path, "", GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "the shape (4611686018427387904, 3) is too large");
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_src_npy_data_truncated)
{
  gchar *path = write_npy ("s.npy", 1,
      "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }",
      "0123456789abcdef", 16);

  expect_file_error (path, "", GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "only 16 bytes of data");
  g_free (path);
}

GST_END_TEST;

static Suite *
planfilesrc_suite (void)
{
  Suite *s = suite_create ("planfilesrc");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_src_npy_chunks_offsets_caps_values);
  tcase_add_test (tc, test_src_eos_after_last_chunk);
  tcase_add_test (tc, test_src_raw_infers_outer_axis);
  tcase_add_test (tc, test_src_shard_counts_from_offset);
  tcase_add_test (tc, test_src_shard_past_end_is_cut);
  tcase_add_test (tc, test_src_duration_and_position_queries);
  tcase_add_test (tc, test_src_seek_in_rows_and_bytes);
  tcase_add_test (tc, test_src_seek_from_the_end);
  tcase_add_test (tc, test_src_seek_start_after_kept_stop_refused);
  tcase_add_test (tc, test_src_no_rows_have_a_segment);
  tcase_add_test (tc, test_src_seek_to_no_row_of_0d_refused);
  tcase_add_test (tc, test_src_answers_read_rows_query);
  tcase_add_test (tc, test_src_reads_into_proposed_allocator);
  tcase_add_test (tc, test_src_io_modes_agree);
  tcase_add_test (tc, test_src_falls_back_to_system_memory);
  tcase_add_test (tc, test_src_reads_npy_versions_2_and_3);
  tcase_add_test (tc, test_src_uri_handler);
  tcase_add_test (tc, test_src_opens_nothing_before_paused);
  tcase_add_test (tc, test_src_progress_every_250_ms);
  tcase_add_test (tc, test_src_progress_every_percent);
  tcase_add_test (tc, test_src_progress_not_while_prerolling);
  tcase_add_test (tc, test_src_progress_canceled_when_stopped);
  tcase_add_test (tc, test_src_progress_restarts_after_seek);
  tcase_add_test (tc, test_src_progress_error_when_read_fails);
  tcase_add_test (tc, test_src_missing_file);
  tcase_add_test (tc, test_src_no_location);
  tcase_add_test (tc, test_src_no_permission);
  tcase_add_test (tc, test_src_directory);
  tcase_add_test (tc, test_src_raw_not_whole_rows);
  tcase_add_test (tc, test_src_raw_without_dtype);
  tcase_add_test (tc, test_src_raw_shape_mismatch);
  tcase_add_test (tc, test_src_bad_shape_property);
  tcase_add_test (tc, test_src_bad_shape_quoted_as_given);
  tcase_add_test (tc, test_src_bad_inner_axis_property);
  tcase_add_test (tc, test_src_bad_dtype_property);
  tcase_add_test (tc, test_src_offset_past_end);
  tcase_add_test (tc, test_src_npy_wrong_magic);
  tcase_add_test (tc, test_src_npy_truncated_header);
  tcase_add_test (tc, test_src_npy_truncated_preamble);
  tcase_add_test (tc, test_src_npy_absurd_header_length);
  tcase_add_test (tc, test_src_npy_unsupported_version);
  tcase_add_test (tc, test_src_npy_malformed_dict);
  tcase_add_test (tc, test_src_npy_missing_key);
  tcase_add_test (tc, test_src_npy_fortran_order);
  tcase_add_test (tc, test_src_npy_rate_in_header);
  tcase_add_test (tc, test_src_negative_rate_fails_at_start);
  tcase_add_test (tc, test_src_npy_big_endian);
  tcase_add_test (tc, test_src_npy_object_dtype);
  tcase_add_test (tc, test_src_npy_structured_dtype);
  tcase_add_test (tc, test_src_npy_absurd_shape);
  tcase_add_test (tc, test_src_progress_complete_before_eos_of_no_rows);
  tcase_add_test (tc, test_src_npy_data_shorter_than_shape);
  tcase_add_test (tc, test_src_npy_data_truncated);
  return s;
}

GST_CHECK_MAIN (planfilesrc);
