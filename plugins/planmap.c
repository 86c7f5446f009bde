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
 * #PlanKernelPad:variable says, and always `in0`, `in1`, …. The
 * inputs' shapes broadcast by numpy's rules, row by row (`(N, 1)` with
 * `(N, 3)`); their dtypes may differ and are promoted as numpy promotes
 * them. The expression may also read array constants (#PlanMap:constants,
 * #PlanMap:constant-arrays), broadcast against every row, and scalar
 * parameters (#PlanMap:params) whose values may change while playing. The
 * output has the broadcast shape and the expression's dtype, or the one
 * set by #PlanMap:dtype. Whatever the expression, the data is read once
 * and written once: it is evaluated in cache-sized blocks on the element's
 * worker threads.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 planmap name=m expr="2*x*y + sin(x)" ! \
 *     planfilesink location=out.npy \
 *     planfilesrc location=a.npy ! m.sink_0 \
 *     planfilesrc location=b.npy ! m.sink_1
 * gst-launch-1.0 planfilesrc location=x.npy ! \
 *     planmap expr="(x - mean) / std * gain" \
 *     constants="mean=mean.npy,std=std.npy" params="gain=2.0" ! \
 *     planfilesink location=out.npy
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planmap.h"
#include "planmapbindings.h"
#include "planpadsettings.h"

GST_DEBUG_CATEGORY (plan_map_debug);
#define GST_CAT_DEFAULT plan_map_debug

#define DEFAULT_EXPR NULL
#define DEFAULT_DTYPE PLAN_DTYPE_UNKNOWN

enum
{
  PROP_0,
  PROP_EXPR,
  PROP_DTYPE,
  PROP_CONSTANTS,
  PROP_CONSTANT_ARRAYS,
  PROP_PARAMS,
};



/* Inputs beyond the fourth are reachable only as in<N>. */
static const gchar *const short_names[] = { "x", "y", "z", "w" };

struct _PlanMap
{
  PlanKernelElement parent;

  /* protected by OBJECT_LOCK */
  gchar *expr;
  PlanDType dtype;              /* PLAN_DTYPE_UNKNOWN: the expression's */
  GError *rejected;             /* why expr cannot work, or NULL */
  gchar *constants;             /* "name=file.npy,..." */
  GstStructure *constant_arrays;        /* name = PlanArray */
  gchar *params;                /* as set */
  GArray *param_set;            /* PlanMapParam: the parsed params */
  GError *params_rejected;      /* why the last params set was refused */

  /* streaming thread only */
  PlanExpr *compiled;
  guint n_names;
  guint n_streams;              /* names bound to inputs come first */
  guint *slots;                 /* [n_streams - n_inputs]: the input of each
                                 * name before in0, in1, ... */
  gconstpointer *inputs;        /* [n_names]: data of each bound name */
  gsize row_elements;
  GArray *consts;               /* PlanMapConstant, bound after the streams */
  PlanDevice *const_device;     /* where the dptrs of consts are */
  GArray *live;                 /* PlanMapParam, bound last: this chunk's */
};

G_DEFINE_TYPE (PlanMap, plan_map, PLAN_TYPE_KERNEL_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (planmap, "planmap", GST_RANK_NONE,
    PLAN_TYPE_MAP, GST_DEBUG_CATEGORY_INIT (plan_map_debug, "planmap", 0,
        "Elementwise array expressions"));


static void
plan_map_free_device_constants (PlanMap * self)
{
  guint i;

  if (self->consts && self->const_device) {
    for (i = 0; i < self->consts->len; i++) {
      PlanMapConstant *c = &g_array_index (self->consts, PlanMapConstant, i);
      if (c->dptr)
        plan_device_free (self->const_device, c->dptr);
      c->dptr = NULL;
    }
  }
  gst_clear_object (&self->const_device);
}

/* Takes this chunk's values of the params; FALSE with @error set when a
 * change was refused. */
static gboolean
plan_map_take_params (PlanMap * self, GError ** error)
{
  GError *err = NULL;
  guint i;

  GST_OBJECT_LOCK (self);
  if (self->params_rejected) {
    err = g_error_copy (self->params_rejected);
  } else if (!plan_map_params_same_names (self->param_set, self->live)) {
    g_set_error (&err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "params changed their names or dtypes while streaming (\"%s\"); "
        "only values can change then", self->params);
  } else {
    for (i = 0; i < self->live->len; i++)
      g_array_index (self->live, PlanMapParam, i).value =
          g_array_index (self->param_set, PlanMapParam, i).value;
  }
  GST_OBJECT_UNLOCK (self);
  if (err) {
    g_propagate_error (error, err);
    return FALSE;
  }
  return TRUE;
}

/* Points the names after the streams at the constants' data (host or
 * device) and the params' values. */
static void
plan_map_bind_extra (PlanMap * self, gpointer * ptrs, gboolean device)
{
  guint i, k = self->n_streams;

  for (i = 0; i < self->consts->len; i++) {
    PlanMapConstant *c = &g_array_index (self->consts, PlanMapConstant, i);
    ptrs[k++] = device ? c->dptr
        : (gpointer) plan_array_get_data (c->array, NULL);
  }
  for (i = 0; i < self->live->len; i++)
    ptrs[k++] = &g_array_index (self->live, PlanMapParam, i).value;
}

static void
plan_map_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  PlanMap *self = PLAN_MAP (object);
  const gchar *s = G_VALUE_HOLDS_STRING (value) ? g_value_get_string (value)
      : NULL;
  GError *err = NULL;

  if (plan_kernel_element_refuse_live_set (PLAN_KERNEL_ELEMENT (self), pspec))
    return;
  switch (prop_id) {
    case PROP_CONSTANTS:
      GST_OBJECT_LOCK (self);
      g_free (self->constants);
      self->constants = g_strdup (s);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_CONSTANT_ARRAYS:{
      const GstStructure *st = gst_value_get_structure (value);
      GST_OBJECT_LOCK (self);
      g_clear_pointer (&self->constant_arrays, gst_structure_free);
      self->constant_arrays = st ? gst_structure_copy (st) : NULL;
      GST_OBJECT_UNLOCK (self);
      break;
    }
    case PROP_PARAMS:{
      /* Parsed now; a refused string keeps the previous values and is
       * reported as the element error at start, or at the next chunk
       * while streaming. */
      GArray *set = plan_map_params_parse (s, &err);
      GST_OBJECT_LOCK (self);
      g_free (self->params);
      self->params = g_strdup (s);
      g_clear_error (&self->params_rejected);
      if (set) {
        g_array_unref (self->param_set);
        self->param_set = set;
        GST_DEBUG_OBJECT (self, "params: %s", s);
      } else {
        GST_WARNING_OBJECT (self, "rejected params: %s", err->message);
        g_prefix_error (&err, "planmap %s: ", GST_OBJECT_NAME (self));
        self->params_rejected = err;
      }
      GST_OBJECT_UNLOCK (self);
      break;
    }
    case PROP_EXPR:
      /* An expression that cannot work is kept as given and posted when
       * the pipeline starts (plan_map_check_settings()); its message shows
       * it, with a caret. */
      if (s != NULL && !plan_expr_check (s, &err))
        g_prefix_error (&err, "planmap %s, expr: ", GST_OBJECT_NAME (self));
      plan_kernel_element_keep_setting (PLAN_KERNEL_ELEMENT (self), "expr",
          &self->expr, s, &self->rejected, err);
      break;
    case PROP_DTYPE:
      GST_OBJECT_LOCK (self);
      self->dtype = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* An expression, a dtype or params that cannot work are an error at start,
 * before any data (a missing expression is one when the inputs' caps
 * arrive: an application may set it once the element has started). */
static gboolean
plan_map_check_settings (PlanKernelElement * kernel, GError ** error)
{
  PlanMap *self = PLAN_MAP (kernel);
  GError *why;

  GST_OBJECT_LOCK (self);
  why = self->rejected ? self->rejected : self->params_rejected;
  if (why)
    g_propagate_error (error, g_error_copy (why));
  GST_OBJECT_UNLOCK (self);
  return why == NULL;
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
      g_value_set_enum (value, self->dtype);
      break;
    case PROP_CONSTANTS:
      g_value_set_string (value, self->constants);
      break;
    case PROP_CONSTANT_ARRAYS:
      gst_value_set_structure (value, self->constant_arrays);
      break;
    case PROP_PARAMS:
      g_value_set_string (value, self->params);
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
  plan_map_free_device_constants (self);
  g_clear_pointer (&self->consts, g_array_unref);
  g_clear_pointer (&self->live, g_array_unref);
  g_clear_pointer (&self->slots, g_free);
  self->n_names = 0;
  self->n_streams = 0;
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
 * inputs, then the constants and the params, and compiles the expression,
 * cast to the dtype property when one is set; the inputs, constants and
 * params broadcast against each other (docs/expressions.md). */
static gboolean
plan_map_compile (PlanMap * self, guint n_inputs,
    const PlanArrayInfo * inputs, PlanArrayInfo * output, GError ** error)
{
  guint n_short = 0, n_streams, n_names, i, j, k;
  const gchar **short_of = g_newa (const gchar *, n_inputs);
  guint *slots = g_new0 (guint, n_inputs + 1);
  gchar **long_names = g_new0 (gchar *, n_inputs + 1);
  const gchar **names;
  PlanArrayInfo *infos;
  gchar *expr, *files;
  PlanDType dtype;
  GstStructure *arrays;
  GError *rejected = NULL, *err = NULL;

  GST_OBJECT_LOCK (self);
  expr = g_strdup (self->expr);
  dtype = self->dtype;
  files = g_strdup (self->constants);
  arrays = self->constant_arrays ? gst_structure_copy (self->constant_arrays)
      : NULL;
  if (self->rejected || self->params_rejected)
    rejected = g_error_copy (self->rejected ? self->rejected :
        self->params_rejected);
  self->live = g_array_copy (self->param_set);
  for (i = 0; i < self->live->len; i++)
    g_array_index (self->live, PlanMapParam, i).name =
        g_strdup (g_array_index (self->param_set, PlanMapParam, i).name);
  GST_OBJECT_UNLOCK (self);
  g_array_set_clear_func (self->live, plan_map_param_clear);

  for (i = 0; i < n_inputs; i++) {
    const gchar *name = short_name (self, i);

    if (name == NULL)
      continue;
    for (j = 0; j < n_short && rejected == NULL; j++) {
      if (g_strcmp0 (short_of[j], name) == 0)
        rejected = g_error_new (PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
            "planmap %s: %s and %s are both named '%s' (a pad's variable "
            "property, or x, y, z, w by pad number): give each input its "
            "own variable", GST_OBJECT_NAME (self),
            plan_kernel_element_get_input_name (PLAN_KERNEL_ELEMENT (self),
                slots[j]), plan_kernel_element_get_input_name
            (PLAN_KERNEL_ELEMENT (self), i), name);
    }
    slots[n_short] = i;
    short_of[n_short++] = name;
  }
  n_streams = n_short + n_inputs;
  if (rejected) {
    g_propagate_error (error, rejected);
    goto done;
  }
  if (expr == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "planmap %s has no expression: set expr, for example expr=\"x + y\"",
        GST_OBJECT_NAME (self));
    goto done;
  }
  self->consts = plan_map_constants_load (GST_OBJECT (self), files, arrays,
      error);
  if (self->consts == NULL)
    goto done;

  n_names = n_streams + self->consts->len + self->live->len;
  names = g_newa (const gchar *, n_names);
  infos = g_newa (PlanArrayInfo, n_names);
  for (i = 0; i < n_short; i++) {
    names[i] = short_of[i];
    infos[i] = inputs[slots[i]];
  }
  for (i = 0; i < n_inputs; i++) {
    long_names[i] = g_strdup_printf ("in%u", i);
    names[n_short + i] = long_names[i];
    infos[n_short + i] = inputs[i];
  }
  k = n_streams;
  for (i = 0; i < self->consts->len; i++, k++) {
    PlanMapConstant *c = &g_array_index (self->consts, PlanMapConstant, i);
    names[k] = c->name;
    infos[k] = *plan_array_get_info (c->array);
  }
  for (i = 0; i < self->live->len; i++, k++) {
    PlanMapParam *m = &g_array_index (self->live, PlanMapParam, i);
    names[k] = m->name;
    plan_array_info_init (&infos[k]);
    infos[k].dtype = m->dtype;
    infos[k].ndim = 0;
  }

  self->compiled = plan_expr_compile_broadcast (expr, n_names, names, infos,
      n_streams, dtype, output, &err);
  if (self->compiled) {
    self->n_names = n_names;
    self->n_streams = n_streams;
    self->inputs = g_new0 (gconstpointer, n_names);
    self->slots = slots;
    slots = NULL;
    GST_INFO_OBJECT (self, "compiled '%s' with %u inputs, %u constants, %u "
        "params", expr, n_inputs, self->consts->len, self->live->len);
  } else if (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_SHAPE)) {
    /* Say which pad each stream name is. */
    GString *pads = g_string_new (NULL);
    for (i = 0; i < n_inputs; i++)
      g_string_append_printf (pads, "%s%s is %s", i ? ", " : "",
          short_name (self, i) ? short_name (self, i) : long_names[i],
          plan_kernel_element_get_input_name (PLAN_KERNEL_ELEMENT (self), i));
    g_prefix_error (&err, "planmap %s (%s): ", GST_OBJECT_NAME (self),
        pads->str);
    g_string_free (pads, TRUE);
    g_propagate_error (error, err);
  } else {
    /* the typing's findings are about expr, shown with a caret */
    g_prefix_error (&err, "planmap %s%s: ", GST_OBJECT_NAME (self),
        err->domain == PLAN_ERROR && (err->code == PLAN_ERROR_TYPE
            || err->code == PLAN_ERROR_SYNTAX) ? ", expr" : "");
    g_propagate_error (error, err);
  }

done:
  g_free (slots);
  g_strfreev (long_names);
  g_free (expr);
  g_free (files);
  if (arrays)
    gst_structure_free (arrays);
  return self->compiled != NULL;
}

static gboolean
plan_map_setup (PlanKernelElement * kernel, guint n_inputs,
    const PlanArrayInfo * inputs, PlanArrayInfo * output, GError ** error)
{
  PlanMap *self = PLAN_MAP (kernel);
  guint i;

  plan_map_clear_compiled (self);
  if (!plan_refuse_unread_pad_settings (kernel, "planmap", n_inputs, TRUE,
          FALSE, error))
    return FALSE;
  if (!plan_map_compile (self, n_inputs, inputs, output, error)) {
    plan_map_clear_compiled (self);
    return FALSE;
  }
  for (i = 1; i < n_inputs; i++) {
    if (inputs[i].shape[0] != inputs[0].shape[0])
      output->shape[0] = -1;
  }
  self->row_elements = plan_array_info_get_row_elements (output);
  return TRUE;
}

static GstFlowReturn
plan_map_process (PlanKernelElement * kernel, const PlanChunk * chunk)
{
  PlanMap *self = PLAN_MAP (kernel);
  guint n_short = self->n_streams - chunk->n_inputs, i;
  GstBuffer *out;
  GstMapInfo map;
  GstFlowReturn ret;
  GError *err = NULL;

  if (!plan_map_take_params (self, &err)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("%s", err->message),
        ("the new params were refused"));
    g_error_free (err);
    return GST_FLOW_ERROR;
  }
  ret = plan_kernel_element_alloc_output (kernel, chunk->n_rows, &out);
  if (ret != GST_FLOW_OK)
    return ret;
  if (!gst_buffer_map (out, &map, GST_MAP_WRITE))
    goto map_failed;

  for (i = 0; i < n_short; i++)
    self->inputs[i] = chunk->data[self->slots[i]];
  for (i = 0; i < chunk->n_inputs; i++)
    self->inputs[n_short + i] = chunk->data[i];
  plan_map_bind_extra (self, (gpointer *) self->inputs, FALSE);
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

/* The device copies of the constants go when streaming stops (the free
 * waits for the device's queued work). */
static GstStateChangeReturn
plan_map_change_state (GstElement * element, GstStateChange transition)
{
  PlanMap *self = PLAN_MAP (element);
  GstStateChangeReturn ret;

  ret = GST_ELEMENT_CLASS (plan_map_parent_class)->change_state (element,
      transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    plan_map_free_device_constants (self);
  return ret;
}

static void
plan_map_finalize (GObject * object)
{
  PlanMap *self = PLAN_MAP (object);

  plan_map_clear_compiled (self);
  g_free (self->expr);
  g_clear_error (&self->rejected);
  g_free (self->constants);
  g_clear_pointer (&self->constant_arrays, gst_structure_free);
  g_free (self->params);
  g_clear_pointer (&self->param_set, g_array_unref);
  g_clear_error (&self->params_rejected);

  G_OBJECT_CLASS (plan_map_parent_class)->finalize (object);
}

/* The constants are copied to @device once, at the first chunk there,
 * and stay until the caps change or the element stops. */
static gboolean
plan_map_upload_constants (PlanMap * self, PlanDevice * device,
    GError ** error)
{
  guint i;

  if (self->const_device == device)
    return TRUE;
  plan_map_free_device_constants (self);
  self->const_device = gst_object_ref (device);
  for (i = 0; i < self->consts->len; i++) {
    PlanMapConstant *c = &g_array_index (self->consts, PlanMapConstant, i);
    gsize size;
    gconstpointer data = plan_array_get_data (c->array, &size);

    if (!plan_device_alloc (device, size, &c->dptr, error)
        || !plan_device_copy (device, PLAN_COPY_HOST_TO_DEVICE, c->dptr,
            data, size, error)) {
      g_prefix_error (error, "planmap %s: constant '%s' on %s: ",
          GST_OBJECT_NAME (self), c->name, plan_device_get_name (device));
      plan_map_free_device_constants (self);
      return FALSE;
    }
    GST_DEBUG_OBJECT (self, "constant '%s' (%" G_GSIZE_FORMAT " bytes) on %s",
        c->name, size, plan_device_get_name (device));
  }
  return TRUE;
}

/* On the device (docs/device.md): libplan queues the compiled expression
 * on the element's stream, as a host kernel on the sim and cpu devices and
 * as its generated CUDA kernel on CUDA. */
static gboolean
plan_map_launch (PlanKernelElement * kernel, const PlanChunk * chunk,
    gpointer output, PlanStream * stream, GError ** error)
{
  PlanMap *self = PLAN_MAP (kernel);
  guint n_short = self->n_streams - chunk->n_inputs, i;
  gpointer *ptrs = g_newa (gpointer, self->n_names + 1);

  if (!plan_map_take_params (self, error))
    return FALSE;
  if (!plan_map_upload_constants (self, plan_stream_get_device (stream),
          error))
    return FALSE;
  for (i = 0; i < n_short; i++)
    ptrs[i] = (gpointer) chunk->data[self->slots[i]];
  for (i = 0; i < chunk->n_inputs; i++)
    ptrs[n_short + i] = (gpointer) chunk->data[i];
  plan_map_bind_extra (self, ptrs, TRUE);
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
  element_class->change_state = GST_DEBUG_FUNCPTR (plan_map_change_state);

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
      g_param_spec_enum ("dtype", "Output dtype",
          "Cast the result to this numpy dtype (bool, int8 ... uint64, "
          "float16, float32, float64, complex64, complex128; a complex "
          "result is not cast to a real dtype); unknown (the default) keeps "
          "the expression's dtype", PLAN_TYPE_DTYPE, DEFAULT_DTYPE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  g_object_class_install_property (gobject_class, PROP_CONSTANTS,
      g_param_spec_string ("constants", "Array constants",
          "Small arrays the expression reads by name, from .npy files: "
          "\"mean=mean.npy,std=std.npy\". Loaded at start, broadcast "
          "against every row by numpy's rules; at most 64 MiB each. See "
          "docs/planmap.md", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_CONSTANT_ARRAYS,
      g_param_spec_boxed ("constant-arrays", "Array constants in memory",
          "As constants, for applications: a structure whose fields are "
          "PlanArray objects in host memory, each bound under its field's "
          "name", GST_TYPE_STRUCTURE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_PARAMS,
      g_param_spec_string ("params", "Live scalar parameters",
          "Named scalars the expression reads: \"gain=2.0,n:int32=3\" "
          "(float64 unless a dtype follows the name). Values may change "
          "while playing, taking effect from the next chunk, without "
          "recompiling; names and dtypes only change in READY", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  plan_kernel_element_class_add_pad_templates (kernel_class, TRUE);
  gst_element_class_set_static_metadata (element_class, "Array map",
      "Filter/Converter/Array",
      "Computes an expression element by element over one or more arrays "
      "whose shapes broadcast, with array constants and live parameters",
      PLAN_CONTACT);
  gst_element_class_add_static_metadata (element_class,
      GST_ELEMENT_METADATA_DOC_URI, PLAN_DOC_URI "/planmap.md");
}

static void
plan_map_init (PlanMap * self)
{
  self->expr = DEFAULT_EXPR;
  self->dtype = DEFAULT_DTYPE;
  self->param_set = plan_map_params_parse (NULL, NULL);
}
