/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:plancustom
 * @title: Custom kernels
 * @short_description: user code as the work of plancustom
 *
 * A custom kernel is user code that computes a chunk of rows: a C function
 * of the #PlanCustomFunc signature, loaded from a shared library or
 * registered in the process by name, or an array function registered by a
 * language binding (#PlanCustomArrayFunc). plancustom calls it for each
 * chunk; this file resolves kernels and calls them, so that every element
 * and the plan API share one registry.
 *
 * The registry is process-wide and thread-safe. A registered name stays
 * valid for the elements that resolved it even after it is unregistered:
 * they hold a reference to the registration.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plancustom.h"
#include "libplan/core/plan-private.h"
#include <libplan/planerror.h>
#include <libplan/planarrayinfo.h>

#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

GST_DEBUG_CATEGORY_STATIC (plan_custom_debug);
#define GST_CAT_DEFAULT plan_custom_debug

GType
plan_custom_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {PLAN_CUSTOM_MODE_MAP, "Map: each chunk's rows in, as many rows out",
        "map"},
    {PLAN_CUSTOM_MODE_REDUCE,
        "Reduce: every chunk accumulated into one result", "reduce"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("PlanCustomMode",
            values));
  return type;
}

GType
plan_custom_phase_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {PLAN_CUSTOM_PHASE_CHUNK, "A chunk of rows", "chunk"},
    {PLAN_CUSTOM_PHASE_INIT, "Before the first chunk: set the accumulator",
        "init"},
    {PLAN_CUSTOM_PHASE_FINISH,
        "After the last chunk: finalize the accumulator", "finish"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("PlanCustomPhase",
            values));
  return type;
}

/* One registration: a C function or an array function, and its data. */
typedef struct
{
  gint ref_count;
  gchar *name;
  PlanCustomFunc func;
  PlanCustomArrayFunc array_func;
  gpointer user_data;
  GDestroyNotify notify;
} Registration;

static GMutex registry_lock;
static GHashTable *registry;    /* name -> Registration */

static Registration *
registration_ref (Registration * r)
{
  g_atomic_int_inc (&r->ref_count);
  return r;
}

static void
registration_unref (gpointer data)
{
  Registration *r = data;

  if (!g_atomic_int_dec_and_test (&r->ref_count))
    return;
  if (r->notify)
    r->notify (r->user_data);
  g_free (r->name);
  g_free (r);
}

static void
debug_init (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (plan_custom_debug, "plancustomkernel", 0,
        "Custom kernels: registry and libraries");
    g_once_init_leave (&done, 1);
  }
}

static gboolean
add_registration (Registration * r, GError ** error)
{
  gboolean ok;

  debug_init ();
  g_mutex_lock (&registry_lock);
  if (registry == NULL)
    registry = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
        registration_unref);
  ok = !g_hash_table_contains (registry, r->name);
  if (ok)
    g_hash_table_insert (registry, r->name, r);
  g_mutex_unlock (&registry_lock);

  if (!ok) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_BUSY,
        "A custom kernel named '%s' is registered already; unregister it "
        "first", r->name);
    /* The caller's data is not ours on failure. */
    r->notify = NULL;
    registration_unref (r);
    return FALSE;
  }
  GST_INFO ("registered custom kernel '%s'", r->name);
  return TRUE;
}

static gboolean
check_name (const gchar * name, GError ** error)
{
  if (name != NULL && *name != '\0')
    return TRUE;
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
      "A custom kernel needs a name");
  return FALSE;
}

static gboolean
register_kernel (const gchar * name, PlanCustomFunc func,
    PlanCustomArrayFunc array_func, gpointer user_data,
    GDestroyNotify notify, GError ** error)
{
  Registration *r;

  if (!check_name (name, error))
    return FALSE;
  r = g_new0 (Registration, 1);
  r->ref_count = 1;
  r->name = g_strdup (name);
  r->func = func;
  r->array_func = array_func;
  r->user_data = user_data;
  r->notify = notify;
  return add_registration (r, error);
}

/**
 * plan_custom_register: (skip)
 * @name: the name elements use (`plancustom kernel=NAME`)
 * @func: the kernel
 * @user_data: (closure): given to @func as #PlanCustomChunk.user_data
 * @notify: (nullable): frees @user_data once the kernel is unregistered
 *   and no element uses it any more
 * @error: return location for an error
 *
 * Registers a C kernel under @name for this process. On failure (the
 * name is taken) @notify is not called.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_custom_register (const gchar * name, PlanCustomFunc func,
    gpointer user_data, GDestroyNotify notify, GError ** error)
{
  g_return_val_if_fail (func != NULL, FALSE);
  return register_kernel (name, func, NULL, user_data, notify, error);
}

/**
 * plan_custom_register_arrays:
 * @name: the name elements use (`plancustom kernel=NAME`)
 * @func: (scope notified) (closure user_data) (destroy notify): the kernel
 * @user_data: data for @func
 * @notify: (nullable): frees @user_data once the kernel is unregistered
 *   and no element uses it any more
 * @error: return location for an error
 *
 * Registers a kernel that gets the chunk as #PlanArray views: the form for
 * language bindings (a Python function, through gstplan). Slower than a C
 * kernel by the cost of the call and the views, per chunk.
 *
 * Returns: %TRUE on success.
 *
 * Since: 0.1
 */
gboolean
plan_custom_register_arrays (const gchar * name, PlanCustomArrayFunc func,
    gpointer user_data, GDestroyNotify notify, GError ** error)
{
  g_return_val_if_fail (func != NULL, FALSE);
  return register_kernel (name, NULL, func, user_data, notify, error);
}

