/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanComm: point-to-point messages between the ranks of an MPI job for
 * sharded elements (see the PlanShard section in planshard.c). The MPI
 * calls are in the MPI module (plancomm-module.c), loaded the first time
 * the communicator is asked for. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/core/plan-private.h"
#include "plancomm-private.h"
#include <libplan/planerror.h>

#include <stdlib.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (plan_shard_debug);
#define GST_CAT_DEFAULT plan_shard_debug

/* Tags: the abort message has tag 0; owners x 4 purposes take the tags
 * above it up to the MPI library's MPI_TAG_UB (2^31 - 1 for Open MPI; at
 * least 32,767 anywhere), so that two elements' names rarely share a tag. */
#define ABORT_TAG 0
static guint n_owner_tags = 8000;

/**
 * plan_comm_tag:
 * @comm: the #PlanComm the message goes through
 * @owner: the name of the element that sends or receives the message
 * @purpose: what the message is for
 *
 * Returns: the tag of @owner's messages for @purpose, the same on every
 *   rank
 *
 * Since: 0.1
 */
gint
plan_comm_tag (PlanComm * comm, const gchar * owner, PlanCommPurpose purpose)
{
  g_return_val_if_fail (comm != NULL && owner != NULL, 0);

  /* g_str_hash is djb2: stable across processes and builds. */
  return (gint) (4 + (g_str_hash (owner) % n_owner_tags) * 4 + purpose);
}

/* The connection ------------------------------------------------------- */

typedef struct
{
  GBytes *data;
  PlanMpiRequest request;
} Pending;

struct _PlanComm
{
  guint rank;
  guint size;
  GMutex lock;
  GArray *pending;              /* Pending: sends not known complete */
  gchar *failure;               /* why the job failed, once it has */
  gboolean aborted;             /* this rank told the others */
};

#if HAVE_MPI
/* The module's file: libplan/meson.build's name. */
#define MODULE_NAME "libplan-mpi.so"

static PlanComm *world;
static const PlanMpiModule *mpi;        /* set once, with world */

/* Sends that completed are let go. Called with the lock. */
static void
reap_sends (PlanComm * comm)
{
  guint i = 0;

  while (i < comm->pending->len) {
    Pending *p = &g_array_index (comm->pending, Pending, i);

    if (mpi->test (&p->request)) {
      g_bytes_unref (p->data);
      g_array_remove_index_fast (comm->pending, i);
    } else {
      i++;
    }
  }
}

static gboolean check_failed (PlanComm * comm);

/* At exit: MPI wants every rank to finalize. Sends that no rank will
 * receive (after a failure) are abandoned rather than waited for; so are
 * sends still not received after ten seconds. */
static void
finalize_world (void)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  if (mpi->finalized () || world == NULL)
    return;
  g_mutex_lock (&world->lock);
  for (;;) {
    reap_sends (world);
    if (world->pending->len == 0 || check_failed (world)
        || g_get_monotonic_time () > deadline)
      break;
    g_mutex_unlock (&world->lock);
    g_usleep (1000);
    g_mutex_lock (&world->lock);
  }
  if (world->pending->len > 0)
    GST_WARNING ("rank %u: %u messages not received by their ranks",
        world->rank, world->pending->len);
  g_mutex_unlock (&world->lock);
  mpi->finalize ();
}

static gboolean
init_world (GError ** error)
{
  gchar *tried = NULL;
  gboolean started = FALSE, ok;
  guint rank = 0, size = 1;
  gint ub = 0;

  mpi = _plan_module_load (MODULE_NAME, PLAN_MPI_MODULE_GET,
      PLAN_MPI_MODULE_VERSION, sizeof (PlanMpiModule), TRUE, &tried);
  if (mpi == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "MPI cannot be used: gst-plan's MPI module (%s) could not be "
        "loaded: tried %s", MODULE_NAME, tried);
    g_free (tried);
    return FALSE;
  }
  ok = mpi->init (&started, &rank, &size, &ub, error);
  if (started)
    atexit (finalize_world);
  if (!ok)
    return FALSE;
  /* The same library on every rank gives every rank the same bound. */
  if (ub > 32767)
    n_owner_tags = (guint) ((ub - 4) / 4);
  world = g_new0 (PlanComm, 1);
  world->rank = rank;
  world->size = size;
  g_mutex_init (&world->lock);
  world->pending = g_array_new (FALSE, FALSE, sizeof (Pending));
  GST_INFO ("rank %u of %u", rank, size);
  return TRUE;
}
#endif

