/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The device layer: streams, events, copies, device memory, the pool.
 *
 * The suite runs on the device named by PLAN_TEST_DEVICE: `sim` (the
 * default, in CI) or `cuda`, which exits 77 (skipped) when there is no
 * NVIDIA GPU. The scheduling scenarios (a slow writer and a reader on two
 * streams; a pool reused under slow readers) run on both; the sim-only
 * tests prove that the suite fails when a wait is removed. */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>
#include <libplan/device/plan-testing.h>

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct
{
  PlanDevice *device;
  gboolean cuda;
  PlanKernel *fill;
  PlanKernel *check;
  gpointer errors_dptr;         /* cuda: a device counter */
  gint errors;                  /* sim: a host counter, atomic */
} Ctx;

static const gchar *
test_device_name (void)
{
  const gchar *name = g_getenv ("PLAN_TEST_DEVICE");

  return name ? name : "sim";
}

static gboolean
load_test_kernels (Ctx * ctx)
{
  gchar *path, *ptx = NULL;
  gsize len = 0;
  GError *err = NULL;

  path = g_build_filename (g_getenv ("PLAN_BUILD_DIR"), "tests", "check",
      "device-test.ptx", NULL);
  if (!g_file_get_contents (path, &ptx, &len, &err))
    fail ("the cuda tests need %s (built with nvcc): %s", path, err->message);
  ctx->fill = plan_kernel_new (ctx->device, ptx, len + 1, "plan_test_fill",
      &err);
  fail_unless (ctx->fill != NULL, "%s", err ? err->message : "");
  ctx->check = plan_kernel_new (ctx->device, ptx, len + 1,
      "plan_test_check", &err);
  fail_unless (ctx->check != NULL, "%s", err ? err->message : "");
  g_free (ptx);
  g_free (path);
  return TRUE;
}

static Ctx *
ctx_new (void)
{
  Ctx *ctx = g_new0 (Ctx, 1);
  GError *err = NULL;

  ctx->device = plan_device_get (test_device_name (), &err);
  fail_unless (ctx->device != NULL, "%s", err ? err->message : "");
  ctx->cuda = plan_device_get_kind (ctx->device) == PLAN_DEVICE_KIND_CUDA;
  if (ctx->cuda) {
    guint32 zero = 0;

    load_test_kernels (ctx);
    fail_unless (plan_device_alloc (ctx->device, 4, &ctx->errors_dptr, NULL));
    fail_unless (plan_device_copy (ctx->device, PLAN_COPY_HOST_TO_DEVICE,
            ctx->errors_dptr, &zero, 4, NULL));
  }
  return ctx;
}

static gint
ctx_errors (Ctx * ctx)
{
  guint32 errors = 0;

  if (!ctx->cuda)
    return g_atomic_int_get (&ctx->errors);
  fail_unless (plan_device_copy (ctx->device, PLAN_COPY_DEVICE_TO_HOST,
          &errors, ctx->errors_dptr, 4, NULL));
  return (gint) errors;
}

static void
ctx_free (Ctx * ctx)
{
  if (ctx->errors_dptr)
    plan_device_free (ctx->device, ctx->errors_dptr);
  plan_clear_kernel (&ctx->fill);
  plan_clear_kernel (&ctx->check);
  gst_object_unref (ctx->device);
  g_free (ctx);
}

typedef struct
{
  Ctx *ctx;
  gsize n;
  guint32 value;
  guint spin_us;
} Job;

static void
host_fill (gpointer * ptrs, guint n_ptrs, gpointer user_data)
{
  Job *job = user_data;
  guint32 *data = ptrs[0];
  gsize i;

  /* Slow before writing: a reader that does not wait sees old data. */
  g_usleep (job->spin_us);
  for (i = 0; i < job->n; i++)
    data[i] = job->value;
}

static void
host_check (gpointer * ptrs, guint n_ptrs, gpointer user_data)
{
  Job *job = user_data;
  const guint32 *data = ptrs[0];
  gint bad = 0, pass;
  gsize i;

  /* Read, wait, read again: a writer reusing the memory too early shows. */
  for (pass = 0; pass < 2; pass++) {
    for (i = 0; i < job->n; i++)
      bad += data[i] != job->value;
    if (pass == 0)
      g_usleep (job->spin_us);
  }
  if (bad)
    g_atomic_int_add (&job->ctx->errors, bad);
}

