/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The device path of PlanKernelElement, kept apart from the base class's
 * own file so that the two can change independently; plankernelelement.c
 * calls these functions at five places (start/stop, source caps, each input
 * head, each output buffer). See docs/device.md.
 *
 * - Inputs in device memory (caps feature memory:PlanDevice) are brought to
 *   the host for subclasses that compute on host pointers, by a download
 *   of the transfer layer (plan_uploader_download()): the element's
 *   input stream waits on the buffer's ready event, copies, records a use
 *   event (so the producer's pool reuses the buffer only after the copy),
 *   and the host waits for the copy, since the subclass is about to read
 *   it.
 * - Subclasses with a launch() vmethod (maps) run on the device in stream
 *   order: the element's stream waits on the inputs' ready events (inputs
 *   in system memory are uploaded first, on the same stream), launch()
 *   queues the kernel, and the output's ready event and the inputs' use
 *   events are recorded after it. The host does not wait.
 * - Outputs go to device memory when the element targets a device
 *   (target=cuda, or target=auto with GST_PLAN_DEVICE set, or with an input
 *   in device memory) and downstream accepts device memory: the subclass
 *   fills a system buffer as always, and the base class uploads it on the
 *   element's stream without waiting, from a bounded PlanBufferPool, with
 *   a ready event on the device buffer.
 *
 * All functions run on the aggregate (streaming) thread, except new/free
 * (start/stop). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/core/plan-private.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (plan_kernel_device_debug);
#define GST_CAT_DEFAULT plan_kernel_device_debug

/* Device buffers in the output pool, and uploads in flight at most. */
#define OUTPUT_BUFFERS 4

/* An input head and its copy in the other memory. */
typedef struct
{
  GstBuffer *device;
  GstBuffer *host;
} InputCopy;

typedef struct
{
  GstBufferPool *pool;
  gsize size;
} Slot;

struct _PlanKernelDevice
{
  GstElement *element;          /* not a reference: it owns us */
  PlanTarget target;

  /* aggregate thread only */
  PlanDevice *device;           /* the target device, or NULL for the CPU */
  gboolean output_device;       /* the source caps say memory:PlanDevice */
  PlanStream *stream;           /* on device, for uploads */
  PlanStream *input_stream;     /* on the device of the inputs */
  Slot output;
  GArray *inputs;               /* InputCopy, per input index */
  GArray *input_slots;          /* Slot, per input index, for uploads */
  gboolean launch_unsupported;  /* launch() said this device can't */
  PlanUploader *uploader;       /* uploads of outputs, on stream */
  PlanUploader *downloads;      /* of inputs to the host, on input_stream */
};

static void
input_copy_clear (InputCopy * c)
{
  gst_clear_buffer (&c->device);
  gst_clear_buffer (&c->host);
}

static void
slot_clear (Slot * slot)
{
  if (slot->pool) {
    gst_buffer_pool_set_active (slot->pool, FALSE);
    gst_clear_object (&slot->pool);
  }
  slot->size = 0;
}

/* Whether the environment forces a device (GST_PLAN_DEVICE=sim|cuda). */
static gboolean
device_forced (void)
{
  const gchar *env = g_getenv (PLAN_DEVICE_ENV);

  return env != NULL && (g_str_equal (env, "sim") || g_str_equal (env, "cuda"));
}

PlanKernelDevice *
_plan_kernel_device_new (GstElement * element, PlanTarget target,
    GError ** error)
{
  PlanKernelDevice *self;
  PlanDevice *device = NULL;
  static gsize debug_done = 0;

  /* Elements start on threads of their own: once, for all of them. */
  if (g_once_init_enter (&debug_done)) {
    GST_DEBUG_CATEGORY_INIT (plan_kernel_device_debug, "plankerneldevice", 0,
        "Device path of PlanKernelElement");
    g_once_init_leave (&debug_done, 1);
  }

  if (target == PLAN_TARGET_CUDA
      || (target == PLAN_TARGET_AUTO && device_forced ())) {
    device = plan_device_get (target == PLAN_TARGET_CUDA ? "cuda" : "auto",
        error);
    if (device == NULL)
      return NULL;
  }

  self = g_new0 (PlanKernelDevice, 1);
  self->element = element;
  self->target = target;
  self->device = device;
  self->inputs = g_array_new (FALSE, TRUE, sizeof (InputCopy));
  g_array_set_clear_func (self->inputs, (GDestroyNotify) input_copy_clear);
  self->input_slots = g_array_new (FALSE, TRUE, sizeof (Slot));
  g_array_set_clear_func (self->input_slots, (GDestroyNotify) slot_clear);
  if (device)
    GST_INFO_OBJECT (element, "target device %s",
        plan_device_get_name (device));
  return self;
}

void
_plan_kernel_device_flush (PlanKernelDevice * self)
{
  if (self == NULL)
    return;
  g_array_set_size (self->inputs, 0);
  /* Uploads in flight still read their sources. */
  if (self->uploader && !plan_uploader_flush (self->uploader, NULL))
    GST_WARNING_OBJECT (self->element, "the device failed while flushing");
}

void
_plan_kernel_device_free (PlanKernelDevice * self)
{
  if (self == NULL)
    return;
  _plan_kernel_device_flush (self);
  g_clear_pointer (&self->uploader, plan_uploader_free);
  g_clear_pointer (&self->downloads, plan_uploader_free);
  g_array_unref (self->inputs);
  g_array_unref (self->input_slots);
  slot_clear (&self->output);
  plan_clear_stream (&self->stream);
  plan_clear_stream (&self->input_stream);
  gst_clear_object (&self->device);
  g_free (self);
}

/* With target=auto and no device forced, an input in device memory makes
 * the element produce device memory too: it runs "where the data is". */
static PlanDevice *
device_of_inputs (GstElement * element)
{
  PlanDevice *device = NULL;
  GList *l;

  GST_OBJECT_LOCK (element);
  for (l = element->sinkpads; l && device == NULL; l = l->next) {
    GstCaps *caps = gst_pad_get_current_caps (l->data);

    if (caps && plan_caps_is_device (caps))
      device = plan_device_get ("auto", NULL);
    gst_clear_caps (&caps);
  }
  GST_OBJECT_UNLOCK (element);
  return device;
}

GstCaps *
_plan_kernel_device_src_caps (PlanKernelDevice * self, GstCaps * caps,
    GstCaps * downstream)
{
  GstCaps *device_caps;

  if (self == NULL || self->target == PLAN_TARGET_CPU)
    return caps;
  if (self->device == NULL)
    self->device = device_of_inputs (self->element);
  if (self->device == NULL)
    return caps;

  /* Device memory when downstream takes it; system memory otherwise (a
   * file sink, say), uploaded by nobody. */
  device_caps = plan_caps_set_memory (caps, PLAN_CAPS_FEATURE_MEMORY_DEVICE);
  self->output_device = downstream == NULL
      || gst_caps_can_intersect (device_caps, downstream);
  if (!self->output_device) {
    gst_caps_unref (device_caps);
    return caps;
  }
  gst_caps_unref (caps);
  GST_DEBUG_OBJECT (self->element, "output in device memory on %s",
      plan_device_get_name (self->device));
  return device_caps;
}

/* The input stream, and its downloads, on @device. */
static gboolean
ensure_input_stream (PlanKernelDevice * self, PlanDevice * device,
    GError ** error)
{
  if (self->input_stream && plan_stream_get_device (self->input_stream) ==
      device)
    return TRUE;
  g_clear_pointer (&self->downloads, plan_uploader_free);
  plan_clear_stream (&self->input_stream);
  self->input_stream = plan_stream_new (device, error);
  if (self->input_stream == NULL)
    return FALSE;
  self->downloads = plan_uploader_new (self->input_stream, 1);
  return TRUE;
}

/* The device of the first device memory of @buf. */
static PlanDevice *
device_of_buffer (GstBuffer * buf)
{
  guint i, n = gst_buffer_n_memory (buf);

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);

    if (plan_is_device_memory (mem))
      return plan_device_memory_get_device (mem);
  }
  return NULL;
}

