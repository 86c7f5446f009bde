/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* A dispatch's bindings checked against the realized graph before
 * anything runs: every input and output named and bound once, the
 * sources' dtypes and shapes (a file's read from its header) carried
 * through the nodes (expressions compiled as planmap compiles them), the
 * outputs able to take the results, and no output overlapping a source
 * or another output in memory. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planwork-private.h"

#include <string.h>

#define GST_CAT_DEFAULT plan_graph_debug

/* ---------------------------------------------------------------------
 * Dispatch: bindings, dtypes and shapes
 * --------------------------------------------------------------------- */

static Output *
find_output (PlanWork * self, const gchar * name)
{
  guint i;

  for (i = 0; i < self->outputs->len; i++) {
    Output *output = g_ptr_array_index (self->outputs, i);

    if (strcmp (output->name, name) == 0)
      return output;
  }
  return NULL;
}

static gchar *
names_list (gchar ** names)
{
  return names[0] ? g_strjoinv (", ", names) : g_strdup ("(none)");
}

gboolean
_plan_work_check_binding_names (PlanWork * self, PlanBindings * bindings,
    GError ** error)
{
  gchar **names = plan_bindings_get_names (bindings), **p;
  gboolean ok = TRUE;

  for (p = names; *p && ok; p++) {
    PlanNode *node = NULL;
    guint i;

    for (i = 0; i < self->nodes->len && node == NULL; i++) {
      PlanNode *n = g_ptr_array_index (self->nodes, i);

      if (n->kind == PLAN_NODE_SOURCE && strcmp (n->name, *p) == 0)
        node = n;
    }
    if (node == NULL && find_output (self, *p) == NULL) {
      gchar **in = plan_work_get_input_names (self);
      gchar **out = plan_work_get_output_names (self);
      gchar *in_s = names_list (in), *out_s = names_list (out);

      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "'%s' is bound but is neither an input nor an output of this "
          "work; its inputs are %s and its outputs %s", *p, in_s, out_s);
      g_strfreev (in);
      g_strfreev (out);
      g_free (in_s);
      g_free (out_s);
      ok = FALSE;
    } else {
      PlanBinding *binding = _plan_bindings_lookup (bindings, *p);

      if (binding->ndim_given > PLAN_ARRAY_MAX_DIMS) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
            "%s '%s' is bound to %s of %u axes, but arrays have at most %d",
            node ? "source" : "output", *p, binding->kind ==
            PLAN_BINDING_READER ? "a chunk reader" : "a raw file",
            binding->ndim_given, PLAN_ARRAY_MAX_DIMS);
        ok = FALSE;
      }
    }
  }
  g_strfreev (names);
  return ok;
}

/* A file's dtype and shape, as planfilesrc will read it: the reader
 * parses a .npy header (or takes a raw file's given layout) and checks
 * the file's size against it. */
static gboolean
file_info (PlanBinding * binding, PlanArrayInfo * info, GError ** error)
{
  PlanFileReader *reader = plan_file_reader_new ();
  gboolean raw = binding->kind == PLAN_BINDING_RAW_FILE;
  gboolean ok;

  plan_file_reader_set_member (reader, binding->dataset);
  plan_file_reader_set_dataset (reader, binding->dataset);
  ok = plan_file_reader_open (reader, binding->location, raw ?
      PLAN_FILE_FORMAT_RAW : binding->in_container ? PLAN_FILE_FORMAT_AUTO :
      PLAN_FILE_FORMAT_NPY, raw ? &binding->info : NULL, error);
  if (ok)
    *info = *plan_file_reader_get_file_info (reader);
  plan_file_reader_close (reader);
  gst_object_unref (reader);
  return ok;
}

gboolean
_plan_work_source_info (PlanNode * node, PlanBinding * binding,
    PlanArrayInfo * info,
    GError ** error)
{
  gchar *s;

  switch (binding->kind) {
    case PLAN_BINDING_ARRAY:
      *info = *plan_array_get_info (binding->array);
      break;
    case PLAN_BINDING_FILE:
    case PLAN_BINDING_RAW_FILE:
      if (!file_info (binding, info, error))
        return FALSE;
      break;
    case PLAN_BINDING_READER:
      if (!plan_array_info_set (info, binding->info.dtype, binding->info.ndim,
              binding->info.shape, error))
        return FALSE;
      break;
    default:
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "it is bound to a chunk writer, which only outputs take");
      return FALSE;
  }
  if (info->ndim != node->ndim) {
    s = plan_shape_to_string (info->ndim, info->shape);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE, "it takes arrays of %u "
        "%s but is bound to one of shape %s", node->ndim,
        node->ndim == 1 ? "axis" : "axes", s);
    g_free (s);
    return FALSE;
  }
  if (node->dtype != PLAN_DTYPE_UNKNOWN && node->dtype != info->dtype) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_TYPE, "it takes %s but is "
        "bound to %s data", plan_dtype_to_string (node->dtype),
        plan_dtype_to_string (info->dtype));
    return FALSE;
  }
  return TRUE;
}

