/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-npyparse
 * @title: npyparse
 * @short_description: turn a .npy byte stream into array chunks
 *
 * npyparse reads a NumPy .npy file as a byte stream from any upstream
 * element (filesrc, fdsrc, appsrc, souphttpsrc...) and pushes the array
 * as `array/x-raw` buffers of whole rows, the same caps, chunks and
 * GST_BUFFER_OFFSET / OFFSET_END row numbering as planfilesrc: the header
 * is parsed with libplan's .npy parser, so the same dtypes, shapes and
 * versions are read and the same ones are refused (and Fortran order,
 * below).
 *
 * Upstream buffers may have any size; npyparse collects them and sends
 * chunks of #PlanNpyParse:blocksize bytes rounded down to whole rows (the
 * last one shorter), whatever the upstream block size, copying only rows
 * that straddle two upstream buffers or that would not be aligned to
 * their dtype in memory.
 *
 * For files, planfilesrc is faster (it maps the file instead of copying
 * it and reads ahead on its own thread); npyparse is for streams
 * planfilesrc cannot open: pipes, sockets, HTTP, memory.
 *
 * Duration, position and convert queries are answered in
 * %GST_FORMAT_DEFAULT (rows) and %GST_FORMAT_BYTES (bytes of array data)
 * once the header has been read, and in time where the rows have a rate.
 *
 * ## Seeking
 *
 * Where upstream can seek in bytes (filesrc, souphttpsrc on a server that
 * serves ranges), npyparse seeks as planfilesrc does: in rows, bytes of
 * array data or (rows with a rate) time, flushing or not, segment seeks
 * too. Each seek becomes a seek upstream in bytes, from the byte of its
 * first row, with its flags and seqnum; the segment that answers it is in
 * rows (or time), from the seek's start to its stop, under its seqnum,
 * and the stream ends at the stop with EOS (or SEGMENT_DONE). A seek that
 * comes before the header has been read is kept, and made once it has
 * (the segment answering it is then the first pushed); seeks are refused
 * when upstream cannot seek.
 *
 * ## Errors
 *
 * Big-endian arrays are read: their elements are byte-swapped into the
 * machine's order as each chunk is copied out of the stream. Fortran
 * order (where two or more axes have more than one element) is refused: a
 * stream's first row is spread over the whole array, so only the whole
 * array could be transposed; planfilesrc reads such files.
 *
 * A stream that is not a .npy file, a malformed, unsupported (Fortran
 * order, structured dtypes, version 4) or truncated header, and a
 * stream that ends before the rows its header announces are element errors
 * (stream/format or stream/wrong-type) naming the cause and the byte or
 * row where the stream stopped.
 *
 * ## After the array
 *
 * A stream holds one array. Bytes after its data (another .npy file, from
 * multifilesrc over numbered files or files joined by cat, or anything
 * else) are an error that says what they are, posted as soon as they
 * arrive: they are never dropped.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=a.npy ! npyparse ! planreduce op=sum ! fakesink
 * ]| Sums a .npy file read by filesrc.
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

#include "npyparse.h"

#include <gst/base/gstadapter.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (plan_npy_parse_debug);
#define GST_CAT_DEFAULT plan_npy_parse_debug

enum
{
  PROP_0,
  PROP_BLOCKSIZE,
  PROP_RATE,
};

#define DEFAULT_BLOCKSIZE (1 << 20)
#define MAX_BLOCKSIZE (1 << 30)

struct _PlanNpyParse
{
  GstElement parent;

  GstPad *sinkpad;              /* construct-only */
  GstPad *srcpad;               /* construct-only */

  /* properties, protected by OBJECT_LOCK */
  guint blocksize;
  gboolean blocksize_set;       /* set by the application: kept for a rate */
  gint rate_n;                  /* rows per second, 0: none */
  gint rate_d;

  /* set when the header has been read, protected by OBJECT_LOCK: queries
   * read them on other threads */
  gboolean have_header;
  PlanArrayInfo info;
  guint64 n_rows;
  guint64 rows_out;             /* rows pushed, from row 0 of the array: the
                                 * next row to push */
  guint64 data_offset;          /* the stream byte of row 0 (the header's
                                 * size) */
  guint64 stop_row;             /* rows end before this one: the segment's
                                 * stop, or n_rows */
  GstSegment segment;           /* the one pushed, in rows or time */

  /* a seek sent upstream, in bytes, whose segment has not come back yet,
   * protected by OBJECT_LOCK */
  gboolean seek_pending;
  GstSegment seek_segment;      /* ours, once upstream answers */
  guint64 seek_first;           /* the rows it asks for */
  guint64 seek_stop;
  guint64 seek_byte;            /* the byte it asked upstream to start at */
  guint32 seek_seqnum;
  /* a seek that came before the header, made once the header has been
   * read, protected by OBJECT_LOCK */
  GstEvent *stored_seek;

  /* streaming thread only (STREAM_LOCK) */
  GstAdapter *adapter;
  guint64 bytes_in;             /* stream bytes taken from the adapter */
  gsize row_size;
  gsize chunk_rows;
  gsize align;                  /* the memory alignment of a dtype */
  gboolean swap;                /* big-endian elements, swapped in chunks */
  gboolean refused;             /* the header, or bytes after the array,
                                 * were an error, posted once: the EOS
                                 * that follows does not repeat it */
  gboolean discont;             /* the next chunk is the first pushed, or
                                 * the first after a seek */
  gboolean stale;               /* upstream's last segment is not the answer
                                 * to the seek pending: its bytes are dropped
                                 * until that answer comes */
  guint64 skip;                 /* bytes to drop before the row a seek asked
                                 * for (upstream started before it) */
  guint32 seqnum;               /* of upstream's segment, which ours
                                 * stands for: the EOS that ends upstream's
                                 * ends ours too */
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (PLAN_NPY_CAPS_MEDIA_TYPE));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (PLAN_ARRAY_CAPS_ANY));

#define plan_npy_parse_parent_class parent_class
/* The type is registered as NpyParse, so that an element made without a name
 * is named after its factory (npyparse0), as GStreamer names it from the type
 * name. */
typedef PlanNpyParse NpyParse;
typedef PlanNpyParseClass NpyParseClass;
G_DEFINE_TYPE_EXTENDED (NpyParse, plan_npy_parse, GST_TYPE_ELEMENT, 0, {});
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (npyparse, "npyparse",
    GST_RANK_PRIMARY, PLAN_TYPE_NPY_PARSE,
    GST_DEBUG_CATEGORY_INIT (plan_npy_parse_debug, "npyparse", 0,
        ".npy stream parser"));

