/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What GStreamer's design asks of every element's output, checked on real
 * pipelines by a probe before the sink (the rules gst-validate's monitors
 * check, here without it): the first buffer after a stream start, a
 * segment or a flush carries DISCONT, and every event an element makes in
 * answer to another (the segment and GAP after a seek, the segment that
 * stands for upstream's, the EOS that ends it) carries that event's
 * seqnum; an element whose source pad pushes from upstream's thread keeps
 * that pad active until a push under way is done when it stops. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <libplan/plan.h>

#include <glib/gstdio.h>
#include <string.h>

#define ROWS 200
#define COLS 10

static gchar *tmpdir;
static gchar *input;            /* ROWS x COLS float32 */

static void
setup (void)
{
  const gint64 shape[2] = { ROWS, COLS };
  gsize header, size = ROWS * COLS * sizeof (gfloat);
  PlanArrayInfo info;
  gfloat *data;
  guint8 *file;
  guint i;

  tmpdir = g_dir_make_tmp ("conformance-XXXXXX", NULL);
  fail_unless (tmpdir != NULL);
  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT32, 2, shape,
          NULL));
  header = plan_npy_get_header_size (&info);
  file = g_malloc (header + size);
  fail_unless (plan_npy_write_header (&info, file, header, NULL));
  data = (gfloat *) (file + header);
  for (i = 0; i < ROWS * COLS; i++)
    data[i] = (gfloat) (i % 13) - 6;
  input = g_build_filename (tmpdir, "in.npy", NULL);
  fail_unless (g_file_set_contents (input, (gchar *) file, header + size,
          NULL));
  g_free (file);
}

static void
teardown (void)
{
  g_unlink (input);
  g_rmdir (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
  g_clear_pointer (&input, g_free);
}

/* What the sink received, as the probe saw it. */
typedef struct
{
  GMutex lock;
  gboolean pending_discont;     /* a buffer is due with DISCONT */
  guint missing_discont;        /* buffers that came without it */
  guint n_buffers;
  guint64 first_offset;         /* of the first buffer counted */
  guint64 rows;                 /* in the buffers counted */
  guint n_segments;
  guint n_flushes;
  guint32 segment_seqnum;       /* the last segment's */
  guint64 segment_time;         /* the last segment's time */
  guint32 bad_seqnum;           /* an event's seqnum that was not... */
  guint32 want_seqnum;          /* ...this one, or 0 */
  gchar *bad_event;             /* which event that was */
  guint32 expect;               /* every segment, GAP and EOS from now on
                                 * answers the event of this seqnum, or 0 */
  gboolean gap;
  gboolean eos;
} Watch;

static void
check_seqnum (Watch * w, GstEvent * event, guint32 want)
{
  if (w->bad_event == NULL && want != GST_SEQNUM_INVALID
      && gst_event_get_seqnum (event) != want) {
    w->bad_event = g_strdup (GST_EVENT_TYPE_NAME (event));
    w->bad_seqnum = gst_event_get_seqnum (event);
    w->want_seqnum = want;
  }
}

static GstPadProbeReturn
watch_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Watch *w = data;

  g_mutex_lock (&w->lock);
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

    if (w->pending_discont && !GST_BUFFER_FLAG_IS_SET (buf,
            GST_BUFFER_FLAG_DISCONT))
      w->missing_discont++;
    w->pending_discont = FALSE;
    if (w->n_buffers++ == 0)
      w->first_offset = GST_BUFFER_OFFSET (buf);
    w->rows += GST_BUFFER_OFFSET_END (buf) - GST_BUFFER_OFFSET (buf);
  } else if (info->type & GST_PAD_PROBE_TYPE_EVENT_BOTH) {
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);

    switch (GST_EVENT_TYPE (event)) {
      case GST_EVENT_FLUSH_STOP:
        /* The buffers counted are those after the last flush. */
        w->n_buffers = 0;
        w->rows = 0;
        w->n_flushes++;
        w->pending_discont = TRUE;
        break;
      case GST_EVENT_STREAM_START:
        w->pending_discont = TRUE;
        break;
      case GST_EVENT_SEGMENT:
        check_seqnum (w, event, w->expect);
        w->pending_discont = TRUE;
        w->n_segments++;
        w->segment_seqnum = gst_event_get_seqnum (event);
        {
          const GstSegment *segment;

          gst_event_parse_segment (event, &segment);
          w->segment_time = segment->time;
        }
        break;
      case GST_EVENT_GAP:
        w->gap = TRUE;
        check_seqnum (w, event, w->expect);
        check_seqnum (w, event, w->segment_seqnum);
        break;
      case GST_EVENT_EOS:
        w->eos = TRUE;
        check_seqnum (w, event, w->expect);
        check_seqnum (w, event, w->segment_seqnum);
        break;
      default:
        break;
    }
  }
  g_mutex_unlock (&w->lock);
  return GST_PAD_PROBE_OK;
}

