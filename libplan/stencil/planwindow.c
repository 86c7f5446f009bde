/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planwindow
 * @title: PlanWindow
 * @short_description: stencil windows drawn as pictures
 *
 * A stencil's window is written as a picture of its cells: a row of cells
 * separated by blanks or commas, rows separated by `;` or by newlines.
 * Commas give a spelling without blanks, `_,n,_;w,c,e;_,s,_`, for tools
 * that write `name=value` into a launch line without quotes. Each cell is
 * either a name, which the stencil's expression uses for the value at that
 * place, or `_`, a cell the expression does not use. The middle cell is
 * the centre, the element the result is computed for:
 *
 * |[
 *   x y _             a 1-D window 3 wide: x is the left neighbour, y the
 *                     centre
 *   _ n _; w c e; _ s _    a 2-D window 3 x 3: the 5-point cross
 * ]|
 *
 * Rules: every row has the same number of cells; the width and the height
 * are odd, so that there is a middle cell, and at most
 * #PLAN_WINDOW_MAX_SIZE; names are identifiers (`[A-Za-z_][A-Za-z0-9_]*`)
 * and appear once; a name may not be one the expression language keeps for
 * itself (see plan_window_name_is_reserved()); at least one cell is named.
 * Blank rows before the first and after the last row are ignored, so a
 * picture may start or end with a newline or a `;`.
 *
 * Each name gets an offset (dy, dx) from the centre: dy counts rows
 * downwards, dx cells to the right. For `x y _`, x is at (0, -1) and y at
 * (0, 0).
 *
 * A window over three axes (z, y, x) is drawn as its planes, each a 2-D
 * picture as above, separated by `|`, from the first plane (dz = -1 for
 * three planes) to the last. The 7-point 3-D cross:
 *
 * |[
 *   _ _ _; _ b _; _ _ _ | _ n _; w c e; _ s _ | _ _ _; _ f _; _ _ _
 * ]|
 *
 * Every plane has as many rows as the first, the number of planes is odd
 * and at most #PLAN_WINDOW_MAX_SIZE; plan_window_get_offset_3d() gives a
 * name's (dz, dy, dx).
 *
 * Errors are reported in the #PLAN_ERROR domain with the code
 * %PLAN_ERROR_SYNTAX, and their message shows the window with a `^` under
 * the cell or row at fault.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planwindow.h"
#include <libplan/planerror.h>

#include <string.h>

struct _PlanWindow
{
  gint ref_count;
  guint width;
  guint height;
  guint depth;
  guint n_names;
  gchar **names;                /* NULL-terminated, reading order */
  gint *dz;
  gint *dy;
  gint *dx;
};

G_DEFINE_BOXED_TYPE (PlanWindow, plan_window, plan_window_ref,
    plan_window_unref);

/* Words the expression language gives a meaning of its own: the dtype
 * names (used as casts), its functions, its constants and its keywords. A
 * cell with one of these names could not be told from them. The constant
 * `e` is the exception: it is the natural name of the east cell, and a
 * bound name hides a constant of the same name (docs/planstencil.md). */
static const gchar *const reserved_names[] = {
  "_",
  "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
  "uint64", "float16", "float32", "float64",
  "abs", "sign", "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2",
  "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
  "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "floor", "ceil", "rint",
  "round", "trunc", "minimum", "min", "maximum", "max", "fmin", "fmax", "pow",
  "fmod", "hypot", "clip", "where", "isnan", "isinf", "isfinite",
  "pi", "inf", "nan", "true", "false",
  "and", "or", "not",
  NULL
};

typedef struct
{
  const gchar *text;            /* not NUL-terminated */
  gsize len;
  guint col;                    /* column in the row's text */
} Token;

typedef struct
{
  gchar *text;                  /* the row, without surrounding blanks */
  GArray *tokens;               /* of Token */
  guint plane;                  /* the plane it is in, from 0 */
  guint index;                  /* its row within the plane, from 0 */
} Row;

/* The rows of all planes, in order, and the number of planes. */
typedef struct
{
  GArray *rows;                 /* of Row */
  guint n_planes;
} Picture;

static void
row_clear (gpointer data)
{
  Row *row = data;

  g_free (row->text);
  g_array_unref (row->tokens);
}

