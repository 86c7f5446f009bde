/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* A Zarr array in a directory store, read row block by row block: its
 * v2 .zarray or v3 zarr.json metadata (json-glib), and its chunks, one
 * file each, decoded with zlib, zstd or blosc (and a v3 CRC32C checked)
 * into whole rows. A missing chunk is the fill value, as the specification
 * says. A v3 sharded array (sharding_indexed) is read inner chunk by
 * inner chunk: a shard's index is read (its CRC32C checked), and each
 * inner chunk wanted is read at its offset in the shard and decoded as a
 * chunk of its own; a shard is never read whole. The store's groups and arrays are found here too; writing an
 * array is in planzarr-writer.c. Built only with Zarr (HAVE_ZARR). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "libplan/core/plan-private.h"
#include <libplan/planerror.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <zlib.h>
#if HAVE_ZSTD
#include <zstd.h>
#endif
#if HAVE_BLOSC
#include <blosc.h>
#include <dlfcn.h>
#endif
#if HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#if HAVE_BLOSC
/* c-blosc 1.x's library, opened by this name (its soname). */
#define BLOSC_SONAME "libblosc.so.1"

static PlanBlosc blosc_fns;
static const PlanBlosc *blosc_loaded;   /* atomic; set once, under the lock */
static gchar *blosc_error;      /* why it could not be opened, once */
static GMutex blosc_lock;

/* The prototypes are blosc.h's. */
G_STATIC_ASSERT (__builtin_types_compatible_p (__typeof__
        (&blosc_cbuffer_validate), __typeof__ (blosc_fns.cbuffer_validate)));
G_STATIC_ASSERT (__builtin_types_compatible_p (__typeof__
        (&blosc_decompress_ctx), __typeof__ (blosc_fns.decompress_ctx)));
G_STATIC_ASSERT (__builtin_types_compatible_p (__typeof__
        (&blosc_compress_ctx), __typeof__ (blosc_fns.compress_ctx)));

const PlanBlosc *
_plan_zarr_blosc (GError ** error)
{
  const PlanBlosc *b = g_atomic_pointer_get (&blosc_loaded);

  if (b)
    return b;
  g_mutex_lock (&blosc_lock);
  if (blosc_loaded == NULL && blosc_error == NULL) {
    /* Kept open for the life of the process. */
    void *lib = dlopen (BLOSC_SONAME, RTLD_NOW | RTLD_LOCAL);

    if (lib == NULL) {
      blosc_error = g_strdup (dlerror ());
    } else {
      *(void **) &blosc_fns.cbuffer_validate = dlsym (lib,
          "blosc_cbuffer_validate");
      *(void **) &blosc_fns.decompress_ctx = dlsym (lib,
          "blosc_decompress_ctx");
      *(void **) &blosc_fns.compress_ctx = dlsym (lib, "blosc_compress_ctx");
      if (blosc_fns.cbuffer_validate && blosc_fns.decompress_ctx
          && blosc_fns.compress_ctx) {
        g_atomic_pointer_set (&blosc_loaded, &blosc_fns);
      } else {
        blosc_error = g_strdup ("it lacks blosc_cbuffer_validate, "
            "blosc_decompress_ctx or blosc_compress_ctx");
        dlclose (lib);
      }
    }
  }
  b = blosc_loaded;
  if (b == NULL)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "the blosc codec "
        "needs %s, which could not be opened: %s", BLOSC_SONAME, blosc_error);
  g_mutex_unlock (&blosc_lock);
  return b;
}
#endif

/* Metadata files larger than this are taken as corrupt. */
#define MAX_METADATA_SIZE (1 << 20)
/* Nor are lists and objects nested deeper than this: json-glib parses
 * them recursively, and a file of a million '[' would overflow the
 * stack; metadata nests a few levels. */
#define MAX_METADATA_DEPTH 256

typedef enum
{
  CODEC_NONE,
  CODEC_ZLIB,
  CODEC_GZIP,
  CODEC_ZSTD,
  CODEC_BLOSC,
} Codec;

struct _PlanZarrArray
{
  gchar *dir;                   /* the array's directory */
  gchar *path;                  /* its path in the store, "/" for the root */
  PlanDType dtype;
  gsize itemsize;
  gboolean swap;                /* big-endian elements */
  /* The chunks' axes as stored, slowest first: stored axis k is the
   * array's axis perm[k] (Fortran order, a v3 transpose); permuted where
   * that lays out a chunk's elements otherwise than C order does. */
  guint8 perm[PLAN_ARRAY_MAX_DIMS];
  gboolean permuted;
  gint ndim;
  guint64 shape[PLAN_ARRAY_MAX_DIMS];
  guint64 chunks[PLAN_ARRAY_MAX_DIMS];
  gchar separator;
  gboolean v3;                  /* zarr.json */
  gboolean key_prefix;          /* v3's default chunk keys, "c/0/1" */
  gboolean crc32c;              /* v3: a CRC32C after the encoded bytes */
  Codec codec;
  guint8 fill[16];
  gsize chunk_bytes;

  /* v3 sharding_indexed: chunks (above) are the inner chunks, and each
   * file is a shard of per_shard inner chunks along each axis, with an
   * index of (offset, nbytes) per inner chunk, C order, at its start or
   * end */
  gboolean sharded;
  guint64 shard[PLAN_ARRAY_MAX_DIMS];
  guint64 per_shard[PLAN_ARRAY_MAX_DIMS];
  gsize n_inner;                /* inner chunks per shard */
  gsize index_bytes;            /* its index, checksum included */
  gboolean index_at_start;
  gboolean index_swap;          /* big-endian */
  gboolean index_crc32c;

  /* scratch memory of the reads, taken by a read and given back after
   * it (several threads read at once, each in its own), so that a read
   * does not fault in fresh pages */
  GMutex scratch_lock;
  GSList *scratch;
};

/* The memory one read of rows decodes chunks in. */
typedef struct
{
  guint8 *chunk;                /* a decoded chunk */
  guint8 *raw;                  /* a chunk's file */
  gsize raw_size;
  /* the shard open in this read (sharded arrays): its file, whether it
   * is there, its size and its index, decoded to the machine's order */
  gboolean shard_ready;
  guint64 shard_idx[PLAN_ARRAY_MAX_DIMS];
  gchar *shard_file;
  gint shard_fd;                /* -1 when it is missing */
  guint64 shard_size;
  guint8 *index;
#if HAVE_ZSTD
  ZSTD_DCtx *zstd;
#endif
#if HAVE_LIBDEFLATE
  struct libdeflate_decompressor *inflater;
#endif
} Scratch;

/* Closes the shard a read had open; its memory stays for the next. */
static void
shard_close (Scratch * sc)
{
  if (sc->shard_ready && sc->shard_fd >= 0)
    close (sc->shard_fd);
  sc->shard_ready = FALSE;
  g_clear_pointer (&sc->shard_file, g_free);
}

static void
scratch_free (Scratch * sc)
{
  shard_close (sc);
  g_free (sc->index);
  g_free (sc->chunk);
  g_free (sc->raw);
#if HAVE_ZSTD
  ZSTD_freeDCtx (sc->zstd);
#endif
#if HAVE_LIBDEFLATE
  if (sc->inflater)
    libdeflate_free_decompressor (sc->inflater);
#endif
  g_free (sc);
}

/* The string member @key of @o; @dflt when it is absent or null, NULL
 * when it is of another type (json-glib's own getters warn on an object
 * or a list, and give their default for it). */
static const gchar *
member_string (JsonObject * o, const gchar * key, const gchar * dflt)
{
  JsonNode *n = json_object_get_member (o, key);

  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return dflt;
  if (json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

/* What the dtype member @key of @o says, for an error refusing it: the
 * string; the name of a Zarr v3 data type spelt as an object
 * ({"name": "numpy.datetime64", "configuration": ...}); a Zarr v2
 * structured dtype (a list of fields) or anything else as its JSON text;
 * "(none)" when it is absent. */
static gchar *
show_dtype (JsonObject * o, const gchar * key)
{
  JsonNode *n = json_object_get_member (o, key);
  const gchar *s = member_string (o, key, NULL);
  gchar *text, *shown;

  if (n == NULL)
    return g_strdup ("(none)");
  if (s)
    return g_strdup_printf ("'%s'", s);
  if (JSON_NODE_HOLDS_OBJECT (n)) {
    s = member_string (json_node_get_object (n), "name", NULL);
    if (s)
      return g_strdup_printf ("'%s'", s);
  }
  text = json_to_string (n, FALSE);
  if (strlen (text) > 200)
    /* cut at a character's start: the metadata is UTF-8 */
    strcpy (g_utf8_find_prev_char (text, text + 198), "...");
  shown = g_strdup_printf ("%s%s", text, JSON_NODE_HOLDS_ARRAY (n) ?
      " (a structured dtype, whose elements are records)" : "");
  g_free (text);
  return shown;
}

/* Whether @o has no member @key, or a null one. */
static gboolean
member_is_unset (JsonObject * o, const gchar * key)
{
  JsonNode *n = json_object_get_member (o, key);

  return n == NULL || JSON_NODE_HOLDS_NULL (n);
}

/* Checks a node's zarr_format against @want (2 or 3) as zarr-python does,
 * which compares it with ==: an integer, or a number equal to one (2.0).
 * @file names the metadata file, @read the versions read, for errors. */
static gboolean
check_zarr_format (JsonObject * o, gint64 want, const gchar * file,
    const gchar * read, GError ** error)
{
  JsonNode *n = json_object_get_member (o, "zarr_format");
  GType type = n ? json_node_get_value_type (n) : G_TYPE_INVALID;
  gdouble d;

  if (type == G_TYPE_INT64 && json_node_get_int (n) == want)
    return TRUE;
  if (type == G_TYPE_INT64) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its %s says "
        "zarr_format %" G_GINT64_FORMAT "; %s", file, json_node_get_int (n),
        read);
    return FALSE;
  }
  if (type != G_TYPE_DOUBLE) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its %s has no "
        "zarr_format that is an integer", file);
    return FALSE;
  }
  d = json_node_get_double (n);
  if (d == (gdouble) want)
    return TRUE;
  if (isfinite (d) && d == floor (d) && fabs (d) < 1e15) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its %s says "
        "zarr_format %.0f; %s", file, d, read);
  } else {
    gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its %s says "
        "zarr_format %s, which is not a whole number and so no Zarr version",
        file, g_ascii_dtostr (buf, sizeof (buf), d));
  }
  return FALSE;
}

/* The root of parsed metadata when it is an object, else NULL (an empty
 * document has no root at all). */
static JsonObject *
root_object (JsonParser * parser)
{
  JsonNode *root = json_parser_get_root (parser);

  return root && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root)
      : NULL;
}

/* What a file that is not a regular one is, for an error. */
static const gchar *
file_kind (mode_t mode)
{
  return S_ISDIR (mode) ? "a directory" : S_ISFIFO (mode) ?
      "a FIFO (named pipe)" : S_ISCHR (mode) || S_ISBLK (mode) ? "a device" :
      S_ISSOCK (mode) ? "a socket" : "not a regular file";
}

/* Opens a file of the store for reading, only when it is a regular file:
 * an open() of a FIFO would wait for a writer (without O_NONBLOCK), and a
 * read of a FIFO or a device would wait or never end. Returns the file
 * descriptor, or -1 with @error set (and errno, ENOENT when there is no
 * such file; 0 when it is not a regular file). */
static gint
open_regular (const gchar * file, struct stat *st, GError ** error)
{
  gint fd = open (file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  gint saved;

  if (fd < 0 || fstat (fd, st) < 0) {
    saved = errno;
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
        "'%s' cannot be opened: %s", file, g_strerror (saved));
    if (fd >= 0)
      close (fd);
    errno = saved;
    return -1;
  }
  if (!S_ISREG (st->st_mode)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "'%s' is %s, not a "
        "regular file", file, file_kind (st->st_mode));
    close (fd);
    errno = 0;
    return -1;
  }
  return fd;
}

/* Reads all of @fd, of @size bytes, into @dest. */
static gboolean
read_all (gint fd, guint8 * dest, gsize size, gsize * done)
{
  *done = 0;
  while (*done < size) {
    gssize n = read (fd, dest + *done, size - *done);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return FALSE;
    if (n == 0) {
      errno = 0;                /* shrunk while read */
      return FALSE;
    }
    *done += n;
  }
  return TRUE;
}

/* The end of the JSON number at @i of @text (-?(0|[1-9][0-9]*) then an
 * optional fraction and exponent), or @i when there is none there. */
static gsize
json_number_end (const gchar * text, gsize size, gsize i)
{
  gsize start = i, digits;

  if (i < size && text[i] == '-')
    i++;
  if (i >= size || !g_ascii_isdigit (text[i]))
    return start;
  if (text[i] == '0')
    i++;
  else
    while (i < size && g_ascii_isdigit (text[i]))
      i++;
  if (i < size && text[i] == '.') {
    for (digits = ++i; i < size && g_ascii_isdigit (text[i]); i++);
    if (i == digits)
      return start;
  }
  if (i < size && (text[i] == 'e' || text[i] == 'E')) {
    i++;
    if (i < size && (text[i] == '+' || text[i] == '-'))
      i++;
    for (digits = i; i < size && g_ascii_isdigit (text[i]); i++);
    if (i == digits)
      return start;
  }
  return i;
}

/* Where @text has what JSON does not and json-glib reads anyway (comments,
 * single-quoted strings, hexadecimal and octal numbers, "1." and ".5"):
 * its byte offset, or -1. json-glib reads 010 as 8 and
 * 0x1ffffffffffffffff as -1, which every other reader of Zarr metadata
 * refuses, and the scans of the text below (integers beyond 64 bits, the
 * depth) know double-quoted strings only. Words are left to json-glib,
 * which takes true, false and null and refuses others. */
