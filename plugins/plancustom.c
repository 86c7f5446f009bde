/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-plancustom
 * @title: plancustom
 * @short_description: runs user code on chunks of one or more arrays
 *
 * plancustom calls a kernel of the user's on each chunk of its inputs:
 * a C function from a shared library (`library=` and `symbol=`), one an
 * application registered in its process (`kernel=`, see
 * plan_custom_register(); Python functions arrive this way), or CUDA C
 * compiled at run time (`cuda-source=` or `cuda=`, with `cuda-function=`).
 * Each input is a request pad `sink_%u`, lined up by row as in planmap.
 *
 * In `mode=map` (the default) the kernel writes as many output rows as it
 * reads, of `out-dtype` and `out-shape` (by default the first input's);
 * with `halo=R` it also sees R rows before and after each chunk, filled at
 * the ends of the stream by `boundary`. In `mode=reduce` it accumulates
 * every chunk into one array of `out-shape` that is pushed at the end of
 * the stream. docs/plancustom.md documents the kernel signature, the
 * launch configuration of CUDA kernels and every error.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 planfilesrc location=x.npy ! \
 *     plancustom library=./libsoftmax.so symbol=softmax ! \
 *     planfilesink location=y.npy
 * gst-launch-1.0 planfilesrc location=x.npy ! \
 *     plancustom mode=reduce library=./libhist.so symbol=histogram \
 *         out-dtype=int64 out-shape=64 params="0 1" ! \
 *     planfilesink location=h.npy
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plancustom.h"
#include "planpadsettings.h"

#include <math.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (plan_custom_element_debug);
#define GST_CAT_DEFAULT plan_custom_element_debug

#define DEFAULT_MODE PLAN_CUSTOM_MODE_MAP
#define DEFAULT_BOUNDARY PLAN_BOUNDARY_REFLECT
#define DEFAULT_BLOCK_SIZE 256
#define MAX_HALO 4096
#define MAX_STATE_SIZE (1 << 20)

enum
{
  PROP_0,
  PROP_KERNEL,
  PROP_LIBRARY,
  PROP_SYMBOL,
  PROP_CUDA_SOURCE,
  PROP_CUDA,
  PROP_CUDA_FUNCTION,
  PROP_BLOCK_SIZE,
  PROP_BLOCK_SIZE_DEPRECATED,
  PROP_MODE,
  PROP_OUT_DTYPE,
  PROP_OUT_SHAPE,
  PROP_HALO,
  PROP_BOUNDARY,
  PROP_CVAL,
  PROP_PARAMS,
  PROP_STATE_SIZE,
  PROP_PARALLEL,
  PROP_CHECK,
};

struct _PlanCustom
{
  PlanKernelElement parent;

  /* properties, protected by OBJECT_LOCK */
  gchar *kernel_name;
  gchar *library;
  gchar *symbol;
  gchar *cuda_source;
  gchar *cuda;
  gchar *cuda_function;
  guint block_size;
  PlanCustomMode mode;
  PlanDType out_dtype;          /* PLAN_DTYPE_UNKNOWN: the first input's */
  gchar *out_shape;
  guint halo_rows;
  PlanBoundary boundary;
  gdouble cval;
  gchar *params;
  guint state_size;
  gboolean parallel;
  gboolean check;

  /* streaming thread only, from setup */
  PlanCustomKernel *kernel;     /* the CPU kernel, or NULL */
  gchar *cuda_code;             /* the CUDA source with the prelude */
  gchar *cuda_name;             /* what to call it in messages */
  gchar *function;
  PlanKernel *cuda_kernel;      /* loaded lazily on a CUDA device */
  PlanCustomMode active_mode;
  guint halo;
  gchar *active_params;
  guint n_inputs;
  PlanCustomBuffer *inputs;
  PlanArrayInfo *input_infos;
  PlanCustomBuffer output;
  PlanArrayInfo output_info;
  PlanHalo **halos;             /* [n_inputs], with a halo */
  gpointer state;
  gsize active_state_size;
  guint8 *accumulator;          /* reduce mode */
  gboolean initialized;         /* reduce mode: INIT called */
  gboolean active_parallel;     /* rows split across threads */
  gboolean active_check;        /* check mode: the property or
                                 * PLAN_CUSTOM_CHECK=1 */
};

/* The padded blocks of one input's rows (plan_halo_push()). */
typedef PlanHaloBlock BlockSet[PLAN_HALO_MAX_BLOCKS];

G_DEFINE_TYPE (PlanCustom, plan_custom, PLAN_TYPE_KERNEL_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (plancustom, "plancustom",
    GST_RANK_NONE, PLAN_TYPE_CUSTOM,
    GST_DEBUG_CATEGORY_INIT (plan_custom_element_debug, "plancustom", 0,
        "User kernels on array chunks"));

/* The string properties, by where they are kept. */
static gchar **
string_field (PlanCustom * self, guint prop_id)
{
  switch (prop_id) {
    case PROP_KERNEL:
      return &self->kernel_name;
    case PROP_LIBRARY:
      return &self->library;
    case PROP_SYMBOL:
      return &self->symbol;
    case PROP_CUDA_SOURCE:
      return &self->cuda_source;
    case PROP_CUDA:
      return &self->cuda;
    case PROP_CUDA_FUNCTION:
      return &self->cuda_function;
    case PROP_OUT_SHAPE:
      return &self->out_shape;
    case PROP_PARAMS:
      return &self->params;
    default:
      return NULL;
  }
}

static void
plan_custom_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  PlanCustom *self = PLAN_CUSTOM (object);
  gchar **field = string_field (self, prop_id);

  if (plan_kernel_element_refuse_live_set (PLAN_KERNEL_ELEMENT (self), pspec)
      || plan_element_refuse_out_of_range (GST_ELEMENT (self), pspec, value))
    return;
  if (field) {
    /* An empty string unsets the property; what the strings name is
     * checked at start. */
    const gchar *s = g_value_get_string (value);

    plan_kernel_element_keep_setting (PLAN_KERNEL_ELEMENT (self), pspec->name,
        field, (s != NULL && *s != '\0') ? s : NULL, NULL, NULL);
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BLOCK_SIZE:
    case PROP_BLOCK_SIZE_DEPRECATED:
      self->block_size = g_value_get_uint (value);
      break;
    case PROP_OUT_DTYPE:
      self->out_dtype = g_value_get_enum (value);
      break;
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_HALO:
      self->halo_rows = g_value_get_uint (value);
      break;
    case PROP_BOUNDARY:
      self->boundary = g_value_get_enum (value);
      break;
    case PROP_CVAL:
      self->cval = g_value_get_double (value);
      break;
    case PROP_STATE_SIZE:
      self->state_size = g_value_get_uint (value);
      break;
    case PROP_PARALLEL:
      self->parallel = g_value_get_boolean (value);
      break;
    case PROP_CHECK:
      self->check = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
plan_custom_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  PlanCustom *self = PLAN_CUSTOM (object);
  gchar **field = string_field (self, prop_id);

  GST_OBJECT_LOCK (self);
  if (field) {
    g_value_set_string (value, *field);
    GST_OBJECT_UNLOCK (self);
    return;
  }
  switch (prop_id) {
    case PROP_BLOCK_SIZE:
    case PROP_BLOCK_SIZE_DEPRECATED:
      g_value_set_uint (value, self->block_size);
      break;
    case PROP_OUT_DTYPE:
      g_value_set_enum (value, self->out_dtype);
      break;
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_HALO:
      g_value_set_uint (value, self->halo_rows);
      break;
    case PROP_BOUNDARY:
      g_value_set_enum (value, self->boundary);
      break;
    case PROP_CVAL:
      g_value_set_double (value, self->cval);
      break;
    case PROP_STATE_SIZE:
      g_value_set_uint (value, self->state_size);
      break;
    case PROP_PARALLEL:
      g_value_set_boolean (value, self->parallel);
      break;
    case PROP_CHECK:
      g_value_set_boolean (value, self->check);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
plan_custom_clear (PlanCustom * self)
{
  guint i;

  g_clear_pointer (&self->kernel, plan_custom_kernel_free);
  g_clear_pointer (&self->cuda_code, g_free);
  g_clear_pointer (&self->cuda_name, g_free);
  g_clear_pointer (&self->function, g_free);
  g_clear_pointer (&self->active_params, g_free);
  plan_clear_kernel (&self->cuda_kernel);
  if (self->halos) {
    for (i = 0; i < self->n_inputs; i++)
      g_clear_pointer (&self->halos[i], plan_halo_free);
    g_clear_pointer (&self->halos, g_free);
  }
  g_clear_pointer (&self->inputs, g_free);
  g_clear_pointer (&self->input_infos, g_free);
  g_clear_pointer (&self->state, g_free);
  g_clear_pointer (&self->accumulator, g_free);
  self->n_inputs = 0;
  self->initialized = FALSE;
}

/* The row shape and dtype of a stream described by @info, as a kernel sees
 * them. */
static void
describe (PlanCustomBuffer * buf, const PlanArrayInfo * info,
    gboolean whole)
{
  memset (buf, 0, sizeof (*buf));
  buf->dtype = info->dtype;
  if (whole) {
    buf->ndim = info->ndim;
    buf->shape = info->shape;
    buf->row_size = plan_array_info_get_row_size (info) *
        plan_array_info_get_n_rows (info);
  } else {
    buf->ndim = info->ndim > 0 ? info->ndim - 1 : 0;
    buf->shape = info->ndim > 0 ? &info->shape[1] : info->shape;
    buf->row_size = plan_array_info_get_row_size (info);
  }
}

/* The text of the regular file @path (FIFOs and devices refused, as
 * planfilesrc refuses them), its errors naming the element and property.
 * A FIFO or a directory here is a wrong setting (a resource error), not a
 * stream of the wrong type as it is for an input file. */
static gchar *
read_cuda_source (PlanCustom * self, const gchar * path, GError ** error)
{
  GError *err = NULL;
  gchar *text;

  if (!plan_file_get_regular_contents (path, &text, NULL, &err)) {
    if (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED))
      err->code = PLAN_ERROR_INVALID_ARGUMENT;
    g_propagate_prefixed_error (error, err, "plancustom %s: cuda-source: ",
        GST_OBJECT_NAME (self));
    return NULL;
  }
  return text;
}

/* Resolves the kernel(s) the properties name, once per start. */
static gboolean
plan_custom_resolve (PlanCustom * self, GError ** error)
{
  gchar *kernel_name, *library, *symbol, *cuda_source, *cuda, *function;
  gchar *source = NULL;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  kernel_name = g_strdup (self->kernel_name);
  library = g_strdup (self->library);
  symbol = g_strdup (self->symbol);
  cuda_source = g_strdup (self->cuda_source);
  cuda = g_strdup (self->cuda);
  function = g_strdup (self->cuda_function);
  GST_OBJECT_UNLOCK (self);

  if (kernel_name && library) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "plancustom %s: set either kernel (a registered kernel) or library "
        "and symbol, not both", GST_OBJECT_NAME (self));
    ok = FALSE;
  } else if (library && !symbol) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "plancustom %s: library=%s needs symbol=, the kernel's name in it",
        GST_OBJECT_NAME (self), library);
    ok = FALSE;
  } else if (cuda_source && cuda) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "plancustom %s: set either cuda-source (a file) or cuda (the "
        "source itself), not both", GST_OBJECT_NAME (self));
    ok = FALSE;
  } else if ((cuda_source || cuda) && !function) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "plancustom %s: CUDA source needs cuda-function=, the name of its "
        "__global__ kernel", GST_OBJECT_NAME (self));
    ok = FALSE;
  } else if (!kernel_name && !library && !cuda_source && !cuda) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "plancustom %s has no kernel: set library and symbol, kernel (a "
        "registered kernel), or cuda-source and cuda-function",
        GST_OBJECT_NAME (self));
    ok = FALSE;
  }

  if (ok && kernel_name)
    ok = (self->kernel = plan_custom_kernel_new_registered (kernel_name,
            error)) != NULL;
  else if (ok && library)
    ok = (self->kernel = plan_custom_kernel_new_from_library (library,
            symbol, error)) != NULL;
  if (!ok && error && *error && !g_str_has_prefix ((*error)->message,
          "plancustom"))
    g_prefix_error (error, "plancustom %s: ", GST_OBJECT_NAME (self));

  if (ok && (cuda_source || cuda)) {
    source = cuda_source ? read_cuda_source (self, cuda_source, error) :
        g_strdup (cuda);
    ok = source != NULL;
  }
  if (ok && source) {
    self->cuda_name = g_strdup (cuda_source ? cuda_source : "cuda");
    self->cuda_code = plan_custom_cuda_source (source, self->cuda_name);
    self->function = g_strdup (function);
  }

  g_free (source);
  g_free (kernel_name);
  g_free (library);
  g_free (symbol);
  g_free (cuda_source);
  g_free (cuda);
  g_free (function);
  return ok;
}

