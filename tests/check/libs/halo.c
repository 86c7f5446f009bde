/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>

/* The element at each place is its flat index, so that a wrong cell can
 * never hold the right value by chance. The constant is -7. */
#define CVAL -7

static void
check_index_maps (PlanBoundary b, gint64 n, const gint64 * want, gint start)
{
  gint i;

  for (i = 0; i < 3 * (gint) n + 6; i++) {
    fail_unless_equals_int (plan_boundary_map_index (b, start + i, n), want[i]);
  }
}

GST_START_TEST (test_boundary_index_maps_like_scipy)
{
  /* n = 4 (a b c d), indices -5 .. 12 */
  static const gint64 reflect[] =
      { 3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3 };
  static const gint64 mirror[] =
      { 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0 };
  static const gint64 wrap[] =
      { 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0 };
  static const gint64 nearest[] =
      { 0, 0, 0, 0, 0, 0, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3 };
  static const gint64 constant[] =
      { -1, -1, -1, -1, -1, 0, 1, 2, 3, -1, -1, -1, -1, -1, -1, -1, -1, -1 };

  check_index_maps (PLAN_BOUNDARY_REFLECT, 4, reflect, -5);
  check_index_maps (PLAN_BOUNDARY_MIRROR, 4, mirror, -5);
  check_index_maps (PLAN_BOUNDARY_WRAP, 4, wrap, -5);
  check_index_maps (PLAN_BOUNDARY_NEAREST, 4, nearest, -5);
  check_index_maps (PLAN_BOUNDARY_CONSTANT, 4, constant, -5);
  fail_unless_equals_int (plan_boundary_map_index (PLAN_BOUNDARY_MIRROR, -3,
          1), 0);
  fail_unless_equals_int (plan_boundary_map_index (PLAN_BOUNDARY_REFLECT, -3,
          1), 0);
}

GST_END_TEST;

GST_START_TEST (test_boundary_pad_line_window_larger_than_line)
{
  gint32 src[2] = { 10, 20 }, dst[2 + 5 + 4], fill = CVAL;
  static const gint32 want_reflect[] = { 10, 10, 20, 20, 10, 10, 20, 20, 10,
    10, 20
  };
  static const gint32 want_constant[] = { CVAL, CVAL, CVAL, CVAL, CVAL, 10,
    20, CVAL, CVAL, CVAL, CVAL
  };
  gint i;

  plan_boundary_pad_line (PLAN_BOUNDARY_REFLECT, 4, src, 2, 5, 4, NULL, dst);
  for (i = 0; i < 11; i++)
    fail_unless_equals_int (dst[i], want_reflect[i]);
  plan_boundary_pad_line (PLAN_BOUNDARY_CONSTANT, 4, src, 2, 5, 4, &fill, dst);
  for (i = 0; i < 11; i++)
    fail_unless_equals_int (dst[i], want_constant[i]);
}

GST_END_TEST;

GST_START_TEST (test_boundary_fill_from_double)
{
  guint8 u8;
  gint16 i16;
  guint16 h;
  gfloat f;

  fail_unless (plan_boundary_fill_from_double (PLAN_DTYPE_UINT8, 7, &u8));
  fail_unless_equals_int (u8, 7);
  fail_if (plan_boundary_fill_from_double (PLAN_DTYPE_UINT8, -3, &u8));
  fail_unless_equals_int (u8, 0);
  fail_if (plan_boundary_fill_from_double (PLAN_DTYPE_INT16, 1e9, &i16));
  fail_unless_equals_int (i16, G_MAXINT16);
  fail_if (plan_boundary_fill_from_double (PLAN_DTYPE_INT16, -2.5, &i16));
  fail_unless_equals_int (i16, -2);
  fail_unless (plan_boundary_fill_from_double (PLAN_DTYPE_FLOAT32, 0.5, &f));
  fail_unless (f == 0.5f);
  /* float16: rounded to nearest; exact only when float16 holds it */
  fail_unless (plan_boundary_fill_from_double (PLAN_DTYPE_FLOAT16, -1.5,
          &h));
  fail_unless_equals_int (h, 0xbe00);
  fail_if (plan_boundary_fill_from_double (PLAN_DTYPE_FLOAT16, 0.1, &h));
  fail_unless_equals_int (h, 0x2e66);
  fail_if (plan_boundary_fill_from_double (PLAN_DTYPE_FLOAT16, 1e5, &h));
  fail_unless_equals_int (h, 0x7c00);
  fail_unless (plan_boundary_fill_from_double (PLAN_DTYPE_FLOAT16, NAN, &h));
  fail_unless ((h & 0x7fff) > 0x7c00);
}