static gssize
not_strict_json (const gchar * text, gsize size)
{
  gboolean in_string = FALSE;
  gsize i, end;

  for (i = 0; i < size; i++) {
    gchar c = text[i];

    if (in_string) {
      if (c == '\\')
        i++;
      else if (c == '"')
        in_string = FALSE;
      continue;
    }
    if (c == '"') {
      in_string = TRUE;
    } else if (c == '-' || g_ascii_isdigit (c)) {
      end = json_number_end (text, size, i);
      if (end == i || (end < size && (g_ascii_isalnum (text[end])
                  || text[end] == '.')))
        return i;
      i = end - 1;
    } else if (g_ascii_isalpha (c)) {
      while (i + 1 < size && g_ascii_isalnum (text[i + 1]))
        i++;
    } else if (!strchr (" \t\r\n{}[]:,", c)) {
      return i;
    }
  }
  return -1;
}

/* Whether @text nests lists and objects more than MAX_METADATA_DEPTH
 * deep (brackets inside strings not counted). */
static gboolean
nested_too_deep (const gchar * text, gsize size)
{
  gboolean in_string = FALSE;
  guint depth = 0;
  gsize i;

  for (i = 0; i < size; i++) {
    gchar c = text[i];

    if (in_string) {
      if (c == '\\')
        i++;
      else if (c == '"')
        in_string = FALSE;
    } else if (c == '"') {
      in_string = TRUE;
    } else if (c == '[' || c == '{') {
      if (++depth > MAX_METADATA_DEPTH)
        return TRUE;
    } else if ((c == ']' || c == '}') && depth > 0) {
      depth--;
    }
  }
  return FALSE;
}

/* Calls @func on each integer of @text (outside strings; numbers with a
 * fraction or an exponent are not integers) with its first byte and its
 * length, until @func returns TRUE; returns whether one did. The value of
 * a v3 "attributes" member (the user's, which gst-plan does not read and
 * which zarr-python takes with integers of any size) is skipped. */
static gboolean
scan_integers (const gchar * text, gsize size,
    gboolean (*func) (const gchar * token, gsize len, gpointer data),
    gpointer data)
{
  gboolean in_string = FALSE, after_key = FALSE, skipping = FALSE;
  gsize i, string_start = 0, key_end = 0;
  guint depth = 0;

  for (i = 0; i < size; i++) {
    gchar c = text[i];
    gsize end;

    if (in_string) {
      if (c == '\\') {
        i++;
      } else if (c == '"') {
        in_string = FALSE;
        /* "attributes" as a key of the top-level object */
        if (depth == 1 && i - string_start == 11
            && strncmp (text + string_start, "\"attributes", 11) == 0) {
          after_key = TRUE;
          key_end = i + 1;
        }
      }
      continue;
    }
    if (after_key && i > key_end && !strchr (" \t\r\n:", c)) {
      skipping = (c == '{' || c == '[')
          && strspn (text + key_end, " \t\r\n") < i - key_end
          && text[key_end + strspn (text + key_end, " \t\r\n")] == ':';
      after_key = FALSE;
    }
    if (c == '"') {
      in_string = TRUE;
      string_start = i;
      continue;
    }
    if (c == '{' || c == '[') {
      depth++;
      continue;
    }
    if (c == '}' || c == ']') {
      if (depth > 0 && --depth == 1)
        skipping = FALSE;
      continue;
    }
    if (c != '-' && !g_ascii_isdigit (c))
      continue;
    end = i + (c == '-');
    while (end < size && g_ascii_isdigit (text[end]))
      end++;
    if (!skipping && end < size && strchr (".eE", text[end]) == NULL
        && func (text + i, end - i, data))
      return TRUE;
    /* past the number (and a fraction or exponent, digits and signs) */
    while (end < size && strchr ("0123456789.eE+-", text[end]))
      end++;
    i = end - 1;
  }
  return FALSE;
}

/* Reads the integer @token of @len bytes; FALSE when 64 bits do not hold
 * it (below -2^63 or above 2^64 - 1). */
static gboolean
read_integer (const gchar * token, gsize len, gboolean * negative,
    guint64 * magnitude)
{
  gchar *copy = g_strndup (token, len);

  errno = 0;
  *negative = token[0] == '-';
  if (*negative) {
    gint64 v = g_ascii_strtoll (copy, NULL, 10);
    *magnitude = v == G_MININT64 ? (guint64) G_MAXINT64 + 1 : (guint64) - v;
  } else {
    *magnitude = g_ascii_strtoull (copy, NULL, 10);
  }
  g_free (copy);
  return errno != ERANGE;
}

static gboolean
beyond_64_bits (const gchar * token, gsize len, gpointer data)
{
  gboolean negative;
  guint64 magnitude;

  if (read_integer (token, len, &negative, &magnitude))
    return FALSE;
  *(gchar **) data = g_strndup (token, len);
  return TRUE;
}

/* The first integer of @text (outside strings and v3 attributes) that 64
 * bits do not hold (below -2^63 or above 2^64 - 1), copied, or NULL:
 * json-glib reads such an integer as another one (2^64 + 5 as -1,
 * -2^63 - 1 as 2^63 - 1) without a word. */
static gchar *
integer_beyond_64_bits (const gchar * text, gsize size)
{
  gchar *big = NULL;

  scan_integers (text, size, beyond_64_bits, &big);
  return big;
}

typedef struct
{
  const gchar *text;
  GString *marked;
  gsize copied;                 /* the bytes of text in marked */
} Marking;

static gboolean
mark_above_int64 (const gchar * token, gsize len, gpointer data)
{
  Marking *m = data;
  gboolean negative;
  guint64 magnitude;
  gsize end = token + len - m->text;

  if (read_integer (token, len, &negative, &magnitude) && !negative
      && magnitude > G_MAXINT64) {
    if (m->marked == NULL)
      m->marked = g_string_new (NULL);
    g_string_append_len (m->marked, m->text + m->copied, end - m->copied);
    g_string_append (m->marked, ".0");
    m->copied = end;
  }
  return FALSE;
}

/* @text with ".0" after each integer from 2^63 to 2^64 - 1, or NULL when
 * it has none. json-glib reads those integers as int64 with their low 64
 * bits, 2^64 - 1 as -1; parsed again so marked, they are floats, whose
 * sign tells a uint64 above 2^63 - 1 from a negative number. */
static gchar *
mark_integers_above_int64 (const gchar * text)
{
  Marking m = { text, NULL, 0 };
  gsize size = strlen (text);

  scan_integers (text, size, mark_above_int64, &m);
  if (m.marked == NULL)
    return NULL;
  g_string_append_len (m.marked, text + m.copied, size - m.copied);
  return g_string_free (m.marked, FALSE);
}

/* A metadata file, NUL-terminated, with its size in *@size_out. */
static gchar *
read_metadata_file (const gchar * file, gsize * size_out, GError ** error)
{
  struct stat st;
  gint fd = open_regular (file, &st, error);
  gchar *text, *big;
  gsize done;
  gssize bad;

  if (fd < 0)
    return NULL;
  if (st.st_size > MAX_METADATA_SIZE) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "'%s' has %"
        G_GUINT64_FORMAT " bytes; Zarr metadata of more than 1 MiB is taken "
        "as corrupt", file, (guint64) st.st_size);
    close (fd);
    return NULL;
  }
  text = g_malloc (st.st_size + 1);
  if (!read_all (fd, (guint8 *) text, st.st_size, &done)) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "cannot read '%s': %s", file, errno ? g_strerror (errno) :
        "it shrank while it was read");
    g_free (text);
    close (fd);
    return NULL;
  }
  close (fd);
  text[done] = '\0';
  bad = not_strict_json (text, done);
  if (bad >= 0) {
    gchar *cut = g_strndup (text + bad, MIN (done - bad, 12));
    gchar *shown = g_strescape (cut, NULL);

    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "'%s' is not valid "
        "JSON: at byte %" G_GSSIZE_FORMAT ", \"%s\" (a comment, a single-"
        "quoted string, a number JSON does not write, such as 010 or 0x10, "
        "or another character outside a string)", file, bad, shown);
    g_free (shown);
    g_free (cut);
    g_free (text);
    return NULL;
  }
  if (nested_too_deep (text, done)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "'%s' nests lists "
        "and objects more than %d deep; Zarr metadata nested so deep is "
        "taken as corrupt", file, MAX_METADATA_DEPTH);
    g_free (text);
    return NULL;
  }
  big = integer_beyond_64_bits (text, done);
  if (big) {
    if (strlen (big) > 40)
      strcpy (big + 37, "...");
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "'%s' has the "
        "integer %s, which 64 bits do not hold; it is taken as corrupt",
        file, big);
    g_free (big);
    g_free (text);
    return NULL;
  }
  if (size_out)
    *size_out = done;
  return text;
}

static gchar *
read_metadata (const gchar * file, GError ** error)
{
  return read_metadata_file (file, NULL, error);
}

static gboolean is_array (const gchar * dir);

/* The arrays under @dir (paths relative to the store's root @root), for
 * an error that lists them. Each directory is looked in once (@seen holds
 * their device and inode numbers), so that symbolic links that loop back
 * ("a -> .", several of them) do not make the walk endless. */
static void
find_arrays (const gchar * root, const gchar * dir, GPtrArray * out,
    guint depth, GHashTable * seen)
{
  struct stat st;
  gchar *key;
  GDir *d;
  const gchar *name;

  if (depth > 8 || stat (dir, &st) < 0)
    return;
  key = g_strdup_printf ("%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT,
      (guint64) st.st_dev, (guint64) st.st_ino);
  if (!g_hash_table_add (seen, key))
    return;
  d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) && out->len < 100) {
    gchar *sub = g_build_filename (dir, name, NULL);

    if (!g_file_test (sub, G_FILE_TEST_IS_DIR))
      ;
    else if (is_array (sub))
      g_ptr_array_add (out, g_strconcat ("/", sub + strlen (root) + 1, NULL));
    else
      find_arrays (root, sub, out, depth + 1, seen);
    g_free (sub);
  }
  g_dir_close (d);
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar **) a, *(const gchar **) b);
}

static gchar *
join_names (GPtrArray * names)
{
  GString *s = g_string_new (NULL);
  guint i;

  g_ptr_array_sort (names, compare_names);
  for (i = 0; i < names->len && i < 20; i++) {
    if (i > 0)
      g_string_append (s, i + 1 == names->len ? " and " : ", ");
    g_string_append_printf (s, "'%s'", (gchar *) g_ptr_array_index (names,
            i));
  }
  if (names->len > 20)
    g_string_append_printf (s, " and %u more", names->len - 20);
  return g_string_free (s, FALSE);
}

/* Whether @dir holds a v3 zarr.json whose node_type is "array". */
static gboolean
is_v3_array (const gchar * dir)
{
  gchar *file = g_build_filename (dir, "zarr.json", NULL);
  gchar *text;
  gsize size;
  gboolean ok = FALSE;

  text = read_metadata_file (file, &size, NULL);
  if (text) {
    JsonParser *parser = json_parser_new ();

    if (json_parser_load_from_data (parser, text, size, NULL)
        && root_object (parser))
      ok = g_strcmp0 (member_string (root_object (parser), "node_type",
              NULL), "array") == 0;
    g_object_unref (parser);
  }
  g_free (text);
  g_free (file);
  return ok;
}

/* Why the zarr.json in @dir, where there is one, is not taken for an
 * array's or a group's metadata (not a regular file, too large or deep,
 * not JSON, not an object); NULL where it is there and readable, or not
 * there. For the error of a store with no array. */
static gchar *
v3_metadata_problem (const gchar * dir)
{
  gchar *file = g_build_filename (dir, "zarr.json", NULL);
  gchar *text, *why = NULL;
  GError *error = NULL;
  gsize size;

  if (!g_file_test (file, G_FILE_TEST_EXISTS)) {
    g_free (file);
    return NULL;
  }
  text = read_metadata_file (file, &size, &error);
  if (text) {
    JsonParser *parser = json_parser_new ();

    if (!json_parser_load_from_data (parser, text, size, &error))
      g_prefix_error (&error, "'%s' is not valid JSON: ", file);
    else if (root_object (parser) == NULL)
      g_set_error (&error, PLAN_ERROR, PLAN_ERROR_FORMAT, "'%s' is not a "
          "JSON object", file);
    g_object_unref (parser);
  }
  if (error)
    why = g_strdup (error->message);
  g_clear_error (&error);
  g_free (text);
  g_free (file);
  return why;
}

static gboolean
is_array (const gchar * dir)
{
  gchar *zarray = g_build_filename (dir, ".zarray", NULL);
  gboolean ok = g_file_test (zarray, G_FILE_TEST_IS_REGULAR);

  g_free (zarray);
  return ok || is_v3_array (dir);
}

static gboolean
has_file (const gchar * dir, const gchar * name)
{
  gchar *path = g_build_filename (dir, name, NULL);
  gboolean ok = g_file_test (path, G_FILE_TEST_EXISTS);

  g_free (path);
  return ok;
}

/**
 * _plan_zarr_node_type:
 * @dir: a directory
 *
 * Returns: what @dir is in a Zarr store: 0 nothing of Zarr, 2 or 3 an
 *   array of that version, -2 or -3 a group of that version.
 */
gint
_plan_zarr_node_type (const gchar * dir)
{
  if (has_file (dir, ".zarray"))
    return 2;
  if (has_file (dir, ".zgroup"))
    return -2;
  if (is_v3_array (dir))
    return 3;
  if (has_file (dir, "zarr.json"))
    return -3;
  return 0;
}

