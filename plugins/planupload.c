/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-planupload
 * @title: planupload
 * @short_description: copy arrays from system memory to device memory
 *
 * planupload copies each buffer of an `array/x-raw` stream into device
 * memory (#PlanDeviceMemory) on its own stream, and pushes it with caps
 * `array/x-raw(memory:PlanDevice)` without waiting for the copy: the
 * buffer's ready event tells downstream device work when the data is
 * there. Buffers already in device memory pass through.
 *
 * Device memory comes from a bounded #PlanBufferPool of
 * #PlanUpload:max-buffers buffers, so a stream of any length uses bounded
 * device memory; when downstream holds them all, planupload waits for one
 * (backpressure). It also keeps at most #PlanUpload:max-buffers copies in
 * flight, holding their source buffers until the device has read them.
 *
 * #PlanUpload:device chooses the device; `auto` is the sim device when the
 * environment sets `GST_PLAN_DEVICE=sim`, the CUDA device otherwise. The
 * read-only #PlanUpload:stats property counts transfers, bytes and host
 * waits.
 *
 * Upstream is offered pinned host memory (#PlanHostMemory) in the
 * allocation query; planfilesrc reads into it.
 *
 * Kernel elements accept system memory and upload by themselves; this
 * element is for those who want the transfer in a place of their choosing.
 *
 * ## Example launch line
 * |[
 * GST_PLAN_DEVICE=sim gst-launch-1.0 planfilesrc location=in.npy ! \
 *     planupload ! plandownload ! planfilesink location=out.npy
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planupload.h"

GST_DEBUG_CATEGORY_STATIC (plan_upload_debug);
#define GST_CAT_DEFAULT plan_upload_debug

enum
{
  PROP_0,
  PROP_DEVICE,
  PROP_MAX_BUFFERS,
  PROP_STATS,
};

#define DEFAULT_DEVICE "auto"
#define DEFAULT_MAX_BUFFERS 4

struct _PlanUpload
{
  GstBaseTransform parent;

  /* protected by OBJECT_LOCK */
  gchar *device_name;
  guint max_buffers;
  guint64 transfers;
  guint64 bytes;
  guint64 host_waits;

  /* streaming thread only (STREAM_LOCK); set up in start() */
  PlanDevice *device;
  PlanStream *stream;
  GstBufferPool *pool;
  gsize pool_size;
  PlanUploader *uploader;       /* the copies in flight */
};

#define plan_upload_parent_class parent_class
G_DEFINE_TYPE (PlanUpload, plan_upload, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (planupload, "planupload",
    GST_RANK_NONE, PLAN_TYPE_UPLOAD,
    GST_DEBUG_CATEGORY_INIT (plan_upload_debug, "planupload", 0,
        "Array upload to device memory"));

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (PLAN_ARRAY_CAPS_ANY "; "
        PLAN_ARRAY_CAPS_MEDIA_TYPE "(" PLAN_CAPS_FEATURE_MEMORY_DEVICE
        "), dtype = (string) " PLAN_DTYPE_NAMES));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (PLAN_ARRAY_CAPS_MEDIA_TYPE "("
        PLAN_CAPS_FEATURE_MEMORY_DEVICE "), dtype = (string) "
        PLAN_DTYPE_NAMES));

static gboolean
plan_upload_start (GstBaseTransform * trans)
{
  PlanUpload *self = PLAN_UPLOAD (trans);
  GError *err = NULL;
  gchar *name;

  /* A number out of its property's range, before anything reads it. */
  if (!plan_element_check_ranges (GST_ELEMENT (self), &err)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err->message),
        (NULL));
    g_error_free (err);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  name = g_strdup (self->device_name);
  self->transfers = self->bytes = self->host_waits = 0;
  GST_OBJECT_UNLOCK (self);

  if (!plan_device_name_is_valid (name, &err))
    goto bad_name;
  self->device = plan_device_get (name, &err);
  if (self->device == NULL)
    goto no_device;
  if (!plan_device_is_gpu (self->device))
    goto not_gpu;
  self->stream = plan_stream_new (self->device, &err);
  if (self->stream == NULL)
    goto no_stream;
  GST_INFO_OBJECT (self, "uploading to %s",
      plan_device_get_name (self->device));
  g_free (name);
  return TRUE;

  /* ERRORS */
bad_name:
  {
    /* libplan's list of names has cpu, which is no device to upload to */
    if (!g_str_has_prefix (name, "cuda:")) {
      g_clear_error (&err);
      g_set_error (&err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "unknown device: expected cuda, cuda:N, sim or auto");
    }
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("%s, device \"%s\": %s", GST_ELEMENT_NAME (self), name,
            err->message), (NULL));
    g_clear_error (&err);
    g_free (name);
    return FALSE;
  }
no_device:
  {
    /* auto fails only where it means CUDA (sim always opens): say so */
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No device '%s' to upload to.", g_str_equal (name, "auto") ?
            "cuda" : name), ("%s", err->message));
    g_clear_error (&err);
    g_free (name);
    return FALSE;
  }
