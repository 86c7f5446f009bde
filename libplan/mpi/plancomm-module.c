/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The MPI module (libplan-mpi.so, built from this file alone): every call
 * libplan makes to the MPI library, in the table plancomm.c calls through
 * (plancomm-private.h says why). Nothing else of the module is
 * exported. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plancomm-private.h"
#include <libplan/planerror.h>

#include <gmodule.h>
#include <mpi.h>

G_STATIC_ASSERT (sizeof (MPI_Request) <= sizeof (PlanMpiRequest));

static gboolean
mpi_init (gboolean * started, guint * rank, guint * size, gint * tag_ub,
    GError ** error)
{
  int initialized = 0, provided = 0, r = 0, s = 1;
  int *ub = NULL, found = 0;

  *started = FALSE;
  MPI_Initialized (&initialized);
  if (!initialized) {
    if (MPI_Init_thread (NULL, NULL, MPI_THREAD_MULTIPLE, &provided)
        != MPI_SUCCESS)
      goto init_failed;
    *started = TRUE;
  } else {
    MPI_Query_thread (&provided);
  }
  if (provided < MPI_THREAD_MULTIPLE)
    goto no_threads;
  MPI_Comm_rank (MPI_COMM_WORLD, &r);
  MPI_Comm_size (MPI_COMM_WORLD, &s);
  MPI_Comm_get_attr (MPI_COMM_WORLD, MPI_TAG_UB, &ub, &found);
  *rank = (guint) r;
  *size = (guint) s;
  *tag_ub = found && ub ? *ub : 0;
  return TRUE;

  /* ERRORS */
init_failed:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "MPI could not be initialised (MPI_Init_thread failed)");
    return FALSE;
  }
no_threads:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "the MPI library gives thread level %d, and sharded elements talk "
        "from their own streaming threads: it needs MPI_THREAD_MULTIPLE "
        "(%d)", provided, MPI_THREAD_MULTIPLE);
    return FALSE;
  }
}

static gboolean
mpi_finalized (void)
{
  int finalized = 0;

  MPI_Finalized (&finalized);
  return finalized != 0;
}

static void
mpi_finalize (void)
{
  MPI_Finalize ();
}

static void
mpi_isend (gconstpointer data, gint size, gint peer, gint tag,
    PlanMpiRequest * request)
{
  MPI_Isend (data, size, MPI_BYTE, peer, tag, MPI_COMM_WORLD,
      (MPI_Request *) request);
}

static gboolean
mpi_test (PlanMpiRequest * request)
{
  int done = 0;

  MPI_Test ((MPI_Request *) request, &done, MPI_STATUS_IGNORE);
  return done != 0;
}

static GBytes *
mpi_improbe (gint peer, gint tag, gint * source)
{
  MPI_Message message;
  MPI_Status status;
  int found = 0, count = 0;
  guint8 *buf;

  MPI_Improbe (peer == PLAN_MPI_ANY_SOURCE ? MPI_ANY_SOURCE : peer, tag,
      MPI_COMM_WORLD, &found, &message, &status);
  if (!found)
    return NULL;
  MPI_Get_count (&status, MPI_BYTE, &count);
  buf = g_malloc (MAX (count, 1));
  MPI_Mrecv (buf, count, MPI_BYTE, &message, MPI_STATUS_IGNORE);
  if (source)
    *source = status.MPI_SOURCE;
  return g_bytes_new_take (buf, count);
}

static const PlanMpiModule table = {
  PLAN_MPI_MODULE_VERSION,
  sizeof (PlanMpiModule),
  mpi_init,
  mpi_finalized,
  mpi_finalize,
  mpi_isend,
  mpi_test,
  mpi_improbe,
};

G_MODULE_EXPORT const PlanMpiModule *plan_mpi_module_get (void);

G_MODULE_EXPORT const PlanMpiModule *
plan_mpi_module_get (void)
{
  return &table;
}
