/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* planupload and plandownload, on the device named by PLAN_TEST_DEVICE:
 * `sim` (the default, in CI) or `cuda`, which exits 77 (skipped) without
 * an NVIDIA GPU. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <libplan/plan.h>
#include <libplan/device/plan-testing.h>

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const gchar *
test_device_name (void)
{
  const gchar *name = g_getenv ("PLAN_TEST_DEVICE");

  return name ? name : "sim";
}

static PlanDevice *
test_device (void)
{
  GError *err = NULL;
  PlanDevice *device = plan_device_get (test_device_name (), &err);

  fail_unless (device != NULL, "%s", err ? err->message : "");
  return device;
}

static GstHarness *
harness_new_round_trip (const gchar * dtype, gint64 rows, guint cols)
{
  gchar *desc, *caps;
  GstHarness *h;

  desc = g_strdup_printf ("planupload name=up device=%s ! "
      "plandownload name=down", test_device_name ());
  h = gst_harness_new_parse (desc);
  caps = g_strdup_printf ("array/x-raw, dtype=(string)%s, "
      "shape=(int)<%" G_GINT64_FORMAT ", %u>", dtype, rows, cols);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  g_free (desc);
  return h;
}

static GstBuffer *
make_chunk (gsize row_size, guint64 first, guint64 n_rows, guint32 seed)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, row_size * n_rows, NULL);
  GstMapInfo map;
  gsize i;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (i = 0; i < map.size; i++)
    map.data[i] = (guint8) ((i * 131 + seed * 7 + first) & 0xff);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_OFFSET (buf) = first;
  GST_BUFFER_OFFSET_END (buf) = first + n_rows;
  return buf;
}

static void
check_same (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo ma, mb;

  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (a), GST_BUFFER_OFFSET (b));
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (a),
      GST_BUFFER_OFFSET_END (b));
  fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
  fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
  fail_unless_equals_uint64 (ma.size, mb.size);
  fail_unless (memcmp (ma.data, mb.data, ma.size) == 0);
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
}

static guint64
stat_of (GstHarness * h, const gchar * element, const gchar * field)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (h->element), element);
  GstStructure *stats = NULL;
  guint64 value = G_MAXUINT64;

  fail_unless (e != NULL);
  g_object_get (e, "stats", &stats, NULL);
  fail_unless (gst_structure_get_uint64 (stats, field, &value));
  gst_structure_free (stats);
  gst_object_unref (e);
  return value;
}

/* Pushes @n_chunks chunks of @rows_per_chunk rows (the last one short)
 * through upload ! download and checks what comes out. */
static void
round_trip (const gchar * dtype, guint n_chunks, guint rows_per_chunk,
    guint32 seed)
{
  PlanDType t = plan_dtype_from_string (dtype);
  const guint cols = 3;
  gsize row_size = plan_dtype_get_size (t) * cols;
  guint64 rows = (guint64) n_chunks * rows_per_chunk - 1, first = 0;
  GstHarness *h = harness_new_round_trip (dtype, rows, cols);
  guint i;

  for (i = 0; i < n_chunks; i++) {
    guint64 n = MIN (rows_per_chunk, rows - first);
    GstBuffer *in = make_chunk (row_size, first, n, seed);
    GstBuffer *out;

    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_if (plan_buffer_is_device (out));
    check_same (in, out);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    first += n;
  }
  fail_unless_equals_uint64 (stat_of (h, "up", "transfers"), n_chunks);
  fail_unless_equals_uint64 (stat_of (h, "up", "bytes"), rows * row_size);
  fail_unless_equals_uint64 (stat_of (h, "down", "transfers"), n_chunks);
  fail_unless_equals_uint64 (stat_of (h, "down", "bytes"), rows * row_size);
  gst_harness_teardown (h);
}

GST_START_TEST (test_round_trip_every_dtype)
{
  gint t;

  for (t = PLAN_DTYPE_BOOL; t < PLAN_DTYPE_N; t++)
    round_trip (plan_dtype_to_string ((PlanDType) t), 5, 40, t);
}

GST_END_TEST;

