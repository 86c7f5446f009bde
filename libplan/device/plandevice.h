/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_DEVICE_H__
#define __PLAN_DEVICE_H__

#include <libplan/plan-prelude.h>

G_BEGIN_DECLS

/**
 * PlanDeviceKind:
 * @PLAN_DEVICE_KIND_CPU: no device: "device" memory is host memory and
 *   every stream operation completes before it returns.
 * @PLAN_DEVICE_KIND_CUDA: an NVIDIA GPU driven through the CUDA driver API
 *   (libcuda.so.1, loaded at run time).
 * @PLAN_DEVICE_KIND_SIM: a simulated asynchronous device: host memory that
 *   host code may touch only through the map API, one worker thread per
 *   stream, random delays before every operation.
 *
 * The backends of #PlanDevice.
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_DEVICE_KIND_CPU,
  PLAN_DEVICE_KIND_CUDA,
  PLAN_DEVICE_KIND_SIM,
} PlanDeviceKind;

#define PLAN_TYPE_DEVICE_KIND (plan_device_kind_get_type ())
PLAN_API
GType plan_device_kind_get_type (void);

/**
 * PlanCopyKind:
 * @PLAN_COPY_HOST_TO_DEVICE: from host memory to device memory.
 * @PLAN_COPY_DEVICE_TO_HOST: from device memory to host memory.
 * @PLAN_COPY_DEVICE_TO_DEVICE: between two device allocations.
 *
 * The direction of an asynchronous copy.
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_COPY_HOST_TO_DEVICE,
  PLAN_COPY_DEVICE_TO_HOST,
  PLAN_COPY_DEVICE_TO_DEVICE,
} PlanCopyKind;

/**
 * PLAN_DEVICE_ENV:
 *
 * The environment variable that chooses the backend of every GPU element
 * of the process: `sim` runs the whole GPU path on the simulated device,
 * `cuda` insists on CUDA.
 *
 * Since: 0.1
 */
#define PLAN_DEVICE_ENV "GST_PLAN_DEVICE"

/**
 * PLAN_SIM_SEED_ENV:
 *
 * The environment variable that seeds the random delays of the sim device
 * (an unsigned integer). Without it a seed is drawn and logged.
 *
 * Since: 0.1
 */
#define PLAN_SIM_SEED_ENV "GST_PLAN_SIM_SEED"

#define PLAN_TYPE_DEVICE (plan_device_get_type ())
PLAN_API
G_DECLARE_FINAL_TYPE (PlanDevice, plan_device, PLAN, DEVICE, GstObject)

/**
 * PlanStream:
 *
 * An ordered queue of device work (a CUDA stream, or a sim worker thread).
 * A #GstMiniObject: use plan_stream_ref() / plan_stream_unref().
 *
 * Since: 0.1
 */
typedef struct _PlanStream PlanStream;

/**
 * PlanEvent:
 *
 * A marker recorded on a stream; other streams and the host can wait for
 * the work before it to finish. A #GstMiniObject.
 *
 * Since: 0.1
 */
typedef struct _PlanEvent PlanEvent;

/**
 * PlanKernel:
 *
 * A device function loaded from a module (PTX or cubin). A #GstMiniObject.
 *
 * Since: 0.1
 */
typedef struct _PlanKernel PlanKernel;

/**
 * PlanHostFunc:
 * @user_data: the data given at launch
 *
 * A function run by a stream when the work queued before it is done.
 * It must not call into the device API (CUDA forbids it in stream
 * callbacks).
 *
 * Since: 0.1
 */
typedef void (*PlanHostFunc) (gpointer user_data);

/**
 * PlanHostKernelFunc:
 * @ptrs: (array length=n_ptrs): the device pointers given at launch, made
 *   accessible to host code for the duration of the call
 * @n_ptrs: the number of pointers
 * @user_data: the data given at launch
 *
 * A kernel written for the host, run in stream order on the sim (on its
 * worker thread) and cpu devices. It may read and write the memory behind
 * @ptrs, and nothing else of the device.
 *
 * Since: 0.1
 */
typedef void (*PlanHostKernelFunc) (gpointer * ptrs, guint n_ptrs,
    gpointer user_data);

PLAN_API
PlanDevice * plan_device_get (const gchar * name, GError ** error);

