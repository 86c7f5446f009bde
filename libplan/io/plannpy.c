/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:plannpy
 * @title: .npy headers
 * @short_description: read and write the header of NumPy .npy files
 *
 * A .npy file is a small header followed by the array data. The header is
 * the magic string #PLAN_NPY_MAGIC, a major and minor version byte, the
 * length of a text header (two bytes little-endian in version 1.0, four in
 * 2.0 and 3.0), and the text itself: a Python dict literal such as
 *
 * |[
 * {'descr': '<f4', 'fortran_order': False, 'shape': (1000, 3), }
 * ]|
 *
 * padded with spaces and ended by a newline so that the data starts at a
 * multiple of #PLAN_NPY_ALIGN bytes.
 *
 * libplan reads versions 1.0, 2.0 and 3.0 (3.0 only differs in allowing
 * UTF-8 in the text, which a supported header never needs) of arrays in C
 * order with a little-endian (or single-byte) dtype of #PlanDType. Fortran
 * order with more than one axis, big-endian, object, structured and any
 * other dtype are reported as %PLAN_ERROR_UNSUPPORTED; malformed headers,
 * wrong magic, absurd lengths and shapes as %PLAN_ERROR_FORMAT.
 *
 * Besides numpy's three keys, a header may hold a `rate`: the rows per
 * second of an array sampled in time, a quoted fraction such as `'1000/1'`
 * or a positive number such as `1000` or `44100.0`. plan_npy_parse_header()
 * stores it in the #PlanArrayInfo; a rate that is not a positive number is
 * %PLAN_ERROR_FORMAT, and so is any other key. plan_npy_write_header() never
 * writes it: numpy refuses to load a header with a key it does not know.
 *
 * plan_npy_write_header() writes a version 1.0 header as numpy does, with
 * room reserved in the padding for the largest possible row count, so a
 * writer that does not know the number of rows at the start writes the
 * header with 0 rows, streams the data, and rewrites the header in place
 * with the final count: the header size does not change.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plannpy.h"
#include <libplan/planerror.h>

#include <gst/gst.h>

#include <string.h>
#include <errno.h>
#include <math.h>

/* The number of digits of the largest row count (G_MAXINT64). */
#define MAX_ROW_DIGITS 19

/**
 * plan_npy_has_magic:
 * @data: (array length=size): the first bytes of a file
 * @size: the number of bytes in @data
 *
 * Returns: whether @data starts with #PLAN_NPY_MAGIC.
 *
 * Since: 0.1
 */
gboolean
plan_npy_has_magic (const guint8 * data, gsize size)
{
  g_return_val_if_fail (data != NULL || size == 0, FALSE);

  return size >= PLAN_NPY_MAGIC_SIZE
      && memcmp (data, PLAN_NPY_MAGIC, PLAN_NPY_MAGIC_SIZE) == 0;
}

/**
 * plan_npy_parse_preamble:
 * @data: (array length=size): the first bytes of a .npy file; at most
 *   #PLAN_NPY_PREAMBLE_SIZE are read
 * @size: the number of bytes in @data
 * @version: (out) (optional): the major format version, 1, 2 or 3
 * @header_size: (out) (optional): the size of the whole header in bytes,
 *   which is the offset of the array data in the file
 * @error: return location for a #GError
 *
 * Checks the magic and the version and reads the header length, so a
 * caller knows how many bytes to hand to plan_npy_parse_header().
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_npy_parse_preamble (const guint8 * data, gsize size, guint * version,
    gsize * header_size, GError ** error)
{
  guint major, minor;
  gsize prefix;
  guint64 text_len;

  g_return_val_if_fail (data != NULL || size == 0, FALSE);

  if (size < 8)
    goto truncated;
  if (!plan_npy_has_magic (data, size))
    goto bad_magic;
  major = data[6];
  minor = data[7];
  if (major < 1 || major > 3 || minor != 0)
    goto bad_version;

  prefix = major == 1 ? 10 : 12;
  if (size < prefix)
    goto truncated;
  /* Byte by byte: a header in a stream may start at any address. */
  text_len = data[8] | (guint) data[9] << 8;
  if (major > 1)
    text_len |= (guint) data[10] << 16 | (guint64) data[11] << 24;
  if (text_len + prefix > PLAN_NPY_MAX_HEADER_SIZE)
    goto too_large;
  if (text_len == 0)
    goto empty;

  if (version)
    *version = major;
  if (header_size)
    *header_size = prefix + text_len;
  return TRUE;

  /* ERRORS */
