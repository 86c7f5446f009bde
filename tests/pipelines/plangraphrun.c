/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Builds a graph with the plan API from a description on standard input,
 * realizes it, dispatches it once and writes every in-memory result to
 * OUTDIR/NAME.npy, so the pipeline tests can check the API against numpy.
 *
 *   plangraphrun OUTDIR < description
 *
 * One line per step, fields separated by tabs:
 *   source   NAME NDIM DTYPE|-
 *   map      NAME IN,IN.. DTYPE|- EXPR [CONST=FILE.npy,...]
 *   reduce   NAME IN OP AXIS [DDOF]
 *   combine  NAME IN AXIS IDENTITY COMBINER
 *   stencil  NAME IN BOUNDARY CVAL WINDOW EXPR [ITERATIONS]
 *   sink     NAME IN
 *   realize  cpu|cuda|auto fuse|nofuse
 *   array    NAME FILE.npy      (a source's array, read from FILE; an
 *                                output's array, zeroed, of FILE's dtype
 *                                and shape)
 *   file     NAME FILE
 *   reader   NAME FILE.npy ROWS (chunks of ROWS rows, length unknown)
 *   writer   NAME FILE          (bare rows appended to FILE)
 *   cancel   MICROSECONDS       (cancel the run once it has made progress,
 *                                or after that long)
 * Prints "kernels N", the launch string, and "progress DONE TOTAL".
 * Exits 1 with the error on standard error.
 */

#include <libplan/plan.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  PlanArray *whole;
  gint64 chunk;
} Reader;

static PlanArray *
read_rows (guint64 first_row, gpointer user_data, GError ** error)
{
  Reader *r = user_data;
  gint64 n = MIN (r->chunk, plan_array_get_n_rows (r->whole) -
      (gint64) first_row);

  return n > 0 ? plan_array_new_rows (r->whole, first_row, n, error) : NULL;
}

static void
reader_free (Reader * r)
{
  g_object_unref (r->whole);
  g_free (r);
}

static gboolean
write_rows (PlanArray * chunk, guint64 first_row, gpointer user_data,
    GError ** error)
{
  gsize size;
  gconstpointer data = plan_array_get_data (chunk, &size);

  if (fwrite (data, 1, size, user_data) == size)
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "short write");
  return FALSE;
}

static void
close_file (gpointer file)
{
  fclose (file);
}

static gint
enum_value (GType type, const gchar * nick)
{
  GEnumValue *v = g_enum_get_value_by_nick (g_type_class_ref (type), nick);

  if (v == NULL) {
    g_printerr ("plangraphrun: unknown %s '%s'\n", g_type_name (type), nick);
    exit (2);
  }
  return v->value;
}

static PlanDType
dtype_of (const gchar * s)
{
  return strcmp (s, "-") == 0 ? PLAN_DTYPE_UNKNOWN : plan_dtype_from_string (s);
}

static PlanNode **
nodes_of (PlanGraph * graph, const gchar * list, guint * n)
{
  gchar **names = g_strsplit (list, ",", -1);
  PlanNode **nodes;
  guint i;

  *n = g_strv_length (names);
  nodes = g_new0 (PlanNode *, *n + 1);
  for (i = 0; i < *n; i++)
    nodes[i] = plan_graph_get_node (graph, names[i]);
  g_strfreev (names);
  return nodes;
}

/* A map line with constants: NAME=FILE.npy, comma-separated, in memory. */
static PlanNode *
add_map_with_constants (PlanGraph * graph, gchar ** f, guint n_in,
    PlanNode ** in, GError ** error)
{
  gchar **items = g_strsplit (f[5], ",", -1);
  guint n = g_strv_length (items), i;
  gchar **names = g_new0 (gchar *, n + 1);
  PlanArray **arrays = g_new0 (PlanArray *, n + 1);
  PlanNode *node = NULL;

  for (i = 0; i < n; i++) {
    gchar **kv = g_strsplit (items[i], "=", 2);
    names[i] = g_strdup (kv[0]);
    arrays[i] = plan_array_load_npy (kv[1], error);
    g_strfreev (kv);
    if (arrays[i] == NULL)
      goto done;
  }
  node = plan_graph_add_map_with_constants (graph, f[1], f[4], n_in, in,
      dtype_of (f[3]), n, (const gchar * const *) names, arrays, error);
done:
  for (i = 0; i < n; i++)
    if (arrays[i])
      g_object_unref (arrays[i]);
  g_free (arrays);
  g_strfreev (names);
  g_strfreev (items);
  return node;
}

