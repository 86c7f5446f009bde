/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the elements do with property values that cannot work, and with
 * values set while they compute (docs/reliability.md, "Properties"). */

#include <math.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/base/gstbasesrc.h>
#include <libplan/plan.h>

#include <glib/gstdio.h>

/* Builds @launch (its element under test named "e"), reads @prop back
 * after setting it to @value, and checks that going to PAUSED fails with
 * an error of @domain/@code saying each of the NULL-terminated needles. */
static void
check_refused_at_start (const gchar * launch, const gchar * prop,
    const gchar * value, GQuark domain, gint code, ...)
{
  GstElement *pipe, *e;
  GstMessage *msg;
  GError *err = NULL;
  gchar *back = NULL;
  const gchar *needle;
  va_list args;

  pipe = gst_parse_launch (launch, &err);
  fail_unless (pipe != NULL && err == NULL, "%s", launch);
  e = gst_bin_get_by_name (GST_BIN (pipe), "e");
  gst_util_set_object_arg (G_OBJECT (e), prop, value);
  {
    GValue v = G_VALUE_INIT;

    g_object_get_property (G_OBJECT (e), prop, &v);
    back = G_VALUE_HOLDS_STRING (&v) ? g_value_dup_string (&v) :
        gst_value_serialize (&v);
    g_value_unset (&v);
  }
  fail_unless_equals_string (back, value);
  g_free (back);

  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_poll (GST_ELEMENT_BUS (pipe), GST_MESSAGE_ERROR, 0);
  fail_unless (msg != NULL, "no error for %s=%s", prop, value);
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (e));
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, domain, code), "%s: %s (%s %d)", prop,
      err->message, g_quark_to_string (err->domain), err->code);
  va_start (args, code);
  while ((needle = va_arg (args, const gchar *)) != NULL)
    fail_unless (strstr (err->message, needle) != NULL, "'%s' not in: %s",
        needle, err->message);
  va_end (args);
  g_error_free (err);
  gst_message_unref (msg);
  /* One error: the state change failed at the element that said why
   * (planfilesrc too: GstBaseSrc would post its own "failed to start"
   * after a start() that fails, as with filesrc). */
  fail_unless (gst_bus_pop_filtered (GST_ELEMENT_BUS (pipe),
          GST_MESSAGE_ERROR) == NULL);

  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (e);
  gst_object_unref (pipe);
}

/* Every dtype property is the registered PlanDType enum (an editor offers
 * the list), read and written by nick; a name that is no dtype is refused
 * when it is set, as any enum value that does not exist. */
/* The helper the elements keep checked strings with: the value as given,
 * the reason it cannot work replaced by the next one (or cleared). */
GST_START_TEST (test_keep_setting_keeps_value_and_reason)
{
  GstElement *e = gst_element_factory_make ("planmap", NULL);
  PlanKernelElement *k;
  gchar *field = NULL;
  GError *rejected = NULL;

  fail_unless (e != NULL);
  k = PLAN_KERNEL_ELEMENT (e);
  plan_kernel_element_keep_setting (k, "expr", &field, "x +", &rejected,
      g_error_new_literal (PLAN_ERROR, PLAN_ERROR_SYNTAX, "first"));
  fail_unless_equals_string (field, "x +");
  fail_unless (g_error_matches (rejected, PLAN_ERROR, PLAN_ERROR_SYNTAX));
  fail_unless_equals_string (rejected->message, "first");

  plan_kernel_element_keep_setting (k, "expr", &field, "y *", &rejected,
      g_error_new_literal (PLAN_ERROR, PLAN_ERROR_SYNTAX, "second"));
  fail_unless_equals_string (field, "y *");
  fail_unless_equals_string (rejected->message, "second");

  plan_kernel_element_keep_setting (k, "expr", &field, "x + 1", &rejected,
      NULL);
  fail_unless_equals_string (field, "x + 1");
  fail_unless (rejected == NULL);

  /* An unchecked property: no reason kept anywhere. */
  plan_kernel_element_keep_setting (k, "expr", &field, NULL, NULL, NULL);
  fail_unless (field == NULL);

  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_dtype_properties_are_the_dtype_enum)
{
  const gchar *props[][2] = { {"planmap", "dtype"}, {"planreduce",
        "map-dtype"}, {"plancustom", "out-dtype"}, {"planfilesrc", "dtype"}
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (props); i++) {
    GstElement *e = gst_element_factory_make (props[i][0], NULL);
    GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
        props[i][1]);
    gchar *launch = g_strdup_printf ("%s %s=flaot32", props[i][0],
        props[i][1]);
    GstElement *bad;
    GError *err = NULL;
    gint v = -1;

    fail_unless (pspec != NULL && G_IS_PARAM_SPEC_ENUM (pspec)
        && pspec->value_type == PLAN_TYPE_DTYPE, "%s:%s", props[i][0],
        props[i][1]);
    fail_unless_equals_int (G_PARAM_SPEC_ENUM (pspec)->default_value,
        PLAN_DTYPE_UNKNOWN);
    gst_util_set_object_arg (G_OBJECT (e), props[i][1], "uint16");
    g_object_get (e, props[i][1], &v, NULL);
    fail_unless_equals_int (v, PLAN_DTYPE_UINT16);
    gst_object_unref (e);

    bad = gst_parse_launch (launch, &err);
    fail_unless (g_error_matches (err, GST_PARSE_ERROR,
            GST_PARSE_ERROR_COULD_NOT_SET_PROPERTY), "%s", launch);
    fail_unless (strstr (err->message, props[i][1]) != NULL, "%s",
        err->message);
    g_clear_error (&err);
    if (bad)
      gst_object_unref (bad);
    g_free (launch);
  }
}

GST_END_TEST;

GST_START_TEST (test_map_bad_expr_kept_and_fails_at_start)
{
  check_refused_at_start ("fakesrc ! planmap name=e ! fakesink",
      "expr", "x *", GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
      "planmap e, expr", "x *", "operand", NULL);
}

GST_END_TEST;

GST_START_TEST (test_stencil_bad_expr_kept_and_fails_at_start)
{
  check_refused_at_start ("fakesrc ! planstencil name=e window=\"x y z\" ! "
      "fakesink", "expr", "x +* z", GST_LIBRARY_ERROR,
      GST_LIBRARY_ERROR_SETTINGS, "planstencil e, expr", NULL);
}

GST_END_TEST;

GST_START_TEST (test_reduce_bad_expr_and_identity_kept_and_fail_at_start)
{
  check_refused_at_start ("fakesrc ! planreduce name=e identity=0 ! "
      "fakesink", "expr", "max(x,", GST_LIBRARY_ERROR,
      GST_LIBRARY_ERROR_SETTINGS, "planreduce e, expr", NULL);
  check_refused_at_start ("fakesrc ! planreduce name=e expr=\"x + y\" ! "
      "fakesink", "identity", "zero", GST_LIBRARY_ERROR,
      GST_LIBRARY_ERROR_SETTINGS, "identity \"zero\"", "not a number", NULL);
}

