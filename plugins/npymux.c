/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-npymux
 * @title: npymux
 * @short_description: turn an array stream into a .npy byte stream
 *
 * npymux writes the `array/x-raw` stream it receives as a NumPy .npy byte
 * stream, for any sink: filesink, fdsink, a network sink, appsink. It sends
 * the .npy header first (numpy's layout: version 1.0, padded to 64 bytes),
 * then the rows as they come, without a copy.
 *
 * A .npy header holds the number of rows, so npymux needs it before the
 * first row goes out:
 *
 * - When the caps give it (`shape=<1000, 3>`, as planfilesrc, npyparse
 *   and the kernel elements after them announce it), clipped to the
 *   segment's rows, or else upstream answers a duration query in rows,
 *   the header has that count, and a stream that ends with fewer or more
 *   rows is an error: the output would not be a valid .npy.
 * - Otherwise (`shape=<-1, 3>`), when downstream can seek (it answers the
 *   seeking query in bytes: filesink, fdsink on a regular file), the header
 *   is written with the largest count, 9223372036854775807 rows, which no
 *   reader loads, and rewritten at EOS with the count, through a new
 *   segment at byte 0, which makes filesink seek back: a file whose
 *   stream did not end is not a valid .npy.
 * - Otherwise the length is needed and unknown: an element error
 *   (stream/mux) before anything is written.
 *
 * For files, planfilesink is the better choice: it writes on a worker
 * thread of its own into a temporary file renamed into place at EOS, so a
 * failed run leaves no partial file. npymux is for sinks planfilesink
 * cannot be: pipes, sockets, memory.
 *
 * Seeking is not supported. The position and duration queries are
 * answered in %GST_FORMAT_BYTES (of the .npy stream) by npymux, and passed
 * upstream in other formats (rows, time).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 planfilesrc location=a.npy ! planmap expr="x*2" ! npymux \
 *     ! filesink location=b.npy
 * ]| Writes through filesink.
 * |[
 * cat a.npy | gst-launch-1.0 -q fdsrc fd=0 ! npyparse ! planmap expr="x*2" \
 *     ! npymux ! fdsink fd=1 > b.npy
 * ]| Doubles an array in a shell pipe.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "npymux.h"

GST_DEBUG_CATEGORY_STATIC (plan_npy_mux_debug);
#define GST_CAT_DEFAULT plan_npy_mux_debug

struct _PlanNpyMux
{
  GstElement parent;

  GstPad *sinkpad;              /* construct-only */
  GstPad *srcpad;               /* construct-only */

  /* streaming thread only (STREAM_LOCK) */
  gboolean have_caps;
  PlanArrayInfo info;
  GstSegment segment;           /* upstream's, in rows */
  guint32 seqnum;               /* upstream segment's, which ours answers */
  gboolean header_sent;
  gboolean rewrite;             /* the header is completed at EOS */
  gint64 expected;              /* rows announced, -1 when unknown */
  gsize header_size;
  GstFlowReturn failed;         /* what downstream returned when a push
                                 * failed (not linked, an error), or OK */

  /* protected by OBJECT_LOCK: queries read them on other threads */
  guint64 rows;                 /* rows written */
  guint64 bytes;                /* bytes pushed */
  gint64 total_bytes;           /* -1 when unknown */
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (PLAN_ARRAY_CAPS_ANY));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (PLAN_NPY_CAPS_MEDIA_TYPE));

#define plan_npy_mux_parent_class parent_class
/* The type is registered as NpyMux, so that an element made without a name
 * is named after its factory (npymux0), as GStreamer names it from the type
 * name. */
typedef PlanNpyMux NpyMux;
typedef PlanNpyMuxClass NpyMuxClass;
G_DEFINE_TYPE_EXTENDED (NpyMux, plan_npy_mux, GST_TYPE_ELEMENT, 0, {});
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (npymux, "npymux",
    GST_RANK_NONE, PLAN_TYPE_NPY_MUX,
    GST_DEBUG_CATEGORY_INIT (plan_npy_mux_debug, "npymux", 0,
        ".npy stream writer"));

static GstStateChangeReturn plan_npy_mux_change_state (GstElement * element,
    GstStateChange transition);
static GstFlowReturn plan_npy_mux_chain (GstPad * pad, GstObject * parent,
    GstBuffer * buffer);
