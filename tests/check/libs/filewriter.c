/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#define _GNU_SOURCE
#include <gst/check/gstcheck.h>
#include <libplan/plan.h>

#include <glib/gstdio.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static gchar *tmpdir;

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("filewriter-XXXXXX", NULL);
  fail_unless (tmpdir != NULL);
}

static void
teardown (void)
{
  GDir *dir = g_dir_open (tmpdir, 0, NULL);
  const gchar *name;

  while ((name = g_dir_read_name (dir))) {
    gchar *p = g_build_filename (tmpdir, name, NULL);
    g_unlink (p);
    g_free (p);
  }
  g_dir_close (dir);
  g_rmdir (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

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

static void
info_1d (PlanArrayInfo * info, PlanDType dtype)
{
  const gint64 shape[1] = { -1 };

  fail_unless (plan_array_info_set (info, dtype, 1, shape, NULL));
}

static GstBuffer *
bytes (guint n, guint8 value)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n, NULL);

  gst_buffer_memset (buf, 0, value, n);
  return buf;
}

GST_START_TEST (test_writer_npy_in_place_at_finish)
{
  PlanFileWriter *w = plan_file_writer_new ();
  gchar *path = g_build_filename (tmpdir, "a.npy", NULL);
  PlanArrayInfo info;
  gchar *contents;
  gsize len, header;

  fail_unless (plan_file_writer_open (w, path, PLAN_FILE_FORMAT_AUTO, 2,
          TRUE, NULL));
  fail_unless_equals_int (plan_file_writer_get_format (w),
      PLAN_FILE_FORMAT_NPY);
  /* The file written is unnamed, or where the file system has no unnamed
   * files a hidden one beside the target. */
  if (count_unnamed (NULL) == 1)
    fail_unless (plan_file_writer_get_temp_path (w) == NULL);
  else
    fail_unless (g_str_has_prefix (plan_file_writer_get_temp_path (w),
            tmpdir));
  fail_unless_equals_int (count_files (), 1);
  info_1d (&info, PLAN_DTYPE_UINT16);
  fail_unless (plan_file_writer_set_info (w, &info, NULL));
  fail_unless_equals_int (plan_file_writer_write (w, bytes (6, 1), NULL),
      GST_FLOW_OK);
  fail_unless_equals_int (plan_file_writer_write (w, bytes (4, 2), NULL),
      GST_FLOW_OK);
  fail_if (g_file_test (path, G_FILE_TEST_EXISTS));
  fail_unless (plan_file_writer_finish (w, NULL));
  fail_unless (plan_file_writer_get_temp_path (w) == NULL);

  fail_unless (g_file_get_contents (path, &contents, &len, NULL));
  fail_unless (plan_npy_parse_header ((guint8 *) contents, len, &info,
          &header, NULL));
  fail_unless_equals_int64 (info.shape[0], 5);
  fail_unless_equals_int (len, header + 10);
  fail_unless_equals_int (contents[header], 1);
  fail_unless_equals_int (contents[header + 9], 2);
  fail_unless_equals_int (count_files (), 1);
  g_free (contents);
  g_free (path);
  gst_object_unref (w);
}

GST_END_TEST;

GST_START_TEST (test_writer_file_mode_follows_umask)
{
  PlanFileWriter *w = plan_file_writer_new ();
  gchar *path = g_build_filename (tmpdir, "a.raw", NULL);
  mode_t old = umask (022);
  struct stat st;

  fail_unless (plan_file_writer_open (w, path, PLAN_FILE_FORMAT_AUTO, 1,
          FALSE, NULL));
  fail_unless (plan_file_writer_finish (w, NULL));
  umask (old);
  fail_unless (g_stat (path, &st) == 0);
  /* Not mkstemp's 0600: as any new file, 0666 minus the umask. */
  fail_unless_equals_int (st.st_mode & 0777, 0644);
  fail_unless_equals_int (st.st_size, 0);
  g_free (path);
  gst_object_unref (w);
}