not_gpu:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Cannot upload to device '%s': it is the CPU.", name),
        ("choose cuda, sim or auto"));
    gst_clear_object (&self->device);
    g_free (name);
    return FALSE;
  }
no_stream:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not create a stream on %s.",
            plan_device_get_name (self->device)), ("%s", err->message));
    g_clear_error (&err);
    gst_clear_object (&self->device);
    g_free (name);
    return FALSE;
  }
}

static gboolean
plan_upload_stop (GstBaseTransform * trans)
{
  PlanUpload *self = PLAN_UPLOAD (trans);

  /* The copies in flight still read their sources: the uploader waits for
   * them before letting the sources go. A host wait, at shutdown only. */
  if (self->uploader && !plan_uploader_flush (self->uploader, NULL))
    GST_WARNING_OBJECT (self, "the device failed while stopping");
  g_clear_pointer (&self->uploader, plan_uploader_free);
  if (self->pool) {
    gst_buffer_pool_set_active (self->pool, FALSE);
    gst_clear_object (&self->pool);
  }
  self->pool_size = 0;
  plan_clear_stream (&self->stream);
  gst_clear_object (&self->device);
  return TRUE;
}

static GstCaps *
plan_upload_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *result;

  if (direction == GST_PAD_SINK) {
    result = plan_caps_set_memory (caps, PLAN_CAPS_FEATURE_MEMORY_DEVICE);
  } else {
    /* Upstream may give device memory (passed through) or system memory. */
    result = plan_caps_set_memory (caps, PLAN_CAPS_FEATURE_MEMORY_DEVICE);
    gst_caps_append (result, plan_caps_set_memory (caps, NULL));
  }
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, result,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (result);
    result = tmp;
  }
  GST_DEBUG_OBJECT (trans, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps,
      result);
  return result;
}

static gboolean
plan_upload_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  PlanArrayInfo info;
  GError *err = NULL;

  if (!plan_array_info_from_caps (&info, incaps, &err))
    goto bad_caps;
  gst_base_transform_set_passthrough (trans, plan_caps_is_device (incaps));
  return TRUE;

  /* ERRORS */
bad_caps:
  {
    GST_ELEMENT_ERROR (trans, STREAM, FORMAT,
        ("Cannot upload this stream: %s", err->message),
        ("caps %" GST_PTR_FORMAT, incaps));
    g_clear_error (&err);
    return FALSE;
  }
}

static gboolean
plan_upload_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  /* Device memory always comes from our own pool: downstream's proposals
   * are for memory we cannot copy into on our stream. */
  while (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_remove_nth_allocation_pool (query, 0);
  return TRUE;
}

/* Offers pinned host memory upstream: copies from it run at full speed and
 * truly asynchronously (planfilesrc reads into it). */
static gboolean
plan_upload_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstAllocator *allocator;

  if (gst_base_transform_is_passthrough (trans))
    return GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation
        (trans, decide_query, query);

  allocator = plan_host_allocator_get ();
  gst_query_add_allocation_param (query, allocator, NULL);
  gst_object_unref (allocator);
  return TRUE;
}

/* A pool whose buffers hold @size bytes: chunks are all the same size but
 * the last, and a larger one (a new segment) replaces the pool. */
static gboolean
ensure_pool (PlanUpload * self, gsize size, GError ** error)
{
  GstStructure *config;
  guint max_buffers;

  if (self->pool && size <= self->pool_size)
    return TRUE;
  if (size > G_MAXUINT) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_DEVICE,
        "a chunk of %" G_GSIZE_FORMAT " bytes is over the 4 GiB a pool of "
        "device buffers holds: give smaller chunks upstream (blocksize)",
        size);
    return FALSE;
  }

  GST_OBJECT_LOCK (self);
  max_buffers = self->max_buffers;
  GST_OBJECT_UNLOCK (self);

  if (self->pool) {
    gst_buffer_pool_set_active (self->pool, FALSE);
    gst_clear_object (&self->pool);
  }
  self->pool = plan_buffer_pool_new (self->stream);
  config = gst_buffer_pool_get_config (self->pool);
  gst_buffer_pool_config_set_params (config, NULL, size, 0, max_buffers);
  if (!gst_buffer_pool_set_config (self->pool, config)
      || !gst_buffer_pool_set_active (self->pool, TRUE)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_DEVICE,
        "could not configure a pool of %u buffers of %" G_GSIZE_FORMAT
        " bytes", max_buffers, size);
    gst_clear_object (&self->pool);
    return FALSE;
  }
  self->pool_size = size;
  return TRUE;
}

