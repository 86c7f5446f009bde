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

G_BEGIN_DECLS

/**
 * PLAN_QUERY_READ_ROWS:
 *
 * The name of the structure of a custom upstream query (%GST_QUERY_CUSTOM)
 * that asks a source for some of its rows out of stream order, for example
 * the rows a stencil in wrap mode needs from the other end of the array.
 *
 * The query's structure has two #guint64 fields, `offset` (the first row)
 * and `n-rows`, counted in the source's own stream rows: row 0 is the first
 * row the source sends, the same numbering as GST_BUFFER_OFFSET. A source
 * that answers it (planfilesrc does) reads the rows synchronously, sets a
 * #GstBuffer field `buffer` holding exactly those rows (C order, the dtype
 * and row shape of its caps) and returns %TRUE. A range outside the stream
 * is not answered (%FALSE). Use plan_query_new_read_rows(),
 * plan_query_parse_read_rows(), plan_query_set_read_rows_buffer() and
 * plan_query_get_read_rows_buffer() rather than building it by hand.
 *
 * Since: 0.1
 */
#define PLAN_QUERY_READ_ROWS "plan-read-rows"

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

PLAN_API
GstQuery * plan_query_new_read_rows (guint64 offset, guint64 n_rows);

PLAN_API
gboolean plan_query_parse_read_rows (GstQuery * query, guint64 * offset,
    guint64 * n_rows);

PLAN_API
void plan_query_set_read_rows_buffer (GstQuery * query, GstBuffer * buffer);

PLAN_API
GstBuffer * plan_query_get_read_rows_buffer (GstQuery * query);

G_END_DECLS

#endif /* __PLAN_FILE_READER_H__ */
