/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:plankernelelement
 * @title: PlanKernelElement
 * @short_description: base class for elements that compute on arrays
 *
 * #PlanKernelElement is what planmap, planreduce and planstencil are built
 * on, and what a third party subclasses to write its own array element in
 * one file. It derives from #GstAggregator, so it takes any number of
 * inputs, and it does the work every such element needs:
 *
 * - negotiation: each input's caps are parsed into a #PlanArrayInfo and
 *   handed to the subclass's setup(), which says what it produces;
 * - alignment: the rows of all inputs are lined up by row index and
 *   handed to process() as a #PlanChunk of pointers into the inputs'
 *   buffers, without copying, whatever chunk sizes each input uses;
 * - checks: buffers of whole rows, row offsets without gaps, the same
 *   number of rows on every input at EOS (an error naming both lengths),
 *   every row announced unless an EOS ended the stream early on purpose
 *   (#PLAN_EOS_ENDED_EARLY: the result is then over the rows received);
 * - output: buffers from a pool, stamped with row offsets;
 * - preroll: a GAP event downstream while the rows seen gave no output;
 * - seeking in rows (a seek in TIME is refused) and flushing: after a
 *   seek the rows sought are a stream of their own (see output_range());
 * - the `n-threads` and `target` properties.
 *
 * A minimal element that doubles its input:
 *
 * |[<!-- language="C" -->
 * static gboolean
 * my_double_setup (PlanKernelElement * kernel, guint n_inputs,
 *     const PlanArrayInfo * inputs, PlanArrayInfo * output, GError ** error)
 * {
 *   if (inputs[0].dtype != PLAN_DTYPE_FLOAT32) {
 *     g_set_error (error, PLAN_ERROR, PLAN_ERROR_TYPE, "needs float32");
 *     return FALSE;
 *   }
 *   *output = inputs[0];
 *   return TRUE;
 * }
 *
 * static GstFlowReturn
 * my_double_process (PlanKernelElement * kernel, const PlanChunk * chunk)
 * {
 *   ... plan_kernel_element_alloc_output (), map, compute,
 *   plan_kernel_element_push_output () ...
 * }
 * ]|
 *
 * tests/examples/ holds a complete one built against the installed
 * library.
 */

/* Locking
 *
 * Lock order, outermost first:
 *   1. pop_lock (PlanKernelElementPrivate): held around the base class's
 *      gst_aggregator_pad_pop_buffer() (which takes the pad's PAD_LOCK)
 *      and its release_pad() (which takes the aggregator's SRC_LOCK, the
 *      pad's PAD_LOCK and the element's OBJECT_LOCK); see pop_input().
 *      Taken with no other lock held.
 *   2. the element's OBJECT_LOCK: the properties and the seek state (the
 *      fields marked OBJECT_LOCK in PlanKernelElementPrivate). Inside it
 *      the device code takes the sink pads' OBJECT_LOCKs (their current
 *      caps) and plan_device_get()'s registry lock (device_of_inputs()).
 *   3. a pad's OBJECT_LOCK: the pad's properties.
 * Nothing is pushed, posted, queried or handed to a subclass's vmethod
 * with any of these held. The fields marked "aggregate thread" are only
 * touched from aggregate() and the vmethods GstAggregator calls on that
 * thread (or with it stopped); the atomic ones are read by the src pad's
 * probe on other threads.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plankernelelement.h"
#include <libplan/planerror.h>
#include "libplan/core/plan-private.h"
#include <libplan/planshardhooks.h>

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (plan_kernel_element_debug);
#define GST_CAT_DEFAULT plan_kernel_element_debug

/* The alignment of output buffers from the pool: a page. */
#define OUTPUT_ALIGN 4096

/* PlanKernelPad ----------------------------------------------------------- */

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
  gboolean ended_early;         /* its EOS ended the stream on purpose
                                 * (PLAN_EOS_ENDED_EARLY) */

  /* set once when constructed: GstAggregatorPad's */
  GstPadActivateModeFunction base_activate_mode;
};

G_DEFINE_TYPE (PlanKernelPad, plan_kernel_pad, GST_TYPE_AGGREGATOR_PAD);

enum
{
  PAD_PROP_0,
  PAD_PROP_VARIABLE,
  PAD_PROP_WINDOW,
};

static void
plan_kernel_pad_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  PlanKernelPad *pad = PLAN_KERNEL_PAD (object);
  const gchar *s = g_value_get_string (value);

  switch (prop_id) {
    case PAD_PROP_VARIABLE:
      GST_OBJECT_LOCK (pad);
      g_free (pad->variable);
      pad->variable = s && *s ? g_strdup (s) : NULL;
      GST_OBJECT_UNLOCK (pad);
      break;
    case PAD_PROP_WINDOW:
      GST_OBJECT_LOCK (pad);
      g_free (pad->window);
      pad->window = s && *s ? g_strdup (s) : NULL;
      GST_OBJECT_UNLOCK (pad);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
plan_kernel_pad_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  PlanKernelPad *pad = PLAN_KERNEL_PAD (object);

  switch (prop_id) {
    case PAD_PROP_VARIABLE:
      GST_OBJECT_LOCK (pad);
      g_value_set_string (value, pad->variable);
      GST_OBJECT_UNLOCK (pad);
      break;
    case PAD_PROP_WINDOW:
      GST_OBJECT_LOCK (pad);
      g_value_set_string (value, pad->window);
      GST_OBJECT_UNLOCK (pad);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* Deactivating a sink pad returns once the chain or event call under way
 * on it is done. GstPad calls a pad's activate-mode function before it
 * waits for the pad's stream lock, so without this a call under way (a
 * CAPS event from upstream's thread, which goes on pushing while the
 * element stops: elements change state downstream first) could still
 * end after the function returned. Whatever watches the pad from that
 * function saw it end on a pad already reset: gst-validate's monitors
 * reset there, and then reported the next run's caps as "the same caps
 * twice". GstAggregatorPad's own function runs first: it sets the pad
 * flushing, which wakes a chain waiting for room in the pad's queue, so
 * this waits for nothing that GstPad would not wait for right after. */
static gboolean
plan_kernel_pad_activate_mode (GstPad * pad, GstObject * parent,
    GstPadMode mode, gboolean active)
{
  PlanKernelPad *self = PLAN_KERNEL_PAD (pad);

  if (self->base_activate_mode != NULL
      && !self->base_activate_mode (pad, parent, mode, active))
    return FALSE;
  if (!active) {
    GST_PAD_STREAM_LOCK (pad);
    GST_PAD_STREAM_UNLOCK (pad);
  }
  return TRUE;
}

static void
plan_kernel_pad_constructed (GObject * object)
{
  PlanKernelPad *self = PLAN_KERNEL_PAD (object);
  GstPad *pad = GST_PAD (object);

  G_OBJECT_CLASS (plan_kernel_pad_parent_class)->constructed (object);
  if (GST_PAD_IS_SINK (pad)) {
    self->base_activate_mode = GST_PAD_ACTIVATEMODEFUNC (pad);
    gst_pad_set_activatemode_function (pad,
        GST_DEBUG_FUNCPTR (plan_kernel_pad_activate_mode));
  }
}

static void
plan_kernel_pad_finalize (GObject * object)
{
  g_free (PLAN_KERNEL_PAD (object)->variable);
  g_free (PLAN_KERNEL_PAD (object)->window);
  G_OBJECT_CLASS (plan_kernel_pad_parent_class)->finalize (object);
}

static void
plan_kernel_pad_class_init (PlanKernelPadClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->set_property = plan_kernel_pad_set_property;
  gobject_class->get_property = plan_kernel_pad_get_property;
  gobject_class->constructed = plan_kernel_pad_constructed;
  gobject_class->finalize = plan_kernel_pad_finalize;

  /**
   * PlanKernelPad:variable:
   *
   * The name the element's expression gives this input, for elements that
   * name their inputs (planmap); unset, the element's own rule (planmap:
   * `x`, `y`, `z`, `w` by pad number). Read when the input's caps arrive.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PAD_PROP_VARIABLE,
      g_param_spec_string ("variable", "Variable",
          "The name the expression gives this input (planmap); unset: x, y, "
          "z, w by pad number", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * PlanKernelPad:window:
   *
   * For elements that read a window of cells around each element of this
   * input (planstencil's request pads): the window's picture, whose cell
   * names the expression uses (docs/planstencil.md); unset, the input's
   * element at the centre, named by #PlanKernelPad:variable. Read when
   * the input's caps arrive; elements that take no window ignore it.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PAD_PROP_WINDOW,
      g_param_spec_string ("window", "Window",
          "The window of this input's cells, as a picture (planstencil's "
          "request pads); unset: the element at the centre, named by "
          "variable", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
}

static void
plan_kernel_pad_init (PlanKernelPad * pad)
{
  gst_segment_init (&pad->in_segment, GST_FORMAT_DEFAULT);
  pad->range_end = -1;
}

/* PlanKernelElement ------------------------------------------------------- */

#define DEFAULT_TARGET PLAN_TARGET_AUTO
#define DEFAULT_N_THREADS 0

enum
{
  PROP_0,
  PROP_TARGET,
  PROP_N_THREADS,
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
  GstDebugCategory *cat;        /* the element's own category, for the
                                 * decisions logged for it */
  /* taken by the aggregate thread around each pop of an input buffer and
   * by release_pad around the base class's release (see pop_input) */
  GMutex pop_lock;
} PlanKernelElementPrivate;

static void plan_kernel_element_child_proxy_init (gpointer g_iface,
    gpointer iface_data);

/* A child proxy of its sink pads, as audiomixer is: a launch line sets a
 * pad's properties as `sink_0::variable=a`. */
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (PlanKernelElement, plan_kernel_element,
    GST_TYPE_AGGREGATOR, G_ADD_PRIVATE (PlanKernelElement)
    G_IMPLEMENT_INTERFACE (GST_TYPE_CHILD_PROXY,
        plan_kernel_element_child_proxy_init));

#define GET_PRIV(self) \
    ((PlanKernelElementPrivate *) plan_kernel_element_get_instance_private ( \
        PLAN_KERNEL_ELEMENT (self)))

GType
plan_target_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {PLAN_TARGET_AUTO, "Where the data is (device memory or a forced "
          "device, else the CPU)", "auto"},
    {PLAN_TARGET_CPU, "The CPU, on worker threads", "cpu"},
    {PLAN_TARGET_CUDA, "An NVIDIA GPU through CUDA", "cuda"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("PlanTarget", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static void
free_inputs (PlanKernelElementPrivate * priv)
{
  g_clear_pointer (&priv->inputs, g_free);
  if (priv->input_variables) {
    guint i;

    /* As many as input_names, which has no holes. */
    for (i = 0; priv->input_names && priv->input_names[i]; i++) {
      g_free (priv->input_variables[i]);
      g_free (priv->input_windows[i]);
    }
    g_clear_pointer (&priv->input_variables, g_free);
    g_clear_pointer (&priv->input_windows, g_free);
  }
  g_clear_pointer (&priv->input_names, g_strfreev);
  g_clear_pointer (&priv->maps, g_free);
  g_clear_pointer (&priv->chunk_data, g_free);
  priv->n_inputs = 0;
  priv->configured = FALSE;
}

static void
clear_pool (PlanKernelElementPrivate * priv)
{
  if (priv->pool) {
    gst_buffer_pool_set_active (priv->pool, FALSE);
    gst_clear_object (&priv->pool);
  }
  priv->pool_size = 0;
}

/**
 * plan_kernel_element_refuse_live_set:
 * @self: a #PlanKernelElement
 * @pspec: the property being set
 *
 * Call it first in a subclass's set_property(). A property flagged
 * %GST_PARAM_MUTABLE_READY (or without a mutability flag) is read by
 * setup(), when the first caps arrive, so a value set while the element is
 * PAUSED or PLAYING after that would read back as set but not be what is
 * computed: such a set is refused instead. The property keeps its value and the element posts a
 * warning message (library / settings) naming the property. Properties
 * flagged %GST_PARAM_MUTABLE_PLAYING or %GST_PARAM_MUTABLE_PAUSED are never
 * refused.
 *
 * Returns: %TRUE when the set is refused: return without setting.
 *
 * Since: 0.1
 */
gboolean
plan_kernel_element_refuse_live_set (PlanKernelElement * self,
    GParamSpec * pspec)
{
  GstState state;
  gboolean in_use;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), FALSE);
  if (pspec->flags & (GST_PARAM_MUTABLE_PLAYING | GST_PARAM_MUTABLE_PAUSED))
    return FALSE;
  GST_OBJECT_LOCK (self);
  state = GST_STATE (self);
  in_use = GET_PRIV (self)->settings_read;
  GST_OBJECT_UNLOCK (self);
  /* Until setup() has read them (the first caps), a value set still takes
   * effect. */
  if (state <= GST_STATE_READY || !in_use)
    return FALSE;

  GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
      ("%s: %s cannot change while the element is %s; it keeps its value "
          "(set it in the NULL or READY state)", GST_ELEMENT_NAME (self),
          g_param_spec_get_name (pspec), gst_element_state_get_name (state)),
      (NULL));
  return TRUE;
}

static void
plan_kernel_element_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  PlanKernelElementPrivate *priv = GET_PRIV (object);

  if (plan_kernel_element_refuse_live_set (PLAN_KERNEL_ELEMENT (object),
          pspec))
    return;
  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_TARGET:
      priv->target = g_value_get_enum (value);
      break;
    case PROP_N_THREADS:
      priv->n_threads = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static void
plan_kernel_element_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  PlanKernelElementPrivate *priv = GET_PRIV (object);

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_TARGET:
      g_value_set_enum (value, priv->target);
      break;
    case PROP_N_THREADS:
      g_value_set_uint (value, priv->n_threads);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

/* GstAggregator sends EOS downstream after an error flow. A sink that
 * commits its output on EOS (planfilesink renames its file into place)
 * would then keep a partial result, so an element that failed never sends
 * EOS.
 *
 * Nor while a flushing seek goes through: from the moment GstAggregator
 * starts one until its streaming thread has stopped, it drops the buffers
 * that thread finishes (gst_aggregator_finish_buffer() says OK) but still
 * sends the EOS that follows them, before the flush reaches downstream.
 * The sink would take the range so cut short, rows missing at its end,
 * for a whole one (planfilesink refuses it: fewer rows than announced).
 * The flush that follows drops that range anyway. */
static GstPadProbeReturn
drop_eos_after_error (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  PlanKernelElementPrivate *priv = data;
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);

  if (GST_EVENT_TYPE (event) != GST_EVENT_EOS)
    return GST_PAD_PROBE_OK;
  if (g_atomic_int_get (&priv->failed)) {
    GST_DEBUG_OBJECT (pad, "not sending EOS after an error");
    return GST_PAD_PROBE_DROP;
  }
  if (g_atomic_int_get (&priv->seeking)) {
    GST_DEBUG_OBJECT (pad, "not sending the EOS of a range a flushing seek "
        "ends (its last output may have been dropped)");
    return GST_PAD_PROBE_DROP;
  }
  /* The inputs ended early on purpose and the output ends where they did:
   * say so downstream, where the output's rows are counted (this runs in
   * the aggregate thread, which pushed them). */
  if (g_atomic_int_get (&priv->ended_early)) {
    GST_DEBUG_OBJECT (pad, "EOS ends the output early, at row %"
        G_GUINT64_FORMAT, priv->out_rows);
    GST_PAD_PROBE_INFO_DATA (info) =
        plan_eos_mark_ended_early (event, priv->out_rows);
  }
  return GST_PAD_PROBE_OK;
}

