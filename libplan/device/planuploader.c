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
 * @short_description: bounded asynchronous uploads, and downloads, on a
 *   stream
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
 * plan_uploader_download() goes the other way, for the host code that
 * reads what comes back: the stream waits for the device memory's ready
 * event, copies, records a use event (so that the memory's pool hands it
 * out again only after the copy), and the host waits for the copy, since
 * its caller reads the data next. There is nothing to bound: a download
 * is done when it returns.
 *
 * A copy that fails may still have been queued; in either direction the
 * uploader then waits for the stream before it gives the buffers back, so
 * no queued copy ever reads or writes released memory.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planuploader.h"
#include "plandevicememory.h"
#include <libplan/planerror.h>
#include "libplan/core/plan-private.h"

#include <string.h>

/* A transfer in flight: the host buffer it reads (upload) or writes
 * (download), mapped until the copy is done, and the buffer on the other
 * side, held as long. */
typedef struct
{
  PlanEvent *done;
  GstBuffer *host;
  GstMapInfo map;
  GstBuffer *other;
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
  gst_buffer_unmap (u->host, &u->map);
  gst_buffer_unref (u->host);
  if (u->other)
    gst_buffer_unref (u->other);
  if (u->done)
    plan_event_unref (u->done);
  g_free (u);
}

/* A transfer of @host, mapped with @flags, or %NULL with @error set. */
static Upload *
upload_new (GstBuffer * host, GstMapFlags flags, GError ** error)
{
  Upload *u = g_new0 (Upload, 1);

  if (!gst_buffer_map (host, &u->map, flags)) {
    g_free (u);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "could not map a buffer to %s", (flags & GST_MAP_WRITE) ?
        "download into" : "upload");
    return NULL;
  }
  u->host = gst_buffer_ref (host);
  return u;
}

/* A copy of @u failed, but may have been queued: it finishes before its
 * buffers go. */
static void
upload_abandon (PlanUploader * uploader, Upload * u)
{
  plan_stream_synchronize (uploader->stream, NULL);
  upload_free (u);
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

/* plan_uploader_reap: private to libplan.
 * @uploader: an uploader
 * @keep: how many copies may stay in flight
 * @error: return location for an error
 *
 * Releases the sources of the copies that are done, and while more than
 * @keep are in flight, waits on the host for the oldest.
 *
 * Returns: %TRUE on success, %FALSE with @error set when the device failed.
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
  u = upload_new (source, GST_MAP_READ, error);
  if (u == NULL)
    return FALSE;
  if (!plan_stream_copy (uploader->stream, PLAN_COPY_HOST_TO_DEVICE,
          plan_device_memory_get_pointer (device_memory), u->map.data,
          u->map.size, error)
      || (u->done = plan_stream_record (uploader->stream, error)) == NULL) {
    upload_abandon (uploader, u);
    return FALSE;
  }
  plan_device_memory_set_ready_event (device_memory, u->done);
  g_queue_push_tail (&uploader->in_flight, u);
  return TRUE;
}

/**
 * plan_uploader_download: (skip)
 * @uploader: an uploader
 * @source: (transfer none): the buffer to copy: device memory of the
 *   uploader's device, or system memory, in any mix
 * @dest: (transfer none): a writable system-memory buffer of at least
 *   @source's size
 * @error: return location for an error
 *
 * Copies the memories of @source, in order, into @dest and waits for the
 * copies: device memory on the uploader's stream after its ready event,
 * with a use event recorded after the copy; system memory on the host.
 * The bytes of @dest past @source's size are left alone.
 *
 * Returns: %TRUE when @dest holds @source's bytes; %FALSE with @error set
 *   when the device failed, a memory could not be mapped or is on another
 *   device, or a copy failed (the stream has been waited for then: nothing
 *   queued still reads @source or writes @dest).
 *
 * Since: 0.1
 */
gboolean
plan_uploader_download (PlanUploader * uploader, GstBuffer * source,
    GstBuffer * dest, GError ** error)
{
  PlanDevice *device;
  guint i, n;
  gsize offset = 0;
  gboolean queued = FALSE;
  Upload *u;

  g_return_val_if_fail (uploader != NULL, FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (source), FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (dest), FALSE);

  if (gst_buffer_get_size (dest) < gst_buffer_get_size (source)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "cannot download %" G_GSIZE_FORMAT " bytes into a buffer of %"
        G_GSIZE_FORMAT, gst_buffer_get_size (source),
        gst_buffer_get_size (dest));
    return FALSE;
  }
  u = upload_new (dest, GST_MAP_WRITE, error);
  if (u == NULL)
    return FALSE;
  u->other = gst_buffer_ref (source);
  device = plan_stream_get_device (uploader->stream);
  n = gst_buffer_n_memory (source);
  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (source, i);
    GstMapInfo map;

    if (plan_is_device_memory (mem)) {
      if (plan_device_memory_get_device (mem) != device) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
            "memory %u of the buffer to download is on %s, not on %s", i,
            plan_device_get_name (plan_device_memory_get_device (mem)),
            plan_device_get_name (device));
        goto failed;
      }
      queued = TRUE;
      if (!plan_device_memory_wait_ready (mem, uploader->stream, error)
          || !plan_stream_copy (uploader->stream, PLAN_COPY_DEVICE_TO_HOST,
              u->map.data + offset, plan_device_memory_get_pointer (mem),
              mem->size, error)
          || !plan_device_memory_record_use (mem, uploader->stream, error))
        goto failed;
    } else if (gst_memory_map (mem, &map, GST_MAP_READ)) {
      memcpy (u->map.data + offset, map.data, map.size);
      gst_memory_unmap (mem, &map);
    } else {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
          "could not map memory %u of the buffer to download", i);
      goto failed;
    }
    offset += mem->size;
  }
  /* The caller reads @dest next: this is where the host must wait. */
  if (queued && ((u->done = plan_stream_record (uploader->stream,
                  error)) == NULL || !plan_event_synchronize (u->done,
                  error)))
    goto failed;
  upload_free (u);
  return TRUE;

failed:
  if (queued)
    upload_abandon (uploader, u);
  else
    upload_free (u);
  return FALSE;
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
