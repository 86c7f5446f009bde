/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Copy bandwidth of the device layer: host to device from pageable and
 * from pinned memory, device to host into pinned memory, device to device.
 * Each copy is queued on one stream ITERATIONS times, then the stream is
 * synchronised once; the figure is bytes over wall time.
 *
 *   device-bandwidth [DEVICE [MIB [ITERATIONS]]]     (default: cuda 256 10)
 *
 * Prints one line per copy: `plan <kind> <GB/s>`, for tests/gpu/
 * run-on-device.sh to put next to cudaMemcpy's (tests/gpu/bandwidth-ref.cu).
 * Run by hand, never by `meson test`. */

#include <libplan/plan.h>

#include <stdlib.h>
#include <string.h>

static PlanDevice *device;
static PlanStream *stream;

static void
die (const gchar * what, GError * err)
{
  g_printerr ("device-bandwidth: %s: %s\n", what, err ? err->message : "");
  exit (1);
}

static void
measure (const gchar * name, PlanCopyKind kind, gpointer dst,
    gconstpointer src, gsize size, guint iterations)
{
  GError *err = NULL;
  gint64 start;
  gdouble seconds;
  guint i;

  /* one copy first, so that first-touch and lazy setup are not timed */
  if (!plan_stream_copy (stream, kind, dst, src, size, &err)
      || !plan_stream_synchronize (stream, &err))
    die (name, err);
  start = g_get_monotonic_time ();
  for (i = 0; i < iterations; i++) {
    if (!plan_stream_copy (stream, kind, dst, src, size, &err))
      die (name, err);
  }
  if (!plan_stream_synchronize (stream, &err))
    die (name, err);
  seconds = (g_get_monotonic_time () - start) / 1e6;
  g_print ("plan %s %.2f\n", name, (gdouble) size * iterations / seconds / 1e9);
}

int
main (int argc, char **argv)
{
  const gchar *name = argc > 1 ? argv[1] : "cuda";
  gsize size = (gsize) (argc > 2 ? atoi (argv[2]) : 256) << 20;
  guint iterations = argc > 3 ? atoi (argv[3]) : 10;
  GError *err = NULL;
  gpointer pageable, pinned, d1, d2;

  gst_init (&argc, &argv);
  plan_init ();

  device = plan_device_get (name, &err);
  if (device == NULL)
    die ("opening the device", err);
  stream = plan_stream_new (device, &err);
  if (stream == NULL)
    die ("creating a stream", err);
  g_print ("# %s, %" G_GSIZE_FORMAT " MiB x %u\n",
      plan_device_get_name (device), size >> 20, iterations);

  pageable = g_malloc (size);
  memset (pageable, 1, size);
  if (!plan_device_alloc_host (device, size, &pinned, &err)
      || !plan_device_alloc (device, size, &d1, &err)
      || !plan_device_alloc (device, size, &d2, &err))
    die ("allocating", err);
  memset (pinned, 2, size);

  measure ("h2d-pageable", PLAN_COPY_HOST_TO_DEVICE, d1, pageable, size,
      iterations);
  measure ("h2d-pinned", PLAN_COPY_HOST_TO_DEVICE, d1, pinned, size,
      iterations);
  measure ("d2h-pinned", PLAN_COPY_DEVICE_TO_HOST, pinned, d1, size,
      iterations);
  measure ("d2d", PLAN_COPY_DEVICE_TO_DEVICE, d2, d1, size, iterations);

  plan_device_free (device, d1);
  plan_device_free (device, d2);
  plan_device_free_host (device, pinned);
  g_free (pageable);
  plan_stream_unref (stream);
  gst_object_unref (device);
  return 0;
}
