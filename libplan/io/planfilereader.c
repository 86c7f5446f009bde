/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planfilereader
 * @title: PlanFileReader
 * @short_description: chunked read-ahead of array files on a worker thread
 *
 * A #PlanFileReader reads a raw, .npy or .npz array file, an HDF5 dataset,
 * a variable of a NetCDF classic file or a Zarr array in chunks of whole rows on a worker thread of its own,
 * ahead of its consumer, so that reading overlaps the work downstream. It
 * is what planfilesrc is a thin wrapper of, and what any other element
 * that reads array files can use.
 *
 * A Zarr array's chunks, and those of an HDF5 dataset chunked in whole
 * rows whose only filters are deflate or lzf and shuffle, are decoded by
 * libplan on more workers, one per processor (at most 8), each reading a
 * chunk of rows of its own; chunks are queued in row order all the same. Memory is
 * then that of the chunks in flight plus one per worker. The chunks of an
 * HDF5 dataset chunked in whole rows without filters are mapped from the
 * file, one a buffer, where they are large enough (512 KiB).
 *
 * Use:
 *
 * 1. plan_file_reader_open() opens the file, reads and validates the .npy
 *    header or the raw layout, and checks the file size against the shape.
 * 2. plan_file_reader_set_window() optionally restricts the reader to a
 *    range of the file's rows (a shard). From then on every row index of
 *    the API, and GST_BUFFER_OFFSET / OFFSET_END of the chunks, count from
 *    the first row of the window.
 * 3. plan_file_reader_start() starts the worker at a row; it makes chunks
 *    of a given number of rows, keeping at most a given number of chunks
 *    in flight. How it gets their bytes is the #PlanFileIoMode (see
 *    plan_file_reader_set_io_mode()): by default it maps the file and
 *    hands out its page-cache pages without a copy, read-only, or, when a
 *    consumer asked for memory of its own, it reads them with pread() into
 *    buffers of a #GstBufferPool (pages are reused: fresh pages are
 *    expensive).
 * 4. plan_file_reader_pop() takes the next chunk, blocking until it is
 *    read. It returns %GST_FLOW_EOS after the last chunk and %GST_FLOW_ERROR
 *    with a #GError when reading failed.
 * 5. plan_file_reader_set_flushing() makes a blocked or later pop return
 *    %GST_FLOW_FLUSHING (for GstBaseSrc's unlock); starting again (a seek)
 *    stops the worker, drops what it read and restarts it elsewhere.
 * 6. plan_file_reader_stop() stops and joins the worker;
 *    plan_file_reader_close() also closes the file.
 *
 * plan_file_reader_read_rows() reads rows synchronously from any thread,
 * beside the worker; planfilesrc answers #PLAN_QUERY_READ_ROWS with it.
 *
 * Open, set_window, start, pop, stop and close are called by one owner
 * thread (or under the owner's lock); set_flushing and read_rows from any
 * thread.
 *
 * An array of a .npz file (numpy's savez() and savez_compressed()) is read
 * in place: a stored member exactly like a .npy file (mapped or read),
 * a deflated one through zlib into the pool's buffers, inflated once, in
 * order. Its CRC-32 is checked when a read reaches the member's end. A
 * stored member's is checked when the worker read every row of it in
 * order from the first (no window, no later first row): each chunk's CRC
 * is computed where it is read or mapped, and they are combined in row
 * order (a Fortran-ordered member, read run by run, is read again whole
 * at the end instead); a mismatch is an error in place of %GST_FLOW_EOS. A read of some
 * rows cannot check it. Reading a deflated member out of order (a seek,
 * plan_file_reader_read_rows()) inflates it again from its start up to
 * the rows asked for. A deflated Fortran-ordered member, whose chunks need
 * bytes from all over it, is inflated once, whole, into an unlinked
 * temporary file in $TMPDIR (g_get_tmp_dir()) the first time rows of it
 * are read, and read from there like a stored member: it costs the disk
 * space of the member inflated, until the file is closed.
 *
 * Errors from system calls are in the %G_FILE_ERROR domain, with the file
 * name and the system's message; errors in the file's layout are in the
 * %PLAN_ERROR domain, also with the file name.
 */

/* O_TMPFILE */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/core/plan-private.h"
#include "planfilereader-private.h"
#include "plannpy.h"
#include <libplan/planerror.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif
#include <unistd.h>
#include <zlib.h>

GST_DEBUG_CATEGORY (plan_file_reader_debug);
#define GST_CAT_DEFAULT plan_file_reader_debug

/* The alignment of chunk memory: a page, which suits both the kernel's
 * copies and vector loads. */
#define CHUNK_ALIGN 4095

/* Mapped chunks are cut from windows of the file mapped whole. A window
 * starts at a multiple of 2 MiB of the file and spans at least 8 MiB, so
 * that the kernel can map the page cache's large folios with one entry per
 * 2 MiB: mapping in 4 KiB pages costs more than a copy. */
#define MAP_ALIGN ((guint64) 2 << 20)
#define MAP_MIN_SPAN ((guint64) 8 << 20)

/* The chunk size that plan_file_reader_start() chooses when asked to.
 * Mapped chunks cost no copy, but their pages are resident while they are
 * in flight: 2 MiB keeps a two-input map under 64 MiB resident, where
 * 8 MiB made the work per chunk downstream rarer at about 150 MiB
 * (docs/performance.md, "Memory footprint"); read chunks are copied, and
 * a size that stays in the caches between the copy in and the copy out is
 * best (tests/benchmarks/bench_fileio.sh). */
#define AUTO_CHUNK_MAPPED ((gsize) 2 << 20)
#define AUTO_CHUNK_READ ((gsize) 1 << 20)

/* A Fortran-ordered .npy is read run by run (the chunk's elements of one
 * inner index); runs less than FORTRAN_GAP bytes apart are read together,
 * gaps included (one call reading a page more costs less than a call per
 * run), FORTRAN_SPAN bytes at a time. */
#define FORTRAN_GAP ((guint64) 4096)
#define FORTRAN_SPAN ((gsize) 1 << 20)
/* Each run costs a read, or a span read over gaps that belong to other
 * chunks: the automatic chunk size of a Fortran-ordered .npy takes rows
 * enough for runs of FORTRAN_MIN_RUN bytes, up to AUTO_CHUNK_FORTRAN a
 * chunk. With 1 MiB chunks, a (200, 100000) float64 array (runs of one
 * element) read 4.5 s; with 16 MiB ones (20 rows a chunk), 0.4 s. */
#define FORTRAN_MIN_RUN ((gsize) 4096)
#define AUTO_CHUNK_FORTRAN ((gsize) 16 << 20)

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

G_DEFINE_TYPE_WITH_CODE (PlanFileReader, plan_file_reader, GST_TYPE_OBJECT,
    GST_DEBUG_CATEGORY_INIT (plan_file_reader_debug, "planfilereader", 0,
        "chunked array file reader"));

static void plan_file_reader_finalize (GObject * object);

GType
plan_file_io_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {PLAN_FILE_IO_MODE_AUTO, "Map the file unless downstream wants memory "
          "of its own or the file cannot be mapped", "auto"},
    {PLAN_FILE_IO_MODE_READ, "Read (copy) chunks into buffers", "read"},
    {PLAN_FILE_IO_MODE_MMAP, "Hand out the file's mapped pages without a "
          "copy", "mmap"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("PlanFileIoMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static void
plan_file_reader_class_init (PlanFileReaderClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = plan_file_reader_finalize;
}

static void
plan_file_reader_init (PlanFileReader * self)
{
  self->fd = -1;
  self->spill_fd = -1;
  self->align_rows = 1;
  self->io_mode = PLAN_FILE_IO_MODE_AUTO;
  self->used_mode = PLAN_FILE_IO_MODE_AUTO;
  gst_allocation_params_init (&self->params);
  self->params.align = CHUNK_ALIGN;
  g_mutex_init (&self->lock);
  g_mutex_init (&self->spill_lock);
  g_cond_init (&self->cond);
  g_queue_init (&self->queue);
}

static void
plan_file_reader_finalize (GObject * object)
{
  PlanFileReader *self = PLAN_FILE_READER (object);

  plan_file_reader_close (self);
  g_free (self->member);
  g_free (self->dataset);
  gst_clear_object (&self->allocator);
  g_mutex_clear (&self->lock);
  g_mutex_clear (&self->spill_lock);
  g_cond_clear (&self->cond);

  G_OBJECT_CLASS (plan_file_reader_parent_class)->finalize (object);
}

/**
 * plan_file_reader_new:
 *
 * Returns: (transfer full): a new #PlanFileReader with no file open.
 *
 * Since: 0.1
 */
PlanFileReader *
plan_file_reader_new (void)
{
  return gst_object_ref_sink (g_object_new (PLAN_TYPE_FILE_READER, NULL));
}

void
_plan_file_reader_set_errno_error (GError ** error, gint err,
    const gchar * what, const gchar * filename)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
      "Could not %s '%s': %s", what, filename, g_strerror (err));
}

/* Reads exactly @size bytes at @offset; a short file is an error, since
 * open() checked that the data is there. */
gboolean
_plan_file_reader_read_full (PlanFileReader * self, guint8 * dest, gsize size,
    guint64 offset, GError ** error)
{
  while (size > 0) {
    gssize n = pread (self->fd, dest, size, offset);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      _plan_file_reader_set_errno_error (error, errno, "read from",
          self->filename);
      return FALSE;
    }
    if (n == 0) {
      struct stat st;

      g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
          "'%s' changed while it was read: it now ends at byte %"
          G_GUINT64_FORMAT " (it had %" G_GUINT64_FORMAT " bytes), and what "
          "was read of it is not used", self->filename,
          fstat (self->fd, &st) == 0 ? (guint64) st.st_size : offset,
          (guint64) self->opened.st_size);
      return FALSE;
    }
    dest += n;
    offset += n;
    size -= n;
  }
  return TRUE;
}

static void
drop_pool (PlanFileReader * self)
{
  if (self->pool) {
    gst_buffer_pool_set_active (self->pool, FALSE);
    gst_clear_object (&self->pool);
  }
}

/**
 * plan_file_reader_open:
 * @reader: a #PlanFileReader
 * @filename: the file to read
 * @format: its format; %PLAN_FILE_FORMAT_AUTO reads it as .npy when it
 *   starts with the .npy magic, as .npz when it starts as a zip archive,
 *   as HDF5 when it has the HDF5 signature, as NetCDF classic when it
 *   starts with "CDF" and version 1, 2 or 5, refuses it when it starts
 *   with the signature of another known format (gzip, zstd, xz, bzip2,
 *   PNG, Parquet, FITS, MATLAB MAT-file, TIFF, GRIB, JPEG) and reads it as
 *   raw otherwise
 * @raw_info: (nullable): the dtype and shape of a raw file; `shape[0]` -1
 *   means as many rows as the file holds. Ignored for .npy and .npz files.
 * @error: return location for a #GError
 *
 * Opens @filename, reads its layout and checks that the file size matches
 * it: a raw file must hold a whole number of rows (exactly `shape[0]` when
 * given), a .npy file at least the rows its header says (bytes after them
 * are ignored with a warning, as numpy does). A .npz file is a zip archive
 * of .npy files: the member chosen with plan_file_reader_set_member() is
 * read, stored or deflated. The window is set to the whole array. Any file
 * open before is closed first.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
/* A file of /proc or /sys is a regular file whose size says nothing of
 * its contents (0 for /proc/cpuinfo, 4096 for a sysfs attribute): read
 * as an array of that size, it would be empty or padded, silently. */
static gboolean
on_kernel_fs (gint fd)
{
#ifdef __linux__
  struct statfs fs;

  if (fstatfs (fd, &fs) < 0)
    return FALSE;
  return fs.f_type == 0x9fa0 /* PROC_SUPER_MAGIC */
      || fs.f_type == 0x62656572 /* SYSFS_MAGIC */ ;
#else
  return FALSE;
#endif
}

gboolean
plan_file_reader_open (PlanFileReader * reader, const gchar * filename,
    PlanFileFormat format, const PlanArrayInfo * raw_info, GError ** error)
{
  GError *err = NULL;
  struct stat st;

  g_return_val_if_fail (PLAN_IS_FILE_READER (reader), FALSE);
  g_return_val_if_fail (filename != NULL, FALSE);

  plan_file_reader_close (reader);
  reader->filename = g_strdup (filename);

  /* Opened without blocking: an open() of a FIFO without a writer would
   * wait for one, uninterruptibly for the pipeline, and a FIFO is refused
   * below anyway. A regular file never blocks, so the flag is cleared
   * again for it. */
  reader->fd = open (filename, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (reader->fd < 0)
    goto open_failed;
  if (fstat (reader->fd, &st) < 0)
    goto open_failed;
  if (S_ISDIR (st.st_mode)) {
    /* A directory may be a Zarr store. */
    if (format != PLAN_FILE_FORMAT_AUTO && format != PLAN_FILE_FORMAT_ZARR)
      goto is_dir;
    if (!_plan_file_reader_open_zarr (reader, &err))
      goto bad_layout;
  } else {
    if (!S_ISREG (st.st_mode))
      goto not_regular;
    if (on_kernel_fs (reader->fd))
      goto kernel_file;
    if (fcntl (reader->fd, F_SETFL, fcntl (reader->fd,
                F_GETFL) & ~O_NONBLOCK) < 0)
      goto open_failed;
    if (format == PLAN_FILE_FORMAT_ZARR)
      goto not_zarr;
    if (!_plan_file_reader_open_layout (reader, format, raw_info, st.st_size,
            &err))
      goto bad_layout;
  }
  reader->opened = st;
  reader->mapped = _plan_mapped_file_new (filename, reader->fd, st.st_size);
  if (reader->mapped == NULL)
    goto open_failed;
  /* Linux (5.0 on) answers mincore() on a file mapping truly only to the
   * file's owner, a privileged process or one that may write the file;
   * to others every page looks cached. */
  reader->mincore_tells = st.st_uid == geteuid () || geteuid () == 0
      || faccessat (AT_FDCWD, filename, W_OK, AT_EACCESS) == 0;

  reader->window_first = 0;
  reader->window_rows = reader->file_rows;
#ifdef POSIX_FADV_SEQUENTIAL
  posix_fadvise (reader->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  GST_DEBUG_OBJECT (reader, "opened '%s': %s, %" G_GUINT64_FORMAT " rows of %"
      G_GSIZE_FORMAT " bytes at offset %" G_GUINT64_FORMAT, filename,
      plan_file_format_to_string (reader->format), reader->file_rows,
      reader->row_size, reader->data_offset);
  return TRUE;

  /* ERRORS */
open_failed:
  {
    _plan_file_reader_set_errno_error (error, errno, "open", filename);
    plan_file_reader_close (reader);
    return FALSE;
  }
is_dir:
  {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
        "Could not read '%s': it is a directory", filename);
    plan_file_reader_close (reader);
    return FALSE;
  }
not_zarr:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "Could not read '%s': "
        "it is a file, and a Zarr store is a directory", filename);
    plan_file_reader_close (reader);
    return FALSE;
  }
not_regular:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "Could not read '%s': it is %s, not a regular file, and array files "
        "must have a known size (copy the data to a file first, or stream a "
        ".npy with filesrc ! npyparse)", filename,
        S_ISFIFO (st.st_mode) ? "a FIFO (named pipe)" : S_ISCHR (st.st_mode)
        || S_ISBLK (st.st_mode) ? "a device" : S_ISSOCK (st.st_mode) ?
        "a socket" : "special");
    plan_file_reader_close (reader);
    return FALSE;
  }
