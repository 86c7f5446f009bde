/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:plangraph
 * @title: PlanGraph
 * @short_description: a plan of sources, maps, reductions, stencils and
 *   sinks, built from C
 *
 * A #PlanGraph is the plan of the original design: nodes that take earlier
 * nodes as their inputs.
 *
 * |[<!-- language="C" -->
 * PlanGraph *plan = plan_graph_new ();
 * PlanNode *a = plan_graph_add_source (plan, "a", 1, 0, &error);
 * PlanNode *b = plan_graph_add_source (plan, "b", 1, 0, &error);
 * PlanNode *ab[] = { a, b };
 * PlanNode *c = plan_graph_add_map (plan, "c", "x + y", 2, ab, 0, &error);
 * PlanWork *work = plan_graph_realize (plan, PLAN_TARGET_CPU, 0, &error);
 * ]|
 *
 * Everything that can be checked without the inputs' data is checked when
 * a node is added: names, expression syntax (the compiler's message, with
 * its column), names an expression uses, window pictures, a combiner and
 * its identity. The error names the node. What depends on the arrays
 * (dtypes, lengths) is checked at dispatch; what depends on the whole
 * graph (unused sources, nodes no output needs, inputs of different
 * numbers of axes) at plan_graph_realize().
 *
 * Since a node only takes nodes that exist as its inputs, a graph cannot
 * have a cycle.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "graph-private.h"

#include <string.h>

GST_DEBUG_CATEGORY (plan_graph_debug);
#define GST_CAT_DEFAULT plan_graph_debug

struct _PlanGraph
{
  GObject parent;

  guint id;
  GPtrArray *nodes;             /* PlanNode, in the order they were added */
  GHashTable *by_name;          /* name -> PlanNode (borrowed) */
};

G_DEFINE_TYPE (PlanNode, plan_node, G_TYPE_OBJECT);
G_DEFINE_TYPE_WITH_CODE (PlanGraph, plan_graph, G_TYPE_OBJECT,
    GST_DEBUG_CATEGORY_INIT (plan_graph_debug, "plangraph", 0,
        "The plan API"));

static const gchar *const map_short_names[] = { "x", "y", "z", "w" };

GType
plan_node_kind_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {PLAN_NODE_SOURCE, "A source", "source"},
    {PLAN_NODE_MAP, "A map", "map"},
    {PLAN_NODE_REDUCE, "A reduction", "reduce"},
    {PLAN_NODE_STENCIL, "A stencil", "stencil"},
    {PLAN_NODE_SINK, "A sink", "sink"},
    {PLAN_NODE_CUSTOM, "A custom kernel", "custom"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_enum_register_static ("PlanNodeKind", values));
  return id;
}

GType
plan_realize_flags_get_type (void)
{
  static gsize id = 0;
  static const GFlagsValue values[] = {
    {PLAN_REALIZE_NONE, "Fuse elementwise chains", "none"},
    {PLAN_REALIZE_NO_FUSE, "Keep one element per node", "no-fuse"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&id))
    g_once_init_leave (&id, g_flags_register_static ("PlanRealizeFlags",
            values));
  return id;
}

const gchar *
_plan_node_kind_nick (PlanNodeKind kind)
{
  GEnumValue *v = g_enum_get_value (g_type_class_ref (PLAN_TYPE_NODE_KIND),
      kind);

  return v ? v->value_nick : "node";
}

static void
plan_node_finalize (GObject * object)
{
  PlanNode *node = PLAN_NODE (object);

  g_ptr_array_unref (node->inputs);
  g_free (node->name);
  g_free (node->expr);
  g_free (node->identity);
  g_free (node->window);
  g_strfreev (node->windows);
  for (guint i = 0; i < node->n_props; i++)
    g_value_unset (&node->prop_values[i]);
  g_free (node->prop_values);
  g_strfreev (node->prop_names);
  g_strfreev (node->const_names);
  if (node->const_arrays)
    g_ptr_array_unref (node->const_arrays);
  G_OBJECT_CLASS (plan_node_parent_class)->finalize (object);
}

static void
plan_node_class_init (PlanNodeClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = plan_node_finalize;
}

static void
plan_node_init (PlanNode * node)
{
  node->inputs = g_ptr_array_new_with_free_func (g_object_unref);
  node->dtype = PLAN_DTYPE_UNKNOWN;
}

/**
 * plan_node_get_name:
 * @node: a #PlanNode
 *
 * Returns: (transfer none): the node's name, unique in its graph: the one
 *   given when it was added, or one made up from its kind (`map2`).
 *
 * Since: 0.1
 */
const gchar *
plan_node_get_name (PlanNode * node)
{
  g_return_val_if_fail (PLAN_IS_NODE (node), NULL);
  return node->name;
}

/**
 * plan_node_get_kind:
 * @node: a #PlanNode
 *
 * Returns: what the node computes.
 *
 * Since: 0.1
 */
PlanNodeKind
plan_node_get_kind (PlanNode * node)
{
  g_return_val_if_fail (PLAN_IS_NODE (node), PLAN_NODE_SOURCE);
  return node->kind;
}

/**
 * plan_node_get_n_inputs:
 * @node: a #PlanNode
 *
 * Returns: the number of the node's inputs (0 for a source).
 *
 * Since: 0.1
 */
guint
plan_node_get_n_inputs (PlanNode * node)
{
  g_return_val_if_fail (PLAN_IS_NODE (node), 0);
  return node->inputs->len;
}

/**
 * plan_node_get_input:
 * @node: a #PlanNode
 * @index: which input, from 0
 *
 * Returns: (transfer none) (nullable): the node's input @index, or %NULL
 *   when it has no such input.
 *
 * Since: 0.1
 */
PlanNode *
plan_node_get_input (PlanNode * node, guint index)
{
  g_return_val_if_fail (PLAN_IS_NODE (node), NULL);
  return index < node->inputs->len ? g_ptr_array_index (node->inputs,
      index) : NULL;
}

/**
 * plan_node_get_ndim:
 * @node: a #PlanNode
 *
 * Returns: the number of axes of the node's output: a source's as given,
 *   a map's, stencil's and sink's that of their (first) input, a
 *   reduction's 0 (`all`), one less than its input's (`0`) or 1 (`-1`).
 *
 * Since: 0.1
 */
guint
plan_node_get_ndim (PlanNode * node)
{
  g_return_val_if_fail (PLAN_IS_NODE (node), 0);
  return node->ndim;
}

static void
plan_graph_finalize (GObject * object)
{
  PlanGraph *graph = PLAN_GRAPH (object);

  g_hash_table_unref (graph->by_name);
  g_ptr_array_unref (graph->nodes);
  G_OBJECT_CLASS (plan_graph_parent_class)->finalize (object);
}

