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
 * Also what the writing side (planh5-writer.c) shares with it: the lock
 * around libhdf5, its error text, the types of float16 and h5py's complex
 * numbers, a selection of rows. Built only with HDF5 (HAVE_HDF5), into
 * the HDF5 module (planh5-module.c). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/core/plan-private.h"
#include "planh5-private.h"
#include <libplan/planerror.h>

#include <stdlib.h>
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
  /* the file the dataset's bytes are in when it is not @file: a dataset
   * reached through an external link lies in another file, at offsets
   * of that file */
  gchar *elsewhere;
  gint ndim;
  hsize_t dims[PLAN_ARRAY_MAX_DIMS];
  /* what its LZF chunks decode to, where known (lzf_chunk_bytes ()) */
  gsize lzf_bytes;

  /* decoded here: chunks of whole rows, filtered by deflate, LZF and
   * shuffle only, in the machine's byte order */
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

void
_plan_h5_enter (void)
{
  g_rec_mutex_lock (&h5_lock);
  /* HDF5 prints its error stack to stderr unless told not to; the stack
   * is per thread, so each thread is told. */
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
}

void
_plan_h5_leave (void)
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

static herr_t
find_errno (unsigned n, const H5E_error2_t * e, void *data)
{
  gint *err = data;
  const gchar *at = e->desc ? strstr (e->desc, "errno = ") : NULL;

  if (*err == 0 && at != NULL)
    *err = atoi (at + strlen ("errno = "));
  return 0;
}

/* The system's errno that libhdf5's file driver put in a message of this
 * thread's error stack ("errno = 28, error message = 'No space left on
 * device'"), or 0; the stack is left as it is. */
gint
_plan_h5_error_errno (void)
{
  gint err = 0;

  H5Ewalk2 (H5E_DEFAULT, H5E_WALK_UPWARD, find_errno, &err);
  return MAX (err, 0);
}

/* The innermost messages of HDF5's error stack of this thread: where the
 * library found the problem ("truncated file: eof = ...", "can't open
 * object", "filter returned failure during read"). */
gchar *
_plan_h5_error_text (void)
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
  GHashTable *seen;             /* the objects' keys (object_key ()) */
  /* the first object libhdf5 could not open, and why */
  gchar *broken;
  gchar *broken_why;
} VisitData;

/* A key for the object a hard link leads to: its address in the file (a
 * token from libhdf5 1.12 on), the same for every link to it. */
static gchar *
object_key (const H5L_info_t * info)
{
#if defined (H5Lvisit_vers) && H5Lvisit_vers >= 2
  return g_base64_encode ((const guchar *) &info->u.token,
      sizeof (info->u.token));
#else
  return g_strdup_printf ("%" G_GUINT64_FORMAT, (guint64) info->u.address);
#endif
}

/* The text with which the netCDF library names the datasets it makes for
 * NetCDF-4 dimensions that have no variable of their name (HDF5 dimension
 * scales, in the NAME attribute): they hold no data and are no variable
 * of the file, as netCDF4.Dataset(f).variables lists them. */
#define NETCDF_DIMENSION_ONLY \
    "This is a netCDF dimension but not a netCDF variable"

/* Whether the dataset @obj is such a dimension. */
static gboolean
is_netcdf_dimension_only (hid_t obj)
{
  gsize n = strlen (NETCDF_DIMENSION_ONLY);
  gboolean found = FALSE;
  hid_t attr, type = -1;

  if (H5Aexists (obj, "NAME") <= 0)
    return FALSE;
  attr = H5Aopen (obj, "NAME", H5P_DEFAULT);
  if (attr >= 0)
    type = H5Aget_type (attr);
  if (type >= 0 && H5Tget_class (type) == H5T_STRING
      && !H5Tis_variable_str (type) && H5Tget_size (type) >= n) {
    gsize size = H5Tget_size (type);
    gchar *text = g_malloc0 (size + 1);

    found = H5Aread (attr, type, text) >= 0
        && strncmp (text, NETCDF_DIMENSION_ONLY, n) == 0;
    g_free (text);
  }
  if (type >= 0)
    H5Tclose (type);
  if (attr >= 0)
    H5Aclose (attr);
  return found;
}

