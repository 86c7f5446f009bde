/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Running a dispatch that was checked and bound: on the pipeline, by a
 * runner thread of libplan's that sets its states and waits on its bus
 * (the caller's thread never blocks), one run after another in order; or,
 * for a small dispatch, on the caller's thread: a plan of maps,
 * reductions and stencils on the CPU, bound to arrays in memory, whose
 * nodes are small enough that running the pipeline would cost more than
 * the loops (see DIRECT_MAX_ELEMENTS), computed node after node with the
 * elements' kernels (PlanExpr, PlanReducer, PlanStencilKernel). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planwork-private.h"
#include "libplan/expr/expr-private.h"

#include <string.h>

#define GST_CAT_DEFAULT plan_graph_debug

/* ---------------------------------------------------------------------
 * Dispatch: running
 * --------------------------------------------------------------------- */

static GstPadProbeReturn
count_rows (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  PlanWork *self = user_data;
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);
  guint64 rows = 0;

  if (GST_BUFFER_OFFSET_IS_VALID (buffer)
      && GST_BUFFER_OFFSET_END_IS_VALID (buffer))
    rows = GST_BUFFER_OFFSET_END (buffer) - GST_BUFFER_OFFSET (buffer);
  g_mutex_lock (&self->lock);
  if (self->running)
    _plan_future_add_rows (self->running, rows);
  g_mutex_unlock (&self->lock);
  return GST_PAD_PROBE_OK;
}

/* Progress counts the rows the sources push. */
void
_plan_work_count_source_rows (PlanWork * self, GstElement * element)
{
  GstPad *pad = gst_element_get_static_pad (element, "src");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_rows, self, NULL);
  gst_object_unref (pad);
}

/* The error of an element, as the user reads it: prefixed with the node
 * the element computes. */
static GError *
element_error (PlanWork * self, GstMessage * message)
{
  GError *err = NULL, *out;
  gchar *debug = NULL, *name = g_strdup (GST_MESSAGE_SRC_NAME (message));
  gchar *dash = strchr (name, '-');
  GstObject *src = GST_MESSAGE_SRC (message);
  const gchar *factory = GST_IS_ELEMENT (src) ?
      _plan_work_factory_name (GST_ELEMENT (src)) : "object";

  gst_message_parse_error (message, &err, &debug);
  GST_DEBUG_OBJECT (self->pipeline, "error from %s: %s (%s)", name,
      err->message, GST_STR_NULL (debug));
  if (dash)
    *dash = '\0';
  out = g_error_new (err->domain, err->code, "%s '%s' (%s %s): %s",
      "node", name, factory, GST_MESSAGE_SRC_NAME (message), err->message);
  g_error_free (err);
  g_free (debug);
  g_free (name);
  return out;
}

/* Writes @from's values into @to, of the same number of elements and a
 * wider dtype, converted as a map's cast converts them. */
static void
cast_into (PlanArray * from, PlanArray * to)
{
  static const gchar *const names[] = { "x" };
  PlanDType dtype = plan_array_get_dtype (from);
  PlanExpr *expr = plan_expr_compile_with_dtype ("x", 1, names, &dtype,
      plan_array_get_dtype (to), NULL);
  gconstpointer in[1] = { plan_array_get_data (from, NULL) };

  g_return_if_fail (expr != NULL);
  plan_expr_eval (expr, in, plan_array_get_writable_data (to, NULL),
      plan_array_get_size (from) / plan_dtype_get_size (dtype));
  plan_expr_unref (expr);
}

static void
collect_results (PlanWork * self, PlanFuture * future)
{
  guint i;

  for (i = 0; i < self->outputs->len; i++) {
    Output *output = g_ptr_array_index (self->outputs, i);
    PlanArray *array;

    if (!PLAN_IS_ARRAY_SINK (output->element))
      continue;
    array = plan_array_sink_get_array (PLAN_ARRAY_SINK (output->element));
    if (array != NULL && output->cast_to != NULL) {
      cast_into (array, output->cast_to);
      _plan_future_set_result (future, output->name, output->cast_to);
    } else if (array != NULL)
      _plan_future_set_result (future, output->name, array);
    g_clear_object (&array);
  }
}

