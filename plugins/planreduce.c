/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-planreduce
 * @title: planreduce
 * @short_description: reduces an array stream: sum, prod, min, max, mean,
 *   argmin, argmax, any, all, or a custom combiner
 *
 * planreduce reduces its input with #PlanReduce:op, or with the binary
 * combiner #PlanReduce:expr (in `x` and `y`) and its #PlanReduce:identity,
 * over the axes chosen by #PlanReduce:axis: everything (`all`, one value),
 * the rows (`0`, one value per column) or each row (`-1`, one value per
 * row, as a stream). Result dtypes and NaN handling are numpy's. The result
 * is bit-identical whatever the chunk sizes upstream and the number of
 * threads (see docs/planreduce.md).
 *
 * With #PlanReduce:map set, an elementwise expression in `x` (or `in0`) is
 * applied to every input element before it is reduced, cast to
 * #PlanReduce:map-dtype when that is set: `planreduce map="x*x" op=sum`
 * gives the same bits as `planmap expr="x*x" ! planreduce op=sum`, in one
 * pass over memory and without a thread hand-off. The map is evaluated in
 * cache-sized pieces of whole rows, each reduced while still in cache.
 *
 * At the end of the stream (for `axis=-1`, for each chunk) the element
 * pushes the result as a buffer (a 0-d array for one value), posts an
 * element message named `plan-reduce` with the element's name, the op, the
 * dtype, the shape and the value(s), and keeps it in #PlanReduce:result.
 * With `axis=-1` the values are in the output stream: one message is
 * posted, at the end, with the number of rows reduced and no values,
 * unless #PlanReduce:chunk-messages asks for one per chunk with its
 * values.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -m planfilesrc location=a.npy ! planreduce op=sum ! \
 *     planfilesink location=total.npy
 * ]|
 * The sum of squares, in float64:
 * |[
 * gst-launch-1.0 -m planfilesrc location=a.npy ! \
 *     planreduce map="x*x" map-dtype=float64 op=sum ! fakesink
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planreduce.h"
#include "planpadsettings.h"
#include <libplan/planreducemap.h>
#include <libplan/planshardhooks.h>
#include <libplan/planreducerasync.h>
#include <libplan/plankernelinput.h>

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (plan_reduce_debug);
#define GST_CAT_DEFAULT plan_reduce_debug

#define DEFAULT_OP PLAN_REDUCE_OP_SUM
#define DEFAULT_EXPR NULL
#define DEFAULT_IDENTITY NULL
#define DEFAULT_AXIS PLAN_REDUCE_AXIS_ALL
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_CHUNK_MESSAGES FALSE
#define DEFAULT_MAP NULL
#define DEFAULT_MAP_DTYPE PLAN_DTYPE_UNKNOWN
#define DEFAULT_DDOF 0.0

enum
{
  PROP_0,
  PROP_OP,
  PROP_EXPR,
  PROP_IDENTITY,
  PROP_AXIS,
  PROP_POST_MESSAGES,
  PROP_RESULT,
  PROP_MAP,
  PROP_MAP_DTYPE,
  PROP_DDOF,
  PROP_CHUNK_MESSAGES,
};

static GParamSpec *result_pspec;

struct _PlanReduce
{
  PlanKernelElement parent;

  /* protected by OBJECT_LOCK */
  PlanReduceOp op;
  gchar *expr;
  gchar *identity;
  PlanReduceAxis axis;
  gboolean post_messages;
  gboolean chunk_messages;
  gchar *map;
  PlanDType map_dtype;          /* PLAN_DTYPE_UNKNOWN: the map's own */
  gdouble ddof;
  GError *rejected_expr;        /* why the last expr set was refused */
  GError *rejected_identity;    /* why the last identity set was refused */
  GError *rejected_map;         /* why the map set is refused */
  GstStructure *result;

  /* streaming thread only */
  PlanReducer *reducer;
  PlanReduceMap *map_fused;     /* the map compiled for the input */
  gboolean posted;              /* a message was posted for the last chunk */
  GByteArray *last_values;      /* axis=-1: results of the last chunk */
  gsize last_rows;
  guint64 last_first_row;
  PlanDeviceReducer *device_reducer;    /* on a device: the reduction */
  PlanStream *device_stream;    /* the stream it queues on */
  /* sharded (axis all or 0): the global row after the last one pushed,
   * not wrapped around the stream's end */
  gboolean sharded;
  guint64 next_global;
  gboolean origin_set;
  /* axis all or 0 on the host: the chunk the reducer's workers may still
   * read */
  PlanHeldChunk *held;
};

G_DEFINE_TYPE (PlanReduce, plan_reduce, PLAN_TYPE_KERNEL_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (planreduce, "planreduce",
    GST_RANK_NONE, PLAN_TYPE_REDUCE,
    GST_DEBUG_CATEGORY_INIT (plan_reduce_debug, "planreduce", 0,
        "Array reductions"));

/* An identity is checked for being a number (or true/false) when set; it
 * is parsed for the accumulator dtype when the input is known. */
static gboolean
identity_is_number (const gchar * s)
{
  gchar *end = NULL;

  if (g_ascii_strcasecmp (s, "true") == 0
      || g_ascii_strcasecmp (s, "false") == 0)
    return TRUE;
  g_ascii_strtod (s, &end);
  return end != s && *end == '\0';
}

/* An expr or identity that cannot work is stored as given (reading it back
 * returns it, so that an editor keeps what the user typed), reported now
 * in the log and posted as the element error when the pipeline starts. */
static void
plan_reduce_set_string (PlanReduce * self, guint prop_id, const gchar * s)
{
  gboolean is_expr = prop_id == PROP_EXPR;
  gchar **slot = is_expr ? &self->expr : &self->identity;
  GError **rejected = is_expr ? &self->rejected_expr :
      &self->rejected_identity;
  GError *err = NULL;

  if (s != NULL && *s == '\0')
    s = NULL;
  if (is_expr && s != NULL && !plan_expr_check (s, &err)) {
    /* The message shows the expression, with a caret. */
    g_prefix_error (&err, "planreduce %s, expr: ", GST_OBJECT_NAME (self));
  } else if (!is_expr && s != NULL && !identity_is_number (s)) {
    err = g_error_new (PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "planreduce %s, identity \"%s\": not a number (nor true or false)",
        GST_OBJECT_NAME (self), s);
  }
  plan_kernel_element_keep_setting (PLAN_KERNEL_ELEMENT (self),
      is_expr ? "expr" : "identity", slot, s, rejected, err);
}

/* The map is stored as given, so that reading it back gives what was
 * written; one that cannot work is reported now and posted as the element
 * error when the pipeline starts. */
static void
plan_reduce_set_map (PlanReduce * self, const gchar * s)
{
  GError *err = NULL;

  if (s != NULL && *s == '\0')
    s = NULL;
  if (s != NULL)
    plan_expr_check (s, &err);
  plan_kernel_element_keep_setting (PLAN_KERNEL_ELEMENT (self), "map",
      &self->map, s, &self->rejected_map, err);
}

static void
plan_reduce_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  PlanReduce *self = PLAN_REDUCE (object);

  if (plan_kernel_element_refuse_live_set (PLAN_KERNEL_ELEMENT (self), pspec)
      || plan_element_refuse_out_of_range (GST_ELEMENT (self), pspec, value))
    return;
  switch (prop_id) {
    case PROP_EXPR:
    case PROP_IDENTITY:
      plan_reduce_set_string (self, prop_id, g_value_get_string (value));
      break;
    case PROP_MAP:
      plan_reduce_set_map (self, g_value_get_string (value));
      break;
    case PROP_MAP_DTYPE:
      GST_OBJECT_LOCK (self);
      self->map_dtype = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_OP:
      GST_OBJECT_LOCK (self);
      self->op = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_AXIS:
      GST_OBJECT_LOCK (self);
      self->axis = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_DDOF:
      GST_OBJECT_LOCK (self);
      self->ddof = g_value_get_double (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_POST_MESSAGES:
      GST_OBJECT_LOCK (self);
      self->post_messages = g_value_get_boolean (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_CHUNK_MESSAGES:
      GST_OBJECT_LOCK (self);
      self->chunk_messages = g_value_get_boolean (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
plan_reduce_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  PlanReduce *self = PLAN_REDUCE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_OP:
      g_value_set_enum (value, self->op);
      break;
    case PROP_EXPR:
      g_value_set_string (value, self->expr);
      break;
    case PROP_IDENTITY:
      g_value_set_string (value, self->identity);
      break;
    case PROP_AXIS:
      g_value_set_enum (value, self->axis);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    case PROP_CHUNK_MESSAGES:
      g_value_set_boolean (value, self->chunk_messages);
      break;
    case PROP_RESULT:
      g_value_set_boxed (value, self->result);
      break;
    case PROP_DDOF:
      g_value_set_double (value, self->ddof);
      break;
    case PROP_MAP:
      g_value_set_string (value, self->map);
      break;
    case PROP_MAP_DTYPE:
      g_value_set_enum (value, self->map_dtype);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Returns why the map set cannot work, naming the element and the
 * property, or NULL.
 * Must be called with OBJECT_LOCK held */
static GError *
plan_reduce_get_map_rejection_unlocked (PlanReduce * self)
{
  GError *why = self->rejected_map;

  if (why == NULL)
    return NULL;
  return g_error_new (why->domain, why->code, "planreduce %s, map \"%s\": %s",
      GST_OBJECT_NAME (self), self->map, why->message);
}

/* Refuses to start with settings that cannot work whatever the input: a
 * rejected expr, identity, map or map-dtype, a combiner without identity,
 * an identity without combiner (which op would silently ignore) or a
 * map-dtype without map (which would be ignored as silently). */
static gboolean
plan_reduce_start (GstAggregator * agg)
{
  PlanReduce *self = PLAN_REDUCE (agg);
  GError *rejected = NULL;
  gboolean no_identity;
  gchar *expr, *stray_identity = NULL;
  PlanDType stray_map_dtype = PLAN_DTYPE_UNKNOWN;

  self->sharded = FALSE;
  self->origin_set = FALSE;

  GST_OBJECT_LOCK (self);
  if (self->rejected_expr)
    rejected = g_error_copy (self->rejected_expr);
  else if (self->rejected_identity)
    rejected = g_error_copy (self->rejected_identity);
  else
    rejected = plan_reduce_get_map_rejection_unlocked (self);
  expr = g_strdup (self->expr);
  no_identity = self->expr != NULL && self->identity == NULL;
  if (self->expr == NULL && self->identity != NULL)
    stray_identity = g_strdup (self->identity);
  if (self->map == NULL)
    stray_map_dtype = self->map_dtype;
  GST_OBJECT_UNLOCK (self);

  if (rejected)
    goto rejected;
  if (no_identity)
    goto no_identity;
  if (stray_identity)
    goto no_expr;
  if (stray_map_dtype != PLAN_DTYPE_UNKNOWN)
    goto no_map;
  g_free (expr);

  return GST_AGGREGATOR_CLASS (plan_reduce_parent_class)->start (agg);

  /* ERRORS */
rejected:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("%s", rejected->message),
        ("expr, identity, map or map-dtype refused when set"));
    g_error_free (rejected);
    g_free (expr);
    return FALSE;
  }
no_identity:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("The custom combiner expr=\"%s\" needs an identity: set identity "
            "to the value of a reduction of nothing, such as identity=0 "
            "for x + y or identity=-inf for max(x, y).", expr), (NULL));
    g_free (expr);
    return FALSE;
  }
no_expr:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("identity=%s is set without expr: the identity is a custom "
            "combiner's (expr=\"x + y\" identity=0); each op has its own. "
            "Set expr, or leave identity unset.", stray_identity), (NULL));
    g_free (stray_identity);
    g_free (expr);
    return FALSE;
  }
no_map:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("map-dtype=%s is set without map: it casts the map's result before "
            "the reduction, and there is no map. Set map (map=\"x\" "
            "map-dtype=%s reduces the input cast to %s), or leave map-dtype "
            "unset.", plan_dtype_to_string (stray_map_dtype),
            plan_dtype_to_string (stray_map_dtype),
            plan_dtype_to_string (stray_map_dtype)), (NULL));
    g_free (expr);
    return FALSE;
  }
}

