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
#include "kernels/cpu/half.h"

#include <string.h>

G_BEGIN_DECLS

/* The test hooks (device/plan-testing.h, plan_reducer_testing_*()) are
 * exported only by a build with tests: PLAN_EXPORT_TEST_HOOKS is set by
 * libplan/meson.build when the tests are built. */
#if defined(BUILDING_PLAN) && !defined(PLAN_EXPORT_TEST_HOOKS)
#define PLAN_TEST_API G_GNUC_INTERNAL
#else
#define PLAN_TEST_API PLAN_API
#endif

G_GNUC_INTERNAL
void _plan_debug_init (void);

/* The copy of the CPU loops (expressions, reductions) that runs: the
 * widest instruction set the CPU has among those built (core/plancpuisa.c).
 * The values index the per-set tables. */
typedef enum
{
  PLAN_CPU_ISA_DEFAULT,
  PLAN_CPU_ISA_AVX2,
  PLAN_CPU_ISA_AVX512,
} PlanCpuIsa;

G_GNUC_INTERNAL
PlanCpuIsa _plan_cpu_isa (void);

/* plan_parallel_for() whose workers poll for the next job for up to
 * @linger_us before they sleep (core/planparallel.c). */
G_GNUC_INTERNAL
void _plan_parallel_for_lingering (guint n_threads, gsize n, gsize grain,
    PlanRangeFunc func, gpointer user_data, gint64 linger_us);

/* plan_parallel_for() that returns while the workers work; the caller
 * joins the job later, from the same thread (core/planparallel.c). */
typedef struct _PlanParallelJob PlanParallelJob;

G_GNUC_INTERNAL
PlanParallelJob *_plan_parallel_submit (guint n_threads, gsize n,
    gsize grain, PlanRangeFunc func, gpointer user_data);

G_GNUC_INTERNAL
void _plan_parallel_join (PlanParallelJob * job);

/* The element of the pipeline whose application code (a chunk reader or
 * writer, a kernel) this thread is running, or NULL: set around such
 * calls, and carried to the worker threads of a plan_parallel_for() made
 * inside one, so that plan_future_wait() can refuse a wait that would
 * never end (core/planparallel.c). Returns the element set before, to give back
 * to _plan_thread_leave_callback(). */
G_GNUC_INTERNAL
GstElement *_plan_thread_enter_callback (GstElement * element);

G_GNUC_INTERNAL
void _plan_thread_leave_callback (GstElement * previous);

G_GNUC_INTERNAL
GstElement *_plan_thread_get_callback (void);

/* Whether @value is within the valid range a property made with
 * plan_param_spec_checked_range() records (core/planerror.c). */
G_GNUC_INTERNAL
gboolean _plan_param_value_in_valid_range (GParamSpec * pspec,
    const GValue * value);

/* A double property that takes every double, -inf to inf and NaN, which
 * g_param_spec_double() refuses (core/planerror.c). */
G_GNUC_INTERNAL
GParamSpec *_plan_param_spec_double_all (const gchar * name,
    const gchar * nick, const gchar * blurb, gdouble default_value,
    GParamFlags flags);

/* Makes @error's message valid UTF-8, as GLib asks of a GError's message
 * and language bindings need to convert it: a file name in it need not be
 * (core/planerror.c). */
G_GNUC_INTERNAL
void _plan_error_make_valid (GError * error);

/* Whether @ours (rows without a rate) would gain a rate downstream: the
 * first structure @downstream shares with them has a `rate` field, as a
 * caps filter asking for one gives (it accepts caps without the field and
 * writes its rate into those it passes on). planarrayinfo.c */
G_GNUC_INTERNAL
gboolean _plan_caps_gain_rate (GstCaps * ours, GstCaps * downstream);

/* "default", "avx2" or "avx512". */
G_GNUC_INTERNAL
const gchar *_plan_cpu_isa_name (void);

G_GNUC_INTERNAL
void plan_device_count_host_wait (PlanDevice * device);

/* Registers the allocators (device/); plan_init() calls them, and so does
 * every function that needs them. */
G_GNUC_INTERNAL
void plan_device_memory_init_once (void);

G_GNUC_INTERNAL
void plan_host_memory_init_once (void);

/* Sets the ready event of device memory (the uploader's copies). */
G_GNUC_INTERNAL
void plan_device_memory_set_ready_event (GstMemory * mem, PlanEvent * event);

/* Releases the sources of an uploader's copies that are done, keeping at
 * most @keep in flight (the kernel element's device outputs). */
G_GNUC_INTERNAL
gboolean plan_uploader_reap (PlanUploader * uploader, guint keep,
    GError ** error);

/* The threads a halo pads rows with (the stencil kernel's). */
G_GNUC_INTERNAL
void plan_halo_set_n_threads (PlanHalo * halo, guint n_threads);