GST_END_TEST;

/* An int32 array viewed as 3-D (rows, y, x) whatever its axes, and the
 * halo along each of those. */
typedef struct
{
  PlanBoundary b;
  guint ndim;
  gint64 sh[3];
  guint hh[3];
  gint64 out_shape[3];
  gboolean valid;
  gsize chunk;
  gboolean unpadded;            /* rows kept unpadded, edges apart */
  PlanHalo *halo;
} Stream;

/* The cell at offset (d0, d1, d2) from output (o, y, x) in @block. */
static gint32
block_cell (const Stream * st, const PlanHaloBlock * block, gint64 o,
    gint64 y, gint64 x, gint d0, gint d1, gint d2)
{
  gint delta[3];
  gssize at = o * block->strides[0];

  /* The block's axes are the array's. */
  delta[0] = d0;
  delta[st->ndim - 1] = st->ndim >= 2 ? d2 : d0;
  if (st->ndim == 3)
    delta[1] = d1;
  if (st->ndim >= 2)
    at += x * block->strides[st->ndim - 1];
  if (st->ndim == 3)
    at += y * block->strides[1];
  return ((const gint32 *) block->origin)[at +
      plan_halo_block_get_offset (block, delta)];
}

/* Checks every cell of the windows of the outputs [@x_begin, @x_end) of
 * each row of @block, whose first output is @first and whose output x is
 * output @col0 + x of the array, against the boundary rule applied to the
 * whole array. */
static void
check_block_cols (const Stream * st, const PlanHaloBlock * block,
    guint64 first, gint64 x_begin, gint64 x_end, gint64 col0)
{
  gint64 o, y, x, d0, d1, d2, v = st->valid;
  const gint64 *sh = st->sh;
  const guint *hh = st->hh;

  for (o = 0; o < (gint64) block->n_rows; o++)
    for (y = 0; y < st->out_shape[1]; y++)
      for (x = x_begin; x < x_end; x++)
        for (d0 = -(gint) hh[0]; d0 <= (gint) hh[0]; d0++)
          for (d1 = -(gint) hh[1]; d1 <= (gint) hh[1]; d1++)
            for (d2 = -(gint) hh[2]; d2 <= (gint) hh[2]; d2++) {
              gint64 i0 = plan_boundary_map_index (st->b,
                  first + o + d0 + v * hh[0], sh[0]);
              gint64 i1 = plan_boundary_map_index (st->b, y + d1 + v * hh[1],
                  sh[1]);
              gint64 i2 = plan_boundary_map_index (st->b,
                  col0 + x + d2 + v * hh[2], sh[2]);
              gint32 want = (i0 < 0 || i1 < 0 || i2 < 0) ? CVAL :
                  (i0 * sh[1] + i1) * sh[2] + i2;
              gint32 got = block_cell (st, block, o, y, x, d0, d1, d2);

              fail_unless (got == want, "mode %s chunk %" G_GSIZE_FORMAT
                  ": output (%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%"
                  G_GINT64_FORMAT ") cell (%" G_GINT64_FORMAT ",%"
                  G_GINT64_FORMAT ",%" G_GINT64_FORMAT ") is %d, not %d",
                  plan_boundary_to_string (st->b), st->chunk, first + o, y,
                  col0 + x, d0, d1, d2, got, want);
            }
}

