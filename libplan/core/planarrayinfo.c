/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planarrayinfo
 * @title: PlanArrayInfo
 * @short_description: the dtype and shape of an array stream, and its caps
 *
 * Arrays travel as `array/x-raw` caps with two fields:
 *
 * - `dtype`: a numpy dtype name (see #PlanDType);
 * - `shape`: an array of integers, outermost axis first, as numpy writes
 *   it. The outermost axis may be -1 when the number of rows is not known
 *   ahead of time. An empty shape (`<>`) is a 0-d array: one value.
 *
 * |[
 * array/x-raw, dtype=(string)float32, shape=(int)<1000, 3>
 * ]|
 *
 * Buffers hold whole rows (elements along the outermost axis), C-contiguous,
 * and carry the index of their first row and one past their last row in
 * GST_BUFFER_OFFSET and GST_BUFFER_OFFSET_END. #PlanArrayInfo is the parsed
 * form of such caps; the helpers here build, parse and validate them and
 * compute row sizes.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planarrayinfo.h"
#include "planerror.h"
#include "plan-private.h"

#include <string.h>
#include <stdlib.h>
#include <errno.h>

G_DEFINE_BOXED_TYPE (PlanArrayInfo, plan_array_info,
    plan_array_info_copy, plan_array_info_free);

/**
 * plan_array_info_new:
 *
 * Returns: (transfer full): a new #PlanArrayInfo, as plan_array_info_init()
 *   leaves it.
 *
 * Since: 0.1
 */
PlanArrayInfo *
plan_array_info_new (void)
{
  PlanArrayInfo *info = g_new (PlanArrayInfo, 1);

  plan_array_info_init (info);
  return info;
}

/**
 * plan_array_info_copy:
 * @info: a #PlanArrayInfo
 *
 * Returns: (transfer full): a copy of @info.
 *
 * Since: 0.1
 */
PlanArrayInfo *
plan_array_info_copy (const PlanArrayInfo * info)
{
  g_return_val_if_fail (info != NULL, NULL);

  return g_memdup2 (info, sizeof (PlanArrayInfo));
}

/**
 * plan_array_info_free:
 * @info: (transfer full): a #PlanArrayInfo
 *
 * Frees @info.
 *
 * Since: 0.1
 */
void
plan_array_info_free (PlanArrayInfo * info)
{
  g_free (info);
}

/**
 * plan_array_info_init:
 * @info: a #PlanArrayInfo
 *
 * Sets @info to an unknown dtype and no axes.
 *
 * Since: 0.1
 */
void
plan_array_info_init (PlanArrayInfo * info)
{
  g_return_if_fail (info != NULL);

  memset (info, 0, sizeof (*info));
}

/**
 * plan_array_info_set:
 * @info: a #PlanArrayInfo
 * @dtype: the element type
 * @ndim: the number of axes
 * @shape: (array length=ndim) (nullable): the shape, outermost axis first
 * @error: return location for a #GError
 *
 * Validates and stores a dtype and shape: at most #PLAN_ARRAY_MAX_DIMS
 * axes, inner axes of at least one element, the outermost axis -1 or more,
 * rows that fit in memory, and at most %G_MAXINT64 bytes in all (the
 * largest file offset), so that no product of the axes overflows: a shape
 * that is too large is a %PLAN_ERROR_INVALID_ARGUMENT that says so.
 *
 * Returns: %TRUE on success; on failure @info is unchanged.
 *
 * Since: 0.1
 */
gboolean
plan_array_info_set (PlanArrayInfo * info, PlanDType dtype, guint ndim,
    const gint64 * shape, GError ** error)
{
  guint64 row_bytes;
  guint i;

  g_return_val_if_fail (info != NULL, FALSE);

  if (plan_dtype_get_size (dtype) == 0)
    goto bad_dtype;
  if (ndim > PLAN_ARRAY_MAX_DIMS)
    goto too_many_dims;
  if (ndim > 0 && shape[0] < -1)
    goto bad_outer;

  row_bytes = plan_dtype_get_size (dtype);
  for (i = 1; i < ndim; i++) {
    if (shape[i] < 1)
      goto bad_inner;
    if (row_bytes > G_MAXSIZE / 2 / (guint64) shape[i])
      goto too_large;
    row_bytes *= shape[i];
  }
  if (ndim > 0 && shape[0] > 0 && (guint64) shape[0] > G_MAXINT64 / row_bytes)
    goto too_large_total;

  plan_array_info_init (info);
  info->dtype = dtype;
  info->ndim = ndim;
  for (i = 0; i < ndim; i++)
    info->shape[i] = shape[i];
  return TRUE;

  /* ERRORS */
bad_dtype:
  {
    if (dtype == PLAN_DTYPE_UNKNOWN)
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "no dtype given for the array");
    else
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "%d is not a dtype", dtype);
    return FALSE;
  }
