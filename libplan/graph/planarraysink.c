/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-planarraysink
 * @title: planarraysink
 * @short_description: collect an array/x-raw stream into an in-memory
 *   array, or hand its chunks to an application's writer
 *
 * planarraysink is the sink of a plan bound to memory. It works in one of
 * three modes, chosen by what the application set before the run:
 *
 * - An output array (plan_array_sink_set_array()): the rows are copied
 *   into the caller's writable #PlanArray, each at its row index. The
 *   stream must have the array's dtype and row shape and exactly as many
 *   rows as the array.
 * - A chunk writer (plan_array_sink_set_writer()): each buffer is handed
 *   to the writer, in row order, as a read-only #PlanArray over the
 *   buffer's memory (no copy) with the index of its first row. The writer
 *   may keep a reference to the array; the buffer stays mapped and alive
 *   as long as it does.
 * - Neither: the sink allocates a new #PlanArray of the stream's dtype and
 *   shape and collects the rows into it. When the caps or an upstream
 *   duration query (%GST_FORMAT_DEFAULT) give the number of rows, the
 *   array is allocated once at that size, aligned as plan_array_new()
 *   aligns; otherwise it grows geometrically, and is cut to the rows
 *   received at the end (its data is then aligned at least as malloc()
 *   aligns).
 *
 * plan_array_sink_get_array() gives the result (the caller's array or the
 * allocated one) once the stream has ended: it is set before the EOS
 * message is posted, and kept until the next run starts (READY to PAUSED),
 * so it can be read after the pipeline was stopped. Each run starts
 * afresh: the row count goes back to zero and allocate mode allocates a
 * new array. A flush (a flushing seek) starts the run over the same way:
 * the rows after it go to the output array from its first row.
 *
 * Buffers must come in row order without gaps: GST_BUFFER_OFFSET is the
 * number of rows received before the buffer, or GST_BUFFER_OFFSET_NONE,
 * which is taken to follow on. A 0-d stream (caps `shape=<>`) is one
 * buffer of one value and gives a 0-d array.
 *
 * #GstBaseSink:sync is %FALSE by default: arrays have no timestamps to
 * wait for. #GstBaseSink:async is %FALSE by default too: the sink has no
 * clock to preroll for, and a branch that produces only at EOS (a
 * planreduce beside a planmap's output, after a tee) must not hold the
 * whole pipeline in PAUSED waiting for its first buffer.
 * #GstBaseSink:enable-last-sample is %FALSE, so that the sink holds no
 * buffer (and no upstream memory) between runs.
 *
 * The writer is called from the streaming thread; everything else may be
 * called from any thread, and the setters in the NULL or READY state only.
 *
 * ## Errors
 *
 * - An output array that is read-only: resource/settings, when the run
 *   starts.
 * - Caps whose dtype or row shape differ from the output array's:
 *   core/negotiation, naming both.
 * - More rows than the output array has, fewer at EOS, or (in the other
 *   modes) fewer at EOS than the caps announced, or rows out of order:
 *   stream/failed.
 * - A writer that returns %FALSE: resource/write, with its message.
 *
 * ## Example of use from C
 *
 * |[<!-- language="C" -->
 * static gboolean
 * write_rows (PlanArray * chunk, guint64 first_row, gpointer user_data,
 *     GError ** error)
 * {
 *   gsize size;
 *   const gfloat *v = plan_array_get_data (chunk, &size);
 *
 *   // ... use rows first_row to first_row + plan_array_get_n_rows (chunk)
 *   return TRUE;
 * }
 *
 * GstElement *pipeline = gst_parse_launch (
 *     "planfilesrc location=in.npy ! planarraysink name=out", NULL);
 * GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
 *
 * plan_array_sink_set_writer (PLAN_ARRAY_SINK (sink), write_rows, NULL,
 *     NULL);
 * // or, to collect the whole array:
 * //   plan_array_sink_set_writer (PLAN_ARRAY_SINK (sink), NULL, NULL, NULL);
 * //   ... run to EOS, then
 * //   PlanArray *result = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
 * ]|
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "graph-private.h"

#include <libplan/planerror.h>
#include <libplan/plankernelelement.h>
#include <libplan/plansink.h>

#include <stdlib.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (plan_array_sink_debug);
#define GST_CAT_DEFAULT plan_array_sink_debug

/* Only OBJECT_LOCK is taken here, never while calling the writer. */

/* The first allocation when the number of rows is not known. */
#define MIN_GROW_SIZE (64 << 10)

typedef enum
{
  MODE_ARRAY,
  MODE_WRITER,
  MODE_ALLOCATE,
} SinkMode;

struct _PlanArraySink
{
  GstBaseSink parent;

  /* protected by OBJECT_LOCK; the bindings change only in the NULL and
   * READY states */
  PlanArray *array;
  PlanChunkWriteFunc write_func;
  gpointer write_user_data;
  GDestroyNotify write_notify;
  PlanArray *result;            /* set at a successful EOS */
  guint64 n_rows;               /* rows received in this run */

  /* streaming thread only (STREAM_LOCK); set on READY to PAUSED, cleared
   * on PAUSED to READY. run_user_data stays valid for the run since the
   * binding cannot change before then. */
  SinkMode mode;
  PlanArray *target;            /* MODE_ARRAY: the caller's array */
  PlanChunkWriteFunc run_func;  /* MODE_WRITER */
  gpointer run_user_data;
  gboolean have_info;
  PlanArrayInfo info;           /* from the caps */
  gsize row_size;
  guint8 *alloc_data;           /* MODE_ALLOCATE: from malloc() */
  gsize alloc_capacity;         /* bytes */
  PlanArray *alloc_array;       /* MODE_ALLOCATE, when the length was known
                                 * ahead: owns alloc_data, lent upstream */
  guint64 seg_first;            /* the first row the segment selects: the
                                 * stream's row that goes to row 0 */
  gint64 seg_end;               /* one past its last, -1: to the end */
  gchar *label;                 /* what errors call the sink (the plan
                                 * API's output); NULL: its name */
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (PLAN_ARRAY_CAPS_ANY));

#define plan_array_sink_parent_class parent_class
G_DEFINE_TYPE (PlanArraySink, plan_array_sink, GST_TYPE_BASE_SINK);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (planarraysink, "planarraysink",
    GST_RANK_NONE, PLAN_TYPE_ARRAY_SINK,
    GST_DEBUG_CATEGORY_INIT (plan_array_sink_debug, "planarraysink", 0,
        "In-memory array sink"));

static void plan_array_sink_dispose (GObject * object);
static GstStateChangeReturn plan_array_sink_change_state (GstElement *
    element, GstStateChange transition);
static gboolean plan_array_sink_set_caps (GstBaseSink * sink, GstCaps * caps);
static gboolean plan_array_sink_event (GstBaseSink * sink, GstEvent * event);
static gboolean plan_array_sink_query (GstBaseSink * sink, GstQuery * query);
static GstFlowReturn plan_array_sink_render (GstBaseSink * sink,
    GstBuffer * buffer);

static void
plan_array_sink_class_init (PlanArraySinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *basesink_class = GST_BASE_SINK_CLASS (klass);

  gobject_class->dispose = plan_array_sink_dispose;

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class, "Array sink",
      "Sink/Array",
      "Collects an array stream into an application's in-memory array or a "
      "new one, or hands its chunks to the application's writer without "
      "copying them (set from C with plan_array_sink_set_array or "
      "plan_array_sink_set_writer; the result is plan_array_sink_get_array)",
      PLAN_CONTACT);
  gst_element_class_add_static_metadata (element_class,
      GST_ELEMENT_METADATA_DOC_URI, PLAN_DOC_URI "/planarraysink.md");

  element_class->change_state =
      GST_DEBUG_FUNCPTR (plan_array_sink_change_state);
  basesink_class->set_caps = GST_DEBUG_FUNCPTR (plan_array_sink_set_caps);
  basesink_class->event = GST_DEBUG_FUNCPTR (plan_array_sink_event);
  basesink_class->render = GST_DEBUG_FUNCPTR (plan_array_sink_render);
  basesink_class->query = GST_DEBUG_FUNCPTR (plan_array_sink_query);
}