static herr_t
visit_link (hid_t group, const char *name, const H5L_info_t * info,
    void *data)
{
  VisitData *v = data;
  gchar *key;
  hid_t obj;

  if (info->type != H5L_TYPE_HARD)
    return 0;
  /* A dataset with several hard links is one dataset, listed by the
   * first of its paths in name order, as h5py's visititems() visits it
   * once. */
  key = object_key (info);
  if (!g_hash_table_add (v->seen, key))
    return 0;
  obj = H5Oopen (group, name, H5P_DEFAULT);
  if (obj < 0) {
    if (v->broken == NULL) {
      v->broken = g_strconcat ("/", name, NULL);
      v->broken_why = _plan_h5_error_text ();
    }
    H5Eclear2 (H5E_DEFAULT);
    return 0;
  }
  if (H5Iget_type (obj) == H5I_DATASET && !is_netcdf_dimension_only (obj))
    g_ptr_array_add (v->paths, g_strconcat ("/", name, NULL));
  H5Eclear2 (H5E_DEFAULT);
  H5Oclose (obj);
  return 0;
}

/* The paths of the file's datasets, in name order, each dataset once (by
 * the first of its paths), without NetCDF-4 dimensions that are no
 * variable; in @broken (to free), the first object libhdf5 could not open
 * and why, or %NULL. */
static GPtrArray *
list_datasets (hid_t file, gchar ** broken)
{
  VisitData v = { g_ptr_array_new_with_free_func (g_free),
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL), NULL, NULL
  };

  if (H5Lvisit (file, H5_INDEX_NAME, H5_ITER_INC, visit_link, &v) < 0)
    H5Eclear2 (H5E_DEFAULT);
  g_hash_table_unref (v.seen);
  if (v.broken != NULL)
    *broken = g_strdup_printf ("'%s', which HDF5 cannot open: its object "
        "header is corrupt (%s)", v.broken, v.broken_why);
  g_free (v.broken);
  g_free (v.broken_why);
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

/* Why @path, which is not a dataset of @file, is not one: a group (@type
 * is what it opened as), a link that leads nowhere, or nothing there. */
static gchar *
describe_missing (hid_t file, const gchar * path, H5I_type_t type)
{
  H5L_info_t info;
  gchar *what = NULL, *val = NULL;

  if (type != H5I_BADID)
    return g_strdup_printf ("'%s' is a %s, not a dataset", path,
        type == H5I_GROUP ? "group" : "named datatype");
  if (H5Lexists (file, path, H5P_DEFAULT) > 0
      && H5Lget_info (file, path, &info, H5P_DEFAULT) >= 0
      && info.type != H5L_TYPE_HARD && info.u.val_size > 0
      && info.u.val_size < (1 << 20)) {
    val = g_malloc0 (info.u.val_size + 1);
    if (H5Lget_val (file, path, val, info.u.val_size, H5P_DEFAULT) < 0)
      g_clear_pointer (&val, g_free);
  }
  H5Eclear2 (H5E_DEFAULT);
  if (val && info.type == H5L_TYPE_SOFT) {
    what = g_strdup_printf ("'%s' is a soft link to '%s', which is not in "
        "the file", path, val);
  } else if (val && info.type == H5L_TYPE_EXTERNAL) {
    const char *target_file = NULL, *target_path = NULL;
    unsigned flags;

    if (H5Lunpack_elink_val (val, info.u.val_size, &flags, &target_file,
            &target_path) >= 0 && target_file && target_path) {
      /* the reason libhdf5 gives when it follows the link */
      hid_t obj = H5Oopen (file, path, H5P_DEFAULT);
      gchar *why;

      if (obj >= 0)
        H5Oclose (obj);
      why = _plan_h5_error_text ();
      what = g_strdup_printf ("'%s' is an external link to '%s' in '%s', "
          "which HDF5 cannot open (%s)", path, target_path, target_file, why);
      g_free (why);
    }
    H5Eclear2 (H5E_DEFAULT);
  }
  g_free (val);
  return what ? what : g_strdup_printf ("it has no dataset '%s'", path);
}

