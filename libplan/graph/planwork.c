/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planwork
 * @title: PlanWork
 * @short_description: a realized plan: a prepared pipeline, dispatched on
 *   bindings
 *
 * plan_graph_realize() turns a #PlanGraph into a #PlanWork: a #GstPipeline
 * with one element per step, prepared once. plan_work_dispatch() binds the
 * sources and outputs (#PlanBindings), checks the dtypes and shapes
 * against the graph, starts the pipeline and returns a #PlanFuture at
 * once. When the future is done, the work can be dispatched again, on the
 * same or other bindings, without rebuilding the pipeline; a dispatch
 * while another one runs waits its turn (at most
 * plan_work_get_max_queued() of them), and futures complete in order.
 *
 * The pipeline runs on GStreamer's streaming threads; a runner thread of
 * libplan's sets its states and waits on its bus, so the caller's thread
 * never blocks. plan_work_dispatch_async() delivers completion on the
 * caller's thread-default main context, following GIO.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "graph-private.h"

#include <string.h>

#define GST_CAT_DEFAULT plan_graph_debug

/* Buffers a queue after a tee holds: enough for one branch to run ahead
 * of another by a few chunks, and bounded. */
#define BRANCH_QUEUE_BUFFERS 4

/* Dispatches that may wait behind a running one, unless set otherwise. */
#define DEFAULT_MAX_QUEUED 64

/* A dispatch waiting for the run before it to end: checked already, bound
 * and started by the runner, in order. */
typedef struct
{
  PlanFuture *future;
  PlanBindings *bindings;
} Pending;

static void
pending_free (Pending * pending)
{
  g_object_unref (pending->future);
  g_object_unref (pending->bindings);
  g_free (pending);
}

/* One element of the pipeline that computes, or an input. */
typedef struct _Stage Stage;
struct _Stage
{
  PlanNodeKind kind;            /* SOURCE, MAP, REDUCE or STENCIL */
  PlanNode *node;               /* whose output the stage produces */
  gchar *expr;                  /* map: fused expression; reduce: combiner */
  gchar *pre_map;               /* reduce: a map fused into it, in x */
  PlanDType pre_map_dtype;
  GPtrArray *inputs;            /* Stage, in argument order (borrowed) */
  gboolean fused;               /* merged into its consumer: no element */
  GstElement *element;          /* in the pipeline */
  GstElement *tee;              /* when the output has several branches */
  guint n_branches;
  /* a map run on the caller's thread (dispatch_lock): the expression as
   * planmap compiles it, for inputs of direct_key's dtypes and shapes */
  PlanExpr *direct_expr;         /* a map's; a reduction's fused map */
  PlanReducer *direct_reducer;
  PlanStencilKernel *direct_stencil;
  PlanArrayInfo *direct_key;
  PlanArrayInfo direct_out;
};

/* An output: a sink node, or a node no other node takes. */
typedef struct
{
  gchar *name;
  Stage *producer;
  PlanNode *node;
  GstElement *element;          /* planarraysink or planfilesink */
  /* set by a dispatch (no run going), read by its run: the caller's array
   * of a wider dtype that the result is cast into at the end */
  PlanArray *cast_to;
} Output;

struct _PlanWork
{
  GObject parent;

  /* construct-only, no lock */
  PlanTarget target;
  GstPipeline *pipeline;
  GPtrArray *nodes;             /* PlanNode: the graph as realized */
  GPtrArray *stages;            /* Stage, inputs first */
  GPtrArray *outputs;           /* Output */
  GString *links;               /* the links, in gst-launch syntax */

  GMutex dispatch_lock;         /* held through plan_work_dispatch() */
  /* dispatch_lock: every node's output for the sources of the last
   * bindings that checked out, so that a dispatch on sources of the same
   * dtypes and shapes does not compile the expressions again */
  PlanArrayInfo *known_infos;
  GMutex lock;
  /* protected by lock */
  PlanFuture *running;          /* the dispatch that is running */
  GQueue pending;               /* Pending: dispatches waiting their turn */
  guint max_queued;
  /* Set by the runner when a run ended in PLAYING, read by the next
   * dispatch (never while one runs). */
  gboolean warm;

  /* construct-only: whether small dispatches in memory may run on the
   * caller's thread (a CPU plan of maps only), and up to how many
   * elements per map */
  gboolean direct;
  gsize direct_max;

  /* set by plan_work_dispatch() for its run, read by the runner */
  gboolean memory_only;         /* bound to arrays only: may stay PLAYING */
  gboolean restart;             /* this run restarts a warm pipeline */
};

G_DEFINE_TYPE (PlanWork, plan_work, G_TYPE_OBJECT);

static void
stage_free (Stage * stage)
{
  g_free (stage->expr);
  g_free (stage->pre_map);
  g_ptr_array_unref (stage->inputs);
  g_clear_pointer (&stage->direct_expr, plan_expr_unref);
  g_clear_pointer (&stage->direct_reducer, plan_reducer_unref);
  g_clear_pointer (&stage->direct_stencil, plan_stencil_kernel_free);
  g_free (stage->direct_key);
  g_free (stage);
}

static void
output_free (Output * output)
{
  g_clear_object (&output->cast_to);
  g_free (output->name);
  g_free (output);
}

/* A sink's slot in the stages holds its input's stage; each stage is
 * freed from its own slot, last first, since a sink comes after its
 * input. */
static void
free_stages (PlanWork * self)
{
  guint i;

  for (i = self->stages->len; i-- > 0;) {
    Stage *stage = g_ptr_array_index (self->stages, i);

    if (stage->node->index == i)
      stage_free (stage);
  }
  g_ptr_array_unref (self->stages);
}

static void
plan_work_finalize (GObject * object)
{
  PlanWork *self = PLAN_WORK (object);

  if (self->pipeline) {
    gst_element_set_state (GST_ELEMENT (self->pipeline), GST_STATE_NULL);
    gst_object_unref (self->pipeline);
  }
  g_ptr_array_unref (self->outputs);
  free_stages (self);
  g_ptr_array_unref (self->nodes);
  g_string_free (self->links, TRUE);
  g_free (self->known_infos);
  g_mutex_clear (&self->lock);
  g_mutex_clear (&self->dispatch_lock);
  G_OBJECT_CLASS (plan_work_parent_class)->finalize (object);
}

static void
plan_work_class_init (PlanWorkClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = plan_work_finalize;
}

static void
plan_work_init (PlanWork * self)
{
  g_mutex_init (&self->lock);
  g_mutex_init (&self->dispatch_lock);
  g_queue_init (&self->pending);
  self->max_queued = DEFAULT_MAX_QUEUED;
  self->stages = g_ptr_array_new ();
  self->outputs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      output_free);
  self->nodes = g_ptr_array_new_with_free_func (g_object_unref);
  self->links = g_string_new (NULL);
}

/* The array elements are made through their factories when the plugin
 * that registers them is loaded, and directly otherwise. */
static GstElement *
make_array_element (GType type, const gchar * factory, const gchar * name)
{
  GstElement *element = gst_element_factory_make (factory, name);

  return element ? element : g_object_new (type, "name", name, NULL);
}

static const gchar *
factory_name (GstElement * element)
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

static Stage *
stage_of (PlanWork * self, PlanNode * node)
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
        g_ptr_array_add (stage->inputs, stage_of (self, input));
    }
    /* A sink has no stage of its own: its slot holds its input's. */
    g_ptr_array_add (self->stages, stage ? stage : stage_of (self,
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
      output->producer = stage_of (self, node);
      g_ptr_array_add (self->outputs, output);
    } else if (n_consumers[i] == 0 && node->kind == PLAN_NODE_SOURCE) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "source '%s' is used by no node: remove it or give it to one",
          node->name);
      return FALSE;
    } else if (n_consumers[i] == 0) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "%s '%s' is used by no output: the graph has sinks, so give it "
          "one (plan_graph_add_sink) or remove it", _plan_node_kind_nick (node->kind),
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
            "%u and '%s' has %u", _plan_node_kind_nick (node->kind), node->name,
            first->name, first->ndim, other->name, other->ndim);
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

static GstElement *
make_element (const gchar * factory, const gchar * name, GError ** error)
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

