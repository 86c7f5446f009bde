/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planfilewriter
 * @title: PlanFileWriter
 * @short_description: atomic write-behind of array files on a worker thread
 *
 * A #PlanFileWriter writes chunks of an array to a raw, .npy, .npz or
 * HDF5 file on a worker thread of its own, behind its producer, and puts
 * the file in place atomically. It is what planfilesink is a thin wrapper
 * of.
 *
 * A .npz file is a zip archive of one member, a .npy file named by
 * plan_file_writer_set_member(), stored or deflated (at the level that
 * plan_file_writer_set_dataset() sets) as the chunks come; its sizes,
 * CRC-32 and .npy header are completed at finish, and zip64 records are
 * written where a size or an offset passes 4 GiB. It needs a regular
 * file. With %PLAN_FILE_MODE_ADD the members of an archive there are
 * copied ahead of it, and kept.
 *
 * An HDF5 file is written through libhdf5 (when gst-plan is built with
 * it) into a named temporary file (libhdf5 opens files by name), with one
 * chunked dataset created by plan_file_writer_set_info() and grown by each
 * chunk; plan_file_writer_set_dataset() names it and sets its layout.
 * With plan_file_writer_set_mode() %PLAN_FILE_MODE_ADD the temporary
 * file starts as a copy of the HDF5 file at the location (a reflink where
 * the file system shares blocks: Btrfs, XFS), the dataset is added to the
 * copy (one of the same path deleted first), and the copy replaces the
 * file at finish: its other datasets are kept, and a failure at any point
 * leaves the file as it was.
 *
 * A Zarr v2 array (when gst-plan is built with Zarr) is written into a
 * hidden temporary directory beside the store (`.NAME.XXXXXX.part`), its
 * chunks encoded and written by a pool of threads as rows come and its
 * .zarray last; at finish the directory is renamed into place, exchanged
 * with a store that is there (`renameat2`), which is then removed. With
 * %PLAN_FILE_MODE_ADD the temporary directory is the new array's, made in
 * the group it goes to, and the store's other arrays stay.
 *
 * Use:
 *
 * 1. plan_file_writer_open() creates the file the data goes to, in the
 *    target's directory (so that putting it in place stays within one file
 *    system), and starts the worker. Where the file system supports it,
 *    the file is unnamed (`O_TMPFILE`): until it is linked into place it
 *    has no name, and a process that dies, whatever kills it, leaves
 *    nothing behind. Elsewhere (file systems without `O_TMPFILE`, such as
 *    NFS, SMB, FAT, or without /proc mounted) it is a hidden temporary
 *    file, `.NAME.XXXXXX.part` (NAME cut short when the whole would not
 *    fit in a file name), removed on cancel but left behind by a process
 *    killed before it could remove it.
 * 2. plan_file_writer_set_info() gives the dtype and row shape; for .npy it
 *    writes a header with room for any row count. It must come before the
 *    first chunk of a .npy file.
 * 3. plan_file_writer_write() queues a chunk. At most @max_pending chunks
 *    wait for the worker; beyond that the caller blocks (back-pressure)
 *    until the worker catches up, the writer is set flushing, or writing
 *    has failed.
 * 4. plan_file_writer_finish() waits for the queue to drain, completes the
 *    .npy header with the final number of rows, optionally fsyncs, and
 *    puts the file in place: an unnamed file is linked to the target
 *    (`linkat`), or when a file is there, linked to a short hidden name
 *    and renamed over it; a temporary file is renamed over the target.
 *    Only now does anything appear at the target, and a file that was
 *    there is replaced whole.
 * 5. plan_file_writer_cancel() (after an error, or when the pipeline stops
 *    before EOS) stops the worker and unlinks the temporary file, leaving
 *    the target as it was.
 *
 * A file already at the target that this user could not open for writing
 * (a read-only file, 0444, of this user or another) is not replaced,
 * although the directory's permissions would let a rename do it: open
 * and finish fail with %G_FILE_ERROR_ACCES and the file is left as it
 * is, as `cp`, numpy and GStreamer's filesink leave it.
 * plan_file_writer_set_replace_read_only() replaces it anyway, as `mv`
 * does.
 *
 * When the target exists and is not a regular file (a device such as
 * /dev/null, or a FIFO) it is written directly, without a temporary file:
 * there is nothing to rename. A FIFO is a stream: open only starts the
 * worker, which opens the FIFO when a reader has opened it (an ordinary
 * open would block the caller until then) and writes it as the reader
 * takes the data; while it waits, cancel (or set_flushing during finish)
 * ends the wait. A .npy header goes first, so it must say the number of
 * rows from the start: set_info needs them (`shape[0]`), and finish
 * checks that as many came.
 *
 * Without @sync the data is not forced to disk before the rename: after a
 * crash of the machine (not of the program) the target may be empty or
 * hold partial data, as for any file written without fsync. With @sync
 * the file is fsync()ed before it is renamed, and the directory it was
 * put in place in after (a failure there is an error, with the file in
 * place).
 *
 * Open, set_info, write, finish and cancel are called by one owner thread;
 * set_flushing from any thread. Errors from system calls are in the
 * %G_FILE_ERROR domain (ENOSPC is %G_FILE_ERROR_NOSPC, ...) and name the
 * target file and the system's message.
 */

/* fallocate() */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/core/plan-private.h"
#include "planfilewriter.h"
#include "planfilewriter-private.h"
#include "plannpy.h"
#include <libplan/planerror.h>

#include <glib/gstdio.h>
#include <gio/gio.h>

#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h>
#endif

/* Blocks are reserved in steps of this many bytes ahead of the writes. On
 * ext4 a write() into reserved blocks costs about 0.6 of one that
 * allocates them as it goes (delayed allocation), which is what
 * tests/benchmarks/bench_fileio.sh measures. */
#define PREALLOC_STEP ((guint64) 64 << 20)

/* An HDF5 or Zarr output's chunks hold about this many bytes of rows when
 * no chunk rows are asked for. */
#define DEFAULT_CHUNK_BYTES ((gsize) 1 << 20)

GST_DEBUG_CATEGORY (plan_file_writer_debug);
#define GST_CAT_DEFAULT plan_file_writer_debug

G_DEFINE_TYPE_WITH_CODE (PlanFileWriter, plan_file_writer, GST_TYPE_OBJECT,
    GST_DEBUG_CATEGORY_INIT (plan_file_writer_debug, "planfilewriter", 0,
        "atomic array file writer"));

static void plan_file_writer_finalize (GObject * object);

static void
plan_file_writer_class_init (PlanFileWriterClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = plan_file_writer_finalize;
}

static void
plan_file_writer_init (PlanFileWriter * self)
{
  self->fd = -1;
  self->zarr_format_set = 2;
  self->shared_rows = -1;
  g_mutex_init (&self->lock);
  g_cond_init (&self->work_cond);
  g_cond_init (&self->space_cond);
  g_queue_init (&self->queue);
}

static void
plan_file_writer_finalize (GObject * object)
{
  PlanFileWriter *self = PLAN_FILE_WRITER (object);

  plan_file_writer_cancel (self);
  g_free (self->dataset);
  g_free (self->member);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->work_cond);
  g_cond_clear (&self->space_cond);

  G_OBJECT_CLASS (plan_file_writer_parent_class)->finalize (object);
}

/**
 * plan_file_writer_new:
 *
 * Returns: (transfer full): a new #PlanFileWriter with no file open.
 *
 * Since: 0.1
 */
PlanFileWriter *
plan_file_writer_new (void)
{
  return gst_object_ref_sink (g_object_new (PLAN_TYPE_FILE_WRITER, NULL));
}

void
_plan_file_writer_set_errno_error (GError ** error, gint err,
    const gchar * what, const gchar * location)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
      "Could not %s '%s': %s", what, location, g_strerror (err));
}

