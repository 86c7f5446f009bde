/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-planarraysrc
 * @title: planarraysrc
 * @short_description: stream an application's in-memory array, or the
 *   chunks of its reader, as array/x-raw buffers of whole rows
 *
 * planarraysrc is the source of a plan bound to memory: an application
 * gives it either a #PlanArray (plan_array_src_set_array()) or a chunk
 * reader (plan_array_src_set_reader()), and it pushes the rows as
 * `array/x-raw` buffers. Nothing is copied: each buffer wraps rows of the
 * array, or the whole array a reader returned, as read-only memory that
 * holds a reference to that array, so the array stays alive as long as
 * any buffer over it does.
 *
 * - With an array, buffers hold #PlanArraySrc:blocksize bytes of whole
 *   rows (at least one row). A 0-d array is pushed as one buffer of its
 *   one value.
 * - With a reader, each array the reader returns is pushed as one buffer;
 *   the reader is called from the streaming thread each time downstream
 *   wants more, so it is paced by the pipeline. %NULL without an error, or
 *   an array of no rows, ends the stream (as a read() at the end of a file
 *   gives nothing); when the reader was declared with a total number of
 *   rows, the stream ends once that many rows have come, without another
 *   call.
 * - A reader's arrays are streamed without a copy, so their memory must
 *   stay unchanged while the plan holds them (until their last reference
 *   is dropped). A reader that refills one buffer (the readinto pattern)
 *   while the plan still holds the rows it returned last is refused:
 *   each array is checked against the memory of the chunks still in use
 *   downstream when the reader returns, and an overlap is an error.
 *
 * The caps are `array/x-raw, dtype=..., shape=<N, ...>`, where N is the
 * number of rows of the array, the total declared with the reader, or -1
 * when a reader's total is not known. Buffers carry the index of their
 * first row in GST_BUFFER_OFFSET and one past their last in
 * GST_BUFFER_OFFSET_END; the segment is in rows (%GST_FORMAT_DEFAULT).
 * Duration queries are answered in rows (%GST_FORMAT_DEFAULT) and in
 * bytes (%GST_FORMAT_BYTES) when the length is known. With an array the
 * source is seekable in rows (a segment of rows [start, stop) of the
 * array); with a reader, which streams forward only, it is not.
 *
 * With an array, planarraysrc also answers the #PLAN_QUERY_READ_ROWS
 * query, as planfilesrc does, with a buffer over the rows asked for (no
 * copy), so that planstencil can wrap around the streaming axis. A range
 * outside the array, and any range with a reader, is refused.
 *
 * The array or reader is set in the NULL or READY state and used from the
 * next READY to PAUSED state change on; a new one replaces the old one
 * (and the old reader's destroy notify is called). One binding serves any
 * number of runs.
 *
 * ## Progress messages
 *
 * Each run posts %GST_MESSAGE_PROGRESS messages with the code "read", as
 * planfilesrc does (see #PlanProgress): start at the first buffer in
 * PLAYING, continue at most every 1 % of the rows and 250 ms, complete
 * at the end, error before a reader's failure is posted, canceled when
 * stopped before the end. Their texts name "the array of NAME" or "the
 * reader of NAME". A reader declared without a total number of rows
 * gives messages without `rows-total` and `bytes-total` (and whose
 * `percent` means nothing), and continue messages every 250 ms.
 *
 * ## Errors
 *
 * - Starting with neither an array nor a reader: resource/settings.
 * - A reader that fails: resource/read, with the reader's message.
 * - A reader that returns an array of another dtype or row shape than it
 *   was declared with, or more rows than its declared total:
 *   stream/format, naming both. Fewer rows than the declared total:
 *   stream/failed. An array over memory the plan still used when the
 *   reader was called: stream/failed, naming both rows.
 *
 * ## Example of use from C
 *
 * The element is meant to be fed by an application, so it has no use on
 * a gst-launch-1.0 command line.
 * |[<!-- language="C" -->
 * GstElement *pipeline = gst_parse_launch (
 *     "planarraysrc name=in ! planmap expr=\"x * 2\" ! planarraysink name=out",
 *     NULL);
 * GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "in");
 * GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
 * gint64 shape[] = { 1000000, 3 };
 * PlanArray *a = plan_array_new (PLAN_DTYPE_FLOAT32, 2, shape, NULL);
 *
 * // ... fill plan_array_get_writable_data (a, NULL) ...
 * plan_array_src_set_array (PLAN_ARRAY_SRC (src), a);
 * gst_element_set_state (pipeline, GST_STATE_PLAYING);
 * // ... wait for EOS on the bus, then
 * // plan_array_sink_get_array (PLAN_ARRAY_SINK (sink)) is the result.
 * ]|
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "graph-private.h"

#include <libplan/planerror.h>
#include <libplan/planfilereader.h>
#include <libplan/plankernelelement.h>
#include <libplan/plandevicememory.h>
#include <libplan/planprogress.h>

GST_DEBUG_CATEGORY_STATIC (plan_array_src_debug);
#define GST_CAT_DEFAULT plan_array_src_debug

/* Only OBJECT_LOCK is taken here, never while calling the reader or
 * pushing. */

enum
{
  PROP_0,
  PROP_BLOCKSIZE,
};

/* 0: chunks of DEFAULT_CHUNK_SIZE bytes */
#define DEFAULT_BLOCKSIZE 0
/* Buffers are views, so size costs no memory; large ones give a kernel
 * element computing into lent output enough work to share among its
 * threads (x + y on 256 MiB arrays: 0.028 s in 32 MiB buffers, 0.055 s in
 * 8 MiB ones, on two cores). */
#define DEFAULT_CHUNK_SIZE (32 << 20)
#define MAX_BLOCKSIZE (1 << 30)

struct _PlanArraySrc
{
  GstBaseSrc parent;

  /* protected by OBJECT_LOCK; changed only in the NULL and READY states */
  guint blocksize;
  PlanArray *array;
  PlanArrayInfo reader_info;
  PlanChunkReadFunc read_func;
  gpointer read_user_data;
  GDestroyNotify read_notify;

  /* streaming thread only (STREAM_LOCK); set in start, cleared in stop.
   * run_user_data stays valid for the run since the binding cannot change
   * before stop. */
  PlanArray *run_array;
  PlanChunkReadFunc run_func;
  gpointer run_user_data;
  PlanArrayInfo run_info;
  gsize chunk_rows;
  gboolean failed;              /* start() posted why it cannot run: the
                                 * state change fails after it */
  guint64 next_row;
  guint64 stop_row;             /* array mode: the end of the segment */
  gboolean rows_pushed;         /* a chunk went since the last seek */
  guint32 seek_seqnum;          /* of the seek event being handled */
  guint32 range_seqnum;         /* of the seek that set the range */
  GPtrArray *live;              /* reader mode: LiveChunk, pushed and
                                 * maybe still in use downstream */
  /* progress messages: streaming thread, and stop() once it stopped */
  PlanProgress *progress;
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (PLAN_ARRAY_CAPS_ANY "; " PLAN_ARRAY_CAPS_DEVICE_ANY));

#define plan_array_src_parent_class parent_class
G_DEFINE_TYPE (PlanArraySrc, plan_array_src, GST_TYPE_BASE_SRC);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (planarraysrc, "planarraysrc",
    GST_RANK_NONE, PLAN_TYPE_ARRAY_SRC,
    GST_DEBUG_CATEGORY_INIT (plan_array_src_debug, "planarraysrc", 0,
        "In-memory array source"));

static void plan_array_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void plan_array_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void plan_array_src_dispose (GObject * object);
static gboolean plan_array_src_start (GstBaseSrc * src);
static gboolean plan_array_src_stop (GstBaseSrc * src);
static GstCaps *plan_array_src_get_caps (GstBaseSrc * src, GstCaps * filter);
static GstCaps *plan_array_src_fixate (GstBaseSrc * src, GstCaps * caps);
static gboolean plan_array_src_is_seekable (GstBaseSrc * src);
static gboolean plan_array_src_do_seek (GstBaseSrc * src,
    GstSegment * segment);
static gboolean plan_array_src_query (GstBaseSrc * src, GstQuery * query);
static gboolean plan_array_src_event (GstBaseSrc * src, GstEvent * event);
static gboolean plan_array_src_negotiate (GstBaseSrc * src);
static GstStateChangeReturn plan_array_src_change_state (GstElement *
    element, GstStateChange transition);
static guint64 plan_array_src_end_row (GstBaseSrc * src);
static gboolean plan_array_src_send_event (GstElement * element,
    GstEvent * event);
static GstFlowReturn plan_array_src_create (GstBaseSrc * src, guint64 offset,
    guint size, GstBuffer ** buffer);

static void
plan_array_src_class_init (PlanArraySrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *basesrc_class = GST_BASE_SRC_CLASS (klass);

  gobject_class->set_property = plan_array_src_set_property;
  gobject_class->get_property = plan_array_src_get_property;
  gobject_class->dispose = plan_array_src_dispose;

  /* This replaces GstBaseSrc's blocksize, which defaults to 4096 bytes and
   * means bytes per pull; here it is the chunk size in array mode. */
  g_object_class_install_property (gobject_class, PROP_BLOCKSIZE,
      plan_param_spec_checked_range (g_param_spec_uint ("blocksize",
          "Chunk size",
          "The size of the buffers pushed from an array, in bytes, rounded "
          "down to whole rows (at least one row); 0 for 32 MiB. Buffers from "
          "a reader are the arrays it returns, whatever their size", 0,
          MAX_BLOCKSIZE, DEFAULT_BLOCKSIZE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY)));

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "Array source",
      "Source/Array",
      "Streams an application's in-memory array, or the arrays its chunk "
      "reader returns, as rows of array/x-raw without copying them (set "
      "from C with plan_array_src_set_array or plan_array_src_set_reader)",
      PLAN_CONTACT);
  gst_element_class_add_static_metadata (element_class,
      GST_ELEMENT_METADATA_DOC_URI, PLAN_DOC_URI "/planarraysrc.md");

  element_class->send_event = GST_DEBUG_FUNCPTR (plan_array_src_send_event);
  element_class->change_state =
      GST_DEBUG_FUNCPTR (plan_array_src_change_state);
  basesrc_class->negotiate = GST_DEBUG_FUNCPTR (plan_array_src_negotiate);
  basesrc_class->start = GST_DEBUG_FUNCPTR (plan_array_src_start);
  basesrc_class->stop = GST_DEBUG_FUNCPTR (plan_array_src_stop);
  basesrc_class->get_caps = GST_DEBUG_FUNCPTR (plan_array_src_get_caps);
  basesrc_class->fixate = GST_DEBUG_FUNCPTR (plan_array_src_fixate);
  basesrc_class->is_seekable = GST_DEBUG_FUNCPTR (plan_array_src_is_seekable);
  basesrc_class->do_seek = GST_DEBUG_FUNCPTR (plan_array_src_do_seek);
  basesrc_class->query = GST_DEBUG_FUNCPTR (plan_array_src_query);
  basesrc_class->event = GST_DEBUG_FUNCPTR (plan_array_src_event);
  basesrc_class->create = GST_DEBUG_FUNCPTR (plan_array_src_create);
}

