/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_FILE_SINK_H__
#define __PLAN_FILE_SINK_H__

#include <gst/base/gstbasesink.h>
#include <libplan/plan.h>

G_BEGIN_DECLS

#define PLAN_TYPE_FILE_SINK (plan_file_sink_get_type ())
G_DECLARE_FINAL_TYPE (PlanFileSink, plan_file_sink, PLAN, FILE_SINK,
    GstBaseSink)

GST_ELEMENT_REGISTER_DECLARE (planfilesink);

G_END_DECLS

#endif /* __PLAN_FILE_SINK_H__ */
