/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* planreduce target=cuda on the sim device (GST_PLAN_DEVICE=sim), or on
 * the GPU in the _cuda build (PLAN_TEST_DEVICE=cuda), against target=cpu,
 * bit for bit: every op, dtype and axis, in chunks that cut
 * blocks, input in system and in device memory, the map before the
 * reduction, a failed launch and device OOM as element errors. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <glib/gstdio.h>
#ifndef PLAN_USE_UNSTABLE_API
#define PLAN_USE_UNSTABLE_API
#endif
#include <libplan/plan.h>
#include <libplan/device/plan-testing.h>
#include <libplan/device/plannvrtc.h>
#include "libplan/reduce/planreducer-private.h"
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

/* PLAN_TEST_DEVICE=cuda (the _cuda build): on the GPU, else on sim. */
static gboolean on_cuda;

static PlanDevice *
test_device (void)
{
  PlanDevice *device = plan_device_get (on_cuda ? "cuda" : "sim", NULL);

  fail_unless (device != NULL);
  return device;
}

static const gchar *const ops[] = {
  "sum", "prod", "min", "max", "mean", "argmin", "argmax", "any", "all",
  "nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanargmin",
  "nanargmax", "var", "std", "nanvar", "nanstd", "count_nonzero", "ptp",
};

static const gchar *const dtypes[] = {
  "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
  "uint64", "float32", "float64",
};

/* Values of each dtype with some NaNs, zeros and large magnitudes. */
static guint8 *
make_data (PlanDType dtype, gsize n)
{
  gsize size = plan_dtype_get_size (dtype), i;
  guint8 *out = g_malloc (n * size);
  GRand *rand = g_rand_new_with_seed (5 + dtype);

  for (i = 0; i < n; i++) {
    gdouble d = g_rand_double_range (rand, -1.0, 1.0);
    gint32 k = g_rand_int_range (rand, -100, 100);

    switch (dtype) {
      case PLAN_DTYPE_FLOAT32:
        ((gfloat *) out)[i] = i % 41 == 9 ? NAN : (gfloat) (100.0 + d);
        break;
      case PLAN_DTYPE_FLOAT64:
        ((gdouble *) out)[i] = i % 43 == 9 ? NAN : 1e8 + d;
        break;
      case PLAN_DTYPE_BOOL:
        out[i] = k > 0;
        break;
      default:{
        gint64 v = (gint64) k * (gint64) (1ull << (size * 8 - 8));

        memcpy (out + i * size, &v, size);
        break;
      }
    }
  }
  g_rand_free (rand);
  return out;
}

typedef struct
{
  gboolean ok;
  gchar *error;
  GByteArray *bytes;
} Outcome;

/* planreduce @props on @n_rows rows of @caps from @data in buffers of
 * @chunk rows; @upload: the buffers arrive in device memory. */
