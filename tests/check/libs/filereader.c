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

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static gchar *path;
/* The tests of the "read" and "mmap" cases run in each mode. */
static PlanFileIoMode io_mode;

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
setup_read (void)
{
  setup ();
  io_mode = PLAN_FILE_IO_MODE_READ;
}

static void
setup_mmap (void)
{
  setup ();
  io_mode = PLAN_FILE_IO_MODE_MMAP;
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
  plan_file_reader_set_io_mode (r, io_mode);
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
  /* One assertion, not one per value: each costs check a write. */
  for (i = 0; i < n && ((gint32 *) map.data)[i] == (gint32) (value0 + i);)
    i++;
  fail_unless (i == n, "row %u holds %d, not %u", row0 + i,
      i < n ? ((gint32 *) map.data)[i] : 0, value0 + i);
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
  fail_unless (strstr (err->message, "changed while it was read: it now ends "
          "at byte 200") != NULL, "%s", err->message);
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
  fail_unless_equals_int (plan_file_reader_get_io_mode (r),
      PLAN_FILE_IO_MODE_READ);
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

GST_START_TEST (test_reader_auto_maps_unless_an_allocator_is_set)
{
  PlanFileReader *r = open_reader ();
  GstAllocator *sysmem = gst_allocator_find (GST_ALLOCATOR_SYSMEM);
  GstBuffer *buf;

  plan_file_reader_set_io_mode (r, PLAN_FILE_IO_MODE_AUTO);
  fail_unless_equals_int (plan_file_reader_get_io_mode (r),
      PLAN_FILE_IO_MODE_AUTO);
  fail_unless (plan_file_reader_start (r, 0, 100, 10, 1, NULL));
  fail_unless_equals_int (plan_file_reader_get_io_mode (r),
      PLAN_FILE_IO_MODE_MMAP);
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
  fail_unless (buf->pool == NULL);
  check_chunk (buf, 0, 10, 0);
  gst_buffer_unref (buf);

  /* Memory a consumer asked for is read into. */
  plan_file_reader_stop (r);
  plan_file_reader_set_allocator (r, sysmem, NULL);
  fail_unless (plan_file_reader_start (r, 0, 100, 10, 1, NULL));
  fail_unless_equals_int (plan_file_reader_get_io_mode (r),
      PLAN_FILE_IO_MODE_READ);
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
  fail_unless (buf->pool != NULL);
  check_chunk (buf, 0, 10, 0);
  gst_buffer_unref (buf);
  gst_object_unref (sysmem);
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_mapped_chunks_are_readonly_views_of_the_file)
{
  PlanFileReader *r = open_reader ();
  GstBuffer *a, *b;
  GstMapInfo map;
  guint8 *pa, *pb;

  fail_unless (plan_file_reader_start (r, 0, 100, 10, 2, NULL));
  fail_unless_equals_int (plan_file_reader_pop (r, &a, NULL), GST_FLOW_OK);
  fail_unless_equals_int (plan_file_reader_pop (r, &b, NULL), GST_FLOW_OK);
  fail_unless_equals_int (gst_buffer_n_memory (a), 1);
  fail_unless (GST_MEMORY_IS_READONLY (gst_buffer_peek_memory (a, 0)));
  pa = chunk_data (a);
  pb = chunk_data (b);
  /* Both cut from one mapping of the file, next to each other. */
  fail_unless (pb == pa + 40);

  /* Writing to a chunk writes to a copy, never to the file. */
  fail_unless (gst_buffer_map (b, &map, GST_MAP_WRITE));
  fail_unless (map.data != pb);
  fail_unless_equals_int (((gint32 *) map.data)[0], 10);
  ((gint32 *) map.data)[0] = -1;
  gst_buffer_unmap (b, &map);
  gst_buffer_unref (b);
  fail_unless_equals_int (((gint32 *) pa)[10], 10);
  gst_buffer_unref (a);
  plan_file_reader_stop (r);
  gst_object_unref (r);

  r = open_reader ();
  fail_unless (plan_file_reader_start (r, 10, 11, 10, 1, NULL));
  fail_unless_equals_int (plan_file_reader_pop (r, &a, NULL), GST_FLOW_OK);
  check_chunk (a, 10, 1, 10);
  gst_buffer_unref (a);
  gst_object_unref (r);
}

GST_END_TEST;

/* An .npy file of @n int32 values 0..n-1: its data starts 128 bytes in, so
 * no chunk starts on a page. */
static gchar *
write_big_npy (guint n)
{
  gchar *big;
  gchar header[128];
  gint32 *v = g_new (gint32, n);
  gint fd, len;
  guint i;

  for (i = 0; i < n; i++)
    v[i] = i;
  memset (header, ' ', sizeof (header));
  memcpy (header, "\x93NUMPY\x01\x00\x76\x00", 10);
  len = g_snprintf (header + 10, sizeof (header) - 10, "{'descr': '<i4', "
      "'fortran_order': False, 'shape': (%u,), }", n);
  header[10 + len] = ' ';
  header[127] = '\n';
  fd = g_file_open_tmp ("filereader-XXXXXX.npy", &big, NULL);
  fail_unless (fd >= 0);
  fail_unless (write (fd, header, 128) == 128);
  fail_unless (write (fd, v, n * 4) == (gssize) n * 4);
  close (fd);
  g_free (v);
  return big;
}

static PlanFileReader *
open_npy (const gchar * file)
{
  PlanFileReader *r = plan_file_reader_new ();
  GError *err = NULL;

  fail_unless (plan_file_reader_open (r, file, PLAN_FILE_FORMAT_AUTO, NULL,
          &err), "%s", err ? err->message : "");
  plan_file_reader_set_io_mode (r, PLAN_FILE_IO_MODE_MMAP);
  return r;
}

GST_START_TEST (test_mapped_chunks_cross_windows)
{
  /* 20 MiB: more than two of the reader's mapping windows. */
  const guint n = 5 << 20, chunk = 262147;
  gchar *big = write_big_npy (n);
  PlanFileReader *r = open_npy (big);
  GstBuffer *buf;
  guint row;

  fail_unless (plan_file_reader_set_window (r, 3, -1, NULL));
  fail_unless (plan_file_reader_start (r, 0, G_MAXUINT64, chunk, 3, NULL));
  for (row = 0; row < n - 3; row += chunk) {
    fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
    check_chunk (buf, row, MIN (chunk, n - 3 - row), row + 3);
    gst_buffer_unref (buf);
  }
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_EOS);
  gst_object_unref (r);
  g_unlink (big);
  g_free (big);
}

