/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-planfilesrc
 * @title: planfilesrc
 * @short_description: read an array file (raw, .npy, .npz, HDF5, NetCDF,
 *   Zarr) in chunks
 *   of rows
 *
 * planfilesrc reads an array from a NumPy .npy file, one array of a .npz
 * file (#PlanFileSrc:member), one dataset of an HDF5 or NetCDF-4 file or
 * one variable of a NetCDF classic file (#PlanFileSrc:dataset) or a raw binary file and pushes it as
 * `array/x-raw` buffers of whole rows. A worker thread of
 * its own reads ahead (#PlanFileReader): up to #PlanFileSrc:max-chunks
 * chunks of #PlanFileSrc:blocksize bytes wait for downstream, so reading
 * overlaps the work of the rest of the pipeline without a queue element,
 * and memory stays bounded whatever the file size.
 *
 * - .npy files (versions 1.0, 2.0 and 3.0, bool, integer, float or
 *   complex dtypes) describe themselves. Big-endian elements are
 *   byte-swapped and Fortran-ordered arrays transposed as they are read,
 *   into the machine's byte order and C order; such files are read, never
 *   mapped.
 * - .npz members are read in place, stored ones like .npy files, deflated
 *   ones inflated on the worker.
 * - HDF5 datasets are read through libhdf5 (when gst-plan is built with
 *   it), buffers holding whole chunks of a chunked dataset.
 * - NetCDF classic, 64-bit offset and 64-bit data files (CDF-1, CDF-2,
 *   CDF-5) are read by libplan itself: a variable's big-endian values are
 *   byte-swapped into the machine's order as they are read, and its
 *   attributes (_FillValue, scale_factor, add_offset) are not applied.
 * - A file that starts with the signature of another known format (gzip,
 *   zstd, ...) is never read as raw data unless #PlanFileSrc:format is
 *   "raw".
 * - Raw files need #PlanFileSrc:dtype and, for more than one axis,
 *   #PlanFileSrc:shape; the outermost axis may be left out or -1 and is
 *   then the number of rows the file holds.
 * - #PlanFileSrc:offset and #PlanFileSrc:length select a shard of rows.
 *   The stream then starts at row 0: GST_BUFFER_OFFSET / OFFSET_END,
 *   positions, durations and seeks count rows from the shard's first row.
 *
 * Duration and position queries are answered in %GST_FORMAT_DEFAULT (rows)
 * and %GST_FORMAT_BYTES (bytes of array data, without a header); seeks are
 * accepted in both (byte positions are rounded down to whole rows). The
 * segment is in rows (%GST_FORMAT_DEFAULT).
 *
 * It derives from #GstPushSrc rather than #GstBaseSrc: it produces whole
 * rows in chunks of its own choosing from a read-ahead queue, so it has no
 * use for random-access pull mode (getrange with byte offsets and sizes
 * set by downstream), which would bypass the read-ahead.
 *
 * ## The plan-read-rows query
 *
 * planfilesrc answers the custom upstream query #PLAN_QUERY_READ_ROWS
 * (structure `plan-read-rows` with #guint64 `offset` and `n-rows`, in
 * stream rows) by reading those rows synchronously and setting a
 * #GstBuffer field `buffer`. planstencil uses it in wrap mode to get rows
 * from the other end of the array. A range outside the stream is refused.
 *
 * ## Progress messages
 *
 * Each run of reading (from the start, or from a seek) posts
 * %GST_MESSAGE_PROGRESS messages with the code "read": start at the first
 * chunk read in PLAYING; continue when at least 1 % of the rows and at
 * least 250 ms of the pipeline clock have passed since the last one
 * (whichever is rarer); complete after the last chunk; error when a read
 * fails; canceled when the element stops or a seek restarts reading before
 * the end. Their structures add #guint64 fields `rows-done`, `rows-total`,
 * `bytes-done` and `bytes-total` (rows and bytes of array data since the
 * run's first row) and a #gint `percent`. Nothing is posted while
 * prerolling: gst-launch-1.0 waits for the end of an operation started
 * before PLAYING, and reading to the end needs PLAYING; a run that ends
 * before PLAYING posts start and complete together at its end.
 *
 * ## Errors
 *
 * Nothing is opened before the READY to PAUSED state change. Then a
 * missing file (resource/not-found), no permission or a directory
 * (resource/open-read), a malformed, truncated or unsupported .npy header
 * or a file size that does not match the shape (stream/format or
 * stream/wrong-type), and bad #PlanFileSrc:dtype or #PlanFileSrc:shape
 * settings (resource/settings) fail the state change with an element
 * error that names the file and the cause.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 planfilesrc location=in.npy ! planfilesink location=out.npy
 * ]| Copies a .npy file.
 * |[
 * gst-launch-1.0 planfilesrc location=data.h5 dataset=/obs/temps ! \
 *     planreduce op=mean ! fakesink
 * ]| The mean of an HDF5 dataset.
 * |[
 * gst-launch-1.0 planfilesrc location=in.f32 dtype=float32 shape="(-1, 3)" \
 *     offset=1000 length=500 ! planfilesink location=shard.npy
 * ]| Reads rows 1000 to 1499 of a raw float32 file of 3 columns into a .npy.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planfilesrc.h"
#include "planfileuri.h"
#include <libplan/planprogress.h>
#include <libplan/planshardhooks.h>

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (plan_file_src_debug);
#define GST_CAT_DEFAULT plan_file_src_debug

/* The lock order is: STREAM_LOCK, then io_lock, then OBJECT_LOCK; the
 * reader's own lock is only taken inside PlanFileReader calls. */

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_FORMAT,
  PROP_DTYPE,
  PROP_SHAPE,
  PROP_BLOCKSIZE,
  PROP_OFFSET,
  PROP_LENGTH,
  PROP_MAX_CHUNKS,
  PROP_IO_MODE,
  PROP_SHARD,
  PROP_MEMBER,
  PROP_RATE,
  PROP_DATASET,
};

#define DEFAULT_LOCATION NULL
#define DEFAULT_FORMAT PLAN_FILE_FORMAT_AUTO
#define DEFAULT_DTYPE PLAN_DTYPE_UNKNOWN
#define DEFAULT_SHAPE NULL
/* 0: PlanFileReader chooses by the io mode it uses (2 MiB mapped, 1 MiB
 * read). */
#define DEFAULT_BLOCKSIZE 0
#define DEFAULT_OFFSET 0
#define DEFAULT_LENGTH -1
#define DEFAULT_MAX_CHUNKS 2
#define DEFAULT_IO_MODE PLAN_FILE_IO_MODE_AUTO
#define DEFAULT_SHARD PLAN_SHARD_NONE
#define DEFAULT_MEMBER NULL
#define DEFAULT_DATASET NULL

#define MAX_BLOCKSIZE (1 << 30)
#define MAX_MAX_CHUNKS 1024

struct _PlanFileSrc
{
  GstPushSrc parent;

  /* properties, protected by OBJECT_LOCK */
  gchar *location;
  PlanFileFormat format;
  PlanDType dtype;
  gchar *shape_str;
  guint ndim;
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  GError *shape_error;          /* a rejected shape, reported at start */
  guint blocksize;
  guint64 offset;
  gint64 length;
  guint max_chunks;
  PlanFileIoMode io_mode;
  PlanShardMode shard;
  gchar *member;
  gint rate_n;                  /* rows per second, 0: none */
  gint rate_d;
  gchar *dataset;

  /* set in start, cleared in stop; read by queries under OBJECT_LOCK */
  PlanArrayInfo info;
  gboolean opened;
  guint64 position;             /* rows pushed, or the seek start */
  gboolean sharded;             /* this rank's share of the rows */
  PlanShardInfo shard_info;
  gboolean shard_sent;          /* streaming thread: the event is stored */

  /* the reader is opened and closed with io_lock held, so that queries
   * reading rows on other threads never see it half closed */
  GMutex io_lock;
  PlanFileReader *reader;       /* construct-only */

  /* streaming thread only (STREAM_LOCK) */
  gsize chunk_rows;             /* 0: the reader's choice */
  guint chunks_ahead;
  gboolean reading;             /* the reader runs from the last seek */
  gboolean failed;              /* start() could not open the file, or
                                 * found downstream refusing the caps, and
                                 * posted why: the state change fails */
  guint64 seek_first;           /* the rows the last seek asked for */
  guint64 seek_end;
  gboolean rows_pushed;         /* a chunk went since the last seek */
  guint32 seek_seqnum;          /* of the seek event being handled */
  guint32 range_seqnum;         /* of the seek that set the range */
  GstAllocator *allocator;      /* proposed downstream, or NULL */
  GstAllocationParams params;
  guint downstream_chunk_bytes;  /* asked for in the allocation query */

  /* progress messages; streaming thread only, and stop() once the
   * streaming thread has stopped */
  PlanProgress *progress;
};


static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (PLAN_ARRAY_CAPS_ANY));

static void plan_file_src_uri_handler_init (gpointer g_iface,
    gpointer iface_data);

#define plan_file_src_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (PlanFileSrc, plan_file_src, GST_TYPE_PUSH_SRC,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER,
        plan_file_src_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (planfilesrc, "planfilesrc",
    GST_RANK_NONE, PLAN_TYPE_FILE_SRC,
    GST_DEBUG_CATEGORY_INIT (plan_file_src_debug, "planfilesrc", 0,
        "Array file source"));

static void plan_file_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void plan_file_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void plan_file_src_dispose (GObject * object);
static void plan_file_src_finalize (GObject * object);
static gboolean plan_file_src_start (GstBaseSrc * src);
static gboolean plan_file_src_stop (GstBaseSrc * src);
static GstCaps *plan_file_src_get_caps (GstBaseSrc * src, GstCaps * filter);
static gboolean plan_file_src_negotiate (GstBaseSrc * src);
static GstCaps *plan_file_src_fixate (GstBaseSrc * src, GstCaps * caps);
static GstStateChangeReturn plan_file_src_change_state (GstElement * element,
    GstStateChange transition);
static gboolean check_downstream_caps (PlanFileSrc * self);
static gboolean take_downstream_rate (PlanFileSrc * self,
    PlanArrayInfo * info);
static gboolean plan_file_src_is_seekable (GstBaseSrc * src);
static gboolean plan_file_src_prepare_seek_segment (GstBaseSrc * src,
    GstEvent * seek, GstSegment * segment);
static gboolean plan_file_src_do_seek (GstBaseSrc * src, GstSegment * segment);
static gboolean plan_file_src_send_event (GstElement * element,
    GstEvent * event);
static gboolean plan_file_src_event (GstBaseSrc * src, GstEvent * event);
static gboolean seek_format_supported (PlanFileSrc * self, GstFormat format);
static gboolean plan_file_src_query (GstBaseSrc * src, GstQuery * query);
static gboolean plan_file_src_decide_allocation (GstBaseSrc * src,
    GstQuery * query);
static gboolean plan_file_src_unlock (GstBaseSrc * src);
static gboolean plan_file_src_unlock_stop (GstBaseSrc * src);
static GstFlowReturn plan_file_src_create (GstPushSrc * src,
    GstBuffer ** buffer);

static void
plan_file_src_class_init (PlanFileSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *basesrc_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *pushsrc_class = GST_PUSH_SRC_CLASS (klass);

  gobject_class->set_property = plan_file_src_set_property;
  gobject_class->get_property = plan_file_src_get_property;
  gobject_class->dispose = plan_file_src_dispose;
  gobject_class->finalize = plan_file_src_finalize;

  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "File location",
          "The array file to read (raw, .npy, .npz, HDF5, NetCDF-4 or NetCDF "
          "classic), or "
          "the directory of a Zarr store",
          DEFAULT_LOCATION,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_FORMAT,
      g_param_spec_enum ("format", "File format",
          "The layout of the file: auto reads .npy, .npz, HDF5 or NetCDF "
          "classic by the "
          "file's first bytes and a directory as a Zarr store, refuses other "
          "known formats (gzip, ...) and reads raw otherwise",
          PLAN_TYPE_FILE_FORMAT,
          DEFAULT_FORMAT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DTYPE,
      g_param_spec_enum ("dtype", "Element type",
          "The numpy dtype of a raw file's elements (required for raw "
          "files, ignored for .npy files)", PLAN_TYPE_DTYPE, DEFAULT_DTYPE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_SHAPE,
      g_param_spec_string ("shape", "Array shape",
          "The shape of a raw file, numpy style, outermost axis first, such "
          "as \"(-1, 3)\" or \"(, 3)\": an outermost axis of -1 or left "
          "out is inferred from the file size. Unset means 1-D of inferred "
          "length. Ignored for .npy files", DEFAULT_SHAPE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /* This replaces GstBaseSrc's blocksize, which defaults to 4096 bytes and
   * means bytes per pull; here it is the read-ahead chunk size. */
  g_object_class_install_property (gobject_class, PROP_BLOCKSIZE,
      plan_param_spec_checked_range (g_param_spec_uint ("blocksize",
          "Chunk size",
          "The size of the chunks, in bytes, rounded down to whole rows (at "
          "least one row); 0 for 100 ms of rows when the stream has a rate "
          "(4 KiB where that is more), else 2 MiB when the file is mapped, "
          "or what downstream asks for (planreduce: 16 MiB), and 1 MiB when "
          "it is read (see io-mode)", 0, MAX_BLOCKSIZE,
          DEFAULT_BLOCKSIZE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (gobject_class, PROP_OFFSET,
      plan_param_spec_checked_range (g_param_spec_uint64 ("offset", "First row",
          "The first row of the file to read (a shard); stream row 0 is "
          "this row", 0, G_MAXINT64, DEFAULT_OFFSET,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (gobject_class, PROP_LENGTH,
      plan_param_spec_checked_range (g_param_spec_int64 ("length",
          "Number of rows",
          "The number of rows to read from offset, -1 for all to the end of "
          "the file; a shard reaching past the end is cut there", -1,
          G_MAXINT64, DEFAULT_LENGTH,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (gobject_class, PROP_MAX_CHUNKS,
      plan_param_spec_checked_range (g_param_spec_uint ("max-chunks",
          "Read-ahead depth",
          "The most chunks read ahead of downstream (memory used is about "
          "max-chunks x blocksize)", 1, MAX_MAX_CHUNKS, DEFAULT_MAX_CHUNKS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY)));
  /**
   * PlanFileSrc:io-mode:
   *
   * How chunks get their bytes: "mmap" hands out the file's page-cache
   * pages read-only, without a copy; "read" copies them into buffers with
   * pread(); "auto" maps unless downstream proposed memory of its own
   * (pinned host memory for planupload, say) or the file cannot be mapped
   * (compressed data, big-endian or Fortran-ordered .npy arrays: "mmap"
   * is an error for them).
   * A mapped file that another process truncates while a chunk of it is in
   * use makes the reader of that chunk crash with SIGBUS; choose "read" for
   * files that may change while they are read.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_IO_MODE,
      g_param_spec_enum ("io-mode", "IO mode",
          "How chunks get their bytes: auto (mmap unless downstream wants "
          "memory of its own), read (copied with pread) or mmap (the file's "
          "pages, read-only, no copy)", PLAN_TYPE_FILE_IO_MODE,
          DEFAULT_IO_MODE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * PlanFileSrc:shard:
   *
   * With "mpi", the process is one rank of an MPI job (started by
   * `mpirun`) and reads only its share of the rows that offset and length
   * select: contiguous, balanced, in rank order (see docs/mpi.md). The
   * stream then says so downstream, and planreduce, planstencil and
   * planfilesink combine, exchange and write across the ranks so that the
   * job's results are those of one process reading every row.
   *
   * Since: 0.1
   */
  /**
   * PlanFileSrc:member:
   *
   * The array of a .npz file to read, by numpy's name for it (the key
   * np.load() gives, "temps") or its name in the archive ("temps.npy").
   * Unset, a .npz must hold exactly one array. A name the file does not
   * have fails the start with an error that lists the names it has.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_MEMBER,
      g_param_spec_string ("member", "Array of a .npz",
          "The array of a .npz file to read, by its numpy name (\"temps\" "
          "or \"temps.npy\"); unset: the file's only array. Ignored for "
          "other formats", DEFAULT_MEMBER,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * PlanFileSrc:rate:
   *
   * Rows per second, for arrays sampled in time (sensor, radio, seismic
   * data): the caps carry it as `rate`, buffers carry timestamps, and the
   * stream answers position, duration and seeks in time. 0/1: the rate
   * of the .npy file's header when it has one (a `rate` key), otherwise
   * not sampled in time (positions and seeks in rows and bytes only); a
   * rate set here overrides the header's. A negative rate is kept as
   * given and fails the start, as a number out of its range does.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_RATE,
      plan_param_spec_checked_range (gst_param_spec_fraction ("rate", "Rate",
          "Rows per second of an array sampled in time (the caps' rate: "
          "buffers then have timestamps, and positions and seeks work in "
          "time); overrides a rate in a .npy header; 0/1: the header's "
          "rate, else the rate downstream asks for (a caps filter), else "
          "not sampled in time", 0, 1, G_MAXINT, 1, 0, 1,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY)));
  /**
   * PlanFileSrc:dataset:
   *
   * The dataset of an HDF5 file (or the variable of a NetCDF file, classic
   * or NetCDF-4: "tas" or "/tas") to read, by its path ("/group/temps"),
   * or the array of a Zarr group, by its path in the group. Unset, the file must hold exactly one dataset
   * (a Zarr store may be an array itself). A path the file does not have
   * fails the start with an error that lists the datasets it has.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_DATASET,
      g_param_spec_string ("dataset", "HDF5 dataset or Zarr array",
          "The dataset of an HDF5 file, the variable of a NetCDF file, or "
          "the array of a Zarr group, to read, by its path "
          "(\"/group/temps\"); unset: the file's only one. Ignored for "
          "other formats", DEFAULT_DATASET,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_SHARD,
      g_param_spec_enum ("shard", "Sharding",
          "none (read every row selected) or mpi (each rank of an MPI job "
          "reads its share of them, and the elements downstream work "
          "across the ranks)", PLAN_TYPE_SHARD_MODE, DEFAULT_SHARD,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "Array file source",
      "Source/File/Array",
      "Reads an array from a raw, NumPy .npy or .npz, HDF5, NetCDF-4 or "
      "NetCDF classic file or a Zarr store in chunks of whole rows, reading ahead on its "
      "own worker thread",
      PLAN_CONTACT);
  gst_element_class_add_static_metadata (element_class,
      GST_ELEMENT_METADATA_DOC_URI, PLAN_DOC_URI "/planfilesrc.md");

  element_class->send_event = GST_DEBUG_FUNCPTR (plan_file_src_send_event);
  element_class->change_state =
      GST_DEBUG_FUNCPTR (plan_file_src_change_state);
  basesrc_class->start = GST_DEBUG_FUNCPTR (plan_file_src_start);
  basesrc_class->stop = GST_DEBUG_FUNCPTR (plan_file_src_stop);
  basesrc_class->get_caps = GST_DEBUG_FUNCPTR (plan_file_src_get_caps);
  basesrc_class->negotiate = GST_DEBUG_FUNCPTR (plan_file_src_negotiate);
  basesrc_class->fixate = GST_DEBUG_FUNCPTR (plan_file_src_fixate);
  basesrc_class->is_seekable = GST_DEBUG_FUNCPTR (plan_file_src_is_seekable);
  basesrc_class->prepare_seek_segment =
      GST_DEBUG_FUNCPTR (plan_file_src_prepare_seek_segment);
  basesrc_class->do_seek = GST_DEBUG_FUNCPTR (plan_file_src_do_seek);
  basesrc_class->event = GST_DEBUG_FUNCPTR (plan_file_src_event);
  basesrc_class->query = GST_DEBUG_FUNCPTR (plan_file_src_query);
  basesrc_class->decide_allocation =
      GST_DEBUG_FUNCPTR (plan_file_src_decide_allocation);
  basesrc_class->unlock = GST_DEBUG_FUNCPTR (plan_file_src_unlock);
  basesrc_class->unlock_stop = GST_DEBUG_FUNCPTR (plan_file_src_unlock_stop);
  pushsrc_class->create = GST_DEBUG_FUNCPTR (plan_file_src_create);

  gst_type_mark_as_plugin_api (PLAN_TYPE_FILE_FORMAT, 0);
  gst_type_mark_as_plugin_api (PLAN_TYPE_FILE_IO_MODE, 0);
  gst_type_mark_as_plugin_api (PLAN_TYPE_DTYPE, 0);
  gst_type_mark_as_plugin_api (PLAN_TYPE_SHARD_MODE, 0);
}

/* The row a stream the application ends now ends at (plan_eos_watch_source()). */
static guint64
plan_file_src_end_row (GstBaseSrc * src)
{
  PlanFileSrc *self = PLAN_FILE_SRC (src);
  guint64 end_row;

  GST_OBJECT_LOCK (self);
  end_row = self->position;
  GST_OBJECT_UNLOCK (self);
  return end_row;
}

static gboolean
plan_file_src_event (GstBaseSrc * src, GstEvent * event)
{
  PlanFileSrc *self = PLAN_FILE_SRC (src);
  gboolean ok;

  if (plan_element_refuse_backward_seek (GST_ELEMENT (src), event))
    return FALSE;
  /* GstBaseSrc prepares a seek from the end only once it has flushed: one
   * refused then left the stream without a segment. Refused here, before
   * anything is flushed. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK) {
    GstFormat format;

    gst_event_parse_seek (event, NULL, &format, NULL, NULL, NULL, NULL,
        NULL);
    if (!seek_format_supported (self, format)) {
      GST_WARNING_OBJECT (self, "cannot seek in %s format; seek in rows "
          "(default), bytes, or time for rows with a rate",
          gst_format_get_name (format));
      return FALSE;
    }
  }
  /* do_seek() takes the seek's seqnum for the segment it may push. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK)
    g_atomic_int_set (&self->seek_seqnum, gst_event_get_seqnum (event));
  ok = GST_BASE_SRC_CLASS (parent_class)->event (src, event);
  g_atomic_int_set (&self->seek_seqnum, GST_SEQNUM_INVALID);
  return ok;
}

/* An EOS sent to the element (an application ending the stream early) is
 * marked as ending the stream on purpose (plan_eos_mark_sent_to_source()). */
static gboolean
plan_file_src_send_event (GstElement * element, GstEvent * event)
{
  if (plan_element_refuse_backward_seek (element, event)) {
    gst_event_unref (event);
    return FALSE;
  }
  event = plan_eos_mark_sent_to_source (GST_BASE_SRC (element), event);
  return GST_ELEMENT_CLASS (parent_class)->send_event (element, event);
}

static void
plan_file_src_init (PlanFileSrc * self)
{
  plan_eos_watch_source (GST_BASE_SRC (self), plan_file_src_end_row);
  self->location = DEFAULT_LOCATION;
  self->format = DEFAULT_FORMAT;
  self->dtype = DEFAULT_DTYPE;
  self->shape_str = DEFAULT_SHAPE;
  self->ndim = 1;
  self->shape[0] = -1;
  self->blocksize = DEFAULT_BLOCKSIZE;
  self->offset = DEFAULT_OFFSET;
  self->length = DEFAULT_LENGTH;
  self->shard = DEFAULT_SHARD;
  self->max_chunks = DEFAULT_MAX_CHUNKS;
  self->io_mode = DEFAULT_IO_MODE;
  g_mutex_init (&self->io_lock);
  self->reader = plan_file_reader_new ();
  self->progress = plan_progress_new (GST_ELEMENT (self), "read");
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_DEFAULT);
}

static void
plan_file_src_dispose (GObject * object)
{
  PlanFileSrc *self = PLAN_FILE_SRC (object);

  gst_clear_object (&self->reader);
  gst_clear_object (&self->allocator);
  if (self->progress)
    plan_progress_reset_clock (self->progress);

  G_OBJECT_CLASS (parent_class)->dispose (object);
}

static void
plan_file_src_finalize (GObject * object)
{
  PlanFileSrc *self = PLAN_FILE_SRC (object);

  g_free (self->location);
  g_free (self->member);
  g_free (self->dataset);
  g_free (self->shape_str);
  g_clear_error (&self->shape_error);
  g_mutex_clear (&self->io_lock);
  plan_progress_free (self->progress);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static gboolean
plan_file_src_set_location (PlanFileSrc * self, const gchar * location,
    GError ** error)
{
  GstState state;

  GST_OBJECT_LOCK (self);
  state = GST_STATE (self);
  if (state != GST_STATE_READY && state != GST_STATE_NULL) {
    GST_OBJECT_UNLOCK (self);
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_STATE,
        "Changing the location of planfilesrc while it runs is not "
        "supported");
    GST_WARNING_OBJECT (self, "not changing the location while running");
    return FALSE;
  }
  g_free (self->location);
  self->location = g_strdup (location);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* Must be called with OBJECT_LOCK held */
static void
set_shape_unlocked (PlanFileSrc * self, const gchar * str)
{
  GError *err = NULL;
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  guint ndim;

  /* A shape that does not parse is kept as given (reading it back returns
   * it, so that an editor keeps what the user typed) and remembered, so
   * that starting fails with the parse error instead of reading the file
   * with a shape the user did not ask for. */
  g_clear_error (&self->shape_error);
  if (str == NULL || str[0] == '\0') {
    ndim = 1;
    shape[0] = -1;
  } else if (!plan_shape_parse (str, &ndim, shape, &err)) {
    GST_WARNING_OBJECT (self, "shape \"%s\" cannot work: %s", str,
        err->message);
    self->shape_error = err;
    ndim = 1;
    shape[0] = -1;
  }
  g_free (self->shape_str);
  self->shape_str = str && str[0] ? g_strdup (str) : NULL;
  self->ndim = ndim;
  memcpy (self->shape, shape, sizeof (shape));
}

static void
plan_file_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  PlanFileSrc *self = PLAN_FILE_SRC (object);

  if (plan_element_refuse_live_set (GST_ELEMENT (object), pspec, TRUE)
      || plan_element_refuse_out_of_range (GST_ELEMENT (object), pspec,
          value))
    return;

  if (prop_id == PROP_LOCATION) {
    plan_file_src_set_location (self, g_value_get_string (value), NULL);
    return;
  }

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FORMAT:
      self->format = g_value_get_enum (value);
      break;
    case PROP_DTYPE:
      self->dtype = g_value_get_enum (value);
      break;
    case PROP_SHAPE:
      set_shape_unlocked (self, g_value_get_string (value));
      break;
    case PROP_BLOCKSIZE:
      self->blocksize = g_value_get_uint (value);
      break;
    case PROP_OFFSET:
      self->offset = g_value_get_uint64 (value);
      break;
    case PROP_SHARD:
      self->shard = g_value_get_enum (value);
      break;
    case PROP_MEMBER:
      g_free (self->member);
      self->member = g_value_dup_string (value);
      break;
    case PROP_RATE:
      self->rate_n = gst_value_get_fraction_numerator (value);
      self->rate_d = gst_value_get_fraction_denominator (value);
      break;
    case PROP_DATASET:
      g_free (self->dataset);
      self->dataset = g_value_dup_string (value);
      break;
    case PROP_LENGTH:
      self->length = g_value_get_int64 (value);
      break;
    case PROP_MAX_CHUNKS:
      self->max_chunks = g_value_get_uint (value);
      break;
    case PROP_IO_MODE:
      self->io_mode = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
plan_file_src_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  PlanFileSrc *self = PLAN_FILE_SRC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_FORMAT:
      g_value_set_enum (value, self->format);
      break;
    case PROP_DTYPE:
      g_value_set_enum (value, self->dtype);
      break;
    case PROP_SHAPE:
      g_value_set_string (value, self->shape_str);
      break;
    case PROP_BLOCKSIZE:
      g_value_set_uint (value, self->blocksize);
      break;
    case PROP_OFFSET:
      g_value_set_uint64 (value, self->offset);
      break;
    case PROP_SHARD:
      g_value_set_enum (value, self->shard);
      break;
    case PROP_LENGTH:
      g_value_set_int64 (value, self->length);
      break;
    case PROP_MAX_CHUNKS:
      g_value_set_uint (value, self->max_chunks);
      break;
    case PROP_IO_MODE:
      g_value_set_enum (value, self->io_mode);
      break;
    case PROP_MEMBER:
      g_value_set_string (value, self->member);
      break;
    case PROP_RATE:
      gst_value_set_fraction (value, self->rate_n, MAX (self->rate_d, 1));
      break;
    case PROP_DATASET:
      g_value_set_string (value, self->dataset);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Posts @err, from PlanFileReader, as the element error that fits it. */
static void
post_read_error (PlanFileSrc * self, const GError * err)
{
  plan_element_post_error_full (GST_ELEMENT (self), err,
      PLAN_ERROR_CONTEXT_READ, __FILE__, GST_FUNCTION, __LINE__);
}

static gboolean
open_reader (PlanFileSrc * self, const gchar * location,
    PlanFileFormat format, const gchar * member, const gchar * dataset,
    const PlanArrayInfo * raw_info, guint64 offset, gint64 length,
    GError ** error)
{
  gboolean ok;

  g_mutex_lock (&self->io_lock);
  plan_file_reader_set_member (self->reader, member);
  plan_file_reader_set_dataset (self->reader, dataset);
  ok = plan_file_reader_open (self->reader, location, format, raw_info, error)
      && plan_file_reader_set_window (self->reader, offset, length, error);
  if (!ok)
    plan_file_reader_close (self->reader);
  g_mutex_unlock (&self->io_lock);
  return ok;
}

/* shard=mpi: narrows the reader's window to this rank's share of the
 * rows selected (which start at file row @offset). */
static gboolean
take_share (PlanFileSrc * self, guint64 offset, GError ** error)
{
  PlanShardInfo *info = &self->shard_info;
  guint64 n_rows = plan_file_reader_get_n_rows (self->reader);
  PlanArrayInfo array;
  gchar *row_shape, *what;
  GError *err = NULL;
  gboolean same;

  /* Every rank must read the same array: a copy of the input that
   * differs on one host would share rows that do not line up, or write
   * rows of another dtype into the shared output. */
  plan_file_reader_get_info (self->reader, &array);
  row_shape = plan_shape_to_string (array.ndim > 0 ? array.ndim - 1 : 0,
      array.shape + 1);
  what = g_strdup_printf ("%" G_GUINT64_FORMAT " rows of %s %s", n_rows,
      plan_dtype_to_string (array.dtype), row_shape);
  same = plan_shard_check_same (GST_ELEMENT_NAME (self), what, &err);
  g_free (row_shape);
  g_free (what);
  if (!same) {
    if (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT))
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "the ranks do not read the same array: %s (every rank must read "
          "the same file)", err->message);
    else
      g_propagate_error (error, g_steal_pointer (&err));
    g_clear_error (&err);
    return FALSE;
  }
  if (!plan_shard_take_share (n_rows, info, error))
    return FALSE;
  g_mutex_lock (&self->io_lock);
  if (!plan_file_reader_set_window (self->reader, offset + info->origin,
          info->n_rows, error)) {
    g_mutex_unlock (&self->io_lock);
    return FALSE;
  }
  g_mutex_unlock (&self->io_lock);
  GST_INFO_OBJECT (self, "rank %u of %u: rows %" G_GUINT64_FORMAT " to %"
      G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT, info->rank, info->n_ranks,
      info->origin, info->origin + (guint64) info->n_rows, info->total);
  return TRUE;
}

/* start() has posted the error that says why the file cannot be read:
 * it succeeds all the same, and the state change fails after it
 * (plan_file_src_change_state()). A start() that failed would make
 * GstBaseSrc post an error of its own after ours, "state change failed
 * and some element failed to post a proper error message".
 *
 * In an MPI job the other ranks are told @why: one rank's file may be
 * missing or different where the others' are fine, and they would wait
 * for ever for this rank (in the plan's check, a share's agreement, a
 * reduction or the shared output). */
static gboolean
start_failed (PlanFileSrc * self, const gchar * why)
{
  gchar *text = g_strdup_printf ("%s: %s", GST_ELEMENT_NAME (self), why);

  plan_shard_tell_failure (text);
  g_free (text);
  self->failed = TRUE;
  return TRUE;
}

static gboolean
plan_file_src_start (GstBaseSrc * src)
{
  PlanFileSrc *self = PLAN_FILE_SRC (src);
  PlanArrayInfo raw_info, info;
  GError *err = NULL;
  gchar *location, *member, *dataset;
  PlanFileFormat format;
  guint64 offset;
  gint64 length;
  guint blocksize;
  PlanShardMode shard;
  gint rate_n, rate_d;
  gboolean rate_taken;

  /* A number out of its property's range, before anything reads it. */
  if (!plan_element_check_ranges (GST_ELEMENT (self), &err)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err->message),
        (NULL));
    start_failed (self, err->message);
    g_error_free (err);
    return TRUE;
  }
  plan_array_info_init (&raw_info);
  GST_OBJECT_LOCK (self);
  if (self->shape_error)
    err = g_error_copy (self->shape_error);
  else if (self->dtype != PLAN_DTYPE_UNKNOWN)
    plan_array_info_set (&raw_info, self->dtype, self->ndim, self->shape, &err);
  location = g_strdup (self->location);
  member = g_strdup (self->member);
  dataset = g_strdup (self->dataset);
  format = self->format;
  offset = self->offset;
  length = self->length;
  blocksize = self->blocksize;
  shard = self->shard;
  rate_n = self->rate_n;
  rate_d = self->rate_d;
  self->chunks_ahead = self->max_chunks;
  GST_OBJECT_UNLOCK (self);

  if (err)
    goto bad_settings;
  if (location == NULL || location[0] == '\0')
    goto no_location;
  /* The ranks of an MPI job, sharded or not, agree on the plan first:
   * ranks that differ would wait for each other, or combine different
   * results. */
  if (!plan_shard_check_plan (GST_ELEMENT (self), &err))
    goto plans_differ;
  if (!open_reader (self, location, format, member, dataset, &raw_info,
          offset, length, &err))
    goto open_failed;
  self->sharded = shard == PLAN_SHARD_MPI;
  self->shard_sent = FALSE;
  if (self->sharded && !take_share (self, offset, &err))
    goto shard_failed;

  /* A rate in a .npy header, unless the property gives one. */
  plan_file_reader_get_info (self->reader, &info);
  if (rate_n > 0) {
    info.rate_n = rate_n;
    info.rate_d = rate_d;
  }
  /* Neither: the rate that downstream asks for, if it asks for one. */
  rate_taken = plan_array_info_has_rate (&info)
      || take_downstream_rate (self, &info);
  self->chunk_rows = blocksize == 0 ? 0 : MAX (1, blocksize /
      MAX (plan_file_reader_get_row_size (self->reader), 1));
  self->reading = FALSE;
  self->seek_first = 0;
  self->seek_end = G_MAXUINT64;
  GST_OBJECT_LOCK (self);
  self->info = info;
  self->opened = TRUE;
  self->position = 0;
  GST_OBJECT_UNLOCK (self);
  /* Rows sampled in time go out in a segment in time (sinks can sync to
   * it, players' seek bars speak it); others in rows. */
  gst_base_src_set_format (src, plan_array_info_has_rate (&info) ?
      GST_FORMAT_TIME : GST_FORMAT_DEFAULT);
  /* A seek from the end (GST_SEEK_TYPE_END) counts back from the
   * segment's duration, which GstBaseSrc knows only in bytes: without it
   * such a seek started at row 0. */
  if (plan_array_info_get_n_rows (&info) >= 0) {
    GST_OBJECT_LOCK (self);
    src->segment.duration = plan_array_info_has_rate (&info) ?
        (gint64) plan_array_info_rows_to_time (&info,
        plan_array_info_get_n_rows (&info)) :
        plan_array_info_get_n_rows (&info);
    GST_OBJECT_UNLOCK (self);
  }

  GST_INFO_OBJECT (self, "reading '%s' (%s): %" G_GUINT64_FORMAT " rows",
      location,
      plan_file_format_to_string (plan_file_reader_get_format (self->reader)),
      plan_file_reader_get_n_rows (self->reader));
  g_free (location);
  g_free (member);
  g_free (dataset);
  /* Refused caps fail the state change (plan_file_src_change_state()),
   * with this one error: a start() that fails would add GstBaseSrc's own. */
  if (!rate_taken)
    return start_failed (self, "the elements downstream ask for a rate "
        "that is not positive");
  if (!check_downstream_caps (self))
    return start_failed (self, "the elements downstream refused the "
        "stream's caps");
  self->failed = FALSE;
  return TRUE;

  /* ERRORS */
bad_settings:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Invalid settings for reading '%s': %s", GST_STR_NULL (location),
            err->message), (NULL));
    start_failed (self, err->message);
    g_error_free (err);
    g_free (location);
    g_free (member);
    g_free (dataset);
    return TRUE;
  }
no_location:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No file name specified for reading."), (NULL));
    g_free (location);
    g_free (member);
    g_free (dataset);
    return start_failed (self, "no file name specified for reading");
  }
open_failed:
  {
    post_read_error (self, err);
    start_failed (self, err->message);
    g_error_free (err);
    g_free (location);
    g_free (member);
    g_free (dataset);
    return TRUE;
  }
plans_differ:
  {
    GST_ELEMENT_ERROR (self, CORE, FAILED, ("%s", err->message), (NULL));
    start_failed (self, err->message);
    g_error_free (err);
    g_free (location);
    g_free (member);
    g_free (dataset);
    return TRUE;
  }
shard_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Cannot read a share of '%s' (shard=mpi): %s", location,
            err->message), (NULL));
    start_failed (self, err->message);
    g_error_free (err);
    g_free (location);
    g_free (member);
    g_free (dataset);
    g_mutex_lock (&self->io_lock);
    plan_file_reader_close (self->reader);
    g_mutex_unlock (&self->io_lock);
    return TRUE;
  }
}

static gboolean
plan_file_src_stop (GstBaseSrc * src)
{
  PlanFileSrc *self = PLAN_FILE_SRC (src);

  GST_OBJECT_LOCK (self);
  self->opened = FALSE;
  GST_OBJECT_UNLOCK (self);

  /* The streaming thread has stopped: its progress state is ours. */
  plan_progress_finish (self->progress, GST_PROGRESS_TYPE_CANCELED);
  plan_progress_reset_clock (self->progress);

  g_mutex_lock (&self->io_lock);
  plan_file_reader_close (self->reader);
  g_mutex_unlock (&self->io_lock);
  self->reading = FALSE;
  return TRUE;
}

static GstCaps *
plan_file_src_get_caps (GstBaseSrc * src, GstCaps * filter)
{
  PlanFileSrc *self = PLAN_FILE_SRC (src);
  PlanArrayInfo info;
  gboolean opened;
  GstCaps *caps, *result;

  GST_OBJECT_LOCK (self);
  opened = self->opened;
  info = self->info;
  GST_OBJECT_UNLOCK (self);

  if (opened)
    caps = plan_array_info_to_caps (&info);
  else
    caps = gst_pad_get_pad_template_caps (GST_BASE_SRC_PAD (src));
  if (filter == NULL)
    return caps;
  result = gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (caps);
  return result;
}

/* Whether what is linked downstream takes the file's caps; asked when
 * starting, so that a caps filter that cannot match fails the state change
 * at once (elements downstream are started before their sources). Refused,
 * the one negotiation error is posted, naming what the file holds and what
 * downstream takes (libplan's check, npyparse's too). */
static gboolean
check_downstream_caps (PlanFileSrc * self)
{
  GstCaps *caps = plan_file_src_get_caps (GST_BASE_SRC (self), NULL);
  gchar *what;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  what = g_strdup_printf ("'%s'", GST_STR_NULL (self->location));
  GST_OBJECT_UNLOCK (self);
  ok = plan_element_check_downstream_caps (GST_ELEMENT (self),
      GST_BASE_SRC_PAD (self), what, caps);
  g_free (what);
  gst_caps_unref (caps);
  return ok;
}

/* Rows that have no rate of their own (no `rate` set, none in the .npy
 * header) take the one downstream asks for, as GStreamer's sources fixate
 * a field their caps leave open to what downstream asks (videotestsrc's
 * framerate): `planfilesrc ! array/x-raw,rate=100/1 ! ...` reads the file
 * as rate=100/1 does, with timestamps, pacing and a segment in time.
 * Downstream's caps are fixated as GStreamer fixates them: the first
 * structure, a list's first rate, a range's lowest. A rate fixated there
 * that is not positive is refused: FALSE, after posting why. */
static gboolean
take_downstream_rate (PlanFileSrc * self, PlanArrayInfo * info)
{
  GstPad *pad = GST_BASE_SRC_PAD (self);
  GstCaps *ours, *wanted;
  GstStructure *s;
  gint n = 0, d = 1;
  gboolean ok = TRUE;

  if (!gst_pad_is_linked (pad))
    return TRUE;
  ours = plan_array_info_to_caps (info);
  wanted = gst_pad_peer_query_caps (pad, ours);
  if (gst_caps_is_any (wanted) || gst_caps_is_empty (wanted)
      || !gst_structure_has_field (gst_caps_get_structure (wanted, 0),
          "rate"))
    goto done;
  s = gst_structure_copy (gst_caps_get_structure (wanted, 0));
  gst_structure_fixate_field (s, "rate");
  if (!gst_structure_get_fraction (s, "rate", &n, &d) || n <= 0 || d <= 0) {
    GstPad *peer = gst_pad_get_peer (pad);
    GstElement *next = peer ? gst_pad_get_parent_element (peer) : NULL;
    GstCaps *takes = gst_pad_peer_query_caps (pad, NULL);
    gchar *o = gst_caps_to_string (ours), *w = gst_caps_to_string (takes);
    gchar *location;

    GST_OBJECT_LOCK (self);
    location = g_strdup (self->location);
    GST_OBJECT_UNLOCK (self);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("'%s' holds %s (rows without a rate of their own), which %s does "
            "not accept: it takes %s, whose rate is not a positive number of "
            "rows a second.", location, o,
            next ? GST_ELEMENT_NAME (next) : "downstream", w), (NULL));
    g_free (location);
    g_free (o);
    g_free (w);
    gst_caps_unref (takes);
    gst_clear_object (&next);
    gst_clear_object (&peer);
    ok = FALSE;
  } else {
    info->rate_n = n;
    info->rate_d = d;
    GST_INFO_OBJECT (self, "no rate of its own: taking %d/%d rows a second, "
        "the rate downstream asks for", n, d);
  }
  gst_structure_free (s);
done:
  gst_caps_unref (ours);
  gst_caps_unref (wanted);
  return ok;
}

/* The stream's caps are the file's, whole: a field they leave open (the
 * rate of rows not sampled in time) is not filled from downstream's, as
 * the default fixation would, since the buffers would not follow it.
 * Downstream's rate was taken, where it could be, at start(). */
static GstCaps *
plan_file_src_fixate (GstBaseSrc * src, GstCaps * caps)
{
  PlanFileSrc *self = PLAN_FILE_SRC (src);
  gboolean opened;

  GST_OBJECT_LOCK (self);
  opened = self->opened;
  GST_OBJECT_UNLOCK (self);
  if (!opened)
    return GST_BASE_SRC_CLASS (parent_class)->fixate (src, caps);
  gst_caps_unref (caps);
  return plan_file_src_get_caps (src, NULL);
}

/* Caps refused later (downstream relinked or reconfigured): our error, then
 * GstBaseSrc's own ("Internal data stream error") and EOS; the event sent
 * first tells kernel elements and planfilesink downstream that the error
 * is posted, so that they post none of their own about the stream
 * without caps. */
static gboolean
plan_file_src_negotiate (GstBaseSrc * src)
{
  PlanFileSrc *self = PLAN_FILE_SRC (src);
  GstPad *pad = GST_BASE_SRC_PAD (src);

  if (self->failed)
    return TRUE;
  if (GST_BASE_SRC_CLASS (parent_class)->negotiate (src))
    return TRUE;
  if (GST_PAD_IS_FLUSHING (pad) || !gst_pad_is_linked (pad))
    return FALSE;
  if (check_downstream_caps (self)) {
    GstCaps *caps = plan_file_src_get_caps (src, NULL);
    gchar *text = gst_caps_to_string (caps);

    /* Taken, and not agreed on all the same. */
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The elements downstream of %s take %s, yet its caps could not "
            "be agreed on with them.", GST_ELEMENT_NAME (self), text),
        (NULL));
    g_free (text);
    gst_caps_unref (caps);
  }
  gst_pad_push_event (pad, gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
          gst_structure_new_empty (PLAN_EVENT_STREAM_FAILED)));
  return FALSE;
}

