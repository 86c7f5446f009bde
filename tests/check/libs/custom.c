/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Custom kernels in libplan: the registry, loading from libraries (and
 * every way that fails), calls and their errors, plancustom with a
 * registered kernel in a pipeline, and the CUDA examples compiled by NVRTC
 * for sm_80 and sm_90 (where libnvrtc is present). */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>
#include <glib/gstdio.h>
#include <string.h>

static gint
times_k (PlanCustomChunk * chunk)
{
  const gfloat *in = chunk->inputs[0].data;
  gfloat *out = chunk->output->data;
  gfloat k = *(const gfloat *) chunk->user_data;
  gsize i, n = chunk->n_rows * chunk->inputs[0].row_size / sizeof (gfloat);

  for (i = 0; i < n; i++)
    out[i] = in[i] * k;
  return 0;
}

static gint
fails (PlanCustomChunk * chunk)
{
  return 42;
}

static gint notified;

static void
count_notify (gpointer data)
{
  notified++;
}

GST_START_TEST (test_registry)
{
  static gfloat k = 3;
  GError *err = NULL;
  PlanCustomKernel *kernel;

  notified = 0;
  fail_unless (plan_custom_register ("times3", times_k, &k, count_notify,
          &err));
  fail_unless (plan_custom_is_registered ("times3"));
  /* a name is taken once; the failed registration's notify is not called */
  fail_if (plan_custom_register ("times3", times_k, &k, count_notify, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_BUSY));
  g_clear_error (&err);
  fail_if (plan_custom_register ("", times_k, &k, NULL, &err));
  g_clear_error (&err);

  kernel = plan_custom_kernel_new_registered ("times3", &err);
  fail_unless (kernel != NULL);
  /* unregistering keeps the kernel alive for who resolved it */
  fail_unless (plan_custom_unregister ("times3"));
  fail_if (plan_custom_is_registered ("times3"));
  fail_unless_equals_int (notified, 0);
  plan_custom_kernel_free (kernel);
  fail_unless_equals_int (notified, 1);
  fail_if (plan_custom_unregister ("times3"));

  fail_unless (plan_custom_register ("a-kernel", fails, NULL, NULL, NULL));
  fail_if (plan_custom_kernel_new_registered ("nothere", &err));
  fail_unless (strstr (err->message, "'nothere'")
      && strstr (err->message, "a-kernel"), "%s", err->message);
  g_clear_error (&err);
  plan_custom_unregister ("a-kernel");
}

GST_END_TEST;

GST_START_TEST (test_call_errors)
{
  PlanCustomKernel *kernel;
  PlanCustomBuffer out = { 0, };
  PlanCustomChunk chunk = { 0, };
  GError *err = NULL;

  fail_unless (plan_custom_register ("fails", fails, NULL, NULL, NULL));
  kernel = plan_custom_kernel_new_registered ("fails", NULL);
  chunk.output = &out;
  chunk.first_row = 77;
  fail_if (plan_custom_kernel_call (kernel, &chunk, &err));
  fail_unless (strstr (err->message, "returned 42")
      && strstr (err->message, "row 77"), "%s", err->message);
  g_clear_error (&err);
  plan_custom_kernel_free (kernel);
  plan_custom_unregister ("fails");
}

GST_END_TEST;

static gboolean
errs_but_succeeds (PlanCustomPhase phase, PlanArray ** inputs,
    guint n_inputs, PlanArray * output, guint64 first_row, gpointer user_data,
    GError ** error)
{
  g_set_error_literal (error, PLAN_ERROR, PLAN_ERROR_IO, "half done");
  return TRUE;
}

/* An array kernel that sets an error has failed, even when it returns
 * TRUE: the call said it succeeded, with the error left set. */
