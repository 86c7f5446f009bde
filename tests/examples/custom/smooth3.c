/* gst-plan example kernel with a halo: the mean of each row and its two
 * neighbours (halo=1), scipy.ndimage.uniform_filter1d(x, 3, axis=0) with
 * the element's boundary mode, for float64 rows of any shape.
 */
#include <libplan/plan.h>

PLAN_CUSTOM_EXPORT (smooth3)
{
  const PlanCustomBuffer *in = &chunk->inputs[0];
  gsize n, r, i;

  /* the mode first: mode=reduce's init and finish phases have no inputs */
  if (chunk->mode != PLAN_CUSTOM_MODE_MAP || chunk->halo < 1
      || in->dtype != PLAN_DTYPE_FLOAT64
      || chunk->output->dtype != PLAN_DTYPE_FLOAT64
      || chunk->output->row_size != in->row_size) {
    g_snprintf (chunk->error, PLAN_CUSTOM_ERROR_SIZE,
        "smooth3 needs mode=map, halo=1 and float64 rows out as in");
    return 1;
  }
  n = in->row_size / sizeof (gdouble);
  for (r = 0; r < chunk->n_rows; r++) {
    const gdouble *x = (const gdouble *) in->data + r * n;
    gdouble *y = (gdouble *) chunk->output->data + r * n;

    for (i = 0; i < n; i++)
      y[i] = (x[i - n] + x[i] + x[i + n]) / 3;
  }
  return 0;
}