static GstStateChangeReturn
plan_file_src_change_state (GstElement * element, GstStateChange transition)
{
  PlanFileSrc *self = PLAN_FILE_SRC (element);
  GstStateChangeReturn ret;

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED
      && ret != GST_STATE_CHANGE_FAILURE && self->failed) {
    GST_DEBUG_OBJECT (self, "the file cannot be read, or downstream "
        "refuses its caps: failing");
    /* Back to READY: stops the streaming task and closes the file. */
    GST_ELEMENT_CLASS (parent_class)->change_state (element,
        GST_STATE_CHANGE_PAUSED_TO_READY);
    return GST_STATE_CHANGE_FAILURE;
  }
  return ret;
}

/* A rank's share of a sharded run is not seekable: a seek would be each
 * rank's own, and the elements across the ranks would not agree. */
static gboolean
plan_file_src_is_seekable (GstBaseSrc * src)
{
  return !PLAN_FILE_SRC (src)->sharded;
}

/* Converts between rows (DEFAULT), bytes of array data and time (with a
 * rate), once the file is open. */
static gboolean
convert_unlocked (PlanFileSrc * self, GstFormat from, gint64 value,
    GstFormat to, gint64 * result)
{
  if (!self->opened && from != to && value != -1)
    return FALSE;
  return plan_array_info_convert (&self->info, from, value, to, result);
}

