/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Where a PlanFileWriter's output is written, and how it is put in place:
 * the unnamed (O_TMPFILE) or hidden temporary file beside the target, the
 * copy of an HDF5 file a dataset is added to, the temporary directory of a
 * Zarr store or array, and at finish the completed .npy header, the link
 * or rename into place and the exchange with a store that is there. The
 * object, its worker thread and its calls are in planfilewriter.c. */

/* O_TMPFILE, renameat2 () */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/core/plan-private.h"
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

#define GST_CAT_DEFAULT plan_file_writer_debug

/* The longest file name; 255 bytes on Linux's file systems. */
static glong
name_max (const gchar * dir)
{
  glong n = pathconf (dir, _PC_NAME_MAX);

  return n > 0 ? n : 255;
}

/* Opens an unnamed file in @dir (O_TMPFILE), to be linked into place
 * through /proc/self/fd at the end; -1 where the file system (or the
 * kernel) cannot, or /proc is not there to link it through. */
static gint
open_unnamed (PlanFileWriter * self, const gchar * dir)
{
#ifdef O_TMPFILE
  gchar *proc;
  gint fd;

  /* 0666 so that the umask decides the mode, as for any new file. */
  fd = open (dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0) {
    GST_INFO_OBJECT (self, "no unnamed file in '%s' (%s): writing a "
        "temporary file", dir, g_strerror (errno));
    return -1;
  }
  proc = g_strdup_printf ("/proc/self/fd/%d", fd);
  if (access (proc, F_OK) < 0) {
    GST_INFO_OBJECT (self, "no %s to link an unnamed file through: "
        "writing a temporary file", proc);
    close (fd);
    fd = -1;
  }
  g_free (proc);
  return fd;
#else
  return -1;
#endif
}

/* ".NAME.XXXXXX.part" in @dir, NAME cut (on a character boundary) so that
 * the whole fits in a file name. */
static gchar *
temp_name_for (const gchar * dir, const gchar * base)
{
  glong room = name_max (dir) - (glong) strlen (".XXXXXX.part") - 1;
  gchar *cut = g_strdup (base), *name, *path;

  if ((glong) strlen (cut) > room) {
    gchar *end = cut + MAX (room, 0);

    if (g_utf8_validate (cut, -1, NULL) && end > cut)
      end = g_utf8_find_prev_char (cut, end + 1);
    *(end ? end : cut) = '\0';
  }
  name = g_strdup_printf (".%s.XXXXXX.part", cut);
  path = g_build_filename (dir, name, NULL);
  g_free (name);
  g_free (cut);
  return path;
}

/* In the add mode, remembers the file at the location as its contents are
 * copied into the new one (@st; NULL when there is none):
 * _plan_file_writer_close_and_rename() puts the new file in place only if
 * the location still holds it, unchanged. */
void
_plan_file_writer_note_add_source (PlanFileWriter * self,
    const struct stat *st)
{
  self->add_source_set = TRUE;
  self->add_source_there = st != NULL;
  if (st)
    self->add_source = *st;
}

/* In the add mode, FALSE with an error when the file the new one copied
 * is no longer at the location as it was: another program (another run
 * adding to it) changed, replaced, removed or created it meanwhile, and
 * the new file, renamed over it, would undo that silently. */
static gboolean
check_add_source (PlanFileWriter * self, GError ** error)
{
  const struct stat *was = &self->add_source;
  struct stat st;
  gboolean there;

  if (!self->add_source_set)
    return TRUE;
  there = stat (self->location, &st) == 0;
  if (there == self->add_source_there && (!there
          || (st.st_dev == was->st_dev && st.st_ino == was->st_ino
              && st.st_size == was->st_size
              && st.st_mtim.tv_sec == was->st_mtim.tv_sec
              && st.st_mtim.tv_nsec == was->st_mtim.tv_nsec
              && st.st_ctim.tv_sec == was->st_ctim.tv_sec
              && st.st_ctim.tv_nsec == was->st_ctim.tv_nsec)))
    return TRUE;
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
      "Could not add to '%s': %s while the %s was written, and the new "
      "file, made from what was there before, would undo that: it is not "
      "put in place (run again to add the %s)", self->location,
      !self->add_source_there ? "another program created a file there" :
      !there ? "another program removed it" :
      st.st_ino != was->st_ino || st.st_dev != was->st_dev ?
      "another program replaced it (another run adding to it?)" :
      "another program changed it (another run adding to it?)",
      self->format == PLAN_FILE_FORMAT_NPZ ? "member" : "dataset",
      self->format == PLAN_FILE_FORMAT_NPZ ? "member" : "dataset");
  return FALSE;
}

