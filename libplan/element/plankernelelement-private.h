/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanKernelElement's state, shared by its files: plankernelelement.c
 * (the class, its pads, properties, events, negotiation, start and stop;
 * the lock order is written at its top and holds for all of them),
 * plankernelelement-aggregate.c (the inputs' rows lined up and handed to
 * the subclass), plankernelelement-seek.c (seeks, flushes and the
 * queries answered about the output), plankernelelement-subclass.c (what
 * a subclass calls: output buffers and pushes, what it reads of its
 * inputs and output) and plankernelelement-device.c (device memory). */

#ifndef __PLAN_KERNEL_ELEMENT_PRIVATE_H__
#define __PLAN_KERNEL_ELEMENT_PRIVATE_H__

#include "libplan/core/plan-private.h"
#include "plankernelelement.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (plan_kernel_element_debug);

struct _PlanKernelPad
{
  GstAggregatorPad parent;

  /* protected by OBJECT_LOCK; written on CAPS events */
  PlanArrayInfo info;
  gboolean have_info;
  gboolean info_changed;
  gchar *variable;              /* the variable property */
  gchar *window;                /* the window property */

  /* aggregate thread only */
  gsize consumed;               /* rows of the head buffer already used */
  guint64 next_row;             /* index of the next row expected */
  guint64 range_first;          /* the rows the segment selects: */
  gint64 range_end;             /* [first, end), end -1 to the end */
  guint64 range_time;           /* the segment's stream position of its
                                 * first row (its time, in rows) */
  GstSegment in_segment;        /* the last segment, as it came */
  gchar *stream_id;             /* of the last STREAM_START, NULL before */
  gboolean segment_done;        /* a SEGMENT_DONE ended its range */
  gboolean ended_early;         /* its EOS ended the stream on purpose
                                 * (PLAN_EOS_ENDED_EARLY) */
  gboolean sharded;             /* a PLAN_EVENT_SHARD came: its rows are
                                 * one rank's share */

  /* atomic: set by a FLUSH_STOP, cleared by the first rows after it */
  gint flushed;

  /* set once when constructed: GstAggregatorPad's */
  GstPadActivateModeFunction base_activate_mode;
};

typedef struct
{
  /* protected by OBJECT_LOCK */
  PlanTarget target;
  guint n_threads;
  gsize seek_row_size;          /* bytes per output row for byte seeks, or
                                 * 0 when output rows are not input rows */
  gsize out_row_size;           /* of the output set up, 0 before */
  PlanArrayInfo out_time;       /* the output's rate (for queries and
                                 * seeks in time), rate_n 0 without */
  gint64 out_caps_rows;         /* the output's rows per its caps, or -1 */
  gboolean inputs_in_time;      /* every input has the output's rate: seeks
                                 * upstream are made in time */
  gboolean settings_read;       /* setup() has read the properties, and
                                 * the element computes with them */

  /* aggregate thread only */
  gboolean configured;
  guint n_inputs;
  PlanArrayInfo *inputs;        /* [n_inputs] */
  gchar **input_names;          /* [n_inputs + 1] */
  gchar **input_variables;      /* [n_inputs + 1]: NULL where unset */
  gchar **input_windows;        /* [n_inputs + 1]: NULL where unset */
  PlanArrayInfo output;
  gsize slice_rows;             /* the most rows per process() on the host */
  guint64 out_rows;             /* the offset of the next output row */
  GstFlowReturn push_flow;      /* of the last push_output(), for a launch()
                                 * that pushes itself (launch_pushes,
                                 * launch_consumes) */
  gboolean new_range;           /* an input segment chose new rows */
  gboolean output_started;      /* a buffer or a GAP went out in the range */
  gboolean range_finished;      /* finish() ran for the range */
  gboolean discont;             /* the next buffer pushed is the first of a
                                 * stream, a range or after a flush */
  guint32 segment_seqnum;       /* of the last input segment (a seek's
                                 * answer carries the seek's), which the
                                 * output's answers */
  gboolean direct_output;       /* downstream gave memory for the last
                                 * output (PLAN_QUERY_OUTPUT_ROWS) */
  guint n_unpushed;             /* outputs allocated and not pushed yet */
  gboolean lending_refused;     /* downstream, with caps, lent nothing */
  GstBufferPool *pool;
  gsize pool_size;
  GstMapInfo *maps;             /* [n_inputs] */
  gconstpointer *chunk_data;    /* [n_inputs] */
  GstBuffer **heads;            /* [n_inputs], during process() only */
  gboolean maps_held;           /* process() kept maps (a PlanHeldChunk) */

  /* atomic: set by the aggregate thread on an error, read by the src pad
   * probe that keeps EOS from following it downstream */
  gint failed;
  /* atomic: an input said that its stream failed upstream, where the
   * error was posted (PLAN_EVENT_STREAM_FAILED) */
  gint upstream_failed;
  /* atomic: the result was given over inputs that ended early on purpose
   * (PLAN_EOS_ENDED_EARLY): the src pad probe marks the EOS that follows */
  gint ended_early;
  /* atomic: a flushing seek is on its way through the element, from
   * src_event until the flush (flush()) or, when there is none, its end;
   * read by the same probe */
  gint seeking;
  guint32 seek_seqnum;          /* the last flushing seek's; OBJECT_LOCK */
  GstEvent *pending_seek;       /* a byte seek that came before the output's
                                 * row size was known; OBJECT_LOCK */
  guint n_seeks;                /* seeks received; OBJECT_LOCK */
  guint pending_seek_n;         /* the pending seek's number among them */
  PlanKernelDevice *device;     /* start() to stop(); plankernelelement-device.c */
  /* aggregate thread: the input is one rank's share (PLAN_EVENT_SHARD) */
  gboolean sharded;
  PlanShardInfo shard;
  gchar *posted_error;          /* the message of the last error the
                                 * element posted (object lock) */
  GstDebugCategory *cat;        /* the element's own category, for the
                                 * decisions logged for it */
  /* taken by the aggregate thread around each pop of an input buffer and
   * by release_pad around the base class's release (see pop_input) */
  GMutex pop_lock;
  /* held by update_src_caps from its list of the sink pads to
   * settings_read, and by request_new_pad around its check of
   * settings_read and the base class's request: a pad is either in the
   * inputs set up, or refused (see the lock order in plankernelelement.c) */
  GRecMutex inputs_lock;
} PlanKernelElementPrivate;

