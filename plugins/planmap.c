/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-planmap
 * @title: planmap
 * @short_description: computes an expression element by element over
 *   any number of arrays
 *
 * planmap evaluates an expression (see docs/expressions.md) on each element
 * of its inputs and streams the result: `out = f(a, b, ...)`. Each input is
 * a request pad `sink_%u`; in the expression the inputs are named `x`, `y`,
 * `z`, `w` in pad order (the first four), or as each pad's
 * #PlanKernelPad:variable says, and always `in0`, `in1`, …. All
 * inputs must have the same shape; their dtypes may differ and are promoted
 * as numpy promotes them. The output has the inputs' shape and the
 * expression's dtype, or the one set by #PlanMap:dtype. Whatever the
 * expression, the data is read once and written once: it is evaluated in
 * cache-sized blocks on the element's worker threads.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 planmap name=m expr="2*x*y + sin(x)" ! \
 *     planfilesink location=out.npy \
 *     planfilesrc location=a.npy ! m.sink_0 \
 *     planfilesrc location=b.npy ! m.sink_1
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planmap.h"

GST_DEBUG_CATEGORY_STATIC (plan_map_debug);
#define GST_CAT_DEFAULT plan_map_debug

#define DEFAULT_EXPR NULL
#define DEFAULT_DTYPE NULL

enum
{
  PROP_0,
  PROP_EXPR,
  PROP_DTYPE,
};

/* Inputs beyond the fourth are reachable only as in<N>. */
static const gchar *const short_names[] = { "x", "y", "z", "w" };

struct _PlanMap
{
  PlanKernelElement parent;

  /* protected by OBJECT_LOCK */
  gchar *expr;
  gchar *dtype;
  GError *rejected;             /* why expr cannot work, or NULL */
  GError *dtype_rejected;       /* why dtype cannot work, or NULL */

  /* streaming thread only */
  PlanExpr *compiled;
  guint n_names;
  guint *slots;                 /* [n_names - n_inputs]: the input of each
                                 * name before in0, in1, ... */
  gconstpointer *inputs;        /* [n_names]: data of each bound name */
  gsize row_elements;
};

