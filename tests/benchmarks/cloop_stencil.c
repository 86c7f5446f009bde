/* The plain C reference for bench_stencil.py: read a float32 .npy file
 * whole, compute a stencil with boundary=nearest, write a raw result. No
 * threads, no tricks: what a careful C programmer writes first.
 *
 *   cloop_stencil 1d n in.npy out.raw          0.25 x + 0.5 y + 0.25 z
 *   cloop_stencil 2d rows cols in.npy out.raw  n + s + e + w - 4 c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long
skip_npy_header (FILE * f)
{
  unsigned char pre[10];
  if (fread (pre, 1, 10, f) != 10 || memcmp (pre, "\x93NUMPY", 6) != 0)
    return -1;
  if (pre[6] == 1)
    return fseek (f, 10 + (pre[8] | pre[9] << 8), SEEK_SET);
  unsigned char more[2];
  if (fread (more, 1, 2, f) != 2)
    return -1;
  return fseek (f, 12 + (pre[8] | pre[9] << 8 | more[0] << 16 |
          (long) more[1] << 24), SEEK_SET);
}

static long
clampl (long i, long n)
{
  return i < 0 ? 0 : i >= n ? n - 1 : i;
}

int
main (int argc, char **argv)
{
  int two_d = argc == 6 && strcmp (argv[1], "2d") == 0;
  long rows = atol (argv[2]), cols = two_d ? atol (argv[3]) : 1;
  const char *in = argv[two_d ? 4 : 3], *outp = argv[two_d ? 5 : 4];
  size_t n = (size_t) rows * cols;
  float *a = malloc (n * 4), *o = malloc (n * 4);
  FILE *f = fopen (in, "rb"), *fo = fopen (outp, "wb");

  if (!a || !o || !f || !fo || skip_npy_header (f) != 0
      || fread (a, 4, n, f) != n)
    return 1;
  if (!two_d) {
    for (long i = 0; i < rows; i++)
      o[i] = 0.25f * a[clampl (i - 1, rows)] + 0.5f * a[i] +
          0.25f * a[clampl (i + 1, rows)];
  } else {
    for (long r = 0; r < rows; r++) {
      const float *up = a + clampl (r - 1, rows) * cols;
      const float *mid = a + r * cols;
      const float *down = a + clampl (r + 1, rows) * cols;
      float *out = o + r * cols;
      for (long c = 0; c < cols; c++)
        out[c] = up[c] + down[c] + mid[clampl (c + 1, cols)] +
            mid[clampl (c - 1, cols)] - 4 * mid[c];
    }
  }
  if (fwrite (o, 4, n, fo) != n || fclose (fo) != 0)
    return 1;
  return 0;
}
