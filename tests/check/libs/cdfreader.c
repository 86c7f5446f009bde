/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanFileReader on a NetCDF classic (CDF-1) file made here byte by byte:
 * a non-record variable and two record variables, read by the worker and
 * beside it; and every cut of the header, and every header byte set to
 * 0xff or 0x7f, fail cleanly or read what the file holds (this runs under
 * valgrind and AddressSanitizer with the other unit tests). The pipeline
 * tests (tests/pipelines/test_netcdf.py) check every type against scipy. */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

/* dims t (record), x = 3; a(x) double {0.5, -1, 2.25} at byte 168;
 * r(t, x) short, 100 * i - 7 for i in 0..11, and s(t) byte
 * {-1, 2, -3, 4}: 4 records of 12 bytes (r's 6 padded to 8, s's 1 to 4)
 * from byte 192. */
static const guint8 cdf1[] = {
  0x43, 0x44, 0x46, 0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x0a,
  0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x74, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x78, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01,
  0x61, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06,
  0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0xa8, 0x00, 0x00, 0x00, 0x01,
  0x72, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0xc0,
  0x00, 0x00, 0x00, 0x01, 0x73, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0xc8,
  0x3f, 0xe0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xbf, 0xf0, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x40, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0xff, 0xf9, 0x00, 0x5d, 0x00, 0xc1, 0x00, 0x00, 0xff, 0x00, 0x00, 0x00,
  0x01, 0x25, 0x01, 0x89, 0x01, 0xed, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
  0x02, 0x51, 0x02, 0xb5, 0x03, 0x19, 0x00, 0x00, 0xfd, 0x00, 0x00, 0x00,
  0x03, 0x7d, 0x03, 0xe1, 0x04, 0x45, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
};

#define HEADER_SIZE 168

static gchar *path;

static void
setup (void)
{
  gint fd = g_file_open_tmp ("cdfreader-XXXXXX.nc", &path, NULL);

  fail_unless (fd >= 0);
  close (fd);
}

static void
teardown (void)
{
  g_unlink (path);
  g_free (path);
}

static void
write_file (const guint8 * data, gsize size)
{
  fail_unless (g_file_set_contents (path, (const gchar *) data, size, NULL));
}

static PlanFileReader *
open_var (const gchar * name)
{
  PlanFileReader *r = plan_file_reader_new ();
  GError *err = NULL;

  plan_file_reader_set_dataset (r, name);
  fail_unless (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_AUTO, NULL,
          &err), "%s", err ? err->message : "");
  fail_unless_equals_int (plan_file_reader_get_format (r),
      PLAN_FILE_FORMAT_NETCDF);
  return r;
}

GST_START_TEST (test_record_variables_by_worker_and_beside_it)
{
  PlanFileReader *r;
  const PlanArrayInfo *info;
  GstBuffer *buf;
  GstMapInfo map;
  GError *err = NULL;
  guint64 row = 0;
  guint i;

  write_file (cdf1, sizeof (cdf1));
  r = open_var ("r");
  info = plan_file_reader_get_file_info (r);
  fail_unless_equals_int (info->dtype, PLAN_DTYPE_INT16);
  fail_unless_equals_int (info->ndim, 2);
  fail_unless_equals_int64 (info->shape[0], 4);
  fail_unless_equals_int64 (info->shape[1], 3);
  fail_unless_equals_string (plan_file_reader_get_member (r), "r");

  /* One record a chunk, then three: the records are 12 bytes apart. */
  fail_unless (plan_file_reader_start (r, 1, 4, 1, 2, &err), "%s",
      err ? err->message : "");
  row = 1;
  while (plan_file_reader_pop (r, &buf, &err) == GST_FLOW_OK) {
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), row);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    fail_unless_equals_int (map.size, 6);
    for (i = 0; i < 3; i++)
      fail_unless_equals_int (((gint16 *) map.data)[i],
          100 * (gint) (row * 3 + i) - 7);
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
    row++;
  }
  fail_unless (err == NULL, "%s", err ? err->message : "");
  fail_unless_equals_uint64 (row, 4);

  buf = plan_file_reader_read_rows (r, 0, 4, &err);
  fail_unless (buf != NULL, "%s", err ? err->message : "");
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 24);
  for (i = 0; i < 12; i++)
    fail_unless_equals_int (((gint16 *) map.data)[i], 100 * (gint) i - 7);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  gst_object_unref (r);

  r = open_var ("/s");
  buf = plan_file_reader_read_rows (r, 1, 3, &err);
  fail_unless (buf != NULL, "%s", err ? err->message : "");
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless (map.size == 3 && memcmp (map.data, "\x02\xfd\x04", 3) == 0);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  gst_object_unref (r);

  r = open_var ("a");
  buf = plan_file_reader_read_rows (r, 0, 3, &err);
  fail_unless (buf != NULL, "%s", err ? err->message : "");
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless (((gdouble *) map.data)[0] == 0.5
      && ((gdouble *) map.data)[1] == -1.0
      && ((gdouble *) map.data)[2] == 2.25);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  gst_object_unref (r);
}

GST_END_TEST;

/* Opens the file as it is now and reads every row of each variable that
 * opens: an error is fine, a crash or a leak is not. */
static void
try_every_variable (void)
{
  static const gchar *names[] = { "a", "r" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    PlanFileReader *r = plan_file_reader_new ();
    GError *err = NULL;

    plan_file_reader_set_dataset (r, names[i]);
    if (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_NETCDF, NULL, &err)) {
      guint64 n = plan_file_reader_get_n_rows (r);
      GstBuffer *buf = n > 0 ? plan_file_reader_read_rows (r, 0, n, &err) :
          NULL;

      if (buf)
        gst_buffer_unref (buf);
    } else {
      fail_unless (err != NULL && err->domain == PLAN_ERROR);
      fail_unless (strstr (err->message, path) != NULL, "%s", err->message);
    }
    g_clear_error (&err);
    gst_object_unref (r);
  }
}

GST_START_TEST (test_every_cut_of_the_header_fails)
{
  PlanFileReader *r = plan_file_reader_new ();
  GError *err = NULL;
  gsize cut;

  for (cut = 0; cut < HEADER_SIZE; cut++) {
    write_file (cdf1, cut);
    plan_file_reader_set_dataset (r, "r");
    fail_if (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_NETCDF, NULL,
            &err), "a header cut at %u opened", (guint) cut);
    fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_FORMAT),
        "cut at %u: %s", (guint) cut, err->message);
    g_clear_error (&err);
  }
  /* Cut in the records: the last one is missing. */
  write_file (cdf1, sizeof (cdf1) - 9);
  fail_if (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_NETCDF, NULL,
          &err));
  fail_unless (strstr (err->message, "holds 3 of them") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_every_header_byte_changed)
{
  static const guint8 values[] = { 0xff, 0x7f };
  guint8 copy[sizeof (cdf1)];
  guint at, v;

  for (v = 0; v < G_N_ELEMENTS (values); v++) {
    for (at = 4; at < HEADER_SIZE; at++) {
      memcpy (copy, cdf1, sizeof (cdf1));
      copy[at] = values[v];
      write_file (copy, sizeof (copy));
      try_every_variable ();
    }
  }
}

GST_END_TEST;

static Suite *
cdfreader_suite (void)
{
  Suite *s = suite_create ("cdfreader");
  TCase *tc = tcase_create ("netcdf");

  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_record_variables_by_worker_and_beside_it);
  tcase_add_test (tc, test_every_cut_of_the_header_fails);
  tcase_add_test (tc, test_every_header_byte_changed);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (cdfreader);