static void
plan_array_src_init (PlanArraySrc * self)
{
  self->blocksize = DEFAULT_BLOCKSIZE;
  plan_array_info_init (&self->reader_info);
  plan_array_info_init (&self->run_info);
  self->progress = plan_progress_new (GST_ELEMENT (self), "read");
  self->live = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_atomic_rc_box_release);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_DEFAULT);
  plan_eos_watch_source (GST_BASE_SRC (self), plan_array_src_end_row);
}

/* Must be called with OBJECT_LOCK held. Returns the old reader's notify
 * and user data, to call once the lock is released. */
static GDestroyNotify
clear_binding_unlocked (PlanArraySrc * self, gpointer * user_data)
{
  GDestroyNotify notify = self->read_notify;

  *user_data = self->read_user_data;
  g_clear_object (&self->array);
  self->read_func = NULL;
  self->read_user_data = NULL;
  self->read_notify = NULL;
  plan_array_info_init (&self->reader_info);
  return notify;
}

static void
plan_array_src_dispose (GObject * object)
{
  PlanArraySrc *self = PLAN_ARRAY_SRC (object);
  GDestroyNotify notify;
  gpointer user_data;

  GST_OBJECT_LOCK (self);
  notify = clear_binding_unlocked (self, &user_data);
  GST_OBJECT_UNLOCK (self);
  if (notify)
    notify (user_data);
  g_clear_pointer (&self->progress, plan_progress_free);
  g_clear_pointer (&self->live, g_ptr_array_unref);

  G_OBJECT_CLASS (parent_class)->dispose (object);
}

