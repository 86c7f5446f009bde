/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planuploader
 * @title: PlanUploader
 * @short_description: bounded asynchronous uploads on a stream
 *
 * A copy from system memory to the device is queued on a stream and
 * returns at once; its source must stay valid until the copy has run.
 * #PlanUploader keeps each source mapped until its copy's event says it is
 * done, records that event as the device memory's ready event (so that a
 * consumer's stream waits for the copy, not the host), and bounds the
 * copies in flight so that memory stays bounded: with the bound reached,
 * the host waits for the oldest (counted in
 * plan_uploader_get_host_waits()).
 *
 * A copy that fails may still have been queued; the uploader then waits
 * for the stream before it gives the source back, so no queued copy ever
 * reads released memory.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planuploader.h"
#include "plandevicememory.h"
#include "planerror.h"

typedef struct
{
  PlanEvent *done;
  GstBuffer *source;
  GstMapInfo map;
} Upload;

struct _PlanUploader
{
  PlanStream *stream;
  guint max_in_flight;
  GQueue in_flight;             /* Upload, oldest first */
  guint64 host_waits;
};

static void
upload_free (Upload * u)
{
  gst_buffer_unmap (u->source, &u->map);
  gst_buffer_unref (u->source);
  if (u->done)
    plan_event_unref (u->done);
  g_free (u);
}

/**
 * plan_uploader_new: (skip)
 * @stream: the stream the copies go on
 * @max_in_flight: the most copies in flight, at least 1
 *
 * Returns: (transfer full): a new uploader.
 *
 * Since: 0.1
 */
PlanUploader *
plan_uploader_new (PlanStream * stream, guint max_in_flight)
{
  PlanUploader *self;

  g_return_val_if_fail (stream != NULL, NULL);

  self = g_new0 (PlanUploader, 1);
  self->stream = plan_stream_ref (stream);
  self->max_in_flight = MAX (max_in_flight, 1);
  g_queue_init (&self->in_flight);
  return self;
}

/**
 * plan_uploader_free: (skip)
 * @uploader: (transfer full) (nullable): an uploader
 *
 * Waits for the copies in flight, then releases their sources and the
 * uploader.
 *
 * Since: 0.1
 */
void
plan_uploader_free (PlanUploader * uploader)
{
  if (uploader == NULL)
    return;
  plan_uploader_flush (uploader, NULL);
  plan_stream_unref (uploader->stream);
  g_free (uploader);
}

/**
 * plan_uploader_set_max_in_flight: (skip)
 * @uploader: an uploader
 * @max_in_flight: the most copies in flight, at least 1
 *
 * Since: 0.1
 */
void
plan_uploader_set_max_in_flight (PlanUploader * uploader,
    guint max_in_flight)
{
  g_return_if_fail (uploader != NULL);
  uploader->max_in_flight = MAX (max_in_flight, 1);
}

/**
 * plan_uploader_reap: (skip)
 * @uploader: an uploader
 * @keep: how many copies may stay in flight
 * @error: return location for an error
 *
 * Releases the sources of the copies that are done, and while more than
 * @keep are in flight, waits on the host for the oldest.
 *
 * Returns: %TRUE on success, %FALSE with @error set when the device failed.
 *
 * Since: 0.1
 */
gboolean
plan_uploader_reap (PlanUploader * uploader, guint keep, GError ** error)
{
  Upload *u;

  g_return_val_if_fail (uploader != NULL, FALSE);

  while ((u = g_queue_peek_head (&uploader->in_flight)) != NULL) {
    if (!plan_event_query (u->done)) {
      if (g_queue_get_length (&uploader->in_flight) <= keep)
        break;
      uploader->host_waits++;
      if (!plan_event_synchronize (u->done, error))
        return FALSE;
    }
    upload_free (g_queue_pop_head (&uploader->in_flight));
  }
  return TRUE;
}

/**
 * plan_uploader_upload: (skip)
 * @uploader: an uploader
 * @source: (transfer none): a system-memory buffer; the uploader keeps a
 *   reference until the copy is done
 * @device_memory: device memory of at least @source's size
 * @error: return location for an error
 *
 * Queues the copy of @source into @device_memory, with @device_memory's
 * ready event after it, first releasing finished copies and waiting for
 * the oldest when the bound is reached.
 *
 * Returns: %TRUE when queued; %FALSE with @error set when the device
 *   failed, @source could not be mapped, or the copy could not be queued
 *   (the stream has been waited for then: @source is free).
 *
 * Since: 0.1
 */
gboolean
plan_uploader_upload (PlanUploader * uploader, GstBuffer * source,
    GstMemory * device_memory, GError ** error)
{
  Upload *u;

  g_return_val_if_fail (uploader != NULL, FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (source), FALSE);
  g_return_val_if_fail (device_memory != NULL, FALSE);

  if (!plan_uploader_reap (uploader, uploader->max_in_flight - 1, error))
    return FALSE;
  u = g_new0 (Upload, 1);
  if (!gst_buffer_map (source, &u->map, GST_MAP_READ)) {
    g_free (u);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "could not map a buffer to upload");
    return FALSE;
  }
  u->source = gst_buffer_ref (source);
  if (!plan_stream_copy (uploader->stream, PLAN_COPY_HOST_TO_DEVICE,
          plan_device_memory_get_pointer (device_memory), u->map.data,
          u->map.size, error)
      || (u->done = plan_stream_record (uploader->stream, error)) == NULL) {
    /* The copy may be queued: let it finish before the source goes. */
    plan_stream_synchronize (uploader->stream, NULL);
    upload_free (u);
    return FALSE;
  }
  plan_device_memory_set_ready_event (device_memory, u->done);
  g_queue_push_tail (&uploader->in_flight, u);
  return TRUE;
}

/**
 * plan_uploader_flush: (skip)
 * @uploader: an uploader
 * @error: (nullable): return location for an error
 *
 * Waits for every copy in flight and releases their sources (a flush or a
 * stop).
 *
 * Returns: %FALSE with @error set when the device failed (the sources are
 *   released all the same).
 *
 * Since: 0.1
 */
gboolean
plan_uploader_flush (PlanUploader * uploader, GError ** error)
{
  gboolean ok;

  g_return_val_if_fail (uploader != NULL, FALSE);

  ok = g_queue_is_empty (&uploader->in_flight)
      || plan_stream_synchronize (uploader->stream, error);
  g_queue_clear_full (&uploader->in_flight, (GDestroyNotify) upload_free);
  return ok;
}

/**
 * plan_uploader_get_host_waits: (skip)
 * @uploader: an uploader
 *
 * Returns: how often the host waited for a copy, the bound reached.
 *
 * Since: 0.1
 */
guint64
plan_uploader_get_host_waits (PlanUploader * uploader)
{
  g_return_val_if_fail (uploader != NULL, 0);
  return uploader->host_waits;
}
