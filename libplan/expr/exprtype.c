/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The typing pass: resolves names and functions, applies numpy's type
 * promotion with NEP 50 weak literals, folds constants and rewrites the
 * tree so that every operation's operands have exactly the dtype its
 * kernel computes in (casts and typed constants are inserted). After it,
 * the CPU program builder and the CUDA code generator need no type
 * knowledge of their own. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "exprtype-private.h"
#include <libplan/planerror.h>

#include <math.h>
#include <string.h>

typedef enum
{
  CAT_UNARY_SAME,               /* result has the operand's dtype */
  CAT_UNARY_FLOAT,              /* ints go to float */
  CAT_UNARY_ROUND,              /* ints unchanged */
  CAT_UNARY_CLASS,              /* isnan & co: bool result */
  CAT_BINARY,
  CAT_CLIP,
  CAT_WHERE,
  CAT_CAST,
} FuncCat;

/* Functions that the typing pass rewrites into other operations, or that
 * need a rule of their own (numpy's, for the names it has). */
typedef enum
{
  SUGAR_NONE,
  SUGAR_IDENTITY,               /* copy: the operand itself */
  SUGAR_REAL,                   /* real part: a real operand itself */
  SUGAR_IMAG,                   /* imaginary part: 0 for a real operand */
  SUGAR_CONJ,                   /* conj: a real operand itself (bool
                                 * becomes int8) */
  SUGAR_ANGLE,                  /* atan2 (imag, real) */
  SUGAR_ONES_LIKE,              /* a constant 1 of the operand's dtype */
  SUGAR_FABS,                   /* abs computed in float */
  SUGAR_FLOAT_POWER,            /* ** computed in float64 */
  SUGAR_POSITIVE,               /* unary + that refuses bool */
  SUGAR_LOGICAL_XOR,            /* bool(x) != bool(y) */
  SUGAR_SQUARE,                 /* x * x; bool becomes int8 */
  SUGAR_DEG2RAD,                /* x * (pi / 180) in float */
  SUGAR_RAD2DEG,                /* x * (180 / pi) in float */
} Sugar;

typedef struct
{
  const gchar *name;
  ExprOp op;
  guint n_args;
  Sugar sugar;
} FuncDesc;

/* Every function, under the language's short name and under numpy's ufunc
 * name (and numexpr's names) where those differ. The first name of an
 * operation is the one messages use. */
static const FuncDesc functions[] = {
  {"abs", EXPR_OP_ABS, 1}, {"absolute", EXPR_OP_ABS, 1},
  {"fabs", EXPR_OP_ABS, 1, SUGAR_FABS},
  {"sign", EXPR_OP_SIGN, 1},
  {"sqrt", EXPR_OP_SQRT, 1}, {"cbrt", EXPR_OP_CBRT, 1},
  {"square", EXPR_OP_SQUARE, 1, SUGAR_SQUARE},
  {"reciprocal", EXPR_OP_RECIPROCAL, 1},
  {"negative", EXPR_OP_NEG, 1}, {"positive", EXPR_OP_POS, 1, SUGAR_POSITIVE},
  {"exp", EXPR_OP_EXP, 1}, {"exp2", EXPR_OP_EXP2, 1},
  {"expm1", EXPR_OP_EXPM1, 1}, {"log", EXPR_OP_LOG, 1},
  {"log2", EXPR_OP_LOG2, 1}, {"log10", EXPR_OP_LOG10, 1},
  {"log1p", EXPR_OP_LOG1P, 1}, {"sin", EXPR_OP_SIN, 1},
  {"cos", EXPR_OP_COS, 1}, {"tan", EXPR_OP_TAN, 1},
  {"asin", EXPR_OP_ASIN, 1}, {"arcsin", EXPR_OP_ASIN, 1},
  {"acos", EXPR_OP_ACOS, 1}, {"arccos", EXPR_OP_ACOS, 1},
  {"atan", EXPR_OP_ATAN, 1}, {"arctan", EXPR_OP_ATAN, 1},
  {"atan2", EXPR_OP_ATAN2, 2}, {"arctan2", EXPR_OP_ATAN2, 2},
  {"sinh", EXPR_OP_SINH, 1}, {"cosh", EXPR_OP_COSH, 1},
  {"tanh", EXPR_OP_TANH, 1},
  {"asinh", EXPR_OP_ASINH, 1}, {"arcsinh", EXPR_OP_ASINH, 1},
  {"acosh", EXPR_OP_ACOSH, 1}, {"arccosh", EXPR_OP_ACOSH, 1},
  {"atanh", EXPR_OP_ATANH, 1}, {"arctanh", EXPR_OP_ATANH, 1},
  {"deg2rad", EXPR_OP_MUL, 1, SUGAR_DEG2RAD},
  {"radians", EXPR_OP_MUL, 1, SUGAR_DEG2RAD},
  {"rad2deg", EXPR_OP_MUL, 1, SUGAR_RAD2DEG},
  {"degrees", EXPR_OP_MUL, 1, SUGAR_RAD2DEG},
  {"floor", EXPR_OP_FLOOR, 1}, {"ceil", EXPR_OP_CEIL, 1},
  {"rint", EXPR_OP_RINT, 1}, {"round", EXPR_OP_RINT, 1},
  {"around", EXPR_OP_RINT, 1},
  {"trunc", EXPR_OP_TRUNC, 1}, {"minimum", EXPR_OP_MIN, 2},
  {"min", EXPR_OP_MIN, 2}, {"maximum", EXPR_OP_MAX, 2},
  {"max", EXPR_OP_MAX, 2}, {"fmin", EXPR_OP_FMIN, 2},
  {"fmax", EXPR_OP_FMAX, 2}, {"pow", EXPR_OP_POW, 2},
  {"power", EXPR_OP_POW, 2},
  {"float_power", EXPR_OP_POW, 2, SUGAR_FLOAT_POWER},
  {"fmod", EXPR_OP_FMOD, 2}, {"hypot", EXPR_OP_HYPOT, 2},
  {"add", EXPR_OP_ADD, 2}, {"subtract", EXPR_OP_SUB, 2},
  {"multiply", EXPR_OP_MUL, 2}, {"divide", EXPR_OP_DIV, 2},
  {"true_divide", EXPR_OP_DIV, 2}, {"floor_divide", EXPR_OP_FLOORDIV, 2},
  {"remainder", EXPR_OP_MOD, 2}, {"mod", EXPR_OP_MOD, 2},
  {"left_shift", EXPR_OP_SHL, 2}, {"right_shift", EXPR_OP_SHR, 2},
  {"bitwise_and", EXPR_OP_BAND, 2}, {"bitwise_or", EXPR_OP_BOR, 2},
  {"bitwise_xor", EXPR_OP_BXOR, 2}, {"bitwise_not", EXPR_OP_BNOT, 1},
  {"invert", EXPR_OP_BNOT, 1},
  {"logical_and", EXPR_OP_LAND, 2}, {"logical_or", EXPR_OP_LOR, 2},
  {"logical_xor", EXPR_OP_NE, 2, SUGAR_LOGICAL_XOR},
  {"logical_not", EXPR_OP_LNOT, 1},
  {"less", EXPR_OP_LT, 2}, {"less_equal", EXPR_OP_LE, 2},
  {"greater", EXPR_OP_GT, 2}, {"greater_equal", EXPR_OP_GE, 2},
  {"equal", EXPR_OP_EQ, 2}, {"not_equal", EXPR_OP_NE, 2},
  {"copysign", EXPR_OP_COPYSIGN, 2}, {"heaviside", EXPR_OP_HEAVISIDE, 2},
  {"logaddexp", EXPR_OP_LOGADDEXP, 2}, {"logaddexp2", EXPR_OP_LOGADDEXP2, 2},
  {"clip", EXPR_OP_CLIP, 3}, {"where", EXPR_OP_WHERE, 3},
  {"isnan", EXPR_OP_ISNAN, 1}, {"isinf", EXPR_OP_ISINF, 1},
  {"isfinite", EXPR_OP_ISFINITE, 1}, {"signbit", EXPR_OP_SIGNBIT, 1},
  {"nan_to_num", EXPR_OP_NAN_TO_NUM, 1},
  {"copy", EXPR_OP_NONE, 1, SUGAR_IDENTITY},
  {"real", EXPR_OP_REAL, 1, SUGAR_REAL},
  {"imag", EXPR_OP_IMAG, 1, SUGAR_IMAG},
  {"angle", EXPR_OP_ANGLE, 1, SUGAR_ANGLE},
  {"conj", EXPR_OP_CONJ, 1, SUGAR_CONJ},
  {"conjugate", EXPR_OP_CONJ, 1, SUGAR_CONJ},
  {"ones_like", EXPR_OP_NONE, 1, SUGAR_ONES_LIKE},
};