static void
plan_array_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  PlanArraySrc *self = PLAN_ARRAY_SRC (object);

  if (plan_element_refuse_live_set (GST_ELEMENT (object), pspec, TRUE)
      || plan_element_refuse_out_of_range (GST_ELEMENT (object), pspec,
          value))
    return;

  switch (prop_id) {
    case PROP_BLOCKSIZE:
      GST_OBJECT_LOCK (self);
      self->blocksize = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
plan_array_src_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  PlanArraySrc *self = PLAN_ARRAY_SRC (object);

  switch (prop_id) {
    case PROP_BLOCKSIZE:
      GST_OBJECT_LOCK (self);
      g_value_set_uint (value, self->blocksize);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* Whether an array element may be bound now: in the NULL or READY state,
 * going nowhere else. Must be called with OBJECT_LOCK held. */
gboolean
_plan_element_is_settable_unlocked (GstElement * element, const gchar * func)
{
  if (GST_STATE (element) <= GST_STATE_READY
      && GST_STATE_PENDING (element) <= GST_STATE_READY)
    return TRUE;
  g_critical ("%s: %s runs; bind it in the NULL or READY state", func,
      GST_OBJECT_NAME (element));
  return FALSE;
}

/**
 * plan_array_src_set_array:
 * @src: a #PlanArraySrc
 * @array: (transfer none) (nullable): the array to stream, or %NULL to
 *   unbind
 *
 * Makes @src stream the rows of @array from its next start on, replacing
 * the array or reader it had. @src holds a reference to @array, and every
 * buffer it pushes holds another, since buffers wrap the array's memory
 * without copying it: do not write to @array while a run uses it.
 *
 * Call this in the NULL or READY state. Takes the object lock.
 *
 * Since: 0.1
 */
void
plan_array_src_set_array (PlanArraySrc * src, PlanArray * array)
{
  GDestroyNotify notify;
  gpointer user_data;

  g_return_if_fail (PLAN_IS_ARRAY_SRC (src));
  g_return_if_fail (array == NULL || PLAN_IS_ARRAY (array));

  GST_OBJECT_LOCK (src);
  if (!_plan_element_is_settable_unlocked (GST_ELEMENT (src), G_STRFUNC)) {
    GST_OBJECT_UNLOCK (src);
    return;
  }
  notify = clear_binding_unlocked (src, &user_data);
  src->array = array ? g_object_ref (array) : NULL;
  GST_OBJECT_UNLOCK (src);

  if (notify)
    notify (user_data);
  GST_DEBUG_OBJECT (src, "bound to array %" GST_PTR_FORMAT, array);
}

/* Whether @info is a shape plan_array_info_set() takes: the fields are
 * public, and an inner axis of no element would make rows of no bytes. */
static gboolean
info_is_valid (const PlanArrayInfo * info)
{
  PlanArrayInfo checked;

  return plan_array_info_set (&checked, info->dtype, info->ndim, info->shape,
      NULL);
}

/**
 * plan_array_src_set_reader:
 * @src: a #PlanArraySrc
 * @info: the dtype and shape of the stream: `shape[0]` is the total number
 *   of rows, or -1 when it is not known; the inner axes are the shape of
 *   every row the reader returns, each of at least one element (as
 *   plan_array_info_set() checks; @src is left as it was otherwise)
 * @func: (scope notified) (closure user_data) (destroy notify) (nullable):
 *   the reader, or %NULL to unbind
 * @user_data: the argument of @func and @notify
 * @notify: (nullable): called with @user_data when @func is no longer
 *   used: when it is replaced or @src is disposed
 *
 * Makes @src stream the arrays @func returns from its next start on,
 * replacing the array or reader it had. See #PlanChunkReadFunc for when
 * @func is called. Each array @func returns must have the dtype and inner
 * axes of @info, else the stream fails with an element error.
 *
 * Call this in the NULL or READY state. Takes the object lock.
 *
 * Since: 0.1
 */
void
plan_array_src_set_reader (PlanArraySrc * src, const PlanArrayInfo * info,
    PlanChunkReadFunc func, gpointer user_data, GDestroyNotify notify)
{
  GDestroyNotify old_notify;
  gpointer old_user_data;

  g_return_if_fail (PLAN_IS_ARRAY_SRC (src));
  g_return_if_fail (func == NULL || info != NULL);
  g_return_if_fail (func == NULL || plan_dtype_get_size (info->dtype) > 0);
  g_return_if_fail (func == NULL || info->ndim <= PLAN_ARRAY_MAX_DIMS);
  g_return_if_fail (func == NULL || info_is_valid (info));

  GST_OBJECT_LOCK (src);
  if (!_plan_element_is_settable_unlocked (GST_ELEMENT (src), G_STRFUNC)) {
    GST_OBJECT_UNLOCK (src);
    return;
  }
  old_notify = clear_binding_unlocked (src, &old_user_data);
  if (func) {
    src->reader_info = *info;
    src->read_func = func;
    src->read_user_data = user_data;
    src->read_notify = notify;
  }
  GST_OBJECT_UNLOCK (src);

  if (old_notify)
    old_notify (old_user_data);
}

/* Must be called with OBJECT_LOCK held. */
static gboolean
get_info_unlocked (PlanArraySrc * self, PlanArrayInfo * info)
{
  if (self->array)
    *info = *plan_array_get_info (self->array);
  else if (self->read_func)
    *info = self->reader_info;
  else
    return FALSE;
  return TRUE;
}

/**
 * plan_array_src_get_info:
 * @src: a #PlanArraySrc
 * @info: (out caller-allocates): the dtype and shape of the stream
 *
 * Gives what the caps of @src will say: the array's dtype and shape, or
 * those the reader was declared with.
 *
 * Takes the object lock.
 *
 * Returns: %TRUE, with @info filled, when an array or a reader is bound;
 *   %FALSE otherwise.
 *
 * Since: 0.1
 */
gboolean
plan_array_src_get_info (PlanArraySrc * src, PlanArrayInfo * info)
{
  gboolean ok;

  g_return_val_if_fail (PLAN_IS_ARRAY_SRC (src), FALSE);
  g_return_val_if_fail (info != NULL, FALSE);

  GST_OBJECT_LOCK (src);
  ok = get_info_unlocked (src, info);
  GST_OBJECT_UNLOCK (src);
  return ok;
}

/* A run of progress messages over rows [@first, @end) (@end -1: not
 * known), from the streaming thread or with it stopped; a run still going
 * is canceled. */
static void
begin_progress (PlanArraySrc * self, guint64 first, gint64 end)
{
  gchar *what = g_strdup_printf ("the %s of %s", self->run_array ? "array" :
      "reader", GST_OBJECT_NAME (self));

  plan_progress_begin (self->progress, what, first, end,
      plan_array_info_get_row_size (&self->run_info));
  g_free (what);
}

static gboolean
plan_array_src_start (GstBaseSrc * src)
{
  PlanArraySrc *self = PLAN_ARRAY_SRC (src);
  gboolean bound;
  guint blocksize;
  gsize row_size;
  gchar *desc;
  GError *err = NULL;

  /* A number out of its property's range, before anything reads it; the
   * state change fails after it, as for an array not bound. */
  if (!plan_element_check_ranges (GST_ELEMENT (self), &err)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err->message),
        (NULL));
    g_error_free (err);
    self->failed = TRUE;
    return TRUE;
  }
  GST_OBJECT_LOCK (self);
  bound = get_info_unlocked (self, &self->run_info);
  self->run_array = self->array ? g_object_ref (self->array) : NULL;
  self->run_func = self->read_func;
  self->run_user_data = self->read_user_data;
  blocksize = self->blocksize;
  GST_OBJECT_UNLOCK (self);

  self->failed = !bound;
  if (!bound)
    goto not_bound;

  row_size = plan_array_info_get_row_size (&self->run_info);
  self->chunk_rows = MAX (1, (blocksize ? blocksize : DEFAULT_CHUNK_SIZE) /
      row_size);
  self->next_row = 0;
  self->stop_row = G_MAXUINT64;
  begin_progress (self, 0, plan_array_info_get_n_rows (&self->run_info));
  /* A seek from the end (GST_SEEK_TYPE_END) counts back from the
   * segment's duration, which GstBaseSrc knows only in bytes: without it
   * such a seek started at row 0. An array bound later for the next run
   * has the rows of this one. */
  if (self->run_array != NULL) {
    GST_OBJECT_LOCK (self);
    src->segment.duration = plan_array_info_get_n_rows (&self->run_info);
    GST_OBJECT_UNLOCK (self);
  }
  desc = plan_array_info_to_string (&self->run_info);
  GST_INFO_OBJECT (self, "streaming %s from %s, %" G_GSIZE_FORMAT " rows a "
      "buffer", desc, self->run_array ? "an array" : "a reader",
      self->chunk_rows);
  g_free (desc);
  return TRUE;

  /* ERRORS */
not_bound:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("planarraysrc %s has no array or reader bound",
            GST_OBJECT_NAME (self)),
        ("call plan_array_src_set_array() or plan_array_src_set_reader() "
            "before starting"));
    /* Succeeds: the state change fails after it
     * (plan_array_src_change_state()), with this one error. A start()
     * that failed would make GstBaseSrc post an error of its own, "state
     * change failed and some element failed to post a proper error
     * message". */
    return TRUE;
  }
}