GST_START_TEST (test_array_kernel_error_returning_true)
{
  gint64 row[] = { 2 };
  gfloat data[6] = { 0, };
  PlanCustomKernel *kernel;
  PlanCustomBuffer out = { data, PLAN_DTYPE_FLOAT32, 1, row, 2 * 4, };
  PlanCustomChunk chunk = { 0, };
  GError *err = NULL;

  fail_unless (plan_custom_register_arrays ("errs-but-succeeds",
          errs_but_succeeds, NULL, NULL, NULL));
  kernel = plan_custom_kernel_new_registered ("errs-but-succeeds", NULL);
  chunk.phase = PLAN_CUSTOM_PHASE_CHUNK;
  chunk.mode = PLAN_CUSTOM_MODE_MAP;
  chunk.output = &out;
  chunk.n_rows = 3;
  fail_if (plan_custom_kernel_call (kernel, &chunk, &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_IO));
  fail_unless_equals_string (err->message, "half done");
  g_clear_error (&err);
  plan_custom_kernel_free (kernel);
  plan_custom_unregister ("errs-but-succeeds");
}

GST_END_TEST;

/* Writes where it must not, as @chunk->params says. */
static gint
misbehaves (PlanCustomChunk * chunk)
{
  guint8 *out = chunk->output->data;
  gsize n = chunk->n_rows * chunk->output->row_size;

  memcpy (out, chunk->inputs[0].data, n);
  if (g_str_equal (chunk->params, "after"))
    out[n + 15] = 1;
  else if (g_str_equal (chunk->params, "before"))
    out[-64] = 1;
  else if (g_str_equal (chunk->params, "input"))
    ((guint8 *) chunk->inputs[0].data)[500] = 1;
  return 0;
}

/* Check mode: the kernel's writes outside its output and into its input
 * are errors saying where, the real buffers untouched; a kernel that
 * keeps to its buffers gives its output. */
GST_START_TEST (test_checked_call_reports_stray_writes)
{
  const gint64 shape[1] = { 8 };
  guint8 *in = g_malloc (100 * 8), *out = g_malloc0 (100 * 8 + 64);
  PlanCustomBuffer input = { in, PLAN_DTYPE_UINT8, 1, shape, 8 };
  PlanCustomBuffer output = { out, PLAN_DTYPE_UINT8, 1, shape, 8 };
  PlanCustomChunk chunk = { 0, };
  const gchar *cases[][2] = {
    {"after", "wrote outside its output (16 bytes after the end)"},
    {"before", "wrote outside its output (64 bytes before the start)"},
    {"input", "wrote into its input 0, which it may only read (at byte "
          "500 of the rows"},
  };
  PlanCustomKernel *kernel;
  GError *err = NULL;
  guint i;

  for (i = 0; i < 800; i++)
    in[i] = i % 251;
  fail_unless (plan_custom_register ("misbehaves", misbehaves, NULL, NULL,
          NULL));
  kernel = plan_custom_kernel_new_registered ("misbehaves", NULL);
  chunk.mode = PLAN_CUSTOM_MODE_MAP;
  chunk.phase = PLAN_CUSTOM_PHASE_CHUNK;
  chunk.n_inputs = 1;
  chunk.inputs = &input;
  chunk.output = &output;
  chunk.n_rows = 100;
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    /* valgrind does not resume a write that faulted on a read-only page
     * the program's handler made writable (it reports it at a wrong
     * address and ends the process): the pipeline test covers that. */
    if (g_str_equal (cases[i][0], "input")
        && g_strrstr (g_getenv ("LD_PRELOAD") ? g_getenv ("LD_PRELOAD") : "",
            "vgpreload"))
      continue;
    chunk.params = cases[i][0];
    fail_if (plan_custom_kernel_call_checked (kernel, &chunk, &err));
    fail_unless (strstr (err->message, cases[i][1]) != NULL, "%s",
        err->message);
    g_clear_error (&err);
    fail_unless_equals_int (in[500], 500 % 251);
    fail_unless_equals_int (out[800 + 15], 0);
  }
  chunk.params = "none";
  memset (out, 0, 800);
  fail_unless (plan_custom_kernel_call_checked (kernel, &chunk, NULL));
  fail_unless (memcmp (in, out, 800) == 0);
  plan_custom_kernel_free (kernel);
  plan_custom_unregister ("misbehaves");
  g_free (in);
  g_free (out);
}

