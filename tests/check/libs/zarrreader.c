/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanFileReader on a Zarr v2 array written here: zlib chunks that do not
 * divide the shape, a missing chunk read as the fill value, buffers of
 * whole chunk rows, rows beside the worker, and a corrupt chunk. */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static gchar *store;

/* A (10, 3) int32 array, value 10 * row + column, in chunks of (4, 2),
 * zlib-compressed; chunk 1.1 (rows 4-7, column 2) is not written and
 * reads as the fill value -1. */
static void
write_chunk (guint i, guint j)
{
  gint32 v[8];
  guint8 packed[256];
  uLongf size = sizeof (packed);
  gchar *name, *file;
  guint r, c;

  for (r = 0; r < 4; r++)
    for (c = 0; c < 2; c++)
      v[r * 2 + c] = 10 * (i * 4 + r) + j * 2 + c;
  fail_unless (compress2 (packed, &size, (guint8 *) v, sizeof (v), 5) == Z_OK);
  name = g_strdup_printf ("%u.%u", i, j);
  file = g_build_filename (store, name, NULL);
  fail_unless (g_file_set_contents (file, (gchar *) packed, size, NULL));
  g_free (file);
  g_free (name);
}

static void
setup (void)
{
  gchar *meta;
  guint i, j;

  store = g_dir_make_tmp ("zarrreader-XXXXXX", NULL);
  fail_unless (store != NULL);
  meta = g_build_filename (store, ".zarray", NULL);
  fail_unless (g_file_set_contents (meta, "{\"zarr_format\": 2, "
          "\"shape\": [10, 3], \"chunks\": [4, 2], \"dtype\": \"<i4\", "
          "\"compressor\": {\"id\": \"zlib\", \"level\": 5}, "
          "\"fill_value\": -1, \"order\": \"C\", \"filters\": null}", -1,
          NULL));
  g_free (meta);
  for (i = 0; i < 3; i++)
    for (j = 0; j < 2; j++)
      if (!(i == 1 && j == 1))
        write_chunk (i, j);
}

static void
teardown (void)
{
  GDir *d = g_dir_open (store, 0, NULL);
  const gchar *name;

  while ((name = g_dir_read_name (d))) {
    gchar *file = g_build_filename (store, name, NULL);
    g_unlink (file);
    g_free (file);
  }
  g_dir_close (d);
  g_rmdir (store);
  g_clear_pointer (&store, g_free);
}

static gint32
expected (guint row, guint col)
{
  return row >= 4 && row < 8 && col == 2 ? -1 : (gint32) (10 * row + col);
}

static void
check_rows (GstBuffer * buf, guint row0, guint n, guint window_first)
{
  GstMapInfo map;
  guint r, c;

  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), row0);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (buf), row0 + n);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, n * 12);
  for (r = 0; r < n; r++)
    for (c = 0; c < 3; c++)
      fail_unless_equals_int (((gint32 *) map.data)[r * 3 + c],
          expected (window_first + row0 + r, c));
  gst_buffer_unmap (buf, &map);
}