GST_END_TEST;

/* A file that is not in the page cache: its chunks are read from disk on
 * the reader's thread ahead of the consumer (populated), those of a
 * cached one mapped as the consumer touches them; both read the same. */
GST_START_TEST (test_mapped_chunks_of_an_uncached_file)
{
  const guint n = 3 << 20, chunk = 1 << 18;
  gchar *big = write_big_npy (n);
  PlanFileReader *r;
  GstBuffer *buf;
  guint row;
  gint fd = g_open (big, O_RDONLY, 0);

  fail_unless (fd >= 0);
  fail_unless (fsync (fd) == 0);
  fail_unless (posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED) == 0);
  close (fd);
  r = open_npy (big);
  fail_unless (plan_file_reader_start (r, 0, G_MAXUINT64, chunk, 2, NULL));
  for (row = 0; row < n; row += chunk) {
    fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
    check_chunk (buf, row, MIN (chunk, n - row), row);
    gst_buffer_unref (buf);
  }
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_EOS);
  gst_object_unref (r);
  g_unlink (big);
  g_free (big);
}

GST_END_TEST;

GST_START_TEST (test_mapped_file_truncated_while_read_is_an_error)
{
  const guint n = 5 << 20, chunk = 1 << 18;     /* chunks of 1 MiB */
  gchar *big = write_big_npy (n);
  PlanFileReader *r = open_npy (big);
  GError *err = NULL;
  GstBuffer *buf, *head;
  guint i;

  fail_unless (plan_file_reader_start (r, 0, G_MAXUINT64, chunk, 1, NULL));
  fail_unless_equals_int (plan_file_reader_pop (r, &head, NULL), GST_FLOW_OK);
  /* The rows of the first four chunks stay; later chunks lie in the
   * window already mapped, or beyond it, and must fail, not crash. */
  fail_unless (truncate (big, 128 + 4 * chunk * 4) == 0);
  for (i = 1; i < 4; i++) {
    fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
    check_chunk (buf, i * chunk, chunk, i * chunk);
    gst_buffer_unref (buf);
  }
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, &err), GST_FLOW_ERROR);
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_IO));
  fail_unless (strstr (err->message, big) != NULL);
  fail_unless (strstr (err->message, "changed while it was read: it now ends "
          "at byte 4194432") != NULL, "%s", err->message);
  g_error_free (err);
  check_chunk (head, 0, chunk, 0);
  gst_buffer_unref (head);
  gst_object_unref (r);
  g_unlink (big);
  g_free (big);
}

