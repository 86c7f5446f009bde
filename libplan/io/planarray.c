/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:planarray
 * @title: PlanArray
 * @short_description: an n-dimensional array in host memory, owned or
 *   wrapped without a copy
 *
 * A #PlanArray is what a plan reads from and writes to when it is bound to
 * memory rather than to a file: a #PlanDType, a shape whose outermost axis
 * (the number of rows) is known, and C-contiguous data in the machine's
 * byte order. A 0-d array (no axes) holds one value and counts as one row.
 *
 * - plan_array_new() allocates zero-filled data the array owns, aligned to
 *   64 bytes (to a page from 1 MiB on). Blocks of 4 MiB and more are kept
 *   for reuse when their array is finalized, up to 1 GiB in all (the
 *   `PLAN_ARRAY_CACHE` environment variable sets the limit in bytes; 0
 *   keeps none): a new array of the same size takes one instead of fresh
 *   memory, which the kernel would have to fault in and clear page by
 *   page. A plan dispatched again and again on results of the same shape
 *   then writes into memory that is already mapped.
 * - plan_array_new_wrapped() wraps memory the caller owns, without
 *   copying it, and calls the caller's notify when the array is finalized.
 * - plan_array_new_from_bytes() wraps a #GBytes, read-only.
 *
 * plan_array_get_bytes() gives the data as a #GBytes, again without a
 * copy, that keeps the array alive, for APIs (and languages, through
 * GObject introspection) that take a #GBytes.
 *
 * The dtype, the shape and the data pointer never change after
 * construction, so they may be read from any thread without a lock.
 * Writing to the data of a writable array while another thread reads it
 * is the caller's business: the array does not lock its data.
 *
 * |[<!-- language="C" -->
 * gint64 shape[] = { 1000, 3 };
 * GError *error = NULL;
 * PlanArray *a = plan_array_new (PLAN_DTYPE_FLOAT32, 2, shape, &error);
 * gfloat *v = plan_array_get_writable_data (a, NULL);
 *
 * v[3 * 10 + 2] = 1.0f;       // row 10, column 2
 * ...
 * g_object_unref (a);
 * ]|
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/core/plan-private.h"

#include <libplan/planerror.h>
#include <libplan/planfileformat.h>
#include <libplan/plannpy.h>
#include <libplan/plandevicememory.h>

#include <stdlib.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (plan_array_debug);
#define GST_CAT_DEFAULT plan_array_debug

/* Owned data is aligned for vector loads, and from 1 MiB on to a page, so
 * that large arrays can be registered for DMA (pinned) as they are. */
#define SMALL_ALIGN 64
#define LARGE_ALIGN 4096
#define LARGE_SIZE (1 << 20)
/* Arrays of a few huge pages start on one and ask for them, as numpy's
 * large arrays do: writing a fresh 256 MiB array then takes 128 page
 * faults instead of 65536 (0.038 s against 0.097 s on the development
 * machine). */
#define HUGE_ALIGN (2 << 20)
#define HUGE_SIZE (4 << 20)

/* ---------------------------------------------------------------------
 * Reusing large blocks
 * --------------------------------------------------------------------- */

#define DEFAULT_CACHE_LIMIT (G_GUINT64_CONSTANT (1) << 30)

typedef struct
{
  gpointer data;
  gsize size;
} Block;

static GMutex cache_lock;
static GQueue cache_blocks = G_QUEUE_INIT;    /* Block, oldest first */
static gsize cache_bytes;

static gsize
cache_limit (void)
{
  static gsize limit;

  if (g_once_init_enter (&limit)) {
    const gchar *env = g_getenv ("PLAN_ARRAY_CACHE");
    guint64 value = DEFAULT_CACHE_LIMIT;

    if (env != NULL && !g_ascii_string_to_unsigned (env, 10, 0, G_MAXSIZE,
            &value, NULL))
      g_warning ("PLAN_ARRAY_CACHE=%s is not a number of bytes; keeping "
          "up to %" G_GUINT64_FORMAT " bytes of freed arrays", env,
          value = DEFAULT_CACHE_LIMIT);
    /* g_once_init_leave takes no 0: 1 byte keeps no block either. */
    g_once_init_leave (&limit, MAX (value, 1));
  }
  return limit;
}

/* A kept block of exactly @size bytes, or NULL. */
static gpointer
take_block (gsize size)
{
  gpointer data = NULL;
  GList *l;

  if (size < HUGE_SIZE)
    return NULL;
  g_mutex_lock (&cache_lock);
  for (l = cache_blocks.tail; l != NULL; l = l->prev) {
    Block *block = l->data;

    if (block->size == size) {
      data = block->data;
      cache_bytes -= size;
      g_queue_delete_link (&cache_blocks, l);
      g_free (block);
      break;
    }
  }
  g_mutex_unlock (&cache_lock);
  return data;
}