/* Nothing to negotiate when start() failed: the state change fails.
 * Caps that downstream refuses (a caps filter asking for a rate, which
 * arrays do not have, or another dtype) get the one negotiation error that
 * names both sides, rather than GstBaseSrc's "Internal data stream error"
 * or caps it filled in from downstream's. */
static gboolean
plan_array_src_negotiate (GstBaseSrc * src)
{
  GstCaps *caps;
  gboolean ok = TRUE;

  if (PLAN_ARRAY_SRC (src)->failed)
    return TRUE;
  caps = plan_array_src_get_caps (src, NULL);
  if (gst_caps_is_fixed (caps))
    ok = plan_element_check_downstream_caps (GST_ELEMENT (src),
        GST_BASE_SRC_PAD (src), "The array", caps);
  gst_caps_unref (caps);
  return ok && GST_BASE_SRC_CLASS (parent_class)->negotiate (src);
}

/* The stream's caps are the array's, whole: a field they leave open (the
 * rate of rows sampled in time) is not filled in from downstream's, as
 * the default fixation would, since the buffers would not follow it. */
static GstCaps *
plan_array_src_fixate (GstBaseSrc * src, GstCaps * caps)
{
  GstCaps *ours = plan_array_src_get_caps (src, NULL);

  if (!gst_caps_is_fixed (ours)) {
    gst_caps_unref (ours);
    return GST_BASE_SRC_CLASS (parent_class)->fixate (src, caps);
  }
  gst_caps_unref (caps);
  return ours;
}