/**
 * _plan_zarr_write_group:
 * @dir: a directory
 * @version: 2 or 3
 * @error: return location for a #GError
 *
 * Makes @dir a Zarr group of that version (its .zgroup or zarr.json).
 */
gboolean
_plan_zarr_write_group (const gchar * dir, gint version, GError ** error)
{
  gchar *file = g_build_filename (dir, version == 3 ? "zarr.json" :
      ".zgroup", NULL);
  gboolean ok = g_file_set_contents (file, version == 3 ? "{\n    "
      "\"zarr_format\": 3,\n    \"node_type\": \"group\",\n    "
      "\"attributes\": {}\n}\n" : "{\n    \"zarr_format\": 2\n}\n", -1,
      error);

  g_free (file);
  return ok;
}

/* The JSON object in @file, or NULL with @error set. */
static JsonNode *
load_json_file (const gchar * file, GError ** error)
{
  JsonParser *parser = json_parser_new ();
  JsonNode *root = NULL;
  gchar *text = NULL;
  gsize size;

  if (!g_file_get_contents (file, &text, &size, error))
    goto done;
  if (!json_parser_load_from_data (parser, text, size, error)) {
    g_prefix_error (error, "'%s' is not valid JSON: ", file);
    goto done;
  }
  root = json_parser_get_root (parser);
  if (root && JSON_NODE_HOLDS_OBJECT (root)) {
    root = json_node_copy (root);
  } else {
    root = NULL;
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "'%s' does not hold "
        "a JSON object", file);
  }
done:
  g_free (text);
  g_object_unref (parser);
  return root;
}

/* Writes @node to a new hidden file beside @file, to be renamed over it:
 * its name, or NULL with @error set. */
static gchar *
write_json_beside (JsonNode * node, const gchar * file, GError ** error)
{
  JsonGenerator *gen = json_generator_new ();
  gchar *dir = g_path_get_dirname (file), *base = g_path_get_basename (file);
  gchar *tmp = g_strdup_printf ("%s/.%s.XXXXXX.part", dir, base);
  gchar *text, *p;
  gsize size;
  gint fd, err = 0;

  json_generator_set_pretty (gen, TRUE);
  json_generator_set_indent (gen, 4);
  json_generator_set_root (gen, node);
  text = json_generator_to_data (gen, &size);
  fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0)
    err = errno;
  for (p = text; fd >= 0 && err == 0 && size > 0;) {
    gssize n = write (fd, p, size);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      err = n < 0 ? errno : EIO;
    else
      p += n, size -= n;
  }
  if (fd >= 0 && close (fd) < 0 && err == 0)
    err = errno;
  if (err != 0) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
        "cannot write '%s': %s", tmp, g_strerror (err));
    if (fd >= 0)
      g_unlink (tmp);
    g_clear_pointer (&tmp, g_free);
  }
  g_free (text);
  g_free (dir);
  g_free (base);
  g_object_unref (gen);
  return tmp;
}

/* Brings the consolidated metadata of a v2 group (its .zmetadata object,
 * @meta, whose keys are paths relative to the group) up to date with the
 * array at @rel, whose new .zarray is @zarray (and .zattrs, when there
 * is one, @zattrs): the entries of the array it replaces go, and those
 * of the groups on the way, as they are on disk under @group, come in
 * where they are missing. */
static gboolean
update_zmetadata (JsonObject * meta, const gchar * group, const gchar * rel,
    const gchar * zarray, const gchar * zattrs, GError ** error)
{
  GList *names = json_object_get_members (meta), *l;
  gchar *prefix = g_strconcat (rel, "/", NULL);
  gchar **parts = g_strsplit (rel, "/", -1);
  GString *path = g_string_new (NULL);
  JsonNode *node;
  gboolean ok = TRUE;
  guint i;

  for (l = names; l; l = l->next)
    if (g_str_has_prefix (l->data, prefix))
      json_object_remove_member (meta, l->data);
  g_list_free (names);
  for (i = 0; ok && parts[i] && parts[i + 1]; i++) {
    static const gchar *const files[] = { ".zgroup", ".zattrs" };
    guint j;

    g_string_append_printf (path, "%s%s", i ? "/" : "", parts[i]);
    for (j = 0; ok && j < G_N_ELEMENTS (files); j++) {
      gchar *key = g_strconcat (path->str, "/", files[j], NULL);
      gchar *file = g_build_filename (group, path->str, files[j], NULL);

      if (!json_object_has_member (meta, key)
          && g_file_test (file, G_FILE_TEST_EXISTS)) {
        ok = (node = load_json_file (file, error)) != NULL;
        if (ok)
          json_object_set_member (meta, key, node);
      }
      g_free (file);
      g_free (key);
    }
  }
  if (ok && (node = load_json_file (zarray, error)) != NULL) {
    gchar *key = g_strconcat (prefix, ".zarray", NULL);

    json_object_set_member (meta, key, node);
    g_free (key);
  } else {
    ok = FALSE;
  }
  if (ok && zattrs && g_file_test (zattrs, G_FILE_TEST_EXISTS)) {
    gchar *key = g_strconcat (prefix, ".zattrs", NULL);

    ok = (node = load_json_file (zattrs, error)) != NULL;
    if (ok)
      json_object_set_member (meta, key, node);
    g_free (key);
  }
  g_string_free (path, TRUE);
  g_strfreev (parts);
  g_free (prefix);
  return ok;
}

/* Brings the consolidated metadata of a v3 group (the "metadata" object
 * of the "consolidated_metadata" in its zarr.json, @meta, whose keys are
 * the paths of all its nodes below it, as zarr-python 3 flattens them,
 * and whose values are the nodes' zarr.json) up to date with the array at
 * @rel, whose new zarr.json is @array_json: the entries of the array it
 * replaces go, and those of the groups on the way, as they are on disk
 * under @group, come in where they are missing (without consolidated
 * metadata of their own, as zarr-python 3 lists a group that has none). */
static gboolean
update_v3_consolidated (JsonObject * meta, const gchar * group,
    const gchar * rel, const gchar * array_json, GError ** error)
{
  GList *names = json_object_get_members (meta), *l;
  gchar *prefix = g_strconcat (rel, "/", NULL);
  gchar **parts = g_strsplit (rel, "/", -1);
  GString *path = g_string_new (NULL);
  JsonNode *node;
  gboolean ok = TRUE;
  guint i;

  for (l = names; l; l = l->next)
    if (strcmp (l->data, rel) == 0 || g_str_has_prefix (l->data, prefix))
      json_object_remove_member (meta, l->data);
  g_list_free (names);
  for (i = 0; ok && parts[i] && parts[i + 1]; i++) {
    g_string_append_printf (path, "%s%s", i ? "/" : "", parts[i]);
    if (!json_object_has_member (meta, path->str)) {
      gchar *file = g_build_filename (group, path->str, "zarr.json", NULL);

      ok = (node = load_json_file (file, error)) != NULL;
      if (ok) {
        JsonObject *o = json_node_get_object (node);

        if (json_object_has_member (o, "consolidated_metadata"))
          json_object_remove_member (o, "consolidated_metadata");
        json_object_set_member (meta, path->str, node);
      }
      g_free (file);
    }
  }
  if (ok && (node = load_json_file (array_json, error)) != NULL)
    json_object_set_member (meta, rel, node);
  else
    ok = FALSE;
  g_string_free (path, TRUE);
  g_strfreev (parts);
  g_free (prefix);
  return ok;
}

/**
 * _plan_zarr_prepare_consolidated:
 * @store: a Zarr group store
 * @rel: the path in it of an array being added or replaced
 * @array_dir: the array's new directory, its metadata complete
 * @error: return location for a #GError
 *
 * Consolidated metadata (zarr.consolidate_metadata(), what xarray's
 * to_zarr() writes by default) is a copy of the metadata of a group's
 * nodes, which readers that find it use instead of the nodes' own: once
 * the array is in place, the copy must say so. For each group from
 * @store down to the array's that has it, this writes the group's new
 * consolidated metadata beside its own: a v2 .zmetadata with the array's
 * new .zarray (and the groups made on the way), a v3 zarr.json whose
 * inline "consolidated_metadata" has the array's new zarr.json (and the
 * groups made on the way), as zarr-python 3 writes it.
 *
 * Returns: (transfer full): pairs of the files written and the files
 *   they replace, for _plan_zarr_commit_consolidated(), or %NULL with
 *   @error set; every file written is then removed.
 */
GPtrArray *
_plan_zarr_prepare_consolidated (const gchar * store, const gchar * rel,
    const gchar * array_dir, GError ** error)
{
  GPtrArray *pairs = g_ptr_array_new_with_free_func (g_free);
  gchar **parts = g_strsplit (rel, "/", -1);
  gchar *zarray = g_build_filename (array_dir, ".zarray", NULL);
  gchar *zattrs = g_build_filename (array_dir, ".zattrs", NULL);
  gchar *array_json = g_build_filename (array_dir, "zarr.json", NULL);
  GString *group = g_string_new (store);
  gboolean ok = TRUE;
  guint i;

  for (i = 0; ok && parts[i] != NULL; i++) {
    gchar *below = g_strjoinv ("/", parts + i);
    gchar *v2 = g_build_filename (group->str, ".zmetadata", NULL);
    gchar *v3 = g_build_filename (group->str, "zarr.json", NULL);
    JsonNode *root = NULL;
    JsonObject *o;
    const gchar *file = NULL;
    gchar *tmp;

    if (parts[i][0] == '\0') {
      /* a leading or doubled '/' */
    } else if (g_file_test (v2, G_FILE_TEST_EXISTS)) {
      file = v2;
      ok = (root = load_json_file (v2, error)) != NULL;
      o = ok ? json_node_get_object (root) : NULL;
      if (ok && (!json_object_has_member (o, "metadata")
              || !JSON_NODE_HOLDS_OBJECT (json_object_get_member (o,
                      "metadata")))) {
        g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "'%s' has no "
            "\"metadata\" object", v2);
        ok = FALSE;
      }
      ok = ok && update_zmetadata (json_object_get_object_member (o,
              "metadata"), group->str, below, zarray, zattrs, error);
    } else if (g_file_test (v3, G_FILE_TEST_EXISTS)) {
      ok = (root = load_json_file (v3, error)) != NULL;
      o = ok ? json_node_get_object (root) : NULL;
      if (ok && json_object_has_member (o, "consolidated_metadata")
          && !JSON_NODE_HOLDS_NULL (json_object_get_member (o,
                  "consolidated_metadata"))) {
        JsonNode *c = json_object_get_member (o, "consolidated_metadata");
        JsonNode *m = JSON_NODE_HOLDS_OBJECT (c) ?
            json_object_get_member (json_node_get_object (c), "metadata") :
            NULL;

        file = v3;
        if (m == NULL || !JSON_NODE_HOLDS_OBJECT (m)) {
          g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "'%s' has no "
              "\"metadata\" object in its \"consolidated_metadata\"", v3);
          ok = FALSE;
        }
        ok = ok && update_v3_consolidated (json_node_get_object (m),
            group->str, below, array_json, error);
      }
    }
    if (ok && file) {
      ok = (tmp = write_json_beside (root, file, error)) != NULL;
      if (ok) {
        g_ptr_array_add (pairs, tmp);
        g_ptr_array_add (pairs, g_strdup (file));
      }
    }
    if (!ok)
      g_prefix_error (error, "cannot bring the consolidated metadata of "
          "the group '%s' up to date: ", group->str);
    if (root)
      json_node_unref (root);
    g_free (v2);
    g_free (v3);
    g_free (below);
    if (parts[i][0] != '\0')
      g_string_append_printf (group, "/%s", parts[i]);
  }
  g_string_free (group, TRUE);
  g_free (zarray);
  g_free (zattrs);
  g_free (array_json);
  g_strfreev (parts);
  if (!ok) {
    _plan_zarr_discard_consolidated (pairs);
    return NULL;
  }
  return pairs;
}

/**
 * _plan_zarr_commit_consolidated:
 * @pairs: (transfer full): from _plan_zarr_prepare_consolidated()
 * @error: return location for a #GError
 *
 * Renames each file written over the one it replaces.
 */
gboolean
_plan_zarr_commit_consolidated (GPtrArray * pairs, GError ** error)
{
  gboolean ok = TRUE;
  guint i;

  for (i = 0; i + 1 < pairs->len; i += 2) {
    const gchar *tmp = g_ptr_array_index (pairs, i);
    const gchar *file = g_ptr_array_index (pairs, i + 1);

    if (ok && g_rename (tmp, file) < 0) {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
          "cannot replace the consolidated metadata '%s': %s", file,
          g_strerror (errno));
      ok = FALSE;
    }
    if (!ok)
      g_unlink (tmp);
  }
  g_ptr_array_unref (pairs);
  return ok;
}

/**
 * _plan_zarr_discard_consolidated:
 * @pairs: (transfer full) (nullable): from
 *   _plan_zarr_prepare_consolidated()
 *
 * Removes the files written, replacing nothing.
 */
void
_plan_zarr_discard_consolidated (GPtrArray * pairs)
{
  guint i;

  if (pairs == NULL)
    return;
  for (i = 0; i + 1 < pairs->len; i += 2)
    g_unlink (g_ptr_array_index (pairs, i));
  g_ptr_array_unref (pairs);
}

/* Whether a part of @path between its slashes is "." or "..". */
static gboolean
has_dot_part (const gchar * path)
{
  gchar **parts = g_strsplit (path, "/", -1);
  gboolean dot = FALSE;
  guint i;

  for (i = 0; parts[i]; i++)
    dot |= strcmp (parts[i], ".") == 0 || strcmp (parts[i], "..") == 0;
  g_strfreev (parts);
  return dot;
}

