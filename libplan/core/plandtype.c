/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:plandtype
 * @title: PlanDType
 * @short_description: array element types by their numpy names
 *
 * A #PlanDType names the element type of an array the way numpy does:
 * `bool`, `int8` … `uint64`, `float16`, `float32`, `float64`, `complex64`,
 * `complex128`. It is registered as a
 * #GEnum (#PLAN_TYPE_DTYPE) so element properties can use it directly.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plandtype.h"
#include "planerror.h"
#include "plan-private.h"

#include <string.h>

typedef struct
{
  const gchar *name;
  const gchar *npy;             /* .npy descr, little-endian */
  gsize size;
  gboolean is_float;
  gboolean is_signed;
  gboolean is_complex;
} DTypeDesc;

/* Indexed by PlanDType. */
static const DTypeDesc dtypes[PLAN_DTYPE_N] = {
  [PLAN_DTYPE_UNKNOWN] = {"unknown", NULL, 0, FALSE, FALSE},
  [PLAN_DTYPE_BOOL] = {"bool", "|b1", 1, FALSE, FALSE},
  [PLAN_DTYPE_INT8] = {"int8", "|i1", 1, FALSE, TRUE},
  [PLAN_DTYPE_UINT8] = {"uint8", "|u1", 1, FALSE, FALSE},
  [PLAN_DTYPE_INT16] = {"int16", "<i2", 2, FALSE, TRUE},
  [PLAN_DTYPE_UINT16] = {"uint16", "<u2", 2, FALSE, FALSE},
  [PLAN_DTYPE_INT32] = {"int32", "<i4", 4, FALSE, TRUE},
  [PLAN_DTYPE_UINT32] = {"uint32", "<u4", 4, FALSE, FALSE},
  [PLAN_DTYPE_INT64] = {"int64", "<i8", 8, FALSE, TRUE},
  [PLAN_DTYPE_UINT64] = {"uint64", "<u8", 8, FALSE, FALSE},
  [PLAN_DTYPE_FLOAT32] = {"float32", "<f4", 4, TRUE, TRUE},
  [PLAN_DTYPE_FLOAT64] = {"float64", "<f8", 8, TRUE, TRUE},
  [PLAN_DTYPE_COMPLEX64] = {"complex64", "<c8", 8, FALSE, TRUE, TRUE},
  [PLAN_DTYPE_COMPLEX128] = {"complex128", "<c16", 16, FALSE, TRUE, TRUE},
  [PLAN_DTYPE_FLOAT16] = {"float16", "<f2", 2, TRUE, TRUE, FALSE},
};

static gboolean
dtype_valid (PlanDType dtype)
{
  return dtype > PLAN_DTYPE_UNKNOWN && dtype < PLAN_DTYPE_N;
}

GType
plan_dtype_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {PLAN_DTYPE_UNKNOWN, "Unknown dtype", "unknown"},
    {PLAN_DTYPE_BOOL, "Boolean, one byte", "bool"},
    {PLAN_DTYPE_INT8, "Signed 8-bit integer", "int8"},
    {PLAN_DTYPE_UINT8, "Unsigned 8-bit integer", "uint8"},
    {PLAN_DTYPE_INT16, "Signed 16-bit integer", "int16"},
    {PLAN_DTYPE_UINT16, "Unsigned 16-bit integer", "uint16"},
    {PLAN_DTYPE_INT32, "Signed 32-bit integer", "int32"},
    {PLAN_DTYPE_UINT32, "Unsigned 32-bit integer", "uint32"},
    {PLAN_DTYPE_INT64, "Signed 64-bit integer", "int64"},
    {PLAN_DTYPE_UINT64, "Unsigned 64-bit integer", "uint64"},
    {PLAN_DTYPE_FLOAT32, "32-bit IEEE float", "float32"},
    {PLAN_DTYPE_FLOAT64, "64-bit IEEE float", "float64"},
    {PLAN_DTYPE_COMPLEX64, "Complex of two 32-bit floats", "complex64"},
    {PLAN_DTYPE_COMPLEX128, "Complex of two 64-bit floats", "complex128"},
    {PLAN_DTYPE_FLOAT16, "16-bit IEEE float", "float16"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("PlanDType", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/**
 * plan_dtype_from_string:
 * @name: (nullable): a numpy dtype name such as "float32"
 *
 * Returns: the dtype called @name, or %PLAN_DTYPE_UNKNOWN.
 *
 * Since: 0.1
 */
PlanDType
plan_dtype_from_string (const gchar * name)
{
  gint i;

  if (name == NULL)
    return PLAN_DTYPE_UNKNOWN;

  for (i = PLAN_DTYPE_BOOL; i < PLAN_DTYPE_N; i++) {
    if (strcmp (dtypes[i].name, name) == 0)
      return (PlanDType) i;
  }
  return PLAN_DTYPE_UNKNOWN;
}

/**
 * plan_dtype_parse:
 * @name: a numpy dtype name such as "float32"
 * @error: return location for a #GError
 *
 * Like plan_dtype_from_string(), but says what the valid names are when
 * @name is not one of them.
 *
 * Returns: the dtype, or %PLAN_DTYPE_UNKNOWN with @error set.
 *
 * Since: 0.1
 */
PlanDType
plan_dtype_parse (const gchar * name, GError ** error)
{
  PlanDType dtype = plan_dtype_from_string (name);

  if (dtype == PLAN_DTYPE_UNKNOWN) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "'%s' is not a dtype; use one of bool, int8, uint8, int16, uint16, "
        "int32, uint32, int64, uint64, float16, float32, float64, complex64, "
        "complex128", name ? name : "");
  }
  return dtype;
}