/* Whether a seek in @format can be made on the file open: rows, bytes,
 * and time for rows sampled in time. */
static gboolean
seek_format_supported (PlanFileSrc * self, GstFormat format)
{
  gboolean ok;

  GST_OBJECT_LOCK (self);
  ok = !self->opened || format == GST_FORMAT_DEFAULT
      || format == GST_FORMAT_BYTES || (format == GST_FORMAT_TIME
      && plan_array_info_has_rate (&self->info));
  GST_OBJECT_UNLOCK (self);
  return ok;
}

static gboolean
plan_file_src_prepare_seek_segment (GstBaseSrc * src, GstEvent * seek,
    GstSegment * segment)
{
  PlanFileSrc *self = PLAN_FILE_SRC (src);
  GstSeekType start_type, stop_type;
  GstSeekFlags flags;
  GstFormat format;
  GstFormat to;
  gint64 start, stop;
  gdouble rate;
  gboolean ok;

  gst_event_parse_seek (seek, &rate, &format, &flags, &start_type, &start,
      &stop_type, &stop);
  if (rate <= 0.0)
    goto bad_rate;

  /* Into the segment's format: time for rows sampled in time (a seek in
   * time keeps its exact start), rows otherwise. */
  GST_OBJECT_LOCK (self);
  to = plan_array_info_has_rate (&self->info) ? GST_FORMAT_TIME :
      GST_FORMAT_DEFAULT;
  /* Nothing converts before the file is open. */
  ok = (self->opened || format == to)
      && plan_array_info_convert_seek_value (&self->info, format,
      start_type, start, to, &start)
      && plan_array_info_convert_seek_value (&self->info, format,
      stop_type, stop, to, &stop);
  GST_OBJECT_UNLOCK (self);
  if (!ok)
    goto bad_format;
  /* A start after the stop (the one kept from the segment before, for a
   * stop of GST_SEEK_TYPE_NONE) is no range. */
  if (!plan_array_info_seek_is_range (segment, start_type, start, stop_type,
          stop))
    goto bad_range;

  return gst_segment_do_seek (segment, rate, to, flags,
      start_type, start, stop_type, stop, NULL);

  /* ERRORS */
bad_rate:
  {
    GST_WARNING_OBJECT (self, "only forward playback is supported, not rate "
        "%f", rate);
    return FALSE;
  }
bad_format:
  {
    GST_WARNING_OBJECT (self, "cannot seek in %s format; seek in rows "
        "(default) or bytes", gst_format_get_name (format));
    return FALSE;
  }bad_range:
  {
    GST_WARNING_OBJECT (self, "the seek's start is after its stop (the "
        "segment's, for a stop left unchanged): no rows to play");
    return FALSE;
  }
}

