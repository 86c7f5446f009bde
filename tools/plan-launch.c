/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* plan-launch: runs a plan (a pipeline description, or a .plan file with
 * ${VAR} references) to its end, with a progress bar, the results of its
 * reductions, per-element statistics and a picture of its graph. The
 * manual is help_text below (plan-launch --help).
 *
 * It waits for the end on a main loop with a timeout rather than the way
 * gst-launch-1.0 1.22 does: that one quits its main loop from a bus sync
 * handler, in the thread that posts an error, and when an element fails
 * while the pipeline prerolls, before that loop has started, the quit is
 * lost and it never returns; the tests that check error messages must
 * not hang. Here the bus is read from the main loop only. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#ifndef PLAN_PIPELINES_DIR
#define PLAN_PIPELINES_DIR "/usr/local/share/gst-plan/pipelines"
#endif
#ifndef PLAN_PLUGIN_DIR
#define PLAN_PLUGIN_DIR "/usr/local/lib/x86_64-linux-gnu/gstreamer-1.0"
#endif

enum
{
  EXIT_OK = 0,
  EXIT_ERROR = 1,
  EXIT_USAGE = 2,
  EXIT_TIMEOUT = 3,
  EXIT_GRAPH = 4,
};

static const gchar help_text[] =
    "NAME\n"
    "    plan-launch - run a gst-plan pipeline and show how it goes\n"
    "\n"
    "SYNOPSIS\n"
    "    plan-launch [OPTION...] ELEMENT [PROPERTY=VALUE...] ! ELEMENT ...\n"
    "    plan-launch [OPTION...] FILE.plan [NAME=VALUE...]\n"
    "\n"
    "DESCRIPTION\n"
    "    Runs a pipeline to its end, as gst-launch-1.0 does, and shows what a\n"
    "    person running a long array job wants to see:\n"
    "\n"
    "    - on standard error, while it runs, a progress bar with the rows and\n"
    "      bytes read of the total, the throughput and the time left (ETA),\n"
    "      from the GST_MESSAGE_PROGRESS messages that planfilesrc and\n"
    "      planarraysrc post; when standard error is not a terminal, or\n"
    "      TERM is dumb, plain lines instead (at most one a second, and one\n"
    "      at the end);\n"
    "    - on standard output, when it is done, the result of every\n"
    "      planreduce: its name, op, value(s), dtype and shape, such as\n"
    "          total: sum = 1234.5 (float64, shape ())\n"
    "      and then 'Execution ended after S s'.\n"
    "\n"
    "    The pipeline is either gst-launch-1.0's description, given as\n"
    "    words, or a .plan file: a description written in a file, where a\n"
    "    line starting with # is a comment and ${NAME} is replaced by the\n"
    "    VALUE of a NAME=VALUE argument, else by the environment variable\n"
    "    NAME; ${NAME:-TEXT} gives TEXT when neither is set. A NAME without\n"
    "    a value is an error naming the file, the line and the name, and so\n"
    "    is a NAME=VALUE argument for a NAME the file does not use; the\n"
    "    file's leading comment is then printed as its usage. Of a NAME given\n"
    "    twice, the last VALUE counts. Values go in as they\n"
    "    are, so a file quotes them where they may hold spaces:\n"
    "    location=\"${in}\". A FILE.plan that is not a path to a file is\n"
    "    looked for in $PLAN_PIPELINES_DIR and then in the installed\n"
    "    pipelines (" PLAN_PIPELINES_DIR ").\n"
    "\n"
    "OPTIONS\n"
    "    -q, --quiet\n"
    "        No progress, no results, no timing: only errors and warnings.\n"
    "        Use it when the pipeline writes to standard output (fdsink).\n"
    "    -m, --messages\n"
    "        Also print every element message as it comes, as\n"
    "        'Got message from element \"PATH\": STRUCTURE', PATH the\n"
    "        element's path in the pipeline (/GstPipeline:pipeline0/...).\n"
    "    -s, --stats\n"
    "        When done, print a table (on standard error) of every element:\n"
    "        the buffers, rows and bytes it took in (a source: it pushed),\n"
    "        the time spent in it, its throughput (bytes over that time), and\n"
    "        its busy share of the run; the element with the largest share\n"
    "        is named as the one that bounded the run. Measured by the\n"
    "        planstats tracer of the gst-plan plugin, around every push:\n"
    "        wall-clock time inside an element called by a push (a sink),\n"
    "        minus the pushes it makes; the CPU time of the thread for an\n"
    "        element with its own streaming thread (kernel elements, queue),\n"
    "        so that waiting for input does not count; wall-clock time\n"
    "        between the pushes of a source.\n"
    "    -g, --graph=FILE\n"
    "        Write the pipeline's graph when it ends (GStreamer's dot dump,\n"
    "        with caps and the properties that were set): FILE.dot as it is,\n"
    "        FILE.svg or FILE.png rendered with Graphviz's dot (Debian's\n"
    "        graphviz package). Without dot the graph is written to FILE.dot\n"
    "        beside it and plan-launch says so and exits with 4.\n"
    "    -T, --target=cpu|cuda|auto\n"
    "        Set the target property of every kernel element (planmap,\n"
    "        planreduce, planstencil, plancustom) before running.\n"
    "    -e, --eos-on-shutdown\n"
    "        On SIGINT, SIGTERM or SIGHUP, send EOS to the sources and wait\n"
    "        for it to reach the sinks (a second signal stops at once),\n"
    "        instead of stopping at once. The stream then ends on purpose\n"
    "        where the EOS reaches the sources: planfilesink writes a valid\n"
    "        file of the rows that came, and so does npymux ! filesink; every\n"
    "        planreduce gives its result over them, printed as at the end of\n"
    "        a run. The exit status is still 130, 143 or 129.\n"
    "    -t, --timeout=SECONDS\n"
    "        Give up after SECONDS, a number 0 or more (0, the default, or\n"
    "        inf: never). The pipeline is then stopped as for SIGINT (see\n"
    "        SIGNALS).\n"
    "    -h, --help\n"
    "        This manual. --help-gst lists GStreamer's own options\n"
    "        (--gst-debug=...), --help-all both.\n"
    "    --version\n"
    "        Print plan-launch's version (that of gst-plan) and the version\n"
    "        of the GStreamer library it runs with, and exit.\n"
    "\n"
    "SIGNALS\n"
    "    SIGINT (Ctrl-C), SIGTERM and SIGHUP (the terminal closed) stop the\n"
    "    pipeline cleanly: it is set to NULL, so planfilesink removes its\n"
    "    temporary file and nothing appears under the output's name (see -e\n"
    "    for the other way). SIGHUP ignored when plan-launch starts (nohup)\n"
    "    stays ignored, and the run goes on. Stopping waits\n"
    "    for each element to leave the chunk it computes; when that takes more\n"
    "    than 5 s after a signal, the timeout or an error (code that cannot\n"
    "    be interrupted, such as a plancustom kernel that never returns),\n"
    "    plan-launch says so and exits at once with the status below.\n"
    "    After a signal plan-launch ends without finalizing MPI: in an MPI\n"
    "    job that mpirun stops because a rank died, the ranks end promptly.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 at EOS; 1 on an error (printed with the element, the message and\n"
    "    the debug details), and when the results could not be written to\n"
    "    standard output (a full disk, /dev/full); 2 on a bad command line,\n"
    "    pipeline description or .plan file; 3 when the timeout passed; 4\n"
    "    when the graph could not be written; 130 after SIGINT, 143 after\n"
    "    SIGTERM and 129 after SIGHUP.\n"
    "\n"
    "ENVIRONMENT\n"
    "    GST_PLUGIN_PATH     where to find an uninstalled gst-plan plugin\n"
    "                        (build/plugins in a build tree)\n"
    "    PLAN_PIPELINES_DIR  where to look for .plan files first\n"
    "\n"
    "EXAMPLES\n"
    "    plan-launch planfilesrc location=a.npy ! planreduce op=sum ! fakesink\n"
    "    plan-launch --stats --graph=map.svg planfilesrc location=a.npy ! \\\n"
    "        planmap expr=\"2*x + 1\" ! planfilesink location=out.npy\n"
    "    plan-launch laplacian.plan in=img.npy out=lap.npy\n"
    "    plan-launch -e -T cpu reduce.plan in=big.npy\n";

/* options */
static gboolean quiet = FALSE;
static gboolean messages = FALSE;
static gboolean stats = FALSE;
static gboolean eos_on_shutdown = FALSE;
static gdouble timeout_s = 0;
static gchar *graph_path = NULL;
static gchar *target = NULL;

/* One source's last progress message. */
typedef struct
{
  guint64 rows_done, rows_total;
  guint64 bytes_done, bytes_total;
  gboolean has_total;
  gboolean finished;
} SourceProgress;

typedef struct
{
  GMainLoop *loop;
  GstElement *pipeline;
  gint status;                  /* -1 while running */
  guint timeout_id;             /* the -t source, 0 when none or gone */
  gint signal_number;           /* the first signal, 0 if none */
  gboolean eos_sent;
  gboolean eos_reached;         /* the EOS came out of the pipeline */

  gboolean tty;
  GHashTable *progress;         /* GstObject * (reffed) -> SourceProgress */
  gint64 progress_start;        /* monotonic us of the run's start */
  gint64 progress_time;         /* monotonic us of the last message */
  gint64 last_line;             /* monotonic us of the last plain line */
  gboolean bar_shown;
  gboolean progress_ended;

  GHashTable *results;          /* element name -> GstStructure */
  GPtrArray *result_order;      /* element names, first result first */
} Run;

/* ---- .plan files ---------------------------------------------------- */

