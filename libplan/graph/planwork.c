/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planwork
 * @title: PlanWork
 * @short_description: a realized plan: a prepared pipeline, dispatched on
 *   bindings
 *
 * plan_graph_realize() turns a #PlanGraph into a #PlanWork: a #GstPipeline
 * with one element per step, prepared once. plan_work_dispatch() binds the
 * sources and outputs (#PlanBindings), checks the dtypes and shapes
 * against the graph, starts the pipeline and returns a #PlanFuture at
 * once. When the future is done, the work can be dispatched again, on the
 * same or other bindings, without rebuilding the pipeline; a dispatch
 * while another one runs waits its turn (at most
 * plan_work_get_max_queued() of them), and futures complete in order: a
 * run starts once the future before it has completed.
 *
 * The pipeline runs on GStreamer's streaming threads; a runner thread of
 * libplan's sets its states and waits on its bus, so the caller's thread
 * never blocks. plan_work_dispatch_async() delivers completion on the
 * caller's thread-default main context, following GIO.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "graph-private.h"
#include "planwork-private.h"

#include <string.h>

#define GST_CAT_DEFAULT plan_graph_debug

/* Dispatches that may wait behind a running one, unless set otherwise. */
#define DEFAULT_MAX_QUEUED 64

void
_plan_work_pending_free (Pending * pending)
{
  g_object_unref (pending->future);
  g_object_unref (pending->bindings);
  g_free (pending);
}

G_DEFINE_TYPE (PlanWork, plan_work, G_TYPE_OBJECT);

static void
stage_free (Stage * stage)
{
  g_free (stage->expr);
  g_free (stage->pre_map);
  g_ptr_array_unref (stage->inputs);
  g_clear_pointer (&stage->direct_expr, plan_expr_unref);
  g_clear_pointer (&stage->direct_reducer, plan_reducer_unref);
  g_clear_pointer (&stage->direct_stencil, plan_stencil_kernel_free);
  g_free (stage->direct_key);
  g_free (stage);
}

static void
output_free (Output * output)
{
  g_clear_object (&output->cast_to);
  g_free (output->name);
  g_free (output);
}

/* A sink's slot in the stages holds its input's stage; each stage is
 * freed from its own slot, last first, since a sink comes after its
 * input. */
static void
free_stages (PlanWork * self)
{
  guint i;

  for (i = self->stages->len; i-- > 0;) {
    Stage *stage = g_ptr_array_index (self->stages, i);

    if (stage->node->index == i)
      stage_free (stage);
  }
  g_ptr_array_unref (self->stages);
}

static void
plan_work_finalize (GObject * object)
{
  PlanWork *self = PLAN_WORK (object);

  if (self->pipeline) {
    gst_element_set_state (GST_ELEMENT (self->pipeline), GST_STATE_NULL);
    gst_object_unref (self->pipeline);
  }
  g_clear_object (&self->device);
  g_ptr_array_unref (self->outputs);
  free_stages (self);
  g_ptr_array_unref (self->nodes);
  g_string_free (self->links, TRUE);
  g_free (self->known_infos);
  g_mutex_clear (&self->lock);
  g_mutex_clear (&self->dispatch_lock);
  G_OBJECT_CLASS (plan_work_parent_class)->finalize (object);
}

static void
plan_work_class_init (PlanWorkClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = plan_work_finalize;
}

static void
plan_work_init (PlanWork * self)
{
  g_mutex_init (&self->lock);
  g_mutex_init (&self->dispatch_lock);
  g_queue_init (&self->pending);
  self->max_queued = DEFAULT_MAX_QUEUED;
  self->stages = g_ptr_array_new ();
  self->outputs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      output_free);
  self->nodes = g_ptr_array_new_with_free_func (g_object_unref);
  self->links = g_string_new (NULL);
}

/* ---------------------------------------------------------------------
 * Dispatch: the source and sink elements
 * --------------------------------------------------------------------- */

/* Puts @replacement where @element is, linked to the same peer. */
static void
replace_element (PlanWork * self, GstElement ** element,
    GstElement * replacement)
{
  gboolean is_src = (*element)->numsrcpads > 0;
  GstPad *pad = gst_element_get_static_pad (*element, is_src ? "src" :
      "sink");
  GstPad *peer = gst_pad_get_peer (pad), *new_pad;

  gst_element_set_state (*element, GST_STATE_NULL);
  if (is_src)
    gst_pad_unlink (pad, peer);
  else
    gst_pad_unlink (peer, pad);
  gst_object_unref (pad);
  gst_bin_remove (GST_BIN (self->pipeline), *element);

  *element = replacement;
  gst_bin_add (GST_BIN (self->pipeline), replacement);
  new_pad = gst_element_get_static_pad (replacement, is_src ? "src" : "sink");
  if (is_src)
    gst_pad_link (new_pad, peer);
  else
    gst_pad_link (peer, new_pad);
  gst_object_unref (new_pad);
  gst_object_unref (peer);
}