GST_END_TEST;

GST_START_TEST (test_filesrc_bad_shape_kept_and_fails_at_start)
{
  check_refused_at_start ("planfilesrc name=e location=/dev/null "
      "format=raw dtype=float32 ! fakesink", "shape", "<3,>",
      GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, "shape '<3,>'", NULL);
}

GST_END_TEST;

GST_START_TEST (test_upload_bad_device_kept_and_fails_at_start)
{
  check_refused_at_start ("fakesrc ! planupload name=e ! fakesink",
      "device", "bogus", GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "device \"bogus\"", NULL);
}

GST_END_TEST;

/* A number outside its property's valid range is kept as given (GLib's
 * own range check would refuse it with a warning, and the element would
 * run with the old value) and fails the start, naming the element, the
 * property, the value and the valid range. */
GST_START_TEST (test_number_out_of_range_kept_and_fails_at_start)
{
  const gchar *src = "planfilesrc name=e location=/dev/null format=raw "
      "dtype=uint8 ! fakesink";
  const gchar *sink = "fakesrc ! planfilesink name=e location=/dev/null";
  const gchar *custom = "fakesrc ! plancustom name=e ! fakesink";

  check_refused_at_start (src, "max-chunks", "0", GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS, "planfilesrc e: max-chunks=0 is out of "
      "range: valid values are 1 to 1024", NULL);
  check_refused_at_start (src, "blocksize", "1073741825",
      GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "blocksize=1073741825", "valid values are 0 to 1073741824", NULL);
  check_refused_at_start (src, "offset", "9223372036854775808",
      GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "offset=9223372036854775808",
      "valid values are 0 to 9223372036854775807", NULL);
  check_refused_at_start (src, "length", "-2", GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS, "length=-2",
      "valid values are -1 to 9223372036854775807", NULL);
  check_refused_at_start (sink, "max-pending", "0", GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS, "planfilesink e: max-pending=0", NULL);
  check_refused_at_start (sink, "compression", "10", GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS, "compression=10",
      "valid values are 0 to 9", NULL);
  check_refused_at_start (sink, "zarr-format", "4", GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS, "zarr-format=4", "valid values are 2 to 3",
      NULL);
  check_refused_at_start (sink, "chunk-rows", "4294967296",
      GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "chunk-rows=4294967296", "valid values are 0 to 4294967295", NULL);
  check_refused_at_start ("fakesrc ! npyparse name=e ! fakesink",
      "blocksize", "0", GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "npyparse e: blocksize=0", "valid values are 1 to 1073741824", NULL);
  check_refused_at_start ("fakesrc ! npyparse name=e ! fakesink", "rate",
      "-1/2", GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "npyparse e: rate=-1/2 is out of range: valid values are 0/1 to "
      "2147483647/1", NULL);
  check_refused_at_start ("fakesrc ! planupload name=e ! fakesink",
      "max-buffers", "0", GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "planupload e: max-buffers=0", "valid values are 1 to 1024", NULL);
  check_refused_at_start ("planarraysrc name=e ! fakesink", "blocksize",
      "4294967295", GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "planarraysrc e: blocksize=4294967295", NULL);
  check_refused_at_start ("fakesrc ! planmap name=e expr=x ! fakesink",
      "n-threads", "1025", GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
      "planmap e: n-threads=1025 is out of range: valid values are 0 to "
      "1024", NULL);
  check_refused_at_start ("fakesrc ! planreduce name=e op=var ! fakesink",
      "ddof", "-1", GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
      "planreduce e: ddof=-1 is out of range: valid values are 0 to 1e+18",
      NULL);
  check_refused_at_start ("fakesrc ! planreduce name=e op=var ! fakesink",
      "ddof", "nan", GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
      "planreduce e: ddof=nan is out of range: valid values are 0 to 1e+18",
      NULL);
  check_refused_at_start ("fakesrc ! planreduce name=e op=var ! fakesink",
      "ddof", "inf", GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
      "planreduce e: ddof=inf is out of range", NULL);
  check_refused_at_start (custom, "blocksize", "16", GST_LIBRARY_ERROR,
      GST_LIBRARY_ERROR_SETTINGS, "plancustom e: blocksize=16",
      "valid values are 32 to 1024", NULL);
  check_refused_at_start (custom, "halo", "4097", GST_LIBRARY_ERROR,
      GST_LIBRARY_ERROR_SETTINGS, "halo=4097", "valid values are 0 to 4096",
      NULL);
  check_refused_at_start (custom, "state-size", "1048577", GST_LIBRARY_ERROR,
      GST_LIBRARY_ERROR_SETTINGS, "state-size=1048577", NULL);
}

GST_END_TEST;

/* Whether GLib stores @v in the double property @pspec as it is, rather
 * than warning and keeping the old value. */
static gboolean
takes_double (GParamSpec * pspec, gdouble v)
{
  GValue value = G_VALUE_INIT;
  gboolean changed;

  g_value_init (&value, G_TYPE_DOUBLE);
  g_value_set_double (&value, v);
  changed = g_param_value_validate (pspec, &value);
  g_value_unset (&value);
  return !changed;
}

/* Whether @pspec, numeric, spans its whole type (the doubles: -inf to
 * inf and NaN, which a program reading a number from its user may be
 * given as any other; the fractions: -2147483647/1 to 2147483647/1,
 * negative ones too). */
