/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* plan-launch: runs a pipeline description to its end, like gst-launch-1.0,
 * for scripts and tests.
 *
 *   plan-launch [-q] [-m] [-t SECONDS] planfilesrc location=a.npy ! ...
 *
 * It exits 0 at EOS, 1 on an error (printed as gst-launch prints it, with
 * the element, the message and the debug details), 2 on a bad pipeline
 * description, and 3 when the timeout passes. -m prints element messages
 * (planreduce's results, for one); -q prints nothing but errors.
 *
 * Why not gst-launch-1.0: with GStreamer 1.22, gst-launch-1.0 sometimes
 * never returns when an aggregator-based element fails while the pipeline
 * prerolls (the stock audiomixer shows it too). A test that checks an
 * error message must not hang, so the tests run pipelines with this. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <stdlib.h>

static gboolean quiet = FALSE;
static gboolean messages = FALSE;
static gdouble timeout_s = 0;

static void
print_error (GstMessage * msg)
{
  GError *err = NULL;
  gchar *debug = NULL, *name;

  gst_message_parse_error (msg, &err, &debug);
  name = gst_object_get_path_string (GST_MESSAGE_SRC (msg));
  g_printerr ("ERROR: from element %s: %s\n", name, err->message);
  if (debug)
    g_printerr ("Additional debug info:\n%s\n", debug);
  g_clear_error (&err);
  g_free (debug);
  g_free (name);
}

static void
print_element_message (GstMessage * msg)
{
  const GstStructure *s = gst_message_get_structure (msg);
  gchar *name = gst_object_get_path_string (GST_MESSAGE_SRC (msg));
  gchar *text = s ? gst_structure_to_string (s) : g_strdup ("(empty)");

  g_print ("Got message from element \"%s\": %s\n", name, text);
  g_free (text);
  g_free (name);
}

/* Waits for EOS or an error; returns the exit status. */
static gint
run (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstClockTime deadline = timeout_s > 0 ?
      gst_util_get_timestamp () + (GstClockTime) (timeout_s * GST_SECOND) :
      GST_CLOCK_TIME_NONE;
  gint status = -1;

  /* An element that fails to start posts its error before the state
   * change returns; it is printed below like any other. */
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

    if (msg) {
      print_error (msg);
      gst_message_unref (msg);
    } else {
      g_printerr ("ERROR: the pipeline could not start\n");
    }
    status = 1;
  }

  while (status < 0) {
    GstClockTime wait = GST_CLOCK_TIME_NONE;
    GstMessage *msg;

    if (GST_CLOCK_TIME_IS_VALID (deadline)) {
      GstClockTime now = gst_util_get_timestamp ();
      wait = now < deadline ? deadline - now : 0;
    }
    msg = gst_bus_timed_pop_filtered (bus, wait, GST_MESSAGE_ERROR |
        GST_MESSAGE_EOS | GST_MESSAGE_ELEMENT | GST_MESSAGE_WARNING);
    if (msg == NULL) {
      g_printerr ("ERROR: the pipeline did not finish within %g s\n",
          timeout_s);
      status = 3;
      break;
    }
    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ERROR:
        print_error (msg);
        status = 1;
        break;
      case GST_MESSAGE_EOS:
        status = 0;
        break;
      case GST_MESSAGE_ELEMENT:
        if (messages)
          print_element_message (msg);
        break;
      case GST_MESSAGE_WARNING:{
        GError *err = NULL;

        gst_message_parse_warning (msg, &err, NULL);
        g_printerr ("WARNING: %s\n", err->message);
        g_clear_error (&err);
        break;
      }
      default:
        break;
    }
    gst_message_unref (msg);
  }

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  return status;
}

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Print only errors", NULL},
    {"messages", 'm', 0, G_OPTION_ARG_NONE, &messages,
        "Print element messages (such as planreduce results)", NULL},
    {"timeout", 't', 0, G_OPTION_ARG_DOUBLE, &timeout_s,
        "Give up after this many seconds (0 = never)", "SECONDS"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("PIPELINE-DESCRIPTION");
  GError *err = NULL;
  GstElement *pipeline;
  gint64 start;
  gint status;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("plan-launch: %s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (argc < 2) {
    g_printerr ("usage: plan-launch [-q] [-m] [-t SECONDS] PIPELINE...\n");
    return 2;
  }

  pipeline = gst_parse_launchv ((const gchar **) argv + 1, &err);
  if (pipeline == NULL || err != NULL) {
    g_printerr ("ERROR: pipeline could not be constructed: %s\n",
        err ? err->message : "unknown error");
    g_clear_error (&err);
    gst_clear_object (&pipeline);
    return 2;
  }

  start = g_get_monotonic_time ();
  status = run (pipeline);
  if (!quiet && status == 0)
    g_print ("Execution ended after %.3f s\n",
        (g_get_monotonic_time () - start) / 1e6);
  gst_object_unref (pipeline);
  return status;
}
