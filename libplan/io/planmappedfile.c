/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Mapped file windows that a file shrinking under them cannot crash.
 *
 * PlanFileReader hands out chunks that are the file's own page-cache
 * pages. When another process truncates the file, the kernel takes those
 * pages away, and whichever thread touches one next (the reader's worker,
 * planmap, planfilesink's writer, an element of a third party) gets
 * SIGBUS, which kills the process. Here each mapped window is registered
 * in a table that a SIGBUS handler looks up: a fault inside a window puts
 * a page of zeros in place of the one that went away, marks the file as
 * changed, and returns, so the thread goes on. The elements of gst-plan
 * that read chunks (the kernel elements, the file writer) then ask
 * _plan_buffer_check_mapped() after each chunk, and the reader checks its
 * file when it reaches the end, and the zeros are never taken for data:
 * the pipeline fails with an error that names the file.
 *
 * The handler is installed once, when the first window is mapped; a
 * SIGBUS that is not about a window goes to the handler that was there
 * before (the default one kills the process as before). An application
 * that installs its own SIGBUS handler afterwards replaces this one. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/core/plan-private.h"
#include <libplan/planerror.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Windows mapped at once in the process, for every reader together: a
 * window is 8 MiB or more, so this is gigabytes of chunks in flight. A
 * reader that finds the table full maps nothing and reads instead. */
#define N_SLOTS 1024

struct _PlanMappedFile
{
  gint ref_count;               /* atomic */
  gint changed;                 /* atomic: a fault was caught in a window */
  gchar *filename;              /* construct-only */
  gint fd;                      /* construct-only: a duplicate */
  guint64 size;                 /* construct-only: the size when opened */
};

typedef struct
{
  guint8 *base;                 /* construct-only */
  gsize size;                   /* construct-only */
  guint64 offset;               /* construct-only: in the file */
  PlanMappedFile *file;         /* construct-only, a reference */
  PlanFaultSlot *slot;          /* construct-only: where the handler finds
                                 * it */
} Region;

/* The handler reads these slots only (planfaultslots.c), never a Region,
 * which another thread may free while it runs. */
static PlanFaultSlot slots[N_SLOTS];
static struct sigaction previous_action;
static gsize page_size;
static GQuark region_quark;         /* atomic: set once, read anywhere */

static void
on_sigbus (int sig, siginfo_t * info, void *context)
{
  guint8 *addr = info->si_addr;
  PlanMappedFile *file;

  /* A window's slot holds its file as long as a thread may touch its
   * pages (published before they are handed out, released after the last
   * is given back), so the file is there to mark. */
  if (info->si_code > 0
      && _plan_fault_slots_find (slots, N_SLOTS, addr,
          (gpointer *) & file) != NULL) {
    /* The page went away with the end of the file: zeros in its place,
     * and the file marked, so that the data read is refused. */
    guint8 *page = (guint8 *) ((guintptr) addr & ~(guintptr) (page_size - 1));

    if (mmap (page, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
            MAP_FIXED, -1, 0) != MAP_FAILED) {
      g_atomic_int_set (&file->changed, 1);
      return;
    }
  }

  /* Not ours: what was there before. */
  if (previous_action.sa_flags & SA_SIGINFO) {
    if (previous_action.sa_sigaction) {
      previous_action.sa_sigaction (sig, info, context);
      return;
    }
  } else if (previous_action.sa_handler != SIG_DFL
      && previous_action.sa_handler != SIG_IGN) {
    previous_action.sa_handler (sig);
    return;
  }
  /* The default action: the fault happens again when this returns, and
   * kills the process as it would have; a SIGBUS that was sent is sent
   * again. */
  sigaction (SIGBUS, &previous_action, NULL);
  if (info->si_code <= 0)
    raise (SIGBUS);
}

static void
install_handler (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    struct sigaction action;

    page_size = sysconf (_SC_PAGESIZE);
    g_atomic_int_set (&region_quark,
        g_quark_from_static_string ("plan-mapped-region"));
    memset (&action, 0, sizeof (action));
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset (&action.sa_mask);
    sigaction (SIGBUS, &action, &previous_action);
    g_once_init_leave (&done, 1);
  }
}

/* NULL with errno set when no descriptor is left for the copy (EMFILE):
 * mapping with a descriptor of -1 would fail with a misleading EBADF. The
 * copy is closed on exec, as the descriptor it copies. */
PlanMappedFile *
_plan_mapped_file_new (const gchar * filename, gint fd, guint64 size)
{
  PlanMappedFile *file;
  gint copy = fcntl (fd, F_DUPFD_CLOEXEC, 0);

  if (copy < 0)
    return NULL;
  file = g_new0 (PlanMappedFile, 1);
  file->ref_count = 1;
  file->filename = g_strdup (filename);
  file->fd = copy;
  file->size = size;
  return file;
}

PlanMappedFile *
_plan_mapped_file_ref (PlanMappedFile * file)
{
  g_atomic_int_inc (&file->ref_count);
  return file;
}

void
_plan_mapped_file_unref (PlanMappedFile * file)
{
  if (file == NULL || !g_atomic_int_dec_and_test (&file->ref_count))
    return;
  if (file->fd >= 0)
    close (file->fd);
  g_free (file->filename);
  g_free (file);
}

static void
region_free (gpointer data)
{
  Region *r = data;

  /* Out of the table before the pages go. */
  _plan_fault_slots_release (r->slot);
  munmap (r->base, r->size);
  _plan_mapped_file_unref (r->file);
  g_free (r);
}

