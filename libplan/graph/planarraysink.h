/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_ARRAY_SINK_H__
#define __PLAN_ARRAY_SINK_H__

#include <libplan/plan-prelude.h>
#include <libplan/planarray.h>
#include <gst/base/gstbasesink.h>

G_BEGIN_DECLS

/**
 * PlanChunkWriteFunc:
 * @chunk: (transfer none): the rows, a read-only array; keep a reference
 *   to use it after the call
 * @first_row: the index, in the stream, of @chunk's first row
 * @user_data: (closure): the data given with the function
 * @error: return location for an error
 *
 * Consumes the next rows of a stream. Called from the sink's streaming
 * thread, one call at a time, in row order; while it runs the pipeline
 * upstream waits, so a slow writer slows the plan and memory stays
 * bounded.
 *
 * Returns: %TRUE on success, %FALSE with @error set to stop the plan with
 *   that error. A writer that sets @error has failed, whatever it returns.
 *
 * Since: 0.1
 */
typedef gboolean (*PlanChunkWriteFunc) (PlanArray * chunk, guint64 first_row,
    gpointer user_data, GError ** error);

#define PLAN_TYPE_ARRAY_SINK (plan_array_sink_get_type ())

PLAN_API
G_DECLARE_FINAL_TYPE (PlanArraySink, plan_array_sink, PLAN, ARRAY_SINK,
    GstBaseSink)

/* The element registration is C-only. */
#ifndef __GI_SCANNER__
PLAN_API
gboolean gst_element_register_planarraysink (GstPlugin * plugin);
#endif

PLAN_API
void plan_array_sink_set_array (PlanArraySink * sink, PlanArray * array);

PLAN_API
void plan_array_sink_set_writer (PlanArraySink * sink,
    PlanChunkWriteFunc func, gpointer user_data, GDestroyNotify notify);

PLAN_API
PlanArray * plan_array_sink_get_array (PlanArraySink * sink);

PLAN_API
guint64 plan_array_sink_get_n_rows (PlanArraySink * sink);

G_END_DECLS

#endif /* __PLAN_ARRAY_SINK_H__ */