/* The value of ${NAME}: a NAME=VALUE argument (the last one, as a later
 * setting overrides an earlier one in make and the shell), else the
 * environment. */
static const gchar *
lookup_variable (const gchar * name, gchar ** vars)
{
  gsize len = strlen (name);
  const gchar *value = NULL;

  for (; vars && *vars; vars++)
    if (strncmp (*vars, name, len) == 0 && (*vars)[len] == '=')
      value = *vars + len + 1;
  return value ? value : g_getenv (name);
}

/* The number of single-character insertions, deletions and
 * substitutions that make @a into @b. */
static guint
edit_distance (const gchar * a, const gchar * b)
{
  gsize la = strlen (a), lb = strlen (b), i, j;
  guint *row = g_new (guint, lb + 1), d;

  for (j = 0; j <= lb; j++)
    row[j] = j;
  for (i = 1; i <= la; i++) {
    guint diag = row[0];

    row[0] = i;
    for (j = 1; j <= lb; j++) {
      guint up = row[j];

      row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1),
          diag + (a[i - 1] != b[j - 1]));
      diag = up;
    }
  }
  d = row[lb];
  g_free (row);
  return d;
}

/* Of @names, the one closest to @name, if one is close enough to be a
 * misspelling of it; else NULL. */
static const gchar *
closest_name (const gchar * name, GPtrArray * names)
{
  const gchar *best = NULL;
  guint best_d = G_MAXUINT, i;

  for (i = 0; i < names->len; i++) {
    guint d = edit_distance (name, g_ptr_array_index (names, i));

    if (d < best_d) {
      best_d = d;
      best = g_ptr_array_index (names, i);
    }
  }
  return best_d <= MAX (2u, (guint) strlen (name) / 3) ? best : NULL;
}

/* Every NAME=VALUE argument names a variable of the file: a misspelt
 * one (boundry=reflect) would otherwise be dropped without a word and the
 * default run. @names are the file's, in order of first use. */
static gboolean
check_variables_used (const gchar * path, gchar ** vars, GPtrArray * names,
    GError ** error)
{
  for (; vars && *vars; vars++) {
    gchar *name = g_strndup (*vars, strchr (*vars, '=') - *vars);
    guint i;

    if (!g_ptr_array_find_with_equal_func (names, name, g_str_equal, NULL)) {
      GString *list = g_string_new (NULL);
      const gchar *closest = closest_name (name, names);
      gchar *hint = closest ? g_strdup_printf (" (did you mean '%s'?)",
          closest) : g_strdup ("");

      for (i = 0; i < names->len; i++)
        g_string_append_printf (list, "%s%s", i ? ", " : "",
            (gchar *) g_ptr_array_index (names, i));
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
          "%s has no variable '%s'%s: %s%s", path, name, hint, names->len ?
          "its variables are " : "it has no ${NAME}", list->str);
      g_free (hint);
      g_string_free (list, TRUE);
      g_free (name);
      return FALSE;
    }
    g_free (name);
  }
  return TRUE;
}

static void
print_usage_comment (const gchar * path, const gchar * text)
{
  gchar **lines = g_strsplit (text, "\n", -1), **l;
  gboolean any = FALSE;

  for (l = lines; *l && g_str_has_prefix (*l, "#"); l++) {
    const gchar *line = *l + (g_str_has_prefix (*l, "# ") ? 2 : 1);

    if (g_str_has_prefix (*l, "#!"))
      continue;
    /* a file without a leading comment has no usage to print */
    if (!any)
      g_printerr ("%s:\n", path);
    any = TRUE;
    g_printerr ("%s%s\n", *line ? "  " : "", line);
  }
  g_strfreev (lines);
}

/* The description in @path with comments blanked and ${NAME} replaced:
 * its line N is the file's line N. */
static gchar *
read_plan_file (const gchar * path, gchar ** vars, GError ** error)
{
  gchar *text = NULL, **lines, **l;
  const gchar *bad;
  GPtrArray *names;
  GString *out;
  GError *missing = NULL;
  guint line_no = 0;
  gsize size;

  if (!g_file_get_contents (path, &text, &size, error))
    return NULL;
  /* A NUL byte would end the text early, and what follows it would be
   * dropped without a word; bytes that are not UTF-8 make no pipeline
   * description. Either means it is not a pipeline file. */
  if (!g_utf8_validate_len (text, size, &bad)) {
    const gchar *p;

    for (p = text, line_no = 1; p < bad; p++)
      line_no += *p == '\n';
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
        "%s:%u: %s at byte %" G_GSIZE_FORMAT ": it is not a text file of a "
        "pipeline description", path, line_no, *bad == '\0' ? "a NUL byte" :
        "bytes that are not UTF-8", (gsize) (bad - text));
    g_free (text);
    return NULL;
  }
  out = g_string_new (NULL);
  names = g_ptr_array_new_with_free_func (g_free);
  lines = g_strsplit (text, "\n", -1);
  for (l = lines; *l; l++) {
    const gchar *p = *l, *start;

    line_no++;
    if (p[strspn (p, " \t")] == '#') {
      g_string_append_c (out, '\n');
      continue;
    }
    while (p && *p) {
      start = strstr (p, "${");
      if (start == NULL) {
        g_string_append (out, p);
        break;
      }
      g_string_append_len (out, p, start - p);
      {
        const gchar *end = strchr (start, '}');
        gchar *ref, *dflt, *name;
        const gchar *value;
        gboolean ok = TRUE;

        if (end == NULL) {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
              "%s:%u: '${' without its '}'", path, line_no);
          goto failed;
        }
        ref = g_strndup (start + 2, end - start - 2);
        dflt = strstr (ref, ":-");
        if (dflt) {
          *dflt = '\0';
          dflt += 2;
        }
        name = ref;
        if (*name == '\0' || strspn (name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen (name)) {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
              "%s:%u: '${%s}' is not a variable name (letters, digits "
              "and _)", path, line_no, ref);
          ok = FALSE;
        } else {
          if (!g_ptr_array_find_with_equal_func (names, name, g_str_equal,
                  NULL))
            g_ptr_array_add (names, g_strdup (name));
          value = lookup_variable (name, vars);
          if (value == NULL)
            value = dflt;
          if (value == NULL) {
            /* reported once every name is known: a misspelt NAME=VALUE
             * (inn=a.npy) is the cause of a missing ${in}, and is
             * reported first */
            if (missing == NULL)
              g_set_error (&missing, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                  "%s:%u: ${%s} is not set: give %s=VALUE after the file "
                  "name (or set it in the environment)", path, line_no,
                  name, name);
          } else {
            g_string_append (out, value);
          }
        }
        g_free (ref);
        if (!ok)
          goto failed;
        p = end + 1;
      }
    }
    g_string_append_c (out, '\n');
  }
  if (!check_variables_used (path, vars, names, error))
    goto failed;
  if (missing != NULL) {
    g_propagate_error (error, g_steal_pointer (&missing));
    goto failed;
  }
  g_ptr_array_unref (names);
  g_strfreev (lines);
  g_free (text);
  return g_string_free (out, FALSE);

failed:
  g_clear_error (&missing);
  print_usage_comment (path, text);
  g_ptr_array_unref (names);
  g_strfreev (lines);
  g_free (text);
  g_string_free (out, TRUE);
  return NULL;
}

/* @name as a path, else in $PLAN_PIPELINES_DIR, else installed; NULL
 * with an error saying where it looked when it is in none of them. */
static gchar *
find_plan_file (const gchar * name, GError ** error)
{
  const gchar *dirs[] = { g_getenv ("PLAN_PIPELINES_DIR"), PLAN_PIPELINES_DIR };
  guint i;

  if (g_file_test (name, G_FILE_TEST_IS_REGULAR) || strchr (name, '/'))
    return g_strdup (name);
  for (i = 0; i < G_N_ELEMENTS (dirs); i++) {
    gchar *path;

    if (dirs[i] == NULL)
      continue;
    path = g_build_filename (dirs[i], name, NULL);
    if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
      return path;
    g_free (path);
  }
  /* here but not a file (a folder): reading it says so */
  if (g_file_test (name, G_FILE_TEST_EXISTS))
    return g_strdup (name);
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "no file %s here, "
      "in $PLAN_PIPELINES_DIR (%s) or in the installed pipelines (%s)", name,
      dirs[0] ? dirs[0] : "not set", PLAN_PIPELINES_DIR);
  return NULL;
}

/* ---- printing ------------------------------------------------------- */

static void
print_error (GstMessage * msg)
{
  GError *err = NULL;
  gchar *debug = NULL, *name;

  gst_message_parse_error (msg, &err, &debug);
  name = gst_object_get_path_string (GST_MESSAGE_SRC (msg));
  g_printerr ("ERROR: from element %s: %s\n", name, err->message);
  if (debug)
    g_printerr ("Additional debug info:\n%s\n", debug);
  g_clear_error (&err);
  g_free (debug);
  g_free (name);
}

static void
print_element_message (GstMessage * msg)
{
  const GstStructure *s = gst_message_get_structure (msg);
  gchar *name = gst_object_get_path_string (GST_MESSAGE_SRC (msg));
  gchar *text = s ? gst_structure_to_string (s) : g_strdup ("(empty)");

  g_print ("Got message from element \"%s\": %s\n", name, text);
  g_free (text);
  g_free (name);
}

/* Bytes as B, KiB, MiB, GiB. */
static gchar *
format_bytes (gdouble bytes)
{
  const gchar *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
  guint u = 0;

  while (bytes >= 1024 && u + 1 < G_N_ELEMENTS (units)) {
    bytes /= 1024;
    u++;
  }
  return u == 0 ? g_strdup_printf ("%.0f %s", bytes, units[u]) :
      g_strdup_printf ("%.1f %s", bytes, units[u]);
}