truncated:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "truncated .npy header: only %" G_GSIZE_FORMAT " bytes", size);
    return FALSE;
  }
bad_magic:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "not a .npy file: it does not start with the \\x93NUMPY magic");
    return FALSE;
  }
bad_version:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        ".npy format version %u.%u is not supported; versions 1.0, 2.0 and "
        "3.0 are", major, minor);
    return FALSE;
  }
too_large:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "corrupt .npy header: its length field says %" G_GUINT64_FORMAT
        " bytes, more than the %d a .npy header may have", text_len,
        PLAN_NPY_MAX_HEADER_SIZE);
    return FALSE;
  }
empty:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "corrupt .npy header: its length field is 0");
    return FALSE;
  }
}

/* A cursor over the header text, for the small dict-literal parser. */
typedef struct
{
  const gchar *start;
  const gchar *p;
  const gchar *end;
} Cursor;

static void
skip_space (Cursor * c)
{
  while (c->p < c->end && g_ascii_isspace (*c->p))
    c->p++;
}

static gboolean
accept_char (Cursor * c, gchar ch)
{
  skip_space (c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return TRUE;
  }
  return FALSE;
}

static gboolean
syntax_error (Cursor * c, const gchar * expected, GError ** error)
{
  gchar *text = g_strndup (c->start, MIN (c->end - c->start, 200));
  gchar *escaped = g_strescape (text, NULL);

  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
      "malformed .npy header: expected %s at character %d of \"%s\"",
      expected, (gint) (c->p - c->start) + 1, escaped);
  g_free (escaped);
  g_free (text);
  return FALSE;
}

/* A Python string literal without escapes, in single or double quotes. */
static gboolean
parse_string (Cursor * c, gchar * out, gsize out_size, GError ** error)
{
  const gchar *s;
  gchar quote;

  skip_space (c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
    return syntax_error (c, "a quoted string", error);
  quote = *c->p++;
  s = c->p;
  while (c->p < c->end && *c->p != quote && *c->p != '\\')
    c->p++;
  if (c->p >= c->end || *c->p != quote || (gsize) (c->p - s) >= out_size)
    return syntax_error (c, "a short string without escapes", error);
  memcpy (out, s, c->p - s);
  out[c->p - s] = '\0';
  c->p++;
  return TRUE;
}

static gboolean
parse_bool (Cursor * c, gboolean * out, GError ** error)
{
  skip_space (c);
  if (c->end - c->p >= 4 && strncmp (c->p, "True", 4) == 0) {
    c->p += 4;
    *out = TRUE;
  } else if (c->end - c->p >= 5 && strncmp (c->p, "False", 5) == 0) {
    c->p += 5;
    *out = FALSE;
  } else {
    return syntax_error (c, "True or False", error);
  }
  return TRUE;
}

static gboolean
parse_axis (Cursor * c, gint64 * out, GError ** error)
{
  guint64 v = 0;
  const gchar *digits;

  skip_space (c);
  digits = c->p;
  while (c->p < c->end && g_ascii_isdigit (*c->p)) {
    guint d = *c->p - '0';

    if (v > ((guint64) G_MAXINT64 - d) / 10)
      goto absurd;
    v = v * 10 + d;
    c->p++;
  }
  if (c->p == digits)
    return syntax_error (c, "a non-negative integer axis length", error);
  /* Python 2 wrote long integers with an L suffix. */
  if (c->p < c->end && *c->p == 'L')
    c->p++;
  *out = (gint64) v;
  return TRUE;

absurd:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "corrupt .npy header: an axis length of more than %d digits",
        MAX_ROW_DIGITS);
    return FALSE;
  }
}

