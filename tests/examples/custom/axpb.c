/* gst-plan example kernel: y = 2 x + 1 over float32, the elementwise work
 * planmap expr="x * 2 + 1" does, to compare the two. Its rows are
 * independent: run it with parallel=true.
 */
#include <libplan/plan.h>

PLAN_CUSTOM_EXPORT (axpb)
{
  const gfloat *x;
  gfloat *y = chunk->output->data;
  gsize i, n;

  /* plancustom cannot know what a kernel does: a kernel checks that it
   * was given what it was written for, and says what it needs. */
  if (chunk->mode != PLAN_CUSTOM_MODE_MAP) {
    g_snprintf (chunk->error, PLAN_CUSTOM_ERROR_SIZE,
        "axpb is a map kernel: run it with mode=map");
    return 1;
  }
  if (chunk->inputs[0].dtype != PLAN_DTYPE_FLOAT32
      || chunk->output->dtype != PLAN_DTYPE_FLOAT32
      || chunk->output->row_size != chunk->inputs[0].row_size) {
    g_snprintf (chunk->error, PLAN_CUSTOM_ERROR_SIZE,
        "axpb takes and gives float32 rows of one shape (no out-dtype or "
        "out-shape)");
    return 1;
  }
  x = chunk->inputs[0].data;
  n = chunk->n_rows * chunk->inputs[0].row_size / sizeof (gfloat);
  for (i = 0; i < n; i++)
    y[i] = x[i] * 2 + 1;
  return 0;
}
