/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What a file PlanFileReader opens holds, and where: the format told by
 * the file's first bytes, a .npy header and the size it implies, a raw
 * layout checked against the file's size, the member of a .npz archive
 * (and the inflation of a deflated one, from its start), the HDF5 dataset
 * and the Zarr array. The object, its workers and its calls are in
 * planfilereader.c. */

/* fallocate() */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planfilereader-private.h"
#include "plannpy.h"
#include <libplan/planerror.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <zlib.h>
#if HAVE_LIBDEFLATE_CRC32
#include <libdeflate.h>
#endif

#define GST_CAT_DEFAULT plan_file_reader_debug

Inflater *
_plan_file_reader_inflater_new (void)
{
  Inflater *inf = g_new0 (Inflater, 1);

  inf->in = g_malloc (INFLATE_IN_SIZE);
  return inf;
}

void
_plan_file_reader_inflater_free (Inflater * inf)
{
  if (inf == NULL)
    return;
  if (inf->ready)
    inflateEnd (&inf->zs);
  g_free (inf->in);
  g_free (inf->skip);
  g_free (inf);
}

static void
set_corrupt_member_error (PlanFileReader * self, GError ** error,
    const gchar * why)
{
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "Could not read from "
      "'%s': its member '%s' is corrupt: %s", self->filename,
      self->member_name, why);
}

static void
set_crc_mismatch_error (PlanFileReader * self, GError ** error, guint32 crc)
{
  gchar *why = g_strdup_printf ("its CRC-32 does not match the archive's "
      "directory (0x%08x read, 0x%08x in the directory)", crc,
      self->member_crc);

  set_corrupt_member_error (self, error, why);
  g_free (why);
}

/* zlib's crc32() with a size_t length; libdeflate's where it is found
 * (several times faster, with the processor's carry-less multiply). */
guint32
_plan_file_reader_crc32 (guint32 crc, const guint8 * data, gsize size)
{
#if HAVE_LIBDEFLATE_CRC32
  return libdeflate_crc32 (crc, data, size);
#else
  while (size > 0) {
    uInt n = MIN (size, (gsize) 1 << 30);

    crc = crc32 (crc, data, n);
    data += n;
    size -= n;
  }
  return crc;
#endif
}

/* The CRC-32 of stored member bytes @from to @to, read from the file. */
static gboolean
crc_of_stream (PlanFileReader * self, guint64 from, guint64 to,
    guint32 * crc, GError ** error)
{
  guint8 *buf;
  gboolean ok = TRUE;

  *crc = 0;
  if (from >= to)
    return TRUE;
  buf = g_malloc (MIN (to - from, INFLATE_IN_SIZE));
  while (ok && from < to) {
    gsize k = MIN (to - from, INFLATE_IN_SIZE);

    ok = _plan_file_reader_read_full (self, buf, k, self->stream_start +
        from, error);
    if (ok)
      *crc = _plan_file_reader_crc32 (*crc, buf, k);
    from += k;
  }
  g_free (buf);
  return ok;
}

/* Checks a stored member's CRC-32 against the archive's directory, given
 * @data_crc, that of all its array data: the .npy header before it and any
 * bytes after it are read again here. */
gboolean
_plan_file_reader_check_member_crc (PlanFileReader * self, guint32 data_crc,
    GError ** error)
{
  guint64 header = self->data_offset - self->stream_start;
  guint64 data = self->file_rows * self->row_size;
  guint32 head_crc, tail_crc, crc;

  if (!crc_of_stream (self, 0, header, &head_crc, error)
      || !crc_of_stream (self, header + data, self->stream_size, &tail_crc,
          error))
    return FALSE;
  crc = crc32_combine (head_crc, data_crc, data);
  crc = crc32_combine (crc, tail_crc, self->stream_size - header - data);
  if (crc == self->member_crc)
    return TRUE;
  set_crc_mismatch_error (self, error, crc);
  return FALSE;
}

/* Checks a stored member's CRC-32 against the archive's directory by
 * reading all of it again: for a member whose rows are not read in the
 * file's order (a Fortran-ordered array, read run by run). */
gboolean
_plan_file_reader_check_member_crc_again (PlanFileReader * self,
    GError ** error)
{
  guint32 crc;

  if (!crc_of_stream (self, 0, self->stream_size, &crc, error))
    return FALSE;
  if (crc == self->member_crc)
    return TRUE;
  set_crc_mismatch_error (self, error, crc);
  return FALSE;
}