static gchar *
format_count (guint64 n)
{
  if (n >= 1000000000)
    return g_strdup_printf ("%.1fG", n / 1e9);
  if (n >= 1000000)
    return g_strdup_printf ("%.1fM", n / 1e6);
  if (n >= 10000)
    return g_strdup_printf ("%.1fk", n / 1e3);
  return g_strdup_printf ("%" G_GUINT64_FORMAT, n);
}

static gchar *
format_duration (gdouble s)
{
  if (s < 0.001)
    return g_strdup_printf ("%.0f us", s * 1e6);
  if (s < 1)
    return g_strdup_printf ("%.1f ms", s * 1e3);
  if (s < 60)
    return g_strdup_printf ("%.2f s", s);
  return g_strdup_printf ("%d:%02d", (gint) s / 60, (gint) s % 60);
}

/* ---- progress ------------------------------------------------------- */

static void
progress_totals (Run * run, SourceProgress * sum, gboolean * all_finished)
{
  GHashTableIter iter;
  gpointer value;

  memset (sum, 0, sizeof (*sum));
  sum->has_total = TRUE;
  *all_finished = TRUE;
  g_hash_table_iter_init (&iter, run->progress);
  while (g_hash_table_iter_next (&iter, NULL, &value)) {
    SourceProgress *p = value;

    sum->rows_done += p->rows_done;
    sum->bytes_done += p->bytes_done;
    sum->rows_total += p->rows_total;
    sum->bytes_total += p->bytes_total;
    sum->has_total &= p->has_total;
    *all_finished &= p->finished;
  }
}

/* One line of progress: "45 % 900k/2.0M rows 13.7/30.5 MiB 120 MiB/s
 * ETA 0.20 s". */
