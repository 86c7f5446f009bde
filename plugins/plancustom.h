/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_CUSTOM_ELEMENT_H__
#define __PLAN_CUSTOM_ELEMENT_H__

#include <libplan/plan.h>

G_BEGIN_DECLS

#define PLAN_TYPE_CUSTOM (plan_custom_get_type ())
G_DECLARE_FINAL_TYPE (PlanCustom, plan_custom, PLAN, CUSTOM, PlanKernelElement)

GST_ELEMENT_REGISTER_DECLARE (plancustom);

G_END_DECLS

#endif /* __PLAN_CUSTOM_ELEMENT_H__ */