/**
 * plan_comm_get_world:
 * @error: return location for a #GError
 *
 * Initialises MPI on first use (with MPI_THREAD_MULTIPLE; MPI is
 * finalised when the process exits) and returns the connection to every
 * rank of the job. A process not started by `mpirun` is a job of one
 * rank.
 *
 * Returns: (transfer none): the process's connection, or %NULL with
 *   @error set (a build without MPI, or MPI failed to start)
 *
 * Since: 0.1
 */
PlanComm *
plan_comm_get_world (GError ** error)
{
#if HAVE_MPI
  static GMutex init_lock;
  static gboolean tried;
  static GError *init_error;
  PlanComm *comm;

  g_mutex_lock (&init_lock);
  if (!tried) {
    GST_DEBUG_CATEGORY_INIT (plan_shard_debug, "planshard", 0,
        "gst-plan: runs sharded across MPI ranks");
    tried = TRUE;
    init_world (&init_error);
  }
  comm = world;
  if (comm == NULL)
    g_propagate_error (error, g_error_copy (init_error));
  g_mutex_unlock (&init_lock);
  return comm;
#else
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
      "this build of gst-plan has no MPI support (build it with Open MPI's "
      "libopenmpi-dev installed, or -Dmpi=enabled)");
  return NULL;
#endif
}

/**
 * plan_comm_get_rank:
 * @comm: a #PlanComm
 *
 * Returns: this process's rank, from 0
 *
 * Since: 0.1
 */
guint
plan_comm_get_rank (PlanComm * comm)
{
  g_return_val_if_fail (comm != NULL, 0);
  return comm->rank;
}

/**
 * plan_comm_get_size:
 * @comm: a #PlanComm
 *
 * Returns: the number of ranks of the job
 *
 * Since: 0.1
 */
guint
plan_comm_get_size (PlanComm * comm)
{
  g_return_val_if_fail (comm != NULL, 1);
  return comm->size;
}

/**
 * plan_comm_send:
 * @comm: a #PlanComm
 * @peer: the rank to send to, not this one
 * @tag: the message's tag (plan_comm_tag())
 * @data: (transfer none): the message
 *
 * Starts sending @data to @peer and returns at once; @data is kept until
 * the send is done. Messages with the same peer and tag arrive in the
 * order they were sent.
 *
 * Since: 0.1
 */
void
plan_comm_send (PlanComm * comm, guint peer, gint tag, GBytes * data)
{
#if HAVE_MPI
  Pending p;
  gsize size;
  gconstpointer bytes;

  g_return_if_fail (comm != NULL && data != NULL);
  g_return_if_fail (peer < comm->size && peer != comm->rank);

  p.data = g_bytes_ref (data);
  bytes = g_bytes_get_data (data, &size);
  g_return_if_fail (size <= G_MAXINT);
  g_mutex_lock (&comm->lock);
  mpi->isend (bytes, (gint) size, (gint) peer, tag, &p.request);
  g_array_append_val (comm->pending, p);
  reap_sends (comm);
  g_mutex_unlock (&comm->lock);
  GST_LOG ("sent %" G_GSIZE_FORMAT " bytes to rank %u, tag %d", size, peer,
      tag);
#endif
}

