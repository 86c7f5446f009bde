/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The device reduction against the CPU reducer, bit for bit, for every op,
 * dtype and axis and several chunkings:
 * on the cpu and sim devices, where PlanDeviceReducer runs the steps of
 * planreducer-steps.h as host kernels in the CUDA kernels' order. The
 * CUDA side (NVRTC, nvcc) is in reducercuda.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gmodule.h>
#include <glib/gstdio.h>
#include <libplan/plan.h>
#include <libplan/device/plan-testing.h>
#include <libplan/reduce/planreducer-private.h>
#include <math.h>
#include <string.h>

#include "reducercases.h"

/* When set, reduce() makes a custom reducer of this combiner. */
static const gchar *custom_expr, *custom_identity;
/* When set, the rows of a column block of the reducers reduce() makes. */
static gsize column_rows;
/* When not -1, the CPU reducer's threads in reduce() (0: one a core). */
static gint cpu_threads = -1;

/* An array to reduce: its axis, shape, and the rows of the chunks it is
 * pushed in. */
typedef struct
{
  PlanReduceAxis axis;
  guint ndim;
  const gint64 *shape;
  gsize chunk;
} Layout;

typedef struct
{
  gboolean ok;
  gchar *message;
  guint8 *values;
  gsize size;
} Result;

static void
result_clear (Result * r)
{
  g_free (r->message);
  g_free (r->values);
}

/* Reduces @data (@n_rows rows of @info) in chunks of @chunk rows, on the
 * CPU (@device NULL) or on @device. */
static void
reduce (PlanDevice * device, PlanReduceOp op, PlanReduceAxis axis,
    const PlanArrayInfo * info, const guint8 * data, gsize n_rows,
    gsize chunk, gdouble ddof, Result * res)
{
  GError *err = NULL;
  PlanReducer *r = custom_expr ? plan_reducer_new_custom (custom_expr,
      custom_identity, axis, info, &err) : plan_reducer_new (op, axis, info,
      &err);
  PlanArrayInfo out;
  gsize row_size = plan_array_info_get_row_size (info), out_elements = 1;
  gsize out_size, i;
  guint d;

  fail_unless (r != NULL, "%s", err ? err->message : "");
  if (column_rows && axis == PLAN_REDUCE_AXIS_ROWS && info->ndim > 1)
    plan_reducer_testing_set_column_rows (r, column_rows);
  plan_reducer_set_ddof (r, ddof);
  if (cpu_threads >= 0)
    plan_reducer_set_n_threads (r, cpu_threads);
  plan_reducer_get_output_info (r, &out);
  out_size = plan_dtype_get_size (out.dtype);
  if (axis == PLAN_REDUCE_AXIS_INNER)
    out_elements = n_rows;
  else
    for (d = 0; d < out.ndim; d++)
      out_elements *= out.shape[d];
  res->size = out_elements * out_size;
  res->values = g_malloc0 (MAX (res->size, 1));
  res->ok = TRUE;
  res->message = NULL;

  if (device == NULL) {
    for (i = 0; i < n_rows && res->ok; i += chunk) {
      gsize n = MIN (chunk, n_rows - i);

      res->ok = plan_reducer_push (r, data + i * row_size, n,
          axis == PLAN_REDUCE_AXIS_INNER ? res->values + i * out_size : NULL,
          &err);
    }
    if (res->ok)
      res->ok = plan_reducer_finish (r, res->values, &err);
  } else {
    PlanStream *stream = plan_stream_new (device, &err);
    PlanDeviceReducer *dr;
    gpointer dptr = NULL;

    fail_unless (stream != NULL);
    dr = plan_device_reducer_new (r, stream, &err);
    fail_unless (dr != NULL, "%s", err ? err->message : "");
    fail_unless (plan_device_alloc (device, MAX (n_rows * row_size, 1),
            &dptr, &err));
    fail_unless (plan_device_copy (device, PLAN_COPY_HOST_TO_DEVICE, dptr,
            data, n_rows * row_size, &err));
    for (i = 0; i < n_rows && res->ok; i += chunk) {
      gsize n = MIN (chunk, n_rows - i);

      res->ok = plan_device_reducer_push (dr, (guint8 *) dptr + i * row_size,
          n, axis == PLAN_REDUCE_AXIS_INNER ? res->values + i * out_size :
          NULL, &err);
    }
    if (res->ok)
      res->ok = plan_device_reducer_finish (dr, axis ==
          PLAN_REDUCE_AXIS_INNER ? NULL : res->values, &err);
    plan_device_reducer_free (dr);
    plan_device_free (device, dptr);
    plan_stream_unref (stream);
  }
  if (!res->ok)
    res->message = g_strdup (err->message);
  g_clear_error (&err);
  plan_reducer_unref (r);
}

static void
info_set (PlanArrayInfo * info, PlanDType dtype, guint ndim,
    const gint64 * shape)
{
  guint i;

  plan_array_info_init (info);
  info->dtype = dtype;
  info->ndim = ndim;
  for (i = 0; i < ndim; i++)
    info->shape[i] = shape[i];
}