static void
plan_array_sink_init (PlanArraySink * self)
{
  plan_array_info_init (&self->info);
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
  gst_base_sink_set_async_enabled (GST_BASE_SINK (self), FALSE);
  gst_base_sink_set_last_sample_enabled (GST_BASE_SINK (self), FALSE);
}

/* Must be called with OBJECT_LOCK held. Returns the old writer's notify
 * and user data, to call once the lock is released. */
static GDestroyNotify
clear_binding_unlocked (PlanArraySink * self, gpointer * user_data)
{
  GDestroyNotify notify = self->write_notify;

  *user_data = self->write_user_data;
  g_clear_object (&self->array);
  /* A new binding is for the next run: the last run's result is the
   * caller's to keep now, and no longer held here. */
  g_clear_object (&self->result);
  self->write_func = NULL;
  self->write_user_data = NULL;
  self->write_notify = NULL;
  return notify;
}

/* Called on PAUSED to READY, when the streaming thread has left, and on
 * dispose. */
static void
end_run (PlanArraySink * self)
{
  g_clear_object (&self->target);
  self->run_func = NULL;
  self->run_user_data = NULL;
  if (self->alloc_array != NULL)
    self->alloc_data = NULL;
  g_clear_object (&self->alloc_array);
  g_clear_pointer (&self->alloc_data, free);
  self->alloc_capacity = 0;
  self->have_info = FALSE;
}