static gchar *
format_eta (gdouble s)
{
  gint t = (gint) (s + 0.5);

  if (t < 60)
    return g_strdup_printf ("%d s", t);
  if (t < 3600)
    return g_strdup_printf ("%d:%02d", t / 60, t % 60);
  return g_strdup_printf ("%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60);
}

/* The rate is the one at the last message (sources post them every 1 %
 * and 250 ms at most, so between two the rows done stand still); the ETA
 * counts down from there. */
static gchar *
progress_text (Run * run, const SourceProgress * sum, gboolean finished,
    gboolean compact)
{
  gint64 now = g_get_monotonic_time ();
  gdouble elapsed = (run->progress_time - run->progress_start) / 1e6;
  gdouble since = (now - run->progress_time) / 1e6;
  gdouble rate = elapsed > 0 ? sum->bytes_done / elapsed : 0;
  gchar *rows = format_count (sum->rows_done);
  gchar *bytes = format_bytes (sum->bytes_done);
  gchar *speed = format_bytes (rate);
  gchar *text;

  if (finished) {
    gchar *t = format_duration (elapsed);

    text = g_strdup_printf ("%s rows, %s read in %s, %s/s", rows, bytes, t,
        speed);
    g_free (t);
  } else if (sum->has_total) {
    gchar *rows_total = format_count (sum->rows_total);
    gchar *bytes_total = format_bytes (sum->bytes_total);
    gchar *eta = rate > 0 ? format_eta (MAX (0, (sum->bytes_total -
                sum->bytes_done) / rate - since)) : g_strdup ("?");
    gint percent = sum->rows_total ?
        (gint) (sum->rows_done * 100 / sum->rows_total) : 100;

    text = compact ? g_strdup_printf ("%3d %%  %s/s  ETA %s", percent,
        speed, eta) : g_strdup_printf ("%3d %%  %s/%s rows  %s/%s  %s/s  "
        "ETA %s", percent, rows, rows_total, bytes, bytes_total, speed, eta);
    g_free (rows_total);
    g_free (bytes_total);
    g_free (eta);
  } else {
    text = g_strdup_printf ("%s rows  %s  %s/s", rows, bytes, speed);
  }
  g_free (rows);
  g_free (bytes);
  g_free (speed);
  return text;
}

/* The progress bar's width in characters, and the least it shrinks to on
 * a narrow terminal. */
#define BAR_WIDTH 30
#define MIN_BAR_WIDTH 10

static void
show_progress (Run * run, gboolean force)
{
  SourceProgress sum;
  gboolean finished;
  gint64 now = g_get_monotonic_time ();
  gchar *text;

  if (quiet || run->progress_ended || g_hash_table_size (run->progress) == 0)
    return;
  progress_totals (run, &sum, &finished);
  if (finished)
    run->progress_ended = TRUE;
  if (run->tty) {
    gchar bar[BAR_WIDTH + 1];
    gint width = BAR_WIDTH, filled;

    text = progress_text (run, &sum, finished, FALSE);
    /* A line longer than the terminal would wrap, and \r would then
     * redraw only its last part: the short form (percent, speed, ETA),
     * then a shorter bar, and only then the text cut to the width. */
    {
      struct winsize ws;
      gsize room;

      if (!finished && ioctl (STDERR_FILENO, TIOCGWINSZ, &ws) == 0
          && ws.ws_col > 0) {
        room = ws.ws_col > width + 4 ? ws.ws_col - width - 4 : 0;
        if (strlen (text) > room) {
          g_free (text);
          text = progress_text (run, &sum, finished, TRUE);
        }
        while (strlen (text) > room && width > MIN_BAR_WIDTH) {
          width--;
          room++;
        }
        if (strlen (text) > room)
          text[room] = '\0';
      }
    }
    filled = finished ? width : sum.has_total && sum.rows_total ?
        (gint) (sum.rows_done * width / sum.rows_total) : 0;
    memset (bar, '#', filled);
    memset (bar + filled, sum.has_total || finished ? '.' : '?',
        width - filled);
    bar[width] = '\0';
    /* \r and erase to the end of the line: the bar redraws in place. */
    g_printerr ("\r\033[K[%s] %s%s", bar, text, finished ? "\n" : "");
    run->bar_shown = !finished;
  } else {
    if (!finished && !force && now - run->last_line < G_USEC_PER_SEC)
      return;
    text = progress_text (run, &sum, finished, FALSE);
    g_printerr ("progress: %s%s\n", finished ? "done: " : "", text);
  }
  run->last_line = now;
  g_free (text);
}

/* Ends a bar left on the screen (an error, an interrupt) with a newline,
 * so that what follows starts on a line of its own. */
static void
end_progress_line (Run * run)
{
  if (run->bar_shown) {
    g_printerr ("\n");
    run->bar_shown = FALSE;
  }
}

static void
handle_progress (Run * run, GstMessage * msg)
{
  const GstStructure *s = gst_message_get_structure (msg);
  GstObject *src = GST_MESSAGE_SRC (msg);
  SourceProgress *p;
  GstProgressType type;

  if (!gst_structure_has_field (s, "rows-done"))
    return;                     /* not a plan source's */
  gst_message_parse_progress (msg, &type, NULL, NULL);
  p = g_hash_table_lookup (run->progress, src);
  if (p == NULL) {
    p = g_new0 (SourceProgress, 1);
    g_hash_table_insert (run->progress, gst_object_ref (src), p);
  }
  gst_structure_get_uint64 (s, "rows-done", &p->rows_done);
  gst_structure_get_uint64 (s, "bytes-done", &p->bytes_done);
  p->has_total = gst_structure_get_uint64 (s, "rows-total", &p->rows_total)
      && gst_structure_get_uint64 (s, "bytes-total", &p->bytes_total);
  p->finished = type == GST_PROGRESS_TYPE_COMPLETE;
  run->progress_time = g_get_monotonic_time ();
  if (type == GST_PROGRESS_TYPE_START)
    run->progress_ended = FALSE;
  show_progress (run, type == GST_PROGRESS_TYPE_START);
}

static gboolean
redraw (gpointer user_data)
{
  Run *run = user_data;

  if (run->tty)
    show_progress (run, FALSE);
  return G_SOURCE_CONTINUE;
}

/* ---- reduction results --------------------------------------------- */

/* How many bits the float values of a result have: the shortest text
 * that reads back as the same value is that of this precision. */
typedef enum
{
  PRECISION_DOUBLE,
  PRECISION_SINGLE,
  PRECISION_HALF,
} Precision;

/* The float16 nearest @d (ties to even), as a double. */
static gdouble
round_to_half (gdouble d)
{
  gdouble a = fabs (d), spacing;
  gint e;

  if (isnan (d) || isinf (d))
    return d;
  if (a >= 65520.0)
    return copysign (INFINITY, d);
  frexp (a, &e);                /* a in [2^(e-1), 2^e) */
  /* 11 significant bits; below 2^-14 the subnormals' spacing, 2^-24 */
  spacing = ldexp (1.0, MAX (e, -13) - 11);
  return copysign (nearbyint (a / spacing) * spacing, d);
}

/* %g's exponent form of a number from 1 to 1e16, such as 3e+01 (the
 * shortest %g of 30) or 1.2345679e+08, written out as numpy writes it:
 * its digits then zeros, 30 and 123456790 (%g takes the exponent form
 * only when the exponent reaches the digits, so there is no fraction). */
static gchar *
positional (gchar * text)
{
  const gchar *e = strchr (text, 'e');
  gint exponent = e ? atoi (e + 1) : -1;
  GString *out;
  const gchar *c;
  gint n = 0;

  if (exponent < 0 || exponent >= 16)
    return text;
  out = g_string_new (NULL);
  for (c = text; c < e; c++) {
    if (*c == '-')
      g_string_append_c (out, '-');
    else if (g_ascii_isdigit (*c)) {
      g_string_append_c (out, *c);
      n++;
    }
  }
  for (; n <= exponent; n++)
    g_string_append_c (out, '0');
  g_free (text);
  return g_string_free (out, FALSE);
}

/* The shortest %g that reads back as the same value of @precision, with
 * numpy's positional form from 1e-4 to 1e16. */
static gchar *
format_double (gdouble v, Precision precision)
{
  gint digits;

  if (isnan (v))
    return g_strdup ("nan");
  if (isinf (v))
    return g_strdup (v > 0 ? "inf" : "-inf");
  for (digits = 1; digits < 17; digits++) {
    gchar *text = g_strdup_printf ("%.*g", digits, v);
    gdouble back = g_ascii_strtod (text, NULL);
    gboolean same = precision == PRECISION_HALF ?
        round_to_half (back) == round_to_half (v) :
        precision == PRECISION_SINGLE ? (gfloat) back == (gfloat) v :
        back == v;

    if (same)
      return positional (text);
    g_free (text);
  }
  return positional (g_strdup_printf ("%.17g", v));
}

/* A complex value (an array of its real and imaginary parts) as numpy
 * prints one: (1+2.5j). */
static gchar *
format_complex (const GValue * v, Precision precision)
{
  gdouble re = g_value_get_double (gst_value_array_get_value (v, 0));
  gdouble im = g_value_get_double (gst_value_array_get_value (v, 1));
  gchar *r = format_double (re, precision);
  gchar *i = format_double (fabs (im), precision);
  gchar *text = g_strdup_printf ("(%s%s%sj)", r,
      signbit (im) && !isnan (im) ? "-" : "+", isnan (im) ? "nan" : i);

  g_free (r);
  g_free (i);
  return text;
}

static gchar *
format_value (const GValue * v, Precision precision)
{
  if (G_VALUE_HOLDS_DOUBLE (v))
    return format_double (g_value_get_double (v), precision);
  if (G_VALUE_HOLDS_BOOLEAN (v))
    return g_strdup (g_value_get_boolean (v) ? "True" : "False");
  if (GST_VALUE_HOLDS_ARRAY (v) && gst_value_array_get_size (v) == 2
      && G_VALUE_HOLDS_DOUBLE (gst_value_array_get_value (v, 0)))
    return format_complex (v, precision);
  return gst_value_serialize (v);
}

static gchar *
format_shape (const GstStructure * s)
{
  const GValue *shape = gst_structure_get_value (s, "shape");
  GString *out = g_string_new ("(");
  guint i, n = shape && GST_VALUE_HOLDS_ARRAY (shape) ?
      gst_value_array_get_size (shape) : 0;

  for (i = 0; i < n; i++) {
    gchar *d = gst_value_serialize (gst_value_array_get_value (shape, i));

    g_string_append_printf (out, "%s%s", i ? ", " : "", d);
    g_free (d);
  }
  if (n == 1)
    g_string_append_c (out, ',');
  g_string_append_c (out, ')');
  return g_string_free (out, FALSE);
}

static void
print_result (const GstStructure * s)
{
  const gchar *element = gst_structure_get_string (s, "element");
  const gchar *op = gst_structure_get_string (s, "op");
  const gchar *dtype = gst_structure_get_string (s, "dtype");
  Precision precision = g_strcmp0 (dtype, "float16") == 0 ? PRECISION_HALF
      : g_strcmp0 (dtype, "float32") == 0
      || g_strcmp0 (dtype, "complex64") == 0 ? PRECISION_SINGLE :
      PRECISION_DOUBLE;
  const GValue *value = gst_structure_get_value (s, "value");
  const GValue *values = gst_structure_get_value (s, "values");
  gchar *shape = format_shape (s);
  GString *text = g_string_new (NULL);

  if (value) {
    gchar *v = format_value (value, precision);

    g_string_append (text, v);
    g_free (v);
  } else if (values && GST_VALUE_HOLDS_ARRAY (values)) {
    guint i, n = gst_value_array_get_size (values);

    g_string_append_c (text, '[');
    for (i = 0; i < n && i < 10; i++) {
      gchar *v = format_value (gst_value_array_get_value (values, i),
          precision);

      g_string_append_printf (text, "%s%s", i ? ", " : "", v);
      g_free (v);
    }
    if (n > 10)
      g_string_append_printf (text, ", ... (%u values)", n);
    g_string_append_c (text, ']');
  } else {
    guint64 rows = 0;

    gst_structure_get_uint64 (s, "rows", &rows);
    g_string_append_printf (text, "%" G_GUINT64_FORMAT " %s reduced, "
        "one value each, in the output stream", rows, rows == 1 ? "row" :
        "rows");
  }
  g_print ("%s: %s = %s (%s, shape %s)\n", element ? element : "?",
      op ? op : "?", text->str, dtype ? dtype : "?", shape);
  g_string_free (text, TRUE);
  g_free (shape);
}

static void
handle_element_message (Run * run, GstMessage * msg)
{
  const GstStructure *s = gst_message_get_structure (msg);
  const gchar *element;

  if (messages)
    print_element_message (msg);
  if (s == NULL || !gst_structure_has_name (s, "plan-reduce")
      || gst_structure_has_field (s, "first-row"))
    return;                     /* not a result, or one chunk's */
  element = gst_structure_get_string (s, "element");
  if (element == NULL)
    return;
  if (!g_hash_table_contains (run->results, element))
    g_ptr_array_add (run->result_order, g_strdup (element));
  g_hash_table_insert (run->results, g_strdup (element),
      gst_structure_copy (s));
}

/* The results in the order of the elements in the pipeline description
 * (a bin lists its children last added first), whatever order the
 * reductions finished in. */
static void
print_results (Run * run)
{
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (run->pipeline));
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  GValue item = G_VALUE_INIT;
  gboolean done = FALSE;
  guint i;

  while (!done) {
    switch (gst_iterator_next (it, &item)) {
      case GST_ITERATOR_OK:
        g_ptr_array_insert (names, 0,
            gst_object_get_name (g_value_get_object (&item)));
        g_value_reset (&item);
        break;
      case GST_ITERATOR_RESYNC:
        gst_iterator_resync (it);
        g_ptr_array_set_size (names, 0);
        break;
      default:
        done = TRUE;
        break;
    }
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  /* the ones found in the pipeline, then any other (from a bin that
   * went away) in the order they came */
  for (i = 0; i < names->len; i++) {
    GstStructure *s = g_hash_table_lookup (run->results,
        g_ptr_array_index (names, i));

    if (s) {
      print_result (s);
      g_hash_table_remove (run->results, g_ptr_array_index (names, i));
    }
  }
  for (i = 0; i < run->result_order->len; i++) {
    GstStructure *s = g_hash_table_lookup (run->results,
        g_ptr_array_index (run->result_order, i));

    if (s)
      print_result (s);
  }
  g_ptr_array_unref (names);
}

/* ---- statistics ----------------------------------------------------- */

static GstTracer *
find_stats_tracer (void)
{
  GList *tracers = gst_tracing_get_active_tracers (), *l;
  GstTracer *found = NULL;

  for (l = tracers; l; l = l->next)
    if (found == NULL && g_object_class_find_property (G_OBJECT_GET_CLASS
            (l->data), "stats")
        && g_str_equal (G_OBJECT_TYPE_NAME (l->data), "PlanStatsTracer"))
      found = gst_object_ref (l->data);
  g_list_free_full (tracers, gst_object_unref);
  return found;
}

static guint64
get_u64 (const GstStructure * s, const gchar * field)
{
  guint64 v = 0;

  gst_structure_get_uint64 (s, field, &v);
  return v;
}

static void
print_stats (gdouble run_s)
{
  GstTracer *tracer = find_stats_tracer ();
  GstStructure *all = NULL;
  const GValue *list;
  const gchar *bound = NULL;
  gdouble bound_share = -1;
  guint i, n;

  if (tracer == NULL) {
    g_printerr ("plan-launch: --stats: the planstats tracer is not loaded "
        "(is the gst-plan plugin on GST_PLUGIN_PATH?)\n");
    return;
  }
  g_object_get (tracer, "stats", &all, NULL);
  gst_object_unref (tracer);
  list = gst_structure_get_value (all, "elements");
  n = gst_value_array_get_size (list);

  g_printerr ("\n%-20s %-13s %8s %10s %11s %10s %12s %5s\n", "element",
      "factory", "buffers", "rows", "bytes", "time", "throughput", "busy");
  for (i = 0; i < n; i++) {
    const GstStructure *s =
        gst_value_get_structure (gst_value_array_get_value (list, i));
    gboolean source = FALSE;
    const gchar *dir;
    gchar *rows, *bytes, *time, *speed, *key;
    guint64 ns = get_u64 (s, "time"), nbytes;
    gdouble share = run_s > 0 ? ns / 1e9 / run_s : 0;

    gst_structure_get_boolean (s, "source", &source);
    dir = source ? "out" : "in";
    key = g_strdup_printf ("bytes-%s", dir);
    nbytes = get_u64 (s, key);
    g_free (key);
    key = g_strdup_printf ("rows-%s", dir);
    rows = format_count (get_u64 (s, key));
    g_free (key);
    bytes = format_bytes (nbytes);
    time = format_duration (ns / 1e9);
    if (ns > 0 && nbytes > 0) {
      gchar *b = format_bytes (nbytes / (ns / 1e9));

      speed = g_strdup_printf ("%s/s", b);
      g_free (b);
    } else {
      speed = g_strdup ("-");
    }
    key = g_strdup_printf ("buffers-%s", dir);
    g_printerr ("%-20s %-13s %8" G_GUINT64_FORMAT " %10s %11s %10s %12s "
        "%4.0f%%\n", gst_structure_get_string (s, "name"),
        gst_structure_get_string (s, "factory"), get_u64 (s, key), rows,
        bytes, time, speed, share * 100);
    g_free (key);
    if (share > bound_share) {
      bound_share = share;
      bound = gst_structure_get_string (s, "name");
    }
    g_free (rows);
    g_free (bytes);
    g_free (time);
    g_free (speed);
  }
  if (bound) {
    gchar *t = format_duration (run_s);

    g_printerr ("bounded by %s: busy %.0f %% of the %s run\n", bound,
        bound_share * 100, t);
    g_free (t);
  }
  g_printerr ("(buffers, rows and bytes in; pushed out for sources)\n");
  gst_structure_free (all);
}

/* ---- the graph ------------------------------------------------------ */

/* Numbers the addresses GStreamer names the graph's nodes with, in order
 * of appearance. */
static gboolean
number_address (const GMatchInfo * match, GString * out, gpointer user_data)
{
  GHashTable *seen = user_data;
  gchar *address = g_match_info_fetch (match, 1);
  gpointer n = g_hash_table_lookup (seen, address);

  if (n == NULL) {
    n = GUINT_TO_POINTER (g_hash_table_size (seen) + 1);
    g_hash_table_insert (seen, address, n);
  } else {
    g_free (address);
  }
  g_string_append_printf (out, "_%u", GPOINTER_TO_UINT (n));
  return FALSE;
}

/* GStreamer's dot dump, the same from run to run: the objects' addresses
 * in node names become numbers, and properties that hold an address (a
 * sink's last-sample) are left out, meaning nothing in a picture. */
static gchar *
graph_text (GstElement * pipeline)
{
  gchar *dot = gst_debug_bin_to_dot_data (GST_BIN (pipeline),
      GST_DEBUG_GRAPH_SHOW_CAPS_DETAILS |
      GST_DEBUG_GRAPH_SHOW_NON_DEFAULT_PARAMS);
  GRegex *pointer = g_regex_new ("\\\\n[a-z0-9-]+=\\(\\([A-Za-z]+\\*\\) "
      "(0x[0-9a-f]+|NULL)\\)", 0, 0, NULL);
  GRegex *node = g_regex_new ("_(0x[0-9a-f]+)", 0, 0, NULL);
  GHashTable *seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  gchar *clean = g_regex_replace_literal (pointer, dot, -1, 0, "", 0, NULL);
  gchar *numbered = clean ? g_regex_replace_eval (node, clean, -1, 0, 0,
      number_address, seen, NULL) : NULL;

  g_hash_table_unref (seen);
  g_regex_unref (node);
  g_regex_unref (pointer);
  g_free (clean);
  if (numbered == NULL)
    return dot;
  g_free (dot);
  return numbered;
}

static gboolean
write_graph (GstElement * pipeline, const gchar * path)
{
  gchar *dot = graph_text (pipeline);
  GError *err = NULL;
  gboolean ok = FALSE;
  gchar *program, *tmp = NULL;
  const gchar *format;

  if (g_str_has_suffix (path, ".dot")) {
    ok = g_file_set_contents (path, dot, -1, &err);
    goto done;
  }
  format = g_str_has_suffix (path, ".svg") ? "-Tsvg" : "-Tpng";
  program = g_find_program_in_path ("dot");
  if (program == NULL) {
    tmp = g_strconcat (path, ".dot", NULL);
    g_printerr ("plan-launch: cannot render %s: Graphviz's dot is not "
        "installed (Debian: apt install graphviz); the graph is in %s\n",
        path, tmp);
    if (!g_file_set_contents (tmp, dot, -1, &err))
      goto done;
    goto done;
  }
  {
    gint fd = g_file_open_tmp ("plan-launch-XXXXXX.dot", &tmp, &err);
    /* dot renders into a hidden file beside the graph's, renamed over it
     * once dot succeeded: dot failing part way (a full disk) left a cut
     * file under the graph's name. */
    gchar *dir = g_path_get_dirname (path), *base = g_path_get_basename (path);
    gchar *part = g_strdup_printf ("%s/.%s.XXXXXX.part", dir, base);
    gchar *argv[] = { program, (gchar *) format, (gchar *) "-o", part, tmp,
      NULL
    };
    gchar *errors = NULL;
    gint wait_status, part_fd = -1;

    if (fd >= 0) {
      close (fd);
      part_fd = g_mkstemp_full (part, O_WRONLY | O_CLOEXEC, 0666);
      if (part_fd < 0)
        g_set_error (&err, G_FILE_ERROR, g_file_error_from_errno (errno),
            "cannot create a file in '%s': %s", dir, g_strerror (errno));
      else
        close (part_fd);
    }
    if (part_fd >= 0 && g_file_set_contents (tmp, dot, -1, &err)
        && g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
            NULL, NULL, &errors, &wait_status, &err)) {
      GError *status = NULL;

      ok = g_spawn_check_wait_status (wait_status, &status);
      if (!ok) {
        g_strstrip (errors);
        g_set_error (&err, status->domain, status->code, "Graphviz's dot "
            "failed (%s)%s%s", status->message, *errors ? ": " : "", errors);
        g_error_free (status);
      } else if (g_rename (part, path) < 0) {
        g_set_error (&err, G_FILE_ERROR, g_file_error_from_errno (errno),
            "cannot put it in place: %s", g_strerror (errno));
        ok = FALSE;
      }
    }
    if (part_fd >= 0 && !ok)
      g_unlink (part);
    if (fd >= 0)
      g_unlink (tmp);
    g_free (errors);
    g_free (part);
    g_free (base);
    g_free (dir);
    g_free (program);
  }

done:
  if (err) {
    g_printerr ("plan-launch: cannot write the graph to %s: %s\n", path,
        err->message);
    g_error_free (err);
  }
  g_free (tmp);
  g_free (dot);
  return ok;
}