/**
 * plan_custom_unregister:
 * @name: a registered kernel's name
 *
 * Removes @name from the registry. Elements that already use the kernel
 * keep it until they stop.
 *
 * Returns: %TRUE when @name was registered.
 *
 * Since: 0.1
 */
gboolean
plan_custom_unregister (const gchar * name)
{
  gboolean found = FALSE;

  g_return_val_if_fail (name != NULL, FALSE);
  g_mutex_lock (&registry_lock);
  if (registry)
    found = g_hash_table_remove (registry, name);
  g_mutex_unlock (&registry_lock);
  return found;
}

/**
 * plan_custom_is_registered:
 * @name: a kernel name
 *
 * Returns: whether a kernel is registered under @name.
 *
 * Since: 0.1
 */
gboolean
plan_custom_is_registered (const gchar * name)
{
  gboolean found = FALSE;

  g_return_val_if_fail (name != NULL, FALSE);
  g_mutex_lock (&registry_lock);
  if (registry)
    found = g_hash_table_contains (registry, name);
  g_mutex_unlock (&registry_lock);
  return found;
}

struct _PlanCustomKernel
{
  gchar *name;                  /* for messages */
  Registration *registration;   /* a registered kernel, or NULL */
  GModule *module;              /* a library's kernel, or NULL */
  PlanCustomFunc func;
};

/**
 * plan_custom_kernel_new_registered: (skip)
 * @name: a registered kernel's name
 * @error: return location for an error
 *
 * Returns: (transfer full) (nullable): the kernel, or %NULL with @error
 *   set when nothing is registered under @name (the message lists what
 *   is).
 *
 * Since: 0.1
 */
PlanCustomKernel *
plan_custom_kernel_new_registered (const gchar * name, GError ** error)
{
  Registration *r = NULL;
  PlanCustomKernel *self;
  GString *known;

  g_return_val_if_fail (name != NULL, NULL);
  g_mutex_lock (&registry_lock);
  if (registry)
    r = g_hash_table_lookup (registry, name);
  if (r) {
    registration_ref (r);
    known = NULL;
  } else {
    GList *names = registry ? g_hash_table_get_keys (registry) : NULL, *l;

    known = g_string_new (NULL);
    names = g_list_sort (names, (GCompareFunc) strcmp);
    for (l = names; l; l = l->next)
      g_string_append_printf (known, "%s%s", known->len ? ", " : "",
          (const gchar *) l->data);
    g_list_free (names);
  }
  g_mutex_unlock (&registry_lock);

  if (r == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "No custom kernel is registered as '%s' in this process (%s%s)",
        name, known->len ? "registered: " : "none is registered",
        known->str);
    g_string_free (known, TRUE);
    return NULL;
  }
  self = g_new0 (PlanCustomKernel, 1);
  self->name = g_strdup (name);
  self->registration = r;
  self->func = r->func;
  return self;
}

/* A library path that names something other than a regular file (a
 * directory, a FIFO, a device): what it is, or NULL. The dynamic loader
 * would wait for a FIFO's writer forever, and for a directory it would
 * report the path with GModule's suffix added, which names no file. */
static const gchar *
library_not_regular (const gchar * path)
{
  struct stat st;

  if (strchr (path, '/') == NULL || stat (path, &st) < 0
      || S_ISREG (st.st_mode))
    return NULL;
  return S_ISDIR (st.st_mode) ? "a directory" : S_ISFIFO (st.st_mode) ?
      "a FIFO (named pipe)" : S_ISCHR (st.st_mode) || S_ISBLK (st.st_mode) ?
      "a device" : S_ISSOCK (st.st_mode) ? "a socket" : "a special file";
}

/**
 * plan_custom_kernel_new_from_library: (skip)
 * @path: a shared library (a path, or a name the dynamic loader finds)
 * @symbol: the kernel's symbol in it, declared with PLAN_CUSTOM_EXPORT()
 * @error: return location for an error
 *
 * Loads @symbol from @path and checks the version it was built against.
 *
 * Returns: (transfer full) (nullable): the kernel, or %NULL with @error
 *   set: the loader's message for a missing library, a missing symbol, a
 *   symbol not declared with PLAN_CUSTOM_EXPORT() or built for another
 *   #PLAN_CUSTOM_VERSION.
 *
 * Since: 0.1
 */