static void
plan_graph_class_init (PlanGraphClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = plan_graph_finalize;
}

static void
plan_graph_init (PlanGraph * graph)
{
  static gint next_id = 1;

  graph->id = g_atomic_int_add (&next_id, 1);
  graph->nodes = g_ptr_array_new_with_free_func (g_object_unref);
  graph->by_name = g_hash_table_new (g_str_hash, g_str_equal);
}

/**
 * plan_graph_new:
 *
 * Returns: (transfer full): a new, empty graph.
 *
 * Since: 0.1
 */
PlanGraph *
plan_graph_new (void)
{
  plan_init ();
  return g_object_new (PLAN_TYPE_GRAPH, NULL);
}

/**
 * plan_graph_get_node:
 * @graph: a #PlanGraph
 * @name: a node's name
 *
 * Returns: (transfer none) (nullable): the node called @name, if any.
 *
 * Since: 0.1
 */
PlanNode *
plan_graph_get_node (PlanGraph * graph, const gchar * name)
{
  g_return_val_if_fail (PLAN_IS_GRAPH (graph), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  return g_hash_table_lookup (graph->by_name, name);
}

/**
 * plan_graph_get_n_nodes:
 * @graph: a #PlanGraph
 *
 * Returns: the number of nodes added so far.
 *
 * Since: 0.1
 */
guint
plan_graph_get_n_nodes (PlanGraph * graph)
{
  g_return_val_if_fail (PLAN_IS_GRAPH (graph), 0);
  return graph->nodes->len;
}

GPtrArray *
_plan_graph_get_nodes (PlanGraph * graph)
{
  return graph->nodes;
}

/* Node names are identifiers, so that they read as Python keyword
 * arguments and can never clash with the names realize gives the elements
 * it adds (which contain a '-'). */
static gboolean
name_is_valid (const gchar * name)
{
  const gchar *p;

  if (!g_ascii_isalpha (name[0]) && name[0] != '_')
    return FALSE;
  for (p = name + 1; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;
  return p - name <= 64;
}

/* Checks @name (or makes one up) and the inputs, and makes the node; it is
 * added to the graph by add_node() once its own checks pass. */
static PlanNode *
new_node (PlanGraph * graph, PlanNodeKind kind, const gchar * name,
    guint n_inputs, PlanNode ** inputs, GError ** error)
{
  PlanNode *node;
  guint i;

  if (name != NULL && !name_is_valid (name))
    goto bad_name;
  if (name != NULL && g_hash_table_contains (graph->by_name, name))
    goto duplicate;
  for (i = 0; i < n_inputs; i++) {
    if (!PLAN_IS_NODE (inputs[i]))
      goto no_input;
    if (inputs[i]->graph_id != graph->id)
      goto foreign_input;
    if (inputs[i]->kind == PLAN_NODE_SINK)
      goto sink_input;
  }

  node = g_object_new (PLAN_TYPE_NODE, NULL);
  node->graph_id = graph->id;
  node->index = graph->nodes->len;
  node->kind = kind;
  if (name != NULL) {
    node->name = g_strdup (name);
  } else {
    guint n = graph->nodes->len;

    do
      node->name = g_strdup_printf ("%s%u", _plan_node_kind_nick (kind), n++);
    while (g_hash_table_contains (graph->by_name, node->name)
        && (g_free (node->name), TRUE));
  }
  for (i = 0; i < n_inputs; i++)
    g_ptr_array_add (node->inputs, g_object_ref (inputs[i]));
  if (n_inputs > 0)
    node->ndim = inputs[0]->ndim;
  return node;

  /* ERRORS */
bad_name:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%s '%s': a node's name must be an identifier of at most 64 "
        "characters (letters, digits and '_', not starting with a digit)",
        _plan_node_kind_nick (kind), name);
    return NULL;
  }
duplicate:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%s '%s': the graph already has a node called '%s'",
        _plan_node_kind_nick (kind), name, name);
    return NULL;
  }
no_input:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%s '%s': input %u is not a node", _plan_node_kind_nick (kind),
        name ? name : "(unnamed)", i);
    return NULL;
  }
foreign_input:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%s '%s': input %u ('%s') belongs to another graph",
        _plan_node_kind_nick (kind), name ? name : "(unnamed)", i, inputs[i]->name);
    return NULL;
  }
sink_input:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%s '%s': input %u ('%s') is a sink, which has no output to take",
        _plan_node_kind_nick (kind), name ? name : "(unnamed)", i, inputs[i]->name);
    return NULL;
  }
}

/* Takes @node into the graph, or frees it and prefixes @error with the
 * node when its checks failed (@ok FALSE). */
static PlanNode *
add_node (PlanGraph * graph, PlanNode * node, gboolean ok, GError ** error)
{
  if (!ok) {
    g_prefix_error (error, "%s '%s': ", _plan_node_kind_nick (node->kind), node->name);
    g_object_unref (node);
    return NULL;
  }
  g_ptr_array_add (graph->nodes, node);
  g_hash_table_insert (graph->by_name, node->name, node);
  GST_DEBUG ("graph %u: added %s '%s' with %u inputs", graph->id,
      _plan_node_kind_nick (node->kind), node->name, node->inputs->len);
  return node;
}

/**
 * plan_graph_add_source:
 * @graph: a #PlanGraph
 * @name: (nullable): the source's name, used to bind it at dispatch; an
 *   identifier. %NULL makes one up (`source0`).
 * @ndim: the number of axes of the arrays it takes, 1 to
 *   #PLAN_ARRAY_MAX_DIMS (0 for a single value)
 * @dtype: the dtype it takes, or %PLAN_DTYPE_UNKNOWN for any
 * @error: return location for an error
 *
 * Adds an input: an array, a file or a chunk reader bound at dispatch.
 *
 * Returns: (transfer none) (nullable): the node, owned by @graph, or %NULL
 *   with @error set.
 *
 * Since: 0.1
 */
PlanNode *
plan_graph_add_source (PlanGraph * graph, const gchar * name, guint ndim,
    PlanDType dtype, GError ** error)
{
  PlanNode *node;
  gboolean ok = TRUE;

  g_return_val_if_fail (PLAN_IS_GRAPH (graph), NULL);

  node = new_node (graph, PLAN_NODE_SOURCE, name, 0, NULL, error);
  if (node == NULL)
    return NULL;
  node->ndim = ndim;
  node->dtype = dtype;
  if (ndim > PLAN_ARRAY_MAX_DIMS) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "ndim is %u but arrays have at most %u axes", ndim,
        PLAN_ARRAY_MAX_DIMS);
    ok = FALSE;
  } else if (dtype < PLAN_DTYPE_UNKNOWN || dtype >= PLAN_DTYPE_N) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%d is not a dtype", dtype);
    ok = FALSE;
  }
  return add_node (graph, node, ok, error);
}

