/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The heart of PlanKernelElement, on GstAggregator's thread: the rows of
 * every input lined up by row index and handed to the subclass's
 * process() as a PlanChunk of pointers into the inputs' buffers (or, on a
 * device, launched), whatever chunk sizes each input uses; the checks
 * that every input gives the rows it announced; the end of a range or of
 * the stream (finish()), and a GAP downstream while no output came. The
 * locks are those written at the top of plankernelelement.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plankernelelement-private.h"
#include <libplan/planerror.h>
#include <libplan/planshardhooks.h>

#include <string.h>

#define GST_CAT_DEFAULT plan_kernel_element_debug

/* An input that ends before the rows its caps announce, within the rows
 * its segment selects, was cut short (an error upstream, or a source's
 * num-buffers): a result over part of it would pass for the whole, so it
 * is an error, as planfilesink makes it. A seek to a range of rows is no
 * truncation: the segment says which rows to expect. */
static gboolean
check_complete (PlanKernelElement * self, PlanKernelPad * pad)
{
  gint64 announced = plan_array_info_get_n_rows (&pad->info);
  guint64 expected, received = pad->next_row - pad->range_first;

  if (announced < 0)
    return TRUE;
  if (pad->range_end >= 0)
    announced = MIN (announced, pad->range_end);
  expected = (guint64) announced > pad->range_first ?
      (guint64) announced - pad->range_first : 0;
  if (received > expected) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Input %s of %s sent %" G_GUINT64_FORMAT " rows, more than the %"
            G_GUINT64_FORMAT " it announced: its caps do not describe the "
            "stream, and a result over it is not given.", GST_PAD_NAME (pad),
            GST_ELEMENT_NAME (self), received, expected), (NULL));
    return FALSE;
  }
  if (received == expected)
    return TRUE;

  GST_ELEMENT_ERROR (self, STREAM, FAILED,
      ("Input %s of %s ended after %" G_GUINT64_FORMAT " of the %"
          G_GUINT64_FORMAT " rows it announced: the stream was cut short (by "
          "an error upstream, or a source's num-buffers), and a result over "
          "part of it is not given.", GST_PAD_NAME (pad),
          GST_ELEMENT_NAME (self), received, expected),
      ("rows %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT " of the segment's %"
          G_GUINT64_FORMAT " to %" G_GINT64_FORMAT, pad->range_first,
          pad->next_row, pad->range_first, pad->range_end));
  return FALSE;
}

/* Takes the input buffer of @pad that a peek returned. GstAggregator
 * before 1.22.7 (Debian 12 has 1.22.0) drops the reference a peek left
 * on a pad without the pad's lock when the pad is released: a release
 * from another thread (a harness teardown, an application unlinking an
 * input) while the pop hands that reference over unrefs the buffer twice,
 * and the head aggregate() still holds is freed under it. Pops and the
 * base class's release take turns on pop_lock. */
GstBuffer *
_plan_kernel_element_pop_input (PlanKernelElement * self, PlanKernelPad * pad)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  GstBuffer *buf;

  g_mutex_lock (&priv->pop_lock);
  buf = gst_aggregator_pad_pop_buffer (GST_AGGREGATOR_PAD (pad));
  g_mutex_unlock (&priv->pop_lock);
  return buf;
}

/* Every input has ended: check that they have the same length, then let
 * the subclass push what it held back. Inputs still holding rows are
 * drained, so that the error names both lengths.
 *
 * An input whose EOS ended it early on purpose (PLAN_EOS_ENDED_EARLY:
 * the application ended the stream at its source) is no truncation: the
 * result is over the rows every input gave, which may then differ in
 * length (each source stopped where the EOS found it). */
