/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The reference for test_stencil_iterations.py: the jacobi-1d and
 * jacobi-2d kernels of the PolyBench/C 4.2 suite in double precision,
 * their loops and initial arrays as the suite defines them, run here in
 * plain C; the final array A is written as a .npy file.
 *
 *   jacobi_ref 1d|2d N TSTEPS out.npy
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
write_npy (const char *path, const double *a, long rows, long cols)
{
  char header[128];
  size_t len, n = (size_t) rows * (size_t) (cols > 0 ? cols : 1);
  FILE *f;

  if (cols > 0)
    snprintf (header, sizeof (header), "{'descr': '<f8', 'fortran_order': "
        "False, 'shape': (%ld, %ld), }", rows, cols);
  else
    snprintf (header, sizeof (header), "{'descr': '<f8', 'fortran_order': "
        "False, 'shape': (%ld,), }", rows);
  /* Padded with blanks and a newline to a multiple of 64 bytes. */
  len = strlen (header);
  while ((10 + len + 1) % 64 != 0)
    header[len++] = ' ';
  header[len++] = '\n';
  f = fopen (path, "wb");
  if (f == NULL)
    return 1;
  fwrite ("\x93NUMPY\x01\x00", 1, 8, f);
  fputc ((int) (len & 0xff), f);
  fputc ((int) (len >> 8), f);
  fwrite (header, 1, len, f);
  fwrite (a, sizeof (double), n, f);
  return fclose (f) != 0;
}

static void
jacobi_1d (long n, long tsteps, double *A, double *B)
{
  long t, i;

  for (i = 0; i < n; i++) {
    A[i] = ((double) i + 2) / n;
    B[i] = ((double) i + 3) / n;
  }
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (i = 1; i < n - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
}

static void
jacobi_2d (long n, long tsteps, double *A, double *B)
{
  long t, i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      A[i * n + j] = ((double) i * (j + 2) + 2) / n;
      B[i * n + j] = ((double) i * (j + 3) + 3) / n;
    }
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        B[i * n + j] = 0.2 * (A[i * n + j] + A[i * n + j - 1] +
            A[i * n + 1 + j] + A[(1 + i) * n + j] + A[(i - 1) * n + j]);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i * n + j] = 0.2 * (B[i * n + j] + B[i * n + j - 1] +
            B[i * n + 1 + j] + B[(1 + i) * n + j] + B[(i - 1) * n + j]);
  }
}

int
main (int argc, char **argv)
{
  long n, tsteps;
  double *A, *B;
  int two_d, ret;

  if (argc != 5 || (strcmp (argv[1], "1d") != 0
          && strcmp (argv[1], "2d") != 0)) {
    fprintf (stderr, "usage: %s 1d|2d N TSTEPS out.npy\n", argv[0]);
    return 2;
  }
  two_d = strcmp (argv[1], "2d") == 0;
  n = atol (argv[2]);
  tsteps = atol (argv[3]);
  if (n < 3 || tsteps < 0) {
    fprintf (stderr, "N must be at least 3 and TSTEPS not negative\n");
    return 2;
  }
  A = malloc (sizeof (double) * n * (two_d ? n : 1));
  B = malloc (sizeof (double) * n * (two_d ? n : 1));
  if (A == NULL || B == NULL)
    return 1;
  if (two_d)
    jacobi_2d (n, tsteps, A, B);
  else
    jacobi_1d (n, tsteps, A, B);
  ret = write_npy (argv[4], A, n, two_d ? n : 0);
  free (A);
  free (B);
  return ret;
}
