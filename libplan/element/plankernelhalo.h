/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_KERNEL_HALO_H__
#define __PLAN_KERNEL_HALO_H__

#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's kernel element halo API is unstable and may change; define PLAN_USE_UNSTABLE_API to use it without this warning."
#endif

#include <libplan/plan-prelude.h>
#include <libplan/plankernelelement.h>
#include <libplan/planhalo.h>

G_BEGIN_DECLS

PLAN_API
gboolean plan_kernel_element_fill_halo_end (PlanKernelElement * self,
    guint index, PlanHalo * halo, gsize n_rows, GError ** error);

G_END_DECLS

#endif /* __PLAN_KERNEL_HALO_H__ */
