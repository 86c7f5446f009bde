/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planexpr
 * @title: PlanExpr
 * @short_description: the expression language: compile, evaluate on the
 *   CPU, translate to CUDA
 *
 * One expression language serves planmap, planstencil and custom
 * reductions. The caller binds names to dtypes and compiles the source
 * once with plan_expr_compile(); the result is an immutable #PlanExpr that
 * evaluates arrays with plan_expr_eval() or plan_expr_eval_parallel(), and
 * translates itself to CUDA C with plan_expr_to_cuda().
 *
 * The language, its numpy semantics (type promotion with NEP 50 weak
 * literals, true and floor division, wrapping integers) and the few places
 * it differs from numpy are described in docs/expressions.md.
 *
 * Errors are reported as #GError in the #PLAN_ERROR domain:
 * %PLAN_ERROR_SYNTAX when the source does not parse, %PLAN_ERROR_TYPE when
 * it parses but cannot be typed (an unknown name or function, a wrong
 * number of arguments, a bitwise operation on a float, ...). The message
 * names the column and quotes the expression with a caret under the spot:
 *
 * |[
 * column 5: expected an operand, found '*'
 *   x + * y
 *       ^
 * ]|
 *
 * On the CPU the expression is compiled into a short program of typed
 * kernels (one loop per operation and dtype, vectorised for the best
 * instruction set of the CPU) that runs over blocks of 1024 elements held
 * in cache, so each input is read once from memory and the result written
 * once.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planexpr.h"
#include <libplan/planerror.h>
#include <libplan/planparallel.h>
#include "expr-private.h"
#include "libplan/core/plan-private.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (plan_expr_debug);
#define GST_CAT_DEFAULT plan_expr_debug

/* Elements per block: the temporaries of a typical expression (a few
 * blocks of 8-byte elements) stay in the L1 data cache. A slot has room
 * for the largest element (complex128); a block of a smaller dtype uses
 * the start of its slot. */
#define BLOCK 1024
#define SLOT_BYTES (BLOCK * 16)
/* Smallest range handed to one thread. */
#define GRAIN (BLOCK * 8)

typedef enum
{
  REG_TEMP,
  REG_INPUT,
  REG_CONST,
  REG_OUT,
  REG_BCAST,                    /* a broadcast name: see bcast_block() */
} RegKind;

typedef struct
{
  RegKind kind;
  guint index;
} Reg;

typedef struct
{
  ExprKernel kernel;
  Reg dst;
  Reg src[3];
  guint n_src;
} Instr;

struct _PlanExpr
{
  gint ref_count;
  gchar *source;
  guint n_names;
  gchar **names;
  PlanDType *dtypes;
  gsize *sizes;                 /* element size of each name */
  gsize out_size;
  gboolean *uses;
  PlanDType dtype;

  /* The typed tree, kept for the CUDA code generator. */
  ExprArena arena;
  ExprNode *root;

  /* The CPU program. */
  Instr *instrs;
  guint n_instrs;
  guint cost;                   /* work per element: see op_cost() */
  guint n_temps;
  guint8 *consts;               /* n_consts slots, each a block of one value */
  guint n_consts;

  /* A weighted sum (c0 x0 + c1 x1 + ..., optionally scaled) runs as one
   * fused kernel instead of the program; chain_kernel is NULL for the
   * other expressions. See build_chain(). */
  ExprChainKernel chain_kernel;
  guint chain_n;
  guint *chain_inputs;          /* [chain_n]: the name of each term */
  guint8 *chain_coefs;          /* [chain_n] elements of the dtype */
  ExprChainPost chain_post;
  ExprValue chain_post_coef;

  /* Broadcasting (plan_expr_compile_broadcast()): NULL when every name
   * is read directly, else a layout per name; bcast_index[i] is the
   * within-row index table of a EXPR_BCAST_GATHER name. */
  ExprBcast *bcast;
  guint64 **bcast_index;
  guint64 row_elements;
  gboolean any_bcast;           /* a used name is not read directly */

  /* plan_expr_launch() (exprlaunch.c): the kernel built for a device. */
  ExprDeviceCache device_cache;
};

G_DEFINE_BOXED_TYPE (PlanExpr, plan_expr, plan_expr_ref, plan_expr_unref);

static void
ensure_debug (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (plan_expr_debug, "planexpr", 0,
        "expression compiler");
    g_once_init_leave (&done, 1);
  }
}

/* ---- program building ---- */

typedef struct
{
  PlanExpr *expr;
  GArray *instrs;
  GArray *consts;               /* ExprNode * of each const slot */
  GArray *temps;                /* gboolean per temporary: in use */
} Builder;

static guint
temp_alloc (Builder * b)
{
  guint i;
  gboolean busy = TRUE;

  for (i = 0; i < b->temps->len; i++) {
    if (!g_array_index (b->temps, gboolean, i)) {
      g_array_index (b->temps, gboolean, i) = TRUE;
      return i;
    }
  }
  g_array_append_val (b->temps, busy);
  return b->temps->len - 1;
}

static void
reg_release (Builder * b, Reg r)
{
  if (r.kind == REG_TEMP)
    g_array_index (b->temps, gboolean, r.index) = FALSE;
}

/* A rough cost of an operation per element, in units of an addition: what
 * plan_expr_eval_parallel() weighs against the cost of waking threads.
 * Functions computed by polynomials (or glibc) cost several. */
static guint
op_cost (ExprOp op)
{
  switch (op) {
    case EXPR_OP_DIV:
    case EXPR_OP_SQRT:
    case EXPR_OP_FLOORDIV:
    case EXPR_OP_MOD:
    case EXPR_OP_FMOD:
      return 2;
    case EXPR_OP_CBRT:
    case EXPR_OP_EXP:
    case EXPR_OP_EXP2:
    case EXPR_OP_EXPM1:
    case EXPR_OP_LOG:
    case EXPR_OP_LOG2:
    case EXPR_OP_LOG10:
    case EXPR_OP_LOG1P:
    case EXPR_OP_SIN:
    case EXPR_OP_COS:
    case EXPR_OP_TAN:
    case EXPR_OP_ASIN:
    case EXPR_OP_ACOS:
    case EXPR_OP_ATAN:
    case EXPR_OP_SINH:
    case EXPR_OP_COSH:
    case EXPR_OP_TANH:
    case EXPR_OP_ASINH:
    case EXPR_OP_ACOSH:
    case EXPR_OP_ATANH:
    case EXPR_OP_POW:
    case EXPR_OP_ATAN2:
    case EXPR_OP_HYPOT:
      return 4;
    case EXPR_OP_LOGADDEXP:
    case EXPR_OP_LOGADDEXP2:
      return 8;                 /* an exp and a log1p from glibc */
    default:
      return 1;
  }
}