/* Which dataset to open: @path, or the file's only one. */
static gchar *
choose_dataset (hid_t file, const gchar * path, GError ** error)
{
  GPtrArray *paths;
  gchar *names, *chosen = NULL, *broken = NULL;
  hid_t obj = -1;
  H5I_type_t type = H5I_BADID;

  if (path) {
    gboolean exists = H5Lexists (file, path, H5P_DEFAULT) > 0;
    H5L_info_t link;

    if (exists && (obj = H5Oopen (file, path, H5P_DEFAULT)) >= 0) {
      type = H5Iget_type (obj);
      H5Oclose (obj);
    } else if (exists && H5Lget_info (file, path, &link, H5P_DEFAULT) >= 0
        && link.type == H5L_TYPE_HARD) {
      /* Named in its group, but its object header does not decode: not
       * a missing dataset (the list of the file's datasets leaves it
       * out). A soft or external link to nothing is described below. */
      gchar *why = _plan_h5_error_text ();

      g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its group names "
          "'%s', but HDF5 cannot open it: its object header is corrupt "
          "(%s)", path, why);
      g_free (why);
      H5Eclear2 (H5E_DEFAULT);
      return NULL;
    }
    H5Eclear2 (H5E_DEFAULT);
    if (type == H5I_DATASET)
      return path[0] == '/' ? g_strdup (path) : g_strconcat ("/", path, NULL);
  }

  paths = list_datasets (file, &broken);
  if (path == NULL && paths->len == 1) {
    chosen = g_strdup (g_ptr_array_index (paths, 0));
    g_ptr_array_unref (paths);
    g_free (broken);
    return chosen;
  }
  names = paths->len > 0 ? join_paths (paths) : NULL;
  if (path == NULL && names == NULL && broken != NULL)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "it holds no dataset "
        "HDF5 can open, and an object %s", broken);
  else if (path == NULL && names == NULL)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "it is an "
        "HDF5 file with no datasets in it");
  else if (path == NULL)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "it holds "
        "%u datasets, %s; name the one to read as the dataset", paths->len,
        names);
  else {
    gchar *what = describe_missing (file, path, type);

    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "%s; %s%s",
        what, names ? "its datasets are " : "the file holds no datasets",
        names ? names : "");
    g_free (what);
  }
  g_free (names);
  g_free (broken);
  g_ptr_array_unref (paths);
  return NULL;
}

/* The value of member @i of the enum @type as a native integer. */
static gboolean
enum_member_value (hid_t type, hid_t base, guint i, gint64 * value)
{
  guint8 buf[16] = { 0 };

  if (H5Tget_size (base) > 8 || H5Tget_member_value (type, i, buf) < 0
      || H5Tconvert (base, H5T_NATIVE_INT64, 1, buf, NULL, H5P_DEFAULT) < 0)
    return FALSE;
  memcpy (value, buf, sizeof (gint64));
  return TRUE;
}

/* h5py's bool: an enum of two members, FALSE = 0 and TRUE = 1, in either
 * order. h5py writes it over int8, and reads it as bool over any integer
 * (an enum of int16 or uint8 so named is bool to h5py too). */
static gboolean
is_h5py_bool (hid_t type)
{
  hid_t base = H5Tget_super (type);
  gboolean ok = base >= 0 && H5Tget_class (base) == H5T_INTEGER
      && H5Tget_nmembers (type) == 2;
  guint i, seen = 0;

  for (i = 0; ok && i < 2; i++) {
    gchar *name = H5Tget_member_name (type, i);
    gint64 v = -1;

    ok = name && enum_member_value (type, base, i, &v)
        && ((strcmp (name, "FALSE") == 0 && v == 0)
        || (strcmp (name, "TRUE") == 0 && v == 1));
    seen |= ok ? 1u << v : 0;
    H5free_memory (name);
  }
  if (base >= 0)
    H5Tclose (base);
  H5Eclear2 (H5E_DEFAULT);
  return ok && seen == 3;
}

/* The memory type a bool dataset is read into: the file's enum in the
 * machine's order where it is one byte wide, else h5py's own (FALSE = 0,
 * TRUE = 1 over int8), which libhdf5 converts enums to by their names. */
static hid_t
bool_mem_type (hid_t type)
{
  hid_t t;
  gint8 v;

  if (H5Tget_size (type) == 1)
    return H5Tget_native_type (type, H5T_DIR_ASCEND);
  t = H5Tenum_create (H5T_NATIVE_INT8);
  v = 0;
  if (t >= 0 && H5Tenum_insert (t, "FALSE", &v) >= 0) {
    v = 1;
    if (H5Tenum_insert (t, "TRUE", &v) >= 0)
      return t;
  }
  if (t >= 0)
    H5Tclose (t);
  return -1;
}

/* Whether a float type is IEEE binary16, binary32 or binary64 (by its
 * size), in either byte order: the sign, exponent and mantissa where IEEE
 * puts them, IEEE's exponent bias, an implied leading mantissa bit, and
 * every bit of its size used. Another float of one of those sizes
 * (bfloat16; a 4-byte float of another exponent bias, whose values reach
 * beyond float32's range) would be converted by libhdf5 with its values
 * changed: infinities for the large ones, zeros for the small. */
