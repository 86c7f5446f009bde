/* gst-plan: the kernels of a custom reduction (planreduce expr=...).
 *
 * Embedded at build time; libplan/planreducer-device.c compiles, for one
 * combiner, the steps header, the CUDA code generated from the combiner
 * expression (prk_comb_element) and from the cast of the input to the
 * accumulator dtype (prk_cast_element, when there is one), and this file,
 * with PRK_T (the accumulator type), PRK_IN_T (the input type) and
 * PRK_CAST (v) defined before it. They repeat the CPU's custom tree: a
 * block of PRK_BLOCK elements, cast, padded with the identity to the next
 * power of two and combined by halves (element k with element k + p at
 * each level), block results merged by the binary counter with the
 * combiner, folded from the most recent at the end. */

__host__ __device__ static inline PRK_T
prk_c_get (const PrkAcc * a)
{
  PRK_T v;
  unsigned int i;

  for (i = 0; i < sizeof (PRK_T); i++)
    ((unsigned char *) &v)[i] = a->v.raw[i];
  return v;
}

__host__ __device__ static inline void
prk_c_set (PrkAcc * a, PRK_T v)
{
  unsigned int i;

  a->v.u = 0;
  a->lo = 0.0;
  a->index = 0;
  a->w.u = 0;
  for (i = 0; i < sizeof (PRK_T); i++)
    a->v.raw[i] = ((const unsigned char *) &v)[i];
}

/* A block of @n (1 .. PRK_BLOCK) elements on one thread. */
__device__ static void
prk_c_block_serial (const PrkParams * P, const PRK_IN_T * x, prk_u64 n,
    PrkAcc * out)
{
  PRK_T buf[PRK_BLOCK];
  prk_u64 p = 1, k;

  while (p < n)
    p <<= 1;
  for (k = 0; k < n; k++)
    buf[k] = PRK_CAST (x[k]);
  for (; k < p; k++)
    buf[k] = prk_c_get (&P->identity);
  while (p > 1) {
    p /= 2;
    for (k = 0; k < p; k++)
      buf[k] = prk_comb_element (buf[k], buf[k + p]);
  }
  prk_c_set (out, buf[0]);
}

__device__ static void
prk_c_tree_push (PrkTree * t, const PrkAcc * block)
{
  PrkAcc acc = *block;
  unsigned int level = 0;

  while (t->depth > 0 && t->levels[t->depth - 1] == level) {
    prk_c_set (&acc, prk_comb_element (prk_c_get (&t->stack[t->depth - 1]),
            prk_c_get (&acc)));
    level++;
    t->depth--;
  }
  t->stack[t->depth] = acc;
  t->levels[t->depth] = level;
  t->depth++;
}

__device__ static void
prk_c_tree_fold (const PrkParams * P, const PrkTree * t,
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
  for (; i >= 0; i--)
    prk_c_set (&acc, prk_comb_element (prk_c_get (&t->stack[i]),
            prk_c_get (&acc)));
  *out = acc;
}

/* One CUDA block (of any power-of-two size) per reducer block, the levels
 * of the halving in shared memory. */
extern "C" __global__ void
prk_c_blocks (PrkParams P, const PRK_IN_T * x, prk_u64 n_blocks,
    prk_u64 base, PrkAcc * results)
{
  __shared__ PRK_T buf[PRK_BLOCK];
  prk_u64 b, k, p;

  for (b = blockIdx.x; b < n_blocks; b += gridDim.x) {
    for (k = threadIdx.x; k < PRK_BLOCK; k += blockDim.x)
      buf[k] = PRK_CAST (x[b * PRK_BLOCK + k]);
    __syncthreads ();
    for (p = PRK_BLOCK / 2; p >= 1; p /= 2) {
      for (k = threadIdx.x; k < p; k += blockDim.x)
        buf[k] = prk_comb_element (buf[k], buf[k + p]);
      __syncthreads ();
    }
    if (threadIdx.x == 0)
      prk_c_set (&results[b], buf[0]);
    __syncthreads ();
  }
}

extern "C" __global__ void
prk_c_reset (PrkParams P, PrkTree * t, PrkAcc * cols, prk_u64 n_cols)
{
  prk_u64 c = (prk_u64) blockIdx.x * blockDim.x + threadIdx.x;

  if (c == 0)
    t->depth = 0;
  for (; c < n_cols; c += (prk_u64) gridDim.x * blockDim.x)
    cols[c] = P.identity;
}

extern "C" __global__ void
prk_c_stage (PrkParams P, PrkTree * t, char *staging, const char *x,
    prk_u64 staged, prk_u64 take, prk_u64 base)
{
  PrkAcc block;

  prk_copy_bytes (staging + staged * sizeof (PRK_IN_T), x,
      take * sizeof (PRK_IN_T));
  if (staged + take == PRK_BLOCK) {
    prk_c_block_serial (&P, (const PRK_IN_T *) staging, PRK_BLOCK, &block);
    prk_c_tree_push (t, &block);
  }
}

