/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:tracer-planstats
 * @title: planstats
 * @short_description: per-element buffers, rows, bytes and busy time
 *
 * A GStreamer tracer (enable it with `GST_TRACERS=planstats`; plan-launch
 * --stats does) that counts, for every element of every pipeline, the
 * buffers, rows and bytes it received on its sink pads and pushed on its
 * source pads, and the time its streaming threads spent in it. It hooks
 * GStreamer's pad-push, pad-push-list and pad-push-event tracing hooks,
 * before and after each push:
 *
 * - An element called by a push (a transform, a sink) is busy from the
 *   push into it to its return, less the time of the pushes it makes
 *   itself: wall-clock time, so a sink's blocking writes count.
 * - An element with a streaming thread of its own and sink pads (a queue,
 *   an aggregator such as every kernel element) hands buffers over to
 *   that thread, and waits there for input and for room: for these the
 *   time is the thread's CPU time, in the push into the element (queueing
 *   the buffer) and between two pushes of its own thread (its work), so
 *   waiting does not count. Work a kernel splits across libplan's worker
 *   pool is done by the streaming thread too, which waits only for the
 *   last piece.
 * - A source is busy between two pushes of its thread, wall-clock time:
 *   waiting for its own reading is its cost.
 *
 * Events pushed downstream mark the same boundaries without being
 * counted, so a thread's first stream-start starts its element's time
 * and a sink's handling of EOS is its time. The `stats` property
 * is a #GstStructure named `plan-stats` with a field `elements`: an array
 * of structures `element-stats`, in the order the elements first pushed
 * or were pushed to, with the fields `name` and `factory` (strings),
 * `source` (boolean), `buffers-in`, `rows-in`, `bytes-in`, `buffers-out`,
 * `rows-out`, `bytes-out`, `time` (nanoseconds), `first` and `last` (the
 * tracer's timestamps of the element's first and last buffer pushed,
 * nanoseconds; G_MAXUINT64 and 0 for an element that pushed none);
 * rows are counted where the caps are `array/x-raw`. Bins (whose pushes go
 * through ghost pads to their children) are left out.
 *
 * The rows of elements that were destroyed stay, so the table grows with
 * every element a process makes while the tracer is on: it is a tool for
 * runs, not for long-lived processes.
 *
 * With `GST_DEBUG=planstats:4` the tracer also logs one line per element
 * when a top-level pipeline goes from PAUSED to READY.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planstats.h"

#include <gst/base/gstaggregator.h>
#include <libplan/plan.h>
#include <time.h>

GST_DEBUG_CATEGORY_STATIC (plan_stats_debug);
#define GST_CAT_DEFAULT plan_stats_debug

typedef struct
{
  gchar *name;
  gchar *factory;
  gboolean source;
  gboolean is_bin;
  gint threaded;                /* -1 not known yet */
  guint64 buffers_in, rows_in, bytes_in;
  guint64 buffers_out, rows_out, bytes_out;
  guint64 time;
  GstClockTime first, last;
} ElementStats;

typedef struct
{
  ElementStats *stats;          /* NULL: a pad without an element */
  GstClockTime wall;
  guint64 cpu;
  GstClockTime child_wall;
  guint64 child_cpu;
  gboolean use_cpu;
} Frame;

typedef struct
{
  GArray *frames;
  ElementStats *loop;           /* the element whose loop pushed last */
  GstClockTime last_wall;
  guint64 last_cpu;
} ThreadState;

struct _PlanStatsTracer
{
  GstTracer parent;

  GMutex lock;
  GHashTable *elements;         /* GstElement * -> ElementStats * */
  GPtrArray *order;             /* ElementStats *, owned */
};

G_DEFINE_TYPE (PlanStatsTracer, plan_stats_tracer, GST_TYPE_TRACER);

enum
{
  PROP_0,
  PROP_STATS,
};

static GQuark row_size_quark;

static void
thread_state_free (gpointer data)
{
  ThreadState *t = data;

  g_array_unref (t->frames);
  g_free (t);
}

static GPrivate thread_state = G_PRIVATE_INIT (thread_state_free);

static ThreadState *
get_thread_state (void)
{
  ThreadState *t = g_private_get (&thread_state);

  if (t == NULL) {
    t = g_new0 (ThreadState, 1);
    t->frames = g_array_new (FALSE, FALSE, sizeof (Frame));
    t->last_wall = GST_CLOCK_TIME_NONE;
    g_private_set (&thread_state, t);
  }
  return t;
}

static guint64
thread_cpu_ns (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (guint64) ts.tv_sec * GST_SECOND + ts.tv_nsec;
}

