/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanReducer: the fixed merge tree of block results. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planreducer-private.h"
#include <libplan/planerror.h>
#include <libplan/planexpr.h>
#include <libplan/planparallel.h>
#include <libplan/planarray.h>

#include <math.h>
#include <string.h>

/* The tree ----------------------------------------------------------------
 *
 * A binary counter over block results: a new result enters at level 0 and
 * merges with the top of the stack while that has the same level. */

/* Places the node of @level that covers the blocks from @start in the
 * shape of @t: it merges with the top of the stack while that is its left
 * sibling (a node of the same level, an even one of its level). From
 * block 0 this is a binary counter; from elsewhere (a shard) it makes the
 * nodes that a run from 0 makes, so that shards' nodes merge into the
 * single run's tree. Returns how many nodes it merges with: those in the
 * slots from depth - 1 after it on; it ends in slot depth - 1. */
guint
_plan_reducer_tree_place (Tree * t, guint level, guint64 start)
{
  guint merges = 0;

  while (t->depth > 0 && t->levels[t->depth - 1] == level
      && ((t->starts[t->depth - 1] >> level) & 1) == 0) {
    start = t->starts[t->depth - 1];
    level++;
    t->depth--;
    merges++;
  }
  g_assert (t->depth < STACK_SIZE);
  t->levels[t->depth] = level;
  t->starts[t->depth] = start;
  t->depth++;
  return merges;
}

void
_plan_reducer_tree_push_node (const PlanReducer * r, Tree * t, const Acc * node,
    guint level, guint64 start)
{
  guint slot = t->depth, merges = _plan_reducer_tree_place (t, level, start);
  Acc acc = *node;

  while (merges-- > 0) {
    Acc merged = t->stack[--slot];

    r->merge (r, &merged, &acc);
    acc = merged;
  }
  t->stack[slot] = acc;
}

void
_plan_reducer_tree_push (const PlanReducer * r, Tree * t, const Acc * block, guint64 index)
{
  _plan_reducer_tree_push_node (r, t, block, 0, index);
}

/* Folds the pending results, most recent first, after @partial (the last,
 * incomplete block) when there is one. */
void
_plan_reducer_tree_fold (const PlanReducer * r, const Tree * t, const Acc * partial,
    Acc * out)
{
  gint i = (gint) t->depth - 1;
  Acc acc;

  if (partial != NULL)
    acc = *partial;
  else if (i >= 0)
    acc = t->stack[i--];
  else
    acc = r->identity;
  for (; i >= 0; i--) {
    Acc merged = t->stack[i];

    r->merge (r, &merged, &acc);
    acc = merged;
  }
  *out = acc;
}

/* Reduces @n contiguous elements (one row) with the block tree, so that a
 * row of n elements gives exactly what a stream of them would. */
void
_plan_reducer_reduce_contiguous (const PlanReducer * r, const guint8 * data, gsize n,
    Acc * out, gpointer scratch)
{
  Acc stack[STACK_SIZE], block;
  guint levels[STACK_SIZE];
  guint64 starts[STACK_SIZE];
  Tree t = { stack, levels, starts, 0 };
  gsize k;

  for (k = 0; k + BLOCK <= n; k += BLOCK) {
    r->block (r, data + k * r->in_size, BLOCK, k, &block, scratch);
    _plan_reducer_tree_push (r, &t, &block, k / BLOCK);
  }
  if (k < n) {
    r->block (r, data + k * r->in_size, n - k, k, &block, scratch);
    _plan_reducer_tree_fold (r, &t, &block, out);
  } else {
    _plan_reducer_tree_fold (r, &t, NULL, out);
  }
}

gpointer
_plan_reducer_scratch_new (const PlanReducer * r, gsize n_elements)
{
  return r->custom ? g_malloc (n_elements * r->acc_size) : NULL;
}
