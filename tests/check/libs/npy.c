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

#include <string.h>

/* The header numpy 1.24 writes for np.zeros((3, 4), '<f4'), byte for byte. */
static const gchar numpy_header[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, "
    "'shape': (3, 4), }"
    "                             " "                             \n";

GST_START_TEST (test_npy_parses_numpy_header)
{
  PlanArrayInfo info;
  gsize size;

  fail_unless_equals_int (sizeof (numpy_header) - 1, 128);
  fail_unless (plan_npy_parse_header ((const guint8 *) numpy_header, 128,
          &info, &size, NULL));
  fail_unless_equals_int (size, 128);
  fail_unless_equals_int (info.dtype, PLAN_DTYPE_FLOAT32);
  fail_unless_equals_int (info.ndim, 2);
  fail_unless_equals_int64 (info.shape[0], 3);
  fail_unless_equals_int64 (info.shape[1], 4);
}

GST_END_TEST;

/* A header in a stream may start at any address (a pipe's read ends
 * anywhere): reading and writing it at an odd one is defined behaviour,
 * which UBSan checks in the sanitizer build. */
GST_START_TEST (test_npy_header_at_odd_address)
{
  guint8 *mem = g_malloc (129 + 4096);
  guint8 *odd = mem + 1;
  PlanArrayInfo info, back;
  gsize size, parsed;
  guint version;

  memcpy (odd, numpy_header, 128);
  fail_unless (plan_npy_parse_preamble (odd, 128, &version, &size, NULL));
  fail_unless_equals_int (version, 1);
  fail_unless_equals_int (size, 128);
  fail_unless (plan_npy_parse_header (odd, 128, &info, &size, NULL));
  fail_unless_equals_int64 (info.shape[1], 4);
  memset (odd, 0, 128);
  fail_unless (plan_npy_write_header (&info, odd, 128, NULL));
  fail_unless (memcmp (odd, numpy_header, 128) == 0);

  /* More than 64 KiB of header text needs version 2.0's 4-byte length. */
  size = 70016;
  g_free (mem);
  mem = g_malloc (size + 1);
  odd = mem + 1;
  fail_unless (plan_npy_write_header (&info, odd, size, NULL));
  fail_unless_equals_int (odd[6], 2);
  fail_unless_equals_int (odd[8] | odd[9] << 8 | odd[10] << 16 |
      (guint) odd[11] << 24, size - 12);
  fail_unless (plan_npy_parse_header (odd, size, &back, &parsed, NULL));
  fail_unless_equals_int (parsed, size);
  fail_unless (plan_array_info_is_equal (&info, &back));
  g_free (mem);
}

GST_END_TEST;

GST_START_TEST (test_npy_write_then_parse_round_trip)
{
  const gint64 shapes[][3] = { {0, 0, 0}, {7, 0, 0}, {5, 2, 3} };
  const guint ndims[] = { 0, 1, 3 };
  guint i, d;

  for (d = PLAN_DTYPE_BOOL; d < PLAN_DTYPE_N; d++) {
    for (i = 0; i < G_N_ELEMENTS (ndims); i++) {
      PlanArrayInfo in, out;
      guint8 header[4096];
      gsize size, parsed;

      fail_unless (plan_array_info_set (&in, d, ndims[i], shapes[i], NULL));
      size = plan_npy_get_header_size (&in);
      fail_unless_equals_int (size % PLAN_NPY_ALIGN, 0);
      fail_unless (plan_npy_write_header (&in, header, size, NULL));
      fail_unless_equals_int (header[size - 1], '\n');
      fail_unless (plan_npy_parse_header (header, size, &out, &parsed, NULL));
      fail_unless_equals_int (parsed, size);
      fail_unless (plan_array_info_is_equal (&in, &out));
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_npy_header_has_room_for_any_row_count)
{
  PlanArrayInfo info;
  const gint64 shape[2] = { 0, 3 };
  guint8 header[256];
  gsize size;

  PlanArrayInfo back;
  GError *err = NULL;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_UINT64, 2, shape, NULL));
  size = plan_npy_get_header_size (&info);
  /* The most rows of 24 bytes there can be. */
  info.shape[0] = G_MAXINT64 / 24;
  fail_unless (plan_npy_write_header (&info, header, size, NULL));
  fail_unless (plan_npy_parse_header (header, size, &back, NULL, NULL));
  fail_unless_equals_int64 (back.shape[0], G_MAXINT64 / 24);
  /* G_MAXINT64 rows fit in the header, and reading it back says that the
   * shape is too large. */
  info.shape[0] = G_MAXINT64;
  fail_unless (plan_npy_write_header (&info, header, size, NULL));
  fail_if (plan_npy_parse_header (header, size, &back, NULL, &err));
  fail_unless (strstr (err->message, "(9223372036854775807, 3) is too large")
      != NULL, "%s", err->message);
  g_error_free (err);
  /* The same row count of int8 is a valid shape. */
  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_INT8, 1, shape, NULL));
  size = plan_npy_get_header_size (&info);
  info.shape[0] = G_MAXINT64;
  fail_unless (plan_npy_write_header (&info, header, size, NULL));
  fail_unless (plan_npy_parse_header (header, size, &back, NULL, NULL));
  fail_unless_equals_int64 (back.shape[0], G_MAXINT64);
}

