/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planfuture
 * @title: PlanFuture
 * @short_description: one dispatch of a work: wait, cancel, progress,
 *   results
 *
 * plan_work_dispatch() returns a #PlanFuture at once, while the pipeline
 * runs on GStreamer's threads. plan_future_wait() blocks until it is done
 * (or a timeout passes) and gives the run's error, if any, naming the
 * node whose element failed. plan_future_get_result() gives each output
 * bound to an array or left unbound, as a #PlanArray; a reduction's value
 * is a 0-d array (or a 1-d one, per column or per row).
 *
 * plan_future_cancel() stops the plan: the run ends with
 * %G_IO_ERROR_CANCELLED, no output file appears under its name, and the
 * caller's arrays keep whatever rows were written into them.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "graph-private.h"

struct _PlanFuture
{
  GObject parent;

  GObject *work;                /* construct-only, to cancel through */
  guint serial;                 /* construct-only: the work's n-th dispatch */

  GMutex lock;
  GCond cond;
  /* protected by lock */
  gboolean done;
  GError *error;
  GHashTable *results;          /* name -> PlanArray */
  guint64 rows_done;
  gint64 rows_total;
  GTask *task;                  /* of plan_work_dispatch_async() */
  GCancellable *cancellable;
  gulong cancelled_id;
  gboolean by_cancellable;      /* the cancel came through it */
};

G_DEFINE_TYPE (PlanFuture, plan_future, G_TYPE_OBJECT);

static void
plan_future_finalize (GObject * object)
{
  PlanFuture *self = PLAN_FUTURE (object);

  g_assert (self->task == NULL);
  g_clear_error (&self->error);
  g_hash_table_unref (self->results);
  g_clear_object (&self->work);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (plan_future_parent_class)->finalize (object);
}

static void
plan_future_class_init (PlanFutureClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = plan_future_finalize;
}

static void
plan_future_init (PlanFuture * self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->results = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_object_unref);
}

PlanFuture *
_plan_future_new (GObject * work, guint serial, gint64 rows_total)
{
  PlanFuture *self = g_object_new (PLAN_TYPE_FUTURE, NULL);

  self->work = g_object_ref (work);
  self->serial = serial;
  self->rows_total = rows_total;
  return self;
}

GError *
_plan_future_cancelled_error (PlanFuture * future, const gchar * when)
{
  gchar *work = _plan_work_describe (PLAN_WORK (future->work));
  gchar *progress;
  gboolean by_cancellable;
  GError *error;

  g_mutex_lock (&future->lock);
  by_cancellable = future->by_cancellable;
  if (when != NULL)
    progress = g_strdup (when);
  else if (future->rows_total < 0)
    progress = g_strdup_printf ("after its sources had produced %"
        G_GUINT64_FORMAT " rows (of a length not known)", future->rows_done);
  else
    progress = g_strdup_printf ("after its sources had produced %"
        G_GUINT64_FORMAT " of their %" G_GINT64_FORMAT " rows",
        future->rows_done, future->rows_total);
  g_mutex_unlock (&future->lock);
  error = g_error_new (G_IO_ERROR, G_IO_ERROR_CANCELLED, "dispatch %u of %s "
      "was cancelled %s %s", future->serial, work, by_cancellable ?
      "through its GCancellable" : "by plan_future_cancel()", progress);
  g_free (progress);
  g_free (work);
  return error;
}

GObject *
_plan_future_get_work (PlanFuture * future)
{
  return future->work;
}

guint
_plan_future_get_serial (PlanFuture * future)
{
  return future->serial;
}

void
_plan_future_add_rows (PlanFuture * future, guint64 rows)
{
  g_mutex_lock (&future->lock);
  future->rows_done += rows;
  g_mutex_unlock (&future->lock);
}

void
_plan_future_set_result (PlanFuture * future, const gchar * name,
    PlanArray * array)
{
  g_mutex_lock (&future->lock);
  g_hash_table_replace (future->results, g_strdup (name),
      g_object_ref (array));
  g_mutex_unlock (&future->lock);
}

/* Hands @task to the future, to be returned when the run ends; FALSE
 * when it has ended already (the caller returns it then). */
gboolean
_plan_future_set_task (PlanFuture * future, GTask * task)
{
  gboolean taken;

  g_mutex_lock (&future->lock);
  taken = !future->done;
  if (taken)
    future->task = g_object_ref (task);
  g_mutex_unlock (&future->lock);
  return taken;
}

static void
cancelled (GCancellable * cancellable, gpointer data)
{
  PlanFuture *future = data;

  g_mutex_lock (&future->lock);
  future->by_cancellable = TRUE;
  g_mutex_unlock (&future->lock);
  plan_future_cancel (future);
}

