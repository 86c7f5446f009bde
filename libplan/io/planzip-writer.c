/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The zip container of the .npz files PlanFileWriter writes: one member,
 * a .npy file, stored (as np.savez stores it) or deflated (as
 * np.savez_compressed does), written front to back in bounded memory.
 *
 * The member's local header comes first, with a zip64 extra field as
 * numpy's has, so that sizes past 4 GiB fit in it; its sizes and CRC-32
 * are written over at the end, when they are known (the file is a
 * regular file, written beside its target and renamed into place). The
 * .npy header's row count too is known only at the end: the header has
 * room for any count (plan_npy_get_header_size()) and is written over
 * then. Deflated, it is the first block of the deflate stream, a stored
 * block whose bytes are the header as it is, so that it can be written
 * over in the same way; zlib deflates the data after it. The CRC-32 of
 * the data is computed as it is written, and that of the member is
 * combined from the final header's and the data's at the end. The central
 * directory and the end record follow the data, with zip64 records where
 * a size or an offset does not fit in 32 bits. */

/* copy_file_range () */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/core/plan-private.h"
#include "planzip-private.h"
#include "planfilewriter-private.h"
#include <libplan/planerror.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* The local header's zip64 extra field: its tag and size, then the
 * uncompressed and the compressed size. */
#define LOCAL_EXTRA_SIZE 20
/* The stored deflate block the .npy header is in: a byte of block header
 * (not the last block, stored), then its length and the length's
 * complement. */
#define STORED_BLOCK_SIZE 5

#define METHOD_STORED 0
#define METHOD_DEFLATED 8
/* Version 4.5 of the format: zip64. */
#define VERSION_ZIP64 45
#define VERSION_PLAIN 20
/* General purpose flag 11: the name is UTF-8. */
#define FLAG_UTF8 0x0800

/* The longest member name: the local header gives it 16 bits. */
#define MAX_NAME ((gsize) 65535)

/* Sizes and offsets from this one on are written in zip64 records. */
#define ZIP64_LIMIT ((guint64) 0xffffffffu)

#define OUT_SIZE ((gsize) 64 << 10)

/* A member of the archive a member is added to, copied ahead of it: what
 * its central directory entry says. */
typedef struct
{
  gchar *raw_name;              /* as in the archive, not made UTF-8 */
  gsize name_len;
  guint16 version, flags, method, dos_time, dos_date;
  guint32 crc;
  guint64 csize, usize;
  guint64 offset;               /* of its local header in the new file */
} KeptEntry;

struct _PlanZipKept
{
  GArray *entries;              /* of KeptEntry */
  guint64 end;                  /* where the copied members end */
  GBytes *comment;              /* the archive's, written again at its end */
};

struct _PlanZipWriter
{
  gint fd;
  gchar *location;
  gchar *name;
  guint level;
  guint16 dos_time, dos_date;
  guint64 zip64_limit;
  gsize npy_header_size;
  /* where the .npy header is in the file */
  guint64 npy_header_offset;
  /* bytes of the file so far (the next write's offset) */
  guint64 offset;
  /* the member's data after the .npy header: its bytes, its CRC-32 */
  guint64 data_size;
  guint32 data_crc;
  gboolean deflating;
  z_stream z;
  guint8 *out;
  /* the members copied ahead of this one; its local header's offset */
  PlanZipKept *kept;
  guint64 base;
};

static void
put16 (guint8 * p, guint v)
{
  p[0] = v & 0xff;
  p[1] = (v >> 8) & 0xff;
}

static void
put32 (guint8 * p, guint32 v)
{
  put16 (p, v & 0xffff);
  put16 (p + 2, v >> 16);
}

static void
put64 (guint8 * p, guint64 v)
{
  put32 (p, v & 0xffffffffu);
  put32 (p + 4, v >> 32);
}

static guint16
get16 (const guint8 * p)
{
  return p[0] | (p[1] << 8);
}

static void
kept_entry_clear (KeptEntry * e)
{
  g_free (e->raw_name);
}

/**
 * _plan_zip_kept_free:
 * @kept: (nullable): members copied by _plan_zip_writer_copy_members()
 */
