/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* PlanShardWriter: one output file that the ranks of an MPI job write
 * together, each its rows at their place.
 *
 * 1. Rank 0 creates a hidden temporary file next to the output
 *    (".NAME.XXXXXX.part"), writes the .npy header for the whole array,
 *    sizes the file, and sends its name to the other ranks.
 * 2. Every rank writes its rows with pwrite() at their offset.
 * 3. At the end each rank sends rank 0 its outcome (the rows it wrote, or
 *    why it failed); rank 0 renames the file over the output when every
 *    rank succeeded and the rows add up to the whole, removes it
 *    otherwise, and sends every rank the verdict. So when any rank sees
 *    success, the file is in place; a failure anywhere leaves nothing
 *    under the output's name.
 *
 * An HDF5 output (plan_shard_writer_new_full()): rank 0's PlanFileWriter
 * makes the temporary file (a copy of the file there in the add mode)
 * with the dataset at its full size, chunked. Uncompressed, its chunks
 * are allocated and not filled, and the file closed; rank 0 sends every
 * rank the chunks' places in the file, and each rank writes its rows
 * there with pwrite(), as for .npy: libhdf5 (serial) never has the file
 * open in two processes, and the rows are written in parallel. At the
 * verdict rank 0's PlanFileWriter puts the file in place.
 *
 * A compressed HDF5 output: no chunk is allocated, and rank 0 keeps the
 * file open; it sends every rank the dataset's filters. Each rank filters
 * the chunks whose rows are all its own as libhdf5 would (shuffle, then
 * deflate: _plan_h5_chunk_encode()), on a pool of threads; rank 0 writes its own into the file
 * at once (H5Dwrite_chunk()), the others append theirs to a spool file of
 * their own beside the temporary file (".NAME.XXXXXX.s<rank>"), with the
 * rows they have of chunks that straddle two shares, raw, and at the end
 * a table of what is where; they send rank 0 where the table is. Rank 0
 * then reads the spools rank by rank, a chunk at a time: it writes each
 * filtered chunk as it is, and completes the straddling chunks from their
 * pieces (with its own) and writes them through libhdf5, which filters
 * them. The spools are removed at the end whatever happens. That part
 * is in planshardwriter-h5.c.
 *
 * A Zarr output: rank 0's PlanFileWriter makes the temporary directory
 * (or the hidden one in the group in the add mode), and every rank writes
 * the chunks of its rows into it, compressed by a pool of threads of its
 * own. A chunk whose rows are all this rank's is written as soon as they
 * are; the rows of a chunk that straddles two ranks' shares (at most one
 * at each end of a share) are kept, and sent to rank 0 at the end, which
 * completes the chunk and writes it before the verdict; then rank 0
 * writes the metadata and puts the directory in place.
 *
 * The temporary file needs a name (the ranks open it), so unlike
 * planfilesink's own writer it stays behind if rank 0 is killed by a
 * signal it cannot handle (SIGKILL). When a rank dies, mpirun ends the
 * others with SIGTERM, which gst-launch-1.0 does not handle: while rank 0
 * has the file, a handler of SIGTERM (and of SIGHUP and SIGINT, each
 * where the process neither handles nor ignores it) removes it first
 * (and the other ranks' spools, and a Zarr store's directory, moved away
 * first so that no rank writes into it again), then ends the process as
 * the signal would have. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planshardwriter-private.h"
#include <libplan/plannpy.h>
#include <libplan/planerror.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <glib/gstdio.h>

GST_DEBUG_CATEGORY (plan_shard_writer_debug);
#define GST_CAT_DEFAULT plan_shard_writer_debug

/* Rank 0's temporary files, removed when a signal ends the process. */
#define N_TEMP_SLOTS 64
static gchar *temp_slots[N_TEMP_SLOTS];       /* atomic */
/* Rank 0 of a compressed HDF5 output: the other ranks' spools, by their
 * names but the rank (a rank killed by SIGKILL leaves its own). */
static SpoolNames *spool_slots[N_TEMP_SLOTS];  /* atomic */
/* Rank 0 of a Zarr output: its temporary directory, and the name it is
 * moved to before it is removed. */
typedef struct
{
  gchar *path;
  gchar *doomed;
} TreeNames;
static TreeNames *tree_slots[N_TEMP_SLOTS];   /* atomic */
static const int cleanup_signals[] = { SIGTERM, SIGHUP, SIGINT };

/* Zarr stores nest their chunks a few directories deep ("c/0/0"): deeper
 * than this is left. */
#define MAX_TREE_DEPTH 8

/* Removes what is in the directory @dfd; async-signal-safe (system calls
 * only). Entries that appear meanwhile may be missed: see remove_tree(). */
static void
remove_tree_at (int dfd, guint depth)
{
  gchar buf[1024];

  for (;;) {
    long n = syscall (SYS_getdents64, dfd, buf, sizeof (buf));
    long off;

    if (n <= 0)
      return;
    for (off = 0; off < n;) {
      struct
      {
        guint64 ino;
        gint64 off;
        unsigned short reclen;
        unsigned char type;
        char name[];
      } *d = (gpointer) (buf + off);
      int sub;

      off += d->reclen;
      if (d->name[0] == '.' && (d->name[1] == '\0' || (d->name[1] == '.'
                  && d->name[2] == '\0')))
        continue;
      if (unlinkat (dfd, d->name, 0) == 0 || depth == 0)
        continue;
      sub = openat (dfd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
          O_CLOEXEC);
      if (sub < 0)
        continue;
      remove_tree_at (sub, depth - 1);
      close (sub);
      unlinkat (dfd, d->name, AT_REMOVEDIR);
    }
  }
}

/* Removes the directory @tree and what is in it, while the process's
 * other threads (and other ranks) may still be writing chunks into it:
 * moved away first, so that no chunk or folder can be made in it any
 * more (the writers name it, and make no store again), then emptied;
 * async-signal-safe. */