/* Queues a write of @value into @n words at @dptr on @stream, after a
 * delay of about @spin_us. */
static void
queue_fill (Ctx * ctx, PlanStream * stream, gpointer dptr, gsize n,
    guint32 value, guint spin_us)
{
  GError *err = NULL;
  gboolean ok;

  if (ctx->cuda) {
    guint64 n64 = n;
    gint64 spin = (gint64) spin_us * 1500;
    gpointer args[] = { &dptr, &n64, &value, &spin };
    const guint grid[3] = { 64, 1, 1 }, block[3] = { 256, 1, 1 };

    ok = plan_stream_launch_kernel (stream, ctx->fill, grid, block, 0, args,
        &err);
  } else {
    Job *job = g_new (Job, 1);

    *job = (Job) {
    ctx, n, value, spin_us};
    ok = plan_stream_launch_host_kernel (stream, host_fill, &dptr, 1, job,
        g_free, &err);
  }
  fail_unless (ok, "%s", err ? err->message : "");
}

/* Queues a check that @n words at @dptr hold @value, read twice with a
 * delay of about @spin_us between; mismatches count in ctx_errors(). */
static void
queue_check (Ctx * ctx, PlanStream * stream, gpointer dptr, gsize n,
    guint32 value, guint spin_us)
{
  GError *err = NULL;
  gboolean ok;

  if (ctx->cuda) {
    guint64 n64 = n;
    gint64 spin = (gint64) spin_us * 1500;
    gpointer args[] = { &dptr, &n64, &value, &spin, &ctx->errors_dptr };
    const guint grid[3] = { 64, 1, 1 }, block[3] = { 256, 1, 1 };

    ok = plan_stream_launch_kernel (stream, ctx->check, grid, block, 0,
        args, &err);
  } else {
    Job *job = g_new (Job, 1);

    *job = (Job) {
    ctx, n, value, spin_us};
    ok = plan_stream_launch_host_kernel (stream, host_check, &dptr, 1, job,
        g_free, &err);
  }
  fail_unless (ok, "%s", err ? err->message : "");
}

#define WORDS 4096

/* A slow writer on one stream, a reader on another that waits on the
 * ready event of each buffer. Returns the number of words the reader got
 * wrong. */
static gint
run_ready_scenario (Ctx * ctx, guint iterations)
{
  PlanStream *writer, *reader;
  GstMemory **mems = g_new0 (GstMemory *, iterations);
  guint32 *out = g_new0 (guint32, (gsize) WORDS * iterations);
  gint wrong = 0;
  guint i;
  gsize j;

  writer = plan_stream_new (ctx->device, NULL);
  reader = plan_stream_new (ctx->device, NULL);
  fail_unless (writer && reader);

  for (i = 0; i < iterations; i++) {
    mems[i] = plan_device_allocator_alloc (ctx->device, WORDS * 4, NULL);
    fail_unless (mems[i] != NULL);
    queue_fill (ctx, writer, plan_device_memory_get_pointer (mems[i]),
        WORDS, i + 1, 2000);
    fail_unless (plan_device_memory_record_ready (mems[i], writer, NULL));

    fail_unless (plan_device_memory_wait_ready (mems[i], reader, NULL));
    fail_unless (plan_stream_copy (reader, PLAN_COPY_DEVICE_TO_HOST,
            out + (gsize) WORDS * i, plan_device_memory_get_pointer (mems[i]),
            WORDS * 4, NULL));
    fail_unless (plan_device_memory_record_use (mems[i], reader, NULL));
  }
  fail_unless (plan_stream_synchronize (reader, NULL));
  fail_unless (plan_stream_synchronize (writer, NULL));

  for (i = 0; i < iterations; i++) {
    for (j = 0; j < WORDS; j++)
      wrong += out[(gsize) WORDS * i + j] != i + 1;
    gst_memory_unref (mems[i]);
  }
  plan_stream_unref (writer);
  plan_stream_unref (reader);
  g_free (mems);
  g_free (out);
  return wrong;
}

/* A writer acquires buffers from a pool of @max_buffers and fills each; a
 * slow reader on another stream checks it; the host gives each buffer back
 * to the pool as soon as the reader's work is queued, so only the events
 * keep the writer from reusing a buffer under the reader. Returns the
 * words the reader saw change; *@pool_waits gets the pool's host waits. */