/* The message that ends a run: EOS, an error, or our cancel (other
 * application messages belong to the application's own elements). */
static GstMessage *
wait_for_end (GstBus * bus)
{
  GstMessage *message;

  for (;;) {
    message = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_APPLICATION);
    if (GST_MESSAGE_TYPE (message) != GST_MESSAGE_APPLICATION
        || gst_message_has_name (message, "plan-cancel"))
      return message;
    gst_message_unref (message);
  }
}

/* Starts the next run of a pipeline left in PLAYING at the end of the last
 * one: a flushing seek to row 0 on every source, all with one seqnum so
 * that an element with several inputs forwards one flush, once every
 * input has seen it. The sources take up their new arrays at the seek, the
 * sinks theirs at the flush; the streaming threads stay as they are.
 *
 * Every source is flushing before the first one seeks: an element with
 * several inputs must stop its own thread (which its first FLUSH_START
 * from all inputs does) before rows of the new run reach one input, or it
 * would take them for a run whose other inputs had already ended. This
 * is what GstAggregator does itself for a seek sent through it. */
gboolean
_plan_work_restart (PlanWork * self)
{
  guint32 seqnum = gst_util_seqnum_next ();
  guint i;

  GST_DEBUG_OBJECT (self->pipeline, "restarting in PLAYING, seqnum %u",
      seqnum);
  for (i = 0; i < self->stages->len; i++) {
    Stage *stage = g_ptr_array_index (self->stages, i);
    GstEvent *flush;

    if (stage->kind != PLAN_NODE_SOURCE)
      continue;
    flush = gst_event_new_flush_start ();
    gst_event_set_seqnum (flush, seqnum);
    gst_element_send_event (stage->element, flush);
  }
  for (i = 0; i < self->stages->len; i++) {
    Stage *stage = g_ptr_array_index (self->stages, i);
    GstEvent *seek;

    if (stage->kind != PLAN_NODE_SOURCE)
      continue;
    seek = gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
        GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE, -1);
    gst_event_set_seqnum (seek, seqnum);
    if (!gst_element_send_event (stage->element, seek))
      return FALSE;
  }
  return TRUE;
}

/* The next dispatch of the queue, bound and ready to run (the work's
 * running one), or NULL when none is waiting (the work then has none
 * running). Dispatches whose bindings no longer fit (a file changed
 * meanwhile) end here with their error. Called by the runner with
 * dispatch_lock held, once the run before has completed its future: until
 * then that future stays the running one, so that a dispatch made
 * meanwhile waits its turn instead of starting (or, computed on the
 * caller's thread, completing) before it.
 *
 * The bus is flushed and the running dispatch changed under the lock that
 * plan_future_cancel() posts its message under: a cancel of the run
 * before is dropped, and one of the next dispatch, made as soon as it
 * becomes the running one, is kept. */
static PlanFuture *
next_pending (PlanWork * self, gboolean warm)
{
  GstBus *bus = gst_pipeline_get_bus (self->pipeline);
  PlanFuture *future = NULL;

  for (;;) {
    Pending *pending;
    GError *error = NULL;

    g_mutex_lock (&self->lock);
    gst_bus_set_flushing (bus, TRUE);
    gst_bus_set_flushing (bus, FALSE);
    g_clear_object (&self->running);
    self->warm = warm;
    pending = g_queue_pop_head (&self->pending);
    if (pending != NULL)
      self->running = g_object_ref (pending->future);
    g_mutex_unlock (&self->lock);
    if (pending == NULL)
      break;

    future = g_object_ref (pending->future);
    if (_plan_work_prepare (self, pending->bindings, &error) >= -1) {
      _plan_work_pending_free (pending);
      break;
    }
    /* It ran nothing: the pipeline is as the run before left it, or
     * stopped (_plan_work_prepare() then set warm to FALSE). */
    warm = self->warm;
    _plan_future_complete (future, error);
    g_clear_object (&future);
    _plan_work_pending_free (pending);
  }
  gst_object_unref (bus);
  return future;
}