static const gchar *const op_names[EXPR_OP_N] = {
  [EXPR_OP_NEG] = "unary '-'",[EXPR_OP_POS] = "unary '+'",
  [EXPR_OP_BNOT] = "'~'",[EXPR_OP_LNOT] = "'!'",
  [EXPR_OP_ABS] = "abs",[EXPR_OP_SIGN] = "sign",[EXPR_OP_SQRT] = "sqrt",
  [EXPR_OP_CBRT] = "cbrt",[EXPR_OP_EXP] = "exp",[EXPR_OP_EXP2] = "exp2",
  [EXPR_OP_EXPM1] = "expm1",[EXPR_OP_LOG] = "log",[EXPR_OP_LOG2] = "log2",
  [EXPR_OP_LOG10] = "log10",[EXPR_OP_LOG1P] = "log1p",[EXPR_OP_SIN] = "sin",
  [EXPR_OP_COS] = "cos",[EXPR_OP_TAN] = "tan",[EXPR_OP_ASIN] = "asin",
  [EXPR_OP_ACOS] = "acos",[EXPR_OP_ATAN] = "atan",[EXPR_OP_SINH] = "sinh",
  [EXPR_OP_COSH] = "cosh",[EXPR_OP_TANH] = "tanh",[EXPR_OP_ASINH] = "asinh",
  [EXPR_OP_ACOSH] = "acosh",[EXPR_OP_ATANH] = "atanh",
  [EXPR_OP_FLOOR] = "floor",[EXPR_OP_CEIL] = "ceil",[EXPR_OP_RINT] = "rint",
  [EXPR_OP_TRUNC] = "trunc",[EXPR_OP_ISNAN] = "isnan",
  [EXPR_OP_ISINF] = "isinf",[EXPR_OP_ISFINITE] = "isfinite",
  [EXPR_OP_SIGNBIT] = "signbit",[EXPR_OP_NAN_TO_NUM] = "nan_to_num",
  [EXPR_OP_RECIPROCAL] = "reciprocal",[EXPR_OP_COPYSIGN] = "copysign",
  [EXPR_OP_HEAVISIDE] = "heaviside",[EXPR_OP_LOGADDEXP] = "logaddexp",
  [EXPR_OP_LOGADDEXP2] = "logaddexp2",[EXPR_OP_REAL] = "real",
  [EXPR_OP_IMAG] = "imag",[EXPR_OP_CONJ] = "conj",[EXPR_OP_ANGLE] = "angle",
  [EXPR_OP_SQUARE] = "'**'",[EXPR_OP_CAST] = "cast",[EXPR_OP_ADD] = "'+'",[EXPR_OP_SUB] = "'-'",
  [EXPR_OP_MUL] = "'*'",[EXPR_OP_DIV] = "'/'",[EXPR_OP_FLOORDIV] = "'//'",
  [EXPR_OP_MOD] = "'%'",[EXPR_OP_POW] = "'**'",[EXPR_OP_SHL] = "'<<'",
  [EXPR_OP_SHR] = "'>>'",[EXPR_OP_BAND] = "'&'",[EXPR_OP_BXOR] = "'^'",
  [EXPR_OP_BOR] = "'|'",[EXPR_OP_LAND] = "'&&'",[EXPR_OP_LOR] = "'||'",
  [EXPR_OP_MIN] = "minimum",[EXPR_OP_MAX] = "maximum",
  [EXPR_OP_FMIN] = "fmin",[EXPR_OP_FMAX] = "fmax",[EXPR_OP_FMOD] = "fmod",
  [EXPR_OP_ATAN2] = "atan2",[EXPR_OP_HYPOT] = "hypot",[EXPR_OP_LT] = "'<'",
  [EXPR_OP_LE] = "'<='",[EXPR_OP_GT] = "'>'",[EXPR_OP_GE] = "'>='",
  [EXPR_OP_EQ] = "'=='",[EXPR_OP_NE] = "'!='",[EXPR_OP_WHERE] = "where",
  [EXPR_OP_CLIP] = "clip",
};

const gchar *
_plan_expr_op_name (ExprOp op)
{
  return op > EXPR_OP_NONE && op < EXPR_OP_N ? op_names[op] : "?";
}

static FuncCat
op_category (ExprOp op)
{
  switch (op) {
    case EXPR_OP_NEG:
    case EXPR_OP_POS:
    case EXPR_OP_BNOT:
    case EXPR_OP_LNOT:
    case EXPR_OP_ABS:
    case EXPR_OP_SIGN:
    case EXPR_OP_SQUARE:
    case EXPR_OP_REAL:
    case EXPR_OP_IMAG:
    case EXPR_OP_CONJ:
    case EXPR_OP_ANGLE:
      return CAT_UNARY_SAME;
    case EXPR_OP_FLOOR:
    case EXPR_OP_CEIL:
    case EXPR_OP_RINT:
    case EXPR_OP_TRUNC:
    case EXPR_OP_NAN_TO_NUM:
      return CAT_UNARY_ROUND;
    case EXPR_OP_ISNAN:
    case EXPR_OP_ISINF:
    case EXPR_OP_ISFINITE:
    case EXPR_OP_SIGNBIT:
      return CAT_UNARY_CLASS;
    case EXPR_OP_RECIPROCAL:
      return CAT_UNARY_SAME;
    case EXPR_OP_CAST:
      return CAT_CAST;
    case EXPR_OP_WHERE:
      return CAT_WHERE;
    case EXPR_OP_CLIP:
      return CAT_CLIP;
    default:
      if (op >= EXPR_OP_SQRT && op <= EXPR_OP_ATANH)
        return CAT_UNARY_FLOAT;
      return CAT_BINARY;
  }
}

void
_plan_expr_type_error (Typer * t, guint pos, const gchar * format, ...)
{
  va_list args;
  gchar *text;

  if (t->failed)
    return;
  t->failed = TRUE;
  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  _plan_expr_set_error (t->error, PLAN_ERROR_TYPE, t->arena->source, pos,
      "%s", text);
  g_free (text);
}

/* The source text of @node, shortened, for messages. */
static gchar *
node_text (Typer * t, const ExprNode * node)
{
  guint len = node->end > node->start ? node->end - node->start : 1;

  if (len > 30)
    return g_strdup_printf ("'%.27s...'", t->arena->source + node->start);
  return g_strdup_printf ("'%.*s'", (gint) len,
      t->arena->source + node->start);
}

/* ---- dtype rules ---- */

static gint
int_bits (PlanDType d)
{
  return (gint) plan_dtype_get_size (d) * 8;
}