static void
element_stats_free (gpointer data)
{
  ElementStats *s = data;

  g_free (s->name);
  g_free (s->factory);
  g_free (s);
}

/* The stats of @element, made on its first push. What is read from the
 * element (its name, factory, flags) is read without the tracer's lock,
 * so that no element lock is ever taken under it. */
static ElementStats *
lookup (PlanStatsTracer * self, GstElement * element)
{
  ElementStats *s, *found;
  GstElementFactory *factory;

  g_mutex_lock (&self->lock);
  found = g_hash_table_lookup (self->elements, element);
  g_mutex_unlock (&self->lock);
  if (found != NULL)
    return found;

  s = g_new0 (ElementStats, 1);
  s->name = gst_object_get_name (GST_OBJECT (element));
  factory = gst_element_get_factory (element);
  s->factory = g_strdup (factory ?
      GST_OBJECT_NAME (factory) : G_OBJECT_TYPE_NAME (element));
  s->source = GST_OBJECT_FLAG_IS_SET (element, GST_ELEMENT_FLAG_SOURCE);
  s->is_bin = GST_IS_BIN (element);
  s->threaded = -1;
  s->first = GST_CLOCK_TIME_NONE;

  g_mutex_lock (&self->lock);
  found = g_hash_table_lookup (self->elements, element);
  if (found == NULL) {
    g_hash_table_insert (self->elements, element, s);
    g_ptr_array_add (self->order, s);
    found = s;
    s = NULL;
  }
  g_mutex_unlock (&self->lock);
  if (s)
    element_stats_free (s);     /* another thread made it first */
  else
    GST_DEBUG ("first push of %s (%s)", found->name, found->factory);
  return found;
}

/* Whether @element runs its own streaming thread behind its sink pads: a
 * source pad with a task (queue, aggregator). */
static gboolean
is_threaded (GstElement * element)
{
  gboolean threaded = FALSE;
  GList *l;

  if (GST_IS_AGGREGATOR (element))
    return TRUE;
  GST_OBJECT_LOCK (element);
  for (l = element->srcpads; l; l = l->next)
    threaded |= GST_PAD_TASK (GST_PAD (l->data)) != NULL;
  GST_OBJECT_UNLOCK (element);
  return threaded;
}

typedef struct
{
  GstCaps *caps;
  gsize row_size;
} RowSize;

static void
row_size_free (gpointer data)
{
  RowSize *r = data;

  gst_clear_caps (&r->caps);
  g_free (r);
}

/* The bytes of a row of @pad's array caps, 0 for other caps. */
static gsize
pad_row_size (GstPad * pad)
{
  GstCaps *caps = gst_pad_get_current_caps (pad);
  RowSize *r;
  PlanArrayInfo info;

  if (caps == NULL)
    return 0;
  r = g_object_get_qdata (G_OBJECT (pad), row_size_quark);
  if (r && r->caps == caps) {
    gst_caps_unref (caps);
    return r->row_size;
  }
  r = g_new0 (RowSize, 1);
  r->caps = caps;
  if (plan_array_info_from_caps (&info, caps, NULL))
    r->row_size = plan_array_info_get_row_size (&info);
  g_object_set_qdata_full (G_OBJECT (pad), row_size_quark, r, row_size_free);
  return r->row_size;
}

static GstElement *
pad_element (GstPad * pad)
{
  GstObject *parent = pad ? GST_OBJECT_PARENT (pad) : NULL;

  return parent && GST_IS_ELEMENT (parent) ? GST_ELEMENT (parent) : NULL;
}

static void
push_pre (PlanStatsTracer * self, GstClockTime ts, GstPad * pad,
    guint n_buffers, gsize n_bytes)
{
  ThreadState *t = get_thread_state ();
  guint64 cpu = thread_cpu_ns ();
  GstElement *from = pad_element (pad);
  GstPad *peer = gst_pad_get_peer (pad);
  GstElement *to = pad_element (peer);
  gsize out_row = n_buffers ? pad_row_size (pad) : 0;
  ElementStats *src = NULL, *dst = NULL;
  Frame frame = { 0, };

  if (from)
    src = lookup (self, from);
  if (to) {
    dst = lookup (self, to);
    /* once per element; two threads finding the same is harmless */
    if (g_atomic_int_get (&dst->threaded) < 0)
      g_atomic_int_set (&dst->threaded, is_threaded (to));
    frame.use_cpu = g_atomic_int_get (&dst->threaded) > 0;
  }

  g_mutex_lock (&self->lock);
  if (src) {
    src->buffers_out += n_buffers;
    src->bytes_out += n_bytes;
    if (out_row)
      src->rows_out += n_bytes / out_row;
    if (n_buffers && !GST_CLOCK_TIME_IS_VALID (src->first))
      src->first = ts;
    if (n_buffers)
      src->last = ts;
  }
  /* A push from a thread's loop: the time since its last push was the
   * loop's element's own. */
  if (t->frames->len == 0 && src) {
    if (t->loop == src && GST_CLOCK_TIME_IS_VALID (t->last_wall)) {
      if (src->source)
        src->time += ts - MIN (ts, t->last_wall);
      else
        src->time += cpu - MIN (cpu, t->last_cpu);
    }
    t->loop = src;
  }
  if (dst) {
    dst->buffers_in += n_buffers;
    dst->bytes_in += n_bytes;
    if (out_row)
      dst->rows_in += n_bytes / out_row;
  }
  g_mutex_unlock (&self->lock);

  frame.stats = dst;
  frame.wall = ts;
  frame.cpu = cpu;
  g_array_append_val (t->frames, frame);
  gst_clear_object (&peer);
}

