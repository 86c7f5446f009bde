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

static void
check_cell (PlanWindow * w, const gchar * name, gint dy, gint dx)
{
  gint i = plan_window_lookup (w, name);
  gint got_dy = 99, got_dx = 99;

  fail_unless (i >= 0, "no cell '%s'", name);
  fail_unless (plan_window_get_offset (w, i, &got_dy, &got_dx));
  fail_unless_equals_int (got_dy, dy);
  fail_unless_equals_int (got_dx, dx);
}

/* Parses @picture, expecting a syntax error whose message contains each of
 * the NULL-terminated strings that follow. */
static void
check_error (const gchar * picture, ...)
{
  GError *err = NULL;
  PlanWindow *w = plan_window_parse (picture, &err);
  const gchar *want;
  va_list args;

  fail_unless (w == NULL, "'%s' parsed", picture);
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_SYNTAX));
  va_start (args, picture);
  while ((want = va_arg (args, const gchar *)) != NULL)
      fail_unless (strstr (err->message, want) != NULL,
        "'%s' not in the message: %s", want, err->message);
  va_end (args);
  g_error_free (err);
}

GST_START_TEST (test_window_1d_offsets)
{
  PlanWindow *w = plan_window_parse ("x y _", NULL);

  fail_unless (w != NULL);
  fail_unless_equals_int (plan_window_get_width (w), 3);
  fail_unless_equals_int (plan_window_get_height (w), 1);
  fail_unless_equals_int (plan_window_get_n_names (w), 2);
  fail_unless_equals_string (plan_window_get_names (w)[0], "x");
  fail_unless_equals_string (plan_window_get_names (w)[1], "y");
  fail_unless (plan_window_get_names (w)[2] == NULL);
  check_cell (w, "x", 0, -1);
  check_cell (w, "y", 0, 0);
  fail_unless_equals_int (plan_window_lookup (w, "z"), -1);
  fail_if (plan_window_get_offset (w, 2, NULL, NULL));
  plan_window_unref (w);
}

GST_END_TEST;

GST_START_TEST (test_window_2d_semicolons_and_newlines_agree)
{
  PlanWindow *a = plan_window_parse ("_ n _; w c e; _ s _", NULL);
  PlanWindow *b = plan_window_parse ("\n  _ n _\n  w c e\n  _ s _\n", NULL);
  gchar *sa, *sb;

  fail_unless (a != NULL && b != NULL);
  fail_unless_equals_int (plan_window_get_height (a), 3);
  fail_unless_equals_int (plan_window_get_width (a), 3);
  check_cell (a, "n", -1, 0);
  check_cell (a, "w", 0, -1);
  check_cell (a, "c", 0, 0);
  check_cell (a, "e", 0, 1);
  check_cell (a, "s", 1, 0);
  sa = plan_window_to_string (a);
  sb = plan_window_to_string (b);
  fail_unless_equals_string (sa, "_ n _; w c e; _ s _");
  fail_unless_equals_string (sb, sa);
  g_free (sa);
  g_free (sb);
  plan_window_unref (a);
  plan_window_unref (b);
}

GST_END_TEST;

