/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:plandevice
 * @title: PlanDevice
 * @short_description: devices, streams, events, copies and kernel launches
 *
 * A #PlanDevice is where arrays are computed: the CPU, an NVIDIA GPU
 * (through the CUDA driver API, loaded at run time so that the plugin loads
 * and the CPU works without a driver), or a simulated asynchronous device
 * that runs the GPU scheduling code on the host, deliberately out of order.
 *
 * Work on a device is queued on #PlanStream objects and runs in the order
 * of its stream. A #PlanEvent recorded on a stream lets another stream
 * (plan_stream_wait_event()) or the host (plan_event_synchronize()) wait
 * for the work queued before it. Device pointers are #gpointer values that
 * host code must never dereference: reach device memory through
 * plan_stream_copy(), a kernel, or the map API of #PlanDeviceMemory.
 *
 * plan_device_get() chooses a device by name: `cpu`, `cuda` (device 0),
 * `cuda:N`, `sim`, or `auto`. When the environment variable
 * `GST_PLAN_DEVICE` is `sim`, every request for `cuda` or `auto` gets the
 * sim device, so that the whole GPU path of any pipeline runs simulated;
 * `GST_PLAN_SIM_SEED` seeds its random delays. See docs/device.md.
 *
 * Devices are shared: every caller asking for the same device gets the
 * same object while one reference is alive. All functions are thread-safe.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plandevice.h"
#include <libplan/planerror.h>
#include "libplan/core/plan-private.h"
#include "plandevice-backend.h"

#include <errno.h>
#include <string.h>
#include <stdarg.h>

static gboolean plan_event_record (PlanEvent * event, PlanStream * stream,
    GError ** error);

static void plan_clear_event (PlanEvent ** event_ptr);

GST_DEBUG_CATEGORY_STATIC (plan_device_debug);
#define GST_CAT_DEFAULT plan_device_debug

typedef enum
{
  STAT_ALLOCATIONS,
  STAT_ALLOCATED_BYTES,
  STAT_PEAK_BYTES,
  STAT_H2D,
  STAT_H2D_BYTES,
  STAT_D2H,
  STAT_D2H_BYTES,
  STAT_D2D,
  STAT_D2D_BYTES,
  STAT_LAUNCHES,
  STAT_HOST_WAITS,
  N_STATS
} Stat;

static const gchar *stat_names[N_STATS] = {
  "allocations", "allocated-bytes", "peak-bytes", "h2d-transfers",
  "h2d-bytes", "d2h-transfers", "d2h-bytes", "d2d-transfers", "d2d-bytes",
  "launches", "host-waits"
};

struct _PlanDevice
{
  GstObject parent;

  /* construct-only, no lock */
  PlanDeviceKind kind;
  gint id;
  const PlanDeviceBackend *backend;
  gpointer impl;
  PlanDeviceBackendInfo info;

  /* protected by stats_lock */
  GMutex stats_lock;
  guint64 stats[N_STATS];
  GHashTable *sizes;            /* device pointer -> bytes */
};

struct _PlanStream
{
  GstMiniObject parent;

  PlanDevice *device;
  gpointer handle;
  GMutex lock;
  GError *error;                /* the first failure of work run on it */
};

struct _PlanEvent
{
  GstMiniObject parent;

  PlanDevice *device;
  gpointer handle;
};

struct _PlanKernel
{
  GstMiniObject parent;

  PlanDevice *device;
  gpointer module;
  gpointer function;
};

G_DEFINE_TYPE (PlanDevice, plan_device, GST_TYPE_OBJECT);

GType
plan_device_kind_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {PLAN_DEVICE_KIND_CPU, "The CPU (no device)", "cpu"},
    {PLAN_DEVICE_KIND_CUDA, "An NVIDIA GPU through CUDA", "cuda"},
    {PLAN_DEVICE_KIND_SIM, "The simulated asynchronous device", "sim"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("PlanDeviceKind", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

/* The error detail a backend leaves for the GError built at the boundary.
 * Per thread, so that concurrent failures don't mix their words. */
static GPrivate error_detail = G_PRIVATE_INIT (g_free);

void
_plan_device_set_error_detail (const gchar * format, ...)
{
  va_list args;

  va_start (args, format);
  g_private_replace (&error_detail, g_strdup_vprintf (format, args));
  va_end (args);
}

static gchar *
take_error_detail (void)
{
  gchar *detail = g_private_get (&error_detail);

  g_private_set (&error_detail, NULL);
  return detail;
}

/* Turns a backend's negative errno into a GError naming @what and the
 * device. Returns TRUE when @res is 0. */
static gboolean
device_check (PlanDevice * self, gint res, GError ** error, const gchar * what)
{
  gchar *detail;

  if (G_LIKELY (res >= 0)) {
    g_free (take_error_detail ());
    return TRUE;
  }

  detail = take_error_detail ();
  GST_WARNING_OBJECT (self, "%s failed: %s%s%s", what, g_strerror (-res),
      detail ? ": " : "", detail ? detail : "");
  if (res == -ENOMEM) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_DEVICE,
        "%s on %s failed: out of device memory%s%s%s", what,
        self->info.name, detail ? " (" : "", detail ? detail : "",
        detail ? ")" : "");
  } else {
    g_set_error (error, PLAN_ERROR, res == -ENOTSUP ? PLAN_ERROR_UNSUPPORTED :
        PLAN_ERROR_DEVICE, "%s on %s failed: %s%s%s%s", what, self->info.name,
        g_strerror (-res), detail ? " (" : "", detail ? detail : "",
        detail ? ")" : "");
  }
  g_free (detail);
  return FALSE;
}