PlanCustomKernel *
plan_custom_kernel_new_from_library (const gchar * path,
    const gchar * symbol, GError ** error)
{
  PlanCustomKernel *self;
  GModule *module;
  gpointer func = NULL, version = NULL;
  gchar *version_symbol, *suffixed;
  const gchar *kind;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (symbol != NULL, NULL);
  debug_init ();

  /* GModule opens PATH, or PATH.so when there is no PATH: check the one
   * it will open before the loader can block on it. */
  suffixed = g_strconcat (path, "." G_MODULE_SUFFIX, NULL);
  kind = library_not_regular (path);
  if (kind == NULL && !g_file_test (path, G_FILE_TEST_EXISTS)
      && (kind = library_not_regular (suffixed)) != NULL)
    path = suffixed;
  if (kind) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "Could not load the kernel library '%s': it is %s, not a shared "
        "library", path, kind);
    g_free (suffixed);
    return NULL;
  }
  g_free (suffixed);

  module = g_module_open (path, G_MODULE_BIND_LOCAL);
  if (module == NULL) {
    /* dlopen() looks for a name without '/' in its own directories only. */
    gboolean here = strchr (path, '/') == NULL
        && g_file_test (path, G_FILE_TEST_EXISTS);

    g_set_error (error, PLAN_ERROR, PLAN_ERROR_IO,
        "Could not load the kernel library '%s': %s%s%s%s", path,
        g_module_error (), here ? " (a name without '/' is looked for "
        "where the dynamic loader looks, not in the current directory, "
        "where a file of that name is: give it as './" : "",
        here ? path : "", here ? "')" : "");
    return NULL;
  }
  if (!g_module_symbol (module, symbol, &func) || func == NULL) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "The kernel library '%s' has no symbol '%s'", path, symbol);
    g_module_close (module);
    return NULL;
  }
  version_symbol = g_strconcat (symbol, "_plan_custom_version", NULL);
  if (!g_module_symbol (module, version_symbol, &version) || !version) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "'%s' in '%s' does not say which kernel signature it has: declare "
        "it with PLAN_CUSTOM_EXPORT (%s) from <libplan/plan.h>", symbol,
        path, symbol);
    g_free (version_symbol);
    g_module_close (module);
    return NULL;
  }
  g_free (version_symbol);
  if (*(const guint *) version != PLAN_CUSTOM_VERSION) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
        "'%s' in '%s' was built for custom kernel version %u, but this "
        "libplan calls version %u: rebuild it against this libplan",
        symbol, path, *(const guint *) version, PLAN_CUSTOM_VERSION);
    g_module_close (module);
    return NULL;
  }

  GST_INFO ("loaded custom kernel '%s' from '%s'", symbol, path);
  self = g_new0 (PlanCustomKernel, 1);
  self->name = g_strdup_printf ("%s in %s", symbol, path);
  self->module = module;
  self->func = (PlanCustomFunc) func;
  return self;
}

/**
 * plan_custom_kernel_free: (skip)
 * @kernel: (transfer full): a kernel
 *
 * Since: 0.1
 */
void
plan_custom_kernel_free (PlanCustomKernel * kernel)
{
  if (kernel == NULL)
    return;
  if (kernel->registration)
    registration_unref (kernel->registration);
  if (kernel->module)
    g_module_close (kernel->module);
  g_free (kernel->name);
  g_free (kernel);
}

/**
 * plan_custom_kernel_get_name: (skip)
 * @kernel: a kernel
 *
 * Returns: what to call @kernel in messages.
 *
 * Since: 0.1
 */
const gchar *
plan_custom_kernel_get_name (PlanCustomKernel * kernel)
{
  g_return_val_if_fail (kernel != NULL, NULL);
  return kernel->name;
}

/* A read-only array over @n_rows rows at @data of @buf, for an array
 * kernel. */
static PlanArray *
buffer_view (const PlanCustomBuffer * buf, gpointer data, gsize n_rows,
    gboolean with_rows, GError ** error)
{
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  guint ndim = 0, i;

  if (with_rows)
    shape[ndim++] = n_rows;
  for (i = 0; i < buf->ndim && ndim < PLAN_ARRAY_MAX_DIMS; i++)
    shape[ndim++] = buf->shape[i];
  return plan_array_new_wrapped (data, with_rows ? n_rows * buf->row_size :
      buf->row_size, buf->dtype, ndim, shape, NULL, NULL, error);
}

/* Which call a failure or a check-mode message is about: the chunk's first and last
 * rows (inclusive), or a reduction's init or finish call, which has none. */
static gchar *
describe_call (const PlanCustomChunk * chunk)
{
  if (chunk->phase == PLAN_CUSTOM_PHASE_INIT)
    return g_strdup ("in its init call");
  if (chunk->phase == PLAN_CUSTOM_PHASE_FINISH)
    return g_strdup ("in its finish call");
  if (chunk->n_rows == 0)
    return g_strdup_printf ("in the call for no rows, at row %"
        G_GUINT64_FORMAT, chunk->first_row);
  if (chunk->n_rows == 1)
    return g_strdup_printf ("in the call for row %" G_GUINT64_FORMAT,
        chunk->first_row);
  return g_strdup_printf ("in the call for rows %" G_GUINT64_FORMAT " to %"
      G_GUINT64_FORMAT, chunk->first_row,
      chunk->first_row + chunk->n_rows - 1);
}

static gboolean
call_arrays (PlanCustomKernel * kernel, PlanCustomChunk * chunk,
    GError ** error)
{
  Registration *r = kernel->registration;
  PlanArray **inputs = g_newa (PlanArray *, chunk->n_inputs + 1);
  PlanArray *output;
  guint i, made = 0;
  gboolean ok = FALSE;

  for (i = 0; i < chunk->n_inputs; i++) {
    const PlanCustomBuffer *in = &chunk->inputs[i];
    guint8 *start = (guint8 *) in->data - chunk->halo * in->row_size;

    inputs[i] = buffer_view (in, start, chunk->n_rows + 2 * chunk->halo,
        TRUE, error);
    if (inputs[i] == NULL)
      goto done;
    made++;
  }
  /* In reduce mode the output is the accumulator: the whole result array,
   * whose shape is the row shape the element gives. */
  output = chunk->mode == PLAN_CUSTOM_MODE_REDUCE
      ? buffer_view (chunk->output, chunk->output->data, 1, FALSE, error)
      : buffer_view (chunk->output, chunk->output->data, chunk->n_rows, TRUE,
      error);
  if (output == NULL)
    goto done;
  ok = r->array_func (chunk->phase, inputs, chunk->n_inputs, output,
      chunk->first_row, r->user_data, error);
  /* An error is the kernel's answer, whatever it returned beside it. */
  if (error && *error != NULL)
    ok = FALSE;
  if (!ok && error && *error == NULL)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "The custom kernel '%s' failed without saying why", kernel->name);
  g_object_unref (output);