GST_END_TEST;

/* Copies its input rows, but for those @chunk->params names: "skip"
 * leaves the call's rows 5 to 9 and 20 alone; "poison" writes every row,
 * with the bytes of check mode's first poison, and counts its calls in
 * its state. */
static gint
skips_rows (PlanCustomChunk * chunk)
{
  guint8 *out = chunk->output->data;
  gsize row = chunk->output->row_size, r;

  for (r = 0; r < chunk->n_rows; r++) {
    if (g_str_equal (chunk->params, "skip") && ((r >= 5 && r <= 9)
            || r == 20))
      continue;
    if (g_str_equal (chunk->params, "poison")) {
      static const guint8 pattern[4] = { 0xa5, 0xa5, 0xa5, 0x7f };
      gsize i;

      for (i = 0; i < row; i++)
        out[r * row + i] = pattern[(r * row + i) & 3];
    } else
      memcpy (out + r * row, (const guint8 *) chunk->inputs[0].data +
          r * row, row);
  }
  if (chunk->state_size >= sizeof (guint32))
    (*(guint32 *) chunk->state)++;
  return 0;
}

/* Check mode finds the output rows a map kernel did not write: pool
 * buffers hold earlier chunks' rows, which such a kernel passed on as its
 * own (plausible garbage). Rows whose computed values happen to be the
 * poison are not reported, and the state sees one call. */
GST_START_TEST (test_checked_call_reports_unwritten_rows)
{
  const gint64 shape[1] = { 4 };
  guint8 *in = g_malloc (100 * 4), *out = g_malloc (100 * 4);
  PlanCustomBuffer input = { in, PLAN_DTYPE_UINT8, 1, shape, 4 };
  PlanCustomBuffer output = { out, PLAN_DTYPE_UINT8, 1, shape, 4 };
  PlanCustomChunk chunk = { 0, };
  PlanCustomKernel *kernel;
  guint32 calls = 0;
  GError *err = NULL;
  guint i;

  for (i = 0; i < 400; i++)
    in[i] = i % 251;
  fail_unless (plan_custom_register ("skips-rows", skips_rows, NULL, NULL,
          NULL));
  kernel = plan_custom_kernel_new_registered ("skips-rows", NULL);
  chunk.mode = PLAN_CUSTOM_MODE_MAP;
  chunk.phase = PLAN_CUSTOM_PHASE_CHUNK;
  chunk.n_inputs = 1;
  chunk.inputs = &input;
  chunk.output = &output;
  chunk.first_row = 200;
  chunk.n_rows = 100;
  chunk.state = &calls;
  chunk.state_size = sizeof (calls);

  /* the output buffer holds an earlier chunk's rows, as a pool's does:
   * unchecked, the skipped rows pass for results */
  chunk.params = "skip";
  memcpy (out, in, 400);
  fail_unless (plan_custom_kernel_call (kernel, &chunk, NULL));
  fail_unless (memcmp (in, out, 400) == 0);
  fail_if (plan_custom_kernel_call_checked (kernel, &chunk, &err));
  fail_unless (err != NULL);
  fail_unless_equals_string (err->message, "The custom kernel skips-rows "
      "did not write 6 of its 100 output rows (rows 205 to 209, 220 of the "
      "stream), in the call for rows 200 to 299; without check mode they "
      "hold whatever the output buffer held before (rows of an earlier "
      "chunk)");
  g_clear_error (&err);

  /* rows computed to the poison's bytes are the kernel's */
  chunk.params = "poison";
  calls = 0;
  fail_unless (plan_custom_kernel_call_checked (kernel, &chunk, &err), "%s",
      err ? err->message : "");
  fail_unless_equals_int (calls, 1);
  for (i = 0; i < 400; i++)
    fail_unless_equals_int (out[i], i % 4 == 3 ? 0x7f : 0xa5);

  /* a kernel that writes every row passes, with its output */
  chunk.params = "all";
  memset (out, 0, 400);
  fail_unless (plan_custom_kernel_call_checked (kernel, &chunk, NULL));
  fail_unless (memcmp (in, out, 400) == 0);
  plan_custom_kernel_free (kernel);
  plan_custom_unregister ("skips-rows");
  g_free (in);
  g_free (out);
}