GST_END_TEST;

/* A FIFO without a writer is refused at once: an open() that waited for
 * a writer would hang the state change, out of reach of SIGINT. */
GST_START_TEST (test_reader_fifo_is_refused_without_waiting)
{
  gchar *dir = g_dir_make_tmp ("filereader-XXXXXX", NULL);
  gchar *fifo = g_build_filename (dir, "in.npy", NULL);
  PlanFileReader *r = plan_file_reader_new ();
  GError *err = NULL;

  fail_unless (mkfifo (fifo, 0600) == 0);
  fail_if (plan_file_reader_open (r, fifo, PLAN_FILE_FORMAT_AUTO, NULL, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED));
  fail_unless (strstr (err->message, "a FIFO (named pipe)") != NULL,
      "%s", err->message);
  fail_unless (strstr (err->message, fifo) != NULL, "%s", err->message);
  g_error_free (err);
  gst_object_unref (r);
  g_unlink (fifo);
  g_rmdir (dir);
  g_free (fifo);
  g_free (dir);
}

GST_END_TEST;

/* A reader keeps a second descriptor of its file for the pages it maps;
 * without one left (EMFILE), open says so, naming the file, rather than
 * a later map failing with "Bad file descriptor". */
GST_START_TEST (test_reader_without_a_descriptor_left)
{
  PlanFileReader *r = plan_file_reader_new ();
  struct rlimit old, low;
  PlanArrayInfo info;
  const gint64 shape[1] = { -1 };
  GError *err = NULL;
  gint fds[256], n = 0;

  fail_unless (getrlimit (RLIMIT_NOFILE, &old) == 0);
  low = old;
  low.rlim_cur = MIN (old.rlim_cur, 256);
  fail_unless (setrlimit (RLIMIT_NOFILE, &low) == 0);
  /* Every descriptor taken, then one given back: the file's own. */
  while (n < (gint) G_N_ELEMENTS (fds) && (fds[n] = dup (0)) >= 0)
    n++;
  fail_unless (n > 0 && n < (gint) G_N_ELEMENTS (fds));
  close (fds[--n]);

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_INT32, 1, shape, NULL));
  fail_if (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_AUTO, &info,
          &err));
  fail_unless (g_error_matches (err, G_FILE_ERROR, G_FILE_ERROR_MFILE),
      "%s", err->message);
  fail_unless (strstr (err->message, path) != NULL, "%s", err->message);
  fail_unless (strstr (err->message, g_strerror (EMFILE)) != NULL, "%s",
      err->message);
  g_clear_error (&err);

  /* With descriptors again, the file opens and reads. */
  while (n > 0)
    close (fds[--n]);
  fail_unless (setrlimit (RLIMIT_NOFILE, &old) == 0);
  fail_unless (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_AUTO, &info,
          &err), "%s", err ? err->message : "");
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

/* .npz: a zip archive of .npy files, built here the way numpy's savez
 * (stored) and savez_compressed (deflated) write it: members "a.npy" (the
 * int32 values 0..99) and "b.npy" (the same, negated). */
static void
put16 (GByteArray * b, guint v)
{
  guint8 x[2] = { v & 0xff, v >> 8 };
  g_byte_array_append (b, x, 2);
}

static void
put32 (GByteArray * b, guint32 v)
{
  put16 (b, v & 0xffff);
  put16 (b, v >> 16);
}

static GBytes *
npy_bytes (gint sign)
{
  PlanArrayInfo info;
  const gint64 shape[1] = { 100 };
  gsize header;
  guint8 *data;
  gint32 *v;
  gint i;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_INT32, 1, shape, NULL));
  header = plan_npy_get_header_size (&info);
  data = g_malloc (header + 400);
  fail_unless (plan_npy_write_header (&info, data, header, NULL));
  v = (gint32 *) (data + header);
  for (i = 0; i < 100; i++)
    v[i] = sign * i;
  return g_bytes_new_take (data, header + 400);
}

static GBytes *
deflate_raw (GBytes * in)
{
  z_stream zs = { 0 };
  gsize size;
  const guint8 *data = g_bytes_get_data (in, &size);
  guint8 *out = g_malloc (size + 1024);

  fail_unless (deflateInit2 (&zs, 6, Z_DEFLATED, -MAX_WBITS, 8,
          Z_DEFAULT_STRATEGY) == Z_OK);
  zs.next_in = (guint8 *) data;
  zs.avail_in = size;
  zs.next_out = out;
  zs.avail_out = size + 1024;
  fail_unless (deflate (&zs, Z_FINISH) == Z_STREAM_END);
  size = zs.total_out;
  deflateEnd (&zs);
  return g_bytes_new_take (out, size);
}

