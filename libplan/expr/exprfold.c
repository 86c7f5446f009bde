/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The typing pass's constants: typed constants stored and converted
 * (a value in range of its dtype, or an error naming it), and the folding
 * of weak literals, the operands that are Python scalars in numpy's
 * NEP 50 sense, with Python's semantics (exact integers, floor division
 * and modulo signs, float functions in double) before they meet an array
 * and take its dtype. The rest of the pass is in exprtype.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "exprtype-private.h"
#include <libplan/planerror.h>

#include <math.h>
#include <string.h>

/* ---- constants ---- */

void
_plan_expr_value_store (ExprValue * v, PlanDType d, __int128 iv, gdouble fv,
    gboolean from_float)
{
  memset (v, 0, sizeof (*v));
#define STORE(T) do { T x = from_float ? (T) fv : (T) iv; memcpy (v->bytes, &x, sizeof (T)); } while (0)
  switch (d) {
    case PLAN_DTYPE_BOOL:
      v->bytes[0] = from_float ? fv != 0 : iv != 0;
      break;
    case PLAN_DTYPE_INT8:
      STORE (gint8);
      break;
    case PLAN_DTYPE_UINT8:
      STORE (guint8);
      break;
    case PLAN_DTYPE_INT16:
      STORE (gint16);
      break;
    case PLAN_DTYPE_UINT16:
      STORE (guint16);
      break;
    case PLAN_DTYPE_INT32:
      STORE (gint32);
      break;
    case PLAN_DTYPE_UINT32:
      STORE (guint32);
      break;
    case PLAN_DTYPE_INT64:
      STORE (gint64);
      break;
    case PLAN_DTYPE_UINT64:
      STORE (guint64);
      break;
    case PLAN_DTYPE_FLOAT32:
      STORE (gfloat);
      break;
    case PLAN_DTYPE_FLOAT64:
      STORE (gdouble);
      break;
    case PLAN_DTYPE_COMPLEX64:
      v->c64[0] = from_float ? (gfloat) fv : (gfloat) iv;
      break;
    case PLAN_DTYPE_COMPLEX128:
      v->c128[0] = from_float ? fv : (gdouble) iv;
      break;
    case PLAN_DTYPE_FLOAT16:{
      guint16 h = _plan_half_from_double (from_float ? fv : (gdouble) iv);
      memcpy (v->bytes, &h, 2);
      break;
    }
    default:
      g_assert_not_reached ();
  }
#undef STORE
}

ExprNode *
_plan_expr_const_node (Typer * t, const ExprNode * at, PlanDType d)
{
  ExprNode *n = _plan_expr_node_new (t->arena, EXPR_NODE_CONST, at->pos,
      at->len);

  n->start = at->start;
  n->end = at->end;
  n->dtype = d;
  n->weak = EXPR_WEAK_NONE;
  return n;
}

ExprNode *
_plan_expr_weak_node (Typer * t, const ExprNode * at, ExprWeak weak)
{
  ExprNode *n = _plan_expr_const_node (t, at, PLAN_DTYPE_UNKNOWN);

  n->weak = weak;
  return n;
}

ExprNode *
_plan_expr_bool_const (Typer * t, const ExprNode * at, gboolean b)
{
  ExprNode *n = _plan_expr_const_node (t, at, PLAN_DTYPE_BOOL);

  n->value.bytes[0] = b ? 1 : 0;
  return n;
}

/* A typed constant result of folding back into a weak literal, the way
 * Python's complex arithmetic leaves a complex or a float. */
ExprNode *
_plan_expr_reweaken (ExprNode * n)
{
  if (n == NULL || n->kind != EXPR_NODE_CONST)
    return n;
  if (n->dtype == PLAN_DTYPE_COMPLEX128)
    n->weak = EXPR_WEAK_COMPLEX;
  else if (n->dtype == PLAN_DTYPE_FLOAT64)
    n->weak = EXPR_WEAK_FLOAT;
  else
    return n;
  n->dtype = PLAN_DTYPE_UNKNOWN;
  return n;
}

/* Evaluates an operation whose operands are all typed constants, with the
 * same CPU kernel that would run on arrays, so folding never changes a
 * result. */
