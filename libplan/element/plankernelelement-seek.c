/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Seeks, flushes and the queries PlanKernelElement answers about its
 * output: a seek in rows (or bytes, or time at the output's rate) goes
 * upstream to every input, a byte seek that comes before the output's row
 * size is known waits for it; a flush resets what the inputs had lined
 * up; duration, position and seeking are answered from upstream's, in the
 * output's rows. The locks are those written at the top of
 * plankernelelement.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plankernelelement-private.h"
#include <libplan/planerror.h>
#include <libplan/planshardhooks.h>

#include <string.h>

#define GST_CAT_DEFAULT plan_kernel_element_debug

/* GstAggregator's class, which the vmethods here chain up to. */
#define parent_class (_plan_kernel_element_get_parent_class ())

void
_plan_kernel_element_reset_state (PlanKernelElement * self)
{
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  GList *pads = _plan_kernel_element_get_sink_pads (self), *l;

  for (l = pads; l; l = l->next) {
    PlanKernelPad *pad = l->data;

    pad->consumed = 0;
    pad->next_row = 0;
    pad->range_first = 0;
    pad->range_end = -1;
    pad->range_time = 0;
    pad->ended_early = FALSE;
    pad->segment_done = FALSE;
  }
  g_list_free_full (pads, gst_object_unref);
  g_atomic_int_set (&GET_PRIV (self)->ended_early, FALSE);
  GET_PRIV (self)->out_rows = 0;
  GET_PRIV (self)->new_range = FALSE;
  GET_PRIV (self)->output_started = FALSE;
  GET_PRIV (self)->range_finished = FALSE;
  GET_PRIV (self)->discont = TRUE;
  GET_PRIV (self)->n_unpushed = 0;
  GET_PRIV (self)->direct_output = FALSE;
  GET_PRIV (self)->lending_refused = FALSE;
  if (klass->reset)
    klass->reset (self);
}

/* Whether every input's upstream can seek in @format; the first answer's
 * range in @start and @end. */
static gboolean
upstream_seekable (PlanKernelElement * self, GstFormat format,
    gint64 * start, gint64 * end)
{
  GList *pads = _plan_kernel_element_get_sink_pads (self), *l;
  gboolean seekable = pads != NULL;

  *start = 0;
  *end = -1;
  for (l = pads; l && seekable; l = l->next) {
    GstQuery *query = gst_query_new_seeking (format);
    gint64 s, e;

    seekable = gst_pad_peer_query (l->data, query);
    if (seekable)
      gst_query_parse_seeking (query, NULL, &seekable, &s, &e);
    if (seekable && l == pads) {
      *start = s;
      *end = e;
    }
    gst_query_unref (query);
  }
  g_list_free_full (pads, gst_object_unref);
  return seekable;
}

/* Whether the first input's upstream can seek in time: its rate will be
 * the output's. */
static gboolean
first_upstream_in_time (PlanKernelElement * self)
{
  GList *pads = _plan_kernel_element_get_sink_pads (self);
  GstQuery *query = gst_query_new_seeking (GST_FORMAT_TIME);
  gboolean seekable = pads && gst_pad_peer_query (pads->data, query);

  if (seekable)
    gst_query_parse_seeking (query, NULL, &seekable, NULL, NULL);
  gst_query_unref (query);
  g_list_free_full (pads, gst_object_unref);
  return seekable;
}

/* Whether the output rows are the input rows before the element is set
 * up: no output_range(), or one that keeps rows as they are whatever the
 * caps (plancustom in map mode). */
static gboolean
rows_are_input_rows (PlanKernelElement * self)
{
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  guint64 first = 3;
  gint64 end = 10;

  if (klass->output_range)
    klass->output_range (self, 3, 10, &first, &end);
  return first == 3 && end == 10;
}

/* Whether the output, as the element is set up, stands for all its input
 * rows (output_range() gives no range of output rows: a reduction of the
 * rows or of everything) rather than for rows of its own. */
static gboolean
output_stands_for_all_rows (PlanKernelElement * self)
{
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  guint64 first = 0;
  gint64 end = 10;

  if (klass->output_range)
    klass->output_range (self, 0, 10, &first, &end);
  return end < 0;
}

/* A start or stop of a seek between rows and time at the rate of @time:
 * rows to time with @to_time (a start rounded up, a stop down: the time
 * of a row and of the row the stop names), time to rows otherwise (a
 * start rounded down, a stop up: the row sampled at or before a start,
 * the first at or after a stop, plan_array_info_get_segment_rows()'s).
 * Left as it is where it is not set. */
static gint64
convert_seek_value (const PlanArrayInfo * time, GstSeekType type, gint64 v,
    gboolean to_time, gboolean stop)
{
  guint64 s = GST_SECOND * (guint64) time->rate_d, r;
  guint64 num = to_time ? s : (guint64) time->rate_n;
  guint64 den = to_time ? (guint64) time->rate_n : s;

  if (type == GST_SEEK_TYPE_NONE || v == -1)
    return v;
  r = to_time != stop ? gst_util_uint64_scale_ceil (ABS (v), num, den) :
      gst_util_uint64_scale (ABS (v), num, den);
  return v < 0 ? -(gint64) r : (gint64) r;
}

/* Refuses @event (taken) for the reason @text (taken): logged, and given
 * to @why when there is one. Returns NULL. */
static GstEvent *
refuse_seek (PlanKernelElement * self, GstEvent * event, gchar ** why,
    gchar * text)
{
  GST_DEBUG_OBJECT (self, "refusing %s", text);
  if (why)
    *why = text;
  else
    g_free (text);
  gst_event_unref (event);
  return NULL;
}

/* Whether a seek in rows selects none (its start after its stop), or no
 * row of an input that is a 0-d array (one row, its value, which numpy
 * cannot slice and the stream could not hold): the source refuses it, but
 * only once the seek has come to it, GstAggregator having flushed the
 * output meanwhile, so that the pipeline would wait for ever for rows. */
static const gchar *
seek_selects_nothing (PlanKernelElement * self, GstSeekType start_type,
    gint64 start, GstSeekType stop_type, gint64 stop)
{
  GList *pads, *l;
  gint64 first = start_type == GST_SEEK_TYPE_SET ? MAX (start, 0) : 0;
  gboolean stop_set = stop_type == GST_SEEK_TYPE_SET && stop >= 0;
  gboolean zero_d = FALSE;
  GstSegment segment;

  if (start_type == GST_SEEK_TYPE_SET && stop_set && start > stop)
    return "its start comes after its stop";
  /* A stop left as it is (GST_SEEK_TYPE_NONE) is the output segment's,
   * which GstAggregator moves by the seek (gst_segment_do_seek() refuses a
   * start after it with a critical warning, once the output is flushed),
   * and upstream's, which the source keeps (and refuses the seek, once
   * the output is flushed): an earlier seek's stop. */
  GST_OBJECT_LOCK (self);
  segment = GST_AGGREGATOR_PAD (GST_AGGREGATOR_SRC_PAD (self))->segment;
  GST_OBJECT_UNLOCK (self);
  if (segment.format == GST_FORMAT_DEFAULT
      && !plan_array_info_seek_is_range (&segment, start_type, start,
          stop_type, stop))
    return "its start comes after the stop it keeps, the output segment's";
  if (start_type == GST_SEEK_TYPE_SET && stop_type == GST_SEEK_TYPE_NONE) {
    gboolean after = FALSE;

    pads = _plan_kernel_element_get_sink_pads (self);
    for (l = pads; l && !after; l = l->next) {
      GstQuery *query = gst_query_new_segment (GST_FORMAT_DEFAULT);
      GstFormat format;
      gint64 kept, duration = -1;

      /* GstBaseSrc answers the duration for a stop left unset: a start
       * past the end is a range of no rows, which is not refused. */
      if (gst_pad_peer_query (l->data, query)) {
        gst_query_parse_segment (query, NULL, &format, NULL, &kept);
        after = format == GST_FORMAT_DEFAULT && kept >= 0 && start > kept
            && gst_pad_peer_query_duration (l->data, GST_FORMAT_DEFAULT,
            &duration) && duration >= 0 && kept < duration;
      }
      gst_query_unref (query);
    }
    g_list_free_full (pads, gst_object_unref);
    if (after)
      return "its start comes after the stop it keeps, upstream's";
  }
  if (first < 1 && !(stop_set && stop <= first))
    return NULL;
  pads = _plan_kernel_element_get_sink_pads (self);
  for (l = pads; l && !zero_d; l = l->next) {
    GstCaps *caps = gst_pad_get_current_caps (l->data);
    PlanArrayInfo info;

    /* Before the caps come (a seek in PAUSED, the sink not prerolling),
     * what upstream can give: a file's fixed caps. */
    if (caps == NULL)
      caps = gst_pad_peer_query_caps (l->data, NULL);
    zero_d = caps && gst_caps_is_fixed (caps)
        && plan_array_info_from_caps (&info, caps, NULL) && info.ndim == 0;
    gst_clear_caps (&caps);
  }
  g_list_free_full (pads, gst_object_unref);
  return zero_d ? "it selects no row of an input that is a 0-d array (one "
      "value)" : NULL;
}

/* Turns a seek on the output into the seek in rows sent upstream, or
 * refuses it (returns NULL, having taken @event; the reason in @why): only
 * rows (GST_FORMAT_DEFAULT) and, where output rows are input rows, bytes
 * of the output and (rows sampled in time) time can be sought, forwards.
 * Refused here, a seek leaves the pipeline as it was: nothing is flushed,
 * and it runs on to EOS. */
static GstEvent *
prepare_seek (PlanKernelElement * self, GstEvent * event, gboolean * queued,
    gchar ** why)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  GstSeekType start_type, stop_type;
  GstSeekFlags flags;
  GstFormat format;
  gint64 start, stop, first, end;
  PlanArrayInfo time;
  gboolean unknown, in_time;
  gdouble rate;
  gsize row;
  guint n;

  *queued = FALSE;
  gst_event_parse_seek (event, &rate, &format, &flags, &start_type, &start,
      &stop_type, &stop);
  GST_OBJECT_LOCK (self);
  row = priv->seek_row_size;
  unknown = priv->out_row_size == 0;
  time = priv->out_time;
  in_time = priv->inputs_in_time;
  /* A seek supersedes one still waiting for caps. */
  n = ++priv->n_seeks;
  gst_clear_event (&priv->pending_seek);
  GST_OBJECT_UNLOCK (self);

  /* Bytes of the output become rows once its caps say how long a row is,
   * and time is the output's once they say its rate (a seek made as soon
   * as the pipeline is in PAUSED comes before them when the sinks do not
   * preroll): it waits for them, and is made then
   * (_plan_kernel_element_send_pending_seek()). Only where output rows are
   * input rows whatever the caps (rows_are_input_rows()), and upstream can
   * seek in rows (and the first input in time, whose rate the output takes,
   * for a seek in time): a reduction's is refused at once. */
  if (rate > 0.0 && (format == GST_FORMAT_BYTES || format == GST_FORMAT_TIME)
      && unknown && rows_are_input_rows (self)
      && upstream_seekable (self, GST_FORMAT_DEFAULT, &first, &end)
      && (format == GST_FORMAT_BYTES || first_upstream_in_time (self))) {
    GST_OBJECT_LOCK (self);
    /* (Unless the caps came meanwhile.) */
    *queued = priv->out_row_size == 0 && priv->n_seeks == n;
    if (*queued) {
      gst_event_replace (&priv->pending_seek, event);
      priv->pending_seek_n = n;
    }
    /* The caps may have come meanwhile: what they say, rate and all. */
    row = priv->seek_row_size;
    time = priv->out_time;
    in_time = priv->inputs_in_time;
    GST_OBJECT_UNLOCK (self);
    if (*queued) {
      GST_DEBUG_OBJECT (self, "a seek in %s before the output's caps: made "
          "once they are known", gst_format_get_name (format));
      gst_event_unref (event);
      return NULL;
    }
  }

  if (rate <= 0.0)
    goto refuse;
  /* An instant rate change asks the element that makes the segments to
   * announce the new rate in time, with no seek: none upstream does
   * (GstBaseSrc takes it for a seek without FLUSH, which waits for its
   * streaming thread, blocked downstream in PAUSED: the seek never
   * returned). Refused here, as GStreamer's filters refuse it. */
  if (flags & GST_SEEK_FLAG_INSTANT_RATE_CHANGE) {
    return refuse_seek (self, event, why, g_strdup ("an instant rate "
            "change (GST_SEEK_FLAG_INSTANT_RATE_CHANGE) is not supported: "
            "seek with GST_SEEK_FLAG_FLUSH at the new rate instead"));
  }
  /* A seek without FLUSH of several inputs: each source makes it when
   * its streaming thread comes to it, with the chunks it had sent before
   * still queued here, so the last chunk of one input before the seek
   * would pair with the first of another after it. (And inputs sought in
   * rows under an output in time, below, would have GstAggregator move
   * the output's segment by a seek in rows, which starts its running
   * time again.) A flushing seek drops what was queued. */
  if (!(flags & GST_SEEK_FLAG_FLUSH) && GST_ELEMENT (self)->numsinkpads > 1) {
    return refuse_seek (self, event, why, g_strdup ("a seek without the "
            "FLUSH flag cannot be made on an element of several inputs: "
            "the chunks each input sent before it would pair with chunks "
            "of the others after it; seek with GST_SEEK_FLAG_FLUSH"));
  }
  /* Time, for rows sampled in time, where output rows are input rows: the
   * rows sampled from the start to (not including) the stop. Inputs
   * sampled at the output's rate are sought in time; where one is not (a
   * planmap of a signal and of a table of coefficients, or of two signals
   * at different rates: their rows pair up, not their times), all are
   * sought in rows, which every input has (priv->inputs_in_time). */
  if (format == GST_FORMAT_TIME && row > 0
      && plan_array_info_has_rate (&time)) {
    /* Output rows are input rows, at the input's rate: the same time
     * upstream, whose segment in time comes back with the seek's exact
     * start; or those rows, upstream in rows. */
    if (!in_time) {
      GstEvent *rows = gst_event_new_seek (rate, GST_FORMAT_DEFAULT, flags,
          start_type, convert_seek_value (&time, start_type, start, FALSE,
              FALSE), stop_type, convert_seek_value (&time, stop_type, stop,
              FALSE, TRUE));

      gst_event_set_seqnum (rows, gst_event_get_seqnum (event));
      gst_event_unref (event);
      event = rows;
    }
  } else if (format == GST_FORMAT_BYTES && row > 0) {
    GstEvent *rows;

    if (start_type != GST_SEEK_TYPE_NONE && start > 0)
      start /= (gint64) row;
    if (stop_type != GST_SEEK_TYPE_NONE && stop > 0)
      stop /= (gint64) row;
    rows = gst_event_new_seek (rate, GST_FORMAT_DEFAULT, flags, start_type,
        start, stop_type, stop);
    gst_event_set_seqnum (rows, gst_event_get_seqnum (event));
    gst_event_unref (event);
    event = rows;
    format = GST_FORMAT_DEFAULT;
  } else if (format != GST_FORMAT_DEFAULT) {
    goto refuse;
  }
  if (format == GST_FORMAT_DEFAULT) {
    const gchar *nothing = seek_selects_nothing (self, start_type, start,
        stop_type, stop);

    if (nothing)
      return refuse_seek (self, event, why, g_strdup_printf ("a seek to "
              "rows %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT " cannot be "
              "made: %s", start, stop, nothing));
  }
  /* Rows (or bytes) of an output sampled in time: its segment is in time,
   * and GstAggregator moves it by the seek in the seek's format, so the
   * seek is made in time where the inputs can take it: from the time of its first row, rounded up, and
   * to that of its stop, rounded down, which upstream turns back into the
   * same rows (plan_array_info_get_segment_rows()). */
  if (format == GST_FORMAT_DEFAULT && row > 0 && in_time) {
    GstEvent *seek;

    start = convert_seek_value (&time, start_type, start, TRUE, FALSE);
    stop = convert_seek_value (&time, stop_type, stop, TRUE, TRUE);
    seek = gst_event_new_seek (rate, GST_FORMAT_TIME, flags, start_type,
        start, stop_type, stop);
    gst_event_set_seqnum (seek, gst_event_get_seqnum (event));
    gst_event_unref (event);
    event = seek;
  }
  if (!upstream_seekable (self, GST_FORMAT_DEFAULT, &first, &end))
    goto not_seekable;
  GST_DEBUG_OBJECT (self, "seeking upstream to rows %" G_GINT64_FORMAT
      " to %" G_GINT64_FORMAT, start, stop);
  return event;

refuse:
  return refuse_seek (self, event, why, g_strdup_printf ("a seek in %s at "
          "rate %g cannot be made: only rows (default format)%s can be "
          "sought, forwards", gst_format_get_name (format), rate, row == 0 ?
          "" : plan_array_info_has_rate (&time) ? ", bytes or time" :
          " or bytes"));
not_seekable:
  {
    GST_DEBUG_OBJECT (self, "refusing a seek in %s: an input's upstream "
        "cannot seek in rows", gst_format_get_name (format));
    if (why)
      *why = g_strdup ("an input's upstream cannot seek in rows");
    gst_event_unref (event);
    return NULL;
  }
}