static void
plan_kernel_element_constructed (GObject * object)
{
  GstElementClass *eclass = GST_ELEMENT_GET_CLASS (object);
  GstPadTemplate *templ;

  G_OBJECT_CLASS (plan_kernel_element_parent_class)->constructed (object);

  gst_pad_add_probe (GST_AGGREGATOR_SRC_PAD (object),
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, drop_eos_after_error,
      GET_PRIV (object), NULL);

  /* An element with one input has an always "sink" pad; it is made here,
   * where the subclass's pad template is known. */
  templ = gst_element_class_get_pad_template (eclass, "sink");
  if (templ != NULL) {
    GstPad *pad = g_object_new (PLAN_TYPE_KERNEL_PAD, "name", "sink",
        "direction", GST_PAD_SINK, "template", templ, NULL);
    gst_element_add_pad (GST_ELEMENT (object), pad);
  }
}

/* Decisions (caps, slices, threads, target) are logged in the element's
 * own debug category, named as its factory ("planmap"), so that
 * GST_DEBUG=planmap:4 shows them; in the base class's without one. */
static GstDebugCategory *
element_category (PlanKernelElement * self)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);

  if (priv->cat == NULL) {
    GstElementFactory *f = gst_element_get_factory (GST_ELEMENT (self));
    GstDebugCategory *cat = GST_CAT_DEFAULT;

    if (f)
      GST_DEBUG_CATEGORY_GET (cat, GST_OBJECT_NAME (f));
    priv->cat = cat;
  }
  return priv->cat;
}

/**
 * plan_kernel_element_keep_setting:
 * @self: a #PlanKernelElement
 * @name: the property's name, for the log
 * @field: (inout) (nullable): where the element keeps the property's string
 * @value: (nullable): the string set
 * @rejected: (inout) (nullable): where the element keeps why the string
 *   cannot work, or %NULL for a property that is not checked
 * @why: (transfer full) (nullable): why @value cannot work (its message as
 *   the element will post it), or %NULL when it can
 *
 * Keeps a string property as given, so that reading it back returns what
 * was written (an editor keeps what the user typed), even when it cannot
 * work: then @why is logged as a warning naming the property and remembered
 * in @rejected, replacing the reason remembered before, for the subclass's
 * check_settings() to fail the start with. Call it from set_property()
 * after checking the string; it takes the object lock.
 *
 * Since: 0.1
 */
void
plan_kernel_element_keep_setting (PlanKernelElement * self,
    const gchar * name, gchar ** field, const gchar * value,
    GError ** rejected, GError * why)
{
  g_return_if_fail (PLAN_IS_KERNEL_ELEMENT (self));
  g_return_if_fail (field != NULL);
  g_return_if_fail (why == NULL || rejected != NULL);

  if (why != NULL)
    GST_CAT_WARNING_OBJECT (element_category (self), self,
        "%s \"%s\" cannot work: %s", name, value ? value : "", why->message);
  GST_OBJECT_LOCK (self);
  if (rejected != NULL) {
    g_clear_error (rejected);
    *rejected = why;
  }
  g_free (*field);
  *field = g_strdup (value);
  GST_OBJECT_UNLOCK (self);
}

static void
plan_kernel_element_finalize (GObject * object)
{
  PlanKernelElementPrivate *priv = GET_PRIV (object);

  free_inputs (priv);
  clear_pool (priv);
  gst_clear_event (&priv->pending_seek);
  g_mutex_clear (&priv->pop_lock);

  G_OBJECT_CLASS (plan_kernel_element_parent_class)->finalize (object);
}

static void preroll_downstream (PlanKernelElement * self);

/* An element that fails in a sharded run tells the other ranks, so that
 * none waits for ever for a message from this one. */
static void
tell_ranks (PlanKernelElement * self)
{
  gchar *why;

  if (!GET_PRIV (self)->sharded)
    return;
  why = g_strdup_printf ("%s stopped with an error", GST_ELEMENT_NAME (self));
  plan_shard_abort (why);
  g_free (why);
}

/* A segment in rows says which rows of the stream come next: the first is
 * the row the next buffer starts at (after a seek, not 0), and from the
 * next aggregate() the element starts over on them. Other formats say
 * nothing about rows: the stream is taken whole, from row 0. */
static void
set_input_range (PlanKernelElement * self, PlanKernelPad * pad,
    const GstSegment * segment)
{
  gst_segment_copy_into (segment, &pad->in_segment);
  if (plan_array_info_get_segment_rows (&pad->info, segment,
          &pad->range_first, &pad->range_end)) {
    if (segment->format == GST_FORMAT_DEFAULT)
      pad->range_time = segment->time == GST_CLOCK_TIME_NONE ?
          segment->start : segment->time;
    else
      pad->range_time = plan_array_info_time_to_rows (&pad->info,
          segment->time == GST_CLOCK_TIME_NONE ? segment->start :
          segment->time);
  } else {
    pad->range_first = 0;
    pad->range_end = -1;
    pad->range_time = 0;
  }
  pad->next_row = pad->range_first;
  pad->consumed = 0;
  pad->ended_early = FALSE;
  g_atomic_int_set (&GET_PRIV (self)->ended_early, FALSE);
  GET_PRIV (self)->new_range = TRUE;
  GST_DEBUG_OBJECT (pad, "rows %" G_GUINT64_FORMAT " to %" G_GINT64_FORMAT
      " (%s segment)", pad->range_first, pad->range_end,
      gst_format_get_name (segment->format));
}

/* The input is one rank's share of a sharded stream: the subclass says
 * what its output is, which goes downstream in the event's place (stored
 * on the source pad, it follows the caps and segment there). Every input
 * of an element must be the same share. */
static gboolean
take_shard (PlanKernelElement * self, GstAggregatorPad * apad,
    GstEvent * event)
{
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  PlanShardInfo in, out;
  GstEvent *forward;
  GError *err = NULL;

  if (!plan_shard_event_parse (event, &in))
    return FALSE;
  if (priv->sharded && (in.origin != priv->shard.origin
          || in.n_rows != priv->shard.n_rows || in.total != priv->shard.total))
    goto mismatch;
  GST_INFO_OBJECT (self, "rank %u of %u: input rows %" G_GUINT64_FORMAT
      " + %" G_GINT64_FORMAT " of %" G_GUINT64_FORMAT "%s", in.rank,
      in.n_ranks, in.origin, in.n_rows, in.total,
      in.replicated ? " (the same on every rank)" : "");
  priv->sharded = TRUE;
  priv->shard = in;
  out = in;
  if (klass->shard && !klass->shard (self, &in, &out, &err))
    goto refused;
  forward = plan_shard_event_new (&out);
  gst_pad_store_sticky_event (GST_AGGREGATOR_SRC_PAD (self), forward);
  gst_event_unref (forward);
  return TRUE;

  /* ERRORS */
mismatch:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("The inputs of %s are "
            "different shares of their streams (input %s: rows %"
            G_GUINT64_FORMAT " + %" G_GINT64_FORMAT ", another rows %"
            G_GUINT64_FORMAT " + %" G_GINT64_FORMAT "): the rows would not "
            "line up.", GST_ELEMENT_NAME (self), GST_PAD_NAME (apad),
            in.origin, in.n_rows, priv->shard.origin, priv->shard.n_rows),
        (NULL));
    g_atomic_int_set (&priv->failed, TRUE);
    tell_ranks (self);
    return FALSE;
  }
refused:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s cannot run sharded: %s",
            GST_ELEMENT_NAME (self), err->message), (NULL));
    g_error_free (err);
    g_atomic_int_set (&priv->failed, TRUE);
    tell_ranks (self);
    return FALSE;
  }
}

/**
 * plan_kernel_element_get_shard:
 * @self: a #PlanKernelElement
 * @info: (out caller-allocates) (optional): the share its input is
 *
 * Call it from the aggregate thread (process(), finish()).
 *
 * Returns: whether the element's input is one rank's share of a stream
 *   sharded across an MPI job
 *
 * Since: 0.1
 */
gboolean
plan_kernel_element_get_shard (PlanKernelElement * self, PlanShardInfo * info)
{
  PlanKernelElementPrivate *priv;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), FALSE);

  priv = GET_PRIV (self);
  if (info && priv->sharded)
    *info = priv->shard;
  return priv->sharded;
}

/* Parses caps into the pad's info; a bad caps event is a negotiation
 * error that names the pad. */
static gboolean
plan_kernel_element_sink_event (GstAggregator * agg, GstAggregatorPad * apad,
    GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS) {
    /* Serialized: after the last rows of the input. */
    PLAN_KERNEL_PAD (apad)->ended_early =
        plan_eos_is_ended_early (event, NULL);
  } else if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    PlanKernelPad *pad = PLAN_KERNEL_PAD (apad);
    PlanArrayInfo info;
    GstCaps *caps;
    GError *err = NULL;

    gst_event_parse_caps (event, &caps);
    if (!plan_array_info_from_caps (&info, caps, &err)) {
      GST_ELEMENT_ERROR (agg, CORE, NEGOTIATION,
          ("Input %s: %s", GST_PAD_NAME (pad), err->message),
          ("caps %" GST_PTR_FORMAT, caps));
      g_error_free (err);
      gst_event_unref (event);
      return FALSE;
    }
    GST_OBJECT_LOCK (pad);
    pad->info = info;
    pad->have_info = TRUE;
    pad->info_changed = TRUE;
    GST_OBJECT_UNLOCK (pad);
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (agg));
  } else if (GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_DOWNSTREAM
      && gst_event_has_name (event, PLAN_EVENT_STREAM_FAILED)) {
    /* Upstream posted why its stream ends without data: no error of our
     * own about it. Passed on, for a sink downstream. */
    GST_DEBUG_OBJECT (apad, "upstream failed");
    g_atomic_int_set (&GET_PRIV (agg)->upstream_failed, TRUE);
  } else if (GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_DOWNSTREAM_STICKY
      && gst_event_has_name (event, PLAN_EVENT_SHARD)) {
    gboolean ok = take_shard (PLAN_KERNEL_ELEMENT (agg), apad, event);

    gst_event_unref (event);
    return ok;
  } else if (GST_EVENT_TYPE (event) == GST_EVENT_GAP) {
    /* An element upstream holds its output back: let downstream preroll
     * too, rather than have GstAggregator turn the GAP into an empty
     * buffer, which is no rows. */
    preroll_downstream (PLAN_KERNEL_ELEMENT (agg));
    gst_event_unref (event);
    return TRUE;
  } else if (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT) {
    PlanKernelPad *pad = PLAN_KERNEL_PAD (apad);
    const GstSegment *segment;

    /* Serialized: this runs in the aggregate thread, after the rows of the
     * previous segment and before those of this one. */
    gst_event_parse_segment (event, &segment);
    set_input_range (PLAN_KERNEL_ELEMENT (agg), pad, segment);
    GET_PRIV (agg)->segment_seqnum = gst_event_get_seqnum (event);
  }

  return GST_AGGREGATOR_CLASS (plan_kernel_element_parent_class)->sink_event
      (agg, apad, event);
}

/* Request pads are ordered by the number in their name (sink_2 before
 * sink_10), whatever order they were requested in. */
static gint
compare_pad_names (gconstpointer a, gconstpointer b)
{
  const gchar *na = GST_OBJECT_NAME (a), *nb = GST_OBJECT_NAME (b);
  const gchar *ua = strrchr (na, '_'), *ub = strrchr (nb, '_');
  guint64 ia = ua ? g_ascii_strtoull (ua + 1, NULL, 10) : 0;
  guint64 ib = ub ? g_ascii_strtoull (ub + 1, NULL, 10) : 0;

  return ia < ib ? -1 : ia > ib ? 1 : g_strcmp0 (na, nb);
}

/* Returns the sink pads, each with a reference, in pad order. */
static GList *
get_sink_pads (PlanKernelElement * self)
{
  GList *pads = NULL, *l;

  GST_OBJECT_LOCK (self);
  for (l = GST_ELEMENT (self)->sinkpads; l; l = l->next)
    pads = g_list_prepend (pads, gst_object_ref (l->data));
  GST_OBJECT_UNLOCK (self);
  return g_list_sort (pads, compare_pad_names);
}

/* The most rows process() gets at once on the host: the class's
 * host_slice_bytes of the widest input or output row, or all. */
static gsize
host_slice_rows (PlanKernelElement * self, PlanKernelElementPrivate * priv)
{
  gsize bytes = PLAN_KERNEL_ELEMENT_GET_CLASS (self)->host_slice_bytes;
  gsize widest = plan_array_info_get_row_size (&priv->output);
  guint i;

  if (bytes == 0)
    return G_MAXSIZE;
  for (i = 0; i < priv->n_inputs; i++)
    widest = MAX (widest, plan_array_info_get_row_size (&priv->inputs[i]));
  return MAX (1, bytes / MAX (widest, 1));
}