static GstElement *
make_map (PlanWork * self, Stage * stage, GError ** error)
{
  GstElement *e = make_element ("planmap", stage->node->name, error);

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

static GstElement *
make_reduce (PlanWork * self, Stage * stage, GError ** error)
{
  PlanNode *node = stage->node;
  GstElement *e = make_element ("planreduce", node->name, error);

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

static GstElement *
make_stencil (PlanWork * self, Stage * stage, GError ** error)
{
  PlanNode *node = stage->node;
  GstElement *e = make_element ("planstencil", node->name, error);

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
  GstElement *e = make_element ("plancustom", node->name, error);
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
    stage->tee = make_element ("tee", name, error);
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
  queue = make_element ("queue", name, error);
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

static void count_source_rows (PlanWork * self, GstElement * element);
static void decide_direct (PlanWork * self);

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
        stage->element = make_array_element (PLAN_TYPE_ARRAY_SRC,
            "planarraysrc", stage->node->name);
        count_source_rows (self, stage->element);
        break;
      case PLAN_NODE_MAP:
        stage->element = make_map (self, stage, error);
        break;
      case PLAN_NODE_REDUCE:
        stage->element = make_reduce (self, stage, error);
        break;
      case PLAN_NODE_CUSTOM:
        stage->element = make_custom (self, stage, error);
        break;
      default:
        stage->element = make_stencil (self, stage, error);
        break;
    }
    if (stage->element == NULL || !add_to_pipeline (self, stage->element))
      return FALSE;
  }
  for (i = 0; i < self->outputs->len; i++) {
    Output *output = g_ptr_array_index (self->outputs, i);
    gchar *name = output->node->kind == PLAN_NODE_SINK ?
        g_strdup (output->name) : g_strdup_printf ("%s-out", output->name);

    output->element = make_array_element (PLAN_TYPE_ARRAY_SINK,
        "planarraysink", name);
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
   * the first run starts its elements. */
  if (target == PLAN_TARGET_CUDA) {
    PlanDevice *device = plan_device_get ("cuda", error);

    if (device == NULL) {
      g_prefix_error (error, "target cuda: ");
      goto failed;
    }
    g_object_unref (device);
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
  decide_direct (self);
  GST_DEBUG_OBJECT (self->pipeline, "realized %u nodes as %u kernels%s",
      self->nodes->len, plan_work_get_n_kernels (self), self->direct ?
      "; small dispatches in memory run on the caller's thread" : "");
  return self;

failed:
  g_object_unref (self);
  return NULL;
}

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

static gboolean
check_binding_names (PlanWork * self, PlanBindings * bindings,
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

static gboolean
source_info (PlanNode * node, PlanBinding * binding, PlanArrayInfo * info,
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
        "axes but is bound to one of shape %s", node->ndim, s);
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
static PlanExpr *
compile_map (PlanNode * node, const gchar * text, guint n,
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
  expr = compile_map (node, node->expr, n, ins, a->ndim == 0, out, error);
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
static PlanStencilKernel *
stencil_inputs_kernel (PlanNode * node, const PlanArrayInfo * in,
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
    if ((kernel = stencil_inputs_kernel (node, in, error)) == NULL)
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
      g_prefix_error (error, "%s '%s': ", _plan_node_kind_nick (node->kind), node->name);
      return FALSE;
    }
  }
  return TRUE;
}

/* infer_infos(), or what it gave last time for sources of the same dtypes
 * and shapes (nothing else it reads changes between dispatches). */
static gboolean
infer_known_infos (PlanWork * self, PlanArrayInfo * infos, GError ** error)
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

static gboolean
check_output (Output * output, PlanBinding * binding,
    const PlanArrayInfo * info, GError ** error)
{
  const PlanArrayInfo *have;
  gchar *want_s, *have_s;

  if (binding == NULL || binding->kind == PLAN_BINDING_FILE
      || binding->kind == PLAN_BINDING_WRITER)
    return TRUE;
  if (binding->kind != PLAN_BINDING_ARRAY) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "output "
        "'%s' is bound to a %s, which only sources take", output->name,
        binding->kind == PLAN_BINDING_READER ? "chunk reader" : "raw file");
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
      "shape %s, but it is bound to a %s array of shape %s", output->name,
      plan_dtype_to_string (info->dtype), want_s,
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
static gboolean
check_overlaps (PlanWork * self, PlanBindings * bindings, GError ** error)
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

/* ---------------------------------------------------------------------
 * Dispatch: the source and sink elements
 * --------------------------------------------------------------------- */

/* Puts @replacement where @element is, linked to the same peer. */
static void
replace_element (PlanWork * self, GstElement ** element,
    GstElement * replacement)
{
  gboolean is_src = (*element)->numsrcpads > 0;
  GstPad *pad = gst_element_get_static_pad (*element, is_src ? "src" :
      "sink");
  GstPad *peer = gst_pad_get_peer (pad), *new_pad;

  gst_element_set_state (*element, GST_STATE_NULL);
  if (is_src)
    gst_pad_unlink (pad, peer);
  else
    gst_pad_unlink (peer, pad);
  gst_object_unref (pad);
  gst_bin_remove (GST_BIN (self->pipeline), *element);

  *element = replacement;
  gst_bin_add (GST_BIN (self->pipeline), replacement);
  new_pad = gst_element_get_static_pad (replacement, is_src ? "src" : "sink");
  if (is_src)
    gst_pad_link (new_pad, peer);
  else
    gst_pad_link (peer, new_pad);
  gst_object_unref (new_pad);
  gst_object_unref (peer);
}

/* An element of @type in @element's place, keeping its name. */
static gboolean
ensure_element (PlanWork * self, GstElement ** element, const gchar * factory,
    GError ** error)
{
  GstElement *replacement;
  gchar *name;

  if (strcmp (factory_name (*element), factory) == 0)
    return TRUE;
  name = gst_object_get_name (GST_OBJECT (*element));
  if (strcmp (factory, "planarraysrc") == 0)
    replacement = make_array_element (PLAN_TYPE_ARRAY_SRC, factory, name);
  else if (strcmp (factory, "planarraysink") == 0)
    replacement = make_array_element (PLAN_TYPE_ARRAY_SINK, factory, name);
  else
    replacement = make_element (factory, name, error);
  g_free (name);
  if (replacement == NULL)
    return FALSE;
  replace_element (self, element, replacement);
  if (replacement->numsrcpads > 0)
    count_source_rows (self, replacement);
  return TRUE;
}

static PlanArray *
read_chunk (guint64 first_row, gpointer user_data, GError ** error)
{
  PlanBinding *binding = user_data;

  return binding->read (first_row, binding->user_data, error);
}

static gboolean
write_chunk (PlanArray * chunk, guint64 first_row, gpointer user_data,
    GError ** error)
{
  PlanBinding *binding = user_data;

  return binding->write (chunk, first_row, binding->user_data, error);
}

static gboolean
bind_source (PlanWork * self, Stage * stage, PlanBinding * binding,
    GError ** error)
{
  gchar *shape;

  if (self->restart) {
    _plan_array_src_rebind (PLAN_ARRAY_SRC (stage->element), binding->array);
    return TRUE;
  }
  if (binding->kind == PLAN_BINDING_ARRAY
      || binding->kind == PLAN_BINDING_READER) {
    if (!ensure_element (self, &stage->element, "planarraysrc", error))
      return FALSE;
    if (binding->kind == PLAN_BINDING_ARRAY)
      plan_array_src_set_array (PLAN_ARRAY_SRC (stage->element),
          binding->array);
    else
      plan_array_src_set_reader (PLAN_ARRAY_SRC (stage->element),
          &binding->info, read_chunk, _plan_binding_ref (binding),
          (GDestroyNotify) _plan_binding_unref);
    return TRUE;
  }
  if (!ensure_element (self, &stage->element, "planfilesrc", error))
    return FALSE;
  if (binding->kind == PLAN_BINDING_FILE && binding->in_container) {
    g_object_set (stage->element, "location", binding->location, "format",
        PLAN_FILE_FORMAT_AUTO, "member", binding->dataset, "dataset",
        binding->dataset, NULL);
    return TRUE;
  }
  if (binding->kind == PLAN_BINDING_FILE) {
    g_object_set (stage->element, "location", binding->location, "format",
        PLAN_FILE_FORMAT_NPY, NULL);
    return TRUE;
  }
  shape = plan_shape_to_string (binding->info.ndim, binding->info.shape);
  g_object_set (stage->element, "location", binding->location, "format",
      PLAN_FILE_FORMAT_RAW, "dtype", binding->info.dtype, "shape", shape,
      NULL);
  g_free (shape);
  return TRUE;
}

/* An output left unbound is collected into an array the future hands
 * back: made here when its shape is known, so that the rows are computed
 * straight into it, and by the sink as they come otherwise. */
static gboolean
bind_output (PlanWork * self, Output * output, PlanBinding * binding,
    const PlanArrayInfo * info, GError ** error)
{
  PlanArraySink *sink;
  PlanArray *array;

  if (binding != NULL && binding->kind == PLAN_BINDING_FILE) {
    if (!ensure_element (self, &output->element, "planfilesink", error))
      return FALSE;
    g_object_set (output->element, "location", binding->location, NULL);
    if (binding->in_container && binding->dataset)
      g_object_set (output->element, "dataset", binding->dataset, NULL);
    return TRUE;
  }
  array = NULL;
  g_clear_object (&output->cast_to);
  if (binding != NULL && binding->kind == PLAN_BINDING_ARRAY
      && plan_array_get_dtype (binding->array) != info->dtype) {
    /* A reduction into a wider dtype (check_output): computed into an
     * array of its own dtype, cast into the caller's at the end. */
    array = _plan_array_new_uninitialized (info, error);
    if (array == NULL) {
      g_prefix_error (error, "output '%s': ", output->name);
      return FALSE;
    }
    output->cast_to = g_object_ref (binding->array);
  } else if (binding != NULL && binding->kind == PLAN_BINDING_ARRAY
      && (info->ndim == 0 ? plan_array_get_info (binding->array)->ndim != 0
          : !plan_array_info_same_rows (plan_array_get_info
              (binding->array), info))) {
    /* A scalar or reduction bound to an array of another shape and the
     * same size (check_output): the sink writes a view of it in the
     * result's shape. */
    array = plan_array_new_wrapped (plan_array_get_writable_data
        (binding->array, NULL), plan_array_get_size (binding->array),
        info->dtype, info->ndim, info->shape,
        g_object_ref (binding->array), g_object_unref, error);
    if (array == NULL) {
      g_prefix_error (error, "output '%s': ", output->name);
      return FALSE;
    }
  } else if (binding != NULL && binding->kind == PLAN_BINDING_ARRAY)
    array = g_object_ref (binding->array);
  else if (binding == NULL && (info->ndim == 0 || info->shape[0] >= 0)
      && (array = _plan_array_new_uninitialized (info, error)) == NULL) {
    g_prefix_error (error, "output '%s': ", output->name);
    return FALSE;
  }
  if (self->restart) {
    _plan_array_sink_rebind (PLAN_ARRAY_SINK (output->element), array);
  } else if (ensure_element (self, &output->element, "planarraysink",
          error)) {
    sink = PLAN_ARRAY_SINK (output->element);
    plan_array_sink_set_array (sink, NULL);
    plan_array_sink_set_writer (sink, NULL, NULL, NULL);
    if (array != NULL)
      plan_array_sink_set_array (sink, array);
    else if (binding != NULL)
      plan_array_sink_set_writer (sink, write_chunk,
          _plan_binding_ref (binding), (GDestroyNotify) _plan_binding_unref);
  } else {
    g_clear_object (&array);
    return FALSE;
  }
  g_clear_object (&array);
  return TRUE;
}

/* Whether @bindings give every output an array or nothing (an array the
 * future makes). */
static gboolean
outputs_in_memory (PlanWork * self, PlanBindings * bindings)
{
  guint i;

  for (i = 0; i < self->outputs->len; i++) {
    Output *output = g_ptr_array_index (self->outputs, i);
    PlanBinding *binding = _plan_bindings_lookup (bindings, output->name);

    if (binding != NULL && binding->kind != PLAN_BINDING_ARRAY)
      return FALSE;
  }
  return TRUE;
}

/* Whether @bindings give every source an array and every output an array
 * or nothing (an array the future makes): a run of such a dispatch is in
 * memory only, and may stay in PLAYING at its end for the next dispatch
 * to restart (docs/plan-api.md, "Again"). */
static gboolean
binds_memory_only (PlanWork * self, PlanBindings * bindings)
{
  guint i;

  for (i = 0; i < self->stages->len; i++) {
    Stage *stage = g_ptr_array_index (self->stages, i);

    if (stage->kind == PLAN_NODE_SOURCE && _plan_bindings_lookup (bindings,
            stage->node->name)->kind != PLAN_BINDING_ARRAY)
      return FALSE;
  }
  return outputs_in_memory (self, bindings);
}

/* Whether the sources of a pipeline left in PLAYING by a run in memory can
 * take @bindings' arrays as they stand: the same dtype, shape and memory
 * as the last run's, so that the caps stay as they are. */
static gboolean
same_sources (PlanWork * self, PlanBindings * bindings)
{
  guint i;

  for (i = 0; i < self->stages->len; i++) {
    Stage *stage = g_ptr_array_index (self->stages, i);
    PlanArraySrc *src;
    PlanArray *array;
    PlanArrayInfo last;

    if (stage->kind != PLAN_NODE_SOURCE)
      continue;
    src = PLAN_ARRAY_SRC (stage->element);
    array = _plan_bindings_lookup (bindings, stage->node->name)->array;
    if (!plan_array_src_get_info (src, &last)
        || !plan_array_info_is_equal (&last, plan_array_get_info (array))
        || (plan_array_get_device_memory (array) != NULL) !=
        _plan_array_src_is_on_device (src))
      return FALSE;
  }
  return TRUE;
}

/* Checks @bindings against the graph, touching nothing (a dispatch that
 * waits behind a running one is checked while that one runs): fills
 * @infos, each node's output, and returns the rows the sources will
 * produce (-1 when not known), or -2 on error. */
static gint64
check_bindings (PlanWork * self, PlanBindings * bindings,
    PlanArrayInfo * infos, GError ** error)
{
  gint64 total = 0;
  guint i;

  if (!check_binding_names (self, bindings, error))
    return -2;
  for (i = 0; i < self->nodes->len; i++) {
    PlanNode *node = g_ptr_array_index (self->nodes, i);
    PlanBinding *binding;

    if (node->kind != PLAN_NODE_SOURCE)
      continue;
    binding = _plan_bindings_lookup (bindings, node->name);
    if (binding == NULL) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "source '%s' is not bound: give it an array, a file or a reader",
          node->name);
      return -2;
    }
    if (!source_info (node, binding, &infos[i], error)) {
      g_prefix_error (error, "source '%s': ", node->name);
      return -2;
    }
    if (total >= 0)
      total = infos[i].ndim == 0 ? total + 1 : infos[i].shape[0] < 0 ? -1 :
          total + infos[i].shape[0];
  }
  if (!infer_known_infos (self, infos, error))
    return -2;
  for (i = 0; i < self->outputs->len; i++) {
    Output *output = g_ptr_array_index (self->outputs, i);

    if (!check_output (output, _plan_bindings_lookup (bindings,
                output->name), &infos[output->node->index], error))
      return -2;
  }
  if (!check_overlaps (self, bindings, error))
    return -2;
  return total;
}