/* An element of @type in @element's place, keeping its name. */
static gboolean
ensure_element (PlanWork * self, GstElement ** element, const gchar * factory,
    GError ** error)
{
  GstElement *replacement;
  gchar *name;

  if (strcmp (_plan_work_factory_name (*element), factory) == 0)
    return TRUE;
  name = gst_object_get_name (GST_OBJECT (*element));
  if (strcmp (factory, "planarraysrc") == 0)
    replacement = _plan_work_make_array_element (PLAN_TYPE_ARRAY_SRC, factory,
        name);
  else if (strcmp (factory, "planarraysink") == 0)
    replacement = _plan_work_make_array_element (PLAN_TYPE_ARRAY_SINK, factory,
        name);
  else
    replacement = _plan_work_make_element (factory, name, error);
  g_free (name);
  if (replacement == NULL)
    return FALSE;
  replace_element (self, element, replacement);
  if (replacement->numsrcpads > 0)
    _plan_work_count_source_rows (self, replacement);
  return TRUE;
}

static PlanArray *
read_chunk (guint64 first_row, gpointer user_data, GError ** error)
{
  PlanBinding *binding = user_data;

  return binding->read (first_row, binding->user_data, error);
}

static gboolean
write_chunk (PlanArray * chunk, guint64 first_row, gpointer user_data,
    GError ** error)
{
  PlanBinding *binding = user_data;

  return binding->write (chunk, first_row, binding->user_data, error);
}

static gboolean
bind_source (PlanWork * self, Stage * stage, PlanBinding * binding,
    GError ** error)
{
  gchar *shape;

  if (self->restart) {
    _plan_array_src_rebind (PLAN_ARRAY_SRC (stage->element), binding->array);
    return TRUE;
  }
  if (binding->kind == PLAN_BINDING_ARRAY
      || binding->kind == PLAN_BINDING_READER) {
    if (!ensure_element (self, &stage->element, "planarraysrc", error))
      return FALSE;
    if (binding->kind == PLAN_BINDING_ARRAY)
      plan_array_src_set_array (PLAN_ARRAY_SRC (stage->element),
          binding->array);
    else
      plan_array_src_set_reader (PLAN_ARRAY_SRC (stage->element),
          &binding->info, read_chunk, _plan_binding_ref (binding),
          (GDestroyNotify) _plan_binding_unref);
    return TRUE;
  }
  if (!ensure_element (self, &stage->element, "planfilesrc", error))
    return FALSE;
  if (binding->kind == PLAN_BINDING_FILE && binding->in_container) {
    g_object_set (stage->element, "location", binding->location, "format",
        PLAN_FILE_FORMAT_AUTO, "member", binding->dataset, "dataset",
        binding->dataset, NULL);
    return TRUE;
  }
  if (binding->kind == PLAN_BINDING_FILE) {
    g_object_set (stage->element, "location", binding->location, "format",
        PLAN_FILE_FORMAT_NPY, NULL);
    return TRUE;
  }
  shape = plan_shape_to_string (binding->info.ndim, binding->info.shape);
  g_object_set (stage->element, "location", binding->location, "format",
      PLAN_FILE_FORMAT_RAW, "dtype", binding->info.dtype, "shape", shape,
      NULL);
  g_free (shape);
  return TRUE;
}

/* An output left unbound is collected into an array the future hands
 * back: made here when its shape is known, so that the rows are computed
 * straight into it, and by the sink as they come otherwise. */
