/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_REDUCE_MAP_H__
#define __PLAN_REDUCE_MAP_H__

#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's fused map-and-reduce API is unstable and may change; define PLAN_USE_UNSTABLE_API to use it without this warning."
#endif

#include <libplan/plan-prelude.h>
#include <libplan/planarrayinfo.h>
#include <libplan/plandevice.h>
#include <libplan/planreducer.h>

G_BEGIN_DECLS

/**
 * PlanReduceMap:
 *
 * An elementwise expression fused in front of a #PlanReducer: on the host
 * each run of rows is mapped into a cache-sized piece of whole rows and
 * reduced from there while it is still in cache, so the map's result is
 * never stored whole and the bits are those of mapping everything first
 * and reducing after (`planreduce map=...`); on a device the map runs as
 * its generated kernel into device scratch memory that the device
 * reducer then reads. Used from one thread at a time. Unstable API.
 *
 * Since: 0.1
 */
typedef struct _PlanReduceMap PlanReduceMap;

PLAN_API
PlanReduceMap * plan_reduce_map_new (const gchar * expr, PlanDType dtype,
    const PlanArrayInfo * input, PlanArrayInfo * mapped, GError ** error);

PLAN_API
void plan_reduce_map_free (PlanReduceMap * map);

PLAN_API
PlanDType plan_reduce_map_get_dtype (PlanReduceMap * map);

PLAN_API
gboolean plan_reduce_map_push (PlanReduceMap * map, PlanReducer * reducer,
    gconstpointer rows, gsize n_rows, gpointer out, guint n_threads,
    GError ** error);

PLAN_API
gconstpointer plan_reduce_map_launch (PlanReduceMap * map,
    PlanStream * stream, gconstpointer rows, gsize n_rows, guint n_threads,
    GError ** error);

PLAN_API
void plan_reduce_map_release_device (PlanReduceMap * map);

G_END_DECLS

#endif /* __PLAN_REDUCE_MAP_H__ */