/* Makes a seek; with @why, the reason it was refused here (NULL when
 * upstream refused it). */
gboolean
_plan_kernel_element_seek (GstAggregator * agg, GstEvent * event,
    gchar ** why)
{
  PlanKernelElementPrivate *priv = GET_PRIV (agg);
  GstSegment *segment;
  GstSeekFlags flags;
  GstFormat format;
  gboolean ret, queued;

  event = prepare_seek (PLAN_KERNEL_ELEMENT (agg), event, &queued, why);
  if (event == NULL)
    return queued;
  gst_event_parse_seek (event, NULL, &format, &flags, NULL, NULL, NULL,
      NULL);
  /* The seek is in the output's format (prepare_seek()), but the output
   * segment takes that format only when the first range starts: a seek
   * that waited for the caps comes between the two. GstAggregator moves
   * its segment by the seek, which must be in the seek's format; the
   * range's start then sets it whole. */
  GST_OBJECT_LOCK (agg);
  segment = &GST_AGGREGATOR_PAD (agg->srcpad)->segment;
  if (segment->format != format) {
    GST_DEBUG_OBJECT (agg, "output segment in %s before its first range: "
        "now in %s, the seek's format", gst_format_get_name
        (segment->format), gst_format_get_name (format));
    gst_segment_init (segment, format);
  }
  GST_OBJECT_UNLOCK (agg);
  if (!(flags & GST_SEEK_FLAG_FLUSH))
    return GST_AGGREGATOR_CLASS (parent_class)->src_event
        (agg, event);

  /* Set before GstAggregator starts the seek (and drops output); cleared
   * by the flush, before the range sought starts (its EOS must pass), or
   * after a seek that flushed nothing. A seek that comes again (by a
   * second sink) GstAggregator drops: it sets nothing. */
  GST_OBJECT_LOCK (agg);
  if (gst_event_get_seqnum (event) != priv->seek_seqnum) {
    priv->seek_seqnum = gst_event_get_seqnum (event);
    g_atomic_int_set (&priv->seeking, 1);
  }
  GST_OBJECT_UNLOCK (agg);
  ret = GST_AGGREGATOR_CLASS (parent_class)->src_event
      (agg, event);
  g_atomic_int_set (&priv->seeking, 0);
  return ret;
}