static gboolean
inflater_restart (PlanFileReader * self, Inflater * inf, GError ** error)
{
  gint r = inf->ready ? inflateReset (&inf->zs) :
      inflateInit2 (&inf->zs, -MAX_WBITS);

  if (r != Z_OK) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "Could not read from "
        "'%s': cannot start inflating its member '%s' (zlib error %d)",
        self->filename, self->member_name, r);
    return FALSE;
  }
  inf->ready = TRUE;
  inf->zs.avail_in = 0;
  inf->in_pos = inf->out_pos = 0;
  inf->crc = crc32 (0, NULL, 0);
  return TRUE;
}

/* Inflates the next @size member bytes into @dest. The member's CRC is
 * checked when the last of its bytes comes out. */
static gboolean
inflate_next (PlanFileReader * self, Inflater * inf, guint8 * dest,
    gsize size, GError ** error)
{
  gchar *why;

  while (size > 0) {
    guint avail = MIN (size, (gsize) 1 << 30);
    gint r;

    /* With all of the compressed data taken in, zlib may still hold
     * output: the rest of a match that the last call had no room for.
     * So the data has ended early only when inflate() gives nothing
     * more without input. */
    if (inf->zs.avail_in == 0) {
      gsize k = MIN (INFLATE_IN_SIZE, self->member_csize - inf->in_pos);

      if (k > 0 && !_plan_file_reader_read_full (self, inf->in, k,
              self->stream_start + inf->in_pos, error))
        return FALSE;
      inf->in_pos += k;
      inf->zs.next_in = inf->in;
      inf->zs.avail_in = k;
    }
    inf->zs.next_out = dest;
    inf->zs.avail_out = avail;
    r = inflate (&inf->zs, Z_NO_FLUSH);
    avail -= inf->zs.avail_out;
    inf->crc = crc32 (inf->crc, dest, avail);
    inf->out_pos += avail;
    dest += avail;
    size -= avail;
    if ((r == Z_STREAM_END && size > 0) || (avail == 0
            && inf->zs.avail_in == 0 && inf->in_pos == self->member_csize))
      goto ends_early;
    if (r != Z_OK && r != Z_STREAM_END && !(r == Z_BUF_ERROR
            && inf->zs.avail_in == 0)) {
      why = g_strdup_printf ("its compressed data is invalid near byte %"
          G_GUINT64_FORMAT " of it (%s)", inf->in_pos - inf->zs.avail_in,
          inf->zs.msg ? inf->zs.msg : zError (r));
      set_corrupt_member_error (self, error, why);
      g_free (why);
      return FALSE;
    }
  }
  if (inf->out_pos == self->stream_size && inf->crc != self->member_crc) {
    set_crc_mismatch_error (self, error, inf->crc);
    return FALSE;
  }
  return TRUE;

ends_early:
  {
    why = g_strdup_printf ("its compressed data ends after %" G_GUINT64_FORMAT
        " of its %" G_GUINT64_FORMAT " bytes", inf->out_pos,
        self->stream_size);
    set_corrupt_member_error (self, error, why);
    g_free (why);
    return FALSE;
  }
}

static void
count_inflated (PlanFileReader * self, guint64 n)
{
  g_mutex_lock (&self->lock);
  self->inflated += n;
  g_mutex_unlock (&self->lock);
}

/* Inflates member bytes @pos to @pos + @size into @dest, going on from
 * where @inf stopped when it can, from the member's start otherwise. */
gboolean
_plan_file_reader_inflate_at (PlanFileReader * self, Inflater * inf,
    guint8 * dest, gsize size, guint64 pos, GError ** error)
{
  guint64 before;
  gboolean ok = TRUE;

  if ((!inf->ready || pos < inf->out_pos)
      && !inflater_restart (self, inf, error))
    return FALSE;
  before = inf->out_pos;
  if (pos > inf->out_pos && inf->skip == NULL)
    inf->skip = g_malloc (INFLATE_SKIP_SIZE);
  while (ok && pos > inf->out_pos)
    ok = inflate_next (self, inf, inf->skip, MIN (INFLATE_SKIP_SIZE,
            pos - inf->out_pos), error);
  ok = ok && inflate_next (self, inf, dest, size, error);
  count_inflated (self, inf->out_pos - before);
  return ok;
}

