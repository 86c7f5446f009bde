/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libFuzzer target for the zip container of .npz files (planzip.c): any
 * bytes, as a file, must either give a directory or fail with a
 * PLAN_ERROR, never crash, leak or trip a sanitizer. Each entry of a
 * directory that reads is located; a located member must lie inside the
 * file, and a stored one's .npy header is parsed as PlanFileReader does.
 * Built with clang -fsanitize=fuzzer,address,undefined by
 * tests/fuzz/meson.build. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* memfd_create () */
#endif

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/core/plan-private.h"
#include <libplan/plannpy.h>
#include <libplan/planerror.h>

#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static void
check_error (GError * err)
{
  g_assert (err != NULL && err->domain == PLAN_ERROR);
  g_assert (err->message != NULL && err->message[0] != '\0');
  g_assert (g_utf8_validate (err->message, -1, NULL));
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  static gint fd = -1;
  GPtrArray *entries;
  GBytes *comment = NULL;
  GError *err = NULL;
  guint i;

  if (fd < 0)
    fd = memfd_create ("zip_fuzzer", 0);
  g_assert (fd >= 0);
  g_assert (ftruncate (fd, 0) == 0);
  g_assert (pwrite (fd, data, size, 0) == (gssize) size);

  if (size >= 4)
    g_assert (_plan_zip_has_magic (data, size) == (data[0] == 'P'
            && data[1] == 'K' && ((data[2] == 3 && data[3] == 4)
                || (data[2] == 5 && data[3] == 6))));

  entries = _plan_zip_read_directory (fd, size, &comment, &err);
  if (entries == NULL) {
    check_error (err);
    g_assert (comment == NULL);
    g_clear_error (&err);
    return 0;
  }
  g_assert (err == NULL && comment != NULL);
  g_assert (g_bytes_get_size (comment) <= size);
  g_bytes_unref (comment);

  for (i = 0; i < entries->len; i++) {
    PlanZipEntry *e = g_ptr_array_index (entries, i);
    PlanArrayInfo info;
    gsize header_size;

    g_assert (e->name != NULL && g_utf8_validate (e->name, -1, NULL));
    if (!_plan_zip_locate_data (fd, size, e, &err)) {
      check_error (err);
      g_clear_error (&err);
      continue;
    }
    g_assert (err == NULL);
    g_assert (e->data_offset <= size && e->csize <= size - e->data_offset);
    if (e->method == 0 && e->csize == e->usize
        && !plan_npy_parse_header (data + e->data_offset, e->csize, &info,
            &header_size, &err)) {
      check_error (err);
      g_clear_error (&err);
    }
  }
  g_ptr_array_unref (entries);
  return 0;
}
