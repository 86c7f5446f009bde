/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_SINK_H__
#define __PLAN_SINK_H__

#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's sink helpers are unstable and may change; define PLAN_USE_UNSTABLE_API to use them without this warning."
#endif

#include <libplan/plan-prelude.h>

G_BEGIN_DECLS

PLAN_API
guint plan_sink_forget_eos (GstElement * sink);

G_END_DECLS

#endif /* __PLAN_SINK_H__ */