gboolean
_plan_work_bind_output (PlanWork * self, Output * output, PlanBinding * binding,
    const PlanArrayInfo * info, GError ** error)
{
  PlanArraySink *sink;
  PlanArray *array;

  if (binding != NULL && (binding->kind == PLAN_BINDING_FILE
          || binding->kind == PLAN_BINDING_RAW_FILE)) {
    if (!ensure_element (self, &output->element, "planfilesink", error))
      return FALSE;
    /* The array's name is the dataset of an HDF5 file or a Zarr store and
     * the member of a .npz (the sink ignores the one its format does not
     * have). Both are set every time, NULL included, and so is the
     * format: the element is kept from one dispatch to the next, and a
     * file bound alone must not inherit the name or the bare data of the
     * dispatch before. */
    g_object_set (output->element, "location", binding->location, "dataset",
        binding->in_container ? binding->dataset : NULL, "member",
        binding->in_container ? binding->dataset : NULL, "format",
        binding->kind == PLAN_BINDING_RAW_FILE ? PLAN_FILE_FORMAT_RAW :
        PLAN_FILE_FORMAT_AUTO, NULL);
    return TRUE;
  }
  array = NULL;
  g_clear_object (&output->cast_to);
  if (binding != NULL && binding->kind == PLAN_BINDING_ARRAY
      && plan_array_get_dtype (binding->array) != info->dtype) {
    /* A reduction into a wider dtype (check_output): computed into an
     * array of its own dtype, cast into the caller's at the end. */
    array = _plan_array_new_uninitialized (info, error);
    if (array == NULL) {
      g_prefix_error (error, "output '%s': ", output->name);
      return FALSE;
    }
    output->cast_to = g_object_ref (binding->array);
  } else if (binding != NULL && binding->kind == PLAN_BINDING_ARRAY
      && (info->ndim == 0 ? plan_array_get_info (binding->array)->ndim != 0
          : !plan_array_info_same_rows (plan_array_get_info
              (binding->array), info))) {
    /* A scalar or reduction bound to an array of another shape and the
     * same size (check_output): the sink writes a view of it in the
     * result's shape. */
    array = plan_array_new_wrapped (plan_array_get_writable_data
        (binding->array, NULL), plan_array_get_size (binding->array),
        info->dtype, info->ndim, info->shape,
        g_object_ref (binding->array), g_object_unref, error);
    if (array == NULL) {
      g_prefix_error (error, "output '%s': ", output->name);
      return FALSE;
    }
  } else if (binding != NULL && binding->kind == PLAN_BINDING_ARRAY)
    array = g_object_ref (binding->array);
  else if (binding == NULL && (info->ndim == 0 || info->shape[0] >= 0)
      && (array = _plan_array_new_uninitialized (info, error)) == NULL) {
    g_prefix_error (error, "output '%s': ", output->name);
    return FALSE;
  }
  if (self->restart) {
    _plan_array_sink_rebind (PLAN_ARRAY_SINK (output->element), array);
  } else if (ensure_element (self, &output->element, "planarraysink",
          error)) {
    sink = PLAN_ARRAY_SINK (output->element);
    plan_array_sink_set_array (sink, NULL);
    plan_array_sink_set_writer (sink, NULL, NULL, NULL);
    if (array != NULL)
      plan_array_sink_set_array (sink, array);
    else if (binding != NULL)
      plan_array_sink_set_writer (sink, write_chunk,
          _plan_binding_ref (binding), (GDestroyNotify) _plan_binding_unref);
  } else {
    g_clear_object (&array);
    return FALSE;
  }
  g_clear_object (&array);
  return TRUE;
}

/* Whether @bindings give every output an array or nothing (an array the
 * future makes). */
gboolean
_plan_work_outputs_in_memory (PlanWork * self, PlanBindings * bindings)
{
  guint i;

  for (i = 0; i < self->outputs->len; i++) {
    Output *output = g_ptr_array_index (self->outputs, i);
    PlanBinding *binding = _plan_bindings_lookup (bindings, output->name);

    if (binding != NULL && binding->kind != PLAN_BINDING_ARRAY)
      return FALSE;
  }
  return TRUE;
}

/* Whether @bindings give every source an array and every output an array
 * or nothing (an array the future makes): a run of such a dispatch is in
 * memory only, and may stay in PLAYING at its end for the next dispatch
 * to _plan_work_restart (docs/plan-api.md, "Again"). */
static gboolean
binds_memory_only (PlanWork * self, PlanBindings * bindings)
{
  guint i;

  for (i = 0; i < self->stages->len; i++) {
    Stage *stage = g_ptr_array_index (self->stages, i);

    if (stage->kind == PLAN_NODE_SOURCE && _plan_bindings_lookup (bindings,
            stage->node->name)->kind != PLAN_BINDING_ARRAY)
      return FALSE;
  }
  return _plan_work_outputs_in_memory (self, bindings);
}

/* Whether the sources of a pipeline left in PLAYING by a run in memory can
 * take @bindings' arrays as they stand: the same dtype, shape and memory
 * as the last run's, so that the caps stay as they are. */
static gboolean
same_sources (PlanWork * self, PlanBindings * bindings)
{
  guint i;

  for (i = 0; i < self->stages->len; i++) {
    Stage *stage = g_ptr_array_index (self->stages, i);
    PlanArraySrc *src;
    PlanArray *array;
    PlanArrayInfo last;

    if (stage->kind != PLAN_NODE_SOURCE)
      continue;
    src = PLAN_ARRAY_SRC (stage->element);
    array = _plan_bindings_lookup (bindings, stage->node->name)->array;
    if (!plan_array_src_get_info (src, &last)
        || !plan_array_info_is_equal (&last, plan_array_get_info (array))
        || (plan_array_get_device_memory (array) != NULL) !=
        _plan_array_src_is_on_device (src))
      return FALSE;
  }
  return TRUE;
}