/* Copies the regular file at the location into the new file @fd, which
 * gets its mode: a reflink (FICLONE) where the file system shares blocks,
 * else copy_file_range() (in the kernel), else read() and write().
 * Nothing there is nothing to copy. */
static gboolean
copy_existing (PlanFileWriter * self, gint fd, GError ** error)
{
  gint src = open (self->location, O_RDONLY | O_CLOEXEC);
  struct stat st;
  guint8 *buf = NULL;
  gint err = 0;

  if (src < 0 && errno == ENOENT) {
    _plan_file_writer_note_add_source (self, NULL);
    return TRUE;
  }
  if (src < 0 || fstat (src, &st) < 0) {
    err = errno;
    goto failed;
  }
  _plan_file_writer_note_add_source (self, &st);
#ifdef FICLONE
  if (ioctl (fd, FICLONE, src) == 0)
    goto copied;
#endif
  for (;;) {
    gssize n = copy_file_range (src, NULL, fd, NULL, (gsize) 1 << 30, 0);

    if (n == 0)
      goto copied;
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL
            || errno == EOPNOTSUPP) && lseek (fd, 0, SEEK_CUR) == 0)
      break;
    if (n < 0) {
      err = errno;
      goto failed;
    }
  }
  buf = g_malloc (1 << 20);
  for (;;) {
    gssize n = read (src, buf, 1 << 20);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      err = errno;
      goto failed;
    }
    if (n == 0)
      break;
    if (!_plan_file_writer_write_full (fd, buf, n, self->location, error))
      goto failed;
  }
copied:
  if (fchmod (fd, st.st_mode & 07777) < 0) {
    err = errno;
    goto failed;
  }
  g_free (buf);
  close (src);
  self->h5_add = TRUE;
  return TRUE;

failed:
  if (err != 0)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
        "Could not add to '%s': cannot copy it to add the dataset to: %s",
        self->location, g_strerror (err));
  g_free (buf);
  if (src >= 0)
    close (src);
  return FALSE;
}

/* Why no file could be created in @dir when that failed with ENOENT or
 * ENOTDIR (@err): the directory is missing, a part of its path is a file,
 * or the directory is there but its file system makes no file in it (a
 * directory of /proc says ENOENT). */
static void
set_no_directory_error (PlanFileWriter * self, const gchar * dir, gint err,
    GError ** error)
{
  gchar *part = g_strdup (dir);
  struct stat st;

  /* The deepest part of the path that is there. */
  while (stat (part, &st) < 0 && strcmp (part, ".") != 0
      && strcmp (part, "/") != 0) {
    gchar *up = g_path_get_dirname (part);

    g_free (part);
    part = up;
  }
  if (stat (part, &st) == 0 && !S_ISDIR (st.st_mode))
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR,
        "Could not write '%s': '%s' is a file, not a directory",
        self->location, part);
  else if (strcmp (part, dir) == 0)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
        "Could not write '%s': cannot create a file in '%s': its file "
        "system makes no new files there (%s)", self->location, dir,
        g_strerror (err));
  else
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
        "Could not write '%s': the directory '%s' does not exist",
        self->location, dir);
  g_free (part);
}

