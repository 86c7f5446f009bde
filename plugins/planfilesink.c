/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-planfilesink
 * @title: planfilesink
 * @short_description: write an array stream to a raw, .npy, .npz or HDF5
 *   file or a Zarr store, atomically
 *
 * planfilesink writes the `array/x-raw` stream it receives to a file, as
 * NumPy .npy, as the one array of a NumPy .npz file (#PlanFileSink:member,
 * stored as np.savez writes it, or deflated as np.savez_compressed does
 * with #PlanFileSink:compression), as one dataset of an HDF5 file or one
 * array of a Zarr store (#PlanFileSink:dataset, #PlanFileSink:chunk-rows,
 * #PlanFileSink:compression, #PlanFileSink:codec, #PlanFileSink:file-mode)
 * or as raw data (#PlanFileSink:format; by default .npy when the location
 * ends in ".npy", .npz when it ends in ".npz", HDF5 when it ends in ".h5",
 * ".hdf5" or ".nc", Zarr when it ends in ".zarr"). A worker thread of its own writes behind
 * the pipeline (#PlanFileWriter): up to #PlanFileSink:max-pending chunks
 * wait to be written before the streaming thread blocks, so writing
 * overlaps the work upstream without a queue element.
 *
 * The file is written atomically: into an unnamed file (O_TMPFILE) in the
 * target's directory, linked into place at #PlanFileSink:location at end
 * of stream after the .npy header has been completed with the final
 * number of rows, or, on file systems without unnamed files, a temporary
 * file beside the target (`.NAME.XXXXXX.part`) renamed there. A process
 * killed before EOS leaves no file behind with the unnamed file. A pipeline that fails, is
 * interrupted or is stopped before EOS leaves nothing at the location, and
 * a file already there stays untouched until a successful EOS. With
 * #PlanFileSink:fsync the data is flushed to disk before it is put in
 * place. A
 * location that exists and is not a regular file (/dev/null, a FIFO) is
 * written directly, except by a sharded run's ranks writing one file
 * together, which refuse it. A flush (a flushing seek) starts the output
 * over.
 *
 * #GstBaseSink:sync is %FALSE by default: arrays have no timestamps to
 * wait for. #GstBaseSink:async is %FALSE by default too: the sink has no
 * clock to preroll for, and a branch that produces only at EOS (a
 * planreduce beside a planmap's output, after a tee) must not hold the
 * whole pipeline in PAUSED waiting for its first buffer.
 *
 * ## Errors
 *
 * An output directory that does not exist (resource/not-found), no
 * permission or a directory at the location (resource/open-write), a full
 * disk (resource/no-space-left), and other write failures such as EFBIG
 * or EIO (resource/write) become element errors naming the file and the
 * cause.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 planfilesrc location=in.npy ! planfilesink location=out.npy
 * ]| Copies a .npy file.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planfilesink.h"

#include <gio/gio.h>
#include "planfileuri.h"
#include <libplan/planshardhooks.h>

GST_DEBUG_CATEGORY_STATIC (plan_file_sink_debug);
#define GST_CAT_DEFAULT plan_file_sink_debug

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_FORMAT,
  PROP_MAX_PENDING,
  PROP_FSYNC,
  PROP_SHARD_OUTPUT,
  PROP_REPLACE_READ_ONLY,
  PROP_DATASET,
  PROP_CHUNK_ROWS,
  PROP_COMPRESSION,
  PROP_FILE_MODE,
  PROP_CODEC,
  PROP_ZARR_FORMAT,
  PROP_MEMBER,
};

/**
 * PlanShardOutput:
 * @PLAN_SHARD_OUTPUT_SHARED: one file, each rank writing its rows at
 *   their place
 * @PLAN_SHARD_OUTPUT_PER_RANK: one file per rank, `NAME.rankR-of-N.EXT`
 *
 * What planfilesink writes when its stream is one rank's share of a
 * sharded run.
 */
typedef enum
{
  PLAN_SHARD_OUTPUT_SHARED,
  PLAN_SHARD_OUTPUT_PER_RANK,
} PlanShardOutput;

#define PLAN_TYPE_SHARD_OUTPUT (plan_shard_output_get_type ())
static GType
plan_shard_output_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {PLAN_SHARD_OUTPUT_SHARED, "One file, each rank writing its rows at "
          "their place", "shared"},
    {PLAN_SHARD_OUTPUT_PER_RANK, "One file per rank, NAME.rankR-of-N.EXT",
        "per-rank"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("PlanShardOutput", values);

    g_once_init_leave (&type, t);
  }
  return type;
}

#define DEFAULT_LOCATION NULL
#define DEFAULT_FORMAT PLAN_FILE_FORMAT_AUTO
#define DEFAULT_MAX_PENDING 4
#define DEFAULT_FSYNC FALSE
#define DEFAULT_SHARD_OUTPUT PLAN_SHARD_OUTPUT_SHARED
#define DEFAULT_REPLACE_READ_ONLY FALSE
#define DEFAULT_DATASET NULL
#define DEFAULT_CHUNK_ROWS 0
#define DEFAULT_COMPRESSION 0
#define DEFAULT_FILE_MODE PLAN_FILE_MODE_REPLACE
#define DEFAULT_CODEC PLAN_FILE_CODEC_AUTO
#define DEFAULT_ZARR_FORMAT 2
#define DEFAULT_MEMBER "arr_0"

#define MAX_MAX_PENDING 1024

struct _PlanFileSink
{
  GstBaseSink parent;

  /* properties, protected by OBJECT_LOCK */
  gchar *location;
  PlanFileFormat format;
  guint max_pending;
  gboolean fsync;
  PlanShardOutput shard_output;
  gboolean replace_read_only;
  gchar *dataset;
  guint64 chunk_rows;
  guint compression;
  PlanFileMode file_mode;
  PlanFileCodec codec;
  guint zarr_format;
  gchar *member;

  /* construct-only; called from the streaming thread and state changes,
   * set_flushing from any thread */
  PlanFileWriter *writer;

  /* streaming thread only (STREAM_LOCK) */
  gboolean open;
  gboolean upstream_failed;     /* PLAN_EVENT_STREAM_FAILED came */
  gboolean caps_refused;        /* set_caps posted an error: caps sent
                                 * again are refused without one */
  guint64 next_row;
  gsize row_size;
  gint64 caps_rows;             /* rows the caps announce, -1 unknown */
  guint64 rows_received;
  PlanArrayInfo info;           /* of the caps, kept for a restart */
  gboolean have_info;
  gchar *stream_id;             /* of the stream written (a file holds one) */
  /* a sharded stream (PLAN_EVENT_SHARD): this rank's rows go into the
   * shared file, or its own file, or (a result every rank has) nowhere
   * but on rank 0 */
  gboolean sharded;
  PlanShardInfo shard;
  PlanShardWriter *shard_writer;
  GCancellable *shard_cancellable;      /* cancelled by unlock: the wait
                                         * for the other ranks at EOS stops
                                         * (one that died never reports) */
  gchar *rank_location;         /* per-rank: this rank's file */
  gboolean discard;
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (PLAN_ARRAY_CAPS_ANY));

static void plan_file_sink_uri_handler_init (gpointer g_iface,
    gpointer iface_data);

#define plan_file_sink_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (PlanFileSink, plan_file_sink, GST_TYPE_BASE_SINK,
    G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER,
        plan_file_sink_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (planfilesink, "planfilesink",
    GST_RANK_NONE, PLAN_TYPE_FILE_SINK,
    GST_DEBUG_CATEGORY_INIT (plan_file_sink_debug, "planfilesink", 0,
        "Array file sink"));

static void plan_file_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void plan_file_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void plan_file_sink_dispose (GObject * object);
static void plan_file_sink_finalize (GObject * object);
static GstStateChangeReturn plan_file_sink_change_state (GstElement *
    element, GstStateChange transition);
static gboolean plan_file_sink_set_caps (GstBaseSink * sink, GstCaps * caps);
static gboolean plan_file_sink_event (GstBaseSink * sink, GstEvent * event);
static gboolean plan_file_sink_query (GstBaseSink * sink, GstQuery * query);
static GstFlowReturn plan_file_sink_render (GstBaseSink * sink,
    GstBuffer * buffer);
static gboolean plan_file_sink_unlock (GstBaseSink * sink);
static gboolean plan_file_sink_unlock_stop (GstBaseSink * sink);

static void
plan_file_sink_class_init (PlanFileSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *basesink_class = GST_BASE_SINK_CLASS (klass);

  gobject_class->set_property = plan_file_sink_set_property;
  gobject_class->get_property = plan_file_sink_get_property;
  gobject_class->dispose = plan_file_sink_dispose;
  gobject_class->finalize = plan_file_sink_finalize;

  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "File location",
          "The file to write; it appears there, complete, at end of stream",
          DEFAULT_LOCATION, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_FORMAT,
      g_param_spec_enum ("format", "File format",
          "The layout to write: auto writes .npy when the location ends in "
          "\".npy\", .npz when it ends in \".npz\", HDF5 when it ends in "
          "\".h5\", \".hdf5\" or \".nc\", a Zarr store when it ends in "
          "\".zarr\" (in any case), and raw otherwise", PLAN_TYPE_FILE_FORMAT,
          DEFAULT_FORMAT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_MAX_PENDING,
      plan_param_spec_checked_range (g_param_spec_uint ("max-pending",
          "Write-behind depth",
          "The most chunks waiting to be written before the streaming "
          "thread blocks", 1, MAX_MAX_PENDING, DEFAULT_MAX_PENDING,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (gobject_class, PROP_FSYNC,
      g_param_spec_boolean ("fsync", "Flush to disk",
          "Flush the file to disk (fsync) before renaming it into place, and "
          "its directory after, so that it survives a crash of the machine",
          DEFAULT_FSYNC,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * PlanFileSink:shard-output:
   *
   * When the stream is one rank's share of a run sharded across an MPI
   * job (planfilesrc shard=mpi upstream): "shared" writes one file, each
   * rank its rows at their place, put in place when every rank has
   * succeeded; "per-rank" writes one file per rank, `out.rank1-of-4.npy`
   * for `out.npy`. A result every rank has (a whole reduction) is written
   * by rank 0 alone. Unsharded streams ignore it.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_SHARD_OUTPUT,
      g_param_spec_enum ("shard-output", "Sharded output",
          "In a run sharded across MPI ranks: shared (one file, each rank "
          "writing its rows at their place) or per-rank (one file per rank, "
          "NAME.rankR-of-N.EXT)", PLAN_TYPE_SHARD_OUTPUT,
          DEFAULT_SHARD_OUTPUT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * PlanFileSink:replace-read-only:
   *
   * Whether to replace a file at the location that this user could not
   * open for writing (read-only, or another user's), as `mv` does when
   * the directory's permissions allow it. By default such a file is left
   * as it is and the element fails to start (resource / open-write), as
   * `cp`, numpy and filesink refuse it.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_REPLACE_READ_ONLY,
      g_param_spec_boolean ("replace-read-only", "Replace read-only files",
          "Replace a file at the location that this user may not write "
          "(where the directory allows it) instead of refusing to",
          DEFAULT_REPLACE_READ_ONLY, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));

  /**
   * PlanFileSink:dataset:
   *
   * The path of the dataset an HDF5 output gets ("/group/temps"; groups
   * on the way are created); unset, "/data"; one that names no dataset
   * ("", "/"), has a part ".." (a name in HDF5, not the group above) or
   * ends in "/" (a group's path) fails the start. For a Zarr output, the path
   * of the array in the store's group; unset, the store is the array.
   * Other formats ignore it.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_DATASET,
      g_param_spec_string ("dataset", "HDF5 dataset or Zarr array",
          "The path of the dataset an HDF5 output (a location ending in "
          ".h5, .hdf5 or .nc, or format=hdf5) gets, unset /data; or of the "
          "array in a Zarr output's group (.zarr), unset the store itself",
          DEFAULT_DATASET, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * PlanFileSink:chunk-rows:
   *
   * The rows of each chunk of an HDF5 or Zarr output: a chunk holds whole
   * rows (the inner axes are not split), so that readers read it row block
   * by row block. 0 picks about 1 MiB of rows, but no more than the
   * array's rows where the caps give them. Other formats ignore it.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_CHUNK_ROWS,
      plan_param_spec_checked_range (g_param_spec_uint64 ("chunk-rows",
          "Chunk rows",
          "The rows of an HDF5 or Zarr output's chunks (whole rows: the inner "
          "axes are not split); 0: about 1 MiB of rows, at most the "
          "array's rows where known", 0, G_MAXUINT32,
          DEFAULT_CHUNK_ROWS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY)));
  /**
   * PlanFileSink:compression:
   *
   * An HDF5, Zarr or .npz output's compression level: 0 stores the
   * chunks as they are, 1 (fastest) to 9 (smallest) compresses them with
   * #PlanFileSink:codec: by default gzip after the shuffle filter for HDF5
   * (which every HDF5 reader decodes) and zstd for Zarr. A .npz member is
   * stored (np.savez) at 0 and deflated (np.savez_compressed) at 1 to 9.
   * A level above 0 for a .npy or raw output, which has no compression,
   * is an error when the element starts.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_COMPRESSION,
      plan_param_spec_checked_range (g_param_spec_uint ("compression",
          "Compression level",
          "An HDF5, Zarr or .npz output's compression: 0 none, 1 (fastest) "
          "to 9 (smallest) with the codec (HDF5: gzip with the shuffle "
          "filter, which every HDF5 reader decodes; Zarr: zstd; .npz: "
          "deflate, as np.savez_compressed)", 0, 9,
          DEFAULT_COMPRESSION,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY)));

  /**
   * PlanFileSink:file-mode:
   *
   * What becomes of a file already at the location: replace (the default)
   * replaces it whole, atomically; add, for HDF5 output, adds the dataset
   * to it and keeps its other datasets, groups and attributes (a dataset
   * of the same path is replaced). The file is copied beside itself (a
   * reflink on Btrfs and XFS, a full copy elsewhere), the dataset written
   * into the copy, and the copy renamed over the file at end of stream, so
   * a failure leaves the file as it was. For Zarr output, add adds the
   * array to the group at the location, written beside and renamed into
   * place; the store's other arrays are not touched. For .npz output, add
   * copies the archive's other members into the new file ahead of the
   * member written (one of the same name is replaced), which replaces the
   * archive at end of stream.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_FILE_MODE,
      g_param_spec_enum ("file-mode", "Existing file",
          "What becomes of a file at the location: replace it whole, or add "
          "the dataset to it (HDF5, or an array to a Zarr group, or the "
          "member to a .npz; the others are kept, one of the same path is "
          "replaced)", PLAN_TYPE_FILE_MODE,
          DEFAULT_FILE_MODE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * PlanFileSink:codec:
   *
   * How the chunks of a compressed output (#PlanFileSink:compression above
   * 0) are compressed: auto is gzip after the shuffle filter for HDF5,
   * zstd for Zarr and deflate for .npz; gzip (deflate for .npz); zstd,
   * blosc-lz4 and blosc-zstd (blosc with byte shuffle) for Zarr only.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_CODEC,
      g_param_spec_enum ("codec", "Compressor",
          "How a compressed output's chunks are compressed: auto (HDF5: gzip "
          "with shuffle; Zarr: zstd; .npz: deflate), gzip (.npz: deflate), "
          "or for Zarr zstd, blosc-lz4, blosc-zstd", PLAN_TYPE_FILE_CODEC,
          DEFAULT_CODEC,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * PlanFileSink:zarr-format:
   *
   * The version of a Zarr output: 2 writes a .zarray and chunks named
   * "2.0", as zarr-python 2 does; 3 a zarr.json and chunks named "c/2/0",
   * as zarr-python 3 does. An array added to a group (file-mode=add)
   * takes the group's version. Other formats ignore it.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_ZARR_FORMAT,
      plan_param_spec_checked_range (g_param_spec_uint ("zarr-format",
          "Zarr version",
          "The version of a Zarr output: 2 (.zarray) or 3 (zarr.json); an "
          "array added to a group takes the group's", 2, 3,
          DEFAULT_ZARR_FORMAT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY)));

  /**
   * PlanFileSink:member:
   *
   * The name of the array in a .npz output: the key np.load() gives for
   * it ("temps") or its name in the archive ("temps.npy"; ".npy" is
   * appended where it does not end so). "arr_0", the default, is numpy's
   * name of an array np.savez() is given without a name. A name that is
   * empty, starts with a '/' or has a part that is empty, '.' or '..', is
   * not UTF-8 or is longer than a zip archive allows
   * is refused. Other formats ignore it.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_MEMBER,
      g_param_spec_string ("member", "Array of a .npz",
          "The name of the array in a .npz output: numpy's key for it "
          "(temps) or its name in the archive (temps.npy); unset, arr_0 as "
          "np.savez names an unnamed array. Ignored for other formats",
          DEFAULT_MEMBER, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class, "Array file sink",
      "Sink/File/Array",
      "Writes an array to a raw, NumPy .npy or .npz, or HDF5 file or a Zarr "
      "store, "
      "writing behind on its own worker thread into a temporary file "
      "renamed into place at end of stream", PLAN_CONTACT);
  gst_element_class_add_static_metadata (element_class,
      GST_ELEMENT_METADATA_DOC_URI, PLAN_DOC_URI "/planfilesink.md");

  element_class->change_state = GST_DEBUG_FUNCPTR (plan_file_sink_change_state);
  basesink_class->set_caps = GST_DEBUG_FUNCPTR (plan_file_sink_set_caps);
  basesink_class->event = GST_DEBUG_FUNCPTR (plan_file_sink_event);
  basesink_class->query = GST_DEBUG_FUNCPTR (plan_file_sink_query);
  basesink_class->render = GST_DEBUG_FUNCPTR (plan_file_sink_render);
  basesink_class->unlock = GST_DEBUG_FUNCPTR (plan_file_sink_unlock);
  basesink_class->unlock_stop = GST_DEBUG_FUNCPTR (plan_file_sink_unlock_stop);

  gst_type_mark_as_plugin_api (PLAN_TYPE_FILE_FORMAT, 0);
  gst_type_mark_as_plugin_api (PLAN_TYPE_SHARD_OUTPUT, 0);
  gst_type_mark_as_plugin_api (PLAN_TYPE_FILE_MODE, 0);
  gst_type_mark_as_plugin_api (PLAN_TYPE_FILE_CODEC, 0);
}

static void
plan_file_sink_init (PlanFileSink * self)
{
  self->location = DEFAULT_LOCATION;
  self->shard_output = DEFAULT_SHARD_OUTPUT;
  self->format = DEFAULT_FORMAT;
  self->max_pending = DEFAULT_MAX_PENDING;
  self->fsync = DEFAULT_FSYNC;
  self->replace_read_only = DEFAULT_REPLACE_READ_ONLY;
  self->file_mode = DEFAULT_FILE_MODE;
  self->codec = DEFAULT_CODEC;
  self->zarr_format = DEFAULT_ZARR_FORMAT;
  self->member = g_strdup (DEFAULT_MEMBER);
  self->writer = plan_file_writer_new ();
  self->shard_cancellable = g_cancellable_new ();
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
  gst_base_sink_set_async_enabled (GST_BASE_SINK (self), FALSE);
  /* The last chunk, kept for the last-sample property, would hold its
   * memory (a source's mapped file pages, a pool's buffer) until the next
   * run or the element's end: nothing a file's writer shows. */
  gst_base_sink_set_last_sample_enabled (GST_BASE_SINK (self), FALSE);
}

static void
plan_file_sink_dispose (GObject * object)
{
  PlanFileSink *self = PLAN_FILE_SINK (object);

  gst_clear_object (&self->writer);
  g_clear_object (&self->shard_cancellable);

  G_OBJECT_CLASS (parent_class)->dispose (object);
}

static void
plan_file_sink_finalize (GObject * object)
{
  PlanFileSink *self = PLAN_FILE_SINK (object);

  g_free (self->location);
  g_free (self->rank_location);
  g_free (self->stream_id);
  g_free (self->dataset);
  g_free (self->member);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static gboolean
plan_file_sink_set_location (PlanFileSink * self, const gchar * location,
    GError ** error)
{
  GstState state;

  GST_OBJECT_LOCK (self);
  state = GST_STATE (self);
  if (state != GST_STATE_READY && state != GST_STATE_NULL) {
    GST_OBJECT_UNLOCK (self);
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_STATE,
        "Changing the location of planfilesink while it runs is not "
        "supported");
    GST_WARNING_OBJECT (self, "not changing the location while running");
    return FALSE;
  }
  g_free (self->location);
  self->location = g_strdup (location);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static void
plan_file_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  PlanFileSink *self = PLAN_FILE_SINK (object);

  if (plan_element_refuse_live_set (GST_ELEMENT (object), pspec, TRUE)
      || plan_element_refuse_out_of_range (GST_ELEMENT (object), pspec,
          value))
    return;

  if (prop_id == PROP_LOCATION) {
    plan_file_sink_set_location (self, g_value_get_string (value), NULL);
    return;
  }

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FORMAT:
      self->format = g_value_get_enum (value);
      break;
    case PROP_MAX_PENDING:
      self->max_pending = g_value_get_uint (value);
      break;
    case PROP_FSYNC:
      self->fsync = g_value_get_boolean (value);
      break;
    case PROP_SHARD_OUTPUT:
      self->shard_output = g_value_get_enum (value);
      break;
    case PROP_REPLACE_READ_ONLY:
      self->replace_read_only = g_value_get_boolean (value);
      break;
    case PROP_DATASET:
      g_free (self->dataset);
      self->dataset = g_value_dup_string (value);
      break;
    case PROP_CHUNK_ROWS:
      self->chunk_rows = g_value_get_uint64 (value);
      break;
    case PROP_COMPRESSION:
      self->compression = g_value_get_uint (value);
      break;
    case PROP_FILE_MODE:
      self->file_mode = g_value_get_enum (value);
      break;
    case PROP_CODEC:
      self->codec = g_value_get_enum (value);
      break;
    case PROP_ZARR_FORMAT:
      self->zarr_format = g_value_get_uint (value);
      break;
    case PROP_MEMBER:
      g_free (self->member);
      self->member = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
plan_file_sink_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  PlanFileSink *self = PLAN_FILE_SINK (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_FORMAT:
      g_value_set_enum (value, self->format);
      break;
    case PROP_MAX_PENDING:
      g_value_set_uint (value, self->max_pending);
      break;
    case PROP_FSYNC:
      g_value_set_boolean (value, self->fsync);
      break;
    case PROP_SHARD_OUTPUT:
      g_value_set_enum (value, self->shard_output);
      break;
    case PROP_REPLACE_READ_ONLY:
      g_value_set_boolean (value, self->replace_read_only);
      break;
    case PROP_DATASET:
      g_value_set_string (value, self->dataset);
      break;
    case PROP_CHUNK_ROWS:
      g_value_set_uint64 (value, self->chunk_rows);
      break;
    case PROP_COMPRESSION:
      g_value_set_uint (value, self->compression);
      break;
    case PROP_FILE_MODE:
      g_value_set_enum (value, self->file_mode);
      break;
    case PROP_CODEC:
      g_value_set_enum (value, self->codec);
      break;
    case PROP_ZARR_FORMAT:
      g_value_set_uint (value, self->zarr_format);
      break;
    case PROP_MEMBER:
      g_value_set_string (value, self->member);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Posts @err, from PlanFileWriter, as the element error that fits it. */
static void
post_write_error (PlanFileSink * self, const GError * err)
{
  /* The pipeline stopped while the writer waited for a FIFO's reader:
   * shutdown, not an error. */
  if (g_error_matches (err, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
    GST_DEBUG_OBJECT (self, "%s", err->message);
    return;
  }
  /* In an MPI job the other ranks may wait for this one's rows (a shared
   * output) or messages: they are told, even when the failure comes
   * before the stream says it is sharded. */
  plan_shard_tell_failure (err->message);
  plan_element_post_error_full (GST_ELEMENT (self), err,
      PLAN_ERROR_CONTEXT_WRITE, __FILE__, GST_FUNCTION, __LINE__);
}

/* Opens the temporary file on READY to PAUSED rather than in
 * GstBaseSink's start(), which runs on NULL to READY: nothing is created
 * before the state change that needs it. */
static gboolean
open_writer (PlanFileSink * self)
{
  GError *err = NULL;
  gchar *location, *dataset, *member;
  PlanFileFormat format;
  guint max_pending, compression;
  PlanFileMode file_mode;
  PlanFileCodec codec;
  guint zarr_format;
  guint64 chunk_rows;
  gboolean fsync, replace_read_only;

  /* A number out of its property's range, before anything reads it. */
  if (!plan_element_check_ranges (GST_ELEMENT (self), &err)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err->message),
        (NULL));
    g_error_free (err);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  location = g_strdup (self->rank_location ? self->rank_location :
      self->location);
  format = self->format;
  if (format == PLAN_FILE_FORMAT_AUTO && self->rank_location)
    format = plan_file_format_from_location (self->location);
  max_pending = self->max_pending;
  fsync = self->fsync;
  replace_read_only = self->replace_read_only;
  dataset = g_strdup (self->dataset);
  chunk_rows = self->chunk_rows;
  compression = self->compression;
  file_mode = self->file_mode;
  codec = self->codec;
  zarr_format = self->zarr_format;
  member = g_strdup (self->member);
  GST_OBJECT_UNLOCK (self);

  if (location == NULL || location[0] == '\0')
    goto no_location;
  plan_file_writer_set_replace_read_only (self->writer, replace_read_only);
  plan_file_writer_set_dataset (self->writer, dataset, chunk_rows,
      compression);
  plan_file_writer_set_mode (self->writer, file_mode);
  plan_file_writer_set_codec (self->writer, codec);
  plan_file_writer_set_zarr_format (self->writer, zarr_format);
  plan_file_writer_set_member (self->writer, member);
  g_free (dataset);
  g_free (member);
  if (!plan_file_writer_open (self->writer, location, format, max_pending,
          fsync, &err))
    goto open_failed;

  self->open = TRUE;
  self->next_row = 0;
  self->row_size = 0;
  self->caps_rows = -1;
  self->rows_received = 0;
  GST_INFO_OBJECT (self, "writing '%s' (%s) through '%s'", location,
      plan_file_format_to_string (plan_file_writer_get_format (self->writer)),
      GST_STR_NULL (plan_file_writer_get_temp_path (self->writer)));
  g_free (location);
  return TRUE;

  /* ERRORS */
no_location:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No file name specified for writing."), (NULL));
    g_free (location);
    g_free (dataset);
    g_free (member);
    return FALSE;
  }
open_failed:
  {
    post_write_error (self, err);
    g_error_free (err);
    g_free (location);
    return FALSE;
  }
}

static void
cancel_writer (PlanFileSink * self)
{
  /* Stopping before a successful EOS: remove the partial file. After EOS
   * the writer is already closed and this does nothing. */
  if (self->open)
    GST_INFO_OBJECT (self, "stopped before end of stream; removing the "
        "partial file");
  /* Before its verdict, a failure of this rank: the others are told. The
   * shard writer goes first: its pool may still be filtering chunks that
   * rank 0 writes into this writer's HDF5 file (or compressing a Zarr
   * array's into its directory), and freeing it waits for them; the file
   * closed under them made each one a critical, or a write into a closed
   * dataset. */
  g_clear_pointer (&self->shard_writer, plan_shard_writer_free);
  plan_file_writer_cancel (self->writer);
  self->open = FALSE;
}

static GstStateChangeReturn
plan_file_sink_change_state (GstElement * element, GstStateChange transition)
{
  PlanFileSink *self = PLAN_FILE_SINK (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    self->have_info = FALSE;
    g_clear_pointer (&self->stream_id, g_free);
    self->upstream_failed = FALSE;
    self->caps_refused = FALSE;
    self->sharded = FALSE;
    self->discard = FALSE;
    g_clear_pointer (&self->rank_location, g_free);
    if (!open_writer (self))
      return GST_STATE_CHANGE_FAILURE;
  }

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);

  /* The streaming thread has left render by now: GstBaseSink deactivated
   * the pad (READY_TO_PAUSED failing does the same). */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY
      || (transition == GST_STATE_CHANGE_READY_TO_PAUSED
          && ret == GST_STATE_CHANGE_FAILURE))
    cancel_writer (self);
  return ret;
}

static gboolean
plan_file_sink_set_caps (GstBaseSink * sink, GstCaps * caps)
{
  PlanFileSink *self = PLAN_FILE_SINK (sink);
  PlanArrayInfo info;
  GError *err = NULL;

  /* Caps may still come after upstream said its stream failed and the
   * file was given up (an aggregator such as planmap forwards the failure
   * at once and sets its own caps after): there is nothing to write them
   * to, and nothing to say. */
  if (self->upstream_failed) {
    GST_DEBUG_OBJECT (self, "caps after upstream failed: not writing");
    return TRUE;
  }
  /* A caps event refused stays unreceived on the pad, which sends it again
   * before the next buffer or EOS: its error is posted once, and the
   * stream stays refused (a flush starts it over, reopen_writer ()). */
  if (self->caps_refused) {
    GST_DEBUG_OBJECT (self, "caps again after they were refused: %"
        GST_PTR_FORMAT, caps);
    return FALSE;
  }
  if (!plan_array_info_from_caps (&info, caps, &err)
      || !plan_file_writer_set_info (self->writer, &info, &err)) {
    post_write_error (self, err);
    g_error_free (err);
    /* Upstream gets NOT_NEGOTIATED, and a GstBaseSrc sends EOS after it:
     * that EOS does not put the rows from before in place. */
    self->caps_refused = TRUE;
    return FALSE;
  }
  self->row_size = plan_array_info_get_row_size (&info);
  self->caps_rows = plan_array_info_get_n_rows (&info);
  self->info = info;
  self->have_info = TRUE;
  return TRUE;
}

/* A flush (a flushing seek) drops what came before it: the rows that
 * follow are a new stream, written to a new temporary file that replaces
 * the one written so far, with the caps kept (they are not sent again).
 * A non-regular target (a FIFO, /dev/null) keeps what it was sent. */
/* A new file in place of the one written so far, with the caps kept
 * (they are not sent again). Posts the error when it cannot. */
static gboolean
reopen_writer (PlanFileSink * self)
{
  GError *err = NULL;

  self->upstream_failed = FALSE;
  self->caps_refused = FALSE;
  cancel_writer (self);
  if (!open_writer (self))
    return FALSE;
  if (!self->have_info)
    return TRUE;
  if (!plan_file_writer_set_info (self->writer, &self->info, &err)) {
    post_write_error (self, err);
    g_error_free (err);
    cancel_writer (self);
    return FALSE;
  }
  self->row_size = plan_array_info_get_row_size (&self->info);
  self->caps_rows = plan_array_info_get_n_rows (&self->info);
  return TRUE;
}

static void
restart_writer (PlanFileSink * self)
{
  if (self->open && self->rows_received == 0)
    return;
  GST_DEBUG_OBJECT (self, "flushed after %" G_GUINT64_FORMAT " rows: "
      "starting the file over", self->rows_received);
  reopen_writer (self);
}

/* A sharded stream: what this rank writes, and where. */
static gboolean
take_shard (PlanFileSink * self, GstEvent * event)
{
  PlanShardOutput mode;
  GError *err = NULL;
  gchar *location;
  PlanFileFormat format;
  gboolean fsync;

  if (!plan_shard_event_parse (event, &self->shard) || self->sharded)
    return TRUE;
  self->sharded = TRUE;
  GST_OBJECT_LOCK (self);
  mode = self->shard_output;
  location = g_strdup (self->location);
  format = self->format;
  fsync = self->fsync;
  GST_OBJECT_UNLOCK (self);
  if (format == PLAN_FILE_FORMAT_AUTO)
    format = plan_file_format_from_location (location);

  if (self->shard.replicated && mode == PLAN_SHARD_OUTPUT_SHARED) {
    /* Every rank has the same rows: rank 0 writes them. */
    if (self->shard.rank != 0) {
      GST_INFO_OBJECT (self, "rank %u: rank 0 writes the result",
          self->shard.rank);
      cancel_writer (self);
      self->discard = TRUE;
    }
    g_free (location);
    return TRUE;
  }
  cancel_writer (self);
  if (mode == PLAN_SHARD_OUTPUT_PER_RANK) {
    self->rank_location = plan_shard_rank_location (location,
        self->shard.rank, self->shard.n_ranks);
    GST_INFO_OBJECT (self, "rank %u: writing '%s'", self->shard.rank,
        self->rank_location);
    g_free (location);
    return reopen_writer (self);
  }
  if (!self->have_info) {
    g_set_error (&err, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "a sharded stream without caps");
    goto failed;
  }
  if (format == PLAN_FILE_FORMAT_NPZ) {
    g_set_error (&err, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not write "
        "'%s': the ranks of a sharded run do not write one .npz file "
        "together (its member is one stream, deflated or checksummed front "
        "to back); write one file per rank (shard-output=per-rank), or a "
        ".npy, HDF5 or Zarr output", location);
    goto failed;
  }
  GST_INFO_OBJECT (self, "rank %u of %u: rows %" G_GUINT64_FORMAT " + %"
      G_GINT64_FORMAT " of the %" G_GUINT64_FORMAT " of '%s'",
      self->shard.rank, self->shard.n_ranks, self->shard.origin,
      self->shard.n_rows, self->shard.total, location);
  /* HDF5 and Zarr: rank 0's writer, set up for the output at PAUSED (its
   * dataset, codec, mode), makes the file and puts it in place. */
  self->shard_writer = plan_shard_open_writer (GST_OBJECT_NAME (self),
      self->writer, location, format, &self->info, self->shard.total, fsync,
      &err);
  if (self->shard_writer == NULL)
    goto failed;
  self->open = TRUE;
  g_free (location);
  return TRUE;

failed:
  post_write_error (self, err);
  g_error_free (err);
  g_free (location);
  cancel_writer (self);
  return FALSE;
}

/* Rows of a sharded stream at their global place; a run of rows that
 * wraps around the stream's end is written in two. */
static GstFlowReturn
render_shared (PlanFileSink * self, GstBuffer * buffer)
{
  guint64 total = MAX (self->shard.total, 1);
  guint64 row = (self->shard.origin + (GST_BUFFER_OFFSET_IS_VALID (buffer) ?
          GST_BUFFER_OFFSET (buffer) : self->next_row)) % total;
  GError *err = NULL;
  GstMapInfo map;
  gsize n, done = 0;

  if (self->row_size == 0 || !gst_buffer_map (buffer, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Could not map a buffer for writing."), (NULL));
    return GST_FLOW_ERROR;
  }
  n = map.size / self->row_size;
  while (done < n) {
    gsize take = MIN ((guint64) (n - done), total - row);

    if (!plan_shard_writer_write (self->shard_writer, row,
            map.data + done * self->row_size, take, &err)) {
      gst_buffer_unmap (buffer, &map);
      /* The other ranks learn why, before the writer tells them that this
       * one stopped. */
      plan_shard_abort (err->message);
      post_write_error (self, err);
      g_error_free (err);
      cancel_writer (self);
      return GST_FLOW_ERROR;
    }
    done += take;
    row = (row + take) % total;
  }
  gst_buffer_unmap (buffer, &map);
  self->rows_received += n;
  self->next_row += n;
  return GST_FLOW_OK;
}

static GstFlowReturn
plan_file_sink_render (GstBaseSink * sink, GstBuffer * buffer)
{
  PlanFileSink *self = PLAN_FILE_SINK (sink);
  GError *err = NULL;
  GstFlowReturn ret;

  /* After upstream failed, rows that still come are not written. */
  if (self->discard || self->upstream_failed)
    return GST_FLOW_OK;
  if (self->shard_writer)
    return render_shared (self, buffer);
  if (GST_BUFFER_OFFSET_IS_VALID (buffer)
      && GST_BUFFER_OFFSET (buffer) != self->next_row)
    GST_WARNING_OBJECT (self, "rows %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT
        " follow row %" G_GUINT64_FORMAT "; writing them in arrival order",
        GST_BUFFER_OFFSET (buffer), GST_BUFFER_OFFSET_END (buffer),
        self->next_row);
  if (GST_BUFFER_OFFSET_END_IS_VALID (buffer))
    self->next_row = GST_BUFFER_OFFSET_END (buffer);

  /* unlock() wakes a write waiting for room in the queue both for a flush
   * and for PLAYING to PAUSED: the chunk then waits in preroll, as
   * GstBaseSink asks, and is written on PLAYING, or dropped on a flush.
   * (A writer that is not open, after a failed restart, says FLUSHING
   * too: the stream stops there.) */
  while ((ret = plan_file_writer_write (self->writer, gst_buffer_ref (buffer),
              &err)) == GST_FLOW_FLUSHING && self->open) {
    GST_DEBUG_OBJECT (self, "woken while waiting for the writer: waiting "
        "in preroll");
    ret = gst_base_sink_wait_preroll (sink);
    if (ret != GST_FLOW_OK) {
      GST_DEBUG_OBJECT (self, "flushing");
      return ret;
    }
  }
  if (ret == GST_FLOW_FLUSHING) {
    GST_DEBUG_OBJECT (self, "no file open: not writing");
    return ret;
  }
  if (ret != GST_FLOW_OK) {
    post_write_error (self, err);
    g_clear_error (&err);
    /* The stream failed here: the EOS a GstBaseSrc sends after the error
     * flow must not put the rows written before it in place. */
    cancel_writer (self);
    return ret;
  }
  if (self->row_size > 0)
    self->rows_received += gst_buffer_get_size (buffer) / self->row_size;
  return GST_FLOW_OK;
}

/* GstBaseSrc pushes EOS after a fatal flow error, upstream of it or in
 * it, so EOS alone does not mean success. When the caps announce the
 * number of rows, fewer rows than the segment covers means the stream was
 * cut short: the file is not put in place. */
static gboolean
check_complete (PlanFileSink * self)
{
  GstSegment *segment = &GST_BASE_SINK (self)->segment;
  gint64 expected = self->caps_rows;
  gchar *location;

  /* A rank's share says how many rows it has (a stencil's ranks have
   * others than their input's). */
  if (self->sharded && self->shard.n_rows >= 0)
    expected = self->shard.n_rows;

  if (expected < 0)
    return TRUE;
  GST_OBJECT_LOCK (self);
  /* The rows the segment selects: in rows, or in time at the caps' rate. */
  {
    guint64 first;
    gint64 end;

    if (plan_array_info_get_segment_rows (&self->info, segment, &first,
            &end)) {
      if (end >= 0)
        expected = MIN (expected, end);
      expected = MAX (0, expected - (gint64) first);
    }
  }
  location = g_strdup (self->location);
  GST_OBJECT_UNLOCK (self);

  if (self->rows_received > (guint64) expected) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Not writing '%s': %" G_GUINT64_FORMAT " rows came, more than the %"
            G_GINT64_FORMAT " the stream announced, so its caps do not "
            "describe it", location, self->rows_received, expected), (NULL));
    g_free (location);
    return FALSE;
  }
  if (self->rows_received == (guint64) expected) {
    g_free (location);
    return TRUE;
  }
  GST_ELEMENT_ERROR (self, STREAM, FAILED,
      ("Not writing '%s': the stream ended after %" G_GUINT64_FORMAT " of "
          "the %" G_GINT64_FORMAT " rows it announced, so it was cut short "
          "(by an error upstream?)", location, self->rows_received, expected),
      (NULL));
  g_free (location);
  return FALSE;
}

/* A file holds one array: a stream that begins (a STREAM_START of another
 * stream id, with no EOS between: GStreamer's concat plays its inputs one
 * after another so) once the caps of one came is refused, rather than
 * written on after it (it was, and the file was refused at EOS as more rows
 * than the last stream's caps announced). */
static gboolean
take_stream_start (PlanFileSink * self, GstEvent * event)
{
  const gchar *id = NULL;
  gchar *location;

  gst_event_parse_stream_start (event, &id);
  if (self->stream_id == NULL || g_strcmp0 (id, self->stream_id) == 0
      || !self->have_info || !(self->open || self->shard_writer)) {
    g_free (self->stream_id);
    self->stream_id = g_strdup (id);
    return TRUE;
  }
  GST_OBJECT_LOCK (self);
  location = g_strdup (self->location);
  GST_OBJECT_UNLOCK (self);
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("Not writing '%s': a second stream began after %" G_GUINT64_FORMAT
          " rows of the first (another stream id, with no EOS between: "
          "concat plays its inputs one after another so), and a file holds "
          "one array: give each stream a planfilesink of its own",
          location, self->rows_received),
      ("first stream '%s', then '%s'", self->stream_id, GST_STR_NULL (id)));
  g_free (location);
  /* Its rows, and the EOS after them, find no file open. */
  cancel_writer (self);
  return FALSE;
}

static gboolean
plan_file_sink_event (GstBaseSink * sink, GstEvent * event)
{
  PlanFileSink *self = PLAN_FILE_SINK (sink);
  GError *err = NULL;

  if (GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START
      && !take_stream_start (self, event)) {
    gst_event_unref (event);
    return FALSE;
  }

  /* Upstream posted why its stream ends without data: write nothing, and
   * post no error of our own about the missing data. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_DOWNSTREAM
      && gst_event_has_name (event, PLAN_EVENT_STREAM_FAILED)) {
    GST_DEBUG_OBJECT (self, "upstream failed: not writing");
    /* A shard writer's pool stops before the file it writes into goes
     * (cancel_writer()); upstream has told the other ranks why. */
    if (self->open || self->shard_writer)
      cancel_writer (self);
    self->upstream_failed = TRUE;
  }
  if (GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_DOWNSTREAM_STICKY
      && gst_event_has_name (event, PLAN_EVENT_SHARD) && !take_shard (self,
          event)) {
    gst_event_unref (event);
    return FALSE;
  }
  /* A segment in rows says which row comes first (after a seek, the row
   * sought): rows from there follow on, they are no gap. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT && !self->sharded) {
    const GstSegment *segment;
    guint64 first;
    gint64 end;

    gst_event_parse_segment (event, &segment);
    if (plan_array_info_get_segment_rows (&self->info, segment, &first,
            &end))
      self->next_row = first;
  }
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP && self->sharded) {
    /* A seek in a sharded run would be each rank's own. */
    GST_WARNING_OBJECT (self, "flushed in a sharded run: the shared output "
        "is not started over");
    return GST_BASE_SINK_CLASS (parent_class)->event (sink, event);
  }
  /* The EOS a GstBaseSrc sends after the NOT_NEGOTIATED of caps refused
   * (their error posted): the stream failed, nothing is put in place. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->caps_refused
      && (self->open || self->shard_writer)) {
    GST_DEBUG_OBJECT (self, "EOS after caps were refused: not writing");
    cancel_writer (self);
    return GST_BASE_SINK_CLASS (parent_class)->event (sink, event);
  }
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->shard_writer) {
    gboolean ok;

    self->open = FALSE;
    if (!check_complete (self)) {
      cancel_writer (self);
      gst_event_unref (event);
      return FALSE;
    }
    ok = plan_shard_writer_finish_full (self->shard_writer,
        self->shard_cancellable, &err);
    g_clear_pointer (&self->shard_writer, plan_shard_writer_free);
    if (!ok && g_cancellable_is_cancelled (self->shard_cancellable)) {
      /* Stopped (a state change, a flush) while waiting for the other
       * ranks: not an error of the stream; nothing was put in place. */
      GST_INFO_OBJECT (self, "rank %u: stopped at EOS: %s",
          self->shard.rank, err->message);
      g_error_free (err);
      gst_event_unref (event);
      return FALSE;
    }
    if (!ok) {
      post_write_error (self, err);
      g_error_free (err);
      gst_event_unref (event);
      return FALSE;
    }
    GST_INFO_OBJECT (self, "rank %u: the shared output is in place",
        self->shard.rank);
    return GST_BASE_SINK_CLASS (parent_class)->event (sink, event);
  }
  /* A flush also takes back an EOS message from before it that a bin
   * above still holds (posted while the pipeline was leaving PLAYING): it
   * would end the pipeline at its next PLAYING, before the rows that
   * follow the flush are written. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
    gboolean ret = GST_BASE_SINK_CLASS (parent_class)->event (sink, event);

    plan_sink_forget_eos (GST_ELEMENT (sink));
    restart_writer (self);
    return ret;
  }
  /* The file must be in place before the EOS message goes out, since
   * applications read it as soon as they see that message. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->open) {
    guint64 end_row;

    self->open = FALSE;
    /* An EOS that ends the stream early on purpose (the application sent
     * it to the source): the file holds the rows received, its header
     * says how many. */
    if (plan_eos_is_ended_early (event, &end_row))
      GST_INFO_OBJECT (self, "the stream was ended early at row %"
          G_GUINT64_FORMAT ": writing the %" G_GUINT64_FORMAT " rows "
          "received", end_row, self->rows_received);
    else if (!check_complete (self)) {
      plan_file_writer_cancel (self->writer);
      gst_event_unref (event);
      return FALSE;
    }
    if (!plan_file_writer_finish (self->writer, &err)) {
      post_write_error (self, err);
      g_error_free (err);
      gst_event_unref (event);
      return FALSE;
    }
  }
  return GST_BASE_SINK_CLASS (parent_class)->event (sink, event);
}