/* A byte seek on the output is a row seek when the output rows are the
 * input rows (a map; a stencil that keeps the edges): bytes count output
 * rows of the output's row size. */
static void
update_seek_row_size (PlanKernelElement * self,
    PlanKernelElementPrivate * priv)
{
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  guint64 first = 3;
  gint64 end = 10;
  gsize row = plan_array_info_get_row_size (&priv->output);

  if (klass->output_range)
    klass->output_range (self, 3, 10, &first, &end);
  /* Rows sampled in time keep their rate where output rows are input rows
   * (maps, stencils, per-row reductions: as many rows, from the same
   * first); a reduction of many rows into one, or a valid stencil's rows
   * shifted by its halo, have none. Unless setup() gave the output a rate
   * of its own. */
  if (!plan_array_info_has_rate (&priv->output) && priv->n_inputs > 0
      && first == 3 && end == 10 && priv->output.ndim > 0
      && priv->inputs[0].ndim > 0
      && priv->output.shape[0] == priv->inputs[0].shape[0]) {
    priv->output.rate_n = priv->inputs[0].rate_n;
    priv->output.rate_d = priv->inputs[0].rate_d;
  }
  GST_OBJECT_LOCK (self);
  priv->seek_row_size = first == 3 && end == 10 ? row : 0;
  priv->out_row_size = row;
  priv->out_time = priv->output;
  priv->out_caps_rows = plan_array_info_get_n_rows (&priv->output);
  GST_OBJECT_UNLOCK (self);
}

/* The rows an input will bring in its range, from its caps or else the
 * duration upstream answers, or -1 when neither says. */
static gint64
expected_rows (PlanKernelPad * pad)
{
  gint64 n = plan_array_info_get_n_rows (&pad->info), end;

  if (n < 0 && (!gst_pad_peer_query_duration (GST_PAD (pad),
              GST_FORMAT_DEFAULT, &n) || n < 0))
    return -1;
  end = pad->range_end >= 0 ? MIN (pad->range_end, n) : n;
  return MAX (end - (gint64) pad->range_first, 0);
}

/* Inputs whose lengths are known and differ are an error before any row
 * is computed, not after the whole job at EOS. */
static gboolean
check_lengths (PlanKernelElement * self, GList * pads)
{
  PlanKernelPad *known = NULL;
  gint64 known_rows = -1;
  GList *l;

  for (l = pads; l; l = l->next) {
    gint64 rows = expected_rows (l->data);

    if (rows < 0)
      continue;
    if (known == NULL) {
      known = l->data;
      known_rows = rows;
    } else if (rows != known_rows) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT,
          ("Inputs have different lengths: %s has %" G_GINT64_FORMAT
              " rows but %s has %" G_GINT64_FORMAT " rows.",
              GST_PAD_NAME (known), known_rows, GST_PAD_NAME (l->data),
              rows), ("known from their caps or duration, before any row "
              "is computed"));
      return FALSE;
    }
  }
  return TRUE;
}

static void
log_configuration (PlanKernelElement * self, PlanKernelElementPrivate * priv)
{
  GstDebugCategory *cat = element_category (self);
  GstCaps *caps;
  guint i;

  for (i = 0; i < priv->n_inputs; i++) {
    caps = plan_array_info_to_caps (&priv->inputs[i]);
    GST_CAT_INFO_OBJECT (cat, self, "input %s: %" GST_PTR_FORMAT,
        priv->input_names[i], caps);
    gst_caps_unref (caps);
  }
  caps = plan_array_info_to_caps (&priv->output);
  GST_CAT_INFO_OBJECT (cat, self, "output: %" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  if (priv->slice_rows == G_MAXSIZE)
    GST_CAT_INFO_OBJECT (cat, self, "each chunk is computed whole");
  else
    GST_CAT_INFO_OBJECT (cat, self, "chunks are computed %" G_GSIZE_FORMAT
        " rows at a time on the host (slices of %" G_GSIZE_FORMAT " bytes "
        "of the widest row), each on up to %u threads", priv->slice_rows,
        PLAN_KERNEL_ELEMENT_GET_CLASS (self)->host_slice_bytes,
        plan_kernel_element_get_n_threads (self) ?
        plan_kernel_element_get_n_threads (self) : g_get_num_processors ());
}

static gboolean plan_kernel_element_src_event (GstAggregator * agg,
    GstEvent * event);

typedef struct
{
  GstEvent *seek;
  guint n;                      /* its number among the seeks received */
} PendingSeek;

static void
pending_seek_free (PendingSeek * pending)
{
  gst_event_unref (pending->seek);
  g_free (pending);
}

/* Makes the byte seek that waited for the output's row size, from another
 * thread than the streaming thread that set it (the flush it starts stops
 * that thread), unless a later seek came meanwhile: that one stands. */
static void
send_pending_seek (GstElement * element, gpointer data)
{
  PendingSeek *pending = data;
  gboolean superseded;

  GST_OBJECT_LOCK (element);
  superseded = GET_PRIV (element)->n_seeks != pending->n;
  GST_OBJECT_UNLOCK (element);
  if (superseded) {
    GST_DEBUG_OBJECT (element, "a later seek came: the byte seek that "
        "waited for caps is not made");
    return;
  }
  GST_DEBUG_OBJECT (element, "making the byte seek that waited for caps");
  if (!plan_kernel_element_src_event (GST_AGGREGATOR (element),
          gst_event_ref (pending->seek)))
    GST_WARNING_OBJECT (element, "upstream refused the byte seek made "
        "once the caps were known");
}

static void
make_pending_seek (PlanKernelElement * self)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  PendingSeek *pending = NULL;

  GST_OBJECT_LOCK (self);
  if (priv->pending_seek != NULL) {
    pending = g_new (PendingSeek, 1);
    pending->seek = priv->pending_seek;
    pending->n = priv->pending_seek_n;
    priv->pending_seek = NULL;
  }
  GST_OBJECT_UNLOCK (self);
  if (pending != NULL)
    gst_element_call_async (GST_ELEMENT (self), send_pending_seek, pending,
        (GDestroyNotify) pending_seek_free);
}

/* Calls setup() when an input's caps changed. */
static GstFlowReturn
ensure_configured (PlanKernelElement * self, GList * pads)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  gboolean changed = !priv->configured;
  guint n = g_list_length (pads), i;
  PlanArrayInfo *inputs;
  GError *err = NULL;
  GList *l;

  for (l = pads; l; l = l->next) {
    PlanKernelPad *pad = l->data;

    GST_OBJECT_LOCK (pad);
    if (!pad->have_info) {
      GST_OBJECT_UNLOCK (pad);
      goto no_caps;
    }
    changed |= pad->info_changed;
    GST_OBJECT_UNLOCK (pad);
  }
  if (!changed && n == priv->n_inputs)
    return GST_FLOW_OK;

  free_inputs (priv);
  inputs = g_new0 (PlanArrayInfo, n);
  priv->input_names = g_new0 (gchar *, n + 1);
  priv->input_variables = g_new0 (gchar *, n + 1);
  priv->input_windows = g_new0 (gchar *, n + 1);
  for (l = pads, i = 0; l; l = l->next, i++) {
    PlanKernelPad *pad = l->data;

    GST_OBJECT_LOCK (pad);
    inputs[i] = pad->info;
    pad->info_changed = FALSE;
    priv->input_variables[i] = g_strdup (pad->variable);
    priv->input_windows[i] = g_strdup (pad->window);
    GST_OBJECT_UNLOCK (pad);
    priv->input_names[i] = gst_pad_get_name (GST_PAD (pad));
  }
  priv->inputs = inputs;
  priv->n_inputs = n;
  if (n > 1 && !check_lengths (self, pads))
    goto lengths_differ;
  priv->maps = g_new0 (GstMapInfo, n);
  priv->chunk_data = g_new0 (gconstpointer, n);

  plan_array_info_init (&priv->output);
  /* target=cuda asks for every chunk on the device: an element without a
   * device kernel (launch) cannot honour it. */
  if (plan_kernel_element_get_target (self) == PLAN_TARGET_CUDA
      && klass->launch == NULL) {
    g_set_error (&err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%s computes on the CPU only (it has no device kernel yet), so "
        "target=cuda cannot be honoured: set target=cpu or target=auto "
        "(which reads device memory back where it must)",
        GST_ELEMENT_NAME (self));
    goto setup_failed;
  }
  if (!klass->setup (self, n, inputs, &priv->output, &err))
    goto setup_failed;

  priv->slice_rows = host_slice_rows (self, priv);
  priv->configured = TRUE;
  log_configuration (self, priv);
  GST_OBJECT_LOCK (self);
  priv->settings_read = TRUE;
  GST_OBJECT_UNLOCK (self);
  update_seek_row_size (self, priv);
  make_pending_seek (self);
  return GST_FLOW_OK;

  /* ERRORS */
no_caps:
  {
    GST_DEBUG_OBJECT (self, "an input has no caps yet");
    return GST_AGGREGATOR_FLOW_NEED_DATA;
  }
lengths_differ:
  {
    g_atomic_int_set (&priv->failed, TRUE);
    free_inputs (priv);
    return GST_FLOW_ERROR;
  }
setup_failed:
  {
    if (err == NULL)
      g_set_error_literal (&err, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "The element could not be set up for its inputs.");
    plan_element_post_error (GST_ELEMENT (self), err, __FILE__,
        GST_FUNCTION, __LINE__);
    g_atomic_int_set (&priv->failed, TRUE);
    g_clear_error (&err);
    free_inputs (priv);
    return GST_FLOW_NOT_NEGOTIATED;
  }
}

/* Posts the one negotiation error of an output that downstream does not
 * take, naming what is offered and what is wanted (@wanted NULL: asks the
 * peer). */
static void
post_refused_caps (PlanKernelElement * self, GstCaps * offered,
    GstCaps * wanted)
{
  GstPad *src = GST_AGGREGATOR_SRC_PAD (self);
  GstPad *peer = gst_pad_get_peer (src);
  GstElement *next = peer ? gst_pad_get_parent_element (peer) : NULL;
  GstCaps *peer_caps = wanted ? gst_caps_ref (wanted) :
      gst_pad_peer_query_caps (src, NULL);
  gchar *o = gst_caps_to_string (offered), *w = gst_caps_to_string (peer_caps);

  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("%s produces %s, which %s does not accept: it takes %s.",
          GST_ELEMENT_NAME (self), o, next ? GST_ELEMENT_NAME (next) :
          "downstream", gst_caps_is_empty (peer_caps) ? "nothing" : w),
      (NULL));
  g_atomic_int_set (&GET_PRIV (self)->failed, TRUE);
  g_free (o);
  g_free (w);
  gst_caps_unref (peer_caps);
  gst_clear_object (&next);
  gst_clear_object (&peer);
}

/* The aggregator asks for the source caps before the first aggregate and
 * whenever an input's caps changed: set up the subclass for the inputs and
 * answer with what it produces. */
static GstFlowReturn
plan_kernel_element_update_src_caps (GstAggregator * agg,
    GstCaps * downstream, GstCaps ** ret)
{
  PlanKernelElement *self = PLAN_KERNEL_ELEMENT (agg);
  GList *pads = get_sink_pads (self);
  GstFlowReturn flow = GST_AGGREGATOR_FLOW_NEED_DATA;

  if (pads != NULL)
    flow = ensure_configured (self, pads);
  g_list_free_full (pads, gst_object_unref);
  if (flow != GST_FLOW_OK) {
    /* A rank whose element cannot be set up stops the others too. */
    if (g_atomic_int_get (&GET_PRIV (self)->failed))
      tell_ranks (self);
    return flow;
  }

  *ret = plan_array_info_to_caps (&GET_PRIV (self)->output);
  *ret = _plan_kernel_device_src_caps (GET_PRIV (self)->device, *ret,
      downstream);
  GST_CAT_INFO_OBJECT (element_category (self), self, "output caps %"
      GST_PTR_FORMAT " (downstream takes %" GST_PTR_FORMAT ")", *ret,
      downstream);
  if (downstream && !gst_caps_can_intersect (*ret, downstream)) {
    post_refused_caps (self, *ret, downstream);
    gst_clear_caps (ret);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  return GST_FLOW_OK;
}

/* Fixed caps need no fixating; the default would intersect them with
 * downstream's and pick the first structure. */
static GstCaps *
plan_kernel_element_fixate_src_caps (GstAggregator * agg, GstCaps * caps)
{
  return caps;
}

/* An input that ends before the rows its caps announce, within the rows
 * its segment selects, was cut short (an error upstream, or a source's
 * num-buffers): a result over part of it would pass for the whole, so it
 * is an error, as planfilesink makes it. A seek to a range of rows is no
 * truncation: the segment says which rows to expect. */
static gboolean
check_complete (PlanKernelElement * self, PlanKernelPad * pad)
{
  gint64 announced = plan_array_info_get_n_rows (&pad->info);
  guint64 expected, received = pad->next_row - pad->range_first;

  if (announced < 0)
    return TRUE;
  if (pad->range_end >= 0)
    announced = MIN (announced, pad->range_end);
  expected = (guint64) announced > pad->range_first ?
      (guint64) announced - pad->range_first : 0;
  if (received >= expected)
    return TRUE;

  GST_ELEMENT_ERROR (self, STREAM, FAILED,
      ("Input %s of %s ended after %" G_GUINT64_FORMAT " of the %"
          G_GUINT64_FORMAT " rows it announced: the stream was cut short (by "
          "an error upstream, or a source's num-buffers), and a result over "
          "part of it is not given.", GST_PAD_NAME (pad),
          GST_ELEMENT_NAME (self), received, expected),
      ("rows %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT " of the segment's %"
          G_GUINT64_FORMAT " to %" G_GINT64_FORMAT, pad->range_first,
          pad->next_row, pad->range_first, pad->range_end));
  return FALSE;
}

/* Takes the input buffer of @pad that a peek returned. GstAggregator
 * before 1.22.7 (Debian 12 has 1.22.0) drops the reference a peek left
 * on a pad without the pad's lock when the pad is released: a release
 * from another thread (a harness teardown, an application unlinking an
 * input) while the pop hands that reference over unrefs the buffer twice,
 * and the head aggregate() still holds is freed under it. Pops and the
 * base class's release take turns on pop_lock. */
static GstBuffer *
pop_input (PlanKernelElement * self, PlanKernelPad * pad)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  GstBuffer *buf;

  g_mutex_lock (&priv->pop_lock);
  buf = gst_aggregator_pad_pop_buffer (GST_AGGREGATOR_PAD (pad));
  g_mutex_unlock (&priv->pop_lock);
  return buf;
}

