/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What a subclass of PlanKernelElement calls from its vmethods: the
 * buffers its output goes into (memory downstream lends, or the pool's)
 * and their pushes, the EOS marks of a stream that ended early on purpose
 * (and the sources' watch that gives them),
 * and what it reads of its inputs and output: their infos, names,
 * variables, windows, the rows their segments select, the last rows of an
 * input read out of order. The locks are those written at the top of
 * plankernelelement.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plankernelelement-private.h"
#include <libplan/planerror.h>
#include <libplan/planshardhooks.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GST_CAT_DEFAULT plan_kernel_element_debug

/* The alignment of output buffers from the pool: a page. */
#define OUTPUT_ALIGN 4096

/* Asks downstream for the memory the next @n_rows output rows go to
 * (PLAN_QUERY_OUTPUT_ROWS). Output bound for the device is made here and
 * uploaded, so it never asks then. */
static GstBuffer *
borrow_output (PlanKernelElement * self, PlanKernelElementPrivate * priv,
    gsize n_rows)
{
  gsize row = plan_array_info_get_row_size (&priv->output);
  GstBuffer *buffer = NULL;
  GstQuery *query;

  priv->direct_output = FALSE;
  if (n_rows == 0 || priv->lending_refused
      || _plan_kernel_device_outputs_to_device (priv->device))
    return NULL;
  query = plan_query_new_output_rows (priv->out_rows, n_rows, row);
  if (gst_pad_peer_query (GST_AGGREGATOR_SRC_PAD (self), query))
    buffer = plan_query_get_output_rows_buffer (query);
  gst_query_unref (query);
  if (buffer != NULL && gst_buffer_get_size (buffer) != n_rows * row) {
    GST_WARNING_OBJECT (self, "downstream lent %" G_GSIZE_FORMAT " bytes for "
        "%" G_GSIZE_FORMAT " rows of %" G_GSIZE_FORMAT, gst_buffer_get_size
        (buffer), n_rows, row);
    gst_clear_buffer (&buffer);
  }
  priv->direct_output = buffer != NULL;
  /* Before the first push downstream may not have its caps yet; a refusal
   * after it is for good, and is not asked again for every chunk. */
  if (buffer == NULL && priv->out_rows > 0) {
    GST_DEBUG_OBJECT (self, "downstream lends no memory: using the pool");
    priv->lending_refused = TRUE;
  }
  GST_LOG_OBJECT (self, "rows %" G_GUINT64_FORMAT "+%" G_GSIZE_FORMAT
      " into %s memory", priv->out_rows, n_rows, buffer ? "downstream's" :
      "pool");
  return buffer;
}

/**
 * plan_eos_mark_ended_early:
 * @eos: (transfer full): an EOS event
 * @end_row: the row at which the stream ends (GST_BUFFER_OFFSET_END of the
 *   last buffer sent before @eos, 0 when none was)
 *
 * Marks @eos as ending its stream early on purpose (#PLAN_EOS_ENDED_EARLY):
 * the elements after it give their results over the rows they received
 * rather than taking the stream for one cut short. A source marks the EOS
 * an application sends it; a kernel element marks the EOS that follows
 * such inputs.
 *
 * Returns: (transfer full): @eos, or a writable copy of it, marked.
 * Since: 0.1
 */
GstEvent *
plan_eos_mark_ended_early (GstEvent * eos, guint64 end_row)
{
  g_return_val_if_fail (GST_IS_EVENT (eos), eos);
  g_return_val_if_fail (GST_EVENT_TYPE (eos) == GST_EVENT_EOS, eos);

  eos = gst_event_make_writable (eos);
  gst_structure_set (gst_event_writable_structure (eos), PLAN_EOS_ENDED_EARLY,
      G_TYPE_UINT64, end_row, NULL);
  return eos;
}

/**
 * plan_eos_is_ended_early:
 * @eos: an event
 * @end_row: (out) (optional): where the row at which the stream ends goes
 *
 * Returns: whether @eos is an EOS that ends its stream early on purpose
 * (plan_eos_mark_ended_early()).
 * Since: 0.1
 */
gboolean
plan_eos_is_ended_early (GstEvent * eos, guint64 * end_row)
{
  const GstStructure *s;
  guint64 row = 0;

  g_return_val_if_fail (GST_IS_EVENT (eos), FALSE);

  if (GST_EVENT_TYPE (eos) != GST_EVENT_EOS)
    return FALSE;
  s = gst_event_get_structure (eos);
  if (s == NULL || !gst_structure_get_uint64 (s, PLAN_EOS_ENDED_EARLY, &row))
    return FALSE;
  if (end_row)
    *end_row = row;
  return TRUE;
}

/* What plan_eos_watch_source() keeps of a source: shared by the probe on
 * its pad and the source's qdata, each holding a reference. */
typedef struct
{
  guint32 segment_seqnum;       /* of the last segment pushed; atomic */
  PlanEosEndRowFunc end_row_func;
} SourceWatch;

static GQuark
source_watch_quark (void)
{
  static gsize quark;

  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, g_quark_from_static_string ("plan-eos-watch"));
  return (GQuark) quark;
}

static void
source_watch_release (gpointer data)
{
  g_atomic_rc_box_release (data);
}

/* Notes the seqnum of each segment, and completes the mark of an EOS the
 * application sent: the streaming thread pushes it after the last buffer
 * it pushed, so the row it ends at is known only here. */
static GstPadProbeReturn
watch_source_events (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  SourceWatch *watch = data;
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
  GstBaseSrc *src;
  guint64 end_row;

  if (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT)
    g_atomic_int_set (&watch->segment_seqnum, gst_event_get_seqnum (event));
  else if (plan_eos_is_ended_early (event, NULL)) {
    src = GST_BASE_SRC (gst_pad_get_parent_element (pad));
    if (src == NULL)
      return GST_PAD_PROBE_OK;
    end_row = watch->end_row_func (src);
    GST_DEBUG_OBJECT (src, "the application ends the stream at row %"
        G_GUINT64_FORMAT, end_row);
    GST_PAD_PROBE_INFO_DATA (info) = plan_eos_mark_ended_early (event,
        end_row);
    gst_object_unref (src);
  }
  return GST_PAD_PROBE_OK;
}

/**
 * plan_eos_watch_source:
 * @src: a source, in its instance init
 * @end_row_func: (scope forever): returns the row at which the stream
 *   ends when the application ends it now
 *
 * Makes @src end its stream on purpose where the application sends it an
 * EOS (gst_element_send_event()), as planfilesrc and planarraysrc do: a
 * probe on its src pad notes the seqnum of each segment it pushes, for
 * plan_eos_mark_sent_to_source(), and gives the EOS so marked the row
 * @end_row_func returns as it goes downstream (plan_eos_mark_ended_early()).
 * The source's #GstElementClass.send_event() passes the events sent to it
 * through plan_eos_mark_sent_to_source().
 *
 * Since: 0.1
 */
void
plan_eos_watch_source (GstBaseSrc * src, PlanEosEndRowFunc end_row_func)
{
  SourceWatch *watch;

  g_return_if_fail (GST_IS_BASE_SRC (src));
  g_return_if_fail (end_row_func != NULL);

  watch = g_atomic_rc_box_new0 (SourceWatch);
  watch->segment_seqnum = GST_SEQNUM_INVALID;
  watch->end_row_func = end_row_func;
  gst_pad_add_probe (GST_BASE_SRC_PAD (src),
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, watch_source_events,
      g_atomic_rc_box_acquire (watch), source_watch_release);
  g_object_set_qdata_full (G_OBJECT (src), source_watch_quark (), watch,
      source_watch_release);
}

/**
 * plan_eos_mark_sent_to_source:
 * @src: a source that plan_eos_watch_source() watches
 * @event: (transfer full): an event sent to @src
 *
 * An EOS sent to the source (an application ending the stream early) ends
 * the segment under way: GstBaseSrc pushes it as it came, so it gets that
 * segment's seqnum, as the EOS at the end of the rows has. It is marked as
 * ending the stream on purpose (#PLAN_EOS_ENDED_EARLY), so that the
 * elements downstream give their results over the rows sent rather than
 * take the stream for one cut short; the probe of plan_eos_watch_source()
 * gives it its row as it goes downstream. Other events are left as they
 * are.
 *
 * Returns: (transfer full): @event, or a marked copy of it.
 * Since: 0.1
 */
GstEvent *
plan_eos_mark_sent_to_source (GstBaseSrc * src, GstEvent * event)
{
  SourceWatch *watch;
  guint32 seqnum;

  g_return_val_if_fail (GST_IS_BASE_SRC (src), event);
  g_return_val_if_fail (GST_IS_EVENT (event), event);

  if (GST_EVENT_TYPE (event) != GST_EVENT_EOS)
    return event;
  watch = g_object_get_qdata (G_OBJECT (src), source_watch_quark ());
  g_return_val_if_fail (watch != NULL, event);

  event = plan_eos_mark_ended_early (event, 0);
  seqnum = g_atomic_int_get (&watch->segment_seqnum);
  if (seqnum != GST_SEQNUM_INVALID)
    gst_event_set_seqnum (event, seqnum);
  return event;
}

/* GstBufferPool's buffers are at most G_MAXUINT bytes: a larger output
 * (rows of a custom kernel's out-shape, a widening map of chunks near
 * planfilesrc's largest blocksize) gets memory of its own, or an error
 * saying what could not be had, where GLib would abort. */
static GstFlowReturn
alloc_unpooled (PlanKernelElement * self, gsize n_rows, GstBuffer ** buffer)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  gsize row = plan_array_info_get_row_size (&priv->output), size;
  gboolean addressable = g_size_checked_mul (&size, n_rows, row);
  gpointer data;
  gint err = addressable ? posix_memalign (&data, OUTPUT_ALIGN, MAX (size,
          1)) : ENOMEM;

  if (err != 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate an output buffer (rows of %" G_GSIZE_FORMAT
            " bytes, %" G_GSIZE_FORMAT " of them): %s.", row, n_rows,
            addressable ? "not enough memory" :
            "more bytes than memory can address"),
        ("posix_memalign: %s", g_strerror (err)));
    return GST_FLOW_ERROR;
  }
  GST_DEBUG_OBJECT (self, "an output buffer of %" G_GSIZE_FORMAT " bytes, "
      "over a pool's largest, allocated alone", size);
  *buffer = gst_buffer_new_wrapped_full (0, data, size, 0, size, data, free);
  priv->n_unpushed++;
  return GST_FLOW_OK;
}

