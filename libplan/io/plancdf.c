/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* One variable of a NetCDF classic file (CDF-1), 64-bit offset file
 * (CDF-2) or 64-bit data file (CDF-5), read by PlanFileReader.
 *
 * The header is parsed here, after the published format specification: the
 * magic, the number of records, the dimensions, the global attributes and
 * the variables (name, dimension ids, attributes, type, size and the offset
 * of the data). All numbers are big-endian; CDF-5 counts in 64 bits.
 *
 * A variable whose first dimension is not the record (unlimited) one lies
 * in one piece at its offset: the reader reads it like a .npy file of
 * big-endian elements. A record variable has one slab per record, and the
 * records follow each other, each holding one slab of every record
 * variable: its rows are read record by record, `row_stride` bytes apart.
 * The values are the file's, byte-swapped to the machine's order:
 * attributes such as _FillValue, scale_factor and add_offset are not
 * applied. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planfilereader-private.h"
#include <libplan/planerror.h>

#include <string.h>

/* The header is read this much at a time. */
#define HEADER_BLOCK ((gsize) 64 << 10)
/* Names are at most this long (the netCDF library's limit is 256 bytes). */
#define MAX_NAME ((guint64) 64 << 10)
/* Records closer than this are read together, this much at a time. */
#define RECORD_GAP ((guint64) 4096)
#define RECORD_SPAN ((gsize) 1 << 20)

#define TAG_DIMENSION 0x0a
#define TAG_VARIABLE 0x0b
#define TAG_ATTRIBUTE 0x0c
#define STREAMING G_MAXUINT64

enum
{
  NC_BYTE = 1, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE, NC_UBYTE,
  NC_USHORT, NC_UINT, NC_INT64, NC_UINT64
};

typedef struct
{
  gchar *name;
  guint64 ndims;
  guint64 *dimids;
  guint32 type;
  guint64 begin;
} Var;

typedef struct
{
  PlanFileReader *self;
  guint64 size;                 /* of the file */
  guint64 pos;                  /* the next header byte */
  guint8 *buf;                  /* the file's bytes buf_start to + buf_len */
  guint64 buf_start;
  gsize buf_len;
  guint version;                /* 1, 2 or 5 */
  GError **error;
} Cursor;

static void
var_clear (gpointer data)
{
  Var *v = data;

  g_free (v->name);
  g_free (v->dimids);
}

/* Whether the file has @n bytes at the cursor; the error set if not. */
static gboolean
has_room (Cursor * c, guint64 n, const gchar * what)
{
  if (n <= c->size && c->pos <= c->size - n)
    return TRUE;
  g_set_error (c->error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its NetCDF header "
      "is truncated: %s at byte %" G_GUINT64_FORMAT " needs %"
      G_GUINT64_FORMAT " bytes, and the file has %" G_GUINT64_FORMAT,
      what, c->pos, n, c->size);
  return FALSE;
}

/* The next @n header bytes, or NULL with the error set. */
static const guint8 *
peek (Cursor * c, guint64 n, const gchar * what)
{
  if (!has_room (c, n, what))
    return NULL;
  if (c->pos < c->buf_start || c->pos + n > c->buf_start + c->buf_len) {
    gsize want = MIN (MAX (n, HEADER_BLOCK), c->size - c->pos);

    c->buf = g_realloc (c->buf, want);
    c->buf_start = c->pos;
    c->buf_len = 0;
    if (!_plan_file_reader_read_full (c->self, c->buf, want, c->pos,
            c->error))
      return NULL;
    c->buf_len = want;
  }
  return c->buf + (c->pos - c->buf_start);
}

static gboolean
skip (Cursor * c, guint64 n, const gchar * what)
{
  if (!has_room (c, n, what))
    return FALSE;
  c->pos += n;
  return TRUE;
}

static gboolean
get_u32 (Cursor * c, guint32 * v, const gchar * what)
{
  const guint8 *p = peek (c, 4, what);

  if (p == NULL)
    return FALSE;
  *v = GUINT32_FROM_BE (*(const guint32 *) (gconstpointer) p);
  c->pos += 4;
  return TRUE;
}

