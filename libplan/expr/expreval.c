/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanExpr: evaluation on the CPU. The program (or the fused chain) runs
 * over blocks of BLOCK elements in per-thread scratch, broadcast names
 * gathered block by block, across the worker threads of the
 * parallel-for. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planexpr-private.h"

#include <string.h>

typedef struct
{
  const PlanExpr *expr;
  const gconstpointer *inputs;
  gpointer out;
  gboolean stream;              /* write the output with streaming stores */
  gboolean prefetch;            /* prefetch the inputs of the next block */
} EvalJob;

/* Where the broadcast names of one range are read from: for each, the
 * block of its values for the current block of the output. */
typedef struct
{
  guint8 **area;                /* [n_names]: the scratch of each */
  gboolean *periodic;           /* area holds row_elements + BLOCK values */
  guint8 **cur;                 /* [n_names]: the current block */
} BcastState;

/* A complex128 value, moved as a whole. */
typedef struct
{
  guint64 part[2];
} Bytes16;

/* dst[k] = the value of name @i at output element e0 + k, k < m. */
static void
bcast_gather (const PlanExpr * e, guint i, gconstpointer src, guint8 * dst,
    guint64 e0, gsize m)
{
  const guint64 *idx = e->bcast_index[i];
  guint64 p = e->row_elements, r = e->bcast[i].row_stride;
  guint64 j = e0 % p, base = (e0 / p) * r;
  gsize k;

#define GATHER(T) { \
      const T *s = src; T *d = (T *) dst; \
      for (k = 0; k < m; k++) { \
        d[k] = s[base + idx[j]]; \
        if (++j == p) { j = 0; base += r; } \
      } } break
  switch (e->sizes[i]) {
    case 1:
      GATHER (guint8);
    case 2:
      GATHER (guint16);
    case 4:
      GATHER (guint32);
    case 8:
      GATHER (guint64);
    default:
      g_assert (e->sizes[i] == 16);
      GATHER (Bytes16);
  }
#undef GATHER
}

static void
bcast_fill (guint8 * dst, gconstpointer value, gsize size, gsize m)
{
  gsize k;

  for (k = 0; k < m; k++)
    memcpy (dst + k * size, value, size);
}

/* Bytes of scratch name @i needs for a range of @n elements. */
static gsize
bcast_area_bytes (const PlanExpr * e, guint i, gsize n, gboolean * periodic)
{
  const ExprBcast *b = &e->bcast[i];
  gsize bytes;

  *periodic = FALSE;
  if (!e->uses[i] || b->kind == EXPR_BCAST_DIRECT)
    return 0;
  /* A constant repeats every row: its values for a row and a block,
   * gathered once per range, serve every block (at the offset of the
   * block within its row), when the range is long enough to pay for it. */
  if (b->kind == EXPR_BCAST_GATHER && b->row_stride == 0
      && e->row_elements + BLOCK <= n) {
    *periodic = TRUE;
    bytes = (e->row_elements + BLOCK) * e->sizes[i];
  } else {
    bytes = SLOT_BYTES;
  }
  return (bytes + 63) & ~(gsize) 63;
}

/* Fills what is fixed for the whole range. */
static void
bcast_begin (const EvalJob * job, BcastState * bs)
{
  const PlanExpr *e = job->expr;
  guint i;

  for (i = 0; i < e->n_names; i++) {
    if (bs->area[i] == NULL)
      continue;
    if (e->bcast[i].kind == EXPR_BCAST_SCALAR) {
      bcast_fill (bs->area[i], job->inputs[i], e->sizes[i], BLOCK);
      bs->cur[i] = bs->area[i];
    } else if (bs->periodic[i]) {
      bcast_gather (e, i, job->inputs[i], bs->area[i], 0,
          e->row_elements + BLOCK);
    }
  }
}

/* Points each broadcast name at its values for the block [off, off + m). */
static inline void
bcast_block (const EvalJob * job, BcastState * bs, gsize off, gsize m)
{
  const PlanExpr *e = job->expr;
  guint i;

  for (i = 0; i < e->n_names; i++) {
    if (bs->area[i] == NULL || e->bcast[i].kind == EXPR_BCAST_SCALAR)
      continue;
    if (bs->periodic[i]) {
      bs->cur[i] = bs->area[i] + (off % e->row_elements) * e->sizes[i];
    } else {
      bcast_gather (e, i, job->inputs[i], bs->area[i], off, m);
      bs->cur[i] = bs->area[i];
    }
  }
}