GST_START_TEST (test_upload_produces_device_memory_with_ready_event)
{
  gchar *desc = g_strdup_printf ("planupload device=%s", test_device_name ());
  GstHarness *h = gst_harness_new_parse (desc);
  GstBuffer *in, *out;
  GstCaps *caps;
  GstMapInfo map, mi;

  gst_harness_set_src_caps_str (h,
      "array/x-raw, dtype=(string)float32, shape=(int)<100, 4>");
  in = make_chunk (16, 0, 100, 1);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);

  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (plan_caps_is_device (caps));
  gst_caps_unref (caps);

  fail_unless (plan_buffer_is_device (out));
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (out), 100);
  /* a plain map waits for the upload and gives the data */
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless (gst_buffer_map (in, &mi, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, 1600);
  fail_unless (memcmp (map.data, mi.data, 1600) == 0);
  gst_buffer_unmap (in, &mi);
  gst_buffer_unmap (out, &map);

  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (desc);
}

GST_END_TEST;

GST_START_TEST (test_upload_proposes_pinned_memory)
{
  gchar *desc = g_strdup_printf ("planupload device=%s", test_device_name ());
  GstHarness *h = gst_harness_new_parse (desc);
  GstCaps *caps = gst_caps_from_string ("array/x-raw, dtype=(string)uint8, "
      "shape=(int)<8>");
  GstAllocator *allocator = NULL;
  GstQuery *query;

  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  query = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, query));
  fail_unless (gst_query_get_n_allocation_params (query) > 0);
  gst_query_parse_nth_allocation_param (query, 0, &allocator, NULL);
  fail_unless (allocator != NULL);
  fail_unless_equals_string (allocator->mem_type, PLAN_HOST_MEMORY_TYPE_NAME);
  gst_object_unref (allocator);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
  g_free (desc);
}

GST_END_TEST;

GST_START_TEST (test_chain_of_device_elements)
{
  gchar *desc = g_strdup_printf ("planupload device=%s ! planupload "
      "device=%s ! plandownload ! plandownload", test_device_name (),
      test_device_name ());
  GstHarness *h = gst_harness_new_parse (desc);
  guint i;

  /* the second upload and download pass through */
  gst_harness_set_src_caps_str (h,
      "array/x-raw, dtype=(string)int16, shape=(int)<64, 8>");
  for (i = 0; i < 4; i++) {
    GstBuffer *in = make_chunk (16, i * 16, 16, 3);
    GstBuffer *out;

    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    check_same (in, out);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
  g_free (desc);
}

GST_END_TEST;

static gpointer
run_one_pipeline (gpointer data)
{
  round_trip ("float64", 30, 64, GPOINTER_TO_UINT (data));
  return NULL;
}

GST_START_TEST (test_many_pipelines_at_once_on_one_device)
{
  GThread *threads[8];
  guint i;

  for (i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("pipeline", run_one_pipeline,
        GUINT_TO_POINTER (i + 10));
  for (i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
}

GST_END_TEST;

GST_START_TEST (test_gigabyte_stream_in_bounded_device_memory)
{
  const guint64 chunk = 1 << 20, n_chunks = 1024;
  PlanDevice *device = test_device ();
  GstElement *pipeline, *up, *down;
  GstStructure *stats;
  GstMessage *msg;
  guint64 peak, value;
  GError *err = NULL;
  gchar *desc;

  /* 1 GiB of uint8 through a pool of 3 one-megabyte device buffers */
  desc = g_strdup_printf ("fakesrc num-buffers=%" G_GUINT64_FORMAT
      " sizetype=fixed sizemax=%" G_GUINT64_FORMAT " filltype=nothing ! "
      "capsfilter caps=\"array/x-raw, dtype=(string)uint8, "
      "shape=(int)<%" G_GUINT64_FORMAT ">\" ! planupload name=up device=%s "
      "max-buffers=3 ! plandownload name=down ! fakesink sync=false",
      n_chunks, chunk, chunk * n_chunks, test_device_name ());
  pipeline = gst_parse_launch (desc, &err);
  fail_unless (pipeline != NULL && err == NULL, "%s", err ? err->message : "");
  plan_device_reset_peak_memory (device);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);

  up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  down = gst_bin_get_by_name (GST_BIN (pipeline), "down");
  g_object_get (up, "stats", &stats, NULL);
  gst_structure_get_uint64 (stats, "bytes", &value);
  fail_unless_equals_uint64 (value, chunk * n_chunks);
  gst_structure_free (stats);
  g_object_get (down, "stats", &stats, NULL);
  gst_structure_get_uint64 (stats, "transfers", &value);
  fail_unless_equals_uint64 (value, n_chunks);
  gst_structure_free (stats);

  stats = plan_device_get_stats (device);
  fail_unless (gst_structure_get_uint64 (stats, "peak-bytes", &peak));
  GST_INFO ("peak device memory %" G_GUINT64_FORMAT " bytes", peak);
  fail_unless (peak <= 3 * chunk, "peak device memory %" G_GUINT64_FORMAT
      " bytes for a pool of 3 buffers of %" G_GUINT64_FORMAT, peak, chunk);
  fail_unless (peak >= chunk);
  gst_structure_free (stats);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (up);
  gst_object_unref (down);
  gst_object_unref (pipeline);
  gst_object_unref (device);
  g_free (desc);
}

GST_END_TEST;

static GstMessage *
push_expecting_error (const gchar * caps, gsize size)
{
  gchar *desc = g_strdup_printf ("planupload device=%s", test_device_name ());
  GstHarness *h = gst_harness_new_parse (desc);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, caps);
  fail_unless_equals_int (gst_harness_push (h, make_chunk (size, 0, 1, 0)),
      GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_free (desc);
  return msg;
}

GST_START_TEST (test_out_of_device_memory_is_an_element_error)
{
  PlanDevice *device = test_device ();
  GstMessage *msg;
  GError *err = NULL;
  gchar *debug = NULL;

  fail_unless (plan_device_sim_set_memory_limit (device, 1000));
  msg = push_expecting_error ("array/x-raw, dtype=(string)uint8, "
      "shape=(int)<1, 4000>", 4000);
  gst_message_parse_error (msg, &err, &debug);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NO_SPACE_LEFT), "%s", err->message);
  fail_unless (strstr (err->message, "Out of device memory") != NULL, "%s",
      err->message);
  fail_unless (strstr (debug, "out of device memory") != NULL, "%s", debug);
  g_clear_error (&err);
  g_free (debug);
  gst_message_unref (msg);
  plan_device_sim_set_memory_limit (device, 0);
  gst_object_unref (device);
}

