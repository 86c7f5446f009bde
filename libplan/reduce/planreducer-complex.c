/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanReducer: complex and float16 input (the functions
 * _plan_reducer_select_builtin() picks for them). Compiled once per
 * instruction set with planreducer-ops.c (planreducer-isa.h): the complex
 * sums' lane loops are that set's. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planreducer-private.h"
#include "libplan/core/plan-private.h"

#include <math.h>
#include <string.h>

/* Complex and float16 input --------------------------------------------
 *
 * Complex reductions run the steps of planreducer-steps.h, the device's
 * text, on the CPU: one element at a time in the lanes (not vectorised),
 * the same operations as the device's by construction. float16 input is
 * converted to float32 (exactly) a block or a piece of a row at a time and
 * reduced by float32's functions, which accumulate in float64 as for
 * float32; the final rounds once to float16 (every reducer's final is
 * the steps'). */

static void
block_steps (const PlanReducer * r, gconstpointer in, gsize n,
    guint64 base, Acc * out, gpointer scratch)
{
  prk_block (&r->prk, in, n, base, (PrkAcc *) out);
}

static void
merge_steps (const PlanReducer * r, Acc * a, const Acc * b)
{
  prk_merge (&r->prk, (PrkAcc *) a, (const PrkAcc *) b);
}

static void
column_steps (PlanReducer * r, Acc * cols, gsize c0, gsize c1,
    gconstpointer row, guint64 row_index, gpointer scratch)
{
  gsize c;

  for (c = c0; c < c1; c++)
    prk_column_step (&r->prk, (PrkAcc *) & cols[c], row, c, row_index);
}

static void
block_f16 (const PlanReducer * r, gconstpointer in, gsize n, guint64 base,
    Acc * out, gpointer scratch)
{
  const guint16 *h = in;
  gfloat x[BLOCK];
  gsize i;

  for (i = 0; i < n; i++)
    x[i] = _plan_half_to_float (h[i]);
  r->block16 (r, x, n, base, out, scratch);
}

/* Pieces of F16_PIECE columns: column functions index the accumulators
 * and the row alike, so a piece is run as columns [0, width) of shifted
 * arrays. */
#define F16_PIECE 512

static void
column_f16 (PlanReducer * r, Acc * cols, gsize c0, gsize c1,
    gconstpointer row, guint64 row_index, gpointer scratch)
{
  const guint16 *h = row;
  gfloat x[F16_PIECE];
  gsize a, b, c;

  for (a = c0; a < c1; a = b) {
    b = MIN (c1, a + F16_PIECE);
    for (c = a; c < b; c++)
      x[c - a] = _plan_half_to_float (h[c]);
    r->column16 (r, cols + a, 0, b - a, x, row_index, scratch);
  }
}

/* Complex sums and means, vectorised: the steps' DSUM (complex64) and
 * KSUM (complex128) lanes over the interleaved numbers. Lane l of the
 * steps sums the real parts of elements l, l + 16, ... and, beside it, the
 * imaginary parts; as reals, element i's parts are reals 2i and 2i + 1,
 * so the 16 lanes are 32 accumulators k over the reals k, k + 32, ...,
 * with the real parts in the even ones. The operations and their order
 * are the steps' (the lanes then combined by the steps' own functions), so
 * the bits are the device's; tests/check/libs/reducerdevice.c compares
 * them. */
#define CLANES (2 * PRK_LANES)

static void BLOCK_CLONES VECTORIZE
csum_lanes_c64 (const gfloat * restrict x, gsize n_reals,
    gdouble * restrict out)
{
  gdouble s[CLANES] = { 0 };
  gsize j = 0, k;

  for (; j + CLANES <= n_reals; j += CLANES)
    for (k = 0; k < CLANES; k++)
      s[k] += (gdouble) x[j + k];
  for (k = 0; j + k < n_reals; k++)
    s[k] += (gdouble) x[j + k];
  memcpy (out, s, sizeof (s));
}

static void BLOCK_CLONES VECTORIZE
cksum_lanes_c128 (const gdouble * restrict x, gsize n_reals,
    gdouble * restrict out)
{
  gdouble s[CLANES] = { 0 }, c[CLANES] = { 0 }, p[CLANES] = { 0 };
  gsize j = 0, k;

#define CKSUM_STEP(k) G_STMT_START { \
    gdouble y = x[j + (k)], t = s[k] + y, z = t - s[k]; \
    p[k] += y; \
    c[k] += (s[k] - (t - z)) + (y - z); \
    s[k] = t; \
  } G_STMT_END
  for (; j + CLANES <= n_reals; j += CLANES)
    for (k = 0; k < CLANES; k++)
      CKSUM_STEP (k);
  for (k = 0; j + k < n_reals; k++)
    CKSUM_STEP (k);
#undef CKSUM_STEP
  memcpy (out, s, sizeof (s));
  memcpy (out + CLANES, c, sizeof (c));
  memcpy (out + 2 * CLANES, p, sizeof (p));
}