kernel_file:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "Could not read '%s': it is a file of the kernel's /proc or /sys, "
        "whose size is not known until it is read, and array files must "
        "have a known size (copy the data to a file first)", filename);
    plan_file_reader_close (reader);
    return FALSE;
  }
bad_layout:
  {
    g_propagate_prefixed_error (error, err, "Could not read '%s': ", filename);
    plan_file_reader_close (reader);
    return FALSE;
  }
}

/**
 * plan_file_reader_close:
 * @reader: a #PlanFileReader
 *
 * Stops the worker, drops what it read, and closes the file. Safe to call
 * when nothing is open.
 *
 * Since: 0.1
 */
void
plan_file_reader_close (PlanFileReader * reader)
{
  g_return_if_fail (PLAN_IS_FILE_READER (reader));

  plan_file_reader_stop (reader);
  g_mutex_lock (&reader->lock);
  g_clear_error (&reader->error);
  if (reader->inflated > 0)
    GST_INFO_OBJECT (reader, "inflated %" G_GUINT64_FORMAT " bytes of the %"
        G_GUINT64_FORMAT "-byte member '%s' of '%s'", reader->inflated,
        reader->stream_size, reader->member_name, reader->filename);
  reader->inflated = 0;
  g_mutex_unlock (&reader->lock);
  drop_pool (reader);
  if (reader->fd >= 0)
    close (reader->fd);
  reader->fd = -1;
  if (reader->spill_fd >= 0)
    close (reader->spill_fd);
  reader->spill_fd = -1;
  g_clear_pointer (&reader->mapped, _plan_mapped_file_unref);
  g_clear_pointer (&reader->filename, g_free);
  plan_array_info_init (&reader->file_info);
  reader->file_rows = reader->window_rows = reader->window_first = 0;
  reader->row_size = 0;
  reader->row_stride = 0;
  reader->data_offset = reader->stream_start = reader->stream_size = 0;
  reader->npy_layout = PLAN_NPY_LAYOUT_NATIVE;
  g_clear_pointer (&reader->member_name, g_free);
  g_clear_pointer (&reader->inflater, _plan_file_reader_inflater_free);
#if HAVE_HDF5
  g_clear_pointer (&reader->h5, _plan_h5_dataset_close);
#endif
#if HAVE_ZARR
  g_clear_pointer (&reader->zarr, _plan_zarr_array_close);
#endif
  reader->align_rows = 1;
  reader->deflated = FALSE;
  reader->member_csize = 0;
  reader->member_crc = 0;
}