static GstFlowReturn
finish_inputs (PlanKernelElement * self, GList * pads)
{
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  PlanKernelPad *first = pads->data;
  gboolean all_eos = TRUE, early = FALSE;
  guint64 n_rows = G_MAXUINT64;
  GstFlowReturn ret = GST_FLOW_OK;
  GList *l;

  for (l = pads; l; l = l->next) {
    PlanKernelPad *pad = l->data;
    GstBuffer *buf;

    while ((buf = _plan_kernel_element_pop_input (self, pad))) {
      pad->next_row += gst_buffer_get_size (buf) /
          plan_array_info_get_row_size (&pad->info) - pad->consumed;
      pad->consumed = 0;
      gst_buffer_unref (buf);
    }
    all_eos &= gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD (pad));
  }
  if (!all_eos)
    return GST_FLOW_OK;

  for (l = pads; l; l = l->next) {
    PlanKernelPad *pad = l->data;

    early |= pad->ended_early;
    n_rows = MIN (n_rows, pad->next_row - pad->range_first);
  }
  for (l = pads->next; l && !early; l = l->next) {
    PlanKernelPad *pad = l->data;

    if (pad->next_row - pad->range_first !=
        first->next_row - first->range_first)
      goto length_mismatch;
  }
  for (l = pads; l; l = l->next) {
    PlanKernelPad *pad = l->data;

    if (pad->ended_early)
      GST_INFO_OBJECT (pad, "ended early on purpose after %" G_GUINT64_FORMAT
          " rows", pad->next_row - pad->range_first);
    else if (!check_complete (self, pad))
      return GST_FLOW_ERROR;
  }
  if (early)
    g_atomic_int_set (&GET_PRIV (self)->ended_early, TRUE);
  GET_PRIV (self)->range_finished = TRUE;
  if (klass->finish) {
    GstElement *previous = _plan_thread_enter_callback (GST_ELEMENT (self));

    ret = klass->finish (self, n_rows);
    _plan_thread_leave_callback (previous);
  }
  /* Device work that failed (a host kernel on the stream's worker) is
   * reported before EOS, which then does not follow. */
  if (ret == GST_FLOW_OK)
    ret = _plan_kernel_device_finish (GET_PRIV (self)->device);
  return ret == GST_FLOW_OK ? GST_FLOW_EOS : ret;

length_mismatch:
  {
    PlanKernelPad *pad = l->data;

    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Inputs have different lengths: %s has %" G_GUINT64_FORMAT
            " row%s but %s has %" G_GUINT64_FORMAT " row%s.%s%s",
            GST_PAD_NAME (first), first->next_row - first->range_first,
            first->next_row - first->range_first == 1 ? "" : "s",
            GST_PAD_NAME (pad), pad->next_row - pad->range_first,
            pad->next_row - pad->range_first == 1 ? "" : "s",
            _plan_kernel_element_lengths_hint (first->next_row -
                first->range_first, pad->next_row - pad->range_first),
            _plan_kernel_element_shard_hint (pads)),
        (NULL));
    return GST_FLOW_ERROR;
  }
}

/* Whether a buffer's offset names row @row. Under a segment in bytes (a
 * stock source such as filesrc, whose caps a capsfilter gives) the offset
 * is in bytes, from the segment's start, and must fall on a row's start. */
static gboolean
buffer_at_row (PlanKernelPad * pad, GstBuffer * buf, gsize row_size,
    guint64 row)
{
  const GstSegment *segment = &GST_AGGREGATOR_PAD (pad)->segment;
  guint64 offset = GST_BUFFER_OFFSET (buf);

  if (segment->format != GST_FORMAT_BYTES)
    return offset == row;
  return offset >= segment->start && offset - segment->start == row *
      row_size;
}

/* Checks a head buffer: whole rows, and the row offset where we expect it.
 * Returns the number of rows not yet consumed, or 0 after posting an
 * error. */
static gsize
check_head (PlanKernelElement * self, PlanKernelPad * pad, GstBuffer * buf)
{
  gsize row_size = plan_array_info_get_row_size (&pad->info);
  gsize size = gst_buffer_get_size (buf);

  if (size % row_size != 0 || size == 0)
    goto not_rows;
  if (pad->consumed == 0 && GST_BUFFER_OFFSET_IS_VALID (buf)
      && !buffer_at_row (pad, buf, row_size, pad->next_row))
    goto gap;
  g_atomic_int_set (&pad->flushed, FALSE);
  return size / row_size - pad->consumed;

  /* ERRORS */
not_rows:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Input %s sent a buffer of %" G_GSIZE_FORMAT " bytes, which is not "
            "a whole number of rows of %" G_GSIZE_FORMAT " bytes.",
            GST_PAD_NAME (pad), size, row_size), (NULL));
    return 0;
  }
