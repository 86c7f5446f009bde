/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* A graph realized into a PlanWork: its nodes made into stages and
 * outputs and checked, maps fused into their consumers, and the stages
 * made into the elements of a pipeline, linked (a tee and queues where an
 * output has several consumers). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planwork-private.h"

#include <string.h>

#define GST_CAT_DEFAULT plan_graph_debug
/* Buffers a queue after a tee holds: enough for one branch to run ahead
 * of another by a few chunks, and bounded. */
#define BRANCH_QUEUE_BUFFERS 4

/* The array elements are made through their factories when the plugin
 * that registers them is loaded, and directly otherwise. */
GstElement *
_plan_work_make_array_element (GType type, const gchar * factory,
    const gchar * name)
{
  GstElement *element = gst_element_factory_make (factory, name);

  return element ? element : g_object_new (type, "name", name, NULL);
}

const gchar *
_plan_work_factory_name (GstElement * element)
{
  GstElementFactory *factory = gst_element_get_factory (element);

  if (factory != NULL)
    return GST_OBJECT_NAME (factory);
  if (PLAN_IS_ARRAY_SRC (element))
    return "planarraysrc";
  if (PLAN_IS_ARRAY_SINK (element))
    return "planarraysink";
  return G_OBJECT_TYPE_NAME (element);
}

/* ---------------------------------------------------------------------
 * Realize: stages, outputs, structural checks
 * --------------------------------------------------------------------- */

Stage *
_plan_work_stage_of (PlanWork * self, PlanNode * node)
{
  return g_ptr_array_index (self->stages, node->index);
}

/* Makes a stage per node (a sink's stage is its input's) and the outputs:
 * the sinks when there are any, otherwise every node that nothing takes. */
static gboolean
make_stages (PlanWork * self, GError ** error)
{
  guint n = self->nodes->len, i, j, n_sinks = 0;
  guint *n_consumers = g_newa (guint, n + 1);

  memset (n_consumers, 0, sizeof (guint) * (n + 1));
  for (i = 0; i < n; i++) {
    PlanNode *node = g_ptr_array_index (self->nodes, i);
    Stage *stage = NULL;

    if (node->kind == PLAN_NODE_SINK) {
      n_sinks++;
    } else {
      stage = g_new0 (Stage, 1);
      stage->kind = node->kind;
      stage->node = node;
      stage->expr = g_strdup (node->expr);
      stage->inputs = g_ptr_array_new ();
    }
    for (j = 0; j < node->inputs->len; j++) {
      PlanNode *input = g_ptr_array_index (node->inputs, j);

      n_consumers[input->index]++;
      if (stage)
        g_ptr_array_add (stage->inputs, _plan_work_stage_of (self, input));
    }
    /* A sink has no stage of its own: its slot holds its input's. */
    g_ptr_array_add (self->stages, stage ? stage : _plan_work_stage_of (self,
            g_ptr_array_index (node->inputs, 0)));
  }

  for (i = 0; i < n; i++) {
    PlanNode *node = g_ptr_array_index (self->nodes, i);
    Output *output;

    if (node->kind == PLAN_NODE_SINK || (n_sinks == 0
            && node->kind != PLAN_NODE_SOURCE && n_consumers[i] == 0)) {
      output = g_new0 (Output, 1);
      output->name = g_strdup (node->name);
      output->node = node;
      output->producer = _plan_work_stage_of (self, node);
      g_ptr_array_add (self->outputs, output);
    } else if (n_consumers[i] == 0 && node->kind == PLAN_NODE_SOURCE) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "source '%s' is used by no node: remove it or give it to one",
          node->name);
      return FALSE;
    } else if (n_consumers[i] == 0) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "%s '%s' is used by no output: the graph has sinks, so give it "
          "one (plan_graph_add_sink) or remove it",
              _plan_node_kind_nick (node->kind),
          node->name);
      return FALSE;
    }
  }
  if (self->outputs->len == 0) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the graph has no outputs: add a map, reduction, stencil or sink");
    return FALSE;
  }
  return TRUE;
}

/* Checks what needs the whole graph: the number of axes a node's inputs
 * have. */