static gboolean
is_ieee_float (hid_t type)
{
  static const struct
  {
    gsize size, epos, esize, msize, ebias;
  } ieee[] = {
    {2, 10, 5, 10, 15}, {4, 23, 8, 23, 127}, {8, 52, 11, 52, 1023}
  };
  size_t size = H5Tget_size (type), spos, epos, esize, mpos, msize;
  gboolean ok = FALSE;
  guint i;

  if (H5Tget_class (type) != H5T_FLOAT
      || H5Tget_fields (type, &spos, &epos, &esize, &mpos, &msize) < 0)
    goto done;
  for (i = 0; i < G_N_ELEMENTS (ieee); i++)
    if (ieee[i].size == size)
      ok = spos == size * 8 - 1 && epos == ieee[i].epos
          && esize == ieee[i].esize && mpos == 0 && msize == ieee[i].msize
          && H5Tget_ebias (type) == ieee[i].ebias
          && H5Tget_norm (type) == H5T_NORM_IMPLIED
          && H5Tget_precision (type) == size * 8 && H5Tget_offset (type) == 0;
done:
  H5Eclear2 (H5E_DEFAULT);
  return ok;
}

/* h5py's complex numbers: a compound of two floats of one size, "r" first
 * and "i" second (h5py writes them packed, r at 0 and i after it, and
 * reads them as complex at any offsets, padded too). Returns the size of
 * a part, or 0 for another type. */
static gsize
h5py_complex_part_size (hid_t type)
{
  gsize size = 0;
  gchar *n0 = NULL, *n1 = NULL;
  gboolean ok = H5Tget_nmembers (type) == 2
      && H5Tget_member_class (type, 0) == H5T_FLOAT
      && H5Tget_member_class (type, 1) == H5T_FLOAT;
  guint i;

  for (i = 0; ok && i < 2; i++) {
    hid_t m = H5Tget_member_type (type, i);
    gsize msize = m >= 0 ? H5Tget_size (m) : 0;

    ok = (msize == 4 || msize == 8) && (i == 0 || msize == size)
        && is_ieee_float (m);
    size = msize;
    if (m >= 0)
      H5Tclose (m);
  }
  n0 = ok ? H5Tget_member_name (type, 0) : NULL;
  n1 = ok ? H5Tget_member_name (type, 1) : NULL;
  ok = ok && n0 && n1 && strcmp (n0, "r") == 0 && strcmp (n1, "i") == 0;
  H5free_memory (n0);
  H5free_memory (n1);
  H5Eclear2 (H5E_DEFAULT);
  return ok ? size : 0;
}

/* h5py's complex type over the float type @part. */
hid_t
_plan_h5py_complex_type (hid_t part)
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
hid_t
_plan_h5_half_type (void)
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
  } else if (c == H5T_FLOAT && (size == 4 || size == 8)
      && is_ieee_float (type)) {
    *dtype = size == 4 ? PLAN_DTYPE_FLOAT32 : PLAN_DTYPE_FLOAT64;
    *mem_type = H5Tcopy (size == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE);
  } else if (c == H5T_FLOAT && size == 2 && is_ieee_float (type)) {
    *dtype = PLAN_DTYPE_FLOAT16;
    *mem_type = _plan_h5_half_type ();
  } else if (c == H5T_ENUM && is_h5py_bool (type)) {
    *dtype = PLAN_DTYPE_BOOL;
    *mem_type = bool_mem_type (type);
  } else if (c == H5T_COMPOUND && h5py_complex_part_size (type)) {
    gboolean c64 = h5py_complex_part_size (type) == 4;
    *dtype = c64 ? PLAN_DTYPE_COMPLEX64 : PLAN_DTYPE_COMPLEX128;
    *mem_type = _plan_h5py_complex_type (c64 ? H5T_NATIVE_FLOAT :
        H5T_NATIVE_DOUBLE);
  } else if (c == H5T_FLOAT) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its elements "
        "are %" G_GSIZE_FORMAT "-byte floats%s, which gst-plan does not "
        "support; convert the dataset to float16, float32 or float64",
        size, size == 2 ? " that are not IEEE binary16 (bfloat16?)" :
        size == 4 ? " that are not IEEE binary32 (another exponent bias or "
        "layout, whose values float32 cannot all hold)" :
        size == 8 ? " that are not IEEE binary64 (another exponent bias or "
        "layout, whose values float64 cannot all hold)" : "");
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
    gchar *why = _plan_h5_error_text ();
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "cannot read its "
        "shape: %s", why);
    g_free (why);
  } else if (ndim > PLAN_ARRAY_MAX_DIMS) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "it has %d axes;"
        " at most %d are supported", ndim, PLAN_ARRAY_MAX_DIMS);
  } else {
    hsize_t max[PLAN_ARRAY_MAX_DIMS];
    gint i;

    d->ndim = ndim;
    H5Sget_simple_extent_dims (space, d->dims, max);
    ok = TRUE;
    /* An extent beyond the dataset's maximum is no dataset libhdf5
     * writes: a corrupt dataspace, whose rows (never written, read as
     * the fill value) could number 2^56. */
    for (i = 0; ok && i < ndim; i++) {
      if (max[i] != H5S_UNLIMITED && d->dims[i] > max[i]) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its dataspace "
            "is corrupt: axis %d has %" G_GUINT64_FORMAT " elements, more "
            "than its maximum of %" G_GUINT64_FORMAT, i,
            (guint64) d->dims[i], (guint64) max[i]);
        ok = FALSE;
      }
    }
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

  /* (Divided, not multiplied: 2^31 rows of 8 GiB would wrap to 0.) */
  if (dcpl >= 0 && d->ndim > 0 && H5Pget_layout (dcpl) == H5D_CHUNKED
      && H5Pget_chunk (dcpl, d->ndim, cdims) == d->ndim && row_size > 0
      && cdims[0] <= MAX_ALIGNED_BLOCK / row_size)
    rows = MAX (cdims[0], 1);
  if (dcpl >= 0)
    H5Pclose (dcpl);
  return rows;
}