static gint
run_pool_scenario (Ctx * ctx, guint iterations, guint max_buffers,
    guint64 * pool_waits)
{
  PlanStream *writer, *reader;
  GstBufferPool *pool;
  GstStructure *config;
  guint i;

  writer = plan_stream_new (ctx->device, NULL);
  reader = plan_stream_new (ctx->device, NULL);
  pool = plan_buffer_pool_new (writer);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, NULL, WORDS * 4, 1, max_buffers);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));

  for (i = 0; i < iterations; i++) {
    GstBuffer *buf = NULL;
    GstMemory *mem;

    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf,
            NULL), GST_FLOW_OK);
    mem = gst_buffer_peek_memory (buf, 0);
    queue_fill (ctx, writer, plan_device_memory_get_pointer (mem), WORDS,
        i + 1, 0);
    fail_unless (plan_buffer_record_ready (buf, writer, NULL));

    fail_unless (plan_buffer_wait_ready (buf, reader, NULL));
    queue_check (ctx, reader, plan_device_memory_get_pointer (mem), WORDS,
        i + 1, 1500);
    fail_unless (plan_buffer_record_use (buf, reader, NULL));
    gst_buffer_unref (buf);
  }
  fail_unless (plan_stream_synchronize (reader, NULL));
  fail_unless (plan_stream_synchronize (writer, NULL));
  *pool_waits = plan_buffer_pool_get_host_waits (PLAN_BUFFER_POOL (pool));

  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  plan_stream_unref (writer);
  plan_stream_unref (reader);
  return ctx_errors (ctx);
}

GST_START_TEST (test_device_names)
{
  GError *err = NULL;
  PlanDevice *cpu, *cpu2;

  fail_unless (plan_device_name_is_valid ("cuda:3", NULL));
  fail_unless (plan_device_name_is_valid (NULL, NULL));
  fail_if (plan_device_name_is_valid ("gpu", &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT));
  fail_unless (strstr (err->message, "'gpu'") != NULL);
  g_clear_error (&err);
  fail_if (plan_device_name_is_valid ("cuda:x", &err));
  fail_unless (strstr (err->message, "cuda:x") != NULL);
  g_clear_error (&err);

  cpu = plan_device_get ("cpu", NULL);
  cpu2 = plan_device_get ("cpu", NULL);
  fail_unless (cpu != NULL && cpu == cpu2);
  fail_unless_equals_int (plan_device_get_kind (cpu), PLAN_DEVICE_KIND_CPU);
  fail_if (plan_device_is_gpu (cpu));
  fail_unless (plan_device_get_total_memory (cpu) > 0);
  gst_object_unref (cpu);
  gst_object_unref (cpu2);
}

GST_END_TEST;

GST_START_TEST (test_cuda_without_driver_says_what_is_missing)
{
  GError *err = NULL;
  PlanDevice *device;

  /* Point the loader at a driver that is not there, as on a machine
   * without the NVIDIA driver. */
  g_setenv ("GST_PLAN_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", TRUE);
  g_unsetenv (PLAN_DEVICE_ENV);
  device = plan_device_get ("cuda", &err);
  fail_unless (device == NULL);
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_DEVICE));
  fail_unless (strstr (err->message, "NVIDIA driver") != NULL, "%s",
      err->message);
  fail_unless (strstr (err->message, "libcuda.so.1") != NULL, "%s",
      err->message);
  fail_unless (strstr (err->message, "GST_PLAN_DEVICE=sim") != NULL, "%s",
      err->message);
  g_clear_error (&err);

  /* The CPU works all the same. */
  device = plan_device_get ("cpu", &err);
  fail_unless (device != NULL);
  gst_object_unref (device);
}

GST_END_TEST;

GST_START_TEST (test_env_makes_gpu_requests_sim)
{
  PlanDevice *device;

  g_setenv (PLAN_DEVICE_ENV, "sim", TRUE);
  device = plan_device_get ("cuda", NULL);
  fail_unless (device != NULL);
  fail_unless_equals_int (plan_device_get_kind (device), PLAN_DEVICE_KIND_SIM);
  fail_unless (plan_device_is_gpu (device));
  gst_object_unref (device);
  device = plan_device_get ("auto", NULL);
  fail_unless_equals_int (plan_device_get_kind (device), PLAN_DEVICE_KIND_SIM);
  gst_object_unref (device);
  /* cpu stays cpu */
  device = plan_device_get ("cpu", NULL);
  fail_unless_equals_int (plan_device_get_kind (device), PLAN_DEVICE_KIND_CPU);
  gst_object_unref (device);
  g_unsetenv (PLAN_DEVICE_ENV);
}