static gboolean
plan_custom_setup (PlanKernelElement * kernel, guint n_inputs,
    const PlanArrayInfo * inputs, PlanArrayInfo * output, GError ** error)
{
  PlanCustom *self = PLAN_CUSTOM (kernel);
  gchar *out_shape;
  PlanDType dtype;
  guint halo, i;
  PlanBoundary boundary;
  gdouble cval;
  gsize state_size;
  gboolean ok;

  plan_custom_clear (self);
  if (!plan_refuse_unread_pad_settings (kernel, "plancustom", n_inputs,
          FALSE, FALSE, error) || !plan_custom_resolve (self, error))
    return FALSE;

  GST_OBJECT_LOCK (self);
  dtype = self->out_dtype;
  out_shape = g_strdup (self->out_shape);
  self->active_mode = self->mode;
  halo = self->halo_rows;
  boundary = self->boundary;
  cval = self->cval;
  state_size = self->state_size;
  self->active_params = g_strdup (self->params);
  self->active_parallel = self->parallel;
  self->active_check = self->check
      || g_strcmp0 (g_getenv ("PLAN_CUSTOM_CHECK"), "1") == 0;
  GST_OBJECT_UNLOCK (self);

  if (self->active_parallel && (self->active_mode != PLAN_CUSTOM_MODE_MAP
          || state_size > 0)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "plancustom %s: parallel is for mode=map kernels without "
        "state-size: their rows are independent", GST_OBJECT_NAME (self));
    goto failed;
  }

  if (n_inputs > PLAN_CUSTOM_CUDA_MAX_INPUTS && self->cuda_code) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "plancustom %s: a CUDA kernel takes at most %d inputs, not %u",
        GST_OBJECT_NAME (self), PLAN_CUSTOM_CUDA_MAX_INPUTS, n_inputs);
    goto failed;
  }
  /* A CUDA kernel alone never runs on the CPU: say so now, not at the
   * first chunk (an empty stream would have none, and end without it). */
  if (self->kernel == NULL
      && plan_kernel_element_get_target (kernel) == PLAN_TARGET_CPU) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "plancustom %s has only a CUDA kernel, and target=cpu: give a CPU "
        "kernel too (library and symbol, or kernel), or run it on a CUDA "
        "device", GST_OBJECT_NAME (self));
    goto failed;
  }
  if (self->cuda_code && (halo > 0 || self->active_mode !=
          PLAN_CUSTOM_MODE_MAP || state_size > 0)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "plancustom %s: CUDA kernels run in mode=map without halo and "
        "state-size", GST_OBJECT_NAME (self));
    goto failed;
  }
  for (i = 1; i < n_inputs; i++) {
    if (inputs[i].shape[0] >= 0 && inputs[0].shape[0] >= 0
        && inputs[i].shape[0] != inputs[0].shape[0]) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "plancustom %s: the inputs have %" G_GINT64_FORMAT " and %"
          G_GINT64_FORMAT " rows; every input must have as many rows",
          GST_OBJECT_NAME (self), inputs[0].shape[0], inputs[i].shape[0]);
      goto failed;
    }
  }

  /* The output: out-dtype and out-shape, by default the first input's. */
  if (!plan_custom_get_output_info (self->active_mode, dtype, out_shape,
          n_inputs, inputs, output, error)) {
    g_prefix_error (error, "plancustom %s: ", GST_OBJECT_NAME (self));
    goto failed;
  }
  dtype = output->dtype;

  self->n_inputs = n_inputs;
  self->inputs = g_new0 (PlanCustomBuffer, n_inputs);
  self->input_infos = g_memdup2 (inputs, n_inputs * sizeof (PlanArrayInfo));
  for (i = 0; i < n_inputs; i++)
    describe (&self->inputs[i], &self->input_infos[i], FALSE);
  self->output_info = *output;
  describe (&self->output, &self->output_info,
      self->active_mode == PLAN_CUSTOM_MODE_REDUCE);

  self->halo = 0;
  if (halo > 0 && self->active_mode == PLAN_CUSTOM_MODE_MAP) {
    guint sizes[PLAN_ARRAY_MAX_DIMS] = { 0, };

    sizes[0] = halo;
    self->halos = g_new0 (PlanHalo *, n_inputs);
    for (i = 0; i < n_inputs; i++) {
      if (inputs[i].ndim == 0) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
            "plancustom %s: halo=%u gives the kernel the rows around each "
            "chunk, but input %u is a single value (0-d, a reduction's "
            "result, say), which has no rows around it; use halo=0",
            GST_OBJECT_NAME (self), halo, i);
        goto failed;
      }
      /* Said here in plancustom's terms: the halo's own check speaks of a
       * stencil's window. */
      if (boundary == PLAN_BOUNDARY_VALID && inputs[i].shape[0] >= 0
          && inputs[i].shape[0] < 2 * (gint64) halo + 1) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
            "plancustom %s: halo=%u with boundary=valid needs at least %u "
            "rows of input %u, which has %" G_GINT64_FORMAT ": the output "
            "would be empty", GST_OBJECT_NAME (self), halo, 2 * halo + 1, i,
            inputs[i].shape[0]);
        goto failed;
      }
      self->halos[i] = plan_halo_new (&inputs[i], sizes, boundary, cval,
          error);
      if (self->halos[i] == NULL)
        goto failed;
      plan_halo_set_pad_inner (self->halos[i], FALSE);
    }
    self->halo = halo;
    /* boundary=valid gives fewer rows: those with a whole halo. */
    {
      PlanArrayInfo padded;

      plan_halo_get_output_info (self->halos[0], &padded);
      output->shape[0] = self->output_info.shape[0] = padded.shape[0];
    }
  } else if (halo > 0) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "plancustom %s: halo is for mode=map; a reduction sees every row "
        "once", GST_OBJECT_NAME (self));
    goto failed;
  }

  self->active_state_size = state_size;
  self->state = state_size ? g_malloc0 (state_size) : NULL;
  if (self->active_mode == PLAN_CUSTOM_MODE_REDUCE)
    self->accumulator = g_malloc0 (MAX (self->output.row_size, 1));

  /* CUDA source is compiled now, for a common architecture, so that its
   * errors, and a function it does not define, are reported at start
   * whichever target runs, even without a GPU; the device's own
   * architecture is compiled when it is first used. */
  if (self->cuda_code && plan_nvrtc_load (NULL)
      && !plan_nvrtc_check_function (self->cuda_code, self->function,
          error)) {
    g_prefix_error (error, "plancustom %s: %s: ", GST_OBJECT_NAME (self),
        self->cuda_name);
    goto failed;
  }
  GST_INFO_OBJECT (self, "kernel %s%s%s, mode %s, halo %u, %u inputs, "
      "output %s", self->kernel ? plan_custom_kernel_get_name (self->kernel)
      : "", self->kernel && self->cuda_code ? " and " : "",
      self->cuda_code ? self->function : "",
      self->active_mode == PLAN_CUSTOM_MODE_MAP ? "map" : "reduce",
      self->halo, n_inputs, plan_dtype_to_string (dtype));
  ok = TRUE;
  goto done;

