/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The ops and the data the device reduction's tests share (reducerdevice.c
 * on the cpu and sim devices, reducercuda.c through nvcc and NVRTC). */

#ifndef PLAN_TEST_REDUCER_CASES_H
#define PLAN_TEST_REDUCER_CASES_H

#include <libplan/plan.h>
#include <math.h>

static const PlanReduceOp all_ops[] = {
  PLAN_REDUCE_OP_SUM, PLAN_REDUCE_OP_PROD, PLAN_REDUCE_OP_MIN,
  PLAN_REDUCE_OP_MAX, PLAN_REDUCE_OP_MEAN, PLAN_REDUCE_OP_ARGMIN,
  PLAN_REDUCE_OP_ARGMAX, PLAN_REDUCE_OP_ANY, PLAN_REDUCE_OP_ALL,
  PLAN_REDUCE_OP_NANSUM, PLAN_REDUCE_OP_NANPROD, PLAN_REDUCE_OP_NANMIN,
  PLAN_REDUCE_OP_NANMAX, PLAN_REDUCE_OP_NANMEAN, PLAN_REDUCE_OP_NANARGMIN,
  PLAN_REDUCE_OP_NANARGMAX, PLAN_REDUCE_OP_VAR, PLAN_REDUCE_OP_STD,
  PLAN_REDUCE_OP_NANVAR, PLAN_REDUCE_OP_NANSTD,
  PLAN_REDUCE_OP_COUNT_NONZERO, PLAN_REDUCE_OP_PTP,
};

/* The float16 bits of @v, a value float16 holds exactly (0 or normal). */
static guint16
half_bits (gdouble v)
{
  guint16 sign = signbit (v) ? 0x8000 : 0;
  gint e;
  gdouble m;

  v = fabs (v);
  if (v == 0)
    return sign;
  m = frexp (v, &e);            /* v = m 2^e, m in [0.5, 1) */
  return sign | (guint16) ((e + 14) << 10) | (guint16) ((m * 2 - 1) * 1024);
}

/* Values of @dtype that exercise the compensation, the NaN rules and the
 * ties of arg ops; @nan_every: a NaN every that many elements (floats and
 * complex numbers, whose NaNs are in one part or the other), 0 for
 * none. */
G_GNUC_UNUSED static void
fill (PlanDType dtype, guint8 * out, gsize n, guint seed, gsize nan_every)
{
  GRand *rand = g_rand_new_with_seed (seed);
  gsize i;

  for (i = 0; i < n; i++) {
    gdouble d = g_rand_double_range (rand, -1.0, 1.0);
    gint32 k = g_rand_int_range (rand, -120, 120);

    if (i % 97 == 5)
      d *= 1e12;
    if (i % 31 == 7)
      d = 0.0;
    switch (dtype) {
      case PLAN_DTYPE_BOOL:
        out[i] = (guint8) (k > -30 ? (k & 3) : 0);
        break;
      case PLAN_DTYPE_INT8:
      case PLAN_DTYPE_UINT8:
        ((gint8 *) out)[i] = (gint8) k;
        break;
      case PLAN_DTYPE_INT16:
      case PLAN_DTYPE_UINT16:
        ((gint16 *) out)[i] = (gint16) (k * 250);
        break;
      case PLAN_DTYPE_INT32:
      case PLAN_DTYPE_UINT32:
        ((gint32 *) out)[i] = k * 17000000;
        break;
      case PLAN_DTYPE_INT64:
      case PLAN_DTYPE_UINT64:
        ((gint64 *) out)[i] = (gint64) k * G_GINT64_CONSTANT (70000000000000000);
        break;
      case PLAN_DTYPE_FLOAT32:
        ((gfloat *) out)[i] = (nan_every && i % nan_every == 3) ? NAN
            : (gfloat) (1e3 + d);
        break;
      case PLAN_DTYPE_FLOAT16:
        /* eighths (ties), and some large values */
        ((guint16 *) out)[i] = (nan_every && i % nan_every == 3) ? 0x7e00
            : half_bits (i % 97 == 5 ? k * 256.0 : k / 8.0);
        break;
      case PLAN_DTYPE_COMPLEX64:
      case PLAN_DTYPE_COMPLEX128:{
        /* real parts that tie (so that the imaginary parts order them),
         * and large ones with small differences */
        gdouble re = i % 3 == 0 ? (gdouble) (k / 16) : 1e3 + d;
        gdouble im = i % 4 == 1 ? (gdouble) (k / 32) : d * 1e2;

        if (dtype == PLAN_DTYPE_COMPLEX128 && i % 3 != 0)
          re = 1e9 + d * (i % 5 == 0 ? 1e-7 : 1.0);
        if (nan_every && i % nan_every == 3) {
          if (i % 2)
            re = NAN;
          else
            im = NAN;
        }
        if (dtype == PLAN_DTYPE_COMPLEX64) {
          ((gfloat *) out)[2 * i] = (gfloat) re;
          ((gfloat *) out)[2 * i + 1] = (gfloat) im;
        } else {
          ((gdouble *) out)[2 * i] = re;
          ((gdouble *) out)[2 * i + 1] = im;
        }
        break;
      }
      default:
        ((gdouble *) out)[i] = (nan_every && i % nan_every == 3) ? NAN
            : 1e9 + d * (i % 5 == 0 ? 1e-7 : 1.0);
        break;
    }
  }
  g_rand_free (rand);
}

#endif