gboolean
_plan_kernel_device_input (PlanKernelDevice * self, guint index,
    GstBuffer ** head, GError ** error)
{
  InputCopy *c;
  GstBuffer *host;

  if (self == NULL || !plan_buffer_is_device (*head))
    return TRUE;

  if (index >= self->inputs->len)
    g_array_set_size (self->inputs, index + 1);
  c = &g_array_index (self->inputs, InputCopy, index);
  if (c->device != *head) {
    /* A new head: copy it once, however many chunks it is cut into. The
     * subclass computes on the host: the download waits for the copy. */
    host = gst_buffer_new_allocate (NULL, gst_buffer_get_size (*head), NULL);
    if (!ensure_input_stream (self, device_of_buffer (*head), error)
        || !plan_uploader_download (self->downloads, *head, host, error)) {
      gst_buffer_unref (host);
      return FALSE;
    }
    gst_buffer_copy_into (host, *head, GST_BUFFER_COPY_FLAGS |
        GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
    input_copy_clear (c);
    c->device = gst_buffer_ref (*head);
    c->host = host;
  }
  gst_buffer_unref (*head);
  *head = gst_buffer_ref (c->host);
  return TRUE;
}

static gboolean
ensure_stream (PlanKernelDevice * self, GError ** error)
{
  if (self->stream == NULL)
    self->stream = plan_stream_new (self->device, error);
  return self->stream != NULL;
}

/* A device buffer of @size bytes from the pool of @slot, which grows to
 * the largest size asked. The pool makes our stream wait for the buffer's
 * last use. */
static GstBuffer *
acquire (PlanKernelDevice * self, Slot * slot, gsize size, GError ** error)
{
  GstStructure *config;
  GstBuffer *buf = NULL;
  GstFlowReturn ret;
  GError *pool_error;

  if (!ensure_stream (self, error))
    return NULL;
  if (size > G_MAXUINT) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_DEVICE,
        "a chunk of %" G_GSIZE_FORMAT " bytes is over the 4 GiB a pool of "
        "device buffers holds: give smaller chunks (blocksize), or rows "
        "smaller than that", size);
    return NULL;
  }
  if (slot->pool == NULL || size > slot->size) {
    slot_clear (slot);
    slot->pool = plan_buffer_pool_new (self->stream);
    config = gst_buffer_pool_get_config (slot->pool);
    gst_buffer_pool_config_set_params (config, NULL, MAX (size, 1), 0,
        OUTPUT_BUFFERS);
    if (!gst_buffer_pool_set_config (slot->pool, config)
        || !gst_buffer_pool_set_active (slot->pool, TRUE)) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_DEVICE,
          "could not set up a pool of device buffers of %" G_GSIZE_FORMAT
          " bytes", size);
      slot_clear (slot);
      return NULL;
    }
    slot->size = MAX (size, 1);
  }
  ret = gst_buffer_pool_acquire_buffer (slot->pool, &buf, NULL);
  if (ret != GST_FLOW_OK) {
    pool_error = plan_buffer_pool_take_error (PLAN_BUFFER_POOL (slot->pool));
    if (pool_error)
      g_propagate_error (error, pool_error);
    else
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_DEVICE,
          "no device buffer: %s", gst_flow_get_name (ret));
    return NULL;
  }
  gst_buffer_set_size (buf, size);
  return buf;
}

