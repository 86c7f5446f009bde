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

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

static gchar *tmpdir;

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("planfilesink-XXXXXX", NULL);
  fail_unless (tmpdir != NULL);
}

static void
teardown (void)
{
  GDir *dir = g_dir_open (tmpdir, 0, NULL);
  const gchar *name;

  while (dir && (name = g_dir_read_name (dir))) {
    gchar *p = g_build_filename (tmpdir, name, NULL);

    if (g_file_test (p, G_FILE_TEST_IS_DIR))
      g_rmdir (p);
    else
      g_unlink (p);
    g_free (p);
  }
  if (dir)
    g_dir_close (dir);
  g_rmdir (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

static gchar *
tmp_path (const gchar * name)
{
  return g_build_filename (tmpdir, name, NULL);
}

/* The number of entries in the test directory, temporary files included. */
static guint
count_entries (void)
{
  GDir *dir = g_dir_open (tmpdir, 0, NULL);
  guint n = 0;

  while (g_dir_read_name (dir))
    n++;
  g_dir_close (dir);
  return n;
}

/* Files of tmpdir this process has open that have no name: the unnamed
 * (O_TMPFILE) file a writer writes until it links it into place. Its
 * descriptor in @fd when there is one. */
static guint
count_unnamed (gint * fd)
{
  GDir *dir = g_dir_open ("/proc/self/fd", 0, NULL);
  const gchar *name;
  guint n = 0;

  while ((name = g_dir_read_name (dir))) {
    gchar *link = g_build_filename ("/proc/self/fd", name, NULL);
    gchar *target = g_file_read_link (link, NULL);

    if (target && g_str_has_prefix (target, tmpdir)
        && g_str_has_suffix (target, " (deleted)")) {
      n++;
      if (fd)
        *fd = atoi (name);
    }
    g_free (target);
    g_free (link);
  }
  g_dir_close (dir);
  return n;
}

/* The files being written in tmpdir, named or not. */
static guint
count_files (void)
{
  return count_entries () + count_unnamed (NULL);
}

static GstHarness *
sink_harness_with_format (const gchar * location, const gchar * format,
    const gchar * caps)
{
  GstElement *sink = gst_element_factory_make ("planfilesink", NULL);
  GstHarness *h;

  /* The harness starts the element at once, so configure it first. No
   * preroll in a harness: starting must complete at once. */
  g_object_set (sink, "location", location, "async", FALSE, NULL);
  gst_util_set_object_arg (G_OBJECT (sink), "format", format);
  h = gst_harness_new_with_element (sink, "sink", NULL);
  gst_object_unref (sink);
  gst_harness_set_src_caps_str (h, caps);
  return h;
}

static GstHarness *
sink_harness (const gchar * location, const gchar * caps)
{
  return sink_harness_with_format (location, "auto", caps);
}

/* Pushes rows [row0, row0 + n) of a float32 array of @cols columns whose
 * element i is i * 0.25. */
static void
push_rows (GstHarness * h, guint row0, guint n, guint cols)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n * cols * 4, NULL);
  GstMapInfo map;
  guint i;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (i = 0; i < n * cols; i++)
    ((gfloat *) map.data)[i] = (row0 * cols + i) * 0.25f;
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_OFFSET (buf) = row0;
  GST_BUFFER_OFFSET_END (buf) = row0 + n;
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
}

static void
check_float_data (const guint8 * data, gsize size, guint rows, guint cols)
{
  guint i;

  fail_unless_equals_int (size, rows * cols * 4);
  for (i = 0; i < rows * cols; i++)
    fail_unless_equals_float (((const gfloat *) data)[i], i * 0.25f);
}