gap:
  {
    /* A flush that no seek made (flush events sent to the pipeline) drops
     * the rows on their way, and the source goes on after them under the
     * segment it had. */
    const GstSegment *segment = &GST_AGGREGATOR_PAD (pad)->segment;
    gchar *got = segment->format != GST_FORMAT_BYTES ?
        g_strdup_printf ("row %" G_GUINT64_FORMAT, GST_BUFFER_OFFSET (buf)) :
        g_strdup_printf ("byte %" G_GUINT64_FORMAT " of its segment "
        "(rows of %" G_GSIZE_FORMAT " bytes)", GST_BUFFER_OFFSET (buf) -
        MIN (GST_BUFFER_OFFSET (buf), segment->start), row_size);

    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Input %s skipped rows: expected row %" G_GUINT64_FORMAT
            " but got %s.%s", GST_PAD_NAME (pad), pad->next_row, got,
            g_atomic_int_get (&pad->flushed) ? " A flush that no seek made "
            "came before them (flush events sent to the pipeline or to an "
            "element): it dropped the rows on their way, and upstream went "
            "on after them. To start again from a row, make a flushing "
            "seek there instead." : ""), (NULL));
    g_free (got);
    return 0;
  }
}

/* The device path (plankernelelement-device.c): hands @n_rows rows of the
 * heads to launch() when the element runs on a device. Returns FALSE when
 * the rows are to be computed by process() instead. */
static gboolean
launch_rows (PlanKernelElement * self, GList * pads, GstBuffer ** heads,
    gsize n_rows, GstFlowReturn * ret)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  gsize *offsets = g_newa (gsize, priv->n_inputs);
  GstElement *previous;
  gboolean launched;
  GList *l;
  guint i;

  if (priv->device == NULL)
    return FALSE;
  for (l = pads, i = 0; l; l = l->next, i++) {
    PlanKernelPad *pad = l->data;

    offsets[i] = pad->consumed * plan_array_info_get_row_size (&pad->info);
  }
  /* A launch() that pushes its own outputs returns the flow of its
   * pushes through push_flow. */
  priv->push_flow = GST_FLOW_OK;
  previous = _plan_thread_enter_callback (GST_ELEMENT (self));
  launched = _plan_kernel_device_launch (priv->device, self, heads, offsets,
      ((PlanKernelPad *) pads->data)->next_row, n_rows, ret);
  _plan_thread_leave_callback (previous);
  if (!launched)
    return FALSE;
  if (*ret == GST_FLOW_OK)
    *ret = priv->push_flow;
  return TRUE;
}

/* Lines up the next rows of every input and hands them to process(), one
 * slice (or all the rows the heads share); sets @dropped when an input's
 * head buffer is used up. */
static GstFlowReturn
process_slice (PlanKernelElement * self, GList * pads, GstBuffer ** heads,
    gboolean * dropped)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  gsize n_rows = G_MAXSIZE;
  GstFlowReturn ret;
  PlanChunk chunk;
  GError *err = NULL;
  GstElement *previous;
  GList *l;
  guint i, n_mapped = 0;

  for (l = pads, i = 0; l; l = l->next, i++) {
    gsize avail = check_head (self, l->data, heads[i]);

    if (avail == 0)
      return GST_FLOW_ERROR;
    n_rows = MIN (n_rows, avail);
  }

  /* On a device, a subclass with launch() queues its kernel on the
   * element's stream: nothing to map or compute here. */
  if (launch_rows (self, pads, heads, n_rows, &ret))
    goto advance;

  /* On the host, a class may ask for large chunks in slices (see
   * host_slice_bytes); process_rows() comes back for the rest. Slices
   * keep an output in cache for the element that copies it on; when
   * downstream lends the memory the output goes to, nothing copies it,
   * and whole chunks leave the threads more work to share. */
  if (!priv->direct_output)
    n_rows = MIN (n_rows, priv->slice_rows);

  for (l = pads, i = 0; l; l = l->next, i++, n_mapped++) {
    PlanKernelPad *pad = l->data;

    /* An input in device memory is copied to the host once per buffer. */
    if (!_plan_kernel_device_input (priv->device, i, &heads[i], &err))
      goto device_failed;
    if (!gst_buffer_map (heads[i], &priv->maps[i], GST_MAP_READ))
      goto map_failed;
    priv->chunk_data[i] = priv->maps[i].data +
        pad->consumed * plan_array_info_get_row_size (&pad->info);
  }

  memset (&chunk, 0, sizeof (chunk));
  chunk.n_inputs = priv->n_inputs;
  chunk.data = priv->chunk_data;
  chunk.first_row = ((PlanKernelPad *) pads->data)->next_row;
  chunk.n_rows = n_rows;
  priv->heads = heads;
  priv->maps_held = FALSE;
  previous = _plan_thread_enter_callback (GST_ELEMENT (self));
  ret = klass->process (self, &chunk);
  _plan_thread_leave_callback (previous);
  priv->heads = NULL;
  /* A chunk held (plan_kernel_element_hold_chunk()) keeps its maps. */
  if (priv->maps_held)
    n_mapped = 0;
  /* Inputs that are pages of a file another process cut short meanwhile
   * read zeros where the file ended: the result is not the file's. */
  for (i = 0; i < n_mapped && ret == GST_FLOW_OK; i++)
    if (!_plan_buffer_check_mapped (heads[i], &err))
      goto input_changed;