/* Releases the sources of finished uploads; with OUTPUT_BUFFERS in flight,
 * waits on the host for the oldest (the bound on sources held). */
static gboolean
reap_uploads (PlanKernelDevice * self, GError ** error)
{
  return self->uploader == NULL
      || plan_uploader_reap (self->uploader, OUTPUT_BUFFERS - 1, error);
}

/* Queues the copy of system buffer @source (taken) into device buffer
 * @out on our stream, with @out's ready event after it. */
static gboolean
upload (PlanKernelDevice * self, GstBuffer * source, GstBuffer * out,
    GError ** error)
{
  gboolean ok;

  if (self->uploader == NULL)
    self->uploader = plan_uploader_new (self->stream, OUTPUT_BUFFERS);
  ok = plan_uploader_upload (self->uploader, source,
      gst_buffer_peek_memory (out, 0), error);
  gst_buffer_unref (source);
  return ok;
}

/* Whether outputs go out in device memory (the source caps say so). */
gboolean
_plan_kernel_device_outputs_to_device (PlanKernelDevice * self)
{
  return self != NULL && self->output_device;
}

GstBuffer *
_plan_kernel_device_output (PlanKernelDevice * self, GstBuffer * buffer,
    GError ** error)
{
  GstBuffer *out;

  if (self == NULL || !self->output_device || plan_buffer_is_device (buffer))
    return buffer;

  if (!reap_uploads (self, error))
    goto failed;
  out = acquire (self, &self->output, gst_buffer_get_size (buffer), error);
  if (out == NULL)
    goto failed;
  gst_buffer_copy_into (out, buffer, GST_BUFFER_COPY_FLAGS |
      GST_BUFFER_COPY_TIMESTAMPS | GST_BUFFER_COPY_META, 0, -1);
  if (!upload (self, buffer, out, error)) {
    gst_buffer_unref (out);
    return NULL;
  }
  return out;

failed:
  gst_buffer_unref (buffer);
  return NULL;
}

