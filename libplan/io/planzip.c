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

#include "libplan/core/plan-private.h"
#include "planzip-private.h"
#include <libplan/planerror.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* The end record's comment is at most 65535 bytes. */
#define END_SEARCH (END_SIZE + 65535)
/* A directory larger than this is taken as corrupt: numpy writes about a
 * hundred bytes per array. */
#define MAX_DIRECTORY_SIZE ((guint64) 64 << 20)

/* Little-endian fields, read byte by byte: zip records sit at any byte,
 * and GST_READ_UINT*_LE load whole words where the CPU allows unaligned
 * access, which UBSan reports as misaligned loads. */
static guint16
get16 (const guint8 * p)
{
  return p[0] | (p[1] << 8);
}

static guint32
get32 (const guint8 * p)
{
  return (guint32) p[0] | ((guint32) p[1] << 8) | ((guint32) p[2] << 16) |
      ((guint32) p[3] << 24);
}

static guint64
get64 (const guint8 * p)
{
  return get32 (p) | ((guint64) get32 (p + 4) << 32);
}

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
  return size >= 4 && (get32 (data) == SIG_LOCAL || get32 (data) == SIG_END);
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
 * whose comment length reaches the end of the file exactly; and the
 * archive's comment after it, into @comment where it is not %NULL. The
 * file starts as a zip archive does (_plan_zip_has_magic ()). */
static gboolean
find_end (gint fd, guint64 file_size, guint8 end[END_SIZE],
    guint64 * end_offset, GBytes ** comment, GError ** error)
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
    if (get32 (tail + i) == SIG_END
        && (gsize) i + END_SIZE + get16 (tail + i + 20) == n) {
      memcpy (end, tail + i, END_SIZE);
      *end_offset = file_size - n + i;
      if (comment)
        *comment = g_bytes_new (tail + i + END_SIZE, n - i - END_SIZE);
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
      || get32 (loc) != SIG_END64_LOCATOR)
    goto bad;
  rec_offset = get64 (loc + 8);
  if (rec_offset > end_offset - LOCATOR_SIZE
      || end_offset - LOCATOR_SIZE - rec_offset < END64_SIZE
      || !read_at (fd, rec, END64_SIZE, rec_offset, error)
      || get32 (rec) != SIG_END64)
    goto bad;
  *n_entries = get64 (rec + 32);
  *dir_size = get64 (rec + 40);
  *dir_offset = get64 (rec + 48);
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
    guint16 id = get16 (extra + i), len = get16 (extra + i + 2);
    const guint8 *p = extra + i + 4;
    gsize k = 0;

    if (i + 4 + len > size)
      return FALSE;
    if (id == 0x0001) {
      if (usize32 == G_MAXUINT32) {
        if (k + 8 > len)
          return FALSE;
        e->usize = get64 (p + k);
        k += 8;
      }
      if (csize32 == G_MAXUINT32) {
        if (k + 8 > len)
          return FALSE;
        e->csize = get64 (p + k);
        k += 8;
      }
      if (offset32 == G_MAXUINT32) {
        if (k + 8 > len)
          return FALSE;
        e->header_offset = get64 (p + k);
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

    if (size - pos < CENTRAL_SIZE || get32 (p) != SIG_CENTRAL)
      goto bad_entry;
    name_len = get16 (p + 28);
    extra_len = get16 (p + 30);
    comment_len = get16 (p + 32);
    if (size - pos - CENTRAL_SIZE < (gsize) name_len + extra_len + comment_len)
      goto bad_entry;
    if (memchr (p + CENTRAL_SIZE, 0, name_len))
      goto bad_entry;
    e = g_new0 (PlanZipEntry, 1);
    /* In UTF-8, as names go into messages and are matched with a
     * member property, which is UTF-8: a byte that is not becomes
     * U+FFFD. */
    e->name = g_utf8_make_valid ((const gchar *) p + CENTRAL_SIZE, name_len);
    e->flags = get16 (p + 8);
    e->method = get16 (p + 10);
    e->crc = get32 (p + 16);
    e->csize = get32 (p + 20);
    e->usize = get32 (p + 24);
    e->header_offset = get32 (p + 42);
    g_ptr_array_add (entries, e);
    if (!apply_zip64 (e, p + CENTRAL_SIZE + name_len, extra_len,
            get32 (p + 24), get32 (p + 20), get32 (p + 42)))
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
 * @comment: (out) (optional) (transfer full): the archive's comment, the
 *   bytes after its end record (empty when it has none), set only when
 *   the directory is read
 * @error: return location for a #GError (without the file's name)
 *
 * Returns: (transfer full): the archive's entries (#PlanZipEntry, with
 *   data_offset not yet known), in the directory's order, or %NULL with
 *   @error set when the file does not start as a zip archive, or the
 *   archive is truncated, malformed or spans disks.
 */
GPtrArray *
_plan_zip_read_directory (gint fd, guint64 file_size, GBytes ** comment,
    GError ** error)
{
  guint8 end[END_SIZE];
  guint64 end_offset, n_entries, dir_size, dir_offset;
  guint8 *dir;
  GPtrArray *entries;
  GBytes *text = NULL;
  guint8 magic[4];

  /* A file of another kind (a .npy, raw data, NetCDF) asked for as a .npz
   * is said to be one; only a file that starts as a zip archive and has
   * no end record is a truncated one. */
  if (file_size < sizeof (magic))
    goto not_zip;
  if (!read_at (fd, magic, sizeof (magic), 0, error))
    return NULL;
  if (!_plan_zip_has_magic (magic, sizeof (magic)))
    goto not_zip;
  if (!find_end (fd, file_size, end, &end_offset, &text, error))
    return NULL;
  if (get16 (end + 4) != 0 || get16 (end + 6) != 0)
    goto multi_disk;
  n_entries = get16 (end + 10);
  dir_size = get32 (end + 12);
  dir_offset = get32 (end + 16);
  if ((n_entries == G_MAXUINT16 || dir_size == G_MAXUINT32
          || dir_offset == G_MAXUINT32)
      && !read_end64 (fd, end_offset, &n_entries, &dir_size, &dir_offset,
          error)) {
    g_bytes_unref (text);
    return NULL;
  }
  if (dir_offset > end_offset || dir_size > end_offset - dir_offset
      || dir_size > MAX_DIRECTORY_SIZE
      || n_entries > dir_size / CENTRAL_SIZE)
    goto bad_directory;

  dir = g_malloc (MAX (dir_size, 1));
  if (!read_at (fd, dir, dir_size, dir_offset, error)) {
    g_free (dir);
    g_bytes_unref (text);
    return NULL;
  }
  entries = parse_directory (dir, dir_size, n_entries, error);
  g_free (dir);
  if (entries && comment)
    *comment = g_bytes_ref (text);
  g_bytes_unref (text);
  return entries;

not_zip:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "not a .npz file: it "
        "does not start as a zip archive");
    return NULL;
  }