G_GNUC_INTERNAL
PlanKernelElementPrivate * _plan_kernel_element_get_private (
    PlanKernelElement * self);

#define GET_PRIV(self) \
    _plan_kernel_element_get_private (PLAN_KERNEL_ELEMENT (self))

/* GstAggregator's class, which PlanKernelElement chains up to. */
G_GNUC_INTERNAL
gpointer _plan_kernel_element_get_parent_class (void);

/* plankernelelement.c */
G_GNUC_INTERNAL
void _plan_kernel_element_clear_pool (PlanKernelElementPrivate * priv);

G_GNUC_INTERNAL
GList * _plan_kernel_element_get_sink_pads (PlanKernelElement * self);

G_GNUC_INTERNAL
void _plan_kernel_element_send_pending_seek (GstElement * element,
    gpointer data);

G_GNUC_INTERNAL
void _plan_kernel_element_tell_ranks (PlanKernelElement * self);

G_GNUC_INTERNAL
const gchar *_plan_kernel_element_lengths_hint (guint64 a, guint64 b);

G_GNUC_INTERNAL
const gchar *_plan_kernel_element_shard_hint (GList * pads);

G_GNUC_INTERNAL
void _plan_kernel_element_post_refused_caps (PlanKernelElement * self,
    GstCaps * offered, GstCaps * wanted);

/* plankernelelement-aggregate.c */
G_GNUC_INTERNAL
GstBuffer * _plan_kernel_element_pop_input (PlanKernelElement * self,
    PlanKernelPad * pad);

G_GNUC_INTERNAL
void _plan_kernel_element_preroll_downstream (PlanKernelElement * self);

G_GNUC_INTERNAL
GstFlowReturn _plan_kernel_element_end_range (PlanKernelElement * self,
    PlanKernelPad * pad, gboolean segment_done);

G_GNUC_INTERNAL
GstFlowReturn _plan_kernel_element_aggregate (GstAggregator * agg,
    gboolean timeout);

/* plankernelelement-seek.c */
G_GNUC_INTERNAL
void _plan_kernel_element_reset_state (PlanKernelElement * self);

G_GNUC_INTERNAL
gboolean _plan_kernel_element_src_event (GstAggregator * agg, GstEvent * event);

G_GNUC_INTERNAL
gboolean _plan_kernel_element_seek (GstAggregator * agg, GstEvent * event,
    gchar ** why);

G_GNUC_INTERNAL
gboolean _plan_kernel_element_src_query (GstAggregator * agg, GstQuery * query);

G_GNUC_INTERNAL
gboolean _plan_kernel_element_send_event (GstElement * element,
    GstEvent * event);

G_GNUC_INTERNAL
void _plan_kernel_element_init_output_segment (PlanKernelElement * self);

G_GNUC_INTERNAL
GstFlowReturn _plan_kernel_element_flush (GstAggregator * agg);

G_END_DECLS

#endif /* __PLAN_KERNEL_ELEMENT_PRIVATE_H__ */