static gboolean
check_axes (PlanWork * self, GError ** error)
{
  guint i, j;

  for (i = 0; i < self->nodes->len; i++) {
    PlanNode *node = g_ptr_array_index (self->nodes, i);
    PlanNode *first = node->inputs->len ? g_ptr_array_index (node->inputs,
        0) : NULL;

    /* A custom kernel lines its inputs up by row only. */
    for (j = 1; j < node->inputs->len && node->kind != PLAN_NODE_CUSTOM;
        j++) {
      PlanNode *other = g_ptr_array_index (node->inputs, j);

      if (other->ndim != first->ndim) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
            "%s '%s': its inputs have different numbers of axes: '%s' has "
            "%u and '%s' has %u%s", _plan_node_kind_nick (node->kind),
            node->name, first->name, first->ndim, other->name, other->ndim,
            node->kind == PLAN_NODE_MAP ? "; inputs line up row by row, "
            "so they need the same number of axes (numpy would align their "
            "last axes): to repeat each row's values along an axis, give "
            "the input that lacks it length 1 there, (N, 1) for (N,)" : "");
        return FALSE;
      }
    }
    if (node->kind == PLAN_NODE_STENCIL && first->ndim == 0) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "stencil '%s': its input '%s' is a single value (0 axes); a "
          "stencil needs at least one axis", node->name, first->name);
      return FALSE;
    }
  }
  return TRUE;
}

/* ---------------------------------------------------------------------
 * Fusion
 * --------------------------------------------------------------------- */

/* Which input a map's expression means by @name, of @n_inputs: x, y, z, w
 * or in<k>; -1 for anything else. */
static gint
map_input_index (const gchar * name, gsize len, guint n_inputs)
{
  static const gchar short_names[] = "xyzw";
  gchar *end;
  guint64 k;

  if (len == 1 && strchr (short_names, name[0]) != NULL)
    k = strchr (short_names, name[0]) - short_names;
  else if (len > 2 && strncmp (name, "in", 2) == 0
      && g_ascii_isdigit (name[2])) {
    k = g_ascii_strtoull (name + 2, &end, 10);
    if (end != name + len)
      return -1;
  } else
    return -1;
  return k < n_inputs ? (gint) k : -1;
}

/* The end of the number at @p, lexed as the expression compiler lexes
 * it: hexadecimal `0x1e` has no exponent; decimal digits, a fraction and
 * an exponent `e-5`. (The compiler has already accepted the expression.) */
static const gchar *
skip_number (const gchar * p)
{
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    for (p += 2; g_ascii_isxdigit (*p); p++);
    return p;
  }
  while (g_ascii_isdigit (*p))
    p++;
  if (*p == '.')
    for (p++; g_ascii_isdigit (*p); p++);
  if ((*p == 'e' || *p == 'E') && (g_ascii_isdigit (p[1])
          || ((p[1] == '+' || p[1] == '-') && g_ascii_isdigit (p[2]))))
    for (p += 2; g_ascii_isdigit (*p); p++);
  return p;
}

/* Rewrites @expr, a map's expression over @n_inputs inputs, replacing each
 * name of an input by @replace[index]. Names are identifiers that are not
 * called (a function's name is followed by '('); numbers are skipped
 * whole, so the 'e5' of 1e5 is not taken for a name. */
static gchar *
rename_inputs (const gchar * expr, guint n_inputs, gchar ** replace)
{
  GString *out = g_string_new (NULL);
  const gchar *p = expr;

  while (*p) {
    if (g_ascii_isdigit (*p) || (*p == '.' && g_ascii_isdigit (p[1]))) {
      const gchar *start = p;

      p = skip_number (p);
      g_string_append_len (out, start, p - start);
    } else if (g_ascii_isalpha (*p) || *p == '_') {
      const gchar *start = p, *q;
      gint index;

      while (g_ascii_isalnum (*p) || *p == '_')
        p++;
      for (q = p; *q == ' ' || *q == '\t'; q++);
      index = *q == '(' ? -1 : map_input_index (start, p - start, n_inputs);
      if (index >= 0)
        g_string_append (out, replace[index]);
      else
        g_string_append_len (out, start, p - start);
    } else {
      g_string_append_c (out, *p++);
    }
  }
  return g_string_free (out, FALSE);
}

/* @stage's expression as a parenthesised term over @names, cast to its
 * dtype when it has one, so that it computes exactly what its element
 * would. */
static gchar *
map_term (Stage * stage, gchar ** names)
{
  gchar *body = rename_inputs (stage->expr, stage->inputs->len, names);
  gchar *term;

  if (stage->node->dtype != PLAN_DTYPE_UNKNOWN)
    term = g_strdup_printf ("%s(%s)",
        plan_dtype_to_string (stage->node->dtype), body);
  else
    term = g_strdup_printf ("(%s)", body);
  g_free (body);
  return term;
}

