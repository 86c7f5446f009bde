/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planfileuri.h"

/* GstURIHandlerInterface.get_protocols of both file elements. */
const gchar *const *
plan_file_uri_get_protocols (GType type)
{
  static const gchar *protocols[] = { "file", NULL };

  return protocols;
}

/* The URI of the file at *@location, a field of @element read under its
 * object lock; NULL when no location is set. */
gchar *
plan_file_uri_from_location (GstObject * element, gchar * const *location)
{
  gchar *uri = NULL;

  GST_OBJECT_LOCK (element);
  if (*location)
    uri = gst_filename_to_uri (*location, NULL);
  GST_OBJECT_UNLOCK (element);
  return uri;
}

/* The file name of a local file:// URI, or NULL with @error set. */
gchar *
plan_file_uri_to_location (const gchar * uri, GError ** error)
{
  gchar *location = g_filename_from_uri (uri, NULL, NULL);

  if (location == NULL)
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
        "'%s' is not a local file:// URI", uri);
  return location;
}
