/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What a kernel element does for a #PlanHalo: the stencil building block
 * is unstable, so this stays out of plankernelelement.h, the stable base
 * class's header. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plankernelhalo.h"
#include <libplan/planerror.h>

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
 * range sought), read with plan_kernel_element_read_end_rows(). Call it
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
  GstBuffer *buffer;
  GstMapInfo map;
  guint64 total;
  gsize n_end;
  gboolean ok;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), FALSE);
  g_return_val_if_fail (halo != NULL, FALSE);

  if (!plan_halo_needs_end_rows (halo, n_rows, &n_end))
    return TRUE;
  if (!plan_kernel_element_read_end_rows (self, index, n_end, &total,
          &buffer, error))
    return FALSE;
  if (!gst_buffer_map (buffer, &map, GST_MAP_READ)) {
    gst_buffer_unref (buffer);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "could not map the last rows upstream gave (for boundary=wrap)");
    return FALSE;
  }
  ok = plan_halo_set_end_rows (halo, total, map.data, map.size /
      plan_array_info_get_row_size (plan_kernel_element_get_input_info
          (self, index)), error);
  gst_buffer_unmap (buffer, &map);
  gst_buffer_unref (buffer);
  return ok;
}
