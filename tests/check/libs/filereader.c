/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

static gchar *path;

/* A raw file of 100 int32 values 0..99. */
static void
setup (void)
{
  gint32 v[100];
  gint fd, i;

  for (i = 0; i < 100; i++)
    v[i] = i;
  fd = g_file_open_tmp ("filereader-XXXXXX.i32", &path, NULL);
  fail_unless (fd >= 0);
  fail_unless (write (fd, v, sizeof (v)) == sizeof (v));
  close (fd);
}

static void
teardown (void)
{
  g_unlink (path);
  g_clear_pointer (&path, g_free);
}

static PlanFileReader *
open_reader (void)
{
  PlanFileReader *r = plan_file_reader_new ();
  PlanArrayInfo info;
  const gint64 shape[1] = { -1 };
  GError *err = NULL;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_INT32, 1, shape, NULL));
  fail_unless (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_AUTO, &info,
          &err), "%s", err ? err->message : "");
  return r;
}

static void
check_chunk (GstBuffer * buf, guint row0, guint n, guint value0)
{
  GstMapInfo map;
  guint i;

  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), row0);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), row0 + n);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, n * 4);
  for (i = 0; i < n; i++)
    fail_unless_equals_int (((gint32 *) map.data)[i], value0 + i);
  gst_buffer_unmap (buf, &map);
}

GST_START_TEST (test_reader_chunks_in_order_then_eos)
{
  PlanFileReader *r = open_reader ();
  GstBuffer *buf;
  guint row;

  fail_unless_equals_int (plan_file_reader_get_format (r),
      PLAN_FILE_FORMAT_RAW);
  fail_unless_equals_uint64 (plan_file_reader_get_n_rows (r), 100);
  fail_unless (plan_file_reader_start (r, 0, G_MAXUINT64, 30, 2, NULL));
  for (row = 0; row < 100; row += 30) {
    fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
    check_chunk (buf, row, MIN (30, 100 - row), row);
    gst_buffer_unref (buf);
  }
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_EOS);
  fail_unless (buf == NULL);
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_reader_window_renumbers_rows)
{
  PlanFileReader *r = open_reader ();
  PlanArrayInfo info;
  GstBuffer *buf;

  fail_unless (plan_file_reader_set_window (r, 40, 25, NULL));
  plan_file_reader_get_info (r, &info);
  fail_unless_equals_int64 (info.shape[0], 25);
  fail_unless (plan_file_reader_start (r, 5, G_MAXUINT64, 100, 1, NULL));
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
  /* Window rows 5..24 are file rows 45..64. */
  check_chunk (buf, 5, 20, 45);
  gst_buffer_unref (buf);
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_EOS);
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_reader_restart_drops_read_ahead)
{
  PlanFileReader *r = open_reader ();
  GstBuffer *buf;

  fail_unless (plan_file_reader_start (r, 0, 100, 10, 4, NULL));
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
  check_chunk (buf, 0, 10, 0);
  gst_buffer_unref (buf);
  /* A seek: what was read ahead from row 10 on is dropped. */
  fail_unless (plan_file_reader_start (r, 73, 80, 10, 4, NULL));
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
  check_chunk (buf, 73, 7, 73);
  gst_buffer_unref (buf);
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_EOS);
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_reader_flushing_and_stop)
{
  PlanFileReader *r = open_reader ();
  GstBuffer *buf;

  /* Not started: nothing to wait for. */
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL),
      GST_FLOW_FLUSHING);
  fail_unless (plan_file_reader_start (r, 0, 100, 10, 2, NULL));
  plan_file_reader_set_flushing (r, TRUE);
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL),
      GST_FLOW_FLUSHING);
  plan_file_reader_set_flushing (r, FALSE);
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
  gst_buffer_unref (buf);
  plan_file_reader_stop (r);
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL),
      GST_FLOW_FLUSHING);
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_reader_read_rows_beside_worker)
{
  PlanFileReader *r = open_reader ();
  GError *err = NULL;
  GstBuffer *buf;

  fail_unless (plan_file_reader_set_window (r, 10, -1, NULL));
  fail_unless (plan_file_reader_start (r, 0, G_MAXUINT64, 8, 2, NULL));
  buf = plan_file_reader_read_rows (r, 85, 5, &err);
  fail_unless (buf != NULL);
  check_chunk (buf, 85, 5, 95);
  gst_buffer_unref (buf);

  fail_unless (plan_file_reader_read_rows (r, 86, 5, &err) == NULL);
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT));
  g_clear_error (&err);
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_reader_file_shrinking_is_an_error)
{
  PlanFileReader *r = open_reader ();
  GError *err = NULL;
  GstBuffer *buf;

  fail_unless (truncate (path, 200) == 0);
  fail_unless (plan_file_reader_start (r, 0, 100, 60, 2, NULL));
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, &err), GST_FLOW_ERROR);
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_IO));
  fail_unless (strstr (err->message, path) != NULL);
  fail_unless (strstr (err->message, "truncated") != NULL);
  g_error_free (err);
  gst_object_unref (r);
}

