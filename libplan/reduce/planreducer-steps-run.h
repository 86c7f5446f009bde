/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The steps of PlanReducer's reduction tree, for the device: the run of
 * the algorithm, included at the end of planreducer-steps.h (include that
 * one). planreducer-steps.h holds the arithmetic of the elements (the
 * types, the loads and stores, the element steps and merges of real and
 * complex values, the moments); this file runs it as PrkParams say: the
 * merge of an algorithm, the lanes and passes of a block, the tree of
 * blocks, the column blocks, the finals, a row of axis -1, the chunk
 * steps of the whole-stream reduction and, on the host, the kernels of the
 * sim and cpu devices. NVRTC gets the two files' text in that order
 * (libplan/meson.build embeds both). */

#ifndef PLAN_REDUCER_STEPS_RUN_H
#define PLAN_REDUCER_STEPS_RUN_H

#ifndef PLAN_REDUCER_STEPS_H
#error "include <libplan/planreducer-steps.h>, which includes this file"
#endif

/* Merges: a = a (+) b, a holding the earlier elements -------------------- */

PRK_HD void
prk_merge (const PrkParams * P, PrkAcc * a, const PrkAcc * b)
{
  int is_min;

  if (prk_c_own (P)) {
    prk_merge_c (P, a, b);
    return;
  }
  switch (PRK_ALGO (P)) {
    case PRK_A_CUSTOM:
      PRK_HOOK (P, merge, (P->hook_data, a, b));
      break;
    case PRK_A_ISUM:
    case PRK_A_NONZERO:
      a->v.u += b->v.u;
      break;
    case PRK_A_IPROD:
      a->v.u *= b->v.u;
      break;
    case PRK_A_DSUM:
    case PRK_A_KSUM:
    case PRK_A_NANDSUM:
    case PRK_A_NANKSUM:
      prk_dd_add (a, b->v.f, b->lo);
      break;
    case PRK_A_NANMEAN:
      prk_dd_add (a, b->v.f, b->lo);
      a->index += b->index;
      break;
    case PRK_A_FPROD:
    case PRK_A_NANFPROD:
      a->v.f *= b->v.f;
      break;
    case PRK_A_ANY:
      a->v.u |= b->v.u;
      break;
    case PRK_A_ALL:
      a->v.u &= b->v.u;
      break;
    case PRK_A_MIN:
      if (PRK_KIND (P) == PRK_KIND_F)
        prk_merge_minmax_f (&a->v, b->v, 1);
      else if (PRK_KIND (P) == PRK_KIND_S)
        prk_merge_min_s (a, b);
      else
        prk_merge_min_u (a, b);
      break;
    case PRK_A_MAX:
      if (PRK_KIND (P) == PRK_KIND_F)
        prk_merge_minmax_f (&a->v, b->v, 0);
      else if (PRK_KIND (P) == PRK_KIND_S)
        prk_merge_max_s (a, b);
      else
        prk_merge_max_u (a, b);
      break;
    case PRK_A_ARGMIN:
    case PRK_A_ARGMAX:
      is_min = PRK_ALGO (P) == PRK_A_ARGMIN;
      if (PRK_KIND (P) == PRK_KIND_F)
        prk_merge_arg_f (a, b, is_min);
      else if (PRK_KIND (P) == PRK_KIND_S)
        is_min ? prk_merge_argmin_s (a, b) : prk_merge_argmax_s (a, b);
      else
        is_min ? prk_merge_argmin_u (a, b) : prk_merge_argmax_u (a, b);
      break;
    case PRK_A_NANMIN:
    case PRK_A_NANMAX:
      prk_merge_nanminmax (a, b, PRK_ALGO (P) == PRK_A_NANMIN);
      break;
    case PRK_A_NANARGMIN:
    case PRK_A_NANARGMAX:
      prk_merge_nanarg (a, b, PRK_ALGO (P) == PRK_A_NANARGMIN);
      break;
    case PRK_A_VAR:
    case PRK_A_NANVAR:
      prk_merge_moments (a, b);
      break;
    case PRK_A_PTP:
      if (PRK_KIND (P) == PRK_KIND_F)
        prk_merge_ptp_f (a, b);
      else if (PRK_KIND (P) == PRK_KIND_S)
        prk_merge_ptp_s (a, b);
      else
        prk_merge_ptp_u (a, b);
      break;
  }
}

/* Lanes of a block -------------------------------------------------------- */

/* Whether the block needs the second pass (the moments). */
PRK_HD int
prk_two_pass (const PrkParams * P)
{
  return PRK_ALGO (P) == PRK_A_VAR || PRK_ALGO (P) == PRK_A_NANVAR;
}

/* Complex lanes: the start values of lane @l, one element @i into it, and
 * the lanes combined. */
PRK_HD void
prk_lane_init_c (const PrkParams * P, PrkLane * L, const void *x,
    prk_u64 n, prk_u64 base, unsigned int l)
{
  double e = prk_is_min_algo (PRK_ALGO (P)) ? PRK_INF : -PRK_INF;

  /* the lane's start does not depend on its elements (prk_lane_init's) */
  (void) x;
  (void) n;
  (void) base;
  (void) l;

  switch (PRK_ALGO (P)) {
    case PRK_A_FPROD:
    case PRK_A_NANFPROD:
      L->s = 1.0;
      break;
    case PRK_A_MIN:
    case PRK_A_MAX:
    case PRK_A_ARGMIN:
    case PRK_A_ARGMAX:
    case PRK_A_NANMIN:
    case PRK_A_NANMAX:
    case PRK_A_NANARGMIN:
    case PRK_A_NANARGMAX:
      L->a.f = L->ai = e;
      break;
    case PRK_A_PTP:
      L->a.f = L->ai = -PRK_INF;
      L->b.f = L->bi = PRK_INF;
      L->n = PRK_NONE;
      break;
    default:
      break;
  }
}