static void
plan_array_sink_dispose (GObject * object)
{
  PlanArraySink *self = PLAN_ARRAY_SINK (object);
  GDestroyNotify notify;
  gpointer user_data;

  end_run (self);
  GST_OBJECT_LOCK (self);
  notify = clear_binding_unlocked (self, &user_data);
  g_clear_object (&self->result);
  GST_OBJECT_UNLOCK (self);
  if (notify)
    notify (user_data);
  g_clear_pointer (&self->label, g_free);

  G_OBJECT_CLASS (parent_class)->dispose (object);
}

/**
 * plan_array_sink_set_array:
 * @sink: a #PlanArraySink
 * @array: (transfer none) (nullable): a writable array to fill, or %NULL
 *   to unbind (and collect into a new array)
 *
 * Makes @sink put the rows of the next runs into @array, replacing the
 * array or writer it had: a kernel element upstream computes them there
 * (#PLAN_QUERY_OUTPUT_ROWS); other rows are copied in. The stream must
 * have the dtype and row shape of
 * @array and exactly its number of rows. @sink holds a reference to
 * @array. A read-only @array fails the next run at its start.
 *
 * Call this in the NULL or READY state. Takes the object lock.
 *
 * Since: 0.1
 */
void
plan_array_sink_set_array (PlanArraySink * sink, PlanArray * array)
{
  GDestroyNotify notify;
  gpointer user_data;

  g_return_if_fail (PLAN_IS_ARRAY_SINK (sink));
  g_return_if_fail (array == NULL || PLAN_IS_ARRAY (array));

  GST_OBJECT_LOCK (sink);
  if (!_plan_element_is_settable_unlocked (GST_ELEMENT (sink), G_STRFUNC)) {
    GST_OBJECT_UNLOCK (sink);
    return;
  }
  notify = clear_binding_unlocked (sink, &user_data);
  sink->array = array ? g_object_ref (array) : NULL;
  GST_OBJECT_UNLOCK (sink);

  if (notify)
    notify (user_data);
  if (array && !plan_array_is_writable (array))
    GST_WARNING_OBJECT (sink, "the output array is read-only; the next run "
        "will fail");
}

/**
 * plan_array_sink_set_writer:
 * @sink: a #PlanArraySink
 * @func: (scope notified) (closure user_data) (destroy notify) (nullable):
 *   the writer, or %NULL to unbind (and collect into a new array)
 * @user_data: the argument of @func and @notify
 * @notify: (nullable): called with @user_data when @func is no longer
 *   used: when it is replaced or @sink is disposed
 *
 * Makes @sink hand the chunks of the next runs to @func, replacing the
 * array or writer it had. See #PlanChunkWriteFunc for when @func is
 * called.
 *
 * Call this in the NULL or READY state. Takes the object lock.
 *
 * Since: 0.1
 */
void
plan_array_sink_set_writer (PlanArraySink * sink, PlanChunkWriteFunc func,
    gpointer user_data, GDestroyNotify notify)
{
  GDestroyNotify old_notify;
  gpointer old_user_data;

  g_return_if_fail (PLAN_IS_ARRAY_SINK (sink));

  GST_OBJECT_LOCK (sink);
  if (!_plan_element_is_settable_unlocked (GST_ELEMENT (sink), G_STRFUNC)) {
    GST_OBJECT_UNLOCK (sink);
    return;
  }
  old_notify = clear_binding_unlocked (sink, &old_user_data);
  if (func) {
    sink->write_func = func;
    sink->write_user_data = user_data;
    sink->write_notify = notify;
  }
  GST_OBJECT_UNLOCK (sink);

  if (old_notify)
    old_notify (old_user_data);
}

/**
 * plan_array_sink_get_array:
 * @sink: a #PlanArraySink
 *
 * Gives the array the last run produced: the output array set with
 * plan_array_sink_set_array(), or the array allocated when neither an
 * array nor a writer was set. It is there from the end of the stream
 * (before the EOS message is posted) until the next run starts or the sink
 * is bound again. Takes the object lock.
 *
 * Returns: (transfer full) (nullable): the result, or %NULL before the end
 *   of the stream, after a failed run, and in writer mode.
 *
 * Since: 0.1
 */
PlanArray *
plan_array_sink_get_array (PlanArraySink * sink)
{
  PlanArray *result;

  g_return_val_if_fail (PLAN_IS_ARRAY_SINK (sink), NULL);

  GST_OBJECT_LOCK (sink);
  result = sink->result ? g_object_ref (sink->result) : NULL;
  GST_OBJECT_UNLOCK (sink);
  return result;
}

/**
 * plan_array_sink_get_n_rows:
 * @sink: a #PlanArraySink
 *
 * Takes the object lock.
 *
 * Returns: the number of rows received in the current run, or in the last
 *   one once it has stopped (1 for a 0-d stream).
 *
 * Since: 0.1
 */
guint64
plan_array_sink_get_n_rows (PlanArraySink * sink)
{
  guint64 n_rows;

  g_return_val_if_fail (PLAN_IS_ARRAY_SINK (sink), 0);

  GST_OBJECT_LOCK (sink);
  n_rows = sink->n_rows;
  GST_OBJECT_UNLOCK (sink);
  return n_rows;
}

