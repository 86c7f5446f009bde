/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:plannvrtc
 * @title: NVRTC
 * @short_description: run-time compilation of CUDA C, cached on disk
 *
 * libnvrtc is loaded at run time through #GModule, never linked, so
 * libplan builds and runs on machines without the CUDA toolkit; every
 * function here then fails with %PLAN_ERROR_DEVICE. NVRTC needs no GPU.
 *
 * Compiled modules are cached in `$XDG_CACHE_HOME/gst-plan/` (see
 * g_get_user_cache_dir()), keyed by a SHA-256 of the source, the target
 * architecture, the NVRTC version and the options, so a kernel is compiled
 * once per machine. Each entry carries its size and a SHA-256 of the
 * module: an entry cut short or damaged is compiled again and rewritten,
 * never loaded. plan_nvrtc_get_n_compilations() counts the compilations.
 * Every compilation is without floating-point contraction
 * (`--fmad=false`). Set `PLAN_NVRTC_CACHE=0` to bypass the cache. Entries
 * are written to a temporary file and renamed, so concurrent processes
 * never read a partial module.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plannvrtc.h"
#include <libplan/planerror.h>

#include <gmodule.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (plan_nvrtc_debug);
#define GST_CAT_DEFAULT plan_nvrtc_debug

/* The few NVRTC declarations we use (nvrtc.h is not needed to build). */
typedef gint NvrtcResult;
typedef struct _NvrtcProgram *NvrtcProgram;
#define NVRTC_OK 0

typedef struct
{
  NvrtcResult (*Version) (gint * major, gint * minor);
  const gchar *(*GetErrorString) (NvrtcResult result);
  NvrtcResult (*CreateProgram) (NvrtcProgram * prog, const gchar * src,
      const gchar * name, gint n_headers, const gchar * const *headers,
      const gchar * const *include_names);
  NvrtcResult (*DestroyProgram) (NvrtcProgram * prog);
  NvrtcResult (*CompileProgram) (NvrtcProgram prog, gint n_options,
      const gchar * const *options);
  NvrtcResult (*GetPTXSize) (NvrtcProgram prog, gsize * size);
  NvrtcResult (*GetPTX) (NvrtcProgram prog, gchar * ptx);
  NvrtcResult (*GetCUBINSize) (NvrtcProgram prog, gsize * size);
  NvrtcResult (*GetCUBIN) (NvrtcProgram prog, gchar * cubin);
  NvrtcResult (*GetProgramLogSize) (NvrtcProgram prog, gsize * size);
  NvrtcResult (*GetProgramLog) (NvrtcProgram prog, gchar * log);
} NvrtcVTable;

static NvrtcVTable nvrtc;
static gboolean nvrtc_loaded;
static gchar *nvrtc_load_error;
static gint nvrtc_major, nvrtc_minor;

