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
