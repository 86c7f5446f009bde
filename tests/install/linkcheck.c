/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 * SPDX-License-Identifier: LGPL-2.0-or-later
 *
 * A program as an application writes it against an installed libplan
 * (built with `pkg-config --cflags --libs plan-1.0`): it calls into the
 * library and makes a planmap from the installed plugin. */
#include <libplan/plan.h>

int
main (int argc, char **argv)
{
  GstElement *map;

  gst_init (&argc, &argv);
  plan_init ();
  if (plan_dtype_get_size (plan_dtype_from_string ("float64")) != 8) {
    g_printerr ("libplan: float64 is not 8 bytes\n");
    return 1;
  }
  map = gst_element_factory_make ("planmap", NULL);
  if (map == NULL) {
    g_printerr ("no planmap element: the plugin did not load\n");
    return 1;
  }
  g_print ("linked against libplan, made %s\n", GST_OBJECT_NAME (map));
  gst_object_unref (map);
  return 0;
}