static Reg
build_node (Builder * b, ExprNode * node, gboolean is_root)
{
  Reg r = { REG_TEMP, 0 };
  Instr ins;
  guint i, order[3];

  switch (node->kind) {
    case EXPR_NODE_NAME:
      r.kind = REG_INPUT;
      if (b->expr->bcast
          && b->expr->bcast[node->name_index].kind != EXPR_BCAST_DIRECT)
        r.kind = REG_BCAST;
      r.index = node->name_index;
      return r;
    case EXPR_NODE_CONST:
      for (i = 0; i < b->consts->len; i++) {
        ExprNode *c = g_array_index (b->consts, ExprNode *, i);
        if (c->dtype == node->dtype
            && memcmp (c->value.bytes, node->value.bytes, 16) == 0)
          break;
      }
      if (i == b->consts->len)
        g_array_append_val (b->consts, node);
      r.kind = REG_CONST;
      r.index = i;
      return r;
    case EXPR_NODE_OP:
      break;
  }

  b->expr->cost += op_cost (node->op);
  memset (&ins, 0, sizeof (ins));
  ins.kernel = _plan_expr_node_kernel (node);
  g_assert (ins.kernel != NULL);
  ins.n_src = node->n_args;
  /* The tallest operand first (Sethi-Ullman order): what the others leave
   * in temporaries is then held while as little as possible runs, so a
   * chain like sin(x) + (sin(x) + (...)) needs two temporaries, not one
   * per level. */
  for (i = 0; i < node->n_args; i++)
    order[i] = i;
  for (i = 1; i < node->n_args; i++) {
    guint j = i, k = order[i];
    while (j > 0 && node->args[order[j - 1]]->height < node->args[k]->height) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = k;
  }
  for (i = 0; i < node->n_args; i++)
    ins.src[order[i]] = build_node (b, node->args[order[i]], FALSE);
  if (is_root) {
    ins.dst.kind = REG_OUT;
  } else {
    ins.dst.kind = REG_TEMP;
    ins.dst.index = temp_alloc (b);
  }
  for (i = 0; i < node->n_args; i++)
    reg_release (b, ins.src[i]);
  g_array_append_val (b->instrs, ins);
  return ins.dst;
}

static void
build_program (PlanExpr * expr)
{
  Builder b = { expr, NULL, NULL, NULL };
  ExprNode *root = expr->root;
  guint i, j;

  /* A bare input or constant is copied by a same-dtype cast. */
  if (root->kind != EXPR_NODE_OP) {
    ExprNode *copy = _plan_expr_node_new (&expr->arena, EXPR_NODE_OP,
        root->pos, root->len);
    copy->op = EXPR_OP_CAST;
    copy->n_args = 1;
    copy->args[0] = root;
    copy->dtype = root->dtype;
    root = copy;
  }

  b.instrs = g_array_new (FALSE, TRUE, sizeof (Instr));
  b.consts = g_array_new (FALSE, TRUE, sizeof (ExprNode *));
  b.temps = g_array_new (FALSE, TRUE, sizeof (gboolean));
  build_node (&b, root, TRUE);

  expr->n_instrs = b.instrs->len;
  expr->instrs = (Instr *) g_array_free (b.instrs, FALSE);
  expr->n_temps = b.temps->len;
  g_array_free (b.temps, TRUE);

  expr->n_consts = b.consts->len;
  expr->consts = g_malloc ((gsize) MAX (1, expr->n_consts) * SLOT_BYTES);
  for (i = 0; i < b.consts->len; i++) {
    ExprNode *c = g_array_index (b.consts, ExprNode *, i);
    gsize size = plan_dtype_get_size (c->dtype);
    guint8 *slot = expr->consts + (gsize) i * SLOT_BYTES;
    for (j = 0; j < BLOCK; j++)
      memcpy (slot + j * size, c->value.bytes, size);
  }
  g_array_free (b.consts, TRUE);
}


/* ---- broadcasting ---- */

/* The most elements a row of a broadcasting result holds: each broadcast
 * name keeps an index per element of a row. */
#define MAX_BCAST_ROW ((guint64) 1 << 26)

static gchar *
info_shape (const PlanArrayInfo * info)
{
  return plan_shape_to_string (info->ndim, info->shape);
}

static gboolean broadcast (PlanExpr * expr, const PlanArrayInfo * infos,
    guint n_streams, PlanArrayInfo * out_info, GError ** error);

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
  ok = broadcast (expr, rows, n_streams, out_info, error);
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
static gboolean
broadcast (PlanExpr * expr, const PlanArrayInfo * infos, guint n_streams,
    PlanArrayInfo * out_info, GError ** error)
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

/* ---- fused weighted sums ---- */

/* Stores 1 in @v, for the dtypes that have a chain kernel. */
static void
value_one (PlanDType d, ExprValue * v)
{
  memset (v, 0, sizeof (*v));
  switch (d) {
    case PLAN_DTYPE_FLOAT32:
      v->f32 = 1;
      break;
    case PLAN_DTYPE_FLOAT64:
      v->f64 = 1;
      break;
    default:
      if (d == PLAN_DTYPE_INT16) {
        gint16 x = 1;
        memcpy (v->bytes, &x, 2);
      } else if (d == PLAN_DTYPE_INT32) {
        gint32 x = 1;
        memcpy (v->bytes, &x, 4);
      } else {
        v->i = 1;
      }
      break;
  }
}

/* Stores -v in place, for the dtypes that have a chain kernel. */
static void
value_negate (PlanDType d, ExprValue * v)
{
  switch (d) {
    case PLAN_DTYPE_FLOAT32:
      v->f32 = -v->f32;
      break;
    case PLAN_DTYPE_FLOAT64:
      v->f64 = -v->f64;
      break;
    case PLAN_DTYPE_INT16:{
      gint16 x;
      memcpy (&x, v->bytes, 2);
      x = (gint16) (0u - (guint16) x);
      memcpy (v->bytes, &x, 2);
      break;
    }
    case PLAN_DTYPE_INT32:{
      gint32 x;
      memcpy (&x, v->bytes, 4);
      x = (gint32) (0u - (guint32) x);
      memcpy (v->bytes, &x, 4);
      break;
    }
    case PLAN_DTYPE_INT64:
      v->i = (gint64) (0ull - (guint64) v->i);
      break;
    default:
      g_assert_not_reached ();
  }
}