static void
write_npz (gboolean deflated)
{
  GByteArray *zip = g_byte_array_new (), *dir = g_byte_array_new ();
  const gchar *names[2] = { "a.npy", "b.npy" };
  guint i, dir_offset;

  for (i = 0; i < 2; i++) {
    GBytes *npy = npy_bytes (i == 0 ? 1 : -1);
    GBytes *stored = deflated ? deflate_raw (npy) : g_bytes_ref (npy);
    gsize usize, csize;
    const guint8 *u = g_bytes_get_data (npy, &usize);
    const guint8 *c = g_bytes_get_data (stored, &csize);
    guint32 crc = crc32 (0, u, usize);
    guint offset = zip->len;

    put32 (zip, 0x04034b50);
    put16 (zip, 20);
    put16 (zip, 0);
    put16 (zip, deflated ? 8 : 0);
    put32 (zip, 0);
    put32 (zip, crc);
    put32 (zip, csize);
    put32 (zip, usize);
    put16 (zip, 5);
    put16 (zip, 0);
    g_byte_array_append (zip, (const guint8 *) names[i], 5);
    g_byte_array_append (zip, c, csize);

    put32 (dir, 0x02014b50);
    put16 (dir, 20);
    put16 (dir, 20);
    put16 (dir, 0);
    put16 (dir, deflated ? 8 : 0);
    put32 (dir, 0);
    put32 (dir, crc);
    put32 (dir, csize);
    put32 (dir, usize);
    put16 (dir, 5);
    put16 (dir, 0);
    put16 (dir, 0);
    put16 (dir, 0);
    put16 (dir, 0);
    put32 (dir, 0);
    put32 (dir, offset);
    g_byte_array_append (dir, (const guint8 *) names[i], 5);
    g_bytes_unref (npy);
    g_bytes_unref (stored);
  }
  dir_offset = zip->len;
  g_byte_array_append (zip, dir->data, dir->len);
  put32 (zip, 0x06054b50);
  put16 (zip, 0);
  put16 (zip, 0);
  put16 (zip, 2);
  put16 (zip, 2);
  put32 (zip, dir->len);
  put32 (zip, dir_offset);
  put16 (zip, 0);

  fail_unless (g_file_set_contents (path, (const gchar *) zip->data,
          zip->len, NULL));
  g_byte_array_unref (zip);
  g_byte_array_unref (dir);
}

static PlanFileReader *
open_npz (gboolean deflated, const gchar * member)
{
  PlanFileReader *r = plan_file_reader_new ();
  GError *err = NULL;

  write_npz (deflated);
  plan_file_reader_set_member (r, member);
  fail_unless (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_AUTO, NULL,
          &err), "%s", err ? err->message : "");
  fail_unless_equals_int (plan_file_reader_get_format (r),
      PLAN_FILE_FORMAT_NPZ);
  fail_unless_equals_uint64 (plan_file_reader_get_n_rows (r), 100);
  return r;
}

static void
check_npz_member (gboolean deflated)
{
  PlanFileReader *r = open_npz (deflated, "a");
  GstBuffer *buf;
  guint row;

  fail_unless_equals_string (plan_file_reader_get_member (r), "a.npy");
  fail_unless (plan_file_reader_start (r, 0, G_MAXUINT64, 30, 2, NULL));
  for (row = 0; row < 100; row += 30) {
    fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
    check_chunk (buf, row, MIN (30, 100 - row), row);
    gst_buffer_unref (buf);
  }
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_EOS);

  /* Back to an earlier row (a deflated member inflates from its start
   * again), and rows read beside the worker. */
  fail_unless (plan_file_reader_start (r, 45, 60, 10, 2, NULL));
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
  check_chunk (buf, 45, 10, 45);
  gst_buffer_unref (buf);
  buf = plan_file_reader_read_rows (r, 90, 10, NULL);
  fail_unless (buf != NULL);
  check_chunk (buf, 90, 10, 90);
  gst_buffer_unref (buf);
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
  check_chunk (buf, 55, 5, 55);
  gst_buffer_unref (buf);
  gst_object_unref (r);
}

GST_START_TEST (test_npz_stored_member_reads_like_npy)
{
  check_npz_member (FALSE);
}

GST_END_TEST;

