/* gst-plan: the wrapper of one generated expression.
 *
 * Embedded at build time; libplan/expr/exprcuda.c fills the slots written
 * between at-signs: the kernel parameters (one "const T *__restrict__ inK,"
 * per bound name), the element function's parameters and statements, its
 * arguments through the PLAN_A1 / PLAN_A4 / PLAN_H1 macros below, one
 * PLAN_LOAD4 per input for the vector path, and the alignment test of
 * every pointer. */

__host__ __device__ static inline @OUT_T@
@NAME@_element (@ELEM_PARAMS@)
{
@BODY@
}

#define PLAN_A1(k) in##k[j]
#define PLAN_LOAD4(T, k) const plan_vec4<T> a##k = ((const plan_vec4<T> *) in##k)[j];
#define PLAN_A4(k) a##k.v[q]

/* Grid-stride loop; where every pointer is aligned to four elements, each
 * thread loads and stores four elements per step. */
extern "C" __global__ void
@NAME@ (@PARAMS@ @OUT_T@ *__restrict__ out, unsigned long long n)
{
  unsigned long long stride = (unsigned long long) gridDim.x * blockDim.x;
  unsigned long long start = (unsigned long long) blockIdx.x * blockDim.x
      + threadIdx.x;
  unsigned long long j;

  if (@ALIGNED@) {
    unsigned long long n4 = n / 4;
    for (j = start; j < n4; j += stride) {
      plan_vec4<@OUT_T@> r;
      int q;
      @VEC_LOADS@
#pragma unroll
      for (q = 0; q < 4; q++)
        r.v[q] = @NAME@_element (@VEC_ARGS@);
      ((plan_vec4<@OUT_T@> *) out)[j] = r;
    }
    for (j = n4 * 4 + start; j < n; j += stride)
      out[j] = @NAME@_element (@ARGS@);
  } else {
    for (j = start; j < n; j += stride)
      out[j] = @NAME@_element (@ARGS@);
  }
}

#undef PLAN_A1
#undef PLAN_LOAD4
#undef PLAN_A4

#ifdef PLAN_EXPR_HOST_ENTRY
#define PLAN_H1(T, k) ((const T *) in[k])[j]
extern "C" void
@NAME@_host (const void *const *in, void *out_, unsigned long long n)
{
  @OUT_T@ *out = (@OUT_T@ *) out_;
  unsigned long long j;

  (void) in;
  for (j = 0; j < n; j++)
    out[j] = @NAME@_element (@HOST_ARGS@);
}
#undef PLAN_H1
#endif
