/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_COMM_H__
#define __PLAN_COMM_H__

#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's MPI communication API is unstable and may change; define PLAN_USE_UNSTABLE_API to use it without this warning."
#endif

#include <libplan/plan-prelude.h>
#include <libplan/planshard.h>
#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * PlanComm:
 *
 * The process's connection to the other ranks of its MPI job
 * (MPI_COMM_WORLD), shared by every element of the process; got with
 * plan_comm_get_world(), never freed. Its functions may be called from
 * any thread.
 *
 * Since: 0.1
 */
typedef struct _PlanComm PlanComm;

/**
 * PlanCommPurpose:
 * @PLAN_COMM_REDUCE: a reduction's partial results and its result
 * @PLAN_COMM_HALO: a stencil's halo rows
 * @PLAN_COMM_OUTPUT: a sink's shared output: its name, and the verdict
 * @PLAN_COMM_OUTPUT_DONE: a sink's shared output: each rank's outcome
 *
 * What a message is for; with the name of the element that sends it, it
 * makes the message's tag (plan_comm_tag()).
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_COMM_REDUCE,
  PLAN_COMM_HALO,
  PLAN_COMM_OUTPUT,
  PLAN_COMM_OUTPUT_DONE,
} PlanCommPurpose;

PLAN_API
PlanComm * plan_comm_get_world (GError ** error);

PLAN_API
guint plan_comm_get_rank (PlanComm * comm);

PLAN_API
guint plan_comm_get_size (PlanComm * comm);

PLAN_API
gint plan_comm_tag (PlanComm * comm, const gchar * owner,
    PlanCommPurpose purpose);

PLAN_API
void plan_comm_send (PlanComm * comm, guint peer, gint tag, GBytes * data);

PLAN_API
GBytes * plan_comm_recv (PlanComm * comm, guint peer, gint tag,
    GCancellable * cancellable, GError ** error);

PLAN_API
gboolean plan_comm_gather (PlanComm * comm, gint tag, GBytes * mine,
    GBytes *** all, GCancellable * cancellable, GError ** error);

PLAN_API
GBytes * plan_comm_broadcast (PlanComm * comm, gint tag, GBytes * data,
    GCancellable * cancellable, GError ** error);

PLAN_API
void plan_comm_abort (PlanComm * comm, const gchar * why);

PLAN_API
void plan_comm_tell_failure (const gchar * why);

PLAN_API
gboolean plan_comm_check_plan (GstElement * element, GError ** error);

G_END_DECLS

#endif /* __PLAN_COMM_H__ */