#if HAVE_MPI
/* Whether the job has failed: a rank said so. Called with the lock. */
static gboolean
check_failed (PlanComm * comm)
{
  GBytes *why;
  gint source = 0;

  if (comm->failure != NULL)
    return TRUE;
  why = mpi->improbe (PLAN_MPI_ANY_SOURCE, ABORT_TAG, &source);
  if (why) {
    gsize n;
    const gchar *text = g_bytes_get_data (why, &n);

    comm->failure = g_strdup_printf ("rank %d failed: %.*s", source,
        (int) n, text);
    g_bytes_unref (why);
    GST_WARNING ("%s", comm->failure);
  }
  return comm->failure != NULL;
}
#endif

/**
 * plan_comm_recv:
 * @comm: a #PlanComm
 * @peer: the rank to receive from, not this one
 * @tag: the message's tag
 * @cancellable: (nullable): a #GCancellable to stop waiting
 * @error: return location for a #GError
 *
 * Waits for the next message from @peer with @tag. It fails, rather than
 * waits for ever, when another rank fails (plan_comm_abort()) or
 * @cancellable is cancelled.
 *
 * Returns: (transfer full): the message, or %NULL with @error set
 *
 * Since: 0.1
 */
GBytes *
plan_comm_recv (PlanComm * comm, guint peer, gint tag,
    GCancellable * cancellable, GError ** error)
{
#if HAVE_MPI
  gulong delay = 10;

  g_return_val_if_fail (comm != NULL, NULL);
  g_return_val_if_fail (peer < comm->size && peer != comm->rank, NULL);

  for (;;) {
    GBytes *data;

    if (g_cancellable_set_error_if_cancelled (cancellable, error))
      return NULL;
    g_mutex_lock (&comm->lock);
    data = mpi->improbe ((gint) peer, tag, NULL);
    if (data) {
      g_mutex_unlock (&comm->lock);
      GST_LOG ("received %" G_GSIZE_FORMAT " bytes from rank %u, tag %d",
          g_bytes_get_size (data), peer, tag);
      return data;
    }
    if (check_failed (comm))
      goto failed;
    reap_sends (comm);
    g_mutex_unlock (&comm->lock);
    /* Polling, so that a failure or a cancellation is seen: from 10 us
     * to 1 ms between looks. */
    g_usleep (delay);
    delay = MIN (delay * 2, 1000);
  }

failed:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "%s", comm->failure);
  g_mutex_unlock (&comm->lock);
  return NULL;
#else
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
      "this build of gst-plan has no MPI support");
  return NULL;
#endif
}

static void
free_parts (GBytes ** parts, guint n)
{
  guint r;

  for (r = 0; r < n; r++)
    if (parts[r])
      g_bytes_unref (parts[r]);
  g_free (parts);
}

/**
 * plan_comm_gather:
 * @comm: a #PlanComm
 * @tag: the messages' tag
 * @mine: (transfer none): this rank's part
 * @all: (out) (optional) (array) (transfer full): on rank 0, every rank's
 *   part, in rank order (free each, then the array); %NULL elsewhere
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Collects a part from every rank on rank 0.
 *
 * Returns: %TRUE, or %FALSE with @error set (see plan_comm_recv())
 *
 * Since: 0.1
 */
gboolean
plan_comm_gather (PlanComm * comm, gint tag, GBytes * mine, GBytes *** all,
    GCancellable * cancellable, GError ** error)
{
  GBytes **parts;
  guint r;

  g_return_val_if_fail (comm != NULL && mine != NULL, FALSE);

  if (all)
    *all = NULL;
  if (comm->rank != 0) {
    plan_comm_send (comm, 0, tag, mine);
    return TRUE;
  }
  parts = g_new0 (GBytes *, comm->size);
  parts[0] = g_bytes_ref (mine);
  for (r = 1; r < comm->size; r++) {
    parts[r] = plan_comm_recv (comm, r, tag, cancellable, error);
    if (parts[r] == NULL)
      goto failed;
  }
  if (all) {
    *all = parts;
    return TRUE;
  }
  free_parts (parts, comm->size);
  return TRUE;

failed:
  free_parts (parts, comm->size);
  return FALSE;
}

