/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Seeks a pipeline in rows or bytes under gst-validate's monitors.
 *
 *   seekdriver [--array NAME=IN.npy]... [--collect NAME=OUT.npy]...
 *       paused|playing|cycles PIPELINE SEEK...
 *
 * Each SEEK is rows:START:STOP, bytes:START:STOP or ms:START:STOP (time in
 * milliseconds, for rows sampled in time; STOP -1: to the end), made as a
 * flushing seek on the pipeline, accurate in rows and time (ms~:START:STOP
 * is a seek in time that is not: validate compares an accurate seek's
 * start with the time of every segment that follows, those of an upstream
 * sought in rows too). In `paused` every
 * seek is made in PAUSED and the pipeline then plays the last range to
 * EOS; in `playing` the pipeline plays and the seeks come while it does
 * (the last one's range is played to EOS). Each seek waits for the one
 * before it to be answered: for a segment of its seqnum at a sink (a seek
 * sent while another one's flush goes through is refused by the flushing
 * pads). test_validate.py checks the files the pipeline writes against
 * numpy.
 *
 * `cycles` first takes the pipeline from NULL to PLAYING and back 40
 * times, as gst-validate's change_state_intensive does, at random moments
 * of the run, then plays it as `playing`.
 *
 * planarraysrc and planarraysink, which an application feeds, are driven
 * here: --array binds the array of a .npy file to the planarraysrc named
 * NAME (plan_array_src_set_array), --collect saves the array the
 * planarraysink named NAME collected to a .npy file at the EOS.
 *
 * Prints every issue validate reported; exits 0 when there was none, 1
 * when there were issues, a seek was refused or the pipeline failed. */

#include <gst/gst.h>
#include <gst/validate/validate.h>
#include <libplan/plan.h>

#include <stdlib.h>
#include <string.h>

/* The seqnum of the last segment a sink received. */
static GMutex lock;
static GCond cond;
static guint32 last_segment_seqnum = GST_SEQNUM_INVALID;

static GstPadProbeReturn
segment_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);

  if (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT) {
    g_mutex_lock (&lock);
    last_segment_seqnum = gst_event_get_seqnum (event);
    g_cond_broadcast (&cond);
    g_mutex_unlock (&lock);
  }
  return GST_PAD_PROBE_OK;
}

static void
watch_sink (const GValue * value, gpointer data)
{
  GstElement *element = g_value_get_object (value);
  GstIterator *pads = gst_element_iterate_sink_pads (element);
  GValue item = G_VALUE_INIT;

  while (gst_iterator_next (pads, &item) == GST_ITERATOR_OK) {
    gst_pad_add_probe (g_value_get_object (&item),
        GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, segment_probe, NULL, NULL);
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (pads);
}

/* Waits up to 10 s for a segment of @seqnum at a sink. */
static gboolean
wait_segment (guint32 seqnum)
{
  gint64 end = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  gboolean ok = TRUE;

  g_mutex_lock (&lock);
  while (ok && last_segment_seqnum != seqnum)
    ok = g_cond_wait_until (&cond, &lock, end);
  g_mutex_unlock (&lock);
  return ok;
}

static gboolean
parse_seek (const gchar * spec, GstEvent ** seek)
{
  gchar **parts = g_strsplit (spec, ":", -1);
  GstFormat format;
  gint64 start, stop;
  gboolean ok = g_strv_length (parts) == 3, accurate = TRUE;

  if (ok && strcmp (parts[0], "rows") == 0)
    format = GST_FORMAT_DEFAULT;
  else if (ok && strcmp (parts[0], "bytes") == 0)
    format = GST_FORMAT_BYTES;
  else if (ok && strcmp (parts[0], "ms") == 0)
    format = GST_FORMAT_TIME;
  else if (ok && strcmp (parts[0], "ms~") == 0) {
    format = GST_FORMAT_TIME;
    accurate = FALSE;
  } else
    ok = FALSE;
  if (ok) {
    start = g_ascii_strtoll (parts[1], NULL, 10);
    stop = g_ascii_strtoll (parts[2], NULL, 10);
    if (format == GST_FORMAT_TIME) {
      start *= GST_MSECOND;
      stop = stop < 0 ? stop : stop * (gint64) GST_MSECOND;
    }
    /* Not accurate in bytes: validate compares an accurate seek's start
     * with the time of the segment that follows, whose format is rows. */
    *seek = gst_event_new_seek (1.0, format, GST_SEEK_FLAG_FLUSH |
        (format != GST_FORMAT_BYTES && accurate ? GST_SEEK_FLAG_ACCURATE :
            0),
        GST_SEEK_TYPE_SET, start,
        stop < 0 ? GST_SEEK_TYPE_NONE : GST_SEEK_TYPE_SET, stop);
  }
  g_strfreev (parts);
  return ok;
}

/* Waits for the EOS of @seqnum (the last seek's; a range before it may
 * have ended while playing) or an error; returns whether that EOS came. */
static gboolean
wait_eos (GstElement * pipeline, guint32 seqnum)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  gboolean eos;

  while ((msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR))
      && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS
      && seqnum != GST_SEQNUM_INVALID
      && gst_message_get_seqnum (msg) != seqnum)
    gst_message_unref (msg);
  eos = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;

  if (msg == NULL)
    g_printerr ("no EOS within 60 s\n");
  else if (!eos) {
    GError *err = NULL;
    gchar *debug = NULL;

    gst_message_parse_error (msg, &err, &debug);
    g_printerr ("error from %s: %s (%s)\n", GST_OBJECT_NAME (msg->src),
        err->message, GST_STR_NULL (debug));
    g_error_free (err);
    g_free (debug);
  }
  gst_clear_message (&msg);
  gst_object_unref (bus);
  return eos;
}