/**
 * plan_file_reader_get_format:
 * @reader: a #PlanFileReader with a file open
 *
 * Returns: the format of the open file, %PLAN_FILE_FORMAT_RAW,
 *   %PLAN_FILE_FORMAT_NPY, %PLAN_FILE_FORMAT_NPZ, %PLAN_FILE_FORMAT_HDF5,
 *   %PLAN_FILE_FORMAT_ZARR or %PLAN_FILE_FORMAT_NETCDF.
 *
 * Since: 0.1
 */
PlanFileFormat
plan_file_reader_get_format (PlanFileReader * reader)
{
  g_return_val_if_fail (PLAN_IS_FILE_READER (reader), PLAN_FILE_FORMAT_AUTO);
  return reader->format;
}

/**
 * plan_file_reader_set_member:
 * @reader: a #PlanFileReader
 * @member: (nullable): the array of a .npz file to read, or %NULL for its
 *   only array
 *
 * Chooses the array that the next plan_file_reader_open() of a .npz file
 * reads, by its name in the archive ("temps.npy") or, as numpy's np.load()
 * names it, without ".npy" ("temps"). With %NULL, a .npz must hold exactly
 * one array. Opening a .npz without an array of that name fails with an
 * error that lists the names it has. Other formats ignore it.
 *
 * Since: 0.1
 */
void
plan_file_reader_set_member (PlanFileReader * reader, const gchar * member)
{
  g_return_if_fail (PLAN_IS_FILE_READER (reader));

  g_free (reader->member);
  reader->member = g_strdup (member);
}

/**
 * plan_file_reader_set_dataset:
 * @reader: a #PlanFileReader
 * @dataset: (nullable): the path of the dataset of an HDF5 file to read
 *   ("/group/temps"), or %NULL for its only dataset
 *
 * Chooses the dataset that the next plan_file_reader_open() of an HDF5
 * (or NetCDF-4) file reads, or the variable of a NetCDF classic file (by
 * its name, with or without a leading "/"). With %NULL, the file must hold
 * exactly one dataset (or variable). Opening a file without that dataset fails with an error that
 * lists the datasets it has. Other formats ignore it.
 *
 * Since: 0.1
 */
void
plan_file_reader_set_dataset (PlanFileReader * reader, const gchar * dataset)
{
  g_return_if_fail (PLAN_IS_FILE_READER (reader));

  g_free (reader->dataset);
  reader->dataset = g_strdup (dataset);
}

/**
 * plan_file_reader_get_member:
 * @reader: a #PlanFileReader
 *
 * Returns: (transfer none) (nullable): the name of the .npz member open,
 *   as the archive names it, or the path of the HDF5 dataset open, or
 *   the name of the NetCDF classic variable open, or %NULL when the file
 *   open is none of them.
 *
 * Since: 0.1
 */
const gchar *
plan_file_reader_get_member (PlanFileReader * reader)
{
  g_return_val_if_fail (PLAN_IS_FILE_READER (reader), NULL);
  return reader->member_name;
}

/**
 * plan_file_reader_get_file_info:
 * @reader: a #PlanFileReader with a file open
 *
 * Returns: (transfer none): the dtype and shape of the whole file, with
 *   `shape[0]` its number of rows.
 *
 * Since: 0.1
 */
const PlanArrayInfo *
plan_file_reader_get_file_info (PlanFileReader * reader)
{
  g_return_val_if_fail (PLAN_IS_FILE_READER (reader), NULL);
  return &reader->file_info;
}

/**
 * plan_file_reader_set_window:
 * @reader: a #PlanFileReader with a file open and its worker stopped
 * @first_row: the file row that becomes row 0
 * @n_rows: the number of rows, or -1 for all rows to the end of the file
 * @error: return location for a #GError
 *
 * Restricts the reader to rows [@first_row, @first_row + @n_rows) of the
 * file; a window reaching past the end of the file is cut at the end.
 *
 * Returns: %TRUE on success, %FALSE when @first_row is past the end, or
 *   when the file holds a 0-d array and the window has no row of it.
 *
 * Since: 0.1
 */
gboolean
plan_file_reader_set_window (PlanFileReader * reader, guint64 first_row,
    gint64 n_rows, GError ** error)
{
  g_return_val_if_fail (PLAN_IS_FILE_READER (reader), FALSE);
  g_return_val_if_fail (reader->thread == NULL, FALSE);

  if (first_row > reader->file_rows) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "offset %" G_GUINT64_FORMAT " is past the end of '%s', which has %"
        G_GUINT64_FORMAT " rows", first_row, reader->filename,
        reader->file_rows);
    return FALSE;
  }
  /* A 0-d array is one value, and its stream one row of it: a window of
   * no rows would announce that row and send none. */
  if (reader->file_info.ndim == 0 && (first_row > 0 || n_rows == 0)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "offset %" G_GUINT64_FORMAT " and length %" G_GINT64_FORMAT
        " select no row of '%s', which holds a 0-d array (one value, "
        "with no axis to take rows along): read it whole (offset 0, "
        "length -1 or 1)", first_row, n_rows, reader->filename);
    return FALSE;
  }
  reader->window_first = first_row;
  reader->window_rows = reader->file_rows - first_row;
  if (n_rows >= 0 && (guint64) n_rows < reader->window_rows)
    reader->window_rows = n_rows;
  return TRUE;
}

/**
 * plan_file_reader_get_info:
 * @reader: a #PlanFileReader with a file open
 * @info: (out caller-allocates): the dtype and shape of the window
 *
 * Fills @info with the file's dtype and row shape and the number of rows
 * of the window; these are the caps of the stream the reader produces.
 * A 0-d array stays 0-d.
 *
 * Since: 0.1
 */
void
plan_file_reader_get_info (PlanFileReader * reader, PlanArrayInfo * info)
{
  g_return_if_fail (PLAN_IS_FILE_READER (reader));
  g_return_if_fail (info != NULL);

  *info = reader->file_info;
  if (info->ndim > 0)
    info->shape[0] = reader->window_rows;
}

/**
 * plan_file_reader_get_n_rows:
 * @reader: a #PlanFileReader with a file open
 *
 * Returns: the number of rows in the window.
 *
 * Since: 0.1
 */
guint64
plan_file_reader_get_n_rows (PlanFileReader * reader)
{
  g_return_val_if_fail (PLAN_IS_FILE_READER (reader), 0);
  return reader->window_rows;
}

/**
 * plan_file_reader_get_row_size:
 * @reader: a #PlanFileReader with a file open
 *
 * Returns: the size of one row in bytes.
 *
 * Since: 0.1
 */
gsize
plan_file_reader_get_row_size (PlanFileReader * reader)
{
  g_return_val_if_fail (PLAN_IS_FILE_READER (reader), 0);
  return reader->row_size;
}

/* An unnamed temporary file in $TMPDIR (O_TMPFILE), or, where its file
 * system cannot make one, a named one unlinked at once: nothing is left
 * behind whatever happens to the process later. */
static gint
open_spill_file (PlanFileReader * self, GError ** error)
{
  const gchar *dir = g_get_tmp_dir ();
  gchar *path;
  gint fd, err;

#ifdef O_TMPFILE
  fd = open (dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0)
    return fd;
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
    goto failed;
#endif
  path = g_build_filename (dir, ".plan-npz-XXXXXX", NULL);
  fd = g_mkstemp_full (path, O_RDWR | O_CLOEXEC, 0600);
  err = errno;
  if (fd >= 0)
    unlink (path);
  g_free (path);
  if (fd >= 0)
    return fd;
  errno = err;
#ifdef O_TMPFILE
failed:
#endif
  err = errno;
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
      "Could not read from '%s': cannot create a temporary file in '%s' to "
      "inflate its member '%s' into: %s", self->filename, dir,
      self->member_name, g_strerror (err));
  return -1;
}

/* A deflated Fortran-ordered member, inflated whole into a temporary file
 * the first time its rows are read, by whichever thread reads them first
 * (the others wait): the descriptor of that file, or -1 with @error set.
 * Each chunk's runs lie all over the member, and deflate cannot be entered
 * in the middle, so reading them from the member itself would inflate it
 * from its start for every chunk. The worker (@worker) gives up when it is
 * stopped meanwhile, and the next read starts again. */
static gint
ensure_spill (PlanFileReader * self, gboolean worker, GError ** error)
{
  gint fd;

  g_mutex_lock (&self->spill_lock);
  if (self->spill_fd < 0) {
    fd = open_spill_file (self, error);
    if (fd >= 0 && !_plan_file_reader_inflate_to_file (self, worker, fd,
            error)) {
      close (fd);
      fd = -1;
    }
    if (fd >= 0)
      GST_INFO_OBJECT (self, "inflated the member '%s' of '%s', %"
          G_GUINT64_FORMAT " bytes, into a temporary file in '%s'",
          self->member_name, self->filename, self->stream_size,
          g_get_tmp_dir ());
    self->spill_fd = fd;
  }
  fd = self->spill_fd;
  g_mutex_unlock (&self->spill_lock);
  return fd;
}

/* Member bytes @pos to @pos + @size from the temporary file it was
 * inflated into. */