static void
block_csum (const PlanReducer * r, gconstpointer in, gsize n,
    guint64 base, Acc * out, gpointer scratch)
{
  gdouble lanes[3 * CLANES], v[PRK_LANES], w[PRK_LANES], u[PRK_LANES];
  guint k;

  memset (out, 0, sizeof (*out));
  if (r->input.dtype == PLAN_DTYPE_COMPLEX64) {
    /* prk_block_end_c's DSUM */
    csum_lanes_c64 (in, 2 * n, lanes);
    for (k = 0; k < PRK_LANES; k++) {
      v[k] = lanes[2 * k];
      w[k] = lanes[2 * k + 1];
    }
    out->v.f = prk_lanes_sum (v);
    out->im = prk_lanes_sum (w);
    return;
  }
  /* prk_block_end_c's KSUM, part by part: s, c, p are lanes, lanes +
   * CLANES and lanes + 2 CLANES */
  cksum_lanes_c128 (in, 2 * n, lanes);
  for (k = 0; k < 2; k++) {
    PrkAcc t;
    guint l;

    for (l = 0; l < PRK_LANES; l++) {
      v[l] = lanes[2 * l + k];
      w[l] = lanes[CLANES + 2 * l + k];
      u[l] = lanes[2 * CLANES + 2 * l + k];
    }
    prk_lanes_ksum (v, w, u, &t);
    if (k == 0) {
      out->v.f = t.v.f;
      out->lo = t.lo;
    } else {
      out->im = t.v.f;
      out->im_lo = t.lo;
    }
  }
}

/* The columns of complex sums and means: prk_column_step_c's DSUM and
 * KSUM, without its dispatch per element. Over many rows they run as the
 * column loops of the parts' real dtype (planreducer-ops.c,
 * select_complex_sum_rows()), which do the same steps. */
static void
column_csum (PlanReducer * r, Acc * cols, gsize c0, gsize c1,
    gconstpointer row, guint64 row_index, gpointer scratch)
{
  gsize c;

  if (r->input.dtype == PLAN_DTYPE_COMPLEX64) {
    const gfloat *x = row;

    for (c = c0; c < c1; c++) {
      cols[c].v.f += (gdouble) x[2 * c];
      cols[c].im += (gdouble) x[2 * c + 1];
    }
    return;
  }
  for (c = c0; c < c1; c++) {
    const gdouble *x = (const gdouble *) row + 2 * c;
    Acc *a = &cols[c];
    gdouble t, z;

    t = a->v.f + x[0];
    z = t - a->v.f;
    a->lo += prk_isfinite (t) ? (a->v.f - (t - z)) + (x[0] - z) : 0.0;
    a->v.f = t;
    t = a->im + x[1];
    z = t - a->im;
    a->im_lo += prk_isfinite (t) ? (a->im - (t - z)) + (x[1] - z) : 0.0;
    a->im = t;
  }
}

/* Picks the functions of a built-in op for complex input, and its
 * identity; the caller adds the column loops over many rows of sums and
 * means. */
void
_plan_reducer_select_complex (PlanReducer * r)
{
  Acc *id = &r->identity;

  r->block = block_steps;
  r->merge = merge_steps;
  r->column = column_steps;
  r->column_rows = NULL;
  if (r->op == PLAN_REDUCE_OP_SUM || r->op == PLAN_REDUCE_OP_MEAN) {
    r->block = block_csum;
    r->column = column_csum;
  }
  switch (r->op) {
    case PLAN_REDUCE_OP_PROD:
    case PLAN_REDUCE_OP_NANPROD:
      id->v.f = 1.0;
      break;
    case PLAN_REDUCE_OP_ALL:
      id->v.u = 1;
      break;
    case PLAN_REDUCE_OP_MIN:
    case PLAN_REDUCE_OP_NANMIN:
    case PLAN_REDUCE_OP_ARGMIN:
    case PLAN_REDUCE_OP_NANARGMIN:
      id->v.f = id->im = INFINITY;
      break;
    case PLAN_REDUCE_OP_MAX:
    case PLAN_REDUCE_OP_NANMAX:
    case PLAN_REDUCE_OP_ARGMAX:
    case PLAN_REDUCE_OP_NANARGMAX:
      id->v.f = id->im = -INFINITY;
      break;
    case PLAN_REDUCE_OP_PTP:
      id->v.f = id->im = -INFINITY;
      id->w.f = id->lo = INFINITY;
      break;
    default:
      break;
  }
  switch (r->op) {
    case PLAN_REDUCE_OP_MIN:
    case PLAN_REDUCE_OP_MAX:
    case PLAN_REDUCE_OP_ARGMIN:
    case PLAN_REDUCE_OP_ARGMAX:
      id->index = G_MAXUINT64;      /* none */
      break;
    case PLAN_REDUCE_OP_PTP:
      id->index = G_MAXUINT64;
      id->im_lo = -1;               /* the minimum's index: none */
      break;
    case PLAN_REDUCE_OP_NANARGMIN:
    case PLAN_REDUCE_OP_NANARGMAX:
      id->index = id->w.u = G_MAXUINT64;
      r->nan_arg = TRUE;
      break;
    default:
      break;
  }
}

/* Picks float32's functions of a built-in op for float16 input, run over
 * the input converted to float32. */
void
_plan_reducer_select_float16 (PlanReducer * r)
{
  r->input.dtype = PLAN_DTYPE_FLOAT32;
  _plan_reducer_select_builtin (r);
  r->input.dtype = PLAN_DTYPE_FLOAT16;
  r->block16 = r->block;
  r->block = block_f16;
  r->column16 = r->column;
  r->column = column_f16;
  r->column_rows = NULL;
}