/* A term of a chain: a name of dtype @d, or a product of one and a
 * constant, either way round. */
static gboolean
chain_term (const ExprNode * n, PlanDType d, guint * input, ExprValue * coef)
{
  const ExprNode *a, *b;

  if (n->dtype != d)
    return FALSE;
  if (n->kind == EXPR_NODE_NAME) {
    *input = n->name_index;
    value_one (d, coef);
    return TRUE;
  }
  if (n->kind != EXPR_NODE_OP || n->op != EXPR_OP_MUL)
    return FALSE;
  a = n->args[0];
  b = n->args[1];
  if (a->kind == EXPR_NODE_CONST) {
    const ExprNode *t = a;
    a = b;
    b = t;
  }
  if (a->kind != EXPR_NODE_NAME || b->kind != EXPR_NODE_CONST
      || a->dtype != d || b->dtype != d)
    return FALSE;
  *input = a->name_index;
  *coef = b->value;
  return TRUE;
}

/* The running sum of a chain scaled at the end: (sum) * k, k * (sum) or
 * (sum) / k on floats. Returns the sum's node, or @root. */
static const ExprNode *
chain_post (PlanExpr * expr, const ExprNode * root)
{
  const ExprNode *sum = root->args[0], *k = root->args[1];

  if (root->kind != EXPR_NODE_OP || root->n_args != 2)
    return root;
  if (root->op == EXPR_OP_MUL && sum->kind == EXPR_NODE_CONST) {
    sum = root->args[1];
    k = root->args[0];
  }
  if (k->kind != EXPR_NODE_CONST || k->dtype != root->dtype
      || sum->kind != EXPR_NODE_OP || sum->dtype != root->dtype
      || (sum->op != EXPR_OP_ADD && sum->op != EXPR_OP_SUB))
    return root;
  if (root->op == EXPR_OP_MUL) {
    expr->chain_post = EXPR_CHAIN_POST_MUL;
  } else if (root->op == EXPR_OP_DIV && (root->dtype == PLAN_DTYPE_FLOAT32
          || root->dtype == PLAN_DTYPE_FLOAT64)) {
    expr->chain_post = EXPR_CHAIN_POST_DIV;
  } else {
    return root;
  }
  expr->chain_post_coef = k->value;
  return sum;
}

/* Recognises a weighted sum of names, ((c0 x0 + c1 x1) - c2 x2) + ...,
 * left to right as written, all of one dtype, and optionally scaled by a
 * constant at the end: the linear stencils, smoothing filters and axpy's.
 * The fused kernel then reads each input once and keeps the sum in
 * registers; it rounds as the program would (a - c x is a + (-c) x
 * exactly), so the results are the same to the bit. PLAN_EXPR_CHAIN=0
 * turns this off, for tests and benchmarks. */
static void
build_chain (PlanExpr * expr)
{
  const ExprNode *node;
  PlanDType d = expr->dtype;
  ExprChainKernel kernel = _plan_expr_kernels ()->chain[d];
  GArray *inputs, *coefs;
  gsize size = expr->out_size;
  guint input, i;
  ExprValue coef;

  if (kernel == NULL || expr->n_instrs < 2 || expr->any_bcast
      || g_strcmp0 (g_getenv ("PLAN_EXPR_CHAIN"), "0") == 0)
    return;
  expr->chain_post = EXPR_CHAIN_POST_NONE;
  node = chain_post (expr, expr->root);
  inputs = g_array_new (FALSE, FALSE, sizeof (guint));
  coefs = g_array_new (FALSE, FALSE, size);
  /* The left spine of the sums, last term first. */
  while (node->kind == EXPR_NODE_OP && node->dtype == d
      && (node->op == EXPR_OP_ADD || node->op == EXPR_OP_SUB)) {
    if (!chain_term (node->args[1], d, &input, &coef))
      goto not_a_chain;
    if (node->op == EXPR_OP_SUB)
      value_negate (d, &coef);
    g_array_prepend_val (inputs, input);
    g_array_prepend_vals (coefs, coef.bytes, 1);
    node = node->args[0];
  }
  if (!chain_term (node, d, &input, &coef))
    goto not_a_chain;
  g_array_prepend_val (inputs, input);
  g_array_prepend_vals (coefs, coef.bytes, 1);

  expr->chain_kernel = kernel;
  expr->chain_n = inputs->len;
  expr->chain_inputs = (guint *) g_array_free (inputs, FALSE);
  expr->chain_coefs = (guint8 *) g_array_free (coefs, FALSE);
  GST_DEBUG ("'%s' is a weighted sum of %u terms", expr->source, expr->chain_n);
  return;

not_a_chain:
  g_array_free (inputs, TRUE);
  g_array_free (coefs, TRUE);
  expr->chain_post = EXPR_CHAIN_POST_NONE;
  for (i = 0; i < sizeof (coef); i++)
    expr->chain_post_coef.bytes[i] = 0;
}

static void
mark_uses (PlanExpr * expr, ExprNode * node)
{
  guint i;

  if (node->kind == EXPR_NODE_NAME)
    expr->uses[node->name_index] = TRUE;
  for (i = 0; i < node->n_args; i++)
    mark_uses (expr, node->args[i]);
}

/* Name @i must be an identifier of the language and bound only once. */
static gboolean
names_valid (const gchar * const *names, guint i, GError ** error)
{
  const gchar *p, *name = names[i];
  guint j;

  if (name == NULL || !(g_ascii_isalpha (name[0]) || name[0] == '_'))
    goto not_identifier;
  for (p = name; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      goto not_identifier;
  if (!strcmp (name, "and") || !strcmp (name, "or") || !strcmp (name, "not"))
    goto not_identifier;
  for (j = 0; j < i; j++) {
    if (strcmp (names[j], name) == 0) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "the name '%s' is bound twice", name);
      return FALSE;
    }
  }
  return TRUE;

not_identifier:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
      "'%s' cannot be bound: a name is a letter or '_' followed by letters, "
      "digits and '_', and not 'and', 'or' or 'not'", name ? name : "(null)");
  return FALSE;
}