static void
push_post (PlanStatsTracer * self, GstClockTime ts)
{
  ThreadState *t = get_thread_state ();
  guint64 cpu = thread_cpu_ns ();
  GstClockTime wall_spent;
  guint64 cpu_spent;
  Frame *f;

  if (t->frames->len == 0)
    return;                     /* the tracer came in the middle of a push */
  f = &g_array_index (t->frames, Frame, t->frames->len - 1);
  wall_spent = ts - MIN (ts, f->wall);
  cpu_spent = cpu - MIN (cpu, f->cpu);
  if (f->stats) {
    g_mutex_lock (&self->lock);
    if (f->use_cpu)
      f->stats->time += cpu_spent - MIN (cpu_spent, f->child_cpu);
    else
      f->stats->time += wall_spent - MIN (wall_spent, f->child_wall);
    g_mutex_unlock (&self->lock);
  }
  g_array_set_size (t->frames, t->frames->len - 1);
  if (t->frames->len > 0) {
    Frame *up = &g_array_index (t->frames, Frame, t->frames->len - 1);

    up->child_wall += wall_spent;
    up->child_cpu += cpu_spent;
  } else {
    t->last_wall = ts;
    t->last_cpu = cpu;
  }
}

static void
do_push_buffer_pre (GstTracer * tracer, GstClockTime ts, GstPad * pad,
    GstBuffer * buffer)
{
  push_pre (PLAN_STATS_TRACER (tracer), ts, pad, 1,
      gst_buffer_get_size (buffer));
}

static gboolean
add_size (GstBuffer ** buffer, guint idx, gpointer user_data)
{
  *(gsize *) user_data += gst_buffer_get_size (*buffer);
  return TRUE;
}

static void
do_push_list_pre (GstTracer * tracer, GstClockTime ts, GstPad * pad,
    GstBufferList * list)
{
  gsize bytes = 0;

  gst_buffer_list_foreach (list, add_size, &bytes);
  push_pre (PLAN_STATS_TRACER (tracer), ts, pad,
      gst_buffer_list_length (list), bytes);
}

static void
do_push_post (GstTracer * tracer, GstClockTime ts, GstPad * pad,
    GstFlowReturn res)
{
  push_post (PLAN_STATS_TRACER (tracer), ts);
}

/* Events going downstream mark the same boundaries as buffers (the
 * stream-start, caps and segment a thread pushes before its first buffer
 * start its element's time; a sink's handling of EOS is its time), without
 * being counted. Upstream events are left out. */
static void
do_push_event_pre (GstTracer * tracer, GstClockTime ts, GstPad * pad,
    GstEvent * event)
{
  if (GST_PAD_IS_SRC (pad))
    push_pre (PLAN_STATS_TRACER (tracer), ts, pad, 0, 0);
}

static void
do_push_event_post (GstTracer * tracer, GstClockTime ts, GstPad * pad,
    gboolean res)
{
  if (GST_PAD_IS_SRC (pad))
    push_post (PLAN_STATS_TRACER (tracer), ts);
}

/* A destroyed element's address may be reused by a new one: its row stays
 * in the table, under its name, and the address is forgotten. */
static void
do_object_destroyed (GstTracer * tracer, GstClockTime ts, GstObject * object)
{
  PlanStatsTracer *self = PLAN_STATS_TRACER (tracer);

  if (!GST_IS_ELEMENT (object))
    return;
  g_mutex_lock (&self->lock);
  g_hash_table_remove (self->elements, object);
  g_mutex_unlock (&self->lock);
}