/* What separates cells: blanks, and commas for a picture without blanks. */
static gboolean
is_blank (gchar c)
{
  return c == ' ' || c == '\t' || c == ',';
}

static void
row_tokenize (Row * row)
{
  const gchar *p = row->text;

  while (*p) {
    Token t;

    while (is_blank (*p))
      p++;
    if (*p == '\0')
      break;
    t.text = p;
    t.col = p - row->text;
    while (*p && !is_blank (*p))
      p++;
    t.len = p - t.text;
    g_array_append_val (row->tokens, t);
  }
}

/* Splits a plane's text at ';', '\n' and '\r' into @rows, dropping
 * blank rows before the first and after the last non-blank row; returns
 * how many rows it added. */
static guint
split_rows (const gchar * start, const gchar * end, guint plane,
    GArray * rows)
{
  const gchar *p;
  guint first = rows->len, n;

  for (p = start;; p++) {
    if (p == end || *p == ';' || *p == '\n' || *p == '\r') {
      Row row;

      row.text = g_strstrip (g_strndup (start, p - start));
      row.tokens = g_array_new (FALSE, FALSE, sizeof (Token));
      row.plane = plane;
      row_tokenize (&row);
      g_array_append_val (rows, row);
      if (p == end)
        break;
      start = p + 1;
    }
  }

  while (rows->len > first
      && g_array_index (rows, Row, rows->len - 1).tokens->len == 0)
    g_array_remove_index (rows, rows->len - 1);
  while (rows->len > first
      && g_array_index (rows, Row, first).tokens->len == 0)
    g_array_remove_index (rows, first);
  for (n = first; n < rows->len; n++)
    g_array_index (rows, Row, n).index = n - first;
  return rows->len - first;
}

/* Splits the picture into planes at '|' and each plane into rows. A
 * picture without '|' is one plane. Returns FALSE with @empty_plane set
 * to a plane that has no cells, when there are several planes. */
static gboolean
split_picture (const gchar * picture, Picture * pic, guint * empty_plane)
{
  const gchar *start = picture, *p;
  gboolean ok = TRUE;

  pic->rows = g_array_new (FALSE, TRUE, sizeof (Row));
  g_array_set_clear_func (pic->rows, row_clear);
  pic->n_planes = 0;
  for (p = picture;; p++) {
    if (*p == '|' || *p == '\0') {
      if (split_rows (start, p, pic->n_planes, pic->rows) == 0 && ok
          && (*p == '|' || pic->n_planes > 0)) {
        *empty_plane = pic->n_planes;
        ok = FALSE;
      }
      pic->n_planes++;
      if (*p == '\0')
        break;
      start = p + 1;
    }
  }
  return ok;
}

/* "row 2" in a picture of one plane, "plane 3, row 2" in one of several. */
static gchar *
row_label (GArray * rows, guint r)
{
  Row *row = &g_array_index (rows, Row, r);

  if (g_array_index (rows, Row, rows->len - 1).plane == 0)
    return g_strdup_printf ("row %u", row->index + 1);
  return g_strdup_printf ("plane %u, row %u", row->plane + 1, row->index + 1);
}

/* The window as the user wrote it, one row per line, with a marker line
 * under row @mark_row: a '^' at @mark_col followed by '~' for the rest of
 * a token @mark_len long. @mark_row < 0 draws no marker. */
static gchar *
render_window (GArray * rows, gint mark_row, guint mark_col, gsize mark_len)
{
  GString *s = g_string_new (NULL);
  guint r;

  for (r = 0; r < rows->len; r++) {
    Row *row = &g_array_index (rows, Row, r);

    if (r > 0 && row->plane != g_array_index (rows, Row, r - 1).plane)
      g_string_append (s, "\n    |");
    g_string_append_printf (s, "\n    %s", row->text);
    if ((gint) r == mark_row) {
      gsize i;

      g_string_append (s, "\n    ");
      for (i = 0; i < mark_col; i++)
        g_string_append_c (s, ' ');
      g_string_append_c (s, '^');
      for (i = 1; i < mark_len; i++)
        g_string_append_c (s, '~');
    }
  }
  return g_string_free (s, FALSE);
}

static void
set_window_error (GError ** error, GArray * rows, gint mark_row,
    guint mark_col, gsize mark_len, const gchar * format, ...)
