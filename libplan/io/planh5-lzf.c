/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* h5py's LZF filter (HDF5 filter 32000), read: a decoder of the LZF
 * format written here, used by planh5.c on the chunks it decodes itself,
 * and registered with libhdf5 for the others when libhdf5 has no filter
 * 32000 of its own (h5py registers its filter in its own process only; a
 * plugin in HDF5_PLUGIN_PATH, where there is one, is left to do it). Part
 * of the HDF5 module.
 *
 * The format: a sequence of items, each starting with a control byte c.
 * c < 32: a literal run, the c + 1 bytes that follow. Otherwise a
 * back-reference: (c >> 5) + 2 bytes (when c >> 5 is 7, the next byte is
 * added to the length) copied from ((c & 31) << 8 | the next byte) + 1
 * bytes back in the output, which may overlap what it writes (a run).
 *
 * h5py's filter stores a chunk that LZF does not make smaller as it is:
 * its filter fails on it, and as h5py adds it as an optional filter,
 * libhdf5 writes the chunk raw with the filter's bit set in the chunk's
 * filter mask, so that it is not undone on reading. Its client data are
 * the filter's revision, LZF's version and the chunk's bytes (0 where
 * unknown); only the last is used here, as the size to expect. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "planh5-private.h"

#include <string.h>

/**
 * _plan_h5_lzf_decode:
 * @in: LZF-compressed bytes
 * @n_in: how many
 * @out: (nullable): room for what they decode to, or %NULL to only
 *   measure that (and check the stream)
 * @room: the room at @out (ignored where @out is %NULL)
 * @n_out: (out): the bytes decoded (where it succeeds)
 * @why: (out): what is wrong where it fails
 *
 * Returns: %PLAN_LZF_OK, %PLAN_LZF_FULL where the bytes decode to more
 *   than @room (the stream is good so far), or %PLAN_LZF_CORRUPT with
 *   @why. Never reads or writes outside @in and @room bytes of @out.
 */
PlanLzfResult
_plan_h5_lzf_decode (const guint8 * in, gsize n_in, guint8 * out, gsize room,
    gsize * n_out, const gchar ** why)
{
  gsize ip = 0, op = 0;

  if (out == NULL)
    room = G_MAXSIZE;
  while (ip < n_in) {
    guint c = in[ip++];

    if (c < 32) {
      gsize len = c + 1;

      if (len > n_in - ip) {
        *why = "LZF: a literal run goes past the end of the chunk's bytes "
            "(truncated)";
        return PLAN_LZF_CORRUPT;
      }
      if (len > room - op)
        return PLAN_LZF_FULL;
      if (out)
        memcpy (out + op, in + ip, len);
      ip += len;
      op += len;
    } else {
      gsize len = c >> 5, back;

      if (len == 7) {
        if (ip >= n_in)
          goto truncated;
        len += in[ip++];
      }
      len += 2;
      if (ip >= n_in)
        goto truncated;
      back = (((gsize) c & 31) << 8 | in[ip++]) + 1;
      if (back > op) {
        *why = "LZF: a back-reference to before the start of the chunk";
        return PLAN_LZF_CORRUPT;
      }
      if (len > room - op)
        return PLAN_LZF_FULL;
      if (out) {
        guint8 *to = out + op;
        const guint8 *from = to - back;

        if (back >= len) {
          memcpy (to, from, len);
        } else {
          gsize i;

          /* overlapping: each byte may be one just written */
          for (i = 0; i < len; i++)
            to[i] = from[i];
        }
      }
      op += len;
    }
  }
  *n_out = op;
  return PLAN_LZF_OK;

truncated:
  *why = "LZF: a back-reference cut off by the end of the chunk's bytes "
      "(truncated)";
  return PLAN_LZF_CORRUPT;
}

/* The bytes a chunk of the dataset being read decodes to, where known
 * (_plan_h5_lzf_expect ()); 0 where not. Under the HDF5 lock, as every
 * read through libhdf5 is. */
static gsize expect;

/**
 * _plan_h5_lzf_expect:
 * @bytes: what each LZF chunk of the dataset about to be read through
 *   libhdf5 decodes to (a chunk's bytes, where LZF is applied to the
 *   chunk as it is or shuffled), or 0 where that is not known
 *
 * Under _plan_h5_enter (), around H5Dread (): a chunk that decodes to
 * more or fewer bytes fails rather than giving libhdf5 a chunk of the
 * wrong size (which it would cut or pad with whatever is in memory).
 */
