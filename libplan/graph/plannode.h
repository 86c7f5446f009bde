/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_NODE_H__
#define __PLAN_NODE_H__

#include <libplan/plan-prelude.h>
#include <libplan/plandtype.h>

G_BEGIN_DECLS

/**
 * PlanNodeKind:
 * @PLAN_NODE_SOURCE: an input, bound at dispatch
 * @PLAN_NODE_MAP: an elementwise expression of its inputs (planmap)
 * @PLAN_NODE_REDUCE: a reduction of its input (planreduce)
 * @PLAN_NODE_STENCIL: a windowed expression of its input (planstencil)
 * @PLAN_NODE_SINK: an output of its input, bound at dispatch
 * @PLAN_NODE_CUSTOM: a custom kernel (plancustom), plan_graph_add_custom().
 *
 * What a #PlanNode computes.
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_NODE_SOURCE,
  PLAN_NODE_MAP,
  PLAN_NODE_REDUCE,
  PLAN_NODE_STENCIL,
  PLAN_NODE_SINK,
  PLAN_NODE_CUSTOM,
} PlanNodeKind;

#define PLAN_TYPE_NODE_KIND (plan_node_kind_get_type ())
PLAN_API
GType plan_node_kind_get_type (void);

#define PLAN_TYPE_NODE (plan_node_get_type ())

/**
 * PlanNode:
 *
 * One step of a #PlanGraph: a source, a map, a reduction, a stencil or a
 * sink. Nodes are made by the graph's `plan_graph_add_*()` functions,
 * belong to it, and never change once made.
 *
 * Since: 0.1
 */
PLAN_API
G_DECLARE_FINAL_TYPE (PlanNode, plan_node, PLAN, NODE, GObject)

PLAN_API
const gchar * plan_node_get_name (PlanNode * node);

PLAN_API
PlanNodeKind plan_node_get_kind (PlanNode * node);

PLAN_API
guint plan_node_get_n_inputs (PlanNode * node);

PLAN_API
PlanNode * plan_node_get_input (PlanNode * node, guint index);

PLAN_API
guint plan_node_get_ndim (PlanNode * node);

G_END_DECLS

#endif /* __PLAN_NODE_H__ */
