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
#include <sys/stat.h>
#include <unistd.h>

static void
set_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
}

static void
count_critical (const gchar * domain, GLogLevelFlags level,
    const gchar * message, gpointer user_data)
{
  (*(guint *) user_data)++;
}

/* Sets *@finalized when @object is finalized. */
static void
watch_finalize (gpointer object, gboolean * finalized)
{
  *finalized = FALSE;
  g_object_set_qdata_full (G_OBJECT (object),
      g_quark_from_static_string ("test-finalized"), finalized, set_flag);
}

GST_START_TEST (test_array_new_is_zeroed_and_aligned)
{
  gint64 shape[] = { 5, 3 };
  PlanArray *a = plan_array_new (PLAN_DTYPE_FLOAT32, 2, shape, NULL);
  const guint8 *data;
  const gint64 *s;
  guint ndim, i;
  gsize size;

  fail_unless (a != NULL);
  fail_unless_equals_int (plan_array_get_dtype (a), PLAN_DTYPE_FLOAT32);
  s = plan_array_get_shape (a, &ndim);
  fail_unless_equals_int (ndim, 2);
  fail_unless_equals_int64 (s[0], 5);
  fail_unless_equals_int64 (s[1], 3);
  fail_unless_equals_int64 (plan_array_get_n_rows (a), 5);
  fail_unless_equals_int (plan_array_get_size (a), 60);
  fail_unless (plan_array_is_writable (a));
  data = plan_array_get_data (a, &size);
  fail_unless_equals_int (size, 60);
  fail_unless_equals_int (GPOINTER_TO_SIZE (data) % 64, 0);
  for (i = 0; i < size; i++)
    fail_unless_equals_int (data[i], 0);
  fail_unless (plan_array_get_writable_data (a, NULL) == data);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_array_new_large_is_page_aligned)
{
  gint64 shape[] = { 1 << 18 };
  PlanArray *a = plan_array_new (PLAN_DTYPE_INT32, 1, shape, NULL);

  fail_unless_equals_int (plan_array_get_size (a), 1 << 20);
  fail_unless_equals_int (GPOINTER_TO_SIZE (plan_array_get_data (a,
              NULL)) % 4096, 0);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_array_new_rejects_unknown_rows)
{
  gint64 shape[] = { -1, 3 };
  GError *err = NULL;

  fail_unless (plan_array_new (PLAN_DTYPE_FLOAT32, 2, shape, &err) == NULL);
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT));
  fail_unless (strstr (err->message, "unknown number of rows") != NULL,
      "%s", err->message);
  fail_unless (strstr (err->message, "(-1, 3)") != NULL, "%s", err->message);
  g_error_free (err);
}

GST_END_TEST;

GST_START_TEST (test_array_new_rejects_empty_inner_axis)
{
  gint64 shape[] = { 4, 0 };
  GError *err = NULL;

  fail_unless (plan_array_new (PLAN_DTYPE_FLOAT32, 2, shape, &err) == NULL);
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT));
  g_error_free (err);
}

GST_END_TEST;

GST_START_TEST (test_array_new_0d_holds_one_value)
{
  PlanArray *a = plan_array_new (PLAN_DTYPE_FLOAT64, 0, NULL, NULL);
  guint ndim = 99;

  fail_unless (a != NULL);
  plan_array_get_shape (a, &ndim);
  fail_unless_equals_int (ndim, 0);
  fail_unless_equals_int64 (plan_array_get_n_rows (a), 1);
  fail_unless_equals_int (plan_array_get_size (a), 8);
  fail_unless_equals_float (*(const gdouble *) plan_array_get_data (a, NULL),
      0.0);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_array_new_empty_has_data_pointer)
{
  gint64 shape[] = { 0, 3 };
  PlanArray *a = plan_array_new (PLAN_DTYPE_INT16, 2, shape, NULL);
  gsize size = 1;

  fail_unless (plan_array_get_data (a, &size) != NULL);
  fail_unless_equals_int (size, 0);
  fail_unless_equals_int64 (plan_array_get_n_rows (a), 0);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_array_properties)
{
  gint64 shape[] = { 7 };
  PlanArray *a = plan_array_new (PLAN_DTYPE_UINT8, 1, shape, NULL);
  PlanDType dtype;
  gint64 n_rows;

  g_object_get (a, "dtype", &dtype, "n-rows", &n_rows, NULL);
  fail_unless_equals_int (dtype, PLAN_DTYPE_UINT8);
  fail_unless_equals_int64 (n_rows, 7);
  g_object_unref (a);
}

