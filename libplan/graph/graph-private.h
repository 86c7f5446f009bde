/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the plan API's files share; never installed. */

#ifndef __PLAN_GRAPH_PRIVATE_H__
#define __PLAN_GRAPH_PRIVATE_H__

#include "libplan/core/plan-private.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (plan_graph_debug);

/* Nodes and graphs never change once made, so they need no lock. */
struct _PlanNode
{
  GObject parent;

  guint graph_id;               /* which graph made it */
  guint index;                  /* its position there: inputs come first */
  PlanNodeKind kind;
  gchar *name;
  GPtrArray *inputs;            /* PlanNode, in argument order */
  guint ndim;                   /* of the node's output */
  PlanDType dtype;              /* source: required, map: cast; or UNKNOWN */
  gchar *expr;                  /* map, stencil; a reduction's combiner */
  gchar *identity;              /* a custom reduction's */
  gchar *window;                /* stencil: the (first) input's window */
  gchar **windows;              /* a stencil of several inputs: each
                                 * input's window, in argument order */
  guint iterations;             /* stencil */
  PlanReduceOp op;
  PlanReduceAxis axis;
  PlanBoundary boundary;
  gdouble cval;
  gchar **prop_names;           /* custom: plancustom's properties, */
  GValue *prop_values;          /* validated, in the order given */
  guint n_props;
  gchar **const_names;          /* map: array constants, bound after */
  GPtrArray *const_arrays;      /* the inputs' names (PlanArray) */
  gdouble ddof;                 /* reduce: var, std, nanvar, nanstd */
};

/* A custom node's setting, or NULL. */
G_GNUC_INTERNAL
const GValue * _plan_node_get_prop (PlanNode * node, const gchar * name);

/* What a custom node gives for these inputs. */
G_GNUC_INTERNAL
gboolean _plan_custom_node_output (PlanNode * node,
    const PlanArrayInfo * inputs, PlanArrayInfo * output, GError ** error);

typedef enum
{
  PLAN_BINDING_ARRAY,
  PLAN_BINDING_FILE,
  PLAN_BINDING_RAW_FILE,
  PLAN_BINDING_READER,
  PLAN_BINDING_WRITER,
} PlanBindingKind;

/* One name's binding: immutable once made, shared by reference between
 * the bindings object and the elements that use it. */
typedef struct
{
  gint refcount;
  PlanBindingKind kind;
  PlanArray *array;
  gchar *location;
  gboolean in_container;        /* file: an array of a .npz, HDF5 or Zarr
                                 * file, by dataset (NULL: its only one) */
  gchar *dataset;
  PlanArrayInfo info;           /* raw file, reader */
  guint ndim_given;             /* raw file, reader: the ndim the
                                 * application gave, refused at dispatch
                                 * when past PLAN_ARRAY_MAX_DIMS (info then
                                 * holds none) */
  PlanChunkReadFunc read;
  PlanChunkWriteFunc write;
  gpointer user_data;
  GDestroyNotify notify;
} PlanBinding;

G_GNUC_INTERNAL
PlanBinding * _plan_binding_ref (PlanBinding * binding);

G_GNUC_INTERNAL
void _plan_binding_unref (PlanBinding * binding);

G_GNUC_INTERNAL
PlanBinding * _plan_bindings_lookup (PlanBindings * bindings,
    const gchar * name);

G_GNUC_INTERNAL
PlanBindings * _plan_bindings_copy (PlanBindings * bindings);

/* planarraysrc.c, for both array elements. */
G_GNUC_INTERNAL
gboolean _plan_element_is_settable_unlocked (GstElement * element,
    const gchar * func);

/* The plan API's restart of a running pipeline between dispatches. */
G_GNUC_INTERNAL
void _plan_array_src_rebind (PlanArraySrc * src, PlanArray * array);
G_GNUC_INTERNAL
gboolean _plan_array_src_is_on_device (PlanArraySrc * src);
G_GNUC_INTERNAL
void _plan_array_sink_rebind (PlanArraySink * sink, PlanArray * array);
G_GNUC_INTERNAL
void _plan_array_sink_set_label (PlanArraySink * sink, const gchar * label);

/* The graph, as realize reads it. */
G_GNUC_INTERNAL
GPtrArray * _plan_graph_get_nodes (PlanGraph * graph);

G_GNUC_INTERNAL
gchar ** _plan_map_input_names (guint n_inputs, guint * n_names);

G_GNUC_INTERNAL
const gchar * _plan_node_kind_nick (PlanNodeKind kind);

/* planbindings.c: the keys of a table of names, sorted, NULL-terminated. */
G_GNUC_INTERNAL
gchar ** _plan_sorted_names (GHashTable * table);

/* planwork.c: realize. */
G_GNUC_INTERNAL
PlanWork * _plan_work_new (PlanGraph * graph, PlanTarget target,
    PlanRealizeFlags flags, GError ** error);

/* planfuture.c: what the work's runner thread tells its future. */
G_GNUC_INTERNAL
PlanFuture * _plan_future_new (GObject * work, guint serial,
    gint64 rows_total);

/* The error of a cancelled dispatch, saying which and how far it got:
 * @when is "before it started" for one cancelled while it waited its
 * turn, NULL for a run cancelled while it ran. */
G_GNUC_INTERNAL
GError * _plan_future_cancelled_error (PlanFuture * future,
    const gchar * when);

G_GNUC_INTERNAL
GObject * _plan_future_get_work (PlanFuture * future);

G_GNUC_INTERNAL
guint _plan_future_get_serial (PlanFuture * future);

G_GNUC_INTERNAL
void _plan_future_add_rows (PlanFuture * future, guint64 rows);

G_GNUC_INTERNAL
void _plan_future_set_result (PlanFuture * future, const gchar * name,
    PlanArray * array);

G_GNUC_INTERNAL
gboolean _plan_future_set_task (PlanFuture * future, GTask * task);

G_GNUC_INTERNAL
void _plan_future_set_cancellable (PlanFuture * future,
    GCancellable * cancellable);

G_GNUC_INTERNAL
void _plan_future_complete (PlanFuture * future, GError * error);

/* planwork.c: what a future asks of its work. */
G_GNUC_INTERNAL
void _plan_work_cancel (PlanWork * work, PlanFuture * future);

/* "the work with inputs a, b and outputs f, g", for messages. */
G_GNUC_INTERNAL
gchar * _plan_work_describe (PlanWork * work);

G_END_DECLS

#endif /* __PLAN_GRAPH_PRIVATE_H__ */