static gboolean
read_spill (PlanFileReader * self, gint fd, guint8 * dest, gsize size,
    guint64 pos, GError ** error)
{
  while (size > 0) {
    gssize n = pread (fd, dest, size, pos);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      gint err = n < 0 ? errno : EIO;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
          "Could not read from '%s': cannot read its member '%s' back from "
          "the temporary file in '%s' it was inflated into: %s",
          self->filename, self->member_name, g_get_tmp_dir (),
          n < 0 ? g_strerror (err) : "the file is shorter than the member");
      return FALSE;
    }
    dest += n;
    pos += n;
    size -= n;
  }
  return TRUE;
}

/* Reads @n_rows rows from file row @row of a Fortran-ordered .npy array
 * into @dest, in C order. The rows' elements of one inner index (all axes
 * but the first) are one run in the file, and runs are file_rows elements
 * apart: runs with gaps of at most FORTRAN_GAP bytes are read together,
 * FORTRAN_SPAN bytes at a time (or one run, when it is larger), and
 * scattered into place. Any thread. */
static gboolean
read_fortran_rows (PlanFileReader * self, Inflater * inf, guint8 * dest,
    guint64 row, guint64 n_rows, GError ** error)
{
  gsize item = plan_dtype_get_size (self->file_info.dtype);
  guint64 n_runs = self->row_size / item, per_span = 1, j;
  guint64 stride = self->file_rows * item;
  gsize run = n_rows * item;
  guint8 *span;
  gboolean ok = TRUE;
  gint spill = -1;

  if (n_rows == 0 || n_runs == 0)
    return TRUE;
  /* The worker reads with the reader's own inflater; any other thread
   * (plan_file_reader_read_rows()) with one of its own. */
  if (self->deflated) {
    spill = ensure_spill (self, inf == self->inflater, error);
    if (spill < 0)
      return FALSE;
  }
  if (stride - run <= FORTRAN_GAP && run < FORTRAN_SPAN)
    per_span = MIN (n_runs, (FORTRAN_SPAN - run) / stride + 1);
  span = g_try_malloc ((per_span - 1) * stride + run);
  if (span == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "Could not read from '%s': cannot allocate %" G_GUINT64_FORMAT
        " bytes to transpose its Fortran-ordered rows", self->filename,
        (per_span - 1) * stride + run);
    return FALSE;
  }
  for (j = 0; j < n_runs && ok; j += per_span) {
    guint64 k = MIN (per_span, n_runs - j);
    guint64 pos = self->data_offset + (row + j * self->file_rows) * item;

    ok = spill >= 0 ?
        read_spill (self, spill, span, (k - 1) * stride + run, pos, error) :
        _plan_file_reader_read_full (self, span, (k - 1) * stride + run, pos,
        error);
    if (ok)
      _plan_npy_fortran_scatter (&self->file_info, j, k, span, stride,
          n_rows, dest);
  }
  g_free (span);
  return ok;
}

/* Reads @n_rows window rows from @row into @buffer, which is large enough,
 * and sets its size and offsets; with @crc, the CRC-32 of the bytes as the
 * file has them (C order only). Any thread. */
static gboolean
read_rows_into (PlanFileReader * self, Inflater * inf, GstBuffer * buffer,
    guint64 row, guint64 n_rows, guint32 * crc, GError ** error)
{
  GstMapInfo map;
  gsize size = n_rows * self->row_size, offset, max_size;
  gboolean ok;

  gst_buffer_get_sizes (buffer, &offset, &max_size);
  if (max_size - offset < size)
    goto too_small;
  gst_buffer_resize (buffer, 0, size);
  if (!gst_buffer_map (buffer, &map, GST_MAP_WRITE)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "Could not read from '%s': cannot map a buffer of %" G_GSIZE_FORMAT
        " bytes", self->filename, size);
    return FALSE;
  }
  if (self->npy_layout & PLAN_NPY_LAYOUT_FORTRAN)
    ok = read_fortran_rows (self, inf, map.data, self->window_first + row,
        n_rows, error);
  else if (self->deflated)
    ok = _plan_file_reader_inflate_at (self, inf, map.data, size,
        self->data_offset + (self->window_first + row) * self->row_size,
        error);
#if HAVE_HDF5
  else if (self->h5) {
    ok = _plan_h5_dataset_read_rows (self->h5, self->window_first + row,
        n_rows, map.data, error);
    if (!ok)
      g_prefix_error (error, "Could not read from '%s': ", self->filename);
  }
#endif
#if HAVE_ZARR
  else if (self->zarr) {
    ok = _plan_zarr_array_read_rows (self->zarr, self->window_first + row,
        n_rows, map.data, error);
    if (!ok)
      g_prefix_error (error, "Could not read from '%s': ", self->filename);
  }
#endif
  else if (self->row_stride > 0)
    ok = _plan_file_reader_read_records (self, map.data,
        self->window_first + row, n_rows, error);
  else
    ok = _plan_file_reader_read_full (self, map.data, size,
        self->data_offset + (self->window_first + row) * self->row_size,
        error);
  if (ok && crc)
    *crc = _plan_file_reader_crc32 (0, map.data, size);
  /* Where a big-endian .npy's bytes are at hand: a mapping cannot swap. */
  if (ok && (self->npy_layout & PLAN_NPY_LAYOUT_BIG_ENDIAN))
    plan_dtype_swap_bytes (self->file_info.dtype, map.data, size);
  gst_buffer_unmap (buffer, &map);

  GST_BUFFER_OFFSET (buffer) = row;
  GST_BUFFER_OFFSET_END (buffer) = row + n_rows;
  return ok;

too_small:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "Could not read from '%s': a buffer of %" G_GSIZE_FORMAT " bytes "
        "cannot hold %" G_GUINT64_FORMAT " rows", self->filename,
        max_size - offset, n_rows);
    return FALSE;
  }
}

static void
drop_window (PlanFileReader * self)
{
  if (self->window)
    gst_memory_unref (self->window);
  self->window = NULL;
  self->window_base = NULL;
}

/* The file's data ends there; mapping past it (but within its last page)
 * is harmless. */
static guint64
data_end (PlanFileReader * self)
{
  /* An HDF5 dataset's chunks are anywhere in the file. */
  if (self->h5)
    return self->opened.st_size;
  /* A NetCDF record variable's last record. */
  if (self->row_stride > 0)
    return self->window_rows == 0 ? self->data_offset : self->data_offset +
        (self->window_first + self->window_rows - 1) * self->row_stride +
        self->row_size;
  return self->data_offset + (self->window_first + self->window_rows) *
      self->row_size;
}

/* Whether the chunks of the HDF5 dataset open are mapped from the file. */
static gboolean
h5_maps_chunks (PlanFileReader * self)
{
#if HAVE_HDF5
  return self->h5 && _plan_h5_dataset_maps_chunks (self->h5);
#else
  return FALSE;
#endif
}

/* The file that the HDF5 dataset open lies in, when an external link
 * leads to it from the file read, or NULL. */
static const gchar *
h5_elsewhere (PlanFileReader * self)
{
#if HAVE_HDF5
  return self->h5 ? _plan_h5_dataset_get_elsewhere (self->h5) : NULL;
#else
  return NULL;
#endif
}

/* Whether the file still holds its bytes up to @end; an error that says
 * what became of it if not. Worker thread. */
static gboolean
still_reaches (PlanFileReader * self, guint64 end, GError ** error)
{
  struct stat st;

  if (fstat (self->fd, &st) < 0) {
    _plan_file_reader_set_errno_error (error, errno, "read from",
        self->filename);
    return FALSE;
  }
  if ((guint64) st.st_size < end) {
    _plan_mapped_file_set_changed_error (self->mapped, error);
    return FALSE;
  }
  return TRUE;
}

/* Maps a window of the file that holds the bytes @start to @end; FALSE
 * without @error set when no more windows can be guarded (the chunk is
 * read instead). Worker thread. */
static gboolean
map_window (PlanFileReader * self, guint64 start, guint64 end, GError ** error)
{
  guint64 wstart = start & ~(MAP_ALIGN - 1), wend;
  GstMapInfo map;

  drop_window (self);

  /* A file that shrank already: say so rather than map what is gone. */
  if (!still_reaches (self, end, error))
    return FALSE;

  wend = MAX (end, wstart + MAP_MIN_SPAN);
  wend = (wend + MAP_ALIGN - 1) & ~(MAP_ALIGN - 1);
  wend = MIN (wend, (data_end (self) + CHUNK_ALIGN) & ~(guint64) CHUNK_ALIGN);
  wend = MAX (wend, end);

  /* Guarded: a truncation later makes a touch of these pages read zeros
   * and mark the file, rather than kill the process with SIGBUS. */
  self->window = _plan_mapped_file_map (self->mapped, wstart, wend - wstart,
      error);
  if (self->window == NULL)
    return FALSE;
  gst_memory_map (self->window, &map, GST_MAP_READ);
  self->window_base = map.data;
  gst_memory_unmap (self->window, &map);
  /* Page faults on it read ahead more. (MADV_WILLNEED would too, but
   * costs a walk over the pages when they are cached, as they mostly are.) */
  madvise (self->window_base, wend - wstart, MADV_SEQUENTIAL);
  self->window_start = wstart;
  self->window_end = wend;
  GST_LOG_OBJECT (self, "mapped bytes %" G_GUINT64_FORMAT "-%"
      G_GUINT64_FORMAT, wstart, wend);
  return TRUE;
}

