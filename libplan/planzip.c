/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The zip container of .npz files: the central directory (with its zip64
 * extensions, which numpy writes for members of any size) and the local
 * headers in front of each member's data. Only what reading one member
 * needs; PlanFileReader reads the member's bytes itself. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plan-private.h"
#include "planerror.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_END 0x06054b50u
#define SIG_END64 0x06064b50u
#define SIG_END64_LOCATOR 0x07064b50u

#define END_SIZE 22
#define END64_SIZE 56
#define LOCATOR_SIZE 20
#define CENTRAL_SIZE 46
#define LOCAL_SIZE 30
/* The end record's comment is at most 65535 bytes. */
#define END_SEARCH (END_SIZE + 65535)
/* A directory larger than this is taken as corrupt: numpy writes about a
 * hundred bytes per array. */
#define MAX_DIRECTORY_SIZE ((guint64) 64 << 20)

/**
 * _plan_zip_has_magic:
 * @data: the first bytes of a file
 * @size: their number
 *
 * Returns: whether the file starts as a zip archive does: a member's local
 *   header, or the end record of an empty archive.
 */
gboolean
_plan_zip_has_magic (const guint8 * data, gsize size)
{
  return size >= 4 && (GST_READ_UINT32_LE (data) == SIG_LOCAL
      || GST_READ_UINT32_LE (data) == SIG_END);
}

static gboolean
read_at (gint fd, guint8 * dest, gsize size, guint64 offset, GError ** error)
{
  while (size > 0) {
    gssize n = pread (fd, dest, size, offset);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
          "%s", g_strerror (errno));
      return FALSE;
    }
    if (n == 0) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "the zip archive "
          "ends at byte %" G_GUINT64_FORMAT " inside one of its records; "
          "it is truncated", offset);
      return FALSE;
    }
    dest += n;
    offset += n;
    size -= n;
  }
  return TRUE;
}

void
_plan_zip_entry_free (PlanZipEntry * entry)
{
  g_free (entry->name);
  g_free (entry);
}

/* Finds the end record in the last bytes of the file: the last signature
 * whose comment length reaches the end of the file exactly. */
static gboolean
find_end (gint fd, guint64 file_size, guint8 end[END_SIZE],
    guint64 * end_offset, GError ** error)
{
  gsize n = MIN (file_size, END_SEARCH);
  guint8 *tail;
  gssize i;

  if (n < END_SIZE)
    goto missing;
  tail = g_malloc (n);
  if (!read_at (fd, tail, n, file_size - n, error)) {
    g_free (tail);
    return FALSE;
  }
  for (i = n - END_SIZE; i >= 0; i--) {
    if (GST_READ_UINT32_LE (tail + i) == SIG_END
        && (gsize) i + END_SIZE + GST_READ_UINT16_LE (tail + i + 20) == n) {
      memcpy (end, tail + i, END_SIZE);
      *end_offset = file_size - n + i;
      g_free (tail);
      return TRUE;
    }
  }
  g_free (tail);

missing:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "it starts as a zip "
      "archive but has no end record (the zip directory); it is truncated "
      "or not a zip archive");
  return FALSE;
}

/* The directory's place from the zip64 end record, for archives whose
 * 32-bit fields overflowed (numpy writes members larger than 4 GiB so). */
static gboolean
read_end64 (gint fd, guint64 end_offset, guint64 * n_entries,
    guint64 * dir_size, guint64 * dir_offset, GError ** error)
{
  guint8 loc[LOCATOR_SIZE], rec[END64_SIZE];
  guint64 rec_offset;

  if (end_offset < LOCATOR_SIZE
      || !read_at (fd, loc, LOCATOR_SIZE, end_offset - LOCATOR_SIZE, error)
      || GST_READ_UINT32_LE (loc) != SIG_END64_LOCATOR)
    goto bad;
  rec_offset = GST_READ_UINT64_LE (loc + 8);
  if (rec_offset > end_offset - LOCATOR_SIZE
      || end_offset - LOCATOR_SIZE - rec_offset < END64_SIZE
      || !read_at (fd, rec, END64_SIZE, rec_offset, error)
      || GST_READ_UINT32_LE (rec) != SIG_END64)
    goto bad;
  *n_entries = GST_READ_UINT64_LE (rec + 32);
  *dir_size = GST_READ_UINT64_LE (rec + 40);
  *dir_offset = GST_READ_UINT64_LE (rec + 48);
  return TRUE;

bad:
  g_clear_error (error);
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its zip directory "
      "needs a zip64 end record, and there is no valid one");
  return FALSE;
}

