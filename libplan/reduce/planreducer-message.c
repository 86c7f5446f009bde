/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanReducer: the result as a GstStructure for a bus message. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planreducer-private.h"
#include <libplan/planerror.h>
#include <libplan/planexpr.h>
#include <libplan/planparallel.h>
#include <libplan/planarray.h>
#include "libplan/core/plan-private.h"

#include <math.h>
#include <string.h>

/* Messages ----------------------------------------------------------------- */

static void
value_to_gvalue (PlanDType dtype, const guint8 * p, GValue * v)
{
  switch (dtype) {
    case PLAN_DTYPE_BOOL:
      g_value_init (v, G_TYPE_BOOLEAN);
      g_value_set_boolean (v, *p != 0);
      break;
    case PLAN_DTYPE_INT8:
      g_value_init (v, G_TYPE_INT64);
      g_value_set_int64 (v, *(const gint8 *) p);
      break;
    case PLAN_DTYPE_UINT8:
      g_value_init (v, G_TYPE_UINT64);
      g_value_set_uint64 (v, *p);
      break;
    case PLAN_DTYPE_INT16:
      g_value_init (v, G_TYPE_INT64);
      g_value_set_int64 (v, *(const gint16 *) p);
      break;
    case PLAN_DTYPE_UINT16:
      g_value_init (v, G_TYPE_UINT64);
      g_value_set_uint64 (v, *(const guint16 *) p);
      break;
    case PLAN_DTYPE_INT32:
      g_value_init (v, G_TYPE_INT64);
      g_value_set_int64 (v, *(const gint32 *) p);
      break;
    case PLAN_DTYPE_UINT32:
      g_value_init (v, G_TYPE_UINT64);
      g_value_set_uint64 (v, *(const guint32 *) p);
      break;
    case PLAN_DTYPE_INT64:
      g_value_init (v, G_TYPE_INT64);
      g_value_set_int64 (v, *(const gint64 *) p);
      break;
    case PLAN_DTYPE_UINT64:
      g_value_init (v, G_TYPE_UINT64);
      g_value_set_uint64 (v, *(const guint64 *) p);
      break;
    case PLAN_DTYPE_FLOAT32:
      g_value_init (v, G_TYPE_DOUBLE);
      g_value_set_double (v, *(const gfloat *) p);
      break;
    case PLAN_DTYPE_FLOAT16:{
      guint16 h;

      memcpy (&h, p, 2);
      g_value_init (v, G_TYPE_DOUBLE);
      g_value_set_double (v, _plan_half_to_float (h));
      break;
    }
    case PLAN_DTYPE_COMPLEX64:
    case PLAN_DTYPE_COMPLEX128:{
      /* the real and imaginary parts, < re, im > */
      GValue part = G_VALUE_INIT;
      gint k;

      gst_value_array_init (v, 2);
      for (k = 0; k < 2; k++) {
        g_value_init (&part, G_TYPE_DOUBLE);
        if (dtype == PLAN_DTYPE_COMPLEX64)
          g_value_set_double (&part, ((const gfloat *) p)[k]);
        else
          g_value_set_double (&part, ((const gdouble *) p)[k]);
        gst_value_array_append_and_take_value (v, &part);
        part = (GValue) G_VALUE_INIT;
      }
      break;
    }
    default:
      g_value_init (v, G_TYPE_DOUBLE);
      g_value_set_double (v, *(const gdouble *) p);
      break;
  }
}

static void
set_shape (GstStructure * s, guint ndim, const gint64 * shape)
{
  GValue array = G_VALUE_INIT;
  guint i;

  gst_value_array_init (&array, ndim);
  for (i = 0; i < ndim; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_INT64);
    g_value_set_int64 (&v, shape[i]);
    gst_value_array_append_and_take_value (&array, &v);
  }
  gst_structure_take_value (s, "shape", &array);
}