ExprNode *
_plan_expr_fold_strong (Typer * t, ExprNode * op)
{
  ExprKernel k = _plan_expr_node_kernel (op);
  ExprNode *n;
  gconstpointer a[3] = { NULL, NULL, NULL };
  guint i;

  g_assert (k != NULL);
  for (i = 0; i < op->n_args; i++)
    a[i] = op->args[i]->value.bytes;
  n = _plan_expr_const_node (t, op, op->dtype);
  k (1, n->value.bytes, a[0], a[1], a[2]);
  return n;
}

gboolean
_plan_expr_all_const (ExprNode * op)
{
  guint i;

  for (i = 0; i < op->n_args; i++)
    if (op->args[i]->kind != EXPR_NODE_CONST)
      return FALSE;
  return TRUE;
}

/* Gives @n the dtype @d: a weak literal becomes a typed constant, a typed
 * node of another dtype gets a cast. */
ExprNode *
_plan_expr_convert (Typer * t, ExprNode * n, PlanDType d)
{
  ExprNode *c;

  if (is_weak (n) && n->weak == EXPR_WEAK_COMPLEX) {
    gdouble re = n->value.c128[0], im = n->value.c128[1];

    c = _plan_expr_const_node (t, n, d);
    if (d == PLAN_DTYPE_BOOL) {
      c->value.bytes[0] = re != 0 || im != 0;
    } else if (d == PLAN_DTYPE_COMPLEX64) {
      c->value.c64[0] = (gfloat) re;
      c->value.c64[1] = (gfloat) im;
    } else if (d == PLAN_DTYPE_COMPLEX128) {
      c->value = n->value;
    } else {
      /* Promotion never takes a complex literal to a real dtype. */
      g_assert_not_reached ();
    }
    return c;
  }
  if (is_weak (n)) {
    c = _plan_expr_const_node (t, n, d);
    _plan_expr_value_store (&c->value, d, n->value.big, n->value.f64,
        n->weak == EXPR_WEAK_FLOAT);
    return c;
  }
  if (n->dtype == d)
    return n;
  /* float16 has casts to and from the real dtypes: it becomes a complex
   * through the complex's part type, which holds it exactly (and keeps a
   * NaN's bits, as numpy's casts do). */
  if (n->dtype == PLAN_DTYPE_FLOAT16 && plan_dtype_is_complex (d))
    n = _plan_expr_convert (t, n, d == PLAN_DTYPE_COMPLEX128 ?
        PLAN_DTYPE_FLOAT64 : PLAN_DTYPE_FLOAT32);
  c = _plan_expr_node_new (t->arena, EXPR_NODE_OP, n->pos, n->len);
  c->start = n->start;
  c->end = n->end;
  c->op = EXPR_OP_CAST;
  c->n_args = 1;
  c->args[0] = n;
  c->dtype = d;
  c->height = n->height + 1;
  if (n->kind == EXPR_NODE_CONST)
    return _plan_expr_fold_strong (t, c);
  return c;
}

/* ---- weak (literal-only) folding, with Python's semantics ---- */

static gboolean
check_weak_range (Typer * t, ExprNode * n)
{
  if (n->weak == EXPR_WEAK_INT && (n->value.big < WEAK_MIN
          || n->value.big > WEAK_MAX)) {
    _plan_expr_type_error (t, n->pos,
        "the constant expression is out of the 64-bit "
        "integer range");
    return FALSE;
  }
  return TRUE;
}

static __int128
big_floordiv (__int128 a, __int128 b)
{
  __int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    q--;
  return q;
}

static gdouble
float_floordiv (gdouble a, gdouble b, gdouble * modp)
{
  gdouble mod = fmod (a, b), div, floordiv;

  if (b == 0) {
    *modp = mod;
    return a / b;
  }
  div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= 1.0;
    }
  } else {
    mod = copysign (0.0, b);
  }
  if (div != 0) {
    floordiv = floor (div);
    if (div - floordiv > 0.5)
      floordiv += 1.0;
  } else {
    floordiv = copysign (0.0, a / b);
  }
  *modp = mod;
  return floordiv;
}

