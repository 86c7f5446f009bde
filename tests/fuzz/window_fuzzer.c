/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libFuzzer target for the stencil window parser: any byte string must
 * either parse or fail with a syntax error, never crash, leak or trip a
 * sanitizer. A window that parses must keep the rules (odd sizes, names
 * used once, offsets inside the window, its planes' too) and read back
 * from its canonical picture to the same window. Built with clang
 * -fsanitize=fuzzer,address,undefined by tests/fuzz/meson.build. */

#include <libplan/planwindow.h>
#include <libplan/planerror.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static void
check_window (PlanWindow * w)
{
  guint width = plan_window_get_width (w), height = plan_window_get_height (w);
  guint depth = plan_window_get_depth (w);
  guint n = plan_window_get_n_names (w), i;
  const gchar *const *names = plan_window_get_names (w);
  PlanWindow *again;
  gchar *picture, *picture2;

  if (width % 2 == 0 || height % 2 == 0 || depth % 2 == 0 || n == 0
      || n > width * height * depth || names[n] != NULL)
    abort ();
  for (i = 0; i < n; i++) {
    gint dz, dy, dx;

    if (!plan_window_get_offset_3d (w, i, &dz, &dy, &dx)
        || abs (dz) > (gint) depth / 2
        || abs (dy) > (gint) height / 2 || abs (dx) > (gint) width / 2
        || plan_window_lookup (w, names[i]) != (gint) i
        || plan_window_name_is_reserved (names[i]))
      abort ();
  }

  picture = plan_window_to_string (w);
  again = plan_window_parse (picture, NULL);
  if (again == NULL || plan_window_get_depth (again) != depth)
    abort ();
  picture2 = plan_window_to_string (again);
  if (strcmp (picture, picture2) != 0)
    abort ();
  plan_window_unref (again);
  g_free (picture);
  g_free (picture2);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  gchar *src = g_strndup ((const gchar *) data, size);
  GError *err = NULL;
  PlanWindow *w = plan_window_parse (src, &err);

  if (w != NULL) {
    check_window (w);
    plan_window_unref (w);
  } else if (!g_error_matches (err, PLAN_ERROR, PLAN_ERROR_SYNTAX)
      || strncmp (err->message, "window: ", 8) != 0) {
    abort ();
  }
  g_clear_error (&err);
  g_free (src);
  return 0;
}