static void
plan_reduce_clear_device (PlanReduce * self)
{
  g_clear_pointer (&self->device_reducer, plan_device_reducer_free);
  plan_clear_stream (&self->device_stream);
  if (self->map_fused)
    plan_reduce_map_release_device (self->map_fused);
}

static void
plan_reduce_clear_state (PlanReduce * self)
{
  plan_reduce_clear_device (self);
  g_clear_pointer (&self->reducer, plan_reducer_unref);
  g_clear_pointer (&self->map_fused, plan_reduce_map_free);
  g_clear_pointer (&self->last_values, g_byte_array_unref);
  self->last_rows = 0;
}

/* Compiles the map for @input (plan_reduce_map_new(): the names planmap
 * gives its first input, x and in0), and gives in @mapped what is
 * reduced: the input's shape in the map's dtype (or map-dtype), or @input
 * itself without a map. */
static gboolean
plan_reduce_setup_map (PlanReduce * self, const PlanArrayInfo * input,
    PlanArrayInfo * mapped, GError ** error)
{
  gchar *map;
  PlanDType map_dtype;
  GError *rejected;

  GST_OBJECT_LOCK (self);
  map = g_strdup (self->map);
  map_dtype = self->map_dtype;
  /* The map may have been set again since the start. */
  rejected = plan_reduce_get_map_rejection_unlocked (self);
  GST_OBJECT_UNLOCK (self);

  *mapped = *input;
  if (rejected)
    goto rejected;
  if (map == NULL)
    return TRUE;
  self->map_fused = plan_reduce_map_new (map, map_dtype, input, mapped,
      error);
  if (self->map_fused == NULL)
    goto compile_failed;
  g_free (map);
  return TRUE;

  /* ERRORS */
rejected:
  {
    g_propagate_error (error, rejected);
    g_free (map);
    return FALSE;
  }
compile_failed:
  {
    g_prefix_error (error, "planreduce %s, map \"%s\": ",
        GST_OBJECT_NAME (self), map);
    g_free (map);
    return FALSE;
  }
}