static void
run (const gchar * caps, const guint8 * data, gsize n_rows, gsize row_size,
    gsize chunk, const gchar * const *props, Outcome * o)
{
  GstElement *reduce = gst_element_factory_make ("planreduce", NULL);
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GstBuffer *buf;
  GstMessage *msg;
  gsize i;

  /* The properties before the harness starts the element: the target is
   * read when it starts. */
  for (; props[0]; props += 2)
    gst_util_set_object_arg (G_OBJECT (reduce), props[0], props[1]);
  gst_util_set_object_arg (G_OBJECT (reduce), "post-messages", "false");
  gst_element_set_bus (reduce, bus);
  h = gst_harness_new_with_element (reduce, "sink", "src");
  gst_object_unref (reduce);
  gst_harness_set_src_caps_str (h, caps);
  /* a sink in system memory, as a file sink */
  gst_harness_set_sink_caps_str (h, "array/x-raw");
  o->ok = TRUE;
  o->error = NULL;
  o->bytes = g_byte_array_new ();
  for (i = 0; i < n_rows && o->ok; i += chunk) {
    gsize n = MIN (chunk, n_rows - i);

    buf = gst_buffer_new_memdup (data + i * row_size, n * row_size);
    GST_BUFFER_OFFSET (buf) = i;
    GST_BUFFER_OFFSET_END (buf) = i + n;
    o->ok = gst_harness_push (h, buf) == GST_FLOW_OK;
  }
  if (o->ok)
    gst_harness_push_event (h, gst_event_new_eos ());
  /* Buffers until EOS or an error (after which no EOS comes). */
  for (i = 0; i < 20000; i++) {
    GstEvent *ev;
    gboolean eos = FALSE;

    /* Events first: the buffers before an EOS seen here are queued by
     * then, and the pull below takes them. */
    while ((ev = gst_harness_try_pull_event (h)) != NULL) {
      eos = eos || GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
      gst_event_unref (ev);
    }
    while ((buf = gst_harness_try_pull (h)) != NULL) {
      GstMapInfo map;

      fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
      g_byte_array_append (o->bytes, map.data, map.size);
      gst_buffer_unmap (buf, &map);
      gst_buffer_unref (buf);
    }
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (msg) {
      GError *err = NULL;

      gst_message_parse_error (msg, &err, NULL);
      o->ok = FALSE;
      o->error = g_strdup (err->message);
      g_error_free (err);
      gst_message_unref (msg);
      break;
    }
    if (eos)
      break;
    g_usleep (500);
  }
  fail_unless (i < 20000, "neither EOS nor an error");
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

static void
outcome_clear (Outcome * o)
{
  g_free (o->error);
  g_byte_array_unref (o->bytes);
}

/* Whether @got holds @want's results of @dtype: the same bits, except that
 * on a GPU a NaN may have another sign or payload than the CPU's. */
static gboolean
same_results (const GByteArray * got, const GByteArray * want,
    PlanDType dtype)
{
  gsize i, es = plan_dtype_get_size (dtype);

  if (got->len != want->len)
    return FALSE;
  if (memcmp (got->data, want->data, want->len) == 0)
    return TRUE;
  if (!on_cuda || !plan_dtype_is_float (dtype))
    return FALSE;
  for (i = 0; i < want->len; i += es) {
    gdouble a, b;

    if (dtype == PLAN_DTYPE_FLOAT32) {
      a = *(const gfloat *) (got->data + i);
      b = *(const gfloat *) (want->data + i);
    } else {
      a = *(const gdouble *) (got->data + i);
      b = *(const gdouble *) (want->data + i);
    }
    if (isnan (a) && isnan (b))
      continue;
    if (memcmp (got->data + i, want->data + i, es) != 0)
      return FALSE;
  }
  return TRUE;
}

static PlanDType
result_dtype (const gchar * op, PlanDType input)
{
  GEnumClass *klass = g_type_class_ref (PLAN_TYPE_REDUCE_OP);
  GEnumValue *v = g_enum_get_value_by_nick (klass, op);
  PlanDType d;

  fail_unless (v != NULL);
  d = plan_reduce_op_get_result_dtype (v->value, input);
  g_type_class_unref (klass);
  return d;
}

static void
compare_targets (const gchar * axis, guint ndim, gsize n_rows, gsize inner,
    const gsize * chunks, guint n_chunks)
{
  guint d, o, c;

  for (d = 0; d < G_N_ELEMENTS (dtypes); d++) {
    PlanDType dt = plan_dtype_from_string (dtypes[d]);
    gsize es = plan_dtype_get_size (dt);
    guint8 *data = make_data (dt, n_rows * inner);
    gchar *caps = ndim == 1 ?
        g_strdup_printf ("array/x-raw, dtype=%s, shape=<%" G_GSIZE_FORMAT
        ">", dtypes[d], n_rows) :
        g_strdup_printf ("array/x-raw, dtype=%s, shape=<%" G_GSIZE_FORMAT
        ", %" G_GSIZE_FORMAT ">", dtypes[d], n_rows, inner);

    for (o = 0; o < G_N_ELEMENTS (ops); o++) {
      const gchar *cpu[] = { "op", ops[o], "axis", axis, "target", "cpu",
        "ddof", "1", NULL
      };
      Outcome want;

      if (dt == PLAN_DTYPE_BOOL && g_str_equal (ops[o], "ptp"))
        continue;
      run (caps, data, n_rows, inner * es, n_rows, cpu, &want);
      for (c = 0; c < n_chunks; c++) {
        const gchar *gpu[] = { "op", ops[o], "axis", axis, "target", "cuda",
          "ddof", "1", NULL
        };
        Outcome got;

        run (caps, data, n_rows, inner * es, chunks[c], gpu, &got);
        fail_unless (got.ok == want.ok, "%s %s axis %s: %s / %s", ops[o],
            dtypes[d], axis, got.error, want.error);
        if (want.ok) {
          fail_unless_equals_uint64 (got.bytes->len, want.bytes->len);
          fail_unless (same_results (got.bytes, want.bytes,
                  result_dtype (ops[o], dt)), "%s on %s, axis %s, chunks of %"
              G_GSIZE_FORMAT ": target=cuda is not target=cpu's bits",
              ops[o], dtypes[d], axis, chunks[c]);
        } else {
          fail_unless_equals_string (got.error, want.error);
        }
        outcome_clear (&got);
      }
      outcome_clear (&want);
    }
    g_free (caps);
    g_free (data);
  }
}

GST_START_TEST (test_all_axis_equals_cpu)
{
  const gsize chunks[] = { 2500, 777 };

  compare_targets ("all", 1, 5001, 1, chunks, 2);
}

GST_END_TEST;

GST_START_TEST (test_axis_0_equals_cpu)
{
  const gsize chunks[] = { 50, 7 };

  compare_targets ("0", 2, 150, 6, chunks, 2);
}

GST_END_TEST;

GST_START_TEST (test_axis_minus_1_equals_cpu)
{
  const gsize chunks[] = { 3, 2 };

  compare_targets ("-1", 2, 5, 2100, chunks, 2);
}

GST_END_TEST;

/* The map runs as a kernel before the reduction, and gives the bits of the
 * CPU's fused map. */
GST_START_TEST (test_map_before_reduction_equals_cpu)
{
  guint8 *data = make_data (PLAN_DTYPE_FLOAT32, 6000);
  const gchar *cpu[] = { "op", "sum", "map", "x*x + 1", "target", "cpu",
    NULL
  };
  const gchar *gpu[] = { "op", "sum", "map", "x*x + 1", "target", "cuda",
    NULL
  };
  Outcome want, got;
  guint i;

  /* No NaNs: a NaN sum would compare only NaN payloads (a GPU's differ
   * from the CPU's), not the rounding of the map and the sum. */
  for (i = 0; i < 6000; i++)
    if (isnan (((gfloat *) data)[i]))
      ((gfloat *) data)[i] = 0.5f + i;
  run ("array/x-raw, dtype=float32, shape=<6000>", data, 6000, 4, 6000, cpu,
      &want);
  run ("array/x-raw, dtype=float32, shape=<6000>", data, 6000, 4, 1001, gpu,
      &got);
  fail_unless (want.ok && got.ok);
  fail_unless_equals_uint64 (got.bytes->len, 4);
  fail_unless (memcmp (got.bytes->data, want.bytes->data, 4) == 0);
  outcome_clear (&want);
  outcome_clear (&got);
  g_free (data);
}

GST_END_TEST;

/* A custom combiner runs on the device too (its kernels generated from
 * the combiner), with the CPU's result: one copy comes back. */
GST_START_TEST (test_custom_combiner_on_device)
{
  guint8 *data = make_data (PLAN_DTYPE_INT32, 5000);
  const gchar *cpu[] = { "expr", "max(x, y)", "identity", "-2147483648",
    "target", "cpu", NULL
  };
  const gchar *gpu[] = { "expr", "max(x, y)", "identity", "-2147483648",
    "target", "cuda", NULL
  };
  PlanDevice *device = test_device ();
  GstStructure *before, *after;
  guint64 d2h0 = 0, d2h1 = 0;
  Outcome want, got;

  run ("array/x-raw, dtype=int32, shape=<5000>", data, 5000, 4, 5000, cpu,
      &want);
  before = plan_device_get_stats (device);
  run ("array/x-raw, dtype=int32, shape=<5000>", data, 5000, 4, 999, gpu,
      &got);
  after = plan_device_get_stats (device);
  gst_structure_get_uint64 (before, "d2h-transfers", &d2h0);
  gst_structure_get_uint64 (after, "d2h-transfers", &d2h1);
  fail_unless_equals_uint64 (d2h1 - d2h0, 2);
  gst_structure_free (before);
  gst_structure_free (after);
  gst_object_unref (device);
  fail_unless (want.ok && got.ok, "%s", got.error);
  fail_unless_equals_uint64 (got.bytes->len, 4);
  fail_unless (memcmp (got.bytes->data, want.bytes->data, 4) == 0);
  outcome_clear (&want);
  outcome_clear (&got);
  g_free (data);
}

GST_END_TEST;

/* Only the result comes back: one device-to-host copy of the value (and
 * one of the error flag) for a whole stream, whatever its chunks. */
GST_START_TEST (test_only_the_result_comes_back)
{
  PlanDevice *device = test_device ();
  guint8 *data = make_data (PLAN_DTYPE_FLOAT64, 20000);
  const gchar *gpu[] = { "op", "mean", "target", "cuda", NULL };
  GstStructure *before, *after;
  guint64 d2h0 = 0, d2h1 = 0, bytes0 = 0, bytes1 = 0;
  Outcome got;

  before = plan_device_get_stats (device);
  run ("array/x-raw, dtype=float64, shape=<20000>", data, 20000, 8, 1000,
      gpu, &got);
  after = plan_device_get_stats (device);
  fail_unless (got.ok, "%s", got.error);
  gst_structure_get_uint64 (before, "d2h-transfers", &d2h0);
  gst_structure_get_uint64 (after, "d2h-transfers", &d2h1);
  gst_structure_get_uint64 (before, "d2h-bytes", &bytes0);
  gst_structure_get_uint64 (after, "d2h-bytes", &bytes1);
  fail_unless (d2h1 - d2h0 == 2 && bytes1 - bytes0 == 16,
      "%" G_GUINT64_FORMAT " copies of %" G_GUINT64_FORMAT " bytes",
      d2h1 - d2h0, bytes1 - bytes0);
  gst_structure_free (before);
  gst_structure_free (after);
  outcome_clear (&got);
  g_free (data);
  gst_object_unref (device);
}

GST_END_TEST;

GST_START_TEST (test_failed_launch_is_an_element_error)
{
  guint8 *data = make_data (PLAN_DTYPE_FLOAT32, 8000);
  const gchar *gpu[] = { "op", "sum", "target", "cuda", NULL };
  Outcome got;

  g_setenv ("GST_PLAN_SIM_FAULT", "launch:3", TRUE);
  run ("array/x-raw, dtype=float32, shape=<8000>", data, 8000, 4, 1000, gpu,
      &got);
  fail_if (got.ok);
  fail_unless (strstr (got.error, "Could not run the kernel") != NULL, "%s",
      got.error);
  fail_unless_equals_uint64 (got.bytes->len, 0);
  outcome_clear (&got);
  g_unsetenv ("GST_PLAN_SIM_FAULT");
  g_free (data);
}

GST_END_TEST;

GST_START_TEST (test_device_oom_is_an_element_error)
{
  guint8 *data = make_data (PLAN_DTYPE_FLOAT32, 8000);
  const gchar *gpu[] = { "op", "sum", "target", "cuda", NULL };
  Outcome got;

  g_setenv ("GST_PLAN_SIM_FAULT", "alloc:3", TRUE);
  run ("array/x-raw, dtype=float32, shape=<8000>", data, 8000, 4, 4000, gpu,
      &got);
  fail_if (got.ok);
  fail_unless (got.error != NULL);
  fail_unless_equals_uint64 (got.bytes->len, 0);
  outcome_clear (&got);
  g_unsetenv ("GST_PLAN_SIM_FAULT");
  g_free (data);
}

GST_END_TEST;

/* Writes @n float64 values as a .npy file. */
static gchar *
write_npy (const gchar * name, const gdouble * x, gsize n)
{
  gchar *base = g_strdup_printf ("planreducedevice-%s-%d.npy", name,
      (gint) getpid ());
  gchar *path = g_build_filename (g_get_tmp_dir (), base, NULL);
  GString *h = g_string_new (NULL);
  GByteArray *file = g_byte_array_new ();
  guint16 len;

  g_string_printf (h, "{'descr': '<f8', 'fortran_order': False, 'shape': "
      "(%" G_GSIZE_FORMAT ",), }", n);
  while ((10 + h->len + 1) % 64 != 0)
    g_string_append_c (h, ' ');
  g_string_append_c (h, '\n');
  len = h->len;
  g_byte_array_append (file, (const guint8 *) "\x93NUMPY\x01\x00", 8);
  g_byte_array_append (file, (const guint8 *) &len, 2);
  g_byte_array_append (file, (const guint8 *) h->str, h->len);
  g_byte_array_append (file, (const guint8 *) x, n * 8);
  fail_unless (g_file_set_contents (path, (const gchar *) file->data,
          file->len, NULL));
  g_byte_array_unref (file);
  g_string_free (h, TRUE);
  g_free (base);
  return path;
}

/* Plays @pipeline to EOS and returns the reduction's value. */
static gdouble
play_to_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstElement *r = gst_bin_get_by_name (GST_BIN (pipeline), "r");
  GstStructure *result = NULL;
  GstMessage *msg;
  gdouble v = 0;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "neither EOS nor an error");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (msg, &err, &dbg);
    fail ("%s (%s)", err->message, dbg);
  }
  gst_message_unref (msg);
  g_object_get (r, "result", &result, NULL);
  fail_unless (result != NULL);
  fail_unless (gst_structure_get_double (result, "value", &v));
  gst_structure_free (result);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (r);
  gst_object_unref (bus);
  return v;
}