/* One complex element (re, im), index @g, into lane @L. */
PRK_HD void
prk_lane_step_c (const PrkParams * P, PrkLane * L, double re, double im,
    prk_u64 g, int pass, const PrkMid * mid)
{
  int is_min = prk_is_min_algo (PRK_ALGO (P)), nan = prk_cnan (re, im);

  switch (PRK_ALGO (P)) {
    case PRK_A_DSUM:
      L->s += re;
      L->si += im;
      break;
    case PRK_A_KSUM:
    case PRK_A_NANKSUM:
    case PRK_A_NANDSUM:
    case PRK_A_NANMEAN:
      if (PRK_ALGO (P) != PRK_A_KSUM) {
        if (PRK_ALGO (P) == PRK_A_NANMEAN)
          L->n += !nan;
        if (nan)
          re = im = 0.0;
      }
      L->p += re;
      prk_ksum_step (&L->s, &L->c, re);
      L->pi += im;
      prk_ksum_step (&L->si, &L->ci, im);
      break;
    case PRK_A_FPROD:
      prk_cmul (&L->s, &L->si, re, im);
      break;
    case PRK_A_NANFPROD:
      prk_cmul (&L->s, &L->si, nan ? 1.0 : re, nan ? 0.0 : im);
      break;
    case PRK_A_MIN:
    case PRK_A_MAX:
    case PRK_A_ARGMIN:
    case PRK_A_ARGMAX:
      if (prk_ctake (L->a.f, L->ai, L->idx, re, im, g, is_min)) {
        L->a.f = re;
        L->ai = im;
        L->idx = g;
      }
      break;
    case PRK_A_PTP:
      if (prk_ctake (L->a.f, L->ai, L->idx, re, im, g, 0)) {
        L->a.f = re;
        L->ai = im;
        L->idx = g;
      }
      if (prk_ctake (L->b.f, L->bi, L->n, re, im, g, 1)) {
        L->b.f = re;
        L->bi = im;
        L->n = g;
      }
      break;
    case PRK_A_NANMIN:
    case PRK_A_NANMAX:
      /* a lane's elements come in index order: the first NaN, then the
       * first number, then strictly better ones */
      if (nan ? L->n == 0 : L->n < 2 || prk_cbetter (re, im, L->a.f, L->ai,
              is_min)) {
        L->a.f = re;
        L->ai = im;
        L->n = nan ? 1 : 2;
        L->idx = g;
      }
      break;
    case PRK_A_NANARGMIN:
    case PRK_A_NANARGMAX:
      if (nan) {
        re = is_min ? PRK_INF : -PRK_INF;
        im = 0.0;
      } else {
        L->n = 1;
      }
      if (L->idx == PRK_NONE || prk_cbetter (re, im, L->a.f, L->ai, is_min)) {
        L->a.f = re;
        L->ai = im;
        L->idx = g;
      }
      break;
    case PRK_A_VAR:
    case PRK_A_NANVAR:{
      int ok = PRK_ALGO (P) == PRK_A_VAR || !nan;

      if (pass == 0) {
        L->s += ok ? re : 0.0;
        L->si += ok ? im : 0.0;
        L->n += (prk_u64) ok;
      } else {
        double dr = ok ? re - mid->m : 0.0, di = ok ? im - mid->mi : 0.0;
        double q = dr * dr, q2 = di * di;

        L->c += dr;
        L->ci += di;
        L->p += q + q2;
      }
      break;
    }
  }
}

/* A lane's value as an accumulator (min, max, arg and nan versions, ptp). */
PRK_HD void
prk_lane_acc_c (const PrkParams * P, const PrkLane * L, PrkAcc * a)
{
  a->v.f = L->a.f;
  a->im = L->ai;
  switch (PRK_ALGO (P)) {
    case PRK_A_ARGMIN:
    case PRK_A_ARGMAX:
      a->index = L->idx;
      break;
    case PRK_A_MIN:
    case PRK_A_MAX:
      a->index = L->idx;
      break;
    case PRK_A_NANMIN:
    case PRK_A_NANMAX:
      a->index = L->n;
      a->w.u = L->idx;
      break;
    case PRK_A_NANARGMIN:
    case PRK_A_NANARGMAX:
      a->w.u = L->idx;
      a->index = L->n ? L->idx : PRK_NONE;
      break;
    case PRK_A_PTP:
      a->index = L->idx;
      a->w.f = L->b.f;
      a->lo = L->bi;
      a->im_lo = prk_idxd (L->n);
      break;
    default:
      break;
  }
}

PRK_HD void
prk_block_end_c (const PrkParams * P, const PrkLane * L, const PrkMid * mid,
    PrkAcc * out)
{
  double v[PRK_LANES], w[PRK_LANES], u[PRK_LANES];
  PrkAcc a, t;
  unsigned int k;

  switch (PRK_ALGO (P)) {
    case PRK_A_DSUM:
      for (k = 0; k < PRK_LANES; k++) {
        v[k] = L[k].s;
        w[k] = L[k].si;
      }
      out->v.f = prk_lanes_sum (v);
      out->im = prk_lanes_sum (w);
      break;
    case PRK_A_NANDSUM:
      for (k = 0; k < PRK_LANES; k++) {
        v[k] = L[k].p;
        w[k] = L[k].pi;
      }
      out->v.f = prk_lanes_sum (v);
      out->im = prk_lanes_sum (w);
      break;
    case PRK_A_KSUM:
    case PRK_A_NANKSUM:
    case PRK_A_NANMEAN:
      if (PRK_ALGO (P) == PRK_A_NANMEAN && PRK_DTYPE (P) != PRK_COMPLEX128) {
        /* complex64 nanmean: plain float64 lanes */
        for (k = 0; k < PRK_LANES; k++) {
          v[k] = L[k].p;
          w[k] = L[k].pi;
        }
        out->v.f = prk_lanes_sum (v);
        out->im = prk_lanes_sum (w);
      } else {
        /* each part as a float64 sum */
        for (k = 0; k < PRK_LANES; k++) {
          v[k] = L[k].s;
          w[k] = L[k].c;
          u[k] = L[k].p;
        }
        prk_lanes_ksum (v, w, u, out);
        for (k = 0; k < PRK_LANES; k++) {
          v[k] = L[k].si;
          w[k] = L[k].ci;
          u[k] = L[k].pi;
        }
        prk_lanes_ksum (v, w, u, &t);
        out->im = t.v.f;
        out->im_lo = t.lo;
      }
      out->index = 0;
      if (PRK_ALGO (P) == PRK_A_NANMEAN)
        for (k = 0; k < PRK_LANES; k++)
          out->index += L[k].n;
      break;
    case PRK_A_FPROD:
    case PRK_A_NANFPROD:
      out->v.f = 1.0;
      out->im = 0.0;
      for (k = 0; k < PRK_LANES; k++)
        prk_cmul (&out->v.f, &out->im, L[k].s, L[k].si);
      break;
    case PRK_A_VAR:
    case PRK_A_NANVAR:{
      double nn, S1, S1i, S2, q, q2;

      if (mid->count == 0)
        break;
      nn = (double) mid->count;
      for (k = 0; k < PRK_LANES; k++) {
        v[k] = L[k].c;
        w[k] = L[k].ci;
      }
      S1 = prk_lanes_sum (v);
      S1i = prk_lanes_sum (w);
      for (k = 0; k < PRK_LANES; k++)
        v[k] = L[k].p;
      S2 = prk_lanes_sum (v);
      out->index = mid->count;
      prk_two_sum (mid->m, S1 / nn, &out->v.f, &out->w.f);
      if (!prk_isfinite (out->v.f))
        out->w.f = 0;
      prk_two_sum (mid->mi, S1i / nn, &out->im, &out->im_lo);
      if (!prk_isfinite (out->im))
        out->im_lo = 0;
      q = S1 * S1;
      q2 = S1i * S1i;
      out->lo = S2 - (q + q2) / nn;
      if (out->lo < 0)
        out->lo = 0;
      if (S2 == PRK_INF)        /* as prk_moments_block_end () */
        out->lo = PRK_INF;
      break;
    }
    default:
      /* min, max, the args, the nan versions, ptp: lane by lane */
      prk_lane_acc_c (P, &L[0], out);
      for (k = 1; k < PRK_LANES; k++) {
        a = *out;
        prk_lane_acc_c (P, &L[k], &a);
        prk_merge_c (P, out, &a);
      }
      break;
  }
}

