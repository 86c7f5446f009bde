/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Stress within CI's time: many NULL <-> PLAYING cycles without a leak
 * (live objects counted by GStreamer's leaks tracer), many pipelines at
 * once in one process, storms of EOS events and of flushing seeks. Each
 * test takes a few seconds at most; the expected values are computed here
 * with plain arithmetic. docs/reliability.md lists each with its test. */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>

#include <glib/gstdio.h>
#include <string.h>

/* NULL <-> PLAYING cycles: 10,000 (PLAN_STRESS_CYCLES sets another number:
 * the valgrind run takes 20). */
#define DEFAULT_CYCLES 10000
#define N_PIPELINES 64
#define ROWS 2000

static gchar *tmpdir;
static gchar *input;            /* ROWS float64: i % 97 - 40 */

static gdouble
in_value (guint64 i)
{
  return (gdouble) (gint) (i % 97) - 40;
}

static void
setup (void)
{
  gdouble *data = g_new (gdouble, ROWS);
  const gint64 shape[1] = { ROWS };
  PlanArrayInfo info;
  gsize header;
  guint8 *file;
  guint i;

  tmpdir = g_dir_make_tmp ("stress-XXXXXX", NULL);
  fail_unless (tmpdir != NULL);
  for (i = 0; i < ROWS; i++)
    data[i] = in_value (i);
  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT64, 1, shape,
          NULL));
  header = plan_npy_get_header_size (&info);
  file = g_malloc (header + ROWS * sizeof (gdouble));
  fail_unless (plan_npy_write_header (&info, file, header, NULL));
  memcpy (file + header, data, ROWS * sizeof (gdouble));
  input = g_build_filename (tmpdir, "in.npy", NULL);
  fail_unless (g_file_set_contents (input, (gchar *) file,
          header + ROWS * sizeof (gdouble), NULL));
  g_free (file);
  g_free (data);
}