static void
check_block (const Stream * st, const PlanHaloBlock * block, guint64 first)
{
  PlanHaloBlock edges[2];
  gint64 h = st->hh[2], w = st->out_shape[2];

  if (!st->unpadded) {
    check_block_cols (st, block, first, 0, w, 0);
    return;
  }
  /* Unpadded rows: the block has whole rows, in place or not, and the
   * edges have every cell of the first and last h outputs of each. */
  fail_unless (block->contiguous);
  if (st->ndim == 2)
    fail_unless_equals_int (block->shape[1], st->sh[2]);
  check_block_cols (st, block, first, h, w - h, 0);
  if (st->ndim == 1 || h == 0) {
    fail_unless_equals_int (plan_halo_get_edges (st->halo, block, edges), 0);
    return;
  }
  fail_unless_equals_int (plan_halo_get_edges (st->halo, block, edges), 2);
  fail_unless_equals_int (edges[0].n_rows, block->n_rows);
  fail_unless_equals_int (edges[1].shape[1], h);
  check_block_cols (st, &edges[0], first, 0, h, 0);
  check_block_cols (st, &edges[1], first, 0, h, w - h);
}

static void
stream_init (Stream * st, PlanBoundary b, guint ndim, const gint64 * shape,
    const guint * h, gsize chunk)
{
  guint k;

  memset (st, 0, sizeof (*st));
  st->b = b;
  st->ndim = ndim;
  st->valid = b == PLAN_BOUNDARY_VALID;
  st->chunk = chunk;
  st->sh[0] = shape[0];
  st->hh[0] = h[0];
  st->sh[1] = st->sh[2] = 1;
  if (ndim >= 2) {
    st->sh[2] = shape[ndim - 1];
    st->hh[2] = h[ndim - 1];
  }
  if (ndim == 3) {
    st->sh[1] = shape[1];
    st->hh[1] = h[1];
  }
  for (k = 0; k < 3; k++)
    st->out_shape[k] = st->sh[k] - (st->valid ? 2 * (gint64) st->hh[k] : 0);
}

/* Chunk sizes: @chunk rows each time, or with @chunk 0 a mix of sizes, so
 * that long chunks read in place follow short ones copied and back. */
static gsize
chunk_size (gsize chunk, guint i)
{
  static const gsize mix[] = { 1, 9, 2, 1, 13, 3, 5, 1, 1, 8 };

  return chunk ? chunk : mix[i % G_N_ELEMENTS (mix)];
}

/* Streams an int32 array of @shape, whose elements are their flat index,
 * through a PlanHalo in chunks of @chunk rows (see chunk_size()) and
 * checks every block. */
static void
check_stream_full (PlanBoundary b, guint ndim, const gint64 * shape,
    const guint * h, gsize chunk, gboolean unpadded)
{
  PlanArrayInfo info;
  PlanHalo *halo;
  PlanHaloBlock blocks[PLAN_HALO_MAX_BLOCKS];
  Stream st;
  guint n_blocks, i;
  gint32 *data;
  gsize row = 1, total, pushed = 0;
  guint64 next_out = 0;
  gboolean done = FALSE;
  GError *err = NULL;
  guint n_pushes = 0;

  stream_init (&st, b, ndim, shape, h, chunk);
  for (i = 1; i < ndim; i++)
    row *= shape[i];
  total = shape[0] * row;
  data = g_new (gint32, MAX (total, 1));
  for (i = 0; i < total; i++)
    data[i] = i;
  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_INT32, ndim, shape,
          NULL));
  halo = plan_halo_new (&info, h, b, CVAL, &err);
  fail_unless (halo != NULL, "%s", err ? err->message : "");
  st.halo = halo;
  if (unpadded) {
    /* Unpadded rows are for up to two axes, in the padding modes or
     * without a halo along the rows, and rows longer than two halos. */
    gboolean can = ndim == 1 || (ndim == 2
        && (b != PLAN_BOUNDARY_VALID || h[1] == 0) && shape[1] > 2 * h[1]);

    st.unpadded = plan_halo_set_pad_inner (halo, FALSE);
    fail_unless_equals_int (st.unpadded, can);
  }

  while (!done) {
    gsize n = chunk_size (chunk, n_pushes++);

    n = MIN (n, shape[0] - pushed);

    if (n > 0) {
      if (plan_halo_needs_end_rows (halo, n, NULL)) {
        gsize ne = MIN (h[0], (gsize) shape[0]);
        fail_unless (plan_halo_set_end_rows (halo, shape[0],
                data + (shape[0] - ne) * row, ne, NULL));
      }
      fail_unless (plan_halo_push (halo, data + pushed * row, n, blocks,
              &n_blocks, &err), "%s", err ? err->message : "");
      pushed += n;
    } else {
      fail_unless (plan_halo_finish (halo, blocks, &n_blocks, &err), "%s",
          err ? err->message : "");
      fail_unless (n_blocks <= 1);
      done = TRUE;
    }
    fail_unless (n_blocks <= PLAN_HALO_MAX_BLOCKS);
    for (i = 0; i < n_blocks; i++) {
      fail_unless (blocks[i].n_rows > 0);
      fail_unless_equals_uint64 (blocks[i].first_row, next_out);
      check_block (&st, &blocks[i], next_out);
      next_out += blocks[i].n_rows;
    }
  }
  fail_unless_equals_uint64 (next_out, st.out_shape[0]);
  plan_halo_free (halo);
  g_free (data);
}