GST_END_TEST;

GST_START_TEST (test_npy_write_rejects_small_size)
{
  PlanArrayInfo info;
  const gint64 shape[1] = { 4 };
  guint8 header[64];
  GError *err = NULL;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_INT8, 1, shape, NULL));
  fail_if (plan_npy_write_header (&info, header, 64, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT));
  g_error_free (err);
}

GST_END_TEST;

GST_START_TEST (test_npy_accepts_fortran_order_for_1d)
{
  const gchar text[] = "{'descr': '<i8', 'fortran_order': True, "
      "'shape': (9,), }";
  guint8 header[128];
  PlanArrayInfo info;

  memset (header, ' ', sizeof (header));
  memcpy (header, "\x93NUMPY\x01\x00\x76\x00", 10);
  memcpy (header + 10, text, strlen (text));
  header[127] = '\n';
  fail_unless (plan_npy_parse_header (header, 128, &info, NULL, NULL));
  fail_unless_equals_int64 (info.shape[0], 9);
}

GST_END_TEST;

static void
make_header (guint8 header[128], const gchar * text)
{
  memset (header, ' ', 128);
  memcpy (header, "\x93NUMPY\x01\x00\x76\x00", 10);
  memcpy (header + 10, text, strlen (text));
  header[127] = '\n';
}

/* plan_npy_parse_header() refuses big-endian and Fortran-ordered arrays;
 * plan_npy_parse_header_full() takes those its caller accepts and says
 * which layout the data has, the dtype being the native one. */
GST_START_TEST (test_npy_layouts)
{
  guint8 header[128];
  PlanArrayInfo info;
  PlanNpyLayout layout = 99;
  GError *err = NULL;
  const PlanNpyLayout both = PLAN_NPY_LAYOUT_BIG_ENDIAN
      | PLAN_NPY_LAYOUT_FORTRAN;

  make_header (header, "{'descr': '>c8', 'fortran_order': True, "
      "'shape': (3, 2), }");
  fail_if (plan_npy_parse_header (header, 128, &info, NULL, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED));
  fail_unless (strstr (err->message, "big-endian dtype '>c8'") != NULL);
  g_clear_error (&err);
  fail_if (plan_npy_parse_header_full (header, 128,
          PLAN_NPY_LAYOUT_BIG_ENDIAN, &info, NULL, &layout, &err));
  fail_unless (strstr (err->message, "Fortran") != NULL);
  fail_unless_equals_int (layout, 99);
  g_clear_error (&err);
  fail_unless (plan_npy_parse_header_full (header, 128, both, &info, NULL,
          &layout, NULL));
  fail_unless_equals_int (layout, both);
  fail_unless_equals_int (info.dtype, PLAN_DTYPE_COMPLEX64);
  fail_unless_equals_int64 (info.shape[0], 3);

  /* A single byte has no byte order; (1, 5) is the same in both orders. */
  make_header (header, "{'descr': '>u1', 'fortran_order': True, "
      "'shape': (1, 5), }");
  fail_unless (plan_npy_parse_header_full (header, 128, both, &info, NULL,
          &layout, NULL));
  fail_unless_equals_int (layout, PLAN_NPY_LAYOUT_NATIVE);
  fail_unless_equals_int (info.dtype, PLAN_DTYPE_UINT8);
}

GST_END_TEST;

/* Every element reversed, a complex number's parts each on its own, every
 * bit kept (a signalling NaN's payload too). */