/* The array's directory: the array @path of the store, or, without a
 * path, the store itself when it is an array, else its only array. */
static gchar *
choose_array (const gchar * store, const gchar * path, gchar ** chosen,
    GError ** error)
{
  const gchar *rel = path ? path + strspn (path, "/") : NULL;
  gchar *dir, *names, *why;
  GPtrArray *found;
  GHashTable *seen;

  if (rel && has_dot_part (rel)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "'%s' is "
        "not the path of an array in a Zarr store: a part of it is '.' or "
        "'..', which Zarr's node names may not be (it would lead outside the "
        "store, or around it)", path);
    return NULL;
  }
  /* A zarr.json that cannot be read says why: a corrupt array's metadata
   * is not merely "no array". */
  if (rel) {
    dir = g_build_filename (store, rel, NULL);
    if (is_array (dir)) {
      *chosen = g_strconcat ("/", rel, NULL);
      return dir;
    }
    why = v3_metadata_problem (dir);
    g_free (dir);
  } else if (is_array (store)) {
    *chosen = g_strdup ("/");
    return g_strdup (store);
  } else {
    why = v3_metadata_problem (store);
  }

  found = g_ptr_array_new_with_free_func (g_free);
  seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  find_arrays (store, store, found, 0, seen);
  g_hash_table_unref (seen);
  if (path == NULL && found->len == 1) {
    *chosen = g_strdup (g_ptr_array_index (found, 0));
    dir = g_build_filename (store, *chosen + 1, NULL);
    g_ptr_array_unref (found);
    g_free (why);
    return dir;
  }
  names = join_names (found);
  if (found->len == 0 && rel && is_array (store))
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "it has no "
        "Zarr array '%s': it is a Zarr array itself, not a group; read it "
        "without a dataset", path);
  else if (found->len == 0)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR, "it is a "
        "directory, and no Zarr array (a .zarray, or a zarr.json of an "
        "array) is in it%s%s", why ? ": " : "", why ? why : "");
  else if (path == NULL)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "it is a "
        "Zarr group of %u arrays, %s; name the one to read as the dataset",
        found->len, names);
  else
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID_ARGUMENT, "it has no "
        "Zarr array '%s'%s%s; its arrays are %s", path, why ? ": " : "",
        why ? why : "", names);
  g_free (why);
  g_free (names);
  g_ptr_array_unref (found);
  return NULL;
}

static gboolean
parse_dtype (PlanZarrArray * z, JsonObject * o, GError ** error)
{
  const gchar *s = member_string (o, "dtype", NULL);
  gchar *shown;
  static const struct
  {
    const gchar *code;
    PlanDType dtype;
  } codes[] = {
    {"b1", PLAN_DTYPE_BOOL}, {"i1", PLAN_DTYPE_INT8}, {"u1", PLAN_DTYPE_UINT8},
    {"i2", PLAN_DTYPE_INT16}, {"u2", PLAN_DTYPE_UINT16},
    {"i4", PLAN_DTYPE_INT32}, {"u4", PLAN_DTYPE_UINT32},
    {"i8", PLAN_DTYPE_INT64}, {"u8", PLAN_DTYPE_UINT64},
    {"f2", PLAN_DTYPE_FLOAT16}, {"f4", PLAN_DTYPE_FLOAT32},
    {"f8", PLAN_DTYPE_FLOAT64}, {"c8", PLAN_DTYPE_COMPLEX64},
    {"c16", PLAN_DTYPE_COMPLEX128},
  };
  guint i;

  if (s && strlen (s) >= 3 && strchr ("<>|", s[0])) {
    for (i = 0; i < G_N_ELEMENTS (codes); i++) {
      if (strcmp (s + 1, codes[i].code) == 0) {
        z->dtype = codes[i].dtype;
        z->itemsize = plan_dtype_get_size (z->dtype);
        z->swap = s[0] == '>' && z->itemsize > 1;
        return TRUE;
      }
    }
  }
  shown = show_dtype (o, "dtype");
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its dtype %s "
      "is not supported; only bool, integers, float16, float32, float64, "
      "complex64 and complex128 are read", shown);
  g_free (shown);
  return FALSE;
}

static gboolean
parse_axes (JsonObject * o, const gchar * key, guint64 * out, gint * n,
    GError ** error)
{
  JsonNode *node = json_object_get_member (o, key);
  JsonArray *a;
  guint i;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    goto bad;
  a = json_node_get_array (node);
  if (json_array_get_length (a) > PLAN_ARRAY_MAX_DIMS) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "it has %u "
        "axes; at most %d are supported", json_array_get_length (a),
        PLAN_ARRAY_MAX_DIMS);
    return FALSE;
  }
  *n = json_array_get_length (a);
  for (i = 0; i < json_array_get_length (a); i++) {
    JsonNode *e = json_array_get_element (a, i);
    if (json_node_get_value_type (e) != G_TYPE_INT64
        || json_node_get_int (e) < 0)
      goto bad;
    out[i] = json_node_get_int (e);
  }
  return TRUE;

bad:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its metadata has no "
      "valid '%s' (a list of non-negative integers)", key);
  return FALSE;
}

static gboolean
parse_codec (PlanZarrArray * z, JsonObject * o, GError ** error)
{
  JsonNode *node = json_object_get_member (o, "compressor");
  JsonNode *filters = json_object_get_member (o, "filters");
  const gchar *id = NULL;

  if (filters && !JSON_NODE_HOLDS_NULL (filters)
      && !(JSON_NODE_HOLDS_ARRAY (filters)
          && json_array_get_length (json_node_get_array (filters)) == 0)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "it has filters "
        "(delta, scale-offset, ...), which are not supported; write it "
        "without filters");
    return FALSE;
  }
  if (node == NULL || JSON_NODE_HOLDS_NULL (node)) {
    z->codec = CODEC_NONE;
    return TRUE;
  }
  if (!JSON_NODE_HOLDS_OBJECT (node)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its compressor is "
        "neither null nor an object with an id");
    return FALSE;
  }
  id = member_string (json_node_get_object (node), "id", NULL);
  if (g_strcmp0 (id, "zlib") == 0)
    z->codec = CODEC_ZLIB;
  else if (g_strcmp0 (id, "gzip") == 0)
    z->codec = CODEC_GZIP;
#if HAVE_ZSTD
  else if (g_strcmp0 (id, "zstd") == 0)
    z->codec = CODEC_ZSTD;
#endif
#if HAVE_BLOSC
  else if (g_strcmp0 (id, "blosc") == 0) {
    if (!_plan_zarr_blosc (error))
      return FALSE;
    z->codec = CODEC_BLOSC;
  }
#endif
  else {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its compressor "
        "'%s' is not supported; zlib, gzip%s%s and none are read",
        id ? id : "(no id)", HAVE_ZSTD ? ", zstd" : "",
        HAVE_BLOSC ? ", blosc" : "");
    return FALSE;
  }
  return TRUE;
}

static gboolean parse_fill_node (JsonNode * node, JsonNode * hint,
    PlanDType dtype, gsize itemsize, gboolean v3, guint8 * fill);

/* Whether @node is an integer json-glib read as a negative one: a
 * negative number, or one from 2^63 to 2^64 - 1. */
static gboolean
is_negative_int (JsonNode * node)
{
  return node && json_node_get_value_type (node) == G_TYPE_INT64
      && json_node_get_int (node) < 0;
}

/* The fill_value of the metadata @text parsed again with its integers
 * from 2^63 on marked as floats (mark_integers_above_int64 ()), into
 * @parser: its nodes tell those integers from negative ones. NULL when
 * @text has none. */
static JsonNode *
parse_fill_hint (const gchar * text, JsonParser ** parser)
{
  gchar *marked = mark_integers_above_int64 (text);
  JsonObject *o;

  *parser = NULL;
  if (marked == NULL)
    return NULL;
  *parser = json_parser_new ();
  o = json_parser_load_from_data (*parser, marked, -1, NULL) ?
      root_object (*parser) : NULL;
  g_free (marked);
  return o ? json_object_get_member (o, "fill_value") : NULL;
}

/* The element @i of the list @node, or NULL. */
static JsonNode *
list_element (JsonNode * node, guint i)
{
  JsonArray *a = node && JSON_NODE_HOLDS_ARRAY (node) ?
      json_node_get_array (node) : NULL;

  return a && i < json_array_get_length (a) ?
      json_array_get_element (a, i) : NULL;
}

/* @node as the metadata has it: json-glib would print 2^64 - 1 as -1. */
static gchar *
show_fill (JsonNode * node, JsonNode * hint)
{
  if (JSON_NODE_HOLDS_ARRAY (node) && list_element (node, 0)
      && list_element (node, 1)
      && json_array_get_length (json_node_get_array (node)) == 2) {
    gchar *re = show_fill (list_element (node, 0), list_element (hint, 0));
    gchar *im = show_fill (list_element (node, 1), list_element (hint, 1));
    gchar *both = g_strdup_printf ("[%s,%s]", re, im);

    g_free (re);
    g_free (im);
    return both;
  }
  if (is_negative_int (node) && hint
      && json_node_get_value_type (hint) == G_TYPE_DOUBLE
      && json_node_get_double (hint) > 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT,
        (guint64) json_node_get_int (node));
  return json_to_string (node, FALSE);
}

/* The fill value's bytes, in the machine's byte order. A complex fill
 * value is a list of its real and imaginary parts, each written as a
 * float's. @text is the metadata @o was parsed from. */
static gboolean
parse_fill (PlanZarrArray * z, JsonObject * o, const gchar * text,
    GError ** error)
{
  JsonNode *node = json_object_get_member (o, "fill_value"), *hint = NULL;
  JsonParser *hint_parser = NULL;
  gboolean complex = z->dtype == PLAN_DTYPE_COMPLEX64
      || z->dtype == PLAN_DTYPE_COMPLEX128;
  gboolean ok;

  memset (z->fill, 0, sizeof (z->fill));
  if (node && JSON_NODE_HOLDS_NULL (node) && z->v3)
    goto null_v3;
  /* v2: null is "no fill value"; missing chunks are then 0, as
   * zarr-python 3 reads them (zarr-python 2 leaves them as np.empty ()
   * made them). */
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (is_negative_int (node) || is_negative_int (list_element (node, 0))
      || is_negative_int (list_element (node, 1)))
    hint = parse_fill_hint (text, &hint_parser);
  if (complex) {
    PlanDType part = z->dtype == PLAN_DTYPE_COMPLEX64 ? PLAN_DTYPE_FLOAT32 :
        PLAN_DTYPE_FLOAT64;
    gsize half = z->itemsize / 2;
    JsonArray *a = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node)
        : NULL;

    ok = a && json_array_get_length (a) == 2
        && parse_fill_node (list_element (node, 0), list_element (hint, 0),
        part, half, z->v3, z->fill)
        && parse_fill_node (list_element (node, 1), list_element (hint, 1),
        part, half, z->v3, z->fill + half);
  } else {
    ok = parse_fill_node (node, hint, z->dtype, z->itemsize, z->v3, z->fill);
  }
  if (!ok) {
    gchar *shown = show_fill (node, hint);

    if (strlen (shown) > 40)
      strcpy (shown + 37, "...");
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its fill_value %s "
        "does not fit its dtype %s", shown, plan_dtype_to_string (z->dtype));
    g_free (shown);
  }
  if (hint_parser)
    g_object_unref (hint_parser);
  return ok;

null_v3:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its fill_value is "
      "null; Zarr v3 requires a value of the array's data_type (%s), which "
      "chunks never written read as (zarr-python 3 refuses it too)",
      plan_dtype_to_string (z->dtype));
  return FALSE;
}

/* Whether @i (@big: the unsigned value (guint64) @i, 2^63 or more) is a
 * value of the integer or bool @dtype: the fill value of a uint8 array
 * cannot be 300 or -1 (it would wrap), nor a bool's 2, nor an int64's
 * 2^63, nor a uint64's -1. */
static gboolean
int_fits (PlanDType dtype, gint64 i, gboolean big)
{
  switch (dtype) {
    case PLAN_DTYPE_BOOL:
      return !big && (i == 0 || i == 1);
    case PLAN_DTYPE_INT8:
      return !big && i >= G_MININT8 && i <= G_MAXINT8;
    case PLAN_DTYPE_UINT8:
      return !big && i >= 0 && i <= G_MAXUINT8;
    case PLAN_DTYPE_INT16:
      return !big && i >= G_MININT16 && i <= G_MAXINT16;
    case PLAN_DTYPE_UINT16:
      return !big && i >= 0 && i <= G_MAXUINT16;
    case PLAN_DTYPE_INT32:
      return !big && i >= G_MININT32 && i <= G_MAXINT32;
    case PLAN_DTYPE_UINT32:
      return !big && i >= 0 && i <= G_MAXUINT32;
    case PLAN_DTYPE_INT64:
      return !big;
    case PLAN_DTYPE_UINT64:
      return big || i >= 0;
    default:
      return FALSE;
  }
}

/* One value of the fill value, of @dtype (not complex), into @fill.
 * @hint: the same value parsed with integers from 2^63 on marked as
 * floats (parse_fill_hint ()), or NULL. @v3: Zarr v3 metadata, which may
 * give a float's bits in hex (v2 has no such spelling). */