/* ---- --target -------------------------------------------------------- */

/* Sets @value on every element with a "target" enum property; returns the
 * number set, or -1 after printing an error. */
static gint
set_targets (GstElement * pipeline, const gchar * value)
{
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  GValue item = G_VALUE_INIT;
  gint count = 0;
  gboolean done = FALSE;

  while (!done && count >= 0) {
    switch (gst_iterator_next (it, &item)) {
      case GST_ITERATOR_OK:{
        GstElement *e = g_value_get_object (&item);
        GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS
            (e), "target");

        if (pspec && G_IS_PARAM_SPEC_ENUM (pspec)) {
          GEnumClass *klass = G_PARAM_SPEC_ENUM (pspec)->enum_class;

          if (g_enum_get_value_by_nick (klass, value) == NULL) {
            g_printerr ("plan-launch: --target=%s: %s takes auto, cpu or "
                "cuda\n", value, GST_OBJECT_NAME (e));
            count = -1;
          } else {
            gst_util_set_object_arg (G_OBJECT (e), "target", value);
            count++;
          }
        }
        g_value_reset (&item);
        break;
      }
      case GST_ITERATOR_RESYNC:
        gst_iterator_resync (it);
        count = 0;
        break;
      default:
        done = TRUE;
        break;
    }
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  return count;
}

/* ---- standard output ------------------------------------------------ */

/* The first error writing standard output, 0 while there is none: results
 * that could not be printed (a full disk, /dev/full, a closed descriptor)
 * make the run fail rather than end as if they had been read. */
static gint stdout_errno = 0;

static void
print_to_stdout (const gchar * text)
{
  errno = 0;
  if ((fputs (text, stdout) == EOF || fflush (stdout) != 0)
      && stdout_errno == 0)
    stdout_errno = errno ? errno : EIO;
}

/* Standard input, output or error closed when the program starts
 * (`plan-launch ... >&-`) would be the first descriptors GStreamer opens:
 * its socket pairs that wake the bus and the clock. Progress lines and
 * results written there then woke them at random (a run synced to a clock
 * spun both cores), and results were lost with exit status 0. Each closed
 * one is held by /dev/null opened the other way round (read-only for
 * output), so that writes to it fail with EBADF as they would on the
 * closed descriptor: results that cannot be printed are an error, as
 * print_to_stdout() says. */
static void
hold_closed_standard_descriptors (void)
{
  gint fd;

  for (fd = 0; fd <= 2; fd++) {
    gint held;

    if (fcntl (fd, F_GETFD) >= 0 || errno != EBADF)
      continue;
    /* The lowest free descriptor: @fd, as the ones below it are open. */
    held = open ("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
    if (held >= 0 && held != fd)
      close (held);
  }
}

/* ---- stopping ------------------------------------------------------- */

/* After a timeout or a signal the pipeline is set to NULL, which waits for
 * every streaming thread to leave the element it is in. Code that never
 * returns (a plancustom kernel in an endless loop) cannot be interrupted
 * from outside, so plan-launch gives the pipeline this long and then ends
 * the process itself. */
#define STOP_GRACE_S 5

typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean stopped;             /* protected by lock */
  gint status;                  /* construct-only */
  const gchar *why;             /* construct-only */
} StopWatch;

static gpointer
stop_watch_thread (gpointer data)
{
  StopWatch *w = data;
  gint64 end = g_get_monotonic_time () + STOP_GRACE_S * G_TIME_SPAN_SECOND;
  gboolean stopped;

  g_mutex_lock (&w->lock);
  while (!w->stopped && g_cond_wait_until (&w->cond, &w->lock, end));
  stopped = w->stopped;
  g_mutex_unlock (&w->lock);
  if (!stopped) {
    g_printerr ("plan-launch: the pipeline did not stop within %d s of %s: "
        "an element's thread is busy in code that cannot be interrupted "
        "(such as a plancustom kernel that never returns); exiting without "
        "waiting for it (exit status %d)\n", STOP_GRACE_S, w->why, w->status);
    /* Unfinished outputs: planfilesink's unnamed files vanish with the
     * process; nothing else would be done by exit(). */
    _exit (w->status);
  }
  return NULL;
}

