/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planbufferpool
 * @title: PlanBufferPool
 * @short_description: a bounded pool of device buffers with stream-ordered
 *   reuse
 *
 * A #PlanBufferPool hands out buffers of one #PlanDeviceMemory each, on the
 * device of the stream it was made for: the stream of the element that
 * writes into the buffers it acquires.
 *
 * Reuse is ordered on the device, not on the host. A buffer comes back to
 * the pool carrying the events of its last write and of the reads since
 * (plan_device_memory_record_ready(), plan_device_memory_record_use()).
 * When the pool hands it out again, it makes its stream wait on those
 * events, so that the next write cannot start before the last read ended;
 * the host does not wait.
 *
 * The pool is bounded: the maximum number of buffers in the config must
 * not be 0. When all are out, gst_buffer_pool_acquire_buffer() blocks until
 * one comes back: that is the backpressure that keeps device memory
 * bounded whatever the length of the stream, and the only host wait of
 * the pool (counted by plan_buffer_pool_get_host_waits() and in the
 * device's `host-waits` statistic).
 *
 * Buffers given back at a smaller size (the last chunk of a stream) are
 * resized to the configured size, not thrown away.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planbufferpool.h"
#include "plandevicememory.h"
#include "libplan/core/plan-private.h"

GST_DEBUG_CATEGORY_STATIC (plan_buffer_pool_debug);
#define GST_CAT_DEFAULT plan_buffer_pool_debug

struct _PlanBufferPool
{
  GstBufferPool parent;

  /* construct-only, no lock */
  PlanStream *stream;
  PlanDevice *device;

  /* protected by OBJECT_LOCK */
  gsize size;
  guint64 host_waits;
  GError *error;
};

G_DEFINE_TYPE (PlanBufferPool, plan_buffer_pool, GST_TYPE_BUFFER_POOL);

static void
set_error (PlanBufferPool * self, GError * error)
{
  GST_OBJECT_LOCK (self);
  g_clear_error (&self->error);
  self->error = error;
  GST_OBJECT_UNLOCK (self);
}

static gboolean
plan_buffer_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  PlanBufferPool *self = PLAN_BUFFER_POOL (pool);
  GstCaps *caps;
  guint size, min, max;

  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max))
    goto wrong_config;
  if (max == 0)
    goto unbounded;
  if (size == 0)
    goto no_size;

  GST_OBJECT_LOCK (self);
  self->size = size;
  GST_OBJECT_UNLOCK (self);

  return GST_BUFFER_POOL_CLASS (plan_buffer_pool_parent_class)->set_config
      (pool, config);

  /* ERRORS */
wrong_config:
  {
    GST_WARNING_OBJECT (self, "invalid config %" GST_PTR_FORMAT, config);
    return FALSE;
  }
unbounded:
  {
    GST_WARNING_OBJECT (self, "a device pool must be bounded: "
        "max-buffers is 0");
    return FALSE;
  }
no_size:
  {
    GST_WARNING_OBJECT (self, "buffer size is 0");
    return FALSE;
  }
}

static GstFlowReturn
plan_buffer_pool_alloc_buffer (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  PlanBufferPool *self = PLAN_BUFFER_POOL (pool);
  GError *err = NULL;
  GstMemory *mem;
  gsize size;

  GST_OBJECT_LOCK (self);
  size = self->size;
  GST_OBJECT_UNLOCK (self);

  mem = plan_device_allocator_alloc (self->device, size, &err);
  if (mem == NULL) {
    GST_WARNING_OBJECT (self, "%s", err->message);
    set_error (self, err);
    return GST_FLOW_ERROR;
  }
  *buffer = gst_buffer_new ();
  gst_buffer_append_memory (*buffer, mem);
  return GST_FLOW_OK;
}

static void
plan_buffer_pool_reset_buffer (GstBufferPool * pool, GstBuffer * buffer)
{
  PlanBufferPool *self = PLAN_BUFFER_POOL (pool);
  gsize size;

  GST_BUFFER_POOL_CLASS (plan_buffer_pool_parent_class)->reset_buffer (pool,
      buffer);

  /* A short last chunk comes back smaller; give it its full size again so
   * that the pool keeps it. */
  GST_OBJECT_LOCK (self);
  size = self->size;
  GST_OBJECT_UNLOCK (self);
  if (gst_buffer_get_size (buffer) != size)
    gst_buffer_set_size (buffer, size);
}

/* Makes the pool's stream wait for the last use of every memory of
 * @buffer: the writer that acquired it queues its work after that. */
static gboolean
wait_last_use (PlanBufferPool * self, GstBuffer * buffer, GError ** error)
{
  guint i, n = gst_buffer_n_memory (buffer);

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);

    if (!plan_device_memory_wait_idle (mem, self->stream,
            PLAN_WAIT_SITE_POOL_REUSE, error))
      return FALSE;
  }
  return TRUE;
}

