/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* One dataset of an HDF5 file written through libhdf5: a new file, or a
 * copy of a file the dataset is added to; the dataset grown row block by
 * row block, or made at its full size for the ranks of an MPI job to
 * write together (its chunks' places, its filters, a chunk filtered here
 * as libhdf5 would, a filtered chunk or rows written at their place).
 * PlanFileWriter's worker and PlanShardWriter call it. Built only with
 * HDF5 (HAVE_HDF5), into the HDF5 module (planh5-module.c); reading is in
 * planh5.c. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* fallocate() */
#endif

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/core/plan-private.h"
#include "planh5-private.h"
#include <libplan/planerror.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <string.h>
#include <hdf5.h>
#include <zlib.h>

/* Writing: one new dataset in a new file, or added to a copy of a file,
 * grown row block by row block. */
struct _PlanH5Writer
{
  hid_t file;
  hid_t dset;
  hid_t mem_type;
  gchar *path;
  gint ndim;
  hsize_t dims[PLAN_ARRAY_MAX_DIMS];    /* the rows written so far first */
  guint64 chunk_rows;
  gsize row_size;
  /* Blocks are reserved for the chunks rows are appended to (not
   * filtered, growing): a write libhdf5 cannot finish leaks what it
   * holds of it, and HDF5 1.10 then prints "infinite loop closing
   * library" at exit. */
  gboolean reserve;
  /* The end of the blocks reserved so far: chunks libhdf5 still holds in
   * its cache are not in the file yet, so the next reservation starts
   * past this, not at the file's end. */
  hsize_t reserved_end;
  /* Filtered (compressed) and growing: no blocks can be reserved, as a
   * chunk's size is known only once it is filtered, but a file size limit
   * (ulimit -f) is checked against what the chunks could take. */
  gboolean check_limit;
};

/* With libhdf5's lock: the error of a failed write, "HDF5 @what: ", then
 * the system's error where the file's writes failed (a full disk:
 * G_FILE_ERROR_NOSPC, which the elements post as resource /
 * no-space-left), or else libhdf5's innermost messages. The stack is
 * cleared. */
static void
set_write_error (GError ** error, const gchar * what)
{
  gint err = _plan_h5_error_errno ();
  gchar *why = _plan_h5_error_text ();

  if (err > 0)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
        "HDF5 %s: %s", what, g_strerror (err));
  else
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "HDF5 %s: %s", what, why);
  g_free (why);
}

/* The file type of a dtype (little-endian, as h5py and numpy write on
 * this machine) and its memory type; bool is h5py's enum of int8. */
static gboolean
dtype_types (PlanDType dtype, hid_t * file_type, hid_t * mem_type)
{
  gint8 v;

  switch (dtype) {
    case PLAN_DTYPE_BOOL:
      *file_type = H5Tenum_create (H5T_NATIVE_INT8);
      v = 0;
      H5Tenum_insert (*file_type, "FALSE", &v);
      v = 1;
      H5Tenum_insert (*file_type, "TRUE", &v);
      *mem_type = H5Tcopy (*file_type);
      return TRUE;
    case PLAN_DTYPE_INT8:
      *file_type = H5Tcopy (H5T_STD_I8LE);
      break;
    case PLAN_DTYPE_UINT8:
      *file_type = H5Tcopy (H5T_STD_U8LE);
      break;
    case PLAN_DTYPE_INT16:
      *file_type = H5Tcopy (H5T_STD_I16LE);
      break;
    case PLAN_DTYPE_UINT16:
      *file_type = H5Tcopy (H5T_STD_U16LE);
      break;
    case PLAN_DTYPE_INT32:
      *file_type = H5Tcopy (H5T_STD_I32LE);
      break;
    case PLAN_DTYPE_UINT32:
      *file_type = H5Tcopy (H5T_STD_U32LE);
      break;
    case PLAN_DTYPE_INT64:
      *file_type = H5Tcopy (H5T_STD_I64LE);
      break;
    case PLAN_DTYPE_UINT64:
      *file_type = H5Tcopy (H5T_STD_U64LE);
      break;
    case PLAN_DTYPE_FLOAT32:
      *file_type = H5Tcopy (H5T_IEEE_F32LE);
      break;
    case PLAN_DTYPE_FLOAT64:
      *file_type = H5Tcopy (H5T_IEEE_F64LE);
      break;
    case PLAN_DTYPE_FLOAT16:
      *file_type = _plan_h5_half_type ();
      *mem_type = _plan_h5_half_type ();
      return *file_type >= 0 && *mem_type >= 0;
    case PLAN_DTYPE_COMPLEX64:
    case PLAN_DTYPE_COMPLEX128:{
      gboolean c64 = dtype == PLAN_DTYPE_COMPLEX64;
      *file_type = _plan_h5py_complex_type (c64 ? H5T_IEEE_F32LE :
          H5T_IEEE_F64LE);
      *mem_type = _plan_h5py_complex_type (c64 ? H5T_NATIVE_FLOAT :
          H5T_NATIVE_DOUBLE);
      return TRUE;
    }
    default:
      return FALSE;
  }
  *mem_type = H5Tget_native_type (*file_type, H5T_DIR_ASCEND);
  return TRUE;
}

