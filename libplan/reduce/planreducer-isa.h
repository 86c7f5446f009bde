/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The reducer's loops, once per instruction set.
 *
 * planreducer-ops.c is compiled once for each instruction set of
 * libplan/meson.build's plan_cpu_isas, with -DPLAN_CPU_ISA=<set>, like the
 * expression loops; a copy for a set beyond the baseline gives its block
 * loops the set as a function attribute (-DPLAN_CPU_ISA_TARGET), the rest
 * of it being compiled for the baseline, so that its merges and finals
 * give the baseline's bits. Each copy's _plan_reducer_select_builtin() is named
 * after its set (_plan_reducer_select_builtin_avx2, ...) and picks that
 * copy's loops; planreducer-isa.c calls the one of the set the CPU loops
 * run in (_plan_cpu_isa ()).
 *
 * The baseline copy (PLAN_CPU_ISA=default) also provides the file's other
 * functions under their own names. The other copies (PLAN_CPU_ISA_COPY)
 * compile them too, and this header gives them names of their own, so
 * that the copies link together: list here every function with external
 * linkage that a file compiled once per set defines (the linker names the
 * one left out as defined twice). */

#ifndef __PLAN_REDUCER_ISA_H__
#define __PLAN_REDUCER_ISA_H__

#include "planreducer.h"

#define PLAN_CPU_ISA_NAME_(name, isa) name ## _ ## isa
#define PLAN_CPU_ISA_NAME(name, isa) PLAN_CPU_ISA_NAME_ (name, isa)

#ifdef PLAN_CPU_ISA
#define _plan_reducer_select_builtin \
  PLAN_CPU_ISA_NAME (_plan_reducer_select_builtin, PLAN_CPU_ISA)
#endif

#ifdef PLAN_CPU_ISA_COPY
#define _plan_reducer_columns_push_arrays \
  PLAN_CPU_ISA_NAME (_plan_reducer_columns_push_arrays, PLAN_CPU_ISA)
#define _plan_reducer_dtype_kind \
  PLAN_CPU_ISA_NAME (_plan_reducer_dtype_kind, PLAN_CPU_ISA)
#define _plan_reducer_needs_compensation \
  PLAN_CPU_ISA_NAME (_plan_reducer_needs_compensation, PLAN_CPU_ISA)
#define _plan_reducer_plain_op \
  PLAN_CPU_ISA_NAME (_plan_reducer_plain_op, PLAN_CPU_ISA)
#define _plan_reducer_prepare_steps \
  PLAN_CPU_ISA_NAME (_plan_reducer_prepare_steps, PLAN_CPU_ISA)
#define _plan_reducer_block_custom \
  PLAN_CPU_ISA_NAME (_plan_reducer_block_custom, PLAN_CPU_ISA)
#define _plan_reducer_merge_custom \
  PLAN_CPU_ISA_NAME (_plan_reducer_merge_custom, PLAN_CPU_ISA)
#define _plan_reducer_column_custom \
  PLAN_CPU_ISA_NAME (_plan_reducer_column_custom, PLAN_CPU_ISA)
#define _plan_reducer_parse_identity \
  PLAN_CPU_ISA_NAME (_plan_reducer_parse_identity, PLAN_CPU_ISA)
#define _plan_reducer_compile_custom \
  PLAN_CPU_ISA_NAME (_plan_reducer_compile_custom, PLAN_CPU_ISA)
/* The public functions, declared again under their copy's name without
 * PLAN_API, so that the copy does not export them. */
#define plan_reduce_op_get_result_dtype \
  PLAN_CPU_ISA_NAME (plan_reduce_op_get_result_dtype, PLAN_CPU_ISA)
#define plan_reduce_op_has_identity \
  PLAN_CPU_ISA_NAME (plan_reduce_op_has_identity, PLAN_CPU_ISA)
PlanDType plan_reduce_op_get_result_dtype (PlanReduceOp op, PlanDType input);
gboolean plan_reduce_op_has_identity (PlanReduceOp op);
#endif

#endif /* __PLAN_REDUCER_ISA_H__ */
