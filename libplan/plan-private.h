/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Helpers shared inside libplan only; never installed. */

#ifndef __PLAN_PRIVATE_H__
#define __PLAN_PRIVATE_H__

#include "plan.h"

G_BEGIN_DECLS

G_GNUC_INTERNAL
void _plan_debug_init (void);

G_END_DECLS

#endif /* __PLAN_PRIVATE_H__ */