/* The signals that stop a run. */
static const gchar *
signal_name (gint signum)
{
  return signum == SIGINT ? "SIGINT" : signum == SIGTERM ? "SIGTERM" :
      "SIGHUP";
}

/* Sets the pipeline to NULL; after a run that did not reach EOS, ends the
 * process with @status when that does not finish within STOP_GRACE_S. */
static void
stop_pipeline (Run * run, gint status)
{
  StopWatch w = { 0, };
  GThread *thread = NULL;

  if (run->signal_number || status == EXIT_TIMEOUT || status == EXIT_ERROR) {
    g_mutex_init (&w.lock);
    g_cond_init (&w.cond);
    w.status = status;
    w.why = run->signal_number ? signal_name (run->signal_number) :
        status == EXIT_TIMEOUT ? "the timeout" : "the error";
    thread = g_thread_new ("plan-launch-stop", stop_watch_thread, &w);
  }
  gst_element_set_state (run->pipeline, GST_STATE_NULL);
  if (thread) {
    g_mutex_lock (&w.lock);
    w.stopped = TRUE;
    g_cond_signal (&w.cond);
    g_mutex_unlock (&w.lock);
    g_thread_join (thread);
    g_mutex_clear (&w.lock);
    g_cond_clear (&w.cond);
  }
}

/* ---- running -------------------------------------------------------- */

static void
finish (Run * run, gint status)
{
  if (run->status < 0)
    run->status = status;
  g_main_loop_quit (run->loop);
}