static PlanExpr *compile_full (const gchar * source, guint n_names,
    const gchar * const *names, const PlanDType * dtypes, PlanDType out_dtype,
    const PlanArrayInfo * infos, guint n_streams, PlanArrayInfo * out_info,
    GError ** error);

/**
 * plan_expr_compile:
 * @source: the expression, e.g. "2*x*y + sin(x)"
 * @n_names: how many names are bound
 * @names: (array length=n_names): the bound names; a bound name shadows a
 *   built-in constant of the same name (`e`, `pi`, ...)
 * @dtypes: (array length=n_names): the dtype of each name
 * @error: return location for a #GError
 *
 * Parses and types @source and builds its CPU program. Evaluation then
 * takes `inputs[i]` as the values of `names[i]`.
 *
 * Returns: (transfer full) (nullable): the compiled expression, or %NULL
 *   with @error set (%PLAN_ERROR_SYNTAX or %PLAN_ERROR_TYPE; the message
 *   names the column and shows a caret under it).
 *
 * Since: 0.1
 */
PlanExpr *
plan_expr_compile (const gchar * source, guint n_names,
    const gchar * const *names, const PlanDType * dtypes, GError ** error)
{
  return plan_expr_compile_with_dtype (source, n_names, names, dtypes,
      PLAN_DTYPE_UNKNOWN, error);
}

/**
 * plan_expr_compile_with_dtype:
 * @source: the expression
 * @n_names: how many names are bound
 * @names: (array length=n_names): the bound names
 * @dtypes: (array length=n_names): the dtype of each name
 * @out_dtype: the dtype of the result, or %PLAN_DTYPE_UNKNOWN for the
 *   expression's own
 * @error: return location for a #GError
 *
 * Like plan_expr_compile(), with the result cast to @out_dtype as the cast
 * function of the language would (`float32(...)`), but with error columns
 * that refer to @source itself. Elements with an output dtype property use
 * this.
 *
 * Returns: (transfer full) (nullable): the compiled expression, or %NULL
 *   with @error set.
 *
 * Since: 0.1
 */
PlanExpr *
plan_expr_compile_with_dtype (const gchar * source, guint n_names,
    const gchar * const *names, const PlanDType * dtypes, PlanDType out_dtype,
    GError ** error)
{
  return compile_full (source, n_names, names, dtypes, out_dtype, NULL, 0,
      NULL, error);
}

/**
 * plan_expr_compile_broadcast: (skip)
 * @source: the expression
 * @n_names: how many names are bound
 * @names: (array length=n_names): the bound names
 * @infos: (array length=n_names): the dtype and shape of each name
 * @n_streams: the first @n_streams names are streams (at least one)
 * @out_dtype: the dtype of the result, or %PLAN_DTYPE_UNKNOWN for the
 *   expression's own
 * @out_info: (out caller-allocates) (optional): the dtype and shape of the
 *   result
 * @error: return location for a #GError
 *
 * Like plan_expr_compile_with_dtype(), for names whose shapes differ and
 * broadcast against each other by numpy's rules (docs/expressions.md,
 * "Broadcasting"):
 *
 * - the streams, `names[0]` to `names[n_streams - 1]`, line up row by row:
 *   they have the same number of axes, the first being the rows
 *   (`shape[0]` is not looked at, and may be -1); their other axes
 *   broadcast against each other, so `(N, 1)` meets `(N, 3)`;
 * - the other names are the same for every row (array constants, scalar
 *   parameters): they broadcast against the whole output shape, aligned on
 *   the last axis as numpy aligns them, with length 1 (or no axis) along
 *   the rows, so `(3,)` meets `(N, 3)`. Those the expression does not read
 *   take no part.
 *
 * The result has the rows of the streams and the broadcast inner shape.
 * Evaluation then takes row-aligned inputs: for @n output elements
 * (n / row elements of the result, rows), each stream holds its own rows
 * (`n / row elements` of them, each of its own row size), each other name
 * its whole array, a single element for scalars. plan_expr_launch() takes
 * device pointers the same way, but a host pointer for each name with one
 * element that is not a stream (a scalar parameter), whose value is read
 * when the launch is queued.
 *
 * Returns: (transfer full) (nullable): the compiled expression, or %NULL
 *   with @error set: %PLAN_ERROR_SHAPE naming both shapes when they do not
 *   broadcast.
 *
 * Since: 0.1
 */
PlanExpr *
plan_expr_compile_broadcast (const gchar * source, guint n_names,
    const gchar * const *names, const PlanArrayInfo * infos, guint n_streams,
    PlanDType out_dtype, PlanArrayInfo * out_info, GError ** error)
{
  PlanDType *dtypes;
  PlanExpr *expr;
  guint i;

  g_return_val_if_fail (source != NULL, NULL);
  g_return_val_if_fail (n_names > 0 && names != NULL && infos != NULL, NULL);

  dtypes = g_new (PlanDType, n_names);
  for (i = 0; i < n_names; i++)
    dtypes[i] = infos[i].dtype;
  expr = compile_full (source, n_names, names, dtypes, out_dtype, infos,
      n_streams, out_info, error);
  g_free (dtypes);
  if (expr && out_info)
    out_info->dtype = expr->dtype;
  return expr;
}

