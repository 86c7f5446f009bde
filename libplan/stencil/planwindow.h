/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_WINDOW_H__
#define __PLAN_WINDOW_H__

#include <libplan/plan-prelude.h>

G_BEGIN_DECLS

/**
 * PLAN_WINDOW_MAX_SIZE:
 *
 * The largest number of cells a window may have along each axis.
 *
 * Since: 0.1
 */
#define PLAN_WINDOW_MAX_SIZE 255

/**
 * PlanWindow:
 *
 * An opaque, immutable, reference-counted stencil window parsed from its
 * picture by plan_window_parse().
 *
 * Since: 0.1
 */
typedef struct _PlanWindow PlanWindow;

#define PLAN_TYPE_WINDOW (plan_window_get_type ())
PLAN_API
GType plan_window_get_type (void);

PLAN_API
PlanWindow * plan_window_parse (const gchar * picture, GError ** error);

PLAN_API
PlanWindow * plan_window_ref (PlanWindow * window);

PLAN_API
void plan_window_unref (PlanWindow * window);

PLAN_API
guint plan_window_get_width (const PlanWindow * window);

PLAN_API
guint plan_window_get_height (const PlanWindow * window);

PLAN_API
guint plan_window_get_depth (const PlanWindow * window);

PLAN_API
guint plan_window_get_n_names (const PlanWindow * window);

PLAN_API
const gchar * const * plan_window_get_names (const PlanWindow * window);

PLAN_API
gboolean plan_window_get_offset (const PlanWindow * window, guint index,
    gint * dy, gint * dx);

PLAN_API
gboolean plan_window_get_offset_3d (const PlanWindow * window, guint index,
    gint * dz, gint * dy, gint * dx);

PLAN_API
gint plan_window_lookup (const PlanWindow * window, const gchar * name);

PLAN_API
gchar * plan_window_to_string (const PlanWindow * window);

PLAN_API
gboolean plan_window_name_is_reserved (const gchar * name);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanWindow, plan_window_unref)

G_END_DECLS

#endif /* __PLAN_WINDOW_H__ */
