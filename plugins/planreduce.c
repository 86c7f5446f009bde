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
 * At the end of the stream (for `axis=-1`, for each chunk) the element
 * pushes the result as a buffer (a 0-d array for one value), posts an
 * element message named `plan-reduce` with the element's name, the op, the
 * dtype, the shape and the value(s), and keeps it in #PlanReduce:result.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -m planfilesrc location=a.npy ! planreduce op=sum ! \
 *     planfilesink location=total.npy
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planreduce.h"
#include <libplan/planexpr.h>

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (plan_reduce_debug);
#define GST_CAT_DEFAULT plan_reduce_debug

#define DEFAULT_OP PLAN_REDUCE_OP_SUM
#define DEFAULT_EXPR NULL
#define DEFAULT_IDENTITY NULL
#define DEFAULT_AXIS PLAN_REDUCE_AXIS_ALL
#define DEFAULT_POST_MESSAGES TRUE

enum
{
  PROP_0,
  PROP_OP,
  PROP_EXPR,
  PROP_IDENTITY,
  PROP_AXIS,
  PROP_POST_MESSAGES,
  PROP_RESULT,
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
  GError *rejected_expr;        /* why the last expr set was refused */
  GError *rejected_identity;    /* why the last identity set was refused */
  GstStructure *result;

  /* streaming thread only */
  PlanReducer *reducer;
  gboolean posted;              /* post-messages was on for the last chunk */
  GByteArray *last_values;      /* axis=-1: results of the last chunk */
  gsize last_rows;
  guint64 last_first_row;
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

static void
set_rejected (PlanReduce * self, GError ** slot, GError * err)
{
  GST_WARNING_OBJECT (self, "rejected: %s", err->message);
  GST_OBJECT_LOCK (self);
  g_clear_error (slot);
  *slot = err;
  GST_OBJECT_UNLOCK (self);
}

static void
plan_reduce_set_string (PlanReduce * self, guint prop_id, const gchar * s)
{
  GError *err = NULL;

  if (s != NULL && *s == '\0')
    s = NULL;
  /* A bad value is reported now and posted as the element error when the
   * pipeline starts; the previous value is kept. */
  if (prop_id == PROP_EXPR && s != NULL && !plan_expr_check (s, &err)) {
    set_rejected (self, &self->rejected_expr, err);
    return;
  }
  if (prop_id == PROP_IDENTITY && s != NULL && !identity_is_number (s)) {
    set_rejected (self, &self->rejected_identity, g_error_new (PLAN_ERROR,
            PLAN_ERROR_INVALID_ARGUMENT, "the identity '%s' is not a number "
            "(nor true or false)", s));
    return;
  }

  GST_OBJECT_LOCK (self);
  if (prop_id == PROP_EXPR) {
    g_clear_error (&self->rejected_expr);
    g_free (self->expr);
    self->expr = g_strdup (s);
  } else {
    g_clear_error (&self->rejected_identity);
    g_free (self->identity);
    self->identity = g_strdup (s);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
plan_reduce_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  PlanReduce *self = PLAN_REDUCE (object);

  switch (prop_id) {
    case PROP_EXPR:
    case PROP_IDENTITY:
      plan_reduce_set_string (self, prop_id, g_value_get_string (value));
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
    case PROP_POST_MESSAGES:
      GST_OBJECT_LOCK (self);
      self->post_messages = g_value_get_boolean (value);
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
    case PROP_RESULT:
      g_value_set_boxed (value, self->result);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Refuses to start with settings that cannot work whatever the input: a
 * rejected expr or identity, or a combiner without identity. */
static gboolean
plan_reduce_start (GstAggregator * agg)
{
  PlanReduce *self = PLAN_REDUCE (agg);
  GError *rejected = NULL;
  gboolean no_identity;
  gchar *expr;

  GST_OBJECT_LOCK (self);
  if (self->rejected_expr)
    rejected = g_error_copy (self->rejected_expr);
  else if (self->rejected_identity)
    rejected = g_error_copy (self->rejected_identity);
  expr = g_strdup (self->expr);
  no_identity = self->expr != NULL && self->identity == NULL;
  GST_OBJECT_UNLOCK (self);

  if (rejected)
    goto rejected;
  if (no_identity)
    goto no_identity;
  g_free (expr);

  return GST_AGGREGATOR_CLASS (plan_reduce_parent_class)->start (agg);

  /* ERRORS */
rejected:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("%s", rejected->message),
        ("expr or identity refused when set"));
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
}

static void
plan_reduce_clear_state (PlanReduce * self)
{
  g_clear_pointer (&self->reducer, plan_reducer_unref);
  g_clear_pointer (&self->last_values, g_byte_array_unref);
  self->last_rows = 0;
}

static gboolean
plan_reduce_setup (PlanKernelElement * kernel, guint n_inputs,
    const PlanArrayInfo * inputs, PlanArrayInfo * output, GError ** error)
{
  PlanReduce *self = PLAN_REDUCE (kernel);
  PlanReduceOp op;
  PlanReduceAxis axis;
  gchar *expr, *identity;

  if (plan_kernel_element_get_target (kernel) == PLAN_TARGET_CUDA)
    goto no_cuda;

  GST_OBJECT_LOCK (self);
  op = self->op;
  axis = self->axis;
  expr = g_strdup (self->expr);
  identity = g_strdup (self->identity);
  GST_OBJECT_UNLOCK (self);

  plan_reduce_clear_state (self);
  if (expr != NULL)
    self->reducer = plan_reducer_new_custom (expr, identity, axis, &inputs[0],
        error);
  else
    self->reducer = plan_reducer_new (op, axis, &inputs[0], error);
  g_free (expr);
  g_free (identity);
  if (self->reducer == NULL) {
    g_prefix_error (error, "planreduce %s: ", GST_OBJECT_NAME (self));
    return FALSE;
  }
  plan_reducer_get_output_info (self->reducer, output);
  GST_DEBUG_OBJECT (self, "reducing with %s",
      plan_reducer_get_name (self->reducer));
  return TRUE;

  /* ERRORS */
no_cuda:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "planreduce %s reduces on the CPU only: set target=cpu or "
        "target=auto", GST_OBJECT_NAME (self));
    return FALSE;
  }
}

/* Keeps @s as the result property, posts it when asked, and notifies. */
static void
plan_reduce_publish (PlanReduce * self, GstStructure * s, gboolean post)
{
  if (post)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), gst_structure_copy (s)));
  GST_OBJECT_LOCK (self);
  if (self->result)
    gst_structure_free (self->result);
  self->result = s;
  GST_OBJECT_UNLOCK (self);
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

