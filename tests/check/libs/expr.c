/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The expression language: parser, precedence, typing (numpy promotion with
 * NEP 50 weak literals), every error with its column and caret, evaluation
 * details (in place, parallel, unused names) and the worker pool. Values of
 * every operator and function against numpy are checked by
 * tests/pipelines/test_expr_numpy.py. */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>

#include <math.h>
#include <string.h>

/* The names every test binds, one per kind of dtype. */
static const gchar *const names[] = { "x", "y", "i", "u", "b", "d", "l", "q" };

static const PlanDType dtypes[] = {
  PLAN_DTYPE_FLOAT32, PLAN_DTYPE_FLOAT32, PLAN_DTYPE_INT8, PLAN_DTYPE_UINT8,
  PLAN_DTYPE_BOOL, PLAN_DTYPE_FLOAT64, PLAN_DTYPE_INT64, PLAN_DTYPE_UINT64
};

#define N_NAMES G_N_ELEMENTS (names)

static PlanExpr *
compile (const gchar * src)
{
  GError *err = NULL;
  PlanExpr *e = plan_expr_compile (src, N_NAMES, names, dtypes, &err);

  if (e == NULL)
    g_error ("'%s' does not compile: %s", src, err->message);
  return e;
}

static PlanDType
dtype_of (const gchar * src)
{
  PlanExpr *e = compile (src);
  PlanDType d = plan_expr_get_dtype (e);

  plan_expr_unref (e);
  return d;
}

/* Evaluates @src on one element of each name with these values. */
static gdouble
eval1 (const gchar * src)
{
  gfloat x = 1.5f, y = -2.0f;
  gint8 i = -7;
  guint8 u = 200, b = 1;
  gdouble d = 0.25;
  gint64 l = -3;
  guint64 q = 5;
  gconstpointer in[] = { &x, &y, &i, &u, &b, &d, &l, &q };
  PlanExpr *e = compile (src);
  guint8 out[8];
  gdouble r = 0;

  plan_expr_eval (e, in, out, 1);
  switch (plan_expr_get_dtype (e)) {
    case PLAN_DTYPE_BOOL:
      r = out[0];
      break;
    case PLAN_DTYPE_INT8:
      r = *(gint8 *) out;
      break;
    case PLAN_DTYPE_UINT8:
      r = *(guint8 *) out;
      break;
    case PLAN_DTYPE_INT16:
      r = *(gint16 *) out;
      break;
    case PLAN_DTYPE_INT64:
      r = (gdouble) * (gint64 *) out;
      break;
    case PLAN_DTYPE_UINT64:
      r = (gdouble) * (guint64 *) out;
      break;
    case PLAN_DTYPE_FLOAT32:
      r = *(gfloat *) out;
      break;
    case PLAN_DTYPE_FLOAT64:
      r = *(gdouble *) out;
      break;
    default:
      g_error ("unexpected dtype for '%s'", src);
  }
  plan_expr_unref (e);
  return r;
}

/* Compiling @src must fail with @code; the message must start with
 * "column @column:", contain @needle, and end with the source and a caret
 * under column @column. */
static void
check_error (const gchar * src, gint code, guint column, const gchar * needle)
{
  GError *err = NULL;
  PlanExpr *e = plan_expr_compile (src, N_NAMES, names, dtypes, &err);
  gchar *prefix = g_strdup_printf ("column %u: ", column);
  gchar **lines;
  guint n;

  fail_unless (e == NULL, "'%s' compiled", src);
  fail_unless (err != NULL);
  fail_unless (g_error_matches (err, PLAN_ERROR, code), "'%s': code %d: %s",
      src, err->code, err->message);
  fail_unless (g_str_has_prefix (err->message, prefix), "'%s': %s", src,
      err->message);
  fail_unless (strstr (err->message, needle) != NULL, "'%s': '%s' not in %s",
      src, needle, err->message);
  lines = g_strsplit (err->message, "\n", -1);
  n = g_strv_length (lines);
  fail_unless_equals_int (n, 3);
  fail_unless_equals_string (lines[1] + 2, src);
  fail_unless_equals_int (strlen (lines[2]), 2 + column);
  fail_unless_equals_int (lines[2][1 + column], '^');
  g_strfreev (lines);
  g_free (prefix);
  g_error_free (err);
}

/* ---- numpy's names ---- */

