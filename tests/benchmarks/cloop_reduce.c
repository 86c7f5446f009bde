/* The floor under a reduction of a .npy file on this machine: the lean C
 * process a careful programmer writes for one job, with nothing of a
 * framework (no pipeline, no hand-offs between threads, no guarantees on
 * the bits), run by tests/benchmarks/run-all beside gst-plan and numpy.
 *
 *   cloop_reduce sum|max|mean|colsum|colmax FILE.npy
 *
 * FILE.npy holds C-ordered little-endian float32 (sum, max, mean: any
 * shape; colsum, colmax: (rows, columns)). The file is mapped whole and
 * cut into one contiguous range of rows per core, each reduced by its own
 * thread (sums in 16 float64 lanes, as gst-plan's; maxima in float32, a
 * NaN winning), then the threads' results are combined. It prints the
 * result's first value. Built by run-all with `cc -O3 -march=native`. */

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __AVX__
#include <immintrin.h>
#endif

#define LANES 16
#define MAX_THREADS 64

enum op { SUM, MAX, MEAN, COLSUM, COLMAX };

struct part
{
  const float *x;
  size_t rows, cols;
  enum op op;
  double *dacc;                 /* sums: LANES, or cols */
  float *facc;                  /* maxima: 1, or cols */
};

static void *
reduce_part (void *data)
{
  struct part *p = data;
  size_t n = p->rows * p->cols, i, c;

  switch (p->op) {
    case SUM:
    case MEAN:{
      double lane[LANES] = { 0 };
      int l;

      for (i = 0; i + LANES <= n; i += LANES)
        for (l = 0; l < LANES; l++)
          lane[l] += p->x[i + l];
      for (; i < n; i++)
        lane[0] += p->x[i];
      for (l = 0; l < LANES; l++)
        p->dacc[l] = lane[l];
      break;
    }
    case MAX:{
      /* v > m ? v : m is one MAXPS; NaNs are counted aside */
      float lane[LANES];
      int l, nan = 0;

      for (l = 0; l < LANES; l++)
        lane[l] = -INFINITY;
      i = 0;
#ifdef __AVX__
      {
        /* gcc 12 vectorises neither form of this loop: written out */
        __m256 m0 = _mm256_set1_ps (-INFINITY), m1 = m0;
        __m256 u0 = _mm256_setzero_ps (), u1 = u0;

        for (; i + LANES <= n; i += LANES) {
          __m256 a = _mm256_loadu_ps (p->x + i);
          __m256 b = _mm256_loadu_ps (p->x + i + 8);

          m0 = _mm256_max_ps (a, m0);
          m1 = _mm256_max_ps (b, m1);
          u0 = _mm256_or_ps (u0, _mm256_cmp_ps (a, a, _CMP_UNORD_Q));
          u1 = _mm256_or_ps (u1, _mm256_cmp_ps (b, b, _CMP_UNORD_Q));
        }
        _mm256_storeu_ps (lane, m0);
        _mm256_storeu_ps (lane + 8, m1);
        nan = _mm256_movemask_ps (_mm256_or_ps (u0, u1)) != 0;
      }
#endif
      for (; i + LANES <= n; i += LANES)
        for (l = 0; l < LANES; l++) {
          float v = p->x[i + l];

          lane[l] = v > lane[l] ? v : lane[l];
          nan |= v != v;
        }
      for (; i < n; i++) {
        lane[0] = p->x[i] > lane[0] ? p->x[i] : lane[0];
        nan |= p->x[i] != p->x[i];
      }
      p->facc[0] = lane[0];
      for (l = 1; l < LANES; l++)
        if (lane[l] > p->facc[0])
          p->facc[0] = lane[l];
      if (nan)
        p->facc[0] = NAN;
      break;
    }
    case COLSUM:
      for (i = 0; i < p->rows; i++) {
        const float *row = p->x + i * p->cols;

        for (c = 0; c < p->cols; c++)
          p->dacc[c] += row[c];
      }
      break;
    case COLMAX:
      for (i = 0; i < p->rows; i++) {
        const float *row = p->x + i * p->cols;

        for (c = 0; c < p->cols; c++)
          p->facc[c] = (row[c] > p->facc[c]) | (row[c] != row[c]) ? row[c] :
              p->facc[c];
      }
      break;
  }
  return NULL;
}

/* The shape of a C-ordered '<f4' .npy file and where its data starts;
 * exits with a message on anything else. */