/* Whether the dataset's chunks can be decoded here: chunked in whole rows
 * of at most 256 MiB, filtered by deflate, LZF and shuffle only, stored in the
 * machine's byte order. Must be called between _plan_h5_enter () and
 * _plan_h5_leave (). */
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
      || d->row_size == 0 || cdims[0] > MAX_ALIGNED_BLOCK / d->row_size)
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

    if (f != H5Z_FILTER_DEFLATE && f != H5Z_FILTER_SHUFFLE
        && f != PLAN_H5_FILTER_LZF)
      goto done;
    if (f == H5Z_FILTER_SHUFFLE && n_cd >= 1 && cd[0] != d->itemsize)
      goto done;
    d->filters[i] = f;
  }
  /* LZF with shuffle at most: each decodes to a chunk's bytes exactly. */
  if (n == 2 && d->filters[0] != H5Z_FILTER_SHUFFLE
      && d->filters[1] != H5Z_FILTER_SHUFFLE)
    goto done;
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
  _plan_h5_enter ();
  if (d->mem_type >= 0)
    H5Tclose (d->mem_type);
  if (d->dset >= 0)
    H5Dclose (d->dset);
  if (d->file >= 0)
    H5Fclose (d->file);
  H5Eclear2 (H5E_DEFAULT);
  _plan_h5_leave ();
  g_free (d->path);
  g_free (d->elsewhere);
  g_free (d);
}

/* Whether libhdf5 has every filter of the dataset's stored chunks (h5py's
 * LZF it has from planh5-lzf.c): one it lacks (a plugin's blosc or zstd
 * not installed) is named
 * here, at the start, rather than by libhdf5's plugin search when the
 * first chunk is read. A dataset with no chunk stored reads as its fill
 * value and needs none. Under _plan_h5_enter (). */
static gboolean
check_filters (PlanH5Dataset * d, GError ** error)
{
  hid_t dcpl = H5Dget_create_plist (d->dset);
  gint i, n = dcpl >= 0 ? H5Pget_nfilters (dcpl) : 0;
  gboolean ok = TRUE;

  for (i = 0; i < n && ok && H5Dget_storage_size (d->dset) > 0; i++) {
    unsigned flags = 0, cd[8];
    size_t n_cd = G_N_ELEMENTS (cd);
    char name[64] = "";
    H5Z_filter_t f = H5Pget_filter2 (dcpl, i, &flags, &n_cd, cd,
        sizeof name, name, NULL);

    if (f < 0 || H5Zfilter_avail (f) > 0)
      continue;
    name[sizeof name - 1] = '\0';
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its chunks are "
        "stored through the HDF5 filter %d%s%s%s, which this libhdf5 does "
        "not have (blosc, zstd and others are plugins, found in "
        "HDF5_PLUGIN_PATH); rewrite the dataset with gzip, lzf or without "
        "compression", (gint) f, name[0] ? " '" : "", name,
        name[0] ? "'" : "");
    ok = FALSE;
  }
  if (dcpl >= 0)
    H5Pclose (dcpl);
  H5Eclear2 (H5E_DEFAULT);
  return ok;
}

#if H5_VERSION_GE(1, 10, 5)
/* The number of bytes the deflate stream @in decodes to, counted through
 * a small window (nothing of the chunk is kept), or -1 where it is not a
 * whole zlib stream; counting stops past @limit (a size past it is all
 * the caller needs to know). */