GST_START_TEST (test_sink_npy_header_completed_at_eos)
{
  gchar *path = tmp_path ("out.npy");
  GstHarness *h = sink_harness (path, "array/x-raw, dtype=(string)float32, "
      "shape=(int)<-1, 3>");
  PlanArrayInfo info;
  gchar *contents;
  gsize len, header_size;

  gst_harness_play (h);
  push_rows (h, 0, 4, 3);
  push_rows (h, 4, 3, 3);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  fail_unless (g_file_get_contents (path, &contents, &len, NULL));
  fail_unless (plan_npy_parse_header ((guint8 *) contents, len, &info,
          &header_size, NULL));
  fail_unless_equals_int (header_size % 64, 0);
  fail_unless_equals_int (info.dtype, PLAN_DTYPE_FLOAT32);
  fail_unless_equals_int (info.ndim, 2);
  fail_unless_equals_int64 (info.shape[0], 7);
  fail_unless_equals_int64 (info.shape[1], 3);
  check_float_data ((guint8 *) contents + header_size, len - header_size, 7, 3);
  /* Only the finished file is left: the temporary one was renamed. */
  fail_unless_equals_int (count_files (), 1);
  g_free (contents);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_sink_raw_by_extension)
{
  gchar *path = tmp_path ("out.f32");
  GstHarness *h = sink_harness (path, "array/x-raw, dtype=(string)float32, "
      "shape=(int)<5>");
  gchar *contents;
  gsize len;

  gst_harness_play (h);
  push_rows (h, 0, 5, 1);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (g_file_get_contents (path, &contents, &len, NULL));
  check_float_data ((guint8 *) contents, len, 5, 1);
  g_free (contents);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_sink_format_npy_overrides_extension)
{
  gchar *path = tmp_path ("out.dat");
  GstHarness *h = sink_harness_with_format (path, "npy",
      "array/x-raw, dtype=(string)float32, shape=(int)<2>");
  gchar *contents;
  gsize len;

  gst_harness_play (h);
  push_rows (h, 0, 2, 1);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (g_file_get_contents (path, &contents, &len, NULL));
  fail_unless (plan_npy_has_magic ((guint8 *) contents, len));
  g_free (contents);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_sink_empty_stream_writes_zero_rows)
{
  gchar *path = tmp_path ("empty.npy");
  GstHarness *h = sink_harness (path, "array/x-raw, dtype=(string)int64, "
      "shape=(int)<0, 2>");
  PlanArrayInfo info;
  gchar *contents;
  gsize len, header_size;

  gst_harness_play (h);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (g_file_get_contents (path, &contents, &len, NULL));
  fail_unless (plan_npy_parse_header ((guint8 *) contents, len, &info,
          &header_size, NULL));
  fail_unless_equals_int64 (info.shape[0], 0);
  fail_unless_equals_int64 (info.shape[1], 2);
  fail_unless_equals_int (len, header_size);
  g_free (contents);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_sink_nothing_at_location_before_eos)
{
  gchar *path = tmp_path ("out.npy");
  GstHarness *h = sink_harness (path, "array/x-raw, dtype=(string)float32, "
      "shape=(int)<-1>");

  gst_harness_play (h);
  push_rows (h, 0, 10, 1);
  fail_if (g_file_test (path, G_FILE_TEST_EXISTS));
  /* The file being written is there, beside the target: unnamed where
   * the file system can (so that nothing is left if the process dies),
   * else hidden. */
  fail_unless_equals_int (count_files (), 1);
  if (count_unnamed (NULL) == 0)
    GST_WARNING ("no O_TMPFILE in %s: a named temporary file", tmpdir);
  gst_harness_teardown (h);
  fail_if (g_file_test (path, G_FILE_TEST_EXISTS));
  fail_unless_equals_int (count_files (), 0);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_sink_stop_leaves_existing_file_untouched)
{
  gchar *path = tmp_path ("out.npy");
  gchar *contents;
  GstHarness *h;

  fail_unless (g_file_set_contents (path, "precious", -1, NULL));
  h = sink_harness (path, "array/x-raw, dtype=(string)float32, "
      "shape=(int)<-1>");
  gst_harness_play (h);
  push_rows (h, 0, 10, 1);
  gst_harness_teardown (h);

  fail_unless (g_file_get_contents (path, &contents, NULL, NULL));
  fail_unless_equals_string (contents, "precious");
  fail_unless_equals_int (count_files (), 1);
  g_free (contents);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_sink_eos_replaces_existing_file)
{
  gchar *path = tmp_path ("out.f32");
  gchar *contents;
  gsize len;
  GstHarness *h;

  fail_unless (g_file_set_contents (path, "precious but old", -1, NULL));
  h = sink_harness (path, "array/x-raw, dtype=(string)float32, "
      "shape=(int)<-1>");
  gst_harness_play (h);
  push_rows (h, 0, 3, 1);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (g_file_get_contents (path, &contents, &len, NULL));
  check_float_data ((guint8 *) contents, len, 3, 1);
  g_free (contents);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_sink_sync_is_off_by_default)
{
  GstElement *sink = gst_element_factory_make ("planfilesink", NULL);
  gboolean sync;

  g_object_get (sink, "sync", &sync, NULL);
  fail_if (sync);
  gst_object_unref (sink);
}

GST_END_TEST;

