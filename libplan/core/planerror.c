/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planerror
 * @title: PlanError
 * @short_description: the GError domain of libplan
 *
 * Every libplan function that can fail on user input reports it through a
 * #GError in the #PLAN_ERROR domain whose message is written for the user:
 * it names the value, file or expression at fault and what is wrong with it.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planerror.h"
#include "plan-private.h"

#include <gst/gst.h>
#include <gst/base/gstbasesrc.h>

#include <math.h>

G_DEFINE_QUARK (plan-error-quark, plan_error);

/* The one table of the GStreamer errors elements post. The first row that
 * matches the error's domain and code in the context wins. */
typedef enum
{
  FROM_PLAN,                    /* PLAN_ERROR */
  FROM_FILE,                    /* G_FILE_ERROR */
  FROM_OTHER,                   /* any other domain */
} From;

typedef enum
{
  TO_CORE,
  TO_LIBRARY,
  TO_RESOURCE,
  TO_STREAM,
} To;

#define IN_COMPUTE (1 << PLAN_ERROR_CONTEXT_COMPUTE)
#define IN_READ (1 << PLAN_ERROR_CONTEXT_READ)
#define IN_WRITE (1 << PLAN_ERROR_CONTEXT_WRITE)
#define ANY_CODE (-1)

typedef struct
{
  guint contexts;
  From from;
  gint code;                    /* or ANY_CODE */
  To to;
  gint gst_code;
} ErrorRow;

static const ErrorRow error_table[] = {
  /* computing */
  {IN_COMPUTE, FROM_PLAN, PLAN_ERROR_INVALID_ARGUMENT, TO_LIBRARY,
      GST_LIBRARY_ERROR_SETTINGS},
  {IN_COMPUTE, FROM_PLAN, PLAN_ERROR_SYNTAX, TO_LIBRARY,
      GST_LIBRARY_ERROR_SETTINGS},
  {IN_COMPUTE, FROM_PLAN, PLAN_ERROR_TYPE, TO_LIBRARY,
      GST_LIBRARY_ERROR_SETTINGS},
  {IN_COMPUTE, FROM_PLAN, PLAN_ERROR_SHAPE, TO_CORE,
      GST_CORE_ERROR_NEGOTIATION},
  {IN_COMPUTE, FROM_PLAN, PLAN_ERROR_FORMAT, TO_STREAM,
      GST_STREAM_ERROR_FORMAT},
  {IN_COMPUTE, FROM_PLAN, PLAN_ERROR_UNSUPPORTED, TO_CORE,
      GST_CORE_ERROR_NOT_IMPLEMENTED},
  {IN_COMPUTE, FROM_PLAN, PLAN_ERROR_DEVICE, TO_RESOURCE,
      GST_RESOURCE_ERROR_FAILED},
  {IN_COMPUTE, FROM_PLAN, PLAN_ERROR_IO, TO_RESOURCE,
      GST_RESOURCE_ERROR_FAILED},
  {IN_COMPUTE, FROM_PLAN, PLAN_ERROR_BUSY, TO_RESOURCE,
      GST_RESOURCE_ERROR_BUSY},
  {IN_COMPUTE, FROM_PLAN, ANY_CODE, TO_CORE, GST_CORE_ERROR_FAILED},
  {IN_COMPUTE, FROM_FILE, ANY_CODE, TO_CORE, GST_CORE_ERROR_FAILED},
  {IN_COMPUTE, FROM_OTHER, ANY_CODE, TO_CORE, GST_CORE_ERROR_FAILED},
  /* files: reading and writing */
  {IN_READ | IN_WRITE, FROM_FILE, G_FILE_ERROR_NOENT, TO_RESOURCE,
      GST_RESOURCE_ERROR_NOT_FOUND},
  {IN_READ | IN_WRITE, FROM_FILE, G_FILE_ERROR_NOTDIR, TO_RESOURCE,
      GST_RESOURCE_ERROR_NOT_FOUND},
  {IN_READ, FROM_FILE, G_FILE_ERROR_ACCES, TO_RESOURCE,
      GST_RESOURCE_ERROR_OPEN_READ},
  {IN_READ, FROM_FILE, G_FILE_ERROR_PERM, TO_RESOURCE,
      GST_RESOURCE_ERROR_OPEN_READ},
  {IN_READ, FROM_FILE, G_FILE_ERROR_ISDIR, TO_RESOURCE,
      GST_RESOURCE_ERROR_OPEN_READ},
  {IN_READ, FROM_FILE, ANY_CODE, TO_RESOURCE, GST_RESOURCE_ERROR_READ},
  {IN_WRITE, FROM_FILE, G_FILE_ERROR_ACCES, TO_RESOURCE,
      GST_RESOURCE_ERROR_OPEN_WRITE},
  {IN_WRITE, FROM_FILE, G_FILE_ERROR_PERM, TO_RESOURCE,
      GST_RESOURCE_ERROR_OPEN_WRITE},
  {IN_WRITE, FROM_FILE, G_FILE_ERROR_ISDIR, TO_RESOURCE,
      GST_RESOURCE_ERROR_OPEN_WRITE},
  {IN_WRITE, FROM_FILE, G_FILE_ERROR_ROFS, TO_RESOURCE,
      GST_RESOURCE_ERROR_OPEN_WRITE},
  {IN_WRITE, FROM_FILE, G_FILE_ERROR_NOSPC, TO_RESOURCE,
      GST_RESOURCE_ERROR_NO_SPACE_LEFT},
  {IN_WRITE, FROM_FILE, ANY_CODE, TO_RESOURCE, GST_RESOURCE_ERROR_WRITE},
  /* reading: a source's settings, a stream it cannot read */
  {IN_READ, FROM_PLAN, PLAN_ERROR_INVALID_ARGUMENT, TO_RESOURCE,
      GST_RESOURCE_ERROR_SETTINGS},
  {IN_READ, FROM_PLAN, PLAN_ERROR_UNSUPPORTED, TO_STREAM,
      GST_STREAM_ERROR_WRONG_TYPE},
  {IN_READ, FROM_PLAN, PLAN_ERROR_IO, TO_RESOURCE, GST_RESOURCE_ERROR_READ},
  {IN_READ, FROM_PLAN, ANY_CODE, TO_STREAM, GST_STREAM_ERROR_FORMAT},
  {IN_READ, FROM_OTHER, ANY_CODE, TO_RESOURCE, GST_RESOURCE_ERROR_FAILED},
  /* writing: what the data cannot be written as */
  {IN_WRITE, FROM_PLAN, PLAN_ERROR_IO, TO_RESOURCE, GST_RESOURCE_ERROR_WRITE},
  {IN_WRITE, FROM_PLAN, ANY_CODE, TO_STREAM, GST_STREAM_ERROR_FORMAT},
  {IN_WRITE, FROM_OTHER, ANY_CODE, TO_RESOURCE, GST_RESOURCE_ERROR_WRITE},
};