static void plan_npy_parse_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void plan_npy_parse_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void plan_npy_parse_finalize (GObject * object);
static GstStateChangeReturn plan_npy_parse_change_state (GstElement *
    element, GstStateChange transition);
static GstFlowReturn plan_npy_parse_chain (GstPad * pad, GstObject * parent,
    GstBuffer * buffer);
static gboolean plan_npy_parse_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event);
static gboolean plan_npy_parse_src_event (GstPad * pad, GstObject * parent,
    GstEvent * event);
static gboolean plan_npy_parse_src_query (GstPad * pad, GstObject * parent,
    GstQuery * query);

static void
plan_npy_parse_class_init (PlanNpyParseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = plan_npy_parse_set_property;
  gobject_class->get_property = plan_npy_parse_get_property;
  gobject_class->finalize = plan_npy_parse_finalize;

  g_object_class_install_property (gobject_class, PROP_BLOCKSIZE,
      plan_param_spec_checked_range (g_param_spec_uint ("blocksize",
          "Chunk size",
          "The size of the chunks pushed, in bytes, rounded down to whole "
          "rows (at least one row); unset, 100 ms of rows for a stream "
          "with a rate (4 KiB where that is more)", 1, MAX_BLOCKSIZE,
          DEFAULT_BLOCKSIZE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY)));
  /**
   * PlanNpyParse:rate:
   *
   * Rows per second, for arrays sampled in time: the caps carry it as
   * `rate`, buffers carry timestamps, the segment is in time, and position
   * and duration are answered in time too. 0/1: the rate of the .npy
   * header when it has one (a `rate` key), otherwise not sampled in time;
   * a rate set here overrides the header's. A negative rate is kept as
   * given and fails the start, as a number out of its range does.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_RATE,
      plan_param_spec_checked_range (gst_param_spec_fraction ("rate",
          "Rate",
          "Rows per second of an array sampled in time (the caps' rate: "
          "buffers then have timestamps, and the segment, position and "
          "duration are in time); overrides a rate in the .npy header; "
          "0/1: the header's rate, or not sampled in time", 0, 1,
          G_MAXINT, 1, 0, 1, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY)));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, ".npy parser",
      "Codec/Parser/Array",
      "Parses a NumPy .npy byte stream into an array stream of whole rows",
      PLAN_CONTACT);
  gst_element_class_add_static_metadata (element_class,
      GST_ELEMENT_METADATA_DOC_URI, PLAN_DOC_URI "/npyparse.md");

  element_class->change_state = GST_DEBUG_FUNCPTR (plan_npy_parse_change_state);
}

static void
plan_npy_parse_init (PlanNpyParse * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (plan_npy_parse_chain));
  gst_pad_set_event_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (plan_npy_parse_sink_event));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_event_function (self->srcpad,
      GST_DEBUG_FUNCPTR (plan_npy_parse_src_event));
  gst_pad_set_query_function (self->srcpad,
      GST_DEBUG_FUNCPTR (plan_npy_parse_src_query));
  gst_pad_use_fixed_caps (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  self->blocksize = DEFAULT_BLOCKSIZE;
  self->adapter = gst_adapter_new ();
}

static void
plan_npy_parse_finalize (GObject * object)
{
  PlanNpyParse *self = PLAN_NPY_PARSE (object);

  g_object_unref (self->adapter);
  gst_event_replace (&self->stored_seek, NULL);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
plan_npy_parse_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  PlanNpyParse *self = PLAN_NPY_PARSE (object);
  gboolean have_header;

  /* The settings apply from the header on: before it, a set still takes
   * effect. */
  GST_OBJECT_LOCK (self);
  have_header = self->have_header;
  GST_OBJECT_UNLOCK (self);
  if (plan_element_refuse_live_set (GST_ELEMENT (object), pspec, have_header)
      || plan_element_refuse_out_of_range (GST_ELEMENT (object), pspec,
          value))
    return;

  switch (prop_id) {
    case PROP_BLOCKSIZE:
      GST_OBJECT_LOCK (self);
      self->blocksize = g_value_get_uint (value);
      self->blocksize_set = TRUE;
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_RATE:
      GST_OBJECT_LOCK (self);
      self->rate_n = gst_value_get_fraction_numerator (value);
      self->rate_d = gst_value_get_fraction_denominator (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
plan_npy_parse_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  PlanNpyParse *self = PLAN_NPY_PARSE (object);

  switch (prop_id) {
    case PROP_BLOCKSIZE:
      GST_OBJECT_LOCK (self);
      g_value_set_uint (value, self->blocksize);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_RATE:
      GST_OBJECT_LOCK (self);
      gst_value_set_fraction (value, self->rate_n, MAX (self->rate_d, 1));
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* Back to waiting for a header: at start, and after a flush (the stream
 * starts again from its first byte). */
static void
reset (PlanNpyParse * self)
{
  gst_adapter_clear (self->adapter);
  self->bytes_in = 0;
  self->refused = FALSE;
  self->discont = TRUE;
  self->stale = FALSE;
  self->skip = 0;
  self->seqnum = GST_SEQNUM_INVALID;
  GST_OBJECT_LOCK (self);
  self->have_header = FALSE;
  self->rows_out = 0;
  self->seek_pending = FALSE;
  gst_segment_init (&self->segment, GST_FORMAT_DEFAULT);
  GST_OBJECT_UNLOCK (self);
}

/* A seek kept from before the header belongs to the run it was sent in;
 * a flush (the stream starting again from its first byte) keeps it. */
static void
drop_stored_seek (PlanNpyParse * self)
{
  GST_OBJECT_LOCK (self);
  gst_event_replace (&self->stored_seek, NULL);
  GST_OBJECT_UNLOCK (self);
}

static GstStateChangeReturn
plan_npy_parse_change_state (GstElement * element, GstStateChange transition)
{
  PlanNpyParse *self = PLAN_NPY_PARSE (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    GError *err = NULL;

    /* A number out of its property's range, before anything reads it. */
    if (!plan_element_check_ranges (element, &err)) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err->message),
          (NULL));
      g_error_free (err);
      return GST_STATE_CHANGE_FAILURE;
    }
    reset (self);
    drop_stored_seek (self);
  }
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
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    reset (self);
    drop_stored_seek (self);
  }
  return ret;
}

