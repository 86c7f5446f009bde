/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What libplan's MPI files share and do not install. */

#ifndef __PLAN_COMM_PRIVATE_H__
#define __PLAN_COMM_PRIVATE_H__

#include "plancomm.h"

G_BEGIN_DECLS

G_GNUC_INTERNAL
gboolean _plan_comm_check_failed (PlanComm * comm, guint wait_ms,
    GError ** error);

G_END_DECLS

#endif /* __PLAN_COMM_PRIVATE_H__ */
