/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* One dataset of an HDF5 (or NetCDF-4) file, read row block by row block
 * through libhdf5: its dtype and shape, its chunking, and hyperslabs of
 * whole rows. PlanFileReader's worker calls it for the chunks it makes.
 * Built only with HDF5 (HAVE_HDF5). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/core/plan-private.h"
#include <libplan/planerror.h>

#include <string.h>
#include <hdf5.h>
#include <zlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

/* Debian's libhdf5 is thread-safe, with a lock of its own around every
 * call; others may not be. Each sequence of calls on a dataset holds this
 * lock, so that a build without thread safety is safe too. */
static GRecMutex h5_lock;

/* A row block with whole HDF5 chunks is at most this large; a dataset
 * whose chunks span more per row of chunks is read in blocks that cut
 * through chunks. */
#define MAX_ALIGNED_BLOCK ((guint64) 256 << 20)

/* The filters of a dataset whose chunks are decoded here rather than by
 * libhdf5 (which decodes under its lock, one chunk at a time): each chunk
 * read raw (H5Dread_chunk) under the lock, decoded outside it, so that
 * several threads decode at once. */
#define MAX_DIRECT_FILTERS 2

/* Unfiltered chunks at least this large are mapped from the file by the
 * reader, one chunk a buffer; smaller ones are read, several a buffer. */
#define MIN_MAPPED_CHUNK ((guint64) 512 << 10)

struct _PlanH5Dataset
{
  hid_t file;
  hid_t dset;
  hid_t mem_type;
  gchar *path;
  gint ndim;
  hsize_t dims[PLAN_ARRAY_MAX_DIMS];

  /* decoded here: chunks of whole rows, filtered by deflate and shuffle
   * only, in the machine's byte order */
  gboolean direct;
  guint64 chunk_rows;
  gsize row_size;
  gsize itemsize;
  guint n_filters;
  H5Z_filter_t filters[MAX_DIRECT_FILTERS];     /* in the order applied */

  /* scratch memory of read_direct (): pairs of chunk-sized buffers, taken
   * by a read and given back after it, so that each read does not fault
   * in fresh pages */
  GMutex scratch_lock;
  GSList *scratch;
};

/* A raw chunk and room to decode it in (read_direct ()). */
typedef struct
{
  guint8 *a;
  guint8 *b;
#if HAVE_LIBDEFLATE
  struct libdeflate_decompressor *inflater;
#endif
} Scratch;

static void
h5_enter (void)
{
  g_rec_mutex_lock (&h5_lock);
  /* HDF5 prints its error stack to stderr unless told not to; the stack
   * is per thread, so each thread is told. */
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
}

static void
h5_leave (void)
{
  g_rec_mutex_unlock (&h5_lock);
}

static herr_t
collect_error (unsigned n, const H5E_error2_t * e, void *data)
{
  GString *s = data;

  if (n >= 3 || e->desc == NULL || e->desc[0] == '\0')
    return 0;
  if (s->len > 0)
    g_string_append (s, "; ");
  g_string_append (s, e->desc);
  return 0;
}

/* The innermost messages of HDF5's error stack of this thread: where the
 * library found the problem ("truncated file: eof = ...", "can't open
 * object", "filter returned failure during read"). */
static gchar *
h5_error_text (void)
{
  GString *s = g_string_new (NULL);

  H5Ewalk2 (H5E_DEFAULT, H5E_WALK_UPWARD, collect_error, s);
  H5Eclear2 (H5E_DEFAULT);
  if (s->len == 0)
    g_string_append (s, "the HDF5 library gave no reason");
  return g_string_free (s, FALSE);
}

typedef struct
{
  GPtrArray *paths;
} VisitData;

static herr_t
visit_link (hid_t group, const char *name, const H5L_info_t * info,
    void *data)
{
  VisitData *v = data;
  hid_t obj;

  if (info->type != H5L_TYPE_HARD)
    return 0;
  obj = H5Oopen (group, name, H5P_DEFAULT);
  if (obj < 0) {
    H5Eclear2 (H5E_DEFAULT);
    return 0;
  }
  if (H5Iget_type (obj) == H5I_DATASET)
    g_ptr_array_add (v->paths, g_strconcat ("/", name, NULL));
  H5Oclose (obj);
  return 0;
}

/* The paths of the file's datasets, in name order. */
static GPtrArray *
list_datasets (hid_t file)
{
  VisitData v = { g_ptr_array_new_with_free_func (g_free) };

  if (H5Lvisit (file, H5_INDEX_NAME, H5_ITER_INC, visit_link, &v) < 0)
    H5Eclear2 (H5E_DEFAULT);
  return v.paths;
}

static gchar *
join_paths (GPtrArray * paths)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < paths->len && i < 20; i++) {
    if (i > 0)
      g_string_append (s, i + 1 == paths->len ? " and " : ", ");
    g_string_append_printf (s, "'%s'", (gchar *) g_ptr_array_index (paths,
            i));
  }
  if (paths->len > 20)
    g_string_append_printf (s, " and %u more", paths->len - 20);
  return g_string_free (s, FALSE);
}