static gboolean
start_reading (PlanFileSrc * self, guint64 first, guint64 end)
{
  GError *err = NULL;
  PlanFileIoMode io_mode;
  guint64 n_rows;
  gchar *what;

  GST_OBJECT_LOCK (self);
  io_mode = self->io_mode;
  GST_OBJECT_UNLOCK (self);

  plan_file_reader_stop (self->reader);
  plan_file_reader_set_allocator (self->reader, self->allocator, &self->params);
  plan_file_reader_set_io_mode (self->reader, io_mode);
  plan_file_reader_set_mapped_chunk_size (self->reader,
      self->downstream_chunk_bytes);
  /* Rows sampled in time go in chunks of about 100 ms, not of megabytes:
   * a sink syncing to the clock plays them in steps, and an EOS sent on
   * Ctrl-C (gst-launch-1.0 -e) ends the stream soon after. */
  plan_file_reader_set_max_auto_chunk_rows (self->reader,
      plan_array_info_has_rate (&self->info) ?
      plan_array_info_get_paced_chunk_rows (&self->info) : 0);
  if (!plan_file_reader_start (self->reader, first, end, self->chunk_rows,
          self->chunks_ahead, &err)) {
    post_read_error (self, err);
    g_error_free (err);
    return FALSE;
  }
  self->reading = TRUE;
  GST_OBJECT_LOCK (self);
  self->position = first;
  GST_OBJECT_UNLOCK (self);

  /* A seek ends the run before it and starts another. */
  n_rows = plan_file_reader_get_n_rows (self->reader);
  GST_OBJECT_LOCK (self);
  what = g_strdup_printf ("'%s'", self->location);
  GST_OBJECT_UNLOCK (self);
  plan_progress_begin (self->progress, what, MIN (first, n_rows),
      MIN (end, n_rows), plan_file_reader_get_row_size (self->reader));
  g_free (what);
  return TRUE;
}

