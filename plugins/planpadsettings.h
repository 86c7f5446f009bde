/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_PAD_SETTINGS_H__
#define __PLAN_PAD_SETTINGS_H__

#include <libplan/plan.h>

G_BEGIN_DECLS

gboolean plan_refuse_unread_pad_settings (PlanKernelElement * kernel,
    const gchar * factory, guint n_inputs, gboolean reads_variable,
    gboolean reads_window, GError ** error);

G_END_DECLS

#endif /* __PLAN_PAD_SETTINGS_H__ */