GST_START_TEST (test_npz_deflated_member_inflates_in_order_and_back)
{
  check_npz_member (TRUE);
}

GST_END_TEST;

/* Member "a.npy" of the hand-built archive has its data at byte 35 + the
 * .npy header: not a multiple of 4. */
GST_START_TEST (test_npz_misaligned_member_is_read_not_mapped)
{
  PlanFileReader *r = open_npz (FALSE, "a");
  GError *err = NULL;
  GstBuffer *buf;

  plan_file_reader_set_io_mode (r, PLAN_FILE_IO_MODE_MMAP);
  fail_if (plan_file_reader_start (r, 0, G_MAXUINT64, 0, 2, &err));
  fail_unless (strstr (err->message, "misaligned elements") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  plan_file_reader_set_io_mode (r, PLAN_FILE_IO_MODE_AUTO);
  fail_unless (plan_file_reader_start (r, 0, G_MAXUINT64, 0, 2, NULL));
  fail_unless_equals_int (plan_file_reader_get_io_mode (r),
      PLAN_FILE_IO_MODE_READ);
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, NULL), GST_FLOW_OK);
  check_chunk (buf, 0, 100, 0);
  gst_buffer_unref (buf);
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_npz_member_by_archive_name)
{
  PlanFileReader *r = open_npz (TRUE, "b.npy");
  GstBuffer *buf;
  GstMapInfo map;

  buf = plan_file_reader_read_rows (r, 99, 1, NULL);
  fail_unless (buf != NULL);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (((gint32 *) map.data)[0], -99);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_npz_wrong_member_names_the_members)
{
  PlanFileReader *r = plan_file_reader_new ();
  GError *err = NULL;

  write_npz (TRUE);
  plan_file_reader_set_member (r, "c");
  fail_if (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_AUTO, NULL, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT));
  fail_unless (strstr (err->message, "no array named 'c'") != NULL, "%s",
      err->message);
  fail_unless (strstr (err->message, "'a' and 'b'") != NULL, "%s",
      err->message);
  g_clear_error (&err);

  plan_file_reader_set_member (r, NULL);
  fail_if (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_AUTO, NULL, &err));
  fail_unless (strstr (err->message, "holds 2 arrays") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_npz_corrupt_deflate_stream_is_an_error)
{
  PlanFileReader *r;
  GError *err = NULL;
  GstBuffer *buf;
  GstFlowReturn ret;
  gchar *data;
  gsize size;

  /* Member "a.npy" starts at byte 0: its local header (35 bytes), then
   * its deflated data; bytes well inside the data are overwritten. */
  write_npz (TRUE);
  fail_unless (g_file_get_contents (path, &data, &size, NULL));
  memset (data + 35 + 20, 0xff, 8);
  fail_unless (g_file_set_contents (path, data, size, NULL));
  g_free (data);

  r = plan_file_reader_new ();
  plan_file_reader_set_member (r, "a");
  /* The header may still inflate; the data cannot. */
  if (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_AUTO, NULL, &err)) {
    fail_unless (plan_file_reader_start (r, 0, G_MAXUINT64, 100, 1, NULL));
    while ((ret = plan_file_reader_pop (r, &buf, &err)) == GST_FLOW_OK)
      gst_buffer_unref (buf);
    fail_unless_equals_int (ret, GST_FLOW_ERROR);
  }
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_FORMAT));
  fail_unless (strstr (err->message, "'a.npy' is corrupt") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_object_unref (r);
}

GST_END_TEST;

/* The directory's entry of "b.npy" made to point at the local header of
 * "a.npy" (byte 0): "b" would read a's values. */
GST_START_TEST (test_npz_entry_pointing_at_another_member_is_an_error)
{
  PlanFileReader *r = plan_file_reader_new ();
  GError *err = NULL;
  gchar *data, *entry;
  gsize size;

  write_npz (FALSE);
  fail_unless (g_file_get_contents (path, &data, &size, NULL));
  /* The second (last) central directory entry, 46 + 5 bytes before the
   * end record (22 bytes); its header offset at byte 42. */
  entry = data + size - 22 - 51;
  fail_unless (memcmp (entry, "PK\x01\x02", 4) == 0);
  fail_unless (memcmp (entry + 46, "b.npy", 5) == 0);
  memset (entry + 42, 0, 4);
  fail_unless (g_file_set_contents (path, data, size, NULL));
  g_free (data);

  plan_file_reader_set_member (r, "b");
  fail_if (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_AUTO, NULL, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_FORMAT));
  fail_unless (strstr (err->message, "member 'b.npy' of the zip archive has "
          "a local header at byte 0 that names another member") != NULL,
      "%s", err->message);
  g_clear_error (&err);
  /* "a", whose entry is right, still reads. */
  plan_file_reader_set_member (r, "a");
  fail_unless (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_AUTO, NULL,
          &err), "%s", err ? err->message : "");
  gst_object_unref (r);
}