/* The same pipeline played twice (a new stream on the device the second
 * time) gives the CPU's sum both times. */
GST_START_TEST (test_restart_gives_the_same_result)
{
  gsize n = 30011, i;
  gdouble *x = g_new (gdouble, n), want, first, second;
  gchar *path, *desc;
  GstElement *pipeline;
  PlanReducer *r;
  PlanArrayInfo info;

  for (i = 0; i < n; i++)
    x[i] = sin ((gdouble) i) * 1e6 + 1.0 / (i + 1);
  plan_array_info_init (&info);
  info.dtype = PLAN_DTYPE_FLOAT64;
  info.ndim = 1;
  info.shape[0] = n;
  r = plan_reducer_new (PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ALL, &info,
      NULL);
  fail_unless (plan_reducer_reduce (r, x, n, &want, NULL));
  plan_reducer_unref (r);
  path = write_npy ("restart", x, n);
  desc = g_strdup_printf ("planfilesrc location=%s blocksize=8000 ! "
      "planreduce name=r op=sum target=cuda ! fakesink", path);
  pipeline = gst_parse_launch (desc, NULL);
  fail_unless (pipeline != NULL);
  first = play_to_eos (pipeline);
  second = play_to_eos (pipeline);
  fail_unless (memcmp (&first, &want, 8) == 0, "%.17g, not %.17g", first,
      want);
  fail_unless (memcmp (&second, &want, 8) == 0, "%.17g, not %.17g", second,
      want);
  gst_object_unref (pipeline);
  g_unlink (path);
  g_free (path);
  g_free (desc);
  g_free (x);
}