GST_START_TEST (test_dtype_swap_bytes)
{
  guint8 c[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
  const guint8 c_swapped[16] =
      { 4, 3, 2, 1, 8, 7, 6, 5, 12, 11, 10, 9, 16, 15, 14, 13 };
  guint8 nan[8] = { 0x7f, 0xf0, 0, 0, 0, 0, 0x12, 0x34 };
  guint64 bits;
  guint8 one = 7;

  plan_dtype_swap_bytes (PLAN_DTYPE_COMPLEX64, c, sizeof (c));
  fail_unless (memcmp (c, c_swapped, sizeof (c)) == 0);
  plan_dtype_swap_bytes (PLAN_DTYPE_FLOAT64, nan, sizeof (nan));
  memcpy (&bits, nan, 8);
  fail_unless_equals_uint64 (bits, G_GUINT64_CONSTANT (0x7ff0000000001234));
  plan_dtype_swap_bytes (PLAN_DTYPE_INT8, &one, 1);
  fail_unless_equals_int (one, 7);
}

GST_END_TEST;

GST_START_TEST (test_npy_preamble_errors)
{
  GError *err = NULL;
  gsize size;

  fail_if (plan_npy_parse_preamble ((const guint8 *) "\x93NUMPY", 6, NULL,
          &size, &err));
  fail_unless (strstr (err->message, "truncated") != NULL);
  g_clear_error (&err);
  fail_if (plan_npy_parse_preamble ((const guint8 *) "PK\x03\x04zipfile", 12,
          NULL, &size, &err));
  fail_unless (strstr (err->message, "magic") != NULL);
  g_clear_error (&err);
  fail_if (plan_npy_parse_preamble ((const guint8 *)
          "\x93NUMPY\x03\x00\x00\x00\x00\x01", 12, NULL, &size, &err));
  fail_unless (strstr (err->message, "length field") != NULL);
  g_clear_error (&err);
  fail_if (plan_npy_parse_preamble ((const guint8 *)
          "\x93NUMPY\x01\x00\x00\x00", 10, NULL, &size, &err));
  fail_unless (strstr (err->message, "is 0") != NULL);
  g_clear_error (&err);
}

GST_END_TEST;

/* A header whose shape's data cannot exist: its product wraps to 0 in 64
 * bits, or overflows. */
GST_START_TEST (test_npy_shape_too_large)
{
  const gchar *shapes[] = {
    "(4294967296, 4294967296)", "(9223372036854775807, 2)",
    "(2, 2, 2, 4611686018427387904)",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (shapes); i++) {
    gchar *dict = g_strdup_printf ("{'descr': '|i1', 'fortran_order': "
        "False, 'shape': %s, }", shapes[i]);
    gsize len = 10 + strlen (dict) + 1;
    guint8 *h = g_malloc (len);
    PlanArrayInfo info;
    GError *err = NULL;

    memcpy (h, "\x93NUMPY\x01\x00", 8);
    h[8] = (len - 10) & 0xff;
    h[9] = (len - 10) >> 8;
    memcpy (h + 10, dict, strlen (dict));
    h[len - 1] = '\n';
    fail_if (plan_npy_parse_header (h, len, &info, NULL, &err));
    fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_FORMAT));
    fail_unless (strstr (err->message, "is too large") != NULL, "%s",
        err->message);
    g_error_free (err);
    g_free (h);
    g_free (dict);
  }
}

GST_END_TEST;

/* A header of @dict, version 1.0, unpadded. */
static gboolean
parse_dict_text (const gchar * dict, PlanArrayInfo * info, GError ** err)
{
  gsize len = 10 + strlen (dict) + 1;
  guint8 *h = g_malloc (len);
  gboolean ok;

  memcpy (h, "\x93NUMPY\x01\x00", 8);
  h[8] = (len - 10) & 0xff;
  h[9] = (len - 10) >> 8;
  memcpy (h + 10, dict, strlen (dict));
  h[len - 1] = '\n';
  ok = plan_npy_parse_header (h, len, info, NULL, err);
  g_free (h);
  return ok;
}

/* A header of @dict in format @version, unpadded; the length (< 64 KiB)
 * in two bytes and, from version 2.0, two zero bytes. */
static gboolean
parse_dict_version (guint version, const gchar * dict, PlanArrayInfo * info,
    GError ** err)
{
  gsize prefix = version == 1 ? 10 : 12, n = strlen (dict);
  gsize len = prefix + n + 1;
  guint8 *h = g_malloc (len);
  gboolean ok;

  memcpy (h, "\x93NUMPY", 6);
  h[6] = version;
  h[7] = 0;
  h[8] = (len - prefix) & 0xff;
  h[9] = (len - prefix) >> 8;
  if (prefix == 12)
    h[10] = h[11] = 0;
  memcpy (h + prefix, dict, n);
  h[len - 1] = '\n';
  ok = plan_npy_parse_header (h, len, info, NULL, err);
  g_free (h);
  return ok;
}