gboolean
_plan_kernel_element_src_event (GstAggregator * agg, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) != GST_EVENT_SEEK)
    return GST_AGGREGATOR_CLASS (parent_class)->src_event
        (agg, event);
  return _plan_kernel_element_seek (agg, event, NULL);
}

/* Whether a duration or position query in @format is answered here, for
 * an output of rows of @row bytes with the rate of @time: ROWS_NONE (time
 * asked of rows not sampled in time, or rows, bytes or time before the
 * output is known: no answer), ROWS_UPSTREAM (another format: the parent
 * class answers) or ROWS_HERE. Before the output's caps upstream's rows
 * and bytes would be the input's (a reduction's input rows, a float32
 * input's bytes for a float64 output), so nothing is answered until
 * setup, which posts a duration-changed message. */
typedef enum
{
  ROWS_NONE,
  ROWS_UPSTREAM,
  ROWS_HERE,
} RowsAnswer;

static RowsAnswer
rows_answer (GstFormat format, gsize row, const PlanArrayInfo * time)
{
  if (format != GST_FORMAT_DEFAULT && format != GST_FORMAT_BYTES
      && format != GST_FORMAT_TIME)
    return ROWS_UPSTREAM;
  if (row == 0 || (format == GST_FORMAT_TIME
          && !plan_array_info_has_rate (time)))
    return ROWS_NONE;
  return ROWS_HERE;
}