/* Whether the pages of @start to @end are in the page cache, judged by
 * a few of them spread over the range (mincore() on the whole range walks
 * the page cache page by page, which costs as much as mapping them). */
static gboolean
looks_cached (PlanFileReader * self, guint64 start, guint64 end)
{
  const guint n_samples = 8;
  guint64 page = sysconf (_SC_PAGESIZE);
  guint i;

  if (!self->mincore_tells)
    return FALSE;
  for (i = 0; i < n_samples; i++) {
    guint64 at = start + (end - 1 - start) * i / (n_samples - 1);
    guint8 *addr = self->window_base + ((at - self->window_start) &
        ~(page - 1));
    unsigned char resident = 0;

    if (mincore (addr, page, &resident) < 0 || !(resident & 1))
      return FALSE;
  }
  return TRUE;
}

/* Maps the pages of @start to @end in when they are not cached, reading
 * them on this thread ahead of the consumer, so that disk reads overlap
 * downstream work. Cached pages are left to the consumer's page faults:
 * mapping them here costs more CPU time in all (a third thread busy beside
 * the consumer's, and page-table entries of 4 KiB where a fault maps a
 * large folio whole) and keeps every chunk in the queue resident. A
 * failure here is an error instead of a SIGBUS later. Worker thread. */
static gboolean
populate (PlanFileReader * self, guint64 start, guint64 end, GError ** error)
{
  guint8 *base = self->window_base;
  guint64 first = (start - self->window_start) & ~(guint64) CHUNK_ALIGN;

  if (self->no_populate || end <= start)
    return TRUE;
  /* Cached: what the populate would have found, a file cut short before
   * these pages, is an error now, not zeros for the consumer later. */
  if (looks_cached (self, start, end))
    return still_reaches (self, end, error);
  GST_LOG_OBJECT (self, "bytes %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT
      " are not cached: reading them in", start, end);
  while (madvise (base + first, end - self->window_start - first,
          MADV_POPULATE_READ) < 0) {
    if (errno == EINTR || errno == EAGAIN)
      continue;
    if (errno == EINVAL) {
      /* Before Linux 5.14; the pages fault in as they are touched. */
      GST_INFO_OBJECT (self, "no MADV_POPULATE_READ: %s", g_strerror (errno));
      self->no_populate = TRUE;
      return TRUE;
    }
    if (errno == EFAULT) {
      _plan_mapped_file_set_changed_error (self->mapped, error);
      return FALSE;
    }
    _plan_file_reader_set_errno_error (error, errno, "read from",
        self->filename);
    return FALSE;
  }
  return TRUE;
}

/* A chunk of @n_rows window rows from @row that shares the mapped pages of
 * the file. Worker thread. */
static GstBuffer *
map_rows (PlanFileReader * self, guint64 row, guint64 n_rows, GError ** error)
{
  guint64 start = self->data_offset + (self->window_first + row) *
      self->row_size;
  gsize size = n_rows * self->row_size;
  GstBuffer *buffer = gst_buffer_new ();

#if HAVE_HDF5
  if (self->h5 && size > 0) {
    /* One HDF5 chunk (the worker cuts chunks at their bounds): mapped where
     * the file has it, unless it was never written (the fill value) or
     * would hold misaligned elements. */
    guint64 file_row = self->window_first + row;
    guint64 chunk = file_row / self->align_rows;

    if (!_plan_h5_dataset_chunk_offset (self->h5, chunk, &start)
        || start % plan_dtype_get_size (self->file_info.dtype) != 0)
      goto not_mapped;
    start += (file_row - chunk * self->align_rows) * self->row_size;
    /* A chunk index that points past the end of the file (a corrupt
     * one) is libhdf5's to report: a mapping there would read as a file
     * cut short while it was read. */
    if (start > (guint64) self->opened.st_size
        || size > (guint64) self->opened.st_size - start)
      goto not_mapped;
  }
#endif
  if (size > 0) {
    if (self->window == NULL || start < self->window_start
        || start + size > self->window_end) {
      GError *err = NULL;

      if (!map_window (self, start, start + size, &err)) {
        if (err == NULL)
          goto not_mapped;
        g_propagate_error (error, err);
        goto failed;
      }
    }
    if (!populate (self, start, start + size, error))
      goto failed;
    gst_buffer_append_memory (buffer, _plan_mapped_file_share (self->window,
            start - self->window_start, size));
  }
  GST_BUFFER_OFFSET (buffer) = row;
  GST_BUFFER_OFFSET_END (buffer) = row + n_rows;
  return buffer;

failed:
  gst_buffer_unref (buffer);
  return NULL;

not_mapped:
  gst_buffer_unref (buffer);
  /* Every guarded window of the process is in use: this chunk is read. */
  buffer = gst_buffer_new_allocate (NULL, size, NULL);
  if (!read_rows_into (self, self->inflater, buffer, row, n_rows, NULL,
          error))
    gst_clear_buffer (&buffer);
  return buffer;
}

static GstBuffer *
acquire_chunk (PlanFileReader * self)
{
  GstBuffer *buffer = NULL;

  if (gst_buffer_pool_acquire_buffer (self->pool, &buffer, NULL) != GST_FLOW_OK)
    return NULL;
  return buffer;
}

/* The CRC-32 of a chunk's bytes. Worker thread. */
static guint32
buffer_crc (GstBuffer * buffer)
{
  guint32 crc = 0;
  guint i, n = gst_buffer_n_memory (buffer);

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);
    GstMapInfo map;

    if (!gst_memory_map (mem, &map, GST_MAP_READ))
      continue;                 /* then it mismatches */
    crc = _plan_file_reader_crc32 (crc, map.data, map.size);
    gst_memory_unmap (mem, &map);
  }
  return crc;
}

/* The last chunk is queued: the end of the stream, or, when a stored .npz
 * member was read whole and its CRC-32 is not the archive directory's, an
 * error in place of it (a file that changed while it was read says so
 * first). Called with the lock held. */
static void
finish (PlanFileReader * self)
{
  GError *err = NULL;

  if (self->crc_check && self->crc_rows == self->file_rows
      && (!_plan_mapped_file_check (self->mapped, &err)
          || !((self->npy_layout & PLAN_NPY_LAYOUT_FORTRAN) ?
              _plan_file_reader_check_member_crc_again (self, &err) :
              _plan_file_reader_check_member_crc (self, self->crc, &err)))) {
    GST_WARNING_OBJECT (self, "%s", err->message);
    self->error = err;
    return;
  }
  self->eos = TRUE;
}

/* Reads chunks and queues them in order, until the end, an error or a
 * stop. The workers, any number of them. */
static void
read_chunks (PlanFileReader * self)
{
  g_mutex_lock (&self->lock);
  while (self->running) {
    GstBuffer *buffer;
    GError *err = NULL;
    guint64 row, n, seq;
    guint32 crc = 0;

    if (g_queue_get_length (&self->queue) >= self->max_chunks) {
      g_cond_wait (&self->cond, &self->lock);
      continue;
    }
    if (self->error)
      break;                    /* another worker failed */
    if (self->next_row >= self->end_row) {
      /* The end, once what the other workers read is queued. */
      if (self->pushed == self->claimed && !self->eos && !self->error) {
        finish (self);
        g_cond_broadcast (&self->cond);
      }
      break;
    }
    seq = self->claimed++;
    row = self->next_row;
    n = MIN (self->chunk_rows, self->end_row - row);
    /* Ends at a multiple of the chunk size in file rows, so that a window
     * that starts inside an HDF5 chunk still reads each one once. */
    if (self->align_rows > 1)
      n = MIN (n, self->chunk_rows - (self->window_first + row) %
          self->chunk_rows);
    self->next_row += n;
    g_mutex_unlock (&self->lock);

    /* Each chunk's CRC where it is read, while its bytes are at hand (as
     * the file has them, before a swap); they are combined in row order as
     * chunks are queued. */
    if (self->used_mode == PLAN_FILE_IO_MODE_MMAP) {
      buffer = map_rows (self, row, n, &err);
      if (buffer && self->crc_check)
        crc = buffer_crc (buffer);
    } else {
      /* The pool never blocks: it has no maximum, and the queue bounds
       * what the worker holds. Only a deactivated pool fails. */
      buffer = acquire_chunk (self);
      if (buffer && !read_rows_into (self, self->inflater, buffer, row, n,
              self->crc_check && !(self->npy_layout &
                  PLAN_NPY_LAYOUT_FORTRAN) ? &crc : NULL, &err))
        gst_clear_buffer (&buffer);
    }

    g_mutex_lock (&self->lock);
    if (!self->running) {
      gst_clear_buffer (&buffer);
      g_clear_error (&err);
      break;
    }
    if (buffer == NULL) {
      if (err == NULL)
        g_set_error (&err, PLAN_ERROR, PLAN_ERROR_IO, "Could not read from "
            "'%s': no buffer for a chunk of %" G_GUINT64_FORMAT " rows",
            self->filename, n);
      GST_WARNING_OBJECT (self, "worker stops: %s", err->message);
      if (self->error == NULL)
        self->error = err;
      else
        g_clear_error (&err);
      g_cond_broadcast (&self->cond);
      break;
    }
    /* Chunks are queued in the order of their rows. */
    while (self->pushed != seq && self->running && self->error == NULL)
      g_cond_wait (&self->cond, &self->lock);
    if (!self->running || self->error) {
      gst_buffer_unref (buffer);
      break;
    }
    g_queue_push_tail (&self->queue, buffer);
    self->pushed++;
    if (self->crc_check) {
      self->crc = crc32_combine (self->crc, crc, n * self->row_size);
      self->crc_rows += n;
    }
    if (self->next_row >= self->end_row && self->pushed == self->claimed)
      finish (self);
    g_cond_broadcast (&self->cond);
  }
  g_mutex_unlock (&self->lock);
}