GST_END_TEST;

GST_START_TEST (test_failed_transfer_is_an_element_error)
{
  PlanDevice *device = test_device ();
  GstMessage *msg;
  GError *err = NULL;

  fail_unless (plan_device_sim_inject_fault (device, PLAN_SIM_FAULT_COPY, 0));
  msg = push_expecting_error ("array/x-raw, dtype=(string)uint8, "
      "shape=(int)<1, 64>", 64);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_WRITE), "%s", err->message);
  fail_unless (strstr (err->message, "Could not copy") != NULL);
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_object_unref (device);
}

GST_END_TEST;

/* A copy that fails after it was queued: the upload must not release its
 * source until the queued copy has read it (under ASan and valgrind a
 * read of the freed chunk fails this test). */
GST_START_TEST (test_failed_queued_copy_keeps_its_source)
{
  PlanDevice *device = test_device ();
  GstMessage *msg;
  GError *err = NULL;

  if (plan_device_get_kind (device) != PLAN_DEVICE_KIND_SIM) {
    gst_object_unref (device);
    return;
  }
  fail_unless (plan_device_sim_inject_fault (device,
          PLAN_SIM_FAULT_COPY_QUEUED, 0));
  msg = push_expecting_error ("array/x-raw, dtype=(string)uint8, "
      "shape=(int)<1, 65536>", 65536);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_WRITE), "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_object_unref (device);
}

GST_END_TEST;

/* A download whose copy fails after it was queued (the sim device's
 * copy-queued fault on the second copy, the first being the upload): an
 * element error of @element, and the transfer layer waits for the copy
 * before the buffers go, so the late copy writes no freed memory (under
 * ASan and valgrind a write into the freed output fails this test). */
static void
check_failed_queued_download (const gchar * tail, const gchar * message)
{
  PlanDevice *device = test_device ();
  gchar *desc;
  GstHarness *h;
  GstBus *bus;
  GstMessage *msg;
  GError *err = NULL;

  if (plan_device_get_kind (device) != PLAN_DEVICE_KIND_SIM) {
    gst_object_unref (device);
    return;
  }
  desc = g_strdup_printf ("planupload device=%s ! %s", test_device_name (),
      tail);
  h = gst_harness_new_parse (desc);
  bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, "array/x-raw, dtype=(string)float32, "
      "shape=(int)<16, 1024>");
  fail_unless (plan_device_sim_inject_fault (device,
          PLAN_SIM_FAULT_COPY_QUEUED, 1));
  gst_harness_push (h, make_chunk (4096, 0, 16, 0));
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error from %s", desc);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_READ), "%s", err->message);
  fail_unless (strstr (err->message, message) != NULL, "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  fail_unless (gst_harness_try_pull (h) == NULL);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_free (desc);
  gst_object_unref (device);
}