static void
post_header_error (PlanNpyParse * self, const GError * err)
{
  GError *e = g_error_copy (err);

  g_prefix_error (&e, "Cannot read this .npy stream: ");
  plan_element_post_error_full (GST_ELEMENT (self), e,
      PLAN_ERROR_CONTEXT_READ, __FILE__, GST_FUNCTION, __LINE__);
  g_error_free (e);
}

/* Another array after the first's data, in the same stream (multifilesrc
 * over .npy files, files concatenated by cat): an error that says so, not
 * a stream that silently ends with the first. */
static gboolean
refuse_next_array (PlanNpyParse * self, const PlanArrayInfo * info)
{
  PlanArrayInfo first;
  gchar *had, *got;

  GST_OBJECT_LOCK (self);
  first = self->info;
  GST_OBJECT_UNLOCK (self);
  had = plan_array_info_to_string (&first);
  got = plan_array_info_to_string (info);
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("The .npy stream holds another array after the data of the first, at "
          "byte %" G_GUINT64_FORMAT ": %s after %s. npyparse reads one array "
          "per stream, and does not drop what follows it: read each file "
          "with its own planfilesrc (or filesrc and npyparse).",
          self->bytes_in, got, had), (NULL));
  g_free (had);
  g_free (got);
  return FALSE;
}

static gboolean handle_seek (PlanNpyParse * self, GstEvent * event,
    gchar ** why);

/* A seek that came before the header, made now that the header says where
 * the rows are: upstream is asked for them as for any seek, and the
 * segment that answers it is the first one pushed (none from row 0 goes
 * before it). Until that answer, upstream's bytes are the rows from the
 * first, not the ones asked for, and are dropped. Called from the
 * streaming thread: the flush of a flushing seek comes back through it
 * (pad stream locks are recursive), as in any demuxer that seeks its
 * source from its chain function. Takes @seek. */
static gboolean
seek_after_header (PlanNpyParse * self, GstEvent * seek)
{
  gchar *why = NULL;
  gboolean ok;

  GST_DEBUG_OBJECT (self, "making the seek kept from before the header: %"
      GST_PTR_FORMAT, seek);
  gst_adapter_clear (self->adapter);
  self->stale = TRUE;
  ok = handle_seek (self, seek, &why);
  if (!ok)
    GST_ELEMENT_ERROR (self, CORE, SEEK,
        ("The seek sent before the .npy header was read cannot be made now "
            "that it has been: %s.", why), (NULL));
  g_free (why);
  gst_event_unref (seek);
  return ok;
}

/* Sends the header's caps, taking @caps. A seek made while the header
 * was read flushes downstream, and the push fails: the caps are still
 * kept on the pad, as sticky events are, and go out before the seek's
 * segment. The flush cannot end meanwhile (FLUSH_STOP waits for the
 * stream lock this thread holds). Returns FALSE after posting an error. */
static gboolean
push_caps (PlanNpyParse * self, GstCaps * caps)
{
  gboolean ok = gst_pad_push_event (self->srcpad, gst_event_new_caps (caps));

  gst_caps_unref (caps);
  if (ok)
    return TRUE;
  if (GST_PAD_IS_FLUSHING (self->srcpad)) {
    GST_DEBUG_OBJECT (self, "flushing: the caps go out after the flush");
    return TRUE;
  }
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
      ("downstream refused the array caps"));
  return FALSE;
}

/* Sends one of our segments. */
static void
push_segment (PlanNpyParse * self, const GstSegment * segment,
    guint32 seqnum)
{
  GstEvent *event = gst_event_new_segment (segment);

  if (seqnum != GST_SEQNUM_INVALID)
    gst_event_set_seqnum (event, seqnum);
  gst_pad_push_event (self->srcpad, event);
}

/* Sends caps and a segment in rows for the array the header describes, or
 * makes the seek kept from before the header. */
static gboolean
start_array (PlanNpyParse * self, const PlanArrayInfo * info)
{
  GstSegment segment;
  GstEvent *seek;
  GstCaps *caps;
  guint blocksize;
  gboolean blocksize_set;

  GST_OBJECT_LOCK (self);
  blocksize = self->blocksize;
  blocksize_set = self->blocksize_set;
  self->info = *info;
  /* The property overrides a rate in the header. */
  if (self->rate_n > 0) {
    self->info.rate_n = self->rate_n;
    self->info.rate_d = self->rate_d;
  }
  info = &self->info;
  self->n_rows = plan_array_info_get_n_rows (info);
  self->rows_out = 0;
  self->stop_row = self->n_rows;
  self->data_offset = self->bytes_in;
  /* In time for rows sampled in time, in rows otherwise; set with the
   * header, since a seek made from now on starts from it. */
  if (plan_array_info_has_rate (info)) {
    gst_segment_init (&segment, GST_FORMAT_TIME);
    segment.duration = plan_array_info_rows_to_time (info, self->n_rows);
  } else {
    gst_segment_init (&segment, GST_FORMAT_DEFAULT);
    segment.duration = self->n_rows;
  }
  self->segment = segment;
  self->have_header = TRUE;
  /* Taken with have_header set, under the same lock, so that a seek sent
   * meanwhile is either kept and taken here or made as any seek. */
  seek = self->stored_seek;
  self->stored_seek = NULL;
  GST_OBJECT_UNLOCK (self);

  self->row_size = plan_array_info_get_row_size (info);
  self->chunk_rows = MAX (1, blocksize / MAX (self->row_size, 1));
  /* Rows sampled in time go in chunks of about 100 ms unless blocksize
   * was set: a sink syncing to the clock plays them in steps, and an EOS
   * sent on Ctrl-C (gst-launch-1.0 -e) ends the stream soon after. */
  if (!blocksize_set && plan_array_info_has_rate (info))
    self->chunk_rows = MIN (self->chunk_rows,
        plan_array_info_get_paced_chunk_rows (info));
  self->align = plan_dtype_get_size (info->dtype);

  caps = plan_array_info_to_caps (info);
  GST_INFO_OBJECT (self, "array %" GST_PTR_FORMAT ", data at byte %"
      G_GUINT64_FORMAT ", chunks of %" G_GSIZE_FORMAT " rows", caps,
      self->bytes_in, self->chunk_rows);
  /* Refused caps would only show as the not-negotiated flow of the first
   * buffer, which the source upstream reports without a word of why. */
  if (!plan_element_check_downstream_caps (GST_ELEMENT (self), self->srcpad,
          "The .npy stream", caps)) {
    gst_caps_unref (caps);
    gst_clear_event (&seek);
    return FALSE;
  }
  if (!push_caps (self, caps)) {
    gst_clear_event (&seek);
    return FALSE;
  }
  /* The segment of a seek kept from before the header is the first. */
  if (seek)
    return seek_after_header (self, seek);
  push_segment (self, &segment, self->seqnum);
  self->discont = TRUE;
  return TRUE;
}