G_GNUC_PRINTF (6, 7);

static void
set_window_error (GError ** error, GArray * rows, gint mark_row,
    guint mark_col, gsize mark_len, const gchar * format, ...)
{
  gchar *what, *picture;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  picture = render_window (rows, mark_row, mark_col, mark_len);
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_SYNTAX, "window: %s:%s", what,
      picture);
  g_free (picture);
  g_free (what);
}

static gboolean
token_is_identifier (const Token * t)
{
  gsize i;

  if (!g_ascii_isalpha (t->text[0]) && t->text[0] != '_')
    return FALSE;
  for (i = 1; i < t->len; i++)
    if (!g_ascii_isalnum (t->text[i]) && t->text[i] != '_')
      return FALSE;
  return TRUE;
}

static gboolean
token_is_unused (const Token * t)
{
  return t->len == 1 && t->text[0] == '_';
}

/* Checks each cell on its own: identifiers, not reserved. */
static gboolean
check_cells (GArray * rows, GError ** error)
{
  guint r, c;

  for (r = 0; r < rows->len; r++) {
    Row *row = &g_array_index (rows, Row, r);

    for (c = 0; c < row->tokens->len; c++) {
      Token *t = &g_array_index (row->tokens, Token, c);
      gchar *name, *where;
      gboolean reserved;

      if (token_is_unused (t))
        continue;
      name = g_strndup (t->text, t->len);
      where = row_label (rows, r);
      reserved = FALSE;
      if (!token_is_identifier (t)) {
        set_window_error (error, rows, r, t->col, t->len,
            "'%s' (%s, cell %u) is not a name; cells are names "
            "(letters, digits and '_', not starting with a digit) or '_' "
            "for a cell not used", name, where, c + 1);
        reserved = TRUE;
      } else if (plan_window_name_is_reserved (name)) {
        set_window_error (error, rows, r, t->col, t->len,
            "'%s' (%s, cell %u) is a reserved word of the expression "
            "language (a dtype, function or constant) and cannot name a "
            "cell", name, where, c + 1);
        reserved = TRUE;
      }
      g_free (where);
      g_free (name);
      if (reserved)
        return FALSE;
    }
  }
  return TRUE;
}

/* Checks that every row is as wide as the first, that every plane has as
 * many rows as the first, and the sizes. */
static gboolean
check_shape (Picture * pic, GError ** error)
{
  GArray *rows = pic->rows;
  guint width = g_array_index (rows, Row, 0).tokens->len;
  guint height = 0, depth = pic->n_planes;
  guint r;
  gchar *where;

  for (r = 0; r < rows->len; r++) {
    Row *row = &g_array_index (rows, Row, r);
    guint n = row->tokens->len;

    if (row->plane == 0)
      height = row->index + 1;
    if (n == width)
      continue;
    where = row_label (rows, r);
    if (n == 0) {
      set_window_error (error, rows, r, 0, 1,
          "%s is empty; every row needs %u cells", where, width);
    } else if (n < width) {
      set_window_error (error, rows, r, strlen (row->text) + 1, 1,
          "%s has %u cells but row 1 has %u; every row must have as "
          "many cells as the first", where, n, width);
    } else {
      Token *t = &g_array_index (row->tokens, Token, width);
      set_window_error (error, rows, r, t->col, strlen (row->text) - t->col,
          "%s has %u cells but row 1 has %u; every row must have as "
          "many cells as the first", where, n, width);
    }
    g_free (where);
    return FALSE;
  }
  for (r = 0; r < rows->len; r++) {
    Row *row = &g_array_index (rows, Row, r);
    gboolean last = r + 1 == rows->len
        || g_array_index (rows, Row, r + 1).plane != row->plane;

    if (last && row->index + 1 != height) {
      set_window_error (error, rows, r, 0, strlen (row->text),
          "plane %u has %u rows but plane 1 has %u; every plane must "
          "have as many rows as the first", row->plane + 1, row->index + 1,
          height);
      return FALSE;
    }
  }

  if (width % 2 == 0 || height % 2 == 0 || depth % 2 == 0) {
    if (depth > 1)
      set_window_error (error, rows, -1, 0, 0,
          "the window is %u cells wide, %u rows tall and %u planes deep; "
          "all three must be odd so that the window has a middle cell, its "
          "centre", width, height, depth);
    else
      set_window_error (error, rows, -1, 0, 0,
          "the window is %u cells wide and %u rows tall; both must be odd "
          "so that the window has a middle cell, its centre", width, height);
    return FALSE;
  }
  if (width > PLAN_WINDOW_MAX_SIZE || height > PLAN_WINDOW_MAX_SIZE
      || depth > PLAN_WINDOW_MAX_SIZE) {
    set_window_error (error, rows, -1, 0, 0,
        "the window is %u cells wide, %u rows tall and %u planes deep; the "
        "most is %d along each axis", width, height, depth,
        PLAN_WINDOW_MAX_SIZE);
    return FALSE;
  }
  return TRUE;
}

