/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanShardWriter's state, shared by planshardwriter.c (the writer, the
 * .npy, raw, uncompressed HDF5 and Zarr outputs, the verdict) and
 * planshardwriter-h5.c (the compressed HDF5 output: the ranks' filtering
 * pools, their spools and rank 0's assembly of the chunks). */

#ifndef __PLAN_SHARD_WRITER_PRIVATE_H__
#define __PLAN_SHARD_WRITER_PRIVATE_H__

#include "planshardwriter.h"
#include "plancomm-private.h"
#include "libplan/core/plan-private.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (plan_shard_writer_debug);

/* Rows of a Zarr chunk that straddles shares, as far as they came. */
typedef struct
{
  guint64 n_rows;               /* the chunk's rows in the array */
  guint64 have;                 /* rows of them set */
  guint8 *set;                  /* one byte a row: 1 when it is set */
  guint8 *data;                 /* the chunk, whole rows */
} Partial;

/* The layout rank 0 sends with the name of an HDF5 or Zarr output,
 * followed by n_chunks offsets (HDF5 uncompressed) and the name. */
typedef struct
{
  guint64 chunk_rows;
  guint32 codec;
  guint32 level;
  gint32 version;
  guint32 filtered;             /* HDF5 compressed: the ranks filter */
  guint64 n_chunks;
#if HAVE_HDF5
  PlanH5Filters filters;        /* HDF5 compressed: how */
#endif
} Layout;

/* The first byte of a message to rank 0 on done_tag: an outcome is 0 or
 * 1 (failed, succeeded); a Zarr chunk's rows this one; where a spool's
 * table is (HDF5 compressed) SPOOL. */
#define PIECE 2
#define SPOOL 3

/* An entry of a spool's table (HDF5 compressed): a filtered chunk, or
 * raw rows of a chunk that straddles shares. */
typedef struct
{
  guint64 index;                /* the chunk */
  guint64 offset;               /* where its bytes are in the spool */
  guint64 size;                 /* how many */
  guint64 first;                /* raw rows: the first, in the chunk */
  guint64 n_rows;               /* raw rows: how many; 0: filtered */
  guint32 mask;                 /* filtered: the filters skipped */
  guint32 pad;
} SpoolEntry;

/* Rank 0: the spools of ranks 1 to n_ranks - 1, named prefix and their
 * rank (".NAME.XXXXXX.s2"). */
typedef struct
{
  gchar *prefix;
  guint n_ranks;
} SpoolNames;

/* The spool message: SPOOL, then where the table starts and its
 * entries. */
typedef struct
{
  guint64 table_offset;
  guint64 n_entries;
} SpoolWhere;

struct _PlanShardWriter
{
  PlanComm *comm;
  gchar *location;
  gchar *tmp_path;              /* the file (the array's directory for
                                 * Zarr) that rank 0 made */
  PlanFileFormat format;
  PlanArrayInfo info;
  gint fd;
  gint name_tag;                /* the name, then the verdict, from rank 0 */
  gint done_tag;                /* each rank's outcome, to rank 0 */
  gsize row_size;
  gsize header_size;
  guint64 total;
  guint64 rows_written;
  gboolean sync;
  gboolean finished;
  GCancellable *cancellable;    /* during plan_shard_writer_finish_full():
                                 * stops its waits for the other ranks */

  /* HDF5 and Zarr */
  PlanFileWriter *file_writer;  /* rank 0: metadata, and putting in place */
  Layout layout;
  guint64 *h5_chunks;           /* HDF5: the chunks' offsets in the file */
  PlanZarrWriter *zarr;         /* Zarr: this rank's chunks */
  gpointer tree;                /* Zarr, rank 0: the temporary directory
                                 * removed on a signal (TreeNames) */
  GHashTable *partial;          /* Zarr, HDF5 compressed: chunk index ->
                                 * Partial */

  /* HDF5 compressed (layout.filtered) */
  gchar *spool_path;            /* the ranks but 0: their spool */
  SpoolNames *spools;           /* rank 0: the other ranks' spools */
  gint spool_fd;
  guint64 spool_end;
  GArray *spool_table;          /* SpoolEntry */
  gboolean assembling;          /* rank 0: completing the chunks at the
                                 * end, through libhdf5 */
  GThreadPool *pool;            /* filters and writes or spools chunks */
  guint max_tasks;
  GMutex lock;                  /* the pool's tasks, error, the spool's
                                 * end and table */
  GCond done_cond;
  guint tasks;                  /* chunks queued or being filtered */
  GError *pool_error;           /* the pool's first failure */
};

/* planshardwriter.c */
G_GNUC_INTERNAL
gboolean _plan_shard_writer_set_io_error (GError ** error, const gchar * what,
    const gchar * path);

G_GNUC_INTERNAL
void _plan_shard_writer_remember_temp (gchar * path);

G_GNUC_INTERNAL
void _plan_shard_writer_remember_spools (SpoolNames * spools);

G_GNUC_INTERNAL
gboolean _plan_shard_writer_pwrite_to (gint fd, const gchar * path,
    const guint8 * p, gsize left, goffset at, GError ** error);

#if HAVE_ZARR || HAVE_HDF5
G_GNUC_INTERNAL
void _plan_shard_writer_partial_free (gpointer data);

G_GNUC_INTERNAL
guint64 _plan_shard_writer_chunk_n_rows (PlanShardWriter * w, guint64 index);

G_GNUC_INTERNAL
gboolean _plan_shard_writer_add_to_partial (PlanShardWriter * w,
    guint64 index, guint64 at, const guint8 * data, const guint8 * set,
    guint64 n, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_shard_writer_check_partials_complete (PlanShardWriter * w,
    GError ** error);
#endif

#if HAVE_HDF5
/* planshardwriter-h5.c: the compressed HDF5 output */
G_GNUC_INTERNAL
void _plan_shard_writer_start_filtering (PlanShardWriter * w);

G_GNUC_INTERNAL
gchar *_plan_shard_writer_spools_prefix (const gchar * tmp_path);

G_GNUC_INTERNAL
gboolean _plan_shard_writer_open_spool (PlanShardWriter * w, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_shard_writer_h5_chunk_done (PlanShardWriter * w,
    guint64 index, const guint8 * data, guint64 n_rows, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_shard_writer_drain_pool (PlanShardWriter * w, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_shard_writer_close_spool (PlanShardWriter * w,
    GError ** error);

G_GNUC_INTERNAL
gboolean _plan_shard_writer_assemble_h5 (PlanShardWriter * w,
    SpoolWhere ** wheres, GError ** error);

G_GNUC_INTERNAL
void _plan_shard_writer_remove_spools (PlanShardWriter * w);
#endif

G_END_DECLS

#endif /* __PLAN_SHARD_WRITER_PRIVATE_H__ */
