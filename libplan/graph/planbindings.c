/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planbindings
 * @title: PlanBindings
 * @short_description: what one dispatch of a work reads and writes
 *
 * A #PlanBindings maps the names of a work's sources and outputs to their
 * data for one plan_work_dispatch():
 *
 * - plan_bindings_set_array(): an in-memory #PlanArray. A source's array
 *   is read where it is, without a copy; an output's array receives the
 *   result, which must fit it exactly.
 * - plan_bindings_set_file(): a `.npy` file, read by planfilesrc (read
 *   ahead, mapped) or written by planfilesink (written behind, renamed
 *   into place at the end, never left half-written under its name).
 *   plan_bindings_set_raw_file() reads a file of bare data.
 * - plan_bindings_set_reader() / plan_bindings_set_writer(): an
 *   application's callbacks that produce or consume chunks of rows.
 *
 * Names are checked against the work at dispatch, not here. A dispatch
 * takes the bindings as they are when it is made, also one that waits its
 * turn behind a running one: the same object may be changed and dispatched
 * again at once.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "graph-private.h"

#include <string.h>

struct _PlanBindings
{
  GObject parent;

  GHashTable *table;            /* name -> PlanBinding; no lock: one thread */
};

G_DEFINE_TYPE (PlanBindings, plan_bindings, G_TYPE_OBJECT);

static gint
sort_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const gchar * const *) a, *(const gchar * const *) b);
}

PlanBinding *
_plan_binding_ref (PlanBinding * binding)
{
  g_atomic_int_inc (&binding->refcount);
  return binding;
}

void
_plan_binding_unref (PlanBinding * binding)
{
  if (!g_atomic_int_dec_and_test (&binding->refcount))
    return;
  if (binding->notify)
    binding->notify (binding->user_data);
  g_clear_object (&binding->array);
  g_free (binding->location);
  g_free (binding->dataset);
  g_free (binding);
}

static void
plan_bindings_finalize (GObject * object)
{
  g_hash_table_unref (PLAN_BINDINGS (object)->table);
  G_OBJECT_CLASS (plan_bindings_parent_class)->finalize (object);
}

static void
plan_bindings_class_init (PlanBindingsClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = plan_bindings_finalize;
}

static void
plan_bindings_init (PlanBindings * self)
{
  self->table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      (GDestroyNotify) _plan_binding_unref);
}

/**
 * plan_bindings_new:
 *
 * Returns: (transfer full): an empty set of bindings.
 *
 * Since: 0.1
 */
PlanBindings *
plan_bindings_new (void)
{
  return g_object_new (PLAN_TYPE_BINDINGS, NULL);
}

static PlanBinding *
binding_new (PlanBindings * self, const gchar * name, PlanBindingKind kind)
{
  PlanBinding *binding = g_new0 (PlanBinding, 1);

  binding->refcount = 1;
  binding->kind = kind;
  g_hash_table_replace (self->table, g_strdup (name), binding);
  return binding;
}

/* A raw file's or reader's layout as given; more axes than an array has
 * are kept as a number only, for the dispatch to refuse. */
static void
set_layout (PlanBinding * binding, PlanDType dtype, guint ndim,
    const gint64 * shape)
{
  binding->info.dtype = dtype;
  binding->ndim_given = ndim;
  if (ndim > PLAN_ARRAY_MAX_DIMS)
    return;
  binding->info.ndim = ndim;
  if (ndim > 0)
    memcpy (binding->info.shape, shape, ndim * sizeof (gint64));
}

/**
 * plan_bindings_set_array:
 * @bindings: a #PlanBindings
 * @name: a source's or an output's name
 * @array: the array: read in place for a source; for an output, written
 *   into, and then of the output's exact dtype and shape (a single value
 *   or a reduction's values: its dtype and number of elements)
 *
 * Binds @name to an in-memory array. The dispatch keeps a reference to
 * @array while it runs. An output array must not share memory with a
 * source's array, a map's constant or another output's array: the
 * dispatch refuses it.
 *
 * Since: 0.1
 */