static gboolean
plan_reduce_setup (PlanKernelElement * kernel, guint n_inputs,
    const PlanArrayInfo * inputs, PlanArrayInfo * output, GError ** error)
{
  PlanReduce *self = PLAN_REDUCE (kernel);
  PlanArrayInfo reduced;
  PlanReduceOp op;
  PlanReduceAxis axis;
  gchar *expr, *identity;
  gdouble ddof;

  if (!plan_refuse_unread_pad_settings (kernel, "planreduce", n_inputs,
          FALSE, FALSE, error))
    return FALSE;

  GST_OBJECT_LOCK (self);
  op = self->op;
  ddof = self->ddof;
  axis = self->axis;
  expr = g_strdup (self->expr);
  identity = g_strdup (self->identity);
  GST_OBJECT_UNLOCK (self);

  plan_reduce_clear_state (self);
  if (!plan_reduce_setup_map (self, &inputs[0], &reduced, error)) {
    g_free (expr);
    g_free (identity);
    return FALSE;
  }
  if (expr == NULL && op == PLAN_REDUCE_OP_PTP && self->map_fused != NULL
      && reduced.dtype == PLAN_DTYPE_BOOL) {
    /* the bools are the map's: the reducer's advice, a map casting the
     * input, would replace it */
    gchar *map;

    GST_OBJECT_LOCK (self);
    map = g_strdup (self->map);
    GST_OBJECT_UNLOCK (self);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_TYPE,
        "planreduce %s: ptp is not defined for bool values, and the map "
        "\"%s\" gives bools: max - min would subtract bools (numpy: "
        "numpy boolean subtract, the `-` operator, is not supported); cast "
        "the map's result to a number (map-dtype=int8)",
        GST_OBJECT_NAME (self), map);
    g_free (map);
    g_free (expr);
    g_free (identity);
    return FALSE;
  }
  if (expr != NULL)
    self->reducer = plan_reducer_new_custom (expr, identity, axis, &reduced,
        error);
  else
    self->reducer = plan_reducer_new (op, axis, &reduced, error);
  if (self->reducer == NULL) {
    /* what the combiner's typing finds is about expr, shown with a caret */
    gboolean in_expr = expr != NULL && error != NULL && *error != NULL
        && ((*error)->code == PLAN_ERROR_TYPE
        || (*error)->code == PLAN_ERROR_SYNTAX);

    g_prefix_error (error, "planreduce %s%s: ", GST_OBJECT_NAME (self),
        in_expr ? ", expr" : "");
  }
  g_free (expr);
  g_free (identity);
  if (self->reducer == NULL)
    return FALSE;
  plan_reducer_set_ddof (self->reducer, ddof);
  plan_reducer_get_output_info (self->reducer, output);
  GST_INFO_OBJECT (self, "reducing with %s (ddof %g)%s",
      plan_reducer_get_name (self->reducer), ddof, self->map_fused ?
      "; the map is fused into it: each slice is mapped into a cache-sized "
      "piece and reduced from there, the map's result never stored whole" :
      "");
  return TRUE;
}