/* Every op and dtype on @device for @axis over arrays of @ndim dims. */
static guint
compare_all (PlanDevice * device, PlanReduceAxis axis, guint ndim,
    const gint64 * shape, const gsize * chunks, guint n_chunks)
{
  guint n_cases = 0, o, c, v;
  PlanDType dt;

  for (dt = PLAN_DTYPE_BOOL; dt < PLAN_DTYPE_N; dt++) {
    PlanArrayInfo info;
    gsize n_rows = shape[0], n;
    guint8 *data;

    info_set (&info, dt, ndim, shape);
    n = n_rows * plan_array_info_get_row_elements (&info);
    data = g_malloc (n * plan_dtype_get_size (dt));
    for (v = 0; v < 2; v++) {
      /* v 1: NaNs among the values of floats and complex numbers */
      if (v == 1 && !plan_dtype_is_float (dt) && !plan_dtype_is_complex (dt))
        continue;
      fill (dt, data, n, 17 + dt * 3 + v, v ? 11 : 0);
      for (o = 0; o < G_N_ELEMENTS (all_ops); o++) {
        PlanReduceOp op = all_ops[o];
        Result want;

        if (op == PLAN_REDUCE_OP_PTP && dt == PLAN_DTYPE_BOOL)
          continue;
        reduce (NULL, op, axis, &info, data, n_rows, n_rows, 1.0, &want);
        for (c = 0; c < n_chunks; c++) {
          Result got;

          reduce (device, op, axis, &info, data, n_rows, chunks[c], 1.0,
              &got);
          fail_unless (got.ok == want.ok, "%s on %s, axis %d, chunks of %"
              G_GSIZE_FORMAT ": %s / %s", plan_reducer_get_name
              (plan_reducer_new (op, axis, &info, NULL)),
              plan_dtype_to_string (dt), axis, chunks[c],
              got.message ? got.message : "ok",
              want.message ? want.message : "ok");
          if (want.ok)
            fail_unless (memcmp (got.values, want.values, want.size) == 0,
                "op %d on %s, axis 0x%x, chunks of %" G_GSIZE_FORMAT
                ", NaNs %u: not the CPU's bits", op,
                plan_dtype_to_string (dt), axis, chunks[c], v);
          else
            fail_unless (g_strcmp0 (got.message, want.message) == 0,
                "%s / %s", got.message, want.message);
          result_clear (&got);
          n_cases++;
        }
        result_clear (&want);
      }
    }
    g_free (data);
  }
  return n_cases;
}

static void
check_device (const gchar * name)
{
  PlanDevice *device = plan_device_get (name, NULL);
  /* 1-D: blocks, a staged tail and blocks completed across chunks */
  const gint64 flat[] = { 9001 };
  const gsize flat_chunks[] = { 9001, 4096, 777, 2047 };
  /* axis 0 over rows of 3 x 5, and of 1-D rows (as axis all) */
  const gint64 cols[] = { 301, 3, 5 };
  const gsize col_chunks[] = { 301, 7, 64 };
  /* axis 0 over many column blocks (of 37 rows): the columns' trees, and
   * chunks ending at a block's end */
  const gint64 tall[] = { 5001, 7 };
  const gsize tall_chunks[] = { 5001, 37 * 20, 1000 };
  /* axis -1: rows over more than a block, and rows of one element */
  const gint64 rows[] = { 5, 4100 };
  const gsize row_chunks[] = { 5, 2 };
  const gint64 single[] = { 3000 };
  const gsize single_chunks[] = { 3000, 1000 };
  guint n = 0;

  fail_unless (device != NULL);
  n += compare_all (device, PLAN_REDUCE_AXIS_ALL, 1, flat, flat_chunks, 4);
  n += compare_all (device, PLAN_REDUCE_AXIS_ROWS, 3, cols, col_chunks, 3);
  column_rows = 37;
  n += compare_all (device, PLAN_REDUCE_AXIS_ROWS, 2, tall, tall_chunks, 3);
  column_rows = 0;
  n += compare_all (device, PLAN_REDUCE_AXIS_ROWS, 1, flat, flat_chunks, 2);
  n += compare_all (device, PLAN_REDUCE_AXIS_INNER, 2, rows, row_chunks, 2);
  n += compare_all (device, PLAN_REDUCE_AXIS_INNER, 1, single,
      single_chunks, 2);
  fail_unless (n > 2000, "%u cases", n);
  gst_object_unref (device);
}

/* Every op on four dtypes and every axis, once, small: what the memory
 * checkers run (the exhaustive tests are too slow under valgrind). */