void
_plan_zip_kept_free (PlanZipKept * kept)
{
  if (kept == NULL)
    return;
  g_array_unref (kept->entries);
  if (kept->comment)
    g_bytes_unref (kept->comment);
  g_free (kept);
}

static gboolean
read_exact (gint fd, guint8 * dest, gsize size, guint64 offset)
{
  while (size > 0) {
    gssize n = pread (fd, dest, size, offset);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      return FALSE;
    }
    dest += n;
    size -= n;
    offset += n;
  }
  return TRUE;
}

/* Copies @size bytes of @src from @offset to @dst's position: in the
 * kernel (copy_file_range()) where the two files allow, else through a
 * buffer. */
static gboolean
copy_range (gint src, guint64 offset, gint dst, guint64 size,
    const gchar * location, GError ** error)
{
  loff_t in = offset;
  guint8 *buf;

  while (size > 0) {
    gssize n = copy_file_range (src, &in, dst, NULL, MIN (size, (guint64) 1
            << 30), 0);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL
            || errno == EOPNOTSUPP || errno == EBADF))
      break;
    if (n < 0) {
      _plan_file_writer_set_errno_error (error, errno, "add to", location);
      return FALSE;
    }
    if (n == 0) {
      _plan_file_writer_set_errno_error (error, EIO, "add to", location);
      return FALSE;
    }
    size -= n;
  }
  buf = g_malloc (MIN (size, OUT_SIZE) + 1);
  while (size > 0) {
    gsize piece = MIN (size, OUT_SIZE);

    if (!read_exact (src, buf, piece, in)) {
      _plan_file_writer_set_errno_error (error, errno, "read", location);
      g_free (buf);
      return FALSE;
    }
    if (!_plan_file_writer_write_full (dst, buf, piece, location, error)) {
      g_free (buf);
      return FALSE;
    }
    in += piece;
    size -= piece;
  }
  g_free (buf);
  return TRUE;
}

/**
 * _plan_zip_writer_copy_members:
 * @dst: the new, empty file the archive is written into
 * @location: the .npz file whose members are kept
 * @skip: the name of the member that is replaced (the one written next)
 * @error: return location for a #GError
 *
 * Copies the members of the archive at @location but @skip into @dst,
 * each its local header and data as they are, one after the other from
 * the start, and gives @dst the archive's mode; the archive's comment is
 * kept for its new end record. Nothing at @location is nothing to copy.
 *
 * Returns: (transfer full): what the central directory will say of the
 *   members copied, for _plan_zip_writer_new(), or %NULL with @error set
 *   when the file there is not a zip archive, or one whose members cannot
 *   be copied as they are (encrypted, or followed by a data descriptor).
 */
