/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The sim backend: an asynchronous device simulated on the host, so that
 * the GPU scheduling code runs, and fails when a wait is missing, on
 * machines without a GPU.
 *
 * - Each stream has one worker thread that runs its queue in order, after
 *   a random delay before every operation (seeded by GST_PLAN_SIM_SEED),
 *   so that work on different streams really interleaves.
 * - Events are fences: a record bumps the event's generation when queued
 *   and marks it done when the worker reaches it; a wait blocks the
 *   waiting stream's worker until the generation seen at queue time is
 *   done.
 * - Device memory lives in host allocations, but the device pointers handed
 *   out are addresses of a PROT_NONE reservation of the same size (unless
 *   GST_PLAN_SIM_GUARD=0): host code that dereferences one crashes at once.
 *   Copies and host kernels translate device pointers into the real
 *   storage on the worker.
 *
 * Lock order: SimDevice.lock, then SimStream.lock; SimEvent.lock is taken
 * alone. No lock is held while an operation runs. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/device/plandevice-backend.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

GST_DEBUG_CATEGORY_STATIC (plan_device_sim_debug);
#define GST_CAT_DEFAULT plan_device_sim_debug

#define SIM_ALIGN 256
#define DEFAULT_MAX_DELAY_US 100
#define SIM_POISON 0xa5

typedef struct
{
  guintptr base;                /* the device address */
  gsize size;
  guint8 *real;                 /* where the bytes are */
  gsize reserved;               /* bytes of the PROT_NONE reservation, 0 unguarded */
} SimAlloc;

typedef struct _SimStream SimStream;

typedef struct
{
  GMutex lock;
  /* protected by lock */
  GTree *allocs;                /* base -> SimAlloc */
  GList *streams;               /* SimStream, each with a reference */
  guint64 used;
  guint64 limit;
  gint fault_after[PLAN_SIM_FAULT_COPY_QUEUED + 1];
  guint n_streams;

  /* atomic: a mask of the PlanWaitSite whose waits are dropped */
  gint skip_wait_sites;

  /* construct-only, no lock */
  guint32 seed;
  guint max_delay_us;
  gboolean guard;
  gsize page;
} SimDevice;

typedef struct
{
  GMutex lock;
  GCond cond;
  /* protected by lock */
  guint64 recorded;             /* generation of the latest record */
  guint64 done;                 /* the highest generation reached */
} SimEvent;

typedef enum
{
  OP_COPY,
  OP_HOST,
  OP_KERNEL,
  OP_RECORD,
  OP_WAIT,
} OpType;

typedef struct
{
  OpType type;
  gpointer dst;
  gconstpointer src;
  gsize size;
  PlanHostFunc func;
  PlanHostKernelFunc kfunc;
  gpointer *ptrs;
  guint n_ptrs;
  gpointer user_data;
  GDestroyNotify destroy;
  SimEvent *event;              /* a reference */
  guint64 gen;
  guint delay_us;               /* run this much later (a test's fault) */
} SimOp;

struct _SimStream
{
  SimDevice *dev;
  GThread *thread;
  guint serial;

  GMutex lock;
  GCond cond;
  /* protected by lock */
  GQueue ops;
  guint64 queued;
  guint64 completed;
  gboolean quit;

  /* worker thread only */
  GRand *rand;
};

static GPrivate current_stream;

static SimStream *
sim_stream_ref (SimStream * stream)
{
  return g_atomic_rc_box_acquire (stream);
}

static void
sim_stream_clear (SimStream * stream)
{
  g_mutex_clear (&stream->lock);
  g_cond_clear (&stream->cond);
  if (stream->rand)
    g_rand_free (stream->rand);
}

static void
sim_stream_unref (SimStream * stream)
{
  g_atomic_rc_box_release_full (stream, (GDestroyNotify) sim_stream_clear);
}

static void
sim_event_clear (SimEvent * event)
{
  g_mutex_clear (&event->lock);
  g_cond_clear (&event->cond);
}