/* The dtype an input will have as far as the graph knows: a source's
 * required dtype propagates through nodes that keep it; anything else is
 * unknown until dispatch. */
static PlanDType
known_dtype (PlanNode * node)
{
  if (node->kind == PLAN_NODE_SOURCE || node->kind == PLAN_NODE_MAP)
    return node->dtype;
  return PLAN_DTYPE_UNKNOWN;
}

/* Compiles @expr over @names to check it as far as the graph knows. Where
 * an input's dtype is not known yet it is tried as each kind of dtype in
 * turn: float64, int64, uint64 (`x & 0x8000000000000000` holds for uint64
 * only), bool and complex128. An expression that fails for all of them (a
 * syntax error, an unknown name or function) fails for every dtype; the
 * error said is float64's. Errors depending on the dtypes come at
 * dispatch. */
static gboolean
check_expr (const gchar * expr, guint n_names, const gchar * const *names,
    const PlanDType * known, GError ** error)
{
  static const PlanDType tried[] = { PLAN_DTYPE_FLOAT64, PLAN_DTYPE_INT64,
    PLAN_DTYPE_UINT64, PLAN_DTYPE_BOOL, PLAN_DTYPE_COMPLEX128
  };
  PlanDType *dtypes = g_newa (PlanDType, MAX (n_names, 1));
  GError *first = NULL;
  gboolean all_known = TRUE;
  PlanExpr *compiled;
  guint i, pass;

  if (!plan_expr_check (expr, error))
    return FALSE;
  for (pass = 0; pass < G_N_ELEMENTS (tried); pass++) {
    for (i = 0; i < n_names; i++) {
      all_known &= known[i] != PLAN_DTYPE_UNKNOWN;
      dtypes[i] = known[i] != PLAN_DTYPE_UNKNOWN ? known[i] : tried[pass];
    }
    compiled = plan_expr_compile (expr, n_names, names, dtypes,
        first ? NULL : &first);
    if (compiled != NULL) {
      plan_expr_unref (compiled);
      g_clear_error (&first);
      return TRUE;
    }
    if (all_known)
      break;
  }
  g_propagate_error (error, first);
  return FALSE;
}

/* The names a map's expression calls its inputs, as planmap names them:
 * `x`, `y`, `z`, `w` for the first four, then `in0`, `in1`, … for every
 * input. */
gchar **
_plan_map_input_names (guint n_inputs, guint * n_names)
{
  guint n_short = MIN (n_inputs, G_N_ELEMENTS (map_short_names)), i;
  gchar **names = g_new0 (gchar *, n_short + n_inputs + 1);

  for (i = 0; i < n_short; i++)
    names[i] = g_strdup (map_short_names[i]);
  for (i = 0; i < n_inputs; i++)
    names[n_short + i] = g_strdup_printf ("in%u", i);
  *n_names = n_short + n_inputs;
  return names;
}

static gboolean
check_map_expr (PlanNode * node, GError ** error)
{
  guint n_inputs = node->inputs->len, n_names, n_short, n_consts, i;
  gchar **names = _plan_map_input_names (n_inputs, &n_names);
  PlanDType *known;
  const gchar **all;
  gboolean ok;

  n_consts = node->const_arrays ? node->const_arrays->len : 0;
  known = g_newa (PlanDType, n_names + n_consts + 1);
  all = g_newa (const gchar *, n_names + n_consts + 1);
  n_short = n_names - n_inputs;
  for (i = 0; i < n_names; i++) {
    known[i] = known_dtype (g_ptr_array_index (node->inputs,
            i < n_short ? i : i - n_short));
    all[i] = names[i];
  }
  for (i = 0; i < n_consts; i++) {
    known[n_names + i] =
        plan_array_get_dtype (g_ptr_array_index (node->const_arrays, i));
    all[n_names + i] = node->const_names[i];
  }
  ok = check_expr (node->expr, n_names + n_consts, all, known, error);
  g_strfreev (names);
  return ok;
}

/* The largest array constant of a map, in bytes of data: planmap's. */
#define MAX_CONSTANT_BYTES ((gsize) 64 << 20)

static gboolean
check_constants (guint n, const gchar * const *names, PlanArray ** arrays,
    GError ** error)
{
  guint i, j;

  for (i = 0; i < n; i++) {
    gsize size = 0;

    if (names == NULL || names[i] == NULL || arrays == NULL
        || !PLAN_IS_ARRAY (arrays[i])) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "constant %u needs a name and a PlanArray", i);
      return FALSE;
    }
    for (j = 0; j < i; j++) {
      if (g_strcmp0 (names[i], names[j]) == 0) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
            "constant '%s' is given twice", names[i]);
        return FALSE;
      }
    }
    if (plan_array_get_device_memory (arrays[i]) != NULL
        || plan_array_get_data (arrays[i], &size) == NULL) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
          "constant '%s' is in device memory; constants are host arrays "
          "(copied to the device when the map runs there)", names[i]);
      return FALSE;
    }
    if (size > MAX_CONSTANT_BYTES || size == 0) {
      gchar *shape = plan_shape_to_string (plan_array_get_info
          (arrays[i])->ndim, plan_array_get_info (arrays[i])->shape);
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "constant '%s' of shape %s holds %" G_GSIZE_FORMAT " bytes; a "
          "constant holds at least one element and at most %" G_GSIZE_FORMAT
          " MiB", names[i], shape, size, MAX_CONSTANT_BYTES >> 20);
      g_free (shape);
      return FALSE;
    }
  }
  return TRUE;
}

/**
 * plan_graph_add_map:
 * @graph: a #PlanGraph
 * @name: (nullable): the node's name, or %NULL to make one up
 * @expr: the expression (docs/expressions.md), naming its inputs `x`, `y`,
 *   `z`, `w` (the first four) or `in0`, `in1`, … in argument order
 * @n_inputs: the number of inputs, at least 1
 * @inputs: (array length=n_inputs): the inputs, in argument order
 * @dtype: cast the result to this dtype, or %PLAN_DTYPE_UNKNOWN for the
 *   expression's own (numpy's promotion of the inputs)
 * @error: return location for an error
 *
 * Adds an elementwise map: planmap `expr=@expr`. The inputs must have the
 * same shape (checked at dispatch) and the same number of axes (checked
 * at realize).
 *
 * Returns: (transfer none) (nullable): the node, or %NULL with @error set:
 *   the compiler's message (column and caret) for an invalid expression.
 *
 * Since: 0.1
 */