static gchar *
info_shape (const PlanArrayInfo * info)
{
  return plan_shape_to_string (info->ndim, info->shape);
}

/* Compiles the map expression @text of @node over @n inputs of @ins and
 * the node's constant arrays, as planmap compiles it: x, y, z, w and in0,
 * in1, ... for the inputs, the constants by name. With @one_row (0-d
 * inputs) each input is given to the compiler as one axis of one row. */
PlanExpr *
_plan_work_compile_map (PlanNode * node, const gchar * text, guint n,
    const PlanArrayInfo * ins, gboolean one_row, PlanArrayInfo * out,
    GError ** error)
{
  guint n_names, n_short, n_consts, i;
  gchar **names;
  const gchar **all;
  PlanArrayInfo *all_infos;
  PlanExpr *expr;

  names = _plan_map_input_names (n, &n_names);
  n_short = n_names - n;
  n_consts = node->const_arrays ? node->const_arrays->len : 0;
  all = g_newa (const gchar *, n_names + n_consts);
  all_infos = g_newa (PlanArrayInfo, n_names + n_consts);
  for (i = 0; i < n_names; i++) {
    all[i] = names[i];
    all_infos[i] = ins[i < n_short ? i : i - n_short];
    if (one_row) {
      all_infos[i].ndim = 1;
      all_infos[i].shape[0] = 1;
    }
  }
  for (i = 0; i < n_consts; i++) {
    all[n_names + i] = node->const_names[i];
    all_infos[n_names + i] = *plan_array_get_info (g_ptr_array_index
        (node->const_arrays, i));
  }
  expr = plan_expr_compile_broadcast (text, n_names + n_consts, all,
      all_infos, n_names, node->dtype, out, error);
  g_strfreev (names);
  return expr;
}

/* A map's output: its inputs and constants broadcast as planmap
 * broadcasts them (docs/expressions.md), rows lined up. */
static gboolean
infer_map (PlanNode * node, PlanArrayInfo * infos, PlanArrayInfo * out,
    GError ** error)
{
  guint n = node->inputs->len, i;
  PlanNode *first = g_ptr_array_index (node->inputs, 0);
  PlanArrayInfo *a = &infos[first->index];
  PlanArrayInfo *ins;
  PlanExpr *expr;

  for (i = 1; i < n; i++) {
    PlanNode *other = g_ptr_array_index (node->inputs, i);
    PlanArrayInfo *b = &infos[other->index];

    if (a->ndim > 0 && b->ndim > 0 && a->shape[0] >= 0 && b->shape[0] >= 0
        && a->shape[0] != b->shape[0]) {
      gchar *sa = info_shape (a), *sb = info_shape (b);

      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE, "its inputs must "
          "have the same number of rows, but '%s' has shape %s and '%s' has "
          "shape %s", first->name, sa, other->name, sb);
      g_free (sa);
      g_free (sb);
      return FALSE;
    }
  }
  if (a->ndim == 0) {
    /* Single values: no rows to line up, no broadcasting. */
    for (i = 1; i < n; i++) {
      PlanArrayInfo *b = &infos[((PlanNode *) g_ptr_array_index (node->inputs,
                  i))->index];
      if (b->ndim != 0) {
        gchar *sa = info_shape (a), *sb = info_shape (b);
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE, "its inputs must "
            "have the same shape, but '%s' has shape %s and '%s' has shape "
            "%s", first->name, sa, ((PlanNode *) g_ptr_array_index
                (node->inputs, i))->name, sb);
        g_free (sa);
        g_free (sb);
        return FALSE;
      }
    }
  }
  ins = g_newa (PlanArrayInfo, n);
  for (i = 0; i < n; i++)
    ins[i] = infos[((PlanNode *) g_ptr_array_index (node->inputs,
                i))->index];
  /* A 0-d stream has one "row" of nothing: give it one axis of one row
   * for the compiler, and take the shape back. */
  expr = _plan_work_compile_map (node, node->expr, n, ins, a->ndim == 0, out,
      error);
  if (expr == NULL)
    return FALSE;
  plan_expr_unref (expr);
  if (a->ndim == 0) {
    out->ndim = 0;
    out->shape[0] = 0;
  }
  for (i = 1; i < n; i++)
    if (infos[((PlanNode *) g_ptr_array_index (node->inputs, i))->index].
        shape[0] < 0)
      out->shape[0] = -1;
  if (a->shape[0] < 0)
    out->shape[0] = -1;
  return TRUE;
}