GST_START_TEST (test_failed_queued_download_keeps_its_buffers)
{
  check_failed_queued_download ("plandownload", "Could not copy a chunk "
      "from the device");
}

GST_END_TEST;

/* The same in a kernel element computing on the host from device memory:
 * its copy of the input to the host fails after it was queued. */
GST_START_TEST (test_failed_queued_input_copy_keeps_its_buffers)
{
  check_failed_queued_download ("planmap expr=\"x + 1\" target=cpu",
      "Could not copy a buffer of input sink_0 from the device");
}

GST_END_TEST;

/* No driver: an element error naming the device, "cuda" also for auto
 * (which means cuda there), with what is missing in the details. */
GST_START_TEST (test_missing_driver_is_an_element_error)
{
  const gchar *names[] = { "cuda", "auto" };
  guint i;

  g_unsetenv ("GST_PLAN_DEVICE");
  g_setenv ("GST_PLAN_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", TRUE);
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GstElement *up = gst_element_factory_make ("planupload", NULL);
    GstBus *bus = gst_bus_new ();
    GstMessage *msg;
    GError *err = NULL;
    gchar *debug = NULL;

    g_object_set (up, "device", names[i], NULL);
    gst_element_set_bus (up, bus);
    fail_unless_equals_int (gst_element_set_state (up, GST_STATE_PAUSED),
        GST_STATE_CHANGE_FAILURE);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (msg != NULL);
    gst_message_parse_error (msg, &err, &debug);
    fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_NOT_FOUND));
    fail_unless_equals_string (err->message,
        "No device 'cuda' to upload to.");
    fail_unless (strstr (debug, "NVIDIA driver (/nonexistent/libcuda.so.1) "
            "is missing") != NULL, "%s", debug);
    g_clear_error (&err);
    g_free (debug);
    gst_message_unref (msg);
    gst_element_set_state (up, GST_STATE_NULL);
    gst_element_set_bus (up, NULL);
    gst_object_unref (bus);
    gst_object_unref (up);
  }
}

GST_END_TEST;

