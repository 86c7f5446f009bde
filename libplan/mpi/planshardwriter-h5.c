/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanShardWriter's compressed HDF5 output (planshardwriter.c says how the
 * ranks share an output): the pool of threads that filters a rank's whole
 * chunks, rank 0 writing its own into the file (H5Dwrite_chunk()), the
 * other ranks' spool files with their table, and rank 0 reading the
 * spools at the end and completing the chunks that straddle two shares.
 * Built only with HDF5 (HAVE_HDF5). */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planshardwriter-private.h"
#include <libplan/planerror.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#define GST_CAT_DEFAULT plan_shard_writer_debug

/* Chunks filtered at once per thread of a pool, at most (as a Zarr
 * writer's). */
#define CHUNKS_PER_THREAD 2

/* The spools' names beside the temporary file @tmp_path, but their
 * rank (".NAME.XXXXXX.part" -> ".NAME.XXXXXX.s"). */
gchar *
_plan_shard_writer_spools_prefix (const gchar * tmp_path)
{
  gsize n = strlen (tmp_path);

  if (g_str_has_suffix (tmp_path, ".part"))
    n -= strlen (".part");
  return g_strdup_printf ("%.*s.s", (int) n, tmp_path);
}

/* The spool of @rank beside the temporary file @tmp_path
 * (".NAME.XXXXXX.part" -> ".NAME.XXXXXX.s<rank>"). */
static gchar *
spool_path_for (const gchar * tmp_path, guint rank)
{
  gchar *prefix = _plan_shard_writer_spools_prefix (tmp_path);
  gchar *path = g_strdup_printf ("%s%u", prefix, rank);

  g_free (prefix);
  return path;
}

static void filter_task (gpointer data, gpointer user_data);

/* The pool that filters this rank's chunks of a compressed HDF5 output,
 * and the partial chunks. */
void
_plan_shard_writer_start_filtering (PlanShardWriter * w)
{
  guint threads = CLAMP (g_get_num_processors (), 1, 16);

  w->partial = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      _plan_shard_writer_partial_free);
  w->max_tasks = threads * CHUNKS_PER_THREAD;
  w->pool = g_thread_pool_new (filter_task, w, threads, FALSE, NULL);
}

/* A rank but 0 of a compressed HDF5 output: its spool, beside the file
 * rank 0 made (planshardwriter.c has checked that the file is there). */
gboolean
_plan_shard_writer_open_spool (PlanShardWriter * w, GError ** error)
{
  w->spool_path = spool_path_for (w->tmp_path, plan_comm_get_rank (w->comm));
  w->spool_fd = g_open (w->spool_path, O_RDWR | O_CREAT | O_EXCL |
      O_CLOEXEC, 0666);
  if (w->spool_fd < 0) {
    _plan_shard_writer_set_io_error (error, "create the spool file",
        w->spool_path);
    g_clear_pointer (&w->spool_path, g_free);
    return FALSE;
  }
  _plan_shard_writer_remember_temp (w->spool_path);
  w->spool_table = g_array_new (FALSE, FALSE, sizeof (SpoolEntry));
  _plan_shard_writer_start_filtering (w);
  return TRUE;
}

/* Appends @size bytes to this rank's spool, with their entry. Any
 * thread: the place is taken under the lock, written outside it. */
static gboolean
spool (PlanShardWriter * w, const guint8 * data, gsize size,
    SpoolEntry * entry, GError ** error)
{
  g_mutex_lock (&w->lock);
  entry->offset = w->spool_end;
  entry->size = size;
  w->spool_end += size;
  g_mutex_unlock (&w->lock);
  if (!_plan_shard_writer_pwrite_to (w->spool_fd, w->spool_path, data, size,
          entry->offset, error))
    return FALSE;
  g_mutex_lock (&w->lock);
  g_array_append_val (w->spool_table, *entry);
  g_mutex_unlock (&w->lock);
  return TRUE;
}

/* A whole chunk for the pool, padded to a chunk's size. */
typedef struct
{
  guint64 index;
  guint8 *data;
} FilterTask;

/* A thread of the pool: filters a chunk, and writes it (rank 0) or
 * spools it (the others). */
