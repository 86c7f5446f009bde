/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planexpr
 * @title: PlanExpr
 * @short_description: the expression language: compile, evaluate on the
 *   CPU, translate to CUDA
 *
 * One expression language serves planmap, planstencil and custom
 * reductions. The caller binds names to dtypes and compiles the source
 * once with plan_expr_compile(); the result is an immutable #PlanExpr that
 * evaluates arrays with plan_expr_eval() or plan_expr_eval_parallel(), and
 * translates itself to CUDA C with plan_expr_to_cuda().
 *
 * The language, its numpy semantics (type promotion with NEP 50 weak
 * literals, true and floor division, wrapping integers) and the few places
 * it differs from numpy are described in docs/expressions.md.
 *
 * Errors are reported as #GError in the #PLAN_ERROR domain:
 * %PLAN_ERROR_SYNTAX when the source does not parse, %PLAN_ERROR_TYPE when
 * it parses but cannot be typed (an unknown name or function, a wrong
 * number of arguments, a bitwise operation on a float, ...). The message
 * names the column and quotes the expression with a caret under the spot:
 *
 * |[
 * column 5: expected an operand, found '*'
 *   x + * y
 *       ^
 * ]|
 *
 * On the CPU the expression is compiled into a short program of typed
 * kernels (one loop per operation and dtype, vectorised for the best
 * instruction set of the CPU) that runs over blocks of 1024 elements held
 * in cache, so each input is read once from memory and the result written
 * once.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planexpr-private.h"

#include <string.h>

GST_DEBUG_CATEGORY (plan_expr_debug);
#define GST_CAT_DEFAULT plan_expr_debug

G_DEFINE_BOXED_TYPE (PlanExpr, plan_expr, plan_expr_ref, plan_expr_unref);

static void
ensure_debug (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (plan_expr_debug, "planexpr", 0,
        "expression compiler");
    g_once_init_leave (&done, 1);
  }
}

static void
mark_uses (PlanExpr * expr, ExprNode * node)
{
  guint i;

  if (node->kind == EXPR_NODE_NAME)
    expr->uses[node->name_index] = TRUE;
  for (i = 0; i < node->n_args; i++)
    mark_uses (expr, node->args[i]);
}

/* Name @i must be an identifier of the language and bound only once. */
static gboolean
names_valid (const gchar * const *names, guint i, GError ** error)
{
  const gchar *p, *name = names[i];
  guint j;

  if (name == NULL || !(g_ascii_isalpha (name[0]) || name[0] == '_'))
    goto not_identifier;
  for (p = name; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      goto not_identifier;
  if (!strcmp (name, "and") || !strcmp (name, "or") || !strcmp (name, "not"))
    goto not_identifier;
  for (j = 0; j < i; j++) {
    if (strcmp (names[j], name) == 0) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "the name '%s' is bound twice", name);
      return FALSE;
    }
  }
  return TRUE;

not_identifier:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
      "'%s' cannot be bound: a name is a letter or '_' followed by letters, "
      "digits and '_', and not 'and', 'or' or 'not'", name ? name : "(null)");
  return FALSE;
}

static PlanExpr *compile_full (const gchar * source, guint n_names,
    const gchar * const *names, const PlanDType * dtypes, PlanDType out_dtype,
    const PlanArrayInfo * infos, guint n_streams, PlanArrayInfo * out_info,
    GError ** error);

/**
 * plan_expr_compile:
 * @source: the expression, e.g. "2*x*y + sin(x)"
 * @n_names: how many names are bound
 * @names: (array length=n_names): the bound names; a bound name shadows a
 *   built-in constant of the same name (`e`, `pi`, ...)
 * @dtypes: (array length=n_names): the dtype of each name
 * @error: return location for a #GError
 *
 * Parses and types @source and builds its CPU program. Evaluation then
 * takes `inputs[i]` as the values of `names[i]`.
 *
 * Returns: (transfer full) (nullable): the compiled expression, or %NULL
 *   with @error set (%PLAN_ERROR_SYNTAX or %PLAN_ERROR_TYPE; the message
 *   names the column and shows a caret under it).
 *
 * Since: 0.1
 */
PlanExpr *
plan_expr_compile (const gchar * source, guint n_names,
    const gchar * const *names, const PlanDType * dtypes, GError ** error)
{
  return plan_expr_compile_with_dtype (source, n_names, names, dtypes,
      PLAN_DTYPE_UNKNOWN, error);
}

