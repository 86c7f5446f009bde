/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What a kernel element does for the halos of boundary=wrap: the stencil
 * building blocks are unstable, so this stays out of plankernelelement.h,
 * the stable base class's header. One place reads and maps an input's
 * last rows (plan_kernel_element_take_end_rows()), for a #PlanHalo
 * (plan_kernel_element_fill_halo_end()) as for a kernel that keeps its
 * halo elsewhere (planstencil's #PlanStencilKernel, on the host or a
 * device). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plankernelhalo.h"
#include <libplan/planerror.h>

/**
 * plan_kernel_element_take_end_rows: (skip)
 * @self: a #PlanKernelElement
 * @index: the input
 * @n_rows: how many of the last rows are wanted
 * @func: what takes them
 * @user_data: passed to @func
 * @error: return location for an error
 *
 * Reads the last @n_rows rows of input @index out of order from upstream
 * (plan_kernel_element_read_end_rows(): what boundary=wrap along the
 * streaming axis needs before the first output; after a seek, the last
 * rows of the range sought) and hands them, mapped, to @func.
 *
 * Returns: what @func returns; %FALSE with @error set when the stream's
 *   length is unknown before its end, upstream cannot read rows out of
 *   order, or the rows cannot be mapped.
 *
 * Since: 0.1
 */
gboolean
plan_kernel_element_take_end_rows (PlanKernelElement * self, guint index,
    gsize n_rows, PlanEndRowsFunc func, gpointer user_data, GError ** error)
{
  GstBuffer *buffer;
  GstMapInfo map;
  guint64 total;
  gsize row;
  gboolean ok;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), FALSE);
  g_return_val_if_fail (func != NULL, FALSE);

  if (!plan_kernel_element_read_end_rows (self, index, n_rows, &total,
          &buffer, error))
    return FALSE;
  if (!gst_buffer_map (buffer, &map, GST_MAP_READ)) {
    gst_buffer_unref (buffer);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "could not map the last rows upstream gave (for boundary=wrap)");
    return FALSE;
  }
  row = plan_array_info_get_row_size (plan_kernel_element_get_input_info
      (self, index));
  ok = func (index, total, map.data, map.size / row, user_data, error);
  gst_buffer_unmap (buffer, &map);
  gst_buffer_unref (buffer);
  return ok;
}

static gboolean
set_halo_end (guint index, guint64 total, gconstpointer data, gsize n_rows,
    gpointer halo, GError ** error)
{
  return plan_halo_set_end_rows (halo, total, data, n_rows, error);
}

/**
 * plan_kernel_element_fill_halo_end: (skip)
 * @self: a #PlanKernelElement
 * @index: the input the halo pads
 * @halo: the input's #PlanHalo
 * @n_rows: the rows of the chunk about to be pushed into @halo
 * @error: return location for an error
 *
 * Gives @halo the last rows of input @index when it needs them before
 * the stream's end (boundary=wrap along the streaming axis needs the
 * stream's last rows to pad its first; after a seek, the last rows of the
 * range sought), read with plan_kernel_element_take_end_rows(). Call it
 * before each plan_halo_push(); it does nothing when @halo needs nothing.
 *
 * Returns: %TRUE on success; %FALSE with @error set when the stream's
 *   length is unknown before its end, or upstream cannot read rows out of
 *   order.
 *
 * Since: 0.1
 */
gboolean
plan_kernel_element_fill_halo_end (PlanKernelElement * self, guint index,
    PlanHalo * halo, gsize n_rows, GError ** error)
{
  gsize n_end;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), FALSE);
  g_return_val_if_fail (halo != NULL, FALSE);

  if (!plan_halo_needs_end_rows (halo, n_rows, &n_end))
    return TRUE;
  return plan_kernel_element_take_end_rows (self, index, n_end, set_halo_end,
      halo, error);
}