/* Keeps @data for reuse, dropping the oldest blocks beyond the limit, or
 * frees it. */
static void
give_block (gpointer data, gsize size)
{
  gsize limit = cache_limit ();
  GSList *drop = NULL, *l;
  Block *block;

  if (size < HUGE_SIZE || size > limit) {
    free (data);
    return;
  }
  block = g_new (Block, 1);
  block->data = data;
  block->size = size;
  g_mutex_lock (&cache_lock);
  g_queue_push_tail (&cache_blocks, block);
  cache_bytes += size;
  while (cache_bytes > limit) {
    Block *old = g_queue_pop_head (&cache_blocks);

    cache_bytes -= old->size;
    drop = g_slist_prepend (drop, old);
  }
  g_mutex_unlock (&cache_lock);
  for (l = drop; l != NULL; l = l->next) {
    free (((Block *) l->data)->data);
    g_free (l->data);
  }
  g_slist_free (drop);
}


enum
{
  PROP_0,
  PROP_DTYPE,
  PROP_N_ROWS,
};

struct _PlanArray
{
  GObject parent;

  /* construct-only, no lock */
  PlanArrayInfo info;
  gpointer data;
  gsize size;
  gboolean writable;
  gboolean owned;               /* data from posix_memalign(), freed here */
  GBytes *bytes;                /* the wrapped bytes, or NULL */
  gpointer user_data;           /* for notify, when wrapping */
  GDestroyNotify notify;
  GstMemory *memory;            /* an array in device memory: no data */
};

G_DEFINE_TYPE (PlanArray, plan_array, G_TYPE_OBJECT);

static void plan_array_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void plan_array_finalize (GObject * object);

/* The text form of an array in a structure (gst-launch-1.0 -m, debug
 * logs): what it holds, "float64 array of shape (4,)". Without it
 * GStreamer writes the field as NULL and logs a warning that it cannot
 * serialize it. */
static void
plan_array_transform_to_string (const GValue * src, GValue * dest)
{
  PlanArray *self = g_value_get_object (src);
  gchar *shape;

  /* No array: no text, as GStreamer writes any other empty field. */
  if (self == NULL) {
    g_value_set_string (dest, NULL);
    return;
  }
  shape = plan_shape_to_string (self->info.ndim, self->info.shape);
  g_value_take_string (dest, g_strdup_printf ("%s array of shape %s",
          plan_dtype_to_string (self->info.dtype), shape));
  g_free (shape);
}

static void
plan_array_class_init (PlanArrayClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  g_value_register_transform_func (PLAN_TYPE_ARRAY, G_TYPE_STRING,
      plan_array_transform_to_string);

  GST_DEBUG_CATEGORY_INIT (plan_array_debug, "planarray", 0,
      "arrays in memory");

  gobject_class->get_property = plan_array_get_property;
  gobject_class->finalize = plan_array_finalize;

  /**
   * PlanArray:dtype:
   *
   * The element type of the array.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_DTYPE,
      g_param_spec_enum ("dtype", "Element type",
          "The numpy dtype of the array's elements", PLAN_TYPE_DTYPE,
          PLAN_DTYPE_UNKNOWN, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /**
   * PlanArray:n-rows:
   *
   * The number of rows: the extent of the outermost axis, 1 for a 0-d
   * array.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_N_ROWS,
      g_param_spec_int64 ("n-rows", "Number of rows",
          "The extent of the outermost axis (1 for a 0-d array)", 0,
          G_MAXINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

static void
plan_array_init (PlanArray * self)
{
  plan_array_info_init (&self->info);
}

static void
plan_array_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  PlanArray *self = PLAN_ARRAY (object);

  switch (prop_id) {
    case PROP_DTYPE:
      g_value_set_enum (value, self->info.dtype);
      break;
    case PROP_N_ROWS:
      g_value_set_int64 (value, plan_array_info_get_n_rows (&self->info));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
plan_array_finalize (GObject * object)
{
  PlanArray *self = PLAN_ARRAY (object);

  if (self->memory)
    gst_memory_unref (self->memory);
  else if (self->bytes)
    g_bytes_unref (self->bytes);
  else if (self->notify)
    self->notify (self->user_data);
  else if (self->owned)
    give_block (self->data, self->size);

  G_OBJECT_CLASS (plan_array_parent_class)->finalize (object);
}

/* Validates a dtype and a shape for an array and computes the size of its
 * data. */
static gboolean
check_shape (PlanArrayInfo * info, PlanDType dtype, guint ndim,
    const gint64 * shape, gsize * size, GError ** error)
{
  gint64 n_rows;
  gsize row_size;

  if (!plan_array_info_set (info, dtype, ndim, shape, error))
    return FALSE;

  n_rows = plan_array_info_get_n_rows (info);
  if (n_rows < 0)
    goto unknown_rows;
  row_size = plan_array_info_get_row_size (info);
  if ((guint64) n_rows > G_MAXSIZE / row_size)
    goto too_large;

  *size = row_size * (gsize) n_rows;
  return TRUE;

  /* ERRORS */
unknown_rows:
  {
    gchar *s = plan_shape_to_string (ndim, shape);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "an array of shape %s has an unknown number of rows (-1); an "
        "array's rows must be known", s);
    g_free (s);
    return FALSE;
  }
too_large:
  {
    gchar *s = plan_shape_to_string (ndim, shape);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "an array of shape %s is too large to address in memory", s);
    g_free (s);
    return FALSE;
  }
}