static const ErrorRow *
error_lookup (const GError * error, PlanErrorContext context)
{
  From from = error->domain == PLAN_ERROR ? FROM_PLAN
      : error->domain == G_FILE_ERROR ? FROM_FILE : FROM_OTHER;
  guint i;

  if ((guint) context > PLAN_ERROR_CONTEXT_WRITE)
    context = PLAN_ERROR_CONTEXT_COMPUTE;
  for (i = 0; i < G_N_ELEMENTS (error_table); i++) {
    const ErrorRow *row = &error_table[i];

    if ((row->contexts & (1u << context)) && row->from == from
        && (row->code == ANY_CODE || row->code == error->code))
      return row;
  }
  g_assert_not_reached ();
  return NULL;
}

static GQuark
to_quark (To to)
{
  switch (to) {
    case TO_LIBRARY:
      return GST_LIBRARY_ERROR;
    case TO_RESOURCE:
      return GST_RESOURCE_ERROR;
    case TO_STREAM:
      return GST_STREAM_ERROR;
    case TO_CORE:
    default:
      return GST_CORE_ERROR;
  }
}

void
_plan_error_make_valid (GError * error)
{
  gchar *valid;

  if (error == NULL || g_utf8_validate (error->message, -1, NULL))
    return;
  valid = g_utf8_make_valid (error->message, -1);
  g_free (error->message);
  error->message = valid;
}

/**
 * plan_error_get_gst_error:
 * @error: a #GError
 * @domain: (out): the GStreamer error domain for @error
 * @code: (out): the code in @domain
 *
 * Gives the GStreamer error an element that computes posts for @error,
 * the same for every element (docs/reliability.md has the table): a value
 * that does not parse or cannot work (%PLAN_ERROR_INVALID_ARGUMENT,
 * %PLAN_ERROR_SYNTAX, %PLAN_ERROR_TYPE) is library / settings; inputs
 * whose shapes or dtypes do not fit together (%PLAN_ERROR_SHAPE) core /
 * negotiation; a malformed stream (%PLAN_ERROR_FORMAT) stream / format;
 * what is not supported (%PLAN_ERROR_UNSUPPORTED) core / not-implemented;
 * a device, I/O or busy failure resource / failed (busy: resource /
 * busy). Errors of other domains are core / failed. The same as
 * plan_error_get_gst_error_full() with %PLAN_ERROR_CONTEXT_COMPUTE.
 *
 * Since: 0.1
 */
void
plan_error_get_gst_error (const GError * error, GQuark * domain, gint * code)
{
  plan_error_get_gst_error_full (error, PLAN_ERROR_CONTEXT_COMPUTE, domain,
      code);
}

/**
 * plan_error_get_gst_error_full:
 * @error: a #GError
 * @context: what the element was doing
 * @domain: (out): the GStreamer error domain for @error
 * @code: (out): the code in @domain
 *
 * Gives the GStreamer error an element posts for @error in @context, from
 * the one table every element uses. Computing: as
 * plan_error_get_gst_error(). Reading and writing files: a file or folder
 * that does not exist (%G_FILE_ERROR_NOENT, %G_FILE_ERROR_NOTDIR) is
 * resource / not-found; no permission or a directory (and, writing, a
 * read-only file system) resource / open-read or open-write; a full disk,
 * writing, resource / no-space-left; other file errors and
 * %PLAN_ERROR_IO resource / read or write. Reading, a setting that does
 * not parse (%PLAN_ERROR_INVALID_ARGUMENT) is resource / settings and an
 * unsupported file (%PLAN_ERROR_UNSUPPORTED) stream / wrong-type; other
 * #PLAN_ERROR codes, reading or writing, are stream / format. Errors of
 * other domains are resource / failed reading, resource / write writing.
 *
 * Since: 0.1
 */