PlanNode *
plan_graph_add_map (PlanGraph * graph, const gchar * name,
    const gchar * expr, guint n_inputs, PlanNode ** inputs, PlanDType dtype,
    GError ** error)
{
  return plan_graph_add_map_with_constants (graph, name, expr, n_inputs,
      inputs, dtype, 0, NULL, NULL, error);
}

/**
 * plan_graph_add_map_with_constants:
 * @graph: a #PlanGraph
 * @name: (nullable): the node's name, or %NULL to make one up
 * @expr: the expression, naming its inputs as for plan_graph_add_map() and
 *   the constants by their names
 * @n_inputs: the number of inputs, at least 1
 * @inputs: (array length=n_inputs): the inputs, in argument order
 * @dtype: cast the result to this dtype, or %PLAN_DTYPE_UNKNOWN
 * @n_constants: the number of array constants
 * @constant_names: (array length=n_constants) (nullable): their names
 * @constants: (array length=n_constants) (nullable): their values: arrays
 *   in host memory of at most 64 MiB each, referenced (not copied) by the
 *   node
 * @error: return location for an error
 *
 * Like plan_graph_add_map(), with array constants the expression reads by
 * name, broadcast against every row by numpy's rules: `(x - mean) / std`
 * with `mean` and `std` of shape (3,) over inputs of shape (N, 3). The
 * inputs broadcast against each other too, row by row
 * (docs/expressions.md, "Broadcasting"). A constant must not change while
 * a work made from the graph runs. A map with constants is never fused
 * with its neighbours.
 *
 * Returns: (transfer none) (nullable): the node, or %NULL with @error set.
 *
 * Since: 0.1
 */
PlanNode *
plan_graph_add_map_with_constants (PlanGraph * graph, const gchar * name,
    const gchar * expr, guint n_inputs, PlanNode ** inputs, PlanDType dtype,
    guint n_constants, const gchar * const *constant_names,
    PlanArray ** constants, GError ** error)
{
  PlanNode *node;
  gboolean ok = TRUE;
  guint i;

  g_return_val_if_fail (PLAN_IS_GRAPH (graph), NULL);
  g_return_val_if_fail (expr != NULL, NULL);
  g_return_val_if_fail (n_inputs == 0 || inputs != NULL, NULL);

  node = new_node (graph, PLAN_NODE_MAP, name, n_inputs, inputs, error);
  if (node == NULL)
    return NULL;
  node->expr = g_strdup (expr);
  node->dtype = dtype;
  if (n_constants > 0) {
    if (!check_constants (n_constants, constant_names, constants, error))
      return add_node (graph, node, FALSE, error);
    node->const_names = g_new0 (gchar *, n_constants + 1);
    node->const_arrays = g_ptr_array_new_with_free_func (g_object_unref);
    for (i = 0; i < n_constants; i++) {
      node->const_names[i] = g_strdup (constant_names[i]);
      g_ptr_array_add (node->const_arrays, g_object_ref (constants[i]));
    }
  }
  if (n_inputs == 0) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "a map needs at least one input");
    ok = FALSE;
  } else if (dtype < PLAN_DTYPE_UNKNOWN || dtype >= PLAN_DTYPE_N) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%d is not a dtype", dtype);
    ok = FALSE;
  } else {
    ok = check_map_expr (node, error);
  }
  return add_node (graph, node, ok, error);
}

/* A reduction of a 0-d input is 0-d whatever its axis (or refused, by
 * plan_reducer_new()). */
static guint
reduced_ndim (PlanReduceAxis axis, guint ndim)
{
  if (ndim == 0)
    return 0;
  switch (axis) {
    case PLAN_REDUCE_AXIS_ROWS:
      return ndim > 0 ? ndim - 1 : 0;
    case PLAN_REDUCE_AXIS_INNER:
    case PLAN_REDUCE_AXIS_1:
      return 1;
    default:
      return 0;
  }
}

static gboolean
check_axis (PlanReduceAxis axis, GError ** error)
{
  GEnumValue *v = g_enum_get_value (g_type_class_ref (PLAN_TYPE_REDUCE_AXIS),
      axis);

  if (v != NULL)
    return TRUE;
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
      "%d is not an axis: use all, 0 (along the rows), -1 (within each "
      "row) or 1 (within each row of a 2-D stream)", axis);
  return FALSE;
}

/**
 * plan_graph_add_reduce:
 * @graph: a #PlanGraph
 * @name: (nullable): the node's name, or %NULL to make one up
 * @op: the reduction
 * @axis: what to reduce over (docs/planreduce.md)
 * @input: the array to reduce
 * @error: return location for an error
 *
 * Adds a reduction: planreduce `op=@op axis=@axis`. Its output is a 0-d
 * array (`all`), an array of the input's inner shape (`0`), or one value
 * per row (`-1`).
 *
 * Returns: (transfer none) (nullable): the node, or %NULL with @error set.
 *
 * Since: 0.1
 */
PlanNode *
plan_graph_add_reduce (PlanGraph * graph, const gchar * name,
    PlanReduceOp op, PlanReduceAxis axis, PlanNode * input, GError ** error)
{
  return plan_graph_add_reduce_ddof (graph, name, op, axis, 0.0, input,
      error);
}

/**
 * plan_graph_add_reduce_ddof:
 * @graph: a #PlanGraph
 * @name: (nullable): the node's name, or %NULL to make one up
 * @op: the reduction
 * @axis: what to reduce over (docs/planreduce.md)
 * @ddof: numpy's `ddof` of `var`, `std`, `nanvar` and `nanstd`: they
 *   divide by `n - ddof` (0, the population variance, as numpy's default;
 *   1, the sample variance). Other ops ignore it.
 * @input: the array to reduce
 * @error: return location for an error
 *
 * Like plan_graph_add_reduce(), with a `ddof` (planreduce `ddof=@ddof`).
 *
 * Returns: (transfer none) (nullable): the node, or %NULL with @error set;
 *   a negative or non-finite @ddof is %PLAN_ERROR_INVALID_ARGUMENT.
 *
 * Since: 0.1
 */
PlanNode *
plan_graph_add_reduce_ddof (PlanGraph * graph, const gchar * name,
    PlanReduceOp op, PlanReduceAxis axis, gdouble ddof, PlanNode * input,
    GError ** error)
{
  PlanNode *node;
  gboolean ok = TRUE;

  g_return_val_if_fail (PLAN_IS_GRAPH (graph), NULL);

  node = new_node (graph, PLAN_NODE_REDUCE, name, 1, &input, error);
  if (node == NULL)
    return NULL;
  node->op = op;
  node->axis = axis;
  node->ddof = ddof;
  node->ndim = reduced_ndim (axis, input->ndim);
  if (!(ddof >= 0 && ddof <= 1e18)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "ddof %g is not a number of degrees of freedom from 0 to 1e18",
        ddof);
    ok = FALSE;
  } else if (g_enum_get_value (g_type_class_ref (PLAN_TYPE_REDUCE_OP), op)
      == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%d is not a reduction op", op);
    ok = FALSE;
  } else {
    ok = check_axis (axis, error);
  }
  return add_node (graph, node, ok, error);
}