failed:
  plan_custom_clear (self);
  ok = FALSE;
done:
  g_free (out_shape);
  return ok;
}

static void
chunk_init (PlanCustom * self, PlanCustomChunk * c, PlanCustomPhase phase)
{
  memset (c, 0, sizeof (*c));
  c->phase = phase;
  c->mode = self->active_mode;
  c->params = self->active_params;
  c->state = self->state;
  c->state_size = self->active_state_size;
  c->halo = self->halo;
}

/* The CPU kernel, checked in check mode. Any thread. */
static gboolean
kernel_call (PlanCustom * self, PlanCustomChunk * c, GError ** error)
{
  return self->active_check ?
      plan_custom_kernel_call_checked (self->kernel, c, error) :
      plan_custom_kernel_call (self->kernel, c, error);
}

static gboolean
call_kernel (PlanCustom * self, PlanCustomChunk * c)
{
  GError *err = NULL;

  if (self->kernel == NULL) {
    GST_ELEMENT_ERROR (self, CORE, NOT_IMPLEMENTED,
        ("plancustom %s has only a CUDA kernel, and runs on the host here: "
            "give a CPU kernel too (library and symbol, or kernel), or run "
            "it on a CUDA device", GST_OBJECT_NAME (self)), (NULL));
    return FALSE;
  }
  if (kernel_call (self, c, &err))
    return TRUE;
  GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("%s", err->message), (NULL));
  g_clear_error (&err);
  return FALSE;
}