static gboolean
load_symbols (GModule * module)
{
#define LOAD(name) \
  if (!g_module_symbol (module, "nvrtc" #name, (gpointer *) &nvrtc.name)) \
    return FALSE;
  LOAD (Version);
  LOAD (GetErrorString);
  LOAD (CreateProgram);
  LOAD (DestroyProgram);
  LOAD (CompileProgram);
  LOAD (GetPTXSize);
  LOAD (GetPTX);
  LOAD (GetCUBINSize);
  LOAD (GetCUBIN);
  LOAD (GetProgramLogSize);
  LOAD (GetProgramLog);
#undef LOAD
  return TRUE;
}

static void
do_load (void)
{
  const gchar *env = g_getenv ("PLAN_NVRTC_LIBRARY");
  gchar *in_toolkit = g_build_filename (PLAN_CUDA_PATH, "lib64",
      "libnvrtc.so", NULL);
  const gchar *candidates[] = { env, "libnvrtc.so", "libnvrtc.so.13",
    "libnvrtc.so.12", "libnvrtc.so.11.2", in_toolkit
  };
  guint i;

  GST_DEBUG_CATEGORY_INIT (plan_nvrtc_debug, "plannvrtc", 0,
      "NVRTC run-time compiler");
  for (i = 0; i < G_N_ELEMENTS (candidates); i++) {
    GModule *module;
    if (candidates[i] == NULL)
      continue;
    module = g_module_open (candidates[i], G_MODULE_BIND_LAZY);
    if (module == NULL)
      continue;
    if (load_symbols (module)
        && nvrtc.Version (&nvrtc_major, &nvrtc_minor) == NVRTC_OK) {
      /* Kept open for the life of the process. */
      g_module_make_resident (module);
      nvrtc_loaded = TRUE;
      GST_INFO ("loaded %s, NVRTC %d.%d", candidates[i], nvrtc_major,
          nvrtc_minor);
      break;
    }
    g_module_close (module);
  }
  if (!nvrtc_loaded)
    nvrtc_load_error = g_strdup_printf ("libnvrtc was not found (tried "
        "libnvrtc.so and %s); install the CUDA toolkit or set "
        "PLAN_NVRTC_LIBRARY", in_toolkit);
  g_free (in_toolkit);
}

/**
 * plan_nvrtc_load:
 * @error: return location for a #GError
 *
 * Loads libnvrtc if it is not loaded yet. `PLAN_NVRTC_LIBRARY` names the
 * library to try first.
 *
 * Returns: whether NVRTC is usable; otherwise @error is set
 *   (%PLAN_ERROR_DEVICE).
 *
 * Since: 0.1
 */
gboolean
plan_nvrtc_load (GError ** error)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    do_load ();
    g_once_init_leave (&done, 1);
  }
  if (!nvrtc_loaded)
    g_set_error_literal (error, PLAN_ERROR, PLAN_ERROR_DEVICE,
        nvrtc_load_error);
  return nvrtc_loaded;
}

/* Compilations done by NVRTC in this process (cache hits not counted). */
static gint n_compilations;

/* The options of every compilation, which are part of the cache key. No
 * contraction of a * b + c into a fused multiply-add: generated code must
 * round each operation as numpy and the CPU do. */
#define N_OPTIONS 3
static void
compile_options (const gchar * arch, gchar * options[N_OPTIONS])
{
  options[0] = g_strdup_printf ("--gpu-architecture=%s", arch);
  options[1] = g_strdup ("--fmad=false");
  options[2] = g_strdup ("-DPLAN_NVRTC=1");
}

static void
options_free (gchar * options[N_OPTIONS])
{
  guint i;

  for (i = 0; i < N_OPTIONS; i++)
    g_free (options[i]);
}

/* A cache entry: this header, then the module. The checksum finds an
 * entry cut short or damaged, which is compiled again, not loaded. */
#define CACHE_MAGIC "PLANRTC1"
typedef struct
{
  gchar magic[8];
  guint64 size;                 /* of the module */
  guint8 sha256[32];            /* of the module */
} CacheHeader;

static void
module_digest (gconstpointer data, gsize size, guint8 digest[32])
{
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  gsize len = 32;

  g_checksum_update (sum, data, size);
  g_checksum_get_digest (sum, digest, &len);
  g_checksum_free (sum);
}

static gboolean
arch_valid (const gchar * arch)
{
  const gchar *p;

  if (g_str_has_prefix (arch, "sm_"))
    p = arch + 3;
  else if (g_str_has_prefix (arch, "compute_"))
    p = arch + 8;
  else
    return FALSE;
  if (!g_ascii_isdigit (*p))
    return FALSE;
  for (; *p; p++)
    if (!g_ascii_isalnum (*p))
      return FALSE;
  return TRUE;
}

/**
 * plan_nvrtc_get_cache_path:
 * @source: CUDA C source
 * @arch: the target, "sm_90" (a cubin) or "compute_90" (PTX)
 *
 * Returns: (transfer full) (nullable): the file plan_nvrtc_compile() caches
 *   the module of @source for @arch in, or %NULL when NVRTC is not
 *   available.
 *
 * Since: 0.1
 */