static void
check_stream (PlanBoundary b, guint ndim, const gint64 * shape,
    const guint * h, gsize chunk)
{
  check_stream_full (b, ndim, shape, h, chunk, FALSE);
}

static const PlanBoundary all_modes[] = {
  PLAN_BOUNDARY_CONSTANT, PLAN_BOUNDARY_NEAREST, PLAN_BOUNDARY_REFLECT,
  PLAN_BOUNDARY_MIRROR, PLAN_BOUNDARY_WRAP, PLAN_BOUNDARY_VALID
};

static const gsize chunks[] = { 1, 2, 3, 7, 1000, 0 };

/* Whether a 2-D stream of @shape has room for `valid` windows of halo @h
 * (any other mode always has). */
static gboolean
valid_fits (PlanBoundary b, const gint64 * shape, const guint * h)
{
  return b != PLAN_BOUNDARY_VALID
      || (shape[0] >= 2 * h[0] + 1 && shape[1] >= 2 * h[1] + 1);
}

GST_START_TEST (test_halo_1d_every_mode_and_chunk)
{
  static const gint64 lengths[] = { 1, 2, 3, 5, 11, 23 };
  guint m, c, l, hw;

  for (m = 0; m < G_N_ELEMENTS (all_modes); m++)
    for (c = 0; c < G_N_ELEMENTS (chunks); c++)
      for (l = 0; l < G_N_ELEMENTS (lengths); l++)
        for (hw = 0; hw <= 4; hw++) {
          guint h[1] = { hw };
          if (all_modes[m] == PLAN_BOUNDARY_VALID && lengths[l] < 2 * hw + 1)
            continue;
          check_stream (all_modes[m], 1, &lengths[l], h, chunks[c]);
        }
}

GST_END_TEST;

GST_START_TEST (test_halo_2d_every_mode_and_chunk)
{
  static const gint64 shapes[][2] = { {1, 1}, {2, 3}, {5, 4}, {9, 7},
  {13, 2}
  };
  static const guint halos[][2] = { {1, 1}, {0, 2}, {2, 0}, {4, 4}, {1, 3} };
  guint m, c, s, hi;

  for (m = 0; m < G_N_ELEMENTS (all_modes); m++)
    for (c = 0; c < G_N_ELEMENTS (chunks); c++)
      for (s = 0; s < G_N_ELEMENTS (shapes); s++)
        for (hi = 0; hi < G_N_ELEMENTS (halos); hi++) {
          if (!valid_fits (all_modes[m], shapes[s], halos[hi]))
            continue;
          check_stream (all_modes[m], 2, shapes[s], halos[hi], chunks[c]);
        }
}

GST_END_TEST;

/* The same streams with rows kept unpadded: the blocks' whole rows where
 * the windows fit, and the edge blocks at both ends of each row. */