static gboolean
still_running (PlanFileReader * self)
{
  gboolean running;

  g_mutex_lock (&self->lock);
  running = self->running;
  g_mutex_unlock (&self->lock);
  return running;
}

static void
set_temporary_file_error (PlanFileReader * self, GError ** error, gint err,
    const gchar * what)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
      "Could not read from '%s': cannot %s the temporary file in '%s' that "
      "its member '%s' is inflated into: %s", self->filename, what,
      g_get_tmp_dir (), self->member_name, g_strerror (err));
}

static gboolean
write_full (PlanFileReader * self, gint fd, const guint8 * data, gsize size,
    guint64 offset, GError ** error)
{
  while (size > 0) {
    gssize n = pwrite (fd, data, size, offset);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      /* A write of nothing, with room asked for, is a full disk. */
      set_temporary_file_error (self, error, n < 0 ? errno : ENOSPC,
          "write to");
      return FALSE;
    }
    data += n;
    offset += n;
    size -= n;
  }
  return TRUE;
}

/* Inflates the whole member into @fd, from its start, a piece at a time
 * (memory stays that of one piece), and checks its CRC-32 at its end.
 * Room for all of it is asked for first, so that a full disk fails before
 * the work rather than after. The worker (@worker) gives up when it is
 * stopped meanwhile (a seek or a stop). */
gboolean
_plan_file_reader_inflate_to_file (PlanFileReader * self, gboolean worker,
    gint fd, GError ** error)
{
  Inflater *inf = _plan_file_reader_inflater_new ();
  guint8 *out = g_malloc (INFLATE_SKIP_SIZE);
  guint64 pos = 0;
  gboolean ok;

#ifdef __linux__
  if (self->stream_size > 0 && fallocate (fd, 0, 0, self->stream_size) < 0
      && (errno == ENOSPC || errno == EDQUOT || errno == EFBIG)) {
    set_temporary_file_error (self, error, errno, "make room for");
    ok = FALSE;
    goto done;
  }
#endif
  ok = inflater_restart (self, inf, error);
  while (ok && pos < self->stream_size) {
    gsize k = MIN (INFLATE_SKIP_SIZE, self->stream_size - pos);

    ok = inflate_next (self, inf, out, k, error)
        && write_full (self, fd, out, k, pos, error);
    pos += k;
    if (ok && worker && !still_running (self)) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "Could not read from "
          "'%s': stopped while inflating its member '%s'", self->filename,
          self->member_name);
      ok = FALSE;
    }
  }
  count_inflated (self, inf->out_pos);
#ifdef __linux__
done:
#endif
  g_free (out);
  _plan_file_reader_inflater_free (inf);
  return ok;
}

/* Reads @size bytes of the .npy stream (the file, or the .npz member) at
 * @pos of it; @inf inflates a deflated member. */
static gboolean
read_stream (PlanFileReader * self, Inflater * inf, guint8 * dest,
    gsize size, guint64 pos, GError ** error)
{
  if (self->deflated)
    return _plan_file_reader_inflate_at (self, inf, dest, size, pos, error);
  return _plan_file_reader_read_full (self, dest, size,
      self->stream_start + pos, error);
}

static gboolean
read_npy_header (PlanFileReader * self, GError ** error)
{
  guint8 pre[PLAN_NPY_PREAMBLE_SIZE];
  guint8 *header;
  gsize pre_size = MIN (self->stream_size, sizeof (pre)), header_size;
  gboolean ok;

  if (!read_stream (self, self->inflater, pre, pre_size, 0, error))
    return FALSE;
  if (!plan_npy_parse_preamble (pre, pre_size, NULL, &header_size, error))
    return FALSE;
  if (header_size > self->stream_size) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "truncated .npy header: it says %" G_GSIZE_FORMAT " bytes but the "
        "%s has %" G_GUINT64_FORMAT, header_size, self->member_name ?
        "member" : "file", self->stream_size);
    return FALSE;
  }
  header = g_malloc (header_size);
  ok = read_stream (self, self->inflater, header, header_size, 0, error)
      && plan_npy_parse_header_full (header, header_size,
      PLAN_NPY_LAYOUT_BIG_ENDIAN | PLAN_NPY_LAYOUT_FORTRAN, &self->file_info,
      NULL, &self->npy_layout, error);
  g_free (header);
  self->data_offset = (self->deflated ? 0 : self->stream_start) + header_size;
  return ok;
}