void
plan_error_get_gst_error_full (const GError * error, PlanErrorContext context,
    GQuark * domain, gint * code)
{
  const ErrorRow *row;

  g_return_if_fail (error != NULL && domain != NULL && code != NULL);

  row = error_lookup (error, context);
  *domain = to_quark (row->to);
  *code = row->gst_code;
}

/**
 * plan_element_post_error:
 * @element: the element that failed
 * @error: what failed, its message written for the user
 * @file: the source file posting (__FILE__)
 * @function: the function posting (GST_FUNCTION)
 * @line: the line posting (__LINE__)
 *
 * Posts @error as @element's error message, in the GStreamer domain
 * plan_error_get_gst_error() gives, with @error's message as the text.
 *
 * Since: 0.1
 */
void
plan_element_post_error (GstElement * element, const GError * error,
    const gchar * file, const gchar * function, gint line)
{
  plan_element_post_error_full (element, error, PLAN_ERROR_CONTEXT_COMPUTE,
      file, function, line);
}

/* GFileError's names, in the order of its values (GLib has no GType
 * for it to ask). */
static const gchar *
file_error_name (gint code)
{
  static const gchar *const names[] = {
    "EXIST", "ISDIR", "ACCES", "NAMETOOLONG", "NOENT", "NOTDIR", "NXIO",
    "NODEV", "ROFS", "TXTBSY", "FAULT", "LOOP", "NOSPC", "NOMEM", "MFILE",
    "NFILE", "BADF", "INVAL", "PIPE", "AGAIN", "INTR", "IO", "PERM",
    "NOSYS", "FAILED"
  };

  G_STATIC_ASSERT (G_N_ELEMENTS (names) == G_FILE_ERROR_FAILED + 1);
  return code >= 0 && code < (gint) G_N_ELEMENTS (names) ? names[code] :
      "FAILED";
}

/**
 * plan_element_post_error_full:
 * @element: the element that failed
 * @error: what failed, its message written for the user
 * @context: what @element was doing
 * @file: the source file posting (__FILE__)
 * @function: the function posting (GST_FUNCTION)
 * @line: the line posting (__LINE__)
 *
 * Posts @error as @element's error message, in the GStreamer domain
 * plan_error_get_gst_error_full() gives for @context, with @error's
 * message as the text; reading or writing, a file error's debug string
 * gives its code and its name ("file error 4 (G_FILE_ERROR_NOENT)").
 *
 * Since: 0.1
 */
void
plan_element_post_error_full (GstElement * element, const GError * error,
    PlanErrorContext context, const gchar * file, const gchar * function,
    gint line)
{
  GQuark domain;
  gint code;
  gchar *debug = NULL;

  g_return_if_fail (GST_IS_ELEMENT (element) && error != NULL);

  plan_error_get_gst_error_full (error, context, &domain, &code);
  if (context != PLAN_ERROR_CONTEXT_COMPUTE && error->domain == G_FILE_ERROR)
    debug = g_strdup_printf ("file error %d (G_FILE_ERROR_%s)", error->code,
        file_error_name (error->code));
  gst_element_message_full (element, GST_MESSAGE_ERROR, domain, code,
      g_strdup (error->message), debug, file, function, line);
}

/**
 * plan_element_refuse_backward_seek:
 * @element: a source that plays its rows forwards only
 * @event: an event sent to it or to its source pad
 *
 * Call it first in the event() and send_event() of a #GstBaseSrc that can
 * seek forwards only. #GstBaseSrc asks prepare_seek_segment() only about a
 * seek in another format than its segment's: one in the segment's own
 * format (rows, or time with a rate) goes straight to do_seek(), and the
 * rows would be pushed forwards under a segment that says backwards. A seek
 * with a rate of 0 or less is refused here, before anything is flushed,
 * and logged. So is, for a #GstBaseSrc, a seek in its segment's format
 * whose start comes after its stop (the segment's, for a stop of
 * %GST_SEEK_TYPE_NONE: plan_array_info_seek_is_range()), which
 * gst_segment_do_seek() would refuse with a critical warning, a seek
 * from the end (%GST_SEEK_TYPE_END, where the segment knows its duration)
 * that counts back before the first row or whose start then comes after
 * its stop, and a seek
 * that selects no row of a 0-d array (the source's caps have no axis): it
 * has one row, the value, which a stream of no rows could not hold.
 *
 * Returns: %TRUE when @event is such a seek: refuse it (return %FALSE,
 *   and from send_event() unref it first).
 *
 * Since: 0.1
 */
/* A source whose caps are 0-d (one value, one row): whether the seek
 * selects no row of it, which numpy cannot slice out of a 0-d array and
 * the stream could not say (its caps announce the value). */