GST_START_TEST (test_auto_device_follows_environment)
{
  GstHarness *h;
  GstBuffer *out;

  g_setenv ("GST_PLAN_DEVICE", "sim", TRUE);
  h = gst_harness_new ("planupload");
  gst_harness_set_src_caps_str (h,
      "array/x-raw, dtype=(string)uint8, shape=(int)<8>");
  fail_unless_equals_int (gst_harness_push (h, make_chunk (1, 0, 8, 0)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (plan_buffer_is_device (out));
  fail_unless_equals_int (plan_device_get_kind (plan_device_memory_get_device
          (gst_buffer_peek_memory (out, 0))), PLAN_DEVICE_KIND_SIM);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_unsetenv ("GST_PLAN_DEVICE");
}

GST_END_TEST;

/* A name that is no device reads back as given, and the element refuses
 * to start with it (resource / settings, naming the property and the
 * value) instead of uploading to another device. */
GST_START_TEST (test_device_property_bad_name_fails_at_start)
{
  GstElement *pipe, *up;
  GstMessage *msg;
  GError *err = NULL;
  gchar *name = NULL;

  pipe = gst_parse_launch ("fakesrc ! planupload name=up device=sim ! "
      "fakesink", NULL);
  fail_unless (pipe != NULL);
  up = gst_bin_get_by_name (GST_BIN (pipe), "up");
  g_object_set (up, "device", "gpu", NULL);
  g_object_get (up, "device", &name, NULL);
  fail_unless_equals_string (name, "gpu");
  g_free (name);

  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_poll (GST_ELEMENT_BUS (pipe), GST_MESSAGE_ERROR, 0);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_SETTINGS), "%s", err->message);
  fail_unless (strstr (err->message, "device \"gpu\"") != NULL, "%s",
      err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (up);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* planupload ! planmap ! plandownload: the kernel element takes device
 * memory on its sink pad and, targeting the device, produces device
 * memory, both through its base class. */
static GstHarness *
harness_new_device_map (void)
{
  gchar *desc = g_strdup_printf ("planupload device=%s ! planmap name=map "
      "expr=\"x * 2 + 1\" target=cuda ! plandownload", test_device_name ());
  GstHarness *h;

  if (g_str_equal (test_device_name (), "sim"))
    g_setenv ("GST_PLAN_DEVICE", "sim", TRUE);
  h = gst_harness_new_parse (desc);
  gst_harness_set_src_caps_str (h,
      "array/x-raw, dtype=(string)float32, shape=(int)<300, 2>");
  g_free (desc);
  return h;
}

GST_START_TEST (test_kernel_element_on_device_memory)
{
  GstHarness *h = harness_new_device_map ();
  GstElement *map;
  GstPad *pad;
  GstCaps *caps;
  guint i;
  gsize j;

  for (i = 0; i < 3; i++) {
    GstBuffer *in = gst_buffer_new_allocate (NULL, 100 * 2 * 4, NULL);
    GstBuffer *out;
    GstMapInfo mi, mo;

    fail_unless (gst_buffer_map (in, &mi, GST_MAP_WRITE));
    for (j = 0; j < 200; j++)
      ((gfloat *) mi.data)[j] = i * 1000 + j;
    gst_buffer_unmap (in, &mi);
    GST_BUFFER_OFFSET (in) = i * 100;
    GST_BUFFER_OFFSET_END (in) = i * 100 + 100;
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);

    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (out), i * 100);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (out), i * 100 + 100);
    fail_unless (gst_buffer_map (out, &mo, GST_MAP_READ));
    fail_unless_equals_int (mo.size, 800);
    for (j = 0; j < 200; j++)
      fail_unless_equals_float (((gfloat *) mo.data)[j],
          (i * 1000 + j) * 2.0f + 1.0f);
    gst_buffer_unmap (out, &mo);
    gst_buffer_unref (out);
  }

  /* the map's output was device memory */
  map = gst_bin_get_by_name (GST_BIN (h->element), "map");
  pad = gst_element_get_static_pad (map, "src");
  caps = gst_pad_get_current_caps (pad);
  fail_unless (plan_caps_is_device (caps));
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (map);
  gst_harness_teardown (h);
  g_unsetenv ("GST_PLAN_DEVICE");
}

GST_END_TEST;

GST_START_TEST (test_failed_launch_is_an_element_error)
{
  PlanDevice *device = test_device ();
  GstHarness *h = harness_new_device_map ();
  GstBus *bus = gst_bus_new ();
  GstBuffer *in = gst_buffer_new_allocate (NULL, 100 * 2 * 4, NULL);
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_bus (h->element, bus);
  gst_buffer_memset (in, 0, 0, 800);
  GST_BUFFER_OFFSET (in) = 0;
  GST_BUFFER_OFFSET_END (in) = 100;
  /* planmap runs its expression as a kernel on its stream: the launch
   * fails */
  fail_unless (plan_device_sim_inject_fault (device, PLAN_SIM_FAULT_LAUNCH,
          0));
  /* the map computes on its aggregate thread: the push itself may succeed */
  gst_harness_push (h, in);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  fail_unless_equals_string (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), "map");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_FAILED), "%s", err->message);
  fail_unless (strstr (err->message, "Could not run the kernel") != NULL,
      "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  gst_object_unref (device);
  g_unsetenv ("GST_PLAN_DEVICE");
}

GST_END_TEST;

/* A third party's map, y = 2x + 1 on float32, with a launch() that runs
 * it as a host kernel on the sim device: the base class does the rest. */
#define TEST_TYPE_AFFINE (test_affine_get_type ())
G_DECLARE_FINAL_TYPE (TestAffine, test_affine, TEST, AFFINE, PlanKernelElement);

struct _TestAffine
{
  PlanKernelElement parent;
};

G_DEFINE_TYPE (TestAffine, test_affine, PLAN_TYPE_KERNEL_ELEMENT);

static gboolean
test_affine_setup (PlanKernelElement * self, guint n_inputs,
    const PlanArrayInfo * inputs, PlanArrayInfo * output, GError ** error)
{
  if (inputs[0].dtype != PLAN_DTYPE_FLOAT32) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_TYPE, "float32 only");
    return FALSE;
  }
  *output = inputs[0];
  return TRUE;
}