advance:
  for (l = pads, i = 0; l; l = l->next, i++) {
    PlanKernelPad *pad = l->data;

    if (i < n_mapped)
      gst_buffer_unmap (heads[i], &priv->maps[i]);
    pad->consumed += n_rows;
    pad->next_row += n_rows;
    if (pad->consumed * plan_array_info_get_row_size (&pad->info) ==
        gst_buffer_get_size (heads[i])) {
      GstBuffer *used = _plan_kernel_element_pop_input (self, pad);

      gst_clear_buffer (&used);
      pad->consumed = 0;
      *dropped = TRUE;
    }
  }
  return ret;

  /* ERRORS */
input_changed:
  {
    GstPad *changed = g_list_nth_data (pads, i);

    for (i = 0; i < n_mapped; i++)
      gst_buffer_unmap (heads[i], &priv->maps[i]);
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("%s", err->message),
        ("input %s", GST_PAD_NAME (changed)));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
map_failed:
  {
    for (i = 0; i < n_mapped; i++)
      gst_buffer_unmap (heads[i], &priv->maps[i]);
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("Could not map a buffer of input %s for reading.",
            GST_PAD_NAME (g_list_nth_data (pads, n_mapped))), (NULL));
    return GST_FLOW_ERROR;
  }
device_failed:
  {
    for (i = 0; i < n_mapped; i++)
      gst_buffer_unmap (heads[i], &priv->maps[i]);
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("Could not copy a buffer of input %s from the device.",
            GST_PAD_NAME (g_list_nth_data (pads, n_mapped))), ("%s",
            err->message));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
}

/* Works through the rows the heads share, slice after slice, until one of
 * them is used up: one aggregate() per input buffer rather than per slice,
 * which spares the aggregator's locking and wake-ups between slices. A
 * flush or an error from downstream stops it at once. */
static GstFlowReturn
process_rows (PlanKernelElement * self, GList * pads, GstBuffer ** heads)
{
  gboolean dropped = FALSE;
  GstFlowReturn ret;

  do
    ret = process_slice (self, pads, heads, &dropped);
  while (ret == GST_FLOW_OK && !dropped);
  return ret;
}

/* The rows of the inputs' segment (the first input's; the others must
 * match it, or the row checks say where they differ) are a stream of their
 * own: the subclass starts over, the output is numbered from the first
 * output row of the range, and the output segment says which rows follow.
 * A reduction so reduces the rows a seek selected, and a stencil pads the
 * range's edges by its boundary mode rather than reading rows outside. */
