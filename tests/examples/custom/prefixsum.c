/* gst-plan example kernel: the running (prefix) sum of a 1-D float64
 * stream, np.cumsum, across chunks: the sum so far is kept in the
 * element's state (state-size=8) and carried into the next chunk.
 *
 *   gst-launch-1.0 planfilesrc location=x.npy ! \
 *       plancustom library=./libprefixsum.so symbol=prefixsum state-size=8 ! \
 *       planfilesink location=c.npy
 */
#include <libplan/plan.h>

PLAN_CUSTOM_EXPORT (prefixsum)
{
  const gdouble *x;
  gdouble *y = chunk->output->data, *carry = chunk->state;
  gsize i;

  /* the mode first: mode=reduce's init and finish phases have no inputs */
  if (chunk->mode != PLAN_CUSTOM_MODE_MAP
      || chunk->state_size < sizeof (gdouble)
      || chunk->inputs[0].dtype != PLAN_DTYPE_FLOAT64
      || chunk->inputs[0].ndim != 0
      || chunk->output->dtype != PLAN_DTYPE_FLOAT64
      || chunk->output->ndim != 0) {
    g_snprintf (chunk->error, PLAN_CUSTOM_ERROR_SIZE,
        "prefixsum needs mode=map, state-size=8 and a 1-D float64 stream");
    return 1;
  }
  x = chunk->inputs[0].data;
  for (i = 0; i < chunk->n_rows; i++)
    y[i] = (*carry += x[i]);
  return 0;
}
