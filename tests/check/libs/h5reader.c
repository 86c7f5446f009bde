/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanFileReader on HDF5 datasets written here with libhdf5: whole chunks
 * per buffer, rows beside the worker, contiguous datasets read like .npy,
 * and the errors of a missing dataset and an unsupported type; and
 * PlanFileWriter writing a dataset that the reader reads back. */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>
#include <hdf5.h>

static gchar *path;

/* /chunked: int32 0..99 in chunks of 30 rows, deflated; /g/contig: the
 * same, contiguous; /half: 4 2-byte floats that are not IEEE binary16
 * (bfloat16's fields). */
static void
setup (void)
{
  hsize_t dims[1] = { 100 }, cdims[1] = { 30 };
  gint32 v[100];
  hid_t file, fapl, space, dcpl, group, dset, half;
  gint fd, i;

  for (i = 0; i < 100; i++)
    v[i] = i;
  fd = g_file_open_tmp ("h5reader-XXXXXX.h5", &path, NULL);
  fail_unless (fd >= 0);
  close (fd);

  /* Data at multiples of 64 bytes: the contiguous dataset can be mapped. */
  fapl = H5Pcreate (H5P_FILE_ACCESS);
  H5Pset_alignment (fapl, 1, 64);
  file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose (fapl);
  fail_unless (file >= 0);
  space = H5Screate_simple (1, dims, NULL);
  dcpl = H5Pcreate (H5P_DATASET_CREATE);
  H5Pset_chunk (dcpl, 1, cdims);
  H5Pset_deflate (dcpl, 4);
  dset = H5Dcreate2 (file, "chunked", H5T_STD_I32LE, space, H5P_DEFAULT,
      dcpl, H5P_DEFAULT);
  fail_unless (H5Dwrite (dset, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL,
          H5P_DEFAULT, v) >= 0);
  H5Dclose (dset);
  group = H5Gcreate2 (file, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  dset = H5Dcreate2 (group, "contig", H5T_STD_I32LE, space, H5P_DEFAULT,
      H5P_DEFAULT, H5P_DEFAULT);
  fail_unless (H5Dwrite (dset, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL,
          H5P_DEFAULT, v) >= 0);
  H5Dclose (dset);
  H5Gclose (group);
  dims[0] = 4;
  H5Sclose (space);
  space = H5Screate_simple (1, dims, NULL);
  half = H5Tcopy (H5T_IEEE_F32LE);
  H5Tset_fields (half, 15, 7, 8, 0, 7);
  H5Tset_size (half, 2);
  H5Tset_ebias (half, 127);
  dset = H5Dcreate2 (file, "half", half, space, H5P_DEFAULT, H5P_DEFAULT,
      H5P_DEFAULT);
  fail_unless (dset >= 0);
  H5Dclose (dset);
  H5Tclose (half);
  H5Pclose (dcpl);
  H5Sclose (space);
  H5Fclose (file);
}

static void
teardown (void)
{
  g_unlink (path);
  g_clear_pointer (&path, g_free);
}

static PlanFileReader *
open_dataset (const gchar * dataset)
{
  PlanFileReader *r = plan_file_reader_new ();
  GError *err = NULL;

  plan_file_reader_set_dataset (r, dataset);
  fail_unless (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_AUTO, NULL,
          &err), "%s", err ? err->message : "");
  fail_unless_equals_int (plan_file_reader_get_format (r),
      PLAN_FILE_FORMAT_HDF5);
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
  for (i = 0; i < n && ((gint32 *) map.data)[i] == (gint32) (value0 + i);)
    i++;
  fail_unless (i == n, "row %u holds %d, not %u", row0 + i,
      i < n ? ((gint32 *) map.data)[i] : 0, value0 + i);
  gst_buffer_unmap (buf, &map);
}