static gboolean
create_temp (PlanFileWriter * self, GError ** error)
{
  gchar *dir = g_path_get_dirname (self->location);
  gchar *base = g_path_get_basename (self->location);

  /* libhdf5 opens the file by its name. */
  self->fd = self->format == PLAN_FILE_FORMAT_HDF5 ? -1 :
      open_unnamed (self, dir);
  if (self->fd >= 0) {
    self->unnamed = TRUE;
    g_free (base);
    g_free (dir);
    return TRUE;
  }

  self->tmp_path = temp_name_for (dir, base);
  g_free (base);

  /* 0666 so that the umask decides the mode, as for any new file. */
  self->fd = g_mkstemp_full (self->tmp_path, O_WRONLY | O_CLOEXEC, 0666);
  if (self->fd < 0) {
    gint err = errno;

    if (err == ENOENT || err == ENOTDIR)
      set_no_directory_error (self, dir, err, error);
    else
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
          "Could not write '%s': cannot create a file in '%s': %s",
          self->location, dir, g_strerror (err));
    g_clear_pointer (&self->tmp_path, g_free);
    g_free (dir);
    return FALSE;
  }
  g_free (dir);
  if (self->format == PLAN_FILE_FORMAT_HDF5 && self->mode ==
      PLAN_FILE_MODE_ADD)
    return copy_existing (self, self->fd, error);
  return TRUE;
}

/* Whether the file at the location, if any, may be replaced: one this
 * user could not open for writing is refused (unless told otherwise),
 * although renaming over it needs only the directory's permission. */
static gboolean
check_replaceable (PlanFileWriter * self, GError ** error)
{
  gint err;

  if (self->replace_read_only
      || faccessat (AT_FDCWD, self->location, W_OK, AT_EACCESS) == 0)
    return TRUE;
  err = errno;
  if (err != EACCES && err != EPERM)
    return TRUE;                /* not there, or what opening it will say */
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
      "Could not write '%s': %s: the file there is read-only for this user, "
      "and it is left as it is", self->location, g_strerror (err));
  return FALSE;
}

gboolean
_plan_file_writer_open_target (PlanFileWriter * self, GError ** error)
{
  struct stat st;

  if (stat (self->location, &st) == 0 && S_ISDIR (st.st_mode)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
        "Could not write '%s': it is a directory", self->location);
    return FALSE;
  }
  if (stat (self->location, &st) == 0 && S_ISFIFO (st.st_mode)) {
    /* Opened by the worker once it has a reader; what would stop that
     * open is said now. */
    if (faccessat (AT_FDCWD, self->location, W_OK, AT_EACCESS) < 0) {
      _plan_file_writer_set_errno_error (error, errno, "open for writing",
          self->location);
      return FALSE;
    }
    self->stream = TRUE;
    return TRUE;
  }
  if (stat (self->location, &st) == 0 && !S_ISREG (st.st_mode)) {
    /* A device: nothing to rename, write it directly. */
    self->fd = open (self->location, O_WRONLY | O_CLOEXEC);
    if (self->fd < 0) {
      _plan_file_writer_set_errno_error (error, errno, "open for writing",
          self->location);
      return FALSE;
    }
    return TRUE;
  }
  if (!check_replaceable (self, error))
    return FALSE;
  return create_temp (self, error);
}

/* Whether a stream that ended after @rows rows makes an array: its dtype
 * and shape came, and a 0-d array got exactly one value. */
static gboolean
check_stream_ended (PlanFileWriter * self, guint64 rows, GError ** error)
{
  if (!self->have_info) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "Could not write '%s': the stream ended before its dtype and shape "
        "were known", self->location);
    return FALSE;
  }
  if (self->info.ndim == 0 && rows != 1) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "Could not write '%s': a 0-d array needs exactly one value, the "
        "stream had %" G_GUINT64_FORMAT, self->location, rows);
    return FALSE;
  }
  return TRUE;
}

/* fsync() of the directory @dir: FALSE with errno set. A file system that
 * cannot flush a directory (EINVAL) has nothing to flush. */
static gboolean
fsync_dir (const gchar * dir)
{
  gint fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  gint err = 0;

  if (fd < 0)
    return FALSE;
  if (fsync (fd) < 0 && errno != EINVAL)
    err = errno;
  close (fd);
  errno = err;
  return err == 0;
}

/* With fsync set: flushes to disk the directory in which the output was
 * put in place. A rename or a link is data of the directory, which
 * fsync() of the file does not write: without this the file flushed could
 * still be missing, or the old one back, after a crash of the machine.
 * The file is in place when this fails, which the error says. */