static guint
add_unique (GPtrArray * array, Stage * stage)
{
  guint i;

  if (g_ptr_array_find (array, stage, &i))
    return i;
  g_ptr_array_add (array, stage);
  return array->len - 1;
}

/* Merges the map @m into the map @c, its only consumer: @c's expression
 * takes @m's in place of @m's result, over the union of their inputs. */
static void
fuse_into_map (Stage * m, Stage * c)
{
  GPtrArray *inputs = g_ptr_array_new ();
  gchar **m_names = g_new0 (gchar *, m->inputs->len + 1);
  gchar **c_names = g_new0 (gchar *, c->inputs->len + 1);
  gchar *m_term = NULL, *expr;
  guint i, j;

  for (i = 0; i < c->inputs->len; i++) {
    Stage *s = g_ptr_array_index (c->inputs, i);

    if (s != m)
      continue;
    for (j = 0; j < m->inputs->len; j++)
      add_unique (inputs, g_ptr_array_index (m->inputs, j));
  }
  for (i = 0; i < c->inputs->len; i++)
    if (g_ptr_array_index (c->inputs, i) != m)
      add_unique (inputs, g_ptr_array_index (c->inputs, i));

  for (j = 0; j < m->inputs->len; j++)
    m_names[j] = g_strdup_printf ("in%u", add_unique (inputs,
            g_ptr_array_index (m->inputs, j)));
  for (i = 0; i < c->inputs->len; i++) {
    Stage *s = g_ptr_array_index (c->inputs, i);

    if (s == m)
      c_names[i] = g_strdup (m_term ? m_term : (m_term = map_term (m,
                  m_names)));
    else
      c_names[i] = g_strdup_printf ("in%u", add_unique (inputs, s));
  }
  expr = rename_inputs (c->expr, c->inputs->len, c_names);
  GST_DEBUG ("fused map '%s' into map '%s': %s", m->node->name,
      c->node->name, expr);
  g_free (c->expr);
  c->expr = expr;
  g_ptr_array_unref (c->inputs);
  c->inputs = inputs;
  m->fused = TRUE;
  g_free (m_term);
  g_strfreev (m_names);
  g_strfreev (c_names);
}

/* Merges the one-input map @m into the reduction @r, its only consumer:
 * planreduce's `map` property evaluates it before reducing. */
static void
fuse_into_reduce (Stage * m, Stage * r)
{
  gchar *x[] = { (gchar *) "x", NULL };

  r->pre_map = rename_inputs (m->expr, 1, x);
  r->pre_map_dtype = m->node->dtype;
  g_ptr_array_index (r->inputs, 0) = g_ptr_array_index (m->inputs, 0);
  m->fused = TRUE;
  GST_DEBUG ("fused map '%s' into reduction '%s': map=%s", m->node->name,
      r->node->name, r->pre_map);
}

/* The one stage that takes @stage's output, or NULL when none or several
 * do or it is an output. */
/* Whether @stage's expression names any of its inputs. One that names
 * none (a constant, `1`) is typed on its own as an element (a weak
 * literal becomes int64 or float64) but would take the other operand's
 * dtype inside another expression, so it is not fused. */
static gboolean
uses_inputs (Stage * stage)
{
  gchar **marks = g_new0 (gchar *, stage->inputs->len + 1);
  gchar *renamed;
  gboolean uses;
  guint i;

  for (i = 0; i < stage->inputs->len; i++)
    marks[i] = g_strdup ("\001");
  renamed = rename_inputs (stage->expr, stage->inputs->len, marks);
  uses = strchr (renamed, '\001') != NULL;
  g_free (renamed);
  g_strfreev (marks);
  return uses;
}

static Stage *
only_consumer (PlanWork * self, Stage * stage)
{
  Stage *consumer = NULL;
  guint i, j;

  for (i = 0; i < self->outputs->len; i++)
    if (((Output *) g_ptr_array_index (self->outputs, i))->producer == stage)
      return NULL;
  for (i = 0; i < self->nodes->len; i++) {
    Stage *s = g_ptr_array_index (self->stages, i);

    if (s->node->index != i || s->fused)
      continue;
    for (j = 0; j < s->inputs->len; j++) {
      if (g_ptr_array_index (s->inputs, j) != stage)
        continue;
      if (consumer != NULL && consumer != s)
        return NULL;
      consumer = s;
    }
  }
  return consumer;
}

/* Fuses elementwise chains, inputs first, so a chain of maps ends up in
 * its last map, or in the reduction that takes it. */