static void
stat_add (PlanDevice * self, Stat stat, guint64 value)
{
  g_mutex_lock (&self->stats_lock);
  self->stats[stat] += value;
  g_mutex_unlock (&self->stats_lock);
}

static void
plan_device_finalize (GObject * object)
{
  PlanDevice *self = PLAN_DEVICE (object);

  GST_DEBUG_OBJECT (self, "closing");
  if (self->impl)
    self->backend->close (self->impl);
  g_free (self->info.name);
  g_hash_table_unref (self->sizes);
  g_mutex_clear (&self->stats_lock);

  G_OBJECT_CLASS (plan_device_parent_class)->finalize (object);
}

static void
plan_device_class_init (PlanDeviceClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->finalize = plan_device_finalize;

  GST_DEBUG_CATEGORY_INIT (plan_device_debug, "plandevice", 0,
      "libplan devices");
  gst_type_mark_as_plugin_api (PLAN_TYPE_DEVICE_KIND, 0);
}

static void
plan_device_init (PlanDevice * self)
{
  g_mutex_init (&self->stats_lock);
  self->sizes = g_hash_table_new (NULL, NULL);
}

/* Devices alive, by canonical name ("cpu", "sim", "cuda:0"); the table
 * holds weak references so that a device closes with its last user. */
static GMutex devices_lock;
static GHashTable *devices;

static gboolean
parse_name (const gchar * name, PlanDeviceKind * kind, gint * id,
    GError ** error)
{
  const gchar *env = g_getenv (PLAN_DEVICE_ENV);
  gboolean gpu_request;
  gchar *end = NULL;
  gint64 n;

  if (name == NULL)
    name = "auto";

  *id = 0;
  if (g_str_equal (name, "cpu")) {
    *kind = PLAN_DEVICE_KIND_CPU;
    return TRUE;
  }
  if (g_str_equal (name, "sim")) {
    *kind = PLAN_DEVICE_KIND_SIM;
    return TRUE;
  }
  gpu_request = g_str_equal (name, "auto") || g_str_equal (name, "cuda")
      || g_str_has_prefix (name, "cuda:");
  if (!gpu_request) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "Unknown device '%s': expected cpu, cuda, cuda:N, sim or auto", name);
    return FALSE;
  }
  if (g_str_has_prefix (name, "cuda:")) {
    n = g_ascii_strtoll (name + 5, &end, 10);
    if (end == name + 5 || *end != '\0' || n < 0 || n > 255) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "Invalid device '%s': the CUDA device number must be an "
          "integer from 0 to 255", name);
      return FALSE;
    }
    *id = (gint) n;
  }
  if (env != NULL && g_str_equal (env, "sim")) {
    *kind = PLAN_DEVICE_KIND_SIM;
    *id = 0;
  } else {
    *kind = PLAN_DEVICE_KIND_CUDA;
  }
  return TRUE;
}

/**
 * plan_device_name_is_valid:
 * @name: (nullable): a device name
 * @error: where to report a bad name
 *
 * Checks the syntax of a device name without opening the device, for
 * property setters.
 *
 * Returns: %TRUE when @name is `cpu`, `cuda`, `cuda:N`, `sim`, `auto` or
 *   %NULL.
 *
 * Since: 0.1
 */
gboolean
plan_device_name_is_valid (const gchar * name, GError ** error)
{
  PlanDeviceKind kind;
  gint id;

  return parse_name (name, &kind, &id, error);
}

static PlanDevice *
device_open (PlanDeviceKind kind, gint id, GError ** error)
{
  PlanDevice *self;
  const PlanDeviceBackend *backend;
  gint res;

  switch (kind) {
    case PLAN_DEVICE_KIND_CPU:
      backend = &_plan_device_backend_cpu;
      break;
    case PLAN_DEVICE_KIND_SIM:
      backend = &_plan_device_backend_sim;
      break;
    default:
      backend = &_plan_device_backend_cuda;
      break;
  }

  self = g_object_new (PLAN_TYPE_DEVICE, NULL);
  gst_object_ref_sink (self);
  self->kind = kind;
  self->id = id;
  self->backend = backend;
  res = backend->open (id, &self->impl, &self->info);
  if (res < 0) {
    gchar *detail = take_error_detail ();

    g_set_error (error, PLAN_ERROR, PLAN_ERROR_DEVICE,
        "Cannot open %s device %d: %s", backend->name, id,
        detail ? detail : g_strerror (-res));
    g_free (detail);
    self->impl = NULL;
    gst_object_unref (self);
    return NULL;
  }
  GST_INFO_OBJECT (self,
      "opened %s device %d: %s, %" G_GUINT64_FORMAT
      " bytes, compute capability %d.%d", backend->name, id, self->info.name,
      self->info.total_memory, self->info.cc_major, self->info.cc_minor);
  return self;
}

static void
weak_ref_free (gpointer data)
{
  GWeakRef *ref = data;

  g_weak_ref_clear (ref);
  g_free (ref);
}

