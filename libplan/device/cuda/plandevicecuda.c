/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The cuda backend: the CUDA driver API, loaded from libcuda.so.1 at run
 * time (never linked), so that libplan and the plugin load, and the CPU
 * target works, on machines without the NVIDIA driver. Each device uses
 * its primary context, pushed around every call. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/device/plandevice-backend.h"
#include "plancuda-private.h"

#include <errno.h>
#include <string.h>
#include <gmodule.h>

GST_DEBUG_CATEGORY_STATIC (plan_device_cuda_debug);
#define GST_CAT_DEFAULT plan_device_cuda_debug

/* The library to load; a test may point it elsewhere to check the error
 * given when the driver is missing. */
#define CUDA_LIBRARY_ENV "GST_PLAN_CUDA_LIBRARY"
#define CUDA_LIBRARY "libcuda.so.1"

static PlanCudaFuncs cuda;

static void
debug_init (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (plan_device_cuda_debug, "plandevicecuda", 0,
        "the CUDA device");
    g_once_init_leave (&done, 1);
  }
}

gboolean
_plan_cuda_result (CUresult result, GstDebugCategory * cat,
    const gchar * file, const gchar * function, gint line)
{
  const gchar *name = NULL, *text = NULL;

  if (G_LIKELY (result == CUDA_SUCCESS))
    return TRUE;

  if (cuda.GetErrorName)
    cuda.GetErrorName (result, &name);
  if (cuda.GetErrorString)
    cuda.GetErrorString (result, &text);
#ifndef GST_DISABLE_GST_DEBUG
  gst_debug_log (cat, GST_LEVEL_WARNING, file, function, line, NULL,
      "CUDA call failed: %s (%d): %s", GST_STR_NULL (name), result,
      GST_STR_NULL (text));
#endif
  _plan_device_set_error_detail ("%s: %s", name ? name : "CUDA error",
      text ? text : "unknown");
  return FALSE;
}

static gint
cuda_errno (CUresult result)
{
  switch (result) {
    case CUDA_SUCCESS:
      return 0;
    case CUDA_ERROR_OUT_OF_MEMORY:
      return -ENOMEM;
    case CUDA_ERROR_NOT_READY:
      return -EAGAIN;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
      return -ENODEV;
    case CUDA_ERROR_INVALID_VALUE:
      return -EINVAL;
    default:
      return -EIO;
  }
}