static void
teardown (void)
{
  GDir *dir = g_dir_open (tmpdir, 0, NULL);
  const gchar *name;

  while ((name = g_dir_read_name (dir))) {
    gchar *p = g_build_filename (tmpdir, name, NULL);

    g_unlink (p);
    g_free (p);
  }
  g_dir_close (dir);
  g_rmdir (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
  g_clear_pointer (&input, g_free);
}

/* The values of a .npy of float64 written by planfilesink. */
static gdouble *
read_output (const gchar * path, gsize * n)
{
  gchar *contents;
  gsize len, header;
  PlanArrayInfo info;
  gdouble *values;

  fail_unless (g_file_get_contents (path, &contents, &len, NULL), "%s", path);
  fail_unless (plan_npy_parse_header ((guint8 *) contents, len, &info,
          &header, NULL));
  fail_unless_equals_int (info.dtype, PLAN_DTYPE_FLOAT64);
  *n = (len - header) / sizeof (gdouble);
  values = g_memdup2 (contents + header, *n * sizeof (gdouble));
  g_free (contents);
  return values;
}

static GstElement *
launch (const gchar * fmt, ...)
{
  GError *err = NULL;
  GstElement *p;
  gchar *desc;
  va_list args;

  va_start (args, fmt);
  desc = g_strdup_vprintf (fmt, args);
  va_end (args);
  p = gst_parse_launch (desc, &err);
  fail_unless (p != NULL && err == NULL, "%s: %s", desc,
      err ? err->message : "");
  g_free (desc);
  return p;
}

/* Runs @p from NULL to the end; returns the EOS or ERROR message. */
static GstMessage *
run_to_end (GstElement * p, GstState from)
{
  GstMessage *msg;

  if (from != GST_STATE_PLAYING)
    fail_if (gst_element_set_state (p, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no EOS within 10 s");
  return msg;
}

/* A tracer that counts the GstObjects and GstMiniObjects alive (every
 * pad, element, buffer, event, query, caps, message ...). */
typedef GstTracer CountTracer;
typedef GstTracerClass CountTracerClass;

GType count_tracer_get_type (void);
G_DEFINE_TYPE (CountTracer, count_tracer, GST_TYPE_TRACER);

static gint n_live;

static void
created (GObject * tracer, GstClockTime ts, gpointer object)
{
  g_atomic_int_inc (&n_live);
}

static void
destroyed (GObject * tracer, GstClockTime ts, gpointer object)
{
  g_atomic_int_add (&n_live, -1);
}

static void
count_tracer_class_init (CountTracerClass * klass)
{
}

static void
count_tracer_init (CountTracer * self)
{
  gst_tracing_register_hook (self, "object-created", G_CALLBACK (created));
  gst_tracing_register_hook (self, "object-destroyed", G_CALLBACK (destroyed));
  gst_tracing_register_hook (self, "mini-object-created",
      G_CALLBACK (created));
  gst_tracing_register_hook (self, "mini-object-destroyed",
      G_CALLBACK (destroyed));
}

/* Objects alive, once the messages left on @p's bus (state changes,
 * which a run never pops) are dropped. */
static guint
live_objects (GstElement * p)
{
  gst_bus_set_flushing (GST_ELEMENT_BUS (p), TRUE);
  gst_bus_set_flushing (GST_ELEMENT_BUS (p), FALSE);
  return g_atomic_int_get (&n_live);
}

/* NULL -> PLAYING -> EOS -> NULL, again and again: the same objects are
 * alive after as before (pads, buffers, pools, events, queries, caps, ...:
 * every GstObject and GstMiniObject), and each run computes the map. */
GST_START_TEST (test_cycles_do_not_leak)
{
  gchar *out = g_build_filename (tmpdir, "out.npy", NULL);
  GstElement *p = launch ("planfilesrc location=%s blocksize=4000 ! "
      "planmap expr=\"x * 2 + 1\" ! planfilesink location=%s", input, out);
  GTimer *timer = g_timer_new ();
  const gchar *env = g_getenv ("PLAN_STRESS_CYCLES");
  guint n_cycles = env ? (guint) g_ascii_strtoull (env, NULL, 10) :
      DEFAULT_CYCLES;
  guint before, after, cycles = 0, i;
  gdouble *values;
  gsize n;

  for (i = 0; i < 10; i++) {
    GstMessage *msg = run_to_end (p, GST_STATE_NULL);

    fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
    gst_message_unref (msg);
    gst_element_set_state (p, GST_STATE_NULL);
  }
  before = live_objects (p);
  g_timer_start (timer);
  while (cycles < n_cycles) {
    GstMessage *msg = run_to_end (p, GST_STATE_NULL);

    fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "cycle %u",
        cycles);
    gst_message_unref (msg);
    fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
    cycles++;
  }
  after = live_objects (p);
  g_printerr ("%u NULL <-> PLAYING cycles in %.1f s, %u live objects "
      "before and %u after\n", cycles, g_timer_elapsed (timer, NULL), before,
      after);
  /* A leak grows with the cycles (a buffer, a pad, an event per cycle
   * would be hundreds more). One or two objects either way are the
   * pipeline's own between two moments (a clock entry, a message), seen
   * in about one run in five. */
  fail_unless (after <= before + 2, "%u objects leaked in %u cycles",
      after - before, cycles);

  values = read_output (out, &n);
  fail_unless_equals_int (n, ROWS);
  for (i = 0; i < ROWS; i++)
    fail_unless_equals_float (values[i], in_value (i) * 2 + 1);
  g_free (values);
  g_timer_destroy (timer);
  gst_object_unref (p);
  g_free (out);
}

GST_END_TEST;

/* 64 pipelines in one process at once, each with its own expression,
 * sharing the worker threads and the device layer: every output right. */
GST_START_TEST (test_many_pipelines_at_once)
{
  GstElement *p[N_PIPELINES];
  gchar *out[N_PIPELINES];
  guint i, k;

  for (i = 0; i < N_PIPELINES; i++) {
    gchar *name = g_strdup_printf ("out%u.npy", i);

    out[i] = g_build_filename (tmpdir, name, NULL);
    g_free (name);
    p[i] = launch ("planfilesrc location=%s blocksize=1600 ! planmap "
        "expr=\"x * %u - 1\" ! planfilesink location=%s", input, i, out[i]);
  }
  for (i = 0; i < N_PIPELINES; i++)
    fail_if (gst_element_set_state (p[i], GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < N_PIPELINES; i++) {
    GstMessage *msg = run_to_end (p[i], GST_STATE_PLAYING);
    gdouble *values;
    gsize n;

    fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "pipeline %u", i);
    gst_message_unref (msg);
    gst_element_set_state (p[i], GST_STATE_NULL);
    values = read_output (out[i], &n);
    fail_unless_equals_int (n, ROWS);
    for (k = 0; k < ROWS; k++)
      fail_unless (values[k] == in_value (k) * i - 1, "pipeline %u row %u",
          i, k);
    g_free (values);
    gst_object_unref (p[i]);
    g_free (out[i]);
  }
}

GST_END_TEST;

/* EOS sent to a playing pipeline again and again, through map, reduce
 * and stencil: every run ends with the EOS message (an EOS the application
 * sends ends the stream on purpose where it reaches planfilesrc, no
 * truncation), never a hang or an error, and the next run is right. */
GST_START_TEST (test_eos_storm)
{
  const gchar *elements[] = { "planmap expr=\"x + 1\"",
    "planreduce op=sum", "planstencil window=\"x _ z\" expr=\"x + z\""
  };
  guint e, run, k;

  for (e = 0; e < G_N_ELEMENTS (elements); e++) {
    GstElement *p = launch ("planfilesrc location=%s blocksize=80 ! "
        "identity sleep-time=100 ! %s ! fakesink", input, elements[e]);

    for (run = 0; run < 10; run++) {
      GstMessage *msg;

      fail_if (gst_element_set_state (p, GST_STATE_PLAYING) ==
          GST_STATE_CHANGE_FAILURE);
      /* The storm hits a pipeline that plays, as `gst-launch-1.0 -e` sends
       * its EOS. While the sink prerolls, GStreamer itself deadlocks:
       * gst_element_send_event() holds the pipeline's state lock, the
       * source (a GstBaseSrc) waits under it for its streaming thread,
       * that thread waits behind the prerolled sink, and the sink waits
       * for PLAYING, which the bin can only set with that lock. */
      fail_unless_equals_int (gst_element_get_state (p, NULL, NULL,
              10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
      for (k = 0; k < 20; k++) {
        gst_element_send_event (p, gst_event_new_eos ());
        g_usleep (200);
      }
      msg = run_to_end (p, GST_STATE_PLAYING);
      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
        GError *err = NULL;

        gst_message_parse_error (msg, &err, NULL);
        fail ("%s, run %u: %s", elements[e], run, err->message);
        g_error_free (err);
      }
      gst_message_unref (msg);
      fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
          GST_STATE_CHANGE_SUCCESS);
    }
    /* Undisturbed, the same pipeline still runs to its end. */
    {
      GstMessage *msg = run_to_end (p, GST_STATE_NULL);

      fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s",
          elements[e]);
      gst_message_unref (msg);
      gst_element_set_state (p, GST_STATE_NULL);
    }
    gst_object_unref (p);
  }
}

GST_END_TEST;

/* x + z of the window "x _ z" at row i of rows [a, b), constant 0 outside
 * the range (the rows sought are a stream of their own). */
static gdouble
stencil_at (guint64 a, guint64 b, guint64 i)
{
  gdouble x = i > a ? in_value (i - 1) : 0, z = i + 1 < b ? in_value (i + 1) : 0;

  return x + z;
}

/* What the storms run between planfilesrc and planfilesink: nothing, map,
 * reduce and stencil. */
enum
{
  THROUGH_NOTHING,
  THROUGH_MAP,
  THROUGH_REDUCE,
  THROUGH_STENCIL,
  N_THROUGH
};

static const gchar *const through[N_THROUGH] = { "",
  "planmap expr=\"x * 3\" ! ", "planreduce op=sum ! ",
  "planstencil window=\"x _ z\" expr=\"x + z\" ! "
};

/* The output at @out is that of rows [a, b) through @e. */
static void
check_range_output (const gchar * out, guint e, guint64 a, guint64 b)
{
  gdouble *values;
  gsize n;
  guint64 i;

  values = read_output (out, &n);
  if (e == THROUGH_REDUCE) {
    gdouble sum = 0;

    for (i = a; i < b; i++)
      sum += in_value (i);
    fail_unless_equals_int (n, 1);
    fail_unless_equals_float (values[0], sum);
  } else {
    fail_unless (n == b - a, "%s: %" G_GSIZE_FORMAT " rows, not the %"
        G_GUINT64_FORMAT " of [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
        ")", through[e], n, b - a, a, b);
    for (i = a; i < b; i++)
      fail_unless_equals_float (values[i - a], e == THROUGH_MAP ?
          in_value (i) * 3 : e == THROUGH_STENCIL ? stencil_at (a, b, i) :
          in_value (i));
  }
  g_free (values);
}

/* A flushing seek to rows [start, stop); returns its seqnum, which the
 * EOS message of the range carries. */
static guint32
seek_rows (GstElement * p, gint64 start, gint64 stop)
{
  GstEvent *seek = gst_event_new_seek (1.0, GST_FORMAT_DEFAULT,
      GST_SEEK_FLAG_FLUSH, GST_SEEK_TYPE_SET, start, GST_SEEK_TYPE_SET, stop);
  guint32 seqnum = gst_event_get_seqnum (seek);

  fail_unless (gst_element_send_event (p, seek), "seek to [%" G_GINT64_FORMAT
      ", %" G_GINT64_FORMAT ") refused", start, stop);
  return seqnum;
}

static void
pause_and_wait (GstElement * p)
{
  fail_if (gst_element_set_state (p, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE);
  fail_if (gst_element_get_state (p, NULL, NULL, 10 * GST_SECOND) !=
      GST_STATE_CHANGE_SUCCESS);
}

/* Fifty flushing seeks in a row in PAUSED, to ranges all over the array,
 * with no wait between them, then a last one: the output is the last
 * range's, as computed here, through map, reduce and stencil. (Seeks while
 * playing, every few chunks: test_stress.py.) */
GST_START_TEST (test_flush_storm)
{
  const guint64 a = 321, b = 1777;
  guint e, k;

  for (e = THROUGH_MAP; e < N_THROUGH; e++) {
    gchar *out = g_build_filename (tmpdir, "storm.npy", NULL);
    GstElement *p = launch ("planfilesrc location=%s blocksize=800 ! %s"
        "planfilesink location=%s", input, through[e], out);
    GRand *rand = g_rand_new_with_seed (e);
    GstMessage *msg;

    pause_and_wait (p);
    for (k = 0; k < 50; k++) {
      gint64 start = g_rand_int_range (rand, 0, ROWS - 10);
      gint64 stop = g_rand_int_range (rand, start + 5, ROWS);

      seek_rows (p, start, stop);
    }
    seek_rows (p, a, b);
    msg = run_to_end (p, GST_STATE_PAUSED);
    fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s",
        through[e]);
    gst_message_unref (msg);
    gst_element_set_state (p, GST_STATE_NULL);

    check_range_output (out, e, a, b);
    g_rand_free (rand);
    gst_object_unref (p);
    g_free (out);
  }
}

GST_END_TEST;

/* Flushing seeks in PAUSED, each followed by a spell of PLAYING of up to
 * 2 ms and PAUSED again, so that ranges end (EOS) while the pipeline
 * plays, while it goes to PAUSED (GstBin then keeps the sink's EOS
 * message past the flush that follows) and not at all; then a last range
 * played to its end. Ten times per pipeline: each last range ends with
 * its own EOS (the seqnum of its seek), never an earlier range's, and the
 * output is its rows, through nothing, map, reduce and stencil. */
#define SPELLS 3
#define CHECKS 10

GST_START_TEST (test_flush_storm_playing_spells)
{
  guint e, c, k;

  for (e = 0; e < N_THROUGH; e++) {
    gchar *out = g_build_filename (tmpdir, "spells.npy", NULL);
    GstElement *p = launch ("planfilesrc location=%s blocksize=800 ! %s"
        "planfilesink location=%s", input, through[e], out);
    GstBus *bus = GST_ELEMENT_BUS (p);
    GRand *rand = g_rand_new_with_seed (100 + e);

    pause_and_wait (p);
    for (c = 0; c < CHECKS; c++) {
      gint64 a, b;
      guint32 seqnum;
      GstMessage *msg;

      for (k = 0; k < SPELLS; k++) {
        gint64 start = g_rand_int_range (rand, 0, ROWS - 10);

        seek_rows (p, start, g_rand_int_range (rand, start + 5, ROWS));
        fail_if (gst_element_set_state (p, GST_STATE_PLAYING) ==
            GST_STATE_CHANGE_FAILURE);
        g_usleep (g_rand_int_range (rand, 0, 2000));
        pause_and_wait (p);
      }
      /* The EOS messages of ranges that ended while playing; no error
       * (a range the seek after it interrupts is not taken for one cut
       * short). */
      while ((msg = gst_bus_pop (bus))) {
        if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
          GError *err = NULL;
          gchar *debug = NULL;

          gst_message_parse_error (msg, &err, &debug);
          fail ("%scheck %u: %s (%s)", through[e], c, err->message,
              GST_STR_NULL (debug));
        }
        gst_message_unref (msg);
      }

      a = g_rand_int_range (rand, 0, ROWS / 2);
      b = g_rand_int_range (rand, a + 100, ROWS);
      seqnum = seek_rows (p, a, b);
      msg = run_to_end (p, GST_STATE_PAUSED);
      fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s",
          through[e]);
      fail_unless (gst_message_get_seqnum (msg) == seqnum, "%scheck %u: "
          "the EOS of an earlier range (seqnum %u), not of rows [%"
          G_GINT64_FORMAT ", %" G_GINT64_FORMAT ") (seqnum %u)", through[e],
          c, gst_message_get_seqnum (msg), a, b, seqnum);
      gst_message_unref (msg);
      check_range_output (out, e, a, b);
      pause_and_wait (p);
    }
    gst_element_set_state (p, GST_STATE_NULL);
    g_rand_free (rand);
    gst_object_unref (p);
    g_free (out);
  }
}