/**
 * plan_device_get:
 * @name: (nullable): `cpu`, `cuda` (device 0), `cuda:N`, `sim`, or `auto`
 *   (%NULL means `auto`)
 * @error: where to report why no device could be opened
 *
 * Opens a device, or returns the one already open under that name.
 * `auto` and `cuda` give the sim device when `GST_PLAN_DEVICE=sim` is set
 * in the environment, and the CUDA device otherwise; `auto` never falls
 * back to the CPU: a caller that can run on the CPU decides that itself.
 *
 * Opening a CUDA device without the NVIDIA driver fails with an error that
 * says the driver (libcuda.so.1) is missing.
 *
 * Returns: (transfer full) (nullable): the device, or %NULL with @error set.
 *
 * Since: 0.1
 */
PlanDevice *
plan_device_get (const gchar * name, GError ** error)
{
  PlanDeviceKind kind;
  PlanDevice *device;
  GWeakRef *ref;
  gchar *key;
  gint id;

  if (!parse_name (name, &kind, &id, error))
    return NULL;

  key = g_strdup_printf ("%s:%d", kind == PLAN_DEVICE_KIND_CPU ? "cpu" :
      kind == PLAN_DEVICE_KIND_SIM ? "sim" : "cuda", id);

  g_mutex_lock (&devices_lock);
  if (devices == NULL)
    devices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
        weak_ref_free);
  ref = g_hash_table_lookup (devices, key);
  device = ref ? g_weak_ref_get (ref) : NULL;
  if (device == NULL) {
    /* Opening under the lock keeps two callers from opening one device
     * twice; it is rare and short (a CUDA context retain at most). */
    device = device_open (kind, id, error);
    if (device != NULL) {
      ref = g_new0 (GWeakRef, 1);
      g_weak_ref_init (ref, device);
      g_hash_table_replace (devices, key, ref);
      key = NULL;
    }
  }
  g_mutex_unlock (&devices_lock);
  g_free (key);

  return device;
}

/**
 * plan_device_get_kind:
 * @device: a #PlanDevice
 *
 * Returns: the backend of @device.
 *
 * Since: 0.1
 */
PlanDeviceKind
plan_device_get_kind (PlanDevice * device)
{
  g_return_val_if_fail (PLAN_IS_DEVICE (device), PLAN_DEVICE_KIND_CPU);

  return device->kind;
}

/**
 * plan_device_is_gpu:
 * @device: a #PlanDevice
 *
 * Returns: %TRUE for the cuda and sim devices, whose memory host code must
 *   not touch directly.
 *
 * Since: 0.1
 */
gboolean
plan_device_is_gpu (PlanDevice * device)
{
  g_return_val_if_fail (PLAN_IS_DEVICE (device), FALSE);

  return device->kind != PLAN_DEVICE_KIND_CPU;
}

/**
 * plan_device_get_name:
 * @device: a #PlanDevice
 *
 * Returns: (transfer none): the product name of @device.
 *
 * Since: 0.1
 */
const gchar *
plan_device_get_name (PlanDevice * device)
{
  g_return_val_if_fail (PLAN_IS_DEVICE (device), NULL);

  return device->info.name;
}

/**
 * plan_device_get_total_memory:
 * @device: a #PlanDevice
 *
 * Returns: the memory of @device in bytes (for sim, its limit).
 *
 * Since: 0.1
 */
guint64
plan_device_get_total_memory (PlanDevice * device)
{
  g_return_val_if_fail (PLAN_IS_DEVICE (device), 0);

  return device->info.total_memory;
}

/**
 * plan_device_get_compute_capability:
 * @device: a #PlanDevice
 * @major: (out) (optional): the major version, 0 when not a CUDA device
 * @minor: (out) (optional): the minor version
 *
 * Since: 0.1
 */
void
plan_device_get_compute_capability (PlanDevice * device, gint * major,
    gint * minor)
{
  g_return_if_fail (PLAN_IS_DEVICE (device));

  if (major)
    *major = device->info.cc_major;
  if (minor)
    *minor = device->info.cc_minor;
}

/**
 * plan_device_alloc:
 * @device: a #PlanDevice
 * @size: bytes, more than 0
 * @dptr: (out): the device pointer
 * @error: where to report failure (out of memory)
 *
 * Allocates device memory. Free it with plan_device_free().
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_device_alloc (PlanDevice * device, gsize size, gpointer * dptr,
    GError ** error)
{
  gint res;

  g_return_val_if_fail (PLAN_IS_DEVICE (device), FALSE);
  g_return_val_if_fail (dptr != NULL, FALSE);

  *dptr = NULL;
  res = device->backend->alloc (device->impl, MAX (size, 1), dptr);
  if (!device_check (device, res, error, "Allocating device memory"))
    return FALSE;

  g_mutex_lock (&device->stats_lock);
  device->stats[STAT_ALLOCATIONS]++;
  device->stats[STAT_ALLOCATED_BYTES] += size;
  g_hash_table_insert (device->sizes, *dptr, GSIZE_TO_POINTER (size));
  device->stats[STAT_PEAK_BYTES] = MAX (device->stats[STAT_PEAK_BYTES],
      device->stats[STAT_ALLOCATED_BYTES]);
  g_mutex_unlock (&device->stats_lock);
  GST_LOG_OBJECT (device, "allocated %" G_GSIZE_FORMAT " bytes at %p", size,
      *dptr);
  return TRUE;
}

/**
 * plan_device_free:
 * @device: a #PlanDevice
 * @dptr: (nullable): a pointer from plan_device_alloc()
 *
 * Frees device memory. Like cuMemFree, it first waits for the work queued
 * on the device's streams, so that no queued operation uses freed memory.
 *
 * Since: 0.1
 */
