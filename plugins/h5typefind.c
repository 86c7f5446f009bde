/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:h5typefind
 * @title: HDF5 typefinder
 * @short_description: recognise HDF5 and NetCDF-4 files
 *
 * Registers a typefinder that reports `application/x-hdf5` with maximum
 * probability for data that starts with the HDF5 signature
 * (`\x89HDF\r\n\x1a\n`) at byte 0, 512, 1024 or 2048 (after a user
 * block). NetCDF-4 files are HDF5 files and are reported the same. Without
 * it, GStreamer's own typefinders take some HDF5 files for MPEG video.
 *
 * No element parses `application/x-hdf5` from a byte stream: HDF5 is read
 * with random access (a dataset's chunks are anywhere in the file, found
 * through B-trees), which a stream of bytes pushed by filesrc or
 * souphttpsrc does not give. Read HDF5 datasets with planfilesrc; decodebin
 * and uridecodebin report the type and that no decoder takes it.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "h5typefind.h"

#include <string.h>

#define HDF5_MEDIA_TYPE "application/x-hdf5"
#define HDF5_SIGNATURE "\x89HDF\r\n\x1a\n"

static void
hdf5_type_find (GstTypeFind * tf, gpointer user_data)
{
  static const guint64 offsets[] = { 0, 512, 1024, 2048 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (offsets); i++) {
    const guint8 *data = gst_type_find_peek (tf, offsets[i], 8);

    if (data && memcmp (data, HDF5_SIGNATURE, 8) == 0) {
      gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_MAXIMUM,
          HDF5_MEDIA_TYPE);
      return;
    }
  }
}

static gboolean
hdf5_type_find_register (GstPlugin * plugin)
{
  GstCaps *caps = gst_caps_new_empty_simple (HDF5_MEDIA_TYPE);
  gboolean ok;

  /* gst_type_find_register() takes a reference of its own. */
  ok = gst_type_find_register (plugin, HDF5_MEDIA_TYPE, GST_RANK_PRIMARY,
      hdf5_type_find, "h5,hdf5,he5,nc", caps, NULL, NULL);
  gst_caps_unref (caps);
  return ok;
}

GST_TYPE_FIND_REGISTER_DEFINE_CUSTOM (hdf5, hdf5_type_find_register);
