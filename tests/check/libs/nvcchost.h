/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Compiling generated CUDA source for the host, in tests.
 *
 * The CUDA tests run the code generators' output twice: NVRTC compiles it
 * for the device (sm_80 and sm_90), and nvcc compiles the very same text
 * into a host shared library whose entry points the tests call and compare
 * with the CPU implementation. The second compile needs only nvcc's host
 * pass. nvcc has no switch for that, so the source is wrapped in
 * `#ifndef __CUDA_ARCH__`: the device pass sees an empty file, and cicc and
 * ptxas, which took two thirds of each compile, have nothing to do. The
 * host pass sees the source exactly as written. */

#ifndef __PLAN_TEST_NVCC_HOST_H__
#define __PLAN_TEST_NVCC_HOST_H__

#include <glib.h>
#include <gst/check/gstcheck.h>

#ifdef PLAN_NVCC

/* Writes @source to @cu and compiles it for the host into the shared
 * library @so. @host_cflags goes to the host compiler (-Xcompiler);
 * @define, when not NULL, is one more -D flag. Fails the test, with nvcc's
 * messages, when nvcc does. */
static void
nvcc_compile_host (const gchar * cu, const gchar * so, const gchar * source,
    const gchar * host_cflags, const gchar * define)
{
  gchar *text = g_strconcat ("#ifndef __CUDA_ARCH__\n", source,
      "\n#endif /* !__CUDA_ARCH__ */\n", NULL);
  gchar *errout = NULL;
  gint status = 0;
  GPtrArray *argv = g_ptr_array_new ();
  const gchar *fixed[] = { PLAN_NVCC, "-x", "cu", "-shared", "-O1",
    "-Xcompiler", host_cflags, "-arch=sm_80", "--fmad=false", "-w"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (fixed); i++)
    g_ptr_array_add (argv, (gpointer) fixed[i]);
  if (define)
    g_ptr_array_add (argv, (gpointer) define);
  g_ptr_array_add (argv, (gpointer) "-o");
  g_ptr_array_add (argv, (gpointer) so);
  g_ptr_array_add (argv, (gpointer) cu);
  g_ptr_array_add (argv, NULL);

  fail_unless (g_file_set_contents (cu, text, -1, NULL));
  fail_unless (g_spawn_sync (NULL, (gchar **) argv->pdata, NULL, 0, NULL,
          NULL, NULL, &errout, &status, NULL));
  fail_unless (g_spawn_check_wait_status (status, NULL), "nvcc failed:\n%s",
      errout);
  g_ptr_array_unref (argv);
  g_free (errout);
  g_free (text);
}

#endif /* PLAN_NVCC */

#endif /* __PLAN_TEST_NVCC_HOST_H__ */