/* @rows of the output in @format (rows, bytes or time). */
static gint64
rows_in_format (GstFormat format, gint64 rows, gsize row,
    const PlanArrayInfo * time)
{
  if (format == GST_FORMAT_TIME)
    return plan_array_info_rows_to_time (time, rows);
  return format == GST_FORMAT_BYTES ? rows * (gint64) row : rows;
}

/* The duration of the output in rows: the rows its caps give, or else the
 * first input's duration in rows made output rows as output_range() makes
 * them (a valid stencil's 2h fewer); -1 when not known. With @in_rows,
 * the first input's duration in rows there (-1 when not known). */
static gint64
output_rows (PlanKernelElement * self, gint64 caps_rows, gint64 * in_rows)
{
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  gint64 rows, upstream = -1;
  GList *pads;
  gboolean ok = FALSE;

  if (caps_rows < 0 || in_rows != NULL) {
    pads = _plan_kernel_element_get_sink_pads (self);
    ok = pads != NULL && gst_pad_peer_query_duration (pads->data,
        GST_FORMAT_DEFAULT, &upstream) && upstream >= 0;
    g_list_free_full (pads, gst_object_unref);
    if (!ok)
      upstream = -1;
  }
  if (in_rows != NULL)
    *in_rows = upstream;
  if (caps_rows >= 0)
    return caps_rows;
  if (!ok)
    return -1;
  rows = upstream;
  if (klass->output_range) {
    guint64 out_first;

    klass->output_range (self, 0, upstream, &out_first, &rows);
    if (rows < 0)
      return -1;
    rows -= out_first;
  }
  return rows;
}

