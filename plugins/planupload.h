/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_UPLOAD_H__
#define __PLAN_UPLOAD_H__

#include <gst/base/gstbasetransform.h>
#include <libplan/plan.h>

G_BEGIN_DECLS

#define PLAN_TYPE_UPLOAD (plan_upload_get_type ())
G_DECLARE_FINAL_TYPE (PlanUpload, plan_upload, PLAN, UPLOAD,
    GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (planupload);

/* planupload's and plandownload's GstBaseTransform sink_event: a sticky
 * event that meets the source pad flushing while the element stops is no
 * error. */
gboolean plan_transfer_sink_event (GstBaseTransform * trans,
    GstEvent * event);

G_END_DECLS

#endif /* __PLAN_UPLOAD_H__ */
