/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_ARRAY_INFO_H__
#define __PLAN_ARRAY_INFO_H__

#include <libplan/plan-prelude.h>
#include <libplan/plandtype.h>

G_BEGIN_DECLS

/**
 * PLAN_ARRAY_CAPS_MEDIA_TYPE:
 *
 * The media type of streamed arrays.
 *
 * Since: 0.1
 */
#define PLAN_ARRAY_CAPS_MEDIA_TYPE "array/x-raw"

/**
 * PLAN_ARRAY_CAPS_ANY:
 *
 * Caps string for any array in system memory, for pad templates.
 *
 * Since: 0.1
 */
#define PLAN_ARRAY_CAPS_ANY \
    PLAN_ARRAY_CAPS_MEDIA_TYPE ", dtype = (string) " PLAN_DTYPE_NAMES

/**
 * PLAN_ARRAY_MAX_DIMS:
 *
 * The largest number of axes an array may have.
 *
 * Since: 0.1
 */
#define PLAN_ARRAY_MAX_DIMS 8

/**
 * PlanArrayInfo:
 * @dtype: the element type
 * @ndim: the number of axes, 0 for a single value
 * @shape: the extent of each axis, outermost first; `shape[0]` is -1 when
 *   the number of rows is not known
 *
 * What the caps of an `array/x-raw` stream say: the dtype and the shape.
 * A buffer of such a stream holds whole rows (elements along the outermost
 * axis), C-contiguous. A 0-d array is a stream of one row of one element.
 *
 * Since: 0.1
 */
typedef struct
{
  PlanDType dtype;
  guint ndim;
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  /* rows per second (the caps' optional `rate`), or rate_n 0: not sampled
   * in time */
  gint rate_n;
  gint rate_d;

  /*< private >*/
  gpointer _plan_reserved[3];
} PlanArrayInfo;

#define PLAN_TYPE_ARRAY_INFO (plan_array_info_get_type ())
PLAN_API
GType plan_array_info_get_type (void);

PLAN_API
PlanArrayInfo * plan_array_info_new (void);

PLAN_API
PlanArrayInfo * plan_array_info_copy (const PlanArrayInfo * info);

PLAN_API
void plan_array_info_free (PlanArrayInfo * info);

PLAN_API
void plan_array_info_init (PlanArrayInfo * info);

PLAN_API
gboolean plan_array_info_set (PlanArrayInfo * info, PlanDType dtype,
    guint ndim, const gint64 * shape, GError ** error);

PLAN_API
gboolean plan_array_info_from_caps (PlanArrayInfo * info,
    const GstCaps * caps, GError ** error);

PLAN_API
GstCaps * plan_array_info_to_caps (const PlanArrayInfo * info);

PLAN_API
gboolean plan_array_info_is_equal (const PlanArrayInfo * a,
    const PlanArrayInfo * b);

PLAN_API
gboolean plan_array_info_same_rows (const PlanArrayInfo * a,
    const PlanArrayInfo * b);

PLAN_API
gboolean plan_array_info_has_rate (const PlanArrayInfo * info);

PLAN_API
GstClockTime plan_array_info_rows_to_time (const PlanArrayInfo * info,
    guint64 rows);

PLAN_API
guint64 plan_array_info_get_paced_chunk_rows (const PlanArrayInfo * info);

PLAN_API
gint64 plan_array_info_time_to_rows (const PlanArrayInfo * info,
    GstClockTime time);

PLAN_API
gboolean plan_array_info_get_segment_rows (const PlanArrayInfo * info,
    const GstSegment * segment, guint64 * first, gint64 * end);

PLAN_API
gboolean plan_array_info_convert (const PlanArrayInfo * info, GstFormat from,
    gint64 value, GstFormat to, gint64 * result);

PLAN_API
gboolean plan_array_info_convert_seek_value (const PlanArrayInfo * info,
    GstFormat from, GstSeekType type, gint64 value, GstFormat to,
    gint64 * result);

PLAN_API
gboolean plan_array_info_seek_is_range (const GstSegment * segment,
    GstSeekType start_type, gint64 start, GstSeekType stop_type,
    gint64 stop);

PLAN_API
gsize plan_array_info_get_row_elements (const PlanArrayInfo * info);

PLAN_API
gsize plan_array_info_get_row_size (const PlanArrayInfo * info);

PLAN_API
gint64 plan_array_info_get_n_rows (const PlanArrayInfo * info);

PLAN_API
gchar * plan_array_info_to_string (const PlanArrayInfo * info);

PLAN_API
gboolean plan_shape_parse (const gchar * str, guint * ndim,
    gint64 * shape, GError ** error);

PLAN_API
gchar * plan_shape_to_string (guint ndim, const gint64 * shape);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanArrayInfo, plan_array_info_free)

G_END_DECLS

#endif /* __PLAN_ARRAY_INFO_H__ */