/* Keeps @s as the result property, posts it when asked, and notifies.
 * The property is set first, so that an application reading it when the
 * message arrives reads the result the message holds. */
static void
plan_reduce_publish (PlanReduce * self, GstStructure * s, gboolean post)
{
  GstStructure *copy = post ? gst_structure_copy (s) : NULL;

  GST_OBJECT_LOCK (self);
  if (self->result)
    gst_structure_free (self->result);
  self->result = s;
  GST_OBJECT_UNLOCK (self);
  if (copy)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), copy));
  g_object_notify_by_pspec (G_OBJECT (self), result_pspec);
}

static gboolean
plan_reduce_get_post_messages (PlanReduce * self)
{
  gboolean post;

  GST_OBJECT_LOCK (self);
  post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  return post;
}

/* axis=-1: a message per chunk when post-messages and chunk-messages are
 * on; otherwise the values are kept, and only the last chunk's become the
 * result (and the one message) at EOS: a message per chunk of a large
 * file is millions of values converted and posted for nobody, and
 * they are in the output stream anyway. */
static void
plan_reduce_chunk_done (PlanReduce * self, const guint8 * values,
    gsize n_rows, guint64 first_row)
{
  PlanShardInfo shard;

  /* In a sharded run, the row of the whole stream: each rank's first-row
   * 0 would tell the ranks' values apart from nothing. */
  if (plan_kernel_element_get_shard (PLAN_KERNEL_ELEMENT (self), &shard)
      && !shard.replicated && shard.total > 0)
    first_row = (shard.origin + first_row) % shard.total;
  GST_OBJECT_LOCK (self);
  self->posted = self->post_messages && self->chunk_messages;
  GST_OBJECT_UNLOCK (self);
  if (self->posted) {
    plan_reduce_publish (self, plan_reducer_make_structure (self->reducer,
            GST_OBJECT_NAME (self), values, n_rows, first_row), TRUE);
    return;
  }
  if (self->last_values == NULL)
    self->last_values = g_byte_array_new ();
  g_byte_array_set_size (self->last_values, 0);
  g_byte_array_append (self->last_values, values,
      n_rows * plan_dtype_get_size (plan_kernel_element_get_output_info
          (PLAN_KERNEL_ELEMENT (self))->dtype));
  self->last_rows = n_rows;
  self->last_first_row = first_row;
}

/* Reduces the @n_rows rows at @data, or their map (fused into the
 * reduction, plan_reduce_map_push()). With axis=-1, @out gets one result
 * per row. Fails only where numpy raises for a row (nanargmin of a row of
 * NaNs). */
static gboolean
plan_reduce_push (PlanReduce * self, const guint8 * data, gsize n_rows,
    guint8 * out, GError ** error)
{
  guint n_threads =
      plan_kernel_element_get_n_threads (PLAN_KERNEL_ELEMENT (self));

  plan_reducer_set_n_threads (self->reducer, n_threads);
  if (self->map_fused == NULL)
    return plan_reducer_push (self->reducer, data, n_rows, out, error);
  return plan_reduce_map_push (self->map_fused, self->reducer, data, n_rows,
      out, n_threads, error);
}

/* Lets go of the chunk held, which the reducer is done with; FALSE after
 * posting an error when its file was cut short meanwhile. */
static gboolean
plan_reduce_release_held (PlanReduce * self)
{
  GError *err = NULL;

  if (self->held == NULL)
    return TRUE;
  if (!plan_held_chunk_release (g_steal_pointer (&self->held), &err)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("%s", err->message), (NULL));
    g_error_free (err);
    return FALSE;
  }
  return TRUE;
}