/* Which dataset to open: @path, or the file's only one. */
static gchar *
choose_dataset (hid_t file, const gchar * path, GError ** error)
{
  GPtrArray *paths;
  gchar *names, *chosen = NULL;
  hid_t obj = -1;
  H5I_type_t type = H5I_BADID;

  if (path) {
    if (H5Lexists (file, path, H5P_DEFAULT) > 0
        && (obj = H5Oopen (file, path, H5P_DEFAULT)) >= 0) {
      type = H5Iget_type (obj);
      H5Oclose (obj);
    }
    H5Eclear2 (H5E_DEFAULT);
    if (type == H5I_DATASET)
      return path[0] == '/' ? g_strdup (path) : g_strconcat ("/", path, NULL);
  }

  paths = list_datasets (file);
  if (path == NULL && paths->len == 1) {
    chosen = g_strdup (g_ptr_array_index (paths, 0));
    g_ptr_array_unref (paths);
    return chosen;
  }
  names = join_paths (paths);
  if (paths->len == 0)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "it is an "
        "HDF5 file with no datasets in it");
  else if (path == NULL)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "it holds "
        "%u datasets, %s; name the one to read as the dataset", paths->len,
        names);
  else if (type != H5I_BADID)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "'%s' is a "
        "group, not a dataset; its datasets are %s", path, names);
  else
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "it has no "
        "dataset '%s'; its datasets are %s", path, names);
  g_free (names);
  g_ptr_array_unref (paths);
  return NULL;
}

/* h5py's bool: an enum of int8 with FALSE = 0 and TRUE = 1. */
static gboolean
is_h5py_bool (hid_t type)
{
  hid_t base = H5Tget_super (type);
  gboolean ok = base >= 0 && H5Tget_size (base) == 1
      && H5Tget_nmembers (type) == 2;
  gchar *n0 = ok ? H5Tget_member_name (type, 0) : NULL;
  gchar *n1 = ok ? H5Tget_member_name (type, 1) : NULL;
  gint8 v0 = -1, v1 = -1;

  ok = ok && n0 && n1 && strcmp (n0, "FALSE") == 0
      && strcmp (n1, "TRUE") == 0 && H5Tget_member_value (type, 0, &v0) >= 0
      && H5Tget_member_value (type, 1, &v1) >= 0 && v0 == 0 && v1 == 1;
  if (base >= 0)
    H5Tclose (base);
  H5free_memory (n0);
  H5free_memory (n1);
  return ok;
}

/* h5py's complex numbers: a compound of two floats of one size, "r" at 0
 * and "i" after it. Returns the size of a part, or 0 for another type. */
static gsize
h5py_complex_part_size (hid_t type)
{
  gsize size = H5Tget_size (type) / 2;
  gchar *n0 = NULL, *n1 = NULL;
  gboolean ok = (size == 4 || size == 8) && H5Tget_nmembers (type) == 2
      && H5Tget_member_class (type, 0) == H5T_FLOAT
      && H5Tget_member_class (type, 1) == H5T_FLOAT
      && H5Tget_member_offset (type, 0) == 0
      && H5Tget_member_offset (type, 1) == size;
  guint i;

  for (i = 0; ok && i < 2; i++) {
    hid_t m = H5Tget_member_type (type, i);
    ok = m >= 0 && H5Tget_size (m) == size;
    if (m >= 0)
      H5Tclose (m);
  }
  n0 = ok ? H5Tget_member_name (type, 0) : NULL;
  n1 = ok ? H5Tget_member_name (type, 1) : NULL;
  ok = ok && n0 && n1 && strcmp (n0, "r") == 0 && strcmp (n1, "i") == 0;
  H5free_memory (n0);
  H5free_memory (n1);
  return ok ? size : 0;
}

/* h5py's complex type over the float type @part. */
static hid_t
h5py_complex_type (hid_t part)
{
  gsize size = H5Tget_size (part);
  hid_t t = H5Tcreate (H5T_COMPOUND, 2 * size);

  H5Tinsert (t, "r", 0, part);
  H5Tinsert (t, "i", size, part);
  return t;
}

static const gchar *
class_name (H5T_class_t c)
{
  switch (c) {
    case H5T_TIME:
      return "time";
    case H5T_STRING:
      return "string";
    case H5T_BITFIELD:
      return "bitfield";
    case H5T_OPAQUE:
      return "opaque";
    case H5T_COMPOUND:
      return "compound (a record, or h5py's complex numbers)";
    case H5T_REFERENCE:
      return "reference";
    case H5T_ENUM:
      return "enum";
    case H5T_VLEN:
      return "variable-length";
    case H5T_ARRAY:
      return "array";
    default:
      return "unknown";
  }
}

/* IEEE binary16, little-endian, as h5py writes numpy's float16: HDF5 has
 * no predefined half type, so it is float32's type cut to 2 bytes with
 * binary16's fields (sign at bit 15, 5 exponent bits at 10 biased by 15,
 * 10 mantissa bits at 0). libhdf5 converts it to and from other floats. */
static hid_t
half_type (void)
{
  hid_t t = H5Tcopy (H5T_IEEE_F32LE);

  if (t < 0 || H5Tset_fields (t, 15, 10, 5, 0, 10) < 0
      || H5Tset_size (t, 2) < 0 || H5Tset_ebias (t, 15) < 0
      || H5Tset_precision (t, 16) < 0) {
    if (t >= 0)
      H5Tclose (t);
    return -1;
  }
  return t;
}

/* Whether a 2-byte float type has binary16's fields (in either byte
 * order), not those of another 2-byte float such as bfloat16. */