/**
 * plan_comm_broadcast:
 * @comm: a #PlanComm
 * @tag: the message's tag
 * @data: (transfer none) (nullable): on rank 0, what to send; ignored
 *   elsewhere
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Sends @data from rank 0 to every rank.
 *
 * Returns: (transfer full): @data on every rank, or %NULL with @error set
 *
 * Since: 0.1
 */
GBytes *
plan_comm_broadcast (PlanComm * comm, gint tag, GBytes * data,
    GCancellable * cancellable, GError ** error)
{
  guint r;

  g_return_val_if_fail (comm != NULL, NULL);

  if (comm->rank != 0)
    return plan_comm_recv (comm, 0, tag, cancellable, error);
  g_return_val_if_fail (data != NULL, NULL);
  for (r = 1; r < comm->size; r++)
    plan_comm_send (comm, r, tag, data);
  return g_bytes_ref (data);
}

/* Whether the job is still whole: %FALSE, with @error set to the failure
 * a rank told (or this one's own), once any rank has failed. It waits up
 * to @wait_ms for such news: a failure this rank sees may be another's
 * consequence (its output removed), told by a message still on its way.
 * A build without MPI has nothing to fail. */
gboolean
_plan_comm_check_failed (PlanComm * comm, guint wait_ms, GError ** error)
{
#if HAVE_MPI
  gint64 until = g_get_monotonic_time () + (gint64) wait_ms * 1000;
  gboolean failed;

  g_return_val_if_fail (comm != NULL, FALSE);

  for (;;) {
    g_mutex_lock (&comm->lock);
    failed = check_failed (comm);
    if (failed)
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "%s", comm->failure);
    g_mutex_unlock (&comm->lock);
    if (failed || g_get_monotonic_time () >= until)
      return !failed;
    g_usleep (1000);
  }
#else
  return TRUE;
#endif
}

/**
 * plan_comm_abort:
 * @comm: a #PlanComm
 * @why: what went wrong on this rank
 *
 * Tells every other rank that this one failed, once: their waits for
 * messages then fail with @why. Elements call it when they fail in a
 * sharded run, so that no rank waits for ever for one that stopped.
 *
 * Since: 0.1
 */
void
plan_comm_abort (PlanComm * comm, const gchar * why)
{
#if HAVE_MPI
  GBytes *data;
  guint r;

  g_return_if_fail (comm != NULL && why != NULL);

  g_mutex_lock (&comm->lock);
  if (comm->aborted) {
    g_mutex_unlock (&comm->lock);
    return;
  }
  comm->aborted = TRUE;
  /* A failure that came from another rank reached every rank from there:
   * passing it on would only wrap its message in this rank's. */
  if (check_failed (comm)) {
    g_mutex_unlock (&comm->lock);
    return;
  }
  comm->failure = g_strdup_printf ("rank %u failed: %s", comm->rank, why);
  g_mutex_unlock (&comm->lock);
  GST_WARNING ("telling the other ranks: %s", why);
  data = g_bytes_new (why, strlen (why));
  for (r = 0; r < comm->size; r++)
    if (r != comm->rank)
      plan_comm_send (comm, r, ABORT_TAG, data);
  g_bytes_unref (data);
#endif
}

/* The same plan on every rank --------------------------------------------- */

/* Whether the process was started as one of several ranks, by the
 * environment MPI launchers give their processes: Open MPI's mpirun, and
 * the PMI of MPICH's hydra and Slurm's srun. */
static gboolean
launched_as_ranks (void)
{
  const gchar *vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (vars); i++) {
    const gchar *v = g_getenv (vars[i]);

    if (v && g_ascii_strtoull (v, NULL, 10) > 1)
      return TRUE;
  }
  return FALSE;
}

/**
 * plan_comm_tell_failure:
 * @why: what went wrong on this rank
 *
 * When this process is one of several ranks of an MPI job (started by
 * mpirun or srun), tells the other ranks that it failed, as
 * plan_comm_abort() does, so that none waits for ever for a message from
 * it; else does nothing (and starts no MPI). For an element that fails
 * before it knows whether its stream is sharded (a sink's file that
 * cannot be made when the caps come).
 *
 * Since: 0.1
 */