/* Headers spelt as numpy reads them (ast.literal_eval, and Python 2's
 * long integers before version 3.0), and spellings numpy refuses, which
 * are malformed headers here too. */
GST_START_TEST (test_npy_python_literal_spellings)
{
  const struct
  {
    guint version;
    const gchar *dict;
    PlanDType dtype;
    guint ndim;
    gint64 rows;
  } good[] = {
    {1, "{'descr': u'<f4', 'fortran_order': False, 'shape': (5,), }",
        PLAN_DTYPE_FLOAT32, 1, 5},
    {1, "{u'descr': U'<f4', u'fortran_order': False, u'shape': (5L, 2L)}",
        PLAN_DTYPE_FLOAT32, 2, 5},
    {2, "{'descr': r'<f8', 'fortran_order': False, 'shape': (5 L,)}",
        PLAN_DTYPE_FLOAT64, 1, 5},
    {1, "{ 'shape' :\t( 7 , 3 , ) ,\n 'fortran_order'  :  False , "
          "'descr' : '<i2' , }", PLAN_DTYPE_INT16, 2, 7},
    {3, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }",
        PLAN_DTYPE_FLOAT32, 0, 0},
    {1, "{'descr': '\\x3cf4', 'fortran_order': False, 'shape': (5,)}",
        PLAN_DTYPE_FLOAT32, 1, 5},
    {1, "{'descr': '\\074u\\u0031', 'fortran_order': False, 'shape': (5,)}",
        PLAN_DTYPE_UINT8, 1, 5},
    {1, "{'descr': '<' \"c\" '''16''', 'fortran_order': False, "
          "'shape': (5,)}", PLAN_DTYPE_COMPLEX128, 1, 5},
    {1, "{'descr': 'float32', 'fortran_order': (False), 'shape': ((5),)}",
        PLAN_DTYPE_FLOAT32, 1, 5},
    {1, "{'descr': 'double', 'fortran_order': False, 'shape': ((5, 2))}",
        PLAN_DTYPE_FLOAT64, 2, 5},
    {1, "{'descr': 'bool', 'fortran_order': False, 'shape': (0x1_0, +2)}",
        PLAN_DTYPE_BOOL, 2, 16},
    {1, "{'descr': '<f4', # comment\n 'fortran_order': False, \\\n"
          "'shape': (-0, 0o7, 0b11, 1_0)} # comment", PLAN_DTYPE_FLOAT32, 4,
        0},
    {1, "({'descr': [('a', '<i4')], 'descr': '<u2', 'fortran_order': False, "
          "'shape': (5,)})", PLAN_DTYPE_UINT16, 1, 5},
    {2, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,)} # \xff",
        PLAN_DTYPE_FLOAT32, 1, 5},
    {3, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,)} # \xc3\xa9",
        PLAN_DTYPE_FLOAT32, 1, 5},
  };
  const struct
  {
    guint version;
    const gchar *dict;
    gint code;
    const gchar *text;
  } bad[] = {
    /* numpy: "shape is not valid: 5" */
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5), }",
        PLAN_ERROR_FORMAT, "'shape' is not a tuple of integers"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': [5], }",
        PLAN_ERROR_FORMAT, "'shape' is not a tuple of integers"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (True,), }",
        PLAN_ERROR_FORMAT, "'shape' is not a tuple of integers"},
    /* Python 3 has no leading zeros, nor long integers in version 3.0 */
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (05,), }",
        PLAN_ERROR_FORMAT, "expected an integer at character 52"},
    {3, "{'descr': '<f4', 'fortran_order': False, 'shape': (5L,), }",
        PLAN_ERROR_FORMAT, "expected an integer at character 52"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1__0,), }",
        PLAN_ERROR_FORMAT, "expected an integer"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5.0,), }",
        PLAN_ERROR_FORMAT, "expected an integer"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (--5,), }",
        PLAN_ERROR_FORMAT, "a number after the sign"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }",
        PLAN_ERROR_FORMAT, "negative axis length"},
    {1, "{'descr': '<f4', 'fortran_order': 0, 'shape': (5,), }",
        PLAN_ERROR_FORMAT, "'fortran_order' is not True or False"},
    {1, "{'descr': b'<f4', 'fortran_order': False, 'shape': (5,), }",
        PLAN_ERROR_FORMAT, "not bytes"},
    {1, "{'descr': ur'<f4', 'fortran_order': False, 'shape': (5,), }",
        PLAN_ERROR_FORMAT, "a string literal"},
    {1, "{'descr': '<f4\\x00', 'fortran_order': False, 'shape': (5,), }",
        PLAN_ERROR_FORMAT, "without NUL"},
    {1, "{'descr': '\\x3', 'fortran_order': False, 'shape': (5,), }",
        PLAN_ERROR_FORMAT, "hexadecimal digits"},
    {1, "{'descr': '<f4\n', 'fortran_order': False, 'shape': (5,), }",
        PLAN_ERROR_FORMAT, "end of a string"},
    {1, "{'descr': 5, 'fortran_order': False, 'shape': (5,), }",
        PLAN_ERROR_FORMAT, "'descr' is not a dtype in quotes"},
    {1, "{'descr': '<f4',, 'fortran_order': False, 'shape': (5,), }",
        PLAN_ERROR_FORMAT, "at character 17"},
    {1, "{1: '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (5,)}",
        PLAN_ERROR_FORMAT, "a key in quotes"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,)} x",
        PLAN_ERROR_FORMAT, "only padding after '}'"},
    {1, "{'descr': [('a', '<i4'), ('b', '<f8')], 'fortran_order': False, "
          "'shape': (5,)}", PLAN_ERROR_UNSUPPORTED, "structured dtypes"},
    {1, "{'descr': {'names': ['a'], 'formats': ['<f4']}, "
          "'fortran_order': False, 'shape': (5,)}", PLAN_ERROR_UNSUPPORTED,
        "structured dtypes"},
    {1, "{'descr': '>f8', 'fortran_order': False, 'shape': (5,)}",
        PLAN_ERROR_UNSUPPORTED, "big-endian dtype '>f8'"},
    {1, "{'descr': '<float32', 'fortran_order': False, 'shape': (5,)}",
        PLAN_ERROR_UNSUPPORTED, "dtype '<float32' is not supported"},
    {1, "{'descr': '\\xe9', 'fortran_order': False, 'shape': (5,)}",
        PLAN_ERROR_UNSUPPORTED, "dtype '\\303\\251' is not supported"},
    /* Version 3.0 is UTF-8, which numpy decodes; 1.0 and 2.0 Latin-1. */
    {3, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,)} # \xff",
        PLAN_ERROR_FORMAT, "byte 59 of its text is not"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (good); i++) {
    PlanArrayInfo info;
    GError *err = NULL;

    fail_unless (parse_dict_version (good[i].version, good[i].dict, &info,
            &err), "%s: %s", good[i].dict, err ? err->message : "");
    fail_unless_equals_int (info.dtype, good[i].dtype);
    fail_unless_equals_int (info.ndim, good[i].ndim);
    if (good[i].ndim > 0)
      fail_unless_equals_int64 (info.shape[0], good[i].rows);
  }
  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    PlanArrayInfo info;
    GError *err = NULL;

    fail_if (parse_dict_version (bad[i].version, bad[i].dict, &info, &err),
        "%s", bad[i].dict);
    fail_unless (g_error_matches (err, PLAN_ERROR, bad[i].code), "%s: %s",
        bad[i].dict, err->message);
    fail_unless (strstr (err->message, bad[i].text) != NULL, "%s: %s",
        bad[i].dict, err->message);
    g_error_free (err);
  }

  /* Brackets nested as deep as Python reads them, and deeper: an error,
   * not a stack overflow. */
  for (i = 0; i < 2; i++) {
    guint depth = i == 0 ? 150 : 30000;
    GString *s = g_string_new ("{'descr': '<f4', 'fortran_order': False, "
        "'shape': (");
    PlanArrayInfo info;
    GError *err = NULL;
    gboolean ok;
    guint j;

    for (j = 0; j < depth; j++)
      g_string_append_c (s, '(');
    g_string_append_c (s, '5');
    for (j = 0; j < depth; j++)
      g_string_append_c (s, ')');
    g_string_append (s, ",)}");
    ok = parse_dict_version (2, s->str, &info, &err);
    if (i == 0) {
      fail_unless (ok, "%s", err ? err->message : "");
      fail_unless_equals_int64 (info.shape[0], 5);
    } else {
      fail_if (ok);
      fail_unless (strstr (err->message, "nested less deeply") != NULL, "%s",
          err->message);
      g_error_free (err);
    }
    g_string_free (s, TRUE);
  }
}