GST_START_TEST (test_window_9x9_corners)
{
  GString *s = g_string_new (NULL);
  PlanWindow *w;
  gint r, c;

  for (r = 0; r < 9; r++) {
    for (c = 0; c < 9; c++)
      g_string_append_printf (s, "c%d%d ", r, c);
    g_string_append (s, r % 2 ? "\n" : ";");
  }
  w = plan_window_parse (s->str, NULL);
  fail_unless (w != NULL);
  fail_unless_equals_int (plan_window_get_n_names (w), 81);
  check_cell (w, "c00", -4, -4);
  check_cell (w, "c08", -4, 4);
  check_cell (w, "c44", 0, 0);
  check_cell (w, "c80", 4, -4);
  check_cell (w, "c87", 4, 3);
  plan_window_unref (w);
  g_string_free (s, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_window_to_string_round_trips)
{
  PlanWindow *w = plan_window_parse ("  a\t_  b_2 ;_x _ _;_ _ q;", NULL);
  PlanWindow *w2;
  gchar *s, *s2;

  fail_unless (w != NULL);
  s = plan_window_to_string (w);
  fail_unless_equals_string (s, "a _ b_2; _x _ _; _ _ q");
  w2 = plan_window_parse (s, NULL);
  s2 = plan_window_to_string (w2);
  fail_unless_equals_string (s2, s);
  check_cell (w2, "_x", 0, -1);
  g_free (s);
  g_free (s2);
  plan_window_unref (w);
  plan_window_unref (w2);
}

GST_END_TEST;

GST_START_TEST (test_window_rejects_ragged_rows)
{
  check_error ("a b c; d e", "row 2 has 2 cells but row 1 has 3",
      "\n    a b c\n    d e\n        ^", NULL);
  check_error ("a b c\nd e f g", "row 2 has 4 cells",
      "\n    d e f g\n          ^", NULL);
}

GST_END_TEST;

GST_START_TEST (test_window_rejects_empty_row)
{
  check_error ("a b c;; d e f", "row 2 is empty", NULL);
}

GST_END_TEST;

GST_START_TEST (test_window_rejects_even_width)
{
  check_error ("x y", "2 cells wide", "odd", "\n    x y", NULL);
}

GST_END_TEST;

GST_START_TEST (test_window_rejects_even_height)
{
  check_error ("a b c; d e f", "2 rows tall", "odd", NULL);
}

GST_END_TEST;

GST_START_TEST (test_window_rejects_duplicate_names)
{
  check_error ("x y x", "'x' names two cells", "row 1 cell 1",
      "row 1 cell 3", "\n    x y x\n        ^", NULL);
  check_error ("a b c; d a f; g h i", "'a' names two cells",
      "\n    d a f\n      ^", NULL);
}

GST_END_TEST;

GST_START_TEST (test_window_rejects_reserved_names)
{
  check_error ("x float32 z", "'float32'", "reserved",
      "\n    x float32 z\n      ^~~~~~~", NULL);
  check_error ("max y z", "'max'", "reserved", NULL);
  check_error ("x y pi", "'pi'", "reserved", NULL);
  check_error ("x atanh z", "'atanh'", "reserved", NULL);
  check_error ("x y and", "'and'", "reserved", NULL);
  fail_unless (plan_window_name_is_reserved ("int16"));
  fail_unless (plan_window_name_is_reserved ("_"));
  fail_if (plan_window_name_is_reserved ("e"));
  fail_if (plan_window_name_is_reserved ("x"));
}

GST_END_TEST;

GST_START_TEST (test_window_rejects_non_names)
{
  check_error ("x 1y z", "'1y'", "is not a name", "\n    x 1y z\n      ^~",
      NULL);
  check_error ("x y+1 z", "'y+1'", NULL);
}

GST_END_TEST;

GST_START_TEST (test_window_rejects_empty_and_unnamed)
{
  check_error ("", "empty", NULL);
  check_error (" ;\n ", "empty", NULL);
  check_error ("_ _ _", "no cell", "\n    _ _ _", NULL);
}

GST_END_TEST;

GST_START_TEST (test_window_rejects_too_large)
{
  GString *s = g_string_new (NULL);
  gint i;

  for (i = 0; i < PLAN_WINDOW_MAX_SIZE + 2; i++)
    g_string_append (s, i == 0 ? "x " : "_ ");
  check_error (s->str, "257 cells wide", "the most is 255", NULL);
  g_string_free (s, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_window_boxed_type)
{
  PlanWindow *w = plan_window_parse ("x", NULL);
  PlanWindow *copy;
  GValue v = G_VALUE_INIT;

  g_value_init (&v, PLAN_TYPE_WINDOW);
  g_value_set_boxed (&v, w);
  copy = g_value_dup_boxed (&v);
  fail_unless (copy == w);
  g_value_unset (&v);
  plan_window_unref (copy);
  check_cell (w, "x", 0, 0);
  plan_window_unref (w);
}

GST_END_TEST;

GST_START_TEST (test_window_3d_planes)
{
  PlanWindow *w = plan_window_parse ("_ _ _; _ b _; _ _ _ | _ n _; w c e; "
      "_ s _ |\n _ _ _\n _ f _\n _ _ _\n", NULL);
  PlanWindow *w2;
  gint dz = 99, dy = 99, dx = 99;
  gchar *s, *s2;

  fail_unless (w != NULL);
  fail_unless_equals_int (plan_window_get_depth (w), 3);
  fail_unless_equals_int (plan_window_get_height (w), 3);
  fail_unless_equals_int (plan_window_get_width (w), 3);
  fail_unless_equals_int (plan_window_get_n_names (w), 7);
  fail_unless (plan_window_get_offset_3d (w, plan_window_lookup (w, "b"),
          &dz, &dy, &dx));
  fail_unless (dz == -1 && dy == 0 && dx == 0);
  fail_unless (plan_window_get_offset_3d (w, plan_window_lookup (w, "f"),
          &dz, &dy, &dx));
  fail_unless (dz == 1 && dy == 0 && dx == 0);
  fail_unless (plan_window_get_offset_3d (w, plan_window_lookup (w, "n"),
          &dz, &dy, &dx));
  fail_unless (dz == 0 && dy == -1 && dx == 0);
  fail_unless (plan_window_get_offset_3d (w, plan_window_lookup (w, "e"),
          &dz, &dy, &dx));
  fail_unless (dz == 0 && dy == 0 && dx == 1);
  /* the 2-D offset of a cell of another plane is its place in its plane */
  check_cell (w, "f", 0, 0);
  fail_if (plan_window_get_offset_3d (w, 7, &dz, NULL, NULL));

  s = plan_window_to_string (w);
  fail_unless_equals_string (s, "_ _ _; _ b _; _ _ _ | _ n _; w c e; _ s _ "
      "| _ _ _; _ f _; _ _ _");
  w2 = plan_window_parse (s, NULL);
  s2 = plan_window_to_string (w2);
  fail_unless_equals_string (s2, s);
  g_free (s);
  g_free (s2);
  plan_window_unref (w2);
  plan_window_unref (w);

  /* one row per plane: a window along z and x; commas for cells */
  w = plan_window_parse ("_,a,_|l,c,r|_,z,_", NULL);
  fail_unless (w != NULL);
  fail_unless_equals_int (plan_window_get_depth (w), 3);
  fail_unless_equals_int (plan_window_get_height (w), 1);
  fail_unless (plan_window_get_offset_3d (w, plan_window_lookup (w, "z"),
          &dz, &dy, &dx));
  fail_unless (dz == 1 && dy == 0 && dx == 0);
  plan_window_unref (w);

  /* a 2-D window has one plane, every cell at dz 0 */
  w = plan_window_parse ("x y _", NULL);
  fail_unless_equals_int (plan_window_get_depth (w), 1);
  fail_unless (plan_window_get_offset_3d (w, 0, &dz, NULL, NULL));
  fail_unless_equals_int (dz, 0);
  plan_window_unref (w);
}

GST_END_TEST;

GST_START_TEST (test_window_3d_rejects)
{
  check_error ("a b c; d e f; g h i | j k l", "plane 2 has 1 rows but plane "
      "1 has 3", "\n    g h i\n    |\n    j k l\n    ^~~~~", NULL);
  check_error ("a | b | c | d", "4 planes deep", "odd", NULL);
  check_error ("a b c | d e", "plane 2, row 1 has 2 cells but row 1 has 3",
      NULL);
  check_error ("a _ _ | _ b _ | _ _ a", "'a' names two cells, plane 1, row 1 "
      "cell 1 and plane 3, row 1 cell 3", NULL);
  check_error ("a | | b", "plane 2 of the picture", "is empty", NULL);
  check_error ("a b c |", "plane 2 of the picture", "is empty", NULL);
  check_error ("| x", "plane 1 of the picture", "is empty", NULL);
  check_error ("_ | _ | _", "no cell of the window has a name", NULL);
  check_error ("a | max | c", "'max' (plane 2, row 1, cell 1) is a reserved",
      NULL);
}

GST_END_TEST;

static Suite *
window_suite (void)
{
  Suite *s = suite_create ("window");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_window_1d_offsets);
  tcase_add_test (tc, test_window_2d_semicolons_and_newlines_agree);
  tcase_add_test (tc, test_window_9x9_corners);
  tcase_add_test (tc, test_window_to_string_round_trips);
  tcase_add_test (tc, test_window_rejects_ragged_rows);
  tcase_add_test (tc, test_window_rejects_empty_row);
  tcase_add_test (tc, test_window_rejects_even_width);
  tcase_add_test (tc, test_window_rejects_even_height);
  tcase_add_test (tc, test_window_rejects_duplicate_names);
  tcase_add_test (tc, test_window_rejects_reserved_names);
  tcase_add_test (tc, test_window_rejects_non_names);
  tcase_add_test (tc, test_window_rejects_empty_and_unnamed);
  tcase_add_test (tc, test_window_rejects_too_large);
  tcase_add_test (tc, test_window_boxed_type);
  tcase_add_test (tc, test_window_3d_planes);
  tcase_add_test (tc, test_window_3d_rejects);
  return s;
}

GST_CHECK_MAIN (window);