/* Makes room for a new dataset at @path of @file: a dataset there is
 * deleted (the file's other objects stay); anything else there, or on the
 * way to it, that is not a group is an error. Must be called between
 * _plan_h5_enter () and _plan_h5_leave (). */
static gboolean
clear_dataset_path (hid_t file, const gchar * path, GError ** error)
{
  gchar **parts = g_strsplit (path + 1, "/", -1);
  GString *at = g_string_new (NULL);
  gboolean ok = TRUE;
  guint i;

  for (i = 0; ok && parts[i]; i++) {
    hid_t obj;
    H5I_type_t type;

    if (parts[i][0] == '\0')
      continue;
    g_string_append_printf (at, "/%s", parts[i]);
    if (H5Lexists (file, at->str, H5P_DEFAULT) <= 0) {
      H5Eclear2 (H5E_DEFAULT);
      break;                    /* created with the dataset */
    }
    obj = H5Oopen (file, at->str, H5P_DEFAULT);
    type = obj >= 0 ? H5Iget_type (obj) : H5I_BADID;
    if (obj >= 0)
      H5Oclose (obj);
    if (parts[i + 1] == NULL && type == H5I_DATASET) {
      if (H5Ldelete (file, at->str, H5P_DEFAULT) < 0) {
        gchar *why = _plan_h5_error_text ();
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "HDF5 cannot delete "
            "the dataset '%s' it replaces: %s", at->str, why);
        g_free (why);
        ok = FALSE;
      }
    } else if (parts[i + 1] == NULL) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "'%s' is "
          "a %s in the file, not a dataset; it is not replaced", at->str,
          type == H5I_GROUP ? "group" : "named type or a broken link");
      ok = FALSE;
    } else if (type != H5I_GROUP) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "'%s' is "
          "a %s in the file, not a group, so '%s' cannot be made in it",
          at->str, type == H5I_DATASET ? "dataset" : "named type or a broken "
          "link", path);
      ok = FALSE;
    }
  }
  H5Eclear2 (H5E_DEFAULT);
  g_string_free (at, TRUE);
  g_strfreev (parts);
  return ok;
}

/**
 * _plan_h5_writer_create:
 * @filename: the file to create (replacing what is there), or to add to
 * @path: the dataset's path; groups on the way are created
 * @info: its dtype and row shape (`shape[0]` is ignored)
 * @chunk_rows: the rows of a chunk, at least 1 (PlanFileWriter chooses
 *   the default)
 * @gzip_level: 0 for no compression, 1 to 9 for deflate with shuffle
 * @add: whether @filename is an HDF5 file to add the dataset to (one at
 *   @path deleted first) rather than one to create
 * @error: return location for a #GError (without the file's name)
 *
 * Creates the file (or opens it) and an empty dataset that grows along
 * its first axis (a 0-d array is a scalar dataset).
 *
 * Returns: (transfer full): the writer, or %NULL.
 */
PlanH5Writer *
_plan_h5_writer_create (const gchar * filename, const gchar * path,
    const PlanArrayInfo * info, guint64 chunk_rows, guint gzip_level,
    gboolean add, GError ** error)
{
  return _plan_h5_writer_create_full (filename, path, info, chunk_rows,
      gzip_level, add, -1, error);
}

