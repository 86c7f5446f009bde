/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>

#include <math.h>
#include <string.h>

GST_START_TEST (test_dtype_names_round_trip)
{
  gint i;

  for (i = PLAN_DTYPE_BOOL; i < PLAN_DTYPE_N; i++) {
    const gchar *name = plan_dtype_to_string ((PlanDType) i);
    fail_unless_equals_int (plan_dtype_from_string (name), i);
  }
  fail_unless_equals_int (plan_dtype_get_size (PLAN_DTYPE_BOOL), 1);
  fail_unless_equals_int (plan_dtype_get_size (PLAN_DTYPE_UINT16), 2);
  fail_unless_equals_int (plan_dtype_get_size (PLAN_DTYPE_FLOAT64), 8);
  fail_unless (plan_dtype_is_float (PLAN_DTYPE_FLOAT32));
  fail_if (plan_dtype_is_integer (PLAN_DTYPE_BOOL));
  fail_unless (plan_dtype_is_signed (PLAN_DTYPE_INT8));
  fail_if (plan_dtype_is_signed (PLAN_DTYPE_UINT64));
}

GST_END_TEST;

/* The article before each dtype's name in a message: "an" before the
 * names said with a vowel first (int8 ... int64), "a" before the others
 * (uint8, said "you-int", float32, bool, complex64). */
GST_START_TEST (test_dtype_article)
{
  gint i;

  for (i = PLAN_DTYPE_UNKNOWN + 1; i < PLAN_DTYPE_N; i++) {
    const gchar *name = plan_dtype_to_string ((PlanDType) i);

    fail_unless_equals_string (plan_dtype_get_article ((PlanDType) i),
        g_str_has_prefix (name, "int") ? "an" : "a");
  }
  fail_unless_equals_string (plan_dtype_get_article (PLAN_DTYPE_UINT8), "a");
  fail_unless_equals_string (plan_dtype_get_article (PLAN_DTYPE_INT64), "an");
}

GST_END_TEST;