GST_START_TEST (test_every_op_on_sim_small)
{
  PlanDevice *device = plan_device_get ("sim", NULL);
  const PlanDType some[] = { PLAN_DTYPE_BOOL, PLAN_DTYPE_INT32,
    PLAN_DTYPE_FLOAT32, PLAN_DTYPE_FLOAT64
  };
  const gint64 flat[] = { 4500 }, cols[] = { 40, 3 }, rows[] = { 3, 2100 };
  const gint64 tall[] = { 2400, 7 };
  const Layout layouts[] = {
    {PLAN_REDUCE_AXIS_ALL, 1, flat, 1500},
    {PLAN_REDUCE_AXIS_ROWS, 2, cols, 7},
    {PLAN_REDUCE_AXIS_ROWS, 2, tall, 700},
    {PLAN_REDUCE_AXIS_INNER, 2, rows, 2},
  };
  guint d, o, k, n_cases = 0;

  for (d = 0; d < G_N_ELEMENTS (some); d++) {
    for (k = 0; k < G_N_ELEMENTS (layouts); k++) {
      PlanArrayInfo info;
      gsize n_rows = layouts[k].shape[0], n;
      guint8 *data;

      info_set (&info, some[d], layouts[k].ndim, layouts[k].shape);
      n = n_rows * plan_array_info_get_row_elements (&info);
      data = g_malloc (n * 8);
      fill (some[d], data, n, 11 + d, 7);
      /* The tall layout in column blocks of 37 rows. */
      column_rows = layouts[k].shape == tall ? 37 : 0;
      for (o = 0; o < G_N_ELEMENTS (all_ops); o++) {
        Result want, got;

        if (all_ops[o] == PLAN_REDUCE_OP_PTP && some[d] == PLAN_DTYPE_BOOL)
          continue;
        reduce (NULL, all_ops[o], layouts[k].axis, &info, data, n_rows,
            n_rows, 1.0, &want);
        reduce (device, all_ops[o], layouts[k].axis, &info, data, n_rows,
            layouts[k].chunk, 1.0, &got);
        fail_unless (got.ok == want.ok);
        if (want.ok)
          fail_unless (memcmp (got.values, want.values, want.size) == 0,
              "op %d on %s, layout %u", all_ops[o],
              plan_dtype_to_string (some[d]), k);
        result_clear (&want);
        result_clear (&got);
        n_cases++;
      }
      g_free (data);
    }
  }
  column_rows = 0;
  fail_unless (n_cases > 200);
  gst_object_unref (device);
}

GST_END_TEST;

/* The moments of values among which NaNs of both signs and of several
 * payloads, and infinities, meet: a NaN result has the same bits on the
 * CPU and the sim device, on every axis and for any chunking (the steps
 * say which NaN a sum of two keeps). */
GST_START_TEST (test_moments_nan_bits_equal_cpu_reducer)
{
  PlanDevice *device = plan_device_get ("sim", NULL);
  const guint64 specials[] = { 0x7ff8000000000000ull, 0xfff8000000000000ull,
    0x7ff8000000000123ull, 0xfff8000000004560ull, 0x7ff0000000000000ull,
    0xfff0000000000000ull
  };
  const PlanReduceOp ops[] = { PLAN_REDUCE_OP_VAR, PLAN_REDUCE_OP_STD,
    PLAN_REDUCE_OP_NANVAR
  };
  const PlanDType dtypes[] = { PLAN_DTYPE_FLOAT64, PLAN_DTYPE_FLOAT32 };
  const gint64 flat[] = { 9001 }, tall[] = { 2400, 7 }, rows[] = { 5, 4100 };
  const Layout layouts[] = {
    {PLAN_REDUCE_AXIS_ALL, 1, flat, 777},
    {PLAN_REDUCE_AXIS_ROWS, 2, tall, 700},
    {PLAN_REDUCE_AXIS_INNER, 2, rows, 2},
  };
  guint d, k, o, n_nan = 0;

  for (d = 0; d < G_N_ELEMENTS (dtypes); d++) {
    for (k = 0; k < G_N_ELEMENTS (layouts); k++) {
      PlanArrayInfo info;
      gsize n_rows = layouts[k].shape[0], n, i;
      guint8 *data;

      info_set (&info, dtypes[d], layouts[k].ndim, layouts[k].shape);
      n = n_rows * plan_array_info_get_row_elements (&info);
      data = g_malloc (n * 8);
      for (i = 0; i < n; i++) {
        gdouble v = 1e3 + (gdouble) (i % 13);

        if (i % 5 == 2)
          memcpy (&v, &specials[(i / 5) % G_N_ELEMENTS (specials)], 8);
        if (dtypes[d] == PLAN_DTYPE_FLOAT64)
          ((gdouble *) data)[i] = v;
        else
          ((gfloat *) data)[i] = (gfloat) v;
      }
      column_rows = layouts[k].shape == tall ? 37 : 0;
      for (o = 0; o < G_N_ELEMENTS (ops); o++) {
        Result want, got;

        reduce (NULL, ops[o], layouts[k].axis, &info, data, n_rows, n_rows,
            1.0, &want);
        reduce (device, ops[o], layouts[k].axis, &info, data, n_rows,
            layouts[k].chunk, 1.0, &got);
        fail_unless (want.ok && got.ok);
        fail_unless (memcmp (got.values, want.values, want.size) == 0,
            "op %d on %s, layout %u: not the CPU's bits", ops[o],
            plan_dtype_to_string (dtypes[d]), k);
        if (dtypes[d] == PLAN_DTYPE_FLOAT64 && isnan (*(gdouble *)
                want.values))
          n_nan++;
        result_clear (&want);
        result_clear (&got);
      }
      column_rows = 0;
      g_free (data);
    }
  }
  fail_unless (n_nan >= 4, "%u NaN results", n_nan);
  gst_object_unref (device);
}

GST_END_TEST;

/* Minima and maxima whose extreme is a zero of either sign, or which meet
 * NaNs of several payloads: which zero (the first among equals) and which
 * NaN (the first) they keep is the same on the CPU, whatever its loops
 * fold first, and on the sim device, on every axis and for any chunking. */