GST_END_TEST;

GST_START_TEST (test_writer_cancel_removes_temp_file)
{
  PlanFileWriter *w = plan_file_writer_new ();
  gchar *path = g_build_filename (tmpdir, "a.raw", NULL);

  fail_unless (plan_file_writer_open (w, path, PLAN_FILE_FORMAT_RAW, 4,
          FALSE, NULL));
  fail_unless_equals_int (plan_file_writer_write (w, bytes (100, 7), NULL),
      GST_FLOW_OK);
  fail_unless_equals_int (count_files (), 1);
  plan_file_writer_cancel (w);
  fail_unless_equals_int (count_files (), 0);
  g_free (path);
  gst_object_unref (w);
}

GST_END_TEST;

/* A Zarr store whose array cannot be made (a row larger than a chunk may
 * be) fails at
 * set_info; a chunk written after that fails too, rather than reach a
 * writer that is not there, and cancel leaves nothing. */
/* The name of a .npz output's member: numpy's key, ".npy" appended; names
 * np.load() cannot give back, zip tools would take for a path outside the
 * archive's folders, or a zip archive cannot hold, are refused at open,
 * and nothing is made; a '/' between names is kept, as np.savez keeps it. */
GST_START_TEST (test_writer_npz_member_names)
{
  PlanFileWriter *w = plan_file_writer_new ();
  gchar *path = g_build_filename (tmpdir, "m.npz", NULL);
  gchar *longest = g_strnfill (65531, 'x');
  gchar *too_long = g_strnfill (65532, 'x');
  const struct
  {
    const gchar *member;
    const gchar *says;
  } bad[] = {
    {"", "member name is empty"},
    {".npy", "member name is empty"},
    {"/a", "starts with a '/' or has a part between '/'s that is empty"},
    {"a//b", "starts with a '/'"},
    {"../a", "starts with a '/'"},
    {"t\xff", "not valid UTF-8"},
    {too_long, "at most 65535 bytes"},
  };
  const gchar *good[] = { NULL, "temps", "temps.npy", "t\xc3\xa9", longest,
    "obs/temps"
  };
  const gchar *stored[] = { "arr_0.npy", "temps.npy", "temps.npy",
    "t\xc3\xa9.npy", NULL, "obs/temps.npy"
  };
  PlanArrayInfo info;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    GError *err = NULL;

    plan_file_writer_set_member (w, bad[i].member);
    fail_if (plan_file_writer_open (w, path, PLAN_FILE_FORMAT_AUTO, 2, FALSE,
            &err));
    fail_unless (strstr (err->message, bad[i].says) != NULL, "%s",
        err->message);
    fail_unless (strstr (err->message, "m.npz") != NULL, "%s", err->message);
    g_clear_error (&err);
    fail_unless_equals_int (count_entries (), 0);
  }
  for (i = 0; i < G_N_ELEMENTS (good); i++) {
    gchar *contents;
    gsize len;

    plan_file_writer_set_member (w, good[i]);
    fail_unless (plan_file_writer_open (w, path, PLAN_FILE_FORMAT_AUTO, 2,
            FALSE, NULL));
    fail_unless_equals_int (plan_file_writer_get_format (w),
        PLAN_FILE_FORMAT_NPZ);
    info_1d (&info, PLAN_DTYPE_UINT16);
    fail_unless (plan_file_writer_set_info (w, &info, NULL));
    fail_unless_equals_int (plan_file_writer_write (w, bytes (6, 1), NULL),
        GST_FLOW_OK);
    fail_unless (plan_file_writer_finish (w, NULL));
    fail_unless (g_file_get_contents (path, &contents, &len, NULL));
    fail_unless (len > 30 && memcmp (contents, "PK\3\4", 4) == 0);
    if (stored[i]) {
      /* The local header's name. */
      fail_unless_equals_int ((guint8) contents[26] | (guint8) contents[27]
          << 8, strlen (stored[i]));
      fail_unless (memcmp (contents + 30, stored[i], strlen (stored[i])) == 0);
    } else {
      fail_unless_equals_int ((guint8) contents[26] | (guint8) contents[27]
          << 8, 65535);
    }
    g_free (contents);
  }
  g_free (longest);
  g_free (too_long);
  g_free (path);
  gst_object_unref (w);
}

