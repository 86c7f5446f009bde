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
#include "kernels/cpu/exprtable.h"
#include <math.h>

G_BEGIN_DECLS


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
  guint n_given;                /* a call's arguments as written (args
                                 * holds the first 3), for the typer's
                                 * message when more are given */
  /* Filled by the parser for names and calls. */
  const gchar *name;            /* points into the arena's strings */
  guint name_index;             /* EXPR_NODE_NAME: bound name */
  /* Filled by the typing pass. */
  PlanDType dtype;              /* result dtype (strong) */
  /* A float32 operation standing for a float16 one (float16 operands
   * converted, the result rounded back): computed as numpy's float16 loop
   * computes it (ExprKernelTable.numpy_f16). */
  gboolean numpy_f16;
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


/* The table of the instruction set the CPU loops run in
 * (_plan_cpu_isa ()). */
const ExprKernelTable *_plan_expr_kernels (void);

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

/* expreval.c: @expr over a whole array in memory, on all cores from a
 * smaller size than streaming blocks use, the workers staying awake a
 * little for the next dispatch: the plan API's direct path. */
G_GNUC_INTERNAL
void _plan_expr_eval_in_memory (const PlanExpr * expr,
    const gconstpointer * inputs, gpointer out, gsize n);

G_END_DECLS

#endif /* __PLAN_EXPR_PRIVATE_H__ */