static gboolean
token_equal (const Token * a, const Token * b)
{
  return a->len == b->len && memcmp (a->text, b->text, a->len) == 0;
}

/* Looks for a name used twice; reports the second use. */
static gboolean
check_duplicates (GArray * rows, GError ** error)
{
  guint r, c, r2, c2;

  for (r = 0; r < rows->len; r++) {
    GArray *tokens = g_array_index (rows, Row, r).tokens;

    for (c = 0; c < tokens->len; c++) {
      Token *t = &g_array_index (tokens, Token, c);

      if (token_is_unused (t))
        continue;
      for (r2 = 0; r2 <= r; r2++) {
        GArray *tokens2 = g_array_index (rows, Row, r2).tokens;
        guint end = r2 == r ? c : tokens2->len;

        for (c2 = 0; c2 < end; c2++) {
          if (token_equal (t, &g_array_index (tokens2, Token, c2))) {
            gchar *name = g_strndup (t->text, t->len);
            gchar *first = row_label (rows, r2), *second = row_label (rows, r);

            set_window_error (error, rows, r, t->col, t->len,
                "'%s' names two cells, %s cell %u and %s cell %u; "
                "each name may be used once", name, first, c2 + 1, second,
                c + 1);
            g_free (first);
            g_free (second);
            g_free (name);
            return FALSE;
          }
        }
      }
    }
  }
  return TRUE;
}

static PlanWindow *
window_from_rows (Picture * pic)
{
  GArray *rows = pic->rows;
  PlanWindow *window = g_new0 (PlanWindow, 1);
  guint r, c, n = 0, cells;

  window->ref_count = 1;
  window->depth = pic->n_planes;
  window->height = rows->len / pic->n_planes;
  window->width = g_array_index (rows, Row, 0).tokens->len;
  cells = window->width * window->height * window->depth;
  window->names = g_new0 (gchar *, cells + 1);
  window->dz = g_new0 (gint, cells);
  window->dy = g_new0 (gint, cells);
  window->dx = g_new0 (gint, cells);

  for (r = 0; r < rows->len; r++) {
    Row *row = &g_array_index (rows, Row, r);

    for (c = 0; c < row->tokens->len; c++) {
      Token *t = &g_array_index (row->tokens, Token, c);

      if (token_is_unused (t))
        continue;
      window->names[n] = g_strndup (t->text, t->len);
      window->dz[n] = (gint) row->plane - (gint) (window->depth / 2);
      window->dy[n] = (gint) row->index - (gint) (window->height / 2);
      window->dx[n] = (gint) c - (gint) (window->width / 2);
      n++;
    }
  }
  window->n_names = n;
  return window;
}

/**
 * plan_window_parse:
 * @picture: the window drawn as rows of cells (planes of rows of cells,
 *   separated by `|`, for a window over three axes)
 * @error: return location for a #GError
 *
 * Parses a window picture (see the section description for the syntax).
 *
 * Returns: (transfer full) (nullable): the window, or %NULL with @error set
 *   (%PLAN_ERROR_SYNTAX) when @picture breaks a rule; the message shows the
 *   window with a marker at the fault.
 *
 * Since: 0.1
 */
