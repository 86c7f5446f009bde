/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planprogress
 * @title: PlanProgress
 * @short_description: GST_MESSAGE_PROGRESS for a source of rows
 *
 * A source that knows which rows it will produce calls
 * plan_progress_begin() when a run of reading starts (at the first chunk,
 * or after a seek), plan_progress_update() after each chunk with the end
 * row of that chunk, and plan_progress_finish() when the run ends.
 *
 * Each run posts %GST_MESSAGE_PROGRESS messages with the given code:
 * start at the first chunk produced in PLAYING; continue when at least
 * %PLAN_PROGRESS_PERCENT of the rows and at least %PLAN_PROGRESS_INTERVAL
 * of the pipeline clock have passed since the last one (only the interval
 * when the total is not known); complete after the last chunk; error when
 * reading fails; canceled when the element stops or a seek restarts it
 * before the end. Their structures add #guint64 fields `rows-done` and
 * `bytes-done` (rows and bytes of array data since the run's first row)
 * and, when the total is known, #guint64 `rows-total` and `bytes-total`
 * and set the #gint `percent` (without a total it is the placeholder
 * gst_message_new_progress() puts there).
 *
 * Nothing is posted while prerolling: gst-launch-1.0 waits for the end of
 * an operation started before PLAYING, and reading to the end needs
 * PLAYING. A run that ends before PLAYING posts start and its end
 * together.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planprogress.h"

GST_DEBUG_CATEGORY_STATIC (plan_progress_debug);
#define GST_CAT_DEFAULT plan_progress_debug

struct _PlanProgress
{
  GstElement *element;          /* not owned: the element owns us */
  gchar *code;
  gchar *what;
  gsize row_size;
  gboolean known_total;
  guint64 first;                /* the run's first and end rows */
  guint64 end;
  guint64 position;             /* the end of the last chunk */
  guint64 rows_posted;          /* rows done at the last message */
  GstClockTime time;            /* clock's time then */
  GstClock *clock;
  gboolean pending;             /* running, start not yet posted */
  gboolean active;              /* start posted, not yet finished */
};

/**
 * plan_progress_new:
 * @element: the element that posts the messages; not referenced, so it
 *   must outlive the returned object (an element keeps it in its instance)
 * @code: the messages' code, such as "read"
 *
 * Returns: (transfer full): a progress reporter with no run.
 *
 * Since: 0.1
 */
PlanProgress *
plan_progress_new (GstElement * element, const gchar * code)
{
  PlanProgress *p;

  g_return_val_if_fail (GST_IS_ELEMENT (element), NULL);
  g_return_val_if_fail (code != NULL, NULL);

  if (g_once_init_enter (&plan_progress_debug)) {
    GST_DEBUG_CATEGORY_INIT (plan_progress_debug, "planprogress", 0,
        "progress messages of plan sources");
  }
  p = g_new0 (PlanProgress, 1);
  p->element = element;
  p->code = g_strdup (code);
  return p;
}

/**
 * plan_progress_free:
 * @progress: (transfer full) (nullable): a progress reporter
 *
 * Frees @progress without posting anything: call plan_progress_finish()
 * first to end a run.
 *
 * Since: 0.1
 */
void
plan_progress_free (PlanProgress * progress)
{
  if (progress == NULL)
    return;
  gst_clear_object (&progress->clock);
  g_free (progress->code);
  g_free (progress->what);
  g_free (progress);
}

/**
 * plan_progress_reset_clock:
 * @progress: a progress reporter
 *
 * Drops the clock the interval was measured on (at stop(), so that no
 * clock outlives the pipeline that gave it); the next run starts the
 * interval again.
 *
 * Since: 0.1
 */
void
plan_progress_reset_clock (PlanProgress * progress)
{
  g_return_if_fail (progress != NULL);
  gst_clear_object (&progress->clock);
}

/* The pipeline clock once the element has one, the system clock before;
 * when the clock changes the interval starts again. */