static GstElement *
make_pipeline (const gchar * elements, Watch * w)
{
  gchar *desc = g_strdup_printf ("%s ! fakesink name=out sync=false",
      elements);
  GError *err = NULL;
  GstElement *pipeline, *sink;
  GstPad *pad;
  gchar *with_input, **parts;

  /* "IN" stands for the input file. */
  parts = g_strsplit (desc, "IN", -1);
  with_input = g_strjoinv (input, parts);
  g_strfreev (parts);
  pipeline = gst_parse_launch (with_input, &err);
  fail_unless (pipeline != NULL, "%s: %s", with_input, err ? err->message :
      "?");
  g_clear_error (&err);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  pad = gst_element_get_static_pad (sink, "sink");
  memset (w, 0, sizeof (*w));
  g_mutex_init (&w->lock);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_EVENT_FLUSH,
      watch_probe, w, NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  g_free (desc);
  g_free (with_input);
  return pipeline;
}

static void
run_to_eos (GstElement * pipeline, const gchar * what)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE, "%s: could not play", what);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no EOS", what);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    fail ("%s: %s", what, err->message);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
}

static void
free_pipeline (GstElement * pipeline, Watch * w)
{
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pipeline);
  g_free (w->bad_event);
  g_mutex_clear (&w->lock);
}

/* A pipeline through each element that makes its own buffers. */
static gchar **
pipelines (void)
{
  gchar *softmax = g_build_filename (g_getenv ("PLAN_BUILD_DIR"), "tests",
      "examples", "libsoftmax.so", NULL);
  gchar *custom = g_strdup_printf ("planfilesrc location=IN blocksize=1600 "
      "! plancustom library=%s symbol=softmax", softmax);
  const gchar *list[] = {
    "planfilesrc location=IN blocksize=1600 ! planmap expr=\"2*x\"",
    "planfilesrc location=IN blocksize=1600 ! planreduce op=sum",
    "planfilesrc location=IN blocksize=1600 ! planreduce op=max axis=0",
    "planfilesrc location=IN blocksize=1600 ! planreduce op=mean axis=-1",
    "planfilesrc location=IN blocksize=1600 ! planstencil "
        "window=\"_ n _; w c e; _ s _\" expr=\"n + s + e + w - 4*c\"",
    custom,
    "filesrc location=IN blocksize=1000 ! npyparse blocksize=1600",
    "planfilesrc location=IN blocksize=1600 ! npymux",
    "filesrc location=IN blocksize=1000 ! npyparse blocksize=1600 ! "
        "planmap expr=\"x + 1\" ! npymux",
    NULL
  };
  gchar **ret = g_strdupv ((gchar **) list);

  g_free (custom);
  g_free (softmax);
  return ret;
}

/* Played from the start: the first buffer says DISCONT, and the EOS
 * carries the seqnum of the segment it ends. */
GST_START_TEST (test_first_buffer_is_discont_and_eos_ends_the_segment)
{
  gchar **list = pipelines ();
  guint i;

  for (i = 0; list[i]; i++) {
    GstElement *pipeline;
    Watch w;

    pipeline = make_pipeline (list[i], &w);
    run_to_eos (pipeline, list[i]);
    fail_unless (w.n_buffers > 0, "%s: no buffer", list[i]);
    fail_unless (w.missing_discont == 0, "%s: %u buffers "
        "after a stream start or segment without DISCONT", list[i],
        w.missing_discont);
    fail_unless (w.bad_event == NULL, "%s: %s with seqnum %u, not the "
        "segment's %u", list[i], w.bad_event, w.bad_seqnum, w.want_seqnum);
    free_pipeline (pipeline, &w);
  }
  g_strfreev (list);
}

GST_END_TEST;

/* A flushing, accurate row seek in PAUSED: what follows the flush (the
 * segment, a reduction's GAP, the EOS) carries the seek's seqnum, the
 * segment's time is the row sought, and the first buffer after it says
 * DISCONT. */