/* Lane @l of a block of @n elements at @x, whose first has global index
 * @base: its start values. */
PRK_HD void
prk_lane_init (const PrkParams * P, PrkLane * L, const void *x, prk_u64 n,
    prk_u64 base, unsigned int l)
{
  L->a.u = 0;
  L->b.u = 0;
  L->s = L->c = L->p = 0.0;
  L->ai = L->bi = L->si = L->ci = L->pi = 0.0;
  L->n = 0;
  L->idx = PRK_NONE;
  if (prk_c_own (P)) {
    prk_lane_init_c (P, L, x, n, base, l);
    return;
  }
  switch (PRK_ALGO (P)) {
    case PRK_A_IPROD:
    case PRK_A_ALL:
      L->a.u = 1;
      break;
    case PRK_A_FPROD:
    case PRK_A_NANFPROD:
      L->s = 1.0;
      break;
    case PRK_A_MIN:
      L->a = prk_dtype_max (P);
      break;
    case PRK_A_MAX:
      L->a = prk_dtype_min (P);
      break;
    case PRK_A_ARGMIN:
    case PRK_A_ARGMAX:
      if (l < n) {
        L->a = prk_load_value (P, x, l);
        L->idx = base + l;
      } else if (PRK_ALGO (P) == PRK_A_ARGMIN) {
        L->a = prk_dtype_max (P);
      } else {
        L->a = prk_dtype_min (P);
      }
      break;
    case PRK_A_NANMIN:
    case PRK_A_NANARGMIN:
      L->a.f = PRK_INF;
      break;
    case PRK_A_NANMAX:
    case PRK_A_NANARGMAX:
      L->a.f = -PRK_INF;
      break;
    case PRK_A_PTP:
      L->a = prk_dtype_min (P);
      L->b = prk_dtype_max (P);
      break;
    default:
      break;
  }
}

/* Runs lane @l over its elements l, l + 16, ... of the block, in index
 * order: @pass 0, or 1 (the deviations from the block mean @mid; NULL in
 * pass 0). */