static void
sim_event_unref (SimEvent * event)
{
  g_atomic_rc_box_release_full (event, (GDestroyNotify) sim_event_clear);
}

static gint
compare_addr (gconstpointer a, gconstpointer b, gpointer user_data)
{
  guintptr x = GPOINTER_TO_SIZE (a), y = GPOINTER_TO_SIZE (b);

  return x < y ? -1 : x > y ? 1 : 0;
}

static void
sim_alloc_release (SimAlloc * a)
{
  if (a->reserved)
    munmap ((gpointer) a->base, a->reserved);
  free (a->real);
  g_free (a);
}

static guint64
env_uint64 (const gchar * name, guint64 fallback)
{
  const gchar *value = g_getenv (name);
  gchar *end = NULL;
  guint64 n;

  if (value == NULL || *value == '\0')
    return fallback;
  n = g_ascii_strtoull (value, &end, 10);
  if (*end != '\0') {
    GST_WARNING ("ignoring %s=%s: not an unsigned integer", name, value);
    return fallback;
  }
  return n;
}

static void
parse_fault_env (SimDevice * dev)
{
  const gchar *value = g_getenv ("GST_PLAN_SIM_FAULT");
  static const gchar *names[] = { "alloc", "launch", "copy", "copy-queued" };
  gchar **parts;
  guint i;

  if (value == NULL || *value == '\0')
    return;
  parts = g_strsplit (value, ":", 2);
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    if (g_str_equal (parts[0], names[i]))
      dev->fault_after[i] = parts[1] ? atoi (parts[1]) : 0;
  }
  g_strfreev (parts);
}

/* GST_PLAN_SIM_SKIP_WAIT: a comma-separated list of wait sites
 * (pool-reuse, ready, result) the sim device skips, for tests. */
static gint
parse_skip_waits (const gchar * value)
{
  gchar **names;
  gint sites = 0;
  guint i;

  if (value == NULL)
    return 0;
  names = g_strsplit (value, ",", -1);
  for (i = 0; names[i]; i++) {
    if (g_str_equal (names[i], "pool-reuse"))
      sites |= PLAN_WAIT_SITE_POOL_REUSE;
    else if (g_str_equal (names[i], "ready"))
      sites |= PLAN_WAIT_SITE_READY;
    else if (g_str_equal (names[i], "result"))
      sites |= PLAN_WAIT_SITE_RESULT;
    else if (names[i][0] != '\0')
      GST_WARNING ("GST_PLAN_SIM_SKIP_WAIT: unknown wait site '%s'", names[i]);
  }
  g_strfreev (names);
  return sites;
}

/* Whether a test asked to drop the waits at @site. */
static gboolean
skips_wait (SimDevice * dev, PlanWaitSite site)
{
  return (g_atomic_int_get (&dev->skip_wait_sites) & site) != 0;
}

static gint
sim_open (gint id, gpointer * impl, PlanDeviceBackendInfo * info)
{
  SimDevice *dev;
  guint i;

  if (id != 0)
    return -ENODEV;

  if (plan_device_sim_debug == NULL)
    GST_DEBUG_CATEGORY_INIT (plan_device_sim_debug, "plandevicesim", 0,
        "the simulated device");

  dev = g_new0 (SimDevice, 1);
  g_mutex_init (&dev->lock);
  dev->allocs = g_tree_new_full (compare_addr, NULL, NULL,
      (GDestroyNotify) sim_alloc_release);
  for (i = 0; i < G_N_ELEMENTS (dev->fault_after); i++)
    dev->fault_after[i] = -1;
  parse_fault_env (dev);
  dev->skip_wait_sites = parse_skip_waits (g_getenv ("GST_PLAN_SIM_SKIP_WAIT"));
  dev->limit = env_uint64 ("GST_PLAN_SIM_MEMORY_LIMIT", 0);
  dev->seed = (guint32) env_uint64 (PLAN_SIM_SEED_ENV, g_random_int ());
  dev->max_delay_us = (guint) env_uint64 ("GST_PLAN_SIM_MAX_DELAY_US",
      DEFAULT_MAX_DELAY_US);
  dev->guard = env_uint64 ("GST_PLAN_SIM_GUARD", 1) != 0;
  dev->page = sysconf (_SC_PAGESIZE);

  GST_INFO ("sim device: seed %u (set %s to repeat), delays up to %u us, "
      "guard %s", dev->seed, PLAN_SIM_SEED_ENV, dev->max_delay_us,
      dev->guard ? "on" : "off");

  info->name = g_strdup_printf ("Simulated device (seed %u)", dev->seed);
  info->total_memory = dev->limit ? dev->limit : G_GUINT64_CONSTANT (1) << 34;
  info->cc_major = info->cc_minor = 0;
  *impl = dev;
  return 0;
}