too_many_dims:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "arrays of %u axes are not supported; the most is %d", ndim,
        PLAN_ARRAY_MAX_DIMS);
    return FALSE;
  }
bad_outer:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the outermost axis has %" G_GINT64_FORMAT " rows; it must be -1 "
        "(unknown) or at least 0", shape[0]);
    return FALSE;
  }
bad_inner:
  {
    gchar *s = plan_shape_to_string (ndim, shape);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "shape %s: axis %u has %" G_GINT64_FORMAT " elements; only the "
        "outermost axis may be -1 or 0, inner axes need at least one "
        "element", s, i, shape[i]);
    g_free (s);
    return FALSE;
  }
too_large:
  {
    gchar *s = plan_shape_to_string (ndim, shape);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the shape %s is too large: one row would not fit in memory", s);
    g_free (s);
    return FALSE;
  }
too_large_total:
  {
    gchar *s = plan_shape_to_string (ndim, shape);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the shape %s is too large: %s data would take more than %"
        G_GINT64_FORMAT " bytes, the most a file or a stream can hold", s,
        plan_dtype_to_string (dtype), G_MAXINT64);
    g_free (s);
    return FALSE;
  }
}

static gboolean
value_get_int64 (const GValue * v, gint64 * out)
{
  if (G_VALUE_HOLDS_INT (v))
    *out = g_value_get_int (v);
  else if (G_VALUE_HOLDS_INT64 (v))
    *out = g_value_get_int64 (v);
  else if (G_VALUE_HOLDS_UINT (v))
    *out = g_value_get_uint (v);
  else
    return FALSE;
  return TRUE;
}

/**
 * plan_array_info_from_caps:
 * @info: (out caller-allocates): the #PlanArrayInfo to fill
 * @caps: fixed `array/x-raw` caps
 * @error: return location for a #GError
 *
 * Parses and validates fixed array caps. A missing `shape` field means a
 * 1-D array of unknown length. An optional `rate` (a fraction, rows per
 * second, as audio's `rate` counts samples) says the rows are sampled in
 * time; it must be positive.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_array_info_from_caps (PlanArrayInfo * info, const GstCaps * caps,
    GError ** error)
{
  const GstStructure *s;
  const gchar *dtype_name;
  const GValue *shape_value, *rate_value;
  gint64 shape[PLAN_ARRAY_MAX_DIMS] = { -1 };
  gint rate_n = 0, rate_d = 1;
  guint ndim = 1, i;
  PlanDType dtype;

  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (GST_IS_CAPS (caps), FALSE);

  if (gst_caps_get_size (caps) != 1 || !gst_caps_is_fixed (caps))
    goto not_fixed;
  s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_has_name (s, PLAN_ARRAY_CAPS_MEDIA_TYPE))
    goto not_array;

  dtype_name = gst_structure_get_string (s, "dtype");
  if (dtype_name == NULL)
    goto no_dtype;
  dtype = plan_dtype_parse (dtype_name, error);
  if (dtype == PLAN_DTYPE_UNKNOWN)
    return FALSE;

  shape_value = gst_structure_get_value (s, "shape");
  if (shape_value != NULL) {
    if (!GST_VALUE_HOLDS_ARRAY (shape_value))
      goto bad_shape;
    ndim = gst_value_array_get_size (shape_value);
    if (ndim > PLAN_ARRAY_MAX_DIMS)
      return plan_array_info_set (info, dtype, ndim, NULL, error);
    for (i = 0; i < ndim; i++) {
      if (!value_get_int64 (gst_value_array_get_value (shape_value, i),
              &shape[i]))
        goto bad_shape;
    }
  }
  rate_value = gst_structure_get_value (s, "rate");
  if (rate_value != NULL) {
    if (!GST_VALUE_HOLDS_FRACTION (rate_value))
      goto bad_rate;
    rate_n = gst_value_get_fraction_numerator (rate_value);
    rate_d = gst_value_get_fraction_denominator (rate_value);
    if (rate_n <= 0 || rate_d <= 0)
      goto bad_rate;
  }
  if (!plan_array_info_set (info, dtype, ndim, shape, error))
    return FALSE;
  info->rate_n = rate_n;
  info->rate_d = rate_n > 0 ? rate_d : 0;
  return TRUE;

  /* ERRORS */