/**
 * plan_kernel_element_alloc_output:
 * @self: a #PlanKernelElement
 * @n_rows: the number of rows, of the output info set up by setup()
 * @buffer: (out) (transfer full): the buffer
 *
 * Gets a buffer for the next @n_rows output rows: memory downstream lends
 * for them (#PLAN_QUERY_OUTPUT_ROWS, so a sink that keeps the rows gets
 * them without a copy), or else a buffer of the element's pool (one over
 * 4 GiB, a pool's largest, is allocated alone). Push the buffers in the
 * order they were allocated. Call from the streaming
 * thread (process() or finish()).
 *
 * Returns: GST_FLOW_OK, or a flow error (GST_FLOW_FLUSHING on shutdown).
 *
 * Since: 0.1
 */
GstFlowReturn
plan_kernel_element_alloc_output (PlanKernelElement * self, gsize n_rows,
    GstBuffer ** buffer)
{
  PlanKernelElementPrivate *priv;
  gsize size;
  GstFlowReturn ret;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), GST_FLOW_ERROR);
  g_return_val_if_fail (buffer != NULL, GST_FLOW_ERROR);

  priv = GET_PRIV (self);
  if (!g_size_checked_mul (&size, n_rows,
          plan_array_info_get_row_size (&priv->output)))
    return alloc_unpooled (self, n_rows, buffer);

  /* Memory lent for rows out_rows... is right only for the next buffer
   * pushed. */
  *buffer = priv->n_unpushed == 0 ? borrow_output (self, priv, n_rows) : NULL;
  priv->n_unpushed++;
  if (*buffer != NULL)
    return GST_FLOW_OK;

  /* Reused pool buffers avoid faulting in fresh pages for every chunk;
   * the pool grows to the largest chunk seen, and starts at a slice when
   * the class slices (a stencil's first output is a slice less its halo,
   * and a pool made for it would be thrown away at the next). They start
   * on a page: the vector loops store whole cache lines, and the kernel
   * copies a buffer into the page cache (planfilesink's write()) about
   * 8 % faster from an aligned source than from GLib's 16-byte
   * alignment. */
  if (size > priv->pool_size || priv->pool == NULL) {
    gsize row = plan_array_info_get_row_size (&priv->output);
    gsize alloc = size;
    GstAllocationParams params;
    GstStructure *config;

    /* A slice is at most host_slice_bytes, or one row. A pool's size is at
     * most G_MAXUINT, which a larger chunk passes here. */
    if (priv->slice_rows != G_MAXSIZE)
      alloc = MAX (alloc, priv->slice_rows * row);
    if (alloc > G_MAXUINT) {
      priv->n_unpushed--;
      return alloc_unpooled (self, n_rows, buffer);
    }
    _plan_kernel_element_clear_pool (priv);
    priv->pool = gst_buffer_pool_new ();
    config = gst_buffer_pool_get_config (priv->pool);
    gst_buffer_pool_config_set_params (config, NULL, MAX (alloc, 1), 0, 0);
    gst_allocation_params_init (&params);
    params.align = OUTPUT_ALIGN - 1;
    gst_buffer_pool_config_set_allocator (config, NULL, &params);
    if (!gst_buffer_pool_set_config (priv->pool, config)
        || !gst_buffer_pool_set_active (priv->pool, TRUE))
      goto pool_failed;
    priv->pool_size = MAX (alloc, 1);
  }

  ret = gst_buffer_pool_acquire_buffer (priv->pool, buffer, NULL);
  if (ret != GST_FLOW_OK) {
    priv->n_unpushed--;
    GST_DEBUG_OBJECT (self, "no output buffer: %s", gst_flow_get_name (ret));
    return ret;
  }
  gst_buffer_set_size (*buffer, size);
  return GST_FLOW_OK;

  /* ERRORS */
