/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libFuzzer target for the LZF decoder of HDF5 chunks (planh5-lzf.c):
 * any bytes must decode or be refused with a reason, never read or write
 * outside the buffers or trip a sanitizer. What a measuring pass (no
 * output) says must hold: the bytes decode to exactly that many into
 * room for exactly that many, to the same bytes into more room, and
 * report a full buffer (not corruption) into one byte less. Built with
 * clang -fsanitize=fuzzer,address,undefined by tests/fuzz/meson.build. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/io/planh5-private.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

/* LZF at most multiplies a chunk by 264 / 2 (a back-reference of 2
 * bytes giving 264); inputs are at most a few KiB. */
#define MAX_OUT ((gsize) 1 << 22)

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  const gchar *why = NULL;
  gsize measured = 0, got = 0, got2 = 0;
  guint8 *out, *more;
  PlanLzfResult r;

  r = _plan_h5_lzf_decode (data, size, NULL, 0, &measured, &why);
  if (r != PLAN_LZF_OK) {
    g_assert (r == PLAN_LZF_CORRUPT);
    g_assert (why != NULL && g_str_has_prefix (why, "LZF: "));
    return 0;
  }
  g_assert (measured <= MAX_OUT);

  /* Exactly the room it needs (a separate allocation, so that ASan sees
   * one byte past it). */
  out = g_malloc (MAX (measured, 1));
  g_assert (_plan_h5_lzf_decode (data, size, out, measured, &got,
          &why) == PLAN_LZF_OK);
  g_assert (got == measured);

  more = g_malloc (measured + 16);
  g_assert (_plan_h5_lzf_decode (data, size, more, measured + 16, &got2,
          &why) == PLAN_LZF_OK);
  g_assert (got2 == measured && memcmp (out, more, measured) == 0);

  if (measured > 0)
    g_assert (_plan_h5_lzf_decode (data, size, more, measured - 1, &got2,
            &why) == PLAN_LZF_FULL);
  g_free (more);
  g_free (out);
  return 0;
}