GST_START_TEST (test_zarr_rows_chunk_aligned_with_fill)
{
  PlanFileReader *r = plan_file_reader_new ();
  static const guint first[] = { 0, 2, 6 }, last[] = { 2, 6, 8 };
  GError *err = NULL;
  GstBuffer *buf;
  guint i;

  fail_unless (plan_file_reader_open (r, store, PLAN_FILE_FORMAT_AUTO, NULL,
          &err), "%s", err ? err->message : "");
  fail_unless_equals_int (plan_file_reader_get_format (r),
      PLAN_FILE_FORMAT_ZARR);
  fail_unless_equals_string (plan_file_reader_get_member (r), "/");
  /* File rows 2 to 9: buffers end at multiples of 4 file rows. */
  fail_unless (plan_file_reader_set_window (r, 2, -1, NULL));
  fail_unless (plan_file_reader_start (r, 0, G_MAXUINT64, 5, 2, NULL));
  for (i = 0; i < G_N_ELEMENTS (first); i++) {
    fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
    check_rows (buf, first[i], last[i] - first[i], 2);
    gst_buffer_unref (buf);
  }
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_EOS);
  buf = plan_file_reader_read_rows (r, 3, 3, NULL);
  fail_unless (buf != NULL);
  check_rows (buf, 3, 3, 2);
  gst_buffer_unref (buf);
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_zarr_corrupt_chunk_is_an_error)
{
  PlanFileReader *r = plan_file_reader_new ();
  gchar *file = g_build_filename (store, "2.0", NULL);
  GError *err = NULL;
  GstBuffer *buf;
  GstFlowReturn ret;

  fail_unless (g_file_set_contents (file, "not zlib at all", -1, NULL));
  fail_unless (plan_file_reader_open (r, store, PLAN_FILE_FORMAT_ZARR, NULL,
          &err), "%s", err ? err->message : "");
  fail_unless (plan_file_reader_start (r, 0, G_MAXUINT64, 4, 2, NULL));
  while ((ret = plan_file_reader_pop (r, &buf, &err)) == GST_FLOW_OK)
    gst_buffer_unref (buf);
  fail_unless_equals_int (ret, GST_FLOW_ERROR);
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_FORMAT));
  fail_unless (strstr (err->message, "2.0' (15 bytes) does not decode to "
          "32 bytes") != NULL, "%s", err->message);
  g_clear_error (&err);
  g_free (file);
  gst_object_unref (r);
}

GST_END_TEST;

/* A chunk that is a FIFO: its open() would wait for a writer, and its
 * read for data, forever; it is an error naming it. */
GST_START_TEST (test_zarr_fifo_chunk_is_an_error)
{
  PlanFileReader *r = plan_file_reader_new ();
  gchar *file = g_build_filename (store, "0.0", NULL);
  GError *err = NULL;
  GstBuffer *buf;
  GstFlowReturn ret;

  fail_unless (g_unlink (file) == 0);
  fail_unless (mkfifo (file, 0600) == 0);
  fail_unless (plan_file_reader_open (r, store, PLAN_FILE_FORMAT_ZARR, NULL,
          &err), "%s", err ? err->message : "");
  fail_unless (plan_file_reader_start (r, 0, G_MAXUINT64, 4, 2, NULL));
  while ((ret = plan_file_reader_pop (r, &buf, &err)) == GST_FLOW_OK)
    gst_buffer_unref (buf);
  fail_unless_equals_int (ret, GST_FLOW_ERROR);
  fail_unless (strstr (err->message, "0.0' is a FIFO (named pipe), not a "
          "regular file") != NULL, "%s", err->message);
  g_clear_error (&err);
  g_free (file);
  gst_object_unref (r);
}

GST_END_TEST;

/* Removes @dir and what is in it; symbolic links are removed, not
 * followed. */