/* A combiner and its identity are checked by making the reducer they would
 * make, on a stand-in input of the known dtype (each kind of dtype in turn
 * when unknown). */
static gboolean
check_combiner (PlanNode * node, PlanNode * input, GError ** error)
{
  /* An input whose dtype the graph does not know is tried as each kind of
   * dtype a combiner can need ('x | y' and identity=false need integers or
   * bools, identity=18446744073709551615 uint64): a combiner that fails for
   * all of them fails for every dtype; the
   * rest is checked at dispatch. The error said is the first that is not
   * about the dtype, if any: 'x << y' is typed for int64, where its
   * identity is the fault. */
  static const PlanDType tried[] = { PLAN_DTYPE_FLOAT64, PLAN_DTYPE_INT64,
    PLAN_DTYPE_UINT64, PLAN_DTYPE_BOOL
  };
  PlanDType dtype = known_dtype (input);
  GError *first = NULL;
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  guint i, n = dtype != PLAN_DTYPE_UNKNOWN ? 1 : G_N_ELEMENTS (tried);

  shape[0] = -1;
  for (i = 1; i < PLAN_ARRAY_MAX_DIMS; i++)
    shape[i] = 1;
  for (i = 0; i < n; i++) {
    PlanArrayInfo info;
    PlanReducer *reducer = NULL;
    GError *err = NULL;

    if (plan_array_info_set (&info, dtype != PLAN_DTYPE_UNKNOWN ? dtype :
            tried[i], MAX (input->ndim, 1), shape, &err))
      reducer = plan_reducer_new_custom (node->expr, node->identity,
          node->axis, &info, &err);
    if (reducer != NULL) {
      plan_reducer_unref (reducer);
      g_clear_error (&first);
      return TRUE;
    }
    if (first == NULL || (g_error_matches (first, PLAN_ERROR,
                PLAN_ERROR_TYPE) && !g_error_matches (err, PLAN_ERROR,
                PLAN_ERROR_TYPE))) {
      g_clear_error (&first);
      first = err;
    } else {
      g_error_free (err);
    }
  }
  g_propagate_error (error, first);
  return FALSE;
}

/**
 * plan_graph_add_reduce_custom:
 * @graph: a #PlanGraph
 * @name: (nullable): the node's name, or %NULL to make one up
 * @combiner: an associative expression combining two partial results `x`
 *   and `y`, such as `x + y` or `max(x, y)`
 * @identity: the value of a reduction of nothing: a number, `true` or
 *   `false`
 * @axis: what to reduce over
 * @input: the array to reduce
 * @error: return location for an error
 *
 * Adds a custom reduction: planreduce `expr=@combiner identity=@identity`,
 * the design's `plan.reduce(lambda x, y: x + y, args=(a,))`.
 *
 * Returns: (transfer none) (nullable): the node, or %NULL with @error set.
 *
 * Since: 0.1
 */
PlanNode *
plan_graph_add_reduce_custom (PlanGraph * graph, const gchar * name,
    const gchar * combiner, const gchar * identity, PlanReduceAxis axis,
    PlanNode * input, GError ** error)
{
  PlanNode *node;
  gboolean ok = TRUE;

  g_return_val_if_fail (PLAN_IS_GRAPH (graph), NULL);
  g_return_val_if_fail (combiner != NULL, NULL);

  node = new_node (graph, PLAN_NODE_REDUCE, name, 1, &input, error);
  if (node == NULL)
    return NULL;
  node->expr = g_strdup (combiner);
  node->identity = g_strdup (identity);
  node->axis = axis;
  node->ndim = reduced_ndim (axis, input->ndim);
  if (identity == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the combiner \"%s\" needs an identity: the value of a reduction "
        "of nothing, such as 0 for x + y or -inf for max(x, y)", combiner);
    ok = FALSE;
  } else {
    ok = check_axis (axis, error) && check_combiner (node, input, error);
  }
  return add_node (graph, node, ok, error);
}

static gboolean
check_stencil (PlanNode * node, PlanNode * input, GError ** error)
{
  PlanWindow *window = plan_window_parse (node->window, error);
  PlanDType *known;
  guint n, i;
  gboolean ok;

  if (window == NULL)
    return FALSE;
  n = plan_window_get_n_names (window);
  known = g_newa (PlanDType, n + 1);
  for (i = 0; i < n; i++)
    known[i] = known_dtype (input);
  ok = check_expr (node->expr, n, plan_window_get_names (window), known,
      error);
  if (ok && plan_window_get_height (window) > 1 && input->ndim < 2) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "the window has %u rows but the input '%s' has %u axis; a window "
        "of several rows needs an input of at least 2 axes",
        plan_window_get_height (window), input->name, input->ndim);
    ok = FALSE;
  }
  if (ok && plan_window_get_depth (window) > 1 && input->ndim < 3) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "the window has %u planes but the input '%s' has %u %s; a window "
        "of several planes needs an input of at least 3 axes",
        plan_window_get_depth (window), input->name, input->ndim,
        input->ndim == 1 ? "axis" : "axes");
    ok = FALSE;
  }
  plan_window_unref (window);
  return ok;
}

/**
 * plan_graph_add_stencil:
 * @graph: a #PlanGraph
 * @name: (nullable): the node's name, or %NULL to make one up
 * @window: the window's picture (docs/planstencil.md), such as `x y _`
 * @expr: the expression over the window's names
 * @boundary: how cells outside the array are read
 * @cval: the value outside the array for %PLAN_BOUNDARY_CONSTANT
 * @input: the array
 * @error: return location for an error
 *
 * Adds a stencil: planstencil `window=@window expr=@expr
 * boundary=@boundary cval=@cval`.
 *
 * Returns: (transfer none) (nullable): the node, or %NULL with @error set.
 *
 * Since: 0.1
 */
PlanNode *
plan_graph_add_stencil (PlanGraph * graph, const gchar * name,
    const gchar * window, const gchar * expr, PlanBoundary boundary,
    gdouble cval, PlanNode * input, GError ** error)
{
  return plan_graph_add_stencil_iterated (graph, name, window, expr,
      boundary, cval, 1, input, error);
}