GST_END_TEST;

static gpointer
chunk_data (GstBuffer * buf)
{
  GstMapInfo map;
  gpointer data;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  data = map.data;
  gst_buffer_unmap (buf, &map);
  return data;
}

GST_START_TEST (test_reader_reuses_aligned_pool_memory)
{
  PlanFileReader *r = open_reader ();
  GstBuffer *buf;
  gpointer first_data;
  gboolean reused = FALSE;
  guint i;

  fail_unless (plan_file_reader_start (r, 0, 100, 10, 1, NULL));
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
  fail_unless (buf->pool != NULL);
  first_data = chunk_data (buf);
  fail_unless_equals_int ((guintptr) first_data % 4096, 0);
  gst_buffer_unref (buf);

  /* The memory of the first chunk comes back for a later one. */
  for (i = 1; i < 10; i++) {
    fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
    check_chunk (buf, i * 10, 10, i * 10);
    reused |= chunk_data (buf) == first_data;
    gst_buffer_unref (buf);
  }
  fail_unless (reused);
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_query_helpers_round_trip)
{
  GstQuery *q = plan_query_new_read_rows (7, 3);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 12, NULL), *got;
  guint64 offset, n;

  fail_unless (plan_query_parse_read_rows (q, &offset, &n));
  fail_unless_equals_uint64 (offset, 7);
  fail_unless_equals_uint64 (n, 3);
  fail_unless (plan_query_get_read_rows_buffer (q) == NULL);
  plan_query_set_read_rows_buffer (q, buf);
  got = plan_query_get_read_rows_buffer (q);
  fail_unless (got == buf);
  gst_buffer_unref (got);
  gst_buffer_unref (buf);
  gst_query_unref (q);

  q = gst_query_new_custom (GST_QUERY_CUSTOM,
      gst_structure_new_empty ("something-else"));
  fail_if (plan_query_parse_read_rows (q, NULL, NULL));
  gst_query_unref (q);
}

GST_END_TEST;

static Suite *
filereader_suite (void)
{
  Suite *s = suite_create ("filereader");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_reader_chunks_in_order_then_eos);
  tcase_add_test (tc, test_reader_window_renumbers_rows);
  tcase_add_test (tc, test_reader_restart_drops_read_ahead);
  tcase_add_test (tc, test_reader_flushing_and_stop);
  tcase_add_test (tc, test_reader_read_rows_beside_worker);
  tcase_add_test (tc, test_reader_file_shrinking_is_an_error);
  tcase_add_test (tc, test_reader_reuses_aligned_pool_memory);
  tcase_add_test (tc, test_query_helpers_round_trip);
  return s;
}

GST_CHECK_MAIN (filereader);