static void
affine (const gfloat * in, gfloat * out, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++)
    out[i] = in[i] * 2.0f + 1.0f;
}

static GstFlowReturn
test_affine_process (PlanKernelElement * self, const PlanChunk * chunk)
{
  gsize n = chunk->n_rows * plan_array_info_get_row_elements
      (plan_kernel_element_get_output_info (self));
  GstBuffer *out;
  GstFlowReturn ret;
  GstMapInfo map;

  ret = plan_kernel_element_alloc_output (self, chunk->n_rows, &out);
  if (ret != GST_FLOW_OK)
    return ret;
  fail_unless (gst_buffer_map (out, &map, GST_MAP_WRITE));
  affine (chunk->data[0], (gfloat *) map.data, n);
  gst_buffer_unmap (out, &map);
  return plan_kernel_element_push_output (self, out);
}

static void
affine_kernel (gpointer * ptrs, guint n_ptrs, gpointer user_data)
{
  affine (ptrs[0], ptrs[1], GPOINTER_TO_SIZE (user_data));
}

static gboolean
test_affine_launch (PlanKernelElement * self, const PlanChunk * chunk,
    gpointer output, PlanStream * stream, GError ** error)
{
  gpointer ptrs[2] = { (gpointer) chunk->data[0], output };
  gsize n = chunk->n_rows * plan_array_info_get_row_elements
      (plan_kernel_element_get_output_info (self));

  /* A host kernel: sim and cpu run it, cuda answers "unsupported" and the
   * base class computes with process() on host copies. */
  return plan_stream_launch_host_kernel (stream, affine_kernel, ptrs, 2,
      GSIZE_TO_POINTER (n), NULL, error);
}

static void
test_affine_class_init (TestAffineClass * klass)
{
  PlanKernelElementClass *kclass = PLAN_KERNEL_ELEMENT_CLASS (klass);

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "Test affine map", "Filter/Array", "y = 2x + 1", "gst-plan authors");
  plan_kernel_element_class_add_pad_templates (kclass, FALSE);
  kclass->setup = test_affine_setup;
  kclass->process = test_affine_process;
  kclass->launch = test_affine_launch;
}

static void
test_affine_init (TestAffine * self)
{
}

static guint64
device_stat (PlanDevice * device, const gchar * field)
{
  GstStructure *stats = plan_device_get_stats (device);
  guint64 value = 0;

  gst_structure_get_uint64 (stats, field, &value);
  gst_structure_free (stats);
  return value;
}

/* upload ! affine ! affine ! download on @n_chunks chunks of @rows rows:
 * returns the number of wrong values. */
static guint
run_affine_chain (guint n_chunks, gsize rows, guint64 * launches,
    guint64 * host_waits)
{
  PlanDevice *device = test_device ();
  gchar *desc = g_strdup_printf ("planupload device=%s ! testaffine "
      "target=cuda ! testaffine target=cuda ! plandownload",
      test_device_name ());
  guint64 launches0, waits0;
  GstHarness *h;
  guint i, wrong = 0;
  gsize j;

  fail_unless (gst_element_register (NULL, "testaffine", GST_RANK_NONE,
          TEST_TYPE_AFFINE));
  h = gst_harness_new_parse (desc);
  gst_harness_set_src_caps_str (h, "array/x-raw, dtype=(string)float32, "
      "shape=(int)<-1>");
  launches0 = device_stat (device, "launches");
  waits0 = device_stat (device, "host-waits");
  for (i = 0; i < n_chunks; i++) {
    GstBuffer *in = gst_buffer_new_allocate (NULL, rows * 4, NULL);
    GstBuffer *out;
    GstMapInfo map;

    fail_unless (gst_buffer_map (in, &map, GST_MAP_WRITE));
    for (j = 0; j < rows; j++)
      ((gfloat *) map.data)[j] = (gfloat) (i * 7 + j % 1000);
    gst_buffer_unmap (in, &map);
    GST_BUFFER_OFFSET (in) = i * rows;
    GST_BUFFER_OFFSET_END (in) = (i + 1) * rows;
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (out), i * rows);
    fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
    for (j = 0; j < rows; j++) {
      gfloat x = (gfloat) (i * 7 + j % 1000);

      wrong += ((gfloat *) map.data)[j] != (x * 2 + 1) * 2 + 1;
    }
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
  }
  *launches = device_stat (device, "launches") - launches0;
  *host_waits = device_stat (device, "host-waits") - waits0;
  gst_harness_teardown (h);
  gst_object_unref (device);
  g_free (desc);
  return wrong;
}