/* Runs dispatches on a thread of GStreamer's pool (see
 * _plan_work_start_runner()), one after another while any wait: PLAYING
 * (or a restart in PLAYING) until EOS, an error or a cancel. A run in
 * memory that ended well stays in PLAYING for the next dispatch to
 * restart; any other goes back to READY. Each future completes before the
 * next dispatch is taken from the queue, and stays the running one until
 * then, so that futures complete in the order of their dispatches and no
 * run starts before the future of the one before has completed. */
static void
run_dispatch (GstElement * pipeline, gpointer data)
{
  PlanFuture *future = data;
  PlanWork *self = PLAN_WORK (_plan_future_get_work (future));
  GstBus *bus = gst_pipeline_get_bus (self->pipeline);

  while (future != NULL) {
    GstMessage *message = NULL;
    GError *error = NULL;
    gboolean warm = FALSE;
    PlanFuture *next;

    if (self->restart) {
      if (_plan_work_restart (self))
        message = wait_for_end (bus);
      else
        message = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    } else if (gst_element_set_state (GST_ELEMENT (self->pipeline),
            GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
      message = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    else
      message = wait_for_end (bus);

    if (message == NULL)
      error = g_error_new (PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "the pipeline "
          "could not start, and no element said why");
    else if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR)
      error = element_error (self, message);
    else if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_APPLICATION)
      error = _plan_future_cancelled_error (future, NULL);
    g_clear_pointer (&message, gst_message_unref);

    if (error == NULL && self->memory_only)
      warm = TRUE;
    else
      gst_element_set_state (GST_ELEMENT (self->pipeline), GST_STATE_READY);
    if (error == NULL)
      collect_results (self, future);
    GST_DEBUG_OBJECT (self->pipeline, "dispatch done: %s",
        error ? error->message : "ok");

    /* Completed while still the running one: see next_pending(). */
    _plan_future_complete (future, error);
    g_object_unref (future);

    g_mutex_lock (&self->dispatch_lock);
    next = next_pending (self, warm);
    g_mutex_unlock (&self->dispatch_lock);
    future = next;
  }
  gst_object_unref (bus);
  g_object_unref (self);
}

/* Starts a runner for @future, which holds a reference to @self (taken
 * here) and to the future (the caller's, given).
 *
 * The runner is a task of GStreamer's own thread pool for elements
 * (gst_element_call_async()), which gst_deinit() waits for before it
 * frees anything: when the runner's reference to the work is the last
 * one (the application dropped its own as its last future completed),
 * the runner tears the pipeline down, and a gst_deinit() called meanwhile
 * waits for that instead of freeing the debug categories and types the
 * teardown uses. */
void
_plan_work_start_runner (PlanWork * self, PlanFuture * future)
{
  g_object_ref (self);
  gst_element_call_async (GST_ELEMENT (self->pipeline), run_dispatch, future,
      NULL);
}

void
_plan_work_cancel (PlanWork * self, PlanFuture * future)
{
  Pending *pending = NULL;
  GList *l;

  g_mutex_lock (&self->lock);
  if (self->running == future) {
    GST_DEBUG_OBJECT (self->pipeline, "cancelling");
    gst_element_post_message (GST_ELEMENT (self->pipeline),
        gst_message_new_application (GST_OBJECT (self->pipeline),
            gst_structure_new_empty ("plan-cancel")));
  } else {
    for (l = self->pending.head; l != NULL; l = l->next) {
      if (((Pending *) l->data)->future == future) {
        pending = l->data;
        g_queue_delete_link (&self->pending, l);
        break;
      }
    }
  }
  g_mutex_unlock (&self->lock);
  /* A dispatch still waiting its turn never starts. */
  if (pending != NULL) {
    GST_DEBUG_OBJECT (self->pipeline, "cancelled a queued dispatch");
    _plan_future_complete (future, _plan_future_cancelled_error (future,
            "before it started, while it waited its turn behind the "
            "dispatches before it"));
    _plan_work_pending_free (pending);
  }
}

/* ---------------------------------------------------------------------
 * Dispatch: small runs on the caller's thread
 * --------------------------------------------------------------------- */

