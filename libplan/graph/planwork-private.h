/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanWork's state, shared by its files: planwork.c (the object, the
 * source and sink elements of a dispatch, running the pipeline, the
 * dispatch calls, introspection), planwork-realize.c (a graph made into
 * stages, fused, and into a pipeline), planwork-check.c (a dispatch's
 * bindings checked: names, dtypes, shapes, overlaps) and
 * planwork-direct.c (small dispatches computed on the caller's
 * thread). */

#ifndef __PLAN_WORK_PRIVATE_H__
#define __PLAN_WORK_PRIVATE_H__

#include "graph-private.h"

G_BEGIN_DECLS

/* One element of the pipeline that computes, or an input. */
typedef struct _Stage Stage;
struct _Stage
{
  PlanNodeKind kind;            /* SOURCE, MAP, REDUCE or STENCIL */
  PlanNode *node;               /* whose output the stage produces */
  gchar *expr;                  /* map: fused expression; reduce: combiner */
  gchar *pre_map;               /* reduce: a map fused into it, in x */
  PlanDType pre_map_dtype;
  GPtrArray *inputs;            /* Stage, in argument order (borrowed) */
  gboolean fused;               /* merged into its consumer: no element */
  GstElement *element;          /* in the pipeline */
  GstElement *tee;              /* when the output has several branches */
  guint n_branches;
  /* a map run on the caller's thread (dispatch_lock): the expression as
   * planmap compiles it, for inputs of direct_key's dtypes and shapes */
  PlanExpr *direct_expr;         /* a map's; a reduction's fused map */
  PlanReducer *direct_reducer;
  PlanStencilKernel *direct_stencil;
  PlanArrayInfo *direct_key;
  PlanArrayInfo direct_out;
};

/* An output: a sink node, or a node no other node takes. */
typedef struct
{
  gchar *name;
  Stage *producer;
  PlanNode *node;
  GstElement *element;          /* planarraysink or planfilesink */
  /* set by a dispatch (no run going), read by its run: the caller's array
   * of a wider dtype that the result is cast into at the end */
  PlanArray *cast_to;
} Output;

struct _PlanWork
{
  GObject parent;

  /* construct-only, no lock */
  PlanTarget target;
  PlanDevice *device;           /* target cuda: held for the work's life, so
                                 * that its context is not made again for
                                 * each run that starts the elements */
  GstPipeline *pipeline;
  GPtrArray *nodes;             /* PlanNode: the graph as realized */
  GPtrArray *stages;            /* Stage, inputs first */
  GPtrArray *outputs;           /* Output */
  GString *links;               /* the links, in gst-launch syntax */

  GMutex dispatch_lock;         /* held through plan_work_dispatch() */
  guint n_dispatches;           /* dispatch_lock: futures made, to number
                                 * them in messages */
  /* dispatch_lock: every node's output for the sources of the last
   * bindings that checked out, so that a dispatch on sources of the same
   * dtypes and shapes does not compile the expressions again */
  PlanArrayInfo *known_infos;
  GMutex lock;
  /* protected by lock */
  PlanFuture *running;          /* the dispatch that is running */
  GQueue pending;               /* Pending: dispatches waiting their turn */
  guint max_queued;
  /* Set by the runner when a run ended in PLAYING, read by the next
   * dispatch (never while one runs). */
  gboolean warm;

  /* construct-only: whether small dispatches in memory may run on the
   * caller's thread (a CPU plan of maps only), and up to how many
   * elements per map */
  gboolean direct;
  gsize direct_max;

  /* set by plan_work_dispatch() for its run, read by the runner */
  gboolean memory_only;         /* bound to arrays only: may stay PLAYING */
  gboolean restart;             /* this run restarts a warm pipeline */
};

/* A dispatch waiting for the run before it to end: checked already, bound
 * and started by the runner, in order. */
typedef struct
{
  PlanFuture *future;
  PlanBindings *bindings;
} Pending;

/* planwork.c */
G_GNUC_INTERNAL
void _plan_work_pending_free (Pending * pending);

G_GNUC_INTERNAL
gboolean _plan_work_bind_output (PlanWork * self, Output * output,
    PlanBinding * binding, const PlanArrayInfo * info, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_work_outputs_in_memory (PlanWork * self,
    PlanBindings * bindings);

G_GNUC_INTERNAL
gint64 _plan_work_prepare (PlanWork * self, PlanBindings * bindings,
    GError ** error);

/* planwork-realize.c */
G_GNUC_INTERNAL
GstElement * _plan_work_make_array_element (GType type, const gchar * factory,
    const gchar * name);

G_GNUC_INTERNAL
const gchar * _plan_work_factory_name (GstElement * element);

G_GNUC_INTERNAL
Stage * _plan_work_stage_of (PlanWork * self, PlanNode * node);

G_GNUC_INTERNAL
GstElement * _plan_work_make_element (const gchar * factory,
    const gchar * name, GError ** error);

G_GNUC_INTERNAL
GstElement * _plan_work_make_map (PlanWork * self, Stage * stage,
    GError ** error);

G_GNUC_INTERNAL
GstElement * _plan_work_make_reduce (PlanWork * self, Stage * stage,
    GError ** error);

G_GNUC_INTERNAL
GstElement * _plan_work_make_stencil (PlanWork * self, Stage * stage,
    GError ** error);

/* planwork-check.c */
G_GNUC_INTERNAL
PlanExpr * _plan_work_compile_map (PlanNode * node, const gchar * text,
    guint n, const PlanArrayInfo * ins, gboolean one_row, PlanArrayInfo * out,
    GError ** error);

G_GNUC_INTERNAL
PlanStencilKernel * _plan_work_stencil_inputs_kernel (PlanNode * node,
    const PlanArrayInfo * in, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_work_check_binding_names (PlanWork * self,
    PlanBindings * bindings, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_work_source_info (PlanNode * node, PlanBinding * binding,
    PlanArrayInfo * info, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_work_infer_known_infos (PlanWork * self, PlanArrayInfo * infos,
    GError ** error);

G_GNUC_INTERNAL
gboolean _plan_work_check_output (Output * output, PlanBinding * binding,
    const PlanArrayInfo * info, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_work_check_overlaps (PlanWork * self, PlanBindings * bindings,
    GError ** error);

/* planwork-run.c */
G_GNUC_INTERNAL
void _plan_work_count_source_rows (PlanWork * self, GstElement * element);

G_GNUC_INTERNAL
void _plan_work_decide_direct (PlanWork * self);

G_GNUC_INTERNAL
gboolean _plan_work_restart (PlanWork * self);

G_GNUC_INTERNAL
void _plan_work_start_runner (PlanWork * self, PlanFuture * future);

G_GNUC_INTERNAL
gboolean _plan_work_runs_direct (PlanWork * self, PlanBindings * bindings,
    const PlanArrayInfo * infos);

G_GNUC_INTERNAL
gboolean _plan_work_run_direct (PlanWork * self, PlanBindings * bindings,
    PlanFuture * future);


G_END_DECLS

#endif /* __PLAN_WORK_PRIVATE_H__ */