pool_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate output buffers of %" G_GSIZE_FORMAT " bytes.",
            size), (NULL));
    priv->n_unpushed--;
    _plan_kernel_element_clear_pool (priv);
    return GST_FLOW_ERROR;
  }
}

/* The depth to which being_deactivated() follows the pads an element
 * passes events on to. */
#define DEACTIVATED_DEPTH 8

static gboolean
pad_is_flushing (GstPad * pad)
{
  gboolean flushing;

  GST_OBJECT_LOCK (pad);
  flushing = GST_PAD_IS_FLUSHING (pad);
  GST_OBJECT_UNLOCK (pad);
  return flushing;
}

/* Whether what comes after @sinkpad is being deactivated: @sinkpad itself,
 * or every pad its element passes events on to (through their peers, a
 * few elements deep). A state change down deactivates an element's source
 * pads before its sink pads; a sticky event that comes between fails
 * where it is passed on, and tee fails it then, which GstPad reports as
 * NOT_NEGOTIATED for caps and ERROR for other events, though nothing
 * refused it. */
static gboolean
being_deactivated (GstPad * sinkpad, guint depth)
{
  GValue item = G_VALUE_INIT;
  gboolean any = FALSE, all = TRUE, done = FALSE;
  GstIterator *it;

  if (pad_is_flushing (sinkpad))
    return TRUE;
  if (depth == 0 || (it = gst_pad_iterate_internal_links (sinkpad)) == NULL)
    return FALSE;
  while (!done) {
    switch (gst_iterator_next (it, &item)) {
      case GST_ITERATOR_OK:{
        GstPad *src = g_value_get_object (&item);

        any = TRUE;
        if (!pad_is_flushing (src)) {
          GstPad *peer = gst_pad_get_peer (src);

          /* An unlinked pad takes sticky events (NOT_LINKED is no
           * failure): the event did not fail there. */
          if (peer == NULL || !being_deactivated (peer, depth - 1)) {
            all = FALSE;
            done = TRUE;
          }
          gst_clear_object (&peer);
        }
        g_value_reset (&item);
        break;
      }
      case GST_ITERATOR_RESYNC:
        gst_iterator_resync (it);
        any = FALSE;
        all = TRUE;
        break;
      default:
        done = TRUE;
        break;
    }
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  return any && all;
}

/* A push that failed because the pads downstream are being deactivated
 * (a state change down under way there) stops the stream as a push into
 * a flushing pad does, with no error of ours: see being_deactivated(). */
static GstFlowReturn
push_flow_downstream_stopping (PlanKernelElement * self, GstFlowReturn flow)
{
  GstPad *peer;

  if (flow != GST_FLOW_NOT_NEGOTIATED && flow != GST_FLOW_ERROR)
    return flow;
  peer = gst_pad_get_peer (GST_AGGREGATOR_SRC_PAD (self));
  if (peer != NULL && being_deactivated (peer, DEACTIVATED_DEPTH)) {
    GST_DEBUG_OBJECT (self, "push: %s while the pads after %s:%s are being "
        "deactivated: flushing", gst_flow_get_name (flow),
        GST_DEBUG_PAD_NAME (peer));
    flow = GST_FLOW_FLUSHING;
  }
  gst_clear_object (&peer);
  return flow;
}

/**
 * plan_kernel_element_push_output:
 * @self: a #PlanKernelElement
 * @buffer: (transfer full): whole output rows
 *
 * Stamps @buffer with the next output row offsets and pushes it
 * downstream. Call from the streaming thread.
 *
 * Returns: the flow of the push.
 *
 * Since: 0.1
 */
GstFlowReturn
plan_kernel_element_push_output (PlanKernelElement * self, GstBuffer * buffer)
{
  PlanKernelElementPrivate *priv;
  GError *err = NULL;
  gsize n_rows;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), GST_FLOW_ERROR);
  g_return_val_if_fail (GST_IS_BUFFER (buffer), GST_FLOW_ERROR);

  priv = GET_PRIV (self);
  n_rows = gst_buffer_get_size (buffer) /
      plan_array_info_get_row_size (&priv->output);
  /* The first buffer of the stream, of a range (after a segment) or after
   * a flush says that it follows nothing. */
  if (priv->discont) {
    buffer = gst_buffer_make_writable (buffer);
    GST_BUFFER_FLAG_SET (buffer, GST_BUFFER_FLAG_DISCONT);
    priv->discont = FALSE;
  } else if (GST_BUFFER_FLAG_IS_SET (buffer, GST_BUFFER_FLAG_DISCONT)) {
    buffer = gst_buffer_make_writable (buffer);
    GST_BUFFER_FLAG_UNSET (buffer, GST_BUFFER_FLAG_DISCONT);
  }
  GST_BUFFER_OFFSET (buffer) = priv->out_rows;
  GST_BUFFER_OFFSET_END (buffer) = priv->out_rows + n_rows;
  /* Rows sampled in time: the chunk's time and length. */
  if (plan_array_info_has_rate (&priv->output)) {
    GstClockTime pts = plan_array_info_rows_to_time (&priv->output,
        priv->out_rows);

    if (!gst_buffer_is_writable (buffer))
      buffer = gst_buffer_make_writable (buffer);
    GST_BUFFER_PTS (buffer) = pts;
    GST_BUFFER_DURATION (buffer) = plan_array_info_rows_to_time
        (&priv->output, priv->out_rows + n_rows) - pts;
  } else if (GST_BUFFER_PTS_IS_VALID (buffer)
      || GST_BUFFER_DURATION_IS_VALID (buffer)) {
    buffer = gst_buffer_make_writable (buffer);
    GST_BUFFER_PTS (buffer) = GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION (buffer) = GST_CLOCK_TIME_NONE;
  }
  priv->out_rows += n_rows;
  priv->output_started = TRUE;
  if (priv->n_unpushed > 0)
    priv->n_unpushed--;
  /* To device memory when the source caps say so. */
  buffer = _plan_kernel_device_output (priv->device, buffer, &err);
  if (buffer == NULL)
    goto device_failed;
  priv->push_flow = push_flow_downstream_stopping (self,
      gst_aggregator_finish_buffer (GST_AGGREGATOR (self), buffer));
  return priv->push_flow;

  /* ERRORS */