static gboolean
sync_location_dir (PlanFileWriter * self, const gchar * path, GError ** error)
{
  gchar *dir;
  gint err;

  if (!self->sync)
    return TRUE;
  dir = g_path_get_dirname (path);
  if (fsync_dir (dir)) {
    g_free (dir);
    return TRUE;
  }
  err = errno;
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
      "Could not flush the directory '%s' to disk once '%s' was put in "
      "place: %s; the new file is there, but it may not survive a crash of "
      "the machine", dir, self->location, g_strerror (err));
  g_free (dir);
  return FALSE;
}

#if HAVE_ZARR
/* Removes the directory tree @path (our temporary one), not following
 * symbolic links: @path itself may be one (a link to a store that was at
 * the location, exchanged with the new store), which is removed, not the
 * store it points to. */
static void
remove_tree (const gchar * path)
{
  GDir *d;
  const gchar *name;
  struct stat st;

  if (lstat (path, &st) == 0 && !S_ISDIR (st.st_mode)) {
    g_unlink (path);
    return;
  }
  d = g_dir_open (path, 0, NULL);

  while (d && (name = g_dir_read_name (d))) {
    gchar *sub = g_build_filename (path, name, NULL);

    if (lstat (sub, &st) == 0 && S_ISDIR (st.st_mode))
      remove_tree (sub);
    else
      g_unlink (sub);
    g_free (sub);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (path);
}

/* Removes our temporary directory @path. It is first renamed to a name
 * only this process knows: the other ranks of an MPI job write chunks into
 * it by its name, and one of them may still be writing after a failure
 * elsewhere ended the job; once renamed, such a write fails instead of
 * adding a file while the tree is being removed (which would leave it
 * behind). */
void
_plan_file_writer_remove_tree (const gchar * path)
{
  gchar *gone = g_strconcat (path, ".gone", NULL);

  if (g_rename (path, gone) == 0)
    remove_tree (gone);
  else
    remove_tree (path);
  g_free (gone);
}

static gboolean
write_group (PlanFileWriter * self, const gchar * dir, GError ** error)
{
  if (_plan_zarr_write_group (dir, self->zarr_format, error))
    return TRUE;
  g_prefix_error (error, "Could not write '%s': ", self->location);
  return FALSE;
}

/* Makes the groups of @rel's path under @root that are missing (a
 * directory with a .zgroup or a zarr.json each), checking that none on
 * the way is an array; @rel's last part is not made. */
static gboolean
make_groups (PlanFileWriter * self, const gchar * root, const gchar * rel,
    GError ** error)
{
  gchar **parts = g_strsplit (rel, "/", -1);
  gchar *dir = g_strdup (root);
  gboolean ok = TRUE;
  guint i;

  for (i = 0; ok && parts[i] && parts[i + 1]; i++) {
    gchar *sub;
    gint node;

    if (parts[i][0] == '\0')
      continue;
    sub = g_build_filename (dir, parts[i], NULL);
    g_free (dir);
    dir = sub;
    node = _plan_zarr_node_type (dir);
    if (node > 0) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "Could "
          "not write '%s': '%s' in it is a Zarr array, not a group, so '%s' "
          "cannot be made in it", self->location, dir + strlen (root), rel);
      ok = FALSE;
    } else if (g_mkdir (dir, 0777) < 0 && errno != EEXIST) {
      _plan_file_writer_set_errno_error (error, errno, "make the group", dir);
      ok = FALSE;
    } else if (node == 0) {
      ok = write_group (self, dir, error);
    }
  }
  g_free (dir);
  g_strfreev (parts);
  return ok;
}

/* A new temporary directory beside @path. */
static gchar *
make_temp_dir (PlanFileWriter * self, const gchar * path, GError ** error)
{
  gchar *dir = g_path_get_dirname (path);
  gchar *base = g_path_get_basename (path);
  gchar *tmp = temp_name_for (dir, base);

  g_free (base);
  if (g_mkdtemp_full (tmp, 0777) == NULL) {
    gint err = errno;

    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
        "Could not write '%s': cannot create a directory in '%s': %s",
        self->location, dir, g_strerror (err));
    g_clear_pointer (&tmp, g_free);
  }
  g_free (dir);
  return tmp;
}

