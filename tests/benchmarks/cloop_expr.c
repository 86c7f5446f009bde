/* gst-plan: plain C loops for tests/benchmarks/bench_expr.py, the
 * memory-bandwidth reference (compiled there with -O3 -march=native
 * -fopenmp into a shared object and called through ctypes). */

#include <math.h>
#include <stddef.h>

void cloop_add (const float *x, const float *y, float *out, size_t n);
void cloop_add_omp (const float *x, const float *y, float *out, size_t n);
void cloop_axy_sin (const float *x, const float *y, float *out, size_t n);
void cloop_axy_sin_omp (const float *x, const float *y, float *out,
    size_t n);
void cloop_where (const float *x, const float *y, float *out, size_t n);
void cloop_where_omp (const float *x, const float *y, float *out, size_t n);

void
cloop_add (const float *x, const float *y, float *out, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++)
    out[i] = x[i] + y[i];
}

void
cloop_add_omp (const float *x, const float *y, float *out, size_t n)
{
  long i;

#pragma omp parallel for schedule(static)
  for (i = 0; i < (long) n; i++)
    out[i] = x[i] + y[i];
}

void
cloop_axy_sin (const float *x, const float *y, float *out, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++)
    out[i] = 2 * x[i] * y[i] + sinf (x[i]);
}

void
cloop_axy_sin_omp (const float *x, const float *y, float *out, size_t n)
{
  long i;

#pragma omp parallel for schedule(static)
  for (i = 0; i < (long) n; i++)
    out[i] = 2 * x[i] * y[i] + sinf (x[i]);
}

void
cloop_where (const float *x, const float *y, float *out, size_t n)
{
  size_t i;

  (void) y;
  for (i = 0; i < n; i++)
    out[i] = x[i] > 0 ? sqrtf (x[i]) : -x[i];
}

void
cloop_where_omp (const float *x, const float *y, float *out, size_t n)
{
  long i;

  (void) y;
#pragma omp parallel for schedule(static)
  for (i = 0; i < (long) n; i++)
    out[i] = x[i] > 0 ? sqrtf (x[i]) : -x[i];
}
