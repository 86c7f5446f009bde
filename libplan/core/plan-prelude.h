/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_PRELUDE_H__
#define __PLAN_PRELUDE_H__

#include <gst/gst.h>

#ifdef BUILDING_PLAN
#define PLAN_API _GST_EXPORT
#else
#define PLAN_API _GST_IMPORT
#endif

#endif /* __PLAN_PRELUDE_H__ */
