/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* A Zarr array written (v2 or v3) into a directory: chunks of whole rows,
 * encoded with zlib, gzip, zstd or blosc and written by a pool of threads
 * while rows keep coming, the .zarray (zarr.json) last. Reading, and the
 * store's groups, are in planzarr.c. Built only with Zarr (HAVE_ZARR). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/core/plan-private.h"
#include <libplan/planerror.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <zlib.h>
#if HAVE_ZSTD
#include <zstd.h>
#endif
#if HAVE_BLOSC
#include <blosc.h>
#endif

/* Writing: one array in a directory, chunked in whole rows, its chunks
 * encoded and written by a pool of threads while rows keep coming. */

/* Chunks encoded at once per thread of the pool, at most: the memory a
 * writer holds is about this many chunks per thread, twice over. */
#define CHUNKS_PER_THREAD 2

struct _PlanZarrWriter
{
  gchar *dir;
  PlanArrayInfo info;
  gsize row_size;
  guint64 chunk_rows;
  gsize chunk_bytes;
  PlanFileCodec codec;
  guint level;
  gboolean sync;
  gint version;                 /* 2 (.zarray) or 3 (zarr.json) */
  guint64 rows;                 /* rows appended so far */

  /* the chunk being filled, owner thread */
  guint8 *fill;
  guint64 fill_rows;

  GThreadPool *pool;
  guint max_tasks;

  /* protected by lock */
  GMutex lock;
  GCond done_cond;
  guint tasks;                  /* chunks queued or being encoded */
  GError *error;                /* the first failure */
};

typedef struct
{
  PlanZarrWriter *w;
  guint64 index;
  guint8 *data;
} ChunkTask;

static const gchar *
dtype_code (PlanDType dtype)
{
  switch (dtype) {
    case PLAN_DTYPE_BOOL:
      return "|b1";
    case PLAN_DTYPE_INT8:
      return "|i1";
    case PLAN_DTYPE_UINT8:
      return "|u1";
    case PLAN_DTYPE_INT16:
      return "<i2";
    case PLAN_DTYPE_UINT16:
      return "<u2";
    case PLAN_DTYPE_INT32:
      return "<i4";
    case PLAN_DTYPE_UINT32:
      return "<u4";
    case PLAN_DTYPE_INT64:
      return "<i8";
    case PLAN_DTYPE_UINT64:
      return "<u8";
    case PLAN_DTYPE_FLOAT32:
      return "<f4";
    case PLAN_DTYPE_FLOAT64:
      return "<f8";
    case PLAN_DTYPE_FLOAT16:
      return "<f2";
    case PLAN_DTYPE_COMPLEX64:
      return "<c8";
    case PLAN_DTYPE_COMPLEX128:
      return "<c16";
    default:
      return NULL;
  }
}

/* Encodes @size bytes of @data as the writer's codec says; returns the
 * encoded bytes (@data itself when not compressed) or NULL. */