G_DEFINE_TYPE (PlanMap, plan_map, PLAN_TYPE_KERNEL_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (planmap, "planmap", GST_RANK_NONE,
    PLAN_TYPE_MAP, GST_DEBUG_CATEGORY_INIT (plan_map_debug, "planmap", 0,
        "Elementwise array expressions"));

/* A value that cannot work is kept as given (reading it back returns it,
 * so that an editor keeps what the user typed) and remembered in @slot:
 * plan_map_check_settings() posts it when the pipeline starts. */
static void
plan_map_set_checked (PlanMap * self, gchar ** field, GError ** slot,
    const gchar * name, const gchar * s, GError * err)
{
  if (err != NULL) {
    GST_WARNING_OBJECT (self, "%s \"%s\" cannot work: %s", name, s,
        err->message);
    /* An expression's message shows it, with a caret. */
    if (field == &self->expr)
      g_prefix_error (&err, "planmap %s, expr: ", GST_OBJECT_NAME (self));
    else
      g_prefix_error (&err, "planmap %s, %s \"%s\": ",
          GST_OBJECT_NAME (self), name, s);
  }
  GST_OBJECT_LOCK (self);
  g_clear_error (slot);
  *slot = err;
  g_free (*field);
  *field = g_strdup (s);
  GST_OBJECT_UNLOCK (self);
}

static void
plan_map_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  PlanMap *self = PLAN_MAP (object);
  const gchar *s = g_value_get_string (value);
  GError *err = NULL;

  if (plan_kernel_element_refuse_live_set (PLAN_KERNEL_ELEMENT (self), pspec))
    return;
  switch (prop_id) {
    case PROP_EXPR:
      if (s != NULL)
        plan_expr_check (s, &err);
      plan_map_set_checked (self, &self->expr, &self->rejected, "expr", s,
          err);
      break;
    case PROP_DTYPE:
      if (s != NULL && *s == '\0')
        s = NULL;
      if (s != NULL)
        plan_dtype_parse (s, &err);
      plan_map_set_checked (self, &self->dtype, &self->dtype_rejected,
          "dtype", s, err);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* An expression or a dtype that cannot work is an error at start, before
 * any data (a missing expression is one when the inputs' caps arrive: an
 * application may set it once the element has started). */
static gboolean
plan_map_check_settings (PlanKernelElement * kernel, GError ** error)
{
  PlanMap *self = PLAN_MAP (kernel);
  gboolean ok = FALSE;

  GST_OBJECT_LOCK (self);
  if (self->rejected)
    g_propagate_error (error, g_error_copy (self->rejected));
  else if (self->dtype_rejected)
    g_propagate_error (error, g_error_copy (self->dtype_rejected));
  else
    ok = TRUE;
  GST_OBJECT_UNLOCK (self);
  return ok;
}

static void
plan_map_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  PlanMap *self = PLAN_MAP (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_EXPR:
      g_value_set_string (value, self->expr);
      break;
    case PROP_DTYPE:
      g_value_set_string (value, self->dtype);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
plan_map_clear_compiled (PlanMap * self)
{
  g_clear_pointer (&self->compiled, plan_expr_unref);
  g_clear_pointer (&self->inputs, g_free);
  g_clear_pointer (&self->slots, g_free);
  self->n_names = 0;
}

/* The name of input @i before in<i>: its pad's variable property, or x, y,
 * z, w for the first four; NULL for none. */
static const gchar *
short_name (PlanMap * self, guint i)
{
  const gchar *var =
      plan_kernel_element_get_input_variable (PLAN_KERNEL_ELEMENT (self), i);

  if (var)
    return var;
  return i < G_N_ELEMENTS (short_names) ? short_names[i] : NULL;
}

/* Binds each input's variable (or x, y, z, w) and in0, in1, ... to the
 * inputs and compiles the expression, cast to the dtype property when one
 * is set. */
static gboolean
plan_map_compile (PlanMap * self, guint n_inputs,
    const PlanArrayInfo * inputs, GError ** error)
{
  guint n_short = 0, n_names, i, j;
  const gchar **names = g_newa (const gchar *, 2 * n_inputs);
  gchar **long_names = g_new0 (gchar *, n_inputs + 1);
  PlanDType *dtypes = g_newa (PlanDType, 2 * n_inputs);
  guint *slots = g_new0 (guint, n_inputs + 1);
  gchar *expr, *dtype;
  GError *rejected = NULL;

  GST_OBJECT_LOCK (self);
  expr = g_strdup (self->expr);
  dtype = g_strdup (self->dtype);
  if (self->rejected || self->dtype_rejected)
    rejected = g_error_copy (self->rejected ? self->rejected :
        self->dtype_rejected);
  GST_OBJECT_UNLOCK (self);

  for (i = 0; i < n_inputs; i++) {
    const gchar *name = short_name (self, i);

    if (name == NULL)
      continue;
    for (j = 0; j < n_short && rejected == NULL; j++) {
      if (g_strcmp0 (names[j], name) == 0)
        rejected = g_error_new (PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
            "planmap %s: %s and %s are both named '%s' (a pad's variable "
            "property, or x, y, z, w by pad number): give each input its "
            "own variable", GST_OBJECT_NAME (self),
            plan_kernel_element_get_input_name (PLAN_KERNEL_ELEMENT (self),
                slots[j]), plan_kernel_element_get_input_name
            (PLAN_KERNEL_ELEMENT (self), i), name);
    }
    slots[n_short] = i;
    names[n_short] = name;
    dtypes[n_short++] = inputs[i].dtype;
  }
  n_names = n_short + n_inputs;
  for (i = 0; i < n_inputs; i++) {
    long_names[i] = g_strdup_printf ("in%u", i);
    names[n_short + i] = long_names[i];
    dtypes[n_short + i] = inputs[i].dtype;
  }

  if (rejected) {
    g_propagate_error (error, rejected);
  } else if (expr == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "planmap %s has no expression: set expr, for example expr=\"x + y\"",
        GST_OBJECT_NAME (self));
  } else {
    self->compiled = plan_expr_compile_with_dtype (expr, n_names, names,
        dtypes, plan_dtype_from_string (dtype), error);
  }

  if (self->compiled) {
    self->n_names = n_names;
    self->inputs = g_new0 (gconstpointer, n_names);
    self->slots = slots;
  } else {
    g_free (slots);
  }
  g_strfreev (long_names);
  g_free (expr);
  g_free (dtype);
  return self->compiled != NULL;
}

static gboolean
plan_map_setup (PlanKernelElement * kernel, guint n_inputs,
    const PlanArrayInfo * inputs, PlanArrayInfo * output, GError ** error)
{
  PlanMap *self = PLAN_MAP (kernel);
  guint i;

  for (i = 1; i < n_inputs; i++) {
    if (!plan_array_info_same_rows (&inputs[0], &inputs[i]))
      goto shape_mismatch;
  }

  plan_map_clear_compiled (self);
  if (!plan_map_compile (self, n_inputs, inputs, error))
    return FALSE;

  *output = inputs[0];
  output->dtype = plan_expr_get_dtype (self->compiled);
  for (i = 1; i < n_inputs; i++) {
    if (inputs[i].shape[0] != inputs[0].shape[0])
      output->shape[0] = -1;
  }
  self->row_elements = plan_array_info_get_row_elements (output);
  GST_INFO_OBJECT (self, "expression compiled for %u inputs: %s result, "
      "%u names bound, evaluated in one pass over each slice",
      n_inputs, plan_dtype_to_string (output->dtype), self->n_names);
  return TRUE;

shape_mismatch:
  {
    gchar *a = plan_shape_to_string (inputs[0].ndim, inputs[0].shape);
    gchar *b = plan_shape_to_string (inputs[i].ndim, inputs[i].shape);

    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "planmap %s: inputs must have the same shape, but %s has shape %s "
        "and %s has shape %s", GST_OBJECT_NAME (self),
        plan_kernel_element_get_input_name (kernel, 0), a,
        plan_kernel_element_get_input_name (kernel, i), b);
    g_free (a);
    g_free (b);
    return FALSE;
  }
}

static GstFlowReturn
plan_map_process (PlanKernelElement * kernel, const PlanChunk * chunk)
{
  PlanMap *self = PLAN_MAP (kernel);
  guint n_short = self->n_names - chunk->n_inputs, i;
  GstBuffer *out;
  GstMapInfo map;
  GstFlowReturn ret;

  ret = plan_kernel_element_alloc_output (kernel, chunk->n_rows, &out);
  if (ret != GST_FLOW_OK)
    return ret;
  if (!gst_buffer_map (out, &map, GST_MAP_WRITE))
    goto map_failed;

  for (i = 0; i < n_short; i++)
    self->inputs[i] = chunk->data[self->slots[i]];
  for (i = 0; i < chunk->n_inputs; i++)
    self->inputs[n_short + i] = chunk->data[i];
  plan_expr_eval_parallel (self->compiled, self->inputs, map.data,
      chunk->n_rows * self->row_elements,
      plan_kernel_element_get_n_threads (kernel));

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

static void
plan_map_finalize (GObject * object)
{
  PlanMap *self = PLAN_MAP (object);

  plan_map_clear_compiled (self);
  g_free (self->expr);
  g_free (self->dtype);
  g_clear_error (&self->rejected);
  g_clear_error (&self->dtype_rejected);

  G_OBJECT_CLASS (plan_map_parent_class)->finalize (object);
}

/* On the device (docs/device.md): libplan queues the compiled expression
 * on the element's stream, as a host kernel on the sim and cpu devices and
 * as its generated CUDA kernel on CUDA. */
static gboolean
plan_map_launch (PlanKernelElement * kernel, const PlanChunk * chunk,
    gpointer output, PlanStream * stream, GError ** error)
{
  PlanMap *self = PLAN_MAP (kernel);
  guint n_short = self->n_names - chunk->n_inputs, i;
  gpointer *ptrs = g_newa (gpointer, self->n_names + 1);

  for (i = 0; i < n_short; i++)
    ptrs[i] = (gpointer) chunk->data[self->slots[i]];
  for (i = 0; i < chunk->n_inputs; i++)
    ptrs[n_short + i] = (gpointer) chunk->data[i];
  ptrs[self->n_names] = output;
  return plan_expr_launch (self->compiled, stream, ptrs,
      chunk->n_rows * self->row_elements,
      plan_kernel_element_get_n_threads (kernel), error);
}

static void
plan_map_class_init (PlanMapClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  PlanKernelElementClass *kernel_class = PLAN_KERNEL_ELEMENT_CLASS (klass);

  gobject_class->set_property = plan_map_set_property;
  gobject_class->get_property = plan_map_get_property;
  gobject_class->finalize = plan_map_finalize;

  kernel_class->check_settings = GST_DEBUG_FUNCPTR (plan_map_check_settings);
  kernel_class->setup = GST_DEBUG_FUNCPTR (plan_map_setup);
  /* Output buffers of 1 MiB are still in the caches when planfilesink
   * copies them into the page cache: x + y from files is 10-20 % faster
   * than with 8 MiB ones (docs/planmap.md). */
  kernel_class->host_slice_bytes = 1 << 20;
  kernel_class->process = GST_DEBUG_FUNCPTR (plan_map_process);
  kernel_class->launch = GST_DEBUG_FUNCPTR (plan_map_launch);

  g_object_class_install_property (gobject_class, PROP_EXPR,
      g_param_spec_string ("expr", "Expression",
          "What to compute for each element, in the inputs x, y, z, w "
          "(pad order) or in0, in1, ...; for example \"2*x*y + sin(x)\". "
          "See docs/expressions.md", DEFAULT_EXPR,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DTYPE,
      g_param_spec_string ("dtype", "Output dtype",
          "Cast the result to this numpy dtype (bool, int8 ... uint64, "
          "float32, float64); empty or unset keeps the expression's dtype",
          DEFAULT_DTYPE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  plan_kernel_element_class_add_pad_templates (kernel_class, TRUE);
  gst_element_class_set_static_metadata (element_class, "Array map",
      "Filter/Converter/Array",
      "Computes an expression element by element over one or more arrays "
      "of the same shape", "gst-plan authors");
  gst_element_class_add_static_metadata (element_class,
      GST_ELEMENT_METADATA_DOC_URI, PLAN_DOC_URI "/planmap.md");
}

static void
plan_map_init (PlanMap * self)
{
  self->expr = DEFAULT_EXPR;
  self->dtype = DEFAULT_DTYPE;
}