/* Elements per node up to which a dispatch in memory of a plan of maps,
 * reductions and stencils on the CPU is computed on the caller's thread:
 * there a node costs a few microseconds more than its loop, against the
 * hundreds a run of the pipeline costs in thread wake-ups, and a map
 * large enough to share is split across the worker pool as planmap splits
 * a chunk. 4 Mi elements (32 MiB of float64): past that the pipeline's
 * threads (reading, computing and writing nodes at once) win over one
 * node after another. PLAN_DIRECT_MAX_ELEMENTS overrides it (0: never). */
#define DIRECT_MAX_ELEMENTS ((gsize) 4 << 20)

void
_plan_work_decide_direct (PlanWork * self)
{
  const gchar *env = g_getenv ("PLAN_DIRECT_MAX_ELEMENTS");
  guint i;

  self->direct_max = env ? g_ascii_strtoull (env, NULL, 10) :
      DIRECT_MAX_ELEMENTS;
  self->direct = self->target == PLAN_TARGET_CPU && self->direct_max > 0;
  for (i = 0; i < self->nodes->len && self->direct; i++) {
    Stage *stage = g_ptr_array_index (self->stages, i);

    if (stage->node->index != i || stage->fused)
      continue;
    if (stage->kind == PLAN_NODE_CUSTOM)
      self->direct = FALSE;
  }
}

/* Whether @bindings make a run that the caller's thread computes: every
 * source a host array with rows, every output an array or left to the
 * future, every node's input and output small, and only a reduction's
 * output a single value. */
gboolean
_plan_work_runs_direct (PlanWork * self, PlanBindings * bindings,
    const PlanArrayInfo * infos)
{
  guint i, j;

  if (!self->direct)
    return FALSE;
  for (i = 0; i < self->nodes->len; i++) {
    Stage *stage = g_ptr_array_index (self->stages, i);
    PlanBinding *binding;

    if (stage->node->index != i || stage->fused)
      continue;
    if (stage->kind != PLAN_NODE_REDUCE
        && (infos[i].ndim == 0 || infos[i].shape[0] < 0))
      return FALSE;
    if (stage->kind == PLAN_NODE_SOURCE) {
      binding = _plan_bindings_lookup (bindings, stage->node->name);
      if (binding->kind != PLAN_BINDING_ARRAY
          || plan_array_get_device_memory (binding->array) != NULL)
        return FALSE;
      continue;
    }
    for (j = 0; j < stage->inputs->len; j++) {
      const PlanArrayInfo *in = &infos[((Stage *) g_ptr_array_index
              (stage->inputs, j))->node->index];

      if (in->ndim == 0 || in->shape[0] < 0
          || plan_array_info_get_n_rows (in) *
          plan_array_info_get_row_elements (in) > self->direct_max)
        return FALSE;
    }
    if (infos[i].ndim > 0 && plan_array_info_get_n_rows (&infos[i]) *
        plan_array_info_get_row_elements (&infos[i]) > self->direct_max)
      return FALSE;
  }
  return _plan_work_outputs_in_memory (self, bindings);
}

/* Forgets what @stage kept for inputs other than @in; TRUE when it kept
 * something for these. */
static gboolean
direct_keep (Stage * stage, const PlanArrayInfo * in)
{
  guint n = stage->inputs->len;

  if (stage->direct_key != NULL
      && memcmp (stage->direct_key, in, sizeof (PlanArrayInfo) * n) == 0)
    return TRUE;
  g_clear_pointer (&stage->direct_expr, plan_expr_unref);
  g_clear_pointer (&stage->direct_reducer, plan_reducer_unref);
  g_clear_pointer (&stage->direct_stencil, plan_stencil_kernel_free);
  g_free (stage->direct_key);
  stage->direct_key = g_memdup2 (in, sizeof (PlanArrayInfo) * n);
  return FALSE;
}

/* The map @stage as planmap sets itself up for inputs of @in (its
 * properties as _plan_work_make_map() sets them: expr, dtype, the
 * constant arrays; x, y, z, w and in0, in1, ... for the inputs). */