GST_END_TEST;

/* Plays @desc (a planreduce named r) to EOS; returns whether it got there,
 * with the value of the result in @value, or the error in @error. */
static gboolean
play_desc (const gchar * desc, gdouble * value, gchar ** error)
{
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *r;
  GstBus *bus;
  GstStructure *result = NULL;
  GstMessage *msg;
  gboolean ok;

  fail_unless (pipeline != NULL, "%s", desc);
  r = gst_bin_get_by_name (GST_BIN (pipeline), "r");
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "neither EOS nor an error");
  ok = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (!ok) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    *error = g_strdup (err->message);
    g_error_free (err);
  } else {
    g_object_get (r, "result", &result, NULL);
    fail_unless (result != NULL);
    fail_unless (gst_structure_get_double (result, "value", value));
    gst_structure_free (result);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (r);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return ok;
}

/* A sum on the device of 31 chunks uploaded through a pool of 2 buffers,
 * with long random delays (a fixed seed), with the waits at @sites
 * removed (the sim device's test hook; G_MAXUINT: as GST_PLAN_SIM_SKIP_WAIT
 * says): whether its result has the CPU reducer's bits, or an error. Each wait the reduction relies on is
 * proven by a run without it going wrong, and with it (@sites 0) right. */
static gboolean
sum_is_right_without (guint sites, gchar ** what)
{
  gsize n = 30011, i;
  gdouble *x = g_new (gdouble, n), want, got = 0;
  gchar *path, *desc, *error = NULL;
  PlanDevice *device;
  PlanReducer *r;
  PlanArrayInfo info;
  gboolean right;

  for (i = 0; i < n; i++)
    x[i] = cos ((gdouble) i) * 1e3 + i;
  plan_array_info_init (&info);
  info.dtype = PLAN_DTYPE_FLOAT64;
  info.ndim = 1;
  info.shape[0] = n;
  r = plan_reducer_new (PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ALL, &info,
      NULL);
  fail_unless (plan_reducer_reduce (r, x, n, &want, NULL));
  plan_reducer_unref (r);
  path = write_npy ("wait", x, n);

  g_setenv ("GST_PLAN_SIM_MAX_DELAY_US", "2000", TRUE);
  g_setenv ("GST_PLAN_SIM_SEED", "11", TRUE);
  device = plan_device_get ("sim", NULL);
  fail_unless (device != NULL);
  if (sites != G_MAXUINT)
    fail_unless (plan_device_sim_skip_waits (device, sites));
  desc = g_strdup_printf ("planfilesrc location=%s blocksize=8000 ! "
      "planupload max-buffers=2 ! planreduce name=r op=sum target=cuda ! "
      "fakesink", path);
  if (play_desc (desc, &got, &error)) {
    right = memcmp (&got, &want, 8) == 0;
    *what = g_strdup_printf ("%.17g, the CPU %.17g", got, want);
  } else {
    right = FALSE;
    *what = error;
  }
  plan_device_sim_skip_waits (device, 0);
  gst_object_unref (device);
  g_unsetenv ("GST_PLAN_SIM_SEED");
  g_unsetenv ("GST_PLAN_SIM_MAX_DELAY_US");
  g_unlink (path);
  g_free (path);
  g_free (desc);
  g_free (x);
  return right;
}