static PlanExpr *
compile_full (const gchar * source, guint n_names,
    const gchar * const *names, const PlanDType * dtypes, PlanDType out_dtype,
    const PlanArrayInfo * infos, guint n_streams, PlanArrayInfo * out_info,
    GError ** error)
{
  PlanExpr *expr;
  ExprNode *root;
  guint i;

  g_return_val_if_fail (source != NULL, NULL);
  g_return_val_if_fail (n_names == 0 || (names != NULL && dtypes != NULL),
      NULL);

  ensure_debug ();
  if (out_dtype < PLAN_DTYPE_UNKNOWN || out_dtype >= PLAN_DTYPE_N) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%d is not a dtype", (gint) out_dtype);
    return NULL;
  }
  for (i = 0; i < n_names; i++) {
    if (!names_valid (names, i, error))
      return NULL;
    if (dtypes[i] <= PLAN_DTYPE_UNKNOWN || dtypes[i] >= PLAN_DTYPE_N) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "name '%s' has no valid dtype", names[i]);
      return NULL;
    }
  }

  expr = g_new0 (PlanExpr, 1);
  expr->ref_count = 1;
  g_mutex_init (&expr->device_cache.lock);
  expr->source = g_strdup (source);
  expr->n_names = n_names;
  expr->names = g_new0 (gchar *, n_names + 1);
  for (i = 0; i < n_names; i++)
    expr->names[i] = g_strdup (names[i]);
  expr->dtypes = g_memdup2 (dtypes, sizeof (PlanDType) * MAX (n_names, 1));
  expr->sizes = g_new0 (gsize, MAX (n_names, 1));
  for (i = 0; i < n_names; i++)
    expr->sizes[i] = plan_dtype_get_size (dtypes[i]);
  expr->uses = g_new0 (gboolean, MAX (n_names, 1));

  _plan_expr_arena_init (&expr->arena, expr->source);
  expr->arena.n_names = n_names;
  expr->arena.names = (const gchar * const *) expr->names;
  expr->arena.dtypes = expr->dtypes;

  root = _plan_expr_parse (&expr->arena, error);
  if (root == NULL)
    goto failed;
  root = _plan_expr_type (&expr->arena, root, error);
  if (root == NULL)
    goto failed;
  if (out_dtype != PLAN_DTYPE_UNKNOWN) {
    if (plan_dtype_is_complex (root->dtype)
        && !plan_dtype_is_complex (out_dtype) && out_dtype != PLAN_DTYPE_BOOL) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_TYPE, "the expression is "
          "%s, and casting it to %s would discard the imaginary part; "
          "write real(...), imag(...) or abs(...) to say which real number "
          "is meant", plan_dtype_to_string (root->dtype),
          plan_dtype_to_string (out_dtype));
      goto failed;
    }
    root = _plan_expr_cast_root (&expr->arena, root, out_dtype);
  }

  expr->root = root;
  expr->dtype = root->dtype;
  expr->out_size = plan_dtype_get_size (root->dtype);
  mark_uses (expr, root);
  if (infos && !broadcast (expr, infos, n_streams, out_info, error))
    goto failed;
  build_program (expr);
  build_chain (expr);
  GST_DEBUG ("compiled '%s' to %u instructions, %u temporaries, %u "
      "constants, result %s (%s kernels)", source, expr->n_instrs,
      expr->n_temps, expr->n_consts, plan_dtype_to_string (expr->dtype),
      _plan_cpu_isa_name ());
  return expr;

failed:
  plan_expr_unref (expr);
  return NULL;
}

/**
 * plan_expr_check:
 * @source: an expression
 * @error: return location for a #GError
 *
 * Checks the syntax of @source only (names and types are checked by
 * plan_expr_compile(), once the dtypes are known). Meant for property
 * setters, to reject a malformed expression early.
 *
 * Returns: whether @source parses; otherwise @error is set
 *   (%PLAN_ERROR_SYNTAX).
 *
 * Since: 0.1
 */
gboolean
plan_expr_check (const gchar * source, GError ** error)
{
  ExprArena arena;
  gboolean ok;

  g_return_val_if_fail (source != NULL, FALSE);

  _plan_expr_arena_init (&arena, source);
  ok = _plan_expr_parse (&arena, error) != NULL;
  _plan_expr_arena_clear (&arena);
  return ok;
}

/**
 * plan_expr_ref:
 * @expr: a #PlanExpr
 *
 * Returns: (transfer full): @expr
 *
 * Since: 0.1
 */
PlanExpr *
plan_expr_ref (PlanExpr * expr)
{
  g_return_val_if_fail (expr != NULL, NULL);
  g_atomic_int_inc (&expr->ref_count);
  return expr;
}

/**
 * plan_expr_unref:
 * @expr: (transfer full): a #PlanExpr
 *
 * Drops a reference; the last one frees the expression.
 *
 * Since: 0.1
 */
void
plan_expr_unref (PlanExpr * expr)
{
  g_return_if_fail (expr != NULL);
  if (!g_atomic_int_dec_and_test (&expr->ref_count))
    return;
  _plan_expr_arena_clear (&expr->arena);
  g_strfreev (expr->names);
  g_free (expr->dtypes);
  g_free (expr->sizes);
  g_free (expr->uses);
  g_free (expr->instrs);
  g_free (expr->consts);
  g_free (expr->chain_inputs);
  g_free (expr->chain_coefs);
  if (expr->bcast_index) {
    guint i;
    for (i = 0; i < expr->n_names; i++)
      g_free (expr->bcast_index[i]);
    g_free (expr->bcast_index);
  }
  g_free (expr->bcast);
  g_free (expr->source);
  if (expr->device_cache.kernel)
    expr->device_cache.free_kernel (expr->device_cache.kernel);
  g_mutex_clear (&expr->device_cache.lock);
  g_free (expr);
}

/**
 * plan_expr_get_dtype:
 * @expr: a #PlanExpr
 *
 * Returns: the dtype of the result.
 *
 * Since: 0.1
 */
PlanDType
plan_expr_get_dtype (const PlanExpr * expr)
{
  g_return_val_if_fail (expr != NULL, PLAN_DTYPE_UNKNOWN);
  return expr->dtype;
}

/**
 * plan_expr_get_source:
 * @expr: a #PlanExpr
 *
 * Returns: (transfer none): the source @expr was compiled from.
 *
 * Since: 0.1
 */
const gchar *
plan_expr_get_source (const PlanExpr * expr)
{
  g_return_val_if_fail (expr != NULL, NULL);
  return expr->source;
}

/**
 * plan_expr_get_n_names:
 * @expr: a #PlanExpr
 *
 * Returns: how many names were bound at compilation (the length of the
 *   inputs array evaluation takes).
 *
 * Since: 0.1
 */
guint
plan_expr_get_n_names (const PlanExpr * expr)
{
  g_return_val_if_fail (expr != NULL, 0);
  return expr->n_names;
}

/**
 * plan_expr_uses_name:
 * @expr: a #PlanExpr
 * @index: the index of a bound name
 *
 * Constant folding may remove a name (`x * 0` does not, `0 * 2` has none),
 * so an element can skip reading inputs the expression does not use.
 * Inputs that are not used may be %NULL in plan_expr_eval().
 *
 * Returns: whether the compiled expression reads name @index.
 *
 * Since: 0.1
 */
gboolean
plan_expr_uses_name (const PlanExpr * expr, guint index)
{
  g_return_val_if_fail (expr != NULL, FALSE);
  if (index >= expr->n_names)
    return FALSE;
  return expr->uses[index];
}

