/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* plan_sink_forget_eos(): a bin keeps a sink's EOS message posted while
 * it is not PLAYING and posts the pipeline's EOS from it at its next
 * PLAYING, flush or no flush; the helper takes such messages back, in
 * every bin up from the sink. The sink here is fakesink: the helper works
 * for any element. */

#include <gst/check/gstcheck.h>
#include <libplan/plan.h>

/* pipeline > bin > fakesink, PAUSED. */
static GstElement *
nested_pipeline (GstElement ** bin, GstElement ** sink)
{
  GstElement *pipeline = gst_pipeline_new ("p");

  *bin = gst_bin_new ("inner");
  *sink = gst_element_factory_make ("fakesink", "sink");
  fail_unless (*sink != NULL);
  g_object_set (*sink, "async", FALSE, NULL);
  gst_bin_add (GST_BIN (*bin), *sink);
  gst_bin_add (GST_BIN (pipeline), *bin);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_PAUSED),
      GST_STATE_CHANGE_SUCCESS);
  return pipeline;
}

/* The EOS message @src posts as a sink does that reached EOS while its
 * bin was leaving PLAYING. */
static void
post_eos (GstElement * src, guint32 seqnum)
{
  GstMessage *msg = gst_message_new_eos (GST_OBJECT (src));

  gst_message_set_seqnum (msg, seqnum);
  fail_unless (gst_element_post_message (src, msg));
}

/* Without the helper: the bin posts EOS, with the old seqnum, as soon as
 * it plays. What the helper is for, and what the next test relies on. */
GST_START_TEST (test_bin_keeps_eos_from_paused)
{
  GstElement *bin, *sink;
  GstElement *p = nested_pipeline (&bin, &sink);
  GstMessage *msg;

  post_eos (sink, 4242);
  fail_unless (gst_bus_pop_filtered (GST_ELEMENT_BUS (p),
          GST_MESSAGE_EOS) == NULL);
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PLAYING),
      GST_STATE_CHANGE_SUCCESS);
  msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (p), GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "GstBin no longer keeps a sink's EOS message "
      "across PAUSED");
  fail_unless_equals_int (gst_message_get_seqnum (msg), 4242);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* The sink's message in the inner bin and the inner bin's (posted when
 * all its sinks had) in the pipeline are both taken back: PLAYING posts
 * no EOS. A later EOS of the sink's still ends the pipeline. */
GST_START_TEST (test_forget_eos_in_every_bin_up)
{
  GstElement *bin, *sink;
  GstElement *p = nested_pipeline (&bin, &sink);
  GstMessage *msg;

  post_eos (sink, 4242);
  post_eos (bin, 4242);
  fail_unless_equals_int (plan_sink_forget_eos (sink), 2);
  fail_unless_equals_int (plan_sink_forget_eos (sink), 0);
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PLAYING),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_bus_pop_filtered (GST_ELEMENT_BUS (p),
          GST_MESSAGE_EOS) == NULL, "an EOS from before the flush");

  post_eos (sink, 4343);
  msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (p), GST_MESSAGE_EOS);
  fail_unless (msg != NULL);
  fail_unless_equals_int (gst_message_get_seqnum (msg), 4343);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* Only the sink's own EOS goes: another sink's stays, and a sink without
 * a parent has nothing to take back. */
GST_START_TEST (test_forget_eos_only_the_sinks)
{
  GstElement *p = gst_pipeline_new ("p");
  GstElement *a = gst_element_factory_make ("fakesink", "a");
  GstElement *b = gst_element_factory_make ("fakesink", "b");
  GstElement *lone = gst_element_factory_make ("fakesink", "lone");
  GstMessage *msg;

  g_object_set (a, "async", FALSE, NULL);
  g_object_set (b, "async", FALSE, NULL);
  gst_bin_add_many (GST_BIN (p), a, b, NULL);
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PAUSED),
      GST_STATE_CHANGE_SUCCESS);
  post_eos (a, 1);
  post_eos (b, 2);
  fail_unless_equals_int (plan_sink_forget_eos (a), 1);
  fail_unless_equals_int (plan_sink_forget_eos (lone), 0);
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PLAYING),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_bus_pop_filtered (GST_ELEMENT_BUS (p),
          GST_MESSAGE_EOS) == NULL, "EOS with sink a's taken back");
  /* b's was kept: a's new EOS completes the pipeline's. */
  post_eos (a, 3);
  msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (p), GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "sink b's EOS was taken back too");
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  gst_object_unref (lone);
}

GST_END_TEST;

static Suite *
sink_suite (void)
{
  Suite *s = suite_create ("sink");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_bin_keeps_eos_from_paused);
  tcase_add_test (tc, test_forget_eos_in_every_bin_up);
  tcase_add_test (tc, test_forget_eos_only_the_sinks);
  return s;
}

GST_CHECK_MAIN (sink);