/* A reduction of the whole array or of the columns on the host: the
 * worker threads go on with the chunk's blocks after this returns, while
 * the streaming thread fetches the next chunk, so that they do not wait
 * for it; the chunk stays held until the next push is past it. */
static GstFlowReturn
plan_reduce_push_async (PlanReduce * self, const PlanChunk * chunk)
{
  PlanKernelElement *kernel = PLAN_KERNEL_ELEMENT (self);
  PlanHeldChunk *held = plan_kernel_element_hold_chunk (kernel, chunk);

  plan_reducer_set_n_threads (self->reducer,
      plan_kernel_element_get_n_threads (kernel));
  /* It returns once the chunk before is done with: axis all cannot fail. */
  plan_reducer_push_async (self->reducer, chunk->data[0], chunk->n_rows,
      NULL);
  if (!plan_reduce_release_held (self)) {
    plan_reducer_wait (self->reducer);
    plan_held_chunk_release (held, NULL);
    return GST_FLOW_ERROR;
  }
  self->held = held;
  /* Rows the reducer does not overlap (along axis 0: wide rows, a
   * combiner of the user's) are done with already: upstream gets the chunk back now. */
  if (!plan_reducer_holds_rows (self->reducer)
      && !plan_reduce_release_held (self))
    return GST_FLOW_ERROR;
  return GST_FLOW_OK;
}

/* Sharded: the reducer learns where in the whole stream the rows are; a
 * run of rows that wraps around the stream's end (a stencil's last rank
 * with boundary=wrap) is two runs. */
static void
plan_reduce_push_shard (PlanReduce * self, const PlanChunk * chunk)
{
  const PlanArrayInfo *in =
      plan_kernel_element_get_input_info (PLAN_KERNEL_ELEMENT (self), 0);
  gsize row_size = plan_array_info_get_row_size (in);
  const guint8 *data = chunk->data[0];
  PlanShardInfo shard;
  guint64 total, global;
  gsize n = chunk->n_rows;

  plan_kernel_element_get_shard (PLAN_KERNEL_ELEMENT (self), &shard);
  total = MAX (shard.total, 1);
  global = (shard.origin + chunk->first_row) % total;

  while (n > 0) {
    gsize take = MIN ((guint64) n, total - global);

    if (!self->origin_set || global != self->next_global) {
      GST_DEBUG_OBJECT (self, "rows from global row %" G_GUINT64_FORMAT,
          global);
      plan_reducer_set_origin (self->reducer, global);
      self->origin_set = TRUE;
    }
    plan_reduce_push (self, data, take, NULL, NULL);
    data += take * row_size;
    n -= take;
    /* Not wrapped: rows that go on at row 0 are a new run, also when
     * they come in a chunk of their own. */
    self->next_global = global + take;
    global = self->next_global % total;
  }
}

/* Sharded: a reduction of the whole or of the rows has the same result on
 * every rank; per row, the output rows are the input's. */
static gboolean
plan_reduce_shard (PlanKernelElement * kernel, const PlanShardInfo * input,
    PlanShardInfo * output, GError ** error)
{
  PlanReduce *self = PLAN_REDUCE (kernel);
  PlanReduceAxis axis;

  GST_OBJECT_LOCK (self);
  axis = self->axis;
  GST_OBJECT_UNLOCK (self);
  *output = *input;
  self->sharded = FALSE;
  if (axis == PLAN_REDUCE_AXIS_INNER || axis == PLAN_REDUCE_AXIS_1)
    return TRUE;
  if (input->replicated)
    return TRUE;
  self->sharded = TRUE;
  self->origin_set = FALSE;
  output->origin = 0;
  output->n_rows = -1;
  output->total = 0;
  output->replicated = TRUE;
  return TRUE;
}

static GstFlowReturn
plan_reduce_process (PlanKernelElement * kernel, const PlanChunk * chunk)
{
  PlanReduce *self = PLAN_REDUCE (kernel);
  GstBuffer *out;
  GstMapInfo map;
  GstFlowReturn ret;
  GError *err = NULL;

  if (plan_reducer_get_axis (self->reducer) != PLAN_REDUCE_AXIS_INNER
      && !self->sharded && self->map_fused == NULL)
    return plan_reduce_push_async (self, chunk);
  if (plan_reducer_get_axis (self->reducer) != PLAN_REDUCE_AXIS_INNER) {
    if (self->sharded)
      plan_reduce_push_shard (self, chunk);
    else
      plan_reduce_push (self, chunk->data[0], chunk->n_rows, NULL, NULL);
    return GST_FLOW_OK;
  }

  ret = plan_kernel_element_alloc_output (kernel, chunk->n_rows, &out);
  if (ret != GST_FLOW_OK)
    return ret;
  if (!gst_buffer_map (out, &map, GST_MAP_WRITE))
    goto map_failed;
  if (!plan_reduce_push (self, chunk->data[0], chunk->n_rows, map.data,
          &err))
    goto push_failed;
  plan_reduce_chunk_done (self, map.data, chunk->n_rows, chunk->first_row);
  gst_buffer_unmap (out, &map);
  return plan_kernel_element_push_output (kernel, out);

  /* ERRORS */
map_failed:
  {
    gst_buffer_unref (out);
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Could not map an output buffer for writing."), (NULL));
    return GST_FLOW_ERROR;
  }
push_failed:
  {
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", err->message),
        ("rows %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT,
            chunk->first_row, chunk->first_row + chunk->n_rows - 1));
    g_error_free (err);
    return GST_FLOW_ERROR;
  }
}

