/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planparallel
 * @title: Parallel for
 * @short_description: a persistent worker pool that splits index ranges
 *
 * plan_parallel_for() splits the indices [0, n) into chunks of at least
 * `grain` indices and runs them on the calling thread and on a process-wide
 * pool of worker threads, one per core less one, created on first use and
 * kept for the life of the process. The caller takes part in the work and
 * returns once every chunk is done, so it is safe to call from several
 * threads at once and from inside a #PlanRangeFunc: when every worker is
 * busy, the caller simply does all the chunks itself.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planparallel.h"
#include "plan-private.h"

#include <gst/gst.h>

#if defined(__x86_64__) || defined(__i386__)
#define PLAN_CPU_RELAX() __builtin_ia32_pause ()
#elif defined(__aarch64__)
#define PLAN_CPU_RELAX() __asm__ __volatile__ ("yield")
#else
#define PLAN_CPU_RELAX() do { } while (0)
#endif

GST_DEBUG_CATEGORY_STATIC (plan_parallel_debug);
#define GST_CAT_DEFAULT plan_parallel_debug

/* Chunks are claimed with an atomic counter; a chunk index fits a gint. */
#define MAX_CHUNKS (1 << 24)

typedef struct
{
  gint ref_count;
  PlanRangeFunc func;
  gpointer user_data;
  gsize n;
  gsize chunk;
  gint n_chunks;
  gint next;                    /* atomic: next chunk to claim */
  gint done;                    /* atomic: chunks finished */
  gint64 linger_us;             /* how long a worker waits for the next */
  GstElement *callback;         /* the submitter's, for plan_future_wait() */
  GMutex lock;
  GCond cond;                   /* signalled when done reaches n_chunks */
} Job;

/* The pool: created once, never torn down. The queue holds Job references,
 * one per worker invited to help. */
static GAsyncQueue *queue;
static guint n_workers;

/* The element whose application callback this thread runs (borrowed: the
 * element outlives the call). */
static GPrivate callback_element;

GstElement *
_plan_thread_enter_callback (GstElement * element)
{
  GstElement *previous = g_private_get (&callback_element);

  g_private_set (&callback_element, element);
  return previous;
}

void
_plan_thread_leave_callback (GstElement * previous)
{
  g_private_set (&callback_element, previous);
}

GstElement *
_plan_thread_get_callback (void)
{
  return g_private_get (&callback_element);
}

static void
job_unref (Job * job)
{
  if (g_atomic_int_dec_and_test (&job->ref_count)) {
    g_mutex_clear (&job->lock);
    g_cond_clear (&job->cond);
    g_free (job);
  }
}

static void
job_run (Job * job)
{
  GstElement *previous = _plan_thread_enter_callback (job->callback);
  gint c;

  while ((c = g_atomic_int_add (&job->next, 1)) < job->n_chunks) {
    gsize begin = (gsize) c * job->chunk;
    gsize end = MIN (job->n, begin + job->chunk);

    job->func (begin, end, job->user_data);
    if (g_atomic_int_add (&job->done, 1) + 1 == job->n_chunks) {
      g_mutex_lock (&job->lock);
      g_cond_broadcast (&job->cond);
      g_mutex_unlock (&job->lock);
    }
  }
  _plan_thread_leave_callback (previous);
}

/* Polls the queue for up to @linger_us before the worker goes to sleep.
 * Waking a sleeping thread costs tens of microseconds (more on a virtual
 * machine, where its idle core may have been handed back to the host),
 * as much as a whole small job: a caller that dispatches one small job
 * after another asks its workers to stay awake in between. */
static Job *
pop_lingering (gint64 linger_us)
{
  gint64 until;
  Job *job;

  if (linger_us <= 0)
    return g_async_queue_pop (queue);
  until = g_get_monotonic_time () + linger_us;
  do {
    guint i;

    if ((job = g_async_queue_try_pop (queue)) != NULL)
      return job;
    for (i = 0; i < 64; i++)
      PLAN_CPU_RELAX ();
  } while (g_get_monotonic_time () < until);
  return g_async_queue_pop (queue);
}

static gpointer
worker_main (gpointer data)
{
  gint64 linger_us = 0;

  while (TRUE) {
    Job *job = pop_lingering (linger_us);

    job_run (job);
    linger_us = job->linger_us;
    job_unref (job);
  }
  return NULL;
}

static void
ensure_pool (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    guint i, cores = plan_parallel_get_n_cores ();

    GST_DEBUG_CATEGORY_INIT (plan_parallel_debug, "planparallel", 0,
        "worker pool");
    queue = g_async_queue_new ();
    for (i = 0; i + 1 < cores; i++) {
      GError *err = NULL;
      GThread *t = g_thread_try_new ("plan-worker", worker_main, NULL, &err);
      /* Without a thread the pool is smaller; the caller still does all
       * the work itself, so this is not an error. */
      if (t == NULL) {
        GST_WARNING ("could not start a worker thread: %s", err->message);
        g_clear_error (&err);
        break;
      }
      g_thread_unref (t);
      n_workers++;
    }
    GST_INFO ("%u cores, %u worker threads", cores, n_workers);
    g_once_init_leave (&done, 1);
  }
}

/**
 * plan_parallel_get_n_cores:
 *
 * The number of processors the process may run on when it first asked,
 * counted once: g_get_num_processors() reads a sysfs file each time, which
 * costs more than a small block of work.
 *
 * Returns: the number of processors (at least 1).
 *
 * Since: 0.1
 */
guint
plan_parallel_get_n_cores (void)
{
  static gsize cores = 0;

  if (g_once_init_enter (&cores))
    g_once_init_leave (&cores, MAX (1u, g_get_num_processors ()));
  return (guint) cores;
}