static gboolean
reduce_init (PlanCustom * self)
{
  PlanCustomChunk c;

  if (self->initialized)
    return TRUE;
  self->initialized = TRUE;
  memset (self->accumulator, 0, MAX (self->output.row_size, 1));
  self->output.data = self->accumulator;
  chunk_init (self, &c, PLAN_CUSTOM_PHASE_INIT);
  c.output = &self->output;
  return call_kernel (self, &c);
}

/* parallel=true: pieces of a chunk's rows on the worker threads, each
 * call with its own chunk description. */
typedef struct
{
  PlanCustom *self;
  gconstpointer *data;
  guint8 *out;
  guint64 first_row;
  GMutex lock;
  GError *error;                /* the first failure */
} Split;

static void
split_range (gsize begin, gsize end, gpointer user_data)
{
  Split *s = user_data;
  PlanCustom *self = s->self;
  PlanCustomBuffer *inputs = g_newa (PlanCustomBuffer, self->n_inputs);
  PlanCustomBuffer output = self->output;
  PlanCustomChunk c;
  GError *err = NULL;
  guint i;

  for (i = 0; i < self->n_inputs; i++) {
    inputs[i] = self->inputs[i];
    inputs[i].data = (guint8 *) s->data[i] + begin * inputs[i].row_size;
  }
  output.data = s->out + begin * output.row_size;
  chunk_init (self, &c, PLAN_CUSTOM_PHASE_CHUNK);
  c.n_inputs = self->n_inputs;
  c.inputs = inputs;
  c.output = &output;
  c.n_rows = end - begin;
  c.first_row = s->first_row + begin;
  if (!kernel_call (self, &c, &err)) {
    g_mutex_lock (&s->lock);
    if (s->error == NULL)
      s->error = err;
    else
      g_clear_error (&err);
    g_mutex_unlock (&s->lock);
  }
}

static gboolean
call_split (PlanCustom * self, gconstpointer * data, guint8 * out,
    guint64 first_row, gsize n_rows)
{
  gsize row = MAX (self->output.row_size, 1);
  Split s = { self, data, out, first_row, };
  gboolean ok;

  for (guint i = 0; i < self->n_inputs; i++)
    row = MAX (row, self->inputs[i].row_size);
  g_mutex_init (&s.lock);
  /* Pieces of at least 64 KiB of the widest row, not to drown the work in
   * calls. */
  plan_parallel_for (plan_kernel_element_get_n_threads (PLAN_KERNEL_ELEMENT
          (self)), n_rows, MAX ((gsize) 1, (gsize) (64 << 10) / row),
      split_range, &s);
  g_mutex_clear (&s.lock);
  ok = s.error == NULL;
  if (!ok) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("%s", s.error->message),
        (NULL));
    g_clear_error (&s.error);
  }
  return ok;
}