GST_END_TEST;

/* Writes @member into @path in the add mode, to be finished by the
 * caller. */
static PlanFileWriter *
open_adding (const gchar * path, const gchar * member, PlanFileFormat format)
{
  PlanFileWriter *w = plan_file_writer_new ();
  PlanArrayInfo info;
  GError *err = NULL;

  plan_file_writer_set_mode (w, PLAN_FILE_MODE_ADD);
  if (format == PLAN_FILE_FORMAT_NPZ)
    plan_file_writer_set_member (w, member);
  else
    plan_file_writer_set_dataset (w, member, 0, 0);
  if (!plan_file_writer_open (w, path, format, 2, FALSE, &err)) {
    /* Only HDF5 may be missing from the build. */
    fail_unless (format == PLAN_FILE_FORMAT_HDF5, "%s", err->message);
    g_error_free (err);
    gst_object_unref (w);
    return NULL;
  }
  info_1d (&info, PLAN_DTYPE_UINT16);
  fail_unless (plan_file_writer_set_info (w, &info, NULL));
  fail_unless_equals_int (plan_file_writer_write (w, bytes (6, 1), NULL),
      GST_FLOW_OK);
  return w;
}

/* Two runs adding to one file at once: each copies the file there and
 * renames its copy over it at the end, so the second one to finish would
 * drop what the first added. It fails instead, saying so, and leaves the
 * file as the first made it; so does a run whose file another program
 * made, changed or removed meanwhile. */
GST_START_TEST (test_writer_add_refuses_a_file_changed_meanwhile)
{
  const PlanFileFormat formats[] = { PLAN_FILE_FORMAT_NPZ,
    PLAN_FILE_FORMAT_HDF5
  };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    gchar *path = g_build_filename (tmpdir, f == 0 ? "w.npz" : "w.h5", NULL);
    PlanFileWriter *first, *second;
    gchar *before, *after;
    gsize before_len, after_len;
    GError *err = NULL;

    /* A file to add to, then two runs adding to it at once. */
    first = open_adding (path, "old", formats[f]);
    if (first == NULL) {
      g_free (path);
      continue;
    }
    fail_unless (plan_file_writer_finish (first, NULL));
    gst_object_unref (first);
    first = open_adding (path, "a", formats[f]);
    second = open_adding (path, "b", formats[f]);
    fail_unless (plan_file_writer_finish (first, NULL));
    gst_object_unref (first);
    fail_unless (g_file_get_contents (path, &before, &before_len, NULL));
    fail_if (plan_file_writer_finish (second, &err));
    fail_unless (strstr (err->message, "another program replaced it") != NULL,
        "%s", err->message);
    fail_unless (strstr (err->message, path) != NULL, "%s", err->message);
    g_clear_error (&err);
    fail_unless (g_file_get_contents (path, &after, &after_len, NULL));
    fail_unless (before_len == after_len
        && memcmp (before, after, before_len) == 0);
    g_free (after);
    fail_unless_equals_int (count_files (), 1);
    gst_object_unref (second);

    /* Changed in place. */
    second = open_adding (path, "b", formats[f]);
    fail_unless (truncate (path, before_len + 1) == 0);
    fail_if (plan_file_writer_finish (second, &err));
    fail_unless (strstr (err->message, "another program changed it") != NULL,
        "%s", err->message);
    g_clear_error (&err);
    fail_unless (truncate (path, before_len) == 0);
    g_free (before);
    gst_object_unref (second);

    /* Removed. */
    second = open_adding (path, "b", formats[f]);
    fail_unless (g_unlink (path) == 0);
    fail_if (plan_file_writer_finish (second, &err));
    fail_unless (strstr (err->message, "another program removed it") != NULL,
        "%s", err->message);
    g_clear_error (&err);
    fail_if (g_file_test (path, G_FILE_TEST_EXISTS));
    gst_object_unref (second);

    /* None there at the start, one made meanwhile. */
    second = open_adding (path, "b", formats[f]);
    fail_unless (g_file_set_contents (path, "x", 1, NULL));
    fail_if (plan_file_writer_finish (second, &err));
    fail_unless (strstr (err->message, "another program created a file "
            "there") != NULL, "%s", err->message);
    g_clear_error (&err);
    fail_unless_equals_int (count_files (), 1);
    g_unlink (path);
    gst_object_unref (second);

    /* Undisturbed, an add still puts its file in place. */
    second = open_adding (path, "b", formats[f]);
    fail_unless (plan_file_writer_finish (second, NULL));
    fail_unless (g_file_test (path, G_FILE_TEST_EXISTS));
    gst_object_unref (second);
    g_unlink (path);
    g_free (path);
  }
}