GST_END_TEST;

/* PLAYING and PAUSED in turn, 40 spells of up to 2 ms, while the sink
 * writes one chunk at a time behind (max-pending=1: it often waits for
 * its writer when PAUSED comes), then PLAYING to the end: every row is
 * written once, in order, through nothing, map, reduce and stencil. */
GST_START_TEST (test_pause_storm)
{
  guint e, k;

  for (e = 0; e < N_THROUGH; e++) {
    gchar *out = g_build_filename (tmpdir, "pause.npy", NULL);
    GstElement *p = launch ("planfilesrc location=%s blocksize=8 ! %s"
        "planfilesink location=%s max-pending=1", input, through[e], out);
    GRand *rand = g_rand_new_with_seed (200 + e);
    GstMessage *msg;

    pause_and_wait (p);
    for (k = 0; k < 40; k++) {
      fail_if (gst_element_set_state (p, GST_STATE_PLAYING) ==
          GST_STATE_CHANGE_FAILURE);
      g_usleep (g_rand_int_range (rand, 0, 2000));
      pause_and_wait (p);
    }
    msg = run_to_end (p, GST_STATE_PAUSED);
    fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s",
        through[e]);
    gst_message_unref (msg);
    gst_element_set_state (p, GST_STATE_NULL);

    check_range_output (out, e, 0, ROWS);
    g_rand_free (rand);
    gst_object_unref (p);
    g_free (out);
  }
}

GST_END_TEST;

static Suite *
stress_suite (void)
{
  Suite *s = suite_create ("stress");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 180);
  tcase_add_test (tc, test_cycles_do_not_leak);
  tcase_add_test (tc, test_many_pipelines_at_once);
  tcase_add_test (tc, test_eos_storm);
  tcase_add_test (tc, test_flush_storm);
  tcase_add_test (tc, test_flush_storm_playing_spells);
  tcase_add_test (tc, test_pause_storm);
  return s;
}

int
main (int argc, char **argv)
{
  CountTracer *tracer;
  gint ret;

  /* Tracing hooks run only when a tracer is named at gst_init. */
  g_setenv ("GST_TRACERS", "log", TRUE);
  gst_check_init (&argc, &argv);
  tracer = g_object_new (count_tracer_get_type (), NULL);
  ret = gst_check_run_suite (stress_suite (), "stress", __FILE__);
  gst_object_unref (tracer);
  return ret;
}
