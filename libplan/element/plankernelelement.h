/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_KERNEL_ELEMENT_H__
#define __PLAN_KERNEL_ELEMENT_H__

#include <libplan/plan-prelude.h>
#include <libplan/planarrayinfo.h>
#include <libplan/plandevice.h>
#include <libplan/planshard.h>
#include <libplan/planquery.h>
#include <gst/base/gstaggregator.h>
#include <gst/base/gstbasesrc.h>

G_BEGIN_DECLS

/**
 * PlanTarget:
 * @PLAN_TARGET_AUTO: run where the data is: on the device when the input
 *   arrives in device memory or a device is forced (GST_PLAN_DEVICE),
 *   otherwise on the CPU.
 * @PLAN_TARGET_CPU: run on the CPU, on the element's worker threads.
 * @PLAN_TARGET_CUDA: run on the NVIDIA GPU; an error when none is usable.
 *
 * Where a kernel element runs its work.
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_TARGET_AUTO,
  PLAN_TARGET_CPU,
  PLAN_TARGET_CUDA,
} PlanTarget;

#define PLAN_TYPE_TARGET (plan_target_get_type ())
PLAN_API
GType plan_target_get_type (void);

/**
 * PlanChunk:
 * @n_inputs: the number of inputs
 * @data: (array length=n_inputs): for each input, the first of @n_rows rows,
 *   C-contiguous, in the dtype and shape of that input's #PlanArrayInfo
 * @first_row: the index of the first row in the stream
 * @n_rows: the number of rows, at least one
 *
 * Rows of every input lined up: row @first_row of each input is at
 * `data[i]`. The base class builds a chunk from the inputs' buffers
 * without copying, whatever sizes the buffers of each input have.
 *
 * Since: 0.1
 */
typedef struct
{
  guint n_inputs;
  gconstpointer *data;
  guint64 first_row;
  gsize n_rows;

  /*< private >*/
  gpointer _plan_reserved[4];
} PlanChunk;

#define PLAN_TYPE_KERNEL_PAD (plan_kernel_pad_get_type ())
PLAN_API
G_DECLARE_FINAL_TYPE (PlanKernelPad, plan_kernel_pad, PLAN, KERNEL_PAD,
    GstAggregatorPad)

#define PLAN_TYPE_KERNEL_ELEMENT (plan_kernel_element_get_type ())
PLAN_API
G_DECLARE_DERIVABLE_TYPE (PlanKernelElement, plan_kernel_element, PLAN,
    KERNEL_ELEMENT, GstAggregator)

