/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_NPY_MUX_H__
#define __PLAN_NPY_MUX_H__

#include <gst/gst.h>
#include <libplan/plan.h>

G_BEGIN_DECLS

#define PLAN_TYPE_NPY_MUX (plan_npy_mux_get_type ())
G_DECLARE_FINAL_TYPE (PlanNpyMux, plan_npy_mux, PLAN, NPY_MUX, GstElement)

GST_ELEMENT_REGISTER_DECLARE (npymux);

G_END_DECLS

#endif /* __PLAN_NPY_MUX_H__ */