static gboolean
spans_its_type (GParamSpec * pspec)
{
  GType t = G_PARAM_SPEC_VALUE_TYPE (pspec);

  if (t == G_TYPE_UINT)
    return G_PARAM_SPEC_UINT (pspec)->minimum == 0
        && G_PARAM_SPEC_UINT (pspec)->maximum == G_MAXUINT;
  if (t == G_TYPE_INT)
    return G_PARAM_SPEC_INT (pspec)->minimum == G_MININT
        && G_PARAM_SPEC_INT (pspec)->maximum == G_MAXINT;
  if (t == G_TYPE_UINT64)
    return G_PARAM_SPEC_UINT64 (pspec)->minimum == 0
        && G_PARAM_SPEC_UINT64 (pspec)->maximum == G_MAXUINT64;
  if (t == G_TYPE_INT64)
    return G_PARAM_SPEC_INT64 (pspec)->minimum == G_MININT64
        && G_PARAM_SPEC_INT64 (pspec)->maximum == G_MAXINT64;
  if (t == G_TYPE_ULONG)
    return G_PARAM_SPEC_ULONG (pspec)->minimum == 0
        && G_PARAM_SPEC_ULONG (pspec)->maximum == G_MAXULONG;
  if (t == G_TYPE_LONG)
    return G_PARAM_SPEC_LONG (pspec)->minimum == G_MINLONG
        && G_PARAM_SPEC_LONG (pspec)->maximum == G_MAXLONG;
  if (t == G_TYPE_UCHAR)
    return G_PARAM_SPEC_UCHAR (pspec)->minimum == 0
        && G_PARAM_SPEC_UCHAR (pspec)->maximum == G_MAXUINT8;
  if (t == G_TYPE_CHAR)
    return G_PARAM_SPEC_CHAR (pspec)->minimum == G_MININT8
        && G_PARAM_SPEC_CHAR (pspec)->maximum == G_MAXINT8;
  if (t == G_TYPE_DOUBLE)
    return takes_double (pspec, NAN) && takes_double (pspec, INFINITY)
        && takes_double (pspec, -INFINITY);
  if (t == G_TYPE_FLOAT)
    return G_PARAM_SPEC_FLOAT (pspec)->minimum <= -INFINITY
        && G_PARAM_SPEC_FLOAT (pspec)->maximum >= INFINITY;
  if (t == GST_TYPE_FRACTION) {
    GstParamSpecFraction *f = GST_PARAM_SPEC_FRACTION (pspec);

    return gst_util_fraction_compare (f->min_num, f->min_den, -G_MAXINT,
        1) <= 0 && gst_util_fraction_compare (f->max_num, f->max_den,
        G_MAXINT, 1) >= 0;
  }
  return TRUE;                  /* not a number */
}

/* Fails for each writable property of @type, defined by gst-plan (not
 * inherited from GStreamer), that is a number with a range narrower than
 * its type; returns how many properties it looked at. */
static guint
check_properties_span_their_types (GType type, const gchar * factory)
{
  GObjectClass *klass = g_type_class_ref (type);
  GParamSpec **pspecs;
  guint n, i, looked = 0;

  pspecs = g_object_class_list_properties (klass, &n);
  for (i = 0; i < n; i++) {
    const gchar *owner = g_type_name (pspecs[i]->owner_type);

    if (!(pspecs[i]->flags & G_PARAM_WRITABLE)
        || g_str_has_prefix (owner, "Gst") || g_str_equal (owner, "GObject"))
      continue;
    looked++;
    fail_unless (spans_its_type (pspecs[i]), "%s (%s): property %s has a "
        "range narrower than its type: GLib would refuse a value out of it "
        "with a warning and carry on. Make it with "
        "plan_param_spec_checked_range().", factory, owner,
        g_param_spec_get_name (pspecs[i]));
  }
  g_free (pspecs);
  g_type_class_unref (klass);
  return looked;
}

/* Every numeric property of every gst-plan element and of its pads spans
 * its type, so that a value out of its valid range reaches the element
 * and fails its start, rather than GLib warning and keeping the old
 * value; its blurb then says the valid range. A property added later
 * with a narrow range fails here. */
GST_START_TEST (test_numeric_properties_span_their_types)
{
  GList *features, *l;
  guint n_elements = 0, looked = 0;

  features = gst_registry_get_feature_list_by_plugin (gst_registry_get (),
      "plan");
  for (l = features; l; l = l->next) {
    GstElementFactory *factory;
    GstPluginFeature *loaded;
    GstElementClass *klass;
    GList *t;

    if (!GST_IS_ELEMENT_FACTORY (l->data))
      continue;
    loaded = gst_plugin_feature_load (l->data);
    fail_unless (loaded != NULL);
    factory = GST_ELEMENT_FACTORY (loaded);
    n_elements++;
    looked += check_properties_span_their_types
        (gst_element_factory_get_element_type (factory),
        GST_OBJECT_NAME (factory));
    klass = g_type_class_ref (gst_element_factory_get_element_type
        (factory));
    for (t = gst_element_class_get_pad_template_list (klass); t;
        t = t->next) {
      GType pad_type = GST_PAD_TEMPLATE_GTYPE (t->data);

      if (pad_type != G_TYPE_NONE && pad_type != GST_TYPE_PAD)
        looked += check_properties_span_their_types (pad_type,
            GST_OBJECT_NAME (factory));
    }
    g_type_class_unref (klass);
    gst_object_unref (loaded);
  }
  gst_plugin_feature_list_free (features);
  /* The plugin was found, and its elements have properties. */
  fail_unless (n_elements >= 10, "%u elements", n_elements);
  fail_unless (looked >= 30, "%u properties", looked);
}

GST_END_TEST;

/* A valid value set after an invalid one clears it. */
GST_START_TEST (test_good_value_after_bad_one_starts)
{
  GstElement *pipe, *e;

  pipe = gst_parse_launch ("fakesrc num-buffers=0 ! planmap name=e ! "
      "fakesink", NULL);
  e = gst_bin_get_by_name (GST_BIN (pipe), "e");
  g_object_set (e, "expr", "x +", NULL);
  g_object_set (e, "expr", "x + 1", "dtype", PLAN_DTYPE_FLOAT32, NULL);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (e);
  gst_object_unref (pipe);
}

GST_END_TEST;

static GstBuffer *
f32_rows (guint64 first, guint n, gfloat scale)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n * sizeof (gfloat), NULL);
  GstMapInfo map;
  guint i;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (i = 0; i < n; i++)
    ((gfloat *) map.data)[i] = scale * (first + i);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_OFFSET (buf) = first;
  GST_BUFFER_OFFSET_END (buf) = first + n;
  return buf;
}

/* expr is read when the first caps arrive: set while PLAYING after that it
 * would read back new and compute old. The set is refused: the value stays
 * what is computed, and a warning names the property. n-threads
 * (GST_PARAM_MUTABLE_PLAYING) still changes. */