/* Whether a duration or position query in time is answered with the
 * input's: where the output stands for all the input rows (a reduction of
 * the rows or of everything), it has no rate of its own, and its one
 * result stands for the time the input rows span, from the first row
 * sought (its segment's time): its duration in time is the input's, and
 * its position the time read so far, as a reduction's position in rows
 * is the share of its input read. Rows not sampled in time upstream
 * answer no time there either. */
static gboolean
time_is_the_inputs (PlanKernelElement * self, GstFormat format, gsize row,
    const PlanArrayInfo * time)
{
  return format == GST_FORMAT_TIME && row > 0
      && !plan_array_info_has_rate (time)
      && output_stands_for_all_rows (self);
}

/* The first input's duration (@position FALSE) or position in time, the
 * position never past the duration. */
static gboolean
input_time (PlanKernelElement * self, gboolean position, gint64 * value)
{
  GList *pads = _plan_kernel_element_get_sink_pads (self);
  gint64 duration = -1;
  gboolean ok;

  ok = pads != NULL && gst_pad_peer_query_duration (pads->data,
      GST_FORMAT_TIME, &duration) && duration >= 0;
  if (ok && position)
    ok = gst_pad_peer_query_position (pads->data, GST_FORMAT_TIME, value)
        && *value >= 0;
  g_list_free_full (pads, gst_object_unref);
  if (ok)
    *value = position ? MIN (*value, duration) : duration;
  return ok;
}