GST_END_TEST;

/* Writes 16 bytes past its output in every phase. */
static gint
overruns (PlanCustomChunk * chunk)
{
  guint8 *out = chunk->output->data;

  out[chunk->output->row_size * MAX (chunk->n_rows, 1) + 15] = 1;
  return 0;
}

/* Check mode names the call that wrote astray: the chunk's first and last
 * rows, and a reduction's init and finish calls, which have no rows. */
GST_START_TEST (test_checked_call_names_its_rows)
{
  const gint64 shape[1] = { 8 };
  guint8 *in = g_malloc0 (100 * 8), *out = g_malloc0 (100 * 8 + 64);
  PlanCustomBuffer input = { in, PLAN_DTYPE_UINT8, 1, shape, 8 };
  PlanCustomBuffer output = { out, PLAN_DTYPE_UINT8, 1, shape, 8 };
  PlanCustomChunk chunk = { 0, };
  PlanCustomKernel *kernel;
  GError *err = NULL;

  fail_unless (plan_custom_register ("overruns", overruns, NULL, NULL, NULL));
  kernel = plan_custom_kernel_new_registered ("overruns", NULL);
  chunk.mode = PLAN_CUSTOM_MODE_MAP;
  chunk.phase = PLAN_CUSTOM_PHASE_CHUNK;
  chunk.n_inputs = 1;
  chunk.inputs = &input;
  chunk.output = &output;
  chunk.first_row = 200;
  chunk.n_rows = 100;
  fail_if (plan_custom_kernel_call_checked (kernel, &chunk, &err));
  fail_unless (g_str_has_suffix (err->message,
          "in the call for rows 200 to 299"), "%s", err->message);
  g_clear_error (&err);
  chunk.n_rows = 1;
  fail_if (plan_custom_kernel_call_checked (kernel, &chunk, &err));
  fail_unless (g_str_has_suffix (err->message, "in the call for row 200"),
      "%s", err->message);
  g_clear_error (&err);
  /* a reduction's accumulator, in the calls without rows */
  chunk.mode = PLAN_CUSTOM_MODE_REDUCE;
  chunk.n_inputs = 0;
  chunk.inputs = NULL;
  chunk.n_rows = 0;
  chunk.first_row = 0;
  chunk.phase = PLAN_CUSTOM_PHASE_INIT;
  fail_if (plan_custom_kernel_call_checked (kernel, &chunk, &err));
  fail_unless (g_str_has_suffix (err->message, "in its init call"), "%s",
      err->message);
  g_clear_error (&err);
  chunk.phase = PLAN_CUSTOM_PHASE_FINISH;
  chunk.first_row = 100;
  fail_if (plan_custom_kernel_call_checked (kernel, &chunk, &err));
  fail_unless (g_str_has_suffix (err->message, "in its finish call"), "%s",
      err->message);
  g_clear_error (&err);
  plan_custom_kernel_free (kernel);
  plan_custom_unregister ("overruns");
  g_free (in);
  g_free (out);
}

GST_END_TEST;

static gchar *
kernel_library (const gchar * name)
{
  return g_build_filename (g_getenv ("PLAN_BUILD_DIR"), "tests", "examples",
      name, NULL);
}