GST_START_TEST (test_map_expr_set_while_computing_is_refused)
{
  GstHarness *h = gst_harness_new_with_padnames ("planmap", "sink_0", "src");
  GstBus *bus = gst_bus_new ();
  GstBuffer *out;
  GstMapInfo map;
  GstMessage *msg;
  GError *err = NULL;
  gchar *expr = NULL;
  guint n_threads = 0;

  gst_element_set_bus (h->element, bus);
  /* Before the caps, a set takes effect. */
  g_object_set (h->element, "expr", "x + 1", NULL);
  g_object_set (h->element, "expr", "x * 2", NULL);
  gst_harness_set_src_caps_str (h, "array/x-raw, dtype=float32, shape=<8>");
  fail_unless_equals_int (gst_harness_push (h, f32_rows (0, 4, 1)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_float (((gfloat *) map.data)[3], 6.0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);

  g_object_set (h->element, "expr", "x - 100", "n-threads", 1, NULL);
  g_object_get (h->element, "expr", &expr, "n-threads", &n_threads, NULL);
  fail_unless_equals_string (expr, "x * 2");
  fail_unless_equals_int (n_threads, 1);
  g_free (expr);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_LIBRARY_ERROR,
          GST_LIBRARY_ERROR_SETTINGS));
  fail_unless (strstr (err->message, "expr cannot change") != NULL, "%s",
      err->message);
  g_error_free (err);
  gst_message_unref (msg);

  fail_unless_equals_int (gst_harness_push (h, f32_rows (4, 4, 1)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_float (((gfloat *) map.data)[0], 8.0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A thread count out of range set while the element computes has no
 * start left to fail: the set is refused with a warning naming the
 * property, the value and the valid range, and the old value stays. */
GST_START_TEST (test_number_out_of_range_set_while_computing_is_refused)
{
  GstHarness *h = gst_harness_new_with_padnames ("planmap", "sink_0", "src");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  guint n_threads = 0;

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "expr", "x * 2", "n-threads", 2, NULL);
  gst_harness_set_src_caps_str (h, "array/x-raw, dtype=float32, shape=<8>");
  fail_unless_equals_int (gst_harness_push (h, f32_rows (0, 4, 1)),
      GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));

  g_object_set (h->element, "n-threads", 5000, NULL);
  g_object_get (h->element, "n-threads", &n_threads, NULL);
  fail_unless_equals_int (n_threads, 2);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_LIBRARY_ERROR,
          GST_LIBRARY_ERROR_SETTINGS));
  fail_unless (strstr (err->message, "n-threads=5000 is out of range: "
          "valid values are 0 to 1024; it keeps its value") != NULL, "%s",
      err->message);
  g_error_free (err);
  gst_message_unref (msg);
  /* In range, it takes effect while computing. */
  g_object_set (h->element, "n-threads", 3, NULL);
  g_object_get (h->element, "n-threads", &n_threads, NULL);
  fail_unless_equals_int (n_threads, 3);
  fail_unless_equals_int (gst_harness_push (h, f32_rows (4, 4, 1)),
      GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Takes the next warning from @bus: library / settings, saying that
 * @prop cannot change. */
static void
expect_refused_set (GstBus * bus, const gchar * prop)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  GError *err = NULL;
  gchar *want = g_strdup_printf ("%s cannot change while the element is "
      "PAUSED", prop);

  fail_unless (msg != NULL, "no warning for %s", prop);
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_LIBRARY_ERROR,
          GST_LIBRARY_ERROR_SETTINGS), "%s", err->message);
  fail_unless (strstr (err->message, want) != NULL, "%s", err->message);
  g_error_free (err);
  g_free (want);
  gst_message_unref (msg);
}

/* Sources, sinks, the parser and the upload read their settings as they
 * start: a property changeable only in NULL or READY, set while PAUSED,
 * is refused as the kernel elements refuse it (it kept the value
 * given, silently unused, or was ignored without a word); set in READY
 * again, it takes effect. */
GST_START_TEST (test_source_and_sink_settings_set_while_running_are_refused)
{
  const gint64 shape[2] = { 4, 3 };
  gchar *dir = g_dir_make_tmp ("settings-XXXXXX", NULL);
  gchar *in = g_build_filename (dir, "in.npy", NULL);
  gchar *out = g_build_filename (dir, "out.npy", NULL);
  gchar *launch, *location = NULL;
  PlanArrayInfo info;
  guint8 file[128 + 48] = { 0 };
  GstElement *pipe, *src, *sink, *parse, *up;
  GstBus *bus;
  GError *err = NULL;
  guint blocksize = 0, compression = 9, max_buffers = 0;
  guint64 offset = 9;

  fail_unless (dir != NULL);
  fail_unless (plan_array_info_set (&info, PLAN_DTYPE_FLOAT32, 2, shape,
          NULL));
  fail_unless_equals_int (plan_npy_get_header_size (&info), 128);
  fail_unless (plan_npy_write_header (&info, file, 128, NULL));
  fail_unless (g_file_set_contents (in, (gchar *) file, sizeof file, NULL));

  launch = g_strdup_printf ("planfilesrc name=src location=%s blocksize=12 "
      "! planupload name=up device=sim ! plandownload ! "
      "planfilesink name=sink location=%s "
      "filesrc location=%s ! npyparse name=parse blocksize=24 ! fakesink",
      in, out, in);
  pipe = gst_parse_launch (launch, &err);
  g_free (launch);
  fail_unless (pipe != NULL && err == NULL);
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  parse = gst_bin_get_by_name (GST_BIN (pipe), "parse");
  up = gst_bin_get_by_name (GST_BIN (pipe), "up");
  bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_element_get_state (pipe, NULL, NULL,
          10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);

  g_object_set (src, "location", out, NULL);
  expect_refused_set (bus, "location");
  g_object_set (src, "blocksize", 24, "offset", (guint64) 2, NULL);
  expect_refused_set (bus, "blocksize");
  expect_refused_set (bus, "offset");
  g_object_set (sink, "location", in, "compression", 3, NULL);
  expect_refused_set (bus, "location");
  expect_refused_set (bus, "compression");
  g_object_set (parse, "blocksize", 12, NULL);
  expect_refused_set (bus, "blocksize");
  g_object_set (up, "max-buffers", 2, NULL);
  expect_refused_set (bus, "max-buffers");

  g_object_get (src, "location", &location, "blocksize", &blocksize,
      "offset", &offset, NULL);
  fail_unless_equals_string (location, in);
  fail_unless_equals_int (blocksize, 12);
  fail_unless_equals_uint64 (offset, 0);
  g_free (location);
  g_object_get (sink, "location", &location, "compression", &compression,
      NULL);
  fail_unless_equals_string (location, out);
  fail_unless_equals_int (compression, 0);
  g_free (location);
  g_object_get (parse, "blocksize", &blocksize, NULL);
  fail_unless_equals_int (blocksize, 24);
  g_object_get (up, "max-buffers", &max_buffers, NULL);
  fail_unless_equals_int (max_buffers, 4);

  /* In READY they are set. */
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  g_object_set (src, "offset", (guint64) 2, NULL);
  g_object_set (parse, "blocksize", 12, NULL);
  g_object_get (src, "offset", &offset, NULL);
  g_object_get (parse, "blocksize", &blocksize, NULL);
  fail_unless_equals_uint64 (offset, 2);
  fail_unless_equals_int (blocksize, 12);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL);

  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (parse);
  gst_object_unref (up);
  gst_object_unref (pipe);
  g_unlink (in);
  g_unlink (out);
  g_rmdir (dir);
  g_free (in);
  g_free (out);
  g_free (dir);
}

GST_END_TEST;