GST_START_TEST (test_dtype_complex)
{
  fail_unless_equals_int (plan_dtype_get_size (PLAN_DTYPE_COMPLEX64), 8);
  fail_unless_equals_int (plan_dtype_get_size (PLAN_DTYPE_COMPLEX128), 16);
  fail_unless (plan_dtype_is_complex (PLAN_DTYPE_COMPLEX64));
  fail_if (plan_dtype_is_complex (PLAN_DTYPE_FLOAT64));
  fail_if (plan_dtype_is_float (PLAN_DTYPE_COMPLEX128));
  fail_if (plan_dtype_is_integer (PLAN_DTYPE_COMPLEX64));
  fail_unless_equals_int (plan_dtype_get_real (PLAN_DTYPE_COMPLEX64),
      PLAN_DTYPE_FLOAT32);
  fail_unless_equals_int (plan_dtype_get_real (PLAN_DTYPE_COMPLEX128),
      PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int (plan_dtype_get_real (PLAN_DTYPE_INT8),
      PLAN_DTYPE_INT8);
  fail_unless_equals_int (plan_dtype_from_string ("complex128"),
      PLAN_DTYPE_COMPLEX128);
}

GST_END_TEST;

GST_START_TEST (test_dtype_parse_rejects_unknown_name)
{
  GError *err = NULL;

  fail_unless_equals_int (plan_dtype_parse ("float128", &err),
      PLAN_DTYPE_UNKNOWN);
  fail_unless (g_error_matches (err, PLAN_ERROR,
          PLAN_ERROR_INVALID_ARGUMENT));
  fail_unless (strstr (err->message, "'float128'") != NULL);
  fail_unless (strstr (err->message, "float32") != NULL);
  g_error_free (err);
}

GST_END_TEST;

GST_START_TEST (test_dtype_npy_descr)
{
  GError *err = NULL;

  fail_unless_equals_int (plan_dtype_from_npy_descr ("<f4", NULL),
      PLAN_DTYPE_FLOAT32);
  fail_unless_equals_int (plan_dtype_from_npy_descr ("|b1", NULL),
      PLAN_DTYPE_BOOL);
  fail_unless_equals_int (plan_dtype_from_npy_descr (">u1", NULL),
      PLAN_DTYPE_UINT8);
  fail_unless_equals_string (plan_dtype_to_npy_descr (PLAN_DTYPE_INT64),
      "<i8");

  fail_unless_equals_int (plan_dtype_from_npy_descr (">f8", &err),
      PLAN_DTYPE_UNKNOWN);
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED));
  fail_unless (strstr (err->message, "big-endian") != NULL);
  g_clear_error (&err);

  fail_unless_equals_int (plan_dtype_from_npy_descr ("<c8", NULL),
      PLAN_DTYPE_COMPLEX64);
  fail_unless_equals_int (plan_dtype_from_npy_descr ("<c16", NULL),
      PLAN_DTYPE_COMPLEX128);
  fail_unless_equals_string (plan_dtype_to_npy_descr (PLAN_DTYPE_COMPLEX128),
      "<c16");
  fail_unless_equals_int (plan_dtype_from_npy_descr (">c8", &err),
      PLAN_DTYPE_UNKNOWN);
  fail_unless (strstr (err->message, "big-endian") != NULL);
  g_clear_error (&err);

  fail_unless_equals_int (plan_dtype_from_npy_descr ("<c32", &err),
      PLAN_DTYPE_UNKNOWN);
  fail_unless (strstr (err->message, "<c32") != NULL);
  g_clear_error (&err);

  /* What numpy reads besides its own spelling: no byte-order mark
   * (native), and its type characters, which other writers use. */
  fail_unless_equals_int (plan_dtype_from_npy_descr ("f8", NULL),
      PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int (plan_dtype_from_npy_descr ("<e", NULL),
      PLAN_DTYPE_FLOAT16);
  fail_unless_equals_int (plan_dtype_from_npy_descr ("|?", NULL),
      PLAN_DTYPE_BOOL);
  fail_unless_equals_int (plan_dtype_from_npy_descr ("<H", NULL),
      PLAN_DTYPE_UINT16);
  fail_unless_equals_int (plan_dtype_from_npy_descr ("=q", NULL),
      PLAN_DTYPE_INT64);
  fail_unless_equals_int (plan_dtype_from_npy_descr ("<D", NULL),
      PLAN_DTYPE_COMPLEX128);
  fail_unless_equals_int (plan_dtype_from_npy_descr (">d", &err),
      PLAN_DTYPE_UNKNOWN);
  fail_unless (strstr (err->message, "big-endian dtype '>d'") != NULL);
  fail_unless (strstr (err->message, "astype('<f8')") != NULL);
  g_clear_error (&err);
  fail_unless_equals_int (plan_dtype_from_npy_descr ("<g", &err),
      PLAN_DTYPE_UNKNOWN);
  fail_unless (strstr (err->message, "'<g' is not supported") != NULL);
  g_clear_error (&err);
  fail_unless_equals_int (plan_dtype_from_npy_descr ("", &err),
      PLAN_DTYPE_UNKNOWN);
  g_clear_error (&err);
  fail_unless_equals_int (plan_dtype_from_npy_descr ("<", &err),
      PLAN_DTYPE_UNKNOWN);
  g_clear_error (&err);
}

GST_END_TEST;

/* float16 is numpy's '<f2', two bytes, a float; conversions round to
 * nearest even once, as numpy's astype(np.float16) of a float64. */