GST_START_TEST (test_expr_numpy_names_and_prefix)
{
  /* numpy's names and the np. / numpy. prefix reach the same operations */
  fail_unless_equals_float (eval1 ("arcsin(d)"), asin (0.25));
  fail_unless_equals_float (eval1 ("np.arctan2(d, 1)"), atan2 (0.25, 1));
  fail_unless_equals_float (eval1 ("numpy.power(d, 2)"), 0.0625);
  fail_unless_equals_float (eval1 ("np.float64(x) * np.pi"), 1.5 * G_PI);
  fail_unless_equals_float (eval1 ("true_divide(l, 2)"), -1.5);
  fail_unless_equals_float (eval1 ("floor_divide(l, 2)"), -2);
  fail_unless_equals_float (eval1 ("remainder(l, 2)"), 1);
  fail_unless_equals_float (eval1 ("logical_xor(b, l)"), 0);
  fail_unless_equals_int (dtype_of ("absolute(i)"), PLAN_DTYPE_INT8);
  fail_unless_equals_int (dtype_of ("fabs(i)"), PLAN_DTYPE_FLOAT16);
  fail_unless_equals_int (dtype_of ("square(b)"), PLAN_DTYPE_INT8);
  fail_unless_equals_int (dtype_of ("conj(b)"), PLAN_DTYPE_INT8);
  fail_unless_equals_int (dtype_of ("real(b)"), PLAN_DTYPE_BOOL);
  fail_unless_equals_int (dtype_of ("ones_like(q)"), PLAN_DTYPE_UINT64);
  fail_unless_equals_int (dtype_of ("signbit(l)"), PLAN_DTYPE_BOOL);
  fail_unless_equals_int (dtype_of ("float_power(i, i)"), PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int (dtype_of ("deg2rad(l)"), PLAN_DTYPE_FLOAT64);
}

GST_END_TEST;

/* float16 functions of one operand look their results up in a table of
 * the 65536 values, filled on first use: two threads evaluating sin at once
 * (the first of them filling it) all get the C library's sinf of each
 * value, rounded, as numpy's float16 loop computes it. */
static gpointer
eval_every_float16 (gpointer data)
{
  const gchar *hname[] = { "h" };
  PlanDType hdt[] = { PLAN_DTYPE_FLOAT16 };
  PlanExpr *e = plan_expr_compile ("sin(h)", 1, hname, hdt, NULL);
  guint16 *in = data, *out = g_new (guint16, 65536);
  gconstpointer ins[] = { in };

  g_assert (e != NULL);
  plan_expr_eval (e, ins, out, 65536);
  plan_expr_unref (e);
  return out;
}

GST_START_TEST (test_float16_functions_from_threads)
{
  guint16 *in = g_new (guint16, 65536), *out[2];
  GThread *t[2];
  guint i, k;

  for (k = 0; k < 65536; k++)
    in[k] = (guint16) k;
  for (i = 0; i < 2; i++)
    t[i] = g_thread_new ("f16", eval_every_float16, in);
  for (i = 0; i < 2; i++)
    out[i] = g_thread_join (t[i]);
  for (k = 0; k < 65536; k++)
    fail_unless (out[1][k] == out[0][k]);
  /* every value is test_expr_numpy.py's (against numpy); here a sample,
   * which valgrind runs in seconds */
  for (k = 0; k < 65536; k += 13) {
    guint16 want = plan_dtype_float16_from_double (sinf ((gfloat)
            plan_dtype_float16_to_double (in[k])));

    /* NaN as NaN */
    if ((want & 0x7fff) > 0x7c00)
      fail_unless ((out[0][k] & 0x7fff) > 0x7c00, "sin(0x%04x)", k);
    else
      fail_unless_equals_int (out[0][k], want);
  }
  for (i = 0; i < 2; i++)
    g_free (out[i]);
  g_free (in);
}

GST_END_TEST;

GST_START_TEST (test_expr_numpy_ufuncs)
{
  fail_unless_equals_float (eval1 ("square(y)"), 4);
  fail_unless_equals_float (eval1 ("reciprocal(y)"), -0.5);
  fail_unless_equals_float (eval1 ("reciprocal(l)"), 0);
  fail_unless_equals_float (eval1 ("reciprocal(b)"), 1);
  fail_unless_equals_float (eval1 ("negative(l)"), 3);
  fail_unless_equals_float (eval1 ("positive(l)"), -3);
  fail_unless_equals_float (eval1 ("copysign(d, y)"), -0.25);
  fail_unless_equals_float (eval1 ("signbit(-0.0 * d)"), 1);
  fail_unless_equals_float (eval1 ("heaviside(d - 0.25, 0.5)"), 0.5);
  fail_unless_equals_float (eval1 ("heaviside(y, 0.5)"), 0);
  fail_unless_equals_float (eval1 ("logaddexp(d, d)"), 0.25 + G_LN2);
  fail_unless_equals_float (eval1 ("logaddexp2(d, d)"), 1.25);
  fail_unless_equals_float (eval1 ("nan_to_num(d * inf)"), G_MAXDOUBLE);
  fail_unless_equals_float (eval1 ("nan_to_num(x * -inf)"), -G_MAXFLOAT);
  fail_unless_equals_float (eval1 ("nan_to_num(d * nan)"), 0);
  fail_unless_equals_float (eval1 ("rad2deg(deg2rad(d))"), 0.25);
  fail_unless_equals_float (eval1 ("copy(u) + ones_like(u)"), 201);
  /* literal-only calls fold as the kernels compute */
  fail_unless_equals_float (eval1 ("square(3) + reciprocal(2.0)"), 9.5);
  fail_unless_equals_float (eval1 ("signbit(-0.0) + fabs(-2)"), 3);
}

GST_END_TEST;

GST_START_TEST (test_expr_error_numpy_prefix)
{
  check_error ("np.x + 1", PLAN_ERROR_TYPE, 1, "unknown numpy constant 'np.x'");
  check_error ("np.sine(x)", PLAN_ERROR_TYPE, 1, "did you mean 'sin'");
  check_error ("positive(b)", PLAN_ERROR_TYPE, 1, "positive is not defined");
  check_error ("np.x(2)", PLAN_ERROR_TYPE, 1, "unknown function 'x'");
  check_error ("np. sin(x)", PLAN_ERROR_SYNTAX, 3, "unexpected character");
  /* numpy's np.max(x, 0) reduces along axis 0: never the elementwise max */
  check_error ("d + np.max(x, 0)", PLAN_ERROR_TYPE, 5,
      "np.max is numpy's reduction over an axis");
  check_error ("numpy.min(x, d)", PLAN_ERROR_TYPE, 1,
      "write minimum(x, y) for the smaller of two values (or min(x, y), "
      "without 'numpy.')");
  /* the language's own min and max, and numpy's elementwise names */
  fail_unless_equals_float (eval1 ("max(d, 1) + min(d, 1)"), 1.25);
  fail_unless_equals_float (eval1 ("np.maximum(d, 1) + np.minimum(d, 1)"),
      1.25);
}

GST_END_TEST;

/* ---- syntax and precedence ---- */

GST_START_TEST (test_expr_precedence_follows_c)
{
  fail_unless_equals_float (eval1 ("1 + 2 * 3"), 7);
  fail_unless_equals_float (eval1 ("(1 + 2) * 3"), 9);
  fail_unless_equals_float (eval1 ("1 << 2 + 1"), 8);
  fail_unless_equals_float (eval1 ("6 & 3 | 8"), 10);
  fail_unless_equals_float (eval1 ("6 ^ 3 & 1"), 7);
  fail_unless_equals_float (eval1 ("1 + 2 < 4"), 1);
  fail_unless_equals_float (eval1 ("10 - 4 - 3"), 3);
  fail_unless_equals_float (eval1 ("64 / 4 / 2"), 8);
  fail_unless_equals_float (eval1 ("x > 1 ? 10 : 20"), 10);
  fail_unless_equals_float (eval1 ("x > 2 ? 10 : y > 0 ? 20 : 30"), 30);
  fail_unless_equals_float (eval1 ("0 || 1 && 0"), 0);
}

GST_END_TEST;

GST_START_TEST (test_expr_power_binds_tighter_than_unary_minus)
{
  fail_unless_equals_float (eval1 ("-2 ** 2"), -4);
  fail_unless_equals_float (eval1 ("2 ** 3 ** 2"), 512);
  fail_unless_equals_float (eval1 ("2 ** -1"), 0.5);
  fail_unless_equals_float (eval1 ("-x ** 2"), -2.25);
}

GST_END_TEST;

/* x ** 2 becomes a squaring: nesting it must stay linear in size. */
GST_START_TEST (test_expr_nested_squares)
{
  GString *s = g_string_new ("x");
  PlanExpr *e;
  gfloat x = 1.0001f, out;
  gconstpointer in[N_NAMES] = { &x };
  guint k;

  for (k = 0; k < 150; k++) {
    g_string_prepend_c (s, '(');
    g_string_append (s, ")**2");
  }
  e = compile (s->str);
  plan_expr_eval (e, in, &out, 1);
  fail_unless (isinf (out));
  plan_expr_unref (e);
  g_string_free (s, TRUE);
  fail_unless_equals_float (eval1 ("(x + 1) ** 2"), 6.25);
  fail_unless_equals_float (eval1 ("i ** 2.0"), 49);
}

GST_END_TEST;

GST_START_TEST (test_expr_literals)
{
  fail_unless_equals_float (eval1 ("0x1F"), 31);
  fail_unless_equals_float (eval1 (".5"), 0.5);
  fail_unless_equals_float (eval1 ("1."), 1.0);
  fail_unless_equals_float (eval1 ("1e-3"), 1e-3);
  fail_unless_equals_float (eval1 ("2.5E+2"), 250);
  fail_unless_equals_float (eval1 ("pi"), G_PI);
  fail_unless_equals_float (eval1 ("e"), G_E);
  fail_unless (isinf (eval1 ("inf")) && eval1 ("-inf") < 0);
  fail_unless (isnan (eval1 ("nan")));
  fail_unless_equals_float (eval1 ("true"), 1);
  fail_unless_equals_float (eval1 ("false"), 0);
  fail_unless_equals_float (eval1 ("18446744073709551615"),
      18446744073709551615.0);
}

GST_END_TEST;

GST_START_TEST (test_expr_keywords_and_or_not)
{
  fail_unless_equals_float (eval1 ("x > 0 and y > 0"), 0);
  fail_unless_equals_float (eval1 ("x > 0 or y > 0"), 1);
  /* 'not' binds looser than comparisons, as in Python */
  fail_unless_equals_float (eval1 ("not x == 1.5"), 0);
  fail_unless_equals_float (eval1 ("!x"), 0);
  fail_unless_equals_float (eval1 ("not not b"), 1);
}

GST_END_TEST;

GST_START_TEST (test_expr_bound_name_shadows_constant)
{
  const gchar *n[] = { "e", "pi" };
  PlanDType t[] = { PLAN_DTYPE_INT32, PLAN_DTYPE_INT32 };
  gint32 ev = 5, piv = 7, out;
  gconstpointer in[] = { &ev, &piv };
  PlanExpr *expr = plan_expr_compile ("e * 10 + pi", 2, n, t, NULL);

  fail_unless (expr != NULL);
  fail_unless_equals_int (plan_expr_get_dtype (expr), PLAN_DTYPE_INT32);
  plan_expr_eval (expr, in, &out, 1);
  fail_unless_equals_int (out, 57);
  plan_expr_unref (expr);
}

GST_END_TEST;

GST_START_TEST (test_expr_whitespace_and_newlines)
{
  fail_unless_equals_float (eval1 ("\t x\n +\r\n 1 "), 2.5);
}

GST_END_TEST;

GST_START_TEST (test_expr_check_is_syntax_only)
{
  GError *err = NULL;

  fail_unless (plan_expr_check ("foo(bar) + baz", NULL));
  fail_if (plan_expr_check ("x +", &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_SYNTAX));
  g_error_free (err);
}

GST_END_TEST;

/* ---- syntax errors, one per test ---- */

GST_START_TEST (test_expr_error_empty)
{
  check_error ("   ", PLAN_ERROR_SYNTAX, 1, "empty");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_missing_operand)
{
  check_error ("x + * y", PLAN_ERROR_SYNTAX, 5, "expected an operand, "
      "found '*'");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_ends_early)
{
  check_error ("x +", PLAN_ERROR_SYNTAX, 4, "ends where an operand");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_unexpected_character)
{
  check_error ("x $ y", PLAN_ERROR_SYNTAX, 3, "unexpected character '$'");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_single_equals)
{
  check_error ("x = y", PLAN_ERROR_SYNTAX, 3, "use '=='");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_unclosed_paren)
{
  check_error ("(x + y", PLAN_ERROR_SYNTAX, 7, "expected ')' to close the "
      "'(' at column 1");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_unmatched_paren)
{
  check_error ("x + y)", PLAN_ERROR_SYNTAX, 6, "unmatched ')'");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_trailing_operand)
{
  check_error ("x y", PLAN_ERROR_SYNTAX, 3, "expected an operator or the end");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_bad_exponent)
{
  check_error ("1e+ x", PLAN_ERROR_SYNTAX, 4, "digits in the exponent");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_letter_after_number)
{
  check_error ("2x", PLAN_ERROR_SYNTAX, 2, "unexpected 'x' after a number");
}

GST_END_TEST;

/* 017 was decimal 17, where C reads octal 15 and Python refuses it; a
 * float or imaginary literal, 00 and 0x017 keep their meaning. */
GST_START_TEST (test_expr_error_integer_leading_zero)
{
  check_error ("x + 017", PLAN_ERROR_SYNTAX, 5, "the integer 017 starts with "
      "0, which C reads as octal and Python refuses; write 17");
  check_error ("0009", PLAN_ERROR_SYNTAX, 1, "write 9 (or 0x... for "
      "hexadecimal)");
  fail_unless (eval1 ("00 + 007.5 * 2 + 017e1 + 0x017 + imag(007j)")
      == 215.0);
}

GST_END_TEST;

GST_START_TEST (test_expr_error_integer_literal_too_large)
{
  check_error ("x + 18446744073709551616", PLAN_ERROR_SYNTAX, 5,
      "larger than 2**64 - 1");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_chained_comparison)
{
  check_error ("0 < x < 1", PLAN_ERROR_SYNTAX, 7, "cannot be chained");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_ternary_without_colon)
{
  check_error ("x ? y", PLAN_ERROR_SYNTAX, 6, "expected ':' of the '?' at "
      "column 3");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_bad_argument_list)
{
  check_error ("atan2(x y)", PLAN_ERROR_SYNTAX, 9, "expected ',' or ')'");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_too_many_arguments)
{
  check_error ("where(b, x, y, x)", PLAN_ERROR_TYPE, 1, "'where' takes 3 "
      "arguments, 4 given");
}

GST_END_TEST;

/* docs/expressions.md: more than 200 levels of nested parentheses are
 * refused, 200 are not. */
GST_START_TEST (test_expr_nesting_limit_as_documented)
{
  guint depth;

  for (depth = 199; depth <= 201; depth++) {
    GString *s = g_string_new (NULL);
    PlanExpr *e;
    GError *err = NULL;
    guint k;

    for (k = 0; k < depth; k++)
      g_string_append_c (s, '(');
    g_string_append (s, "x");
    for (k = 0; k < depth; k++)
      g_string_append_c (s, ')');
    e = plan_expr_compile (s->str, N_NAMES, names, dtypes, &err);
    if (depth <= 200) {
      fail_unless (e != NULL, "%u levels: %s", depth, err->message);
      plan_expr_unref (e);
    } else {
      fail_unless (e == NULL);
      fail_unless (strstr (err->message, "nested more than 200") != NULL,
          "%s", err->message);
      g_error_free (err);
    }
    g_string_free (s, TRUE);
  }
}

GST_END_TEST;

GST_START_TEST (test_expr_error_nested_too_deep)
{
  GString *s = g_string_new (NULL);
  GError *err = NULL;
  guint k;

  for (k = 0; k < 1000; k++)
    g_string_append_c (s, '(');
  g_string_append_c (s, 'x');
  for (k = 0; k < 1000; k++)
    g_string_append_c (s, ')');
  fail_if (plan_expr_compile (s->str, N_NAMES, names, dtypes, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_SYNTAX));
  fail_unless (strstr (err->message, "nested more than") != NULL);
  g_error_free (err);
  g_string_free (s, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_expr_error_too_many_levels)
{
  GString *s = g_string_new ("x");
  GError *err = NULL;
  guint k;

  for (k = 0; k < 5000; k++)
    g_string_append (s, "+x");
  fail_if (plan_expr_compile (s->str, N_NAMES, names, dtypes, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_SYNTAX));
  fail_unless (strstr (err->message, "levels") != NULL);
  g_error_free (err);
  g_string_free (s, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_expr_error_non_ascii)
{
  check_error ("x + \xc3\xa9", PLAN_ERROR_SYNTAX, 5, "non-ASCII");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_multiline_names_line)
{
  GError *err = NULL;

  fail_if (plan_expr_compile ("x +\n  * y", N_NAMES, names, dtypes, &err));
  fail_unless (g_str_has_prefix (err->message, "line 2, column 3: "),
      "%s", err->message);
  fail_unless (g_str_has_suffix (err->message, "\n    * y\n    ^"), "%s",
      err->message);
  g_error_free (err);
}

GST_END_TEST;

/* The place of the '(' or '?' that an error refers back to is given as
 * the error's own place is: with its line in a multi-line expression. */
GST_START_TEST (test_expr_error_multiline_refers_back_by_line)
{
  static const struct
  {
    const gchar *src, *prefix, *needle;
  } cases[] = {
    {"(x +\n  1", "line 2, column 4: ", "expected ')' to close the '(' at "
          "line 1, column 1, found the end of the expression"},
    {"y * (x +\n 1 ? 2", "line 2, column 7: ", "expected ':' of the '?' at "
          "line 2, column 4, found the end of the expression"},
    {"x ? y\n", "line 2, column 1: ", "expected ':' of the '?' at line 1, "
          "column 3"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GError *err = NULL;

    fail_if (plan_expr_compile (cases[i].src, N_NAMES, names, dtypes, &err));
    fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_SYNTAX));
    fail_unless (g_str_has_prefix (err->message, cases[i].prefix), "%s",
        err->message);
    fail_unless (strstr (err->message, cases[i].needle) != NULL, "%s",
        err->message);
    g_error_free (err);
  }
}

GST_END_TEST;

/* ---- type errors, one per test ---- */

GST_START_TEST (test_expr_error_unknown_name_lists_bound_names)
{
  check_error ("x + z", PLAN_ERROR_TYPE, 5, "unknown name 'z'; the bound "
      "names are x, y, i, u, b, d, l, q");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_unknown_name_without_bound_names)
{
  GError *err = NULL;

  fail_if (plan_expr_compile ("z", 0, NULL, NULL, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_TYPE));
  fail_unless (strstr (err->message, "no names are bound") != NULL);
  g_error_free (err);
}

GST_END_TEST;

GST_START_TEST (test_expr_error_unknown_function_suggests)
{
  check_error ("1 + sine(x)", PLAN_ERROR_TYPE, 5, "unknown function 'sine'; "
      "did you mean 'sin'?");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_unknown_dtype_cast_suggests)
{
  check_error ("flaot32(i)", PLAN_ERROR_TYPE, 1, "did you mean 'float32'?");
}

GST_END_TEST;

/* Python's casts and the constants called as functions are told what to
 * write, not a function whose name is near (float was 'floor', int 'rint',
 * pi 'sin'). */
GST_START_TEST (test_expr_error_python_cast_and_constant_called)
{
  check_error ("float(x)", PLAN_ERROR_TYPE, 1, "unknown function 'float'; "
      "Python's float is float64 here: write float64(x)");
  check_error ("y + int(x)", PLAN_ERROR_TYPE, 5, "unknown function 'int'; "
      "Python's int is int64 here: write int64(x)");
  check_error ("complex(x, y)", PLAN_ERROR_TYPE, 1, "write complex128(x), "
      "or x + 1j * y");
  check_error ("np.pi(2)", PLAN_ERROR_TYPE, 1, "unknown function 'pi'; pi "
      "is a constant, not a function");
  check_error ("true(x)", PLAN_ERROR_TYPE, 1, "true is a constant");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_name_called)
{
  check_error ("x(2)", PLAN_ERROR_TYPE, 1, "'x' is a bound name, not a "
      "function");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_wrong_arity)
{
  check_error ("y + atan2(x)", PLAN_ERROR_TYPE, 5, "'atan2' takes 2 "
      "arguments, 1 given");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_cast_arity)
{
  check_error ("int8(x, y)", PLAN_ERROR_TYPE, 1, "'int8' takes 1 argument, "
      "2 given");
}

GST_END_TEST;

/* More arguments than any call holds: the function's own count, as for
 * fewer (it said "at most 3" for sin), and the typer's other messages. */
GST_START_TEST (test_expr_error_arity_over_three)
{
  check_error ("sin(x, x, x, x)", PLAN_ERROR_TYPE, 1, "'sin' takes 1 "
      "argument, 4 given");
  check_error ("float64(x, x, x, x)", PLAN_ERROR_TYPE, 1, "'float64' takes "
      "1 argument, 4 given");
  check_error ("sine(x, x, x, x)", PLAN_ERROR_TYPE, 1, "unknown function "
      "'sine'; did you mean 'sin'?");
  check_error ("y + x(x, x, x, x)", PLAN_ERROR_TYPE, 5, "'x' is a bound "
      "name, not a function");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_bitwise_on_float_left)
{
  check_error ("x & i", PLAN_ERROR_TYPE, 1, "the left operand 'x' is float32");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_bitwise_on_float_right)
{
  check_error ("i | (d + 1)", PLAN_ERROR_TYPE, 5, "the right operand "
      "'(d + 1)' is float64");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_shift_of_float_literal)
{
  check_error ("i << 1.5", PLAN_ERROR_TYPE, 6, "is a float literal");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_bitwise_int64_uint64)
{
  check_error ("l ^ q", PLAN_ERROR_TYPE, 3, "no common integer type");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_invert_float)
{
  check_error ("~x", PLAN_ERROR_TYPE, 2, "'~' needs an integer or bool "
      "operand, but 'x' is float32");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_bool_subtract)
{
  check_error ("b - b", PLAN_ERROR_TYPE, 3, "use '^' or '!='");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_bool_negate)
{
  check_error ("-b", PLAN_ERROR_TYPE, 1, "not defined for bool");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_literal_out_of_range)
{
  check_error ("i + 300", PLAN_ERROR_TYPE, 5, "the literal 300 is out of "
      "range for int8");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_constant_division_by_zero)
{
  check_error ("x + 1 // 0", PLAN_ERROR_TYPE, 7, "division by zero");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_constant_overflow)
{
  check_error ("x + 2**64", PLAN_ERROR_TYPE, 6, "out of the 64-bit");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_negative_constant_shift)
{
  check_error ("x + (1 << -1)", PLAN_ERROR_TYPE, 11, "negative shift");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_bad_dtype_argument)
{
  const gchar *n[] = { "x" };
  PlanDType t[] = { PLAN_DTYPE_UNKNOWN };
  GError *err = NULL;

  fail_if (plan_expr_compile ("x", 1, n, t, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT));
  g_error_free (err);
}

GST_END_TEST;


/* ---- broadcasting ---- */

static PlanExpr *
compile_bcast (const gchar * src, guint n, const gchar * const *bnames,
    const PlanArrayInfo * infos, guint n_streams, PlanArrayInfo * out,
    GError ** err)
{
  return plan_expr_compile_broadcast (src, n, bnames, infos, n_streams,
      PLAN_DTYPE_UNKNOWN, out, err);
}

static void
set_info (PlanArrayInfo * info, PlanDType d, guint ndim, gint64 a, gint64 b,
    gint64 c)
{
  gint64 shape[3] = { a, b, c };

  fail_unless (plan_array_info_set (info, d, ndim, shape, NULL));
}

/* x (rows, 3, 1) float64, y (rows, 1, 4) int32, c (4,) float32 and a
 * scalar s: x * y + c - s against a plain loop, on one thread and several,
 * for row counts that take the block gather (a range shorter than a row
 * and a block) and the periodic one. */
GST_START_TEST (test_expr_broadcast_values)
{
  const gchar *bn[] = { "x", "y", "c", "s" };
  PlanArrayInfo infos[4], out;
  static const guint row_counts[] = { 1, 3, 700 };
  GError *err = NULL;
  PlanExpr *e;
  guint k;

  set_info (&infos[0], PLAN_DTYPE_FLOAT64, 3, -1, 3, 1);
  set_info (&infos[1], PLAN_DTYPE_INT32, 3, -1, 1, 4);
  set_info (&infos[2], PLAN_DTYPE_FLOAT32, 1, 4, 0, 0);
  set_info (&infos[3], PLAN_DTYPE_FLOAT64, 0, 0, 0, 0);
  e = compile_bcast ("x * y + c - s", 4, bn, infos, 2, &out, &err);
  fail_unless (e != NULL, "%s", err ? err->message : "");
  fail_unless_equals_int (out.ndim, 3);
  fail_unless_equals_int (out.shape[1], 3);
  fail_unless_equals_int (out.shape[2], 4);
  fail_unless_equals_int (out.dtype, PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int (plan_expr_get_dtype (e), PLAN_DTYPE_FLOAT64);

  for (k = 0; k < G_N_ELEMENTS (row_counts); k++) {
    guint rows = row_counts[k], r, a, b, threads;
    gdouble *x = g_new (gdouble, rows * 3);
    gint32 *y = g_new (gint32, rows * 4);
    gfloat c[4] = { 0.5f, -1.25f, 3.0f, 7.0f };
    gdouble s = 0.125, *got = g_new (gdouble, rows * 12);
    gconstpointer in[4] = { x, y, c, &s };

    for (r = 0; r < rows * 3; r++)
      x[r] = r * 0.75 - 3;
    for (r = 0; r < rows * 4; r++)
      y[r] = (gint32) (r % 11) - 5;
    for (threads = 1; threads <= 4; threads += 3) {
      memset (got, 0, rows * 12 * sizeof (gdouble));
      plan_expr_eval_parallel (e, in, got, rows * 12, threads);
      for (r = 0; r < rows; r++)
        for (a = 0; a < 3; a++)
          for (b = 0; b < 4; b++) {
            gdouble want = x[r * 3 + a] * (gdouble) y[r * 4 + b] +
                (gdouble) c[b] - s;
            fail_unless (got[r * 12 + a * 4 + b] == want,
                "rows %u, threads %u, [%u, %u, %u]: %g, expected %g", rows,
                threads, r, a, b, got[r * 12 + a * 4 + b], want);
          }
    }
    g_free (x);
    g_free (y);
    g_free (got);
  }
  plan_expr_unref (e);
}

GST_END_TEST;

/* A constant longer than a block (3000 per row) read by both gathers, an
 * unused constant given as NULL, and a scalar alone. */
GST_START_TEST (test_expr_broadcast_long_rows_and_unused)
{
  const gchar *bn[] = { "x", "c", "unused", "g" };
  PlanArrayInfo infos[4], out;
  guint rows, i;
  PlanExpr *e, *only;

  set_info (&infos[0], PLAN_DTYPE_FLOAT32, 2, -1, 3000, 0);
  set_info (&infos[1], PLAN_DTYPE_FLOAT32, 2, 1, 3000, 0);
  set_info (&infos[2], PLAN_DTYPE_INT8, 1, 5, 0, 0);  /* unused: any shape */
  set_info (&infos[3], PLAN_DTYPE_FLOAT32, 0, 0, 0, 0);
  e = compile_bcast ("x - c * g", 4, bn, infos, 1, &out, NULL);
  fail_unless (e != NULL);
  fail_unless (!plan_expr_uses_name (e, 2));
  only = compile_bcast ("g", 4, bn, infos, 1, &out, NULL);
  fail_unless (only != NULL);
  fail_unless_equals_int (out.shape[1], 3000);
  for (rows = 1; rows <= 4; rows += 3) {
    gfloat *x = g_new (gfloat, rows * 3000), *c = g_new (gfloat, 3000);
    gfloat *got = g_new (gfloat, rows * 3000), g = 1.5f;
    gconstpointer in[4] = { x, c, NULL, &g };

    for (i = 0; i < rows * 3000; i++)
      x[i] = i * 0.5f;
    for (i = 0; i < 3000; i++)
      c[i] = 3000.0f - i;
    plan_expr_eval (e, in, got, rows * 3000);
    for (i = 0; i < rows * 3000; i++)
      fail_unless (got[i] == x[i] - c[i % 3000] * g, "element %u", i);
    plan_expr_eval_parallel (only, in, got, rows * 3000, 2);
    for (i = 0; i < rows * 3000; i++)
      fail_unless (got[i] == g);
    g_free (x);
    g_free (c);
    g_free (got);
  }
  plan_expr_unref (e);
  plan_expr_unref (only);
}

GST_END_TEST;

static void
expect_bcast_error (const gchar * src, guint n, const gchar * const *bn,
    const PlanArrayInfo * infos, guint n_streams, const gchar * needle1,
    const gchar * needle2)
{
  GError *err = NULL;
  PlanExpr *e = compile_bcast (src, n, bn, infos, n_streams, NULL, &err);

  fail_unless (e == NULL, "'%s' compiled", src);
  fail_unless (err != NULL);
  fail_unless (strstr (err->message, needle1) != NULL, "%s", err->message);
  fail_unless (strstr (err->message, needle2) != NULL, "%s", err->message);
  g_error_free (err);
}

GST_START_TEST (test_expr_broadcast_errors)
{
  const gchar *bn[] = { "x", "y" };
  PlanArrayInfo infos[2];

  /* streams of different numbers of axes: numpy would misalign the rows */
  set_info (&infos[0], PLAN_DTYPE_FLOAT32, 1, 10, 0, 0);
  set_info (&infos[1], PLAN_DTYPE_FLOAT32, 2, 10, 3, 0);
  expect_bcast_error ("x + y", 2, bn, infos, 2, "(10,)", "(10, 1)");
  /* inner axes that differ */
  set_info (&infos[0], PLAN_DTYPE_FLOAT32, 2, 10, 2, 0);
  expect_bcast_error ("x + y", 2, bn, infos, 2, "(10, 2)", "(10, 3)");
  /* a constant that does not broadcast, one along the rows, one with
   * more axes */
  set_info (&infos[1], PLAN_DTYPE_FLOAT32, 1, 3, 0, 0);
  expect_bcast_error ("x + y", 2, bn, infos, 1, "(3,)", "do not broadcast");
  set_info (&infos[1], PLAN_DTYPE_FLOAT32, 2, 10, 2, 0);
  expect_bcast_error ("x + y", 2, bn, infos, 1, "(10, 2)",
      "same for every row");
  set_info (&infos[1], PLAN_DTYPE_FLOAT32, 3, 1, 1, 2);
  expect_bcast_error ("x + y", 2, bn, infos, 1, "(1, 1, 2)", "more axes");
  /* no stream */
  expect_bcast_error ("x + y", 2, bn, infos, 0, "at least one stream", "2");
  /* a broadcast row too long to index */
  set_info (&infos[0], PLAN_DTYPE_FLOAT32, 3, -1, 100000, 1);
  set_info (&infos[1], PLAN_DTYPE_FLOAT32, 2, 1, 100000, 0);
  expect_bcast_error ("x + y", 2, bn, infos, 1, "(-1, 100000, 100000)",
      "at most 67108864 elements");
  /* a name that fails to type is the compiler's error, as ever */
  set_info (&infos[1], PLAN_DTYPE_FLOAT32, 1, 2, 0, 0);
  expect_bcast_error ("x + z", 2, bn, infos, 1, "unknown name", "'z'");
}

GST_END_TEST;

GST_START_TEST (test_expr_error_name_bound_twice)
{
  const gchar *n[] = { "x", "x" };
  PlanDType t[] = { PLAN_DTYPE_FLOAT32, PLAN_DTYPE_INT8 };
  GError *err = NULL;

  fail_if (plan_expr_compile ("x", 2, n, t, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT));
  fail_unless (strstr (err->message, "bound twice") != NULL);
  g_error_free (err);
}

GST_END_TEST;

GST_START_TEST (test_expr_error_name_not_identifier)
{
  const gchar *n[] = { "x y" };
  PlanDType t[] = { PLAN_DTYPE_FLOAT32 };
  GError *err = NULL;

  fail_if (plan_expr_compile ("x", 1, n, t, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT));
  fail_unless (strstr (err->message, "'x y' cannot be bound") != NULL);
  g_error_free (err);
}

GST_END_TEST;

/* ---- type rules ---- */

GST_START_TEST (test_expr_weak_literals_keep_dtype)
{
  fail_unless_equals_int (dtype_of ("x * 2.0"), PLAN_DTYPE_FLOAT32);
  fail_unless_equals_int (dtype_of ("x * 2"), PLAN_DTYPE_FLOAT32);
  fail_unless_equals_int (dtype_of ("i + 1"), PLAN_DTYPE_INT8);
  fail_unless_equals_int (dtype_of ("u * 2"), PLAN_DTYPE_UINT8);
  fail_unless_equals_int (dtype_of ("i + 1.5"), PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int (dtype_of ("b + 1"), PLAN_DTYPE_INT64);
  fail_unless_equals_int (dtype_of ("b * 1.0"), PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int (dtype_of ("x * sqrt(2)"), PLAN_DTYPE_FLOAT32);
  fail_unless_equals_int (dtype_of ("x * pi"), PLAN_DTYPE_FLOAT32);
  fail_unless_equals_int (dtype_of ("maximum(x, 0)"), PLAN_DTYPE_FLOAT32);
  fail_unless_equals_int (dtype_of ("clip(i, 0, 100)"), PLAN_DTYPE_INT8);
  fail_unless_equals_int (dtype_of ("where(b, x, 0)"), PLAN_DTYPE_FLOAT32);
}

GST_END_TEST;

GST_START_TEST (test_expr_literal_only_default_dtypes)
{
  fail_unless_equals_int (dtype_of ("1 + 2"), PLAN_DTYPE_INT64);
  fail_unless_equals_int (dtype_of ("1.5"), PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int (dtype_of ("2**63"), PLAN_DTYPE_UINT64);
  fail_unless_equals_int (dtype_of ("1 < 2"), PLAN_DTYPE_BOOL);
  fail_unless_equals_int (dtype_of ("where(b, 1, 2)"), PLAN_DTYPE_INT64);
}

GST_END_TEST;

GST_START_TEST (test_expr_promotion_follows_numpy)
{
  fail_unless_equals_int (dtype_of ("x + d"), PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int (dtype_of ("x + i"), PLAN_DTYPE_FLOAT32);
  fail_unless_equals_int (dtype_of ("x + l"), PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int (dtype_of ("u + i"), PLAN_DTYPE_INT16);
  fail_unless_equals_int (dtype_of ("l + q"), PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int (dtype_of ("u + q"), PLAN_DTYPE_UINT64);
  fail_unless_equals_int (dtype_of ("b + i"), PLAN_DTYPE_INT8);
  fail_unless_equals_int (dtype_of ("b + b"), PLAN_DTYPE_BOOL);
  fail_unless_equals_int (dtype_of ("b // b"), PLAN_DTYPE_INT8);
}

GST_END_TEST;

GST_START_TEST (test_expr_division_and_functions_dtypes)
{
  fail_unless_equals_int (dtype_of ("i / i"), PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int (dtype_of ("x / 2"), PLAN_DTYPE_FLOAT32);
  fail_unless_equals_int (dtype_of ("i // 2"), PLAN_DTYPE_INT8);
  fail_unless_equals_int (dtype_of ("x < y"), PLAN_DTYPE_BOOL);
  fail_unless_equals_int (dtype_of ("sqrt(i)"), PLAN_DTYPE_FLOAT16);
  fail_unless_equals_int (dtype_of ("sqrt(l)"), PLAN_DTYPE_FLOAT64);
  /* numpy's float loop of each operand, not of their promotion (int16) */
  fail_unless_equals_int (dtype_of ("atan2(u, i)"), PLAN_DTYPE_FLOAT16);
  fail_unless_equals_int (dtype_of ("hypot(i, u)"), PLAN_DTYPE_FLOAT16);
  fail_unless_equals_int (dtype_of ("copysign(u, l)"), PLAN_DTYPE_FLOAT64);
  fail_unless_equals_int (dtype_of ("logaddexp(b, i)"), PLAN_DTYPE_FLOAT16);
  fail_unless_equals_int (dtype_of ("atan2(i, 2)"), PLAN_DTYPE_FLOAT16);
  fail_unless_equals_int (dtype_of ("atan2(u, x)"), PLAN_DTYPE_FLOAT32);
  /* numpy's result_type of three: a float meets each integer on its own */
  fail_unless_equals_int (dtype_of ("clip(i, u, float16(x))"),
      PLAN_DTYPE_FLOAT16);
  fail_unless_equals_int (dtype_of ("clip(float16(x), i, u)"),
      PLAN_DTYPE_FLOAT16);
  fail_unless_equals_int (dtype_of ("clip(i, u, l)"), PLAN_DTYPE_INT64);
  fail_unless_equals_int (dtype_of ("clip(i, u, i)"), PLAN_DTYPE_INT16);
  fail_unless_equals_int (dtype_of ("floor(i)"), PLAN_DTYPE_INT8);
  fail_unless_equals_int (dtype_of ("isnan(i)"), PLAN_DTYPE_BOOL);
  fail_unless_equals_int (dtype_of ("abs(b)"), PLAN_DTYPE_BOOL);
  fail_unless_equals_int (dtype_of ("float32(x + d)"), PLAN_DTYPE_FLOAT32);
  fail_unless_equals_int (dtype_of ("bool(x)"), PLAN_DTYPE_BOOL);
  fail_unless_equals_int (dtype_of ("uint16(3)"), PLAN_DTYPE_UINT16);
}

GST_END_TEST;

GST_START_TEST (test_expr_compare_with_out_of_range_literal)
{
  /* i is -7: exact answers although 1000 does not fit int8 */
  fail_unless_equals_float (eval1 ("i < 1000"), 1);
  fail_unless_equals_float (eval1 ("u == -1"), 0);
  fail_unless_equals_float (eval1 ("u > -1"), 1);
}

GST_END_TEST;

/* ---- semantics ---- */

GST_START_TEST (test_expr_integer_semantics)
{
  fail_unless_equals_float (eval1 ("i // 2"), -4);
  fail_unless_equals_float (eval1 ("i % 3"), 2);
  fail_unless_equals_float (eval1 ("i % -3"), -1);
  fail_unless_equals_float (eval1 ("fmod(i, 3)"), -1);
  fail_unless_equals_float (eval1 ("i // 0"), 0);
  fail_unless_equals_float (eval1 ("i % 0"), 0);
  fail_unless_equals_float (eval1 ("u + 100"), 44);
  fail_unless_equals_float (eval1 ("int8(-128) // -1"), -128);
  fail_unless_equals_float (eval1 ("i ** 2"), 49);
  fail_unless_equals_float (eval1 ("l ** -1"), 0);
  fail_unless_equals_float (eval1 ("i >> 1"), -4);
  fail_unless_equals_float (eval1 ("i << 8"), 0);
  fail_unless_equals_float (eval1 ("i >> 9"), -1);
  fail_unless_equals_float (eval1 ("~i"), 6);
  fail_unless_equals_float (eval1 ("abs(int8(-128))"), -128);
}

GST_END_TEST;

GST_START_TEST (test_expr_float_semantics)
{
  fail_unless_equals_float (eval1 ("x // y"), -1);
  fail_unless_equals_float (eval1 ("x % y"), -0.5);
  fail_unless (isinf (eval1 ("x / 0")));
  fail_unless (isnan (eval1 ("maximum(x, nan)")));
  fail_unless_equals_float (eval1 ("fmax(x, nan)"), 1.5);
  fail_unless_equals_float (eval1 ("round(2.5) + round(x)"), 4);
  fail_unless_equals_float (eval1 ("sign(y)"), -1);
  fail_unless_equals_float (eval1 ("clip(y, -1, 1)"), -1);
  fail_unless_equals_float (eval1 ("int8(1e10)"), 127);
  fail_unless_equals_float (eval1 ("uint8(-3.5)"), 0);
  fail_unless_equals_float (eval1 ("int64(nan)"), 0);
  fail_unless (signbit (eval1 ("-0.0 * x")));
}

GST_END_TEST;

GST_START_TEST (test_expr_eval_in_place)
{
  const gchar *n[] = { "a" };
  PlanDType t[] = { PLAN_DTYPE_FLOAT32 };
  gsize len = 100000, k;
  gfloat *a = g_new (gfloat, len);
  gconstpointer in[1];
  PlanExpr *e = plan_expr_compile ("sin(a) * 2 + a", 1, n, t, NULL);

  for (k = 0; k < len; k++)
    a[k] = (gfloat) k / 1000.0f;
  in[0] = a;
  plan_expr_eval (e, in, a, len);
  for (k = 0; k < len; k += 997) {
    gfloat v = (gfloat) k / 1000.0f;
    fail_unless (fabsf (a[k] - (sinf (v) * 2 + v)) <= 1e-5f * (1 + v));
  }
  plan_expr_unref (e);
  g_free (a);
}

GST_END_TEST;

GST_START_TEST (test_expr_eval_parallel_matches_serial)
{
  const gchar *n[] = { "a", "c" };
  PlanDType t[] = { PLAN_DTYPE_FLOAT64, PLAN_DTYPE_INT32 };
  gsize len = 1000003, k;
  gdouble *a = g_new (gdouble, len), *o1 = g_new (gdouble, len);
  gdouble *o2 = g_new (gdouble, len);
  gint32 *c = g_new (gint32, len);
  gconstpointer in[2] = { a, c };
  PlanExpr *e = plan_expr_compile ("where(c % 3 == 0, a * c, exp(-a))", 2,
      n, t, NULL);

  for (k = 0; k < len; k++) {
    a[k] = (gdouble) k * 1e-5;
    c[k] = (gint32) k;
  }
  plan_expr_eval (e, in, o1, len);
  plan_expr_eval_parallel (e, in, o2, len, 4);
  fail_unless (memcmp (o1, o2, len * sizeof (gdouble)) == 0);
  plan_expr_eval_parallel (e, in, o2, len, 0);
  fail_unless (memcmp (o1, o2, len * sizeof (gdouble)) == 0);
  fail_unless_equals_float (o1[3], 3e-5 * 3);
  plan_expr_unref (e);
  g_free (a);
  g_free (c);
  g_free (o1);
  g_free (o2);
}

GST_END_TEST;

/* Weighted sums (c0 x0 + c1 x1 - ..., optionally scaled) run as one fused
 * kernel; it must give what the program of separate operations gives, to
 * the bit. The compiler says in the planexpr debug log when it takes an
 * expression as one, which tells the tests that the fused kernel ran. */
static guint chain_terms_logged;
static gboolean chain_log_added;

static void
chain_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  const gchar *text = gst_debug_message_get (message);
  const gchar *at;

  if (strcmp (gst_debug_category_get_name (category), "planexpr") != 0
      || text == NULL || (at = strstr (text, " is a weighted sum of ")) == NULL)
    return;
  chain_terms_logged = atoi (at + strlen (" is a weighted sum of "));
}

static const gchar *const abc[] = { "a", "b", "c", "d", "e", "f", "g", "h",
  "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t"
};

/* Compiles @src with every name of dtype @d, fused (returning the number
 * of terms the compiler found, 0 for none) or, with @fused FALSE, as the
 * program of separate operations. */
static PlanExpr *
compile_chain (const gchar * src, PlanDType d, gboolean fused, guint * terms)
{
  PlanDType t[G_N_ELEMENTS (abc)];
  GError *err = NULL;
  PlanExpr *e;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (abc); i++)
    t[i] = d;
  if (!fused)
    g_setenv ("PLAN_EXPR_CHAIN", "0", TRUE);
  /* Added once and kept: removing a log function leaks in GStreamer
   * 1.22, which valgrind would report. */
  if (!chain_log_added) {
    gst_debug_add_log_function (chain_log, NULL, NULL);
    chain_log_added = TRUE;
  }
  gst_debug_set_threshold_for_name ("planexpr", GST_LEVEL_DEBUG);
  chain_terms_logged = 0;
  e = plan_expr_compile (src, G_N_ELEMENTS (abc), abc, t, &err);
  gst_debug_unset_threshold_for_name ("planexpr");
  g_unsetenv ("PLAN_EXPR_CHAIN");
  if (e == NULL)
    g_error ("'%s' does not compile: %s", src, err->message);
  *terms = chain_terms_logged;
  return e;
}

/* Random values of dtype @d, the floats of every magnitude with zeros of
 * both signs, infinities, NaN, subnormals and values whose sums
 * overflow; the integers over their whole range, so that they wrap. */
static void
fill_chain_input (PlanDType d, gpointer data, gsize n, GRand * rand)
{
  static const gdouble special[] = { 0.0, -0.0, INFINITY, -INFINITY, NAN,
    1e-40, -3e-42, 3e38, -3.3e38, 1e300, 1.0, -1.0
  };
  gsize k;

  for (k = 0; k < n; k++) {
    gdouble v = g_rand_double_range (rand, -1, 1) *
        pow (10, g_rand_int_range (rand, -3, 6));
    gint64 r = (gint64) ((guint64) g_rand_int (rand) << 32 | g_rand_int (rand));

    if (g_rand_int_range (rand, 0, 8) == 0)
      v = special[g_rand_int_range (rand, 0, G_N_ELEMENTS (special))];
    switch (d) {
      case PLAN_DTYPE_FLOAT32:
        ((gfloat *) data)[k] = (gfloat) v;
        break;
      case PLAN_DTYPE_FLOAT64:
        ((gdouble *) data)[k] = v;
        break;
      case PLAN_DTYPE_INT16:
        ((gint16 *) data)[k] = (gint16) r;
        break;
      case PLAN_DTYPE_INT32:
        ((gint32 *) data)[k] = (gint32) r;
        break;
      default:
        ((gint64 *) data)[k] = r;
        break;
    }
  }
}

/* Equal bits, or both NaN (which NaN two NaNs give is the hardware's
 * choice of operand, not a result). */
static gboolean
same_result (PlanDType d, gconstpointer a, gconstpointer b, gsize n, gsize * at)
{
  gsize size = plan_dtype_get_size (d), k;

  for (k = 0; k < n; k++) {
    const guint8 *x = (const guint8 *) a + k * size;
    const guint8 *y = (const guint8 *) b + k * size;

    if (memcmp (x, y, size) == 0)
      continue;
    if (d == PLAN_DTYPE_FLOAT32 && isnan (*(const gfloat *) x)
        && isnan (*(const gfloat *) y))
      continue;
    if (d == PLAN_DTYPE_FLOAT64 && isnan (*(const gdouble *) x)
        && isnan (*(const gdouble *) y))
      continue;
    *at = k;
    return FALSE;
  }
  return TRUE;
}

/* Evaluates @src fused and as a program, out of place and in place (the
 * output over the first input), on @n elements, and compares them. */
static void
check_chain (const gchar * src, PlanDType d, guint want_terms)
{
  const gsize n = 3 * 1024 + 77;
  gsize size = plan_dtype_get_size (d), at = 0, i;
  guint8 *data[G_N_ELEMENTS (abc)], *fused, *program, *in_place;
  gconstpointer in[G_N_ELEMENTS (abc)];
  PlanExpr *ef, *ep;
  guint terms, no_terms;
  GRand *rand = g_rand_new_with_seed (strlen (src) * 31 + d);

  ef = compile_chain (src, d, TRUE, &terms);
  ep = compile_chain (src, d, FALSE, &no_terms);
  fail_unless_equals_int (terms, want_terms);
  fail_unless_equals_int (no_terms, 0);
  fail_unless_equals_int (plan_expr_get_dtype (ef), d);
  for (i = 0; i < G_N_ELEMENTS (abc); i++) {
    data[i] = g_malloc (n * size);
    fill_chain_input (d, data[i], n, rand);
    in[i] = data[i];
  }
  fused = g_malloc (n * size);
  program = g_malloc (n * size);
  in_place = g_memdup2 (data[0], n * size);

  plan_expr_eval (ep, in, program, n);
  plan_expr_eval (ef, in, fused, n);
  fail_unless (same_result (d, fused, program, n, &at), "'%s' on %s: "
      "element %" G_GSIZE_FORMAT " differs fused", src,
      plan_dtype_to_string (d), at);
  in[0] = in_place;
  plan_expr_eval (ef, in, in_place, n);
  fail_unless (same_result (d, in_place, program, n, &at), "'%s' on %s: "
      "element %" G_GSIZE_FORMAT " differs fused in place", src,
      plan_dtype_to_string (d), at);

  for (i = 0; i < G_N_ELEMENTS (abc); i++)
    g_free (data[i]);
  g_free (fused);
  g_free (program);
  g_free (in_place);
  g_rand_free (rand);
  plan_expr_unref (ef);
  plan_expr_unref (ep);
}

GST_START_TEST (test_expr_weighted_sums_fused_exactly)
{
  static const PlanDType all[] = { PLAN_DTYPE_FLOAT32, PLAN_DTYPE_FLOAT64,
    PLAN_DTYPE_INT16, PLAN_DTYPE_INT32, PLAN_DTYPE_INT64
  };
  static const struct
  {
    const gchar *src;
    guint terms;
  } sums[] = {
    {"a + b + c", 3},
    {"n + s + e + f - 4*c", 5},
    {"a - b*3 - 2*c + d*7 - e", 5},
    {"(a + b + c) * 5", 3},
    {"-3 * (a - b)", 2},
    {"a + b + c + d + e + f + g + h + i", 9},
    {"a - 2*b + 3*c - 4*d + 5*e - 6*f + 7*g - 8*h + 9*i - j + k - l + m "
          "- n + o - p + q - r + s - t", 20},
  };
  static const gchar *const floats[] = {
    "0.25*a + 0.5*b + 0.25*c",
    "(a + b + c) / 3",
    "0.1*a - 0.7*b + c*1e30 - 1e-30*d",
  };
  guint i, k;

  for (k = 0; k < G_N_ELEMENTS (all); k++)
    for (i = 0; i < G_N_ELEMENTS (sums); i++)
      check_chain (sums[i].src, all[k], sums[i].terms);
  for (k = 0; k < 2; k++)
    for (i = 0; i < G_N_ELEMENTS (floats); i++)
      check_chain (floats[i], all[k], 3 + (i == 2));
}

GST_END_TEST;

/* Sums that are not chains of weighted names run as programs: products
 * of names, sums on the right, a single operation, and sums of another
 * dtype than their names'. */
GST_START_TEST (test_expr_weighted_sums_only_when_exact)
{
  static const gchar *const others[] = { "a*b + c", "a + (b + c)", "a + b",
    "a + b + 1", "(a + b + c) / 3", "abs(a) + b + c", "a + b + c > 0"
  };
  guint i, terms;

  for (i = 0; i < G_N_ELEMENTS (others); i++) {
    PlanExpr *e = compile_chain (others[i], PLAN_DTYPE_INT32, TRUE, &terms);

    fail_unless_equals_int (terms, 0);
    plan_expr_unref (e);
  }
  check_chain ("a*b + c + d", PLAN_DTYPE_FLOAT32, 0);
  check_chain ("a + b + 1.5", PLAN_DTYPE_FLOAT64, 0);
}

GST_END_TEST;

/* Outputs of 16 MiB and more are written with streaming stores; the
 * result must be the same as block by block in cache. */
GST_START_TEST (test_expr_eval_large_output_streams)
{
  const gchar *n[] = { "a", "c" };
  PlanDType t[] = { PLAN_DTYPE_FLOAT32, PLAN_DTYPE_UINT8 };
  gsize len = (5 << 20) + 77, k, piece = 100000;
  gfloat *a = g_new (gfloat, len), *o1 = g_new (gfloat, len);
  gfloat *o2 = g_new (gfloat, len + 1);
  guint8 *c = g_new (guint8, len);
  PlanExpr *e = plan_expr_compile ("a * c + 1", 2, n, t, NULL);
  PlanExpr *add = plan_expr_compile ("a + a", 2, n, t, NULL);
  gconstpointer in[2] = { a, c };

  for (k = 0; k < len; k++) {
    a[k] = (gfloat) k;
    c[k] = (guint8) k;
  }
  /* small calls: no streaming */
  for (k = 0; k < len; k += piece) {
    gconstpointer part[2] = { a + k, c + k };
    plan_expr_eval (e, part, o1 + k, MIN (piece, len - k));
  }
  /* one large call, and one into a misaligned output */
  plan_expr_eval (e, in, o2, len);
  fail_unless (memcmp (o1, o2, len * sizeof (gfloat)) == 0);
  plan_expr_eval_parallel (e, in, o2 + 1, len, 0);
  fail_unless (memcmp (o1, o2 + 1, len * sizeof (gfloat)) == 0);
  /* a single operation, which otherwise skips the blocks */
  plan_expr_eval (add, in, o2, len);
  for (k = 0; k < len; k += 4099)
    fail_unless_equals_float (o2[k], 2.0f * k);
  fail_unless_equals_float (o2[len - 1], 2.0f * (len - 1));
  plan_expr_unref (e);
  plan_expr_unref (add);
  g_free (a);
  g_free (c);
  g_free (o1);
  g_free (o2);
}

GST_END_TEST;

GST_START_TEST (test_expr_compile_with_dtype_casts_result)
{
  GError *err = NULL;
  PlanExpr *e = plan_expr_compile_with_dtype ("x * 300", N_NAMES, names,
      dtypes, PLAN_DTYPE_UINT8, NULL);
  gfloat x = 1.5f;
  gconstpointer in[N_NAMES] = { &x };
  guint8 out;

  fail_unless_equals_int (plan_expr_get_dtype (e), PLAN_DTYPE_UINT8);
  plan_expr_eval (e, in, &out, 1);
  fail_unless_equals_int (out, 255);    /* 450 saturates */
  plan_expr_unref (e);

  /* the dtype of a bare name changes too */
  e = plan_expr_compile_with_dtype ("i", N_NAMES, names, dtypes,
      PLAN_DTYPE_FLOAT64, NULL);
  fail_unless_equals_int (plan_expr_get_dtype (e), PLAN_DTYPE_FLOAT64);
  plan_expr_unref (e);

  /* error columns refer to the user's expression */
  fail_if (plan_expr_compile_with_dtype ("x + * y", N_NAMES, names, dtypes,
          PLAN_DTYPE_FLOAT32, &err));
  fail_unless (g_str_has_prefix (err->message, "column 5:"), "%s",
      err->message);
  g_error_free (err);
}

GST_END_TEST;

typedef struct
{
  PlanExpr *expr;
  const gdouble *a;
  const gdouble *want;
  gsize n;
} SharedEval;

static gpointer
shared_eval_thread (gpointer data)
{
  SharedEval *s = data;
  gdouble *out = g_new (gdouble, s->n);
  gconstpointer in[1] = { s->a };
  gint r;

  for (r = 0; r < 20; r++) {
    plan_expr_eval (s->expr, in, out, s->n);
    g_assert (memcmp (out, s->want, s->n * sizeof (gdouble)) == 0);
  }
  g_free (out);
  return NULL;
}

/* One compiled expression, evaluated from several threads at once. */
GST_START_TEST (test_expr_eval_concurrently)
{
  const gchar *n[] = { "a" };
  PlanDType t[] = { PLAN_DTYPE_FLOAT64 };
  gsize len = 50000, k;
  gdouble *a = g_new (gdouble, len), *want = g_new (gdouble, len);
  gconstpointer in[1] = { a };
  SharedEval s;
  GThread *th[4];

  s.expr = plan_expr_compile ("sqrt(abs(a)) * 3 + where(a > 0, a, -a) / 7",
      1, n, t, NULL);
  for (k = 0; k < len; k++)
    a[k] = (gdouble) k - 25000.5;
  plan_expr_eval (s.expr, in, want, len);
  s.a = a;
  s.want = want;
  s.n = len;
  for (k = 0; k < 4; k++)
    th[k] = g_thread_new ("eval", shared_eval_thread, &s);
  for (k = 0; k < 4; k++)
    g_thread_join (th[k]);
  fail_unless_equals_float (want[0], sqrt (25000.5) * 3 + 25000.5 / 7);
  plan_expr_unref (s.expr);
  g_free (a);
  g_free (want);
}

GST_END_TEST;

GST_START_TEST (test_expr_uses_name)
{
  PlanExpr *e = compile ("x + 0 * 2 + d");

  fail_unless (plan_expr_uses_name (e, 0));
  fail_if (plan_expr_uses_name (e, 1));
  fail_unless (plan_expr_uses_name (e, 5));
  fail_if (plan_expr_uses_name (e, 99));
  fail_unless_equals_int (plan_expr_get_n_names (e), N_NAMES);
  fail_unless_equals_string (plan_expr_get_source (e), "x + 0 * 2 + d");
  plan_expr_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_expr_constant_expression_broadcasts)
{
  PlanExpr *e = plan_expr_compile ("float32(2) ** 3", 0, NULL, NULL, NULL);
  gfloat out[5000];
  guint k;

  plan_expr_eval (e, NULL, out, 5000);
  for (k = 0; k < 5000; k++)
    fail_unless_equals_float (out[k], 8.0f);
  plan_expr_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_expr_boxed_type)
{
  PlanExpr *e = compile ("x"), *copy;

  fail_unless (G_TYPE_IS_BOXED (PLAN_TYPE_EXPR));
  copy = g_boxed_copy (PLAN_TYPE_EXPR, e);
  fail_unless (copy == e);
  g_boxed_free (PLAN_TYPE_EXPR, copy);
  plan_expr_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_expr_to_cuda_names_functions)
{
  PlanExpr *e = compile ("2*x*y + sin(x)");
  gchar *src = plan_expr_to_cuda (e, "plan_k");

  fail_unless (strstr (src, "extern \"C\" __global__ void\nplan_k (") != NULL);
  fail_unless (strstr (src, "plan_k_element (float v0, float v1") != NULL);
  fail_unless (strstr (src, "sinf (v0)") != NULL);
  fail_unless (strstr (src, "@") == NULL);
  g_free (src);
  fail_unless (plan_expr_to_cuda (e, "1bad") == NULL);
  fail_unless (plan_expr_to_cuda (e, "bad-name") == NULL);
  plan_expr_unref (e);
}

GST_END_TEST;

/* ---- the worker pool ---- */

typedef struct
{
  gint *hits;
  gint calls;
} RangeData;

static void
count_range (gsize begin, gsize end, gpointer user_data)
{
  RangeData *d = user_data;
  gsize k;

  g_atomic_int_inc (&d->calls);
  for (k = begin; k < end; k++)
    g_atomic_int_inc (&d->hits[k]);
}

GST_START_TEST (test_parallel_for_covers_range_once)
{
  gsize n = 100003, k;
  RangeData d = { g_new0 (gint, n), 0 };

  plan_parallel_for (4, n, 1000, count_range, &d);
  for (k = 0; k < n; k++)
    fail_unless_equals_int (d.hits[k], 1);
  fail_unless (d.calls > 1);
  g_free (d.hits);
}

GST_END_TEST;

GST_START_TEST (test_parallel_for_inline_when_small)
{
  gsize n = 100;
  RangeData d = { g_new0 (gint, n), 0 };

  plan_parallel_for (0, n, 1000, count_range, &d);
  fail_unless_equals_int (d.calls, 1);
  plan_parallel_for (1, n, 1, count_range, &d);
  fail_unless_equals_int (d.calls, 2);
  fail_unless_equals_int (d.hits[n - 1], 2);
  plan_parallel_for (4, 0, 1, count_range, &d);
  fail_unless_equals_int (d.calls, 2);
  g_free (d.hits);
}

GST_END_TEST;

static gpointer
parallel_caller (gpointer data)
{
  gsize n = 50000, k;
  RangeData d = { g_new0 (gint, n), 0 };
  gint r;

  for (r = 0; r < 20; r++)
    plan_parallel_for (0, n, 100, count_range, &d);
  for (k = 0; k < n; k++)
    g_assert_cmpint (d.hits[k], ==, 20);
  g_free (d.hits);
  return NULL;
}

GST_START_TEST (test_parallel_for_from_several_threads)
{
  GThread *t[4];
  guint k;

  for (k = 0; k < 4; k++)
    t[k] = g_thread_new ("caller", parallel_caller, NULL);
  for (k = 0; k < 4; k++)
    g_thread_join (t[k]);
  fail_unless (plan_parallel_get_n_cores () >= 1);
}

GST_END_TEST;

static void
nested_range (gsize begin, gsize end, gpointer user_data)
{
  RangeData *d = user_data;
  gsize k;

  /* Each outer index runs an inner parallel loop over its own row. */
  for (k = begin; k < end; k++) {
    RangeData inner = { d->hits + k * 1000, 0 };
    plan_parallel_for (0, 1000, 10, count_range, &inner);
  }
}

GST_START_TEST (test_parallel_for_nested)
{
  gsize k;
  RangeData d = { g_new0 (gint, 64 * 1000), 0 };

  plan_parallel_for (0, 64, 1, nested_range, &d);
  for (k = 0; k < 64 * 1000; k++)
    fail_unless_equals_int (d.hits[k], 1);
  g_free (d.hits);
}

GST_END_TEST;

static Suite *
expr_suite (void)
{
  Suite *s = suite_create ("planexpr");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_expr_precedence_follows_c);
  tcase_add_test (tc, test_expr_power_binds_tighter_than_unary_minus);
  tcase_add_test (tc, test_expr_nested_squares);
  tcase_add_test (tc, test_expr_literals);
  tcase_add_test (tc, test_expr_keywords_and_or_not);
  tcase_add_test (tc, test_expr_bound_name_shadows_constant);
  tcase_add_test (tc, test_expr_whitespace_and_newlines);
  tcase_add_test (tc, test_expr_check_is_syntax_only);
  tcase_add_test (tc, test_expr_error_empty);
  tcase_add_test (tc, test_expr_error_missing_operand);
  tcase_add_test (tc, test_expr_error_ends_early);
  tcase_add_test (tc, test_expr_error_unexpected_character);
  tcase_add_test (tc, test_expr_error_single_equals);
  tcase_add_test (tc, test_expr_error_unclosed_paren);
  tcase_add_test (tc, test_expr_error_unmatched_paren);
  tcase_add_test (tc, test_expr_error_trailing_operand);
  tcase_add_test (tc, test_expr_error_bad_exponent);
  tcase_add_test (tc, test_expr_error_letter_after_number);
  tcase_add_test (tc, test_expr_error_integer_leading_zero);
  tcase_add_test (tc, test_expr_error_integer_literal_too_large);
  tcase_add_test (tc, test_expr_error_chained_comparison);
  tcase_add_test (tc, test_expr_error_ternary_without_colon);
  tcase_add_test (tc, test_expr_error_bad_argument_list);
  tcase_add_test (tc, test_expr_error_too_many_arguments);
  tcase_add_test (tc, test_expr_error_nested_too_deep);
  tcase_add_test (tc, test_expr_nesting_limit_as_documented);
  tcase_add_test (tc, test_expr_error_too_many_levels);
  tcase_add_test (tc, test_expr_error_non_ascii);
  tcase_add_test (tc, test_expr_error_multiline_names_line);
  tcase_add_test (tc, test_expr_error_multiline_refers_back_by_line);
  tcase_add_test (tc, test_expr_error_unknown_name_lists_bound_names);
  tcase_add_test (tc, test_expr_error_unknown_name_without_bound_names);
  tcase_add_test (tc, test_expr_error_unknown_function_suggests);
  tcase_add_test (tc, test_expr_error_unknown_dtype_cast_suggests);
  tcase_add_test (tc, test_expr_error_python_cast_and_constant_called);
  tcase_add_test (tc, test_expr_error_name_called);
  tcase_add_test (tc, test_expr_error_wrong_arity);
  tcase_add_test (tc, test_expr_error_cast_arity);
  tcase_add_test (tc, test_expr_error_arity_over_three);
  tcase_add_test (tc, test_expr_error_bitwise_on_float_left);
  tcase_add_test (tc, test_expr_error_bitwise_on_float_right);
  tcase_add_test (tc, test_expr_error_shift_of_float_literal);
  tcase_add_test (tc, test_expr_error_bitwise_int64_uint64);
  tcase_add_test (tc, test_expr_error_invert_float);
  tcase_add_test (tc, test_expr_error_bool_subtract);
  tcase_add_test (tc, test_expr_error_bool_negate);
  tcase_add_test (tc, test_expr_error_literal_out_of_range);
  tcase_add_test (tc, test_expr_error_constant_division_by_zero);
  tcase_add_test (tc, test_expr_error_constant_overflow);
  tcase_add_test (tc, test_expr_error_negative_constant_shift);
  tcase_add_test (tc, test_expr_error_bad_dtype_argument);
  tcase_add_test (tc, test_expr_error_name_bound_twice);
  tcase_add_test (tc, test_expr_broadcast_values);
  tcase_add_test (tc, test_expr_broadcast_long_rows_and_unused);
  tcase_add_test (tc, test_expr_broadcast_errors);
  tcase_add_test (tc, test_expr_error_name_not_identifier);
  tcase_add_test (tc, test_expr_weak_literals_keep_dtype);
  tcase_add_test (tc, test_expr_literal_only_default_dtypes);
  tcase_add_test (tc, test_expr_promotion_follows_numpy);
  tcase_add_test (tc, test_expr_division_and_functions_dtypes);
  tcase_add_test (tc, test_expr_compare_with_out_of_range_literal);
  tcase_add_test (tc, test_expr_integer_semantics);
  tcase_add_test (tc, test_expr_float_semantics);
  tcase_add_test (tc, test_expr_eval_in_place);
  tcase_add_test (tc, test_expr_eval_parallel_matches_serial);
  tcase_add_test (tc, test_expr_eval_large_output_streams);
  tcase_add_test (tc, test_expr_weighted_sums_fused_exactly);
  tcase_add_test (tc, test_expr_weighted_sums_only_when_exact);
  tcase_add_test (tc, test_expr_eval_concurrently);
  tcase_add_test (tc, test_expr_compile_with_dtype_casts_result);
  tcase_add_test (tc, test_expr_uses_name);
  tcase_add_test (tc, test_expr_constant_expression_broadcasts);
  tcase_add_test (tc, test_expr_boxed_type);
  tcase_add_test (tc, test_expr_to_cuda_names_functions);
  tcase_add_test (tc, test_parallel_for_covers_range_once);
  tcase_add_test (tc, test_parallel_for_inline_when_small);
  tcase_add_test (tc, test_parallel_for_from_several_threads);
  tcase_add_test (tc, test_parallel_for_nested);
  tcase_add_test (tc, test_expr_numpy_names_and_prefix);
  tcase_add_test (tc, test_expr_numpy_ufuncs);
  tcase_add_test (tc, test_float16_functions_from_threads);
  tcase_add_test (tc, test_expr_error_numpy_prefix);
  return s;
}

GST_CHECK_MAIN (expr);