static gboolean
direct_map_setup (Stage * stage, const PlanArrayInfo * in, GError ** error)
{
  stage->direct_expr = _plan_work_compile_map (stage->node, stage->expr,
      stage->inputs->len, in, FALSE, &stage->direct_out, error);
  return stage->direct_expr != NULL;
}

/* The reduction @stage as planreduce sets itself up (_plan_work_make_reduce()'s
 * properties: op or combiner and identity, axis, ddof, and the map fused
 * into it, compiled as planreduce compiles its map). */
static gboolean
direct_reduce_setup (Stage * stage, const PlanArrayInfo * in,
    GError ** error)
{
  static const gchar *const names[] = { "x", "in0" };
  PlanNode *node = stage->node;
  PlanArrayInfo reduced = *in;

  if (stage->pre_map != NULL) {
    const PlanDType dtypes[] = { in->dtype, in->dtype };

    stage->direct_expr = plan_expr_compile_with_dtype (stage->pre_map,
        G_N_ELEMENTS (names), names, dtypes, stage->pre_map_dtype, error);
    if (stage->direct_expr == NULL)
      return FALSE;
    reduced.dtype = plan_expr_get_dtype (stage->direct_expr);
  }
  stage->direct_reducer = node->expr != NULL ?
      plan_reducer_new_custom (node->expr, node->identity, node->axis,
      &reduced, error) : plan_reducer_new (node->op, node->axis, &reduced,
      error);
  if (stage->direct_reducer == NULL)
    return FALSE;
  plan_reducer_set_ddof (stage->direct_reducer, node->ddof);
  plan_reducer_set_n_threads (stage->direct_reducer, 1);
  plan_reducer_get_output_info (stage->direct_reducer, &stage->direct_out);
  if (plan_reducer_get_axis (stage->direct_reducer) == PLAN_REDUCE_AXIS_INNER)
    stage->direct_out.shape[0] = in->shape[0];
  return TRUE;
}

/* The stencil @stage as planstencil sets itself up (_plan_work_make_stencil()'s
 * properties). */
static gboolean
direct_stencil_setup (Stage * stage, const PlanArrayInfo * in,
    GError ** error)
{
  PlanNode *node = stage->node;
  PlanWindow *window;

  if (node->windows != NULL) {
    stage->direct_stencil = _plan_work_stencil_inputs_kernel (node, in, error);
  } else {
    if ((window = plan_window_parse (node->window, error)) == NULL)
      return FALSE;
    stage->direct_stencil = plan_stencil_kernel_new_iterated (window,
        node->expr, in, node->boundary, node->cval, node->iterations,
        error);
    plan_window_unref (window);
  }
  if (stage->direct_stencil == NULL)
    return FALSE;
  plan_stencil_kernel_set_n_threads (stage->direct_stencil, 1);
  plan_stencil_kernel_get_output_info (stage->direct_stencil,
      &stage->direct_out);
  return TRUE;
}

/* The array output @i of @stage's result goes to: the bound array (a
 * view of it in the result's shape, as _plan_work_bind_output() makes), a
 * new one, or NULL for none bound. */
static PlanArray *
direct_target (PlanWork * self, PlanBindings * bindings, Stage * stage,
    GError ** error)
{
  const PlanArrayInfo *info = &stage->direct_out;
  guint i;

  for (i = 0; i < self->outputs->len; i++) {
    Output *output = g_ptr_array_index (self->outputs, i);
    PlanBinding *binding = _plan_bindings_lookup (bindings, output->name);
    const PlanArrayInfo *have;

    if (output->producer != stage || binding == NULL
        || plan_array_get_dtype (binding->array) != info->dtype)
      continue;
    have = plan_array_get_info (binding->array);
    if (info->ndim == 0 ? have->ndim == 0 : plan_array_info_same_rows (have,
            info))
      return g_object_ref (binding->array);
    return plan_array_new_wrapped (plan_array_get_writable_data
        (binding->array, NULL), plan_array_get_size (binding->array),
        info->dtype, info->ndim, info->shape, g_object_ref (binding->array),
        g_object_unref, error);
  }
  return _plan_array_new_uninitialized (info, error);
}