static GstStructure *
element_structure (const ElementStats * s)
{
  return gst_structure_new ("element-stats",
      "name", G_TYPE_STRING, s->name,
      "factory", G_TYPE_STRING, s->factory,
      "source", G_TYPE_BOOLEAN, s->source,
      "buffers-in", G_TYPE_UINT64, s->buffers_in,
      "rows-in", G_TYPE_UINT64, s->rows_in,
      "bytes-in", G_TYPE_UINT64, s->bytes_in,
      "buffers-out", G_TYPE_UINT64, s->buffers_out,
      "rows-out", G_TYPE_UINT64, s->rows_out,
      "bytes-out", G_TYPE_UINT64, s->bytes_out,
      "time", G_TYPE_UINT64, s->time,
      "first", G_TYPE_UINT64, (guint64) s->first,
      "last", G_TYPE_UINT64, (guint64) s->last, NULL);
}

static GstStructure *
make_stats (PlanStatsTracer * self)
{
  GstStructure *result = gst_structure_new_empty ("plan-stats");
  GValue list = G_VALUE_INIT;
  guint i;

  gst_value_array_init (&list, self->order->len);
  g_mutex_lock (&self->lock);
  for (i = 0; i < self->order->len; i++) {
    const ElementStats *s = g_ptr_array_index (self->order, i);
    GValue v = G_VALUE_INIT;

    if (s->is_bin)
      continue;
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, element_structure (s));
    gst_value_array_append_and_take_value (&list, &v);
  }
  g_mutex_unlock (&self->lock);
  gst_structure_take_value (result, "elements", &list);
  return result;
}

static void
do_change_state_post (GstTracer * tracer, GstClockTime ts,
    GstElement * element, GstStateChange transition,
    GstStateChangeReturn result)
{
  PlanStatsTracer *self = PLAN_STATS_TRACER (tracer);
  GstStructure *stats;
  const GValue *list;
  guint i;

  if (transition != GST_STATE_CHANGE_PAUSED_TO_READY
      || GST_OBJECT_PARENT (element) != NULL || !GST_IS_PIPELINE (element)
      || gst_debug_category_get_threshold (plan_stats_debug) < GST_LEVEL_INFO)
    return;
  stats = make_stats (self);
  list = gst_structure_get_value (stats, "elements");
  for (i = 0; i < gst_value_array_get_size (list); i++) {
    gchar *text = gst_structure_to_string (gst_value_get_structure
        (gst_value_array_get_value (list, i)));

    GST_INFO_OBJECT (element, "%s", text);
    g_free (text);
  }
  gst_structure_free (stats);
}

static void
plan_stats_tracer_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  PlanStatsTracer *self = PLAN_STATS_TRACER (object);

  switch (prop_id) {
    case PROP_STATS:
      g_value_take_boxed (value, make_stats (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
plan_stats_tracer_finalize (GObject * object)
{
  PlanStatsTracer *self = PLAN_STATS_TRACER (object);

  g_hash_table_unref (self->elements);
  g_ptr_array_unref (self->order);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (plan_stats_tracer_parent_class)->finalize (object);
}

static void
plan_stats_tracer_class_init (PlanStatsTracerClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->get_property = plan_stats_tracer_get_property;
  gobject_class->finalize = plan_stats_tracer_finalize;

  /**
   * PlanStatsTracer:stats:
   *
   * What was counted so far, as described above.
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Stats",
          "Buffers, rows, bytes and busy time of every element so far "
          "(a plan-stats structure)", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  row_size_quark = g_quark_from_static_string ("plan-stats-row-size");
  GST_DEBUG_CATEGORY_INIT (plan_stats_debug, "planstats", 0,
      "per-element buffers, rows, bytes and busy time");
}

static void
plan_stats_tracer_init (PlanStatsTracer * self)
{
  GstTracer *tracer = GST_TRACER (self);

  g_mutex_init (&self->lock);
  self->elements = g_hash_table_new (NULL, NULL);
  self->order = g_ptr_array_new_with_free_func (element_stats_free);
  gst_tracing_register_hook (tracer, "pad-push-pre",
      G_CALLBACK (do_push_buffer_pre));
  gst_tracing_register_hook (tracer, "pad-push-post",
      G_CALLBACK (do_push_post));
  gst_tracing_register_hook (tracer, "pad-push-list-pre",
      G_CALLBACK (do_push_list_pre));
  gst_tracing_register_hook (tracer, "pad-push-list-post",
      G_CALLBACK (do_push_post));
  gst_tracing_register_hook (tracer, "pad-push-event-pre",
      G_CALLBACK (do_push_event_pre));
  gst_tracing_register_hook (tracer, "pad-push-event-post",
      G_CALLBACK (do_push_event_post));
  gst_tracing_register_hook (tracer, "object-destroyed",
      G_CALLBACK (do_object_destroyed));
  gst_tracing_register_hook (tracer, "element-change-state-post",
      G_CALLBACK (do_change_state_post));
}