GST_START_TEST (test_sink_stream_cut_short_is_not_written)
{
  gchar *path = tmp_path ("out.npy");
  GstHarness *h = sink_harness (path, "array/x-raw, dtype=(string)float32, "
      "shape=(int)<10>");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_bus (h->element, bus);
  push_rows (h, 0, 4, 1);
  /* GstBaseSrc sends EOS after an error, too. */
  gst_harness_push_event (h, gst_event_new_eos ());
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_STREAM_ERROR,
          GST_STREAM_ERROR_FAILED));
  fail_unless (strstr (err->message, "after 4 of the 10 rows") != NULL,
      "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  fail_if (g_file_test (path, G_FILE_TEST_EXISTS));
  fail_unless_equals_int (count_files (), 0);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

/* Upstream's stream failed (planfilesrc on a corrupt file) and an
 * aggregator between (planmap) forwarded that at once, then set its caps
 * and ended: the caps came to a file already given up, which crashed the
 * sink (a NULL error posted). Nothing is written and nothing said. */
GST_START_TEST (test_sink_caps_after_upstream_failed)
{
  gchar *path = tmp_path ("out.npy");
  GstElement *sink = gst_element_factory_make ("planfilesink", NULL);
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GstBuffer *buf;

  g_object_set (sink, "location", path, "async", FALSE, NULL);
  h = gst_harness_new_with_element (sink, "sink", NULL);
  gst_object_unref (sink);
  gst_element_set_bus (h->element, bus);
  fail_unless (gst_harness_push_event (h,
          gst_event_new_stream_start ("failed")));
  fail_unless (gst_harness_push_event (h,
          gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
              gst_structure_new_empty (PLAN_EVENT_STREAM_FAILED))));
  gst_harness_set_src_caps_str (h, "array/x-raw, dtype=(string)float32, "
      "shape=(int)<10>");
  buf = gst_buffer_new_allocate (NULL, 4 * 4, NULL);
  gst_buffer_memset (buf, 0, 0, 4 * 4);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  gst_harness_push_event (h, gst_event_new_eos ());
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  fail_if (g_file_test (path, G_FILE_TEST_EXISTS));
  fail_unless_equals_int (count_files (), 0);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

/* A flushing seek after rows were written starts the file over: what is
 * put in place holds the rows after the seek only, as many as the new
 * segment announces, and one temporary file is left at any time. */
/* The warnings planfilesink logs, while a test counts them. */
static gint sink_warnings;

static void
count_sink_warnings (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  if (level == GST_LEVEL_WARNING
      && g_strcmp0 (gst_debug_category_get_name (category),
          "planfilesink") == 0)
    g_atomic_int_inc (&sink_warnings);
}

/* After a flushing seek to rows 6..10 the rows come from row 6: they
 * follow the segment's start, and no warning takes them for a gap (rows
 * out of order still get one). */
GST_START_TEST (test_sink_rows_after_a_seek_are_no_gap)
{
  gchar *path = tmp_path ("out.npy");
  GstHarness *h = sink_harness (path, "array/x-raw, dtype=(string)float32, "
      "shape=(int)<10, 2>");
  GstDebugLevel was = gst_debug_get_default_threshold ();
  GstSegment segment;

  gst_debug_set_threshold_for_name ("planfilesink", GST_LEVEL_WARNING);
  gst_debug_add_log_function (count_sink_warnings, NULL, NULL);
  g_atomic_int_set (&sink_warnings, 0);
  gst_harness_play (h);
  push_rows (h, 0, 3, 2);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_DEFAULT);
  segment.start = segment.time = 6;
  segment.stop = 10;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  push_rows (h, 6, 2, 2);
  push_rows (h, 8, 2, 2);
  fail_unless_equals_int (g_atomic_int_get (&sink_warnings), 0);

  /* A real gap is still told. */
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  push_rows (h, 8, 2, 2);
  fail_unless_equals_int (g_atomic_int_get (&sink_warnings), 1);

  gst_debug_remove_log_function (count_sink_warnings);
  gst_debug_set_threshold_for_name ("planfilesink", was);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_sink_flush_starts_the_file_over)
{
  gchar *path = tmp_path ("out.npy");
  GstHarness *h = sink_harness (path, "array/x-raw, dtype=(string)float32, "
      "shape=(int)<10, 2>");
  PlanArrayInfo info;
  GstSegment segment;
  gchar *contents;
  gsize len, header_size;

  gst_harness_play (h);
  push_rows (h, 5, 3, 2);
  fail_unless_equals_int (count_files (), 1);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_DEFAULT);
  segment.start = segment.time = 0;
  segment.stop = 4;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  fail_unless_equals_int (count_files (), 1);
  push_rows (h, 0, 4, 2);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  fail_unless (g_file_get_contents (path, &contents, &len, NULL));
  fail_unless (plan_npy_parse_header ((guint8 *) contents, len, &info,
          &header_size, NULL));
  fail_unless_equals_int64 (info.shape[0], 4);
  check_float_data ((guint8 *) contents + header_size, len - header_size, 4, 2);
  fail_unless_equals_int (count_files (), 1);
  g_free (contents);
  gst_harness_teardown (h);
  g_free (path);
}

GST_END_TEST;

/* A flush takes back the sink's EOS message that the pipeline still holds
 * (as when a range ends while the pipeline goes to PAUSED, the flushing
 * seek that follows made in PAUSED): at PLAYING the pipeline's EOS is the
 * range sought's, with its seqnum, once its file is in place. */
