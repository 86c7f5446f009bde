/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The cpu backend: no device. "Device" memory is aligned host memory and
 * every stream operation runs on the calling thread before it returns, so
 * events are always done and waits are free. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/device/plandevice-backend.h"

#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#define CPU_ALIGN 64

static gint
cpu_open (gint id, gpointer * impl, PlanDeviceBackendInfo * info)
{
  glong pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);

  if (id != 0)
    return -ENODEV;
  *impl = GINT_TO_POINTER (1);
  info->name = g_strdup ("CPU");
  info->total_memory = (pages > 0 && page > 0) ? (guint64) pages *page : 0;
  info->cc_major = info->cc_minor = 0;
  return 0;
}

static void
cpu_close (gpointer impl)
{
}

static gint
cpu_alloc (gpointer impl, gsize size, gpointer * ptr)
{
  if (posix_memalign (ptr, CPU_ALIGN, size) != 0) {
    *ptr = NULL;
    return -ENOMEM;
  }
  return 0;
}

static void
cpu_free (gpointer impl, gpointer ptr)
{
  free (ptr);
}

static gint
cpu_stream_new (gpointer impl, gpointer * stream)
{
  /* Streams need no state; any non-NULL handle will do. */
  *stream = GINT_TO_POINTER (1);
  return 0;
}

static void
cpu_stream_free (gpointer impl, gpointer stream)
{
}

static gint
cpu_nothing (gpointer impl, gpointer handle)
{
  return 0;
}

static gint
cpu_synchronize (gpointer impl, gpointer stream, PlanWaitSite site)
{
  return 0;
}

static gint
cpu_wait_event (gpointer impl, gpointer stream, gpointer event,
    PlanWaitSite site)
{
  return 0;
}

static gint
cpu_event_record (gpointer impl, gpointer event, gpointer stream)
{
  return 0;
}

static gint
cpu_event_new (gpointer impl, gpointer * event)
{
  *event = GINT_TO_POINTER (1);
  return 0;
}

static void
cpu_event_free (gpointer impl, gpointer event)
{
}

static gint
cpu_copy (gpointer impl, gpointer stream, PlanCopyKind kind, gpointer dst,
    gconstpointer src, gsize size)
{
  memmove (dst, src, size);
  return 0;
}

static gint
cpu_launch_host (gpointer impl, gpointer stream, PlanHostFunc func,
    gpointer user_data, GDestroyNotify destroy)
{
  func (user_data);
  if (destroy)
    destroy (user_data);
  return 0;
}

static gint
cpu_launch_host_kernel (gpointer impl, gpointer stream,
    PlanHostKernelFunc func, gpointer * ptrs, guint n_ptrs,
    gpointer user_data, GDestroyNotify destroy)
{
  gpointer *copy = g_newa (gpointer, MAX (n_ptrs, 1));

  memcpy (copy, ptrs, n_ptrs * sizeof (gpointer));
  func (copy, n_ptrs, user_data);
  if (destroy)
    destroy (user_data);
  return 0;
}

static gint
cpu_module_load (gpointer impl, gconstpointer image, gsize size,
    const gchar * entry, gpointer * module, gpointer * function)
{
  _plan_device_set_error_detail ("the cpu device runs no PTX or cubin "
      "modules, only host kernels");
  return -ENOTSUP;
}

static void
cpu_module_unload (gpointer impl, gpointer module)
{
}

static gint
cpu_launch_kernel (gpointer impl, gpointer stream, gpointer function,
    const guint grid[3], const guint block[3], guint shared_bytes,
    gpointer * args)
{
  return -ENOTSUP;
}

const PlanDeviceBackend _plan_device_backend_cpu = {
  .name = "cpu",
  .open = cpu_open,
  .close = cpu_close,
  .alloc = cpu_alloc,
  .free = cpu_free,
  .alloc_host = cpu_alloc,
  .free_host = cpu_free,
  .stream_new = cpu_stream_new,
  .stream_free = cpu_stream_free,
  .stream_synchronize = cpu_synchronize,
  .stream_wait_event = cpu_wait_event,
  .event_new = cpu_event_new,
  .event_free = cpu_event_free,
  .event_record = cpu_event_record,
  .event_query = cpu_nothing,
  .event_synchronize = cpu_nothing,
  .copy = cpu_copy,
  .launch_host = cpu_launch_host,
  .launch_host_kernel = cpu_launch_host_kernel,
  .module_load = cpu_module_load,
  .module_unload = cpu_module_unload,
  .launch_kernel = cpu_launch_kernel,
};