/* Adds the node line @f describes; FALSE with @error on failure. */
static gboolean
add_node (PlanGraph * graph, gchar ** f, guint n, GError ** error)
{
  PlanNode **in = NULL, *node = NULL;
  guint n_in = 0;

  if (n >= 3 && strcmp (f[0], "source") != 0)
    in = nodes_of (graph, f[2], &n_in);
  if (strcmp (f[0], "source") == 0 && n == 4)
    node = plan_graph_add_source (graph, f[1], atoi (f[2]), dtype_of (f[3]),
        error);
  else if (strcmp (f[0], "map") == 0 && n == 5)
    node = plan_graph_add_map (graph, f[1], f[4], n_in, in, dtype_of (f[3]),
        error);
  else if (strcmp (f[0], "map") == 0 && n == 6)
    node = add_map_with_constants (graph, f, n_in, in, error);
  else if (strcmp (f[0], "reduce") == 0 && n == 5)
    node = plan_graph_add_reduce (graph, f[1], enum_value
        (PLAN_TYPE_REDUCE_OP, f[3]), enum_value (PLAN_TYPE_REDUCE_AXIS, f[4]),
        in[0], error);
  else if (strcmp (f[0], "reduce") == 0 && n == 6)
    node = plan_graph_add_reduce_ddof (graph, f[1], enum_value
        (PLAN_TYPE_REDUCE_OP, f[3]), enum_value (PLAN_TYPE_REDUCE_AXIS, f[4]),
        g_ascii_strtod (f[5], NULL), in[0], error);
  else if (strcmp (f[0], "combine") == 0 && n == 6)
    node = plan_graph_add_reduce_custom (graph, f[1], f[5], f[4],
        enum_value (PLAN_TYPE_REDUCE_AXIS, f[3]), in[0], error);
  else if (strcmp (f[0], "stencil") == 0 && n == 7)
    node = plan_graph_add_stencil (graph, f[1], f[5], f[6],
        enum_value (PLAN_TYPE_BOUNDARY, f[3]), g_ascii_strtod (f[4], NULL),
        in[0], error);
  else if (strcmp (f[0], "stencil") == 0 && n == 8)
    node = plan_graph_add_stencil_iterated (graph, f[1], f[5], f[6],
        enum_value (PLAN_TYPE_BOUNDARY, f[3]), g_ascii_strtod (f[4], NULL),
        (guint) g_ascii_strtoull (f[7], NULL, 10), in[0], error);
  else if (strcmp (f[0], "sink") == 0 && n == 3)
    node = plan_graph_add_sink (graph, f[1], in[0], error);
  else {
    g_printerr ("plangraphrun: bad line starting '%s'\n", f[0]);
    exit (2);
  }
  g_free (in);
  return node != NULL;
}

static gboolean
add_binding (PlanBindings * bindings, PlanWork * work, gchar ** f, guint n,
    GPtrArray * files, GError ** error)
{
  gchar **outputs = plan_work_get_output_names (work);
  gboolean is_output = g_strv_contains ((const gchar * const *) outputs, f[1]);
  PlanArray *array;

  g_strfreev (outputs);
  if (strcmp (f[0], "file") == 0) {
    plan_bindings_set_file (bindings, f[1], f[2]);
    return TRUE;
  }
  if (strcmp (f[0], "writer") == 0) {
    FILE *out = fopen (f[2], "wb");

    g_ptr_array_add (files, out);
    plan_bindings_set_writer (bindings, f[1], write_rows, out, NULL);
    return TRUE;
  }
  if ((array = plan_array_load_npy (f[2], error)) == NULL)
    return FALSE;
  if (strcmp (f[0], "reader") == 0) {
    Reader *r = g_new0 (Reader, 1);
    gint64 shape[PLAN_ARRAY_MAX_DIMS];
    const gint64 *whole;
    guint ndim;

    whole = plan_array_get_shape (array, &ndim);
    memcpy (shape, whole, ndim * sizeof (gint64));
    if (ndim > 0)
      shape[0] = -1;
    r->whole = array;
    r->chunk = n > 3 ? atoi (f[3]) : 1000;
    plan_bindings_set_reader (bindings, f[1], plan_array_get_dtype (array),
        ndim, shape, read_rows, r, (GDestroyNotify) reader_free);
    return TRUE;
  }
  if (is_output) {
    guint ndim;
    const gint64 *shape = plan_array_get_shape (array, &ndim);
    PlanArray *out = plan_array_new (plan_array_get_dtype (array), ndim,
        shape, error);

    g_object_unref (array);
    if (out == NULL)
      return FALSE;
    array = out;
  }
  plan_bindings_set_array (bindings, f[1], array);
  g_object_unref (array);
  return TRUE;
}