GST_START_TEST (test_sink_flush_forgets_eos_held_by_the_pipeline)
{
  gchar *in = tmp_path ("in.npy"), *out = tmp_path ("out.npy");
  const gint64 shape[2] = { 100, 2 };
  PlanArrayInfo info;
  GstElement *p, *sink;
  GstMessage *msg, *eos;
  GstEvent *seek;
  guint32 seqnum;
  gchar *desc, *contents;
  gsize len, header_size;
  guint8 *file;
  guint i;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT32, 2, shape,
          NULL));
  header_size = plan_npy_get_header_size (&info);
  file = g_malloc (header_size + 100 * 2 * 4);
  fail_unless (plan_npy_write_header (&info, file, header_size, NULL));
  for (i = 0; i < 100 * 2; i++)
    ((gfloat *) (file + header_size))[i] = i * 0.25f;
  fail_unless (g_file_set_contents (in, (gchar *) file,
          header_size + 100 * 2 * 4, NULL));
  g_free (file);

  desc = g_strdup_printf ("planfilesrc location=%s ! planfilesink name=sink "
      "location=%s", in, out);
  p = gst_parse_launch (desc, NULL);
  g_free (desc);
  fail_unless (p != NULL);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_element_get_state (p, NULL, NULL,
          10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);

  eos = gst_message_new_eos (GST_OBJECT (sink));
  gst_message_set_seqnum (eos, 4242);
  fail_unless (gst_element_post_message (sink, eos));
  seek = gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
      GST_SEEK_TYPE_SET, 10, GST_SEEK_TYPE_SET, 40);
  seqnum = gst_event_get_seqnum (seek);
  fail_unless (gst_element_send_event (p, seek));
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  fail_unless (gst_message_get_seqnum (msg) == seqnum, "the EOS from before "
      "the flush (seqnum %u)", gst_message_get_seqnum (msg));
  gst_message_unref (msg);

  fail_unless (g_file_get_contents (out, &contents, &len, NULL));
  fail_unless (plan_npy_parse_header ((guint8 *) contents, len, &info,
          &header_size, NULL));
  fail_unless_equals_int64 (info.shape[0], 30);
  fail_unless_equals_int (len - header_size, 30 * 2 * 4);
  for (i = 0; i < 30 * 2; i++)
    fail_unless_equals_float (((gfloat *) (contents + header_size))[i],
        (20 + i) * 0.25f);
  g_free (contents);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (in);
  g_free (out);
}

GST_END_TEST;

/* PLAYING to PAUSED wakes the sink waiting for its writer (a queue of one
 * chunk, one row per chunk): it holds that chunk until PLAYING rather
 * than dropping it and stopping the stream. 40 pauses, then every row
 * written once, in order. */
GST_START_TEST (test_sink_pause_while_waiting_for_the_writer)
{
  gchar *in = tmp_path ("in.npy"), *out = tmp_path ("out.npy");
  const gint64 shape[2] = { 4000, 2 };
  PlanArrayInfo info;
  GstElement *p;
  GstMessage *msg;
  gchar *desc, *contents;
  gsize len, header_size;
  guint8 *file;
  guint i;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT32, 2, shape,
          NULL));
  header_size = plan_npy_get_header_size (&info);
  file = g_malloc (header_size + 4000 * 2 * 4);
  fail_unless (plan_npy_write_header (&info, file, header_size, NULL));
  for (i = 0; i < 4000 * 2; i++)
    ((gfloat *) (file + header_size))[i] = i * 0.25f;
  fail_unless (g_file_set_contents (in, (gchar *) file,
          header_size + 4000 * 2 * 4, NULL));
  g_free (file);

  desc = g_strdup_printf ("planfilesrc location=%s blocksize=8 ! "
      "planfilesink location=%s max-pending=1", in, out);
  p = gst_parse_launch (desc, NULL);
  g_free (desc);
  fail_unless (p != NULL);
  for (i = 0; i < 40; i++) {
    fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
    g_usleep (g_random_int_range (0, 1000));
    fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
        GST_STATE_CHANGE_FAILURE);
    fail_unless_equals_int (gst_element_get_state (p, NULL, NULL,
            10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  }
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "the stream stopped at a pause");
  fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);

  fail_unless (g_file_get_contents (out, &contents, &len, NULL));
  fail_unless (plan_npy_parse_header ((guint8 *) contents, len, &info,
          &header_size, NULL));
  fail_unless_equals_int64 (info.shape[0], 4000);
  check_float_data ((guint8 *) contents + header_size, len - header_size,
      4000, 2);
  g_free (contents);
  gst_object_unref (p);
  g_free (in);
  g_free (out);
}

GST_END_TEST;

GST_START_TEST (test_sink_creates_nothing_before_paused)
{
  GstElement *sink = gst_element_factory_make ("planfilesink", NULL);
  gchar *path = tmp_path ("out.npy");

  g_object_set (sink, "location", path, NULL);
  fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (count_files (), 0);
  fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (sink);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_sink_uri_handler)
{
  GstElement *sink = gst_element_factory_make ("planfilesink", NULL);
  gchar *location, *uri;

  fail_unless_equals_int (gst_uri_handler_get_uri_type (GST_URI_HANDLER
          (sink)), GST_URI_SINK);
  fail_unless (gst_uri_handler_set_uri (GST_URI_HANDLER (sink),
          "file:///tmp/out%20put.npy", NULL));
  g_object_get (sink, "location", &location, NULL);
  fail_unless_equals_string (location, "/tmp/out put.npy");
  uri = gst_uri_handler_get_uri (GST_URI_HANDLER (sink));
  fail_unless_equals_string (uri, "file:///tmp/out%20put.npy");
  g_free (uri);
  g_free (location);
  gst_object_unref (sink);
}

GST_END_TEST;

/* Runs @desc and checks that it fails with an element error of
 * @domain/@code whose message contains @text. */
static void
expect_error (const gchar * desc, GQuark domain, gint code, const gchar * text)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstMessage *msg;
  GstBus *bus;

  fail_unless (pipeline != NULL && err == NULL, "%s: %s", desc,
      err ? err->message : "");
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
}

