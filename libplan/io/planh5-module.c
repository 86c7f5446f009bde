/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The entry point of the HDF5 module (libplan-hdf5.so, built from this
 * file, planh5.c and planh5-writer.c): the table of their functions that
 * libplan calls through (planh5-load.c). Nothing else of the module is
 * exported. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/core/plan-private.h"

#include <gmodule.h>

static const PlanH5Module table = {
  PLAN_H5_MODULE_VERSION,
  sizeof (PlanH5Module),
  _plan_h5_dataset_open,
  _plan_h5_dataset_get_path,
  _plan_h5_dataset_read_rows,
  _plan_h5_dataset_decodes_here,
  _plan_h5_dataset_maps_chunks,
  _plan_h5_dataset_chunk_offset,
  _plan_h5_dataset_close,
  _plan_h5_writer_create,
  _plan_h5_writer_create_full,
  _plan_h5_writer_get_chunks,
  _plan_h5_writer_append,
  _plan_h5_writer_close,
  _plan_h5_writer_get_filters,
  _plan_h5_chunk_encode,
  _plan_h5_writer_write_chunk,
  _plan_h5_writer_write_rows,
  _plan_h5_dataset_get_elsewhere,
};

G_MODULE_EXPORT const PlanH5Module *plan_h5_module_get (void);

G_MODULE_EXPORT const PlanH5Module *
plan_h5_module_get (void)
{
  return &table;
}