static gboolean
is_half (hid_t type)
{
  size_t spos, epos, esize, mpos, msize;

  return H5Tget_size (type) == 2 && H5Tget_fields (type, &spos, &epos,
      &esize, &mpos, &msize) >= 0 && spos == 15 && epos == 10 && esize == 5
      && mpos == 0 && msize == 10 && H5Tget_ebias (type) == 15;
}

/* The dtype of a file type, and the native type HDF5 converts it to (byte
 * order included). */
static gboolean
map_type (hid_t type, PlanDType * dtype, hid_t * mem_type,
    gboolean * native, GError ** error)
{
  H5T_class_t c = H5Tget_class (type);
  gsize size = H5Tget_size (type);

  if (c == H5T_INTEGER && (size == 1 || size == 2 || size == 4 || size == 8)) {
    static const PlanDType s[] = { 0, PLAN_DTYPE_INT8, PLAN_DTYPE_INT16, 0,
      PLAN_DTYPE_INT32, 0, 0, 0, PLAN_DTYPE_INT64
    };
    static const PlanDType u[] = { 0, PLAN_DTYPE_UINT8, PLAN_DTYPE_UINT16, 0,
      PLAN_DTYPE_UINT32, 0, 0, 0, PLAN_DTYPE_UINT64
    };
    gboolean sign = H5Tget_sign (type) == H5T_SGN_2;
    *dtype = sign ? s[size] : u[size];
    *mem_type = H5Tget_native_type (type, H5T_DIR_ASCEND);
  } else if (c == H5T_FLOAT && (size == 4 || size == 8)) {
    *dtype = size == 4 ? PLAN_DTYPE_FLOAT32 : PLAN_DTYPE_FLOAT64;
    *mem_type = H5Tcopy (size == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE);
  } else if (c == H5T_FLOAT && is_half (type)) {
    *dtype = PLAN_DTYPE_FLOAT16;
    *mem_type = half_type ();
  } else if (c == H5T_ENUM && is_h5py_bool (type)) {
    *dtype = PLAN_DTYPE_BOOL;
    *mem_type = H5Tget_native_type (type, H5T_DIR_ASCEND);
  } else if (c == H5T_COMPOUND && h5py_complex_part_size (type)) {
    gboolean c64 = h5py_complex_part_size (type) == 4;
    *dtype = c64 ? PLAN_DTYPE_COMPLEX64 : PLAN_DTYPE_COMPLEX128;
    *mem_type = h5py_complex_type (c64 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE);
  } else if (c == H5T_FLOAT) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its elements "
        "are %" G_GSIZE_FORMAT "-byte floats%s, which gst-plan does not "
        "support; convert the dataset to float16, float32 or float64",
        size, size == 2 ? " that are not IEEE binary16 (bfloat16?)" : "");
    return FALSE;
  } else {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its elements "
        "are of the HDF5 %s type class, which gst-plan does not support; "
        "only integers, float16, float32, float64, h5py's bool and h5py's "
        "complex numbers are read",
        c == H5T_INTEGER ? "integer (of an odd size)" : class_name (c));
    return FALSE;
  }
  *native = *mem_type >= 0 && H5Tequal (type, *mem_type) > 0;
  return *mem_type >= 0;
}

static gboolean
read_shape (PlanH5Dataset * d, GError ** error)
{
  hid_t space = H5Dget_space (d->dset);
  H5S_class_t c = space >= 0 ? H5Sget_simple_extent_type (space) :
      H5S_NO_CLASS;
  gint ndim = space >= 0 ? H5Sget_simple_extent_ndims (space) : -1;
  gboolean ok = FALSE;

  if (c == H5S_NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "it has a null "
        "dataspace (an attribute-like dataset with no elements at all)");
  } else if (ndim < 0) {
    gchar *why = h5_error_text ();
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "cannot read its "
        "shape: %s", why);
    g_free (why);
  } else if (ndim > PLAN_ARRAY_MAX_DIMS) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "it has %d axes;"
        " at most %d are supported", ndim, PLAN_ARRAY_MAX_DIMS);
  } else {
    d->ndim = ndim;
    H5Sget_simple_extent_dims (space, d->dims, NULL);
    ok = TRUE;
  }
  if (space >= 0)
    H5Sclose (space);
  return ok;
}

/* The rows per row block that holds whole chunks (the chunks' first axis),
 * or 1 for a contiguous dataset or chunks too large for that. */
static guint64
chunk_rows (PlanH5Dataset * d, gsize row_size)
{
  hid_t dcpl = H5Dget_create_plist (d->dset);
  hsize_t cdims[PLAN_ARRAY_MAX_DIMS];
  guint64 rows = 1;

  if (dcpl >= 0 && d->ndim > 0 && H5Pget_layout (dcpl) == H5D_CHUNKED
      && H5Pget_chunk (dcpl, d->ndim, cdims) == d->ndim
      && cdims[0] * row_size <= MAX_ALIGNED_BLOCK)
    rows = MAX (cdims[0], 1);
  if (dcpl >= 0)
    H5Pclose (dcpl);
  return rows;
}

/* Whether the dataset's chunks can be decoded here: chunked in whole rows
 * of at most 256 MiB, filtered by deflate and shuffle only, stored in the
 * machine's byte order. Must be called between h5_enter () and
 * h5_leave (). */