static void
sim_close (gpointer impl)
{
  SimDevice *dev = impl;

  if (dev->streams != NULL)
    GST_WARNING ("sim device closed with %u streams alive",
        g_list_length (dev->streams));
  g_tree_unref (dev->allocs);
  g_mutex_clear (&dev->lock);
  g_free (dev);
}

/* Must be called with SimDevice.lock held. Returns TRUE when an injected
 * @fault is due now. */
static gboolean
fault_due_unlocked (SimDevice * dev, PlanSimFault fault)
{
  if (dev->fault_after[fault] < 0)
    return FALSE;
  if (dev->fault_after[fault] > 0) {
    dev->fault_after[fault]--;
    return FALSE;
  }
  dev->fault_after[fault] = -1;
  return TRUE;
}

static void
sim_inject_fault (gpointer impl, PlanSimFault fault, gint after)
{
  SimDevice *dev = impl;

  g_mutex_lock (&dev->lock);
  dev->fault_after[fault] = after;
  g_mutex_unlock (&dev->lock);
}

static void
sim_skip_waits (gpointer impl, guint sites)
{
  SimDevice *dev = impl;

  g_atomic_int_set (&dev->skip_wait_sites, (gint) sites);
}

static void
sim_set_memory_limit (gpointer impl, guint64 limit)
{
  SimDevice *dev = impl;

  g_mutex_lock (&dev->lock);
  dev->limit = limit;
  g_mutex_unlock (&dev->lock);
}

static gint
sim_alloc (gpointer impl, gsize size, gpointer * dptr)
{
  SimDevice *dev = impl;
  SimAlloc *a;
  gpointer real = NULL;

  g_mutex_lock (&dev->lock);
  if (fault_due_unlocked (dev, PLAN_SIM_FAULT_ALLOC)) {
    g_mutex_unlock (&dev->lock);
    _plan_device_set_error_detail ("fault injected by a test");
    return -ENOMEM;
  }
  if (dev->limit && dev->used + size > dev->limit) {
    guint64 used = dev->used, limit = dev->limit;

    g_mutex_unlock (&dev->lock);
    _plan_device_set_error_detail ("%" G_GSIZE_FORMAT " bytes asked, %"
        G_GUINT64_FORMAT " of the %" G_GUINT64_FORMAT " bytes in use",
        size, used, limit);
    return -ENOMEM;
  }
  dev->used += size;
  g_mutex_unlock (&dev->lock);

  if (posix_memalign (&real, SIM_ALIGN, size) != 0)
    goto no_memory;
  /* Poison: reading memory no operation wrote gives this pattern, the same
   * every run, rather than whatever the heap held. */
  memset (real, SIM_POISON, size);

  a = g_new0 (SimAlloc, 1);
  a->size = size;
  a->real = real;
  if (dev->guard) {
    gpointer base;

    a->reserved = (size + dev->page - 1) / dev->page * dev->page;
    base = mmap (NULL, a->reserved, PROT_NONE,
        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
      g_free (a);
      free (real);
      goto no_memory;
    }
    a->base = (guintptr) base;
  } else {
    a->base = (guintptr) real;
  }

  g_mutex_lock (&dev->lock);
  g_tree_insert (dev->allocs, GSIZE_TO_POINTER (a->base), a);
  g_mutex_unlock (&dev->lock);
  *dptr = (gpointer) a->base;
  return 0;

no_memory:
  g_mutex_lock (&dev->lock);
  dev->used -= size;
  g_mutex_unlock (&dev->lock);
  return -ENOMEM;
}