/* The Zarr store's temporary directory and where it goes: the whole store
 * (replace, or add without a store there), or the array added to the
 * group at the location. */
/* Whether @rel, the array's path in the store, stays inside it and names
 * no metadata file: zarr-python refuses '.' and '..' parts too. */
static gboolean
check_zarr_path (PlanFileWriter * self, const gchar * rel, GError ** error)
{
  static const gchar *const metadata[] = { ".zarray", ".zgroup", ".zattrs",
    ".zmetadata", "zarr.json", NULL
  };
  gchar **parts = g_strsplit (rel, "/", -1);
  const gchar *bad = NULL;
  gboolean meta = FALSE;
  guint i;

  for (i = 0; parts[i] && bad == NULL; i++) {
    if (g_str_equal (parts[i], ".") || g_str_equal (parts[i], ".."))
      bad = parts[i];
    else if (g_strv_contains (metadata, parts[i]))
      bad = parts[i], meta = TRUE;
  }
  if (bad != NULL)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "Could not "
        "write '%s': the dataset '%s' has a part '%s', %s; name the array "
        "by a path of names inside the store, such as obs/temps",
        self->location, self->dataset, bad, meta ? "the name of a Zarr "
        "metadata file" : "which is no name in a Zarr store ('..' would "
        "reach outside it; zarr-python refuses '.' and '..' too)");
  g_strfreev (parts);
  return bad == NULL;
}

gboolean
_plan_file_writer_open_zarr_target (PlanFileWriter * self, GError ** error)
{
  const gchar *rel = self->dataset ? self->dataset + strspn (self->dataset,
      "/") : "";
  struct stat st;
  gboolean exists = stat (self->location, &st) == 0;
  gint node = exists ? _plan_zarr_node_type (self->location) : 0;

  if (!check_zarr_path (self, rel, error))
    return FALSE;
  if (exists && !S_ISDIR (st.st_mode))
    goto not_dir;
  if (exists && !check_replaceable (self, error))
    return FALSE;

  if (self->mode == PLAN_FILE_MODE_ADD && exists) {
    if (node >= 0)
      goto not_group;
    if (rel[0] == '\0')
      goto no_name;
    /* The array is of its group's version. */
    self->zarr_format = -node;
    if (!make_groups (self, self->location, rel, error))
      return FALSE;
    self->zarr_target = g_build_filename (self->location, rel, NULL);
    if (g_file_test (self->zarr_target, G_FILE_TEST_EXISTS)
        && _plan_zarr_node_type (self->zarr_target) <= 0)
      goto not_array;
    self->tmp_dir = make_temp_dir (self, self->zarr_target, error);
    self->zarr_array_dir = g_strdup (self->tmp_dir);
    return self->tmp_dir != NULL;
  }

  if (exists && node == 0)
    goto not_store;
  self->zarr_target = g_strdup (self->location);
  self->tmp_dir = make_temp_dir (self, self->location, error);
  if (self->tmp_dir == NULL)
    return FALSE;
  self->zarr_array_dir = g_build_filename (self->tmp_dir, rel, NULL);
  if (rel[0] == '\0')
    return TRUE;
  if (!write_group (self, self->tmp_dir, error)
      || !make_groups (self, self->tmp_dir, rel, error))
    return FALSE;
  if (g_mkdir (self->zarr_array_dir, 0777) < 0) {
    _plan_file_writer_set_errno_error (error, errno, "make the array",
        self->zarr_array_dir);
    return FALSE;
  }
  return TRUE;

not_dir:
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR, "Could not write "
      "'%s': it is a file, not a Zarr store (a directory); it is left as it "
      "is", self->location);
  return FALSE;
not_group:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "Could not "
      "add to '%s': it is %s, not a Zarr group (a directory with a .zgroup, "
      "or a zarr.json of a group), so no array is added to it; it is left as "
      "it is", self->location, node > 0 ? "a Zarr array" :
      "a directory that is not a Zarr store");
  return FALSE;