/* Replaces the 32-bit sizes and offset that overflowed (all ones) by the
 * 64-bit ones of the entry's zip64 extra field, in the order the format
 * gives them. */
static gboolean
apply_zip64 (PlanZipEntry * e, const guint8 * extra, gsize size,
    guint32 usize32, guint32 csize32, guint32 offset32)
{
  gsize i = 0;

  while (i + 4 <= size) {
    guint16 id = GST_READ_UINT16_LE (extra + i);
    guint16 len = GST_READ_UINT16_LE (extra + i + 2);
    const guint8 *p = extra + i + 4;
    gsize k = 0;

    if (i + 4 + len > size)
      return FALSE;
    if (id == 0x0001) {
      if (usize32 == G_MAXUINT32) {
        if (k + 8 > len)
          return FALSE;
        e->usize = GST_READ_UINT64_LE (p + k);
        k += 8;
      }
      if (csize32 == G_MAXUINT32) {
        if (k + 8 > len)
          return FALSE;
        e->csize = GST_READ_UINT64_LE (p + k);
        k += 8;
      }
      if (offset32 == G_MAXUINT32) {
        if (k + 8 > len)
          return FALSE;
        e->header_offset = GST_READ_UINT64_LE (p + k);
      }
      return TRUE;
    }
    i += 4 + len;
  }
  return usize32 != G_MAXUINT32 && csize32 != G_MAXUINT32
      && offset32 != G_MAXUINT32;
}

static GPtrArray *
parse_directory (const guint8 * dir, gsize size, guint64 n_entries,
    GError ** error)
{
  GPtrArray *entries = g_ptr_array_new_with_free_func ((GDestroyNotify)
      _plan_zip_entry_free);
  gsize pos = 0;
  guint64 i;

  for (i = 0; i < n_entries; i++) {
    const guint8 *p = dir + pos;
    guint16 name_len, extra_len, comment_len;
    PlanZipEntry *e;

    if (size - pos < CENTRAL_SIZE || GST_READ_UINT32_LE (p) != SIG_CENTRAL)
      goto bad_entry;
    name_len = GST_READ_UINT16_LE (p + 28);
    extra_len = GST_READ_UINT16_LE (p + 30);
    comment_len = GST_READ_UINT16_LE (p + 32);
    if (size - pos - CENTRAL_SIZE < (gsize) name_len + extra_len + comment_len)
      goto bad_entry;
    if (memchr (p + CENTRAL_SIZE, 0, name_len))
      goto bad_entry;
    e = g_new0 (PlanZipEntry, 1);
    e->name = g_strndup ((const gchar *) p + CENTRAL_SIZE, name_len);
    e->flags = GST_READ_UINT16_LE (p + 8);
    e->method = GST_READ_UINT16_LE (p + 10);
    e->crc = GST_READ_UINT32_LE (p + 16);
    e->csize = GST_READ_UINT32_LE (p + 20);
    e->usize = GST_READ_UINT32_LE (p + 24);
    e->header_offset = GST_READ_UINT32_LE (p + 42);
    g_ptr_array_add (entries, e);
    if (!apply_zip64 (e, p + CENTRAL_SIZE + name_len, extra_len,
            GST_READ_UINT32_LE (p + 24), GST_READ_UINT32_LE (p + 20),
            GST_READ_UINT32_LE (p + 42)))
      goto bad_entry;
    pos += CENTRAL_SIZE + name_len + extra_len + comment_len;
  }
  return entries;

bad_entry:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "entry %"
        G_GUINT64_FORMAT " of its zip directory is malformed", i + 1);
    g_ptr_array_unref (entries);
    return NULL;
  }
}