static guint8 *
encode_chunk (PlanZarrWriter * w, guint8 * data, gsize size, gsize * out)
{
  guint8 *enc = NULL;

  if (w->level == 0) {
    *out = size;
    return data;
  }
  switch (w->codec) {
    case PLAN_FILE_CODEC_GZIP:{
      z_stream zs = { 0 };
      gsize bound;

      if (deflateInit2 (&zs, w->level, Z_DEFLATED, 16 + MAX_WBITS, 8,
              Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
      bound = deflateBound (&zs, size) + 32;
      enc = g_malloc (bound);
      zs.next_in = data;
      zs.avail_in = size;
      zs.next_out = enc;
      zs.avail_out = bound;
      if (deflate (&zs, Z_FINISH) != Z_STREAM_END)
        g_clear_pointer (&enc, g_free);
      *out = zs.total_out;
      deflateEnd (&zs);
      break;
    }
#if HAVE_ZSTD
    case PLAN_FILE_CODEC_AUTO:
    case PLAN_FILE_CODEC_ZSTD:{
      gsize bound = ZSTD_compressBound (size), n;

      enc = g_malloc (bound);
      n = ZSTD_compress (enc, bound, data, size, w->level);
      if (ZSTD_isError (n))
        g_clear_pointer (&enc, g_free);
      *out = n;
      break;
    }
#endif
#if HAVE_BLOSC
    case PLAN_FILE_CODEC_BLOSC_LZ4:
    case PLAN_FILE_CODEC_BLOSC_ZSTD:{
      gsize bound = size + BLOSC_MAX_OVERHEAD;
      gint n;

      enc = g_malloc (bound);
      /* Opened by _plan_zarr_writer_create (). */
      n = _plan_zarr_blosc (NULL)->compress_ctx (w->level, BLOSC_SHUFFLE,
          plan_dtype_get_size (w->info.dtype), size, data, enc, bound,
          w->codec == PLAN_FILE_CODEC_BLOSC_LZ4 ? "lz4" : "zstd", 0, 1);
      if (n <= 0)
        g_clear_pointer (&enc, g_free);
      *out = n;
      break;
    }
#endif
    default:
      break;
  }
  return enc;
}

static gboolean
write_file (const gchar * file, const guint8 * data, gsize size,
    gboolean sync, GError ** error)
{
  gint fd = open (file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

  if (fd < 0)
    goto failed;
  while (size > 0) {
    gssize n = write (fd, data, size);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      goto failed;
    data += n;
    size -= n;
  }
  if (sync && fsync (fd) < 0)
    goto failed;
  if (close (fd) < 0) {
    fd = -1;
    goto failed;
  }
  return TRUE;

failed:
  {
    gint err = errno ? errno : EIO;

    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
        "cannot write '%s': %s", file, g_strerror (err));
    if (fd >= 0)
      close (fd);
    return FALSE;
  }
}

/* The name of chunk @index (along the first axis; the chunk spans the
 * other axes whole). */
static gchar *
chunk_key (PlanZarrWriter * w, guint64 index)
{
  GString *key = g_string_new (NULL);
  guint d;

  if (w->version == 3) {
    /* v3's default keys: "c/2/0", "c" for a 0-d array. */
    g_string_append (key, "c");
    for (d = 0; d < w->info.ndim; d++)
      g_string_append_printf (key, "/%" G_GUINT64_FORMAT, d ? 0 : index);
    return g_string_free (key, FALSE);
  }
  g_string_append_printf (key, "%" G_GUINT64_FORMAT, index);
  for (d = 1; d < w->info.ndim; d++)
    g_string_append (key, ".0");
  return g_string_free (key, FALSE);
}

/* Makes the folders of @key ("c/2/0": c and c/2) under the store @dir,
 * one level at a time: never @dir itself, so that a chunk written after
 * the store was taken away (another rank's failure) fails rather than
 * make the store again. */
static gboolean
make_key_dirs (const gchar * dir, const gchar * key, GError ** error)
{
  const gchar *slash;

  for (slash = strchr (key, '/'); slash; slash = strchr (slash + 1, '/')) {
    gchar *part = g_strndup (key, slash - key);
    gchar *path = g_build_filename (dir, part, NULL);
    gboolean made = g_mkdir (path, 0777) == 0 || errno == EEXIST;

    if (!made)
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
          "cannot make '%s': %s", path, g_strerror (errno));
    g_free (path);
    g_free (part);
    if (!made)
      return FALSE;
  }
  return TRUE;
}

/* A thread of the pool: encodes a chunk and writes its file. */
static void
encode_task (gpointer data, gpointer user_data)
{
  ChunkTask *t = data;
  PlanZarrWriter *w = t->w;
  GError *err = NULL;
  gboolean failed;
  gsize size = 0;
  guint8 *enc;

  g_mutex_lock (&w->lock);
  failed = w->error != NULL;
  g_mutex_unlock (&w->lock);
  if (!failed) {
    gchar *key = chunk_key (w, t->index);
    gchar *file = g_build_filename (w->dir, key, NULL);

    if (w->version == 3 && w->info.ndim > 0)
      make_key_dirs (w->dir, key, &err);
    enc = err ? NULL : encode_chunk (w, t->data, w->chunk_bytes, &size);
    if (err)
      ;
    else if (enc == NULL)
      g_set_error (&err, PLAN_ERROR, PLAN_ERROR_IO, "cannot compress its "
          "chunk '%s'", key);
    else
      write_file (file, enc, size, w->sync, &err);
    if (enc != t->data)
      g_free (enc);
    g_free (file);
    g_free (key);
  }
  g_free (t->data);
  g_free (t);

  g_mutex_lock (&w->lock);
  if (err && w->error == NULL)
    w->error = err;
  else
    g_clear_error (&err);
  w->tasks--;
  g_cond_broadcast (&w->done_cond);
  g_mutex_unlock (&w->lock);
}

/* Hands the filled chunk to the pool (padded with the fill value, zero),
 * waiting while the pool has max_tasks chunks. */
static gboolean
submit_chunk (PlanZarrWriter * w, GError ** error)
{
  ChunkTask *t;
  guint64 index = (w->rows - w->fill_rows) / w->chunk_rows;

  g_mutex_lock (&w->lock);
  while (w->tasks >= w->max_tasks && w->error == NULL)
    g_cond_wait (&w->done_cond, &w->lock);
  if (w->error) {
    g_propagate_error (error, g_error_copy (w->error));
    g_mutex_unlock (&w->lock);
    return FALSE;
  }
  w->tasks++;
  g_mutex_unlock (&w->lock);

  if (w->fill_rows < w->chunk_rows)
    memset (w->fill + w->fill_rows * w->row_size, 0,
        (w->chunk_rows - w->fill_rows) * w->row_size);
  t = g_new (ChunkTask, 1);
  t->w = w;
  t->index = index;
  t->data = w->fill;
  w->fill = g_malloc (w->chunk_bytes);
  w->fill_rows = 0;
  g_thread_pool_push (w->pool, t, NULL);
  return TRUE;
}

static JsonNode *
compressor_node (PlanZarrWriter * w)
{
  JsonBuilder *b;
  JsonNode *node;

  if (w->level == 0)
    return json_node_new (JSON_NODE_NULL);
  b = json_builder_new ();
  json_builder_begin_object (b);
  switch (w->codec) {
    case PLAN_FILE_CODEC_GZIP:
      json_builder_set_member_name (b, "id");
      json_builder_add_string_value (b, "gzip");
      json_builder_set_member_name (b, "level");
      json_builder_add_int_value (b, w->level);
      break;
    case PLAN_FILE_CODEC_BLOSC_LZ4:
    case PLAN_FILE_CODEC_BLOSC_ZSTD:
      json_builder_set_member_name (b, "id");
      json_builder_add_string_value (b, "blosc");
      json_builder_set_member_name (b, "cname");
      json_builder_add_string_value (b, w->codec == PLAN_FILE_CODEC_BLOSC_LZ4
          ? "lz4" : "zstd");
      json_builder_set_member_name (b, "clevel");
      json_builder_add_int_value (b, w->level);
      /* 1: byte shuffle, as encode_chunk () asks blosc for. */
      json_builder_set_member_name (b, "shuffle");
      json_builder_add_int_value (b, 1);
      json_builder_set_member_name (b, "blocksize");
      json_builder_add_int_value (b, 0);
      break;
    default:
      json_builder_set_member_name (b, "id");
      json_builder_add_string_value (b, "zstd");
      json_builder_set_member_name (b, "level");
      json_builder_add_int_value (b, w->level);
      break;
  }
  json_builder_end_object (b);
  node = json_builder_get_root (b);
  g_object_unref (b);
  return node;
}

static const gchar *
v3_data_type (PlanDType dtype)
{
  return plan_dtype_to_string (dtype);
}

/* The codecs list of a v3 array. */
static JsonNode *
v3_codecs_node (PlanZarrWriter * w)
{
  JsonBuilder *b = json_builder_new ();
  JsonNode *node;

  json_builder_begin_array (b);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, "bytes");
  if (plan_dtype_get_size (w->info.dtype) > 1) {
    json_builder_set_member_name (b, "configuration");
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "endian");
    json_builder_add_string_value (b, "little");
    json_builder_end_object (b);
  }
  json_builder_end_object (b);
  if (w->level > 0) {
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "name");
    switch (w->codec) {
      case PLAN_FILE_CODEC_GZIP:
        json_builder_add_string_value (b, "gzip");
        json_builder_set_member_name (b, "configuration");
        json_builder_begin_object (b);
        json_builder_set_member_name (b, "level");
        json_builder_add_int_value (b, w->level);
        json_builder_end_object (b);
        break;
      case PLAN_FILE_CODEC_BLOSC_LZ4:
      case PLAN_FILE_CODEC_BLOSC_ZSTD:
        json_builder_add_string_value (b, "blosc");
        json_builder_set_member_name (b, "configuration");
        json_builder_begin_object (b);
        json_builder_set_member_name (b, "cname");
        json_builder_add_string_value (b, w->codec ==
            PLAN_FILE_CODEC_BLOSC_LZ4 ? "lz4" : "zstd");
        json_builder_set_member_name (b, "clevel");
        json_builder_add_int_value (b, w->level);
        json_builder_set_member_name (b, "shuffle");
        json_builder_add_string_value (b, "shuffle");
        json_builder_set_member_name (b, "typesize");
        json_builder_add_int_value (b, plan_dtype_get_size (w->info.dtype));
        json_builder_set_member_name (b, "blocksize");
        json_builder_add_int_value (b, 0);
        json_builder_end_object (b);
        break;
      default:
        json_builder_add_string_value (b, "zstd");
        json_builder_set_member_name (b, "configuration");
        json_builder_begin_object (b);
        json_builder_set_member_name (b, "level");
        json_builder_add_int_value (b, w->level);
        json_builder_set_member_name (b, "checksum");
        json_builder_add_boolean_value (b, FALSE);
        json_builder_end_object (b);
        break;
    }
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  node = json_builder_get_root (b);
  g_object_unref (b);
  return node;
}