done:
  for (i = 0; i < made; i++)
    g_object_unref (inputs[i]);
  return ok;
}

/**
 * plan_custom_kernel_call: (skip)
 * @kernel: a kernel
 * @chunk: what to compute; @chunk->error may be %NULL, a buffer is
 *   provided then
 * @error: return location for an error
 *
 * Calls @kernel on @chunk, filling in the version and the registered
 * user data.
 *
 * Returns: %TRUE on success, %FALSE with @error set to the kernel's
 *   message (or its return value) on failure.
 *
 * Since: 0.1
 */
gboolean
plan_custom_kernel_call (PlanCustomKernel * kernel, PlanCustomChunk * chunk,
    GError ** error)
{
  gchar message[PLAN_CUSTOM_ERROR_SIZE];
  gchar *call;
  gint res;

  g_return_val_if_fail (kernel != NULL, FALSE);
  g_return_val_if_fail (chunk != NULL, FALSE);

  chunk->version = PLAN_CUSTOM_VERSION;
  if (kernel->registration)
    chunk->user_data = kernel->registration->user_data;
  if (kernel->registration && kernel->registration->array_func)
    return call_arrays (kernel, chunk, error);

  if (chunk->error == NULL)
    chunk->error = message;
  chunk->error[0] = '\0';
  res = kernel->func (chunk);
  if (res == 0)
    return TRUE;
  chunk->error[PLAN_CUSTOM_ERROR_SIZE - 1] = '\0';
  call = describe_call (chunk);
  if (chunk->error[0])
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "The custom kernel %s failed %s: %s", kernel->name, call,
        chunk->error);
  else
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "The custom kernel %s failed %s (it returned %d)", kernel->name,
        call, res);
  g_free (call);
  if (chunk->error == message)
    chunk->error = NULL;
  return FALSE;
}

/* Checking mode --------------------------------------------------------- */

/* Bytes of canary before and after a checked kernel's output. */
#define CANARY_SIZE 4096
#define CANARY_BYTE 0xa5
#define N_INPUT_SLOTS 256

/* An input copy given to a checked kernel, read-only: a write faults, and
 * the SIGSEGV handler makes the page writable, notes where, and lets the
 * kernel go on (it writes into the copy only). */
typedef struct
{
  guint8 *base;
  gsize size;                   /* mapped, whole pages */
  PlanFaultSlot *slot;          /* its range, for the handler; the slot's
                                 * mark is 1 + the first byte written */
} InputCopy;

/* The handler reads these slots only (planfaultslots.c), never an
 * InputCopy, which another thread may free while it runs. */
static PlanFaultSlot input_slots[N_INPUT_SLOTS];
static struct sigaction previous_segv;
static gsize check_page_size;

static void
on_sigsegv (int sig, siginfo_t * info, void *context)
{
  guint8 *addr = info->si_addr;
  PlanFaultSlot *slot;
  gpointer base;

  if (info->si_code > 0 && (slot = _plan_fault_slots_find (input_slots,
              N_INPUT_SLOTS, addr, &base)) != NULL) {
    guint8 *page = (guint8 *) ((guintptr) addr & ~(guintptr)
        (check_page_size - 1));

    if (mprotect (page, check_page_size, PROT_READ | PROT_WRITE) == 0) {
      g_atomic_pointer_compare_and_exchange (&slot->mark, NULL,
          GSIZE_TO_POINTER (addr - (guint8 *) base + 1));
      return;
    }
  }
  if (previous_segv.sa_flags & SA_SIGINFO) {
    if (previous_segv.sa_sigaction) {
      previous_segv.sa_sigaction (sig, info, context);
      return;
    }
  } else if (previous_segv.sa_handler != SIG_DFL
      && previous_segv.sa_handler != SIG_IGN) {
    previous_segv.sa_handler (sig);
    return;
  }
  /* The fault happens again with the default action: the process ends as
   * it would have. */
  sigaction (SIGSEGV, &previous_segv, NULL);
  if (info->si_code <= 0)
    raise (SIGSEGV);
}

static void
install_segv_handler (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    struct sigaction action;

    check_page_size = sysconf (_SC_PAGESIZE);
    memset (&action, 0, sizeof (action));
    action.sa_sigaction = on_sigsegv;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset (&action.sa_mask);
    sigaction (SIGSEGV, &action, &previous_segv);
    g_once_init_leave (&done, 1);
  }
}

/* A read-only copy of @size bytes at @data, or NULL (too many at once, or
 * no memory): that input is then given as it is. */
static InputCopy *
input_copy_new (gconstpointer data, gsize size)
{
  InputCopy *c;
  gint i = _plan_fault_slots_claim (input_slots, N_INPUT_SLOTS);

  if (i < 0)
    return NULL;
  c = g_new0 (InputCopy, 1);
  c->size = MAX ((size + check_page_size - 1) & ~(check_page_size - 1),
      check_page_size);
  c->base = mmap (NULL, c->size, PROT_READ | PROT_WRITE, MAP_PRIVATE |
      MAP_ANONYMOUS, -1, 0);
  if (c->base == MAP_FAILED) {
    _plan_fault_slots_release (&input_slots[i]);
    g_free (c);
    return NULL;
  }
  memcpy (c->base, data, size);
  mprotect (c->base, c->size, PROT_READ);
  c->slot = &input_slots[i];
  _plan_fault_slots_publish (c->slot, c->base, c->size, c->base);
  return c;
}