/* Checks @bindings against the graph, touching nothing (a dispatch that
 * waits behind a running one is checked while that one runs): fills
 * @infos, each node's output, and returns the rows the sources will
 * produce (-1 when not known), or -2 on error. */
static gint64
check_bindings (PlanWork * self, PlanBindings * bindings,
    PlanArrayInfo * infos, GError ** error)
{
  gint64 total = 0;
  guint i;

  if (!_plan_work_check_binding_names (self, bindings, error))
    return -2;
  for (i = 0; i < self->nodes->len; i++) {
    PlanNode *node = g_ptr_array_index (self->nodes, i);
    PlanBinding *binding;

    if (node->kind != PLAN_NODE_SOURCE)
      continue;
    binding = _plan_bindings_lookup (bindings, node->name);
    if (binding == NULL) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "source '%s' is not bound: give it an array, a file or a reader",
          node->name);
      return -2;
    }
    if (!_plan_work_source_info (node, binding, &infos[i], error)) {
      g_prefix_error (error, "source '%s': ", node->name);
      return -2;
    }
    if (total >= 0)
      total = infos[i].ndim == 0 ? total + 1 : infos[i].shape[0] < 0 ? -1 :
          total + infos[i].shape[0];
  }
  if (!_plan_work_infer_known_infos (self, infos, error))
    return -2;
  for (i = 0; i < self->outputs->len; i++) {
    Output *output = g_ptr_array_index (self->outputs, i);

    if (!_plan_work_check_output (output, _plan_bindings_lookup (bindings,
                output->name), &infos[output->node->index], error))
      return -2;
  }
  if (!_plan_work_check_overlaps (self, bindings, error))
    return -2;
  return total;
}

/* Checks @bindings against the graph and sets up the end elements; returns
 * the rows the sources will produce (-1 when not known), or -2 on error.
 * Only with no run going. */
gint64
_plan_work_prepare (PlanWork * self, PlanBindings * bindings, GError ** error)
{
  PlanArrayInfo *infos = g_new0 (PlanArrayInfo, self->nodes->len);
  gint64 total;
  guint i;

  self->restart = FALSE;
  total = check_bindings (self, bindings, infos, error);
  if (total < -1)
    goto failed;
  self->memory_only = binds_memory_only (self, bindings);
  self->restart = self->warm && self->memory_only
      && same_sources (self, bindings);
  if (self->warm && !self->restart) {
    GST_DEBUG_OBJECT (self->pipeline, "new bindings: stopping to rebind");
    gst_element_set_state (GST_ELEMENT (self->pipeline), GST_STATE_READY);
  }
  self->warm = FALSE;

  for (i = 0; i < self->nodes->len; i++) {
    PlanNode *node = g_ptr_array_index (self->nodes, i);
    PlanBinding *binding = _plan_bindings_lookup (bindings, node->name);

    if (node->kind == PLAN_NODE_SOURCE
        && !bind_source (self, _plan_work_stage_of (self, node), binding,
            error))
      goto failed;
  }
  for (i = 0; i < self->outputs->len; i++) {
    Output *output = g_ptr_array_index (self->outputs, i);
    PlanBinding *binding = _plan_bindings_lookup (bindings, output->name);

    if (!_plan_work_bind_output (self, output, binding,
        &infos[output->node->index],
            error))
      goto failed;
  }
  g_free (infos);
  return total;

failed:
  /* Elements rebound for a restart go back to READY with the rest. */
  if (self->restart) {
    gst_element_set_state (GST_ELEMENT (self->pipeline), GST_STATE_READY);
    self->restart = FALSE;
  }
  g_free (infos);
  return -2;
}

static PlanFuture *work_dispatch (PlanWork * work, PlanBindings * bindings,
    GError ** error);

/**
 * plan_work_dispatch:
 * @work: a #PlanWork
 * @bindings: (nullable): the sources' and outputs' data; %NULL for a work
 *   without sources
 * @error: return location for an error
 *
 * Checks @bindings against the graph (every source bound; names, dtypes,
 * numbers of axes, lengths, output arrays of the exact dtype and shape
 * that share no memory with an input) and starts the plan. Returns at
 * once.
 *
 * While another dispatch of @work runs, the new one waits its turn: its
 * bindings are checked now, and it starts when the futures of the
 * dispatches before it have completed (done, and an async dispatch's
 * callback on its way); futures complete in the order of their
 * dispatches, but for one cancelled while it waits, which ends at once.
 * At most plan_work_get_max_queued() dispatches wait at a time; the
 * first dispatch made once the running one's future is done is taken
 * even when that is 0.
 *
 * Returns: (transfer full) (nullable): the future of the run, or %NULL
 *   with @error set, before anything runs: %PLAN_ERROR_BUSY when as many
 *   dispatches as allowed wait already, or the binding's error naming its
 *   node.
 *
 * Since: 0.1
 */