static void
remove_tree (const TreeNames * tree)
{
  const gchar *path = rename (tree->path, tree->doomed) == 0 ?
      tree->doomed : tree->path;
  guint pass;

  for (pass = 0; pass < 20; pass++) {
    const struct timespec pause = { 0, 10 * 1000 * 1000 };
    int dfd = open (path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (dfd < 0)
      return;
    remove_tree_at (dfd, MAX_TREE_DEPTH);
    close (dfd);
    if (rmdir (path) == 0 || errno == ENOENT)
      return;
    nanosleep (&pause, NULL);
  }
}

/* Removes the spools of ranks 1 to @n_ranks - 1 named @prefix and their
 * rank; async-signal-safe. */
static void
unlink_spools (const gchar * prefix, guint n_ranks)
{
  gchar path[4096];
  gsize n = strlen (prefix);
  guint rank;

  if (n + 11 > sizeof (path))
    return;
  memcpy (path, prefix, n);
  for (rank = 1; rank < n_ranks; rank++) {
    gchar digits[10];
    guint k = 0, j, v = rank;

    do {
      digits[k++] = '0' + v % 10;
      v /= 10;
    } while (v > 0);
    for (j = 0; j < k; j++)
      path[n + j] = digits[k - 1 - j];
    path[n + k] = '\0';
    unlink (path);
  }
}

/* Installed only over a signal's default action, which ends the process
 * without a word: a process that handles the signal itself decides what
 * it does (plan-launch and gst-launch-1.0 stop their pipeline on SIGINT,
 * which removes the file as any stop does; gst-launch-1.0 takes SIGHUP
 * to write its graph, and the run goes on), and one that ignores it
 * (SIGHUP under nohup) goes on: the file must stay for the run to end
 * well. */
static void
on_ending_signal (int sig)
{
  struct sigaction previous;
  guint i;

  for (i = 0; i < N_TEMP_SLOTS; i++) {
    gchar *path = g_atomic_pointer_get (&temp_slots[i]);

    if (path)
      unlink (path);
  }
  for (i = 0; i < N_TEMP_SLOTS; i++) {
    SpoolNames *spools = g_atomic_pointer_get (&spool_slots[i]);

    if (spools)
      unlink_spools (spools->prefix, spools->n_ranks);
  }
  /* Last: a store of many chunks takes longest. */
  for (i = 0; i < N_TEMP_SLOTS; i++) {
    TreeNames *tree = g_atomic_pointer_get (&tree_slots[i]);

    if (tree)
      remove_tree (tree);
  }
  /* What the signal would have done: end the process. */
  memset (&previous, 0, sizeof (previous));
  previous.sa_handler = SIG_DFL;
  sigemptyset (&previous.sa_mask);
  sigaction (sig, &previous, NULL);
  raise (sig);
}

static void
install_handler (void)
{
  static gsize installed = 0;
  guint i;

  if (g_once_init_enter (&installed)) {
    struct sigaction action, current;

    memset (&action, 0, sizeof (action));
    action.sa_handler = on_ending_signal;
    action.sa_flags = SA_RESTART;
    /* Another of them arriving meanwhile waits until the files are
     * removed, rather than end the process half way. */
    sigemptyset (&action.sa_mask);
    for (i = 0; i < G_N_ELEMENTS (cleanup_signals); i++)
      sigaddset (&action.sa_mask, cleanup_signals[i]);
    for (i = 0; i < G_N_ELEMENTS (cleanup_signals); i++) {
      if (sigaction (cleanup_signals[i], NULL, &current) == 0
          && !(current.sa_flags & SA_SIGINFO)
          && current.sa_handler == SIG_DFL)
        sigaction (cleanup_signals[i], &action, NULL);
    }
    g_once_init_leave (&installed, 1);
  }
}

/* Removes @path if a signal ends the process before it is forgotten. */
void
_plan_shard_writer_remember_temp (gchar * path)
{
  guint i;

  install_handler ();
  for (i = 0; i < N_TEMP_SLOTS; i++)
    if (g_atomic_pointer_compare_and_exchange (&temp_slots[i], NULL, path))
      return;
}

/* Rank 0: removes the directory @path and what is in it if a signal ends
 * the process before it is forgotten. */
static TreeNames *
remember_tree (const gchar * path)
{
  TreeNames *tree = g_new (TreeNames, 1);
  guint i;

  tree->path = g_strdup (path);
  tree->doomed = g_strconcat (path, ".removed", NULL);
  install_handler ();
  for (i = 0; i < N_TEMP_SLOTS; i++)
    if (g_atomic_pointer_compare_and_exchange (&tree_slots[i], NULL, tree))
      break;
  return tree;
}

static void
forget_tree (TreeNames * tree)
{
  guint i;

  if (tree == NULL)
    return;
  for (i = 0; i < N_TEMP_SLOTS; i++)
    if (g_atomic_pointer_compare_and_exchange (&tree_slots[i], tree, NULL))
      break;
}

static void
free_tree (TreeNames * tree)
{
  forget_tree (tree);
  g_free (tree->path);
  g_free (tree->doomed);
  g_free (tree);
}

/* Rank 0: removes the other ranks' @spools if a signal ends the process
 * before they are forgotten. */
void
_plan_shard_writer_remember_spools (SpoolNames * spools)
{
  guint i;

  install_handler ();
  for (i = 0; i < N_TEMP_SLOTS; i++)
    if (g_atomic_pointer_compare_and_exchange (&spool_slots[i], NULL, spools))
      return;
}

static void
forget_spools (SpoolNames * spools)
{
  guint i;

  for (i = 0; i < N_TEMP_SLOTS; i++)
    if (g_atomic_pointer_compare_and_exchange (&spool_slots[i], spools, NULL))
      return;
}

static void
forget_temp (gchar * path)
{
  guint i;

  for (i = 0; i < N_TEMP_SLOTS; i++)
    if (g_atomic_pointer_compare_and_exchange (&temp_slots[i], path, NULL))
      return;
}

gboolean
_plan_shard_writer_set_io_error (GError ** error, const gchar * what,
    const gchar * path)
{
  int e = errno;

  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e),
      "could not %s '%s': %s", what, path, g_strerror (e));
  return FALSE;
}

/* Rank 0: what is at the output's name now is replaced by the file the
 * ranks write together, renamed over it; a FIFO or a device (/dev/null)
 * would be replaced by a regular file, where one process writes into it
 * in place. A symbolic link is replaced by the file, as a sink of one
 * process replaces it. A Zarr store is a directory. */
static gboolean
check_location (const gchar * location, PlanFileFormat format,
    GError ** error)
{
  struct stat st;
  const gchar *what;

  if (lstat (location, &st) != 0 || S_ISREG (st.st_mode)
      || S_ISLNK (st.st_mode)
      || (format == PLAN_FILE_FORMAT_ZARR && S_ISDIR (st.st_mode)))
    return TRUE;
  what = S_ISDIR (st.st_mode) ? "a directory" : S_ISFIFO (st.st_mode) ?
      "a FIFO" : S_ISSOCK (st.st_mode) ? "a socket" : "a device";
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not write "
      "'%s': the ranks of a sharded run write their rows into a new file "
      "that then takes the output's name, so the output must be a regular "
      "file or not exist yet, not %s", location, what);
  return FALSE;
}