GST_END_TEST;

/* A structure holding an array (planreduce's result, as gst-launch-1.0
 * -m prints it) says what it holds, where GStreamer wrote NULL and logged
 * a warning that it could not serialize the field. */
GST_START_TEST (test_array_in_a_structure_has_a_text_form)
{
  gint64 shape[] = { 4, 3 };
  PlanArray *a = plan_array_new (PLAN_DTYPE_FLOAT64, 2, shape, NULL);
  PlanArray *scalar = plan_array_new (PLAN_DTYPE_INT16, 0, NULL, NULL);
  GstStructure *s = gst_structure_new ("r", "array", PLAN_TYPE_ARRAY, a,
      "value", PLAN_TYPE_ARRAY, scalar, NULL);
  gchar *text = gst_structure_to_string (s);

  fail_unless (strstr (text,
          "array=(PlanArray)\"float64\\ array\\ of\\ shape\\ \\(4\\,\\ 3\\)\"")
      != NULL, "%s", text);
  fail_unless (strstr (text, "value=(PlanArray)\"int16\\ array\\ of\\ "
          "shape\\ \\(\\)\"") != NULL, "%s", text);
  g_free (text);
  gst_structure_free (s);
  g_object_unref (a);
  g_object_unref (scalar);
}

GST_END_TEST;

GST_START_TEST (test_array_wrapped_uses_caller_memory)
{
  gint32 values[6] = { 1, 2, 3, 4, 5, 6 };
  gint64 shape[] = { 3, 2 };
  gboolean notified = FALSE;
  PlanArray *a;

  a = plan_array_new_wrapped (values, sizeof (values), PLAN_DTYPE_INT32, 2,
      shape, &notified, set_flag, NULL);
  fail_unless (a != NULL);
  fail_unless (plan_array_get_data (a, NULL) == values);
  fail_unless (plan_array_is_writable (a));
  fail_unless (plan_array_get_writable_data (a, NULL) == values);
  fail_unless_equals_int64 (plan_array_get_n_rows (a), 3);
  fail_if (notified);
  g_object_unref (a);
  fail_unless (notified);
}

GST_END_TEST;

GST_START_TEST (test_array_wrapped_size_mismatch)
{
  gint32 values[3] = { 0 };
  gint64 shape[] = { 3, 2 };
  gboolean notified = FALSE;
  GError *err = NULL;

  fail_unless (plan_array_new_wrapped (values, sizeof (values),
          PLAN_DTYPE_INT32, 2, shape, &notified, set_flag, &err) == NULL);
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_SHAPE));
  fail_unless (strstr (err->message, "12 bytes") != NULL, "%s", err->message);
  fail_unless (strstr (err->message, "24 bytes") != NULL, "%s", err->message);
  g_error_free (err);
  /* On failure the memory stays the caller's. */
  fail_if (notified);
}

GST_END_TEST;

GST_START_TEST (test_array_wrapped_rejects_unknown_rows)
{
  gint32 values[3] = { 0 };
  gint64 shape[] = { -1 };
  GError *err = NULL;

  fail_unless (plan_array_new_wrapped (values, sizeof (values),
          PLAN_DTYPE_INT32, 1, shape, NULL, NULL, &err) == NULL);
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT));
  g_error_free (err);
}