not_fixed:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "array caps are not fixed: %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
not_array:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "caps are not %s: %" GST_PTR_FORMAT, PLAN_ARRAY_CAPS_MEDIA_TYPE, caps);
    return FALSE;
  }
no_dtype:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "array caps have no dtype field: %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
bad_shape:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the shape field of array caps must be an array of integers such as "
        "<-1, 3>: %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
bad_rate:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the rate field of array caps must be a positive fraction of rows "
        "per second such as 1000/1: %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
}

gboolean
_plan_caps_gain_rate (GstCaps * ours, GstCaps * downstream)
{
  GstCaps *common;
  gboolean gains;

  if (downstream == NULL || gst_caps_is_any (downstream)
      || gst_caps_is_empty (ours)
      || gst_structure_has_field (gst_caps_get_structure (ours, 0), "rate"))
    return FALSE;
  common = gst_caps_intersect_full (downstream, ours,
      GST_CAPS_INTERSECT_FIRST);
  gains = !gst_caps_is_empty (common)
      && gst_structure_has_field (gst_caps_get_structure (common, 0), "rate");
  gst_caps_unref (common);
  return gains;
}

/**
 * plan_array_info_to_caps:
 * @info: a valid #PlanArrayInfo
 *
 * Returns: (transfer full): fixed `array/x-raw` caps describing @info.
 *   The axes are all of one type, as GStreamer wants the values of an
 *   array: int when every axis fits in a 32-bit int (so that caps written
 *   by hand, such as `shape=<-1, 3>`, intersect with them), and int64
 *   for every axis when one does not.
 *
 * Since: 0.1
 */
GstCaps *
plan_array_info_to_caps (const PlanArrayInfo * info)
{
  GValue shape = G_VALUE_INIT;
  GstCaps *caps;
  gboolean wide = FALSE;
  guint i;

  g_return_val_if_fail (info != NULL, NULL);

  for (i = 0; i < info->ndim; i++)
    wide |= info->shape[i] < G_MININT || info->shape[i] > G_MAXINT;
  gst_value_array_init (&shape, info->ndim);
  for (i = 0; i < info->ndim; i++) {
    GValue v = G_VALUE_INIT;

    if (!wide) {
      g_value_init (&v, G_TYPE_INT);
      g_value_set_int (&v, (gint) info->shape[i]);
    } else {
      g_value_init (&v, G_TYPE_INT64);
      g_value_set_int64 (&v, info->shape[i]);
    }
    gst_value_array_append_and_take_value (&shape, &v);
  }

  caps = gst_caps_new_simple (PLAN_ARRAY_CAPS_MEDIA_TYPE,
      "dtype", G_TYPE_STRING, plan_dtype_to_string (info->dtype), NULL);
  gst_caps_set_value (caps, "shape", &shape);
  g_value_unset (&shape);
  if (info->rate_n > 0)
    gst_caps_set_simple (caps, "rate", GST_TYPE_FRACTION, info->rate_n,
        info->rate_d, NULL);
  return caps;
}