device_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Could not copy an output buffer to the device."), ("%s",
            err->message));
    g_clear_error (&err);
    priv->push_flow = GST_FLOW_ERROR;
    return GST_FLOW_ERROR;
  }
}

/* The flow of the pushes since the last call (OK when none failed). */
GstFlowReturn
_plan_kernel_element_take_push_flow (PlanKernelElement * self)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  GstFlowReturn ret = priv->push_flow;

  priv->push_flow = GST_FLOW_OK;
  return ret;
}

/**
 * plan_kernel_element_get_n_threads:
 * @self: a #PlanKernelElement
 *
 * Returns: the `n-threads` property: worker threads, 0 for one per core.
 *
 * Since: 0.1
 */
guint
plan_kernel_element_get_n_threads (PlanKernelElement * self)
{
  guint n;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), 1);

  GST_OBJECT_LOCK (self);
  n = GET_PRIV (self)->n_threads;
  GST_OBJECT_UNLOCK (self);
  return n;
}

/**
 * plan_kernel_element_get_target:
 * @self: a #PlanKernelElement
 *
 * Returns: the `target` property.
 *
 * Since: 0.1
 */
PlanTarget
plan_kernel_element_get_target (PlanKernelElement * self)
{
  PlanTarget target;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), PLAN_TARGET_CPU);

  GST_OBJECT_LOCK (self);
  target = GET_PRIV (self)->target;
  GST_OBJECT_UNLOCK (self);
  return target;
}

