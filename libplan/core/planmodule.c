/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libplan's modules (HDF5: io/planh5-load.c; MPI: mpi/plancomm.c), the
 * shared libraries of functions that link heavy libraries, loaded the
 * first time a process needs them rather than by every process at
 * start-up. A module is looked for beside libplan: in plan-1.0/ of the
 * directory libplan was loaded from (an installation, a wheel), then in
 * that directory itself (the build tree). Its one exported function hands
 * back a table of its functions, which starts with a PlanModuleHeader.
 * A module that loads stays loaded for the life of the process. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "libplan/core/plan-private.h"

#include <dlfcn.h>
#include <gmodule.h>

/* The folder modules are installed in, beside libplan:
 * libplan/meson.build's name. */
#define MODULE_SUBDIR "plan-1.0"

/* The directory libplan was loaded from. */
static gchar *
library_dir (void)
{
  Dl_info info;

  if (dladdr ((gpointer) library_dir, &info) == 0 || info.dli_fname == NULL)
    return NULL;
  return g_path_get_dirname (info.dli_fname);
}

gconstpointer
_plan_module_load (const gchar * name, const gchar * get_symbol,
    guint version, gsize size, gboolean global, gchar ** tried)
{
  gchar *dir = library_dir ();
  const gchar *const subdirs[] = { MODULE_SUBDIR, NULL };
  const PlanModuleHeader *m = NULL;
  GString *what = g_string_new (NULL);
  GModuleFlags flags = G_MODULE_BIND_LAZY | (global ? 0 :
      G_MODULE_BIND_LOCAL);
  guint i;

  for (i = 0; dir && i < G_N_ELEMENTS (subdirs) && m == NULL; i++) {
    gchar *path = subdirs[i] ?
        g_build_filename (dir, subdirs[i], name, NULL) :
        g_build_filename (dir, name, NULL);
    GModule *module;
    gpointer get = NULL;

    if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
      g_string_append_printf (what, "%s'%s' (absent)",
          what->len ? ", " : "", path);
      g_free (path);
      continue;
    }
    module = g_module_open (path, flags);
    if (module == NULL) {
      g_string_append_printf (what, "%s'%s' (%s)", what->len ? ", " : "",
          path, g_module_error ());
    } else if (!g_module_symbol (module, get_symbol, &get) || get == NULL) {
      g_string_append_printf (what, "%s'%s' (no %s)",
          what->len ? ", " : "", path, get_symbol);
      g_module_close (module);
    } else {
      m = ((const PlanModuleHeader * (*)(void)) get) ();
      if (m == NULL || m->version != version || m->size != size) {
        g_string_append_printf (what, "%s'%s' (built from another version "
            "of gst-plan)", what->len ? ", " : "", path);
        g_module_close (module);
        m = NULL;
      } else {
        /* Kept loaded: the table points into it. */
        g_module_make_resident (module);
      }
    }
    g_free (path);
  }
  if (m == NULL)
    *tried = dir ? g_string_free (what, FALSE) :
        g_strdup ("libplan's own directory is unknown");
  else
    g_string_free (what, TRUE);
  g_free (dir);
  return m;
}
