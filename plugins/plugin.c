/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libplan/plan.h>

#include "npymux.h"
#include "npyparse.h"
#include "npytypefind.h"
#include "h5typefind.h"
#include "cdftypefind.h"
#include "plandownload.h"
#include "planfilesink.h"
#include "planfilesrc.h"
#include "planmap.h"
#include "plancustom.h"
#include "planreduce.h"
#include "planstencil.h"
#include "planstats.h"
#include "planupload.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  /* One line per element, kept in alphabetical order. */
  ret |= GST_ELEMENT_REGISTER (npymux, plugin);
  ret |= GST_ELEMENT_REGISTER (npyparse, plugin);
  ret |= GST_ELEMENT_REGISTER (planarraysink, plugin);
  ret |= GST_ELEMENT_REGISTER (plancustom, plugin);
  ret |= GST_ELEMENT_REGISTER (planarraysrc, plugin);
  ret |= GST_ELEMENT_REGISTER (plandownload, plugin);
  ret |= GST_ELEMENT_REGISTER (planfilesink, plugin);
  ret |= GST_ELEMENT_REGISTER (planfilesrc, plugin);
  ret |= GST_ELEMENT_REGISTER (planmap, plugin);
  ret |= GST_ELEMENT_REGISTER (planreduce, plugin);
  ret |= GST_ELEMENT_REGISTER (planstencil, plugin);
  ret |= GST_ELEMENT_REGISTER (planupload, plugin);
  ret |= GST_TYPE_FIND_REGISTER (npy, plugin);
  ret |= GST_TYPE_FIND_REGISTER (hdf5, plugin);
  ret |= GST_TYPE_FIND_REGISTER (netcdf, plugin);
  ret |= gst_tracer_register (plugin, "planstats", PLAN_TYPE_STATS_TRACER);

  plan_init ();

  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, plan,
    "Streaming numeric arrays: file IO, maps, reductions, stencils",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