static void
start_range (PlanKernelElement * self, PlanKernelPad * first)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  guint64 out_first = first->range_first;
  gint64 out_end = first->range_end;
  GstSegment segment;

  priv->new_range = FALSE;
  priv->range_finished = FALSE;
  if (klass->output_range)
    klass->output_range (self, first->range_first, first->range_end,
        &out_first, &out_end);
  if (klass->reset)
    klass->reset (self);
  priv->out_rows = out_first;
  priv->n_unpushed = 0;
  priv->output_started = FALSE;
  priv->discont = TRUE;

  /* In output rows; its time is the input's: the position in the stream
   * its first row stands for (a reduction's one result row 0 stands for
   * the rows from the first sought), as a decoder's output keeps its
   * input's stream time. */
  gst_segment_init (&segment, GST_FORMAT_DEFAULT);
  segment.start = segment.position = out_first;
  segment.time = first->range_time;
  segment.stop = out_end < 0 ? GST_CLOCK_TIME_NONE : (guint64) out_end;
  /* Rows sampled in time: the same in time, so that sinks can sync to
   * the buffers' timestamps; an input segment in time whose rows are the
   * output's goes on as it came (a seek's exact start kept). */
  if (plan_array_info_has_rate (&priv->output)) {
    if (first->in_segment.format == GST_FORMAT_TIME
        && out_first == first->range_first && out_end == first->range_end) {
      gst_segment_copy_into (&first->in_segment, &segment);
    } else {
      gst_segment_init (&segment, GST_FORMAT_TIME);
      segment.start = segment.position =
          plan_array_info_rows_to_time (&priv->output, out_first);
      segment.stop = out_end < 0 ? GST_CLOCK_TIME_NONE :
          plan_array_info_rows_to_time (&priv->output, out_end);
      segment.time = first->in_segment.format == GST_FORMAT_TIME ?
          first->in_segment.time :
          plan_array_info_rows_to_time (&priv->output, first->range_time);
    }
  }
  gst_aggregator_update_segment (GST_AGGREGATOR (self), &segment);
  GST_DEBUG_OBJECT (self, "input rows %" G_GUINT64_FORMAT " to %"
      G_GINT64_FORMAT " make output rows %" G_GUINT64_FORMAT " to %"
      G_GINT64_FORMAT, first->range_first, first->range_end, out_first,
      out_end);
}

/* Ends the range of rows under way as EOS would, with no EOS: what the
 * subclass held back for the end (a reduction's result, a stencil's last
 * rows, which its boundary pads) goes out now, and the next segment starts
 * a range of its own, computed afresh. Without it the next range reset the
 * subclass and the range before lost its end: a whole reduction gave no
 * result, or the last stream's alone, and a stencil lost its last rows.
 *
 * Two events end a range so. SEGMENT_DONE, the end of a segment seek's
 * range (GST_SEEK_FLAG_SEGMENT: an application looping over rows), once
 * every input has sent it: @segment_done. And a new stream on the input of
 * an element of one input (a STREAM_START of another stream id that no EOS
 * came before: concat joining streams one after another); with several
 * inputs the streams need not end together, and the new segment starts
 * over as after a seek. */
GstFlowReturn
_plan_kernel_element_end_range (PlanKernelElement * self,
    PlanKernelPad * pad, gboolean segment_done)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  GstFlowReturn ret = GST_FLOW_OK;
  GList *pads, *l;

  /* No stream yet (its caps configure the element), or its end was
   * already made (at its EOS, or at the SEGMENT_DONE before). */
  if (!priv->configured || priv->range_finished
      || g_atomic_int_get (&priv->failed)
      || (!segment_done && priv->n_inputs != 1))
    return GST_FLOW_OK;
  pads = _plan_kernel_element_get_sink_pads (self);
  pad->segment_done = segment_done;
  for (l = pads; l && segment_done; l = l->next)
    if (!((PlanKernelPad *) l->data)->segment_done)
      goto done;
  /* A range of no rows never came to aggregate(): it starts here, so that
   * its end is that of a range of no rows. */
  if (priv->new_range)
    start_range (self, pads->data);
  pad = pads->data;
  GST_DEBUG_OBJECT (self, "%s after rows %" G_GUINT64_FORMAT " to %"
      G_GUINT64_FORMAT ": ending the range", segment_done ? "segment done" :
      "a new stream", pad->range_first, pad->next_row);
  for (l = pads; l && ret == GST_FLOW_OK; l = l->next)
    if (!check_complete (self, l->data))
      ret = GST_FLOW_ERROR;
  priv->range_finished = TRUE;
  if (ret == GST_FLOW_OK && klass->finish) {
    GstElement *previous = _plan_thread_enter_callback (GST_ELEMENT (self));

    ret = klass->finish (self, pad->next_row - pad->range_first);
    _plan_thread_leave_callback (previous);
  }
  if (ret == GST_FLOW_OK)
    ret = _plan_kernel_device_finish (priv->device);
  if (ret == GST_FLOW_ERROR || ret == GST_FLOW_NOT_NEGOTIATED) {
    g_atomic_int_set (&priv->failed, TRUE);
    _plan_kernel_element_tell_ranks (self);
  }

done:
  g_list_free_full (pads, gst_object_unref);
  return ret;
}