/**
 * plan_expr_get_cpu_isa:
 *
 * Returns: (transfer none): the instruction set the CPU kernels (the
 *   expressions' and the reductions') run with: "avx512", "avx2" or
 *   "default". The environment variable `PLAN_CPU_ISA` ("default" or
 *   "avx2") lowers it, for tests and benchmarks.
 *
 * Since: 0.1
 */
const gchar *
plan_expr_get_cpu_isa (void)
{
  return _plan_cpu_isa_name ();
}

/* ---- evaluation ---- */

typedef struct
{
  const PlanExpr *expr;
  const gconstpointer *inputs;
  gpointer out;
  gboolean stream;              /* write the output with streaming stores */
  gboolean prefetch;            /* prefetch the inputs of the next block */
} EvalJob;

/* Where the broadcast names of one range are read from: for each, the
 * block of its values for the current block of the output. */
typedef struct
{
  guint8 **area;                /* [n_names]: the scratch of each */
  gboolean *periodic;           /* area holds row_elements + BLOCK values */
  guint8 **cur;                 /* [n_names]: the current block */
} BcastState;

/* dst[k] = the value of name @i at output element e0 + k, k < m. */
static void
bcast_gather (const PlanExpr * e, guint i, gconstpointer src, guint8 * dst,
    guint64 e0, gsize m)
{
  const guint64 *idx = e->bcast_index[i];
  guint64 p = e->row_elements, r = e->bcast[i].row_stride;
  guint64 j = e0 % p, base = (e0 / p) * r;
  gsize k;

#define GATHER(T) { \
      const T *s = src; T *d = (T *) dst; \
      for (k = 0; k < m; k++) { \
        d[k] = s[base + idx[j]]; \
        if (++j == p) { j = 0; base += r; } \
      } } break
  switch (e->sizes[i]) {
    case 1:
      GATHER (guint8);
    case 2:
      GATHER (guint16);
    case 4:
      GATHER (guint32);
    default:
      GATHER (guint64);
  }
#undef GATHER
}

static void
bcast_fill (guint8 * dst, gconstpointer value, gsize size, gsize m)
{
  gsize k;

  for (k = 0; k < m; k++)
    memcpy (dst + k * size, value, size);
}

/* Bytes of scratch name @i needs for a range of @n elements. */
static gsize
bcast_area_bytes (const PlanExpr * e, guint i, gsize n, gboolean * periodic)
{
  const ExprBcast *b = &e->bcast[i];
  gsize bytes;

  *periodic = FALSE;
  if (!e->uses[i] || b->kind == EXPR_BCAST_DIRECT)
    return 0;
  /* A constant repeats every row: its values for a row and a block,
   * gathered once per range, serve every block (at the offset of the
   * block within its row), when the range is long enough to pay for it. */
  if (b->kind == EXPR_BCAST_GATHER && b->row_stride == 0
      && e->row_elements + BLOCK <= n) {
    *periodic = TRUE;
    bytes = (e->row_elements + BLOCK) * e->sizes[i];
  } else {
    bytes = SLOT_BYTES;
  }
  return (bytes + 63) & ~(gsize) 63;
}

/* Fills what is fixed for the whole range. */
static void
bcast_begin (const EvalJob * job, BcastState * bs)
{
  const PlanExpr *e = job->expr;
  guint i;

  for (i = 0; i < e->n_names; i++) {
    if (bs->area[i] == NULL)
      continue;
    if (e->bcast[i].kind == EXPR_BCAST_SCALAR) {
      bcast_fill (bs->area[i], job->inputs[i], e->sizes[i], BLOCK);
      bs->cur[i] = bs->area[i];
    } else if (bs->periodic[i]) {
      bcast_gather (e, i, job->inputs[i], bs->area[i], 0,
          e->row_elements + BLOCK);
    }
  }
}

/* Points each broadcast name at its values for the block [off, off + m). */
static inline void
bcast_block (const EvalJob * job, BcastState * bs, gsize off, gsize m)
{
  const PlanExpr *e = job->expr;
  guint i;

  for (i = 0; i < e->n_names; i++) {
    if (bs->area[i] == NULL || e->bcast[i].kind == EXPR_BCAST_SCALAR)
      continue;
    if (bs->periodic[i]) {
      bs->cur[i] = bs->area[i] + (off % e->row_elements) * e->sizes[i];
    } else {
      bcast_gather (e, i, job->inputs[i], bs->area[i], off, m);
      bs->cur[i] = bs->area[i];
    }
  }
}

static inline gpointer
reg_ptr (const PlanExpr * e, const EvalJob * job, Reg r, gsize off,
    guint8 * scratch, const BcastState * bs)
{
  switch (r.kind) {
    case REG_BCAST:
      return bs->cur[r.index];
    case REG_INPUT:
      return (guint8 *) job->inputs[r.index] + off * e->sizes[r.index];
    case REG_OUT:
      return (guint8 *) job->out + off * e->out_size;
    case REG_CONST:
      return e->consts + (gsize) r.index * SLOT_BYTES;
    default:
      return scratch + (gsize) r.index * SLOT_BYTES;
  }
}

/* One scratch area per thread, reused across calls. */
typedef struct
{
  gsize size;
  guint8 *data;
} Scratch;

static void
scratch_free (gpointer p)
{
  Scratch *s = p;
  g_free (s->data);
  g_free (s);
}

static GPrivate scratch_key = G_PRIVATE_INIT (scratch_free);

static guint8 *
get_scratch (gsize size)
{
  Scratch *s = g_private_get (&scratch_key);

  if (s == NULL) {
    s = g_new0 (Scratch, 1);
    g_private_set (&scratch_key, s);
  }
  if (s->size < size) {
    g_free (s->data);
    s->data = g_malloc (size);
    s->size = size;
  }
  return s->data;
}

/* Asks for the inputs of the next block while this one computes: the
 * operations of a block run one after the other, so without this the
 * memory system idles while a long operation (sin, say) runs in cache. */
static inline void
prefetch_inputs (const EvalJob * job, gsize off, gsize end)
{
  const PlanExpr *e = job->expr;
  guint i;

  if (off >= end)
    return;
  for (i = 0; i < e->n_names; i++) {
    gsize size = e->sizes[i];
    const guint8 *p;
    gsize bytes, b;
    if (!e->uses[i] || (e->bcast && e->bcast[i].kind != EXPR_BCAST_DIRECT))
      continue;
    p = (const guint8 *) job->inputs[i] + off * size;
    bytes = MIN (BLOCK, end - off) * size;
    for (b = 0; b < bytes; b += 64)
      __builtin_prefetch (p + b, 0, 3);
  }
}