static gpointer
reader_thread (gpointer data)
{
  PlanFileReader *self = data;

  read_chunks (self);
  /* Chunks cut from the window keep it mapped while they live. */
  drop_window (self);
  return NULL;
}

/* A worker beside the first, for a format read without the window. */
static gpointer
helper_thread (gpointer data)
{
  read_chunks (data);
  return NULL;
}

/* Whether @n_buffers blocks of @size bytes of system memory can be had:
 * a pool allocates them with g_malloc() as it is activated, which aborts
 * the program where memory or the address space (ulimit -v) runs out,
 * before the reader could say so. Taken and given back at once. */
static gboolean
system_memory_available (gsize size, guint n_buffers)
{
  gpointer *blocks = g_new0 (gpointer, n_buffers);
  gboolean ok = TRUE;
  guint i;

  /* With room for the memory's header and alignment. */
  for (i = 0; i < n_buffers && ok; i++)
    ok = (blocks[i] = g_try_malloc (size + 4096)) != NULL;
  for (i = 0; i < n_buffers; i++)
    g_free (blocks[i]);
  g_free (blocks);
  return ok;
}

/* One more buffer than the queue holds (@n_buffers): the one being read
 * into. No maximum, so that downstream holding buffers never stalls the
 * worker; the queue is the bound on what the reader holds. */
static GstBufferPool *
new_pool (PlanFileReader * self, gsize size, guint n_buffers,
    GstAllocator * allocator)
{
  GstBufferPool *pool;
  GstStructure *config;

  if (allocator == NULL && !system_memory_available (size, n_buffers))
    return NULL;
  pool = gst_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, NULL, size, n_buffers, 0);
  gst_buffer_pool_config_set_allocator (config, allocator, &self->params);
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE))
    gst_clear_object (&pool);
  return pool;
}

static gboolean
ensure_pool (PlanFileReader * self, gsize chunk_rows, guint max_chunks,
    GError ** error)
{
  if (self->pool && self->pool_chunk_rows == chunk_rows
      && self->pool_min == max_chunks)
    return TRUE;
  /* GstBufferPool sizes are 32-bit. */
  if (chunk_rows * self->row_size > G_MAXUINT32)
    goto too_large;
  drop_pool (self);

  self->pool = new_pool (self, chunk_rows * self->row_size, max_chunks + 1,
      self->allocator);
  if (self->pool == NULL && self->allocator) {
    /* The memory was only proposed downstream; system memory works too. */
    GST_WARNING_OBJECT (self, "cannot allocate chunks from %" GST_PTR_FORMAT
        "; reading into system memory", self->allocator);
    self->pool = new_pool (self, chunk_rows * self->row_size,
        max_chunks + 1, NULL);
  }
  if (self->pool == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "Could not read '%s': cannot allocate %u chunks of %" G_GSIZE_FORMAT
        " bytes: not enough memory (a smaller blocksize or max-chunks needs "
        "less)", self->filename, max_chunks + 1, chunk_rows * self->row_size);
    return FALSE;
  }
  self->pool_chunk_rows = chunk_rows;
  self->pool_min = max_chunks;
  return TRUE;

too_large:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "Could not read '%s': its rows of %" G_GSIZE_FORMAT " bytes are too "
        "large for one chunk (at most 4 GiB)", self->filename, self->row_size);
    return FALSE;
  }
}

/**
 * plan_file_reader_set_allocator:
 * @reader: a #PlanFileReader whose worker is stopped
 * @allocator: (nullable) (transfer none): the allocator of chunk memory,
 *   %NULL for system memory
 * @params: (nullable): its parameters; the alignment is raised to a page
 *
 * Chooses the memory chunks are read into from the next
 * plan_file_reader_start() on, for example pinned host memory that a GPU
 * element downstream proposed in its allocation query. The memory must be
 * mappable for writing on the host.
 *
 * Since: 0.1
 */
void
plan_file_reader_set_allocator (PlanFileReader * reader,
    GstAllocator * allocator, const GstAllocationParams * params)
{
  GstAllocationParams p;

  g_return_if_fail (PLAN_IS_FILE_READER (reader));
  g_return_if_fail (reader->thread == NULL);

  if (params)
    p = *params;
  else
    gst_allocation_params_init (&p);
  p.align = MAX (p.align, CHUNK_ALIGN);
  /* Keep the pool, and the pages it holds, when nothing changes. */
  if (allocator == reader->allocator && p.align == reader->params.align
      && p.prefix == reader->params.prefix
      && p.padding == reader->params.padding && p.flags == reader->params.flags)
    return;

  gst_object_replace ((GstObject **) & reader->allocator,
      (GstObject *) allocator);
  reader->params = p;
  drop_pool (reader);
}

/**
 * plan_file_reader_set_io_mode:
 * @reader: a #PlanFileReader whose worker is stopped
 * @mode: how to get the bytes of chunks
 *
 * Chooses how chunks are made from the next plan_file_reader_start() on;
 * see #PlanFileIoMode. The default, %PLAN_FILE_IO_MODE_AUTO, maps the file
 * unless plan_file_reader_set_allocator() chose memory to read into or the
 * file cannot be mapped. With %PLAN_FILE_IO_MODE_MMAP, chunks are mapped
 * even when an allocator is set. plan_file_reader_read_rows() always
 * reads.
 *
 * Since: 0.1
 */
void
plan_file_reader_set_io_mode (PlanFileReader * reader, PlanFileIoMode mode)
{
  g_return_if_fail (PLAN_IS_FILE_READER (reader));
  g_return_if_fail (reader->thread == NULL);

  reader->io_mode = mode;
}

/**
 * plan_file_reader_set_mapped_chunk_size:
 * @reader: a #PlanFileReader whose worker is stopped
 * @bytes: the size of the chunks, rounded down to whole rows (at least
 *   one); 0 for the default, 2 MiB
 *
 * The size of the chunks plan_file_reader_start() makes when it is given
 * no chunk size and maps the file, from its next call on. Read chunks
 * (1 MiB) and mapped HDF5 chunks (one each) are not affected. A consumer
 * that only accumulates what it reads is served faster by larger chunks
 * (fewer hand-offs per byte), at the price of more of the file mapped at
 * a time: about (max_chunks + 2) chunks.
 *
 * Since: 0.1
 */
void
plan_file_reader_set_mapped_chunk_size (PlanFileReader * reader, gsize bytes)
{
  g_return_if_fail (PLAN_IS_FILE_READER (reader));
  g_return_if_fail (reader->thread == NULL);

  reader->mapped_chunk_bytes = bytes;
}

/**
 * plan_file_reader_set_max_auto_chunk_rows:
 * @reader: a #PlanFileReader whose worker is stopped
 * @rows: the most rows of a chunk, or 0 for no bound
 *
 * Bounds the size of the chunks plan_file_reader_start() chooses when it
 * is given no chunk size (read or mapped), from its next call on: a
 * stream sampled in time is read in chunks of
 * plan_array_info_get_paced_chunk_rows() rows, so that sinks syncing to
 * the clock play it in steps. A chunk size given to
 * plan_file_reader_start() is kept, and mapped HDF5 chunks are one each.
 *
 * Since: 0.1
 */
void
plan_file_reader_set_max_auto_chunk_rows (PlanFileReader * reader,
    guint64 rows)
{
  g_return_if_fail (PLAN_IS_FILE_READER (reader));
  g_return_if_fail (reader->thread == NULL);

  reader->max_auto_chunk_rows = rows;
}

/**
 * plan_file_reader_get_io_mode:
 * @reader: a #PlanFileReader
 *
 * Returns: %PLAN_FILE_IO_MODE_READ or %PLAN_FILE_IO_MODE_MMAP: how the
 *   worker makes chunks since the last plan_file_reader_start(); before
 *   the first start, the mode set with plan_file_reader_set_io_mode().
 *
 * Since: 0.1
 */
PlanFileIoMode
plan_file_reader_get_io_mode (PlanFileReader * reader)
{
  g_return_val_if_fail (PLAN_IS_FILE_READER (reader), PLAN_FILE_IO_MODE_AUTO);

  if (reader->used_mode == PLAN_FILE_IO_MODE_AUTO)
    return reader->io_mode;
  return reader->used_mode;
}

/* Whether the data starts at a byte that is not a multiple of the
 * element size (a stored .npz member or a contiguous HDF5 dataset may):
 * chunks mapped from there would hold misaligned elements, which
 * downstream loops must not be given. */