static void
remove_tree (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  while (d && (name = g_dir_read_name (d))) {
    gchar *sub = g_build_filename (dir, name, NULL);

    if (g_file_test (sub, G_FILE_TEST_IS_DIR)
        && !g_file_test (sub, G_FILE_TEST_IS_SYMLINK))
      remove_tree (sub);
    else
      g_unlink (sub);
    g_free (sub);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (dir);
}

/* A store whose zarr.json is a FIFO: reading it to see whether it is an
 * array's would wait for a writer; it is no array. */
GST_START_TEST (test_zarr_fifo_metadata_is_an_error)
{
  PlanFileReader *r = plan_file_reader_new ();
  gchar *dir = g_dir_make_tmp ("zarrfifo-XXXXXX", NULL);
  gchar *json = g_build_filename (dir, "zarr.json", NULL);
  gchar *zarray = g_build_filename (dir, ".zarray", NULL);
  GError *err = NULL;

  fail_unless (mkfifo (json, 0600) == 0);
  fail_if (plan_file_reader_open (r, dir, PLAN_FILE_FORMAT_AUTO, NULL,
          &err));
  fail_unless (strstr (err->message, "no Zarr array") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  /* Nor is a v2 .zarray that is a FIFO. */
  fail_unless (g_unlink (json) == 0);
  fail_unless (mkfifo (zarray, 0600) == 0);
  fail_if (plan_file_reader_open (r, dir, PLAN_FILE_FORMAT_AUTO, NULL,
          &err));
  fail_unless (strstr (err->message, "no Zarr array") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  remove_tree (dir);
  g_free (zarray);
  g_free (json);
  g_free (dir);
  gst_object_unref (r);
}

GST_END_TEST;

/* A directory of eight links to itself: a walk that follows them all to
 * its depth limit would look in 8^9 directories; each is looked in once,
 * so the error comes at once. */
GST_START_TEST (test_zarr_symlink_loops_end)
{
  PlanFileReader *r = plan_file_reader_new ();
  gchar *dir = g_dir_make_tmp ("zarrloop-XXXXXX", NULL);
  GError *err = NULL;
  guint i;

  for (i = 0; i < 8; i++) {
    gchar *link = g_strdup_printf ("%s/loop%u", dir, i);

    fail_unless (symlink (".", link) == 0);
    g_free (link);
  }
  fail_if (plan_file_reader_open (r, dir, PLAN_FILE_FORMAT_AUTO, NULL,
          &err));
  fail_unless (strstr (err->message, "no Zarr array") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  remove_tree (dir);
  g_free (dir);
  gst_object_unref (r);
}

GST_END_TEST;

/* Opening a store whose only file is @name with @text in it fails with
 * an error holding @expected, and without a warning (the check runs make
 * GLib's criticals fatal). */
static void
check_bad_metadata (const gchar * name, const gchar * text,
    const gchar * expected)
{
  PlanFileReader *r = plan_file_reader_new ();
  gchar *dir = g_dir_make_tmp ("zarrmeta-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, name, NULL);
  GError *err = NULL;

  fail_unless (g_file_set_contents (file, text, -1, NULL));
  fail_if (plan_file_reader_open (r, dir, PLAN_FILE_FORMAT_AUTO, NULL,
          &err), "%s was read", text);
  fail_unless (strstr (err->message, expected) != NULL, "%s: %s", text,
      err->message);
  g_clear_error (&err);
  remove_tree (dir);
  g_free (file);
  g_free (dir);
  gst_object_unref (r);
}

#define V2_START "{\"zarr_format\": 2, \"shape\": [10], \"chunks\": [4], "
#define V3_START "{\"zarr_format\": 3, \"node_type\": \"array\", " \
  "\"shape\": [10], \"data_type\": \"int32\", \"chunk_grid\": {\"name\": " \
  "\"regular\", \"configuration\": {\"chunk_shape\": [4]}}, " \
  "\"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0, "
/* The bytes codec as zarr-python 3 writes it (an endian is required for
 * elements of more than one byte). */
#define BYTES_LE "{\"name\": \"bytes\", \"configuration\": " \
  "{\"endian\": \"little\"}}"

/* Metadata with a list or an object where a string or a number belongs,
 * or no JSON at all: json-glib's getters warned about these and gave
 * their default, so that an "order" of {} read as C order. */
GST_START_TEST (test_zarr_metadata_of_wrong_types_is_an_error)
{
  check_bad_metadata (".zarray", "", "its .zarray is not a JSON object");
  check_bad_metadata (".zarray", V2_START "\"dtype\": [[\"a\", \"<f4\"]], "
      "\"compressor\": null, \"fill_value\": 0, \"order\": \"C\"}",
      "its dtype [[\"a\",\"<f4\"]] (a structured dtype, whose elements "
      "are records) is not supported");
  check_bad_metadata (".zarray", V2_START "\"dtype\": \"<i4\", "
      "\"compressor\": null, \"fill_value\": 0, \"order\": {}}",
      "its chunks are in order '?'; only C and F order are read");
  check_bad_metadata (".zarray", V2_START "\"dtype\": \"<i4\", "
      "\"compressor\": null, \"fill_value\": 0, \"order\": \"C\", "
      "\"dimension_separator\": [\"/\"]}", "its dimension_separator '?'");
  check_bad_metadata (".zarray", "{\"zarr_format\": {}}",
      "its .zarray has no zarr_format that is an integer");
  check_bad_metadata ("zarr.json", V3_START "\"codecs\": [{\"name\": "
      "\"transpose\", \"configuration\": {\"order\": [{}]}}, "
      BYTES_LE "]}", "its transpose codec's order is not a "
      "permutation of the array's 1 axes");
  check_bad_metadata ("zarr.json", V3_START "\"codecs\": [{\"name\": "
      "[\"bytes\"]}]}", "its codec '(no name)' is not supported");
  /* No order, fill_value or compressor: they were taken as C, 0 and none,
   * so that an F-ordered array read transposed chunk by chunk, missing
   * chunks as 0 and zlib chunks of a chunk's length as elements;
   * zarr-python 2 refuses all three. */
  check_bad_metadata (".zarray", V2_START "\"dtype\": \"<i4\", "
      "\"compressor\": null, \"fill_value\": 0}", "its .zarray has no "
      "order (\"C\" or \"F\"), which Zarr v2 requires");
  check_bad_metadata (".zarray", V2_START "\"dtype\": \"<i4\", "
      "\"compressor\": null, \"fill_value\": 0, \"order\": null}",
      "its .zarray has no order");
  check_bad_metadata (".zarray", V2_START "\"dtype\": \"<i4\", "
      "\"compressor\": null, \"order\": \"F\"}", "its .zarray has no "
      "fill_value (null where there is none), which Zarr v2 requires");
  check_bad_metadata (".zarray", V2_START "\"dtype\": \"<i4\", "
      "\"fill_value\": 0, \"order\": \"C\"}", "its .zarray has no "
      "compressor (null where there is none), which Zarr v2 requires");
  /* An integer fill value no int64 holds (as zarr-python refuses it). */
  check_bad_metadata (".zarray", V2_START "\"dtype\": \"<i4\", "
      "\"compressor\": null, \"fill_value\": 1e300, \"order\": \"C\"}",
      "does not fit its dtype int32");
}

GST_END_TEST;

/* Zarr v3 asks readers to refuse an array whose metadata has fields they
 * do not know, unless the field says "must_understand": false, and
 * storage transformers they do not apply: reading on would give the
 * chunks' bytes as something they are not. */
GST_START_TEST (test_zarr_v3_unknown_fields_are_an_error)
{
  PlanFileReader *r = plan_file_reader_new ();
  gchar *dir = g_dir_make_tmp ("zarrmeta-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "zarr.json", NULL);
  GError *err = NULL;

  check_bad_metadata ("zarr.json", V3_START "\"codecs\": [" BYTES_LE
      "], \"storage_transformers\": [{\"name\": \"offset\"}]}",
      "its storage_transformers are not empty; storage transformers are "
      "not read");
  check_bad_metadata ("zarr.json", V3_START "\"codecs\": [" BYTES_LE
      "], \"storage_transformers\": {}}",
      "its storage_transformers are not empty");
  check_bad_metadata ("zarr.json", V3_START "\"codecs\": [" BYTES_LE
      "], \"scale\": {\"must_understand\": true}}",
      "its zarr.json has a field 'scale' that gst-plan does not know");
  check_bad_metadata ("zarr.json", V3_START "\"codecs\": [" BYTES_LE
      "], \"scale\": 2}",
      "its zarr.json has a field 'scale' that gst-plan does not know");
  /* What zarr-python writes, and a field that may be ignored, are read. */
  fail_unless (g_file_set_contents (file, V3_START "\"codecs\": ["
          BYTES_LE "], \"storage_transformers\": [], \"attributes\": {}, "
          "\"dimension_names\": null, \"scale\": {\"must_understand\": "
          "false}}", -1, NULL));
  fail_unless (plan_file_reader_open (r, dir, PLAN_FILE_FORMAT_AUTO, NULL,
          &err), "%s", err ? err->message : "");
  remove_tree (dir);
  g_free (file);
  g_free (dir);
  gst_object_unref (r);
}

GST_END_TEST;

/* Zarr v3 takes exactly one array -> bytes codec: a second one (as
 * zarr-python refuses it: "Only one ArrayBytesCodec is allowed") is an
 * error naming both, not a second serialisation read as nothing. */
GST_START_TEST (test_zarr_v3_two_array_to_bytes_codecs_are_an_error)
{
  check_bad_metadata ("zarr.json", V3_START "\"codecs\": [" BYTES_LE
      ", {\"name\": \"bytes\", \"configuration\": "
      "{\"endian\": \"big\"}}]}", "its codecs have two array -> bytes "
      "codecs, 'bytes' and then 'bytes'; Zarr v3 takes exactly one");
  check_bad_metadata ("zarr.json", V3_START "\"codecs\": [" BYTES_LE
      ", {\"name\": \"gzip\"}, " BYTES_LE "]}",
      "its codecs have two array -> bytes codecs");
  check_bad_metadata ("zarr.json", V3_START "\"codecs\": [" BYTES_LE
      ", {\"name\": \"sharding_indexed\"}]}",
      "'bytes' and then 'sharding_indexed'");
}

GST_END_TEST;

/* Metadata of 100000 nested lists: json-glib, which parses them
 * recursively, overflowed the stack. */
GST_START_TEST (test_zarr_deeply_nested_metadata_is_an_error)
{
  gchar *deep = g_strnfill (100000, '[');

  check_bad_metadata (".zarray", deep, ".zarray' nests lists and objects "
      "more than 256 deep; Zarr metadata nested so deep is taken as "
      "corrupt");
  check_bad_metadata ("zarr.json", deep, "no Zarr array");
  g_free (deep);
}

GST_END_TEST;

/* CRC-32C, as the v3 crc32c codec appends it (bit by bit). */
static guint32
test_crc32c (const guint8 * data, gsize size)
{
  guint32 crc = 0xffffffff;
  gsize i;
  guint k;

  for (i = 0; i < size; i++) {
    crc ^= data[i];
    for (k = 0; k < 8; k++)
      crc = crc & 1 ? 0x82f63b78 ^ (crc >> 1) : crc >> 1;
  }
  return crc ^ 0xffffffff;
}

/* A v3 array of int32 0..9 in chunks of 4, gzip then crc32c: a gzip
 * stream's length is rarely a multiple of 4, so the checksum after it
 * lies at an odd address, which was loaded as a misaligned word (UBSan
 * stops the run at it). */
GST_START_TEST (test_zarr_v3_crc32c_at_any_address)
{
  PlanFileReader *r = plan_file_reader_new ();
  gchar *dir = g_dir_make_tmp ("zarrcrc-XXXXXX", NULL);
  gchar *meta = g_build_filename (dir, "zarr.json", NULL);
  gchar *cdir = g_build_filename (dir, "c", NULL);
  gboolean odd = FALSE;
  GError *err = NULL;
  GstBuffer *buf;
  GstMapInfo map;
  guint i, c;

  fail_unless (g_file_set_contents (meta, V3_START "\"codecs\": [{\"name\": "
          "\"bytes\", \"configuration\": {\"endian\": \"little\"}}, "
          "{\"name\": \"gzip\", \"configuration\": {\"level\": 5}}, "
          "{\"name\": \"crc32c\"}]}", -1, NULL));
  fail_unless (g_mkdir (cdir, 0700) == 0);
  for (c = 0; c < 3; c++) {
    gint32 v[4] = { 0 };
    guint8 out[256];
    z_stream zs = { 0 };
    guint32 crc;
    gchar *file;

    for (i = 0; i < 4 && c * 4 + i < 10; i++)
      v[i] = c * 4 + i;
    fail_unless (deflateInit2 (&zs, 5, Z_DEFLATED, 16 + MAX_WBITS, 8,
            Z_DEFAULT_STRATEGY) == Z_OK);
    zs.next_in = (guint8 *) v;
    zs.avail_in = sizeof (v);
    zs.next_out = out;
    zs.avail_out = sizeof (out) - 4;
    fail_unless (deflate (&zs, Z_FINISH) == Z_STREAM_END);
    deflateEnd (&zs);
    crc = test_crc32c (out, zs.total_out);
    for (i = 0; i < 4; i++)
      out[zs.total_out + i] = crc >> (8 * i);
    odd |= zs.total_out % 4 != 0;
    file = g_strdup_printf ("%s/%u", cdir, c);
    fail_unless (g_file_set_contents (file, (gchar *) out, zs.total_out + 4,
            NULL));
    g_free (file);
  }
  fail_unless (odd);

  fail_unless (plan_file_reader_open (r, dir, PLAN_FILE_FORMAT_AUTO, NULL,
          &err), "%s", err ? err->message : "");
  buf = plan_file_reader_read_rows (r, 0, 10, &err);
  fail_unless (buf != NULL, "%s", err ? err->message : "");
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  for (i = 0; i < 10; i++)
    fail_unless_equals_int (((gint32 *) map.data)[i], i);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  remove_tree (dir);
  g_free (cdir);
  g_free (meta);
  g_free (dir);
  gst_object_unref (r);
}

GST_END_TEST;

/* A dataset path with '..' in it named an array outside the store (the
 * store's sibling); '.' and '..' are no Zarr node names. */
GST_START_TEST (test_zarr_dataset_path_stays_in_the_store)
{
  static const gchar *paths[] = { "../x", "/a/../../x", ".", "a/./b" };
  PlanFileReader *r = plan_file_reader_new ();
  gchar *base = g_path_get_basename (store);
  gchar *up;
  GError *err = NULL;
  guint i;

  /* The store itself, reached from a group beside it. */
  up = g_strconcat ("../", base, NULL);
  plan_file_reader_set_dataset (r, up);
  fail_if (plan_file_reader_open (r, store, PLAN_FILE_FORMAT_ZARR, NULL,
          &err));
  fail_unless (strstr (err->message, "is not the path of an array in a Zarr "
          "store: a part of it is '.' or '..'") != NULL, "%s", err->message);
  g_clear_error (&err);
  for (i = 0; i < G_N_ELEMENTS (paths); i++) {
    plan_file_reader_set_dataset (r, paths[i]);
    fail_if (plan_file_reader_open (r, store, PLAN_FILE_FORMAT_ZARR, NULL,
            &err));
    fail_unless (g_error_matches (err, PLAN_ERROR,
            PLAN_ERROR_INVALID_ARGUMENT), "%s", err->message);
    g_clear_error (&err);
  }
  g_free (up);
  g_free (base);
  gst_object_unref (r);
}

GST_END_TEST;

/* A dataset asked of a store that is an array itself, not a group: the
 * error says so, not that the store has no array in it. */
GST_START_TEST (test_zarr_dataset_of_an_array_store)
{
  PlanFileReader *r = plan_file_reader_new ();
  GError *err = NULL;

  plan_file_reader_set_dataset (r, "temps");
  fail_if (plan_file_reader_open (r, store, PLAN_FILE_FORMAT_ZARR, NULL,
          &err));
  fail_unless (g_error_matches (err, PLAN_ERROR,
          PLAN_ERROR_INVALID_ARGUMENT), "%s", err->message);
  fail_unless (strstr (err->message, "it has no Zarr array 'temps': it is "
          "a Zarr array itself, not a group; read it without a dataset")
      != NULL, "%s", err->message);
  g_clear_error (&err);
  gst_object_unref (r);
}

GST_END_TEST;

static Suite *
zarrreader_suite (void)
{
  Suite *s = suite_create ("zarrreader");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_zarr_rows_chunk_aligned_with_fill);
  tcase_add_test (tc, test_zarr_corrupt_chunk_is_an_error);
  tcase_add_test (tc, test_zarr_fifo_chunk_is_an_error);
  tcase_add_test (tc, test_zarr_fifo_metadata_is_an_error);
  tcase_add_test (tc, test_zarr_symlink_loops_end);
  tcase_add_test (tc, test_zarr_metadata_of_wrong_types_is_an_error);
  tcase_add_test (tc, test_zarr_deeply_nested_metadata_is_an_error);
  tcase_add_test (tc, test_zarr_v3_crc32c_at_any_address);
  tcase_add_test (tc, test_zarr_dataset_path_stays_in_the_store);
  tcase_add_test (tc, test_zarr_dataset_of_an_array_store);
  tcase_add_test (tc, test_zarr_v3_unknown_fields_are_an_error);
  tcase_add_test (tc, test_zarr_v3_two_array_to_bytes_codecs_are_an_error);
  return s;
}

GST_CHECK_MAIN (zarrreader);