/* An element that holds its output back (a reduction until the end, a
 * stencil for its halo) would leave the sinks waiting for a first buffer,
 * and the pipeline in PAUSED while it computes everything. Once the rows
 * it has seen gave no output, a GAP event lets the sinks preroll: the
 * push blocks until the pipeline plays (as a buffer's would), and the rest
 * is computed in PLAYING. The segment goes first (after a flush the
 * aggregator would only send it with the first buffer). */
void
_plan_kernel_element_preroll_downstream (PlanKernelElement * self)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  GstPad *srcpad = GST_AGGREGATOR_SRC_PAD (self);
  GstEvent *event;
  GstSegment segment;

  if (priv->output_started || !priv->configured
      || !gst_pad_has_current_caps (srcpad))
    return;
  priv->output_started = TRUE;
  GST_OBJECT_LOCK (self);
  segment = GST_AGGREGATOR_PAD (srcpad)->segment;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "no output yet: a GAP lets downstream preroll");
  /* Both answer the input's segment (GstAggregator gives the segment it
   * sends with the first buffer the same seqnum). */
  event = gst_event_new_segment (&segment);
  if (priv->segment_seqnum != GST_SEQNUM_INVALID)
    gst_event_set_seqnum (event, priv->segment_seqnum);
  gst_pad_push_event (srcpad, event);
  event = gst_event_new_gap (0, GST_CLOCK_TIME_NONE);
  if (priv->segment_seqnum != GST_SEQNUM_INVALID)
    gst_event_set_seqnum (event, priv->segment_seqnum);
  gst_pad_push_event (srcpad, event);
}

/* In a sharded run of several ranks, every input must be a share: an
 * input without PLAN_EVENT_SHARD has every row of its stream on every
 * rank, which would meet another input's share row for row (and, where
 * the lengths happen to agree, give a result without an error). Checked
 * when every input has a buffer: the events before it have come. */
static gboolean
check_all_sharded (PlanKernelElement * self, GList * pads)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  PlanKernelPad *sharded = NULL, *whole = NULL;
  GList *l;

  if (!priv->sharded || priv->shard.n_ranks < 2 || pads->next == NULL)
    return TRUE;
  for (l = pads; l; l = l->next) {
    PlanKernelPad *pad = l->data;

    if (pad->sharded && sharded == NULL)
      sharded = pad;
    else if (!pad->sharded && whole == NULL)
      whole = pad;
  }
  if (whole == NULL || sharded == NULL)
    return TRUE;
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s mixes a sharded input with "
          "one that is not: %s is rank %u's share of its stream (rows %"
          G_GUINT64_FORMAT " + %" G_GINT64_FORMAT " of %" G_GUINT64_FORMAT
          "), but %s is not sharded, so every rank has all of its rows, and "
          "the rows would not line up. Read every input of an element with "
          "shard=mpi (planfilesrc), so that each is the same share.",
          GST_ELEMENT_NAME (self), GST_PAD_NAME (sharded), priv->shard.rank,
          priv->shard.origin, priv->shard.n_rows, priv->shard.total,
          GST_PAD_NAME (whole)), (NULL));
  return FALSE;
}

/* No caps came: an input that sent rows without them (an appsrc without
 * its caps property) is named, rather than said to have sent nothing. */
static void
post_no_caps (PlanKernelElement * self, GList * pads, GstBuffer ** heads)
{
  GList *l;
  guint i;

  for (l = pads, i = 0; l; l = l->next, i++) {
    GstCaps *caps;

    if (heads[i] == NULL)
      continue;
    caps = gst_pad_get_current_caps (l->data);
    if (caps) {
      gst_caps_unref (caps);
      continue;
    }
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Input %s of %s sent data before its caps: an array stream starts "
            "with caps that give its dtype and shape (array/x-raw, "
            "dtype=float32, shape=<-1, 3> say; an appsrc takes them in its "
            "caps property).", GST_PAD_NAME (l->data),
            GST_ELEMENT_NAME (self)), (NULL));
    return;
  }
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("An input of %s ended before its caps were known: nothing "
          "upstream sent data.", GST_ELEMENT_NAME (self)), (NULL));
}