static PlanArray *array_alloc (PlanDType dtype, guint ndim,
    const gint64 * shape, gboolean zero, GError ** error);

/**
 * plan_array_new:
 * @dtype: the element type
 * @ndim: the number of axes, 0 for a single value
 * @shape: (array length=ndim) (nullable): the shape, outermost axis first;
 *   %NULL when @ndim is 0
 * @error: return location for a #GError
 *
 * Allocates an array whose elements are all zero. Its data is aligned to
 * 64 bytes, and to 4096 bytes (a page) when it is 1 MiB or more.
 *
 * The outermost axis must be known: a `shape[0]` of -1 is refused with
 * %PLAN_ERROR_INVALID_ARGUMENT, as are the shapes plan_array_info_set()
 * refuses. An array that cannot be allocated fails with %PLAN_ERROR_IO.
 *
 * Returns: (transfer full) (nullable): a new writable array, or %NULL
 *   with @error set.
 *
 * Since: 0.1
 */
PlanArray *
plan_array_new (PlanDType dtype, guint ndim, const gint64 * shape,
    GError ** error)
{
  g_return_val_if_fail (ndim == 0 || shape != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return array_alloc (dtype, ndim, shape, TRUE, error);
}

/* An array whose contents are left as they come, for results that fill
 * it whole: the plan API's unbound outputs of known shape. */
PlanArray *
_plan_array_new_uninitialized (const PlanArrayInfo * info, GError ** error)
{
  return array_alloc (info->dtype, info->ndim, info->shape, FALSE, error);
}

static PlanArray *
array_alloc (PlanDType dtype, guint ndim, const gint64 * shape,
    gboolean zero, GError ** error)
{
  PlanArrayInfo info;
  PlanArray *self;
  gpointer data;
  gsize size;

  if (!check_shape (&info, dtype, ndim, shape, &size, error))
    return NULL;

  /* At least one byte, so that even an empty array has a data pointer. */
  if ((data = take_block (size)) != NULL)
    GST_LOG ("reusing a block of %" G_GSIZE_FORMAT " bytes", size);
  else if (posix_memalign (&data, size >= HUGE_SIZE ? HUGE_ALIGN :
          size >= LARGE_SIZE ? LARGE_ALIGN : SMALL_ALIGN, MAX (size, 1)) != 0)
    goto no_memory;
#ifdef MADV_HUGEPAGE
  else if (size >= HUGE_SIZE)
    madvise (data, size, MADV_HUGEPAGE);
#endif
  if (zero)
    memset (data, 0, size);

  self = g_object_new (PLAN_TYPE_ARRAY, NULL);
  self->info = info;
  self->data = data;
  self->size = size;
  self->writable = TRUE;
  self->owned = TRUE;
  return self;

  /* ERRORS */
no_memory:
  {
    gchar *s = plan_array_info_to_string (&info);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "cannot allocate %" G_GSIZE_FORMAT " bytes for an array of %s",
        size, s);
    g_free (s);
    return NULL;
  }
}

static gboolean
check_size (const PlanArrayInfo * info, gsize expected, gsize size,
    GError ** error)
{
  gchar *s;

  if (size == expected)
    return TRUE;

  s = plan_array_info_to_string (info);
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
      "%" G_GSIZE_FORMAT " bytes of data for an array of %s, which needs %"
      G_GSIZE_FORMAT " bytes", size, s, expected);
  g_free (s);
  return FALSE;
}

