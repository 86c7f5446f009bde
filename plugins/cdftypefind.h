/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_CDF_TYPE_FIND_H__
#define __PLAN_CDF_TYPE_FIND_H__

#include <gst/gst.h>

G_BEGIN_DECLS

GST_TYPE_FIND_REGISTER_DECLARE (netcdf);

G_END_DECLS

#endif /* __PLAN_CDF_TYPE_FIND_H__ */