GST_START_TEST (test_extremes_zero_and_nan_bits_equal_cpu_reducer)
{
  PlanDevice *device = plan_device_get ("sim", NULL);
  const guint32 nans[] = { 0x7fc00000u, 0xffc00000u, 0x7fc00123u,
    0xffc45600u, 0x7f800001u
  };
  const PlanReduceOp ops[] = { PLAN_REDUCE_OP_MIN, PLAN_REDUCE_OP_MAX };
  const PlanDType dtypes[] = { PLAN_DTYPE_FLOAT32, PLAN_DTYPE_FLOAT64 };
  const gint64 flat[] = { 9001 }, tall[] = { 2400, 7 }, wide[] = { 300, 256 };
  const gint64 rows[] = { 5, 4100 };
  const Layout layouts[] = {
    {PLAN_REDUCE_AXIS_ALL, 1, flat, 777},
    {PLAN_REDUCE_AXIS_ROWS, 2, tall, 700},
    {PLAN_REDUCE_AXIS_ROWS, 2, wide, 64},
    {PLAN_REDUCE_AXIS_INNER, 2, rows, 2},
  };
  guint d, k, o, with_nan, n_neg = 0, n_pos = 0, n_nan = 0;

  for (d = 0; d < G_N_ELEMENTS (dtypes); d++) {
    for (k = 0; k < G_N_ELEMENTS (layouts); k++) {
      for (o = 0; o < G_N_ELEMENTS (ops); o++) {
        for (with_nan = 0; with_nan < 2; with_nan++) {
          GRand *rand = g_rand_new_with_seed (17 * k + 5 * o + with_nan);
          PlanArrayInfo info;
          gsize n_rows = layouts[k].shape[0], n, i, j;
          guint8 *data;
          Result want, got;

          info_set (&info, dtypes[d], layouts[k].ndim, layouts[k].shape);
          n = n_rows * plan_array_info_get_row_elements (&info);
          data = g_malloc (n * 8);
          for (i = 0; i < n; i++) {
            /* zeros of both signs, and values beyond them the other way
             * from the extreme */
            guint32 u = g_rand_int_range (rand, 0, 4);
            gfloat f = u == 0 ? 0.0f : u == 1 ? -0.0f : (gfloat) u;

            if (ops[o] == PLAN_REDUCE_OP_MAX && u > 1)
              f = -f;
            if (with_nan && g_rand_int_range (rand, 0, 50) == 0)
              memcpy (&f, &nans[g_rand_int_range (rand, 0,
                          G_N_ELEMENTS (nans))], 4);
            if (dtypes[d] == PLAN_DTYPE_FLOAT64)
              ((gdouble *) data)[i] = f;
            else
              ((gfloat *) data)[i] = f;
          }
          g_rand_free (rand);
          column_rows = layouts[k].shape == tall ? 37 : 0;
          reduce (NULL, ops[o], layouts[k].axis, &info, data, n_rows, n_rows,
              0.0, &want);
          reduce (device, ops[o], layouts[k].axis, &info, data, n_rows,
              layouts[k].chunk, 0.0, &got);
          column_rows = 0;
          fail_unless (want.ok && got.ok);
          fail_unless (memcmp (got.values, want.values, want.size) == 0,
              "op %d on %s, layout %u, NaNs %u: not the CPU's bits", ops[o],
              plan_dtype_to_string (dtypes[d]), k, with_nan);
          for (j = 0; j < want.size / plan_dtype_get_size (dtypes[d]); j++) {
            gdouble v = dtypes[d] == PLAN_DTYPE_FLOAT64 ?
                ((gdouble *) want.values)[j] : ((gfloat *) want.values)[j];

            if (isnan (v))
              n_nan++;
            else if (v == 0.0 && signbit (v))
              n_neg++;
            else if (v == 0.0)
              n_pos++;
          }
          result_clear (&want);
          result_clear (&got);
          g_free (data);
        }
      }
    }
  }
  fail_unless (n_neg > 100 && n_pos > 100 && n_nan > 100,
      "%u -0, %u +0, %u NaN results", n_neg, n_pos, n_nan);
  gst_object_unref (device);
}

GST_END_TEST;

/* Column sums whose blocks meet NaNs of several payloads: where two
 * blocks' sums are both NaN, the merge keeps the later block's, whether
 * the blocks go into the column trees one by one (one thread) or the
 * threads' blocks of a push first merge among themselves (every core):
 * the same bits. float64, whose rows loop says which NaN a sum of two
 * keeps (float32's leaves that to the compiler). */
GST_START_TEST (test_column_sums_nan_bits_equal_on_threads)
{
  const guint64 nans[] = { 0x7ff8000000000000ull, 0xfff8000000000000ull,
    0x7ff8000000000123ull, 0xfff8000000004560ull, 0x7ff0000000000001ull
  };
  const gint64 shape[] = { 700, 64 };
  guint seed, n_nan = 0, n_payloads = 0;

  for (seed = 0; seed < 10; seed++) {
    GRand *rand = g_rand_new_with_seed (29 + seed);
    PlanArrayInfo info;
    gsize n_rows = shape[0], n, i, j;
    gdouble *data;
    Result want, got;

    info_set (&info, PLAN_DTYPE_FLOAT64, 2, shape);
    n = n_rows * plan_array_info_get_row_elements (&info);
    data = g_new (gdouble, n);
    for (i = 0; i < n; i++) {
      data[i] = g_rand_double_range (rand, -1e3, 1e3);
      if (g_rand_int_range (rand, 0, 40) == 0)
        memcpy (&data[i], &nans[g_rand_int_range (rand, 0,
                    G_N_ELEMENTS (nans))], 8);
    }
    g_rand_free (rand);
    /* blocks of 3 rows: many in a push, many NaN blocks meeting */
    column_rows = 3;
    cpu_threads = 1;
    reduce (NULL, PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ROWS, &info,
        (guint8 *) data, n_rows, n_rows, 0.0, &want);
    cpu_threads = 0;
    reduce (NULL, PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ROWS, &info,
        (guint8 *) data, n_rows, n_rows, 0.0, &got);
    cpu_threads = -1;
    column_rows = 0;
    fail_unless (want.ok && got.ok);
    fail_unless (memcmp (got.values, want.values, want.size) == 0,
        "seed %u: not the bits of one thread", seed);
    for (j = 0; j < want.size / 8; j++) {
      guint64 bits;

      memcpy (&bits, &((gdouble *) want.values)[j], 8);
      if (isnan (((gdouble *) want.values)[j])) {
        n_nan++;
        if (bits != nans[0])
          n_payloads++;
      }
    }
    result_clear (&want);
    result_clear (&got);
    g_free (data);
  }
  fail_unless (n_nan > 200 && n_payloads > 100, "%u NaN results, %u of "
      "them with a payload", n_nan, n_payloads);
}

