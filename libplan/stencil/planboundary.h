/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_BOUNDARY_H__
#define __PLAN_BOUNDARY_H__

#include <libplan/plan-prelude.h>
#include <libplan/plandtype.h>

G_BEGIN_DECLS

/**
 * PlanBoundary:
 * @PLAN_BOUNDARY_CONSTANT: cells outside the array hold a constant
 *   (`k k k | a b c d | k k k`).
 * @PLAN_BOUNDARY_NEAREST: the nearest edge element is repeated
 *   (`a a a | a b c d | d d d`).
 * @PLAN_BOUNDARY_REFLECT: reflected about the edge, the edge element
 *   included (`c b a | a b c d | d c b`).
 * @PLAN_BOUNDARY_MIRROR: reflected about the centre of the edge element,
 *   which is not repeated (`d c b | a b c d | c b a`).
 * @PLAN_BOUNDARY_WRAP: the array repeats periodically
 *   (`b c d | a b c d | a b c`).
 * @PLAN_BOUNDARY_VALID: no cell outside the array is read: the result
 *   covers only the places where the whole window fits, and shrinks by the
 *   window size minus one along each axis.
 *
 * How a stencil reads cells outside the array, with the names and meanings
 * of scipy.ndimage's `mode` (plus `valid`). Beyond one array length the
 * same rule continues: `reflect` and `wrap` are periodic with periods 2n
 * and n, `mirror` with period 2n - 2 (a single element repeats).
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_BOUNDARY_CONSTANT,
  PLAN_BOUNDARY_NEAREST,
  PLAN_BOUNDARY_REFLECT,
  PLAN_BOUNDARY_MIRROR,
  PLAN_BOUNDARY_WRAP,
  PLAN_BOUNDARY_VALID,
} PlanBoundary;

#define PLAN_TYPE_BOUNDARY (plan_boundary_get_type ())
PLAN_API
GType plan_boundary_get_type (void);

PLAN_API
const gchar * plan_boundary_to_string (PlanBoundary boundary);

PLAN_API
gint64 plan_boundary_map_index (PlanBoundary boundary, gint64 index,
    gint64 n);

PLAN_API
void plan_boundary_pad_line (PlanBoundary boundary, gsize elem_size,
    gconstpointer src, gsize n, gsize before, gsize after,
    gconstpointer fill, gpointer dst);

PLAN_API
gboolean plan_boundary_fill_from_double (PlanDType dtype, gdouble cval,
    gpointer dst);

PLAN_API
GParamSpec *plan_boundary_param_spec_cval (const gchar * name,
    const gchar * nick, const gchar * blurb, gdouble default_value,
    GParamFlags flags);

G_END_DECLS

#endif /* __PLAN_BOUNDARY_H__ */
