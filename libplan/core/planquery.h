/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_QUERY_H__
#define __PLAN_QUERY_H__

#include <libplan/plan-prelude.h>

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

PLAN_API
GstQuery * plan_query_new_read_rows (guint64 offset, guint64 n_rows);

PLAN_API
gboolean plan_query_parse_read_rows (GstQuery * query, guint64 * offset,
    guint64 * n_rows);

PLAN_API
void plan_query_set_read_rows_buffer (GstQuery * query, GstBuffer * buffer);

PLAN_API
GstBuffer * plan_query_get_read_rows_buffer (GstQuery * query);

/**
 * PLAN_QUERY_OUTPUT_ROWS:
 *
 * The name of the structure of a custom downstream query
 * (%GST_QUERY_CUSTOM) with which a kernel element asks the element after
 * it for memory to compute output rows into: a sink that keeps the rows in
 * an array of its own (planarraysink) answers with a buffer over the place
 * where they go, and then finds them there without a copy.
 *
 * The query's structure has the #guint64 fields `offset` (the first row,
 * numbered as GST_BUFFER_OFFSET) and `n-rows`, and the #guint64
 * `row-size` (bytes per row). An answer sets a #GstBuffer field `buffer`
 * of exactly @n-rows rows, host memory, writable. The kernel element
 * asks (plan_kernel_element_alloc_output() does); a sink answers with
 * plan_query_parse_output_rows() and plan_query_set_output_rows_buffer().
 *
 * Since: 0.1
 */
#define PLAN_QUERY_OUTPUT_ROWS "plan-output-rows"

PLAN_API
gboolean plan_query_parse_output_rows (GstQuery * query, guint64 * offset,
    guint64 * n_rows, gsize * row_size);

PLAN_API
void plan_query_set_output_rows_buffer (GstQuery * query, GstBuffer * buffer);

G_END_DECLS

#endif /* __PLAN_QUERY_H__ */