void
plan_device_free (PlanDevice * device, gpointer dptr)
{
  gsize size;

  g_return_if_fail (PLAN_IS_DEVICE (device));

  if (dptr == NULL)
    return;

  device->backend->free (device->impl, dptr);
  g_mutex_lock (&device->stats_lock);
  size = GPOINTER_TO_SIZE (g_hash_table_lookup (device->sizes, dptr));
  g_hash_table_remove (device->sizes, dptr);
  device->stats[STAT_ALLOCATED_BYTES] -= MIN (size,
      device->stats[STAT_ALLOCATED_BYTES]);
  g_mutex_unlock (&device->stats_lock);
}

/**
 * plan_device_alloc_host:
 * @device: a #PlanDevice
 * @size: bytes
 * @ptr: (out): the host pointer
 * @error: where to report failure
 *
 * Allocates page-locked ("pinned") host memory, which copies to and from
 * the device reach at full speed and without staging. Host code may use it
 * directly. Free it with plan_device_free_host().
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_device_alloc_host (PlanDevice * device, gsize size, gpointer * ptr,
    GError ** error)
{
  gint res;

  g_return_val_if_fail (PLAN_IS_DEVICE (device), FALSE);
  g_return_val_if_fail (ptr != NULL, FALSE);

  *ptr = NULL;
  res = device->backend->alloc_host (device->impl, MAX (size, 1), ptr);
  return device_check (device, res, error, "Allocating pinned host memory");
}

/**
 * plan_device_free_host:
 * @device: a #PlanDevice
 * @ptr: (nullable): a pointer from plan_device_alloc_host()
 *
 * Since: 0.1
 */
void
plan_device_free_host (PlanDevice * device, gpointer ptr)
{
  g_return_if_fail (PLAN_IS_DEVICE (device));

  if (ptr != NULL)
    device->backend->free_host (device->impl, ptr);
}

/**
 * plan_device_get_stats:
 * @device: a #PlanDevice
 *
 * The counters of @device since it was opened, as a structure named
 * `plan-device-stats` with #guint64 fields `allocations`,
 * `allocated-bytes` (now), `peak-bytes`, `h2d-transfers`, `h2d-bytes`,
 * `d2h-transfers`, `d2h-bytes`, `d2d-transfers`, `d2d-bytes`, `launches`
 * and `host-waits` (times the host blocked on the device: stream and event
 * synchronisation, mapping device memory).
 *
 * Returns: (transfer full): the statistics.
 *
 * Since: 0.1
 */
GstStructure *
plan_device_get_stats (PlanDevice * device)
{
  guint64 stats[N_STATS];
  GstStructure *s;
  guint i;

  g_return_val_if_fail (PLAN_IS_DEVICE (device), NULL);

  g_mutex_lock (&device->stats_lock);
  memcpy (stats, device->stats, sizeof (stats));
  g_mutex_unlock (&device->stats_lock);

  s = gst_structure_new_empty ("plan-device-stats");
  gst_structure_set (s, "device", G_TYPE_STRING, device->info.name, NULL);
  for (i = 0; i < N_STATS; i++)
    gst_structure_set (s, stat_names[i], G_TYPE_UINT64, stats[i], NULL);
  return s;
}

/**
 * plan_device_reset_peak_memory:
 * @device: a #PlanDevice
 *
 * Sets the `peak-bytes` statistic to the memory allocated now, so that a
 * test or benchmark can measure the peak of one run.
 *
 * Since: 0.1
 */
void
plan_device_reset_peak_memory (PlanDevice * device)
{
  g_return_if_fail (PLAN_IS_DEVICE (device));

  g_mutex_lock (&device->stats_lock);
  device->stats[STAT_PEAK_BYTES] = device->stats[STAT_ALLOCATED_BYTES];
  g_mutex_unlock (&device->stats_lock);
}

/**
 * plan_device_count_host_wait:
 * @device: a #PlanDevice
 *
 * Counts one host wait in the statistics of @device, for waits libplan
 * does not make itself (a pool that is exhausted, for instance).
 *
 * Since: 0.1
 */
void
plan_device_count_host_wait (PlanDevice * device)
{
  g_return_if_fail (PLAN_IS_DEVICE (device));

  stat_add (device, STAT_HOST_WAITS, 1);
}

/**
 * plan_device_sim_inject_fault:
 * @device: a sim #PlanDevice
 * @fault: what is to fail
 * @after: how many such operations succeed first; -1 turns the fault off
 *
 * Test hook: makes one operation of the sim device fail, after @after that
 * succeed. The environment variable `GST_PLAN_SIM_FAULT`
 * (`alloc:N`, `launch:N` or `copy:N`) does the same when the device opens.
 *
 * Returns: %FALSE when @device is not the sim device.
 *
 * Since: 0.1
 */
gboolean
plan_device_sim_inject_fault (PlanDevice * device, PlanSimFault fault,
    gint after)
{
  g_return_val_if_fail (PLAN_IS_DEVICE (device), FALSE);

  if (device->backend->inject_fault == NULL)
    return FALSE;
  device->backend->inject_fault (device->impl, fault, after);
  return TRUE;
}