GST_END_TEST;

/* A member's name with a byte that is not UTF-8 ("a\xff" in both its
 * headers): error messages quote it in UTF-8, and the member still reads
 * by its name so made valid. */
GST_START_TEST (test_npz_member_name_not_utf8)
{
  PlanFileReader *r = plan_file_reader_new ();
  GError *err = NULL;
  gchar *data;
  gsize size;

  write_npz (FALSE);
  fail_unless (g_file_get_contents (path, &data, &size, NULL));
  /* "a.npy" at byte 30 of the local header (at 0) and 46 of the first
   * central entry (the end record's 22 bytes and two of 51 before it). */
  fail_unless (memcmp (data + 30, "a.npy", 5) == 0);
  fail_unless (memcmp (data + size - 22 - 2 * 51 + 46, "a.npy", 5) == 0);
  data[31] = data[size - 22 - 2 * 51 + 47] = (gchar) 0xff;
  fail_unless (g_file_set_contents (path, data, size, NULL));
  g_free (data);

  fail_if (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_AUTO, NULL, &err));
  fail_unless (g_utf8_validate (err->message, -1, NULL), "%s", err->message);
  fail_unless (strstr (err->message, "'a\xef\xbf\xbdnpy' and 'b'") != NULL,
      "%s", err->message);
  g_clear_error (&err);
  plan_file_reader_set_member (r, "a\xef\xbf\xbdnpy");
  fail_unless (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_AUTO, NULL,
          &err), "%s", err ? err->message : "");
  fail_unless_equals_uint64 (plan_file_reader_get_n_rows (r), 100);
  gst_object_unref (r);
}

GST_END_TEST;

/* A raw layout made by hand, as the plan API's raw file bindings pass
 * theirs, is checked as planfilesrc's shape is: an inner axis of 0 made
 * the row size 0 (a division by zero, SIGFPE), one of -1 or 2^62
 * float32 elements a wrapped row size. */
GST_START_TEST (test_raw_layout_is_checked)
{
  static const gint64 shapes[][2] = { {3, 0}, {-1, 0}, {-1, -1},
  {-1, (gint64) 1 << 62}, {-3, 4}
  };
  static const gchar *why[] = { "axis 1 has 0 elements",
    "axis 1 has 0 elements", "axis 1 has -1 elements",
    "one row would not fit in memory", "the outermost axis has -3 rows"
  };
  PlanFileReader *r = plan_file_reader_new ();
  guint8 data[48] = { 0 };
  GError *err = NULL;
  guint i;

  fail_unless (g_file_set_contents (path, (gchar *) data, sizeof (data),
          NULL));
  for (i = 0; i < G_N_ELEMENTS (shapes); i++) {
    PlanArrayInfo info;

    plan_array_info_init (&info);
    info.dtype = PLAN_DTYPE_FLOAT32;
    info.ndim = 2;
    info.shape[0] = shapes[i][0];
    info.shape[1] = shapes[i][1];
    fail_if (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_RAW, &info,
            &err));
    fail_unless (g_error_matches (err, PLAN_ERROR,
            PLAN_ERROR_INVALID_ARGUMENT), "%s", err->message);
    fail_unless (strstr (err->message, why[i]) != NULL, "%s", err->message);
    g_clear_error (&err);
  }
  gst_object_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_auto_refuses_known_formats_as_raw)
{
  /* (the bytes after each are zeros: "II*" is TIFF's "II*\0") */
  static const gchar *magics[] = { "\xfd" "7zXZ", "\x1f\x8b\x08",
    "\x28\xb5\x2f\xfd", "PAR1", "MATLAB 5.0 MAT-file, Platform: GLNXA64",
    "II*", "GRIB", "\xff\xd8\xff\xe0"
  };
  PlanFileReader *r = plan_file_reader_new ();
  PlanArrayInfo info;
  const gint64 shape[1] = { -1 };
  GError *err = NULL;
  guint8 data[64] = { 0 };
  guint i;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_UINT8, 1, shape, NULL));
  for (i = 0; i < G_N_ELEMENTS (magics); i++) {
    memset (data, 0, sizeof (data));
    memcpy (data, magics[i], strlen (magics[i]));
    fail_unless (g_file_set_contents (path, (gchar *) data, sizeof (data),
            NULL));
    fail_if (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_AUTO, &info,
            &err));
    fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED));
    fail_unless (strstr (err->message, "ask for the raw format") != NULL,
        "%s", err->message);
    g_clear_error (&err);
    /* Asked for, the raw format reads the bytes as they are. */
    fail_unless (plan_file_reader_open (r, path, PLAN_FILE_FORMAT_RAW, &info,
            NULL));
    fail_unless_equals_uint64 (plan_file_reader_get_n_rows (r), 64);
  }
  gst_object_unref (r);
}