PlanFuture *
plan_work_dispatch (PlanWork * work, PlanBindings * bindings,
    GError ** error)
{
  PlanFuture *future;
  GError *err = NULL;

  g_return_val_if_fail (PLAN_IS_WORK (work), NULL);
  g_return_val_if_fail (bindings == NULL || PLAN_IS_BINDINGS (bindings),
      NULL);

  future = work_dispatch (work, bindings, &err);
  if (err != NULL) {
    /* The bindings' file names, in messages, need not be UTF-8. */
    _plan_error_make_valid (err);
    g_propagate_error (error, err);
  }
  return future;
}

static PlanFuture *
work_dispatch (PlanWork * work, PlanBindings * bindings, GError ** error)
{
  PlanBindings *empty = NULL;
  PlanFuture *future;
  GstBus *bus;
  gint64 total;
  gboolean busy;

  if (bindings == NULL)
    bindings = empty = plan_bindings_new ();
  g_mutex_lock (&work->dispatch_lock);
  g_mutex_lock (&work->lock);
  busy = work->running != NULL;
  /* A run that has completed its future stays the running one until its
   * runner takes the next dispatch (see next_pending()): a dispatch then
   * waits its turn, but not behind it. */
  if (busy && g_queue_get_length (&work->pending) >= work->max_queued +
      (plan_future_is_done (work->running) ? 1 : 0)) {
    g_mutex_unlock (&work->lock);
    g_mutex_unlock (&work->dispatch_lock);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_BUSY, "the work has %u "
        "dispatches waiting behind the running one, as many as it takes "
        "(plan_work_set_max_queued): wait for a future first",
        work->max_queued);
    g_clear_object (&empty);
    return NULL;
  }
  g_mutex_unlock (&work->lock);

  if (busy) {
    /* Checked now, bound and started by the runner in its turn. The
     * runner takes dispatch_lock before it looks at the queue, so the
     * run cannot end unnoticed meanwhile. */
    PlanArrayInfo *infos = g_new0 (PlanArrayInfo, work->nodes->len);
    Pending *pending;

    total = check_bindings (work, bindings, infos, error);
    g_free (infos);
    if (total < -1) {
      g_mutex_unlock (&work->dispatch_lock);
      g_clear_object (&empty);
      return NULL;
    }
    future = _plan_future_new (G_OBJECT (work), ++work->n_dispatches,
        total);
    pending = g_new (Pending, 1);
    pending->future = g_object_ref (future);
    /* As they are now, not as the caller may change them before the
     * dispatch's turn comes. */
    pending->bindings = _plan_bindings_copy (bindings);
    g_mutex_lock (&work->lock);
    g_queue_push_tail (&work->pending, pending);
    g_mutex_unlock (&work->lock);
    g_mutex_unlock (&work->dispatch_lock);
    g_clear_object (&empty);
    return future;
  }

  if (work->direct) {
    PlanArrayInfo *infos = g_new0 (PlanArrayInfo, work->nodes->len);

    total = check_bindings (work, bindings, infos, error);
    if (total >= 0 && _plan_work_runs_direct (work, bindings, infos)) {
      future = _plan_future_new (G_OBJECT (work), work->n_dispatches + 1,
          total);
      if (_plan_work_run_direct (work, bindings, future)) {
        work->n_dispatches++;
        g_free (infos);
        _plan_future_add_rows (future, total);
        /* Before the next dispatch can start: futures complete in the
         * order of their dispatches. No callback or cancellable is
         * attached yet, so completing is quick. */
        _plan_future_complete (future, NULL);
        g_mutex_unlock (&work->dispatch_lock);
        g_clear_object (&empty);
        return future;
      }
      g_object_unref (future);
    }
    g_free (infos);
    if (total < -1) {
      g_mutex_unlock (&work->dispatch_lock);
      g_clear_object (&empty);
      return NULL;
    }
  }

  total = _plan_work_prepare (work, bindings, error);
  g_clear_object (&empty);
  if (total < -1) {
    g_mutex_unlock (&work->dispatch_lock);
    return NULL;
  }

  /* Messages a past run left behind, a late cancel among them, are not
   * this run's. */
  bus = gst_pipeline_get_bus (work->pipeline);
  gst_bus_set_flushing (bus, TRUE);
  gst_bus_set_flushing (bus, FALSE);
  gst_object_unref (bus);

  future = _plan_future_new (G_OBJECT (work), ++work->n_dispatches, total);
  g_mutex_lock (&work->lock);
  work->running = g_object_ref (future);
  g_mutex_unlock (&work->lock);
  _plan_work_start_runner (work, g_object_ref (future));
  g_mutex_unlock (&work->dispatch_lock);
  return future;
}