/**
 * plan_dtype_to_string:
 * @dtype: a #PlanDType
 *
 * Returns: (transfer none): the numpy name of @dtype ("unknown" for an
 *   invalid value).
 *
 * Since: 0.1
 */
const gchar *
plan_dtype_to_string (PlanDType dtype)
{
  return dtype_valid (dtype) ? dtypes[dtype].name : "unknown";
}

/**
 * plan_dtype_get_article:
 * @dtype: a #PlanDType
 *
 * The indefinite article that goes before the name plan_dtype_to_string()
 * gives, for messages: "an int8", "an int64", but "a uint8" (said
 * "you-int"), "a float32", "a bool", "a complex64".
 *
 * Returns: (transfer none): "an" or "a".
 *
 * Since: 0.1
 */
const gchar *
plan_dtype_get_article (PlanDType dtype)
{
  const gchar *name = plan_dtype_to_string (dtype);

  /* "int…" and "unknown" start with a vowel sound; "uint…" does not. */
  return name[0] == 'i' || !dtype_valid (dtype) ? "an" : "a";
}

/**
 * plan_dtype_get_size:
 * @dtype: a #PlanDType
 *
 * Returns: the size of one element in bytes, 0 for an invalid dtype.
 *
 * Since: 0.1
 */
gsize
plan_dtype_get_size (PlanDType dtype)
{
  return dtype_valid (dtype) ? dtypes[dtype].size : 0;
}

/**
 * plan_dtype_is_float:
 * @dtype: a #PlanDType
 *
 * Returns: whether @dtype is float16, float32 or float64.
 *
 * Since: 0.1
 */
gboolean
plan_dtype_is_float (PlanDType dtype)
{
  return dtype_valid (dtype) && dtypes[dtype].is_float;
}

/**
 * plan_dtype_is_integer:
 * @dtype: a #PlanDType
 *
 * Returns: whether @dtype is one of the (signed or unsigned) integer types;
 *   bool is not an integer type.
 *
 * Since: 0.1
 */
gboolean
plan_dtype_is_integer (PlanDType dtype)
{
  return dtype_valid (dtype) && dtype != PLAN_DTYPE_BOOL
      && !dtypes[dtype].is_float && !dtypes[dtype].is_complex;
}

/**
 * plan_dtype_is_complex:
 * @dtype: a #PlanDType
 *
 * Returns: whether @dtype is complex64 or complex128.
 *
 * Since: 0.1
 */
gboolean
plan_dtype_is_complex (PlanDType dtype)
{
  return dtype_valid (dtype) && dtypes[dtype].is_complex;
}

/**
 * plan_dtype_get_real:
 * @dtype: a #PlanDType
 *
 * Returns: the dtype of the real and imaginary parts of a complex @dtype
 *   (float32 for complex64, float64 for complex128), @dtype itself for
 *   any other.
 *
 * Since: 0.1
 */
PlanDType
plan_dtype_get_real (PlanDType dtype)
{
  if (dtype == PLAN_DTYPE_COMPLEX64)
    return PLAN_DTYPE_FLOAT32;
  if (dtype == PLAN_DTYPE_COMPLEX128)
    return PLAN_DTYPE_FLOAT64;
  return dtype;
}

/**
 * plan_dtype_is_signed:
 * @dtype: a #PlanDType
 *
 * Returns: whether @dtype holds negative values (signed integers, floats,
 *   complex numbers).
 *
 * Since: 0.1
 */
gboolean
plan_dtype_is_signed (PlanDType dtype)
{
  return dtype_valid (dtype) && dtypes[dtype].is_signed;
}