void
plan_comm_tell_failure (const gchar * why)
{
  PlanComm *comm;

  g_return_if_fail (why != NULL);

  if (!launched_as_ranks () || (comm = plan_comm_get_world (NULL)) == NULL)
    return;
  plan_comm_abort (comm, why);
}

/* A property value as a pipeline description would write it, or NULL for
 * values that are not settings (objects, pointers). */
static gchar *
describe_value (const GValue * value)
{
  GType t = G_TYPE_FUNDAMENTAL (G_VALUE_TYPE (value));

  if (t == G_TYPE_OBJECT || t == G_TYPE_POINTER || t == G_TYPE_PARAM
      || (t == G_TYPE_BOXED && G_VALUE_TYPE (value) != GST_TYPE_CAPS
          && G_VALUE_TYPE (value) != GST_TYPE_STRUCTURE))
    return NULL;
  return gst_value_serialize (value);
}

/* One line: the element's path and factory, the properties set to other
 * than their defaults, and where its source pads lead. */
static gchar *
describe_element (GstElement * element)
{
  GstElementFactory *factory = gst_element_get_factory (element);
  gchar *path = gst_object_get_path_string (GST_OBJECT (element));
  GString *line = g_string_new (path);
  GParamSpec **specs;
  GList *pads = NULL, *l;
  guint i, n;

  g_string_append_printf (line, " (%s)", factory ?
      GST_OBJECT_NAME (factory) : G_OBJECT_TYPE_NAME (element));
  specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (element), &n);
  for (i = 0; i < n; i++) {
    GParamSpec *p = specs[i];
    GValue v = G_VALUE_INIT;
    gchar *text;

    if ((p->flags & G_PARAM_READWRITE) != G_PARAM_READWRITE
        || (p->flags & G_PARAM_DEPRECATED) || g_str_equal (p->name, "name"))
      continue;
    g_value_init (&v, p->value_type);
    g_object_get_property (G_OBJECT (element), p->name, &v);
    if (!g_param_value_defaults (p, &v) && (text = describe_value (&v))) {
      g_string_append_printf (line, " %s=%s", p->name, text);
      g_free (text);
    }
    g_value_unset (&v);
  }
  g_free (specs);

  /* The pads are taken under the element's lock and followed without it,
   * so that no other object's lock (a peer's, its element's, the bins
   * above) is taken while the element's is held: GStreamer takes those in
   * other orders, and the two could deadlock. */
  GST_OBJECT_LOCK (element);
  for (l = element->srcpads; l; l = l->next)
    pads = g_list_prepend (pads, gst_object_ref (l->data));
  GST_OBJECT_UNLOCK (element);
  pads = g_list_reverse (pads);
  for (l = pads; l; l = l->next) {
    GstPad *peer = gst_pad_get_peer (l->data);
    GstElement *to = peer ? gst_pad_get_parent_element (peer) : NULL;

    if (to) {
      gchar *to_path = gst_object_get_path_string (GST_OBJECT (to));

      g_string_append_printf (line, " %s->%s.%s", GST_PAD_NAME (l->data),
          to_path, GST_PAD_NAME (peer));
      g_free (to_path);
      gst_object_unref (to);
    }
    gst_clear_object (&peer);
  }
  g_list_free_full (pads, gst_object_unref);
  g_free (path);
  return g_string_free (line, FALSE);
}

static gint
compare_lines (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar **) a, *(const gchar **) b);
}