GST_START_TEST (test_seek_answers_carry_its_seqnum)
{
  gchar **list = pipelines ();
  guint i;

  /* npymux does not seek: all but the two with npymux. npyparse seeks
   * filesrc in bytes. */
  for (i = 0; list[i]; i++) {
    GstElement *pipeline;
    GstEvent *seek;
    guint32 seqnum;
    Watch w;

    if (strstr (list[i], "npymux"))
      continue;
    pipeline = make_pipeline (list[i], &w);
    fail_if (gst_element_set_state (pipeline, GST_STATE_PAUSED) ==
        GST_STATE_CHANGE_FAILURE);
    fail_unless_equals_int (gst_element_get_state (pipeline, NULL, NULL,
            10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
    seek = gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH
        | GST_SEEK_FLAG_ACCURATE, GST_SEEK_TYPE_SET, 50, GST_SEEK_TYPE_SET,
        150);
    seqnum = gst_event_get_seqnum (seek);
    g_mutex_lock (&w.lock);
    w.n_buffers = 0;
    w.n_segments = 0;
    w.segment_seqnum = GST_SEQNUM_INVALID;
    w.expect = seqnum;
    g_mutex_unlock (&w.lock);
    fail_unless (gst_element_send_event (pipeline, seek), "%s: seek refused",
        list[i]);
    run_to_eos (pipeline, list[i]);

    fail_unless (w.n_segments > 0, "%s: no segment after the seek", list[i]);
    fail_unless (w.segment_seqnum == seqnum, "%s: the "
        "segment after the seek has seqnum %u, the seek's is %u", list[i],
        w.segment_seqnum, seqnum);
    /* An accurate seek's segment has the time sought, whatever rows the
     * element outputs for it (a reduction's one result is row 0). */
    fail_unless (w.segment_time == 50, "%s: the segment after an accurate "
        "seek to row 50 has time %" G_GUINT64_FORMAT, list[i],
        w.segment_time);
    fail_unless (w.n_buffers > 0, "%s: no buffer after the seek", list[i]);
    fail_unless (w.missing_discont == 0, "%s: %u buffers "
        "after a flush or segment without DISCONT", list[i],
        w.missing_discont);
    fail_unless (w.bad_event == NULL, "%s: %s with seqnum %u, not the "
        "segment's %u", list[i], w.bad_event, w.bad_seqnum, w.want_seqnum);
    free_pipeline (pipeline, &w);
  }
  g_strfreev (list);
}

GST_END_TEST;

/* Every segment a reduction sends after a seek, its preroll segment
 * included, is the seek's answer. */
GST_START_TEST (test_reduce_preroll_segment_and_gap_carry_the_seqnum)
{
  GstElement *pipeline;
  GstEvent *seek;
  guint32 seqnum;
  Watch w;

  pipeline = make_pipeline ("planfilesrc location=IN blocksize=1600 ! "
      "planreduce op=sum", &w);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_element_get_state (pipeline, NULL, NULL,
          10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  seek = gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
      GST_SEEK_TYPE_SET, 20, GST_SEEK_TYPE_NONE, -1);
  seqnum = gst_event_get_seqnum (seek);
  g_mutex_lock (&w.lock);
  w.gap = FALSE;
  w.expect = seqnum;
  g_mutex_unlock (&w.lock);
  fail_unless (gst_element_send_event (pipeline, seek));
  fail_unless_equals_int (gst_element_get_state (pipeline, NULL, NULL,
          10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  g_mutex_lock (&w.lock);
  fail_unless (w.gap, "no GAP after the seek");
  fail_unless (w.bad_event == NULL, "%s with seqnum %u after the seek, whose "
      "seqnum is %u", w.bad_event, w.bad_seqnum, w.want_seqnum);
  g_mutex_unlock (&w.lock);
  free_pipeline (pipeline, &w);
}

GST_END_TEST;

/* Holds the caps planfilesrc sends until the seek has been made. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean seek_made;
  gboolean flushed;
} CapsGate;

/* Holds planmap's first output until the seek's flush has come (at most
 * 5 s): the seek is made from another thread once the caps are known, and
 * the whole 200-row input could otherwise pass before it. */
static GstPadProbeReturn
hold_data (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  CapsGate *gate = data;
  gint64 until = g_get_monotonic_time () + 5 * G_TIME_SPAN_SECOND;

  g_mutex_lock (&gate->lock);
  if (info->type & GST_PAD_PROBE_TYPE_EVENT_FLUSH) {
    if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) ==
        GST_EVENT_FLUSH_START) {
      gate->flushed = TRUE;
      g_cond_broadcast (&gate->cond);
    }
    g_mutex_unlock (&gate->lock);
    return GST_PAD_PROBE_OK;
  }
  while (!gate->flushed && g_cond_wait_until (&gate->cond, &gate->lock,
          until));
  g_mutex_unlock (&gate->lock);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
hold_caps (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  CapsGate *gate = data;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) != GST_EVENT_CAPS)
    return GST_PAD_PROBE_OK;
  g_mutex_lock (&gate->lock);
  while (!gate->seek_made)
    g_cond_wait (&gate->cond, &gate->lock);
  g_mutex_unlock (&gate->lock);
  return GST_PAD_PROBE_REMOVE;
}

/* With sinks that do not preroll (planfilesink's default), PAUSED is
 * reached before any caps; a byte seek made then (rows 50 to 150, in
 * bytes of the output) is taken, waits for the caps, and selects those
 * rows: the output starts at row 50, DISCONT, and has 100 rows. */
