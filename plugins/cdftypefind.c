/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:cdftypefind
 * @title: NetCDF classic typefinder
 * @short_description: recognise NetCDF classic, 64-bit offset and 64-bit
 *   data files
 *
 * Registers a typefinder that reports `application/x-netcdf` with maximum
 * probability for data that starts with "CDF" and the version byte 1
 * (classic), 2 (64-bit offset) or 5 (64-bit data), followed by the number
 * of records and a dimension list tag (or an absent list). NetCDF-4 files
 * are HDF5 files: the HDF5 typefinder reports them as
 * `application/x-hdf5`, whatever their extension.
 *
 * No element parses `application/x-netcdf` from a byte stream (a
 * variable's data lies at an offset its header gives, and a record
 * variable's is interleaved with the others'): read NetCDF files with
 * planfilesrc.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "cdftypefind.h"

#include <string.h>

#define NETCDF_MEDIA_TYPE "application/x-netcdf"

static void
netcdf_type_find (GstTypeFind * tf, gpointer user_data)
{
  const guint8 *data = gst_type_find_peek (tf, 0, 4);
  guint count_size, tag;

  if (data == NULL || memcmp (data, "CDF", 3) != 0
      || (data[3] != 1 && data[3] != 2 && data[3] != 5))
    return;
  /* After the number of records, the dimension list's tag: 0x0a, or 0
   * for none. */
  count_size = data[3] == 5 ? 8 : 4;
  data = gst_type_find_peek (tf, 4 + count_size, 4);
  if (data == NULL) {
    gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_LIKELY,
        NETCDF_MEDIA_TYPE);
    return;
  }
  tag = GST_READ_UINT32_BE (data);
  if (tag == 0x0a || tag == 0)
    gst_type_find_suggest_empty_simple (tf, GST_TYPE_FIND_MAXIMUM,
        NETCDF_MEDIA_TYPE);
}

static gboolean
netcdf_type_find_register (GstPlugin * plugin)
{
  GstCaps *caps = gst_caps_new_empty_simple (NETCDF_MEDIA_TYPE);
  gboolean ok;

  /* gst_type_find_register() takes a reference of its own. */
  ok = gst_type_find_register (plugin, NETCDF_MEDIA_TYPE, GST_RANK_PRIMARY,
      netcdf_type_find, "nc,cdf", caps, NULL, NULL);
  gst_caps_unref (caps);
  return ok;
}

GST_TYPE_FIND_REGISTER_DEFINE_CUSTOM (netcdf, netcdf_type_find_register);