/**
 * plan_work_set_max_queued:
 * @work: a #PlanWork
 * @max_queued: how many dispatches may wait behind the running one; 0
 *   refuses a dispatch while one runs
 *
 * Bounds the queue of dispatches (64 by default): a dispatch beyond it is
 * refused with %PLAN_ERROR_BUSY. Each waiting dispatch holds its bindings
 * (and so its arrays) until it has run.
 *
 * Since: 0.1
 */
void
plan_work_set_max_queued (PlanWork * work, guint max_queued)
{
  g_return_if_fail (PLAN_IS_WORK (work));

  g_mutex_lock (&work->lock);
  work->max_queued = max_queued;
  g_mutex_unlock (&work->lock);
}

/**
 * plan_work_get_max_queued:
 * @work: a #PlanWork
 *
 * Returns: how many dispatches may wait behind the running one.
 *
 * Since: 0.1
 */
guint
plan_work_get_max_queued (PlanWork * work)
{
  guint max_queued;

  g_return_val_if_fail (PLAN_IS_WORK (work), 0);

  g_mutex_lock (&work->lock);
  max_queued = work->max_queued;
  g_mutex_unlock (&work->lock);
  return max_queued;
}

/**
 * plan_work_dispatch_async:
 * @work: a #PlanWork
 * @bindings: (nullable): the sources' and outputs' data
 * @cancellable: (nullable): cancels the run when triggered
 * @callback: called on the thread-default main context of the caller when
 *   the run is done
 * @user_data: data for @callback
 *
 * Dispatches like plan_work_dispatch(), and calls @callback when the run
 * is done, successfully or not; call plan_work_dispatch_finish() there.
 *
 * Since: 0.1
 */
void
plan_work_dispatch_async (PlanWork * work, PlanBindings * bindings,
    GCancellable * cancellable, GAsyncReadyCallback callback,
    gpointer user_data)
{
  GTask *task;
  PlanFuture *future;
  GError *error = NULL;

  g_return_if_fail (PLAN_IS_WORK (work));

  task = g_task_new (work, cancellable, callback, user_data);
  g_task_set_source_tag (task, plan_work_dispatch_async);
  /* The run's own error says which dispatch was cancelled and how far it
   * got, where GTask's would say "Operation was cancelled";
   * plan_work_dispatch_finish() keeps GIO's rule that a cancelled
   * operation fails. */
  g_task_set_check_cancellable (task, FALSE);
  /* Cancelled already: nothing runs. */
  if (cancellable != NULL && g_cancellable_is_cancelled (cancellable)) {
    gchar *what = _plan_work_describe (work);

    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
        "a dispatch to %s was not made: its GCancellable was cancelled "
        "before plan_work_dispatch_async() was called", what);
    g_free (what);
    g_object_unref (task);
    return;
  }
  future = plan_work_dispatch (work, bindings, &error);
  if (future == NULL) {
    g_task_return_error (task, error);
    g_object_unref (task);
    return;
  }
  if (cancellable != NULL)
    _plan_future_set_cancellable (future, cancellable);
  /* The run may have ended before the task could be handed over: then
   * the result is returned here. */
  if (!_plan_future_set_task (future, task)) {
    GError *run_error = NULL;

    if (plan_future_wait (future, 0, &run_error))
      g_task_return_pointer (task, g_object_ref (future), g_object_unref);
    else
      g_task_return_error (task, run_error);
  }
  g_object_unref (task);
  g_object_unref (future);
}

/**
 * plan_work_dispatch_finish:
 * @work: a #PlanWork
 * @result: the #GAsyncResult given to the callback
 * @error: return location for an error
 *
 * Returns: (transfer full) (nullable): the finished future, whose results
 *   can be read, or %NULL with @error set when the dispatch was refused or
 *   the run failed or was cancelled.
 *
 * Since: 0.1
 */
PlanFuture *
plan_work_dispatch_finish (PlanWork * work, GAsyncResult * result,
    GError ** error)
{
  GCancellable *cancellable;
  PlanFuture *future;

  g_return_val_if_fail (g_task_is_valid (result, work), NULL);
  future = g_task_propagate_pointer (G_TASK (result), error);
  cancellable = g_task_get_cancellable (G_TASK (result));
  /* Cancelled after the run had ended, before this callback: cancelled
   * all the same, as GIO has it. */
  if (future != NULL && cancellable != NULL
      && g_cancellable_is_cancelled (cancellable)) {
    gchar *what = _plan_work_describe (work);
    guint64 rows;

    plan_future_get_progress (future, &rows, NULL);
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "dispatch %u of "
        "%s was cancelled through its GCancellable after its run had ended "
        "(its sources had produced all their %" G_GUINT64_FORMAT " rows); "
        "its results are dropped", _plan_future_get_serial (future), what,
        rows);
    g_free (what);
    g_clear_object (&future);
  }
  return future;
}

