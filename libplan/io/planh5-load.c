/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* HDF5 on first use: libplan's _plan_h5_*() load the HDF5 module
 * (libplan-hdf5.so: planh5.c, planh5-writer.c) the first time a file is
 * opened or written, and call through the table it hands back
 * (plan-private.h says why). core/planmodule.c finds and loads it. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/core/plan-private.h"
#include <libplan/planerror.h>

/* The module's file: libplan/meson.build's name. */
#define MODULE_NAME "libplan-hdf5.so"

static const PlanH5Module *h5;  /* set once, under load_lock */
static gchar *load_error;       /* why it could not be loaded, once */
static GMutex load_lock;

static const PlanH5Module *
load (GError ** error)
{
  const PlanH5Module *m = g_atomic_pointer_get (&h5);

  if (m)
    return m;

  g_mutex_lock (&load_lock);
  if (h5 == NULL && load_error == NULL) {
    m = _plan_module_load (MODULE_NAME, PLAN_H5_MODULE_GET,
        PLAN_H5_MODULE_VERSION, sizeof (PlanH5Module), FALSE, &load_error);
    if (m)
      g_atomic_pointer_set (&h5, m);
  }
  m = h5;
  if (m == NULL)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "HDF5 files cannot be read or written: gst-plan's HDF5 module (%s) "
        "could not be loaded: tried %s", MODULE_NAME, load_error);
  g_mutex_unlock (&load_lock);
  return m;
}

PlanH5Dataset *
_plan_h5_dataset_open (const gchar * filename, const gchar * path,
    PlanArrayInfo * info, guint64 * align_rows, guint64 * data_offset,
    GError ** error)
{
  const PlanH5Module *m = load (error);

  return m ? m->dataset_open (filename, path, info, align_rows, data_offset,
      error) : NULL;
}

/* The functions on an open dataset or writer: the module is loaded. */

const gchar *
_plan_h5_dataset_get_path (PlanH5Dataset * d)
{
  return h5->dataset_get_path (d);
}

const gchar *
_plan_h5_dataset_get_elsewhere (PlanH5Dataset * d)
{
  return h5->dataset_get_elsewhere (d);
}

gboolean
_plan_h5_dataset_read_rows (PlanH5Dataset * d, guint64 first,
    guint64 n_rows, guint8 * dest, GError ** error)
{
  return h5->dataset_read_rows (d, first, n_rows, dest, error);
}

gboolean
_plan_h5_dataset_decodes_here (PlanH5Dataset * d)
{
  return h5->dataset_decodes_here (d);
}

gboolean
_plan_h5_dataset_maps_chunks (PlanH5Dataset * d)
{
  return h5->dataset_maps_chunks (d);
}

gboolean
_plan_h5_dataset_chunk_offset (PlanH5Dataset * d, guint64 chunk,
    guint64 * offset)
{
  return h5->dataset_chunk_offset (d, chunk, offset);
}

void
_plan_h5_dataset_close (PlanH5Dataset * d)
{
  if (d)
    h5->dataset_close (d);
}

PlanH5Writer *
_plan_h5_writer_create (const gchar * filename, const gchar * path,
    const PlanArrayInfo * info, guint64 chunk_rows, guint gzip_level,
    gboolean add, GError ** error)
{
  const PlanH5Module *m = load (error);

  return m ? m->writer_create (filename, path, info, chunk_rows, gzip_level,
      add, error) : NULL;
}

PlanH5Writer *
_plan_h5_writer_create_full (const gchar * filename, const gchar * path,
    const PlanArrayInfo * info, guint64 chunk_rows, guint gzip_level,
    gboolean add, gint64 fixed_rows, GError ** error)
{
  const PlanH5Module *m = load (error);

  return m ? m->writer_create_full (filename, path, info, chunk_rows,
      gzip_level, add, fixed_rows, error) : NULL;
}

GArray *
_plan_h5_writer_get_chunks (PlanH5Writer * w, guint64 * chunk_rows,
    GError ** error)
{
  return h5->writer_get_chunks (w, chunk_rows, error);
}

gboolean
_plan_h5_writer_append (PlanH5Writer * w, const guint8 * data,
    guint64 n_rows, GError ** error)
{
  return h5->writer_append (w, data, n_rows, error);
}

gboolean
_plan_h5_writer_close (PlanH5Writer * w, GError ** error)
{
  if (w == NULL)
    return TRUE;
  return h5->writer_close (w, error);
}

gboolean
_plan_h5_writer_get_filters (PlanH5Writer * w, PlanH5Filters * filters,
    GError ** error)
{
  return h5->writer_get_filters (w, filters, error);
}

/* Needs no open file: the module may not be loaded yet. */
guint8 *
_plan_h5_chunk_encode (const PlanH5Filters * filters, const guint8 * chunk,
    gsize * out_size, guint32 * mask, GError ** error)
{
  const PlanH5Module *m = load (error);

  return m ? m->chunk_encode (filters, chunk, out_size, mask, error) : NULL;
}

gboolean
_plan_h5_writer_write_chunk (PlanH5Writer * w, guint64 index, guint32 mask,
    const guint8 * data, gsize size, GError ** error)
{
  return h5->writer_write_chunk (w, index, mask, data, size, error);
}

gboolean
_plan_h5_writer_write_rows (PlanH5Writer * w, guint64 first,
    const guint8 * data, guint64 n_rows, GError ** error)
{
  return h5->writer_write_rows (w, first, data, n_rows, error);
}
