/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_PROGRESS_H__
#define __PLAN_PROGRESS_H__

#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's progress API is unstable and may change; define PLAN_USE_UNSTABLE_API to use it without this warning."
#endif

#include <libplan/plan-prelude.h>

G_BEGIN_DECLS

/**
 * PlanProgress:
 *
 * The %GST_MESSAGE_PROGRESS messages of a source of rows: start, continue
 * at most every 1 % of the rows and every 250 ms of the pipeline clock,
 * complete, error or canceled, with rows and bytes done of the total.
 * planfilesrc and planarraysrc post theirs through it. Not thread-safe:
 * the streaming thread uses it, and the element's stop() once that thread
 * has stopped.
 *
 * Since: 0.1
 */
typedef struct _PlanProgress PlanProgress;

/**
 * PLAN_PROGRESS_PERCENT:
 *
 * Continue messages come no more often than every this many percent of
 * the rows (when the total is known)...
 *
 * Since: 0.1
 */
#define PLAN_PROGRESS_PERCENT 1

/**
 * PLAN_PROGRESS_INTERVAL:
 *
 * ...and no more often than this, in pipeline clock time.
 *
 * Since: 0.1
 */
#define PLAN_PROGRESS_INTERVAL (250 * GST_MSECOND)

PLAN_API
PlanProgress * plan_progress_new (GstElement * element, const gchar * code);

PLAN_API
void plan_progress_free (PlanProgress * progress);

PLAN_API
void plan_progress_begin (PlanProgress * progress, const gchar * what,
    guint64 first, gint64 end, gsize row_size);

PLAN_API
void plan_progress_update (PlanProgress * progress, guint64 position);

PLAN_API
void plan_progress_finish (PlanProgress * progress, GstProgressType type);

PLAN_API
void plan_progress_reset_clock (PlanProgress * progress);

G_END_DECLS

#endif /* __PLAN_PROGRESS_H__ */
