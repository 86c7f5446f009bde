/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The vtable every device backend (cpu, cuda, sim) implements. Private to
 * libplan; never installed.
 *
 * Every function returns 0 or a negative errno, as SPA's interfaces do;
 * plandevice.c turns that into a GError at the API boundary. A backend may
 * add words to the error message with _plan_device_set_error_detail() (a
 * CUresult name, for instance) before it returns.
 *
 * Handles (streams, events, modules, functions) are opaque pointers the
 * backend owns; plandevice.c wraps them in mini objects.
 *
 * Threads: every function may be called from any thread. The host
 * functions given to launch_host and launch_host_kernel run on a thread of
 * the backend's choosing (the stream's worker for sim); @destroy runs after
 * them, on the same thread, or before launch_* returns when it fails. */

#ifndef __PLAN_DEVICE_BACKEND_H__
#define __PLAN_DEVICE_BACKEND_H__

#include "plandevice.h"
#include "plan-testing.h"

G_BEGIN_DECLS

typedef struct
{
  gchar *name;
  guint64 total_memory;
  gint cc_major;
  gint cc_minor;
} PlanDeviceBackendInfo;

typedef struct _PlanDeviceBackend PlanDeviceBackend;

struct _PlanDeviceBackend
{
  const gchar *name;

  /* Opens device @id; on success *impl is the backend's device state. */
  gint (*open) (gint id, gpointer * impl, PlanDeviceBackendInfo * info);
  void (*close) (gpointer impl);

  gint (*alloc) (gpointer impl, gsize size, gpointer * dptr);
  void (*free) (gpointer impl, gpointer dptr);
  gint (*alloc_host) (gpointer impl, gsize size, gpointer * ptr);
  void (*free_host) (gpointer impl, gpointer ptr);

  gint (*stream_new) (gpointer impl, gpointer * stream);
  void (*stream_free) (gpointer impl, gpointer stream);
  /* @site names the wait (PLAN_WAIT_SITE_NONE for a caller's own) */
  gint (*stream_synchronize) (gpointer impl, gpointer stream,
      PlanWaitSite site);
  gint (*stream_wait_event) (gpointer impl, gpointer stream, gpointer event,
      PlanWaitSite site);

  gint (*event_new) (gpointer impl, gpointer * event);
  void (*event_free) (gpointer impl, gpointer event);
  gint (*event_record) (gpointer impl, gpointer event, gpointer stream);
  /* 0 when done, -EAGAIN while pending, another negative errno on error */
  gint (*event_query) (gpointer impl, gpointer event);
  gint (*event_synchronize) (gpointer impl, gpointer event);

  /* with a NULL stream, copies before returning */
  gint (*copy) (gpointer impl, gpointer stream, PlanCopyKind kind,
      gpointer dst, gconstpointer src, gsize size);
  gint (*launch_host) (gpointer impl, gpointer stream, PlanHostFunc func,
      gpointer user_data, GDestroyNotify destroy);
  gint (*launch_host_kernel) (gpointer impl, gpointer stream,
      PlanHostKernelFunc func, gpointer * ptrs, guint n_ptrs,
      gpointer user_data, GDestroyNotify destroy);

  gint (*module_load) (gpointer impl, gconstpointer image, gsize size,
      const gchar * entry, gpointer * module, gpointer * function);
  void (*module_unload) (gpointer impl, gpointer module);
  gint (*launch_kernel) (gpointer impl, gpointer stream, gpointer function,
      const guint grid[3], const guint block[3], guint shared_bytes,
      gpointer * args);

  /* Test control (plan-testing.h); NULL where the backend has none: only
   * sim has. skip_waits: the waits at the sites of the mask @sites are
   * dropped by stream_synchronize and stream_wait_event from now on. */
  void (*inject_fault) (gpointer impl, PlanSimFault fault, gint after);
  void (*set_memory_limit) (gpointer impl, guint64 limit);
  void (*skip_waits) (gpointer impl, guint sites);
};

G_GNUC_INTERNAL extern const PlanDeviceBackend _plan_device_backend_cpu;
G_GNUC_INTERNAL extern const PlanDeviceBackend _plan_device_backend_sim;
G_GNUC_INTERNAL extern const PlanDeviceBackend _plan_device_backend_cuda;

G_GNUC_INTERNAL
void _plan_device_set_error_detail (const gchar * format, ...)
    G_GNUC_PRINTF (1, 2);

G_END_DECLS

#endif /* __PLAN_DEVICE_BACKEND_H__ */
