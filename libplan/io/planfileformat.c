/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planfileformat
 * @title: PlanFileFormat
 * @short_description: the array file formats: raw, .npy, .npz, HDF5, Zarr,
 *   NetCDF classic
 *
 * #PlanFileFormat is registered as a #GEnum (#PLAN_TYPE_FILE_FORMAT) with
 * the nicks "auto", "raw", "npy", "npz", "hdf5", "zarr" and "netcdf", and
 * #PlanFileMode (#PLAN_TYPE_FILE_MODE) with "replace" and "add", so element
 * properties use them directly.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planfileformat.h"

#include <libplan/planerror.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

GType
plan_file_format_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {PLAN_FILE_FORMAT_AUTO, "Automatic: reading, .npy, .npz, HDF5 or NetCDF "
          "classic by the file's first bytes and Zarr for a directory; "
          "writing, .npy, .npz, HDF5 (.h5, .hdf5, .nc) or Zarr (.zarr) by the "
          "extension; raw otherwise",
          "auto"},
    {PLAN_FILE_FORMAT_RAW, "Raw array data, C order, little-endian", "raw"},
    {PLAN_FILE_FORMAT_NPY, "NumPy .npy file", "npy"},
    {PLAN_FILE_FORMAT_NPZ, "One array of a NumPy .npz file (a zip archive of "
          ".npy files)", "npz"},
    {PLAN_FILE_FORMAT_HDF5, "One dataset of an HDF5 or NetCDF-4 file",
          "hdf5"},
    {PLAN_FILE_FORMAT_ZARR, "One array of a Zarr directory store, v2 or v3",
          "zarr"},
    {PLAN_FILE_FORMAT_NETCDF, "One variable of a NetCDF classic, 64-bit "
          "offset or 64-bit data file (CDF-1, CDF-2, CDF-5; reading only)",
          "netcdf"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("PlanFileFormat", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
plan_file_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {PLAN_FILE_MODE_REPLACE, "Replace the file at the location whole, "
          "atomically", "replace"},
    {PLAN_FILE_MODE_ADD, "Add the dataset to the HDF5 file (or the array "
          "to the Zarr group, or the member to the .npz) at the location, a "
          "new one when there is none, keeping its other datasets; one of "
          "the same path is replaced",
          "add"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("PlanFileMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
plan_file_codec_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {PLAN_FILE_CODEC_AUTO, "The format's usual one: gzip with shuffle for "
          "HDF5, zstd for Zarr, deflate for .npz", "auto"},
    {PLAN_FILE_CODEC_GZIP, "gzip (deflate; HDF5 shuffles first)", "gzip"},
    {PLAN_FILE_CODEC_ZSTD, "Zstandard (Zarr only)", "zstd"},
    {PLAN_FILE_CODEC_BLOSC_LZ4, "blosc with byte shuffle and LZ4 (Zarr only)",
          "blosc-lz4"},
    {PLAN_FILE_CODEC_BLOSC_ZSTD, "blosc with byte shuffle and Zstandard "
          "(Zarr only)", "blosc-zstd"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("PlanFileCodec", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/**
 * plan_file_codec_to_string:
 * @codec: a #PlanFileCodec
 *
 * Returns: (transfer none): "auto", "gzip", "zstd", "blosc-lz4" or
 *   "blosc-zstd".
 *
 * Since: 0.1
 */
const gchar *
plan_file_codec_to_string (PlanFileCodec codec)
{
  switch (codec) {
    case PLAN_FILE_CODEC_GZIP:
      return "gzip";
    case PLAN_FILE_CODEC_ZSTD:
      return "zstd";
    case PLAN_FILE_CODEC_BLOSC_LZ4:
      return "blosc-lz4";
    case PLAN_FILE_CODEC_BLOSC_ZSTD:
      return "blosc-zstd";
    default:
      return "auto";
  }
}

/**
 * plan_file_format_to_string:
 * @format: a #PlanFileFormat
 *
 * Returns: (transfer none): "auto", "raw", "npy", "npz", "hdf5", "zarr" or
 *   "netcdf".
 *
 * Since: 0.1
 */
const gchar *
plan_file_format_to_string (PlanFileFormat format)
{
  switch (format) {
    case PLAN_FILE_FORMAT_RAW:
      return "raw";
    case PLAN_FILE_FORMAT_NPY:
      return "npy";
    case PLAN_FILE_FORMAT_NPZ:
      return "npz";
    case PLAN_FILE_FORMAT_HDF5:
      return "hdf5";
    case PLAN_FILE_FORMAT_ZARR:
      return "zarr";
    case PLAN_FILE_FORMAT_NETCDF:
      return "netcdf";
    default:
      return "auto";
  }
}

/**
 * plan_file_format_from_location:
 * @location: (nullable): a file name
 *
 * Returns: %PLAN_FILE_FORMAT_NPY when @location ends in ".npy" (in any
 *   case), %PLAN_FILE_FORMAT_NPZ when it ends in ".npz",
 *   %PLAN_FILE_FORMAT_HDF5 when it ends in ".h5", ".hdf5" or ".nc",
 *   %PLAN_FILE_FORMAT_ZARR when it ends in ".zarr",
 *   %PLAN_FILE_FORMAT_RAW otherwise.
 *
 * Since: 0.1
 */
PlanFileFormat
plan_file_format_from_location (const gchar * location)
{
  gsize len = location ? strlen (location) : 0;

  if (len >= 4 && g_ascii_strcasecmp (location + len - 4, ".npy") == 0)
    return PLAN_FILE_FORMAT_NPY;
  if (len >= 4 && g_ascii_strcasecmp (location + len - 4, ".npz") == 0)
    return PLAN_FILE_FORMAT_NPZ;
  if ((len >= 3 && g_ascii_strcasecmp (location + len - 3, ".h5") == 0)
      || (len >= 5 && g_ascii_strcasecmp (location + len - 5, ".hdf5") == 0)
      || (len >= 3 && g_ascii_strcasecmp (location + len - 3, ".nc") == 0))
    return PLAN_FILE_FORMAT_HDF5;
  if (len >= 5 && g_ascii_strcasecmp (location + len - 5, ".zarr") == 0)
    return PLAN_FILE_FORMAT_ZARR;
  return PLAN_FILE_FORMAT_RAW;
}

/* What a file that is not a regular one is, for an error. */
static const gchar *
file_kind (mode_t mode)
{
  return S_ISDIR (mode) ? "a directory" : S_ISFIFO (mode) ?
      "a FIFO (named pipe)" : S_ISCHR (mode) || S_ISBLK (mode) ? "a device" :
      S_ISSOCK (mode) ? "a socket" : "a special file";
}

/**
 * plan_file_get_regular_contents:
 * @path: (type filename): the file
 * @contents: (out) (array length=length) (element-type guint8) (transfer full):
 *   the file's bytes, followed by a NUL byte not counted in @length; free
 *   with g_free()
 * @length: (out) (optional): where to store the number of bytes read
 * @error: return location for a #GError, or %NULL
 *
 * Reads the whole of the regular file @path, as g_file_get_contents()
 * does, but refuses anything else before reading a byte: a FIFO would wait
 * for a writer (in its open() and then in its reads), a device such as
 * /dev/zero never ends, and a directory has no contents. Those give
 * %PLAN_ERROR_UNSUPPORTED ("PATH: it is a FIFO (named pipe), not a regular
 * file"); a file that cannot be opened or read gives a #G_FILE_ERROR
 * ("PATH: cannot read it: No such file or directory"), as does one that
 * shrinks while it is read.
 *
 * libplan reads .npy files (plan_array_load_npy()) and the plancustom
 * element its CUDA sources with it.
 *
 * Returns: %TRUE with @contents set, or %FALSE with @error set.
 *
 * Since: 0.1
 */
gboolean
plan_file_get_regular_contents (const gchar * path, gchar ** contents,
    gsize * length, GError ** error)
{
  gint fd;
  struct stat st;
  gchar *data;
  gsize done = 0;
  gint saved;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (contents != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* O_NONBLOCK: an open() of a FIFO without a writer returns at once. */
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 || fstat (fd, &st) < 0)
    goto failed;
  if (!S_ISREG (st.st_mode)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "%s: it is %s, "
        "not a regular file", path, file_kind (st.st_mode));
    close (fd);
    return FALSE;
  }
  data = g_try_malloc ((gsize) st.st_size + 1);
  if (data == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "%s: cannot allocate %"
        G_GUINT64_FORMAT " bytes to read it", path, (guint64) st.st_size);
    close (fd);
    return FALSE;
  }
  while (done < (gsize) st.st_size) {
    gssize n = read (fd, data + done, st.st_size - done);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      saved = n == 0 ? EIO : errno;
      g_free (data);
      errno = saved;
      goto failed;
    }
    done += n;
  }
  close (fd);
  data[done] = '\0';
  *contents = data;
  if (length)
    *length = done;
  return TRUE;

failed:
  saved = errno;
  if (fd >= 0)
    close (fd);
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
      "%s: cannot read it: %s", path, g_strerror (saved));
  return FALSE;
}