static void
filter_task (gpointer data, gpointer user_data)
{
  FilterTask *t = data;
  PlanShardWriter *w = user_data;
  GError *err = NULL;
  gboolean failed;
  guint8 *filtered = NULL;
  gsize size;
  guint32 mask;

  g_mutex_lock (&w->lock);
  failed = w->pool_error != NULL;
  g_mutex_unlock (&w->lock);
  if (!failed)
    filtered = _plan_h5_chunk_encode (&w->layout.filters, t->data, &size,
        &mask, &err);
  if (filtered == NULL && err)
    g_prefix_error (&err, "Could not write '%s': ", w->location);
  if (filtered && plan_comm_get_rank (w->comm) == 0) {
    _plan_file_writer_write_shared_chunk (w->file_writer, t->index, mask,
        filtered, size, &err);
  } else if (filtered) {
    SpoolEntry e = { t->index, 0, 0, 0, 0, mask, 0 };

    spool (w, filtered, size, &e, &err);
  }
  g_free (filtered);
  g_free (t->data);
  g_free (t);

  g_mutex_lock (&w->lock);
  if (err && w->pool_error == NULL)
    w->pool_error = err;
  else
    g_clear_error (&err);
  w->tasks--;
  g_cond_broadcast (&w->done_cond);
  g_mutex_unlock (&w->lock);
}

/* Waits for the pool's chunks; FALSE with the first failure. */
gboolean
_plan_shard_writer_drain_pool (PlanShardWriter * w, GError ** error)
{
  gboolean ok;

  g_mutex_lock (&w->lock);
  while (w->tasks > 0)
    g_cond_wait (&w->done_cond, &w->lock);
  ok = w->pool_error == NULL;
  if (!ok)
    g_propagate_error (error, g_error_copy (w->pool_error));
  g_mutex_unlock (&w->lock);
  return ok;
}

/* A whole HDF5 chunk of @n_rows rows (fewer than a chunk's at the
 * array's end): rank 0 assembling the chunks at the end writes it
 * through libhdf5; else it is filtered here and written (rank 0) or
 * spooled (the others). */
gboolean
_plan_shard_writer_h5_chunk_done (PlanShardWriter * w, guint64 index,
    const guint8 * data, guint64 n_rows, GError ** error)
{
  const PlanH5Filters *f = &w->layout.filters;
  gsize bytes = n_rows * w->row_size;
  FilterTask *t;

  if (w->assembling)
    return _plan_file_writer_write_shared_rows (w->file_writer,
        index * w->layout.chunk_rows, data, n_rows, error);
  g_mutex_lock (&w->lock);
  while (w->tasks >= w->max_tasks && w->pool_error == NULL)
    g_cond_wait (&w->done_cond, &w->lock);
  if (w->pool_error) {
    g_propagate_error (error, g_error_copy (w->pool_error));
    g_mutex_unlock (&w->lock);
    return FALSE;
  }
  w->tasks++;
  g_mutex_unlock (&w->lock);
  t = g_new (FilterTask, 1);
  t->index = index;
  /* The last chunk whole in the file, the rows past the array's end zero,
   * as libhdf5 fills them. */
  t->data = g_malloc (f->chunk_bytes);
  memcpy (t->data, data, bytes);
  memset (t->data + bytes, 0, f->chunk_bytes - bytes);
  g_thread_pool_push (w->pool, t, NULL);
  return TRUE;
}

/* A rank but 0 of a compressed HDF5 output: the rows it has of chunks it
 * does not have whole, then the table, into its spool; where the table
 * is, to rank 0. */
gboolean
_plan_shard_writer_close_spool (PlanShardWriter * w, GError ** error)
{
  GHashTableIter it;
  gpointer key, value;
  SpoolWhere where;
  GBytes *msg;
  guint8 *b;
  gboolean ok = _plan_shard_writer_drain_pool (w, error);

  g_hash_table_iter_init (&it, w->partial);
  while (ok && g_hash_table_iter_next (&it, &key, &value)) {
    Partial *p = value;
    guint64 i = 0;

    /* Each run of rows it has. */
    while (ok && i < p->n_rows) {
      SpoolEntry e = { *(gint64 *) key, 0, 0, 0, 0, 0, 0 };
      guint64 j;

      if (!p->set[i]) {
        i++;
        continue;
      }
      for (j = i; j < p->n_rows && p->set[j]; j++);
      e.first = i;
      e.n_rows = j - i;
      ok = spool (w, p->data + i * w->row_size, e.n_rows * w->row_size, &e,
          error);
      i = j;
    }
  }
  g_hash_table_remove_all (w->partial);
  where.table_offset = w->spool_end;
  where.n_entries = w->spool_table->len;
  ok = ok && _plan_shard_writer_pwrite_to (w->spool_fd, w->spool_path,
      (const guint8 *) w->spool_table->data,
      w->spool_table->len * sizeof (SpoolEntry), w->spool_end, error);
  if (close (w->spool_fd) != 0 && ok)
    ok = _plan_shard_writer_set_io_error (error, "close", w->spool_path);
  w->spool_fd = -1;
  if (!ok)
    return FALSE;
  b = g_malloc (1 + sizeof where);
  b[0] = SPOOL;
  memcpy (b + 1, &where, sizeof where);
  msg = g_bytes_new_take (b, 1 + sizeof where);
  plan_comm_send (w->comm, 0, w->done_tag, msg);
  g_bytes_unref (msg);
  return TRUE;
}