/**
 * plan_array_info_is_equal:
 * @a: a #PlanArrayInfo
 * @b: a #PlanArrayInfo
 *
 * Returns: whether @a and @b have the same dtype, shape and rate.
 *
 * Since: 0.1
 */
gboolean
plan_array_info_is_equal (const PlanArrayInfo * a, const PlanArrayInfo * b)
{
  return plan_array_info_same_rows (a, b) && a->dtype == b->dtype
      && (a->ndim == 0 || a->shape[0] == b->shape[0])
      && (gint64) a->rate_n * MAX (b->rate_d, 1) ==
      (gint64) b->rate_n * MAX (a->rate_d, 1);
}

/**
 * plan_array_info_has_rate:
 * @info: a #PlanArrayInfo
 *
 * Returns: whether the rows of @info are sampled in time (`rate`).
 *
 * Since: 0.1
 */
gboolean
plan_array_info_has_rate (const PlanArrayInfo * info)
{
  g_return_val_if_fail (info != NULL, FALSE);

  return info->rate_n > 0 && info->rate_d > 0;
}

/**
 * plan_array_info_rows_to_time:
 * @info: a #PlanArrayInfo
 * @rows: a number of rows, or a row index
 *
 * Returns: the time of @rows rows at the rate of @info (row @rows starts
 *   then), or %GST_CLOCK_TIME_NONE without a rate.
 *
 * Since: 0.1
 */
GstClockTime
plan_array_info_rows_to_time (const PlanArrayInfo * info, guint64 rows)
{
  g_return_val_if_fail (info != NULL, GST_CLOCK_TIME_NONE);

  if (!plan_array_info_has_rate (info))
    return GST_CLOCK_TIME_NONE;
  return gst_util_uint64_scale (rows, GST_SECOND * (guint64) info->rate_d,
      info->rate_n);
}

/**
 * plan_array_info_get_paced_chunk_rows:
 * @info: a #PlanArrayInfo
 *
 * The most rows a source that chooses its own chunk size should put in
 * one chunk of a stream sampled in time: the rows of 100 ms, or of 4 KiB
 * (GstBaseSrc's default block size) where that is more, at least one. A
 * sink that syncs to the clock then plays the rows in steps of about
 * 100 ms, and an EOS sent to the source (gst-launch-1.0 -e on Ctrl-C)
 * ends the stream about that soon, where a chunk of the whole array
 * would have the sink wait for its end.
 *
 * Returns: that number of rows, or %G_MAXUINT64 without a rate.
 *
 * Since: 0.1
 */
guint64
plan_array_info_get_paced_chunk_rows (const PlanArrayInfo * info)
{
  guint64 rows, page_rows;
  gsize row_size;

  g_return_val_if_fail (info != NULL, G_MAXUINT64);

  if (!plan_array_info_has_rate (info))
    return G_MAXUINT64;
  rows = gst_util_uint64_scale_ceil (info->rate_n, 1,
      10 * (guint64) info->rate_d);
  row_size = plan_array_info_get_row_size (info);
  page_rows = 4096 / MAX (row_size, 1);
  return MAX (MAX (rows, page_rows), 1);
}

/**
 * plan_array_info_get_segment_rows:
 * @info: the stream's #PlanArrayInfo
 * @segment: a segment of the stream
 * @first: (out): the first row the segment selects
 * @end: (out): one past the last row it selects, or -1 for all after
 *   @first
 *
 * The rows a segment selects: a segment in rows (%GST_FORMAT_DEFAULT)
 * says them; one in time, for rows sampled in time, selects those sampled
 * from its start (the row whose span holds it) to before its stop.
 *
 * Returns: whether @segment selects rows; %FALSE (other formats, time
 *   without a rate) means the whole stream.
 *
 * Since: 0.1
 */