/* The pipeline @element is in, one line per element, sorted. */
static gchar *
describe_pipeline (GstElement * element)
{
  GstObject *top = gst_object_ref (GST_OBJECT (element)), *parent;
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  GValue item = G_VALUE_INIT;
  GstIterator *it;
  gboolean done = FALSE;
  gchar *text;

  while ((parent = gst_object_get_parent (top))) {
    gst_object_unref (top);
    top = parent;
  }
  g_ptr_array_add (lines, describe_element (GST_ELEMENT (top)));
  it = GST_IS_BIN (top) ? gst_bin_iterate_recurse (GST_BIN (top)) : NULL;
  while (it && !done) {
    switch (gst_iterator_next (it, &item)) {
      case GST_ITERATOR_OK:
        g_ptr_array_add (lines, describe_element (g_value_get_object (&item)));
        g_value_reset (&item);
        break;
      case GST_ITERATOR_RESYNC:
        gst_iterator_resync (it);
        g_ptr_array_set_size (lines, 1);
        break;
      default:
        done = TRUE;
        break;
    }
  }
  g_value_unset (&item);
  if (it)
    gst_iterator_free (it);
  gst_object_unref (top);
  g_ptr_array_sort (lines, compare_lines);
  g_ptr_array_add (lines, NULL);
  text = g_strjoinv ("\n", (gchar **) lines->pdata);
  g_ptr_array_unref (lines);
  return text;
}

/* The words of @a that @b lacks, a property missing from @b said as
 * its default ("op=(default)"). */
static gchar *
words_only_in (gchar ** a, gchar ** b)
{
  GString *out = g_string_new (NULL);
  guint i;

  for (i = 1; a[i]; i++) {
    gboolean found = FALSE;
    guint j;

    for (j = 1; b[j] && !found; j++)
      found = g_str_equal (a[i], b[j]);
    if (!found)
      g_string_append_printf (out, "%s%s", out->len ? " " : "", a[i]);
  }
  for (i = 1; b[i]; i++) {
    const gchar *eq = strchr (b[i], '=');
    gboolean named = FALSE;
    guint j;

    for (j = 1; a[j] && eq && !named; j++)
      named = strncmp (a[j], b[i], eq - b[i] + 1) == 0;
    if (eq && !named)
      g_string_append_printf (out, "%s%.*s=(default)", out->len ? " " : "",
          (gint) (eq - b[i]), b[i]);
  }
  return g_string_free (out, FALSE);
}

/* What differs between rank 0's line @mine and rank @r's @theirs. */
static gchar *
describe_difference (guint r, const gchar * mine, const gchar * theirs)
{
  gchar **a, **b, *only_theirs, *only_mine, *text;

  if (mine == NULL || theirs == NULL
      || strcspn (mine, " ") != strcspn (theirs, " ")
      || strncmp (mine, theirs, strcspn (mine, " ")) != 0)
    return g_strdup_printf ("rank %u has %s%s%s where rank 0 has %s%s%s", r,
        theirs ? "'" : "", theirs ? theirs : "no more elements",
        theirs ? "'" : "", mine ? "'" : "", mine ? mine : "no more elements",
        mine ? "'" : "");
  /* The same element, set or linked differently. */
  a = g_strsplit (mine, " ", -1);
  b = g_strsplit (theirs, " ", -1);
  only_theirs = words_only_in (b, a);
  only_mine = words_only_in (a, b);
  text = g_strdup_printf ("%s has %s on rank %u but %s on rank 0", a[0],
      only_theirs, r, only_mine);
  g_free (only_theirs);
  g_free (only_mine);
  g_strfreev (a);
  g_strfreev (b);
  return text;
}

/* Rank 0: "" when every rank's description is rank 0's, else what
 * differs, the first line that does. */
static gchar *
compare_plans (GBytes ** parts, guint n)
{
  gchar **mine = g_strsplit (g_bytes_get_data (parts[0], NULL), "\n", -1);
  gchar *verdict = NULL;
  guint r, i;

  for (r = 1; r < n && verdict == NULL; r++) {
    gchar **theirs = g_strsplit (g_bytes_get_data (parts[r], NULL), "\n", -1);

    for (i = 0; verdict == NULL && (mine[i] || theirs[i]); i++) {
      gchar *what;

      if (g_strcmp0 (mine[i], theirs[i]) == 0)
        continue;
      what = describe_difference (r, mine[i], theirs[i]);
      verdict = g_strdup_printf ("the ranks do not run the same plan: %s "
          "(every rank must run the same pipeline: the same elements, "
          "properties and links)", what);
      g_free (what);
    }
    g_strfreev (theirs);
  }
  g_strfreev (mine);
  return verdict ? verdict : g_strdup ("");
}