/* A small float32 .npy input for pipelines. */
static gchar *
make_input (guint rows)
{
  gchar *path = tmp_path ("in.npy");
  GstHarness *h = sink_harness (path, "array/x-raw, dtype=(string)float32, "
      "shape=(int)<-1>");

  gst_harness_play (h);
  push_rows (h, 0, rows, 1);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);
  return path;
}

static void
expect_sink_error (const gchar * sink_props, GQuark domain, gint code,
    const gchar * text)
{
  gchar *in = make_input (1000);
  gchar *desc = g_strdup_printf ("planfilesrc location=\"%s\" blocksize=400 "
      "! planfilesink %s", in, sink_props);

  expect_error (desc, domain, code, text);
  g_free (desc);
  g_free (in);
}

GST_START_TEST (test_sink_missing_directory)
{
  gchar *path = tmp_path ("no/such/dir/out.npy");
  gchar *props = g_strdup_printf ("location=\"%s\"", path);
  gchar *dir = tmp_path ("no/such/dir");

  expect_sink_error (props, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
      dir);
  g_free (dir);
  g_free (props);
  g_free (path);
}

GST_END_TEST;

/* A path through a file, and a directory whose file system makes no
 * files (a directory of /proc): each said as it is, not as a directory
 * that does not exist. */
GST_START_TEST (test_sink_directory_that_is_a_file)
{
  gchar *file = tmp_path ("plain");
  gchar *props;

  fail_unless (g_file_set_contents (file, "x", 1, NULL));
  props = g_strdup_printf ("location=\"%s/out.npy\"", file);
  expect_sink_error (props, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
      "plain' is a file, not a directory");
  g_free (props);
  props = g_strdup_printf ("location=\"%s/sub/out.npy\"", file);
  expect_sink_error (props, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
      "plain' is a file, not a directory");
  g_free (props);
  /* The HDF5 writer opens its file on its own: where the build has it. */
  if (g_strcmp0 (g_getenv ("PLAN_HAVE_HDF5"), "1") == 0) {
    props = g_strdup_printf ("location=\"%s/sub/out.h5\"", file);
    expect_sink_error (props, GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_NOT_FOUND, "plain' is a file, not a directory");
    g_free (props);
  }
  if (g_file_test ("/proc/self", G_FILE_TEST_IS_DIR))
    expect_sink_error ("location=/proc/self/out.npy", GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_NOT_FOUND, "cannot create a file in '/proc/self': "
        "its file system makes no new files there");
  g_unlink (file);
  g_free (file);
}

GST_END_TEST;

GST_START_TEST (test_sink_location_is_directory)
{
  gchar *props = g_strdup_printf ("location=\"%s\"", tmpdir);

  expect_sink_error (props, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_WRITE, "is a directory");
  g_free (props);
}

GST_END_TEST;

/* A name longer than its file system holds (a part of 256 bytes) fails
 * the change to PAUSED, with the system's reason: the unnamed temporary
 * file has no name, so it was written whole and refused only when it was
 * put in place at EOS. The 255 bytes a name may have are written. */
GST_START_TEST (test_sink_name_too_long_fails_at_start)
{
  gchar *in = make_input (1000);
  gchar *longest = g_strnfill (255 - strlen (".npy"), 'n');
  gchar *too_long = g_strnfill (256 - strlen (".npy"), 'n');
  const gchar *exts[] = { ".npy", ".npz", ".zarr" };
  /* Zarr outputs where the build has them (the CPU-only build's says it
   * has none first) */
  guint n = G_N_ELEMENTS (exts) -
      (g_strcmp0 (g_getenv ("PLAN_HAVE_ZARR"), "1") == 0 ? 0 : 1), i;

  for (i = 0; i < n; i++) {
    gchar *name = g_strconcat (too_long, exts[i], NULL);
    gchar *path = tmp_path (name);
    gchar *desc = g_strdup_printf ("planfilesrc location=\"%s\" ! "
        "planfilesink location=\"%s\"", in, path);
    GstElement *pipeline = gst_parse_launch (desc, NULL);
    GstMessage *msg;
    GError *err = NULL;

    fail_unless (pipeline != NULL);
    fail_unless_equals_int (gst_element_set_state (pipeline,
            GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipeline),
        GST_MESSAGE_ERROR);
    fail_unless (msg != NULL, "%s: no error", exts[i]);
    gst_message_parse_error (msg, &err, NULL);
    fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_WRITE), "%s", err->message);
    fail_unless (strstr (err->message, "File name too long") != NULL, "%s",
        err->message);
    g_error_free (err);
    gst_message_unref (msg);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
    fail_if (g_file_test (path, G_FILE_TEST_EXISTS));
    g_free (desc);
    g_free (path);
    g_free (name);
  }
  {
    gchar *name = g_strconcat (longest, ".npy", NULL);
    gchar *path = tmp_path (name);
    gchar *props = g_strdup_printf ("location=\"%s\"", path);
    gchar *desc = g_strdup_printf ("planfilesrc location=\"%s\" ! "
        "planfilesink %s", in, props);
    GstElement *pipeline = gst_parse_launch (desc, NULL);
    GstMessage *msg;

    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
        10 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
    gst_message_unref (msg);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
    fail_unless (g_file_test (path, G_FILE_TEST_IS_REGULAR));
    g_unlink (path);
    g_free (desc);
    g_free (props);
    g_free (path);
    g_free (name);
  }
  g_unlink (in);
  g_free (in);
  g_free (longest);
  g_free (too_long);
}