GST_END_TEST;

/* The quiet NaN of @bits (a signalling NaN's quiet bit set), as x86's
 * addition gives it. */
static guint64
quieted (guint64 bits)
{
  return bits | G_GUINT64_CONSTANT (0x0008000000000000);
}

/* float64 column sums (axis 0) whose column blocks (of 3 rows) meet NaNs
 * of several payloads, a signalling one among them: a sum keeps the NaN
 * it holds against a NaN element, a merge the later block's NaN, so a
 * column's sum is the first NaN of its last block that holds one,
 * quieted, on the CPU reducer and on the sim and cpu devices, for any
 * number of columns, threads and chunk rows. The devices' column step
 * left the choice to the compiler, which took the element's NaN: their
 * sums were the column's last NaN, where the CPU's were not (columns 2,
 * 16 and 24 of 32 differed). */
GST_START_TEST (test_column_sums_nan_payloads_equal_cpu_reducer)
{
  const guint64 nans[] = { 0x7ff8000000000000ull, 0xfff8000000000000ull,
    0x7ff8000000000123ull, 0xfff8000000004560ull, 0x7ff0000000000001ull
  };
  const guint n_cols[] = { 7, 32, 256 };
  const gint threads[] = { 1, 0 };
  const gsize chunks[] = { 64, 1, 700 };
  const gchar *devices[] = { "sim", "cpu" };
  const gsize block = 3;
  guint c, t, k, v, n_nan = 0, n_not_last = 0;

  for (c = 0; c < G_N_ELEMENTS (n_cols); c++) {
    GRand *rand = g_rand_new_with_seed (29);
    const gint64 shape[] = { 700, n_cols[c] };
    PlanArrayInfo info;
    gsize n_rows = shape[0], n = n_rows * n_cols[c], i, j;
    gdouble *data = g_new (gdouble, n);
    guint64 *expect = g_new (guint64, n_cols[c]);

    info_set (&info, PLAN_DTYPE_FLOAT64, 2, shape);
    for (i = 0; i < n; i++) {
      data[i] = g_rand_double_range (rand, -1e3, 1e3);
      if (g_rand_int_range (rand, 0, 40) == 0)
        memcpy (&data[i], &nans[g_rand_int_range (rand, 0,
                    G_N_ELEMENTS (nans))], 8);
    }
    g_rand_free (rand);
    /* each column's first NaN of its last block that holds one (0: no
     * NaN), and whether that is not the column's last NaN */
    for (j = 0; j < n_cols[c]; j++) {
      guint64 last = 0;
      gsize b;

      expect[j] = 0;
      for (b = 0; b < n_rows; b += block) {
        gboolean first = TRUE;

        for (i = b; i < MIN (b + block, n_rows); i++) {
          guint64 bits;

          if (!isnan (data[i * n_cols[c] + j]))
            continue;
          memcpy (&bits, &data[i * n_cols[c] + j], 8);
          if (first)
            expect[j] = quieted (bits);
          first = FALSE;
          last = quieted (bits);
        }
      }
      n_nan += expect[j] != 0;
      n_not_last += last != expect[j];
    }
    column_rows = block;
    for (t = 0; t < G_N_ELEMENTS (threads); t++) {
      Result want;

      cpu_threads = threads[t];
      reduce (NULL, PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ROWS, &info,
          (guint8 *) data, n_rows, n_rows, 0.0, &want);
      cpu_threads = -1;
      fail_unless (want.ok);
      for (j = 0; j < n_cols[c]; j++) {
        guint64 w;

        memcpy (&w, &((gdouble *) want.values)[j], 8);
        fail_unless (isnan (((gdouble *) want.values)[j]) ==
            (expect[j] != 0), "column %" G_GSIZE_FORMAT, j);
        fail_unless (expect[j] == 0 || w == expect[j], "%u columns, %d "
            "threads, column %" G_GSIZE_FORMAT ": the CPU's NaN %016"
            G_GINT64_MODIFIER "x, not %016" G_GINT64_MODIFIER "x",
            n_cols[c], threads[t], j, w, expect[j]);
      }
      for (v = 0; v < G_N_ELEMENTS (devices); v++) {
        PlanDevice *device = plan_device_get (devices[v], NULL);

        for (k = 0; k < G_N_ELEMENTS (chunks); k++) {
          Result got;

          reduce (device, PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ROWS, &info,
              (guint8 *) data, n_rows, chunks[k], 0.0, &got);
          fail_unless (got.ok);
          for (j = 0; j < n_cols[c]; j++) {
            guint64 w, g;

            memcpy (&w, &((gdouble *) want.values)[j], 8);
            memcpy (&g, &((gdouble *) got.values)[j], 8);
            fail_unless (w == g, "%u columns, chunks of %" G_GSIZE_FORMAT
                " rows, column %" G_GSIZE_FORMAT ": %016" G_GINT64_MODIFIER
                "x on %s, %016" G_GINT64_MODIFIER "x on the CPU",
                n_cols[c], chunks[k], j, g, devices[v], w);
          }
          result_clear (&got);
        }
        gst_object_unref (device);
      }
      result_clear (&want);
    }
    column_rows = 0;
    g_free (expect);
    g_free (data);
  }
  /* NaN columns, in some of which the rule picks another NaN than the
   * last (the devices' old choice) */
  fail_unless (n_nan > 250 && n_not_last >= 3, "%u NaN columns, %u whose "
      "last NaN is another", n_nan, n_not_last);
}