/* The netCDF library (and so netCDF4-python and xarray) reads a dataset
 * of an enum or a compound type only when that type is a named datatype
 * of the file; with a transient type, as libhdf5 makes it by default, it
 * passes over the dataset as if it were not there. So the types of bool
 * and complex datasets are committed in the root group: complex numbers
 * under the names of the nc-complex convention, which netCDF4-python
 * reads as complex numbers (its auto_complex), bool under a name of its
 * own. One there already of the same definition is used; one of another
 * definition, or a dataset written at that name, leaves the type as it
 * is. Must be called with libhdf5's lock held. */
static void
use_named_type (hid_t file, const gchar * dataset, PlanDType dtype,
    hid_t * type)
{
  const gchar *name = dtype == PLAN_DTYPE_BOOL ? "_plan_bool_type" :
      dtype == PLAN_DTYPE_COMPLEX64 ? "_PFNC_FLOAT_COMPLEX_TYPE" :
      dtype == PLAN_DTYPE_COMPLEX128 ? "_PFNC_DOUBLE_COMPLEX_TYPE" : NULL;
  hid_t named = -1;

  if (name == NULL || strcmp (dataset + strspn (dataset, "/"), name) == 0)
    return;
  if (H5Lexists (file, name, H5P_DEFAULT) > 0) {
    named = H5Topen2 (file, name, H5P_DEFAULT);
    if (named >= 0 && H5Tequal (named, *type) <= 0) {
      H5Tclose (named);
      named = -1;
    }
  } else {
    named = H5Tcopy (*type);
    if (named >= 0 && H5Tcommit2 (file, name, named, H5P_DEFAULT,
            H5P_DEFAULT, H5P_DEFAULT) < 0) {
      H5Tclose (named);
      named = -1;
    }
  }
  H5Eclear2 (H5E_DEFAULT);
  if (named >= 0) {
    H5Tclose (*type);
    *type = named;
  }
}

/**
 * _plan_h5_writer_create_full:
 * @fixed_rows: -1 for a dataset that grows as rows are appended; else
 *   the rows the dataset has from the start. Uncompressed (@gzip_level
 *   0), it has that fixed size and its chunks are all allocated in the
 *   file now (not filled), so that their places are known
 *   (_plan_h5_writer_get_chunks()) and written there directly without
 *   libhdf5. Compressed, it is made as a growing one is (the same chunks
 *   and filters, its first axis extendable), already that long, no chunk
 *   allocated: its chunks are written whole, filtered by the caller
 *   (_plan_h5_writer_write_chunk()), or as rows
 *   (_plan_h5_writer_write_rows()).
 *
 * As _plan_h5_writer_create().
 */