/* Rank 0: the temporary file, with its header, at its full size. */
static gboolean
create_file (PlanShardWriter * w, PlanFileFormat format,
    const PlanArrayInfo * info, GError ** error)
{
  gchar *dir = g_path_get_dirname (w->location);
  gchar *base = g_path_get_basename (w->location);
  gchar *name = g_strdup_printf (".%s.XXXXXX.part", base);
  guint8 *header = NULL;

  w->tmp_path = g_build_filename (dir, name, NULL);
  g_free (dir);
  g_free (base);
  g_free (name);
  w->fd = g_mkstemp_full (w->tmp_path, O_RDWR | O_CLOEXEC, 0666);
  if (w->fd < 0) {
    _plan_shard_writer_set_io_error (error, "create a temporary file for",
        w->location);
    g_clear_pointer (&w->tmp_path, g_free);
    return FALSE;
  }
  if (format == PLAN_FILE_FORMAT_NPY) {
    PlanArrayInfo whole = *info;

    whole.shape[0] = w->total;
    header = g_malloc (w->header_size);
    if (!plan_npy_write_header (&whole, header, w->header_size, error))
      goto failed;
    if (pwrite (w->fd, header, w->header_size, 0) != (gssize) w->header_size) {
      _plan_shard_writer_set_io_error (error, "write the header of",
          w->tmp_path);
      goto failed;
    }
  }
  if (ftruncate (w->fd, w->header_size + w->total * w->row_size) != 0) {
    _plan_shard_writer_set_io_error (error, "size", w->tmp_path);
    goto failed;
  }
#ifdef __linux__
  /* Its blocks reserved at once, rather than found for each write of a
   * sparse file (and a full disk is seen now); where the file system
   * cannot, the writes find them. */
  if (fallocate (w->fd, FALLOC_FL_KEEP_SIZE, 0, w->header_size +
          w->total * w->row_size) != 0 && errno == ENOSPC) {
    _plan_shard_writer_set_io_error (error, "reserve the space of",
        w->tmp_path);
    goto failed;
  }
#endif
  g_free (header);
  _plan_shard_writer_remember_temp (w->tmp_path);
  return TRUE;

failed:
  g_free (header);
  close (w->fd);
  w->fd = -1;
  g_unlink (w->tmp_path);
  g_clear_pointer (&w->tmp_path, g_free);
  return FALSE;
}

#if HAVE_ZARR || HAVE_HDF5
void
_plan_shard_writer_partial_free (gpointer data)
{
  Partial *p = data;

  g_free (p->set);
  g_free (p->data);
  g_free (p);
}
#endif

static GBytes *
layout_message (PlanShardWriter * w)
{
  gsize n = w->layout.n_chunks * sizeof (guint64);
  gsize len = strlen (w->tmp_path) + 1;
  guint8 *b = g_malloc (sizeof (Layout) + n + len);

  memcpy (b, &w->layout, sizeof (Layout));
  if (n)
    memcpy (b + sizeof (Layout), w->h5_chunks, n);
  memcpy (b + sizeof (Layout) + n, w->tmp_path, len);
  return g_bytes_new_take (b, sizeof (Layout) + n + len);
}

/* This rank's writer of Zarr chunks, into the array's directory. */
static gboolean
open_zarr (PlanShardWriter * w, GError ** error)
{
#if HAVE_ZARR
  w->zarr = _plan_zarr_writer_create (w->tmp_path, &w->info,
      w->layout.chunk_rows, w->layout.codec, w->layout.level,
      w->layout.version, w->sync, error);
  if (w->zarr == NULL) {
    g_prefix_error (error, "Could not write '%s': ", w->location);
    return FALSE;
  }
  w->partial = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      _plan_shard_writer_partial_free);
  return TRUE;
#else
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "this gst-plan "
      "was built without Zarr");
  return FALSE;
#endif
}

/* Rank 0 of an HDF5 or Zarr output: the file or directory made by
 * @file_writer, and its layout. */
static gboolean
create_with_writer (PlanShardWriter * w, PlanFileWriter * file_writer,
    GError ** error)
{
  GArray *chunks = NULL;
  PlanFileCodec codec;
  guint level;
  gint version;
  const gchar *target;
  gboolean ok;

  _plan_file_writer_set_shared_rows (file_writer, w->total);
  ok = plan_file_writer_open (file_writer, w->location, w->format, 1,
      w->sync, error) && plan_file_writer_set_info (file_writer, &w->info,
      error);
  _plan_file_writer_set_shared_rows (file_writer, -1);
  if (!ok) {
    plan_file_writer_cancel (file_writer);
    return FALSE;
  }
  w->file_writer = g_object_ref (file_writer);
  target = _plan_file_writer_get_shared_target (file_writer,
      &w->layout.chunk_rows, &chunks, &codec, &level, &version);
  g_assert (target != NULL);
  w->tmp_path = g_strdup (target);
  w->layout.codec = codec;
  w->layout.level = level;
  w->layout.version = version;
#if HAVE_HDF5
  if (w->format == PLAN_FILE_FORMAT_HDF5
      && _plan_file_writer_get_shared_filters (file_writer,
          &w->layout.filters)) {
    /* Compressed: libhdf5 keeps the file; this rank's whole chunks go
     * into it as they come. */
    w->layout.filtered = 1;
    w->layout.chunk_rows = w->layout.filters.chunk_rows;
    w->layout.n_chunks = 0;
    _plan_shard_writer_start_filtering (w);
    _plan_shard_writer_remember_temp (w->tmp_path);
    w->spools = g_new (SpoolNames, 1);
    w->spools->prefix = _plan_shard_writer_spools_prefix (w->tmp_path);
    w->spools->n_ranks = plan_comm_get_size (w->comm);
    _plan_shard_writer_remember_spools (w->spools);
    return TRUE;
  }
#endif
  if (w->format == PLAN_FILE_FORMAT_HDF5) {
    w->layout.n_chunks = chunks->len;
    w->h5_chunks = g_memdup2 (chunks->data, chunks->len * sizeof (guint64));
    w->fd = g_open (w->tmp_path, O_WRONLY | O_CLOEXEC, 0);
    if (w->fd < 0)
      return _plan_shard_writer_set_io_error (error, "open the shared output",
          w->tmp_path);
    _plan_shard_writer_remember_temp (w->tmp_path);
    return TRUE;
  }
  if (!open_zarr (w, error))
    return FALSE;
  /* The store's temporary directory (the array's own in the add mode),
   * which holds the array's. */
  if (plan_file_writer_get_temp_path (file_writer))
    w->tree = remember_tree (plan_file_writer_get_temp_path (file_writer));
  return TRUE;
}

/**
 * plan_shard_writer_new:
 * @comm: the job's #PlanComm
 * @owner: the name of the element writing (the same on every rank); it
 *   tags the writer's messages
 * @location: the output file
 * @format: %PLAN_FILE_FORMAT_NPY or %PLAN_FILE_FORMAT_RAW
 * @info: the dtype and row shape of the array (its outermost extent is
 *   ignored)
 * @total_rows: the rows of the whole array, across the ranks
 * @sync: whether each rank fsync()s its rows before the file is renamed
 * @error: return location for a #GError
 *
 * Starts writing @location together with the other ranks, which must
 * all call this with the same arguments. Rank 0 creates the file; the
 * others open it when they first write.
 *
 * Returns: (transfer full): a writer, or %NULL with @error set
 *
 * Since: 0.1
 */