/* Must be called with SimDevice.lock held. The allocation holding
 * @addr .. @addr + @size, or NULL. */
static SimAlloc *
lookup_unlocked (SimDevice * dev, gconstpointer addr, gsize size)
{
  GTreeNode *node;
  SimAlloc *a;

  /* the last allocation whose base is <= addr */
  node = g_tree_upper_bound (dev->allocs, addr);
  node = node ? g_tree_node_previous (node) : g_tree_node_last (dev->allocs);
  if (node == NULL)
    return NULL;
  a = g_tree_node_value (node);
  if ((guintptr) addr < a->base || (guintptr) addr + size > a->base + a->size)
    return NULL;
  return a;
}

/* Translates a device pointer into the storage behind it, checking that
 * @size bytes from it lie in one allocation. */
static gint
translate (SimDevice * dev, gconstpointer addr, gsize size, gpointer * real)
{
  SimAlloc *a;

  g_mutex_lock (&dev->lock);
  a = lookup_unlocked (dev, addr, size);
  if (a != NULL)
    *real = a->real + ((guintptr) addr - a->base);
  g_mutex_unlock (&dev->lock);

  if (a == NULL) {
    _plan_device_set_error_detail ("%" G_GSIZE_FORMAT " bytes at %p are not "
        "inside one sim device allocation", size, addr);
    return -EFAULT;
  }
  return 0;
}

static gpointer
copy_stream_ref (gconstpointer src, gpointer user_data)
{
  return sim_stream_ref ((SimStream *) src);
}

/* Waits until every stream except the caller's own has run what was queued
 * on it before this call. */
static void
device_drain (SimDevice * dev)
{
  SimStream *self = g_private_get (&current_stream);
  GList *streams, *l;

  g_mutex_lock (&dev->lock);
  streams = g_list_copy_deep (dev->streams, copy_stream_ref, NULL);
  g_mutex_unlock (&dev->lock);

  for (l = streams; l; l = l->next) {
    SimStream *s = l->data;
    guint64 target;

    if (s == self)
      continue;
    g_mutex_lock (&s->lock);
    target = s->queued;
    while (s->completed < target)
      g_cond_wait (&s->cond, &s->lock);
    g_mutex_unlock (&s->lock);
  }
  g_list_free_full (streams, (GDestroyNotify) sim_stream_unref);
}

static void
sim_free (gpointer impl, gpointer dptr)
{
  SimDevice *dev = impl;
  SimAlloc *a;

  /* As cuMemFree does, finish the queued work first: it may still use the
   * memory. */
  device_drain (dev);

  g_mutex_lock (&dev->lock);
  a = g_tree_lookup (dev->allocs, dptr);
  if (a != NULL) {
    dev->used -= a->size;
    g_tree_remove (dev->allocs, dptr);
  }
  g_mutex_unlock (&dev->lock);

  if (a == NULL)
    GST_ERROR ("freeing %p, which is not a sim device allocation", dptr);
}

static gint
sim_alloc_host (gpointer impl, gsize size, gpointer * ptr)
{
  if (posix_memalign (ptr, SIM_ALIGN, size) != 0) {
    *ptr = NULL;
    return -ENOMEM;
  }
  return 0;
}

static void
sim_free_host (gpointer impl, gpointer ptr)
{
  free (ptr);
}

static void
op_free (SimOp * op)
{
  if (op->event)
    sim_event_unref (op->event);
  g_free (op->ptrs);
  g_free (op);
}

