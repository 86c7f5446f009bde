/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The kernel table of the instruction set the CPU loops run in
 * (kernels/cpu/exprloops.c is compiled once per set; core/plancpuisa.c
 * picks one, for the reducer's loops too) and the kernel of a typed node. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "expr-private.h"
#include "libplan/core/plan-private.h"

const ExprKernelTable *_plan_expr_kernels_default (void);
#ifdef PLAN_HAVE_X86_ISAS
const ExprKernelTable *_plan_expr_kernels_avx2 (void);
const ExprKernelTable *_plan_expr_kernels_avx512 (void);
#endif

const ExprKernelTable *
_plan_expr_kernels (void)
{
  switch (_plan_cpu_isa ()) {
#ifdef PLAN_HAVE_X86_ISAS
    case PLAN_CPU_ISA_AVX512:
      return _plan_expr_kernels_avx512 ();
    case PLAN_CPU_ISA_AVX2:
      return _plan_expr_kernels_avx2 ();
#endif
    default:
      return _plan_expr_kernels_default ();
  }
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