/**
 * plan_array_new_wrapped: (skip)
 * @data: (nullable): the array's elements, C-contiguous and aligned for
 *   @dtype (at an address that is a multiple of its elements' alignment:
 *   kernels read them through typed pointers); %NULL only when @size is 0
 * @size: the size of @data in bytes: exactly the number of elements times
 *   the size of @dtype
 * @dtype: the element type
 * @ndim: the number of axes, 0 for a single value
 * @shape: (array length=ndim) (nullable): the shape, outermost axis first;
 *   %NULL when @ndim is 0
 * @user_data: (closure): the argument of @notify
 * @notify: (nullable): called with @user_data when the array is finalized,
 *   to release @data
 * @error: return location for a #GError
 *
 * Wraps memory that the caller owns in a writable array, without copying
 * it. @data must stay valid and keep its contents' layout until @notify is
 * called. A @size that is not exactly what @dtype and @shape need fails
 * with %PLAN_ERROR_SHAPE; a shape that plan_array_new() refuses fails the
 * same way here.
 *
 * On failure @notify is not called: @data is still the caller's.
 *
 * Returns: (transfer full) (nullable): a new array over @data, or %NULL
 *   with @error set.
 *
 * Since: 0.1
 */
PlanArray *
plan_array_new_wrapped (gpointer data, gsize size, PlanDType dtype,
    guint ndim, const gint64 * shape, gpointer user_data,
    GDestroyNotify notify, GError ** error)
{
  PlanArrayInfo info;
  PlanArray *self;
  gsize expected;

  g_return_val_if_fail (data != NULL || size == 0, NULL);
  g_return_val_if_fail (ndim == 0 || shape != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_shape (&info, dtype, ndim, shape, &expected, error)
      || !check_size (&info, expected, size, error))
    return NULL;

  self = g_object_new (PLAN_TYPE_ARRAY, NULL);
  self->info = info;
  self->data = data;
  self->size = size;
  self->writable = TRUE;
  self->user_data = user_data;
  self->notify = notify;
  return self;
}

/**
 * plan_array_new_from_bytes:
 * @bytes: (transfer none): the array's elements, C-contiguous
 * @dtype: the element type
 * @ndim: the number of axes, 0 for a single value
 * @shape: (array length=ndim) (nullable): the shape, outermost axis first;
 *   %NULL when @ndim is 0
 * @error: return location for a #GError
 *
 * Wraps @bytes in a read-only array, without copying them; the array
 * holds a reference to @bytes. The size of @bytes must be exactly what
 * @dtype and @shape need, else this fails with %PLAN_ERROR_SHAPE.
 *
 * Returns: (transfer full) (nullable): a new read-only array over @bytes,
 *   or %NULL with @error set.
 *
 * Since: 0.1
 */
PlanArray *
plan_array_new_from_bytes (GBytes * bytes, PlanDType dtype, guint ndim,
    const gint64 * shape, GError ** error)
{
  PlanArrayInfo info;
  PlanArray *self;
  gconstpointer data;
  gsize size, expected;

  g_return_val_if_fail (bytes != NULL, NULL);
  g_return_val_if_fail (ndim == 0 || shape != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  data = g_bytes_get_data (bytes, &size);
  if (!check_shape (&info, dtype, ndim, shape, &expected, error)
      || !check_size (&info, expected, size, error))
    return NULL;

  self = g_object_new (PLAN_TYPE_ARRAY, NULL);
  self->info = info;
  /* Never written through: the array is read-only. */
  self->data = (gpointer) data;
  self->size = size;
  self->writable = FALSE;
  self->bytes = g_bytes_ref (bytes);
  return self;
}

/* What plan_array_new_for_address() was given to release the memory. */
typedef struct
{
  PlanReleaseFunc release;
  gpointer user_data;
  GDestroyNotify notify;
} Release;

static void
release_free (gpointer data)
{
  Release *r = data;

  if (r->release)
    r->release (r->user_data);
  if (r->notify)
    r->notify (r->user_data);
  g_free (r);
}

/* What plan_array_new_for_address() and plan_array_new_for_owner() share:
 * @address as host or device memory, @notify (@data) called when the
 * array is gone; NULL (@notify not called) on error. */
static PlanArray *
wrap_address (PlanDevice * device, guintptr address, gsize size,
    PlanDType dtype, guint ndim, const gint64 * shape, gboolean writable,
    gpointer data, GDestroyNotify notify, GError ** error)
{
  PlanArray *self;

  if (address == 0 && (size > 0 || device)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "The array's address is 0 (NULL)");
    return NULL;
  }
  if (device)
    self = plan_array_new_device (device, GSIZE_TO_POINTER (address), size,
        dtype, ndim, shape, data, notify, error);
  else
    self = plan_array_new_wrapped (GSIZE_TO_POINTER (address), size, dtype,
        ndim, shape, data, notify, error);
  if (self && !device)
    self->writable = writable;
  return self;
}