/* Checks @bindings against the graph and sets up the end elements; returns
 * the rows the sources will produce (-1 when not known), or -2 on error.
 * Only with no run going. */
static gint64
prepare (PlanWork * self, PlanBindings * bindings, GError ** error)
{
  PlanArrayInfo *infos = g_new0 (PlanArrayInfo, self->nodes->len);
  gint64 total;
  guint i;

  self->restart = FALSE;
  total = check_bindings (self, bindings, infos, error);
  if (total < -1)
    goto failed;
  self->memory_only = binds_memory_only (self, bindings);
  self->restart = self->warm && self->memory_only
      && same_sources (self, bindings);
  if (self->warm && !self->restart) {
    GST_DEBUG_OBJECT (self->pipeline, "new bindings: stopping to rebind");
    gst_element_set_state (GST_ELEMENT (self->pipeline), GST_STATE_READY);
  }
  self->warm = FALSE;

  for (i = 0; i < self->nodes->len; i++) {
    PlanNode *node = g_ptr_array_index (self->nodes, i);
    PlanBinding *binding = _plan_bindings_lookup (bindings, node->name);

    if (node->kind == PLAN_NODE_SOURCE
        && !bind_source (self, stage_of (self, node), binding, error))
      goto failed;
  }
  for (i = 0; i < self->outputs->len; i++) {
    Output *output = g_ptr_array_index (self->outputs, i);
    PlanBinding *binding = _plan_bindings_lookup (bindings, output->name);

    if (!bind_output (self, output, binding, &infos[output->node->index],
            error))
      goto failed;
  }
  g_free (infos);
  return total;

failed:
  /* Elements rebound for a restart go back to READY with the rest. */
  if (self->restart) {
    gst_element_set_state (GST_ELEMENT (self->pipeline), GST_STATE_READY);
    self->restart = FALSE;
  }
  g_free (infos);
  return -2;
}