/* The fill value, zero, as the dtype writes it: complex as the list of
 * its parts, [0.0, 0.0], as zarr-python writes it. */
static void
add_fill_value (JsonBuilder * b, PlanZarrWriter * w)
{
  if (w->info.dtype == PLAN_DTYPE_BOOL) {
    json_builder_add_boolean_value (b, FALSE);
  } else if (w->info.dtype == PLAN_DTYPE_COMPLEX64
      || w->info.dtype == PLAN_DTYPE_COMPLEX128) {
    json_builder_begin_array (b);
    json_builder_add_double_value (b, 0.0);
    json_builder_add_double_value (b, 0.0);
    json_builder_end_array (b);
  } else if (plan_dtype_is_float (w->info.dtype)) {
    json_builder_add_double_value (b, 0.0);
  } else {
    json_builder_add_int_value (b, 0);
  }
}

/* The metadata of the array as written: its shape counts the rows. */
static gchar *
zarray_text (PlanZarrWriter * w)
{
  JsonBuilder *b = json_builder_new ();
  JsonGenerator *gen = json_generator_new ();
  JsonNode *root;
  gchar *text;
  guint d;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "zarr_format");
  json_builder_add_int_value (b, w->version);
  if (w->version == 3) {
    json_builder_set_member_name (b, "node_type");
    json_builder_add_string_value (b, "array");
  }
  json_builder_set_member_name (b, "shape");
  json_builder_begin_array (b);
  for (d = 0; d < w->info.ndim; d++)
    json_builder_add_int_value (b, d == 0 ? (gint64) w->rows :
        w->info.shape[d]);
  json_builder_end_array (b);
  if (w->version == 3) {
    json_builder_set_member_name (b, "data_type");
    json_builder_add_string_value (b, v3_data_type (w->info.dtype));
    json_builder_set_member_name (b, "chunk_grid");
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "name");
    json_builder_add_string_value (b, "regular");
    json_builder_set_member_name (b, "configuration");
    json_builder_begin_object (b);
  }
  json_builder_set_member_name (b, w->version == 3 ? "chunk_shape" :
      "chunks");
  json_builder_begin_array (b);
  for (d = 0; d < w->info.ndim; d++)
    json_builder_add_int_value (b, d == 0 ? (gint64) w->chunk_rows :
        MAX (w->info.shape[d], 1));
  json_builder_end_array (b);
  if (w->version == 3) {
    json_builder_end_object (b);
    json_builder_end_object (b);
    json_builder_set_member_name (b, "chunk_key_encoding");
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "name");
    json_builder_add_string_value (b, "default");
    json_builder_set_member_name (b, "configuration");
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "separator");
    json_builder_add_string_value (b, "/");
    json_builder_end_object (b);
    json_builder_end_object (b);
    json_builder_set_member_name (b, "codecs");
    json_builder_add_value (b, v3_codecs_node (w));
    json_builder_set_member_name (b, "fill_value");
    add_fill_value (b, w);
    json_builder_set_member_name (b, "attributes");
    json_builder_begin_object (b);
    json_builder_end_object (b);
    json_builder_end_object (b);
    goto generate;
  }
  json_builder_set_member_name (b, "dtype");
  json_builder_add_string_value (b, dtype_code (w->info.dtype));
  json_builder_set_member_name (b, "compressor");
  json_builder_add_value (b, compressor_node (w));
  json_builder_set_member_name (b, "fill_value");
  add_fill_value (b, w);
  json_builder_set_member_name (b, "order");
  json_builder_add_string_value (b, "C");
  json_builder_set_member_name (b, "filters");
  json_builder_add_null_value (b);
  json_builder_set_member_name (b, "dimension_separator");
  json_builder_add_string_value (b, ".");
  json_builder_end_object (b);

