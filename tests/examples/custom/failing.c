/* A kernel that fails at a given row (params), one declared without
 * PLAN_CUSTOM_EXPORT, and one that never returns, for the error tests. */
#include <libplan/plan.h>
#include <stdlib.h>

PLAN_CUSTOM_EXPORT (fail_at)
{
  guint64 at = chunk->params ? g_ascii_strtoull (chunk->params, NULL, 10) : 0;

  if (chunk->first_row + chunk->n_rows > at) {
    g_snprintf (chunk->error, PLAN_CUSTOM_ERROR_SIZE, "bad value near row %"
        G_GUINT64_FORMAT, at);
    return 3;
  }
  memcpy (chunk->output->data, chunk->inputs[0].data,
      chunk->n_rows * chunk->inputs[0].row_size);
  return 0;
}

G_MODULE_EXPORT gint undeclared (PlanCustomChunk * chunk);
G_MODULE_EXPORT gint
undeclared (PlanCustomChunk * chunk)
{
  return 0;
}

/* Pretends to have been built for another version of the signature. */
G_MODULE_EXPORT const guint future_plan_custom_version = PLAN_CUSTOM_VERSION + 1;
G_MODULE_EXPORT gint future (PlanCustomChunk * chunk);
G_MODULE_EXPORT gint
future (PlanCustomChunk * chunk)
{
  return 0;
}

/* Never returns (sleeping, so as not to take a CPU from the tests around
 * it): what stopping a pipeline cannot interrupt. */
PLAN_CUSTOM_EXPORT (never_returns)
{
  for (;;)
    g_usleep (G_USEC_PER_SEC / 10);
  return 0;
}

/* The mistakes plancustom's check mode catches (docs/plancustom.md). */

/* A copy that writes 16 bytes past the end of its output. */
PLAN_CUSTOM_EXPORT (overrun_after)
{
  gsize n = chunk->n_rows * chunk->output->row_size;
  guint8 *out = chunk->output->data;

  memcpy (out, chunk->inputs[0].data, n);
  memset (out + n, 0x55, 16);
  return 0;
}

/* A copy that writes 64 bytes before the start of its output. */
PLAN_CUSTOM_EXPORT (overrun_before)
{
  gsize n = chunk->n_rows * chunk->output->row_size;
  guint8 *out = chunk->output->data;

  memcpy (out, chunk->inputs[0].data, n);
  memset (out - 64, 0x55, 64);
  return 0;
}

/* A copy that leaves the rows of the stream from params (default 100) to
 * 9 past it unwritten: they keep what the output buffer held before. */
PLAN_CUSTOM_EXPORT (skips_rows)
{
  guint64 from = chunk->params ? g_ascii_strtoull (chunk->params, NULL, 10) :
      100;
  gsize row = chunk->output->row_size, r;
  guint8 *out = chunk->output->data;
  const guint8 *in = chunk->inputs[0].data;

  for (r = 0; r < chunk->n_rows; r++)
    if (chunk->first_row + r < from || chunk->first_row + r >= from + 10)
      memcpy (out + r * row, in + r * row, row);
  return 0;
}

/* A copy that also doubles its input in place (inputs are read-only). */
PLAN_CUSTOM_EXPORT (writes_input)
{
  gsize n = chunk->n_rows * chunk->output->row_size;
  guint8 *in = (guint8 *) chunk->inputs[0].data;

  memcpy (chunk->output->data, in, n);
  in[8] = 0x55;
  return 0;
}

/* A reduction that writes 16 bytes past its accumulator. */
PLAN_CUSTOM_EXPORT (reduce_overrun)
{
  guint8 *acc = chunk->output->data;

  if (chunk->phase == PLAN_CUSTOM_PHASE_CHUNK)
    memset (acc + chunk->output->row_size, 0x55, 16);
  return 0;
}

/* A copy that also writes into its input's halo rows (run with halo=1):
 * the byte before its first row, or with params=after the byte after its
 * last. */
PLAN_CUSTOM_EXPORT (writes_halo)
{
  gsize n = chunk->n_rows * chunk->output->row_size;
  guint8 *in = (guint8 *) chunk->inputs[0].data;

  memcpy (chunk->output->data, in, n);
  if (g_strcmp0 (chunk->params, "after") == 0)
    in[chunk->n_rows * chunk->inputs[0].row_size] = 0x55;
  else
    in[-1] = 0x55;
  return 0;
}

/* A reduction that fails in its init call (params=init) or its finish
 * call (otherwise), after folding nothing. */
PLAN_CUSTOM_EXPORT (reduce_fails)
{
  PlanCustomPhase when = g_strcmp0 (chunk->params, "init") == 0 ?
      PLAN_CUSTOM_PHASE_INIT : PLAN_CUSTOM_PHASE_FINISH;

  if (chunk->phase != when)
    return 0;
  g_snprintf (chunk->error, PLAN_CUSTOM_ERROR_SIZE, "nothing to give");
  return 4;
}