GST_START_TEST (test_byte_seek_before_caps_is_made_once_they_are_known)
{
  CapsGate gate;
  GstElement *pipeline, *src;
  GstEvent *seek;
  GstPad *pad;
  guint32 seqnum;
  Watch w;
  /* float32 rows of COLS, times 2: planmap's output */
  const gint64 row = COLS * sizeof (gfloat);

  pipeline = make_pipeline ("planfilesrc name=src location=IN "
      "blocksize=1600 ! planmap name=map expr=\"2*x\"", &w);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  g_object_set (src, "async", FALSE, NULL);
  gst_object_unref (src);
  g_mutex_init (&gate.lock);
  g_cond_init (&gate.cond);
  gate.seek_made = FALSE;
  gate.flushed = FALSE;
  /* By name: default names count on in one process (CK_FORK=no). */
  src = gst_bin_get_by_name (GST_BIN (pipeline), "map");
  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_FLUSH, hold_data, &gate, NULL);
  gst_object_unref (pad);
  gst_object_unref (src);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, hold_caps,
      &gate, NULL);
  gst_object_unref (pad);
  gst_object_unref (src);

  fail_if (gst_element_set_state (pipeline, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE);
  seek = gst_event_new_seek (1.0, GST_FORMAT_BYTES, GST_SEEK_FLAG_FLUSH,
      GST_SEEK_TYPE_SET, 50 * row, GST_SEEK_TYPE_SET, 150 * row);
  seqnum = gst_event_get_seqnum (seek);
  fail_unless (gst_element_send_event (pipeline, seek),
      "a byte seek before the caps was refused");
  g_mutex_lock (&gate.lock);
  gate.seek_made = TRUE;
  g_cond_signal (&gate.cond);
  g_mutex_unlock (&gate.lock);
  run_to_eos (pipeline, "byte seek before caps");

  g_mutex_lock (&w.lock);
  fail_unless (w.n_flushes == 1, "%u flushes", w.n_flushes);
  fail_unless (w.n_buffers > 0);
  fail_unless_equals_uint64 (w.first_offset, 50);
  fail_unless_equals_uint64 (w.rows, 100);
  fail_unless (w.missing_discont == 0, "%u buffers without DISCONT",
      w.missing_discont);
  /* The segment after the flush (the last) answers the seek, and the EOS
   * ends it. */
  fail_unless (w.segment_seqnum == seqnum, "segment with seqnum %u, the "
      "seek's is %u", w.segment_seqnum, seqnum);
  fail_unless (w.bad_event == NULL, "%s with seqnum %u, not %u", w.bad_event,
      w.bad_seqnum, w.want_seqnum);
  g_mutex_unlock (&w.lock);
  free_pipeline (pipeline, &w);
  g_cond_clear (&gate.cond);
  g_mutex_clear (&gate.lock);
}

GST_END_TEST;

/* The caps' rate: parsed, written back, refused when not a positive
 * fraction; rows and times convert through it. */
GST_START_TEST (test_rate_in_array_caps)
{
  PlanArrayInfo info;
  GError *err = NULL;
  GstCaps *caps, *back;

  caps = gst_caps_from_string ("array/x-raw, dtype=float32, shape=<10, 2>, "
      "rate=(fraction)3/2");
  fail_unless (plan_array_info_from_caps (&info, caps, &err));
  fail_unless (plan_array_info_has_rate (&info));
  fail_unless_equals_int (info.rate_n, 3);
  fail_unless_equals_int (info.rate_d, 2);
  back = plan_array_info_to_caps (&info);
  fail_unless (gst_caps_is_equal (caps, back), "%" GST_PTR_FORMAT, back);
  /* 1.5 rows a second: row 3 starts at 2 s, 2.5 s falls in row 3. */
  fail_unless_equals_uint64 (plan_array_info_rows_to_time (&info, 3),
      2 * GST_SECOND);
  fail_unless_equals_int64 (plan_array_info_time_to_rows (&info,
          5 * GST_SECOND / 2), 3);
  gst_caps_unref (back);
  gst_caps_unref (caps);

  caps = gst_caps_from_string ("array/x-raw, dtype=float32, shape=<10>");
  fail_unless (plan_array_info_from_caps (&info, caps, &err));
  fail_if (plan_array_info_has_rate (&info));
  fail_unless_equals_uint64 (plan_array_info_rows_to_time (&info, 3),
      GST_CLOCK_TIME_NONE);
  fail_unless_equals_int64 (plan_array_info_time_to_rows (&info, 0), -1);
  gst_caps_unref (caps);

  caps = gst_caps_from_string ("array/x-raw, dtype=float32, rate=(fraction)"
      "0/1");
  fail_if (plan_array_info_from_caps (&info, caps, &err));
  fail_unless (strstr (err->message, "rate") != NULL, "%s", err->message);
  g_clear_error (&err);
  gst_caps_unref (caps);
  caps = gst_caps_from_string ("array/x-raw, dtype=float32, rate=1000");
  fail_if (plan_array_info_from_caps (&info, caps, &err));
  fail_unless (strstr (err->message, "positive fraction") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* Going to READY while the EOS is being pushed on the source pad of an
 * element that pushes from upstream's thread (holding its sink pad's
 * stream lock, not its source pad's): both pads stay active until that
 * push is done, so that nothing watching a pad sees a call end on a pad
 * already reset (gst-validate's monitors reset a pad's state when it is
 * deactivated, in its activate-mode function, which GstPad calls before
 * it waits for the stream lock: they reported an EOS without a segment,
 * then a buffer after EOS in the next run). */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean in_push, release;
} Gate;

static GstPadProbeReturn
hold_eos (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Gate *g = data;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) != GST_EVENT_EOS)
    return GST_PAD_PROBE_OK;
  g_mutex_lock (&g->lock);
  g->in_push = TRUE;
  g_cond_broadcast (&g->cond);
  while (!g->release)
    g_cond_wait (&g->cond, &g->lock);
  g_mutex_unlock (&g->lock);
  return GST_PAD_PROBE_OK;
}