/* Every input has ended: check that they have the same length, then let
 * the subclass push what it held back. Inputs still holding rows are
 * drained, so that the error names both lengths.
 *
 * An input whose EOS ended it early on purpose (PLAN_EOS_ENDED_EARLY:
 * the application ended the stream at its source) is no truncation: the
 * result is over the rows every input gave, which may then differ in
 * length (each source stopped where the EOS found it). */
static GstFlowReturn
finish_inputs (PlanKernelElement * self, GList * pads)
{
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  PlanKernelPad *first = pads->data;
  gboolean all_eos = TRUE, early = FALSE;
  guint64 n_rows = G_MAXUINT64;
  GstFlowReturn ret = GST_FLOW_OK;
  GList *l;

  for (l = pads; l; l = l->next) {
    PlanKernelPad *pad = l->data;
    GstBuffer *buf;

    while ((buf = pop_input (self, pad))) {
      pad->next_row += gst_buffer_get_size (buf) /
          plan_array_info_get_row_size (&pad->info) - pad->consumed;
      pad->consumed = 0;
      gst_buffer_unref (buf);
    }
    all_eos &= gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD (pad));
  }
  if (!all_eos)
    return GST_FLOW_OK;

  for (l = pads; l; l = l->next) {
    PlanKernelPad *pad = l->data;

    early |= pad->ended_early;
    n_rows = MIN (n_rows, pad->next_row - pad->range_first);
  }
  for (l = pads->next; l && !early; l = l->next) {
    PlanKernelPad *pad = l->data;

    if (pad->next_row - pad->range_first !=
        first->next_row - first->range_first)
      goto length_mismatch;
  }
  for (l = pads; l; l = l->next) {
    PlanKernelPad *pad = l->data;

    if (pad->ended_early)
      GST_INFO_OBJECT (pad, "ended early on purpose after %" G_GUINT64_FORMAT
          " rows", pad->next_row - pad->range_first);
    else if (!check_complete (self, pad))
      return GST_FLOW_ERROR;
  }
  if (early)
    g_atomic_int_set (&GET_PRIV (self)->ended_early, TRUE);
  if (klass->finish)
    ret = klass->finish (self, n_rows);
  /* Device work that failed (a host kernel on the stream's worker) is
   * reported before EOS, which then does not follow. */
  if (ret == GST_FLOW_OK)
    ret = _plan_kernel_device_finish (GET_PRIV (self)->device);
  return ret == GST_FLOW_OK ? GST_FLOW_EOS : ret;

length_mismatch:
  {
    PlanKernelPad *pad = l->data;

    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Inputs have different lengths: %s has %" G_GUINT64_FORMAT
            " rows but %s has %" G_GUINT64_FORMAT " rows.",
            GST_PAD_NAME (first), first->next_row - first->range_first,
            GST_PAD_NAME (pad), pad->next_row - pad->range_first), (NULL));
    return GST_FLOW_ERROR;
  }
}

/* Checks a head buffer: whole rows, and the row offset where we expect it.
 * Returns the number of rows not yet consumed, or 0 after posting an
 * error. */
static gsize
check_head (PlanKernelElement * self, PlanKernelPad * pad, GstBuffer * buf)
{
  gsize row_size = plan_array_info_get_row_size (&pad->info);
  gsize size = gst_buffer_get_size (buf);

  if (size % row_size != 0 || size == 0)
    goto not_rows;
  if (pad->consumed == 0 && GST_BUFFER_OFFSET_IS_VALID (buf)
      && GST_BUFFER_OFFSET (buf) != pad->next_row)
    goto gap;
  return size / row_size - pad->consumed;

  /* ERRORS */
not_rows:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Input %s sent a buffer of %" G_GSIZE_FORMAT " bytes, which is not "
            "a whole number of rows of %" G_GSIZE_FORMAT " bytes.",
            GST_PAD_NAME (pad), size, row_size), (NULL));
    return 0;
  }
gap:
  {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Input %s skipped rows: expected row %" G_GUINT64_FORMAT
            " but got row %" G_GUINT64_FORMAT ".", GST_PAD_NAME (pad),
            pad->next_row, GST_BUFFER_OFFSET (buf)), (NULL));
    return 0;
  }
}

/* The device path (plankernelelement-device.c): hands @n_rows rows of the
 * heads to launch() when the element runs on a device. Returns FALSE when
 * the rows are to be computed by process() instead. */
static gboolean
launch_rows (PlanKernelElement * self, GList * pads, GstBuffer ** heads,
    gsize n_rows, GstFlowReturn * ret)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  gsize *offsets = g_newa (gsize, priv->n_inputs);
  GList *l;
  guint i;

  if (priv->device == NULL)
    return FALSE;
  for (l = pads, i = 0; l; l = l->next, i++) {
    PlanKernelPad *pad = l->data;

    offsets[i] = pad->consumed * plan_array_info_get_row_size (&pad->info);
  }
  /* A launch() that pushes its own outputs returns the flow of its
   * pushes through push_flow. */
  priv->push_flow = GST_FLOW_OK;
  if (!_plan_kernel_device_launch (priv->device, self, heads, offsets,
          ((PlanKernelPad *) pads->data)->next_row, n_rows, ret))
    return FALSE;
  if (*ret == GST_FLOW_OK)
    *ret = priv->push_flow;
  return TRUE;
}

/* Lines up the next rows of every input and hands them to process(), one
 * slice (or all the rows the heads share); sets @dropped when an input's
 * head buffer is used up. */
static GstFlowReturn
process_slice (PlanKernelElement * self, GList * pads, GstBuffer ** heads,
    gboolean * dropped)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  gsize n_rows = G_MAXSIZE;
  GstFlowReturn ret;
  PlanChunk chunk;
  GError *err = NULL;
  GList *l;
  guint i, n_mapped = 0;

  for (l = pads, i = 0; l; l = l->next, i++) {
    gsize avail = check_head (self, l->data, heads[i]);

    if (avail == 0)
      return GST_FLOW_ERROR;
    n_rows = MIN (n_rows, avail);
  }

  /* On a device, a subclass with launch() queues its kernel on the
   * element's stream: nothing to map or compute here. */
  if (launch_rows (self, pads, heads, n_rows, &ret))
    goto advance;

  /* On the host, a class may ask for large chunks in slices (see
   * host_slice_bytes); process_rows() comes back for the rest. Slices
   * keep an output in cache for the element that copies it on; when
   * downstream lends the memory the output goes to, nothing copies it,
   * and whole chunks leave the threads more work to share. */
  if (!priv->direct_output)
    n_rows = MIN (n_rows, priv->slice_rows);

  for (l = pads, i = 0; l; l = l->next, i++, n_mapped++) {
    PlanKernelPad *pad = l->data;

    /* An input in device memory is copied to the host once per buffer. */
    if (!_plan_kernel_device_input (priv->device, i, &heads[i], &err))
      goto device_failed;
    if (!gst_buffer_map (heads[i], &priv->maps[i], GST_MAP_READ))
      goto map_failed;
    priv->chunk_data[i] = priv->maps[i].data +
        pad->consumed * plan_array_info_get_row_size (&pad->info);
  }

  memset (&chunk, 0, sizeof (chunk));
  chunk.n_inputs = priv->n_inputs;
  chunk.data = priv->chunk_data;
  chunk.first_row = ((PlanKernelPad *) pads->data)->next_row;
  chunk.n_rows = n_rows;
  ret = klass->process (self, &chunk);
  /* Inputs that are pages of a file another process cut short meanwhile
   * read zeros where the file ended: the result is not the file's. */
  for (i = 0; i < n_mapped && ret == GST_FLOW_OK; i++)
    if (!_plan_buffer_check_mapped (heads[i], &err))
      goto input_changed;

advance:
  for (l = pads, i = 0; l; l = l->next, i++) {
    PlanKernelPad *pad = l->data;

    if (i < n_mapped)
      gst_buffer_unmap (heads[i], &priv->maps[i]);
    pad->consumed += n_rows;
    pad->next_row += n_rows;
    if (pad->consumed * plan_array_info_get_row_size (&pad->info) ==
        gst_buffer_get_size (heads[i])) {
      GstBuffer *used = pop_input (self, pad);

      gst_clear_buffer (&used);
      pad->consumed = 0;
      *dropped = TRUE;
    }
  }
  return ret;

  /* ERRORS */
input_changed:
  {
    GstPad *changed = g_list_nth_data (pads, i);

    for (i = 0; i < n_mapped; i++)
      gst_buffer_unmap (heads[i], &priv->maps[i]);
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("%s", err->message),
        ("input %s", GST_PAD_NAME (changed)));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
map_failed:
  {
    for (i = 0; i < n_mapped; i++)
      gst_buffer_unmap (heads[i], &priv->maps[i]);
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("Could not map a buffer of input %s for reading.",
            GST_PAD_NAME (g_list_nth_data (pads, n_mapped))), (NULL));
    return GST_FLOW_ERROR;
  }
device_failed:
  {
    for (i = 0; i < n_mapped; i++)
      gst_buffer_unmap (heads[i], &priv->maps[i]);
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("Could not copy a buffer of input %s from the device.",
            GST_PAD_NAME (g_list_nth_data (pads, n_mapped))), ("%s",
            err->message));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
}

/* Works through the rows the heads share, slice after slice, until one of
 * them is used up: one aggregate() per input buffer rather than per slice,
 * which spares the aggregator's locking and wake-ups between slices. A
 * flush or an error from downstream stops it at once. */
static GstFlowReturn
process_rows (PlanKernelElement * self, GList * pads, GstBuffer ** heads)
{
  gboolean dropped = FALSE;
  GstFlowReturn ret;

  do
    ret = process_slice (self, pads, heads, &dropped);
  while (ret == GST_FLOW_OK && !dropped);
  return ret;
}

/* The rows of the inputs' segment (the first input's; the others must
 * match it, or the row checks say where they differ) are a stream of their
 * own: the subclass starts over, the output is numbered from the first
 * output row of the range, and the output segment says which rows follow.
 * A reduction so reduces the rows a seek selected, and a stencil pads the
 * range's edges by its boundary mode rather than reading rows outside. */
static void
start_range (PlanKernelElement * self, PlanKernelPad * first)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  guint64 out_first = first->range_first;
  gint64 out_end = first->range_end;
  GstSegment segment;

  priv->new_range = FALSE;
  if (klass->output_range)
    klass->output_range (self, first->range_first, first->range_end,
        &out_first, &out_end);
  if (klass->reset)
    klass->reset (self);
  priv->out_rows = out_first;
  priv->n_unpushed = 0;
  priv->output_started = FALSE;
  priv->discont = TRUE;

  /* In output rows; its time is the input's: the position in the stream
   * its first row stands for (a reduction's one result row 0 stands for
   * the rows from the first sought), as a decoder's output keeps its
   * input's stream time. */
  gst_segment_init (&segment, GST_FORMAT_DEFAULT);
  segment.start = segment.position = out_first;
  segment.time = first->range_time;
  segment.stop = out_end < 0 ? GST_CLOCK_TIME_NONE : (guint64) out_end;
  /* Rows sampled in time: the same in time, so that sinks can sync to
   * the buffers' timestamps; an input segment in time whose rows are the
   * output's goes on as it came (a seek's exact start kept). */
  if (plan_array_info_has_rate (&priv->output)) {
    if (first->in_segment.format == GST_FORMAT_TIME
        && out_first == first->range_first && out_end == first->range_end) {
      gst_segment_copy_into (&first->in_segment, &segment);
    } else {
      gst_segment_init (&segment, GST_FORMAT_TIME);
      segment.start = segment.position =
          plan_array_info_rows_to_time (&priv->output, out_first);
      segment.stop = out_end < 0 ? GST_CLOCK_TIME_NONE :
          plan_array_info_rows_to_time (&priv->output, out_end);
      segment.time = first->in_segment.format == GST_FORMAT_TIME ?
          first->in_segment.time :
          plan_array_info_rows_to_time (&priv->output, first->range_time);
    }
  }
  gst_aggregator_update_segment (GST_AGGREGATOR (self), &segment);
  GST_DEBUG_OBJECT (self, "input rows %" G_GUINT64_FORMAT " to %"
      G_GINT64_FORMAT " make output rows %" G_GUINT64_FORMAT " to %"
      G_GINT64_FORMAT, first->range_first, first->range_end, out_first,
      out_end);
}

/* An element that holds its output back (a reduction until the end, a
 * stencil for its halo) would leave the sinks waiting for a first buffer,
 * and the pipeline in PAUSED while it computes everything. Once the rows
 * it has seen gave no output, a GAP event lets the sinks preroll: the
 * push blocks until the pipeline plays (as a buffer's would), and the rest
 * is computed in PLAYING. The segment goes first (after a flush the
 * aggregator would only send it with the first buffer). */
static void
preroll_downstream (PlanKernelElement * self)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  GstPad *srcpad = GST_AGGREGATOR_SRC_PAD (self);
  GstEvent *event;
  GstSegment segment;

  if (priv->output_started || !priv->configured
      || !gst_pad_has_current_caps (srcpad))
    return;
  priv->output_started = TRUE;
  GST_OBJECT_LOCK (self);
  segment = GST_AGGREGATOR_PAD (srcpad)->segment;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "no output yet: a GAP lets downstream preroll");
  /* Both answer the input's segment (GstAggregator gives the segment it
   * sends with the first buffer the same seqnum). */
  event = gst_event_new_segment (&segment);
  if (priv->segment_seqnum != GST_SEQNUM_INVALID)
    gst_event_set_seqnum (event, priv->segment_seqnum);
  gst_pad_push_event (srcpad, event);
  event = gst_event_new_gap (0, GST_CLOCK_TIME_NONE);
  if (priv->segment_seqnum != GST_SEQNUM_INVALID)
    gst_event_set_seqnum (event, priv->segment_seqnum);
  gst_pad_push_event (srcpad, event);
}

