/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanExpr's state, shared by the files that make and run one:
 * planexpr.c (the object: compiling, the calls, the CUDA source),
 * exprprogram.c (the typed tree made into the CPU program, and the fused
 * weighted sums), exprbroadcast.c (the names' shapes broadcast into the
 * output's) and expreval.c (the program run over blocks, on threads).
 * Never installed. */

#ifndef __PLAN_EXPR_STATE_PRIVATE_H__
#define __PLAN_EXPR_STATE_PRIVATE_H__

#include "planexpr.h"
#include <libplan/planerror.h>
#include <libplan/planparallel.h>
#include "expr-private.h"
#include "libplan/core/plan-private.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (plan_expr_debug);

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
  REG_BCAST,                    /* a broadcast name: see expreval.c */
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
  guint cost;                   /* work per element: see exprprogram.c */
  guint n_temps;
  guint8 *consts;               /* n_consts slots, each a block of one value */
  guint n_consts;

  /* A weighted sum (c0 x0 + c1 x1 + ..., optionally scaled) runs as one
   * fused kernel instead of the program; chain_kernel is NULL for the
   * other expressions. See _plan_expr_build_chain(). */
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

/* exprprogram.c: the CPU program of expr->root (instrs, temporaries,
 * constants, cost). */
G_GNUC_INTERNAL
void _plan_expr_build_program (PlanExpr * expr);

/* exprprogram.c: the fused kernel of a weighted sum, when expr is one. */
G_GNUC_INTERNAL
void _plan_expr_build_chain (PlanExpr * expr);

/* exprbroadcast.c: the layout of each name against the output, and the
 * output's shape (see there). */
G_GNUC_INTERNAL
gboolean _plan_expr_broadcast (PlanExpr * expr, const PlanArrayInfo * infos,
    guint n_streams, PlanArrayInfo * out_info, GError ** error);

G_END_DECLS

#endif /* __PLAN_EXPR_STATE_PRIVATE_H__ */