/**
 * PlanKernelElementClass:
 * @parent_class: the parent class
 * @setup: Required. Called from the streaming thread once every input has
 *   caps, and again when caps change. @inputs holds the parsed and
 *   validated #PlanArrayInfo of each input, in pad order. Fill @output with
 *   what the element produces; the base class sets it as the source caps.
 *   Compile expressions and allocate state here. On failure set @error to
 *   a message for the user; the base class posts it as a negotiation
 *   error.
 * @process: Required. Called from the streaming thread with the next rows
 *   of all inputs lined up. Produce output with
 *   plan_kernel_element_alloc_output() and
 *   plan_kernel_element_push_output(), now or later (an element may hold
 *   rows back, as a stencil does for its halo). Return the flow of the
 *   push, or GST_FLOW_ERROR after posting an element error.
 * @finish: Optional. Called from the streaming thread when every input has
 *   ended with the same number of rows, @n_rows, before EOS is sent
 *   downstream: push what was held back (a reduction's result, a
 *   stencil's last rows). Return GST_FLOW_OK or an error flow after
 *   posting an element error. It is also called at the end of a segment
 *   seek's range (SEGMENT_DONE from every input, passed on after what it
 *   pushes) and, on an element of one input, when a new stream begins with
 *   no EOS before it (a STREAM_START of another stream id, as concat
 *   sends), for the range or stream before; @reset follows before the
 *   next rows.
 * @reset: Optional. Called from the streaming thread on a flush, when
 *   stopping, and when a new segment selects rows to compute on (a seek):
 *   forget the rows seen so far (a reduction's accumulation, a stencil's
 *   halo), as at the start of a stream.
 * @launch: Optional, for elements whose output rows are computed from the
 *   same rows of their inputs (maps). Called from the streaming thread
 *   instead of @process when the element's output is in device memory
 *   (target=cuda, or GST_PLAN_DEVICE set; see docs/device.md): queue the
 *   work for @chunk on @stream, without waiting, with
 *   plan_stream_launch_host_kernel() (sim and cpu devices) or
 *   plan_stream_launch_kernel() (cuda), and return. @chunk's data and
 *   @output (@chunk->n_rows rows of the output info) are device pointers,
 *   never to be dereferenced on the host. The base class has made @stream
 *   wait for the inputs' ready events, records the output's ready event and
 *   the inputs' use events after the launch, and pushes the output. Return
 *   %FALSE with @error set when the launch failed, or with
 *   %PLAN_ERROR_UNSUPPORTED when this device cannot run the element's
 *   kernel: the base class then falls back to @process on host copies.
 *   (Since: 0.1)
 * @host_slice_bytes: Optional, 0 by default. When set, @process gets at
 *   most this many bytes of the widest input or output row at a time on
 *   the host, the rest of a chunk in later calls: an element that pushes
 *   an output buffer per call (a map) then hands downstream buffers that
 *   are still in the CPU's caches when they are read, however large the
 *   chunks upstream are. Leave it 0 for elements that only accumulate
 *   (reductions), which are best served by whole chunks. (Since: 0.1)
 * @output_range: Optional. Called from the streaming thread when the
 *   inputs' segment selects rows [@first, @end) of the stream (@end -1: to
 *   its end), at the start and after a seek, before the first rows of the
 *   range reach @process: set the output rows the element makes of them,
 *   [*@out_first, *@out_end) (*@out_end -1 when not known), numbered as
 *   the offsets of the output buffers will be. The base class numbers the
 *   output from *@out_first and sends that range downstream as the
 *   segment. Without it the output rows are the input rows (a map).
 *   (Since: 0.1)
 * @launch_pushes: Optional, %FALSE by default. When %TRUE, @launch gets
 *   @output %NULL and makes its outputs itself, any number of rows, as
 *   @process does (a stencil holding back its halo): it takes device
 *   buffers from plan_kernel_element_alloc_device_output(), queues its
 *   kernel, records each buffer's ready event on @stream
 *   (plan_buffer_record_ready()) and pushes it with
 *   plan_kernel_element_push_output(). @finish then finds the stream with
 *   plan_kernel_element_get_stream(). (Since: 0.1)
 * @launch_consumes: Optional, %FALSE by default. Set by a class whose
 *   @launch consumes the rows without making output rows of them (a
 *   reduction): @launch is then called whenever the element runs on a
 *   device, whatever memory its output is in, with @output %NULL; the
 *   element pushes what it produces itself (from @finish, or from @launch
 *   with plan_kernel_element_push_output(), whose flow the base class
 *   returns). (Since: 0.1)
 * @input_chunk_bytes: Optional, 0 by default. The size of the chunks the
 *   element would like from upstream when it computes on the CPU, offered
 *   in the allocation query as a pool size without a pool: a source that
 *   chooses its own chunk size (planfilesrc with `blocksize=0`, mapping a
 *   file) takes it. Larger chunks mean fewer hand-offs between threads per
 *   byte and more of the file mapped at a time: worth it for an element
 *   that only accumulates (a reduction), not one that makes output of the
 *   same size. (Since: 0.1)
 * @check_settings: Optional. Called when the element starts (READY to
 *   PAUSED), before any data: return %FALSE with @error set, naming the
 *   property and the value, when a property holds a value that cannot work
 *   whatever the input (an expression that does not parse, a dtype that
 *   does not exist). Properties keep what was set, so that reading them
 *   back gives what the user wrote; the base class posts @error as a
 *   library / settings error and the state change fails. (Since: 0.1)
 * @shard: optional: the input is one rank's share of a stream sharded
 *   across an MPI job (a #PLAN_EVENT_SHARD event, before its first rows):
 *   prepare to work across the ranks and fill @output with what the
 *   output is, or return %FALSE with @error set. Without it the output is
 *   sharded as the input. A failure of the element in a sharded run tells
 *   the other ranks (plan_shard_abort()). (Since: 0.1)
 *
 * A base class for elements that compute on array streams. It owns caps
 * negotiation of `array/x-raw`, lines up chunks of several inputs by row
 * index without copying, checks row offsets and that all inputs have the
 * same length at EOS, flushing, worker threads (`n-threads`) and the
 * `target` property. A subclass adds its sink pad templates with
 * plan_kernel_element_class_add_pad_templates() and implements @setup and
 * @process.
 *
 * Since: 0.1
 */
struct _PlanKernelElementClass
{
  GstAggregatorClass parent_class;

  gboolean (*setup) (PlanKernelElement * self, guint n_inputs,
      const PlanArrayInfo * inputs, PlanArrayInfo * output, GError ** error);
  GstFlowReturn (*process) (PlanKernelElement * self, const PlanChunk * chunk);
  GstFlowReturn (*finish) (PlanKernelElement * self, guint64 n_rows);
  void (*reset) (PlanKernelElement * self);
  gboolean (*launch) (PlanKernelElement * self, const PlanChunk * chunk,
      gpointer output, PlanStream * stream, GError ** error);

  gsize host_slice_bytes;

  void (*output_range) (PlanKernelElement * self, guint64 first, gint64 end,
      guint64 * out_first, gint64 * out_end);

  gboolean launch_pushes;
  gboolean launch_consumes;
  gboolean (*check_settings) (PlanKernelElement * self, GError ** error);
  gboolean (*shard) (PlanKernelElement * self, const PlanShardInfo * input,
      PlanShardInfo * output, GError ** error);
  gsize input_chunk_bytes;