void
_plan_h5_lzf_expect (gsize bytes)
{
  expect = bytes;
}

/* HDF5's error stack gets what went wrong, which _plan_h5_error_text ()
 * reports. */
static void
push_error (const gchar * what)
{
  H5Epush2 (H5E_DEFAULT, __FILE__, G_STRFUNC, __LINE__, H5E_ERR_CLS,
      H5E_PLINE, H5E_CANTFILTER, "%s", what);
}

/* Decodes @n_in bytes at @in into a new buffer of libhdf5's of *@room
 * bytes (0: measured first, and set), returned in *@out where it
 * succeeds. */
static PlanLzfResult
decode_new (const guint8 * in, gsize n_in, gsize * room, guint8 ** out,
    gsize * got, const gchar ** why)
{
  PlanLzfResult r;

  *out = NULL;
  if (*room == 0) {
    r = _plan_h5_lzf_decode (in, n_in, NULL, 0, room, why);
    if (r != PLAN_LZF_OK)
      return r;
  }
  *out = H5allocate_memory (MAX (*room, 1), FALSE);
  if (*out == NULL) {
    *why = "LZF: no memory for a decoded chunk";
    return PLAN_LZF_CORRUPT;
  }
  r = _plan_h5_lzf_decode (in, n_in, *out, *room, got, why);
  if (r != PLAN_LZF_OK)
    g_clear_pointer (out, H5free_memory);
  return r;
}

/* The filter's function for libhdf5: decodes *@buf (@nbytes of its
 * *@buf_size) into a new buffer that replaces it. Returns the bytes
 * decoded, or 0 on failure. */
static size_t
lzf_filter (unsigned flags, size_t cd_nelmts, const unsigned cd_values[],
    size_t nbytes, size_t * buf_size, void **buf)
{
  const gchar *why = NULL;
  PlanLzfResult r;
  gsize room, got = 0;
  guint8 *out;

  if (!(flags & H5Z_FLAG_REVERSE)) {
    push_error ("gst-plan reads the LZF filter (32000) but does not write "
        "it; write with gzip instead");
    return 0;
  }
  /* The chunk's bytes as gst-plan knows them, else as h5py noted them (a
   * guess: another filter before LZF may change the size), else measured
   * first. */
  room = expect;
  if (room == 0 && cd_nelmts >= 3 && cd_values[2] > 0)
    room = cd_values[2];
  r = decode_new (*buf, nbytes, &room, &out, &got, &why);
  if (r == PLAN_LZF_FULL && expect > 0) {
    why = "LZF: the chunk decodes to more than a chunk's bytes";
  } else if (r == PLAN_LZF_FULL) {
    /* More than h5py noted (another filter before it changes the size):
     * measured, then decoded again. */
    room = 0;
    r = decode_new (*buf, nbytes, &room, &out, &got, &why);
  }
  if (r == PLAN_LZF_OK && expect > 0 && got != expect) {
    g_clear_pointer (&out, H5free_memory);
    r = PLAN_LZF_CORRUPT;
    why = "LZF: the chunk decodes to fewer bytes than a chunk has";
  }
  if (r != PLAN_LZF_OK) {
    push_error (why);
    return 0;
  }
  H5free_memory (*buf);
  *buf = out;
  *buf_size = MAX (room, 1);
  return got;
}

static const H5Z_class2_t lzf_class = {
  H5Z_CLASS_T_VERS,
  (H5Z_filter_t) PLAN_H5_FILTER_LZF,
  0,                            /* no encoder */
  1,                            /* a decoder */
  "lzf (gst-plan, reading only)",
  NULL,
  NULL,
  lzf_filter,
};

/**
 * _plan_h5_lzf_register:
 *
 * Registers the LZF decoder with libhdf5 as filter 32000, unless libhdf5
 * has one already (registered, or a plugin found in HDF5_PLUGIN_PATH).
 * Once a process; under _plan_h5_enter ().
 */
void
_plan_h5_lzf_register (void)
{
  static gboolean done;

  if (done)
    return;
  done = TRUE;
  if (H5Zfilter_avail (PLAN_H5_FILTER_LZF) <= 0)
    H5Zregister (&lzf_class);
  H5Eclear2 (H5E_DEFAULT);
}