/* Calls the kernel on @n_rows rows at @data (one pointer per input),
 * writing into a new output buffer that is pushed. */
static GstFlowReturn
compute_rows (PlanCustom * self, gconstpointer * data, guint64 first_row,
    gsize n_rows)
{
  PlanKernelElement *kernel = PLAN_KERNEL_ELEMENT (self);
  PlanCustomChunk c;
  GstBuffer *out = NULL;
  GstMapInfo map;
  GstFlowReturn ret;
  guint i;

  for (i = 0; i < self->n_inputs; i++)
    self->inputs[i].data = (gpointer) data[i];
  chunk_init (self, &c, PLAN_CUSTOM_PHASE_CHUNK);
  c.n_inputs = self->n_inputs;
  c.inputs = self->inputs;
  c.n_rows = n_rows;
  c.first_row = first_row;

  if (self->active_mode == PLAN_CUSTOM_MODE_REDUCE) {
    if (!reduce_init (self))
      return GST_FLOW_ERROR;
    self->output.data = self->accumulator;
    c.output = &self->output;
    return call_kernel (self, &c) ? GST_FLOW_OK : GST_FLOW_ERROR;
  }

  ret = plan_kernel_element_alloc_output (kernel, n_rows, &out);
  if (ret != GST_FLOW_OK)
    return ret;
  if (!gst_buffer_map (out, &map, GST_MAP_WRITE)) {
    gst_buffer_unref (out);
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Could not map an output buffer for writing."), (NULL));
    return GST_FLOW_ERROR;
  }
  self->output.data = map.data;
  c.output = &self->output;
  if (self->active_parallel && self->kernel && n_rows > 1 ?
      !call_split (self, data, map.data, first_row, n_rows) :
      !call_kernel (self, &c)) {
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    return GST_FLOW_ERROR;
  }
  gst_buffer_unmap (out, &map);
  return plan_kernel_element_push_output (kernel, out);
}

/* Rows @first_row... of this element's stream: in a run sharded across
 * MPI ranks, the kernel is told where they are in the whole stream, as
 * one process's kernel is, so that a kernel that computes from its rows'
 * places (an index, a coordinate, a failure at a row) gives the same rows
 * on any number of ranks. A rank's stream may wrap around the end of the
 * whole (the last rank's output of planstencil boundary=wrap): the rows
 * after the wrap are a call of their own, from global row 0. */
static GstFlowReturn
compute_stream_rows (PlanCustom * self, gconstpointer * data,
    guint64 first_row, gsize n_rows)
{
  gconstpointer *rest;
  PlanShardInfo shard;
  guint64 global;
  gsize before;
  GstFlowReturn ret;
  guint i;

  if (!plan_kernel_element_get_shard (PLAN_KERNEL_ELEMENT (self), &shard)
      || shard.total == 0)
    return compute_rows (self, data, first_row, n_rows);
  global = (shard.origin + first_row) % shard.total;
  before = MIN ((guint64) n_rows, shard.total - global);
  ret = compute_rows (self, data, global, before);
  if (ret != GST_FLOW_OK || before == n_rows)
    return ret;
  rest = g_newa (gconstpointer, self->n_inputs);
  for (i = 0; i < self->n_inputs; i++)
    rest[i] = (const guint8 *) data[i] + before * self->inputs[i].row_size;
  return compute_stream_rows (self, rest, first_row + before,
      n_rows - before);
}

/* With a halo: each input's padded blocks, lined up, computed in turn. */
static GstFlowReturn
compute_blocks (PlanCustom * self, BlockSet * blocks, const guint * n_blocks)
{
  gconstpointer *data = g_newa (gconstpointer, self->n_inputs);
  GstFlowReturn ret = GST_FLOW_OK;
  guint b, i;

  /* Halos fed the same rows give the same blocks, each input's rows
   * contiguous (only the streaming axis is padded); anything else is a
   * libplan bug, reported rather than handed to the kernel. */
  for (i = 1; i < self->n_inputs; i++)
    if (n_blocks[i] != n_blocks[0])
      goto misaligned;
  for (b = 0; b < n_blocks[0] && ret == GST_FLOW_OK; b++) {
    if (blocks[0][b].n_rows == 0)
      continue;
    for (i = 0; i < self->n_inputs; i++) {
      if (blocks[i][b].first_row != blocks[0][b].first_row
          || blocks[i][b].n_rows != blocks[0][b].n_rows
          || !blocks[i][b].contiguous)
        goto misaligned;
      data[i] = blocks[i][b].origin;
    }
    ret = compute_rows (self, data, blocks[0][b].first_row,
        blocks[0][b].n_rows);
  }
  return ret;

misaligned:
  GST_ELEMENT_ERROR (self, CORE, FAILED,
      ("plancustom %s: the halo rows of its inputs do not line up",
          GST_OBJECT_NAME (self)), (NULL));
  return GST_FLOW_ERROR;
}

static GstFlowReturn
plan_custom_process (PlanKernelElement * kernel, const PlanChunk * chunk)
{
  PlanCustom *self = PLAN_CUSTOM (kernel);
  BlockSet *blocks;
  guint *n_blocks, i;
  GError *err = NULL;

  if (self->halos == NULL)
    return compute_stream_rows (self, chunk->data, chunk->first_row,
        chunk->n_rows);

  blocks = g_newa (BlockSet, self->n_inputs);
  n_blocks = g_newa (guint, self->n_inputs);
  for (i = 0; i < self->n_inputs; i++) {
    if (!plan_kernel_element_fill_halo_end (kernel, i, self->halos[i],
            chunk->n_rows, &err)
        || !plan_halo_push (self->halos[i], chunk->data[i], chunk->n_rows,
            blocks[i], &n_blocks[i], &err)) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", err->message), (NULL));
      g_clear_error (&err);
      return GST_FLOW_ERROR;
    }
  }
  return compute_blocks (self, blocks, n_blocks);
}