PlanShardWriter *
plan_shard_writer_new (PlanComm * comm, const gchar * owner,
    const gchar * location, PlanFileFormat format, const PlanArrayInfo * info,
    guint64 total_rows, gboolean sync, GError ** error)
{
  g_return_val_if_fail (format == PLAN_FILE_FORMAT_NPY
      || format == PLAN_FILE_FORMAT_RAW, NULL);

  return plan_shard_writer_new_full (comm, owner, NULL, location, format,
      info, total_rows, sync, error);
}

/**
 * plan_shard_writer_new_full:
 * @comm: the job's #PlanComm
 * @owner: the name of the element writing (the same on every rank); it
 *   tags the writer's messages
 * @file_writer: (nullable): for %PLAN_FILE_FORMAT_HDF5 and
 *   %PLAN_FILE_FORMAT_ZARR on rank 0, a #PlanFileWriter that is not open,
 *   set up for the output (its dataset, chunk rows, codec, Zarr version
 *   and mode: plan_file_writer_set_dataset() and the others); it makes
 *   the output's file or directory and puts it in place. Ignored on the
 *   other ranks and for the other formats.
 * @location: the output file (or Zarr store)
 * @format: %PLAN_FILE_FORMAT_NPY, %PLAN_FILE_FORMAT_RAW,
 *   %PLAN_FILE_FORMAT_HDF5 or %PLAN_FILE_FORMAT_ZARR
 * @info: the dtype and row shape of the array (its outermost extent is
 *   ignored)
 * @total_rows: the rows of the whole array, across the ranks
 * @sync: whether each rank fsync()s its rows before the file is renamed
 * @error: return location for a #GError
 *
 * As plan_shard_writer_new(), for HDF5 and Zarr outputs too. An
 * uncompressed HDF5 output has its chunks allocated at the start; each
 * rank writes its rows into them. Each rank filters the chunks of its
 * rows of a compressed HDF5 output and spools them beside the file, and
 * rank 0 writes them all into it at the end (with the chunks that
 * straddle two ranks' shares, from their rows). Each rank writes the Zarr chunks of its rows, compressed as
 * @file_writer says; rank 0 completes the chunks that straddle two
 * ranks' shares from the rows the others send it at the end.
 *
 * Returns: (transfer full): a writer, or %NULL with @error set
 *
 * Since: 0.1
 */
PlanShardWriter *
plan_shard_writer_new_full (PlanComm * comm, const gchar * owner,
    PlanFileWriter * file_writer, const gchar * location,
    PlanFileFormat format, const PlanArrayInfo * info, guint64 total_rows,
    gboolean sync, GError ** error)
{
  static gsize debug_done = 0;
  PlanShardWriter *w;
  gboolean shaped = format == PLAN_FILE_FORMAT_HDF5
      || format == PLAN_FILE_FORMAT_ZARR;
  guint r;

  g_return_val_if_fail (comm != NULL && owner != NULL, NULL);
  g_return_val_if_fail (location != NULL && info != NULL, NULL);
  g_return_val_if_fail (!shaped || plan_comm_get_rank (comm) != 0
      || PLAN_IS_FILE_WRITER (file_writer), NULL);

  /* Sinks start on threads of their own: once, for all of them. */
  if (g_once_init_enter (&debug_done)) {
    GST_DEBUG_CATEGORY_INIT (plan_shard_writer_debug, "planshardwriter", 0,
        "an output shared by the ranks of an MPI job");
    g_once_init_leave (&debug_done, 1);
  }

  w = g_new0 (PlanShardWriter, 1);
  w->comm = comm;
  w->location = g_strdup (location);
  w->format = format;
  w->info = *info;
  w->fd = -1;
  w->spool_fd = -1;
  g_mutex_init (&w->lock);
  g_cond_init (&w->done_cond);
  w->name_tag = plan_comm_tag (comm, owner, PLAN_COMM_OUTPUT);
  w->done_tag = plan_comm_tag (comm, owner, PLAN_COMM_OUTPUT_DONE);
  w->row_size = plan_array_info_get_row_size (info);
  w->total = total_rows;
  w->sync = sync;
  if (format == PLAN_FILE_FORMAT_NPY) {
    PlanArrayInfo whole = *info;

    /* Every rank writes its rows after the header rank 0 writes. */
    whole.shape[0] = total_rows;
    w->header_size = plan_npy_get_header_size (&whole);
  }
  if (shaped && (info->ndim == 0 || w->row_size == 0)) {
    /* Never sharded: a sharded stream has rows, and a row has bytes. */
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE, "Could not write "
        "'%s': the ranks of a sharded run do not write one HDF5 or Zarr "
        "array of %s together", location, info->ndim == 0 ? "0 dimensions"
        : "empty rows");
    plan_comm_abort (comm, (*error)->message);
    w->finished = TRUE;
    plan_shard_writer_free (w);
    return NULL;
  }
  if (plan_comm_get_rank (comm) == 0) {
    GBytes *name;

    if (!check_location (location, format, error)) {
      plan_comm_abort (comm, (*error)->message);
      w->finished = TRUE;
      plan_shard_writer_free (w);
      return NULL;
    }
    if (!(shaped ? create_with_writer (w, file_writer, error) :
            create_file (w, format, info, error))) {
      plan_comm_abort (comm, (*error)->message);
      plan_shard_writer_free (w);
      return NULL;
    }
    name = shaped ? layout_message (w) :
        g_bytes_new (w->tmp_path, strlen (w->tmp_path) + 1);
    for (r = 1; r < plan_comm_get_size (comm); r++)
      plan_comm_send (comm, r, w->name_tag, name);
    g_bytes_unref (name);
  }
  return w;
}

static gboolean outcome_parse (GBytes * outcome, guint64 * rows,
    gchar ** message);

/* How long a rank whose file is gone, or whose write failed, waits to
 * hear of a failure elsewhere that caused it. */
#define FAILURE_NEWS_MS 3000

/* The file rank 0 made is not there. Either rank 0 removed it before this
 * rank opened it: the job failed elsewhere, and rank 0's verdict (or the
 * failed rank's own word) says why; rank 0 removes it only after telling
 * the ranks of the failure, so that word comes. Or this rank does not see
 * the directory rank 0 made it in (a host without the file system the
 * output is on): no rank will ever tell, and this rank fails, telling the
 * others, who would wait for its rows for ever. */
