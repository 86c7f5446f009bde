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

/**
 * PlanEndRowsFunc:
 * @index: the input the rows are of
 * @total: the number of rows input @index delivers
 * @data: the last @n_rows of them, C order, in host memory
 * @n_rows: how many rows @data holds: MIN (the rows asked for, @total)
 * @user_data: what was passed with the function
 * @error: return location for an error
 *
 * Takes the last rows of an input (see plan_kernel_element_take_end_rows());
 * @data is valid only during the call.
 *
 * Returns: %TRUE, or %FALSE with @error set.
 *
 * Since: 0.1
 */
typedef gboolean (*PlanEndRowsFunc) (guint index, guint64 total,
    gconstpointer data, gsize n_rows, gpointer user_data, GError ** error);

PLAN_API
gboolean plan_kernel_element_take_end_rows (PlanKernelElement * self,
    guint index, gsize n_rows, PlanEndRowsFunc func, gpointer user_data,
    GError ** error);

PLAN_API
gboolean plan_kernel_element_fill_halo_end (PlanKernelElement * self,
    guint index, PlanHalo * halo, gsize n_rows, GError ** error);

G_END_DECLS

#endif /* __PLAN_KERNEL_HALO_H__ */
