/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>

#define COMPUTE PLAN_ERROR_CONTEXT_COMPUTE
#define READ PLAN_ERROR_CONTEXT_READ
#define WRITE PLAN_ERROR_CONTEXT_WRITE

/* The GStreamer error the table gives for (@from, @code) in @context. */
static void
check_map (PlanErrorContext context, GQuark from, gint code, GQuark domain,
    gint gst_code)
{
  GError *err = g_error_new_literal (from, code, "what failed");
  GQuark got_domain = 0;
  gint got_code = -1;

  plan_error_get_gst_error_full (err, context, &got_domain, &got_code);
  fail_unless (got_domain == domain, "context %d, %s %d: domain %s, not %s",
      context, g_quark_to_string (from), code,
      g_quark_to_string (got_domain), g_quark_to_string (domain));
  fail_unless (got_code == gst_code, "context %d, %s %d: code %d, not %d",
      context, g_quark_to_string (from), code, got_code, gst_code);
  if (context == COMPUTE) {
    /* The short form is the computing context. */
    plan_error_get_gst_error (err, &got_domain, &got_code);
    fail_unless (got_domain == domain && got_code == gst_code);
  }
  g_error_free (err);
}

GST_START_TEST (test_compute_errors)
{
  check_map (COMPUTE, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
      GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS);
  check_map (COMPUTE, PLAN_ERROR, PLAN_ERROR_SYNTAX, GST_LIBRARY_ERROR,
      GST_LIBRARY_ERROR_SETTINGS);
  check_map (COMPUTE, PLAN_ERROR, PLAN_ERROR_TYPE, GST_LIBRARY_ERROR,
      GST_LIBRARY_ERROR_SETTINGS);
  check_map (COMPUTE, PLAN_ERROR, PLAN_ERROR_SHAPE, GST_CORE_ERROR,
      GST_CORE_ERROR_NEGOTIATION);
  check_map (COMPUTE, PLAN_ERROR, PLAN_ERROR_FORMAT, GST_STREAM_ERROR,
      GST_STREAM_ERROR_FORMAT);
  check_map (COMPUTE, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, GST_CORE_ERROR,
      GST_CORE_ERROR_NOT_IMPLEMENTED);
  check_map (COMPUTE, PLAN_ERROR, PLAN_ERROR_DEVICE, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_FAILED);
  check_map (COMPUTE, PLAN_ERROR, PLAN_ERROR_IO, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_FAILED);
  check_map (COMPUTE, PLAN_ERROR, PLAN_ERROR_BUSY, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_BUSY);
  check_map (COMPUTE, PLAN_ERROR, 1000, GST_CORE_ERROR,
      GST_CORE_ERROR_FAILED);
  check_map (COMPUTE, G_FILE_ERROR, G_FILE_ERROR_NOENT, GST_CORE_ERROR,
      GST_CORE_ERROR_FAILED);
  check_map (COMPUTE, G_IO_ERROR, G_IO_ERROR_FAILED, GST_CORE_ERROR,
      GST_CORE_ERROR_FAILED);
}

GST_END_TEST;

GST_START_TEST (test_read_errors)
{
  check_map (READ, G_FILE_ERROR, G_FILE_ERROR_NOENT, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NOT_FOUND);
  check_map (READ, G_FILE_ERROR, G_FILE_ERROR_NOTDIR, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NOT_FOUND);
  check_map (READ, G_FILE_ERROR, G_FILE_ERROR_ACCES, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_READ);
  check_map (READ, G_FILE_ERROR, G_FILE_ERROR_PERM, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_READ);
  check_map (READ, G_FILE_ERROR, G_FILE_ERROR_ISDIR, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_READ);
  check_map (READ, G_FILE_ERROR, G_FILE_ERROR_IO, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_READ);
  check_map (READ, G_FILE_ERROR, G_FILE_ERROR_NOSPC, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_READ);
  check_map (READ, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
      GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS);
  check_map (READ, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, GST_STREAM_ERROR,
      GST_STREAM_ERROR_WRONG_TYPE);
  check_map (READ, PLAN_ERROR, PLAN_ERROR_IO, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_READ);
  check_map (READ, PLAN_ERROR, PLAN_ERROR_FORMAT, GST_STREAM_ERROR,
      GST_STREAM_ERROR_FORMAT);
  check_map (READ, PLAN_ERROR, PLAN_ERROR_SHAPE, GST_STREAM_ERROR,
      GST_STREAM_ERROR_FORMAT);
  check_map (READ, G_IO_ERROR, G_IO_ERROR_FAILED, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_FAILED);
}