/* Starts a run on READY to PAUSED (GstBaseSink's start() runs on NULL to
 * READY, once for many runs). */
static gboolean
begin_run (PlanArraySink * self)
{
  GST_OBJECT_LOCK (self);
  self->target = self->array ? g_object_ref (self->array) : NULL;
  self->run_func = self->write_func;
  self->run_user_data = self->write_user_data;
  g_clear_object (&self->result);
  self->n_rows = 0;
  GST_OBJECT_UNLOCK (self);

  if (self->target && !plan_array_is_writable (self->target))
    goto read_only;

  if (self->target)
    self->mode = MODE_ARRAY;
  else if (self->run_func)
    self->mode = MODE_WRITER;
  else
    self->mode = MODE_ALLOCATE;
  self->have_info = FALSE;
  self->seg_first = 0;
  self->seg_end = -1;
  return TRUE;

  /* ERRORS */
read_only:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("The output array of %s is read-only", GST_OBJECT_NAME (self)),
        ("it was made read-only (plan_array_new_from_bytes(), or "
            "writable=FALSE): bind a writable array, or none for the sink "
            "to allocate one"));
    g_clear_object (&self->target);
    return FALSE;
  }
}

static GstStateChangeReturn
plan_array_sink_change_state (GstElement * element, GstStateChange transition)
{
  PlanArraySink *self = PLAN_ARRAY_SINK (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED && !begin_run (self))
    return GST_STATE_CHANGE_FAILURE;

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);

  /* The streaming thread has left render by now: GstBaseSink deactivated
   * the pad (READY_TO_PAUSED failing does the same). */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY
      || (transition == GST_STATE_CHANGE_READY_TO_PAUSED
          && ret == GST_STATE_CHANGE_FAILURE))
    end_run (self);
  return ret;
}

/* Aligned as plan_array_new() aligns; the block may be realloc()ed. */
static gpointer
alloc_aligned (gsize size)
{
  gpointer data;

  if (posix_memalign (&data, size >= (1 << 20) ? 4096 : 64, size) != 0)
    return NULL;
  return data;
}

static gboolean
grow (PlanArraySink * self, gsize needed)
{
  gsize capacity = MAX (self->alloc_capacity, MIN_GROW_SIZE / 2);
  guint8 *data;

  if (needed <= self->alloc_capacity)
    return TRUE;
  while (capacity < needed)
    capacity = capacity > G_MAXSIZE / 2 ? needed : capacity * 2;
  if (self->alloc_array != NULL) {
    /* More rows than announced: the lent array stays with the buffers
     * over it, the rows move to a block of our own. */
    data = alloc_aligned (capacity);
    if (data != NULL) {
      memcpy (data, self->alloc_data, self->alloc_capacity);
      self->alloc_data = NULL;
      g_clear_object (&self->alloc_array);
    }
  } else if (self->alloc_data == NULL)
    data = alloc_aligned (capacity);
  else
    data = realloc (self->alloc_data, capacity);
  if (data == NULL) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Cannot allocate %" G_GSIZE_FORMAT " bytes for the output array "
            "of %s", capacity, GST_OBJECT_NAME (self)), (NULL));
    return FALSE;
  }
  self->alloc_data = data;
  self->alloc_capacity = capacity;
  return TRUE;
}

/* Allocates the output array once when the caps or upstream tell its
 * length; a wrong duration only costs a reallocation. */
static gboolean
preallocate (PlanArraySink * self)
{
  gint64 n_rows = plan_array_info_get_n_rows (&self->info);
  gint64 shape[PLAN_ARRAY_MAX_DIMS];

  if (n_rows < 0 && !gst_pad_peer_query_duration (GST_BASE_SINK_PAD (self),
          GST_FORMAT_DEFAULT, &n_rows))
    n_rows = -1;
  if (n_rows <= 0)
    return TRUE;
  if ((guint64) n_rows > G_MAXSIZE / self->row_size)
    goto too_large;
  GST_DEBUG_OBJECT (self, "allocating %" G_GINT64_FORMAT " rows", n_rows);
  self->alloc_data = alloc_aligned (self->row_size * (gsize) n_rows);
  if (self->alloc_data == NULL)
    goto too_large;
  self->alloc_capacity = self->row_size * (gsize) n_rows;
  /* As an array, its rows can be lent upstream (PLAN_QUERY_OUTPUT_ROWS)
   * and stay valid however long a lent buffer lives. */
  memcpy (shape, self->info.shape, sizeof (shape));
  if (self->info.ndim > 0)
    shape[0] = n_rows;
  self->alloc_array = plan_array_new_wrapped (self->alloc_data,
      self->alloc_capacity, self->info.dtype, self->info.ndim, shape,
      self->alloc_data, free, NULL);
  if (self->alloc_array == NULL)
    g_clear_pointer (&self->alloc_data, free);
  return self->alloc_array != NULL || (self->alloc_capacity = 0, TRUE);

  /* ERRORS */
too_large:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Cannot allocate an output array of %" G_GINT64_FORMAT " rows of %"
            G_GSIZE_FORMAT " bytes for %s", n_rows, self->row_size,
            GST_OBJECT_NAME (self)), (NULL));
    return FALSE;
  }
}