no_name:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "Could not "
      "add to '%s': name the array to add to the group as the dataset",
      self->location);
  return FALSE;
not_array:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "Could not "
      "add to '%s': '/%s' in it is not a Zarr array (a group?), so it is not "
      "replaced", self->location, rel);
  return FALSE;
not_store:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "Could not "
      "write '%s': it is a directory that is not a Zarr store (no .zarray, "
      ".zgroup or zarr.json in it), so it is not replaced; it is left as it "
      "is", self->location);
  return FALSE;
}

/* fsync() of @path and of every directory under it (the entries of a Zarr
 * store's chunk files and groups): FALSE with errno set. */
static gboolean
fsync_tree (const gchar * path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  const gchar *name;
  gboolean ok = TRUE;
  struct stat st;

  while (ok && d && (name = g_dir_read_name (d))) {
    gchar *sub = g_build_filename (path, name, NULL);

    if (lstat (sub, &st) == 0 && S_ISDIR (st.st_mode))
      ok = fsync_tree (sub);
    g_free (sub);
  }
  if (d)
    g_dir_close (d);
  return ok && fsync_dir (path);
}

/* Renames the finished directory to its target, exchanging it with one
 * that is there (removed afterwards). */
static gboolean
put_dir_in_place (PlanFileWriter * self, GError ** error)
{
  gchar *old = NULL;
  gint err = 0;

  if (!g_file_test (self->zarr_target, G_FILE_TEST_EXISTS)) {
    if (g_rename (self->tmp_dir, self->zarr_target) < 0)
      err = errno;
    goto done;
  }
#ifdef RENAME_EXCHANGE
  if (renameat2 (AT_FDCWD, self->tmp_dir, AT_FDCWD, self->zarr_target,
          RENAME_EXCHANGE) == 0) {
    _plan_file_writer_remove_tree (self->tmp_dir);
    goto done;
  }
  if (errno != EINVAL && errno != ENOSYS) {
    err = errno;
    goto done;
  }
#endif
  /* No exchange on this file system: the old one moved aside first. */
  old = g_strconcat (self->tmp_dir, ".old", NULL);
  if (g_rename (self->zarr_target, old) < 0) {
    err = errno;
    goto done;
  }
  if (g_rename (self->tmp_dir, self->zarr_target) < 0) {
    err = errno;
    g_rename (old, self->zarr_target);
    goto done;
  }
  _plan_file_writer_remove_tree (old);

done:
  if (err != 0)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
        "Could not put the finished Zarr array in place at '%s': %s",
        self->zarr_target, g_strerror (err));
  else
    g_clear_pointer (&self->tmp_dir, g_free);
  g_free (old);
  return err == 0;
}

/* Writes the last chunk and the .zarray, and puts the store in place. */
gboolean
_plan_file_writer_finish_zarr (PlanFileWriter * self, guint64 bytes,
    GError ** error)
{
  guint64 rows = self->row_size ? bytes / self->row_size : 0;
  PlanZarrWriter *zarr = self->zarr;
  GPtrArray *consolidated;
  const gchar *rel;

  self->zarr = NULL;
  if (!check_stream_ended (self, rows, error)) {
    _plan_zarr_writer_close (zarr, NULL);
    return FALSE;
  }
  if (!_plan_zarr_writer_close (zarr, error)) {
    g_prefix_error (error, "Could not write '%s': ", self->location);
    return FALSE;
  }
  /* The chunk files were flushed as they were written; their names are
   * data of the store's directories. */
  if (self->sync && !fsync_tree (self->tmp_dir)) {
    _plan_file_writer_set_errno_error (error, errno, "flush to disk",
        self->location);
    return FALSE;
  }
  /* An array added to a group: the consolidated metadata of the groups
   * above it, where they have one, is brought up to date with it, once it
   * is in place. */
  if (self->mode != PLAN_FILE_MODE_ADD || self->dataset == NULL
      || g_strcmp0 (self->zarr_target, self->location) == 0)
    return put_dir_in_place (self, error)
        && sync_location_dir (self, self->zarr_target, error);
  rel = self->dataset + strspn (self->dataset, "/");
  consolidated = _plan_zarr_prepare_consolidated (self->location, rel,
      self->tmp_dir, error);
  if (consolidated == NULL) {
    g_prefix_error (error, "Could not add to '%s': ", self->location);
    return FALSE;
  }
  if (!put_dir_in_place (self, error)) {
    _plan_zarr_discard_consolidated (consolidated);
    return FALSE;
  }
  if (!_plan_zarr_commit_consolidated (consolidated, error)) {
    g_prefix_error (error, "Could not add to '%s': the array '%s' is in "
        "place, but ", self->location, rel);
    return FALSE;
  }
  return sync_location_dir (self, self->zarr_target, error);
}
#endif