static GstStateChangeReturn
plan_array_src_change_state (GstElement * element, GstStateChange transition)
{
  PlanArraySrc *self = PLAN_ARRAY_SRC (element);
  GstStateChangeReturn ret;

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED
      && ret != GST_STATE_CHANGE_FAILURE && self->failed) {
    /* Back to READY: stops the streaming task. */
    GST_ELEMENT_CLASS (parent_class)->change_state (element,
        GST_STATE_CHANGE_PAUSED_TO_READY);
    return GST_STATE_CHANGE_FAILURE;
  }
  return ret;
}

static gboolean
plan_array_src_stop (GstBaseSrc * src)
{
  PlanArraySrc *self = PLAN_ARRAY_SRC (src);

  /* The streaming thread has stopped: its progress state is ours. */
  plan_progress_finish (self->progress, GST_PROGRESS_TYPE_CANCELED);
  plan_progress_reset_clock (self->progress);
  g_clear_object (&self->run_array);
  self->run_func = NULL;
  self->run_user_data = NULL;
  g_ptr_array_set_size (self->live, 0);
  return TRUE;
}

static GstCaps *
plan_array_src_get_caps (GstBaseSrc * src, GstCaps * filter)
{
  PlanArraySrc *self = PLAN_ARRAY_SRC (src);
  PlanArrayInfo info;
  GstCaps *caps, *result;

  gboolean on_device = _plan_array_src_is_on_device (self);

  if (plan_array_src_get_info (self, &info))
    caps = plan_array_info_to_caps (&info);
  else
    caps = gst_pad_get_pad_template_caps (GST_BASE_SRC_PAD (src));
  /* An array in device memory goes downstream as it is. */
  if (on_device) {
    GstCaps *device_caps = plan_caps_set_memory (caps,
        PLAN_CAPS_FEATURE_MEMORY_DEVICE);

    gst_caps_unref (caps);
    caps = device_caps;
  }
  if (filter == NULL)
    return caps;
  result = gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (caps);
  return result;
}

/* A seek in rows from a row past the last: refused, before anything is
 * flushed. gst_segment_do_seek() would make it a seek to the end, now
 * that the segment knows its duration, and do_seek() sees it so. */
static gboolean
seek_starts_past_the_end (PlanArraySrc * self, GstEvent * event)
{
  GstSeekType start_type;
  GstFormat format;
  gint64 start, duration;

  if (GST_EVENT_TYPE (event) != GST_EVENT_SEEK)
    return FALSE;
  gst_event_parse_seek (event, NULL, &format, NULL, &start_type, &start,
      NULL, NULL);
  GST_OBJECT_LOCK (self);
  duration = (gint64) GST_BASE_SRC (self)->segment.duration;
  GST_OBJECT_UNLOCK (self);
  if (format != GST_FORMAT_DEFAULT || start_type != GST_SEEK_TYPE_SET
      || duration < 0 || start <= duration)
    return FALSE;
  GST_INFO_OBJECT (self, "cannot seek to row %" G_GINT64_FORMAT " of an "
      "array of %" G_GINT64_FORMAT, start, duration);
  return TRUE;
}