static gdouble
weak_float_fn (ExprOp op, gdouble x)
{
  switch (op) {
    case EXPR_OP_SQRT:
      return sqrt (x);
    case EXPR_OP_CBRT:
      return cbrt (x);
    case EXPR_OP_EXP:
      return exp (x);
    case EXPR_OP_EXP2:
      return exp2 (x);
    case EXPR_OP_EXPM1:
      return expm1 (x);
    case EXPR_OP_LOG:
      return log (x);
    case EXPR_OP_LOG2:
      return log2 (x);
    case EXPR_OP_LOG10:
      return log10 (x);
    case EXPR_OP_LOG1P:
      return log1p (x);
    case EXPR_OP_SIN:
      return sin (x);
    case EXPR_OP_COS:
      return cos (x);
    case EXPR_OP_TAN:
      return tan (x);
    case EXPR_OP_ASIN:
      return asin (x);
    case EXPR_OP_ACOS:
      return acos (x);
    case EXPR_OP_ATAN:
      return atan (x);
    case EXPR_OP_SINH:
      return sinh (x);
    case EXPR_OP_COSH:
      return cosh (x);
    case EXPR_OP_TANH:
      return tanh (x);
    case EXPR_OP_ASINH:
      return asinh (x);
    case EXPR_OP_ACOSH:
      return acosh (x);
    case EXPR_OP_ATANH:
      return atanh (x);
    case EXPR_OP_FLOOR:
      return floor (x);
    case EXPR_OP_CEIL:
      return ceil (x);
    case EXPR_OP_RINT:
      return rint (x);
    case EXPR_OP_TRUNC:
      return trunc (x);
    default:
      g_assert_not_reached ();
      return 0;
  }
}

/* The float functions of two operands, in float64, as the kernels
 * compute them (kernels/cpu/exprmath.h has the shared definitions). */
static gdouble
weak_float_fn2 (ExprOp op, gdouble x, gdouble y)
{
  switch (op) {
    case EXPR_OP_DIV:
      return x / y;
    case EXPR_OP_ATAN2:
      return atan2 (x, y);
    case EXPR_OP_HYPOT:
      return hypot (x, y);
    case EXPR_OP_COPYSIGN:
      return copysign (x, y);
    case EXPR_OP_HEAVISIDE:
      return x < 0 ? 0.0 : x > 0 ? 1.0 : x == 0 ? y : x;
    case EXPR_OP_LOGADDEXP:
      return _plan_expr_logaddexp (x, y);
    case EXPR_OP_LOGADDEXP2:
      return _plan_expr_logaddexp2 (x, y);
    default:
      g_assert_not_reached ();
      return 0;
  }
}

/* An operation on literals one of which is complex: computed as on
 * complex128 constants (the kernels' complex128 arithmetic is Python's,
 * part by part), and weak again. */
static ExprNode *
fold_weak_complex (Typer * t, ExprNode * op)
{
  guint i;

  for (i = 0; i < op->n_args; i++)
    if (is_weak (op->args[i]))
      op->args[i] = _plan_expr_convert (t, op->args[i], PLAN_DTYPE_COMPLEX128);
  return _plan_expr_reweaken (_plan_expr_type_typed_op (t, op));
}

gboolean
_plan_expr_any_weak_complex (const ExprNode * op)
{
  guint i;

  for (i = 0; i < op->n_args; i++)
    if (op->args[i]->kind == EXPR_NODE_CONST
        && op->args[i]->weak == EXPR_WEAK_COMPLEX)
      return TRUE;
  return FALSE;
}