static GstFlowReturn
plan_upload_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  PlanUpload *self = PLAN_UPLOAD (trans);
  gsize size = gst_buffer_get_size (inbuf);
  guint64 waits_before;
  GError *err = NULL;
  GstFlowReturn ret;

  if (gst_base_transform_is_passthrough (trans)) {
    *outbuf = inbuf;
    return GST_FLOW_OK;
  }

  if (!ensure_pool (self, MAX (size, 1), &err))
    goto no_pool;
  waits_before = plan_buffer_pool_get_host_waits (PLAN_BUFFER_POOL
      (self->pool));
  ret = gst_buffer_pool_acquire_buffer (self->pool, outbuf, NULL);
  if (ret == GST_FLOW_FLUSHING) {
    GST_DEBUG_OBJECT (self, "flushing");
    return ret;
  }
  if (ret != GST_FLOW_OK)
    goto no_buffer;

  GST_OBJECT_LOCK (self);
  self->host_waits += plan_buffer_pool_get_host_waits (PLAN_BUFFER_POOL
      (self->pool)) - waits_before;
  GST_OBJECT_UNLOCK (self);
  gst_buffer_set_size (*outbuf, size);
  gst_buffer_copy_into (*outbuf, inbuf, GST_BUFFER_COPY_FLAGS |
      GST_BUFFER_COPY_TIMESTAMPS | GST_BUFFER_COPY_META, 0, -1);
  return GST_FLOW_OK;

  /* ERRORS */
no_pool:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not set up device memory on %s.",
            plan_device_get_name (self->device)), ("%s", err->message));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
no_buffer:
  {
    err = plan_buffer_pool_take_error (PLAN_BUFFER_POOL (self->pool));
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Out of device memory on %s for a chunk of %" G_GSIZE_FORMAT
            " bytes.", plan_device_get_name (self->device), size),
        ("%s", err ? err->message : gst_flow_get_name (ret)));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
}

static GstFlowReturn
plan_upload_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  PlanUpload *self = PLAN_UPLOAD (trans);
  GstMemory *mem = gst_buffer_peek_memory (outbuf, 0);
  GError *err = NULL;
  guint max_buffers;

  GST_OBJECT_LOCK (self);
  max_buffers = self->max_buffers;
  GST_OBJECT_UNLOCK (self);

  if (self->uploader == NULL)
    self->uploader = plan_uploader_new (self->stream, max_buffers);
  plan_uploader_set_max_in_flight (self->uploader, max_buffers);
  /* The pool made our stream wait for the last use of this buffer; the
   * copy goes after that, and the ready event after the copy. */
  if (!plan_uploader_upload (self->uploader, inbuf, mem, &err))
    goto copy_failed;

  GST_OBJECT_LOCK (self);
  self->transfers++;
  self->bytes += gst_buffer_get_size (inbuf);
  self->host_waits = plan_uploader_get_host_waits (self->uploader);
  GST_OBJECT_UNLOCK (self);
  GST_LOG_OBJECT (self, "queued upload of %" G_GSIZE_FORMAT " bytes, rows %"
      G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT, gst_buffer_get_size (inbuf),
      GST_BUFFER_OFFSET (inbuf), GST_BUFFER_OFFSET_END (inbuf));
  return GST_FLOW_OK;

  /* ERRORS */
copy_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Could not copy a chunk to %s.",
            plan_device_get_name (self->device)), ("%s", err->message));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
}

static GstStructure *
get_stats (PlanUpload * self)
{
  GstStructure *s;

  GST_OBJECT_LOCK (self);
  s = gst_structure_new ("plan-transfer-stats",
      "transfers", G_TYPE_UINT64, self->transfers,
      "bytes", G_TYPE_UINT64, self->bytes,
      "host-waits", G_TYPE_UINT64, self->host_waits, NULL);
  GST_OBJECT_UNLOCK (self);
  return s;
}