GST_END_TEST;

static void
owner_gone (gpointer data, GObject * where_the_object_was)
{
  *(gboolean *) data = TRUE;
}

/* plan_array_new_for_owner holds a reference to the owner until the array
 * and every view of it are gone, and keeps none when it fails. */
GST_START_TEST (test_array_for_owner_holds_the_owner)
{
  gint32 values[6] = { 1, 2, 3, 4, 5, 6 };
  gint64 shape[] = { 3, 2 };
  GObject *owner = g_object_new (G_TYPE_OBJECT, NULL);
  gboolean finalized = FALSE;
  GError *err = NULL;
  PlanArray *a, *rows;

  g_object_weak_ref (owner, owner_gone, &finalized);
  a = plan_array_new_for_owner (NULL, GPOINTER_TO_SIZE (values),
      sizeof (values), PLAN_DTYPE_INT32, 2, shape, FALSE, owner, &err);
  fail_unless (a != NULL, "%s", err ? err->message : "");
  fail_unless (plan_array_get_data (a, NULL) == values);
  fail_if (plan_array_is_writable (a));
  rows = plan_array_new_rows (a, 1, 2, NULL);
  fail_unless (rows != NULL);
  g_object_unref (owner);
  g_object_unref (a);
  fail_if (finalized);          /* the view still uses the memory */
  g_object_unref (rows);
  fail_unless (finalized);

  owner = g_object_new (G_TYPE_OBJECT, NULL);
  finalized = FALSE;
  g_object_weak_ref (owner, owner_gone, &finalized);
  fail_unless (plan_array_new_for_owner (NULL, GPOINTER_TO_SIZE (values),
          sizeof (values) - 4, PLAN_DTYPE_INT32, 2, shape, TRUE, owner,
          &err) == NULL);
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_SHAPE));
  g_clear_error (&err);
  g_object_unref (owner);
  fail_unless (finalized);
}

GST_END_TEST;

GST_START_TEST (test_array_wrapped_0d)
{
  gfloat value = 2.5f;
  PlanArray *a = plan_array_new_wrapped (&value, sizeof (value),
      PLAN_DTYPE_FLOAT32, 0, NULL, NULL, NULL, NULL);

  fail_unless (a != NULL);
  fail_unless_equals_int64 (plan_array_get_n_rows (a), 1);
  fail_unless (plan_array_get_data (a, NULL) == &value);
  g_object_unref (a);
}

GST_END_TEST;

GST_START_TEST (test_array_from_bytes_is_read_only)
{
  static const guint16 values[4] = { 1, 2, 3, 4 };
  GBytes *bytes = g_bytes_new_static (values, sizeof (values));
  gint64 shape[] = { 4 };
  guint criticals = 0, id;
  PlanArray *a;

  a = plan_array_new_from_bytes (bytes, PLAN_DTYPE_UINT16, 1, shape, NULL);
  fail_unless (a != NULL);
  fail_unless (plan_array_get_data (a, NULL) == values);
  fail_if (plan_array_is_writable (a));
  /* gst-check watches GStreamer's and GLib's log domains, not ours. */
  id = g_log_set_handler ("Plan", G_LOG_LEVEL_CRITICAL, count_critical,
      &criticals);
  fail_unless (plan_array_get_writable_data (a, NULL) == NULL);
  g_log_remove_handler ("Plan", id);
  fail_unless_equals_int (criticals, 1);
  g_object_unref (a);
  g_bytes_unref (bytes);
}

GST_END_TEST;

GST_START_TEST (test_array_from_bytes_holds_the_bytes)
{
  gboolean freed = FALSE;
  guint8 *data = g_malloc0 (8);
  GBytes *bytes;
  gint64 shape[] = { 2, 2 };
  PlanArray *a;

  bytes = g_bytes_new_with_free_func (data, 8, set_flag, &freed);
  a = plan_array_new_from_bytes (bytes, PLAN_DTYPE_INT16, 2, shape, NULL);
  g_bytes_unref (bytes);
  fail_if (freed);
  fail_unless (plan_array_get_data (a, NULL) == data);
  g_object_unref (a);
  fail_unless (freed);
  g_free (data);
}