static gboolean
check_npy_size (PlanFileReader * self, GError ** error)
{
  guint64 rows = plan_array_info_get_n_rows (&self->file_info);
  guint64 data = self->stream_size - (self->data_offset -
      (self->deflated ? 0 : self->stream_start));

  if (self->row_size > 0 && rows > data / self->row_size) {
    gchar *s = plan_array_info_to_string (&self->file_info);
    gchar *what = self->member_name ? g_strdup_printf ("its member '%s'",
        self->member_name) : g_strdup ("the file");

    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "%s is truncated: its header says %s, %" G_GUINT64_FORMAT
        " rows of %" G_GSIZE_FORMAT " bytes, but only %" G_GUINT64_FORMAT
        " bytes of data follow the header", what, s, rows, self->row_size,
        data);
    g_free (what);
    g_free (s);
    return FALSE;
  }
  if (rows * self->row_size != data)
    GST_WARNING_OBJECT (self, "'%s' has %" G_GUINT64_FORMAT " bytes after "
        "its array data; ignoring them", self->filename,
        data - rows * self->row_size);
  self->file_rows = rows;
  return TRUE;
}

static gboolean
check_raw_size (PlanFileReader * self, const PlanArrayInfo * raw_info,
    guint64 file_size, GError ** error)
{
  PlanArrayInfo info = *raw_info;
  gint64 rows = plan_array_info_get_n_rows (raw_info);
  gchar *s;

  if (rows < 0 && file_size % self->row_size == 0) {
    info.shape[0] = file_size / self->row_size;
  } else if (rows >= 0 && (guint64) rows <= file_size / self->row_size
      && (guint64) rows * self->row_size == file_size) {
    /* The shape says exactly what is there. */
  } else {
    goto mismatch;
  }
  self->file_info = info;
  self->file_rows = plan_array_info_get_n_rows (&info);
  return TRUE;

mismatch:
  {
    s = plan_array_info_to_string (raw_info);
    if (rows < 0)
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "the file size, %" G_GUINT64_FORMAT " bytes, is not a whole number "
          "of rows of %s (%" G_GSIZE_FORMAT " bytes each)", file_size, s,
          self->row_size);
    else
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "the file size, %" G_GUINT64_FORMAT " bytes, does not match the "
          "shape: %s needs %" G_GUINT64_FORMAT " bytes", file_size, s,
          (guint64) rows * self->row_size);
    g_free (s);
    return FALSE;
  }
}

/* A .npz member matches @member by its name in the archive (@exact) or,
 * as numpy's np.load() names them, by that name without ".npy". */
static gboolean
member_matches (const PlanZipEntry * e, const gchar * member, gboolean exact)
{
  gsize n = strlen (e->name);

  if (exact)
    return strcmp (e->name, member) == 0;
  return n > 4 && g_str_has_suffix (e->name, ".npy")
      && strlen (member) == n - 4 && strncmp (e->name, member, n - 4) == 0;
}

/* The entry np.load() gives for @member: one of that name in the archive,
 * else one of that name and ".npy"; of several of one name, the last, as
 * Python's zipfile finds it. -1 when none matches. */
static gint
find_member (GPtrArray * entries, const gchar * member)
{
  gint i, pass;

  for (pass = 0; pass < 2; pass++)
    for (i = (gint) entries->len - 1; i >= 0; i--)
      if (member_matches (g_ptr_array_index (entries, i), member, pass == 0))
        return i;
  return -1;
}

/* "'a', 'b' and 'c'", numpy's names of the arrays, the first 20 of them. */
static gchar *
list_members (GPtrArray * entries)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < entries->len && i < 20; i++) {
    const PlanZipEntry *e = g_ptr_array_index (entries, i);
    gsize n = strlen (e->name);

    if (i > 0)
      g_string_append (s, i + 1 == entries->len ? " and " : ", ");
    g_string_append_printf (s, "'%.*s'", (gint) (g_str_has_suffix (e->name,
                ".npy") ? n - 4 : n), e->name);
  }
  if (entries->len > 20)
    g_string_append_printf (s, " and %u more", entries->len - 20);
  return g_string_free (s, FALSE);
}

