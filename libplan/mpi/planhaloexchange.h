/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_HALO_EXCHANGE_H__
#define __PLAN_HALO_EXCHANGE_H__

#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's halo exchange API is unstable and may change; define PLAN_USE_UNSTABLE_API to use it without this warning."
#endif

#include <libplan/plan-prelude.h>
#include <libplan/planshard.h>
#include <libplan/planboundary.h>
#include <libplan/planstencilkernel.h>

G_BEGIN_DECLS

/**
 * PlanHaloExchange:
 *
 * The halo rows a stencil over one rank's share of a sharded stream
 * trades with the neighbouring ranks: each rank but the first (every rank
 * with boundary=wrap) sends its first 2h rows to the rank before it, and
 * each but the last (every rank with wrap) appends the first 2h rows of
 * the rank after it at its end, so that every output row is computed by
 * one rank from the rows the whole array has around it. Used from the
 * element's streaming thread. Unstable API.
 *
 * Since: 0.1
 */
typedef struct _PlanHaloExchange PlanHaloExchange;

PLAN_API
PlanHaloExchange * plan_halo_exchange_new (const gchar * owner,
    const PlanShardInfo * input, guint halo_rows, PlanBoundary boundary,
    const gchar * reach);

PLAN_API
void plan_halo_exchange_free (PlanHaloExchange * exchange);

PLAN_API
void plan_halo_exchange_get_output (PlanHaloExchange * exchange,
    PlanShardInfo * output);

PLAN_API
gint64 plan_halo_exchange_get_rows_delta (PlanHaloExchange * exchange);

PLAN_API
gboolean plan_halo_exchange_check_rows (PlanHaloExchange * exchange,
    gint64 n_rows, GError ** error);

PLAN_API
void plan_halo_exchange_start (PlanHaloExchange * exchange,
    PlanStencilKernel * kernel, guint n_inputs, const gsize * row_sizes);

PLAN_API
void plan_halo_exchange_reset (PlanHaloExchange * exchange);

PLAN_API
gboolean plan_halo_exchange_send_head (PlanHaloExchange * exchange,
    const gconstpointer * rows, gsize n_rows, GError ** error);

PLAN_API
gboolean plan_halo_exchange_check_head (PlanHaloExchange * exchange,
    guint64 n_rows, GError ** error);

PLAN_API
gboolean plan_halo_exchange_recv_tail (PlanHaloExchange * exchange,
    gconstpointer * rows, gsize * n_rows, GError ** error);

G_END_DECLS

#endif /* __PLAN_HALO_EXCHANGE_H__ */
