/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planreducemap
 * @title: PlanReduceMap
 * @short_description: an elementwise map fused into a reduction
 *
 * What `planreduce map="x*x" op=sum` runs, for any element that reduces a
 * mapped stream: plan_reduce_map_new() compiles the map for the input
 * (its names are those planmap gives its first input, `x` and `in0`) and
 * says what the reducer is to be made for; plan_reduce_map_push() then
 * reduces runs of input rows through the map on the host, and
 * plan_reduce_map_launch() maps rows on a device for a
 * #PlanDeviceReducer.
 *
 * |[<!-- language="C" -->
 * PlanArrayInfo mapped;
 * PlanReduceMap *map = plan_reduce_map_new ("x * x", PLAN_DTYPE_UNKNOWN,
 *     &input, &mapped, &error);
 * PlanReducer *reducer = plan_reducer_new (PLAN_REDUCE_OP_SUM,
 *     PLAN_REDUCE_AXIS_ALL, &mapped, &error);
 * // for each chunk:
 * plan_reduce_map_push (map, reducer, rows, n_rows, NULL, 0, &error);
 * // at the end:
 * plan_reducer_finish (reducer, &result, &error);
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libplan/planreducemap.h>
#include <libplan/planexpr.h>

/* The map is evaluated into a scratch piece of about this many bytes of
 * whole rows, which the reducer reads while it is still in cache. */
#define MAP_PIECE_BYTES (64 << 10)

struct _PlanReduceMap
{
  PlanExpr *expr;               /* compiled for the input */
  gsize row_elements;           /* elements per row */
  gsize in_row;                 /* bytes of an input row */
  guint8 *piece;                /* piece_rows rows of the map's result */
  gsize piece_rows;
  PlanDevice *scratch_device;   /* of scratch */
  gpointer scratch;             /* device memory for the map's result */
  gsize scratch_size;
};

/**
 * plan_reduce_map_new:
 * @expr: an elementwise expression in `x` (or `in0`), the input
 * @dtype: the dtype to compute the map in, or %PLAN_DTYPE_UNKNOWN for the
 *   expression's own
 * @input: the input rows' info
 * @mapped: (out caller-allocates): what is reduced: @input's shape in the
 *   map's dtype; make the #PlanReducer for it
 * @error: return location for a #GError
 *
 * Compiles @expr for @input.
 *
 * Returns: (transfer full) (nullable): the map, or %NULL with @error set
 *   (the expression's own error, as plan_expr_compile_with_dtype() gives
 *   it).
 *
 * Since: 0.1
 */
PlanReduceMap *
plan_reduce_map_new (const gchar * expr, PlanDType dtype,
    const PlanArrayInfo * input, PlanArrayInfo * mapped, GError ** error)
{
  static const gchar *const names[] = { "x", "in0" };
  PlanDType dtypes[2];
  PlanReduceMap *map;
  PlanExpr *compiled;
  gsize row_bytes;

  g_return_val_if_fail (expr != NULL, NULL);
  g_return_val_if_fail (input != NULL, NULL);
  g_return_val_if_fail (mapped != NULL, NULL);

  dtypes[0] = dtypes[1] = input->dtype;
  compiled = plan_expr_compile_with_dtype (expr, G_N_ELEMENTS (names),
      names, dtypes, dtype, error);
  if (compiled == NULL)
    return NULL;

  map = g_new0 (PlanReduceMap, 1);
  map->expr = compiled;
  map->row_elements = plan_array_info_get_row_elements (input);
  map->in_row = map->row_elements * plan_dtype_get_size (input->dtype);
  *mapped = *input;
  mapped->dtype = plan_expr_get_dtype (compiled);
  row_bytes = map->row_elements * plan_dtype_get_size (mapped->dtype);
  map->piece_rows = MAX (1, MAP_PIECE_BYTES / MAX (row_bytes, 1));
  map->piece = g_malloc (MAX (map->piece_rows * row_bytes, 1));
  return map;
}

/**
 * plan_reduce_map_free:
 * @map: (transfer full) (nullable): a #PlanReduceMap
 *
 * Frees @map and its device memory. The device must not be using it any
 * more (its stream synchronized).
 *
 * Since: 0.1
 */
void
plan_reduce_map_free (PlanReduceMap * map)
{
  if (map == NULL)
    return;
  plan_reduce_map_release_device (map);
  plan_expr_unref (map->expr);
  g_free (map->piece);
  g_free (map);
}

/**
 * plan_reduce_map_get_dtype:
 * @map: a #PlanReduceMap
 *
 * Returns: the dtype of the map's result, which the reducer reduces.
 *
 * Since: 0.1
 */
PlanDType
plan_reduce_map_get_dtype (PlanReduceMap * map)
{
  g_return_val_if_fail (map != NULL, PLAN_DTYPE_UNKNOWN);
  return plan_expr_get_dtype (map->expr);
}

/**
 * plan_reduce_map_push:
 * @map: a #PlanReduceMap
 * @reducer: a #PlanReducer made for the info plan_reduce_map_new() gave
 * @rows: (not nullable): @n_rows input rows, in host memory
 * @n_rows: the number of rows
 * @out: (nullable): with #PLAN_REDUCE_AXIS_INNER, room for @n_rows
 *   results, one per row; %NULL otherwise
 * @n_threads: the threads that evaluate the map (0: one per core)
 * @error: return location for a #GError
 *
 * Reduces the map of @rows: the map is evaluated into a scratch piece of
 * whole rows at a time, and each piece is pushed to @reducer
 * (plan_reducer_push()) while it is still in cache. A reducer does not
 * depend on how its rows are cut, so the result is that of mapping every
 * row first and reducing after.
 *
 * Returns: %FALSE with @error set where plan_reducer_push() fails (where
 *   numpy raises for a row: nanargmin of a row of NaNs).
 *
 * Since: 0.1
 */
gboolean
plan_reduce_map_push (PlanReduceMap * map, PlanReducer * reducer,
    gconstpointer rows, gsize n_rows, gpointer out, guint n_threads,
    GError ** error)
{
  const guint8 *data = rows;
  PlanArrayInfo info;
  gconstpointer inputs[2];
  gsize out_size, i, n;

  g_return_val_if_fail (map != NULL, FALSE);
  g_return_val_if_fail (reducer != NULL, FALSE);

  plan_reducer_get_output_info (reducer, &info);
  out_size = plan_dtype_get_size (info.dtype);
  for (i = 0; i < n_rows; i += n) {
    n = MIN (map->piece_rows, n_rows - i);
    inputs[0] = inputs[1] = data + i * map->in_row;
    plan_expr_eval_parallel (map->expr, inputs, map->piece,
        n * map->row_elements, n_threads);
    if (!plan_reducer_push (reducer, map->piece, n,
            out ? (guint8 *) out + i * out_size : NULL, error))
      return FALSE;
  }
  return TRUE;
}

/* The map's result for @size bytes, on the device of @stream. */
static gpointer
plan_reduce_map_scratch (PlanReduceMap * map, PlanStream * stream,
    gsize size, GError ** error)
{
  PlanDevice *device = plan_stream_get_device (stream);

  if (map->scratch && map->scratch_size >= size
      && map->scratch_device == device)
    return map->scratch;
  plan_reduce_map_release_device (map);
  if (!plan_device_alloc (device, MAX (size, 1), &map->scratch, error))
    return NULL;
  map->scratch_device = gst_object_ref (device);
  map->scratch_size = size;
  return map->scratch;
}

/**
 * plan_reduce_map_launch:
 * @map: a #PlanReduceMap
 * @stream: the stream the device reducer queues on
 * @rows: @n_rows input rows, in memory of @stream's device
 * @n_rows: the number of rows
 * @n_threads: the host threads of a device that runs kernels on the host
 * @error: return location for a #GError
 *
 * Queues the map of @rows on @stream (its generated kernel,
 * plan_expr_launch()) into device memory @map keeps, which it reuses for
 * the next rows: push the result to the #PlanDeviceReducer on the same
 * stream before the next call.
 *
 * Returns: (nullable): the map's result on the device, or %NULL with
 *   @error set (%PLAN_ERROR_UNSUPPORTED where the device cannot run the
 *   map, such as CUDA without NVRTC: reduce on the host then).
 *
 * Since: 0.1
 */
gconstpointer
plan_reduce_map_launch (PlanReduceMap * map, PlanStream * stream,
    gconstpointer rows, gsize n_rows, guint n_threads, GError ** error)
{
  gsize n = n_rows * map->row_elements;
  gpointer ptrs[3];

  g_return_val_if_fail (map != NULL, NULL);
  g_return_val_if_fail (stream != NULL, NULL);

  ptrs[0] = ptrs[1] = (gpointer) rows;
  ptrs[2] = plan_reduce_map_scratch (map, stream, n *
      plan_dtype_get_size (plan_expr_get_dtype (map->expr)), error);
  if (ptrs[2] == NULL
      || !plan_expr_launch (map->expr, stream, ptrs, n, n_threads, error))
    return NULL;
  return ptrs[2];
}

/**
 * plan_reduce_map_release_device:
 * @map: a #PlanReduceMap
 *
 * Frees the device memory @map keeps for its result (when the element
 * leaves the device, or its stream ends). The device must not be using
 * it any more. A later plan_reduce_map_launch() allocates it again.
 *
 * Since: 0.1
 */
void
plan_reduce_map_release_device (PlanReduceMap * map)
{
  g_return_if_fail (map != NULL);

  if (map->scratch)
    plan_device_free (map->scratch_device, map->scratch);
  map->scratch = NULL;
  map->scratch_size = 0;
  gst_clear_object (&map->scratch_device);
}