/* Reads the header once all of it is in the adapter: the first array's,
 * or with @next what follows an array's data, which is an error either
 * way. Returns FALSE after posting an error; sets @done once the header
 * has been read. */
static gboolean
parse_header (PlanNpyParse * self, gboolean at_eos, gboolean next,
    gboolean * done)
{
  gsize avail = gst_adapter_available (self->adapter);
  gsize header_size;
  PlanArrayInfo info;
  PlanNpyLayout layout;
  GError *err = NULL;
  const guint8 *data;

  *done = FALSE;
  if (avail < PLAN_NPY_PREAMBLE_SIZE && !at_eos)
    return TRUE;
  data = gst_adapter_map (self->adapter, MIN (avail, PLAN_NPY_PREAMBLE_SIZE));
  if (next && !plan_npy_has_magic (data, MIN (avail, PLAN_NPY_PREAMBLE_SIZE))) {
    gst_adapter_unmap (self->adapter);
    goto trailing;
  }
  if (!plan_npy_parse_preamble (data, MIN (avail, PLAN_NPY_PREAMBLE_SIZE),
          NULL, &header_size, &err)) {
    gst_adapter_unmap (self->adapter);
    goto bad_header;
  }
  gst_adapter_unmap (self->adapter);
  if (avail < header_size && !at_eos)
    return TRUE;

  data = gst_adapter_map (self->adapter, MIN (avail, header_size));
  /* Big-endian elements are swapped chunk by chunk; Fortran order would
   * need the whole array before the first row. */
  if (!plan_npy_parse_header_full (data, MIN (avail, header_size),
          PLAN_NPY_LAYOUT_BIG_ENDIAN | PLAN_NPY_LAYOUT_FORTRAN, &info, NULL,
          &layout, &err)) {
    gst_adapter_unmap (self->adapter);
    goto bad_header;
  }
  gst_adapter_unmap (self->adapter);
  if ((layout & PLAN_NPY_LAYOUT_FORTRAN) && !next) {
    g_set_error (&err, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its array is in "
        "Fortran order, whose first row is spread over the whole stream, "
        "and npyparse does not hold a whole array to transpose it; read the "
        "file with planfilesrc, which does, or save the array with "
        "numpy.ascontiguousarray() first");
    goto bad_header;
  }
  *done = TRUE;
  if (next)
    return refuse_next_array (self, &info);
  gst_adapter_flush (self->adapter, header_size);
  self->bytes_in = header_size;
  self->swap = (layout & PLAN_NPY_LAYOUT_BIG_ENDIAN) != 0;
  return start_array (self, &info);

  /* ERRORS */
bad_header:
  {
    if (next)
      GST_ELEMENT_ERROR (self, STREAM, FORMAT,
          ("Cannot read the array after the first in this .npy stream, at "
              "byte %" G_GUINT64_FORMAT ": %s", self->bytes_in, err->message),
          (NULL));
    else
      post_header_error (self, err);
    g_error_free (err);
    return FALSE;
  }
trailing:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The .npy stream goes on after its array's data, from byte %"
            G_GUINT64_FORMAT ", with bytes that are not another .npy array "
            "(%" G_GSIZE_FORMAT " bytes or more): they would be lost.",
            self->bytes_in, avail), (NULL));
    return FALSE;
  }
}

/* A chunk of @n_rows rows from the adapter, in one memory aligned to its
 * dtype: planmap and the other kernel elements read elements in place.
 * Big-endian elements are swapped in a copy: upstream's memory may be
 * shared, or a file's mapped pages. */
static GstBuffer *
take_chunk (PlanNpyParse * self, gsize n_rows)
{
  gsize size = n_rows * self->row_size;
  GstBuffer *buf = gst_adapter_take_buffer (self->adapter, size);
  GstMapInfo map;
  gboolean aligned;

  if (!gst_buffer_map (buf, &map, GST_MAP_READ))
    goto map_failed;
  aligned = ((guintptr) map.data) % self->align == 0;
  if (!aligned || self->swap) {
    GstAllocationParams params;
    GstMapInfo out;
    GstBuffer *copy;

    GST_LOG_OBJECT (self, "copying %" G_GSIZE_FORMAT " bytes to %s them",
        size, self->swap ? "byte-swap" : "align");
    gst_allocation_params_init (&params);
    params.align = 63;
    copy = gst_buffer_new_allocate (NULL, size, &params);
    gst_buffer_map (copy, &out, GST_MAP_WRITE);
    memcpy (out.data, map.data, size);
    if (self->swap)
      plan_dtype_swap_bytes (self->info.dtype, out.data, size);
    gst_buffer_unmap (copy, &out);
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
    buf = copy;
  } else {
    gst_buffer_unmap (buf, &map);
  }
  /* Arrays have no timestamps; the adapter copied the source's. */
  buf = gst_buffer_make_writable (buf);
  GST_BUFFER_PTS (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buf) = GST_CLOCK_TIME_NONE;
  self->bytes_in += size;
  return buf;

  /* ERRORS */
map_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, (NULL),
        ("cannot map a chunk of %" G_GSIZE_FORMAT " bytes", size));
    gst_buffer_unref (buf);
    return NULL;
  }
}

