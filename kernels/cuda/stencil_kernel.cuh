/* gst-plan: the wrapper of one generated stencil.
 *
 * Embedded at build time, after the expression's own source (prelude,
 * element function) and kernels/cuda/stencil_index.h;
 * libplan/planstencilkernel.c fills the slots written between at-signs:
 * the output type, the parameters that carry each input's segments and
 * constant value (one input: segs and cval; more: segs1, cval1, ...
 * after them), the statements
 * that split an output index into its coordinates (o1, o2, ... along the
 * inner axes; what is left is the output row) and the statements that
 * load each cell the expression reads (v0, v1, ...), each index mapped
 * by the boundary rule, and the element function's arguments.
 *
 * One thread per output element, in a grid-stride loop: output e is row
 * c0 + e / (outputs per row) of the stream's centres. The rows read come
 * from the segments (kept halo rows, the chunk, the stream's first and
 * last rows). */

__host__ __device__ static inline void
@NAME@_at (@SEGS_DECL@, @OUT_T@ * out, long long c0,
    unsigned long long e, long long n_stream, @CVAL_DECL@)
{
  unsigned long long rest = e;
  long long r;
@DECOMPOSE@
  r = c0 + (long long) rest;
@LOADS@
  out[e] = @ELEMENT@ (@ARGS@);
}

extern "C" __global__ void
@NAME@ (@SEGS_PARAMS@, @OUT_T@ *__restrict__ out, long long c0,
    unsigned long long n, long long n_stream, @CVAL_DECL@)
{
  unsigned long long stride = (unsigned long long) gridDim.x * blockDim.x;
  unsigned long long e;

  for (e = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x; e < n;
      e += stride)
    @NAME@_at (@SEGS_PASS@, out, c0, e, n_stream, @CVAL_PASS@);
}

#ifdef PLAN_EXPR_HOST_ENTRY
/* The same kernel on the host, for the tests that compile the generated
 * source with nvcc and compare it with the CPU: @segs holds each input's
 * segments, @cval each input's constant in 16 bytes. */
extern "C" void
@NAME@_host (const plan_stencil_segs * segs, void *out, long long c0,
    unsigned long long n, long long n_stream, const void *cval)
{
  unsigned long long e;

  for (e = 0; e < n; e++)
    @NAME@_at (@HOST_SEGS_PASS@, (@OUT_T@ *) out, c0, e, n_stream,
        @HOST_CVAL_PASS@);
}
#endif