static gboolean
interval_passed (PlanProgress * p)
{
  GstClock *clock = gst_element_get_clock (p->element);
  GstClockTime now;
  gboolean passed;

  if (clock == NULL)
    clock = gst_system_clock_obtain ();
  now = gst_clock_get_time (clock);
  passed = clock == p->clock && now >= p->time + PLAN_PROGRESS_INTERVAL;
  if (passed || clock != p->clock)
    p->time = now;
  gst_object_replace ((GstObject **) & p->clock, GST_OBJECT (clock));
  gst_object_unref (clock);
  return passed;
}

static gchar *
describe (PlanProgress * p, GstProgressType type, guint64 done,
    guint64 total, gint percent)
{
  if (!p->known_total) {
    switch (type) {
      case GST_PROGRESS_TYPE_START:
        return g_strdup_printf ("Reading %s", p->what);
      case GST_PROGRESS_TYPE_ERROR:
        return g_strdup_printf ("Reading %s failed after %" G_GUINT64_FORMAT
            " rows", p->what, done);
      case GST_PROGRESS_TYPE_CANCELED:
        return g_strdup_printf ("Reading %s stopped after %" G_GUINT64_FORMAT
            " rows", p->what, done);
      default:
        return g_strdup_printf ("Read %" G_GUINT64_FORMAT " rows of %s",
            done, p->what);
    }
  }
  switch (type) {
    case GST_PROGRESS_TYPE_START:
      return g_strdup_printf ("Reading %" G_GUINT64_FORMAT " rows of %s",
          total, p->what);
    case GST_PROGRESS_TYPE_COMPLETE:
      return g_strdup_printf ("Read %" G_GUINT64_FORMAT " rows of %s",
          done, p->what);
    case GST_PROGRESS_TYPE_ERROR:
      return g_strdup_printf ("Reading %s failed after %" G_GUINT64_FORMAT
          " of %" G_GUINT64_FORMAT " rows", p->what, done, total);
    case GST_PROGRESS_TYPE_CANCELED:
      return g_strdup_printf ("Reading %s stopped after %" G_GUINT64_FORMAT
          " of %" G_GUINT64_FORMAT " rows", p->what, done, total);
    default:
      return g_strdup_printf ("Read %" G_GUINT64_FORMAT " of %"
          G_GUINT64_FORMAT " rows of %s (%d %%)", done, total, p->what,
          percent);
  }
}

static void
post (PlanProgress * p, GstProgressType type)
{
  guint64 done = p->position - p->first;
  guint64 total = p->end - p->first;
  gint percent = 0;
  GstMessage *msg;
  GstStructure *s;
  gchar *text;

  if (p->known_total)
    percent = total == 0 ? 100 : (gint) (done * 100 / total);
  text = describe (p, type, done, total, percent);
  msg = gst_message_new_progress (GST_OBJECT (p->element), type, p->code,
      text);
  s = gst_message_writable_structure (msg);
  gst_structure_set (s, "rows-done", G_TYPE_UINT64, done,
      "bytes-done", G_TYPE_UINT64, (guint64) (done * p->row_size), NULL);
  if (p->known_total)
    gst_structure_set (s, "rows-total", G_TYPE_UINT64, total,
        "bytes-total", G_TYPE_UINT64, (guint64) (total * p->row_size),
        "percent", G_TYPE_INT, percent, NULL);
  GST_LOG_OBJECT (p->element, "progress: %s", text);
  gst_element_post_message (p->element, msg);
  p->rows_posted = done;
  p->pending = FALSE;
  p->active = type == GST_PROGRESS_TYPE_START
      || type == GST_PROGRESS_TYPE_CONTINUE;
  g_free (text);
}

/* Posts the start message of a run once the element is PLAYING, or when
 * the run ends (@ending) before it got there. Applications such as
 * gst-launch-1.0 take a start message during preroll for an operation that
 * must finish before they set PLAYING, and reading to the end needs
 * PLAYING: a start posted in PAUSED would keep them waiting for ever. */