static GstFlowReturn
plan_custom_finish (PlanKernelElement * kernel, guint64 n_rows)
{
  PlanCustom *self = PLAN_CUSTOM (kernel);
  PlanStream *stream = plan_kernel_element_get_stream (kernel);
  PlanCustomChunk c;
  GstBuffer *out;
  GstFlowReturn ret;
  GError *err = NULL;
  guint i;

  /* The chunks launched on the device run later, on its stream (the sim
   * device's worker thread), and the kernel may fail there: wait for them,
   * so that a failure fails the element instead of EOS following it. */
  if (stream && !plan_stream_synchronize (stream, &err)) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("%s", err->message), (NULL));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
  if (self->halos) {
    BlockSet *blocks = g_newa (BlockSet, self->n_inputs);
    guint *n_blocks = g_newa (guint, self->n_inputs);

    for (i = 0; i < self->n_inputs; i++) {
      if (!plan_halo_finish (self->halos[i], blocks[i], &n_blocks[i],
              &err)) {
        GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", err->message),
            (NULL));
        g_clear_error (&err);
        return GST_FLOW_ERROR;
      }
    }
    return compute_blocks (self, blocks, n_blocks);
  }
  if (self->active_mode != PLAN_CUSTOM_MODE_REDUCE)
    return GST_FLOW_OK;

  /* The accumulated result, finalized by the kernel, pushed once. */
  if (!reduce_init (self))
    return GST_FLOW_ERROR;
  self->output.data = self->accumulator;
  chunk_init (self, &c, PLAN_CUSTOM_PHASE_FINISH);
  c.output = &self->output;
  c.first_row = n_rows;
  if (!call_kernel (self, &c))
    return GST_FLOW_ERROR;
  ret = plan_kernel_element_alloc_output (kernel,
      plan_array_info_get_n_rows (&self->output_info), &out);
  if (ret != GST_FLOW_OK)
    return ret;
  gst_buffer_fill (out, 0, self->accumulator, self->output.row_size);
  GST_DEBUG_OBJECT (self, "pushing the reduction over %" G_GUINT64_FORMAT
      " rows", n_rows);
  return plan_kernel_element_push_output (kernel, out);
}

/* In map mode the output rows are the input rows; in reduce mode the one
 * result stands for all of them (as a reduction's, planreduce.c). The
 * mode changes only in NULL or READY. */
static void
plan_custom_output_range (PlanKernelElement * kernel, guint64 first,
    gint64 end, guint64 * out_first, gint64 * out_end)
{
  PlanCustom *self = PLAN_CUSTOM (kernel);
  PlanCustomMode mode;

  GST_OBJECT_LOCK (self);
  mode = self->mode;
  GST_OBJECT_UNLOCK (self);
  if (mode == PLAN_CUSTOM_MODE_MAP) {
    *out_first = first;
    *out_end = end;
  } else {
    *out_first = 0;
    *out_end = -1;
  }
}

/* Sharded across MPI ranks (planfilesrc shard=mpi), each rank's element
 * sees only its share of the rows: a map without halo or state computes
 * it as it would the whole. A halo would need the neighbouring ranks'
 * rows, state the carry of the ranks before, and a reduction the other
 * ranks' accumulators, none of which plancustom exchanges: refused, where
 * they would give wrong rows at the seams, or a part for the whole. */
static gboolean
plan_custom_shard (PlanKernelElement * kernel, const PlanShardInfo * input,
    PlanShardInfo * output, GError ** error)
{
  PlanCustom *self = PLAN_CUSTOM (kernel);
  PlanCustomMode mode;
  guint halo;
  gsize state_size;

  *output = *input;
  if (input->replicated)
    return TRUE;
  GST_OBJECT_LOCK (self);
  mode = self->mode;
  halo = self->halo_rows;
  state_size = self->state_size;
  GST_OBJECT_UNLOCK (self);
  if (mode != PLAN_CUSTOM_MODE_MAP) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "mode=reduce would fold only this rank's rows, and plancustom does "
        "not combine the ranks' accumulators: read its input without "
        "shard=mpi, or reduce with planreduce");
    return FALSE;
  }
  if (halo > 0) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "halo=%u needs the rows of the neighbouring ranks, which plancustom "
        "does not exchange: read its input without shard=mpi, or use "
        "planstencil", halo);
    return FALSE;
  }
  if (state_size > 0) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "state-size=%" G_GSIZE_FORMAT " carries state from row to row, "
        "and each rank would start from zero at its first row: read its "
        "input without shard=mpi", state_size);
    return FALSE;
  }
  return TRUE;
}

static void
plan_custom_reset (PlanKernelElement * kernel)
{
  PlanCustom *self = PLAN_CUSTOM (kernel);
  guint i;

  if (self->halos)
    for (i = 0; i < self->n_inputs; i++)
      plan_halo_reset (self->halos[i]);
  if (self->state)
    memset (self->state, 0, self->active_state_size);
  self->initialized = FALSE;
}

/* On the device: the CUDA kernel on a CUDA device; elsewhere (the sim and
 * cpu devices) the CPU kernel as a host kernel in stream order. */
typedef struct
{
  PlanCustom *self;
  PlanStream *stream;           /* not a reference: the stream runs its
                                 * queued work before it is freed */
  gsize n_rows;
  guint64 first_row;
} HostJob;