static gboolean
parse_fill_node (JsonNode * node, JsonNode * hint, PlanDType dtype,
    gsize itemsize, gboolean v3, guint8 * fill)
{
  gdouble d = 0;
  gint64 i = 0;
  gboolean big = FALSE;
  gboolean is_float = plan_dtype_is_float (dtype);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    goto bad;
  if (json_node_get_value_type (node) == G_TYPE_STRING) {
    const gchar *s = json_node_get_string (node);

    if (s && v3 && g_str_has_prefix (s, "0x") && is_float
        && strlen (s) == 2 + 2 * itemsize
        && strspn (s + 2, "0123456789abcdefABCDEF") == 2 * itemsize) {
      /* v3: the value's bits, big-endian hex. */
      guint64 bits = g_ascii_strtoull (s + 2, NULL, 16);

      memcpy (fill, &bits, itemsize);
      return TRUE;
    }
    if (g_strcmp0 (s, "NaN") == 0)
      d = NAN;
    else if (g_strcmp0 (s, "Infinity") == 0)
      d = INFINITY;
    else if (g_strcmp0 (s, "-Infinity") == 0)
      d = -INFINITY;
    else
      goto bad;
    if (!is_float)
      goto bad;
  } else if (json_node_get_value_type (node) == G_TYPE_BOOLEAN) {
    i = json_node_get_boolean (node);
    d = i;
  } else if (json_node_get_value_type (node) == G_TYPE_INT64) {
    i = json_node_get_int (node);
    /* json-glib keeps an integer's low 64 bits: one from 2^63 on reads
     * as a negative one, which the hint's float tells apart. */
    big = i < 0 && hint && json_node_get_value_type (hint) == G_TYPE_DOUBLE
        && json_node_get_double (hint) > 0;
    d = big ? (gdouble) (guint64) i : (gdouble) i;
  } else if (json_node_get_value_type (node) == G_TYPE_DOUBLE) {
    d = json_node_get_double (node);
    /* An integer's fill value must be a whole number within 64 bits
     * (1e300 has no integer part to take: its cast would be undefined);
     * its range is checked below. */
    if (!is_float && !(d >= -9223372036854775808.0
            && d < 18446744073709551616.0 && d == floor (d)))
      goto bad;
    big = d >= 9223372036854775808.0;
    i = big ? (gint64) (guint64) d : (gint64) d;
  } else {
    goto bad;
  }
  if (!is_float && !int_fits (dtype, i, big))
    goto bad;

  switch (dtype) {
    case PLAN_DTYPE_FLOAT16:{
      guint16 h = _plan_half_from_double (d);
      memcpy (fill, &h, 2);
      break;
    }
    case PLAN_DTYPE_FLOAT32:{
      gfloat f = d;
      memcpy (fill, &f, 4);
      break;
    }
    case PLAN_DTYPE_FLOAT64:
      memcpy (fill, &d, 8);
      break;
    default:
      /* Little-endian machine: the low bytes of the integer. */
      memcpy (fill, &i, itemsize);
      break;
  }
  return TRUE;

bad:
  return FALSE;
}

/* The bytes of a chunk; FALSE when a chunk length is 0 or a chunk would
 * be over 2 GiB. */
static gboolean
size_chunks (PlanZarrArray * z)
{
  gint i;

  z->chunk_bytes = z->itemsize;
  for (i = 0; i < z->ndim; i++) {
    if (z->chunks[i] == 0 || z->chunks[i] > ((guint64) 1 << 32)
        || z->chunk_bytes > ((gsize) 1 << 31) / z->chunks[i])
      return FALSE;
    z->chunk_bytes *= z->chunks[i];
  }
  return TRUE;
}

/* Whether the chunks' stored axes (z->perm) lay out their elements as C
 * order does: their axes longer than 1 come in the array's order ((1000,
 * 1) or 1-D chunks have the same bytes in every order). */
static gboolean
chunk_in_c_order (const PlanZarrArray * z)
{
  gint k, last = -1;

  for (k = 0; k < z->ndim; k++) {
    if (z->chunks[z->perm[k]] <= 1)
      continue;
    if ((gint) z->perm[k] < last)
      return FALSE;
    last = z->perm[k];
  }
  return TRUE;
}

static void
perm_init (PlanZarrArray * z, gboolean fortran)
{
  gint d;

  for (d = 0; d < z->ndim; d++)
    z->perm[d] = fortran ? z->ndim - 1 - d : d;
}

static gboolean
parse_zarray (PlanZarrArray * z, const gchar * text, GError ** error)
{
  JsonParser *parser = json_parser_new ();
  JsonObject *o;
  gint n_chunks = 0;
  const gchar *order, *sep;
  gboolean ok = FALSE;

  if (!json_parser_load_from_data (parser, text, -1, error)) {
    /* (NaN and Infinity are not JSON: Zarr writes them as strings.) */
    g_prefix_error (error, "its .zarray is not valid JSON: ");
    goto done;
  }
  o = root_object (parser);
  if (o == NULL)
    goto not_object;
  if (!check_zarr_format (o, 2, ".zarray", "only Zarr v2 is read", error))
    goto done;
  /* Required, as zarr-python 2 requires them: an F-ordered array without
   * its order would read as C order, transposed chunk by chunk, missing
   * chunks as a fill value the metadata does not say, and compressed
   * chunks of a chunk's length as elements. */
  if (json_object_get_member (o, "order") == NULL
      || JSON_NODE_HOLDS_NULL (json_object_get_member (o, "order")))
    goto no_order;
  if (json_object_get_member (o, "fill_value") == NULL)
    goto no_fill;
  if (json_object_get_member (o, "compressor") == NULL)
    goto no_compressor;
  order = member_string (o, "order", "C");
  if (g_strcmp0 (order, "C") != 0 && g_strcmp0 (order, "F") != 0)
    goto bad_order;
  sep = member_string (o, "dimension_separator", ".");
  if (g_strcmp0 (sep, ".") != 0 && g_strcmp0 (sep, "/") != 0)
    goto bad_separator;
  z->separator = sep[0];
  if (!parse_dtype (z, o, error)
      || !parse_axes (o, "shape", z->shape, &z->ndim, error)
      || !parse_axes (o, "chunks", z->chunks, &n_chunks, error)
      || !parse_codec (z, o, error) || !parse_fill (z, o, text, error))
    goto done;
  if (n_chunks != z->ndim || !size_chunks (z))
    goto bad_chunks;
  /* A chunk with fewer than two axes longer than 1 ((100, 1), (1, 100),
   * 1-D) has the same bytes in both orders, as a .npy has; others are
   * transposed as they are copied out (copy_from_chunk ()). */
  perm_init (z, order[0] == 'F');
  z->permuted = !chunk_in_c_order (z);
  ok = TRUE;
  goto done;

not_object:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its .zarray is not a "
      "JSON object");
  goto done;
no_order:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its .zarray has no "
      "order (\"C\" or \"F\"), which Zarr v2 requires: without it the "
      "chunks' elements cannot be put in place");
  goto done;
no_fill:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its .zarray has no "
      "fill_value (null where there is none), which Zarr v2 requires: "
      "without it the chunks that were never written have no value");
  goto done;
no_compressor:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its .zarray has no "
      "compressor (null where there is none), which Zarr v2 requires: "
      "without it compressed chunks would be read as their elements");
  goto done;
bad_order:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its chunks are in "
      "order '%s'; only C and F order are read", order ? order : "?");
  goto done;
bad_separator:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its "
      "dimension_separator '%s' is neither '.' nor '/'", sep ? sep : "?");
  goto done;
bad_chunks:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its chunks do not fit "
      "its shape (one positive length per axis, at most 2 GiB a chunk)");
  goto done;
done:
  g_object_unref (parser);
  return ok;
}

/* v3: checks the configuration field @key of codec @name where it is set
 * (absent or null, the codec's default): an integer from @lo to @hi, a
 * boolean (@kind 'b') or one of the strings of @choices (@kind 's'), as
 * zarr-python 3 refuses any other when it opens the array. The reader
 * does not need these fields, but a configuration of the wrong type is
 * no valid metadata. */
static gboolean
check_v3_field (const gchar * name, JsonObject * conf, const gchar * key,
    gchar kind, gint64 lo, gint64 hi, const gchar * const *choices,
    GError ** error)
{
  JsonNode *n = conf ? json_object_get_member (conf, key) : NULL;
  GType type;
  gchar *text, *want;

  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return TRUE;
  type = JSON_NODE_HOLDS_VALUE (n) ? json_node_get_value_type (n) :
      G_TYPE_INVALID;
  if (kind == 'i' && type == G_TYPE_INT64 && json_node_get_int (n) >= lo
      && json_node_get_int (n) <= hi)
    return TRUE;
  if (kind == 'b' && type == G_TYPE_BOOLEAN)
    return TRUE;
  if (kind == 's' && type == G_TYPE_STRING
      && g_strv_contains (choices, json_node_get_string (n)))
    return TRUE;

  text = json_to_string (n, FALSE);
  if (kind == 'i' && lo == G_MININT64 && hi == G_MAXINT64)
    want = g_strdup ("an integer");
  else if (kind == 'i' && lo == G_MININT64)
    want = g_strdup_printf ("an integer up to %" G_GINT64_FORMAT, hi);
  else if (kind == 'i' && hi == G_MAXINT64)
    want = g_strdup (lo > 0 ? "a positive integer" :
        "a non-negative integer");
  else if (kind == 'i')
    want = g_strdup_printf ("an integer from %" G_GINT64_FORMAT " to %"
        G_GINT64_FORMAT, lo, hi);
  else if (kind == 'b')
    want = g_strdup ("true or false");
  else {
    gchar *list = g_strjoinv ("\", \"", (gchar **) choices);

    want = g_strdup_printf ("one of \"%s\"", list);
    g_free (list);
  }
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its codec '%s' has "
      "%s %s, which is not %s; zarr-python 3 refuses it too", name, key,
      text, want);
  g_free (text);
  g_free (want);
  return FALSE;
}

/* v3: the configuration of a gzip, zstd or blosc codec, each field of the
 * type and range zarr-python 3 takes. */
static gboolean
check_v3_compressor (const gchar * name, JsonObject * conf, GError ** error)
{
  static const gchar *const cnames[] = { "lz4", "lz4hc", "blosclz", "zstd",
    "snappy", "zlib", NULL
  };
  static const gchar *const shuffles[] = { "noshuffle", "shuffle",
    "bitshuffle", NULL
  };

  if (g_strcmp0 (name, "gzip") == 0)
    return check_v3_field (name, conf, "level", 'i', 0, 9, NULL, error);
  if (g_strcmp0 (name, "zstd") == 0)
    return check_v3_field (name, conf, "level", 'i', G_MININT64, 22, NULL,
        error) && check_v3_field (name, conf, "checksum", 'b', 0, 0, NULL,
        error);
  /* blosc */
  return check_v3_field (name, conf, "typesize", 'i', 1, G_MAXINT64, NULL,
      error) && check_v3_field (name, conf, "cname", 's', 0, 0, cnames,
      error) && check_v3_field (name, conf, "clevel", 'i', G_MININT64,
      G_MAXINT64, NULL, error) && check_v3_field (name, conf, "shuffle", 's',
      0, 0, shuffles, error);
}

/* v3: one codec of the "codecs" list. */
static gboolean
parse_v3_codec (PlanZarrArray * z, JsonObject * codec, gboolean * have_bytes,
    GError ** error)
{
  const gchar *name = member_string (codec, "name", NULL);
  JsonNode *cn = json_object_get_member (codec, "configuration");
  JsonObject *conf = cn && JSON_NODE_HOLDS_OBJECT (cn) ?
      json_node_get_object (cn) : NULL;

  /* A configuration is an object, or absent (its defaults). */
  if (cn && conf == NULL && !JSON_NODE_HOLDS_NULL (cn))
    goto bad;
  /* Zarr v3: exactly one array -> bytes codec, and the only ones there are
   * bytes and sharding_indexed (read when it is the array's only codec,
   * parse_sharding ()). */
  if (*have_bytes && (g_strcmp0 (name, "bytes") == 0
          || g_strcmp0 (name, "sharding_indexed") == 0))
    goto second_array_to_bytes;
  if (g_strcmp0 (name, "bytes") == 0) {
    /* Zarr v3 requires the endian of a data type of several bytes: the
     * file does not say how to read one without it. */
    const gchar *endian = conf ? member_string (conf, "endian", NULL) : NULL;
    gboolean unset = conf == NULL || member_is_unset (conf, "endian");

    if (unset && z->itemsize > 1)
      goto no_endian;
    if (unset)
      endian = "little";
    if (g_strcmp0 (endian, "little") != 0 && g_strcmp0 (endian, "big") != 0)
      goto bad;
    z->swap = g_strcmp0 (endian, "big") == 0 && z->itemsize > 1;
    *have_bytes = TRUE;
    return TRUE;
  }
  if (g_strcmp0 (name, "transpose") == 0 && !*have_bytes) {
    /* Stored axis k of the transposed chunk is axis order[k] of the chunk
     * before it: after the transposes so far, the array's axis
     * perm[order[k]]. */
    JsonNode *on = conf ? json_object_get_member (conf, "order") : NULL;
    JsonArray *order = on && JSON_NODE_HOLDS_ARRAY (on) ?
        json_node_get_array (on) : NULL;
    guint8 perm[PLAN_ARRAY_MAX_DIMS];
    guint seen = 0, k;

    if (order == NULL || json_array_get_length (order) != (guint) z->ndim)
      goto bad_transpose;
    for (k = 0; k < (guint) z->ndim; k++) {
      JsonNode *e = json_array_get_element (order, k);
      gint64 a;

      if (json_node_get_value_type (e) != G_TYPE_INT64)
        goto bad_transpose;
      a = json_node_get_int (e);
      if (a < 0 || a >= z->ndim || (seen & (1u << a)))
        goto bad_transpose;
      seen |= 1u << a;
      perm[k] = z->perm[a];
    }
    memcpy (z->perm, perm, z->ndim);
    z->permuted = !chunk_in_c_order (z);
    return TRUE;
  }
  if (!*have_bytes)
    goto unsupported;
  if (z->crc32c)
    goto unsupported;           /* a checksum is the last codec */
  if (g_strcmp0 (name, "crc32c") == 0) {
    z->crc32c = TRUE;
    return TRUE;
  }
  if (z->codec != CODEC_NONE)
    goto unsupported;           /* one compressor */
  if (g_strcmp0 (name, "gzip") == 0)
    z->codec = CODEC_GZIP;
#if HAVE_ZSTD
  else if (g_strcmp0 (name, "zstd") == 0)
    z->codec = CODEC_ZSTD;
#endif
#if HAVE_BLOSC
  else if (g_strcmp0 (name, "blosc") == 0) {
    if (!_plan_zarr_blosc (error))
      return FALSE;
    z->codec = CODEC_BLOSC;
  }
#endif
  else
    goto unsupported;
  return check_v3_compressor (name, conf, error);

no_endian:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its codec 'bytes' has "
      "no endian; Zarr v3 requires one for a data_type of more than one byte "
      "(%s), and zarr-python 3 refuses it too", plan_dtype_to_string
      (z->dtype));
  return FALSE;
