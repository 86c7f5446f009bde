/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanReducer: custom combiners (plan_reducer_new_custom()): their block,
 * merge and column functions, the identity parsed in the accumulator
 * dtype, the combiner compiled. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planreducer-private.h"
#include <libplan/planerror.h>
#include <libplan/planexpr.h>

#include <errno.h>
#include <math.h>
#include <string.h>

/* Custom combiners ------------------------------------------------------- */

static gsize
next_pow2 (gsize n)
{
  gsize p = 1;

  while (p < n)
    p <<= 1;
  return p;
}

/* A block of a custom combiner: the elements, padded with the identity to
 * the next power of two, are combined pairwise by halves, so that each
 * level is one vectorised evaluation of the combiner. The shape of the tree
 * depends only on @n. @scratch holds two blocks of the accumulator dtype. */
void
_plan_reducer_block_custom (const PlanReducer * r, gconstpointer in, gsize n,
    guint64 base, Acc * out, gpointer scratch)
{
  gsize es = r->acc_size, p = next_pow2 (n), k;
  guint8 *cur = scratch, *other = cur + BLOCK * es, *tmp;
  gconstpointer inputs[2];

  if (r->cast) {
    inputs[0] = in;
    plan_expr_eval (r->cast, inputs, cur, n);
  } else {
    memcpy (cur, in, n * es);
  }
  for (k = n; k < p; k++)
    memcpy (cur + k * es, r->identity.v.raw, es);
  while (p > 1) {
    p /= 2;
    inputs[0] = cur;
    inputs[1] = cur + p * es;
    plan_expr_eval (r->combiner, inputs, other, p);
    tmp = cur;
    cur = other;
    other = tmp;
  }
  memset (out, 0, sizeof (*out));
  memcpy (out->v.raw, cur, es);
}

void
_plan_reducer_merge_custom (const PlanReducer * r, Acc * a, const Acc * b)
{
  gconstpointer inputs[2] = { a->v.raw, b->v.raw };
  Value result;

  plan_expr_eval (r->combiner, inputs, result.raw, 1);
  memcpy (a->v.raw, result.raw, r->acc_size);
}

/* @scratch holds 2 * (c1 - c0) elements of the accumulator dtype. */
void
_plan_reducer_column_custom (PlanReducer * r, Acc * cols, gsize c0, gsize c1,
    gconstpointer row, guint64 row_index, gpointer scratch)
{
  gsize es = r->acc_size, n = c1 - c0;
  guint8 *converted = scratch, *result = converted + n * es;
  gconstpointer inputs[2];

  inputs[0] = r->cols_raw + c0 * es;
  if (r->cast) {
    gconstpointer cast_in[1] = { (const guint8 *) row + c0 * r->in_size };

    plan_expr_eval (r->cast, cast_in, converted, n);
    inputs[1] = converted;
  } else {
    inputs[1] = (const guint8 *) row + c0 * es;
  }
  plan_expr_eval (r->combiner, inputs, result, n);
  memcpy (r->cols_raw + c0 * es, result, n * es);
}

/* Stores the low bits of @v as one element of the integer @dtype. */
static void
store_integer (PlanDType dtype, guint64 v, Value * value)
{
  guint8 u8 = (guint8) v;
  guint16 u16 = (guint16) v;
  guint32 u32 = (guint32) v;

  switch (plan_dtype_get_size (dtype)) {
    case 1:
      memcpy (value->raw, &u8, 1);
      break;
    case 2:
      memcpy (value->raw, &u16, 2);
      break;
    case 4:
      memcpy (value->raw, &u32, 4);
      break;
    default:
      value->u = v;
      break;
  }
}

/* Parses @text as one value of @dtype, into @value. */
gboolean
_plan_reducer_parse_identity (const gchar * text, PlanDType dtype, Value * value,
    GError ** error)
{
  gchar *end = NULL;

  memset (value, 0, sizeof (*value));
  if (dtype == PLAN_DTYPE_BOOL) {
    if (g_ascii_strcasecmp (text, "true") == 0 || g_strcmp0 (text, "1") == 0)
      value->raw[0] = 1;
    else if (g_ascii_strcasecmp (text, "false") != 0
        && g_strcmp0 (text, "0") != 0)
      goto bad;
  } else if (plan_dtype_is_float (dtype)) {
    gdouble d;

    errno = 0;
    d = g_ascii_strtod (text, &end);
    if (end == text || *end != '\0')
      goto bad;
    /* beyond float64's range: infinity is spelled inf */
    if (errno == ERANGE && isinf (d))
      goto bad;
    if (dtype == PLAN_DTYPE_FLOAT32) {
      gfloat f = (gfloat) d;

      if (isfinite (d) && !isfinite (f))
        goto bad;
      memcpy (value->raw, &f, sizeof (f));
    } else if (dtype == PLAN_DTYPE_FLOAT16) {
      /* the float16 nearest the number (ties to even) */
      guint16 h = plan_dtype_float16_from_double (d);

      if (isfinite (d) && (h & 0x7c00) == 0x7c00)
        goto bad;               /* beyond float16's range */
      memcpy (value->raw, &h, sizeof (h));
    } else {
      value->f = d;
    }
  } else if (plan_dtype_is_signed (dtype)) {
    gint bits = 8 * plan_dtype_get_size (dtype);
    gint64 max = bits == 64 ? G_MAXINT64 : ((gint64) 1 << (bits - 1)) - 1;
    gint64 v;

    if (!g_ascii_string_to_signed (text, 10, -max - 1, max, &v, NULL))
      goto bad;
    store_integer (dtype, (guint64) v, value);
  } else {
    gint bits = 8 * plan_dtype_get_size (dtype);
    guint64 max = bits == 64 ? G_MAXUINT64 : ((guint64) 1 << bits) - 1;
    guint64 v;

    if (!g_ascii_string_to_unsigned (text, 10, 0, max, &v, NULL))
      goto bad;
    store_integer (dtype, v, value);
  }
  return TRUE;

  /* ERRORS */
bad:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the identity '%s' is not a valid %s value", text,
        plan_dtype_to_string (dtype));
    return FALSE;
  }
}