static gboolean plan_npy_mux_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event);
static gboolean plan_npy_mux_src_event (GstPad * pad, GstObject * parent,
    GstEvent * event);
static gboolean plan_npy_mux_src_query (GstPad * pad, GstObject * parent,
    GstQuery * query);

static void
plan_npy_mux_class_init (PlanNpyMuxClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, ".npy writer",
      "Codec/Muxer/Array",
      "Writes an array stream as a NumPy .npy byte stream, header first",
      PLAN_CONTACT);
  gst_element_class_add_static_metadata (element_class,
      GST_ELEMENT_METADATA_DOC_URI, PLAN_DOC_URI "/npymux.md");

  element_class->change_state = GST_DEBUG_FUNCPTR (plan_npy_mux_change_state);
}

static void
plan_npy_mux_init (PlanNpyMux * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (plan_npy_mux_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (plan_npy_mux_sink_event));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_event_function (self->srcpad,
      GST_DEBUG_FUNCPTR (plan_npy_mux_src_event));
  gst_pad_set_query_function (self->srcpad,
      GST_DEBUG_FUNCPTR (plan_npy_mux_src_query));
  gst_pad_use_fixed_caps (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}

static void
reset (PlanNpyMux * self)
{
  self->have_caps = FALSE;
  self->header_sent = FALSE;
  self->rewrite = FALSE;
  self->expected = -1;
  self->failed = GST_FLOW_OK;
  gst_segment_init (&self->segment, GST_FORMAT_DEFAULT);
  self->seqnum = GST_SEQNUM_INVALID;
  GST_OBJECT_LOCK (self);
  self->rows = 0;
  self->bytes = 0;
  self->total_bytes = -1;
  GST_OBJECT_UNLOCK (self);
}

static GstStateChangeReturn
plan_npy_mux_change_state (GstElement * element, GstStateChange transition)
{
  PlanNpyMux *self = PLAN_NPY_MUX (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    reset (self);
  /* The source pad pushes from the thread that calls the sink pad's chain
   * and event functions, under the sink pad's stream lock, not its own;
   * and a pad's activate-mode function runs before the pad waits for its
   * stream lock. So deactivating the pads (source pad first, as GstElement
   * does) would not wait for a call under way, which would then end after
   * the pads were reset (gst-validate resets its monitors there, and saw
   * an EOS without its segment, then a buffer after that EOS in the next
   * run). The sink pad is set flushing and the call under way waited for
   * first. */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    GST_OBJECT_LOCK (self->sinkpad);
    GST_PAD_SET_FLUSHING (self->sinkpad);
    GST_OBJECT_UNLOCK (self->sinkpad);
    GST_PAD_STREAM_LOCK (self->sinkpad);
    GST_PAD_STREAM_UNLOCK (self->sinkpad);
  }
  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    reset (self);
  return ret;
}

/* The rows the stream will have: the caps' rows clipped to the segment,
 * or upstream's duration; -1 when neither says. */
static gint64
expected_rows (PlanNpyMux * self)
{
  gint64 rows = plan_array_info_get_n_rows (&self->info);
  GstSegment *segment = &self->segment;

  if (rows < 0 && !gst_pad_peer_query_duration (self->sinkpad,
          GST_FORMAT_DEFAULT, &rows))
    rows = -1;
  if (rows < 0)
    return -1;
  /* The rows the segment selects: in rows, or in time at the caps' rate. */
  {
    guint64 first;
    gint64 end;

    if (plan_array_info_get_segment_rows (&self->info, segment, &first,
            &end)) {
      if (end >= 0)
        rows = MIN (rows, end);
      rows = MAX (0, rows - (gint64) first);
    }
  }
  return rows;
}

static gboolean
downstream_seekable (PlanNpyMux * self)
{
  GstQuery *query = gst_query_new_seeking (GST_FORMAT_BYTES);
  gboolean seekable = FALSE;

  if (gst_pad_peer_query (self->srcpad, query))
    gst_query_parse_seeking (query, NULL, &seekable, NULL, NULL);
  gst_query_unref (query);
  return seekable;
}

static GstBuffer *
make_header (PlanNpyMux * self, gint64 rows)
{
  PlanArrayInfo info = self->info;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, self->header_size, NULL);
  GstMapInfo map;
  GError *err = NULL;
  gboolean ok;

  if (info.ndim > 0)
    info.shape[0] = rows;
  if (!gst_buffer_map (buf, &map, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, (NULL),
        ("cannot map a header buffer"));
    gst_buffer_unref (buf);
    return NULL;
  }
  ok = plan_npy_write_header (&info, map.data, self->header_size, &err);
  gst_buffer_unmap (buf, &map);
  if (!ok) {
    GST_ELEMENT_ERROR (self, STREAM, MUX, ("%s", err->message), (NULL));
    g_error_free (err);
    gst_buffer_unref (buf);
    return NULL;
  }
  GST_BUFFER_OFFSET (buf) = 0;
  GST_BUFFER_OFFSET_END (buf) = self->header_size;
  /* It follows a segment of its own: nothing before it in the stream. */
  GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  return buf;
}