gchar *
plan_nvrtc_get_cache_path (const gchar * source, const gchar * arch)
{
  GChecksum *sum;
  gchar *version, *name, *path;

  g_return_val_if_fail (source != NULL && arch != NULL, NULL);
  if (!plan_nvrtc_load (NULL))
    return NULL;

  sum = g_checksum_new (G_CHECKSUM_SHA256);
  {
    gchar *options[N_OPTIONS + 1] = { NULL };
    gchar *joined;

    compile_options (arch, options);
    joined = g_strjoinv (" ", options);
    version = g_strdup_printf ("nvrtc %d.%d; arch %s; options %s",
        nvrtc_major, nvrtc_minor, arch, joined);
    g_free (joined);
    options_free (options);
  }
  g_checksum_update (sum, (const guchar *) version, strlen (version) + 1);
  g_checksum_update (sum, (const guchar *) source, strlen (source));
  name = g_strdup_printf ("%s.%s", g_checksum_get_string (sum),
      g_str_has_prefix (arch, "sm_") ? "cubin" : "ptx");
  path = g_build_filename (g_get_user_cache_dir (), "gst-plan", name, NULL);
  g_free (name);
  g_free (version);
  g_checksum_free (sum);
  return path;
}

static gchar *
program_log (NvrtcProgram prog)
{
  gsize size = 0;
  gchar *log;

  if (nvrtc.GetProgramLogSize (prog, &size) != NVRTC_OK || size == 0)
    return g_strdup ("");
  log = g_malloc0 (size + 1);
  if (nvrtc.GetProgramLog (prog, log) != NVRTC_OK)
    log[0] = '\0';
  return log;
}

static GBytes *
compile_uncached (const gchar * source, const gchar * arch, GError ** error)
{
  NvrtcProgram prog = NULL;
  NvrtcResult r;
  gchar *options[N_OPTIONS];
  gboolean cubin = g_str_has_prefix (arch, "sm_");
  gsize size = 0;
  gchar *code = NULL, *log;

  r = nvrtc.CreateProgram (&prog, source, "plan_expr.cu", 0, NULL, NULL);
  if (r != NVRTC_OK)
    goto create_failed;
  compile_options (arch, options);
  r = nvrtc.CompileProgram (prog, N_OPTIONS, (const gchar * const *) options);
  options_free (options);
  if (r != NVRTC_OK)
    goto compile_failed;
  g_atomic_int_inc (&n_compilations);
  GST_INFO ("NVRTC compiled a module for %s (%d compilations so far)", arch,
      g_atomic_int_get (&n_compilations));
  r = cubin ? nvrtc.GetCUBINSize (prog, &size) : nvrtc.GetPTXSize (prog,
      &size);
  if (r == NVRTC_OK) {
    code = g_malloc (size);
    r = cubin ? nvrtc.GetCUBIN (prog, code) : nvrtc.GetPTX (prog, code);
  }
  if (r != NVRTC_OK)
    goto get_failed;
  nvrtc.DestroyProgram (&prog);
    return g_bytes_new_take (code, size);

  /* ERRORS */
create_failed:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_DEVICE,
        "NVRTC could not create a program: %s", nvrtc.GetErrorString (r));
        return NULL;
  }
compile_failed:
  {
    log = program_log (prog);
    GST_WARNING ("NVRTC failed (%s):\n%s\nsource:\n%s",
        nvrtc.GetErrorString (r), log, source);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_DEVICE,
        "NVRTC could not compile the kernel for %s: %s\n%s", arch,
        nvrtc.GetErrorString (r), log);
    g_free (log);
    nvrtc.DestroyProgram (&prog);
        return NULL;
  }
get_failed:
  {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_DEVICE,
        "NVRTC could not return the compiled module: %s",
        nvrtc.GetErrorString (r));
    g_free (code);
    nvrtc.DestroyProgram (&prog);
        return NULL;
  }
}