GST_END_TEST;

GST_START_TEST (test_write_errors)
{
  check_map (WRITE, G_FILE_ERROR, G_FILE_ERROR_NOENT, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NOT_FOUND);
  check_map (WRITE, G_FILE_ERROR, G_FILE_ERROR_NOTDIR, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NOT_FOUND);
  check_map (WRITE, G_FILE_ERROR, G_FILE_ERROR_ACCES, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_WRITE);
  check_map (WRITE, G_FILE_ERROR, G_FILE_ERROR_PERM, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_WRITE);
  check_map (WRITE, G_FILE_ERROR, G_FILE_ERROR_ISDIR, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_WRITE);
  check_map (WRITE, G_FILE_ERROR, G_FILE_ERROR_ROFS, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_WRITE);
  check_map (WRITE, G_FILE_ERROR, G_FILE_ERROR_NOSPC, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NO_SPACE_LEFT);
  check_map (WRITE, G_FILE_ERROR, G_FILE_ERROR_IO, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_WRITE);
  check_map (WRITE, PLAN_ERROR, PLAN_ERROR_IO, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_WRITE);
  check_map (WRITE, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT,
      GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT);
  check_map (WRITE, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, GST_STREAM_ERROR,
      GST_STREAM_ERROR_FORMAT);
  check_map (WRITE, G_IO_ERROR, G_IO_ERROR_FAILED, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_WRITE);
}

GST_END_TEST;

/* What an element posts: the domain and code of the table, the message as
 * the text, a file error's code and name in the debug string when reading or
 * writing (@debug, or NULL for none). */
static void
check_post (PlanErrorContext context, GError * err, GQuark domain,
    gint code, const gchar * debug)
{
  GstElement *e = gst_element_factory_make ("fakesink", NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *got = NULL;
  gchar *got_debug = NULL;

  gst_element_set_bus (e, bus);
  plan_element_post_error_full (e, err, context, __FILE__, GST_FUNCTION,
      __LINE__);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &got, &got_debug);
  fail_unless (g_error_matches (got, domain, code), "%s %d",
      g_quark_to_string (got->domain), got->code);
  fail_unless_equals_string (got->message, err->message);
  /* The debug string starts with where it was posted. */
  fail_unless (got_debug != NULL && strstr (got_debug, __FILE__) != NULL,
      "debug: %s", GST_STR_NULL (got_debug));
  if (debug == NULL)
    fail_unless (strstr (got_debug, "file error") == NULL, "debug: %s",
        got_debug);
  else
    fail_unless (strstr (got_debug, debug) != NULL, "debug: %s", got_debug);
  g_error_free (got);
  g_free (got_debug);
  gst_message_unref (msg);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  g_error_free (err);
}

GST_START_TEST (test_post)
{
  check_post (READ, g_error_new (G_FILE_ERROR, G_FILE_ERROR_NOENT,
          "in.npy: no such file"), GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NOT_FOUND, "file error 4 (G_FILE_ERROR_NOENT)");
  check_post (WRITE, g_error_new (G_FILE_ERROR, G_FILE_ERROR_NOSPC,
          "out.npy: no space left"), GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NO_SPACE_LEFT, "file error 12 (G_FILE_ERROR_NOSPC)");
  check_post (COMPUTE, g_error_new (PLAN_ERROR, PLAN_ERROR_SYNTAX,
          "expr: x +"), GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, NULL);
  check_post (READ, g_error_new (PLAN_ERROR, PLAN_ERROR_UNSUPPORTED,
          "Fortran order"), GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
      NULL);
}

GST_END_TEST;

static Suite *
error_suite (void)
{
  Suite *s = suite_create ("error");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_compute_errors);
  tcase_add_test (tc, test_read_errors);
  tcase_add_test (tc, test_write_errors);
  tcase_add_test (tc, test_post);
  return s;
}

GST_CHECK_MAIN (error);
