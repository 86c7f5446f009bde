/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planquery
 * @title: Row queries
 * @short_description: the custom queries with which elements trade rows
 *
 * Two custom queries (%GST_QUERY_CUSTOM) carry rows between elements
 * outside the stream's order: an element asks a source for some of its
 * rows (#PLAN_QUERY_READ_ROWS: the rows a stencil in wrap mode needs from
 * the other end of the array; planfilesrc answers), and a kernel element
 * asks the element after it for memory to compute its output rows into
 * (#PLAN_QUERY_OUTPUT_ROWS; planarraysink answers). Both are made, parsed
 * and answered here, and answered the same way: a #GstBuffer field
 * `buffer` in the query's structure.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planquery.h"
#include "libplan/core/plan-private.h"

/* The `buffer` field of an answered plan query, a reference of its own. */
static GstBuffer *
get_buffer (GstQuery * query)
{
  const GstStructure *s = gst_query_get_structure (query);
  GstBuffer *buffer = NULL;

  if (s == NULL || !gst_structure_get (s, "buffer", GST_TYPE_BUFFER, &buffer,
          NULL))
    return NULL;
  return buffer;
}

/**
 * plan_query_new_read_rows:
 * @offset: the first stream row
 * @n_rows: the number of rows
 *
 * Returns: (transfer full): a new #PLAN_QUERY_READ_ROWS query.
 *
 * Since: 0.1
 */
GstQuery *
plan_query_new_read_rows (guint64 offset, guint64 n_rows)
{
  return gst_query_new_custom (GST_QUERY_CUSTOM,
      gst_structure_new (PLAN_QUERY_READ_ROWS, "offset", G_TYPE_UINT64,
          offset, "n-rows", G_TYPE_UINT64, n_rows, NULL));
}

/**
 * plan_query_parse_read_rows:
 * @query: a #GstQuery
 * @offset: (out) (optional): the first stream row asked for
 * @n_rows: (out) (optional): the number of rows asked for
 *
 * Returns: whether @query is a well-formed #PLAN_QUERY_READ_ROWS query.
 *
 * Since: 0.1
 */
gboolean
plan_query_parse_read_rows (GstQuery * query, guint64 * offset,
    guint64 * n_rows)
{
  const GstStructure *s;
  guint64 o, n;

  g_return_val_if_fail (GST_IS_QUERY (query), FALSE);

  if (GST_QUERY_TYPE (query) != GST_QUERY_CUSTOM)
    return FALSE;
  s = gst_query_get_structure (query);
  if (s == NULL || !gst_structure_has_name (s, PLAN_QUERY_READ_ROWS)
      || !gst_structure_get_uint64 (s, "offset", &o)
      || !gst_structure_get_uint64 (s, "n-rows", &n))
    return FALSE;
  if (offset)
    *offset = o;
  if (n_rows)
    *n_rows = n;
  return TRUE;
}

/**
 * plan_query_set_read_rows_buffer:
 * @query: a writable #PLAN_QUERY_READ_ROWS query
 * @buffer: (transfer none): the rows asked for
 *
 * Answers @query with @buffer (the query takes its own reference).
 *
 * Since: 0.1
 */
void
plan_query_set_read_rows_buffer (GstQuery * query, GstBuffer * buffer)
{
  GstStructure *s;

  g_return_if_fail (GST_IS_QUERY (query));
  g_return_if_fail (GST_IS_BUFFER (buffer));

  s = gst_query_writable_structure (query);
  gst_structure_set (s, "buffer", GST_TYPE_BUFFER, buffer, NULL);
}

/**
 * plan_query_get_read_rows_buffer:
 * @query: an answered #PLAN_QUERY_READ_ROWS query
 *
 * Returns: (transfer full) (nullable): the rows the source answered with.
 *
 * Since: 0.1
 */
GstBuffer *
plan_query_get_read_rows_buffer (GstQuery * query)
{
  g_return_val_if_fail (GST_IS_QUERY (query), NULL);
  return get_buffer (query);
}

/*
 * plan_query_new_output_rows:
 * @offset: the first output row
 * @n_rows: the number of rows
 * @row_size: the bytes of one row
 *
 * Returns: (transfer full): a #PLAN_QUERY_OUTPUT_ROWS query.
 */
GstQuery *
plan_query_new_output_rows (guint64 offset, guint64 n_rows, gsize row_size)
{
  return gst_query_new_custom (GST_QUERY_CUSTOM,
      gst_structure_new (PLAN_QUERY_OUTPUT_ROWS, "offset", G_TYPE_UINT64,
          offset, "n-rows", G_TYPE_UINT64, n_rows, "row-size", G_TYPE_UINT64,
          (guint64) row_size, NULL));
}

/**
 * plan_query_parse_output_rows:
 * @query: a #GstQuery
 * @offset: (out) (optional): the first row asked for
 * @n_rows: (out) (optional): the number of rows
 * @row_size: (out) (optional): the bytes of one row
 *
 * Returns: whether @query is a well-formed #PLAN_QUERY_OUTPUT_ROWS query.
 *
 * Since: 0.1
 */
gboolean
plan_query_parse_output_rows (GstQuery * query, guint64 * offset,
    guint64 * n_rows, gsize * row_size)
{
  const GstStructure *s;
  guint64 o, n, r;

  g_return_val_if_fail (GST_IS_QUERY (query), FALSE);

  if (GST_QUERY_TYPE (query) != GST_QUERY_CUSTOM)
    return FALSE;
  s = gst_query_get_structure (query);
  if (s == NULL || !gst_structure_has_name (s, PLAN_QUERY_OUTPUT_ROWS)
      || !gst_structure_get_uint64 (s, "offset", &o)
      || !gst_structure_get_uint64 (s, "n-rows", &n)
      || !gst_structure_get_uint64 (s, "row-size", &r))
    return FALSE;
  if (offset)
    *offset = o;
  if (n_rows)
    *n_rows = n;
  if (row_size)
    *row_size = r;
  return TRUE;
}

/**
 * plan_query_set_output_rows_buffer:
 * @query: a writable #PLAN_QUERY_OUTPUT_ROWS query
 * @buffer: (transfer none): writable host memory for the rows asked for
 *
 * Answers @query with @buffer (the query takes its own reference).
 *
 * Since: 0.1
 */
void
plan_query_set_output_rows_buffer (GstQuery * query, GstBuffer * buffer)
{
  g_return_if_fail (GST_IS_QUERY (query));
  g_return_if_fail (GST_IS_BUFFER (buffer));

  gst_structure_set (gst_query_writable_structure (query), "buffer",
      GST_TYPE_BUFFER, buffer, NULL);
}

/*
 * plan_query_get_output_rows_buffer:
 * @query: an answered #PLAN_QUERY_OUTPUT_ROWS query
 *
 * Returns: (transfer full) (nullable): the memory downstream lent.
 */
GstBuffer *
plan_query_get_output_rows_buffer (GstQuery * query)
{
  g_return_val_if_fail (GST_IS_QUERY (query), NULL);
  return get_buffer (query);
}