static gboolean
parse_shape (Cursor * c, guint * ndim, gint64 * shape, GError ** error)
{
  guint n = 0;

  if (!accept_char (c, '('))
    return syntax_error (c, "a tuple for 'shape'", error);
  while (!accept_char (c, ')')) {
    if (n > 0 && !accept_char (c, ','))
      return syntax_error (c, "',' or ')' in 'shape'", error);
    if (accept_char (c, ')'))
      break;
    if (n == PLAN_ARRAY_MAX_DIMS) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
          ".npy arrays of more than %d axes are not supported",
          PLAN_ARRAY_MAX_DIMS);
      return FALSE;
    }
    if (!parse_axis (c, &shape[n++], error))
      return FALSE;
  }
  *ndim = n;
  return TRUE;
}

/* Whether an array of @shape has the same bytes in C and Fortran order. */
static gboolean
same_in_both_orders (guint ndim, const gint64 * shape)
{
  guint i, longer = 0;

  for (i = 0; i < ndim; i++) {
    if (shape[i] == 0)
      return TRUE;
    if (shape[i] > 1)
      longer++;
  }
  return longer <= 1;
}

typedef struct
{
  gchar descr[64];
  gboolean fortran_order;
  guint ndim;
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  gint rate_n;                  /* 0: no 'rate' key */
  gint rate_d;
  guint seen;                   /* bit per key */
} Header;

/* The text of a rate: "N/D" (integers), or a positive number of rows per
 * second, integer or decimal, made a fraction as GStreamer does. */
static gboolean
rate_from_text (const gchar * text, gint * n, gint * d)
{
  const gchar *slash = strchr (text, '/');
  gint64 num, den = 1;
  gdouble v;
  gchar *end;

  if (slash != NULL) {
    gchar *head = g_strndup (text, slash - text);
    gboolean ok = g_ascii_string_to_signed (head, 10, 1, G_MAXINT, &num, NULL)
        && g_ascii_string_to_signed (slash + 1, 10, 1, G_MAXINT, &den, NULL);

    g_free (head);
    if (!ok)
      return FALSE;
  } else if (g_ascii_string_to_signed (text, 10, 1, G_MAXINT, &num, NULL)) {
    /* an integer number of rows per second */
  } else {
    if (text[0] == '\0' || g_ascii_isspace (text[0]))
      return FALSE;
    v = g_ascii_strtod (text, &end);
    if (*end != '\0' || !isfinite (v) || v <= 0 || v > G_MAXINT)
      return FALSE;
    gst_util_double_to_fraction (v, n, d);
    return *n > 0 && *d > 0;
  }
  *n = (gint) num;
  *d = (gint) den;
  return TRUE;
}

/* 'rate': a quoted fraction such as '1000/1' or a number such as 1000 or
 * 44100.0. */
static gboolean
parse_rate (Cursor * c, Header * h, GError ** error)
{
  gchar text[64];

  skip_space (c);
  if (c->p < c->end && (*c->p == '\'' || *c->p == '"')) {
    if (!parse_string (c, text, sizeof (text), error))
      return FALSE;
  } else {
    const gchar *s = c->p;

    while (c->p < c->end && (g_ascii_isalnum (*c->p) || *c->p == '.'
            || *c->p == '+' || *c->p == '-' || *c->p == '/'))
      c->p++;
    if (c->p == s || (gsize) (c->p - s) >= sizeof (text))
      return syntax_error (c, "a number or a quoted fraction such as "
          "'1000/1' for 'rate'", error);
    memcpy (text, s, c->p - s);
    text[c->p - s] = '\0';
  }
  if (!rate_from_text (text, &h->rate_n, &h->rate_d)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "malformed .npy header: its 'rate' is '%s'; a rate is a positive "
        "number of rows per second (at most %d) or a fraction of positive "
        "integers such as '1000/1'", text, G_MAXINT);
    return FALSE;
  }
  return TRUE;
}

