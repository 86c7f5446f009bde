/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_FILE_READER_H__
#define __PLAN_FILE_READER_H__

#include <libplan/plan-prelude.h>
#include <libplan/planarrayinfo.h>
#include <libplan/planfileformat.h>
#include <libplan/planquery.h>

G_BEGIN_DECLS

/**
 * PlanFileIoMode:
 * @PLAN_FILE_IO_MODE_AUTO: map the file when chunks go to system memory,
 *   read it when downstream asked for memory of its own (pinned host
 *   memory, say) or when the file cannot be mapped
 * @PLAN_FILE_IO_MODE_READ: read chunks with pread() into buffers of the
 *   reader's pool: a copy, but the data in a chunk never changes once read
 * @PLAN_FILE_IO_MODE_MMAP: hand out the kernel's page-cache pages of the
 *   file without a copy, mapped read-only; failing to map is an error
 *
 * How a #PlanFileReader gets the bytes of a chunk.
 *
 * Mapped chunks cost no copy, but they are the file itself: a chunk's
 * contents change if another process writes that part of the file, and a
 * process that truncates the file while a chunk of it is in use makes the
 * next access to it fail with SIGBUS. Use %PLAN_FILE_IO_MODE_READ for files
 * that may change while they are read.
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_FILE_IO_MODE_AUTO,
  PLAN_FILE_IO_MODE_READ,
  PLAN_FILE_IO_MODE_MMAP,
} PlanFileIoMode;

#define PLAN_TYPE_FILE_IO_MODE (plan_file_io_mode_get_type ())
PLAN_API
GType plan_file_io_mode_get_type (void);

/**
 * PlanFileReader:
 *
 * Reads an array file in chunks of rows on a worker thread of its own; see
 * the planfilereader section. Opaque; create it with plan_file_reader_new().
 *
 * Since: 0.1
 */
#define PLAN_TYPE_FILE_READER (plan_file_reader_get_type ())
PLAN_API
G_DECLARE_FINAL_TYPE (PlanFileReader, plan_file_reader, PLAN, FILE_READER,
    GstObject)

PLAN_API
PlanFileReader * plan_file_reader_new (void);

PLAN_API
gboolean plan_file_reader_open (PlanFileReader * reader,
    const gchar * filename, PlanFileFormat format,
    const PlanArrayInfo * raw_info, GError ** error);

PLAN_API
void plan_file_reader_close (PlanFileReader * reader);

PLAN_API
PlanFileFormat plan_file_reader_get_format (PlanFileReader * reader);

PLAN_API
void plan_file_reader_set_member (PlanFileReader * reader,
    const gchar * member);

PLAN_API
void plan_file_reader_set_dataset (PlanFileReader * reader,
    const gchar * dataset);

PLAN_API
const gchar * plan_file_reader_get_member (PlanFileReader * reader);

PLAN_API
const PlanArrayInfo * plan_file_reader_get_file_info (PlanFileReader * reader);

PLAN_API
gboolean plan_file_reader_set_window (PlanFileReader * reader,
    guint64 first_row, gint64 n_rows, GError ** error);

PLAN_API
void plan_file_reader_get_info (PlanFileReader * reader,
    PlanArrayInfo * info);

PLAN_API
guint64 plan_file_reader_get_n_rows (PlanFileReader * reader);

PLAN_API
gsize plan_file_reader_get_row_size (PlanFileReader * reader);

PLAN_API
void plan_file_reader_set_allocator (PlanFileReader * reader,
    GstAllocator * allocator, const GstAllocationParams * params);

PLAN_API
void plan_file_reader_set_io_mode (PlanFileReader * reader,
    PlanFileIoMode mode);

PLAN_API
PlanFileIoMode plan_file_reader_get_io_mode (PlanFileReader * reader);

PLAN_API
void plan_file_reader_set_mapped_chunk_size (PlanFileReader * reader,
    gsize bytes);

PLAN_API
void plan_file_reader_set_max_auto_chunk_rows (PlanFileReader * reader,
    guint64 rows);

PLAN_API
gboolean plan_file_reader_start (PlanFileReader * reader, guint64 first_row,
    guint64 end_row, gsize chunk_rows, guint max_chunks, GError ** error);

PLAN_API
GstFlowReturn plan_file_reader_pop (PlanFileReader * reader,
    GstBuffer ** buffer, GError ** error);

PLAN_API
void plan_file_reader_set_flushing (PlanFileReader * reader,
    gboolean flushing);

PLAN_API
void plan_file_reader_stop (PlanFileReader * reader);

PLAN_API
GstBuffer * plan_file_reader_read_rows (PlanFileReader * reader,
    guint64 first_row, guint64 n_rows, GError ** error);

G_END_DECLS

#endif /* __PLAN_FILE_READER_H__ */