/* Pushes whole chunks, and at EOS the rows left. */
static GstFlowReturn
push_rows (PlanNpyParse * self, gboolean at_eos)
{
  GstFlowReturn ret = GST_FLOW_OK;

  while (ret == GST_FLOW_OK) {
    guint64 rows_out, left;
    gsize avail_rows, n;
    GstBuffer *buf;

    GST_OBJECT_LOCK (self);
    rows_out = self->rows_out;
    left = self->stop_row - rows_out;
    GST_OBJECT_UNLOCK (self);
    if (left == 0 || self->row_size == 0)
      break;
    avail_rows = gst_adapter_available (self->adapter) / self->row_size;
    n = MIN (left, self->chunk_rows);
    if (avail_rows < n && !(at_eos && avail_rows > 0))
      break;
    n = MIN (n, avail_rows);

    if ((buf = take_chunk (self, n)) == NULL)
      return GST_FLOW_ERROR;
    GST_BUFFER_OFFSET (buf) = rows_out;
    GST_BUFFER_OFFSET_END (buf) = rows_out + n;
    if (plan_array_info_has_rate (&self->info)) {
      GST_BUFFER_PTS (buf) = plan_array_info_rows_to_time (&self->info,
          rows_out);
      GST_BUFFER_DURATION (buf) = plan_array_info_rows_to_time (&self->info,
          rows_out + n) - GST_BUFFER_PTS (buf);
    }
    if (self->discont)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    else
      GST_BUFFER_FLAG_UNSET (buf, GST_BUFFER_FLAG_DISCONT);
    self->discont = FALSE;
    GST_OBJECT_LOCK (self);
    self->rows_out = rows_out + n;
    /* A seek that does not flush starts its segment where this one is. */
    self->segment.position = plan_array_info_has_rate (&self->info) ?
        plan_array_info_rows_to_time (&self->info, rows_out + n) :
        rows_out + n;
    GST_OBJECT_UNLOCK (self);
    GST_LOG_OBJECT (self, "rows %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT,
        rows_out, rows_out + n);
    ret = gst_pad_push (self->srcpad, buf);
  }
  return ret;
}

static GstFlowReturn
process (PlanNpyParse * self, gboolean at_eos)
{
  gboolean have_header, done;
  guint64 n_rows, rows_out, stop_row;
  GstFlowReturn ret;

  if (self->refused)
    return GST_FLOW_ERROR;
  GST_OBJECT_LOCK (self);
  have_header = self->have_header;
  GST_OBJECT_UNLOCK (self);
  if (!have_header) {
    if (!parse_header (self, at_eos, FALSE, &done)) {
      self->refused = TRUE;
      return GST_FLOW_ERROR;
    }
    if (!done)
      return GST_FLOW_OK;
  }

  ret = push_rows (self, at_eos);
  GST_OBJECT_LOCK (self);
  n_rows = self->n_rows;
  rows_out = self->rows_out;
  stop_row = self->stop_row;
  GST_OBJECT_UNLOCK (self);
  /* At a seek's stop before the array's end: rows after it are not sent,
   * and upstream (which was asked to stop there too) is told so. */
  if (ret == GST_FLOW_OK && rows_out == stop_row && stop_row < n_rows
      && gst_adapter_available (self->adapter) > 0) {
    GST_DEBUG_OBJECT (self, "at the segment's stop, row %" G_GUINT64_FORMAT,
        stop_row);
    gst_adapter_clear (self->adapter);
    return GST_FLOW_EOS;
  }
  /* Bytes after the array's data: what they are is said in the error,
   * once, and the stream does not end as if whole. */
  if (ret == GST_FLOW_OK && rows_out == n_rows
      && gst_adapter_available (self->adapter) > 0) {
    if (!parse_header (self, at_eos, TRUE, &done)) {
      self->refused = TRUE;
      return GST_FLOW_ERROR;
    }
  }
  return ret;
}

static GstFlowReturn
plan_npy_parse_chain (GstPad * pad, GstObject * parent, GstBuffer * buffer)
{
  PlanNpyParse *self = PLAN_NPY_PARSE (parent);

  /* Bytes from before a seek, still on their way. */
  if (self->stale) {
    gst_buffer_unref (buffer);
    return GST_FLOW_OK;
  }
  gst_adapter_push (self->adapter, buffer);
  /* Upstream started before the row the seek asked for. */
  if (self->skip > 0) {
    gsize n = MIN (self->skip, gst_adapter_available (self->adapter));

    gst_adapter_flush (self->adapter, n);
    self->skip -= n;
    self->bytes_in += n;
  }
  return process (self, FALSE);
}

/* Whether @eos, before the rows announced, is one the application sent
 * to end the stream early on purpose (gst_element_send_event() on the
 * pipeline, gst-launch-1.0 -e, a gst-validate scenario), ending it at
 * byte @end. A source that marks the EOS itself (plan_eos_watch_source())
 * says so outright. GstBaseSrc (filesrc) pushes the EOS it was sent as it
 * came, under the application's seqnum, while the EOS that ends its data
 * (a file cut short, num-buffers) has the seqnum of its segment, which
 * ours stands for; and the source must still have bytes after @end (its
 * duration in bytes), which a file cut short has not. Where upstream
 * cannot say (a pipe, a network source), it stays a stream cut short. */
static gboolean
ended_by_application (PlanNpyParse * self, GstEvent * eos, guint64 end)
{
  gint64 duration;

  if (plan_eos_is_ended_early (eos, NULL))
    return TRUE;
  if (self->stale || self->seqnum == GST_SEQNUM_INVALID
      || gst_event_get_seqnum (eos) == self->seqnum)
    return FALSE;
  if (!gst_pad_peer_query_duration (self->sinkpad, GST_FORMAT_BYTES,
          &duration) || duration < 0 || (guint64) duration <= end)
    return FALSE;
  GST_DEBUG_OBJECT (self, "an EOS of another seqnum than upstream's "
      "segment at byte %" G_GUINT64_FORMAT " of %" G_GINT64_FORMAT ": the "
      "application ends the stream", end, duration);
  return TRUE;
}

/* At EOS: the last rows, and an error when the stream was cut short. An
 * EOS the application sent (@eos, when not NULL) ends it at the last
 * whole row received instead: it is marked so, with our segment's seqnum,
 * for the elements after us (plan_eos_mark_ended_early()). */
static gboolean
finish (PlanNpyParse * self, GstEvent ** eos)
{
  guint64 n_rows, rows_out, stop_row, seek_byte;
  gboolean have_header;
  GstFlowReturn ret;
  gsize avail;

  GST_OBJECT_LOCK (self);
  have_header = self->have_header;
  seek_byte = self->seek_byte;
  GST_OBJECT_UNLOCK (self);
  if (!have_header && gst_adapter_available (self->adapter) == 0)
    goto empty;
  if (self->stale)
    goto unanswered;
  ret = process (self, TRUE);
  /* Downstream wanted no more rows (fakesink num-buffers, a sink at its
   * segment's stop): the stream still ends, with the EOS passed on. */
  if (ret == GST_FLOW_EOS) {
    GST_DEBUG_OBJECT (self, "downstream is done: passing EOS on");
    return TRUE;
  }
  if (ret != GST_FLOW_OK)
    return FALSE;

  GST_OBJECT_LOCK (self);
  n_rows = self->n_rows;
  rows_out = self->rows_out;
  stop_row = self->stop_row;
  GST_OBJECT_UNLOCK (self);
  avail = gst_adapter_available (self->adapter);
  if (rows_out < stop_row && eos != NULL
      && ended_by_application (self, *eos, self->bytes_in + avail)) {
    GST_DEBUG_OBJECT (self, "the application ends the stream at row %"
        G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " (%" G_GSIZE_FORMAT
        " bytes of a row dropped)", rows_out, stop_row, avail);
    gst_adapter_clear (self->adapter);
    *eos = plan_eos_mark_ended_early (*eos, rows_out);
    gst_event_set_seqnum (*eos, self->seqnum);
    return TRUE;
  }
  if (rows_out < stop_row)
    goto truncated;
  return TRUE;

  /* ERRORS */
empty:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The .npy stream is empty: it ended before its first byte."), (NULL));
    return FALSE;
  }