/* Where the kernel wrote first, or G_MAXSIZE; frees @c. */
static gsize
input_copy_free (InputCopy * c)
{
  gpointer mark = _plan_fault_slots_release (c->slot);

  munmap (c->base, c->size);
  g_free (c);
  return mark ? GPOINTER_TO_SIZE (mark) - 1 : G_MAXSIZE;
}

/* The output's size: the chunk's rows, or a reduction's whole result. */
static gsize
output_size (const PlanCustomChunk * chunk)
{
  if (chunk->mode == PLAN_CUSTOM_MODE_REDUCE)
    return chunk->output->row_size;
  return chunk->n_rows * chunk->output->row_size;
}

/* What the kernel wrote around its output, as a sentence, or NULL. */
static gchar *
check_canaries (const guint8 * scratch, gsize size)
{
  const guint8 *after = scratch + CANARY_SIZE + size;
  gsize first = CANARY_SIZE, last = 0, i;

  for (i = 0; i < CANARY_SIZE; i++)
    if (scratch[i] != CANARY_BYTE) {
      first = i;
      break;
    }
  for (i = CANARY_SIZE; i > 0; i--)
    if (after[i - 1] != CANARY_BYTE) {
      last = i;
      break;
    }
  if (first < CANARY_SIZE && last > 0)
    return g_strdup_printf ("%" G_GSIZE_FORMAT " bytes before the start and %"
        G_GSIZE_FORMAT " bytes after the end", CANARY_SIZE - first, last);
  if (first < CANARY_SIZE)
    return g_strdup_printf ("%" G_GSIZE_FORMAT " bytes before the start",
        CANARY_SIZE - first);
  if (last > 0)
    return g_strdup_printf ("%" G_GSIZE_FORMAT " bytes after the end", last);
  return NULL;
}

/* The poison a checked map kernel's output rows hold before the call, byte
 * i of the output being pattern[i % 4]: the bytes of a float32 NaN, so a
 * row a kernel leaves alone holds values no float kernel computes. A row
 * of small integers can hold it for real: when a row still holds POISON_A
 * the call is made again on POISON_B, and only a row that holds that one
 * too was left unwritten. */
static const guint8 POISON_A[4] = { 0xa5, 0xa5, 0xa5, 0x7f };
static const guint8 POISON_B[4] = { 0xda, 0xda, 0xda, 0xff };

static void
poison_fill (guint8 * data, gsize size, const guint8 * pattern)
{
  gsize i;

  for (i = 0; i < size; i++)
    data[i] = pattern[i & 3];
}

/* Whether row @r of the rows of @row_size bytes at @data (the output's
 * first byte) still holds @pattern. */
static gboolean
poison_row_intact (const guint8 * data, gsize row_size, gsize r,
    const guint8 * pattern)
{
  gsize i, start = r * row_size;

  for (i = start; i < start + row_size; i++)
    if (data[i] != pattern[i & 3])
      return FALSE;
  return TRUE;
}

/* "rows 205 to 209, 220" of the stream: the first four ranges of @rows
 * (TRUE for a row left unwritten) of the call that starts at @first_row;
 * their number of rows in @n_unwritten. */
static gchar *
describe_rows (const gboolean * rows, gsize n_rows, guint64 first_row,
    gsize * n_unwritten)
{
  GString *s = g_string_new (NULL);
  guint n_ranges = 0;
  gsize r = 0, count = 0;

  while (r < n_rows) {
    gsize end;

    if (!rows[r]) {
      r++;
      continue;
    }
    for (end = r; end < n_rows && rows[end]; end++);
    count += end - r;
    if (n_ranges < 4) {
      g_string_append (s, n_ranges == 0 ? "" : ", ");
      if (end - r == 1)
        g_string_append_printf (s, "%" G_GUINT64_FORMAT, first_row + r);
      else
        g_string_append_printf (s, "%" G_GUINT64_FORMAT " to %"
            G_GUINT64_FORMAT, first_row + r, first_row + end - 1);
    } else if (n_ranges == 4)
      g_string_append (s, ", …");
    n_ranges++;
    r = end;
  }
  *n_unwritten = count;
  if (count == 1)
    g_string_prepend (s, "row ");
  else
    g_string_prepend (s, "rows ");
  return g_string_free (s, FALSE);
}

/* After a checked map call that kept to its buffers, with its output at
 * @scratch (after the canary) poisoned with POISON_A before the call: the
 * rows it did not write, as "did not write 2 of its 1000 output rows
 * (rows 5 and 7 of the stream)" in @unwritten, or NULL. Rows still holding
 * POISON_A are told apart from rows the kernel computed to those bytes by
 * a second call on the real inputs (which the first call left alone),
 * with @state (the state before the first call, or NULL) restored and the
 * output poisoned with POISON_B; its output replaces the first's. FALSE
 * with @error set when that call fails; a write outside its output then
 * is set in @outside. */
