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
 * multiple of #PLAN_NPY_ALIGN bytes. The text is read as numpy reads it,
 * as a Python literal (ast.literal_eval): any quotes, string prefixes,
 * escapes, comments, spacing and key order, parentheses, integers in any
 * base; Python 2's long integers (`10L`) in versions 1.0 and 2.0; the
 * dtype by its descr or one of numpy's names of it. Spellings numpy
 * refuses, such as `(10)` for a shape, are %PLAN_ERROR_FORMAT.
 *
 * libplan reads versions 1.0, 2.0 and 3.0 (3.0 only differs in allowing
 * UTF-8 in the text, which a supported header never needs) of arrays with
 * a dtype of #PlanDType. plan_npy_parse_header() takes C order in the
 * machine's byte order (little-endian, or single bytes) only;
 * plan_npy_parse_header_full() also takes big-endian elements and Fortran
 * order, for a caller that swaps or transposes (#PlanNpyLayout), as
 * libplan's own readers do. What a caller does not take, object,
 * structured and any other dtype are reported as %PLAN_ERROR_UNSUPPORTED;
 * malformed headers, wrong magic, absurd lengths and shapes as
 * %PLAN_ERROR_FORMAT.
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
#include "libplan/core/plan-private.h"
#include <libplan/planerror.h>

#include <gst/gst.h>

#include <string.h>
#include <errno.h>
#include <math.h>

GType
plan_npy_layout_get_type (void)
{
  static gsize id = 0;
  static const GFlagsValue values[] = {
    {PLAN_NPY_LAYOUT_NATIVE, "C order, native byte order", "native"},
    {PLAN_NPY_LAYOUT_BIG_ENDIAN, "Big-endian elements", "big-endian"},
    {PLAN_NPY_LAYOUT_FORTRAN, "Fortran order", "fortran"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_flags_register_static ("PlanNpyLayout",
            values));
  return id;
}

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

/* A cursor over the header text, for the small parser of the Python
 * literals numpy reads a header with (ast.literal_eval). */
typedef struct
{
  const gchar *start;
  const gchar *p;
  const gchar *end;
  guint version;                /* the file's major version */
} Cursor;

/* What Python's tokenizer skips between tokens: spaces, tabs, form feeds,
 * line ends, comments and a backslash that joins two lines (not the
 * vertical tab, which it refuses). */
static void
skip_space (Cursor * c)
{
  while (c->p < c->end) {
    if (*c->p == ' ' || *c->p == '\t' || *c->p == '\f' || *c->p == '\n'
        || *c->p == '\r') {
      c->p++;
    } else if (*c->p == '#') {
      while (c->p < c->end && *c->p != '\n' && *c->p != '\r')
        c->p++;
    } else if (*c->p == '\\' && c->end - c->p >= 2
        && (c->p[1] == '\n' || c->p[1] == '\r')) {
      c->p += 2;
    } else {
      break;
    }
  }
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

/* The literals a header holds. A value's items are parsed and checked for
 * syntax whatever they are; what is kept of them is what the keys need. */
typedef enum
{
  VALUE_STRING,
  VALUE_INT,
  VALUE_BOOL,
  VALUE_NONE,
  VALUE_TUPLE,
  VALUE_LIST,
  VALUE_DICT,
} ValueKind;

/* Longer strings are kept cut, for error messages. */
#define MAX_STRING 64
/* Brackets nested deeper are refused, as Python's tokenizer refuses them,
 * so the parser's stack is bounded. */
#define MAX_DEPTH 200

typedef struct
{
  ValueKind kind;
  gchar str[MAX_STRING];        /* STRING, NUL-terminated */
  gsize len;                    /* STRING: its length, even beyond str */
  gint64 num;                   /* INT; BOOL: 0 or 1 */
  gboolean sign;                /* INT: written with a '+' or '-' */
  guint n_items;                /* TUPLE, LIST, DICT */
  gboolean all_ints;            /* TUPLE: every item an INT */
  gint64 items[PLAN_ARRAY_MAX_DIMS];    /* TUPLE: its first INT items */
} Value;

static gboolean
is_name_char (gchar ch)
{
  return g_ascii_isalnum (ch) || ch == '_' || (guchar) ch >= 0x80;
}

/* The length of the prefix (r, u, b, f, as Python allows them) of a
 * string literal at @p, or -1 where none starts there. */
static gint
string_prefix (const Cursor * c, const gchar * p)
{
  gint n = 0;

  while (n < 2 && p + n < c->end && p[n] != '\0'
      && strchr ("rRuUbBfF", p[n]) != NULL)
    n++;
  if (p + n >= c->end || (p[n] != '\'' && p[n] != '"'))
    return -1;
  return n;
}

static void
put_bytes (Value * v, const gchar * bytes, gsize n)
{
  if (v->len + n < MAX_STRING)
    memcpy (v->str + v->len, bytes, n);
  else if (v->len < MAX_STRING)
    v->str[v->len] = '\0';
  v->len += n;
}

static void
put_unichar (Value * v, gunichar u)
{
  gchar utf8[6];

  put_bytes (v, utf8, g_unichar_to_utf8 (u, utf8));
}

/* A backslash escape of a string that is not raw, at the backslash. */
static gboolean
parse_escape (Cursor * c, Value * v, GError ** error)
{
  const gchar *p = c->p + 1;
  gunichar u = 0;
  gint i, digits = 0;

  switch (*p) {
    case '\n':
      c->p += 2;
      return TRUE;
    case '\r':
      c->p += 2;
      if (c->p < c->end && *c->p == '\n')
        c->p++;
      return TRUE;
    case '\\':
    case '\'':
    case '"':
      u = *p;
      break;
    case 'a':
      u = 7;
      break;
    case 'b':
      u = 8;
      break;
    case 'f':
      u = 12;
      break;
    case 'n':
      u = 10;
      break;
    case 'r':
      u = 13;
      break;
    case 't':
      u = 9;
      break;
    case 'v':
      u = 11;
      break;
    case 'x':
      digits = 2;
      break;
    case 'u':
      digits = 4;
      break;
    case 'U':
      digits = 8;
      break;
    case 'N':
      return syntax_error (c, "a string without named escapes (\\N{...})",
          error);
    default:
      if (*p >= '0' && *p <= '7') {
        for (i = 0; i < 3 && p + i < c->end && p[i] >= '0' && p[i] <= '7';
            i++)
          u = u * 8 + (p[i] - '0');
        c->p = p + i;
        goto put;
      }
      /* Python keeps the backslash of an escape it does not know. */
      put_bytes (v, "\\", 1);
      c->p++;
      return TRUE;
  }
  if (digits == 0) {
    c->p += 2;
    goto put;
  }
  for (i = 0; i < digits; i++) {
    if (p + 1 + i >= c->end || !g_ascii_isxdigit (p[1 + i])) {
      c->p = p + 1 + i;
      return syntax_error (c, "the hexadecimal digits of an escape", error);
    }
    u = u * 16 + g_ascii_xdigit_value (p[1 + i]);
  }
  if (u > 0x10ffff)
    return syntax_error (c, "an escape of at most \\U0010ffff", error);
  c->p = p + 1 + digits;

put:
  if (u == 0)
    return syntax_error (c, "a string without NUL characters", error);
  put_unichar (v, u);
  return TRUE;
}

/* One string literal, in single, double or triple quotes, with Python's
 * prefixes and escapes; appended to @v. */
static gboolean
parse_string_literal (Cursor * c, Value * v, GError ** error)
{
  gint i, n = string_prefix (c, c->p);
  gboolean raw = FALSE, bytes = FALSE, fmt = FALSE, uni = FALSE, triple;
  gchar quote;

  for (i = 0; i < n; i++) {
    gchar l = g_ascii_tolower (c->p[i]);

    raw |= l == 'r';
    bytes |= l == 'b';
    fmt |= l == 'f';
    uni |= l == 'u';
  }
  if (n == 2 && (!raw || bytes == fmt || uni))
    return syntax_error (c, "a string literal", error);
  if (bytes)
    return syntax_error (c, "a str literal, not bytes (b'...')", error);
  if (fmt)
    return syntax_error (c, "a str literal, not an f-string", error);
  c->p += n;
  quote = *c->p;
  triple = c->end - c->p >= 3 && c->p[1] == quote && c->p[2] == quote;
  c->p += triple ? 3 : 1;

  for (;;) {
    if (c->p >= c->end)
      return syntax_error (c, "the end of a string", error);
    if (*c->p == quote && (!triple || (c->end - c->p >= 3
                && c->p[1] == quote && c->p[2] == quote))) {
      c->p += triple ? 3 : 1;
      return TRUE;
    }
    if (!triple && (*c->p == '\n' || *c->p == '\r'))
      return syntax_error (c, "the end of a string before the end of the "
          "line", error);
    if (*c->p == '\\' && c->end - c->p >= 2) {
      if (raw) {
        put_bytes (v, c->p, 2);
        c->p += 2;
      } else if (!parse_escape (c, v, error)) {
        return FALSE;
      }
      continue;
    }
    put_bytes (v, c->p, 1);
    c->p++;
  }
}

/* A string, of one literal or of several side by side, which Python
 * joins. */
static gboolean
parse_strings (Cursor * c, Value * v, GError ** error)
{
  v->kind = VALUE_STRING;
  v->len = 0;
  do {
    if (!parse_string_literal (c, v, error))
      return FALSE;
    skip_space (c);
  } while (c->p < c->end && string_prefix (c, c->p) >= 0);
  v->str[MIN (v->len, MAX_STRING - 1)] = '\0';
  return TRUE;
}

/* An integer literal as Python writes it: decimal, 0x, 0o or 0b, with
 * underscores between digits; before version 3.0, numpy also reads
 * Python 2's long integers, with an L after the digits. */
static gboolean
parse_int (Cursor * c, Value * v, GError ** error)
{
  const gchar *s = c->p, *p = c->p;
  guint base = 10, digits = 0;
  guint64 n = 0;

  if (c->end - p >= 2 && p[0] == '0' && p[1] != '\0'
      && strchr ("xXoObB", p[1]) != NULL) {
    base = g_ascii_tolower (p[1]) == 'x' ? 16 :
        g_ascii_tolower (p[1]) == 'o' ? 8 : 2;
    p += 2;
    if (p < c->end && *p == '_')
      p++;
  }
  while (p < c->end && is_name_char (*p)) {
    gint d = g_ascii_isdigit (*p) ? *p - '0' :
        g_ascii_isxdigit (*p) ? g_ascii_xdigit_value (*p) : 99;

    if (*p == '_' && digits > 0 && p + 1 < c->end && *(p - 1) != '_'
        && is_name_char (p[1]) && p[1] != '_') {
      p++;
      continue;
    }
    if (d >= (gint) base)
      break;
    /* Decimal integers other than 0 do not start with 0. */
    if (base == 10 && digits > 0 && n == 0 && d != 0)
      goto bad;
    if (n > ((guint64) G_MAXINT64 - d) / base)
      goto absurd;
    n = n * base + d;
    digits++;
    p++;
  }
  if (c->version < 3 && p < c->end && *p == 'L')
    p++;
  if (digits == 0 || (p < c->end && (is_name_char (*p) || *p == '.')))
    goto bad;
  /* numpy drops every name L after a number: "5 L" and "5L L" too. */
  while (c->version < 3) {
    c->p = p;
    skip_space (c);
    if (c->p >= c->end || *c->p != 'L'
        || (c->end - c->p > 1 && is_name_char (c->p[1])))
      break;
    p = c->p + 1;
  }
  c->p = p;
  v->kind = VALUE_INT;
  v->num = (gint64) n;
  v->sign = FALSE;
  return TRUE;

bad:
  c->p = s;
  return syntax_error (c, "an integer", error);
absurd:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "corrupt .npy header: an axis length (or other integer) larger "
        "than %" G_GINT64_FORMAT,
        G_MAXINT64);
    return FALSE;
  }
}

static gboolean parse_value (Cursor * c, Value * v, guint depth,
    GError ** error);

/* The items of a tuple, list or dict up to @close; @v's kind is set by the
 * caller. @first: where the first item is kept; @comma: whether a comma
 * followed the last item. */
static gboolean
parse_items (Cursor * c, gchar close, Value * v, Value * first,
    gboolean * comma, guint depth, GError ** error)
{
  Value item;

  v->n_items = 0;
  v->all_ints = TRUE;
  *comma = FALSE;
  for (;;) {
    if (accept_char (c, close))
      return TRUE;
    if (v->n_items > 0) {
      if (!accept_char (c, ','))
        return syntax_error (c, close == ')' ? "',' or ')'" :
            close == ']' ? "',' or ']'" : "',' or '}'", error);
      *comma = TRUE;
      if (accept_char (c, close))
        return TRUE;
    }
    *comma = FALSE;
    if (!parse_value (c, &item, depth + 1, error))
      return FALSE;
    if (close == '}') {
      if (!accept_char (c, ':'))
        return syntax_error (c, "':' after a key", error);
      if (!parse_value (c, &item, depth + 1, error))
        return FALSE;
    }
    if (v->n_items == 0)
      *first = item;
    if (item.kind != VALUE_INT)
      v->all_ints = FALSE;
    else if (v->n_items < PLAN_ARRAY_MAX_DIMS)
      v->items[v->n_items] = item.num;
    v->n_items++;
  }
}

/* A literal: a string, an integer, True, False, None, a tuple, a list or a
 * dict, in parentheses or not. */
static gboolean
parse_value (Cursor * c, Value * v, guint depth, GError ** error)
{
  const gchar *s;
  gboolean comma;

  skip_space (c);
  s = c->p;
  if (depth > MAX_DEPTH)
    return syntax_error (c, "brackets nested less deeply", error);
  if (c->p >= c->end)
    return syntax_error (c, "a value", error);

  if (*c->p == '(') {
    Value first;

    c->p++;
    v->kind = VALUE_TUPLE;
    if (!parse_items (c, ')', v, &first, &comma, depth, error))
      return FALSE;
    /* (x) is x; (x,) is a tuple. */
    if (v->n_items == 1 && !comma)
      *v = first;
    return TRUE;
  }
  if (*c->p == '[' || *c->p == '{') {
    Value first;
    gchar close = *c->p == '[' ? ']' : '}';

    c->p++;
    v->kind = close == ']' ? VALUE_LIST : VALUE_DICT;
    return parse_items (c, close, v, &first, &comma, depth, error);
  }
  if (*c->p == '+' || *c->p == '-') {
    gboolean minus = *c->p == '-';

    c->p++;
    if (!parse_value (c, v, depth + 1, error))
      return FALSE;
    if (v->kind != VALUE_INT || v->sign) {
      c->p = s;
      return syntax_error (c, "a number after the sign", error);
    }
    v->sign = TRUE;
    if (minus)
      v->num = -v->num;
    return TRUE;
  }
  if (g_ascii_isdigit (*c->p))
    return parse_int (c, v, error);
  if (string_prefix (c, c->p) >= 0)
    return parse_strings (c, v, error);
  while (c->p < c->end && is_name_char (*c->p))
    c->p++;
  if (c->p - s == 4 && strncmp (s, "True", 4) == 0) {
    v->kind = VALUE_BOOL;
    v->num = 1;
  } else if (c->p - s == 5 && strncmp (s, "False", 5) == 0) {
    v->kind = VALUE_BOOL;
    v->num = 0;
  } else if (c->p - s == 4 && strncmp (s, "None", 4) == 0) {
    v->kind = VALUE_NONE;
  } else {
    c->p = s;
    return syntax_error (c, "a string, an integer, a tuple, True or False",
        error);
  }
  return TRUE;
}

typedef struct
{
  Value descr;
  Value fortran_order;
  Value shape;
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
  gchar text[MAX_STRING];
  gchar *escaped;

  skip_space (c);
  if (string_prefix (c, c->p) >= 0) {
    Value v;

    if (!parse_strings (c, &v, error))
      return FALSE;
    if (v.len >= MAX_STRING)
      return syntax_error (c, "a shorter 'rate'", error);
    memcpy (text, v.str, v.len + 1);
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
    escaped = g_strescape (text, NULL);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "malformed .npy header: its 'rate' is '%s'; a rate is a positive "
        "number of rows per second (at most %d) or a fraction of positive "
        "integers such as '1000/1'", escaped, G_MAXINT);
    g_free (escaped);
    return FALSE;
  }
  return TRUE;
}