gboolean
_plan_file_writer_complete_npy_header (PlanFileWriter * self, guint64 bytes,
    GError ** error)
{
  PlanArrayInfo info = self->info;
  guint8 *header;
  guint64 rows = self->row_size ? bytes / self->row_size : 0;
  gboolean ok = TRUE;

  if (!check_stream_ended (self, rows, error))
    return FALSE;
  if (self->stream) {
    if ((gint64) rows == self->header_rows)
      return TRUE;
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
        "Could not write '%s': the .npy header sent to the FIFO said %"
        G_GINT64_FORMAT " rows, but %" G_GUINT64_FORMAT " came",
        self->location, self->header_rows, rows);
    return FALSE;
  }
  if (info.ndim > 0)
    info.shape[0] = rows;

  header = g_malloc (self->header_size);
  if (!plan_npy_write_header (&info, header, self->header_size, error))
    ok = FALSE;
  while (ok && pwrite (self->fd, header, self->header_size, 0) < 0) {
    if (errno != EINTR) {
      _plan_file_writer_set_errno_error (error, errno,
          "complete the .npy header of", self->location);
      ok = FALSE;
    }
  }
  g_free (header);
  return ok;
}

/* Completes the .npz: the deflate stream ended, the central directory
 * written, and the .npy header, sizes and CRC-32 written over. */
gboolean
_plan_file_writer_finish_npz (PlanFileWriter * self, guint64 bytes,
    GError ** error)
{
  PlanArrayInfo info = self->info;
  guint64 rows = self->row_size ? bytes / self->row_size : 0;
  guint8 *header;
  gboolean ok;

  if (!check_stream_ended (self, rows, error))
    return FALSE;
  if (info.ndim > 0)
    info.shape[0] = rows;
  header = g_malloc (self->header_size);
  ok = plan_npy_write_header (&info, header, self->header_size, error)
      && _plan_zip_writer_finish (self->zip, header, error);
  g_free (header);
  return ok;
}

#if HAVE_HDF5
/* Closes the HDF5 file, which writes what libhdf5 holds of it. */
gboolean
_plan_file_writer_finish_h5 (PlanFileWriter * self, guint64 bytes,
    GError ** error)
{
  guint64 rows = self->row_size ? bytes / self->row_size : 0;
  PlanH5Writer *h5 = self->h5;
  struct stat st;

  self->h5 = NULL;
  if (!check_stream_ended (self, rows, error)) {
    _plan_h5_writer_close (h5, NULL);
    return FALSE;
  }
  if (!_plan_h5_writer_close (h5, error)) {
    g_prefix_error (error, "Could not write '%s': ", self->location);
    return FALSE;
  }
  /* Gives back the blocks the writer reserved past the file's end. */
  if (fstat (self->fd, &st) < 0 || ftruncate (self->fd, st.st_size) < 0) {
    _plan_file_writer_set_errno_error (error, errno, "write to",
        self->location);
    return FALSE;
  }
  return TRUE;
}
#endif

/* Links the unnamed file @fd to the location: directly when nothing is
 * there, else to a short hidden name beside it, renamed over it, so that
 * a file that was there is replaced whole. */
