/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_EXPR_H__
#define __PLAN_EXPR_H__

#include <libplan/plan-prelude.h>
#include <libplan/plandtype.h>
#include <libplan/plandevice.h>
#include <libplan/planarrayinfo.h>

G_BEGIN_DECLS

/**
 * PlanExpr:
 *
 * A compiled expression: immutable, reference counted, safe to evaluate
 * from several threads at once.
 *
 * Since: 0.1
 */
typedef struct _PlanExpr PlanExpr;

#define PLAN_TYPE_EXPR (plan_expr_get_type ())
PLAN_API
GType plan_expr_get_type (void);

PLAN_API
PlanExpr * plan_expr_compile (const gchar * source, guint n_names,
    const gchar * const * names, const PlanDType * dtypes, GError ** error);

PLAN_API
PlanExpr * plan_expr_compile_with_dtype (const gchar * source, guint n_names,
    const gchar * const * names, const PlanDType * dtypes,
    PlanDType out_dtype, GError ** error);

PLAN_API
PlanExpr * plan_expr_compile_broadcast (const gchar * source, guint n_names,
    const gchar * const * names, const PlanArrayInfo * infos,
    guint n_streams, PlanDType out_dtype, PlanArrayInfo * out_info,
    GError ** error);

PLAN_API
gboolean plan_expr_check (const gchar * source, GError ** error);

PLAN_API
PlanExpr * plan_expr_ref (PlanExpr * expr);

PLAN_API
void plan_expr_unref (PlanExpr * expr);

PLAN_API
PlanDType plan_expr_get_dtype (const PlanExpr * expr);

PLAN_API
const gchar * plan_expr_get_source (const PlanExpr * expr);

PLAN_API
guint plan_expr_get_n_names (const PlanExpr * expr);

PLAN_API
gboolean plan_expr_uses_name (const PlanExpr * expr, guint index);

PLAN_API
void plan_expr_eval (const PlanExpr * expr, const gconstpointer * inputs,
    gpointer out, gsize n);

PLAN_API
void plan_expr_eval_parallel (const PlanExpr * expr,
    const gconstpointer * inputs, gpointer out, gsize n, guint n_threads);

PLAN_API
gchar * plan_expr_to_cuda (const PlanExpr * expr,
    const gchar * function_name);

PLAN_API
const gchar * plan_expr_get_cpu_isa (void);

PLAN_API
gboolean plan_expr_launch (PlanExpr * expr, PlanStream * stream,
    gpointer * ptrs, gsize n, guint n_threads, GError ** error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanExpr, plan_expr_unref)

G_END_DECLS

#endif /* __PLAN_EXPR_H__ */