ExprNode *
_plan_expr_fold_weak_unary (Typer * t, ExprNode * op, ExprNode * a)
{
  ExprNode *n;
  gboolean fl = a->weak == EXPR_WEAK_FLOAT;

  if (a->weak == EXPR_WEAK_COMPLEX)
    return fold_weak_complex (t, op);
  switch (op->op) {
    case EXPR_OP_NEG:
    case EXPR_OP_POS:
    case EXPR_OP_ABS:
    case EXPR_OP_SIGN:
      n = _plan_expr_weak_node (t, op, a->weak);
      if (fl) {
        gdouble x = a->value.f64;
        n->value.f64 = op->op == EXPR_OP_NEG ? -x : op->op == EXPR_OP_POS ? x
            : op->op == EXPR_OP_ABS ? fabs (x)
            : x > 0 ? 1.0 : x < 0 ? -1.0 : x == 0 ? 0.0 : x;
      } else {
        __int128 x = a->value.big;
        n->value.big = op->op == EXPR_OP_NEG ? -x : op->op == EXPR_OP_POS ? x
            : op->op == EXPR_OP_ABS ? (x < 0 ? -x : x) : (x > 0) - (x < 0);
      }
      return check_weak_range (t, n) ? n : NULL;
    case EXPR_OP_BNOT:
      if (fl) {
        _plan_expr_type_error (t, a->pos,
            "'~' needs an integer or bool operand, but "
            "the literal is a float");
        return NULL;
      }
      n = _plan_expr_weak_node (t, op, EXPR_WEAK_INT);
      n->value.big = -a->value.big - 1;
      return check_weak_range (t, n) ? n : NULL;
    case EXPR_OP_LNOT:
      return _plan_expr_bool_const (t, op, weak_as_double (a) == 0);
    case EXPR_OP_ISNAN:
      return _plan_expr_bool_const (t, op, isnan (weak_as_double (a)));
    case EXPR_OP_ISINF:
      return _plan_expr_bool_const (t, op, isinf (weak_as_double (a)));
    case EXPR_OP_ISFINITE:
      return _plan_expr_bool_const (t, op, isfinite (weak_as_double (a)));
    case EXPR_OP_SIGNBIT:
      return _plan_expr_bool_const (t, op, signbit (weak_as_double (a)) != 0);
    case EXPR_OP_NAN_TO_NUM:
      if (!fl)
        return a;
      n = _plan_expr_weak_node (t, op, EXPR_WEAK_FLOAT);
      n->value.f64 = isnan (a->value.f64) ? 0.0 : isinf (a->value.f64) ?
          copysign (G_MAXDOUBLE, a->value.f64) : a->value.f64;
      return n;
    case EXPR_OP_RECIPROCAL:
      n = _plan_expr_weak_node (t, op, a->weak);
      if (fl)
        n->value.f64 = 1.0 / a->value.f64;
      else
        n->value.big = a->value.big == 1 ? 1 : a->value.big == -1 ? -1 : 0;
      return n;
    case EXPR_OP_FLOOR:
    case EXPR_OP_CEIL:
    case EXPR_OP_RINT:
    case EXPR_OP_TRUNC:
      if (!fl)
        return a;
      /* fall through */
    default:
      n = _plan_expr_weak_node (t, op, EXPR_WEAK_FLOAT);
      n->value.f64 = weak_float_fn (op->op, weak_as_double (a));
      return n;
  }
}

static ExprNode *
fold_weak_int_binary (Typer * t, ExprNode * op, __int128 x, __int128 y)
{
  ExprNode *n = _plan_expr_weak_node (t, op, EXPR_WEAK_INT);
  __int128 r = 0;

  switch (op->op) {
    case EXPR_OP_ADD:
      r = x + y;
      break;
    case EXPR_OP_SUB:
      r = x - y;
      break;
    case EXPR_OP_MUL:
      if (__builtin_mul_overflow (x, y, &r))
        r = WEAK_MAX + 1;
      break;
    case EXPR_OP_FLOORDIV:
    case EXPR_OP_MOD:
    case EXPR_OP_FMOD:
      if (y == 0) {
        _plan_expr_type_error (t, op->pos,
            "integer division by zero in a constant "
            "expression");
        return NULL;
      }
      if (op->op == EXPR_OP_FLOORDIV)
        r = big_floordiv (x, y);
      else if (op->op == EXPR_OP_MOD)
        r = x - big_floordiv (x, y) * y;
      else
        r = x % y;
      break;
    case EXPR_OP_POW:
      if (y < 0) {
        n->weak = EXPR_WEAK_FLOAT;
        n->value.f64 = pow ((gdouble) x, (gdouble) y);
        return n;
      }
      if (x == 0 || x == 1) {
        r = y == 0 ? 1 : x;
      } else if (x == -1) {
        r = (y & 1) ? -1 : 1;
      } else {
        /* |x| >= 2: out of range after at most 65 steps. */
        r = 1;
        while (y-- > 0 && r >= WEAK_MIN && r <= WEAK_MAX)
          r *= x;
      }
      break;
    case EXPR_OP_SHL:
    case EXPR_OP_SHR:
      if (y < 0) {
        _plan_expr_type_error (t, op->args[1]->pos, "negative shift count in a "
            "constant expression");
        return NULL;
      }
      if (op->op == EXPR_OP_SHR)
        r = y >= 100 ? (x < 0 ? -1 : 0) : x >> (gint) y;
      else if (x == 0)
        r = 0;
      else if (y > 65)
        r = WEAK_MAX + 1;
      else if (__builtin_mul_overflow (x, (__int128) 1 << (gint) y, &r))
        r = WEAK_MAX + 1;
      break;
    case EXPR_OP_BAND:
      r = x & y;
      break;
    case EXPR_OP_BOR:
      r = x | y;
      break;
    case EXPR_OP_BXOR:
      r = x ^ y;
      break;
    case EXPR_OP_MIN:
    case EXPR_OP_FMIN:
      r = MIN (x, y);
      break;
    case EXPR_OP_MAX:
    case EXPR_OP_FMAX:
      r = MAX (x, y);
      break;
    default:
      g_assert_not_reached ();
  }
  n->value.big = r;
  return check_weak_range (t, n) ? n : NULL;
}

