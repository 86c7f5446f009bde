/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* float16 conversions shared by the CPU inner loops (exprloops.c) and
 * libplan (which includes this through core/plan-private.h). Never
 * installed. */

#ifndef __PLAN_KERNELS_HALF_H__
#define __PLAN_KERNELS_HALF_H__

#include <glib.h>
#include <string.h>

G_BEGIN_DECLS

/* float16 (IEEE binary16, numpy's float16) to and from float and double,
 * rounding to nearest even exactly as numpy's npy_float_to_half and
 * npy_double_to_half do (a double is rounded once, never through float):
 * NaNs stay NaN with their sign and the top bits of their payload.
 * Branch-free, so that loops over them vectorise; the expression kernels,
 * the reducer and plandtype.c share them. */
static inline gfloat
_plan_half_to_float (guint16 h)
{
  guint32 em = h & 0x7fff, bits;
  /* A subnormal is its 10 bits times 2**-24: exact, and never a float
   * subnormal operand (which a CPU flushing denormals would zero). */
  gfloat sub = (gfloat) em * 0x1p-24f, f;
  guint32 sub_bits, normal = (em << 13) + ((guint32) (127 - 15) << 23);
  guint32 special = (em << 13) | 0x7f800000;

  memcpy (&sub_bits, &sub, 4);
  bits = em < 0x400 ? sub_bits : em >= 0x7c00 ? special : normal;
  bits |= (guint32) (h & 0x8000) << 16;
  memcpy (&f, &bits, 4);
  return f;
}

/* Exactly, as numpy's npy_half_to_double: not through float, whose
 * conversion to double would make a signalling NaN quiet. */
static inline gdouble
_plan_half_to_double (guint16 h)
{
  guint64 em = h & 0x7fff, bits, sub_bits;
  gdouble sub = (gdouble) em * 0x1p-24, d;
  guint64 normal = (em << 42) + ((guint64) (1023 - 15) << 52);
  guint64 special = (em << 42) | G_GUINT64_CONSTANT (0x7ff0000000000000);

  memcpy (&sub_bits, &sub, 8);
  bits = em < 0x400 ? sub_bits : em >= 0x7c00 ? special : normal;
  bits |= (guint64) (h & 0x8000) << 48;
  memcpy (&d, &bits, 8);
  return d;
}

static inline guint16
_plan_half_from_float (gfloat f)
{
  guint32 x, a, nan, normal, sub, h;
  gfloat sf;

  memcpy (&x, &f, 4);
  a = x & 0x7fffffff;
  nan = 0x7c00 | ((a >> 13) & 0x3ff);
  nan |= (nan & 0x3ff) == 0;
  /* Rebias the exponent and round the 13 dropped bits to even. */
  normal = (a - ((guint32) 112 << 23) + 0xfff + ((a >> 13) & 1)) >> 13;
  /* Below 2**-14: adding 0.5 leaves round (|f| * 2**24) in the low bits,
   * rounded to even by the addition itself. */
  memcpy (&sf, &a, 4);
  sf += 0.5f;
  memcpy (&sub, &sf, 4);
  sub -= 0x3f000000;
  h = a > 0x7f800000 ? nan : a >= 0x477ff000 ? 0x7c00 : a >= 0x38800000 ?
      normal : sub;
  return (guint16) (h | ((x >> 16) & 0x8000));
}

static inline guint16
_plan_half_from_double (gdouble d)
{
  guint64 x, a, normal, sub;
  guint32 nan, h;
  gdouble sd;

  memcpy (&x, &d, 8);
  a = x & G_GUINT64_CONSTANT (0x7fffffffffffffff);
  nan = 0x7c00 | (guint32) ((a >> 42) & 0x3ff);
  nan |= (nan & 0x3ff) == 0;
  normal = (a - ((guint64) 1008 << 52) + ((G_GUINT64_CONSTANT (1) << 41) - 1)
      + ((a >> 42) & 1)) >> 42;
  memcpy (&sd, &a, 8);
  sd += 0x1p28;
  memcpy (&sub, &sd, 8);
  sub -= G_GUINT64_CONSTANT (0x41b0000000000000);
  h = a > G_GUINT64_CONSTANT (0x7ff0000000000000) ? nan :
      a >= G_GUINT64_CONSTANT (0x40effe0000000000) ? 0x7c00 :
      a >= G_GUINT64_CONSTANT (0x3f10000000000000) ? (guint32) normal :
      (guint32) sub;
  return (guint16) (h | ((x >> 48) & 0x8000));
}

G_END_DECLS

#endif /* __PLAN_KERNELS_HALF_H__ */