static gboolean
plan_file_src_do_seek (GstBaseSrc * src, GstSegment * segment)
{
  PlanFileSrc *self = PLAN_FILE_SRC (src);
  guint64 n_rows = plan_file_reader_get_n_rows (self->reader);
  guint64 stop = n_rows, first;
  gint64 end;

  if (segment->rate <= 0.0
      || !plan_array_info_get_segment_rows (&self->info, segment, &first,
          &end))
    return FALSE;
  if (end >= 0)
    stop = MIN ((guint64) end, n_rows);

  segment->time = segment->start;
  GST_DEBUG_OBJECT (self, "reading rows %" G_GUINT64_FORMAT " to %"
      G_GUINT64_FORMAT, first, stop);
  /* The reader restarts at the next create(), after negotiation has
   * chosen the memory to read into. */
  self->seek_first = MIN (first, stop);
  self->seek_end = stop;
  self->reading = FALSE;
  self->rows_pushed = FALSE;
  self->range_seqnum = g_atomic_int_get (&self->seek_seqnum);
  GST_OBJECT_LOCK (self);
  self->position = self->seek_first;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* Reads into the memory of the allocator downstream proposes (pinned host
 * memory for a GPU element, say) instead of system memory. Pools proposed
 * downstream are not used: the reader's own pool holds chunks of its own
 * size, and GstBaseSrc would otherwise activate an unused pool. */
static gboolean
plan_file_src_decide_allocation (GstBaseSrc * src, GstQuery * query)
{
  PlanFileSrc *self = PLAN_FILE_SRC (src);
  GstAllocator *allocator = NULL;
  GstAllocationParams params;

  gst_allocation_params_init (&params);
  if (gst_query_get_n_allocation_params (query) > 0)
    gst_query_parse_nth_allocation_param (query, 0, &allocator, &params);
  /* A size without a pool is the chunk size downstream would like (a
   * reduction asks for large ones); a pool of its own is not used. */
  self->downstream_chunk_bytes = 0;
  if (gst_query_get_n_allocation_pools (query) > 0) {
    GstBufferPool *pool = NULL;
    guint size = 0;

    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, NULL, NULL);
    if (pool == NULL && size > 0) {
      self->downstream_chunk_bytes = MIN (size, MAX_BLOCKSIZE);
      GST_DEBUG_OBJECT (self, "downstream asks for chunks of %u bytes", size);
    }
    gst_clear_object (&pool);
  }
  while (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_remove_nth_allocation_pool (query, 0);

  if (allocator != self->allocator) {
    GST_DEBUG_OBJECT (self, "reading into memory of %" GST_PTR_FORMAT
        " from the next chunk read on", allocator);
    /* Chunks already read stay in the memory they are in. */
  }
  gst_clear_object (&self->allocator);
  self->allocator = allocator;
  self->params = params;
  return TRUE;
}

static gboolean
answer_read_rows (PlanFileSrc * self, GstQuery * query)
{
  GError *err = NULL;
  GstBuffer *buffer = NULL;
  guint64 offset, n_rows;

  if (!plan_query_parse_read_rows (query, &offset, &n_rows))
    return FALSE;

  g_mutex_lock (&self->io_lock);
  if (plan_file_reader_get_row_size (self->reader) > 0)
    buffer = plan_file_reader_read_rows (self->reader, offset, n_rows, &err);
  g_mutex_unlock (&self->io_lock);

  if (buffer == NULL) {
    GST_WARNING_OBJECT (self, "not answering %s: %s", PLAN_QUERY_READ_ROWS,
        err ? err->message : "not started");
    g_clear_error (&err);
    return FALSE;
  }
  plan_query_set_read_rows_buffer (query, buffer);
  gst_buffer_unref (buffer);
  return TRUE;
}

static gboolean
answer_position_or_duration (PlanFileSrc * self, GstQuery * query)
{
  GstFormat format;
  gint64 value;
  gboolean ok;

  if (GST_QUERY_TYPE (query) == GST_QUERY_POSITION)
    gst_query_parse_position (query, &format, NULL);
  else
    gst_query_parse_duration (query, &format, NULL);
  if (format != GST_FORMAT_DEFAULT && format != GST_FORMAT_BYTES
      && format != GST_FORMAT_TIME)
    return FALSE;

  GST_OBJECT_LOCK (self);
  if (GST_QUERY_TYPE (query) == GST_QUERY_POSITION)
    value = self->position;
  else
    value = plan_array_info_get_n_rows (&self->info);
  ok = self->opened && convert_unlocked (self, GST_FORMAT_DEFAULT, value,
      format, &value);
  GST_OBJECT_UNLOCK (self);
  if (!ok)
    return FALSE;

  if (GST_QUERY_TYPE (query) == GST_QUERY_POSITION)
    gst_query_set_position (query, format, value);
  else
    gst_query_set_duration (query, format, value);
  return TRUE;
}

static gboolean
answer_convert (PlanFileSrc * self, GstQuery * query)
{
  GstFormat src_format, dest_format;
  gint64 src_value, dest_value;
  gboolean ok;

  gst_query_parse_convert (query, &src_format, &src_value, &dest_format, NULL);
  GST_OBJECT_LOCK (self);
  ok = convert_unlocked (self, src_format, src_value, dest_format, &dest_value);
  GST_OBJECT_UNLOCK (self);
  if (ok)
    gst_query_set_convert (query, src_format, src_value, dest_format,
        dest_value);
  return ok;
}

static gboolean
answer_seeking (PlanFileSrc * self, GstQuery * query)
{
  GstFormat format;
  gint64 end;
  gboolean ok;

  gst_query_parse_seeking (query, &format, NULL, NULL, NULL);
  GST_OBJECT_LOCK (self);
  ok = self->opened && (format == GST_FORMAT_DEFAULT
      || format == GST_FORMAT_BYTES || (format == GST_FORMAT_TIME
          && plan_array_info_has_rate (&self->info))) && convert_unlocked (self,
      GST_FORMAT_DEFAULT, plan_array_info_get_n_rows (&self->info), format,
      &end);
  GST_OBJECT_UNLOCK (self);
  if (!ok)
    return FALSE;
  gst_query_set_seeking (query, format, !self->sharded, 0, end);
  return TRUE;
}

static gboolean
plan_file_src_query (GstBaseSrc * src, GstQuery * query)
{
  PlanFileSrc *self = PLAN_FILE_SRC (src);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_POSITION:
    case GST_QUERY_DURATION:
      return answer_position_or_duration (self, query);
    case GST_QUERY_CONVERT:
      return answer_convert (self, query);
    case GST_QUERY_SEEKING:
      if (answer_seeking (self, query))
        return TRUE;
      break;
    case GST_QUERY_CUSTOM:
      if (plan_query_parse_read_rows (query, NULL, NULL))
        return answer_read_rows (self, query);
      break;
    default:
      break;
  }
  return GST_BASE_SRC_CLASS (parent_class)->query (src, query);
}