/**
 * plan_graph_add_stencil_iterated:
 * @graph: a #PlanGraph
 * @name: (nullable): the node's name, or %NULL to make one up
 * @window: the window's picture (docs/planstencil.md), such as `x y _`
 * @expr: the expression over the window's names
 * @boundary: how cells outside the array are read
 * @cval: the value outside the array for %PLAN_BOUNDARY_CONSTANT
 * @iterations: how many times the window is applied, each time to the
 *   output of the time before (1 to #PLAN_STENCIL_MAX_ITERATIONS)
 * @input: the array
 * @error: return location for an error
 *
 * Adds a stencil applied @iterations times: planstencil `window=@window
 * expr=@expr boundary=@boundary cval=@cval iterations=@iterations`, the
 * same result as @iterations stencil nodes in a row.
 *
 * Returns: (transfer none) (nullable): the node, or %NULL with @error set.
 *
 * Since: 0.1
 */
PlanNode *
plan_graph_add_stencil_iterated (PlanGraph * graph, const gchar * name,
    const gchar * window, const gchar * expr, PlanBoundary boundary,
    gdouble cval, guint iterations, PlanNode * input, GError ** error)
{
  PlanNode *node;
  gboolean ok = TRUE;

  g_return_val_if_fail (PLAN_IS_GRAPH (graph), NULL);
  g_return_val_if_fail (window != NULL, NULL);
  g_return_val_if_fail (expr != NULL, NULL);

  node = new_node (graph, PLAN_NODE_STENCIL, name, 1, &input, error);
  if (node == NULL)
    return NULL;
  node->window = g_strdup (window);
  node->expr = g_strdup (expr);
  node->boundary = boundary;
  node->cval = cval;
  node->iterations = iterations;
  if (g_enum_get_value (g_type_class_ref (PLAN_TYPE_BOUNDARY),
          boundary) == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%d is not a boundary mode", boundary);
    ok = FALSE;
  } else if (iterations < 1 || iterations > PLAN_STENCIL_MAX_ITERATIONS) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%u iterations; a stencil is applied 1 to %u times",
        iterations, PLAN_STENCIL_MAX_ITERATIONS);
    ok = FALSE;
  } else {
    ok = check_stencil (node, input, error);
  }
  return add_node (graph, node, ok, error);
}

/* The windows of a stencil of several inputs: each parses, names no cell
 * of another's, fits its input's axes; the inputs have as many axes; the
 * expression compiles over all the windows' names, in input order. */
static gboolean
check_stencil_inputs (PlanNode * node, GError ** error)
{
  guint n = node->inputs->len, i, j, k, n_names = 0;
  PlanWindow **windows = g_new0 (PlanWindow *, n);
  const gchar **names;
  PlanDType *known;
  gboolean ok = TRUE;

  for (j = 0; j < n && ok; j++) {
    PlanNode *input = g_ptr_array_index (node->inputs, j);
    PlanNode *first = g_ptr_array_index (node->inputs, 0);

    if (input->ndim != first->ndim) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "its inputs have different numbers of axes: input 0 ('%s') has "
          "%u and input %u ('%s') has %u; the inputs of a stencil have the "
          "same shape", first->name, first->ndim, j, input->name,
          input->ndim);
      ok = FALSE;
      break;
    }
    windows[j] = plan_window_parse (node->windows[j], error);
    if (windows[j] == NULL) {
      g_prefix_error (error, "the window \"%s\" of input %u ('%s'): ",
          node->windows[j], j, input->name);
      ok = FALSE;
      break;
    }
    n_names += plan_window_get_n_names (windows[j]);
    if (plan_window_get_height (windows[j]) > 1 && input->ndim < 2) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "the window \"%s\" of input %u ('%s') has %u rows but '%s' has "
          "%u axis; a window of several rows needs an input of at least 2 "
          "axes", node->windows[j], j, input->name,
          plan_window_get_height (windows[j]), input->name, input->ndim);
      ok = FALSE;
    } else if (plan_window_get_depth (windows[j]) > 1 && input->ndim < 3) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "the window \"%s\" of input %u ('%s') has %u planes but '%s' "
          "has %u %s; a window of several planes needs an input of at "
          "least 3 axes", node->windows[j], j, input->name,
          plan_window_get_depth (windows[j]), input->name, input->ndim,
          input->ndim == 1 ? "axis" : "axes");
      ok = FALSE;
    }
    /* A name is a cell of one window only. */
    for (k = 0; ok && k < j; k++) {
      const gchar *const *wn = plan_window_get_names (windows[j]);

      for (i = 0; ok && wn[i]; i++) {
        if (plan_window_lookup (windows[k], wn[i]) >= 0) {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
              "'%s' names a cell of the window \"%s\" of input %u ('%s') "
              "and one of the window \"%s\" of input %u ('%s'); a name is "
              "a cell of one window only", wn[i], node->windows[k], k,
              ((PlanNode *) g_ptr_array_index (node->inputs, k))->name,
              node->windows[j], j, input->name);
          ok = FALSE;
        }
      }
    }
  }
  if (ok) {
    names = g_newa (const gchar *, n_names + 1);
    known = g_newa (PlanDType, n_names + 1);
    n_names = 0;
    for (j = 0; j < n; j++) {
      const gchar *const *wn = plan_window_get_names (windows[j]);

      for (i = 0; wn[i]; i++, n_names++) {
        names[n_names] = wn[i];
        known[n_names] = known_dtype (g_ptr_array_index (node->inputs, j));
      }
    }
    names[n_names] = NULL;
    ok = check_expr (node->expr, n_names, names, known, error);
  }
  for (j = 0; j < n; j++)
    if (windows[j])
      plan_window_unref (windows[j]);
  g_free (windows);
  return ok;
}

/**
 * plan_graph_add_stencil_inputs:
 * @graph: a #PlanGraph
 * @name: (nullable): the node's name, or %NULL to make one up
 * @n_inputs: the number of inputs, at least 1
 * @inputs: (array length=n_inputs): the arrays, all of one shape
 * @windows: (array zero-terminated=1): one window picture per input, in
 *   the order of @inputs (docs/planstencil.md), whose cells name that
 *   input's elements around each point; a window of one cell (`"p"`)
 *   names the input's element at the point itself
 * @expr: the expression over the names of all the windows' cells
 * @boundary: how cells outside the arrays are read (for every input)
 * @cval: the value outside the arrays for %PLAN_BOUNDARY_CONSTANT,
 *   converted to each input's dtype
 * @error: return location for an error
 *
 * Adds a stencil over several arrays of the same shape, one output from
 * every input's window at each point: a wave equation's step reads `u`
 * around the point and `u_prev` at it (windows `"_ n _; w c e; _ s _"`
 * and `"p"`, expression `2*c - p + k*(n + s + e + w - 4*c)`). Realized
 * as planstencil with the first input on `sink` (the element's `window`)
 * and the others on the request pads `sink_1`, `sink_2`, … with their
 * windows. With one input it is plan_graph_add_stencil().
 *
 * The number of windows must be @n_inputs, a name must be a cell of one
 * window only, and the inputs must have as many axes (checked here) and
 * the same shape (checked at dispatch).
 *
 * Returns: (transfer none) (nullable): the node, or %NULL with @error set.
 *
 * Since: 0.1
 */
