/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_UPLOADER_H__
#define __PLAN_UPLOADER_H__

#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's uploader API is unstable and may change; define PLAN_USE_UNSTABLE_API to use it without this warning."
#endif

#include <libplan/plan-prelude.h>
#include <libplan/plandevice.h>

G_BEGIN_DECLS

/**
 * PlanUploader:
 *
 * Asynchronous copies of system buffers into device memory on one stream,
 * with a bound on the copies in flight: each source buffer is kept mapped
 * until its copy is done, and with the bound reached the host waits for
 * the oldest; and downloads of device buffers into system buffers on the
 * same stream. What planupload, plandownload and the kernel elements'
 * device path share.
 * Not thread-safe: one streaming thread uses it.
 *
 * Since: 0.1
 */
typedef struct _PlanUploader PlanUploader;

PLAN_API
PlanUploader * plan_uploader_new (PlanStream * stream, guint max_in_flight);

PLAN_API
void plan_uploader_free (PlanUploader * uploader);

PLAN_API
gboolean plan_uploader_upload (PlanUploader * uploader, GstBuffer * source,
    GstMemory * device_memory, GError ** error);

PLAN_API
gboolean plan_uploader_download (PlanUploader * uploader, GstBuffer * source,
    GstBuffer * dest, GError ** error);

PLAN_API
gboolean plan_uploader_flush (PlanUploader * uploader, GError ** error);

PLAN_API
void plan_uploader_set_max_in_flight (PlanUploader * uploader,
    guint max_in_flight);

PLAN_API
guint64 plan_uploader_get_host_waits (PlanUploader * uploader);

G_END_DECLS

#endif /* __PLAN_UPLOADER_H__ */