static GstFlowReturn
plan_kernel_element_aggregate (GstAggregator * agg, gboolean timeout)
{
  PlanKernelElement *self = PLAN_KERNEL_ELEMENT (agg);
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  GList *pads = get_sink_pads (self), *l;
  GstBuffer **heads;
  gboolean have_all = TRUE;
  GstFlowReturn ret;
  guint i, n = g_list_length (pads);

  if (n == 0) {
    g_list_free (pads);
    GST_ELEMENT_ERROR (self, CORE, PAD, ("%s has no inputs.",
            GST_ELEMENT_NAME (self)), (NULL));
    g_atomic_int_set (&GET_PRIV (self)->failed, TRUE);
    return GST_FLOW_ERROR;
  }
  /* Output to nowhere: said before any work is done (a reduction would
   * otherwise compute everything and fail silently at its only push). */
  if (!gst_pad_is_linked (GST_AGGREGATOR_SRC_PAD (self))) {
    g_list_free_full (pads, gst_object_unref);
    GST_ELEMENT_ERROR (self, CORE, PAD, ("%s has nothing linked downstream: "
            "link its src pad to an element that takes its output (a sink "
            "such as planfilesink or fakesink).", GST_ELEMENT_NAME (self)),
        ("streaming stopped, reason not-linked"));
    g_atomic_int_set (&GET_PRIV (self)->failed, TRUE);
    return GST_FLOW_ERROR;
  }

  heads = g_newa (GstBuffer *, n);
  for (l = pads, i = 0; l; l = l->next, i++) {
    heads[i] = gst_aggregator_pad_peek_buffer (l->data);
    have_all &= heads[i] != NULL;
  }

  /* Negotiation (update_src_caps) configures the element before the
   * first aggregate; an input whose stream ended without caps leaves it
   * unconfigured. */
  if (GET_PRIV (self)->configured && GET_PRIV (self)->new_range)
    start_range (self, pads->data);
  if (!GET_PRIV (self)->configured)
    goto no_caps;
  else if (have_all) {
    ret = process_rows (self, pads, heads);
    if (ret == GST_FLOW_OK)
      preroll_downstream (self);
  } else
    /* Some input has ended (the aggregator calls us only when every pad
     * has data or is at EOS). */
    ret = finish_inputs (self, pads);

  /* Downstream refused the caps pushed (a push says so only as a flow). */
  if (ret == GST_FLOW_NOT_NEGOTIATED && !g_atomic_int_get (&priv->failed)) {
    GstCaps *caps = gst_pad_get_current_caps (GST_AGGREGATOR_SRC_PAD (self));

    if (caps)
      post_refused_caps (self, caps, NULL);
    else
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("Downstream of %s refused its output.", GST_ELEMENT_NAME (self)),
          (NULL));
    gst_clear_caps (&caps);
  }
  if (ret == GST_FLOW_ERROR || ret == GST_FLOW_NOT_NEGOTIATED)
    g_atomic_int_set (&priv->failed, TRUE);

done:
  if (g_atomic_int_get (&priv->failed))
    tell_ranks (self);
  for (i = 0; i < n; i++)
    gst_clear_buffer (&heads[i]);
  g_list_free_full (pads, gst_object_unref);
  return ret;

  /* ERRORS */
no_caps:
  {
    /* Upstream posted why its stream ended: end ours the same way, with
     * EOS and no error of our own. */
    if (g_atomic_int_get (&priv->upstream_failed)) {
      ret = GST_FLOW_EOS;
      goto done;
    }
    /* Unless setup() failed, which said why. */
    if (!g_atomic_int_get (&priv->failed))
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("An input of %s ended before its caps were known: nothing "
              "upstream sent data.", GST_ELEMENT_NAME (self)), (NULL));
    g_atomic_int_set (&priv->failed, TRUE);
    ret = GST_FLOW_NOT_NEGOTIATED;
    goto done;
  }
}

static void
reset_state (PlanKernelElement * self)
{
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  GList *pads = get_sink_pads (self), *l;

  for (l = pads; l; l = l->next) {
    PlanKernelPad *pad = l->data;

    pad->consumed = 0;
    pad->next_row = 0;
    pad->range_first = 0;
    pad->range_end = -1;
    pad->range_time = 0;
    pad->ended_early = FALSE;
  }
  g_list_free_full (pads, gst_object_unref);
  g_atomic_int_set (&GET_PRIV (self)->ended_early, FALSE);
  GET_PRIV (self)->out_rows = 0;
  GET_PRIV (self)->new_range = FALSE;
  GET_PRIV (self)->output_started = FALSE;
  GET_PRIV (self)->discont = TRUE;
  GET_PRIV (self)->n_unpushed = 0;
  GET_PRIV (self)->direct_output = FALSE;
  GET_PRIV (self)->lending_refused = FALSE;
  if (klass->reset)
    klass->reset (self);
}

/* Whether every input's upstream can seek in rows; the first answer's
 * range in @start and @end. */
static gboolean
upstream_seekable (PlanKernelElement * self, gint64 * start, gint64 * end)
{
  GList *pads = get_sink_pads (self), *l;
  gboolean seekable = pads != NULL;

  *start = 0;
  *end = -1;
  for (l = pads; l && seekable; l = l->next) {
    GstQuery *query = gst_query_new_seeking (GST_FORMAT_DEFAULT);
    gint64 s, e;

    seekable = gst_pad_peer_query (l->data, query);
    if (seekable)
      gst_query_parse_seeking (query, NULL, &seekable, &s, &e);
    if (seekable && l == pads) {
      *start = s;
      *end = e;
    }
    gst_query_unref (query);
  }
  g_list_free_full (pads, gst_object_unref);
  return seekable;
}

/* Turns a seek on the output into the seek in rows sent upstream, or
 * refuses it (returns NULL, having taken @event): arrays carry no
 * timestamps, so only rows (GST_FORMAT_DEFAULT) and, where output rows
 * are input rows, bytes of the output can be sought, forwards. Refused
 * here, a seek leaves the pipeline as it was: nothing is flushed, and it
 * runs on to EOS. */
static GstEvent *
prepare_seek (PlanKernelElement * self, GstEvent * event, gboolean * queued)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  GstSeekType start_type, stop_type;
  GstSeekFlags flags;
  GstFormat format;
  gint64 start, stop, first, end;
  PlanArrayInfo time;
  gboolean unknown;
  gdouble rate;
  gsize row;
  guint n;

  *queued = FALSE;
  gst_event_parse_seek (event, &rate, &format, &flags, &start_type, &start,
      &stop_type, &stop);
  GST_OBJECT_LOCK (self);
  row = priv->seek_row_size;
  unknown = priv->out_row_size == 0;
  time = priv->out_time;
  /* A seek supersedes one still waiting for caps. */
  n = ++priv->n_seeks;
  gst_clear_event (&priv->pending_seek);
  GST_OBJECT_UNLOCK (self);

  /* Bytes of the output become rows once its caps say how long a row is
   * (a seek made as soon as the pipeline is in PAUSED comes before them
   * when the sinks do not preroll): it waits for them, and is made then
   * (send_pending_seek). Only where output rows are input rows whatever
   * the settings (no output_range()): a reduction's is refused at once. */
  if (rate > 0.0 && format == GST_FORMAT_BYTES && unknown
      && PLAN_KERNEL_ELEMENT_GET_CLASS (self)->output_range == NULL
      && upstream_seekable (self, &first, &end)) {
    GST_OBJECT_LOCK (self);
    /* (Unless the caps came meanwhile.) */
    *queued = priv->out_row_size == 0 && priv->n_seeks == n;
    if (*queued) {
      gst_event_replace (&priv->pending_seek, event);
      priv->pending_seek_n = n;
    }
    row = priv->seek_row_size;
    GST_OBJECT_UNLOCK (self);
    if (*queued) {
      GST_DEBUG_OBJECT (self, "a byte seek before the output's caps: made "
          "once they are known");
      gst_event_unref (event);
      return NULL;
    }
  }

  if (rate <= 0.0)
    goto refuse;
  /* Time, for rows sampled in time, where output rows are input rows: the
   * rows sampled from the start to (not including) the stop. */
  if (format == GST_FORMAT_TIME && row > 0
      && plan_array_info_has_rate (&time)) {
    /* Output rows are input rows, at the input's rate: the same time
     * upstream, whose segment in time comes back with the seek's exact
     * start. */
  } else if (format == GST_FORMAT_BYTES && row > 0) {
    GstEvent *rows;

    if (start_type != GST_SEEK_TYPE_NONE && start > 0)
      start /= (gint64) row;
    if (stop_type != GST_SEEK_TYPE_NONE && stop > 0)
      stop /= (gint64) row;
    rows = gst_event_new_seek (rate, GST_FORMAT_DEFAULT, flags, start_type,
        start, stop_type, stop);
    gst_event_set_seqnum (rows, gst_event_get_seqnum (event));
    gst_event_unref (event);
    event = rows;
  } else if (format != GST_FORMAT_DEFAULT) {
    goto refuse;
  }
  if (!upstream_seekable (self, &first, &end))
    goto refuse;
  GST_DEBUG_OBJECT (self, "seeking upstream to rows %" G_GINT64_FORMAT
      " to %" G_GINT64_FORMAT, start, stop);
  return event;

refuse:
  {
    GST_DEBUG_OBJECT (self, "refusing a seek in %s at rate %f: only rows "
        "(default format)%s can be sought, forwards, and only when every "
        "input can seek", gst_format_get_name (format), rate,
        row > 0 ? " or bytes" : "");
    gst_event_unref (event);
    return NULL;
  }
}

static gboolean
plan_kernel_element_src_event (GstAggregator * agg, GstEvent * event)
{
  PlanKernelElementPrivate *priv = GET_PRIV (agg);
  GstSeekFlags flags;
  gboolean ret, queued;

  if (GST_EVENT_TYPE (event) != GST_EVENT_SEEK)
    return GST_AGGREGATOR_CLASS (plan_kernel_element_parent_class)->src_event
        (agg, event);

  event = prepare_seek (PLAN_KERNEL_ELEMENT (agg), event, &queued);
  if (event == NULL)
    return queued;
  gst_event_parse_seek (event, NULL, NULL, &flags, NULL, NULL, NULL, NULL);
  if (!(flags & GST_SEEK_FLAG_FLUSH))
    return GST_AGGREGATOR_CLASS (plan_kernel_element_parent_class)->src_event
        (agg, event);

  /* Set before GstAggregator starts the seek (and drops output); cleared
   * by the flush, before the range sought starts (its EOS must pass), or
   * after a seek that flushed nothing. A seek that comes again (by a
   * second sink) GstAggregator drops: it sets nothing. */
  GST_OBJECT_LOCK (agg);
  if (gst_event_get_seqnum (event) != priv->seek_seqnum) {
    priv->seek_seqnum = gst_event_get_seqnum (event);
    g_atomic_int_set (&priv->seeking, 1);
  }
  GST_OBJECT_UNLOCK (agg);
  ret = GST_AGGREGATOR_CLASS (plan_kernel_element_parent_class)->src_event
      (agg, event);
  g_atomic_int_set (&priv->seeking, 0);
  return ret;
}

/* The duration of the output, in rows or bytes of the output: the rows
 * its caps give, or else the first input's duration in rows made output
 * rows as output_range() makes them (a valid stencil's 2h fewer). Before
 * the element is set up, and in other formats, upstream answers. */
static gboolean
answer_duration (PlanKernelElement * self, GstQuery * query)
{
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  PlanArrayInfo time;
  GstFormat format;
  gint64 rows, in_rows;
  gsize row;
  GList *pads;
  gboolean ok;

  gst_query_parse_duration (query, &format, NULL);
  GST_OBJECT_LOCK (self);
  row = priv->out_row_size;
  rows = priv->out_caps_rows;
  time = priv->out_time;
  GST_OBJECT_UNLOCK (self);
  /* Time only for rows sampled in time. */
  if (format == GST_FORMAT_TIME && !plan_array_info_has_rate (&time))
    return FALSE;
  if (row == 0 || (format != GST_FORMAT_DEFAULT && format != GST_FORMAT_BYTES
          && format != GST_FORMAT_TIME))
    return GST_AGGREGATOR_CLASS (plan_kernel_element_parent_class)->src_query
        (GST_AGGREGATOR (self), query);

  if (rows < 0) {
    pads = get_sink_pads (self);
    ok = pads != NULL && gst_pad_peer_query_duration (pads->data,
        GST_FORMAT_DEFAULT, &in_rows) && in_rows >= 0;
    g_list_free_full (pads, gst_object_unref);
    if (!ok)
      return FALSE;
    rows = in_rows;
    if (klass->output_range) {
      guint64 out_first;

      klass->output_range (self, 0, in_rows, &out_first, &rows);
      if (rows < 0)
        return FALSE;
      rows -= out_first;
    }
  }
  if (format == GST_FORMAT_TIME)
    gst_query_set_duration (query, format,
        plan_array_info_rows_to_time (&time, rows));
  else
    gst_query_set_duration (query, format, format == GST_FORMAT_BYTES ?
        rows * (gint64) row : rows);
  return TRUE;
}

/* The position where output rows are input rows: the first input's
 * position in rows, in rows or bytes of the output. Elsewhere (a
 * reduction) upstream answers: the rows read, the progress of the job. */
