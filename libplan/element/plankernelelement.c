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

/* Locking, for this file and the others of PlanKernelElement
 * (plankernelelement-aggregate.c, -seek.c, -subclass.c, -device.c; the
 * state they share is in plankernelelement-private.h)
 *
 * Lock order, outermost first:
 *   0. inputs_lock (PlanKernelElementPrivate, recursive): held by the
 *      aggregate thread in update_src_caps() from the moment it lists the
 *      sink pads until setup() has read them and settings_read is set, and
 *      by request_new_pad() around its look at settings_read and the base
 *      class's request (which adds the pad). So a pad requested while the
 *      element configures is either among the inputs set up or refused,
 *      never added behind the list that was set up. It is the one lock
 *      held while a subclass's vmethod (setup()) runs and while posting
 *      (setup's errors, the request's pad-added signal); recursive, so
 *      that a handler on the same thread may request a pad.
 *   1. pop_lock (PlanKernelElementPrivate): held around the base class's
 *      gst_aggregator_pad_pop_buffer() (which takes the pad's PAD_LOCK)
 *      and its release_pad() (which takes the aggregator's SRC_LOCK, the
 *      pad's PAD_LOCK and the element's OBJECT_LOCK); see
 *      _plan_kernel_element_pop_input(). Taken with no other lock held.
 *   2. the element's OBJECT_LOCK: the properties and the seek state (the
 *      fields marked OBJECT_LOCK in PlanKernelElementPrivate). Inside it
 *      the device code takes the sink pads' OBJECT_LOCKs (their current
 *      caps) and plan_device_get()'s registry lock (device_of_inputs()).
 *   3. a pad's OBJECT_LOCK: the pad's properties.
 * But for inputs_lock, nothing is pushed, posted, queried or handed to a
 * subclass's vmethod with any of these held, and no function of these files expects a lock
 * held by its caller: each takes and releases the ones it needs. The
 * fields marked "aggregate thread" are only touched from aggregate() and
 * the vmethods GstAggregator calls on that thread (or with it stopped);
 * the atomic ones are read by the src pad's probe on other threads.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plankernelelement.h"
#include <libplan/planerror.h>
#include "libplan/core/plan-private.h"
#include "plankernelelement-private.h"
#include <libplan/planshardhooks.h>

#include <string.h>

GST_DEBUG_CATEGORY (plan_kernel_element_debug);
#define GST_CAT_DEFAULT plan_kernel_element_debug

/* PlanKernelPad ----------------------------------------------------------- */

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

/* A buffer of no bytes (appsrc sends one for an empty push) holds no
 * rows: it is dropped before it reaches the pad's queue, where
 * GstAggregator would count it as data to aggregate. */
static GstPadProbeReturn
plan_kernel_pad_drop_empty (GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

  if (gst_buffer_get_size (buf) > 0)
    return GST_PAD_PROBE_OK;
  GST_LOG_OBJECT (pad, "dropping an empty buffer");
  return GST_PAD_PROBE_DROP;
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
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
        plan_kernel_pad_drop_empty, NULL, NULL);
  }
}

