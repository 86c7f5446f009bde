/* gst-plan example kernel: y = 2 x + 1 over float32, the elementwise work
 * planmap expr="x * 2 + 1" does, to compare the two. Its rows are
 * independent: run it with parallel=true.
 */
#include <libplan/plan.h>

PLAN_CUSTOM_EXPORT (axpb)
{
  const gfloat *x = chunk->inputs[0].data;
  gfloat *y = chunk->output->data;
  gsize i, n = chunk->n_rows * chunk->inputs[0].row_size / sizeof (gfloat);

  if (chunk->inputs[0].dtype != PLAN_DTYPE_FLOAT32) {
    g_snprintf (chunk->error, PLAN_CUSTOM_ERROR_SIZE, "axpb takes float32");
    return 1;
  }
  for (i = 0; i < n; i++)
    y[i] = x[i] * 2 + 1;
  return 0;
}