/* A key and its value. numpy's keys are checked once the whole dict is
 * read: as in Python, the last of keys given twice counts. */
static gboolean
parse_entry (Cursor * c, Header * h, GError ** error)
{
  const gchar *at;
  Value key;
  gchar *escaped;

  skip_space (c);
  at = c->p;
  if (!parse_value (c, &key, 0, error))
    return FALSE;
  if (key.kind != VALUE_STRING) {
    c->p = at;
    return syntax_error (c, "a key in quotes ('descr', 'fortran_order', "
        "'shape' or 'rate')", error);
  }
  if (!accept_char (c, ':'))
    return syntax_error (c, "':' after a key", error);

  if (strcmp (key.str, "descr") == 0) {
    h->seen |= 1;
    return parse_value (c, &h->descr, 0, error);
  } else if (strcmp (key.str, "fortran_order") == 0) {
    h->seen |= 2;
    return parse_value (c, &h->fortran_order, 0, error);
  } else if (strcmp (key.str, "shape") == 0) {
    h->seen |= 4;
    return parse_value (c, &h->shape, 0, error);
  } else if (strcmp (key.str, "rate") == 0) {
    h->seen |= 8;
    return parse_rate (c, h, error);
  }

  escaped = g_strescape (key.str, NULL);
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
      "malformed .npy header: unexpected key '%s%s'; only 'descr', "
      "'fortran_order', 'shape' and 'rate' are allowed", escaped,
      key.len >= MAX_STRING ? "..." : "");
  g_free (escaped);
  return FALSE;
}