static void
plan_upload_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  PlanUpload *self = PLAN_UPLOAD (object);
  GError *err = NULL;

  if (plan_element_refuse_live_set (GST_ELEMENT (object), pspec, TRUE)
      || plan_element_refuse_out_of_range (GST_ELEMENT (object), pspec,
          value))
    return;

  switch (prop_id) {
    case PROP_DEVICE:
      /* A name that is no device is kept as given (reading it back
       * returns it) and refused when the element starts. */
      if (!plan_device_name_is_valid (g_value_get_string (value), &err)) {
        GST_WARNING_OBJECT (self, "device \"%s\" cannot work: %s",
            g_value_get_string (value), err->message);
        g_clear_error (&err);
      }
      GST_OBJECT_LOCK (self);
      g_free (self->device_name);
      self->device_name = g_value_dup_string (value);
      if (self->device_name == NULL)
        self->device_name = g_strdup (DEFAULT_DEVICE);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_MAX_BUFFERS:
      GST_OBJECT_LOCK (self);
      self->max_buffers = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
plan_upload_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  PlanUpload *self = PLAN_UPLOAD (object);

  switch (prop_id) {
    case PROP_DEVICE:
      GST_OBJECT_LOCK (self);
      g_value_set_string (value, self->device_name);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_MAX_BUFFERS:
      GST_OBJECT_LOCK (self);
      g_value_set_uint (value, self->max_buffers);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_STATS:
      g_value_take_boxed (value, get_stats (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
plan_upload_finalize (GObject * object)
{
  PlanUpload *self = PLAN_UPLOAD (object);

  g_free (self->device_name);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* planupload's and plandownload's sink_event. Pads are deactivated
 * source first: in between, an event that upstream sends finds our source
 * pad flushing. GStreamer's own rule for sticky events applies
 * (gst_pad_push_event ignores a failed sticky push): it is no error, and
 * the buffer behind it is told FLUSHING. Answering FALSE would make
 * upstream's push an ERROR that nobody explains. */
gboolean
plan_transfer_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstBaseTransformClass *parent =
      g_type_class_peek_parent (G_OBJECT_GET_CLASS (trans));
  gboolean sticky = GST_EVENT_IS_STICKY (event)
      && GST_EVENT_TYPE (event) != GST_EVENT_EOS;

  if (parent->sink_event (trans, event))
    return TRUE;
  if (sticky && GST_PAD_IS_FLUSHING (trans->srcpad)) {
    GST_DEBUG_OBJECT (trans, "source pad flushing: a sticky event not "
        "passed on is no error");
    return TRUE;
  }
  return FALSE;
}

static void
plan_upload_class_init (PlanUploadClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = plan_upload_set_property;
  gobject_class->get_property = plan_upload_get_property;
  gobject_class->finalize = plan_upload_finalize;

  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device",
          "The device to upload to: cuda, cuda:N, sim, or auto (sim when "
          "GST_PLAN_DEVICE=sim is set, cuda otherwise)", DEFAULT_DEVICE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_MAX_BUFFERS,
      plan_param_spec_checked_range (g_param_spec_uint ("max-buffers",
          "Maximum buffers",
          "Device buffers in the pool, and copies in flight at most: the "
          "bound on the device memory this element uses", 1, 1024,
          DEFAULT_MAX_BUFFERS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Counters since the element started: transfers, bytes and "
          "host-waits (a plan-transfer-stats structure of guint64 fields)",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Array upload", "Filter/Converter/Array/Device",
      "Copies arrays from system memory to device memory on its own stream "
      "without waiting, with a bounded pool of device buffers",
      PLAN_CONTACT);
  gst_element_class_add_static_metadata (element_class,
      GST_ELEMENT_METADATA_DOC_URI, PLAN_DOC_URI "/planupload.md");

  trans_class->start = GST_DEBUG_FUNCPTR (plan_upload_start);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (plan_transfer_sink_event);
  trans_class->stop = GST_DEBUG_FUNCPTR (plan_upload_stop);
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (plan_upload_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (plan_upload_set_caps);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (plan_upload_decide_allocation);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (plan_upload_propose_allocation);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (plan_upload_prepare_output_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (plan_upload_transform);
  trans_class->passthrough_on_same_caps = FALSE;
}

static void
plan_upload_init (PlanUpload * self)
{
  self->device_name = g_strdup (DEFAULT_DEVICE);
  self->max_buffers = DEFAULT_MAX_BUFFERS;
}
