/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-planstencil
 * @title: planstencil
 * @short_description: computes an expression over a window around each
 *   element of an array stream
 *
 * planstencil computes, for every element of its input, an expression of
 * the elements in a window around it. The window is drawn as a picture
 * (see #PlanWindow): `"x y _"` is three cells wide, x the left neighbour,
 * y the element itself; `"_ n _; w c e; _ s _"` is the 5-point cross of a
 * 2-D Laplacian. A one-row window runs along the last axis; a window of
 * several rows covers the last two axes; a window of several planes,
 * drawn as 2-D pictures separated by `|`, covers the last three (a volume
 * `(z, y, x)` streamed plane by plane). Cells outside the array are made
 * by the #PlanStencil:boundary rule, with scipy.ndimage's names and
 * meanings, or with `valid` the output only covers the places where the
 * window fits and shrinks accordingly.
 *
 * The input arrives in chunks of rows of any size; the element keeps the
 * rows the next chunk's window still needs, so its output lags by the
 * window's half height and is exactly what one computation on the whole
 * array gives. The expression runs on shifted views of the rows, with no
 * test at the edges: on 1-D and 2-D inputs straight from the input buffer,
 * with only the ends of each row padded apart, otherwise on a padded copy
 * of each row; large chunks are split across the element's worker
 * threads.
 *
 * With #PlanStencil:iterations N the window is applied N times, each time
 * to the output of the time before, as N elements in a row would (the
 * same bytes), each chunk going through the N applications while it is in
 * the cache; the halo along the streaming axis is N times the window's.
 *
 * `boundary=wrap` with a window of several rows (or a 1-D input) needs the
 * last rows of the stream before its first output: the element asks
 * upstream for them with the #PLAN_QUERY_READ_ROWS query, which planfilesrc
 * answers.
 *
 * Behind `planfilesrc shard=mpi`, in a job started by `mpirun`, each rank
 * computes the outputs of its share of the rows: it sends its first rows
 * to the rank before it as soon as it has them, and at the end of its
 * rows appends the first rows of the rank after it (with `boundary=wrap`
 * the last rank's is rank 0), so that the ranks' outputs in rank order
 * are the single-process output; only the global ends are padded. Each
 * rank needs at least twice the window's half height of rows.
 *
 * On a device (`target=cuda`, or `target=auto` with the input in device
 * memory, and the output going to device memory), each chunk is computed
 * by a kernel on the element's stream, generated from the expression
 * (#PlanStencilKernel), and the halo rows stay in device memory between
 * chunks: nothing goes through the host and the host does not wait.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 planfilesrc location=signal.npy ! \
 *     planstencil window="x y _" expr="x + y" ! planfilesink location=out.npy
 * gst-launch-1.0 planfilesrc location=img.npy ! \
 *     planstencil window="_ n _; w c e; _ s _" expr="n + s + e + w - 4*c" \
 *     boundary=nearest ! planfilesink location=lap.npy
 * gst-launch-1.0 planfilesrc location=u0.npy ! \
 *     planstencil window="_ n _; w c e; _ s _" expr="0.2*(c + w + e + s + n)" \
 *     boundary=nearest iterations=8 ! planfilesink location=u8.npy
 * gst-launch-1.0 planfilesrc location=volume.npy ! \
 *     planstencil window="_ _ _; _ b _; _ _ _ | _ n _; w c e; _ s _ | _ _ _; _ f _; _ _ _" \
 *     expr="b + f + n + s + e + w - 6*c" boundary=reflect ! \
 *     planfilesink location=lap.npy
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planstencil.h"
#include <libplan/planhaloexchange.h>
#include <libplan/plankernelhalo.h>

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (plan_stencil_debug);
#define GST_CAT_DEFAULT plan_stencil_debug

#define DEFAULT_WINDOW NULL
#define DEFAULT_EXPR NULL
#define DEFAULT_BOUNDARY PLAN_BOUNDARY_CONSTANT
#define DEFAULT_CVAL 0.0
#define DEFAULT_ITERATIONS 1

enum
{
  PROP_0,
  PROP_WINDOW,
  PROP_EXPR,
  PROP_BOUNDARY,
  PROP_CVAL,
  PROP_ITERATIONS,
};

struct _PlanStencil
{
  PlanKernelElement parent;

  /* protected by OBJECT_LOCK */
  PlanWindow *window;           /* window_text parsed, or NULL */
  gchar *window_text;           /* as set */
  GError *window_rejected;      /* why window_text cannot work, or NULL */
  gchar *expr;
  GError *expr_rejected;        /* why expr cannot work, or NULL */
  PlanBoundary boundary;
  gdouble cval;
  guint iterations;

  /* streaming thread only */
  PlanWindow *active_window;
  PlanStencilKernel *kernel;    /* the stencil, on the host or the device */
  gboolean on_device;           /* this stream's rows went to launch() */
  GstFlowReturn push_flow;      /* of the last device output pushed */

  /* streaming thread only: the input is one rank's share of a sharded
   * stream (plan_stencil_shard()), whose halo rows the neighbouring
   * shares give */
  gboolean sharded;
  PlanHaloExchange *exchange;
  gint64 rows_delta;            /* output rows less input rows */
};

G_DEFINE_TYPE (PlanStencil, plan_stencil, PLAN_TYPE_KERNEL_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (planstencil, "planstencil",
    GST_RANK_NONE, PLAN_TYPE_STENCIL,
    GST_DEBUG_CATEGORY_INIT (plan_stencil_debug, "planstencil", 0,
        "Windowed array expressions"));

/* A window or an expression that cannot work is kept as given (reading it
 * back returns it, so that an editor keeps what the user typed) and
 * remembered: plan_stencil_check_settings() posts it when the pipeline
 * starts. */
static void
plan_stencil_set_window (PlanStencil * self, const gchar * picture)
{
  PlanWindow *window = NULL;
  GError *err = NULL;

  if (picture != NULL && (window = plan_window_parse (picture, &err)) == NULL) {
    /* The message begins "window:" and shows the picture. */
    g_prefix_error (&err, "planstencil %s, ", GST_OBJECT_NAME (self));
  }

  plan_kernel_element_keep_setting (PLAN_KERNEL_ELEMENT (self), "window",
      &self->window_text, picture, &self->window_rejected, err);
  GST_OBJECT_LOCK (self);
  g_clear_pointer (&self->window, plan_window_unref);
  self->window = window;
  GST_OBJECT_UNLOCK (self);
}

static void
plan_stencil_set_expr (PlanStencil * self, const gchar * expr)
{
  GError *err = NULL;

  if (expr != NULL && !plan_expr_check (expr, &err)) {
    /* The message shows the expression, with a caret. */
    g_prefix_error (&err, "planstencil %s, expr: ", GST_OBJECT_NAME (self));
  }
  plan_kernel_element_keep_setting (PLAN_KERNEL_ELEMENT (self), "expr",
      &self->expr, expr, &self->expr_rejected, err);
}

static void
plan_stencil_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  PlanStencil *self = PLAN_STENCIL (object);

  if (plan_kernel_element_refuse_live_set (PLAN_KERNEL_ELEMENT (self), pspec)
      || plan_element_refuse_out_of_range (GST_ELEMENT (self), pspec, value))
    return;
  switch (prop_id) {
    case PROP_WINDOW:
      plan_stencil_set_window (self, g_value_get_string (value));
      break;
    case PROP_EXPR:
      plan_stencil_set_expr (self, g_value_get_string (value));
      break;
    case PROP_BOUNDARY:
      GST_OBJECT_LOCK (self);
      self->boundary = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_CVAL:
      GST_OBJECT_LOCK (self);
      self->cval = g_value_get_double (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_ITERATIONS:
      /* A count out of range is kept as given, so that reading it back
       * returns it, and fails the start (plan_element_check_ranges()). */
      GST_OBJECT_LOCK (self);
      self->iterations = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
plan_stencil_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  PlanStencil *self = PLAN_STENCIL (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_WINDOW:
      g_value_set_string (value, self->window_text);
      break;
    case PROP_EXPR:
      g_value_set_string (value, self->expr);
      break;
    case PROP_BOUNDARY:
      g_value_set_enum (value, self->boundary);
      break;
    case PROP_CVAL:
      g_value_set_double (value, self->cval);
      break;
    case PROP_ITERATIONS:
      g_value_set_uint (value, self->iterations);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
plan_stencil_clear_compiled (PlanStencil * self)
{
  g_clear_pointer (&self->kernel, plan_stencil_kernel_free);
  g_clear_pointer (&self->active_window, plan_window_unref);
  self->on_device = FALSE;
}

/* Whether @error is the expression's typing (an unknown name, a wrong
 * dtype): its message shows expr with a caret. Its syntax was checked
 * when it was set. */
static gboolean
is_expr_error (GError ** error)
{
  return error != NULL && *error != NULL
      && g_error_matches (*error, PLAN_ERROR, PLAN_ERROR_TYPE);
}

/* Prefixes @error's message with the element and the window picture, and
 * says when it is about expr. */
static void
prefix_window_error (PlanStencil * self, PlanWindow * window, GError ** error)
{
  gchar *picture = plan_window_to_string (window);

  g_prefix_error (error, "planstencil %s, window \"%s\"%s: ",
      GST_OBJECT_NAME (self), picture, is_expr_error (error) ? ", expr" : "");
  g_free (picture);
}

/* Copies the properties, reporting the first one missing or refused. */
static gboolean
plan_stencil_get_config (PlanStencil * self, PlanWindow ** window,
    gchar ** expr, PlanBoundary * boundary, gdouble * cval,
    guint * iterations, GError ** error)
{
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  if (self->window_rejected) {
    g_propagate_error (error, g_error_copy (self->window_rejected));
    ok = FALSE;
  } else if (self->expr_rejected) {
    g_propagate_error (error, g_error_copy (self->expr_rejected));
    ok = FALSE;
  } else if (self->window == NULL || self->expr == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "planstencil %s needs a window and an expression, for example "
        "window=\"x y z\" expr=\"(x + y + z) / 3\"", GST_OBJECT_NAME (self));
    ok = FALSE;
  }
  *window = ok ? plan_window_ref (self->window) : NULL;
  *expr = ok ? g_strdup (self->expr) : NULL;
  *boundary = self->boundary;
  *cval = self->cval;
  *iterations = self->iterations;
  GST_OBJECT_UNLOCK (self);
  return ok;
}

/* A window or expression that cannot work is an error at start, before
 * any data (a missing one when the input's caps arrive: an application
 * may set it once the element has started). */
static gboolean
plan_stencil_check_settings (PlanKernelElement * kernel, GError ** error)
{
  PlanStencil *self = PLAN_STENCIL (kernel);
  GError *why;

  /* iterations out of 1 to PLAN_STENCIL_MAX_ITERATIONS has failed the
   * start before (plan_element_check_ranges()). */
  GST_OBJECT_LOCK (self);
  why = self->window_rejected ? self->window_rejected : self->expr_rejected;
  if (why)
    g_propagate_error (error, g_error_copy (why));
  GST_OBJECT_UNLOCK (self);
  return why == NULL;
}

/* The windows of the inputs after the first (request pads): a pad's
 * window property, or its centre named by its variable (or `in<N>`).
 * Fills @windows[1 ..]; FALSE with @error set naming the pad. */
static gboolean
plan_stencil_input_windows (PlanStencil * self, guint n_inputs,
    PlanWindow ** windows, GError ** error)
{
  PlanKernelElement *kernel = PLAN_KERNEL_ELEMENT (self);
  guint i;

  if (plan_kernel_element_get_input_window (kernel, 0) != NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "planstencil %s: the window of %s is the element's window "
        "property; a pad's window is for the request pads sink_N",
        GST_OBJECT_NAME (self), plan_kernel_element_get_input_name (kernel,
            0));
    return FALSE;
  }
  for (i = 1; i < n_inputs; i++) {
    const gchar *picture = plan_kernel_element_get_input_window (kernel, i);
    const gchar *variable = plan_kernel_element_get_input_variable (kernel,
        i);
    gchar *centre = NULL;

    if (picture == NULL)
      picture = centre = variable ? g_strdup (variable) :
          g_strdup_printf ("in%u", i);
    windows[i] = plan_window_parse (picture, error);
    if (windows[i] == NULL) {
      g_prefix_error (error, "planstencil %s, input %s (%s \"%s\"): ",
          GST_OBJECT_NAME (self), plan_kernel_element_get_input_name (kernel,
              i), centre ? "variable" : "window", picture);
      g_free (centre);
      return FALSE;
    }
    g_free (centre);
  }
  return TRUE;
}

/* Prefixes @error with the element, the inputs and their windows. */
static void
prefix_inputs_error (PlanStencil * self, guint n_inputs,
    PlanWindow ** windows, GError ** error)
{
  PlanKernelElement *kernel = PLAN_KERNEL_ELEMENT (self);
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < n_inputs; i++) {
    gchar *picture = plan_window_to_string (windows[i]);

    g_string_append_printf (s, "%sinput %u is %s, window \"%s\"",
        i ? "; " : "", i, plan_kernel_element_get_input_name (kernel, i),
        picture);
    g_free (picture);
  }
  g_prefix_error (error, "planstencil %s (%s)%s: ", GST_OBJECT_NAME (self),
      s->str, is_expr_error (error) ? ", expr" : "");
  g_string_free (s, TRUE);
}

/* Several inputs: each with its window, one output. */
static gboolean
plan_stencil_setup_inputs (PlanStencil * self, guint n_inputs,
    const PlanArrayInfo * inputs, const gchar * expr, PlanBoundary boundary,
    gdouble cval, guint iterations, PlanArrayInfo * output, GError ** error)
{
  PlanWindow **windows = g_new0 (PlanWindow *, n_inputs);
  gboolean ok = FALSE;
  guint i;

  windows[0] = plan_window_ref (self->active_window);
  if (iterations != 1) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "planstencil %s, iterations=%u with %u inputs: iterations apply the "
        "window to the stencil's own output, which is one array; a "
        "stencil of several inputs is applied once (chain elements for "
        "more steps)", GST_OBJECT_NAME (self), iterations, n_inputs);
    goto done;
  }
  if (!plan_stencil_input_windows (self, n_inputs, windows, error))
    goto done;
  self->kernel = plan_stencil_kernel_new_inputs (n_inputs,
      (const PlanWindow * const *) windows, inputs, expr, boundary, cval,
      error);
  if (self->kernel == NULL) {
    prefix_inputs_error (self, n_inputs, windows, error);
    goto done;
  }
  plan_stencil_kernel_get_output_info (self->kernel, output);
  ok = TRUE;

done:
  for (i = 0; i < n_inputs; i++)
    if (windows[i])
      plan_window_unref (windows[i]);
  g_free (windows);
  return ok;
}

static gboolean
plan_stencil_setup (PlanKernelElement * kernel, guint n_inputs,
    const PlanArrayInfo * inputs, PlanArrayInfo * output, GError ** error)
{
  PlanStencil *self = PLAN_STENCIL (kernel);
  PlanArrayInfo input;
  PlanBoundary boundary;
  PlanWindow *window;
  gchar *expr;
  gdouble cval;
  guint iterations;

  plan_stencil_clear_compiled (self);
  if (!plan_stencil_check_settings (kernel, error))
    return FALSE;
  if (!plan_stencil_get_config (self, &window, &expr, &boundary, &cval,
          &iterations, error))
    return FALSE;
  self->active_window = window;

  if (n_inputs > 1) {
    PlanArrayInfo *shares = g_memdup2 (inputs, n_inputs * sizeof (*inputs));
    gboolean ok;
    guint i;

    /* A share's rows are not the whole stream's (as below). */
    for (i = 0; self->sharded && i < n_inputs; i++)
      shares[i].shape[0] = -1;
    ok = plan_stencil_setup_inputs (self, n_inputs, shares, expr, boundary,
        cval, iterations, output, error);
    g_free (shares);
    g_free (expr);
    if (!ok)
      plan_stencil_clear_compiled (self);
    else if (self->sharded && inputs[0].shape[0] >= 0)
      output->shape[0] = MAX (inputs[0].shape[0] + self->rows_delta, 0);
    return ok;
  }

  input = inputs[0];
  /* A share's rows are not the whole stream's: with boundary=valid, a
   * share shorter than the window is no error. */
  if (self->sharded)
    input.shape[0] = -1;
  self->kernel = plan_stencil_kernel_new_iterated (window, expr, &input,
      boundary, cval, iterations, error);
  g_free (expr);
  if (self->kernel == NULL)
    goto failed;
  plan_stencil_kernel_get_output_info (self->kernel, output);
  if (self->sharded && inputs[0].shape[0] >= 0)
    output->shape[0] = MAX (inputs[0].shape[0] + self->rows_delta, 0);
  if (gst_debug_category_get_threshold (GST_CAT_DEFAULT) >= GST_LEVEL_INFO) {
    gchar *picture = plan_window_to_string (window);

    GST_INFO_OBJECT (self, "window %s, %s boundary, %u iteration%s, %u rows "
        "lost", picture, plan_boundary_to_string (boundary), iterations,
        iterations == 1 ? "" : "s",
        (guint) plan_stencil_kernel_get_rows_lost (self->kernel));
    g_free (picture);
  }
  return TRUE;

  /* ERRORS */
failed:
  {
    prefix_window_error (self, window, error);
    plan_stencil_clear_compiled (self);
    return FALSE;
  }
}

/* Sharded across MPI ranks ------------------------------------------- */

/* The caps of an input: sink's, or, before they came, those of another
 * input (the inputs of a stencil have one shape). NULL before any. */
static GstCaps *
plan_stencil_input_caps (PlanStencil * self)
{
  GstCaps *caps = NULL;
  GList *pads = NULL, *l;

  GST_OBJECT_LOCK (self);
  for (l = GST_ELEMENT (self)->sinkpads; l; l = l->next)
    pads = g_list_prepend (pads, gst_object_ref (l->data));
  GST_OBJECT_UNLOCK (self);
  for (l = pads; l; l = l->next) {
    GstCaps *c = gst_pad_get_current_caps (l->data);

    if (c && (caps == NULL || g_strcmp0 (GST_OBJECT_NAME (l->data),
                "sink") == 0)) {
      gst_clear_caps (&caps);
      caps = c;
    } else {
      gst_clear_caps (&c);
    }
  }
  g_list_free_full (pads, gst_object_unref);
  return caps;
}

/* The window's halo along the first axis for the input the pad's caps
 * describe, times the iterations. */
static gboolean
plan_stencil_first_axis_halo (PlanStencil * self, PlanWindow * window,
    guint iterations, guint * h, GError ** error)
{
  guint halo[PLAN_ARRAY_MAX_DIMS];
  PlanArrayInfo info;
  GstCaps *caps;
  gboolean ok;

  caps = plan_stencil_input_caps (self);
  if (caps == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the share of rows came before the input's caps");
    return FALSE;
  }
  ok = plan_array_info_from_caps (&info, caps, error)
      && plan_halo_size_for_window (window, &info, halo, error);
  gst_caps_unref (caps);
  if (ok)
    *h = halo[0] * iterations;
  return ok;
}

/* The most rows along the first axis the windows of the request pads
 * reach (their pads' window properties; a centre reaches none). A window
 * that cannot work counts nothing here: setup() reports it. */
static guint
plan_stencil_request_pads_halo (PlanStencil * self)
{
  guint halo[PLAN_ARRAY_MAX_DIMS], h = 0;
  PlanArrayInfo info;
  GstCaps *caps;
  GList *pads = NULL, *l;

  /* The inputs have one shape: any one's caps lay the windows. */
  caps = plan_stencil_input_caps (self);
  if (caps == NULL || !plan_array_info_from_caps (&info, caps, NULL)) {
    gst_clear_caps (&caps);
    return 0;
  }
  gst_caps_unref (caps);
  GST_OBJECT_LOCK (self);
  for (l = GST_ELEMENT (self)->sinkpads; l; l = l->next)
    if (g_strcmp0 (GST_OBJECT_NAME (l->data), "sink") != 0)
      pads = g_list_prepend (pads, gst_object_ref (l->data));
  GST_OBJECT_UNLOCK (self);
  for (l = pads; l; l = l->next) {
    gchar *picture = NULL;
    PlanWindow *window;

    g_object_get (l->data, "window", &picture, NULL);
    window = picture ? plan_window_parse (picture, NULL) : NULL;
    if (window && plan_halo_size_for_window (window, &info, halo, NULL))
      h = MAX (h, halo[0]);
    if (window)
      plan_window_unref (window);
    g_free (picture);
  }
  g_list_free_full (pads, gst_object_unref);
  return h;
}

/* What reaches the halo rows, for the exchange's errors. */
static gchar *
plan_stencil_reach (PlanStencil * self, PlanWindow * window)
{
  gchar *picture = plan_window_to_string (window);
  gchar *times, *reach;
  guint iterations;

  GST_OBJECT_LOCK (self);
  iterations = self->iterations;
  GST_OBJECT_UNLOCK (self);
  times = iterations > 1 ? g_strdup_printf (" applied %u times",
      iterations) : g_strdup ("");
  reach = g_strdup_printf ("the window \"%s\"%s", picture, times);
  g_free (times);
  g_free (picture);
  return reach;
}

/* The input is rank k's share of a sharded stream: the neighbouring
 * ranks trade the halo rows of the shares' ends (PlanHaloExchange), so
 * that every output row is computed by one rank, from the rows the whole
 * array has around it; only the global ends have boundary rows. */
static gboolean
plan_stencil_shard (PlanKernelElement * kernel, const PlanShardInfo * input,
    PlanShardInfo * output, GError ** error)
{
  PlanStencil *self = PLAN_STENCIL (kernel);
  PlanBoundary boundary;
  PlanWindow *window;
  gchar *expr, *reach;
  gdouble cval;
  guint h = 0, iterations;

  self->sharded = FALSE;
  g_clear_pointer (&self->exchange, plan_halo_exchange_free);
  *output = *input;
  if (!plan_stencil_get_config (self, &window, &expr, &boundary, &cval,
          &iterations, error))
    return FALSE;
  g_free (expr);
  if (!plan_stencil_first_axis_halo (self, window, iterations, &h, error)) {
    plan_window_unref (window);
    return FALSE;
  }
  h = MAX (h, plan_stencil_request_pads_halo (self));

  if (input->replicated) {
    /* Every rank has the whole stream: computed whole on each. */
    if (boundary == PLAN_BOUNDARY_VALID) {
      output->total = MAX ((gint64) input->total - 2 * (gint64) h, 0);
      output->n_rows = output->total;
    }
    GST_INFO_OBJECT (self, "the input is the same on every rank: computed "
        "whole on each");
    plan_window_unref (window);
    return TRUE;
  }

  reach = plan_stencil_reach (self, window);
  plan_window_unref (window);
  self->exchange = plan_halo_exchange_new (GST_OBJECT_NAME (self), input, h,
      boundary, reach);
  g_free (reach);
  if (!plan_halo_exchange_check_rows (self->exchange, input->n_rows, error)) {
    g_clear_pointer (&self->exchange, plan_halo_exchange_free);
    return FALSE;
  }
  self->rows_delta = plan_halo_exchange_get_rows_delta (self->exchange);
  self->sharded = TRUE;
  plan_halo_exchange_get_output (self->exchange, output);
  return TRUE;
}

/* Before the rows of each chunk go into the halo: the first time in a
 * stream, the exchange tells the kernel which rows are context. */
static void
plan_stencil_shard_prepare (PlanStencil * self)
{
  PlanKernelElement *kernel = PLAN_KERNEL_ELEMENT (self);
  guint n = plan_kernel_element_get_n_inputs (kernel), i;
  gsize *row_sizes = g_newa (gsize, MAX (n, 1));

  for (i = 0; i < n; i++)
    row_sizes[i] = plan_array_info_get_row_size
        (plan_kernel_element_get_input_info (kernel, i));
  plan_halo_exchange_start (self->exchange, self->kernel, n, row_sizes);
}

/* Valid mode has no output for the halo's rows at either end of the rows
 * it computes on; the other modes an output row per input row. */
static void
plan_stencil_output_range (PlanKernelElement * kernel, guint64 first,
    gint64 end, guint64 * out_first, gint64 * out_end)
{
  PlanStencil *self = PLAN_STENCIL (kernel);

  *out_first = first;
  /* Before setup the rows lost are not known yet. */
  if (self->kernel == NULL) {
    *out_end = -1;
    return;
  }
  if (self->sharded) {
    /* A share: the rows received and those of context too. */
    *out_end = end < 0 ? -1 : MAX ((gint64) first, end + self->rows_delta);
    return;
  }
  *out_end = end < 0 ? -1 : MAX ((gint64) first, end -
      (gint64) plan_stencil_kernel_get_rows_lost (self->kernel));
}

/* Computes the outputs of @blocks (consecutive rows) into one buffer and
 * pushes it. */
static GstFlowReturn
plan_stencil_push_blocks (PlanStencil * self, const PlanHaloBlock * blocks,
    guint n_blocks)
{
  PlanKernelElement *kernel = PLAN_KERNEL_ELEMENT (self);
  gsize n_rows = 0;
  GstBuffer *out;
  GstMapInfo map;
  GstFlowReturn ret;
  guint i;

  for (i = 0; i < n_blocks; i++)
    n_rows += blocks[i].n_rows;
  if (n_rows == 0)
    return GST_FLOW_OK;

  ret = plan_kernel_element_alloc_output (kernel, n_rows, &out);
  if (ret != GST_FLOW_OK)
    return ret;
  if (!gst_buffer_map (out, &map, GST_MAP_WRITE))
    goto map_failed;
  plan_stencil_kernel_set_n_threads (self->kernel,
      plan_kernel_element_get_n_threads (kernel));
  plan_stencil_kernel_eval (self->kernel, blocks, n_blocks, map.data);
  gst_buffer_unmap (out, &map);

  GST_LOG_OBJECT (self, "output rows %" G_GUINT64_FORMAT " + %"
      G_GSIZE_FORMAT, blocks[0].first_row, n_rows);
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

/* What plan_stencil_end_rows() passes plan_kernel_element_take_end_rows(). */
typedef struct
{
  PlanStencil *self;
  PlanStream *stream;
} EndRows;

static gboolean
set_end_rows (guint index, guint64 total, gconstpointer data, gsize n_rows,
    gpointer user_data, GError ** error)
{
  EndRows *e = user_data;

  GST_DEBUG_OBJECT (e->self, "the last %" G_GSIZE_FORMAT " of %"
      G_GUINT64_FORMAT " rows of input %u for boundary=wrap", n_rows, total,
      index);
  if (e->stream)
    return plan_stencil_kernel_set_input_end_rows (e->self->kernel, index,
        e->stream, total, data, n_rows, error);
  return plan_stencil_kernel_host_set_input_end_rows (e->self->kernel, index,
      total, data, n_rows, error);
}

/* Gives the stencil the stream's last rows when boundary=wrap needs them
 * for its first output: read out of order from upstream; on a device
 * (@stream) uploaded once. */
static gboolean
plan_stencil_end_rows (PlanStencil * self, PlanStream * stream,
    gsize n_rows, GError ** error)
{
  guint n_inputs = plan_stencil_kernel_get_n_inputs (self->kernel), i;
  EndRows e = { self, stream };
  gsize n_end;

  if (stream ? !plan_stencil_kernel_needs_end_rows (self->kernel, n_rows,
          &n_end) : !plan_stencil_kernel_host_needs_end_rows (self->kernel,
          n_rows, &n_end))
    return TRUE;
  /* Each input's last rows, from its own upstream. */
  for (i = 0; i < n_inputs; i++)
    if (!plan_kernel_element_take_end_rows (PLAN_KERNEL_ELEMENT (self), i,
            n_end, set_end_rows, &e, error))
      return FALSE;
  return TRUE;
}

static GstFlowReturn
plan_stencil_process (PlanKernelElement * kernel, const PlanChunk * chunk)
{
  PlanStencil *self = PLAN_STENCIL (kernel);
  PlanHaloBlock blocks[PLAN_HALO_MAX_BLOCKS];
  GError *err = NULL;
  guint n_blocks;

  if (self->on_device)
    goto mixed;
  plan_stencil_kernel_set_n_threads (self->kernel,
      plan_kernel_element_get_n_threads (kernel));
  if (self->sharded) {
    /* The neighbours give what lies beyond the share's ends: no rows are
     * read out of order from upstream. */
    plan_stencil_shard_prepare (self);
    if (!plan_halo_exchange_send_head (self->exchange, chunk->data,
            chunk->n_rows, &err))
      goto failed;
  } else if (!plan_stencil_end_rows (self, NULL, chunk->n_rows, &err))
    goto failed;
  /* The blocks may read the chunk in place: they are computed before this
   * returns and the base class releases the chunk. */
  if (!plan_stencil_kernel_push_inputs (self->kernel, chunk->data,
          chunk->n_rows, blocks, &n_blocks, &err))
    goto failed;
  return plan_stencil_push_blocks (self, blocks, n_blocks);

  /* ERRORS */
failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", err->message), (NULL));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
mixed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("planstencil %s computed the "
            "first rows of the stream on the device and cannot go on on the "
            "host.", GST_OBJECT_NAME (self)), (NULL));
    return GST_FLOW_ERROR;
  }
}

/* Queues the output rows the device kernel computes, into a buffer of
 * the element's device pool, and pushes it. */
static gboolean
plan_stencil_push_device (PlanStencil * self, PlanStream * stream,
    gsize n_out, gboolean last, const gconstpointer * rows, gsize n_rows,
    GError ** error)
{
  PlanKernelElement *kernel = PLAN_KERNEL_ELEMENT (self);
  GstBuffer *out = NULL;
  gpointer dptr = NULL;
  gboolean ok;

  if (n_out > 0 && !plan_kernel_element_alloc_device_output (kernel, n_out,
          &out, &dptr, error))
    return FALSE;
  if (last)
    ok = plan_stencil_kernel_launch_finish (self->kernel, stream, dptr, error);
  else
    ok = plan_stencil_kernel_launch_inputs (self->kernel, stream, rows,
        n_rows, dptr, error);
  if (ok && out)
    ok = plan_buffer_record_ready (out, stream, error);
  if (!ok) {
    gst_clear_buffer (&out);
    return FALSE;
  }
  self->push_flow = GST_FLOW_OK;
  if (out) {
    GST_LOG_OBJECT (self, "device output of %" G_GSIZE_FORMAT " rows",
        n_out);
    /* From launch(), the base class returns the push's flow itself. */
    self->push_flow = plan_kernel_element_push_output (kernel, out);
  }
  return TRUE;
}

/* On a device: the stencil's kernel on the element's stream, its halo
 * rows kept in device memory; the host does not wait. */
static gboolean
plan_stencil_launch (PlanKernelElement * kernel, const PlanChunk * chunk,
    gpointer output, PlanStream * stream, GError ** error)
{
  PlanStencil *self = PLAN_STENCIL (kernel);

  if (self->sharded) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "a stencil sharded across ranks runs on the host");
    return FALSE;
  }
  /* Until the device holds rows of the stream, an error saying the
   * device cannot (no NVRTC, no out-of-order source for wrap) falls back
   * to the host, which reports what it cannot do itself. */
  if (!plan_stencil_kernel_prepare (self->kernel, plan_stream_get_device
          (stream), error))
    goto failed;
  plan_stencil_kernel_set_n_threads (self->kernel,
      plan_kernel_element_get_n_threads (kernel));
  if (!plan_stencil_end_rows (self, stream, chunk->n_rows, error))
    goto failed;
  if (!self->on_device)
    GST_INFO_OBJECT (self, "computing on %s", plan_device_get_name
        (plan_stream_get_device (stream)));
  self->on_device = TRUE;
  return plan_stencil_push_device (self, stream,
      plan_stencil_kernel_push_rows (self->kernel, chunk->n_rows), FALSE,
      chunk->data, chunk->n_rows, error);