GST_END_TEST;

GST_START_TEST (test_writer_chunk_after_failed_info)
{
  PlanFileWriter *w = plan_file_writer_new ();
  gchar *path = g_build_filename (tmpdir, "c.zarr", NULL);
  gint64 shape[] = { 0, (gint64) 1 << 28 };
  PlanArrayInfo info;
  GError *err = NULL;

  if (!plan_file_writer_open (w, path, PLAN_FILE_FORMAT_ZARR, 4, FALSE,
          &err)) {
    /* A gst-plan built without Zarr says so. */
    fail_unless (strstr (err->message, "built without Zarr") != NULL, "%s",
        err->message);
    goto done;
  }
  fail_unless_equals_int (count_entries (), 1);
  plan_array_info_init (&info);
  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT64, 2, shape,
          NULL));
  fail_if (plan_file_writer_set_info (w, &info, &err));
  fail_unless (strstr (err->message, "more than a chunk") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  fail_unless_equals_int (plan_file_writer_write (w, bytes (16, 1), &err),
      GST_FLOW_ERROR);
  plan_file_writer_cancel (w);
  fail_unless_equals_int (count_entries (), 0);
done:
  g_clear_error (&err);
  g_free (path);
  gst_object_unref (w);
}

GST_END_TEST;

/* Names as long as a file name may be (255 bytes) are written, new and
 * over a file there: the file written has no name of its own, or a
 * shortened one. */
GST_START_TEST (test_writer_longest_names)
{
  guint len;

  for (len = 243; len <= 255; len += 6) {
    PlanFileWriter *w = plan_file_writer_new ();
    gchar *base = g_strnfill (len, 'n');
    gchar *path = g_build_filename (tmpdir, base, NULL);
    gchar *contents;
    gsize size;
    guint round;

    for (round = 0; round < 2; round++) {
      GError *err = NULL;

      fail_unless (plan_file_writer_open (w, path, PLAN_FILE_FORMAT_RAW, 1,
              FALSE, &err), "%u bytes: %s", len, err ? err->message : "");
      fail_unless_equals_int (plan_file_writer_write (w, bytes (3,
                  'a' + round), NULL), GST_FLOW_OK);
      fail_unless (plan_file_writer_finish (w, &err), "%u bytes: %s", len,
          err ? err->message : "");
      fail_unless (g_file_get_contents (path, &contents, &size, NULL));
      fail_unless_equals_int (size, 3);
      fail_unless_equals_int (contents[2], 'a' + round);
      g_free (contents);
      fail_unless_equals_int (count_files (), 1);
    }
    g_unlink (path);
    g_free (path);
    g_free (base);
    gst_object_unref (w);
  }
}

GST_END_TEST;