static GstFlowReturn
plan_buffer_pool_acquire_buffer (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  PlanBufferPool *self = PLAN_BUFFER_POOL (pool);
  GstBufferPoolClass *parent = GST_BUFFER_POOL_CLASS
      (plan_buffer_pool_parent_class);
  GstBufferPoolAcquireParams p = { 0, };
  gboolean dontwait;
  GError *err = NULL;
  GstFlowReturn ret;

  if (params)
    p = *params;
  dontwait = (p.flags & GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT) != 0;
  p.flags |= GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
  ret = parent->acquire_buffer (pool, buffer, &p);
  if (ret == GST_FLOW_EOS && !dontwait) {
    /* Every buffer is out: block until a consumer gives one back. This is
     * the backpressure, and the only place the pool makes the host wait. */
    GST_LOG_OBJECT (self, "exhausted, waiting for a buffer");
    GST_OBJECT_LOCK (self);
    self->host_waits++;
    GST_OBJECT_UNLOCK (self);
    plan_device_count_host_wait (self->device);
    p.flags &= ~GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
    ret = parent->acquire_buffer (pool, buffer, &p);
  }
  if (ret != GST_FLOW_OK)
    return ret;

  if (!wait_last_use (self, *buffer, &err)) {
    set_error (self, err);
    gst_buffer_pool_release_buffer (pool, *buffer);
    *buffer = NULL;
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static void
plan_buffer_pool_finalize (GObject * object)
{
  PlanBufferPool *self = PLAN_BUFFER_POOL (object);

  g_clear_error (&self->error);
  G_OBJECT_CLASS (plan_buffer_pool_parent_class)->finalize (object);
  /* the stream outlives the buffers the parent freed */
  plan_clear_stream (&self->stream);
  gst_clear_object (&self->device);
}

static void
plan_buffer_pool_class_init (PlanBufferPoolClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  gobject_class->finalize = plan_buffer_pool_finalize;
  pool_class->set_config = GST_DEBUG_FUNCPTR (plan_buffer_pool_set_config);
  pool_class->alloc_buffer = GST_DEBUG_FUNCPTR (plan_buffer_pool_alloc_buffer);
  pool_class->reset_buffer = GST_DEBUG_FUNCPTR (plan_buffer_pool_reset_buffer);
  pool_class->acquire_buffer =
      GST_DEBUG_FUNCPTR (plan_buffer_pool_acquire_buffer);

  GST_DEBUG_CATEGORY_INIT (plan_buffer_pool_debug, "planbufferpool", 0,
      "device buffer pool");
}

static void
plan_buffer_pool_init (PlanBufferPool * self)
{
}

/**
 * plan_buffer_pool_new:
 * @stream: the stream of the element that will write into the buffers
 *
 * Creates a pool of device buffers on the device of @stream. Configure it
 * with gst_buffer_pool_config_set_params(), with a maximum number of
 * buffers other than 0.
 *
 * Returns: (transfer full): a new pool.
 *
 * Since: 0.1
 */
GstBufferPool *
plan_buffer_pool_new (PlanStream * stream)
{
  PlanBufferPool *self;

  g_return_val_if_fail (stream != NULL, NULL);

  self = g_object_new (PLAN_TYPE_BUFFER_POOL, NULL);
  gst_object_ref_sink (self);
  self->stream = plan_stream_ref (stream);
  self->device = gst_object_ref (plan_stream_get_device (stream));
  return GST_BUFFER_POOL_CAST (self);
}

/**
 * plan_buffer_pool_get_host_waits:
 * @pool: a #PlanBufferPool
 *
 * Returns: how many times an acquire found the pool exhausted and blocked.
 *
 * Since: 0.1
 */
guint64
plan_buffer_pool_get_host_waits (PlanBufferPool * pool)
{
  guint64 waits;

  g_return_val_if_fail (PLAN_IS_BUFFER_POOL (pool), 0);

  GST_OBJECT_LOCK (pool);
  waits = pool->host_waits;
  GST_OBJECT_UNLOCK (pool);
  return waits;
}

/**
 * plan_buffer_pool_take_error:
 * @pool: a #PlanBufferPool
 *
 * The reason of the last GST_FLOW_ERROR from an acquire or activation
 * (out of device memory, for instance), for the element to post.
 *
 * Returns: (transfer full) (nullable): the error, which the pool forgets.
 *
 * Since: 0.1
 */
GError *
plan_buffer_pool_take_error (PlanBufferPool * pool)
{
  GError *error;

  g_return_val_if_fail (PLAN_IS_BUFFER_POOL (pool), NULL);

  GST_OBJECT_LOCK (pool);
  error = pool->error;
  pool->error = NULL;
  GST_OBJECT_UNLOCK (pool);
  return error;
}