static gboolean
gone (PlanShardWriter * w, GError ** error)
{
  GBytes *verdict;
  guint64 rows;
  gchar *why;

  if (_plan_comm_check_failed (w->comm, FAILURE_NEWS_MS, NULL)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "rank %u does not "
        "see the shared output '%s' that rank 0 made: every rank must see "
        "the output's directory (one file system shared by the ranks)",
        plan_comm_get_rank (w->comm), w->tmp_path);
    plan_comm_abort (w->comm, (*error)->message);
    w->finished = TRUE;
    return FALSE;
  }
  verdict = plan_comm_recv (w->comm, 0, w->name_tag,
      w->cancellable, error);
  if (verdict == NULL)
    return FALSE;
  outcome_parse (verdict, &rows, &why);
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "'%s' was not written: %s",
      w->location, why ? why : "a rank failed");
  g_free (why);
  g_bytes_unref (verdict);
  w->finished = TRUE;
  return FALSE;
}

/* Whether this rank has where to write. */
static gboolean
is_open (PlanShardWriter * w)
{
  return w->fd >= 0 || w->zarr || (w->layout.filtered
      && (w->spool_fd >= 0 || plan_comm_get_rank (w->comm) == 0));
}

/* A rank but 0 of a compressed HDF5 output: its spool, beside the file
 * rank 0 made. */
static gboolean
open_spool (PlanShardWriter * w, GError ** error)
{
#if !HAVE_HDF5
  g_assert_not_reached ();
  return FALSE;
#else
  if (!g_file_test (w->tmp_path, G_FILE_TEST_EXISTS))
    return gone (w, error);
  return _plan_shard_writer_open_spool (w, error);
#endif
}

/* The other ranks: the file rank 0 made. */
static gboolean
ensure_open (PlanShardWriter * w, GError ** error)
{
  GBytes *name;
  gsize n;
  const gchar *path;

  if (is_open (w) || w->tmp_path != NULL)
    return is_open (w);
  name = plan_comm_recv (w->comm, 0, w->name_tag,
      w->cancellable, error);
  if (name == NULL)
    return FALSE;
  path = g_bytes_get_data (name, &n);
  if (w->format == PLAN_FILE_FORMAT_HDF5
      || w->format == PLAN_FILE_FORMAT_ZARR) {
    gsize offsets;

    g_assert (n >= sizeof (Layout));
    memcpy (&w->layout, path, sizeof (Layout));
    offsets = w->layout.n_chunks * sizeof (guint64);
    g_assert (n >= sizeof (Layout) + offsets);
    w->h5_chunks = g_memdup2 (path + sizeof (Layout), offsets);
    path += sizeof (Layout) + offsets;
    n -= sizeof (Layout) + offsets;
  }
  w->tmp_path = g_strndup (path, n);
  g_bytes_unref (name);
  if (w->format == PLAN_FILE_FORMAT_ZARR) {
    if (!g_file_test (w->tmp_path, G_FILE_TEST_IS_DIR))
      return gone (w, error);
    return open_zarr (w, error);
  }
  if (w->layout.filtered)
    return open_spool (w, error);
  w->fd = g_open (w->tmp_path, O_WRONLY | O_CLOEXEC, 0);
  if (w->fd < 0 && errno == ENOENT)
    return gone (w, error);
  if (w->fd < 0)
    return _plan_shard_writer_set_io_error (error, "open the shared output",
        w->tmp_path);
  return TRUE;
}

/**
 * plan_shard_writer_write:
 * @writer: a #PlanShardWriter
 * @row: the global row of the first row
 * @data: (array): @n_rows rows
 * @n_rows: the number of rows; with @row no more than the total
 * @error: return location for a #GError
 *
 * Writes rows at their place in the file.
 *
 * Returns: %TRUE, or %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
_plan_shard_writer_pwrite_to (gint fd, const gchar * path, const guint8 * p,
    gsize left, goffset at, GError ** error)
{
  while (left > 0) {
    gssize done = pwrite (fd, p, left, at);

    if (done < 0 && errno == EINTR)
      continue;
    if (done <= 0)
      return _plan_shard_writer_set_io_error (error, "write", path);
    p += done;
    at += done;
    left -= done;
  }
  return TRUE;
}

static gboolean
pwrite_full (PlanShardWriter * w, const guint8 * p, gsize left, goffset at,
    GError ** error)
{
  return _plan_shard_writer_pwrite_to (w->fd, w->tmp_path, p, left, at, error);
}

/* The rows of Zarr or HDF5 chunk @index in the array. */
#if HAVE_ZARR || HAVE_HDF5
guint64
_plan_shard_writer_chunk_n_rows (PlanShardWriter * w, guint64 index)
{
  guint64 first = index * w->layout.chunk_rows;

  return MIN (w->layout.chunk_rows, w->total - first);
}

/* Chunk @index whole, of @n_rows rows: written. */
static gboolean
chunk_done (PlanShardWriter * w, guint64 index, const guint8 * data,
    guint64 n_rows, GError ** error)
{
#if HAVE_HDF5
  if (w->layout.filtered)
    return _plan_shard_writer_h5_chunk_done (w, index, data, n_rows, error);
#endif
#if HAVE_ZARR
  return _plan_zarr_writer_write_chunk (w->zarr, index, data, n_rows, error);
#else
  g_assert_not_reached ();
  return FALSE;
#endif
}

/* Rank 0, at the end: every chunk shared by ranks was completed (a chunk
 * still in w->partial lacks some rows no rank wrote). */
gboolean
_plan_shard_writer_check_partials_complete (PlanShardWriter * w,
    GError ** error)
{
  GHashTableIter it;
  gpointer key;

  if (w->partial == NULL || g_hash_table_size (w->partial) == 0)
    return TRUE;
  g_hash_table_iter_init (&it, w->partial);
  g_hash_table_iter_next (&it, &key, NULL);
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "no rank wrote some rows "
      "of its chunk %" G_GINT64_FORMAT, *(gint64 *) key);
  return FALSE;
}

/* Rows @at.. of chunk @index into its partial chunk; the chunk is
 * written when it is whole. @set: which of the rows are set (NULL: all). */
gboolean
_plan_shard_writer_add_to_partial (PlanShardWriter * w, guint64 index,
    guint64 at, const guint8 * data, const guint8 * set, guint64 n,
    GError ** error)
{
  Partial *p = g_hash_table_lookup (w->partial, &index);
  gboolean ok = TRUE;
  guint64 i;

  if (p == NULL) {
    gint64 *key = g_new (gint64, 1);

    *key = index;
    p = g_new0 (Partial, 1);
    p->n_rows = _plan_shard_writer_chunk_n_rows (w, index);
    p->set = g_malloc0 (p->n_rows);
    p->data = g_malloc0 (p->n_rows * w->row_size);
    g_hash_table_insert (w->partial, key, p);
  }
  for (i = 0; i < n; i++) {
    if (set && !set[i])
      continue;
    memcpy (p->data + (at + i) * w->row_size, data + i * w->row_size,
        w->row_size);
    p->have += !p->set[at + i];
    p->set[at + i] = 1;
  }
  if (p->have == p->n_rows) {
    ok = chunk_done (w, index, p->data, p->n_rows, error);
    g_hash_table_remove (w->partial, &index);
  }
  return ok;
}