GST_END_TEST;

/* More rows than the caps announce: the file was written with them all
 * (a warning in the debug log only), of a shape the stream never said. */
GST_START_TEST (test_sink_more_rows_than_announced)
{
  gchar *path = tmp_path ("more.npy");
  GstHarness *h = sink_harness (path, "array/x-raw, dtype=(string)float32, "
      "shape=(int)<2, 3>");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_bus (h->element, bus);
  gst_harness_play (h);
  push_rows (h, 0, 4, 3);
  gst_harness_push_event (h, gst_event_new_eos ());
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_STREAM_ERROR,
          GST_STREAM_ERROR_FORMAT), "%s", err->message);
  fail_unless (strstr (err->message, "4 rows came, more than the 2 the "
          "stream announced") != NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  fail_if (g_file_test (path, G_FILE_TEST_EXISTS));
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_sink_no_location)
{
  expect_sink_error ("", GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
      "No file name");
}

GST_END_TEST;

GST_START_TEST (test_sink_no_space_left)
{
  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS)) {
    GST_WARNING ("skipped: no /dev/full");
    return;
  }
  /* /dev/full fails every write with ENOSPC. It is not a regular file, so
   * it is written directly rather than through a temporary file. */
  expect_sink_error ("location=/dev/full format=raw", GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NO_SPACE_LEFT, "No space left");
}

GST_END_TEST;

GST_START_TEST (test_sink_file_too_large)
{
  gchar *in = make_input (1000);
  gchar *out = tmp_path ("out.npy");
  gchar *desc = g_strdup_printf ("planfilesrc location=\"%s\" "
      "blocksize=400 ! planfilesink location=\"%s\"", in, out);
  struct rlimit limit = { 2048, RLIM_INFINITY };

  /* The test runs in a forked child (CK_FORK): a file size limit of 2 KiB
   * makes writes past it fail with EFBIG, once SIGXFSZ no longer kills. */
  if (g_strcmp0 (g_getenv ("CK_FORK"), "no") == 0) {
    GST_WARNING ("skipped: a file size limit needs CK_FORK");
    goto done;
  }
  signal (SIGXFSZ, SIG_IGN);
  fail_unless (setrlimit (RLIMIT_FSIZE, &limit) == 0);
  expect_error (desc, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE,
      "File too large");
  fail_if (g_file_test (out, G_FILE_TEST_EXISTS));
  /* Only the input is left: the temporary file was removed. */
  fail_unless_equals_int (count_files (), 1);
done:
  g_free (desc);
  g_free (out);
  g_free (in);
}

GST_END_TEST;

GST_START_TEST (test_sink_no_permission)
{
  gchar *in = make_input (10);
  gchar *dir = tmp_path ("locked");
  gchar *desc;

  fail_unless (g_mkdir (dir, 0555) == 0);
  /* As root, directory modes do not stop writes. The test runs in a forked
   * child (CK_FORK), so it can drop to an unprivileged user for good; the
   * files are given to that user so that teardown can remove them. */
  if (geteuid () == 0) {
    if (g_strcmp0 (g_getenv ("CK_FORK"), "no") == 0) {
      GST_WARNING ("skipped: running as root without CK_FORK");
      goto done;
    }
    if (chown (tmpdir, 65534, 65534) != 0 || chown (in, 65534, 65534) != 0
        || chown (dir, 65534, 65534) != 0 || setgid (65534) != 0
        || setuid (65534) != 0) {
      GST_WARNING ("skipped: cannot drop root privileges here");
      goto done;
    }
  }
  desc = g_strdup_printf ("planfilesrc location=\"%s\" ! planfilesink "
      "location=\"%s/out.npy\"", in, dir);
  expect_error (desc, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE,
      "Permission denied");
  g_free (desc);
done:
  g_free (dir);
  g_free (in);
}

GST_END_TEST;

/* The ERROR messages on @bus, popped. */
static guint
pop_errors (GstBus * bus)
{
  GstMessage *msg;
  guint n = 0;

  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    GST_INFO ("error %u: %s", n + 1, err->message);
    g_error_free (err);
    gst_message_unref (msg);
    n++;
  }
  return n;
}

GST_START_TEST (test_sink_caps_change_midstream)
{
  gchar *path = tmp_path ("out.npy");
  GstHarness *h = sink_harness (path, "array/x-raw, dtype=(string)float32, "
      "shape=(int)<-1, 3>");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_bus (h->element, bus);
  gst_harness_play (h);
  push_rows (h, 0, 2, 3);
  gst_harness_set_src_caps_str (h, "array/x-raw, dtype=(string)float32, "
      "shape=(int)<-1, 4>");
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_allocate (NULL,
              16, NULL)), GST_FLOW_NOT_NEGOTIATED);
  /* The pad sends the refused caps again before each buffer and before
   * EOS, and GstBaseSink asks set_caps each time: said once all the same. */
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_allocate (NULL,
              16, NULL)), GST_FLOW_NOT_NEGOTIATED);
  gst_harness_push_event (h, gst_event_new_eos ());
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_STREAM_ERROR,
          GST_STREAM_ERROR_FORMAT));
  /* The first array as its caps said (it was "(0, 3)": the rows of the
   * .npy header written first, completed at EOS). */
  fail_unless (strstr (err->message, "changed from float32 (-1, 3) to "
          "float32 (-1, 4)") != NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  fail_unless_equals_int (pop_errors (bus), 0);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  fail_if (g_file_test (path, G_FILE_TEST_EXISTS));
  g_free (path);
}