/* axis=-1: a message per chunk when post-messages is on; otherwise the
 * values are kept, and only the last chunk's become the result at EOS. */
static void
plan_reduce_chunk_done (PlanReduce * self, const guint8 * values,
    gsize n_rows, guint64 first_row)
{
  self->posted = plan_reduce_get_post_messages (self);
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

static GstFlowReturn
plan_reduce_process (PlanKernelElement * kernel, const PlanChunk * chunk)
{
  PlanReduce *self = PLAN_REDUCE (kernel);
  GstBuffer *out;
  GstMapInfo map;
  GstFlowReturn ret;

  plan_reducer_set_n_threads (self->reducer,
      plan_kernel_element_get_n_threads (kernel));
  if (plan_reducer_get_axis (self->reducer) != PLAN_REDUCE_AXIS_INNER) {
    plan_reducer_push (self->reducer, chunk->data[0], chunk->n_rows, NULL,
        NULL);
    return GST_FLOW_OK;
  }

  ret = plan_kernel_element_alloc_output (kernel, chunk->n_rows, &out);
  if (ret != GST_FLOW_OK)
    return ret;
  if (!gst_buffer_map (out, &map, GST_MAP_WRITE))
    goto map_failed;
  plan_reducer_push (self->reducer, chunk->data[0], chunk->n_rows, map.data,
      NULL);
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
}

/* axis=-1 with post-messages off: the last chunk becomes the result. */
static GstFlowReturn
plan_reduce_finish_rows (PlanReduce * self)
{
  if (!self->posted && self->last_values != NULL)
    plan_reduce_publish (self, plan_reducer_make_structure (self->reducer,
            GST_OBJECT_NAME (self), self->last_values->data,
            self->last_rows, self->last_first_row), FALSE);
  return GST_FLOW_OK;
}

static GstFlowReturn
plan_reduce_finish (PlanKernelElement * kernel, guint64 n_rows)
{
  PlanReduce *self = PLAN_REDUCE (kernel);
  const PlanArrayInfo *info = plan_kernel_element_get_output_info (kernel);
  GError *err = NULL;
  GstBuffer *out;
  GstMapInfo map;
  GstFlowReturn ret;

  if (plan_reducer_get_axis (self->reducer) == PLAN_REDUCE_AXIS_INNER)
    return plan_reduce_finish_rows (self);

  ret = plan_kernel_element_alloc_output (kernel,
      plan_array_info_get_n_rows (info), &out);
  if (ret != GST_FLOW_OK)
    return ret;
  if (!gst_buffer_map (out, &map, GST_MAP_WRITE))
    goto map_failed;
  if (!plan_reducer_finish (self->reducer, map.data, &err))
    goto empty;
  plan_reduce_publish (self, plan_reducer_make_structure (self->reducer,
          GST_OBJECT_NAME (self), map.data, 0, 0),
      plan_reduce_get_post_messages (self));
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

static void
plan_reduce_reset (PlanKernelElement * kernel)
{
  PlanReduce *self = PLAN_REDUCE (kernel);

  if (self->reducer)
    plan_reducer_reset (self->reducer);
  if (self->last_values)
    g_byte_array_set_size (self->last_values, 0);
  self->last_rows = 0;
  self->posted = FALSE;
}

static void
plan_reduce_finalize (GObject * object)
{
  PlanReduce *self = PLAN_REDUCE (object);

  plan_reduce_clear_state (self);
  g_free (self->expr);
  g_free (self->identity);
  g_clear_error (&self->rejected_expr);
  g_clear_error (&self->rejected_identity);
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

  g_object_class_install_property (gobject_class, PROP_OP,
      g_param_spec_enum ("op", "Operation",
          "The reduction: sum, prod, min, max, mean, argmin, argmax, any or "
          "all (numpy's); ignored when expr is set", PLAN_TYPE_REDUCE_OP,
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
          "true/false, parsed in the combiner's dtype; required with expr",
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
          "Post a plan-reduce element message with each result (each "
          "chunk for axis=-1)", DEFAULT_POST_MESSAGES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  result_pspec = g_param_spec_boxed ("result", "Result",
      "The last result, as the plan-reduce message's structure (element, "
      "op, dtype, shape, value or values, rows or first-row); NULL before "
      "the first", GST_TYPE_STRUCTURE,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_property (gobject_class, PROP_RESULT, result_pspec);

  plan_kernel_element_class_add_pad_templates (kernel_class, FALSE);
  gst_element_class_set_static_metadata (element_class, "Array reduction",
      "Filter/Analyzer/Array",
      "Reduces an array stream to one value, one per column or one per "
      "row: sum, prod, min, max, mean, argmin, argmax, any, all or a "
      "custom combiner", "gst-plan authors <dev@gst-plan.invalid>");

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
}