/* On the top-level bin: the verdict, a GError (or one with an empty
 * message when the plans agree). */
static GQuark
checked_quark (void)
{
  return g_quark_from_static_string ("plan-comm-plan-checked");
}

static GstObject *
top_level (GstElement * element)
{
  GstObject *top = gst_object_ref (GST_OBJECT (element)), *parent;

  while ((parent = gst_object_get_parent (top))) {
    gst_object_unref (top);
    top = parent;
  }
  return top;
}

/* Rank 0 gathers the descriptions and tells every rank its verdict. */
static gboolean
exchange_plans (PlanComm * comm, GstElement * element, GError ** error)
{
  gchar *text = describe_pipeline (element);
  GBytes *mine, **all = NULL, *verdict = NULL, *got = NULL;
  gint tag = plan_comm_tag (comm, "plan check", PLAN_COMM_OUTPUT);
  gboolean ok = FALSE;

  GST_DEBUG ("this rank's plan:\n%s", text);
  mine = g_bytes_new_take (text, strlen (text) + 1);
  if (!plan_comm_gather (comm, tag, mine, &all, NULL, error))
    goto done;
  if (all) {
    gchar *v = compare_plans (all, plan_comm_get_size (comm));

    free_parts (all, plan_comm_get_size (comm));
    verdict = g_bytes_new_take (v, strlen (v) + 1);
  }
  got = plan_comm_broadcast (comm, tag, verdict, NULL, error);
  if (got == NULL)
    goto done;
  ok = *(const gchar *) g_bytes_get_data (got, NULL) == '\0';
  if (!ok)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "%s",
        (const gchar *) g_bytes_get_data (got, NULL));

done:
  g_clear_pointer (&got, g_bytes_unref);
  g_clear_pointer (&verdict, g_bytes_unref);
  g_bytes_unref (mine);
  return ok;
}

/**
 * plan_comm_check_plan:
 * @element: an element of the pipeline to check
 * @error: return location for a #GError
 *
 * In a process started as one of several ranks of an MPI job (by
 * `mpirun`, `srun`, ...), checks once per pipeline that every rank runs
 * the same plan: each rank describes its pipeline (every element's name
 * and factory, the properties set to other than their defaults, the
 * links) and rank 0 compares them. Ranks whose plans differ would wait
 * for each other's messages for ever, or combine results of different
 * computations. Every rank must call it (planfilesrc does when it starts,
 * sharded or not), and every rank gets the same verdict.
 *
 * Outside such a job, or in a build without MPI, it returns %TRUE at once.
 *
 * Returns: %TRUE when the plans agree; otherwise %FALSE with @error set
 *   (%PLAN_ERROR_INVALID_ARGUMENT), naming the first rank whose plan
 *   differs from rank 0's and the first line of the description that
 *   does, on every rank.
 *
 * Since: 0.1
 */
gboolean
plan_comm_check_plan (GstElement * element, GError ** error)
{
  GstObject *top;
  const GError *known;
  PlanComm *comm;
  GError *err = NULL;

  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);

  if (!launched_as_ranks ())
    return TRUE;
  comm = plan_comm_get_world (NULL);
  if (comm == NULL || plan_comm_get_size (comm) < 2)
    return TRUE;
  /* Once per pipeline: the first of its elements to ask exchanges. */
  top = top_level (element);
  known = g_object_get_qdata (G_OBJECT (top), checked_quark ());
  if (known == NULL) {
    exchange_plans (comm, element, &err);
    known = err ? err : g_error_new_literal (PLAN_ERROR, PLAN_ERROR_IO, "");
    g_object_set_qdata_full (G_OBJECT (top), checked_quark (),
        (gpointer) known, (GDestroyNotify) g_error_free);
  }
  gst_object_unref (top);
  if (*known->message == '\0')
    return TRUE;
  g_propagate_error (error, g_error_copy (known));
  return FALSE;
}