static inline gpointer
reg_ptr (const PlanExpr * e, const EvalJob * job, Reg r, gsize off,
    guint8 * scratch, const BcastState * bs)
{
  switch (r.kind) {
    case REG_BCAST:
      return bs->cur[r.index];
    case REG_INPUT:
      return (guint8 *) job->inputs[r.index] + off * e->sizes[r.index];
    case REG_OUT:
      return (guint8 *) job->out + off * e->out_size;
    case REG_CONST:
      return e->consts + (gsize) r.index * SLOT_BYTES;
    default:
      return scratch + (gsize) r.index * SLOT_BYTES;
  }
}

/* One scratch area per thread, reused across calls. */
typedef struct
{
  gsize size;
  guint8 *data;
} Scratch;

static void
scratch_free (gpointer p)
{
  Scratch *s = p;
  g_free (s->data);
  g_free (s);
}

static GPrivate scratch_key = G_PRIVATE_INIT (scratch_free);

static guint8 *
get_scratch (gsize size)
{
  Scratch *s = g_private_get (&scratch_key);

  if (s == NULL) {
    s = g_new0 (Scratch, 1);
    g_private_set (&scratch_key, s);
  }
  if (s->size < size) {
    g_free (s->data);
    s->data = g_malloc (size);
    s->size = size;
  }
  return s->data;
}

/* Asks for the inputs of the next block while this one computes: the
 * operations of a block run one after the other, so without this the
 * memory system idles while a long operation (sin, say) runs in cache. */
static inline void
prefetch_inputs (const EvalJob * job, gsize off, gsize end)
{
  const PlanExpr *e = job->expr;
  guint i;

  if (off >= end)
    return;
  for (i = 0; i < e->n_names; i++) {
    gsize size = e->sizes[i];
    const guint8 *p;
    gsize bytes, b;
    if (!e->uses[i] || (e->bcast && e->bcast[i].kind != EXPR_BCAST_DIRECT))
      continue;
    p = (const guint8 *) job->inputs[i] + off * size;
    bytes = MIN (BLOCK, end - off) * size;
    for (b = 0; b < bytes; b += 64)
      __builtin_prefetch (p + b, 0, 3);
  }
}

/* Runs the program on the block of @m elements at @off (of a range that
 * ends at @end); the last operation writes into @last when it is not
 * NULL. */
static inline void
eval_block (const EvalJob * job, gsize off, gsize m, gsize end,
    guint8 * scratch, BcastState * bs, gpointer last)
{
  const PlanExpr *e = job->expr;
  guint i;

  if (job->prefetch)
    prefetch_inputs (job, off + BLOCK, end);
  if (bs)
    bcast_block (job, bs, off, m);
  for (i = 0; i < e->n_instrs; i++) {
    const Instr *ins = &e->instrs[i];
    gpointer dst = last && i + 1 == e->n_instrs ? last
        : reg_ptr (e, job, ins->dst, off, scratch, bs);
    ins->kernel (m, dst, reg_ptr (e, job, ins->src[0], off, scratch, bs),
        ins->n_src > 1 ? reg_ptr (e, job, ins->src[1], off, scratch,
            bs) : NULL,
        ins->n_src > 2 ? reg_ptr (e, job, ins->src[2], off, scratch,
            bs) : NULL);
  }
}

static void
eval_blocks (const EvalJob * job, gsize begin, gsize end, guint8 * scratch,
    BcastState * bs)
{
  gsize off;

  for (off = begin; off < end; off += BLOCK)
    eval_block (job, off, MIN (BLOCK, end - off), end, scratch, bs, NULL);
}

/* As eval_blocks(), but the last operation writes into a spare block in
 * cache, which is then streamed to the output. */
static void
eval_blocks_streaming (const EvalJob * job, gsize begin, gsize end,
    guint8 * scratch, BcastState * bs)
{
  const PlanExpr *e = job->expr;
  const ExprKernelTable *t = _plan_expr_kernels ();
  gsize size = e->out_size;
  guint8 *last = scratch + (gsize) e->n_temps * SLOT_BYTES;
  gsize off;

  for (off = begin; off < end; off += BLOCK) {
    gsize m = MIN (BLOCK, end - off);

    eval_block (job, off, m, end, scratch, bs, last);
    t->stream_copy ((guint8 *) job->out + off * size, last, m * size);
  }
  t->stream_fence ();
}

/* Runs the chain kernel over [begin, end): in one call when its terms
 * fit one and there is no scaling, otherwise block by block with the
 * running sum in a block in cache (the output may be one of the inputs,
 * which a partial sum must not overwrite before the later terms have read
 * it), copied out at the end, with streaming stores for large outputs. */