static gboolean
infer_reduce (PlanNode * node, const PlanArrayInfo * in, PlanArrayInfo * out,
    GError ** error)
{
  PlanReducer *reducer = node->expr ?
      plan_reducer_new_custom (node->expr, node->identity, node->axis, in,
      error) : plan_reducer_new (node->op, node->axis, in, error);

  if (reducer == NULL)
    return FALSE;
  plan_reducer_get_output_info (reducer, out);
  if (plan_reducer_get_axis (reducer) == PLAN_REDUCE_AXIS_INNER)
    out->shape[0] = in->shape[0];
  plan_reducer_unref (reducer);
  return TRUE;
}

/* One application of a stencil node's window. */
static gboolean
infer_stencil_once (PlanNode * node, const PlanArrayInfo * in,
    PlanArrayInfo * out, GError ** error)
{
  PlanWindow *window = plan_window_parse (node->window, error);
  guint halo[PLAN_ARRAY_MAX_DIMS], n, i;
  PlanDType *dtypes;
  PlanHalo *h = NULL;
  PlanExpr *expr = NULL;

  if (window == NULL)
    return FALSE;
  if (plan_halo_size_for_window (window, in, halo, error))
    h = plan_halo_new (in, halo, node->boundary, node->cval, error);
  if (h != NULL) {
    n = plan_window_get_n_names (window);
    dtypes = g_newa (PlanDType, n + 1);
    for (i = 0; i < n; i++)
      dtypes[i] = in->dtype;
    expr = plan_expr_compile (node->expr, n, plan_window_get_names (window),
        dtypes, error);
  }
  if (expr != NULL) {
    plan_halo_get_output_info (h, out);
    out->dtype = plan_expr_get_dtype (expr);
    plan_expr_unref (expr);
  }
  g_clear_pointer (&h, plan_halo_free);
  plan_window_unref (window);
  return expr != NULL;
}

/* A stencil node's windows, parsed; NULL with @error set. */
static PlanWindow **
stencil_windows (PlanNode * node, GError ** error)
{
  guint n = node->inputs->len, j;
  PlanWindow **windows = g_new0 (PlanWindow *, n);

  for (j = 0; j < n; j++) {
    windows[j] = plan_window_parse (node->windows[j], error);
    if (windows[j] == NULL) {
      while (j-- > 0)
        plan_window_unref (windows[j]);
      g_free (windows);
      return NULL;
    }
  }
  return windows;
}

static void
stencil_windows_free (PlanWindow ** windows, guint n)
{
  guint j;

  for (j = 0; j < n; j++)
    plan_window_unref (windows[j]);
  g_free (windows);
}

/* The stencil kernel of a stencil of several inputs, as planstencil makes
 * it, for inputs of @in: the inputs must have one shape. */
PlanStencilKernel *
_plan_work_stencil_inputs_kernel (PlanNode * node, const PlanArrayInfo * in,
    GError ** error)
{
  guint n = node->inputs->len, j, k;
  PlanNode *first = g_ptr_array_index (node->inputs, 0);
  PlanStencilKernel *kernel;
  PlanWindow **windows;

  for (j = 1; j < n; j++) {
    PlanNode *other = g_ptr_array_index (node->inputs, j);
    gboolean same = in[j].ndim == in[0].ndim;

    for (k = 0; same && k < in[0].ndim; k++)
      same = in[j].shape[k] == in[0].shape[k] || (k == 0
          && (in[j].shape[0] < 0 || in[0].shape[0] < 0));
    if (!same) {
      gchar *sa = info_shape (&in[0]), *sb = info_shape (&in[j]);

      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE, "its inputs must "
          "have the same shape, but input 0 ('%s') has shape %s and input "
          "%u ('%s') has shape %s", first->name, sa, j, other->name, sb);
      g_free (sa);
      g_free (sb);
      return NULL;
    }
  }
  if ((windows = stencil_windows (node, error)) == NULL)
    return NULL;
  kernel = plan_stencil_kernel_new_inputs (n, (const PlanWindow *const *)
      windows, in, node->expr, node->boundary, node->cval, error);
  stencil_windows_free (windows, n);
  return kernel;
}