static gboolean
pread_full (gint fd, const gchar * path, guint8 * p, gsize left, goffset at,
    GError ** error)
{
  while (left > 0) {
    gssize done = pread (fd, p, left, at);

    if (done < 0 && errno == EINTR)
      continue;
    if (done < 0)
      return _plan_shard_writer_set_io_error (error, "read", path);
    if (done == 0) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_IO, "could not read "
          "'%s': it ends before its table says", path);
      return FALSE;
    }
    p += done;
    at += done;
    left -= done;
  }
  return TRUE;
}

/* The entries read at once from a spool's table. */
#define TABLE_BLOCK 1024

/* Rank 0: rank @r's spool into the file, a chunk at a time. */
static gboolean
take_spool (PlanShardWriter * w, guint r, const SpoolWhere * where,
    GError ** error)
{
  gchar *path = spool_path_for (w->tmp_path, r);
  const PlanH5Filters *f = &w->layout.filters;
  guint64 n_chunks = (w->total + w->layout.chunk_rows - 1) /
      w->layout.chunk_rows;
  /* deflate's worst case, and then some */
  gsize max_size = f->chunk_bytes + f->chunk_bytes / 100 + 1024;
  SpoolEntry *table = g_new (SpoolEntry, TABLE_BLOCK);
  guint8 *buf = NULL;
  gsize buf_size = 0;
  gboolean ok = TRUE;
  guint64 done = 0;
  gint fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);

  if (fd < 0)
    ok = _plan_shard_writer_set_io_error (error, "open the spool file", path);
  while (ok && done < where->n_entries) {
    guint64 n = MIN (TABLE_BLOCK, where->n_entries - done), i;

    ok = pread_full (fd, path, (guint8 *) table, n * sizeof (SpoolEntry),
        where->table_offset + done * sizeof (SpoolEntry), error);
    for (i = 0; ok && i < n; i++) {
      const SpoolEntry *e = &table[i];

      if (e->index >= n_chunks || (e->n_rows == 0 && e->size > max_size)
          || (e->n_rows > 0 && (e->first + e->n_rows >
                  _plan_shard_writer_chunk_n_rows (w, e->index)
                  || e->size != e->n_rows * w->row_size))
          || e->offset + e->size > where->table_offset) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "the spool file '%s' "
            "has a bad entry (chunk %" G_GUINT64_FORMAT ")", path, e->index);
        ok = FALSE;
        break;
      }
      if (e->size > buf_size) {
        g_free (buf);
        buf_size = e->size;
        buf = g_malloc (buf_size);
      }
      ok = pread_full (fd, path, buf, e->size, e->offset, error)
          && (e->n_rows == 0 ?
          _plan_file_writer_write_shared_chunk (w->file_writer, e->index,
              e->mask, buf, e->size, error) :
          _plan_shard_writer_add_to_partial (w, e->index, e->first, buf, NULL,
              e->n_rows, error));
    }
    done += n;
  }
  if (fd >= 0)
    close (fd);
  g_free (buf);
  g_free (table);
  g_free (path);
  return ok;
}

/* Rank 0: every rank's spool into the file, and the chunks that straddle
 * shares completed. @wheres: each rank's table (NULL for rank 0). */
gboolean
_plan_shard_writer_assemble_h5 (PlanShardWriter * w, SpoolWhere ** wheres,
    GError ** error)
{
  guint n = plan_comm_get_size (w->comm), r;
  gboolean ok = TRUE;
  gint64 start = g_get_monotonic_time ();
  guint64 entries = 0;

  w->assembling = TRUE;
  for (r = 1; ok && r < n; r++) {
    if (wheres[r])
      entries += wheres[r]->n_entries;
    if (wheres[r] == NULL) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "rank %u sent no table "
          "of its chunks", r);
      ok = FALSE;
    } else {
      ok = take_spool (w, r, wheres[r], error);
    }
  }
  if (ok)
    ok = _plan_shard_writer_check_partials_complete (w, error);
  g_hash_table_remove_all (w->partial);
  GST_INFO ("'%s': rank 0 wrote the %" G_GUINT64_FORMAT " pieces of the "
      "other ranks' spools in %.3f s", w->location, entries,
      (g_get_monotonic_time () - start) / 1e6);
  return ok;
}

/* Rank 0: the spools of the other ranks removed. */
void
_plan_shard_writer_remove_spools (PlanShardWriter * w)
{
  guint n = plan_comm_get_size (w->comm), r;

  for (r = 1; r < n; r++) {
    gchar *path = spool_path_for (w->tmp_path, r);

    g_unlink (path);
    g_free (path);
  }
}