GST_END_TEST;

GST_START_TEST (test_cpu_device_equals_cpu_reducer)
{
  check_device ("cpu");
}

GST_END_TEST;

GST_START_TEST (test_sim_device_equals_cpu_reducer)
{
  check_device ("sim");
}

GST_END_TEST;

/* What each op reduces to on a stream of nothing, and numpy's errors. */
GST_START_TEST (test_empty_and_all_nan)
{
  PlanDevice *device = plan_device_get ("sim", NULL);
  PlanArrayInfo info;
  const gint64 shape[] = { 4 };
  gdouble nans[4] = { NAN, NAN, NAN, NAN };
  Result got, want;

  info_set (&info, PLAN_DTYPE_FLOAT64, 1, shape);
  reduce (device, PLAN_REDUCE_OP_NANARGMAX, PLAN_REDUCE_AXIS_ALL, &info,
      (guint8 *) nans, 4, 3, 0, &got);
  reduce (NULL, PLAN_REDUCE_OP_NANARGMAX, PLAN_REDUCE_AXIS_ALL, &info,
      (guint8 *) nans, 4, 4, 0, &want);
  fail_if (got.ok);
  fail_unless (strstr (got.message, "All-NaN") != NULL, "%s", got.message);
  fail_unless (g_strcmp0 (got.message, want.message) == 0);
  result_clear (&got);
  result_clear (&want);

  reduce (device, PLAN_REDUCE_OP_MIN, PLAN_REDUCE_AXIS_ALL, &info,
      (guint8 *) nans, 0, 1, 0, &got);
  fail_if (got.ok);
  fail_unless (strstr (got.message, "empty stream") != NULL, "%s",
      got.message);
  result_clear (&got);

  reduce (device, PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ALL, &info,
      (guint8 *) nans, 0, 1, 0, &got);
  fail_unless (got.ok);
  fail_unless (*(gdouble *) got.values == 0.0);
  result_clear (&got);
  gst_object_unref (device);
}

GST_END_TEST;

/* A device kernel that fails is an error of the push, not garbage. */
GST_START_TEST (test_failed_launch_is_an_error)
{
  PlanDevice *device;
  PlanArrayInfo info;
  const gint64 shape[] = { 5000 };
  guint8 *data = g_malloc0 (5000 * 4);
  Result got;

  g_setenv ("GST_PLAN_SIM_FAULT", "launch:2", TRUE);
  device = plan_device_get ("sim", NULL);
  info_set (&info, PLAN_DTYPE_FLOAT32, 1, shape);
  reduce (device, PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_ALL, &info, data,
      5000, 1000, 0, &got);
  fail_if (got.ok);
  fail_unless (got.message != NULL);
  result_clear (&got);
  gst_object_unref (device);
  g_unsetenv ("GST_PLAN_SIM_FAULT");
  g_free (data);
}

GST_END_TEST;

/* Custom combiners (with a cast of the input where the combiner promotes
 * it) on the cpu and sim devices, every axis, against the CPU reducer. */
static const struct
{
  PlanDType dtype;
  const gchar *expr, *identity;
} customs[] = {
  {PLAN_DTYPE_FLOAT64, "x + y", "0"},
  {PLAN_DTYPE_FLOAT32, "max(x, y)", "-inf"},
  {PLAN_DTYPE_INT32, "x + 1.0 * y", "0"},
  {PLAN_DTYPE_INT64, "min(x, y)", "9223372036854775807"},
  {PLAN_DTYPE_UINT8, "x + y", "0"},
  {PLAN_DTYPE_FLOAT16, "x + y", "0"},
  {PLAN_DTYPE_FLOAT16, "max(x, y)", "-inf"},
};

