/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planerror
 * @title: PlanError
 * @short_description: the GError domain of libplan
 *
 * Every libplan function that can fail on user input reports it through a
 * #GError in the #PLAN_ERROR domain whose message is written for the user:
 * it names the value, file or expression at fault and what is wrong with it.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planerror.h"

#include <gst/gst.h>

G_DEFINE_QUARK (plan-error-quark, plan_error);

/**
 * plan_error_get_gst_error:
 * @error: a #GError
 * @domain: (out): the GStreamer error domain for @error
 * @code: (out): the code in @domain
 *
 * Gives the GStreamer error an element posts for @error, the same for
 * every element (docs/reliability.md has the table): a value that does
 * not parse or cannot work (%PLAN_ERROR_INVALID_ARGUMENT,
 * %PLAN_ERROR_SYNTAX, %PLAN_ERROR_TYPE) is library / settings; inputs
 * whose shapes or dtypes do not fit together (%PLAN_ERROR_SHAPE) core /
 * negotiation; a malformed stream (%PLAN_ERROR_FORMAT) stream / format;
 * what is not supported (%PLAN_ERROR_UNSUPPORTED) core / not-implemented;
 * a device, I/O or busy failure resource / failed (busy: resource /
 * busy). Errors of other domains are core / failed.
 *
 * Since: 0.1
 */
void
plan_error_get_gst_error (const GError * error, GQuark * domain, gint * code)
{
  g_return_if_fail (error != NULL && domain != NULL && code != NULL);

  *domain = GST_CORE_ERROR;
  *code = GST_CORE_ERROR_FAILED;
  if (error->domain != PLAN_ERROR)
    return;
  switch ((PlanError) error->code) {
    case PLAN_ERROR_INVALID_ARGUMENT:
    case PLAN_ERROR_SYNTAX:
    case PLAN_ERROR_TYPE:
      *domain = GST_LIBRARY_ERROR;
      *code = GST_LIBRARY_ERROR_SETTINGS;
      break;
    case PLAN_ERROR_SHAPE:
      *code = GST_CORE_ERROR_NEGOTIATION;
      break;
    case PLAN_ERROR_FORMAT:
      *domain = GST_STREAM_ERROR;
      *code = GST_STREAM_ERROR_FORMAT;
      break;
    case PLAN_ERROR_UNSUPPORTED:
      *code = GST_CORE_ERROR_NOT_IMPLEMENTED;
      break;
    case PLAN_ERROR_DEVICE:
    case PLAN_ERROR_IO:
      *domain = GST_RESOURCE_ERROR;
      *code = GST_RESOURCE_ERROR_FAILED;
      break;
    case PLAN_ERROR_BUSY:
      *domain = GST_RESOURCE_ERROR;
      *code = GST_RESOURCE_ERROR_BUSY;
      break;
  }
}

/**
 * plan_element_post_error:
 * @element: the element that failed
 * @error: what failed, its message written for the user
 * @file: the source file posting (__FILE__)
 * @function: the function posting (GST_FUNCTION)
 * @line: the line posting (__LINE__)
 *
 * Posts @error as @element's error message, in the GStreamer domain
 * plan_error_get_gst_error() gives, with @error's message as the text.
 *
 * Since: 0.1
 */
void
plan_element_post_error (GstElement * element, const GError * error,
    const gchar * file, const gchar * function, gint line)
{
  GQuark domain;
  gint code;

  g_return_if_fail (GST_IS_ELEMENT (element) && error != NULL);

  plan_error_get_gst_error (error, &domain, &code);
  gst_element_message_full (element, GST_MESSAGE_ERROR, domain, code,
      g_strdup (error->message), NULL, file, function, line);
}