  /*< private >*/
  gpointer _plan_reserved[5];
};

/**
 * PLAN_EVENT_STREAM_FAILED:
 *
 * The name of the structure of a custom serialized downstream event
 * (%GST_EVENT_CUSTOM_DOWNSTREAM) that an element sends before the EOS
 * that ends a stream it could not produce, after posting the error that
 * says why (planfilesrc, when downstream refuses its caps). Kernel
 * elements and planfilesink then end without an error of their own about
 * the missing data, so that the pipeline has one error. Since: 0.1
 */
#define PLAN_EVENT_STREAM_FAILED "plan-stream-failed"

/**
 * PLAN_EOS_ENDED_EARLY:
 *
 * The name of a #guint64 field in the structure of an EOS event that ends
 * a stream on purpose before its last row: the application sent the EOS
 * to the source (gst_element_send_event(), `gst-launch-1.0 -e` and
 * Ctrl-C, gst-validate's scenarios). The value is the row at which the
 * stream ends (GST_BUFFER_OFFSET_END of the last buffer sent before it).
 * planfilesrc marks such an EOS; kernel elements then give their result
 * over the rows received and mark the EOS they send on; planfilesink and
 * npymux write an array of the rows received. An EOS without the field
 * that comes before the rows announced is a stream cut short (an error
 * upstream, a source's num-buffers), an error. Since: 0.1
 */
#define PLAN_EOS_ENDED_EARLY "plan-ended-early"

PLAN_API
GstEvent *plan_eos_mark_ended_early (GstEvent * eos, guint64 end_row);

PLAN_API
gboolean plan_eos_is_ended_early (GstEvent * eos, guint64 * end_row);

/**
 * PlanEosEndRowFunc:
 * @src: the source given to plan_eos_watch_source()
 *
 * Returns the row at which a stream that the application ends now would
 * end: GST_BUFFER_OFFSET_END of the last buffer @src made, or the start
 * of the range it seeked to when it made none since. Called from the
 * streaming thread, with the STREAM_LOCK held.
 *
 * Returns: that row.
 * Since: 0.1
 */
typedef guint64 (*PlanEosEndRowFunc) (GstBaseSrc * src);

PLAN_API
void plan_eos_watch_source (GstBaseSrc * src, PlanEosEndRowFunc end_row_func);

PLAN_API
GstEvent *plan_eos_mark_sent_to_source (GstBaseSrc * src, GstEvent * event);

PLAN_API
gboolean plan_kernel_element_get_shard (PlanKernelElement * self,
    PlanShardInfo * info);

PLAN_API
void plan_kernel_element_class_add_pad_templates (PlanKernelElementClass *
    klass, gboolean request_sink_pads);

PLAN_API
GstFlowReturn plan_kernel_element_alloc_output (PlanKernelElement * self,
    gsize n_rows, GstBuffer ** buffer);

PLAN_API
GstFlowReturn plan_kernel_element_push_output (PlanKernelElement * self,
    GstBuffer * buffer);

PLAN_API
guint plan_kernel_element_get_n_threads (PlanKernelElement * self);

PLAN_API
PlanTarget plan_kernel_element_get_target (PlanKernelElement * self);

PLAN_API
guint plan_kernel_element_get_n_inputs (PlanKernelElement * self);

PLAN_API
gboolean plan_kernel_element_alloc_device_output (PlanKernelElement * self,
    gsize n_rows, GstBuffer ** buffer, gpointer * device_ptr,
    GError ** error);

PLAN_API
PlanStream *plan_kernel_element_get_stream (PlanKernelElement * self);

PLAN_API
gboolean plan_kernel_element_read_end_rows (PlanKernelElement * self,
    guint index, gsize n_rows, guint64 * total, GstBuffer ** buffer,
    GError ** error);

PLAN_API
gboolean plan_kernel_element_refuse_live_set (PlanKernelElement * self,
    GParamSpec * pspec);

PLAN_API
void plan_kernel_element_keep_setting (PlanKernelElement * self,
    const gchar * name, gchar ** field, const gchar * value,
    GError ** rejected, GError * why);

PLAN_API
const PlanArrayInfo *plan_kernel_element_get_input_info (PlanKernelElement *
    self, guint index);

PLAN_API
const PlanArrayInfo *plan_kernel_element_get_output_info (PlanKernelElement *
    self);

PLAN_API
const gchar *plan_kernel_element_get_input_name (PlanKernelElement * self,
    guint index);

PLAN_API
const gchar *plan_kernel_element_get_input_variable (PlanKernelElement *
    self, guint index);

PLAN_API
const gchar *plan_kernel_element_get_input_window (PlanKernelElement *
    self, guint index);

PLAN_API
gboolean plan_kernel_element_get_input_range (PlanKernelElement * self,
    guint index, guint64 * first, gint64 * end);

G_END_DECLS

#endif /* __PLAN_KERNEL_ELEMENT_H__ */