static gboolean
save_results (PlanFuture * future, const gchar * outdir, GError ** error)
{
  gchar **names = plan_future_get_result_names (future), **p;
  gboolean ok = TRUE;

  for (p = names; *p && ok; p++) {
    gchar *base = g_strconcat (*p, ".npy", NULL);
    gchar *path = g_build_filename (outdir, base, NULL);

    ok = plan_array_save_npy (plan_future_get_result (future, *p), path, error);
    g_free (path);
    g_free (base);
  }
  g_strfreev (names);
  return ok;
}

int
main (int argc, char **argv)
{
  PlanGraph *graph;
  PlanWork *work = NULL;
  PlanBindings *bindings;
  PlanFuture *future = NULL;
  GPtrArray *files = g_ptr_array_new_with_free_func (close_file);
  GError *error = NULL;
  gchar line[4096], *launch;
  gint64 cancel_after = -1;
  guint64 done;
  gint64 total;
  gboolean ok = TRUE;

  gst_init (&argc, &argv);
  plan_init ();
  if (argc != 2) {
    g_printerr ("usage: %s OUTDIR < description\n", argv[0]);
    return 2;
  }
  graph = plan_graph_new ();
  bindings = plan_bindings_new ();
  while (ok && fgets (line, sizeof (line), stdin)) {
    gchar **f;
    guint n;

    g_strchomp (line);
    if (line[0] == '\0' || line[0] == '#')
      continue;
    f = g_strsplit (line, "\t", -1);
    n = g_strv_length (f);
    if (strcmp (f[0], "realize") == 0) {
      work = plan_graph_realize (graph, enum_value (PLAN_TYPE_TARGET, f[1]),
          n > 2 && strcmp (f[2], "nofuse") == 0 ? PLAN_REALIZE_NO_FUSE :
          PLAN_REALIZE_NONE, &error);
      ok = work != NULL;
    } else if (strcmp (f[0], "cancel") == 0) {
      cancel_after = g_ascii_strtoll (f[1], NULL, 10);
    } else if (work != NULL) {
      ok = add_binding (bindings, work, f, n, files, &error);
    } else {
      ok = add_node (graph, f, n, &error);
    }
    g_strfreev (f);
  }

  if (ok && work == NULL)
    ok = (work = plan_graph_realize (graph, PLAN_TARGET_CPU,
            PLAN_REALIZE_NONE, &error)) != NULL;
  if (ok)
    ok = (future = plan_work_dispatch (work, bindings, &error)) != NULL;
  if (ok && cancel_after >= 0) {
    /* Cancel as soon as the run has made progress (so that it is cancelled
     * in the middle however fast the machine), or after @cancel_after. */
    gint64 give_up = g_get_monotonic_time () + cancel_after;

    plan_future_get_progress (future, &done, &total);
    while (done == 0 && g_get_monotonic_time () < give_up) {
      g_usleep (1000);
      plan_future_get_progress (future, &done, &total);
    }
    plan_future_cancel (future);
  }
  if (ok)
    ok = plan_future_wait (future, -1, &error);
  g_ptr_array_set_size (files, 0);
  if (ok)
    ok = save_results (future, argv[1], &error);
  if (work != NULL) {
    g_print ("kernels %u\n", plan_work_get_n_kernels (work));
    launch = plan_work_to_launch_string (work);
    g_print ("launch %s\n", launch);
    g_free (launch);
  }
  if (future != NULL) {
    plan_future_get_progress (future, &done, &total);
    g_print ("progress %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT "\n", done,
        total);
  }
  g_clear_object (&future);
  g_clear_object (&work);
  g_object_unref (bindings);
  g_object_unref (graph);
  g_ptr_array_unref (files);
  if (error != NULL) {
    g_printerr ("%s\n", error->message);
    g_error_free (error);
    return 1;
  }
  return 0;
}