/* On a device (target=cuda, or device memory in): the reduction runs in
 * stream order on the device (PlanDeviceReducer), the map before it as its
 * generated kernel (plan_reduce_map_launch()); only the result comes back,
 * at the end (axis all and 0) or per chunk (axis -1, whose values are
 * pushed from here). */
static gboolean
plan_reduce_launch (PlanKernelElement * kernel, const PlanChunk * chunk,
    gpointer output, PlanStream * stream, GError ** error)
{
  PlanReduce *self = PLAN_REDUCE (kernel);
  gconstpointer data = chunk->data[0];
  GstBuffer *out = NULL;
  GstMapInfo map;
  GstFlowReturn ret;
  gboolean ok;

  if (self->sharded) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "a reduction sharded across ranks runs on the host");
    return FALSE;
  }

  /* A new stream (the element started again, its state reset): a new
   * device reduction on it, so that it stays in order with the inputs. */
  if (self->device_reducer && self->device_stream != stream)
    plan_reduce_clear_device (self);
  if (self->device_reducer == NULL) {
    self->device_reducer = plan_device_reducer_new (self->reducer, stream,
        error);
    if (self->device_reducer == NULL)
      return FALSE;
    self->device_stream = plan_stream_ref (stream);
    GST_INFO_OBJECT (self, "reducing on %s",
        plan_device_get_name (plan_stream_get_device (stream)));
  }
  if (self->map_fused) {
    data = plan_reduce_map_launch (self->map_fused, stream, data,
        chunk->n_rows, plan_kernel_element_get_n_threads (kernel), error);
    if (data == NULL)
      goto failed;
  }

  if (plan_reducer_get_axis (self->reducer) != PLAN_REDUCE_AXIS_INNER)
    return plan_device_reducer_push (self->device_reducer, data,
        chunk->n_rows, NULL, error);

  ret = plan_kernel_element_alloc_output (kernel, chunk->n_rows, &out);
  if (ret != GST_FLOW_OK) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "no output buffer: %s",
        gst_flow_get_name (ret));
    return FALSE;
  }
  if (!gst_buffer_map (out, &map, GST_MAP_WRITE)) {
    gst_buffer_unref (out);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "could not map an output buffer for writing");
    return FALSE;
  }
  ok = plan_device_reducer_push (self->device_reducer, data, chunk->n_rows,
      map.data, error);
  if (ok)
    plan_reduce_chunk_done (self, map.data, chunk->n_rows, chunk->first_row);
  gst_buffer_unmap (out, &map);
  if (!ok) {
    gst_buffer_unref (out);
    return FALSE;
  }
  plan_kernel_element_push_output (kernel, out);
  return TRUE;

failed:
  /* Not on this device after all (no NVRTC for the map, say): the host
   * reduces every chunk, from the first. */
  if (g_error_matches (*error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED))
    plan_reduce_clear_device (self);
  return FALSE;
}

/* axis=-1 without a message per chunk: the last chunk becomes the result,
 * and one message says that the @n_rows rows are reduced, without their
 * values (they are in the output stream). */
static GstFlowReturn
plan_reduce_finish_rows (PlanReduce * self, guint64 n_rows)
{
  const PlanArrayInfo *info;
  GValue shape = G_VALUE_INIT, rows = G_VALUE_INIT;
  GstStructure *s;

  if (self->posted)
    return GST_FLOW_OK;
  if (self->last_values != NULL && self->last_rows > 0)
    plan_reduce_publish (self, plan_reducer_make_structure (self->reducer,
            GST_OBJECT_NAME (self), self->last_values->data,
            self->last_rows, self->last_first_row), FALSE);
  if (!plan_reduce_get_post_messages (self))
    return GST_FLOW_OK;

  info = plan_kernel_element_get_output_info (PLAN_KERNEL_ELEMENT (self));
  s = gst_structure_new (PLAN_REDUCER_MESSAGE_NAME,
      "element", G_TYPE_STRING, GST_OBJECT_NAME (self),
      "op", G_TYPE_STRING, plan_reducer_get_name (self->reducer),
      "dtype", G_TYPE_STRING, plan_dtype_to_string (info->dtype),
      "rows", G_TYPE_UINT64, n_rows, NULL);
  gst_value_array_init (&shape, 1);
  g_value_init (&rows, G_TYPE_INT64);
  g_value_set_int64 (&rows, (gint64) n_rows);
  gst_value_array_append_and_take_value (&shape, &rows);
  gst_structure_take_value (s, "shape", &shape);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
  return GST_FLOW_OK;
}