/*
 * PlanWaitSite:
 * @PLAN_WAIT_SITE_NONE: a wait a caller of the API asks for.
 * @PLAN_WAIT_SITE_POOL_REUSE: the wait of a #PlanBufferPool's stream on
 *   the last use of a buffer it hands out again.
 * @PLAN_WAIT_SITE_READY: the wait of a consumer's stream on the ready
 *   event of device memory (plan_device_memory_wait_ready()).
 * @PLAN_WAIT_SITE_RESULT: the host's wait for the copy of a device
 *   reduction's result (#PlanDeviceReducer) before it reads the values.
 *
 * The places where libplan itself makes a stream or the host wait for
 * device work. The waits below pass their site on to the device backend
 * with the wait; the sim backend can be told to drop the waits of a site
 * (plan_device_sim_skip_waits() in plan-testing.h), which tests use to
 * prove that they catch a missing wait. The other backends ignore it.
 */
typedef enum
{
  PLAN_WAIT_SITE_NONE = 0,
  PLAN_WAIT_SITE_POOL_REUSE = (1 << 0),
  PLAN_WAIT_SITE_READY = (1 << 1),
  PLAN_WAIT_SITE_RESULT = (1 << 2),
} PlanWaitSite;

/* plan_stream_wait_event() and plan_stream_synchronize(), at @site. */
G_GNUC_INTERNAL
gboolean _plan_stream_wait_event_at (PlanStream * stream, PlanEvent * event,
    PlanWaitSite site, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_stream_synchronize_at (PlanStream * stream, PlanWaitSite site,
    GError ** error);

G_GNUC_INTERNAL
gboolean plan_device_memory_wait_idle (GstMemory * mem, PlanStream * stream,
    PlanWaitSite site, GError ** error);

/* planquery.c: the plan-output-rows query, which only the kernel-element
 * base class makes and reads the answer of. */
G_GNUC_INTERNAL
GstQuery * plan_query_new_output_rows (guint64 offset, guint64 n_rows,
    gsize row_size);

G_GNUC_INTERNAL
GstBuffer * plan_query_get_output_rows_buffer (GstQuery * query);

/* plandtype.c: plan_dtype_from_npy_descr(), which with @big_endian takes
 * '>' too and says whether the elements are big-endian. */
G_GNUC_INTERNAL
PlanDType _plan_dtype_from_npy_descr (const gchar * descr,
    gboolean * big_endian, GError ** error);

/* plannpy.c: rows [@first_row, @first_row + @n_rows) of an array of
 * @info (all its rows) stored in Fortran order, into @dest in C order.
 * @runs holds the runs of inner indices (all axes but the first, the
 * second varying fastest) @first_run to @first_run + @n_runs: each run is
 * the chunk's @n_rows elements of one inner index, and runs start
 * @run_stride bytes apart. */
G_GNUC_INTERNAL
void _plan_npy_fortran_scatter (const PlanArrayInfo * info,
    guint64 first_run, guint64 n_runs, const guint8 * runs, gsize run_stride,
    guint64 n_rows, guint8 * dest);

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
    GBytes ** comment, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_zip_locate_data (gint fd, guint64 file_size,
    PlanZipEntry * entry, GError ** error);

G_GNUC_INTERNAL
void _plan_zip_entry_free (PlanZipEntry * entry);

/* planfaultslots.c: fixed tables of address ranges that a signal handler
 * looks up while other threads add and remove theirs (no lock, no memory
 * freed under it). Zero-initialized; never freed. */
typedef struct
{
  gint owned;                   /* atomic: claimed */
  gint seq;                     /* atomic: odd while the slot is written */
  gpointer base;                /* atomic: NULL when no range */
  gpointer end;                 /* atomic */
  gpointer data;                /* atomic: the owner's */
  gpointer mark;                /* atomic: the handler's, NULL until set */
} PlanFaultSlot;

G_GNUC_INTERNAL
gint _plan_fault_slots_claim (PlanFaultSlot * slots, guint n_slots);
G_GNUC_INTERNAL
void _plan_fault_slots_publish (PlanFaultSlot * slot, gpointer base,
    gsize size, gpointer data);
G_GNUC_INTERNAL
gpointer _plan_fault_slots_release (PlanFaultSlot * slot);
G_GNUC_INTERNAL
PlanFaultSlot * _plan_fault_slots_find (PlanFaultSlot * slots,
    guint n_slots, gconstpointer addr, gpointer * data);

/* planmappedfile.c: mapped windows of a file that a truncation cannot
 * crash (a fault there reads zeros and marks the file as changed). */
typedef struct _PlanMappedFile PlanMappedFile;

/* NULL with errno set when @fd cannot be copied (no descriptor left). */
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
/* TRUE when the @size bytes at @data, mapped from @buffer, are pages of a
 * mapped file: then @fd reads that file (it is not to be closed) and the
 * bytes are those from @offset, unchanged (the pages are read-only), so a
 * system call can copy them from the file itself. Any thread. */
G_GNUC_INTERNAL
gboolean _plan_buffer_find_file_range (GstBuffer * buffer,
    const guint8 * data, gsize size, gint * fd, guint64 * offset);

/* planh5.c, with HDF5 only: one dataset of an HDF5 file. */
typedef struct _PlanH5Dataset PlanH5Dataset;

G_GNUC_INTERNAL
PlanH5Dataset * _plan_h5_dataset_open (const gchar * filename,
    const gchar * path, PlanArrayInfo * info, guint64 * align_rows,
    guint64 * data_offset, GError ** error);

G_GNUC_INTERNAL
const gchar * _plan_h5_dataset_get_path (PlanH5Dataset * d);

G_GNUC_INTERNAL
const gchar * _plan_h5_dataset_get_elsewhere (PlanH5Dataset * d);

G_GNUC_INTERNAL
gboolean _plan_h5_dataset_read_rows (PlanH5Dataset * d, guint64 first,
    guint64 n_rows, guint8 * dest, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_h5_dataset_decodes_here (PlanH5Dataset * d);

G_GNUC_INTERNAL
gboolean _plan_h5_dataset_maps_chunks (PlanH5Dataset * d);

G_GNUC_INTERNAL
gboolean _plan_h5_dataset_chunk_offset (PlanH5Dataset * d, guint64 chunk,
    guint64 * offset);

G_GNUC_INTERNAL
void _plan_h5_dataset_close (PlanH5Dataset * d);

/* planh5-writer.c, with HDF5 only: one dataset written. */
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

/* A chunked dataset's chunks and the filters libhdf5 applies to them
 * (shuffle, deflate), for filtering chunks outside libhdf5: the ranks of
 * an MPI job writing one compressed HDF5 output (planshardwriter.c).
 * Plain data, the same on every rank. */
typedef struct
{
  guint64 chunk_rows;
  guint64 chunk_bytes;          /* a whole chunk, unfiltered */
  guint32 n;                    /* filters, in the order applied */
  guint32 id[2];                /* H5Z_FILTER_SHUFFLE (2), _DEFLATE (1) */
  guint32 level;                /* deflate's */
  guint32 itemsize;             /* shuffle's element size */
  guint32 pad;
} PlanH5Filters;

G_GNUC_INTERNAL
gboolean _plan_h5_writer_get_filters (PlanH5Writer * w,
    PlanH5Filters * filters, GError ** error);

G_GNUC_INTERNAL
guint8 * _plan_h5_chunk_encode (const PlanH5Filters * filters,
    const guint8 * chunk, gsize * out_size, guint32 * mask, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_h5_writer_write_chunk (PlanH5Writer * w, guint64 index,
    guint32 mask, const guint8 * data, gsize size, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_h5_writer_write_rows (PlanH5Writer * w, guint64 first,
    const guint8 * data, guint64 n_rows, GError ** error);

/* libplan's modules (core/planmodule.c): shared libraries loaded the first
 * time a process needs them, each handing libplan a table of its
 * functions that starts with this header. */
typedef struct
{
  guint version;                /* the module's table version */
  gsize size;                   /* the size of its table */
} PlanModuleHeader;

/* Loads the module @name (libplan-NAME.so) from beside libplan and returns
 * the table its function @get_symbol hands back, when that table has
 * @version and @size; else %NULL, with @tried set to the paths tried and
 * why each failed (free it). @global: the module's libraries are made
 * available to those loaded after them (Open MPI's components need
 * libmpi's symbols). The module stays loaded. Not thread-safe: the caller
 * loads each module once, under a lock of its own. */
G_GNUC_INTERNAL
gconstpointer _plan_module_load (const gchar * name,
    const gchar * get_symbol, guint version, gsize size, gboolean global,
    gchar ** tried);

/* planh5.c and planh5-writer.c are built into a module of their own,
 * libplan-hdf5.so, which planh5-load.c loads the first time a process
 * opens or writes an HDF5 file: libhdf5 and the libraries it links (curl,
 * TLS, Kerberos, LDAP...) then cost nothing to a process that reads .npy
 * files, where loading them made up some 8 ms of CPU time of every
 * start-up. The module hands libplan this table (planh5-module.c);
 * _plan_h5_*() above, in libplan, call through it. */
#define PLAN_H5_MODULE_VERSION 3

typedef struct
{
  guint version;                /* PLAN_H5_MODULE_VERSION */
  gsize size;                   /* sizeof (PlanH5Module) */
  /* the header above is PlanModuleHeader's */
  PlanH5Dataset *(*dataset_open) (const gchar * filename, const gchar * path,
      PlanArrayInfo * info, guint64 * align_rows, guint64 * data_offset,
      GError ** error);
  const gchar *(*dataset_get_path) (PlanH5Dataset * d);
  gboolean (*dataset_read_rows) (PlanH5Dataset * d, guint64 first,
      guint64 n_rows, guint8 * dest, GError ** error);
  gboolean (*dataset_decodes_here) (PlanH5Dataset * d);
  gboolean (*dataset_maps_chunks) (PlanH5Dataset * d);
  gboolean (*dataset_chunk_offset) (PlanH5Dataset * d, guint64 chunk,
      guint64 * offset);
  void (*dataset_close) (PlanH5Dataset * d);
  PlanH5Writer *(*writer_create) (const gchar * filename, const gchar * path,
      const PlanArrayInfo * info, guint64 chunk_rows, guint gzip_level,
      gboolean add, GError ** error);
  PlanH5Writer *(*writer_create_full) (const gchar * filename,
      const gchar * path, const PlanArrayInfo * info, guint64 chunk_rows,
      guint gzip_level, gboolean add, gint64 fixed_rows, GError ** error);
  GArray *(*writer_get_chunks) (PlanH5Writer * w, guint64 * chunk_rows,
      GError ** error);
  gboolean (*writer_append) (PlanH5Writer * w, const guint8 * data,
      guint64 n_rows, GError ** error);
  gboolean (*writer_close) (PlanH5Writer * w, GError ** error);
  gboolean (*writer_get_filters) (PlanH5Writer * w, PlanH5Filters * filters,
      GError ** error);
  guint8 *(*chunk_encode) (const PlanH5Filters * filters,
      const guint8 * chunk, gsize * out_size, guint32 * mask,
      GError ** error);
  gboolean (*writer_write_chunk) (PlanH5Writer * w, guint64 index,
      guint32 mask, const guint8 * data, gsize size, GError ** error);
  gboolean (*writer_write_rows) (PlanH5Writer * w, guint64 first,
      const guint8 * data, guint64 n_rows, GError ** error);
  const gchar *(*dataset_get_elsewhere) (PlanH5Dataset * d);
} PlanH5Module;

/* The module's one exported function. */
typedef const PlanH5Module *(*PlanH5ModuleGetFunc) (void);
#define PLAN_H5_MODULE_GET "plan_h5_module_get"

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
GPtrArray * _plan_zarr_prepare_consolidated (const gchar * store,
    const gchar * rel, const gchar * array_dir, GError ** error);

G_GNUC_INTERNAL
gboolean _plan_zarr_commit_consolidated (GPtrArray * pairs, GError ** error);

G_GNUC_INTERNAL
void _plan_zarr_discard_consolidated (GPtrArray * pairs);

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

/* libblosc's functions that planzarr.c and planzarr-writer.c call, opened
 * the first time a blosc chunk is to be read or written rather than with
 * libplan: loading it (with libstdc++, snappy and lz4) cost every process
 * some 2 ms of CPU time at start-up. NULL with @error set when it cannot
 * be opened. With HAVE_BLOSC only. */
typedef struct
{
  int (*cbuffer_validate) (const void *cbuffer, size_t cbytes,
      size_t * nbytes);
  int (*decompress_ctx) (const void *src, void *dest, size_t destsize,
      int numinternalthreads);
  int (*compress_ctx) (int clevel, int doshuffle, size_t typesize,
      size_t nbytes, const void *src, void *dest, size_t destsize,
      const char *compressor, size_t blocksize, int numinternalthreads);
} PlanBlosc;

G_GNUC_INTERNAL
const PlanBlosc * _plan_zarr_blosc (GError ** error);

/* planfilewriter.c: rank 0's part of an output shared by the ranks of an
 * MPI job (planshardwriter.c). */
G_GNUC_INTERNAL
void _plan_file_writer_set_shared_rows (PlanFileWriter * writer,
    gint64 total_rows);

G_GNUC_INTERNAL
const gchar * _plan_file_writer_get_shared_target (PlanFileWriter * writer,
    guint64 * chunk_rows, GArray ** h5_chunks, PlanFileCodec * codec,
    guint * level, gint * version);

G_GNUC_INTERNAL
gboolean _plan_file_writer_get_shared_filters (PlanFileWriter * writer,
    PlanH5Filters * filters);

G_GNUC_INTERNAL
gboolean _plan_file_writer_write_shared_chunk (PlanFileWriter * writer,
    guint64 index, guint32 mask, const guint8 * data, gsize size,
    GError ** error);

G_GNUC_INTERNAL
gboolean _plan_file_writer_write_shared_rows (PlanFileWriter * writer,
    guint64 first, const guint8 * data, guint64 n_rows, GError ** error);

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
