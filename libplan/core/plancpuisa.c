/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Which copy of the CPU loops runs. The expression loops
 * (kernels/cpu/exprloops.c) and the reducer's (reduce/planreducer-ops.c
 * and planreducer-complex.c) are compiled once per instruction set
 * (libplan/meson.build's plan_cpu_isas); this is the one place that picks
 * the widest set the CPU runs, once, for both. PLAN_CPU_ISA=default|avx2
 * lowers the choice (never raises it), for tests and benchmarks. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plan-private.h"

static PlanCpuIsa
choose (void)
{
  PlanCpuIsa isa = PLAN_CPU_ISA_DEFAULT;
#ifdef PLAN_HAVE_X86_ISAS
  const gchar *force = g_getenv ("PLAN_CPU_ISA");

  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma")
      && __builtin_cpu_supports ("bmi2")
      && g_strcmp0 (force, "default") != 0) {
    isa = PLAN_CPU_ISA_AVX2;
    if (__builtin_cpu_supports ("avx512f")
        && __builtin_cpu_supports ("avx512dq")
        && __builtin_cpu_supports ("avx512bw")
        && __builtin_cpu_supports ("avx512vl")
        && g_strcmp0 (force, "avx2") != 0)
      isa = PLAN_CPU_ISA_AVX512;
  }
#endif
  return isa;
}

PlanCpuIsa
_plan_cpu_isa (void)
{
  static gsize isa = 0;

  if (g_once_init_enter (&isa))
    g_once_init_leave (&isa, (gsize) choose () + 1);
  return (PlanCpuIsa) (isa - 1);
}

const gchar *
_plan_cpu_isa_name (void)
{
  static const gchar *const names[] = { "default", "avx2", "avx512" };

  return names[_plan_cpu_isa ()];
}