/* scipy takes cval=np.nan and np.inf: so do planstencil and plancustom,
 * through GObject as through a launch line. */
GST_START_TEST (test_cval_takes_nan_and_inf)
{
  const gchar *factories[] = { "planstencil", "plancustom" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (factories); i++) {
    GstElement *e = gst_element_factory_make (factories[i], NULL);
    GParamSpec *pspec =
        g_object_class_find_property (G_OBJECT_GET_CLASS (e), "cval");
    gdouble v = 0;

    fail_unless (G_IS_PARAM_SPEC_DOUBLE (pspec));
    g_object_set (e, "cval", NAN, NULL);
    g_object_get (e, "cval", &v, NULL);
    fail_unless (isnan (v), "%s: %g", factories[i], v);
    g_object_set (e, "cval", -INFINITY, NULL);
    g_object_get (e, "cval", &v, NULL);
    fail_unless (isinf (v) && v < 0, "%s: %g", factories[i], v);
    gst_util_set_object_arg (G_OBJECT (e), "cval", "inf");
    g_object_get (e, "cval", &v, NULL);
    fail_unless (isinf (v) && v > 0, "%s: %g", factories[i], v);
    gst_util_set_object_arg (G_OBJECT (e), "cval", "nan");
    g_object_get (e, "cval", &v, NULL);
    fail_unless (isnan (v), "%s: %g", factories[i], v);
    g_object_set (e, "cval", 2.5, NULL);
    g_object_get (e, "cval", &v, NULL);
    fail_unless_equals_float (v, 2.5);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* The elements of the plugin, each once. */
static GList *
plan_factories (void)
{
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (), "plan");
  GList *features, *l, *out = NULL;

  fail_unless (plugin != NULL);
  features = gst_registry_get_feature_list_by_plugin (gst_registry_get (),
      "plan");
  for (l = features; l; l = l->next)
    if (GST_IS_ELEMENT_FACTORY (l->data))
      out = g_list_prepend (out, gst_object_ref (l->data));
  gst_plugin_feature_list_free (features);
  gst_object_unref (plugin);
  return out;
}

/* Editors show an enum as a list by value (GstPipelineStudio uses the
 * value as the index): every enum property's values are 0, 1, ... */
GST_START_TEST (test_enum_values_are_small_consecutive_integers)
{
  GList *factories = plan_factories (), *l;
  guint checked = 0;

  for (l = factories; l; l = l->next) {
    GstElement *e = gst_element_factory_create (l->data, NULL);
    GParamSpec **props;
    guint n, i;

    props = g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n);
    for (i = 0; i < n; i++) {
      GEnumClass *klass;
      guint k;

      if (!G_IS_PARAM_SPEC_ENUM (props[i]))
        continue;
      klass = G_PARAM_SPEC_ENUM (props[i])->enum_class;
      for (k = 0; k < klass->n_values; k++)
        fail_unless_equals_int (klass->values[k].value, k);
      checked++;
    }
    g_free (props);
    gst_object_unref (e);
  }
  fail_unless (checked >= 8, "only %u enum properties", checked);
  g_list_free_full (factories, gst_object_unref);
}

GST_END_TEST;

/* With values 0, 1, 2 a number that is no nick must still not select an
 * axis: "1" (numpy's per-row axis of a 2-D array) is refused. */
GST_START_TEST (test_reduce_axis_takes_nicks_only)
{
  GValue v = G_VALUE_INIT;
  GstElement *e = gst_element_factory_make ("planreduce", NULL);

  g_value_init (&v, PLAN_TYPE_REDUCE_AXIS);
  fail_unless (gst_value_deserialize (&v, "all"));
  fail_unless_equals_int (g_value_get_enum (&v), PLAN_REDUCE_AXIS_ALL);
  fail_unless (gst_value_deserialize (&v, "0"));
  fail_unless_equals_int (g_value_get_enum (&v), PLAN_REDUCE_AXIS_ROWS);
  fail_unless (gst_value_deserialize (&v, "-1"));
  fail_unless_equals_int (g_value_get_enum (&v), PLAN_REDUCE_AXIS_INNER);
  fail_unless (gst_value_deserialize (&v, "1"));
  fail_unless_equals_int (g_value_get_enum (&v), PLAN_REDUCE_AXIS_1);
  fail_if (gst_value_deserialize (&v, "2"));
  fail_if (gst_value_deserialize (&v, "3"));
  fail_if (gst_value_deserialize (&v, "256"));
  g_value_unset (&v);
  gst_object_unref (e);
}

GST_END_TEST;

/* What editors show of an element before it is named: an element made
 * without a name is named after its factory (npyparse0, as GStreamer's
 * own), every enum value's description reads as words (not a C name), and
 * block sizes are spelled blocksize, any other spelling being a deprecated
 * alias of it. */
GST_START_TEST (test_names_enums_and_spellings_for_editors)
{
  GList *factories = plan_factories (), *l;
  guint enums = 0;

  for (l = factories; l; l = l->next) {
    const gchar *factory = GST_OBJECT_NAME (l->data);
    GstElement *e = gst_element_factory_create (l->data, NULL);
    gchar *name = gst_object_get_name (GST_OBJECT (e));
    GParamSpec **props;
    guint n, i;

    fail_unless (g_str_has_prefix (name, factory)
        && name[strlen (factory)] != '\0'
        && strspn (name + strlen (factory), "0123456789") ==
        strlen (name + strlen (factory)), "%s made without a name is %s",
        factory, name);
    g_free (name);
    props = g_object_class_list_properties (G_OBJECT_GET_CLASS (e), &n);
    for (i = 0; i < n; i++) {
      const gchar *prop = g_param_spec_get_name (props[i]);

      /* Ours: GStreamer's base classes' enums are as GStreamer made them. */
      if (G_IS_PARAM_SPEC_ENUM (props[i])
          && g_str_has_prefix (g_type_name (props[i]->value_type), "Plan")) {
        GEnumClass *klass = G_PARAM_SPEC_ENUM (props[i])->enum_class;
        guint k;

        for (k = 0; k < klass->n_values; k++)
          fail_if (g_regex_match_simple ("^[A-Z0-9_]+$|[A-Z]+_[A-Z_]+",
                  klass->values[k].value_name, 0, 0), "%s:%s value %s: %s",
              factory, prop, klass->values[k].value_nick,
              klass->values[k].value_name);
        enums++;
      }
      if (g_str_equal (prop, "block-size") || g_str_equal (prop, "block_size"))
        fail_unless ((props[i]->flags & G_PARAM_DEPRECATED)
            && g_object_class_find_property (G_OBJECT_GET_CLASS (e),
                "blocksize"), "%s:%s", factory, prop);
    }
    g_free (props);
    gst_object_unref (e);
  }
  fail_unless (enums > 0);
  g_list_free_full (factories, gst_object_unref);
}