GST_START_TEST (test_dtype_float16)
{
  GError *err = NULL;
  guint32 h;

  fail_unless_equals_int (plan_dtype_from_string ("float16"),
      PLAN_DTYPE_FLOAT16);
  fail_unless_equals_int (plan_dtype_get_size (PLAN_DTYPE_FLOAT16), 2);
  fail_unless (plan_dtype_is_float (PLAN_DTYPE_FLOAT16));
  fail_unless (plan_dtype_is_signed (PLAN_DTYPE_FLOAT16));
  fail_if (plan_dtype_is_integer (PLAN_DTYPE_FLOAT16));
  fail_unless_equals_string (plan_dtype_to_npy_descr (PLAN_DTYPE_FLOAT16),
      "<f2");
  fail_unless_equals_int (plan_dtype_from_npy_descr ("<f2", NULL),
      PLAN_DTYPE_FLOAT16);
  fail_unless_equals_int (plan_dtype_from_npy_descr ("=f2", NULL),
      PLAN_DTYPE_FLOAT16);
  fail_unless_equals_int (plan_dtype_from_npy_descr (">f2", &err),
      PLAN_DTYPE_UNKNOWN);
  fail_unless (strstr (err->message, "big-endian") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  /* every float16 survives the trip through double, NaNs stay NaN */
  for (h = 0; h <= 0xffff; h++) {
    gdouble d = plan_dtype_float16_to_double ((guint16) h);
    if ((h & 0x7fff) > 0x7c00)
      fail_unless (isnan (d) && (plan_dtype_float16_from_double (d)
              & 0x7fff) > 0x7c00);
    else
      fail_unless_equals_int (plan_dtype_float16_from_double (d), h);
  }
  fail_unless_equals_float (plan_dtype_float16_to_double (0x7bff), 65504.0);
  fail_unless_equals_float (plan_dtype_float16_to_double (0x0001),
      ldexp (1.0, -24));
  fail_unless_equals_float (plan_dtype_float16_to_double (0xc000), -2.0);
  /* halfway cases go to even, in normals and subnormals; one double
   * above a halfway point goes up (through float it would tie) */
  fail_unless_equals_int (plan_dtype_float16_from_double (2049.0), 0x6800);
  fail_unless_equals_int (plan_dtype_float16_from_double (2051.0), 0x6802);
  fail_unless_equals_int (plan_dtype_float16_from_double (
          nextafter (2049.0, 3000.0)), 0x6801);
  fail_unless_equals_int (plan_dtype_float16_from_double (ldexp (1, -25)), 0);
  fail_unless_equals_int (plan_dtype_float16_from_double (3 * ldexp (1,
              -25)), 2);
  fail_unless_equals_int (plan_dtype_float16_from_double (-1e-10), 0x8000);
  fail_unless_equals_int (plan_dtype_float16_from_double (65519.99), 0x7bff);
  fail_unless_equals_int (plan_dtype_float16_from_double (65520.0), 0x7c00);
  fail_unless_equals_int (plan_dtype_float16_from_double (-1e300), 0xfc00);
  fail_unless_equals_int (plan_dtype_float16_from_double (-INFINITY),
      0xfc00);
  fail_unless ((plan_dtype_float16_from_double (NAN) & 0x7fff) > 0x7c00);
}

GST_END_TEST;

GST_START_TEST (test_shape_parse_numpy_forms)
{
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  guint ndim;

  fail_unless (plan_shape_parse ("(1000, 3)", &ndim, shape, NULL));
  fail_unless_equals_int (ndim, 2);
  fail_unless_equals_int64 (shape[0], 1000);
  fail_unless_equals_int64 (shape[1], 3);

  fail_unless (plan_shape_parse ("(5,)", &ndim, shape, NULL));
  fail_unless_equals_int (ndim, 1);
  fail_unless_equals_int64 (shape[0], 5);

  fail_unless (plan_shape_parse ("-1,4,2", &ndim, shape, NULL));
  fail_unless_equals_int (ndim, 3);
  fail_unless_equals_int64 (shape[0], -1);

  fail_unless (plan_shape_parse ("[7 8]", &ndim, shape, NULL));
  fail_unless_equals_int (ndim, 2);
  fail_unless_equals_int64 (shape[1], 8);

  fail_unless (plan_shape_parse ("()", &ndim, shape, NULL));
  fail_unless_equals_int (ndim, 0);
}

GST_END_TEST;

/* A left-out outermost axis is -1, and an error quotes the text as
 * given, with the column counted in it. */
GST_START_TEST (test_shape_parse_left_out_outer_axis)
{
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  GError *err = NULL;
  guint ndim;

  fail_unless (plan_shape_parse ("(, 3)", &ndim, shape, NULL));
  fail_unless_equals_int (ndim, 2);
  fail_unless_equals_int64 (shape[0], -1);
  fail_unless_equals_int64 (shape[1], 3);

  fail_unless (plan_shape_parse (" [,2 3]", &ndim, shape, NULL));
  fail_unless_equals_int (ndim, 3);
  fail_unless_equals_int64 (shape[0], -1);
  fail_unless_equals_int64 (shape[2], 3);

  fail_unless (plan_shape_parse ("(,)", &ndim, shape, NULL));
  fail_unless_equals_int (ndim, 1);
  fail_unless_equals_int64 (shape[0], -1);

  fail_if (plan_shape_parse ("(,,3)", &ndim, shape, &err));
  fail_unless (g_str_has_prefix (err->message, "cannot parse shape "
          "'(,,3)' at column 3:"), "%s", err->message);
  g_clear_error (&err);
  fail_if (plan_shape_parse ("(, , 3)", &ndim, shape, &err));
  fail_unless (g_str_has_prefix (err->message, "cannot parse shape "
          "'(, , 3)' at column 4:"), "%s", err->message);
  g_clear_error (&err);
}

GST_END_TEST;

GST_START_TEST (test_shape_parse_rejects_garbage)
{
  const gchar *bad[] = { "", "(3, x)", "(3, 4", "3,,4", "(3, -1)", "-2",
    "1,2,3,4,5,6,7,8,9", "3.5", "(3) 4"
  };
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  guint ndim, i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    GError *err = NULL;

    fail_if (plan_shape_parse (bad[i], &ndim, shape, &err), "%s", bad[i]);
    fail_unless (err != NULL);
    fail_unless (strstr (err->message, "shape") != NULL, "%s", err->message);
    g_error_free (err);
  }
}

