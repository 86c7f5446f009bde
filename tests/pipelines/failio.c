/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* An LD_PRELOAD module for test_io_errors.py: it makes system calls on the
 * files whose path contains $PLAN_FAIL_MATCH fail the way a sick disk or a
 * full one makes them fail, which no file system at hand does on demand.
 *
 *   PLAN_FAIL_MATCH=s          only files whose path contains s (or one
 *                                of s's '|'-separated parts; an unnamed
 *                                O_TMPFILE file's path ends "(deleted)";
 *                                a part ending in '$' must end the path,
 *                                to name a directory and not its files)
 *   PLAN_FAIL_WRITE=errno      write() and copy_file_range() fail once
 *   PLAN_FAIL_AFTER=n            PLAN_FAIL_AFTER bytes have been written
 *                                to such files (0)
 *   PLAN_FAIL_WRITE_OVER=n     write() or copy_file_range() of more than
 *                                n bytes to such files fails with EFBIG
 *                                (to check the pieces a writer writes in)
 *   PLAN_FAIL_COPY_RANGE=errno copy_file_range() into such files fails
 *   PLAN_FAIL_PWRITE=errno     pwrite() fails (planfilewriter completes
 *                                the .npy header with it at EOS)
 *   PLAN_FAIL_FALLOCATE=errno  fallocate() fails
 *   PLAN_FAIL_PREAD=errno      pread() fails (planfilesrc io-mode=read)
 *   PLAN_FAIL_FSYNC=errno      fsync() and fdatasync() fail (planfilesink
 *                                fsync=true: the file, and the directory
 *                                it is put in place in)
 *   PLAN_FAIL_TMPFILE=errno    open() of an unnamed file (O_TMPFILE) fails,
 *                                as on a file system without them
 *   PLAN_FAIL_DISK=n           such files are on a disk of n bytes: a
 *                                pwrite() or fallocate() that reaches past
 *                                byte n fails with ENOSPC
 *
 * Only calls made through the PLT are seen: ours, not glibc's own. */

/* Both pwrite() and pwrite64() (and so on) are defined below; the build's
 * _FILE_OFFSET_BITS=64 would make the headers rename one to the other. */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#define _LARGEFILE64_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int
env_int (const char *name, int fallback)
{
  const char *v = getenv (name);

  return v && *v ? atoi (v) : fallback;
}

static int
matches (int fd)
{
  const char *match = getenv ("PLAN_FAIL_MATCH");
  char link[64], path[4096];
  ssize_t n;

  if (match == NULL || *match == '\0')
    return 0;
  snprintf (link, sizeof (link), "/proc/self/fd/%d", fd);
  n = readlink (link, path, sizeof (path) - 1);
  if (n < 0)
    return 0;
  path[n] = '\0';
  for (;;) {
    const char *bar = strchr (match, '|');
    size_t len = bar ? (size_t) (bar - match) : strlen (match);

    if (len > 1 && match[len - 1] == '$') {
      if ((size_t) n >= len - 1
          && memcmp (path + n - (len - 1), match, len - 1) == 0)
        return 1;
    } else if (len > 0 && memmem (path, n, match, len) != NULL) {
      return 1;
    }
    if (bar == NULL)
      return 0;
    match = bar + 1;
  }
}

/* The errno a call named by @var should fail with on @fd, or 0. */
static int
failure (const char *var, int fd)
{
  int err = env_int (var, 0);

  return err != 0 && matches (fd) ? err : 0;
}

static void *
next (const char *symbol)
{
  return dlsym (RTLD_NEXT, symbol);
}

static long long written;       /* bytes written to matching files */

/* For a call that writes @count bytes to @fd: FALSE with errno set when it
 * is to fail ($PLAN_FAIL_WRITE once $PLAN_FAIL_AFTER bytes are written),
 * else TRUE with @count cut to what may be written before that. */
static int
may_write (int fd, size_t * count)
{
  int err = failure ("PLAN_FAIL_WRITE", fd);

  if (env_int ("PLAN_FAIL_WRITE_OVER", 0) > 0
      && *count > (size_t) env_int ("PLAN_FAIL_WRITE_OVER", 0)
      && matches (fd)) {
    errno = EFBIG;
    return 0;
  }
  if (err) {
    long long after = atoll (getenv ("PLAN_FAIL_AFTER") ?
        getenv ("PLAN_FAIL_AFTER") : "0");
    long long done = __atomic_load_n (&written, __ATOMIC_SEQ_CST);

    if (done >= after) {
      errno = err;
      return 0;
    }
    /* A short write up to the limit, as a disk filling up gives. */
    if ((long long) *count > after - done)
      *count = after - done;
    __atomic_add_fetch (&written, (long long) *count, __ATOMIC_SEQ_CST);
  }
  return 1;
}

