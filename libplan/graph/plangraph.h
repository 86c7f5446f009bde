/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_GRAPH_H__
#define __PLAN_GRAPH_H__

#include <libplan/plan-prelude.h>
#include <libplan/plandtype.h>
#include <libplan/planboundary.h>
#include <libplan/planreducer.h>
#include <libplan/plankernelelement.h>
#include <libplan/plannode.h>
#include <libplan/planarray.h>
#include <libplan/planwork.h>

G_BEGIN_DECLS

/**
 * PlanRealizeFlags:
 * @PLAN_REALIZE_NONE: the default: fuse elementwise chains
 * @PLAN_REALIZE_NO_FUSE: keep one element per node, for debugging and
 *   for measuring what fusion saves
 *
 * How plan_graph_realize() builds the pipeline.
 *
 * Since: 0.1
 */
typedef enum /*< flags >*/
{
  PLAN_REALIZE_NONE = 0,
  PLAN_REALIZE_NO_FUSE = (1 << 0),
} PlanRealizeFlags;

#define PLAN_TYPE_REALIZE_FLAGS (plan_realize_flags_get_type ())
PLAN_API
GType plan_realize_flags_get_type (void);

#define PLAN_TYPE_GRAPH (plan_graph_get_type ())

/**
 * PlanGraph:
 *
 * A plan: sources, maps, reductions, stencils and sinks connected by
 * taking earlier nodes as inputs. Build it with the `plan_graph_add_*()`
 * functions, then turn it into a runnable #PlanWork with
 * plan_graph_realize(). A graph is used from one thread at a time.
 *
 * Since: 0.1
 */
PLAN_API
G_DECLARE_FINAL_TYPE (PlanGraph, plan_graph, PLAN, GRAPH, GObject)

PLAN_API
PlanGraph * plan_graph_new (void);

PLAN_API
PlanNode * plan_graph_add_source (PlanGraph * graph, const gchar * name,
    guint ndim, PlanDType dtype, GError ** error);

PLAN_API
PlanNode * plan_graph_add_map (PlanGraph * graph, const gchar * name,
    const gchar * expr, guint n_inputs, PlanNode ** inputs, PlanDType dtype,
    GError ** error);

PLAN_API
PlanNode * plan_graph_add_map_with_constants (PlanGraph * graph,
    const gchar * name, const gchar * expr, guint n_inputs,
    PlanNode ** inputs, PlanDType dtype, guint n_constants,
    const gchar * const * constant_names, PlanArray ** constants,
    GError ** error);

PLAN_API
PlanNode * plan_graph_add_reduce (PlanGraph * graph, const gchar * name,
    PlanReduceOp op, PlanReduceAxis axis, PlanNode * input, GError ** error);

PLAN_API
PlanNode * plan_graph_add_reduce_ddof (PlanGraph * graph, const gchar * name,
    PlanReduceOp op, PlanReduceAxis axis, gdouble ddof, PlanNode * input,
    GError ** error);

PLAN_API
PlanNode * plan_graph_add_reduce_custom (PlanGraph * graph,
    const gchar * name, const gchar * combiner, const gchar * identity,
    PlanReduceAxis axis, PlanNode * input, GError ** error);

PLAN_API
PlanNode * plan_graph_add_stencil (PlanGraph * graph, const gchar * name,
    const gchar * window, const gchar * expr, PlanBoundary boundary,
    gdouble cval, PlanNode * input, GError ** error);

PLAN_API
PlanNode * plan_graph_add_stencil_iterated (PlanGraph * graph,
    const gchar * name, const gchar * window, const gchar * expr,
    PlanBoundary boundary, gdouble cval, guint iterations, PlanNode * input,
    GError ** error);

PLAN_API
PlanNode * plan_graph_add_stencil_inputs (PlanGraph * graph,
    const gchar * name, guint n_inputs, PlanNode ** inputs,
    const gchar * const * windows, const gchar * expr, PlanBoundary boundary,
    gdouble cval, GError ** error);

PLAN_API
PlanNode * plan_graph_add_custom (PlanGraph * graph, const gchar * name,
    guint n_inputs, PlanNode ** inputs, const gchar * properties,
    GError ** error);

PLAN_API
PlanNode * plan_graph_add_sink (PlanGraph * graph, const gchar * name,
    PlanNode * input, GError ** error);

PLAN_API
PlanNode * plan_graph_get_node (PlanGraph * graph, const gchar * name);

PLAN_API
guint plan_graph_get_n_nodes (PlanGraph * graph);

PLAN_API
PlanWork * plan_graph_realize (PlanGraph * graph, PlanTarget target,
    PlanRealizeFlags flags, GError ** error);

G_END_DECLS

#endif /* __PLAN_GRAPH_H__ */