GST_END_TEST;

GST_START_TEST (test_shape_to_string)
{
  gint64 shape[] = { 10, 3 };
  gchar *s;

  s = plan_shape_to_string (2, shape);
  fail_unless_equals_string (s, "(10, 3)");
  g_free (s);
  s = plan_shape_to_string (1, shape);
  fail_unless_equals_string (s, "(10,)");
  g_free (s);
  s = plan_shape_to_string (0, shape);
  fail_unless_equals_string (s, "()");
  g_free (s);
}

GST_END_TEST;

GST_START_TEST (test_array_caps_round_trip)
{
  PlanArrayInfo info, back;
  gint64 shape[] = { -1, 4, 5 };
  GstCaps *caps;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_INT16, 3, shape, NULL));
  fail_unless_equals_int (plan_array_info_get_row_elements (&info), 20);
  fail_unless_equals_int (plan_array_info_get_row_size (&info), 40);
  fail_unless_equals_int64 (plan_array_info_get_n_rows (&info), -1);

  caps = plan_array_info_to_caps (&info);
  fail_unless (plan_array_info_from_caps (&back, caps, NULL));
  fail_unless (plan_array_info_is_equal (&info, &back));
  gst_caps_unref (caps);

  caps = gst_caps_from_string ("array/x-raw, dtype=float64, shape=<7, 2>");
  fail_unless (plan_array_info_from_caps (&back, caps, NULL));
  fail_unless_equals_int (back.dtype, PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int (back.ndim, 2);
  fail_unless_equals_int64 (back.shape[0], 7);
  fail_unless_equals_int (plan_array_info_get_row_size (&back), 16);
  gst_caps_unref (caps);
}

GST_END_TEST;

