/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * Kernels for the cuda variant of tests/check/libs/device.c: a writer and
 * a slow reader, to check that stream waits order work on device memory.
 */

extern "C" __global__ void
plan_test_fill (unsigned int *data, unsigned long long n, unsigned int value,
    long long spin)
{
  unsigned long long i = blockIdx.x * (unsigned long long) blockDim.x +
      threadIdx.x;
  long long start = clock64 ();

  /* Spin first, so that a reader not waiting for us sees old data. */
  while (clock64 () - start < spin)
    ;
  for (; i < n; i += (unsigned long long) gridDim.x * blockDim.x)
    data[i] = value;
}

extern "C" __global__ void
plan_test_check (const unsigned int *data, unsigned long long n,
    unsigned int expected, long long spin, unsigned int *errors)
{
  unsigned long long i = blockIdx.x * (unsigned long long) blockDim.x +
      threadIdx.x;
  unsigned long long stride = (unsigned long long) gridDim.x * blockDim.x;
  long long start;
  unsigned long long j;

  for (j = i; j < n; j += stride)
    if (data[j] != expected)
      atomicAdd (errors, 1u);
  /* Read again after a while: a writer that reused the buffer too early
   * shows up here. */
  start = clock64 ();
  while (clock64 () - start < spin)
    ;
  for (j = i; j < n; j += stride)
    if (data[j] != expected)
      atomicAdd (errors, 1u);
}