/* Rows into the Zarr or compressed HDF5 chunks they fall in: whole
 * chunks written at once (for Zarr, by the pool), parts of chunks kept
 * until the rest comes. */
static gboolean
write_chunks (PlanShardWriter * w, guint64 row, const guint8 * data,
    guint64 n_rows, GError ** error)
{
  while (n_rows > 0) {
    guint64 index = row / w->layout.chunk_rows;
    guint64 at = row - index * w->layout.chunk_rows;
    guint64 in_chunk = _plan_shard_writer_chunk_n_rows (w, index);
    guint64 n = MIN (n_rows, in_chunk - at);
    gboolean ok;

    if (at == 0 && n == in_chunk && !g_hash_table_contains (w->partial,
            &index))
      ok = chunk_done (w, index, data, n, error);
    else
      ok = _plan_shard_writer_add_to_partial (w, index, at, data, NULL, n,
          error);
    if (!ok) {
      if (w->zarr)
        g_prefix_error (error, "Could not write '%s': ", w->location);
      return FALSE;
    }
    row += n;
    data += n * w->row_size;
    n_rows -= n;
  }
  return TRUE;
}
#endif


static gboolean write_rows (PlanShardWriter * w, guint64 row,
    const guint8 * p, gsize n_rows, GError ** error);

gboolean
plan_shard_writer_write (PlanShardWriter * writer, guint64 row,
    gconstpointer data, gsize n_rows, GError ** error)
{
  PlanShardWriter *w = writer;
  const guint8 *p = data;

  g_return_val_if_fail (writer != NULL, FALSE);

  if (row + n_rows > w->total) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE, "rows %"
        G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT " are past the %"
        G_GUINT64_FORMAT " rows of '%s'", row, row + n_rows, w->total,
        w->location);
    return FALSE;
  }
  /* Another rank's failure ends the job: stop writing here too (rank 0
   * is removing the output). A write that fails here may be that removal
   * seen first (a chunk into a store rank 0 took away): the news of the
   * failure is then on its way, and it is the error to give. */
  if (!_plan_comm_check_failed (w->comm, 0, error))
    return FALSE;
  if (!write_rows (w, row, p, n_rows, error)) {
    GError *failure = NULL;

    if (!_plan_comm_check_failed (w->comm, FAILURE_NEWS_MS, &failure)) {
      g_clear_error (error);
      g_propagate_error (error, failure);
    }
    return FALSE;
  }
  w->rows_written += n_rows;
  return TRUE;
}

/* Writes @n_rows rows from @row where they go in the output. */
static gboolean
write_rows (PlanShardWriter * w, guint64 row, const guint8 * p, gsize n_rows,
    GError ** error)
{
  gsize left = n_rows * w->row_size;
  goffset at = w->header_size + row * w->row_size;

  if (!ensure_open (w, error))
    return FALSE;
  if (w->format == PLAN_FILE_FORMAT_HDF5 && w->layout.filtered) {
#if HAVE_HDF5
    if (!write_chunks (w, row, p, n_rows, error))
      return FALSE;
#endif
  } else if (w->format == PLAN_FILE_FORMAT_HDF5) {
    /* Each chunk's part where the chunk lies in the file. */
    guint64 r = row, end = row + n_rows;

    while (r < end) {
      guint64 index = r / w->layout.chunk_rows;
      guint64 first = index * w->layout.chunk_rows;
      guint64 n = MIN (end, first + w->layout.chunk_rows) - r;

      if (index >= w->layout.n_chunks) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "'%s' has no chunk "
            "for row %" G_GUINT64_FORMAT, w->location, r);
        return FALSE;
      }
      if (!pwrite_full (w, p, n * w->row_size, w->h5_chunks[index] +
              (r - first) * w->row_size, error))
        return FALSE;
      p += n * w->row_size;
      r += n;
    }
  } else if (w->format == PLAN_FILE_FORMAT_ZARR) {
#if HAVE_ZARR
    if (!write_chunks (w, row, p, n_rows, error))
      return FALSE;
#endif
  } else if (!pwrite_full (w, p, left, at, error)) {
    return FALSE;
  }
  return TRUE;
}

/* An outcome: status byte, rows written, then a message. */
static GBytes *
outcome_new (gboolean ok, guint64 rows, const gchar * message)
{
  gsize len = message ? strlen (message) : 0;
  guint8 *b = g_malloc (1 + sizeof rows + len);

  b[0] = ok;
  memcpy (b + 1, &rows, sizeof rows);
  if (len)
    memcpy (b + 1 + sizeof rows, message, len);
  return g_bytes_new_take (b, 1 + sizeof rows + len);
}

static gboolean
outcome_parse (GBytes * outcome, guint64 * rows, gchar ** message)
{
  gsize n;
  const guint8 *b = g_bytes_get_data (outcome, &n);

  *rows = 0;
  *message = NULL;
  if (n < 1 + sizeof (guint64)) {
    *message = g_strdup ("a malformed outcome");
    return FALSE;
  }
  memcpy (rows, b + 1, sizeof (guint64));
  if (n > 1 + sizeof (guint64))
    *message = g_strndup ((const gchar *) b + 1 + sizeof (guint64),
        n - 1 - sizeof (guint64));
  return b[0] == 1;
}

#if HAVE_ZARR
static void send_partials (PlanShardWriter * w);
#endif

/* This rank's part: its rows on disk, the file closed (for Zarr, but on
 * rank 0, its rows of shared chunks sent to rank 0, and its chunks
 * written). */
static gboolean
close_own (PlanShardWriter * w, GError ** error)
{
  gboolean ok = TRUE;

#if HAVE_ZARR
  if (w->zarr && plan_comm_get_rank (w->comm) != 0) {
    PlanZarrWriter *zarr = w->zarr;

    send_partials (w);
    w->zarr = NULL;
    if (!_plan_zarr_writer_close_chunks (zarr, error)) {
      g_prefix_error (error, "Could not write '%s': ", w->location);
      return FALSE;
    }
    return TRUE;
  }
#endif
#if HAVE_HDF5
  if (w->spool_fd >= 0)
    return _plan_shard_writer_close_spool (w, error);
  if (w->pool && !_plan_shard_writer_drain_pool (w, error))
    return FALSE;
#endif
  if (w->fd < 0)
    return TRUE;
  if (w->sync && fsync (w->fd) != 0)
    ok = _plan_shard_writer_set_io_error (error, "sync", w->tmp_path);
  if (close (w->fd) != 0 && ok)
    ok = _plan_shard_writer_set_io_error (error, "close", w->tmp_path);
  w->fd = -1;
  return ok;
}

#if HAVE_ZARR
/* A Zarr rank: the rows it has of chunks it does not have whole, to rank
 * 0. */