bad:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its codec '%s' has "
      "a configuration that is not valid", name ? name : "(no name)");
  return FALSE;
bad_transpose:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its transpose codec's "
      "order is not a permutation of the array's %d axes (each of 0 to %d "
      "once)", z->ndim, z->ndim - 1);
  return FALSE;
second_array_to_bytes:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its codecs have two "
      "array -> bytes codecs, 'bytes' and then '%s'; Zarr v3 takes exactly "
      "one (the codec that turns the array into bytes)", name);
  return FALSE;
unsupported:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its codec '%s' "
      "is not supported; transpose, bytes, then gzip%s%s "
      "and crc32c are read (or sharding_indexed as the only codec)",
      name ? name : "(no name)", HAVE_ZSTD ? ", zstd" : "",
      HAVE_BLOSC ? ", blosc" : "");
  return FALSE;
}

/* An index of more than this many bytes per shard is not read. */
#define MAX_INDEX_BYTES ((gsize) 256 << 20)

/* v3: the sharding_indexed codec, the array's only one. The chunk grid's
 * chunk_shape (in z->chunks) is the shards'; the inner chunks' shape, the
 * codecs they are encoded with and the index's codecs are its
 * configuration. */
static gboolean
parse_sharding (PlanZarrArray * z, JsonObject * codec, GError ** error)
{
  JsonNode *cn = json_object_get_member (codec, "configuration");
  JsonObject *conf = cn && JSON_NODE_HOLDS_OBJECT (cn) ?
      json_node_get_object (cn) : NULL;
  guint64 inner[PLAN_ARRAY_MAX_DIMS];
  JsonNode *n;
  JsonArray *codecs;
  const gchar *where;
  gboolean have_bytes = FALSE, index_bytes = FALSE;
  gint n_inner = 0, d;
  guint i;

  if (conf == NULL)
    goto bad_conf;
  if (!parse_axes (conf, "chunk_shape", inner, &n_inner, error)) {
    g_prefix_error (error, "its sharding_indexed codec: ");
    return FALSE;
  }
  if (n_inner != z->ndim)
    goto bad_shape;
  z->sharded = TRUE;
  z->n_inner = 1;
  for (d = 0; d < z->ndim; d++) {
    if (inner[d] == 0 || z->chunks[d] == 0 || z->chunks[d] % inner[d] != 0)
      goto bad_shape;
    z->shard[d] = z->chunks[d];
    z->chunks[d] = inner[d];
    z->per_shard[d] = z->shard[d] / inner[d];
    if (z->per_shard[d] > MAX_INDEX_BYTES / 16 / z->n_inner)
      goto big_index;
    z->n_inner *= z->per_shard[d];
  }
  if (!size_chunks (z))
    goto bad_shape;

  where = member_string (conf, "index_location", "end");
  if (g_strcmp0 (where, "end") != 0 && g_strcmp0 (where, "start") != 0)
    goto bad_location;
  z->index_at_start = g_strcmp0 (where, "start") == 0;

  /* The inner chunks' codecs: those of an array that is not sharded. */
  n = json_object_get_member (conf, "codecs");
  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    goto bad_codecs;
  codecs = json_node_get_array (n);
  for (i = 0; i < json_array_get_length (codecs); i++) {
    JsonNode *c = json_array_get_element (codecs, i);

    if (!JSON_NODE_HOLDS_OBJECT (c))
      goto bad_codecs;
    if (g_strcmp0 (member_string (json_node_get_object (c), "name", NULL),
            "sharding_indexed") == 0)
      goto nested;
    if (!parse_v3_codec (z, json_node_get_object (c), &have_bytes, error)) {
      g_prefix_error (error, "its shards' inner chunks: ");
      return FALSE;
    }
  }
  if (!have_bytes)
    goto bad_codecs;

  /* The index's: bytes, then a crc32c or not. */
  n = json_object_get_member (conf, "index_codecs");
  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    goto bad_index_codecs;
  codecs = json_node_get_array (n);
  for (i = 0; i < json_array_get_length (codecs); i++) {
    JsonNode *c = json_array_get_element (codecs, i);
    JsonObject *co = JSON_NODE_HOLDS_OBJECT (c) ? json_node_get_object (c) :
        NULL;
    const gchar *name = co ? member_string (co, "name", NULL) : NULL;

    if (g_strcmp0 (name, "bytes") == 0 && !index_bytes) {
      JsonNode *bn = json_object_get_member (co, "configuration");
      const gchar *endian = bn && JSON_NODE_HOLDS_OBJECT (bn) ?
          member_string (json_node_get_object (bn), "endian", NULL) : NULL;

      /* The index's entries are uint64: Zarr v3 requires their endian. */
      if (bn == NULL || JSON_NODE_HOLDS_NULL (bn) || (JSON_NODE_HOLDS_OBJECT
              (bn) && member_is_unset (json_node_get_object (bn), "endian")))
        goto index_no_endian;
      if (g_strcmp0 (endian, "little") != 0
          && g_strcmp0 (endian, "big") != 0)
        goto bad_index_codec;
      z->index_swap = g_strcmp0 (endian, "big") == 0;
      index_bytes = TRUE;
    } else if (g_strcmp0 (name, "crc32c") == 0 && index_bytes
        && !z->index_crc32c) {
      z->index_crc32c = TRUE;
    } else {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its shards' "
          "index codec '%s' is not supported; bytes, then crc32c or "
          "nothing, are read", name ? name : "(no name)");
      return FALSE;
    }
  }
  if (!index_bytes)
    goto bad_index_codecs;
  z->index_bytes = z->n_inner * 16 + (z->index_crc32c ? 4 : 0);
  return TRUE;

bad_conf:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its sharding_indexed "
      "codec has no configuration");
  return FALSE;
bad_shape:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its sharding_indexed "
      "codec's inner chunk_shape does not fit its shards (one positive "
      "length per axis, each dividing the shard's, at most 2 GiB an inner "
      "chunk)");
  return FALSE;
big_index:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its shards hold "
      "more than %" G_GSIZE_FORMAT " inner chunks each; an index of more "
      "than 256 MiB per shard is not read", MAX_INDEX_BYTES / 16);
  return FALSE;
bad_location:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its sharding_indexed "
      "codec's index_location '%s' is neither 'start' nor 'end'",
      where ? where : "(not a string)");
  return FALSE;
bad_codecs:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its sharding_indexed "
      "codec's codecs are not a list with the bytes codec in it");
  return FALSE;
nested:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its shards' "
      "inner chunks are sharded again (a sharding_indexed codec inside "
      "one); nested sharding is not read");
  return FALSE;
bad_index_codec:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its shards' index "
      "codec 'bytes' has a configuration that is not valid");
  return FALSE;
index_no_endian:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its shards' index "
      "codec 'bytes' has no endian; Zarr v3 requires one for the index's "
      "uint64 entries, and zarr-python 3 refuses it too");
  return FALSE;
bad_index_codecs:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its sharding_indexed "
      "codec's index_codecs are not a list with the bytes codec in it");
  return FALSE;
}

/* Whether the v3 array metadata @o has only fields gst-plan knows, or
 * that say "must_understand": false, and no storage transformer: Zarr v3
 * asks readers to refuse the others, whose meaning they cannot apply. */
static gboolean
check_v3_fields (JsonObject * o, GError ** error)
{
  static const gchar *const known[] = {
    "zarr_format", "node_type", "shape", "data_type", "chunk_grid",
    "chunk_key_encoding", "fill_value", "codecs", "attributes",
    "storage_transformers", "dimension_names",
  };
  GList *names = json_object_get_members (o), *l;
  JsonNode *n = json_object_get_member (o, "storage_transformers");
  gboolean ok = TRUE;

  if (n && !JSON_NODE_HOLDS_NULL (n) && !(JSON_NODE_HOLDS_ARRAY (n)
          && json_array_get_length (json_node_get_array (n)) == 0)) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its "
        "storage_transformers are not empty; storage transformers are not "
        "read");
    ok = FALSE;
  }
  for (l = names; ok && l; l = l->next) {
    const gchar *name = l->data;
    guint i;

    for (i = 0; i < G_N_ELEMENTS (known); i++)
      if (strcmp (name, known[i]) == 0)
        break;
    if (i < G_N_ELEMENTS (known))
      continue;
    n = json_object_get_member (o, name);
    if (JSON_NODE_HOLDS_OBJECT (n)) {
      JsonNode *must = json_object_get_member (json_node_get_object (n),
          "must_understand");

      if (must && JSON_NODE_HOLDS_VALUE (must)
          && json_node_get_value_type (must) == G_TYPE_BOOLEAN
          && !json_node_get_boolean (must))
        continue;
    }
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its zarr.json "
        "has a field '%s' that gst-plan does not know (Zarr v3 readers "
        "refuse fields they do not know, unless they say \"must_understand\": "
        "false)", name);
    ok = FALSE;
  }
  g_list_free (names);
  return ok;
}

/* A Zarr v3 zarr.json of an array. */
static gboolean
parse_zarr_json (PlanZarrArray * z, const gchar * text, GError ** error)
{
  static const struct
  {
    const gchar *name;
    PlanDType dtype;
  } types[] = {
    {"bool", PLAN_DTYPE_BOOL}, {"int8", PLAN_DTYPE_INT8},
    {"uint8", PLAN_DTYPE_UINT8}, {"int16", PLAN_DTYPE_INT16},
    {"uint16", PLAN_DTYPE_UINT16}, {"int32", PLAN_DTYPE_INT32},
    {"uint32", PLAN_DTYPE_UINT32}, {"int64", PLAN_DTYPE_INT64},
    {"uint64", PLAN_DTYPE_UINT64}, {"float16", PLAN_DTYPE_FLOAT16},
    {"float32", PLAN_DTYPE_FLOAT32}, {"float64", PLAN_DTYPE_FLOAT64},
    {"complex64", PLAN_DTYPE_COMPLEX64}, {"complex128", PLAN_DTYPE_COMPLEX128},
  };
  JsonParser *parser = json_parser_new ();
  JsonObject *o, *grid = NULL, *gconf = NULL, *keys = NULL, *kconf = NULL;
  JsonNode *n;
  JsonArray *codecs;
  const gchar *dtype, *kname, *sep;
  gboolean ok = FALSE, have_bytes = FALSE;
  gint n_chunks = 0;
  guint i;

  z->v3 = TRUE;
  if (!json_parser_load_from_data (parser, text, -1, error))
    goto done;
  o = root_object (parser);
  if (o == NULL)
    goto not_object;
  if (!check_zarr_format (o, 3, "zarr.json", "Zarr v2 (.zarray) and v3 are "
          "read", error))
    goto done;
  if (!check_v3_fields (o, error))
    goto done;

  dtype = member_string (o, "data_type", NULL);
  for (i = 0; i < G_N_ELEMENTS (types); i++)
    if (g_strcmp0 (dtype, types[i].name) == 0)
      break;
  if (i == G_N_ELEMENTS (types))
    goto bad_dtype;
  z->dtype = types[i].dtype;
  z->itemsize = plan_dtype_get_size (z->dtype);

  n = json_object_get_member (o, "chunk_grid");
  if (n && JSON_NODE_HOLDS_OBJECT (n))
    grid = json_node_get_object (n);
  n = grid ? json_object_get_member (grid, "configuration") : NULL;
  if (n && JSON_NODE_HOLDS_OBJECT (n))
    gconf = json_node_get_object (n);
  if (grid == NULL || g_strcmp0 (member_string (grid, "name", NULL),
          "regular") != 0 || gconf == NULL)
    goto bad_grid;
  if (!parse_axes (o, "shape", z->shape, &z->ndim, error)
      || !parse_axes (gconf, "chunk_shape", z->chunks, &n_chunks, error))
    goto done;
  if (n_chunks != z->ndim)
    goto bad_chunks;

  n = json_object_get_member (o, "chunk_key_encoding");
  if (n && JSON_NODE_HOLDS_OBJECT (n))
    keys = json_node_get_object (n);
  n = keys ? json_object_get_member (keys, "configuration") : NULL;
  if (n && JSON_NODE_HOLDS_OBJECT (n))
    kconf = json_node_get_object (n);
  else if (n && !JSON_NODE_HOLDS_NULL (n))
    goto bad_keys;              /* a configuration that is not an object */
  kname = keys ? member_string (keys, "name", NULL) : NULL;
  if (g_strcmp0 (kname, "default") != 0 && g_strcmp0 (kname, "v2") != 0)
    goto bad_keys;
  z->key_prefix = g_strcmp0 (kname, "default") == 0;
  /* A separator of another type than a string is not taken for the
   * default: the chunks would all be missing, read as the fill value. */
  sep = kconf ? member_string (kconf, "separator", z->key_prefix ? "/" :
      ".") : z->key_prefix ? "/" : ".";
  if (g_strcmp0 (sep, ".") != 0 && g_strcmp0 (sep, "/") != 0)
    goto bad_keys;
  z->separator = sep[0];

  n = json_object_get_member (o, "codecs");
  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    goto bad_codecs;
  codecs = json_node_get_array (n);
  z->codec = CODEC_NONE;
  perm_init (z, FALSE);
  for (i = 0; i < json_array_get_length (codecs); i++) {
    JsonNode *c = json_array_get_element (codecs, i);

    if (!JSON_NODE_HOLDS_OBJECT (c))
      goto bad_codecs;
    if (g_strcmp0 (member_string (json_node_get_object (c), "name", NULL),
            "sharding_indexed") == 0 && !have_bytes) {
      /* The shards' codecs are its own, the chunk grid's are shards. */
      if (json_array_get_length (codecs) != 1)
        goto sharding_not_alone;
      if (!parse_sharding (z, json_node_get_object (c), error))
        goto done;
      have_bytes = TRUE;
      continue;
    }
    if (!parse_v3_codec (z, json_node_get_object (c), &have_bytes, error))
      goto done;
  }
  if (!have_bytes)
    goto bad_codecs;
  if (!z->sharded && !size_chunks (z))
    goto bad_chunks;
  if (json_object_get_member (o, "fill_value") == NULL)
    goto no_fill;
  ok = parse_fill (z, o, text, error);
  goto done;

not_object:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its zarr.json is not "
      "a JSON object");
  goto done;