PlanH5Writer *
_plan_h5_writer_create_full (const gchar * filename, const gchar * path,
    const PlanArrayInfo * info, guint64 chunk_rows, guint gzip_level,
    gboolean add, gint64 fixed_rows, GError ** error)
{
  PlanH5Writer *w = g_new0 (PlanH5Writer, 1);
  hsize_t maxdims[PLAN_ARRAY_MAX_DIMS], cdims[PLAN_ARRAY_MAX_DIMS];
  hid_t file_type = -1, space = -1, dcpl = -1, lcpl = -1;
  gsize row_size = plan_array_info_get_row_size (info);
  gboolean ok = FALSE;
  gchar *why;
  guint i;

  w->file = w->dset = w->mem_type = -1;
  w->path = path[0] == '/' ? g_strdup (path) : g_strconcat ("/", path, NULL);
  w->ndim = info->ndim;
  _plan_h5_enter ();
  if (!dtype_types (info->dtype, &file_type, &w->mem_type))
    goto no_type;
  if (add) {
    w->file = H5Fopen (filename, H5F_ACC_RDWR, H5P_DEFAULT);
    if (w->file < 0)
      goto not_h5;
    if (!clear_dataset_path (w->file, w->path, error))
      goto done;
  } else {
    w->file = H5Fcreate (filename, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  }
  if (w->file < 0)
    goto failed;
  dcpl = H5Pcreate (H5P_DATASET_CREATE);
  lcpl = H5Pcreate (H5P_LINK_CREATE);
  H5Pset_create_intermediate_group (lcpl, 1);
  if (info->ndim == 0) {
    space = H5Screate (H5S_SCALAR);
  } else {
    for (i = 0; i < info->ndim; i++) {
      w->dims[i] = cdims[i] = maxdims[i] = info->shape[i];
    }
    w->dims[0] = 0;
    maxdims[0] = H5S_UNLIMITED;
    g_assert (chunk_rows > 0);
    if (fixed_rows >= 0 && gzip_level > 0) {
      /* Extendable as a growing one, so chunks of any rows. */
      w->dims[0] = fixed_rows;
    } else if (fixed_rows >= 0) {
      /* A chunk no longer than a fixed axis, as HDF5 asks. */
      w->dims[0] = maxdims[0] = fixed_rows;
      chunk_rows = MAX (1, MIN (chunk_rows, (guint64) fixed_rows));
      H5Pset_alloc_time (dcpl, H5D_ALLOC_TIME_EARLY);
      H5Pset_fill_time (dcpl, H5D_FILL_TIME_NEVER);
    }
    w->chunk_rows = chunk_rows;
    w->row_size = row_size;
    w->reserve = fixed_rows < 0 && gzip_level == 0;
    w->check_limit = fixed_rows < 0 && gzip_level > 0;
    cdims[0] = chunk_rows;
    space = H5Screate_simple (info->ndim, w->dims, maxdims);
    H5Pset_chunk (dcpl, info->ndim, cdims);
    if (gzip_level > 0) {
      H5Pset_shuffle (dcpl);
      H5Pset_deflate (dcpl, gzip_level);
    }
  }
  use_named_type (w->file, w->path, info->dtype, &file_type);
  w->dset = H5Dcreate2 (w->file, w->path, file_type, space, lcpl, dcpl,
      H5P_DEFAULT);
  if (w->dset < 0)
    goto failed;
  ok = TRUE;
  goto done;

no_type:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "HDF5 files of "
      "dtype %s are not written", plan_dtype_to_string (info->dtype));
  goto done;
not_h5:
  why = _plan_h5_error_text ();
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "the file there is not "
      "an HDF5 file libhdf5 can open to add a dataset to (%s); it is left as "
      "it is", why);
  g_free (why);
  goto done;
failed:
  set_write_error (error, w->file < 0 ? "cannot create the file" :
      "cannot create the dataset");
  goto done;
done:
  if (file_type >= 0)
    H5Tclose (file_type);
  if (space >= 0)
    H5Sclose (space);
  if (dcpl >= 0)
    H5Pclose (dcpl);
  if (lcpl >= 0)
    H5Pclose (lcpl);
  _plan_h5_leave ();
  if (!ok) {
    _plan_h5_writer_close (w, NULL);
    w = NULL;
  }
  return w;
}

/* With libhdf5's lock: the error of a failed write. */
static void
write_failed (PlanH5Writer * w, GError ** error)
{
  gchar *what = g_strdup_printf ("cannot write rows to its dataset '%s'",
      w->path);

  set_write_error (error, what);
  g_free (what);
}

/* With libhdf5's lock: writes @n_rows whole rows from @first, within the
 * dataset's current rows. */
static gboolean
write_selected_rows (PlanH5Writer * w, guint64 first, const guint8 * data,
    guint64 n_rows, GError ** error)
{
  hid_t fspace = -1, mspace = -1;
  herr_t r = -1;

  if (_plan_h5_select_rows (w->dset, w->ndim, w->dims, first, n_rows, &fspace,
          &mspace))
    r = H5Dwrite (w->dset, w->mem_type, mspace, fspace, H5P_DEFAULT, data);
  if (r < 0)
    write_failed (w, error);
  if (mspace >= 0)
    H5Sclose (mspace);
  if (fspace >= 0)
    H5Sclose (fspace);
  return r >= 0;
}

/* With libhdf5's lock: reserves, past the file's end, the blocks of the
 * chunks that rows up to @rows start, and room for the metadata that
 * indexes them, so that the write of those rows does not meet a full
 * disk in libhdf5 (where it would lose what it holds of them, and HDF5
 * 1.10 prints "infinite loop closing library" at exit): a full disk is
 * said here, with the system's error, before libhdf5 writes. A file
 * system without fallocate() is written without reserving. */