PRK_HD void
prk_lane_run (const PrkParams * P, PrkLane * L, const void *x, prk_u64 n,
    prk_u64 base, unsigned int l, int pass, const PrkMid * mid)
{
  prk_u64 i = l;
  double m = pass ? mid->m : 0.0;

  if (prk_c_own (P)) {
    for (; i < n; i += PRK_LANES) {
      double re, im;

      prk_load_c (P, x, i, &re, &im);
      prk_lane_step_c (P, L, re, im, base + i, pass, mid);
    }
    return;
  }
  if (PRK_ALGO (P) == PRK_A_ARGMIN || PRK_ALGO (P) == PRK_A_ARGMAX)
    i = l + PRK_LANES;
  for (; i < n; i += PRK_LANES) {
    switch (PRK_ALGO (P)) {
      case PRK_A_ISUM:
        L->a.u += prk_to_u64 (P, x, i);
        break;
      case PRK_A_IPROD:
        L->a.u *= prk_to_u64 (P, x, i);
        break;
      case PRK_A_DSUM:
        L->s += prk_load_f (P, x, i);
        break;
      case PRK_A_KSUM:
      case PRK_A_NANKSUM:
      case PRK_A_NANDSUM:
      case PRK_A_NANMEAN:{
        double v = prk_load_f (P, x, i);

        if (PRK_ALGO (P) != PRK_A_KSUM) {
          if (PRK_ALGO (P) == PRK_A_NANMEAN)
            L->n += v == v;
          v = v == v ? v : 0.0;
        }
        L->p += v;
        prk_ksum_step (&L->s, &L->c, v);
        break;
      }
      case PRK_A_FPROD:
        L->s *= prk_load_f (P, x, i);
        break;
      case PRK_A_NANFPROD:{
        double v = prk_load_f (P, x, i);

        L->s *= v == v ? v : 1.0;
        break;
      }
      case PRK_A_MIN:
      case PRK_A_MAX:{
        PrkValue v = prk_load_value (P, x, i);
        int is_min = PRK_ALGO (P) == PRK_A_MIN;

        if (PRK_KIND (P) == PRK_KIND_F)
          L->a.f = is_min ? PRK_MIN_F (L->a.f, v.f) : PRK_MAX_F (L->a.f, v.f);
        else if (PRK_KIND (P) == PRK_KIND_S)
          L->a.i = is_min ? PRK_MIN_I (L->a.i, v.i) : PRK_MAX_I (L->a.i, v.i);
        else
          L->a.u = is_min ? PRK_MIN_I (L->a.u, v.u) : PRK_MAX_I (L->a.u, v.u);
        break;
      }
      case PRK_A_ARGMIN:
      case PRK_A_ARGMAX:{
        PrkValue v = prk_load_value (P, x, i);
        int is_min = PRK_ALGO (P) == PRK_A_ARGMIN, take;

        if (PRK_KIND (P) == PRK_KIND_F)
          take = is_min ? PRK_ARG_TAKE_MIN_F (v.f, L->a.f)
              : PRK_ARG_TAKE_MAX_F (v.f, L->a.f);
        else if (PRK_KIND (P) == PRK_KIND_S)
          take = is_min ? PRK_ARG_TAKE_MIN_I (v.i, L->a.i)
              : PRK_ARG_TAKE_MAX_I (v.i, L->a.i);
        else
          take = is_min ? PRK_ARG_TAKE_MIN_I (v.u, L->a.u)
              : PRK_ARG_TAKE_MAX_I (v.u, L->a.u);
        if (take) {
          L->a = v;
          L->idx = base + i;
        }
        break;
      }
      case PRK_A_ANY:
        L->a.u |= (prk_u64) prk_nonzero (P, x, i);
        break;
      case PRK_A_ALL:
        L->a.u &= (prk_u64) prk_nonzero (P, x, i);
        break;
      case PRK_A_NONZERO:
        L->a.u += (prk_u64) prk_nonzero (P, x, i);
        break;
      case PRK_A_NANMIN:
      case PRK_A_NANMAX:{
        double v = prk_load_f (P, x, i);

        if (PRK_ALGO (P) == PRK_A_NANMIN ? v < L->a.f : v > L->a.f)
          L->a.f = v;
        L->n |= (prk_u64) (v == v);
        break;
      }
      case PRK_A_NANARGMIN:
      case PRK_A_NANARGMAX:{
        double v = prk_load_f (P, x, i);
        int is_min = PRK_ALGO (P) == PRK_A_NANARGMIN;
        int take;

        L->n |= (prk_u64) (v == v);
        if (v != v)
          v = is_min ? PRK_INF : -PRK_INF;
        take = PRK_NANARG_TAKE (is_min ? v < L->a.f : v > L->a.f, L->idx);
        if (take) {
          L->a.f = v;
          L->idx = base + i;
        }
        break;
      }
      case PRK_A_VAR:
      case PRK_A_NANVAR:{
        double v = prk_load_f (P, x, i);
        int ok = PRK_ALGO (P) == PRK_A_VAR || v == v;

        if (pass == 0) {
          prk_moments_sum_step (&L->s, &L->n, v, ok);
          prk_moments_scaled_step (&L->si, v, ok);
        } else
          prk_moments_dev_step (&L->c, &L->p, v, m, ok);
        break;
      }
      case PRK_A_PTP:{
        PrkValue v = prk_load_value (P, x, i);

        if (PRK_KIND (P) == PRK_KIND_F) {
          L->a.f = PRK_MAX_F (L->a.f, v.f);
          L->b.f = PRK_MIN_F (L->b.f, v.f);
        } else if (PRK_KIND (P) == PRK_KIND_S) {
          L->a.i = PRK_MAX_I (L->a.i, v.i);
          L->b.i = PRK_MIN_I (L->b.i, v.i);
        } else {
          L->a.u = PRK_MAX_I (L->a.u, v.u);
          L->b.u = PRK_MIN_I (L->b.u, v.u);
        }
        break;
      }
    }
  }
}

/* Between the passes of the moments: the block's count and mean of its
 * float64 lane sums. */
PRK_HD void
prk_block_mid (const PrkParams * P, const PrkLane * L, PrkMid * mid)
{
  double sum[PRK_LANES];
  unsigned int k;

  mid->count = 0;
  mid->m = 0.0;
  mid->mi = 0.0;
  if (!prk_two_pass (P))
    return;
  for (k = 0; k < PRK_LANES; k++) {
    mid->count += L[k].n;
    sum[k] = L[k].s;
  }
  if (mid->count == 0)
    return;
  mid->m = prk_moments_mean (sum, mid->count);
  if (PRK_KIND (P) != PRK_KIND_C && !prk_isfinite (mid->m)) {
    for (k = 0; k < PRK_LANES; k++)
      sum[k] = L[k].si;
    mid->m = prk_moments_scaled_mean (sum, mid->count);
  }
  if (PRK_KIND (P) == PRK_KIND_C) {
    for (k = 0; k < PRK_LANES; k++)
      sum[k] = L[k].si;
    mid->mi = prk_moments_mean (sum, mid->count);
  }
}

/* A lane's value as an accumulator (min, max, the args and nan
 * versions, ptp): the fields its merge reads; the others are left as
 * they are. */
PRK_HD void
prk_lane_acc (const PrkParams * P, const PrkLane * L, PrkAcc * a)
{
  a->v = L->a;
  if (PRK_ALGO (P) == PRK_A_PTP)
    a->w = L->b;
  else if (PRK_ALGO (P) == PRK_A_NANMIN || PRK_ALGO (P) == PRK_A_NANMAX)
    a->index = L->n;
  else if (PRK_ALGO (P) == PRK_A_NANARGMIN || PRK_ALGO (P) == PRK_A_NANARGMAX) {
    a->w.u = L->idx;
    a->index = L->n ? L->idx : PRK_NONE;
  } else
    a->index = L->idx;
}

/* Combines the 16 lanes of a block into its result, as the CPU's block
 * functions do. */