/**
 * plan_expr_compile_with_dtype:
 * @source: the expression
 * @n_names: how many names are bound
 * @names: (array length=n_names): the bound names
 * @dtypes: (array length=n_names): the dtype of each name
 * @out_dtype: the dtype of the result, or %PLAN_DTYPE_UNKNOWN for the
 *   expression's own
 * @error: return location for a #GError
 *
 * Like plan_expr_compile(), with the result cast to @out_dtype as the cast
 * function of the language would (`float32(...)`), but with error columns
 * that refer to @source itself. Elements with an output dtype property use
 * this.
 *
 * Returns: (transfer full) (nullable): the compiled expression, or %NULL
 *   with @error set.
 *
 * Since: 0.1
 */
PlanExpr *
plan_expr_compile_with_dtype (const gchar * source, guint n_names,
    const gchar * const *names, const PlanDType * dtypes, PlanDType out_dtype,
    GError ** error)
{
  return compile_full (source, n_names, names, dtypes, out_dtype, NULL, 0,
      NULL, error);
}

/**
 * plan_expr_compile_broadcast: (skip)
 * @source: the expression
 * @n_names: how many names are bound
 * @names: (array length=n_names): the bound names
 * @infos: (array length=n_names): the dtype and shape of each name
 * @n_streams: the first @n_streams names are streams (at least one)
 * @out_dtype: the dtype of the result, or %PLAN_DTYPE_UNKNOWN for the
 *   expression's own
 * @out_info: (out caller-allocates) (optional): the dtype and shape of the
 *   result
 * @error: return location for a #GError
 *
 * Like plan_expr_compile_with_dtype(), for names whose shapes differ and
 * broadcast against each other by numpy's rules (docs/expressions.md,
 * "Broadcasting"):
 *
 * - the streams, `names[0]` to `names[n_streams - 1]`, line up row by row:
 *   they have the same number of axes, the first being the rows
 *   (`shape[0]` is not looked at, and may be -1); their other axes
 *   broadcast against each other, so `(N, 1)` meets `(N, 3)`;
 * - the other names are the same for every row (array constants, scalar
 *   parameters): they broadcast against the whole output shape, aligned on
 *   the last axis as numpy aligns them, with length 1 (or no axis) along
 *   the rows, so `(3,)` meets `(N, 3)`. Those the expression does not read
 *   take no part.
 *
 * The result has the rows of the streams and the broadcast inner shape.
 * Evaluation then takes row-aligned inputs: for @n output elements
 * (n / row elements of the result, rows), each stream holds its own rows
 * (`n / row elements` of them, each of its own row size), each other name
 * its whole array, a single element for scalars. plan_expr_launch() takes
 * device pointers the same way, but a host pointer for each name with one
 * element that is not a stream (a scalar parameter), whose value is read
 * when the launch is queued.
 *
 * Returns: (transfer full) (nullable): the compiled expression, or %NULL
 *   with @error set: %PLAN_ERROR_SHAPE naming both shapes when they do not
 *   broadcast.
 *
 * Since: 0.1
 */
PlanExpr *
plan_expr_compile_broadcast (const gchar * source, guint n_names,
    const gchar * const *names, const PlanArrayInfo * infos, guint n_streams,
    PlanDType out_dtype, PlanArrayInfo * out_info, GError ** error)
{
  PlanDType *dtypes;
  PlanExpr *expr;
  guint i;

  g_return_val_if_fail (source != NULL, NULL);
  g_return_val_if_fail (n_names > 0 && names != NULL && infos != NULL, NULL);

  dtypes = g_new (PlanDType, n_names);
  for (i = 0; i < n_names; i++)
    dtypes[i] = infos[i].dtype;
  expr = compile_full (source, n_names, names, dtypes, out_dtype, infos,
      n_streams, out_info, error);
  g_free (dtypes);
  if (expr && out_info)
    out_info->dtype = expr->dtype;
  return expr;
}