unanswered:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("The .npy stream ended without the bytes a seek asked for: "
            "upstream was asked for them from byte %" G_GUINT64_FORMAT
            ", and its segment started elsewhere.", seek_byte), (NULL));
    return FALSE;
  }
truncated:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The .npy stream is truncated: its header says %" G_GUINT64_FORMAT
            " rows of %" G_GSIZE_FORMAT " bytes, but it ended after %"
            G_GUINT64_FORMAT " rows and %" G_GSIZE_FORMAT " bytes, at byte %"
            G_GUINT64_FORMAT ".", n_rows, self->row_size, rows_out, avail,
            self->bytes_in + avail), (NULL));
    return FALSE;
  }
}

/* Upstream's segment in bytes: the answer to the seek pending, when it
 * has the seek's seqnum or starts at the byte asked for. Ours, in rows or
 * time, then goes out with the seek's seqnum, and rows from the one asked
 * for. Returns FALSE after posting an error. */
static gboolean
answer_seek (PlanNpyParse * self, GstEvent * event)
{
  const GstSegment *upstream;
  GstSegment segment;
  guint64 first, byte;
  guint32 seqnum;

  gst_event_parse_segment (event, &upstream);
  GST_OBJECT_LOCK (self);
  if (!self->seek_pending || upstream->format != GST_FORMAT_BYTES
      || (gst_event_get_seqnum (event) != self->seek_seqnum
          && upstream->start != self->seek_byte)) {
    gboolean pending = self->seek_pending;

    GST_OBJECT_UNLOCK (self);
    /* A segment from before the seek pending (it was made while another
     * one's answer was on its way): its bytes are not the rows asked for. */
    self->stale = pending;
    return TRUE;
  }
  self->seek_pending = FALSE;
  segment = self->seek_segment;
  first = self->seek_first;
  byte = self->seek_byte;
  seqnum = self->seek_seqnum;
  self->rows_out = first;
  self->stop_row = self->seek_stop;
  self->segment = segment;
  GST_OBJECT_UNLOCK (self);

  GST_DEBUG_OBJECT (self, "upstream answers the seek from byte %"
      G_GUINT64_FORMAT ": rows %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT,
      upstream->start, first, self->seek_stop);
  /* Without a flush, what came before the seek is still here. */
  gst_adapter_clear (self->adapter);
  self->stale = FALSE;
  self->seqnum = seqnum;
  if (upstream->start > byte) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Upstream answered a seek to byte %" G_GUINT64_FORMAT " of the "
            ".npy stream (row %" G_GUINT64_FORMAT ") with bytes from byte %"
            G_GUINT64_FORMAT ": the rows in between would be lost.", byte,
            first, upstream->start), (NULL));
    self->refused = TRUE;
    return FALSE;
  }
  self->skip = byte - upstream->start;
  self->bytes_in = upstream->start;
  self->discont = TRUE;
  push_segment (self, &segment, seqnum);
  return TRUE;
}

/* Upstream ended the range a seek asked for without a segment (GstBaseSrc
 * sends none before an EOS that comes first: a seek to rows 3 to 3, whose
 * bytes are none): the seek's own segment goes out before the EOS, so
 * that downstream does not take the stream for the range before. */
static void
answer_seek_at_eos (PlanNpyParse * self, GstEvent * eos)
{
  GstSegment segment;
  guint32 seqnum;

  GST_OBJECT_LOCK (self);
  if (!self->seek_pending || self->stale
      || gst_event_get_seqnum (eos) != self->seek_seqnum) {
    GST_OBJECT_UNLOCK (self);
    return;
  }
  self->seek_pending = FALSE;
  segment = self->seek_segment;
  seqnum = self->seek_seqnum;
  self->rows_out = self->seek_first;
  self->stop_row = self->seek_stop;
  self->segment = segment;
  GST_OBJECT_UNLOCK (self);

  GST_DEBUG_OBJECT (self, "upstream ended the seek's range of no bytes: "
      "rows %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT, segment.start,
      segment.stop);
  gst_adapter_clear (self->adapter);
  self->seqnum = seqnum;
  push_segment (self, &segment, seqnum);
}

/* Upstream's SEGMENT_DONE ends a segment seek's range: the last rows, then
 * ours, in rows or time, with a message (the pipeline's SEGMENT_DONE is
 * posted once every element that started a segment seek has posted
 * one). */
static gboolean
end_segment (PlanNpyParse * self, GstEvent * event)
{
  guint32 seqnum = gst_event_get_seqnum (event);
  GstFormat format;
  gint64 position;
  GstEvent *done;
  GstMessage *msg;

  if (!finish (self, NULL))
    return FALSE;
  GST_OBJECT_LOCK (self);
  format = self->segment.format;
  position = self->segment.stop != GST_CLOCK_TIME_NONE ?
      self->segment.stop : self->segment.duration;
  GST_OBJECT_UNLOCK (self);
  msg = gst_message_new_segment_done (GST_OBJECT (self), format, position);
  gst_message_set_seqnum (msg, seqnum);
  gst_element_post_message (GST_ELEMENT (self), msg);
  done = gst_event_new_segment_done (format, position);
  gst_event_set_seqnum (done, seqnum);
  return gst_pad_push_event (self->srcpad, done);
}