static GstFlowReturn
plan_reduce_finish (PlanKernelElement * kernel, guint64 n_rows)
{
  PlanReduce *self = PLAN_REDUCE (kernel);
  const PlanArrayInfo *info = plan_kernel_element_get_output_info (kernel);
  GError *err = NULL;
  GstStructure *s;
  GstBuffer *out;
  GstMapInfo map;
  GstFlowReturn ret;

  if (plan_reducer_get_axis (self->reducer) == PLAN_REDUCE_AXIS_INNER)
    return plan_reduce_finish_rows (self, n_rows);

  /* The last chunk's blocks first: its file may have been cut short while
   * they were read. */
  if (self->held) {
    plan_reducer_wait (self->reducer);
    if (!plan_reduce_release_held (self))
      return GST_FLOW_ERROR;
  }
  ret = plan_kernel_element_alloc_output (kernel,
      plan_array_info_get_n_rows (info), &out);
  if (ret != GST_FLOW_OK)
    return ret;
  if (!gst_buffer_map (out, &map, GST_MAP_WRITE))
    goto map_failed;
  if (self->sharded) {
    if (!plan_shard_combine_reducer (self->reducer, GST_OBJECT_NAME (self),
            map.data, map.size, &err))
      goto empty;
  } else if (self->device_reducer ?
      !plan_device_reducer_finish (self->device_reducer, map.data, &err) :
      !plan_reducer_finish (self->reducer, map.data, &err))
    goto empty;
  s = plan_reducer_make_structure (self->reducer, GST_OBJECT_NAME (self),
      map.data, 0, 0);
  if (self->sharded) {
    PlanShardInfo shard;

    plan_kernel_element_get_shard (kernel, &shard);
    gst_structure_set (s, "rows", G_TYPE_UINT64, shard.total,
        "ranks", G_TYPE_UINT, shard.n_ranks, NULL);
  }
  plan_reduce_publish (self, s, plan_reduce_get_post_messages (self));
  gst_buffer_unmap (out, &map);
  return plan_kernel_element_push_output (kernel, out);

  /* ERRORS */
map_failed:
  {
    gst_buffer_unref (out);
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Could not map an output buffer for writing."), (NULL));
    return GST_FLOW_ERROR;
  }
empty:
  {
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", err->message),
        ("%" G_GUINT64_FORMAT " rows", n_rows));
    g_error_free (err);
    return GST_FLOW_ERROR;
  }
}

/* A reduction of the whole or of the rows (axis all or 0) is one output
 * row whatever rows it reduces; per row (axis -1) the output rows are the
 * input rows. */
static void
plan_reduce_output_range (PlanKernelElement * kernel, guint64 first,
    gint64 end, guint64 * out_first, gint64 * out_end)
{
  PlanReduce *self = PLAN_REDUCE (kernel);

  if (self->reducer != NULL
      && plan_reducer_get_axis (self->reducer) == PLAN_REDUCE_AXIS_INNER) {
    *out_first = first;
    *out_end = end;
  } else {
    *out_first = 0;
    *out_end = -1;
  }
}

static void
plan_reduce_reset (PlanKernelElement * kernel)
{
  PlanReduce *self = PLAN_REDUCE (kernel);
  GError *err = NULL;

  if (self->reducer)
    plan_reducer_reset (self->reducer);
  /* Reset waited for the chunk in flight; a flush or a stop drops it, the
   * file's changes included. */
  if (self->held)
    plan_held_chunk_release (g_steal_pointer (&self->held), NULL);
  if (self->device_reducer
      && !plan_device_reducer_reset (self->device_reducer, &err)) {
    GST_WARNING_OBJECT (self, "the device reduction could not be reset: "
        "%s; reducing on the host", err->message);
    g_clear_error (&err);
    plan_reduce_clear_device (self);
  }
  if (self->last_values)
    g_byte_array_set_size (self->last_values, 0);
  self->last_rows = 0;
  self->posted = FALSE;
  self->origin_set = FALSE;
}

static void
plan_reduce_finalize (GObject * object)
{
  PlanReduce *self = PLAN_REDUCE (object);

  plan_reduce_clear_state (self);
  g_free (self->expr);
  g_free (self->identity);
  g_free (self->map);
  g_clear_error (&self->rejected_expr);
  g_clear_error (&self->rejected_identity);
  g_clear_error (&self->rejected_map);
  if (self->result)
    gst_structure_free (self->result);

  G_OBJECT_CLASS (plan_reduce_parent_class)->finalize (object);
}

