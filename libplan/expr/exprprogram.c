/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanExpr: the typed tree made into the CPU program, a list of typed
 * kernels over registers (temporaries, inputs, constants, the output);
 * and a weighted sum of names recognised and run as one fused kernel
 * instead. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planexpr-private.h"

#include <string.h>

#define GST_CAT_DEFAULT plan_expr_debug

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

void
_plan_expr_build_program (PlanExpr * expr)
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
void
_plan_expr_build_chain (PlanExpr * expr)
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