/* Binds each NAME=IN.npy of @arrays to the planarraysrc NAME. */
static gboolean
bind_arrays (GstElement * pipeline, GPtrArray * arrays)
{
  guint i;

  for (i = 0; i < arrays->len; i++) {
    gchar **kv = g_strsplit (arrays->pdata[i], "=", 2);
    GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), kv[0]);
    GError *err = NULL;
    PlanArray *array = kv[1] ? plan_array_load_npy (kv[1], &err) : NULL;
    gboolean ok = src && PLAN_IS_ARRAY_SRC (src) && array;

    if (ok)
      plan_array_src_set_array (PLAN_ARRAY_SRC (src), array);
    else
      g_printerr ("--array %s: %s\n", (gchar *) arrays->pdata[i],
          err ? err->message : "no planarraysrc of that name");
    g_clear_error (&err);
    if (array)
      g_object_unref (array);
    gst_clear_object (&src);
    g_strfreev (kv);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

/* Saves what the planarraysink of each NAME=OUT.npy of @collects
 * collected. */
static gboolean
save_collected (GstElement * pipeline, GPtrArray * collects)
{
  guint i;

  for (i = 0; i < collects->len; i++) {
    gchar **kv = g_strsplit (collects->pdata[i], "=", 2);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), kv[0]);
    PlanArray *array = sink && PLAN_IS_ARRAY_SINK (sink) ?
        plan_array_sink_get_array (PLAN_ARRAY_SINK (sink)) : NULL;
    GError *err = NULL;
    gboolean ok = array && kv[1] && plan_array_save_npy (array, kv[1], &err);

    if (!ok)
      g_printerr ("--collect %s: %s\n", (gchar *) collects->pdata[i],
          err ? err->message : "no array collected");
    g_clear_error (&err);
    if (array)
      g_object_unref (array);
    gst_clear_object (&sink);
    g_strfreev (kv);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

/* change_state_intensive's cycles: PLAYING, then NULL a random moment
 * later (up to 20 ms: most cycles end before or while data flows). */
static gboolean
state_cycles (GstElement * pipeline, guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE) {
      g_printerr ("cycle %u: the pipeline did not start\n", i + 1);
      return FALSE;
    }
    g_usleep (g_random_int_range (0, 20000));
    if (gst_element_set_state (pipeline, GST_STATE_NULL) ==
        GST_STATE_CHANGE_FAILURE) {
      g_printerr ("cycle %u: the pipeline did not stop\n", i + 1);
      return FALSE;
    }
  }
  return TRUE;
}