static gboolean
parse_dict (Cursor * c, Header * h, GError ** error)
{
  guint n = 0, parens = 0;

  /* ({...}) is the dict too. */
  while (parens < MAX_DEPTH && accept_char (c, '('))
    parens++;
  if (!accept_char (c, '{'))
    return syntax_error (c, "'{'", error);
  for (;;) {
    if (accept_char (c, '}'))
      break;
    if (n > 0) {
      if (!accept_char (c, ','))
        return syntax_error (c, "',' or '}'", error);
      if (accept_char (c, '}'))
        break;
    }
    if (!parse_entry (c, h, error))
      return FALSE;
    n++;
  }
  for (; parens > 0; parens--)
    if (!accept_char (c, ')'))
      return syntax_error (c, "')'", error);
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

/* numpy's three keys, as numpy checks them. */
static gboolean
check_header (const Header * h, GError ** error)
{
  guint i;

  if (h->descr.kind == VALUE_LIST || h->descr.kind == VALUE_DICT) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "structured dtypes (record arrays) are not supported; only bool, "
        "integer, float16/float32/float64 and complex64/complex128 arrays "
        "can be read");
    return FALSE;
  }
  if (h->descr.kind != VALUE_STRING) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "malformed .npy header: its 'descr' is not a dtype in quotes, such "
        "as '<f4'");
    return FALSE;
  }
  if (h->fortran_order.kind != VALUE_BOOL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "malformed .npy header: its 'fortran_order' is not True or False");
    return FALSE;
  }
  if (h->shape.kind != VALUE_TUPLE || !h->shape.all_ints) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "malformed .npy header: its 'shape' is not a tuple of integers, "
        "such as (1000, 3), (5,) or ()");
    return FALSE;
  }
  if (h->shape.n_items > PLAN_ARRAY_MAX_DIMS) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        ".npy arrays of more than %d axes are not supported",
        PLAN_ARRAY_MAX_DIMS);
    return FALSE;
  }
  for (i = 0; i < h->shape.n_items; i++) {
    if (h->shape.items[i] < 0) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
          "malformed .npy header: its 'shape' has a negative axis length, "
          "%" G_GINT64_FORMAT, h->shape.items[i]);
      return FALSE;
    }
  }
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
  return plan_npy_parse_header_full (data, size, PLAN_NPY_LAYOUT_NATIVE, info,
      header_size, NULL, error);
}