/* numpy's result_type for two (strong) dtypes. */
static PlanDType
result_type2 (PlanDType a, PlanDType b)
{
  gboolean fa = plan_dtype_is_float (a), fb = plan_dtype_is_float (b);

  if (a == b)
    return a;
  if (a == PLAN_DTYPE_BOOL)
    return b;
  if (b == PLAN_DTYPE_BOOL)
    return a;
  if (plan_dtype_is_complex (a) || plan_dtype_is_complex (b)) {
    /* The complex whose parts hold the promotion of the real parts:
     * complex64 with float32 or an 8/16-bit integer stays complex64. */
    PlanDType r = result_type2 (plan_dtype_get_real (a),
        plan_dtype_get_real (b));
    return r == PLAN_DTYPE_FLOAT32 ? PLAN_DTYPE_COMPLEX64 :
        PLAN_DTYPE_COMPLEX128;
  }
  if (fa && fb)
    return int_bits (a) >= int_bits (b) ? a : b;
  if (fa || fb) {
    /* The smallest float of at least the float's size that holds every
     * value of the integer exactly: twice its size (float64 for 64-bit
     * integers, which nothing holds). */
    PlanDType f = fa ? a : b, i = fa ? b : a;
    if (f == PLAN_DTYPE_FLOAT64 || int_bits (i) > 16)
      return PLAN_DTYPE_FLOAT64;
    if (f == PLAN_DTYPE_FLOAT32 || int_bits (i) > 8)
      return PLAN_DTYPE_FLOAT32;
    return PLAN_DTYPE_FLOAT16;
  }
  if (plan_dtype_is_signed (a) == plan_dtype_is_signed (b))
    return int_bits (a) >= int_bits (b) ? a : b;
  {
    PlanDType s = plan_dtype_is_signed (a) ? a : b;
    PlanDType u = plan_dtype_is_signed (a) ? b : a;
    if (int_bits (s) > int_bits (u))
      return s;
    switch (int_bits (u)) {
      case 8:
        return PLAN_DTYPE_INT16;
      case 16:
        return PLAN_DTYPE_INT32;
      case 32:
        return PLAN_DTYPE_INT64;
      default:
        return PLAN_DTYPE_FLOAT64;
    }
  }
}

/* The float dtype a function of an integer operand computes in, as
 * numpy picks it: the smallest float that holds every value exactly
 * (float16 for bool and 8-bit integers). */
static PlanDType
float_for (PlanDType d)
{
  if (plan_dtype_is_float (d) || plan_dtype_is_complex (d))
    return d;
  if (int_bits (d) <= 8)
    return PLAN_DTYPE_FLOAT16;
  return int_bits (d) <= 16 ? PLAN_DTYPE_FLOAT32 : PLAN_DTYPE_FLOAT64;
}

static void
dtype_range (PlanDType d, __int128 * lo, __int128 * hi)
{
  gint bits = int_bits (d);

  if (d == PLAN_DTYPE_BOOL) {
    *lo = 0;
    *hi = 1;
  } else if (plan_dtype_is_signed (d)) {
    *lo = -((__int128) 1 << (bits - 1));
    *hi = ((__int128) 1 << (bits - 1)) - 1;
  } else {
    *lo = 0;
    *hi = ((__int128) 1 << bits) - 1;
  }
}

static gboolean
weak_fits (__int128 v, PlanDType d)
{
  __int128 lo, hi;

  if (plan_dtype_is_float (d) || plan_dtype_is_complex (d))
    return TRUE;
  dtype_range (d, &lo, &hi);
  return v >= lo && v <= hi;
}

static gchar *
big_to_string (__int128 v)
{
  gchar buf[48];
  gint i = sizeof (buf) - 1;
  gboolean neg = v < 0;
  unsigned __int128 u = neg ? -(unsigned __int128) v : (unsigned __int128) v;

  buf[i] = '\0';
  do {
    buf[--i] = '0' + (gint) (u % 10);
    u /= 10;
  } while (u && i > 1);
  if (neg)
    buf[--i] = '-';
  return g_strdup (buf + i);
}

/* ---- promotion ---- */

/* numpy's promotion of the operands of @op, with NEP 50 weak literals.
 * For comparisons a literal outside the other operand's range widens the
 * comparison instead of failing (the answer is still exact). */
static PlanDType
promote (Typer * t, ExprNode * op, ExprNode ** args, guint n,
    gboolean compare)
{
  PlanDType s = PLAN_DTYPE_UNKNOWN;
  gboolean weak_float = FALSE, weak_int = FALSE, weak_complex = FALSE;
  guint i, pass;

  /* numpy's result_type of several dtypes is not the pairwise fold: a
   * float meets each integer on its own, so that result_type(int8, uint8,
   * float16) is float16, where (int8 + uint8) + float16 would be float32.
   * Folding the floats and complex numbers first gives numpy's dtype (for
   * every three or four of them); for two the order does not matter. */
  for (pass = 0; pass < 2; pass++) {
    for (i = 0; i < n; i++) {
      PlanDType d = args[i]->dtype;

      if (is_weak (args[i])) {
        if (pass == 0) {
          weak_complex |= args[i]->weak == EXPR_WEAK_COMPLEX;
          weak_float |= args[i]->weak == EXPR_WEAK_FLOAT;
          weak_int |= args[i]->weak == EXPR_WEAK_INT;
        }
      } else if ((plan_dtype_is_float (d) || plan_dtype_is_complex (d))
          == (pass == 0)) {
        s = s == PLAN_DTYPE_UNKNOWN ? d : result_type2 (s, d);
      }
    }
  }
  if (s == PLAN_DTYPE_UNKNOWN) {
    for (i = 0; i < n; i++)
      s = s == PLAN_DTYPE_UNKNOWN ? weak_default (args[i])
          : result_type2 (s, weak_default (args[i]));
    return s;
  }
  /* A Python complex keeps float32 (and float16) in complex64 (NEP 50). */
  if (weak_complex && !plan_dtype_is_complex (s))
    s = s == PLAN_DTYPE_FLOAT32 || s == PLAN_DTYPE_FLOAT16 ?
        PLAN_DTYPE_COMPLEX64 : PLAN_DTYPE_COMPLEX128;
  if (weak_float && !plan_dtype_is_float (s) && !plan_dtype_is_complex (s))
    s = PLAN_DTYPE_FLOAT64;
  if (weak_int && s == PLAN_DTYPE_BOOL)
    s = PLAN_DTYPE_INT64;

  for (i = 0; i < n; i++) {
    ExprNode *w = args[i];
    if (!is_weak (w) || w->weak != EXPR_WEAK_INT || weak_fits (w->value.big, s)
        || op_is_float_only (op->op))
      continue;
    if (compare) {
      if (weak_fits (w->value.big, PLAN_DTYPE_INT64)
          && s != PLAN_DTYPE_UINT64)
        s = PLAN_DTYPE_INT64;
      else if (w->value.big >= 0 && !plan_dtype_is_signed (s))
        s = PLAN_DTYPE_UINT64;
      else
        s = PLAN_DTYPE_FLOAT64;
    } else {
      gchar *v = big_to_string (w->value.big);
      _plan_expr_type_error (t, w->pos,
          "the literal %s is out of range for %s, the "
          "dtype of the other operand of %s; cast explicitly", v,
          plan_dtype_to_string (s), _plan_expr_op_name (op->op));
      g_free (v);
      return PLAN_DTYPE_UNKNOWN;
    }
  }
  return s;
}

static const gchar *
side_name (guint i, guint n)
{
  if (n == 1)
    return "operand";
  if (n == 2)
    return i == 0 ? "left operand" : "right operand";
  return i == 0 ? "first argument" : i == 1 ? "second argument" :
      "third argument";
}