static gint64
inflated_size (const guint8 * in, gsize n_in, guint64 limit)
{
  guint8 window[16384];
  z_stream zs = { 0 };
  gint r = Z_OK;

  if (inflateInit (&zs) != Z_OK)
    return -1;
  zs.next_in = (guint8 *) in;
  zs.avail_in = n_in;
  while (r == Z_OK) {
    zs.next_out = window;
    zs.avail_out = sizeof window;
    r = inflate (&zs, Z_NO_FLUSH);
    if (r == Z_BUF_ERROR && zs.avail_out == sizeof window)
      break;                    /* no progress: the stream is cut short */
    if (r == Z_BUF_ERROR)
      r = Z_OK;
    if (r == Z_OK && zs.total_out > limit)
      break;
  }
  inflateEnd (&zs);
  return r == Z_STREAM_END || zs.total_out > limit ?
      (gint64) zs.total_out : -1;
}
#endif

/* Checks the first chunk stored against the chunk shape of the dataset's
 * layout: its bytes, undone through the filters whose sizes are known
 * here (deflate, LZF, shuffle, Fletcher-32), must be a chunk's bytes
 * exactly. libhdf5 1.10 does not check it: a chunk shape changed in a
 * damaged layout message made it read past its buffers (a crash) or leave
 * part of them unset (values that were never in the file). The shape is
 * the layout's, one for every chunk, so one chunk shows a wrong one. Under
 * _plan_h5_enter (). */
static gboolean
check_chunk_shape (PlanH5Dataset * d, hid_t type, GError ** error)
{
  gboolean ok = TRUE;
#if H5_VERSION_GE(1, 10, 5)
  hid_t dcpl = H5Dget_create_plist (d->dset), space = -1;
  hsize_t cdims[PLAN_ARRAY_MAX_DIMS], offset[PLAN_ARRAY_MAX_DIMS], n = 0;
  hsize_t stored = 0, at_offset = 0;
  haddr_t addr = HADDR_UNDEF;
  unsigned mask = 0;
  guint64 chunk_bytes = H5Tget_size (type), expected = 0, in_size;
  gint i, n_filters, packer = -1;
  guint n_before = 0, n_after = 0;
  guint8 *raw = NULL, *out = NULL;
  gint64 got = -1;
  const gchar *why = NULL;

  if (dcpl < 0 || d->ndim == 0 || H5Pget_layout (dcpl) != H5D_CHUNKED
      || H5Pget_chunk (dcpl, d->ndim, cdims) != d->ndim)
    goto done;
  for (i = 0; i < d->ndim; i++)
    if (!g_uint64_checked_mul (&chunk_bytes, chunk_bytes, cdims[i]))
      chunk_bytes = G_MAXUINT64;
  space = H5Dget_space (d->dset);
  if (space < 0 || H5Dget_num_chunks (d->dset, space, &n) < 0 || n == 0
      || H5Dget_chunk_info (d->dset, space, 0, offset, &mask, &addr,
          &stored) < 0 || addr == HADDR_UNDEF)
    goto done;                  /* nothing stored: the fill value */
  /* What H5Dread_chunk () reads there: the chunk the index finds at its
   * coordinates, which is another one in a damaged index. */
  if (H5Dget_chunk_storage_size (d->dset, offset, &at_offset) < 0
      || at_offset != stored) {
    why = "index";
    goto done;
  }
  /* Fletcher-32 adds 4 bytes; deflate or LZF (one of them) packs. */
  n_filters = H5Pget_nfilters (dcpl);
  for (i = 0; i < n_filters; i++) {
    unsigned flags, cd[8];
    size_t n_cd = G_N_ELEMENTS (cd);
    H5Z_filter_t f = H5Pget_filter2 (dcpl, i, &flags, &n_cd, cd, 0, NULL,
        NULL);

    if (mask & (1u << i))
      continue;                 /* not applied to this chunk */
    if (f == H5Z_FILTER_FLETCHER32) {
      if (packer < 0)
        n_before++;
      else
        n_after++;
    } else if ((f == H5Z_FILTER_DEFLATE || f == PLAN_H5_FILTER_LZF)
        && packer < 0) {
      packer = f;
    } else if (f != H5Z_FILTER_SHUFFLE) {
      goto done;                /* a filter whose sizes are not known here */
    }
  }
  expected = chunk_bytes + 4 * n_before;
  if (packer < 0) {
    if (stored != expected + 4 * n_after)
      why = "stored";
    goto done;
  }
  /* A packed chunk is at most a little larger than its bytes. */
  if (stored < 4 * n_after || stored > expected + expected / 8 + 4096) {
    why = "stored";
    goto done;
  }
  in_size = stored - 4 * n_after;
  if (packer == PLAN_H5_FILTER_LZF && expected > (64 << 20))
    goto done;                  /* not decoded here only to be checked */
  raw = g_try_malloc (MAX (stored, 1));
  if (raw == NULL)
    goto done;
  if (H5Dread_chunk (d->dset, H5P_DEFAULT, offset, &mask, raw) < 0)
    goto done;                  /* libhdf5 says what is wrong when read */
  if (packer == H5Z_FILTER_DEFLATE) {
    got = inflated_size (raw, in_size, expected);
  } else if ((out = g_try_malloc (expected + 1)) != NULL) {
    gsize n_out = 0;
    const gchar *lzf_why = NULL;

    if (_plan_h5_lzf_decode (raw, in_size, out, expected + 1, &n_out,
            &lzf_why) == PLAN_LZF_OK)
      got = n_out;
  } else {
    goto done;
  }
  if (got < 0)
    why = "decoded";            /* libhdf5's read says what is wrong */
  else if ((guint64) got != expected)
    why = "decodes";

done:
  if (g_strcmp0 (why, "index") == 0) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its chunk index is "
        "corrupt: its first stored chunk has %" G_GUINT64_FORMAT " bytes, "
        "but the chunk found at its place has %" G_GUINT64_FORMAT,
        (guint64) stored, (guint64) at_offset);
    ok = FALSE;
  } else if (why != NULL && g_strcmp0 (why, "decoded") != 0) {
    GString *shape = g_string_new (NULL);
    gboolean has = g_strcmp0 (why, "stored") == 0;
    gboolean more = !has && (guint64) got > expected;

    for (i = 0; i < d->ndim; i++)
      g_string_append_printf (shape, "%s%" G_GUINT64_FORMAT, i ? ", " : "",
          (guint64) cdims[i]);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its layout gives "
        "chunks of shape (%s%s), %" G_GUINT64_FORMAT " bytes, but its first "
        "stored chunk %s %" G_GINT64_FORMAT " bytes: the layout or the "
        "chunk index is corrupt", shape->str, d->ndim == 1 ? "," : "",
        chunk_bytes, has ? "has" : more ? "decodes to more than" :
        "decodes to", has ? (gint64) (stored - 4 * (n_before + n_after)) :
        more ? (gint64) expected : got);
    g_string_free (shape, TRUE);
    ok = FALSE;
  }
  g_free (raw);
  g_free (out);
  if (space >= 0)
    H5Sclose (space);
  if (dcpl >= 0)
    H5Pclose (dcpl);
  H5Eclear2 (H5E_DEFAULT);