/* The most bytes one write() into a file is given. Linux sizes the page
 * cache's folios by the write: a write of 128 KiB or more gets folios of
 * 128 KiB and more, allocated as whole blocks, and on virtual machines
 * whose guest reports free memory to the host (virtio-balloon free page
 * reporting, by default in blocks of 128 KiB and more), those are the
 * blocks the host took back and must back again at their first touch.
 * Measured on the development VM, 1 GiB copied with dd: 0.55 to 1.35 s
 * (0.36 s of system time) in 64 KiB writes, 2.7 to 8.4 s (1.1 to 2.3 s)
 * in 128 KiB to 2 MiB writes; cp, which copies in 64 KiB pieces
 * (splice), 1.7 to 1.9 s. Elsewhere 64 KiB costs one system call per
 * 64 KiB (about 16,000 a GiB, some milliseconds). */
#define WRITE_PIECE ((gsize) 64 << 10)

gboolean
_plan_file_writer_write_full (gint fd, const guint8 * data, gsize size,
    const gchar * location, GError ** error)
{
  while (size > 0) {
    gssize n = write (fd, data, MIN (size, WRITE_PIECE));

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      _plan_file_writer_set_errno_error (error, errno, "write to", location);
      return FALSE;
    }
    /* write() returns 0 only for size 0; guard against a loop anyway. */
    if (n == 0) {
      _plan_file_writer_set_errno_error (error, EIO, "write to", location);
      return FALSE;
    }
    data += n;
    size -= n;
  }
  return TRUE;
}

/* Reserves the blocks the next @size bytes land in, with FALLOC_FL_KEEP_SIZE
 * so that the file's size is still what was written;
 * _plan_file_writer_close_and_rename() gives back what was reserved past the end. A failure (a full disk, a
 * file system without fallocate) only stops preallocating: the write()
 * after it says what is wrong, if anything is. Worker thread. */
static void
preallocate (PlanFileWriter * self, gsize size)
{
  /* Where the next write lands: the worker alone writes data, after the
   * header the owner wrote before the first chunk was queued. */
  guint64 pos = self->header_size + self->bytes_written, start, len;

  if (self->prealloc_off || size == 0)
    return;
  if (pos + size <= self->prealloc_end)
    return;
  start = MAX (pos, self->prealloc_end);
  len = MAX (PREALLOC_STEP, pos + size - start);
#ifdef FALLOC_FL_KEEP_SIZE
  if (fallocate (self->fd, FALLOC_FL_KEEP_SIZE, start, len) < 0)
    goto off;
#else
  errno = ENOSYS;
  goto off;
#endif
  self->prealloc_end = start + len;
  return;

off:
  GST_INFO_OBJECT (self, "not preallocating '%s' any more: %s",
      self->location, g_strerror (errno));
  self->prealloc_off = TRUE;
}

/* Whether a stream's wait must end: the writer was cancelled, or it is
 * finishing (no more chunks) and the sink was told to unlock, as when the
 * pipeline stops during EOS. Waits up to 50 ms for that first; the waits
 * between are for a reader, so they need not be woken more precisely. */
static gboolean
stream_wait_aborted (PlanFileWriter * self)
{
  gboolean aborted;

  g_mutex_lock (&self->lock);
  aborted = self->cancelled || (self->flushing && !self->running);
  if (!aborted) {
    g_cond_wait_until (&self->work_cond, &self->lock,
        g_get_monotonic_time () + 50 * G_TIME_SPAN_MILLISECOND);
    aborted = self->cancelled || (self->flushing && !self->running);
  }
  g_mutex_unlock (&self->lock);
  return aborted;
}

static void
set_stream_aborted (PlanFileWriter * self, GError ** error,
    const gchar * waiting_for)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
      "Stopped writing '%s' while waiting for %s", self->location,
      waiting_for);
}

/* Opens the FIFO at the location for writing once a reader has it open,
 * without blocking: an open() of a FIFO with no reader would wait where
 * nothing can interrupt it. Worker thread. */
static gboolean
open_stream (PlanFileWriter * self, GError ** error)
{
  for (;;) {
    gint fd = open (self->location, O_WRONLY | O_NONBLOCK | O_CLOEXEC);

    if (fd >= 0) {
      GST_DEBUG_OBJECT (self, "'%s' has a reader: writing", self->location);
      self->fd = fd;
      return TRUE;
    }
    if (errno != ENXIO && errno != EINTR) {
      _plan_file_writer_set_errno_error (error, errno, "open for writing",
          self->location);
      return FALSE;
    }
    if (stream_wait_aborted (self)) {
      set_stream_aborted (self, error, "a reader to open it");
      return FALSE;
    }
  }
}

/* _plan_file_writer_write_full() for a stream opened O_NONBLOCK: waits for
 * room as the reader takes the data, ending the wait when the writer is cancelled.
 * Worker thread. */
static gboolean
write_stream (PlanFileWriter * self, const guint8 * data, gsize size,
    GError ** error)
{
  while (size > 0) {
    gssize n = write (self->fd, data, size);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && errno == EAGAIN) {
      struct pollfd pfd = { self->fd, POLLOUT, 0 };

      if (poll (&pfd, 1, 0) > 0)
        continue;
      if (stream_wait_aborted (self)) {
        set_stream_aborted (self, error, "its reader to take the data");
        return FALSE;
      }
      continue;
    }
    if (n <= 0) {
      _plan_file_writer_set_errno_error (error, n < 0 ? errno : EIO,
          "write to", self->location);
      return FALSE;
    }
    data += n;
    size -= n;
  }
  return TRUE;
}

/* Writes the @size bytes at @data, pages of a mapped input file, with
 * copy_file_range() from that file: the kernel copies them from page cache
 * to page cache, and the process neither touches them nor makes a system
 * call for each 64 KiB. FALSE without @error set, and nothing written,
 * where the two files' file systems cannot (no later chunk tries then).
 * Worker thread. */
static gboolean
copy_file_pages (PlanFileWriter * self, GstBuffer * buffer,
    const guint8 * data, gsize size, GError ** error)
{
  guint64 offset;
  loff_t in;
  gint src;
  gsize done = 0;

  if (self->no_copy_range || size == 0
      || !_plan_buffer_find_file_range (buffer, data, size, &src, &offset))
    return FALSE;
  in = (loff_t) offset;
  while (done < size) {
    gssize n = copy_file_range (src, &in, self->fd, NULL, size - done, 0);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && done == 0 && (errno == EXDEV || errno == ENOSYS
            || errno == EINVAL || errno == EOPNOTSUPP || errno == EBADF)) {
      GST_INFO_OBJECT (self, "copy_file_range() into '%s' failed (%s): "
          "writing the data", self->location, g_strerror (errno));
      self->no_copy_range = TRUE;
      return FALSE;
    }
    if (n < 0) {
      _plan_file_writer_set_errno_error (error, errno, "write to",
          self->location);
      return TRUE;
    }
    if (n == 0) {
      /* The input ends before the bytes it had when it was mapped. */
      _plan_mapped_file_set_changed_error (_plan_buffer_get_mapped_file
          (buffer), error);
      return TRUE;
    }
    done += n;
  }
  return TRUE;
}