static gpointer
push_eos (gpointer data)
{
  gst_harness_push_event (data, gst_event_new_eos ());
  return NULL;
}

static gpointer
to_ready (gpointer data)
{
  return GINT_TO_POINTER (gst_element_set_state (data, GST_STATE_READY));
}

/* @factory gets @caps and @data, then EOS, and is stopped meanwhile. */
static void
check_stop_waits_for_the_push (const gchar * factory, const gchar * caps,
    GstBuffer * data)
{
  GstHarness *h = gst_harness_new (factory);
  Gate g = { 0, };
  GstPad *src, *sink;
  GThread *pusher, *stopper;
  gint64 end;

  g_mutex_init (&g.lock);
  g_cond_init (&g.cond);
  gst_harness_set_src_caps_str (h, caps);
  fail_unless_equals_int (gst_harness_push (h, data), GST_FLOW_OK);
  src = gst_element_get_static_pad (h->element, "src");
  sink = gst_element_get_static_pad (h->element, "sink");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, hold_eos, &g,
      NULL);
  pusher = g_thread_new ("push-eos", push_eos, h);
  g_mutex_lock (&g.lock);
  end = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  while (!g.in_push)
    fail_unless (g_cond_wait_until (&g.cond, &g.lock, end),
        "%s pushed no EOS", factory);
  g_mutex_unlock (&g.lock);

  stopper = g_thread_new ("to-ready", to_ready, h->element);
  g_usleep (200 * 1000);
  fail_unless (gst_pad_is_active (src), "%s: the source pad was "
      "deactivated while the EOS was being pushed on it", factory);
  fail_unless (gst_pad_is_active (sink), "%s: the sink pad was "
      "deactivated while the EOS it received was being pushed on", factory);

  g_mutex_lock (&g.lock);
  g.release = TRUE;
  g_cond_broadcast (&g.cond);
  g_mutex_unlock (&g.lock);
  /* The push ends FLUSHING: the sink pad went flushing meanwhile. */
  g_thread_join (pusher);
  fail_unless_equals_int (GPOINTER_TO_INT (g_thread_join (stopper)),
      GST_STATE_CHANGE_SUCCESS);
  fail_if (gst_pad_is_active (src));
  fail_if (gst_pad_is_active (sink));
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_harness_teardown (h);
  g_mutex_clear (&g.lock);
  g_cond_clear (&g.cond);
}

GST_START_TEST (test_stop_waits_for_the_push_under_way)
{
  gchar *bytes;
  gsize size;

  fail_unless (g_file_get_contents (input, &bytes, &size, NULL));
  check_stop_waits_for_the_push ("npyparse", PLAN_NPY_CAPS_MEDIA_TYPE,
      gst_buffer_new_wrapped (bytes, size));
  check_stop_waits_for_the_push ("npymux",
      "array/x-raw, dtype=(string)float32, shape=(int)<1, 3>",
      gst_buffer_new_wrapped (g_malloc0 (12), 12));
}

GST_END_TEST;

