/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanExpr: broadcasting. The shapes of the names an expression reads
 * broadcast against each other into the output's, as numpy's do, and
 * each name gets its layout for the evaluation (read directly, one value,
 * or gathered through an index within the row). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planexpr-private.h"

#include <string.h>

#define GST_CAT_DEFAULT plan_expr_debug

/* The most elements a row of a broadcasting result holds: each broadcast
 * name keeps an index per element of a row. */
#define MAX_BCAST_ROW ((guint64) 1 << 26)

static gchar *
info_shape (const PlanArrayInfo * info)
{
  return plan_shape_to_string (info->ndim, info->shape);
}

/* Streams of 0-d arrays: each is one row of one element, so they are
 * broadcast as streams of shape (1,) and the result is 0-d. A 0-d stream
 * beside streams with axes keeps the rule that streams have the same
 * number of axes. */
static gboolean
broadcast_zero_d (PlanExpr * expr, const PlanArrayInfo * infos,
    guint n_streams, PlanArrayInfo * out_info, GError ** error)
{
  PlanArrayInfo *rows = g_memdup2 (infos,
      sizeof (PlanArrayInfo) * expr->n_names);
  gboolean ok;
  guint i;

  for (i = 0; i < n_streams; i++) {
    if (rows[i].ndim != 0) {
      gchar *s = info_shape (&infos[i]);
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "the shapes () of '%s' and %s of '%s' do not broadcast: streams "
          "line up row by row, so they need the same number of axes, and a "
          "0-d stream is one value", expr->names[0], s, expr->names[i]);
      g_free (s);
      g_free (rows);
      return FALSE;
    }
    rows[i].ndim = 1;
    rows[i].shape[0] = 1;
  }
  /* A constant with an axis would give numpy's result that axis, which a
   * stream of one value has no rows for: more axes than the stream. */
  for (i = n_streams; i < expr->n_names; i++) {
    if (expr->uses[i] && infos[i].ndim > 0) {
      gchar *sc = info_shape (&infos[i]);
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "'%s' has shape %s, more axes than the stream '%s' of shape () "
          "it is broadcast against (a 0-d stream is one value; give '%s' "
          "as a 0-d array)", expr->names[i], sc, expr->names[0],
          expr->names[i]);
      g_free (sc);
      g_free (rows);
      return FALSE;
    }
  }
  ok = _plan_expr_broadcast (expr, rows, n_streams, out_info, error);
  g_free (rows);
  if (ok && out_info)
    out_info->ndim = 0;
  return ok;
}

/* numpy's rules, with the rows of the streams lined up: the streams (the
 * first @n_streams names) have the same number of axes, the first being
 * the rows, and their other axes broadcast against each other; the other
 * names (constants, parameters) are the same for every row and broadcast
 * against the whole output shape, aligned on the last axis, with length 1
 * (or no axis) along the rows. Names the expression does not read take no
 * part, except streams, which are the element's inputs either way. Fills
 * expr->bcast and the output's shape. */