static gboolean
write_buffer (PlanFileWriter * self, GstBuffer * buffer, GError ** error)
{
  GstMapInfo map;
  gboolean ok;

  if (!gst_buffer_map (buffer, &map, GST_MAP_READ)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "Could not write to '%s': cannot map a buffer", self->location);
    return FALSE;
  }
  if (self->format == PLAN_FILE_FORMAT_HDF5) {
#if HAVE_HDF5
    ok = _plan_h5_writer_append (self->h5, map.data, self->row_size ?
        map.size / self->row_size : 0, error);
    if (!ok)
      g_prefix_error (error, "Could not write to '%s': ", self->location);
#else
    g_assert_not_reached ();
#endif
  } else if (self->format == PLAN_FILE_FORMAT_ZARR) {
#if HAVE_ZARR
    ok = _plan_zarr_writer_append (self->zarr, map.data, self->row_size ?
        map.size / self->row_size : 0, error);
    if (!ok)
      g_prefix_error (error, "Could not write to '%s': ", self->location);
#else
    g_assert_not_reached ();
#endif
  } else if (self->format == PLAN_FILE_FORMAT_NPZ) {
    /* The data is read for its CRC-32 (and deflated), so it is written
     * from memory, not copied by the kernel. */
    ok = _plan_zip_writer_append (self->zip, map.data, map.size, error);
  } else if (self->stream) {
    ok = write_stream (self, map.data, map.size, error);
  } else {
    preallocate (self, map.size);
    if (copy_file_pages (self, buffer, map.data, map.size, error))
      ok = *error == NULL;
    else
      ok = _plan_file_writer_write_full (self->fd, map.data, map.size,
          self->location, error);
  }
  /* write() from pages of a mapped input that was cut short meanwhile
   * fails with EFAULT: the input changed, the output is fine. */
  if (!ok && g_error_matches (*error, G_FILE_ERROR, G_FILE_ERROR_FAULT)
      && _plan_buffer_get_mapped_file (buffer)) {
    g_clear_error (error);
    _plan_mapped_file_set_changed_error (_plan_buffer_get_mapped_file
        (buffer), error);
  }
  gst_buffer_unmap (buffer, &map);
  return ok;
}

static gpointer
writer_thread (gpointer data)
{
  PlanFileWriter *self = data;
  sigset_t pipe_set;

  /* A FIFO whose reader went away must fail the write with EPIPE, not
   * kill the program with SIGPIPE, and a write past the file size limit
   * (ulimit -f, RLIMIT_FSIZE) with EFBIG, not kill it with SIGXFSZ; each
   * signal is sent to the writing thread, so blocking it here is enough. */
  sigemptyset (&pipe_set);
  sigaddset (&pipe_set, SIGPIPE);
  sigaddset (&pipe_set, SIGXFSZ);
  pthread_sigmask (SIG_BLOCK, &pipe_set, NULL);

  if (self->stream) {
    GError *err = NULL;

    if (!open_stream (self, &err)) {
      GstBuffer *buffer;

      g_mutex_lock (&self->lock);
      self->error = err;
      while ((buffer = g_queue_pop_head (&self->queue)))
        gst_buffer_unref (buffer);
      g_cond_broadcast (&self->space_cond);
      g_mutex_unlock (&self->lock);
      return NULL;
    }
  }

  g_mutex_lock (&self->lock);
  for (;;) {
    GstBuffer *buffer;
    GError *err = NULL;
    gboolean wake;
    gsize size;

    while (g_queue_is_empty (&self->queue) && self->running) {
      self->worker_idle = TRUE;
      g_cond_wait (&self->work_cond, &self->lock);
    }
    self->worker_idle = FALSE;
    buffer = g_queue_pop_head (&self->queue);
    if (buffer == NULL)
      break;
    /* The slot is free as soon as the chunk is out of the queue. Writing
     * a regular file always gets on, so a blocked producer is woken when
     * half the queue is free; a FIFO's reader may be waiting for the
     * producer's own thread to get on, so there it is woken at once. A
     * regular file is written through a temporary, which only changes
     * while no worker runs. */
    wake = self->producers_waiting > 0
        && (g_queue_get_length (&self->queue) <= self->max_pending / 2
        || self->tmp_path == NULL);
    g_mutex_unlock (&self->lock);
    if (wake)
      g_cond_broadcast (&self->space_cond);

    /* A stream's .npy header comes through the queue: not array data. */
    size = GST_BUFFER_FLAG_IS_SET (buffer, GST_BUFFER_FLAG_HEADER) ? 0 :
        gst_buffer_get_size (buffer);
    /* Pages of an input file cut short meanwhile were written as zeros:
     * the output is not what was read. */
    if (write_buffer (self, buffer, &err))
      _plan_buffer_check_mapped (buffer, &err);
    gst_buffer_unref (buffer);

    g_mutex_lock (&self->lock);
    if (err) {
      GST_WARNING_OBJECT (self, "worker stops: %s", err->message);
      self->error = err;
      while ((buffer = g_queue_pop_head (&self->queue)))
        gst_buffer_unref (buffer);
      g_cond_broadcast (&self->space_cond);
      break;
    }
    self->bytes_written += size;
  }
  g_mutex_unlock (&self->lock);
  return NULL;
}

/**
 * plan_file_writer_open:
 * @writer: a #PlanFileWriter
 * @location: the file to write
 * @format: its format; %PLAN_FILE_FORMAT_AUTO writes .npy when @location
 *   ends in ".npy", HDF5 when it ends in ".h5", ".hdf5" or ".nc" (see
 *   plan_file_writer_set_dataset()), .npz when it ends in ".npz" (see
 *   plan_file_writer_set_member()), a Zarr store when it ends in ".zarr"
 *   and raw otherwise (the extensions in any case);
 *   %PLAN_FILE_FORMAT_ZARR is refused without Zarr support, and so is
 *   %PLAN_FILE_FORMAT_HDF5 without HDF5 support; both HDF5 and .npz
 *   to a FIFO or device
 * @max_pending: the most chunks waiting to be written before
 *   plan_file_writer_write() blocks, at least 1
 * @sync: whether to fsync() the file before it is renamed into place
 * @error: return location for a #GError
 *
 * Creates the temporary file (or opens a non-regular target) and starts
 * the worker. A file open before is cancelled first. Nothing is created at
 * @location until plan_file_writer_finish().
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
/* FALSE with the system's error when the location's name is too long
 * for its file system (ENAMETOOLONG). */
static gboolean
location_fits (PlanFileWriter * writer, GError ** error)
{
  struct stat st;

  if (stat (writer->location, &st) == 0 || errno != ENAMETOOLONG)
    return TRUE;
  _plan_file_writer_set_errno_error (error, ENAMETOOLONG, "write",
      writer->location);
  return FALSE;
}

/* Whether @path, an HDF5 output's dataset, names one: its last name is
 * not missing ("", "/", "//": the file's root group) nor "." (libhdf5's
 * name of the group it is in). */
/* Whether @path is a dataset path HDF5 writes as its user means it.
 * libhdf5 takes empty parts ("a//b", a leading '/') as one '/' and a part
 * '.' as the group it is in, as a file system does. It has no parent
 * reference: '..' is an ordinary name, so "a/../b" would make a group
 * named '..' in /a; and a path ending in '/' names a group (h5py refuses
 * to make a dataset there), although libhdf5 makes the dataset before it. */
static gboolean
h5_check_dataset_path (const gchar * location, const gchar * path,
    GError ** error)
{
  gchar **parts = g_strsplit (path, "/", -1);
  const gchar *last = NULL;
  gboolean dotdot = FALSE, ok = FALSE;
  guint i;

  for (i = 0; parts[i]; i++) {
    if (strcmp (parts[i], "..") == 0)
      dotdot = TRUE;
    if (parts[i][0] != '\0')
      last = parts[i];
  }
  if (last == NULL || strcmp (last, ".") == 0) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "Could not "
        "write '%s': dataset \"%s\" names no dataset: give a name such as /x "
        "or group/x", location, path);
  } else if (dotdot) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "Could not "
        "write '%s': the dataset '%s' has a part '..', which in HDF5 is a "
        "name, not the group above: a group or dataset named '..' would be "
        "made; name the dataset by its path from the root, such as "
        "/group/x", location, path);
  } else if (g_str_has_suffix (path, "/")) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "Could not "
        "write '%s': the dataset '%s' ends in '/', which names a group, not a "
        "dataset; give the dataset's name after the last '/', such as %sx",
        location, path, path);
  } else {
    ok = TRUE;
  }
  g_strfreev (parts);
  return ok;
}