/* With libhdf5's lock, for a filtered dataset growing to @rows rows:
 * FALSE with EFBIG when the file could pass the file size limit (ulimit
 * -f, RLIMIT_FSIZE) before those rows are in it. libhdf5 writes past it
 * would fail (or SIGXFSZ end the program, where it is not ignored or
 * blocked on the thread that closes the file), then so would the
 * truncation to its end as it closes the file, after which HDF5 1.10
 * crashes in its exit handler. The bound: the file as it is, what
 * libhdf5's chunk cache may hold and has not written, and each chunk
 * the rows touch, filtered data being taken at its size unfiltered and a
 * sixteenth more (deflate's worst case is far less), with room for the
 * chunk index. So an output within a few chunks of the limit is refused,
 * although compressed it might have fitted. */
static gboolean
check_file_size_limit (PlanH5Writer * w, guint64 rows, GError ** error)
{
  guint64 first_chunk, last_chunk, chunk_bound, need;
  size_t slots = 0, cache_bytes = 0;
  double w0 = 0;
  struct rlimit limit;
  hsize_t end = 0;
  hid_t dapl;

  if (!w->check_limit || w->ndim == 0 || w->chunk_rows == 0
      || getrlimit (RLIMIT_FSIZE, &limit) < 0
      || limit.rlim_cur == RLIM_INFINITY)
    return TRUE;
  if (H5Fget_filesize (w->file, &end) < 0) {
    H5Eclear2 (H5E_DEFAULT);
    end = 0;
  }
  dapl = H5Dget_access_plist (w->dset);
  if (dapl < 0 || H5Pget_chunk_cache (dapl, &slots, &cache_bytes, &w0) < 0) {
    H5Eclear2 (H5E_DEFAULT);
    cache_bytes = 1 << 20;      /* libhdf5's default */
  }
  /* "The file's default", where a list does not say. */
  if (cache_bytes == H5D_CHUNK_CACHE_NBYTES_DEFAULT)
    cache_bytes = 1 << 20;
  if (dapl >= 0)
    H5Pclose (dapl);
  first_chunk = w->dims[0] / w->chunk_rows;
  last_chunk = (MAX (rows, 1) - 1) / w->chunk_rows;
  chunk_bound = w->chunk_rows * w->row_size;
  chunk_bound += chunk_bound / 16 + 1024;
  need = (last_chunk - first_chunk + 1) * chunk_bound + cache_bytes
      + (64 << 10);
  if (end + need <= limit.rlim_cur)
    return TRUE;
  g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (EFBIG),
      g_strerror (EFBIG));
  return FALSE;
}

static gboolean
reserve_rows (PlanH5Writer * w, guint64 rows, GError ** error)
{
  guint64 chunks_before, chunks_after, chunk_bytes, need;
  hsize_t end = 0;
  void *handle = NULL;
  struct rlimit limit;
  gint fd, r;

  if (!w->reserve || w->ndim == 0 || w->chunk_rows == 0)
    return TRUE;
  chunks_before = (w->dims[0] + w->chunk_rows - 1) / w->chunk_rows;
  chunks_after = (rows + w->chunk_rows - 1) / w->chunk_rows;
  if (chunks_after <= chunks_before)
    return TRUE;
  if (H5Fget_filesize (w->file, &end) < 0
      || H5Fget_vfd_handle (w->file, H5P_DEFAULT, &handle) < 0
      || handle == NULL) {
    H5Eclear2 (H5E_DEFAULT);
    w->reserve = FALSE;
    return TRUE;
  }
  fd = *(gint *) handle;
  end = MAX (end, w->reserved_end);
  chunk_bytes = w->chunk_rows * w->row_size;
  /* The chunk index grows by a few hundred bytes a chunk at most. */
  need = (chunks_after - chunks_before) * (chunk_bytes + 1024) + (64 << 10);
  /* A file size limit (ulimit -f) the chunks would pass: libhdf5 would
   * fail their writes and then the truncation as it closes the file,
   * after which HDF5 1.10 crashes in its exit handler. */
  if (getrlimit (RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
      && end + need > limit.rlim_cur) {
    g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno
        (EFBIG), g_strerror (EFBIG));
    return FALSE;
  }
  do
    r = fallocate (fd, FALLOC_FL_KEEP_SIZE, end, need);
  while (r < 0 && errno == EINTR);
  if (r == 0) {
    w->reserved_end = end + need;
    return TRUE;
  }
  if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG) {
    gint err = errno;

    g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (err),
        g_strerror (err));
    return FALSE;
  }
  /* EOPNOTSUPP and the like: the writes say what is wrong, if anything. */
  w->reserve = FALSE;
  return TRUE;
}