static gboolean
misaligned (PlanFileReader * self)
{
  gsize item = plan_dtype_get_size (self->file_info.dtype);

  return item > 1 && self->data_offset % item != 0;
}

/* What a .npy file holds that a mapping cannot give. */
static const gchar *
npy_layout_to_string (PlanNpyLayout layout)
{
  if (layout == (PLAN_NPY_LAYOUT_BIG_ENDIAN | PLAN_NPY_LAYOUT_FORTRAN))
    return "its elements are big-endian and in Fortran order, and are "
        "byte-swapped and transposed as they are read";
  if (layout == PLAN_NPY_LAYOUT_BIG_ENDIAN)
    return "its elements are big-endian, and are byte-swapped as they are "
        "read";
  return "its array is in Fortran order, and is transposed as it is read";
}

/* In AUTO mode, maps unless chunks should go to memory of the allocator's
 * or the file's filesystem cannot map it (a mapping of its first page
 * fails); a failure to map later is an error like a failed read. */
static PlanFileIoMode
choose_io_mode (PlanFileReader * self)
{
  gpointer probe;

  if (self->io_mode != PLAN_FILE_IO_MODE_AUTO)
    return self->io_mode;
  if (self->allocator != NULL || self->deflated || self->zarr
      || self->row_stride > 0 || (self->h5 && !h5_maps_chunks (self)))
    return PLAN_FILE_IO_MODE_READ;
  if (self->npy_layout != PLAN_NPY_LAYOUT_NATIVE) {
    GST_INFO_OBJECT (self, "'%s': %s; reading it", self->filename,
        npy_layout_to_string (self->npy_layout));
    return PLAN_FILE_IO_MODE_READ;
  }
  if (misaligned (self)) {
    GST_INFO_OBJECT (self, "the data of '%s' starts at byte %" G_GUINT64_FORMAT
        ", not a multiple of its elements' size; reading it", self->filename,
        self->data_offset);
    return PLAN_FILE_IO_MODE_READ;
  }
  probe = mmap (NULL, CHUNK_ALIGN + 1, PROT_READ, MAP_SHARED, self->fd, 0);
  if (probe == MAP_FAILED) {
    GST_INFO_OBJECT (self, "cannot map '%s' (%s); reading it",
        self->filename, g_strerror (errno));
    return PLAN_FILE_IO_MODE_READ;
  }
  munmap (probe, CHUNK_ALIGN + 1);
  return PLAN_FILE_IO_MODE_MMAP;
}

/**
 * plan_file_reader_start:
 * @reader: a #PlanFileReader with a file open
 * @first_row: the first window row to read
 * @end_row: one past the last window row to read; cut at the window's end
 * @chunk_rows: the number of rows per chunk, or 0 for the size that suits
 *   the io mode: 8 MiB of rows when mapped, 1 MiB when read (for a
 *   Fortran-ordered .npy, rows enough for runs of 4 KiB, up to 16 MiB)
 * @max_chunks: the most chunks read ahead and not yet popped, at least 1
 * @error: return location for a #GError
 *
 * Starts the worker reading from @first_row. A worker already running is
 * stopped first and what it read is dropped, so this is also how to seek.
 * The flushing state is cleared.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_file_reader_start (PlanFileReader * reader, guint64 first_row,
    guint64 end_row, gsize chunk_rows, guint max_chunks, GError ** error)
{
  gboolean auto_size = TRUE;

  g_return_val_if_fail (PLAN_IS_FILE_READER (reader), FALSE);
  g_return_val_if_fail (reader->fd >= 0, FALSE);
  g_return_val_if_fail (max_chunks > 0, FALSE);

  plan_file_reader_stop (reader);
  if (reader->deflated && reader->io_mode == PLAN_FILE_IO_MODE_MMAP) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not map "
        "'%s': its member '%s' is compressed, and compressed data cannot be "
        "mapped; read it instead", reader->filename, reader->member_name);
    return FALSE;
  }
  if (reader->io_mode == PLAN_FILE_IO_MODE_MMAP && misaligned (reader)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not map "
        "'%s': its array data starts at byte %" G_GUINT64_FORMAT ", which is "
        "not a multiple of its elements' size, and mapped chunks would hold "
        "misaligned elements; read it instead", reader->filename,
        reader->data_offset);
    return FALSE;
  }
  if (reader->npy_layout != PLAN_NPY_LAYOUT_NATIVE
      && reader->io_mode == PLAN_FILE_IO_MODE_MMAP) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not map "
        "'%s': %s, which a mapping of the file cannot do; read it instead",
        reader->filename, npy_layout_to_string (reader->npy_layout));
    return FALSE;
  }
  if (reader->zarr && reader->io_mode == PLAN_FILE_IO_MODE_MMAP) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not map "
        "'%s': a Zarr array is read chunk file by chunk file, and cannot be "
        "mapped; read it instead", reader->filename);
    return FALSE;
  }
  if (reader->row_stride > 0 && reader->io_mode == PLAN_FILE_IO_MODE_MMAP) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not map "
        "'%s': its NetCDF record variable '%s' lies in slabs between the "
        "other record variables' ones, which a mapped chunk cannot skip; "
        "read it instead", reader->filename, reader->member_name);
    return FALSE;
  }
  if (h5_elsewhere (reader) && reader->io_mode == PLAN_FILE_IO_MODE_MMAP) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not map "
        "'%s': its dataset '%s' lies in '%s' (an external link leads "
        "there), and is read through libhdf5, not mapped; read it instead",
        reader->filename, reader->member_name, h5_elsewhere (reader));
    return FALSE;
  }
  if (reader->h5 && !h5_maps_chunks (reader)
      && reader->io_mode == PLAN_FILE_IO_MODE_MMAP) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not map "
        "'%s': its dataset '%s' is compressed, not in the machine's byte "
        "order, or chunked other than in whole rows of at least 512 KiB a "
        "chunk, so it cannot be mapped; read it instead",
        reader->filename, reader->member_name);
    return FALSE;
  }
  end_row = MIN (end_row, reader->window_rows);
  first_row = MIN (first_row, end_row);
  reader->used_mode = choose_io_mode (reader);
  if (chunk_rows == 0 && reader->used_mode == PLAN_FILE_IO_MODE_MMAP)
    chunk_rows = (reader->mapped_chunk_bytes > 0 ? reader->mapped_chunk_bytes
        : AUTO_CHUNK_MAPPED) / MAX (reader->row_size, 1);
  else if (chunk_rows == 0 && (reader->npy_layout & PLAN_NPY_LAYOUT_FORTRAN))
    chunk_rows = MAX (AUTO_CHUNK_READ / reader->row_size,
        MIN (FORTRAN_MIN_RUN / plan_dtype_get_size (reader->file_info.dtype),
            AUTO_CHUNK_FORTRAN / reader->row_size));
  else if (chunk_rows == 0)
    chunk_rows = AUTO_CHUNK_READ / MAX (reader->row_size, 1);
  else
    auto_size = FALSE;
  if (auto_size && reader->max_auto_chunk_rows > 0)
    chunk_rows = MIN (chunk_rows, reader->max_auto_chunk_rows);
  /* A chunk never needs to be larger than what there is to read. */
  chunk_rows = MAX (1, MIN (chunk_rows, reader->window_rows));
  /* Whole HDF5 chunks: each is read and decompressed once. */
  if (reader->align_rows > 1)
    chunk_rows = MAX (reader->align_rows, chunk_rows / reader->align_rows *
        reader->align_rows);
  /* Mapped HDF5 chunks: one each, wherever the file has it. */
  if (reader->h5 && reader->used_mode == PLAN_FILE_IO_MODE_MMAP)
    chunk_rows = reader->align_rows;
  if (reader->used_mode == PLAN_FILE_IO_MODE_MMAP)
    drop_pool (reader);
  else if (!ensure_pool (reader, chunk_rows, max_chunks, error))
    return FALSE;

  g_mutex_lock (&reader->lock);
  reader->next_row = first_row;
  reader->claimed = reader->pushed = 0;
  reader->end_row = end_row;
  reader->chunk_rows = chunk_rows;
  reader->max_chunks = max_chunks;
  reader->running = TRUE;
  reader->flushing = FALSE;
  reader->eos = FALSE;
  g_clear_error (&reader->error);
  /* A stored .npz member's CRC-32 covers all of it: it is checked when
   * every row is read, in order, from the first; a window, a later first
   * row or an earlier end cannot check it. (A deflated member's is checked
   * as it is inflated.) A Fortran-ordered member's rows are not its bytes
   * in order: its bytes are read again at the end. */
  reader->crc_check = reader->format == PLAN_FILE_FORMAT_NPZ
      && !reader->deflated
      && reader->window_first == 0
      && reader->window_rows == reader->file_rows && first_row == 0
      && end_row == reader->window_rows;
  reader->crc = 0;
  reader->crc_rows = 0;
  g_mutex_unlock (&reader->lock);

  GST_DEBUG_OBJECT (reader, "%s rows %" G_GUINT64_FORMAT "-%"
      G_GUINT64_FORMAT " in chunks of %" G_GSIZE_FORMAT " rows, %u ahead",
      reader->used_mode == PLAN_FILE_IO_MODE_MMAP ? "mapping" : "reading",
      first_row, end_row, chunk_rows, max_chunks);
  reader->thread = g_thread_try_new ("planfilereader", reader_thread, reader,
      error);
  if (reader->thread == NULL) {
    g_mutex_lock (&reader->lock);
    reader->running = FALSE;
    g_mutex_unlock (&reader->lock);
    return FALSE;
  }
  /* A Zarr array's chunks, and an HDF5 dataset's that libplan decodes, are
   * decoded on as many workers as there are processors, each a buffer of
   * its own. */
  reader->n_helpers = 0;
  if (reader->zarr
#if HAVE_HDF5
      || (reader->h5 && _plan_h5_dataset_decodes_here (reader->h5))
#endif
      ) {
    guint n = MIN (g_get_num_processors () - 1, MAX_HELPERS);

    while (reader->n_helpers < n) {
      GThread *t = g_thread_try_new ("planfilereader", helper_thread, reader,
          NULL);

      if (t == NULL)
        break;
      reader->helpers[reader->n_helpers++] = t;
    }
  }
  return TRUE;
}

