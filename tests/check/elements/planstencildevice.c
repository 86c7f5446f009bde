/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* planstencil on the device (the sim device):
 * - planfilesrc ! planupload ! planmap ! planstencil ! plandownload !
 *   planfilesink keeps every chunk on the device: one device-to-host copy
 *   per result, host waits only in the transfer elements, the CPU target's
 *   bytes; without the ready waits (the sim device's test hook) the result
 *   is wrong, so the test catches a missing wait;
 * - planfilesrc reads into pinned host memory for a stencil on the device;
 * - a failed launch and an exhausted device memory in planstencil are
 *   element errors, and no output file is left.
 * The generated CUDA kernels are tested in libs/stencilcuda.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>
#include <libplan/device/plan-testing.h>

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

/* A .npy file of @rows x @cols float64 values. */
static gchar *
write_npy (const gchar * dir, const gchar * name, gsize rows, gsize cols)
{
  gchar *path = g_build_filename (dir, name, NULL);
  gchar *dict = g_strdup_printf ("{'descr': '<f8', 'fortran_order': False, "
      "'shape': (%" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT "), }", rows, cols);
  gsize hlen = 64 * ((10 + strlen (dict) + 1 + 63) / 64), i;
  GString *s = g_string_new_len ("\x93NUMPY\x01\x00", 8);
  guint16 len = hlen - 10;

  g_string_append_len (s, (const gchar *) &len, 2);
  g_string_append (s, dict);
  while (s->len < hlen - 1)
    g_string_append_c (s, ' ');
  g_string_append_c (s, '\n');
  for (i = 0; i < rows * cols; i++) {
    gdouble v = cos (i * 0.013) * 3 + (i % 11);
    g_string_append_len (s, (const gchar *) &v, 8);
  }
  fail_unless (g_file_set_contents (path, s->str, s->len, NULL));
  g_string_free (s, TRUE);
  g_free (dict);
  return path;
}

static guint64
device_stat (PlanDevice * device, const gchar * field)
{
  GstStructure *stats = plan_device_get_stats (device);
  guint64 value = 0;

  fail_unless (gst_structure_get_uint64 (stats, field, &value), "%s", field);
  gst_structure_free (stats);
  return value;
}

static guint64
element_stat (GstElement * pipeline, const gchar * name, const gchar * field)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstStructure *stats = NULL;
  guint64 value = G_MAXUINT64;

  fail_unless (e != NULL);
  g_object_get (e, "stats", &stats, NULL);
  fail_unless (gst_structure_get_uint64 (stats, field, &value));
  gst_structure_free (stats);
  gst_object_unref (e);
  return value;
}

/* Runs @desc to its end; returns the error message, or NULL at EOS. With
 * @stats, reads the download's statistics before stopping. */
static gchar *
run_pipeline (const gchar * desc, guint64 * down_transfers,
    guint64 * down_waits, guint64 * up_waits, PlanDevice * device,
    guint64 * device_waits)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstBus *bus;
  GstMessage *msg;
  gchar *result = NULL;

  fail_unless (pipeline != NULL, "%s", err ? err->message : "");
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "the pipeline did not end");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    result = g_strdup (err->message);
    g_clear_error (&err);
  } else if (down_transfers) {
    *down_transfers = element_stat (pipeline, "down", "transfers");
    *down_waits = element_stat (pipeline, "down", "host-waits");
    *up_waits = element_stat (pipeline, "up", "host-waits");
    /* at EOS, before stopping waits for what is queued */
    *device_waits = device_stat (device, "host-waits");
  }
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return result;
}

static gchar *
read_file (const gchar * path, gsize * len)
{
  gchar *data = NULL;

  fail_unless (g_file_get_contents (path, &data, len, NULL), "%s", path);
  return data;
}

