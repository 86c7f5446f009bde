/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What planmap binds besides its inputs: the params property parsed into
 * named scalars, and the array constants of the constants and
 * constant-arrays properties (docs/planmap.md). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planmapbindings.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (plan_map_debug);
#define GST_CAT_DEFAULT plan_map_debug

void
plan_map_param_clear (gpointer p)
{
  PlanMapParam *m = p;

  g_free (m->name);
}

void
plan_map_constant_clear (gpointer p)
{
  PlanMapConstant *c = p;

  g_free (c->name);
  g_clear_object (&c->array);
  /* dptr is freed by plan_map_free_device_constants() */
}

static gboolean
is_identifier (const gchar * s)
{
  const gchar *p;

  if (!(g_ascii_isalpha (s[0]) || s[0] == '_'))
    return FALSE;
  for (p = s; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;
  return TRUE;
}

typedef enum
{
  PARAM_OK,
  PARAM_NOT_A_VALUE,
  PARAM_LEADING_ZERO,
  PARAM_OUT_OF_RANGE,
} ParamParse;

/* An integer as Python's int (text, 0) reads a literal: an optional sign,
 * then decimal digits (no leading zero but in 0 itself), or 0x, 0o or 0b
 * and digits of that base, with single '_'s between digits (and after
 * the prefix). Sets the sign and the magnitude; PARAM_OUT_OF_RANGE when
 * the magnitude is above 2**64 - 1. */
static ParamParse
parse_int_literal (const gchar * text, gboolean * negative, guint64 * mag)
{
  const gchar *p = text;
  guint base = 10, n_digits = 0;
  gboolean overflow = FALSE, all_zero = TRUE, under = FALSE;

  *negative = FALSE;
  *mag = 0;
  if (*p == '+' || *p == '-')
    *negative = *p++ == '-';
  if (p[0] == '0' && p[1] != '\0' && strchr ("xXoObB", p[1])) {
    base = g_ascii_tolower (p[1]) == 'x' ? 16 :
        g_ascii_tolower (p[1]) == 'o' ? 8 : 2;
    p += 2;
    under = *p == '_';          /* 0x_ff, as Python takes it */
    if (under)
      p++;
  }
  for (; *p; p++) {
    gint d;

    if (*p == '_') {
      if (under || n_digits == 0)
        return PARAM_NOT_A_VALUE;
      under = TRUE;
      continue;
    }
    d = g_ascii_xdigit_value (*p);
    if (d < 0 || (guint) d >= base)
      return PARAM_NOT_A_VALUE;
    under = FALSE;
    n_digits++;
    if (*mag > (G_MAXUINT64 - d) / base)
      overflow = TRUE;
    else
      *mag = *mag * base + d;
    all_zero = all_zero && d == 0;
  }
  if (n_digits == 0 || under)
    return PARAM_NOT_A_VALUE;
  /* 010: C reads it as octal 8, Python refuses it; so does the
   * expression language. */
  if (base == 10 && n_digits > 1 && !all_zero
      && text[*text == '+' || *text == '-'] == '0')
    return PARAM_LEADING_ZERO;
  return overflow ? PARAM_OUT_OF_RANGE : PARAM_OK;
}

/* The range of the integer dtype @dtype. */
static void
int_range (PlanDType dtype, gint64 * lo, guint64 * hi)
{
  guint bits = (guint) plan_dtype_get_size (dtype) * 8;
  gboolean is_signed = dtype == PLAN_DTYPE_INT8 || dtype == PLAN_DTYPE_INT16
      || dtype == PLAN_DTYPE_INT32 || dtype == PLAN_DTYPE_INT64;

  if (is_signed) {
    *lo = bits == 64 ? G_MININT64 : -((gint64) 1 << (bits - 1));
    *hi = bits == 64 ? (guint64) G_MAXINT64 : ((guint64) 1 << (bits - 1)) - 1;
  } else {
    *lo = 0;
    *hi = bits == 64 ? G_MAXUINT64 : ((guint64) 1 << bits) - 1;
  }
}

/* An integer of @dtype: a literal out of its range is refused (numpy 2
 * refuses np.int8(0x80); numpy 1.24 wraps it, with a warning), never
 * wrapped. */
static ParamParse
parse_int_param (const gchar * text, PlanDType dtype, guint64 * value)
{
  gboolean negative;
  guint64 mag, hi;
  gint64 lo, v;
  ParamParse r = parse_int_literal (text, &negative, &mag);

  if (r != PARAM_OK)
    return r;
  int_range (dtype, &lo, &hi);
  if (negative && mag > 0) {
    /* lo is -2**(bits-1), or 0: its magnitude, without overflow */
    if (lo == 0 || mag - 1 > (guint64) (-(lo + 1)))
      return PARAM_OUT_OF_RANGE;
    v = -(gint64) (mag - 1) - 1;
  } else {
    if (mag > hi)
      return PARAM_OUT_OF_RANGE;
    v = (gint64) mag;
  }
  /* The value's bytes in the dtype's width (two's complement). */
  switch (plan_dtype_get_size (dtype)) {
    case 1:{
      guint8 x = (guint8) v;
      memcpy (value, &x, 1);
      break;
    }
    case 2:{
      guint16 x = (guint16) v;
      memcpy (value, &x, 2);
      break;
    }
    case 4:{
      guint32 x = (guint32) v;
      memcpy (value, &x, 4);
      break;
    }
    default:
      memcpy (value, &v, 8);
      break;
  }
  return PARAM_OK;
}

/* Digits with single '_'s between them, from @p; returns the end, and
 * @p itself where there is no digit or a '_' is not between two. */
static const gchar *
skip_digit_part (const gchar * p)
{
  const gchar *start = p;

  if (!g_ascii_isdigit (*p))
    return start;
  while (g_ascii_isdigit (*p) || (*p == '_' && g_ascii_isdigit (p[1])))
    p++;
  return p;
}

/* A float as Python's float (text) reads it: an optional sign, then inf,
 * infinity or nan (any case), or decimal digits with an optional '.' and
 * an optional exponent, '_' only between digits. No hex floats (0x1p3,
 * which C's strtod reads). @d the value, rounded once to float64;
 * PARAM_OUT_OF_RANGE where a finite number is beyond float64's range. */
static ParamParse
parse_float_literal (const gchar * text, gdouble * d)
{
  const gchar *p = text, *q;
  gboolean negative = FALSE;
  GString *digits;
  gchar *end;

  if (*p == '+' || *p == '-')
    negative = *p++ == '-';
  if (!g_ascii_strcasecmp (p, "inf") || !g_ascii_strcasecmp (p, "infinity")) {
    *d = negative ? -INFINITY : INFINITY;
    return PARAM_OK;
  }
  if (!g_ascii_strcasecmp (p, "nan")) {
    *d = negative ? -NAN : NAN;
    return PARAM_OK;
  }
  /* digits [. [digits]] | . digits, then [e [sign] digits] */
  q = skip_digit_part (p);
  if (*q == '.') {
    const gchar *f = skip_digit_part (q + 1);

    if (q == p && f == q + 1)
      return PARAM_NOT_A_VALUE;
    q = f;
  } else if (q == p) {
    return PARAM_NOT_A_VALUE;
  }
  if (*q == 'e' || *q == 'E') {
    const gchar *e = q + 1, *f;

    if (*e == '+' || *e == '-')
      e++;
    f = skip_digit_part (e);
    if (f == e)
      return PARAM_NOT_A_VALUE;
    q = f;
  }
  if (*q != '\0')
    return PARAM_NOT_A_VALUE;
  digits = g_string_new (NULL);
  for (q = text; *q; q++)
    if (*q != '_')
      g_string_append_c (digits, *q);
  *d = g_ascii_strtod (digits->str, &end);
  g_assert (*end == '\0');
  g_string_free (digits, TRUE);
  return isinf (*d) ? PARAM_OUT_OF_RANGE : PARAM_OK;
}

/* Parses @text as a value of @dtype into @value. */
static ParamParse
parse_param_value (const gchar * text, PlanDType dtype, guint64 * value)
{
  *value = 0;
  if (*text == '\0')
    return PARAM_NOT_A_VALUE;
  if (dtype == PLAN_DTYPE_BOOL) {
    if (!g_ascii_strcasecmp (text, "true") || !strcmp (text, "1"))
      *value = 1;
    else if (g_ascii_strcasecmp (text, "false") && strcmp (text, "0"))
      return PARAM_NOT_A_VALUE;
    return PARAM_OK;
  }
  if (plan_dtype_is_float (dtype)) {
    gdouble d;
    ParamParse r = parse_float_literal (text, &d);

    if (r != PARAM_OK)
      return r;
    /* a finite number must stay finite in the dtype: float32's 1e39 is
     * an error, not inf (give inf for an infinity) */
    if (dtype == PLAN_DTYPE_FLOAT32) {
      gfloat f = (gfloat) d;
      if (isinf (f) && !isinf (d))
        return PARAM_OUT_OF_RANGE;
      memcpy (value, &f, 4);
    } else if (dtype == PLAN_DTYPE_FLOAT16) {
      /* rounded once, to nearest, as numpy's np.float16(0.1) */
      guint16 h = plan_dtype_float16_from_double (d);
      if ((h & 0x7fffu) == 0x7c00u && !isinf (d))
        return PARAM_OUT_OF_RANGE;
      memcpy (value, &h, 2);
    } else {
      memcpy (value, &d, 8);
    }
    return PARAM_OK;
  }
  return parse_int_param (text, dtype, value);
}

/* Sets @error for @value, which parse_param_value() refused with @r. */
static void
param_value_error (GError ** error, const gchar * name, const gchar * value,
    PlanDType dtype, ParamParse r)
{
  const gchar *type = plan_dtype_to_string (dtype);
  gint64 lo;
  guint64 hi;

  if (r == PARAM_OUT_OF_RANGE && plan_dtype_is_float (dtype)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "params: parameter '%s': %s is out of range for %s (its largest "
        "finite value is %s; write inf for an infinity)", name, value, type,
        dtype == PLAN_DTYPE_FLOAT16 ? "65504" : dtype == PLAN_DTYPE_FLOAT32 ?
        "3.4028235e+38" : "1.7976931348623157e+308");
  } else if (r == PARAM_OUT_OF_RANGE) {
    int_range (dtype, &lo, &hi);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "params: parameter '%s': %s is out of range for %s (%"
        G_GINT64_FORMAT " to %" G_GUINT64_FORMAT ")", name, value, type, lo,
        hi);
  } else if (r == PARAM_LEADING_ZERO) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "params: parameter '%s': '%s' is a decimal integer with a leading "
        "zero, which C reads as octal and Python refuses; write it without "
        "the zero, or octal as 0o...", name, value);
  } else {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "params: parameter '%s': '%s' is not %s %s value%s", name, value,
        plan_dtype_get_article (dtype), type, plan_dtype_is_float (dtype) ?
        " (a number as Python's float() reads it: decimal digits with an "
        "optional sign, '.' and exponent and '_' between digits, or inf or "
        "nan)" : dtype == PLAN_DTYPE_BOOL ? "" : " (an integer: decimal, or "
        "0x, 0o or 0b and digits, with an optional sign and '_' between "
        "digits, as Python writes integers)");
  }
}