static gboolean
plan_file_sink_query (GstBaseSink * sink, GstQuery * query)
{
  PlanFileSink *self = PLAN_FILE_SINK (sink);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_URI:{
      gchar *uri = NULL;

      GST_OBJECT_LOCK (self);
      if (self->location)
        uri = gst_filename_to_uri (self->location, NULL);
      GST_OBJECT_UNLOCK (self);
      if (uri == NULL)
        return FALSE;
      gst_query_set_uri (query, uri);
      g_free (uri);
      return TRUE;
    }
    default:
      return GST_BASE_SINK_CLASS (parent_class)->query (sink, query);
  }
}

static gboolean
plan_file_sink_unlock (GstBaseSink * sink)
{
  plan_file_writer_set_flushing (PLAN_FILE_SINK (sink)->writer, TRUE);
  g_cancellable_cancel (PLAN_FILE_SINK (sink)->shard_cancellable);
  return TRUE;
}

static gboolean
plan_file_sink_unlock_stop (GstBaseSink * sink)
{
  plan_file_writer_set_flushing (PLAN_FILE_SINK (sink)->writer, FALSE);
  g_cancellable_reset (PLAN_FILE_SINK (sink)->shard_cancellable);
  return TRUE;
}

static GstURIType
plan_file_sink_uri_get_type (GType type)
{
  return GST_URI_SINK;
}

static gchar *
plan_file_sink_uri_get_uri (GstURIHandler * handler)
{
  return plan_file_uri_from_location (GST_OBJECT (handler),
      &PLAN_FILE_SINK (handler)->location);
}

static gboolean
plan_file_sink_uri_set_uri (GstURIHandler * handler, const gchar * uri,
    GError ** error)
{
  PlanFileSink *self = PLAN_FILE_SINK (handler);
  gchar *location;
  gboolean ok;

  location = plan_file_uri_to_location (uri, error);
  if (location == NULL)
    return FALSE;
  ok = plan_file_sink_set_location (self, location, error);
  g_free (location);
  return ok;
}

static void
plan_file_sink_uri_handler_init (gpointer g_iface, gpointer iface_data)
{
  GstURIHandlerInterface *iface = (GstURIHandlerInterface *) g_iface;

  iface->get_type = plan_file_sink_uri_get_type;
  iface->get_protocols = plan_file_uri_get_protocols;
  iface->get_uri = plan_file_sink_uri_get_uri;
  iface->set_uri = plan_file_sink_uri_set_uri;
}