/* ---------------------------------------------------------------------
 * Introspection
 * --------------------------------------------------------------------- */

/**
 * plan_work_get_pipeline:
 * @work: a #PlanWork
 *
 * The pipeline, for applications that add elements of their own, dump a
 * graph (GST_DEBUG_BIN_TO_DOT_FILE) or read its elements. Change its
 * state only through the work: a dispatch owns it while it runs, and it
 * is in READY between dispatches. Source and sink elements are swapped at
 * dispatch when a binding changes kind (array or reader, file).
 *
 * Returns: (transfer none): the pipeline.
 *
 * Since: 0.1
 */
GstPipeline *
plan_work_get_pipeline (PlanWork * work)
{
  g_return_val_if_fail (PLAN_IS_WORK (work), NULL);
  return work->pipeline;
}

/**
 * plan_work_get_target:
 * @work: a #PlanWork
 *
 * Returns: the target the work was realized for.
 *
 * Since: 0.1
 */
PlanTarget
plan_work_get_target (PlanWork * work)
{
  g_return_val_if_fail (PLAN_IS_WORK (work), PLAN_TARGET_AUTO);
  return work->target;
}

/**
 * plan_work_get_input_names:
 * @work: a #PlanWork
 *
 * Returns: (transfer full) (array zero-terminated=1): the sources' names,
 *   in the order they were added.
 *
 * Since: 0.1
 */
gchar **
plan_work_get_input_names (PlanWork * work)
{
  GPtrArray *names = g_ptr_array_new ();
  guint i;

  g_return_val_if_fail (PLAN_IS_WORK (work), NULL);

  for (i = 0; i < work->nodes->len; i++) {
    PlanNode *node = g_ptr_array_index (work->nodes, i);

    if (node->kind == PLAN_NODE_SOURCE)
      g_ptr_array_add (names, g_strdup (node->name));
  }
  g_ptr_array_add (names, NULL);
  return (gchar **) g_ptr_array_free (names, FALSE);
}

/**
 * plan_work_get_output_names:
 * @work: a #PlanWork
 *
 * Returns: (transfer full) (array zero-terminated=1): the outputs' names:
 *   the sinks', or when the graph has none, those of the nodes that no
 *   node takes; in the order they were added.
 *
 * Since: 0.1
 */
gchar **
plan_work_get_output_names (PlanWork * work)
{
  gchar **names;
  guint i;

  g_return_val_if_fail (PLAN_IS_WORK (work), NULL);

  names = g_new0 (gchar *, work->outputs->len + 1);
  for (i = 0; i < work->outputs->len; i++)
    names[i] = g_strdup (((Output *) g_ptr_array_index (work->outputs,
                i))->name);
  return names;
}

/* " inputs a, b and c" */
static void
append_names (GString * s, const gchar * what, gchar ** names)
{
  guint n = g_strv_length (names), i;

  g_string_append_printf (s, " %s%s", what, n == 1 ? "" : "s");
  for (i = 0; i < n; i++)
    g_string_append_printf (s, "%s%s", i == 0 ? " " : i + 1 == n ?
        " and " : ", ", names[i]);
}

gchar *
_plan_work_describe (PlanWork * work)
{
  gchar **inputs = plan_work_get_input_names (work);
  gchar **outputs = plan_work_get_output_names (work);
  GString *s = g_string_new ("the work with");

  if (inputs[0] != NULL) {
    append_names (s, "input", inputs);
    g_string_append (s, " and");
  }
  append_names (s, "output", outputs);
  g_strfreev (inputs);
  g_strfreev (outputs);
  return g_string_free (s, FALSE);
}

/**
 * plan_work_get_n_kernels:
 * @work: a #PlanWork
 *
 * Returns: the number of kernel elements (maps, reductions, stencils) in
 *   the pipeline: fewer than the graph's nodes when chains were fused.
 *
 * Since: 0.1
 */
guint
plan_work_get_n_kernels (PlanWork * work)
{
  guint i, n = 0;

  g_return_val_if_fail (PLAN_IS_WORK (work), 0);

  for (i = 0; i < work->nodes->len; i++) {
    Stage *stage = g_ptr_array_index (work->stages, i);

    n += stage->node->index == i && !stage->fused
        && stage->kind != PLAN_NODE_SOURCE;
  }
  return n;
}