void
plan_bindings_set_array (PlanBindings * bindings, const gchar * name,
    PlanArray * array)
{
  g_return_if_fail (PLAN_IS_BINDINGS (bindings));
  g_return_if_fail (name != NULL);
  g_return_if_fail (PLAN_IS_ARRAY (array));

  binding_new (bindings, name, PLAN_BINDING_ARRAY)->array =
      g_object_ref (array);
}

/**
 * plan_bindings_set_file:
 * @bindings: a #PlanBindings
 * @name: a source's or an output's name
 * @location: (type filename): the file: a `.npy` file for a source; for an
 *   output, written as `.npy` when @location ends in `.npy` and as bare
 *   data otherwise
 *
 * Binds @name to a file, read by planfilesrc or written by planfilesink.
 *
 * Since: 0.1
 */
void
plan_bindings_set_file (PlanBindings * bindings, const gchar * name,
    const gchar * location)
{
  g_return_if_fail (PLAN_IS_BINDINGS (bindings));
  g_return_if_fail (name != NULL);
  g_return_if_fail (location != NULL);

  binding_new (bindings, name, PLAN_BINDING_FILE)->location =
      g_strdup (location);
}

/**
 * plan_bindings_set_file_dataset:
 * @bindings: a #PlanBindings
 * @name: a source's or an output's name
 * @location: (type filename): the file: for a source, a `.npy`, `.npz`,
 *   HDF5 (NetCDF-4) file or a Zarr store's directory; for an output, an
 *   HDF5 file (by its extension `.h5`, `.hdf5` or `.nc`), a Zarr store
 *   (`.zarr`), a `.npz`, or any name planfilesink takes
 * @dataset: (nullable): the array in the file: a `.npz` member ("temps"),
 *   an HDF5 dataset's path ("/obs/temps"), a Zarr group's array; %NULL for
 *   the file's only one (a source), "/data" (an HDF5 output), the store
 *   itself (a Zarr output) or "arr_0" (a `.npz` output)
 *
 * Binds @name to one array of a file that holds several, read by
 * planfilesrc (its format chosen by the file's content, its `member` and
 * `dataset` set to @dataset) or written by planfilesink (its `dataset`,
 * and its `member` for a .npz).
 *
 * Since: 0.1
 */
void
plan_bindings_set_file_dataset (PlanBindings * bindings, const gchar * name,
    const gchar * location, const gchar * dataset)
{
  PlanBinding *binding;

  g_return_if_fail (PLAN_IS_BINDINGS (bindings));
  g_return_if_fail (name != NULL);
  g_return_if_fail (location != NULL);

  binding = binding_new (bindings, name, PLAN_BINDING_FILE);
  binding->location = g_strdup (location);
  binding->in_container = TRUE;
  binding->dataset = g_strdup (dataset);
}

/**
 * plan_bindings_set_raw_file:
 * @bindings: a #PlanBindings
 * @name: a source's or an output's name
 * @location: (type filename): the file
 * @dtype: the dtype of its elements
 * @ndim: the number of axes
 * @shape: (array length=ndim): its shape; the outermost axis may be -1 to
 *   take the rows from the file's size
 *
 * Binds the source @name to a file of bare data, C order, native byte
 * order (planfilesrc `format=raw`), or the output @name to one written so
 * (planfilesink `format=raw`, whatever the extension of @location): its
 * @dtype and @shape are then checked at dispatch against the output's,
 * which they must be exactly (the outermost axis -1: any number of rows).
 * A layout that no array has (an @ndim past %PLAN_ARRAY_MAX_DIMS, a
 * @dtype that is none) is refused by the dispatch, with an error naming
 * @name.
 *
 * Since: 0.1
 */
void
plan_bindings_set_raw_file (PlanBindings * bindings, const gchar * name,
    const gchar * location, PlanDType dtype, guint ndim,
    const gint64 * shape)
{
  PlanBinding *binding;

  g_return_if_fail (PLAN_IS_BINDINGS (bindings));
  g_return_if_fail (name != NULL);
  g_return_if_fail (location != NULL);
  g_return_if_fail (ndim == 0 || shape != NULL);

  binding = binding_new (bindings, name, PLAN_BINDING_RAW_FILE);
  binding->location = g_strdup (location);
  set_layout (binding, dtype, ndim, shape);
}