/**
 * plan_dtype_from_npy_descr:
 * @descr: the `descr` of a .npy header, such as "<f4"
 * @error: return location for a #GError
 *
 * Maps a .npy type descriptor to a dtype. The byte-order mark may be '<',
 * '|' or '=' (this machine is little-endian), or absent (native, as numpy
 * reads it); '>' for a multi-byte type is reported as unsupported. After
 * it, a kind and a size ("f4", numpy's own spelling) or one of numpy's
 * type characters ('?', 'b', 'B', 'h', 'H', 'i', 'I', 'l', 'L', 'q', 'Q',
 * 'e', 'f', 'd', 'F', 'D', and 'p', 'P' for pointer-sized integers),
 * which other writers use; or, without a byte-order mark, one of the
 * names numpy knows them by: the dtype's name ("float32", "uint8",
 * "bool"), with numpy's aliases ("bool_", "float", "double", "single",
 * "half", "int", "long", "intc", "short", "byte", "ubyte", "complex",
 * "cfloat", "csingle" ...).
 *
 * Returns: the dtype, or %PLAN_DTYPE_UNKNOWN with @error set.
 *
 * Since: 0.1
 */
PlanDType
plan_dtype_from_npy_descr (const gchar * descr, GError ** error)
{
  return _plan_dtype_from_npy_descr (descr, NULL, error);
}

/* plan_dtype_from_npy_descr(), which with @big_endian accepts a '>'
 * byte-order mark too and says whether the elements are big-endian (FALSE
 * for single bytes, which have no byte order). */
PlanDType
_plan_dtype_from_npy_descr (const gchar * descr, gboolean * big_endian,
    GError ** error)
{
  /* numpy's type characters, as kind and size ('l' is C's long) */
  static const struct
  {
    gchar c;
    const gchar *ks;
  } chars[] = {
    {'?', "b1"}, {'b', "i1"}, {'B', "u1"}, {'h', "i2"}, {'H', "u2"},
    {'i', "i4"}, {'I', "u4"}, {'l', sizeof (long) == 8 ? "i8" : "i4"},
    {'L', sizeof (long) == 8 ? "u8" : "u4"}, {'q', "i8"}, {'Q', "u8"},
    {'e', "f2"}, {'f', "f4"}, {'d', "f8"}, {'F', "c8"}, {'D', "c16"},
    {'p', sizeof (gpointer) == 8 ? "i8" : "i4"},
    {'P', sizeof (gpointer) == 8 ? "u8" : "u4"},
  };
  /* numpy's names of them, read without a byte-order mark ('long' and the
   * pointer-sized ones, as C has them here) */
  static const struct
  {
    const gchar *name;
    const gchar *ks;
  } names[] = {
    {"bool", "b1"}, {"bool_", "b1"}, {"bool8", "b1"},
    {"int8", "i1"}, {"byte", "i1"}, {"uint8", "u1"}, {"ubyte", "u1"},
    {"int16", "i2"}, {"short", "i2"}, {"uint16", "u2"}, {"ushort", "u2"},
    {"int32", "i4"}, {"intc", "i4"}, {"uint32", "u4"}, {"uintc", "u4"},
    {"int64", "i8"}, {"longlong", "i8"}, {"uint64", "u8"},
    {"ulonglong", "u8"},
    {"int", sizeof (long) == 8 ? "i8" : "i4"},
    {"int_", sizeof (long) == 8 ? "i8" : "i4"},
    {"long", sizeof (long) == 8 ? "i8" : "i4"},
    {"uint", sizeof (long) == 8 ? "u8" : "u4"},
    {"ulong", sizeof (long) == 8 ? "u8" : "u4"},
    {"intp", sizeof (gpointer) == 8 ? "i8" : "i4"},
    {"int0", sizeof (gpointer) == 8 ? "i8" : "i4"},
    {"uintp", sizeof (gpointer) == 8 ? "u8" : "u4"},
    {"uint0", sizeof (gpointer) == 8 ? "u8" : "u4"},
    {"float16", "f2"}, {"half", "f2"}, {"float32", "f4"}, {"single", "f4"},
    {"float64", "f8"}, {"float", "f8"}, {"float_", "f8"}, {"double", "f8"},
    {"complex64", "c8"}, {"csingle", "c8"}, {"singlecomplex", "c8"},
    {"complex128", "c16"}, {"complex", "c16"}, {"complex_", "c16"},
    {"cfloat", "c16"}, {"cdouble", "c16"},
  };
  const gchar *ks = descr;
  gchar order = '=';
  gint i;

  for (i = 0; i < (gint) G_N_ELEMENTS (names); i++)
    if (strcmp (descr, names[i].name) == 0) {
      ks = names[i].ks;
      goto known;
    }
  if (*ks != '\0' && strchr ("<>|=", *ks) != NULL)
    order = *ks++;
  if (ks[0] != '\0' && ks[1] == '\0') {
    for (i = 0; i < (gint) G_N_ELEMENTS (chars); i++)
      if (chars[i].c == ks[0]) {
        ks = chars[i].ks;
        break;
      }
  }
  if (strlen (ks) < 2)
    goto unknown;

known:
  for (i = PLAN_DTYPE_BOOL; i < PLAN_DTYPE_N; i++) {
    if (strcmp (dtypes[i].npy + 1, ks) != 0)
      continue;
    if (big_endian)
      *big_endian = order == '>' && dtypes[i].size > 1;
    if (order == '>' && dtypes[i].size > 1 && big_endian == NULL) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
          "big-endian dtype '%s' is not supported; convert the array with "
          "numpy's astype('%s') first", descr, dtypes[i].npy);
      return PLAN_DTYPE_UNKNOWN;
    }
    return (PlanDType) i;
  }

