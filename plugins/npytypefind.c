/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:npytypefind
 * @title: .npy typefinder
 * @short_description: recognise NumPy .npy streams
 *
 * Registers a typefinder that reports #PLAN_NPY_CAPS_MEDIA_TYPE
 * (`application/x-npy`) for streams that start with the .npy magic
 * (`\x93NUMPY`): with maximum probability when a supported version (1.0,
 * 2.0 or 3.0) follows, as likely otherwise (npyparse then says which
 * version it does not read). So typefind, decodebin and
 * `gst-typefind-1.0` know .npy files, and `filesrc ! typefind ! npyparse`
 * links.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "npytypefind.h"

#include <libplan/plan.h>

static void
npy_type_find (GstTypeFind * tf, gpointer user_data)
{
  const guint8 *data = gst_type_find_peek (tf, 0, 8);
  guint probability;

  if (data == NULL || !plan_npy_has_magic (data, 8))
    return;
  if (data[6] >= 1 && data[6] <= 3 && data[7] == 0)
    probability = GST_TYPE_FIND_MAXIMUM;
  else
    probability = GST_TYPE_FIND_LIKELY;
  gst_type_find_suggest_empty_simple (tf, probability,
      PLAN_NPY_CAPS_MEDIA_TYPE);
}

static gboolean
npy_type_find_register (GstPlugin * plugin)
{
  GstCaps *caps = gst_caps_new_empty_simple (PLAN_NPY_CAPS_MEDIA_TYPE);
  gboolean ok;

  /* gst_type_find_register() takes a reference of its own. */
  ok = gst_type_find_register (plugin, PLAN_NPY_CAPS_MEDIA_TYPE,
      GST_RANK_PRIMARY, npy_type_find, "npy", caps, NULL, NULL);
  gst_caps_unref (caps);
  return ok;
}

GST_TYPE_FIND_REGISTER_DEFINE_CUSTOM (npy, npy_type_find_register);