static gboolean
get_u64 (Cursor * c, guint64 * v, const gchar * what)
{
  const guint8 *p = peek (c, 8, what);
  guint64 be;

  if (p == NULL)
    return FALSE;
  memcpy (&be, p, 8);
  *v = GUINT64_FROM_BE (be);
  c->pos += 8;
  return TRUE;
}

/* A count (NON_NEG): 32 bits, or 64 in CDF-5; a negative one is an error. */
static gboolean
get_count (Cursor * c, guint64 * v, const gchar * what)
{
  guint64 at = c->pos;

  if (c->version == 5) {
    if (!get_u64 (c, v, what))
      return FALSE;
    if (*v > G_MAXINT64)
      goto negative;
  } else {
    guint32 v32;

    if (!get_u32 (c, &v32, what))
      return FALSE;
    if (v32 > G_MAXINT32)
      goto negative;
    *v = v32;
  }
  return TRUE;

negative:
  g_set_error (c->error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its NetCDF header is "
      "corrupt: %s at byte %" G_GUINT64_FORMAT " is negative", what, at);
  return FALSE;
}

/* A count of @n entries of at least @min_size bytes each must fit in what
 * is left of the file: what a corrupt count would allocate is bounded. */
static gboolean
check_entries (Cursor * c, guint64 n, guint64 min_size, const gchar * what)
{
  if (n <= (c->size - c->pos) / min_size)
    return TRUE;
  g_set_error (c->error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its NetCDF header "
      "is truncated or corrupt: it says it has %" G_GUINT64_FORMAT " %s at "
      "byte %"
      G_GUINT64_FORMAT ", more than the file of %" G_GUINT64_FORMAT
      " bytes can hold", n, what, c->pos, c->size);
  return FALSE;
}

/* A name: its length, its bytes, padded to 4. */
static gchar *
get_name (Cursor * c, const gchar * what)
{
  guint64 len, at = c->pos;
  const guint8 *p;
  gchar *name;

  gchar *len_what = g_strdup_printf ("the length of %s", what);
  gboolean ok = get_count (c, &len, len_what);

  g_free (len_what);
  if (!ok)
    return NULL;
  if (len == 0 || len > MAX_NAME) {
    g_set_error (c->error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its NetCDF header "
        "is corrupt: %s at byte %" G_GUINT64_FORMAT " is %" G_GUINT64_FORMAT
        " bytes long (names have 1 to %" G_GUINT64_FORMAT ")", what, at, len,
        MAX_NAME);
    return NULL;
  }
  p = peek (c, (len + 3) & ~(guint64) 3, what);
  if (p == NULL)
    return NULL;
  name = g_strndup ((const gchar *) p, len);
  c->pos += (len + 3) & ~(guint64) 3;
  if (strlen (name) != len || !g_utf8_validate (name, -1, NULL)) {
    g_set_error (c->error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its NetCDF header "
        "is corrupt: %s at byte %" G_GUINT64_FORMAT " is not UTF-8 text",
        what, at);
    g_free (name);
    return NULL;
  }
  return name;
}

static guint
type_size (guint32 type)
{
  static const guint sizes[] = { 0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8 };

  return type < G_N_ELEMENTS (sizes) ? sizes[type] : 0;
}

static gboolean
check_type (Cursor * c, guint32 type, guint64 at, const gchar * what,
    const gchar * name)
{
  if (type >= NC_BYTE && (type <= NC_DOUBLE || (c->version == 5
              && type <= NC_UINT64)))
    return TRUE;
  g_set_error (c->error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its NetCDF header "
      "is corrupt: %s '%s' has type %u at byte %" G_GUINT64_FORMAT ", which "
      "is no type of a CDF-%u file", what, name, type, at, c->version);
  return FALSE;
}