GST_END_TEST;

/* plancustom's old block-size sets and reads blocksize. */
GST_START_TEST (test_custom_block_size_alias)
{
  GstElement *e = gst_element_factory_make ("plancustom", NULL);
  guint v = 0;

  gst_util_set_object_arg (G_OBJECT (e), "block-size", "64");
  g_object_get (e, "blocksize", &v, NULL);
  fail_unless_equals_int (v, 64);
  g_object_set (e, "blocksize", 512, NULL);
  g_object_get (e, "block-size", &v, NULL);
  fail_unless_equals_int (v, 512);
  gst_object_unref (e);
}

GST_END_TEST;

/* No placeholder in what gst-inspect-1.0 and editors show; each element's
 * doc URI names its page of docs/. */
GST_START_TEST (test_metadata_has_no_placeholders)
{
  GList *factories = plan_factories (), *l;
  const gchar *src = g_getenv ("PLAN_SOURCE_DIR");
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (), "plan");

  fail_if (strstr (gst_plugin_get_origin (plugin), ".invalid"));
  gst_object_unref (plugin);
  for (l = factories; l; l = l->next) {
    GstElementFactory *f = l->data;
    const gchar *keys[] = { GST_ELEMENT_METADATA_AUTHOR,
      GST_ELEMENT_METADATA_LONGNAME, GST_ELEMENT_METADATA_DESCRIPTION
    };
    const gchar *uri = gst_element_factory_get_metadata (f,
        GST_ELEMENT_METADATA_DOC_URI);
    gchar *page;
    guint k;

    for (k = 0; k < G_N_ELEMENTS (keys); k++)
      fail_if (strstr (gst_element_factory_get_metadata (f, keys[k]),
              ".invalid"), "%s", GST_OBJECT_NAME (f));
    /* The author names a contact, "Name <address>", as GStreamer's own
     * elements do. */
    fail_unless (g_regex_match_simple ("^[^<>@]+ <[^<>@ ]+@[^<>@ ]+\\.[a-z]+>$",
            gst_element_factory_get_metadata (f, GST_ELEMENT_METADATA_AUTHOR),
            0, 0), "%s: author \"%s\"", GST_OBJECT_NAME (f),
        gst_element_factory_get_metadata (f, GST_ELEMENT_METADATA_AUTHOR));
    fail_unless (uri != NULL, "%s has no doc URI", GST_OBJECT_NAME (f));
    fail_unless (g_str_has_prefix (uri, "file://")
        && g_str_has_suffix (uri, ".md"), "%s", uri);
    if (src) {
      gchar *base = g_path_get_basename (uri);

      gchar *own = g_strdup_printf ("%s.md", GST_OBJECT_NAME (f));

      page = g_build_filename (src, "docs", base, NULL);
      fail_unless (g_file_test (page, G_FILE_TEST_EXISTS), "%s: %s",
          GST_OBJECT_NAME (f), page);
      g_free (page);
      /* An element with a page of its own (docs/npymux.md) names that
       * page, not a neighbour's. */
      page = g_build_filename (src, "docs", own, NULL);
      if (g_file_test (page, G_FILE_TEST_EXISTS))
        fail_unless (strcmp (base, own) == 0, "%s: its doc URI names %s, "
            "but it has a page of its own, %s", GST_OBJECT_NAME (f), base,
            own);
      g_free (page);
      g_free (own);
      g_free (base);
    }
  }
  g_list_free_full (factories, gst_object_unref);
}

GST_END_TEST;

/* What gst-inspect-1.0 says of the file elements names every format they
 * read or write (planfilesrc described itself as reading raw and .npy
 * files only; planfilesink's format left out Zarr). */
GST_START_TEST (test_file_elements_name_their_formats)
{
  GstElementFactory *f = gst_element_factory_find ("planfilesrc");
  GstElement *src = gst_element_factory_make ("planfilesrc", NULL);
  GstElement *sink = gst_element_factory_make ("planfilesink", NULL);
  const gchar *words[] = { ".npy", ".npz", "HDF5", "NetCDF-4", "Zarr" };
  const gchar *text;
  guint i;

  fail_unless (f != NULL && src != NULL && sink != NULL);
  text = gst_element_factory_get_metadata (f, GST_ELEMENT_METADATA_DESCRIPTION);
  for (i = 0; i < G_N_ELEMENTS (words); i++)
    fail_unless (strstr (text, words[i]) != NULL, "%s: %s", words[i], text);
  text = g_param_spec_get_blurb (g_object_class_find_property
      (G_OBJECT_GET_CLASS (src), "location"));
  for (i = 0; i < G_N_ELEMENTS (words); i++)
    fail_unless (strstr (text, words[i]) != NULL, "%s: %s", words[i], text);
  text = g_param_spec_get_blurb (g_object_class_find_property
      (G_OBJECT_GET_CLASS (sink), "format"));
  fail_unless (strstr (text, ".zarr") != NULL, "%s", text);
  fail_unless (strstr (text, ".h5") != NULL, "%s", text);
  gst_object_unref (f);
  gst_object_unref (src);
  gst_object_unref (sink);
}

GST_END_TEST;

/* GstPipelineStudio writes name=value unquoted: a window spelled with
 * commas needs no blanks, and is the same window as with blanks. */
GST_START_TEST (test_stencil_window_without_blanks)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch ("fakesrc ! planstencil name=e "
      "window=_,n,_;w,c,e;_,s,_ expr=n+s+e+w-4*c ! fakesink", &err);
  GstElement *e;
  PlanWindow *a, *b;
  gchar *w, *sa, *sb;

  fail_unless (pipe != NULL && err == NULL);
  e = gst_bin_get_by_name (GST_BIN (pipe), "e");
  g_object_get (e, "window", &w, NULL);
  fail_unless_equals_string (w, "_,n,_;w,c,e;_,s,_");
  a = plan_window_parse (w, NULL);
  b = plan_window_parse ("_ n _; w c e; _ s _", NULL);
  fail_unless (a != NULL && b != NULL);
  sa = plan_window_to_string (a);
  sb = plan_window_to_string (b);
  fail_unless_equals_string (sa, sb);
  g_free (sa);
  g_free (sb);
  plan_window_unref (a);
  plan_window_unref (b);
  g_free (w);
  gst_object_unref (e);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* Editors number pads in their own order: a pad's variable property names
 * its input, set on a launch line through the element's child proxy. */