static void
plan_reduce_class_init (PlanReduceClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);
  PlanKernelElementClass *kernel_class = PLAN_KERNEL_ELEMENT_CLASS (klass);

  gobject_class->set_property = plan_reduce_set_property;
  gobject_class->get_property = plan_reduce_get_property;
  gobject_class->finalize = plan_reduce_finalize;

  agg_class->start = GST_DEBUG_FUNCPTR (plan_reduce_start);

  kernel_class->setup = GST_DEBUG_FUNCPTR (plan_reduce_setup);
  kernel_class->process = GST_DEBUG_FUNCPTR (plan_reduce_process);
  kernel_class->finish = GST_DEBUG_FUNCPTR (plan_reduce_finish);
  kernel_class->reset = GST_DEBUG_FUNCPTR (plan_reduce_reset);
  kernel_class->output_range = GST_DEBUG_FUNCPTR (plan_reduce_output_range);
  kernel_class->shard = GST_DEBUG_FUNCPTR (plan_reduce_shard);
  kernel_class->launch = GST_DEBUG_FUNCPTR (plan_reduce_launch);
  kernel_class->launch_consumes = TRUE;
  /* It holds nothing of a chunk once reduced: 16 MiB mapped chunks cut
   * the hand-offs between threads by eight from planfilesrc's 2 MiB, and
   * a run on a cached file stays within about 46 MiB resident (the pages
   * of chunks read ahead are mapped only when touched; docs/performance.md). */
  kernel_class->input_chunk_bytes = 16 << 20;

  g_object_class_install_property (gobject_class, PROP_OP,
      g_param_spec_enum ("op", "Operation",
          "The reduction, numpy's: sum, prod, min, max, mean, argmin, "
          "argmax, any, all, nansum, nanprod, nanmin, nanmax, nanmean, "
          "nanargmin, nanargmax, var, std, nanvar, nanstd, count_nonzero or "
          "ptp; ignored when expr is set", PLAN_TYPE_REDUCE_OP,
          DEFAULT_OP, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_EXPR,
      g_param_spec_string ("expr", "Combiner",
          "A custom reduction: an associative expression combining two "
          "partial results x and y, such as \"x + y\" or \"max(x, y)\"; "
          "needs identity, and takes precedence over op. See "
          "docs/expressions.md", DEFAULT_EXPR,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_IDENTITY,
      g_param_spec_string ("identity", "Identity",
          "The value of a custom reduction of nothing, such that "
          "expr(v, identity) = v: a number (\"0\", \"1.5\", \"-inf\") or "
          "true/false, parsed in the combiner's dtype; required with expr, "
          "an error without it",
          DEFAULT_IDENTITY, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_AXIS,
      g_param_spec_enum ("axis", "Axis",
          "What to reduce: all (one value), 0 (the rows: one value per "
          "column) or -1 (each row: one value per row, as a stream)",
          PLAN_TYPE_REDUCE_AXIS, DEFAULT_AXIS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post a plan-reduce element message with the result (for axis=-1 "
          "one at the end giving the rows reduced, the values being in the "
          "output stream, or one per chunk with chunk-messages)",
          DEFAULT_POST_MESSAGES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * PlanReduce:chunk-messages:
   *
   * With axis=-1 (and post-messages), post a plan-reduce message for every
   * chunk, with its values. Off by default: the values are in the output
   * stream, and a message per chunk of a large file costs more than the
   * reduction (each value is converted into the message).
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_CHUNK_MESSAGES,
      g_param_spec_boolean ("chunk-messages", "Chunk messages",
          "With axis=-1 and post-messages, post a plan-reduce message for "
          "every chunk, with its values (off: one message at the end, "
          "without the values, which are in the output stream)",
          DEFAULT_CHUNK_MESSAGES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  result_pspec = g_param_spec_boxed ("result", "Result",
      "The last result, as the plan-reduce message's structure (element, "
      "op, dtype, shape, value or values, rows or first-row); NULL before "
      "the first", GST_TYPE_STRUCTURE,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_property (gobject_class, PROP_RESULT, result_pspec);
  g_object_class_install_property (gobject_class, PROP_MAP,
      g_param_spec_string ("map", "Map",
          "Elementwise expression in x (or in0) applied to every input "
          "element before reducing, as planmap's expr on one input, such as "
          "\"x*x + 1\"; checked for syntax when set (empty: reduce the "
          "input itself). See docs/expressions.md", DEFAULT_MAP,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DDOF,
      plan_param_spec_checked_range (g_param_spec_double ("ddof",
          "Delta degrees of freedom",
          "numpy's ddof of var, std, nanvar and nanstd: they divide by "
          "n - ddof (0: the population variance, 1: the sample variance); "
          "other ops ignore it", 0.0, 1e18, DEFAULT_DDOF,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (gobject_class, PROP_MAP_DTYPE,
      g_param_spec_enum ("map-dtype", "Map dtype",
          "Cast the map's result to this numpy dtype (bool, int8 ... uint64, "
          "float16, float32, float64, complex64, complex128) before reducing, "
          "as planmap's dtype; unknown (the default) keeps the map's own "
          "dtype", PLAN_TYPE_DTYPE,
          DEFAULT_MAP_DTYPE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  plan_kernel_element_class_add_pad_templates (kernel_class, FALSE);
  gst_element_class_set_static_metadata (element_class, "Array reduction",
      "Filter/Analyzer/Array",
      "Reduces an array stream, or an elementwise map of it, to one value, "
      "one per column or one per row: numpy's sum, prod, min, max, mean, "
      "argmin, argmax, any, all, their nan versions, var, std, "
      "count_nonzero, ptp, or a custom combiner",
      PLAN_CONTACT);
  gst_element_class_add_static_metadata (element_class,
      GST_ELEMENT_METADATA_DOC_URI, PLAN_DOC_URI "/planreduce.md");

  gst_type_mark_as_plugin_api (PLAN_TYPE_REDUCE_OP, 0);
  gst_type_mark_as_plugin_api (PLAN_TYPE_REDUCE_AXIS, 0);
}

static void
plan_reduce_init (PlanReduce * self)
{
  self->op = DEFAULT_OP;
  self->expr = DEFAULT_EXPR;
  self->identity = DEFAULT_IDENTITY;
  self->axis = DEFAULT_AXIS;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->chunk_messages = DEFAULT_CHUNK_MESSAGES;
  self->map = DEFAULT_MAP;
  self->map_dtype = DEFAULT_MAP_DTYPE;
  self->ddof = DEFAULT_DDOF;
}