static void
check_wait_site (guint site)
{
  gchar *what = NULL;

  fail_unless (sum_is_right_without (0, &what), "with every wait: %s", what);
  g_free (what);
  fail_if (sum_is_right_without (site, &what), "without the wait the sum "
      "was still right: %s", what);
  g_free (what);
}

/* The reduction's stream waits for the upload of each chunk. */
GST_START_TEST (test_missing_ready_wait_is_caught)
{
  check_wait_site (PLAN_WAIT_SITE_READY);
}

GST_END_TEST;

/* The upload's pool waits for the reduction's reads of a buffer before it
 * is filled again. */
GST_START_TEST (test_missing_pool_reuse_wait_is_caught)
{
  check_wait_site (PLAN_WAIT_SITE_POOL_REUSE);
}

GST_END_TEST;

/* The host waits for the copy of the result before it reads it. */
GST_START_TEST (test_missing_result_wait_is_caught)
{
  check_wait_site (PLAN_WAIT_SITE_RESULT);
}

GST_END_TEST;

/* The same hook from the environment, as a user would set it. */
GST_START_TEST (test_skip_wait_from_environment)
{
  gchar *what = NULL;

  g_setenv ("GST_PLAN_SIM_SKIP_WAIT", "result", TRUE);
  fail_if (sum_is_right_without (G_MAXUINT, &what), "with "
      "GST_PLAN_SIM_SKIP_WAIT=result the sum was still right: %s", what);
  g_free (what);
  g_unsetenv ("GST_PLAN_SIM_SKIP_WAIT");
}