static gboolean
find_unwritten (PlanCustomKernel * kernel, PlanCustomChunk * chunk,
    guint8 * scratch, const guint8 * state, gchar ** outside,
    gchar ** unwritten, GError ** error)
{
  const PlanCustomBuffer *real_output = chunk->output;
  gsize row_size = real_output->row_size, n = chunk->n_rows, out_size, r;
  gboolean *rows = g_new0 (gboolean, n), any = FALSE, ok;
  PlanCustomBuffer output;
  guint8 *again;

  for (r = 0; r < n; r++)
    any |= rows[r] = poison_row_intact (scratch + CANARY_SIZE, row_size, r,
        POISON_A);
  if (!any) {
    g_free (rows);
    return TRUE;
  }

  out_size = output_size (chunk);
  again = g_malloc (out_size + 2 * CANARY_SIZE);
  memset (again, CANARY_BYTE, CANARY_SIZE);
  poison_fill (again + CANARY_SIZE, out_size, POISON_B);
  memset (again + CANARY_SIZE + out_size, CANARY_BYTE, CANARY_SIZE);
  output = *real_output;
  output.data = again + CANARY_SIZE;
  if (state != NULL)
    memcpy (chunk->state, state, chunk->state_size);
  chunk->output = &output;
  ok = plan_custom_kernel_call (kernel, chunk, error);
  chunk->output = real_output;
  *outside = check_canaries (again, out_size);
  if (ok && *outside == NULL) {
    any = FALSE;
    for (r = 0; r < n; r++)
      any |= rows[r] = rows[r] && poison_row_intact (again + CANARY_SIZE,
          row_size, r, POISON_B);
    if (any) {
      gsize count;
      gchar *which = describe_rows (rows, n, chunk->first_row, &count);

      *unwritten = g_strdup_printf ("did not write %" G_GSIZE_FORMAT
          " of its %" G_GSIZE_FORMAT " output rows (%s of the stream)",
          count, n, which);
      g_free (which);
    }
  }
  memcpy (scratch + CANARY_SIZE, again + CANARY_SIZE, out_size);
  g_free (again);
  g_free (rows);
  return ok;
}

/**
 * plan_custom_kernel_call_checked: (skip)
 * @kernel: a kernel
 * @chunk: what to compute, as for plan_custom_kernel_call()
 * @error: return location for an error
 *
 * Calls @kernel on @chunk as plan_custom_kernel_call() does, on copies of
 * its buffers that show the common mistakes of a C kernel instead of
 * letting them corrupt memory or crash later: each input (with its halo
 * rows) is a copy in read-only pages, and a write into it is caught (the
 * page is made writable and the kernel goes on in the copy); the output
 * (a map's rows, a reduction's accumulator) lies between 4 KiB of canary
 * bytes before and after, checked after the call. A map's output rows are
 * filled with a poison pattern (the bytes of a float32 NaN) before the
 * call, and a row that still holds it after the call was not written by
 * the kernel: to tell such a row from one whose values happen to be the
 * pattern, the call is then made once more (with its state as it was
 * before the first) on another pattern, and only the rows that hold that
 * one too are reported. The output is copied back after the call. A
 * registered kernel that takes arrays (Python) is called as it is.
 *
 * Costs a copy of the inputs and of the output per call, a page mapping
 * per input, a fill and a scan of the output (and a copy of the state)
 * per call.
 *
 * Returns: %TRUE on success, %FALSE with @error set to the kernel's
 *   failure, or to what it wrote where it must not: `The custom kernel k
 *   wrote outside its output (16 bytes after the end), in the call for
 *   rows 0 to 999`, `... wrote into its input 0, which it may only read
 *   (at byte 8 of the rows it was given) ...`, or `... did not write 2
 *   of its 1000 output rows (rows 5 and 7 of the stream) ...`.
 *
 * Since: 0.1
 */