static void
cache_store (const gchar * path, GBytes * code)
{
  gchar *dir = g_path_get_dirname (path);
  GError *err = NULL;
  gsize size;
  gconstpointer data = g_bytes_get_data (code, &size);
  CacheHeader header;
  guint8 *entry;

  memset (&header, 0, sizeof (header));
  memcpy (header.magic, CACHE_MAGIC, sizeof (header.magic));
  header.size = size;
  module_digest (data, size, header.sha256);
  entry = g_malloc (sizeof (header) + size);
  memcpy (entry, &header, sizeof (header));
  memcpy (entry + sizeof (header), data, size);
  /* g_file_set_contents writes a temporary file and renames it. A cache
   * that cannot be written only costs a recompilation next time. */
  if (g_mkdir_with_parents (dir, 0700) != 0
      || !g_file_set_contents (path, (const gchar *) entry,
          sizeof (header) + size, &err)) {
    GST_WARNING ("could not write the NVRTC cache entry %s: %s", path,
        err ? err->message : g_strerror (errno));
    g_clear_error (&err);
  }
  g_free (entry);
  g_free (dir);
}

/* The module of the cache entry at @path, or NULL when there is none or it
 * is damaged (then removed, to be written again). */
static GBytes *
cache_load (const gchar * path)
{
  gchar *data = NULL;
  gsize size = 0;
  CacheHeader header;
  guint8 digest[32];
  GBytes *code;

  if (!g_file_get_contents (path, &data, &size, NULL))
    return NULL;
  if (size < sizeof (header))
    goto corrupt;
  memcpy (&header, data, sizeof (header));
  if (memcmp (header.magic, CACHE_MAGIC, sizeof (header.magic)) != 0
      || header.size != size - sizeof (header) || header.size == 0)
    goto corrupt;
  module_digest (data + sizeof (header), header.size, digest);
  if (memcmp (digest, header.sha256, sizeof (digest)) != 0)
    goto corrupt;
  code = g_bytes_new (data + sizeof (header), header.size);
  g_free (data);
  return code;

corrupt:
  GST_WARNING ("the NVRTC cache entry %s is damaged (%" G_GSIZE_FORMAT
      " bytes, not a whole entry with a matching checksum); compiling "
      "again", path, size);
  g_unlink (path);
  g_free (data);
  return NULL;
}

/**
 * plan_nvrtc_get_n_compilations:
 *
 * The number of modules NVRTC compiled in this process; a module found in
 * the on-disk cache is not counted. The second run of a pipeline whose
 * kernels are cached compiles nothing. Also logged at level INFO in the
 * `plannvrtc` debug category.
 *
 * Returns: compilations so far
 *
 * Since: 0.1
 */
guint
plan_nvrtc_get_n_compilations (void)
{
  return (guint) g_atomic_int_get (&n_compilations);
}

/**
 * plan_nvrtc_compile:
 * @source: CUDA C source, e.g. from plan_expr_to_cuda()
 * @arch: the target: "sm_90" gives a cubin, "compute_90" PTX
 * @code: (out) (transfer full): the compiled module
 * @error: return location for a #GError
 *
 * Compiles @source with NVRTC, or returns the module cached by an earlier
 * compilation of the same source for the same target and NVRTC version.
 *
 * Returns: whether @code was set; otherwise @error is
 *   %PLAN_ERROR_INVALID_ARGUMENT (a malformed @arch) or %PLAN_ERROR_DEVICE
 *   (no NVRTC, or the source does not compile: the message carries the
 *   compiler's log).
 *
 * Since: 0.1
 */
gboolean
plan_nvrtc_compile (const gchar * source, const gchar * arch, GBytes ** code,
    GError ** error)
{
  gchar *path;
  const gchar *use_cache = g_getenv ("PLAN_NVRTC_CACHE");
  gboolean cache = use_cache == NULL || g_strcmp0 (use_cache, "0") != 0;

  g_return_val_if_fail (source != NULL, FALSE);
  g_return_val_if_fail (arch != NULL, FALSE);
  g_return_val_if_fail (code != NULL, FALSE);

  if (!arch_valid (arch)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "'%s' is not a CUDA architecture; use e.g. sm_90 or compute_90",
        arch);
    return FALSE;
  }
  if (!plan_nvrtc_load (error))
    return FALSE;

  path = plan_nvrtc_get_cache_path (source, arch);
  if (cache && (*code = cache_load (path)) != NULL) {
    GST_DEBUG ("cache hit %s", path);
    g_free (path);
    return TRUE;
  }

  *code = compile_uncached (source, arch, error);
  if (*code != NULL && cache)
    cache_store (path, *code);
  g_free (path);
  return *code != NULL;
}