/* A segment in bytes from byte 0, answering the upstream event of
 * @seqnum (when valid). */
static gboolean
push_segment (PlanNpyMux * self, guint32 seqnum)
{
  GstSegment segment;
  GstEvent *event;

  gst_segment_init (&segment, GST_FORMAT_BYTES);
  event = gst_event_new_segment (&segment);
  if (seqnum != GST_SEQNUM_INVALID)
    gst_event_set_seqnum (event, seqnum);
  return gst_pad_push_event (self->srcpad, event);
}

/* Before the first row (or at EOS without rows): decides how the row
 * count gets into the header, and sends it. */
static GstFlowReturn
send_header (PlanNpyMux * self)
{
  GstBuffer *header;
  gchar *desc;

  if (!self->have_caps)
    goto no_caps;
  self->header_size = plan_npy_get_header_size (&self->info);
  self->expected = expected_rows (self);
  if (self->expected < 0) {
    if (!downstream_seekable (self))
      goto length_unknown;
    self->rewrite = TRUE;
  }
  GST_INFO_OBJECT (self, "header of %" G_GSIZE_FORMAT " bytes, %s",
      self->header_size, self->rewrite ? "rewritten at EOS with the row count"
      : "with the announced row count");

  push_segment (self, self->seqnum);
  /* A header rewritten at EOS first announces the largest count: a file
   * whose stream never ended (a full disk, an error downstream, a kill)
   * is then refused by numpy and every reader ("array is too big",
   * "cannot reshape"), where 0 rows would load as a valid empty array. */
  header = make_header (self, self->rewrite ? G_MAXINT64 :
      MAX (self->expected, 0));
  if (header == NULL)
    return GST_FLOW_ERROR;
  self->header_sent = TRUE;
  GST_OBJECT_LOCK (self);
  self->bytes = self->header_size;
  if (self->expected >= 0)
    self->total_bytes = self->header_size + self->expected *
        plan_array_info_get_row_size (&self->info);
  GST_OBJECT_UNLOCK (self);
  return gst_pad_push (self->srcpad, header);

  /* ERRORS */
no_caps:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("%s got data or the end of its stream before the array's caps, "
            "so it cannot write a .npy header: an array stream starts with "
            "caps that give its dtype and shape (array/x-raw, "
            "dtype=float32, shape=<-1, 3> say; an appsrc takes them in its "
            "caps property).", GST_ELEMENT_NAME (self)),
        ("data or EOS before caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
length_unknown:
  {
    desc = plan_array_info_to_string (&self->info);
    GST_ELEMENT_ERROR (self, STREAM, MUX,
        ("Cannot write a .npy stream of %s: the number of rows is not known "
            "before the first row, and downstream cannot seek to complete "
            "the header at the end. Write to a seekable sink (filesink) or "
            "to planfilesink, or give the stream a known length.", desc),
        (NULL));
    g_free (desc);
    return GST_FLOW_ERROR;
  }
}

/* A push that failed downstream (not linked, not negotiated, an error) is
 * remembered: the stream is over, and its EOS, which upstream still sends
 * (GstBaseSrc does after posting the failure), is no second error. */
static GstFlowReturn
remember_failure (PlanNpyMux * self, GstFlowReturn ret)
{
  if (ret < GST_FLOW_OK && ret != GST_FLOW_FLUSHING && ret != GST_FLOW_EOS
      && self->failed == GST_FLOW_OK) {
    GST_DEBUG_OBJECT (self, "downstream returned %s", gst_flow_get_name
        (ret));
    self->failed = ret;
  }
  return ret;
}

static GstFlowReturn
plan_npy_mux_chain (GstPad * pad, GstObject * parent, GstBuffer * buffer)
{
  PlanNpyMux *self = PLAN_NPY_MUX (parent);
  gsize row_size, size = gst_buffer_get_size (buffer);
  GstFlowReturn ret;
  guint64 rows, bytes;

  if (self->failed != GST_FLOW_OK) {
    gst_buffer_unref (buffer);
    return self->failed;
  }
  if (!self->header_sent && (ret = remember_failure (self,
              send_header (self))) != GST_FLOW_OK) {
    gst_buffer_unref (buffer);
    return ret;
  }
  row_size = plan_array_info_get_row_size (&self->info);
  if (size % row_size != 0)
    goto not_rows;
  GST_OBJECT_LOCK (self);
  rows = self->rows += size / row_size;
  bytes = self->bytes;
  self->bytes += size;
  GST_OBJECT_UNLOCK (self);
  if (self->expected >= 0 && rows > (guint64) self->expected)
    goto too_many;

  buffer = gst_buffer_make_writable (buffer);
  GST_BUFFER_OFFSET (buffer) = bytes;
  GST_BUFFER_OFFSET_END (buffer) = bytes + size;
  return remember_failure (self, gst_pad_push (self->srcpad, buffer));

  /* ERRORS */
not_rows:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Received a buffer of %" G_GSIZE_FORMAT " bytes, which is not a "
            "whole number of rows of %" G_GSIZE_FORMAT " bytes.", size,
            row_size), (NULL));
    gst_buffer_unref (buffer);
    return GST_FLOW_ERROR;
  }
