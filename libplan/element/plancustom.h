/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_CUSTOM_H__
#define __PLAN_CUSTOM_H__

#include <libplan/plan-prelude.h>
#include <libplan/plandtype.h>
#include <libplan/planarray.h>
#include <libplan/planarrayinfo.h>
#include <libplan/plandevice.h>
#include <gmodule.h>

G_BEGIN_DECLS

/**
 * PLAN_CUSTOM_VERSION:
 *
 * The version of #PlanCustomChunk and #PlanCustomFunc. A kernel built
 * against another version is refused when it is loaded, with a message
 * saying both versions.
 *
 * Since: 0.1
 */
#define PLAN_CUSTOM_VERSION 1

/**
 * PLAN_CUSTOM_ERROR_SIZE:
 *
 * The size of #PlanCustomChunk.error, the buffer a kernel writes its error
 * message into.
 *
 * Since: 0.1
 */
#define PLAN_CUSTOM_ERROR_SIZE 256

/**
 * PlanCustomMode:
 * @PLAN_CUSTOM_MODE_MAP: rows in, the same number of rows out: the kernel
 *   computes the output rows of each chunk. Nick `map`.
 * @PLAN_CUSTOM_MODE_REDUCE: the kernel accumulates each chunk into one
 *   output array that persists across chunks; the array is pushed at the
 *   end of the stream. Nick `reduce`.
 *
 * What a custom kernel produces.
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_CUSTOM_MODE_MAP,
  PLAN_CUSTOM_MODE_REDUCE,
} PlanCustomMode;

#define PLAN_TYPE_CUSTOM_MODE (plan_custom_mode_get_type ())
PLAN_API
GType plan_custom_mode_get_type (void);

/**
 * PlanCustomPhase:
 * @PLAN_CUSTOM_PHASE_CHUNK: compute (map) or accumulate (reduce) the rows
 *   of a chunk.
 * @PLAN_CUSTOM_PHASE_INIT: reduce mode only, once before the first chunk:
 *   set the accumulator (#PlanCustomChunk.output, zero-filled) to the
 *   reduction's identity. No inputs.
 * @PLAN_CUSTOM_PHASE_FINISH: reduce mode only, once after the last chunk:
 *   finalize the accumulator in place (divide a sum by a count, say)
 *   before it is pushed. No inputs.
 *
 * Why a kernel is called.
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_CUSTOM_PHASE_CHUNK,
  PLAN_CUSTOM_PHASE_INIT,
  PLAN_CUSTOM_PHASE_FINISH,
} PlanCustomPhase;

#define PLAN_TYPE_CUSTOM_PHASE (plan_custom_phase_get_type ())
PLAN_API
GType plan_custom_phase_get_type (void);

/**
 * PlanCustomBuffer:
 * @data: the first row of the chunk, C-contiguous; for inputs with a
 *   halo, the @halo rows before and after it are readable too
 * @dtype: the element type
 * @ndim: the number of axes of one row (0 for a 1-D stream)
 * @shape: (array length=ndim): the shape of one row
 * @row_size: the size of one row in bytes
 *
 * Rows of one input or of the output, as a kernel sees them.
 *
 * Since: 0.1
 */
typedef struct
{
  gpointer data;
  PlanDType dtype;
  guint ndim;
  const gint64 *shape;
  gsize row_size;

  /*< private >*/
  gpointer _plan_reserved[4];
} PlanCustomBuffer;