/**
 * plan_device_sim_set_memory_limit:
 * @device: a sim #PlanDevice
 * @limit: bytes the device may hold at once, 0 for no limit
 *
 * Test hook: allocations beyond @limit fail with out-of-memory. The
 * environment variable `GST_PLAN_SIM_MEMORY_LIMIT` sets it when the device
 * opens.
 *
 * Returns: %FALSE when @device is not the sim device.
 *
 * Since: 0.1
 */
gboolean
plan_device_sim_set_memory_limit (PlanDevice * device, guint64 limit)
{
  g_return_val_if_fail (PLAN_IS_DEVICE (device), FALSE);

  if (device->backend->set_memory_limit == NULL)
    return FALSE;
  device->backend->set_memory_limit (device->impl, limit);
  return TRUE;
}

/**
 * plan_device_sim_skip_waits:
 * @device: a sim #PlanDevice
 * @sites: a mask of #PlanWaitSite whose waits are to be skipped, 0 for none
 *
 * Test hook: removes the stream waits libplan makes at @sites, so that a
 * test can prove it fails when a wait is missing. Only the sim device
 * honours it. The environment variable `GST_PLAN_SIM_SKIP_WAIT` (a
 * comma-separated list of `pool-reuse`, `ready`, `result`) does the same
 * when the device opens.
 *
 * Returns: %FALSE when @device is not the sim device.
 *
 * Since: 0.1
 */
