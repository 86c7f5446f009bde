/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the files of the HDF5 module (libplan-hdf5.so) share: planh5.c
 * (reading a dataset) defines these, planh5-writer.c (writing one) uses
 * them. Not part of libplan itself: only the module includes this. */

#ifndef __PLAN_H5_PRIVATE_H__
#define __PLAN_H5_PRIVATE_H__

#include <glib.h>
#include <hdf5.h>

G_BEGIN_DECLS

/* Around each sequence of libhdf5 calls: the lock that keeps a libhdf5
 * built without thread safety safe, and HDF5's printing of errors off
 * for the thread. */
G_GNUC_INTERNAL
void _plan_h5_enter (void);

G_GNUC_INTERNAL
void _plan_h5_leave (void);

/* The system's errno in a message of this thread's HDF5 error stack (a
 * write of the file driver that failed), or 0. */
G_GNUC_INTERNAL
gint _plan_h5_error_errno (void);

/* The innermost messages of this thread's HDF5 error stack, which is
 * cleared. */
G_GNUC_INTERNAL
gchar * _plan_h5_error_text (void);

/* IEEE binary16 as h5py writes numpy's float16; -1 on failure. */
G_GNUC_INTERNAL
hid_t _plan_h5_half_type (void);

/* h5py's complex type over the float type @part. */
G_GNUC_INTERNAL
hid_t _plan_h5py_complex_type (hid_t part);

/* Rows @first to @first + @n_rows of a dataset selected in its file
 * space, and a memory space of their shape; between _plan_h5_enter () and
 * _plan_h5_leave (). */
G_GNUC_INTERNAL
gboolean _plan_h5_select_rows (hid_t dset, gint ndim, const hsize_t * dims,
    guint64 first, guint64 n_rows, hid_t * fspace, hid_t * mspace);

/* h5py's LZF filter (planh5-lzf.c): its HDF5 filter id, a decoder of its
 * chunks, and its registration with libhdf5 for reading. */
#define PLAN_H5_FILTER_LZF 32000

typedef enum
{
  PLAN_LZF_OK,
  PLAN_LZF_FULL,
  PLAN_LZF_CORRUPT,
} PlanLzfResult;

G_GNUC_INTERNAL
PlanLzfResult _plan_h5_lzf_decode (const guint8 * in, gsize n_in,
    guint8 * out, gsize room, gsize * n_out, const gchar ** why);

G_GNUC_INTERNAL
void _plan_h5_lzf_register (void);

G_GNUC_INTERNAL
void _plan_h5_lzf_expect (gsize bytes);

G_END_DECLS

#endif /* __PLAN_H5_PRIVATE_H__ */