/* Must be called once, under the once-guard of _plan_cuda_load. */
static gboolean
load_symbols (GModule * module, gchar ** why_not)
{
  /* *INDENT-OFF* */
  struct { const gchar *name; gpointer *slot; } table[] = {
    {"cuInit", (gpointer *) &cuda.Init},
    {"cuGetErrorName", (gpointer *) &cuda.GetErrorName},
    {"cuGetErrorString", (gpointer *) &cuda.GetErrorString},
    {"cuDeviceGetCount", (gpointer *) &cuda.DeviceGetCount},
    {"cuDeviceGet", (gpointer *) &cuda.DeviceGet},
    {"cuDeviceGetName", (gpointer *) &cuda.DeviceGetName},
    {"cuDeviceTotalMem_v2", (gpointer *) &cuda.DeviceTotalMem},
    {"cuDeviceGetAttribute", (gpointer *) &cuda.DeviceGetAttribute},
    {"cuDevicePrimaryCtxRetain", (gpointer *) &cuda.DevicePrimaryCtxRetain},
    {"cuDevicePrimaryCtxRelease_v2", (gpointer *) &cuda.DevicePrimaryCtxRelease},
    {"cuCtxPushCurrent_v2", (gpointer *) &cuda.CtxPushCurrent},
    {"cuCtxPopCurrent_v2", (gpointer *) &cuda.CtxPopCurrent},
    {"cuCtxSynchronize", (gpointer *) &cuda.CtxSynchronize},
    {"cuMemAlloc_v2", (gpointer *) &cuda.MemAlloc},
    {"cuMemFree_v2", (gpointer *) &cuda.MemFree},
    {"cuMemHostAlloc", (gpointer *) &cuda.MemHostAlloc},
    {"cuMemFreeHost", (gpointer *) &cuda.MemFreeHost},
    {"cuStreamCreate", (gpointer *) &cuda.StreamCreate},
    {"cuStreamDestroy_v2", (gpointer *) &cuda.StreamDestroy},
    {"cuStreamSynchronize", (gpointer *) &cuda.StreamSynchronize},
    {"cuStreamWaitEvent", (gpointer *) &cuda.StreamWaitEvent},
    {"cuEventCreate", (gpointer *) &cuda.EventCreate},
    {"cuEventDestroy_v2", (gpointer *) &cuda.EventDestroy},
    {"cuEventRecord", (gpointer *) &cuda.EventRecord},
    {"cuEventQuery", (gpointer *) &cuda.EventQuery},
    {"cuEventSynchronize", (gpointer *) &cuda.EventSynchronize},
    {"cuMemcpyHtoDAsync_v2", (gpointer *) &cuda.MemcpyHtoDAsync},
    {"cuMemcpyDtoHAsync_v2", (gpointer *) &cuda.MemcpyDtoHAsync},
    {"cuMemcpyDtoDAsync_v2", (gpointer *) &cuda.MemcpyDtoDAsync},
    {"cuModuleLoadData", (gpointer *) &cuda.ModuleLoadData},
    {"cuModuleUnload", (gpointer *) &cuda.ModuleUnload},
    {"cuModuleGetFunction", (gpointer *) &cuda.ModuleGetFunction},
    {"cuLaunchKernel", (gpointer *) &cuda.LaunchKernel},
    {"cuLaunchHostFunc", (gpointer *) &cuda.LaunchHostFunc},
  };
  /* *INDENT-ON* */
  guint i;

  for (i = 0; i < G_N_ELEMENTS (table); i++) {
    if (!g_module_symbol (module, table[i].name, table[i].slot)) {
      *why_not = g_strdup_printf ("the NVIDIA driver library %s lacks %s; "
          "the driver is too old", g_module_name (module), table[i].name);
      memset (&cuda, 0, sizeof (cuda));
      return FALSE;
    }
  }
  return TRUE;
}

/**
 * _plan_cuda_load:
 * @why_not: (out): on failure, why, in words for the user
 *
 * Loads libcuda.so.1 and initialises the driver, once per process.
 *
 * Returns: (nullable): the entry points, or %NULL.
 */
const PlanCudaFuncs *
_plan_cuda_load (gchar ** why_not)
{
  static gsize done = 0;
  static gchar *error = NULL;
  static gboolean loaded = FALSE;

  debug_init ();
  if (g_once_init_enter (&done)) {
    const gchar *name = g_getenv (CUDA_LIBRARY_ENV);
    GModule *module;

    if (name == NULL || *name == '\0')
      name = CUDA_LIBRARY;
    module = g_module_open (name, G_MODULE_BIND_LAZY);
    if (module == NULL) {
      error = g_strdup_printf ("the NVIDIA driver (%s) is missing: %s", name,
          g_module_error ());
    } else if (load_symbols (module, &error)) {
      CUresult res = cuda.Init (0);

      if (res == CUDA_SUCCESS) {
        loaded = TRUE;
      } else if (res == CUDA_ERROR_STUB_LIBRARY) {
        error = g_strdup_printf ("the NVIDIA driver (%s) is missing: only "
            "the CUDA toolkit's stub library was found", name);
      } else {
        const gchar *ename = NULL;

        cuda.GetErrorName (res, &ename);
        error = g_strdup_printf ("the NVIDIA driver (%s) failed to "
            "initialise: %s (%d)", name, GST_STR_NULL (ename), res);
      }
      /* The module stays open for the life of the process: its functions
       * may be in use by any thread. */
    }
    if (error != NULL)
      GST_INFO ("CUDA unavailable: %s", error);
    g_once_init_leave (&done, 1);
  }
  if (!loaded && why_not)
    *why_not = g_strdup (error);
  return loaded ? &cuda : NULL;
}