/* Whether the file is still the one opened, as long and as written as
 * then: checked at the end, so that a file cut short, written to or
 * replaced while it was read is an error rather than a result made of two
 * files (or, mapped, of zeros). */
static gboolean
check_unchanged (PlanFileReader * self, GError ** error)
{
  struct stat st, now;

  if (!_plan_mapped_file_check (self->mapped, error))
    return FALSE;
  if (fstat (self->fd, &st) < 0) {
    _plan_file_reader_set_errno_error (error, errno, "read from",
        self->filename);
    return FALSE;
  }
  /* A deflated member is read up to the end of its compressed bytes; the
   * chunks of an HDF5 dataset lie anywhere (libhdf5 says when one is
   * missing). */
  if (self->h5 == NULL && self->zarr == NULL && (guint64) st.st_size <
      (self->deflated ?
          self->stream_start + self->member_csize : data_end (self))) {
    _plan_mapped_file_set_changed_error (self->mapped, error);
    return FALSE;
  }
  if (self->h5 != NULL && st.st_size < self->opened.st_size) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "'%s' changed while it was read: it now ends at byte %"
        G_GUINT64_FORMAT " (it had %" G_GUINT64_FORMAT " bytes), and what "
        "was read of it is not used", self->filename, (guint64) st.st_size,
        (guint64) self->opened.st_size);
    return FALSE;
  }
  if (st.st_mtim.tv_sec != self->opened.st_mtim.tv_sec
      || st.st_mtim.tv_nsec != self->opened.st_mtim.tv_nsec) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "'%s' changed while it was read: it was written to (its "
        "modification time changed), and what was read of it is not used",
        self->filename);
    return FALSE;
  }
  if (stat (self->filename, &now) < 0 || now.st_ino != st.st_ino
      || now.st_dev != st.st_dev) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "'%s' changed while it was read: it was replaced by another file "
        "(or removed), and what was read of the one before is not used",
        self->filename);
    return FALSE;
  }
  return TRUE;
}

/**
 * plan_file_reader_pop:
 * @reader: a #PlanFileReader
 * @buffer: (out) (transfer full): the next chunk, with OFFSET and
 *   OFFSET_END set to its first and one past its last window row
 * @error: return location for a #GError
 *
 * Takes the next chunk, waiting for the worker to read it.
 *
 * Returns: %GST_FLOW_OK with @buffer set; %GST_FLOW_EOS after the last
 *   chunk; %GST_FLOW_FLUSHING when flushing or not started;
 *   %GST_FLOW_ERROR with @error set when reading failed.
 *
 * Since: 0.1
 */
GstFlowReturn
plan_file_reader_pop (PlanFileReader * reader, GstBuffer ** buffer,
    GError ** error)
{
  GstFlowReturn ret;

  g_return_val_if_fail (PLAN_IS_FILE_READER (reader), GST_FLOW_ERROR);
  g_return_val_if_fail (buffer != NULL, GST_FLOW_ERROR);

  *buffer = NULL;
  g_mutex_lock (&reader->lock);
  for (;;) {
    if (reader->flushing) {
      ret = GST_FLOW_FLUSHING;
    } else if (!g_queue_is_empty (&reader->queue)) {
      *buffer = g_queue_pop_head (&reader->queue);
      g_cond_broadcast (&reader->cond);
      ret = GST_FLOW_OK;
    } else if (reader->error) {
      /* A read that failed on a file that changed under it, in any
       * format, says that the file changed rather than what the read ran
       * into (an HDF5 file cut short fails in libhdf5, as a B-tree or a
       * chunk that does not decode): the change explains it. */
      if (check_unchanged (reader, error))
        g_propagate_error (error, g_error_copy (reader->error));
      ret = GST_FLOW_ERROR;
    } else if (reader->eos) {
      ret = check_unchanged (reader, error) ? GST_FLOW_EOS : GST_FLOW_ERROR;
    } else if (!reader->running) {
      ret = GST_FLOW_FLUSHING;
    } else {
      g_cond_wait (&reader->cond, &reader->lock);
      continue;
    }
    break;
  }
  g_mutex_unlock (&reader->lock);
  /* A chunk touched downstream after the file shrank. */
  if (ret == GST_FLOW_OK && !_plan_mapped_file_check (reader->mapped, error)) {
    gst_clear_buffer (buffer);
    ret = GST_FLOW_ERROR;
  }
  return ret;
}

/**
 * plan_file_reader_set_flushing:
 * @reader: a #PlanFileReader
 * @flushing: whether pop should return %GST_FLOW_FLUSHING
 *
 * Wakes a blocked plan_file_reader_pop() and makes it, and later calls,
 * return %GST_FLOW_FLUSHING until flushing is cleared again (or the
 * reader is started again). The worker is not stopped. Any thread.
 *
 * Since: 0.1
 */
void
plan_file_reader_set_flushing (PlanFileReader * reader, gboolean flushing)
{
  g_return_if_fail (PLAN_IS_FILE_READER (reader));

  g_mutex_lock (&reader->lock);
  reader->flushing = flushing;
  g_cond_broadcast (&reader->cond);
  g_mutex_unlock (&reader->lock);
}

/**
 * plan_file_reader_stop:
 * @reader: a #PlanFileReader
 *
 * Stops and joins the worker and drops the chunks it read. The file stays
 * open. Safe to call when the worker is not running.
 *
 * Since: 0.1
 */
void
plan_file_reader_stop (PlanFileReader * reader)
{
  GstBuffer *buffer;

  g_return_if_fail (PLAN_IS_FILE_READER (reader));

  g_mutex_lock (&reader->lock);
  reader->running = FALSE;
  g_cond_broadcast (&reader->cond);
  g_mutex_unlock (&reader->lock);

  if (reader->thread) {
    g_thread_join (reader->thread);
    reader->thread = NULL;
  }
  while (reader->n_helpers > 0)
    g_thread_join (reader->helpers[--reader->n_helpers]);

  g_mutex_lock (&reader->lock);
  while ((buffer = g_queue_pop_head (&reader->queue)))
    gst_buffer_unref (buffer);
  reader->eos = FALSE;
  g_mutex_unlock (&reader->lock);
}

/**
 * plan_file_reader_read_rows:
 * @reader: a #PlanFileReader with a file open
 * @first_row: the first window row
 * @n_rows: the number of rows
 * @error: return location for a #GError
 *
 * Reads rows synchronously, beside the worker, into a new buffer. May be
 * called from any thread while the file is open.
 *
 * Returns: (transfer full) (nullable): the rows, with OFFSET and OFFSET_END
 *   set, or %NULL with @error set when the range is outside the window or
 *   reading failed.
 *
 * Since: 0.1
 */
GstBuffer *
plan_file_reader_read_rows (PlanFileReader * reader, guint64 first_row,
    guint64 n_rows, GError ** error)
{
  GstBuffer *buffer;
  Inflater *inf = NULL;

  g_return_val_if_fail (PLAN_IS_FILE_READER (reader), NULL);
  g_return_val_if_fail (reader->fd >= 0, NULL);

  if (first_row > reader->window_rows
      || n_rows > reader->window_rows - first_row)
    goto out_of_range;

  buffer = gst_buffer_new_allocate (NULL, n_rows * reader->row_size, NULL);
  if (buffer == NULL)
    goto no_buffer;
  /* The worker's inflater is its own; a deflated member is inflated again
   * from its start here. */
  if (reader->deflated)
    inf = _plan_file_reader_inflater_new ();
  if (!read_rows_into (reader, inf, buffer, first_row, n_rows, NULL, error))
    gst_clear_buffer (&buffer);
  _plan_file_reader_inflater_free (inf);
  return buffer;

  /* ERRORS */
out_of_range:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "rows %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT " are outside the %"
        G_GUINT64_FORMAT " rows read from '%s'", first_row,
        first_row + n_rows, reader->window_rows, reader->filename);
    return NULL;
  }
no_buffer:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "Could not read from '%s': cannot allocate %" G_GUINT64_FORMAT
        " rows", reader->filename, n_rows);
    return NULL;
  }
}