/* The kernels (".entry NAME(") that PTX text defines. */
static GPtrArray *
ptx_entries (const gchar * ptx, gsize size)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const gchar *p = ptx, *end = ptx + size;

  while (p < end && (p = g_strstr_len (p, end - p, ".entry")) != NULL) {
    const gchar *name;

    p += strlen (".entry");
    while (p < end && g_ascii_isspace (*p))
      p++;
    name = p;
    while (p < end && (g_ascii_isalnum (*p) || *p == '_' || *p == '$'))
      p++;
    if (p > name)
      g_ptr_array_add (names, g_strndup (name, p - name));
  }
  return names;
}

/**
 * plan_nvrtc_check_function:
 * @source: CUDA C
 * @function: the `extern "C" __global__` function @source must define
 * @error: return location for a #GError
 *
 * Compiles @source with NVRTC to PTX for a common architecture (through
 * the on-disk cache, as plan_nvrtc_compile()) and checks that it defines
 * the kernel @function, so that a compile error or a name that is not
 * there is found when an element is set up, without a device.
 *
 * Returns: %TRUE when it does; otherwise %FALSE with @error set: the
 *   compiler's error, or %PLAN_ERROR_INVALID_ARGUMENT naming @function
 *   and the kernels the source defines.
 *
 * Since: 0.1
 */
gboolean
plan_nvrtc_check_function (const gchar * source, const gchar * function,
    GError ** error)
{
  GBytes *code = NULL;
  GPtrArray *names;
  gboolean found = FALSE;
  guint i;

  g_return_val_if_fail (source != NULL && function != NULL, FALSE);

  if (!plan_nvrtc_compile (source, "compute_80", &code, error))
    return FALSE;
  names = ptx_entries (g_bytes_get_data (code, NULL), g_bytes_get_size (code));
  for (i = 0; i < names->len && !found; i++)
    found = g_str_equal (g_ptr_array_index (names, i), function);
  if (!found) {
    gchar *list;

    g_ptr_array_add (names, NULL);
    list = g_strjoinv (", ", (gchar **) names->pdata);
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
        "the CUDA source defines no kernel '%s' (an extern \"C\" "
        "__global__ function); it defines %s", function,
        *list ? list : "none");
    g_free (list);
  }
  g_ptr_array_unref (names);
  g_bytes_unref (code);
  return found;
}

/**
 * plan_nvrtc_build_kernel:
 * @device: a CUDA device
 * @source: CUDA C
 * @function: the `extern "C" __global__` function to load
 * @error: return location for an error
 *
 * Compiles @source with NVRTC for @device's architecture (through the
 * on-disk cache, as plan_nvrtc_compile()) and loads @function from it.
 *
 * Returns: (transfer full) (nullable): the kernel, or %NULL with @error
 *   set: NVRTC's message and log for a compile error, the driver's for a
 *   load error.
 *
 * Since: 0.1
 */
PlanKernel *
plan_nvrtc_build_kernel (PlanDevice * device, const gchar * source,
    const gchar * function, GError ** error)
{
  gint major = 0, minor = 0;
  PlanKernel *kernel = NULL;
  GBytes *code = NULL;
  gchar *arch;

  g_return_val_if_fail (PLAN_IS_DEVICE (device), NULL);
  g_return_val_if_fail (source != NULL && function != NULL, NULL);

  plan_device_get_compute_capability (device, &major, &minor);
  arch = g_strdup_printf ("sm_%d%d", major, minor);
  if (plan_nvrtc_compile (source, arch, &code, error))
    kernel = plan_kernel_new (device, g_bytes_get_data (code, NULL),
        g_bytes_get_size (code), function, error);
  g_clear_pointer (&code, g_bytes_unref);
  g_free (arch);
  return kernel;
}