/**
 * plan_kernel_element_get_n_inputs:
 * @self: a #PlanKernelElement
 *
 * Returns: the number of inputs set up; valid from setup() on, in the
 *   streaming thread.
 *
 * Since: 0.1
 */
guint
plan_kernel_element_get_n_inputs (PlanKernelElement * self)
{
  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), 0);

  return GET_PRIV (self)->n_inputs;
}

/**
 * plan_kernel_element_get_input_info:
 * @self: a #PlanKernelElement
 * @index: an input, in pad order
 *
 * Returns: (transfer none) (nullable): the array info of input @index, as
 *   given to setup(); valid in the streaming thread.
 *
 * Since: 0.1
 */
const PlanArrayInfo *
plan_kernel_element_get_input_info (PlanKernelElement * self, guint index)
{
  PlanKernelElementPrivate *priv;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), NULL);

  priv = GET_PRIV (self);
  return index < priv->n_inputs ? &priv->inputs[index] : NULL;
}

/**
 * plan_kernel_element_get_input_name:
 * @self: a #PlanKernelElement
 * @index: an input, in pad order
 *
 * Returns: (transfer none) (nullable): the pad name of input @index, for
 *   messages; valid in the streaming thread.
 *
 * Since: 0.1
 */
const gchar *
plan_kernel_element_get_input_name (PlanKernelElement * self, guint index)
{
  PlanKernelElementPrivate *priv;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), NULL);

  priv = GET_PRIV (self);
  return index < priv->n_inputs ? priv->input_names[index] : NULL;
}

