/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanReducer: its algorithm as the device steps of
 * planreducer-steps.h (the parameters that describe a reducer to them, a
 * custom combiner's hooks), and every built-in reducer's final, which is
 * theirs. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planreducer-private.h"
#include <libplan/planerror.h>
#include <libplan/planexpr.h>
#include <libplan/planparallel.h>
#include <libplan/planarray.h>

#include <math.h>
#include <string.h>

/* The device's steps ------------------------------------------------------ */

#include "planreducerdevice.h"

G_STATIC_ASSERT (sizeof (Acc) == sizeof (PrkAcc));
G_STATIC_ASSERT (G_STRUCT_OFFSET (Acc, w) == G_STRUCT_OFFSET (PrkAcc, w));
G_STATIC_ASSERT (G_STRUCT_OFFSET (Acc, im_lo) ==
    G_STRUCT_OFFSET (PrkAcc, im_lo));
G_STATIC_ASSERT ((int) PRK_FLOAT64 == (int) PLAN_DTYPE_FLOAT64
    && (int) PRK_COMPLEX64 == (int) PLAN_DTYPE_COMPLEX64
    && (int) PRK_COMPLEX128 == (int) PLAN_DTYPE_COMPLEX128
    && (int) PRK_FLOAT16 == (int) PLAN_DTYPE_FLOAT16);
G_STATIC_ASSERT (PRK_KIND_C == (int) KIND_C && PRK_KIND_F == (int) KIND_F);
G_STATIC_ASSERT (PRK_BLOCK == BLOCK && PRK_LANES == LANES);

/* A custom combiner's steps for the device steps on the host: the CPU's
 * own block, merge and column update. */
static void
hook_block (void *data, const void *x, prk_u64 n, prk_u64 base,
    PrkAcc * out)
{
  PlanReducer *r = data;

  _plan_reducer_block_custom (r, x, n, base, (Acc *) out, r->scratch);
}

static void
hook_merge (void *data, PrkAcc * a, const PrkAcc * b)
{
  _plan_reducer_merge_custom (data, (Acc *) a, (const Acc *) b);
}

static void
hook_column (void *data, PrkAcc * a, const void *x, prk_u64 c)
{
  PlanReducer *r = data;
  const guint8 *xc = (const guint8 *) x + c * r->in_size;
  gconstpointer inputs[2];
  Value converted, result;

  inputs[0] = a->v.raw;
  inputs[1] = xc;
  if (r->cast) {
    gconstpointer cast_in[1] = { xc };

    plan_expr_eval (r->cast, cast_in, converted.raw, 1);
    inputs[1] = converted.raw;
  }
  plan_expr_eval (r->combiner, inputs, result.raw, 1);
  memcpy (a->v.raw, result.raw, r->acc_size);
}

/**
 * _plan_reducer_get_custom_exprs:
 *
 * The combiner and the cast (NULL when none) of a custom reducer.
 */
void
_plan_reducer_get_custom_exprs (PlanReducer * reducer, PlanExpr ** combiner,
    PlanExpr ** cast)
{
  *combiner = reducer->custom ? reducer->combiner : NULL;
  *cast = reducer->custom ? reducer->cast : NULL;
}

/* plan_reducer_get_device_steps: a test hook (planreducer-private.h).
 * @reducer: a #PlanReducer
 * @params: (out caller-allocates): the parameters of the steps of
 *   planreducer-steps.h that compute what @reducer computes
 * @mode: (out) (optional): the axis as run (#PLAN_REDUCE_AXIS_ROWS of 1-D
 *   input runs as #PLAN_REDUCE_AXIS_ALL)
 * @row_elements: (out) (optional): elements per input row
 *
 * Describes the reducer's block, merge, column and final functions as the
 * device steps: the algorithm of the block function the reducer picked for
 * its op and dtype, its final, its identity and ddof.
 *
 * For a custom combiner the algorithm is %PRK_A_CUSTOM, whose host steps
 * call the reducer's own block and merge (through @params' hooks).
 *
 * Returns: %TRUE
 */
gboolean
plan_reducer_get_device_steps (PlanReducer * reducer, PrkParams * params,
    PlanReduceAxis * mode, gsize * row_elements)
{
  PlanReducer *r = reducer;
  PlanDType dt, sel;
  PlanReduceOp op;
  PrkParams *p = params;

  g_return_val_if_fail (reducer != NULL, FALSE);
  g_return_val_if_fail (params != NULL, FALSE);

  dt = r->input.dtype;
  memset (p, 0, sizeof (*p));
  if (mode)
    *mode = r->mode;
  if (row_elements)
    *row_elements = r->row_elements;
  p->out_size = r->out_size;
  p->col_rows = MAX (r->col_rows, 1);
  if (r->custom) {
    static const PrkHooks hooks = { hook_block, hook_merge, hook_column };

    p->algo = PRK_A_CUSTOM;
    p->final = PRK_F_RAW;
    p->dtype = dt;
    p->kind = _plan_reducer_dtype_kind (dt);
    p->out_dtype = r->output.dtype;
    p->in_size = r->in_size;
    memcpy (&p->identity, &r->identity, sizeof (p->identity));
    p->hooks = &hooks;
    p->hook_data = r;
    return TRUE;
  }

  /* The choices of _plan_reducer_select_builtin(), by op and dtype (its
   * block functions are those of one copy per instruction set).
   * float16 is reduced as float32 (its block functions are float32's);
   * complex numbers, which have NaNs too, by the algorithms of floats. */
  if (plan_dtype_is_complex (dt))
    sel = dt == PLAN_DTYPE_COMPLEX64 ? PLAN_DTYPE_FLOAT32 : PLAN_DTYPE_FLOAT64;
  else
    sel = dt == PLAN_DTYPE_FLOAT16 ? PLAN_DTYPE_FLOAT32 : dt;
  op = plan_dtype_is_float (sel) ? r->op : _plan_reducer_plain_op (r->op);
  switch (op) {
    case PLAN_REDUCE_OP_SUM:
      p->algo = !plan_dtype_is_float (sel) ? PRK_A_ISUM
          : _plan_reducer_needs_compensation (sel) ? PRK_A_KSUM : PRK_A_DSUM;
      p->final = plan_dtype_is_float (sel) ? PRK_F_SUM : PRK_F_U64;
      break;
    case PLAN_REDUCE_OP_MEAN:
      p->algo = _plan_reducer_needs_compensation (sel) ? PRK_A_KSUM : PRK_A_DSUM;
      p->final = PRK_F_MEAN;
      break;
    case PLAN_REDUCE_OP_PROD:
      p->algo = plan_dtype_is_float (sel) ? PRK_A_FPROD : PRK_A_IPROD;
      p->final = plan_dtype_is_float (sel) ? PRK_F_PROD : PRK_F_U64;
      break;
    case PLAN_REDUCE_OP_MIN:
    case PLAN_REDUCE_OP_MAX:
      p->algo = op == PLAN_REDUCE_OP_MIN ? PRK_A_MIN : PRK_A_MAX;
      p->final = PRK_F_VALUE;
      break;
    case PLAN_REDUCE_OP_ARGMIN:
    case PLAN_REDUCE_OP_ARGMAX:
      p->algo = op == PLAN_REDUCE_OP_ARGMIN ? PRK_A_ARGMIN : PRK_A_ARGMAX;
      p->final = PRK_F_INDEX;
      break;
    case PLAN_REDUCE_OP_ANY:
    case PLAN_REDUCE_OP_ALL:
      p->algo = op == PLAN_REDUCE_OP_ANY ? PRK_A_ANY : PRK_A_ALL;
      p->final = PRK_F_BOOL;
      break;
    case PLAN_REDUCE_OP_NANSUM:
      p->algo = sel == PLAN_DTYPE_FLOAT32 ? PRK_A_NANDSUM : PRK_A_NANKSUM;
      p->final = PRK_F_SUM;
      break;
    case PLAN_REDUCE_OP_NANPROD:
      p->algo = PRK_A_NANFPROD;
      p->final = PRK_F_PROD;
      break;
    case PLAN_REDUCE_OP_NANMEAN:
      p->algo = PRK_A_NANMEAN;
      p->final = PRK_F_NANMEAN;
      break;
    case PLAN_REDUCE_OP_NANMIN:
    case PLAN_REDUCE_OP_NANMAX:
      p->algo = op == PLAN_REDUCE_OP_NANMIN ? PRK_A_NANMIN : PRK_A_NANMAX;
      /* complex: the first value when all are NaN, as numpy's fmin */
      p->final = plan_dtype_is_complex (dt) ? PRK_F_VALUE : PRK_F_NANEXTREME;
      break;
    case PLAN_REDUCE_OP_NANARGMIN:
    case PLAN_REDUCE_OP_NANARGMAX:
      p->algo = op == PLAN_REDUCE_OP_NANARGMIN ? PRK_A_NANARGMIN :
          PRK_A_NANARGMAX;
      p->final = PRK_F_INDEX;
      break;
    case PLAN_REDUCE_OP_VAR:
    case PLAN_REDUCE_OP_STD:
    case PLAN_REDUCE_OP_NANVAR:
    case PLAN_REDUCE_OP_NANSTD:
      p->algo = op == PLAN_REDUCE_OP_VAR || op == PLAN_REDUCE_OP_STD ?
          PRK_A_VAR : PRK_A_NANVAR;
      p->final = op == PLAN_REDUCE_OP_VAR || op == PLAN_REDUCE_OP_NANVAR ?
          PRK_F_VAR : PRK_F_STD;
      break;
    case PLAN_REDUCE_OP_COUNT_NONZERO:
      p->algo = PRK_A_NONZERO;
      p->final = PRK_F_U64;
      break;
    case PLAN_REDUCE_OP_PTP:
      p->algo = PRK_A_PTP;
      p->final = PRK_F_PTP;
      break;
  }

  p->dtype = dt;
  p->kind = _plan_reducer_dtype_kind (dt);
  p->out_dtype = r->output.dtype;
  p->nan_arg = r->nan_arg;
  /* numpy's nanvar of integers and bools is its var: inf, not NaN, where
   * n - ddof <= 0 (they have no NaN, so it takes the plain path). */
  p->nan_var = (r->op == PLAN_REDUCE_OP_NANVAR
      || r->op == PLAN_REDUCE_OP_NANSTD) && plan_dtype_is_float (sel);
  p->in_size = r->in_size;
  p->ddof = r->ddof;
  memcpy (&p->identity, &r->identity, sizeof (p->identity));
  return TRUE;
}

void
_plan_reducer_set_n_rows (PlanReducer * reducer, guint64 n_rows)
{
  reducer->n_rows = n_rows;
}

/* The message of plan_reducer_finish() where nanargmin/nanargmax saw only
 * NaNs. */
const gchar *
_plan_reducer_get_all_nan_text (PlanReducer * reducer)
{
  return reducer->mode == PLAN_REDUCE_AXIS_ROWS
      ? "a column's values are all NaN" : "every value is NaN";
}

/* Every built-in reducer's final is the steps' ----------------------------- */

static void
final_steps (const PlanReducer * r, const Acc * a, guint64 count,
    gpointer out)
{
  PrkParams p = r->prk;

  p.ddof = r->ddof;
  prk_final (&p, (const PrkAcc *) a, count, out);
}

/* The steps' parameters of a built-in reducer, once it is set up, and its
 * final: prk_final() of planreducer-steps.h, the devices' final, for
 * every op and dtype. */
void
_plan_reducer_prepare_steps (PlanReducer * r)
{
  plan_reducer_get_device_steps (r, &r->prk, NULL, NULL);
  r->final = final_steps;
}

/* The merge of compensated sums. One function for every instruction-set
 * copy of the loops (compiled once), so that
 * _plan_reducer_columns_push_arrays() knows it by its address whichever
 * copy chose it. */
void
_plan_reducer_merge_dd (const PlanReducer * r, Acc * a, const Acc * b)
{
  prk_dd_add (a, b->v.f, b->lo);
}

/* The merges of float minima and maxima (the first NaN wins), known by
 * their addresses in the same way. */
void
_plan_reducer_merge_min_f (const PlanReducer * r, Acc * a, const Acc * b)
{
  prk_merge_minmax_f (&a->v, b->v, 1);
}

void
_plan_reducer_merge_max_f (const PlanReducer * r, Acc * a, const Acc * b)
{
  prk_merge_minmax_f (&a->v, b->v, 0);
}

/* A level of float minima or maxima: @v[c] (the later blocks) merged into
 * @node[c] (the earlier ones), as prk_merge_minmax_f(), in @v. Without
 * a branch: which of two block extremes is larger is as random as the
 * data, and a mispredicted branch a column cost more than the merge. */
#define DEFINE_MERGE_EXTREME_LEVEL(name, NODE, EARLIER, OP) \
  static void \
  name (const NODE * restrict node, gdouble * restrict v, gsize w) \
  { \
    gsize c; \
    for (c = 0; c < w; c++) { \
      gdouble a = EARLIER, b = v[c]; \
      guint64 ab, bb, take; \
      take = (guint64) 0 - (guint64) ((a == a) & ((b OP a) | (b != b))); \
      memcpy (&ab, &a, sizeof ab); \
      memcpy (&bb, &b, sizeof bb); \
      ab = (ab & ~take) | (bb & take); \
      memcpy (&v[c], &ab, sizeof ab); \
    } \
  }

DEFINE_MERGE_EXTREME_LEVEL (merge_min_level, Acc, node[c].v.f, <);
DEFINE_MERGE_EXTREME_LEVEL (merge_max_level, Acc, node[c].v.f, >);
/* The same with the earlier blocks' values in an array. */
DEFINE_MERGE_EXTREME_LEVEL (merge_min_level_arrays, gdouble, node[c], <);
DEFINE_MERGE_EXTREME_LEVEL (merge_max_level_arrays, gdouble, node[c], >);

/* A level of double-double sums: the nodes (@nv, @nlo)[c * STRIDE] (the
 * earlier blocks) merged into (@v, @lo)[c] (the later ones), in @v and
 * @lo, as prk_dd_add2() with the NaN of a NaN block kept (its sign and
 * payload, as the merge through accumulators gives on the CPU and the
 * devices, whichever way the compiler orders the addition's operands).
 * Without a branch: every value computed, then the one the branches
 * would give selected (a sum that is not finite with a low part of 0),
 * so that the columns go side by side in vector registers; the same
 * operations on the same values. */
#define DEFINE_MERGE_DD_LEVEL(name, STRIDE) \
  static void VECTORIZE \
  name (const gdouble * restrict nv, const gdouble * restrict nlo, \
      gdouble * restrict v, gdouble * restrict lo, gsize w) \
  { \
    gsize c; \
    for (c = 0; c < w; c++) { \
      gdouble hi = nv[c * (STRIDE)], b = v[c], s = hi + b, bb = s - hi; \
      gdouble e = (hi - (s - bb)) + (b - bb); \
      gdouble l = e + (nlo[c * (STRIDE)] + lo[c]); \
      gdouble h = s + l, lw = l - (h - s); \
      gint finite = (s - s) == 0.0, nan = b != b; \
      v[c] = nan ? b : finite ? h : s; \
      lo[c] = (nan | !finite) ? 0.0 : lw; \
    } \
  }

G_STATIC_ASSERT (sizeof (Acc) % sizeof (gdouble) == 0);

/* from the nodes themselves, and from nodes in arrays */
DEFINE_MERGE_DD_LEVEL (merge_dd_level, sizeof (Acc) / sizeof (gdouble));
DEFINE_MERGE_DD_LEVEL (merge_dd_level_arrays, 1);

/* Whether _plan_reducer_columns_merge_arrays() takes @r's merges: sums
 * of reals and float minima and maxima. */
gboolean
_plan_reducer_columns_merge_in_arrays (const PlanReducer * r)
{
  return r->merge == _plan_reducer_merge_dd
      || r->merge == _plan_reducer_merge_min_f
      || r->merge == _plan_reducer_merge_max_f;
}

/* The merge of a node held in arrays as the open blocks are (@nv, @nlo:
 * the earlier blocks of @w columns) into the later blocks' (@v, @lo),
 * in @v and @lo: the node's fields that merge leaves, as it leaves them
 * (a float extreme's lo is the earlier node's). Only where
 * _plan_reducer_columns_merge_in_arrays(). */
void
_plan_reducer_columns_merge_arrays (const PlanReducer * r,
    const gdouble * nv, const gdouble * nlo, gdouble * v, gdouble * lo,
    gsize w)
{
  if (r->merge == _plan_reducer_merge_dd) {
    merge_dd_level_arrays (nv, nlo, v, lo, w);
    return;
  }
  g_assert (r->merge == _plan_reducer_merge_min_f
      || r->merge == _plan_reducer_merge_max_f);
  if (r->merge == _plan_reducer_merge_min_f)
    merge_min_level_arrays (nv, v, w);
  else
    merge_max_level_arrays (nv, v, w);
  memcpy (lo, nlo, w * sizeof (gdouble));
}

/* The open blocks' fields (@v, @lo) of @w columns stored as the nodes
 * @dst, whose other fields are the identity's: what
 * _plan_reducer_columns_push_arrays() stores without merges where the
 * open blocks are the identity but for those fields. */
void
_plan_reducer_columns_store_arrays (const PlanReducer * r, Acc * dst,
    const gdouble * v, const gdouble * lo, gsize w)
{
  const Acc identity = r->identity;
  gsize c;

  for (c = 0; c < w; c++) {
    dst[c] = identity;
    dst[c].v.f = v[c];
    dst[c].lo = lo[c];
  }
}

/* _plan_reducer_columns_push() for the open blocks of columns [@begin,
 * @end), held in the arrays @v and @lo of a ColumnRowsFunc from column
 * @begin on (and no custom combiner): the same merges. The double-double
 * additions of the real sums run a level of the tree at a time over the
 * columns, in @v and @lo (which they overwrite): independent columns side
 * by side rather than one column's chain of merges after another's, the
 * same operations on each; so do float minima and maxima, in @v.
 * Other merges (complex sums, whose arrays hold two parts a column:
 * _plan_reducer_column_parts()) go column by column. With @cols NULL
 * the open blocks of the columns are the identity but for the fields in
 * @v and @lo, and stay it (nothing is written to them). */
void
_plan_reducer_columns_push_arrays (const PlanReducer * r, Acc * cols,
    Acc * nodes, gdouble * v, gdouble * lo, guint slot, guint merges,
    gsize begin, gsize end)
{
  gsize w = r->row_elements, n = end - begin;
  gsize parts = _plan_reducer_column_parts (r), c;
  Acc *dst = nodes + (gsize) slot * w + begin;
  const Acc identity = r->identity;
  guint i;

  g_assert (cols != NULL || _plan_reducer_columns_merge_in_arrays (r));
  if (cols != NULL)
    cols += begin;
  nodes += begin;
  if (r->merge == _plan_reducer_merge_min_f
      || r->merge == _plan_reducer_merge_max_f) {
    for (i = slot + merges; i > slot; i--) {
      if (r->merge == _plan_reducer_merge_min_f)
        merge_min_level (nodes + (gsize) (i - 1) * w, v, n);
      else
        merge_max_level (nodes + (gsize) (i - 1) * w, v, n);
    }
    /* As below: the last merged node's other fields, or the open
     * block's. */
    if (merges == 0) {
      for (c = 0; c < n; c++) {
        dst[c] = cols ? cols[c] : identity;
        dst[c].lo = lo[c];
        dst[c].v.f = v[c];
      }
    } else {
      for (c = 0; c < n; c++)
        dst[c].v.f = v[c];
    }
    for (c = 0; cols && c < n; c++)
      cols[c] = identity;
    return;
  }
  if (r->merge == _plan_reducer_merge_dd) {
    for (i = slot + merges; i > slot; i--) {
      const Acc *node = nodes + (gsize) (i - 1) * w;

      merge_dd_level (&node->v.f, &node->lo, v, lo, n);
    }
    /* The node's other fields: the last merged node's, which is @dst
     * itself, or without merges the open block's. */
    for (c = 0; c < n; c++) {
      if (merges == 0)
        dst[c] = cols ? cols[c] : identity;
      dst[c].v.f = v[c];
      dst[c].lo = lo[c];
      if (cols)
        cols[c] = identity;
    }
    return;
  }
  for (c = 0; c < n; c++) {
    Acc acc = cols[c];

    _plan_reducer_column_from_arrays (&acc, parts, v + c * parts,
        lo + c * parts);
    for (i = slot + merges; i > slot; i--) {
      Acc merged = nodes[(i - 1) * w + c];

      r->merge (r, &merged, &acc);
      acc = merged;
    }
    dst[c] = acc;
    cols[c] = r->identity;
  }
}