static gboolean
selects_no_row_of_0d (GstElement * element, GstFormat format,
    GstSeekType start_type, gint64 start, GstSeekType stop_type, gint64 stop)
{
  GstCaps *caps = gst_pad_get_current_caps (GST_BASE_SRC_PAD (element));
  PlanArrayInfo info;
  gboolean zero_d;
  gint64 first = 0, end = -1;

  zero_d = caps && plan_array_info_from_caps (&info, caps, NULL)
      && info.ndim == 0;
  gst_clear_caps (&caps);
  if (!zero_d)
    return FALSE;
  if (start_type == GST_SEEK_TYPE_SET && !plan_array_info_convert (&info,
          format, start, GST_FORMAT_DEFAULT, &first))
    return FALSE;
  if (stop_type == GST_SEEK_TYPE_SET && !plan_array_info_convert (&info,
          format, stop, GST_FORMAT_DEFAULT, &end))
    return FALSE;
  return first >= 1 || (end >= 0 && end <= first);
}

/* A seek from the end (GST_SEEK_TYPE_END) on a #GstBaseSrc whose segment
 * knows its duration, in the segment's format: whether its start or stop
 * counts back past the first row, which gst_segment_do_seek() would take
 * for a position near 2^64 (refusing the seek with a critical warning, or
 * streaming from the end), or its start comes after its stop. */
static gboolean
seek_from_end_out_of_range (const GstSegment * segment, GstFormat format,
    GstSeekType start_type, gint64 start, GstSeekType stop_type, gint64 stop)
{
  gint64 duration = (gint64) segment->duration, first, last;

  if (format != segment->format || duration < 0
      || (start_type != GST_SEEK_TYPE_END && stop_type != GST_SEEK_TYPE_END))
    return FALSE;
  first = start_type == GST_SEEK_TYPE_END ? duration + start :
      start_type == GST_SEEK_TYPE_SET ? start : (gint64) segment->start;
  last = stop_type == GST_SEEK_TYPE_END ? duration + stop :
      stop_type == GST_SEEK_TYPE_SET ? stop : (gint64) segment->stop;
  return (start_type == GST_SEEK_TYPE_END && first < 0)
      || (stop_type == GST_SEEK_TYPE_END && last < 0)
      || (first >= 0 && last >= 0 && first > last);
}

gboolean
plan_element_refuse_backward_seek (GstElement * element, GstEvent * event)
{
  GstSeekType start_type, stop_type;
  gint64 start, stop;
  GstFormat format;
  gboolean range, from_end_out;
  gdouble rate;

  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (GST_IS_EVENT (event), FALSE);

  if (GST_EVENT_TYPE (event) != GST_EVENT_SEEK)
    return FALSE;
  gst_event_parse_seek (event, &rate, &format, NULL, &start_type, &start,
      &stop_type, &stop);
  if (rate <= 0.0) {
    GST_WARNING_OBJECT (element, "only forward playback is supported, not "
        "rate %f", rate);
    return TRUE;
  }
  if (!GST_IS_BASE_SRC (element))
    return FALSE;
  GST_OBJECT_LOCK (element);
  range = GST_BASE_SRC (element)->segment.format != format
      || plan_array_info_seek_is_range (&GST_BASE_SRC (element)->segment,
      start_type, start, stop_type, stop);
  from_end_out = seek_from_end_out_of_range (&GST_BASE_SRC
      (element)->segment, format, start_type, start, stop_type, stop);
  GST_OBJECT_UNLOCK (element);
  if (!range) {
    GST_WARNING_OBJECT (element, "the seek's start is after its stop (the "
        "segment's, for a stop left unchanged): no rows to play");
    return TRUE;
  }
  if (from_end_out) {
    GST_WARNING_OBJECT (element, "the seek from the end counts back before "
        "the first row, or its start comes after its stop: no range of the "
        "stream");
    return TRUE;
  }
  if (selects_no_row_of_0d (element, format, start_type, start, stop_type,
          stop)) {
    GST_WARNING_OBJECT (element, "the seek selects no row of a 0-d array "
        "(one value): only the range of its one row can be played");
    return TRUE;
  }
  return FALSE;
}

/**
 * plan_element_push_empty_segment:
 * @source: a #GstBaseSrc whose stream ends before its first rows
 * @seqnum: the seqnum of the seek that chose the range, or
 *   %GST_SEQNUM_INVALID
 *
 * #GstBaseSrc sends a segment with the first buffer after a start or a
 * seek, and none before an EOS that comes first: the elements downstream
 * would take the stream for the rows of the segment before (a seek to rows
 * 3 to 3 for the whole array's, and the array cut short). Call this in
 * create() before returning %GST_FLOW_EOS for a range of no rows (a seek
 * to an empty range, an array of none): it pushes the source's current
 * segment, with @seqnum when it is valid, and then the EOS with the
 * segment's seqnum, as the events of one operation carry one seqnum
 * (the one #GstBaseSrc would give its own EOS is private to it; that EOS
 * then meets a pad already at EOS and goes no further). A segment seek's
 * range ends in #GstBaseSrc's SEGMENT_DONE instead, with the seek's
 * seqnum: this pushes only the segment then.
 *
 * Since: 0.1
 */