GST_END_TEST;

GST_START_TEST (test_device_queries)
{
  Ctx *ctx = ctx_new ();
  gint major = -1, minor = -1;

  fail_unless (plan_device_get_name (ctx->device) != NULL);
  fail_unless (plan_device_get_total_memory (ctx->device) > 0);
  plan_device_get_compute_capability (ctx->device, &major, &minor);
  if (ctx->cuda)
    fail_unless (major >= 3);
  else
    fail_unless_equals_int (major, 0);
  ctx_free (ctx);
}

GST_END_TEST;

GST_START_TEST (test_copies_round_trip)
{
  Ctx *ctx = ctx_new ();
  static const gsize sizes[] = { 1, 7, 4096, 1 << 20 };
  PlanStream *stream = plan_stream_new (ctx->device, NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    gsize size = sizes[i], j;
    guint8 *in = g_malloc (size), *out = g_malloc0 (size);
    gpointer a, b;

    for (j = 0; j < size; j++)
      in[j] = (guint8) (j * 7 + i);
    fail_unless (plan_device_alloc (ctx->device, size, &a, NULL));
    fail_unless (plan_device_alloc (ctx->device, size, &b, NULL));
    fail_unless (plan_stream_copy (stream, PLAN_COPY_HOST_TO_DEVICE, a, in,
            size, NULL));
    fail_unless (plan_stream_copy (stream, PLAN_COPY_DEVICE_TO_DEVICE, b, a,
            size, NULL));
    fail_unless (plan_stream_copy (stream, PLAN_COPY_DEVICE_TO_HOST, out, b,
            size, NULL));
    fail_unless (plan_stream_synchronize (stream, NULL));
    fail_unless (memcmp (in, out, size) == 0);
    plan_device_free (ctx->device, a);
    plan_device_free (ctx->device, b);
    g_free (in);
    g_free (out);
  }
  plan_stream_unref (stream);
  ctx_free (ctx);
}

GST_END_TEST;

GST_START_TEST (test_pinned_host_memory)
{
  Ctx *ctx = ctx_new ();
  GstMemory *mem = plan_host_allocator_alloc (ctx->device, 1000, NULL);
  GstMapInfo map;

  fail_unless (mem != NULL);
  fail_unless (plan_is_host_memory (mem));
  fail_unless (gst_allocator_find (PLAN_HOST_MEMORY_TYPE_NAME) != NULL);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READWRITE));
  memset (map.data, 0x5a, map.size);
  gst_memory_unmap (mem, &map);
  gst_memory_unref (mem);
  ctx_free (ctx);
}

GST_END_TEST;

GST_START_TEST (test_event_orders_two_streams)
{
  Ctx *ctx = ctx_new ();

  fail_unless_equals_int (run_ready_scenario (ctx, 8), 0);
  ctx_free (ctx);
}

GST_END_TEST;

GST_START_TEST (test_event_query_and_synchronize)
{
  Ctx *ctx = ctx_new ();
  PlanStream *stream = plan_stream_new (ctx->device, NULL);
  PlanEvent *never = plan_event_new (ctx->device, NULL);
  PlanEvent *event;
  gpointer dptr;

  /* an event never recorded is done */
  fail_unless (plan_event_query (never));
  fail_unless (plan_device_alloc (ctx->device, WORDS * 4, &dptr, NULL));
  queue_fill (ctx, stream, dptr, WORDS, 1, 200000);
  event = plan_stream_record (stream, NULL);
  fail_unless (event != NULL);
  /* the fill sleeps 200 ms before it is done */
  fail_if (plan_event_query (event));
  fail_unless (plan_event_synchronize (event, NULL));
  fail_unless (plan_event_query (event));
  plan_event_unref (event);
  plan_event_unref (never);
  plan_device_free (ctx->device, dptr);
  plan_stream_unref (stream);
  ctx_free (ctx);
}

GST_END_TEST;

GST_START_TEST (test_sim_orders_streams_under_many_seeds)
{
  guint seed;

  /* Each seed gives other delays, so other interleavings of the two
   * streams; every one must give the right data. */
  for (seed = 1; seed <= 6; seed++) {
    gchar *s = g_strdup_printf ("%u", seed);
    Ctx *ctx;

    g_setenv (PLAN_SIM_SEED_ENV, s, TRUE);
    ctx = ctx_new ();
    fail_unless (strstr (plan_device_get_name (ctx->device), s) != NULL);
    fail_unless_equals_int (run_ready_scenario (ctx, 4), 0);
    ctx_free (ctx);
    g_free (s);
  }
  g_unsetenv (PLAN_SIM_SEED_ENV);
}

