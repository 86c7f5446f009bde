/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanFileWriter's state, shared by planfilewriter.c (the object, its
 * worker thread and its calls) and planfilewriter-target.c (the file or
 * directory the output is written into, and how it is put in place). */

#ifndef __PLAN_FILE_WRITER_PRIVATE_H__
#define __PLAN_FILE_WRITER_PRIVATE_H__

#include "libplan/core/plan-private.h"
#include "planfilewriter.h"

#include <sys/stat.h>

G_BEGIN_DECLS

/* planzip-writer.c: the zip container of a .npz output */
typedef struct _PlanZipWriter PlanZipWriter;
typedef struct _PlanZipKept PlanZipKept;

GST_DEBUG_CATEGORY_EXTERN (plan_file_writer_debug);

struct _PlanFileWriter
{
  GstObject parent;

  /* owner thread only */
  gchar *location;
  gchar *tmp_path;              /* the named temporary file, or NULL */
  gboolean unnamed;             /* fd is an O_TMPFILE file */
  gboolean stream;              /* a FIFO or socket, opened by the worker */
  gint64 header_rows;           /* a stream's .npy header: the rows it says */
  /* the worker's while it runs (a stream is opened by the worker), the
   * owner's otherwise */
  gint fd;
  PlanFileFormat format;
  gboolean sync;
  gboolean replace_read_only;
  PlanArrayInfo info;
  gboolean have_info;
  gsize row_size;
  gsize header_size;
  guint64 bytes_queued;
  GThread *thread;
  /* HDF5 output: the dataset's path and layout as set, and the file
   * (created once the dtype is known; the worker's while it runs) */
  gchar *dataset;
  guint64 h5_chunk_rows;
  guint h5_gzip_level;
  PlanH5Writer *h5;
  PlanFileMode mode;
  PlanFileCodec codec;
  gboolean h5_add;              /* the temporary file is a copy to add to */
  /* The add mode (HDF5, .npz): the file at the location when its contents
   * were copied into the new one, which must still be there, unchanged,
   * when the new one replaces it (add_source_there FALSE: there was none,
   * and none may have come) */
  gboolean add_source_set;
  gboolean add_source_there;
  struct stat add_source;
  /* Zarr output: the temporary directory (the new store, or with the add
   * mode the new array), where it goes at finish, the array's directory
   * in it, and the array (the worker's while it runs) */
  gchar *tmp_dir;
  gchar *zarr_target;
  gchar *zarr_array_dir;
  PlanZarrWriter *zarr;
  gint zarr_format;             /* as set, or the group's when adding */
  gint zarr_format_set;
  /* .npz output: the member's name in the archive (".npy" ending) as
   * set, and the archive (made at set_info; the worker's while it runs) */
  gchar *member;
  gchar *npz_name;
  PlanZipKept *npz_kept;        /* the add mode: the members copied */
  PlanZipWriter *zip;
  /* rank 0's part of an output the ranks of an MPI job share: the rows
   * of the whole array (-1: not shared); HDF5 uncompressed: the chunks'
   * places, the dataset written and closed at set_info; compressed: the
   * dataset's filters, the dataset kept open (h5) for the chunks the
   * ranks filter */
  gint64 shared_rows;
  guint64 shared_chunk_rows;
  GArray *shared_h5_chunks;
  gboolean shared_h5_filtered;
  PlanH5Filters shared_h5_filters;

  /* worker thread only, reset at open: preallocation of the file's
   * blocks ahead of the writes */
  gboolean prealloc_off;        /* not a regular file, or it failed */
  gboolean no_copy_range;       /* copy_file_range() failed for the files */
  guint64 prealloc_end;         /* blocks are reserved up to here */

  /* protected by lock. The two sides wake each other only when the other
   * waits, and a blocked producer only once half the queue is free: a
   * hand-off per chunk costs futex calls and, on a virtual machine,
   * inter-processor interrupts that show in the writer's time. */
  GMutex lock;
  GCond work_cond;              /* the worker waits for chunks or a stop */
  GCond space_cond;             /* write() waits for room, flush or error */
  gboolean worker_idle;         /* the worker waits on work_cond */
  guint producers_waiting;      /* threads waiting on space_cond */
  GQueue queue;                 /* of GstBuffer, at most max_pending */
  guint max_pending;
  gboolean running;             /* more chunks may come */
  gboolean cancelled;           /* a stream's wait must end */
  gboolean flushing;
  guint64 bytes_written;
  GError *error;
};

/* planfilewriter.c */
G_GNUC_INTERNAL
void _plan_file_writer_set_errno_error (GError ** error, gint err,
    const gchar * what, const gchar * location);

G_GNUC_INTERNAL
gboolean _plan_file_writer_write_full (gint fd, const guint8 * data,
    gsize size, const gchar * location, GError ** error);

/* planfilewriter-target.c: making the output where it will go, and putting
 * it in place at finish */
G_GNUC_INTERNAL
gboolean _plan_file_writer_open_target (PlanFileWriter * self,
    GError ** error);

G_GNUC_INTERNAL
gboolean _plan_file_writer_complete_npy_header (PlanFileWriter * self,
    guint64 bytes, GError ** error);

G_GNUC_INTERNAL
void _plan_file_writer_note_add_source (PlanFileWriter * self,
    const struct stat *st);
G_GNUC_INTERNAL
gboolean _plan_file_writer_close_and_rename (PlanFileWriter * self,
    guint64 bytes, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_file_writer_finish_npz (PlanFileWriter * self, guint64 bytes,
    GError ** error);

/* planzip-writer.c */
G_GNUC_INTERNAL
gchar * _plan_zip_writer_check_name (const gchar * member, GError ** error);

G_GNUC_INTERNAL
PlanZipWriter * _plan_zip_writer_new (gint fd, const gchar * location,
    const gchar * name, guint level, const guint8 * npy_header,
    gsize npy_header_size, PlanZipKept * kept, GError ** error);

G_GNUC_INTERNAL
PlanZipKept * _plan_zip_writer_copy_members (gint dst,
    const gchar * location, const gchar * skip, GError ** error);

G_GNUC_INTERNAL
void _plan_zip_kept_free (PlanZipKept * kept);

G_GNUC_INTERNAL
gboolean _plan_zip_writer_append (PlanZipWriter * zw, const guint8 * data,
    gsize size, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_zip_writer_finish (PlanZipWriter * zw,
    const guint8 * npy_header, GError ** error);

G_GNUC_INTERNAL
guint64 _plan_zip_writer_get_size (PlanZipWriter * zw);

G_GNUC_INTERNAL
void _plan_zip_writer_free (PlanZipWriter * zw);

#if HAVE_HDF5
G_GNUC_INTERNAL
gboolean _plan_file_writer_finish_h5 (PlanFileWriter * self, guint64 bytes,
    GError ** error);
#endif

#if HAVE_ZARR
G_GNUC_INTERNAL
gboolean _plan_file_writer_open_zarr_target (PlanFileWriter * self,
    GError ** error);

G_GNUC_INTERNAL
gboolean _plan_file_writer_finish_zarr (PlanFileWriter * self, guint64 bytes,
    GError ** error);

G_GNUC_INTERNAL
void _plan_file_writer_remove_tree (const gchar * path);
#endif

G_END_DECLS

#endif /* __PLAN_FILE_WRITER_PRIVATE_H__ */