static void
plan_kernel_pad_finalize (GObject * object)
{
  g_free (PLAN_KERNEL_PAD (object)->variable);
  g_free (PLAN_KERNEL_PAD (object)->window);
  g_free (PLAN_KERNEL_PAD (object)->stream_id);
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
          "The name the expression gives this input (planmap; planstencil: "
          "its centre cell); unset: x, y, z, w by pad number. Elements that "
          "read no variable (planreduce, plancustom) refuse it", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * PlanKernelPad:window:
   *
   * For elements that read a window of cells around each element of this
   * input (planstencil's request pads): the window's picture, whose cell
   * names the expression uses (docs/planstencil.md); unset, the input's
   * element at the centre, named by #PlanKernelPad:variable. Read when
   * the input's caps arrive. gst-plan's elements that read no window
   * (planmap, planreduce, plancustom) refuse one set, and those that read
   * no variable (planreduce, plancustom) refuse a variable, when the caps
   * arrive.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PAD_PROP_WINDOW,
      g_param_spec_string ("window", "Window",
          "The window of this input's cells, as a picture (planstencil's "
          "request pads); unset: the element at the centre, named by "
          "variable. Elements that read no window refuse it", NULL,
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

static void plan_kernel_element_child_proxy_init (gpointer g_iface,
    gpointer iface_data);

/* A child proxy of its sink pads, as audiomixer is: a launch line sets a
 * pad's properties as `sink_0::variable=a`. */
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (PlanKernelElement, plan_kernel_element,
    GST_TYPE_AGGREGATOR, G_ADD_PRIVATE (PlanKernelElement)
    G_IMPLEMENT_INTERFACE (GST_TYPE_CHILD_PROXY,
        plan_kernel_element_child_proxy_init));

PlanKernelElementPrivate *
_plan_kernel_element_get_private (PlanKernelElement * self)
{
  return plan_kernel_element_get_instance_private (self);
}

gpointer
_plan_kernel_element_get_parent_class (void)
{
  return plan_kernel_element_parent_class;
}

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

void
_plan_kernel_element_clear_pool (PlanKernelElementPrivate * priv)
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
          pspec)
      || plan_element_refuse_out_of_range (GST_ELEMENT (object), pspec,
          value))
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
  _plan_kernel_element_clear_pool (priv);
  gst_clear_event (&priv->pending_seek);
  g_free (priv->posted_error);
  g_mutex_clear (&priv->pop_lock);
  g_rec_mutex_clear (&priv->inputs_lock);

  G_OBJECT_CLASS (plan_kernel_element_parent_class)->finalize (object);
}

/* An element that fails in a sharded run tells the other ranks, so that
 * none waits for ever for a message from this one, and why: the error it
 * posted (another rank may learn it before it meets the same problem
 * itself, and its own error then says what it was), or else that it
 * stopped with an error. */
void
_plan_kernel_element_tell_ranks (PlanKernelElement * self)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  gchar *text;

  if (!priv->sharded)
    return;
  GST_OBJECT_LOCK (self);
  text = priv->posted_error ? g_strdup (priv->posted_error) :
      g_strdup_printf ("%s stopped with an error", GST_ELEMENT_NAME (self));
  GST_OBJECT_UNLOCK (self);
  plan_shard_abort (text);
  g_free (text);
}

/* Remembers the message of an error the element posts, for
 * _plan_kernel_element_tell_ranks(). */
static gboolean
plan_kernel_element_post_message (GstElement * element, GstMessage * message)
{
  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR
      && GST_MESSAGE_SRC (message) == GST_OBJECT (element)) {
    PlanKernelElementPrivate *priv = GET_PRIV (element);
    GError *err = NULL;

    gst_message_parse_error (message, &err, NULL);
    GST_OBJECT_LOCK (element);
    g_free (priv->posted_error);
    priv->posted_error = g_strdup (err->message);
    GST_OBJECT_UNLOCK (element);
    g_error_free (err);
  }
  return GST_ELEMENT_CLASS (plan_kernel_element_parent_class)->post_message
      (element, message);
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
  pad->segment_done = FALSE;
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
  PLAN_KERNEL_PAD (apad)->sharded = TRUE;
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
            G_GUINT64_FORMAT " + %" G_GINT64_FORMAT " of %" G_GUINT64_FORMAT
            ", another: rows %" G_GUINT64_FORMAT " + %" G_GINT64_FORMAT
            " of %" G_GUINT64_FORMAT "): the rows would not line up%s.",
            GST_ELEMENT_NAME (self), GST_PAD_NAME (apad), in.origin,
            in.n_rows, in.total, priv->shard.origin, priv->shard.n_rows,
            priv->shard.total, in.total != priv->shard.total ?
            "; the inputs of an element need the same number of rows" : ""),
        (NULL));
    g_atomic_int_set (&priv->failed, TRUE);
    _plan_kernel_element_tell_ranks (self);
    return FALSE;
  }