GST_START_TEST (test_device_resident_plan)
{
  gchar *dir = g_dir_make_tmp ("plan-stencildev-XXXXXX", NULL);
  gchar *in = write_npy (dir, "in.npy", 512, 64);
  gchar *out_dev = g_build_filename (dir, "dev.npy", NULL);
  gchar *out_cpu = g_build_filename (dir, "cpu.npy", NULL);
  const gchar *stencil = "planstencil window=\"_ n _; w c e; _ s _\" "
      "expr=\"n + s + e + w - 4*c\" boundary=nearest";
  gchar *desc;
  PlanDevice *device;
  guint64 d2h0, h2d0, waits0, launches0, d2d0, transfers = 0, waits = 0,
      up_waits = 0, device_waits = 0;
  gchar *a, *b, *err;
  gsize alen, blen;

  g_setenv ("GST_PLAN_DEVICE", "sim", TRUE);
  device = plan_device_get ("sim", NULL);
  fail_unless (device != NULL);
  d2h0 = device_stat (device, "d2h-transfers");
  h2d0 = device_stat (device, "h2d-transfers");
  d2d0 = device_stat (device, "d2d-transfers");
  waits0 = device_stat (device, "host-waits");
  launches0 = device_stat (device, "launches");

  /* 8 chunks of 64 rows of 512 bytes */
  desc = g_strdup_printf ("planfilesrc location=%s blocksize=32768 ! "
      "planupload name=up ! planmap expr=\"x * 2 + 1\" target=cuda ! %s target=cuda "
      "! plandownload name=down ! planfilesink location=%s", in, stencil,
      out_dev);
  err = run_pipeline (desc, &transfers, &waits, &up_waits, device,
      &device_waits);
  fail_unless (err == NULL, "%s", err);
  g_free (desc);

  /* one upload per chunk, one download per result, the halo copied on
   * the device; the host waited only for the downloads */
  fail_unless_equals_uint64 (device_stat (device, "h2d-transfers") - h2d0, 8);
  fail_unless_equals_uint64 (device_stat (device, "d2h-transfers") - d2h0,
      transfers);
  /* each chunk's output, and the last rows at the end */
  fail_unless_equals_uint64 (transfers, 9);
  fail_unless_equals_uint64 (device_stat (device, "launches") - launches0,
      8 + 9);
  fail_unless (device_stat (device, "d2d-transfers") > d2d0);
  fail_unless_equals_uint64 (device_waits - waits0, waits + up_waits);
  fail_unless (waits <= transfers, "%" G_GUINT64_FORMAT " host waits", waits);

  desc = g_strdup_printf ("planfilesrc location=%s blocksize=32768 ! "
      "planmap expr=\"x * 2 + 1\" target=cpu ! %s target=cpu ! "
      "planfilesink location=%s", in, stencil, out_cpu);
  err = run_pipeline (desc, NULL, NULL, NULL, NULL, NULL);
  fail_unless (err == NULL, "%s", err);
  g_free (desc);
  a = read_file (out_dev, &alen);
  b = read_file (out_cpu, &blen);
  fail_unless_equals_uint64 (alen, blen);
  fail_unless (memcmp (a, b, alen) == 0, "device and CPU results differ");

  g_free (a);
  g_free (b);
  g_unlink (in);
  g_unlink (out_dev);
  g_unlink (out_cpu);
  g_rmdir (dir);
  g_free (in);
  g_free (out_dev);
  g_free (out_cpu);
  g_free (dir);
  gst_object_unref (device);
  g_unsetenv ("GST_PLAN_DEVICE");
}

GST_END_TEST;

/* The same plan with the ready waits removed (the sim device's test
 * hook) and long random delays: the stencil reads rows before their upload
 * finished, and the result differs from the CPU's, which shows that the
 * test above would catch a missing wait. */
GST_START_TEST (test_missing_ready_wait_is_caught)
{
  gchar *dir = g_dir_make_tmp ("plan-stencilwait-XXXXXX", NULL);
  gchar *in = write_npy (dir, "in.npy", 256, 64);
  gchar *out_dev = g_build_filename (dir, "dev.npy", NULL);
  gchar *out_cpu = g_build_filename (dir, "cpu.npy", NULL);
  const gchar *stencil = "planstencil window=\"_ n _; w c e; _ s _\" "
      "expr=\"n + s + e + w - 4*c\" boundary=reflect";
  PlanDevice *device;
  gchar *desc, *err, *a, *b;
  gsize alen, blen;

  g_setenv ("GST_PLAN_SIM_MAX_DELAY_US", "3000", TRUE);
  g_setenv ("GST_PLAN_DEVICE", "sim", TRUE);
  device = plan_device_get ("sim", NULL);
  fail_unless (device != NULL);
  fail_unless (plan_device_sim_skip_waits (device, PLAN_WAIT_SITE_READY));
  /* 16 chunks of 16 rows */
  desc = g_strdup_printf ("planfilesrc location=%s blocksize=8192 ! "
      "planupload ! %s target=cuda ! plandownload ! planfilesink "
      "location=%s", in, stencil, out_dev);
  err = run_pipeline (desc, NULL, NULL, NULL, NULL, NULL);
  fail_unless (err == NULL, "%s", err);
  g_free (desc);
  desc = g_strdup_printf ("planfilesrc location=%s blocksize=8192 ! "
      "%s target=cpu ! planfilesink location=%s", in, stencil, out_cpu);
  err = run_pipeline (desc, NULL, NULL, NULL, NULL, NULL);
  fail_unless (err == NULL, "%s", err);
  g_free (desc);
  a = read_file (out_dev, &alen);
  b = read_file (out_cpu, &blen);
  fail_unless_equals_uint64 (alen, blen);
  fail_unless (memcmp (a, b, alen) != 0,
      "without the ready waits the result was still right");

  g_free (a);
  g_free (b);
  g_unlink (in);
  g_unlink (out_dev);
  g_unlink (out_cpu);
  g_rmdir (dir);
  g_free (in);
  g_free (out_dev);
  g_free (out_cpu);
  g_free (dir);
  gst_object_unref (device);
  g_unsetenv ("GST_PLAN_DEVICE");
  g_unsetenv ("GST_PLAN_SIM_MAX_DELAY_US");
}