GST_START_TEST (test_halo_unpadded_rows_every_mode_and_chunk)
{
  static const gint64 shapes[][2] = { {1, 1}, {2, 3}, {5, 4}, {9, 7},
  {13, 2}, {6, 11}, {17, 9}
  };
  static const guint halos[][2] = { {1, 1}, {0, 2}, {2, 0}, {4, 4}, {1, 3},
  {3, 1}
  };
  static const gint64 lengths[] = { 1, 2, 5, 23 };
  guint m, c, s, hi;

  for (m = 0; m < G_N_ELEMENTS (all_modes); m++)
    for (c = 0; c < G_N_ELEMENTS (chunks); c++) {
      for (s = 0; s < G_N_ELEMENTS (shapes); s++)
        for (hi = 0; hi < G_N_ELEMENTS (halos); hi++) {
          if (!valid_fits (all_modes[m], shapes[s], halos[hi]))
            continue;
          check_stream_full (all_modes[m], 2, shapes[s], halos[hi],
              chunks[c], TRUE);
        }
      for (s = 0; s < G_N_ELEMENTS (lengths); s++) {
        guint h[1] = { 2 };
        if (all_modes[m] == PLAN_BOUNDARY_VALID && lengths[s] < 5)
          continue;
        check_stream_full (all_modes[m], 1, &lengths[s], h, chunks[c], TRUE);
      }
    }
}

GST_END_TEST;

/* Keeping rows unpadded is refused where the edges cannot be made apart:
 * more than two axes, and rows not longer than two halos; padding back
 * is allowed. */
GST_START_TEST (test_halo_unpadded_rows_refused)
{
  PlanArrayInfo info;
  gint64 shape3[3] = { 4, 5, 6 }, shape2[2] = { -1, 4 };
  guint h3[3] = { 0, 1, 1 }, h2[2] = { 1, 2 };
  PlanHalo *halo;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_INT32, 3, shape3, NULL));
  halo = plan_halo_new (&info, h3, PLAN_BOUNDARY_NEAREST, 0, NULL);
  fail_if (plan_halo_set_pad_inner (halo, FALSE));
  plan_halo_free (halo);

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_INT32, 2, shape2, NULL));
  halo = plan_halo_new (&info, h2, PLAN_BOUNDARY_WRAP, 0, NULL);
  fail_if (plan_halo_set_pad_inner (halo, FALSE));
  plan_halo_free (halo);

  shape2[1] = 5;
  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_INT32, 2, shape2, NULL));
  halo = plan_halo_new (&info, h2, PLAN_BOUNDARY_WRAP, 0, NULL);
  fail_unless (plan_halo_set_pad_inner (halo, FALSE));
  fail_if (plan_halo_set_pad_inner (halo, TRUE));
  plan_halo_free (halo);
}

GST_END_TEST;

/* An info filled in by hand with an inner axis of no elements is refused
 * with an error that names the axis, as plan_array_info_set() refuses it:
 * the boundary rules would divide by its length. */
GST_START_TEST (test_halo_refuses_an_empty_inner_axis)
{
  PlanArrayInfo info;
  guint h[2] = { 1, 1 };
  GError *err = NULL;

  plan_array_info_init (&info);
  info.dtype = PLAN_DTYPE_FLOAT64;
  info.ndim = 2;
  info.shape[0] = 4;
  info.shape[1] = 0;
  fail_unless (plan_halo_new (&info, h, PLAN_BOUNDARY_WRAP, 0, &err) == NULL);
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT));
  fail_unless (strstr (err->message, "axis 1 has 0 elements") != NULL, "%s",
      err->message);
  g_error_free (err);
}

GST_END_TEST;

GST_START_TEST (test_halo_3d_planes)
{
  static const gint64 shape[3] = { 4, 5, 3 };
  static const guint h[3] = { 0, 1, 2 };
  guint m, c;

  for (m = 0; m < G_N_ELEMENTS (all_modes); m++)
    for (c = 0; c < G_N_ELEMENTS (chunks); c++) {
      if (all_modes[m] == PLAN_BOUNDARY_VALID)
        continue;
      check_stream (all_modes[m], 3, shape, h, chunks[c]);
    }
}

GST_END_TEST;

/* Without inner padding the middle of a long chunk is read where it is:
 * the second block points into the pushed rows. */
