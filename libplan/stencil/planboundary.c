/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planboundary
 * @title: PlanBoundary
 * @short_description: what a stencil reads outside the array
 *
 * A stencil centred near the edge of an array reads cells outside it.
 * #PlanBoundary says what they hold, as scipy.ndimage's `mode` does, for an
 * array `a b c d` and a halo of three:
 *
 * |[
 *   constant   k k k | a b c d | k k k      k = cval
 *   nearest    a a a | a b c d | d d d
 *   reflect    c b a | a b c d | d c b
 *   mirror     d c b | a b c d | c b a
 *   wrap       b c d | a b c d | a b c
 *   valid      the result covers only places where the window fits
 * ]|
 *
 * plan_boundary_map_index() gives, for any index, the element a cell
 * holds; plan_boundary_pad_line() pads a line of elements of any size
 * (values, rows, planes) once, so that the stencil then runs on shifted
 * views of the padded block with no test at the edges.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planboundary.h"
#include "libplan/core/plan-private.h"

#include <math.h>
#include <string.h>

/* The rule itself is written once, in kernels/cuda/stencil_index.h: the
 * same text runs here, in the host stencil kernel of the cpu and sim
 * devices, and in the CUDA stencil kernels NVRTC compiles. */
#define PLAN_STENCIL_FN static inline
#include "kernels/cuda/stencil_index.h"

G_STATIC_ASSERT (PLAN_STENCIL_CONSTANT == PLAN_BOUNDARY_CONSTANT);
G_STATIC_ASSERT (PLAN_STENCIL_NEAREST == PLAN_BOUNDARY_NEAREST);
G_STATIC_ASSERT (PLAN_STENCIL_REFLECT == PLAN_BOUNDARY_REFLECT);
G_STATIC_ASSERT (PLAN_STENCIL_MIRROR == PLAN_BOUNDARY_MIRROR);
G_STATIC_ASSERT (PLAN_STENCIL_WRAP == PLAN_BOUNDARY_WRAP);
G_STATIC_ASSERT (PLAN_STENCIL_VALID == PLAN_BOUNDARY_VALID);