static void
send_partials (PlanShardWriter * w)
{
  GHashTableIter it;
  gpointer key, value;

  if (w->partial == NULL)
    return;
  g_hash_table_iter_init (&it, w->partial);
  while (g_hash_table_iter_next (&it, &key, &value)) {
    Partial *p = value;
    guint64 index = *(gint64 *) key;
    gsize size = 1 + 2 * sizeof (guint64) + p->n_rows +
        p->n_rows * w->row_size;
    guint8 *b = g_malloc (size);
    GBytes *piece;

    b[0] = PIECE;
    memcpy (b + 1, &index, sizeof index);
    memcpy (b + 1 + sizeof index, &p->n_rows, sizeof p->n_rows);
    memcpy (b + 1 + 2 * sizeof (guint64), p->set, p->n_rows);
    memcpy (b + 1 + 2 * sizeof (guint64) + p->n_rows, p->data,
        p->n_rows * w->row_size);
    piece = g_bytes_new_take (b, size);
    plan_comm_send (w->comm, 0, w->done_tag, piece);
    g_bytes_unref (piece);
  }
  g_hash_table_remove_all (w->partial);
}
#endif

/* Rank 0: another rank's rows of a Zarr chunk, added to its own. */
static gboolean
take_piece (PlanShardWriter * w, GBytes * piece, GError ** error)
{
#if HAVE_ZARR
  gsize size;
  const guint8 *b = g_bytes_get_data (piece, &size);
  guint64 index, n;

  g_assert (size >= 1 + 2 * sizeof (guint64));
  memcpy (&index, b + 1, sizeof index);
  memcpy (&n, b + 1 + sizeof index, sizeof n);
  g_assert (size == 1 + 2 * sizeof (guint64) + n + n * w->row_size);
  if (w->zarr == NULL || index * w->layout.chunk_rows >= w->total
      || n != _plan_shard_writer_chunk_n_rows (w, index)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "rows of a chunk that "
        "'%s' does not have came", w->location);
    return FALSE;
  }
  return _plan_shard_writer_add_to_partial (w, index, 0,
      b + 1 + 2 * sizeof (guint64) + n, b + 1 + 2 * sizeof (guint64), n,
      error);
#else
  return FALSE;
#endif
}

/* Rank 0: the Zarr chunks done, before the verdict. */
static gboolean
close_zarr (PlanShardWriter * w, GError ** error)
{
#if HAVE_ZARR
  PlanZarrWriter *zarr = w->zarr;

  if (zarr == NULL)
    return TRUE;
  w->zarr = NULL;
  if (!_plan_shard_writer_check_partials_complete (w, error)) {
    _plan_zarr_writer_close (zarr, NULL);
    return FALSE;
  }
  return _plan_zarr_writer_close_chunks (zarr, error);
#else
  return TRUE;
#endif
}

/* Rank 0: every rank's outcome, then the verdict. */
static GBytes *
decide (PlanShardWriter * w, gboolean own_ok, const gchar * own_why)
{
  guint n = plan_comm_get_size (w->comm), r;
  guint64 rows = w->rows_written;
  GString *why = g_string_new (NULL);
  gboolean ok = own_ok;
  GBytes *verdict;
  SpoolWhere **wheres = g_new0 (SpoolWhere *, n);

  if (!own_ok)
    g_string_append_printf (why, "rank 0: %s", own_why);
  for (r = 1; r < n; r++) {
    GError *err = NULL;
    GBytes *outcome = plan_comm_recv (w->comm, r, w->done_tag,
        w->cancellable, &err);
    guint64 their_rows;
    gchar *their_why;

    /* A Zarr rank's rows of chunks it shares, or where a compressed
     * HDF5 rank's spool table is, come before its outcome. */
    while (outcome && g_bytes_get_size (outcome) > 0 &&
        (((const guint8 *) g_bytes_get_data (outcome, NULL))[0] == PIECE ||
            ((const guint8 *) g_bytes_get_data (outcome, NULL))[0] ==
            SPOOL)) {
      gsize size;
      const guint8 *b = g_bytes_get_data (outcome, &size);

      if (b[0] == SPOOL) {
        if (size == 1 + sizeof (SpoolWhere) && wheres[r] == NULL)
          wheres[r] = g_memdup2 (b + 1, sizeof (SpoolWhere));
      } else if (ok && !take_piece (w, outcome, &err)) {
        g_string_append_printf (why, "rank 0: %s", err->message);
        g_clear_error (&err);
        ok = FALSE;
      }
      g_bytes_unref (outcome);
      outcome = plan_comm_recv (w->comm, r, w->done_tag,
          w->cancellable, &err);
    }
    if (outcome == NULL) {
      if (why->len == 0)
        g_string_append (why, err->message);
      g_error_free (err);
      ok = FALSE;
      break;
    }
    if (!outcome_parse (outcome, &their_rows, &their_why)) {
      if (why->len == 0)
        g_string_append_printf (why, "rank %u: %s", r,
            their_why ? their_why : "failed");
      ok = FALSE;
    }
    rows += their_rows;
    g_free (their_why);
    g_bytes_unref (outcome);
  }
  if (ok && rows != w->total) {
    g_string_append_printf (why, "the ranks wrote %" G_GUINT64_FORMAT
        " rows of %" G_GUINT64_FORMAT, rows, w->total);
    ok = FALSE;
  }
  if (w->zarr) {
    GError *err = NULL;

    if (!close_zarr (w, &err) && ok) {
      g_string_append_printf (why, "rank 0: %s", err->message);
      ok = FALSE;
    }
    g_clear_error (&err);
  }
#if HAVE_HDF5
  if (w->layout.filtered) {
    GError *err = NULL;

    if (ok && !_plan_shard_writer_assemble_h5 (w, wheres, &err)) {
      g_string_append_printf (why, "rank 0: %s", err->message);
      ok = FALSE;
    }
    g_clear_error (&err);
    _plan_shard_writer_remove_spools (w);
  }
#endif
  for (r = 0; r < n; r++)
    g_free (wheres[r]);
  g_free (wheres);
  forget_temp (w->tmp_path);
  forget_tree (w->tree);
  if (w->file_writer) {
    GError *err = NULL;

    /* The metadata, and the file or directory put in place. */
    if (ok && !plan_file_writer_finish (w->file_writer, &err)) {
      g_string_append_printf (why, "rank 0: %s", err->message);
      ok = FALSE;
    }
    g_clear_error (&err);
    plan_file_writer_cancel (w->file_writer);
  } else if (ok && g_rename (w->tmp_path, w->location) != 0) {
    int e = errno;

    g_string_append_printf (why, "could not rename '%s' to '%s': %s",
        w->tmp_path, w->location, g_strerror (e));
    ok = FALSE;
  }
  if (!ok && w->file_writer == NULL)
    g_unlink (w->tmp_path);
  verdict = outcome_new (ok, rows, why->str);
  g_string_free (why, TRUE);
  for (r = 1; r < n; r++)
    plan_comm_send (w->comm, r, w->name_tag, verdict);
  return verdict;
}