refused:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s cannot run sharded: %s",
            GST_ELEMENT_NAME (self), err->message), (NULL));
    g_error_free (err);
    g_atomic_int_set (&priv->failed, TRUE);
    _plan_kernel_element_tell_ranks (self);
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
  } else if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
    /* Rows that then do not start where the segment says were dropped by
     * the flush (check_head()). */
    g_atomic_int_set (&PLAN_KERNEL_PAD (apad)->flushed, TRUE);
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
    _plan_kernel_element_preroll_downstream (PLAN_KERNEL_ELEMENT (agg));
    gst_event_unref (event);
    return TRUE;
  } else if (GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START) {
    PlanKernelPad *pad = PLAN_KERNEL_PAD (apad);
    const gchar *id = NULL;

    /* Serialized: the rows of the stream before have all been taken. The
     * same stream announced again is no new stream. */
    gst_event_parse_stream_start (event, &id);
    if (pad->stream_id != NULL && g_strcmp0 (id, pad->stream_id) != 0) {
      GstFlowReturn ret = _plan_kernel_element_end_range
          (PLAN_KERNEL_ELEMENT (agg), pad, FALSE);

      if (ret != GST_FLOW_OK)
        GST_DEBUG_OBJECT (pad, "ending the stream before: %s",
            gst_flow_get_name (ret));
    }
    g_free (pad->stream_id);
    pad->stream_id = g_strdup (id);
  } else if (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT_DONE) {
    /* Serialized: after the last rows of the segment. Passed on after
     * what the end of the range pushes. */
    GstFlowReturn ret = _plan_kernel_element_end_range
        (PLAN_KERNEL_ELEMENT (agg), PLAN_KERNEL_PAD (apad), TRUE);

    if (ret != GST_FLOW_OK)
      GST_DEBUG_OBJECT (apad, "ending the segment: %s",
          gst_flow_get_name (ret));
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
GList *
_plan_kernel_element_get_sink_pads (PlanKernelElement * self)
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
 * rows of the output's row size. Seeks go upstream in time where every
 * input is sampled at the output's rate, else in rows. */
static void
update_seek_row_size (PlanKernelElement * self,
    PlanKernelElementPrivate * priv)
{
  PlanKernelElementClass *klass = PLAN_KERNEL_ELEMENT_GET_CLASS (self);
  guint64 first = 3;
  gint64 end = 10;
  gsize row = plan_array_info_get_row_size (&priv->output);
  gboolean in_time;
  guint i;

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
  in_time = plan_array_info_has_rate (&priv->output);
  for (i = 0; i < priv->n_inputs && in_time; i++)
    in_time = priv->inputs[i].rate_n == priv->output.rate_n
        && priv->inputs[i].rate_d == priv->output.rate_d;
  GST_OBJECT_LOCK (self);
  priv->inputs_in_time = in_time;
  priv->seek_row_size = first == 3 && end == 10 ? row : 0;
  priv->out_row_size = row;
  priv->out_time = priv->output;
  priv->out_caps_rows = plan_array_info_get_n_rows (&priv->output);
  GST_OBJECT_UNLOCK (self);
  /* Duration and position are answered from now on, in the output's
   * terms: an application that asked before asks again. */
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_duration_changed (GST_OBJECT (self)));
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

/* What follows "Inputs have different lengths" where one input has one
 * row and the other more: numpy would broadcast a (1, n) array against an
 * (m, n) one, and inputs here meet row for row. */
const gchar *
_plan_kernel_element_lengths_hint (guint64 a, guint64 b)
{
  if ((a == 1) == (b == 1))
    return "";
  return " Rows are not broadcast: inputs meet row for row, so a one-row "
      "input is not repeated for every row as numpy would repeat it; give "
      "values that every row shares as a constant instead (planmap's "
      "constants).";
}

/* What follows "Inputs have different lengths" where some inputs are one
 * rank's share of a sharded stream and others are not (read without
 * shard=mpi: every row on every rank). */
const gchar *
_plan_kernel_element_shard_hint (GList * pads)
{
  gboolean sharded = FALSE, whole = FALSE;
  GList *l;

  for (l = pads; l; l = l->next) {
    if (PLAN_KERNEL_PAD (l->data)->sharded)
      sharded = TRUE;
    else
      whole = TRUE;
  }
  if (!sharded || !whole)
    return "";
  return " Some inputs are this rank's share of a sharded stream and others "
      "are not (they have every row on every rank): read every input of an "
      "element with shard=mpi (planfilesrc), so that each is the same "
      "share.";
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
              " row%s but %s has %" G_GINT64_FORMAT " row%s.%s%s",
              GST_PAD_NAME (known), known_rows, known_rows == 1 ? "" : "s",
              GST_PAD_NAME (l->data), rows, rows == 1 ? "" : "s",
              _plan_kernel_element_lengths_hint (known_rows, rows),
              _plan_kernel_element_shard_hint (pads)), ("known from their caps or duration, before any row "
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

/* Makes the seek in bytes or time that waited for the output's caps, from
 * another thread than the streaming thread that set them (the flush it
 * starts stops that thread), unless a later seek came meanwhile: that one
 * stands. The seek was accepted when it was sent: one that cannot be made
 * now is an error, not a stream that goes on as if it had not been sent. */
void
_plan_kernel_element_send_pending_seek (GstElement * element, gpointer data)
{
  PendingSeek *pending = data;
  gboolean superseded;
  GstFormat format;
  gchar *why = NULL;

  GST_OBJECT_LOCK (element);
  superseded = GET_PRIV (element)->n_seeks != pending->n;
  GST_OBJECT_UNLOCK (element);
  if (superseded) {
    GST_DEBUG_OBJECT (element, "a later seek came: the seek that waited "
        "for caps is not made");
    return;
  }
  GST_DEBUG_OBJECT (element, "making the seek that waited for caps");
  if (_plan_kernel_element_seek (GST_AGGREGATOR (element),
          gst_event_ref (pending->seek), &why))
    return;
  gst_event_parse_seek (pending->seek, NULL, &format, NULL, NULL, NULL,
      NULL, NULL);
  GST_ELEMENT_ERROR (element, CORE, SEEK,
      ("The seek in %s sent before %s knew its output cannot be made now "
          "that it does: %s.", gst_format_get_name (format),
          GST_ELEMENT_NAME (element), why ? why : "upstream refused it"),
      ("the seek was accepted and kept until the output's caps"));
  g_free (why);
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
    gst_element_call_async (GST_ELEMENT (self),
        _plan_kernel_element_send_pending_seek, pending,
        (GDestroyNotify) pending_seek_free);
}

/* Refuses caps that give an input other rows (another dtype or row shape)
 * after some of its rows came in the range: setup() would start the
 * element over there (a reduction would drop the rows before the change,
 * a stencil its halo) and the output would pass for the stream's. A new
 * range (a segment, a flush) may bring another array. */
static gboolean
check_rows_unchanged (PlanKernelElement * self, GList * pads)
{
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  GList *l;
  guint i;

  if (!priv->configured || g_list_length (pads) != priv->n_inputs)
    return TRUE;
  for (l = pads, i = 0; l; l = l->next, i++) {
    PlanKernelPad *pad = l->data;
    PlanArrayInfo now;
    gboolean changed;
    gchar *before, *after;

    GST_OBJECT_LOCK (pad);
    now = pad->info;
    changed = pad->info_changed;
    GST_OBJECT_UNLOCK (pad);
    if (!changed || pad->next_row <= pad->range_first
        || (priv->inputs[i].dtype == now.dtype
            && plan_array_info_same_rows (&priv->inputs[i], &now)))
      continue;
    before = plan_array_info_to_string (&priv->inputs[i]);
    after = plan_array_info_to_string (&now);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Input %s of %s changed from "
            "%s to %s in the middle of the stream, after %" G_GUINT64_FORMAT
            " rows: a stream is one array, whose rows have one dtype and "
            "shape, and a result over rows of two arrays is not given.",
            GST_PAD_NAME (pad), GST_ELEMENT_NAME (self), before, after,
            pad->next_row - pad->range_first), (NULL));
    g_free (before);
    g_free (after);
    return FALSE;
  }
  return TRUE;
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
  if (!check_rows_unchanged (self, pads)) {
    g_atomic_int_set (&priv->failed, TRUE);
    return GST_FLOW_ERROR;
  }

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
void
_plan_kernel_element_post_refused_caps (PlanKernelElement * self,
    GstCaps * offered,
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
  PlanKernelElementPrivate *priv = GET_PRIV (self);
  GstFlowReturn flow = GST_AGGREGATOR_FLOW_NEED_DATA;
  GList *pads;

  /* No pad is added between the list and the settings read from it. */
  g_rec_mutex_lock (&priv->inputs_lock);
  pads = _plan_kernel_element_get_sink_pads (self);
  if (pads != NULL)
    flow = ensure_configured (self, pads);
  g_rec_mutex_unlock (&priv->inputs_lock);
  g_list_free_full (pads, gst_object_unref);
  if (flow != GST_FLOW_OK) {
    /* A rank whose element cannot be set up stops the others too. */
    if (g_atomic_int_get (&GET_PRIV (self)->failed))
      _plan_kernel_element_tell_ranks (self);
    return flow;
  }

  *ret = plan_array_info_to_caps (&GET_PRIV (self)->output);
  *ret = _plan_kernel_device_src_caps (GET_PRIV (self)->device, *ret,
      downstream);
  GST_CAT_INFO_OBJECT (element_category (self), self, "output caps %"
      GST_PTR_FORMAT " (downstream takes %" GST_PTR_FORMAT ")", *ret,
      downstream);
  /* Rows without a rate are refused by a caps filter asking for one too:
   * it would take them and write its rate into the caps it passes on, over
   * buffers without times. */
  if (downstream && (!gst_caps_can_intersect (*ret, downstream)
          || _plan_caps_gain_rate (*ret, downstream))) {
    _plan_kernel_element_post_refused_caps (self, *ret, downstream);
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
  GList *pads = _plan_kernel_element_get_sink_pads (self), *l;
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
  /* A number out of its property's range, first: nothing reads it before. */
  if (!plan_element_check_ranges (GST_ELEMENT (agg), &err))
    goto bad_settings;
  if (klass->check_settings
      && !klass->check_settings (PLAN_KERNEL_ELEMENT (agg), &err))
    goto bad_settings;
  _plan_kernel_element_init_output_segment (PLAN_KERNEL_ELEMENT (agg));
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

  GList *pads, *l;

  _plan_kernel_element_reset_state (PLAN_KERNEL_ELEMENT (agg));
  priv->sharded = FALSE;
  GST_OBJECT_LOCK (agg);
  g_clear_pointer (&priv->posted_error, g_free);
  GST_OBJECT_UNLOCK (agg);
  pads = _plan_kernel_element_get_sink_pads (PLAN_KERNEL_ELEMENT (agg));
  for (l = pads; l; l = l->next)
    PLAN_KERNEL_PAD (l->data)->sharded = FALSE;
  g_list_free_full (pads, gst_object_unref);
  free_inputs (priv);
  _plan_kernel_element_clear_pool (priv);
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
  _plan_kernel_element_init_output_segment (PLAN_KERNEL_ELEMENT (agg));
  return TRUE;
}

/* An element computing on a device offers pinned host memory upstream:
 * a source that reads into it (planfilesrc) makes the uploads of its
 * chunks true asynchronous copies. One computing on the CPU asks for the
 * chunk size of its class, if it has one. */
static gboolean
plan_kernel_element_propose_allocation (GstAggregator * agg,
    GstAggregatorPad * pad, GstQuery * decide_query, GstQuery * query)
{
  gsize chunk_bytes = PLAN_KERNEL_ELEMENT_GET_CLASS (agg)->input_chunk_bytes;
  GstAllocator *allocator;
  GstCaps *caps = NULL;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!_plan_kernel_device_has_device (GET_PRIV (agg)->device)) {
    if (chunk_bytes > 0 && chunk_bytes <= G_MAXUINT) {
      gst_query_add_allocation_pool (query, NULL, (guint) chunk_bytes, 0, 0);
      GST_DEBUG_OBJECT (pad, "asking upstream for chunks of %" G_GSIZE_FORMAT
          " bytes", chunk_bytes);
    }
    return TRUE;
  }
  if (caps != NULL && plan_caps_is_device (caps))
    return TRUE;
  allocator = plan_host_allocator_get ();
  gst_query_add_allocation_param (query, allocator, NULL);
  gst_object_unref (allocator);
  GST_DEBUG_OBJECT (pad, "offering pinned host memory upstream");
  return TRUE;
}

/* Inputs are fixed once setup() has read them: the kernel was compiled
 * for them, and an input added then would have rows for none of it (and
 * GstAggregator would wait for its data for ever when nothing is linked
 * to it). The request is refused with a warning, as a property set too
 * late is; a pad released then fails the next aggregate() instead. */
static GstPad *
plan_kernel_element_request_new_pad (GstElement * element,
    GstPadTemplate * templ, const gchar * name, const GstCaps * caps)
{
  PlanKernelElementPrivate *priv = GET_PRIV (element);
  gboolean computing;
  GstPad *pad;

  /* Held until the pad is added: an element configuring its inputs
   * meanwhile sets up with this pad, or has read its settings and
   * refuses it here. */
  g_rec_mutex_lock (&priv->inputs_lock);
  GST_OBJECT_LOCK (element);
  computing = priv->settings_read && GST_STATE (element) > GST_STATE_READY;
  GST_OBJECT_UNLOCK (element);
  if (computing) {
    g_rec_mutex_unlock (&priv->inputs_lock);
    GST_ELEMENT_WARNING (element, CORE, PAD,
        ("%s: an input cannot be added while the element computes (its "
            "inputs are fixed once their caps came); request it in the "
            "NULL or READY state", GST_ELEMENT_NAME (element)), (NULL));
    return NULL;
  }
  pad = GST_ELEMENT_CLASS (plan_kernel_element_parent_class)->
      request_new_pad (element, templ, name, caps);
  g_rec_mutex_unlock (&priv->inputs_lock);

  if (pad)
    gst_child_proxy_child_added (GST_CHILD_PROXY (element), G_OBJECT (pad),
        GST_OBJECT_NAME (pad));
  return pad;
}

/* The base class's release waits for an aggregate() that is popping an
 * input buffer (see _plan_kernel_element_pop_input). */
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
      GST_DEBUG_FUNCPTR (_plan_kernel_element_send_event);
  GST_ELEMENT_CLASS (klass)->post_message =
      GST_DEBUG_FUNCPTR (plan_kernel_element_post_message);
  GST_ELEMENT_CLASS (klass)->request_new_pad =
      GST_DEBUG_FUNCPTR (plan_kernel_element_request_new_pad);
  GST_ELEMENT_CLASS (klass)->release_pad =
      GST_DEBUG_FUNCPTR (plan_kernel_element_release_pad);

  agg_class->aggregate = GST_DEBUG_FUNCPTR (_plan_kernel_element_aggregate);
  agg_class->propose_allocation =
      GST_DEBUG_FUNCPTR (plan_kernel_element_propose_allocation);
  agg_class->src_event = GST_DEBUG_FUNCPTR (_plan_kernel_element_src_event);
  agg_class->src_query = GST_DEBUG_FUNCPTR (_plan_kernel_element_src_query);
  agg_class->sink_event = GST_DEBUG_FUNCPTR (plan_kernel_element_sink_event);
  agg_class->sink_query = GST_DEBUG_FUNCPTR (plan_kernel_element_sink_query);
  agg_class->flush = GST_DEBUG_FUNCPTR (_plan_kernel_element_flush);
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
      plan_param_spec_checked_range (g_param_spec_uint ("n-threads",
              "Threads", "Worker threads for CPU work (0 = one per core)",
              0, 1024, DEFAULT_N_THREADS, G_PARAM_READWRITE |
              G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)));

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
  g_rec_mutex_init (&priv->inputs_lock);
  _plan_kernel_element_init_output_segment (self);
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