gboolean
plan_file_writer_open (PlanFileWriter * writer, const gchar * location,
    PlanFileFormat format, guint max_pending, gboolean sync, GError ** error)
{
  g_return_val_if_fail (PLAN_IS_FILE_WRITER (writer), FALSE);
  g_return_val_if_fail (location != NULL, FALSE);
  g_return_val_if_fail (max_pending > 0, FALSE);

  plan_file_writer_cancel (writer);
  writer->location = g_strdup (location);
  writer->format = format == PLAN_FILE_FORMAT_AUTO ?
      plan_file_format_from_location (location) : format;
  if (writer->format == PLAN_FILE_FORMAT_NETCDF)
    goto netcdf;
#if !HAVE_ZARR
  if (writer->format == PLAN_FILE_FORMAT_ZARR)
    goto npz;
#endif
#if !HAVE_HDF5
  if (writer->format == PLAN_FILE_FORMAT_HDF5)
    goto no_hdf5;
#endif
  /* Said now, before anything is made: libhdf5 would fail to create it
   * when the caps come, in words of its own. */
  if (writer->format == PLAN_FILE_FORMAT_HDF5 && writer->dataset
      && !h5_check_dataset_path (location, writer->dataset, error)) {
    plan_file_writer_cancel (writer);
    return FALSE;
  }
  if (writer->format == PLAN_FILE_FORMAT_NPZ) {
    writer->npz_name = _plan_zip_writer_check_name (writer->member, error);
    if (writer->npz_name == NULL)
      goto bad_member;
    if (writer->h5_gzip_level > 0 && writer->codec != PLAN_FILE_CODEC_AUTO
        && writer->codec != PLAN_FILE_CODEC_GZIP)
      goto npz_codec;
  }
  /* A level asked for a format that has no compression would write the
   * file whole and uncompressed, which is not what was asked for. */
  if (writer->h5_gzip_level > 0
      && (writer->format == PLAN_FILE_FORMAT_NPY
          || writer->format == PLAN_FILE_FORMAT_RAW))
    goto not_compressed;
  if (writer->mode == PLAN_FILE_MODE_ADD
      && writer->format != PLAN_FILE_FORMAT_HDF5
      && writer->format != PLAN_FILE_FORMAT_ZARR
      && writer->format != PLAN_FILE_FORMAT_NPZ)
    goto no_add;
  if (writer->h5_gzip_level > 0 && writer->format == PLAN_FILE_FORMAT_HDF5
      && writer->codec != PLAN_FILE_CODEC_AUTO
      && writer->codec != PLAN_FILE_CODEC_GZIP)
    goto h5_codec;
  writer->sync = sync;
  writer->zarr_format = writer->zarr_format_set;
  /* A name the file system cannot hold (a part longer than 255 bytes) is
   * said now: the unnamed or hidden temporary file would be written
   * whole and refused only when it is put in place at EOS. */
  if (!location_fits (writer, error)) {
    plan_file_writer_cancel (writer);
    return FALSE;
  }
#if HAVE_ZARR
  if (writer->format == PLAN_FILE_FORMAT_ZARR) {
    if (!_plan_file_writer_open_zarr_target (writer, error)) {
      plan_file_writer_cancel (writer);
      return FALSE;
    }
  } else
#endif
  if (!_plan_file_writer_open_target (writer, error)) {
    plan_file_writer_cancel (writer);
    return FALSE;
  }

  if ((writer->format == PLAN_FILE_FORMAT_HDF5 && writer->tmp_path == NULL)
      || (writer->format == PLAN_FILE_FORMAT_NPZ && writer->tmp_path == NULL
          && !writer->unnamed))
    goto not_regular;
  /* The members of the archive there go first, but the one replaced. */
  if (writer->format == PLAN_FILE_FORMAT_NPZ
      && writer->mode == PLAN_FILE_MODE_ADD) {
    struct stat st;

    if (stat (location, &st) == 0)
      _plan_file_writer_note_add_source (writer, &st);
    else if (errno == ENOENT)
      _plan_file_writer_note_add_source (writer, NULL);
    writer->npz_kept = _plan_zip_writer_copy_members (writer->fd, location,
        writer->npz_name, error);
    if (writer->npz_kept == NULL) {
      plan_file_writer_cancel (writer);
      return FALSE;
    }
  }

  /* Only the new file of a regular target is preallocated, and not for
   * libhdf5, which writes it itself. */
  writer->prealloc_off = (writer->tmp_path == NULL && !writer->unnamed)
      || writer->format == PLAN_FILE_FORMAT_HDF5
      || writer->format == PLAN_FILE_FORMAT_ZARR
      || writer->format == PLAN_FILE_FORMAT_NPZ;
  writer->prealloc_end = 0;
  g_mutex_lock (&writer->lock);
  writer->max_pending = max_pending;
  writer->running = TRUE;
  writer->cancelled = FALSE;
  writer->flushing = FALSE;
  writer->bytes_written = 0;
  g_mutex_unlock (&writer->lock);

  writer->thread = g_thread_try_new ("planfilewriter", writer_thread, writer,
      error);
  if (writer->thread == NULL) {
    plan_file_writer_cancel (writer);
    return FALSE;
  }
  GST_DEBUG_OBJECT (writer, "writing '%s' (%s) through %s%s", location,
      plan_file_format_to_string (writer->format),
      writer->unnamed ? "an unnamed file" : writer->tmp_path ?
      writer->tmp_path : "the target itself",
      writer->stream ? ", a FIFO opened when it has a reader" : "");
  return TRUE;

  /* ERRORS */
netcdf:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not "
        "write '%s': NetCDF classic files are read, not written (HDF5 writes "
        "NetCDF-4 files); write a .npy, .npz or HDF5 file (or ask for the "
        "raw format to write raw data under this name)", location);
    plan_file_writer_cancel (writer);
    return FALSE;
  }
#if !HAVE_ZARR
npz:
  {
    /* Raw bytes under such a name would be a file nothing reads. */
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not "
        "write '%s': this gst-plan was built without Zarr (install "
        "libjson-glib-dev and build it again), so Zarr stores are not "
        "written; write a .npy, .npz or HDF5 file (or ask for the raw format "
        "to write raw data under this name)", location);
    plan_file_writer_cancel (writer);
    return FALSE;
  }
#endif
bad_member:
  {
    g_prefix_error (error, "Could not write '%s': ", location);
    plan_file_writer_cancel (writer);
    return FALSE;
  }
npz_codec:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not "
        "write '%s': a .npz member is compressed with deflate (codec auto "
        "or gzip), as np.savez_compressed writes it and np.load reads it, "
        "not %s", location, plan_file_codec_to_string (writer->codec));
    plan_file_writer_cancel (writer);
    return FALSE;
  }
not_compressed:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not "
        "write '%s': compression=%u asks for a compressed output, but the "
        "%s format is written uncompressed; only HDF5, Zarr and .npz outputs "
        "are compressed: write one of those, or leave compression at 0",
        location, writer->h5_gzip_level,
        plan_file_format_to_string (writer->format));
    plan_file_writer_cancel (writer);
    return FALSE;
  }
no_add:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not "
        "write '%s': the add mode adds a dataset to an HDF5 file (or an "
        "array to a Zarr group, or a member to a .npz); %s files hold one "
        "array, so it is replaced whole (mode replace)", location,
        plan_file_format_to_string (writer->format));
    plan_file_writer_cancel (writer);
    return FALSE;
  }
h5_codec:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not "
        "write '%s': HDF5 output is compressed with gzip (the codec every "
        "HDF5 reader has), not %s", location,
        plan_file_codec_to_string (writer->codec));
    plan_file_writer_cancel (writer);
    return FALSE;
  }
#if !HAVE_HDF5
no_hdf5:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not "
        "write '%s': this gst-plan was built without HDF5 (install "
        "libhdf5-dev and build it again), so HDF5 files are not written; "
        "write a .npy file (or ask for the raw format to write raw data "
        "under this name)", location);
    plan_file_writer_cancel (writer);
    return FALSE;
  }