/**
 * plan_kernel_element_get_input_variable:
 * @self: a #PlanKernelElement
 * @index: an input, in pad order
 *
 * Returns: (transfer none) (nullable): the #PlanKernelPad:variable of input
 *   @index when setup() was called, or %NULL when unset; valid in the
 *   streaming thread.
 *
 * Since: 0.1
 */
const gchar *
plan_kernel_element_get_input_variable (PlanKernelElement * self,
    guint index)
{
  PlanKernelElementPrivate *priv;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), NULL);

  priv = GET_PRIV (self);
  return index < priv->n_inputs && priv->input_variables ?
      priv->input_variables[index] : NULL;
}

/**
 * plan_kernel_element_get_input_window:
 * @self: a #PlanKernelElement
 * @index: an input, in pad order
 *
 * Returns: (transfer none) (nullable): the #PlanKernelPad:window of input
 *   @index when setup() was called, or %NULL when unset; valid in the
 *   streaming thread.
 *
 * Since: 0.1
 */
const gchar *
plan_kernel_element_get_input_window (PlanKernelElement * self,
    guint index)
{
  PlanKernelElementPrivate *priv;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), NULL);

  priv = GET_PRIV (self);
  return index < priv->n_inputs && priv->input_windows ?
      priv->input_windows[index] : NULL;
}

/**
 * plan_kernel_element_get_output_info:
 * @self: a #PlanKernelElement
 *
 * Returns: (transfer none): the output info set by setup(); valid in the
 *   streaming thread.
 *
 * Since: 0.1
 */
const PlanArrayInfo *
plan_kernel_element_get_output_info (PlanKernelElement * self)
{
  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), NULL);

  return &GET_PRIV (self)->output;
}