GST_START_TEST (test_writer_rejects_partial_rows)
{
  PlanFileWriter *w = plan_file_writer_new ();
  gchar *path = g_build_filename (tmpdir, "a.npy", NULL);
  PlanArrayInfo info;
  GError *err = NULL;

  fail_unless (plan_file_writer_open (w, path, PLAN_FILE_FORMAT_AUTO, 4,
          FALSE, NULL));
  info_1d (&info, PLAN_DTYPE_FLOAT64);
  fail_unless (plan_file_writer_set_info (w, &info, NULL));
  fail_unless_equals_int (plan_file_writer_write (w, bytes (12, 0), &err),
      GST_FLOW_ERROR);
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_SHAPE));
  g_error_free (err);
  plan_file_writer_cancel (w);
  g_free (path);
  gst_object_unref (w);
}

GST_END_TEST;

GST_START_TEST (test_writer_reports_no_space)
{
  PlanFileWriter *w = plan_file_writer_new ();
  GError *err = NULL;
  GstFlowReturn ret = GST_FLOW_OK;
  guint i;

  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    return;
  fail_unless (plan_file_writer_open (w, "/dev/full", PLAN_FILE_FORMAT_RAW,
          1, FALSE, NULL));
  fail_unless (plan_file_writer_get_temp_path (w) == NULL);
  /* The worker's failure comes back on a later write, or at finish. */
  for (i = 0; i < 100 && ret == GST_FLOW_OK; i++)
    ret = plan_file_writer_write (w, bytes (4096, 0), &err);
  if (ret == GST_FLOW_OK)
    fail_if (plan_file_writer_finish (w, &err));
  fail_unless (g_error_matches (err, G_FILE_ERROR, G_FILE_ERROR_NOSPC),
      "%s", err ? err->message : "no error");
  fail_unless (strstr (err->message, "/dev/full") != NULL);
  g_error_free (err);
  plan_file_writer_cancel (w);
  gst_object_unref (w);
}

GST_END_TEST;

/* Whether the file system of tmpdir reserves blocks with fallocate(). */
static gboolean
can_preallocate (void)
{
  gchar *probe = g_build_filename (tmpdir, "probe", NULL);
  gint fd = open (probe, O_CREAT | O_WRONLY, 0600);
  gboolean ok = fd >= 0 && fallocate (fd, FALLOC_FL_KEEP_SIZE, 0, 4096) == 0;

  if (fd >= 0)
    close (fd);
  g_unlink (probe);
  g_free (probe);
  return ok;
}

GST_START_TEST (test_writer_preallocates_and_gives_back)
{
  PlanFileWriter *w = plan_file_writer_new ();
  gchar *path = g_build_filename (tmpdir, "p.raw", NULL);
  const gsize mib = 1 << 20;
  gboolean reserve = can_preallocate ();
  struct stat st;
  gchar *contents;
  gsize len;
  guint i;

  fail_unless (plan_file_writer_open (w, path, PLAN_FILE_FORMAT_RAW, 1,
          FALSE, NULL));
  fail_unless_equals_int (plan_file_writer_write (w, bytes (mib, 7), NULL),
      GST_FLOW_OK);
  for (i = 0; i < 1000 && plan_file_writer_get_bytes_written (w) < mib; i++)
    g_usleep (1000);
  fail_unless_equals_uint64 (plan_file_writer_get_bytes_written (w), mib);
  /* The temporary file is as long as what was written, with blocks for
   * much more reserved past its end. */
  if (plan_file_writer_get_temp_path (w)) {
    fail_unless (g_stat (plan_file_writer_get_temp_path (w), &st) == 0);
  } else {
    gint fd = -1;

    fail_unless_equals_int (count_unnamed (&fd), 1);
    fail_unless (fstat (fd, &st) == 0);
  }
  fail_unless_equals_int64 (st.st_size, mib);
  if (reserve)
    fail_unless ((guint64) st.st_blocks * 512 >= 64 * mib,
        "only %" G_GUINT64_FORMAT " bytes reserved",
        (guint64) st.st_blocks * 512);

  fail_unless_equals_int (plan_file_writer_write (w, bytes (5, 9), NULL),
      GST_FLOW_OK);
  fail_unless (plan_file_writer_finish (w, NULL));
  /* The reserve is given back at finish. */
  fail_unless (g_stat (path, &st) == 0);
  fail_unless_equals_int64 (st.st_size, mib + 5);
  fail_unless ((guint64) st.st_blocks * 512 <= 2 * mib,
      "%" G_GUINT64_FORMAT " bytes still allocated",
      (guint64) st.st_blocks * 512);
  fail_unless (g_file_get_contents (path, &contents, &len, NULL));
  fail_unless_equals_int (len, mib + 5);
  fail_unless_equals_int (contents[mib - 1], 7);
  fail_unless_equals_int (contents[mib + 4], 9);
  g_free (contents);
  g_free (path);
  gst_object_unref (w);
}

