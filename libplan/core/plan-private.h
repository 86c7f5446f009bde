/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Helpers shared inside libplan only; never installed. */

#ifndef __PLAN_PRIVATE_H__
#define __PLAN_PRIVATE_H__

#include "plan.h"
#include "libplan/device/plan-testing.h"

#include <string.h>

G_BEGIN_DECLS

/* float16 (IEEE binary16, numpy's float16) to and from float and double,
 * rounding to nearest even exactly as numpy's npy_float_to_half and
 * npy_double_to_half do (a double is rounded once, never through float):
 * NaNs stay NaN with their sign and the top bits of their payload.
 * Branch-free, so that loops over them vectorise; the expression kernels,
 * the reducer and plandtype.c share them. */
static inline gfloat
_plan_half_to_float (guint16 h)
{
  guint32 em = h & 0x7fff, bits;
  /* A subnormal is its 10 bits times 2**-24: exact, and never a float
   * subnormal operand (which a CPU flushing denormals would zero). */
  gfloat sub = (gfloat) em * 0x1p-24f, f;
  guint32 sub_bits, normal = (em << 13) + ((guint32) (127 - 15) << 23);
  guint32 special = (em << 13) | 0x7f800000;

  memcpy (&sub_bits, &sub, 4);
  bits = em < 0x400 ? sub_bits : em >= 0x7c00 ? special : normal;
  bits |= (guint32) (h & 0x8000) << 16;
  memcpy (&f, &bits, 4);
  return f;
}

static inline guint16
_plan_half_from_float (gfloat f)
{
  guint32 x, a, nan, normal, sub, h;
  gfloat sf;

  memcpy (&x, &f, 4);
  a = x & 0x7fffffff;
  nan = 0x7c00 | ((a >> 13) & 0x3ff);
  nan |= (nan & 0x3ff) == 0;
  /* Rebias the exponent and round the 13 dropped bits to even. */
  normal = (a - ((guint32) 112 << 23) + 0xfff + ((a >> 13) & 1)) >> 13;
  /* Below 2**-14: adding 0.5 leaves round (|f| * 2**24) in the low bits,
   * rounded to even by the addition itself. */
  memcpy (&sf, &a, 4);
  sf += 0.5f;
  memcpy (&sub, &sf, 4);
  sub -= 0x3f000000;
  h = a > 0x7f800000 ? nan : a >= 0x477ff000 ? 0x7c00 : a >= 0x38800000 ?
      normal : sub;
  return (guint16) (h | ((x >> 16) & 0x8000));
}

static inline guint16
_plan_half_from_double (gdouble d)
{
  guint64 x, a, normal, sub;
  guint32 nan, h;
  gdouble sd;

  memcpy (&x, &d, 8);
  a = x & G_GUINT64_CONSTANT (0x7fffffffffffffff);
  nan = 0x7c00 | (guint32) ((a >> 42) & 0x3ff);
  nan |= (nan & 0x3ff) == 0;
  normal = (a - ((guint64) 1008 << 52) + ((G_GUINT64_CONSTANT (1) << 41) - 1)
      + ((a >> 42) & 1)) >> 42;
  memcpy (&sd, &a, 8);
  sd += 0x1p28;
  memcpy (&sub, &sd, 8);
  sub -= G_GUINT64_CONSTANT (0x41b0000000000000);
  h = a > G_GUINT64_CONSTANT (0x7ff0000000000000) ? nan :
      a >= G_GUINT64_CONSTANT (0x40effe0000000000) ? 0x7c00 :
      a >= G_GUINT64_CONSTANT (0x3f10000000000000) ? (guint32) normal :
      (guint32) sub;
  return (guint16) (h | ((x >> 48) & 0x8000));
}

G_GNUC_INTERNAL
void _plan_debug_init (void);

/* The sim device's wait-skipping hook, at the sites that wait. */
G_GNUC_INTERNAL
void plan_device_count_host_wait (PlanDevice * device);

G_GNUC_INTERNAL
gboolean plan_device_skips_wait (PlanDevice * device, PlanWaitSite site);

G_GNUC_INTERNAL
gboolean plan_device_memory_wait_idle (GstMemory * mem, PlanStream * stream,
    PlanWaitSite site, GError ** error);

/* planfilereader.c: the answer of the plan-read-rows and plan-output-rows
 * queries. */
G_GNUC_INTERNAL
GstBuffer * _plan_query_get_buffer (GstQuery * query);

/* planarray.c: an array whose contents are left as they come, for
 * results that fill it whole. */
G_GNUC_INTERNAL
PlanArray * _plan_array_new_uninitialized (const PlanArrayInfo * info,
    GError ** error);