PlanNode *
plan_graph_add_stencil_inputs (PlanGraph * graph, const gchar * name,
    guint n_inputs, PlanNode ** inputs, const gchar * const *windows,
    const gchar * expr, PlanBoundary boundary, gdouble cval,
    GError ** error)
{
  guint n_windows = windows ? g_strv_length ((gchar **) windows) : 0;
  PlanNode *node;
  gboolean ok = TRUE;

  g_return_val_if_fail (PLAN_IS_GRAPH (graph), NULL);
  g_return_val_if_fail (expr != NULL, NULL);
  g_return_val_if_fail (n_inputs == 0 || inputs != NULL, NULL);

  node = new_node (graph, PLAN_NODE_STENCIL, name, n_inputs, inputs, error);
  if (node == NULL)
    return NULL;
  node->expr = g_strdup (expr);
  node->boundary = boundary;
  node->cval = cval;
  node->iterations = 1;
  if (n_inputs == 0) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "a stencil needs at least one input");
    ok = FALSE;
  } else if (n_windows != n_inputs) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%u %s for %u %s; a stencil takes one window per input, in the "
        "order of its inputs", n_windows, n_windows == 1 ? "window" :
        "windows", n_inputs, n_inputs == 1 ? "input" : "inputs");
    ok = FALSE;
  } else if (g_enum_get_value (g_type_class_ref (PLAN_TYPE_BOUNDARY),
          boundary) == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%d is not a boundary mode", boundary);
    ok = FALSE;
  } else {
    node->window = g_strdup (windows[0]);
    node->windows = g_strdupv ((gchar **) windows);
    ok = check_stencil_inputs (node, error);
  }
  return add_node (graph, node, ok, error);
}

/**
 * plan_graph_add_sink:
 * @graph: a #PlanGraph
 * @name: (nullable): the output's name, used to bind it at dispatch, or
 *   %NULL to make one up
 * @input: the node whose result it receives
 * @error: return location for an error
 *
 * Adds an output. Sinks are optional: a graph without any has one output
 * per node that no other node takes, named after that node. A graph with
 * sinks has exactly its sinks as outputs.
 *
 * Returns: (transfer none) (nullable): the node, or %NULL with @error set.
 *
 * Since: 0.1
 */
PlanNode *
plan_graph_add_sink (PlanGraph * graph, const gchar * name,
    PlanNode * input, GError ** error)
{
  PlanNode *node;

  g_return_val_if_fail (PLAN_IS_GRAPH (graph), NULL);

  node = new_node (graph, PLAN_NODE_SINK, name, 1, &input, error);
  if (node == NULL)
    return NULL;
  return add_node (graph, node, TRUE, error);
}

/* plancustom's class, for its property specs. */
static GObjectClass *
custom_class (GError ** error)
{
  GstElementFactory *factory = gst_element_factory_find ("plancustom");
  GstPluginFeature *loaded;
  GType type;

  if (factory == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "the element plancustom is not installed: is the gst-plan plugin "
        "on GST_PLUGIN_PATH?");
    return NULL;
  }
  loaded = gst_plugin_feature_load (GST_PLUGIN_FEATURE (factory));
  gst_object_unref (factory);
  if (loaded == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "the gst-plan plugin could not be loaded for plancustom");
    return NULL;
  }
  type = gst_element_factory_get_element_type (GST_ELEMENT_FACTORY (loaded));
  gst_object_unref (loaded);
  return g_type_class_peek (type) ? g_type_class_peek (type) :
      g_type_class_ref (type);
}

/* Splits "key=value key='a b'" (shell quoting) into @node's settings,
 * each checked against plancustom's property of that name. */
static gboolean
parse_custom_properties (PlanNode * node, const gchar * properties,
    GError ** error)
{
  GObjectClass *klass;
  gchar **words = NULL;
  gint n_words = 0, i;
  GError *err = NULL;

  if (properties == NULL || properties[strspn (properties, " \t\n")] == '\0')
    goto none;
  if (!g_shell_parse_argv (properties, &n_words, &words, &err)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SYNTAX,
        "properties \"%s\": %s", properties, err->message);
    g_clear_error (&err);
    return FALSE;
  }
none:
  if ((klass = custom_class (error)) == NULL) {
    g_strfreev (words);
    return FALSE;
  }
  node->prop_names = g_new0 (gchar *, n_words + 1);
  node->prop_values = g_new0 (GValue, MAX (n_words, 1));
  for (i = 0; i < n_words; i++) {
    gchar *eq = strchr (words[i], '=');
    GParamSpec *pspec;

    if (eq == NULL || eq == words[i]) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SYNTAX,
          "'%s' is not a property setting (name=value)", words[i]);
      break;
    }
    *eq = '\0';
    pspec = g_object_class_find_property (klass, words[i]);
    if (pspec == NULL || strcmp (words[i], "name") == 0
        || !(pspec->flags & G_PARAM_WRITABLE)) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "plancustom has no property '%s' to set", words[i]);
      break;
    }
    g_value_init (&node->prop_values[i], G_PARAM_SPEC_VALUE_TYPE (pspec));
    if (!gst_value_deserialize_with_pspec (&node->prop_values[i], eq + 1,
            pspec) || g_param_value_validate (pspec,
            &node->prop_values[i])
        || !_plan_param_value_in_valid_range (pspec,
            &node->prop_values[i])) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "'%s' is not a valid %s", eq + 1, words[i]);
      g_value_unset (&node->prop_values[i]);
      break;
    }
    node->prop_names[i] = g_strdup (words[i]);
    node->n_props++;
  }
  g_strfreev (words);
  return i == n_words;
}

const GValue *
_plan_node_get_prop (PlanNode * node, const gchar * name)
{
  guint i;

  for (i = node->n_props; i > 0; i--)
    if (strcmp (node->prop_names[i - 1], name) == 0)
      return &node->prop_values[i - 1];
  return NULL;
}

