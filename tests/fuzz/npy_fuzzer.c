/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libFuzzer target for the .npy header parser: any bytes must either parse
 * or fail with a PLAN_ERROR, never crash or trip a sanitizer. What parses
 * must be an array libplan can handle, and must survive a write and a
 * second parse unchanged. Built with clang -fsanitize=fuzzer,address,
 * undefined by tests/fuzz/meson.build and run for a bounded time by
 * `meson test`. */

#include <libplan/plannpy.h>
#include <libplan/planerror.h>

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  PlanArrayInfo info, again;
  GError *err = NULL;
  guint8 *header;
  gsize header_size, written_size;

  if (!plan_npy_parse_header (data, size, &info, &header_size, &err)) {
    g_assert (err != NULL && err->domain == PLAN_ERROR);
    g_assert (err->message != NULL && err->message[0] != '\0');
    g_clear_error (&err);
    return 0;
  }
  g_assert (err == NULL);
  g_assert (header_size <= size);
  g_assert (plan_dtype_get_size (info.dtype) > 0);
  g_assert (info.ndim <= PLAN_ARRAY_MAX_DIMS);
  g_assert (info.ndim == 0 || info.shape[0] >= 0);

  written_size = plan_npy_get_header_size (&info);
  g_assert (written_size % PLAN_NPY_ALIGN == 0);
  header = g_malloc (written_size);
  g_assert (plan_npy_write_header (&info, header, written_size, NULL));
  g_assert (plan_npy_parse_header (header, written_size, &again, NULL, NULL));
  g_assert (plan_array_info_is_equal (&info, &again));
  g_free (header);
  return 0;
}