multi_disk:
  {
    g_bytes_unref (text);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "it is a zip "
        "archive split across several files (disks), which is not supported");
    return NULL;
  }
bad_directory:
  {
    g_bytes_unref (text);
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
  gchar *name, *valid;
  gsize name_len;
  guint64 start;
  gboolean got, same;

  if (entry->header_offset > file_size
      || file_size - entry->header_offset < LOCAL_SIZE)
    goto truncated;
  if (!read_at (fd, local, LOCAL_SIZE, entry->header_offset, error))
    return FALSE;
  if (get32 (local) != SIG_LOCAL)
    goto bad_header;
  start = entry->header_offset + LOCAL_SIZE + get16 (local + 26) +
      get16 (local + 28);
  if (start > file_size || entry->csize > file_size - start)
    goto truncated;
  /* The local header names the member too: another name means the
   * directory points at another member's data (or at garbage), which
   * would be read as this member's. */
  name_len = get16 (local + 26);
  name = g_malloc (MAX (name_len, 1));
  got = read_at (fd, (guint8 *) name, name_len, entry->header_offset +
      LOCAL_SIZE, error);
  if (!got) {
    g_free (name);
    return FALSE;
  }
  /* Made UTF-8 as the directory's name was (parse_directory ()). */
  valid = g_utf8_make_valid (name, name_len);
  same = strcmp (valid, entry->name) == 0;
  g_free (valid);
  g_free (name);
  if (!same)
    goto other_name;
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
other_name:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "member '%s' of the "
        "zip archive has a local header at byte %" G_GUINT64_FORMAT " that "
        "names another member; the archive is corrupt", entry->name,
        entry->header_offset);
    return FALSE;
  }
}