/* "gain=2.0,threshold:float32=0.5,n:int32=3": float64 unless a dtype is
 * given after the name. */
GArray *
plan_map_params_parse (const gchar * text, GError ** error)
{
  GArray *set = g_array_new (FALSE, TRUE, sizeof (PlanMapParam));
  gchar **items;
  guint i, j;

  g_array_set_clear_func (set, plan_map_param_clear);
  if (text == NULL)
    return set;
  items = g_strsplit (text, ",", -1);
  for (i = 0; items[i]; i++) {
    gchar *item = g_strstrip (items[i]);
    gchar *eq = strchr (item, '='), *colon;
    PlanMapParam m = { NULL, PLAN_DTYPE_FLOAT64, 0 };
    ParamParse r;

    if (*item == '\0' && items[i + 1] == NULL && i > 0)
      break;                    /* a trailing comma */
    if (eq == NULL) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "params: '%s' is not name=value (for example gain=2.0 or "
          "n:int32=3)", item);
      goto failed;
    }
    *eq = '\0';
    colon = strchr (item, ':');
    if (colon) {
      GError *err = NULL;
      *colon = '\0';
      m.dtype = plan_dtype_parse (g_strstrip (colon + 1), &err);
      if (m.dtype == PLAN_DTYPE_UNKNOWN) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
            "params: parameter '%s': %s", g_strstrip (item), err->message);
        g_error_free (err);
        goto failed;
      }
      if (plan_dtype_is_complex (m.dtype)) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
            "params: parameter '%s': a parameter is a real number or bool; "
            "give the real and imaginary parts as two parameters and write "
            "re + 1j * im in the expression", g_strstrip (item));
        goto failed;
      }
    }
    g_strstrip (item);
    if (!is_identifier (item)) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "params: '%s' is not a name (a letter or '_' followed by letters, "
          "digits or '_')", item);
      goto failed;
    }
    for (j = 0; j < set->len; j++) {
      if (!strcmp (g_array_index (set, PlanMapParam, j).name, item)) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
            "params: '%s' is given twice", item);
        goto failed;
      }
    }
    r = parse_param_value (g_strstrip (eq + 1), m.dtype, &m.value);
    if (r != PARAM_OK) {
      param_value_error (error, item, eq + 1, m.dtype, r);
      goto failed;
    }
    m.name = g_strdup (item);
    g_array_append_val (set, m);
  }
  g_strfreev (items);
  return set;