#endif
not_regular:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not "
        "write '%s': %s, so it must be a regular file, not a FIFO or a "
        "device", location, writer->format == PLAN_FILE_FORMAT_NPZ ?
        "a .npz file's sizes and CRC-32 are written at its start once the "
        "end is reached" : "an HDF5 file is written with random access");
    plan_file_writer_cancel (writer);
    return FALSE;
  }
}

/**
 * plan_file_writer_set_dataset:
 * @writer: a #PlanFileWriter
 * @dataset: (nullable): the path of the dataset an HDF5 file gets
 *   ("/group/temps"; groups on the way are created), %NULL for "/data";
 *   plan_file_writer_open() refuses one that names no dataset ("", "/"),
 *   has a part ".." (an ordinary name in HDF5, not the group above) or
 *   ends in "/"
 * @chunk_rows: the rows of the dataset's chunks, 0 for about 1 MiB of
 *   rows, or for all the array's rows when they are fewer and known when
 *   plan_file_writer_set_info() is called (so that a small array makes a
 *   small file)
 * @gzip_level: 0 for no compression, 1 to 9 for deflate (gzip) at that
 *   level, with the shuffle filter before it
 *
 * Chooses the dataset and layout of the HDF5 files the next
 * plan_file_writer_open() writes; @chunk_rows and @gzip_level also apply
 * to Zarr and (@gzip_level) .npz outputs. Other formats ignore @dataset
 * and @chunk_rows; plan_file_writer_open() refuses a @gzip_level above 0
 * for a .npy or raw output, which would not be compressed.
 *
 * Since: 0.1
 */
void
plan_file_writer_set_dataset (PlanFileWriter * writer, const gchar * dataset,
    guint64 chunk_rows, guint gzip_level)
{
  g_return_if_fail (PLAN_IS_FILE_WRITER (writer));
  g_return_if_fail (gzip_level <= 9);

  g_free (writer->dataset);
  writer->dataset = g_strdup (dataset);
  writer->h5_chunk_rows = chunk_rows;
  writer->h5_gzip_level = gzip_level;
}

/**
 * plan_file_writer_set_codec:
 * @writer: a #PlanFileWriter
 * @codec: how the chunks of the HDF5 or Zarr outputs the next
 *   plan_file_writer_open() writes are compressed, when the level set by
 *   plan_file_writer_set_dataset() is above 0
 *
 * %PLAN_FILE_CODEC_AUTO (the default) is gzip after the shuffle filter
 * for HDF5 and zstd for Zarr. HDF5 takes only that and
 * %PLAN_FILE_CODEC_GZIP: open fails on the others.
 *
 * Since: 0.1
 */
void
plan_file_writer_set_codec (PlanFileWriter * writer, PlanFileCodec codec)
{
  g_return_if_fail (PLAN_IS_FILE_WRITER (writer));

  writer->codec = codec;
}

/**
 * plan_file_writer_set_zarr_format:
 * @writer: a #PlanFileWriter
 * @zarr_format: 2 or 3: the version of the Zarr stores the next
 *   plan_file_writer_open() writes
 *
 * 2 (the default) writes a `.zarray` and chunks named `2.0`, as
 * zarr-python 2 does; 3 a `zarr.json` and chunks named `c/2/0`, as
 * zarr-python 3 does. An array added to a group
 * (%PLAN_FILE_MODE_ADD) takes the group's version instead.
 *
 * Since: 0.1
 */
void
plan_file_writer_set_zarr_format (PlanFileWriter * writer, guint zarr_format)
{
  g_return_if_fail (PLAN_IS_FILE_WRITER (writer));
  g_return_if_fail (zarr_format == 2 || zarr_format == 3);

  writer->zarr_format_set = zarr_format;
}

/**
 * plan_file_writer_set_member:
 * @writer: a #PlanFileWriter
 * @member: (nullable): the name of the array in the .npz files the next
 *   plan_file_writer_open() writes: numpy's key for it ("temps") or its
 *   name in the archive ("temps.npy"); %NULL for "arr_0", numpy's name
 *   of an array np.savez() is given without a name
 *
 * A .npz output is a zip archive with one member, a .npy file named
 * @member with ".npy" appended where it does not end so; stored (as
 * np.savez() writes it) or, with a level above 0 set by
 * plan_file_writer_set_dataset(), deflated at that level (as
 * np.savez_compressed() does). plan_file_writer_open() refuses a name
 * that is empty, starts with a '/' or has a part that is empty, '.' or
 * '..', is not UTF-8 or is longer than a zip archive
 * allows. Other formats ignore it.
 *
 * Since: 0.1
 */
void
plan_file_writer_set_member (PlanFileWriter * writer, const gchar * member)
{
  g_return_if_fail (PLAN_IS_FILE_WRITER (writer));

  g_free (writer->member);
  writer->member = g_strdup (member);
}

/**
 * plan_file_writer_set_mode:
 * @writer: a #PlanFileWriter
 * @mode: what the next plan_file_writer_open() does with a file at its
 *   location
 *
 * %PLAN_FILE_MODE_REPLACE (the default) replaces it whole.
 * %PLAN_FILE_MODE_ADD, for HDF5 output only, adds the dataset to it: the
 * file is copied beside itself (a reflink where the file system shares
 * blocks, a full copy elsewhere, which costs the time and the room of the
 * file), the dataset is written into the copy (a dataset of the same path
 * deleted first; a group there is an error) and the copy, which has the
 * file's mode, replaces the file at plan_file_writer_finish(). A failure
 * or a cancel at any point leaves the file as it was; a file that is not
 * HDF5 is an error, and is left as it is. Without a file at the location,
 * it is created as in %PLAN_FILE_MODE_REPLACE.
 *
 * For Zarr output %PLAN_FILE_MODE_ADD adds the array named by the
 * dataset to the Zarr group at the location: the groups on the way that
 * are missing are made, the array is written into a temporary directory
 * in its group and renamed into place at finish, exchanged with an array
 * of the same path (a group there is an error). The store's other arrays
 * are not copied nor touched.
 *
 * For .npz output %PLAN_FILE_MODE_ADD copies the members of the archive
 * at the location (its local headers and data as they are, but a member
 * of the name set by plan_file_writer_set_member(), which is replaced)
 * into the new file at open, writes the member after them, and at
 * finish the zip directory of them all; the new file, which has the
 * archive's mode, replaces the archive. A file that is not a zip archive,
 * or one with a member that cannot be copied as it is (encrypted, or with
 * a data descriptor), is an error at open, and is left as it is.
 *
 * Since: 0.1
 */
void
plan_file_writer_set_mode (PlanFileWriter * writer, PlanFileMode mode)
{
  g_return_if_fail (PLAN_IS_FILE_WRITER (writer));

  writer->mode = mode;
}

/**
 * plan_file_writer_get_format:
 * @writer: a #PlanFileWriter with a file open
 *
 * Returns: the format being written, %PLAN_FILE_FORMAT_RAW,
 *   %PLAN_FILE_FORMAT_NPY or %PLAN_FILE_FORMAT_HDF5.
 *
 * Since: 0.1
 */
PlanFileFormat
plan_file_writer_get_format (PlanFileWriter * writer)
{
  g_return_val_if_fail (PLAN_IS_FILE_WRITER (writer), PLAN_FILE_FORMAT_AUTO);
  return writer->format;
}

/**
 * plan_file_writer_get_temp_path:
 * @writer: a #PlanFileWriter
 *
 * Returns: (transfer none) (nullable): the named temporary file being
 *   written, or %NULL when none is (nothing open, an unnamed file, or a
 *   non-regular target written directly).
 *
 * Since: 0.1
 */
const gchar *
plan_file_writer_get_temp_path (PlanFileWriter * writer)
{
  g_return_val_if_fail (PLAN_IS_FILE_WRITER (writer), NULL);
  return writer->tmp_path ? writer->tmp_path : writer->tmp_dir;
}