/* The duration of the output, in rows or bytes of the output (or time at
 * its rate); none before the element is set up; in other formats upstream
 * answers. */
static gboolean
answer_duration (PlanKernelElement * self, GstQuery * query)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  PlanArrayInfo time;
  GstFormat format;
  RowsAnswer answer;
  gint64 rows;
  gsize row;

  gst_query_parse_duration (query, &format, NULL);
  GST_OBJECT_LOCK (self);
  row = priv->out_row_size;
  rows = priv->out_caps_rows;
  time = priv->out_time;
  GST_OBJECT_UNLOCK (self);
  if (time_is_the_inputs (self, format, row, &time)) {
    if (!input_time (self, FALSE, &rows))
      return FALSE;
    gst_query_set_duration (query, format, rows);
    return TRUE;
  }
  answer = rows_answer (format, row, &time);
  if (answer != ROWS_HERE)
    return answer == ROWS_UPSTREAM && GST_AGGREGATOR_CLASS
        (parent_class)->src_query (GST_AGGREGATOR (self), query);

  rows = output_rows (self, rows, NULL);
  if (rows < 0)
    return FALSE;
  gst_query_set_duration (query, format,
      rows_in_format (format, rows, row, &time));
  return TRUE;
}

/* The position of the output, in its rows or bytes (or time at its rate),
 * never past its duration: where output rows are input rows, the first
 * input's position in rows; where output_range() maps input rows to
 * output rows (a valid stencil), the output rows the rows read give; and
 * where the output stands for all the rows (a reduction of the rows or of
 * everything), the share of the input read, as that share of the
 * output's rows or bytes: the progress of the job. None before the
 * element is set up; in other formats upstream answers. */