static PlanZipEntry *
choose_member (PlanFileReader * self, GPtrArray * entries, GError ** error)
{
  gchar *names;
  guint i;
  gint found;

  /* Folders are entries too; they hold no array. */
  for (i = entries->len; i > 0; i--) {
    const PlanZipEntry *e = g_ptr_array_index (entries, i - 1);
    if (g_str_has_suffix (e->name, "/"))
      g_ptr_array_remove_index (entries, i - 1);
  }
  if (self->member == NULL && entries->len == 1)
    return g_ptr_array_steal_index (entries, 0);
  found = self->member ? find_member (entries, self->member) : -1;
  if (found >= 0)
    return g_ptr_array_steal_index (entries, found);

  if (entries->len == 0) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT,
        "it is a zip archive (.npz) with no arrays in it");
    return NULL;
  }
  names = list_members (entries);
  if (self->member)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "it has no "
        "array named '%s'; its arrays are %s", self->member, names);
  else
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "it holds "
        "%u arrays, %s; name the one to read as the member", entries->len,
        names);
  g_free (names);
  return NULL;
}

/* Says which member an error reading its .npy header is of. An error
 * inflating it names the file and the member already, as it does for the
 * streaming thread: the file's name is given again by the caller, so it
 * goes. */
static void
prefix_member_error (PlanFileReader * self, GError ** error)
{
  gchar *own = g_strdup_printf ("Could not read from '%s': ", self->filename);
  gchar *message = (*error)->message;

  if (g_str_has_prefix (message, own))
    memmove (message, message + strlen (own), strlen (message) - strlen (own)
        + 1);
  else
    g_prefix_error (error, "its member '%s': ", self->member_name);
  g_free (own);
}

/* Finds the member to read in the .npz's directory and reads the .npy
 * header at its start. */
static gboolean
open_npz (PlanFileReader * self, guint64 file_size, GError ** error)
{
  GPtrArray *entries = _plan_zip_read_directory (self->fd, file_size, NULL,
      error);
  PlanZipEntry *e;
  gboolean ok = FALSE;

  if (entries == NULL)
    return FALSE;
  e = choose_member (self, entries, error);
  g_ptr_array_unref (entries);
  if (e == NULL)
    return FALSE;
  self->member_name = g_strdup (e->name);
  if (!_plan_zip_locate_data (self->fd, file_size, e, error))
    goto done;
  if (e->flags & 1)
    goto encrypted;
  if (e->method != 0 && e->method != 8)
    goto bad_method;
  if (e->method == 0 && e->csize != e->usize)
    goto bad_sizes;

  self->deflated = e->method == 8;
  self->stream_start = e->data_offset;
  self->stream_size = e->usize;
  self->member_csize = e->csize;
  self->member_crc = e->crc;
  if (self->deflated)
    self->inflater = _plan_file_reader_inflater_new ();
  ok = read_npy_header (self, error);
  if (!ok)
    prefix_member_error (self, error);
  goto done;

encrypted:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its member '%s' "
      "is encrypted", e->name);
  goto done;
bad_method:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its member '%s' "
      "is compressed with zip method %u; only stored (0) and deflated (8) "
      "members are read, as numpy's savez and savez_compressed write them",
      e->name, e->method);
  goto done;
bad_sizes:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its stored member "
      "'%s' has %" G_GUINT64_FORMAT " bytes in the archive but says it has %"
      G_GUINT64_FORMAT "; the archive is corrupt", e->name, e->csize,
      e->usize);
  goto done;
done:
  _plan_zip_entry_free (e);
  return ok;
}

/* An HDF5 dataset: read through libhdf5, or, when its bytes lie in the
 * file as they are in memory, like a .npy. */
static gboolean
open_h5 (PlanFileReader * self, guint64 file_size, GError ** error)
{
#if HAVE_HDF5
  guint64 offset, rows;

  self->h5 = _plan_h5_dataset_open (self->filename, self->dataset,
      &self->file_info, &self->align_rows, &offset, error);
  if (self->h5 == NULL)
    return FALSE;
  self->member_name = g_strdup (_plan_h5_dataset_get_path (self->h5));
  self->row_size = plan_array_info_get_row_size (&self->file_info);
  rows = plan_array_info_get_n_rows (&self->file_info);
  self->file_rows = rows;
  if (offset != G_MAXUINT64) {
    if (offset > file_size || (self->row_size > 0
            && rows > (file_size - offset) / self->row_size))
      goto truncated;
    self->data_offset = self->stream_start = offset;
    self->stream_size = rows * self->row_size;
    self->align_rows = 1;
    g_clear_pointer (&self->h5, _plan_h5_dataset_close);
  }
  return TRUE;

truncated:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its dataset '%s' "
        "(%" G_GUINT64_FORMAT " rows of %" G_GSIZE_FORMAT " bytes at byte %"
        G_GUINT64_FORMAT ") does not fit in the file of %" G_GUINT64_FORMAT
        " bytes; it is truncated", self->member_name, rows, self->row_size,
        offset, file_size);
    return FALSE;
  }