void
plan_element_push_empty_segment (GstElement * source, guint32 seqnum)
{
  GstBaseSrc *base;
  GstEvent *event;
  gboolean segment_seek;

  g_return_if_fail (GST_IS_BASE_SRC (source));

  base = GST_BASE_SRC (source);
  GST_OBJECT_LOCK (source);
  event = gst_event_new_segment (&base->segment);
  segment_seek = (base->segment.flags & GST_SEGMENT_FLAG_SEGMENT) != 0;
  GST_OBJECT_UNLOCK (source);
  if (seqnum != GST_SEQNUM_INVALID)
    gst_event_set_seqnum (event, seqnum);
  seqnum = gst_event_get_seqnum (event);
  gst_pad_push_event (GST_BASE_SRC_PAD (source), event);
  if (segment_seek)
    return;
  event = gst_event_new_eos ();
  gst_event_set_seqnum (event, seqnum);
  gst_pad_push_event (GST_BASE_SRC_PAD (source), event);
}

/**
 * plan_element_refuse_live_set:
 * @element: the element whose property is being set
 * @pspec: the property
 * @in_use: whether @element has read its settings: a source or a sink from
 *   its start (READY to PAUSED) on, a parser once it has read the header
 *   they apply to
 *
 * Call it first in the set_property() of an element that is no
 * #PlanKernelElement (those call plan_kernel_element_refuse_live_set()). A
 * property flagged %GST_PARAM_MUTABLE_READY ("changeable only in NULL or
 * READY state") set while @element is PAUSED or PLAYING and @in_use would
 * read back as set but not be what the element works with: the set is
 * refused instead. The property keeps its value and @element posts a
 * warning message (library / settings) naming it, as kernel elements do.
 * Other properties are never refused.
 *
 * Returns: %TRUE when the set is refused: return without setting.
 *
 * Since: 0.1
 */
gboolean
plan_element_refuse_live_set (GstElement * element, GParamSpec * pspec,
    gboolean in_use)
{
  GstState state;

  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  if (!in_use || !(pspec->flags & GST_PARAM_MUTABLE_READY))
    return FALSE;
  GST_OBJECT_LOCK (element);
  state = GST_STATE (element);
  GST_OBJECT_UNLOCK (element);
  if (state <= GST_STATE_READY)
    return FALSE;

  GST_ELEMENT_WARNING (element, LIBRARY, SETTINGS,
      ("%s: %s cannot change while the element is %s; it keeps its value "
          "(set it in the NULL or READY state)", GST_ELEMENT_NAME (element),
          g_param_spec_get_name (pspec), gst_element_state_get_name (state)),
      (NULL));
  return TRUE;
}

/**
 * plan_element_check_downstream_caps:
 * @element: the element that is about to send @caps
 * @srcpad: its source pad
 * @what: what holds the stream, for the message: "The .npy stream",
 *   "'a.npy'"
 * @caps: the caps it is about to send
 *
 * Asks what is linked to @srcpad whether it takes @caps, before they are
 * sent. A caps event that downstream refuses is stored all the same and
 * the push reports no failure: the next buffer's is not-negotiated, and
 * the source upstream posts "Internal data stream error" with nothing to
 * say which caps, or who refused them. Refused, @element posts an error
 * (core / negotiation) that names both: `The .npy stream holds
 * array/x-raw, dtype=(string)float32, ..., which capsfilter0 does not
 * accept: it takes array/x-raw, dtype=(string)int32.`
 *
 * Caps of rows without a rate that downstream would give one (a caps
 * filter `array/x-raw,rate=100/1` accepts them and writes its rate into
 * the caps it passes on, though the buffers have no times) are refused
 * the same way, the message saying that the rows have no rate. So are
 * caps that downstream accepts but whose caps query answers nothing (the
 * branches of a tee asking for different rates): "it takes nothing".
 *
 * Returns: %TRUE when downstream takes @caps (or nothing is linked);
 *   %FALSE after posting the error: return not-negotiated.
 *
 * Since: 0.1
 */
gboolean
plan_element_check_downstream_caps (GstElement * element, GstPad * srcpad,
    const gchar * what, const GstCaps * caps)
{
  GstCaps *wanted;
  GstPad *peer;
  GstElement *next;
  gchar *o, *w;
  gboolean accepted, gains_rate;

  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (GST_IS_PAD (srcpad), FALSE);
  g_return_val_if_fail (what != NULL && caps != NULL, FALSE);

  peer = gst_pad_get_peer (srcpad);
  if (peer == NULL)
    return TRUE;
  accepted = gst_pad_query_accept_caps (peer, (GstCaps *) caps);
  wanted = gst_pad_query_caps (peer, NULL);
  /* A caps filter asking for a rate accepts rows without one, and writes
   * its rate into the caps it passes on, over buffers without times. */
  gains_rate = accepted && _plan_caps_gain_rate ((GstCaps *) caps, wanted);
  /* Branches of a tee that each accept the caps but want them otherwise
   * (two caps filters asking for different rates) take nothing at all. */
  if (accepted && !gains_rate && !gst_caps_is_empty (wanted)) {
    gst_caps_unref (wanted);
    gst_object_unref (peer);
    return TRUE;
  }
  next = gst_pad_get_parent_element (peer);
  o = gst_caps_to_string (caps);
  w = gst_caps_to_string (wanted);
  GST_ELEMENT_ERROR (element, CORE, NEGOTIATION,
      ("%s holds %s%s, which %s does not accept: it takes %s.%s", what, o,
          gains_rate ? ", rows without a rate" : "",
          next ? GST_ELEMENT_NAME (next) : "downstream",
          gst_caps_is_empty (wanted) ? "nothing" : w,
          gains_rate ? " Give the rows their rate where they are read "
          "(the rate property of npyparse or planfilesrc)." : ""), (NULL));
  g_free (o);
  g_free (w);
  gst_clear_object (&next);
  gst_caps_unref (wanted);
  gst_object_unref (peer);
  return FALSE;
}