/* Names the operand that made a bitwise operation float. */
static void
float_operand_error (Typer * t, ExprNode * op, ExprNode ** args, guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    ExprNode *a = args[i];
    if (plan_dtype_is_float (a->dtype) || a->weak == EXPR_WEAK_FLOAT) {
      gchar *text = node_text (t, a);
      _plan_expr_type_error (t, a->start,
          "%s needs integer or bool operands, but the "
          "%s %s is %s", _plan_expr_op_name (op->op), side_name (i, n), text,
          a->weak ? "a float literal" : plan_dtype_to_string (a->dtype));
      g_free (text);
      return;
    }
  }
  _plan_expr_type_error (t, op->pos,
      "%s needs integer or bool operands, but %s and "
      "%s have no common integer type (numpy promotes them to float64)",
      _plan_expr_op_name (op->op), plan_dtype_to_string (args[0]->dtype),
      plan_dtype_to_string (args[1]->dtype));
}

/* ---- typing of each node kind ---- */

static ExprNode *type_node (Typer * t, ExprNode * n);

/* float16 is a storage type, as in numpy: an operation on float16
 * operands is computed in float32 and its float result rounded to
 * float16, which is what numpy's float16 loops do, operation by
 * operation (for + - * / and sqrt the result is the correctly rounded
 * float16; the functions numpy takes from the C library are the C
 * library's, see numpy_f16). Only selection, casts and nan_to_num (whose largest value is
 * float16's own) work on float16 itself. */
static gboolean
computes_in_float32 (const ExprNode * op)
{
  return op->op != EXPR_OP_CAST && op->op != EXPR_OP_WHERE
      && op->op != EXPR_OP_NAN_TO_NUM
      && _plan_expr_node_arg_dtype (op) == PLAN_DTYPE_FLOAT16;
}

static ExprNode *
finish_op (Typer * t, ExprNode * op)
{
  gboolean narrow = FALSE;
  guint i;

  if (computes_in_float32 (op)) {
    for (i = 0; i < op->n_args; i++)
      op->args[i] = _plan_expr_convert (t, op->args[i], PLAN_DTYPE_FLOAT32);
    narrow = op->dtype == PLAN_DTYPE_FLOAT16;
    if (narrow)
      op->dtype = PLAN_DTYPE_FLOAT32;
    op->numpy_f16 = narrow;
  }
  op->height = 0;
  for (i = 0; i < op->n_args; i++)
    op->height = MAX (op->height, op->args[i]->height + 1);
  if (_plan_expr_all_const (op))
    op = _plan_expr_fold_strong (t, op);
  return narrow ? _plan_expr_convert (t, op, PLAN_DTYPE_FLOAT16) : op;
}

/* An operation numpy does not define on complex numbers (or defines
 * differently in its versions). */
static ExprNode *
complex_error (Typer * t, ExprNode * op, const gchar * hint)
{
  _plan_expr_type_error (t, op->pos,
      "%s is not defined for complex numbers; %s",
      _plan_expr_op_name (op->op), hint);
  return NULL;
}

static ExprNode *
type_unary_complex (Typer * t, ExprNode * op)
{
  ExprNode *a = op->args[0];
  PlanDType d = a->dtype;

  switch (op->op) {
    case EXPR_OP_SIGN:
      return complex_error (t, op, "numpy 1.x gives the sign of the real "
          "part and numpy 2 z / abs(z): write the one you mean");
    case EXPR_OP_FLOOR:
    case EXPR_OP_CEIL:
    case EXPR_OP_TRUNC:
    case EXPR_OP_SIGNBIT:
    case EXPR_OP_CBRT:
      return complex_error (t, op, "apply it to real(z) and imag(z) "
          "separately");
    case EXPR_OP_BNOT:
      return complex_error (t, op, "bitwise operations need integer or "
          "bool operands");
    case EXPR_OP_POS:
      return a;
    case EXPR_OP_LNOT:
      op->args[0] = _plan_expr_convert (t, a, PLAN_DTYPE_BOOL);
      op->dtype = PLAN_DTYPE_BOOL;
      break;
    case EXPR_OP_ABS:
    case EXPR_OP_REAL:
    case EXPR_OP_IMAG:
    case EXPR_OP_ANGLE:
      op->dtype = plan_dtype_get_real (d);
      break;
    case EXPR_OP_ISNAN:
    case EXPR_OP_ISINF:
    case EXPR_OP_ISFINITE:
      op->dtype = PLAN_DTYPE_BOOL;
      break;
    default:
      /* -z, z ** 2, reciprocal, conj, rint, nan_to_num and the functions
       * sqrt ... atanh: complex results. */
      op->dtype = d;
      break;
  }
  return finish_op (t, op);
}

static ExprNode *
type_unary (Typer * t, ExprNode * op)
{
  ExprNode *a = op->args[0];
  PlanDType d = a->dtype;
  gchar *text;

  if (is_weak (a))
    return _plan_expr_fold_weak_unary (t, op, a);

  if (plan_dtype_is_complex (d))
    return type_unary_complex (t, op);
  if (op->op == EXPR_OP_SIGNBIT) {
    /* numpy's signbit has float loops only: integers are converted, which
     * keeps their sign. */
    op->args[0] = _plan_expr_convert (t, a, float_for (d));
    op->dtype = PLAN_DTYPE_BOOL;
    return finish_op (t, op);
  }
  if (op->op == EXPR_OP_RECIPROCAL && d == PLAN_DTYPE_BOOL) {
    op->args[0] = a = _plan_expr_convert (t, a, PLAN_DTYPE_INT8);
    d = PLAN_DTYPE_INT8;
  }

  switch (op_category (op->op)) {
    case CAT_UNARY_SAME:
      if (op->op == EXPR_OP_POS)
        return a;
      if (op->op == EXPR_OP_LNOT) {
        op->args[0] = _plan_expr_convert (t, a, PLAN_DTYPE_BOOL);
        op->dtype = PLAN_DTYPE_BOOL;
        break;
      }
      if (d == PLAN_DTYPE_BOOL && (op->op == EXPR_OP_NEG
              || op->op == EXPR_OP_SIGN)) {
        text = node_text (t, a);
        _plan_expr_type_error (t, op->pos,
            "%s is not defined for bool (as in numpy), "
            "but %s is bool; use '!' or '~' to negate, or cast with "
            "int8()", _plan_expr_op_name (op->op), text);
        g_free (text);
        return NULL;
      }
      if (op->op == EXPR_OP_BNOT && plan_dtype_is_float (d)) {
        text = node_text (t, a);
        _plan_expr_type_error (t, a->start,
            "'~' needs an integer or bool operand, but "
            "%s is %s", text, plan_dtype_to_string (d));
        g_free (text);
        return NULL;
      }
      op->dtype = d;
      break;
    case CAT_UNARY_ROUND:
      if (!plan_dtype_is_float (d))
        return a;
      op->dtype = d;
      break;
    case CAT_UNARY_CLASS:
      if (!plan_dtype_is_float (d))
        return _plan_expr_bool_const (t, op, op->op == EXPR_OP_ISFINITE);
      op->dtype = PLAN_DTYPE_BOOL;
      break;
    case CAT_UNARY_FLOAT:
      op->dtype = float_for (d);
      op->args[0] = _plan_expr_convert (t, a, op->dtype);
      break;
    default:
      g_assert_not_reached ();
  }
  return finish_op (t, op);
}

static ExprNode *
type_cast (Typer * t, ExprNode * op, PlanDType to)
{
  ExprNode *a = op->args[0];

  if (is_weak (a)) {
    PlanDType from = weak_default (a);
    a = _plan_expr_convert (t, a, from);
  }
  if (plan_dtype_is_complex (a->dtype) && !plan_dtype_is_complex (to)
      && to != PLAN_DTYPE_BOOL) {
    gchar *text = node_text (t, a);
    _plan_expr_type_error (t, op->pos,
        "casting %s (%s) to %s would discard the "
        "imaginary part; write real(z), imag(z) or abs(z) to say which "
        "real number is meant", text, plan_dtype_to_string (a->dtype),
        plan_dtype_to_string (to));
    g_free (text);
    return NULL;
  }
  if (a->dtype == PLAN_DTYPE_FLOAT16 && plan_dtype_is_complex (to))
    a = _plan_expr_convert (t, a, to == PLAN_DTYPE_COMPLEX128 ?
        PLAN_DTYPE_FLOAT64 : PLAN_DTYPE_FLOAT32);
  op->dtype = to;
  if (a->dtype == to)
    return a;
  op->args[0] = a;
  return finish_op (t, op);
}