#endif
  return ok;
}

/* The bytes each LZF-filtered chunk of the dataset decodes to: a chunk's
 * bytes where LZF is applied to the chunk as it is or shuffled; 0 where
 * another filter before it changes the size (scale-offset, n-bit) or
 * there is no LZF. Under _plan_h5_enter (). */
static gsize
lzf_chunk_bytes (PlanH5Dataset * d, hid_t type)
{
  hid_t dcpl = H5Dget_create_plist (d->dset);
  hsize_t cdims[PLAN_ARRAY_MAX_DIMS];
  gint i, n = dcpl >= 0 ? H5Pget_nfilters (dcpl) : 0;
  gsize bytes = 0;

  for (i = 0; i < n; i++) {
    unsigned flags = 0, cd[8];
    size_t n_cd = G_N_ELEMENTS (cd);
    H5Z_filter_t f = H5Pget_filter2 (dcpl, i, &flags, &n_cd, cd, 0, NULL,
        NULL);

    if (f == PLAN_H5_FILTER_LZF && d->ndim > 0
        && H5Pget_chunk (dcpl, d->ndim, cdims) == d->ndim) {
      gint k;

      bytes = H5Tget_size (type);
      for (k = 0; k < d->ndim; k++)
        if (!g_size_checked_mul (&bytes, bytes, cdims[k]))
          bytes = 0;
      break;
    }
    if (f != H5Z_FILTER_SHUFFLE)
      break;
  }
  if (dcpl >= 0)
    H5Pclose (dcpl);
  H5Eclear2 (H5E_DEFAULT);
  return bytes;
}

/* The name of the file the dataset's bytes lie in, when it is another file
 * than the one opened (a dataset reached through an external link), or
 * %NULL. Such a dataset is read through libhdf5 only: the offsets libhdf5
 * gives for its data are offsets in that file. Must be called between
 * _plan_h5_enter () and _plan_h5_leave (). */
static gchar *
dataset_elsewhere (PlanH5Dataset * d)
{
  hid_t fid = H5Iget_file_id (d->dset);
  gchar *name = NULL;

  if (fid >= 0 && fid != d->file) {
    ssize_t n = H5Fget_name (fid, NULL, 0);

    name = g_malloc0 (MAX (n, 0) + 1);
    if (n <= 0 || H5Fget_name (fid, name, n + 1) < 0)
      strcpy (name, "another file");
  }
  if (fid >= 0)
    H5Fclose (fid);
  H5Eclear2 (H5E_DEFAULT);
  return name;
}