/* A double property that takes every double, -inf to inf and NaN:
 * GParamSpecDouble refuses NaN, since it is neither inside nor outside its
 * range, and GLib only warns and keeps the old value. The type derives
 * from GParamSpecDouble, so that tools and bindings see a double with its
 * range and default. */
static GParamSpecClass *double_all_parent_class;

static gboolean
double_all_value_validate (GParamSpec * pspec, GValue * value)
{
  if (isnan (value->data[0].v_double))
    return FALSE;
  return double_all_parent_class->value_validate (pspec, value);
}

#if GLIB_CHECK_VERSION (2, 74, 0)
static gboolean
double_all_value_is_valid (GParamSpec * pspec, const GValue * value)
{
  if (isnan (value->data[0].v_double))
    return TRUE;
  return double_all_parent_class->value_is_valid (pspec, value);
}
#endif

static void
double_all_class_init (GParamSpecClass * klass, gpointer data)
{
  double_all_parent_class = g_type_class_peek_parent (klass);
  klass->value_validate = double_all_value_validate;
#if GLIB_CHECK_VERSION (2, 74, 0)
  klass->value_is_valid = double_all_value_is_valid;
#endif
}

static GType
double_all_param_get_type (void)
{
  static gsize type = 0;

  if (g_once_init_enter (&type)) {
    const GTypeInfo info = {
      sizeof (GParamSpecClass), NULL, NULL,
      (GClassInitFunc) double_all_class_init, NULL, NULL,
      sizeof (GParamSpecDouble), 0, NULL, NULL
    };
    GType t = g_type_register_static (G_TYPE_PARAM_DOUBLE,
        "PlanParamSpecDoubleAll", &info, 0);

    g_once_init_leave (&type, t);
  }
  return type;
}

/* A #GParamSpecDouble that takes -inf, inf and NaN (plan-private.h). */
GParamSpec *
_plan_param_spec_double_all (const gchar * name, const gchar * nick,
    const gchar * blurb, gdouble default_value, GParamFlags flags)
{
  GParamSpecDouble *dspec;

  dspec = g_param_spec_internal (double_all_param_get_type (), name, nick,
      blurb, flags);
  dspec->minimum = -INFINITY;
  dspec->maximum = INFINITY;
  dspec->default_value = default_value;
  return G_PARAM_SPEC (dspec);
}

/* The valid range of a property made with plan_param_spec_checked_range():
 * a #GParamSpec of the same type with the real bounds. */
static GQuark
valid_range_quark (void)
{
  static gsize quark;

  if (g_once_init_enter (&quark)) {
    GQuark q = g_quark_from_static_string ("plan-param-spec-valid-range");

    g_once_init_leave (&quark, q);
  }
  return (GQuark) quark;
}

/* @range's bounds, written for the user. */
static void
range_bounds_to_strings (GParamSpec * range, gchar ** min, gchar ** max)
{
  GType type = G_PARAM_SPEC_VALUE_TYPE (range);

  if (type == G_TYPE_UINT) {
    *min = g_strdup_printf ("%u", G_PARAM_SPEC_UINT (range)->minimum);
    *max = g_strdup_printf ("%u", G_PARAM_SPEC_UINT (range)->maximum);
  } else if (type == G_TYPE_INT) {
    *min = g_strdup_printf ("%d", G_PARAM_SPEC_INT (range)->minimum);
    *max = g_strdup_printf ("%d", G_PARAM_SPEC_INT (range)->maximum);
  } else if (type == G_TYPE_UINT64) {
    *min = g_strdup_printf ("%" G_GUINT64_FORMAT,
        G_PARAM_SPEC_UINT64 (range)->minimum);
    *max = g_strdup_printf ("%" G_GUINT64_FORMAT,
        G_PARAM_SPEC_UINT64 (range)->maximum);
  } else if (type == G_TYPE_INT64) {
    *min = g_strdup_printf ("%" G_GINT64_FORMAT,
        G_PARAM_SPEC_INT64 (range)->minimum);
    *max = g_strdup_printf ("%" G_GINT64_FORMAT,
        G_PARAM_SPEC_INT64 (range)->maximum);
  } else if (type == G_TYPE_DOUBLE) {
    *min = g_strdup_printf ("%g", G_PARAM_SPEC_DOUBLE (range)->minimum);
    *max = g_strdup_printf ("%g", G_PARAM_SPEC_DOUBLE (range)->maximum);
  } else if (type == GST_TYPE_FRACTION) {
    GstParamSpecFraction *f = GST_PARAM_SPEC_FRACTION (range);

    *min = g_strdup_printf ("%d/%d", f->min_num, f->min_den);
    *max = g_strdup_printf ("%d/%d", f->max_num, f->max_den);
  } else {
    g_assert (type == G_TYPE_FLOAT);
    *min = g_strdup_printf ("%g", G_PARAM_SPEC_FLOAT (range)->minimum);
    *max = g_strdup_printf ("%g", G_PARAM_SPEC_FLOAT (range)->maximum);
  }
}