GST_START_TEST (test_library_errors)
{
  gchar *lib = kernel_library ("libfailing.so");
  GError *err = NULL;
  PlanCustomKernel *kernel;

  fail_if (plan_custom_kernel_new_from_library ("/nonexistent/x.so", "k",
          &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_IO));
  g_clear_error (&err);
  fail_if (plan_custom_kernel_new_from_library (lib, "nothere", &err));
  fail_unless (strstr (err->message, "no symbol 'nothere'"), "%s",
      err->message);
  g_clear_error (&err);
  fail_if (plan_custom_kernel_new_from_library (lib, "undeclared", &err));
  fail_unless (strstr (err->message, "PLAN_CUSTOM_EXPORT"), "%s",
      err->message);
  g_clear_error (&err);
  fail_if (plan_custom_kernel_new_from_library (lib, "future", &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED));
  g_clear_error (&err);
  kernel = plan_custom_kernel_new_from_library (lib, "fail_at", &err);
  fail_unless (kernel != NULL, "%s", err ? err->message : "");
  plan_custom_kernel_free (kernel);
  g_free (lib);
}

GST_END_TEST;

/* A library named without a '/' is looked for where the dynamic loader
 * looks, not in the current directory: the loader's "No such file" about
 * a file the user sees there said nothing of why. */
GST_START_TEST (test_library_in_current_directory_is_explained)
{
  gchar *dir = g_dir_make_tmp ("plancustom-XXXXXX", NULL);
  gchar *cwd = g_get_current_dir ();
  gchar *file = g_build_filename (dir, "libmykernel.so", NULL);
  GError *err = NULL;

  fail_unless (g_file_set_contents (file, "not a library", -1, NULL));
  fail_unless (g_chdir (dir) == 0);
  fail_if (plan_custom_kernel_new_from_library ("libmykernel.so", "k",
          &err));
  fail_unless (g_error_matches (err, PLAN_ERROR, PLAN_ERROR_IO));
  fail_unless (strstr (err->message, "a name without '/' is looked for "
          "where the dynamic loader looks, not in the current directory, "
          "where a file of that name is: give it as './libmykernel.so'"),
      "%s", err->message);
  g_clear_error (&err);
  /* Named as a path, the file itself is loaded (and is no library). */
  fail_if (plan_custom_kernel_new_from_library ("./libmykernel.so", "k",
          &err));
  fail_if (strstr (err->message, "current directory"), "%s", err->message);
  g_clear_error (&err);
  fail_unless (g_chdir (cwd) == 0);
  g_unlink (file);
  g_rmdir (dir);
  g_free (file);
  g_free (cwd);
  g_free (dir);
}

GST_END_TEST;

/* A registered kernel in a pipeline: an array's rows in, times 3 out. */
GST_START_TEST (test_registered_in_pipeline)
{
  static gfloat k = 3;
  const gint64 shape[] = { 1000, 2 };
  GstElement *pipeline, *src, *sink;
  PlanArray *in, *out;
  GstMessage *msg;
  const gfloat *a, *b;
  gsize i;

  fail_unless (plan_custom_register ("times3", times_k, &k, NULL, NULL));
  pipeline = gst_parse_launch ("planarraysrc name=src blocksize=2400 ! "
      "plancustom kernel=times3 ! planarraysink name=sink", NULL);
  fail_unless (pipeline != NULL);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  in = plan_array_new (PLAN_DTYPE_FLOAT32, 2, shape, NULL);
  a = plan_array_get_writable_data (in, NULL);
  for (i = 0; i < 2000; i++)
    ((gfloat *) a)[i] = i * 0.5f;
  plan_array_src_set_array (PLAN_ARRAY_SRC (src), in);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  out = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
  fail_unless (out != NULL);
  fail_unless_equals_int (plan_array_get_n_rows (out), 1000);
  b = plan_array_get_data (out, NULL);
  for (i = 0; i < 2000; i++)
    fail_unless (b[i] == a[i] * 3);
  g_object_unref (out);
  g_object_unref (in);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  plan_custom_unregister ("times3");
}

GST_END_TEST;

/* A halo of 2 rows read in full around every chunk, whatever the chunk
 * size: each output row is the sum of its 5-row neighbourhood, with
 * nearest boundaries. Under ASan and valgrind this also proves the kernel
 * is handed readable memory for every row it is promised, and the sizes
 * are exactly those. */
