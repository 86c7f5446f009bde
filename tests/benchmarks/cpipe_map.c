/* A reference for bench_map.py: x + y file to file as a lean two-thread C
 * pipeline built like a plan (mapped inputs, 1 MiB output slices, a writer
 * thread reserving blocks ahead), without GStreamer. What planmap x + y
 * could reach on the machine if the framework cost nothing.
 *
 *   cpipe_map a.npy b.npy out.npy
 *
 * Both inputs are float32 .npy files with 128-byte headers, as
 * bench_map.py writes them; the output is a .npy file with a's header, as
 * planfilesink and numpy write it. (Without the header the writes would
 * start on 1 MiB boundaries of the file, which makes the kernel use large
 * folios; docs/planfilesink.md says why planfilesink does not.) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER 128
#define SLICE (1 << 20)
#define RING 6
#define STEP ((off_t) 64 << 20)

static float *ring[RING];
static long n_slices;
static long produced, consumed;         /* atomic */
static const float *a, *b;
static size_t n;

static void *
compute (void *data)
{
  for (long k = 0; k < n_slices; k++) {
    size_t first = (size_t) k * (SLICE / 4);
    size_t m = n - first < SLICE / 4 ? n - first : SLICE / 4;
    float *o = ring[k % RING];

    while (k - __atomic_load_n (&consumed, __ATOMIC_ACQUIRE) >= RING)
      sched_yield ();
    for (size_t i = 0; i < m; i++)
      o[i] = a[first + i] + b[first + i];
    __atomic_store_n (&produced, k + 1, __ATOMIC_RELEASE);
  }
  return NULL;
}

int
main (int argc, char **argv)
{
  struct stat st;
  int fa, fb, fo;
  off_t reserved = 0;
  pthread_t thread;

  if (argc < 4)
    return 2;
  fa = open (argv[1], O_RDONLY);
  fb = open (argv[2], O_RDONLY);
  fo = open (argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fa < 0 || fb < 0 || fo < 0 || fstat (fa, &st) != 0)
    return 1;
  n = (st.st_size - HEADER) / 4;
  a = mmap (NULL, st.st_size, PROT_READ, MAP_SHARED | MAP_POPULATE, fa, 0);
  b = mmap (NULL, st.st_size, PROT_READ, MAP_SHARED | MAP_POPULATE, fb, 0);
  if (a == MAP_FAILED || b == MAP_FAILED)
    return 1;
  if (write (fo, a, HEADER) != HEADER)
    return 1;
  a = (const float *) ((const char *) a + HEADER);
  b = (const float *) ((const char *) b + HEADER);
  n_slices = (n * 4 + SLICE - 1) / SLICE;
  for (int i = 0; i < RING; i++)
    ring[i] = aligned_alloc (4096, SLICE);

  pthread_create (&thread, NULL, compute, NULL);
  for (long k = 0; k < n_slices; k++) {
    size_t bytes = k + 1 < n_slices ? SLICE : n * 4 - (size_t) k * SLICE;

    while (__atomic_load_n (&produced, __ATOMIC_ACQUIRE) <= k)
      sched_yield ();
    if (HEADER + (off_t) ((k + 1) * (long) SLICE) > reserved) {
      fallocate (fo, FALLOC_FL_KEEP_SIZE, reserved, STEP);
      reserved += STEP;
    }
    if (write (fo, ring[k % RING], bytes) != (ssize_t) bytes)
      return 1;
    __atomic_store_n (&consumed, k + 1, __ATOMIC_RELEASE);
  }
  pthread_join (thread, NULL);
  return ftruncate (fo, HEADER + (off_t) n * 4) != 0 || close (fo) != 0;
}