static gboolean
check_target (PlanArraySink * self)
{
  const PlanArrayInfo *want = plan_array_get_info (self->target);
  gchar *got_s, *want_s;

  if (want->dtype == self->info.dtype
      && plan_array_info_same_rows (want, &self->info))
    return TRUE;

  got_s = plan_array_info_to_string (&self->info);
  want_s = plan_array_info_to_string (want);
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("%s cannot write a stream of %s into its output array of %s",
          GST_OBJECT_NAME (self), got_s, want_s),
      ("the dtype and the inner axes must be the same"));
  g_free (got_s);
  g_free (want_s);
  return FALSE;
}

static gboolean
plan_array_sink_set_caps (GstBaseSink * sink, GstCaps * caps)
{
  PlanArraySink *self = PLAN_ARRAY_SINK (sink);
  PlanArrayInfo info;
  GError *err = NULL;
  gchar *got_s, *had_s;

  if (!plan_array_info_from_caps (&info, caps, &err))
    goto bad_caps;
  if (self->have_info && (info.dtype != self->info.dtype
          || !plan_array_info_same_rows (&info, &self->info)))
    goto changed;

  self->info = info;
  self->row_size = plan_array_info_get_row_size (&info);
  if (self->mode == MODE_ARRAY && !check_target (self))
    return FALSE;
  if (self->mode == MODE_ALLOCATE && !self->have_info && !preallocate (self))
    return FALSE;
  self->have_info = TRUE;
  return TRUE;

  /* ERRORS */
bad_caps:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", err->message),
        ("%" GST_PTR_FORMAT, caps));
    g_error_free (err);
    return FALSE;
  }
changed:
  {
    got_s = plan_array_info_to_string (&info);
    had_s = plan_array_info_to_string (&self->info);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The stream into %s changed from %s to %s in the middle",
            GST_OBJECT_NAME (self), had_s, got_s), (NULL));
    g_free (got_s);
    g_free (had_s);
    return FALSE;
  }
}

/* Copies @buffer's rows to @dest, unless they were computed there: in
 * memory this sink lent upstream (PLAN_QUERY_OUTPUT_ROWS). */
static GstFlowReturn
copy_rows (PlanArraySink * self, GstBuffer * buffer, guint8 * dest)
{
  GstMapInfo map;

  if (!gst_buffer_map (buffer, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("%s cannot map a buffer of %"
            G_GSIZE_FORMAT " bytes for reading", GST_OBJECT_NAME (self),
            gst_buffer_get_size (buffer)), (NULL));
    return GST_FLOW_ERROR;
  }
  if (map.data != dest)
    memcpy (dest, map.data, map.size);
  else
    GST_LOG_OBJECT (self, "rows computed in place");
  gst_buffer_unmap (buffer, &map);
  return GST_FLOW_OK;
}

/* The array rows @offset.. of @row_size bytes go to, when upstream may
 * compute them there: the caller's array, or the one allocated for a
 * stream of known length. */
static PlanArray *
lendable_array (PlanArraySink * self, guint64 offset, guint64 n_rows,
    gsize row_size)
{
  PlanArray *array = self->mode == MODE_ARRAY ? self->target :
      self->mode == MODE_ALLOCATE ? self->alloc_array : NULL;
  const PlanArrayInfo *info;
  gint64 rows;

  if (array == NULL || offset < self->seg_first)
    return NULL;
  /* The stream's rows from the segment's first go from row 0. */
  offset -= self->seg_first;
  info = plan_array_get_info (array);
  rows = info->ndim == 0 ? 1 : info->shape[0];
  if (plan_array_info_get_row_size (info) != row_size
      || offset + n_rows > (guint64) rows || n_rows == 0)
    return NULL;
  return array;
}

static gboolean
plan_array_sink_query (GstBaseSink * sink, GstQuery * query)
{
  PlanArraySink *self = PLAN_ARRAY_SINK (sink);
  guint64 offset, n_rows;
  gsize row_size;
  PlanArray *array;
  GstBuffer *buffer;
  guint8 *data;

  if (!plan_query_parse_output_rows (query, &offset, &n_rows, &row_size))
    return GST_BASE_SINK_CLASS (parent_class)->query (sink, query);

  array = lendable_array (self, offset, n_rows, row_size);
  if (array == NULL)
    return FALSE;
  offset -= self->seg_first;
  data = plan_array_get_writable_data (array, NULL);
  buffer = gst_buffer_new_wrapped_full (0, data + offset * row_size,
      n_rows * row_size, 0, n_rows * row_size, g_object_ref (array),
      g_object_unref);
  plan_query_set_output_rows_buffer (query, buffer);
  gst_buffer_unref (buffer);
  GST_LOG_OBJECT (self, "lent rows %" G_GUINT64_FORMAT "+%" G_GUINT64_FORMAT,
      offset, n_rows);
  return TRUE;
}

