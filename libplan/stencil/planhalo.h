/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_HALO_H__
#define __PLAN_HALO_H__

#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's halo API is unstable and may change; define PLAN_USE_UNSTABLE_API to use it without this warning."
#endif

#include <libplan/plan-prelude.h>
#include <libplan/planarrayinfo.h>
#include <libplan/planboundary.h>
#include <libplan/planwindow.h>

G_BEGIN_DECLS

/**
 * PlanHalo:
 *
 * An opaque streaming padder: it takes an array's rows chunk by chunk and
 * hands out blocks padded with boundary cells along every axis, ready for a
 * stencil to read on shifted views. Not thread-safe: one thread (the
 * streaming thread) uses it.
 *
 * Since: 0.1
 */
typedef struct _PlanHalo PlanHalo;

/**
 * PLAN_HALO_MAX_BLOCKS:
 *
 * The most blocks plan_halo_push() and plan_halo_finish() return at once.
 *
 * Since: 0.1
 */
#define PLAN_HALO_MAX_BLOCKS 2

/**
 * PlanHaloBlock:
 * @origin: the padded cell at the centre of the block's first output
 *   element; the cell at offset (d0, d1, ...) from an output element's
 *   centre is `origin + sum (index_k + d_k) * strides[k]` elements
 * @first_row: the block's first output row in the output stream
 * @n_rows: the number of output rows the block covers, 0 for none
 * @ndim: the number of axes
 * @shape: the output extent of the block along each axis (`shape[0]` is
 *   @n_rows)
 * @strides: the padded block's stride along each axis, in elements
 * @contiguous: %TRUE when the block's outputs are evenly spaced in the
 *   padded block, so that every shifted view of all of them is one
 *   contiguous run of `n_rows * row elements`
 *
 * Where the padded input of some output rows lies. Valid until the next
 * call on the #PlanHalo that gave it (and, for a block read in place, as
 * long as the rows given to plan_halo_push()).
 *
 * Since: 0.1
 */
typedef struct
{
  gconstpointer origin;
  guint64 first_row;
  gsize n_rows;
  guint ndim;
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  gssize strides[PLAN_ARRAY_MAX_DIMS];
  gboolean contiguous;

  /*< private >*/
  gpointer _plan_reserved[4];
} PlanHaloBlock;

PLAN_API
gboolean plan_halo_size_for_window (const PlanWindow * window,
    const PlanArrayInfo * input, guint * halo, GError ** error);

PLAN_API
PlanHalo * plan_halo_new (const PlanArrayInfo * info, const guint * halo,
    PlanBoundary boundary, gdouble cval, GError ** error);

PLAN_API
void plan_halo_free (PlanHalo * halo);

PLAN_API
void plan_halo_get_output_info (PlanHalo * halo, PlanArrayInfo * output);

PLAN_API
void plan_halo_reset (PlanHalo * halo);

PLAN_API
gboolean plan_halo_set_pad_inner (PlanHalo * halo, gboolean pad_inner);

PLAN_API
void plan_halo_set_context_rows (PlanHalo * halo, gboolean leading,
    gboolean trailing);

PLAN_API
guint plan_halo_get_edges (PlanHalo * halo, const PlanHaloBlock * block,
    PlanHaloBlock * edges);

PLAN_API
gboolean plan_halo_needs_end_rows (PlanHalo * halo, gsize n_rows,
    gsize * n_end_rows);

PLAN_API
gboolean plan_halo_set_end_rows (PlanHalo * halo, guint64 total_rows,
    gconstpointer rows, gsize n_rows, GError ** error);

PLAN_API
gboolean plan_halo_push (PlanHalo * halo, gconstpointer rows, gsize n_rows,
    PlanHaloBlock * blocks, guint * n_blocks, GError ** error);

PLAN_API
gboolean plan_halo_finish (PlanHalo * halo, PlanHaloBlock * blocks,
    guint * n_blocks, GError ** error);

PLAN_API
gssize plan_halo_block_get_offset (const PlanHaloBlock * block,
    const gint * delta);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlanHalo, plan_halo_free)

G_END_DECLS

#endif /* __PLAN_HALO_H__ */
