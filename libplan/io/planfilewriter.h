/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_FILE_WRITER_H__
#define __PLAN_FILE_WRITER_H__

#ifndef PLAN_USE_UNSTABLE_API
#warning "libplan's file writer API is unstable and may change; define PLAN_USE_UNSTABLE_API to use it without this warning."
#endif

#include <libplan/plan-prelude.h>
#include <libplan/planarrayinfo.h>
#include <libplan/planfileformat.h>

G_BEGIN_DECLS

/**
 * PlanFileWriter:
 *
 * Writes an array file behind its producer on a worker thread of its own
 * and puts it in place atomically; see the planfilewriter section. Opaque;
 * create it with plan_file_writer_new().
 *
 * Since: 0.1
 */
#define PLAN_TYPE_FILE_WRITER (plan_file_writer_get_type ())
PLAN_API
G_DECLARE_FINAL_TYPE (PlanFileWriter, plan_file_writer, PLAN, FILE_WRITER,
    GstObject)

PLAN_API
PlanFileWriter * plan_file_writer_new (void);

PLAN_API
gboolean plan_file_writer_open (PlanFileWriter * writer,
    const gchar * location, PlanFileFormat format, guint max_pending,
    gboolean sync, GError ** error);

PLAN_API
void plan_file_writer_set_dataset (PlanFileWriter * writer,
    const gchar * dataset, guint64 chunk_rows, guint gzip_level);

PLAN_API
void plan_file_writer_set_codec (PlanFileWriter * writer,
    PlanFileCodec codec);

PLAN_API
void plan_file_writer_set_zarr_format (PlanFileWriter * writer,
    guint zarr_format);

PLAN_API
void plan_file_writer_set_member (PlanFileWriter * writer,
    const gchar * member);

PLAN_API
void plan_file_writer_set_mode (PlanFileWriter * writer, PlanFileMode mode);

PLAN_API
PlanFileFormat plan_file_writer_get_format (PlanFileWriter * writer);

PLAN_API
const gchar * plan_file_writer_get_temp_path (PlanFileWriter * writer);

PLAN_API
void plan_file_writer_set_replace_read_only (PlanFileWriter * writer,
    gboolean replace);

PLAN_API
gboolean plan_file_writer_set_info (PlanFileWriter * writer,
    const PlanArrayInfo * info, GError ** error);

PLAN_API
GstFlowReturn plan_file_writer_write (PlanFileWriter * writer,
    GstBuffer * buffer, GError ** error);

PLAN_API
void plan_file_writer_set_flushing (PlanFileWriter * writer,
    gboolean flushing);

PLAN_API
guint64 plan_file_writer_get_bytes_written (PlanFileWriter * writer);

PLAN_API
gboolean plan_file_writer_finish (PlanFileWriter * writer, GError ** error);

PLAN_API
void plan_file_writer_cancel (PlanFileWriter * writer);

G_END_DECLS

#endif /* __PLAN_FILE_WRITER_H__ */