/* Computes @stage from @ins, its inputs' arrays, into @out. */
static gboolean
direct_compute (Stage * stage, PlanArray ** ins, PlanArray * out,
    GError ** error)
{
  const PlanArrayInfo *in = plan_array_get_info (ins[0]);
  gsize n_rows = plan_array_info_get_n_rows (in);
  guint8 *dest = plan_array_get_writable_data (out, NULL);
  gconstpointer data = plan_array_get_data (ins[0], NULL);
  guint n_in = stage->inputs->len, j;

  switch (stage->kind) {
    case PLAN_NODE_MAP:{
      guint n_names = plan_expr_get_n_names (stage->direct_expr);
      guint n_short = n_names - n_in - (stage->node->const_arrays ?
          stage->node->const_arrays->len : 0);
      gconstpointer *ptrs = g_newa (gconstpointer, n_names + 1);

      for (j = 0; j < n_names; j++)
        ptrs[j] = j < n_short + n_in ?
            plan_array_get_data (ins[j < n_short ? j : j - n_short], NULL) :
            plan_array_get_data (g_ptr_array_index (stage->node->const_arrays,
                j - n_short - n_in), NULL);
      _plan_expr_eval_in_memory (stage->direct_expr, ptrs, dest,
          plan_array_info_get_n_rows (&stage->direct_out) *
          plan_array_info_get_row_elements (&stage->direct_out));
      return TRUE;
    }
    case PLAN_NODE_REDUCE:{
      PlanReducer *reducer = stage->direct_reducer;
      gboolean inner = stage->node->axis == PLAN_REDUCE_AXIS_INNER;
      PlanArray *mapped = NULL;
      gboolean ok;

      plan_reducer_reset (reducer);
      if (stage->direct_expr != NULL) {
        PlanArrayInfo info = *in;
        gconstpointer inputs[2] = { data, data };

        info.dtype = plan_expr_get_dtype (stage->direct_expr);
        mapped = _plan_array_new_uninitialized (&info, error);
        if (mapped == NULL)
          return FALSE;
        plan_expr_eval (stage->direct_expr, inputs,
            plan_array_get_writable_data (mapped, NULL),
            n_rows * plan_array_info_get_row_elements (in));
        data = plan_array_get_data (mapped, NULL);
      }
      ok = plan_reducer_push (reducer, data, n_rows, inner ? dest : NULL,
          error) && (inner || plan_reducer_finish (reducer, dest, error));
      g_clear_object (&mapped);
      return ok;
    }
    case PLAN_NODE_STENCIL:{
      PlanStencilKernel *kernel = stage->direct_stencil;
      PlanHaloBlock blocks[PLAN_HALO_MAX_BLOCKS];
      gsize row = plan_array_info_get_row_size (in);
      gsize out_row = plan_array_info_get_row_size (&stage->direct_out);
      gsize n_end, done = 0, total = plan_array_info_get_n_rows
          (&stage->direct_out);
      guint n_blocks, k;
      gboolean first = TRUE;
      gconstpointer *rows = g_newa (gconstpointer, n_in);

      plan_stencil_kernel_reset (kernel);
      for (j = 0; j < n_in; j++)
        rows[j] = plan_array_get_data (ins[j], NULL);
      if (plan_stencil_kernel_host_needs_end_rows (kernel, n_rows, &n_end)) {
        /* planstencil reads them from a source only: behind a kernel
         * element the pipeline fails, and so must this (the pipeline
         * then runs and says why), or the same plan would work on small
         * arrays and fail on large ones. */
        for (j = 0; j < n_in; j++)
          if (((Stage *) g_ptr_array_index (stage->inputs, j))->kind !=
              PLAN_NODE_SOURCE) {
            g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
                "boundary=wrap along the streaming axis behind a kernel");
            return FALSE;
          }
        /* Each input's last rows, as planstencil reads them upstream. */
        for (j = 0; j < n_in; j++) {
          row = plan_array_info_get_row_size (plan_array_get_info (ins[j]));
          if (!plan_stencil_kernel_host_set_input_end_rows (kernel, j,
                  n_rows, (const guint8 *) rows[j] + (n_rows - n_end) * row,
                  n_end, error))
            return FALSE;
        }
      }
      do {
        if (first ? !plan_stencil_kernel_push_inputs (kernel, rows, n_rows,
                blocks, &n_blocks, error) : !plan_stencil_kernel_finish
            (kernel, blocks, &n_blocks, error))
          return FALSE;
        for (k = 0; k < n_blocks; k++) {
          if (done + blocks[k].n_rows > total) {
            g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE, "the stencil "
                "gave more rows than it said it would");
            return FALSE;
          }
        }
        plan_stencil_kernel_eval (kernel, blocks, n_blocks, dest +
            done * out_row);
        for (k = 0; k < n_blocks; k++)
          done += blocks[k].n_rows;
        if (first) {
          first = FALSE;
          n_blocks = 1;
        }
      } while (n_blocks > 0);
      return done == total;
    }
    default:
      return FALSE;
  }
}