ssize_t
write (int fd, const void *buf, size_t count)
{
  static ssize_t (*real) (int, const void *, size_t);

  if (real == NULL)
    real = next ("write");
  if (!may_write (fd, &count))
    return -1;
  return real (fd, buf, count);
}

/* The writes and their failures apply to the copies as well, and
 * $PLAN_FAIL_COPY_RANGE makes the call itself fail, as file systems that
 * cannot copy between the two files make it fail. */
ssize_t
copy_file_range (int fd_in, off64_t * off_in, int fd_out, off64_t * off_out,
    size_t len, unsigned int flags)
{
  static ssize_t (*real) (int, off64_t *, int, off64_t *, size_t,
      unsigned int);
  int err = failure ("PLAN_FAIL_COPY_RANGE", fd_out);

  if (real == NULL)
    real = next ("copy_file_range");
  if (err) {
    errno = err;
    return -1;
  }
  if (!may_write (fd_out, &len))
    return -1;
  return real (fd_in, off_in, fd_out, off_out, len, flags);
}

/* ENOSPC where a call on a matching file reaches past byte @end of the
 * disk of $PLAN_FAIL_DISK bytes, else 0. */
static int
past_disk (int fd, long long end)
{
  const char *v = getenv ("PLAN_FAIL_DISK");
  long long disk = v && *v ? atoll (v) : 0;

  return disk > 0 && end > disk && matches (fd) ? ENOSPC : 0;
}

/* Each wrapper fails with the errno its variable names, on matching files
 * (or with ENOSPC past the disk's end, where @end is not 0), or passes the
 * call on to the next definition of the symbol. */
#define WRAP(ret, name, var, params, args, end) \
ret \
name params \
{ \
  static ret (*real) params; \
  int err = failure (var, fd); \
 \
  if (!err && (end) > 0) \
    err = past_disk (fd, (end)); \
  if (err) { \
    errno = err; \
    return -1; \
  } \
  if (real == NULL) \
    real = next (#name); \
  return real args; \
}

WRAP (ssize_t, pwrite, "PLAN_FAIL_PWRITE",
    (int fd, const void *buf, size_t count, off_t offset),
    (fd, buf, count, offset), (long long) offset + (long long) count)
WRAP (ssize_t, pwrite64, "PLAN_FAIL_PWRITE",
    (int fd, const void *buf, size_t count, off64_t offset),
    (fd, buf, count, offset), (long long) offset + (long long) count)
WRAP (ssize_t, pread, "PLAN_FAIL_PREAD",
    (int fd, void *buf, size_t count, off_t offset),
    (fd, buf, count, offset), 0)
WRAP (ssize_t, pread64, "PLAN_FAIL_PREAD",
    (int fd, void *buf, size_t count, off64_t offset),
    (fd, buf, count, offset), 0)
WRAP (int, fallocate, "PLAN_FAIL_FALLOCATE",
    (int fd, int mode, off_t offset, off_t len), (fd, mode, offset, len),
    (long long) offset + (long long) len)
WRAP (int, fallocate64, "PLAN_FAIL_FALLOCATE",
    (int fd, int mode, off64_t offset, off64_t len), (fd, mode, offset, len),
    (long long) offset + (long long) len)

WRAP (int, fsync, "PLAN_FAIL_FSYNC", (int fd), (fd), 0)
WRAP (int, fdatasync, "PLAN_FAIL_FSYNC", (int fd), (fd), 0)

/* open() and open64() of an unnamed file fail with $PLAN_FAIL_TMPFILE. */
#define WRAP_OPEN(name) \
int \
name (const char *path, int flags, ...) \
{ \
  static int (*real) (const char *, int, ...); \
  mode_t mode = 0; \
  int err = env_int ("PLAN_FAIL_TMPFILE", 0); \
 \
  if (real == NULL) \
    real = next (#name); \
  if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) { \
    va_list args; \
 \
    va_start (args, flags); \
    mode = va_arg (args, mode_t); \
    va_end (args); \
  } \
  if (err && (flags & O_TMPFILE) == O_TMPFILE) { \
    errno = err; \
    return -1; \
  } \
  return real (path, flags, mode); \
}

WRAP_OPEN (open)
WRAP_OPEN (open64)