/* The device buffer holding input head @index: the head itself, or its
 * upload (once per head). */
static GstBuffer *
device_input (PlanKernelDevice * self, guint index, GstBuffer * head,
    GError ** error)
{
  InputCopy *c;
  GstBuffer *dev;

  if (plan_buffer_is_device (head)) {
    if (gst_buffer_n_memory (head) != 1) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
          "an input buffer holds %u device memories", gst_buffer_n_memory
          (head));
      return NULL;
    }
    return head;
  }

  if (index >= self->inputs->len)
    g_array_set_size (self->inputs, index + 1);
  if (index >= self->input_slots->len)
    g_array_set_size (self->input_slots, index + 1);
  c = &g_array_index (self->inputs, InputCopy, index);
  if (c->host == head)
    return c->device;

  dev = acquire (self, &g_array_index (self->input_slots, Slot, index),
      gst_buffer_get_size (head), error);
  if (dev == NULL || !upload (self, gst_buffer_ref (head), dev, error)) {
    gst_clear_buffer (&dev);
    return NULL;
  }
  input_copy_clear (c);
  c->host = gst_buffer_ref (head);
  c->device = dev;
  return dev;
}

/* Posts a failure of the work run on our stream: the kernel's own error
 * (what the data makes impossible) as the kernel's message, anything else
 * as the device's. */
static void
post_stream_error (PlanKernelDevice * self, const GError * err)
{
  if (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT))
    GST_ELEMENT_ERROR (self->element, LIBRARY, FAILED, ("%s", err->message),
        (NULL));
  else
    GST_ELEMENT_ERROR (self->element, RESOURCE, FAILED,
        ("Could not run the kernel on %s.", plan_device_get_name
            (self->device)), ("%s", err->message));
}

/* Waits for the inputs on our stream and fills @data with their device
 * pointers at the chunk's first row. */
static gboolean
wait_inputs (PlanKernelDevice * self, GstBuffer ** heads,
    const gsize * byte_offsets, guint n, GstBuffer ** dev,
    gconstpointer * data, GError ** error)
{
  guint i;

  for (i = 0; i < n; i++) {
    GstMemory *mem;

    dev[i] = device_input (self, i, heads[i], error);
    if (dev[i] == NULL)
      return FALSE;
    mem = gst_buffer_peek_memory (dev[i], 0);
    if (!plan_device_memory_wait_ready (mem, self->stream, error))
      return FALSE;
    data[i] = (guint8 *) plan_device_memory_get_pointer (mem) + byte_offsets[i];
  }
  return TRUE;
}