/* Each application reads the output of the one before; several inputs
 * make one application of all their windows. */
static gboolean
infer_stencil (PlanNode * node, PlanArrayInfo * infos, PlanArrayInfo * out,
    GError ** error)
{
  PlanArrayInfo cur = infos[((PlanNode *) g_ptr_array_index (node->inputs,
          0))->index];
  guint i;

  if (node->windows != NULL) {
    guint n = node->inputs->len;
    PlanArrayInfo *in = g_newa (PlanArrayInfo, n);
    PlanStencilKernel *kernel;

    for (i = 0; i < n; i++)
      in[i] = infos[((PlanNode *) g_ptr_array_index (node->inputs,
                  i))->index];
    if ((kernel = _plan_work_stencil_inputs_kernel (node, in, error)) == NULL)
      return FALSE;
    plan_stencil_kernel_get_output_info (kernel, out);
    plan_stencil_kernel_free (kernel);
    return TRUE;
  }

  for (i = 0; i < node->iterations; i++) {
    if (!infer_stencil_once (node, &cur, out, error)) {
      if (node->iterations > 1)
        g_prefix_error (error, "application %u of %u (iterations=%u): ",
            i + 1, node->iterations, node->iterations);
      return FALSE;
    }
    cur = *out;
  }
  return TRUE;
}

static gboolean
infer_custom (PlanNode * node, PlanArrayInfo * infos, PlanArrayInfo * out,
    GError ** error)
{
  guint n = node->inputs->len, i;
  PlanArrayInfo *in = g_newa (PlanArrayInfo, n);

  for (i = 0; i < n; i++) {
    in[i] = infos[((PlanNode *) g_ptr_array_index (node->inputs, i))->index];
    if (i > 0 && in[i].shape[0] >= 0 && in[0].shape[0] >= 0
        && in[i].shape[0] != in[0].shape[0]) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE, "its inputs must "
          "have as many rows, but '%s' has %" G_GINT64_FORMAT " and '%s' %"
          G_GINT64_FORMAT,
          ((PlanNode *) g_ptr_array_index (node->inputs, 0))->name,
          in[0].shape[0], ((PlanNode *) g_ptr_array_index (node->inputs,
                  i))->name, in[i].shape[0]);
      return FALSE;
    }
  }
  return _plan_custom_node_output (node, in, out, error);
}

/* Works out every node's dtype and shape from the sources' (in @infos),
 * inputs first. */
static gboolean
infer_infos (PlanWork * self, PlanArrayInfo * infos, GError ** error)
{
  guint i;

  for (i = 0; i < self->nodes->len; i++) {
    PlanNode *node = g_ptr_array_index (self->nodes, i);
    PlanArrayInfo *in = NULL;
    gboolean ok = TRUE;

    if (node->inputs->len > 0)
      in = &infos[((PlanNode *) g_ptr_array_index (node->inputs, 0))->index];
    switch (node->kind) {
      case PLAN_NODE_SOURCE:
        break;
      case PLAN_NODE_MAP:
        ok = infer_map (node, infos, &infos[i], error);
        break;
      case PLAN_NODE_REDUCE:
        ok = infer_reduce (node, in, &infos[i], error);
        break;
      case PLAN_NODE_STENCIL:
        ok = infer_stencil (node, infos, &infos[i], error);
        break;
      case PLAN_NODE_SINK:
        infos[i] = *in;
        break;
      case PLAN_NODE_CUSTOM:
        ok = infer_custom (node, infos, &infos[i], error);
        break;
    }
    if (!ok) {
      g_prefix_error (error, "%s '%s': ", _plan_node_kind_nick (node->kind),
          node->name);
      return FALSE;
    }
  }
  return TRUE;
}

/* infer_infos(), or what it gave last time for sources of the same dtypes
 * and shapes (nothing else it reads changes between dispatches). */
