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
const PlanArrayInfo * plan_file_reader_get_file_info (PlanFileReader * reader);

PLAN_API
guint64 plan_file_reader_get_data_offset (PlanFileReader * reader);

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