/* ---------------------------------------------------------------------
 * Dispatch: running
 * --------------------------------------------------------------------- */

static GstPadProbeReturn
count_rows (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  PlanWork *self = user_data;
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);
  guint64 rows = 0;

  if (GST_BUFFER_OFFSET_IS_VALID (buffer)
      && GST_BUFFER_OFFSET_END_IS_VALID (buffer))
    rows = GST_BUFFER_OFFSET_END (buffer) - GST_BUFFER_OFFSET (buffer);
  g_mutex_lock (&self->lock);
  if (self->running)
    _plan_future_add_rows (self->running, rows);
  g_mutex_unlock (&self->lock);
  return GST_PAD_PROBE_OK;
}

/* Progress counts the rows the sources push. */
static void
count_source_rows (PlanWork * self, GstElement * element)
{
  GstPad *pad = gst_element_get_static_pad (element, "src");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_rows, self, NULL);
  gst_object_unref (pad);
}

/* The error of an element, as the user reads it: prefixed with the node
 * the element computes. */
static GError *
element_error (PlanWork * self, GstMessage * message)
{
  GError *err = NULL, *out;
  gchar *debug = NULL, *name = g_strdup (GST_MESSAGE_SRC_NAME (message));
  gchar *dash = strchr (name, '-');
  GstObject *src = GST_MESSAGE_SRC (message);
  const gchar *factory = GST_IS_ELEMENT (src) ?
      factory_name (GST_ELEMENT (src)) : "object";

  gst_message_parse_error (message, &err, &debug);
  GST_DEBUG_OBJECT (self->pipeline, "error from %s: %s (%s)", name,
      err->message, GST_STR_NULL (debug));
  if (dash)
    *dash = '\0';
  out = g_error_new (err->domain, err->code, "%s '%s' (%s %s): %s",
      "node", name, factory, GST_MESSAGE_SRC_NAME (message), err->message);
  g_error_free (err);
  g_free (debug);
  g_free (name);
  return out;
}

/* Writes @from's values into @to, of the same number of elements and a
 * wider dtype, converted as a map's cast converts them. */
static void
cast_into (PlanArray * from, PlanArray * to)
{
  static const gchar *const names[] = { "x" };
  PlanDType dtype = plan_array_get_dtype (from);
  PlanExpr *expr = plan_expr_compile_with_dtype ("x", 1, names, &dtype,
      plan_array_get_dtype (to), NULL);
  gconstpointer in[1] = { plan_array_get_data (from, NULL) };

  g_return_if_fail (expr != NULL);
  plan_expr_eval (expr, in, plan_array_get_writable_data (to, NULL),
      plan_array_get_size (from) / plan_dtype_get_size (dtype));
  plan_expr_unref (expr);
}

static void
collect_results (PlanWork * self, PlanFuture * future)
{
  guint i;

  for (i = 0; i < self->outputs->len; i++) {
    Output *output = g_ptr_array_index (self->outputs, i);
    PlanArray *array;

    if (!PLAN_IS_ARRAY_SINK (output->element))
      continue;
    array = plan_array_sink_get_array (PLAN_ARRAY_SINK (output->element));
    if (array != NULL && output->cast_to != NULL) {
      cast_into (array, output->cast_to);
      _plan_future_set_result (future, output->name, output->cast_to);
    } else if (array != NULL)
      _plan_future_set_result (future, output->name, array);
    g_clear_object (&array);
  }
}

/* The message that ends a run: EOS, an error, or our cancel (other
 * application messages belong to the application's own elements). */
static GstMessage *
wait_for_end (GstBus * bus)
{
  GstMessage *message;

  for (;;) {
    message = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_APPLICATION);
    if (GST_MESSAGE_TYPE (message) != GST_MESSAGE_APPLICATION
        || gst_message_has_name (message, "plan-cancel"))
      return message;
    gst_message_unref (message);
  }
}

/* Starts the next run of a pipeline left in PLAYING at the end of the last
 * one: a flushing seek to row 0 on every source, all with one seqnum so
 * that an element with several inputs forwards one flush, once every
 * input has seen it. The sources take up their new arrays at the seek, the
 * sinks theirs at the flush; the streaming threads stay as they are.
 *
 * Every source is flushing before the first one seeks: an element with
 * several inputs must stop its own thread (which its first FLUSH_START
 * from all inputs does) before rows of the new run reach one input, or it
 * would take them for a run whose other inputs had already ended. This
 * is what GstAggregator does itself for a seek sent through it. */
static gboolean
restart (PlanWork * self)
{
  guint32 seqnum = gst_util_seqnum_next ();
  guint i;

  GST_DEBUG_OBJECT (self->pipeline, "restarting in PLAYING, seqnum %u",
      seqnum);
  for (i = 0; i < self->stages->len; i++) {
    Stage *stage = g_ptr_array_index (self->stages, i);
    GstEvent *flush;

    if (stage->kind != PLAN_NODE_SOURCE)
      continue;
    flush = gst_event_new_flush_start ();
    gst_event_set_seqnum (flush, seqnum);
    gst_element_send_event (stage->element, flush);
  }
  for (i = 0; i < self->stages->len; i++) {
    Stage *stage = g_ptr_array_index (self->stages, i);
    GstEvent *seek;

    if (stage->kind != PLAN_NODE_SOURCE)
      continue;
    seek = gst_event_new_seek (1.0, GST_FORMAT_DEFAULT, GST_SEEK_FLAG_FLUSH,
        GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE, -1);
    gst_event_set_seqnum (seek, seqnum);
    if (!gst_element_send_event (stage->element, seek))
      return FALSE;
  }
  return TRUE;
}

/* The next dispatch of the queue, bound and ready to run (the work's
 * running one), or NULL when none is waiting. Dispatches whose bindings
 * no longer fit (a file changed meanwhile) end here with their error.
 * Called by the runner with dispatch_lock held. */
static PlanFuture *
next_pending (PlanWork * self)
{
  for (;;) {
    Pending *pending;
    PlanFuture *future;
    GError *error = NULL;
    GstBus *bus;

    g_mutex_lock (&self->lock);
    pending = g_queue_pop_head (&self->pending);
    if (pending != NULL)
      self->running = g_object_ref (pending->future);
    g_mutex_unlock (&self->lock);
    if (pending == NULL)
      return NULL;

    future = g_object_ref (pending->future);
    if (prepare (self, pending->bindings, &error) >= -1) {
      bus = gst_pipeline_get_bus (self->pipeline);
      gst_bus_set_flushing (bus, TRUE);
      gst_bus_set_flushing (bus, FALSE);
      gst_object_unref (bus);
      pending_free (pending);
      return future;
    }
    g_mutex_lock (&self->lock);
    g_clear_object (&self->running);
    g_mutex_unlock (&self->lock);
    _plan_future_complete (future, error);
    g_object_unref (future);
    pending_free (pending);
  }
}

/* Runs dispatches on a thread of the pool, one after another while any
 * wait: PLAYING (or a restart in PLAYING) until EOS, an error or a cancel.
 * A run in memory that ended well stays in PLAYING for the next dispatch
 * to restart; any other goes back to READY. The next queued dispatch is
 * bound before this one's future completes, so that futures complete in
 * the order of their dispatches. */
static void
run_dispatch (gpointer data, gpointer unused)
{
  PlanFuture *future = data;
  PlanWork *self = PLAN_WORK (_plan_future_get_work (future));
  GstBus *bus = gst_pipeline_get_bus (self->pipeline);

  while (future != NULL) {
    GstMessage *message = NULL;
    GError *error = NULL;
    gboolean warm = FALSE;
    PlanFuture *next;

    if (self->restart) {
      if (restart (self))
        message = wait_for_end (bus);
      else
        message = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    } else if (gst_element_set_state (GST_ELEMENT (self->pipeline),
            GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
      message = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    else
      message = wait_for_end (bus);

    if (message == NULL)
      error = g_error_new (PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "the pipeline "
          "could not start, and no element said why");
    else if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR)
      error = element_error (self, message);
    else if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_APPLICATION)
      error = g_error_new (G_IO_ERROR, G_IO_ERROR_CANCELLED,
          "the plan was cancelled");
    g_clear_pointer (&message, gst_message_unref);

    if (error == NULL && self->memory_only)
      warm = TRUE;
    else
      gst_element_set_state (GST_ELEMENT (self->pipeline), GST_STATE_READY);
    if (error == NULL)
      collect_results (self, future);
    GST_DEBUG_OBJECT (self->pipeline, "dispatch done: %s",
        error ? error->message : "ok");

    g_mutex_lock (&self->dispatch_lock);
    g_mutex_lock (&self->lock);
    g_clear_object (&self->running);
    self->warm = warm;
    g_mutex_unlock (&self->lock);
    next = next_pending (self);
    g_mutex_unlock (&self->dispatch_lock);

    _plan_future_complete (future, error);
    g_object_unref (future);
    future = next;
  }
  gst_object_unref (bus);
  g_object_unref (self);
}