static void
check_direct (PlanH5Dataset * d, gboolean native)
{
  hid_t dcpl = H5Dget_create_plist (d->dset);
  hsize_t cdims[PLAN_ARRAY_MAX_DIMS];
  gint i, n;

  d->direct = FALSE;
  if (dcpl < 0 || !native || d->ndim == 0
      || H5Pget_layout (dcpl) != H5D_CHUNKED
      || H5Pget_chunk (dcpl, d->ndim, cdims) != d->ndim
      || cdims[0] * d->row_size > MAX_ALIGNED_BLOCK || d->row_size == 0)
    goto done;
  for (i = 1; i < d->ndim; i++)
    if (cdims[i] != d->dims[i])
      goto done;
  n = H5Pget_nfilters (dcpl);
  if (n < 0 || n > MAX_DIRECT_FILTERS)
    goto done;
  for (i = 0; i < n; i++) {
    unsigned flags, cd[8];
    size_t n_cd = G_N_ELEMENTS (cd);
    H5Z_filter_t f = H5Pget_filter2 (dcpl, i, &flags, &n_cd, cd, 0, NULL,
        NULL);

    if (f != H5Z_FILTER_DEFLATE && f != H5Z_FILTER_SHUFFLE)
      goto done;
    if (f == H5Z_FILTER_SHUFFLE && n_cd >= 1 && cd[0] != d->itemsize)
      goto done;
    d->filters[i] = f;
  }
  d->n_filters = n;
  d->chunk_rows = cdims[0];
  d->direct = TRUE;
done:
  if (dcpl >= 0)
    H5Pclose (dcpl);
  H5Eclear2 (H5E_DEFAULT);
}

void
_plan_h5_dataset_close (PlanH5Dataset * d)
{
  if (d == NULL)
    return;
  while (d->scratch) {
    Scratch *sc = d->scratch->data;

    d->scratch = g_slist_delete_link (d->scratch, d->scratch);
    g_free (sc->a);
    g_free (sc->b);
#if HAVE_LIBDEFLATE
    if (sc->inflater)
      libdeflate_free_decompressor (sc->inflater);
#endif
    g_free (sc);
  }
  g_mutex_clear (&d->scratch_lock);
  h5_enter ();
  if (d->mem_type >= 0)
    H5Tclose (d->mem_type);
  if (d->dset >= 0)
    H5Dclose (d->dset);
  if (d->file >= 0)
    H5Fclose (d->file);
  H5Eclear2 (H5E_DEFAULT);
  h5_leave ();
  g_free (d->path);
  g_free (d);
}

/**
 * _plan_h5_dataset_open:
 * @filename: an HDF5 file
 * @path: (nullable): the dataset's path in it, or %NULL for its only one
 * @info: (out): the dataset's dtype and shape
 * @align_rows: (out): the rows of a block of whole chunks (1: any rows)
 * @data_offset: (out): the file offset of the data when it is stored as
 *   it is in memory (contiguous, no filter, native byte order), so that
 *   it can be read like a .npy; G_MAXUINT64 otherwise
 * @error: return location for a #GError (without the file's name)
 *
 * Returns: (transfer full): the open dataset, or %NULL.
 */
PlanH5Dataset *
_plan_h5_dataset_open (const gchar * filename, const gchar * path,
    PlanArrayInfo * info, guint64 * align_rows, guint64 * data_offset,
    GError ** error)
{
  PlanH5Dataset *d = g_new0 (PlanH5Dataset, 1);
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  hid_t type = -1, dcpl;
  PlanDType dtype;
  gboolean native = FALSE, ok = FALSE;
  gchar *why;
  gint i;

  d->file = d->dset = d->mem_type = -1;
  g_mutex_init (&d->scratch_lock);
  h5_enter ();
  d->file = H5Fopen (filename, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (d->file < 0)
    goto not_opened;
  d->path = choose_dataset (d->file, path, error);
  if (d->path == NULL)
    goto done;
  d->dset = H5Dopen2 (d->file, d->path, H5P_DEFAULT);
  if (d->dset < 0)
    goto not_opened;
  type = H5Dget_type (d->dset);
  if (type < 0 || !map_type (type, &dtype, &d->mem_type, &native, error)
      || !read_shape (d, error))
    goto in_dataset;
  for (i = 0; i < d->ndim; i++)
    shape[i] = d->dims[i];
  if (!plan_array_info_set (info, dtype, d->ndim, shape, error))
    goto in_dataset;
  *align_rows = chunk_rows (d, plan_array_info_get_row_size (info));
  d->row_size = plan_array_info_get_row_size (info);
  d->itemsize = plan_dtype_get_size (dtype);
  check_direct (d, native);

  *data_offset = G_MAXUINT64;
  dcpl = H5Dget_create_plist (d->dset);
  if (native && dcpl >= 0 && H5Pget_layout (dcpl) == H5D_CONTIGUOUS
      && H5Pget_nfilters (dcpl) == 0 && H5Dget_offset (d->dset) != HADDR_UNDEF)
    *data_offset = H5Dget_offset (d->dset);
  if (dcpl >= 0)
    H5Pclose (dcpl);
  H5Eclear2 (H5E_DEFAULT);
  ok = TRUE;
  goto done;

not_opened:
  why = h5_error_text ();
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "HDF5 cannot open %s: "
      "%s", d->path ? "its dataset" : "it", why);
  g_free (why);
  goto done;
in_dataset:
  g_prefix_error (error, "its dataset '%s': ", d->path);
  goto done;
done:
  if (type >= 0)
    H5Tclose (type);
  h5_leave ();
  if (!ok) {
    _plan_h5_dataset_close (d);
    d = NULL;
  }
  return d;
}