PRK_HD void
prk_block_end (const PrkParams * P, const PrkLane * L, const PrkMid * mid,
    PrkAcc * out)
{
  double v[PRK_LANES], w[PRK_LANES], u[PRK_LANES];
  PrkAcc a;
  unsigned int k;

  out->v.u = 0;
  out->lo = 0.0;
  out->index = 0;
  out->w.u = 0;
  out->im = 0.0;
  out->im_lo = 0.0;
  a = *out;
  if (prk_c_own (P)) {
    prk_block_end_c (P, L, mid, out);
    return;
  }
  switch (PRK_ALGO (P)) {
    case PRK_A_ISUM:
    case PRK_A_NONZERO:
      for (k = 0; k < PRK_LANES; k++)
        out->v.u += L[k].a.u;
      break;
    case PRK_A_IPROD:
      out->v.u = 1;
      for (k = 0; k < PRK_LANES; k++)
        out->v.u *= L[k].a.u;
      break;
    case PRK_A_ANY:
      for (k = 0; k < PRK_LANES; k++)
        out->v.u |= L[k].a.u;
      break;
    case PRK_A_ALL:
      out->v.u = 1;
      for (k = 0; k < PRK_LANES; k++)
        out->v.u &= L[k].a.u;
      break;
    case PRK_A_DSUM:
      for (k = 0; k < PRK_LANES; k++)
        v[k] = L[k].s;
      out->v.f = prk_lanes_sum (v);
      break;
    case PRK_A_NANDSUM:
      for (k = 0; k < PRK_LANES; k++)
        v[k] = L[k].p;
      out->v.f = prk_lanes_sum (v);
      break;
    case PRK_A_KSUM:
    case PRK_A_NANKSUM:
    case PRK_A_NANMEAN:
      if (PRK_ALGO (P) == PRK_A_NANMEAN && PRK_DTYPE (P) != PRK_FLOAT64) {
        /* float32 nanmean: plain float64 lanes */
        for (k = 0; k < PRK_LANES; k++)
          v[k] = L[k].p;
        out->v.f = prk_lanes_sum (v);
      } else {
        for (k = 0; k < PRK_LANES; k++) {
          v[k] = L[k].s;
          w[k] = L[k].c;
          u[k] = L[k].p;
        }
        prk_lanes_ksum (v, w, u, out);
      }
      if (PRK_ALGO (P) == PRK_A_NANMEAN) {
        out->index = 0;
        for (k = 0; k < PRK_LANES; k++)
          out->index += L[k].n;
      }
      break;
    case PRK_A_FPROD:
    case PRK_A_NANFPROD:
      out->v.f = 1.0;
      for (k = 0; k < PRK_LANES; k++)
        out->v.f *= L[k].s;
      break;
    case PRK_A_MIN:
    case PRK_A_MAX:
    case PRK_A_ARGMIN:
    case PRK_A_ARGMAX:
    case PRK_A_NANARGMIN:
    case PRK_A_NANARGMAX:
    case PRK_A_NANMIN:
    case PRK_A_NANMAX:
    case PRK_A_PTP:
      /* lane by lane, merged in lane order */
      prk_lane_acc (P, &L[0], out);
      for (k = 1; k < PRK_LANES; k++) {
        prk_lane_acc (P, &L[k], &a);
        prk_merge (P, out, &a);
      }
      break;
    case PRK_A_VAR:
    case PRK_A_NANVAR:
      if (mid->count == 0)
        break;
      for (k = 0; k < PRK_LANES; k++) {
        v[k] = L[k].c;
        w[k] = L[k].p;
      }
      prk_moments_block_end (v, w, mid->count, mid->m, out);
      break;
  }
}

/* A whole block on one thread, lane by lane: what the block kernel's 16
 * threads compute. */
PRK_HD void
prk_block (const PrkParams * P, const void *x, prk_u64 n, prk_u64 base,
    PrkAcc * out)
{
  PrkLane L[PRK_LANES];
  PrkMid mid;
  unsigned int l;

  if (PRK_ALGO (P) == PRK_A_CUSTOM) {
    PRK_HOOK (P, block, (P->hook_data, x, n, base, out));
    return;
  }
  for (l = 0; l < PRK_LANES; l++) {
    prk_lane_init (P, &L[l], x, n, base, l);
    prk_lane_run (P, &L[l], x, n, base, l, 0, 0);
  }
  prk_block_mid (P, L, &mid);
  if (prk_two_pass (P) && mid.count > 0)
    for (l = 0; l < PRK_LANES; l++)
      prk_lane_run (P, &L[l], x, n, base, l, 1, &mid);
  prk_block_end (P, L, &mid, out);
}

/* The tree ------------------------------------------------------------- */

PRK_HD void
prk_tree_push (const PrkParams * P, PrkTree * t, const PrkAcc * block)
{
  PrkAcc acc = *block;
  unsigned int level = 0;

  while (t->depth > 0 && t->levels[t->depth - 1] == level) {
    PrkAcc merged = t->stack[t->depth - 1];

    prk_merge (P, &merged, &acc);
    acc = merged;
    level++;
    t->depth--;
  }
  t->stack[t->depth] = acc;
  t->levels[t->depth] = level;
  t->depth++;
}

PRK_HD void
prk_tree_fold (const PrkParams * P, const PrkTree * t,
    const PrkAcc * partial, PrkAcc * out)
{
  int i = (int) t->depth - 1;
  PrkAcc acc;

  if (partial != 0)
    acc = *partial;
  else if (i >= 0)
    acc = t->stack[i--];
  else
    acc = P->identity;
  for (; i >= 0; i--) {
    PrkAcc merged = t->stack[i];

    prk_merge (P, &merged, &acc);
    acc = merged;
  }
  *out = acc;
}

/* Column blocks (axis 0) ----------------------------------------------
 *
 * Each column is cut into blocks of P->col_rows rows, from row 0; a block
 * is accumulated row by row and the block results of a column are merged
 * by the same binary counter as the blocks of the whole stream. The tree's
 * nodes are stored by stack slot, slot i of column c at nodes[i * n_cols +
 * c]: after k blocks the slots hold the nodes of the set bits of k, the
 * highest level in slot 0. */

PRK_HD unsigned int
prk_popcount (prk_u64 k)
{
  unsigned int n = 0;

  for (; k != 0; k &= k - 1)
    n++;
  return n;
}

/* Pushes @cur, the finished block @k of column @c, and starts the next
 * block at the identity. */
PRK_HD void
prk_column_push (const PrkParams * P, PrkAcc * nodes, prk_u64 n_cols,
    prk_u64 c, PrkAcc * cur, prk_u64 k)
{
  unsigned int slot = prk_popcount (k);
  PrkAcc node = *cur;
  prk_u64 carry;

  for (carry = k; carry & 1; carry >>= 1) {
    PrkAcc merged = nodes[(prk_u64) --slot * n_cols + c];

    prk_merge (P, &merged, &node);
    node = merged;
  }
  nodes[(prk_u64) slot * n_cols + c] = node;
  *cur = P->identity;
}

/* Column @c's state after @n_rows rows: the open block @cur (when the
 * rows end inside one), then the nodes, most recent first. */