static void
check_custom (const gchar * name)
{
  PlanDevice *device = plan_device_get (name, NULL);
  const gint64 flat[] = { 9001 }, cols[] = { 301, 3, 5 }, rows[] = { 5,
    4100
  }, single[] = { 300 }, tall[] = { 2400, 7 };
  const Layout layouts[] = {
    {PLAN_REDUCE_AXIS_ALL, 1, flat, 777},
    {PLAN_REDUCE_AXIS_ALL, 1, flat, 4096},
    {PLAN_REDUCE_AXIS_ROWS, 3, cols, 7},
    {PLAN_REDUCE_AXIS_ROWS, 2, tall, 333},
    {PLAN_REDUCE_AXIS_INNER, 2, rows, 2},
    {PLAN_REDUCE_AXIS_INNER, 1, single, 100},
  };
  guint i, k;

  for (i = 0; i < G_N_ELEMENTS (customs); i++) {
    for (k = 0; k < G_N_ELEMENTS (layouts); k++) {
      PlanArrayInfo info;
      gsize n;
      guint8 *data;
      Result want, got;

      info_set (&info, customs[i].dtype, layouts[k].ndim, layouts[k].shape);
      n = layouts[k].shape[0] * plan_array_info_get_row_elements (&info);
      data = g_malloc (n * 8);
      fill (customs[i].dtype, data, n, 3 + i, 0);
      custom_expr = customs[i].expr;
      custom_identity = customs[i].identity;
      column_rows = layouts[k].shape == tall ? 37 : 0;
      reduce (NULL, 0, layouts[k].axis, &info, data, layouts[k].shape[0],
          layouts[k].shape[0], 0, &want);
      reduce (device, 0, layouts[k].axis, &info, data, layouts[k].shape[0],
          layouts[k].chunk, 0, &got);
      custom_expr = custom_identity = NULL;
      column_rows = 0;
      fail_unless (want.ok && got.ok, "%s", got.message);
      fail_unless (memcmp (got.values, want.values, want.size) == 0,
          "%s on %s, layout %u: not the CPU's bits", customs[i].expr,
          plan_dtype_to_string (customs[i].dtype), k);
      result_clear (&want);
      result_clear (&got);
      g_free (data);
    }
  }
  gst_object_unref (device);
}

GST_START_TEST (test_custom_combiners_equal_cpu_reducer)
{
  check_custom ("cpu");
  check_custom ("sim");
}

GST_END_TEST;

/* A map fused into the reduction (PlanReduceMap, what planreduce map=
 * runs) gives the bits of the map evaluated whole and reduced after: on
 * the host across its cache-sized pieces and the chunks, per row with
 * axis -1, and on the sim device through the device reducer. A map that
 * does not compile is an error. */