/* What a custom node gives, from its settings and inputs. */
gboolean
_plan_custom_node_output (PlanNode * node, const PlanArrayInfo * inputs,
    PlanArrayInfo * output, GError ** error)
{
  const GValue *mode = _plan_node_get_prop (node, "mode");
  const GValue *dtype = _plan_node_get_prop (node, "out-dtype");
  const GValue *shape = _plan_node_get_prop (node, "out-shape");
  const GValue *halo = _plan_node_get_prop (node, "halo");
  const GValue *boundary = _plan_node_get_prop (node, "boundary");
  const GValue *cval = _plan_node_get_prop (node, "cval");
  PlanDType d = dtype ? g_value_get_enum (dtype) : PLAN_DTYPE_UNKNOWN;
  PlanCustomMode m = mode ? g_value_get_enum (mode) : PLAN_CUSTOM_MODE_MAP;
  guint sizes[PLAN_ARRAY_MAX_DIMS] = { 0, };
  PlanArrayInfo padded;
  PlanHalo *h;

  if (!plan_custom_get_output_info (m, d, shape ? g_value_get_string (shape) :
          NULL, node->inputs->len, inputs, output, error))
    return FALSE;
  /* A map with a halo and boundary=valid gives only the rows with a whole
   * halo, as plancustom does: told by the same PlanHalo, which also
   * refuses a stream too short for any (a 0-d input, which has no rows
   * around it, is plancustom's error to give). */
  if (m != PLAN_CUSTOM_MODE_MAP || halo == NULL || g_value_get_uint (halo) == 0
      || inputs[0].ndim == 0 || boundary == NULL
      || g_value_get_enum (boundary) != PLAN_BOUNDARY_VALID)
    return TRUE;
  sizes[0] = g_value_get_uint (halo);
  h = plan_halo_new (&inputs[0], sizes, PLAN_BOUNDARY_VALID,
      cval ? g_value_get_double (cval) : 0.0, error);
  if (h == NULL)
    return FALSE;
  plan_halo_get_output_info (h, &padded);
  plan_halo_free (h);
  output->shape[0] = padded.shape[0];
  return TRUE;
}

/**
 * plan_graph_add_custom:
 * @graph: a #PlanGraph
 * @name: (nullable): the node's name, or %NULL to make one up
 * @n_inputs: the number of inputs, at least 1
 * @inputs: (array length=n_inputs): the inputs, in argument order
 * @properties: (nullable): plancustom's settings in gst-launch syntax:
 *   `kernel=NAME` (a registered kernel), `library=PATH symbol=NAME`,
 *   `cuda-source=FILE cuda-function=NAME`, and `mode`, `out-dtype`,
 *   `out-shape`, `halo`, `boundary`, `cval`, `params`, `state-size`
 *   (docs/plancustom.md); values with blanks quoted as in a shell
 * @error: return location for an error
 *
 * Adds a custom kernel: plancustom with @properties, the design's
 * `plan.custom()`. Every setting is checked against plancustom's property
 * of that name now; the kernel itself is resolved when the work starts.
 * Fusion leaves custom nodes alone.
 *
 * Returns: (transfer none) (nullable): the node, or %NULL with @error set:
 *   an unknown property, a value that property does not take, or
 *   properties that do not parse.
 *
 * Since: 0.1
 */
PlanNode *
plan_graph_add_custom (PlanGraph * graph, const gchar * name,
    guint n_inputs, PlanNode ** inputs, const gchar * properties,
    GError ** error)
{
  PlanArrayInfo probe[PLAN_CUSTOM_CUDA_MAX_INPUTS], out;
  PlanNode *node;
  gboolean ok;
  guint i, j;

  g_return_val_if_fail (PLAN_IS_GRAPH (graph), NULL);
  g_return_val_if_fail (n_inputs == 0 || inputs != NULL, NULL);

  node = new_node (graph, PLAN_NODE_CUSTOM, name, n_inputs, inputs, error);
  if (node == NULL)
    return NULL;
  if (n_inputs == 0) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "a custom kernel needs at least one input");
    return add_node (graph, node, FALSE, error);
  }
  ok = parse_custom_properties (node, properties, error);
  /* Its number of axes, from stand-in inputs of its inputs' axes. */
  for (i = 0; ok && i < MIN (n_inputs, G_N_ELEMENTS (probe)); i++) {
    gint64 shape[PLAN_ARRAY_MAX_DIMS];

    for (j = 0; j < PLAN_ARRAY_MAX_DIMS; j++)
      shape[j] = j == 0 ? -1 : 1;
    plan_array_info_set (&probe[i], PLAN_DTYPE_FLOAT64, inputs[i]->ndim,
        shape, NULL);
  }
  if (ok)
    ok = _plan_custom_node_output (node, probe, &out, error);
  if (ok)
    node->ndim = out.ndim;
  return add_node (graph, node, ok, error);
}

/**
 * plan_graph_realize:
 * @graph: a #PlanGraph
 * @target: where the kernel elements run: %PLAN_TARGET_CPU,
 *   %PLAN_TARGET_CUDA or %PLAN_TARGET_AUTO (their `target` property)
 * @flags: how to build the pipeline
 * @error: return location for an error
 *
 * Builds and prepares the pipeline that runs @graph: one element per node
 * (after fusing elementwise chains, unless %PLAN_REALIZE_NO_FUSE), a tee
 * and a queue per branch where a node has several consumers, and an
 * in-memory source or sink element for each input and output until a
 * dispatch binds a file. The graph may be changed or dropped afterwards;
 * the work does not see it.
 *
 * Returns: (transfer full) (nullable): the work, or %NULL with @error set
 *   for a graph that cannot run: no outputs, a source that nothing uses, a
 *   node that no output needs, inputs of a node with different numbers of
 *   axes, or an element that is not installed; %PLAN_ERROR_INVALID_ARGUMENT
 *   for a @target or @flags that are none of the values above.
 *
 * Since: 0.1
 */
PlanWork *
plan_graph_realize (PlanGraph * graph, PlanTarget target,
    PlanRealizeFlags flags, GError ** error)
{
  GEnumClass *targets;
  gboolean known;

  g_return_val_if_fail (PLAN_IS_GRAPH (graph), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* Refused here: set on the elements, GObject would warn and leave
   * their target as it was. */
  targets = g_type_class_ref (PLAN_TYPE_TARGET);
  known = g_enum_get_value (targets, target) != NULL;
  g_type_class_unref (targets);
  if (!known) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%d is not a target: use PLAN_TARGET_CPU, PLAN_TARGET_CUDA or "
        "PLAN_TARGET_AUTO", target);
    return NULL;
  }
  if (flags & ~PLAN_REALIZE_NO_FUSE) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "0x%x is not a set of realize flags: the only flag is "
        "PLAN_REALIZE_NO_FUSE (0x%x)", flags, PLAN_REALIZE_NO_FUSE);
    return NULL;
  }
  return _plan_work_new (graph, target, flags, error);
}