GST_START_TEST (test_halo_reads_long_chunks_in_place)
{
  PlanArrayInfo info;
  gint64 shape[2] = { -1, 3 };
  guint h[2] = { 1, 0 };
  gfloat rows[2][100 * 3];
  PlanHaloBlock blocks[PLAN_HALO_MAX_BLOCKS];
  PlanHalo *halo;
  guint n_blocks, i;

  for (i = 0; i < 300; i++)
    rows[0][i] = rows[1][i] = i;
  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT32, 2, shape, NULL));
  halo = plan_halo_new (&info, h, PLAN_BOUNDARY_NEAREST, 0, NULL);
  fail_unless (plan_halo_push (halo, rows[0], 100, blocks, &n_blocks, NULL));
  fail_unless_equals_int (n_blocks, 2);
  fail_unless_equals_uint64 (blocks[0].first_row, 0);
  fail_unless_equals_int (blocks[0].n_rows, 1);
  fail_unless_equals_uint64 (blocks[1].first_row, 1);
  fail_unless_equals_int (blocks[1].n_rows, 98);
  fail_unless (blocks[1].origin == (gconstpointer) & rows[0][3]);
  fail_unless (blocks[1].contiguous);

  fail_unless (plan_halo_push (halo, rows[1], 100, blocks, &n_blocks, NULL));
  fail_unless_equals_int (n_blocks, 2);
  fail_unless_equals_uint64 (blocks[0].first_row, 99);
  fail_unless_equals_int (blocks[0].n_rows, 2);
  fail_unless (blocks[1].origin == (gconstpointer) & rows[1][3]);
  /* Row 99's window: rows 98, 99 and 100 (the first of the second chunk). */
  fail_unless_equals_float (((const gfloat *) blocks[0].origin)[-3], 294);
  fail_unless_equals_float (((const gfloat *) blocks[0].origin)[0], 297);
  fail_unless_equals_float (((const gfloat *) blocks[0].origin)[3], 0);
  plan_halo_free (halo);
}

GST_END_TEST;

GST_START_TEST (test_halo_valid_rejects_short_axis)
{
  PlanArrayInfo info;
  gint64 shape[2] = { 10, 3 };
  guint h[2] = { 1, 2 };
  GError *err = NULL;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT32, 2, shape, NULL));
  fail_unless (plan_halo_new (&info, h, PLAN_BOUNDARY_VALID, 0, &err) == NULL);
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_SHAPE));
  fail_unless (strstr (err->message, "axis 1") != NULL, "%s", err->message);
  g_clear_error (&err);
}

GST_END_TEST;

GST_START_TEST (test_halo_valid_rejects_short_stream)
{
  PlanArrayInfo info;
  gint64 shape[1] = { -1 };
  guint h[1] = { 2 };
  gfloat rows[4] = { 0 };
  PlanHaloBlock blocks[PLAN_HALO_MAX_BLOCKS];
  PlanHalo *halo;
  GError *err = NULL;
  guint n_blocks;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT32, 1, shape, NULL));
  halo = plan_halo_new (&info, h, PLAN_BOUNDARY_VALID, 0, NULL);
  fail_unless (plan_halo_push (halo, rows, 4, blocks, &n_blocks, NULL));
  fail_unless_equals_int (n_blocks, 0);
  fail_if (plan_halo_finish (halo, blocks, &n_blocks, &err));
  fail_unless (strstr (err->message, "4 rows") != NULL, "%s", err->message);
  g_clear_error (&err);
  plan_halo_free (halo);
}

GST_END_TEST;

GST_START_TEST (test_halo_wrap_needs_end_rows)
{
  PlanArrayInfo info;
  gint64 shape[1] = { -1 };
  guint h[1] = { 2 };
  gfloat rows[4] = { 0 };
  PlanHaloBlock blocks[PLAN_HALO_MAX_BLOCKS];
  PlanHalo *halo;
  GError *err = NULL;
  gsize n_end;
  guint n_blocks;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT32, 1, shape, NULL));
  halo = plan_halo_new (&info, h, PLAN_BOUNDARY_WRAP, 0, NULL);
  fail_if (plan_halo_needs_end_rows (halo, 2, NULL));
  fail_unless (plan_halo_push (halo, rows, 2, blocks, &n_blocks, NULL));
  fail_unless (plan_halo_needs_end_rows (halo, 1, &n_end));
  fail_unless_equals_int (n_end, 2);
  fail_if (plan_halo_push (halo, rows, 1, blocks, &n_blocks, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED));
  g_clear_error (&err);
  plan_halo_free (halo);
}