PLAN_API
gboolean plan_device_name_is_valid (const gchar * name, GError ** error);

PLAN_API
PlanDeviceKind plan_device_get_kind (PlanDevice * device);

PLAN_API
gboolean plan_device_is_gpu (PlanDevice * device);

PLAN_API
const gchar * plan_device_get_name (PlanDevice * device);

PLAN_API
guint64 plan_device_get_total_memory (PlanDevice * device);

PLAN_API
void plan_device_get_compute_capability (PlanDevice * device,
    gint * major, gint * minor);

PLAN_API
gboolean plan_device_alloc (PlanDevice * device, gsize size,
    gpointer * dptr, GError ** error);

PLAN_API
void plan_device_free (PlanDevice * device, gpointer dptr);

PLAN_API
gboolean plan_device_alloc_host (PlanDevice * device, gsize size,
    gpointer * ptr, GError ** error);

PLAN_API
void plan_device_free_host (PlanDevice * device, gpointer ptr);

PLAN_API
gboolean plan_device_copy (PlanDevice * device, PlanCopyKind kind,
    gpointer dst, gconstpointer src, gsize size, GError ** error);

PLAN_API
GstStructure * plan_device_get_stats (PlanDevice * device);

PLAN_API
void plan_device_reset_peak_memory (PlanDevice * device);

/* streams */

#define PLAN_TYPE_STREAM (plan_stream_get_type ())
PLAN_API
GType plan_stream_get_type (void);

PLAN_API
PlanStream * plan_stream_new (PlanDevice * device, GError ** error);

PLAN_API
PlanStream * plan_stream_ref (PlanStream * stream);

PLAN_API
void plan_stream_unref (PlanStream * stream);

PLAN_API
void plan_clear_stream (PlanStream ** stream_ptr);

PLAN_API
PlanDevice * plan_stream_get_device (PlanStream * stream);

PLAN_API
gboolean plan_stream_synchronize (PlanStream * stream, GError ** error);

PLAN_API
void plan_stream_set_error (PlanStream * stream, const GError * error);

PLAN_API
gboolean plan_stream_check_error (PlanStream * stream, GError ** error);

PLAN_API
gboolean plan_stream_wait_event (PlanStream * stream, PlanEvent * event,
    GError ** error);

PLAN_API
gboolean plan_stream_copy (PlanStream * stream, PlanCopyKind kind,
    gpointer dst, gconstpointer src, gsize size, GError ** error);

PLAN_API
gboolean plan_stream_launch_host_kernel (PlanStream * stream,
    PlanHostKernelFunc func, gpointer * ptrs, guint n_ptrs,
    gpointer user_data, GDestroyNotify destroy, GError ** error);

PLAN_API
gboolean plan_stream_launch_kernel (PlanStream * stream, PlanKernel * kernel,
    const guint grid[3], const guint block[3], guint shared_bytes,
    gpointer * args, GError ** error);

PLAN_API
PlanEvent * plan_stream_record (PlanStream * stream, GError ** error);

/* events */

#define PLAN_TYPE_EVENT (plan_event_get_type ())
PLAN_API
GType plan_event_get_type (void);

PLAN_API
PlanEvent * plan_event_new (PlanDevice * device, GError ** error);

PLAN_API
PlanEvent * plan_event_ref (PlanEvent * event);

PLAN_API
void plan_event_unref (PlanEvent * event);

PLAN_API
gboolean plan_event_query (PlanEvent * event);

PLAN_API
gboolean plan_event_synchronize (PlanEvent * event, GError ** error);

/* kernels */

#define PLAN_TYPE_KERNEL (plan_kernel_get_type ())
PLAN_API
GType plan_kernel_get_type (void);

PLAN_API
PlanKernel * plan_kernel_new (PlanDevice * device, gconstpointer image,
    gsize size, const gchar * entry, GError ** error);

PLAN_API
PlanKernel * plan_kernel_ref (PlanKernel * kernel);

PLAN_API
void plan_kernel_unref (PlanKernel * kernel);

PLAN_API
void plan_clear_kernel (PlanKernel ** kernel_ptr);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanStream, plan_stream_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanEvent, plan_event_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanKernel, plan_kernel_unref)

G_END_DECLS

#endif /* __PLAN_DEVICE_H__ */