GST_END_TEST;

/* Runs @desc until its first error (or EOS) and until its streaming
 * threads stop; returns the ERROR messages that reached the bus, the
 * first in @first. */
static guint
run_counting_errors (const gchar * desc, GError ** first)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstMessage *msg;
  GstBus *bus;
  guint n;

  fail_unless (pipeline != NULL && err == NULL, "%s: %s", desc,
      err ? err->message : "");
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "%s: no error within 10 s", desc);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, first, NULL);
  gst_message_unref (msg);
  /* READY joins the streaming threads and keeps the bus's messages
   * (NULL flushes them). */
  gst_element_set_state (pipeline, GST_STATE_READY);
  n = 1 + pop_errors (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return n;
}

/* An HDF5 dataset path that names no dataset (the root group) is one
 * error, when the element starts, naming the property; nothing is made.
 * It was libhdf5's, when the caps came, twice. */
GST_START_TEST (test_sink_h5_dataset_naming_no_dataset)
{
  const gchar *paths[] = { "", "/", "//", "/." };
  gchar *in, *out;
  guint i;

  if (g_strcmp0 (g_getenv ("PLAN_HAVE_HDF5"), "1") != 0)
    return;
  in = make_input (1000);
  out = tmp_path ("out.h5");
  for (i = 0; i < G_N_ELEMENTS (paths); i++) {
    gchar *desc = g_strdup_printf ("planfilesrc location=\"%s\" ! "
        "planfilesink location=\"%s\" dataset=\"%s\"", in, out, paths[i]);
    gchar *text = g_strdup_printf ("dataset \"%s\" names no dataset: give a "
        "name such as /x or group/x", paths[i]);
    GError *err = NULL;

    fail_unless_equals_int (run_counting_errors (desc, &err), 1);
    fail_unless (g_error_matches (err, GST_STREAM_ERROR,
            GST_STREAM_ERROR_FORMAT), "%s: %s", desc, err->message);
    fail_unless (strstr (err->message, text) != NULL, "%s: '%s' not in '%s'",
        desc, text, err->message);
    fail_unless (strstr (err->message, out) != NULL, "%s", err->message);
    /* Only the input is there. */
    fail_unless_equals_int (count_files (), 1);
    g_error_free (err);
    g_free (text);
    g_free (desc);
  }
  g_free (out);
  g_free (in);
}

GST_END_TEST;

/* Two rows of 3 float32 into a sink over a file holding "precious", then
 * a push that fails the stream with @want (its error posted, with @text in
 * its message), then the EOS a GstBaseSrc sends after such an error: the
 * file must still hold "precious", with nothing beside it. With
 * @new_caps, the caps change to them before the failing push of @size
 * bytes. */
static void
check_failed_push_then_eos_keeps_file (const gchar * name,
    const gchar * new_caps, gsize size, GstFlowReturn want,
    const gchar * text)
{
  gchar *path = tmp_path (name);
  gchar *contents;
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;

  fail_unless (g_file_set_contents (path, "precious", -1, NULL));
  h = sink_harness (path, "array/x-raw, dtype=(string)float32, "
      "shape=(int)<-1, 3>");
  gst_element_set_bus (h->element, bus);
  gst_harness_play (h);
  push_rows (h, 0, 2, 3);
  if (new_caps)
    gst_harness_set_src_caps_str (h, new_caps);
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, size, NULL)), want);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no error posted", name);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, text) != NULL, "%s: %s", name,
      err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_harness_push_event (h, gst_event_new_eos ());
  fail_unless_equals_int (pop_errors (bus), 0);
  fail_unless (g_file_get_contents (path, &contents, NULL, NULL));
  fail_unless_equals_string (contents, "precious");
  fail_unless_equals_int (count_files (), 1);
  g_free (contents);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  fail_unless_equals_int (count_files (), 1);
  g_unlink (path);
  g_free (path);
}

/* GstBaseSrc sends EOS after the NOT_NEGOTIATED that refused caps give
 * it: that EOS does not put the rows from before the change in place. */
GST_START_TEST (test_sink_caps_change_then_eos_keeps_file)
{
  const gchar *names[] = { "out.npy", "out.npz", "out.f32" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++)
    check_failed_push_then_eos_keeps_file (names[i], "array/x-raw, "
        "dtype=(string)float32, shape=(int)<-1, 4>", 16,
        GST_FLOW_NOT_NEGOTIATED, "");
}

GST_END_TEST;

/* A chunk the sink refuses (not whole rows) fails the stream: the EOS a
 * GstBaseSrc sends after that error does not put the rows written before
 * it in place (appsrc pushing a buffer of the wrong size put a file of the
 * first rows at location, as if the stream had ended there). */