/**
 * _plan_zip_read_directory:
 * @fd: an open zip archive
 * @file_size: its size
 * @error: return location for a #GError (without the file's name)
 *
 * Returns: (transfer full): the archive's entries (#PlanZipEntry, with
 *   data_offset not yet known), in the directory's order, or %NULL with
 *   @error set when the archive is truncated, malformed or spans disks.
 */
GPtrArray *
_plan_zip_read_directory (gint fd, guint64 file_size, GError ** error)
{
  guint8 end[END_SIZE];
  guint64 end_offset, n_entries, dir_size, dir_offset;
  guint8 *dir;
  GPtrArray *entries;

  if (!find_end (fd, file_size, end, &end_offset, error))
    return NULL;
  if (GST_READ_UINT16_LE (end + 4) != 0 || GST_READ_UINT16_LE (end + 6) != 0)
    goto multi_disk;
  n_entries = GST_READ_UINT16_LE (end + 10);
  dir_size = GST_READ_UINT32_LE (end + 12);
  dir_offset = GST_READ_UINT32_LE (end + 16);
  if ((n_entries == G_MAXUINT16 || dir_size == G_MAXUINT32
          || dir_offset == G_MAXUINT32)
      && !read_end64 (fd, end_offset, &n_entries, &dir_size, &dir_offset,
          error))
    return NULL;
  if (dir_offset > end_offset || dir_size > end_offset - dir_offset
      || dir_size > MAX_DIRECTORY_SIZE
      || n_entries > dir_size / CENTRAL_SIZE)
    goto bad_directory;

  dir = g_malloc (MAX (dir_size, 1));
  if (!read_at (fd, dir, dir_size, dir_offset, error)) {
    g_free (dir);
    return NULL;
  }
  entries = parse_directory (dir, dir_size, n_entries, error);
  g_free (dir);
  return entries;

multi_disk:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "it is a zip "
        "archive split across several files (disks), which is not supported");
    return NULL;
  }
bad_directory:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its zip directory "
        "(%" G_GUINT64_FORMAT " entries, %" G_GUINT64_FORMAT " bytes at byte %"
        G_GUINT64_FORMAT ") does not fit in the file; it is corrupt",
        n_entries, dir_size, dir_offset);
    return NULL;
  }
}

/**
 * _plan_zip_locate_data:
 * @fd: an open zip archive
 * @file_size: its size
 * @entry: an entry of its directory
 * @error: return location for a #GError (without the file's name)
 *
 * Reads @entry's local header and sets its data_offset, checking that its
 * data lies inside the file.
 *
 * Returns: %TRUE on success.
 */
gboolean
_plan_zip_locate_data (gint fd, guint64 file_size, PlanZipEntry * entry,
    GError ** error)
{
  guint8 local[LOCAL_SIZE];
  guint64 start;

  if (entry->header_offset > file_size
      || file_size - entry->header_offset < LOCAL_SIZE)
    goto truncated;
  if (!read_at (fd, local, LOCAL_SIZE, entry->header_offset, error))
    return FALSE;
  if (GST_READ_UINT32_LE (local) != SIG_LOCAL)
    goto bad_header;
  start = entry->header_offset + LOCAL_SIZE +
      GST_READ_UINT16_LE (local + 26) + GST_READ_UINT16_LE (local + 28);
  if (start > file_size || entry->csize > file_size - start)
    goto truncated;
  entry->data_offset = start;
  return TRUE;

truncated:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "member '%s' of the "
        "zip archive (%" G_GUINT64_FORMAT " bytes from byte %" G_GUINT64_FORMAT
        ") does not fit in the file of %" G_GUINT64_FORMAT " bytes; it is "
        "truncated", entry->name, entry->csize, entry->header_offset,
        file_size);
    return FALSE;
  }
bad_header:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "member '%s' of the "
        "zip archive has no valid local header at byte %" G_GUINT64_FORMAT
        "; the archive is corrupt", entry->name, entry->header_offset);
    return FALSE;
  }
}
