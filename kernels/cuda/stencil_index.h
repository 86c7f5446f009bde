/* gst-plan: where a stencil's cells come from, written once for every
 * device: the boundary rule (plan_stencil_map) and the rows of a launch.
 * The one text is
 *  - embedded into the generated CUDA stencil kernel, which NVRTC compiles
 *    (libplan/stencil/planstencilkernel-device.c),
 *  - compiled as C into the host kernel that runs the same stencil on the
 *    cpu and sim devices (libplan/stencil/planstencilkernel-private.h), and
 *  - compiled as C into plan_boundary_map_index()
 *    (libplan/stencil/planboundary.c), which the CPU stencil's padding and
 *    halos use,
 * so that the index arithmetic the GPU runs is the arithmetic the CPU and
 * sim tests check.
 *
 * Plain C: the includer defines PLAN_STENCIL_FN (`static inline` in C,
 * `__host__ __device__ static inline` in CUDA) first. */

#ifndef PLAN_STENCIL_INDEX_H
#define PLAN_STENCIL_INDEX_H

/* The most places the rows of one launch come from: the rows kept from
 * the last chunks, the chunk, the stream's first rows and its last
 * rows (boundary=wrap along the streaming axis). */
#define PLAN_STENCIL_MAX_SEGS 4

/* Boundary modes, numbered as PlanBoundary. */
#define PLAN_STENCIL_CONSTANT 0
#define PLAN_STENCIL_NEAREST 1
#define PLAN_STENCIL_REFLECT 2
#define PLAN_STENCIL_MIRROR 3
#define PLAN_STENCIL_WRAP 4
#define PLAN_STENCIL_VALID 5

/* Rows [first[k], first[k] + count[k]) of the stream lie at ptr[k], one
 * after the other; a row may be in several (they hold the same data). */
typedef struct
{
  const char *ptr[PLAN_STENCIL_MAX_SEGS];
  long long first[PLAN_STENCIL_MAX_SEGS];
  long long count[PLAN_STENCIL_MAX_SEGS];
  int n;
} plan_stencil_segs;

PLAN_STENCIL_FN long long
plan_stencil_mod (long long a, long long n)
{
  long long r = a % n;
  return r < 0 ? r + n : r;
}

/* The element a cell at @index of an axis of @n elements holds under
 * @boundary (scipy.ndimage's modes), -1 for the constant: the rule of
 * plan_boundary_map_index(), which calls this. */
PLAN_STENCIL_FN long long
plan_stencil_map (int boundary, long long index, long long n)
{
  long long r;

  if (index >= 0 && index < n)
    return index;
  switch (boundary) {
    case PLAN_STENCIL_NEAREST:
      return index < 0 ? 0 : n - 1;
    case PLAN_STENCIL_REFLECT:
      r = plan_stencil_mod (index, 2 * n);
      return r < n ? r : 2 * n - 1 - r;
    case PLAN_STENCIL_MIRROR:
      if (n == 1)
        return 0;
      r = plan_stencil_mod (index, 2 * n - 2);
      return r < n ? r : 2 * n - 2 - r;
    case PLAN_STENCIL_WRAP:
      return plan_stencil_mod (index, n);
    default:
      return -1;
  }
}

/* The first byte of stream row @row, or 0 when no segment has it (the
 * caller keeps every row a launch reads). */
PLAN_STENCIL_FN const char *
plan_stencil_row (const plan_stencil_segs * s, long long row,
    unsigned long long row_bytes)
{
  int k;

  for (k = 0; k < s->n; k++) {
    if (row >= s->first[k] && row < s->first[k] + s->count[k])
      return s->ptr[k] + (unsigned long long) (row - s->first[k]) * row_bytes;
  }
  return 0;
}

#endif /* PLAN_STENCIL_INDEX_H */