static gboolean
plan_npy_parse_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  PlanNpyParse *self = PLAN_NPY_PARSE (parent);
  gboolean have_header, pending, ok;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_SEGMENT:
      GST_OBJECT_LOCK (self);
      have_header = self->have_header;
      GST_OBJECT_UNLOCK (self);
      /* After the header, upstream's answer to a seek. Before it, ours,
       * in rows, goes out with the header under this one's seqnum. */
      if (have_header)
        ok = answer_seek (self, event);
      else {
        self->seqnum = gst_event_get_seqnum (event);
        ok = TRUE;
      }
      gst_event_unref (event);
      return ok;
    case GST_EVENT_CAPS:
      /* Ours come from the header. */
      gst_event_unref (event);
      return TRUE;
    case GST_EVENT_EOS:
      answer_seek_at_eos (self, event);
      if (!finish (self, &event)) {
        gst_event_unref (event);
        return FALSE;
      }
      break;
    case GST_EVENT_SEGMENT_DONE:
      ok = end_segment (self, event);
      gst_event_unref (event);
      return ok;
    case GST_EVENT_FLUSH_STOP:
      /* A seek of ours keeps the header: rows come from the byte it asked
       * for. Another flush starts the stream again from its first byte. */
      GST_OBJECT_LOCK (self);
      pending = self->seek_pending;
      GST_OBJECT_UNLOCK (self);
      if (pending) {
        gst_adapter_clear (self->adapter);
        self->skip = 0;
        self->stale = FALSE;
        self->discont = TRUE;
      } else
        reset (self);
      break;
    case GST_EVENT_STREAM_START:
    case GST_EVENT_FLUSH_START:
      break;
    default:
      /* Other sticky events (tags) may not overtake the caps. */
      GST_OBJECT_LOCK (self);
      have_header = self->have_header;
      GST_OBJECT_UNLOCK (self);
      if (GST_EVENT_IS_STICKY (event) && !have_header) {
        GST_DEBUG_OBJECT (self, "dropping %" GST_PTR_FORMAT " before the "
            "header", event);
        gst_event_unref (event);
        return TRUE;
      }
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

/* Converts rows (DEFAULT), bytes of array data and, for rows sampled in
 * time, time. Must be called with OBJECT_LOCK held */
static gboolean
convert_unlocked (PlanNpyParse * self, GstFormat from, gint64 value,
    GstFormat to, gint64 * result)
{
  if (!self->have_header)
    return FALSE;
  return plan_array_info_convert (&self->info, from, value, to, result);
}

/* Whether upstream can seek in bytes: a seek is made there. */
static gboolean
upstream_seekable (PlanNpyParse * self)
{
  GstQuery *query = gst_query_new_seeking (GST_FORMAT_BYTES);
  gboolean seekable = FALSE;

  if (gst_pad_peer_query (self->sinkpad, query))
    gst_query_parse_seeking (query, NULL, &seekable, NULL, NULL);
  gst_query_unref (query);
  return seekable;
}

/* Sends the seek upstream in bytes for rows @first to @last (to the end
 * when @to_end), with @seek's rate, flags and seqnum; @segment is ours
 * once upstream answers. */
static gboolean
seek_upstream (PlanNpyParse * self, GstEvent * seek, const GstSegment * segment,
    guint64 first, guint64 last, gboolean to_end)
{
  guint32 seqnum = gst_event_get_seqnum (seek);
  guint64 data_offset, byte;
  GstSeekFlags flags;
  gsize row_size;
  GstEvent *upstream;
  gdouble rate;

  gst_event_parse_seek (seek, &rate, NULL, &flags, NULL, NULL, NULL, NULL);
  GST_OBJECT_LOCK (self);
  data_offset = self->data_offset;
  row_size = plan_array_info_get_row_size (&self->info);
  byte = data_offset + first * row_size;
  self->seek_pending = TRUE;
  self->seek_segment = *segment;
  self->seek_first = first;
  self->seek_stop = last;
  self->seek_byte = byte;
  self->seek_seqnum = seqnum;
  GST_OBJECT_UNLOCK (self);

  upstream = gst_event_new_seek (rate, GST_FORMAT_BYTES, flags,
      GST_SEEK_TYPE_SET, byte, GST_SEEK_TYPE_SET,
      to_end ? -1 : (gint64) (data_offset + last * row_size));
  gst_event_set_seqnum (upstream, seqnum);
  GST_DEBUG_OBJECT (self, "rows %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
      ": seeking upstream to byte %" G_GUINT64_FORMAT, first, last, byte);
  /* Before upstream's own (it posts one too): the pipeline's SEGMENT_DONE
   * waits for ours, in rows or time. */
  if (flags & GST_SEEK_FLAG_SEGMENT) {
    GstMessage *msg = gst_message_new_segment_start (GST_OBJECT (self),
        segment->format, segment->start);

    gst_message_set_seqnum (msg, seqnum);
    gst_element_post_message (GST_ELEMENT (self), msg);
  }
  if (!gst_pad_push_event (self->sinkpad, upstream)) {
    GST_DEBUG_OBJECT (self, "upstream refused the seek");
    GST_OBJECT_LOCK (self);
    if (self->seek_pending && self->seek_seqnum == seqnum)
      self->seek_pending = FALSE;
    GST_OBJECT_UNLOCK (self);
    return FALSE;
  }
  return TRUE;
}

/* Logs why a seek is refused, and with @why returns it. */
static gboolean
refuse_seek (PlanNpyParse * self, gchar ** why, GstDebugLevel level,
    const gchar * format, ...)
{
  gchar *text;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, self, "cannot seek: %s", text);
  if (why)
    *why = text;
  else
    g_free (text);
  return FALSE;
}

/* A seek in rows, bytes of array data or (rows sampled in time) time
 * becomes a seek upstream in bytes of the stream, from the row holding
 * its start to the row its stop ends, with its flags and seqnum; the
 * segment upstream answers with is answered by ours (answer_seek()).
 * Before the header, a seek upstream could make is kept, and made once
 * the header has been read (seek_after_header()); a later one replaces
 * it. With @why, the reason of a refusal. */
