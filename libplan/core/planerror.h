/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_ERROR_H__
#define __PLAN_ERROR_H__

#include <libplan/plan-prelude.h>

G_BEGIN_DECLS

/**
 * PLAN_ERROR:
 *
 * The #GError domain of libplan.
 *
 * Since: 0.1
 */
#define PLAN_ERROR (plan_error_quark ())

/**
 * PlanError:
 * @PLAN_ERROR_INVALID_ARGUMENT: a value given by the user does not parse or
 *   is out of range (a dtype name, a shape, an option).
 * @PLAN_ERROR_FORMAT: a file or stream is malformed.
 * @PLAN_ERROR_UNSUPPORTED: the input is well formed but uses a feature that
 *   is not supported (big-endian or Fortran-ordered .npy, ...).
 * @PLAN_ERROR_SHAPE: shapes or dtypes that must agree do not.
 * @PLAN_ERROR_SYNTAX: an expression or window does not parse.
 * @PLAN_ERROR_TYPE: an expression is well formed but mistyped.
 * @PLAN_ERROR_DEVICE: a device operation failed or no device is present.
 * @PLAN_ERROR_IO: reading or writing failed.
 * @PLAN_ERROR_BUSY: the object is busy with an earlier request (a work
 *   dispatched again while its last dispatch runs). (Since: 0.1)
 *
 * Error codes in the #PLAN_ERROR domain.
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_ERROR_INVALID_ARGUMENT,
  PLAN_ERROR_FORMAT,
  PLAN_ERROR_UNSUPPORTED,
  PLAN_ERROR_SHAPE,
  PLAN_ERROR_SYNTAX,
  PLAN_ERROR_TYPE,
  PLAN_ERROR_DEVICE,
  PLAN_ERROR_IO,
  PLAN_ERROR_BUSY,
} PlanError;

PLAN_API
GQuark plan_error_quark (void);

/**
 * PlanErrorContext:
 * @PLAN_ERROR_CONTEXT_COMPUTE: computing: kernel elements, the plan API.
 * @PLAN_ERROR_CONTEXT_READ: reading a file or a byte stream (a source,
 *   a parser).
 * @PLAN_ERROR_CONTEXT_WRITE: writing a file (a sink).
 *
 * What an element was doing when an error happened: the same error code
 * can mean another GStreamer error there (a file that is not found, a
 * setting of a source).
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_ERROR_CONTEXT_COMPUTE,
  PLAN_ERROR_CONTEXT_READ,
  PLAN_ERROR_CONTEXT_WRITE,
} PlanErrorContext;

PLAN_API
void plan_error_get_gst_error (const GError * error, GQuark * domain,
    gint * code);

PLAN_API
void plan_error_get_gst_error_full (const GError * error,
    PlanErrorContext context, GQuark * domain, gint * code);

/* GstElement and GstEvent, without including gst.h here. */
struct _GstElement;
struct _GstEvent;

PLAN_API
void plan_element_post_error (struct _GstElement * element,
    const GError * error, const gchar * file, const gchar * function,
    gint line);

PLAN_API
void plan_element_post_error_full (struct _GstElement * element,
    const GError * error, PlanErrorContext context, const gchar * file,
    const gchar * function, gint line);

PLAN_API
gboolean plan_element_refuse_backward_seek (struct _GstElement * element,
    struct _GstEvent * event);

PLAN_API
void plan_element_push_empty_segment (struct _GstElement * source,
    guint32 seqnum);

PLAN_API
gboolean plan_element_refuse_live_set (struct _GstElement * element,
    GParamSpec * pspec, gboolean in_use);

PLAN_API
gboolean plan_element_check_downstream_caps (struct _GstElement * element,
    struct _GstPad * srcpad, const gchar * what,
    const struct _GstCaps * caps);

PLAN_API
GParamSpec * plan_param_spec_checked_range (GParamSpec * range);

PLAN_API
gboolean plan_element_refuse_out_of_range (struct _GstElement * element,
    GParamSpec * pspec, const GValue * value);

PLAN_API
gboolean plan_element_check_ranges (struct _GstElement * element,
    GError ** error);

G_END_DECLS

#endif /* __PLAN_ERROR_H__ */