GST_END_TEST;

/* A 'rate' beside numpy's keys: a quoted fraction or a positive number. */
GST_START_TEST (test_npy_rate_key)
{
  const struct
  {
    const gchar *value;
    gint n, d;
  } good[] = {
    {"'1000/1'", 1000, 1}, {"\"30000/1001\"", 30000, 1001}, {"100", 100, 1},
    {"'250'", 250, 1}, {"44100.0", 44100, 1}, {"0.5", 1, 2},
    {"1e3", 1000, 1}, {"2147483647", G_MAXINT, 1},
  };
  const gchar *bad[] = {
    "'fast'", "0", "-5", "'0/1'", "'1/0'", "'-1/2'", "None", "'1/2/3'",
    "nan", "inf", "'1000 /1'", "2147483648", "''", "1e300",
  };
  PlanArrayInfo info;
  GError *err = NULL;
  guint i;

  /* None: not sampled in time. */
  fail_unless (parse_dict_text ("{'descr': '<f4', 'fortran_order': False, "
          "'shape': (3,), }", &info, NULL));
  fail_if (plan_array_info_has_rate (&info));

  for (i = 0; i < G_N_ELEMENTS (good); i++) {
    gchar *dict = g_strdup_printf ("{'descr': '<f4', 'rate': %s, "
        "'fortran_order': False, 'shape': (3, 2), }", good[i].value);

    fail_unless (parse_dict_text (dict, &info, &err), "%s: %s", dict,
        err ? err->message : "");
    fail_unless_equals_int (info.dtype, PLAN_DTYPE_FLOAT32);
    fail_unless_equals_int (info.ndim, 2);
    fail_unless_equals_int64 (info.shape[0], 3);
    fail_unless_equals_int (info.rate_n, good[i].n);
    fail_unless_equals_int (info.rate_d, good[i].d);
    g_free (dict);
  }

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    gchar *dict = g_strdup_printf ("{'descr': '<f4', 'fortran_order': False, "
        "'shape': (3,), 'rate': %s, }", bad[i]);
    gchar *quoted = g_strdup_printf ("'%.*s'", (gint) strlen (bad[i]) -
        (bad[i][0] == '\'' ? 2 : 0), bad[i] + (bad[i][0] == '\'' ? 1 : 0));

    fail_if (parse_dict_text (dict, &info, &err), "%s", dict);
    fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_FORMAT));
    fail_unless (strstr (err->message, "'rate' is") != NULL
        && strstr (err->message, quoted) != NULL, "%s: %s", dict,
        err->message);
    g_clear_error (&err);
    g_free (quoted);
    g_free (dict);
  }

  /* Not a value at all; and other keys are refused as before. */
  fail_if (parse_dict_text ("{'descr': '<f4', 'fortran_order': False, "
          "'shape': (3,), 'rate': [100], }", &info, &err));
  fail_unless (strstr (err->message, "for 'rate'") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  fail_if (parse_dict_text ("{'descr': '<f4', 'fortran_order': False, "
          "'shape': (3,), 'units': 'm/s', }", &info, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_FORMAT));
  fail_unless (strstr (err->message, "unexpected key 'units'") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  /* A rate does not stand for a required key. */
  fail_if (parse_dict_text ("{'descr': '<f4', 'rate': 10, 'shape': (3,), }",
          &info, &err));
  fail_unless (strstr (err->message, "'fortran_order'") != NULL, "%s",
      err->message);
  g_clear_error (&err);
}

GST_END_TEST;

static Suite *
npy_suite (void)
{
  Suite *s = suite_create ("npy");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_npy_parses_numpy_header);
  tcase_add_test (tc, test_npy_write_then_parse_round_trip);
  tcase_add_test (tc, test_npy_header_has_room_for_any_row_count);
  tcase_add_test (tc, test_npy_write_rejects_small_size);
  tcase_add_test (tc, test_npy_accepts_fortran_order_for_1d);
  tcase_add_test (tc, test_npy_preamble_errors);
  tcase_add_test (tc, test_npy_layouts);
  tcase_add_test (tc, test_dtype_swap_bytes);
  tcase_add_test (tc, test_npy_header_at_odd_address);
  tcase_add_test (tc, test_npy_shape_too_large);
  tcase_add_test (tc, test_npy_rate_key);
  tcase_add_test (tc, test_npy_python_literal_spellings);
  return s;
}

GST_CHECK_MAIN (npy);