too_many:
  {
    GST_ELEMENT_ERROR (self, STREAM, MUX,
        ("Received %" G_GUINT64_FORMAT " rows, more than the %" G_GINT64_FORMAT
            " the stream announced and the .npy header says.", rows,
            self->expected), (NULL));
    gst_buffer_unref (buffer);
    return GST_FLOW_ERROR;
  }
}

/* At EOS: the header when no row came, the check of the row count, and
 * the rewritten header when the count was not known at the start, or when
 * the stream was ended early on purpose (PLAN_EOS_ENDED_EARLY) before the
 * rows the header announced: then the output is the rows received, which
 * needs a sink that seeks back to byte 0. */
static gboolean
finish (PlanNpyMux * self, GstEvent * eos)
{
  guint32 seqnum = gst_event_get_seqnum (eos);
  GstBuffer *header;
  guint64 rows;

  if (self->failed != GST_FLOW_OK) {
    GST_DEBUG_OBJECT (self, "dropping the EOS of a stream downstream "
        "failed (%s)", gst_flow_get_name (self->failed));
    return FALSE;
  }
  if (!self->header_sent && send_header (self) != GST_FLOW_OK)
    return FALSE;
  GST_OBJECT_LOCK (self);
  rows = self->rows;
  GST_OBJECT_UNLOCK (self);
  if (!self->rewrite) {
    if (rows == (guint64) self->expected)
      return TRUE;
    if (!plan_eos_is_ended_early (eos, NULL))
      goto cut_short;
    if (!downstream_seekable (self))
      goto ended_early_unseekable;
    GST_INFO_OBJECT (self, "the stream was ended early after %"
        G_GUINT64_FORMAT " of %" G_GINT64_FORMAT " rows", rows,
        self->expected);
  }

  GST_DEBUG_OBJECT (self, "rewriting the header with %" G_GUINT64_FORMAT
      " rows", rows);
  /* Under the EOS's seqnum: the EOS that follows ends this segment. */
  if (!push_segment (self, seqnum))
    goto seek_failed;
  if ((header = make_header (self, rows)) == NULL)
    return FALSE;
  if (gst_pad_push (self->srcpad, header) != GST_FLOW_OK)
    goto seek_failed;
  return TRUE;

  /* ERRORS */
ended_early_unseekable:
  {
    GST_ELEMENT_ERROR (self, STREAM, MUX,
        ("The stream was ended after %" G_GUINT64_FORMAT " of the %"
            G_GINT64_FORMAT " rows it announced, which the .npy header "
            "already says, and downstream cannot seek back to rewrite it: "
            "the output is not a valid .npy file.", rows, self->expected),
        (NULL));
    return FALSE;
  }
cut_short:
  {
    GST_ELEMENT_ERROR (self, STREAM, MUX,
        ("The stream ended after %" G_GUINT64_FORMAT " of the %"
            G_GINT64_FORMAT " rows it announced, which the .npy header "
            "already says: the output is not a valid .npy file.", rows,
            self->expected), (NULL));
    return FALSE;
  }
seek_failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, MUX,
        ("Could not rewrite the .npy header with the final row count: "
            "downstream did not seek back to byte 0."), (NULL));
    return FALSE;
  }
}