static gboolean
plan_array_src_event (GstBaseSrc * src, GstEvent * event)
{
  PlanArraySrc *self = PLAN_ARRAY_SRC (src);
  gboolean ok;

  if (plan_element_refuse_backward_seek (GST_ELEMENT (src), event))
    return FALSE;
  if (seek_starts_past_the_end (self, event))
    return FALSE;
  /* do_seek() takes the seek's seqnum for the segment it may push. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK)
    g_atomic_int_set (&self->seek_seqnum, gst_event_get_seqnum (event));
  ok = GST_BASE_SRC_CLASS (parent_class)->event (src, event);
  g_atomic_int_set (&self->seek_seqnum, GST_SEQNUM_INVALID);
  return ok;
}

/* The row a stream the application ends now ends at
 * (plan_eos_watch_source()): the streaming thread's, which calls it. */
static guint64
plan_array_src_end_row (GstBaseSrc * src)
{
  return PLAN_ARRAY_SRC (src)->next_row;
}

/* An EOS sent to the element (an application ending the stream early) is
 * marked as ending the stream on purpose (plan_eos_mark_sent_to_source()),
 * as planfilesrc's is. */
static gboolean
plan_array_src_send_event (GstElement * element, GstEvent * event)
{
  if (plan_element_refuse_backward_seek (element, event)) {
    gst_event_unref (event);
    return FALSE;
  }
  event = plan_eos_mark_sent_to_source (GST_BASE_SRC (element), event);
  return GST_ELEMENT_CLASS (parent_class)->send_event (element, event);
}

/* Called from the streaming thread, and from the thread of a seek while
 * the streaming thread is paused. */
static gboolean
plan_array_src_is_seekable (GstBaseSrc * src)
{
  PlanArraySrc *self = PLAN_ARRAY_SRC (src);
  gboolean seekable;

  GST_OBJECT_LOCK (self);
  seekable = self->array != NULL;
  GST_OBJECT_UNLOCK (self);
  return seekable;
}

/* GstBaseSrc calls this with the streaming thread paused, at the start of
 * every run (rows from 0) and for each seek. A seek also takes up the
 * array bound now: _plan_array_src_rebind() replaces the array of a
 * running source, for the run a flushing seek starts. */
static gboolean
plan_array_src_do_seek (GstBaseSrc * src, GstSegment * segment)
{
  PlanArraySrc *self = PLAN_ARRAY_SRC (src);
  PlanArray *old = NULL;
  guint64 n_rows;

  if (segment->rate <= 0.0)
    return FALSE;
  /* start() failed: the state change fails after it. */
  if (self->failed)
    return TRUE;
  if (self->run_func != NULL)
    return segment->start == 0;

  GST_OBJECT_LOCK (self);
  if (self->array != NULL && self->array != self->run_array) {
    old = self->run_array;
    self->run_array = g_object_ref (self->array);
  }
  GST_OBJECT_UNLOCK (self);
  g_clear_object (&old);
  if (self->run_array == NULL)
    return FALSE;

  n_rows = plan_array_get_n_rows (self->run_array);
  if (segment->start > n_rows) {
    GST_INFO_OBJECT (self, "cannot seek to row %" G_GUINT64_FORMAT " of an "
        "array of %" G_GUINT64_FORMAT, segment->start, n_rows);
    return FALSE;
  }
  self->next_row = segment->start;
  self->stop_row = segment->stop == (guint64) -1 ? n_rows :
      MIN (segment->stop, n_rows);
  self->rows_pushed = FALSE;
  self->range_seqnum = g_atomic_int_get (&self->seek_seqnum);
  segment->time = segment->start;
  segment->position = segment->start;
  begin_progress (self, self->next_row, self->stop_row);
  GST_DEBUG_OBJECT (self, "streaming from row %" G_GUINT64_FORMAT,
      self->next_row);
  return TRUE;
}

/* Whether the stream goes downstream in device memory. */
gboolean
_plan_array_src_is_on_device (PlanArraySrc * src)
{
  gboolean on_device;

  GST_OBJECT_LOCK (src);
  on_device = src->array && plan_array_get_device_memory (src->array);
  GST_OBJECT_UNLOCK (src);
  return on_device;
}

/* The plan API's: binds @array to a running source (at the end of its
 * stream), for the run that the next flushing seek starts. @array must
 * have the dtype and shape of the array it replaces, since the caps stay
 * as they are. */
void
_plan_array_src_rebind (PlanArraySrc * src, PlanArray * array)
{
  PlanArray *old;

  g_return_if_fail (PLAN_IS_ARRAY_SRC (src));
  g_return_if_fail (PLAN_IS_ARRAY (array));

  GST_OBJECT_LOCK (src);
  old = src->array;
  src->array = g_object_ref (array);
  GST_OBJECT_UNLOCK (src);
  g_clear_object (&old);
}

/* The memory of a chunk a reader returned, shared by the source's list
 * and the buffer over it; `alive` is cleared when the buffer's memory is
 * freed (on whichever thread drops it last). */
typedef struct
{
  guintptr start, end;
  guint64 first_row;
  gint alive;
} LiveChunk;

typedef struct
{
  PlanArray *array;
  LiveChunk *live;
} ChunkHold;

static void
chunk_hold_free (gpointer data)
{
  ChunkHold *hold = data;

  g_atomic_int_set (&hold->live->alive, 0);
  g_atomic_rc_box_release (hold->live);
  g_object_unref (hold->array);
  g_free (hold);
}

/* Forgets the chunks nothing downstream holds any more. */
static void
prune_live (PlanArraySrc * self)
{
  guint i;

  for (i = self->live->len; i-- > 0;) {
    LiveChunk *live = g_ptr_array_index (self->live, i);

    if (!g_atomic_int_get (&live->alive))
      g_ptr_array_remove_index_fast (self->live, i);
  }
}

/* A buffer over rows [@first, @first + @n_rows) of @array, without a copy:
 * read-only memory holding a reference to @array. */
static GstBuffer *
wrap_rows (PlanArray * array, guint64 first, gsize n_rows)
{
  gsize row_size = plan_array_info_get_row_size (plan_array_get_info (array));
  const guint8 *data = plan_array_get_data (array, NULL);
  GstMemory *device = plan_array_get_device_memory (array);
  gsize size = n_rows * row_size;
  GstBuffer *buffer;

  if (device != NULL) {
    /* A part of the device memory, which keeps the whole alive. */
    buffer = gst_buffer_new ();
    gst_buffer_append_memory (buffer, gst_memory_share (device,
            first * row_size, size));
    GST_BUFFER_OFFSET (buffer) = first;
    GST_BUFFER_OFFSET_END (buffer) = first + n_rows;
    return buffer;
  }
  /* The memory is flagged read-only, so nothing writes through the cast. */
  buffer = gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY,
      (gpointer) (data + first * row_size), size, 0, size,
      g_object_ref (array), g_object_unref);
  GST_BUFFER_OFFSET (buffer) = first;
  GST_BUFFER_OFFSET_END (buffer) = first + n_rows;
  return buffer;
}

static gboolean
answer_duration (PlanArraySrc * self, GstQuery * query)
{
  PlanArrayInfo info;
  GstFormat format;
  gint64 n_rows;

  gst_query_parse_duration (query, &format, NULL);
  if (format != GST_FORMAT_DEFAULT && format != GST_FORMAT_BYTES)
    return FALSE;
  if (!plan_array_src_get_info (self, &info))
    return FALSE;
  n_rows = plan_array_info_get_n_rows (&info);
  if (n_rows < 0)
    return FALSE;

  if (format == GST_FORMAT_DEFAULT)
    gst_query_set_duration (query, format, n_rows);
  else
    gst_query_set_duration (query, format,
        n_rows * (gint64) plan_array_info_get_row_size (&info));
  return TRUE;
}