GST_START_TEST (test_h5_chunked_buffers_hold_whole_chunks)
{
  PlanFileReader *r = open_dataset ("/chunked");
  static const guint first[] = { 0, 20, 50, 80 }, last[] = { 20, 50, 80, 85 };
  GstBuffer *buf;
  guint i;

  fail_unless_equals_string (plan_file_reader_get_member (r), "/chunked");
  /* A window from file row 10: the first buffer ends at the chunk
   * boundary (file row 30), the others hold whole chunks. 40 rows asked
   * for become 30. */
  fail_unless (plan_file_reader_set_window (r, 10, 85, NULL));
  fail_unless (plan_file_reader_start (r, 0, G_MAXUINT64, 40, 2, NULL));
  for (i = 0; i < G_N_ELEMENTS (first); i++) {
    fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
    check_chunk (buf, first[i], last[i] - first[i], 10 + first[i]);
    gst_buffer_unref (buf);
  }
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_EOS);

  buf = plan_file_reader_read_rows (r, 75, 5, NULL);
  fail_unless (buf != NULL);
  check_chunk (buf, 75, 5, 85);
  gst_buffer_unref (buf);
  fail_unless_equals_int (plan_file_reader_get_io_mode (r),
      PLAN_FILE_IO_MODE_READ);
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_h5_contiguous_dataset_is_mapped)
{
  PlanFileReader *r = open_dataset ("g/contig");
  GstBuffer *buf;

  fail_unless_equals_string (plan_file_reader_get_member (r), "/g/contig");
  plan_file_reader_set_io_mode (r, PLAN_FILE_IO_MODE_MMAP);
  fail_unless (plan_file_reader_start (r, 0, G_MAXUINT64, 0, 2, NULL));
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
  check_chunk (buf, 0, 100, 0);
  fail_unless_equals_int (plan_file_reader_get_io_mode (r),
      PLAN_FILE_IO_MODE_MMAP);
  gst_buffer_unref (buf);
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_h5_chunked_dataset_cannot_be_mapped)
{
  PlanFileReader *r = open_dataset ("chunked");
  GError *err = NULL;

  plan_file_reader_set_io_mode (r, PLAN_FILE_IO_MODE_MMAP);
  fail_if (plan_file_reader_start (r, 0, G_MAXUINT64, 0, 2, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED));
  g_clear_error (&err);
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_h5_missing_dataset_lists_the_datasets)
{
  PlanFileReader *r = plan_file_reader_new ();
  GError *err = NULL;

  plan_file_reader_set_dataset (r, "/nope");
  fail_if (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_AUTO, NULL, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT));
  fail_unless (strstr (err->message, "no dataset '/nope'; its datasets are "
          "'/chunked', '/g/contig' and '/half'") != NULL, "%s", err->message);
  g_clear_error (&err);
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_h5_bfloat16_is_refused)
{
  PlanFileReader *r = plan_file_reader_new ();
  GError *err = NULL;

  plan_file_reader_set_dataset (r, "half");
  fail_if (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_HDF5, NULL,
          &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED));
  fail_unless (strstr (err->message, "'/half'") != NULL, "%s", err->message);
  fail_unless (strstr (err->message, "not IEEE binary16") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_object_unref (r);
}

GST_END_TEST;

/* A dataspace whose extent was overwritten past its maximum (100 rows
 * said to be 2^56): h5py opens it, and its rows, never written, would be
 * read as the fill value for ever. */
GST_START_TEST (test_h5_extent_beyond_its_maximum_is_an_error)
{
  static const guint8 dims[32] = { 100, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0,
    0, 0, 0, 0, 100, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0
  };
  hsize_t shape[2] = { 100, 3 }, cdims[2] = { 10, 3 };
  PlanFileReader *r = plan_file_reader_new ();
  hid_t file, space, dcpl, dset;
  gint32 v[300] = { 0 };
  GError *err = NULL;
  gchar *data;
  guint8 *at;
  gsize size, i;

  file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  fail_unless (file >= 0);
  space = H5Screate_simple (2, shape, shape);
  dcpl = H5Pcreate (H5P_DATASET_CREATE);
  H5Pset_chunk (dcpl, 2, cdims);
  dset = H5Dcreate2 (file, "a", H5T_STD_I32LE, space, H5P_DEFAULT, dcpl,
      H5P_DEFAULT);
  fail_unless (H5Dwrite (dset, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL,
          H5P_DEFAULT, v) >= 0);
  H5Dclose (dset);
  H5Pclose (dcpl);
  H5Sclose (space);
  H5Fclose (file);

  /* The dataspace message: the extent (100, 3), then its maximum. */
  fail_unless (g_file_get_contents (path, &data, &size, NULL));
  at = NULL;
  for (i = 0; at == NULL && i + sizeof (dims) <= size; i++)
    if (memcmp (data + i, dims, sizeof (dims)) == 0)
      at = (guint8 *) data + i;
  fail_unless (at != NULL);
  at[7] = 1;                    /* 100 + 2^56 rows */
  fail_unless (g_file_set_contents (path, data, size, NULL));
  g_free (data);

  fail_if (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_AUTO, NULL,
          &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_FORMAT), "%s",
      err->message);
  fail_unless (strstr (err->message, "its dataspace is corrupt: axis 0 has "
          "72057594037928036 elements, more than its maximum of 100") !=
      NULL, "%s", err->message);
  g_clear_error (&err);
  gst_object_unref (r);
}

GST_END_TEST;

/* Chunks of 1 MiB, unfiltered, are mapped from the file: one whose
 * address in the chunk index was overwritten to lie past the end of the
 * file is libhdf5's error ("addr overflow"), not a file said to have
 * changed while it was read. */