/* A kernel element going to READY while its sink pad is still handling a
 * CAPS event from upstream's thread (upstream goes on pushing: elements
 * change state downstream first): the sink pad's activate-mode function
 * returns only once that call is done. gst-validate's pad monitors wrap
 * both functions, reset the pad's state after the activate-mode function
 * and record the caps after the event function; a call that ended after
 * the reset left its caps recorded, and the next run's caps were reported
 * as "the same caps twice". The wrappers here do what those do. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean in_call, release, call_done;
  gboolean deactivated, done_when_deactivated;
  GstPadEventFullFunction event_full;
  GstPadEventFunction event;
  GstPadActivateModeFunction activate_mode;
} EventGate;

static EventGate *event_gate;

static GstFlowReturn
hold_after_caps (GstPad * pad, GstObject * parent, GstEvent * event)
{
  EventGate *g = event_gate;
  gboolean is_caps = GST_EVENT_TYPE (event) == GST_EVENT_CAPS;
  GstFlowReturn ret;

  if (g->event_full)
    ret = g->event_full (pad, parent, event);
  else
    ret = g->event (pad, parent, event) ? GST_FLOW_OK : GST_FLOW_ERROR;
  if (is_caps) {
    g_mutex_lock (&g->lock);
    g->in_call = TRUE;
    g_cond_broadcast (&g->cond);
    while (!g->release)
      g_cond_wait (&g->cond, &g->lock);
    g->call_done = TRUE;
    g_mutex_unlock (&g->lock);
  }
  return ret;
}

static gboolean
watch_deactivation (GstPad * pad, GstObject * parent, GstPadMode mode,
    gboolean active)
{
  EventGate *g = event_gate;
  gboolean ret = g->activate_mode (pad, parent, mode, active);

  if (!active) {
    g_mutex_lock (&g->lock);
    g->deactivated = TRUE;
    g->done_when_deactivated = g->call_done;
    g_mutex_unlock (&g->lock);
  }
  return ret;
}

static gpointer
push_caps (gpointer data)
{
  GstHarness *h = data;
  GstCaps *caps =
      gst_caps_from_string ("array/x-raw, dtype=(string)float32, "
      "shape=(int)<4>");

  gst_pad_push_event (h->srcpad, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  return NULL;
}

GST_START_TEST (test_kernel_stop_waits_for_the_event_under_way)
{
  GstHarness *h = gst_harness_new_with_padnames ("planmap", "sink_0", "src");
  EventGate g = { 0, };
  GstPad *sink = gst_element_get_static_pad (h->element, "sink_0");
  GThread *pusher, *stopper;
  gint64 end;

  g_mutex_init (&g.lock);
  g_cond_init (&g.cond);
  event_gate = &g;
  g_object_set (h->element, "expr", "2*x", NULL);
  g.event_full = GST_PAD_EVENTFULLFUNC (sink);
  g.event = GST_PAD_EVENTFUNC (sink);
  g.activate_mode = GST_PAD_ACTIVATEMODEFUNC (sink);
  fail_unless (g.activate_mode != NULL);
  gst_pad_set_event_full_function (sink, hold_after_caps);
  gst_pad_set_activatemode_function (sink, watch_deactivation);
  gst_harness_play (h);
  fail_unless (gst_pad_push_event (h->srcpad,
          gst_event_new_stream_start ("kernel-stop")));

  pusher = g_thread_new ("push-caps", push_caps, h);
  g_mutex_lock (&g.lock);
  end = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  while (!g.in_call)
    fail_unless (g_cond_wait_until (&g.cond, &g.lock, end),
        "the caps event did not reach planmap");
  g_mutex_unlock (&g.lock);

  stopper = g_thread_new ("to-ready", to_ready, h->element);
  g_usleep (200 * 1000);
  g_mutex_lock (&g.lock);
  fail_if (g.deactivated, "planmap's sink pad was deactivated while the "
      "caps event it received was still being handled");
  g.release = TRUE;
  g_cond_broadcast (&g.cond);
  g_mutex_unlock (&g.lock);
  g_thread_join (pusher);
  fail_unless_equals_int (GPOINTER_TO_INT (g_thread_join (stopper)),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (g.deactivated);
  fail_unless (g.done_when_deactivated);
  fail_if (gst_pad_is_active (sink));

  gst_object_unref (sink);
  gst_harness_teardown (h);
  event_gate = NULL;
  g_mutex_clear (&g.lock);
  g_cond_clear (&g.cond);
}

GST_END_TEST;

/* Position, duration and conversions at the sink, in rows and bytes: each
 * answered, in the output's own rows and bytes (a reduction's result, a
 * valid stencil's rows), so a position never passes the duration, in
 * PAUSED with a chunk or two read and at the EOS, where it is the
 * duration. Before, a reduction of the rows or of everything and a valid
 * stencil answered the rows and bytes read upstream (300 rows of an output
 * of 6), and converted rows to bytes at the input's row size. */
