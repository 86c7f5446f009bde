/* The machine's memory-bandwidth limits for tests/benchmarks/run-all,
 * measured in the same run as the jobs they bound: STREAM-style copy
 * (b = a), add (c = a + b) and sum (s += a) over float32 arrays far larger
 * than the caches, on one thread and on two.
 *
 *   membw MIB REPEAT
 *
 * Prints `bw KERNEL THREADS GB/s` lines, the best of REPEAT passes each,
 * counting the bytes a kernel reads and writes (copy 2, add 3 and sum 1
 * array's worth). Built by run-all with -O3 -march=native, so the loops use
 * the machine's widest vectors. Not run by `meson test`. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct
{
  float *a, *b, *c;
  size_t begin, end;
  int kernel;
  double sum;
} Part;

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *
run_part (void *data)
{
  Part *p = data;
  size_t i;

  switch (p->kernel) {
    case 0:
      memcpy (p->b + p->begin, p->a + p->begin,
          (p->end - p->begin) * sizeof (float));
      break;
    case 1:
      for (i = p->begin; i < p->end; i++)
        p->c[i] = p->a[i] + p->b[i];
      break;
    default:{
      /* Eight partial sums, so the loop is bound by loads, not by the
       * latency of one addition chain. */
      float s[16] = { 0 };
      size_t n = (p->end - p->begin) / 16 * 16;

      for (i = 0; i < n; i += 16)
        for (int k = 0; k < 16; k++)
          s[k] += p->a[p->begin + i + k];
      for (i = p->begin + n; i < p->end; i++)
        s[0] += p->a[i];
      p->sum = 0;
      for (int k = 0; k < 16; k++)
        p->sum += s[k];
    }
  }
  return NULL;
}

static double
pass (float *a, float *b, float *c, size_t n, int kernel, int threads)
{
  pthread_t tid[2];
  Part parts[2];
  double t = now ();
  int k;

  for (k = 0; k < threads; k++) {
    parts[k] = (Part) {
    a, b, c, n * k / threads, n * (k + 1) / threads, kernel, 0};
    if (k > 0)
      pthread_create (&tid[k], NULL, run_part, &parts[k]);
  }
  run_part (&parts[0]);
  for (k = 1; k < threads; k++)
    pthread_join (tid[k], NULL);
  t = now () - t;
  /* Keep the sum alive. */
  if (parts[0].sum == -1.0)
    printf ("#\n");
  return t;
}

int
main (int argc, char **argv)
{
  static const char *names[] = { "copy", "add", "sum" };
  static const double arrays[] = { 2, 3, 1 };
  size_t mib = argc > 1 ? strtoul (argv[1], NULL, 10) : 256;
  int repeat = argc > 2 ? atoi (argv[2]) : 5;
  size_t n = (mib << 20) / sizeof (float);
  float *a = aligned_alloc (4096, n * sizeof (float));
  float *b = aligned_alloc (4096, n * sizeof (float));
  float *c = aligned_alloc (4096, n * sizeof (float));
  size_t i;

  if (a == NULL || b == NULL || c == NULL || repeat < 1) {
    fprintf (stderr, "usage: membw MIB REPEAT\n");
    return 2;
  }
  for (i = 0; i < n; i++) {
    a[i] = (float) (i % 1000);
    b[i] = 1.0f;
    c[i] = 0.0f;
  }
  for (int kernel = 0; kernel < 3; kernel++)
    for (int threads = 1; threads <= 2; threads++) {
      double best = 1e30;

      for (int r = 0; r < repeat; r++) {
        double t = pass (a, b, c, n, kernel, threads);
        if (t < best)
          best = t;
      }
      printf ("bw %s %d %.2f\n", names[kernel], threads,
          arrays[kernel] * n * sizeof (float) / best / 1e9);
    }
  free (a);
  free (b);
  free (c);
  return 0;
}