/**
 * plan_param_spec_checked_range:
 * @range: (transfer floating): a numeric property (#GParamSpecUInt,
 *   #GParamSpecInt, #GParamSpecUInt64, #GParamSpecInt64,
 *   #GParamSpecDouble, #GParamSpecFloat or #GstParamSpecFraction) with its
 *   valid range
 *
 * GLib refuses a value outside a property's range before the element sees
 * it, with a warning, and the program carries on with the old value. An
 * element installs instead the property this returns: the same name,
 * nick, default and flags, the whole range of its type (for a double or a
 * float, -inf to inf, and a double takes NaN too; for a fraction,
 * -2147483647/1 to 2147483647/1), and @range's
 * blurb followed by the valid range ("(valid: 1 to 64)"), which
 * gst-inspect-1.0 shows. Any value of the type is then stored; the
 * element's set_property() calls plan_element_refuse_out_of_range() first,
 * and its start calls plan_element_check_ranges(), which fails with an
 * error naming the element, the property, the value and the valid range.
 *
 * Returns: (transfer floating): the property to install
 *
 * Since: 0.1
 */
GParamSpec *
plan_param_spec_checked_range (GParamSpec * range)
{
  GParamSpec *wide;
  GType type;
  const gchar *name, *nick, *blurb;
  gchar *min, *max, *text;
  GParamFlags flags;

  g_return_val_if_fail (G_IS_PARAM_SPEC (range), NULL);
  type = G_PARAM_SPEC_VALUE_TYPE (range);
  g_return_val_if_fail (type == G_TYPE_UINT || type == G_TYPE_INT
      || type == G_TYPE_UINT64 || type == G_TYPE_INT64
      || type == G_TYPE_DOUBLE || type == G_TYPE_FLOAT
      || type == GST_TYPE_FRACTION, NULL);

  g_param_spec_ref_sink (range);
  range_bounds_to_strings (range, &min, &max);
  name = g_param_spec_get_name (range);
  nick = g_intern_string (g_param_spec_get_nick (range));
  text = g_strdup_printf ("%s (valid: %s to %s)",
      g_param_spec_get_blurb (range), min, max);
  /* Interned: the property lives as long as its class, for good. */
  blurb = g_intern_string (text);
  g_free (text);
  g_free (min);
  g_free (max);
  flags = range->flags & ~(G_PARAM_STATIC_NICK | G_PARAM_STATIC_BLURB);
  flags |= G_PARAM_STATIC_NICK | G_PARAM_STATIC_BLURB;

  if (type == G_TYPE_UINT)
    wide = g_param_spec_uint (name, nick, blurb, 0, G_MAXUINT,
        G_PARAM_SPEC_UINT (range)->default_value, flags);
  else if (type == G_TYPE_INT)
    wide = g_param_spec_int (name, nick, blurb, G_MININT, G_MAXINT,
        G_PARAM_SPEC_INT (range)->default_value, flags);
  else if (type == G_TYPE_UINT64)
    wide = g_param_spec_uint64 (name, nick, blurb, 0, G_MAXUINT64,
        G_PARAM_SPEC_UINT64 (range)->default_value, flags);
  else if (type == G_TYPE_INT64)
    wide = g_param_spec_int64 (name, nick, blurb, G_MININT64, G_MAXINT64,
        G_PARAM_SPEC_INT64 (range)->default_value, flags);
  else if (type == G_TYPE_DOUBLE)
    wide = _plan_param_spec_double_all (name, nick, blurb,
        G_PARAM_SPEC_DOUBLE (range)->default_value, flags);
  else if (type == G_TYPE_FLOAT)
    wide = g_param_spec_float (name, nick, blurb, -INFINITY, INFINITY,
        G_PARAM_SPEC_FLOAT (range)->default_value, flags);
  else
    wide = gst_param_spec_fraction (name, nick, blurb, -G_MAXINT, 1,
        G_MAXINT, 1, GST_PARAM_SPEC_FRACTION (range)->def_num,
        GST_PARAM_SPEC_FRACTION (range)->def_den, flags);
  g_param_spec_set_qdata_full (wide, valid_range_quark (), range,
      (GDestroyNotify) g_param_spec_unref);
  return wide;
}

/* Whether @value is in the valid range of @pspec (TRUE for a property
 * without one). NaN is in no range. Also what the plan API's custom nodes
 * check their settings with when they are added. */