static gboolean
link_into_place (PlanFileWriter * self, gint fd, GError ** error)
{
  gchar *proc = g_strdup_printf ("/proc/self/fd/%d", fd);
  gchar *dir, *tmp = NULL;
  gint err = 0, tries;

  if (linkat (AT_FDCWD, proc, AT_FDCWD, self->location,
          AT_SYMLINK_FOLLOW) == 0)
    goto done;
  if (errno != EEXIST) {
    err = errno;
    goto done;
  }
  dir = g_path_get_dirname (self->location);
  for (tries = 0; tries < 100; tries++) {
    gchar name[32];

    g_snprintf (name, sizeof (name), ".plan-%08x.part", g_random_int ());
    g_free (tmp);
    tmp = g_build_filename (dir, name, NULL);
    if (linkat (AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
      break;
    err = errno;
    if (err != EEXIST)
      break;
  }
  g_free (dir);
  if (tries == 100 || (err != 0 && err != EEXIST)) {
    g_clear_pointer (&tmp, g_free);
    goto done;
  }
  err = 0;
  if (g_rename (tmp, self->location) < 0) {
    err = errno;
    g_unlink (tmp);
  }

done:
  if (err != 0)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
        "Could not put the finished file in place at '%s': %s",
        self->location, g_strerror (err));
  g_free (tmp);
  g_free (proc);
  return err == 0;
}

/* A file that replaces another takes its permissions, as np.save(),
 * cp and GStreamer's filesink, which write into the file that is there,
 * leave them: a file of mode 0600 stays private to its owner rather than
 * becoming 0644 (the new file's 0666 minus the umask). The set-user-ID,
 * set-group-ID and sticky bits are not taken. An array added to a file
 * (file-mode=add) has taken them as the copy was made. */
static gboolean
keep_mode (PlanFileWriter * self, gint fd, GError ** error)
{
  struct stat st;

  if (self->mode == PLAN_FILE_MODE_ADD || lstat (self->location, &st) < 0
      || !S_ISREG (st.st_mode) || fchmod (fd, st.st_mode & 0777) == 0)
    return TRUE;
  _plan_file_writer_set_errno_error (error, errno, "give the permissions of "
      "the file it replaces to", self->location);
  return FALSE;
}

/* Closes the file and puts it in place; the temporary file is gone
 * afterwards whether this succeeds or not. */
gboolean
_plan_file_writer_close_and_rename (PlanFileWriter * self, guint64 bytes,
    GError ** error)
{
  gint fd = self->fd;
  /* A FIFO or a device written in place gets no new directory entry. */
  gboolean placed = self->unnamed || self->tmp_path != NULL;

  self->fd = -1;
  /* Gives back the blocks reserved past the end of the data. */
  if (self->prealloc_end > 0 && ftruncate (fd, self->header_size + bytes) < 0) {
    _plan_file_writer_set_errno_error (error, errno, "write to",
        self->location);
    close (fd);
    return FALSE;
  }
  if (self->sync && fsync (fd) < 0 && errno != EINVAL) {
    _plan_file_writer_set_errno_error (error, errno, "flush to disk",
        self->location);
    close (fd);
    return FALSE;
  }
  /* A file made read-only at the location while this one was written. */
  if ((self->unnamed || self->tmp_path) && !check_replaceable (self, error)) {
    close (fd);
    return FALSE;
  }
  if ((self->unnamed || self->tmp_path) && !keep_mode (self, fd, error)) {
    close (fd);
    return FALSE;
  }
  if (!check_add_source (self, error)) {
    close (fd);
    return FALSE;
  }
  if (self->unnamed && !link_into_place (self, fd, error)) {
    close (fd);
    return FALSE;
  }
  if (close (fd) < 0) {
    _plan_file_writer_set_errno_error (error, errno, "write to",
        self->location);
    return FALSE;
  }
  if (self->tmp_path && g_rename (self->tmp_path, self->location) < 0) {
    gint err = errno;

    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
        "Could not move the finished file '%s' to '%s': %s",
        self->tmp_path, self->location, g_strerror (err));
    return FALSE;
  }
  g_clear_pointer (&self->tmp_path, g_free);
  return !placed || sync_location_dir (self, self->location, error);
}
