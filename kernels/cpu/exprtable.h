/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the CPU inner loops of expressions (exprloops.c, exprcomplex.c,
 * exprhalf.c) and the expression compiler above them (libplan/expr/)
 * share: the list of operations, the kernels' signatures and their table. The loops
 * include this and libplan's public core headers only; the compiler
 * includes it through its private header. Never installed. */

#ifndef __PLAN_EXPR_TABLE_H__
#define __PLAN_EXPR_TABLE_H__

#include <glib.h>
#include <libplan/plandtype.h>
#include <math.h>

G_BEGIN_DECLS

/* Every operation the language has, after parsing. Operators and functions
 * share one list; the typing pass rewrites sugar (clip, casts of weak
 * literals, logical operators on non-bool values) into these. */
typedef enum
{
  EXPR_OP_NONE = 0,
  /* unary */
  EXPR_OP_NEG,
  EXPR_OP_POS,
  EXPR_OP_BNOT,
  EXPR_OP_LNOT,
  EXPR_OP_ABS,
  EXPR_OP_SIGN,
  EXPR_OP_SQRT,
  EXPR_OP_CBRT,
  EXPR_OP_EXP,
  EXPR_OP_EXP2,
  EXPR_OP_EXPM1,
  EXPR_OP_LOG,
  EXPR_OP_LOG2,
  EXPR_OP_LOG10,
  EXPR_OP_LOG1P,
  EXPR_OP_SIN,
  EXPR_OP_COS,
  EXPR_OP_TAN,
  EXPR_OP_ASIN,
  EXPR_OP_ACOS,
  EXPR_OP_ATAN,
  EXPR_OP_SINH,
  EXPR_OP_COSH,
  EXPR_OP_TANH,
  EXPR_OP_ASINH,
  EXPR_OP_ACOSH,
  EXPR_OP_ATANH,
  EXPR_OP_FLOOR,
  EXPR_OP_CEIL,
  EXPR_OP_RINT,
  EXPR_OP_TRUNC,
  EXPR_OP_ISNAN,
  EXPR_OP_ISINF,
  EXPR_OP_ISFINITE,
  EXPR_OP_SIGNBIT,              /* float operand, bool result */
  EXPR_OP_NAN_TO_NUM,           /* floats; integers unchanged */
  EXPR_OP_RECIPROCAL,           /* 1 / x; integers truncate */
  EXPR_OP_SQUARE,               /* x ** 2, from the typing pass */
  EXPR_OP_REAL,                 /* complex operand, real result */
  EXPR_OP_IMAG,                 /* complex operand, real result */
  EXPR_OP_CONJ,                 /* complex */
  EXPR_OP_ANGLE,                /* complex operand, real result */
  EXPR_OP_CAST,
  /* binary */
  EXPR_OP_ADD,
  EXPR_OP_SUB,
  EXPR_OP_MUL,
  EXPR_OP_DIV,
  EXPR_OP_FLOORDIV,
  EXPR_OP_MOD,
  EXPR_OP_POW,
  EXPR_OP_SHL,
  EXPR_OP_SHR,
  EXPR_OP_BAND,
  EXPR_OP_BXOR,
  EXPR_OP_BOR,
  EXPR_OP_LAND,
  EXPR_OP_LOR,
  EXPR_OP_MIN,
  EXPR_OP_MAX,
  EXPR_OP_FMIN,
  EXPR_OP_FMAX,
  EXPR_OP_FMOD,
  EXPR_OP_ATAN2,
  EXPR_OP_HYPOT,
  EXPR_OP_COPYSIGN,
  EXPR_OP_HEAVISIDE,
  EXPR_OP_LOGADDEXP,
  EXPR_OP_LOGADDEXP2,
  /* comparisons: binary, bool result */
  EXPR_OP_LT,
  EXPR_OP_LE,
  EXPR_OP_GT,
  EXPR_OP_GE,
  EXPR_OP_EQ,
  EXPR_OP_NE,
  /* ternary */
  EXPR_OP_WHERE,
  EXPR_OP_CLIP,                 /* sugar, rewritten by the typing pass */
  EXPR_OP_N
} ExprOp;