generate:
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  text = json_generator_to_data (gen, NULL);
  json_node_unref (root);
  g_object_unref (gen);
  g_object_unref (b);
  return text;
}

/**
 * _plan_zarr_writer_create:
 * @dir: the array's directory, which exists and is empty
 * @info: its dtype and row shape (`shape[0]` is ignored)
 * @chunk_rows: the rows of a chunk, at least 1 (PlanFileWriter chooses
 *   the default)
 * @codec: the compressor when @level > 0; %PLAN_FILE_CODEC_AUTO is zstd
 * @level: 0 for none, 1 to 9
 * @version: 2 (a .zarray, chunks "2.0") or 3 (a zarr.json, chunks "c/2/0")
 * @sync: whether each file is fsync()ed as it is written
 * @error: return location for a #GError (without the store's name)
 *
 * Returns: (transfer full): the writer, or %NULL when the codec is not
 *   built in.
 */
PlanZarrWriter *
_plan_zarr_writer_create (const gchar * dir, const PlanArrayInfo * info,
    guint64 chunk_rows, PlanFileCodec codec, guint level, gint version,
    gboolean sync, GError ** error)
{
  PlanZarrWriter *w;
  gsize row_size = plan_array_info_get_row_size (info);
  guint threads;

  if (level > 0 && ((!HAVE_ZSTD && (codec == PLAN_FILE_CODEC_ZSTD
                  || codec == PLAN_FILE_CODEC_AUTO)) || (!HAVE_BLOSC
              && (codec == PLAN_FILE_CODEC_BLOSC_LZ4
                  || codec == PLAN_FILE_CODEC_BLOSC_ZSTD)))) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "this gst-plan "
        "was built without the %s codec (install lib%s-dev and build it "
        "again); gzip is always there", codec == PLAN_FILE_CODEC_ZSTD
        || codec == PLAN_FILE_CODEC_AUTO ? "zstd" : "blosc",
        codec == PLAN_FILE_CODEC_ZSTD || codec == PLAN_FILE_CODEC_AUTO ?
        "zstd" : "blosc");
    return NULL;
  }