typedef struct
{
  CUdevice device;
  CUcontext context;
} CudaDevice;

static gboolean
push (CudaDevice * dev)
{
  return plan_cuda_result (cuda.CtxPushCurrent (dev->context));
}

static void
pop (void)
{
  CUcontext unused;

  plan_cuda_result (cuda.CtxPopCurrent (&unused));
}

static gint
cuda_open (gint id, gpointer * impl, PlanDeviceBackendInfo * info)
{
  CudaDevice *dev;
  gchar *why_not = NULL;
  gchar name[256] = { 0 };
  gsize total = 0;
  gint count = 0, res;

  if (_plan_cuda_load (&why_not) == NULL) {
    _plan_device_set_error_detail ("%s. Set GST_PLAN_DEVICE=sim to run the "
        "GPU path on the simulated device", why_not);
    g_free (why_not);
    return -ENOENT;
  }
  if (!plan_cuda_result (res = cuda.DeviceGetCount (&count)))
    return cuda_errno (res);
  if (id >= count) {
    _plan_device_set_error_detail ("there is no CUDA device %d (%d found)",
        id, count);
    return -ENODEV;
  }

  dev = g_new0 (CudaDevice, 1);
  if (!plan_cuda_result (res = cuda.DeviceGet (&dev->device, id))
      || !plan_cuda_result (res = cuda.DevicePrimaryCtxRetain (&dev->context,
              dev->device))) {
    g_free (dev);
    return cuda_errno (res);
  }
  plan_cuda_result (cuda.DeviceGetName (name, sizeof (name) - 1, dev->device));
  plan_cuda_result (cuda.DeviceTotalMem (&total, dev->device));
  plan_cuda_result (cuda.DeviceGetAttribute (&info->cc_major,
          CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev->device));
  plan_cuda_result (cuda.DeviceGetAttribute (&info->cc_minor,
          CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev->device));
  info->name = g_strdup (name);
  info->total_memory = total;
  *impl = dev;
  return 0;
}

static void
cuda_close (gpointer impl)
{
  CudaDevice *dev = impl;

  plan_cuda_result (cuda.DevicePrimaryCtxRelease (dev->device));
  g_free (dev);
}

static gint
cuda_alloc (gpointer impl, gsize size, gpointer * dptr)
{
  CUdeviceptr ptr = 0;
  CUresult res;

  if (!push (impl))
    return -EIO;
  res = cuda.MemAlloc (&ptr, size);
  pop ();
  if (!plan_cuda_result (res))
    return cuda_errno (res);
  *dptr = (gpointer) (guintptr) ptr;
  return 0;
}

static void
cuda_free (gpointer impl, gpointer dptr)
{
  if (!push (impl))
    return;
  /* Queued work may still use the memory; cuMemFree does not wait for
   * streams created non-blocking, so wait here (frees are rare: pool
   * teardown). */
  plan_cuda_result (cuda.CtxSynchronize ());
  plan_cuda_result (cuda.MemFree ((CUdeviceptr) (guintptr) dptr));
  pop ();
}

static gint
cuda_alloc_host (gpointer impl, gsize size, gpointer * ptr)
{
  CUresult res;

  if (!push (impl))
    return -EIO;
  res = cuda.MemHostAlloc (ptr, size, CU_MEMHOSTALLOC_PORTABLE);
  pop ();
  return plan_cuda_result (res) ? 0 : cuda_errno (res);
}

static void
cuda_free_host (gpointer impl, gpointer ptr)
{
  if (!push (impl))
    return;
  plan_cuda_result (cuda.MemFreeHost (ptr));
  pop ();
}

static gint
cuda_stream_new (gpointer impl, gpointer * handle)
{
  CUstream stream = NULL;
  CUresult res;

  if (!push (impl))
    return -EIO;
  res = cuda.StreamCreate (&stream, CU_STREAM_NON_BLOCKING);
  pop ();
  if (!plan_cuda_result (res))
    return cuda_errno (res);
  *handle = stream;
  return 0;
}