GST_END_TEST;

/* On a GPU each operation and dtype has kernels of its own, which NVRTC
 * compiles the first time they run (seconds each). The child that probes
 * the device compiles them all at once, on every core, into the kernel
 * cache that the tests' processes then read. */
static void
compile_one (gpointer source, gpointer arch)
{
  GBytes *code = NULL;
  GError *err = NULL;

  if (plan_nvrtc_compile (source, arch, &code, &err))
    g_bytes_unref (code);
  else
    g_print ("NVRTC failed: %s\n", err->message);
  g_clear_error (&err);
  g_free (source);
}

static void
fill_kernel_cache (PlanDevice * device)
{
  GEnumClass *klass = g_type_class_ref (PLAN_TYPE_REDUCE_OP);
  GThreadPool *pool;
  gint major = 0, minor = 0;
  gchar *arch;
  guint d, o;

  plan_device_get_compute_capability (device, &major, &minor);
  arch = g_strdup_printf ("sm_%d%d", major, minor);
  pool = g_thread_pool_new (compile_one, arch, g_get_num_processors (),
      FALSE, NULL);
  for (d = 0; d < G_N_ELEMENTS (dtypes); d++) {
    for (o = 0; o < G_N_ELEMENTS (ops); o++) {
      GEnumValue *v = g_enum_get_value_by_nick (klass, ops[o]);
      PlanArrayInfo info;
      PlanReducer *r;
      gchar *source;

      plan_array_info_init (&info);
      info.dtype = plan_dtype_from_string (dtypes[d]);
      info.ndim = 1;
      info.shape[0] = 16;
      r = plan_reducer_new (v->value, PLAN_REDUCE_AXIS_ALL, &info, NULL);
      if (r == NULL)
        continue;
      source = plan_device_reducer_get_cuda_source (r);
      if (source)
        g_thread_pool_push (pool, source, NULL);
      plan_reducer_unref (r);
    }
  }
  g_thread_pool_free (pool, FALSE, TRUE);
  g_free (arch);
  g_type_class_unref (klass);
}