/* plan_shard_writer_finish_full(), with w->cancellable set. */
static gboolean
finish (PlanShardWriter * w, GError ** error)
{
  GError *err = NULL;
  GBytes *verdict;
  guint64 rows;
  gchar *why;
  gboolean own_ok;

  own_ok = (plan_comm_get_rank (w->comm) == 0 || ensure_open (w, &err))
      && close_own (w, &err);
  w->finished = TRUE;
  /* (a spool is removed by plan_shard_writer_free(), after the
   * verdict) */
  if (plan_comm_get_rank (w->comm) == 0) {
    verdict = decide (w, own_ok, err ? err->message : NULL);
  } else {
    GBytes *outcome = outcome_new (own_ok, w->rows_written,
        err ? err->message : NULL);

    plan_comm_send (w->comm, 0, w->done_tag, outcome);
    g_bytes_unref (outcome);
    verdict = plan_comm_recv (w->comm, 0, w->name_tag,
      w->cancellable, error);
    if (verdict == NULL) {
      g_clear_error (&err);
      return FALSE;
    }
  }
  g_clear_error (&err);
  if (outcome_parse (verdict, &rows, &why)) {
    g_free (why);
    g_bytes_unref (verdict);
    return TRUE;
  }
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "'%s' was not written: %s",
      w->location, why ? why : "a rank failed");
  g_free (why);
  g_bytes_unref (verdict);
  return FALSE;
}

/**
 * plan_shard_writer_finish:
 * @writer: a #PlanShardWriter
 * @error: return location for a #GError
 *
 * Ends this rank's part and waits for the job's verdict: every rank must
 * call it (or fail, which plan_shard_writer_free() tells the others).
 *
 * Returns: %TRUE when the whole file is in place, or %FALSE with @error
 *   set, saying which rank failed and why; the output is then not written
 *
 * Since: 0.1
 */
gboolean
plan_shard_writer_finish (PlanShardWriter * writer, GError ** error)
{
  return plan_shard_writer_finish_full (writer, NULL, error);
}

/**
 * plan_shard_writer_finish_full:
 * @writer: a #PlanShardWriter
 * @cancellable: (nullable): a #GCancellable to stop waiting for the other
 *   ranks
 * @error: return location for a #GError
 *
 * As plan_shard_writer_finish(), and it stops waiting for the other ranks
 * when @cancellable is cancelled (a rank that died never reports): it then
 * fails, and rank 0 removes the temporary file and the other ranks' spools
 * and tells the ranks that the output was not written.
 *
 * Returns: %TRUE when the whole file is in place, or %FALSE with @error
 *   set
 *
 * Since: 0.1
 */
gboolean
plan_shard_writer_finish_full (PlanShardWriter * writer,
    GCancellable * cancellable, GError ** error)
{
  gboolean ok;

  g_return_val_if_fail (writer != NULL, FALSE);
  g_return_val_if_fail (cancellable == NULL
      || G_IS_CANCELLABLE (cancellable), FALSE);

  /* Only the waits of this call: not kept beyond it. */
  writer->cancellable = cancellable;
  ok = finish (writer, error);
  writer->cancellable = NULL;
  return ok;
}

/**
 * plan_shard_writer_free:
 * @writer: (transfer full): a #PlanShardWriter
 *
 * Frees @writer. Before plan_shard_writer_finish() this is a failure of
 * this rank: the others are told, and rank 0 removes the file.
 *
 * Since: 0.1
 */
void
plan_shard_writer_free (PlanShardWriter * writer)
{
  PlanShardWriter *w = writer;

  if (w == NULL)
    return;
  if (w->pool) {
    /* The chunks queued are dropped (each sees the failure), those being
     * filtered end. */
    g_mutex_lock (&w->lock);
    if (w->pool_error == NULL)
      w->pool_error = g_error_new_literal (PLAN_ERROR, PLAN_ERROR_IO,
          "stopped");
    g_mutex_unlock (&w->lock);
    g_thread_pool_free (w->pool, FALSE, TRUE);
  }
  g_clear_error (&w->pool_error);
  g_mutex_clear (&w->lock);
  g_cond_clear (&w->done_cond);
  if (w->fd >= 0)
    close (w->fd);
  if (w->spool_fd >= 0)
    close (w->spool_fd);
  if (w->spool_path) {
    /* Read by rank 0 before the verdict, or of a failed job: done. */
    g_unlink (w->spool_path);
    forget_temp (w->spool_path);
    g_free (w->spool_path);
  }
  if (w->spools) {
    /* Rank 0: those of the ranks that could not remove theirs (killed,
     * or ended by mpirun before they could). */
    forget_spools (w->spools);
    unlink_spools (w->spools->prefix, w->spools->n_ranks);
    g_free (w->spools->prefix);
    g_free (w->spools);
  }
  if (w->spool_table)
    g_array_unref (w->spool_table);
#if HAVE_ZARR
  if (w->zarr)
    _plan_zarr_writer_close (w->zarr, NULL);
#endif
  if (w->partial)
    g_hash_table_unref (w->partial);
  if (!w->finished) {
    gchar *why = g_strdup_printf ("stopped before writing all its rows of "
        "'%s'", w->location);

    plan_comm_abort (w->comm, why);
    g_free (why);
    if (w->file_writer)
      plan_file_writer_cancel (w->file_writer);
    else if (plan_comm_get_rank (w->comm) == 0 && w->tmp_path)
      g_unlink (w->tmp_path);
  }
  if (w->file_writer)
    g_object_unref (w->file_writer);
  g_free (w->h5_chunks);
  if (w->tmp_path)
    forget_temp (w->tmp_path);
  g_clear_pointer (&w->tree, free_tree);
  g_free (w->tmp_path);
  g_free (w->location);
  g_free (w);
}

/**
 * plan_shard_rank_location:
 * @location: an output file
 * @rank: a rank
 * @n_ranks: the number of ranks
 *
 * Returns: (transfer full): the file of @rank when each rank writes its
 *   own: `out.npy` becomes `out.rank1-of-4.npy` (the rank's number
 *   before the extension, or at the end without one)
 *
 * Since: 0.1
 */
gchar *
plan_shard_rank_location (const gchar * location, guint rank, guint n_ranks)
{
  const gchar *slash = strrchr (location, '/');
  const gchar *dot = strrchr (location, '.');

  if (dot == NULL || (slash && dot < slash) || dot == (slash ? slash + 1 :
          location))
    return g_strdup_printf ("%s.rank%u-of-%u", location, rank, n_ranks);
  return g_strdup_printf ("%.*s.rank%u-of-%u%s", (int) (dot - location),
      location, rank, n_ranks, dot);
}