static gboolean
answer_position (PlanKernelElement * self, GstQuery * query)
{
  PlanArrayInfo time;
  GstFormat format;
  gint64 rows;
  gsize row;
  GList *pads;
  gboolean ok;

  gst_query_parse_position (query, &format, NULL);
  GST_OBJECT_LOCK (self);
  row = GET_PRIV (self)->seek_row_size;
  time = GET_PRIV (self)->out_time;
  GST_OBJECT_UNLOCK (self);
  if (format == GST_FORMAT_TIME && !plan_array_info_has_rate (&time))
    return FALSE;
  if (row == 0 || (format != GST_FORMAT_DEFAULT && format != GST_FORMAT_BYTES
          && format != GST_FORMAT_TIME))
    return GST_AGGREGATOR_CLASS (plan_kernel_element_parent_class)->src_query
        (GST_AGGREGATOR (self), query);

  pads = get_sink_pads (self);
  ok = pads != NULL && gst_pad_peer_query_position (pads->data,
      GST_FORMAT_DEFAULT, &rows) && rows >= 0;
  g_list_free_full (pads, gst_object_unref);
  if (!ok)
    return FALSE;
  if (format == GST_FORMAT_TIME)
    gst_query_set_position (query, format,
        plan_array_info_rows_to_time (&time, rows));
  else
    gst_query_set_position (query, format, format == GST_FORMAT_BYTES ?
        rows * (gint64) row : rows);
  return TRUE;
}

/* GstAggregator says it cannot seek; a kernel element can, in rows (and
 * in bytes where its output rows are its input rows), when its inputs
 * can. Durations are the output's. */
static gboolean
plan_kernel_element_src_query (GstAggregator * agg, GstQuery * query)
{
  PlanKernelElement *self = PLAN_KERNEL_ELEMENT (agg);
  GstFormat format;
  gint64 start = 0, end = -1;
  gboolean seekable = FALSE;
  PlanArrayInfo time;
  gsize row;

  if (GST_QUERY_TYPE (query) == GST_QUERY_DURATION)
    return answer_duration (self, query);
  if (GST_QUERY_TYPE (query) == GST_QUERY_POSITION)
    return answer_position (self, query);
  /* Rows read out of order upstream are the input's, not this element's
   * output: a stencil with boundary=wrap behind it must not take them for
   * its own input's last rows. */
  if (GST_QUERY_TYPE (query) == GST_QUERY_CUSTOM
      && plan_query_parse_read_rows (query, NULL, NULL)) {
    GST_DEBUG_OBJECT (self, "not answering %s: the rows upstream reads are "
        "not this element's output", PLAN_QUERY_READ_ROWS);
    return FALSE;
  }
  if (GST_QUERY_TYPE (query) != GST_QUERY_SEEKING)
    return GST_AGGREGATOR_CLASS (plan_kernel_element_parent_class)->src_query
        (agg, query);

  gst_query_parse_seeking (query, &format, NULL, NULL, NULL);
  GST_OBJECT_LOCK (self);
  row = GET_PRIV (self)->seek_row_size;
  time = GET_PRIV (self)->out_time;
  GST_OBJECT_UNLOCK (self);
  if (format == GST_FORMAT_DEFAULT || (format == GST_FORMAT_BYTES && row > 0)
      || (format == GST_FORMAT_TIME && row > 0
          && plan_array_info_has_rate (&time)))
    seekable = upstream_seekable (self, &start, &end);
  if (seekable && format == GST_FORMAT_BYTES) {
    start *= (gint64) row;
    if (end > 0)
      end *= (gint64) row;
  } else if (seekable && format == GST_FORMAT_TIME) {
    start = plan_array_info_rows_to_time (&time, start);
    if (end > 0)
      end = plan_array_info_rows_to_time (&time, end);
  }
  gst_query_set_seeking (query, format, seekable, seekable ? start : -1,
      seekable ? end : -1);
  return TRUE;
}

/* GstAggregator applies a seek sent to the element before PAUSED to its
 * output segment, which is in rows: a seek in another format is refused
 * here rather than mixed into it. */
static gboolean
plan_kernel_element_send_event (GstElement * element, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK) {
    GstFormat format;

    gst_event_parse_seek (event, NULL, &format, NULL, NULL, NULL, NULL, NULL);
    if (format != GST_FORMAT_DEFAULT) {
      GST_DEBUG_OBJECT (element, "refusing a seek in %s",
          gst_format_get_name (format));
      gst_event_unref (event);
      return FALSE;
    }
  }
  return GST_ELEMENT_CLASS (plan_kernel_element_parent_class)->send_event
      (element, event);
}

/* The output segment is in rows (GstAggregator starts it in TIME). */
static void
init_output_segment (PlanKernelElement * self)
{
  GST_OBJECT_LOCK (self);
  gst_segment_init (&GST_AGGREGATOR_PAD (GST_AGGREGATOR_SRC_PAD
          (self))->segment, GST_FORMAT_DEFAULT);
  GST_OBJECT_UNLOCK (self);
}

static GstFlowReturn
plan_kernel_element_flush (GstAggregator * agg)
{
  g_atomic_int_set (&GET_PRIV (agg)->seeking, 0);
  g_atomic_int_set (&GET_PRIV (agg)->failed, FALSE);
  reset_state (PLAN_KERNEL_ELEMENT (agg));
  _plan_kernel_device_flush (GET_PRIV (agg)->device);
  return GST_FLOW_OK;
}

/* Whether an element of @element's pipeline adds source pads as it runs
 * (a decodebin, a demuxer: "sometimes" pads), so that an input that is not
 * linked yet may be linked later, as gst-launch-1.0 and applications do
 * with such elements. */
static gboolean
pipeline_may_link_later (GstElement * element)
{
  GstObject *top = gst_object_ref (GST_OBJECT (element)), *parent;
  gboolean found = FALSE, done = FALSE;
  GstIterator *it;
  GValue item = G_VALUE_INIT;

  while ((parent = gst_object_get_parent (top)) != NULL) {
    gst_object_unref (top);
    top = parent;
  }
  if (!GST_IS_BIN (top)) {
    gst_object_unref (top);
    return FALSE;
  }
  it = gst_bin_iterate_recurse (GST_BIN (top));
  while (!done && !found) {
    switch (gst_iterator_next (it, &item)) {
      case GST_ITERATOR_OK:{
        GstElement *e = g_value_get_object (&item);
        GList *l = gst_element_class_get_pad_template_list
            (GST_ELEMENT_GET_CLASS (e));

        for (; l && !found; l = l->next) {
          GstPadTemplate *templ = l->data;

          found = GST_PAD_TEMPLATE_DIRECTION (templ) == GST_PAD_SRC
              && GST_PAD_TEMPLATE_PRESENCE (templ) == GST_PAD_SOMETIMES;
        }
        g_value_reset (&item);
        break;
      }
      case GST_ITERATOR_RESYNC:
        gst_iterator_resync (it);
        break;
      default:
        done = TRUE;
        break;
    }
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  gst_object_unref (top);
  return found;
}

/* GstAggregator waits for data on every sink pad, and for ever when there
 * is no sink pad or one that nothing feeds: refuse to start instead,
 * unless an element of the pipeline adds pads as it runs and may still
 * link them. */
static gboolean
check_inputs_linked (PlanKernelElement * self)
{
  GList *pads = get_sink_pads (self), *l;
  gchar *unlinked = NULL;

  for (l = pads; l && unlinked == NULL; l = l->next)
    if (!gst_pad_is_linked (l->data))
      unlinked = gst_pad_get_name (l->data);
  g_list_free_full (pads, gst_object_unref);

  if ((pads == NULL || unlinked != NULL)
      && pipeline_may_link_later (GST_ELEMENT (self))) {
    GST_INFO_OBJECT (self, "inputs not linked yet; the pipeline has "
        "elements that add pads as they run");
    g_free (unlinked);
    return TRUE;
  }

  if (pads == NULL) {
    GST_ELEMENT_ERROR (self, CORE, PAD, ("%s has no inputs: link an upstream "
            "element to it.", GST_ELEMENT_NAME (self)), (NULL));
    return FALSE;
  }
  if (unlinked != NULL) {
    GST_ELEMENT_ERROR (self, CORE, PAD, ("Input %s of %s is not linked: "
            "link an upstream element to it, or release the pad.", unlinked,
            GST_ELEMENT_NAME (self)), (NULL));
    g_free (unlinked);
    return FALSE;
  }
  return TRUE;
}

static gboolean
plan_kernel_element_start (GstAggregator * agg)
{
  PlanKernelElementPrivate *priv = GET_PRIV (agg);
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (agg);

  GError *err = NULL;

  if (!check_inputs_linked (PLAN_KERNEL_ELEMENT (agg)))
    return FALSE;
  if (klass->check_settings
      && !klass->check_settings (PLAN_KERNEL_ELEMENT (agg), &err))
    goto bad_settings;
  init_output_segment (PLAN_KERNEL_ELEMENT (agg));
  free_inputs (priv);
  priv->out_rows = 0;
  priv->n_unpushed = 0;
  priv->discont = TRUE;
  priv->segment_seqnum = GST_SEQNUM_INVALID;
  priv->direct_output = FALSE;
  priv->lending_refused = FALSE;
  g_atomic_int_set (&priv->failed, FALSE);
  g_atomic_int_set (&priv->upstream_failed, FALSE);
  g_atomic_int_set (&priv->ended_early, FALSE);
  priv->device = _plan_kernel_device_new (GST_ELEMENT (agg),
      plan_kernel_element_get_target (PLAN_KERNEL_ELEMENT (agg)), &err);
  if (priv->device == NULL)
    goto no_device;
  {
    guint n = plan_kernel_element_get_n_threads (PLAN_KERNEL_ELEMENT (agg));
    GEnumClass *targets = g_type_class_ref (PLAN_TYPE_TARGET);
    GEnumValue *t = g_enum_get_value (targets,
        plan_kernel_element_get_target (PLAN_KERNEL_ELEMENT (agg)));

    GST_CAT_INFO_OBJECT (element_category (PLAN_KERNEL_ELEMENT (agg)), agg,
        "starting: target=%s (device memory used where the data is there "
        "or target=cuda asks for it), %u worker threads%s",
        t ? t->value_nick : "?", n ? n : g_get_num_processors (),
        n ? "" : " (n-threads=0: one per core)");
    g_type_class_unref (targets);
  }
  return TRUE;

  /* ERRORS */
bad_settings:
  {
    GST_ELEMENT_ERROR (agg, LIBRARY, SETTINGS, ("%s", err ? err->message :
            "A property holds a value that cannot work."), (NULL));
    g_clear_error (&err);
    return FALSE;
  }
no_device:
  {
    GST_ELEMENT_ERROR (agg, RESOURCE, NOT_FOUND,
        ("No device to compute on: %s", err->message), (NULL));
    g_clear_error (&err);
    return FALSE;
  }
}

static gboolean
plan_kernel_element_stop (GstAggregator * agg)
{
  PlanKernelElementPrivate *priv = GET_PRIV (agg);

  reset_state (PLAN_KERNEL_ELEMENT (agg));
  priv->sharded = FALSE;
  free_inputs (priv);
  clear_pool (priv);
  g_clear_pointer (&priv->device, _plan_kernel_device_free);
  GST_OBJECT_LOCK (agg);
  priv->settings_read = FALSE;
  gst_clear_event (&priv->pending_seek);
  priv->seek_row_size = 0;
  priv->out_row_size = 0;
  priv->out_caps_rows = -1;
  plan_array_info_init (&priv->out_time);
  GST_OBJECT_UNLOCK (agg);
  /* GstAggregator has just reset it to TIME. */
  init_output_segment (PLAN_KERNEL_ELEMENT (agg));
  return TRUE;
}

/* An element computing on a device offers pinned host memory upstream:
 * a source that reads into it (planfilesrc) makes the uploads of its
 * chunks true asynchronous copies. */
static gboolean
plan_kernel_element_propose_allocation (GstAggregator * agg,
    GstAggregatorPad * pad, GstQuery * decide_query, GstQuery * query)
{
  GstAllocator *allocator;
  GstCaps *caps = NULL;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!_plan_kernel_device_has_device (GET_PRIV (agg)->device)
      || (caps != NULL && plan_caps_is_device (caps)))
    return TRUE;
  allocator = plan_host_allocator_get ();
  gst_query_add_allocation_param (query, allocator, NULL);
  gst_object_unref (allocator);
  GST_DEBUG_OBJECT (pad, "offering pinned host memory upstream");
  return TRUE;
}

static GstPad *
plan_kernel_element_request_new_pad (GstElement * element,
    GstPadTemplate * templ, const gchar * name, const GstCaps * caps)
{
  GstPad *pad = GST_ELEMENT_CLASS (plan_kernel_element_parent_class)->
      request_new_pad (element, templ, name, caps);

  if (pad)
    gst_child_proxy_child_added (GST_CHILD_PROXY (element), G_OBJECT (pad),
        GST_OBJECT_NAME (pad));
  return pad;
}

/* The base class's release waits for an aggregate() that is popping an
 * input buffer (see pop_input). */
static void
plan_kernel_element_release_pad (GstElement * element, GstPad * pad)
{
  PlanKernelElementPrivate *priv = GET_PRIV (element);

  gst_child_proxy_child_removed (GST_CHILD_PROXY (element), G_OBJECT (pad),
      GST_OBJECT_NAME (pad));
  g_mutex_lock (&priv->pop_lock);
  GST_ELEMENT_CLASS (plan_kernel_element_parent_class)->release_pad (element,
      pad);
  g_mutex_unlock (&priv->pop_lock);
}

static GObject *
plan_kernel_element_child_proxy_get_child_by_index (GstChildProxy * proxy,
    guint index)
{
  GObject *child;

  GST_OBJECT_LOCK (proxy);
  child = g_list_nth_data (GST_ELEMENT (proxy)->sinkpads, index);
  if (child)
    g_object_ref (child);
  GST_OBJECT_UNLOCK (proxy);
  return child;
}

static guint
plan_kernel_element_child_proxy_get_children_count (GstChildProxy * proxy)
{
  guint n;

  GST_OBJECT_LOCK (proxy);
  n = GST_ELEMENT (proxy)->numsinkpads;
  GST_OBJECT_UNLOCK (proxy);
  return n;
}

static void
plan_kernel_element_child_proxy_init (gpointer g_iface, gpointer iface_data)
{
  GstChildProxyInterface *iface = g_iface;

  iface->get_child_by_index =
      plan_kernel_element_child_proxy_get_child_by_index;
  iface->get_children_count =
      plan_kernel_element_child_proxy_get_children_count;
}