PlanZipKept *
_plan_zip_writer_copy_members (gint dst, const gchar * location,
    const gchar * skip, GError ** error)
{
  PlanZipKept *kept = g_new0 (PlanZipKept, 1);
  gint src = open (location, O_RDONLY | O_CLOEXEC);
  GPtrArray *entries = NULL;
  guint8 magic[4];
  struct stat st;
  guint i;

  kept->entries = g_array_new (FALSE, TRUE, sizeof (KeptEntry));
  g_array_set_clear_func (kept->entries, (GDestroyNotify) kept_entry_clear);
  if (src < 0 && errno == ENOENT)
    return kept;
  if (src < 0 || fstat (src, &st) < 0) {
    _plan_file_writer_set_errno_error (error, errno, "open to add to",
        location);
    goto failed;
  }
  if (st.st_size < 4 || !read_exact (src, magic, 4, 0)
      || !_plan_zip_has_magic (magic, 4))
    goto not_zip;
  entries = _plan_zip_read_directory (src, st.st_size, &kept->comment,
      error);
  if (entries == NULL)
    goto bad_archive;
  for (i = 0; i < entries->len; i++) {
    PlanZipEntry *e = g_ptr_array_index (entries, i);
    KeptEntry k = { 0 };
    guint8 *local;
    gsize local_size;

    if (strcmp (e->name, skip) == 0)
      continue;
    if (!_plan_zip_locate_data (src, st.st_size, e, error))
      goto bad_archive;
    if (e->flags & 0x0009)
      goto not_copied;
    local_size = e->data_offset - e->header_offset;
    local = g_malloc (local_size);
    if (!read_exact (src, local, local_size, e->header_offset)) {
      _plan_file_writer_set_errno_error (error, errno, "read", location);
      g_free (local);
      goto failed;
    }
    k.name_len = get16 (local + 26);
    k.raw_name = g_memdup2 (local + LOCAL_SIZE, k.name_len);
    k.version = get16 (local + 4);
    k.flags = e->flags;
    k.method = e->method;
    k.dos_time = get16 (local + 10);
    k.dos_date = get16 (local + 12);
    k.crc = e->crc;
    k.csize = e->csize;
    k.usize = e->usize;
    k.offset = kept->end;
    g_array_append_val (kept->entries, k);
    if (!_plan_file_writer_write_full (dst, local, local_size, location,
            error)) {
      g_free (local);
      goto failed;
    }
    g_free (local);
    if (!copy_range (src, e->data_offset, dst, e->csize, location, error))
      goto failed;
    kept->end += local_size + e->csize;
  }
  if (fchmod (dst, st.st_mode & 07777) < 0) {
    _plan_file_writer_set_errno_error (error, errno, "add to", location);
    goto failed;
  }
  g_ptr_array_unref (entries);
  close (src);
  return kept;

  /* ERRORS */
not_zip:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "Could not add to "
        "'%s': the file there is not a .npz file (a zip archive) to add a "
        "member to; it is left as it is", location);
    goto failed;
  }
bad_archive:
  {
    gchar *message = g_strdup_printf ("Could not add to '%s': %s; it is "
        "left as it is", location, (*error)->message);

    g_free ((*error)->message);
    (*error)->message = message;
    goto failed;
  }
not_copied:
  {
    PlanZipEntry *e = g_ptr_array_index (entries, i);

    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not add "
        "to '%s': its member '%s' is %s, which is not copied into the new "
        "archive; it is left as it is", location, e->name,
        e->flags & 0x0001 ? "encrypted" : "followed by a data descriptor");
    goto failed;
  }
failed:
  if (entries)
    g_ptr_array_unref (entries);
  if (src >= 0)
    close (src);
  _plan_zip_kept_free (kept);
  return NULL;
}

/* Whether each part of the archive name @name between '/'s (".npy"
 * included in the last) is a name: not empty, '.' or '..'. */
static gboolean
parts_are_names (const gchar * name)
{
  gchar **parts = g_strsplit (name, "/", -1);
  gboolean ok = TRUE;
  guint i;

  for (i = 0; ok && parts[i]; i++)
    ok = parts[i][0] != '\0' && strcmp (parts[i], ".") != 0
        && strcmp (parts[i], "..") != 0;
  g_strfreev (parts);
  return ok;
}

/**
 * _plan_zip_writer_check_name:
 * @member: (nullable): the member's name as the user gave it, %NULL for
 *   numpy's name of a first positional array, "arr_0"
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the name of the member in the archive,
 *   ".npy" appended when it does not end so, or %NULL with @error set for
 *   a name numpy cannot give back (empty, not UTF-8 or too long for a zip
 *   archive) or that zip tools take for a path outside the archive's
 *   folders (a leading '/', a part that is empty, '.' or '..'). A '/'
 *   between names is kept: np.savez(f, **{'obs/temps': a}) writes
 *   'obs/temps.npy', and np.load(f)['obs/temps'] reads it.
 */