GST_START_TEST (test_kernel_chain_runs_in_stream_order)
{
  guint64 launches, waits;

  g_setenv ("GST_PLAN_DEVICE", "sim", TRUE);
  fail_unless_equals_int (run_affine_chain (20, 4096, &launches, &waits), 0);
  /* both maps ran as kernels on their streams... */
  fail_unless_equals_uint64 (launches, 40);
  /* ...and the host waited only in plandownload, once per chunk */
  fail_unless (waits <= 20, "%" G_GUINT64_FORMAT " host waits", waits);
  g_unsetenv ("GST_PLAN_DEVICE");
}

GST_END_TEST;

GST_START_TEST (test_missing_wait_in_kernel_chain_is_caught)
{
  PlanDevice *device;
  guint64 launches, waits;

  /* longer delays, so that a stream not waiting runs ahead */
  g_setenv ("GST_PLAN_SIM_MAX_DELAY_US", "3000", TRUE);
  g_setenv ("GST_PLAN_DEVICE", "sim", TRUE);
  device = test_device ();
  fail_unless (plan_device_sim_skip_waits (device, PLAN_WAIT_SITE_READY));
  fail_unless (run_affine_chain (10, 4096, &launches, &waits) > 0);
  gst_object_unref (device);
  g_unsetenv ("GST_PLAN_DEVICE");
}

GST_END_TEST;

static Suite *
planupload_suite (void)
{
  Suite *s = suite_create ("planupload");
  TCase *tc = tcase_create ("general");
  gboolean sim = g_str_equal (test_device_name (), "sim");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_round_trip_every_dtype);
  tcase_add_test (tc, test_upload_produces_device_memory_with_ready_event);
  tcase_add_test (tc, test_upload_proposes_pinned_memory);
  tcase_add_test (tc, test_chain_of_device_elements);
  tcase_add_test (tc, test_many_pipelines_at_once_on_one_device);
  tcase_add_test (tc, test_gigabyte_stream_in_bounded_device_memory);
  tcase_add_test (tc, test_device_property_bad_name_fails_at_start);
  tcase_add_test (tc, test_kernel_element_on_device_memory);
  if (sim) {
    tcase_add_test (tc, test_kernel_chain_runs_in_stream_order);
    tcase_add_test (tc, test_missing_wait_in_kernel_chain_is_caught);
    tcase_add_test (tc, test_failed_launch_is_an_element_error);
    tcase_add_test (tc, test_out_of_device_memory_is_an_element_error);
    tcase_add_test (tc, test_failed_transfer_is_an_element_error);
  tcase_add_test (tc, test_failed_queued_copy_keeps_its_source);
  tcase_add_test (tc, test_failed_queued_download_keeps_its_buffers);
  tcase_add_test (tc, test_failed_queued_input_copy_keeps_its_buffers);
    tcase_add_test (tc, test_missing_driver_is_an_element_error);
    tcase_add_test (tc, test_auto_device_follows_environment);
  }
  return s;
}

/* Whether a CUDA device opens, tried in a child process: CUDA does not
 * survive the fork of each test. */
static gboolean
cuda_device_present (void)
{
  pid_t pid = fork ();
  gint status = 0;

  if (pid == 0) {
    PlanDevice *device = plan_device_get ("cuda", NULL);

    _exit (device != NULL ? 0 : 1);
  }
  if (pid < 0 || waitpid (pid, &status, 0) < 0)
    return FALSE;
  return WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

/* GST_CHECK_MAIN, plus the skip (exit 77) of the cuda variant on machines
 * without a GPU. */
int
main (int argc, char **argv)
{
  Suite *s;

  gst_check_init (&argc, &argv);
  plan_init ();
  if (g_str_equal (test_device_name (), "cuda") && !cuda_device_present ()) {
    g_print ("no CUDA device: skipping the cuda variant\n");
    return 77;
  }
  s = planupload_suite ();
  return gst_check_run_suite (s, "planupload", __FILE__);
}
