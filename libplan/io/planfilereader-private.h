/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanFileReader's state, shared by planfilereader.c (the object, its
 * workers and its calls) and planfilereader-layout.c (what an opened file
 * holds and where: the format, the .npy header, the .npz member and its
 * inflation, the HDF5 dataset, the Zarr array). */

#ifndef __PLAN_FILE_READER_PRIVATE_H__
#define __PLAN_FILE_READER_PRIVATE_H__

#include "libplan/core/plan-private.h"
#include "planfilereader.h"
#include "plannpy.h"

#include <sys/stat.h>
#include <zlib.h>

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (plan_file_reader_debug);

/* The most workers beside the first that read and decode a Zarr array's
 * (or a compressed HDF5 dataset's) chunks at once. */
#define MAX_HELPERS 7

/* Compressed .npz members are read through this much of the file at a
 * time, and rows skipped to reach a later row are inflated into a scratch
 * buffer of this size. */
#define INFLATE_IN_SIZE ((gsize) 256 << 10)
#define INFLATE_SKIP_SIZE ((gsize) 256 << 10)

/* The state of inflating a deflated .npz member from its start. */
typedef struct
{
  z_stream zs;
  gboolean ready;               /* inflateInit2() done */
  guint64 in_pos;               /* compressed bytes read */
  guint64 out_pos;              /* member bytes produced */
  guint32 crc;                  /* of the member bytes produced */
  guint8 *in;                   /* INFLATE_IN_SIZE */
  guint8 *skip;                 /* INFLATE_SKIP_SIZE, when needed */
} Inflater;

struct _PlanFileReader
{
  GstObject parent;

  /* owner thread only; read-only while the worker runs */
  gchar *filename;
  gint fd;
  PlanFileFormat format;
  PlanArrayInfo file_info;
  /* The .npy stream: at file byte stream_start, stream_size bytes (the
   * file, or a .npz member). data_offset counts from the file's start,
   * except for a deflated member, where it counts member bytes. */
  guint64 stream_start;
  guint64 stream_size;
  guint64 data_offset;
  /* how the .npy data lies: big-endian elements are swapped as they are
   * read, a Fortran-ordered array is transposed (never mapped) */
  PlanNpyLayout npy_layout;
  gchar *member;                /* as set: the .npz member to open */
  gchar *dataset;               /* as set: the HDF5 dataset to open */
  PlanH5Dataset *h5;            /* an HDF5 dataset read through libhdf5 */
  PlanZarrArray *zarr;          /* a Zarr array, read chunk by chunk */
  guint64 align_rows;           /* chunks end at multiples of it (file
                                 * rows): whole HDF5 chunks */
  gchar *member_name;           /* the one open, as the archive names it */
  gboolean deflated;
  guint64 member_csize;         /* a deflated member's compressed size */
  guint32 member_crc;
  guint64 file_rows;
  gsize row_size;
  /* 0: rows follow each other; else the bytes from one row's start to the
   * next one's (a NetCDF record variable, read record by record) */
  guint64 row_stride;
  guint64 window_first;
  guint64 window_rows;

  /* owner thread only; read-only while the worker runs: the file as
   * opened, to tell at the end whether it changed */
  PlanMappedFile *mapped;
  struct stat opened;

  /* owner thread only */
  GstBufferPool *pool;
  gsize pool_chunk_rows;
  guint pool_min;
  GstAllocator *allocator;      /* NULL: system memory */
  GstAllocationParams params;
  PlanFileIoMode io_mode;       /* as set */
  PlanFileIoMode used_mode;     /* READ or MMAP: chosen at start */
  gsize mapped_chunk_bytes;     /* chunk_rows 0 and mapping: 0 for AUTO_ */
  guint64 max_auto_chunk_rows;  /* chunk_rows 0: at most this; 0 for none */
  GThread *thread;
  /* more workers beside it, for formats whose chunks are decoded (Zarr,
   * compressed HDF5): each reads and decodes its own chunks, queued in
   * order */
  GThread *helpers[MAX_HELPERS];
  guint n_helpers;