static PlanExpr *
compile_full (const gchar * source, guint n_names,
    const gchar * const *names, const PlanDType * dtypes, PlanDType out_dtype,
    const PlanArrayInfo * infos, guint n_streams, PlanArrayInfo * out_info,
    GError ** error)
{
  PlanExpr *expr;
  ExprNode *root;
  guint i;

  g_return_val_if_fail (source != NULL, NULL);
  g_return_val_if_fail (n_names == 0 || (names != NULL && dtypes != NULL),
      NULL);

  ensure_debug ();
  if (out_dtype < PLAN_DTYPE_UNKNOWN || out_dtype >= PLAN_DTYPE_N) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "%d is not a dtype", (gint) out_dtype);
    return NULL;
  }
  for (i = 0; i < n_names; i++) {
    if (!names_valid (names, i, error))
      return NULL;
    if (dtypes[i] <= PLAN_DTYPE_UNKNOWN || dtypes[i] >= PLAN_DTYPE_N) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
          "name '%s' has no valid dtype", names[i]);
      return NULL;
    }
  }

  expr = g_new0 (PlanExpr, 1);
  expr->ref_count = 1;
  g_mutex_init (&expr->device_cache.lock);
  expr->source = g_strdup (source);
  expr->n_names = n_names;
  expr->names = g_new0 (gchar *, n_names + 1);
  for (i = 0; i < n_names; i++)
    expr->names[i] = g_strdup (names[i]);
  expr->dtypes = g_memdup2 (dtypes, sizeof (PlanDType) * MAX (n_names, 1));
  expr->sizes = g_new0 (gsize, MAX (n_names, 1));
  for (i = 0; i < n_names; i++)
    expr->sizes[i] = plan_dtype_get_size (dtypes[i]);
  expr->uses = g_new0 (gboolean, MAX (n_names, 1));

  _plan_expr_arena_init (&expr->arena, expr->source);
  expr->arena.n_names = n_names;
  expr->arena.names = (const gchar * const *) expr->names;
  expr->arena.dtypes = expr->dtypes;

  root = _plan_expr_parse (&expr->arena, error);
  if (root == NULL)
    goto failed;
  root = _plan_expr_type (&expr->arena, root, error);
  if (root == NULL)
    goto failed;
  if (out_dtype != PLAN_DTYPE_UNKNOWN) {
    if (plan_dtype_is_complex (root->dtype)
        && !plan_dtype_is_complex (out_dtype) && out_dtype != PLAN_DTYPE_BOOL) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_TYPE, "the expression is "
          "%s, and casting it to %s would discard the imaginary part; "
          "write real(...), imag(...) or abs(...) to say which real number "
          "is meant", plan_dtype_to_string (root->dtype),
          plan_dtype_to_string (out_dtype));
      goto failed;
    }
    root = _plan_expr_cast_root (&expr->arena, root, out_dtype);
  }

  expr->root = root;
  expr->dtype = root->dtype;
  expr->out_size = plan_dtype_get_size (root->dtype);
  mark_uses (expr, root);
  if (infos && !_plan_expr_broadcast (expr, infos, n_streams, out_info, error))
    goto failed;
  _plan_expr_build_program (expr);
  _plan_expr_build_chain (expr);
  GST_DEBUG ("compiled '%s' to %u instructions, %u temporaries, %u "
      "constants, result %s (%s kernels)", source, expr->n_instrs,
      expr->n_temps, expr->n_consts, plan_dtype_to_string (expr->dtype),
      _plan_cpu_isa_name ());
  return expr;

failed:
  plan_expr_unref (expr);
  return NULL;
}

/**
 * plan_expr_check:
 * @source: an expression
 * @error: return location for a #GError
 *
 * Checks the syntax of @source only (names and types are checked by
 * plan_expr_compile(), once the dtypes are known). Meant for property
 * setters, to reject a malformed expression early.
 *
 * Returns: whether @source parses; otherwise @error is set
 *   (%PLAN_ERROR_SYNTAX).
 *
 * Since: 0.1
 */
gboolean
plan_expr_check (const gchar * source, GError ** error)
{
  ExprArena arena;
  gboolean ok;

  g_return_val_if_fail (source != NULL, FALSE);

  _plan_expr_arena_init (&arena, source);
  ok = _plan_expr_parse (&arena, error) != NULL;
  _plan_expr_arena_clear (&arena);
  return ok;
}

/**
 * plan_expr_ref:
 * @expr: a #PlanExpr
 *
 * Returns: (transfer full): @expr
 *
 * Since: 0.1
 */
PlanExpr *
plan_expr_ref (PlanExpr * expr)
{
  g_return_val_if_fail (expr != NULL, NULL);
  g_atomic_int_inc (&expr->ref_count);
  return expr;
}

/**
 * plan_expr_unref:
 * @expr: (transfer full): a #PlanExpr
 *
 * Drops a reference; the last one frees the expression.
 *
 * Since: 0.1
 */
void
plan_expr_unref (PlanExpr * expr)
{
  g_return_if_fail (expr != NULL);
  if (!g_atomic_int_dec_and_test (&expr->ref_count))
    return;
  _plan_expr_arena_clear (&expr->arena);
  g_strfreev (expr->names);
  g_free (expr->dtypes);
  g_free (expr->sizes);
  g_free (expr->uses);
  g_free (expr->instrs);
  g_free (expr->consts);
  g_free (expr->chain_inputs);
  g_free (expr->chain_coefs);
  if (expr->bcast_index) {
    guint i;
    for (i = 0; i < expr->n_names; i++)
      g_free (expr->bcast_index[i]);
    g_free (expr->bcast_index);
  }
  g_free (expr->bcast);
  g_free (expr->source);
  if (expr->device_cache.kernel)
    expr->device_cache.free_kernel (expr->device_cache.kernel);
  g_mutex_clear (&expr->device_cache.lock);
  g_free (expr);
}