static void
map_then_reduce (PlanReduceOp op, PlanReduceAxis axis,
    const PlanArrayInfo * info, const gfloat * data, gsize n_rows,
    PlanDevice * device, gsize chunk, Result * fused, Result * whole)
{
  static const gchar *const names[] = { "x", "in0" };
  const PlanDType dtypes[] = { info->dtype, info->dtype };
  gsize row_size = plan_array_info_get_row_size (info);
  gsize n_elements = n_rows * plan_array_info_get_row_elements (info);
  PlanArrayInfo mapped, out;
  PlanReduceMap *map;
  PlanReducer *r;
  PlanExpr *expr;
  GError *err = NULL;
  gdouble *squares;
  gconstpointer inputs[2] = { data, data };
  gsize out_size, i;

  map = plan_reduce_map_new ("x * x", PLAN_DTYPE_FLOAT64, info, &mapped,
      &err);
  fail_unless (map != NULL, "%s", err ? err->message : "");
  fail_unless_equals_int (mapped.dtype, PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int (plan_reduce_map_get_dtype (map),
      PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int (mapped.ndim, info->ndim);
  r = plan_reducer_new (op, axis, &mapped, &err);
  fail_unless (r != NULL, "%s", err ? err->message : "");
  plan_reducer_get_output_info (r, &out);
  out_size = plan_dtype_get_size (out.dtype);
  fused->size = (axis == PLAN_REDUCE_AXIS_INNER ? n_rows : 1) * out_size;
  fused->values = g_malloc0 (fused->size);
  fused->message = NULL;
  fused->ok = TRUE;
  if (device == NULL) {
    for (i = 0; i < n_rows && fused->ok; i += chunk)
      fused->ok = plan_reduce_map_push (map, r,
          (const guint8 *) data + i * row_size, MIN (chunk, n_rows - i),
          axis == PLAN_REDUCE_AXIS_INNER ? fused->values + i * out_size :
          NULL, 2, &err);
    if (fused->ok && axis != PLAN_REDUCE_AXIS_INNER)
      fused->ok = plan_reducer_finish (r, fused->values, &err);
  } else {
    PlanStream *stream = plan_stream_new (device, &err);
    PlanDeviceReducer *dr = plan_device_reducer_new (r, stream, &err);
    gpointer dptr = NULL;

    fail_unless (dr != NULL, "%s", err ? err->message : "");
    fail_unless (plan_device_alloc (device, n_rows * row_size, &dptr, &err));
    fail_unless (plan_device_copy (device, PLAN_COPY_HOST_TO_DEVICE, dptr,
            data, n_rows * row_size, &err));
    for (i = 0; i < n_rows && fused->ok; i += chunk) {
      gconstpointer m = plan_reduce_map_launch (map, stream,
          (guint8 *) dptr + i * row_size, MIN (chunk, n_rows - i), 1, &err);

      fail_unless (m != NULL, "%s", err ? err->message : "");
      fused->ok = plan_device_reducer_push (dr, m, MIN (chunk, n_rows - i),
          NULL, &err);
    }
    if (fused->ok)
      fused->ok = plan_device_reducer_finish (dr, fused->values, &err);
    plan_device_reducer_free (dr);
    plan_reduce_map_release_device (map);
    plan_device_free (device, dptr);
    plan_stream_unref (stream);
  }
  fail_unless (fused->ok, "%s", err ? err->message : "");
  plan_reduce_map_free (map);
  plan_reducer_unref (r);

  /* The map evaluated whole, then reduced in one push. */
  expr = plan_expr_compile_with_dtype ("x * x", 2, names, dtypes,
      PLAN_DTYPE_FLOAT64, &err);
  fail_unless (expr != NULL, "%s", err ? err->message : "");
  squares = g_new (gdouble, n_elements);
  plan_expr_eval (expr, inputs, squares, n_elements);
  r = plan_reducer_new (op, axis, &mapped, &err);
  whole->size = fused->size;
  whole->values = g_malloc0 (whole->size);
  whole->message = NULL;
  whole->ok = plan_reducer_push (r, squares, n_rows,
      axis == PLAN_REDUCE_AXIS_INNER ? whole->values : NULL, &err);
  if (whole->ok && axis != PLAN_REDUCE_AXIS_INNER)
    whole->ok = plan_reducer_finish (r, whole->values, &err);
  fail_unless (whole->ok, "%s", err ? err->message : "");
  plan_reducer_unref (r);
  plan_expr_unref (expr);
  g_free (squares);
}

GST_START_TEST (test_fused_map_equals_map_then_reduce)
{
  /* 30001 float64 results: about four of the map's 64 KiB pieces */
  const gint64 flat[] = { 30001 };
  const gint64 rows[] = { 3001, 7 };
  const PlanReduceOp ops[] = { PLAN_REDUCE_OP_SUM, PLAN_REDUCE_OP_MEAN,
    PLAN_REDUCE_OP_ARGMAX, PLAN_REDUCE_OP_VAR
  };
  PlanDevice *sim = plan_device_get ("sim", NULL);
  PlanArrayInfo info;
  PlanReduceMap *map;
  GError *err = NULL;
  gfloat *data = g_new (gfloat, 30001);
  Result fused, whole;
  guint i;

  for (i = 0; i < 30001; i++)
    data[i] = (gfloat) sin (i * 0.37) * (1.0f + (i % 101));

  info_set (&info, PLAN_DTYPE_FLOAT32, 1, flat);
  for (i = 0; i < G_N_ELEMENTS (ops); i++) {
    map_then_reduce (ops[i], PLAN_REDUCE_AXIS_ALL, &info, data, 30001, NULL,
        12345, &fused, &whole);
    fail_unless (fused.size == whole.size
        && memcmp (fused.values, whole.values, fused.size) == 0,
        "op %d: the fused map differs", ops[i]);
    result_clear (&fused);
    result_clear (&whole);
    map_then_reduce (ops[i], PLAN_REDUCE_AXIS_ALL, &info, data, 30001, sim,
        4096, &fused, &whole);
    fail_unless (fused.size == whole.size
        && memcmp (fused.values, whole.values, fused.size) == 0,
        "op %d: the fused map on the sim device differs", ops[i]);
    result_clear (&fused);
    result_clear (&whole);
  }

  info_set (&info, PLAN_DTYPE_FLOAT32, 2, rows);
  map_then_reduce (PLAN_REDUCE_OP_SUM, PLAN_REDUCE_AXIS_INNER, &info, data,
      3001, NULL, 1000, &fused, &whole);
  fail_unless (fused.size == 3001 * sizeof (gdouble));
  fail_unless (memcmp (fused.values, whole.values, fused.size) == 0);
  result_clear (&fused);
  result_clear (&whole);

  info_set (&info, PLAN_DTYPE_FLOAT32, 1, flat);
  map = plan_reduce_map_new ("x * ", PLAN_DTYPE_UNKNOWN, &info, &info, &err);
  fail_unless (map == NULL);
  fail_unless (err != NULL && err->domain == PLAN_ERROR);
  g_clear_error (&err);
  map = plan_reduce_map_new ("y * 2", PLAN_DTYPE_UNKNOWN, &info, &info,
      &err);
  fail_unless (map == NULL);
  fail_unless (err != NULL && strstr (err->message, "y") != NULL, "%s",
      err ? err->message : "");
  g_clear_error (&err);
  g_free (data);
  gst_object_unref (sim);
}

GST_END_TEST;

static Suite *
reducerdevice_suite (void)
{
  Suite *s = suite_create ("planreducerdevice");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_every_op_on_sim_small);
  tcase_add_test (tc, test_moments_nan_bits_equal_cpu_reducer);
  tcase_add_test (tc, test_extremes_zero_and_nan_bits_equal_cpu_reducer);
  tcase_add_test (tc, test_column_sums_nan_bits_equal_on_threads);
  tcase_add_test (tc, test_column_sums_nan_payloads_equal_cpu_reducer);
  tcase_add_test (tc, test_cpu_device_equals_cpu_reducer);
  tcase_add_test (tc, test_sim_device_equals_cpu_reducer);
  tcase_add_test (tc, test_empty_and_all_nan);
  tcase_add_test (tc, test_failed_launch_is_an_error);
  tcase_add_test (tc, test_custom_combiners_equal_cpu_reducer);
  tcase_add_test (tc, test_fused_map_equals_map_then_reduce);
  return s;
}

GST_CHECK_MAIN (reducerdevice);