static GstFlowReturn
render_into_array (PlanArraySink * self, GstBuffer * buffer, guint64 first,
    gsize n)
{
  guint64 capacity = plan_array_get_n_rows (self->target);
  guint8 *data;

  if (first + n > capacity)
    goto too_small;
  data = plan_array_get_writable_data (self->target, NULL);
  return copy_rows (self, buffer, data + first * self->row_size);

  /* ERRORS */
too_small:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("The output array of %" G_GUINT64_FORMAT " rows is too small: got "
            "row %" G_GUINT64_FORMAT, capacity, first + n - 1),
        ("in %s", GST_OBJECT_NAME (self)));
    return GST_FLOW_ERROR;
  }
}

typedef struct
{
  GstBuffer *buffer;
  GstMapInfo map;
} MappedBuffer;

static void
unmap_buffer (gpointer data)
{
  MappedBuffer *mapped = data;

  gst_buffer_unmap (mapped->buffer, &mapped->map);
  gst_buffer_unref (mapped->buffer);
  g_free (mapped);
}

/* A read-only array over the mapped memory of @buffer; the buffer stays
 * mapped, and alive, as long as the array. */
static PlanArray *
wrap_buffer (PlanArraySink * self, GstBuffer * buffer, gsize n, GError ** error)
{
  MappedBuffer *mapped = g_new (MappedBuffer, 1);
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  PlanArray *chunk;
  GBytes *bytes;

  if (!gst_buffer_map (buffer, &mapped->map, GST_MAP_READ)) {
    g_free (mapped);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "%s cannot map a buffer "
        "of %" G_GSIZE_FORMAT " rows for reading", GST_OBJECT_NAME (self), n);
    return NULL;
  }
  mapped->buffer = gst_buffer_ref (buffer);
  bytes = g_bytes_new_with_free_func (mapped->map.data, mapped->map.size,
      unmap_buffer, mapped);

  memcpy (shape, self->info.shape, sizeof (shape));
  if (self->info.ndim > 0)
    shape[0] = n;
  chunk = plan_array_new_from_bytes (bytes, self->info.dtype, self->info.ndim,
      shape, error);
  g_bytes_unref (bytes);
  return chunk;
}

static GstFlowReturn
render_to_writer (PlanArraySink * self, GstBuffer * buffer, guint64 first,
    gsize n)
{
  GError *err = NULL;
  GstElement *previous;
  PlanArray *chunk;
  gboolean ok;

  chunk = wrap_buffer (self, buffer, n, &err);
  if (chunk == NULL)
    goto wrap_failed;
  previous = _plan_thread_enter_callback (GST_ELEMENT (self));
  ok = self->run_func (chunk, first, self->run_user_data, &err);
  _plan_thread_leave_callback (previous);
  g_object_unref (chunk);
  /* An error is the writer's answer, whatever it returned beside it. */
  if (!ok || err != NULL)
    goto write_failed;
  return GST_FLOW_OK;

  /* ERRORS */
wrap_failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", err->message), (NULL));
    g_error_free (err);
    return GST_FLOW_ERROR;
  }
write_failed:
  {
    if (err == NULL)
      GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
          ("The writer of %s failed at row %" G_GUINT64_FORMAT,
              self->label ? self->label : GST_OBJECT_NAME (self), first),
          ("the writer returned FALSE without setting an error"));
    else
      GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("%s", err->message),
          ("the writer of %s failed at row %" G_GUINT64_FORMAT,
              self->label ? self->label : GST_OBJECT_NAME (self), first));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
}

static GstFlowReturn
render_allocate (PlanArraySink * self, GstBuffer * buffer, guint64 first,
    gsize n)
{
  if (first + n > G_MAXSIZE / self->row_size)
    goto too_large;
  if (!grow (self, (first + n) * self->row_size))
    return GST_FLOW_ERROR;
  return copy_rows (self, buffer, self->alloc_data + first * self->row_size);

  /* ERRORS */
too_large:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("The output array of %s cannot hold %" G_GUINT64_FORMAT " rows",
            GST_OBJECT_NAME (self), first + n), (NULL));
    return GST_FLOW_ERROR;
  }
}