/**
 * plan_array_new_for_address: (rename-to plan_array_new_wrapped)
 * @device: (nullable): the device that owns the memory, %NULL for host
 *   memory
 * @address: where the array's elements are, C-contiguous and aligned for
 *   the element type: a host address, or a device pointer of @device
 * @size: the size of the elements in bytes: exactly the number of elements
 *   times the size of @dtype
 * @dtype: the element type
 * @ndim: the number of axes, 0 for a single value
 * @shape: (array length=ndim) (nullable): the shape, outermost axis first
 * @writable: whether the plan may write the memory (only then may the
 *   array be an output); ignored for device memory
 * @release: (scope notified) (nullable): called once when the array and
 *   everything made from it are gone and the memory is no longer used
 * @user_data: (closure release): data for @release
 * @notify: (destroy release) (nullable): frees @user_data after @release
 *
 * Wraps memory that the caller owns, as plan_array_new_wrapped() and
 * plan_array_new_device() do, with the address as an integer: the
 * constructor for language bindings, which hold the memory's owner (a
 * numpy array, say) as @user_data until @release says it may go.
 *
 * Returns: (transfer full): a new array over the memory, or %NULL with
 *   @error set (and @release not called) for a wrong size or shape.
 *
 * Since: 0.1
 */
PlanArray *
plan_array_new_for_address (PlanDevice * device, guintptr address,
    gsize size, PlanDType dtype, guint ndim, const gint64 * shape,
    gboolean writable, PlanReleaseFunc release, gpointer user_data,
    GDestroyNotify notify, GError ** error)
{
  PlanArray *self;
  Release *r;

  g_return_val_if_fail (device == NULL || PLAN_IS_DEVICE (device), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  r = g_new0 (Release, 1);
  r->release = release;
  r->user_data = user_data;
  r->notify = notify;
  self = wrap_address (device, address, size, dtype, ndim, shape, writable,
      r, release_free, error);
  if (!self)
    g_free (r);
  return self;
}

/**
 * plan_array_new_for_owner:
 * @device: (nullable): the device that owns the memory, %NULL for host
 *   memory
 * @address: where the array's elements are, C-contiguous and aligned for
 *   the element type: a host address, or a device pointer of @device
 * @size: the size of the elements in bytes: exactly the number of elements
 *   times the size of @dtype
 * @dtype: the element type
 * @ndim: the number of axes, 0 for a single value
 * @shape: (array length=ndim) (nullable): the shape, outermost axis first
 * @writable: whether the plan may write the memory (only then may the
 *   array be an output); ignored for device memory
 * @owner: (transfer none): an object that keeps the memory valid: the
 *   array holds a reference to it and drops it when the array and
 *   everything made from it are gone
 * @error: return location for a #GError
 *
 * As plan_array_new_for_address(), with the memory's owner held as an
 * object reference instead of a release callback. Language bindings whose
 * callbacks cost something per call (PyGObject makes, and with
 * gobject-introspection 1.74 leaks part of, a closure for each callback it
 * passes) wrap every array with this: the owner (a Python object holding
 * a numpy array) lives as long as libplan uses the memory.
 *
 * Returns: (transfer full): a new array over the memory, or %NULL with
 *   @error set (and no reference to @owner kept) for a wrong size or shape.
 *
 * Since: 0.1
 */
PlanArray *
plan_array_new_for_owner (PlanDevice * device, guintptr address, gsize size,
    PlanDType dtype, guint ndim, const gint64 * shape, gboolean writable,
    GObject * owner, GError ** error)
{
  PlanArray *self;

  g_return_val_if_fail (device == NULL || PLAN_IS_DEVICE (device), NULL);
  g_return_val_if_fail (G_IS_OBJECT (owner), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = wrap_address (device, address, size, dtype, ndim, shape, writable,
      g_object_ref (owner), g_object_unref, error);
  if (!self)
    g_object_unref (owner);
  return self;
}

/**
 * plan_array_get_address:
 * @array: a #PlanArray
 *
 * The address of the array's elements as an integer, for language
 * bindings that view them without a copy (numpy's `__array_interface__`,
 * say): a host address, or for an array in device memory its device
 * pointer. The memory stays valid as long as @array lives.
 *
 * Returns: the address, 0 for an empty host array.
 *
 * Since: 0.1
 */
guintptr
plan_array_get_address (PlanArray * array)
{
  g_return_val_if_fail (PLAN_IS_ARRAY (array), 0);

  if (array->memory)
    return GPOINTER_TO_SIZE (plan_device_memory_get_pointer
        (array->memory));
  return GPOINTER_TO_SIZE (array->data);
}

/**
 * plan_array_get_info:
 * @array: a #PlanArray
 *
 * Returns: (transfer none): the dtype and shape of @array, valid as long
 *   as @array is.
 *
 * Since: 0.1
 */
const PlanArrayInfo *
plan_array_get_info (PlanArray * array)
{
  g_return_val_if_fail (PLAN_IS_ARRAY (array), NULL);

  return &array->info;
}

/**
 * plan_array_get_dtype:
 * @array: a #PlanArray
 *
 * Returns: the element type of @array.
 *
 * Since: 0.1
 */
PlanDType
plan_array_get_dtype (PlanArray * array)
{
  g_return_val_if_fail (PLAN_IS_ARRAY (array), PLAN_DTYPE_UNKNOWN);

  return array->info.dtype;
}

/**
 * plan_array_get_shape:
 * @array: a #PlanArray
 * @ndim: (out) (optional): the number of axes
 *
 * Returns: (array length=ndim) (transfer none): the shape of @array,
 *   outermost axis first, valid as long as @array is.
 *
 * Since: 0.1
 */
const gint64 *
plan_array_get_shape (PlanArray * array, guint * ndim)
{
  g_return_val_if_fail (PLAN_IS_ARRAY (array), NULL);

  if (ndim)
    *ndim = array->info.ndim;
  return array->info.shape;
}

/**
 * plan_array_get_n_rows:
 * @array: a #PlanArray
 *
 * Returns: the number of rows of @array: its outermost axis, 1 for a 0-d
 *   array.
 *
 * Since: 0.1
 */
gint64
plan_array_get_n_rows (PlanArray * array)
{
  g_return_val_if_fail (PLAN_IS_ARRAY (array), 0);

  return plan_array_info_get_n_rows (&array->info);
}

/**
 * plan_array_get_size:
 * @array: a #PlanArray
 *
 * Returns: the size of the data of @array in bytes.
 *
 * Since: 0.1
 */
gsize
plan_array_get_size (PlanArray * array)
{
  g_return_val_if_fail (PLAN_IS_ARRAY (array), 0);

  return array->size;
}

/**
 * plan_array_is_writable:
 * @array: a #PlanArray
 *
 * Returns: whether the data of @array may be written:
 *   %TRUE for arrays from plan_array_new() and plan_array_new_wrapped(),
 *   %FALSE for arrays from plan_array_new_from_bytes().
 *
 * Since: 0.1
 */
gboolean
plan_array_is_writable (PlanArray * array)
{
  g_return_val_if_fail (PLAN_IS_ARRAY (array), FALSE);

  return array->writable;
}

/**
 * plan_array_get_data:
 * @array: a #PlanArray
 * @size: (out) (optional): the size of the data in bytes
 *
 * Returns: (array length=size) (element-type guint8) (transfer none)
 *   (nullable): the data of @array, valid as long as @array is. Never
 *   %NULL for an array from plan_array_new(), even an empty one. %NULL,
 *   with @size 0, for an array in device memory, which has no host data
 *   (plan_array_get_device_memory() gives its memory, and
 *   plan_array_get_size() its size).
 *
 * Since: 0.1
 */
gconstpointer
plan_array_get_data (PlanArray * array, gsize * size)
{
  g_return_val_if_fail (PLAN_IS_ARRAY (array), NULL);

  if (size)
    *size = array->memory != NULL ? 0 : array->size;
  return array->memory != NULL ? NULL : array->data;
}

/**
 * plan_array_get_writable_data:
 * @array: a writable #PlanArray
 * @size: (out) (optional): the size of the data in bytes
 *
 * Gives the data of @array for writing. Calling this on a read-only array
 * (see plan_array_is_writable()) is a programming error.
 *
 * Returns: (array length=size) (element-type guint8) (transfer none)
 *   (nullable): the data of @array, valid as long as @array is; %NULL when
 *   @array is read-only, and (with @size 0) when it is in device memory.
 *
 * Since: 0.1
 */
gpointer
plan_array_get_writable_data (PlanArray * array, gsize * size)
{
  g_return_val_if_fail (PLAN_IS_ARRAY (array), NULL);
  g_return_val_if_fail (array->writable, NULL);

  if (size)
    *size = array->memory != NULL ? 0 : array->size;
  return array->memory != NULL ? NULL : array->data;
}

/**
 * plan_array_get_bytes:
 * @array: a #PlanArray
 *
 * Gives the data of @array as a #GBytes, without copying it. The #GBytes
 * holds a reference to @array, so the data stays valid as long as the
 * #GBytes lives, whatever happens to the caller's reference. A #GBytes is
 * immutable: do not write to a writable array while its bytes are in use
 * by someone that relies on that.
 *
 * Returns: (transfer full): the data of @array.
 *
 * Since: 0.1
 */
GBytes *
plan_array_get_bytes (PlanArray * array)
{
  g_return_val_if_fail (PLAN_IS_ARRAY (array), NULL);
  g_return_val_if_fail (array->memory == NULL, NULL);

  return g_bytes_new_with_free_func (array->data, array->size,
      g_object_unref, g_object_ref (array));
}

/**
 * plan_array_load_npy:
 * @path: a .npy file
 * @error: return location for an error
 *
 * Reads a whole .npy file into a new, writable array, as numpy's
 * `np.load` does: big-endian elements are byte-swapped to the machine's
 * order, and a Fortran-ordered array is transposed into C order (through
 * a second copy of its data). For files larger than memory, bind the file to a source
 * instead (plan_bindings_set_file()), which streams it.
 *
 * Returns: (transfer full) (nullable): the array, or %NULL with @error set
 *   when the file cannot be read or is not a .npy file libplan reads
 *   (docs/arrays.md).
 *
 * Since: 0.1
 */
PlanArray *
plan_array_load_npy (const gchar * path, GError ** error)
{
  PlanArrayInfo info;
  PlanNpyLayout layout;
  gsize size, header_size;
  gchar *contents, *data;
  PlanArray *array, *file;

  g_return_val_if_fail (path != NULL, NULL);

  if (!plan_file_get_regular_contents (path, &contents, &size, error))
    return NULL;
  if (!plan_npy_parse_header_full ((const guint8 *) contents, size,
          PLAN_NPY_LAYOUT_BIG_ENDIAN | PLAN_NPY_LAYOUT_FORTRAN, &info,
          &header_size, &layout, error))
    goto failed;
  /* numpy pads the headers it writes so that the data starts at a
   * multiple of 64 bytes, but reads a header of any length: after one of
   * another length the elements would lie misaligned in the buffer, and
   * every kernel reads them through typed pointers. Such data is moved to
   * the buffer's start, which g_malloc() aligns for any element. */
  data = contents + header_size;
  if (header_size % 16 != 0) {
    memmove (contents, data, size - header_size);
    data = contents;
  }
  array = plan_array_new_wrapped (data, size - header_size,
      info.dtype, info.ndim, info.shape, contents, g_free, error);
  if (array == NULL)
    goto failed;
  if (layout & PLAN_NPY_LAYOUT_FORTRAN) {
    /* The file's bytes, all its runs at once, scattered into C order. */
    file = array;
    array = _plan_array_new_uninitialized (&info, error);
    if (array == NULL) {
      g_object_unref (file);
      g_prefix_error (error, "%s: ", path);
      return NULL;
    }
    _plan_npy_fortran_scatter (&info, 0,
        plan_array_info_get_row_size (&info) / plan_dtype_get_size
        (info.dtype), file->data, plan_array_info_get_n_rows (&info) *
        plan_dtype_get_size (info.dtype), plan_array_info_get_n_rows (&info),
        array->data);
    g_object_unref (file);
  }
  if (layout & PLAN_NPY_LAYOUT_BIG_ENDIAN)
    plan_dtype_swap_bytes (info.dtype, array->data, array->size);
  return array;

failed:
  g_prefix_error (error, "%s: ", path);
  g_free (contents);
  return NULL;
}

/**
 * plan_array_save_npy:
 * @array: a #PlanArray
 * @path: where to write it
 * @error: return location for an error
 *
 * Writes @array to a .npy file that numpy's `np.load` reads, replacing
 * @path atomically.
 *
 * Returns: %TRUE, or %FALSE with @error set.
 *
 * Since: 0.1
 */
gboolean
plan_array_save_npy (PlanArray * array, const gchar * path, GError ** error)
{
  const PlanArrayInfo *info;
  gsize header_size, size;
  gconstpointer data;
  guint8 *file;
  gboolean ok;

  g_return_val_if_fail (PLAN_IS_ARRAY (array), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (array->memory != NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "%s: an array in "
        "device memory cannot be saved from the host", path);
    return FALSE;
  }
  info = plan_array_get_info (array);
  header_size = plan_npy_get_header_size (info);
  data = plan_array_get_data (array, &size);
  file = g_try_malloc (header_size + size);
  if (file == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO, "%s: cannot allocate %"
        G_GSIZE_FORMAT " bytes to write", path, header_size + size);
    return FALSE;
  }
  ok = plan_npy_write_header (info, file, header_size, error);
  if (ok) {
    memcpy (file + header_size, data, size);
    ok = g_file_set_contents (path, (const gchar *) file, header_size + size,
        error);
  }
  g_free (file);
  return ok;
}

/**
 * plan_array_new_rows:
 * @array: a #PlanArray
 * @first_row: the first row of the view
 * @n_rows: the number of rows, at most the rows from @first_row to the end
 * @error: return location for an error
 *
 * A view of rows of @array, without a copy: what a chunk reader over an
 * array in memory returns. The view keeps @array alive, and is writable
 * when @array is.
 *
 * Returns: (transfer full) (nullable): the view, or %NULL with @error set
 *   for rows outside @array or a 0-d @array.
 *
 * Since: 0.1
 */
PlanArray *
plan_array_new_rows (PlanArray * array, gint64 first_row, gint64 n_rows,
    GError ** error)
{
  const PlanArrayInfo *info;
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  gsize row;
  PlanArray *view;

  g_return_val_if_fail (PLAN_IS_ARRAY (array), NULL);

  info = &array->info;
  if (array->memory != NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "an array in "
        "device memory has no host rows to view");
    return NULL;
  }
  /* n_rows compared with the rows left, so that a huge first_row or
   * n_rows cannot wrap round past the check */
  if (info->ndim == 0 || first_row < 0 || n_rows < 0
      || first_row > info->shape[0] || n_rows > info->shape[0] - first_row) {
    if (first_row >= 0 && n_rows >= 0 && n_rows > G_MAXINT64 - first_row)
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE, "%" G_GINT64_FORMAT
          " rows from row %" G_GINT64_FORMAT " are not rows of an array of %"
          G_GINT64_FORMAT " rows", n_rows, first_row,
          info->ndim == 0 ? 0 : info->shape[0]);
    else
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE, "rows %"
          G_GINT64_FORMAT " to %" G_GINT64_FORMAT " are not rows of an array "
          "of %" G_GINT64_FORMAT " rows", first_row, first_row + n_rows,
          info->ndim == 0 ? 0 : info->shape[0]);
    return NULL;
  }
  row = plan_array_info_get_row_size (info);
  memcpy (shape, info->shape, sizeof (shape));
  shape[0] = n_rows;
  view = plan_array_new_wrapped ((guint8 *) array->data + first_row * row,
      n_rows * row, info->dtype, info->ndim, shape, g_object_ref (array),
      g_object_unref, error);
  if (view == NULL) {
    g_object_unref (array);
    return NULL;
  }
  view->writable = array->writable;
  return view;
}