static GThreadPool *
runner_pool (void)
{
  static GThreadPool *pool = NULL;

  if (g_once_init_enter (&pool))
    g_once_init_leave (&pool, g_thread_pool_new (run_dispatch, NULL, -1,
            FALSE, NULL));
  return pool;
}

void
_plan_work_cancel (PlanWork * self, PlanFuture * future)
{
  Pending *pending = NULL;
  GList *l;

  g_mutex_lock (&self->lock);
  if (self->running == future) {
    GST_DEBUG_OBJECT (self->pipeline, "cancelling");
    gst_element_post_message (GST_ELEMENT (self->pipeline),
        gst_message_new_application (GST_OBJECT (self->pipeline),
            gst_structure_new_empty ("plan-cancel")));
  } else {
    for (l = self->pending.head; l != NULL; l = l->next) {
      if (((Pending *) l->data)->future == future) {
        pending = l->data;
        g_queue_delete_link (&self->pending, l);
        break;
      }
    }
  }
  g_mutex_unlock (&self->lock);
  /* A dispatch still waiting its turn never starts. */
  if (pending != NULL) {
    GST_DEBUG_OBJECT (self->pipeline, "cancelled a queued dispatch");
    _plan_future_complete (future, g_error_new (G_IO_ERROR,
            G_IO_ERROR_CANCELLED, "the plan was cancelled before it started"));
    pending_free (pending);
  }
}

/* ---------------------------------------------------------------------
 * Dispatch: small runs on the caller's thread
 * --------------------------------------------------------------------- */

/* Elements per node up to which a dispatch in memory of a plan of maps,
 * reductions and stencils on the CPU is computed on the caller's thread:
 * there a node costs a few microseconds more than its loop, against the
 * hundreds a run of the pipeline costs in thread wake-ups, and a map
 * large enough to share is split across the worker pool as planmap splits
 * a chunk. 4 Mi elements (32 MiB of float64): past that the pipeline's
 * threads (reading, computing and writing nodes at once) win over one
 * node after another. PLAN_DIRECT_MAX_ELEMENTS overrides it (0: never). */
#define DIRECT_MAX_ELEMENTS ((gsize) 4 << 20)

static void
decide_direct (PlanWork * self)
{
  const gchar *env = g_getenv ("PLAN_DIRECT_MAX_ELEMENTS");
  guint i;

  self->direct_max = env ? g_ascii_strtoull (env, NULL, 10) :
      DIRECT_MAX_ELEMENTS;
  self->direct = self->target == PLAN_TARGET_CPU && self->direct_max > 0;
  for (i = 0; i < self->nodes->len && self->direct; i++) {
    Stage *stage = g_ptr_array_index (self->stages, i);

    if (stage->node->index != i || stage->fused)
      continue;
    if (stage->kind == PLAN_NODE_CUSTOM)
      self->direct = FALSE;
  }
}

/* Whether @bindings make a run that the caller's thread computes: every
 * source a host array with rows, every output an array or left to the
 * future, every node's input and output small, and only a reduction's
 * output a single value. */
static gboolean
runs_direct (PlanWork * self, PlanBindings * bindings,
    const PlanArrayInfo * infos)
{
  guint i, j;

  if (!self->direct)
    return FALSE;
  for (i = 0; i < self->nodes->len; i++) {
    Stage *stage = g_ptr_array_index (self->stages, i);
    PlanBinding *binding;

    if (stage->node->index != i || stage->fused)
      continue;
    if (stage->kind != PLAN_NODE_REDUCE
        && (infos[i].ndim == 0 || infos[i].shape[0] < 0))
      return FALSE;
    if (stage->kind == PLAN_NODE_SOURCE) {
      binding = _plan_bindings_lookup (bindings, stage->node->name);
      if (binding->kind != PLAN_BINDING_ARRAY
          || plan_array_get_device_memory (binding->array) != NULL)
        return FALSE;
      continue;
    }
    for (j = 0; j < stage->inputs->len; j++) {
      const PlanArrayInfo *in = &infos[((Stage *) g_ptr_array_index
              (stage->inputs, j))->node->index];

      if (in->ndim == 0 || in->shape[0] < 0
          || plan_array_info_get_n_rows (in) *
          plan_array_info_get_row_elements (in) > self->direct_max)
        return FALSE;
    }
    if (infos[i].ndim > 0 && plan_array_info_get_n_rows (&infos[i]) *
        plan_array_info_get_row_elements (&infos[i]) > self->direct_max)
      return FALSE;
  }
  return outputs_in_memory (self, bindings);
}

/* Forgets what @stage kept for inputs other than @in; TRUE when it kept
 * something for these. */
static gboolean
direct_keep (Stage * stage, const PlanArrayInfo * in)
{
  guint n = stage->inputs->len;

  if (stage->direct_key != NULL
      && memcmp (stage->direct_key, in, sizeof (PlanArrayInfo) * n) == 0)
    return TRUE;
  g_clear_pointer (&stage->direct_expr, plan_expr_unref);
  g_clear_pointer (&stage->direct_reducer, plan_reducer_unref);
  g_clear_pointer (&stage->direct_stencil, plan_stencil_kernel_free);
  g_free (stage->direct_key);
  stage->direct_key = g_memdup2 (in, sizeof (PlanArrayInfo) * n);
  return FALSE;
}

/* The map @stage as planmap sets itself up for inputs of @in (its
 * properties as make_map() sets them: expr, dtype, the constant arrays;
 * x, y, z, w and in0, in1, ... for the inputs). */
static gboolean
direct_map_setup (Stage * stage, const PlanArrayInfo * in, GError ** error)
{
  stage->direct_expr = compile_map (stage->node, stage->expr,
      stage->inputs->len, in, FALSE, &stage->direct_out, error);
  return stage->direct_expr != NULL;
}

/* The reduction @stage as planreduce sets itself up (make_reduce()'s
 * properties: op or combiner and identity, axis, ddof, and the map fused
 * into it, compiled as planreduce compiles its map). */
static gboolean
direct_reduce_setup (Stage * stage, const PlanArrayInfo * in,
    GError ** error)
{
  static const gchar *const names[] = { "x", "in0" };
  PlanNode *node = stage->node;
  PlanArrayInfo reduced = *in;

  if (stage->pre_map != NULL) {
    const PlanDType dtypes[] = { in->dtype, in->dtype };

    stage->direct_expr = plan_expr_compile_with_dtype (stage->pre_map,
        G_N_ELEMENTS (names), names, dtypes, stage->pre_map_dtype, error);
    if (stage->direct_expr == NULL)
      return FALSE;
    reduced.dtype = plan_expr_get_dtype (stage->direct_expr);
  }
  stage->direct_reducer = node->expr != NULL ?
      plan_reducer_new_custom (node->expr, node->identity, node->axis,
      &reduced, error) : plan_reducer_new (node->op, node->axis, &reduced,
      error);
  if (stage->direct_reducer == NULL)
    return FALSE;
  plan_reducer_set_ddof (stage->direct_reducer, node->ddof);
  plan_reducer_set_n_threads (stage->direct_reducer, 1);
  plan_reducer_get_output_info (stage->direct_reducer, &stage->direct_out);
  if (node->axis == PLAN_REDUCE_AXIS_INNER)
    stage->direct_out.shape[0] = in->shape[0];
  return TRUE;
}

/* The stencil @stage as planstencil sets itself up (make_stencil()'s
 * properties). */