GST_END_TEST;

GST_START_TEST (test_missing_ready_wait_is_caught)
{
  Ctx *ctx = ctx_new ();

  /* The test hook removes the reader's wait: the scenario that passes
   * above must now see wrong data. */
  fail_unless (plan_device_sim_skip_waits (ctx->device, PLAN_WAIT_SITE_READY));
  fail_unless (run_ready_scenario (ctx, 4) > 0);
  plan_device_sim_skip_waits (ctx->device, 0);
  ctx_free (ctx);
}

GST_END_TEST;

GST_START_TEST (test_pool_reuse_waits_for_slow_reader)
{
  Ctx *ctx = ctx_new ();
  guint64 waits = 99;

  /* Two buffers, 24 chunks, a reader slower than the writer: no buffer may
   * be rewritten before its last read ended. */
  fail_unless_equals_int (run_pool_scenario (ctx, 24, 2, &waits), 0);
  /* The host gives buffers back at once, so the pool never ran out and
   * the host never waited on it: reuse was ordered on the device. */
  fail_unless_equals_uint64 (waits, 0);
  ctx_free (ctx);
}

GST_END_TEST;

GST_START_TEST (test_missing_pool_wait_is_caught)
{
  Ctx *ctx = ctx_new ();
  guint64 waits;

  fail_unless (plan_device_sim_skip_waits (ctx->device,
          PLAN_WAIT_SITE_POOL_REUSE));
  fail_unless (run_pool_scenario (ctx, 24, 2, &waits) > 0);
  ctx_free (ctx);
}

GST_END_TEST;

static gpointer
acquire_thread (gpointer data)
{
  GstBuffer *buf = NULL;

  gst_buffer_pool_acquire_buffer (data, &buf, NULL);
  return buf;
}

GST_START_TEST (test_pool_blocks_when_exhausted)
{
  Ctx *ctx = ctx_new ();
  PlanStream *stream = plan_stream_new (ctx->device, NULL);
  GstBufferPool *pool = plan_buffer_pool_new (stream);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstBuffer *a = NULL, *b = NULL, *c;
  GstBufferPoolAcquireParams dontwait = { 0, };
  GThread *thread;
  GstStructure *stats;
  guint64 peak;

  plan_device_reset_peak_memory (ctx->device);
  gst_buffer_pool_config_set_params (config, NULL, 1000, 0, 2);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &a, NULL),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &b, NULL),
      GST_FLOW_OK);
  fail_unless (plan_buffer_is_device (a));
  dontwait.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &c,
          &dontwait), GST_FLOW_EOS);

  thread = g_thread_new ("acquire", acquire_thread, pool);
  /* the thread blocks until a buffer comes back */
  while (plan_buffer_pool_get_host_waits (PLAN_BUFFER_POOL (pool)) == 0)
    g_thread_yield ();
  gst_buffer_unref (a);
  c = g_thread_join (thread);
  fail_unless (c != NULL);
  fail_unless_equals_uint64 (plan_buffer_pool_get_host_waits
      (PLAN_BUFFER_POOL (pool)), 1);

  /* the pool never held more than its two buffers */
  stats = plan_device_get_stats (ctx->device);
  fail_unless (gst_structure_get_uint64 (stats, "peak-bytes", &peak));
  fail_unless (peak <= 2000 + (ctx->cuda ? 4 : 0), "peak %" G_GUINT64_FORMAT,
      peak);
  gst_structure_free (stats);

  gst_buffer_unref (b);
  gst_buffer_unref (c);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  plan_stream_unref (stream);
  ctx_free (ctx);
}

GST_END_TEST;

GST_START_TEST (test_pool_rejects_unbounded_config)
{
  Ctx *ctx = ctx_new ();
  PlanStream *stream = plan_stream_new (ctx->device, NULL);
  GstBufferPool *pool = plan_buffer_pool_new (stream);
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, NULL, 1000, 0, 0);
  fail_if (gst_buffer_pool_set_config (pool, config));
  gst_object_unref (pool);
  plan_stream_unref (stream);
  ctx_free (ctx);
}