GstFlowReturn
_plan_kernel_element_aggregate (GstAggregator * agg, gboolean timeout)
{
  PlanKernelElement *self = PLAN_KERNEL_ELEMENT (agg);
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  GList *pads = _plan_kernel_element_get_sink_pads (self), *l;
  GstBuffer **heads;
  gboolean have_all = TRUE;
  GstFlowReturn ret;
  guint i, n = g_list_length (pads);

  if (n == 0) {
    g_list_free (pads);
    GST_ELEMENT_ERROR (self, CORE, PAD, ("%s has no inputs.",
            GST_ELEMENT_NAME (self)), (NULL));
    g_atomic_int_set (&GET_PRIV (self)->failed, TRUE);
    return GST_FLOW_ERROR;
  }
  /* An input released while the element computes (an application
   * unlinking it in PLAYING): the kernel was set up for the inputs it
   * had, and would read the rows of one that is gone. */
  if (priv->configured && n != priv->n_inputs) {
    g_list_free_full (pads, gst_object_unref);
    GST_ELEMENT_ERROR (self, CORE, PAD, ("%s lost an input while it "
            "computes: it has %u now, and it computes with %u. Inputs are "
            "fixed once their caps came: release a pad in the NULL or "
            "READY state.", GST_ELEMENT_NAME (self), n, priv->n_inputs),
        (NULL));
    g_atomic_int_set (&priv->failed, TRUE);
    return GST_FLOW_ERROR;
  }
  /* Output to nowhere: said before any work is done (a reduction would
   * otherwise compute everything and fail silently at its only push). */
  if (!gst_pad_is_linked (GST_AGGREGATOR_SRC_PAD (self))) {
    g_list_free_full (pads, gst_object_unref);
    GST_ELEMENT_ERROR (self, CORE, PAD, ("%s has nothing linked downstream: "
            "link its src pad to an element that takes its output (a sink "
            "such as planfilesink or fakesink).", GST_ELEMENT_NAME (self)),
        ("streaming stopped, reason not-linked"));
    g_atomic_int_set (&GET_PRIV (self)->failed, TRUE);
    return GST_FLOW_ERROR;
  }

  heads = g_newa (GstBuffer *, n);
  for (l = pads, i = 0; l; l = l->next, i++) {
    heads[i] = gst_aggregator_pad_peek_buffer (l->data);
    have_all &= heads[i] != NULL;
  }

  /* Negotiation (update_src_caps) configures the element before the
   * first aggregate; an input whose stream ended without caps leaves it
   * unconfigured. */
  if (GET_PRIV (self)->configured && GET_PRIV (self)->new_range)
    start_range (self, pads->data);
  if (!GET_PRIV (self)->configured)
    goto no_caps;
  else if (have_all && !check_all_sharded (self, pads)) {
    ret = GST_FLOW_ERROR;
  } else if (have_all) {
    ret = process_rows (self, pads, heads);
    if (ret == GST_FLOW_OK)
      _plan_kernel_element_preroll_downstream (self);
  } else
    /* Some input has ended (the aggregator calls us only when every pad
     * has data or is at EOS). */
    ret = finish_inputs (self, pads);

  /* Downstream refused the caps pushed (a push says so only as a flow). */
  if (ret == GST_FLOW_NOT_NEGOTIATED && !g_atomic_int_get (&priv->failed)) {
    GstCaps *caps = gst_pad_get_current_caps (GST_AGGREGATOR_SRC_PAD (self));

    if (caps)
      _plan_kernel_element_post_refused_caps (self, caps, NULL);
    else
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("Downstream of %s refused its output.", GST_ELEMENT_NAME (self)),
          (NULL));
    gst_clear_caps (&caps);
  }
  if (ret == GST_FLOW_ERROR || ret == GST_FLOW_NOT_NEGOTIATED)
    g_atomic_int_set (&priv->failed, TRUE);

done:
  if (g_atomic_int_get (&priv->failed))
    _plan_kernel_element_tell_ranks (self);
  for (i = 0; i < n; i++)
    gst_clear_buffer (&heads[i]);
  g_list_free_full (pads, gst_object_unref);
  return ret;

  /* ERRORS */
no_caps:
  {
    /* Upstream posted why its stream ended: end ours the same way, with
     * EOS and no error of our own. */
    if (g_atomic_int_get (&priv->upstream_failed)) {
      ret = GST_FLOW_EOS;
      goto done;
    }
    /* Unless setup() failed, which said why. */
    if (!g_atomic_int_get (&priv->failed))
      post_no_caps (self, pads, heads);
    g_atomic_int_set (&priv->failed, TRUE);
    ret = GST_FLOW_NOT_NEGOTIATED;
    goto done;
  }
}