/* A list's tag and count; an absent list (two zeros) has count 0. */
static gboolean
get_list (Cursor * c, guint32 tag, guint64 * n, const gchar * what)
{
  guint32 t;
  guint64 at = c->pos;
  gchar *count_what = g_strdup_printf ("the number of entries of %s", what);
  gboolean ok = get_u32 (c, &t, what) && get_count (c, n, count_what);

  g_free (count_what);
  if (!ok)
    return FALSE;
  if (t == tag || (t == 0 && *n == 0))
    return TRUE;
  g_set_error (c->error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its NetCDF header is "
      "corrupt: %s at byte %" G_GUINT64_FORMAT " has tag 0x%x and %"
      G_GUINT64_FORMAT " entries (it should have tag 0x%x, or none)", what,
      at, t, *n, tag);
  return FALSE;
}

/* Skips an attribute list: their values are not used. */
static gboolean
skip_attributes (Cursor * c, const gchar * what)
{
  guint64 n, i;

  if (!get_list (c, TAG_ATTRIBUTE, &n, what)
      || !check_entries (c, n, 12, "attributes"))
    return FALSE;
  for (i = 0; i < n; i++) {
    gchar *name = get_name (c, "an attribute's name");
    guint32 type;
    guint64 at = c->pos, count;
    gboolean ok;

    if (name == NULL)
      return FALSE;
    ok = get_u32 (c, &type, "an attribute's type")
        && check_type (c, type, at, "the attribute", name)
        && get_count (c, &count, "an attribute's number of values");
    if (ok && count > (G_MAXUINT64 - 3) / type_size (type)) {
      g_set_error (c->error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its NetCDF "
          "header is corrupt: the attribute '%s' says it has %"
          G_GUINT64_FORMAT " values", name, count);
      ok = FALSE;
    }
    ok = ok && skip (c, (count * type_size (type) + 3) & ~(guint64) 3,
        "an attribute's values");
    g_free (name);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

static gchar *
join_names (GArray * vars)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < vars->len && i < 20; i++) {
    if (i > 0)
      g_string_append (s, i + 1 == vars->len ? " and " : ", ");
    g_string_append_printf (s, "'%s'", g_array_index (vars, Var, i).name);
  }
  if (vars->len > 20)
    g_string_append_printf (s, " and %u more", vars->len - 20);
  return g_string_free (s, FALSE);
}

/* The variable to read: the one named by the dataset (with or without a
 * leading '/'), or the file's only one. Of two variables of one name (a
 * header no netCDF library writes), the last, as the netCDF library and
 * scipy read it. */
static Var *
choose_var (PlanFileReader * self, GArray * vars, GError ** error)
{
  const gchar *want = self->dataset;
  gchar *names;
  guint i;

  while (want && want[0] == '/')
    want++;
  if (want && want[0] == '\0')
    want = NULL;
  for (i = vars->len; want && i > 0; i--) {
    if (strcmp (g_array_index (vars, Var, i - 1).name, want) == 0)
      return &g_array_index (vars, Var, i - 1);
  }
  if (want == NULL && vars->len == 1)
    return &g_array_index (vars, Var, 0);

  names = join_names (vars);
  if (vars->len == 0)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "it is a "
        "NetCDF classic file with no variables in it");
  else if (want == NULL)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "it holds "
        "%u variables, %s; name the one to read as the dataset", vars->len,
        names);
  else
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "it has no "
        "variable '%s'; its variables are %s", want, names);
  g_free (names);
  return NULL;
}

static const PlanDType dtypes[] = {
  PLAN_DTYPE_UNKNOWN, PLAN_DTYPE_INT8, PLAN_DTYPE_UNKNOWN, PLAN_DTYPE_INT16,
  PLAN_DTYPE_INT32, PLAN_DTYPE_FLOAT32, PLAN_DTYPE_FLOAT64, PLAN_DTYPE_UINT8,
  PLAN_DTYPE_UINT16, PLAN_DTYPE_UINT32, PLAN_DTYPE_INT64, PLAN_DTYPE_UINT64
};

/* The bytes of one record of record variable @v (the product of its other
 * dimensions times its element size), or G_MAXUINT64 when that overflows. */
static guint64
record_slab (const Var * v, const guint64 * dim_len)
{
  guint64 size = type_size (v->type), i;

  for (i = 1; i < v->ndims; i++) {
    guint64 len = dim_len[v->dimids[i]];

    if (len > 0 && size > G_MAXINT64 / len)
      return G_MAXUINT64;
    size *= len;
  }
  return size;
}

