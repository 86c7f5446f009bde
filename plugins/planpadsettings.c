/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The kernel elements' sink pads are all PlanKernelPads, with the
 * `variable` (planmap, planstencil) and `window` (planstencil) of an
 * input; an element that does not read one refuses it when set, rather
 * than ignoring what the user asked for. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planpadsettings.h"

/* Fails with a settings error naming the element, the pad and the value
 * when an input of @kernel (a @factory) has a `variable` and it does not
 * read one (!@reads_variable), or a `window` and it does not read one. */
gboolean
plan_refuse_unread_pad_settings (PlanKernelElement * kernel,
    const gchar * factory, guint n_inputs, gboolean reads_variable,
    gboolean reads_window, GError ** error)
{
  guint i;

  for (i = 0; i < n_inputs; i++) {
    const gchar *variable =
        plan_kernel_element_get_input_variable (kernel, i);
    const gchar *window = plan_kernel_element_get_input_window (kernel, i);
    const gchar *name = plan_kernel_element_get_input_name (kernel, i);

    if (variable != NULL && !reads_variable) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "%s %s: its pad %s has variable=\"%s\", which %s does not read "
          "(planmap and planstencil name their inputs); unset it",
          factory, GST_OBJECT_NAME (kernel), name, variable, factory);
      return FALSE;
    }
    if (window != NULL && !reads_window) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "%s %s: its pad %s has window=\"%s\", which %s does not read "
          "(only planstencil's request pads take a window); unset it",
          factory, GST_OBJECT_NAME (kernel), name, window, factory);
      return FALSE;
    }
  }
  return TRUE;
}