static void
eval_blocks (const EvalJob * job, gsize begin, gsize end, guint8 * scratch,
    BcastState * bs)
{
  const PlanExpr *e = job->expr;
  gsize off;
  guint i;

  for (off = begin; off < end; off += BLOCK) {
    gsize m = MIN (BLOCK, end - off);
    if (job->prefetch)
      prefetch_inputs (job, off + BLOCK, end);
    if (bs)
      bcast_block (job, bs, off, m);
    for (i = 0; i < e->n_instrs; i++) {
      const Instr *ins = &e->instrs[i];
      ins->kernel (m, reg_ptr (e, job, ins->dst, off, scratch, bs),
          reg_ptr (e, job, ins->src[0], off, scratch, bs),
          ins->n_src > 1 ? reg_ptr (e, job, ins->src[1], off, scratch,
              bs) : NULL,
          ins->n_src > 2 ? reg_ptr (e, job, ins->src[2], off, scratch,
              bs) : NULL);
    }
  }
}

/* As eval_blocks(), but the last operation writes into a spare block in
 * cache, which is then streamed to the output. */
static void
eval_blocks_streaming (const EvalJob * job, gsize begin, gsize end,
    guint8 * scratch, BcastState * bs)
{
  const PlanExpr *e = job->expr;
  const ExprKernelTable *t = _plan_expr_kernels ();
  gsize size = e->out_size;
  guint8 *last = scratch + (gsize) e->n_temps * SLOT_BYTES;
  gsize off;
  guint i;

  for (off = begin; off < end; off += BLOCK) {
    gsize m = MIN (BLOCK, end - off);
    if (job->prefetch)
      prefetch_inputs (job, off + BLOCK, end);
    if (bs)
      bcast_block (job, bs, off, m);
    for (i = 0; i < e->n_instrs; i++) {
      const Instr *ins = &e->instrs[i];
      gpointer dst = i + 1 == e->n_instrs ? last
          : reg_ptr (e, job, ins->dst, off, scratch, bs);
      ins->kernel (m, dst, reg_ptr (e, job, ins->src[0], off, scratch, bs),
          ins->n_src > 1 ? reg_ptr (e, job, ins->src[1], off, scratch,
              bs) : NULL,
          ins->n_src > 2 ? reg_ptr (e, job, ins->src[2], off, scratch,
              bs) : NULL);
    }
    t->stream_copy ((guint8 *) job->out + off * size, last, m * size);
  }
  t->stream_fence ();
}

/* Runs the chain kernel over [begin, end): in one call when its terms
 * fit one and there is no scaling, otherwise block by block with the
 * running sum in a block in cache (the output may be one of the inputs,
 * which a partial sum must not overwrite before the later terms have read
 * it), copied out at the end, with streaming stores for large outputs. */
static void
eval_chain (const EvalJob * job, gsize begin, gsize end, guint8 * scratch)
{
  const PlanExpr *e = job->expr;
  const ExprKernelTable *t = _plan_expr_kernels ();
  gsize size = e->out_size;
  gconstpointer x[EXPR_CHAIN_GROUP];
  gboolean blocks = job->stream || e->chain_n > EXPR_CHAIN_GROUP
      || e->chain_post != EXPR_CHAIN_POST_NONE;
  gsize step = blocks ? BLOCK : end - begin;
  gsize off;
  guint g, j;

  for (off = begin; off < end; off += step) {
    gsize m = MIN (step, end - off);
    guint8 *dst = blocks ? scratch : (guint8 *) job->out + off * size;

    for (g = 0; g < e->chain_n; g += EXPR_CHAIN_GROUP) {
      guint k = MIN (EXPR_CHAIN_GROUP, e->chain_n - g);
      gboolean last = g + k == e->chain_n;

      for (j = 0; j < k; j++)
        x[j] = (const guint8 *) job->inputs[e->chain_inputs[g + j]] +
            off * size;
      e->chain_kernel (m, dst, x, e->chain_coefs + g * size, k, g == 0,
          last ? e->chain_post : EXPR_CHAIN_POST_NONE,
          e->chain_post_coef.bytes);
    }
    if (job->stream)
      t->stream_copy ((guint8 *) job->out + off * size, dst, m * size);
    else if (blocks)
      memcpy ((guint8 *) job->out + off * size, dst, m * size);
  }
  if (job->stream)
    t->stream_fence ();
}

static void
eval_range (gsize begin, gsize end, gpointer user_data)
{
  const EvalJob *job = user_data;
  const PlanExpr *e = job->expr;
  guint n_slots = e->n_temps + (job->stream ? 1 : 0);
  guint8 *scratch;
  guint i;

  if (e->any_bcast) {
    /* The names' areas follow the temporaries in the scratch. */
    BcastState bs;
    gsize bytes = (gsize) n_slots * SLOT_BYTES, *at;

    bs.area = g_newa (guint8 *, e->n_names);
    bs.cur = g_newa (guint8 *, e->n_names);
    bs.periodic = g_newa (gboolean, e->n_names);
    at = g_newa (gsize, e->n_names);
    for (i = 0; i < e->n_names; i++) {
      gsize b = bcast_area_bytes (e, i, end - begin, &bs.periodic[i]);
      at[i] = b ? bytes : G_MAXSIZE;
      bytes += b;
    }
    scratch = get_scratch (bytes);
    for (i = 0; i < e->n_names; i++) {
      bs.area[i] = at[i] == G_MAXSIZE ? NULL : scratch + at[i];
      bs.cur[i] = NULL;
    }
    bcast_begin (job, &bs);
    if (job->stream)
      eval_blocks_streaming (job, begin, end, scratch, &bs);
    else
      eval_blocks (job, begin, end, scratch, &bs);
    return;
  }

  scratch = n_slots ? get_scratch ((gsize) n_slots * SLOT_BYTES) : NULL;
  if (e->chain_kernel != NULL) {
    eval_chain (job, begin, end, get_scratch (SLOT_BYTES));
    return;
  }
  if (job->stream) {
    eval_blocks_streaming (job, begin, end, scratch, NULL);
    return;
  }

  /* One operation straight from the inputs to the output needs neither
   * blocks nor temporaries: run it over the whole range. */
  if (e->n_instrs == 1 && e->n_consts == 0) {
    const Instr *ins = &e->instrs[0];
    gconstpointer s[3] = { NULL, NULL, NULL };
    for (i = 0; i < ins->n_src; i++)
      s[i] = reg_ptr (e, job, ins->src[i], begin, NULL, NULL);
    ins->kernel (end - begin, reg_ptr (e, job, ins->dst, begin, NULL, NULL),
        s[0], s[1], s[2]);
    return;
  }
  eval_blocks (job, begin, end, scratch, NULL);
}