gboolean
plan_array_info_get_segment_rows (const PlanArrayInfo * info,
    const GstSegment * segment, guint64 * first, gint64 * end)
{
  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (segment != NULL, FALSE);

  *first = 0;
  *end = -1;
  if (segment->format == GST_FORMAT_DEFAULT) {
    *first = segment->start;
    if (segment->stop != GST_CLOCK_TIME_NONE)
      *end = (gint64) MAX (segment->stop, segment->start);
    return TRUE;
  }
  if (segment->format != GST_FORMAT_TIME || !plan_array_info_has_rate (info))
    return FALSE;
  *first = plan_array_info_time_to_rows (info, segment->start);
  if (segment->stop != GST_CLOCK_TIME_NONE)
    *end = MAX ((gint64) gst_util_uint64_scale_ceil (segment->stop,
            info->rate_n, GST_SECOND * (guint64) info->rate_d),
        (gint64) * first);
  return TRUE;
}

/**
 * plan_array_info_convert:
 * @info: the stream's #PlanArrayInfo
 * @from: the format of @value
 * @value: a position or a length in @from, or -1 (none)
 * @to: the format wanted
 * @result: (out): @value in @to
 *
 * Converts between rows (%GST_FORMAT_DEFAULT), bytes of array data
 * (%GST_FORMAT_BYTES, a byte counting as the row that holds it) and, for
 * rows sampled in time, time (a time counting as the row sampled then),
 * as a source or a parser of the stream answers convert queries and
 * seeks. -1 stays -1.
 *
 * Returns: whether @value could be converted: not between other formats,
 *   not to or from time without a rate, not from bytes into rows of no
 *   bytes.
 *
 * Since: 0.1
 */
gboolean
plan_array_info_convert (const PlanArrayInfo * info, GstFormat from,
    gint64 value, GstFormat to, gint64 * result)
{
  gint64 row_size;

  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (result != NULL, FALSE);

  if (from == to || value == -1) {
    *result = value;
    return TRUE;
  }
  row_size = (gint64) plan_array_info_get_row_size (info);
  if (from == GST_FORMAT_TIME) {
    if ((value = plan_array_info_time_to_rows (info, value)) < 0)
      return FALSE;
    from = GST_FORMAT_DEFAULT;
  }
  if (from == GST_FORMAT_BYTES) {
    if (row_size == 0)
      return FALSE;
    value /= row_size;
    from = GST_FORMAT_DEFAULT;
  }
  if (from != GST_FORMAT_DEFAULT)
    return FALSE;
  switch (to) {
    case GST_FORMAT_DEFAULT:
      *result = value;
      return TRUE;
    case GST_FORMAT_BYTES:
      *result = value * row_size;
      return TRUE;
    case GST_FORMAT_TIME:
      *result = (gint64) plan_array_info_rows_to_time (info, value);
      return *result != -1;
    default:
      return FALSE;
  }
}

/**
 * plan_array_info_convert_seek_value:
 * @info: the stream's #PlanArrayInfo
 * @from: the format of @value
 * @type: how the seek gives @value
 * @value: a seek's start or stop
 * @to: the format wanted
 * @result: (out): @value in @to
 *
 * Converts a seek's start or stop as plan_array_info_convert() does, where
 * one of %GST_SEEK_TYPE_END counts back from the end (a negative offset)
 * and is converted as a length, so that a seek from the end in rows or
 * bytes of rows sampled in time becomes the same one in time.
 *
 * Returns: whether @value could be converted
 *
 * Since: 0.1
 */
gboolean
plan_array_info_convert_seek_value (const PlanArrayInfo * info,
    GstFormat from, GstSeekType type, gint64 value, GstFormat to,
    gint64 * result)
{
  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (result != NULL, FALSE);

  if (type != GST_SEEK_TYPE_END || value >= 0 || from == to)
    return plan_array_info_convert (info, from, value, to, result);
  if (!plan_array_info_convert (info, from, -value, to, result))
    return FALSE;
  *result = -*result;
  return TRUE;
}