bad_dtype:
  {
    gchar *shown = show_dtype (o, "data_type");

    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its data_type "
        "%s is not supported; only bool, integers, float16, float32, "
        "float64, complex64 and complex128 are read", shown);
    g_free (shown);
  }
  goto done;
bad_grid:
  {
    const gchar *name = grid ? member_string (grid, "name", NULL) : NULL;

    g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its chunk_grid "
        "%s%s%s is not a regular grid with a chunk_shape; only regular grids "
        "are read", name ? "'" : "(without a name)", name ? name : "",
        name ? "'" : "");
  }
  goto done;
bad_chunks:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its chunks do not fit "
      "its shape (one positive length per axis, at most 2 GiB a chunk)");
  goto done;
bad_keys:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its "
      "chunk_key_encoding is not 'default' or 'v2' with the separator '/' "
      "or '.'");
  goto done;
bad_codecs:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its codecs are not a "
      "list with the bytes codec in it");
  goto done;
no_fill:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its zarr.json has no "
      "fill_value");
  goto done;
sharding_not_alone:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_UNSUPPORTED, "its codecs have "
      "sharding_indexed beside other codecs; a sharded array is read when "
      "sharding_indexed is its only codec (the inner chunks' codecs are in "
      "its configuration), as zarr-python 3 writes it");
  goto done;
done:
  g_object_unref (parser);
  return ok;
}

void
_plan_zarr_array_close (PlanZarrArray * z)
{
  if (z == NULL)
    return;
  g_slist_free_full (z->scratch, (GDestroyNotify) scratch_free);
  g_mutex_clear (&z->scratch_lock);
  g_free (z->dir);
  g_free (z->path);
  g_free (z);
}

/**
 * _plan_zarr_array_open:
 * @store: a directory: a Zarr v2 array, or a group holding arrays
 * @path: (nullable): the array's path in the group, %NULL for the store
 *   itself or the group's only array
 * @info: (out): the array's dtype and shape
 * @align_rows: (out): the rows of a row of chunks
 * @error: return location for a #GError (without the store's name)
 *
 * Returns: (transfer full): the open array, or %NULL.
 */
PlanZarrArray *
_plan_zarr_array_open (const gchar * store, const gchar * path,
    PlanArrayInfo * info, guint64 * align_rows, GError ** error)
{
  PlanZarrArray *z = g_new0 (PlanZarrArray, 1);
  gint64 shape[PLAN_ARRAY_MAX_DIMS];
  gchar *zarray = NULL, *text = NULL;
  gint i;

  g_mutex_init (&z->scratch_lock);

  z->dir = choose_array (store, path, &z->path, error);
  if (z->dir == NULL)
    goto failed;
  zarray = g_build_filename (z->dir, ".zarray", NULL);
  if (!g_file_test (zarray, G_FILE_TEST_EXISTS)) {
    g_free (zarray);
    zarray = g_build_filename (z->dir, "zarr.json", NULL);
    text = read_metadata (zarray, error);
    if (text == NULL || !parse_zarr_json (z, text, error))
      goto in_array;
  } else {
    text = read_metadata (zarray, error);
    if (text == NULL || !parse_zarray (z, text, error))
      goto in_array;
  }
  for (i = 0; i < z->ndim; i++) {
    shape[i] = z->shape[i];
    /* Not sharded, each chunk is a "shard" of one. */
    if (!z->sharded)
      z->per_shard[i] = 1;
  }
  if (!plan_array_info_set (info, z->dtype, z->ndim, shape, error))
    goto in_array;
  /* Buffers of whole chunk rows, unless that is more than 256 MiB. */
  *align_rows = z->ndim > 0 && plan_array_info_get_row_size (info) > 0
      && z->chunks[0] <= ((guint64) 256 << 20) /
      plan_array_info_get_row_size (info) ? z->chunks[0] : 1;
  g_free (zarray);
  g_free (text);
  return z;

in_array:
  g_prefix_error (error, "its Zarr array '%s': ", z->path);
failed:
  g_free (zarray);
  g_free (text);
  _plan_zarr_array_close (z);
  return NULL;
}

const gchar *
_plan_zarr_array_get_path (PlanZarrArray * z)
{
  return z->path;
}

/* Reads the file of a chunk whole into sc->raw; FALSE without an error
 * when there is none (the fill value). */
static gboolean
read_chunk_file (PlanZarrArray * z, Scratch * sc, const gchar * file,
    guint8 * in_place, gsize * size, gboolean * missing, gboolean * placed,
    GError ** error)
{
  struct stat st;
  gint fd;
  gsize done = 0;
  guint8 *to;

  *missing = *placed = FALSE;
  fd = open_regular (file, &st, error);
  if (fd < 0 && errno == ENOENT) {
    g_clear_error (error);
    *missing = TRUE;
    return TRUE;
  }
  if (fd < 0) {
    g_prefix_error (error, "its chunk ");
    return FALSE;
  }
  if ((guint64) st.st_size > z->chunk_bytes + (16 << 20) + z->chunk_bytes / 2)
    goto too_large;
  /* A chunk stored as it is in memory goes where it is wanted. */
  if (in_place && z->codec == CODEC_NONE && !z->crc32c
      && (gsize) st.st_size == z->chunk_bytes) {
    to = in_place;
    *placed = TRUE;
  } else {
    if (sc->raw_size < (gsize) st.st_size) {
      g_free (sc->raw);
      sc->raw = g_malloc (MAX (st.st_size, 1));
      sc->raw_size = st.st_size;
    }
    to = sc->raw;
  }
  if (!read_all (fd, to, st.st_size, &done))
    goto failed;
  close (fd);
  *size = done;
  return TRUE;

failed:
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
      "cannot read its chunk '%s': %s", file, errno ? g_strerror (errno) :
      "it shrank while it was read");
  close (fd);
  return FALSE;
too_large:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its chunk '%s' has %"
      G_GUINT64_FORMAT " bytes, far more than a chunk of %" G_GSIZE_FORMAT
      " bytes can take; it is corrupt", file, (guint64) st.st_size,
      z->chunk_bytes);
  close (fd);
  return FALSE;
}

static gboolean
inflate_chunk (PlanZarrArray * z, Scratch * sc, gsize size, gboolean gzip,
    guint8 * to)
{
  z_stream zs = { 0 };
  gboolean ok;

#if HAVE_LIBDEFLATE
  {
    size_t got = 0;

    if (sc->inflater == NULL)
      sc->inflater = libdeflate_alloc_decompressor ();
    if (sc->inflater && (gzip ? libdeflate_gzip_decompress :
            libdeflate_zlib_decompress) (sc->inflater, sc->raw, size, to,
            z->chunk_bytes, &got) == LIBDEFLATE_SUCCESS
        && got == z->chunk_bytes)
      return TRUE;
    /* Not decoded: zlib decides. */
  }
#endif
  if (inflateInit2 (&zs, gzip ? 16 + MAX_WBITS : MAX_WBITS) != Z_OK)
    return FALSE;
  zs.next_in = sc->raw;
  zs.avail_in = size;
  zs.next_out = to;
  zs.avail_out = z->chunk_bytes;
  ok = inflate (&zs, Z_FINISH) == Z_STREAM_END && zs.avail_out == 0;
  inflateEnd (&zs);
  return ok;
}

/* CRC-32C (Castagnoli, reflected), as v3's crc32c codec appends it. */
static guint32
crc32c (const guint8 * data, gsize size)
{
  static guint32 table[256];
  static gsize ready = 0;
  guint32 crc = 0xffffffff;
  gsize i;

  if (g_once_init_enter (&ready)) {
    guint32 n, k, c;

    for (n = 0; n < 256; n++) {
      c = n;
      for (k = 0; k < 8; k++)
        c = c & 1 ? 0x82f63b78 ^ (c >> 1) : c >> 1;
      table[n] = c;
    }
    g_once_init_leave (&ready, 1);
  }
  for (i = 0; i < size; i++)
    crc = table[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
  return crc ^ 0xffffffff;
}

/* Decodes sc->raw into @to, which gets exactly chunk_bytes; @what names
 * the chunk in an error ("chunk 'a.zarr/c/0'"). */
static gboolean
decode_chunk (PlanZarrArray * z, Scratch * sc, const gchar * what,
    gsize size, guint8 * to, GError ** error)
{
  gboolean ok = FALSE;

  if (z->crc32c) {
    /* The stored checksum, little-endian, byte by byte: it follows the
     * encoded bytes at any address (GST_READ_UINT32_LE would load a
     * misaligned word, which UBSan reports). */
    const guint8 *t = size >= 4 ? sc->raw + size - 4 : NULL;

    if (t == NULL || crc32c (sc->raw, size - 4) != ((guint32) t[0]
            | (guint32) t[1] << 8 | (guint32) t[2] << 16
            | (guint32) t[3] << 24)) {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its %s (%"
          G_GSIZE_FORMAT " bytes) fails its CRC32C checksum; it is corrupt",
          what, size);
      return FALSE;
    }
    size -= 4;
  }

  switch (z->codec) {
    case CODEC_NONE:
      ok = size == z->chunk_bytes;
      if (ok)
        memcpy (to, sc->raw, size);
      break;
    case CODEC_ZLIB:
    case CODEC_GZIP:
      ok = inflate_chunk (z, sc, size, z->codec == CODEC_GZIP, to);
      break;
#if HAVE_ZSTD
    case CODEC_ZSTD:{
      gsize n;

      if (sc->zstd == NULL)
        sc->zstd = ZSTD_createDCtx ();
      n = sc->zstd ? ZSTD_decompressDCtx (sc->zstd, to, z->chunk_bytes,
          sc->raw, size) : (gsize) - 1;
      ok = sc->zstd && !ZSTD_isError (n) && n == z->chunk_bytes;
      break;
    }
#endif
#if HAVE_BLOSC
    case CODEC_BLOSC:{
      size_t nbytes = 0;
      /* Opened when the array was (parse_codec (), parse_v3_codec ()). */
      const PlanBlosc *b = _plan_zarr_blosc (NULL);

      ok = b->cbuffer_validate (sc->raw, size, &nbytes) == 0
          && nbytes == z->chunk_bytes
          && b->decompress_ctx (sc->raw, to, z->chunk_bytes, 1)
          == (gint) z->chunk_bytes;
      break;
    }
#endif
    default:
      break;
  }
  if (!ok)
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its %s (%"
        G_GSIZE_FORMAT " bytes) does not decode to %" G_GSIZE_FORMAT
        " bytes; it is corrupt", what, size, z->chunk_bytes);
  return ok;
}

/* The file of chunk (or shard) @idx. */
static gchar *
chunk_file (PlanZarrArray * z, const guint64 * idx)
{
  GString *key = g_string_new (NULL);
  gchar *file;
  gint d;

  if (z->key_prefix)
    g_string_append_c (key, 'c');
  for (d = 0; d < z->ndim; d++)
    g_string_append_printf (key, "%s%" G_GUINT64_FORMAT, d || z->key_prefix ?
        (z->separator == '/' ? "/" : ".") : "", idx[d]);
  if (z->ndim == 0 && !z->key_prefix)
    g_string_append (key, "0");
  file = g_build_filename (z->dir, key->str, NULL);
  g_string_free (key, TRUE);
  return file;
}

static void
fill_chunk (PlanZarrArray * z, guint8 * to)
{
  gsize i;

  for (i = 0; i < z->chunk_bytes; i += z->itemsize)
    memcpy (to + i, z->fill, z->itemsize);
}

/* Reads @size bytes of @fd at @offset into @dest; FALSE with errno (0
 * when the file ended first). */
static gboolean
pread_all (gint fd, guint8 * dest, gsize size, guint64 offset)
{
  gsize done = 0;

  while (done < size) {
    gssize n = pread (fd, dest + done, size - done, offset + done);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return FALSE;
    if (n == 0) {
      errno = 0;
      return FALSE;
    }
    done += n;
  }
  return TRUE;
}

/* Makes shard @s the one open in this read: its file opened (or found
 * missing), its index read, checked and in the machine's order. */
static gboolean
open_shard (PlanZarrArray * z, Scratch * sc, const guint64 * s,
    GError ** error)
{
  struct stat st;
  guint64 at;
  gsize i;
  gint fd;

  if (sc->shard_ready && memcmp (sc->shard_idx, s,
          z->ndim * sizeof (guint64)) == 0)
    return TRUE;
  shard_close (sc);
  sc->shard_file = chunk_file (z, s);
  fd = open_regular (sc->shard_file, &st, error);
  if (fd < 0 && errno == ENOENT) {
    /* No shard: the fill value everywhere in it. */
    g_clear_error (error);
  } else if (fd < 0) {
    g_prefix_error (error, "its shard ");
    return FALSE;
  } else {
    sc->shard_size = st.st_size;
    if (sc->shard_size < z->index_bytes)
      goto truncated;
    if (sc->index == NULL)
      sc->index = g_malloc (z->index_bytes);
    at = z->index_at_start ? 0 : sc->shard_size - z->index_bytes;
    if (!pread_all (fd, sc->index, z->index_bytes, at))
      goto failed;
    if (z->index_crc32c) {
      const guint8 *t = sc->index + z->n_inner * 16;

      if (crc32c (sc->index, z->n_inner * 16) != ((guint32) t[0]
              | (guint32) t[1] << 8 | (guint32) t[2] << 16
              | (guint32) t[3] << 24))
        goto bad_crc;
    }
    for (i = 0; i < z->n_inner * 2; i++) {
      guint64 v;

      memcpy (&v, sc->index + i * 8, 8);
      v = z->index_swap ? GUINT64_FROM_BE (v) : GUINT64_FROM_LE (v);
      memcpy (sc->index + i * 8, &v, 8);
    }
  }
  sc->shard_fd = fd;
  memcpy (sc->shard_idx, s, z->ndim * sizeof (guint64));
  sc->shard_ready = TRUE;
  return TRUE;

truncated:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its shard '%s' has %"
      G_GUINT64_FORMAT " bytes, fewer than its index of %" G_GSIZE_FORMAT
      " bytes; it is truncated", sc->shard_file, sc->shard_size,
      z->index_bytes);
  goto out;
failed:
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
      "cannot read the index of its shard '%s': %s", sc->shard_file,
      errno ? g_strerror (errno) : "it shrank while it was read");
  goto out;