GST_END_TEST;

GST_START_TEST (test_device_memory_map_waits_for_writer)
{
  Ctx *ctx = ctx_new ();
  PlanStream *stream = plan_stream_new (ctx->device, NULL);
  GstMemory *mem = plan_device_allocator_alloc (ctx->device, WORDS * 4, NULL);
  GstStructure *stats;
  guint64 waits_before, waits_after;
  GstMapInfo map;
  gsize i;
  gint bad = 0;

  fail_unless (mem != NULL);
  fail_unless (plan_is_device_memory (mem));
  fail_unless (gst_allocator_find (PLAN_DEVICE_MEMORY_TYPE_NAME) != NULL);

  /* a slow write, then a plain map: the map must wait for it */
  queue_fill (ctx, stream, plan_device_memory_get_pointer (mem), WORDS, 42,
      50000);
  fail_unless (plan_device_memory_record_ready (mem, stream, NULL));
  stats = plan_device_get_stats (ctx->device);
  gst_structure_get_uint64 (stats, "host-waits", &waits_before);
  gst_structure_free (stats);

  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  for (i = 0; i < WORDS; i++)
    bad += ((guint32 *) map.data)[i] != 42;
  gst_memory_unmap (mem, &map);
  fail_unless_equals_int (bad, 0);

  stats = plan_device_get_stats (ctx->device);
  gst_structure_get_uint64 (stats, "host-waits", &waits_after);
  gst_structure_free (stats);
  fail_unless (waits_after > waits_before);

  /* a write map is copied back to the device */
  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  ((guint32 *) map.data)[5] = 7;
  gst_memory_unmap (mem, &map);
  queue_check (ctx, stream, plan_device_memory_get_pointer (mem), 5, 42, 0);
  fail_unless (plan_stream_synchronize (stream, NULL));
  fail_unless_equals_int (ctx_errors (ctx), 0);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  fail_unless_equals_int (((guint32 *) map.data)[5], 7);
  gst_memory_unmap (mem, &map);

  /* PLAN_MAP_DEVICE gives the device pointer */
  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ | PLAN_MAP_DEVICE));
  fail_unless (map.data == plan_device_memory_get_pointer (mem));
  gst_memory_unmap (mem, &map);

  gst_memory_unref (mem);
  plan_stream_unref (stream);
  ctx_free (ctx);
}

GST_END_TEST;