GST_START_TEST (test_array_caps_zero_d_and_large)
{
  PlanArrayInfo info, back;
  gint64 shape[] = { G_GINT64_CONSTANT (5000000000) };
  GstCaps *caps;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_UINT8, 0, NULL, NULL));
  fail_unless_equals_int64 (plan_array_info_get_n_rows (&info), 1);
  caps = plan_array_info_to_caps (&info);
  fail_unless (plan_array_info_from_caps (&back, caps, NULL));
  fail_unless_equals_int (back.ndim, 0);
  gst_caps_unref (caps);

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_UINT8, 1, shape, NULL));
  caps = plan_array_info_to_caps (&info);
  fail_unless (plan_array_info_from_caps (&back, caps, NULL));
  fail_unless_equals_int64 (back.shape[0], shape[0]);
  gst_caps_unref (caps);
}

GST_END_TEST;

GST_START_TEST (test_array_caps_rejects_invalid)
{
  const gchar *bad[] = {
    "array/x-raw, shape=<4>",
    "array/x-raw, dtype=complex256, shape=<4>",
    "array/x-raw, dtype=float32, shape=<4, 0>",
    "array/x-raw, dtype=float32, shape=<-3>",
    "array/x-raw, dtype=float32, shape=(string)4",
    "video/x-raw, dtype=float32",
    "array/x-raw, dtype=float32, shape=<4, -1>",
  };
  PlanArrayInfo info;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    GstCaps *caps = gst_caps_from_string (bad[i]);
    GError *err = NULL;

    fail_unless (caps != NULL, "%s", bad[i]);
    fail_if (plan_array_info_from_caps (&info, caps, &err), "%s", bad[i]);
    fail_unless (err != NULL && err->message[0] != '\0');
    g_error_free (err);
    gst_caps_unref (caps);
  }
}

GST_END_TEST;

GST_START_TEST (test_array_caps_large_axes_one_type)
{
  PlanArrayInfo info, back;
  gint64 shape[] = { G_GINT64_CONSTANT (2147483653), 2, 3 };
  const GValue *axes;
  GstCaps *caps;
  guint i;

  /* A 32-bit row count with a wide inner axis, and the other way round:
   * every axis of the caps is int64, and the shape reads back whole. */
  for (i = 0; i < 2; i++) {
    if (i == 1) {
      shape[0] = 5;
      shape[2] = G_GINT64_CONSTANT (3000000000);
    }
    fail_unless (plan_array_info_set (&info, PLAN_DTYPE_INT8, 3, shape,
            NULL));
    caps = plan_array_info_to_caps (&info);
    axes = gst_structure_get_value (gst_caps_get_structure (caps, 0),
        "shape");
    fail_unless_equals_int (gst_value_array_get_size (axes), 3);
    fail_unless (G_VALUE_HOLDS_INT64 (gst_value_array_get_value (axes, 0)));
    fail_unless (G_VALUE_HOLDS_INT64 (gst_value_array_get_value (axes, 1)));
    fail_unless (G_VALUE_HOLDS_INT64 (gst_value_array_get_value (axes, 2)));
    fail_unless (plan_array_info_from_caps (&back, caps, NULL));
    fail_unless (plan_array_info_is_equal (&info, &back));
    gst_caps_unref (caps);
  }

  /* Axes that fit stay int, to intersect with caps written by hand. */
  shape[0] = G_MAXINT;
  shape[2] = 3;
  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_INT8, 3, shape, NULL));
  caps = plan_array_info_to_caps (&info);
  axes = gst_structure_get_value (gst_caps_get_structure (caps, 0), "shape");
  fail_unless (G_VALUE_HOLDS_INT (gst_value_array_get_value (axes, 0)));
  fail_unless (G_VALUE_HOLDS_INT (gst_value_array_get_value (axes, 2)));
  gst_caps_unref (caps);
}

GST_END_TEST;