static gboolean
handle_seek (PlanNpyParse * self, GstEvent * event, gchar ** why)
{
  GstSeekType start_type, stop_type;
  GstSeekFlags flags;
  GstFormat format, to;
  gint64 start, stop, end;
  gdouble rate;
  GstSegment segment;
  PlanArrayInfo info;
  guint64 first, last, n_rows;
  gboolean ok;

  gst_event_parse_seek (event, &rate, &format, &flags, &start_type, &start,
      &stop_type, &stop);
  if (rate <= 0.0)
    goto bad_rate;
  if (format != GST_FORMAT_DEFAULT && format != GST_FORMAT_BYTES
      && format != GST_FORMAT_TIME)
    goto bad_format;
  if (!upstream_seekable (self))
    goto not_seekable;
  /* In one format, a start after the stop is refused before the header
   * as after it (not kept to fail once the header is read). */
  if (start_type == GST_SEEK_TYPE_SET && stop_type == GST_SEEK_TYPE_SET
      && stop >= 0 && start > stop)
    goto bad_range;
  GST_OBJECT_LOCK (self);
  if (!self->have_header) {
    gst_event_replace (&self->stored_seek, event);
    GST_OBJECT_UNLOCK (self);
    GST_DEBUG_OBJECT (self, "keeping the seek until the header has been "
        "read");
    return TRUE;
  }
  info = self->info;
  segment = self->segment;
  n_rows = self->n_rows;
  to = plan_array_info_has_rate (&info) ? GST_FORMAT_TIME : GST_FORMAT_DEFAULT;
  ok = plan_array_info_convert_seek_value (&info, format, start_type, start,
      to, &start)
      && plan_array_info_convert_seek_value (&info, format, stop_type, stop,
      to, &stop);
  GST_OBJECT_UNLOCK (self);
  if (!ok)
    goto bad_format;
  /* A start after the stop (the one kept from the segment before, for a
   * stop of GST_SEEK_TYPE_NONE) is no range. */
  if (!plan_array_info_seek_is_range (&segment, start_type, start,
          stop_type, stop))
    goto bad_range;
  if (!gst_segment_do_seek (&segment, rate, to, flags, start_type, start,
          stop_type, stop, NULL))
    goto bad_seek;
  segment.time = segment.start;
  plan_array_info_get_segment_rows (&info, &segment, &first, &end);
  last = end < 0 ? n_rows : MIN ((guint64) end, n_rows);
  first = MIN (first, last);
  /* A 0-d array is one row, its value, which numpy cannot slice and the
   * stream, whose caps announce it, could not leave out. */
  if (info.ndim == 0 && first >= last)
    goto no_row_of_0d;
  if (!seek_upstream (self, event, &segment, first, last, end < 0))
    return refuse_seek (self, why, GST_LEVEL_DEBUG, "upstream refused the "
        "seek in bytes");
  return TRUE;

  /* ERRORS */
bad_rate:
  {
    return refuse_seek (self, why, GST_LEVEL_WARNING, "only forward playback "
        "is supported, not rate %f", rate);
  }
bad_format:
  {
    return refuse_seek (self, why, GST_LEVEL_WARNING, "a seek in %s format is "
        "not supported; seek in rows (default), bytes, or time for rows "
        "sampled in time", gst_format_get_name (format));
  }
bad_range:
  {
    return refuse_seek (self, why, GST_LEVEL_WARNING, "the start is after the "
        "stop (the segment's, for a stop left unchanged)");
  }
bad_seek:
  {
    return refuse_seek (self, why, GST_LEVEL_WARNING, "invalid seek");
  }
no_row_of_0d:
  {
    return refuse_seek (self, why, GST_LEVEL_WARNING, "the seek selects no "
        "row of a 0-d array (one value)");
  }
not_seekable:
  {
    return refuse_seek (self, why, GST_LEVEL_DEBUG, "upstream cannot seek in "
        "bytes");
  }
}

static gboolean
plan_npy_parse_src_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  PlanNpyParse *self = PLAN_NPY_PARSE (parent);
  gboolean ok;

  if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK) {
    ok = handle_seek (self, event, NULL);
    gst_event_unref (event);
    return ok;
  }
  return gst_pad_event_default (pad, parent, event);
}

static gboolean
answer_position_or_duration (PlanNpyParse * self, GstQuery * query)
{
  gboolean duration = GST_QUERY_TYPE (query) == GST_QUERY_DURATION;
  GstFormat format;
  gint64 value;
  gboolean ok;

  if (duration)
    gst_query_parse_duration (query, &format, NULL);
  else
    gst_query_parse_position (query, &format, NULL);
  if (format != GST_FORMAT_DEFAULT && format != GST_FORMAT_BYTES
      && format != GST_FORMAT_TIME)
    return FALSE;
  GST_OBJECT_LOCK (self);
  ok = convert_unlocked (self, GST_FORMAT_DEFAULT,
      duration ? self->n_rows : self->rows_out, format, &value);
  GST_OBJECT_UNLOCK (self);
  if (!ok)
    return FALSE;
  if (duration)
    gst_query_set_duration (query, format, value);
  else
    gst_query_set_position (query, format, value);
  return TRUE;
}

static gboolean
plan_npy_parse_src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  PlanNpyParse *self = PLAN_NPY_PARSE (parent);
  GstFormat src_format, dest_format;
  gint64 src_value, dest_value;
  gboolean ok;

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_POSITION:
    case GST_QUERY_DURATION:
      return answer_position_or_duration (self, query);
    case GST_QUERY_CONVERT:
      gst_query_parse_convert (query, &src_format, &src_value, &dest_format,
          NULL);
      GST_OBJECT_LOCK (self);
      ok = convert_unlocked (self, src_format, src_value, dest_format,
          &dest_value);
      GST_OBJECT_UNLOCK (self);
      if (ok)
        gst_query_set_convert (query, src_format, src_value, dest_format,
            dest_value);
      return ok;
    case GST_QUERY_SEEKING:
      /* In the formats of seeks, where upstream can seek in bytes: to the
       * array's end once the header has been read; before it, to an end
       * not known yet, in the formats a seek kept until the header can
       * be made in (handle_seek()): rows, bytes, and time where the rate
       * property already says the rows have a rate. An element
       * downstream that asks before it lets a seek through (a kernel
       * element's) would otherwise refuse what npyparse can do. */
      gst_query_parse_seeking (query, &src_format, NULL, NULL, NULL);
      GST_OBJECT_LOCK (self);
      if (self->have_header)
        ok = (src_format == GST_FORMAT_DEFAULT
            || src_format == GST_FORMAT_BYTES
            || src_format == GST_FORMAT_TIME)
            && convert_unlocked (self, GST_FORMAT_DEFAULT, self->n_rows,
            src_format, &dest_value);
      else {
        ok = src_format == GST_FORMAT_DEFAULT
            || src_format == GST_FORMAT_BYTES
            || (src_format == GST_FORMAT_TIME && self->rate_n > 0);
        dest_value = -1;
      }
      GST_OBJECT_UNLOCK (self);
      if (ok && upstream_seekable (self))
        gst_query_set_seeking (query, src_format, TRUE, 0, dest_value);
      else
        gst_query_set_seeking (query, src_format, FALSE, -1, -1);
      return TRUE;
    default:
      return gst_pad_query_default (pad, parent, query);
  }
}