/**
 * plan_array_info_seek_is_range:
 * @segment: the segment a seek would change
 * @start_type: the seek's start type
 * @start: its start, in @segment's format
 * @stop_type: the seek's stop type
 * @stop: its stop, in @segment's format
 *
 * Whether a seek leaves a range: a start after the stop (the one @segment
 * keeps, for %GST_SEEK_TYPE_NONE) is none. gst_segment_do_seek() refuses
 * such a seek with a critical warning; a source calls this first and
 * refuses it quietly. Starts and stops relative to the end
 * (%GST_SEEK_TYPE_END) are not compared.
 *
 * Returns: %FALSE where the seek's start would come after its stop.
 *
 * Since: 0.1
 */
gboolean
plan_array_info_seek_is_range (const GstSegment * segment,
    GstSeekType start_type, gint64 start, GstSeekType stop_type, gint64 stop)
{
  gint64 first, last;

  g_return_val_if_fail (segment != NULL, FALSE);

  first = start_type == GST_SEEK_TYPE_SET ? start :
      start_type == GST_SEEK_TYPE_NONE ? (gint64) segment->start : -1;
  last = stop_type == GST_SEEK_TYPE_SET ? stop :
      stop_type == GST_SEEK_TYPE_NONE ? (gint64) segment->stop : -1;
  return first < 0 || last < 0 || first <= last;
}

/**
 * plan_array_info_time_to_rows:
 * @info: a #PlanArrayInfo
 * @time: a time from the stream's start
 *
 * Returns: the row sampled at @time (the row whose span holds it), or -1
 *   without a rate or a valid time.
 *
 * Since: 0.1
 */
gint64
plan_array_info_time_to_rows (const PlanArrayInfo * info, GstClockTime time)
{
  g_return_val_if_fail (info != NULL, -1);

  if (!plan_array_info_has_rate (info) || !GST_CLOCK_TIME_IS_VALID (time))
    return -1;
  return (gint64) gst_util_uint64_scale (time, info->rate_n,
      GST_SECOND * (guint64) info->rate_d);
}

/**
 * plan_array_info_same_rows:
 * @a: a #PlanArrayInfo
 * @b: a #PlanArrayInfo
 *
 * Returns: whether the rows of @a and @b have the same shape: the same
 *   number of axes and the same inner axes. Dtypes and the outermost
 *   axis are not compared.
 *
 * Since: 0.1
 */
gboolean
plan_array_info_same_rows (const PlanArrayInfo * a, const PlanArrayInfo * b)
{
  guint i;

  if (a->ndim != b->ndim)
    return FALSE;
  for (i = 1; i < a->ndim; i++) {
    if (a->shape[i] != b->shape[i])
      return FALSE;
  }
  return TRUE;
}

/**
 * plan_array_info_get_row_elements:
 * @info: a valid #PlanArrayInfo
 *
 * Returns: the number of elements in one row: the product of the inner
 *   axes (1 for 0-d and 1-D arrays).
 *
 * Since: 0.1
 */
gsize
plan_array_info_get_row_elements (const PlanArrayInfo * info)
{
  gsize n = 1;
  guint i;

  for (i = 1; i < info->ndim; i++)
    n *= info->shape[i];
  return n;
}

/**
 * plan_array_info_get_row_size:
 * @info: a valid #PlanArrayInfo
 *
 * Returns: the size of one row in bytes.
 *
 * Since: 0.1
 */
gsize
plan_array_info_get_row_size (const PlanArrayInfo * info)
{
  return plan_array_info_get_row_elements (info) *
      plan_dtype_get_size (info->dtype);
}

/**
 * plan_array_info_get_n_rows:
 * @info: a valid #PlanArrayInfo
 *
 * Returns: the number of rows (the outermost axis), -1 when unknown; a 0-d
 *   array has one row.
 *
 * Since: 0.1
 */
gint64
plan_array_info_get_n_rows (const PlanArrayInfo * info)
{
  return info->ndim == 0 ? 1 : info->shape[0];
}

/**
 * plan_array_info_to_string:
 * @info: a #PlanArrayInfo
 *
 * Returns: (transfer full): a description for messages, such as
 *   "float32 (1000, 3)".
 *
 * Since: 0.1
 */