static gint
sum5 (PlanCustomChunk * chunk)
{
  const gdouble *in = chunk->inputs[0].data;
  gdouble *out = chunk->output->data;
  gint64 r;
  gint k;

  if (chunk->halo != 2)
    return 1;
  for (r = 0; r < (gint64) chunk->n_rows; r++) {
    out[r] = 0;
    for (k = -2; k <= 2; k++)
      out[r] += in[r + k];
  }
  return 0;
}

GST_START_TEST (test_halo_rows_in_every_chunk)
{
  const gint64 n = 1001;
  const guint blocksizes[] = { 8, 24, 800, 8008, 32 << 20 };
  PlanArray *in = plan_array_new (PLAN_DTYPE_FLOAT64, 1, &n, NULL);
  gdouble *x = plan_array_get_writable_data (in, NULL);
  guint b;
  gint64 i;

  for (i = 0; i < n; i++)
    x[i] = (gdouble) (i * i % 97);
  fail_unless (plan_custom_register ("sum5", sum5, NULL, NULL, NULL));
  for (b = 0; b < G_N_ELEMENTS (blocksizes); b++) {
    gchar *desc = g_strdup_printf ("planarraysrc name=src blocksize=%u ! "
        "plancustom kernel=sum5 halo=2 boundary=nearest ! "
        "planarraysink name=sink", blocksizes[b]);
    GstElement *pipeline = gst_parse_launch (desc, NULL);
    GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
    GstMessage *msg;
    PlanArray *out;
    const gdouble *y;

    plan_array_src_set_array (PLAN_ARRAY_SRC (src), in);
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
        10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
        "blocksize %u", blocksizes[b]);
    gst_message_unref (msg);
    out = plan_array_sink_get_array (PLAN_ARRAY_SINK (sink));
    fail_unless (out && plan_array_get_n_rows (out) == n);
    y = plan_array_get_data (out, NULL);
    for (i = 0; i < n; i++) {
      gdouble want = 0;
      gint k;

      for (k = -2; k <= 2; k++)
        want += x[CLAMP (i + k, 0, n - 1)];
      fail_unless (y[i] == want, "blocksize %u row %" G_GINT64_FORMAT
          ": %g, not %g", blocksizes[b], i, y[i], want);
    }
    g_object_unref (out);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (src);
    gst_object_unref (sink);
    gst_object_unref (pipeline);
    g_free (desc);
  }
  g_object_unref (in);
  plan_custom_unregister ("sum5");
}

GST_END_TEST;

static void
compile_example (const gchar * arch)
{
  gchar *path = g_build_filename (g_getenv ("PLAN_SOURCE_DIR"), "tests",
      "examples", "custom", "softmax.cu", NULL);
  gchar *text = NULL, *source;
  GBytes *code = NULL;
  GError *err = NULL;

  if (!plan_nvrtc_load (NULL)) {
    GST_INFO ("no libnvrtc: %s not compiled", arch);
    g_free (path);
    return;
  }
  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  source = plan_custom_cuda_source (text, path);
  g_setenv ("PLAN_NVRTC_CACHE", "0", TRUE);
  fail_unless (plan_nvrtc_compile (source, arch, &code, &err), "%s",
      err ? err->message : "");
  fail_unless (g_bytes_get_size (code) > 100);
  g_bytes_unref (code);
  /* an error is reported at the user's line */
  g_free (source);
  source = plan_custom_cuda_source ("extern \"C\" __global__ void k "
      "(plan_chunk c)\n{\n  undefined_thing;\n}\n", "mine.cu");
  fail_if (plan_nvrtc_compile (source, arch, &code, &err));
  fail_unless (strstr (err->message, "mine.cu(3)"), "%s", err->message);
  g_clear_error (&err);
  g_unsetenv ("PLAN_NVRTC_CACHE");
  g_free (source);
  g_free (text);
  g_free (path);
}

/* An out-shape that does not parse is quoted as given, spaces and all,
 * with the column counted in it; surrounding spaces are no error. */