static void
fuse (PlanWork * self)
{
  guint i;

  for (i = 0; i < self->nodes->len; i++) {
    Stage *m = g_ptr_array_index (self->stages, i), *c;

    if (m->node->index != i || m->kind != PLAN_NODE_MAP || !uses_inputs (m)
        || m->node->const_arrays != NULL)
      continue;
    c = only_consumer (self, m);
    /* Constants are bound to one planmap by name: not merged. */
    if (c == NULL || c->node->const_arrays != NULL)
      continue;
    if (c->kind == PLAN_NODE_MAP)
      fuse_into_map (m, c);
    else if (c->kind == PLAN_NODE_REDUCE && c->pre_map == NULL
        && m->inputs->len == 1)
      fuse_into_reduce (m, c);
  }
}

/* ---------------------------------------------------------------------
 * Realize: the pipeline
 * --------------------------------------------------------------------- */

GstElement *
_plan_work_make_element (const gchar * factory, const gchar * name,
    GError ** error)
{
  GstElement *element = gst_element_factory_make (factory, name);

  if (element == NULL)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "the element %s is not installed: is the gst-plan plugin on "
        "GST_PLUGIN_PATH?", factory);
  return element;
}

static void
set_target (PlanWork * self, GstElement * element)
{
  g_object_set (element, "target", self->target, NULL);
}

GstElement *
_plan_work_make_map (PlanWork * self, Stage * stage, GError ** error)
{
  GstElement *e = _plan_work_make_element ("planmap", stage->node->name, error);

  if (e == NULL)
    return NULL;
  g_object_set (e, "expr", stage->expr, NULL);
  if (stage->node->dtype != PLAN_DTYPE_UNKNOWN)
    g_object_set (e, "dtype", stage->node->dtype, NULL);
  if (stage->node->const_arrays != NULL) {
    GstStructure *arrays = gst_structure_new_empty ("constants");
    guint i;

    for (i = 0; i < stage->node->const_arrays->len; i++)
      gst_structure_set (arrays, stage->node->const_names[i],
          PLAN_TYPE_ARRAY, g_ptr_array_index (stage->node->const_arrays, i),
          NULL);
    g_object_set (e, "constant-arrays", arrays, NULL);
    gst_structure_free (arrays);
  }
  set_target (self, e);
  return e;
}

GstElement *
_plan_work_make_reduce (PlanWork * self, Stage * stage, GError ** error)
{
  PlanNode *node = stage->node;
  GstElement *e = _plan_work_make_element ("planreduce", node->name, error);

  if (e == NULL)
    return NULL;
  if (node->expr != NULL)
    g_object_set (e, "expr", node->expr, "identity", node->identity, NULL);
  else
    g_object_set (e, "op", node->op, NULL);
  g_object_set (e, "axis", node->axis, "ddof", node->ddof, NULL);
  if (stage->pre_map != NULL)
    g_object_set (e, "map", stage->pre_map, NULL);
  if (stage->pre_map_dtype != PLAN_DTYPE_UNKNOWN)
    g_object_set (e, "map-dtype", stage->pre_map_dtype, NULL);
  set_target (self, e);
  return e;
}

GstElement *
_plan_work_make_stencil (PlanWork * self, Stage * stage, GError ** error)
{
  PlanNode *node = stage->node;
  GstElement *e = _plan_work_make_element ("planstencil", node->name, error);

  if (e == NULL)
    return NULL;
  g_object_set (e, "window", node->window, "expr", node->expr,
      "boundary", node->boundary, "cval", node->cval, "iterations",
      node->iterations, NULL);
  set_target (self, e);
  return e;
}

static GstElement *
make_custom (PlanWork * self, Stage * stage, GError ** error)
{
  PlanNode *node = stage->node;
  GstElement *e = _plan_work_make_element ("plancustom", node->name, error);
  guint i;

  if (e == NULL)
    return NULL;
  set_target (self, e);
  /* Checked against the element's properties when the node was added. */
  for (i = 0; i < node->n_props; i++)
    g_object_set_property (G_OBJECT (e), node->prop_names[i],
        &node->prop_values[i]);
  return e;
}

static gboolean
add_to_pipeline (PlanWork * self, GstElement * element)
{
  return gst_bin_add (GST_BIN (self->pipeline), element);
}

/* Links @src to @sink, and writes the link down for the launch string:
 * `a. ! c.sink_0`. */
