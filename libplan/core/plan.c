/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:plan
 * @title: libplan
 * @short_description: initialisation
 *
 * Call plan_init() once after gst_init() before using libplan; the plan
 * plugin does so when it loads.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plan-private.h"

GST_DEBUG_CATEGORY (plan_debug);

void
_plan_debug_init (void)
{
  GST_DEBUG_CATEGORY_INIT (plan_debug, "plan", 0, "libplan");
}

/**
 * plan_init:
 *
 * Initialises libplan: registers its types and debug categories. It is
 * safe to call more than once, from any thread. GStreamer is initialised
 * first (gst_init() without arguments) when the application has not done
 * so, as a language binding that imports libplan alone would not.
 *
 * Since: 0.1
 */
void
plan_init (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    if (!gst_is_initialized ())
      gst_init (NULL, NULL);
    _plan_debug_init ();
    g_type_ensure (PLAN_TYPE_DTYPE);
    g_type_ensure (PLAN_TYPE_ARRAY_INFO);
    g_type_ensure (PLAN_TYPE_EXPR);
    plan_device_memory_init_once ();
    plan_host_memory_init_once ();
    g_once_init_leave (&done, 1);
  }
}