/**
 * _plan_h5_writer_append:
 * @w: a writer
 * @data: whole rows, C order
 * @n_rows: their number (for a 0-d array, 1, once)
 * @error: return location for a #GError (without the file's name)
 *
 * Grows the dataset by @n_rows and writes them. Any thread.
 */
gboolean
_plan_h5_writer_append (PlanH5Writer * w, const guint8 * data,
    guint64 n_rows, GError ** error)
{
  gboolean ok;

  if (n_rows == 0)
    return TRUE;
  _plan_h5_enter ();
  if (w->ndim == 0) {
    ok = H5Dwrite (w->dset, w->mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT,
        data) >= 0;
    if (!ok)
      write_failed (w, error);
  } else if (!reserve_rows (w, w->dims[0] + n_rows, error)
      || !check_file_size_limit (w, w->dims[0] + n_rows, error)) {
    ok = FALSE;
  } else {
    w->dims[0] += n_rows;
    ok = H5Dset_extent (w->dset, w->dims) >= 0;
    if (ok)
      ok = write_selected_rows (w, w->dims[0] - n_rows, data, n_rows, error);
    else
      write_failed (w, error);
  }
  _plan_h5_leave ();
  return ok;
}

/**
 * _plan_h5_writer_get_chunks:
 * @w: a writer made with @fixed_rows (_plan_h5_writer_create_full())
 * @chunk_rows: (out): the rows of a chunk
 * @error: return location for a #GError (without the file's name)
 *
 * The byte offsets in the file of the dataset's chunks, in row order:
 * chunk i holds rows from i * @chunk_rows, whole rows in C order (the
 * last chunk, which may reach past the dataset's end, at full size). The
 * caller writes them after _plan_h5_writer_close().
 *
 * Returns: (transfer full): an array of guint64, or %NULL.
 */
GArray *
_plan_h5_writer_get_chunks (PlanH5Writer * w, guint64 * chunk_rows,
    GError ** error)
{
  guint64 n = w->ndim > 0 && w->chunk_rows > 0 ?
      (w->dims[0] + w->chunk_rows - 1) / w->chunk_rows : 0, i;
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (guint64), n);
  hsize_t coord[PLAN_ARRAY_MAX_DIMS] = { 0 };
  gboolean ok = TRUE;

  *chunk_rows = w->chunk_rows;
  _plan_h5_enter ();
  for (i = 0; ok && i < n; i++) {
    haddr_t addr = HADDR_UNDEF;
    unsigned mask = 0;
    hsize_t size = 0;
    guint64 at;

    coord[0] = i * w->chunk_rows;
    ok = H5Dget_chunk_info_by_coord (w->dset, coord, &mask, &addr,
        &size) >= 0 && addr != HADDR_UNDEF;
    at = addr;
    g_array_append_val (out, at);
  }
  if (!ok) {
    gchar *why = _plan_h5_error_text ();
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "HDF5 did not allocate "
        "the chunks of its dataset '%s': %s", w->path, why);
    g_free (why);
    g_array_unref (out);
    out = NULL;
  }
  H5Eclear2 (H5E_DEFAULT);
  _plan_h5_leave ();
  return out;
}

/**
 * _plan_h5_writer_get_filters:
 * @w: a writer of a chunked dataset
 * @filters: (out): its chunks' rows and size, and the filters libhdf5
 *   applies to them, as the dataset says
 * @error: return location for a #GError (without the file's name)
 *
 * What _plan_h5_chunk_encode() needs to filter a chunk of this dataset as
 * libhdf5 would.
 *
 * Returns: %TRUE, or %FALSE when the dataset has a filter that
 *   _plan_h5_chunk_encode() does not apply (only shuffle and deflate).
 */