static void
maybe_start (PlanProgress * p, gboolean ending)
{
  gboolean playing;

  if (!p->pending)
    return;
  GST_OBJECT_LOCK (p->element);
  playing = GST_STATE (p->element) == GST_STATE_PLAYING;
  GST_OBJECT_UNLOCK (p->element);
  if (!playing && !ending)
    return;
  interval_passed (p);
  post (p, GST_PROGRESS_TYPE_START);
}

/**
 * plan_progress_finish:
 * @progress: a progress reporter
 * @type: %GST_PROGRESS_TYPE_COMPLETE, %GST_PROGRESS_TYPE_ERROR or
 *   %GST_PROGRESS_TYPE_CANCELED
 *
 * Ends the run, if there is one: posts its start first if it was not
 * posted yet (except for a cancel: a run canceled before PLAYING was
 * never seen), then @type. Complete counts every row of a known total as
 * done. Does nothing without a run.
 *
 * Since: 0.1
 */
void
plan_progress_finish (PlanProgress * progress, GstProgressType type)
{
  PlanProgress *p = progress;

  g_return_if_fail (p != NULL);

  if (type == GST_PROGRESS_TYPE_COMPLETE && p->known_total)
    p->position = p->end;
  if (type != GST_PROGRESS_TYPE_CANCELED)
    maybe_start (p, TRUE);
  if (p->active)
    post (p, type);
  p->pending = FALSE;
  p->active = FALSE;
}

/**
 * plan_progress_begin:
 * @progress: a progress reporter
 * @what: what is read, for the messages' text, such as "'a.npy'" (a
 *   file name that is not UTF-8 is shown with replacement characters)
 * @first: the run's first row
 * @end: one past its last row, or -1 when the number of rows is not known
 * @row_size: bytes of a row
 *
 * Starts a run; a run still going is canceled first. Its start message is
 * posted at the first plan_progress_update() in PLAYING.
 *
 * Since: 0.1
 */
void
plan_progress_begin (PlanProgress * progress, const gchar * what,
    guint64 first, gint64 end, gsize row_size)
{
  PlanProgress *p = progress;

  g_return_if_fail (p != NULL);
  g_return_if_fail (what != NULL);

  plan_progress_finish (p, GST_PROGRESS_TYPE_CANCELED);
  g_free (p->what);
  /* A file name need not be UTF-8, and a structure's strings must be. */
  p->what = g_utf8_make_valid (what, -1);
  p->row_size = row_size;
  p->known_total = end >= 0;
  p->first = first;
  p->end = end >= 0 ? MAX (first, (guint64) end) : first;
  p->position = first;
  p->rows_posted = 0;
  p->pending = TRUE;
  p->active = FALSE;
}

/**
 * plan_progress_update:
 * @progress: a progress reporter
 * @position: one past the last row produced so far
 *
 * Called after each chunk: posts start once PLAYING, a continue message
 * when both enough rows and enough time have passed, and complete once
 * @position reaches a known end (GstBaseSrc ends the stream at the
 * segment's stop without asking for another chunk).
 *
 * Since: 0.1
 */
void
plan_progress_update (PlanProgress * progress, guint64 position)
{
  PlanProgress *p = progress;
  guint64 total, step, done;

  g_return_if_fail (p != NULL);

  if (!p->pending && !p->active)
    return;
  total = p->end - p->first;
  step = MAX (1, (total * PLAN_PROGRESS_PERCENT + 99) / 100);
  p->position = MAX (position, p->first);
  if (p->known_total)
    p->position = MIN (p->position, p->end);
  done = p->position - p->first;
  if (p->known_total && done >= total) {
    plan_progress_finish (p, GST_PROGRESS_TYPE_COMPLETE);
    return;
  }
  maybe_start (p, FALSE);
  if (p->active && (!p->known_total || done >= p->rows_posted + step)
      && interval_passed (p))
    post (p, GST_PROGRESS_TYPE_CONTINUE);
}