static gboolean
answer_position (PlanKernelElement * self, GstQuery * query)
{
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  PlanArrayInfo time;
  GstFormat format;
  RowsAnswer answer;
  gint64 rows, caps_rows, out_rows, in_rows, total;
  gsize row, seek_row;
  GList *pads;
  gboolean ok;

  gst_query_parse_position (query, &format, NULL);
  GST_OBJECT_LOCK (self);
  row = priv->out_row_size;
  seek_row = priv->seek_row_size;
  caps_rows = priv->out_caps_rows;
  time = priv->out_time;
  GST_OBJECT_UNLOCK (self);
  if (time_is_the_inputs (self, format, row, &time)) {
    if (!input_time (self, TRUE, &rows))
      return FALSE;
    gst_query_set_position (query, format, rows);
    return TRUE;
  }
  answer = rows_answer (format, row, &time);
  if (answer != ROWS_HERE)
    return answer == ROWS_UPSTREAM && GST_AGGREGATOR_CLASS
        (parent_class)->src_query (GST_AGGREGATOR (self), query);

  pads = _plan_kernel_element_get_sink_pads (self);
  ok = pads != NULL && gst_pad_peer_query_position (pads->data,
      GST_FORMAT_DEFAULT, &rows) && rows >= 0;
  g_list_free_full (pads, gst_object_unref);
  if (!ok)
    return FALSE;

  if (seek_row == 0) {
    guint64 out_first = 0;
    gint64 out_end = -1;

    if (klass->output_range)
      klass->output_range (self, 0, rows, &out_first, &out_end);
    if (out_end >= 0) {
      rows = MAX (out_end - (gint64) out_first, 0);
    } else {
      out_rows = output_rows (self, caps_rows, &in_rows);
      if (out_rows < 0 || in_rows < 0)
        return FALSE;
      total = rows_in_format (format, out_rows, row, &time);
      gst_query_set_position (query, format, in_rows == 0 ? total :
          (gint64) gst_util_uint64_scale (MIN (rows, in_rows), total,
              in_rows));
      return TRUE;
    }
  }
  gst_query_set_position (query, format,
      rows_in_format (format, rows, row, &time));
  return TRUE;
}

/* Converts between rows, bytes of the output and time at its rate (not
 * before the element is set up); other formats upstream converts. */
static gboolean
answer_convert (PlanKernelElement * self, GstQuery * query)
{
  GstFormat src_format, dest_format;
  gint64 src_value, rows;
  PlanArrayInfo time;
  gsize row;

  gst_query_parse_convert (query, &src_format, &src_value, &dest_format,
      NULL);
  GST_OBJECT_LOCK (self);
  row = GET_PRIV (self)->out_row_size;
  time = GET_PRIV (self)->out_time;
  GST_OBJECT_UNLOCK (self);
  if (rows_answer (src_format, row, &time) == ROWS_UPSTREAM
      || rows_answer (dest_format, row, &time) == ROWS_UPSTREAM)
    return GST_AGGREGATOR_CLASS (parent_class)->src_query
        (GST_AGGREGATOR (self), query);
  if (src_format == dest_format || src_value == -1) {
    gst_query_set_convert (query, src_format, src_value, dest_format,
        src_value);
    return TRUE;
  }
  if (rows_answer (src_format, row, &time) == ROWS_NONE
      || rows_answer (dest_format, row, &time) == ROWS_NONE || src_value < 0)
    return FALSE;
  if (src_format == GST_FORMAT_TIME)
    rows = plan_array_info_time_to_rows (&time, src_value);
  else
    rows = src_format == GST_FORMAT_BYTES ? src_value / (gint64) row :
        src_value;
  gst_query_set_convert (query, src_format, src_value, dest_format,
      rows_in_format (dest_format, rows, row, &time));
  return TRUE;
}

/* GstAggregator says it cannot seek; a kernel element can, in rows (and
 * in bytes where its output rows are its input rows), when its inputs
 * can. Durations, positions and conversions are the output's. */