GST_END_TEST;

GST_START_TEST (test_array_from_bytes_size_mismatch)
{
  GBytes *bytes = g_bytes_new_take (g_malloc0 (10), 10);
  gint64 shape[] = { 2 };
  GError *err = NULL;

  fail_unless (plan_array_new_from_bytes (bytes, PLAN_DTYPE_FLOAT32, 1,
          shape, &err) == NULL);
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_SHAPE));
  fail_unless (strstr (err->message, "10 bytes") != NULL, "%s", err->message);
  fail_unless (strstr (err->message, "8 bytes") != NULL, "%s", err->message);
  g_error_free (err);
  g_bytes_unref (bytes);
}

GST_END_TEST;

GST_START_TEST (test_array_get_bytes_keeps_array_alive)
{
  gint64 shape[] = { 4 };
  PlanArray *a = plan_array_new (PLAN_DTYPE_INT32, 1, shape, NULL);
  gboolean finalized;
  gconstpointer data = plan_array_get_data (a, NULL);
  GBytes *bytes;
  gsize size;

  watch_finalize (a, &finalized);
  bytes = plan_array_get_bytes (a);
  /* No copy: the bytes are the array's data. */
  fail_unless (g_bytes_get_data (bytes, &size) == data);
  fail_unless_equals_int (size, 16);
  g_object_unref (a);
  fail_if (finalized);
  g_bytes_unref (bytes);
  fail_unless (finalized);
}

GST_END_TEST;

GST_START_TEST (test_array_rows_view_shares_memory)
{
  gint64 shape[] = { 10, 3 };
  PlanArray *a = plan_array_new (PLAN_DTYPE_INT16, 2, shape, NULL);
  gint16 *data = plan_array_get_writable_data (a, NULL);
  PlanArray *view;
  const gint64 *vshape;
  GError *error = NULL;
  guint ndim;
  gsize size;

  view = plan_array_new_rows (a, 4, 5, &error);
  fail_unless (view != NULL);
  vshape = plan_array_get_shape (view, &ndim);
  fail_unless_equals_int (ndim, 2);
  fail_unless_equals_int64 (vshape[0], 5);
  fail_unless_equals_int64 (vshape[1], 3);
  fail_unless (plan_array_get_data (view, &size) == data + 4 * 3);
  fail_unless_equals_uint64 (size, 5 * 3 * sizeof (gint16));
  fail_unless (plan_array_is_writable (view));
  /* The view keeps its array alive. */
  g_object_unref (a);
  ((gint16 *) plan_array_get_writable_data (view, NULL))[0] = 7;
  g_object_unref (view);
}

GST_END_TEST;

/* A freed block of 4 MiB or more serves the next array of its size, which
 * plan_array_new() still gives zero-filled; other sizes get new memory. */
GST_START_TEST (test_array_reuses_large_blocks)
{
  gint64 n = 2 << 20;           /* 8 MiB of float32 */
  gint64 other = n + 1024;
  PlanArray *a = plan_array_new (PLAN_DTYPE_FLOAT32, 1, &n, NULL);
  gfloat *v = plan_array_get_writable_data (a, NULL);
  PlanArray *b, *c, *d;
  const gfloat *z;
  gint64 i;

  for (i = 0; i < n; i++)
    v[i] = 1.0f;
  g_object_unref (a);
  b = plan_array_new (PLAN_DTYPE_FLOAT32, 1, &n, NULL);
  fail_unless (plan_array_get_data (b, NULL) == (gconstpointer) v);
  z = plan_array_get_data (b, NULL);
  for (i = 0; i < n && z[i] == 0.0f; i++);
  fail_unless (i == n, "element %" G_GINT64_FORMAT " of the reused block is "
      "not zero", i);

  /* in use: not given out twice */
  c = plan_array_new (PLAN_DTYPE_FLOAT32, 1, &n, NULL);
  v = plan_array_get_writable_data (c, NULL);
  fail_if (v == plan_array_get_data (b, NULL));
  g_object_unref (c);
  d = plan_array_new (PLAN_DTYPE_FLOAT32, 1, &other, NULL);
  fail_if (plan_array_get_data (d, NULL) == (gconstpointer) v);
  g_object_unref (d);
  g_object_unref (b);
}

