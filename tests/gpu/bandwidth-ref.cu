/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * The reference for tests/benchmarks/device-bandwidth.c: the same copies
 * with the CUDA runtime's cudaMemcpyAsync on one stream. Built with nvcc by
 * tests/gpu/run-on-device.sh on the GPU machine.
 *
 *   bandwidth-ref [MIB [ITERATIONS]]        (default: 256 10)
 */

#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
      fprintf (stderr, "bandwidth-ref: %s: %s\n", #call, \
          cudaGetErrorString (e)); exit (1); } } while (0)

static void
measure (const char *name, void *dst, const void *src, size_t size,
    cudaMemcpyKind kind, int iterations, cudaStream_t stream)
{
  CHECK (cudaMemcpyAsync (dst, src, size, kind, stream));
  CHECK (cudaStreamSynchronize (stream));
  auto start = std::chrono::steady_clock::now ();
  for (int i = 0; i < iterations; i++)
    CHECK (cudaMemcpyAsync (dst, src, size, kind, stream));
  CHECK (cudaStreamSynchronize (stream));
  std::chrono::duration<double> s = std::chrono::steady_clock::now () - start;
  printf ("cuda %s %.2f\n", name, (double) size * iterations / s.count () /
      1e9);
}

int
main (int argc, char **argv)
{
  size_t size = (size_t) (argc > 1 ? atoi (argv[1]) : 256) << 20;
  int iterations = argc > 2 ? atoi (argv[2]) : 10;
  cudaStream_t stream;
  void *pageable, *pinned, *d1, *d2;

  CHECK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  pageable = malloc (size);
  memset (pageable, 1, size);
  CHECK (cudaMallocHost (&pinned, size));
  memset (pinned, 2, size);
  CHECK (cudaMalloc (&d1, size));
  CHECK (cudaMalloc (&d2, size));

  measure ("h2d-pageable", d1, pageable, size, cudaMemcpyHostToDevice,
      iterations, stream);
  measure ("h2d-pinned", d1, pinned, size, cudaMemcpyHostToDevice,
      iterations, stream);
  measure ("d2h-pinned", pinned, d1, size, cudaMemcpyDeviceToHost,
      iterations, stream);
  measure ("d2d", d2, d1, size, cudaMemcpyDeviceToDevice, iterations,
      stream);

  cudaFree (d1);
  cudaFree (d2);
  cudaFreeHost (pinned);
  free (pageable);
  return 0;
}