/* A constant 1 of dtype @d. */
static ExprNode *
one_const (Typer * t, const ExprNode * at, PlanDType d)
{
  ExprNode *k = _plan_expr_const_node (t, at, d);

  _plan_expr_value_store (&k->value, d, 1, 1.0, FALSE);
  return k;
}

/* Operations on operands promoted to the complex dtype @s. */
static ExprNode *
type_binary_complex (Typer * t, ExprNode * op, PlanDType s)
{
  ExprNode **args = op->args;
  ExprOp o = op->op;

  switch (o) {
    case EXPR_OP_ADD:
    case EXPR_OP_SUB:
    case EXPR_OP_MUL:
    case EXPR_OP_DIV:
    case EXPR_OP_POW:
    case EXPR_OP_EQ:
    case EXPR_OP_NE:
      break;
    case EXPR_OP_LT:
    case EXPR_OP_LE:
    case EXPR_OP_GT:
    case EXPR_OP_GE:
      return complex_error (t, op, "complex numbers have no order: compare "
          "real(z), imag(z) or abs(z)");
    case EXPR_OP_MIN:
    case EXPR_OP_MAX:
    case EXPR_OP_FMIN:
    case EXPR_OP_FMAX:
      return complex_error (t, op, "complex numbers have no order: write "
          "where(abs(a) < abs(b), a, b), or compare real(z) or imag(z)");
    case EXPR_OP_BAND:
    case EXPR_OP_BOR:
    case EXPR_OP_BXOR:
    case EXPR_OP_SHL:
    case EXPR_OP_SHR:
      return complex_error (t, op, "bitwise operations need integer or "
          "bool operands");
    default:
      return complex_error (t, op, "apply it to real(z) and imag(z) "
          "separately, or to abs(z)");
  }
  /* numpy computes z ** k for a Python number k of -1, 0, 0.5, 1 and 2 as
   * reciprocal(z), ones, sqrt(z), z and square(z) (ndarray.__pow__'s fast
   * path); power(z, k) and complex exponents use its complex power. */
  if (o == EXPR_OP_POW && op->name == NULL && is_weak (args[1])
      && !is_weak (args[0]) && args[1]->weak != EXPR_WEAK_COMPLEX) {
    gdouble k = weak_as_double (args[1]);
    ExprNode *z = _plan_expr_convert (t, args[0], s);

    if (k == 1)
      return z;
    if (k == 0)
      return one_const (t, op, s);
    if (k == -1 || k == 0.5 || k == 2) {
      op->op = k == -1 ? EXPR_OP_RECIPROCAL : k == 2 ? EXPR_OP_SQUARE :
          EXPR_OP_SQRT;
      op->n_args = 1;
      args[0] = z;
      args[1] = NULL;
      op->dtype = s;
      return finish_op (t, op);
    }
  }
  args[0] = _plan_expr_convert (t, args[0], s);
  args[1] = _plan_expr_convert (t, args[1], s);
  op->dtype = o == EXPR_OP_EQ || o == EXPR_OP_NE ? PLAN_DTYPE_BOOL : s;
  return finish_op (t, op);
}

/* An int64 compared with an integer literal from 2**63 to 2**64 - 1: no
 * integer dtype holds both, and float64 would round the largest int64
 * values up to 2**63, so that 2**63 - 1 < 2**63 would be false. Every
 * int64 is below such a literal, so compare with int64's largest value
 * instead, by the operator that gives the same answer: x < L, x <= L and
 * x != L are true, which x <= MAX is; x > L, x >= L and x == L false,
 * which x > MAX is (mirrored with the literal on the left). Exact, as
 * numpy 2 compares a Python int. */
static void
exact_int64_against_big_literal (ExprNode * op)
{
  ExprOp o = op->op;
  guint i;

  for (i = 0; i < 2; i++) {
    ExprNode *w = op->args[i], *v = op->args[1 - i];
    gboolean truth;

    if (!is_weak (w) || w->weak != EXPR_WEAK_INT || w->value.big <= G_MAXINT64
        || is_weak (v) || v->dtype != PLAN_DTYPE_INT64)
      continue;
    if (i == 1) {
      truth = o == EXPR_OP_LT || o == EXPR_OP_LE || o == EXPR_OP_NE;
      op->op = truth ? EXPR_OP_LE : EXPR_OP_GT;
    } else {
      truth = o == EXPR_OP_GT || o == EXPR_OP_GE || o == EXPR_OP_NE;
      op->op = truth ? EXPR_OP_GE : EXPR_OP_LT;
    }
    w->value.big = G_MAXINT64;
    return;
  }
}

static ExprNode *
type_binary (Typer * t, ExprNode * op)
{
  ExprNode **args = op->args;
  ExprOp o = op->op;
  gboolean compare = o >= EXPR_OP_LT && o <= EXPR_OP_NE;
  PlanDType s;

  if (is_weak (args[0]) && is_weak (args[1]))
    return _plan_expr_fold_weak_binary (t, op, args[0], args[1]);

  if (o == EXPR_OP_LAND || o == EXPR_OP_LOR) {
    args[0] = _plan_expr_convert (t, args[0], PLAN_DTYPE_BOOL);
    args[1] = _plan_expr_convert (t, args[1], PLAN_DTYPE_BOOL);
    op->dtype = PLAN_DTYPE_BOOL;
    return finish_op (t, op);
  }

  if (compare)
    exact_int64_against_big_literal (op);
  s = promote (t, op, args, 2, compare);
  if (s == PLAN_DTYPE_UNKNOWN)
    return NULL;
  if (plan_dtype_is_complex (s))
    return type_binary_complex (t, op, s);

  /* The float-only functions (all but true division, below) have float
   * loops only, and numpy takes the first one both operands cast to
   * safely: each operand's own float, the wider of the two. That is the
   * promotion's float but for a signed and an unsigned integer: atan2 of
   * int8 and uint8 is float16 (int16, their promotion, would make it
   * float32). */
  if (op_is_float_only (o) && o != EXPR_OP_DIV) {
    if (!is_weak (args[0]) && !is_weak (args[1]))
      s = result_type2 (float_for (args[0]->dtype),
          float_for (args[1]->dtype));
    else
      s = float_for (s);
  }

  switch (o) {
    case EXPR_OP_SUB:
      if (s == PLAN_DTYPE_BOOL) {
        _plan_expr_type_error (t, op->pos,
            "'-' is not defined for two bool operands "
            "(as in numpy); use '^' or '!=' for exclusive or");
        return NULL;
      }
      break;
    case EXPR_OP_DIV:
      if (!plan_dtype_is_float (s))
        s = PLAN_DTYPE_FLOAT64;
      break;
    case EXPR_OP_BAND:
    case EXPR_OP_BOR:
    case EXPR_OP_BXOR:
    case EXPR_OP_SHL:
    case EXPR_OP_SHR:
      if (plan_dtype_is_float (s)) {
        float_operand_error (t, op, args, 2);
        return NULL;
      }
      if (s == PLAN_DTYPE_BOOL && (o == EXPR_OP_SHL || o == EXPR_OP_SHR))
        s = PLAN_DTYPE_INT8;
      break;
    case EXPR_OP_FLOORDIV:
    case EXPR_OP_MOD:
    case EXPR_OP_POW:
    case EXPR_OP_FMOD:
      if (s == PLAN_DTYPE_BOOL)
        s = PLAN_DTYPE_INT8;
      break;
    default:
      break;
  }
  /* numpy computes x ** k for a float array x and a Python number k of
   * 1, -1 and 0.5 as x, reciprocal(x) and sqrt(x) (ndarray.__pow__'s fast
   * path, as for complex numbers): sqrt(-0) is -0 and sqrt(-inf) NaN where
   * pow gives 0 and inf, and both are correctly rounded where pow may not
   * be. (k = 0 is ones_like(x), which pow gives too: 1 for every x.) */
  if (o == EXPR_OP_POW && op->name == NULL && is_weak (args[1])
      && !is_weak (args[0]) && plan_dtype_is_float (args[0]->dtype)
      && args[1]->weak != EXPR_WEAK_COMPLEX) {
    gdouble k = weak_as_double (args[1]);

    if (k == 1)
      return _plan_expr_convert (t, args[0], s);
    if (k == -1 || k == 0.5) {
      op->op = k == -1 ? EXPR_OP_RECIPROCAL : EXPR_OP_SQRT;
      op->n_args = 1;
      args[0] = _plan_expr_convert (t, args[0], s);
      args[1] = NULL;
      op->dtype = s;
      return finish_op (t, op);
    }
  }
  /* x ** 2 is x * x: the same value bit for bit (pow is exact there),
   * without a call to pow per element. A unary operation keeps the tree a
   * tree (sharing x between two operands would make it a graph). */
  if (o == EXPR_OP_POW && is_weak (args[1]) && !is_weak (args[0])
      && ((args[1]->weak == EXPR_WEAK_INT && args[1]->value.big == 2)
          || (args[1]->weak == EXPR_WEAK_FLOAT && args[1]->value.f64 == 2.0))) {
    op->op = EXPR_OP_SQUARE;
    op->n_args = 1;
    args[0] = _plan_expr_convert (t, args[0], s);
    args[1] = NULL;
    op->dtype = s;
    return finish_op (t, op);
  }
  args[0] = _plan_expr_convert (t, args[0], s);
  args[1] = _plan_expr_convert (t, args[1], s);
  op->dtype = compare ? PLAN_DTYPE_BOOL : s;
  return finish_op (t, op);
}