#define EXPR_OP_FIRST_UNARY EXPR_OP_NEG
#define EXPR_OP_LAST_UNARY EXPR_OP_CAST
#define EXPR_OP_FIRST_BINARY EXPR_OP_ADD
#define EXPR_OP_LAST_BINARY EXPR_OP_NE
#define EXPR_OP_FIRST_COMPARE EXPR_OP_LT

/* numpy's logaddexp and logaddexp2, in float64 (float32 operands are
 * computed in float64 and rounded once): shared by the CPU kernels and
 * constant folding so that both give the same bits. */
static inline gdouble
_plan_expr_logaddexp (gdouble x, gdouble y)
{
  gdouble d;

  if (x == y)                   /* equal infinities too */
    return x + G_LN2;
  d = x - y;
  if (d > 0)
    return x + log1p (exp (-d));
  if (d <= 0)
    return y + log1p (exp (d));
  return d;                     /* NaN */
}

/* The product is rounded on its own (the volatile keeps the compiler from
 * fusing it with the sum where the instruction set has fused multiply-add,
 * which would make the kernels of each instruction set differ). */
static inline gdouble
_plan_expr_logaddexp2 (gdouble x, gdouble y)
{
  volatile gdouble l;
  gdouble d;

  if (x == y)
    return x + 1.0;
  d = x - y;
  if (d > 0) {
    l = log1p (exp2 (-d)) * 1.44269504088896340736;
    return x + l;
  }
  if (d <= 0) {
    l = log1p (exp2 (d)) * 1.44269504088896340736;
    return y + l;
  }
  return d;
}

/* CPU kernels. Every kernel takes n elements of each operand and writes n
 * results; operands have the dtype given by _plan_expr_node_arg_dtype(). */
typedef void (*ExprKernel) (gsize n, gpointer out, gconstpointer a,
    gconstpointer b, gconstpointer c);

/* The most terms one call of a chain kernel takes. */
#define EXPR_CHAIN_GROUP 8

/* What a chain kernel does to its sum after the last term. */
typedef enum
{
  EXPR_CHAIN_POST_NONE,
  EXPR_CHAIN_POST_MUL,
  EXPR_CHAIN_POST_DIV,
} ExprChainPost;

/* A weighted sum, fused: with @first, out[i] = c0 * x0[i]; otherwise
 * out[i] is the running sum; then for each further term out[i] = out[i] +
 * c * x[i]; then @post with @post_coef. Every product and sum is rounded
 * on its own, in this order, exactly as the separate kernels would give,
 * never contracted into a fused multiply-add. @coefs and @post_coef are
 * elements of the kernel's dtype; 1 <= @n_terms <= EXPR_CHAIN_GROUP. */
typedef void (*ExprChainKernel) (gsize n, gpointer out,
    const gconstpointer * x, gconstpointer coefs, guint n_terms,
    gboolean first, ExprChainPost post, gconstpointer post_coef);

typedef struct
{
  ExprKernel unary[EXPR_OP_N][PLAN_DTYPE_N];
  ExprKernel binary[EXPR_OP_N][PLAN_DTYPE_N];
  ExprKernel cast[PLAN_DTYPE_N][PLAN_DTYPE_N];
  ExprKernel where[PLAN_DTYPE_N];
  /* Copies @bytes to @dst with non-temporal (cache-bypassing) stores where
   * the instruction set has them; stream_fence() orders them. */
  void (*stream_copy) (gpointer dst, gconstpointer src, gsize bytes);
  void (*stream_fence) (void);
  /* Fused weighted sums, for the dtypes that have one (else NULL). */
  ExprChainKernel chain[PLAN_DTYPE_N];
  /* float32 kernels of the operations that stand for a float16 one
   * (ExprNode.numpy_f16), computed as numpy's float16 loops compute them
   * (kernels/cpu/exprhalf.c); NULL where the float32 kernel already
   * gives numpy's bits. */
  ExprKernel numpy_f16[EXPR_OP_N];
} ExprKernelTable;

/* Adds the complex64 and complex128 kernels (kernels/cpu/exprcomplex.c,
 * compiled once: the same code, hence the same bits, on every CPU). */
void _plan_expr_complex_kernels_fill (ExprKernelTable * t);

/* Fills numpy_f16 (kernels/cpu/exprhalf.c, compiled once). */
void _plan_expr_half_kernels_fill (ExprKernelTable * t);

G_END_DECLS

#endif /* __PLAN_EXPR_TABLE_H__ */