static gboolean
on_bus_message (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  Run *run = user_data;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ERROR:
      end_progress_line (run);
      print_error (msg);
      finish (run, EXIT_ERROR);
      break;
    case GST_MESSAGE_EOS:
      run->eos_reached = TRUE;
      finish (run, EXIT_OK);
      break;
    case GST_MESSAGE_ELEMENT:
      handle_element_message (run, msg);
      break;
    case GST_MESSAGE_PROGRESS:
      handle_progress (run, msg);
      break;
    case GST_MESSAGE_WARNING:{
      GError *err = NULL;

      gst_message_parse_warning (msg, &err, NULL);
      end_progress_line (run);
      g_printerr ("WARNING: %s\n", err->message);
      g_clear_error (&err);
      break;
    }
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

static gboolean
on_timeout (gpointer user_data)
{
  Run *run = user_data;

  /* Removed by returning G_SOURCE_REMOVE: not again at the end. */
  run->timeout_id = 0;
  end_progress_line (run);
  g_printerr ("ERROR: the pipeline did not finish within %g s\n", timeout_s);
  finish (run, EXIT_TIMEOUT);
  return G_SOURCE_REMOVE;
}

static gboolean
on_signal (Run * run, gint signum)
{
  const gchar *name = signal_name (signum);

  end_progress_line (run);
  if (run->signal_number == 0)
    run->signal_number = signum;
  if (eos_on_shutdown && !run->eos_sent) {
    g_printerr ("plan-launch: %s: sending EOS, waiting for it to reach the "
        "sinks (again to stop at once)\n", name);
    run->eos_sent = TRUE;
    gst_element_send_event (run->pipeline, gst_event_new_eos ());
    return G_SOURCE_CONTINUE;
  }
  g_printerr ("plan-launch: %s: stopping the pipeline; unfinished output "
      "files are removed\n", name);
  finish (run, 128 + run->signal_number);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sigint (gpointer user_data)
{
  return on_signal (user_data, SIGINT);
}

static gboolean
on_sigterm (gpointer user_data)
{
  return on_signal (user_data, SIGTERM);
}

/* The terminal went away (a closed window, a dropped ssh session): the
 * run stops as for SIGTERM, so that its outputs' hidden temporary files
 * (HDF5 files, Zarr stores, file systems without O_TMPFILE) are removed,
 * where the default action would kill the process and leave them. */
static gboolean
on_sighup (gpointer user_data)
{
  return on_signal (user_data, SIGHUP);
}

/* Whether SIGHUP was ignored when the program started (nohup, or a
 * parent that ignores it): then it stays ignored, and the run goes on. */
static gboolean
sighup_ignored (void)
{
  struct sigaction action;

  return sigaction (SIGHUP, NULL, &action) == 0
      && action.sa_handler == SIG_IGN;
}

/* Runs to EOS, an error, the timeout or a signal; returns the status. */
static gint
run_pipeline (Run * run, gdouble * seconds)
{
  GstBus *bus = gst_element_get_bus (run->pipeline);
  guint watch, redraw_id, sigint_id, sigterm_id, sighup_id = 0;
  gint64 start;

  run->status = -1;
  watch = gst_bus_add_watch (bus, on_bus_message, run);
  redraw_id = g_timeout_add (200, redraw, run);
  sigint_id = g_unix_signal_add (SIGINT, on_sigint, run);
  sigterm_id = g_unix_signal_add (SIGTERM, on_sigterm, run);
  if (!sighup_ignored ())
    sighup_id = g_unix_signal_add (SIGHUP, on_sighup, run);
  /* Milliseconds fit a guint up to 49 days; whole seconds beyond that,
   * and inf (or more than a guint of seconds) is no timeout at all. */
  if (timeout_s > 0 && timeout_s * 1000 < G_MAXUINT)
    run->timeout_id = g_timeout_add ((guint) (timeout_s * 1000), on_timeout,
        run);
  else if (timeout_s > 0 && timeout_s < G_MAXUINT)
    run->timeout_id = g_timeout_add_seconds ((guint) timeout_s, on_timeout,
        run);

  start = g_get_monotonic_time ();
  /* Throughput and ETA count from here: reading starts in preroll. */
  run->progress_start = start;
  /* An element that fails to start posts its error before the state
   * change returns; the bus watch prints it. */
  if (gst_element_set_state (run->pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

    if (msg) {
      print_error (msg);
      gst_message_unref (msg);
    } else {
      g_printerr ("ERROR: the pipeline could not start\n");
    }
    run->status = EXIT_ERROR;
  } else {
    g_main_loop_run (run->loop);
  }
  *seconds = (g_get_monotonic_time () - start) / 1e6;

  if (run->timeout_id)
    g_source_remove (run->timeout_id);
  run->timeout_id = 0;
  g_source_remove (sigint_id);
  g_source_remove (sigterm_id);
  if (sighup_id)
    g_source_remove (sighup_id);
  g_source_remove (redraw_id);
  g_source_remove (watch);
  gst_object_unref (bus);
  return run->status;
}

/* A word of the description that looks like an option (-q, --stats):
 * gst-launch-1.0 takes options anywhere, plan-launch only before the
 * description, where they cannot be taken for its words. NULL if none. */
static const gchar *
find_misplaced_option (gchar ** words)
{
  for (; words && *words; words++)
    if ((*words)[0] == '-' && (g_ascii_isalpha ((*words)[1])
            || ((*words)[1] == '-' && g_ascii_isalpha ((*words)[2]))))
      return *words;
  return NULL;
}

/* The NAME=VALUE words after a .plan file. */
static gboolean
check_variables (gchar ** vars)
{
  for (; vars && *vars; vars++) {
    const gchar *eq = strchr (*vars, '=');

    if (eq == NULL || eq == *vars) {
      g_printerr ("plan-launch: '%s' after the .plan file is not "
          "NAME=VALUE%s\n", *vars, find_misplaced_option (vars) == *vars ?
          ": options come before the file" : "");
      return FALSE;
    }
  }
  return TRUE;
}

/* The first line of @desc where @word stands on its own (after a space,
 * '!', '.', ':' or the line's start, and before a space, '!', '.' or the
 * line's end), followed by @after when not NULL; 0 if none. */
static guint
find_word_line (const gchar * desc, const gchar * word, const gchar * after)
{
  gchar **lines = g_strsplit (desc, "\n", -1);
  gsize len = strlen (word);
  guint i, found = 0;

  for (i = 0; lines[i] && found == 0 && len > 0; i++) {
    const gchar *p = lines[i];

    while (found == 0 && (p = strstr (p, word)) != NULL) {
      gboolean starts = p == lines[i] || strchr (" \t\r!.:\"", p[-1]);
      const gchar *end = p + len;
      gboolean ends = after ? g_str_has_prefix (end, after) :
          *end == '\0' || strchr (" \t\r!.", *end) != NULL;

      if (starts && ends)
        found = i + 1;
      p++;
    }
  }
  g_strfreev (lines);
  return found;
}

/* The line of a .plan file's description that GStreamer's @err is about:
 * the element that does not exist, the property it does not have or
 * could not take; 0 when the error names none (a syntax error). The
 * names are the quoted ones of GStreamer's message. */
static guint
parse_error_line (const gchar * desc, const GError * err)
{
  gchar **quoted = g_strsplit (err->message, "\"", -1);
  guint n = g_strv_length (quoted), line = 0;

  /* no element "X"; no property "P" in element "E"; could not set
   * property "P" in element "E" to "V" */
  if (err->domain != GST_PARSE_ERROR || n < 3) {
    line = 0;
  } else if (err->code == GST_PARSE_ERROR_NO_SUCH_ELEMENT) {
    line = find_word_line (desc, quoted[1], NULL);
  } else if (err->code == GST_PARSE_ERROR_NO_SUCH_PROPERTY) {
    line = find_word_line (desc, quoted[1], "=");
  } else if (err->code == GST_PARSE_ERROR_COULD_NOT_SET_PROPERTY) {
    gchar *set = n >= 7 ? g_strconcat (quoted[1], "=", quoted[5], NULL) :
        NULL;
    gchar *set_quoted = n >= 7 ? g_strconcat (quoted[1], "=\"", quoted[5],
        NULL) : NULL;

    if (set)
      line = find_word_line (desc, set, NULL);
    if (line == 0 && set_quoted)
      line = find_word_line (desc, set_quoted, "\"");
    if (line == 0)
      line = find_word_line (desc, quoted[1], "=");
    g_free (set);
    g_free (set_quoted);
  }
  g_strfreev (quoted);
  return line;
}

/* What values a property takes, for GStreamer's 'could not set property
 * "P" in element "E" to "V"', which does not say: an enum's nicks, a
 * boolean's words, a number's range. Nothing when E is no factory (an
 * element named by name=, a pad) or P a property of another kind. */
static void
explain_property_value (const GError * err)
{
  const gchar *start = strstr (err->message, "could not set property \"");
  gchar **quoted = start ? g_strsplit (start, "\"", -1) : NULL;
  GstElementFactory *factory = NULL;
  GObjectClass *klass = NULL;
  GParamSpec *pspec;
  GString *takes = NULL;

  if (quoted == NULL || g_strv_length (quoted) < 6)
    goto done;
  factory = gst_element_factory_find (quoted[3]);
  if (factory) {
    /* the loaded feature, with its own reference */
    GstPluginFeature *loaded =
        gst_plugin_feature_load (GST_PLUGIN_FEATURE (factory));

    gst_object_unref (factory);
    factory = loaded ? GST_ELEMENT_FACTORY (loaded) : NULL;
  }
  if (factory == NULL)
    goto done;
  klass = g_type_class_ref (gst_element_factory_get_element_type (factory));
  pspec = g_object_class_find_property (klass, quoted[1]);
  if (pspec == NULL)
    goto done;
  takes = g_string_new (NULL);
  if (G_IS_PARAM_SPEC_ENUM (pspec)) {
    GEnumClass *e = G_PARAM_SPEC_ENUM (pspec)->enum_class;
    guint i;

    g_string_append (takes, "one of ");
    for (i = 0; i < e->n_values; i++)
      g_string_append_printf (takes, "%s%s", i == 0 ? "" : i + 1 ==
          e->n_values ? " or " : ", ", e->values[i].value_nick);
  } else if (G_IS_PARAM_SPEC_BOOLEAN (pspec)) {
    g_string_append (takes, "true or false");
  } else if (G_IS_PARAM_SPEC_INT (pspec)) {
    g_string_append_printf (takes, "a whole number from %d to %d",
        G_PARAM_SPEC_INT (pspec)->minimum, G_PARAM_SPEC_INT (pspec)->maximum);
  } else if (G_IS_PARAM_SPEC_UINT (pspec)) {
    g_string_append_printf (takes, "a whole number from %u to %u",
        G_PARAM_SPEC_UINT (pspec)->minimum,
        G_PARAM_SPEC_UINT (pspec)->maximum);
  } else if (G_IS_PARAM_SPEC_INT64 (pspec)) {
    g_string_append_printf (takes, "a whole number from %" G_GINT64_FORMAT
        " to %" G_GINT64_FORMAT, G_PARAM_SPEC_INT64 (pspec)->minimum,
        G_PARAM_SPEC_INT64 (pspec)->maximum);
  } else if (G_IS_PARAM_SPEC_UINT64 (pspec)) {
    g_string_append_printf (takes, "a whole number from %" G_GUINT64_FORMAT
        " to %" G_GUINT64_FORMAT, G_PARAM_SPEC_UINT64 (pspec)->minimum,
        G_PARAM_SPEC_UINT64 (pspec)->maximum);
  } else if (G_IS_PARAM_SPEC_DOUBLE (pspec)) {
    g_string_append_printf (takes, "a number from %g to %g",
        G_PARAM_SPEC_DOUBLE (pspec)->minimum,
        G_PARAM_SPEC_DOUBLE (pspec)->maximum);
  }
  if (takes->len)
    g_printerr ("plan-launch: %s's %s takes %s\n", quoted[3], quoted[1],
        takes->str);

done:
  if (takes)
    g_string_free (takes, TRUE);
  if (klass)
    g_type_class_unref (klass);
  gst_clear_object (&factory);
  g_strfreev (quoted);
}

/* A description GStreamer cannot build for want of an element: when the
 * gst-plan plugin is not in the registry, or is there but failed to load,
 * what the user should do about it. */
static void
explain_missing_plugin (void)
{
  GstRegistry *registry = gst_registry_get ();
  GstPlugin *plugin = gst_registry_find_plugin (registry, "plan");

  if (plugin) {
    gst_object_unref (plugin);
    return;
  }
  /* A plugin that failed to load is kept under its file name. */
  plugin = gst_registry_find_plugin (registry, "libgstplan.so");
  if (plugin && GST_OBJECT_FLAG_IS_SET (plugin, GST_PLUGIN_FLAG_BLACKLISTED)) {
    const gchar *file = gst_plugin_get_filename (plugin);

    g_printerr ("plan-launch: the gst-plan plugin %s failed to load "
        "(gst-inspect-1.0 %s says why)\n", file, file);
  } else {
    g_printerr ("plan-launch: GStreamer did not find the gst-plan plugin: "
        "set GST_PLUGIN_PATH to the folder of libgstplan.so (build/plugins "
        "in a build tree, " PLAN_PLUGIN_DIR " installed)\n");
  }
  gst_clear_object (&plugin);
}

static GstElement *
make_pipeline (gint argc, gchar ** argv)
{
  GstElement *pipeline;
  GError *err = NULL;

  if (g_str_has_suffix (argv[1], ".plan")) {
    gchar *path, *desc;

    if (!check_variables (argv + 2))
      return NULL;
    path = find_plan_file (argv[1], &err);
    desc = path ? read_plan_file (path, argv + 2, &err) : NULL;
    if (desc == NULL) {
      g_printerr ("plan-launch: %s\n", err->message);
      g_error_free (err);
      g_free (path);
      return NULL;
    }
    pipeline = gst_parse_launch_full (desc, NULL, GST_PARSE_FLAG_NONE, &err);
    /* GStreamer's message names no file: the file, and the line where
     * it can be told. */
    if (err) {
      guint line = parse_error_line (desc, err);
      gchar *message;

      if (g_error_matches (err, GST_PARSE_ERROR, GST_PARSE_ERROR_EMPTY))
        message = g_strdup_printf ("%s: no pipeline description in it "
            "(it is empty, or all comments)", path);
      else if (line)
        message = g_strdup_printf ("%s:%u: %s", path, line, err->message);
      else
        message = g_strdup_printf ("%s: %s", path, err->message);
      g_free (err->message);
      err->message = message;
    }
    g_free (desc);
    g_free (path);
  } else {
    pipeline = gst_parse_launchv ((const gchar **) argv + 1, &err);
  }
  if (pipeline == NULL || err != NULL) {
    g_printerr ("ERROR: pipeline could not be constructed: %s\n",
        err ? err->message : "unknown error");
    if (g_error_matches (err, GST_PARSE_ERROR,
            GST_PARSE_ERROR_NO_SUCH_ELEMENT))
      explain_missing_plugin ();
    /* a pipeline file named otherwise (pipe.txt) is taken for an element */
    if (g_error_matches (err, GST_PARSE_ERROR,
            GST_PARSE_ERROR_NO_SUCH_ELEMENT)
        && !g_str_has_suffix (argv[1], ".plan")
        && g_file_test (argv[1], G_FILE_TEST_IS_REGULAR))
      g_printerr ("plan-launch: %s is a file, not an element: the name of a "
          "pipeline file ends in .plan\n", argv[1]);
    if (g_error_matches (err, GST_PARSE_ERROR,
            GST_PARSE_ERROR_COULD_NOT_SET_PROPERTY))
      explain_property_value (err);
    if (g_error_matches (err, GST_PARSE_ERROR, GST_PARSE_ERROR_SYNTAX)
        && !g_str_has_suffix (argv[1], ".plan")
        && find_misplaced_option (argv + 1))
      g_printerr ("plan-launch: '%s' is a word of the pipeline description: "
          "options come before it\n", find_misplaced_option (argv + 1));
    g_clear_error (&err);
    gst_clear_object (&pipeline);
    return NULL;
  }
  /* A description of one element gives that element: wrap it. */
  if (!GST_IS_PIPELINE (pipeline)) {
    GstElement *bin = gst_pipeline_new (NULL);

    gst_bin_add (GST_BIN (bin), pipeline);
    pipeline = bin;
  }
  return pipeline;
}

/* Adds planstats to GST_TRACERS before gst_init reads it. */
static void
enable_stats_tracer (void)
{
  const gchar *tracers = g_getenv ("GST_TRACERS");
  gchar *value = tracers && *tracers ?
      g_strconcat (tracers, ";planstats", NULL) : g_strdup ("planstats");

  g_setenv ("GST_TRACERS", value, TRUE);
  g_free (value);
}

/* What @arg asks for: "help" (-h, --help, -?), "help-all" (the manual
 * and GStreamer's options, as gst-launch-1.0's --help-all lists all),
 * "help-gst", "version", or NULL. */
static const gchar *
help_word (const gchar * arg)
{
  if (g_str_equal (arg, "-h") || g_str_equal (arg, "--help")
      || g_str_equal (arg, "-?"))
    return "help";
  if (g_str_equal (arg, "--help-all"))
    return "help-all";
  if (g_str_equal (arg, "--help-gst"))
    return "help-gst";
  if (g_str_equal (arg, "--version"))
    return "version";
  return NULL;
}

/* The first help_word() among the options before the pipeline. */
static const gchar *
wants_help (gint argc, gchar ** argv)
{
  gint i;

  for (i = 1; i < argc; i++) {
    if (g_str_equal (argv[i], "--"))
      return NULL;
    if (help_word (argv[i]))
      return help_word (argv[i]);
    if (argv[i][0] != '-')
      return NULL;
  }
  return NULL;
}

/* GStreamer's own options (--gst-debug=...), which gst_init takes from
 * the command line; its option group prints them. */
static void
print_gst_help (void)
{
  GOptionContext *ctx = g_option_context_new ("PIPELINE-DESCRIPTION | "
      "FILE.plan [NAME=VALUE...]");
  GOptionGroup *group = gst_init_get_option_group ();
  gchar *text;

  g_option_context_add_group (ctx, group);
  text = g_option_context_get_help (ctx, FALSE, group);
  g_print ("%s", text);
  g_free (text);
  g_option_context_free (ctx);
}

static void
print_version (void)
{
  gchar *gst = gst_version_string ();

  g_print ("plan-launch %s (%s)\n%s\n", VERSION, GST_PACKAGE_NAME, gst);
  g_free (gst);
}

/* Prints what help_word() @asked for; returns the exit status. */
static gint
print_help (const gchar * asked)
{
  if (g_str_equal (asked, "version"))
    print_version ();
  if (g_str_equal (asked, "help") || g_str_equal (asked, "help-all"))
    g_print ("%s", help_text);
  if (g_str_equal (asked, "help-all"))
    g_print ("\n");
  if (g_str_equal (asked, "help-gst") || g_str_equal (asked, "help-all"))
    print_gst_help ();
  return stdout_errno ? EXIT_ERROR : EXIT_OK;
}

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
        "No progress, results or timing: only errors", NULL},
    {"messages", 'm', 0, G_OPTION_ARG_NONE, &messages,
        "Print element messages (such as planreduce results)", NULL},
    {"stats", 's', 0, G_OPTION_ARG_NONE, &stats,
        "Print a table of each element's buffers, rows, bytes and time", NULL},
    {"graph", 'g', 0, G_OPTION_ARG_FILENAME, &graph_path,
        "Write the pipeline graph to FILE (.svg, .png or .dot)", "FILE"},
    {"target", 'T', 0, G_OPTION_ARG_STRING, &target,
        "Set every kernel element's target (cpu, cuda, auto)", "TARGET"},
    {"eos-on-shutdown", 'e', 0, G_OPTION_ARG_NONE, &eos_on_shutdown,
        "On SIGINT, SIGTERM or SIGHUP send EOS instead of stopping at once", NULL},
    {"timeout", 't', 0, G_OPTION_ARG_DOUBLE, &timeout_s,
        "Give up after this many seconds (0 = never)", "SECONDS"},
    {NULL}
  };
  GOptionContext *ctx;
  GError *err = NULL;
  const gchar *asked;
  Run run = { 0, };
  gdouble seconds = 0;
  gint status;

  /* A write past the file size limit (ulimit -f) fails with EFBIG, which
   * the element that wrote says, file named, as Python's np.save says it,
   * rather than SIGXFSZ killing the process on whatever thread wrote (an
   * HDF5 file's last chunks are written as it closes). */
  signal (SIGXFSZ, SIG_IGN);
  hold_closed_standard_descriptors ();
  /* GLib converts what it prints to the locale's charset, and without
   * this the charset is ASCII: every non-ASCII character of a message (a
   * file name, a window's cell) would print as '?'. Numbers keep their
   * decimal point: the results are read back by programs. */
  /* GOption's usage line (--help-gst) names the program by it. */
  g_set_prgname ("plan-launch");
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  /* The C (POSIX) locale, the one of containers and cron jobs, has ASCII
   * as its charset, and a file named données.npy would print as
   * donn?es.npy, no longer the name given: there, as Python does, take
   * C.UTF-8's characters (where the system has it). */
  {
    const gchar *charset;

    if (!g_get_charset (&charset) && (g_str_equal (charset, "ANSI_X3.4-1968")
            || g_str_equal (charset, "ASCII")))
      setlocale (LC_CTYPE, "C.UTF-8");
  }
  g_set_print_handler (print_to_stdout);
  asked = wants_help (argc, argv);
  if (asked)
    return print_help (asked);
  ctx = g_option_context_new ("PIPELINE-DESCRIPTION | FILE.plan [NAME=VALUE...]");
  g_option_context_set_summary (ctx, "Runs a gst-plan pipeline; "
      "plan-launch --help for the manual.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  /* Options stop at the first pipeline word, so that a description's own
   * words (a negative number) stay its own; GStreamer's own options
   * (--gst-debug=...) are left for gst_init. */
  g_option_context_set_strict_posix (ctx, TRUE);
  g_option_context_set_ignore_unknown_options (ctx, TRUE);
  g_option_context_set_help_enabled (ctx, FALSE);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("plan-launch: %s\n", err->message);
    g_option_context_free (ctx);
    return EXIT_USAGE;
  }
  g_option_context_free (ctx);
  /* --help after options that take a value (plan-launch -t 5 --help) */
  if (argc >= 2 && help_word (argv[1]))
    return print_help (help_word (argv[1]));
  /* The tracer is created by gst_init, from GST_TRACERS. */
  if (stats)
    enable_stats_tracer ();
  if (!gst_init_check (&argc, &argv, &err)) {
    g_printerr ("plan-launch: %s\n", err->message);
    g_error_free (err);
    return EXIT_USAGE;
  }
  if (argc >= 2 && argv[1][0] == '-' && !g_str_equal (argv[1], "--")) {
    g_printerr ("plan-launch: unknown option %s (plan-launch --help)\n",
        argv[1]);
    return EXIT_USAGE;
  }
  if (argc >= 2 && g_str_equal (argv[1], "--")) {
    argv[1] = argv[0];
    argv++;
    argc--;
  }
  if (argc < 2) {
    g_printerr ("usage: plan-launch [OPTION...] PIPELINE-DESCRIPTION\n"
        "       plan-launch [OPTION...] FILE.plan [NAME=VALUE...]\n"
        "plan-launch --help for the manual\n");
    return EXIT_USAGE;
  }
  if (graph_path && !g_str_has_suffix (graph_path, ".svg")
      && !g_str_has_suffix (graph_path, ".png")
      && !g_str_has_suffix (graph_path, ".dot")) {
    g_printerr ("plan-launch: --graph=%s: the file name must end in .svg, "
        ".png or .dot\n", graph_path);
    return EXIT_USAGE;
  }
  if (isnan (timeout_s) || timeout_s < 0) {
    g_printerr ("plan-launch: --timeout=%g: give a number of seconds, 0 or "
        "more (0 or inf: never)\n", timeout_s);
    return EXIT_USAGE;
  }
  if (target && !g_str_equal (target, "cpu") && !g_str_equal (target, "cuda")
      && !g_str_equal (target, "auto")) {
    g_printerr ("plan-launch: --target=%s: give cpu, cuda or auto\n", target);
    return EXIT_USAGE;
  }

  run.pipeline = make_pipeline (argc, argv);
  if (run.pipeline == NULL)
    return EXIT_USAGE;
  if (target) {
    gint n = set_targets (run.pipeline, target);

    if (n < 0) {
      gst_object_unref (run.pipeline);
      return EXIT_USAGE;
    }
    if (n == 0)
      g_printerr ("plan-launch: --target=%s: the pipeline has no kernel "
          "element\n", target);
  }

  run.loop = g_main_loop_new (NULL, FALSE);
  /* A terminal that cannot move the cursor (TERM=dumb: Emacs's shell
   * mode, some CI logs on a pty) would show the bar's \r and escape
   * codes as they are: plain lines there. */
  run.tty = isatty (STDERR_FILENO) && g_strcmp0 (g_getenv ("TERM"),
      "dumb") != 0;
  run.progress = g_hash_table_new_full (NULL, NULL, gst_object_unref, g_free);
  run.results = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      (GDestroyNotify) gst_structure_free);
  run.result_order = g_ptr_array_new_with_free_func (g_free);

  status = run_pipeline (&run, &seconds);
  end_progress_line (&run);
  /* Interrupted: whatever the pipeline did after (with -e, an error from a
   * sink given a stream cut short), the status says so. */
  if (run.signal_number)
    status = 128 + run.signal_number;

  /* With -e, an interrupted run that reached its EOS has results over
   * the rows that came, which is what the EOS was sent for. */
  if (!quiet && (status == EXIT_OK || (run.eos_reached && run.signal_number)))
    print_results (&run);
  if (stats)
    print_stats (seconds);
  /* Before NULL, so that the caps are still there. */
  if (graph_path && !write_graph (run.pipeline, graph_path)
      && status == EXIT_OK)
    status = EXIT_GRAPH;

  stop_pipeline (&run, status);
  if (!quiet && status == EXIT_OK)
    g_print ("Execution ended after %.3f s\n", seconds);
  if (stdout_errno != 0) {
    g_printerr ("plan-launch: could not write the results to standard "
        "output: %s\n", g_strerror (stdout_errno));
    if (status == EXIT_OK)
      status = EXIT_ERROR;
  }

  g_hash_table_unref (run.progress);
  g_hash_table_unref (run.results);
  g_ptr_array_unref (run.result_order);
  g_main_loop_unref (run.loop);
  gst_object_unref (run.pipeline);
  g_free (graph_path);
  g_free (target);
  if (run.signal_number) {
    /* Stopped by a signal, the outputs' temporary files removed: end now,
     * as the signal would have. exit() would finalize MPI in a rank of an
     * MPI job, which waits for every rank, and mpirun sends its SIGTERM
     * when a rank died, which never comes. */
    fflush (NULL);
    _exit (status);
  }
  return status;
}
