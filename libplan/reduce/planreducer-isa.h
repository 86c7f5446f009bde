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
 * planreducer-ops.c and planreducer-complex.c (plan_reducer_isa_sources
 * in meson.build) are compiled once for each instruction set of
 * libplan/meson.build's plan_cpu_isas, with -DPLAN_CPU_ISA=<set>, like the
 * expression loops; a copy for a set beyond the baseline gives its block
 * loops (BLOCK_CLONES) the set as a function attribute
 * (-DPLAN_CPU_ISA_TARGET), the rest of it being compiled for the baseline,
 * so that its merges and finals give the baseline's bits. Each copy's
 * _plan_reducer_select_builtin() is named after its set
 * (_plan_reducer_select_builtin_avx2, ...) and picks that copy's loops;
 * planreducer-isa.c calls the one of the set the CPU loops run in
 * (_plan_cpu_isa ()). What does not depend on the set (the ops' kinds and
 * result dtypes, the finals, custom combiners) is compiled once, in the
 * library's other files.
 *
 * The baseline copy (PLAN_CPU_ISA=default) also provides the files' other
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
#define _plan_reducer_select_complex \
  PLAN_CPU_ISA_NAME (_plan_reducer_select_complex, PLAN_CPU_ISA)
#define _plan_reducer_select_float16 \
  PLAN_CPU_ISA_NAME (_plan_reducer_select_float16, PLAN_CPU_ISA)
#endif

/* The block loops are compiled for the widest vectors the CPU has: each
 * copy gives its loops (BLOCK_CLONES) its set, the rest of it being the
 * baseline's. Every copy does the same IEEE operations on the same lanes in
 * the same order, and none contracts a multiply and an add, so they give
 * bit-identical values (PLAN_CPU_ISA=default runs the baseline's, to
 * compare); only which NaN a sum, product or mean of differing NaNs
 * keeps may differ (docs/planreduce.md). */
#ifdef PLAN_CPU_ISA_TARGET
#define BLOCK_CLONES __attribute__ ((target (PLAN_CPU_ISA_TARGET)))
#else
#define BLOCK_CLONES
#endif

/* Loops gcc vectorises only with its dynamic cost model (the column loops
 * over many rows, the complex sums' lanes), and, where a loop selects
 * between values one of which takes floating-point operations (the
 * compensated column sums' error, kept only while the sum is finite),
 * only when it may compute both (no-trapping-math: no program of ours
 * reads the floating-point exception flags; the values are the same). */
#if defined(__GNUC__) && !defined(__clang__)
#define VECTORIZE __attribute__ ((optimize ("tree-vectorize", \
            "vect-cost-model=dynamic", "no-trapping-math")))
#else
#define VECTORIZE
#endif

#endif /* __PLAN_REDUCER_ISA_H__ */