/* Outputs larger than this are written with streaming stores: they would
 * not stay in cache anyway, and skipping the read for ownership saves a
 * third of the traffic of a two-input expression. Smaller ones stay in
 * cache for the next element of the pipeline. */
#define STREAM_MIN_BYTES (16 << 20)

/* Inputs smaller than this are likely in cache already; prefetching them
 * would only cost instructions. */
#define PREFETCH_MIN_BYTES (1 << 20)

static void
eval_job_init (EvalJob * job, const PlanExpr * expr,
    const gconstpointer * inputs, gpointer out, gsize n)
{
  job->expr = expr;
  job->prefetch = n * expr->out_size >= PREFETCH_MIN_BYTES;
  job->inputs = inputs;
  job->out = out;
  job->stream = expr->n_instrs > 1
      && n * plan_dtype_get_size (expr->dtype) >= STREAM_MIN_BYTES
      && g_strcmp0 (g_getenv ("PLAN_EXPR_STREAM"), "0") != 0;
}

/**
 * plan_expr_eval: (skip)
 * @expr: a #PlanExpr
 * @inputs: (array): for each bound name, @n contiguous elements of its dtype
 *   (%NULL for names the expression does not use)
 * @out: room for @n elements of the result dtype; it may be one of the
 *   inputs when that input has the result's element size (in-place)
 * @n: the number of elements
 *
 * Evaluates @expr elementwise on the calling thread, block by block.
 *
 * Since: 0.1
 */
void
plan_expr_eval (const PlanExpr * expr, const gconstpointer * inputs,
    gpointer out, gsize n)
{
  EvalJob job;

  g_return_if_fail (expr != NULL);
  g_return_if_fail (out != NULL || n == 0);
  g_return_if_fail (inputs != NULL || expr->n_names == 0);
  if (n == 0)
    return;
  eval_job_init (&job, expr, inputs, out, n);
  eval_range (0, n, &job);
}

/* The least work (elements x op_cost) worth a thread of its own: about
 * 100 us on the development machine. There, a slice of 256 Ki float32
 * evaluated into a file by planmap was faster on one thread for
 * 2*x*y + sin(x) (cost 7, 0.164 s against 0.195 s per GiB) and on two for
 * sin(x)*cos(y) + exp(x*0.01) + sqrt(abs(y)) (cost 19, 0.271 s against
 * 0.314 s): tests/benchmarks/bench_map.py, docs/planmap.md. */
#define PARALLEL_MIN_WORK ((gsize) 2 << 20)

/**
 * plan_expr_eval_parallel: (skip)
 * @expr: a #PlanExpr
 * @inputs: (array): as for plan_expr_eval()
 * @out: as for plan_expr_eval()
 * @n: the number of elements
 * @n_threads: threads to use, the caller's included; 0 for all cores
 *
 * Like plan_expr_eval(), split over up to @n_threads threads of the shared
 * pool (see plan_parallel_for()), but only as many as get a fair amount of
 * work each: the number of elements times a rough cost of the expression
 * per element (transcendental functions weigh four times an addition)
 * must reach about two million per thread. Less runs on the calling
 * thread.
 *
 * Since: 0.1
 */
void
plan_expr_eval_parallel (const PlanExpr * expr, const gconstpointer * inputs,
    gpointer out, gsize n, guint n_threads)
{
  EvalJob job;

  g_return_if_fail (expr != NULL);
  g_return_if_fail (out != NULL || n == 0);
  g_return_if_fail (inputs != NULL || expr->n_names == 0);
  eval_job_init (&job, expr, inputs, out, n);
  /* Each thread gets at least PARALLEL_MIN_WORK: waking a worker and
   * waiting for it costs more than it saves below that. */
  if (n_threads == 0)
    n_threads = plan_parallel_get_n_cores ();
  n_threads = MIN (n_threads, MAX (1, n * MAX (expr->cost, 1) /
          PARALLEL_MIN_WORK));
  plan_parallel_for (n_threads, n, GRAIN, eval_range, &job);
}

/**
 * plan_expr_to_cuda:
 * @expr: a #PlanExpr
 * @function_name: a C identifier for the generated kernel
 *
 * Translates @expr to CUDA C: a `__host__ __device__` function computing
 * one element (`<function_name>_element`) and an `extern "C" __global__`
 * kernel `<function_name>` with a grid-stride loop that loads with vector
 * instructions when every pointer is aligned enough:
 *
 * |[
 * void function_name (const T0 *in0, ..., OUT *out, unsigned long long n);
 * ]|
 *
 * with one pointer per bound name (unused ones included, so the launch
 * signature depends on the bound names only). The source needs no headers
 * and compiles with NVRTC or nvcc; plan_nvrtc_compile() compiles and caches
 * it. Defining `PLAN_EXPR_HOST_ENTRY` before it also emits an `extern "C"`
 * host loop `<function_name>_host (const void *const *in, void *out,
 * unsigned long long n)`, which tests use to check the generated code on
 * the CPU.
 *
 * Returns: (transfer full): the CUDA source, or %NULL if @function_name is
 *   not a C identifier.
 *
 * Since: 0.1
 */
gchar *
plan_expr_to_cuda (const PlanExpr * expr, const gchar * function_name)
{
  const gchar *p;

  g_return_val_if_fail (expr != NULL, NULL);
  g_return_val_if_fail (function_name != NULL, NULL);

  if (!g_ascii_isalpha (function_name[0]) && function_name[0] != '_')
    return NULL;
  for (p = function_name; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return NULL;
  return _plan_expr_cuda_generate (expr->root, expr->n_names, expr->dtypes,
      expr->bcast, expr->row_elements, function_name);
}

ExprDeviceCache *
_plan_expr_get_device_cache (PlanExpr * expr)
{
  return &expr->device_cache;
}

const ExprBcast *
_plan_expr_get_bcast (const PlanExpr * expr, guint index)
{
  if (expr->bcast == NULL || index >= expr->n_names)
    return NULL;
  return &expr->bcast[index];
}