static ExprNode *
type_where (Typer * t, ExprNode * op)
{
  ExprNode **args = op->args;
  PlanDType s;

  if (is_weak (args[0]) && is_weak (args[1]) && is_weak (args[2]))
    return weak_is_true (args[0]) ? args[1] : args[2];

  args[0] = _plan_expr_convert (t, args[0], PLAN_DTYPE_BOOL);
  s = promote (t, op, args + 1, 2, FALSE);
  if (s == PLAN_DTYPE_UNKNOWN)
    return NULL;
  args[1] = _plan_expr_convert (t, args[1], s);
  args[2] = _plan_expr_convert (t, args[2], s);
  op->dtype = s;
  return finish_op (t, op);
}

/* clip(x, lo, hi) is minimum(maximum(x, lo), hi) in the promoted dtype,
 * which is what numpy computes, NaN propagation included. */
static ExprNode *
type_clip (Typer * t, ExprNode * op)
{
  ExprNode **args = op->args, *inner;
  PlanDType s;

  s = promote (t, op, args, 3, FALSE);
  if (s == PLAN_DTYPE_UNKNOWN)
    return NULL;
  if (plan_dtype_is_complex (s))
    return complex_error (t, op, "complex numbers have no order: clip "
        "real(z) and imag(z), or abs(z)");
  inner = _plan_expr_node_new (t->arena, EXPR_NODE_OP, op->pos, op->len);
  inner->start = op->start;
  inner->end = op->end;
  inner->op = EXPR_OP_MAX;
  inner->n_args = 2;
  inner->args[0] = _plan_expr_convert (t, args[0], s);
  inner->args[1] = _plan_expr_convert (t, args[1], s);
  inner->dtype = s;
  op->op = EXPR_OP_MIN;
  op->n_args = 2;
  op->args[0] = finish_op (t, inner);
  op->args[1] = _plan_expr_convert (t, args[2], s);
  op->args[2] = NULL;
  op->dtype = s;
  return finish_op (t, op);
}

static guint
edit_distance (const gchar * a, const gchar * b)
{
  guint la = strlen (a), lb = strlen (b), i, j;
  guint *row = g_new (guint, lb + 1), d;

  for (j = 0; j <= lb; j++)
    row[j] = j;
  for (i = 1; i <= la; i++) {
    guint prev = row[0];
    row[0] = i;
    for (j = 1; j <= lb; j++) {
      guint cur = row[j];
      guint sub = prev + (a[i - 1] != b[j - 1]);
      row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1), sub);
      prev = cur;
    }
  }
  d = row[lb];
  g_free (row);
  return d;
}

/* numpy's other names for its scalar types (on 64-bit Linux, where C's
 * long is 64 bits), which pasted numpy code calls as casts: np.double(x)
 * is float64(x), as np.dtype (np.double) is float64. */
static const struct
{
  const gchar *name;
  PlanDType dtype;
} numpy_type_aliases[] = {
  {"bool_", PLAN_DTYPE_BOOL},
  {"bool8", PLAN_DTYPE_BOOL},
  {"byte", PLAN_DTYPE_INT8},
  {"ubyte", PLAN_DTYPE_UINT8},
  {"short", PLAN_DTYPE_INT16},
  {"ushort", PLAN_DTYPE_UINT16},
  {"intc", PLAN_DTYPE_INT32},
  {"uintc", PLAN_DTYPE_UINT32},
  {"int_", PLAN_DTYPE_INT64},
  {"intp", PLAN_DTYPE_INT64},
  {"longlong", PLAN_DTYPE_INT64},
  {"uint", PLAN_DTYPE_UINT64},
  {"uintp", PLAN_DTYPE_UINT64},
  {"ulonglong", PLAN_DTYPE_UINT64},
  {"half", PLAN_DTYPE_FLOAT16},
  {"single", PLAN_DTYPE_FLOAT32},
  {"double", PLAN_DTYPE_FLOAT64},
  {"float_", PLAN_DTYPE_FLOAT64},
  {"csingle", PLAN_DTYPE_COMPLEX64},
  {"singlecomplex", PLAN_DTYPE_COMPLEX64},
  {"cdouble", PLAN_DTYPE_COMPLEX128},
  {"cfloat", PLAN_DTYPE_COMPLEX128},
  {"complex_", PLAN_DTYPE_COMPLEX128},
};

/* The dtype a cast called @name converts to: a dtype's own name or one of
 * numpy's other names for it; PLAN_DTYPE_UNKNOWN for anything else. */
static PlanDType
cast_dtype (const gchar * name)
{
  PlanDType d = plan_dtype_from_string (name);
  guint i;

  for (i = 0; d == PLAN_DTYPE_UNKNOWN && i < G_N_ELEMENTS (numpy_type_aliases);
      i++)
    if (strcmp (numpy_type_aliases[i].name, name) == 0)
      d = numpy_type_aliases[i].dtype;
  return d;
}

/* Names that are no function of the language but something else a user
 * means by them: Python's casts and the constants. A near miss of a
 * function's name would be the wrong suggestion for these (float is not
 * floor, int not rint, pi not sin). */
static const struct
{
  const gchar *name;
  const gchar *hint;
} not_functions[] = {
  {"float", "Python's float is float64 here: write float64(x)"},
  {"int", "Python's int is int64 here: write int64(x), which truncates "
        "toward zero as int() does"},
  {"complex", "Python's complex is complex128 here: write complex128(x), "
        "or x + 1j * y for the complex number of two real ones"},
  {"pi", "pi is a constant, not a function"},
  {"e", "e is a constant, not a function"},
  {"inf", "inf is a constant, not a function"},
  {"nan", "nan is a constant, not a function"},
  {"true", "true is a constant, not a function"},
  {"false", "false is a constant, not a function"},
};