/**
 * PlanCustomChunk:
 * @version: #PLAN_CUSTOM_VERSION
 * @phase: why the kernel is called
 * @mode: the element's mode
 * @n_inputs: the number of inputs (0 in the init and finish phases)
 * @inputs: (array length=n_inputs): the inputs' rows, lined up: row `i`
 *   of every input is the same row of the stream
 * @output: map mode: where the chunk's @n_rows output rows go; reduce
 *   mode: the accumulator, the whole result array (its @data holds
 *   `out-shape` elements), kept across chunks
 * @n_rows: the number of rows of the chunk
 * @first_row: the index, in the stream, of the chunk's first row
 * @halo: the rows readable before and after each input's @data, filled by
 *   the boundary mode at the stream's ends
 * @params: (nullable): the element's `params` string
 * @state: (nullable): `state-size` bytes, zero-filled at the start of the
 *   stream and after a flush, kept across chunks (a carried offset, a
 *   count)
 * @state_size: the size of @state
 * @error: a buffer of #PLAN_CUSTOM_ERROR_SIZE bytes: write a message into
 *   it when returning an error
 * @user_data: the data a registered kernel was registered with
 *
 * What a custom kernel is called with. Its buffers are host memory for
 * the CPU kernels. Everything in it is valid for the duration of the call
 * only.
 *
 * Since: 0.1
 */
typedef struct
{
  guint version;
  PlanCustomPhase phase;
  PlanCustomMode mode;
  guint n_inputs;
  const PlanCustomBuffer *inputs;
  const PlanCustomBuffer *output;
  gsize n_rows;
  guint64 first_row;
  guint halo;
  const gchar *params;
  gpointer state;
  gsize state_size;
  gchar *error;
  gpointer user_data;

  /*< private >*/
  gpointer _plan_reserved[8];
} PlanCustomChunk;

/**
 * PlanCustomFunc:
 * @chunk: the rows to compute, and where to put the result
 *
 * A custom kernel for the CPU: from a shared library (declare it with
 * PLAN_CUSTOM_EXPORT()) or registered in the process with
 * plan_custom_register(). It is called from one streaming thread, one
 * chunk at a time, in row order.
 *
 * Returns: 0 on success; any other value is an error, reported with the
 *   message in @chunk->error (or the value when there is none), and stops
 *   the pipeline.
 *
 * Since: 0.1
 */
typedef gint (*PlanCustomFunc) (PlanCustomChunk * chunk);

/**
 * PLAN_CUSTOM_EXPORT:
 * @name: the kernel's symbol
 *
 * Declares and starts the definition of a kernel in a shared library that
 * plancustom loads with `library=... symbol=NAME`, together with the
 * version it was built against:
 *
 * |[<!-- language="C" -->
 * PLAN_CUSTOM_EXPORT (twice)
 * {
 *   const float *in = chunk->inputs[0].data;
 *   float *out = chunk->output->data;
 *   for (gsize i = 0; i < chunk->n_rows; i++)
 *     out[i] = 2 * in[i];
 *   return 0;
 * }
 * ]|
 *
 * Since: 0.1
 */
/* In C++ the kernel and its version get C linkage: plancustom looks them up
 * by their plain names. */
#ifdef __cplusplus
#define PLAN_CUSTOM_EXTERN_C extern "C"
#else
#define PLAN_CUSTOM_EXTERN_C
#endif
#define PLAN_CUSTOM_EXPORT(name) \
  PLAN_CUSTOM_EXTERN_C G_MODULE_EXPORT const guint name##_plan_custom_version = \
      PLAN_CUSTOM_VERSION; \
  PLAN_CUSTOM_EXTERN_C G_MODULE_EXPORT gint name (PlanCustomChunk * chunk); \
  PLAN_CUSTOM_EXTERN_C G_MODULE_EXPORT gint name (PlanCustomChunk * chunk)

/**
 * PlanCustomArrayFunc:
 * @phase: why the kernel is called
 * @inputs: (array length=n_inputs): each input's rows of the chunk, with
 *   the halo rows before and after them: `n_rows + 2 * halo` rows; views
 *   of the stream's memory, read-only, valid during the call
 * @n_inputs: the number of inputs
 * @output: map mode: the chunk's output rows, to fill; reduce mode: the
 *   accumulator, kept across chunks
 * @first_row: the index, in the stream, of the chunk's first row
 * @user_data: (closure): the data given at registration
 * @error: return location for an error
 *
 * A custom kernel on arrays, the form language bindings register
 * (plan_custom_register_arrays()): a Python function receives numpy views
 * of the chunk.
 *
 * Returns: %TRUE on success, %FALSE with @error set to stop the pipeline.
 *   A kernel that sets @error has failed, whatever it returns.
 *
 * Since: 0.1
 */