/**
 * plan_kernel_element_get_input_range:
 * @self: a #PlanKernelElement
 * @index: an input, in pad order
 * @first: (out) (optional): the first row of the stream it delivers
 * @end: (out) (optional): one past its last row, or -1 when its segment
 *   runs to the end of the stream
 *
 * The rows of the stream that input @index's segment selects: all of it
 * (0 to -1) unless a seek chose a range. A subclass that needs rows
 * outside its chunks (a stencil wrapping round) asks for the range's
 * rows, not the whole stream's. Call from the streaming thread.
 *
 * Returns: %FALSE when there is no input @index.
 *
 * Since: 0.1
 */
gboolean
plan_kernel_element_get_input_range (PlanKernelElement * self, guint index,
    guint64 * first, gint64 * end)
{
  GList *pads;
  PlanKernelPad *pad;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), FALSE);

  pads = _plan_kernel_element_get_sink_pads (self);
  pad = g_list_nth_data (pads, index);
  if (pad != NULL) {
    if (first)
      *first = pad->range_first;
    if (end)
      *end = pad->range_end;
  }
  g_list_free_full (pads, gst_object_unref);
  return pad != NULL;
}

/* The rows [@first, @end) input @index delivers: its segment's range,
 * ended by the stream's length from the caps or upstream's duration in
 * rows. FALSE when the end is not known. */
static gboolean
input_rows (PlanKernelElement * self, guint index, GstPad * sinkpad,
    const PlanArrayInfo * info, guint64 * first, gint64 * end)
{
  gint64 total = plan_array_info_get_n_rows (info);

  plan_kernel_element_get_input_range (self, index, first, end);
  if (total < 0
      && !gst_pad_peer_query_duration (sinkpad, GST_FORMAT_DEFAULT, &total))
    total = -1;
  if (total >= 0)
    *end = *end < 0 ? total : MIN (*end, total);
  if (*end < 0)
    return FALSE;
  *end = MAX (*end, (gint64) * first);
  return TRUE;
}

/**
 * plan_kernel_element_read_end_rows: (skip)
 * @self: a #PlanKernelElement
 * @index: the input
 * @n_rows: how many of the last rows are wanted
 * @total: (out): the number of rows input @index delivers (its segment's)
 * @buffer: (out) (transfer full): the last MIN (@n_rows, @total) rows, in
 *   host memory
 * @error: return location for an error
 *
 * Reads the last rows of input @index out of order from upstream, with
 * the #PLAN_QUERY_READ_ROWS query (which planfilesrc and planarraysrc
 * answer): what boundary=wrap along the streaming axis needs before the
 * first output. After a seek, the last rows of the range sought.
 * plan_kernel_element_fill_halo_end() is this for a #PlanHalo; a kernel
 * keeping its halo elsewhere (on a device) calls this.
 *
 * Returns: %TRUE on success; %FALSE with @error set when the stream's
 *   length is unknown before its end, or upstream cannot read rows out of
 *   order.
 *
 * Since: 0.1
 */