static void
host_kernel (gpointer * ptrs, guint n_ptrs, gpointer data)
{
  HostJob *job = data;
  PlanCustom *self = job->self;
  PlanCustomBuffer *inputs = g_newa (PlanCustomBuffer, self->n_inputs);
  PlanCustomBuffer output = self->output;
  PlanCustomChunk c;
  GError *err = NULL;
  guint i;

  for (i = 0; i < self->n_inputs; i++) {
    inputs[i] = self->inputs[i];
    inputs[i].data = ptrs[i];
  }
  output.data = ptrs[n_ptrs - 1];
  chunk_init (self, &c, PLAN_CUSTOM_PHASE_CHUNK);
  c.n_inputs = self->n_inputs;
  c.inputs = inputs;
  c.output = &output;
  c.n_rows = job->n_rows;
  c.first_row = job->first_row;
  if (!kernel_call (self, &c, &err)) {
    /* The stream keeps it: the element reports it at its next chunk or
     * before EOS, from its own thread. */
    plan_stream_set_error (job->stream, err);
    g_clear_error (&err);
  }
}

static void
host_job_free (gpointer data)
{
  HostJob *job = data;

  gst_object_unref (job->self);
  g_free (job);
}

static gboolean
ensure_cuda_kernel (PlanCustom * self, PlanDevice * device, GError ** error)
{
  if (self->cuda_kernel == NULL)
    self->cuda_kernel = plan_nvrtc_build_kernel (device, self->cuda_code,
        self->function, error);
  if (self->cuda_kernel == NULL)
    g_prefix_error (error, "plancustom %s: %s: ", GST_OBJECT_NAME (self),
        self->cuda_name);
  return self->cuda_kernel != NULL;
}

static gboolean
plan_custom_launch (PlanKernelElement * kernel, const PlanChunk * chunk,
    gpointer output, PlanStream * stream, GError ** error)
{
  PlanCustom *self = PLAN_CUSTOM (kernel);
  PlanDevice *device = plan_stream_get_device (stream);
  gpointer *ptrs;
  HostJob *job;
  guint i;

  if (self->halos || self->active_mode != PLAN_CUSTOM_MODE_MAP
      || self->state) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "a halo, a reduction or state runs on host copies");
    return FALSE;
  }
  if (plan_device_get_kind (device) == PLAN_DEVICE_KIND_CUDA) {
    PlanCustomCudaChunk c = { {0,}, };
    guint block_size;

    if (self->cuda_code == NULL) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
          "no CUDA source: the CPU kernel runs on host copies");
      return FALSE;
    }
    if (!ensure_cuda_kernel (self, device, error))
      return FALSE;
    for (i = 0; i < self->n_inputs; i++) {
      c.inputs[i] = chunk->data[i];
      c.input_row_size[i] = self->inputs[i].row_size;
    }
    c.output = output;
    c.output_row_size = self->output.row_size;
    c.n_rows = chunk->n_rows;
    c.first_row = chunk->first_row;
    c.n_inputs = self->n_inputs;
    GST_OBJECT_LOCK (self);
    block_size = self->block_size;
    GST_OBJECT_UNLOCK (self);
    return plan_custom_cuda_launch (stream, self->cuda_kernel, &c,
        block_size, error);
  }

  if (self->kernel == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_DEVICE,
        "plancustom %s: on the %s, CUDA source runs through a CPU kernel "
        "given with it (library and symbol, or kernel)",
        GST_OBJECT_NAME (self), plan_device_get_name (device));
    return FALSE;
  }
  ptrs = g_newa (gpointer, self->n_inputs + 1);
  for (i = 0; i < self->n_inputs; i++)
    ptrs[i] = (gpointer) chunk->data[i];
  ptrs[self->n_inputs] = output;
  job = g_new (HostJob, 1);
  job->self = gst_object_ref (self);
  job->stream = stream;
  job->n_rows = chunk->n_rows;
  job->first_row = chunk->first_row;
  return plan_stream_launch_host_kernel (stream, host_kernel, ptrs,
      self->n_inputs + 1, job, host_job_free, error);
}

static void
plan_custom_finalize (GObject * object)
{
  PlanCustom *self = PLAN_CUSTOM (object);

  plan_custom_clear (self);
  g_free (self->kernel_name);
  g_free (self->library);
  g_free (self->symbol);
  g_free (self->cuda_source);
  g_free (self->cuda);
  g_free (self->cuda_function);
  g_free (self->out_shape);
  g_free (self->params);

  G_OBJECT_CLASS (plan_custom_parent_class)->finalize (object);
}