GST_END_TEST;

/* plan_array_load_npy() of a FIFO (planmap's constants="w=fifo.npy")
 * waited for a writer for ever, and one of /dev/zero read until memory
 * ran out: a file that is not regular is refused at once. A regular
 * .npy still loads. */
GST_START_TEST (test_array_load_npy_refuses_special_files)
{
  gchar *dir = g_dir_make_tmp ("arrayload-XXXXXX", NULL);
  gchar *fifo = g_build_filename (dir, "w.npy", NULL);
  gchar *file = g_build_filename (dir, "a.npy", NULL);
  const gint64 shape[1] = { 3 };
  const gfloat v[3] = { 1, 2, 3 };
  GError *err = NULL;
  PlanArray *a;

  fail_unless (mkfifo (fifo, 0600) == 0);
  fail_if (plan_array_load_npy (fifo, &err));
  fail_unless (strstr (err->message, "is a FIFO (named pipe), not a regular "
          "file") != NULL, "%s", err->message);
  g_clear_error (&err);
  fail_if (plan_array_load_npy ("/dev/zero", &err));
  fail_unless (strstr (err->message, "is a device") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  fail_if (plan_array_load_npy (dir, &err));
  fail_unless (strstr (err->message, "is a directory") != NULL, "%s",
      err->message);
  g_clear_error (&err);

  a = plan_array_new_wrapped ((gpointer) v, sizeof (v), PLAN_DTYPE_FLOAT32, 1,
      shape, NULL, NULL, NULL);
  fail_unless (a != NULL);
  fail_unless (plan_array_save_npy (a, file, NULL));
  g_object_unref (a);
  a = plan_array_load_npy (file, &err);
  fail_unless (a != NULL, "%s", err ? err->message : "");
  fail_unless_equals_float (((const gfloat *) plan_array_get_data (a,
              NULL))[2], 3.0f);
  g_object_unref (a);

  g_unlink (fifo);
  g_unlink (file);
  g_rmdir (dir);
  g_free (file);
  g_free (fifo);
  g_free (dir);
}

GST_END_TEST;

/* Writes a version 1.0 .npy whose header is @header_len bytes (the dict,
 * spaces and a newline), so that its data starts at byte 10 + header_len,
 * and returns its path. */
static gchar *
write_npy_with_header_len (const gchar * dir, const gchar * name,
    const gchar * dict, guint header_len, gconstpointer data, gsize size)
{
  gchar *path = g_build_filename (dir, name, NULL);
  GByteArray *b = g_byte_array_new ();
  guint8 len[2] = { header_len & 0xff, header_len >> 8 };
  guint i;

  g_byte_array_append (b, (const guint8 *) "\x93NUMPY\x01\x00", 8);
  g_byte_array_append (b, len, 2);
  g_byte_array_append (b, (const guint8 *) dict, strlen (dict));
  for (i = strlen (dict); i + 1 < header_len; i++)
    g_byte_array_append (b, (const guint8 *) " ", 1);
  g_byte_array_append (b, (const guint8 *) "\n", 1);
  g_byte_array_append (b, data, size);
  fail_unless (g_file_set_contents (path, (const gchar *) b->data, b->len,
          NULL));
  g_byte_array_unref (b);
  return path;
}

/* numpy pads the headers it writes to 64 bytes but reads any length. After
 * a header of 60 bytes the data starts at byte 70: plan_array_load_npy()
 * (planmap's constants) gave an array whose elements were misaligned, and
 * the kernels read them through typed pointers (UBSan: "load of
 * misaligned address"). The data is aligned, with numpy's values, also
 * when it is byte-swapped or transposed from Fortran order. */
GST_START_TEST (test_array_load_npy_short_header_is_aligned)
{
  gchar *dir = g_dir_make_tmp ("arrayload-XXXXXX", NULL);
  const gdouble f8[3] = { 1.5, -2.0, 3.25 };
  /* >i4 (2, 3) in Fortran order: [[1, 2, 3], [4, 5, 6]] by columns. */
  const guint8 be_f[24] = { 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 5,
    0, 0, 0, 3, 0, 0, 0, 6
  };
  gchar *p1, *p2;
  const gdouble *d;
  const gint32 *i4;
  GError *err = NULL;
  PlanArray *a;
  gint k;

  p1 = write_npy_with_header_len (dir, "f8.npy", "{'descr': '<f8', "
      "'fortran_order': False, 'shape': (3,), }", 60, f8, sizeof (f8));
  a = plan_array_load_npy (p1, &err);
  fail_unless (a != NULL, "%s", err ? err->message : "");
  d = plan_array_get_data (a, NULL);
  fail_unless ((guintptr) d % 8 == 0, "the data is at %p", d);
  for (k = 0; k < 3; k++)
    fail_unless_equals_float (d[k], f8[k]);
  g_object_unref (a);

  p2 = write_npy_with_header_len (dir, "be.npy", "{'descr': '>i4', "
      "'fortran_order': True, 'shape': (2, 3), }", 59, be_f, sizeof (be_f));
  a = plan_array_load_npy (p2, &err);
  fail_unless (a != NULL, "%s", err ? err->message : "");
  i4 = plan_array_get_data (a, NULL);
  fail_unless ((guintptr) i4 % 4 == 0, "the data is at %p", i4);
  for (k = 0; k < 6; k++)
    fail_unless_equals_int (i4[k], k + 1);
  g_object_unref (a);

  g_unlink (p1);
  g_unlink (p2);
  g_rmdir (dir);
  g_free (p1);
  g_free (p2);
  g_free (dir);
}

GST_END_TEST;

/* plan_file_get_regular_contents(): the bytes and their length, a NUL
 * after them; an empty file; what is missing or not regular refused with
 * the codes and messages its documentation gives. */
GST_START_TEST (test_file_get_regular_contents)
{
  gchar *dir = g_dir_make_tmp ("regular-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "k.cu", NULL);
  gchar *none = g_build_filename (dir, "none.cu", NULL);
  gchar *fifo = g_build_filename (dir, "p", NULL);
  const gchar text[] = "a\0b\nc";
  GError *err = NULL;
  gchar *got = NULL;
  gsize n = 99;

  fail_unless (g_file_set_contents (file, text, sizeof (text) - 1, NULL));
  fail_unless (plan_file_get_regular_contents (file, &got, &n, &err));
  fail_unless_equals_uint64 (n, sizeof (text) - 1);
  fail_unless (memcmp (got, text, n) == 0 && got[n] == '\0');
  g_free (got);

  fail_unless (g_file_set_contents (file, "", 0, NULL));
  fail_unless (plan_file_get_regular_contents (file, &got, NULL, &err));
  fail_unless (got[0] == '\0');
  g_free (got);

  got = NULL;
  fail_if (plan_file_get_regular_contents (none, &got, &n, &err));
  fail_unless (got == NULL);
  fail_unless (g_error_matches (err, G_FILE_ERROR, G_FILE_ERROR_NOENT));
  fail_unless (g_str_has_prefix (err->message, none) &&
      strstr (err->message, ": cannot read it: ") != NULL, "%s",
      err->message);
  g_clear_error (&err);

  fail_unless (mkfifo (fifo, 0600) == 0);
  fail_if (plan_file_get_regular_contents (fifo, &got, &n, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED));
  fail_unless (g_str_has_suffix (err->message, ": it is a FIFO (named pipe), "
          "not a regular file"), "%s", err->message);
  g_clear_error (&err);
  fail_if (plan_file_get_regular_contents ("/dev/null", &got, &n, &err));
  fail_unless_equals_string (err->message,
      "/dev/null: it is a device, not a regular file");
  g_clear_error (&err);

  g_unlink (fifo);
  g_unlink (file);
  g_rmdir (dir);
  g_free (fifo);
  g_free (none);
  g_free (file);
  g_free (dir);
}

GST_END_TEST;

GST_START_TEST (test_array_rows_outside_refused)
{
  gint64 n = 10;
  PlanArray *a = plan_array_new (PLAN_DTYPE_FLOAT32, 1, &n, NULL);
  GError *error = NULL;

  fail_unless (plan_array_new_rows (a, 8, 3, &error) == NULL);
  fail_unless (g_error_matches (error, PLAN_ERROR, PLAN_ERROR_SHAPE));
  fail_unless (strstr (error->message, "rows 8 to 11 are not rows of an "
          "array of 10 rows") != NULL, "%s", error->message);
  g_clear_error (&error);
  /* first_row + n_rows wrapped round to a negative number and passed the
   * check: a view far outside the array */
  fail_unless (plan_array_new_rows (a, G_MAXINT64, 10, &error) == NULL);
  fail_unless (strstr (error->message, "10 rows from row "
          "9223372036854775807 are not rows of an array of 10 rows") != NULL,
      "%s", error->message);
  g_clear_error (&error);
  fail_unless (plan_array_new_rows (a, 5, G_MAXINT64, &error) == NULL);
  fail_unless (g_error_matches (error, PLAN_ERROR, PLAN_ERROR_SHAPE));
  g_clear_error (&error);
  g_object_unref (a);
}

GST_END_TEST;

static Suite *
array_suite (void)
{
  Suite *s = suite_create ("array");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_array_new_is_zeroed_and_aligned);
  tcase_add_test (tc, test_array_new_large_is_page_aligned);
  tcase_add_test (tc, test_array_new_rejects_unknown_rows);
  tcase_add_test (tc, test_array_new_rejects_empty_inner_axis);
  tcase_add_test (tc, test_array_new_0d_holds_one_value);
  tcase_add_test (tc, test_array_new_empty_has_data_pointer);
  tcase_add_test (tc, test_array_properties);
  tcase_add_test (tc, test_array_in_a_structure_has_a_text_form);
  tcase_add_test (tc, test_array_wrapped_uses_caller_memory);
  tcase_add_test (tc, test_array_wrapped_size_mismatch);
  tcase_add_test (tc, test_array_wrapped_rejects_unknown_rows);
  tcase_add_test (tc, test_array_wrapped_0d);
  tcase_add_test (tc, test_array_for_owner_holds_the_owner);
  tcase_add_test (tc, test_array_from_bytes_is_read_only);
  tcase_add_test (tc, test_array_from_bytes_holds_the_bytes);
  tcase_add_test (tc, test_array_from_bytes_size_mismatch);
  tcase_add_test (tc, test_array_get_bytes_keeps_array_alive);
  tcase_add_test (tc, test_array_rows_view_shares_memory);
  tcase_add_test (tc, test_array_rows_outside_refused);
  tcase_add_test (tc, test_array_reuses_large_blocks);
  tcase_add_test (tc, test_array_load_npy_refuses_special_files);
  tcase_add_test (tc, test_array_load_npy_short_header_is_aligned);
  tcase_add_test (tc, test_file_get_regular_contents);
  return s;
}

GST_CHECK_MAIN (array);