#else
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "it is an HDF5 "
      "(or NetCDF-4) file, and this gst-plan was built without HDF5 "
      "(install libhdf5-dev and build it again)");
  return FALSE;
#endif
}

/* A directory: a Zarr v2 or v3 array (or a group of them), read chunk by
 * chunk through libplan's own reader of the specification. */
gboolean
_plan_file_reader_open_zarr (PlanFileReader * self, GError ** error)
{
#if HAVE_ZARR
  self->format = PLAN_FILE_FORMAT_ZARR;
  self->zarr = _plan_zarr_array_open (self->filename, self->dataset,
      &self->file_info, &self->align_rows, error);
  if (self->zarr == NULL)
    return FALSE;
  self->member_name = g_strdup (_plan_zarr_array_get_path (self->zarr));
  self->row_size = plan_array_info_get_row_size (&self->file_info);
  self->file_rows = plan_array_info_get_n_rows (&self->file_info);
  self->data_offset = self->stream_start = self->stream_size = 0;
  return TRUE;
#else
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR, "it is a directory "
      "(and this gst-plan was built without Zarr, so it is not read as a "
      "Zarr store: install libjson-glib-dev and build it again)");
  return FALSE;
#endif
}

/* Files that start with these bytes are never taken for raw array data
 * unless the raw format is asked for: the first bytes of raw data being
 * one of them by chance is far less likely than a user pointing at the
 * wrong kind of file. The HDF5 signature may also follow a user block of
 * 512 bytes or more; only the common case, at byte 0, is looked for. */
static const struct
{
  const gchar *magic;
  guint size;
  const gchar *what;
} known_magics[] = {
  {"\x1f\x8b\x08", 3, "a gzip-compressed file"},
  {"\x28\xb5\x2f\xfd", 4, "a zstd-compressed file"},
  {"\xfd" "7zXZ\x00", 6, "an xz-compressed file"},
  {"BZh", 3, "a bzip2-compressed file"},
  {"\x89PNG\r\n\x1a\n", 8, "a PNG image"},
  {"PAR1", 4, "a Parquet file"},
  {"SIMPLE  =", 9, "a FITS file"},
  /* MATLAB's -v5 and -v7 files; -v7.3 files are HDF5, and read as HDF5 */
  {"MATLAB 5.0 MAT-file", 19, "a MATLAB MAT-file (save it with -v7.3, "
        "which is HDF5, or convert it with scipy.io.loadmat)"},
  {"II*\x00", 4, "a TIFF image"},
  {"MM\x00*", 4, "a TIFF image"},
  {"GRIB", 4, "a GRIB file"},
  {"\xff\xd8\xff", 3, "a JPEG image"},
};

#define MAGIC_PEEK 32

/* NetCDF classic (CDF-1), 64-bit offset (CDF-2) and 64-bit data (CDF-5). */
static gboolean
has_cdf_magic (const guint8 * magic, gsize n)
{
  return n >= 4 && memcmp (magic, "CDF", 3) == 0 && (magic[3] == 1
      || magic[3] == 2 || magic[3] == 5);
}

static PlanFileFormat
format_from_magic (const guint8 * magic, gsize n, const gchar ** what)
{
  guint i;

  *what = NULL;
  if (plan_npy_has_magic (magic, n))
    return PLAN_FILE_FORMAT_NPY;
  if (_plan_zip_has_magic (magic, n))
    return PLAN_FILE_FORMAT_NPZ;
  if (n >= 8 && memcmp (magic, "\x89HDF\r\n\x1a\n", 8) == 0)
    return PLAN_FILE_FORMAT_HDF5;
  if (has_cdf_magic (magic, n))
    return PLAN_FILE_FORMAT_NETCDF;
  for (i = 0; i < G_N_ELEMENTS (known_magics); i++) {
    if (n >= known_magics[i].size
        && memcmp (magic, known_magics[i].magic, known_magics[i].size) == 0)
      *what = known_magics[i].what;
  }
  return PLAN_FILE_FORMAT_RAW;
}