gboolean
plan_custom_kernel_call_checked (PlanCustomKernel * kernel,
    PlanCustomChunk * chunk, GError ** error)
{
  const PlanCustomBuffer *real_inputs = chunk->inputs;
  const PlanCustomBuffer *real_output = chunk->output;
  PlanCustomBuffer *inputs = NULL, output;
  InputCopy **copies = NULL;
  guint8 *scratch = NULL, *state = NULL;
  gsize out_size = 0;
  gchar *outside = NULL, *call = NULL, *unwritten = NULL;
  gssize written = 0;
  guint i, bad_input = 0;
  gboolean ok, wrote_input = FALSE, poison;

  g_return_val_if_fail (kernel != NULL, FALSE);
  g_return_val_if_fail (chunk != NULL, FALSE);

  if (kernel->registration && kernel->registration->array_func)
    return plan_custom_kernel_call (kernel, chunk, error);
  install_segv_handler ();

  /* A map's rows are the kernel's to write, all of them: poisoned. The
   * state as it was, for a second call. */
  poison = real_output != NULL && chunk->mode == PLAN_CUSTOM_MODE_MAP
      && chunk->phase == PLAN_CUSTOM_PHASE_CHUNK && chunk->n_rows > 0
      && real_output->row_size > 0;
  if (poison && chunk->state != NULL && chunk->state_size > 0)
    state = g_memdup2 (chunk->state, chunk->state_size);

  if (chunk->n_inputs > 0) {
    inputs = g_new (PlanCustomBuffer, chunk->n_inputs);
    copies = g_new0 (InputCopy *, chunk->n_inputs);
  }
  for (i = 0; i < chunk->n_inputs; i++) {
    gsize before = chunk->halo * real_inputs[i].row_size;
    gsize size = (chunk->n_rows + 2 * chunk->halo) * real_inputs[i].row_size;

    inputs[i] = real_inputs[i];
    copies[i] = input_copy_new ((const guint8 *) real_inputs[i].data - before,
        size);
    if (copies[i])
      inputs[i].data = copies[i]->base + before;
  }
  if (real_output) {
    output = *real_output;
    out_size = output_size (chunk);
    scratch = g_malloc (out_size + 2 * CANARY_SIZE);
    memset (scratch, CANARY_BYTE, CANARY_SIZE);
    if (poison)
      poison_fill (scratch + CANARY_SIZE, out_size, POISON_A);
    else
      memcpy (scratch + CANARY_SIZE, real_output->data, out_size);
    memset (scratch + CANARY_SIZE + out_size, CANARY_BYTE, CANARY_SIZE);
    output.data = scratch + CANARY_SIZE;
    chunk->output = &output;
  }
  chunk->inputs = inputs;

  ok = plan_custom_kernel_call (kernel, chunk, error);

  chunk->inputs = real_inputs;
  chunk->output = real_output;
  for (i = 0; i < chunk->n_inputs; i++) {
    gsize w = copies[i] ? input_copy_free (copies[i]) : G_MAXSIZE;

    if (w != G_MAXSIZE && !wrote_input) {
      written = (gssize) w - (gssize) (chunk->halo * real_inputs[i].row_size);
      bad_input = i;
      wrote_input = TRUE;
    }
  }
  if (scratch) {
    outside = check_canaries (scratch, out_size);
    if (ok && outside == NULL && !wrote_input && poison)
      ok = find_unwritten (kernel, chunk, scratch, state, &outside,
          &unwritten, error);
    memcpy (real_output->data, scratch + CANARY_SIZE, out_size);
    g_free (scratch);
  }
  if (ok && (outside || wrote_input || unwritten))
    call = describe_call (chunk);
  if (ok && outside)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "The custom kernel %s wrote outside its output (%s), %s",
        kernel->name, outside, call);
  else if (ok && wrote_input) {
    gssize rows_size = (gssize) (chunk->n_rows *
        real_inputs[bad_input].row_size);
    gchar *where;

    /* A write into the halo rows is before or after the call's rows. */
    if (written < 0)
      where = g_strdup_printf ("in its halo, %" G_GSSIZE_FORMAT " byte%s "
          "before its first row", -written, written == -1 ? "" : "s");
    else if (written >= rows_size)
      where = g_strdup_printf ("in its halo, %" G_GSSIZE_FORMAT " byte%s "
          "after its last row", written - rows_size + 1,
          written == rows_size ? "" : "s");
    else
      where = g_strdup_printf ("at byte %" G_GSSIZE_FORMAT " of the rows it "
          "was given", written);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "The custom kernel %s wrote into its input %u, which it may only "
        "read (%s), %s", kernel->name, bad_input, where, call);
    g_free (where);
  } else if (ok && unwritten)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "The custom kernel %s %s, %s; without check mode they hold whatever "
        "the output buffer held before (rows of an earlier chunk)",
        kernel->name, unwritten, call);
  ok = ok && outside == NULL && !wrote_input && unwritten == NULL;
  g_free (state);
  g_free (unwritten);
  g_free (call);
  g_free (outside);
  g_free (copies);
  g_free (inputs);
  return ok;
}

/* out-shape as the user writes it: "()" (or empty) for no axes, else
 * numbers separated by commas or blanks. */
static gboolean
parse_shape (const gchar * text, guint * ndim, gint64 * shape, GError ** error)
{
  gchar *s = g_strstrip (g_strdup (text));
  gboolean ok = TRUE;

  /* the text itself is parsed, so that an error quotes it as given */
  if (*s == '\0' || strcmp (s, "()") == 0)
    *ndim = 0;
  else
    ok = plan_shape_parse (text, ndim, shape, error);
  g_free (s);
  return ok;
}

/**
 * plan_custom_get_output_info:
 * @mode: the kernel's mode
 * @out_dtype: the output dtype, or %PLAN_DTYPE_UNKNOWN for the first
 *   input's
 * @out_shape: (nullable): `out-shape` as plancustom takes it (a row's shape
 *   in map mode, the result's in reduce mode; `()` for none), or %NULL for
 *   the first input's row shape
 * @n_inputs: the number of inputs, at least 1
 * @inputs: (array length=n_inputs): the inputs
 * @output: (out caller-allocates): what a custom kernel with these
 *   settings produces
 * @error: return location for an error
 *
 * The output of plancustom (and of the plan API's custom nodes): in map
 * mode as many rows as the inputs, each of @out_shape (0-d inputs without
 * @out_shape give a 0-d output: one element, as they are); in reduce mode
 * one array of @out_shape.
 *
 * Returns: %TRUE on success, %FALSE with @error set for an out-shape that
 *   does not parse or gives no valid array.
 *
 * Since: 0.1
 */