static gboolean
direct_stencil_setup (Stage * stage, const PlanArrayInfo * in,
    GError ** error)
{
  PlanNode *node = stage->node;
  PlanWindow *window;

  if (node->windows != NULL) {
    stage->direct_stencil = stencil_inputs_kernel (node, in, error);
  } else {
    if ((window = plan_window_parse (node->window, error)) == NULL)
      return FALSE;
    stage->direct_stencil = plan_stencil_kernel_new_iterated (window,
        node->expr, in, node->boundary, node->cval, node->iterations,
        error);
    plan_window_unref (window);
  }
  if (stage->direct_stencil == NULL)
    return FALSE;
  plan_stencil_kernel_set_n_threads (stage->direct_stencil, 1);
  plan_stencil_kernel_get_output_info (stage->direct_stencil,
      &stage->direct_out);
  return TRUE;
}

/* The array output @i of @stage's result goes to: the bound array (a
 * view of it in the result's shape, as bind_output() makes), a new one, or
 * NULL for none bound. */
static PlanArray *
direct_target (PlanWork * self, PlanBindings * bindings, Stage * stage,
    GError ** error)
{
  const PlanArrayInfo *info = &stage->direct_out;
  guint i;

  for (i = 0; i < self->outputs->len; i++) {
    Output *output = g_ptr_array_index (self->outputs, i);
    PlanBinding *binding = _plan_bindings_lookup (bindings, output->name);
    const PlanArrayInfo *have;

    if (output->producer != stage || binding == NULL
        || plan_array_get_dtype (binding->array) != info->dtype)
      continue;
    have = plan_array_get_info (binding->array);
    if (info->ndim == 0 ? have->ndim == 0 : plan_array_info_same_rows (have,
            info))
      return g_object_ref (binding->array);
    return plan_array_new_wrapped (plan_array_get_writable_data
        (binding->array, NULL), plan_array_get_size (binding->array),
        info->dtype, info->ndim, info->shape, g_object_ref (binding->array),
        g_object_unref, error);
  }
  return _plan_array_new_uninitialized (info, error);
}

/* Computes @stage from @ins, its inputs' arrays, into @out. */
static gboolean
direct_compute (Stage * stage, PlanArray ** ins, PlanArray * out,
    GError ** error)
{
  const PlanArrayInfo *in = plan_array_get_info (ins[0]);
  gsize n_rows = plan_array_info_get_n_rows (in);
  guint8 *dest = plan_array_get_writable_data (out, NULL);
  gconstpointer data = plan_array_get_data (ins[0], NULL);
  guint n_in = stage->inputs->len, j;

  switch (stage->kind) {
    case PLAN_NODE_MAP:{
      guint n_names = plan_expr_get_n_names (stage->direct_expr);
      guint n_short = n_names - n_in - (stage->node->const_arrays ?
          stage->node->const_arrays->len : 0);
      gconstpointer *ptrs = g_newa (gconstpointer, n_names + 1);

      for (j = 0; j < n_names; j++)
        ptrs[j] = j < n_short + n_in ?
            plan_array_get_data (ins[j < n_short ? j : j - n_short], NULL) :
            plan_array_get_data (g_ptr_array_index (stage->node->const_arrays,
                j - n_short - n_in), NULL);
      plan_expr_eval_parallel (stage->direct_expr, ptrs, dest,
          plan_array_info_get_n_rows (&stage->direct_out) *
          plan_array_info_get_row_elements (&stage->direct_out), 0);
      return TRUE;
    }
    case PLAN_NODE_REDUCE:{
      PlanReducer *reducer = stage->direct_reducer;
      gboolean inner = stage->node->axis == PLAN_REDUCE_AXIS_INNER;
      PlanArray *mapped = NULL;
      gboolean ok;

      plan_reducer_reset (reducer);
      if (stage->direct_expr != NULL) {
        PlanArrayInfo info = *in;
        gconstpointer inputs[2] = { data, data };

        info.dtype = plan_expr_get_dtype (stage->direct_expr);
        mapped = _plan_array_new_uninitialized (&info, error);
        if (mapped == NULL)
          return FALSE;
        plan_expr_eval (stage->direct_expr, inputs,
            plan_array_get_writable_data (mapped, NULL),
            n_rows * plan_array_info_get_row_elements (in));
        data = plan_array_get_data (mapped, NULL);
      }
      ok = plan_reducer_push (reducer, data, n_rows, inner ? dest : NULL,
          error) && (inner || plan_reducer_finish (reducer, dest, error));
      g_clear_object (&mapped);
      return ok;
    }
    case PLAN_NODE_STENCIL:{
      PlanStencilKernel *kernel = stage->direct_stencil;
      PlanHaloBlock blocks[PLAN_HALO_MAX_BLOCKS];
      gsize row = plan_array_info_get_row_size (in);
      gsize out_row = plan_array_info_get_row_size (&stage->direct_out);
      gsize n_end, done = 0, total = plan_array_info_get_n_rows
          (&stage->direct_out);
      guint n_blocks, k;
      gboolean first = TRUE;
      gconstpointer *rows = g_newa (gconstpointer, n_in);

      plan_stencil_kernel_reset (kernel);
      for (j = 0; j < n_in; j++)
        rows[j] = plan_array_get_data (ins[j], NULL);
      if (plan_stencil_kernel_host_needs_end_rows (kernel, n_rows, &n_end)) {
        /* Each input's last rows, as planstencil reads them upstream. */
        for (j = 0; j < n_in; j++) {
          row = plan_array_info_get_row_size (plan_array_get_info (ins[j]));
          if (!plan_stencil_kernel_host_set_input_end_rows (kernel, j,
                  n_rows, (const guint8 *) rows[j] + (n_rows - n_end) * row,
                  n_end, error))
            return FALSE;
        }
      }
      do {
        if (first ? !plan_stencil_kernel_push_inputs (kernel, rows, n_rows,
                blocks, &n_blocks, error) : !plan_stencil_kernel_finish
            (kernel, blocks, &n_blocks, error))
          return FALSE;
        for (k = 0; k < n_blocks; k++) {
          if (done + blocks[k].n_rows > total) {
            g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE, "the stencil "
                "gave more rows than it said it would");
            return FALSE;
          }
        }
        plan_stencil_kernel_eval (kernel, blocks, n_blocks, dest +
            done * out_row);
        for (k = 0; k < n_blocks; k++)
          done += blocks[k].n_rows;
        if (first) {
          first = FALSE;
          n_blocks = 1;
        }
      } while (n_blocks > 0);
      return done == total;
    }
    default:
      return FALSE;
  }
}

/* Runs @bindings' nodes on this thread, one after another, each over the
 * whole arrays, with the same kernels set up as the elements set them up
 * (planmap's expression and evaluator, planreduce's reducer, planstencil's
 * stencil kernel), and gives @future the results. FALSE when anything
 * goes wrong: the caller runs the pipeline instead, which says what (the
 * outputs it wrote are written again). */
static gboolean
run_direct (PlanWork * self, PlanBindings * bindings, PlanFuture * future)
{
  guint n = self->nodes->len, i, j;
  PlanArray **results = g_new0 (PlanArray *, n);
  GError *error = NULL;
  gboolean ok = TRUE;

  for (i = 0; i < n && ok; i++) {
    Stage *stage = g_ptr_array_index (self->stages, i);
    guint n_in = stage->inputs->len;
    PlanArrayInfo *in;
    PlanArray **ins;

    if (stage->node->index != i || stage->fused)
      continue;
    if (stage->kind == PLAN_NODE_SOURCE) {
      results[i] = g_object_ref (_plan_bindings_lookup (bindings,
              stage->node->name)->array);
      continue;
    }
    in = g_newa (PlanArrayInfo, n_in);
    ins = g_newa (PlanArray *, n_in);
    for (j = 0; j < n_in; j++) {
      ins[j] = results[((Stage *) g_ptr_array_index (stage->inputs,
                  j))->node->index];
      in[j] = *plan_array_get_info (ins[j]);
    }
    if (!direct_keep (stage, in)) {
      ok = stage->kind == PLAN_NODE_MAP ? direct_map_setup (stage, in,
          &error) : stage->kind == PLAN_NODE_REDUCE ?
          direct_reduce_setup (stage, in, &error) :
          direct_stencil_setup (stage, in, &error);
      if (!ok) {
        g_clear_pointer (&stage->direct_key, g_free);
        break;
      }
    }
    results[i] = direct_target (self, bindings, stage, &error);
    ok = results[i] != NULL && direct_compute (stage, ins, results[i],
        &error);
  }

  for (i = 0; i < self->outputs->len && ok; i++) {
    Output *output = g_ptr_array_index (self->outputs, i);
    PlanBinding *binding = _plan_bindings_lookup (bindings, output->name);
    PlanArray *result = results[output->producer->node->index];

    /* A second output of the same node: its own array, a copy; an array
     * of a wider dtype: a cast. */
    if (binding != NULL && plan_array_get_address (binding->array) !=
        plan_array_get_address (result)) {
      if (plan_array_get_dtype (binding->array) ==
          plan_array_get_dtype (result))
        memcpy (plan_array_get_writable_data (binding->array, NULL),
            plan_array_get_data (result, NULL), plan_array_get_size (result));
      else
        cast_into (result, binding->array);
      result = binding->array;
    }
    _plan_future_set_result (future, output->name, result);
  }
  if (!ok)
    GST_DEBUG_OBJECT (self->pipeline, "running on the pipeline instead: %s",
        error ? error->message : "?");
  g_clear_error (&error);
  for (i = 0; i < n; i++)
    g_clear_object (&results[i]);
  g_free (results);
  return ok;
}

