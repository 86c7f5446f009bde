/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The CUDA driver API as libplan uses it: our own minimal declarations of
 * the types and entry points (no cuda.h, no link with libcuda), filled in at
 * run time from libcuda.so.1 through GModule. Private to libplan. */

#ifndef __PLAN_CUDA_PRIVATE_H__
#define __PLAN_CUDA_PRIVATE_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef gint CUresult;
typedef gint CUdevice;
typedef guint64 CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef void (*CUhostFn) (gpointer user_data);

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_STUB_LIBRARY 34
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_INVALID_DEVICE 101
#define CUDA_ERROR_NOT_READY 600

#define CU_STREAM_NON_BLOCKING 0x1
#define CU_EVENT_DISABLE_TIMING 0x2
#define CU_MEMHOSTALLOC_PORTABLE 0x1
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76

typedef struct
{
  CUresult (*Init) (guint flags);
  CUresult (*GetErrorName) (CUresult error, const gchar ** str);
  CUresult (*GetErrorString) (CUresult error, const gchar ** str);
  CUresult (*DeviceGetCount) (gint * count);
  CUresult (*DeviceGet) (CUdevice * device, gint ordinal);
  CUresult (*DeviceGetName) (gchar * name, gint len, CUdevice dev);
  CUresult (*DeviceTotalMem) (gsize * bytes, CUdevice dev);
  CUresult (*DeviceGetAttribute) (gint * value, gint attrib, CUdevice dev);
  CUresult (*DevicePrimaryCtxRetain) (CUcontext * ctx, CUdevice dev);
  CUresult (*DevicePrimaryCtxRelease) (CUdevice dev);
  CUresult (*CtxPushCurrent) (CUcontext ctx);
  CUresult (*CtxPopCurrent) (CUcontext * ctx);
  CUresult (*CtxSynchronize) (void);
  CUresult (*MemAlloc) (CUdeviceptr * dptr, gsize bytesize);
  CUresult (*MemFree) (CUdeviceptr dptr);
  CUresult (*MemHostAlloc) (gpointer * pp, gsize bytesize, guint flags);
  CUresult (*MemFreeHost) (gpointer p);
  CUresult (*StreamCreate) (CUstream * stream, guint flags);
  CUresult (*StreamDestroy) (CUstream stream);
  CUresult (*StreamSynchronize) (CUstream stream);
  CUresult (*StreamWaitEvent) (CUstream stream, CUevent event, guint flags);
  CUresult (*EventCreate) (CUevent * event, guint flags);
  CUresult (*EventDestroy) (CUevent event);
  CUresult (*EventRecord) (CUevent event, CUstream stream);
  CUresult (*EventQuery) (CUevent event);
  CUresult (*EventSynchronize) (CUevent event);
  CUresult (*MemcpyHtoDAsync) (CUdeviceptr dst, gconstpointer src,
      gsize bytes, CUstream stream);
  CUresult (*MemcpyDtoHAsync) (gpointer dst, CUdeviceptr src, gsize bytes,
      CUstream stream);
  CUresult (*MemcpyDtoDAsync) (CUdeviceptr dst, CUdeviceptr src,
      gsize bytes, CUstream stream);
  CUresult (*ModuleLoadData) (CUmodule * module, gconstpointer image);
  CUresult (*ModuleUnload) (CUmodule module);
  CUresult (*ModuleGetFunction) (CUfunction * func, CUmodule module,
      const gchar * name);
  CUresult (*LaunchKernel) (CUfunction f, guint gx, guint gy, guint gz,
      guint bx, guint by, guint bz, guint shared_bytes, CUstream stream,
      gpointer * params, gpointer * extra);
  CUresult (*LaunchHostFunc) (CUstream stream, CUhostFn fn,
      gpointer user_data);
} PlanCudaFuncs;

G_GNUC_INTERNAL
const PlanCudaFuncs * _plan_cuda_load (gchar ** why_not);

G_GNUC_INTERNAL
gboolean _plan_cuda_result (CUresult result, GstDebugCategory * cat,
    const gchar * file, const gchar * function, gint line);

/**
 * plan_cuda_result:
 * @result: the #CUresult of a driver call
 *
 * Logs a failed CUDA call, with the error's name and text and where it was
 * made, in the caller's debug category, and leaves the name for the GError
 * built at the API boundary.
 *
 * Returns: %TRUE when @result is CUDA_SUCCESS.
 */
#define plan_cuda_result(result) \
    _plan_cuda_result (result, GST_CAT_DEFAULT, __FILE__, GST_FUNCTION, \
        __LINE__)

G_END_DECLS

#endif /* __PLAN_CUDA_PRIVATE_H__ */