/* Element @k of @raw, of the float @dtype, as a double. */
static gdouble
float_at (PlanDType dtype, const guint8 * raw, gsize k)
{
  guint16 h;
  gfloat f;
  gdouble d;

  switch (dtype) {
    case PLAN_DTYPE_FLOAT16:
      memcpy (&h, raw + 2 * k, 2);
      return plan_dtype_float16_to_double (h);
    case PLAN_DTYPE_FLOAT32:
      memcpy (&f, raw + 4 * k, 4);
      return f;
    default:
      memcpy (&d, raw + 8 * k, 8);
      return d;
  }
}

/* What an identity must satisfy, and what a combiner that ignores one of
 * its arguments, or a value that is not its identity, fails: combiner(v,
 * identity) and combiner(identity, v) are v for v the identity itself, 1
 * and 2 (0 and 1 for bools). The reducer puts the identity on both sides
 * (it pads blocks on the right, and starts columns from it on the left).
 * A true identity passes (the check is necessary, not sufficient) where
 * the combiner's arithmetic is exact on these values: "x + 1" with 0,
 * "x * y" with 0, "max(x, y)" with 3, "x" with anything are caught before
 * any data is reduced into a wrong result. */
gboolean
_plan_reducer_check_identity (PlanReducer * r, const gchar * identity,
    GError ** error)
{
  PlanDType acc = plan_expr_get_dtype (r->combiner);
  gsize es = plan_dtype_get_size (acc), k, side;
  const gchar *samples[2] = { "1", "2" };
  /* 64-bit elements, aligned for any dtype the combiner evaluates in */
  guint64 vbuf[3], ebuf[3], obuf[3];
  guint8 *v = (guint8 *) vbuf, *e = (guint8 *) ebuf, *out = (guint8 *) obuf;
  Value s;

  if (acc == PLAN_DTYPE_BOOL)
    samples[1] = "0";
  for (k = 0; k < 3; k++) {
    memcpy (e + k * es, r->identity.v.raw, es);
    if (k == 0)
      memcpy (v, r->identity.v.raw, es);
    else if (_plan_reducer_parse_identity (samples[k - 1], acc, &s, NULL))
      memcpy (v + k * es, s.raw, es);
    else
      memcpy (v + k * es, r->identity.v.raw, es);
  }
  for (side = 0; side < 2; side++) {
    gconstpointer inputs[2] = { side == 0 ? v : e, side == 0 ? e : v };

    plan_expr_eval (r->combiner, inputs, out, 3);
    for (k = 0; k < 3; k++) {
      gboolean same = memcmp (out + k * es, v + k * es, es) == 0;

      if (!same && plan_dtype_is_float (acc)) {
        gdouble a = float_at (acc, out, k), b = float_at (acc, v, k);

        same = a == b || (isnan (a) && isnan (b));
      }
      if (!same)
        goto not_identity;
    }
  }
  return TRUE;

  /* ERRORS */
not_identity:
  {
    const gchar *value = k == 0 ? identity : samples[k - 1];

    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the identity '%s' is no identity of the combiner '%s': with x = %s "
        "and y = %s it does not give %s back, as it must (combiner(v, "
        "identity) and combiner(identity, v) are v for every v: the "
        "identity pads partial blocks, starts each column, and is the "
        "result of an empty stream)", identity, r->name,
        side == 0 ? value : identity, side == 0 ? identity : value, value);
    return FALSE;
  }
}

/* Compiles f(x, y) for @input; when it gives another dtype R (say float64
 * for `x * 0.5` on int32), compiles it again in R and converts the input
 * to R. */
gboolean
_plan_reducer_compile_custom (PlanReducer * r, const gchar * combiner, GError ** error)
{
  static const gchar *const names[] = { "x", "y" };
  PlanDType dtypes[2] = { r->input.dtype, r->input.dtype };
  PlanDType acc;
  gchar *source;

  r->combiner = plan_expr_compile (combiner, 2, names, dtypes, error);
  if (r->combiner == NULL)
    return FALSE;
  acc = plan_expr_get_dtype (r->combiner);
  if (acc == r->input.dtype)
    return TRUE;

  plan_expr_unref (r->combiner);
  dtypes[0] = dtypes[1] = acc;
  r->combiner = plan_expr_compile (combiner, 2, names, dtypes, error);
  if (r->combiner == NULL)
    return FALSE;
  if (plan_expr_get_dtype (r->combiner) != acc)
    goto not_closed;

  source = g_strdup_printf ("%s(x)", plan_dtype_to_string (acc));
  r->cast = plan_expr_compile (source, 1, names, &r->input.dtype, error);
  g_free (source);
  return r->cast != NULL;

  /* ERRORS */
not_closed:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_TYPE,
        "the combiner '%s' must give the dtype of its arguments: on %s it "
        "gives %s, and on %s it gives %s", combiner,
        plan_dtype_to_string (r->input.dtype), plan_dtype_to_string (acc),
        plan_dtype_to_string (acc),
        plan_dtype_to_string (plan_expr_get_dtype (r->combiner)));
    return FALSE;
  }
}