/* An element upstream asking for the memory its output rows go to gets
 * none here: this element's output is not its input, so the memory
 * downstream lends for this element's output (which the default handler
 * would pass on) would be written by both, and a stencil would read
 * cells it had already overwritten. */
static gboolean
plan_kernel_element_sink_query (GstAggregator * agg, GstAggregatorPad * pad,
    GstQuery * query)
{
  if (plan_query_parse_output_rows (query, NULL, NULL, NULL)) {
    GST_LOG_OBJECT (pad, "not passing on a query for output rows");
    return FALSE;
  }
  return GST_AGGREGATOR_CLASS (plan_kernel_element_parent_class)->sink_query
      (agg, pad, query);
}

static void
plan_kernel_element_class_init (PlanKernelElementClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (plan_kernel_element_debug, "plankernelelement", 0,
      "Base class of array kernel elements");

  gobject_class->set_property = plan_kernel_element_set_property;
  gobject_class->get_property = plan_kernel_element_get_property;
  gobject_class->constructed = plan_kernel_element_constructed;
  gobject_class->finalize = plan_kernel_element_finalize;

  GST_ELEMENT_CLASS (klass)->send_event =
      GST_DEBUG_FUNCPTR (plan_kernel_element_send_event);
  GST_ELEMENT_CLASS (klass)->request_new_pad =
      GST_DEBUG_FUNCPTR (plan_kernel_element_request_new_pad);
  GST_ELEMENT_CLASS (klass)->release_pad =
      GST_DEBUG_FUNCPTR (plan_kernel_element_release_pad);

  agg_class->aggregate = GST_DEBUG_FUNCPTR (plan_kernel_element_aggregate);
  agg_class->propose_allocation =
      GST_DEBUG_FUNCPTR (plan_kernel_element_propose_allocation);
  agg_class->src_event = GST_DEBUG_FUNCPTR (plan_kernel_element_src_event);
  agg_class->src_query = GST_DEBUG_FUNCPTR (plan_kernel_element_src_query);
  agg_class->sink_event = GST_DEBUG_FUNCPTR (plan_kernel_element_sink_event);
  agg_class->sink_query = GST_DEBUG_FUNCPTR (plan_kernel_element_sink_query);
  agg_class->flush = GST_DEBUG_FUNCPTR (plan_kernel_element_flush);
  agg_class->update_src_caps =
      GST_DEBUG_FUNCPTR (plan_kernel_element_update_src_caps);
  agg_class->fixate_src_caps =
      GST_DEBUG_FUNCPTR (plan_kernel_element_fixate_src_caps);
  agg_class->start = GST_DEBUG_FUNCPTR (plan_kernel_element_start);
  agg_class->stop = GST_DEBUG_FUNCPTR (plan_kernel_element_stop);

  /**
   * PlanKernelElement:target:
   *
   * Where the element computes: `auto`, `cpu` or `cuda`.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_TARGET,
      g_param_spec_enum ("target", "Target",
          "Where to compute: auto (where the data is), cpu, or cuda",
          PLAN_TYPE_TARGET, DEFAULT_TARGET,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * PlanKernelElement:n-threads:
   *
   * How many worker threads compute on the CPU; 0 uses every core.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_N_THREADS,
      g_param_spec_uint ("n-threads", "Threads",
          "Worker threads for CPU work (0 = one per core)", 0, 1024,
          DEFAULT_N_THREADS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  gst_type_mark_as_plugin_api (PLAN_TYPE_KERNEL_ELEMENT, 0);
  gst_type_mark_as_plugin_api (PLAN_TYPE_KERNEL_PAD, 0);
  gst_type_mark_as_plugin_api (PLAN_TYPE_TARGET, 0);
}

static void
plan_kernel_element_init (PlanKernelElement * self)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);

  priv->target = DEFAULT_TARGET;
  priv->n_threads = DEFAULT_N_THREADS;
  priv->out_caps_rows = -1;
  plan_array_info_init (&priv->out_time);
  g_mutex_init (&priv->pop_lock);
  init_output_segment (self);
}

/**
 * plan_kernel_element_class_add_pad_templates:
 * @klass: a #PlanKernelElementClass
 * @request_sink_pads: %TRUE for any number of inputs on request pads
 *   named `sink_%u`, %FALSE for one always pad named `sink`
 *
 * Adds the element's pad templates: a `src` pad and the sink pad(s), all
 * taking any `array/x-raw` caps. Call it from class_init.
 *
 * Since: 0.1
 */
void
plan_kernel_element_class_add_pad_templates (PlanKernelElementClass * klass,
    gboolean request_sink_pads)
{
  GstElementClass *eclass = GST_ELEMENT_CLASS (klass);
  GstCaps *caps = gst_caps_from_string (PLAN_ARRAY_CAPS_ANY "; "
      PLAN_ARRAY_CAPS_DEVICE_ANY);

  gst_element_class_add_pad_template (eclass,
      gst_pad_template_new_with_gtype ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
          caps, GST_TYPE_AGGREGATOR_PAD));
  if (request_sink_pads)
    gst_element_class_add_pad_template (eclass,
        gst_pad_template_new_with_gtype ("sink_%u", GST_PAD_SINK,
            GST_PAD_REQUEST, caps, PLAN_TYPE_KERNEL_PAD));
  else
    gst_element_class_add_pad_template (eclass,
        gst_pad_template_new_with_gtype ("sink", GST_PAD_SINK,
            GST_PAD_ALWAYS, caps, PLAN_TYPE_KERNEL_PAD));
  gst_caps_unref (caps);
}

/* Asks downstream for the memory the next @n_rows output rows go to
 * (PLAN_QUERY_OUTPUT_ROWS). Output bound for the device is made here and
 * uploaded, so it never asks then. */
static GstBuffer *
borrow_output (PlanKernelElement * self, PlanKernelElementPrivate * priv,
    gsize n_rows)
{
  gsize row = plan_array_info_get_row_size (&priv->output);
  GstBuffer *buffer = NULL;
  GstQuery *query;

  priv->direct_output = FALSE;
  if (n_rows == 0 || priv->lending_refused
      || _plan_kernel_device_outputs_to_device (priv->device))
    return NULL;
  query = plan_query_new_output_rows (priv->out_rows, n_rows, row);
  if (gst_pad_peer_query (GST_AGGREGATOR_SRC_PAD (self), query))
    buffer = plan_query_get_output_rows_buffer (query);
  gst_query_unref (query);
  if (buffer != NULL && gst_buffer_get_size (buffer) != n_rows * row) {
    GST_WARNING_OBJECT (self, "downstream lent %" G_GSIZE_FORMAT " bytes for "
        "%" G_GSIZE_FORMAT " rows of %" G_GSIZE_FORMAT, gst_buffer_get_size
        (buffer), n_rows, row);
    gst_clear_buffer (&buffer);
  }
  priv->direct_output = buffer != NULL;
  /* Before the first push downstream may not have its caps yet; a refusal
   * after it is for good, and is not asked again for every chunk. */
  if (buffer == NULL && priv->out_rows > 0) {
    GST_DEBUG_OBJECT (self, "downstream lends no memory: using the pool");
    priv->lending_refused = TRUE;
  }
  GST_LOG_OBJECT (self, "rows %" G_GUINT64_FORMAT "+%" G_GSIZE_FORMAT
      " into %s memory", priv->out_rows, n_rows, buffer ? "downstream's" :
      "pool");
  return buffer;
}

/**
 * plan_eos_mark_ended_early:
 * @eos: (transfer full): an EOS event
 * @end_row: the row at which the stream ends (GST_BUFFER_OFFSET_END of the
 *   last buffer sent before @eos, 0 when none was)
 *
 * Marks @eos as ending its stream early on purpose (#PLAN_EOS_ENDED_EARLY):
 * the elements after it give their results over the rows they received
 * rather than taking the stream for one cut short. A source marks the EOS
 * an application sends it; a kernel element marks the EOS that follows
 * such inputs.
 *
 * Returns: (transfer full): @eos, or a writable copy of it, marked.
 * Since: 0.1
 */
GstEvent *
plan_eos_mark_ended_early (GstEvent * eos, guint64 end_row)
{
  g_return_val_if_fail (GST_IS_EVENT (eos), eos);
  g_return_val_if_fail (GST_EVENT_TYPE (eos) == GST_EVENT_EOS, eos);

  eos = gst_event_make_writable (eos);
  gst_structure_set (gst_event_writable_structure (eos), PLAN_EOS_ENDED_EARLY,
      G_TYPE_UINT64, end_row, NULL);
  return eos;
}

/**
 * plan_eos_is_ended_early:
 * @eos: an event
 * @end_row: (out) (optional): where the row at which the stream ends goes
 *
 * Returns: whether @eos is an EOS that ends its stream early on purpose
 * (plan_eos_mark_ended_early()).
 * Since: 0.1
 */
gboolean
plan_eos_is_ended_early (GstEvent * eos, guint64 * end_row)
{
  const GstStructure *s;
  guint64 row = 0;

  g_return_val_if_fail (GST_IS_EVENT (eos), FALSE);

  if (GST_EVENT_TYPE (eos) != GST_EVENT_EOS)
    return FALSE;
  s = gst_event_get_structure (eos);
  if (s == NULL || !gst_structure_get_uint64 (s, PLAN_EOS_ENDED_EARLY, &row))
    return FALSE;
  if (end_row)
    *end_row = row;
  return TRUE;
}

/**
 * plan_kernel_element_alloc_output:
 * @self: a #PlanKernelElement
 * @n_rows: the number of rows, of the output info set up by setup()
 * @buffer: (out) (transfer full): the buffer
 *
 * Gets a buffer for the next @n_rows output rows: memory downstream lends
 * for them (#PLAN_QUERY_OUTPUT_ROWS, so a sink that keeps the rows gets
 * them without a copy), or else a buffer of the element's pool. Push the
 * buffers in the order they were allocated. Call from the streaming
 * thread (process() or finish()).
 *
 * Returns: GST_FLOW_OK, or a flow error (GST_FLOW_FLUSHING on shutdown).
 *
 * Since: 0.1
 */
GstFlowReturn
plan_kernel_element_alloc_output (PlanKernelElement * self, gsize n_rows,
    GstBuffer ** buffer)
{
  PlanKernelElementPrivate *priv;
  gsize size;
  GstFlowReturn ret;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), GST_FLOW_ERROR);
  g_return_val_if_fail (buffer != NULL, GST_FLOW_ERROR);

  priv = GET_PRIV (self);
  size = n_rows * plan_array_info_get_row_size (&priv->output);

  /* Memory lent for rows out_rows... is right only for the next buffer
   * pushed. */
  *buffer = priv->n_unpushed == 0 ? borrow_output (self, priv, n_rows) : NULL;
  priv->n_unpushed++;
  if (*buffer != NULL)
    return GST_FLOW_OK;

  /* Reused pool buffers avoid faulting in fresh pages for every chunk;
   * the pool grows to the largest chunk seen, and starts at a slice when
   * the class slices (a stencil's first output is a slice less its halo,
   * and a pool made for it would be thrown away at the next). They start
   * on a page: the vector loops store whole cache lines, and the kernel
   * copies a buffer into the page cache (planfilesink's write()) about
   * 8 % faster from an aligned source than from GLib's 16-byte
   * alignment. */
  if (size > priv->pool_size || priv->pool == NULL) {
    gsize row = plan_array_info_get_row_size (&priv->output);
    gsize alloc = size;
    GstAllocationParams params;
    GstStructure *config;

    /* A slice is at most host_slice_bytes, or one row. */
    if (priv->slice_rows != G_MAXSIZE)
      alloc = MAX (alloc, priv->slice_rows * row);
    clear_pool (priv);
    priv->pool = gst_buffer_pool_new ();
    config = gst_buffer_pool_get_config (priv->pool);
    gst_buffer_pool_config_set_params (config, NULL, MAX (alloc, 1), 0, 0);
    gst_allocation_params_init (&params);
    params.align = OUTPUT_ALIGN - 1;
    gst_buffer_pool_config_set_allocator (config, NULL, &params);
    if (!gst_buffer_pool_set_config (priv->pool, config)
        || !gst_buffer_pool_set_active (priv->pool, TRUE))
      goto pool_failed;
    priv->pool_size = MAX (alloc, 1);
  }

  ret = gst_buffer_pool_acquire_buffer (priv->pool, buffer, NULL);
  if (ret != GST_FLOW_OK) {
    priv->n_unpushed--;
    GST_DEBUG_OBJECT (self, "no output buffer: %s", gst_flow_get_name (ret));
    return ret;
  }
  gst_buffer_set_size (*buffer, size);
  return GST_FLOW_OK;

  /* ERRORS */
pool_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate output buffers of %" G_GSIZE_FORMAT " bytes.",
            size), (NULL));
    priv->n_unpushed--;
    clear_pool (priv);
    return GST_FLOW_ERROR;
  }
}

/**
 * plan_kernel_element_push_output:
 * @self: a #PlanKernelElement
 * @buffer: (transfer full): whole output rows
 *
 * Stamps @buffer with the next output row offsets and pushes it
 * downstream. Call from the streaming thread.
 *
 * Returns: the flow of the push.
 *
 * Since: 0.1
 */