GST_START_TEST (test_map_pad_variable_property)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch ("planmap name=m expr=a-b "
      "sink_0::variable=b sink_1::variable=a ! fakesink "
      "fakesrc ! m.sink_1 fakesrc ! m.sink_0", &err);
  GstElement *m;
  GstPad *pad;
  gchar *var = NULL;

  fail_unless (pipe != NULL && err == NULL, "%s", err ? err->message : "");
  m = gst_bin_get_by_name (GST_BIN (pipe), "m");
  pad = gst_element_get_static_pad (m, "sink_1");
  fail_unless (pad != NULL);
  g_object_get (pad, "variable", &var, NULL);
  fail_unless_equals_string (var, "a");
  g_free (var);
  gst_object_unref (pad);
  gst_object_unref (m);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* The log messages of category "planmap", collected while a test runs. */
static GString *planmap_log;

static void
collect_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  if (g_str_equal (gst_debug_category_get_name (category), "planmap")
      && level <= GST_LEVEL_INFO) {
    g_string_append (planmap_log, gst_debug_message_get (message));
    g_string_append_c (planmap_log, '\n');
  }
}

/* GST_DEBUG=planmap:4 says what the element decided: its target and
 * threads, each input's caps and the output's, how chunks are sliced, the
 * expression. (The base class used to log it all in its own category.) */
GST_START_TEST (test_map_logs_decisions_in_its_category)
{
  GstHarness *h;
  const gchar *needles[] = { "starting: target=auto", "worker threads",
    "input sink_0: array/x-raw", "output: array/x-raw",
    "rows at a time on the host", "compiled 'x * 2' with 1 inputs"
  };
  guint i;

  gst_debug_set_active (TRUE);
  planmap_log = g_string_new (NULL);
  gst_debug_set_threshold_for_name ("planmap", GST_LEVEL_INFO);
  gst_debug_add_log_function (collect_log, NULL, NULL);

  h = gst_harness_new_with_padnames ("planmap", "sink_0", "src");
  g_object_set (h->element, "expr", "x * 2", NULL);
  gst_harness_set_src_caps_str (h, "array/x-raw, dtype=float32, shape=<8>");
  fail_unless_equals_int (gst_harness_push (h, f32_rows (0, 8, 1)),
      GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  gst_harness_teardown (h);

  gst_debug_remove_log_function (collect_log);
  gst_debug_set_threshold_for_name ("planmap", GST_LEVEL_ERROR);
  for (i = 0; i < G_N_ELEMENTS (needles); i++)
    fail_unless (strstr (planmap_log->str, needles[i]) != NULL,
        "'%s' not logged in planmap:\n%s", needles[i], planmap_log->str);
  g_string_free (planmap_log, TRUE);
}

GST_END_TEST;

/* Pushes one chunk of @caps into @h's element and returns the error it
 * posts. */
static GError *
error_at_caps (GstHarness * h, const gchar * caps)
{
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, caps);
  gst_harness_push (h, f32_rows (0, 8, 1));
  msg = gst_bus_poll (bus, GST_MESSAGE_ERROR, 5 * GST_SECOND);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  return err;
}

/* An expression that does not fit its inputs (a name not bound) is a
 * settings error in every element, not a negotiation one; inputs whose
 * shapes differ are negotiation. docs/reliability.md has the table. */
GST_START_TEST (test_expression_errors_are_library_settings)
{
  const gchar *caps = "array/x-raw, dtype=float32, shape=<8>";
  GstHarness *h;
  GError *err;

  h = gst_harness_new_with_padnames ("planmap", "sink_0", "src");
  g_object_set (h->element, "expr", "x + q", NULL);
  err = error_at_caps (h, caps);
  fail_unless (g_error_matches (err, GST_LIBRARY_ERROR,
          GST_LIBRARY_ERROR_SETTINGS), "%s", err->message);
  g_error_free (err);
  gst_harness_teardown (h);

  h = gst_harness_new ("planreduce");
  g_object_set (h->element, "map", "x * q", NULL);
  err = error_at_caps (h, caps);
  fail_unless (g_error_matches (err, GST_LIBRARY_ERROR,
          GST_LIBRARY_ERROR_SETTINGS), "%s", err->message);
  g_error_free (err);
  gst_harness_teardown (h);

  h = gst_harness_new ("planstencil");
  g_object_set (h->element, "window", "x y z", "expr", "x + q", NULL);
  err = error_at_caps (h, caps);
  fail_unless (g_error_matches (err, GST_LIBRARY_ERROR,
          GST_LIBRARY_ERROR_SETTINGS), "%s", err->message);
  g_error_free (err);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Every kernel element's sink pads have PlanKernelPad's variable and
 * window; one an element does not read (planmap: window; planreduce and
 * plancustom: both) fails at negotiation naming the pad and the value,
 * instead of being ignored. */
GST_START_TEST (test_pad_settings_an_element_does_not_read_are_refused)
{
  const struct
  {
    const gchar *factory;
    const gchar *pad;
    const gchar *prop;
  } cases[] = {
    {"planmap", "sink_0", "window"},
    {"planreduce", "sink", "variable"},
    {"planreduce", "sink", "window"},
    {"plancustom", "sink_0", "variable"},
    {"plancustom", "sink_0", "window"},
  };
  const gchar *caps = "array/x-raw, dtype=float32, shape=<8>";
  gchar *softmax = g_build_filename (g_getenv ("PLAN_BUILD_DIR"), "tests",
      "examples", "libsoftmax.so", NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstHarness *h = gst_harness_new_with_padnames (cases[i].factory,
        cases[i].pad, "src");
    GstPad *pad = gst_element_get_static_pad (h->element, cases[i].pad);
    gchar *needle = g_strdup_printf ("its pad %s has %s=\"a b\", which %s "
        "does not read", cases[i].pad, cases[i].prop, cases[i].factory);
    GError *err;

    if (strcmp (cases[i].factory, "planmap") == 0)
      g_object_set (h->element, "expr", "2*x", NULL);
    else if (strcmp (cases[i].factory, "plancustom") == 0)
      g_object_set (h->element, "library", softmax, "symbol", "softmax",
          NULL);
    g_object_set (pad, cases[i].prop, "a b", NULL);
    err = error_at_caps (h, caps);
    fail_unless (g_error_matches (err, GST_LIBRARY_ERROR,
            GST_LIBRARY_ERROR_SETTINGS), "%s", err->message);
    fail_unless (strstr (err->message, needle) != NULL, "'%s' not in %s",
        needle, err->message);
    g_error_free (err);
    g_free (needle);
    gst_object_unref (pad);
    gst_harness_teardown (h);
  }
  g_free (softmax);
}

GST_END_TEST;

/* A kernel element whose setup() waits at a gate that the test opens, so
 * that the test can act while the element configures its inputs. */
#define TEST_TYPE_SLOW_SETUP (test_slow_setup_get_type ())
G_DECLARE_FINAL_TYPE (TestSlowSetup, test_slow_setup, TEST, SLOW_SETUP,
    PlanKernelElement);

struct _TestSlowSetup
{
  PlanKernelElement parent;
};

G_DEFINE_TYPE (TestSlowSetup, test_slow_setup, PLAN_TYPE_KERNEL_ELEMENT);

static GMutex gate_lock;
static GCond gate_cond;
static gboolean in_setup, gate_open, request_done;
static GstPad *requested;

static gboolean
test_slow_setup_setup (PlanKernelElement * self, guint n_inputs,
    const PlanArrayInfo * inputs, PlanArrayInfo * output, GError ** error)
{
  g_mutex_lock (&gate_lock);
  in_setup = TRUE;
  g_cond_broadcast (&gate_cond);
  while (!gate_open)
    g_cond_wait (&gate_cond, &gate_lock);
  g_mutex_unlock (&gate_lock);
  *output = inputs[0];
  return TRUE;
}

static GstFlowReturn
test_slow_setup_process (PlanKernelElement * self, const PlanChunk * chunk)
{
  gsize size = chunk->n_rows * plan_array_info_get_row_size
      (plan_kernel_element_get_output_info (self));
  GstBuffer *out;
  GstFlowReturn ret;

  ret = plan_kernel_element_alloc_output (self, chunk->n_rows, &out);
  if (ret != GST_FLOW_OK)
    return ret;
  gst_buffer_fill (out, 0, chunk->data[0], size);
  return plan_kernel_element_push_output (self, out);
}

static void
test_slow_setup_class_init (TestSlowSetupClass * klass)
{
  PlanKernelElementClass *kclass = PLAN_KERNEL_ELEMENT_CLASS (klass);

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "Test slow setup", "Filter/Array", "copies its input after a setup() "
      "that waits for the test", "gst-plan authors");
  plan_kernel_element_class_add_pad_templates (kclass, TRUE);
  kclass->setup = test_slow_setup_setup;
  kclass->process = test_slow_setup_process;
}