GST_END_TEST;

typedef struct
{
  PlanFileWriter *w;
  GstFlowReturn ret;            /* atomic: read while the thread runs */
} WriteCall;

static gpointer
write_in_thread (gpointer data)
{
  WriteCall *call = data;

  g_atomic_int_set (&call->ret, plan_file_writer_write (call->w,
          bytes (65536, 0), NULL));
  return NULL;
}

/* Opens @w on a new FIFO of 64 KiB that nobody drains yet and writes
 * @n_chunks chunks of 64 KiB: the worker writes the first, blocks on the
 * second, and the rest wait in the queue. Returns the FIFO's read end
 * (non-blocking). */
static gint
open_on_full_fifo (PlanFileWriter * w, const gchar * fifo, guint max_pending,
    guint n_chunks)
{
  gint rfd;
  guint i;

  fail_unless (mkfifo (fifo, 0600) == 0);
  rfd = open (fifo, O_RDONLY | O_NONBLOCK);
  fail_unless (rfd >= 0);
  fail_unless_equals_int (fcntl (rfd, F_SETPIPE_SZ, 65536), 65536);
  fail_unless (plan_file_writer_open (w, fifo, PLAN_FILE_FORMAT_RAW,
          max_pending, FALSE, NULL));
  for (i = 0; i < n_chunks; i++)
    fail_unless_equals_int (plan_file_writer_write (w, bytes (65536, 0),
            NULL), GST_FLOW_OK);
  return rfd;
}

/* Writes one more chunk from a thread of its own and checks that the
 * write blocks: back-pressure. */
static GThread *
write_blocked (PlanFileWriter * w, WriteCall * call)
{
  GThread *thread;

  call->w = w;
  call->ret = GST_FLOW_CUSTOM_ERROR;
  thread = g_thread_new ("writer-test", write_in_thread, call);
  g_usleep (G_USEC_PER_SEC / 5);
  fail_unless_equals_int (g_atomic_int_get (&call->ret),
      GST_FLOW_CUSTOM_ERROR);
  return thread;
}

GST_START_TEST (test_writer_blocks_when_pending_is_full)
{
  PlanFileWriter *w = plan_file_writer_new ();
  gchar *fifo = g_build_filename (tmpdir, "fifo", NULL);
  WriteCall call;
  GThread *thread;
  gint rfd;

  /* Two chunks waiting fill a queue of two. */
  rfd = open_on_full_fifo (w, fifo, 2, 4);
  thread = write_blocked (w, &call);
  /* Flushing releases the blocked write. */
  plan_file_writer_set_flushing (w, TRUE);
  g_thread_join (thread);
  fail_unless_equals_int (call.ret, GST_FLOW_FLUSHING);

  /* With the reader gone, the blocked write fails with EPIPE (not a
   * SIGPIPE that would kill the test), and cancel joins the worker. */
  close (rfd);
  plan_file_writer_cancel (w);
  g_free (fifo);
  gst_object_unref (w);
}

GST_END_TEST;