/* HDF5 files may start with a user block of 512, 1024, 2048 ... bytes;
 * the signature then follows it, as libhdf5 looks for it. */
static gboolean
has_hdf5_user_block (PlanFileReader * self, guint64 file_size)
{
  guint64 at;
  guint8 sig[8];

  for (at = 512; at + 8 <= file_size; at *= 2) {
    if (!_plan_file_reader_read_full (self, sig, 8, at, NULL))
      return FALSE;
    if (memcmp (sig, "\x89HDF\r\n\x1a\n", 8) == 0)
      return TRUE;
  }
  return FALSE;
}

gboolean
_plan_file_reader_open_layout (PlanFileReader * self, PlanFileFormat format,
    const PlanArrayInfo * raw_info, guint64 file_size, GError ** error)
{
  const gchar *what = NULL;
  PlanArrayInfo checked;

  self->stream_start = 0;
  self->stream_size = file_size;
  if (format == PLAN_FILE_FORMAT_AUTO) {
    guint8 magic[MAGIC_PEEK];
    gsize n = MIN (file_size, sizeof (magic));

    if (!_plan_file_reader_read_full (self, magic, n, 0, error))
      return FALSE;
    format = format_from_magic (magic, n, &what);
    if (what)
      goto known_magic;
    if (format == PLAN_FILE_FORMAT_RAW && has_hdf5_user_block (self,
            file_size))
      format = PLAN_FILE_FORMAT_HDF5;
  } else if (format == PLAN_FILE_FORMAT_HDF5) {
    /* ".nc" is both: a classic NetCDF file asked for as HDF5 is read as
     * what it is. */
    guint8 magic[4];

    if (file_size >= 4 && _plan_file_reader_read_full (self, magic, 4, 0,
            NULL) && has_cdf_magic (magic, 4))
      format = PLAN_FILE_FORMAT_NETCDF;
  } else if (format == PLAN_FILE_FORMAT_NETCDF) {
    /* and a NetCDF-4 file, which is HDF5, asked for as NetCDF is read as
     * the HDF5 file it is */
    guint8 magic[8];

    if ((file_size >= 8 && _plan_file_reader_read_full (self, magic, 8, 0,
                NULL) && memcmp (magic, "\x89HDF\r\n\x1a\n", 8) == 0)
        || has_hdf5_user_block (self, file_size))
      format = PLAN_FILE_FORMAT_HDF5;
  }
  self->format = format;

  if (format == PLAN_FILE_FORMAT_NETCDF)
    return _plan_file_reader_open_cdf (self, file_size, error);
  if (format == PLAN_FILE_FORMAT_HDF5)
    return open_h5 (self, file_size, error);
  if (format == PLAN_FILE_FORMAT_NPZ && !open_npz (self, file_size, error))
    return FALSE;
  if (format == PLAN_FILE_FORMAT_NPY && !read_npy_header (self, error))
    return FALSE;
  if (format == PLAN_FILE_FORMAT_NPY || format == PLAN_FILE_FORMAT_NPZ) {
    self->row_size = plan_array_info_get_row_size (&self->file_info);
    return check_npy_size (self, error);
  }

  if (raw_info == NULL || raw_info->dtype == PLAN_DTYPE_UNKNOWN) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "it is a raw file (no .npy header), so its dtype must be given");
    return FALSE;
  }
  /* A layout made by hand (the plan API's raw file bindings) is checked
   * as planfilesrc checks its shape: an inner axis of 0 made the row
   * size 0 (a division by zero), and one too large overflowed it. */
  if (!plan_array_info_set (&checked, raw_info->dtype, raw_info->ndim,
          raw_info->shape, error))
    return FALSE;
  self->data_offset = 0;
  self->row_size = plan_array_info_get_row_size (raw_info);
  return check_raw_size (self, raw_info, file_size, error);

known_magic:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "it is %s, not "
        ".npy, .npz, HDF5, NetCDF or raw array data; to read its bytes as raw data "
        "anyway, ask for the raw format", what);
    return FALSE;
  }
}