gboolean
_plan_kernel_device_launch (PlanKernelDevice * self,
    PlanKernelElement * element, GstBuffer ** heads,
    const gsize * byte_offsets, guint64 first_row, gsize n_rows,
    GstFlowReturn * ret)
{
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (element);
  guint i, n = plan_kernel_element_get_n_inputs (element);
  gsize out_row = plan_array_info_get_row_size
      (plan_kernel_element_get_output_info (element));
  gconstpointer *data = g_newa (gconstpointer, n);
  GstBuffer **dev = g_newa (GstBuffer *, n);
  GstBuffer *out = NULL;
  GError *err = NULL;
  PlanChunk chunk;

  if (self == NULL || klass->launch == NULL || self->launch_unsupported
      || self->device == NULL
      || (!self->output_device && !klass->launch_consumes))
    return FALSE;

  if (!ensure_stream (self, &err))
    goto failed;
  /* A kernel that failed on the stream's worker stops the next chunk. */
  if (!plan_stream_check_error (self->stream, &err)) {
    post_stream_error (self, err);
    g_clear_error (&err);
    *ret = GST_FLOW_ERROR;
    return TRUE;
  }
  if (!reap_uploads (self, &err)
      || !wait_inputs (self, heads, byte_offsets, n, dev, data, &err))
    goto failed;
  /* A class that pushes its own outputs (launch_pushes) allocates them
   * with plan_kernel_element_alloc_device_output(); a reduction
   * (launch_consumes) makes no output rows of the chunk. */
  if (!klass->launch_pushes && !klass->launch_consumes) {
    gsize out_size;

    /* (More than memory can address acquires what no pool holds.) */
    out = acquire (self, &self->output, g_size_checked_mul (&out_size,
            n_rows, out_row) ? out_size : G_MAXSIZE, &err);
    if (out == NULL)
      goto failed;
  }

  memset (&chunk, 0, sizeof (chunk));
  chunk.n_inputs = n;
  chunk.data = data;
  chunk.first_row = first_row;
  chunk.n_rows = n_rows;
  _plan_kernel_element_take_push_flow (element);
  if (!klass->launch (element, &chunk, out ? plan_device_memory_get_pointer
          (gst_buffer_peek_memory (out, 0)) : NULL, self->stream, &err))
    goto failed;
  if (out && !plan_buffer_record_ready (out, self->stream, &err))
    goto failed;
  for (i = 0; i < n; i++) {
    if (!plan_buffer_record_use (dev[i], self->stream, &err))
      goto failed;
  }
  if (out == NULL) {
    /* what the pushes launch() made returned, if any */
    *ret = _plan_kernel_element_take_push_flow (element);
    return TRUE;
  }
  *ret = plan_kernel_element_push_output (element, out);
  return TRUE;

failed:
  gst_clear_buffer (&out);
  if (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED)) {
    /* e.g. a host kernel on a CUDA device: compute on the host instead */
    GST_INFO_OBJECT (element, "no device kernel: %s; computing on host "
        "copies", err->message);
    self->launch_unsupported = TRUE;
    g_clear_error (&err);
    return FALSE;
  }
  if (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT)) {
    /* what the data makes impossible (numpy raises), as on the host */
    GST_ELEMENT_ERROR (element, STREAM, FAILED, ("%s", err->message),
        ("rows %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT, first_row,
            first_row + n_rows - 1));
    g_clear_error (&err);
    *ret = GST_FLOW_ERROR;
    return TRUE;
  }
  GST_ELEMENT_ERROR (element, RESOURCE, FAILED,
      ("Could not run the kernel on %s.", plan_device_get_name
          (self->device)), ("%s", err->message));
  g_clear_error (&err);
  *ret = GST_FLOW_ERROR;
  return TRUE;
}

/* At the end of the stream: reports a failure recorded on our stream so
 * far (see plan_stream_set_error()), so that the element fails instead of
 * sending EOS. It does not wait: a subclass whose device work can fail
 * synchronizes the stream in its finish() (as plancustom does), the other
 * kernel elements keep their host waits to the transfer elements. */
GstFlowReturn
_plan_kernel_device_finish (PlanKernelDevice * self)
{
  GError *err = NULL;

  if (self == NULL || self->stream == NULL
      || plan_stream_check_error (self->stream, &err))
    return GST_FLOW_OK;
  post_stream_error (self, err);
  g_clear_error (&err);
  return GST_FLOW_ERROR;
}

/* The element's stream, when chunks run on the device through launch(). */
PlanStream *
_plan_kernel_device_get_stream (PlanKernelDevice * self)
{
  if (self == NULL || !self->output_device || self->launch_unsupported)
    return NULL;
  return self->stream;
}

/* A device output buffer of @size bytes from the output pool, for a
 * launch() that pushes its own outputs; our stream waits for its last
 * use. */
GstBuffer *
_plan_kernel_device_alloc_output (PlanKernelDevice * self, gsize size,
    GError ** error)
{
  if (self == NULL || !self->output_device) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "the element's output is not in device memory");
    return NULL;
  }
  return acquire (self, &self->output, size, error);
}

/* Whether the element targets a device (known from start, or once an
 * input arrived in device memory). */
gboolean
_plan_kernel_device_has_device (PlanKernelDevice * self)
{
  return self != NULL && self->device != NULL;
}