/**
 * plan_array_new_device:
 * @device: the #PlanDevice the memory belongs to (plan_device_get())
 * @dptr: device memory of the caller's: a CUDA device pointer of @device's
 *   context, or memory from plan_device_alloc()
 * @size: its size in bytes, exactly the array's
 * @dtype: the element type
 * @ndim: the number of axes
 * @shape: (array length=ndim) (nullable): the shape, rows known
 * @user_data: (closure): data for @notify
 * @notify: (nullable): called when the array and every buffer made from it
 *   are gone, to give @dptr back
 * @error: return location for an error
 *
 * Wraps an array in device memory, without a copy, for a source of the
 * plan API: its buffers go downstream in device memory
 * (`memory:PlanDevice`), so a plan on the GPU reads it where it is. Its
 * contents must be complete (the writing stream synchronized) when the
 * plan is dispatched. Such an array has no host data:
 * plan_array_get_data() gives %NULL.
 *
 * Returns: (transfer full) (nullable): the array, or %NULL with @error set
 *   (and @notify not called) for a wrong size or shape.
 *
 * Since: 0.1
 */
PlanArray *
plan_array_new_device (PlanDevice * device, gpointer dptr, gsize size,
    PlanDType dtype, guint ndim, const gint64 * shape, gpointer user_data,
    GDestroyNotify notify, GError ** error)
{
  PlanArrayInfo info;
  PlanArray *self;
  gsize expected;

  g_return_val_if_fail (PLAN_IS_DEVICE (device), NULL);
  g_return_val_if_fail (dptr != NULL, NULL);

  if (!check_shape (&info, dtype, ndim, shape, &expected, error)
      || !check_size (&info, expected, size, error))
    return NULL;
  self = g_object_new (PLAN_TYPE_ARRAY, NULL);
  self->info = info;
  self->size = size;
  self->memory = plan_device_memory_new_wrapped (device, dptr, size,
      user_data, notify);
  return self;
}

/**
 * plan_array_get_device_memory:
 * @array: a #PlanArray
 *
 * Returns: (transfer none) (nullable): the device memory of an array made
 *   by plan_array_new_device(), %NULL for host arrays.
 *
 * Since: 0.1
 */
GstMemory *
plan_array_get_device_memory (PlanArray * array)
{
  g_return_val_if_fail (PLAN_IS_ARRAY (array), NULL);
  return array->memory;
}