static gboolean
parse_entry (Cursor * c, Header * h, GError ** error)
{
  gchar key[32];

  if (!parse_string (c, key, sizeof (key), error))
    return FALSE;
  if (!accept_char (c, ':'))
    return syntax_error (c, "':' after a key", error);

  if (strcmp (key, "descr") == 0) {
    h->seen |= 1;
    if (accept_char (c, '[')) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
          "structured dtypes (record arrays) are not supported; only bool, "
          "integer, float16/float32/float64 and complex64/complex128 arrays "
          "can be read");
      return FALSE;
    }
    return parse_string (c, h->descr, sizeof (h->descr), error);
  } else if (strcmp (key, "fortran_order") == 0) {
    h->seen |= 2;
    return parse_bool (c, &h->fortran_order, error);
  } else if (strcmp (key, "shape") == 0) {
    h->seen |= 4;
    return parse_shape (c, &h->ndim, h->shape, error);
  } else if (strcmp (key, "rate") == 0) {
    h->seen |= 8;
    return parse_rate (c, h, error);
  }

  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
      "malformed .npy header: unexpected key '%s'; only 'descr', "
      "'fortran_order', 'shape' and 'rate' are allowed", key);
  return FALSE;
}

static gboolean
parse_dict (Cursor * c, Header * h, GError ** error)
{
  if (!accept_char (c, '{'))
    return syntax_error (c, "'{'", error);
  while (!accept_char (c, '}')) {
    if (!parse_entry (c, h, error))
      return FALSE;
    if (!accept_char (c, ',')) {
      if (accept_char (c, '}'))
        break;
      return syntax_error (c, "',' or '}'", error);
    }
  }
  skip_space (c);
  if (c->p != c->end)
    return syntax_error (c, "only padding after '}'", error);
  if ((h->seen & 7) != 7) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "malformed .npy header: it lacks the key '%s'",
        !(h->seen & 1) ? "descr" : !(h->seen & 2) ? "fortran_order" : "shape");
    return FALSE;
  }
  return TRUE;
}

/**
 * plan_npy_parse_header:
 * @data: (array length=size): the start of a .npy file, at least the whole
 *   header
 * @size: the number of bytes in @data
 * @info: (out caller-allocates): the dtype and shape of the array
 * @header_size: (out) (optional): the offset of the array data in the file
 * @error: return location for a #GError
 *
 * Parses and validates a .npy header; a `rate` in it is stored in @info
 * (rows per second), which has none otherwise. It does not check the array data
 * against the file size; readers do that (the data is
 * plan_array_info_get_n_rows() × plan_array_info_get_row_size() bytes).
 *
 * Returns: %TRUE on success; @info is untouched on failure.
 *
 * Since: 0.1
 */
gboolean
plan_npy_parse_header (const guint8 * data, gsize size, PlanArrayInfo * info,
    gsize * header_size, GError ** error)
{
  Header h = { {0}, };
  GError *err = NULL;
  Cursor c;
  guint version;
  gsize total;
  PlanDType dtype;

  g_return_val_if_fail (info != NULL, FALSE);

  if (!plan_npy_parse_preamble (data, size, &version, &total, error))
    return FALSE;
  if (total > size)
    goto truncated;

  c.start = c.p = (const gchar *) data + (version == 1 ? 10 : 12);
  c.end = (const gchar *) data + total;
  if (memchr (c.start, '\0', c.end - c.start) != NULL)
    goto nul_byte;
  if (!parse_dict (&c, &h, error))
    return FALSE;

  dtype = plan_dtype_from_npy_descr (h.descr, error);
  if (dtype == PLAN_DTYPE_UNKNOWN)
    return FALSE;
  /* Where fewer than two axes have more than one element (a 1-D array,
   * (n, 1), (1, n), no elements), both orders lay the data out the same
   * way: writers of column-major arrays (Julia's NPZ) mark those Fortran
   * too. */
  if (h.fortran_order && !same_in_both_orders (h.ndim, h.shape))
    goto fortran;
  if (!plan_array_info_set (info, dtype, h.ndim, h.shape, &err))
    goto bad_shape;
  info->rate_n = h.rate_n;
  info->rate_d = h.rate_n > 0 ? h.rate_d : 0;
  if (header_size)
    *header_size = total;
  return TRUE;

  /* ERRORS */
truncated:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "truncated .npy header: it says %" G_GSIZE_FORMAT " bytes but only %"
        G_GSIZE_FORMAT " are there", total, size);
    return FALSE;
  }
nul_byte:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "malformed .npy header: it contains a NUL byte");
    return FALSE;
  }
fortran:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "Fortran-ordered .npy arrays are not supported; save the array "
        "with numpy.ascontiguousarray() first");
    return FALSE;
  }