/**
 * _plan_h5_dataset_get_elsewhere:
 * @d: an open dataset
 *
 * Returns: (nullable): the name of the file the dataset's bytes are in
 *   when it is not the file opened (an external link leads to it), or
 *   %NULL.
 */
const gchar *
_plan_h5_dataset_get_elsewhere (PlanH5Dataset * d)
{
  return d->elsewhere;
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
  _plan_h5_enter ();
  _plan_h5_lzf_register ();
  d->file = H5Fopen (filename, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (d->file < 0)
    goto not_opened;
  d->path = choose_dataset (d->file, path, error);
  if (d->path == NULL)
    goto done;
  d->dset = H5Dopen2 (d->file, d->path, H5P_DEFAULT);
  if (d->dset < 0)
    goto not_opened;
  d->elsewhere = dataset_elsewhere (d);
  type = H5Dget_type (d->dset);
  if (type < 0 || !map_type (type, &dtype, &d->mem_type, &native, error)
      || !read_shape (d, error))
    goto in_dataset;
  for (i = 0; i < d->ndim; i++)
    shape[i] = d->dims[i];
  if (!plan_array_info_set (info, dtype, d->ndim, shape, error)
      || !check_filters (d, error) || !check_chunk_shape (d, type, error))
    goto in_dataset;
  *align_rows = chunk_rows (d, plan_array_info_get_row_size (info));
  d->lzf_bytes = lzf_chunk_bytes (d, type);
  d->row_size = plan_array_info_get_row_size (info);
  d->itemsize = plan_dtype_get_size (dtype);
  check_direct (d, native);

  *data_offset = G_MAXUINT64;
  dcpl = H5Dget_create_plist (d->dset);
  if (native && d->elsewhere == NULL && dcpl >= 0
      && H5Pget_layout (dcpl) == H5D_CONTIGUOUS
      && H5Pget_nfilters (dcpl) == 0 && H5Dget_offset (d->dset) != HADDR_UNDEF)
    *data_offset = H5Dget_offset (d->dset);
  if (dcpl >= 0)
    H5Pclose (dcpl);
  H5Eclear2 (H5E_DEFAULT);
  ok = TRUE;
  goto done;

not_opened:
  why = _plan_h5_error_text ();
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
  _plan_h5_leave ();
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
 * between _plan_h5_enter () and _plan_h5_leave (). */
gboolean
_plan_h5_select_rows (hid_t dset, gint ndim, const hsize_t * dims,
    guint64 first, guint64 n_rows, hid_t * fspace, hid_t * mspace)
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
    } else if (d->filters[i] == PLAN_H5_FILTER_LZF) {
      gsize got = 0;

      switch (_plan_h5_lzf_decode (a, size, to, into_final ? chunk_bytes :
              room, &got, why)) {
        case PLAN_LZF_OK:
          size = got;
          if (size != chunk_bytes) {
            *why = "LZF: the chunk decodes to fewer bytes than a chunk has";
            return NULL;
          }
          break;
        case PLAN_LZF_FULL:
          *why = "LZF: the chunk decodes to more than a chunk's bytes";
          return NULL;
        default:
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
    _plan_h5_enter ();
    if (H5Dget_chunk_storage_size (d->dset, offset, &stored) >= 0
        && stored > 0 && stored <= room)
      r = H5Dread_chunk (d->dset, H5P_DEFAULT, offset, &mask,
          whole && d->n_filters == 0 && stored == chunk_bytes ? to : sc->a);
    else if (stored > room)
      why = "a raw chunk larger than the chunk itself can be";
    H5Eclear2 (H5E_DEFAULT);
    _plan_h5_leave ();
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
  _plan_h5_enter ();
  ok = H5Dget_chunk_info_by_coord (d->dset, coord, &filter_mask, &addr,
      &size) >= 0 && addr != HADDR_UNDEF
      && size == d->chunk_rows * d->row_size;
  H5Eclear2 (H5E_DEFAULT);
  _plan_h5_leave ();
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
  return d->direct && d->n_filters == 0 && d->elsewhere == NULL
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

  _plan_h5_enter ();
  _plan_h5_lzf_expect (d->lzf_bytes);
  if (d->ndim == 0)
    r = H5Dread (d->dset, d->mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, dest);
  else if (_plan_h5_select_rows (d->dset, d->ndim, d->dims, first, n_rows,
          &fspace, &mspace))
    r = H5Dread (d->dset, d->mem_type, mspace, fspace, H5P_DEFAULT, dest);
  _plan_h5_lzf_expect (0);
  if (r < 0) {
    why = _plan_h5_error_text ();
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
  _plan_h5_leave ();
  return r >= 0;
}
