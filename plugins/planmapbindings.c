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

#include <errno.h>
#include <glib/gstdio.h>
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

/* Parses @text as a value of @dtype into @value. */
static gboolean
parse_param_value (const gchar * text, PlanDType dtype, guint64 * value)
{
  gchar *end = NULL;

  *value = 0;
  if (*text == '\0')
    return FALSE;
  if (dtype == PLAN_DTYPE_BOOL) {
    if (!g_ascii_strcasecmp (text, "true") || !strcmp (text, "1"))
      *value = 1;
    else if (g_ascii_strcasecmp (text, "false") && strcmp (text, "0"))
      return FALSE;
    return TRUE;
  }
  if (plan_dtype_is_float (dtype)) {
    gdouble d = g_ascii_strtod (text, &end);
    if (*end != '\0')
      return FALSE;
    if (dtype == PLAN_DTYPE_FLOAT32) {
      gfloat f = (gfloat) d;
      memcpy (value, &f, 4);
    } else if (dtype == PLAN_DTYPE_FLOAT16) {
      /* rounded once, to nearest, as numpy's np.float16(0.1) */
      guint16 h = plan_dtype_float16_from_double (d);
      memcpy (value, &h, 2);
    } else {
      memcpy (value, &d, 8);
    }
    return TRUE;
  }
  {
    gsize size = plan_dtype_get_size (dtype);
    gboolean is_signed = dtype == PLAN_DTYPE_INT8 || dtype == PLAN_DTYPE_INT16
        || dtype == PLAN_DTYPE_INT32 || dtype == PLAN_DTYPE_INT64;
    guint bits = (guint) size * 8;

    errno = 0;
    if (is_signed) {
      gint64 v = g_ascii_strtoll (text, &end, 10);
      gint64 lo = bits == 64 ? G_MININT64 : -((gint64) 1 << (bits - 1));
      gint64 hi = bits == 64 ? G_MAXINT64 : ((gint64) 1 << (bits - 1)) - 1;
      if (*end != '\0' || errno || v < lo || v > hi)
        return FALSE;
      switch (size) {
        case 1:{
          gint8 x = (gint8) v;
          memcpy (value, &x, 1);
          break;
        }
        case 2:{
          gint16 x = (gint16) v;
          memcpy (value, &x, 2);
          break;
        }
        case 4:{
          gint32 x = (gint32) v;
          memcpy (value, &x, 4);
          break;
        }
        default:
          memcpy (value, &v, 8);
          break;
      }
    } else {
      guint64 v;
      if (text[0] == '-')
        return FALSE;
      v = g_ascii_strtoull (text, &end, 10);
      if (*end != '\0' || errno || (bits < 64 && v >> bits))
        return FALSE;
      switch (size) {
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
    }
    return TRUE;
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
    if (!parse_param_value (g_strstrip (eq + 1), m.dtype, &m.value)) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "params: parameter '%s': '%s' is not %s %s value", item,
          g_strstrip (eq + 1), plan_dtype_get_article (m.dtype),
          plan_dtype_to_string (m.dtype));
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