/* planzip.c: the zip container of .npz files. */
typedef struct
{
  gchar *name;
  guint16 flags;
  guint16 method;               /* 0: stored, 8: deflated */
  guint32 crc;
  guint64 csize;                /* the bytes in the archive */
  guint64 usize;                /* the bytes of the member itself */
  guint64 header_offset;        /* of its local header */
  guint64 data_offset;          /* of its data, once located */
} PlanZipEntry;

G_GNUC_INTERNAL
gboolean _plan_zip_has_magic (const guint8 * data, gsize size);

G_GNUC_INTERNAL
GPtrArray * _plan_zip_read_directory (gint fd, guint64 file_size,
    GError ** error);

G_GNUC_INTERNAL
gboolean _plan_zip_locate_data (gint fd, guint64 file_size,
    PlanZipEntry * entry, GError ** error);

G_GNUC_INTERNAL
void _plan_zip_entry_free (PlanZipEntry * entry);

/* planmappedfile.c: mapped windows of a file that a truncation cannot
 * crash (a fault there reads zeros and marks the file as changed). */
typedef struct _PlanMappedFile PlanMappedFile;

G_GNUC_INTERNAL
PlanMappedFile * _plan_mapped_file_new (const gchar * filename, gint fd,
    guint64 size);
G_GNUC_INTERNAL
PlanMappedFile * _plan_mapped_file_ref (PlanMappedFile * file);
G_GNUC_INTERNAL
void _plan_mapped_file_unref (PlanMappedFile * file);
/* A read-only GstMemory of @size bytes of the file from @offset; NULL
 * without @error set when too many windows are mapped (read instead). */
G_GNUC_INTERNAL
GstMemory * _plan_mapped_file_map (PlanMappedFile * file, guint64 offset,
    gsize size, GError ** error);
/* A read-only GstMemory of @size bytes of @window (made by
 * _plan_mapped_file_map()) from @offset, holding the window: a chunk.
 * When it is freed, the whole pages of its bytes leave the process's
 * resident memory (they stay in the page cache), so a reader's memory
 * counts the chunks in flight rather than the windows. */
G_GNUC_INTERNAL
GstMemory * _plan_mapped_file_share (GstMemory * window, gsize offset,
    gsize size);
G_GNUC_INTERNAL
gboolean _plan_mapped_file_check (PlanMappedFile * file, GError ** error);
G_GNUC_INTERNAL
void _plan_mapped_file_set_changed_error (PlanMappedFile * file,
    GError ** error);
/* FALSE with @error set when @buffer holds pages of a mapped file that
 * changed while it was read: its data is not the file's. Any thread. */
G_GNUC_INTERNAL
gboolean _plan_buffer_check_mapped (GstBuffer * buffer, GError ** error);
/* The mapped file whose pages @buffer holds, or NULL: a system call that
 * read them and failed with EFAULT read pages the file no longer has. */
G_GNUC_INTERNAL
PlanMappedFile * _plan_buffer_get_mapped_file (GstBuffer * buffer);

/* planh5.c, with HDF5 only: one dataset of an HDF5 file. */
typedef struct _PlanH5Dataset PlanH5Dataset;

G_GNUC_INTERNAL
PlanH5Dataset * _plan_h5_dataset_open (const gchar * filename,
    const gchar * path, PlanArrayInfo * info, guint64 * align_rows,
    guint64 * data_offset, GError ** error);

G_GNUC_INTERNAL
const gchar * _plan_h5_dataset_get_path (PlanH5Dataset * d);