GST_START_TEST (test_device_memory_copy_and_share)
{
  Ctx *ctx = ctx_new ();
  GstMemory *mem = plan_device_allocator_alloc (ctx->device, 16, NULL);
  GstMemory *copy, *part;
  GstMapInfo map;
  guint8 i;

  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  for (i = 0; i < 16; i++)
    map.data[i] = i;
  gst_memory_unmap (mem, &map);

  copy = gst_memory_copy (mem, 4, 8);
  fail_unless (copy != NULL && plan_is_device_memory (copy));
  fail_unless (gst_memory_map (copy, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 8);
  fail_unless_equals_int (map.data[0], 4);
  fail_unless_equals_int (map.data[7], 11);
  gst_memory_unmap (copy, &map);

  part = gst_memory_share (mem, 10, 2);
  fail_unless (gst_memory_map (part, &map, GST_MAP_READ));
  fail_unless_equals_int (map.data[0], 10);
  gst_memory_unmap (part, &map);
  fail_unless (plan_device_memory_get_pointer (part) ==
      (guint8 *) plan_device_memory_get_pointer (mem) + 10);

  gst_memory_unref (part);
  gst_memory_unref (copy);
  gst_memory_unref (mem);
  ctx_free (ctx);
}

GST_END_TEST;

GST_START_TEST (test_sim_device_pointer_faults_on_host)
{
  PlanDevice *device = plan_device_get ("sim", NULL);
  gpointer dptr;

  fail_unless (plan_device_alloc (device, 64, &dptr, NULL));
  /* Host code must not touch device memory: the sim device makes this a
   * segmentation fault. */
  ((volatile guint8 *) dptr)[0] = 1;
  fail ("writing through a sim device pointer did not fault");
}

GST_END_TEST;

GST_START_TEST (test_sim_rejects_stray_device_pointer)
{
  PlanDevice *device = plan_device_get ("sim", NULL);
  PlanStream *stream = plan_stream_new (device, NULL);
  GError *err = NULL;
  guint8 host[16];
  gpointer dptr;

  fail_unless (plan_device_alloc (device, 16, &dptr, NULL));
  /* past the end of the allocation */
  fail_if (plan_stream_copy (stream, PLAN_COPY_DEVICE_TO_HOST, host,
          (guint8 *) dptr + 8, 16, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_DEVICE));
  fail_unless (strstr (err->message, "not inside") != NULL, "%s", err->message);
  g_clear_error (&err);
  plan_device_free (device, dptr);
  plan_stream_unref (stream);
  gst_object_unref (device);
}

GST_END_TEST;

GST_START_TEST (test_sim_out_of_memory)
{
  PlanDevice *device = plan_device_get ("sim", NULL);
  GError *err = NULL;
  gpointer a = NULL, b = NULL;

  fail_unless (plan_device_sim_set_memory_limit (device, 1000));
  fail_unless (plan_device_alloc (device, 600, &a, NULL));
  fail_if (plan_device_alloc (device, 600, &b, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_DEVICE));
  fail_unless (strstr (err->message, "out of device memory") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  plan_device_free (device, a);
  fail_unless (plan_device_alloc (device, 600, &b, NULL));
  plan_device_free (device, b);

  fail_unless (plan_device_sim_set_memory_limit (device, 0));
  fail_unless (plan_device_sim_inject_fault (device, PLAN_SIM_FAULT_ALLOC, 1));
  fail_unless (plan_device_alloc (device, 8, &a, NULL));
  fail_if (plan_device_alloc (device, 8, &b, &err));
  fail_unless (strstr (err->message, "out of device memory") != NULL);
  g_clear_error (&err);
  plan_device_free (device, a);
  gst_object_unref (device);
}

GST_END_TEST;

static void
count_destroy (gpointer data)
{
  g_atomic_int_inc ((gint *) data);
}

static void
nothing (gpointer * ptrs, guint n_ptrs, gpointer user_data)
{
}

GST_START_TEST (test_sim_failed_launch)
{
  PlanDevice *device = plan_device_get ("sim", NULL);
  PlanStream *stream = plan_stream_new (device, NULL);
  GError *err = NULL;
  gint destroyed = 0;
  gpointer dptr;

  fail_unless (plan_device_alloc (device, 8, &dptr, NULL));
  fail_unless (plan_device_sim_inject_fault (device, PLAN_SIM_FAULT_LAUNCH, 0));
  fail_if (plan_stream_launch_host_kernel (stream, nothing, &dptr, 1,
          &destroyed, count_destroy, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_DEVICE));
  fail_unless (strstr (err->message, "Launching a kernel") != NULL);
  g_clear_error (&err);
  /* the user data is released even though the launch failed */
  fail_unless_equals_int (destroyed, 1);
  /* the next launch works */
  fail_unless (plan_stream_launch_host_kernel (stream, nothing, &dptr, 1,
          &destroyed, count_destroy, NULL));
  fail_unless (plan_stream_synchronize (stream, NULL));
  fail_unless_equals_int (destroyed, 2);

  /* sim runs no PTX */
  fail_unless (plan_kernel_new (device, "x", 1, "f", &err) == NULL);
  fail_unless (strstr (err->message, "host kernels") != NULL);
  g_clear_error (&err);

  plan_device_free (device, dptr);
  plan_stream_unref (stream);
  gst_object_unref (device);
}

GST_END_TEST;

/* A host kernel that fails, as plancustom's does: on the stream's worker,
 * where it records the failure on the stream. */
typedef struct
{
  gint chunk;
  PlanStream *stream;
} FailingJob;

static void
failing_kernel (gpointer * ptrs, guint n_ptrs, gpointer user_data)
{
  FailingJob *job = user_data;
  GError *err = g_error_new (PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
      "bad value in chunk %d", job->chunk);

  plan_stream_set_error (job->stream, err);
  g_error_free (err);
}

GST_START_TEST (test_sim_kernel_failure_reported_at_synchronize)
{
  PlanDevice *device = plan_device_get ("sim", NULL);
  PlanStream *stream = plan_stream_new (device, NULL);
  FailingJob jobs[2];
  GError *err = NULL;
  gpointer dptr;
  guint i;

  fail_unless (plan_device_alloc (device, 8, &dptr, NULL));
  /* no failure yet */
  fail_unless (plan_stream_check_error (stream, NULL));
  fail_unless (plan_stream_launch_host_kernel (stream, nothing, &dptr, 1,
          NULL, NULL, NULL));
  fail_unless (plan_stream_synchronize (stream, NULL));

  /* two failing kernels: the first failure is the one kept */
  for (i = 0; i < 2; i++) {
    jobs[i].chunk = i + 1;
    jobs[i].stream = stream;
    fail_unless (plan_stream_launch_host_kernel (stream, failing_kernel,
            &dptr, 1, &jobs[i], NULL, NULL));
  }
  fail_if (plan_stream_synchronize (stream, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT));
  fail_unless_equals_string (err->message, "bad value in chunk 1");
  g_clear_error (&err);

  /* sticky: later checks and synchronizations report it again */
  fail_if (plan_stream_check_error (stream, &err));
  fail_unless_equals_string (err->message, "bad value in chunk 1");
  g_clear_error (&err);
  fail_if (plan_stream_synchronize (stream, NULL));

  plan_device_free (device, dptr);
  plan_stream_unref (stream);
  gst_object_unref (device);
}

GST_END_TEST;

GST_START_TEST (test_cpu_backend_runs_at_once)
{
  PlanDevice *device = plan_device_get ("cpu", NULL);
  PlanStream *stream = plan_stream_new (device, NULL);
  guint32 in[4] = { 1, 2, 3, 4 }, out[4] = { 0 };
  PlanEvent *event;
  gpointer dptr;

  fail_unless (plan_device_alloc (device, sizeof (in), &dptr, NULL));
  fail_unless (plan_stream_copy (stream, PLAN_COPY_HOST_TO_DEVICE, dptr, in,
          sizeof (in), NULL));
  event = plan_stream_record (stream, NULL);
  fail_unless (plan_event_query (event));
  fail_unless (plan_stream_copy (stream, PLAN_COPY_DEVICE_TO_HOST, out,
          dptr, sizeof (in), NULL));
  fail_unless (memcmp (in, out, sizeof (in)) == 0);
  plan_event_unref (event);
  plan_device_free (device, dptr);
  /* The sim device's test control is not the cpu backend's. */
  fail_if (plan_device_sim_inject_fault (device, PLAN_SIM_FAULT_ALLOC, 0));
  fail_if (plan_device_sim_set_memory_limit (device, 1));
  fail_if (plan_device_sim_skip_waits (device, PLAN_WAIT_SITE_READY));
  plan_stream_unref (stream);
  gst_object_unref (device);
}

GST_END_TEST;

static Suite *
device_suite (void)
{
  Suite *s = suite_create ("device");
  TCase *tc = tcase_create ("general");
  gboolean sim = g_str_equal (test_device_name (), "sim");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_device_queries);
  tcase_add_test (tc, test_copies_round_trip);
  tcase_add_test (tc, test_pinned_host_memory);
  tcase_add_test (tc, test_event_orders_two_streams);
  tcase_add_test (tc, test_event_query_and_synchronize);
  tcase_add_test (tc, test_pool_reuse_waits_for_slow_reader);
  tcase_add_test (tc, test_pool_blocks_when_exhausted);
  tcase_add_test (tc, test_pool_rejects_unbounded_config);
  tcase_add_test (tc, test_device_memory_map_waits_for_writer);
  tcase_add_test (tc, test_device_memory_copy_and_share);
  if (sim) {
    tcase_add_test (tc, test_device_names);
    tcase_add_test (tc, test_cuda_without_driver_says_what_is_missing);
    tcase_add_test (tc, test_env_makes_gpu_requests_sim);
    tcase_add_test (tc, test_sim_orders_streams_under_many_seeds);
    tcase_add_test (tc, test_missing_ready_wait_is_caught);
    tcase_add_test (tc, test_missing_pool_wait_is_caught);
    tcase_add_test_raise_signal (tc, test_sim_device_pointer_faults_on_host,
        SIGSEGV);
    tcase_add_test (tc, test_sim_rejects_stray_device_pointer);
    tcase_add_test (tc, test_sim_out_of_memory);
    tcase_add_test (tc, test_sim_failed_launch);
    tcase_add_test (tc, test_sim_kernel_failure_reported_at_synchronize);
    tcase_add_test (tc, test_cpu_backend_runs_at_once);
  }
  return s;
}

/* Whether a CUDA device opens, tried in a child process: CUDA does not
 * survive the fork of each test, so the parent must not initialise it. */
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
  s = device_suite ();
  return gst_check_run_suite (s, "device", __FILE__);
}