gchar *
_plan_zip_writer_check_name (const gchar * member, GError ** error)
{
  gsize len;
  gchar *name;

  if (member == NULL)
    member = "arr_0";
  len = strlen (member);
  if (!g_utf8_validate (member, len, NULL)) {
    gchar *shown = g_utf8_make_valid (member, len);

    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the member name '%s' is not valid UTF-8, which zip archives and "
        "numpy name their members in", shown);
    g_free (shown);
    return NULL;
  }
  if (len >= 4 && strcmp (member + len - 4, ".npy") == 0)
    name = g_strdup (member);
  else
    name = g_strconcat (member, ".npy", NULL);
  if (strlen (name) == 4) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the member name is empty; name the array (numpy's key for it, "
        "such as 'temps')");
    g_free (name);
    return NULL;
  }
  if (!parts_are_names (name)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the member name '%s' starts with a '/' or has a part between '/'s "
        "that is empty, '.' or '..', which zip tools take for a path "
        "outside the archive's folders; name it by parts such as "
        "'obs/temps'", member);
    g_free (name);
    return NULL;
  }
  if (strlen (name) > MAX_NAME) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the member name is %" G_GSIZE_FORMAT " bytes long (with '.npy'); "
        "a zip archive's names are at most %" G_GSIZE_FORMAT " bytes",
        strlen (name), MAX_NAME);
    g_free (name);
    return NULL;
  }
  return name;
}

static gboolean
is_ascii (const gchar * s)
{
  for (; *s; s++)
    if ((guchar) * s >= 0x80)
      return FALSE;
  return TRUE;
}

static gboolean
write_at (PlanZipWriter * zw, const guint8 * data, gsize size,
    guint64 offset, const gchar * what, GError ** error)
{
  while (size > 0) {
    gssize n = pwrite (zw->fd, data, size, offset);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      _plan_file_writer_set_errno_error (error, n < 0 ? errno : EIO, what,
          zw->location);
      return FALSE;
    }
    data += n;
    size -= n;
    offset += n;
  }
  return TRUE;
}

static gboolean
append (PlanZipWriter * zw, const guint8 * data, gsize size, GError ** error)
{
  if (!_plan_file_writer_write_full (zw->fd, data, size, zw->location, error))
    return FALSE;
  zw->offset += size;
  return TRUE;
}

/**
 * _plan_zip_writer_new:
 * @fd: the new, empty file, at its start
 * @location: the target, for messages
 * @name: the member's name (_plan_zip_writer_check_name())
 * @level: 0 to store the member, 1 to 9 to deflate it at that level
 * @npy_header: the .npy header with room for any row count
 * @npy_header_size: its size
 * @kept: (transfer full) (nullable): the members copied ahead of this one
 *   (_plan_zip_writer_copy_members()), whose end @fd's position is at
 * @error: return location for a #GError
 *
 * Writes the member's local header and the .npy header.
 *
 * Returns: (transfer full): the writer, or %NULL with @error set.
 */