gboolean
_plan_h5_writer_get_filters (PlanH5Writer * w, PlanH5Filters * filters,
    GError ** error)
{
  hid_t dcpl;
  gint n, i;
  gboolean ok = TRUE;

  memset (filters, 0, sizeof (*filters));
  filters->chunk_rows = w->chunk_rows;
  filters->chunk_bytes = w->chunk_rows * w->row_size;
  _plan_h5_enter ();
  dcpl = H5Dget_create_plist (w->dset);
  n = dcpl >= 0 ? H5Pget_nfilters (dcpl) : -1;
  if (n < 0 || n > (gint) G_N_ELEMENTS (filters->id)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "the filters of "
        "its dataset '%s' cannot be applied outside libhdf5", w->path);
    ok = FALSE;
  }
  for (i = 0; ok && i < n; i++) {
    unsigned flags, cd[8];
    size_t n_cd = G_N_ELEMENTS (cd);
    H5Z_filter_t f = H5Pget_filter2 (dcpl, i, &flags, &n_cd, cd, 0, NULL,
        NULL);

    if (f == H5Z_FILTER_DEFLATE && n_cd >= 1) {
      filters->level = cd[0];
    } else if (f == H5Z_FILTER_SHUFFLE) {
      /* Its element size, set when the dataset was made. */
      filters->itemsize = n_cd >= 1 ? cd[0] : 0;
      if (filters->itemsize == 0) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "the shuffle "
            "filter of its dataset '%s' has no element size", w->path);
        ok = FALSE;
      }
    } else {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "filter %d of "
          "its dataset '%s' cannot be applied outside libhdf5", (int) f,
          w->path);
      ok = FALSE;
    }
    filters->id[i] = f;
  }
  filters->n = ok ? n : 0;
  if (dcpl >= 0)
    H5Pclose (dcpl);
  H5Eclear2 (H5E_DEFAULT);
  _plan_h5_leave ();
  return ok;
}

/* The shuffle filter: byte k of every element into the k-th run of the
 * chunk, the bytes past the last whole element as they are. */
static void
shuffle (const guint8 * in, guint8 * out, gsize size, gsize itemsize)
{
  gsize n = size / itemsize, k, i;

  for (k = 0; k < itemsize; k++) {
    guint8 *run = out + k * n;
    const guint8 *src = in + k;

    for (i = 0; i < n; i++)
      run[i] = src[i * itemsize];
  }
  memcpy (out + n * itemsize, in + n * itemsize, size - n * itemsize);
}

/**
 * _plan_h5_chunk_encode:
 * @filters: a dataset's filters (_plan_h5_writer_get_filters())
 * @chunk: a whole chunk, `filters->chunk_bytes` bytes, as in memory (the
 *   file's byte order: little-endian)
 * @out_size: (out): the size of what is returned
 * @mask: (out): the chunk's filter mask for H5Dwrite_chunk() (the
 *   filters skipped)
 * @error: return location for a #GError
 *
 * Filters @chunk as libhdf5's pipeline does for the dataset: the shuffle
 * filter (none for 1-byte elements) and deflate (zlib's compress2(), as
 * libhdf5), in the dataset's order. Any thread; needs no libhdf5 call.
 *
 * Returns: (transfer full): the filtered chunk, or %NULL with @error set.
 */
guint8 *
_plan_h5_chunk_encode (const PlanH5Filters * filters, const guint8 * chunk,
    gsize * out_size, guint32 * mask, GError ** error)
{
  gsize size = filters->chunk_bytes;
  guint8 *cur = g_memdup2 (chunk, size);
  guint i;

  *mask = 0;
  for (i = 0; i < filters->n; i++) {
    if (filters->id[i] == H5Z_FILTER_SHUFFLE) {
      guint8 *next;

      /* As libhdf5: nothing to do for bytes, or a chunk of less than two
       * elements. */
      if (filters->itemsize <= 1 || size / filters->itemsize <= 1)
        continue;
      next = g_malloc (size);
      shuffle (cur, next, size, filters->itemsize);
      g_free (cur);
      cur = next;
    } else if (filters->id[i] == H5Z_FILTER_DEFLATE) {
      uLongf n = compressBound (size);
      guint8 *next = g_malloc (n);
      int z = compress2 (next, &n, cur, size, filters->level);

      g_free (cur);
      if (z != Z_OK) {
        g_free (next);
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "zlib could not "
            "deflate a chunk of %" G_GSIZE_FORMAT " bytes (%d)", size, z);
        return NULL;
      }
      cur = next;
      size = n;
    } else {
      g_free (cur);
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "HDF5 filter "
          "%u is not applied outside libhdf5", filters->id[i]);
      return NULL;
    }
  }
  *out_size = size;
  return cur;
}

