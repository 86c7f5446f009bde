/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The one header applications and third-party elements include. */

#ifndef __PLAN_H__
#define __PLAN_H__

#include <libplan/plan-prelude.h>
#include <libplan/planerror.h>
#include <libplan/plandtype.h>
#include <libplan/planarrayinfo.h>
#include <libplan/plannpy.h>
#include <libplan/planfileformat.h>
#include <libplan/planquery.h>
#include <libplan/planfilereader.h>
#include <libplan/plankernelelement.h>
#include <libplan/planshard.h>
#include <libplan/planwindow.h>
#include <libplan/planboundary.h>
#include <libplan/plandevice.h>
#include <libplan/plandevicememory.h>
#include <libplan/planhostmemory.h>
#include <libplan/planbufferpool.h>
#include <libplan/planexpr.h>
#include <libplan/planreducer.h>
#include <libplan/plancustom.h>
#include <libplan/planarray.h>
#include <libplan/planarraysrc.h>
#include <libplan/planarraysink.h>
#include <libplan/plannode.h>
#include <libplan/planbindings.h>
#include <libplan/planfuture.h>
#include <libplan/planwork.h>
#include <libplan/plangraph.h>

/* Building blocks that may still change: included only when the
 * application defines PLAN_USE_UNSTABLE_API before including plan.h. */
#ifdef PLAN_USE_UNSTABLE_API
#include <libplan/planfilewriter.h>
#include <libplan/planhalo.h>
#include <libplan/planparallel.h>
#include <libplan/plannvrtc.h>
#include <libplan/planuploader.h>
#include <libplan/planstencilkernel.h>
#include <libplan/planprogress.h>
#include <libplan/plancomm.h>
#include <libplan/planshardwriter.h>
#include <libplan/planhaloexchange.h>
#include <libplan/planshardhooks.h>
#include <libplan/plankernelhalo.h>
#include <libplan/plankernelinput.h>
#include <libplan/planreducerdevice.h>
#include <libplan/planreducemap.h>
#include <libplan/planreducerasync.h>
#include <libplan/plansink.h>
#endif

G_BEGIN_DECLS

PLAN_API
void plan_init (void);

G_END_DECLS

#endif /* __PLAN_H__ */