gboolean
_plan_kernel_element_src_query (GstAggregator * agg, GstQuery * query)
{
  PlanKernelElement *self = PLAN_KERNEL_ELEMENT (agg);
  GstFormat format;
  gint64 start = 0, end = -1;
  gboolean seekable = FALSE, unknown;
  PlanArrayInfo time;
  gsize row;

  if (GST_QUERY_TYPE (query) == GST_QUERY_DURATION)
    return answer_duration (self, query);
  if (GST_QUERY_TYPE (query) == GST_QUERY_POSITION)
    return answer_position (self, query);
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONVERT)
    return answer_convert (self, query);
  /* Rows read out of order upstream are the input's, not this element's
   * output: a stencil with boundary=wrap behind it must not take them for
   * its own input's last rows. */
  if (GST_QUERY_TYPE (query) == GST_QUERY_CUSTOM
      && plan_query_parse_read_rows (query, NULL, NULL)) {
    GST_DEBUG_OBJECT (self, "not answering %s: the rows upstream reads are "
        "not this element's output", PLAN_QUERY_READ_ROWS);
    return FALSE;
  }
  if (GST_QUERY_TYPE (query) != GST_QUERY_SEEKING)
    return GST_AGGREGATOR_CLASS (parent_class)->src_query
        (agg, query);

  gst_query_parse_seeking (query, &format, NULL, NULL, NULL);
  GST_OBJECT_LOCK (self);
  row = GET_PRIV (self)->seek_row_size;
  time = GET_PRIV (self)->out_time;
  unknown = GET_PRIV (self)->out_row_size == 0;
  GST_OBJECT_UNLOCK (self);
  /* The answer is about the output, as the duration and the position are:
   * where it stands for all the rows (a reduction of the rows or of
   * everything), none of its rows can be sought to, in any format. A row
   * seek sent to the element still selects the input rows to reduce
   * (prepare_seek()): it starts the job again, no position in the
   * output. */
  if (!unknown && output_stands_for_all_rows (self)) {
    GST_DEBUG_OBJECT (self, "not seekable in %s: the output stands for all "
        "the input rows", gst_format_get_name (format));
    gst_query_set_seeking (query, format, FALSE, -1, -1);
    return TRUE;
  }
  if (format == GST_FORMAT_DEFAULT || (format == GST_FORMAT_BYTES && row > 0)
      || (format == GST_FORMAT_TIME && row > 0
          && plan_array_info_has_rate (&time)))
    seekable = upstream_seekable (self, GST_FORMAT_DEFAULT, &start, &end);
  else if ((format == GST_FORMAT_BYTES || format == GST_FORMAT_TIME)
      && unknown && rows_are_input_rows (self)) {
    /* Before the output's caps, what prepare_seek() keeps until them:
     * seekable, to an end not known yet. */
    seekable = upstream_seekable (self, format == GST_FORMAT_TIME ?
        GST_FORMAT_TIME : GST_FORMAT_DEFAULT, &start, &end);
    gst_query_set_seeking (query, format, seekable, seekable ? 0 : -1, -1);
    return TRUE;
  }
  if (seekable) {
    start = rows_in_format (format, start, row, &time);
    if (end > 0)
      end = rows_in_format (format, end, row, &time);
  }
  gst_query_set_seeking (query, format, seekable, seekable ? start : -1,
      seekable ? end : -1);
  return TRUE;
}

/* GstAggregator applies a seek sent to the element before PAUSED to its
 * output segment, which is in rows: a seek in another format is refused
 * here rather than mixed into it. */
gboolean
_plan_kernel_element_send_event (GstElement * element, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK) {
    GstFormat format;

    gst_event_parse_seek (event, NULL, &format, NULL, NULL, NULL, NULL, NULL);
    if (format != GST_FORMAT_DEFAULT) {
      GST_DEBUG_OBJECT (element, "refusing a seek in %s",
          gst_format_get_name (format));
      gst_event_unref (event);
      return FALSE;
    }
  }
  return GST_ELEMENT_CLASS (parent_class)->send_event
      (element, event);
}

/* The output segment is in rows (GstAggregator starts it in TIME). */
void
_plan_kernel_element_init_output_segment (PlanKernelElement * self)
{
  GST_OBJECT_LOCK (self);
  gst_segment_init (&GST_AGGREGATOR_PAD (GST_AGGREGATOR_SRC_PAD
          (self))->segment, GST_FORMAT_DEFAULT);
  GST_OBJECT_UNLOCK (self);
}

GstFlowReturn
_plan_kernel_element_flush (GstAggregator * agg)
{
  g_atomic_int_set (&GET_PRIV (agg)->seeking, 0);
  g_atomic_int_set (&GET_PRIV (agg)->failed, FALSE);
  _plan_kernel_element_reset_state (PLAN_KERNEL_ELEMENT (agg));
  _plan_kernel_device_flush (GET_PRIV (agg)->device);
  return GST_FLOW_OK;
}