GST_END_TEST;

static GstPadProbeReturn
count_pinned (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  guint *counts = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

  counts[0]++;
  counts[1] += plan_is_host_memory (gst_buffer_peek_memory (buf, 0));
  return GST_PAD_PROBE_OK;
}

/* planfilesrc reads into the pinned host memory a kernel element on the
 * device offers in the allocation query; on the CPU it maps the file. */
static void
check_source_memory (const gchar * target, gboolean pinned)
{
  gchar *dir = g_dir_make_tmp ("plan-stencilpin-XXXXXX", NULL);
  gchar *in = write_npy (dir, "in.npy", 256, 16);
  gchar *desc = g_strdup_printf ("planfilesrc location=%s blocksize=4096 ! "
      "planstencil name=st target=%s window=\"a b c\" expr=\"a - c\" ! "
      "plandownload ! fakesink", in, target);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *st = gst_bin_get_by_name (GST_BIN (pipeline), "st");
  GstPad *sink = gst_element_get_static_pad (st, "sink");
  GstBus *bus = gst_element_get_bus (pipeline);
  guint counts[2] = { 0, 0 };
  GstMessage *msg;

  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, count_pinned, counts,
      NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  fail_unless_equals_int (counts[0], 8);
  fail_unless_equals_int (counts[1], pinned ? 8 : 0);

  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (st);
  gst_object_unref (pipeline);
  g_unlink (in);
  g_rmdir (dir);
  g_free (in);
  g_free (desc);
  g_free (dir);
}

GST_START_TEST (test_source_reads_into_pinned_memory)
{
  g_setenv ("GST_PLAN_DEVICE", "sim", TRUE);
  check_source_memory ("cuda", TRUE);
  check_source_memory ("cpu", FALSE);
  g_unsetenv ("GST_PLAN_DEVICE");
}

GST_END_TEST;

/* A stencil on the device that fails as @prepare sets up: an element
 * error naming the device, and no output file. */
static void
check_device_failure (gboolean oom)
{
  gchar *dir = g_dir_make_tmp ("plan-stencilfail-XXXXXX", NULL);
  gchar *in = write_npy (dir, "in.npy", 256, 16);
  gchar *out = g_build_filename (dir, "out.npy", NULL);
  gchar *desc, *err;
  PlanDevice *device;

  g_setenv ("GST_PLAN_DEVICE", "sim", TRUE);
  device = plan_device_get ("sim", NULL);
  fail_unless (device != NULL);
  /* the stencil's upload of its first input fits, its output does not;
   * or its first launch fails */
  desc = g_strdup_printf ("planfilesrc location=%s blocksize=4096 ! "
      "planstencil target=cuda window=\"_ n _; w c e; _ s _\" "
      "expr=\"n + s - 2*c\" ! plandownload ! planfilesink location=%s", in,
      out);
  if (oom)
    fail_unless (plan_device_sim_set_memory_limit (device, 4096 + 1024));
  else
    fail_unless (plan_device_sim_inject_fault (device, PLAN_SIM_FAULT_LAUNCH,
            0));
  err = run_pipeline (desc, NULL, NULL, NULL, NULL, NULL);
  fail_unless (err != NULL, "the pipeline did not fail");
  fail_unless (strstr (err, "Could not run the kernel on Simulated") != NULL,
      "%s", err);
  fail_if (g_file_test (out, G_FILE_TEST_EXISTS), "an output file was left");
  if (oom)
    plan_device_sim_set_memory_limit (device, 0);

  g_free (err);
  g_free (desc);
  g_unlink (in);
  g_rmdir (dir);
  g_free (in);
  g_free (out);
  g_free (dir);
  gst_object_unref (device);
  g_unsetenv ("GST_PLAN_DEVICE");
}

GST_START_TEST (test_failed_launch_is_an_element_error)
{
  check_device_failure (FALSE);
}

GST_END_TEST;

GST_START_TEST (test_out_of_device_memory_is_an_element_error)
{
  check_device_failure (TRUE);
}

GST_END_TEST;

static Suite *
planstencildevice_suite (void)
{
  Suite *s = suite_create ("planstencildevice");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_device_resident_plan);
  tcase_add_test (tc, test_missing_ready_wait_is_caught);
  tcase_add_test (tc, test_source_reads_into_pinned_memory);
  tcase_add_test (tc, test_failed_launch_is_an_element_error);
  tcase_add_test (tc, test_out_of_device_memory_is_an_element_error);
  return s;
}

GST_CHECK_MAIN (planstencildevice);