PlanZipWriter *
_plan_zip_writer_new (gint fd, const gchar * location, const gchar * name,
    guint level, const guint8 * npy_header, gsize npy_header_size,
    PlanZipKept * kept, GError ** error)
{
  PlanZipWriter *zw;
  GDateTime *now;
  gsize name_len = strlen (name);
  guint8 *local;
#ifdef PLAN_EXPORT_TEST_HOOKS
  const gchar *limit;
#endif
  gboolean ok;

  g_return_val_if_fail (level <= 9, NULL);
  g_return_val_if_fail (name_len <= MAX_NAME, NULL);

  zw = g_new0 (PlanZipWriter, 1);
  zw->fd = fd;
  zw->location = g_strdup (location);
  zw->name = g_strdup (name);
  zw->level = level;
  zw->npy_header_size = npy_header_size;
  zw->data_crc = crc32 (0, NULL, 0);
  zw->kept = kept;
  zw->base = kept ? kept->end : 0;
  zw->offset = zw->base;
  zw->zip64_limit = ZIP64_LIMIT;
#ifdef PLAN_EXPORT_TEST_HOOKS
  /* For the tests only (builds with tests): zip64 records from a smaller
   * size on, so that they are tested without writing 4 GiB. */
  limit = g_getenv ("PLAN_TEST_ZIP64_LIMIT");
  if (limit && *limit)
    zw->zip64_limit = MIN (g_ascii_strtoull (limit, NULL, 10), ZIP64_LIMIT);
#endif

  /* The time in the archive is local time, as zip tools write it; before
   * 1980 it cannot be said. */
  now = g_date_time_new_now_local ();
  if (g_date_time_get_year (now) >= 1980) {
    zw->dos_time = (g_date_time_get_hour (now) << 11)
        | (g_date_time_get_minute (now) << 5)
        | (g_date_time_get_second (now) / 2);
    zw->dos_date = ((MIN (g_date_time_get_year (now), 2107) - 1980) << 9)
        | (g_date_time_get_month (now) << 5)
        | g_date_time_get_day_of_month (now);
  } else {
    zw->dos_date = (1 << 5) | 1;
  }
  g_date_time_unref (now);

  if (level > 0) {
    if (npy_header_size > 0xffff)
      goto header_too_big;
    if (deflateInit2 (&zw->z, level, Z_DEFLATED, -15, 8,
            Z_DEFAULT_STRATEGY) != Z_OK)
      goto no_deflate;
    zw->deflating = TRUE;
    zw->out = g_malloc (OUT_SIZE);
  }

  /* The sizes and CRC-32 are written over at the end. */
  local = g_malloc0 (LOCAL_SIZE + name_len + LOCAL_EXTRA_SIZE +
      STORED_BLOCK_SIZE);
  put32 (local, SIG_LOCAL);
  put16 (local + 4, VERSION_ZIP64);
  put16 (local + 6, is_ascii (name) ? 0 : FLAG_UTF8);
  put16 (local + 8, level > 0 ? METHOD_DEFLATED : METHOD_STORED);
  put16 (local + 10, zw->dos_time);
  put16 (local + 12, zw->dos_date);
  put32 (local + 18, 0xffffffffu);
  put32 (local + 22, 0xffffffffu);
  put16 (local + 26, name_len);
  put16 (local + 28, LOCAL_EXTRA_SIZE);
  memcpy (local + LOCAL_SIZE, name, name_len);
  put16 (local + LOCAL_SIZE + name_len, 0x0001);
  put16 (local + LOCAL_SIZE + name_len + 2, 16);
  zw->npy_header_offset = LOCAL_SIZE + name_len + LOCAL_EXTRA_SIZE;
  if (level > 0) {
    guint8 *block = local + zw->npy_header_offset;

    block[0] = 0;
    put16 (block + 1, npy_header_size);
    put16 (block + 3, ~npy_header_size & 0xffff);
    zw->npy_header_offset += STORED_BLOCK_SIZE;
  }
  ok = append (zw, local, zw->npy_header_offset, error)
      && append (zw, npy_header, npy_header_size, error);
  zw->npy_header_offset += zw->base;
  g_free (local);
  if (!ok) {
    _plan_zip_writer_free (zw);
    return NULL;
  }
  return zw;

  /* ERRORS */
header_too_big:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "Could not "
        "write '%s': its .npy header of %" G_GSIZE_FORMAT " bytes is too "
        "big to deflate (at most 65535)", location, npy_header_size);
    _plan_zip_writer_free (zw);
    return NULL;
  }
no_deflate:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "Could not write '%s': "
        "zlib could not start deflating (%s)", location,
        zw->z.msg ? zw->z.msg : "out of memory");
    _plan_zip_writer_free (zw);
    return NULL;
  }
}

/* Deflates @size bytes at @data (none with Z_FINISH to end the stream)
 * and writes what comes out. */
static gboolean
deflate_out (PlanZipWriter * zw, const guint8 * data, gsize size, gint flush,
    GError ** error)
{
  zw->z.next_in = (Bytef *) data;
  for (;;) {
    gsize piece = MIN (size, (gsize) 1 << 30);
    gint ret;

    zw->z.avail_in = piece;
    zw->z.next_out = zw->out;
    zw->z.avail_out = OUT_SIZE;
    ret = deflate (&zw->z, piece < size ? Z_NO_FLUSH : flush);
    size -= piece - zw->z.avail_in;
    if (ret == Z_STREAM_ERROR) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "Could not write '%s': "
          "zlib failed to deflate its data (%s)", zw->location,
          zw->z.msg ? zw->z.msg : "stream error");
      return FALSE;
    }
    if (!append (zw, zw->out, OUT_SIZE - zw->z.avail_out, error))
      return FALSE;
    if (flush == Z_FINISH ? ret == Z_STREAM_END :
        size == 0 && zw->z.avail_out > 0)
      return TRUE;
  }
}