static void
check_position_and_duration (GstElement * pipeline, const gchar * what,
    gboolean at_eos)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  gint64 rows, bytes, pos_rows, pos_bytes, ten_rows;

  fail_unless (gst_pad_peer_query_duration (pad, GST_FORMAT_DEFAULT, &rows)
      && rows > 0, "%s: no duration in rows", what);
  fail_unless (gst_pad_peer_query_duration (pad, GST_FORMAT_BYTES, &bytes)
      && bytes > 0 && bytes % rows == 0, "%s: duration of %" G_GINT64_FORMAT
      " rows in %" G_GINT64_FORMAT " bytes", what, rows, bytes);
  fail_unless (gst_pad_peer_query_position (pad, GST_FORMAT_DEFAULT,
          &pos_rows), "%s: no position in rows", what);
  fail_unless (gst_pad_peer_query_position (pad, GST_FORMAT_BYTES,
          &pos_bytes), "%s: no position in bytes", what);
  fail_unless (pos_rows >= 0 && pos_rows <= rows, "%s: position %"
      G_GINT64_FORMAT " rows, duration %" G_GINT64_FORMAT, what, pos_rows,
      rows);
  fail_unless (pos_bytes >= 0 && pos_bytes <= bytes, "%s: position %"
      G_GINT64_FORMAT " bytes, duration %" G_GINT64_FORMAT, what, pos_bytes,
      bytes);
  if (at_eos) {
    fail_unless (pos_rows == rows && pos_bytes == bytes, "%s: at EOS, "
        "position %" G_GINT64_FORMAT " rows (%" G_GINT64_FORMAT " bytes) of %"
        G_GINT64_FORMAT " (%" G_GINT64_FORMAT ")", what, pos_rows, pos_bytes,
        rows, bytes);
  }
  /* Bytes are sought only where they are the output's: then up to its
   * duration. */
  {
    GstQuery *query = gst_query_new_seeking (GST_FORMAT_BYTES);
    gboolean seekable = FALSE;
    gint64 end = -1;

    if (gst_pad_peer_query (pad, query))
      gst_query_parse_seeking (query, NULL, &seekable, NULL, &end);
    gst_query_unref (query);
    fail_unless (!seekable || end == bytes, "%s: seekable in bytes up to %"
        G_GINT64_FORMAT " of %" G_GINT64_FORMAT, what, end, bytes);
  }
  fail_unless (gst_pad_peer_query_convert (pad, GST_FORMAT_DEFAULT, 10,
          GST_FORMAT_BYTES, &ten_rows), "%s: no conversion", what);
  fail_unless (ten_rows == 10 * (bytes / rows), "%s: 10 rows of %"
      G_GINT64_FORMAT " bytes converted to %" G_GINT64_FORMAT " bytes", what,
      bytes / rows, ten_rows);
  gst_object_unref (pad);
  gst_object_unref (sink);
}

/* plancustom mode=reduce: a histogram of 8 bins (libhistogram.so). */
static gchar *
custom_reduce (void)
{
  gchar *lib = g_build_filename (g_getenv ("PLAN_BUILD_DIR"), "tests",
      "examples", "libhistogram.so", NULL);
  gchar *ret = g_strdup_printf ("planfilesrc location=IN blocksize=400 ! "
      "plancustom mode=reduce library=%s symbol=histogram out-dtype=int64 "
      "out-shape=8 params=\"-6 7\"", lib);

  g_free (lib);
  return ret;
}