GstFlowReturn
plan_kernel_element_push_output (PlanKernelElement * self, GstBuffer * buffer)
{
  PlanKernelElementPrivate *priv;
  GError *err = NULL;
  gsize n_rows;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), GST_FLOW_ERROR);
  g_return_val_if_fail (GST_IS_BUFFER (buffer), GST_FLOW_ERROR);

  priv = GET_PRIV (self);
  n_rows = gst_buffer_get_size (buffer) /
      plan_array_info_get_row_size (&priv->output);
  /* The first buffer of the stream, of a range (after a segment) or after
   * a flush says that it follows nothing. */
  if (priv->discont) {
    buffer = gst_buffer_make_writable (buffer);
    GST_BUFFER_FLAG_SET (buffer, GST_BUFFER_FLAG_DISCONT);
    priv->discont = FALSE;
  } else if (GST_BUFFER_FLAG_IS_SET (buffer, GST_BUFFER_FLAG_DISCONT)) {
    buffer = gst_buffer_make_writable (buffer);
    GST_BUFFER_FLAG_UNSET (buffer, GST_BUFFER_FLAG_DISCONT);
  }
  GST_BUFFER_OFFSET (buffer) = priv->out_rows;
  GST_BUFFER_OFFSET_END (buffer) = priv->out_rows + n_rows;
  /* Rows sampled in time: the chunk's time and length. */
  if (plan_array_info_has_rate (&priv->output)) {
    GstClockTime pts = plan_array_info_rows_to_time (&priv->output,
        priv->out_rows);

    if (!gst_buffer_is_writable (buffer))
      buffer = gst_buffer_make_writable (buffer);
    GST_BUFFER_PTS (buffer) = pts;
    GST_BUFFER_DURATION (buffer) = plan_array_info_rows_to_time
        (&priv->output, priv->out_rows + n_rows) - pts;
  } else if (GST_BUFFER_PTS_IS_VALID (buffer)
      || GST_BUFFER_DURATION_IS_VALID (buffer)) {
    buffer = gst_buffer_make_writable (buffer);
    GST_BUFFER_PTS (buffer) = GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION (buffer) = GST_CLOCK_TIME_NONE;
  }
  priv->out_rows += n_rows;
  priv->output_started = TRUE;
  if (priv->n_unpushed > 0)
    priv->n_unpushed--;
  /* To device memory when the source caps say so. */
  buffer = _plan_kernel_device_output (priv->device, buffer, &err);
  if (buffer == NULL)
    goto device_failed;
  priv->push_flow = gst_aggregator_finish_buffer (GST_AGGREGATOR (self),
      buffer);
  return priv->push_flow;

  /* ERRORS */
device_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Could not copy an output buffer to the device."), ("%s",
            err->message));
    g_clear_error (&err);
    priv->push_flow = GST_FLOW_ERROR;
    return GST_FLOW_ERROR;
  }
}

/* The flow of the pushes since the last call (OK when none failed). */
GstFlowReturn
_plan_kernel_element_take_push_flow (PlanKernelElement * self)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  GstFlowReturn ret = priv->push_flow;

  priv->push_flow = GST_FLOW_OK;
  return ret;
}

/**
 * plan_kernel_element_get_n_threads:
 * @self: a #PlanKernelElement
 *
 * Returns: the `n-threads` property: worker threads, 0 for one per core.
 *
 * Since: 0.1
 */
guint
plan_kernel_element_get_n_threads (PlanKernelElement * self)
{
  guint n;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), 1);

  GST_OBJECT_LOCK (self);
  n = GET_PRIV (self)->n_threads;
  GST_OBJECT_UNLOCK (self);
  return n;
}

/**
 * plan_kernel_element_get_target:
 * @self: a #PlanKernelElement
 *
 * Returns: the `target` property.
 *
 * Since: 0.1
 */
PlanTarget
plan_kernel_element_get_target (PlanKernelElement * self)
{
  PlanTarget target;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), PLAN_TARGET_CPU);

  GST_OBJECT_LOCK (self);
  target = GET_PRIV (self)->target;
  GST_OBJECT_UNLOCK (self);
  return target;
}

/**
 * plan_kernel_element_get_n_inputs:
 * @self: a #PlanKernelElement
 *
 * Returns: the number of inputs set up; valid from setup() on, in the
 *   streaming thread.
 *
 * Since: 0.1
 */
guint
plan_kernel_element_get_n_inputs (PlanKernelElement * self)
{
  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), 0);

  return GET_PRIV (self)->n_inputs;
}

/**
 * plan_kernel_element_get_input_info:
 * @self: a #PlanKernelElement
 * @index: an input, in pad order
 *
 * Returns: (transfer none) (nullable): the array info of input @index, as
 *   given to setup(); valid in the streaming thread.
 *
 * Since: 0.1
 */
const PlanArrayInfo *
plan_kernel_element_get_input_info (PlanKernelElement * self, guint index)
{
  PlanKernelElementPrivate *priv;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), NULL);

  priv = GET_PRIV (self);
  return index < priv->n_inputs ? &priv->inputs[index] : NULL;
}

/**
 * plan_kernel_element_get_input_name:
 * @self: a #PlanKernelElement
 * @index: an input, in pad order
 *
 * Returns: (transfer none) (nullable): the pad name of input @index, for
 *   messages; valid in the streaming thread.
 *
 * Since: 0.1
 */
const gchar *
plan_kernel_element_get_input_name (PlanKernelElement * self, guint index)
{
  PlanKernelElementPrivate *priv;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), NULL);

  priv = GET_PRIV (self);
  return index < priv->n_inputs ? priv->input_names[index] : NULL;
}

/**
 * plan_kernel_element_get_input_variable:
 * @self: a #PlanKernelElement
 * @index: an input, in pad order
 *
 * Returns: (transfer none) (nullable): the #PlanKernelPad:variable of input
 *   @index when setup() was called, or %NULL when unset; valid in the
 *   streaming thread.
 *
 * Since: 0.1
 */
const gchar *
plan_kernel_element_get_input_variable (PlanKernelElement * self,
    guint index)
{
  PlanKernelElementPrivate *priv;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), NULL);

  priv = GET_PRIV (self);
  return index < priv->n_inputs && priv->input_variables ?
      priv->input_variables[index] : NULL;
}

/**
 * plan_kernel_element_get_input_window:
 * @self: a #PlanKernelElement
 * @index: an input, in pad order
 *
 * Returns: (transfer none) (nullable): the #PlanKernelPad:window of input
 *   @index when setup() was called, or %NULL when unset; valid in the
 *   streaming thread.
 *
 * Since: 0.1
 */
const gchar *
plan_kernel_element_get_input_window (PlanKernelElement * self,
    guint index)
{
  PlanKernelElementPrivate *priv;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), NULL);

  priv = GET_PRIV (self);
  return index < priv->n_inputs && priv->input_windows ?
      priv->input_windows[index] : NULL;
}

/**
 * plan_kernel_element_get_output_info:
 * @self: a #PlanKernelElement
 *
 * Returns: (transfer none): the output info set by setup(); valid in the
 *   streaming thread.
 *
 * Since: 0.1
 */
const PlanArrayInfo *
plan_kernel_element_get_output_info (PlanKernelElement * self)
{
  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), NULL);

  return &GET_PRIV (self)->output;
}

/**
 * plan_kernel_element_get_input_range:
 * @self: a #PlanKernelElement
 * @index: an input, in pad order
 * @first: (out) (optional): the first row of the stream it delivers
 * @end: (out) (optional): one past its last row, or -1 when its segment
 *   runs to the end of the stream
 *
 * The rows of the stream that input @index's segment selects: all of it
 * (0 to -1) unless a seek chose a range. A subclass that needs rows
 * outside its chunks (a stencil wrapping round) asks for the range's
 * rows, not the whole stream's. Call from the streaming thread.
 *
 * Returns: %FALSE when there is no input @index.
 *
 * Since: 0.1
 */
gboolean
plan_kernel_element_get_input_range (PlanKernelElement * self, guint index,
    guint64 * first, gint64 * end)
{
  GList *pads;
  PlanKernelPad *pad;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), FALSE);

  pads = get_sink_pads (self);
  pad = g_list_nth_data (pads, index);
  if (pad != NULL) {
    if (first)
      *first = pad->range_first;
    if (end)
      *end = pad->range_end;
  }
  g_list_free_full (pads, gst_object_unref);
  return pad != NULL;
}

/* The rows [@first, @end) input @index delivers: its segment's range,
 * ended by the stream's length from the caps or upstream's duration in
 * rows. FALSE when the end is not known. */
static gboolean
input_rows (PlanKernelElement * self, guint index, GstPad * sinkpad,
    const PlanArrayInfo * info, guint64 * first, gint64 * end)
{
  gint64 total = plan_array_info_get_n_rows (info);

  plan_kernel_element_get_input_range (self, index, first, end);
  if (total < 0
      && !gst_pad_peer_query_duration (sinkpad, GST_FORMAT_DEFAULT, &total))
    total = -1;
  if (total >= 0)
    *end = *end < 0 ? total : MIN (*end, total);
  if (*end < 0)
    return FALSE;
  *end = MAX (*end, (gint64) * first);
  return TRUE;
}

/**
 * plan_kernel_element_read_end_rows: (skip)
 * @self: a #PlanKernelElement
 * @index: the input
 * @n_rows: how many of the last rows are wanted
 * @total: (out): the number of rows input @index delivers (its segment's)
 * @buffer: (out) (transfer full): the last MIN (@n_rows, @total) rows, in
 *   host memory
 * @error: return location for an error
 *
 * Reads the last rows of input @index out of order from upstream, with
 * the #PLAN_QUERY_READ_ROWS query (which planfilesrc and planarraysrc
 * answer): what boundary=wrap along the streaming axis needs before the
 * first output. After a seek, the last rows of the range sought.
 * plan_kernel_element_fill_halo_end() is this for a #PlanHalo; a kernel
 * keeping its halo elsewhere (on a device) calls this.
 *
 * Returns: %TRUE on success; %FALSE with @error set when the stream's
 *   length is unknown before its end, or upstream cannot read rows out of
 *   order.
 *
 * Since: 0.1
 */
gboolean
plan_kernel_element_read_end_rows (PlanKernelElement * self, guint index,
    gsize n_rows, guint64 * total, GstBuffer ** buffer, GError ** error)
{
  const PlanArrayInfo *info;
  GstQuery *query;
  GstPad *sinkpad;
  guint64 first;
  gint64 end;
  gboolean ok;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), FALSE);
  g_return_val_if_fail (total != NULL && buffer != NULL, FALSE);

  *buffer = NULL;
  info = plan_kernel_element_get_input_info (self, index);
  GST_OBJECT_LOCK (self);
  sinkpad = g_list_nth_data (GST_ELEMENT (self)->sinkpads, index);
  if (sinkpad)
    gst_object_ref (sinkpad);
  GST_OBJECT_UNLOCK (self);
  g_return_val_if_fail (sinkpad != NULL && info != NULL, FALSE);

  if (!input_rows (self, index, sinkpad, info, &first, &end)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "boundary=wrap along the streaming axis needs the length of the "
        "stream before its end, and upstream does not say it (no shape[0] "
        "in the caps and no duration in rows)");
    gst_object_unref (sinkpad);
    return FALSE;
  }
  *total = end - (gint64) first;
  n_rows = MIN (n_rows, *total);
  query = plan_query_new_read_rows (end - n_rows, n_rows);
  ok = gst_pad_peer_query (sinkpad, query);
  if (!ok) {
    GstPad *peer = gst_pad_get_peer (sinkpad);
    GstElement *up = peer ? gst_pad_get_parent_element (peer) : NULL;

    gst_query_unref (query);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "boundary=wrap along the streaming axis needs the last %"
        G_GSIZE_FORMAT " rows of its input before the first output, read "
        "out of order from a source such as planfilesrc or planarraysrc; "
        "%s%s cannot give them (behind a kernel element the rows read would "
        "not be its output: put the stencil first, or shard the run with "
        "planfilesrc shard=mpi, whose ranks pass them on)", n_rows,
        up ? "" : "upstream", up ? GST_OBJECT_NAME (up) : "");
    gst_clear_object (&up);
    gst_clear_object (&peer);
    gst_object_unref (sinkpad);
    return FALSE;
  }
  gst_object_unref (sinkpad);
  *buffer = plan_query_get_read_rows_buffer (query);
  gst_query_unref (query);
  if (*buffer == NULL || gst_buffer_get_size (*buffer) !=
      n_rows * plan_array_info_get_row_size (info)) {
    gst_clear_buffer (buffer);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "Upstream answered the request for the last %" G_GSIZE_FORMAT
        " rows (for boundary=wrap) with the wrong data", n_rows);
    return FALSE;
  }
  return TRUE;
}

/**
 * plan_kernel_element_alloc_device_output:
 * @self: a #PlanKernelElement whose class sets launch_pushes
 * @n_rows: the number of output rows
 * @buffer: (out) (transfer full): the buffer
 * @device_ptr: (out): its device pointer, for a kernel to write
 * @error: return location for an error
 *
 * A device buffer for @n_rows output rows, from the element's pool of
 * device buffers: the element's stream (plan_kernel_element_get_stream())
 * has been made to wait for the buffer's last use. Record its ready event
 * after the kernel that fills it, then push it with
 * plan_kernel_element_push_output(). Call from the streaming thread,
 * in launch() or finish() when the element runs on the device.
 *
 * Returns: %TRUE, or %FALSE with @error set (out of device memory, or
 *   the output not in device memory)
 *
 * Since: 0.1
 */
gboolean
plan_kernel_element_alloc_device_output (PlanKernelElement * self,
    gsize n_rows, GstBuffer ** buffer, gpointer * device_ptr,
    GError ** error)
{
  PlanKernelElementPrivate *priv;

  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), FALSE);
  g_return_val_if_fail (buffer != NULL && device_ptr != NULL, FALSE);

  priv = GET_PRIV (self);
  *buffer = _plan_kernel_device_alloc_output (priv->device, n_rows *
      plan_array_info_get_row_size (&priv->output), error);
  if (*buffer == NULL)
    return FALSE;
  *device_ptr = plan_device_memory_get_pointer (gst_buffer_peek_memory
      (*buffer, 0));
  return TRUE;
}

/**
 * plan_kernel_element_get_stream:
 * @self: a #PlanKernelElement
 *
 * The stream the element's launch() calls queue their work on, for a
 * class that pushes its own outputs (launch_pushes) to queue the last of
 * them from finish().
 *
 * Returns: (transfer none) (nullable): the stream, or %NULL when chunks
 *   are not computed on the device through launch() (the CPU target, an
 *   output in system memory, or a launch() that said its device cannot).
 *
 * Since: 0.1
 */
PlanStream *
plan_kernel_element_get_stream (PlanKernelElement * self)
{
  g_return_val_if_fail (PLAN_IS_KERNEL_ELEMENT (self), NULL);

  return _plan_kernel_device_get_stream (GET_PRIV (self)->device);
}