gboolean
_plan_expr_broadcast (PlanExpr * expr, const PlanArrayInfo * infos,
    guint n_streams, PlanArrayInfo * out_info, GError ** error)
{
  guint nd, k, i, a;
  gint64 out[PLAN_ARRAY_MAX_DIMS];
  guint setter[PLAN_ARRAY_MAX_DIMS];    /* the name that gave out[a] */
  guint64 p = 1;

  if (n_streams == 0 || n_streams > expr->n_names) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "broadcasting needs at least one stream among the %u names",
        expr->n_names);
    return FALSE;
  }
  nd = infos[0].ndim;
  if (nd == 0)
    return broadcast_zero_d (expr, infos, n_streams, out_info, error);
  k = nd - 1;                   /* inner axes */
  for (a = 0; a < k; a++) {
    out[a] = 1;
    setter[a] = G_MAXUINT;
  }

  for (i = 0; i < expr->n_names; i++) {
    const PlanArrayInfo *in = &infos[i];
    gboolean stream = i < n_streams;
    guint skip, lead;

    if (in->dtype != expr->dtypes[i]) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "name '%s': its shape's dtype is not its dtype", expr->names[i]);
      return FALSE;
    }
    if (!stream && !expr->uses[i])
      continue;
    if (stream && in->ndim != nd) {
      const PlanArrayInfo *fewer = in->ndim < nd ? in : &infos[0];
      gint64 fixed[PLAN_ARRAY_MAX_DIMS];
      gchar *s0 = info_shape (&infos[0]), *s1 = info_shape (in);
      gchar *sf, *so = info_shape (fewer);
      guint j;

      for (j = 0; j < fewer->ndim && j < PLAN_ARRAY_MAX_DIMS - 1; j++)
        fixed[j] = fewer->shape[j];
      fixed[j] = 1;
      sf = plan_shape_to_string (j + 1, fixed);
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "the shapes %s of '%s' and %s of '%s' do not broadcast: streams "
          "line up row by row, so they need the same number of axes (numpy "
          "would align their last axes, putting the rows of one against an "
          "inner axis of the other); to repeat each row's values along the "
          "missing axis, give %s the shape %s", s0, expr->names[0], s1,
          expr->names[i], so, sf);
      g_free (s0);
      g_free (s1);
      g_free (so);
      g_free (sf);
      return FALSE;
    }
    if (!stream && in->ndim > nd) {
      gchar *sc = info_shape (in), *so = info_shape (&infos[0]);
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "'%s' has shape %s, more axes than the stream '%s' of shape %s "
          "it is broadcast against", expr->names[i], sc, expr->names[0], so);
      g_free (sc);
      g_free (so);
      return FALSE;
    }
    if (!stream && in->ndim == nd && in->shape[0] != 1) {
      gchar *sc = info_shape (in), *so = info_shape (&infos[0]);
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "'%s' has shape %s, which does not broadcast against the stream "
          "'%s' of shape %s: its first axis lines up with the rows, and a "
          "constant is the same for every row; give it length 1 there or "
          "drop the axis", expr->names[i], sc, expr->names[0], so);
      g_free (sc);
      g_free (so);
      return FALSE;
    }
    /* The inner axes of @in, aligned on the last axis. */
    skip = stream || in->ndim == nd ? 1 : 0;
    lead = k - (in->ndim - skip);
    for (a = lead; a < k; a++) {
      gint64 d = in->shape[skip + a - lead];
      if (d == out[a])
        continue;
      if (d <= 0) {
        gchar *sc = info_shape (in);
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
            "'%s' has shape %s: an axis of length %" G_GINT64_FORMAT
            " cannot be broadcast", expr->names[i], sc, d);
        g_free (sc);
        return FALSE;
      }
      if (d == 1)
        continue;
      if (out[a] == 1) {
        out[a] = d;
        setter[a] = i;
        continue;
      }
      {
        const PlanArrayInfo *other = &infos[setter[a]];
        gchar *s0 = info_shape (other), *s1 = info_shape (in);
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
            "the shapes %s of '%s' and %s of '%s' do not broadcast: axis "
            "%u of the result would need length %" G_GINT64_FORMAT
            " and %" G_GINT64_FORMAT " (numpy's rules: lengths equal or 1, "
            "aligned on the last axis)", s0, expr->names[setter[a]], s1,
            expr->names[i], a + 1, out[a], d);
        g_free (s0);
        g_free (s1);
        return FALSE;
      }
    }
  }

  for (a = 0; a < k; a++) {
    p *= (guint64) out[a];
    if (p > MAX_BCAST_ROW) {
      gint64 shape[PLAN_ARRAY_MAX_DIMS];
      gchar *so;
      shape[0] = infos[0].shape[0];
      for (a = 0; a < k; a++)
        shape[a + 1] = out[a];
      so = plan_shape_to_string (nd, shape);
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "the result would have shape %s: a broadcast row holds at most %"
          G_GUINT64_FORMAT " elements", so, (guint64) MAX_BCAST_ROW);
      g_free (so);
      return FALSE;
    }
  }
  expr->row_elements = p;
  expr->bcast = g_new0 (ExprBcast, expr->n_names);
  expr->bcast_index = g_new0 (guint64 *, expr->n_names);
  for (i = 0; i < expr->n_names; i++) {
    const PlanArrayInfo *in = &infos[i];
    ExprBcast *b = &expr->bcast[i];
    gboolean stream = i < n_streams;
    guint skip, lead;
    guint64 stride = 1, elements = 1, j;
    gboolean same = TRUE;

    if (!stream && !expr->uses[i])
      continue;                 /* never read: direct, may be NULL */
    skip = stream || in->ndim == nd ? 1 : 0;
    lead = k - (in->ndim - skip);
    b->ndim = k;
    b->size = expr->sizes[i];
    for (a = k; a-- > 0;) {
      gint64 d = a >= lead ? in->shape[skip + a - lead] : 1;
      b->dims[a] = out[a];
      b->out_stride[a] = a + 1 < k ? b->out_stride[a + 1] * out[a + 1] : 1;
      b->strides[a] = d == 1 ? 0 : stride;
      stride *= (guint64) d;
      if (d != out[a])
        same = FALSE;
    }
    elements = stride;
    b->row_stride = stream ? elements : 0;
    if (stream && same) {
      b->kind = EXPR_BCAST_DIRECT;
    } else if (!stream && elements == 1) {
      b->kind = EXPR_BCAST_SCALAR;
      expr->any_bcast = TRUE;
    } else {
      b->kind = EXPR_BCAST_GATHER;
      expr->any_bcast = expr->any_bcast || expr->uses[i];
      expr->bcast_index[i] = g_new (guint64, MAX (p, 1));
      for (j = 0; j < p; j++)
        expr->bcast_index[i][j] = _plan_expr_bcast_index (b, p, j);
    }
    GST_DEBUG ("'%s': name '%s' read %s", expr->source, expr->names[i],
        b->kind == EXPR_BCAST_DIRECT ? "directly" :
        b->kind == EXPR_BCAST_SCALAR ? "as a scalar" : "broadcast");
  }

  if (out_info) {
    plan_array_info_init (out_info);
    out_info->ndim = nd;
    out_info->shape[0] = infos[0].shape[0];
    for (a = 0; a < k; a++)
      out_info->shape[a + 1] = out[a];
  }
  return TRUE;
}