static GstFlowReturn
plan_array_sink_render (GstBaseSink * sink, GstBuffer * buffer)
{
  PlanArraySink *self = PLAN_ARRAY_SINK (sink);
  gsize size = gst_buffer_get_size (buffer);
  guint64 first;
  GstFlowReturn ret;
  gsize n;

  if (!self->have_info)
    goto not_negotiated;
  if (size % self->row_size != 0)
    goto partial_row;
  n = size / self->row_size;

  GST_OBJECT_LOCK (self);
  first = self->n_rows;
  GST_OBJECT_UNLOCK (self);
  /* Buffers carry the stream's row index; after a seek, the segment's
   * first row is the output's row 0. */
  if (GST_BUFFER_OFFSET_IS_VALID (buffer)
      && GST_BUFFER_OFFSET (buffer) != self->seg_first + first)
    goto out_of_order;
  if (n == 0)
    return GST_FLOW_OK;
  if (self->info.ndim == 0 && first + n > 1)
    goto too_many_values;

  GST_LOG_OBJECT (self, "rows %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT,
      first, first + n);
  switch (self->mode) {
    case MODE_ARRAY:
      ret = render_into_array (self, buffer, first, n);
      break;
    case MODE_WRITER:
      ret = render_to_writer (self, buffer, first, n);
      break;
    default:
      ret = render_allocate (self, buffer, first, n);
      break;
  }
  if (ret != GST_FLOW_OK)
    return ret;

  GST_OBJECT_LOCK (self);
  self->n_rows = first + n;
  GST_OBJECT_UNLOCK (self);
  return GST_FLOW_OK;

  /* ERRORS */
not_negotiated:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("%s received data before caps", GST_OBJECT_NAME (self)), (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }
partial_row:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("%s received a buffer of %" G_GSIZE_FORMAT " bytes, not whole rows "
            "of %" G_GSIZE_FORMAT " bytes", GST_OBJECT_NAME (self), size,
            self->row_size), (NULL));
    return GST_FLOW_ERROR;
  }
out_of_order:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("%s received rows %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT
            " where row %" G_GUINT64_FORMAT " was due: rows are missing or "
            "out of order", GST_OBJECT_NAME (self), GST_BUFFER_OFFSET (buffer),
            GST_BUFFER_OFFSET (buffer) + n, self->seg_first + first), (NULL));
    return GST_FLOW_ERROR;
  }
too_many_values:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("%s received %" G_GUINT64_FORMAT " values of a 0-d stream, which "
            "holds one", GST_OBJECT_NAME (self), first + n), (NULL));
    return GST_FLOW_ERROR;
  }
}

/* Wraps the collected rows in the result array, cutting the allocation
 * to their size. */
static PlanArray *
take_allocated (PlanArraySink * self, guint64 n_rows, GError ** error)
{
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  gsize size = n_rows * self->row_size;
  PlanArray *array;
  guint8 *data;

  memcpy (shape, self->info.shape, sizeof (shape));
  if (self->info.ndim > 0)
    shape[0] = n_rows;
  if (size == 0)
    return plan_array_new (self->info.dtype, self->info.ndim, shape, error);
  if (self->alloc_array != NULL && size == self->alloc_capacity) {
    array = self->alloc_array;
    self->alloc_array = NULL;
    self->alloc_data = NULL;
    self->alloc_capacity = 0;
    return array;
  }
  if (self->alloc_array != NULL) {
    /* Fewer rows than announced: a copy of the rows that came. */
    array = plan_array_new (self->info.dtype, self->info.ndim, shape, error);
    if (array != NULL)
      memcpy (plan_array_get_writable_data (array, NULL), self->alloc_data,
          size);
    return array;
  }

  /* Shrinking keeps the block in place in practice; if not, the rows are
   * moved with it. */
  data = self->alloc_data;
  if (self->alloc_capacity > size && (data = realloc (data, size)) == NULL)
    data = self->alloc_data;
  array = plan_array_new_wrapped (data, size, self->info.dtype,
      self->info.ndim, shape, data, free, error);
  if (array == NULL) {
    /* The block is still ours, and may have moved. */
    self->alloc_data = data;
    return NULL;
  }
  self->alloc_data = NULL;
  self->alloc_capacity = 0;
  return array;
}

/* GstBaseSrc pushes EOS after a fatal flow error too, so EOS alone does
 * not mean success: the rows must be all the output array (or the caps)
 * asked for, unless @eos was marked as ending the stream early on purpose
 * (PLAN_EOS_ENDED_EARLY: the application sent it), where the rows that
 * came are the result, as planfilesink writes them. */
static gboolean
finish_run (PlanArraySink * self, GstEvent * eos)
{
  GError *err = NULL;
  PlanArray *result = NULL;
  gint64 expected = -1;
  guint64 n_rows, end_row;

  GST_OBJECT_LOCK (self);
  n_rows = self->n_rows;
  GST_OBJECT_UNLOCK (self);

  if (self->mode == MODE_ARRAY)
    expected = plan_array_get_n_rows (self->target);
  else if (self->have_info)
    expected = plan_array_info_get_n_rows (&self->info);
  else if (self->mode == MODE_ALLOCATE)
    goto no_caps;
  /* After a seek, the rows its segment selects. */
  if (self->seg_end >= 0 && (expected < 0 || self->seg_end < expected))
    expected = self->seg_end;
  if (expected >= 0)
    expected = MAX (0, expected - (gint64) self->seg_first);
  if (plan_eos_is_ended_early (eos, &end_row))
    GST_INFO_OBJECT (self, "the stream was ended early at row %"
        G_GUINT64_FORMAT ": the result is the %" G_GUINT64_FORMAT
        " rows received", end_row, n_rows);
  else if (expected >= 0 && n_rows < (guint64) expected)
    goto cut_short;

  if (self->mode == MODE_ARRAY)
    result = g_object_ref (self->target);
  else if (self->mode == MODE_ALLOCATE
      && (result = take_allocated (self, n_rows, &err)) == NULL)
    goto no_result;

  GST_DEBUG_OBJECT (self, "stream ended after %" G_GUINT64_FORMAT " rows",
      n_rows);
  GST_OBJECT_LOCK (self);
  g_clear_object (&self->result);
  self->result = result;
  GST_OBJECT_UNLOCK (self);
  return TRUE;

  /* ERRORS */
no_caps:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("The stream into %s ended before it said what it holds (no caps)",
            GST_OBJECT_NAME (self)), (NULL));
    return FALSE;
  }
