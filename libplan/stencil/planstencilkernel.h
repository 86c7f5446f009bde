/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_STENCIL_KERNEL_H__
#define __PLAN_STENCIL_KERNEL_H__

#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's stencil kernel API is unstable and may change; define PLAN_USE_UNSTABLE_API to use it without this warning."
#endif

#include <libplan/plan-prelude.h>
#include <libplan/planarrayinfo.h>
#include <libplan/planboundary.h>
#include <libplan/plandevice.h>
#include <libplan/planexpr.h>
#include <libplan/planhalo.h>
#include <libplan/planwindow.h>

G_BEGIN_DECLS

/**
 * PlanStencilKernel:
 *
 * An opaque stencil: an expression over a window, laid onto a stream of
 * array rows, computed on the host from #PlanHalo blocks or on a device
 * with its halo rows kept in device memory. Not thread-safe: one thread
 * (the streaming thread) uses it.
 *
 * Since: 0.1
 */
typedef struct _PlanStencilKernel PlanStencilKernel;

/**
 * PLAN_STENCIL_MAX_ITERATIONS:
 *
 * The most times plan_stencil_kernel_new_iterated() applies a window.
 *
 * Since: 0.1
 */
#define PLAN_STENCIL_MAX_ITERATIONS 1024

PLAN_API
PlanStencilKernel * plan_stencil_kernel_new (const PlanWindow * window,
    const gchar * expr, const PlanArrayInfo * input, PlanBoundary boundary,
    gdouble cval, GError ** error);

PLAN_API
PlanStencilKernel * plan_stencil_kernel_new_inputs (guint n_inputs,
    const PlanWindow * const * windows, const PlanArrayInfo * inputs,
    const gchar * expr, PlanBoundary boundary, gdouble cval,
    GError ** error);

PLAN_API
PlanStencilKernel * plan_stencil_kernel_new_iterated (
    const PlanWindow * window, const gchar * expr,
    const PlanArrayInfo * input, PlanBoundary boundary, gdouble cval,
    guint iterations, GError ** error);

PLAN_API
void plan_stencil_kernel_free (PlanStencilKernel * kernel);

PLAN_API
guint plan_stencil_kernel_get_iterations (PlanStencilKernel * kernel);

PLAN_API
guint plan_stencil_kernel_get_n_inputs (PlanStencilKernel * kernel);

PLAN_API
guint plan_stencil_kernel_get_first_axis_halo (PlanStencilKernel * kernel);

PLAN_API
void plan_stencil_kernel_set_context_rows (PlanStencilKernel * kernel,
    gboolean leading, gboolean trailing);

PLAN_API
void plan_stencil_kernel_get_output_info (PlanStencilKernel * kernel,
    PlanArrayInfo * output);

PLAN_API
guint plan_stencil_kernel_get_rows_lost (PlanStencilKernel * kernel);

PLAN_API
void plan_stencil_kernel_set_n_threads (PlanStencilKernel * kernel,
    guint n_threads);

PLAN_API
void plan_stencil_kernel_reset (PlanStencilKernel * kernel);

PLAN_API
PlanHalo * plan_stencil_kernel_get_halo (PlanStencilKernel * kernel);

PLAN_API
gboolean plan_stencil_kernel_host_needs_end_rows (PlanStencilKernel * kernel,
    gsize n_rows, gsize * n_end_rows);

PLAN_API
gboolean plan_stencil_kernel_host_set_end_rows (PlanStencilKernel * kernel,
    guint64 total_rows, gconstpointer rows, gsize n_rows, GError ** error);

PLAN_API
gboolean plan_stencil_kernel_host_set_input_end_rows (
    PlanStencilKernel * kernel, guint input, guint64 total_rows,
    gconstpointer rows, gsize n_rows, GError ** error);

PLAN_API
gboolean plan_stencil_kernel_push_inputs (PlanStencilKernel * kernel,
    const gconstpointer * rows, gsize n_rows, PlanHaloBlock * blocks,
    guint * n_blocks, GError ** error);

PLAN_API
gboolean plan_stencil_kernel_push (PlanStencilKernel * kernel,
    gconstpointer rows, gsize n_rows, PlanHaloBlock * blocks,
    guint * n_blocks, GError ** error);

PLAN_API
gboolean plan_stencil_kernel_finish (PlanStencilKernel * kernel,
    PlanHaloBlock * blocks, guint * n_blocks, GError ** error);

PLAN_API
void plan_stencil_kernel_eval (PlanStencilKernel * kernel,
    const PlanHaloBlock * blocks, guint n_blocks, gpointer out);

PLAN_API
gboolean plan_stencil_kernel_prepare (PlanStencilKernel * kernel,
    PlanDevice * device, GError ** error);

PLAN_API
gsize plan_stencil_kernel_push_rows (PlanStencilKernel * kernel,
    gsize n_rows);

PLAN_API
gboolean plan_stencil_kernel_needs_end_rows (PlanStencilKernel * kernel,
    gsize n_rows, gsize * n_end_rows);

PLAN_API
gboolean plan_stencil_kernel_set_end_rows (PlanStencilKernel * kernel,
    PlanStream * stream, guint64 total_rows, gconstpointer rows,
    gsize n_rows, GError ** error);

PLAN_API
gboolean plan_stencil_kernel_set_input_end_rows (PlanStencilKernel * kernel,
    guint input, PlanStream * stream, guint64 total_rows,
    gconstpointer rows, gsize n_rows, GError ** error);

PLAN_API
gboolean plan_stencil_kernel_launch_inputs (PlanStencilKernel * kernel,
    PlanStream * stream, const gconstpointer * rows, gsize n_rows,
    gpointer out, GError ** error);

PLAN_API
gboolean plan_stencil_kernel_launch (PlanStencilKernel * kernel,
    PlanStream * stream, gconstpointer rows, gsize n_rows, gpointer out,
    GError ** error);

PLAN_API
gboolean plan_stencil_kernel_finish_rows (PlanStencilKernel * kernel,
    gsize * n_rows, GError ** error);

PLAN_API
gboolean plan_stencil_kernel_launch_finish (PlanStencilKernel * kernel,
    PlanStream * stream, gpointer out, GError ** error);

PLAN_API
gchar * plan_stencil_kernel_to_cuda (PlanStencilKernel * kernel,
    const gchar * function_name);

G_END_DECLS

#endif /* __PLAN_STENCIL_KERNEL_H__ */