  /* worker thread only, and the owner's open while it is stopped */
  Inflater *inflater;

  /* A deflated Fortran-ordered member, inflated once, whole, into an
   * unlinked temporary file the first time its rows are read (its runs
   * lie all over the member, and deflate cannot be entered in the
   * middle): -1 until then. Set under spill_lock, by whichever thread
   * reads rows first; then read-only until close. Lock order: spill_lock,
   * then lock (the worker checks whether it should stop while it
   * inflates). */
  GMutex spill_lock;
  gint spill_fd;

  /* worker thread only: the window chunks are cut from in MMAP mode */
  GstMemory *window;
  guint8 *window_base;
  guint64 window_start;         /* file byte offsets */
  guint64 window_end;
  gboolean no_populate;         /* the kernel lacks MADV_POPULATE_READ */
  gboolean mincore_tells;       /* mincore() says what is cached (below) */

  /* protected by lock */
  GMutex lock;
  GCond cond;
  GQueue queue;                 /* of GstBuffer, at most max_chunks */
  guint max_chunks;
  gsize chunk_rows;
  guint64 next_row;             /* the next row the worker reads */
  guint64 claimed;              /* chunks the workers took to read */
  guint64 pushed;               /* chunks queued: the next in order */
  guint64 end_row;
  gboolean running;             /* the worker should go on */
  gboolean flushing;
  gboolean eos;
  GError *error;
  /* A stored .npz member read whole, in order, from its first row: the
   * CRC-32 of its chunks queued so far, which cover rows 0 to crc_rows. */
  gboolean crc_check;
  guint32 crc;
  guint64 crc_rows;
  /* member bytes inflated since open, all threads together, logged at
   * close (tests check that a member is inflated once) */
  guint64 inflated;
};

/* planfilereader.c */
G_GNUC_INTERNAL
void _plan_file_reader_set_errno_error (GError ** error, gint err,
    const gchar * what, const gchar * filename);

G_GNUC_INTERNAL
gboolean _plan_file_reader_read_full (PlanFileReader * self, guint8 * dest,
    gsize size, guint64 offset, GError ** error);

/* planfilereader-layout.c */
G_GNUC_INTERNAL
guint32 _plan_file_reader_crc32 (guint32 crc, const guint8 * data,
    gsize size);

G_GNUC_INTERNAL
gboolean _plan_file_reader_check_member_crc (PlanFileReader * self,
    guint32 data_crc, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_file_reader_check_member_crc_again (PlanFileReader * self,
    GError ** error);

G_GNUC_INTERNAL
gboolean _plan_file_reader_open_layout (PlanFileReader * self,
    PlanFileFormat format, const PlanArrayInfo * raw_info, guint64 file_size,
    GError ** error);

G_GNUC_INTERNAL
gboolean _plan_file_reader_open_zarr (PlanFileReader * self,
    GError ** error);

G_GNUC_INTERNAL
Inflater * _plan_file_reader_inflater_new (void);

G_GNUC_INTERNAL
void _plan_file_reader_inflater_free (Inflater * inf);

G_GNUC_INTERNAL
gboolean _plan_file_reader_inflate_to_file (PlanFileReader * self,
    gboolean worker, gint fd, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_file_reader_inflate_at (PlanFileReader * self, Inflater * inf,
    guint8 * dest, gsize size, guint64 pos, GError ** error);

/* plancdf.c */
G_GNUC_INTERNAL
gboolean _plan_file_reader_open_cdf (PlanFileReader * self,
    guint64 file_size, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_file_reader_read_records (PlanFileReader * self,
    guint8 * dest, guint64 row, guint64 n_rows, GError ** error);

G_END_DECLS

#endif /* __PLAN_FILE_READER_PRIVATE_H__ */