GST_START_TEST (test_array_shape_too_large)
{
  /* Data of more than G_MAXINT64 bytes, whose product wraps to 0, and
   * whose product overflows only with the dtype's size. */
  const gint64 shapes[][3] = {
    {G_GINT64_CONSTANT (4294967296), G_GINT64_CONSTANT (4294967296), 1},
    {G_GINT64_CONSTANT (4611686018427387904), 4, 1},
    {G_GINT64_CONSTANT (1152921504606846976), 1, 1},
    {G_MAXINT64, 2, 1},
  };
  const PlanDType dtypes[] = {
    PLAN_DTYPE_INT8, PLAN_DTYPE_INT8, PLAN_DTYPE_FLOAT64, PLAN_DTYPE_INT8
  };
  PlanArrayInfo info;
  gint64 ok[] = { G_MAXINT64 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (shapes); i++) {
    GError *err = NULL;

    fail_if (plan_array_info_set (&info, dtypes[i], 2, shapes[i], &err));
    fail_unless (err != NULL && strstr (err->message, "is too large") != NULL,
        "%u: %s", i, err ? err->message : "no error");
    g_error_free (err);
  }
  /* The most bytes there can be. */
  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_INT8, 1, ok, NULL));
}

GST_END_TEST;

/* Rows of 3 float32 (12 bytes): bytes count as the row holding them,
 * time (at 1000 rows a second) as the row sampled then; -1 stays -1. */
GST_START_TEST (test_array_info_convert)
{
  PlanArrayInfo info;
  gint64 v;

  plan_array_info_init (&info);
  info.dtype = PLAN_DTYPE_FLOAT32;
  info.ndim = 2;
  info.shape[0] = 100;
  info.shape[1] = 3;

  fail_unless (plan_array_info_convert (&info, GST_FORMAT_DEFAULT, 5,
          GST_FORMAT_BYTES, &v));
  fail_unless_equals_int64 (v, 60);
  fail_unless (plan_array_info_convert (&info, GST_FORMAT_BYTES, 71,
          GST_FORMAT_DEFAULT, &v));
  fail_unless_equals_int64 (v, 5);
  fail_unless (plan_array_info_convert (&info, GST_FORMAT_BYTES, -1,
          GST_FORMAT_DEFAULT, &v));
  fail_unless_equals_int64 (v, -1);
  /* No rate: no time. */
  fail_if (plan_array_info_convert (&info, GST_FORMAT_DEFAULT, 5,
          GST_FORMAT_TIME, &v));
  fail_if (plan_array_info_convert (&info, GST_FORMAT_TIME, GST_SECOND,
          GST_FORMAT_DEFAULT, &v));
  fail_if (plan_array_info_convert (&info, GST_FORMAT_PERCENT, 5,
          GST_FORMAT_DEFAULT, &v));

  info.rate_n = 1000;
  info.rate_d = 1;
  fail_unless (plan_array_info_convert (&info, GST_FORMAT_DEFAULT, 5,
          GST_FORMAT_TIME, &v));
  fail_unless_equals_int64 (v, 5 * GST_MSECOND);
  fail_unless (plan_array_info_convert (&info, GST_FORMAT_TIME,
          5 * GST_MSECOND + 999, GST_FORMAT_BYTES, &v));
  fail_unless_equals_int64 (v, 60);
  fail_unless (plan_array_info_convert (&info, GST_FORMAT_BYTES, 71,
          GST_FORMAT_TIME, &v));
  fail_unless_equals_int64 (v, 5 * GST_MSECOND);

  /* Rows of no bytes: no row holds a byte. */
  info.shape[1] = 0;
  fail_if (plan_array_info_convert (&info, GST_FORMAT_BYTES, 12,
          GST_FORMAT_DEFAULT, &v));
}

GST_END_TEST;

/* A seek from the end (GST_SEEK_TYPE_END) counts back: its negative
 * offset converts as a length, into time too (npyparse and planfilesrc
 * refused such a seek in rows or bytes of rows sampled in time). */