GST_START_TEST (test_out_shape_error_quotes_it_as_given)
{
  PlanArrayInfo in, out;
  gint64 shape[] = { -1, 4 };
  GError *err = NULL;

  fail_unless (plan_array_info_set (&in, PLAN_DTYPE_FLOAT32, 2, shape, NULL));
  fail_if (plan_custom_get_output_info (PLAN_CUSTOM_MODE_MAP,
          PLAN_DTYPE_UNKNOWN, "  (3, x)", 1, &in, &out, &err));
  fail_unless (err != NULL);
  fail_unless (strstr (err->message, "'  (3, x)' at column 7") != NULL,
      "%s", err->message);
  g_clear_error (&err);
  fail_unless (plan_custom_get_output_info (PLAN_CUSTOM_MODE_MAP,
          PLAN_DTYPE_UNKNOWN, " 3 , 2 ", 1, &in, &out, &err));
  g_assert_no_error (err);
  fail_unless_equals_int (out.ndim, 3);
  fail_unless_equals_int (out.shape[1], 3);
  fail_unless_equals_int (out.shape[2], 2);
}

GST_END_TEST;

GST_START_TEST (test_cuda_example_compiles_sm80)
{
  compile_example ("sm_80");
}

GST_END_TEST;

GST_START_TEST (test_cuda_example_compiles_sm90)
{
  compile_example ("sm_90");
}

GST_END_TEST;

/* The file name goes into a #line directive, a C string literal: a quote
 * or a backslash in it is escaped, so that a good kernel compiles and an
 * error names the file as it is. */
GST_START_TEST (test_cuda_file_name_with_quote_or_backslash)
{
  const gchar *names[] = { "we\"ird.cu", "dir\\new\\k.cu", "tab\there.cu",
    "ünï.cu"
  };
  guint i;

  if (!plan_nvrtc_load (NULL)) {
    GST_INFO ("no libnvrtc: nothing compiled");
    return;
  }
  g_setenv ("PLAN_NVRTC_CACHE", "0", TRUE);
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    gchar *source, *at;
    GBytes *code = NULL;
    GError *err = NULL;

    source = plan_custom_cuda_source ("extern \"C\" __global__ void k "
        "(plan_chunk c)\n{\n}\n", names[i]);
    fail_unless (plan_nvrtc_compile (source, "compute_80", &code, &err),
        "%s: %s", names[i], err ? err->message : "");
    g_bytes_unref (code);
    g_free (source);
    source = plan_custom_cuda_source ("extern \"C\" __global__ void k "
        "(plan_chunk c)\n{\n  undefined_thing;\n}\n", names[i]);
    fail_if (plan_nvrtc_compile (source, "compute_80", &code, &err));
    at = g_strdup_printf ("%s(3)", names[i]);
    fail_unless (strstr (err->message, at) != NULL, "%s not in %s", at,
        err->message);
    g_free (at);
    g_clear_error (&err);
    g_free (source);
  }
  g_unsetenv ("PLAN_NVRTC_CACHE");
}

GST_END_TEST;

static Suite *
custom_suite (void)
{
  Suite *s = suite_create ("plancustom");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_registry);
  tcase_add_test (tc, test_call_errors);
  tcase_add_test (tc, test_array_kernel_error_returning_true);
  tcase_add_test (tc, test_library_errors);
  tcase_add_test (tc, test_library_in_current_directory_is_explained);
  tcase_add_test (tc, test_registered_in_pipeline);
  tcase_add_test (tc, test_halo_rows_in_every_chunk);
  tcase_add_test (tc, test_checked_call_reports_stray_writes);
  tcase_add_test (tc, test_checked_call_names_its_rows);
  tcase_add_test (tc, test_checked_call_reports_unwritten_rows);
  tcase_add_test (tc, test_out_shape_error_quotes_it_as_given);
  tcase_add_test (tc, test_cuda_example_compiles_sm80);
  tcase_add_test (tc, test_cuda_example_compiles_sm90);
  tcase_add_test (tc, test_cuda_file_name_with_quote_or_backslash);
  return s;
}

GST_CHECK_MAIN (custom);
