/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The expression compiler's private layer: the syntax tree, the typing
 * pass, the CPU program and the CUDA code generator share these
 * declarations. Never installed. See docs/expressions.md for the language.
 */

#ifndef __PLAN_EXPR_PRIVATE_H__
#define __PLAN_EXPR_PRIVATE_H__

#include <glib.h>
#include <libplan/plandtype.h>
#include <libplan/planexpr.h>
#include <libplan/planarrayinfo.h>
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

typedef enum
{
  EXPR_NODE_CONST,
  EXPR_NODE_NAME,
  EXPR_NODE_OP,
} ExprNodeKind;

/* A literal that has not met a typed operand yet is "weak", as Python
 * scalars are under NEP 50: it takes the dtype of what it meets. */
typedef enum
{
  EXPR_WEAK_NONE,
  EXPR_WEAK_INT,
  EXPR_WEAK_FLOAT,
  EXPR_WEAK_COMPLEX,            /* a Python complex (1j, 2 + 3j): c128 */
} ExprWeak;

/* A value of any dtype (or a weak literal). Weak ints use the 128-bit
 * field so that every uint64 and int64 value fits; complex values are
 * their real and imaginary parts. */
typedef union
{
  gboolean b;
  gint64 i;
  guint64 u;
  gfloat f32;
  gdouble f64;
  gfloat c64[2];
  gdouble c128[2];
  __int128 big;
  guint8 bytes[16];
} ExprValue;

typedef struct _ExprNode ExprNode;

/* Bounds the recursion of every pass over the tree. */
#define EXPR_MAX_HEIGHT 2000

struct _ExprNode
{
  ExprNodeKind kind;
  ExprOp op;
  guint pos;                    /* byte offset of the node's token */
  guint len;                    /* bytes its token spans */
  guint end;                    /* byte offset one past the whole node */
  guint start;                  /* byte offset where the whole node starts */
  gboolean paren;               /* written inside parentheses */
  gboolean numpy_prefix;        /* a name written as np.NAME or numpy.NAME */
  guint height;                 /* longest path to a leaf, leaves 0 */
  guint n_args;
  ExprNode *args[3];
  /* Filled by the parser for names and calls. */
  const gchar *name;            /* points into the arena's strings */
  guint name_index;             /* EXPR_NODE_NAME: bound name */
  /* Filled by the typing pass. */
  PlanDType dtype;              /* result dtype (strong) */
  ExprWeak weak;                /* EXPR_NODE_CONST only */
  ExprValue value;              /* EXPR_NODE_CONST only */
};

/* Owns every node and string of one compilation. */
typedef struct
{
  const gchar *source;
  GPtrArray *nodes;
  GStringChunk *strings;
  guint n_names;
  const gchar *const *names;
  const PlanDType *dtypes;
} ExprArena;

void _plan_expr_arena_init (ExprArena * arena, const gchar * source);
void _plan_expr_arena_clear (ExprArena * arena);
ExprNode *_plan_expr_node_new (ExprArena * arena, ExprNodeKind kind,
    guint pos, guint len);

/* Errors: the message names the column and quotes the source with a caret
 * under the byte at @pos. */
void _plan_expr_set_error (GError ** error, gint code, const gchar * source,
    guint pos, const gchar * format, ...) G_GNUC_PRINTF (5, 6);

/* Parses @arena->source. Names are resolved against @arena->names when they
 * are given; unresolved names stay EXPR_NODE_NAME with name_index G_MAXUINT
 * for the syntax-only check. */
ExprNode *_plan_expr_parse (ExprArena * arena, GError ** error);

/* Types the tree in place (inserting casts and constants), so that every
 * operand of every operation has exactly the dtype the operation computes
 * in. Returns the new root. */
ExprNode *_plan_expr_type (ExprArena * arena, ExprNode * root,
    GError ** error);

/* Casts a typed root to @dtype (a no-op when it has that dtype). */
ExprNode *_plan_expr_cast_root (ExprArena * arena, ExprNode * root,
    PlanDType dtype);

const gchar *_plan_expr_op_name (ExprOp op);
/* The dtype the kernel of @node computes in (the dtype of its operands). */
PlanDType _plan_expr_node_arg_dtype (const ExprNode * node);

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
} ExprKernelTable;

/* The table for the best instruction set this CPU has. */
const ExprKernelTable *_plan_expr_kernels (void);
/* Adds the complex64 and complex128 kernels (kernels/cpu/exprcomplex.c,
 * compiled once: the same code, hence the same bits, on every CPU). */
void _plan_expr_complex_kernels_fill (ExprKernelTable * t);
/* Name of the instruction set the table was built for. */
const gchar *_plan_expr_kernels_isa (void);

ExprKernel _plan_expr_node_kernel (const ExprNode * node);

/* How a bound name is read when its shape is not the output's
 * (plan_expr_compile_broadcast()): element e of the output (e counted
 * from the start of a row-aligned range, rows of row_elements elements)
 * reads element
 *
 *   (e / row_elements) * row_stride + sum_a ((e % row_elements) /
 *       out_stride[a] % dims[a]) * strides[a]
 *
 * of the name: row_stride is 0 for a name that does not vary from row to
 * row (a constant), strides[a] is 0 along the axes it is broadcast
 * over. A scalar (one element, the same for every row) is read once. */
typedef enum
{
  EXPR_BCAST_DIRECT,            /* the output's shape: element e */
  EXPR_BCAST_SCALAR,            /* one value for every element */
  EXPR_BCAST_GATHER,            /* the index above */
} ExprBcastKind;

typedef struct
{
  ExprBcastKind kind;
  gsize size;                   /* of an element */
  guint64 row_stride;
  guint ndim;                   /* the output's inner axes */
  guint64 dims[PLAN_ARRAY_MAX_DIMS];
  guint64 out_stride[PLAN_ARRAY_MAX_DIMS];
  guint64 strides[PLAN_ARRAY_MAX_DIMS];
} ExprBcast;

/* The index above, for element @e. */
static inline guint64
_plan_expr_bcast_index (const ExprBcast * b, guint64 row_elements, guint64 e)
{
  guint64 j = e % row_elements, idx = (e / row_elements) * b->row_stride;
  guint a;

  for (a = 0; a < b->ndim; a++)
    if (b->strides[a])
      idx += (j / b->out_stride[a]) % b->dims[a] * b->strides[a];
  return idx;
}

/* CUDA code generation (exprcuda.c). @bcast is NULL when every name has
 * the output's shape, else one per name. */
gchar *_plan_expr_cuda_generate (ExprNode * root, guint n_names,
    const PlanDType * dtypes, const ExprBcast * bcast, guint64 row_elements,
    const gchar * function_name);

/* What plan_expr_launch() keeps in an expression: its kernel for the
 * device it last ran on (exprlaunch.c owns the kernel; planexpr.c frees it
 * with the expression). */
typedef struct
{
  GMutex lock;
  gpointer kernel;
  gpointer device;              /* whose kernel it is, not a reference */
  GDestroyNotify free_kernel;
} ExprDeviceCache;

G_GNUC_INTERNAL
ExprDeviceCache * _plan_expr_get_device_cache (PlanExpr * expr);

/* The layout of name @index (NULL when every name is read directly). */
G_GNUC_INTERNAL
const ExprBcast * _plan_expr_get_bcast (const PlanExpr * expr, guint index);

G_GNUC_INTERNAL
const gchar * _plan_cuda_type_name (PlanDType d);

G_END_DECLS

#endif /* __PLAN_EXPR_PRIVATE_H__ */
