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

/* Open MPI on first use: the MPI calls are built into a module of their
 * own, libplan-mpi.so (plancomm-module.c), which plancomm.c loads the
 * first time a process asks for its communicator (plan_comm_get_world()).
 * libmpi and what it links (Open MPI's runtime, hwloc, libevent, udev)
 * then cost nothing to a process that runs no sharded plan, where loading
 * them took some 2 ms of every start-up. The module hands libplan this
 * table; the communicator is MPI_COMM_WORLD throughout. */
#define PLAN_MPI_MODULE_VERSION 1

/* Any rank, for improbe's @peer. */
#define PLAN_MPI_ANY_SOURCE (-1)

/* A send in flight: an MPI_Request, whatever its type in the MPI library
 * (the module checks that it fits). */
typedef union
{
  gpointer p;
  guint64 opaque[2];
} PlanMpiRequest;

typedef struct
{
  guint version;                /* PLAN_MPI_MODULE_VERSION */
  gsize size;                   /* sizeof (PlanMpiModule) */
  /* the header above is PlanModuleHeader's */

  /* Initialises MPI with MPI_THREAD_MULTIPLE unless the process already
   * did; @started: whether this call did (it must then be finalised),
   * set even when it fails afterwards; @tag_ub: the library's MPI_TAG_UB,
   * 0 when it has none. */
  gboolean (*init) (gboolean * started, guint * rank, guint * size,
      gint * tag_ub, GError ** error);
  gboolean (*finalized) (void);
  void (*finalize) (void);
  /* MPI_Isend of @size bytes. */
  void (*isend) (gconstpointer data, gint size, gint peer, gint tag,
      PlanMpiRequest * request);
  /* MPI_Test: whether the send is done. */
  gboolean (*test) (PlanMpiRequest * request);
  /* The next message from @peer with @tag, received, or %NULL when none
   * has come (MPI_Improbe, then MPI_Mrecv); @source: the sender. */
  GBytes *(*improbe) (gint peer, gint tag, gint * source);
} PlanMpiModule;

/* The module's one exported function. */
typedef const PlanMpiModule *(*PlanMpiModuleGetFunc) (void);
#define PLAN_MPI_MODULE_GET "plan_mpi_module_get"

G_GNUC_INTERNAL
gboolean _plan_comm_check_failed (PlanComm * comm, guint wait_ms,
    GError ** error);

G_END_DECLS

#endif /* __PLAN_COMM_PRIVATE_H__ */