/**
 * plan_work_dispatch:
 * @work: a #PlanWork
 * @bindings: (nullable): the sources' and outputs' data; %NULL for a work
 *   without sources
 * @error: return location for an error
 *
 * Checks @bindings against the graph (every source bound; names, dtypes,
 * numbers of axes, lengths, output arrays of the exact dtype and shape
 * that share no memory with an input) and starts the plan. Returns at
 * once.
 *
 * While another dispatch of @work runs, the new one waits its turn: its
 * bindings are checked now, and it starts when the runs dispatched before
 * it have ended; futures complete in the order of their dispatches. At
 * most plan_work_get_max_queued() dispatches wait at a time.
 *
 * Returns: (transfer full) (nullable): the future of the run, or %NULL
 *   with @error set, before anything runs: %PLAN_ERROR_BUSY when as many
 *   dispatches as allowed wait already, or the binding's error naming its
 *   node.
 *
 * Since: 0.1
 */
PlanFuture *
plan_work_dispatch (PlanWork * work, PlanBindings * bindings,
    GError ** error)
{
  PlanBindings *empty = NULL;
  PlanFuture *future;
  GstBus *bus;
  gint64 total;
  gboolean busy;

  g_return_val_if_fail (PLAN_IS_WORK (work), NULL);
  g_return_val_if_fail (bindings == NULL || PLAN_IS_BINDINGS (bindings),
      NULL);

  if (bindings == NULL)
    bindings = empty = plan_bindings_new ();
  g_mutex_lock (&work->dispatch_lock);
  g_mutex_lock (&work->lock);
  busy = work->running != NULL;
  if (busy && g_queue_get_length (&work->pending) >= work->max_queued) {
    g_mutex_unlock (&work->lock);
    g_mutex_unlock (&work->dispatch_lock);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_BUSY, "the work has %u "
        "dispatches waiting behind the running one, as many as it takes "
        "(plan_work_set_max_queued): wait for a future first",
        work->max_queued);
    g_clear_object (&empty);
    return NULL;
  }
  g_mutex_unlock (&work->lock);

  if (busy) {
    /* Checked now, bound and started by the runner in its turn. The
     * runner takes dispatch_lock before it looks at the queue, so the
     * run cannot end unnoticed meanwhile. */
    PlanArrayInfo *infos = g_new0 (PlanArrayInfo, work->nodes->len);
    Pending *pending;

    total = check_bindings (work, bindings, infos, error);
    g_free (infos);
    if (total < -1) {
      g_mutex_unlock (&work->dispatch_lock);
      g_clear_object (&empty);
      return NULL;
    }
    future = _plan_future_new (G_OBJECT (work), total);
    pending = g_new (Pending, 1);
    pending->future = g_object_ref (future);
    pending->bindings = g_object_ref (bindings);
    g_mutex_lock (&work->lock);
    g_queue_push_tail (&work->pending, pending);
    g_mutex_unlock (&work->lock);
    g_mutex_unlock (&work->dispatch_lock);
    g_clear_object (&empty);
    return future;
  }

  if (work->direct) {
    PlanArrayInfo *infos = g_new0 (PlanArrayInfo, work->nodes->len);

    total = check_bindings (work, bindings, infos, error);
    if (total >= 0 && runs_direct (work, bindings, infos)) {
      future = _plan_future_new (G_OBJECT (work), total);
      if (run_direct (work, bindings, future)) {
        g_free (infos);
        _plan_future_add_rows (future, total);
        g_mutex_unlock (&work->dispatch_lock);
        g_clear_object (&empty);
        _plan_future_complete (future, NULL);
        return future;
      }
      g_object_unref (future);
    }
    g_free (infos);
    if (total < -1) {
      g_mutex_unlock (&work->dispatch_lock);
      g_clear_object (&empty);
      return NULL;
    }
  }

  total = prepare (work, bindings, error);
  g_clear_object (&empty);
  if (total < -1) {
    g_mutex_unlock (&work->dispatch_lock);
    return NULL;
  }

  /* Messages a past run left behind, a late cancel among them, are not
   * this run's. */
  bus = gst_pipeline_get_bus (work->pipeline);
  gst_bus_set_flushing (bus, TRUE);
  gst_bus_set_flushing (bus, FALSE);
  gst_object_unref (bus);

  future = _plan_future_new (G_OBJECT (work), total);
  g_mutex_lock (&work->lock);
  work->running = g_object_ref (future);
  g_mutex_unlock (&work->lock);
  g_object_ref (work);
  g_thread_pool_push (runner_pool (), g_object_ref (future), NULL);
  g_mutex_unlock (&work->dispatch_lock);
  return future;
}

/**
 * plan_work_set_max_queued:
 * @work: a #PlanWork
 * @max_queued: how many dispatches may wait behind the running one; 0
 *   refuses a dispatch while one runs
 *
 * Bounds the queue of dispatches (64 by default): a dispatch beyond it is
 * refused with %PLAN_ERROR_BUSY. Each waiting dispatch holds its bindings
 * (and so its arrays) until it has run.
 *
 * Since: 0.1
 */
void
plan_work_set_max_queued (PlanWork * work, guint max_queued)
{
  g_return_if_fail (PLAN_IS_WORK (work));

  g_mutex_lock (&work->lock);
  work->max_queued = max_queued;
  g_mutex_unlock (&work->lock);
}

/**
 * plan_work_get_max_queued:
 * @work: a #PlanWork
 *
 * Returns: how many dispatches may wait behind the running one.
 *
 * Since: 0.1
 */
guint
plan_work_get_max_queued (PlanWork * work)
{
  guint max_queued;

  g_return_val_if_fail (PLAN_IS_WORK (work), 0);

  g_mutex_lock (&work->lock);
  max_queued = work->max_queued;
  g_mutex_unlock (&work->lock);
  return max_queued;
}

/**
 * plan_work_dispatch_async:
 * @work: a #PlanWork
 * @bindings: (nullable): the sources' and outputs' data
 * @cancellable: (nullable): cancels the run when triggered
 * @callback: called on the thread-default main context of the caller when
 *   the run is done
 * @user_data: data for @callback
 *
 * Dispatches like plan_work_dispatch(), and calls @callback when the run
 * is done, successfully or not; call plan_work_dispatch_finish() there.
 *
 * Since: 0.1
 */
void
plan_work_dispatch_async (PlanWork * work, PlanBindings * bindings,
    GCancellable * cancellable, GAsyncReadyCallback callback,
    gpointer user_data)
{
  GTask *task;
  PlanFuture *future;
  GError *error = NULL;

  g_return_if_fail (PLAN_IS_WORK (work));

  task = g_task_new (work, cancellable, callback, user_data);
  g_task_set_source_tag (task, plan_work_dispatch_async);
  /* Cancelled already: nothing runs. */
  if (g_task_return_error_if_cancelled (task)) {
    g_object_unref (task);
    return;
  }
  future = plan_work_dispatch (work, bindings, &error);
  if (future == NULL) {
    g_task_return_error (task, error);
    g_object_unref (task);
    return;
  }
  if (cancellable != NULL)
    _plan_future_set_cancellable (future, cancellable);
  /* The run may have ended before the task could be handed over: then
   * the result is returned here. */
  if (!_plan_future_set_task (future, task)) {
    GError *run_error = NULL;

    if (plan_future_wait (future, 0, &run_error))
      g_task_return_pointer (task, g_object_ref (future), g_object_unref);
    else
      g_task_return_error (task, run_error);
  }
  g_object_unref (task);
  g_object_unref (future);
}