gboolean
plan_custom_get_output_info (PlanCustomMode mode, PlanDType out_dtype,
    const gchar * out_shape, guint n_inputs, const PlanArrayInfo * inputs,
    PlanArrayInfo * output, GError ** error)
{
  gint64 shape[PLAN_ARRAY_MAX_DIMS] = { 0, };
  guint ndim = 0, i;
  gboolean zero_d;

  g_return_val_if_fail (n_inputs > 0 && inputs != NULL, FALSE);
  g_return_val_if_fail (output != NULL, FALSE);

  if (out_dtype == PLAN_DTYPE_UNKNOWN)
    out_dtype = inputs[0].dtype;
  if (out_shape && !parse_shape (out_shape, &ndim, shape, error)) {
    g_prefix_error (error, "out-shape: ");
    return FALSE;
  }
  if (!out_shape) {
    ndim = inputs[0].ndim > 0 ? inputs[0].ndim - 1 : 0;
    for (i = 0; i < ndim; i++)
      shape[i] = inputs[0].shape[i + 1];
  }
  for (i = 0, zero_d = !out_shape; i < n_inputs; i++)
    zero_d &= inputs[i].ndim == 0;
  if (mode == PLAN_CUSTOM_MODE_MAP && !zero_d) {
    /* A row of out-shape per input row (a 0-d input is one row). */
    if (ndim + 1 > PLAN_ARRAY_MAX_DIMS) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_SHAPE,
          "out-shape has too many axes: at most %d", PLAN_ARRAY_MAX_DIMS - 1);
      return FALSE;
    }
    memmove (&shape[1], shape, ndim * sizeof (gint64));
    shape[0] = plan_array_info_get_n_rows (&inputs[0]);
    for (i = 1; i < n_inputs; i++)
      if (plan_array_info_get_n_rows (&inputs[i]) != shape[0])
        shape[0] = -1;
    ndim++;
  }
  if (!plan_array_info_set (output, out_dtype, ndim, shape, error)) {
    g_prefix_error (error, "out-shape=%s gives no valid output: ",
        out_shape ? out_shape : "");
    return FALSE;
  }
  return TRUE;
}

/* The file name of a #line directive is a C string literal: a quote or a
 * backslash in it (a Windows path) would end it early or start an escape.
 * Bytes of UTF-8 stay as they are, so that NVRTC's log shows the name. */
static gchar *
line_directive_name (const gchar * name)
{
  gchar high[129];
  guint i;

  for (i = 0; i < 128; i++)
    high[i] = (gchar) (0x80 + i);
  high[128] = '\0';
  return g_strescape (name, high);
}

/**
 * plan_custom_cuda_source:
 * @source: the user's CUDA C
 * @source_name: (nullable): what to call it in compiler messages (its
 *   file name)
 *
 * The CUDA C plancustom compiles: a prelude that defines the `plan_chunk`
 * structure the user's kernel takes by value and the `PLAN_FOR_EACH_ROW`
 * grid-stride loop (docs/plancustom.md), then @source, numbered from its
 * line 1 so that NVRTC's messages point into it.
 *
 * Returns: (transfer full): the source to compile.
 *
 * Since: 0.1
 */
gchar *
plan_custom_cuda_source (const gchar * source, const gchar * source_name)
{
  gchar *name, *code;

  g_return_val_if_fail (source != NULL, NULL);

  name = line_directive_name (source_name ? source_name : "cuda");
  code = g_strdup_printf (
      "/* plancustom's prelude */\n"
      "#define PLAN_CUSTOM_MAX_INPUTS %d\n"
      "typedef struct {\n"
      "  const void *inputs[PLAN_CUSTOM_MAX_INPUTS];\n"
      "  unsigned long long input_row_size[PLAN_CUSTOM_MAX_INPUTS];\n"
      "  void *output;\n"
      "  unsigned long long output_row_size;\n"
      "  unsigned long long n_rows;\n"
      "  unsigned long long first_row;\n"
      "  unsigned int n_inputs;\n"
      "} plan_chunk;\n"
      "#define PLAN_FOR_EACH_ROW(chunk, row) \\\n"
      "  for (unsigned long long row = blockIdx.x * (unsigned long long) "
      "blockDim.x + threadIdx.x; \\\n"
      "       row < (chunk).n_rows; \\\n"
      "       row += (unsigned long long) blockDim.x * gridDim.x)\n"
      "#line 1 \"%s\"\n%s\n", PLAN_CUSTOM_CUDA_MAX_INPUTS, name, source);
  g_free (name);
  return code;
}

/**
 * plan_custom_cuda_launch:
 * @stream: a stream of a CUDA device
 * @kernel: the kernel, built from plan_custom_cuda_source() (for example
 *   with plan_nvrtc_build_kernel())
 * @chunk: the chunk the kernel takes by value as its `plan_chunk`: device
 *   pointers, row sizes, rows and the first row's index
 * @block_size: threads per block, at least 1
 * @error: return location for a #GError, or %NULL
 *
 * Launches a CUDA custom kernel over one chunk on @stream, as plancustom
 * does: blocks of @block_size threads, one thread a row, at most 65535
 * blocks (a kernel that loops with `PLAN_FOR_EACH_ROW` covers the rows
 * beyond). The launch is queued on @stream; @chunk may be freed on return.
 *
 * Returns: %TRUE when the launch was queued, %FALSE with @error set when
 * the device refused it.
 *
 * Since: 0.1
 */
gboolean
plan_custom_cuda_launch (PlanStream * stream, PlanKernel * kernel,
    const PlanCustomCudaChunk * chunk, guint block_size, GError ** error)
{
  PlanCustomCudaChunk c;
  gpointer args[1] = { &c };
  guint grid[3] = { 1, 1, 1 }, block[3] = { 1, 1, 1 };

  g_return_val_if_fail (stream != NULL, FALSE);
  g_return_val_if_fail (kernel != NULL, FALSE);
  g_return_val_if_fail (chunk != NULL, FALSE);
  g_return_val_if_fail (block_size > 0, FALSE);
  g_return_val_if_fail (chunk->n_inputs <= PLAN_CUSTOM_CUDA_MAX_INPUTS,
      FALSE);

  c = *chunk;
  block[0] = block_size;
  grid[0] = (guint) CLAMP ((chunk->n_rows + block_size - 1) / block_size,
      1, 65535);
  return plan_stream_launch_kernel (stream, kernel, grid, block, 0, args,
      error);
}
