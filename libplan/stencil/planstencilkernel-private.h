/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the files of PlanStencilKernel share: planstencilkernel.c (making,
 * configuring and freeing one), planstencilkernel-host.c (the host
 * computation, on PlanHalo blocks) and planstencilkernel-device.c (the
 * device computation). Never installed. */

#ifndef __PLAN_STENCIL_KERNEL_PRIVATE_H__
#define __PLAN_STENCIL_KERNEL_PRIVATE_H__

#include "planstencilkernel.h"
#include "libplan/expr/expr-private.h"
#include <libplan/planerror.h>
#include "libplan/core/plan-private.h"
#include <libplan/plannvrtc.h>
#include <libplan/planparallel.h>

#include <string.h>

#define PLAN_STENCIL_FN static inline
#include "kernels/cuda/stencil_index.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (plan_stencil_kernel_debug);

/* The most inputs a stencil computes on a device (more: on the host). */
#define DEVICE_MAX_INPUTS 8

/* Outputs per task of the worker threads, when the work is split by line. */
#define LINE_GRAIN_ELEMENTS 16384

/* With several iterations, the input rows that go through the
 * applications before the last one at a time (docs/performance.md). */
#define TEMPORAL_BLOCK_BYTES (64 << 10)

/* Where each cell of an output comes from, for the device path. */
typedef struct
{
  guint ndim;
  guint n_names;
  gint boundary;
  gint64 ishape[PLAN_ARRAY_MAX_DIMS];   /* [0] unused */
  gint64 oshape[PLAN_ARRAY_MAX_DIMS];   /* [0] unused */
  gint64 istride[PLAN_ARRAY_MAX_DIMS];  /* elements, within a row */
  gint64 shift[PLAN_ARRAY_MAX_DIMS];    /* centre minus output index */
  guint halo[PLAN_ARRAY_MAX_DIMS];
  gsize in_esize;
  gsize out_esize;
  gsize in_row_bytes;
  gsize out_row_elems;
  gsize line_len;               /* outputs per line of the host kernel */
} Geometry;

struct _PlanStencilKernel
{
  PlanWindow *window;
  PlanExpr *expr;
  PlanArrayInfo input;
  PlanArrayInfo output;
  PlanBoundary boundary;
  guint8 cval[16];
  guint n_threads;
  guint n_names;
  gint (*deltas)[PLAN_ARRAY_MAX_DIMS];  /* [n_names]: offset per axis */
  Geometry geom;
  guint rows_lost;

  /* host path */
  PlanHalo *halo;
  gssize *offsets;              /* [n_names]: offset in the block */
  gboolean unpadded;            /* rows not padded: edges computed apart */
  guint8 *edge_out;             /* the outputs of the edge blocks */
  gsize edge_out_size;

  /* device path: the rows kept on the device */
  PlanDevice *device;
  PlanKernel *cuda;             /* the generated kernel, on CUDA devices */
  gpointer carry[2];            /* the last rows, alternately */
  guint cur;
  gsize n_carry;                /* rows in carry[cur] */
  gpointer first;               /* wrap: the stream's first rows */
  gsize n_first;
  gpointer end;                 /* wrap: the stream's last rows */
  guint8 *end_host;             /* their host copy, until uploaded */
  gsize n_end;
  guint64 total;
  gboolean have_end;
  guint64 received;
  gint64 next_c;                /* the next output's centre row */

  /* Iterations: the next application of the window, to this one's
   * output (NULL on the last); the fields below are the first's. */
  PlanStencilKernel *next;
  guint iterations;             /* in the chain from this one on */
  guint8 *tmp;                  /* host: this application's outputs */
  gsize tmp_size;
  gpointer dev_tmp;             /* device: this application's outputs */
  gsize dev_tmp_size;
  guint finish_phase;           /* host: how far plan_stencil_kernel_finish() is */
  guint8 *gathered;             /* host: the last application's input */
  gsize gathered_size;

  /* wrap along the streaming axis over several iterations, on the host:
   * the stream goes through as the middle of its periodic extension,
   * every application reading its first and last rows as context. */
  gboolean wrap_chain;
  guint8 *prefix;               /* the extension's rows before row 0 */
  guint8 *joined;               /* the prefix and the first chunk */
  GByteArray *head;             /* the stream's first rows */
  guint64 host_total;
  guint64 host_received;
  gboolean have_prefix;

  /* Several inputs (plan_stencil_kernel_new_inputs()), one application:
   * each input after the first has its own halo, whose blocks match the
   * first's block for block; each name reads one input. */
  guint n_inputs;
  PlanWindow **windows;         /* [n_inputs] */
  PlanHalo **more_halos;        /* [n_inputs - 1] */
  PlanHaloBlock (*more_blocks)[PLAN_HALO_MAX_BLOCKS];   /* [n_inputs - 1] */
  guint *name_input;            /* [n_names]: the input a name reads */
  gsize *name_esize;            /* [n_names]: its element size */
  guint8 (*cvals)[16];          /* [n_inputs]: cval in each input's dtype */
  PlanDType *dtypes;            /* [n_inputs] */
  /* the device rows of the inputs after the first: kernels holding only
   * their rows' state (carry, first, end rows), the first's geometry */
  PlanStencilKernel **dev_inputs;       /* [n_inputs - 1] */
};

/* The application of the window whose output is the chain's. */
G_GNUC_INTERNAL
PlanStencilKernel *_plan_stencil_kernel_last_stage (PlanStencilKernel * self);

G_END_DECLS

#endif /* __PLAN_STENCIL_KERNEL_PRIVATE_H__ */
