/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libFuzzer target for the Zarr reader (planzarr.c): the metadata of a
 * Zarr v2 (.zarray) or v3 (zarr.json) array, and the bytes of its first
 * chunk (or shard), must either open and read or fail with an error,
 * never crash, hang, leak or trip a sanitizer.
 *
 * The input is a selector byte, the metadata, and optionally a NUL byte
 * followed by the first chunk's bytes. The selector's bit 0 picks
 * zarr.json over .zarray; bit 1 the chunk key's "c" prefix (v3's default
 * encoding), bit 2 '/' over '.' as its separator. An array that opens has
 * its first rows read (those of up to 4 KiB), missing chunks as the fill
 * value. Built with clang -fsanitize=fuzzer,address,undefined by
 * tests/fuzz/meson.build. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/core/plan-private.h"
#include <libplan/planerror.h>

#include <glib/gstdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

#define MAX_READ 4096

static gchar *store;
/* ZARR_FUZZER_VERBOSE set: says why an input did not open or read (to
 * check that seeds reach as far as they should). */
static gboolean verbose;

static void
remove_tree (const gchar * path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  const gchar *name;

  if (d == NULL) {
    g_unlink (path);
    return;
  }
  while ((name = g_dir_read_name (d))) {
    gchar *child = g_build_filename (path, name, NULL);
    remove_tree (child);
    g_free (child);
  }
  g_dir_close (d);
  g_rmdir (path);
}

static void
clean_store (void)
{
  static const gchar *const names[] = { ".zarray", "zarr.json", "0", "c",
    "0.0", "c.0", "0.0.0", "c.0.0", "0.0.0.0", "c.0.0.0"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    gchar *path = g_build_filename (store, names[i], NULL);
    remove_tree (path);
    g_free (path);
  }
}

static void
cleanup (void)
{
  if (store) {
    clean_store ();
    g_rmdir (store);
  }
}

/* The first chunk's key for @ndim axes, as the selector @sel spells it. */
static gchar *
chunk_key (guint8 sel, guint ndim)
{
  GString *key = g_string_new (NULL);
  gchar sep = (sel & 4) ? '/' : '.';
  guint d;

  if (sel & 2)
    g_string_append_c (key, 'c');
  for (d = 0; d < MAX (ndim, 1); d++) {
    if (ndim == 0 && (sel & 2))
      break;
    if (key->len > 0)
      g_string_append_c (key, sep);
    g_string_append_c (key, '0');
  }
  return g_string_free (key, FALSE);
}

/* The store's directory: in /dev/shm where there is one and TMPDIR does
 * not say otherwise (in memory, the runs are several times as many a
 * second as on a disk), else in the temporary directory. */
static gchar *
make_store (void)
{
  if (g_getenv ("TMPDIR") == NULL && g_file_test ("/dev/shm",
          G_FILE_TEST_IS_DIR)) {
    gchar *dir = g_strdup ("/dev/shm/zarr_fuzzer-XXXXXX");

    if (g_mkdtemp (dir))
      return dir;
    g_free (dir);
  }
  return g_dir_make_tmp ("zarr_fuzzer-XXXXXX", NULL);
}

static void
write_file (const gchar * name, const guint8 * bytes, gsize n)
{
  gchar *path = g_build_filename (store, name, NULL);
  gchar *dir = g_path_get_dirname (path);

  g_assert (g_mkdir_with_parents (dir, 0700) == 0);
  g_assert (g_file_set_contents (path, (const gchar *) bytes, n, NULL));
  g_free (dir);
  g_free (path);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  const guint8 *nul, *chunk = NULL;
  gsize meta_size, chunk_size = 0;
  PlanZarrArray *z;
  PlanArrayInfo info;
  guint64 align_rows = 0;
  GError *err = NULL;
  guint8 sel;

  if (store == NULL) {
    store = make_store ();
    g_assert (store != NULL);
    atexit (cleanup);
    verbose = g_getenv ("ZARR_FUZZER_VERBOSE") != NULL;
  }
  if (size < 1)
    return 0;
  sel = data[0];
  nul = memchr (data + 1, 0, size - 1);
  meta_size = nul ? (gsize) (nul - (data + 1)) : size - 1;
  if (nul) {
    chunk = nul + 1;
    chunk_size = data + size - chunk;
  }

  clean_store ();
  write_file ((sel & 1) ? "zarr.json" : ".zarray", data + 1, meta_size);

  plan_array_info_init (&info);
  z = _plan_zarr_array_open (store, NULL, &info, &align_rows, &err);
  if (z == NULL) {
    g_assert (err != NULL && err->message && err->message[0] != '\0');
    g_assert (g_utf8_validate (err->message, -1, NULL));
    if (verbose)
      g_printerr ("open: %s\n", err->message);
    g_clear_error (&err);
    return 0;
  }
  g_assert (err == NULL);
  g_assert (info.ndim <= PLAN_ARRAY_MAX_DIMS);
  g_assert (align_rows >= 1);

  if (chunk) {
    gchar *key = chunk_key (sel, info.ndim);
    write_file (key, chunk, chunk_size);
    g_free (key);
  }
  if (plan_array_info_get_n_rows (&info) > 0) {
    gsize row = plan_array_info_get_row_size (&info);
    guint64 n = MIN ((guint64) plan_array_info_get_n_rows (&info), 2);

    if (row > 0 && row * n <= MAX_READ) {
      guint8 *dest = g_malloc (row * n);

      if (!_plan_zarr_array_read_rows (z, 0, n, dest, &err)) {
        g_assert (err != NULL && err->message && err->message[0] != '\0');
        if (verbose)
          g_printerr ("read: %s\n", err->message);
        g_clear_error (&err);
      } else if (verbose) {
        g_printerr ("read %" G_GUINT64_FORMAT " rows\n", n);
      }
      g_free (dest);
    }
  }
  _plan_zarr_array_close (z);
  return 0;
}