/* A blocked producer resumes as the worker empties the queue. Writing a
 * FIFO, it is woken at the first free slot: the FIFO's reader may be
 * waiting for the producer's own thread, as here, where the test drains
 * the FIFO only after its writes. (A regular file's producer waits for
 * half the queue; the pipeline tests cover that.) A wake-up lost or held
 * back would hang the write. */
GST_START_TEST (test_writer_resumes_when_drained)
{
  PlanFileWriter *w = plan_file_writer_new ();
  gchar *fifo = g_build_filename (tmpdir, "fifo", NULL);
  WriteCall call;
  guint8 *sink = g_malloc (65536);
  gsize drained = 0;
  GThread *thread;
  gint rfd;

  rfd = open_on_full_fifo (w, fifo, 4, 6);
  thread = write_blocked (w, &call);

  /* Drain all seven chunks: the blocked write goes through on its own. */
  while (drained < 7 * 65536) {
    gssize n = read (rfd, sink, 65536);

    if (n > 0)
      drained += n;
    else
      g_usleep (1000);
  }
  g_thread_join (thread);
  fail_unless_equals_int (call.ret, GST_FLOW_OK);
  fail_unless (plan_file_writer_finish (w, NULL));

  close (rfd);
  g_free (sink);
  g_free (fifo);
  gst_object_unref (w);
}

GST_END_TEST;

/* A FIFO without a reader: open returns at once (an ordinary open() would
 * block until a reader came), chunks queue, and cancel ends the worker's
 * wait for a reader. A .npy header needs the rows from the start. */
GST_START_TEST (test_writer_fifo_without_reader_does_not_block)
{
  PlanFileWriter *w = plan_file_writer_new ();
  gchar *fifo = g_build_filename (tmpdir, "out.npy", NULL);
  PlanArrayInfo info;
  GError *err = NULL;

  fail_unless (mkfifo (fifo, 0600) == 0);
  fail_unless (plan_file_writer_open (w, fifo, PLAN_FILE_FORMAT_RAW, 2, FALSE,
          NULL));
  fail_unless_equals_int (plan_file_writer_write (w, bytes (64, 1), NULL),
      GST_FLOW_OK);
  plan_file_writer_cancel (w);

  /* .npy with an unknown number of rows: refused, with the reason. */
  fail_unless (plan_file_writer_open (w, fifo, PLAN_FILE_FORMAT_NPY, 2, FALSE,
          NULL));
  info_1d (&info, PLAN_DTYPE_FLOAT32);
  fail_if (plan_file_writer_set_info (w, &info, &err));
  fail_unless (err != NULL && strstr (err->message, "it is a FIFO")
      && strstr (err->message, "the number of rows is not known"));
  g_clear_error (&err);
  plan_file_writer_cancel (w);

  g_free (fifo);
  gst_object_unref (w);
}

GST_END_TEST;

static Suite *
filewriter_suite (void)
{
  Suite *s = suite_create ("filewriter");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_writer_npy_in_place_at_finish);
  tcase_add_test (tc, test_writer_file_mode_follows_umask);
  tcase_add_test (tc, test_writer_cancel_removes_temp_file);
  tcase_add_test (tc, test_writer_chunk_after_failed_info);
  tcase_add_test (tc, test_writer_npz_member_names);
  tcase_add_test (tc, test_writer_add_refuses_a_file_changed_meanwhile);
  tcase_add_test (tc, test_writer_longest_names);
  tcase_add_test (tc, test_writer_rejects_partial_rows);
  tcase_add_test (tc, test_writer_reports_no_space);
  tcase_add_test (tc, test_writer_preallocates_and_gives_back);
  tcase_add_test (tc, test_writer_blocks_when_pending_is_full);
  tcase_add_test (tc, test_writer_resumes_when_drained);
  tcase_add_test (tc, test_writer_fifo_without_reader_does_not_block);
  return s;
}

GST_CHECK_MAIN (filewriter);
