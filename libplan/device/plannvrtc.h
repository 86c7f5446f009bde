/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_NVRTC_H__
#define __PLAN_NVRTC_H__

#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's NVRTC compiler API is unstable and may change; define PLAN_USE_UNSTABLE_API to use it without this warning."
#endif

#include <libplan/plan-prelude.h>
#include <libplan/plandevice.h>

G_BEGIN_DECLS

PLAN_API
gboolean plan_nvrtc_load (GError ** error);

PLAN_API
gboolean plan_nvrtc_compile (const gchar * source, const gchar * arch,
    GBytes ** code, GError ** error);

PLAN_API
gboolean plan_nvrtc_check_function (const gchar * source,
    const gchar * function, GError ** error);

PLAN_API
PlanKernel * plan_nvrtc_build_kernel (PlanDevice * device,
    const gchar * source, const gchar * function, GError ** error);

PLAN_API
guint plan_nvrtc_get_n_compilations (void);

PLAN_API
gchar * plan_nvrtc_get_cache_path (const gchar * source, const gchar * arch);

G_END_DECLS

#endif /* __PLAN_NVRTC_H__ */
