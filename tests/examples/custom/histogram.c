/* gst-plan example kernel: a running histogram, as a reduction.
 * params="LO HI" gives the range; out-shape gives the number of bins;
 * like np.histogram(x, bins, range=(LO, HI)): the last bin includes HI,
 * values outside the range (and NaN) are not counted.
 *
 *   gst-launch-1.0 planfilesrc location=x.npy ! \
 *       plancustom mode=reduce library=./libhistogram.so symbol=histogram \
 *           out-dtype=int64 out-shape=64 params="0 1" ! planfilesink location=h.npy
 */
#include <libplan/plan.h>
#include <stdlib.h>

PLAN_CUSTOM_EXPORT (histogram)
{
  const PlanCustomBuffer *out = chunk->output;
  gint64 *bins = out->data;
  gsize n_bins = out->ndim == 1 ? (gsize) out->shape[0] : 0, r, i, n;
  gdouble lo = 0, hi = 1;
  gchar *end;

  if (chunk->phase != PLAN_CUSTOM_PHASE_CHUNK)
    return 0;                   /* zero-filled is the identity */
  if (out->dtype != PLAN_DTYPE_INT64 || n_bins == 0) {
    g_snprintf (chunk->error, PLAN_CUSTOM_ERROR_SIZE,
        "histogram needs out-dtype=int64 and out-shape=BINS");
    return 1;
  }
  if (chunk->params) {
    lo = g_ascii_strtod (chunk->params, &end);
    hi = g_ascii_strtod (end, NULL);
  }
  if (!(hi > lo)) {
    g_snprintf (chunk->error, PLAN_CUSTOM_ERROR_SIZE,
        "params must be \"LO HI\" with HI > LO, not \"%s\"",
        chunk->params ? chunk->params : "");
    return 1;
  }
  n = chunk->inputs[0].row_size / plan_dtype_get_size (chunk->inputs[0].dtype);
  for (r = 0; r < chunk->n_rows; r++) {
    for (i = 0; i < n; i++) {
      gdouble v;
      gsize b;

      if (chunk->inputs[0].dtype == PLAN_DTYPE_FLOAT64)
        v = ((const gdouble *) chunk->inputs[0].data)[r * n + i];
      else if (chunk->inputs[0].dtype == PLAN_DTYPE_FLOAT32)
        v = ((const gfloat *) chunk->inputs[0].data)[r * n + i];
      else {
        g_snprintf (chunk->error, PLAN_CUSTOM_ERROR_SIZE,
            "histogram takes float32 or float64");
        return 1;
      }
      if (!(v >= lo && v <= hi))
        continue;
      /* numpy's rule: bin = floor((v - lo) / width), the top edge in the
       * last bin; computed as numpy does for uniform bins. */
      b = (gsize) ((v - lo) / (hi - lo) * n_bins);
      if (b >= n_bins)
        b = n_bins - 1;
      bins[b]++;
    }
  }
  return 0;
}