/* Cancels the run when @cancellable is triggered, or now if it was. */
void
_plan_future_set_cancellable (PlanFuture * future, GCancellable * cancellable)
{
  gboolean done;
  gulong id;

  if (plan_future_is_done (future))
    return;
  /* Already cancelled: the handler runs now, and the id is 0. */
  id = g_cancellable_connect (cancellable, G_CALLBACK (cancelled),
      g_object_ref (future), g_object_unref);
  if (id == 0)
    return;
  g_mutex_lock (&future->lock);
  done = future->done;
  if (!done) {
    future->cancellable = g_object_ref (cancellable);
    future->cancelled_id = id;
  }
  g_mutex_unlock (&future->lock);
  /* The run ended meanwhile, and found nothing to disconnect. */
  if (done)
    g_cancellable_disconnect (cancellable, id);
}

/* Called once, from the work's runner thread, with the run's error (taken)
 * or NULL. Completes the async dispatch, whose callback runs on the
 * caller's main context. */
void
_plan_future_complete (PlanFuture * future, GError * error)
{
  GCancellable *cancellable;
  gulong cancelled_id;
  GTask *task;

  _plan_error_make_valid (error);
  g_mutex_lock (&future->lock);
  future->done = TRUE;
  future->error = error;
  task = future->task;
  future->task = NULL;
  cancellable = future->cancellable;
  future->cancellable = NULL;
  cancelled_id = future->cancelled_id;
  g_cond_broadcast (&future->cond);
  g_mutex_unlock (&future->lock);

  /* Drops the handler's reference to the future. Not with
   * g_cancellable_disconnect(), which waits for the emission to end: a
   * cancel of a dispatch that waits its turn completes it from the
   * handler itself, which would wait for itself. A handler running on
   * another thread meanwhile holds its own reference, and finds the
   * future done. */
  if (cancellable != NULL) {
    g_signal_handler_disconnect (cancellable, cancelled_id);
    g_object_unref (cancellable);
  }

  if (task == NULL)
    return;
  if (error != NULL)
    g_task_return_error (task, g_error_copy (error));
  else
    g_task_return_pointer (task, g_object_ref (future), g_object_unref);
  g_object_unref (task);
}

/* Whether this thread runs a reader, writer or kernel of @future's work:
 * a wait for any run of that work not done yet would never end, since the
 * work runs one dispatch at a time and the run that called back goes on
 * only once the callback returns. Sets @error saying so. */
static gboolean
refuse_wait_inside_callback (PlanFuture * future, GError ** error)
{
  GstElement *element = _plan_thread_get_callback ();
  GstPipeline *pipeline;

  if (element == NULL)
    return FALSE;
  pipeline = plan_work_get_pipeline (PLAN_WORK (future->work));
  if (GST_OBJECT (element) != GST_OBJECT (pipeline)
      && !gst_object_has_as_ancestor (GST_OBJECT (element),
          GST_OBJECT (pipeline)))
    return FALSE;
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_BUSY,
      "plan_future_wait() inside a reader, writer or kernel of this work "
      "(called by %s), for a run of the same work that has not ended: it "
      "would never end, since the work runs one dispatch at a time and the "
      "run that called it goes on only once it returns; wait outside the "
      "callback, or dispatch to another work (realize the graph again)",
      GST_OBJECT_NAME (element));
  return TRUE;
}

/**
 * plan_future_wait:
 * @future: a #PlanFuture
 * @timeout_us: the longest time to wait, in microseconds; -1 (any negative
 *   value) to wait until the run is done, as a timeout too long for the
 *   monotonic clock (%G_MAXINT64) does
 * @error: return location for an error
 *
 * Waits until the dispatch is done. May be called any number of times,
 * from any thread, except from inside a chunk reader, a chunk writer or a
 * custom kernel of the same work while the run is not done: such a wait
 * would never end (the work runs one dispatch at a time, and the run that
 * called back goes on only once the callback returns), so it fails at
 * once with %PLAN_ERROR_BUSY. A @timeout_us of 0 (a poll) is allowed
 * there.
 *
 * Returns: %TRUE when the run succeeded; %FALSE with @error set when it
 *   failed (the element's error, prefixed with the node's name) or was
 *   cancelled (%G_IO_ERROR_CANCELLED), or with %PLAN_ERROR_BUSY for a
 *   wait inside the work's own callback; %FALSE without an error when it is
 *   still running after @timeout_us (plan_future_is_done() tells the two
 *   apart too).
 *
 * Since: 0.1
 */
