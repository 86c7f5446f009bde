/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-plandownload
 * @title: plandownload
 * @short_description: copy arrays from device memory to system memory
 *
 * plandownload copies each buffer of an `array/x-raw(memory:PlanDevice)`
 * stream into system memory, through libplan's transfer layer
 * (plan_uploader_download()): its own stream waits on the buffer's ready
 * event, copies, and records a use event on the device memory (so that the
 * buffer's pool reuses it only after the copy); then the host waits for
 * the copy, because what it pushes downstream is for host code to read.
 * A copy that fails is waited for before the buffers are released.
 * That wait is the only host wait of the element, counted in the
 * read-only #PlanDownload:stats property with the transfers and bytes.
 *
 * Buffers in system memory pass through.
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

#include "plandownload.h"
#include "planupload.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (plan_download_debug);
#define GST_CAT_DEFAULT plan_download_debug

enum
{
  PROP_0,
  PROP_STATS,
};

struct _PlanDownload
{
  GstBaseTransform parent;

  /* protected by OBJECT_LOCK */
  guint64 transfers;
  guint64 bytes;
  guint64 host_waits;

  /* streaming thread only (STREAM_LOCK) */
  PlanStream *stream;
  PlanUploader *downloads;      /* on stream */
};

#define plan_download_parent_class parent_class
G_DEFINE_TYPE (PlanDownload, plan_download, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (plandownload, "plandownload",
    GST_RANK_NONE, PLAN_TYPE_DOWNLOAD,
    GST_DEBUG_CATEGORY_INIT (plan_download_debug, "plandownload", 0,
        "Array download from device memory"));

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (PLAN_ARRAY_CAPS_MEDIA_TYPE "("
        PLAN_CAPS_FEATURE_MEMORY_DEVICE "), dtype = (string) "
        PLAN_DTYPE_NAMES "; " PLAN_ARRAY_CAPS_ANY));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (PLAN_ARRAY_CAPS_ANY));

static gboolean
plan_download_start (GstBaseTransform * trans)
{
  PlanDownload *self = PLAN_DOWNLOAD (trans);

  GST_OBJECT_LOCK (self);
  self->transfers = self->bytes = self->host_waits = 0;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
plan_download_stop (GstBaseTransform * trans)
{
  PlanDownload *self = PLAN_DOWNLOAD (trans);

  g_clear_pointer (&self->downloads, plan_uploader_free);
  plan_clear_stream (&self->stream);
  return TRUE;
}

static GstCaps *
plan_download_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *result;

  if (direction == GST_PAD_SINK) {
    result = plan_caps_set_memory (caps, NULL);
  } else {
    result = plan_caps_set_memory (caps, PLAN_CAPS_FEATURE_MEMORY_DEVICE);
    gst_caps_append (result, plan_caps_set_memory (caps, NULL));
  }
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, result,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (result);
    result = tmp;
  }
  return result;
}

static gboolean
plan_download_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  PlanArrayInfo info;
  GError *err = NULL;

  if (!plan_array_info_from_caps (&info, incaps, &err))
    goto bad_caps;
  gst_base_transform_set_passthrough (trans, !plan_caps_is_device (incaps));
  return TRUE;

  /* ERRORS */
bad_caps:
  {
    GST_ELEMENT_ERROR (trans, STREAM, FORMAT,
        ("Cannot download this stream: %s", err->message),
        ("caps %" GST_PTR_FORMAT, incaps));
    g_clear_error (&err);
    return FALSE;
  }
}

static gboolean
plan_download_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size,
    GstCaps * othercaps, gsize * othersize)
{
  *othersize = size;
  return TRUE;
}

/* A stream, and its transfers, on the device of @mem; ours, unless the
 * input moved to another device. */
static gboolean
ensure_stream (PlanDownload * self, GstMemory * mem, GError ** error)
{
  PlanDevice *device = plan_device_memory_get_device (mem);

  if (self->stream && plan_stream_get_device (self->stream) == device)
    return TRUE;
  g_clear_pointer (&self->downloads, plan_uploader_free);
  plan_clear_stream (&self->stream);
  self->stream = plan_stream_new (device, error);
  if (self->stream == NULL)
    return FALSE;
  self->downloads = plan_uploader_new (self->stream, 1);
  GST_DEBUG_OBJECT (self, "downloading from %s", plan_device_get_name
      (device));
  return TRUE;
}

/* The first device memory of @buf, or %NULL. */
static GstMemory *
first_device_memory (GstBuffer * buf)
{
  guint i, n = gst_buffer_n_memory (buf);

  for (i = 0; i < n; i++) {
    if (plan_is_device_memory (gst_buffer_peek_memory (buf, i)))
      return gst_buffer_peek_memory (buf, i);
  }
  return NULL;
}

static GstFlowReturn
plan_download_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  PlanDownload *self = PLAN_DOWNLOAD (trans);
  gsize size = gst_buffer_get_size (inbuf);
  GstMemory *mem = first_device_memory (inbuf);
  GError *err = NULL;
  GstMapInfo out;

  if (mem == NULL) {
    /* nothing on a device after all: a copy on the host */
    if (!gst_buffer_map (outbuf, &out, GST_MAP_WRITE))
      goto map_failed;
    gst_buffer_extract (inbuf, 0, out.data, MIN (size, out.size));
    gst_buffer_unmap (outbuf, &out);
    return GST_FLOW_OK;
  }
  /* The host hands the data downstream, to code that reads it: the
   * download waits for the copies. */
  if (!ensure_stream (self, mem, &err)
      || !plan_uploader_download (self->downloads, inbuf, outbuf, &err))
    goto copy_failed;

  GST_OBJECT_LOCK (self);
  self->transfers++;
  self->bytes += size;
  self->host_waits++;
  GST_OBJECT_UNLOCK (self);
  return GST_FLOW_OK;

  /* ERRORS */
map_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Could not write the output buffer."), ("gst_buffer_map failed"));
    return GST_FLOW_ERROR;
  }
copy_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("Could not copy a chunk from the device."), ("%s", err->message));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
}

static void
plan_download_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  PlanDownload *self = PLAN_DOWNLOAD (object);

  switch (prop_id) {
    case PROP_STATS:
      GST_OBJECT_LOCK (self);
      g_value_take_boxed (value, gst_structure_new ("plan-transfer-stats",
              "transfers", G_TYPE_UINT64, self->transfers,
              "bytes", G_TYPE_UINT64, self->bytes,
              "host-waits", G_TYPE_UINT64, self->host_waits, NULL));
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
plan_download_class_init (PlanDownloadClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->get_property = plan_download_get_property;

  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Counters since the element started: transfers, bytes and "
          "host-waits (a plan-transfer-stats structure of guint64 fields)",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Array download", "Filter/Converter/Array/Device",
      "Copies arrays from device memory to system memory, ordered after "
      "their producer by its ready event",
      PLAN_CONTACT);
  gst_element_class_add_static_metadata (element_class,
      GST_ELEMENT_METADATA_DOC_URI, PLAN_DOC_URI "/plandownload.md");

  trans_class->start = GST_DEBUG_FUNCPTR (plan_download_start);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (plan_transfer_sink_event);
  trans_class->stop = GST_DEBUG_FUNCPTR (plan_download_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (plan_download_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (plan_download_set_caps);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (plan_download_transform_size);
  trans_class->transform = GST_DEBUG_FUNCPTR (plan_download_transform);
  trans_class->passthrough_on_same_caps = FALSE;
}

static void
plan_download_init (PlanDownload * self)
{
}