PRK_HD void
prk_column_fold (const PrkParams * P, const PrkAcc * nodes, prk_u64 n_cols,
    prk_u64 c, const PrkAcc * cur, prk_u64 n_rows, PrkAcc * out)
{
  int i = (int) prk_popcount (n_rows / P->col_rows) - 1;
  PrkAcc acc;

  if (n_rows % P->col_rows != 0)
    acc = *cur;
  else if (i >= 0)
    acc = nodes[(prk_u64) i-- * n_cols + c];
  else
    acc = P->identity;
  for (; i >= 0; i--) {
    PrkAcc merged = nodes[(prk_u64) i * n_cols + c];

    prk_merge (P, &merged, &acc);
    acc = merged;
  }
  *out = acc;
}

/* A complex element into a column's accumulator. */
PRK_HD void
prk_column_step_c (const PrkParams * P, PrkAcc * a, const void *x,
    prk_u64 c, prk_u64 row_index)
{
  double re, im;
  int nan, is_min = prk_is_min_algo (PRK_ALGO (P));
  PrkAcc b = P->identity;

  prk_load_c (P, x, c, &re, &im);
  nan = prk_cnan (re, im);
  switch (PRK_ALGO (P)) {
    case PRK_A_DSUM:
      a->v.f += re;
      a->im += im;
      break;
    case PRK_A_KSUM:
    case PRK_A_NANDSUM:
    case PRK_A_NANKSUM:
    case PRK_A_NANMEAN:
      if (PRK_ALGO (P) != PRK_A_KSUM) {
        a->index += !nan;
        if (nan)
          re = im = 0.0;
      }
      prk_ksum_column_step (&a->v.f, &a->lo, re);
      prk_ksum_column_step (&a->im, &a->im_lo, im);
      break;
    case PRK_A_FPROD:
      prk_cmul (&a->v.f, &a->im, re, im);
      break;
    case PRK_A_NANFPROD:
      prk_cmul (&a->v.f, &a->im, nan ? 1.0 : re, nan ? 0.0 : im);
      break;
    case PRK_A_VAR:
    case PRK_A_NANVAR:{
      double d, di, e, e2, lo = a->lo;
      int finite = prk_isfinite (re) && prk_isfinite (im);

      if (PRK_ALGO (P) == PRK_A_NANVAR && nan)
        break;
      a->index++;
      if (lo == PRK_INF) {      /* as prk_moments_column_step () */
        if (!finite)
          a->lo = PRK_NAN;
        break;
      }
      d = (re - a->v.f) - a->w.f;
      di = (im - a->im) - a->im_lo;
      prk_two_sum (a->v.f, a->w.f + d / (double) a->index, &a->v.f,
          &a->w.f);
      if (!prk_isfinite (a->v.f))
        a->w.f = 0;
      prk_two_sum (a->im, a->im_lo + di / (double) a->index, &a->im,
          &a->im_lo);
      if (!prk_isfinite (a->im))
        a->im_lo = 0;
      e = d * ((re - a->v.f) - a->w.f);
      e2 = di * ((im - a->im) - a->im_lo);
      a->lo += e + e2;
      if (finite && prk_isfinite (lo) && !prk_isfinite (a->lo))
        a->lo = PRK_INF;
      break;
    }
    default:
      /* min, max, the args, the nan versions, ptp: the element as an
       * accumulator, merged */
      b.v.f = re;
      b.im = im;
      switch (PRK_ALGO (P)) {
        case PRK_A_MIN:
        case PRK_A_MAX:
        case PRK_A_ARGMIN:
        case PRK_A_ARGMAX:
          b.index = row_index;
          break;
        case PRK_A_NANMIN:
        case PRK_A_NANMAX:
          b.index = nan ? 1 : 2;
          b.w.u = row_index;
          break;
        case PRK_A_NANARGMIN:
        case PRK_A_NANARGMAX:
          if (nan) {
            b.v.f = is_min ? PRK_INF : -PRK_INF;
            b.im = 0.0;
          }
          b.w.u = row_index;
          b.index = nan ? PRK_NONE : row_index;
          break;
        case PRK_A_PTP:
          b.index = row_index;
          b.w.f = re;
          b.lo = im;
          b.im_lo = prk_idxd (row_index);
          break;
        default:
          break;
      }
      prk_merge_c (P, a, &b);
      break;
  }
}

/* Columns (axis 0): folds element @x[c] of row @row_index into @a. */
PRK_HD void
prk_column_step (const PrkParams * P, PrkAcc * a, const void *x, prk_u64 c,
    prk_u64 row_index)
{
  PrkAcc b;

  if (prk_c_own (P)) {
    prk_column_step_c (P, a, x, c, row_index);
    return;
  }
  switch (PRK_ALGO (P)) {
    case PRK_A_CUSTOM:
      PRK_HOOK (P, column, (P->hook_data, a, x, c));
      break;
    case PRK_A_ISUM:
      a->v.u += prk_to_u64 (P, x, c);
      break;
    case PRK_A_IPROD:
      a->v.u *= prk_to_u64 (P, x, c);
      break;
    case PRK_A_NONZERO:
      a->v.u += (prk_u64) prk_nonzero (P, x, c);
      break;
    case PRK_A_ANY:
      a->v.u |= (prk_u64) prk_nonzero (P, x, c);
      break;
    case PRK_A_ALL:
      a->v.u &= (prk_u64) prk_nonzero (P, x, c);
      break;
    case PRK_A_FPROD:
      a->v.f *= prk_load_f (P, x, c);
      break;
    case PRK_A_NANFPROD:{
      double v = prk_load_f (P, x, c);

      a->v.f *= v == v ? v : 1.0;
      break;
    }
    case PRK_A_DSUM:
      /* float32 and small integers: plain float64 additions within a
       * block, as the CPU's column_dsum_ */
      a->v.f += prk_load_f (P, x, c);
      break;
    case PRK_A_KSUM:
    case PRK_A_NANDSUM:
    case PRK_A_NANKSUM:
    case PRK_A_NANMEAN:{
      double v = prk_load_f (P, x, c);
      int nan_op = PRK_ALGO (P) != PRK_A_KSUM;

      if (nan_op) {
        a->index += v == v;
        v = v == v ? v : 0.0;
      }
      prk_ksum_column_step (&a->v.f, &a->lo, v);
      break;
    }
    case PRK_A_MIN:
    case PRK_A_MAX:
    case PRK_A_ARGMIN:
    case PRK_A_ARGMAX:
      b.v = prk_load_value (P, x, c);
      b.index = row_index;
      prk_merge (P, a, &b);
      break;
    case PRK_A_PTP:
      b.v = prk_load_value (P, x, c);
      b.w = b.v;
      prk_merge (P, a, &b);
      break;
    case PRK_A_NANMIN:
    case PRK_A_NANMAX:
    case PRK_A_NANARGMIN:
    case PRK_A_NANARGMAX:{
      double v = prk_load_f (P, x, c);
      int ok = v == v;

      b.v.f = ok ? v : P->identity.v.f;
      b.index = ok ? (P->nan_arg ? row_index : 1) : P->identity.index;
      b.w.u = row_index;        /* nanarg: a NaN is an argmin too */
      prk_merge (P, a, &b);
      break;
    }
    case PRK_A_VAR:
    case PRK_A_NANVAR:{
      double v = prk_load_f (P, x, c);

      if (PRK_ALGO (P) == PRK_A_VAR || v == v)
        prk_moments_column_step (a, v);
      break;
    }
  }
}