gboolean
_plan_work_infer_known_infos (PlanWork * self, PlanArrayInfo * infos,
    GError ** error)
{
  gboolean same = self->known_infos != NULL;
  guint i;

  for (i = 0; same && i < self->nodes->len; i++) {
    PlanNode *node = g_ptr_array_index (self->nodes, i);

    if (node->kind == PLAN_NODE_SOURCE)
      same = plan_array_info_is_equal (&infos[i], &self->known_infos[i]);
  }
  if (same) {
    memcpy (infos, self->known_infos, sizeof (PlanArrayInfo) *
        self->nodes->len);
    return TRUE;
  }
  if (!infer_infos (self, infos, error))
    return FALSE;
  if (self->known_infos == NULL)
    self->known_infos = g_new (PlanArrayInfo, self->nodes->len);
  memcpy (self->known_infos, infos, sizeof (PlanArrayInfo) *
      self->nodes->len);
  return TRUE;
}

static gint64
n_elements (const PlanArrayInfo * info)
{
  gint64 n = 1;
  guint i;

  for (i = 0; i < info->ndim; i++)
    n *= info->shape[i];
  return n;
}

/* Whether numpy's "safe" casting takes @from to @to: no value changes (an
 * integer to a wider one, to a float of twice its size or to float64, a
 * float to a wider one, bool to any, a real to a complex whose parts hold
 * it, complex64 to complex128). */
static gboolean
casts_safely (PlanDType from, PlanDType to)
{
  gsize fs = plan_dtype_get_size (from), ts = plan_dtype_get_size (to);
  gboolean f_uint = plan_dtype_is_integer (from) && !plan_dtype_is_signed (from);
  gboolean t_uint = plan_dtype_is_integer (to) && !plan_dtype_is_signed (to);
  gboolean f_float = plan_dtype_is_float (from);
  gboolean t_float = plan_dtype_is_float (to);

  if (from == to || from == PLAN_DTYPE_BOOL)
    return TRUE;
  if (plan_dtype_is_complex (from) || plan_dtype_is_complex (to)) {
    /* A complex holds what its real part's dtype holds. */
    return plan_dtype_is_complex (to) && (plan_dtype_is_complex (from)
        ? ts > fs : casts_safely (from, plan_dtype_get_real (to)));
  }
  if (to == PLAN_DTYPE_BOOL || (f_float && !t_float))
    return FALSE;
  if (t_float)
    return f_float ? ts > fs : to == PLAN_DTYPE_FLOAT64 || 2 * fs <= ts;
  /* integers */
  if (f_uint == t_uint)
    return ts > fs;
  return !t_uint && ts > fs;
}

/* Whether the array of @have may take the result of @info under another
 * shape or a wider dtype: a single value, or a reduction's values, go
 * into any array of the same number of elements (a (1,) array for a
 * scalar) and of a dtype the result casts to safely (float64 for a
 * float32 sum), as numpy's `out=` of a reduction does. */
static gboolean
reshapes_into (Output * output, const PlanArrayInfo * have,
    const PlanArrayInfo * info)
{
  if (!casts_safely (info->dtype, have->dtype)
      || (info->ndim > 0 && info->shape[0] < 0))
    return FALSE;
  if (info->ndim != 0 && output->producer->kind != PLAN_NODE_REDUCE)
    return FALSE;
  return n_elements (have) == n_elements (info);
}

/* A file of bare data holds the output's bytes as they come: what the
 * binding says it holds must be the output's dtype and shape exactly (a
 * first axis of -1: any number of rows), or the file would not read back
 * as it was bound. */
static gboolean
check_raw_output (Output * output, PlanBinding * binding,
    const PlanArrayInfo * info, GError ** error)
{
  const PlanArrayInfo *have = &binding->info;
  gchar *want_s, *have_s;

  if (have->dtype == info->dtype && plan_array_info_same_rows (have, info)
      && (info->ndim == 0 || have->shape[0] < 0 || info->shape[0] < 0
          || info->shape[0] == have->shape[0]))
    return TRUE;
  want_s = info_shape (info);
  have_s = info_shape (have);
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE, "output '%s' is %s of "
      "shape %s, but it is bound to a raw file of %s of shape %s",
      output->name, plan_dtype_to_string (info->dtype), want_s,
      plan_dtype_to_string (have->dtype), have_s);
  g_free (want_s);
  g_free (have_s);
  return FALSE;
}