int
main (int argc, char **argv)
{
  GstValidateRunner *runner;
  GstValidateMonitor *monitor;
  GstElement *pipeline;
  GError *err = NULL;
  gboolean playing, cycles, ok = TRUE;
  GPtrArray *arrays = g_ptr_array_new (), *collects = g_ptr_array_new ();
  guint32 last_seqnum = GST_SEQNUM_INVALID;
  GList *reports, *l;
  guint n_reports;
  int i;

  gst_init (&argc, &argv);
  gst_validate_init ();
  while (argc >= 3 && (strcmp (argv[1], "--array") == 0
          || strcmp (argv[1], "--collect") == 0)) {
    g_ptr_array_add (strcmp (argv[1], "--array") == 0 ? arrays : collects,
        argv[2]);
    argc -= 2;
    argv += 2;
  }
  if (argc < 3 || (strcmp (argv[1], "paused") != 0
          && strcmp (argv[1], "playing") != 0
          && strcmp (argv[1], "cycles") != 0)) {
    g_printerr ("usage: seekdriver [--array NAME=IN.npy]... "
        "[--collect NAME=OUT.npy]... paused|playing|cycles PIPELINE "
        "rows|bytes|ms|ms~:START:STOP...\n");
    return 2;
  }
  cycles = strcmp (argv[1], "cycles") == 0;
  playing = cycles || strcmp (argv[1], "playing") == 0;
  pipeline = gst_parse_launch (argv[2], &err);
  if (pipeline == NULL) {
    g_printerr ("%s: %s\n", argv[2], err->message);
    g_error_free (err);
    return 2;
  }
  if (!bind_arrays (pipeline, arrays))
    return 2;
  runner = gst_validate_runner_new ();
  monitor = gst_validate_monitor_factory_create (GST_OBJECT (pipeline),
      runner, NULL);
  {
    GstIterator *sinks = gst_bin_iterate_sinks (GST_BIN (pipeline));

    gst_iterator_foreach (sinks, watch_sink, NULL);
    gst_iterator_free (sinks);
  }

  if (cycles)
    ok = state_cycles (pipeline, 40);
  if (ok && (gst_element_set_state (pipeline, playing ? GST_STATE_PLAYING :
              GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE
          || gst_element_get_state (pipeline, NULL, NULL, 30 * GST_SECOND) ==
          GST_STATE_CHANGE_FAILURE)) {
    g_printerr ("the pipeline did not start\n");
    ok = FALSE;
  }
  for (i = 3; ok && i < argc; i++) {
    GstEvent *seek;
    guint32 seqnum;

    if (!parse_seek (argv[i], &seek)) {
      g_printerr ("not a seek: %s\n", argv[i]);
      ok = FALSE;
      break;
    }
    seqnum = last_seqnum = gst_event_get_seqnum (seek);
    if (!gst_element_send_event (pipeline, seek)) {
      g_printerr ("seek %s refused\n", argv[i]);
      ok = FALSE;
    } else if (!wait_segment (seqnum)) {
      g_printerr ("no segment answered seek %s within 10 s\n", argv[i]);
      ok = FALSE;
    }
  }
  if (ok && !playing && gst_element_set_state (pipeline, GST_STATE_PLAYING)
      == GST_STATE_CHANGE_FAILURE) {
    g_printerr ("the pipeline did not play\n");
    ok = FALSE;
  }
  if (ok)
    ok = wait_eos (pipeline, last_seqnum);
  if (ok)
    ok = save_collected (pipeline, collects);
  gst_element_set_state (pipeline, GST_STATE_NULL);

  reports = gst_validate_runner_get_reports (runner);
  n_reports = g_list_length (reports);
  for (l = reports; l; l = l->next)
    gst_validate_report_printf (l->data);
  g_list_free_full (reports, (GDestroyNotify) gst_validate_report_unref);
  g_print ("%u issues\n", n_reports);

  gst_object_unref (monitor);
  gst_object_unref (pipeline);
  gst_object_unref (runner);
  g_ptr_array_unref (arrays);
  g_ptr_array_unref (collects);
  gst_validate_deinit ();
  return ok && n_reports == 0 ? 0 : 1;
}