GST_END_TEST;

/* A mapped chunk whose pages the file loses after it was handed out: the
 * element that touches it reads zeros instead of dying of SIGBUS, and the
 * reader's next pop says what became of the file. */
GST_START_TEST (test_mapped_chunk_of_a_truncated_file_is_no_sigbus)
{
  const guint n = 1 << 20, chunk = 1 << 16;     /* chunks of 256 KiB */
  gchar *big = write_big_npy (n);
  PlanFileReader *r = open_npy (big);
  GError *err = NULL;
  GstBuffer *head, *buf;
  GstMapInfo map;
  guint64 sum = 0;
  gsize i;

  plan_file_reader_set_io_mode (r, PLAN_FILE_IO_MODE_MMAP);
  fail_unless (plan_file_reader_start (r, 0, G_MAXUINT64, chunk, 2, NULL));
  fail_unless_equals_int (plan_file_reader_pop (r, &head, NULL), GST_FLOW_OK);
  fail_unless (truncate (big, 128) == 0);
  fail_unless (gst_buffer_map (head, &map, GST_MAP_READ));
  for (i = 0; i < map.size; i += 4096)
    sum += map.data[i];
  gst_buffer_unmap (head, &map);
  fail_unless_equals_uint64 (sum, 0);
  fail_unless_equals_int (plan_file_reader_pop (r, &buf, &err),
      GST_FLOW_ERROR);
  fail_unless (strstr (err->message, big) != NULL);
  fail_unless (strstr (err->message, "changed while it was read: it now ends "
          "at byte 128") != NULL, "%s", err->message);
  g_error_free (err);
  gst_buffer_unref (head);
  gst_object_unref (r);
  g_unlink (big);
  g_free (big);
}

GST_END_TEST;

/* A thread that maps and frees windows of an intact file, round after
 * round, until told to stop; it notes the first error it is given. */
typedef struct
{
  const gchar *path;
  gint stop;                    /* atomic */
  guint rounds;
  gchar *error;
} Churn;

static gpointer
churn_windows (gpointer data)
{
  Churn *c = data;

  while (!g_atomic_int_get (&c->stop)) {
    PlanFileReader *r = open_npy (c->path);
    GError *err = NULL;
    GstBuffer *buf;
    GstFlowReturn ret;

    if (!plan_file_reader_start (r, 0, G_MAXUINT64, 1 << 14, 2, &err)) {
      c->error = g_strdup (err->message);
      g_error_free (err);
      gst_object_unref (r);
      break;
    }
    while ((ret = plan_file_reader_pop (r, &buf, &err)) == GST_FLOW_OK)
      gst_buffer_unref (buf);
    gst_object_unref (r);
    if (ret != GST_FLOW_EOS) {
      c->error = g_strdup (err ? err->message : gst_flow_get_name (ret));
      g_clear_error (&err);
      break;
    }
    c->rounds++;
  }
  return NULL;
}

/* Faults in the windows of a truncated file while two threads map and
 * free windows of an intact one, so that the SIGBUS handler looks through
 * the table of windows as they come and go: every fault reads zeros and
 * marks the truncated file, the intact one is never taken for changed,
 * and nothing crashes (the handler reads no window that another thread
 * frees meanwhile; under AddressSanitizer that would be a report). */
