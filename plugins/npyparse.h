/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_NPY_PARSE_H__
#define __PLAN_NPY_PARSE_H__

#include <gst/gst.h>
#include <libplan/plan.h>

G_BEGIN_DECLS

#define PLAN_TYPE_NPY_PARSE (plan_npy_parse_get_type ())
G_DECLARE_FINAL_TYPE (PlanNpyParse, plan_npy_parse, PLAN, NPY_PARSE,
    GstElement)

GST_ELEMENT_REGISTER_DECLARE (npyparse);

G_END_DECLS

#endif /* __PLAN_NPY_PARSE_H__ */