GST_END_TEST;

/* A stream sharded into @n_pieces contiguous pieces, each with the rows
 * around it as a sharded stencil has them: a piece after another (or any
 * with wrap) starts with h[0] rows of context, and a piece before another
 * (or any with wrap) ends with the first 2 h[0] rows of the next piece,
 * the last h[0] of them context. Every piece's blocks must be the whole
 * array's outputs at their global rows, and together cover each once. */
static void
check_pieces (PlanBoundary b, guint ndim, const gint64 * shape,
    const guint * h, gsize chunk, guint n_pieces, gboolean unpadded)
{
  gsize row = 1, total;
  gint32 *data;
  guint k, i, wrap = b == PLAN_BOUNDARY_WRAP, valid = b == PLAN_BOUNDARY_VALID;
  gint64 n_all = shape[0], h0 = h[0], first = 0, covered = 0;
  Stream st;

  stream_init (&st, b, ndim, shape, h, chunk);
  for (i = 1; i < ndim; i++)
    row *= shape[i];
  total = n_all * row;
  data = g_new (gint32, total);
  for (i = 0; i < total; i++)
    data[i] = i;

  for (k = 0; k < n_pieces; k++) {
    gint64 n = n_all / n_pieces + (k < n_all % n_pieces), m, r, origin;
    gboolean lead = h0 > 0 && (k > 0 || wrap);
    gboolean trail = h0 > 0 && (k + 1 < n_pieces || wrap);
    PlanHaloBlock blocks[PLAN_HALO_MAX_BLOCKS];
    PlanArrayInfo info;
    gint64 pshape[3];
    gint32 *piece;
    gsize pushed = 0;
    guint64 next_out = 0;
    guint n_blocks, n_pushes = 0;
    gboolean done = FALSE;
    GError *err = NULL;

    m = n + (trail ? 2 * h0 : 0);
    piece = g_new (gint32, m * row);
    for (r = 0; r < m; r++)
      memcpy (piece + r * row, data + ((first + r) % n_all) * row,
          row * sizeof (gint32));
    memcpy (pshape, shape, sizeof (pshape[0]) * ndim);
    pshape[0] = -1;
    fail_unless (plan_array_info_set (&info, PLAN_DTYPE_INT32, ndim, pshape,
            NULL));
    st.halo = plan_halo_new (&info, h, b, CVAL, &err);
    fail_unless (st.halo != NULL, "%s", err ? err->message : "");
    st.unpadded = unpadded && plan_halo_set_pad_inner (st.halo, FALSE);
    plan_halo_set_context_rows (st.halo, lead, trail);
    origin = valid ? first : first + (lead ? h0 : 0);
    GST_INFO ("%u-D %" G_GINT64_FORMAT " rows, halo %u, piece %u of %u, "
        "chunk %" G_GSIZE_FORMAT ", %s", ndim, n_all, h[0], k, n_pieces,
        chunk, unpadded ? "unpadded" : "padded");

    while (!done) {
      gsize c = chunk_size (chunk, n_pushes++);

      c = MIN (c, (gsize) (m - pushed));

      if (c > 0) {
        fail_if (plan_halo_needs_end_rows (st.halo, c, NULL));
        fail_unless (plan_halo_push (st.halo, piece + pushed * row, c,
                blocks, &n_blocks, &err), "%s", err ? err->message : "");
        pushed += c;
      } else {
        fail_unless (plan_halo_finish (st.halo, blocks, &n_blocks, &err),
            "%s", err ? err->message : "");
        done = TRUE;
      }
      for (i = 0; i < n_blocks; i++) {
        fail_unless_equals_uint64 (blocks[i].first_row, next_out);
        check_block (&st, &blocks[i], origin + next_out);
        next_out += blocks[i].n_rows;
      }
    }
    fail_unless_equals_uint64 (next_out, valid ? m - 2 * h0 :
        m - (lead ? h0 : 0) - (trail ? h0 : 0));
    covered += next_out;
    plan_halo_free (st.halo);
    g_free (piece);
    first += n;
  }
  fail_unless_equals_int64 (covered, st.out_shape[0]);
  g_free (data);
}