/**
 * plan_file_writer_set_replace_read_only:
 * @writer: a #PlanFileWriter
 * @replace: whether to replace a file at the location that this user
 *   could not open for writing
 *
 * By default a file already at the location that this user may not
 * write (mode 0444, or another user's) is not replaced: open and finish
 * fail with %G_FILE_ERROR_ACCES and leave it as it is. With @replace
 * %TRUE it is replaced whole at finish, as `mv` replaces it, wherever the
 * directory's permissions allow. Taken at the next
 * plan_file_writer_open().
 *
 * Since: 0.1
 */
void
plan_file_writer_set_replace_read_only (PlanFileWriter * writer,
    gboolean replace)
{
  g_return_if_fail (PLAN_IS_FILE_WRITER (writer));
  writer->replace_read_only = replace;
}

/* A FIFO's .npy header cannot be completed at the end: it says the rows
 * the caps announce, and goes to the worker ahead of the first chunk. */
static gboolean
queue_stream_header (PlanFileWriter * self, const PlanArrayInfo * info,
    GError ** error)
{
  GstBuffer *buffer;
  guint8 *header;

  if (info->ndim > 0 && info->shape[0] < 0) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "Could not write '%s': it is a FIFO, where a .npy header is written "
        "first and cannot be completed at the end, and the number of rows "
        "is not known when the stream starts (write raw data to it, "
        "format=raw)", self->location);
    return FALSE;
  }
  self->header_rows = info->ndim > 0 ? info->shape[0] : 1;
  self->header_size = plan_npy_get_header_size (info);
  header = g_malloc (self->header_size);
  if (!plan_npy_write_header (info, header, self->header_size, error)) {
    g_free (header);
    return FALSE;
  }
  buffer = gst_buffer_new_wrapped (header, self->header_size);
  GST_BUFFER_FLAG_SET (buffer, GST_BUFFER_FLAG_HEADER);
  g_mutex_lock (&self->lock);
  g_queue_push_tail (&self->queue, buffer);
  g_mutex_unlock (&self->lock);
  g_cond_signal (&self->work_cond);
  return TRUE;
}

/* The rows of an HDF5 or Zarr output's chunks: those asked for, or about
 * DEFAULT_CHUNK_BYTES of rows, but no more than the output's rows where
 * they are known up front (the caps', or a sharded run's total): a chunk
 * is stored whole, so one of 87381 rows for an array of 4 made a file of
 * 1 MiB. */
static guint64
output_chunk_rows (PlanFileWriter * writer, const PlanArrayInfo * info)
{
  gint64 rows = writer->shared_rows >= 0 ? writer->shared_rows :
      plan_array_info_get_n_rows (info);
  gsize row_size = plan_array_info_get_row_size (info);
  guint64 chunk_rows;

  if (writer->h5_chunk_rows > 0)
    return writer->h5_chunk_rows;
  chunk_rows = MAX (1, DEFAULT_CHUNK_BYTES / MAX (row_size, 1));
  if (rows >= 0)
    chunk_rows = MAX (1, MIN (chunk_rows, (guint64) rows));
  return chunk_rows;
}

/**
 * plan_file_writer_set_info:
 * @writer: a #PlanFileWriter with a file open
 * @info: the dtype and shape of the array; `shape[0]`, the rows (-1 when
 *   not known), only bounds an HDF5 or Zarr output's default chunk
 * @error: return location for a #GError
 *
 * Sets the dtype and row shape of the array written. For .npy files the
 * first call writes the header (completed by plan_file_writer_finish());
 * it must come before the first chunk. Later calls must give the same
 * dtype and row shape: a file holds one array.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_file_writer_set_info (PlanFileWriter * writer, const PlanArrayInfo * info,
    GError ** error)
{
  PlanArrayInfo head;
  guint8 *header;
  gboolean ok;

  g_return_val_if_fail (PLAN_IS_FILE_WRITER (writer), FALSE);
  /* A stream's descriptor is the worker's, which opens it: not read here. */
  g_return_val_if_fail (writer->stream || writer->fd >= 0 || writer->tmp_dir,
      FALSE);
  g_return_val_if_fail (info != NULL, FALSE);

  if (writer->have_info) {
    if (info->dtype == writer->info.dtype
        && plan_array_info_same_rows (info, &writer->info))
      return TRUE;
    goto changed;
  }
  /* A .npy header (and a .npz member's) says 0 rows until the end
   * completes it; the info keeps the rows the caller gave, for messages. */
  head = *info;
  head.shape[0] = 0;
  writer->info = *info;
  writer->have_info = TRUE;
  writer->row_size = plan_array_info_get_row_size (info);
#if HAVE_HDF5
  if (writer->format == PLAN_FILE_FORMAT_HDF5) {
    if (writer->shared_rows >= 0 && G_BYTE_ORDER != G_LITTLE_ENDIAN
        && writer->h5_gzip_level > 0)
      goto shared_compressed;
    writer->h5 = _plan_h5_writer_create_full (writer->tmp_path,
        writer->dataset ? writer->dataset : "/data", info,
        output_chunk_rows (writer, info), writer->h5_gzip_level,
        writer->h5_add, info->ndim > 0 ? writer->shared_rows : -1, error);
    if (writer->h5 == NULL)
      goto not_created;
    if (writer->shared_rows >= 0 && info->ndim > 0
        && writer->h5_gzip_level > 0) {
      /* The ranks filter the chunks; this writer writes them, at the
       * end (_plan_file_writer_write_shared_chunk()). */
      if (!_plan_h5_writer_get_filters (writer->h5,
              &writer->shared_h5_filters, error)) {
        _plan_h5_writer_close (writer->h5, NULL);
        writer->h5 = NULL;
        goto not_created;
      }
      writer->shared_h5_filtered = TRUE;
      writer->shared_chunk_rows = writer->shared_h5_filters.chunk_rows;
    } else if (writer->shared_rows >= 0 && info->ndim > 0) {
      /* The ranks write the chunks where they are; libhdf5 is done with
       * the file. */
      PlanH5Writer *h5 = writer->h5;

      writer->shared_h5_chunks = _plan_h5_writer_get_chunks (h5,
          &writer->shared_chunk_rows, error);
      writer->h5 = NULL;
      if (!_plan_h5_writer_close (h5, writer->shared_h5_chunks ? error :
              NULL) || writer->shared_h5_chunks == NULL)
        goto not_created;
    }
    return TRUE;
  }
#endif
#if HAVE_ZARR
  if (writer->format == PLAN_FILE_FORMAT_ZARR) {
    writer->zarr = _plan_zarr_writer_create (writer->zarr_array_dir, info,
        output_chunk_rows (writer, info), writer->codec, writer->h5_gzip_level,
        writer->zarr_format, writer->sync, error);
    if (writer->zarr == NULL)
      goto not_created;
    if (writer->shared_rows >= 0)
      _plan_zarr_writer_set_rows (writer->zarr, writer->shared_rows);
    return TRUE;
  }
#endif
  if (writer->format == PLAN_FILE_FORMAT_NPZ) {
    if (writer->bytes_queued > 0)
      goto late;
    writer->header_size = plan_npy_get_header_size (info);
    header = g_malloc (writer->header_size);
    if (plan_npy_write_header (&head, header, writer->header_size, error))
      writer->zip = _plan_zip_writer_new (writer->fd, writer->location,
          writer->npz_name, writer->h5_gzip_level, header,
          writer->header_size, g_steal_pointer (&writer->npz_kept), error);
    g_free (header);
    if (writer->zip == NULL) {
      writer->have_info = FALSE;
      return FALSE;
    }
    return TRUE;
  }
  if (writer->format != PLAN_FILE_FORMAT_NPY)
    return TRUE;
  if (writer->bytes_queued > 0)
    goto late;

  if (writer->stream)
    return queue_stream_header (writer, info, error);
  writer->header_size = plan_npy_get_header_size (info);
  header = g_malloc (writer->header_size);
  ok = plan_npy_write_header (&head, header, writer->header_size,
      error) && _plan_file_writer_write_full (writer->fd, header,
      writer->header_size, writer->location, error);
  g_free (header);
  return ok;

  /* ERRORS */