GType
plan_boundary_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {PLAN_BOUNDARY_CONSTANT, "Cells outside hold cval: k k k | a b c d | "
          "k k k", "constant"},
    {PLAN_BOUNDARY_NEAREST, "The edge element repeats: a a a | a b c d | "
          "d d d", "nearest"},
    {PLAN_BOUNDARY_REFLECT, "Reflected, edge included: c b a | a b c d | "
          "d c b", "reflect"},
    {PLAN_BOUNDARY_MIRROR, "Mirrored about the edge element: d c b | "
          "a b c d | c b a", "mirror"},
    {PLAN_BOUNDARY_WRAP, "Periodic: b c d | a b c d | a b c", "wrap"},
    {PLAN_BOUNDARY_VALID, "Only where the whole window fits; the output "
          "shrinks by the window size minus one", "valid"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("PlanBoundary", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/**
 * plan_boundary_to_string:
 * @boundary: a #PlanBoundary
 *
 * Returns: (transfer none): the mode's name (`constant`, `nearest`, …), or
 *   `unknown`
 *
 * Since: 0.1
 */
const gchar *
plan_boundary_to_string (PlanBoundary boundary)
{
  GEnumClass *klass = g_type_class_ref (PLAN_TYPE_BOUNDARY);
  GEnumValue *v = g_enum_get_value (klass, boundary);
  const gchar *nick = v ? v->value_nick : "unknown";

  g_type_class_unref (klass);
  return nick;
}

/**
 * plan_boundary_map_index:
 * @boundary: a #PlanBoundary
 * @index: an index along an axis, inside the array or outside it
 * @n: the length of the axis, at least one
 *
 * Maps an index to the element the cell at @index holds under @boundary,
 * for any @index, however far outside the array: `reflect` and `wrap` are
 * periodic (periods 2n and n) and `mirror` has period 2n - 2, as in
 * scipy.ndimage.
 *
 * Returns: the element's index in [0, @n), or -1 when the cell holds the
 *   constant (@boundary `constant`, or `valid`, outside the array)
 *
 * Since: 0.1
 */
gint64
plan_boundary_map_index (PlanBoundary boundary, gint64 index, gint64 n)
{
  g_return_val_if_fail (n > 0, -1);

  return plan_stencil_map (boundary, index, n);
}

/**
 * plan_boundary_pad_line:
 * @boundary: a #PlanBoundary
 * @elem_size: the size in bytes of one element of the line: a value, or a
 *   whole (padded) row or plane when padding an outer axis
 * @src: (nullable): the @n elements of the line; %NULL when they are
 *   already in place at `dst + before * elem_size`
 * @n: the number of elements, at least one
 * @before: the number of cells to fill before the line
 * @after: the number of cells to fill after it
 * @fill: (nullable): one element's bytes for `constant`; %NULL fills with
 *   zero bytes
 * @dst: where the @before + @n + @after padded elements go; it may not
 *   overlap @src
 *
 * Writes a line padded with its boundary cells. Any @before and @after
 * are allowed, larger than @n included.
 *
 * Since: 0.1
 */
void
plan_boundary_pad_line (PlanBoundary boundary, gsize elem_size,
    gconstpointer src, gsize n, gsize before, gsize after,
    gconstpointer fill, gpointer dst)
{
  guint8 *out = dst;
  guint8 *line = out + before * elem_size;
  gint64 i;

  g_return_if_fail (n > 0);

  if (src != NULL)
    memcpy (line, src, n * elem_size);

  for (i = -(gint64) before; i < (gint64) (n + after); i++) {
    guint8 *cell;
    gint64 j;

    if (i == 0)
      i = n;
    if (i >= (gint64) (n + after))
      break;
    cell = line + i * (gssize) elem_size;
    j = plan_boundary_map_index (boundary, i, n);
    if (j >= 0)
      memcpy (cell, line + j * elem_size, elem_size);
    else if (fill != NULL)
      memcpy (cell, fill, elem_size);
    else
      memset (cell, 0, elem_size);
  }
}

#define CONVERT_INT(ctype, lo, hi) G_STMT_START {                     \
    ctype v;                                                            \
    if (isnan (cval))                                                   \
      v = 0;                                                            \
    else if (cval <= (gdouble) (lo))                                    \
      v = (lo);                                                         \
    else if (cval >= (gdouble) (hi))                                    \
      v = (hi);                                                         \
    else                                                                \
      v = (ctype) cval;                                                 \
    memcpy (dst, &v, sizeof (v));                                       \
    exact = (gdouble) v == cval;                                        \
  } G_STMT_END

/**
 * plan_boundary_fill_from_double:
 * @dtype: the array's dtype
 * @cval: the constant cells outside the array hold
 * @dst: (out caller-allocates): room for one element of @dtype
 *
 * Converts @cval to @dtype for plan_boundary_pad_line()'s @fill: floats
 * are rounded to the nearest, integers truncated toward zero and clamped
 * to the dtype's range (NaN becomes 0), bool is @cval != 0.
 *
 * Returns: %TRUE when the element holds @cval exactly
 *
 * Since: 0.1
 */
gboolean
plan_boundary_fill_from_double (PlanDType dtype, gdouble cval, gpointer dst)
{
  gboolean exact = FALSE;

  g_return_val_if_fail (dst != NULL, FALSE);

  switch (dtype) {
    case PLAN_DTYPE_BOOL:{
      guint8 v = cval != 0;
      memcpy (dst, &v, 1);
      exact = cval == 0 || cval == 1;
      break;
    }
    case PLAN_DTYPE_INT8:
      CONVERT_INT (gint8, G_MININT8, G_MAXINT8);
      break;
    case PLAN_DTYPE_UINT8:
      CONVERT_INT (guint8, 0, G_MAXUINT8);
      break;
    case PLAN_DTYPE_INT16:
      CONVERT_INT (gint16, G_MININT16, G_MAXINT16);
      break;
    case PLAN_DTYPE_UINT16:
      CONVERT_INT (guint16, 0, G_MAXUINT16);
      break;
    case PLAN_DTYPE_INT32:
      CONVERT_INT (gint32, G_MININT32, G_MAXINT32);
      break;
    case PLAN_DTYPE_UINT32:
      CONVERT_INT (guint32, 0, G_MAXUINT32);
      break;
    case PLAN_DTYPE_INT64:
      CONVERT_INT (gint64, G_MININT64, G_MAXINT64);
      break;
    case PLAN_DTYPE_UINT64:
      CONVERT_INT (guint64, 0, G_MAXUINT64);
      break;
    case PLAN_DTYPE_FLOAT32:{
      gfloat v = cval;
      memcpy (dst, &v, sizeof (v));
      exact = (gdouble) v == cval || (isnan (v) && isnan (cval));
      break;
    }
    case PLAN_DTYPE_FLOAT64:
      memcpy (dst, &cval, sizeof (cval));
      exact = TRUE;
      break;
    case PLAN_DTYPE_COMPLEX64:{
      /* The value is the real part; the imaginary part is 0. */
      gfloat v[2] = { cval, 0 };
      memcpy (dst, v, sizeof (v));
      exact = (gdouble) v[0] == cval || (isnan (v[0]) && isnan (cval));
      break;
    }
    case PLAN_DTYPE_COMPLEX128:{
      gdouble v[2] = { cval, 0 };
      memcpy (dst, v, sizeof (v));
      exact = TRUE;
      break;
    }
    case PLAN_DTYPE_FLOAT16:{
      guint16 h = _plan_half_from_double (cval);
      memcpy (dst, &h, sizeof (h));
      exact = plan_dtype_float16_to_double (h) == cval
          || (isnan (cval) && (h & 0x7fff) > 0x7c00);
      break;
    }
    default:
      g_return_val_if_reached (FALSE);
  }
  return exact;
}

/**
 * plan_boundary_param_spec_cval:
 * @name: the property's name
 * @nick: its nick
 * @blurb: its description
 * @default_value: its default
 * @flags: its flags
 *
 * Makes a double property for a constant boundary value that takes every
 * double scipy.ndimage takes as `cval`: `-inf` to `inf`, and NaN, which a
 * plain g_param_spec_double() refuses. It is a #GParamSpecDouble: set it
 * and read it as any double property.
 *
 * Returns: (transfer floating): the new #GParamSpec
 *
 * Since: 0.1
 */
GParamSpec *
plan_boundary_param_spec_cval (const gchar * name, const gchar * nick,
    const gchar * blurb, gdouble default_value, GParamFlags flags)
{
  return _plan_param_spec_double_all (name, nick, blurb, default_value,
      flags);
}