static gboolean
plan_file_src_unlock (GstBaseSrc * src)
{
  PlanFileSrc *self = PLAN_FILE_SRC (src);

  plan_file_reader_set_flushing (self->reader, TRUE);
  return TRUE;
}

static gboolean
plan_file_src_unlock_stop (GstBaseSrc * src)
{
  PlanFileSrc *self = PLAN_FILE_SRC (src);

  plan_file_reader_set_flushing (self->reader, FALSE);
  return TRUE;
}

static GstFlowReturn
plan_file_src_create (GstPushSrc * src, GstBuffer ** buffer)
{
  PlanFileSrc *self = PLAN_FILE_SRC (src);
  GError *err = NULL;
  GstFlowReturn ret;

  /* The state change fails: stop quietly until the pipeline is stopped. */
  if (self->failed)
    return GST_FLOW_FLUSHING;
  if (!self->reading && !start_reading (self, self->seek_first, self->seek_end))
    return GST_FLOW_ERROR;
  /* Stored, it goes downstream with the other sticky events, after the
   * segment, before the first rows. */
  if (self->sharded && !self->shard_sent) {
    GstEvent *event = plan_shard_event_new (&self->shard_info);

    gst_pad_store_sticky_event (GST_BASE_SRC_PAD (src), event);
    gst_event_unref (event);
    self->shard_sent = TRUE;
  }

  ret = plan_file_reader_pop (self->reader, buffer, &err);
  switch (ret) {
    case GST_FLOW_OK:
      self->rows_pushed = TRUE;
      GST_OBJECT_LOCK (self);
      self->position = GST_BUFFER_OFFSET_END (*buffer);
      GST_OBJECT_UNLOCK (self);
      /* Rows sampled in time: each chunk's time and length. */
      if (plan_array_info_has_rate (&self->info)) {
        GstClockTime pts = plan_array_info_rows_to_time (&self->info,
            GST_BUFFER_OFFSET (*buffer));

        *buffer = gst_buffer_make_writable (*buffer);
        GST_BUFFER_PTS (*buffer) = pts;
        GST_BUFFER_DURATION (*buffer) = plan_array_info_rows_to_time
            (&self->info, GST_BUFFER_OFFSET_END (*buffer)) - pts;
      }
      GST_LOG_OBJECT (self, "rows %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT,
          GST_BUFFER_OFFSET (*buffer), GST_BUFFER_OFFSET_END (*buffer));
      plan_progress_update (self->progress, GST_BUFFER_OFFSET_END (*buffer));
      break;
    case GST_FLOW_FLUSHING:
      GST_DEBUG_OBJECT (self, "flushing");
      break;
    case GST_FLOW_EOS:
      GST_DEBUG_OBJECT (self, "all rows read");
      /* The progress message before the EOS, which an empty range's
       * segment comes with: applications stop at the EOS. */
      plan_progress_finish (self->progress, GST_PROGRESS_TYPE_COMPLETE);
      if (!self->rows_pushed) {
        GST_DEBUG_OBJECT (self, "no rows in the range: its segment and "
            "the EOS");
        plan_element_push_empty_segment (GST_ELEMENT (self),
            self->range_seqnum);
        self->rows_pushed = TRUE;
      }
      break;
    default:
      /* The progress message first: applications stop at the error. */
      plan_progress_finish (self->progress, GST_PROGRESS_TYPE_ERROR);
      if (self->sharded && err)
        plan_shard_abort (err->message);
      post_read_error (self, err);
      g_clear_error (&err);
      /* GstBaseSrc sends EOS after the error; every row may have come
       * before it (a file found changed at the end): what follows must
       * not take the stream for a whole one. */
      gst_pad_push_event (GST_BASE_SRC_PAD (self),
          gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
              gst_structure_new_empty (PLAN_EVENT_STREAM_FAILED)));
      break;
  }
  return ret;
}

static GstURIType
plan_file_src_uri_get_type (GType type)
{
  return GST_URI_SRC;
}

static gchar *
plan_file_src_uri_get_uri (GstURIHandler * handler)
{
  return plan_file_uri_from_location (GST_OBJECT (handler),
      &PLAN_FILE_SRC (handler)->location);
}

static gboolean
plan_file_src_uri_set_uri (GstURIHandler * handler, const gchar * uri,
    GError ** error)
{
  PlanFileSrc *self = PLAN_FILE_SRC (handler);
  gchar *location;
  gboolean ok;

  location = plan_file_uri_to_location (uri, error);
  if (location == NULL)
    return FALSE;
  ok = plan_file_src_set_location (self, location, error);
  g_free (location);
  return ok;
}

static void
plan_file_src_uri_handler_init (gpointer g_iface, gpointer iface_data)
{
  GstURIHandlerInterface *iface = (GstURIHandlerInterface *) g_iface;

  iface->get_type = plan_file_src_uri_get_type;
  iface->get_protocols = plan_file_uri_get_protocols;
  iface->get_uri = plan_file_src_uri_get_uri;
  iface->set_uri = plan_file_src_uri_set_uri;
}