gboolean
_plan_param_value_in_valid_range (GParamSpec * pspec, const GValue * value)
{
  GParamSpec *range = g_param_spec_get_qdata (pspec, valid_range_quark ());
  GValue copy = G_VALUE_INIT;
  gboolean ok;

  if (range == NULL)
    return TRUE;
  if (G_VALUE_HOLDS_DOUBLE (value) && isnan (g_value_get_double (value)))
    return FALSE;
  if (G_VALUE_HOLDS_FLOAT (value) && isnan (g_value_get_float (value)))
    return FALSE;
  g_value_init (&copy, G_VALUE_TYPE (value));
  g_value_copy (value, &copy);
  /* TRUE when it had to change the value: out of range. */
  ok = !g_param_value_validate (range, &copy);
  g_value_unset (&copy);
  return ok;
}

/* "planfilesrc src0: max-chunks=0 is out of range: valid values are 1 to
 * 4096" */
static gchar *
out_of_range_message (GstElement * element, GParamSpec * pspec,
    const GValue * value)
{
  GParamSpec *range = g_param_spec_get_qdata (pspec, valid_range_quark ());
  GstElementFactory *factory = gst_element_get_factory (element);
  gchar *contents, *min, *max, *message;

  if (G_VALUE_HOLDS_DOUBLE (value))
    contents = g_strdup_printf ("%g", g_value_get_double (value));
  else if (G_VALUE_HOLDS_FLOAT (value))
    contents = g_strdup_printf ("%g", g_value_get_float (value));
  else
    contents = g_strdup_value_contents (value);
  range_bounds_to_strings (range, &min, &max);
  message = g_strdup_printf ("%s %s: %s=%s is out of range: valid values "
      "are %s to %s",
      factory ? GST_OBJECT_NAME (factory) : G_OBJECT_TYPE_NAME (element),
      GST_ELEMENT_NAME (element), g_param_spec_get_name (pspec), contents,
      min, max);
  g_free (contents);
  g_free (min);
  g_free (max);
  return message;
}

/**
 * plan_element_refuse_out_of_range:
 * @element: the element whose property is being set
 * @pspec: the property
 * @value: the value being set
 *
 * Call it in set_property(), after plan_element_refuse_live_set() or
 * plan_kernel_element_refuse_live_set(), for properties made with
 * plan_param_spec_checked_range(). A value in the valid range is never
 * refused. Outside it, while @element is NULL or READY, the value is kept
 * as given (so that reading it back returns it) with a debug-log warning,
 * and the start fails (plan_element_check_ranges()). While @element is
 * PAUSED or PLAYING there is no start left to fail: the set is refused,
 * the property keeps its value, and @element posts a warning message
 * (library / settings) naming the property, the value and the valid
 * range.
 *
 * Returns: %TRUE when the set is refused: return without setting.
 *
 * Since: 0.1
 */
gboolean
plan_element_refuse_out_of_range (GstElement * element, GParamSpec * pspec,
    const GValue * value)
{
  GstState state;
  gchar *message;

  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (G_IS_PARAM_SPEC (pspec) && value != NULL, FALSE);
  if (_plan_param_value_in_valid_range (pspec, value))
    return FALSE;

  message = out_of_range_message (element, pspec, value);
  GST_OBJECT_LOCK (element);
  state = GST_STATE (element);
  GST_OBJECT_UNLOCK (element);
  if (state <= GST_STATE_READY) {
    GST_WARNING_OBJECT (element, "%s; the start will fail", message);
    g_free (message);
    return FALSE;
  }
  GST_ELEMENT_WARNING (element, LIBRARY, SETTINGS,
      ("%s; it keeps its value", message), (NULL));
  g_free (message);
  return TRUE;
}

/**
 * plan_element_check_ranges:
 * @element: an element
 * @error: return location for the error
 *
 * Checks every property of @element made with
 * plan_param_spec_checked_range(): an element calls it when it starts,
 * before it reads its settings, and fails the start with @error (posted
 * with plan_element_post_error(): library / settings).
 *
 * Returns: %TRUE when every value is in its valid range; otherwise %FALSE
 *   with @error (%PLAN_ERROR_INVALID_ARGUMENT) naming the element, the
 *   first property out of range, its value and the valid range.
 *
 * Since: 0.1
 */
gboolean
plan_element_check_ranges (GstElement * element, GError ** error)
{
  GParamSpec **pspecs;
  guint n, i;
  gboolean ok = TRUE;

  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  pspecs = g_object_class_list_properties (G_OBJECT_GET_CLASS (element), &n);
  for (i = 0; i < n && ok; i++) {
    GValue value = G_VALUE_INIT;

    /* A deprecated spelling reads the same value as its new one. */
    if (g_param_spec_get_qdata (pspecs[i], valid_range_quark ()) == NULL
        || (pspecs[i]->flags & G_PARAM_DEPRECATED))
      continue;
    g_value_init (&value, G_PARAM_SPEC_VALUE_TYPE (pspecs[i]));
    g_object_get_property (G_OBJECT (element), g_param_spec_get_name
        (pspecs[i]), &value);
    if (!_plan_param_value_in_valid_range (pspecs[i], &value)) {
      gchar *message = out_of_range_message (element, pspecs[i], &value);

      g_set_error_literal (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          message);
      g_free (message);
      ok = FALSE;
    }
    g_value_unset (&value);
  }
  g_free (pspecs);
  return ok;
}