failed:
  if (self->on_device && g_error_matches (*error, PLAN_ERROR,
          PLAN_ERROR_UNSUPPORTED))
    (*error)->code = PLAN_ERROR_DEVICE;
  return FALSE;
}

/* The end of a share: the next rank's first rows go after this one's,
 * so that the last outputs have what follows them. */
static GstFlowReturn
plan_stencil_finish_share (PlanStencil * self, guint64 n_rows)
{
  PlanHaloBlock blocks[PLAN_HALO_MAX_BLOCKS];
  GError *err = NULL;
  guint n_blocks;
  gconstpointer *rows;
  gsize n_tail;

  plan_stencil_shard_prepare (self);
  if (!plan_halo_exchange_check_head (self->exchange, n_rows, &err))
    goto too_few_rows;
  rows = g_newa (gconstpointer,
      MAX (plan_stencil_kernel_get_n_inputs (self->kernel), 1));
  if (!plan_halo_exchange_recv_tail (self->exchange, rows, &n_tail, &err))
    goto no_tail;
  if (n_tail == 0)
    return GST_FLOW_OK;
  if (!plan_stencil_kernel_push_inputs (self->kernel, rows, n_tail, blocks,
          &n_blocks, &err))
    goto halo_failed;
  return plan_stencil_push_blocks (self, blocks, n_blocks);

  /* ERRORS */
too_few_rows:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("planstencil %s cannot run "
            "sharded: %s", GST_OBJECT_NAME (self), err->message), (NULL));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