typedef gboolean (*PlanCustomArrayFunc) (PlanCustomPhase phase,
    PlanArray ** inputs, guint n_inputs, PlanArray * output,
    guint64 first_row, gpointer user_data, GError ** error);

PLAN_API
gboolean plan_custom_register (const gchar * name, PlanCustomFunc func,
    gpointer user_data, GDestroyNotify notify, GError ** error);

PLAN_API
gboolean plan_custom_register_arrays (const gchar * name,
    PlanCustomArrayFunc func, gpointer user_data, GDestroyNotify notify,
    GError ** error);

PLAN_API
gboolean plan_custom_unregister (const gchar * name);

PLAN_API
gboolean plan_custom_is_registered (const gchar * name);

/**
 * PlanCustomKernel:
 *
 * A resolved custom kernel: a registered one or a function loaded from a
 * shared library, ready to call. Not thread-safe: one streaming thread
 * calls it.
 *
 * Since: 0.1
 */
typedef struct _PlanCustomKernel PlanCustomKernel;

PLAN_API
PlanCustomKernel * plan_custom_kernel_new_registered (const gchar * name,
    GError ** error);

PLAN_API
PlanCustomKernel * plan_custom_kernel_new_from_library (const gchar * path,
    const gchar * symbol, GError ** error);

PLAN_API
void plan_custom_kernel_free (PlanCustomKernel * kernel);

PLAN_API
const gchar * plan_custom_kernel_get_name (PlanCustomKernel * kernel);

PLAN_API
gboolean plan_custom_kernel_call (PlanCustomKernel * kernel,
    PlanCustomChunk * chunk, GError ** error);

PLAN_API
gboolean plan_custom_kernel_call_checked (PlanCustomKernel * kernel,
    PlanCustomChunk * chunk, GError ** error);

PLAN_API
gboolean plan_custom_get_output_info (PlanCustomMode mode,
    PlanDType out_dtype, const gchar * out_shape, guint n_inputs,
    const PlanArrayInfo * inputs, PlanArrayInfo * output, GError ** error);

/**
 * PLAN_CUSTOM_CUDA_MAX_INPUTS:
 *
 * The most inputs a CUDA custom kernel takes (the size of the arrays in
 * its `plan_chunk`).
 *
 * Since: 0.1
 */
#define PLAN_CUSTOM_CUDA_MAX_INPUTS 8

/**
 * PlanCustomCudaChunk:
 * @inputs: device pointers to each input's first row of the chunk
 * @input_row_size: each input's row size in bytes
 * @output: device pointer to the chunk's first output row
 * @output_row_size: the output's row size in bytes
 * @n_rows: the chunk's rows
 * @first_row: the index of the chunk's first row in the stream
 * @n_inputs: the number of inputs
 *
 * The host side of `plan_chunk`, the structure a CUDA custom kernel takes
 * by value (plan_custom_cuda_source()).
 *
 * Since: 0.1
 */
typedef struct
{
  gconstpointer inputs[PLAN_CUSTOM_CUDA_MAX_INPUTS];
  guint64 input_row_size[PLAN_CUSTOM_CUDA_MAX_INPUTS];
  gpointer output;
  guint64 output_row_size;
  guint64 n_rows;
  guint64 first_row;
  guint32 n_inputs;
} PlanCustomCudaChunk;

PLAN_API
gchar * plan_custom_cuda_source (const gchar * source,
    const gchar * source_name);

PLAN_API
gboolean plan_custom_cuda_launch (PlanStream * stream, PlanKernel * kernel,
    const PlanCustomCudaChunk * chunk, guint block_size, GError ** error);

G_END_DECLS

#endif /* __PLAN_CUSTOM_H__ */