/* Rows out of order, for planstencil's wrap mode: only an array has them
 * all at hand; a reader's rows come once, in order. */
static gboolean
answer_read_rows (PlanArraySrc * self, GstQuery * query)
{
  PlanArray *array = NULL;
  guint64 offset, n_rows, total;
  GstBuffer *buffer;

  if (!plan_query_parse_read_rows (query, &offset, &n_rows))
    return FALSE;
  GST_OBJECT_LOCK (self);
  if (self->array)
    array = g_object_ref (self->array);
  GST_OBJECT_UNLOCK (self);
  if (array == NULL)
    goto no_array;

  total = plan_array_get_n_rows (array);
  if (n_rows == 0 || offset > total || n_rows > total - offset)
    goto out_of_range;
  buffer = wrap_rows (array, offset, n_rows);
  plan_query_set_read_rows_buffer (query, buffer);
  gst_buffer_unref (buffer);
  g_object_unref (array);
  return TRUE;

  /* ERRORS */
no_array:
  {
    GST_DEBUG_OBJECT (self, "not answering %s: no array bound",
        PLAN_QUERY_READ_ROWS);
    return FALSE;
  }
out_of_range:
  {
    GST_WARNING_OBJECT (self, "not answering %s for rows %" G_GUINT64_FORMAT
        "-%" G_GUINT64_FORMAT ": the array has %" G_GUINT64_FORMAT " rows",
        PLAN_QUERY_READ_ROWS, offset, offset + n_rows, total);
    g_object_unref (array);
    return FALSE;
  }
}

static gboolean
plan_array_src_query (GstBaseSrc * src, GstQuery * query)
{
  PlanArraySrc *self = PLAN_ARRAY_SRC (src);

  if (GST_QUERY_TYPE (query) == GST_QUERY_DURATION)
    return answer_duration (self, query);
  if (GST_QUERY_TYPE (query) == GST_QUERY_CUSTOM
      && plan_query_parse_read_rows (query, NULL, NULL))
    return answer_read_rows (self, query);
  return GST_BASE_SRC_CLASS (parent_class)->query (src, query);
}

/* A buffer over the whole of a reader's @chunk, whose memory is tracked
 * until the buffer is freed. */
static GstBuffer *
wrap_chunk (PlanArraySrc * self, PlanArray * chunk)
{
  gsize size = plan_array_get_size (chunk);
  gpointer data = (gpointer) plan_array_get_data (chunk, NULL);
  ChunkHold *hold = g_new (ChunkHold, 1);
  GstBuffer *buffer;

  hold->array = g_object_ref (chunk);
  hold->live = g_atomic_rc_box_new0 (LiveChunk);
  hold->live->start = (guintptr) data;
  hold->live->end = (guintptr) data + size;
  hold->live->first_row = self->next_row;
  hold->live->alive = 1;
  g_ptr_array_add (self->live, g_atomic_rc_box_acquire (hold->live));
  /* The memory is flagged read-only, so nothing writes through the cast. */
  buffer = gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY, data, size,
      0, size, hold, chunk_hold_free);
  return buffer;
}

static GstFlowReturn
create_from_array (PlanArraySrc * self, GstBuffer ** buffer)
{
  guint64 n_rows = MIN (self->stop_row,
      (guint64) plan_array_get_n_rows (self->run_array));
  gsize n;

  if (self->next_row >= n_rows) {
    GST_DEBUG_OBJECT (self, "all %" G_GUINT64_FORMAT " rows pushed", n_rows);
    return GST_FLOW_EOS;
  }
  n = MIN (self->chunk_rows, n_rows - self->next_row);
  *buffer = wrap_rows (self->run_array, self->next_row, n);
  self->next_row += n;
  return GST_FLOW_OK;
}

/* Calls the reader once: rows, the end (NULL, or an array of no rows, as
 * a read() at the end of a file gives no bytes) or an error. */
static GstFlowReturn
read_chunk (PlanArraySrc * self, PlanArray ** chunk)
{
  GError *err = NULL;
  GstElement *previous;

  prune_live (self);
  previous = _plan_thread_enter_callback (GST_ELEMENT (self));
  *chunk = self->run_func (self->next_row, self->run_user_data, &err);
  _plan_thread_leave_callback (previous);
  /* An error is the reader's answer, whatever it returned beside it. */
  if (err)
    g_clear_object (chunk);
  if (*chunk && plan_array_get_n_rows (*chunk) == 0
      && plan_array_get_info (*chunk)->ndim > 0) {
    GST_DEBUG_OBJECT (self, "an array of no rows at row %" G_GUINT64_FORMAT
        ": the end", self->next_row);
    g_clear_object (chunk);
  }

  if (*chunk)
    return GST_FLOW_OK;
  if (err)
    goto read_failed;
  return GST_FLOW_EOS;

  /* ERRORS */
read_failed:
  {
    /* The progress message first: applications stop at the error. */
    plan_progress_finish (self->progress, GST_PROGRESS_TYPE_ERROR);
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("%s", err->message),
        ("the reader of %s failed at row %" G_GUINT64_FORMAT,
            GST_OBJECT_NAME (self), self->next_row));
    g_error_free (err);
    return GST_FLOW_ERROR;
  }
}

/* Whether @chunk's memory overlaps a chunk that is still in use
 * downstream: the reader wrote over rows the plan had not finished with
 * (the readinto pattern, one buffer refilled), so the run cannot give the
 * right answer. Chunks that were released while the reader ran are not
 * held against it: their memory may have been freed and allocated again
 * for this chunk, which is no reuse. */