/* Finals ------------------------------------------------------------------ */

PRK_HD double
prk_variance (const PrkParams * P, const PrkAcc * a)
{
  double dof = (double) a->index - P->ddof;

  if (P->nan_var)
    return dof > 0 ? a->lo / dof : PRK_NAN;
  return a->lo / (dof > 0.0 ? dof : 0.0);
}

/* Stores @d in the float output dtype. */
PRK_HD void
prk_store_float (const PrkParams * P, double d, void *out)
{
  if (P->out_dtype == PRK_FLOAT32)
    *(float *) out = (float) d;
  else if (P->out_dtype == PRK_FLOAT16)
    *(unsigned short *) out = prk_double_to_half (d);
  else
    *(double *) out = d;
}

/* Stores re + im i in the complex output dtype. */
PRK_HD void
prk_store_complex (const PrkParams * P, double re, double im, void *out)
{
  if (P->out_dtype == PRK_COMPLEX64) {
    ((float *) out)[0] = (float) re;
    ((float *) out)[1] = (float) im;
  } else {
    ((double *) out)[0] = re;
    ((double *) out)[1] = im;
  }
}

/* The complex finals; returns whether it was one. */
PRK_HD int
prk_final_c (const PrkParams * P, const PrkAcc * a, prk_u64 count, void *out)
{
  switch (PRK_FINAL (P)) {
    case PRK_F_SUM:
      prk_store_complex (P, a->v.f + a->lo, a->im + a->im_lo, out);
      return 1;
    case PRK_F_MEAN:
    case PRK_F_NANMEAN:{
      /* numpy divides the complex sum by the count as a complex number,
       * (re + im*0) / n and (im - re*0) / n (Smith's division), so that a
       * NaN or infinite part makes the other part NaN too */
      double n = (double) (PRK_FINAL (P) == PRK_F_MEAN ? count : a->index);
      double re = a->v.f + a->lo, im = a->im + a->im_lo;
      double r0 = im * 0.0, i0 = re * 0.0;

      prk_store_complex (P, (re + r0) / n, (im - i0) / n, out);
      return 1;
    }
    case PRK_F_PROD:
    case PRK_F_VALUE:
      prk_store_complex (P, a->v.f, a->im, out);
      return 1;
    case PRK_F_PTP:
      /* max - min in the dtype, as numpy */
      if (PRK_DTYPE (P) == PRK_COMPLEX64) {
        float r = (float) a->v.f - (float) a->w.f;
        float i = (float) a->im - (float) a->lo;

        prk_store_complex (P, r, i, out);
      } else {
        prk_store_complex (P, a->v.f - a->w.f, a->im - a->lo, out);
      }
      return 1;
    default:
      return 0;
  }
}

/* Stores the kind's value @v in the input dtype (min, max). */
PRK_HD void
prk_store_value (const PrkParams * P, PrkValue v, void *out)
{
  switch (PRK_DTYPE (P)) {
    case PRK_BOOL:
    case PRK_UINT8:
      *(unsigned char *) out = (unsigned char) v.u;
      break;
    case PRK_INT8:
      *(signed char *) out = (signed char) v.i;
      break;
    case PRK_INT16:
      *(short *) out = (short) v.i;
      break;
    case PRK_UINT16:
      *(unsigned short *) out = (unsigned short) v.u;
      break;
    case PRK_INT32:
      *(int *) out = (int) v.i;
      break;
    case PRK_UINT32:
      *(unsigned int *) out = (unsigned int) v.u;
      break;
    case PRK_INT64:
      *(prk_i64 *) out = v.i;
      break;
    case PRK_UINT64:
      *(prk_u64 *) out = v.u;
      break;
    case PRK_FLOAT32:
      *(float *) out = (float) v.f;
      break;
    case PRK_FLOAT16:
      *(unsigned short *) out = prk_double_to_half (v.f);
      break;
    default:
      *(double *) out = v.f;
      break;
  }
}

/* Writes the result of @a, over @count elements, in the output dtype;
 * returns 1 where nanargmin/nanargmax saw only NaNs (an error). */