const gchar *
_plan_h5_dataset_get_path (PlanH5Dataset * d)
{
  return d->path;
}

/* Selects rows @first to @first + @n_rows of a dataset whose extent is
 * @dims in its file space (*@fspace), and a memory space of their shape
 * (*@mspace); the caller closes both where they are >= 0. Must be called
 * between h5_enter () and h5_leave (). */
static gboolean
select_rows (hid_t dset, gint ndim, const hsize_t * dims, guint64 first,
    guint64 n_rows, hid_t * fspace, hid_t * mspace)
{
  hsize_t start[PLAN_ARRAY_MAX_DIMS] = { 0 }, count[PLAN_ARRAY_MAX_DIMS];
  gint i;

  for (i = 0; i < ndim; i++)
    count[i] = dims[i];
  start[0] = first;
  count[0] = n_rows;
  *fspace = H5Dget_space (dset);
  *mspace = H5Screate_simple (ndim, count, NULL);
  return *fspace >= 0 && *mspace >= 0 && H5Sselect_hyperslab (*fspace,
      H5S_SELECT_SET, start, NULL, count, NULL) >= 0;
}

static gboolean read_slab (PlanH5Dataset * d, guint64 first, guint64 n_rows,
    guint8 * dest, GError ** error);

/* The shuffle filter's inverse: byte k of every element was stored in the
 * k-th run of the chunk. */
static void
unshuffle (const guint8 * in, guint8 * out, gsize size, gsize itemsize)
{
  gsize n = size / itemsize, e = 0, k;

#ifdef __SSE2__
  /* 16 elements at a time: their bytes interleaved run by run, as
   * punpck does (SSE2 is part of x86-64). */
  if (itemsize == 4) {
    const guint8 *r0 = in, *r1 = in + n, *r2 = in + 2 * n, *r3 = in + 3 * n;

    for (; e + 16 <= n; e += 16) {
      __m128i b0 = _mm_loadu_si128 ((const __m128i *) (r0 + e));
      __m128i b1 = _mm_loadu_si128 ((const __m128i *) (r1 + e));
      __m128i b2 = _mm_loadu_si128 ((const __m128i *) (r2 + e));
      __m128i b3 = _mm_loadu_si128 ((const __m128i *) (r3 + e));
      __m128i lo01 = _mm_unpacklo_epi8 (b0, b1), hi01 = _mm_unpackhi_epi8 (b0,
          b1);
      __m128i lo23 = _mm_unpacklo_epi8 (b2, b3), hi23 = _mm_unpackhi_epi8 (b2,
          b3);
      __m128i *o = (__m128i *) (out + e * 4);

      _mm_storeu_si128 (o, _mm_unpacklo_epi16 (lo01, lo23));
      _mm_storeu_si128 (o + 1, _mm_unpackhi_epi16 (lo01, lo23));
      _mm_storeu_si128 (o + 2, _mm_unpacklo_epi16 (hi01, hi23));
      _mm_storeu_si128 (o + 3, _mm_unpackhi_epi16 (hi01, hi23));
    }
  } else if (itemsize == 8) {
    for (; e + 16 <= n; e += 16) {
      __m128i b[8], t[8], u[8];
      __m128i *o = (__m128i *) (out + e * 8);

      for (k = 0; k < 8; k++)
        b[k] = _mm_loadu_si128 ((const __m128i *) (in + k * n + e));
      for (k = 0; k < 4; k++) {
        t[2 * k] = _mm_unpacklo_epi8 (b[2 * k], b[2 * k + 1]);
        t[2 * k + 1] = _mm_unpackhi_epi8 (b[2 * k], b[2 * k + 1]);
      }
      /* t[0], t[2], t[4], t[6]: bytes 01, 23, 45, 67 of elements 0-7 */
      for (k = 0; k < 2; k++) {
        u[4 * k] = _mm_unpacklo_epi16 (t[k], t[k + 2]);
        u[4 * k + 1] = _mm_unpackhi_epi16 (t[k], t[k + 2]);
        u[4 * k + 2] = _mm_unpacklo_epi16 (t[k + 4], t[k + 6]);
        u[4 * k + 3] = _mm_unpackhi_epi16 (t[k + 4], t[k + 6]);
      }
      /* u[4k], u[4k+1]: bytes 0-3 of elements 8k..8k+7; u[4k+2], u[4k+3]:
       * bytes 4-7 of the same */
      for (k = 0; k < 2; k++) {
        _mm_storeu_si128 (o + 4 * k, _mm_unpacklo_epi32 (u[4 * k],
                u[4 * k + 2]));
        _mm_storeu_si128 (o + 4 * k + 1, _mm_unpackhi_epi32 (u[4 * k],
                u[4 * k + 2]));
        _mm_storeu_si128 (o + 4 * k + 2, _mm_unpacklo_epi32 (u[4 * k + 1],
                u[4 * k + 3]));
        _mm_storeu_si128 (o + 4 * k + 3, _mm_unpackhi_epi32 (u[4 * k + 1],
                u[4 * k + 3]));
      }
    }
  }
#endif
  for (k = 0; k < itemsize; k++) {
    const guint8 *run = in + k * n;
    gsize i;

    for (i = e; i < n; i++)
      out[i * itemsize + k] = run[i];
  }
  memcpy (out + n * itemsize, in + n * itemsize, size - n * itemsize);
}