gchar *
plan_array_info_to_string (const PlanArrayInfo * info)
{
  gchar *shape = plan_shape_to_string (info->ndim, info->shape);
  gchar *s = g_strdup_printf ("%s %s", plan_dtype_to_string (info->dtype),
      shape);

  g_free (shape);
  return s;
}

/**
 * plan_shape_to_string:
 * @ndim: the number of axes
 * @shape: (array length=ndim): the shape
 *
 * Returns: (transfer full): the shape as numpy prints it: "(1000, 3)",
 *   "(5,)" or "()".
 *
 * Since: 0.1
 */
gchar *
plan_shape_to_string (guint ndim, const gint64 * shape)
{
  GString *s = g_string_new ("(");
  guint i;

  for (i = 0; i < ndim; i++) {
    if (i > 0)
      g_string_append (s, ", ");
    g_string_append_printf (s, "%" G_GINT64_FORMAT, shape[i]);
  }
  if (ndim == 1)
    g_string_append_c (s, ',');
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

/**
 * plan_shape_parse:
 * @str: a shape such as "(1000, 3)", "1000,3", "[-1, 3]", "(, 3)" or "()"
 * @ndim: (out): the number of axes
 * @shape: (out caller-allocates) (array fixed-size=8): the axes
 * @error: return location for a #GError
 *
 * Parses a shape written as numpy prints it, with or without parentheses
 * or brackets, axes separated by commas or spaces. Only the outermost axis
 * may be -1 (unknown), or left out before its comma ("(, 3)" is
 * "(-1, 3)"). Values are checked for syntax only; use
 * plan_array_info_set() to validate them against a dtype. An error quotes
 * @str as given, and a column in it counts from 1 at the start of @str.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_shape_parse (const gchar * str, guint * ndim, gint64 * shape,
    GError ** error)
{
  const gchar *p = str;
  gchar close = 0;
  guint n = 0;

  g_return_val_if_fail (str != NULL, FALSE);

  while (g_ascii_isspace (*p))
    p++;
  if (*p == '(')
    close = ')';
  else if (*p == '[')
    close = ']';
  if (close)
    p++;

  for (;;) {
    gchar *end;
    gint64 v;

    while (g_ascii_isspace (*p))
      p++;
    /* A left-out outermost axis: its comma follows; the next turn takes
     * it as the one after any axis. */
    if (*p == ',' && n == 0) {
      shape[n++] = -1;
      continue;
    }
    if (*p == ',' && n > 0) {
      p++;
      while (g_ascii_isspace (*p))
        p++;
    }
    if (*p == close || *p == '\0')
      break;
    if (n == PLAN_ARRAY_MAX_DIMS)
      goto too_many;
    if (!g_ascii_isdigit (*p) && *p != '-')
      goto syntax;
    errno = 0;
    v = g_ascii_strtoll (p, &end, 10);
    if (end == p || errno != 0)
      goto syntax;
    if (v < 0 && (v != -1 || n > 0))
      goto negative;
    shape[n++] = v;
    p = end;
    if (*p != ',' && *p != close && *p != '\0' && !g_ascii_isspace (*p))
      goto syntax;
  }
  if (*p != close)
    goto syntax;
  if (close)
    p++;
  while (g_ascii_isspace (*p))
    p++;
  if (*p != '\0')
    goto syntax;
  if (n == 0 && !close)
    goto syntax;

  *ndim = n;
  return TRUE;

  /* ERRORS */
syntax:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "cannot parse shape '%s' at column %d: write it as numpy does, "
        "such as (1000, 3), or -1,3 for an unknown number of rows",
        str, (gint) (p - str) + 1);
    return FALSE;
  }
too_many:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "shape '%s' has more than %d axes", str, PLAN_ARRAY_MAX_DIMS);
    return FALSE;
  }
negative:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "shape '%s': axis %u is negative; only the outermost axis may be "
        "-1 (unknown)", str, n);
    return FALSE;
  }
}