#if HAVE_BLOSC
  if (level > 0 && (codec == PLAN_FILE_CODEC_BLOSC_LZ4
          || codec == PLAN_FILE_CODEC_BLOSC_ZSTD) && !_plan_zarr_blosc (error))
    return NULL;
#endif
  if (dtype_code (info->dtype) == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Zarr arrays of "
        "dtype %s are not written; only bool, integers, float16, float32, "
        "float64, complex64 and complex128 are", plan_dtype_to_string (info->dtype));
    return NULL;
  }
  if (info->ndim > 0 && row_size > ((gsize) 1 << 30)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "a row of %"
        G_GSIZE_FORMAT " bytes is more than a chunk of at most 1 GiB, as "
        "written here, can hold", row_size);
    return NULL;
  }

  w = g_new0 (PlanZarrWriter, 1);
  w->dir = g_strdup (dir);
  w->info = *info;
  w->row_size = row_size;
  if (info->ndim == 0)
    chunk_rows = 1;
  g_assert (chunk_rows > 0);
  /* At most 1 GiB a chunk: blosc takes less than 2 GiB. */
  chunk_rows = MIN (chunk_rows, MAX (((gsize) 1 << 30) / MAX (row_size, 1),
          1));
  w->chunk_rows = chunk_rows;
  w->chunk_bytes = chunk_rows * MAX (row_size, 1);
  if (info->ndim == 0)
    w->chunk_bytes = plan_dtype_get_size (info->dtype);
  w->codec = codec;
  w->level = level;
  w->version = version;
  w->sync = sync;
  w->fill = g_malloc (w->chunk_bytes);
  g_mutex_init (&w->lock);
  g_cond_init (&w->done_cond);
  threads = CLAMP (g_get_num_processors (), 1, 16);
  w->max_tasks = threads * CHUNKS_PER_THREAD;
  w->pool = g_thread_pool_new (encode_task, NULL, threads, FALSE, NULL);
  return w;
}