/* Undoes the filters of a raw chunk of @size bytes in @a (@b the same room
 * as @a). The result, of exactly @chunk_bytes, is written by the last
 * filter undone into @final where it is given (the reader's memory, which
 * saves a copy), else into @a or @b; returns where it is, or NULL with
 * what failed in @why. */
static guint8 *
decode_chunk (PlanH5Dataset * d, Scratch * sc, guint32 mask, guint8 * a,
    gsize size, guint8 * b, gsize room, gsize chunk_bytes, guint8 * final,
    const gchar ** why)
{
  gint i, last = -1;

  /* Filters are undone from the last applied to the first. */
  for (i = 0; i < (gint) d->n_filters && last < 0; i++)
    if (!(mask & (1u << i)))
      last = i;
  for (i = d->n_filters - 1; i >= 0; i--) {
    gboolean into_final = i == last && final != NULL;
    guint8 *to = into_final ? final : b;

    if (mask & (1u << i))
      continue;                 /* not applied to this chunk */
    if (d->filters[i] == H5Z_FILTER_DEFLATE) {
      z_stream zs = { 0 };
      gint r;

#if HAVE_LIBDEFLATE
      {
        size_t got = 0;

        if (sc->inflater == NULL)
          sc->inflater = libdeflate_alloc_decompressor ();
        if (sc->inflater && libdeflate_zlib_decompress (sc->inflater, a, size,
                to, into_final ? chunk_bytes : room, &got)
            == LIBDEFLATE_SUCCESS) {
          size = got;
          goto undone;
        }
        /* zlib says what is wrong (or reads what libdeflate would not). */
      }
#endif
      if (inflateInit (&zs) != Z_OK) {
        *why = "inflate() failed: no memory";
        return NULL;
      }
      zs.next_in = a;
      zs.avail_in = size;
      zs.next_out = to;
      zs.avail_out = into_final ? chunk_bytes : room;
      r = inflate (&zs, Z_FINISH);
      size = zs.total_out;
      inflateEnd (&zs);
      if (r != Z_STREAM_END) {
        *why = into_final && r == Z_BUF_ERROR ?
            "the chunk decodes to more than a chunk's bytes" :
            "inflate() failed";
        return NULL;
      }
    } else {
      if (size != chunk_bytes) {
        *why = "a shuffled chunk of the wrong size";
        return NULL;
      }
      unshuffle (a, to, size, d->itemsize);
    }
#if HAVE_LIBDEFLATE
  undone:
#endif
    if (into_final) {
      a = final;
    } else {
      guint8 *t = a;
      a = b;
      b = t;
    }
  }
  if (size != chunk_bytes) {
    *why = "the chunk decodes to the wrong size";
    return NULL;
  }
  return a;
}

static Scratch *
take_scratch (PlanH5Dataset * d, gsize room)
{
  Scratch *sc = NULL;

  g_mutex_lock (&d->scratch_lock);
  if (d->scratch) {
    sc = d->scratch->data;
    d->scratch = g_slist_delete_link (d->scratch, d->scratch);
  }
  g_mutex_unlock (&d->scratch_lock);
  if (sc == NULL) {
    sc = g_new0 (Scratch, 1);
    sc->a = g_malloc (room);
    sc->b = g_malloc (room);
  }
  return sc;
}

static void
give_scratch (PlanH5Dataset * d, Scratch * sc)
{
  g_mutex_lock (&d->scratch_lock);
  d->scratch = g_slist_prepend (d->scratch, sc);
  g_mutex_unlock (&d->scratch_lock);
}

/* Reads rows chunk by chunk: each chunk's raw bytes under the library's
 * lock, decoded here outside it, a whole chunk straight into @dest (an
 * unfiltered one read there). A chunk never written (the fill value) is
 * read through libhdf5. */
static gboolean
read_direct (PlanH5Dataset * d, guint64 first, guint64 n_rows, guint8 * dest,
    GError ** error)
{
  gsize chunk_bytes = d->chunk_rows * d->row_size;
  gsize room = chunk_bytes + 64;
  Scratch *sc = take_scratch (d, room);
  guint64 c, end = first + n_rows;
  gboolean ok = TRUE;

  for (c = first / d->chunk_rows; ok && c * d->chunk_rows < end; c++) {
    hsize_t offset[PLAN_ARRAY_MAX_DIMS] = { 0 }, stored = 0;
    guint64 lo = MAX (first, c * d->chunk_rows);
    guint64 hi = MIN (end, (c + 1) * d->chunk_rows);
    guint8 *to = dest + (lo - first) * d->row_size;
    /* The whole chunk is wanted: it is decoded where it goes. */
    gboolean whole = lo == c * d->chunk_rows && hi == (c + 1) * d->chunk_rows;
    const gchar *why = NULL;
    guint32 mask = 0;
    guint8 *out;
    herr_t r = -1;

    offset[0] = c * d->chunk_rows;
    h5_enter ();
    if (H5Dget_chunk_storage_size (d->dset, offset, &stored) >= 0
        && stored > 0 && stored <= room)
      r = H5Dread_chunk (d->dset, H5P_DEFAULT, offset, &mask,
          whole && d->n_filters == 0 && stored == chunk_bytes ? to : sc->a);
    else if (stored > room)
      why = "a raw chunk larger than the chunk itself can be";
    H5Eclear2 (H5E_DEFAULT);
    h5_leave ();
    if (r < 0 && why == NULL) {
      /* Not written: libhdf5 gives the fill value. */
      ok = read_slab (d, lo, hi - lo, to, error);
      continue;
    }
    if (why == NULL && whole && d->n_filters == 0 && stored == chunk_bytes)
      continue;                 /* read in place */
    out = why ? NULL : decode_chunk (d, sc, mask, sc->a, stored, sc->b, room,
        chunk_bytes, whole ? to : NULL, &why);
    if (out == NULL) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "HDF5 cannot read "
          "rows %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT " of its dataset "
          "'%s' (a corrupt chunk, or a filter this libhdf5 lacks?): its "
          "chunk at row %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " bytes) "
          "does not decode: %s", first, end, d->path, (guint64) offset[0],
          (guint64) stored, why);
      ok = FALSE;
      break;
    }
    if (out != to)
      memcpy (to, out + (lo - c * d->chunk_rows) * d->row_size,
          (hi - lo) * d->row_size);
  }
  give_scratch (d, sc);
  return ok;
}

