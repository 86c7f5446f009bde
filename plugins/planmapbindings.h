/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_MAP_BINDINGS_H__
#define __PLAN_MAP_BINDINGS_H__

#include <libplan/plan.h>

G_BEGIN_DECLS

/* The largest array constant, in bytes of data (docs/planmap.md). */
#define PLAN_MAP_MAX_CONSTANT_BYTES ((gsize) 64 << 20)

/* A live scalar parameter: name, dtype, value (params property). */
typedef struct
{
  gchar *name;
  PlanDType dtype;
  guint64 value;                /* an element of dtype at its address */
} PlanMapParam;

/* A constant: a name and its array (constants, constant-arrays). */
typedef struct
{
  gchar *name;
  PlanArray *array;
  gpointer dptr;                /* its copy on a device, or NULL */
} PlanMapConstant;

/* GArray clear functions. */
G_GNUC_INTERNAL void plan_map_param_clear (gpointer p);
G_GNUC_INTERNAL void plan_map_constant_clear (gpointer p);

/* "gain=2.0,threshold:float32=0.5": a GArray of PlanMapParam (empty for
 * NULL), or NULL with @error set. */
G_GNUC_INTERNAL
GArray * plan_map_params_parse (const gchar * text, GError ** error);

/* Whether @a and @b bind the same names to the same dtypes, in order. */
G_GNUC_INTERNAL
gboolean plan_map_params_same_names (GArray * a, GArray * b);

/* The constants of @files ("mean=mean.npy,...", loaded now) and of
 * @arrays (fields holding PlanArray), as a GArray of PlanMapConstant;
 * NULL with @error set, naming @element and the constant. */
G_GNUC_INTERNAL
GArray * plan_map_constants_load (GstObject * element, const gchar * files,
    GstStructure * arrays, GError ** error);

G_END_DECLS

#endif /* __PLAN_MAP_BINDINGS_H__ */