/**
 * plan_reducer_make_structure:
 * @reducer: a #PlanReducer
 * @element_name: (nullable): the name of the element that reduced, for the
 *   `element` field
 * @values: (array) (element-type guint8): results, of the output dtype: as
 *   written by plan_reducer_finish(), or @n_rows results of one
 *   plan_reducer_push() with #PLAN_REDUCE_AXIS_INNER
 * @n_rows: with #PLAN_REDUCE_AXIS_INNER, the number of results in @values;
 *   ignored otherwise
 * @first_row: with #PLAN_REDUCE_AXIS_INNER, the index of the row of the
 *   first result; ignored otherwise
 *
 * Describes results in a #GstStructure named #PLAN_REDUCER_MESSAGE_NAME,
 * the body of planreduce's element message, with the fields
 * `element` (string), `op` (string: the op's nick or the combiner),
 * `dtype` (string), `shape` (array of gint64: the result's shape, (n_rows,)
 * for #PLAN_REDUCE_AXIS_INNER) and either `value` (a 0-d result) or
 * `values` (an array, in C order), and `array` (a #PlanArray of the
 * result's own dtype and shape, the form language bindings read). Values
 * are gboolean for bool results, gint64 for signed integers, guint64 for
 * unsigned ones, gdouble for floats (float16 converted exactly) and, for
 * complex results, an array of two gdouble, `< real, imaginary >`. With #PLAN_REDUCE_AXIS_INNER there is also `first-row` (guint64);
 * otherwise `rows` (guint64), the number of input rows reduced.
 *
 * Returns: (transfer full): a new structure.
 *
 * Since: 0.1
 */
GstStructure *
plan_reducer_make_structure (PlanReducer * reducer,
    const gchar * element_name, gconstpointer values, gsize n_rows,
    guint64 first_row)
{
  PlanReducer *r = reducer;
  GstStructure *s;
  PlanArray *array;
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  guint ndim, i;
  gsize n = 1, k;

  g_return_val_if_fail (reducer != NULL, NULL);
  g_return_val_if_fail (values != NULL, NULL);

  s = gst_structure_new (PLAN_REDUCER_MESSAGE_NAME,
      "element", G_TYPE_STRING, element_name,
      "op", G_TYPE_STRING, r->name,
      "dtype", G_TYPE_STRING, plan_dtype_to_string (r->output.dtype), NULL);
  if (r->mode == PLAN_REDUCE_AXIS_INNER) {
    ndim = 1;
    shape[0] = n_rows;
    n = n_rows;
  } else {
    ndim = r->output.ndim;
    for (i = 0; i < ndim; i++) {
      shape[i] = r->output.shape[i];
      n *= shape[i];
    }
  }
  set_shape (s, ndim, shape);

  if (ndim == 0) {
    GValue v = G_VALUE_INIT;

    value_to_gvalue (r->output.dtype, values, &v);
    gst_structure_take_value (s, "value", &v);
  } else {
    GValue array = G_VALUE_INIT;

    gst_value_array_init (&array, n);
    for (k = 0; k < n; k++) {
      GValue v = G_VALUE_INIT;

      value_to_gvalue (r->output.dtype,
          (const guint8 *) values + k * r->out_size, &v);
      gst_value_array_append_and_take_value (&array, &v);
    }
    gst_structure_take_value (s, "values", &array);
  }

  array = plan_array_new (r->output.dtype, ndim, shape, NULL);
  if (array) {
    memcpy (plan_array_get_writable_data (array, NULL), values,
        n * r->out_size);
    gst_structure_set (s, "array", PLAN_TYPE_ARRAY, array, NULL);
    g_object_unref (array);
  }

  if (r->mode == PLAN_REDUCE_AXIS_INNER)
    gst_structure_set (s, "first-row", G_TYPE_UINT64, first_row, NULL);
  else
    gst_structure_set (s, "rows", G_TYPE_UINT64, r->n_rows, NULL);
  return s;
}