ExprNode *
_plan_expr_fold_weak_binary (Typer * t, ExprNode * op, ExprNode * a,
    ExprNode * b)
{
  gboolean fl = a->weak == EXPR_WEAK_FLOAT || b->weak == EXPR_WEAK_FLOAT;
  gdouble x = weak_as_double (a), y = weak_as_double (b), m;
  ExprNode *n;

  if (_plan_expr_any_weak_complex (op))
    return fold_weak_complex (t, op);
  switch (op->op) {
    case EXPR_OP_LT:
      return _plan_expr_bool_const (t, op,
          fl ? x < y : a->value.big < b->value.big);
    case EXPR_OP_LE:
      return _plan_expr_bool_const (t, op,
          fl ? x <= y : a->value.big <= b->value.big);
    case EXPR_OP_GT:
      return _plan_expr_bool_const (t, op,
          fl ? x > y : a->value.big > b->value.big);
    case EXPR_OP_GE:
      return _plan_expr_bool_const (t, op,
          fl ? x >= y : a->value.big >= b->value.big);
    case EXPR_OP_EQ:
      return _plan_expr_bool_const (t, op,
          fl ? x == y : a->value.big == b->value.big);
    case EXPR_OP_NE:
      return _plan_expr_bool_const (t, op,
          fl ? x != y : a->value.big != b->value.big);
    case EXPR_OP_LAND:
      return _plan_expr_bool_const (t, op, x != 0 && y != 0);
    case EXPR_OP_LOR:
      return _plan_expr_bool_const (t, op, x != 0 || y != 0);
    default:
      break;
  }
  if (op_is_float_only (op->op)) {
    n = _plan_expr_weak_node (t, op, EXPR_WEAK_FLOAT);
    n->value.f64 = weak_float_fn2 (op->op, x, y);
    return n;
  }
  if (!fl)
    return fold_weak_int_binary (t, op, a->value.big, b->value.big);

  n = _plan_expr_weak_node (t, op, EXPR_WEAK_FLOAT);
  switch (op->op) {
    case EXPR_OP_ADD:
      n->value.f64 = x + y;
      break;
    case EXPR_OP_SUB:
      n->value.f64 = x - y;
      break;
    case EXPR_OP_MUL:
      n->value.f64 = x * y;
      break;
    case EXPR_OP_FLOORDIV:
      n->value.f64 = float_floordiv (x, y, &m);
      break;
    case EXPR_OP_MOD:
      float_floordiv (x, y, &m);
      n->value.f64 = y == 0 ? fmod (x, y) : m;
      break;
    case EXPR_OP_FMOD:
      n->value.f64 = fmod (x, y);
      break;
    case EXPR_OP_POW:
      n->value.f64 = pow (x, y);
      break;
    case EXPR_OP_MIN:
    case EXPR_OP_MAX:
      n->value.f64 = isnan (x) || isnan (y) ? NAN
          : op->op == EXPR_OP_MIN ? MIN (x, y) : MAX (x, y);
      break;
    case EXPR_OP_FMIN:
      n->value.f64 = fmin (x, y);
      break;
    case EXPR_OP_FMAX:
      n->value.f64 = fmax (x, y);
      break;
    default:{
      const ExprNode *f = a->weak == EXPR_WEAK_FLOAT ? a : b;
      _plan_expr_type_error (t, f->pos,
          "bitwise %s needs integer or bool operands, "
          "but the literal %.*s is a float", _plan_expr_op_name (op->op),
          (gint) f->len, t->arena->source + f->pos);
      return NULL;
    }
  }
  return n;
}