no_tail:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("planstencil %s %s",
            GST_OBJECT_NAME (self), err->message), (NULL));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
halo_failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", err->message), (NULL));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
}

static GstFlowReturn
plan_stencil_finish (PlanKernelElement * kernel, guint64 n_rows)
{
  PlanStencil *self = PLAN_STENCIL (kernel);
  PlanHaloBlock blocks[PLAN_HALO_MAX_BLOCKS];
  PlanStream *stream;
  GError *err = NULL;
  guint n_blocks;
  gsize n_out;

  if (self->kernel == NULL)
    return GST_FLOW_OK;
  if (self->on_device) {
    stream = plan_kernel_element_get_stream (kernel);
    if (!plan_stencil_kernel_finish_rows (self->kernel, &n_out, &err))
      goto finish_failed;
    if (stream == NULL) {
      g_set_error (&err, PLAN_ERROR, PLAN_ERROR_DEVICE,
          "the element has no device stream for its last rows");
      goto device_failed;
    }
    if (!plan_stencil_push_device (self, stream, n_out, TRUE, NULL, 0, &err))
      goto device_failed;
    return self->push_flow;
  }
  if (self->sharded) {
    GstFlowReturn ret = plan_stencil_finish_share (self, n_rows);

    if (ret != GST_FLOW_OK)
      return ret;
  }
  /* With several iterations the last rows come in parts. */
  do {
    GstFlowReturn ret;

    if (!plan_stencil_kernel_finish (self->kernel, blocks, &n_blocks, &err))
      goto finish_failed;
    ret = plan_stencil_push_blocks (self, blocks, n_blocks);
    if (ret != GST_FLOW_OK)
      return ret;
  } while (n_blocks > 0);
  return GST_FLOW_OK;

  /* ERRORS */
finish_failed:
  {
    prefix_window_error (self, self->active_window, &err);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", err->message), (NULL));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
device_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not run the stencil on the device."), ("%s", err->message));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
}

static void
plan_stencil_reset (PlanKernelElement * kernel)
{
  PlanStencil *self = PLAN_STENCIL (kernel);

  if (self->kernel)
    plan_stencil_kernel_reset (self->kernel);
  self->on_device = FALSE;
  /* A new stream: the halo learns its context rows again. */
  if (self->exchange)
    plan_halo_exchange_reset (self->exchange);
}

static gboolean
plan_stencil_start (GstAggregator * agg)
{
  PlanStencil *self = PLAN_STENCIL (agg);

  self->sharded = FALSE;
  g_clear_pointer (&self->exchange, plan_halo_exchange_free);
  return GST_AGGREGATOR_CLASS (plan_stencil_parent_class)->start (agg);
}

static void
plan_stencil_finalize (GObject * object)
{
  PlanStencil *self = PLAN_STENCIL (object);

  plan_stencil_clear_compiled (self);
  g_clear_pointer (&self->exchange, plan_halo_exchange_free);
  g_clear_pointer (&self->window, plan_window_unref);
  g_free (self->window_text);
  g_clear_error (&self->window_rejected);
  g_free (self->expr);
  g_clear_error (&self->expr_rejected);

  G_OBJECT_CLASS (plan_stencil_parent_class)->finalize (object);
}

static void
plan_stencil_class_init (PlanStencilClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  PlanKernelElementClass *kernel_class = PLAN_KERNEL_ELEMENT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);

  gobject_class->set_property = plan_stencil_set_property;
  gobject_class->get_property = plan_stencil_get_property;
  gobject_class->finalize = plan_stencil_finalize;

  kernel_class->check_settings =
      GST_DEBUG_FUNCPTR (plan_stencil_check_settings);
  kernel_class->setup = GST_DEBUG_FUNCPTR (plan_stencil_setup);
  kernel_class->process = GST_DEBUG_FUNCPTR (plan_stencil_process);
  kernel_class->finish = GST_DEBUG_FUNCPTR (plan_stencil_finish);
  kernel_class->reset = GST_DEBUG_FUNCPTR (plan_stencil_reset);
  kernel_class->output_range = GST_DEBUG_FUNCPTR (plan_stencil_output_range);
  kernel_class->launch = GST_DEBUG_FUNCPTR (plan_stencil_launch);
  kernel_class->launch_pushes = TRUE;
  kernel_class->shard = GST_DEBUG_FUNCPTR (plan_stencil_shard);
  agg_class->start = GST_DEBUG_FUNCPTR (plan_stencil_start);
  /* Slices small enough that the output is still in cache when
   * planfilesink copies it, large enough for one core's work rule to keep
   * a Laplacian on one thread while the writer has the other core
   * (docs/planstencil.md). */
  kernel_class->host_slice_bytes = 2 << 20;

  /**
   * PlanStencil:window:
   *
   * The window drawn as a picture: cells separated by blanks, rows by `;`
   * or newlines; each cell a name the expression uses or `_`. Width and
   * height odd; the middle cell is the centre.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_WINDOW,
      g_param_spec_string ("window", "Window",
          "The window as a picture of named cells, rows separated by ';' "
          "or newlines, planes (a window over three axes) by '|', '_' for "
          "a cell not used, the middle cell the centre; for example "
          "\"x y z\" or \"_ n _; w c e; _ s _\"",
          DEFAULT_WINDOW, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * PlanStencil:expr:
   *
   * What to compute for each element, in the names of the window's cells.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_EXPR,
      g_param_spec_string ("expr", "Expression",
          "What to compute for each element, in the window's cell names; "
          "for example \"n + s + e + w - 4*c\". See docs/expressions.md",
          DEFAULT_EXPR, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * PlanStencil:boundary:
   *
   * What cells outside the array hold, as scipy.ndimage's `mode`, or
   * `valid` to compute only where the window fits.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_BOUNDARY,
      g_param_spec_enum ("boundary", "Boundary",
          "What cells outside the array hold: constant (cval), nearest, "
          "reflect, mirror, wrap (scipy.ndimage's modes), or valid (only "
          "where the window fits; the output shrinks)", PLAN_TYPE_BOUNDARY,
          DEFAULT_BOUNDARY, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * PlanStencil:cval:
   *
   * The value of cells outside the array for `boundary=constant`,
   * converted to the input's dtype (integers truncated and clamped, NaN
   * 0). Any double, `inf`, `-inf` and `nan` included, as scipy takes.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_CVAL,
      plan_boundary_param_spec_cval ("cval", "Constant value",
          "The value of cells outside the array with boundary=constant, "
          "converted to the input dtype; any number, inf or nan",
          DEFAULT_CVAL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * PlanStencil:iterations:
   *
   * How many times the window is applied, each time to the output of the
   * time before, with the boundary rule applied each time: the same
   * output as that many planstencil elements in a row, with a halo of
   * that many times the window's along the streaming axis.
   *
   * Since: 0.1
   */
  /* The spec takes any count, so that one that cannot work (0, too many)
   * reaches set_property and fails the start, rather than GLib's range
   * check keeping the old value with a warning. */
  g_object_class_install_property (gobject_class, PROP_ITERATIONS,
      plan_param_spec_checked_range (g_param_spec_uint ("iterations",
              "Iterations", "How many times the window is applied, each "
              "time to the output of the time before (the same as that many "
              "planstencil elements in a row)", 1,
              PLAN_STENCIL_MAX_ITERATIONS, DEFAULT_ITERATIONS,
              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_READY)));

  plan_kernel_element_class_add_pad_templates (kernel_class, FALSE);
  /* More inputs on request pads, each with its window (the pad's window
   * property) or its centre (its variable), the same caps as sink. */
  {
    GstPadTemplate *sink = gst_element_class_get_pad_template (element_class,
        "sink");
    GstCaps *caps = gst_pad_template_get_caps (sink);

    gst_element_class_add_pad_template (element_class,
        gst_pad_template_new_with_gtype ("sink_%u", GST_PAD_SINK,
            GST_PAD_REQUEST, caps, PLAN_TYPE_KERNEL_PAD));
    gst_caps_unref (caps);
  }
  gst_element_class_set_static_metadata (element_class, "Array stencil",
      "Filter/Converter/Array",
      "Computes an expression over a 1-D, 2-D or 3-D window around each "
      "element of an array (and of more arrays on request pads), with "
      "scipy.ndimage's boundary modes", PLAN_CONTACT);
  gst_element_class_add_static_metadata (element_class,
      GST_ELEMENT_METADATA_DOC_URI, PLAN_DOC_URI "/planstencil.md");

  gst_type_mark_as_plugin_api (PLAN_TYPE_BOUNDARY, 0);
}

static void
plan_stencil_init (PlanStencil * self)
{
  self->window = DEFAULT_WINDOW;
  self->expr = DEFAULT_EXPR;
  self->boundary = DEFAULT_BOUNDARY;
  self->cval = DEFAULT_CVAL;
  self->iterations = DEFAULT_ITERATIONS;
}
