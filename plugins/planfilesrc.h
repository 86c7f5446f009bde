/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_FILE_SRC_H__
#define __PLAN_FILE_SRC_H__

#include <gst/base/gstpushsrc.h>
#include <libplan/plan.h>

G_BEGIN_DECLS

#define PLAN_TYPE_FILE_SRC (plan_file_src_get_type ())
G_DECLARE_FINAL_TYPE (PlanFileSrc, plan_file_src, PLAN, FILE_SRC, GstPushSrc)

GST_ELEMENT_REGISTER_DECLARE (planfilesrc);

G_END_DECLS

#endif /* __PLAN_FILE_SRC_H__ */