failed:
  g_strfreev (items);
  g_array_unref (set);
  return NULL;
}

/* Whether @a and @b bind the same names to the same dtypes, in order. */
gboolean
plan_map_params_same_names (GArray * a, GArray * b)
{
  guint i;

  if (a->len != b->len)
    return FALSE;
  for (i = 0; i < a->len; i++) {
    PlanMapParam *x = &g_array_index (a, PlanMapParam, i);
    PlanMapParam *y = &g_array_index (b, PlanMapParam, i);
    if (strcmp (x->name, y->name) || x->dtype != y->dtype)
      return FALSE;
  }
  return TRUE;
}

static gboolean
add_constant (GstObject * element, GArray * consts, const gchar * name,
    PlanArray * array, const gchar * from, GError ** error)
{
  const PlanArrayInfo *info = plan_array_get_info (array);
  PlanMapConstant c = { NULL, NULL, NULL };
  gsize size = 0;
  guint i;

  for (i = 0; i < consts->len; i++) {
    if (!strcmp (g_array_index (consts, PlanMapConstant, i).name, name)) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "planmap %s: constant '%s' is given twice", GST_OBJECT_NAME (element),
          name);
      return FALSE;
    }
  }
  if (plan_array_get_device_memory (array) != NULL
      || plan_array_get_data (array, &size) == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "planmap %s: constant '%s' (%s) is not in host memory",
        GST_OBJECT_NAME (element), name, from);
    return FALSE;
  }
  if (size > PLAN_MAP_MAX_CONSTANT_BYTES
      || plan_array_info_get_n_rows (info) < 0) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "planmap %s: constant '%s' (%s) holds %" G_GSIZE_FORMAT " bytes; a "
        "constant holds at most %" G_GSIZE_FORMAT " MiB",
        GST_OBJECT_NAME (element), name, from, size,
        PLAN_MAP_MAX_CONSTANT_BYTES >> 20);
    return FALSE;
  }
  if (size == 0) {
    gchar *shape = plan_shape_to_string (info->ndim, info->shape);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "planmap %s: constant '%s' (%s) has shape %s and no elements",
        GST_OBJECT_NAME (element), name, from, shape);
    g_free (shape);
    return FALSE;
  }
  c.name = g_strdup (name);
  c.array = g_object_ref (array);
  g_array_append_val (consts, c);
  return TRUE;
}