PlanWindow *
plan_window_parse (const gchar * picture, GError ** error)
{
  PlanWindow *window = NULL;
  Picture pic;
  guint empty_plane = 0;

  g_return_val_if_fail (picture != NULL, NULL);

  if (!split_picture (picture, &pic, &empty_plane))
    goto no_plane;
  if (pic.rows->len == 0)
    goto empty;
  if (!check_shape (&pic, error) || !check_cells (pic.rows, error)
      || !check_duplicates (pic.rows, error))
    goto done;

  window = window_from_rows (&pic);
  if (window->n_names == 0)
    goto no_names;

done:
  g_array_unref (pic.rows);
  return window;

  /* ERRORS */
empty:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SYNTAX,
        "window: the window is empty; draw its cells, for example "
        "\"x y z\" or \"_ n _; w c e; _ s _\"");
    g_array_unref (pic.rows);
    return NULL;
  }
no_plane:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SYNTAX,
        "window: plane %u of the picture \"%s\" is empty; planes are "
        "separated by '|' and each is drawn as rows of cells, for example "
        "\"_ _ _; _ b _; _ _ _ | _ n _; w c e; _ s _ | _ _ _; _ f _; _ _ _\"",
        empty_plane + 1, picture);
    g_array_unref (pic.rows);
    return NULL;
  }
no_names:
  {
    set_window_error (error, pic.rows, -1, 0, 0,
        "no cell of the window has a name, so the expression could use "
        "none; name the cells it uses");
    g_clear_pointer (&window, plan_window_unref);
    g_array_unref (pic.rows);
    return NULL;
  }
}

/**
 * plan_window_ref:
 * @window: a #PlanWindow
 *
 * Returns: (transfer full): @window, with one more reference
 *
 * Since: 0.1
 */
PlanWindow *
plan_window_ref (PlanWindow * window)
{
  g_return_val_if_fail (window != NULL, NULL);

  g_atomic_int_inc (&window->ref_count);
  return window;
}

/**
 * plan_window_unref:
 * @window: (transfer full): a #PlanWindow
 *
 * Drops a reference to @window and frees it with the last one.
 *
 * Since: 0.1
 */
void
plan_window_unref (PlanWindow * window)
{
  g_return_if_fail (window != NULL);

  if (!g_atomic_int_dec_and_test (&window->ref_count))
    return;
  g_strfreev (window->names);
  g_free (window->dz);
  g_free (window->dy);
  g_free (window->dx);
  g_free (window);
}

/**
 * plan_window_get_width:
 * @window: a #PlanWindow
 *
 * Returns: the number of cells in a row of @window, odd
 *
 * Since: 0.1
 */
guint
plan_window_get_width (const PlanWindow * window)
{
  g_return_val_if_fail (window != NULL, 0);

  return window->width;
}

/**
 * plan_window_get_height:
 * @window: a #PlanWindow
 *
 * Returns: the number of rows of @window, odd; 1 for a 1-D window
 *
 * Since: 0.1
 */
guint
plan_window_get_height (const PlanWindow * window)
{
  g_return_val_if_fail (window != NULL, 0);

  return window->height;
}

/**
 * plan_window_get_depth:
 * @window: a #PlanWindow
 *
 * Returns: the number of planes of @window, odd; 1 for a 1-D or 2-D
 *   window, more for one drawn as planes separated by `|`
 *
 * Since: 0.1
 */
guint
plan_window_get_depth (const PlanWindow * window)
{
  g_return_val_if_fail (window != NULL, 0);

  return window->depth;
}

/**
 * plan_window_get_n_names:
 * @window: a #PlanWindow
 *
 * Returns: the number of named cells, at least one
 *
 * Since: 0.1
 */
guint
plan_window_get_n_names (const PlanWindow * window)
{
  g_return_val_if_fail (window != NULL, 0);

  return window->n_names;
}

/**
 * plan_window_get_names:
 * @window: a #PlanWindow
 *
 * Returns: (transfer none) (array zero-terminated=1): the names of the
 *   named cells in reading order (row by row, left to right), the order
 *   plan_window_get_offset() indexes
 *
 * Since: 0.1
 */
const gchar *const *
plan_window_get_names (const PlanWindow * window)
{
  g_return_val_if_fail (window != NULL, NULL);

  return (const gchar * const *) window->names;
}

/**
 * plan_window_get_offset:
 * @window: a #PlanWindow
 * @index: a name's index, below plan_window_get_n_names()
 * @dy: (out) (optional): the row offset from the centre, negative above
 * @dx: (out) (optional): the column offset from the centre, negative to
 *   the left
 *
 * Returns: %TRUE when @index names a cell
 *
 * Since: 0.1
 */