/**
 * _plan_zarr_writer_append:
 * @w: a writer
 * @data: whole rows, C order
 * @n_rows: their number (for a 0-d array, 1, once)
 * @error: return location for a #GError (without the store's name)
 *
 * Adds rows; each chunk they fill goes to the pool, which encodes and
 * writes it while more rows come. Blocks while the pool is full. Fails
 * when an earlier chunk failed.
 */
gboolean
_plan_zarr_writer_append (PlanZarrWriter * w, const guint8 * data,
    guint64 n_rows, GError ** error)
{
  if (w->info.ndim == 0) {
    memcpy (w->fill, data, w->chunk_bytes);
    w->fill_rows = 1;
    w->rows += 1;
    return TRUE;
  }
  while (n_rows > 0) {
    guint64 n = MIN (n_rows, w->chunk_rows - w->fill_rows);

    memcpy (w->fill + w->fill_rows * w->row_size, data, n * w->row_size);
    w->fill_rows += n;
    w->rows += n;
    data += n * w->row_size;
    n_rows -= n;
    if (w->fill_rows == w->chunk_rows && !submit_chunk (w, error))
      return FALSE;
  }
  return TRUE;
}

/**
 * _plan_zarr_writer_get_layout:
 * @w: a writer
 *
 * The chunks' rows (as chosen when 0 was asked for), codec, level and
 * format version, with which another process's writer
 * (_plan_zarr_writer_create()) writes chunks of the same array.
 */
void
_plan_zarr_writer_get_layout (PlanZarrWriter * w, guint64 * chunk_rows,
    PlanFileCodec * codec, guint * level, gint * version)
{
  *chunk_rows = w->chunk_rows;
  *codec = w->codec;
  *level = w->level;
  *version = w->version;
}

/**
 * _plan_zarr_writer_set_rows:
 * @w: a writer that appends nothing
 * @rows: the rows of the array, whose chunks others write
 *
 * Sets the rows the metadata that _plan_zarr_writer_close() writes says.
 */
