/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __PLAN_NPY_H__
#define __PLAN_NPY_H__

#include <libplan/plan-prelude.h>
#include <libplan/planarrayinfo.h>

G_BEGIN_DECLS

/**
 * PLAN_NPY_CAPS_MEDIA_TYPE:
 *
 * The media type of a .npy byte stream (a whole .npy file: header, then
 * the array data), as the plugin's typefinder reports it, npyparse takes
 * it and npymux produces it.
 *
 * Since: 0.1
 */
#define PLAN_NPY_CAPS_MEDIA_TYPE "application/x-npy"

/**
 * PLAN_NPY_MAGIC:
 *
 * The six bytes every .npy file starts with.
 *
 * Since: 0.1
 */
#define PLAN_NPY_MAGIC "\x93NUMPY"

/**
 * PLAN_NPY_MAGIC_SIZE:
 *
 * The length of #PLAN_NPY_MAGIC in bytes.
 *
 * Since: 0.1
 */
#define PLAN_NPY_MAGIC_SIZE 6

/**
 * PLAN_NPY_PREAMBLE_SIZE:
 *
 * The number of bytes plan_npy_parse_preamble() needs at most: the magic,
 * two version bytes and a header length of up to four bytes.
 *
 * Since: 0.1
 */
#define PLAN_NPY_PREAMBLE_SIZE 12

/**
 * PLAN_NPY_MAX_HEADER_SIZE:
 *
 * The largest .npy header (everything before the array data) libplan
 * accepts. numpy writes headers of a few hundred bytes; a length field
 * beyond this is taken as a corrupt file.
 *
 * Since: 0.1
 */
#define PLAN_NPY_MAX_HEADER_SIZE (1 << 20)

/**
 * PLAN_NPY_ALIGN:
 *
 * numpy pads .npy headers with spaces so that the array data starts at a
 * multiple of this many bytes; plan_npy_write_header() does the same.
 *
 * Since: 0.1
 */
#define PLAN_NPY_ALIGN 64

/**
 * PlanNpyLayout:
 * @PLAN_NPY_LAYOUT_NATIVE: C order, elements in the machine's byte order
 *   (or of one byte)
 * @PLAN_NPY_LAYOUT_BIG_ENDIAN: the elements are big-endian: each must be
 *   byte-swapped, with plan_dtype_swap_bytes(), to get the machine's
 * @PLAN_NPY_LAYOUT_FORTRAN: Fortran order (the first axis varies fastest)
 *   with two or more axes of more than one element; in the other cases
 *   both orders are the same bytes, and the header is taken as C order
 *
 * How the data of a .npy file lies, besides its #PlanArrayInfo: what a
 * reader must undo to get C-ordered elements in the machine's byte order.
 *
 * Since: 0.1
 */
typedef enum
{
  PLAN_NPY_LAYOUT_NATIVE = 0,
  PLAN_NPY_LAYOUT_BIG_ENDIAN = 1 << 0,
  PLAN_NPY_LAYOUT_FORTRAN = 1 << 1,
} PlanNpyLayout;

/**
 * PLAN_TYPE_NPY_LAYOUT:
 *
 * The #GType of #PlanNpyLayout.
 *
 * Since: 0.1
 */
#define PLAN_TYPE_NPY_LAYOUT (plan_npy_layout_get_type ())
PLAN_API
GType plan_npy_layout_get_type (void);

PLAN_API
gboolean plan_npy_has_magic (const guint8 * data, gsize size);

PLAN_API
gboolean plan_npy_parse_preamble (const guint8 * data, gsize size,
    guint * version, gsize * header_size, GError ** error);

PLAN_API
gboolean plan_npy_parse_header (const guint8 * data, gsize size,
    PlanArrayInfo * info, gsize * header_size, GError ** error);

PLAN_API
gboolean plan_npy_parse_header_full (const guint8 * data, gsize size,
    PlanNpyLayout accept, PlanArrayInfo * info, gsize * header_size,
    PlanNpyLayout * layout, GError ** error);

PLAN_API
gsize plan_npy_get_header_size (const PlanArrayInfo * info);

PLAN_API
gboolean plan_npy_write_header (const PlanArrayInfo * info, guint8 * dest,
    gsize header_size, GError ** error);

G_END_DECLS

#endif /* __PLAN_NPY_H__ */