changed:
  {
    gchar *a = plan_array_info_to_string (&writer->info);
    gchar *b = plan_array_info_to_string (info);

    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "Could not write '%s': the array changed from %s to %s in the "
        "middle of the stream; a file holds one array", writer->location, a, b);
    g_free (a);
    g_free (b);
    return FALSE;
  }
late:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "Could not write '%s': data came before the array's dtype and shape",
        writer->location);
    return FALSE;
  }
#if HAVE_HDF5
shared_compressed:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "Could not write '%s': the ranks of a sharded run filter the "
        "chunks of a compressed HDF5 output in the file's byte order, "
        "little-endian, which this machine's is not; write it with "
        "compression=0, or one file per rank (shard-output=per-rank)",
        writer->location);
    writer->have_info = FALSE;
    return FALSE;
  }
#endif
#if HAVE_HDF5 || HAVE_ZARR
not_created:
  {
    /* Chunks written after this fail (no_info) rather than reach a
     * writer that is not there. */
    writer->have_info = FALSE;
    g_prefix_error (error, "Could not write '%s': ", writer->location);
    return FALSE;
  }
#endif
}

/**
 * plan_file_writer_write:
 * @writer: a #PlanFileWriter with a file open
 * @buffer: (transfer full): a chunk of whole rows
 * @error: return location for a #GError
 *
 * Queues @buffer for the worker, blocking while @max_pending chunks are
 * already waiting.
 *
 * Returns: %GST_FLOW_OK; %GST_FLOW_FLUSHING when set flushing;
 *   %GST_FLOW_ERROR with @error set when writing failed (now or for an
 *   earlier chunk) or @buffer is not whole rows.
 *
 * Since: 0.1
 */
GstFlowReturn
plan_file_writer_write (PlanFileWriter * writer, GstBuffer * buffer,
    GError ** error)
{
  gboolean wake;
  gsize size;

  g_return_val_if_fail (PLAN_IS_FILE_WRITER (writer), GST_FLOW_ERROR);
  g_return_val_if_fail (GST_IS_BUFFER (buffer), GST_FLOW_ERROR);

  size = gst_buffer_get_size (buffer);
  if ((writer->format == PLAN_FILE_FORMAT_NPY
          || writer->format == PLAN_FILE_FORMAT_NPZ
          || writer->format == PLAN_FILE_FORMAT_HDF5
          || writer->format == PLAN_FILE_FORMAT_ZARR) && !writer->have_info)
    goto no_info;
  if (writer->row_size > 0 && size % writer->row_size != 0)
    goto partial_rows;

  g_mutex_lock (&writer->lock);
  while (g_queue_get_length (&writer->queue) >= writer->max_pending
      && !writer->flushing && writer->error == NULL && writer->running) {
    writer->producers_waiting++;
    g_cond_wait (&writer->space_cond, &writer->lock);
    writer->producers_waiting--;
  }
  if (writer->flushing || !writer->running) {
    g_mutex_unlock (&writer->lock);
    gst_buffer_unref (buffer);
    return GST_FLOW_FLUSHING;
  }
  if (writer->error) {
    g_propagate_error (error, g_error_copy (writer->error));
    g_mutex_unlock (&writer->lock);
    gst_buffer_unref (buffer);
    return GST_FLOW_ERROR;
  }
  g_queue_push_tail (&writer->queue, buffer);
  writer->bytes_queued += size;
  wake = writer->worker_idle;
  g_mutex_unlock (&writer->lock);
  if (wake)
    g_cond_signal (&writer->work_cond);
  return GST_FLOW_OK;

  /* ERRORS */
no_info:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "Could not write '%s': data came before the array's dtype and shape",
        writer->location);
    gst_buffer_unref (buffer);
    return GST_FLOW_ERROR;
  }
partial_rows:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "Could not write '%s': a chunk of %" G_GSIZE_FORMAT " bytes is not "
        "a whole number of rows of %" G_GSIZE_FORMAT " bytes",
        writer->location, size, writer->row_size);
    gst_buffer_unref (buffer);
    return GST_FLOW_ERROR;
  }
}

/**
 * plan_file_writer_set_flushing:
 * @writer: a #PlanFileWriter
 * @flushing: whether plan_file_writer_write() should return
 *   %GST_FLOW_FLUSHING
 *
 * Wakes a blocked plan_file_writer_write() (for GstBaseSink's unlock).
 * Chunks already queued are still written. Any thread.
 *
 * Since: 0.1
 */
void
plan_file_writer_set_flushing (PlanFileWriter * writer, gboolean flushing)
{
  g_return_if_fail (PLAN_IS_FILE_WRITER (writer));

  g_mutex_lock (&writer->lock);
  writer->flushing = flushing;
  g_cond_broadcast (&writer->space_cond);
  g_mutex_unlock (&writer->lock);
}

/**
 * plan_file_writer_get_bytes_written:
 * @writer: a #PlanFileWriter
 *
 * Returns: the number of array data bytes written to the file so far (not
 *   counting a .npy header). Any thread.
 *
 * Since: 0.1
 */
guint64
plan_file_writer_get_bytes_written (PlanFileWriter * writer)
{
  guint64 n;

  g_return_val_if_fail (PLAN_IS_FILE_WRITER (writer), 0);

  g_mutex_lock (&writer->lock);
  n = writer->bytes_written;
  g_mutex_unlock (&writer->lock);
  return n;
}

static void
stop_worker (PlanFileWriter * self, gboolean drop)
{
  GstBuffer *buffer;

  g_mutex_lock (&self->lock);
  self->running = FALSE;
  if (drop) {
    self->cancelled = TRUE;
    while ((buffer = g_queue_pop_head (&self->queue)))
      gst_buffer_unref (buffer);
  }
  g_cond_broadcast (&self->work_cond);
  g_cond_broadcast (&self->space_cond);
  g_mutex_unlock (&self->lock);

  if (self->thread) {
    g_thread_join (self->thread);
    self->thread = NULL;
  }
}

/**
 * plan_file_writer_finish:
 * @writer: a #PlanFileWriter with a file open
 * @error: return location for a #GError
 *
 * Writes what is queued, completes the .npy header with the number of
 * rows written, fsyncs when asked to, closes the file and renames it to
 * the location (then fsyncs its directory when asked to). On failure the
 * temporary file is removed and the location left as it was, but where
 * only the directory's fsync failed: the file is in place then. Either
 * way the writer is closed afterwards.
 *
 * Returns: %TRUE when the file is in place.
 *
 * Since: 0.1
 */
gboolean
plan_file_writer_finish (PlanFileWriter * writer, GError ** error)
{
  guint64 bytes;
  gboolean ok = TRUE;

  g_return_val_if_fail (PLAN_IS_FILE_WRITER (writer), FALSE);
  /* A stream's descriptor is the worker's, which opens it: not read here. */
  g_return_val_if_fail (writer->stream || writer->fd >= 0 || writer->tmp_dir,
      FALSE);

  stop_worker (writer, FALSE);
  g_mutex_lock (&writer->lock);
  if (writer->error) {
    g_propagate_error (error, g_error_copy (writer->error));
    ok = FALSE;
  }
  bytes = writer->bytes_written;
  g_mutex_unlock (&writer->lock);

  if (ok && writer->format == PLAN_FILE_FORMAT_NPY)
    ok = _plan_file_writer_complete_npy_header (writer, bytes, error);
  if (ok && writer->format == PLAN_FILE_FORMAT_NPZ)
    ok = _plan_file_writer_finish_npz (writer, bytes, error);
#if HAVE_HDF5
  if (ok && writer->format == PLAN_FILE_FORMAT_HDF5)
    ok = _plan_file_writer_finish_h5 (writer, bytes, error);
#endif
#if HAVE_ZARR
  if (ok && writer->format == PLAN_FILE_FORMAT_ZARR)
    ok = _plan_file_writer_finish_zarr (writer, bytes, error);
  else
#endif
  if (ok)
    ok = _plan_file_writer_close_and_rename (writer, bytes, error);
  if (ok)
    GST_DEBUG_OBJECT (writer, "wrote '%s': %" G_GUINT64_FORMAT " bytes of "
        "data", writer->location, bytes);
  plan_file_writer_cancel (writer);
  return ok;
}