bad_shape:
  {
    /* A shape that cannot exist is a corrupt header, not a setting. */
    if (err->domain == PLAN_ERROR && err->code == PLAN_ERROR_INVALID_ARGUMENT)
      err->code = PLAN_ERROR_FORMAT;
    g_propagate_error (error, err);
    return FALSE;
  }
}

static gchar *
format_dict (const PlanArrayInfo * info, gint64 n_rows)
{
  GString *s = g_string_new (NULL);
  guint i;

  g_string_append_printf (s, "{'descr': '%s', 'fortran_order': False, "
      "'shape': (", plan_dtype_to_npy_descr (info->dtype));
  for (i = 0; i < info->ndim; i++) {
    g_string_append_printf (s, "%" G_GINT64_FORMAT "%s",
        i == 0 ? n_rows : info->shape[i], info->ndim == 1 ? "," : "");
    if (i + 1 < info->ndim)
      g_string_append (s, ", ");
  }
  g_string_append (s, "), }");
  return g_string_free (s, FALSE);
}

/**
 * plan_npy_get_header_size:
 * @info: a valid #PlanArrayInfo
 *
 * Returns: the size in bytes of the header plan_npy_write_header() writes
 *   for arrays with the dtype and rows of @info, whatever their number of
 *   rows: a multiple of #PLAN_NPY_ALIGN.
 *
 * Since: 0.1
 */
gsize
plan_npy_get_header_size (const PlanArrayInfo * info)
{
  gchar *dict;
  gsize len;

  g_return_val_if_fail (info != NULL, 0);

  dict = format_dict (info, G_MAXINT64);
  /* Preamble, text, at least one space of padding and the newline. */
  len = 10 + strlen (dict) + 2;
  g_free (dict);
  return (len + PLAN_NPY_ALIGN - 1) / PLAN_NPY_ALIGN * PLAN_NPY_ALIGN;
}

/**
 * plan_npy_write_header:
 * @info: a valid #PlanArrayInfo; `shape[0]` is the number of rows to write
 *   (-1 is written as 0)
 * @dest: (out caller-allocates) (array length=header_size): where to write
 * @header_size: the size of the header to write: at least
 *   plan_npy_get_header_size() and a multiple of #PLAN_NPY_ALIGN
 * @error: return location for a #GError
 *
 * Writes a complete .npy header of exactly @header_size bytes, version 1.0
 * when it fits (as numpy does) and 2.0 otherwise, padded with spaces and
 * ended by a newline. The array data follows at offset @header_size.
 *
 * Returns: %TRUE on success, %FALSE when the header does not fit.
 *
 * Since: 0.1
 */
gboolean
plan_npy_write_header (const PlanArrayInfo * info, guint8 * dest,
    gsize header_size, GError ** error)
{
  gchar *dict;
  gsize len, prefix, i;

  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (dest != NULL, FALSE);

  prefix = header_size - 10 <= G_MAXUINT16 ? 10 : 12;
  dict = format_dict (info, info->ndim > 0 ? MAX (info->shape[0], 0) : 0);
  len = strlen (dict);
  if (header_size % PLAN_NPY_ALIGN != 0 || prefix + len + 1 > header_size
      || header_size > PLAN_NPY_MAX_HEADER_SIZE)
    goto no_room;

  memcpy (dest, PLAN_NPY_MAGIC, PLAN_NPY_MAGIC_SIZE);
  dest[6] = prefix == 10 ? 1 : 2;
  dest[7] = 0;
  /* Byte by byte: @dest may have any alignment. */
  for (i = 0; i < prefix - 8; i++)
    dest[8 + i] = ((header_size - prefix) >> (8 * i)) & 0xff;
  memcpy (dest + prefix, dict, len);
  memset (dest + prefix + len, ' ', header_size - prefix - len - 1);
  dest[header_size - 1] = '\n';
  g_free (dict);
  return TRUE;

  /* ERRORS */
no_room:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "a .npy header for %s needs %" G_GSIZE_FORMAT " bytes; %"
        G_GSIZE_FORMAT " is too small or not a multiple of %d", dict,
        plan_npy_get_header_size (info), header_size, PLAN_NPY_ALIGN);
    g_free (dict);
    return FALSE;
  }
}
