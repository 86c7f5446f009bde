/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_PARALLEL_H__
#define __PLAN_PARALLEL_H__

#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's thread pool API is unstable and may change; define PLAN_USE_UNSTABLE_API to use it without this warning."
#endif

#include <libplan/plan-prelude.h>

G_BEGIN_DECLS

/**
 * PlanRangeFunc:
 * @begin: first index of the range
 * @end: one past the last index of the range
 * @user_data: the data given to plan_parallel_for()
 *
 * Processes the indices [@begin, @end). Called from the calling thread and
 * from the pool's worker threads, for disjoint ranges, concurrently.
 *
 * Since: 0.1
 */
typedef void (*PlanRangeFunc) (gsize begin, gsize end, gpointer user_data);

PLAN_API
void plan_parallel_for (guint n_threads, gsize n, gsize grain,
    PlanRangeFunc func, gpointer user_data);

PLAN_API
guint plan_parallel_get_n_cores (void);

G_END_DECLS

#endif /* __PLAN_PARALLEL_H__ */