G_GNUC_INTERNAL
gboolean _plan_h5_dataset_read_rows (PlanH5Dataset * d, guint64 first,
    guint64 n_rows, guint8 * dest, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_h5_dataset_decodes_here (PlanH5Dataset * d);

G_GNUC_INTERNAL
void _plan_h5_dataset_close (PlanH5Dataset * d);

typedef struct _PlanH5Writer PlanH5Writer;

G_GNUC_INTERNAL
PlanH5Writer * _plan_h5_writer_create (const gchar * filename,
    const gchar * path, const PlanArrayInfo * info, guint64 chunk_rows,
    guint gzip_level, gboolean add, GError ** error);

G_GNUC_INTERNAL
PlanH5Writer * _plan_h5_writer_create_full (const gchar * filename,
    const gchar * path, const PlanArrayInfo * info, guint64 chunk_rows,
    guint gzip_level, gboolean add, gint64 fixed_rows, GError ** error);

G_GNUC_INTERNAL
GArray * _plan_h5_writer_get_chunks (PlanH5Writer * w, guint64 * chunk_rows,
    GError ** error);

G_GNUC_INTERNAL
gboolean _plan_h5_writer_append (PlanH5Writer * w, const guint8 * data,
    guint64 n_rows, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_h5_writer_close (PlanH5Writer * w, GError ** error);

/* planzarr.c, with Zarr only: one array of a Zarr v2 directory store. */
typedef struct _PlanZarrArray PlanZarrArray;

G_GNUC_INTERNAL
PlanZarrArray * _plan_zarr_array_open (const gchar * store,
    const gchar * path, PlanArrayInfo * info, guint64 * align_rows,
    GError ** error);

G_GNUC_INTERNAL
const gchar * _plan_zarr_array_get_path (PlanZarrArray * z);

G_GNUC_INTERNAL
gboolean _plan_zarr_array_read_rows (PlanZarrArray * z, guint64 first,
    guint64 n_rows, guint8 * dest, GError ** error);

G_GNUC_INTERNAL
void _plan_zarr_array_close (PlanZarrArray * z);

typedef struct _PlanZarrWriter PlanZarrWriter;

G_GNUC_INTERNAL
PlanZarrWriter * _plan_zarr_writer_create (const gchar * dir,
    const PlanArrayInfo * info, guint64 chunk_rows, PlanFileCodec codec,
    guint level, gint version, gboolean sync, GError ** error);

G_GNUC_INTERNAL
gint _plan_zarr_node_type (const gchar * dir);

G_GNUC_INTERNAL
gboolean _plan_zarr_write_group (const gchar * dir, gint version,
    GError ** error);

G_GNUC_INTERNAL
gboolean _plan_zarr_writer_append (PlanZarrWriter * w, const guint8 * data,
    guint64 n_rows, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_zarr_writer_close (PlanZarrWriter * w, GError ** error);

G_GNUC_INTERNAL
void _plan_zarr_writer_get_layout (PlanZarrWriter * w, guint64 * chunk_rows,
    PlanFileCodec * codec, guint * level, gint * version);

G_GNUC_INTERNAL
void _plan_zarr_writer_set_rows (PlanZarrWriter * w, guint64 rows);

G_GNUC_INTERNAL
gboolean _plan_zarr_writer_write_chunk (PlanZarrWriter * w, guint64 index,
    const guint8 * data, guint64 n_rows, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_zarr_writer_close_chunks (PlanZarrWriter * w,
    GError ** error);

/* planfilewriter.c: rank 0's part of an output shared by the ranks of an
 * MPI job (planshardwriter.c). */
G_GNUC_INTERNAL
void _plan_file_writer_set_shared_rows (PlanFileWriter * writer,
    gint64 total_rows);

G_GNUC_INTERNAL
const gchar * _plan_file_writer_get_shared_target (PlanFileWriter * writer,
    guint64 * chunk_rows, GArray ** h5_chunks, PlanFileCodec * codec,
    guint * level, gint * version);

/* The device path of PlanKernelElement (plankernelelement-device.c). */
typedef struct _PlanKernelDevice PlanKernelDevice;

G_GNUC_INTERNAL
PlanKernelDevice * _plan_kernel_device_new (GstElement * element,
    PlanTarget target, GError ** error);

G_GNUC_INTERNAL
void _plan_kernel_device_free (PlanKernelDevice * self);

G_GNUC_INTERNAL
void _plan_kernel_device_flush (PlanKernelDevice * self);

G_GNUC_INTERNAL
GstCaps * _plan_kernel_device_src_caps (PlanKernelDevice * self,
    GstCaps * caps, GstCaps * downstream);

G_GNUC_INTERNAL
gboolean _plan_kernel_device_input (PlanKernelDevice * self, guint index,
    GstBuffer ** head, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_kernel_device_outputs_to_device (PlanKernelDevice * self);

G_GNUC_INTERNAL
GstBuffer * _plan_kernel_device_output (PlanKernelDevice * self,
    GstBuffer * buffer, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_kernel_device_launch (PlanKernelDevice * self,
    PlanKernelElement * element, GstBuffer ** heads,
    const gsize * byte_offsets, guint64 first_row, gsize n_rows,
    GstFlowReturn * ret);

G_GNUC_INTERNAL
PlanStream * _plan_kernel_device_get_stream (PlanKernelDevice * self);

G_GNUC_INTERNAL
GstFlowReturn _plan_kernel_device_finish (PlanKernelDevice * self);

G_GNUC_INTERNAL
gboolean _plan_kernel_device_has_device (PlanKernelDevice * self);

G_GNUC_INTERNAL
GstBuffer * _plan_kernel_device_alloc_output (PlanKernelDevice * self,
    gsize size, GError ** error);
GstFlowReturn _plan_kernel_element_take_push_flow (PlanKernelElement * self);

G_END_DECLS

#endif /* __PLAN_PRIVATE_H__ */
