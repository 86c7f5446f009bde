/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_ARRAY_H__
#define __PLAN_ARRAY_H__

#include <libplan/plan-prelude.h>
#include <libplan/planarrayinfo.h>
#include <libplan/plandevice.h>

G_BEGIN_DECLS

/**
 * PlanReleaseFunc:
 * @user_data: (closure): the data given with it
 *
 * Tells the owner of wrapped memory that libplan no longer uses it.
 *
 * Since: 0.1
 */
typedef void (*PlanReleaseFunc) (gpointer user_data);

#define PLAN_TYPE_ARRAY (plan_array_get_type ())

/**
 * PlanArray:
 *
 * An n-dimensional, C-contiguous array in host memory: a dtype, a shape
 * whose outermost axis (the rows) is known, and the data. Either the array
 * owns its data (plan_array_new()) or it wraps memory that someone else
 * owns (plan_array_new_wrapped(), plan_array_new_from_bytes()), without
 * copying it. The dtype and shape never change; the data may, when the
 * array is writable.
 *
 * Since: 0.1
 */
PLAN_API
G_DECLARE_FINAL_TYPE (PlanArray, plan_array, PLAN, ARRAY, GObject)

PLAN_API
PlanArray * plan_array_new (PlanDType dtype, guint ndim, const gint64 * shape,
    GError ** error);

PLAN_API
PlanArray * plan_array_new_wrapped (gpointer data, gsize size,
    PlanDType dtype, guint ndim, const gint64 * shape, gpointer user_data,
    GDestroyNotify notify, GError ** error);

PLAN_API
PlanArray * plan_array_new_for_address (PlanDevice * device,
    guintptr address, gsize size, PlanDType dtype, guint ndim,
    const gint64 * shape, gboolean writable, PlanReleaseFunc release,
    gpointer user_data, GDestroyNotify notify, GError ** error);

PLAN_API
PlanArray * plan_array_new_for_owner (PlanDevice * device,
    guintptr address, gsize size, PlanDType dtype, guint ndim,
    const gint64 * shape, gboolean writable, GObject * owner,
    GError ** error);

PLAN_API
guintptr plan_array_get_address (PlanArray * array);

PLAN_API
PlanArray * plan_array_new_from_bytes (GBytes * bytes, PlanDType dtype,
    guint ndim, const gint64 * shape, GError ** error);

PLAN_API
const PlanArrayInfo * plan_array_get_info (PlanArray * array);

PLAN_API
PlanDType plan_array_get_dtype (PlanArray * array);

PLAN_API
const gint64 * plan_array_get_shape (PlanArray * array, guint * ndim);

PLAN_API
gint64 plan_array_get_n_rows (PlanArray * array);

PLAN_API
gsize plan_array_get_size (PlanArray * array);

PLAN_API
gboolean plan_array_is_writable (PlanArray * array);

PLAN_API
gconstpointer plan_array_get_data (PlanArray * array, gsize * size);

PLAN_API
gpointer plan_array_get_writable_data (PlanArray * array, gsize * size);

PLAN_API
GBytes * plan_array_get_bytes (PlanArray * array);

PLAN_API
PlanArray * plan_array_new_device (PlanDevice * device, gpointer dptr,
    gsize size, PlanDType dtype, guint ndim, const gint64 * shape,
    gpointer user_data, GDestroyNotify notify, GError ** error);

PLAN_API
GstMemory * plan_array_get_device_memory (PlanArray * array);

PLAN_API
PlanArray * plan_array_new_rows (PlanArray * array, gint64 first_row,
    gint64 n_rows, GError ** error);

PLAN_API
PlanArray * plan_array_load_npy (const gchar * path, GError ** error);

PLAN_API
gboolean plan_array_save_npy (PlanArray * array, const gchar * path,
    GError ** error);

G_END_DECLS

#endif /* __PLAN_ARRAY_H__ */