static void
plan_custom_class_init (PlanCustomClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  PlanKernelElementClass *kernel_class = PLAN_KERNEL_ELEMENT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  gobject_class->set_property = plan_custom_set_property;
  gobject_class->get_property = plan_custom_get_property;
  gobject_class->finalize = plan_custom_finalize;

  kernel_class->setup = GST_DEBUG_FUNCPTR (plan_custom_setup);
  /* As planmap: output buffers of 1 MiB are still in the caches when the
   * next element reads them. */
  kernel_class->host_slice_bytes = 1 << 20;
  kernel_class->process = GST_DEBUG_FUNCPTR (plan_custom_process);
  kernel_class->finish = GST_DEBUG_FUNCPTR (plan_custom_finish);
  kernel_class->reset = GST_DEBUG_FUNCPTR (plan_custom_reset);
  kernel_class->shard = GST_DEBUG_FUNCPTR (plan_custom_shard);
  kernel_class->output_range = GST_DEBUG_FUNCPTR (plan_custom_output_range);
  kernel_class->launch = GST_DEBUG_FUNCPTR (plan_custom_launch);

  g_object_class_install_property (gobject_class, PROP_KERNEL,
      g_param_spec_string ("kernel", "Registered kernel",
          "The name of a kernel the application registered in this process "
          "(plan_custom_register, or a Python function through gstplan)",
          NULL, flags));
  g_object_class_install_property (gobject_class, PROP_LIBRARY,
      g_param_spec_string ("library", "Kernel library",
          "A shared library with the kernel (a path, or a name the dynamic "
          "loader finds); needs symbol", NULL, flags));
  g_object_class_install_property (gobject_class, PROP_SYMBOL,
      g_param_spec_string ("symbol", "Kernel symbol",
          "The kernel's name in library, declared with PLAN_CUSTOM_EXPORT",
          NULL, flags));
  g_object_class_install_property (gobject_class, PROP_CUDA_SOURCE,
      g_param_spec_string ("cuda-source", "CUDA source file",
          "A .cu file with the CUDA kernel, compiled with NVRTC when the "
          "element runs on a CUDA device; needs cuda-function", NULL, flags));
  g_object_class_install_property (gobject_class, PROP_CUDA,
      g_param_spec_string ("cuda", "CUDA source",
          "The CUDA kernel's source itself, instead of cuda-source", NULL,
          flags));
  g_object_class_install_property (gobject_class, PROP_CUDA_FUNCTION,
      g_param_spec_string ("cuda-function", "CUDA function",
          "The extern \"C\" __global__ function of the CUDA source, taking "
          "a plan_chunk by value", NULL, flags));
  g_object_class_install_property (gobject_class, PROP_BLOCK_SIZE,
      plan_param_spec_checked_range (g_param_spec_uint ("blocksize",
          "CUDA block size",
          "Threads per block of the CUDA kernel's launch; the grid covers "
          "the chunk's rows (at most 65535 blocks: loop with "
          "PLAN_FOR_EACH_ROW)", 32, 1024, DEFAULT_BLOCK_SIZE, flags)));
  /* The old spelling, kept working. */
  g_object_class_install_property (gobject_class, PROP_BLOCK_SIZE_DEPRECATED,
      plan_param_spec_checked_range (g_param_spec_uint ("block-size",
          "CUDA block size (deprecated)",
          "Deprecated spelling of blocksize", 32, 1024, DEFAULT_BLOCK_SIZE,
          flags | G_PARAM_DEPRECATED)));
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "map: as many rows out as in; reduce: one result array "
          "accumulated over the stream and pushed at its end",
          PLAN_TYPE_CUSTOM_MODE, DEFAULT_MODE, flags));
  g_object_class_install_property (gobject_class, PROP_OUT_DTYPE,
      g_param_spec_enum ("out-dtype", "Output dtype",
          "The dtype of the output (bool, int8 ... uint64, float16, float32, "
          "float64, complex64, complex128); unknown (the default): the first "
          "input's",
          PLAN_TYPE_DTYPE, PLAN_DTYPE_UNKNOWN, flags));
  g_object_class_install_property (gobject_class, PROP_OUT_SHAPE,
      g_param_spec_string ("out-shape", "Output shape",
          "map: the shape of one output row (\"3\", \"4,4\", \"()\" for "
          "one value per row); reduce: the result's shape; unset: the "
          "first input's row shape", NULL, flags));
  g_object_class_install_property (gobject_class, PROP_HALO,
      plan_param_spec_checked_range (g_param_spec_uint ("halo", "Halo rows",
          "mode=map: rows the kernel reads before and after each chunk, "
          "filled by boundary at the ends of the stream", 0, MAX_HALO, 0,
          flags)));
  g_object_class_install_property (gobject_class, PROP_BOUNDARY,
      g_param_spec_enum ("boundary", "Boundary",
          "How halo rows beyond the stream's ends are filled (constant, "
          "nearest, reflect, mirror, wrap), or valid: only the rows with a "
          "whole halo are computed", PLAN_TYPE_BOUNDARY, DEFAULT_BOUNDARY,
          flags));
  g_object_class_install_property (gobject_class, PROP_CVAL,
      plan_boundary_param_spec_cval ("cval", "Constant value",
          "The value of halo rows beyond the ends with boundary=constant; "
          "any number, inf or nan", 0.0, flags));
  g_object_class_install_property (gobject_class, PROP_PARAMS,
      g_param_spec_string ("params", "Parameters",
          "A string handed to the kernel with every chunk (its own "
          "parameters: \"bins=64\", say)", NULL, flags));
  g_object_class_install_property (gobject_class, PROP_PARALLEL,
      g_param_spec_boolean ("parallel", "Parallel",
          "The kernel's rows are independent and it may run on several "
          "threads at once (n-threads), each call on some rows of a chunk; "
          "mode=map without state-size only", FALSE, flags));
  g_object_class_install_property (gobject_class, PROP_STATE_SIZE,
      plan_param_spec_checked_range (g_param_spec_uint ("state-size",
          "State size",
          "Bytes of state the kernel keeps across chunks, zero-filled at "
          "the start and after a flush", 0, MAX_STATE_SIZE, 0, flags)));
  /**
   * PlanCustom:check:
   *
   * Check mode, for developing a C kernel: each call gets copies of its
   * inputs in read-only pages (a write into one is caught and reported)
   * and its output between canary bytes checked after the call, so that
   * writes outside the kernel's buffers are an error naming the kernel
   * rather than memory corrupted or a crash later. Costs a copy of every
   * buffer per call. The environment variable PLAN_CUSTOM_CHECK=1 turns
   * it on for every plancustom.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_CHECK,
      g_param_spec_boolean ("check", "Check the kernel",
          "Give the kernel copies of its buffers (inputs read-only, the "
          "output between canaries) and check them after each call: slower, "
          "for developing a kernel (PLAN_CUSTOM_CHECK=1 turns it on "
          "everywhere)", FALSE, flags));

  plan_kernel_element_class_add_pad_templates (kernel_class, TRUE);
  gst_element_class_set_static_metadata (element_class, "Array custom kernel",
      "Filter/Converter/Array",
      "Runs a user kernel (a C function from a library or the application, "
      "or CUDA source) on chunks of one or more arrays",
      PLAN_CONTACT);
  gst_element_class_add_static_metadata (element_class,
      GST_ELEMENT_METADATA_DOC_URI, PLAN_DOC_URI "/plancustom.md");
  gst_type_mark_as_plugin_api (PLAN_TYPE_CUSTOM_MODE, 0);
}

static void
plan_custom_init (PlanCustom * self)
{
  self->block_size = DEFAULT_BLOCK_SIZE;
  self->mode = DEFAULT_MODE;
  self->boundary = DEFAULT_BOUNDARY;
}
