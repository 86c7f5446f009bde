/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_DTYPE_H__
#define __PLAN_DTYPE_H__

#include <libplan/plan-prelude.h>

G_BEGIN_DECLS

/**
 * PlanDType:
 * @PLAN_DTYPE_UNKNOWN: not a dtype; returned on parse errors.
 * @PLAN_DTYPE_BOOL: numpy `bool`, one byte, 0 or 1.
 * @PLAN_DTYPE_INT8: numpy `int8`.
 * @PLAN_DTYPE_UINT8: numpy `uint8`.
 * @PLAN_DTYPE_INT16: numpy `int16`.
 * @PLAN_DTYPE_UINT16: numpy `uint16`.
 * @PLAN_DTYPE_INT32: numpy `int32`.
 * @PLAN_DTYPE_UINT32: numpy `uint32`.
 * @PLAN_DTYPE_INT64: numpy `int64`.
 * @PLAN_DTYPE_UINT64: numpy `uint64`.
 * @PLAN_DTYPE_FLOAT32: numpy `float32`.
 * @PLAN_DTYPE_FLOAT64: numpy `float64`.
 * @PLAN_DTYPE_COMPLEX64: numpy `complex64`: two float32, the real part
 *   first (C's `float _Complex`).
 * @PLAN_DTYPE_COMPLEX128: numpy `complex128`: two float64, the real part
 *   first (C's `double _Complex`).
 * @PLAN_DTYPE_FLOAT16: numpy `float16` (IEEE 754 binary16, CUDA's
 *   `__half`), a storage type: arithmetic on it is computed in float32 and
 *   rounded to float16 after every operation, as numpy does.
 *
 * Element types of arrays, named as numpy names them. Values are stored in
 * the machine's (little-endian) byte order.
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_DTYPE_UNKNOWN = 0,
  PLAN_DTYPE_BOOL,
  PLAN_DTYPE_INT8,
  PLAN_DTYPE_UINT8,
  PLAN_DTYPE_INT16,
  PLAN_DTYPE_UINT16,
  PLAN_DTYPE_INT32,
  PLAN_DTYPE_UINT32,
  PLAN_DTYPE_INT64,
  PLAN_DTYPE_UINT64,
  PLAN_DTYPE_FLOAT32,
  PLAN_DTYPE_FLOAT64,
  PLAN_DTYPE_COMPLEX64,
  PLAN_DTYPE_COMPLEX128,
  PLAN_DTYPE_FLOAT16,
} PlanDType;

/**
 * PLAN_DTYPE_N:
 *
 * One more than the largest #PlanDType value, for tables indexed by dtype.
 *
 * Since: 0.1
 */
#define PLAN_DTYPE_N (PLAN_DTYPE_FLOAT16 + 1)

/**
 * PLAN_DTYPE_NAMES:
 *
 * The dtype names a caps `dtype` field may take, as a caps list.
 *
 * Since: 0.1
 */
#define PLAN_DTYPE_NAMES "{ bool, int8, uint8, int16, uint16, int32, " \
    "uint32, int64, uint64, float16, float32, float64, complex64, " \
    "complex128 }"

#define PLAN_TYPE_DTYPE (plan_dtype_get_type ())
PLAN_API
GType plan_dtype_get_type (void);

PLAN_API
PlanDType plan_dtype_from_string (const gchar * name);

PLAN_API
PlanDType plan_dtype_parse (const gchar * name, GError ** error);

PLAN_API
const gchar * plan_dtype_to_string (PlanDType dtype);

PLAN_API
const gchar * plan_dtype_get_article (PlanDType dtype);

PLAN_API
gsize plan_dtype_get_size (PlanDType dtype);

PLAN_API
gboolean plan_dtype_is_float (PlanDType dtype);

PLAN_API
gboolean plan_dtype_is_integer (PlanDType dtype);

PLAN_API
gboolean plan_dtype_is_complex (PlanDType dtype);

PLAN_API
PlanDType plan_dtype_get_real (PlanDType dtype);

PLAN_API
gboolean plan_dtype_is_signed (PlanDType dtype);

PLAN_API
PlanDType plan_dtype_from_npy_descr (const gchar * descr, GError ** error);

PLAN_API
const gchar * plan_dtype_to_npy_descr (PlanDType dtype);

PLAN_API
void plan_dtype_swap_bytes (PlanDType dtype, gpointer data, gsize size);

PLAN_API
gdouble plan_dtype_float16_to_double (guint16 bits);

PLAN_API
guint16 plan_dtype_float16_from_double (gdouble value);

G_END_DECLS

#endif /* __PLAN_DTYPE_H__ */