/**
 * _plan_h5_writer_write_chunk:
 * @w: a writer made compressed with @fixed_rows
 * @index: the chunk: its first row is @index * its rows
 * @mask: the filters skipped (_plan_h5_chunk_encode())
 * @data: the filtered chunk
 * @size: its size
 * @error: return location for a #GError (without the file's name)
 *
 * Writes a chunk that is filtered already, as it is (H5Dwrite_chunk()).
 */
gboolean
_plan_h5_writer_write_chunk (PlanH5Writer * w, guint64 index, guint32 mask,
    const guint8 * data, gsize size, GError ** error)
{
  hsize_t offset[PLAN_ARRAY_MAX_DIMS] = { 0 };
  herr_t r;

  if (w->ndim == 0 || w->chunk_rows == 0 || index * w->chunk_rows >=
      w->dims[0]) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "its dataset '%s' has no "
        "chunk %" G_GUINT64_FORMAT, w->path, index);
    return FALSE;
  }
  offset[0] = index * w->chunk_rows;
  _plan_h5_enter ();
  r = H5Dwrite_chunk (w->dset, H5P_DEFAULT, mask, offset, size, data);
  if (r < 0) {
    gchar *why = _plan_h5_error_text ();
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "HDF5 cannot write chunk "
        "%" G_GUINT64_FORMAT " of its dataset '%s': %s", index, w->path, why);
    g_free (why);
  }
  _plan_h5_leave ();
  return r >= 0;
}

/**
 * _plan_h5_writer_write_rows:
 * @w: a writer made with @fixed_rows
 * @first: the first row
 * @data: whole rows, C order
 * @n_rows: their number, with @first within the dataset's rows
 * @error: return location for a #GError (without the file's name)
 *
 * Writes rows at their place; libhdf5 filters their chunks.
 */
gboolean
_plan_h5_writer_write_rows (PlanH5Writer * w, guint64 first,
    const guint8 * data, guint64 n_rows, GError ** error)
{
  gboolean ok;

  if (w->ndim == 0 || first + n_rows > w->dims[0]) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "rows %" G_GUINT64_FORMAT
        "-%" G_GUINT64_FORMAT " are past the end of its dataset '%s'", first,
        first + n_rows, w->path);
    return FALSE;
  }
  if (n_rows == 0)
    return TRUE;
  _plan_h5_enter ();
  ok = write_selected_rows (w, first, data, n_rows, error);
  _plan_h5_leave ();
  return ok;
}

/**
 * _plan_h5_writer_close:
 * @w: (transfer full) (nullable): a writer
 * @error: (nullable): where closing's failure is said; %NULL when the
 *   file is abandoned anyway
 *
 * Closes the dataset and the file, which writes what libhdf5 still holds.
 *
 * Returns: %TRUE when all was written.
 */
gboolean
_plan_h5_writer_close (PlanH5Writer * w, GError ** error)
{
  gboolean ok = TRUE;

  if (w == NULL)
    return TRUE;
  _plan_h5_enter ();
  if (w->mem_type >= 0)
    H5Tclose (w->mem_type);
  if (w->dset >= 0 && H5Dclose (w->dset) < 0)
    ok = FALSE;
  if (w->file >= 0 && H5Fclose (w->file) < 0)
    ok = FALSE;
  if (!ok && error)
    set_write_error (error, "cannot finish the file");
  H5Eclear2 (H5E_DEFAULT);
  _plan_h5_leave ();
  g_free (w->path);
  g_free (w);
  return ok;
}