static void
run_op (SimStream * stream, SimOp * op)
{
  switch (op->type) {
    case OP_COPY:
      memmove (op->dst, op->src, op->size);
      break;
    case OP_HOST:
      op->func (op->user_data);
      if (op->destroy)
        op->destroy (op->user_data);
      break;
    case OP_KERNEL:
      op->kfunc (op->ptrs, op->n_ptrs, op->user_data);
      if (op->destroy)
        op->destroy (op->user_data);
      break;
    case OP_RECORD:
      g_mutex_lock (&op->event->lock);
      op->event->done = MAX (op->event->done, op->gen);
      g_cond_broadcast (&op->event->cond);
      g_mutex_unlock (&op->event->lock);
      break;
    case OP_WAIT:
      g_mutex_lock (&op->event->lock);
      while (op->event->done < op->gen)
        g_cond_wait (&op->event->cond, &op->event->lock);
      g_mutex_unlock (&op->event->lock);
      break;
  }
}

static gpointer
stream_worker (gpointer data)
{
  SimStream *stream = data;
  guint max_delay = stream->dev->max_delay_us;
  SimOp *op;

  g_private_set (&current_stream, stream);
  g_mutex_lock (&stream->lock);
  for (;;) {
    while (g_queue_is_empty (&stream->ops) && !stream->quit)
      g_cond_wait (&stream->cond, &stream->lock);
    op = g_queue_pop_head (&stream->ops);
    if (op == NULL)
      break;
    g_mutex_unlock (&stream->lock);

    /* The delay before every operation is what makes work on different
     * streams interleave differently from run to run. */
    if (max_delay > 0)
      g_usleep (g_rand_int_range (stream->rand, 0, max_delay + 1));
    if (op->delay_us)
      g_usleep (op->delay_us);
    run_op (stream, op);
    op_free (op);

    g_mutex_lock (&stream->lock);
    stream->completed++;
    g_cond_broadcast (&stream->cond);
  }
  g_mutex_unlock (&stream->lock);
  return NULL;
}

static gint
sim_stream_new (gpointer impl, gpointer * handle)
{
  SimDevice *dev = impl;
  SimStream *stream = g_atomic_rc_box_new0 (SimStream);
  GError *err = NULL;
  gchar *name;

  stream->dev = dev;
  g_mutex_init (&stream->lock);
  g_cond_init (&stream->cond);
  g_queue_init (&stream->ops);

  g_mutex_lock (&dev->lock);
  stream->serial = dev->n_streams++;
  g_mutex_unlock (&dev->lock);
  stream->rand = g_rand_new_with_seed (dev->seed ^ (stream->serial *
          0x9e3779b9u));

  name = g_strdup_printf ("plansim%u", stream->serial);
  stream->thread = g_thread_try_new (name, stream_worker, stream, &err);
  g_free (name);
  if (stream->thread == NULL) {
    _plan_device_set_error_detail ("%s", err->message);
    g_error_free (err);
    sim_stream_unref (stream);
    return -EAGAIN;
  }

  g_mutex_lock (&dev->lock);
  dev->streams = g_list_prepend (dev->streams, sim_stream_ref (stream));
  g_mutex_unlock (&dev->lock);
  *handle = stream;
  return 0;
}

static void
sim_stream_free (gpointer impl, gpointer handle)
{
  SimDevice *dev = impl;
  SimStream *stream = handle;
  GList *link;

  g_mutex_lock (&dev->lock);
  link = g_list_find (dev->streams, stream);
  dev->streams = g_list_delete_link (dev->streams, link);
  g_mutex_unlock (&dev->lock);
  sim_stream_unref (stream);

  /* The worker drains the queue before it quits. */
  g_mutex_lock (&stream->lock);
  stream->quit = TRUE;
  g_cond_broadcast (&stream->cond);
  g_mutex_unlock (&stream->lock);

  if (g_thread_self () == stream->thread) {
    /* The last reference went from one of the stream's own operations:
     * the worker can't join itself; it quits after this operation and the
     * box outlives it through the reference the thread function keeps. */
    GST_WARNING ("sim stream %u destroyed from its own worker", stream->serial);
    g_thread_unref (stream->thread);
    return;
  }
  g_thread_join (stream->thread);
  sim_stream_unref (stream);
}

