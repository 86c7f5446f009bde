/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_FILE_URI_H__
#define __PLAN_FILE_URI_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* The GstURIHandler parts planfilesrc and planfilesink share: both handle
 * local file:// URIs for their location property. */

const gchar *const *plan_file_uri_get_protocols (GType type);

gchar *plan_file_uri_from_location (GstObject * element,
    gchar * const *location);

gchar *plan_file_uri_to_location (const gchar * uri, GError ** error);

G_END_DECLS

#endif /* __PLAN_FILE_URI_H__ */