void
_plan_zarr_writer_set_rows (PlanZarrWriter * w, guint64 rows)
{
  w->rows = rows;
}

/**
 * _plan_zarr_writer_write_chunk:
 * @w: a writer that appends nothing
 * @index: the chunk's index along the first axis
 * @data: its rows, whole rows in C order
 * @n_rows: their number, at most a chunk's (the rest is the fill value)
 * @error: return location for a #GError (without the store's name)
 *
 * Hands the chunk to the pool, which encodes and writes it; blocks while
 * the pool is full. Fails when an earlier chunk failed.
 */
gboolean
_plan_zarr_writer_write_chunk (PlanZarrWriter * w, guint64 index,
    const guint8 * data, guint64 n_rows, GError ** error)
{
  g_return_val_if_fail (n_rows <= w->chunk_rows && w->info.ndim > 0, FALSE);

  memcpy (w->fill, data, n_rows * w->row_size);
  w->fill_rows = n_rows;
  /* submit_chunk () takes the chunk's index from the rows before it. */
  w->rows = index * w->chunk_rows + n_rows;
  return submit_chunk (w, error);
}

/* Waits for the pool, then frees everything. */
static void
free_writer (PlanZarrWriter * w)
{
  g_thread_pool_free (w->pool, FALSE, TRUE);
  g_clear_error (&w->error);
  g_mutex_clear (&w->lock);
  g_cond_clear (&w->done_cond);
  g_free (w->fill);
  g_free (w->dir);
  g_free (w);
}

/**
 * _plan_zarr_writer_close_chunks:
 * @w: (transfer full): a writer that wrote chunks
 *   (_plan_zarr_writer_write_chunk())
 * @error: return location for a #GError (without the store's name)
 *
 * Waits for the chunks written to be on disk and frees the writer,
 * without writing metadata (another writer of the array does).
 *
 * Returns: %TRUE when all were written.
 */
gboolean
_plan_zarr_writer_close_chunks (PlanZarrWriter * w, GError ** error)
{
  gboolean ok = TRUE;

  g_mutex_lock (&w->lock);
  while (w->tasks > 0)
    g_cond_wait (&w->done_cond, &w->lock);
  if (w->error) {
    g_propagate_error (error, g_error_copy (w->error));
    ok = FALSE;
  }
  g_mutex_unlock (&w->lock);
  free_writer (w);
  return ok;
}

/**
 * _plan_zarr_writer_close:
 * @w: (transfer full) (nullable): a writer
 * @error: (nullable): where a failure is said; %NULL to abandon the
 *   array (its directory is the caller's to remove)
 *
 * Writes the last, partial chunk (padded with the fill value), waits for
 * the pool and writes the .zarray (or zarr.json), whose shape counts the
 * rows appended.
 *
 * Returns: %TRUE when all was written.
 */
gboolean
_plan_zarr_writer_close (PlanZarrWriter * w, GError ** error)
{
  gboolean ok = TRUE;
  gchar *text, *file;

  if (w == NULL)
    return TRUE;
  if (error == NULL) {
    g_mutex_lock (&w->lock);
    if (w->error == NULL)
      g_set_error (&w->error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
    g_mutex_unlock (&w->lock);
    free_writer (w);
    return FALSE;
  }
  if (w->fill_rows > 0)
    ok = submit_chunk (w, error);
  g_mutex_lock (&w->lock);
  while (w->tasks > 0)
    g_cond_wait (&w->done_cond, &w->lock);
  if (ok && w->error) {
    g_propagate_error (error, g_error_copy (w->error));
    ok = FALSE;
  }
  g_mutex_unlock (&w->lock);
  if (ok) {
    text = zarray_text (w);
    file = g_build_filename (w->dir, w->version == 3 ? "zarr.json" :
        ".zarray", NULL);
    ok = write_file (file, (const guint8 *) text, strlen (text), w->sync,
        error);
    g_free (file);
    g_free (text);
  }
  free_writer (w);
  return ok;
}