GST_START_TEST (test_h5_mapped_chunk_past_the_end_is_hdf5s_error)
{
  hsize_t shape[2] = { 4, 262144 }, cdims[2] = { 1, 262144 };
  hsize_t coord[2] = { 2, 0 }, chunk_size = 0;
  PlanFileReader *r = plan_file_reader_new ();
  hid_t file, space, dcpl, dset;
  haddr_t addr = HADDR_UNDEF;
  unsigned mask = 0;
  gfloat *v = g_new0 (gfloat, 4 * 262144);
  GError *err = NULL;
  GstBuffer *buf;
  GstFlowReturn ret;
  guint64 far;
  gchar *data;
  gsize size, i;
  gboolean patched = FALSE;

  file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  fail_unless (file >= 0);
  space = H5Screate_simple (2, shape, NULL);
  dcpl = H5Pcreate (H5P_DATASET_CREATE);
  H5Pset_chunk (dcpl, 2, cdims);
  dset = H5Dcreate2 (file, "a", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, dcpl,
      H5P_DEFAULT);
  fail_unless (H5Dwrite (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL,
          H5P_DEFAULT, v) >= 0);
  fail_unless (H5Dget_chunk_info_by_coord (dset, coord, &mask, &addr,
          &chunk_size) >= 0);
  H5Dclose (dset);
  H5Pclose (dcpl);
  H5Sclose (space);
  H5Fclose (file);
  g_free (v);

  /* The index holds the chunk's address, little-endian, before the data
   * of the first chunk. */
  fail_unless (g_file_get_contents (path, &data, &size, NULL));
  far = (guint64) size + (16 << 20);
  for (i = 0; !patched && i + 8 <= MIN (size, 4096); i++) {
    guint64 x;

    memcpy (&x, data + i, 8);
    if (GUINT64_FROM_LE (x) == addr) {
      x = GUINT64_TO_LE (far);
      memcpy (data + i, &x, 8);
      patched = TRUE;
    }
  }
  fail_unless (patched);
  fail_unless (g_file_set_contents (path, data, size, NULL));
  g_free (data);

  plan_file_reader_set_io_mode (r, PLAN_FILE_IO_MODE_MMAP);
  fail_unless (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_AUTO, NULL,
          &err), "%s", err ? err->message : "");
  fail_unless (plan_file_reader_start (r, 0, G_MAXUINT64, 0, 1, &err), "%s",
      err ? err->message : "");
  while ((ret = plan_file_reader_pop (r, &buf, &err)) == GST_FLOW_OK)
    gst_buffer_unref (buf);
  fail_unless_equals_int (ret, GST_FLOW_ERROR);
  fail_unless (strstr (err->message, "HDF5 cannot read rows 2-3 of its "
          "dataset '/a'") != NULL, "%s", err->message);
  fail_unless (strstr (err->message, "changed while") == NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_h5_writer_output_reads_back)
{
  PlanFileWriter *w = plan_file_writer_new ();
  PlanFileReader *r;
  PlanArrayInfo info;
  const gint64 shape[1] = { -1 };
  gchar *out = g_strconcat (path, ".out.h5", NULL);
  GError *err = NULL;
  GstBuffer *buf;
  gint32 *v;
  guint i;

  plan_file_writer_set_dataset (w, "/g/out", 16, 3);
  fail_unless (plan_file_writer_open (w, out, PLAN_FILE_FORMAT_AUTO, 2, FALSE,
          &err), "%s", err ? err->message : "");
  fail_unless_equals_int (plan_file_writer_get_format (w),
      PLAN_FILE_FORMAT_HDF5);
  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_INT32, 1, shape, NULL));
  fail_unless (plan_file_writer_set_info (w, &info, &err), "%s",
      err ? err->message : "");
  for (i = 0; i < 2; i++) {
    guint j;

    v = g_new (gint32, 50);
    for (j = 0; j < 50; j++)
      v[j] = i * 50 + j;
    fail_unless_equals_int (plan_file_writer_write (w,
            gst_buffer_new_wrapped (v, 200), NULL), GST_FLOW_OK);
  }
  /* Nothing at the location before the end. */
  fail_if (g_file_test (out, G_FILE_TEST_EXISTS));
  fail_unless (plan_file_writer_finish (w, &err), "%s",
      err ? err->message : "");
  gst_object_unref (w);

  r = plan_file_reader_new ();
  fail_unless (plan_file_reader_open (r, out, PLAN_FILE_FORMAT_AUTO, NULL,
          &err), "%s", err ? err->message : "");
  fail_unless_equals_string (plan_file_reader_get_member (r), "/g/out");
  fail_unless (plan_file_reader_start (r, 0, G_MAXUINT64, 100, 2, NULL));
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
  /* Chunks of 16 rows: 100 rows asked for become 96. */
  check_chunk (buf, 0, 96, 0);
  gst_buffer_unref (buf);
  gst_object_unref (r);
  g_unlink (out);
  g_free (out);
}

GST_END_TEST;

static Suite *
h5reader_suite (void)
{
  Suite *s = suite_create ("h5reader");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_h5_chunked_buffers_hold_whole_chunks);
  tcase_add_test (tc, test_h5_contiguous_dataset_is_mapped);
  tcase_add_test (tc, test_h5_chunked_dataset_cannot_be_mapped);
  tcase_add_test (tc, test_h5_missing_dataset_lists_the_datasets);
  tcase_add_test (tc, test_h5_bfloat16_is_refused);
  tcase_add_test (tc, test_h5_writer_output_reads_back);
  tcase_add_test (tc, test_h5_extent_beyond_its_maximum_is_an_error);
  tcase_add_test (tc, test_h5_mapped_chunk_past_the_end_is_hdf5s_error);
  return s;
}

GST_CHECK_MAIN (h5reader);