/* A property value in gst-launch syntax, quoted when it must be. */
static gchar *
launch_value (const GValue * value)
{
  gchar *s = G_VALUE_HOLDS_STRING (value) ?
      g_value_dup_string (value) : gst_value_serialize (value), *quoted;
  GString *out;
  const gchar *p;

  if (s == NULL)
    return NULL;
  for (p = s; *p; p++)
    if (!g_ascii_isalnum (*p) && strchr ("_.+-:/", *p) == NULL)
      break;
  if (*p == '\0' && *s != '\0')
    return s;
  out = g_string_new ("\"");
  for (p = s; *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_c (out, '\\');
    g_string_append_c (out, *p);
  }
  g_string_append_c (out, '"');
  quoted = g_string_free (out, FALSE);
  g_free (s);
  return quoted;
}

/* The windows set on a stencil's request pads: `sink_1::window="p"`. */
static void
append_pad_windows (GString * out, GstElement * element)
{
  GList *l;

  GST_OBJECT_LOCK (element);
  for (l = element->sinkpads; l != NULL; l = l->next) {
    GValue value = G_VALUE_INIT;
    gchar *s;

    if (g_object_class_find_property (G_OBJECT_GET_CLASS (l->data),
            "window") == NULL)
      continue;
    g_value_init (&value, G_TYPE_STRING);
    g_object_get_property (l->data, "window", &value);
    if (g_value_get_string (&value) != NULL
        && (s = launch_value (&value)) != NULL) {
      g_string_append_printf (out, " %s::window=%s",
          GST_OBJECT_NAME (l->data), s);
      g_free (s);
    }
    g_value_unset (&value);
  }
  GST_OBJECT_UNLOCK (element);
}

/* @element as gst-launch declares it: its factory, name and every
 * property that differs from a new element's (which is what the parser
 * starts from). */
static void
append_element (GString * out, GstElement * element)
{
  GObject *fresh = g_object_new (G_OBJECT_TYPE (element), NULL);
  GParamSpec **specs;
  guint n, i;

  g_string_append_printf (out, " %s name=%s", _plan_work_factory_name (element),
      GST_OBJECT_NAME (element));
  specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (element), &n);
  for (i = 0; i < n; i++) {
    GValue value = G_VALUE_INIT, def = G_VALUE_INIT;
    gchar *s;

    if (!(specs[i]->flags & G_PARAM_WRITABLE)
        || (specs[i]->flags & G_PARAM_CONSTRUCT_ONLY)
        || strcmp (specs[i]->name, "name") == 0
        || strcmp (specs[i]->name, "parent") == 0)
      continue;
    g_value_init (&value, specs[i]->value_type);
    g_value_init (&def, specs[i]->value_type);
    g_object_get_property (G_OBJECT (element), specs[i]->name, &value);
    g_object_get_property (fresh, specs[i]->name, &def);
    if (g_param_values_cmp (specs[i], &value, &def) != 0
        && (s = launch_value (&value)) != NULL) {
      g_string_append_printf (out, " %s=%s", specs[i]->name, s);
      g_free (s);
    }
    g_value_unset (&value);
    g_value_unset (&def);
  }
  g_free (specs);
  gst_object_unref (gst_object_ref_sink (fresh));
  append_pad_windows (out, element);
}

/**
 * plan_work_to_launch_string:
 * @work: a #PlanWork
 *
 * The pipeline as a gst-launch-1.0 description: every element with the
 * properties that differ from their defaults, then every link. Parsed
 * with gst_parse_launch() it builds the same pipeline; with files bound
 * (after a dispatch on files) it runs as it is, and computes the same
 * results. planarraysrc and planarraysink elements are fed and read
 * through their own API.
 *
 * Returns: (transfer full): the description.
 *
 * Since: 0.1
 */
gchar *
plan_work_to_launch_string (PlanWork * work)
{
  GString *out = g_string_new (NULL);
  GstIterator *it;
  GValue item = G_VALUE_INIT;
  GPtrArray *elements = g_ptr_array_new ();
  guint i;

  g_return_val_if_fail (PLAN_IS_WORK (work), NULL);

  /* gst_bin_iterate_elements gives the elements last added first. */
  it = gst_bin_iterate_elements (GST_BIN (work->pipeline));
  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    g_ptr_array_insert (elements, 0, g_value_get_object (&item));
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  for (i = 0; i < elements->len; i++)
    append_element (out, g_ptr_array_index (elements, i));
  g_ptr_array_unref (elements);
  g_string_append (out, work->links->str);
  if (out->len > 0)
    g_string_erase (out, 0, 1);
  return g_string_free (out, FALSE);
}