static void
cuda_stream_free (gpointer impl, gpointer handle)
{
  if (!push (impl))
    return;
  plan_cuda_result (cuda.StreamSynchronize (handle));
  plan_cuda_result (cuda.StreamDestroy (handle));
  pop ();
}

static gint
cuda_stream_synchronize (gpointer impl, gpointer handle, PlanWaitSite site)
{
  CUresult res;

  if (!push (impl))
    return -EIO;
  res = cuda.StreamSynchronize (handle);
  pop ();
  return plan_cuda_result (res) ? 0 : cuda_errno (res);
}

static gint
cuda_stream_wait_event (gpointer impl, gpointer stream, gpointer event,
    PlanWaitSite site)
{
  CUresult res;

  if (!push (impl))
    return -EIO;
  res = cuda.StreamWaitEvent (stream, event, 0);
  pop ();
  return plan_cuda_result (res) ? 0 : cuda_errno (res);
}

static gint
cuda_event_new (gpointer impl, gpointer * handle)
{
  CUevent event = NULL;
  CUresult res;

  if (!push (impl))
    return -EIO;
  res = cuda.EventCreate (&event, CU_EVENT_DISABLE_TIMING);
  pop ();
  if (!plan_cuda_result (res))
    return cuda_errno (res);
  *handle = event;
  return 0;
}

static void
cuda_event_free (gpointer impl, gpointer handle)
{
  if (!push (impl))
    return;
  plan_cuda_result (cuda.EventDestroy (handle));
  pop ();
}

static gint
cuda_event_record (gpointer impl, gpointer event, gpointer stream)
{
  CUresult res;

  if (!push (impl))
    return -EIO;
  res = cuda.EventRecord (event, stream);
  pop ();
  return plan_cuda_result (res) ? 0 : cuda_errno (res);
}

static gint
cuda_event_query (gpointer impl, gpointer event)
{
  CUresult res;

  if (!push (impl))
    return -EIO;
  res = cuda.EventQuery (event);
  pop ();
  /* CUDA_ERROR_NOT_READY is an answer, not a failure */
  if (res == CUDA_ERROR_NOT_READY)
    return -EAGAIN;
  return plan_cuda_result (res) ? 0 : cuda_errno (res);
}

static gint
cuda_event_synchronize (gpointer impl, gpointer event)
{
  CUresult res;

  if (!push (impl))
    return -EIO;
  res = cuda.EventSynchronize (event);
  pop ();
  return plan_cuda_result (res) ? 0 : cuda_errno (res);
}

static gint
cuda_copy (gpointer impl, gpointer stream, PlanCopyKind kind, gpointer dst,
    gconstpointer src, gsize size)
{
  CUresult res;

  if (!push (impl))
    return -EIO;
  switch (kind) {
    case PLAN_COPY_HOST_TO_DEVICE:
      res = cuda.MemcpyHtoDAsync ((CUdeviceptr) (guintptr) dst, src, size,
          stream);
      break;
    case PLAN_COPY_DEVICE_TO_HOST:
      res = cuda.MemcpyDtoHAsync (dst, (CUdeviceptr) (guintptr) src, size,
          stream);
      break;
    default:
      res = cuda.MemcpyDtoDAsync ((CUdeviceptr) (guintptr) dst,
          (CUdeviceptr) (guintptr) src, size, stream);
      break;
  }
  /* A NULL stream asks for a synchronous copy: the host touches the data
   * right after. */
  if (res == CUDA_SUCCESS && stream == NULL)
    res = cuda.StreamSynchronize (NULL);
  pop ();
  return plan_cuda_result (res) ? 0 : cuda_errno (res);
}

typedef struct
{
  PlanHostFunc func;
  gpointer user_data;
  GDestroyNotify destroy;
} HostCall;

static void
host_trampoline (gpointer data)
{
  HostCall *call = data;

  call->func (call->user_data);
  if (call->destroy)
    call->destroy (call->user_data);
  g_free (call);
}