gboolean
_plan_work_check_output (Output * output, PlanBinding * binding,
    const PlanArrayInfo * info, GError ** error)
{
  const PlanArrayInfo *have;
  gchar *want_s, *have_s;

  if (binding == NULL || binding->kind == PLAN_BINDING_FILE
      || binding->kind == PLAN_BINDING_WRITER)
    return TRUE;
  if (binding->kind == PLAN_BINDING_RAW_FILE)
    return check_raw_output (output, binding, info, error);
  if (binding->kind != PLAN_BINDING_ARRAY) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "output "
        "'%s' is bound to a chunk reader, which only sources take",
        output->name);
    return FALSE;
  }
  have = plan_array_get_info (binding->array);
  if (plan_array_get_device_memory (binding->array) != NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "output '%s' "
        "is bound to an array in device memory; outputs are host arrays "
        "(a plan on the device copies its results to them)", output->name);
    return FALSE;
  }
  if (!plan_array_is_writable (binding->array)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "output "
        "'%s' is bound to a read-only array", output->name);
    return FALSE;
  }
  if (have->dtype == info->dtype && plan_array_info_same_rows (have, info)
      && (info->ndim == 0 || info->shape[0] < 0
          || info->shape[0] == have->shape[0]))
    return TRUE;
  if (reshapes_into (output, have, info))
    return TRUE;
  want_s = info_shape (info);
  have_s = info_shape (have);
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE, "output '%s' is %s of "
      "shape %s, but it is bound to %s %s array of shape %s", output->name,
      plan_dtype_to_string (info->dtype), want_s,
      plan_dtype_get_article (have->dtype),
      plan_dtype_to_string (have->dtype), have_s);
  g_free (want_s);
  g_free (have_s);
  return FALSE;
}

/* The host memory @array spans, [*start, *end); FALSE for device memory
 * and empty arrays. */
static gboolean
host_range (PlanArray * array, guintptr * start, guintptr * end)
{
  if (array == NULL || plan_array_get_device_memory (array) != NULL
      || plan_array_get_size (array) == 0)
    return FALSE;
  *start = plan_array_get_address (array);
  *end = *start + plan_array_get_size (array);
  return TRUE;
}

/* Outputs are written while the inputs are still read (a tee hands the
 * same rows to several nodes, a reduction reads to the end): an output
 * array that shares memory with an input, a map's constant or another
 * output would give wrong results, so it is refused, as the address
 * ranges say (numpy's may_share_memory). */
gboolean
_plan_work_check_overlaps (PlanWork * self, PlanBindings * bindings,
    GError ** error)
{
  guint i, j, k;

  for (i = 0; i < self->outputs->len; i++) {
    Output *output = g_ptr_array_index (self->outputs, i);
    PlanBinding *binding = _plan_bindings_lookup (bindings, output->name);
    guintptr start, end, s, e;

    if (binding == NULL || binding->kind != PLAN_BINDING_ARRAY
        || !host_range (binding->array, &start, &end))
      continue;
    for (j = 0; j < self->nodes->len; j++) {
      PlanNode *node = g_ptr_array_index (self->nodes, j);
      PlanBinding *other = _plan_bindings_lookup (bindings, node->name);

      if (node->kind == PLAN_NODE_SOURCE && other != NULL
          && other->kind == PLAN_BINDING_ARRAY
          && host_range (other->array, &s, &e) && s < end && start < e) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
            "output '%s' shares memory with the input '%s': outputs are "
            "written while the inputs are still read, so an output must "
            "not overlap an input; bind a separate array", output->name,
            node->name);
        return FALSE;
      }
      for (k = 0; node->const_arrays && k < node->const_arrays->len; k++) {
        if (host_range (g_ptr_array_index (node->const_arrays, k), &s, &e)
            && s < end && start < e) {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
              "output '%s' shares memory with the constant '%s' of map "
              "'%s'; bind a separate array", output->name,
              node->const_names[k], node->name);
          return FALSE;
        }
      }
    }
    for (j = 0; j < i; j++) {
      Output *first = g_ptr_array_index (self->outputs, j);
      PlanBinding *other = _plan_bindings_lookup (bindings, first->name);

      if (other != NULL && other->kind == PLAN_BINDING_ARRAY
          && host_range (other->array, &s, &e) && s < end && start < e) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
            "outputs '%s' and '%s' share memory; bind each to an array of "
            "its own", first->name, output->name);
        return FALSE;
      }
    }
  }
  return TRUE;
}
