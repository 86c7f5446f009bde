/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Picks the kernel table built for the best instruction set this CPU runs
 * (kernels/cpu/exprloops.c is compiled once per set) and the kernel of a
 * typed node. PLAN_EXPR_ISA=default|avx2|avx512 forces a table, for tests
 * and benchmarks. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "expr-private.h"

#include <string.h>

const ExprKernelTable *_plan_expr_kernels_default (void);
#ifdef PLAN_EXPR_HAVE_X86_ISAS
const ExprKernelTable *_plan_expr_kernels_avx2 (void);
const ExprKernelTable *_plan_expr_kernels_avx512 (void);
#endif

static const ExprKernelTable *table;
static const gchar *table_isa;

static void
choose (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    const gchar *force = g_getenv ("PLAN_EXPR_ISA");
    table = _plan_expr_kernels_default ();
    table_isa = "default";
#ifdef PLAN_EXPR_HAVE_X86_ISAS
    __builtin_cpu_init ();
    if (__builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma")
        && __builtin_cpu_supports ("bmi2")
        && (force == NULL || strcmp (force, "default") != 0)) {
      table = _plan_expr_kernels_avx2 ();
      table_isa = "avx2";
    }
    if (__builtin_cpu_supports ("avx512f")
        && __builtin_cpu_supports ("avx512dq")
        && __builtin_cpu_supports ("avx512bw")
        && __builtin_cpu_supports ("avx512vl")
        && __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma")
        && __builtin_cpu_supports ("bmi2")
        && (force == NULL || strcmp (force, "avx512") == 0)) {
      table = _plan_expr_kernels_avx512 ();
      table_isa = "avx512";
    }
#endif
    (void) force;
    g_once_init_leave (&done, 1);
  }
}

const ExprKernelTable *
_plan_expr_kernels (void)
{
  choose ();
  return table;
}

const gchar *
_plan_expr_kernels_isa (void)
{
  choose ();
  return table_isa;
}

ExprKernel
_plan_expr_node_kernel (const ExprNode * node)
{
  const ExprKernelTable *t = _plan_expr_kernels ();
  PlanDType d = _plan_expr_node_arg_dtype (node);

  g_assert (node->kind == EXPR_NODE_OP);
  if (node->op == EXPR_OP_CAST)
    return t->cast[d][node->dtype];
  if (node->op == EXPR_OP_WHERE)
    return t->where[d];
  if (node->numpy_f16 && t->numpy_f16[node->op] != NULL)
    return t->numpy_f16[node->op];
  if (node->op >= EXPR_OP_FIRST_BINARY && node->op <= EXPR_OP_LAST_BINARY)
    return t->binary[node->op][d];
  return t->unary[node->op][d];
}