unknown:
  {
    /* A header's text may hold any byte. */
    gchar *escaped = g_strescape (descr, NULL);

    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "dtype '%s' is not supported; only bool, integer, "
        "float16/float32/float64 and complex64/complex128 arrays can be "
        "read", escaped);
    g_free (escaped);
    return PLAN_DTYPE_UNKNOWN;
  }
}

/**
 * plan_dtype_swap_bytes:
 * @dtype: a #PlanDType
 * @data: (array length=size) (element-type guint8): elements of @dtype
 * @size: the number of bytes in @data, a multiple of the size of @dtype
 *
 * Reverses the byte order of every element in @data, in place: turns
 * big-endian elements into the machine's (little-endian) ones and back.
 * The real and imaginary parts of a complex number are swapped each on its
 * own, as numpy stores them; single-byte elements are left as they are.
 * Every bit is kept, NaN payloads included.
 *
 * Since: 0.1
 */
void
plan_dtype_swap_bytes (PlanDType dtype, gpointer data, gsize size)
{
  gsize unit, i;
  guint8 *p = data;

  g_return_if_fail (dtype_valid (dtype));
  g_return_if_fail (data != NULL || size == 0);
  g_return_if_fail (size % dtypes[dtype].size == 0);

  unit = dtypes[dtype].is_complex ? dtypes[dtype].size / 2 : dtypes[dtype].size;
  switch (unit) {
    case 1:
      break;
    case 2:
      for (i = 0; i < size; i += 2) {
        guint16 v;
        memcpy (&v, p + i, 2);
        v = GUINT16_SWAP_LE_BE (v);
        memcpy (p + i, &v, 2);
      }
      break;
    case 4:
      for (i = 0; i < size; i += 4) {
        guint32 v;
        memcpy (&v, p + i, 4);
        v = GUINT32_SWAP_LE_BE (v);
        memcpy (p + i, &v, 4);
      }
      break;
    case 8:
      for (i = 0; i < size; i += 8) {
        guint64 v;
        memcpy (&v, p + i, 8);
        v = GUINT64_SWAP_LE_BE (v);
        memcpy (p + i, &v, 8);
      }
      break;
    default:
      g_assert_not_reached ();
  }
}

/**
 * plan_dtype_to_npy_descr:
 * @dtype: a #PlanDType
 *
 * Returns: (transfer none) (nullable): the .npy `descr` of @dtype, such as
 *   "<f4", or %NULL for an invalid dtype.
 *
 * Since: 0.1
 */
const gchar *
plan_dtype_to_npy_descr (PlanDType dtype)
{
  return dtype_valid (dtype) ? dtypes[dtype].npy : NULL;
}

/**
 * plan_dtype_float16_to_double:
 * @bits: a float16 value, as its 16 bits
 *
 * Converts a float16 to a double, exactly (every float16 is a double).
 *
 * Returns: the value of @bits.
 *
 * Since: 0.1
 */
gdouble
plan_dtype_float16_to_double (guint16 bits)
{
  return _plan_half_to_float (bits);
}

/**
 * plan_dtype_float16_from_double:
 * @value: a double
 *
 * Rounds @value to the nearest float16, ties to even, as numpy's
 * `astype(np.float16)` of a float64 does: values of magnitude 65520 and
 * more become infinities, NaN stays NaN (with its sign).
 *
 * Returns: the float16, as its 16 bits.
 *
 * Since: 0.1
 */
guint16
plan_dtype_float16_from_double (gdouble value)
{
  return _plan_half_from_double (value);
}