/**
 * _plan_h5_dataset_chunk_offset:
 * @d: an open dataset
 * @chunk: the index of a chunk (chunks of whole rows)
 * @offset: (out): the file offset of its bytes
 *
 * Returns: whether the chunk's bytes are in the file as they are in
 *   memory, at *@offset: the dataset maps its chunks
 *   (_plan_h5_dataset_maps_chunks()) and this one was written. Any
 *   thread.
 */
gboolean
_plan_h5_dataset_chunk_offset (PlanH5Dataset * d, guint64 chunk,
    guint64 * offset)
{
  gboolean ok = FALSE;
#if H5_VERSION_GE(1, 10, 5)
  hsize_t coord[PLAN_ARRAY_MAX_DIMS] = { 0 }, size = 0;
  haddr_t addr = HADDR_UNDEF;
  unsigned filter_mask = 0;

  if (!_plan_h5_dataset_maps_chunks (d))
    return FALSE;
  coord[0] = chunk * d->chunk_rows;
  h5_enter ();
  ok = H5Dget_chunk_info_by_coord (d->dset, coord, &filter_mask, &addr,
      &size) >= 0 && addr != HADDR_UNDEF
      && size == d->chunk_rows * d->row_size;
  H5Eclear2 (H5E_DEFAULT);
  h5_leave ();
  if (ok)
    *offset = addr;
#endif
  return ok;
}

/**
 * _plan_h5_dataset_maps_chunks:
 * @d: an open dataset
 *
 * Returns: whether the dataset's chunks are stored as they are in memory
 *   (whole rows, no filter, the machine's byte order) and large enough
 *   (512 KiB) to be mapped from the file one by one, at
 *   _plan_h5_dataset_chunk_offset().
 */
gboolean
_plan_h5_dataset_maps_chunks (PlanH5Dataset * d)
{
#if H5_VERSION_GE(1, 10, 5)
  return d->direct && d->n_filters == 0
      && d->chunk_rows * d->row_size >= MIN_MAPPED_CHUNK;
#else
  return FALSE;
#endif
}

/**
 * _plan_h5_dataset_decodes_here:
 * @d: an open dataset
 *
 * Returns: whether _plan_h5_dataset_read_rows() decodes its chunks itself
 *   (outside libhdf5's lock), so that several threads read it faster than
 *   one.
 */
gboolean
_plan_h5_dataset_decodes_here (PlanH5Dataset * d)
{
  return d->direct && d->n_filters > 0;
}

/**
 * _plan_h5_dataset_read_rows:
 * @d: an open dataset
 * @first: its first row to read
 * @n_rows: the number of rows
 * @dest: room for them, C order
 * @error: return location for a #GError (without the file's name)
 *
 * Reads a hyperslab of whole rows, converting the file's byte order and
 * undoing its filters. Any thread.
 */
static gboolean read_direct (PlanH5Dataset * d, guint64 first,
    guint64 n_rows, guint8 * dest, GError ** error);

gboolean
_plan_h5_dataset_read_rows (PlanH5Dataset * d, guint64 first, guint64 n_rows,
    guint8 * dest, GError ** error)
{
  if (d->direct && n_rows > 0)
    return read_direct (d, first, n_rows, dest, error);
  return read_slab (d, first, n_rows, dest, error);
}