static size_t
parse_header (const unsigned char *m, size_t size, size_t * rows,
    size_t * cols)
{
  size_t hlen, start, dims[8], nd = 0;
  char *text, *s;

  if (size < 10 || memcmp (m, "\x93NUMPY", 6) != 0)
    goto bad;
  if (m[6] == 1) {
    hlen = m[8] | (size_t) m[9] << 8;
    start = 10;
  } else {
    if (size < 12)
      goto bad;
    hlen = m[8] | (size_t) m[9] << 8 | (size_t) m[10] << 16
        | (size_t) m[11] << 24;
    start = 12;
  }
  if (start + hlen > size)
    goto bad;
  text = strndup ((const char *) m + start, hlen);
  if (strstr (text, "'descr': '<f4'") == NULL
      || strstr (text, "'fortran_order': False") == NULL
      || (s = strstr (text, "'shape': (")) == NULL) {
    fprintf (stderr, "cloop_reduce: only C-ordered '<f4' files\n");
    exit (2);
  }
  s += strlen ("'shape': (");
  while (*s != ')' && nd < 8) {
    char *end;

    dims[nd++] = strtoull (s, &end, 10);
    if (end == s)
      break;
    s = end;
    while (*s == ',' || *s == ' ')
      s++;
  }
  free (text);
  *rows = nd > 0 ? dims[0] : 1;
  *cols = 1;
  while (nd > 1)
    *cols *= dims[--nd];
  if (start + hlen + *rows * *cols * sizeof (float) > size)
    goto bad;
  return start + hlen;

bad:
  fprintf (stderr, "cloop_reduce: not a .npy file, or a truncated one\n");
  exit (2);
}

int
main (int argc, char **argv)
{
  static const char *names[] = { "sum", "max", "mean", "colsum", "colmax" };
  struct part parts[MAX_THREADS];
  pthread_t threads[MAX_THREADS];
  size_t rows, cols, data, first = 0, c, width;
  long cores = sysconf (_SC_NPROCESSORS_ONLN);
  enum op op = SUM;
  unsigned char *m;
  struct stat st;
  int fd, t, n_threads, known = 0;
  double result;

  if (argc != 3)
    goto usage;
  for (t = 0; t < 5; t++)
    if (strcmp (argv[1], names[t]) == 0) {
      op = t;
      known = 1;
    }
  if (!known)
    goto usage;
  fd = open (argv[2], O_RDONLY);
  if (fd < 0 || fstat (fd, &st) < 0) {
    fprintf (stderr, "cloop_reduce: %s: %s\n", argv[2], strerror (errno));
    return 1;
  }
  m = mmap (NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) {
    fprintf (stderr, "cloop_reduce: mmap: %s\n", strerror (errno));
    return 1;
  }
  data = parse_header (m, st.st_size, &rows, &cols);
  if (op != COLSUM && op != COLMAX) {
    rows *= cols;
    cols = 1;
  }
  width = op == COLSUM || op == COLMAX ? cols : LANES;
  n_threads = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : cores;
  for (t = 0; t < n_threads; t++) {
    struct part *p = &parts[t];
    size_t share = rows / n_threads + ((size_t) t < rows % n_threads);

    p->x = (const float *) (m + data) + first * cols;
    p->rows = share;
    p->cols = cols;
    p->op = op;
    p->dacc = calloc (width, sizeof (double));
    p->facc = malloc (width * sizeof (float));
    for (c = 0; c < width; c++)
      p->facc[c] = -INFINITY;
    first += share;
    pthread_create (&threads[t], NULL, reduce_part, p);
  }
  for (t = 0; t < n_threads; t++)
    pthread_join (threads[t], NULL);
  for (t = 1; t < n_threads; t++)
    for (c = 0; c < width; c++) {
      parts[0].dacc[c] += parts[t].dacc[c];
      if (parts[t].facc[c] > parts[0].facc[c]
          || parts[t].facc[c] != parts[t].facc[c])
        parts[0].facc[c] = parts[t].facc[c];
    }
  if (op == MAX || op == COLMAX) {
    result = parts[0].facc[0];
  } else if (op == COLSUM) {
    result = parts[0].dacc[0];
  } else {
    result = 0;
    for (c = 0; c < LANES; c++)
      result += parts[0].dacc[c];
    if (op == MEAN)
      result /= (double) rows;
  }
  printf ("%.9g\n", result);
  return 0;

usage:
  fprintf (stderr, "usage: %s sum|max|mean|colsum|colmax FILE.npy\n",
      argv[0]);
  return 2;
}