gboolean
_plan_file_reader_open_cdf (PlanFileReader * self, guint64 file_size,
    GError ** error)
{
  Cursor c = { self, file_size, 0, NULL, 0, 0, 0, error };
  GArray *vars = g_array_new (FALSE, TRUE, sizeof (Var));
  guint64 *dim_len = NULL;
  gchar **dim_names = NULL;
  guint64 numrecs, n_dims = 0, n_vars, i, j, rec_dim = G_MAXUINT64;
  guint64 recsize = 0, n_rec_vars = 0, first_rec_begin = G_MAXUINT64;
  guint64 rec_end = 0;
  const guint8 *p;
  gboolean ok = FALSE, is_rec;
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  GError *shape_error = NULL;
  Var *v;

  g_array_set_clear_func (vars, var_clear);

  p = peek (&c, 4, "the magic");
  if (p == NULL)
    goto done;
  c.version = p[3];
  if (memcmp (p, "CDF", 3) != 0 || (c.version != 1 && c.version != 2
          && c.version != 5)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "it is not a NetCDF "
        "classic, 64-bit offset or 64-bit data file: it does not start with "
        "'CDF' and version 1, 2 or 5");
    goto done;
  }
  c.pos = 4;

  /* numrecs: STREAMING (all ones) means as many as the file holds. */
  if (c.version == 5) {
    if (!get_u64 (&c, &numrecs, "the number of records"))
      goto done;
    if (numrecs != STREAMING && numrecs > G_MAXINT64)
      goto bad_numrecs;
  } else {
    guint32 n32;

    if (!get_u32 (&c, &n32, "the number of records"))
      goto done;
    numrecs = n32 == G_MAXUINT32 ? STREAMING : n32;
  }

  /* Dimensions: a length of 0 marks the record (unlimited) one. */
  if (!get_list (&c, TAG_DIMENSION, &n_dims, "the dimension list")
      || !check_entries (&c, n_dims, 8, "dimensions"))
    goto done;
  dim_len = g_new0 (guint64, MAX (n_dims, 1));
  dim_names = g_new0 (gchar *, n_dims + 1);
  for (i = 0; i < n_dims; i++) {
    dim_names[i] = get_name (&c, "a dimension's name");
    if (dim_names[i] == NULL
        || !get_count (&c, &dim_len[i], "a dimension's length"))
      goto done;
    if (dim_len[i] == 0 && rec_dim != G_MAXUINT64) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its NetCDF header "
          "is corrupt: it has two record (unlimited) dimensions, '%s' and "
          "'%s'", dim_names[rec_dim], dim_names[i]);
      goto done;
    }
    if (dim_len[i] == 0)
      rec_dim = i;
  }

  if (!skip_attributes (&c, "the global attribute list"))
    goto done;

  if (!get_list (&c, TAG_VARIABLE, &n_vars, "the variable list")
      || !check_entries (&c, n_vars, 24, "variables"))
    goto done;
  for (i = 0; i < n_vars; i++) {
    Var nv = { NULL, 0, NULL, 0, 0 };
    guint64 at, vsize;
    guint32 vsize32;
    guint dsize = c.version == 5 ? 8 : 4;

    g_array_append_val (vars, nv);
    v = &g_array_index (vars, Var, vars->len - 1);
    v->name = get_name (&c, "a variable's name");
    if (v->name == NULL || !get_count (&c, &v->ndims,
            "a variable's number of dimensions")
        || !check_entries (&c, v->ndims, dsize, "dimensions of a variable"))
      goto done;
    v->dimids = g_new0 (guint64, MAX (v->ndims, 1));
    for (j = 0; j < v->ndims; j++) {
      at = c.pos;
      if (!get_count (&c, &v->dimids[j], "a variable's dimension id"))
        goto done;
      if (v->dimids[j] >= n_dims) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its NetCDF "
            "header is corrupt: the variable '%s' has dimension id %"
            G_GUINT64_FORMAT " at byte %" G_GUINT64_FORMAT ", and the file "
            "has %" G_GUINT64_FORMAT " dimensions", v->name, v->dimids[j], at,
            n_dims);
        goto done;
      }
      if (j > 0 && v->dimids[j] == rec_dim) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its NetCDF "
            "header is corrupt: the variable '%s' has the record (unlimited) "
            "dimension '%s' as axis %" G_GUINT64_FORMAT ", and only the first "
            "axis may be", v->name, dim_names[rec_dim], j);
        goto done;
      }
    }
    if (!skip_attributes (&c, "a variable's attribute list"))
      goto done;
    at = c.pos;
    if (!get_u32 (&c, &v->type, "a variable's type")
        || !check_type (&c, v->type, at, "the variable", v->name))
      goto done;
    /* vsize is redundant (and saturates for large variables): the sizes
     * are computed from the dimensions below. */
    if (c.version == 5 ? !get_u64 (&c, &vsize, "a variable's size") :
        !get_u32 (&c, &vsize32, "a variable's size"))
      goto done;
    if (c.version == 1) {
      guint32 b32;

      if (!get_u32 (&c, &b32, "a variable's offset"))
        goto done;
      v->begin = b32;
    } else if (!get_u64 (&c, &v->begin, "a variable's offset"))
      goto done;
    if (v->ndims > 0 && v->dimids[0] == rec_dim) {
      n_rec_vars++;
      first_rec_begin = MIN (first_rec_begin, v->begin);
    }
  }

  v = choose_var (self, vars, error);
  if (v == NULL)
    goto done;
  is_rec = v->ndims > 0 && v->dimids[0] == rec_dim;
  self->member_name = g_strdup (v->name);
  if (v->type == NC_CHAR) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its variable "
        "'%s' holds text (NC_CHAR), not numbers, and is not read as an "
        "array", v->name);
    goto done;
  }
  if (v->ndims > PLAN_ARRAY_MAX_DIMS) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its variable "
        "'%s' has %" G_GUINT64_FORMAT " dimensions; arrays have at most %d",
        v->name, v->ndims, PLAN_ARRAY_MAX_DIMS);
    goto done;
  }

  /* The records: each holds a slab of every record variable, padded to 4
   * bytes, except when there is only one record variable. */
  if (is_rec) {
    for (i = 0; i < vars->len; i++) {
      Var *r = &g_array_index (vars, Var, i);
      guint64 slab;

      if (r->ndims == 0 || r->dimids[0] != rec_dim)
        continue;
      slab = record_slab (r, dim_len);
      /* where the records' data ends: their last record needs no more */
      if (slab != G_MAXUINT64)
        rec_end = r->begin - first_rec_begin > G_MAXUINT64 - slab ?
            G_MAXUINT64 : MAX (rec_end, r->begin - first_rec_begin + slab);
      if (n_rec_vars > 1 && slab != G_MAXUINT64)
        slab = slab > G_MAXUINT64 - 3 ? G_MAXUINT64 : (slab + 3) & ~3;
      if (slab == G_MAXUINT64 || slab > G_MAXINT64 - recsize) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its NetCDF "
            "header is corrupt: the records of its record variables would "
            "be larger than 2^63 bytes");
        goto done;
      }
      recsize += slab;
    }
    if (numrecs == STREAMING)
      numrecs = first_rec_begin >= file_size || recsize == 0 || rec_end == 0
          || file_size - first_rec_begin < rec_end ? 0 :
          (file_size - first_rec_begin - rec_end) / recsize + 1;
  }

  for (i = 0; i < v->ndims; i++)
    shape[i] = i == 0 && is_rec ? (gint64) MIN (numrecs, G_MAXINT64) :
        (gint64) dim_len[v->dimids[i]];
  if (!plan_array_info_set (&self->file_info, dtypes[v->type], v->ndims,
          shape, &shape_error)) {
    /* The file's fault, not a setting's. */
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its variable '%s' "
        "cannot be read: %s", v->name, shape_error->message);
    g_error_free (shape_error);
    goto done;
  }
  self->row_size = plan_array_info_get_row_size (&self->file_info);
  self->file_rows = plan_array_info_get_n_rows (&self->file_info);
  self->data_offset = self->stream_start = v->begin;
  self->npy_layout = type_size (v->type) > 1
      && G_BYTE_ORDER == G_LITTLE_ENDIAN ? PLAN_NPY_LAYOUT_BIG_ENDIAN :
      PLAN_NPY_LAYOUT_NATIVE;
  /* A single record variable's records follow each other: it lies in one
   * piece, like any other variable. */
  self->row_stride = is_rec && recsize != self->row_size ? recsize : 0;

  if (self->file_rows == 0) {
    /* No records: a record variable's offset may lie past the file's
     * end, and nothing is read. */
    self->data_offset = self->stream_start = self->stream_size = 0;
    self->row_stride = 0;
  } else if (self->row_stride == 0) {
    if (v->begin > file_size || (self->row_size > 0 && self->file_rows >
            (file_size - v->begin) / self->row_size)) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its variable '%s' "
          "(%" G_GUINT64_FORMAT " rows of %" G_GSIZE_FORMAT " bytes at byte %"
          G_GUINT64_FORMAT ") does not fit in the file of %" G_GUINT64_FORMAT
          " bytes; it is truncated", v->name, self->file_rows,
          self->row_size, v->begin, file_size);
      goto done;
    }
    self->stream_size = self->file_rows * self->row_size;
  } else {
    /* The last record's slab must be in the file. */
    guint64 fit = v->begin > file_size || file_size - v->begin <
        self->row_size ? 0 :
        (file_size - v->begin - self->row_size) / recsize + 1;

    if (fit < self->file_rows) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its variable '%s' "
          "has %" G_GUINT64_FORMAT " records of %" G_GSIZE_FORMAT " bytes, "
          "one every %" G_GUINT64_FORMAT " bytes from byte %" G_GUINT64_FORMAT
          ", and the file of %" G_GUINT64_FORMAT " bytes holds %"
          G_GUINT64_FORMAT " of them; it is truncated", v->name,
          self->file_rows, self->row_size, recsize, v->begin, file_size, fit);
      goto done;
    }
    self->stream_size = (self->file_rows - 1) * recsize + self->row_size;
  }
  GST_DEBUG_OBJECT (self, "NetCDF CDF-%u variable '%s': %" G_GUINT64_FORMAT
      " rows of %" G_GSIZE_FORMAT " bytes at byte %" G_GUINT64_FORMAT
      ", %" G_GUINT64_FORMAT " bytes apart", c.version, v->name,
      self->file_rows, self->row_size, v->begin, self->row_stride);
  ok = TRUE;
  goto done;

