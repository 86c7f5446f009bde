/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libFuzzer target for PlanFileReader on a whole file: a .npy, an .npz
 * (its zip directory, a stored or deflated member, its CRC) or a NetCDF
 * classic file (its header, fixed and record variables). Any bytes must
 * open and read, or fail with a message, never crash, hang, leak or trip
 * a sanitizer. The first byte picks the format (its two low bits, modulo
 * 3: npy, npz, NetCDF) and whether the dataset 'v' is named (bit 7, for
 * a NetCDF file of several variables); the rest is the file; an array that opens has its first two rows and its
 * last read, where they are small. Built with clang
 * -fsanitize=fuzzer,address,undefined by tests/fuzz/meson.build. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libplan/planfilereader.h>
#include <libplan/planerror.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

#define MAX_READ ((gsize) 64 << 10)

static gchar *path;
/* FILEREADER_FUZZER_VERBOSE set: says why an input did not open or read
 * (to check that seeds reach as far as they should). */
static gboolean verbose;

static void
cleanup (void)
{
  unlink (path);
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  const gchar *dir = g_getenv ("TMPDIR") == NULL
      && g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR) ? "/dev/shm" :
      g_get_tmp_dir ();
  gint fd;

  gst_init (argc, argv);
  verbose = g_getenv ("FILEREADER_FUZZER_VERBOSE") != NULL;
  path = g_build_filename (dir, "filereader_fuzzer-XXXXXX", NULL);
  fd = g_mkstemp (path);
  g_assert (fd >= 0);
  close (fd);
  atexit (cleanup);
  return 0;
}

static void
check_error (GError * err)
{
  g_assert (err != NULL && err->message != NULL && err->message[0] != '\0');
  g_assert (g_utf8_validate (err->message, -1, NULL));
  if (verbose)
    g_printerr ("%s\n", err->message);
}

static void
read_rows (PlanFileReader * r, guint64 first, guint64 n)
{
  GError *err = NULL;
  GstBuffer *buf = plan_file_reader_read_rows (r, first, n, &err);

  if (buf == NULL) {
    check_error (err);
    g_clear_error (&err);
    return;
  }
  g_assert (err == NULL);
  g_assert (gst_buffer_get_size (buf) == n * plan_file_reader_get_row_size
      (r));
  if (verbose)
    g_printerr ("read rows %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT "\n",
        first, first + n);
  gst_buffer_unref (buf);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  static const PlanFileFormat formats[] = { PLAN_FILE_FORMAT_NPY,
    PLAN_FILE_FORMAT_NPZ, PLAN_FILE_FORMAT_NETCDF
  };
  PlanFileReader *r;
  GError *err = NULL;
  guint64 n_rows;
  gsize row;
  gint fd;

  if (size < 1)
    return 0;
  fd = open (path, O_WRONLY | O_TRUNC);
  g_assert (fd >= 0);
  g_assert (write (fd, data + 1, size - 1) == (gssize) size - 1);
  close (fd);

  r = plan_file_reader_new ();
  plan_file_reader_set_io_mode (r, PLAN_FILE_IO_MODE_READ);
  if (data[0] & 0x80)
    plan_file_reader_set_dataset (r, "v");
  if (!plan_file_reader_open (r, path, formats[(data[0] & 3) % 3], NULL,
          &err)) {
    check_error (err);
    g_clear_error (&err);
    gst_object_unref (r);
    return 0;
  }
  g_assert (err == NULL);
  n_rows = plan_file_reader_get_n_rows (r);
  row = plan_file_reader_get_row_size (r);
  if (n_rows > 0 && row > 0 && row <= MAX_READ / 2) {
    read_rows (r, 0, MIN (n_rows, 2));
    read_rows (r, n_rows - 1, 1);
  }
  plan_file_reader_close (r);
  gst_object_unref (r);
  return 0;
}