/**
 * plan_bindings_set_reader:
 * @bindings: a #PlanBindings
 * @name: a source's name
 * @dtype: the dtype of the arrays @func returns
 * @ndim: their number of axes
 * @shape: (array length=ndim): the shape of the whole stream: the
 *   outermost axis is its number of rows, or -1 when not known
 * @func: (scope notified) (closure user_data) (destroy notify): returns
 *   the next rows, called on the source's streaming thread
 * @user_data: data for @func
 * @notify: (nullable): frees @user_data when the binding is dropped
 *
 * Binds the source @name to an application's chunk reader: the design's
 * `io.connect(a, reader)`. See #PlanChunkReadFunc. A layout that no array
 * has (an @ndim past %PLAN_ARRAY_MAX_DIMS, a @dtype that is none) is
 * refused by the dispatch, with an error naming @name.
 *
 * Since: 0.1
 */
void
plan_bindings_set_reader (PlanBindings * bindings, const gchar * name,
    PlanDType dtype, guint ndim, const gint64 * shape,
    PlanChunkReadFunc func, gpointer user_data, GDestroyNotify notify)
{
  PlanBinding *binding;

  g_return_if_fail (PLAN_IS_BINDINGS (bindings));
  g_return_if_fail (name != NULL);
  g_return_if_fail (func != NULL);
  g_return_if_fail (ndim == 0 || shape != NULL);

  binding = binding_new (bindings, name, PLAN_BINDING_READER);
  set_layout (binding, dtype, ndim, shape);
  binding->read = func;
  binding->user_data = user_data;
  binding->notify = notify;
}

/**
 * plan_bindings_set_writer:
 * @bindings: a #PlanBindings
 * @name: an output's name
 * @func: (scope notified) (closure user_data) (destroy notify): receives
 *   the output's rows in order, called on the sink's streaming thread
 * @user_data: data for @func
 * @notify: (nullable): frees @user_data when the binding is dropped
 *
 * Binds the output @name to an application's chunk writer: the design's
 * `io.connect(f, writer)`. See #PlanChunkWriteFunc.
 *
 * Since: 0.1
 */
void
plan_bindings_set_writer (PlanBindings * bindings, const gchar * name,
    PlanChunkWriteFunc func, gpointer user_data, GDestroyNotify notify)
{
  PlanBinding *binding;

  g_return_if_fail (PLAN_IS_BINDINGS (bindings));
  g_return_if_fail (name != NULL);
  g_return_if_fail (func != NULL);

  binding = binding_new (bindings, name, PLAN_BINDING_WRITER);
  binding->write = func;
  binding->user_data = user_data;
  binding->notify = notify;
}

/**
 * plan_bindings_get_names:
 * @bindings: a #PlanBindings
 *
 * Returns: (transfer full) (array zero-terminated=1): the bound names,
 *   sorted.
 *
 * Since: 0.1
 */
gchar **
plan_bindings_get_names (PlanBindings * bindings)
{
  g_return_val_if_fail (PLAN_IS_BINDINGS (bindings), NULL);
  return _plan_sorted_names (bindings->table);
}

gchar **
_plan_sorted_names (GHashTable * table)
{
  GPtrArray *names = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (names, g_strdup (key));
  g_ptr_array_sort (names, sort_names);
  g_ptr_array_add (names, NULL);
  return (gchar **) g_ptr_array_free (names, FALSE);
}

/* A dispatch that waits its turn runs on the bindings as they were when
 * it was made: the caller may change or reuse its own object at once. The
 * copy shares the bindings themselves, which never change once made. */
PlanBindings *
_plan_bindings_copy (PlanBindings * bindings)
{
  PlanBindings *copy = plan_bindings_new ();
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, bindings->table);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_insert (copy->table, g_strdup (key),
        _plan_binding_ref (value));
  return copy;
}

PlanBinding *
_plan_bindings_lookup (PlanBindings * bindings, const gchar * name)
{
  return bindings ? g_hash_table_lookup (bindings->table, name) : NULL;
}