gboolean
plan_window_get_offset (const PlanWindow * window, guint index, gint * dy,
    gint * dx)
{
  g_return_val_if_fail (window != NULL, FALSE);

  if (index >= window->n_names)
    return FALSE;
  if (dy)
    *dy = window->dy[index];
  if (dx)
    *dx = window->dx[index];
  return TRUE;
}

/**
 * plan_window_get_offset_3d:
 * @window: a #PlanWindow
 * @index: a name's index, below plan_window_get_n_names()
 * @dz: (out) (optional): the plane offset from the centre, negative for
 *   the planes drawn before the centre's; 0 in a window of one plane
 * @dy: (out) (optional): the row offset from the centre, negative above
 * @dx: (out) (optional): the column offset from the centre, negative to
 *   the left
 *
 * Returns: %TRUE when @index names a cell
 *
 * Since: 0.1
 */
gboolean
plan_window_get_offset_3d (const PlanWindow * window, guint index, gint * dz,
    gint * dy, gint * dx)
{
  g_return_val_if_fail (window != NULL, FALSE);

  if (index >= window->n_names)
    return FALSE;
  if (dz)
    *dz = window->dz[index];
  return plan_window_get_offset (window, index, dy, dx);
}

/**
 * plan_window_lookup:
 * @window: a #PlanWindow
 * @name: a cell name
 *
 * Returns: the index of the cell called @name, or -1 when no cell is
 *
 * Since: 0.1
 */
gint
plan_window_lookup (const PlanWindow * window, const gchar * name)
{
  guint i;

  g_return_val_if_fail (window != NULL, -1);
  g_return_val_if_fail (name != NULL, -1);

  for (i = 0; i < window->n_names; i++)
    if (strcmp (window->names[i], name) == 0)
      return i;
  return -1;
}

/**
 * plan_window_to_string:
 * @window: a #PlanWindow
 *
 * Draws @window in the canonical form: cells separated by one space, rows
 * by "; ", planes by " | ". plan_window_parse() reads it back to an equal
 * window.
 *
 * Returns: (transfer full): the picture
 *
 * Since: 0.1
 */
gchar *
plan_window_to_string (const PlanWindow * window)
{
  GString *s;
  guint p, r, c, n = 0;

  g_return_val_if_fail (window != NULL, NULL);

  s = g_string_new (NULL);
  for (p = 0; p < window->depth; p++) {
    gint dz = (gint) p - (gint) (window->depth / 2);

    if (p > 0)
      g_string_append (s, " | ");
    for (r = 0; r < window->height; r++) {
      if (r > 0)
        g_string_append (s, "; ");
      for (c = 0; c < window->width; c++) {
        gint dy = (gint) r - (gint) (window->height / 2);
        gint dx = (gint) c - (gint) (window->width / 2);

        if (c > 0)
          g_string_append_c (s, ' ');
        if (n < window->n_names && window->dz[n] == dz && window->dy[n] == dy
            && window->dx[n] == dx)
          g_string_append (s, window->names[n++]);
        else
          g_string_append_c (s, '_');
      }
    }
  }
  return g_string_free (s, FALSE);
}

/**
 * plan_window_name_is_reserved:
 * @name: a word
 *
 * Whether @name is kept by the expression language and so cannot name a
 * window cell: `_` (the unused cell), the dtype names (`float32` … , used
 * as casts), the function names (`abs`, `min`, `max`, `where`, `sqrt`,
 * `exp`, `log`, the trigonometric functions, …; see docs/expressions.md),
 * the constants `pi`, `inf`, `nan`, `true`, `false` and the keywords
 * `and`, `or`, `not`. The constant `e` may name a cell (the east cell of
 * a cross, say); the cell then hides the constant in the expression.
 *
 * Returns: %TRUE when @name is reserved
 *
 * Since: 0.1
 */
gboolean
plan_window_name_is_reserved (const gchar * name)
{
  guint i;

  g_return_val_if_fail (name != NULL, FALSE);

  for (i = 0; reserved_names[i]; i++)
    if (strcmp (reserved_names[i], name) == 0)
      return TRUE;
  return FALSE;
}
