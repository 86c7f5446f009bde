/* The plain C reference for bench_map.py: read two float32 .npy files
 * chunk by chunk, compute, write a raw result. No threads, no tricks: what
 * a careful C programmer writes first.
 *
 *   cloop_map add|nonlinear|sum a.npy b.npy out.raw
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (1 << 18)         /* elements: 1 MiB of float32 */

static long
skip_npy_header (FILE * f)
{
  unsigned char pre[10];
  if (fread (pre, 1, 10, f) != 10 || memcmp (pre, "\x93NUMPY", 6) != 0)
    return -1;
  long hlen = pre[6] == 1 ? pre[8] | pre[9] << 8 : -1;
  if (hlen < 0) {
    unsigned char more[2];
    if (fread (more, 1, 2, f) != 2)
      return -1;
    hlen = pre[8] | pre[9] << 8 | more[0] << 16 | (long) more[1] << 24;
    return fseek (f, 12 + hlen, SEEK_SET);
  }
  return fseek (f, 10 + hlen, SEEK_SET);
}

int
main (int argc, char **argv)
{
  if (argc < 4)
    return 2;
  int sum = strcmp (argv[1], "sum") == 0;
  int nonlinear = strcmp (argv[1], "nonlinear") == 0;
  FILE *fa = fopen (argv[2], "rb");
  FILE *fb = sum ? NULL : fopen (argv[3], "rb");
  FILE *fo = sum ? NULL : fopen (argv[4], "wb");
  float *a = malloc (CHUNK * 4), *b = malloc (CHUNK * 4), *o = malloc (CHUNK * 4);
  double total = 0;
  size_t n;

  if (!fa || (!sum && (!fb || !fo)) || skip_npy_header (fa) != 0
      || (fb && skip_npy_header (fb) != 0))
    return 1;
  while ((n = fread (a, 4, CHUNK, fa)) > 0) {
    if (sum) {
      for (size_t i = 0; i < n; i++)
        total += a[i];
      continue;
    }
    if (fread (b, 4, n, fb) != n)
      return 1;
    if (nonlinear)
      for (size_t i = 0; i < n; i++)
        o[i] = 2 * a[i] * b[i] + sinf (a[i]);
    else
      for (size_t i = 0; i < n; i++)
        o[i] = a[i] + b[i];
    if (fwrite (o, 4, n, fo) != n)
      return 1;
  }
  if (sum)
    printf ("%.9g\n", total);
  return fo && fclose (fo) != 0;
}