bad_crc:
  g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its shard '%s' (%"
      G_GUINT64_FORMAT " bytes): the index at its %s fails its CRC32C "
      "checksum; the shard is corrupt or truncated", sc->shard_file,
      sc->shard_size, z->index_at_start ? "start" : "end");
  goto out;
out:
  close (fd);
  return FALSE;
}

/* Loads inner chunk @idx of a sharded array into @to, as load_chunk ()
 * does a chunk: read at its place in its shard, decoded, or the fill
 * value. */
static gboolean
load_inner_chunk (PlanZarrArray * z, Scratch * sc, const guint64 * idx,
    guint8 * to, GError ** error)
{
  guint64 s[PLAN_ARRAY_MAX_DIMS], offset, nbytes;
  gsize e = 0;
  guint8 *dest;
  GString *what;
  gboolean ok;
  gint d;

  for (d = 0; d < z->ndim; d++) {
    s[d] = idx[d] / z->per_shard[d];
    e = e * z->per_shard[d] + idx[d] % z->per_shard[d];
  }
  if (!open_shard (z, sc, s, error))
    return FALSE;
  if (sc->shard_fd < 0) {
    fill_chunk (z, to);
    return TRUE;
  }
  memcpy (&offset, sc->index + e * 16, 8);
  memcpy (&nbytes, sc->index + e * 16 + 8, 8);
  if (offset == G_MAXUINT64 && nbytes == G_MAXUINT64) {
    /* Never written: the fill value. */
    fill_chunk (z, to);
    return TRUE;
  }

  what = g_string_new ("inner chunk (");
  for (d = 0; d < z->ndim; d++)
    g_string_append_printf (what, "%s%" G_GUINT64_FORMAT, d ? ", " : "",
        idx[d] % z->per_shard[d]);
  g_string_append_printf (what, ") of the shard '%s'", sc->shard_file);
  if (offset > sc->shard_size || nbytes > sc->shard_size - offset) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its %s: its index "
        "puts its %" G_GUINT64_FORMAT " bytes at offset %" G_GUINT64_FORMAT
        ", outside the shard's %" G_GUINT64_FORMAT " bytes; the shard is "
        "corrupt or truncated", what->str, nbytes, offset, sc->shard_size);
    ok = FALSE;
    goto done;
  }
  if (nbytes > z->chunk_bytes + (16 << 20) + z->chunk_bytes / 2) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_FORMAT, "its %s has %"
        G_GUINT64_FORMAT " bytes, far more than a chunk of %" G_GSIZE_FORMAT
        " bytes can take; it is corrupt", what->str, nbytes, z->chunk_bytes);
    ok = FALSE;
    goto done;
  }
  /* An inner chunk stored as it is in memory goes where it is wanted. */
  if (z->codec == CODEC_NONE && !z->crc32c && nbytes == z->chunk_bytes) {
    dest = to;
  } else {
    if (sc->raw_size < nbytes) {
      g_free (sc->raw);
      sc->raw = g_malloc (MAX (nbytes, 1));
      sc->raw_size = nbytes;
    }
    dest = sc->raw;
  }
  if (!pread_all (sc->shard_fd, dest, nbytes, offset)) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "cannot read its %s: %s", what->str, errno ? g_strerror (errno) :
        "the shard shrank while it was read");
    ok = FALSE;
    goto done;
  }
  ok = dest == to || decode_chunk (z, sc, what->str, nbytes, to, error);
  if (ok && z->swap)
    plan_dtype_swap_bytes (z->dtype, to, z->chunk_bytes);
done:
  g_string_free (what, TRUE);
  return ok;
}

/* Loads chunk @idx into @to (sc->chunk, or where the chunk goes in the
 * reader's memory): decoded, or the fill value. */
static gboolean
load_chunk (PlanZarrArray * z, Scratch * sc, const guint64 * idx,
    guint8 * to, GError ** error)
{
  gchar *file, *what;
  gsize size = 0;
  gboolean missing, placed, ok;

  if (z->sharded)
    return load_inner_chunk (z, sc, idx, to, error);
  file = chunk_file (z, idx);
  ok = read_chunk_file (z, sc, file, to, &size, &missing, &placed, error);
  if (ok && missing) {
    fill_chunk (z, to);
  } else if (ok) {
    if (!placed) {
      what = g_strdup_printf ("chunk '%s'", file);
      ok = decode_chunk (z, sc, what, size, to, error);
      g_free (what);
    }
    if (ok && z->swap)
      plan_dtype_swap_bytes (z->dtype, to, z->chunk_bytes);
  }
  g_free (file);
  return ok;
}

/* Copies the part of the loaded chunk @idx that lies in rows [@first,
 * @end) into @dest, which holds those rows of the whole array. */
static void
copy_from_chunk (PlanZarrArray * z, Scratch * sc, const guint64 * idx,
    guint64 first,
    guint64 end, guint8 * dest)
{
  guint64 lo[PLAN_ARRAY_MAX_DIMS] = { 0 }, hi[PLAN_ARRAY_MAX_DIMS] = { 0 };
  guint64 pos[PLAN_ARRAY_MAX_DIMS];
  gsize astride[PLAN_ARRAY_MAX_DIMS], cstride[PLAN_ARRAY_MAX_DIMS];
  gint d, last = z->ndim - 1;
  gsize run;

  astride[last] = cstride[last] = z->itemsize;
  for (d = last - 1; d >= 0; d--) {
    astride[d] = astride[d + 1] * z->shape[d + 1];
    cstride[d] = cstride[d + 1] * z->chunks[d + 1];
  }
  if (z->permuted) {
    /* The stored axes, the last fastest, are the array's in perm's order. */
    gsize stride = z->itemsize;

    for (d = last; d >= 0; d--) {
      cstride[z->perm[d]] = stride;
      stride *= z->chunks[z->perm[d]];
    }
  }
  for (d = 0; d < z->ndim; d++) {
    lo[d] = idx[d] * z->chunks[d];
    hi[d] = MIN (lo[d] + z->chunks[d], z->shape[d]);
  }
  lo[0] = MAX (lo[0], first);
  hi[0] = MIN (hi[0], end);
  if (lo[0] >= hi[0])
    return;
  run = (hi[last] - lo[last]) * z->itemsize;
  memcpy (pos, lo, sizeof (lo));
  /* Every run along the last axis, the other axes counted like digits. */
  for (;;) {
    gsize a = (pos[0] - first) * astride[0], c = 0;

    for (d = 1; d < z->ndim; d++)
      a += pos[d] * astride[d];
    for (d = 0; d < z->ndim; d++)
      c += (pos[d] - idx[d] * z->chunks[d]) * cstride[d];
    if (!z->permuted) {
      memcpy (dest + a, sc->chunk + c, run);
    } else {
      gsize k;

      for (k = 0; k < run; k += z->itemsize, c += cstride[last])
        memcpy (dest + a + k, sc->chunk + c, z->itemsize);
    }
    for (d = last - 1; d >= 0; d--) {
      if (++pos[d] < hi[d])
        break;
      pos[d] = lo[d];
    }
    if (d < 0)
      break;
  }
}

/**
 * _plan_zarr_array_read_rows:
 * @z: an open array
 * @first: its first row to read
 * @n_rows: the number of rows
 * @dest: room for them, C order
 * @error: return location for a #GError (without the store's name)
 *
 * Reads whole rows: every chunk they touch is read and decoded once, in
 * scratch memory of this call's own; of a sharded array, shard by shard,
 * each shard's index read once. Any thread, several at once.
 */
gboolean
_plan_zarr_array_read_rows (PlanZarrArray * z, guint64 first,
    guint64 n_rows, guint8 * dest, GError ** error)
{
  guint64 idx[PLAN_ARRAY_MAX_DIMS] = { 0 }, nchunks[PLAN_ARRAY_MAX_DIMS];
  guint64 s[PLAN_ARRAY_MAX_DIMS] = { 0 }, nshards[PLAN_ARRAY_MAX_DIMS];
  guint64 lo[PLAN_ARRAY_MAX_DIMS], hi[PLAN_ARRAY_MAX_DIMS];
  guint64 end = first + n_rows;
  Scratch *sc = NULL;
  gboolean ok = TRUE, whole_rows = TRUE;
  gint d;

  if (n_rows == 0)
    return TRUE;
  for (d = 0; d < z->ndim; d++) {
    nchunks[d] = (z->shape[d] + z->chunks[d] - 1) / z->chunks[d];
    if (nchunks[d] == 0)
      return TRUE;
    /* Chunks of whole rows lie in the rows as they are in the chunk
     * (in C order). */
    if ((d > 0 && z->chunks[d] != z->shape[d]) || z->permuted)
      whole_rows = FALSE;
    nshards[d] = (nchunks[d] + z->per_shard[d] - 1) / z->per_shard[d];
  }
  g_mutex_lock (&z->scratch_lock);
  if (z->scratch) {
    sc = z->scratch->data;
    z->scratch = g_slist_delete_link (z->scratch, z->scratch);
  }
  g_mutex_unlock (&z->scratch_lock);
  if (sc == NULL) {
    sc = g_new0 (Scratch, 1);
    sc->chunk = g_malloc (z->chunk_bytes);
    sc->shard_fd = -1;
  }
  if (z->ndim == 0) {
    ok = load_chunk (z, sc, idx, sc->chunk, error);
    if (ok)
      memcpy (dest, sc->chunk, z->itemsize);
    goto done;
  }
  /* Shard by shard (of a sharded array: each shard's index is read
   * once), the shards of the rows' first axis slowest; in each, every
   * inner chunk that the rows touch. */
  for (s[0] = first / z->chunks[0] / z->per_shard[0];
      ok && s[0] * z->per_shard[0] * z->chunks[0] < end; s[0]++) {
    for (d = 1; d < z->ndim; d++)
      s[d] = 0;
    for (;;) {
      for (d = 0; d < z->ndim; d++) {
        lo[d] = s[d] * z->per_shard[d];
        hi[d] = MIN (lo[d] + z->per_shard[d], nchunks[d]);
      }
      lo[0] = MAX (lo[0], first / z->chunks[0]);
      hi[0] = MIN (hi[0], (end + z->chunks[0] - 1) / z->chunks[0]);
      memcpy (idx, lo, sizeof (lo));
      while (ok && idx[0] < hi[0]) {
        guint64 row = idx[0] * z->chunks[0];

        /* A chunk of whole rows all wanted is decoded where its rows
         * go. */
        if (whole_rows && row >= first && row + z->chunks[0] <= end) {
          ok = load_chunk (z, sc, idx, dest + (row - first) *
              z->chunk_bytes / z->chunks[0], error);
        } else {
          ok = load_chunk (z, sc, idx, sc->chunk, error);
          if (ok)
            copy_from_chunk (z, sc, idx, first, end, dest);
        }
        for (d = z->ndim - 1; d >= 0; d--) {
          if (++idx[d] < hi[d] || d == 0)
            break;
          idx[d] = lo[d];
        }
      }
      if (!ok)
        break;
      for (d = z->ndim - 1; d >= 1; d--) {
        if (++s[d] < nshards[d])
          break;
        s[d] = 0;
      }
      if (d < 1)
        break;
    }
  }
done:
  shard_close (sc);
  g_mutex_lock (&z->scratch_lock);
  z->scratch = g_slist_prepend (z->scratch, sc);
  g_mutex_unlock (&z->scratch_lock);
  if (!ok)
    g_prefix_error (error, "its Zarr array '%s': ", z->path);
  return ok;
}
