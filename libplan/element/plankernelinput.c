/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* A kernel element that goes on reading a chunk's rows after process()
 * returns (planreduce, whose worker threads reduce one chunk while the
 * streaming thread fetches the next) holds the chunk's input buffers,
 * mapped, until it is done with them. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plankernelinput.h"
#include "plankernelelement-private.h"

struct _PlanHeldChunk
{
  guint n_inputs;
  GstBuffer **buffers;          /* [n_inputs] */
  GstMapInfo *maps;             /* [n_inputs] */
};

/**
 * plan_kernel_element_hold_chunk: (skip)
 * @self: a #PlanKernelElement
 * @chunk: the chunk process() was given
 *
 * Keeps the rows of @chunk readable, at the same addresses, after
 * process() returns: the base class hands the maps of the input buffers
 * the rows are in to the #PlanHeldChunk instead of unmapping them, and
 * takes a reference to each buffer. Call it from process(), with the
 * chunk of that call, at most once per call.
 *
 * Returns: (transfer full): the held chunk, for plan_held_chunk_release()
 *
 * Since: 0.1
 */
PlanHeldChunk *
plan_kernel_element_hold_chunk (PlanKernelElement * self,
    const PlanChunk * chunk)
{
  PlanKernelElementPrivate *priv;
  PlanHeldChunk *held;
  guint i;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), NULL);
  g_return_val_if_fail (chunk != NULL, NULL);
  priv = GET_PRIV (self);
  g_return_val_if_fail (priv->heads != NULL && !priv->maps_held, NULL);
  g_return_val_if_fail (chunk->data == priv->chunk_data, NULL);

  held = g_new0 (PlanHeldChunk, 1);
  held->n_inputs = priv->n_inputs;
  held->buffers = g_new (GstBuffer *, held->n_inputs);
  held->maps = g_new (GstMapInfo, held->n_inputs);
  for (i = 0; i < held->n_inputs; i++) {
    held->buffers[i] = gst_buffer_ref (priv->heads[i]);
    held->maps[i] = priv->maps[i];
  }
  priv->maps_held = TRUE;
  return held;
}

/**
 * plan_held_chunk_release:
 * @held: (transfer full): a held chunk
 * @error: return location for a #GError
 *
 * Unmaps and lets go of the input buffers of @held, once nothing reads its
 * rows any more. A chunk mapped from a file that another process cut
 * short meanwhile read zeros where the file ended: that is an error,
 * which the element reports (the result is not the file's).
 *
 * Returns: %TRUE, or %FALSE with @error set when an input changed under
 *   the rows read
 *
 * Since: 0.1
 */
gboolean
plan_held_chunk_release (PlanHeldChunk * held, GError ** error)
{
  gboolean ok = TRUE;
  guint i;

  g_return_val_if_fail (held != NULL, FALSE);

  for (i = 0; i < held->n_inputs; i++) {
    if (ok)
      ok = _plan_buffer_check_mapped (held->buffers[i], error);
    gst_buffer_unmap (held->buffers[i], &held->maps[i]);
    gst_buffer_unref (held->buffers[i]);
  }
  g_free (held->buffers);
  g_free (held->maps);
  g_free (held);
  return ok;
}