/**
 * _plan_zip_writer_append:
 * @zw: a #PlanZipWriter
 * @data: the array's next bytes
 * @size: their number
 * @error: return location for a #GError
 *
 * Adds @data to the member, deflated when it is. Worker thread.
 */
gboolean
_plan_zip_writer_append (PlanZipWriter * zw, const guint8 * data, gsize size,
    GError ** error)
{
  if (size == 0)
    return TRUE;
  zw->data_crc = crc32_z (zw->data_crc, data, size);
  zw->data_size += size;
  if (zw->deflating)
    return deflate_out (zw, data, size, Z_NO_FLUSH, error);
  return append (zw, data, size, error);
}

/* Appends the central directory entry of a member to @cd, with a zip64
 * extra field for what does not fit in 32 bits (from @limit on). */
static void
put_central (GByteArray * cd, const KeptEntry * e, guint64 limit)
{
  gboolean big_size = e->csize >= limit || e->usize >= limit;
  gboolean big_offset = e->offset >= limit;
  guint extra = (big_size ? 16 : 0) + (big_offset ? 8 : 0);
  guint version = MAX (e->version, extra ? VERSION_ZIP64 : VERSION_PLAIN);
  guint8 rec[CENTRAL_SIZE + 4 + 24], *x = rec + CENTRAL_SIZE;

  memset (rec, 0, sizeof (rec));
  put32 (rec, SIG_CENTRAL);
  put16 (rec + 4, (3 << 8) | (version & 0xff));
  put16 (rec + 6, version);
  put16 (rec + 8, e->flags);
  put16 (rec + 10, e->method);
  put16 (rec + 12, e->dos_time);
  put16 (rec + 14, e->dos_date);
  put32 (rec + 16, e->crc);
  put32 (rec + 20, big_size ? 0xffffffffu : e->csize);
  put32 (rec + 24, big_size ? 0xffffffffu : e->usize);
  put16 (rec + 28, e->name_len);
  put16 (rec + 30, extra ? extra + 4 : 0);
  /* A regular file, rw-r--r--, as zip tools on Unix say. */
  put32 (rec + 38, (guint32) 0100644 << 16);
  put32 (rec + 42, big_offset ? 0xffffffffu : e->offset);
  g_byte_array_append (cd, rec, CENTRAL_SIZE);
  g_byte_array_append (cd, (const guint8 *) e->raw_name, e->name_len);
  if (extra == 0)
    return;
  put16 (x, 0x0001);
  put16 (x + 2, extra);
  x += 4;
  /* In the order the format gives them: sizes, then the offset. */
  if (big_size) {
    put64 (x, e->usize);
    put64 (x + 8, e->csize);
    x += 16;
  }
  if (big_offset)
    put64 (x, e->offset);
  g_byte_array_append (cd, rec + CENTRAL_SIZE, extra + 4);
}

/**
 * _plan_zip_writer_finish:
 * @zw: a #PlanZipWriter whose data is all appended
 * @npy_header: the final .npy header, of the size given at
 *   _plan_zip_writer_new()
 * @error: return location for a #GError
 *
 * Ends the deflate stream, writes the central directory (the members
 * copied ahead, then this one) and the end record, and writes the final
 * .npy header, the sizes and the CRC-32 over those written first.
 */