/**
 * plan_npy_parse_header_full:
 * @data: (array length=size): the start of a .npy file, at least the whole
 *   header
 * @size: the number of bytes in @data
 * @accept: the layouts the caller reads besides C order in the machine's
 *   byte order
 * @info: (out caller-allocates): the dtype and shape of the array, as the
 *   caller gives it once it has undone @layout: the machine's byte order,
 *   C order
 * @header_size: (out) (optional): the offset of the array data in the file
 * @layout: (out) (optional): how the data lies in the file: one or more of
 *   @accept's flags, or %PLAN_NPY_LAYOUT_NATIVE
 * @error: return location for a #GError
 *
 * plan_npy_parse_header() for a caller that byte-swaps big-endian
 * elements, or transposes Fortran-ordered data, or both. A header whose
 * layout has a flag @accept lacks is %PLAN_ERROR_UNSUPPORTED, as
 * plan_npy_parse_header() reports it.
 *
 * Returns: %TRUE on success; @info and @layout are untouched on failure.
 *
 * Since: 0.1
 */
gboolean
plan_npy_parse_header_full (const guint8 * data, gsize size,
    PlanNpyLayout accept, PlanArrayInfo * info, gsize * header_size,
    PlanNpyLayout * layout, GError ** error)
{
  Header h = { {0}, };
  gboolean big_endian = FALSE, fortran;
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
  c.version = version;
  c.end = (const gchar *) data + total;
  if (memchr (c.start, '\0', c.end - c.start) != NULL)
    goto nul_byte;
  /* Version 3.0's text is UTF-8 (numpy decodes it so); before, Latin-1,
   * where any byte is a character. */
  if (version == 3 && !g_utf8_validate_len (c.start, c.end - c.start, NULL))
    goto not_utf8;
  if (!parse_dict (&c, &h, error) || !check_header (&h, error))
    return FALSE;

  dtype = _plan_dtype_from_npy_descr (h.descr.str,
      (accept & PLAN_NPY_LAYOUT_BIG_ENDIAN) ? &big_endian : NULL, error);
  if (dtype == PLAN_DTYPE_UNKNOWN)
    return FALSE;
  /* Where fewer than two axes have more than one element (a 1-D array,
   * (n, 1), (1, n), no elements), both orders lay the data out the same
   * way: writers of column-major arrays (Julia's NPZ) mark those Fortran
   * too. */
  fortran = h.fortran_order.num
      && !same_in_both_orders (h.shape.n_items, h.shape.items);
  if (fortran && !(accept & PLAN_NPY_LAYOUT_FORTRAN))
    goto fortran;
  if (!plan_array_info_set (info, dtype, h.shape.n_items, h.shape.items,
          &err))
    goto bad_shape;
  info->rate_n = h.rate_n;
  info->rate_d = h.rate_n > 0 ? h.rate_d : 0;
  if (header_size)
    *header_size = total;
  if (layout)
    *layout = (big_endian ? PLAN_NPY_LAYOUT_BIG_ENDIAN : 0)
        | (fortran ? PLAN_NPY_LAYOUT_FORTRAN : 0);
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
not_utf8:
  {
    const gchar *bad;

    g_utf8_validate_len (c.start, c.end - c.start, &bad);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "malformed .npy header: a version 3.0 header is UTF-8 text, but "
        "byte %d of its text is not", (gint) (bad - c.start) + 1);
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

/* Copies the @n_rows elements of @size bytes at @src, one after the other,
 * to @dest, @row_size bytes apart. */
#define SCATTER(size) \
  for (i = 0; i < n_rows; i++) \
    memcpy (out + i * row_size, src + i * (size), (size))

void
_plan_npy_fortran_scatter (const PlanArrayInfo * info, guint64 first_run,
    guint64 n_runs, const guint8 * runs, gsize run_stride, guint64 n_rows,
    guint8 * dest)
{
  gsize item = plan_dtype_get_size (info->dtype);
  gsize row_size = plan_array_info_get_row_size (info);
  gsize cstride[PLAN_ARRAY_MAX_DIMS];
  guint64 pos[PLAN_ARRAY_MAX_DIMS];
  guint64 rest = first_run, j, i;
  gsize c = 0;
  guint d, ndim = info->ndim;

  g_assert (ndim >= 2);
  /* Where an inner index's elements go in a row (C order), and the inner
   * index of the first run (Fortran order: the second axis fastest). */
  cstride[ndim - 1] = item;
  for (d = ndim - 2; d >= 1; d--)
    cstride[d] = cstride[d + 1] * info->shape[d + 1];
  for (d = 1; d < ndim; d++) {
    pos[d] = rest % info->shape[d];
    rest /= info->shape[d];
    c += pos[d] * cstride[d];
  }
  for (j = 0; j < n_runs; j++) {
    const guint8 *src = runs + j * run_stride;
    guint8 *out = dest + c;

    /* A constant size: each copy is one load and one store. */
    switch (item) {
      case 1:
        SCATTER (1);
        break;
      case 2:
        SCATTER (2);
        break;
      case 4:
        SCATTER (4);
        break;
      case 8:
        SCATTER (8);
        break;
      case 16:
        SCATTER (16);
        break;
      default:
        g_assert_not_reached ();
    }
    for (d = 1; d < ndim; d++) {
      c += cstride[d];
      if (++pos[d] < (guint64) info->shape[d])
        break;
      c -= pos[d] * cstride[d];
      pos[d] = 0;
    }
  }
}

#undef SCATTER

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