static gint
enqueue (SimStream * stream, SimOp * op)
{
  g_mutex_lock (&stream->lock);
  g_queue_push_tail (&stream->ops, op);
  stream->queued++;
  g_cond_broadcast (&stream->cond);
  g_mutex_unlock (&stream->lock);
  return 0;
}

static gint
sim_stream_synchronize (gpointer impl, gpointer handle, PlanWaitSite site)
{
  SimStream *stream = handle;
  guint64 target;

  if (skips_wait (impl, site))
    return 0;
  if (g_private_get (&current_stream) == stream)
    return -EDEADLK;

  g_mutex_lock (&stream->lock);
  target = stream->queued;
  while (stream->completed < target)
    g_cond_wait (&stream->cond, &stream->lock);
  g_mutex_unlock (&stream->lock);
  return 0;
}

static gint
sim_event_new (gpointer impl, gpointer * handle)
{
  SimEvent *event = g_atomic_rc_box_new0 (SimEvent);

  g_mutex_init (&event->lock);
  g_cond_init (&event->cond);
  *handle = event;
  return 0;
}

static void
sim_event_free (gpointer impl, gpointer handle)
{
  sim_event_unref (handle);
}

static gint
sim_event_record (gpointer impl, gpointer handle, gpointer stream)
{
  SimEvent *event = handle;
  SimOp *op = g_new0 (SimOp, 1);

  op->type = OP_RECORD;
  op->event = g_atomic_rc_box_acquire (event);
  g_mutex_lock (&event->lock);
  op->gen = ++event->recorded;
  g_mutex_unlock (&event->lock);
  return enqueue (stream, op);
}

static gint
sim_stream_wait_event (gpointer impl, gpointer stream, gpointer handle,
    PlanWaitSite site)
{
  SimEvent *event = handle;
  SimOp *op;

  if (skips_wait (impl, site))
    return 0;
  op = g_new0 (SimOp, 1);
  op->type = OP_WAIT;
  op->event = g_atomic_rc_box_acquire (event);
  /* Like cuStreamWaitEvent: wait for the record queued last before now. */
  g_mutex_lock (&event->lock);
  op->gen = event->recorded;
  g_mutex_unlock (&event->lock);
  return enqueue (stream, op);
}

static gint
sim_event_query (gpointer impl, gpointer handle)
{
  SimEvent *event = handle;
  gint res;

  g_mutex_lock (&event->lock);
  res = event->done >= event->recorded ? 0 : -EAGAIN;
  g_mutex_unlock (&event->lock);
  return res;
}

static gint
sim_event_synchronize (gpointer impl, gpointer handle)
{
  SimEvent *event = handle;
  guint64 target;

  g_mutex_lock (&event->lock);
  target = event->recorded;
  while (event->done < target)
    g_cond_wait (&event->cond, &event->lock);
  g_mutex_unlock (&event->lock);
  return 0;
}

static gint
sim_copy (gpointer impl, gpointer stream, PlanCopyKind kind, gpointer dst,
    gconstpointer src, gsize size)
{
  SimDevice *dev = impl;
  gpointer real_dst = dst, real_src = (gpointer) src;
  gboolean fault, queued_fault;
  SimOp *op;
  gint res;

  g_mutex_lock (&dev->lock);
  fault = fault_due_unlocked (dev, PLAN_SIM_FAULT_COPY);
  queued_fault = stream != NULL && !fault
      && fault_due_unlocked (dev, PLAN_SIM_FAULT_COPY_QUEUED);
  g_mutex_unlock (&dev->lock);
  if (fault) {
    _plan_device_set_error_detail ("copy fault injected by a test");
    return -EIO;
  }

  if (kind != PLAN_COPY_DEVICE_TO_HOST
      && (res = translate (dev, dst, size, &real_dst)) < 0)
    return res;
  if (kind != PLAN_COPY_HOST_TO_DEVICE
      && (res = translate (dev, src, size, &real_src)) < 0)
    return res;

  if (stream == NULL) {
    /* a synchronous copy, on the calling thread */
    memmove (real_dst, real_src, size);
    return 0;
  }

  op = g_new0 (SimOp, 1);
  op->type = OP_COPY;
  op->dst = real_dst;
  op->src = real_src;
  op->size = size;
  if (queued_fault) {
    op->delay_us = 50000;
    res = enqueue (stream, op);
    _plan_device_set_error_detail ("copy fault injected by a test after "
        "the copy was queued");
    return res < 0 ? res : -EIO;
  }
  return enqueue (stream, op);
}

