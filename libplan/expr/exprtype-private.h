/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The typing pass's state, shared by exprtype.c (names, functions,
 * promotion and the typing of each node kind) and exprfold.c (typed
 * constants and the folding of weak literals). */

#ifndef __EXPR_TYPE_PRIVATE_H__
#define __EXPR_TYPE_PRIVATE_H__

#include "expr-private.h"
#include "libplan/core/plan-private.h"

G_BEGIN_DECLS

/* The range of a weak integer literal: what int64 and uint64 hold. */
#define INT128_C(hi) ((__int128) (hi))
#define WEAK_MIN (-INT128_C (G_MAXINT64) - 1)
#define WEAK_MAX ((__int128) G_MAXUINT64)

typedef struct
{
  ExprArena *arena;
  GError **error;
  gboolean failed;
} Typer;

/* The dtype a weak literal takes where nothing else gives it one. */
static inline PlanDType
weak_default (const ExprNode * n)
{
  if (n->weak == EXPR_WEAK_COMPLEX)
    return PLAN_DTYPE_COMPLEX128;
  if (n->weak == EXPR_WEAK_FLOAT)
    return PLAN_DTYPE_FLOAT64;
  return n->value.big > G_MAXINT64 ? PLAN_DTYPE_UINT64 : PLAN_DTYPE_INT64;
}

static inline gboolean
is_weak (const ExprNode * n)
{
  return n->kind == EXPR_NODE_CONST && n->weak != EXPR_WEAK_NONE;
}

static inline gdouble
weak_as_double (const ExprNode * n)
{
  return n->weak == EXPR_WEAK_FLOAT ? n->value.f64 : (gdouble) n->value.big;
}

/* Operations numpy has float loops for only: true division and the
 * binary functions below. Their result is a float whatever the operands,
 * and a Python int meets the float loop's dtype, not the integer
 * operand's. */
static inline gboolean
op_is_float_only (ExprOp o)
{
  switch (o) {
    case EXPR_OP_DIV:
    case EXPR_OP_ATAN2:
    case EXPR_OP_HYPOT:
    case EXPR_OP_COPYSIGN:
    case EXPR_OP_HEAVISIDE:
    case EXPR_OP_LOGADDEXP:
    case EXPR_OP_LOGADDEXP2:
      return TRUE;
    default:
      return FALSE;
  }
}

/* Whether a weak literal is true (non-zero), as bool() takes it. */
static inline gboolean
weak_is_true (const ExprNode * n)
{
  if (n->weak == EXPR_WEAK_COMPLEX)
    return n->value.c128[0] != 0 || n->value.c128[1] != 0;
  return weak_as_double (n) != 0;
}

/* exprtype.c */
G_GNUC_INTERNAL
void _plan_expr_type_error (Typer * t, guint pos, const gchar * format, ...)
    G_GNUC_PRINTF (3, 4);

G_GNUC_INTERNAL
ExprNode * _plan_expr_type_typed_op (Typer * t, ExprNode * n);

/* exprfold.c */
G_GNUC_INTERNAL
void _plan_expr_value_store (ExprValue * v, PlanDType d, __int128 iv,
    gdouble fv, gboolean from_float);

G_GNUC_INTERNAL
ExprNode * _plan_expr_const_node (Typer * t, const ExprNode * at, PlanDType d);

G_GNUC_INTERNAL
ExprNode * _plan_expr_weak_node (Typer * t, const ExprNode * at, ExprWeak weak);

G_GNUC_INTERNAL
ExprNode * _plan_expr_bool_const (Typer * t, const ExprNode * at, gboolean b);

G_GNUC_INTERNAL
ExprNode * _plan_expr_reweaken (ExprNode * n);

G_GNUC_INTERNAL
ExprNode * _plan_expr_fold_strong (Typer * t, ExprNode * op);

G_GNUC_INTERNAL
gboolean _plan_expr_all_const (ExprNode * op);

G_GNUC_INTERNAL
ExprNode * _plan_expr_convert (Typer * t, ExprNode * n, PlanDType d);

G_GNUC_INTERNAL
gboolean _plan_expr_any_weak_complex (const ExprNode * op);

G_GNUC_INTERNAL
ExprNode * _plan_expr_fold_weak_unary (Typer * t, ExprNode * op, ExprNode * a);

G_GNUC_INTERNAL
ExprNode * _plan_expr_fold_weak_binary (Typer * t, ExprNode * op, ExprNode * a,
    ExprNode * b);

G_END_DECLS

#endif /* __EXPR_TYPE_PRIVATE_H__ */