/* Reads rows through libhdf5, which decodes what it reads. */
static gboolean
read_slab (PlanH5Dataset * d, guint64 first, guint64 n_rows,
    guint8 * dest, GError ** error)
{
  hid_t fspace = -1, mspace = -1;
  herr_t r = -1;
  gchar *why;
  gint i;

  for (i = 0; i < d->ndim; i++)
    if (d->dims[i] == 0)
      return TRUE;
  if (n_rows == 0)
    return TRUE;

  h5_enter ();
  if (d->ndim == 0)
    r = H5Dread (d->dset, d->mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, dest);
  else if (select_rows (d->dset, d->ndim, d->dims, first, n_rows, &fspace,
          &mspace))
    r = H5Dread (d->dset, d->mem_type, mspace, fspace, H5P_DEFAULT, dest);
  if (r < 0) {
    why = h5_error_text ();
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "HDF5 cannot read "
        "rows %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT " of its dataset "
        "'%s' (a corrupt chunk, or a filter this libhdf5 lacks?): %s", first,
        first + n_rows, d->path, why);
    g_free (why);
  }
  if (mspace >= 0)
    H5Sclose (mspace);
  if (fspace >= 0)
    H5Sclose (fspace);
  h5_leave ();
  return r >= 0;
}

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
};

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
      *file_type = half_type ();
      *mem_type = half_type ();
      return *file_type >= 0 && *mem_type >= 0;
    case PLAN_DTYPE_COMPLEX64:
    case PLAN_DTYPE_COMPLEX128:{
      gboolean c64 = dtype == PLAN_DTYPE_COMPLEX64;
      *file_type = h5py_complex_type (c64 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE);
      *mem_type = h5py_complex_type (c64 ? H5T_NATIVE_FLOAT :
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
 * h5_enter () and h5_leave (). */
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
        gchar *why = h5_error_text ();
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
 * @chunk_rows: the rows of a chunk, 0 for about 1 MiB of rows
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
  h5_enter ();
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
    if (chunk_rows == 0)
      chunk_rows = MAX (1, ((gsize) 1 << 20) / MAX (row_size, 1));
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
    cdims[0] = chunk_rows;
    space = H5Screate_simple (info->ndim, w->dims, maxdims);
    H5Pset_chunk (dcpl, info->ndim, cdims);
    if (gzip_level > 0) {
      H5Pset_shuffle (dcpl);
      H5Pset_deflate (dcpl, gzip_level);
    }
  }
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
  why = h5_error_text ();
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "the file there is not "
      "an HDF5 file libhdf5 can open to add a dataset to (%s); it is left as "
      "it is", why);
  g_free (why);
  goto done;
failed:
  why = h5_error_text ();
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "HDF5 cannot create %s: %s",
      w->file < 0 ? "the file" : "the dataset", why);
  g_free (why);
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
  h5_leave ();
  if (!ok) {
    _plan_h5_writer_close (w, NULL);
    w = NULL;
  }
  return w;
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
  hid_t fspace = -1, mspace = -1;
  herr_t r = -1;
  gchar *why;

  if (n_rows == 0)
    return TRUE;
  h5_enter ();
  if (w->ndim == 0) {
    r = H5Dwrite (w->dset, w->mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  } else {
    w->dims[0] += n_rows;
    if (H5Dset_extent (w->dset, w->dims) >= 0
        && select_rows (w->dset, w->ndim, w->dims, w->dims[0] - n_rows,
            n_rows, &fspace, &mspace))
      r = H5Dwrite (w->dset, w->mem_type, mspace, fspace, H5P_DEFAULT, data);
  }
  if (r < 0) {
    why = h5_error_text ();
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "HDF5 cannot write rows "
        "to its dataset '%s': %s", w->path, why);
    g_free (why);
  }
  if (mspace >= 0)
    H5Sclose (mspace);
  if (fspace >= 0)
    H5Sclose (fspace);
  h5_leave ();
  return r >= 0;
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
  h5_enter ();
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
    gchar *why = h5_error_text ();
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "HDF5 did not allocate "
        "the chunks of its dataset '%s': %s", w->path, why);
    g_free (why);
    g_array_unref (out);
    out = NULL;
  }
  H5Eclear2 (H5E_DEFAULT);
  h5_leave ();
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
  h5_enter ();
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
  h5_leave ();
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
  h5_enter ();
  r = H5Dwrite_chunk (w->dset, H5P_DEFAULT, mask, offset, size, data);
  if (r < 0) {
    gchar *why = h5_error_text ();
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "HDF5 cannot write chunk "
        "%" G_GUINT64_FORMAT " of its dataset '%s': %s", index, w->path, why);
    g_free (why);
  }
  h5_leave ();
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
  hid_t fspace = -1, mspace = -1;
  herr_t r = -1;

  if (w->ndim == 0 || first + n_rows > w->dims[0]) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "rows %" G_GUINT64_FORMAT
        "-%" G_GUINT64_FORMAT " are past the end of its dataset '%s'", first,
        first + n_rows, w->path);
    return FALSE;
  }
  if (n_rows == 0)
    return TRUE;
  h5_enter ();
  if (select_rows (w->dset, w->ndim, w->dims, first, n_rows, &fspace,
          &mspace))
    r = H5Dwrite (w->dset, w->mem_type, mspace, fspace, H5P_DEFAULT, data);
  if (r < 0) {
    gchar *why = h5_error_text ();
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "HDF5 cannot write rows "
        "to its dataset '%s': %s", w->path, why);
    g_free (why);
  }
  if (mspace >= 0)
    H5Sclose (mspace);
  if (fspace >= 0)
    H5Sclose (fspace);
  h5_leave ();
  return r >= 0;
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
  gchar *why;

  if (w == NULL)
    return TRUE;
  h5_enter ();
  if (w->mem_type >= 0)
    H5Tclose (w->mem_type);
  if (w->dset >= 0 && H5Dclose (w->dset) < 0)
    ok = FALSE;
  if (w->file >= 0 && H5Fclose (w->file) < 0)
    ok = FALSE;
  if (!ok && error) {
    why = h5_error_text ();
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "HDF5 cannot finish the "
        "file: %s", why);
    g_free (why);
  }
  H5Eclear2 (H5E_DEFAULT);
  h5_leave ();
  g_free (w->path);
  g_free (w);
  return ok;
}