cut_short:
  {
    if (self->mode == MODE_ARRAY)
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("The output array of %" G_GINT64_FORMAT " rows got only %"
              G_GUINT64_FORMAT " rows: the stream was cut short (by an "
              "error upstream?)", expected, n_rows),
          ("in %s", GST_OBJECT_NAME (self)));
    else
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("The stream into %s ended after %" G_GUINT64_FORMAT " of the %"
              G_GINT64_FORMAT " rows it announced, so it was cut short (by "
              "an error upstream?)", GST_OBJECT_NAME (self), n_rows,
              expected), (NULL));
    return FALSE;
  }
no_result:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", err->message), (NULL));
    g_error_free (err);
    return FALSE;
  }
}

/* A flush starts the run over, as a new run would start, with the binding
 * set now: the rows of the new segment go to the output array from row 0
 * (a seek), or to the array _plan_array_sink_rebind() gave (the plan API
 * restarting the pipeline for its next dispatch). The caps stay. */
static gboolean
restart_run (PlanArraySink * self)
{
  PlanArrayInfo info = self->info;
  gboolean have_info = self->have_info;

  end_run (self);
  if (!begin_run (self))
    return FALSE;
  if (!have_info)
    return TRUE;
  self->info = info;
  self->row_size = plan_array_info_get_row_size (&info);
  if (self->mode == MODE_ARRAY && !check_target (self))
    return FALSE;
  if (self->mode == MODE_ALLOCATE && !preallocate (self))
    return FALSE;
  self->have_info = TRUE;
  GST_DEBUG_OBJECT (self, "flushed: the run starts over");
  return TRUE;
}

static gboolean
plan_array_sink_event (GstBaseSink * sink, GstEvent * event)
{
  PlanArraySink *self = PLAN_ARRAY_SINK (sink);

  /* An EOS message from before a flush that a bin above still holds
   * would end the pipeline at its next PLAYING, before the new run. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    plan_sink_forget_eos (GST_ELEMENT (sink));
  /* The result must be there before the EOS message goes out, since
   * applications fetch it as soon as they see that message. */
  if ((GST_EVENT_TYPE (event) == GST_EVENT_EOS && !finish_run (self, event))
      || (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP
          && !restart_run (self))) {
    gst_event_unref (event);
    return FALSE;
  }
  /* A segment in rows (or in time, for rows sampled in time) says which
   * rows come: those of a seek's range, collected from row 0. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT && self->have_info) {
    const GstSegment *segment;
    guint64 first;
    gint64 end;

    gst_event_parse_segment (event, &segment);
    if (plan_array_info_get_segment_rows (&self->info, segment, &first,
            &end)) {
      self->seg_first = first;
      self->seg_end = end;
      GST_DEBUG_OBJECT (self, "rows %" G_GUINT64_FORMAT " to %"
          G_GINT64_FORMAT " of the stream go from row 0", first, end);
    }
  }
  return GST_BASE_SINK_CLASS (parent_class)->event (sink, event);
}

/* The plan API's: binds a running sink (at the end of its stream) to
 * @array, or to an array of its own when %NULL, for the run that the next
 * flush starts. */
void
_plan_array_sink_rebind (PlanArraySink * sink, PlanArray * array)
{
  GDestroyNotify notify;
  gpointer user_data;

  g_return_if_fail (PLAN_IS_ARRAY_SINK (sink));
  g_return_if_fail (array == NULL || PLAN_IS_ARRAY (array));

  GST_OBJECT_LOCK (sink);
  notify = clear_binding_unlocked (sink, &user_data);
  sink->array = array ? g_object_ref (array) : NULL;
  GST_OBJECT_UNLOCK (sink);
  if (notify)
    notify (user_data);
}

/* The plan API's: what the sink's errors call it (@label, "output 'm'"),
 * in place of the element's name. Set before the sink leaves NULL. */
void
_plan_array_sink_set_label (PlanArraySink * sink, const gchar * label)
{
  g_return_if_fail (PLAN_IS_ARRAY_SINK (sink));

  g_free (sink->label);
  sink->label = g_strdup (label);
}