/* Each test holds the device: its context then lives across the
 * pipelines of the test instead of being made again for each. */
static PlanDevice *held_device;

static void
hold_device (void)
{
  held_device = plan_device_get ("cuda", NULL);
}

static void
release_device (void)
{
  g_clear_object (&held_device);
}

static Suite *
planreducedevice_suite (void)
{
  Suite *s = suite_create ("planreducedevice");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  if (on_cuda)
    tcase_add_checked_fixture (tc, hold_device, release_device);
  tcase_add_test (tc, test_all_axis_equals_cpu);
  tcase_add_test (tc, test_axis_0_equals_cpu);
  tcase_add_test (tc, test_axis_minus_1_equals_cpu);
  tcase_add_test (tc, test_map_before_reduction_equals_cpu);
  tcase_add_test (tc, test_only_the_result_comes_back);
  tcase_add_test (tc, test_custom_combiner_on_device);
  tcase_add_test (tc, test_restart_gives_the_same_result);
  /* the sim device's fault injection */
  if (!on_cuda) {
    tcase_add_test (tc, test_failed_launch_is_an_element_error);
    tcase_add_test (tc, test_device_oom_is_an_element_error);
    tcase_add_test (tc, test_missing_ready_wait_is_caught);
    tcase_add_test (tc, test_missing_pool_reuse_wait_is_caught);
    tcase_add_test (tc, test_missing_result_wait_is_caught);
    tcase_add_test (tc, test_skip_wait_from_environment);
  }
  return s;
}

int
main (int argc, char **argv)
{
  on_cuda = g_strcmp0 (g_getenv ("PLAN_TEST_DEVICE"), "cuda") == 0;
  if (!on_cuda)
    g_setenv ("GST_PLAN_DEVICE", "sim", TRUE);
  gst_check_init (&argc, &argv);
  /* CUDA does not survive the fork of each test: the parent must not
   * initialise it, so a child tries the device. */
  if (on_cuda) {
    pid_t pid = fork ();
    gint status = 0;

    if (pid == 0) {
      GError *err = NULL;
      PlanDevice *device = plan_device_get ("cuda", &err);

      if (device == NULL) {
        g_print ("skipped: %s\n", err->message);
        _exit (1);
      }
      fill_kernel_cache (device);
      _exit (0);
    }
    if (pid < 0 || waitpid (pid, &status, 0) < 0 || !WIFEXITED (status)
        || WEXITSTATUS (status) != 0)
      return 77;
  }
  return gst_check_run_suite (planreducedevice_suite (), "planreducedevice",
      __FILE__);
}
