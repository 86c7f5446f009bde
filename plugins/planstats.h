/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_STATS_TRACER_H__
#define __PLAN_STATS_TRACER_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define PLAN_TYPE_STATS_TRACER (plan_stats_tracer_get_type ())
G_DECLARE_FINAL_TYPE (PlanStatsTracer, plan_stats_tracer, PLAN, STATS_TRACER,
    GstTracer)

G_END_DECLS

#endif /* __PLAN_STATS_TRACER_H__ */