static void
unknown_function_error (Typer * t, ExprNode * call)
{
  const gchar *best = NULL;
  guint best_d = G_MAXUINT, i;

  for (i = 0; i < G_N_ELEMENTS (not_functions); i++) {
    if (strcmp (call->name, not_functions[i].name) == 0) {
      _plan_expr_type_error (t, call->pos, "unknown function '%s'; %s",
          call->name, not_functions[i].hint);
      return;
    }
  }

  for (i = 0; i < G_N_ELEMENTS (functions); i++) {
    guint d = edit_distance (call->name, functions[i].name);
    if (d < best_d) {
      best_d = d;
      best = functions[i].name;
    }
  }
  for (i = PLAN_DTYPE_BOOL; i < PLAN_DTYPE_N; i++) {
    const gchar *name = plan_dtype_to_string ((PlanDType) i);
    guint d = edit_distance (call->name, name);
    if (d < best_d) {
      best_d = d;
      best = name;
    }
  }
  if (best_d <= MAX (2u, (guint) strlen (call->name) / 3))
    _plan_expr_type_error (t, call->pos,
        "unknown function '%s'; did you mean '%s'?",
        call->name, best);
  else
    _plan_expr_type_error (t, call->pos,
        "unknown function '%s'; see docs/expressions.md "
        "for the functions", call->name);
}

/* A typed constant of dtype @d holding the float @v, rounded once. */
static ExprNode *
float_const (Typer * t, const ExprNode * at, PlanDType d, gdouble v)
{
  ExprNode *c = _plan_expr_const_node (t, at, d);

  _plan_expr_value_store (&c->value, d, 0, v, TRUE);
  return c;
}

/* The functions of numpy (and numexpr) that are other operations of the
 * language, with numpy's dtype rules. @call's arguments are typed. */
static ExprNode *
type_sugar (Typer * t, ExprNode * call, Sugar sugar)
{
  ExprNode *a = call->args[0], *k;
  PlanDType d = a->dtype, f;
  gchar *text;

  if (a->weak == EXPR_WEAK_COMPLEX && (sugar == SUGAR_REAL
          || sugar == SUGAR_IMAG || sugar == SUGAR_CONJ
          || sugar == SUGAR_ANGLE)) {
    call->args[0] = _plan_expr_convert (t, a, PLAN_DTYPE_COMPLEX128);
    return _plan_expr_reweaken (_plan_expr_type_typed_op (t, call));
  }
  if (plan_dtype_is_complex (d) && !is_weak (a)) {
    switch (sugar) {
      case SUGAR_REAL:
      case SUGAR_IMAG:
      case SUGAR_CONJ:
      case SUGAR_ANGLE:
        return _plan_expr_type_typed_op (t, call);
      case SUGAR_FABS:
      case SUGAR_DEG2RAD:
      case SUGAR_RAD2DEG:
        call->op = sugar == SUGAR_FABS ? EXPR_OP_ABS : EXPR_OP_MUL;
        _plan_expr_type_error (t, call->pos,
            "%s is not defined for complex numbers "
            "(as in numpy); apply it to real(z) and imag(z), or use abs(z)",
            call->name);
        return NULL;
      default:
        break;
    }
  }

  switch (sugar) {
    case SUGAR_IDENTITY:
    case SUGAR_REAL:
      return a;
    case SUGAR_IMAG:
      /* The imaginary part of a real number: 0 of its dtype (numpy). */
      if (is_weak (a))
        return _plan_expr_weak_node (t, call, a->weak);
      return _plan_expr_const_node (t, call, d);
    case SUGAR_ANGLE:{
      /* numpy's angle of a real number: arctan2(0, x). */
      ExprNode *zero = _plan_expr_weak_node (t, call, EXPR_WEAK_INT);

      call->op = EXPR_OP_ATAN2;
      call->n_args = 2;
      call->args[0] = zero;
      call->args[1] = a;
      return type_binary (t, call);
    }
    case SUGAR_CONJ:
      /* numpy's conjugate has no bool loop: bool becomes int8. */
      return is_weak (a) ? a : _plan_expr_convert (t, a, d == PLAN_DTYPE_BOOL ?
          PLAN_DTYPE_INT8 : d);
    case SUGAR_ONES_LIKE:
      if (is_weak (a)) {
        k = _plan_expr_weak_node (t, call, a->weak);
        if (a->weak == EXPR_WEAK_COMPLEX)
          k->value.c128[0] = 1.0;
        else if (a->weak == EXPR_WEAK_FLOAT)
          k->value.f64 = 1.0;
        else
          k->value.big = 1;
        return k;
      }
      return one_const (t, call, d);
    case SUGAR_POSITIVE:
      if (!is_weak (a) && d == PLAN_DTYPE_BOOL) {
        text = node_text (t, a);
        _plan_expr_type_error (t, call->pos,
            "positive is not defined for bool (as in "
            "numpy), but %s is bool", text);
        g_free (text);
        return NULL;
      }
      return a;
    case SUGAR_FABS:
      call->op = EXPR_OP_ABS;
      if (is_weak (a)) {
        k = _plan_expr_weak_node (t, call, EXPR_WEAK_FLOAT);
        k->value.f64 = fabs (weak_as_double (a));
        return k;
      }
      call->args[0] = _plan_expr_convert (t, a, float_for (d));
      call->dtype = call->args[0]->dtype;
      return finish_op (t, call);
    case SUGAR_SQUARE:
      if (is_weak (a)) {
        ExprNode *b = _plan_expr_weak_node (t, a, a->weak);
        b->value = a->value;
        call->op = EXPR_OP_MUL;
        return _plan_expr_fold_weak_binary (t, call, a, b);
      }
      /* numpy's square has no bool loop: bool becomes int8. */
      call->args[0] = _plan_expr_convert (t, a, d == PLAN_DTYPE_BOOL ?
          PLAN_DTYPE_INT8 : d);
      call->op = EXPR_OP_SQUARE;
      call->dtype = call->args[0]->dtype;
      return finish_op (t, call);
    case SUGAR_DEG2RAD:
    case SUGAR_RAD2DEG:
      /* numpy multiplies by the constant rounded in the operand's float
       * dtype: pi/180 computed in float for float32. */
      if (is_weak (a)) {
        k = _plan_expr_weak_node (t, call, EXPR_WEAK_FLOAT);
        k->value.f64 = weak_as_double (a) * (sugar == SUGAR_DEG2RAD ?
            G_PI / 180.0 : 180.0 / G_PI);
        return k;
      }
      /* float16 is multiplied by the float32 constant, in float32, and
       * rounded, as numpy's float16 loop does. */
      f = float_for (d);
      call->op = EXPR_OP_MUL;
      call->n_args = 2;
      call->dtype = f == PLAN_DTYPE_FLOAT16 ? PLAN_DTYPE_FLOAT32 : f;
      call->args[0] = _plan_expr_convert (t, a, call->dtype);
      if (call->dtype == PLAN_DTYPE_FLOAT32) {
        volatile gfloat pi = (gfloat) G_PI, c180 = 180.0f;
        gfloat v = sugar == SUGAR_DEG2RAD ? pi / c180 : c180 / pi;
        call->args[1] = float_const (t, call, call->dtype, v);
      } else {
        call->args[1] = float_const (t, call, f, sugar == SUGAR_DEG2RAD ?
            G_PI / 180.0 : 180.0 / G_PI);
      }
      return _plan_expr_convert (t, finish_op (t, call), f);
    case SUGAR_FLOAT_POWER:
      call->op = EXPR_OP_POW;
      if (_plan_expr_any_weak_complex (call) || plan_dtype_is_complex (d)
          || plan_dtype_is_complex (call->args[1]->dtype)) {
        /* float_power of complex numbers computes in complex128. */
        gboolean literals = is_weak (a) && is_weak (call->args[1]);

        call->args[0] = _plan_expr_convert (t, a, PLAN_DTYPE_COMPLEX128);
        call->args[1] = _plan_expr_convert (t, call->args[1],
            PLAN_DTYPE_COMPLEX128);
        k = type_binary (t, call);
        return literals ? _plan_expr_reweaken (k) : k;
      }
      if (is_weak (a) && is_weak (call->args[1])) {
        k = _plan_expr_weak_node (t, call, EXPR_WEAK_FLOAT);
        k->value.f64 = pow (weak_as_double (a),
            weak_as_double (call->args[1]));
        return k;
      }
      call->args[0] = _plan_expr_convert (t, a, PLAN_DTYPE_FLOAT64);
      call->args[1] = _plan_expr_convert (t, call->args[1], PLAN_DTYPE_FLOAT64);
      call->dtype = PLAN_DTYPE_FLOAT64;
      return finish_op (t, call);
    case SUGAR_LOGICAL_XOR:
      if (is_weak (a) && is_weak (call->args[1]))
        return _plan_expr_bool_const (t, call, weak_is_true (a) !=
            weak_is_true (call->args[1]));
      call->op = EXPR_OP_NE;
      call->args[0] = _plan_expr_convert (t, a, PLAN_DTYPE_BOOL);
      call->args[1] = _plan_expr_convert (t, call->args[1], PLAN_DTYPE_BOOL);
      call->dtype = PLAN_DTYPE_BOOL;
      return finish_op (t, call);
    default:
      g_assert_not_reached ();
      return NULL;
  }
}