gboolean
_plan_zip_writer_finish (PlanZipWriter * zw, const guint8 * npy_header,
    GError ** error)
{
  gsize name_len = strlen (zw->name);
  guint64 data_start = zw->npy_header_offset - (zw->deflating ?
      STORED_BLOCK_SIZE : 0);
  guint64 csize, usize, cd_offset, cd_size, n_entries;
  guint8 end[END64_SIZE + LOCATOR_SIZE + END_SIZE], *p = end;
  guint8 patch[16], crc_le[4];
  gsize comment_len = 0;
  const guint8 *comment = NULL;
  GByteArray *cd;
  KeptEntry self = { 0 };
  gboolean end64, ok;
  guint i;

  if (zw->deflating && !deflate_out (zw, NULL, 0, Z_FINISH, error))
    return FALSE;
  csize = zw->offset - data_start;
  usize = zw->npy_header_size + zw->data_size;
  self.raw_name = zw->name;
  self.name_len = name_len;
  self.version = VERSION_PLAIN;
  self.flags = is_ascii (zw->name) ? 0 : FLAG_UTF8;
  self.method = zw->deflating ? METHOD_DEFLATED : METHOD_STORED;
  self.dos_time = zw->dos_time;
  self.dos_date = zw->dos_date;
  self.crc = crc32_combine (crc32 (0, npy_header, zw->npy_header_size),
      zw->data_crc, (z_off_t) zw->data_size);
  self.csize = csize;
  self.usize = usize;
  self.offset = zw->base;
  cd_offset = zw->offset;

  /* The central directory, the end records after it. */
  cd = g_byte_array_new ();
  n_entries = 1;
  for (i = 0; zw->kept && i < zw->kept->entries->len; i++) {
    put_central (cd, &g_array_index (zw->kept->entries, KeptEntry, i),
        zw->zip64_limit);
    n_entries++;
  }
  put_central (cd, &self, zw->zip64_limit);
  cd_size = cd->len;
  memset (end, 0, sizeof (end));
  end64 = cd_offset >= zw->zip64_limit || cd_size >= zw->zip64_limit
      || n_entries >= 0xffff;
  if (end64) {
    guint64 end64_offset = cd_offset + cd_size;

    put32 (p, SIG_END64);
    put64 (p + 4, END64_SIZE - 12);
    put16 (p + 12, (3 << 8) | VERSION_ZIP64);
    put16 (p + 14, VERSION_ZIP64);
    put64 (p + 24, n_entries);
    put64 (p + 32, n_entries);
    put64 (p + 40, cd_size);
    put64 (p + 48, cd_offset);
    p += END64_SIZE;
    put32 (p, SIG_END64_LOCATOR);
    put64 (p + 8, end64_offset);
    put32 (p + 16, 1);
    p += LOCATOR_SIZE;
  }
  put32 (p, SIG_END);
  put16 (p + 8, MIN (n_entries, 0xffff));
  put16 (p + 10, MIN (n_entries, 0xffff));
  put32 (p + 12, end64 ? 0xffffffffu : cd_size);
  put32 (p + 16, end64 ? 0xffffffffu : cd_offset);
  /* The comment of the archive added to (at most 65535 bytes, as its end
   * record's field said), as zip tools keep it when they add a member. */
  if (zw->kept && zw->kept->comment)
    comment = g_bytes_get_data (zw->kept->comment, &comment_len);
  put16 (p + 20, comment_len);
  p += END_SIZE;
  g_byte_array_append (cd, end, p - end);
  if (comment_len > 0)
    g_byte_array_append (cd, comment, comment_len);
  ok = append (zw, cd->data, cd->len, error);
  g_byte_array_unref (cd);
  if (!ok)
    return FALSE;

  /* What was not known at the start. */
  put64 (patch, usize);
  put64 (patch + 8, csize);
  put32 (crc_le, self.crc);
  return write_at (zw, npy_header, zw->npy_header_size,
      zw->npy_header_offset, "complete the .npy header in", error)
      && write_at (zw, crc_le, 4, zw->base + 14, "complete the zip header of",
      error)
      && write_at (zw, patch, 16, zw->base + LOCAL_SIZE + name_len + 4,
      "complete the zip header of", error);
}

/**
 * _plan_zip_writer_get_size:
 * @zw: a #PlanZipWriter
 *
 * Returns: the bytes of the file written so far.
 */
guint64
_plan_zip_writer_get_size (PlanZipWriter * zw)
{
  return zw->offset;
}

/**
 * _plan_zip_writer_free:
 * @zw: (nullable): a #PlanZipWriter
 *
 * Frees @zw; its file is not closed.
 */
void
_plan_zip_writer_free (PlanZipWriter * zw)
{
  if (zw == NULL)
    return;
  if (zw->deflating)
    deflateEnd (&zw->z);
  _plan_zip_kept_free (zw->kept);
  g_free (zw->out);
  g_free (zw->name);
  g_free (zw->location);
  g_free (zw);
}