static void
eval_chain (const EvalJob * job, gsize begin, gsize end, guint8 * scratch)
{
  const PlanExpr *e = job->expr;
  const ExprKernelTable *t = _plan_expr_kernels ();
  gsize size = e->out_size;
  gconstpointer x[EXPR_CHAIN_GROUP];
  gboolean blocks = job->stream || e->chain_n > EXPR_CHAIN_GROUP
      || e->chain_post != EXPR_CHAIN_POST_NONE;
  gsize step = blocks ? BLOCK : end - begin;
  gsize off;
  guint g, j;

  for (off = begin; off < end; off += step) {
    gsize m = MIN (step, end - off);
    guint8 *dst = blocks ? scratch : (guint8 *) job->out + off * size;

    for (g = 0; g < e->chain_n; g += EXPR_CHAIN_GROUP) {
      guint k = MIN (EXPR_CHAIN_GROUP, e->chain_n - g);
      gboolean last = g + k == e->chain_n;

      for (j = 0; j < k; j++)
        x[j] = (const guint8 *) job->inputs[e->chain_inputs[g + j]] +
            off * size;
      e->chain_kernel (m, dst, x, e->chain_coefs + g * size, k, g == 0,
          last ? e->chain_post : EXPR_CHAIN_POST_NONE,
          e->chain_post_coef.bytes);
    }
    if (job->stream)
      t->stream_copy ((guint8 *) job->out + off * size, dst, m * size);
    else if (blocks)
      memcpy ((guint8 *) job->out + off * size, dst, m * size);
  }
  if (job->stream)
    t->stream_fence ();
}

static void
eval_range (gsize begin, gsize end, gpointer user_data)
{
  const EvalJob *job = user_data;
  const PlanExpr *e = job->expr;
  guint n_slots = e->n_temps + (job->stream ? 1 : 0);
  guint8 *scratch;
  guint i;

  if (e->any_bcast) {
    /* The names' areas follow the temporaries in the scratch. */
    BcastState bs;
    gsize bytes = (gsize) n_slots * SLOT_BYTES, *at;

    bs.area = g_newa (guint8 *, e->n_names);
    bs.cur = g_newa (guint8 *, e->n_names);
    bs.periodic = g_newa (gboolean, e->n_names);
    at = g_newa (gsize, e->n_names);
    for (i = 0; i < e->n_names; i++) {
      gsize b = bcast_area_bytes (e, i, end - begin, &bs.periodic[i]);
      at[i] = b ? bytes : G_MAXSIZE;
      bytes += b;
    }
    scratch = get_scratch (bytes);
    for (i = 0; i < e->n_names; i++) {
      bs.area[i] = at[i] == G_MAXSIZE ? NULL : scratch + at[i];
      bs.cur[i] = NULL;
    }
    bcast_begin (job, &bs);
    if (job->stream)
      eval_blocks_streaming (job, begin, end, scratch, &bs);
    else
      eval_blocks (job, begin, end, scratch, &bs);
    return;
  }

  scratch = n_slots ? get_scratch ((gsize) n_slots * SLOT_BYTES) : NULL;
  if (e->chain_kernel != NULL) {
    eval_chain (job, begin, end, get_scratch (SLOT_BYTES));
    return;
  }
  if (job->stream) {
    eval_blocks_streaming (job, begin, end, scratch, NULL);
    return;
  }

  /* One operation straight from the inputs to the output needs neither
   * blocks nor temporaries: run it over the whole range. */
  if (e->n_instrs == 1 && e->n_consts == 0) {
    const Instr *ins = &e->instrs[0];
    gconstpointer s[3] = { NULL, NULL, NULL };
    for (i = 0; i < ins->n_src; i++)
      s[i] = reg_ptr (e, job, ins->src[i], begin, NULL, NULL);
    ins->kernel (end - begin, reg_ptr (e, job, ins->dst, begin, NULL, NULL),
        s[0], s[1], s[2]);
    return;
  }
  eval_blocks (job, begin, end, scratch, NULL);
}

/* Outputs larger than this are written with streaming stores: they would
 * not stay in cache anyway, and skipping the read for ownership saves a
 * third of the traffic of a two-input expression. Smaller ones stay in
 * cache for the next element of the pipeline. */
#define STREAM_MIN_BYTES (16 << 20)

/* Inputs smaller than this are likely in cache already; prefetching them
 * would only cost instructions. */
#define PREFETCH_MIN_BYTES (1 << 20)

static void
eval_job_init (EvalJob * job, const PlanExpr * expr,
    const gconstpointer * inputs, gpointer out, gsize n)
{
  job->expr = expr;
  job->prefetch = n * expr->out_size >= PREFETCH_MIN_BYTES;
  job->inputs = inputs;
  job->out = out;
  job->stream = expr->n_instrs > 1
      && n * plan_dtype_get_size (expr->dtype) >= STREAM_MIN_BYTES
      && g_strcmp0 (g_getenv ("PLAN_EXPR_STREAM"), "0") != 0;
}

