/* gst-plan: the reduction kernels.
 *
 * Embedded at build time after libplan/planreducer-steps.h and
 * planreducer-steps-run.h, whose
 * __host__ __device__ steps they run: the CPU reducer's order of
 * operations, spread over threads only where the CPU's order does not
 * depend on it (the lanes of a block, the blocks of a chunk, the columns,
 * the rows). Compiled once per architecture by NVRTC with --fmad=false;
 * every kernel takes the PrkParams of the reduction by value. The
 * single-thread kernels (stage, push, finish) run <<<1, 1>>>. */

/* One CUDA block: PRK_BLOCKS_PER_CTA reducer blocks of PRK_LANES threads,
 * thread l of a group running lane l. */
extern "C" __global__ void
prk_k_blocks (PrkParams P, const char *x, prk_u64 n_blocks, prk_u64 base,
    PrkAcc * results)
{
  __shared__ PrkLane lanes[PRK_BLOCKS_PER_CTA * PRK_LANES];
  __shared__ PrkMid mids[PRK_BLOCKS_PER_CTA];
  unsigned int t = threadIdx.x, g = t / PRK_LANES, l = t % PRK_LANES;
  prk_u64 b0;

  for (b0 = (prk_u64) blockIdx.x * PRK_BLOCKS_PER_CTA; b0 < n_blocks;
      b0 += (prk_u64) gridDim.x * PRK_BLOCKS_PER_CTA) {
    prk_u64 b = b0 + g;
    int active = b < n_blocks;
    const char *xb = x + b * PRK_BLOCK * P.in_size;

    if (active) {
      prk_lane_init (&P, &lanes[t], xb, PRK_BLOCK, base + b * PRK_BLOCK, l);
      prk_lane_run (&P, &lanes[t], xb, PRK_BLOCK, base + b * PRK_BLOCK, l,
          0, 0);
    }
    __syncthreads ();
    if (active && l == 0)
      prk_block_mid (&P, &lanes[g * PRK_LANES], &mids[g]);
    __syncthreads ();
    if (active && prk_two_pass (&P) && mids[g].count > 0)
      prk_lane_run (&P, &lanes[t], xb, PRK_BLOCK, base + b * PRK_BLOCK, l,
          1, &mids[g]);
    __syncthreads ();
    if (active && l == 0)
      prk_block_end (&P, &lanes[g * PRK_LANES], &mids[g], &results[b]);
    __syncthreads ();
  }
}

extern "C" __global__ void
prk_k_reset (PrkParams P, PrkTree * t, PrkAcc * cols, prk_u64 n_cols)
{
  prk_u64 c = (prk_u64) blockIdx.x * blockDim.x + threadIdx.x;

  if (c == 0)
    t->depth = 0;
  for (; c < n_cols; c += (prk_u64) gridDim.x * blockDim.x)
    cols[c] = P.identity;
}

extern "C" __global__ void
prk_k_stage (PrkParams P, PrkTree * t, char *staging, const char *x,
    prk_u64 staged, prk_u64 take, prk_u64 base)
{
  prk_step_stage (&P, t, staging, x, staged, take, base);
}

extern "C" __global__ void
prk_k_push (PrkParams P, PrkTree * t, const PrkAcc * results,
    prk_u64 n_blocks, char *staging, const char *tail, prk_u64 n_tail)
{
  prk_step_push (&P, t, results, n_blocks, staging, tail, n_tail);
}

extern "C" __global__ void
prk_k_finish (PrkParams P, const PrkTree * t, const char *staging,
    prk_u64 staged, prk_u64 base, prk_u64 count, char *out, prk_u64 * flag)
{
  *flag = (prk_u64) prk_step_finish (&P, t, staging, staged, base, count,
      out);
}

/* One thread per column, rows in order, each column block pushed into
 * the column's tree as it ends. */
extern "C" __global__ void
prk_k_columns (PrkParams P, PrkAcc * cols, PrkAcc * nodes, prk_u64 n_cols,
    const char *x, prk_u64 n_rows, prk_u64 first_row)
{
  prk_u64 c, r;

  for (c = (prk_u64) blockIdx.x * blockDim.x + threadIdx.x; c < n_cols;
      c += (prk_u64) gridDim.x * blockDim.x) {
    PrkAcc cur = cols[c];

    for (r = 0; r < n_rows; r++) {
      prk_u64 g = first_row + r;

      prk_column_step (&P, &cur, x + r * n_cols * P.in_size, c, g);
      if ((g + 1) % P.col_rows == 0)
        prk_column_push (&P, nodes, n_cols, c, &cur, g / P.col_rows);
    }
    cols[c] = cur;
  }
}

extern "C" __global__ void
prk_k_columns_final (PrkParams P, const PrkAcc * cols, const PrkAcc * nodes,
    prk_u64 n_cols, prk_u64 count, char *out, prk_u64 * flag)
{
  prk_u64 c;
  int out_size = P.out_size;

  for (c = (prk_u64) blockIdx.x * blockDim.x + threadIdx.x; c < n_cols;
      c += (prk_u64) gridDim.x * blockDim.x) {
    PrkAcc acc;

    prk_column_fold (&P, nodes, n_cols, c, &cols[c], count, &acc);
    if (prk_final (&P, &acc, count, out + c * out_size))
      *flag = 1;
  }
}

/* One thread per row. */
extern "C" __global__ void
prk_k_rows (PrkParams P, const char *x, prk_u64 n_rows,
    prk_u64 row_elements, int out_size, char *out, prk_u64 * flag)
{
  prk_u64 r;

  for (r = (prk_u64) blockIdx.x * blockDim.x + threadIdx.x; r < n_rows;
      r += (prk_u64) gridDim.x * blockDim.x)
    if (prk_reduce_row (&P, x + r * row_elements * P.in_size, row_elements,
            out + r * out_size))
      *flag = 1;
}
