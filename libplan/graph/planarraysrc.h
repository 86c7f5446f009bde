/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_ARRAY_SRC_H__
#define __PLAN_ARRAY_SRC_H__

#include <libplan/plan-prelude.h>
#include <libplan/planarray.h>
#include <gst/base/gstbasesrc.h>

G_BEGIN_DECLS

/**
 * PlanChunkReadFunc:
 * @first_row: the index, in the stream, of the first row to produce
 * @user_data: (closure): the data given with the function
 * @error: return location for an error
 *
 * Produces the next rows of a stream: an array of any number of rows of
 * the dtype and inner shape the reader was declared with. Called from the
 * source's streaming thread, one call at a time, when the pipeline
 * downstream wants more rows: a slow reader slows the plan, and a fast one
 * is held back by a slow consumer, so memory stays bounded.
 *
 * The array is streamed without a copy: its memory must stay unchanged
 * until its last reference is dropped. Returning memory that rows
 * returned earlier still occupy downstream (one buffer refilled) is an
 * error of the run.
 *
 * Returns: (transfer full) (nullable): the next rows; %NULL without
 *   setting @error (or an array of no rows) at the end of the stream,
 *   %NULL with @error set on failure. A reader that sets @error has
 *   failed, whatever it returns: an array returned with it is dropped.
 *
 * Since: 0.1
 */
typedef PlanArray *(*PlanChunkReadFunc) (guint64 first_row,
    gpointer user_data, GError ** error);

#define PLAN_TYPE_ARRAY_SRC (plan_array_src_get_type ())

PLAN_API
G_DECLARE_FINAL_TYPE (PlanArraySrc, plan_array_src, PLAN, ARRAY_SRC,
    GstBaseSrc)

/* The element registration is C-only. */
#ifndef __GI_SCANNER__
PLAN_API
gboolean gst_element_register_planarraysrc (GstPlugin * plugin);
#endif

PLAN_API
void plan_array_src_set_array (PlanArraySrc * src, PlanArray * array);

PLAN_API
void plan_array_src_set_reader (PlanArraySrc * src,
    const PlanArrayInfo * info, PlanChunkReadFunc func, gpointer user_data,
    GDestroyNotify notify);

PLAN_API
gboolean plan_array_src_get_info (PlanArraySrc * src, PlanArrayInfo * info);

G_END_DECLS

#endif /* __PLAN_ARRAY_SRC_H__ */