bad_numrecs:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its NetCDF header is "
      "corrupt: the number of records (%" G_GUINT64_FORMAT ") is negative",
      numrecs);
  goto done;
done:
  g_free (c.buf);
  g_free (dim_len);
  g_strfreev (dim_names);
  g_array_unref (vars);
  return ok;
}

/* Reads @n_rows records of the record variable open from file row @row:
 * records close together are read a span at a time, others one by one,
 * each into place. Any thread. */
gboolean
_plan_file_reader_read_records (PlanFileReader * self, guint8 * dest,
    guint64 row, guint64 n_rows, GError ** error)
{
  guint64 stride = self->row_stride, per_span = 1, r;
  gsize size = self->row_size;
  guint8 *span = NULL;
  gboolean ok = TRUE;

  if (stride - size <= RECORD_GAP && stride < RECORD_SPAN)
    per_span = MIN (n_rows, RECORD_SPAN / stride);
  if (per_span > 1) {
    span = g_try_malloc ((per_span - 1) * stride + size);
    if (span == NULL)
      per_span = 1;
  }
  for (r = 0; r < n_rows && ok; r += per_span) {
    guint64 k = MIN (per_span, n_rows - r), i;
    guint64 pos = self->data_offset + (row + r) * stride;

    if (k == 1) {
      ok = _plan_file_reader_read_full (self, dest + r * size, size, pos,
          error);
      continue;
    }
    ok = _plan_file_reader_read_full (self, span, (k - 1) * stride + size,
        pos, error);
    for (i = 0; ok && i < k; i++)
      memcpy (dest + (r + i) * size, span + i * stride, size);
  }
  g_free (span);
  return ok;
}