GstMemory *
_plan_mapped_file_map (PlanMappedFile * file, guint64 offset, gsize size,
    GError ** error)
{
  GstMemory *mem;
  Region *r;
  gpointer base;
  gint i;

  install_handler ();
  i = _plan_fault_slots_claim (slots, N_SLOTS);
  if (i < 0)
    return NULL;                /* no error: the caller reads instead */
  base = mmap (NULL, size, PROT_READ, MAP_SHARED, file->fd, offset);
  if (base == MAP_FAILED) {
    gint err = errno;

    _plan_fault_slots_release (&slots[i]);
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
        "Could not map '%s': %s", file->filename, g_strerror (err));
    return NULL;
  }
  r = g_new0 (Region, 1);
  r->base = base;
  r->size = size;
  r->offset = offset;
  r->file = _plan_mapped_file_ref (file);
  r->slot = &slots[i];
  /* Before any thread is given the pages. */
  _plan_fault_slots_publish (r->slot, base, size, r->file);

  mem = gst_memory_new_wrapped (GST_MEMORY_FLAG_READONLY, base, size, 0,
      size, r, region_free);
  gst_mini_object_set_qdata (GST_MINI_OBJECT (mem), region_quark, r, NULL);
  return mem;
}

typedef struct
{
  GstMemory *window;
  guint8 *data;
  gsize size;
} Chunk;

/* The chunk's whole pages are let go of: the next touch of one (a
 * neighbouring chunk sharing it is still in use, say) maps it again from
 * the page cache, so the mapping reads what it read before. */
static void
chunk_free (gpointer data)
{
  Chunk *c = data;
  guintptr first = ((guintptr) c->data + page_size - 1) & ~(guintptr)
      (page_size - 1);
  guintptr end = ((guintptr) c->data + c->size) & ~(guintptr) (page_size - 1);

  if (end > first)
    madvise ((gpointer) first, end - first, MADV_DONTNEED);
  gst_memory_unref (c->window);
  g_free (c);
}

GstMemory *
_plan_mapped_file_share (GstMemory * window, gsize offset, gsize size)
{
  Region *r = gst_mini_object_get_qdata (GST_MINI_OBJECT (window),
      region_quark);
  Chunk *c = g_new (Chunk, 1);
  GstMemory *mem;

  g_return_val_if_fail (r != NULL, NULL);
  c->window = gst_memory_ref (window);
  c->data = r->base + window->offset + offset;
  c->size = size;
  mem = gst_memory_new_wrapped (GST_MEMORY_FLAG_READONLY, c->data, size, 0,
      size, c, chunk_free);
  /* _plan_buffer_get_mapped_file() finds the file from the chunk, and from
   * shares of it (whose parent it is). */
  gst_mini_object_set_qdata (GST_MINI_OBJECT (mem), region_quark, r, NULL);
  return mem;
}

/* Sets @error to what became of the file, read through its descriptor
 * (the file that was read, even if another was put at its name since). */
void
_plan_mapped_file_set_changed_error (PlanMappedFile * file, GError ** error)
{
  struct stat st;

  if (fstat (file->fd, &st) == 0 && (guint64) st.st_size < file->size)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "'%s' changed while it was read: it now ends at byte %"
        G_GUINT64_FORMAT " (it had %" G_GUINT64_FORMAT " bytes), and what "
        "was read of it is not used", file->filename, (guint64) st.st_size,
        file->size);
  else
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "'%s' changed while it was read: part of it could not be read "
        "(it was cut short and written again, or the disk failed), and what "
        "was read of it is not used", file->filename);
}

gboolean
_plan_mapped_file_check (PlanMappedFile * file, GError ** error)
{
  if (file == NULL || !g_atomic_int_get (&file->changed))
    return TRUE;
  _plan_mapped_file_set_changed_error (file, error);
  return FALSE;
}

/* The region whose pages @buffer holds, or NULL; with @data, the one that
 * holds the @size bytes at @data. */
static Region *
buffer_region (GstBuffer * buffer, const guint8 * data, gsize size)
{
  /* Any thread, while another may map its first window. */
  GQuark quark = g_atomic_int_get (&region_quark);
  guint i, n;

  if (quark == 0 || buffer == NULL)
    return NULL;                /* nothing was ever mapped */
  n = gst_buffer_n_memory (buffer);
  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);
    Region *r;

    if (mem->parent)
      mem = mem->parent;
    r = gst_mini_object_get_qdata (GST_MINI_OBJECT (mem), quark);
    if (r && (data == NULL || (data >= r->base && size <= r->size
                && (gsize) (data - r->base) <= r->size - size)))
      return r;
  }
  return NULL;
}

PlanMappedFile *
_plan_buffer_get_mapped_file (GstBuffer * buffer)
{
  Region *r = buffer_region (buffer, NULL, 0);

  return r ? r->file : NULL;
}

gboolean
_plan_buffer_check_mapped (GstBuffer * buffer, GError ** error)
{
  return _plan_mapped_file_check (_plan_buffer_get_mapped_file (buffer),
      error);
}

gboolean
_plan_buffer_find_file_range (GstBuffer * buffer, const guint8 * data,
    gsize size, gint * fd, guint64 * offset)
{
  Region *r = data ? buffer_region (buffer, data, size) : NULL;

  if (r == NULL)
    return FALSE;
  *fd = r->file->fd;
  *offset = r->offset + (guint64) (data - r->base);
  return TRUE;
}
