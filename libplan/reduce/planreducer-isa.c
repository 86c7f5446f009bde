/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanReducer: the loops of the instruction set the CPU loops run in
 * (planreducer-isa.h). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planreducer-private.h"

void PLAN_CPU_ISA_NAME (_plan_reducer_select_builtin, default) (PlanReducer *
    r);
#ifdef PLAN_HAVE_X86_ISAS
void PLAN_CPU_ISA_NAME (_plan_reducer_select_builtin, avx2) (PlanReducer * r);
void PLAN_CPU_ISA_NAME (_plan_reducer_select_builtin, avx512) (PlanReducer *
    r);
#endif

void
_plan_reducer_select_builtin (PlanReducer * r)
{
  switch (_plan_cpu_isa ()) {
#ifdef PLAN_HAVE_X86_ISAS
    case PLAN_CPU_ISA_AVX512:
      PLAN_CPU_ISA_NAME (_plan_reducer_select_builtin, avx512) (r);
      return;
    case PLAN_CPU_ISA_AVX2:
      PLAN_CPU_ISA_NAME (_plan_reducer_select_builtin, avx2) (r);
      return;
#endif
    default:
      PLAN_CPU_ISA_NAME (_plan_reducer_select_builtin, default) (r);
      return;
  }
}