static gboolean
link_pads (PlanWork * self, GstPad * src, GstPad * sink, GError ** error)
{
  GstPadLinkReturn ret = gst_pad_link (src, sink);
  GstElement *up = GST_ELEMENT (GST_OBJECT_PARENT (src));
  GstElement *down = GST_ELEMENT (GST_OBJECT_PARENT (sink));

  if (ret != GST_PAD_LINK_OK) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "could not link %s to %s:%s: %s", GST_OBJECT_NAME (up),
        GST_OBJECT_NAME (down), GST_OBJECT_NAME (sink),
        gst_pad_link_get_name (ret));
    return FALSE;
  }
  g_string_append_printf (self->links, " %s. ! %s.%s", GST_OBJECT_NAME (up),
      GST_OBJECT_NAME (down), GST_OBJECT_NAME (sink));
  return TRUE;
}

/* The pad the next branch of @stage's output is taken from: its element's
 * own source pad when it has one branch, otherwise a queue after its tee,
 * so that no branch can hold up another. */
static GstPad *
branch_pad (PlanWork * self, Stage * stage, GError ** error)
{
  GstElement *queue;
  GstPad *teepad, *sinkpad, *srcpad;
  gchar *name;
  gboolean ok;

  if (stage->n_branches == 1)
    return gst_element_get_static_pad (stage->element, "src");

  if (stage->tee == NULL) {
    name = g_strdup_printf ("%s-tee", stage->node->name);
    stage->tee = _plan_work_make_element ("tee", name, error);
    g_free (name);
    if (stage->tee == NULL || !add_to_pipeline (self, stage->tee))
      return NULL;
    srcpad = gst_element_get_static_pad (stage->element, "src");
    sinkpad = gst_element_get_static_pad (stage->tee, "sink");
    ok = link_pads (self, srcpad, sinkpad, error);
    gst_object_unref (srcpad);
    gst_object_unref (sinkpad);
    if (!ok)
      return NULL;
  }

  name = g_strdup_printf ("%s-q%u", stage->node->name,
      stage->tee->numsrcpads);
  queue = _plan_work_make_element ("queue", name, error);
  g_free (name);
  if (queue == NULL || !add_to_pipeline (self, queue))
    return NULL;
  g_object_set (queue, "max-size-buffers", BRANCH_QUEUE_BUFFERS,
      "max-size-bytes", 0, "max-size-time", (guint64) 0, NULL);
  teepad = gst_element_request_pad_simple (stage->tee, "src_%u");
  sinkpad = gst_element_get_static_pad (queue, "sink");
  ok = link_pads (self, teepad, sinkpad, error);
  gst_object_unref (teepad);
  gst_object_unref (sinkpad);
  return ok ? gst_element_get_static_pad (queue, "src") : NULL;
}

/* The pad input @index of @stage is linked to: a map's and a custom
 * kernel's request pad sink_<index>; a stencil's sink for its first input
 * and the request pad sink_<index>, with the input's window, for the
 * others. */
static GstPad *
input_pad (Stage * stage, guint index)
{
  GstPadTemplate *templ;
  gchar *name;
  GstPad *pad;

  if ((stage->kind != PLAN_NODE_MAP && stage->kind != PLAN_NODE_CUSTOM)
      && (stage->kind != PLAN_NODE_STENCIL || index == 0))
    return gst_element_get_static_pad (stage->element, "sink");
  templ = gst_element_get_pad_template (stage->element, "sink_%u");
  name = g_strdup_printf ("sink_%u", index);
  pad = gst_element_request_pad (stage->element, templ, name, NULL);
  g_free (name);
  if (pad != NULL && stage->kind == PLAN_NODE_STENCIL)
    g_object_set (pad, "window", stage->node->windows[index], NULL);
  return pad;
}

static gboolean
link_to (PlanWork * self, Stage * producer, GstPad * sinkpad, GError ** error)
{
  GstPad *srcpad = branch_pad (self, producer, error);
  gboolean ok;

  if (srcpad == NULL)
    return FALSE;
  ok = link_pads (self, srcpad, sinkpad, error);
  gst_object_unref (srcpad);
  return ok;
}