GST_START_TEST (test_array_info_convert_seek_value_from_the_end)
{
  PlanArrayInfo info;
  gint64 v;

  plan_array_info_init (&info);
  info.dtype = PLAN_DTYPE_FLOAT32;
  info.ndim = 2;
  info.shape[0] = 100;
  info.shape[1] = 3;
  info.rate_n = 1000;
  info.rate_d = 1;

  fail_unless (plan_array_info_convert_seek_value (&info, GST_FORMAT_DEFAULT,
          GST_SEEK_TYPE_END, -30, GST_FORMAT_TIME, &v));
  fail_unless_equals_int64 (v, -30 * (gint64) GST_MSECOND);
  fail_unless (plan_array_info_convert_seek_value (&info, GST_FORMAT_BYTES,
          GST_SEEK_TYPE_END, -120, GST_FORMAT_TIME, &v));
  fail_unless_equals_int64 (v, -10 * (gint64) GST_MSECOND);
  fail_unless (plan_array_info_convert_seek_value (&info, GST_FORMAT_TIME,
          GST_SEEK_TYPE_END, -5 * (gint64) GST_MSECOND, GST_FORMAT_DEFAULT,
          &v));
  fail_unless_equals_int64 (v, -5);
  /* Set values convert as plan_array_info_convert() does. */
  fail_unless (plan_array_info_convert_seek_value (&info, GST_FORMAT_DEFAULT,
          GST_SEEK_TYPE_SET, 5, GST_FORMAT_TIME, &v));
  fail_unless_equals_int64 (v, 5 * GST_MSECOND);
  fail_if (plan_array_info_convert_seek_value (&info, GST_FORMAT_PERCENT,
          GST_SEEK_TYPE_END, -5, GST_FORMAT_TIME, &v));
}

GST_END_TEST;

/* A seek's start after its stop, the segment's when the seek keeps it, is
 * no range. */
GST_START_TEST (test_array_info_seek_is_range)
{
  GstSegment seg;

  gst_segment_init (&seg, GST_FORMAT_DEFAULT);
  fail_unless (plan_array_info_seek_is_range (&seg, GST_SEEK_TYPE_SET, 500,
          GST_SEEK_TYPE_NONE, -1));
  seg.stop = 100;
  fail_if (plan_array_info_seek_is_range (&seg, GST_SEEK_TYPE_SET, 500,
          GST_SEEK_TYPE_NONE, -1));
  fail_unless (plan_array_info_seek_is_range (&seg, GST_SEEK_TYPE_SET, 500,
          GST_SEEK_TYPE_SET, -1));
  fail_if (plan_array_info_seek_is_range (&seg, GST_SEEK_TYPE_SET, 40,
          GST_SEEK_TYPE_SET, 30));
  seg.start = 200;
  fail_if (plan_array_info_seek_is_range (&seg, GST_SEEK_TYPE_NONE, -1,
          GST_SEEK_TYPE_SET, 150));
  fail_unless (plan_array_info_seek_is_range (&seg, GST_SEEK_TYPE_NONE, -1,
          GST_SEEK_TYPE_SET, 250));
}

GST_END_TEST;

static Suite *
arrayinfo_suite (void)
{
  Suite *s = suite_create ("arrayinfo");
  TCase *tc = tcase_create ("general");

  plan_init ();
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_dtype_names_round_trip);
  tcase_add_test (tc, test_dtype_article);
  tcase_add_test (tc, test_dtype_complex);
  tcase_add_test (tc, test_dtype_parse_rejects_unknown_name);
  tcase_add_test (tc, test_dtype_npy_descr);
  tcase_add_test (tc, test_dtype_float16);
  tcase_add_test (tc, test_shape_parse_numpy_forms);
  tcase_add_test (tc, test_shape_parse_rejects_garbage);
  tcase_add_test (tc, test_shape_parse_left_out_outer_axis);
  tcase_add_test (tc, test_shape_to_string);
  tcase_add_test (tc, test_array_caps_round_trip);
  tcase_add_test (tc, test_array_caps_zero_d_and_large);
  tcase_add_test (tc, test_array_caps_rejects_invalid);
  tcase_add_test (tc, test_array_caps_large_axes_one_type);
  tcase_add_test (tc, test_array_shape_too_large);
  tcase_add_test (tc, test_array_info_convert);
  tcase_add_test (tc, test_array_info_convert_seek_value_from_the_end);
  tcase_add_test (tc, test_array_info_seek_is_range);
  return s;
}

GST_CHECK_MAIN (arrayinfo);