gboolean
plan_future_wait (PlanFuture * future, gint64 timeout_us, GError ** error)
{
  gint64 now, end;
  gboolean ok = TRUE, forever;

  g_return_val_if_fail (PLAN_IS_FUTURE (future), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (timeout_us != 0 && !plan_future_is_done (future)
      && refuse_wait_inside_callback (future, error))
    return FALSE;

  /* A timeout that reaches past the clock's range (G_MAXINT64) is none:
   * the end would wrap round to the past. */
  now = g_get_monotonic_time ();
  forever = timeout_us < 0 || timeout_us > G_MAXINT64 - now;
  end = forever ? now : now + timeout_us;
  g_mutex_lock (&future->lock);
  while (!future->done && ok) {
    if (forever)
      g_cond_wait (&future->cond, &future->lock);
    else
      ok = g_cond_wait_until (&future->cond, &future->lock, end);
  }
  /* Still running after the timeout: no error, the run has not failed. */
  if (future->done && future->error != NULL)
    g_propagate_error (error, g_error_copy (future->error));
  ok = future->done && future->error == NULL;
  g_mutex_unlock (&future->lock);
  return ok;
}

/**
 * plan_future_is_done:
 * @future: a #PlanFuture
 *
 * Returns: whether the run has ended, successfully or not.
 *
 * Since: 0.1
 */
gboolean
plan_future_is_done (PlanFuture * future)
{
  gboolean done;

  g_return_val_if_fail (PLAN_IS_FUTURE (future), FALSE);

  g_mutex_lock (&future->lock);
  done = future->done;
  g_mutex_unlock (&future->lock);
  return done;
}

/**
 * plan_future_cancel:
 * @future: a #PlanFuture
 *
 * Stops the run if it is still going; it then ends with
 * %G_IO_ERROR_CANCELLED. Files being written are removed, so nothing
 * appears under an output's name; caller arrays keep the rows already
 * written into them. Does not wait: call plan_future_wait() for that.
 *
 * Since: 0.1
 */
void
plan_future_cancel (PlanFuture * future)
{
  g_return_if_fail (PLAN_IS_FUTURE (future));

  if (!plan_future_is_done (future))
    _plan_work_cancel (PLAN_WORK (future->work), future);
}

/**
 * plan_future_get_progress:
 * @future: a #PlanFuture
 * @rows_done: (out) (optional): the rows the sources have produced so far,
 *   all sources together
 * @rows_total: (out) (optional): the rows they will produce, or -1 when a
 *   source's length is not known (a chunk reader that did not say)
 *
 * Returns: the fraction done, from 0 to 1, or -1 when the total is not
 *   known; 1 once the run succeeded.
 *
 * Since: 0.1
 */
gdouble
plan_future_get_progress (PlanFuture * future, guint64 * rows_done,
    gint64 * rows_total)
{
  gdouble fraction;

  g_return_val_if_fail (PLAN_IS_FUTURE (future), -1);

  g_mutex_lock (&future->lock);
  if (rows_done)
    *rows_done = future->rows_done;
  if (rows_total)
    *rows_total = future->rows_total;
  if (future->done && future->error == NULL)
    fraction = 1.0;
  else if (future->rows_total < 0)
    fraction = -1.0;
  else if (future->rows_total == 0)
    fraction = future->done ? 1.0 : 0.0;
  else
    fraction = MIN (1.0, (gdouble) future->rows_done / future->rows_total);
  g_mutex_unlock (&future->lock);
  return fraction;
}

/**
 * plan_future_get_result:
 * @future: a #PlanFuture
 * @name: an output's name
 *
 * Returns: (transfer none) (nullable): the output @name once the run has
 *   succeeded: the caller's array it was bound to, or the array the run
 *   collected when it was left unbound. %NULL before, after a failure, and
 *   for outputs bound to files or writers.
 *
 * Since: 0.1
 */
PlanArray *
plan_future_get_result (PlanFuture * future, const gchar * name)
{
  PlanArray *array = NULL;

  g_return_val_if_fail (PLAN_IS_FUTURE (future), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  g_mutex_lock (&future->lock);
  if (future->done && future->error == NULL)
    array = g_hash_table_lookup (future->results, name);
  g_mutex_unlock (&future->lock);
  return array;
}

/**
 * plan_future_get_result_names:
 * @future: a #PlanFuture
 *
 * Returns: (transfer full) (array zero-terminated=1): the names of the
 *   outputs plan_future_get_result() gives, sorted; empty before the run
 *   has succeeded.
 *
 * Since: 0.1
 */
gchar **
plan_future_get_result_names (PlanFuture * future)
{
  gchar **names;

  g_return_val_if_fail (PLAN_IS_FUTURE (future), NULL);

  g_mutex_lock (&future->lock);
  if (future->done && future->error == NULL)
    names = _plan_sorted_names (future->results);
  else
    names = g_new0 (gchar *, 1);
  g_mutex_unlock (&future->lock);
  return names;
}