gboolean
plan_kernel_element_read_end_rows (PlanKernelElement * self, guint index,
    gsize n_rows, guint64 * total, GstBuffer ** buffer, GError ** error)
{
  const PlanArrayInfo *info;
  GstQuery *query;
  GstPad *sinkpad;
  guint64 first;
  gint64 end;
  gboolean ok;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), FALSE);
  g_return_val_if_fail (total != NULL && buffer != NULL, FALSE);

  *buffer = NULL;
  info = plan_kernel_element_get_input_info (self, index);
  GST_OBJECT_LOCK (self);
  sinkpad = g_list_nth_data (GST_ELEMENT (self)->sinkpads, index);
  if (sinkpad)
    gst_object_ref (sinkpad);
  GST_OBJECT_UNLOCK (self);
  g_return_val_if_fail (sinkpad != NULL && info != NULL, FALSE);

  if (!input_rows (self, index, sinkpad, info, &first, &end)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "boundary=wrap along the streaming axis needs the length of the "
        "stream before its end, and upstream does not say it (no shape[0] "
        "in the caps and no duration in rows)");
    gst_object_unref (sinkpad);
    return FALSE;
  }
  *total = end - (gint64) first;
  n_rows = MIN (n_rows, *total);
  query = plan_query_new_read_rows (end - n_rows, n_rows);
  ok = gst_pad_peer_query (sinkpad, query);
  if (!ok) {
    GstPad *peer = gst_pad_get_peer (sinkpad);
    GstElement *up = peer ? gst_pad_get_parent_element (peer) : NULL;
    gchar *rows = n_rows == 1 ? g_strdup ("last row") :
        g_strdup_printf ("last %" G_GSIZE_FORMAT " rows", n_rows);

    gst_query_unref (query);
    /* Why depends on what is upstream: a kernel element's rows read out of
     * order would not be its output; any other element (npyparse, a
     * source of its own) does not answer the query at all. */
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "boundary=wrap along the streaming axis needs the %s of its input "
        "before the first output, read out of order from a source such as "
        "planfilesrc or planarraysrc; %s%s cannot give them (%s%s%s)", rows,
        up ? "" : "upstream", up ? GST_OBJECT_NAME (up) : "",
        up && PLAN_IS_KERNEL_ELEMENT (up) ?
        "behind a kernel element the rows read would not be its output: "
        "put " : "it does not read rows out of order for the plan-read-rows "
        "query: read the input with planfilesrc or planarraysrc",
        up && PLAN_IS_KERNEL_ELEMENT (up) ? GST_OBJECT_NAME (self) : "",
        up && PLAN_IS_KERNEL_ELEMENT (up) ? " first, or shard the run with "
        "planfilesrc shard=mpi, whose ranks pass them on" : ", or shard the "
        "run with planfilesrc shard=mpi, whose ranks pass them on");
    g_free (rows);
    gst_clear_object (&up);
    gst_clear_object (&peer);
    gst_object_unref (sinkpad);
    return FALSE;
  }
  gst_object_unref (sinkpad);
  *buffer = plan_query_get_read_rows_buffer (query);
  gst_query_unref (query);
  if (*buffer == NULL || gst_buffer_get_size (*buffer) !=
      n_rows * plan_array_info_get_row_size (info)) {
    gst_clear_buffer (buffer);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "Upstream answered the request for the last %" G_GSIZE_FORMAT
        " rows (for boundary=wrap) with the wrong data", n_rows);
    return FALSE;
  }
  return TRUE;
}

/**
 * plan_kernel_element_alloc_device_output:
 * @self: a #PlanKernelElement whose class sets launch_pushes
 * @n_rows: the number of output rows
 * @buffer: (out) (transfer full): the buffer
 * @device_ptr: (out): its device pointer, for a kernel to write
 * @error: return location for an error
 *
 * A device buffer for @n_rows output rows, from the element's pool of
 * device buffers: the element's stream (plan_kernel_element_get_stream())
 * has been made to wait for the buffer's last use. Record its ready event
 * after the kernel that fills it, then push it with
 * plan_kernel_element_push_output(). Call from the streaming thread,
 * in launch() or finish() when the element runs on the device.
 *
 * Returns: %TRUE, or %FALSE with @error set (out of device memory, or
 *   the output not in device memory)
 *
 * Since: 0.1
 */
gboolean
plan_kernel_element_alloc_device_output (PlanKernelElement * self,
    gsize n_rows, GstBuffer ** buffer, gpointer * device_ptr,
    GError ** error)
{
  PlanKernelElementPrivate *priv;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), FALSE);
  g_return_val_if_fail (buffer != NULL && device_ptr != NULL, FALSE);

  priv = GET_PRIV (self);
  *buffer = _plan_kernel_device_alloc_output (priv->device, n_rows *
      plan_array_info_get_row_size (&priv->output), error);
  if (*buffer == NULL)
    return FALSE;
  *device_ptr = plan_device_memory_get_pointer (gst_buffer_peek_memory
      (*buffer, 0));
  return TRUE;
}

/**
 * plan_kernel_element_get_stream:
 * @self: a #PlanKernelElement
 *
 * The stream the element's launch() calls queue their work on, for a
 * class that pushes its own outputs (launch_pushes) to queue the last of
 * them from finish().
 *
 * Returns: (transfer none) (nullable): the stream, or %NULL when chunks
 *   are not computed on the device through launch() (the CPU target, an
 *   output in system memory, or a launch() that said its device cannot).
 *
 * Since: 0.1
 */
PlanStream *
plan_kernel_element_get_stream (PlanKernelElement * self)
{
  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), NULL);

  return _plan_kernel_device_get_stream (GET_PRIV (self)->device);
}