/**
 * plan_file_writer_cancel:
 * @writer: a #PlanFileWriter
 *
 * Drops what is queued, stops the worker, closes and removes the
 * temporary file: nothing is left at the location, and a file that was
 * there is untouched. Safe to call when nothing is open.
 *
 * Since: 0.1
 */
void
plan_file_writer_cancel (PlanFileWriter * writer)
{
  g_return_if_fail (PLAN_IS_FILE_WRITER (writer));

  stop_worker (writer, TRUE);
  g_clear_pointer (&writer->zip, _plan_zip_writer_free);
  g_clear_pointer (&writer->npz_name, g_free);
  g_clear_pointer (&writer->npz_kept, _plan_zip_kept_free);
#if HAVE_HDF5
  _plan_h5_writer_close (writer->h5, NULL);
  writer->h5 = NULL;
#endif
#if HAVE_ZARR
  _plan_zarr_writer_close (writer->zarr, NULL);
  writer->zarr = NULL;
  if (writer->tmp_dir) {
    GST_DEBUG_OBJECT (writer, "removing '%s'", writer->tmp_dir);
    _plan_file_writer_remove_tree (writer->tmp_dir);
  }
#endif
  g_clear_pointer (&writer->tmp_dir, g_free);
  g_clear_pointer (&writer->zarr_target, g_free);
  g_clear_pointer (&writer->zarr_array_dir, g_free);
  if (writer->fd >= 0)
    close (writer->fd);
  writer->fd = -1;
  if (writer->tmp_path) {
    GST_DEBUG_OBJECT (writer, "removing '%s'", writer->tmp_path);
    g_unlink (writer->tmp_path);
  }
  g_clear_pointer (&writer->tmp_path, g_free);
  writer->unnamed = FALSE;
  writer->stream = FALSE;
  writer->h5_add = FALSE;
  writer->add_source_set = FALSE;
  g_clear_pointer (&writer->shared_h5_chunks, g_array_unref);
  writer->shared_h5_filtered = FALSE;
  writer->shared_chunk_rows = 0;
  writer->header_rows = 0;
  g_clear_pointer (&writer->location, g_free);

  g_mutex_lock (&writer->lock);
  g_clear_error (&writer->error);
  writer->bytes_written = 0;
  g_mutex_unlock (&writer->lock);
  writer->bytes_queued = 0;
  writer->have_info = FALSE;
  writer->row_size = 0;
  writer->header_size = 0;
  plan_array_info_init (&writer->info);
}

/**
 * _plan_file_writer_set_shared_rows:
 * @writer: a #PlanFileWriter, not open
 * @total_rows: the rows of the whole array, or -1
 *
 * Makes the HDF5 or Zarr output of the next plan_file_writer_open() that
 * of rank 0 of an MPI job whose ranks write it together
 * (planshardwriter.c): plan_file_writer_set_info() makes an HDF5 dataset
 * of @total_rows rows; uncompressed, its chunks allocated and their
 * places known, and closes it; compressed, none allocated, kept open for
 * the chunks the ranks filter (_plan_file_writer_write_shared_chunk());
 * a Zarr array's metadata, written at finish, says @total_rows rows, and
 * its chunks are written by the ranks, not by this writer. -1 writes as
 * usual again.
 */
void
_plan_file_writer_set_shared_rows (PlanFileWriter * writer,
    gint64 total_rows)
{
  g_return_if_fail (PLAN_IS_FILE_WRITER (writer));

  writer->shared_rows = total_rows;
}

/**
 * _plan_file_writer_get_shared_target:
 * @writer: a #PlanFileWriter opened with shared rows, its info set
 * @chunk_rows: (out): the rows of a chunk
 * @h5_chunks: (out) (transfer none): HDF5: the byte offsets of the
 *   chunks in the file; Zarr: %NULL
 * @codec: (out): Zarr: the chunks' codec
 * @level: (out): Zarr: its level, 0 for none
 * @version: (out): Zarr: 2 or 3
 *
 * Returns: (transfer none): the file (HDF5) or the array's directory
 *   (Zarr) the ranks write into, or %NULL for another format
 */
const gchar *
_plan_file_writer_get_shared_target (PlanFileWriter * writer,
    guint64 * chunk_rows, GArray ** h5_chunks, PlanFileCodec * codec,
    guint * level, gint * version)
{
  g_return_val_if_fail (PLAN_IS_FILE_WRITER (writer), NULL);

  *chunk_rows = writer->shared_chunk_rows;
  *h5_chunks = writer->shared_h5_chunks;
  *codec = PLAN_FILE_CODEC_AUTO;
  *level = 0;
  *version = 0;
  if (writer->format == PLAN_FILE_FORMAT_HDF5)
    return writer->tmp_path;
#if HAVE_ZARR
  if (writer->format == PLAN_FILE_FORMAT_ZARR && writer->zarr) {
    _plan_zarr_writer_get_layout (writer->zarr, chunk_rows, codec, level,
        version);
    return writer->zarr_array_dir;
  }
#endif
  return NULL;
}

#if HAVE_HDF5
/**
 * _plan_file_writer_get_shared_filters:
 * @writer: a #PlanFileWriter opened with shared rows, its info set
 * @filters: (out): a compressed HDF5 output's chunks and filters
 *
 * Returns: whether the output is an HDF5 dataset whose chunks the ranks
 *   filter (compressed), @filters then set
 */
gboolean
_plan_file_writer_get_shared_filters (PlanFileWriter * writer,
    PlanH5Filters * filters)
{
  g_return_val_if_fail (PLAN_IS_FILE_WRITER (writer), FALSE);

  if (!writer->shared_h5_filtered)
    return FALSE;
  *filters = writer->shared_h5_filters;
  return TRUE;
}

/**
 * _plan_file_writer_write_shared_chunk:
 * @writer: a #PlanFileWriter whose shared HDF5 output is compressed
 * @index: the chunk
 * @mask: the filters skipped
 * @data: the chunk filtered (_plan_h5_chunk_encode())
 * @size: its size
 * @error: return location for a #GError
 *
 * Writes a filtered chunk into the dataset, as it is.
 */
gboolean
_plan_file_writer_write_shared_chunk (PlanFileWriter * writer, guint64 index,
    guint32 mask, const guint8 * data, gsize size, GError ** error)
{
  g_return_val_if_fail (PLAN_IS_FILE_WRITER (writer), FALSE);
  g_return_val_if_fail (writer->shared_h5_filtered && writer->h5, FALSE);

  if (!_plan_h5_writer_write_chunk (writer->h5, index, mask, data, size,
          error)) {
    g_prefix_error (error, "Could not write '%s': ", writer->location);
    return FALSE;
  }
  return TRUE;
}

/**
 * _plan_file_writer_write_shared_rows:
 * @writer: a #PlanFileWriter whose shared HDF5 output is compressed
 * @first: the first row
 * @data: whole rows
 * @n_rows: their number
 * @error: return location for a #GError
 *
 * Writes rows into the dataset through libhdf5, which filters them.
 */
gboolean
_plan_file_writer_write_shared_rows (PlanFileWriter * writer, guint64 first,
    const guint8 * data, guint64 n_rows, GError ** error)
{
  g_return_val_if_fail (PLAN_IS_FILE_WRITER (writer), FALSE);
  g_return_val_if_fail (writer->shared_h5_filtered && writer->h5, FALSE);

  if (!_plan_h5_writer_write_rows (writer->h5, first, data, n_rows, error)) {
    g_prefix_error (error, "Could not write '%s': ", writer->location);
    return FALSE;
  }
  return TRUE;
}
#endif