GST_START_TEST (test_sigbus_while_windows_come_and_go)
{
  const guint n = 1 << 18;      /* 1 MiB */
  gchar *intact = write_big_npy (n);
  Churn churn[2] = { {intact, 0, 0, NULL}, {intact, 0, 0, NULL} };
  GThread *threads[2];
  gint64 end = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  guint i, faulted = 0;

  for (i = 0; i < 2; i++)
    threads[i] = g_thread_new ("churn", churn_windows, &churn[i]);
  do {
    gchar *big = write_big_npy (n);
    PlanFileReader *r = open_npy (big);
    GError *err = NULL;
    GstBuffer *head, *buf;
    GstMapInfo map;
    guint64 sum = 0;
    gsize j;

    fail_unless (plan_file_reader_start (r, 0, G_MAXUINT64, n, 1, NULL));
    fail_unless_equals_int (plan_file_reader_pop (r, &head, NULL),
        GST_FLOW_OK);
    fail_unless (truncate (big, 128) == 0);
    fail_unless (gst_buffer_map (head, &map, GST_MAP_READ));
    for (j = 0; j < map.size; j += 4096)
      sum += map.data[j];
    gst_buffer_unmap (head, &map);
    fail_unless_equals_uint64 (sum, 0);
    fail_unless_equals_int (plan_file_reader_pop (r, &buf, &err),
        GST_FLOW_ERROR);
    fail_unless (strstr (err->message, "changed while it was read: it now "
            "ends at byte 128") != NULL, "%s", err->message);
    g_error_free (err);
    gst_buffer_unref (head);
    gst_object_unref (r);
    g_unlink (big);
    g_free (big);
    faulted++;
  } while (g_get_monotonic_time () < end);
  for (i = 0; i < 2; i++) {
    g_atomic_int_set (&churn[i].stop, 1);
    g_thread_join (threads[i]);
    fail_unless (churn[i].error == NULL, "the intact file: %s",
        churn[i].error);
    fail_unless (churn[i].rounds > 0);
  }
  GST_INFO ("%u truncated files read, %u + %u windows of the intact one "
      "mapped and freed meanwhile", faulted, churn[0].rounds,
      churn[1].rounds);
  g_unlink (intact);
  g_free (intact);
}

GST_END_TEST;

static Suite *
filereader_suite (void)
{
  Suite *s = suite_create ("filereader");
  TCase *modes[2] = { tcase_create ("read"), tcase_create ("mmap") };
  TCase *tc;
  guint i;

  for (i = 0; i < 2; i++) {
    tc = modes[i];
    suite_add_tcase (s, tc);
    tcase_add_checked_fixture (tc, i == 0 ? setup_read : setup_mmap, teardown);
    tcase_add_test (tc, test_reader_chunks_in_order_then_eos);
    tcase_add_test (tc, test_reader_window_renumbers_rows);
    tcase_add_test (tc, test_reader_restart_drops_read_ahead);
    tcase_add_test (tc, test_reader_flushing_and_stop);
    tcase_add_test (tc, test_reader_read_rows_beside_worker);
    tcase_add_test (tc, test_reader_file_shrinking_is_an_error);
  }
  tcase_add_test (modes[0], test_reader_reuses_aligned_pool_memory);
  tcase_add_test (modes[0], test_reader_auto_maps_unless_an_allocator_is_set);
  tcase_add_test (modes[0], test_query_helpers_round_trip);
  tcase_add_test (modes[0], test_reader_fifo_is_refused_without_waiting);
  tcase_add_test (modes[0], test_reader_without_a_descriptor_left);
  tcase_add_test (modes[1], test_mapped_chunks_are_readonly_views_of_the_file);
  tcase_add_test (modes[1], test_mapped_chunks_cross_windows);
  tcase_add_test (modes[1], test_mapped_file_truncated_while_read_is_an_error);
  tcase_add_test (modes[1], test_mapped_chunks_of_an_uncached_file);
  tcase_add_test (modes[0], test_npz_stored_member_reads_like_npy);
  tcase_add_test (modes[0], test_npz_deflated_member_inflates_in_order_and_back);
  tcase_add_test (modes[0], test_npz_member_by_archive_name);
  tcase_add_test (modes[0], test_npz_misaligned_member_is_read_not_mapped);
  tcase_add_test (modes[0], test_npz_wrong_member_names_the_members);
  tcase_add_test (modes[0], test_npz_corrupt_deflate_stream_is_an_error);
  tcase_add_test (modes[0],
      test_npz_entry_pointing_at_another_member_is_an_error);
  tcase_add_test (modes[0], test_auto_refuses_known_formats_as_raw);
  tcase_add_test (modes[0], test_raw_layout_is_checked);
  tcase_add_test (modes[0], test_npz_member_name_not_utf8);
  tcase_add_test (modes[1], test_mapped_chunk_of_a_truncated_file_is_no_sigbus);
  tcase_add_test (modes[1], test_sigbus_while_windows_come_and_go);
  return s;
}

GST_CHECK_MAIN (filereader);