GST_START_TEST (test_position_never_passes_the_duration)
{
  gchar *custom = custom_reduce ();
  const gchar *list[] = {
    "planfilesrc location=IN blocksize=400 ! planmap expr=\"2*x\" "
        "dtype=float64",
    "planfilesrc location=IN blocksize=400 ! planreduce op=sum",
    "planfilesrc location=IN blocksize=400 ! planreduce op=max axis=0",
    "planfilesrc location=IN blocksize=400 ! planreduce op=mean axis=-1",
    "planfilesrc location=IN blocksize=400 ! planstencil "
        "window=\"a; _; _; _; b\" expr=\"a + b\" boundary=valid",
    custom,
    NULL
  };
  guint i;

  for (i = 0; list[i]; i++) {
    GstElement *pipeline;
    Watch w;

    pipeline = make_pipeline (list[i], &w);
    fail_if (gst_element_set_state (pipeline, GST_STATE_PAUSED) ==
        GST_STATE_CHANGE_FAILURE);
    fail_unless_equals_int (gst_element_get_state (pipeline, NULL, NULL,
            10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
    check_position_and_duration (pipeline, list[i], FALSE);
    run_to_eos (pipeline, list[i]);
    check_position_and_duration (pipeline, list[i], TRUE);
    free_pipeline (pipeline, &w);
  }
  g_free (custom);
}

GST_END_TEST;

static GstPadProbeReturn
hold_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  return GST_PAD_PROBE_OK;
}

/* Before its output's caps a kernel element does not know its output's
 * rows and bytes: it answers no duration in rows or bytes (upstream's
 * would be its input's: 200 rows for a sum's one, 8000 bytes of float32
 * for 16000 of float64), and once set up it posts duration-changed and
 * answers its own. */
GST_START_TEST (test_no_duration_before_the_output_is_known)
{
  const struct
  {
    const gchar *desc;
    gint64 rows, bytes;
  } list[] = {
    {"planfilesrc name=src location=IN ! planreduce name=k op=sum", 1, 4},
    {"planfilesrc name=src location=IN ! planmap name=k expr=\"2*x\" "
          "dtype=float64", ROWS, ROWS * COLS * 8},
    {"planfilesrc name=src location=IN ! planstencil name=k "
          "window=\"a; _; _; _; b\" expr=\"a + b\" boundary=valid",
        ROWS - 4, (ROWS - 4) * COLS * 4},
    {NULL, 0, 0}
  };
  guint i;

  for (i = 0; list[i].desc; i++) {
    GstElement *pipeline, *src, *sink, *k;
    GstPad *pad, *sinkpad;
    GstMessage *msg;
    GstBus *bus;
    gulong probe;
    gint64 v;
    Watch w;

    pipeline = make_pipeline (list[i].desc, &w);
    src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
    sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
    k = gst_bin_get_by_name (GST_BIN (pipeline), "k");
    g_object_set (sink, "async", FALSE, NULL);
    pad = gst_element_get_static_pad (src, "src");
    sinkpad = gst_element_get_static_pad (sink, "sink");
    /* Nothing reaches the kernel element: it has no caps. */
    probe = gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BLOCK |
        GST_PAD_PROBE_TYPE_DATA_DOWNSTREAM, hold_probe, NULL, NULL);
    fail_unless_equals_int (gst_element_set_state (pipeline,
            GST_STATE_PAUSED), GST_STATE_CHANGE_SUCCESS);
    fail_unless (gst_pad_query_duration (pad, GST_FORMAT_DEFAULT, &v)
        && v == ROWS, "%s: the source does not know its rows", list[i].desc);
    fail_if (gst_pad_peer_query_duration (sinkpad, GST_FORMAT_DEFAULT, &v),
        "%s: a duration of %" G_GINT64_FORMAT " rows before the output's "
        "caps", list[i].desc, v);
    fail_if (gst_pad_peer_query_duration (sinkpad, GST_FORMAT_BYTES, &v),
        "%s: a duration of %" G_GINT64_FORMAT " bytes before the output's "
        "caps", list[i].desc, v);
    fail_if (gst_pad_peer_query_position (sinkpad, GST_FORMAT_BYTES, &v),
        "%s: a position of %" G_GINT64_FORMAT " bytes before the output's "
        "caps", list[i].desc, v);

    bus = gst_element_get_bus (pipeline);
    gst_pad_remove_probe (pad, probe);
    msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
        GST_MESSAGE_DURATION_CHANGED | GST_MESSAGE_ERROR);
    fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) ==
        GST_MESSAGE_DURATION_CHANGED && GST_MESSAGE_SRC (msg) ==
        GST_OBJECT (k), "%s: no duration-changed from the element",
        list[i].desc);
    gst_message_unref (msg);
    gst_object_unref (bus);
    fail_unless (gst_pad_peer_query_duration (sinkpad, GST_FORMAT_DEFAULT,
            &v) && v == list[i].rows, "%s: duration %" G_GINT64_FORMAT
        " rows", list[i].desc, v);
    fail_unless (gst_pad_peer_query_duration (sinkpad, GST_FORMAT_BYTES,
            &v) && v == list[i].bytes, "%s: duration %" G_GINT64_FORMAT
        " bytes", list[i].desc, v);
    run_to_eos (pipeline, list[i].desc);
    gst_object_unref (sinkpad);
    gst_object_unref (pad);
    gst_object_unref (k);
    gst_object_unref (sink);
    gst_object_unref (src);
    free_pipeline (pipeline, &w);
  }
}

GST_END_TEST;

static Suite *
conformance_suite (void)
{
  Suite *s = suite_create ("conformance");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, setup, teardown);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_first_buffer_is_discont_and_eos_ends_the_segment);
  tcase_add_test (tc, test_seek_answers_carry_its_seqnum);
  tcase_add_test (tc, test_reduce_preroll_segment_and_gap_carry_the_seqnum);
  tcase_add_test (tc, test_byte_seek_before_caps_is_made_once_they_are_known);
  tcase_add_test (tc, test_rate_in_array_caps);
  tcase_add_test (tc, test_stop_waits_for_the_push_under_way);
  tcase_add_test (tc, test_kernel_stop_waits_for_the_event_under_way);
  tcase_add_test (tc, test_position_never_passes_the_duration);
  tcase_add_test (tc, test_no_duration_before_the_output_is_known);
  return s;
}

GST_CHECK_MAIN (conformance);