static gboolean
make_elements (PlanWork * self, GError ** error)
{
  guint i;

  for (i = 0; i < self->nodes->len; i++) {
    Stage *stage = g_ptr_array_index (self->stages, i);

    if (stage->node->index != i || stage->fused)
      continue;
    switch (stage->kind) {
      case PLAN_NODE_SOURCE:
        stage->element = _plan_work_make_array_element (PLAN_TYPE_ARRAY_SRC,
            "planarraysrc", stage->node->name);
        _plan_work_count_source_rows (self, stage->element);
        break;
      case PLAN_NODE_MAP:
        stage->element = _plan_work_make_map (self, stage, error);
        break;
      case PLAN_NODE_REDUCE:
        stage->element = _plan_work_make_reduce (self, stage, error);
        break;
      case PLAN_NODE_CUSTOM:
        stage->element = make_custom (self, stage, error);
        break;
      default:
        stage->element = _plan_work_make_stencil (self, stage, error);
        break;
    }
    if (stage->element == NULL || !add_to_pipeline (self, stage->element))
      return FALSE;
  }
  for (i = 0; i < self->outputs->len; i++) {
    Output *output = g_ptr_array_index (self->outputs, i);
    gchar *name = output->node->kind == PLAN_NODE_SINK ?
        g_strdup (output->name) : g_strdup_printf ("%s-out", output->name);

    output->element = _plan_work_make_array_element (PLAN_TYPE_ARRAY_SINK,
        "planarraysink", name);
    g_free (name);
    name = g_strdup_printf ("output '%s'", output->name);
    _plan_array_sink_set_label (PLAN_ARRAY_SINK (output->element), name);
    g_free (name);
    add_to_pipeline (self, output->element);
  }
  return TRUE;
}

static gboolean
link_elements (PlanWork * self, GError ** error)
{
  guint i, j;

  for (i = 0; i < self->nodes->len; i++) {
    Stage *stage = g_ptr_array_index (self->stages, i);

    if (stage->node->index != i || stage->fused)
      continue;
    for (j = 0; j < stage->inputs->len; j++)
      ((Stage *) g_ptr_array_index (stage->inputs, j))->n_branches++;
  }
  for (i = 0; i < self->outputs->len; i++)
    ((Output *) g_ptr_array_index (self->outputs, i))->producer->n_branches++;

  for (i = 0; i < self->nodes->len; i++) {
    Stage *stage = g_ptr_array_index (self->stages, i);

    if (stage->node->index != i || stage->fused)
      continue;
    for (j = 0; j < stage->inputs->len; j++) {
      GstPad *sinkpad = input_pad (stage, j);
      gboolean ok;

      if (sinkpad == NULL) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
            "%s did not give a pad for input %u",
            GST_OBJECT_NAME (stage->element), j);
        return FALSE;
      }
      ok = link_to (self, g_ptr_array_index (stage->inputs, j), sinkpad,
          error);

      gst_object_unref (sinkpad);
      if (!ok)
        return FALSE;
    }
  }
  for (i = 0; i < self->outputs->len; i++) {
    Output *output = g_ptr_array_index (self->outputs, i);
    GstPad *sinkpad = gst_element_get_static_pad (output->element, "sink");
    gboolean ok = link_to (self, output->producer, sinkpad, error);

    gst_object_unref (sinkpad);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

PlanWork *
_plan_work_new (PlanGraph * graph, PlanTarget target, PlanRealizeFlags flags,
    GError ** error)
{
  PlanWork *self = g_object_new (PLAN_TYPE_WORK, NULL);
  GPtrArray *nodes = _plan_graph_get_nodes (graph);
  guint i;

  self->target = target;
  /* Every kernel on the device: without one, say so now rather than when
   * the first run starts its elements. The work holds it: the elements
   * let go of it when a run stops, and a device nobody holds is closed
   * (a CUDA context made again at each start). */
  if (target == PLAN_TARGET_CUDA) {
    self->device = plan_device_get ("cuda", error);
    if (self->device == NULL) {
      g_prefix_error (error, "target cuda: ");
      goto failed;
    }
  }
  for (i = 0; i < nodes->len; i++)
    g_ptr_array_add (self->nodes, g_object_ref (g_ptr_array_index (nodes,
                i)));
  if (!make_stages (self, error) || !check_axes (self, error))
    goto failed;
  if (!(flags & PLAN_REALIZE_NO_FUSE))
    fuse (self);

  self->pipeline = GST_PIPELINE (gst_object_ref_sink (gst_pipeline_new
          (NULL)));
  if (!make_elements (self, error) || !link_elements (self, error))
    goto failed;
  _plan_work_decide_direct (self);
  GST_DEBUG_OBJECT (self->pipeline, "realized %u nodes as %u kernels%s",
      self->nodes->len, plan_work_get_n_kernels (self), self->direct ?
      "; small dispatches in memory run on the caller's thread" : "");
  return self;

failed:
  g_object_unref (self);
  return NULL;
}
