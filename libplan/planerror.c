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

G_DEFINE_QUARK (plan-error-quark, plan_error);