static gboolean
set_caps (PlanNpyMux * self, GstCaps * caps)
{
  PlanArrayInfo info;
  GError *err = NULL;
  GstCaps *out;
  gboolean ok;

  if (!plan_array_info_from_caps (&info, caps, &err))
    goto bad_caps;
  if (self->header_sent && (info.dtype != self->info.dtype
          || !plan_array_info_same_rows (&info, &self->info)))
    goto changed;
  if (self->have_caps) {
    self->info = info;
    return TRUE;
  }
  self->info = info;
  self->have_caps = TRUE;
  out = gst_caps_new_empty_simple (PLAN_NPY_CAPS_MEDIA_TYPE);
  ok = gst_pad_push_event (self->srcpad, gst_event_new_caps (out));
  gst_caps_unref (out);
  return ok;

  /* ERRORS */
bad_caps:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", err->message),
        ("caps %" GST_PTR_FORMAT, caps));
    g_error_free (err);
    return FALSE;
  }
changed:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The array's dtype or row shape changed after the .npy header "
            "was written."), ("caps %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
}

static gboolean
plan_npy_mux_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  PlanNpyMux *self = PLAN_NPY_MUX (parent);
  GstCaps *caps;
  gboolean ok;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:
      gst_event_parse_caps (event, &caps);
      ok = set_caps (self, caps);
      gst_event_unref (event);
      return ok;
    case GST_EVENT_SEGMENT:
      /* Ours is in bytes and goes out with the header. */
      gst_event_copy_segment (event, &self->segment);
      self->seqnum = gst_event_get_seqnum (event);
      gst_event_unref (event);
      return TRUE;
    case GST_EVENT_EOS:
      if (!finish (self, event)) {
        gst_event_unref (event);
        return FALSE;
      }
      break;
    case GST_EVENT_FLUSH_STOP:
      GST_OBJECT_LOCK (self);
      ok = self->bytes > 0;
      GST_OBJECT_UNLOCK (self);
      if (ok)
        GST_WARNING_OBJECT (self, "a flush after the header: the output "
            "goes on where it was");
      break;
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

static gboolean
plan_npy_mux_src_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK) {
    GST_DEBUG_OBJECT (parent, "seeking is not supported");
    gst_event_unref (event);
    return FALSE;
  }
  return gst_pad_event_default (pad, parent, event);
}

static gboolean
plan_npy_mux_src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  PlanNpyMux *self = PLAN_NPY_MUX (parent);
  GstFormat format;
  gint64 value;

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_POSITION:
      gst_query_parse_position (query, &format, NULL);
      /* Rows and time are upstream's: each row goes out as it comes. */
      if (format != GST_FORMAT_BYTES)
        return gst_pad_query_default (pad, parent, query);
      GST_OBJECT_LOCK (self);
      value = self->bytes;
      GST_OBJECT_UNLOCK (self);
      gst_query_set_position (query, format, value);
      return TRUE;
    case GST_QUERY_DURATION:
      gst_query_parse_duration (query, &format, NULL);
      GST_OBJECT_LOCK (self);
      value = self->total_bytes;
      GST_OBJECT_UNLOCK (self);
      if (format != GST_FORMAT_BYTES)
        return gst_pad_query_default (pad, parent, query);
      if (value < 0)
        return FALSE;
      gst_query_set_duration (query, format, value);
      return TRUE;
    case GST_QUERY_SEEKING:
      gst_query_parse_seeking (query, &format, NULL, NULL, NULL);
      gst_query_set_seeking (query, format, FALSE, -1, -1);
      return TRUE;
    default:
      return gst_pad_query_default (pad, parent, query);
  }
}
