/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/**
 * SECTION:plansink
 * @title: Sink helpers
 * @short_description: what a sink element does on a flush so that an EOS
 *   from before it does not end the pipeline
 *
 * A #GstBin keeps the EOS message of each of its sinks until all of them
 * have posted one, and posts its own EOS then, if it is PLAYING; else
 * when it next reaches PLAYING. It forgets them only when it changes state
 * to PAUSED, and does so before it changes the state of its children. A
 * sink that gets EOS in that interval (its state change waits for the
 * streaming thread to finish the EOS: planfilesink puts its file in place
 * there, which takes a while) leaves its EOS message behind in the bin. A
 * flushing seek in PAUSED then starts the stream over, but the bin still
 * holds that message: at the next PLAYING it posts EOS at once, with the
 * seqnum of the range before the seek, before the range sought has been
 * written. plan_sink_forget_eos() on FLUSH_STOP takes such messages back.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "plansink.h"

GST_DEBUG_CATEGORY_STATIC (plan_sink_debug);
#define GST_CAT_DEFAULT plan_sink_debug

/* With the bin's object lock: drops the EOS messages @src posted. */
static guint
drop_eos_unlocked (GstBin * bin, GstObject * src)
{
  GList *walk, *next;
  guint n = 0;

  for (walk = bin->messages; walk != NULL; walk = next) {
    GstMessage *msg = walk->data;

    next = walk->next;
    if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_EOS
        || GST_MESSAGE_SRC (msg) != src)
      continue;
    GST_DEBUG_OBJECT (bin, "dropping the EOS message (seqnum %u) of '%s' "
        "from before a flush", gst_message_get_seqnum (msg),
        GST_OBJECT_NAME (src));
    bin->messages = g_list_delete_link (bin->messages, walk);
    gst_message_unref (msg);
    n++;
  }
  return n;
}

/**
 * plan_sink_forget_eos:
 * @sink: a sink element, flushed
 *
 * Takes back the EOS messages that @sink posted before a flush and that
 * the bins above it still hold, so that they do not end the pipeline at
 * its next PLAYING: in each bin from @sink's parent up, the EOS message of
 * the child on the way to @sink (@sink itself, or the bin holding it,
 * which posted its EOS when all its sinks had and the flush made untrue).
 * Call it from the sink's FLUSH_STOP handling; after FLUSH_START no EOS
 * of the stream before the flush can be posted any more (GstBaseSink
 * posts it with its preroll lock held, which FLUSH_START takes). A sink
 * without a parent has nothing to take back.
 *
 * This edits #GstBin.messages under the bin's object lock, a field
 * GStreamer documents for GstBin's subclasses: GstBin itself has no way to
 * forget a sink's EOS on a flush.
 *
 * Returns: the number of messages taken back.
 *
 * Since: 0.1
 */
guint
plan_sink_forget_eos (GstElement * sink)
{
  static gsize debug_init = 0;
  GstObject *child, *parent;
  guint n = 0;

  g_return_val_if_fail (GST_IS_ELEMENT (sink), 0);

  if (g_once_init_enter (&debug_init)) {
    GST_DEBUG_CATEGORY_INIT (plan_sink_debug, "plansink", 0,
        "sink helpers");
    g_once_init_leave (&debug_init, 1);
  }

  child = gst_object_ref (GST_OBJECT (sink));
  while ((parent = gst_object_get_parent (child)) != NULL) {
    if (GST_IS_BIN (parent)) {
      GST_OBJECT_LOCK (parent);
      n += drop_eos_unlocked (GST_BIN (parent), child);
      GST_OBJECT_UNLOCK (parent);
    }
    gst_object_unref (child);
    child = parent;
  }
  gst_object_unref (child);
  if (n > 0)
    GST_INFO_OBJECT (sink, "took back %u EOS message(s) from before the "
        "flush", n);
  return n;
}