gboolean
plan_device_sim_skip_waits (PlanDevice * device, guint sites)
{
  g_return_val_if_fail (PLAN_IS_DEVICE (device), FALSE);

  if (device->backend->skip_waits == NULL)
    return FALSE;
  device->backend->skip_waits (device->impl, sites);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* streams */

GST_DEFINE_MINI_OBJECT_TYPE (PlanStream, plan_stream);

static void
plan_stream_free (PlanStream * stream)
{
  stream->device->backend->stream_free (stream->device->impl, stream->handle);
  gst_object_unref (stream->device);
  g_clear_error (&stream->error);
  g_mutex_clear (&stream->lock);
  g_free (stream);
}

/**
 * plan_stream_new:
 * @device: a #PlanDevice
 * @error: where to report failure
 *
 * Creates a stream: a queue of device work that runs in order. Each GPU
 * element owns its streams.
 *
 * Returns: (transfer full) (nullable): the stream.
 *
 * Since: 0.1
 */
PlanStream *
plan_stream_new (PlanDevice * device, GError ** error)
{
  PlanStream *stream;
  gpointer handle = NULL;
  gint res;

  g_return_val_if_fail (PLAN_IS_DEVICE (device), NULL);

  res = device->backend->stream_new (device->impl, &handle);
  if (!device_check (device, res, error, "Creating a stream"))
    return NULL;

  stream = g_new0 (PlanStream, 1);
  gst_mini_object_init (GST_MINI_OBJECT_CAST (stream), 0, PLAN_TYPE_STREAM,
      NULL, NULL, (GstMiniObjectFreeFunction) plan_stream_free);
  stream->device = gst_object_ref (device);
  stream->handle = handle;
  g_mutex_init (&stream->lock);
  return stream;
}

/**
 * plan_stream_ref:
 * @stream: a #PlanStream
 *
 * Returns: (transfer full): @stream
 *
 * Since: 0.1
 */
PlanStream *
plan_stream_ref (PlanStream * stream)
{
  return (PlanStream *) gst_mini_object_ref (GST_MINI_OBJECT_CAST (stream));
}

/**
 * plan_stream_unref:
 * @stream: (transfer full): a #PlanStream
 *
 * Drops a reference. The last one waits for the stream's queued work to
 * finish, then destroys the stream.
 *
 * Since: 0.1
 */
void
plan_stream_unref (PlanStream * stream)
{
  gst_mini_object_unref (GST_MINI_OBJECT_CAST (stream));
}

/**
 * plan_clear_stream: (skip)
 * @stream_ptr: a pointer to a #PlanStream reference
 *
 * Unrefs the stream at @stream_ptr, if any, and sets it to %NULL.
 *
 * Since: 0.1
 */
void
plan_clear_stream (PlanStream ** stream_ptr)
{
  gst_clear_mini_object ((GstMiniObject **) stream_ptr);
}

/**
 * plan_stream_get_device:
 * @stream: a #PlanStream
 *
 * Returns: (transfer none): the device of @stream.
 *
 * Since: 0.1
 */
PlanDevice *
plan_stream_get_device (PlanStream * stream)
{
  g_return_val_if_fail (stream != NULL, NULL);

  return stream->device;
}

/**
 * plan_stream_synchronize:
 * @stream: a #PlanStream
 * @error: where to report an asynchronous failure
 *
 * Blocks the calling thread until all work queued on @stream is done. A
 * host wait: call it only where the host must touch the results.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_stream_synchronize (PlanStream * stream, GError ** error)
{
  g_return_val_if_fail (stream != NULL, FALSE);

  return _plan_stream_synchronize_at (stream, PLAN_WAIT_SITE_NONE, error);
}

/* plan_stream_synchronize() for a wait of libplan's own at @site, which
 * the backend is told (the sim device may be told to skip it). */
gboolean
_plan_stream_synchronize_at (PlanStream * stream, PlanWaitSite site,
    GError ** error)
{
  PlanDevice *device = stream->device;
  gint res;

  stat_add (device, STAT_HOST_WAITS, 1);
  res = device->backend->stream_synchronize (device->impl, stream->handle,
      site);
  if (!device_check (device, res, error, "Synchronizing a stream"))
    return FALSE;
  return plan_stream_check_error (stream, error);
}

/**
 * plan_stream_set_error:
 * @stream: a #PlanStream
 * @error: what failed
 *
 * Records that work queued on @stream failed: a host kernel (see
 * plan_stream_launch_host_kernel()) that cannot compute its chunk calls
 * it from the stream's worker, where it may not report the failure
 * itself. Like a CUDA kernel's fault, the failure is sticky: every later
 * plan_stream_synchronize() and plan_stream_check_error() on @stream
 * returns it. Only the first failure is kept. Any thread.
 *
 * Since: 0.1
 */
void
plan_stream_set_error (PlanStream * stream, const GError * error)
{
  g_return_if_fail (stream != NULL);
  g_return_if_fail (error != NULL);

  g_mutex_lock (&stream->lock);
  if (stream->error == NULL)
    stream->error = g_error_copy (error);
  g_mutex_unlock (&stream->lock);
}

/**
 * plan_stream_check_error:
 * @stream: a #PlanStream
 * @error: where to report the failure recorded on @stream
 *
 * Whether the work of @stream run so far has failed (see
 * plan_stream_set_error()), without waiting for the work still queued:
 * plan_stream_synchronize() waits and then checks.
 *
 * Returns: %TRUE when no failure was recorded; %FALSE with @error set to
 * the first one.
 *
 * Since: 0.1
 */
gboolean
plan_stream_check_error (PlanStream * stream, GError ** error)
{
  gboolean ok;

  g_return_val_if_fail (stream != NULL, FALSE);

  g_mutex_lock (&stream->lock);
  ok = stream->error == NULL;
  if (!ok)
    g_propagate_error (error, g_error_copy (stream->error));
  g_mutex_unlock (&stream->lock);
  return ok;
}

/**
 * plan_stream_wait_event:
 * @stream: a #PlanStream
 * @event: (nullable): a #PlanEvent of the same device
 * @error: where to report failure
 *
 * Makes the work queued on @stream after this call wait until the work
 * before the latest record of @event is done. The host does not wait.
 * A %NULL @event, or one never recorded, is done already.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_stream_wait_event (PlanStream * stream, PlanEvent * event, GError ** error)
{
  g_return_val_if_fail (stream != NULL, FALSE);

  return _plan_stream_wait_event_at (stream, event, PLAN_WAIT_SITE_NONE,
      error);
}

/* plan_stream_wait_event() for a wait of libplan's own at @site, which the
 * backend is told (the sim device may be told to skip it). */
gboolean
_plan_stream_wait_event_at (PlanStream * stream, PlanEvent * event,
    PlanWaitSite site, GError ** error)
{
  PlanDevice *device = stream->device;
  gint res;

  if (event == NULL)
    return TRUE;

  res = device->backend->stream_wait_event (device->impl, stream->handle,
      event->handle, site);
  return device_check (device, res, error, "Making a stream wait");
}

/**
 * plan_stream_copy:
 * @stream: a #PlanStream
 * @kind: the direction
 * @dst: the destination (a device pointer unless @kind is
 *   %PLAN_COPY_DEVICE_TO_HOST)
 * @src: the source (a device pointer unless @kind is
 *   %PLAN_COPY_HOST_TO_DEVICE)
 * @size: bytes
 * @error: where to report failure
 *
 * Queues a copy on @stream and returns without waiting for it. Host memory
 * given here must stay valid and unchanged (as source) or unread (as
 * destination) until the copy is done: record an event after it, or queue
 * a host function that releases the memory.
 *
 * Returns: %TRUE when the copy is queued.
 *
 * Since: 0.1
 */
gboolean
plan_stream_copy (PlanStream * stream, PlanCopyKind kind, gpointer dst,
    gconstpointer src, gsize size, GError ** error)
{
  PlanDevice *device;
  gint res;

  g_return_val_if_fail (stream != NULL, FALSE);
  g_return_val_if_fail (kind <= PLAN_COPY_DEVICE_TO_DEVICE, FALSE);

  if (size == 0)
    return TRUE;

  device = stream->device;
  res = device->backend->copy (device->impl, stream->handle, kind, dst, src,
      size);
  if (!device_check (device, res, error, "Queueing a copy"))
    return FALSE;

  g_mutex_lock (&device->stats_lock);
  device->stats[STAT_H2D + 2 * kind]++;
  device->stats[STAT_H2D_BYTES + 2 * kind] += size;
  g_mutex_unlock (&device->stats_lock);
  return TRUE;
}

/**
 * plan_device_copy:
 * @device: a #PlanDevice
 * @kind: the direction
 * @dst: the destination
 * @src: the source
 * @size: bytes
 * @error: where to report failure
 *
 * Copies at once, on the calling thread, as plan_stream_copy() would in
 * stream order. The caller must have waited for the work that writes @src
 * or reads @dst (a host wait); #PlanDeviceMemory's plain map does.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_device_copy (PlanDevice * device, PlanCopyKind kind, gpointer dst,
    gconstpointer src, gsize size, GError ** error)
{
  gint res;

  g_return_val_if_fail (PLAN_IS_DEVICE (device), FALSE);
  g_return_val_if_fail (kind <= PLAN_COPY_DEVICE_TO_DEVICE, FALSE);

  if (size == 0)
    return TRUE;

  res = device->backend->copy (device->impl, NULL, kind, dst, src, size);
  if (!device_check (device, res, error, "Copying"))
    return FALSE;

  g_mutex_lock (&device->stats_lock);
  device->stats[STAT_H2D + 2 * kind]++;
  device->stats[STAT_H2D_BYTES + 2 * kind] += size;
  g_mutex_unlock (&device->stats_lock);
  return TRUE;
}

/**
 * plan_stream_launch_host_kernel: (skip)
 * @stream: a #PlanStream
 * @func: (scope notified): the kernel
 * @ptrs: (array length=n_ptrs): device pointers for @func
 * @n_ptrs: the number of pointers
 * @user_data: (closure): data for @func
 * @destroy: (nullable): frees @user_data after @func ran
 * @error: where to report failure
 *
 * Queues a kernel written for the host on @stream: on the sim device it
 * runs on the stream's worker with @ptrs made accessible, on the cpu device
 * at once. The CUDA device cannot run host code on device memory and
 * fails with an error. When queueing fails, @destroy is called before this
 * returns. A kernel that fails reports it with plan_stream_set_error():
 * the next plan_stream_synchronize() returns the failure.
 *
 * Returns: %TRUE when queued.
 *
 * Since: 0.1
 */
gboolean
plan_stream_launch_host_kernel (PlanStream * stream, PlanHostKernelFunc func,
    gpointer * ptrs, guint n_ptrs, gpointer user_data,
    GDestroyNotify destroy, GError ** error)
{
  PlanDevice *device;
  gint res;

  g_return_val_if_fail (stream != NULL, FALSE);
  g_return_val_if_fail (func != NULL, FALSE);
  g_return_val_if_fail (ptrs != NULL || n_ptrs == 0, FALSE);

  device = stream->device;
  res = device->backend->launch_host_kernel (device->impl, stream->handle,
      func, ptrs, n_ptrs, user_data, destroy);
  if (!device_check (device, res, error, "Launching a kernel"))
    return FALSE;
  stat_add (device, STAT_LAUNCHES, 1);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* events */

GST_DEFINE_MINI_OBJECT_TYPE (PlanEvent, plan_event);

static void
plan_event_free (PlanEvent * event)
{
  event->device->backend->event_free (event->device->impl, event->handle);
  gst_object_unref (event->device);
  g_free (event);
}

/**
 * plan_event_new:
 * @device: a #PlanDevice
 * @error: where to report failure
 *
 * Returns: (transfer full) (nullable): a new event, done until recorded.
 *
 * Since: 0.1
 */
PlanEvent *
plan_event_new (PlanDevice * device, GError ** error)
{
  PlanEvent *event;
  gpointer handle = NULL;
  gint res;

  g_return_val_if_fail (PLAN_IS_DEVICE (device), NULL);

  res = device->backend->event_new (device->impl, &handle);
  if (!device_check (device, res, error, "Creating an event"))
    return NULL;

  event = g_new0 (PlanEvent, 1);
  gst_mini_object_init (GST_MINI_OBJECT_CAST (event), 0, PLAN_TYPE_EVENT,
      NULL, NULL, (GstMiniObjectFreeFunction) plan_event_free);
  event->device = gst_object_ref (device);
  event->handle = handle;
  return event;
}

/**
 * plan_event_ref:
 * @event: a #PlanEvent
 *
 * Returns: (transfer full): @event
 *
 * Since: 0.1
 */
PlanEvent *
plan_event_ref (PlanEvent * event)
{
  return (PlanEvent *) gst_mini_object_ref (GST_MINI_OBJECT_CAST (event));
}

/**
 * plan_event_unref:
 * @event: (transfer full): a #PlanEvent
 *
 * Since: 0.1
 */
void
plan_event_unref (PlanEvent * event)
{
  gst_mini_object_unref (GST_MINI_OBJECT_CAST (event));
}

/*
 * plan_clear_event: (skip)
 * @event_ptr: a pointer to a #PlanEvent reference
 *
 * Since: 0.1
 */
static void
plan_clear_event (PlanEvent ** event_ptr)
{
  gst_clear_mini_object ((GstMiniObject **) event_ptr);
}

/*
 * plan_event_record:
 * @event: a #PlanEvent
 * @stream: a #PlanStream of the same device
 * @error: where to report failure
 *
 * Marks the current end of @stream's queue: @event is done when the work
 * queued so far on @stream is.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
static gboolean
plan_event_record (PlanEvent * event, PlanStream * stream, GError ** error)
{
  PlanDevice *device;
  gint res;

  g_return_val_if_fail (event != NULL, FALSE);
  g_return_val_if_fail (stream != NULL, FALSE);
  g_return_val_if_fail (event->device == stream->device, FALSE);

  device = stream->device;
  res = device->backend->event_record (device->impl, event->handle,
      stream->handle);
  return device_check (device, res, error, "Recording an event");
}

/**
 * plan_stream_record:
 * @stream: a #PlanStream
 * @error: where to report failure
 *
 * Creates an event and records it on @stream.
 *
 * Returns: (transfer full) (nullable): the event.
 *
 * Since: 0.1
 */
PlanEvent *
plan_stream_record (PlanStream * stream, GError ** error)
{
  PlanEvent *event;

  g_return_val_if_fail (stream != NULL, NULL);

  event = plan_event_new (stream->device, error);
  if (event != NULL && !plan_event_record (event, stream, error))
    plan_clear_event (&event);
  return event;
}

/**
 * plan_event_query:
 * @event: a #PlanEvent
 *
 * Returns: %TRUE when the work before @event is done (or failed), without
 *   waiting.
 *
 * Since: 0.1
 */
gboolean
plan_event_query (PlanEvent * event)
{
  g_return_val_if_fail (event != NULL, TRUE);

  return event->device->backend->event_query (event->device->impl,
      event->handle) != -EAGAIN;
}

/**
 * plan_event_synchronize:
 * @event: a #PlanEvent
 * @error: where to report an asynchronous failure
 *
 * Blocks the calling thread until @event is done. A host wait: call it
 * only where the host must touch the results.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_event_synchronize (PlanEvent * event, GError ** error)
{
  PlanDevice *device;
  gint res;

  g_return_val_if_fail (event != NULL, FALSE);

  device = event->device;
  stat_add (device, STAT_HOST_WAITS, 1);
  res = device->backend->event_synchronize (device->impl, event->handle);
  return device_check (device, res, error, "Waiting for an event");
}

/* ------------------------------------------------------------------ */
/* kernels */

GST_DEFINE_MINI_OBJECT_TYPE (PlanKernel, plan_kernel);

static void
plan_kernel_free (PlanKernel * kernel)
{
  kernel->device->backend->module_unload (kernel->device->impl, kernel->module);
  gst_object_unref (kernel->device);
  g_free (kernel);
}

/**
 * plan_kernel_new:
 * @device: a CUDA #PlanDevice
 * @image: (array length=size) (element-type guint8): a module: PTX text
 *   (NUL-terminated), a cubin or a fatbin, as from NVRTC or nvcc
 * @size: bytes in @image
 * @entry: the name of the kernel function in the module (`extern "C"`)
 * @error: where to report failure
 *
 * Loads a module and looks up a kernel in it. Only the CUDA device runs
 * such kernels; sim and cpu run host kernels
 * (plan_stream_launch_host_kernel()) and fail here.
 *
 * Returns: (transfer full) (nullable): the kernel.
 *
 * Since: 0.1
 */
PlanKernel *
plan_kernel_new (PlanDevice * device, gconstpointer image, gsize size,
    const gchar * entry, GError ** error)
{
  PlanKernel *kernel;
  gpointer module = NULL, function = NULL;
  gint res;

  g_return_val_if_fail (PLAN_IS_DEVICE (device), NULL);
  g_return_val_if_fail (image != NULL, NULL);
  g_return_val_if_fail (entry != NULL, NULL);

  res = device->backend->module_load (device->impl, image, size, entry,
      &module, &function);
  if (!device_check (device, res, error, "Loading a kernel module"))
    return NULL;

  kernel = g_new0 (PlanKernel, 1);
  gst_mini_object_init (GST_MINI_OBJECT_CAST (kernel), 0, PLAN_TYPE_KERNEL,
      NULL, NULL, (GstMiniObjectFreeFunction) plan_kernel_free);
  kernel->device = gst_object_ref (device);
  kernel->module = module;
  kernel->function = function;
  return kernel;
}

/**
 * plan_kernel_ref:
 * @kernel: a #PlanKernel
 *
 * Returns: (transfer full): @kernel
 *
 * Since: 0.1
 */
PlanKernel *
plan_kernel_ref (PlanKernel * kernel)
{
  return (PlanKernel *) gst_mini_object_ref (GST_MINI_OBJECT_CAST (kernel));
}

/**
 * plan_kernel_unref:
 * @kernel: (transfer full): a #PlanKernel
 *
 * Since: 0.1
 */
void
plan_kernel_unref (PlanKernel * kernel)
{
  gst_mini_object_unref (GST_MINI_OBJECT_CAST (kernel));
}

/**
 * plan_clear_kernel: (skip)
 * @kernel_ptr: a pointer to a #PlanKernel reference
 *
 * Since: 0.1
 */
void
plan_clear_kernel (PlanKernel ** kernel_ptr)
{
  gst_clear_mini_object ((GstMiniObject **) kernel_ptr);
}

/**
 * plan_stream_launch_kernel:
 * @stream: a #PlanStream
 * @kernel: a #PlanKernel of the same device
 * @grid: blocks in x, y, z
 * @block: threads per block in x, y, z
 * @shared_bytes: dynamic shared memory per block
 * @args: pointers to the kernel's parameters, as cuLaunchKernel takes them
 * @error: where to report failure
 *
 * Queues @kernel on @stream.
 *
 * Returns: %TRUE when queued.
 *
 * Since: 0.1
 */
gboolean
plan_stream_launch_kernel (PlanStream * stream, PlanKernel * kernel,
    const guint grid[3], const guint block[3], guint shared_bytes,
    gpointer * args, GError ** error)
{
  PlanDevice *device;
  gint res;

  g_return_val_if_fail (stream != NULL, FALSE);
  g_return_val_if_fail (kernel != NULL, FALSE);
  g_return_val_if_fail (kernel->device == stream->device, FALSE);

  device = stream->device;
  res = device->backend->launch_kernel (device->impl, stream->handle,
      kernel->function, grid, block, shared_bytes, args);
  if (!device_check (device, res, error, "Launching a kernel"))
    return FALSE;
  stat_add (device, STAT_LAUNCHES, 1);
  return TRUE;
}