PRK_HD int
prk_final (const PrkParams * P, const PrkAcc * a, prk_u64 count, void *out)
{
  if (PRK_KIND (P) == PRK_KIND_C && prk_final_c (P, a, count, out))
    return 0;
  switch (PRK_FINAL (P)) {
    case PRK_F_RAW:
      prk_copy_bytes (out, a->v.raw, P->out_size);
      break;
    case PRK_F_U64:
      *(prk_u64 *) out = a->v.u;
      break;
    case PRK_F_SUM:
      prk_store_float (P, a->v.f + a->lo, out);
      break;
    case PRK_F_MEAN:
      prk_store_float (P, (a->v.f + a->lo) / (double) count, out);
      break;
    case PRK_F_PROD:
      prk_store_float (P, a->v.f, out);
      break;
    case PRK_F_NANMEAN:
      prk_store_float (P, (a->v.f + a->lo) / (double) a->index, out);
      break;
    case PRK_F_NANEXTREME:
      if (P->out_dtype == PRK_FLOAT32)
        *(float *) out = a->index ? (float) a->v.f : (float) PRK_NAN;
      else if (P->out_dtype == PRK_FLOAT16)
        *(unsigned short *) out = a->index ? prk_double_to_half (a->v.f)
            : (unsigned short) 0x7e00u;
      else
        *(double *) out = a->index ? a->v.f : PRK_NAN;
      break;
    case PRK_F_VAR:
      prk_store_float (P, prk_variance (P, a), out);
      break;
    case PRK_F_STD:
      prk_store_float (P, sqrt (prk_variance (P, a)), out);
      break;
    case PRK_F_INDEX:
      *(prk_i64 *) out = (prk_i64) a->index;
      break;
    case PRK_F_BOOL:
      *(unsigned char *) out = a->v.u != 0;
      break;
    case PRK_F_VALUE:
      prk_store_value (P, a->v, out);
      break;
    case PRK_F_PTP:{
      PrkValue d;

      if (PRK_KIND (P) == PRK_KIND_F) {
        if (PRK_DTYPE (P) == PRK_FLOAT32) {
          float r = (float) a->v.f - (float) a->w.f;

          *(float *) out = r;
        } else if (PRK_DTYPE (P) == PRK_FLOAT16) {
          /* numpy subtracts float16 in float and rounds to float16 */
          float r = (float) a->v.f - (float) a->w.f;

          *(unsigned short *) out = prk_double_to_half (r);
        } else {
          *(double *) out = a->v.f - a->w.f;
        }
        break;
      }
      if (PRK_KIND (P) == PRK_KIND_S)
        d.u = (prk_u64) a->v.i - (prk_u64) a->w.i;
      else
        d.u = a->v.u - a->w.u;
      /* the difference's low bits, in the dtype */
      switch (PRK_DTYPE (P)) {
        case PRK_INT8:
        case PRK_UINT8:
          *(unsigned char *) out = (unsigned char) d.u;
          break;
        case PRK_INT16:
        case PRK_UINT16:
          *(unsigned short *) out = (unsigned short) d.u;
          break;
        case PRK_INT32:
        case PRK_UINT32:
          *(unsigned int *) out = (unsigned int) d.u;
          break;
        default:
          *(prk_u64 *) out = d.u;
          break;
      }
      break;
    }
  }
  return P->nan_arg && a->index == PRK_NONE;
}

/* One row of @n elements (axis -1): the block tree of a whole stream over
 * the row, or, for rows of one element, the column step from the
 * identity, as the CPU does. Returns prk_final's flag. */
PRK_HD int
prk_reduce_row (const PrkParams * P, const void *x, prk_u64 n, void *out)
{
  PrkTree t;
  PrkAcc block, acc;
  prk_u64 k;
  int es = P->in_size;

  if (n == 1 && PRK_ALGO (P) != PRK_A_CUSTOM) {
    acc = P->identity;
    prk_column_step (P, &acc, x, 0, 0);
    return prk_final (P, &acc, 1, out);
  }
  t.depth = 0;
  for (k = 0; k + PRK_BLOCK <= n; k += PRK_BLOCK) {
    prk_block (P, (const char *) x + k * es, PRK_BLOCK, k, &block);
    prk_tree_push (P, &t, &block);
  }
  if (k < n) {
    prk_block (P, (const char *) x + k * es, n - k, k, &block);
    prk_tree_fold (P, &t, &block, &acc);
  } else {
    prk_tree_fold (P, &t, 0, &acc);
  }
  return prk_final (P, &acc, n, out);
}

/* The single-thread steps of a chunk of the whole-stream reduction ------- */

/* Completes the staged block with @take elements of @x; when it is full
 * (@staged + @take == PRK_BLOCK), reduces it (global index @base) into the
 * tree. */
PRK_HD void
prk_step_stage (const PrkParams * P, PrkTree * t, void *staging,
    const void *x, prk_u64 staged, prk_u64 take, prk_u64 base)
{
  PrkAcc block;

  prk_copy_bytes ((char *) staging + staged * P->in_size, x,
      take * P->in_size);
  if (staged + take == PRK_BLOCK) {
    prk_block (P, staging, PRK_BLOCK, base, &block);
    prk_tree_push (P, t, &block);
  }
}

/* Pushes @n_blocks block results in order, then stages the chunk's tail of
 * @n_tail elements. */
PRK_HD void
prk_step_push (const PrkParams * P, PrkTree * t, const PrkAcc * results,
    prk_u64 n_blocks, void *staging, const void *tail, prk_u64 n_tail)
{
  prk_u64 k;

  for (k = 0; k < n_blocks; k++)
    prk_tree_push (P, t, &results[k]);
  prk_copy_bytes (staging, tail, n_tail * P->in_size);
}

/* The end of the stream: the partial block of @staged elements (global
 * index @base), the pending results folded, the final value. */
PRK_HD int
prk_step_finish (const PrkParams * P, const PrkTree * t,
    const void *staging, prk_u64 staged, prk_u64 base, prk_u64 count,
    void *out)
{
  PrkAcc block, acc;

  if (staged > 0) {
    prk_block (P, staging, staged, base, &block);
    prk_tree_fold (P, t, &block, &acc);
  } else {
    prk_tree_fold (P, t, 0, &acc);
  }
  return prk_final (P, &acc, count, out);
}

#ifndef __CUDACC_RTC__
/* The kernels on one host thread, in the kernels' order ---------------- */

/* The block kernel: results[k] of the k-th whole block at @x. */
PRK_HD void
prk_host_blocks (const PrkParams * P, const void *x, prk_u64 n_blocks,
    prk_u64 base, PrkAcc * results)
{
  prk_u64 k;

  for (k = 0; k < n_blocks; k++)
    prk_block (P, (const char *) x + k * PRK_BLOCK * P->in_size, PRK_BLOCK,
        base + k * PRK_BLOCK, &results[k]);
}

/* The column kernel: @n_rows rows of @n_cols elements from row
 * @first_row into the open blocks @cols and the trees @nodes. */
PRK_HD void
prk_host_columns (const PrkParams * P, PrkAcc * cols, PrkAcc * nodes,
    prk_u64 n_cols, const void *x, prk_u64 n_rows, prk_u64 first_row)
{
  prk_u64 c, r;

  for (c = 0; c < n_cols; c++)
    for (r = 0; r < n_rows; r++) {
      prk_u64 g = first_row + r;

      prk_column_step (P, &cols[c], (const char *) x + r * n_cols *
          P->in_size, c, g);
      if ((g + 1) % P->col_rows == 0)
        prk_column_push (P, nodes, n_cols, c, &cols[c], g / P->col_rows);
    }
}

#endif /* !__CUDACC_RTC__ */

#endif /* PLAN_REDUCER_STEPS_RUN_H */
