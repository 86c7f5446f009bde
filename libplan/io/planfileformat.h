/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_FILE_FORMAT_H__
#define __PLAN_FILE_FORMAT_H__

#include <libplan/plan-prelude.h>

G_BEGIN_DECLS

/**
 * PlanFileFormat:
 * @PLAN_FILE_FORMAT_AUTO: choose by the content (readers: .npy when the
 *   file starts with the .npy magic, .npz when it starts as a zip archive)
 *   or by the name (writers: .npy when the name ends in ".npy")
 * @PLAN_FILE_FORMAT_RAW: the bare array data, C order, native byte order;
 *   the dtype and shape come from elsewhere
 * @PLAN_FILE_FORMAT_NPY: NumPy's .npy format: a header, then the data
 * @PLAN_FILE_FORMAT_NPZ: NumPy's .npz format, a zip archive of .npy files
 *   (stored or deflated); one of them is read. Readers only.
 * @PLAN_FILE_FORMAT_HDF5: one dataset of an HDF5 file (NetCDF-4 files are
 *   HDF5 files), read and written through libhdf5; only when gst-plan is
 *   built with HDF5.
 * @PLAN_FILE_FORMAT_ZARR: one array of a Zarr directory store, v2 or v3 (the
 *   location is the directory); only when gst-plan is built with Zarr.
 * @PLAN_FILE_FORMAT_NETCDF: one variable of a NetCDF classic (CDF-1),
 *   64-bit offset (CDF-2) or 64-bit data (CDF-5) file, read by libplan
 *   itself; NetCDF-4 files are HDF5 files (%PLAN_FILE_FORMAT_HDF5).
 *   Readers only.
 *
 * The layouts of array files that #PlanFileReader and #PlanFileWriter (and
 * the planfilesrc and planfilesink elements) read and write.
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_FILE_FORMAT_AUTO,
  PLAN_FILE_FORMAT_RAW,
  PLAN_FILE_FORMAT_NPY,
  PLAN_FILE_FORMAT_NPZ,
  PLAN_FILE_FORMAT_HDF5,
  PLAN_FILE_FORMAT_ZARR,
  PLAN_FILE_FORMAT_NETCDF,
} PlanFileFormat;

#define PLAN_TYPE_FILE_FORMAT (plan_file_format_get_type ())
PLAN_API
GType plan_file_format_get_type (void);

PLAN_API
const gchar * plan_file_format_to_string (PlanFileFormat format);

PLAN_API
PlanFileFormat plan_file_format_from_location (const gchar * location);

/**
 * PlanFileMode:
 * @PLAN_FILE_MODE_REPLACE: the output replaces whatever is at the location,
 *   whole and atomically
 * @PLAN_FILE_MODE_ADD: the output is one dataset added to the HDF5 file at
 *   the location, whose other datasets, groups and attributes are kept (a
 *   dataset of the same path is replaced), or one array added to the Zarr
 *   group there, whose other arrays are kept (an array of the same path is
 *   replaced), or one member added to the .npz file there, whose other
 *   members are kept (a member of the same name is replaced); a new file
 *   or store when there is none
 *
 * What a writer does with a file already at its location.
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_FILE_MODE_REPLACE,
  PLAN_FILE_MODE_ADD,
} PlanFileMode;

#define PLAN_TYPE_FILE_MODE (plan_file_mode_get_type ())
PLAN_API
GType plan_file_mode_get_type (void);

/**
 * PlanFileCodec:
 * @PLAN_FILE_CODEC_AUTO: the format's usual one: gzip (deflate) after the
 *   shuffle filter for HDF5, zstd for Zarr
 * @PLAN_FILE_CODEC_GZIP: gzip (deflate); HDF5 puts the shuffle filter first
 * @PLAN_FILE_CODEC_ZSTD: Zstandard (Zarr only)
 * @PLAN_FILE_CODEC_BLOSC_LZ4: blosc with byte shuffle and LZ4 (Zarr only)
 * @PLAN_FILE_CODEC_BLOSC_ZSTD: blosc with byte shuffle and Zstandard (Zarr
 *   only)
 *
 * How a writer compresses the chunks of a chunked format when its level is
 * above 0.
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_FILE_CODEC_AUTO,
  PLAN_FILE_CODEC_GZIP,
  PLAN_FILE_CODEC_ZSTD,
  PLAN_FILE_CODEC_BLOSC_LZ4,
  PLAN_FILE_CODEC_BLOSC_ZSTD,
} PlanFileCodec;

#define PLAN_TYPE_FILE_CODEC (plan_file_codec_get_type ())
PLAN_API
GType plan_file_codec_get_type (void);

PLAN_API
const gchar * plan_file_codec_to_string (PlanFileCodec codec);

PLAN_API
gboolean plan_file_get_regular_contents (const gchar * path,
    gchar ** contents, gsize * length, GError ** error);

G_END_DECLS

#endif /* __PLAN_FILE_FORMAT_H__ */