GST_START_TEST (test_sink_write_error_then_eos_keeps_file)
{
  const gchar *names[] = { "out.npy", "out.f32" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++)
    check_failed_push_then_eos_keeps_file (names[i], NULL, 5, GST_FLOW_ERROR,
        "not a whole number of rows");
}

GST_END_TEST;

GST_START_TEST (test_sink_stopped_pipeline_leaves_nothing)
{
  gchar *in = make_input (100000);
  gchar *out = tmp_path ("out.npy");
  gchar *desc = g_strdup_printf ("planfilesrc location=\"%s\" blocksize=4 "
      "! identity sleep-time=100 ! planfilesink name=out "
      "enable-last-sample=true location=\"%s\"", in, out);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  gint64 deadline = g_get_monotonic_time () + 20 * G_TIME_SPAN_SECOND;
  guint64 row = 0;

  /* Stop the pipeline once some rows have gone to the sink, long before
   * the end (identity makes the whole copy take at least 10 s). */
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (row < 1000 && g_get_monotonic_time () < deadline) {
    GstSample *sample = NULL;

    g_object_get (sink, "last-sample", &sample, NULL);
    if (sample) {
      row = GST_BUFFER_OFFSET (gst_sample_get_buffer (sample));
      gst_sample_unref (sample);
    }
    g_usleep (1000);
  }
  fail_unless (row >= 1000 && row < 100000, "stopped at row %" G_GUINT64_FORMAT,
      row);
  gst_element_set_state (pipeline, GST_STATE_NULL);

  fail_if (g_file_test (out, G_FILE_TEST_EXISTS));
  /* Only the input is left in the directory. */
  fail_unless_equals_int (count_files (), 1);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (desc);
  g_free (out);
  g_free (in);
}

GST_END_TEST;

/* After a run the sink holds none of its chunks (nor the source's file
 * pages behind them): enable-last-sample is off unless asked for. */
GST_START_TEST (test_sink_keeps_no_last_chunk)
{
  gchar *in = make_input (1000);
  gchar *out = tmp_path ("out.npy");
  gchar *desc = g_strdup_printf ("planfilesrc location=\"%s\" blocksize=4 "
      "! planfilesink name=out location=\"%s\"", in, out);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  GstSample *sample = NULL;
  gboolean enabled = TRUE;

  g_object_get (sink, "enable-last-sample", &enabled, NULL);
  fail_if (enabled);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  g_object_get (sink, "last-sample", &sample, NULL);
  fail_unless (sample == NULL);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  fail_unless (g_file_test (out, G_FILE_TEST_EXISTS));
  g_unlink (out);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (desc);
  g_free (out);
  g_free (in);
}

GST_END_TEST;

static Suite *
planfilesink_suite (void)
{
  Suite *s = suite_create ("planfilesink");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_sink_npy_header_completed_at_eos);
  tcase_add_test (tc, test_sink_raw_by_extension);
  tcase_add_test (tc, test_sink_format_npy_overrides_extension);
  tcase_add_test (tc, test_sink_empty_stream_writes_zero_rows);
  tcase_add_test (tc, test_sink_nothing_at_location_before_eos);
  tcase_add_test (tc, test_sink_stop_leaves_existing_file_untouched);
  tcase_add_test (tc, test_sink_eos_replaces_existing_file);
  tcase_add_test (tc, test_sink_sync_is_off_by_default);
  tcase_add_test (tc, test_sink_flush_starts_the_file_over);
  tcase_add_test (tc, test_sink_rows_after_a_seek_are_no_gap);
  tcase_add_test (tc, test_sink_flush_forgets_eos_held_by_the_pipeline);
  tcase_add_test (tc, test_sink_pause_while_waiting_for_the_writer);
  tcase_add_test (tc, test_sink_stream_cut_short_is_not_written);
  tcase_add_test (tc, test_sink_caps_after_upstream_failed);
  tcase_add_test (tc, test_sink_creates_nothing_before_paused);
  tcase_add_test (tc, test_sink_uri_handler);
  tcase_add_test (tc, test_sink_missing_directory);
  tcase_add_test (tc, test_sink_directory_that_is_a_file);
  tcase_add_test (tc, test_sink_location_is_directory);
  tcase_add_test (tc, test_sink_name_too_long_fails_at_start);
  tcase_add_test (tc, test_sink_no_location);
  tcase_add_test (tc, test_sink_more_rows_than_announced);
  tcase_add_test (tc, test_sink_no_space_left);
  tcase_add_test (tc, test_sink_file_too_large);
  tcase_add_test (tc, test_sink_no_permission);
  tcase_add_test (tc, test_sink_caps_change_midstream);
  tcase_add_test (tc, test_sink_caps_change_then_eos_keeps_file);
  tcase_add_test (tc, test_sink_write_error_then_eos_keeps_file);
  tcase_add_test (tc, test_sink_h5_dataset_naming_no_dataset);
  tcase_add_test (tc, test_sink_stopped_pipeline_leaves_nothing);
  tcase_add_test (tc, test_sink_keeps_no_last_chunk);
  return s;
}

GST_CHECK_MAIN (planfilesink);
