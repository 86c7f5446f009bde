/* gst-plan example kernel: a softmax over each row, as numpy writes it
 *   e = np.exp(x - x.max(axis=1, keepdims=True)); e / e.sum(axis=1, keepdims=True)
 * for float32 rows of any length.
 *
 *   gst-launch-1.0 planfilesrc location=x.npy ! \
 *       plancustom library=./libsoftmax.so symbol=softmax ! planfilesink location=y.npy
 */
#include <libplan/plan.h>
#include <math.h>

PLAN_CUSTOM_EXPORT (softmax)
{
  const PlanCustomBuffer *in = &chunk->inputs[0];
  gsize n, r, i;

  if (chunk->mode != PLAN_CUSTOM_MODE_MAP) {
    g_snprintf (chunk->error, PLAN_CUSTOM_ERROR_SIZE,
        "softmax is a map kernel: run it with mode=map");
    return 1;
  }
  if (in->dtype != PLAN_DTYPE_FLOAT32 || chunk->output->dtype != PLAN_DTYPE_FLOAT32
      || chunk->output->row_size != in->row_size) {
    g_snprintf (chunk->error, PLAN_CUSTOM_ERROR_SIZE,
        "softmax takes and gives float32 rows of one shape, not %s in "
        "and %s out", plan_dtype_to_string (in->dtype),
        plan_dtype_to_string (chunk->output->dtype));
    return 1;
  }
  n = in->row_size / sizeof (float);
  for (r = 0; r < chunk->n_rows; r++) {
    const float *x = (const float *) in->data + r * n;
    float *y = (float *) chunk->output->data + r * n;
    float max = -INFINITY, sum = 0;

    for (i = 0; i < n; i++)
      max = fmaxf (max, x[i]);
    for (i = 0; i < n; i++)
      sum += (y[i] = expf (x[i] - max));
    for (i = 0; i < n; i++)
      y[i] /= sum;
  }
  return 0;
}