/**
 * plan_expr_eval: (skip)
 * @expr: a #PlanExpr
 * @inputs: (array): for each bound name, @n contiguous elements of its dtype
 *   (%NULL for names the expression does not use)
 * @out: room for @n elements of the result dtype; it may be one of the
 *   inputs when that input has the result's element size (in-place)
 * @n: the number of elements
 *
 * Evaluates @expr elementwise on the calling thread, block by block.
 *
 * Since: 0.1
 */
void
plan_expr_eval (const PlanExpr * expr, const gconstpointer * inputs,
    gpointer out, gsize n)
{
  EvalJob job;

  g_return_if_fail (expr != NULL);
  g_return_if_fail (out != NULL || n == 0);
  g_return_if_fail (inputs != NULL || expr->n_names == 0);
  if (n == 0)
    return;
  eval_job_init (&job, expr, inputs, out, n);
  eval_range (0, n, &job);
}

/* The least work (elements x op_cost) worth a thread of its own: about
 * 100 us on the development machine. There, a slice of 256 Ki float32
 * evaluated into a file by planmap was faster on one thread for
 * 2*x*y + sin(x) (cost 7, 0.164 s against 0.195 s per GiB) and on two for
 * sin(x)*cos(y) + exp(x*0.01) + sqrt(abs(y)) (cost 19, 0.271 s against
 * 0.314 s): tests/benchmarks/bench_map.py, docs/planmap.md. */
#define PARALLEL_MIN_WORK ((gsize) 2 << 20)

static void
eval_parallel (const PlanExpr * expr, const gconstpointer * inputs,
    gpointer out, gsize n, guint n_threads, gsize min_work, gint64 linger_us)
{
  EvalJob job;

  eval_job_init (&job, expr, inputs, out, n);
  if (n_threads == 0)
    n_threads = plan_parallel_get_n_cores ();
  n_threads = MIN (n_threads, MAX (1, n * MAX (expr->cost, 1) / min_work));
  _plan_parallel_for_lingering (n_threads, n, GRAIN, eval_range, &job,
      linger_us);
}

/**
 * plan_expr_eval_parallel: (skip)
 * @expr: a #PlanExpr
 * @inputs: (array): as for plan_expr_eval()
 * @out: as for plan_expr_eval()
 * @n: the number of elements
 * @n_threads: threads to use, the caller's included; 0 for all cores
 *
 * Like plan_expr_eval(), split over up to @n_threads threads of the shared
 * pool (see plan_parallel_for()), but only as many as get a fair amount of
 * work each: the number of elements times a rough cost of the expression
 * per element (transcendental functions weigh four times an addition)
 * must reach about two million per thread. Less runs on the calling
 * thread.
 *
 * Since: 0.1
 */
void
plan_expr_eval_parallel (const PlanExpr * expr, const gconstpointer * inputs,
    gpointer out, gsize n, guint n_threads)
{
  g_return_if_fail (expr != NULL);
  g_return_if_fail (out != NULL || n == 0);
  g_return_if_fail (inputs != NULL || expr->n_names == 0);
  /* Each thread gets at least PARALLEL_MIN_WORK: waking a worker and
   * waiting for it costs more than it saves below that. */
  eval_parallel (expr, inputs, out, n, n_threads, PARALLEL_MIN_WORK, 0);
}

/* For an array in memory that the caller evaluates once per dispatch,
 * often in a loop: a thread is worth it from about 32 Ki element-costs
 * (x + y on 64 Ki float64, 5 us a thread on the development machine;
 * tests/benchmarks/bench_plan add64), provided the workers stay awake
 * between dispatches, which they do for IN_MEMORY_LINGER_US. */
#define IN_MEMORY_MIN_WORK ((gsize) 32 << 10)
#define IN_MEMORY_LINGER_US 50

/*
 * _plan_expr_eval_in_memory:
 *
 * plan_expr_eval_parallel() on all cores for a whole array in memory, the
 * plan API's direct path: threads from a smaller size than a streaming
 * element's blocks use, and workers that wait a little for the next
 * dispatch instead of sleeping (_plan_parallel_for_lingering()).
 */
void
_plan_expr_eval_in_memory (const PlanExpr * expr,
    const gconstpointer * inputs, gpointer out, gsize n)
{
  eval_parallel (expr, inputs, out, n, 0, IN_MEMORY_MIN_WORK,
      IN_MEMORY_LINGER_US);
}