static gint
cuda_launch_host (gpointer impl, gpointer stream, PlanHostFunc func,
    gpointer user_data, GDestroyNotify destroy)
{
  HostCall *call = g_new (HostCall, 1);
  CUresult res = CUDA_ERROR_INVALID_VALUE;

  call->func = func;
  call->user_data = user_data;
  call->destroy = destroy;
  if (push (impl)) {
    res = cuda.LaunchHostFunc (stream, host_trampoline, call);
    pop ();
  }
  if (!plan_cuda_result (res)) {
    g_free (call);
    if (destroy)
      destroy (user_data);
    return cuda_errno (res);
  }
  return 0;
}

static gint
cuda_launch_host_kernel (gpointer impl, gpointer stream,
    PlanHostKernelFunc func, gpointer * ptrs, guint n_ptrs,
    gpointer user_data, GDestroyNotify destroy)
{
  if (destroy)
    destroy (user_data);
  _plan_device_set_error_detail ("host code cannot run on CUDA device "
      "memory; launch a CUDA kernel instead");
  return -ENOTSUP;
}

static gint
cuda_module_load (gpointer impl, gconstpointer image, gsize size,
    const gchar * entry, gpointer * module, gpointer * function)
{
  static const guint8 elf[] = { 0x7f, 'E', 'L', 'F' };
  static const guint8 fatbin[] = { 0x50, 0xed, 0x55, 0xba };
  gchar *text = NULL;
  CUmodule mod = NULL;
  CUfunction fn = NULL;
  CUresult res;

  /* PTX is text, which cuModuleLoadData wants NUL-terminated; cubins and
   * fatbins are binary and carry their own size. */
  if (size >= 4 && memcmp (image, elf, 4) != 0
      && memcmp (image, fatbin, 4) != 0 && ((const gchar *) image)[size - 1])
    image = text = g_strndup (image, size);

  if (!push (impl)) {
    g_free (text);
    return -EIO;
  }
  res = cuda.ModuleLoadData (&mod, image);
  if (plan_cuda_result (res)) {
    res = cuda.ModuleGetFunction (&fn, mod, entry);
    if (!plan_cuda_result (res)) {
      _plan_device_set_error_detail ("no kernel named '%s' in the module",
          entry);
      plan_cuda_result (cuda.ModuleUnload (mod));
    }
  }
  pop ();
  g_free (text);
  if (res != CUDA_SUCCESS)
    return cuda_errno (res);
  *module = mod;
  *function = fn;
  return 0;
}

static void
cuda_module_unload (gpointer impl, gpointer module)
{
  if (!push (impl))
    return;
  plan_cuda_result (cuda.ModuleUnload (module));
  pop ();
}

static gint
cuda_launch_kernel (gpointer impl, gpointer stream, gpointer function,
    const guint grid[3], const guint block[3], guint shared_bytes,
    gpointer * args)
{
  CUresult res;

  if (!push (impl))
    return -EIO;
  res = cuda.LaunchKernel (function, grid[0], grid[1], grid[2], block[0],
      block[1], block[2], shared_bytes, stream, args, NULL);
  pop ();
  return plan_cuda_result (res) ? 0 : cuda_errno (res);
}

const PlanDeviceBackend _plan_device_backend_cuda = {
  .name = "cuda",
  .open = cuda_open,
  .close = cuda_close,
  .alloc = cuda_alloc,
  .free = cuda_free,
  .alloc_host = cuda_alloc_host,
  .free_host = cuda_free_host,
  .stream_new = cuda_stream_new,
  .stream_free = cuda_stream_free,
  .stream_synchronize = cuda_stream_synchronize,
  .stream_wait_event = cuda_stream_wait_event,
  .event_new = cuda_event_new,
  .event_free = cuda_event_free,
  .event_record = cuda_event_record,
  .event_query = cuda_event_query,
  .event_synchronize = cuda_event_synchronize,
  .copy = cuda_copy,
  .launch_host = cuda_launch_host,
  .launch_host_kernel = cuda_launch_host_kernel,
  .module_load = cuda_module_load,
  .module_unload = cuda_module_unload,
  .launch_kernel = cuda_launch_kernel,
};