/* Runs @bindings' nodes on this thread, one after another, each over the
 * whole arrays, with the same kernels set up as the elements set them up
 * (planmap's expression and evaluator, planreduce's reducer, planstencil's
 * stencil kernel), and gives @future the results. FALSE when anything
 * goes wrong: the caller runs the pipeline instead, which says what (the
 * outputs it wrote are written again). */
gboolean
_plan_work_run_direct (PlanWork * self, PlanBindings * bindings,
    PlanFuture * future)
{
  guint n = self->nodes->len, i, j;
  PlanArray **results = g_new0 (PlanArray *, n);
  GError *error = NULL;
  gboolean ok = TRUE;

  for (i = 0; i < n && ok; i++) {
    Stage *stage = g_ptr_array_index (self->stages, i);
    guint n_in = stage->inputs->len;
    PlanArrayInfo *in;
    PlanArray **ins;

    if (stage->node->index != i || stage->fused)
      continue;
    if (stage->kind == PLAN_NODE_SOURCE) {
      results[i] = g_object_ref (_plan_bindings_lookup (bindings,
              stage->node->name)->array);
      continue;
    }
    in = g_newa (PlanArrayInfo, n_in);
    ins = g_newa (PlanArray *, n_in);
    for (j = 0; j < n_in; j++) {
      ins[j] = results[((Stage *) g_ptr_array_index (stage->inputs,
                  j))->node->index];
      in[j] = *plan_array_get_info (ins[j]);
    }
    if (!direct_keep (stage, in)) {
      ok = stage->kind == PLAN_NODE_MAP ? direct_map_setup (stage, in,
          &error) : stage->kind == PLAN_NODE_REDUCE ?
          direct_reduce_setup (stage, in, &error) :
          direct_stencil_setup (stage, in, &error);
      if (!ok) {
        g_clear_pointer (&stage->direct_key, g_free);
        break;
      }
    }
    results[i] = direct_target (self, bindings, stage, &error);
    ok = results[i] != NULL && direct_compute (stage, ins, results[i],
        &error);
  }

  for (i = 0; i < self->outputs->len && ok; i++) {
    Output *output = g_ptr_array_index (self->outputs, i);
    PlanBinding *binding = _plan_bindings_lookup (bindings, output->name);
    PlanArray *result = results[output->producer->node->index];

    /* A second output of the same node: its own array, a copy; an array
     * of a wider dtype: a cast. */
    if (binding != NULL && plan_array_get_address (binding->array) !=
        plan_array_get_address (result)) {
      if (plan_array_get_dtype (binding->array) ==
          plan_array_get_dtype (result))
        memcpy (plan_array_get_writable_data (binding->array, NULL),
            plan_array_get_data (result, NULL), plan_array_get_size (result));
      else
        cast_into (result, binding->array);
      result = binding->array;
    }
    _plan_future_set_result (future, output->name, result);
  }
  if (!ok)
    GST_DEBUG_OBJECT (self->pipeline, "running on the pipeline instead: %s",
        error ? error->message : "?");
  g_clear_error (&error);
  for (i = 0; i < n; i++)
    g_clear_object (&results[i]);
  g_free (results);
  return ok;
}