extern "C" __global__ void
prk_c_push (PrkParams P, PrkTree * t, const PrkAcc * results,
    prk_u64 n_blocks, char *staging, const char *tail, prk_u64 n_tail)
{
  prk_u64 k;

  for (k = 0; k < n_blocks; k++)
    prk_c_tree_push (t, &results[k]);
  prk_copy_bytes (staging, tail, n_tail * sizeof (PRK_IN_T));
}

extern "C" __global__ void
prk_c_finish (PrkParams P, const PrkTree * t, const char *staging,
    prk_u64 staged, prk_u64 base, prk_u64 count, char *out, prk_u64 * flag)
{
  PrkAcc block, acc;
  PRK_T v;
  unsigned int i;

  if (staged > 0) {
    prk_c_block_serial (&P, (const PRK_IN_T *) staging, staged, &block);
    prk_c_tree_fold (&P, t, &block, &acc);
  } else {
    prk_c_tree_fold (&P, t, 0, &acc);
  }
  v = prk_c_get (&acc);
  for (i = 0; i < sizeof (PRK_T); i++)
    out[i] = ((const char *) &v)[i];
  *flag = 0;
}

/* axis 0: one thread per column, rows in order, each column block pushed
 * into the column's tree as it ends (prk_column_push() with the
 * combiner). */
extern "C" __global__ void
prk_c_columns (PrkParams P, PrkAcc * cols, PrkAcc * nodes, prk_u64 n_cols,
    const PRK_IN_T * x, prk_u64 n_rows, prk_u64 first_row)
{
  prk_u64 c, r;

  for (c = (prk_u64) blockIdx.x * blockDim.x + threadIdx.x; c < n_cols;
      c += (prk_u64) gridDim.x * blockDim.x) {
    PRK_T v = prk_c_get (&cols[c]);

    for (r = 0; r < n_rows; r++) {
      prk_u64 g = first_row + r, carry;
      unsigned int slot;

      v = prk_comb_element (v, PRK_CAST (x[r * n_cols + c]));
      if ((g + 1) % P.col_rows != 0)
        continue;
      slot = prk_popcount (g / P.col_rows);
      for (carry = g / P.col_rows; carry & 1; carry >>= 1)
        v = prk_comb_element (prk_c_get (&nodes[(prk_u64) --slot * n_cols
                    + c]), v);
      prk_c_set (&nodes[(prk_u64) slot * n_cols + c], v);
      v = prk_c_get (&P.identity);
    }
    prk_c_set (&cols[c], v);
  }
}

extern "C" __global__ void
prk_c_columns_final (PrkParams P, const PrkAcc * cols, const PrkAcc * nodes,
    prk_u64 n_cols, prk_u64 count, PRK_T * out, prk_u64 * flag)
{
  prk_u64 c;

  for (c = (prk_u64) blockIdx.x * blockDim.x + threadIdx.x; c < n_cols;
      c += (prk_u64) gridDim.x * blockDim.x) {
    int i = (int) prk_popcount (count / P.col_rows) - 1;
    PRK_T acc;

    if (count % P.col_rows != 0)
      acc = prk_c_get (&cols[c]);
    else if (i >= 0)
      acc = prk_c_get (&nodes[(prk_u64) i-- * n_cols + c]);
    else
      acc = prk_c_get (&P.identity);
    for (; i >= 0; i--)
      acc = prk_comb_element (prk_c_get (&nodes[(prk_u64) i * n_cols + c]),
          acc);
    out[c] = acc;
  }
}

/* axis -1: one thread per row, the row's own block tree. */
extern "C" __global__ void
prk_c_rows (PrkParams P, const PRK_IN_T * x, prk_u64 n_rows,
    prk_u64 row_elements, int out_size, PRK_T * out, prk_u64 * flag)
{
  prk_u64 r, k;

  for (r = (prk_u64) blockIdx.x * blockDim.x + threadIdx.x; r < n_rows;
      r += (prk_u64) gridDim.x * blockDim.x) {
    const PRK_IN_T *row = x + r * row_elements;
    PrkTree t;
    PrkAcc block, acc;

    t.depth = 0;
    for (k = 0; k + PRK_BLOCK <= row_elements; k += PRK_BLOCK) {
      prk_c_block_serial (&P, row + k, PRK_BLOCK, &block);
      prk_c_tree_push (&t, &block);
    }
    if (k < row_elements) {
      prk_c_block_serial (&P, row + k, row_elements - k, &block);
      prk_c_tree_fold (&P, &t, &block, &acc);
    } else {
      prk_c_tree_fold (&P, &t, 0, &acc);
    }
    out[r] = prk_c_get (&acc);
  }
}