GST_START_TEST (test_halo_context_rows_pieces)
{
  static const gint64 shapes[][2] = { {12, 1}, {17, 5}, {24, 3} };
  static const guint halos[][2] = { {1, 1}, {2, 1}, {1, 0}, {3, 2} };
  guint m, c, s, hi, p, u;

  for (m = 0; m < G_N_ELEMENTS (all_modes); m++)
    for (c = 0; c < G_N_ELEMENTS (chunks); c++)
      for (s = 0; s < G_N_ELEMENTS (shapes); s++)
        for (hi = 0; hi < G_N_ELEMENTS (halos); hi++)
          for (p = 1; p <= 4; p++)
            for (u = 0; u < 2; u++) {
              /* Each piece has at least 2 h[0] rows, as a sharded stencil
               * asks; 1-D streams along the first axis too. */
              if (shapes[s][0] / p < 2 * halos[hi][0]
                  || !valid_fits (all_modes[m], shapes[s], halos[hi]))
                continue;
              check_pieces (all_modes[m], 2, shapes[s], halos[hi], chunks[c],
                  p, u);
              check_pieces (all_modes[m], 1, shapes[s], halos[hi], chunks[c],
                  p, u);
            }
}

GST_END_TEST;

/* A piece too short for any valid output is no error: the whole stream
 * is the caller's to check. Without context, it is. */
GST_START_TEST (test_halo_context_rows_valid_empty_piece)
{
  PlanArrayInfo info;
  gint64 shape[1] = { -1 };
  guint h[1] = { 2 };
  gfloat rows[4] = { 0 };
  PlanHaloBlock blocks[PLAN_HALO_MAX_BLOCKS];
  PlanHalo *halo;
  GError *err = NULL;
  guint n_blocks;

  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT32, 1, shape, NULL));
  halo = plan_halo_new (&info, h, PLAN_BOUNDARY_VALID, 0, NULL);
  plan_halo_set_context_rows (halo, TRUE, FALSE);
  fail_unless (plan_halo_push (halo, rows, 4, blocks, &n_blocks, NULL));
  fail_unless_equals_int (n_blocks, 0);
  fail_unless (plan_halo_finish (halo, blocks, &n_blocks, &err));
  fail_unless_equals_int (n_blocks, 0);
  plan_halo_set_context_rows (halo, FALSE, FALSE);
  fail_unless (plan_halo_push (halo, rows, 4, blocks, &n_blocks, NULL));
  fail_if (plan_halo_finish (halo, blocks, &n_blocks, &err));
  fail_unless (strstr (err->message, "4 rows") != NULL, "%s", err->message);
  g_clear_error (&err);
  plan_halo_free (halo);
}

GST_END_TEST;

static Suite *
halo_suite (void)
{
  Suite *s = suite_create ("halo");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_boundary_index_maps_like_scipy);
  tcase_add_test (tc, test_boundary_pad_line_window_larger_than_line);
  tcase_add_test (tc, test_boundary_fill_from_double);
  tcase_add_test (tc, test_halo_1d_every_mode_and_chunk);
  tcase_add_test (tc, test_halo_2d_every_mode_and_chunk);
  tcase_add_test (tc, test_halo_unpadded_rows_every_mode_and_chunk);
  tcase_add_test (tc, test_halo_unpadded_rows_refused);
  tcase_add_test (tc, test_halo_3d_planes);
  tcase_add_test (tc, test_halo_reads_long_chunks_in_place);
  tcase_add_test (tc, test_halo_valid_rejects_short_axis);
  tcase_add_test (tc, test_halo_valid_rejects_short_stream);
  tcase_add_test (tc, test_halo_wrap_needs_end_rows);
  tcase_add_test (tc, test_halo_context_rows_pieces);
  tcase_add_test (tc, test_halo_context_rows_valid_empty_piece);
  tcase_add_test (tc, test_halo_refuses_an_empty_inner_axis);
  return s;
}

GST_CHECK_MAIN (halo);
