/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* An HDF5 filter plugin of id 32000 (h5py's LZF) for test_h5.py, found
 * through HDF5_PLUGIN_PATH: it decodes nothing and fails every chunk with
 * a message of its own, so that the test can tell that libhdf5 used it
 * and not gst-plan's own LZF decoder (which gst-plan registers only where
 * libhdf5 has no filter 32000). */

#include <hdf5.h>
#include <H5PLextern.h>

static size_t
refuse (unsigned flags, size_t cd_nelmts, const unsigned cd_values[],
    size_t nbytes, size_t * buf_size, void **buf)
{
  (void) flags;
  (void) cd_nelmts;
  (void) cd_values;
  (void) nbytes;
  (void) buf_size;
  (void) buf;
  H5Epush2 (H5E_DEFAULT, __FILE__, "refuse", __LINE__, H5E_ERR_CLS,
      H5E_PLINE, H5E_CANTFILTER, "the test plugin's filter 32000 ran");
  return 0;
}

static const H5Z_class2_t test_lzf = {
  H5Z_CLASS_T_VERS, (H5Z_filter_t) 32000, 1, 1, "test plugin 32000", NULL,
  NULL, refuse,
};

H5PL_type_t
H5PLget_plugin_type (void)
{
  return H5PL_TYPE_FILTER;
}

const void *
H5PLget_plugin_info (void)
{
  return &test_lzf;
}