/* The constants: those of the constants property loaded from their
 * files, then those of constant-arrays. */
GArray *
plan_map_constants_load (GstObject * element, const gchar * files,
    GstStructure * arrays, GError ** error)
{
  GArray *consts = g_array_new (FALSE, TRUE, sizeof (PlanMapConstant));
  gchar **items = g_strsplit (files ? files : "", ",", -1);
  guint i, n;

  g_array_set_clear_func (consts, plan_map_constant_clear);
  for (i = 0; items[i]; i++) {
    gchar *item = g_strstrip (items[i]), *eq = strchr (item, '='), *path;
    PlanArray *array;
    GStatBuf st;
    gboolean ok;

    if (*item == '\0')
      continue;
    if (eq == NULL || eq == item || eq[1] == '\0') {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "planmap %s: constants: '%s' is not name=file.npy",
          GST_OBJECT_NAME (element), item);
      goto failed;
    }
    *eq = '\0';
    path = g_strstrip (eq + 1);
    g_strstrip (item);
    if (!is_identifier (item)) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "planmap %s: constants: '%s' is not a name",
          GST_OBJECT_NAME (element), item);
      goto failed;
    }
    /* A file far larger than any constant is not read at all. */
    if (g_stat (path, &st) == 0
        && (guint64) st.st_size > PLAN_MAP_MAX_CONSTANT_BYTES + (1 << 16)) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "planmap %s: constant '%s' (%s) is a file of %" G_GUINT64_FORMAT
          " bytes; a constant holds at most %" G_GSIZE_FORMAT " MiB",
          GST_OBJECT_NAME (element), item, path, (guint64) st.st_size,
          PLAN_MAP_MAX_CONSTANT_BYTES >> 20);
      goto failed;
    }
    array = plan_array_load_npy (path, error);
    if (array == NULL) {
      g_prefix_error (error, "planmap %s: constant '%s': ",
          GST_OBJECT_NAME (element), item);
      goto failed;
    }
    ok = add_constant (element, consts, item, array, path, error);
    g_object_unref (array);
    if (!ok)
      goto failed;
    GST_INFO_OBJECT (element, "constant '%s' from %s", item, path);
  }
  n = arrays ? gst_structure_n_fields (arrays) : 0;
  for (i = 0; i < n; i++) {
    const gchar *name = gst_structure_nth_field_name (arrays, i);
    const GValue *v = gst_structure_get_value (arrays, name);

    if (!G_VALUE_HOLDS (v, PLAN_TYPE_ARRAY) || g_value_get_object (v) == NULL) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "planmap %s: constant-arrays: field '%s' holds a %s, not a "
          "PlanArray", GST_OBJECT_NAME (element), name, G_VALUE_TYPE_NAME (v));
      goto failed;
    }
    if (!is_identifier (name)) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "planmap %s: constant-arrays: '%s' is not a name",
          GST_OBJECT_NAME (element), name);
      goto failed;
    }
    if (!add_constant (element, consts, name, g_value_get_object (v),
            "an array in memory", error))
      goto failed;
  }
  g_strfreev (items);
  return consts;

failed:
  g_strfreev (items);
  g_array_unref (consts);
  return NULL;
}