/**
 * plan_parallel_for:
 * @n_threads: how many threads at most work on the range, the caller
 *   included; 0 means one per core
 * @n: the number of indices
 * @grain: the smallest number of indices worth handing to a thread; ranges
 *   are multiples of it except the last
 * @func: (scope call): called for disjoint ranges covering [0, @n)
 * @user_data: passed to @func
 *
 * Runs @func over [0, @n) split into ranges, on the calling thread and on
 * up to @n_threads - 1 worker threads, and returns when all ranges are
 * done. With @n_threads 1, or when @n is at most @grain, @func is called
 * once, inline, for the whole range.
 *
 * Since: 0.1
 */
void
plan_parallel_for (guint n_threads, gsize n, gsize grain, PlanRangeFunc func,
    gpointer user_data)
{
  _plan_parallel_for_lingering (n_threads, n, grain, func, user_data, 0);
}

/* A job of @n indices in chunks of a multiple of @grain, offered to up to
 * @n_threads - 1 worker threads (fewer when the pool or the job is
 * smaller: one chunk fewer when @caller_now, the caller taking one at
 * once). */
static Job *
job_submit (guint n_threads, gsize n, gsize grain, PlanRangeFunc func,
    gpointer user_data, gboolean caller_now, gint64 linger_us)
{
  Job *job;
  gsize chunk;
  guint helpers, i;

  ensure_pool ();

  /* A few chunks per thread balance uneven ranges without much overhead. */
  chunk = MAX (grain, n / ((gsize) n_threads * 4));
  chunk = (chunk + grain - 1) / grain * grain;
  while ((n + chunk - 1) / chunk > MAX_CHUNKS)
    chunk *= 2;

  job = g_new0 (Job, 1);
  job->ref_count = 1;
  job->func = func;
  job->user_data = user_data;
  job->linger_us = linger_us;
  job->callback = _plan_thread_get_callback ();
  job->n = n;
  job->chunk = chunk;
  job->n_chunks = (gint) ((n + chunk - 1) / chunk);
  g_mutex_init (&job->lock);
  g_cond_init (&job->cond);

  helpers = MIN (MIN (n_threads - 1, n_workers),
      (guint) job->n_chunks - (caller_now ? 1 : 0));
  for (i = 0; i < helpers; i++) {
    g_atomic_int_inc (&job->ref_count);
    g_async_queue_push (queue, job);
  }
  return job;
}

/* Takes the chunks no thread has claimed yet, waits for the others, and
 * drops the caller's reference. */
static void
job_join (Job * job)
{
  job_run (job);

  /* A lingering caller waits for the helpers' last chunks awake as well:
   * sleeping on the condition would cost it the wake-up the workers'
   * lingering saves. */
  if (job->linger_us > 0 && g_atomic_int_get (&job->done) < job->n_chunks) {
    gint64 until = g_get_monotonic_time () + job->linger_us;
    guint i;

    do {
      for (i = 0; i < 64; i++)
        PLAN_CPU_RELAX ();
    } while (g_atomic_int_get (&job->done) < job->n_chunks
        && g_get_monotonic_time () < until);
  }

  g_mutex_lock (&job->lock);
  while (g_atomic_int_get (&job->done) < job->n_chunks)
    g_cond_wait (&job->cond, &job->lock);
  g_mutex_unlock (&job->lock);
  job_unref (job);
}

/*
 * _plan_parallel_for_lingering:
 * @linger_us: how long the workers that helped keep polling for the next
 *   job before they sleep; 0 for not at all
 *
 * plan_parallel_for(), for a caller that expects to come back soon with
 * more work of the same size (an in-memory dispatch in a loop): the
 * workers spin for up to @linger_us after this job instead of going to
 * sleep, at the cost of that much CPU time each when no job comes.
 */
void
_plan_parallel_for_lingering (guint n_threads, gsize n, gsize grain,
    PlanRangeFunc func, gpointer user_data, gint64 linger_us)
{
  g_return_if_fail (func != NULL);

  if (n == 0)
    return;
  if (n_threads == 0)
    n_threads = plan_parallel_get_n_cores ();
  grain = MAX (grain, 1);
  if (n_threads == 1 || n <= grain) {
    func (0, n, user_data);
    return;
  }
  job_join (job_submit (n_threads, n, grain, func, user_data, TRUE,
          linger_us));
}

/*
 * _plan_parallel_submit:
 *
 * plan_parallel_for() in two halves: the pool's workers start on the
 * ranges now, and _plan_parallel_join() (which must follow, once, from
 * the thread that owns the job's data: a reducer's settle may run on the
 * thread that flushes it) takes the ranges left, waits for the rest and
 * frees the job. In
 * between the caller is free to do something else: hand the next piece of
 * work to the pool, say, so that the workers never wait for it. With
 * @n_threads 1 (or no worker thread) the join does all the work.
 *
 * Returns: (transfer full): the job, for _plan_parallel_join(); %NULL
 *   when @n is 0
 */
PlanParallelJob *
_plan_parallel_submit (guint n_threads, gsize n, gsize grain,
    PlanRangeFunc func, gpointer user_data)
{
  g_return_val_if_fail (func != NULL, NULL);

  if (n == 0)
    return NULL;
  if (n_threads == 0)
    n_threads = plan_parallel_get_n_cores ();
  return (PlanParallelJob *) job_submit (n_threads, n, MAX (grain, 1), func,
      user_data, FALSE, 0);
}

void
_plan_parallel_join (PlanParallelJob * job)
{
  if (job != NULL)
    job_join ((Job *) job);
}