/**
 * plan_work_dispatch_finish:
 * @work: a #PlanWork
 * @result: the #GAsyncResult given to the callback
 * @error: return location for an error
 *
 * Returns: (transfer full) (nullable): the finished future, whose results
 *   can be read, or %NULL with @error set when the dispatch was refused or
 *   the run failed or was cancelled.
 *
 * Since: 0.1
 */
PlanFuture *
plan_work_dispatch_finish (PlanWork * work, GAsyncResult * result,
    GError ** error)
{
  g_return_val_if_fail (g_task_is_valid (result, work), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---------------------------------------------------------------------
 * Introspection
 * --------------------------------------------------------------------- */

/**
 * plan_work_get_pipeline:
 * @work: a #PlanWork
 *
 * The pipeline, for applications that add elements of their own, dump a
 * graph (GST_DEBUG_BIN_TO_DOT_FILE) or read its elements. Change its
 * state only through the work: a dispatch owns it while it runs, and it
 * is in READY between dispatches. Source and sink elements are swapped at
 * dispatch when a binding changes kind (array or reader, file).
 *
 * Returns: (transfer none): the pipeline.
 *
 * Since: 0.1
 */
GstPipeline *
plan_work_get_pipeline (PlanWork * work)
{
  g_return_val_if_fail (PLAN_IS_WORK (work), NULL);
  return work->pipeline;
}

/**
 * plan_work_get_target:
 * @work: a #PlanWork
 *
 * Returns: the target the work was realized for.
 *
 * Since: 0.1
 */
PlanTarget
plan_work_get_target (PlanWork * work)
{
  g_return_val_if_fail (PLAN_IS_WORK (work), PLAN_TARGET_AUTO);
  return work->target;
}

/**
 * plan_work_get_input_names:
 * @work: a #PlanWork
 *
 * Returns: (transfer full) (array zero-terminated=1): the sources' names,
 *   in the order they were added.
 *
 * Since: 0.1
 */
gchar **
plan_work_get_input_names (PlanWork * work)
{
  GPtrArray *names = g_ptr_array_new ();
  guint i;

  g_return_val_if_fail (PLAN_IS_WORK (work), NULL);

  for (i = 0; i < work->nodes->len; i++) {
    PlanNode *node = g_ptr_array_index (work->nodes, i);

    if (node->kind == PLAN_NODE_SOURCE)
      g_ptr_array_add (names, g_strdup (node->name));
  }
  g_ptr_array_add (names, NULL);
  return (gchar **) g_ptr_array_free (names, FALSE);
}

/**
 * plan_work_get_output_names:
 * @work: a #PlanWork
 *
 * Returns: (transfer full) (array zero-terminated=1): the outputs' names:
 *   the sinks', or when the graph has none, those of the nodes that no
 *   node takes; in the order they were added.
 *
 * Since: 0.1
 */
gchar **
plan_work_get_output_names (PlanWork * work)
{
  gchar **names;
  guint i;

  g_return_val_if_fail (PLAN_IS_WORK (work), NULL);

  names = g_new0 (gchar *, work->outputs->len + 1);
  for (i = 0; i < work->outputs->len; i++)
    names[i] = g_strdup (((Output *) g_ptr_array_index (work->outputs,
                i))->name);
  return names;
}

/**
 * plan_work_get_n_kernels:
 * @work: a #PlanWork
 *
 * Returns: the number of kernel elements (maps, reductions, stencils) in
 *   the pipeline: fewer than the graph's nodes when chains were fused.
 *
 * Since: 0.1
 */
guint
plan_work_get_n_kernels (PlanWork * work)
{
  guint i, n = 0;

  g_return_val_if_fail (PLAN_IS_WORK (work), 0);

  for (i = 0; i < work->nodes->len; i++) {
    Stage *stage = g_ptr_array_index (work->stages, i);

    n += stage->node->index == i && !stage->fused
        && stage->kind != PLAN_NODE_SOURCE;
  }
  return n;
}

/* A property value in gst-launch syntax, quoted when it must be. */
static gchar *
launch_value (const GValue * value)
{
  gchar *s = G_VALUE_HOLDS_STRING (value) ?
      g_value_dup_string (value) : gst_value_serialize (value), *quoted;
  GString *out;
  const gchar *p;

  if (s == NULL)
    return NULL;
  for (p = s; *p; p++)
    if (!g_ascii_isalnum (*p) && strchr ("_.+-:/", *p) == NULL)
      break;
  if (*p == '\0' && *s != '\0')
    return s;
  out = g_string_new ("\"");
  for (p = s; *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_c (out, '\\');
    g_string_append_c (out, *p);
  }
  g_string_append_c (out, '"');
  quoted = g_string_free (out, FALSE);
  g_free (s);
  return quoted;
}

/* The windows set on a stencil's request pads: `sink_1::window="p"`. */
static void
append_pad_windows (GString * out, GstElement * element)
{
  GList *l;

  GST_OBJECT_LOCK (element);
  for (l = element->sinkpads; l != NULL; l = l->next) {
    GValue value = G_VALUE_INIT;
    gchar *s;

    if (g_object_class_find_property (G_OBJECT_GET_CLASS (l->data),
            "window") == NULL)
      continue;
    g_value_init (&value, G_TYPE_STRING);
    g_object_get_property (l->data, "window", &value);
    if (g_value_get_string (&value) != NULL
        && (s = launch_value (&value)) != NULL) {
      g_string_append_printf (out, " %s::window=%s",
          GST_OBJECT_NAME (l->data), s);
      g_free (s);
    }
    g_value_unset (&value);
  }
  GST_OBJECT_UNLOCK (element);
}

/* @element as gst-launch declares it: its factory, name and every
 * property that differs from a new element's (which is what the parser
 * starts from). */
static void
append_element (GString * out, GstElement * element)
{
  GObject *fresh = g_object_new (G_OBJECT_TYPE (element), NULL);
  GParamSpec **specs;
  guint n, i;

  g_string_append_printf (out, " %s name=%s", factory_name (element),
      GST_OBJECT_NAME (element));
  specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (element), &n);
  for (i = 0; i < n; i++) {
    GValue value = G_VALUE_INIT, def = G_VALUE_INIT;
    gchar *s;

    if (!(specs[i]->flags & G_PARAM_WRITABLE)
        || (specs[i]->flags & G_PARAM_CONSTRUCT_ONLY)
        || strcmp (specs[i]->name, "name") == 0
        || strcmp (specs[i]->name, "parent") == 0)
      continue;
    g_value_init (&value, specs[i]->value_type);
    g_value_init (&def, specs[i]->value_type);
    g_object_get_property (G_OBJECT (element), specs[i]->name, &value);
    g_object_get_property (fresh, specs[i]->name, &def);
    if (g_param_values_cmp (specs[i], &value, &def) != 0
        && (s = launch_value (&value)) != NULL) {
      g_string_append_printf (out, " %s=%s", specs[i]->name, s);
      g_free (s);
    }
    g_value_unset (&value);
    g_value_unset (&def);
  }
  g_free (specs);
  gst_object_unref (gst_object_ref_sink (fresh));
  append_pad_windows (out, element);
}

/**
 * plan_work_to_launch_string:
 * @work: a #PlanWork
 *
 * The pipeline as a gst-launch-1.0 description: every element with the
 * properties that differ from their defaults, then every link. Parsed
 * with gst_parse_launch() it builds the same pipeline; with files bound
 * (after a dispatch on files) it runs as it is, and computes the same
 * results. planarraysrc and planarraysink elements are fed and read
 * through their own API.
 *
 * Returns: (transfer full): the description.
 *
 * Since: 0.1
 */
gchar *
plan_work_to_launch_string (PlanWork * work)
{
  GString *out = g_string_new (NULL);
  GstIterator *it;
  GValue item = G_VALUE_INIT;
  GPtrArray *elements = g_ptr_array_new ();
  guint i;

  g_return_val_if_fail (PLAN_IS_WORK (work), NULL);

  /* gst_bin_iterate_elements gives the elements last added first. */
  it = gst_bin_iterate_elements (GST_BIN (work->pipeline));
  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    g_ptr_array_insert (elements, 0, g_value_get_object (&item));
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  for (i = 0; i < elements->len; i++)
    append_element (out, g_ptr_array_index (elements, i));
  g_ptr_array_unref (elements);
  g_string_append (out, work->links->str);
  if (out->len > 0)
    g_string_erase (out, 0, 1);
  return g_string_free (out, FALSE);
}