static ExprNode *
type_call (Typer * t, ExprNode * call)
{
  PlanDType cast_to = cast_dtype (call->name);
  const FuncDesc *f = NULL;
  guint i, want, given;

  /* numpy's np.min and np.max reduce over an axis (np.max(x, 0) is the
   * largest value along axis 0): pasted from numpy they would mean
   * something else than the language's elementwise min and max. */
  if (call->numpy_prefix && (strcmp (call->name, "min") == 0
          || strcmp (call->name, "max") == 0)) {
    const gchar *written = t->arena->source + call->pos;
    gint prefix = g_str_has_prefix (written, "numpy.") ? 6 : 3;

    _plan_expr_type_error (t, call->pos, "%.*s%s is numpy's reduction over "
        "an axis, not an elementwise function; write %s(x, y) for the %s "
        "of two values (or %s(x, y), without '%.*s'), or reduce with "
        "planreduce", prefix, written, call->name,
        call->name[1] == 'i' ? "minimum" : "maximum",
        call->name[1] == 'i' ? "smaller" : "larger", call->name,
        prefix, written);
    return NULL;
  }
  for (i = 0; i < G_N_ELEMENTS (functions); i++)
    if (strcmp (functions[i].name, call->name) == 0)
      f = &functions[i];

  if (f == NULL && cast_to == PLAN_DTYPE_UNKNOWN) {
    for (i = 0; i < t->arena->n_names && !call->numpy_prefix; i++) {
      if (strcmp (t->arena->names[i], call->name) == 0) {
        _plan_expr_type_error (t, call->pos,
            "'%s' is a bound name, not a function",
            call->name);
        return NULL;
      }
    }
    unknown_function_error (t, call);
    return NULL;
  }
  want = f ? f->n_args : 1;
  given = MAX (call->n_given, call->n_args);
  if (given != want) {
    _plan_expr_type_error (t, call->pos, "'%s' takes %u argument%s, %u given",
        call->name, want, want == 1 ? "" : "s", given);
    return NULL;
  }
  for (i = 0; i < call->n_args; i++) {
    call->args[i] = type_node (t, call->args[i]);
    if (call->args[i] == NULL)
      return NULL;
  }
  if (f == NULL) {
    call->op = EXPR_OP_CAST;
    return type_cast (t, call, cast_to);
  }
  call->op = f->op;
  if (f->sugar != SUGAR_NONE)
    return type_sugar (t, call, f->sugar);
  return NULL;                  /* the caller dispatches on call->op */
}

static ExprNode *
type_name (Typer * t, ExprNode * n)
{
  static const struct
  {
    const gchar *name;
    gdouble value;
  } consts[] = {
    {"pi", G_PI}, {"e", G_E}, {"inf", INFINITY}, {"nan", NAN},
  };
  GString *names;
  guint i;

  for (i = 0; i < t->arena->n_names && !n->numpy_prefix; i++) {
    if (strcmp (t->arena->names[i], n->name) == 0) {
      n->name_index = i;
      n->dtype = t->arena->dtypes[i];
      return n;
    }
  }
  for (i = 0; i < G_N_ELEMENTS (consts); i++) {
    if (strcmp (consts[i].name, n->name) == 0) {
      ExprNode *c = _plan_expr_weak_node (t, n, EXPR_WEAK_FLOAT);
      c->value.f64 = consts[i].value;
      return c;
    }
  }
  if (strcmp (n->name, "true") == 0 || strcmp (n->name, "false") == 0)
    return _plan_expr_bool_const (t, n, n->name[0] == 't');

  if (n->numpy_prefix) {
    _plan_expr_type_error (t, n->pos,
        "unknown numpy constant '%.*s'; numpy's pi, e, "
        "inf and nan are known", (gint) n->len, t->arena->source + n->pos);
    return NULL;
  }
  names = g_string_new (NULL);
  for (i = 0; i < t->arena->n_names; i++)
    g_string_append_printf (names, "%s%s", i ? ", " : "",
        t->arena->names[i]);
  if (t->arena->n_names == 0)
    _plan_expr_type_error (t, n->pos,
        "unknown name '%s'; no names are bound here",
        n->name);
  else
    _plan_expr_type_error (t, n->pos,
        "unknown name '%s'; the bound names are %s",
        n->name, names->str);
  g_string_free (names, TRUE);
  return NULL;
}

static ExprNode *
type_node (Typer * t, ExprNode * n)
{
  guint i;

  if (t->failed)
    return NULL;
  switch (n->kind) {
    case EXPR_NODE_CONST:
      return n;
    case EXPR_NODE_NAME:
      return type_name (t, n);
    case EXPR_NODE_OP:
      break;
  }

  if (n->name != NULL) {
    ExprNode *r = type_call (t, n);
    if (r != NULL || t->failed)
      return r;
  } else {
    for (i = 0; i < n->n_args; i++) {
      n->args[i] = type_node (t, n->args[i]);
      if (n->args[i] == NULL)
        return NULL;
    }
  }
  return _plan_expr_type_typed_op (t, n);
}

/* Types operation @n whose arguments are typed. */
ExprNode *
_plan_expr_type_typed_op (Typer * t, ExprNode * n)
{
  switch (op_category (n->op)) {
    case CAT_WHERE:
      return type_where (t, n);
    case CAT_CLIP:
      return type_clip (t, n);
    case CAT_BINARY:
      return type_binary (t, n);
    default:
      return type_unary (t, n);
  }
}

ExprNode *
_plan_expr_type (ExprArena * arena, ExprNode * root, GError ** error)
{
  Typer t = { arena, error, FALSE };
  ExprNode *r = type_node (&t, root);

  if (r == NULL || t.failed)
    return NULL;
  if (is_weak (r))
    r = _plan_expr_convert (&t, r, weak_default (r));
  return r;
}

ExprNode *
_plan_expr_cast_root (ExprArena * arena, ExprNode * root, PlanDType dtype)
{
  Typer t = { arena, NULL, FALSE };

  return _plan_expr_convert (&t, root, dtype);
}

PlanDType
_plan_expr_node_arg_dtype (const ExprNode * node)
{
  if (node->kind != EXPR_NODE_OP)
    return node->dtype;
  if (node->op == EXPR_OP_WHERE)
    return node->args[1]->dtype;
  return node->args[0]->dtype;
}