static void
test_slow_setup_init (TestSlowSetup * self)
{
}

static gpointer
request_pad_thread (gpointer element)
{
  GstPad *pad = gst_element_request_pad_simple (element, "sink_%u");

  g_mutex_lock (&gate_lock);
  requested = pad;
  request_done = TRUE;
  g_cond_broadcast (&gate_cond);
  g_mutex_unlock (&gate_lock);
  return NULL;
}

/* A sink pad requested while the element configures its inputs (between
 * its list of the pads and setup() having read them) waits for the
 * configuration and is refused with the warning of a request while the
 * element computes. Added behind the list that was set up, it made the
 * next aggregate() fail saying the element "lost an input" (it had
 * gained one), or wait for ever for the new pad's data. */
GST_START_TEST (test_pad_requested_while_configuring_is_refused)
{
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  GstBuffer *out;
  GThread *thread;
  gboolean added_during_setup;
  gint64 until;
  GstMapInfo map;

  fail_unless (gst_element_register (NULL, "testslowsetup", GST_RANK_NONE,
          TEST_TYPE_SLOW_SETUP));
  in_setup = gate_open = request_done = FALSE;
  requested = NULL;
  h = gst_harness_new_with_padnames ("testslowsetup", "sink_0", "src");
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, "array/x-raw, dtype=float32, shape=<4>");
  fail_unless_equals_int (gst_harness_push (h, f32_rows (0, 4, 1)),
      GST_FLOW_OK);

  g_mutex_lock (&gate_lock);
  until = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  while (!in_setup)
    fail_unless (g_cond_wait_until (&gate_cond, &gate_lock, until),
        "setup() was not called");
  g_mutex_unlock (&gate_lock);

  /* setup() waits: the request either waits for it, or is done now. */
  thread = g_thread_new ("request", request_pad_thread, h->element);
  g_mutex_lock (&gate_lock);
  until = g_get_monotonic_time () + 300 * G_TIME_SPAN_MILLISECOND;
  while (!request_done && g_cond_wait_until (&gate_cond, &gate_lock, until));
  added_during_setup = request_done;
  gate_open = TRUE;
  g_cond_broadcast (&gate_cond);
  g_mutex_unlock (&gate_lock);
  g_thread_join (thread);

  fail_if (added_during_setup, "the request was answered (%s) while "
      "setup() read the inputs", requested ? "a pad" : "NULL");
  fail_unless (requested == NULL, "a pad was added after the inputs were "
      "set up");
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning for the refused request");
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (strstr (err->message, "an input cannot be added while the "
          "element computes") != NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);

  /* It computes on with the input it had. */
  out = gst_harness_pull (h);
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, 16);
  fail_unless_equals_float (((gfloat *) map.data)[3], 3.0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
settings_suite (void)
{
  Suite *s = suite_create ("settings");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_dtype_properties_are_the_dtype_enum);
  tcase_add_test (tc, test_map_bad_expr_kept_and_fails_at_start);
  tcase_add_test (tc, test_stencil_bad_expr_kept_and_fails_at_start);
  tcase_add_test (tc, test_reduce_bad_expr_and_identity_kept_and_fail_at_start);
  tcase_add_test (tc, test_filesrc_bad_shape_kept_and_fails_at_start);
  tcase_add_test (tc, test_upload_bad_device_kept_and_fails_at_start);
  tcase_add_test (tc, test_good_value_after_bad_one_starts);
  tcase_add_test (tc, test_number_out_of_range_kept_and_fails_at_start);
  tcase_add_test (tc, test_numeric_properties_span_their_types);
  tcase_add_test (tc,
      test_number_out_of_range_set_while_computing_is_refused);
  tcase_add_test (tc, test_map_expr_set_while_computing_is_refused);
  tcase_add_test (tc,
      test_source_and_sink_settings_set_while_running_are_refused);
  tcase_add_test (tc, test_cval_takes_nan_and_inf);
  tcase_add_test (tc, test_enum_values_are_small_consecutive_integers);
  tcase_add_test (tc, test_reduce_axis_takes_nicks_only);
  tcase_add_test (tc, test_metadata_has_no_placeholders);
  tcase_add_test (tc, test_file_elements_name_their_formats);
  tcase_add_test (tc, test_names_enums_and_spellings_for_editors);
  tcase_add_test (tc, test_custom_block_size_alias);
  tcase_add_test (tc, test_stencil_window_without_blanks);
  tcase_add_test (tc, test_map_pad_variable_property);
  tcase_add_test (tc, test_map_logs_decisions_in_its_category);
  tcase_add_test (tc, test_expression_errors_are_library_settings);
  tcase_add_test (tc, test_pad_settings_an_element_does_not_read_are_refused);
  tcase_add_test (tc, test_keep_setting_keeps_value_and_reason);
  tcase_add_test (tc, test_pad_requested_while_configuring_is_refused);
  return s;
}

GST_CHECK_MAIN (settings);