static gboolean
reuses_memory (PlanArraySrc * self, PlanArray * chunk)
{
  guintptr start = (guintptr) plan_array_get_data (chunk, NULL);
  guintptr end = start + plan_array_get_size (chunk);
  guint i;

  for (i = 0; i < self->live->len; i++) {
    LiveChunk *live = g_ptr_array_index (self->live, i);

    if (start < live->end && live->start < end && end > start
        && g_atomic_int_get (&live->alive)) {
      plan_progress_finish (self->progress, GST_PROGRESS_TYPE_ERROR);
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("The reader of %s returned at row %" G_GUINT64_FORMAT " memory "
              "that the rows it returned at row %" G_GUINT64_FORMAT " still "
              "use: it refilled a buffer the plan had not finished with. "
              "Return new memory for each chunk, or copy it (in Python: "
              "IO.connect(..., copy=True))", GST_OBJECT_NAME (self),
              self->next_row, live->first_row),
          ("bytes %p-%p overlap %p-%p", (gpointer) start, (gpointer) end,
              (gpointer) live->start, (gpointer) live->end));
      return TRUE;
    }
  }
  return FALSE;
}

/* Checks a reader's array against the declared dtype, row shape and total
 * number of rows. */
static gboolean
check_chunk (PlanArraySrc * self, PlanArray * chunk)
{
  const PlanArrayInfo *info = plan_array_get_info (chunk);
  gint64 total = plan_array_info_get_n_rows (&self->run_info);
  gchar *got, *want;

  if (plan_array_get_device_memory (chunk) != NULL) {
    plan_progress_finish (self->progress, GST_PROGRESS_TYPE_ERROR);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The reader of %s returned an array in device memory at row %"
            G_GUINT64_FORMAT "; readers give arrays in host memory",
            GST_OBJECT_NAME (self), self->next_row), (NULL));
    return FALSE;
  }
  if (reuses_memory (self, chunk))
    return FALSE;
  if (info->dtype == self->run_info.dtype
      && plan_array_info_same_rows (info, &self->run_info)
      && (total < 0 || self->next_row + plan_array_get_n_rows (chunk) <=
          (guint64) total))
    return TRUE;

  plan_progress_finish (self->progress, GST_PROGRESS_TYPE_ERROR);
  got = plan_array_info_to_string (info);
  want = plan_array_info_to_string (&self->run_info);
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("The reader of %s returned an array of %s at row %" G_GUINT64_FORMAT
          ", which does not fit the stream of %s it was declared with",
          GST_OBJECT_NAME (self), got, self->next_row, want), (NULL));
  g_free (got);
  g_free (want);
  return FALSE;
}

static GstFlowReturn
create_from_reader (PlanArraySrc * self, GstBuffer ** buffer)
{
  gint64 total = plan_array_info_get_n_rows (&self->run_info);
  PlanArray *chunk = NULL;
  GstFlowReturn ret;
  gint64 n_rows;

  if (total >= 0 && self->next_row >= (guint64) total) {
    GST_DEBUG_OBJECT (self, "all %" G_GINT64_FORMAT " rows read", total);
    return GST_FLOW_EOS;
  }

  ret = read_chunk (self, &chunk);
  if (ret == GST_FLOW_EOS && total >= 0)
    goto cut_short;
  if (ret != GST_FLOW_OK)
    return ret;
  if (!check_chunk (self, chunk))
    goto bad_chunk;

  n_rows = plan_array_get_n_rows (chunk);
  *buffer = wrap_chunk (self, chunk);
  GST_BUFFER_OFFSET (*buffer) = self->next_row;
  GST_BUFFER_OFFSET_END (*buffer) = self->next_row + n_rows;
  self->next_row += n_rows;
  g_object_unref (chunk);
  return GST_FLOW_OK;

  /* ERRORS */
cut_short:
  {
    /* The progress message first: applications stop at the error. */
    plan_progress_finish (self->progress, GST_PROGRESS_TYPE_ERROR);
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("The reader of %s ended the stream after %" G_GUINT64_FORMAT
            " of the %" G_GINT64_FORMAT " rows it was declared with",
            GST_OBJECT_NAME (self), self->next_row, total), (NULL));
    return GST_FLOW_ERROR;
  }
bad_chunk:
  {
    g_object_unref (chunk);
    return GST_FLOW_ERROR;
  }
}

static GstFlowReturn
plan_array_src_create (GstBaseSrc * src, guint64 offset, guint size,
    GstBuffer ** buffer)
{
  PlanArraySrc *self = PLAN_ARRAY_SRC (src);
  GstFlowReturn ret;

  /* The state change fails: stop quietly until the element is stopped. */
  if (self->failed)
    return GST_FLOW_FLUSHING;
  if (self->run_array)
    ret = create_from_array (self, buffer);
  else
    ret = create_from_reader (self, buffer);
  switch (ret) {
    case GST_FLOW_OK:
      self->rows_pushed = TRUE;
      GST_LOG_OBJECT (self, "rows %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT,
          GST_BUFFER_OFFSET (*buffer), GST_BUFFER_OFFSET_END (*buffer));
      plan_progress_update (self->progress, GST_BUFFER_OFFSET_END (*buffer));
      break;
    case GST_FLOW_EOS:
      /* The progress message before the EOS, which an empty range's
       * segment comes with: applications stop at the EOS. */
      plan_progress_finish (self->progress, GST_PROGRESS_TYPE_COMPLETE);
      if (self->run_array && !self->rows_pushed) {
        GST_DEBUG_OBJECT (self, "no rows in the range: its segment and "
            "the EOS");
        plan_element_push_empty_segment (GST_ELEMENT (self),
            self->range_seqnum);
        self->rows_pushed = TRUE;
      }
      break;
    default:
      /* ended before its element error was posted; this is for the rest */
      plan_progress_finish (self->progress, GST_PROGRESS_TYPE_ERROR);
      break;
  }
  return ret;
}