/**
 * plan_expr_get_dtype:
 * @expr: a #PlanExpr
 *
 * Returns: the dtype of the result.
 *
 * Since: 0.1
 */
PlanDType
plan_expr_get_dtype (const PlanExpr * expr)
{
  g_return_val_if_fail (expr != NULL, PLAN_DTYPE_UNKNOWN);
  return expr->dtype;
}

/**
 * plan_expr_get_source:
 * @expr: a #PlanExpr
 *
 * Returns: (transfer none): the source @expr was compiled from.
 *
 * Since: 0.1
 */
const gchar *
plan_expr_get_source (const PlanExpr * expr)
{
  g_return_val_if_fail (expr != NULL, NULL);
  return expr->source;
}

/**
 * plan_expr_get_n_names:
 * @expr: a #PlanExpr
 *
 * Returns: how many names were bound at compilation (the length of the
 *   inputs array evaluation takes).
 *
 * Since: 0.1
 */
guint
plan_expr_get_n_names (const PlanExpr * expr)
{
  g_return_val_if_fail (expr != NULL, 0);
  return expr->n_names;
}

/**
 * plan_expr_uses_name:
 * @expr: a #PlanExpr
 * @index: the index of a bound name
 *
 * Constant folding may remove a name (`x * 0` does not, `0 * 2` has none),
 * so an element can skip reading inputs the expression does not use.
 * Inputs that are not used may be %NULL in plan_expr_eval().
 *
 * Returns: whether the compiled expression reads name @index.
 *
 * Since: 0.1
 */
gboolean
plan_expr_uses_name (const PlanExpr * expr, guint index)
{
  g_return_val_if_fail (expr != NULL, FALSE);
  if (index >= expr->n_names)
    return FALSE;
  return expr->uses[index];
}

/**
 * plan_expr_get_cpu_isa:
 *
 * Returns: (transfer none): the instruction set the CPU kernels (the
 *   expressions' and the reductions') run with: "avx512", "avx2" or
 *   "default". The environment variable `PLAN_CPU_ISA` ("default" or
 *   "avx2") lowers it, for tests and benchmarks.
 *
 * Since: 0.1
 */
const gchar *
plan_expr_get_cpu_isa (void)
{
  return _plan_cpu_isa_name ();
}
/**
 * plan_expr_to_cuda:
 * @expr: a #PlanExpr
 * @function_name: a C identifier for the generated kernel
 *
 * Translates @expr to CUDA C: a `__host__ __device__` function computing
 * one element (`<function_name>_element`) and an `extern "C" __global__`
 * kernel `<function_name>` with a grid-stride loop that loads with vector
 * instructions when every pointer is aligned enough:
 *
 * |[
 * void function_name (const T0 *in0, ..., OUT *out, unsigned long long n);
 * ]|
 *
 * with one pointer per bound name (unused ones included, so the launch
 * signature depends on the bound names only). The source needs no headers
 * and compiles with NVRTC or nvcc; plan_nvrtc_compile() compiles and caches
 * it. Defining `PLAN_EXPR_HOST_ENTRY` before it also emits an `extern "C"`
 * host loop `<function_name>_host (const void *const *in, void *out,
 * unsigned long long n)`, which tests use to check the generated code on
 * the CPU.
 *
 * Returns: (transfer full): the CUDA source, or %NULL if @function_name is
 *   not a C identifier.
 *
 * Since: 0.1
 */
gchar *
plan_expr_to_cuda (const PlanExpr * expr, const gchar * function_name)
{
  const gchar *p;

  g_return_val_if_fail (expr != NULL, NULL);
  g_return_val_if_fail (function_name != NULL, NULL);

  if (!g_ascii_isalpha (function_name[0]) && function_name[0] != '_')
    return NULL;
  for (p = function_name; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return NULL;
  return _plan_expr_cuda_generate (expr->root, expr->n_names, expr->dtypes,
      expr->bcast, expr->row_elements, function_name);
}

ExprDeviceCache *
_plan_expr_get_device_cache (PlanExpr * expr)
{
  return &expr->device_cache;
}

const ExprBcast *
_plan_expr_get_bcast (const PlanExpr * expr, guint index)
{
  if (expr->bcast == NULL || index >= expr->n_names)
    return NULL;
  return &expr->bcast[index];
}