static gint
sim_launch_host (gpointer impl, gpointer stream, PlanHostFunc func,
    gpointer user_data, GDestroyNotify destroy)
{
  SimOp *op = g_new0 (SimOp, 1);

  op->type = OP_HOST;
  op->func = func;
  op->user_data = user_data;
  op->destroy = destroy;
  return enqueue (stream, op);
}

static gint
sim_launch_host_kernel (gpointer impl, gpointer stream,
    PlanHostKernelFunc func, gpointer * ptrs, guint n_ptrs,
    gpointer user_data, GDestroyNotify destroy)
{
  SimDevice *dev = impl;
  gpointer *real = g_new0 (gpointer, MAX (n_ptrs, 1));
  gboolean fault;
  SimOp *op;
  guint i;
  gint res = 0;

  g_mutex_lock (&dev->lock);
  fault = fault_due_unlocked (dev, PLAN_SIM_FAULT_LAUNCH);
  g_mutex_unlock (&dev->lock);
  if (fault) {
    _plan_device_set_error_detail ("launch fault injected by a test");
    res = -EIO;
  }
  for (i = 0; i < n_ptrs && res == 0; i++)
    res = translate (dev, ptrs[i], 0, &real[i]);
  if (res < 0) {
    g_free (real);
    if (destroy)
      destroy (user_data);
    return res;
  }

  op = g_new0 (SimOp, 1);
  op->type = OP_KERNEL;
  op->kfunc = func;
  op->ptrs = real;
  op->n_ptrs = n_ptrs;
  op->user_data = user_data;
  op->destroy = destroy;
  return enqueue (stream, op);
}

static gint
sim_module_load (gpointer impl, gconstpointer image, gsize size,
    const gchar * entry, gpointer * module, gpointer * function)
{
  _plan_device_set_error_detail ("the sim device runs no PTX or cubin "
      "modules, only host kernels");
  return -ENOTSUP;
}

static void
sim_module_unload (gpointer impl, gpointer module)
{
}

static gint
sim_launch_kernel (gpointer impl, gpointer stream, gpointer function,
    const guint grid[3], const guint block[3], guint shared_bytes,
    gpointer * args)
{
  return -ENOTSUP;
}

const PlanDeviceBackend _plan_device_backend_sim = {
  .name = "sim",
  .open = sim_open,
  .close = sim_close,
  .alloc = sim_alloc,
  .free = sim_free,
  .alloc_host = sim_alloc_host,
  .free_host = sim_free_host,
  .stream_new = sim_stream_new,
  .stream_free = sim_stream_free,
  .stream_synchronize = sim_stream_synchronize,
  .stream_wait_event = sim_stream_wait_event,
  .event_new = sim_event_new,
  .event_free = sim_event_free,
  .event_record = sim_event_record,
  .event_query = sim_event_query,
  .event_synchronize = sim_event_synchronize,
  .copy = sim_copy,
  .launch_host = sim_launch_host,
  .launch_host_kernel = sim_launch_host_kernel,
  .module_load = sim_module_load,
  .module_unload = sim_module_unload,
  .launch_kernel = sim_launch_kernel,
  .inject_fault = sim_inject_fault,
  .set_memory_limit = sim_set_memory_limit,
  .skip_waits = sim_skip_waits,
};
