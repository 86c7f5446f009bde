/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Lexer and recursive-descent parser of the expression language. The
 * grammar and the precedence table are in docs/expressions.md. The parser
 * never trusts its input: every path either builds a node or sets an error
 * naming the column, and nesting is bounded so no input can exhaust the
 * stack. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "expr-private.h"
#include <libplan/planerror.h>

#include <stdarg.h>
#include <string.h>
#include <math.h>

/* Up to MAX_NESTING levels (parentheses, calls, operators) may nest inside
 * the expression, which is itself the first level. */
#define MAX_NESTING 200
#define MAX_DEPTH (MAX_NESTING + 1)
#define MAX_SOURCE_LEN (1 << 20)

typedef enum
{
  TOK_END,
  TOK_INT,
  TOK_FLOAT,
  TOK_IMAG,
  TOK_NAME,
  TOK_OP,
  TOK_LPAREN,
  TOK_RPAREN,
  TOK_COMMA,
  TOK_QUESTION,
  TOK_COLON,
} TokKind;

typedef struct
{
  TokKind kind;
  guint pos;
  guint len;
  ExprOp op;                    /* TOK_OP, and the keywords and/or/not */
  guint prefix;                 /* TOK_NAME: bytes of a leading "np." or
                                 * "numpy.", which the name does not
                                 * include */
  ExprValue value;              /* TOK_INT (big), TOK_FLOAT (f64),
                                 * TOK_IMAG (c128) */
} Token;

typedef struct
{
  ExprArena *arena;
  const gchar *src;
  guint src_len;
  Token tok;
  guint depth;
  GError **error;
  gboolean failed;
} Parser;

void
_plan_expr_arena_init (ExprArena * arena, const gchar * source)
{
  memset (arena, 0, sizeof (*arena));
  arena->source = source;
  arena->nodes = g_ptr_array_new_with_free_func (g_free);
  arena->strings = g_string_chunk_new (64);
}

void
_plan_expr_arena_clear (ExprArena * arena)
{
  g_clear_pointer (&arena->nodes, g_ptr_array_unref);
  g_clear_pointer (&arena->strings, g_string_chunk_free);
}

ExprNode *
_plan_expr_node_new (ExprArena * arena, ExprNodeKind kind, guint pos,
    guint len)
{
  ExprNode *node = g_new0 (ExprNode, 1);

  node->kind = kind;
  node->pos = pos;
  node->len = len;
  node->start = pos;
  node->end = pos + len;
  node->name_index = G_MAXUINT;
  g_ptr_array_add (arena->nodes, node);
  return node;
}

/* The line of @source holding @pos, the 1-based line and column, and a
 * caret line whose prefix copies the tabs of the source line so the caret
 * sits under the right character whatever the tab width. */
static void
append_caret (GString * msg, const gchar * source, guint pos)
{
  guint len = strlen (source);
  guint line_start = 0, line_end, i;

  if (pos > len)
    pos = len;
  for (i = 0; i < pos; i++)
    if (source[i] == '\n')
      line_start = i + 1;
  for (line_end = pos; line_end < len && source[line_end] != '\n'; line_end++);

  g_string_append (msg, "\n  ");
  for (i = line_start; i < line_end; i++) {
    guchar ch = source[i];
    /* Control bytes would garble the message; show them as '?'. */
    g_string_append_c (msg, (ch < 0x20 && ch != '\t') || ch == 0x7f ? '?' : ch);
  }
  g_string_append (msg, "\n  ");
  for (i = line_start; i < pos; i++) {
    guchar ch = source[i];
    if (ch == '\t')
      g_string_append_c (msg, '\t');
    else if ((ch & 0xc0) != 0x80)       /* one column per UTF-8 character */
      g_string_append_c (msg, ' ');
  }
  g_string_append_c (msg, '^');
}

static void
position_of (const gchar * source, guint pos, guint * line, guint * column)
{
  guint i, len = strlen (source);

  *line = 1;
  *column = 1;
  for (i = 0; i < pos && i < len; i++) {
    if (source[i] == '\n') {
      (*line)++;
      *column = 1;
    } else if (((guchar) source[i] & 0xc0) != 0x80) {
      (*column)++;
    }
  }
}

/* Where @pos is in @source, as an error names a place: "column C", or
 * "line L, column C" in a source of several lines. */
static gchar *
place_of (const gchar * source, guint pos)
{
  guint line, column;

  position_of (source, pos, &line, &column);
  if (strchr (source, '\n'))
    return g_strdup_printf ("line %u, column %u", line, column);
  return g_strdup_printf ("column %u", column);
}

void
_plan_expr_set_error (GError ** error, gint code, const gchar * source,
    guint pos, const gchar * format, ...)
{
  GString *msg;
  va_list args;
  gchar *text, *place;

  if (error == NULL)
    return;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);

  place = place_of (source, pos);
  msg = g_string_new (NULL);
  g_string_append_printf (msg, "%s: %s", place, text);
  append_caret (msg, source, pos);
  g_free (place);
  g_free (text);

  g_set_error_literal (error, PLAN_ERROR, code, msg->str);
  g_string_free (msg, TRUE);
}

static void
parse_error (Parser * p, guint pos, const gchar * format, ...)
    G_GNUC_PRINTF (3, 4);

static void
parse_error (Parser * p, guint pos, const gchar * format, ...)
{
  va_list args;
  gchar *text;

  if (p->failed)
    return;
  p->failed = TRUE;
  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  _plan_expr_set_error (p->error, PLAN_ERROR_SYNTAX, p->src, pos, "%s", text);
  g_free (text);
}

/* The text of the current token, for messages. */
static gchar *
tok_text (Parser * p)
{
  if (p->tok.kind == TOK_END)
    return g_strdup ("the end of the expression");
  return g_strdup_printf ("'%.*s'", (gint) MIN (p->tok.len, 40),
      p->src + p->tok.pos);
}

typedef struct
{
  const gchar *text;
  ExprOp op;
} OpSpelling;

/* Longest spellings first so that "**" wins over "*". */
static const OpSpelling op_spellings[] = {
  {"**", EXPR_OP_POW}, {"//", EXPR_OP_FLOORDIV}, {"<<", EXPR_OP_SHL},
  {">>", EXPR_OP_SHR}, {"<=", EXPR_OP_LE}, {">=", EXPR_OP_GE},
  {"==", EXPR_OP_EQ}, {"!=", EXPR_OP_NE}, {"&&", EXPR_OP_LAND},
  {"||", EXPR_OP_LOR}, {"+", EXPR_OP_ADD}, {"-", EXPR_OP_SUB},
  {"*", EXPR_OP_MUL}, {"/", EXPR_OP_DIV}, {"%", EXPR_OP_MOD},
  {"<", EXPR_OP_LT}, {">", EXPR_OP_GT}, {"&", EXPR_OP_BAND},
  {"^", EXPR_OP_BXOR}, {"|", EXPR_OP_BOR}, {"!", EXPR_OP_LNOT},
  {"~", EXPR_OP_BNOT},
};

static gboolean
lex_number (Parser * p, guint i)
{
  const gchar *s = p->src;
  guint start = i;
  gboolean is_float = FALSE;

  if (s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    unsigned __int128 v = 0;
    i += 2;
    if (!g_ascii_isxdigit (s[i])) {
      parse_error (p, i, "expected hexadecimal digits after '0x'");
      return FALSE;
    }
    for (; g_ascii_isxdigit (s[i]); i++) {
      v = v * 16 + g_ascii_xdigit_value (s[i]);
      if (v > G_MAXUINT64) {
        parse_error (p, start, "integer literal is larger than 2**64 - 1");
        return FALSE;
      }
    }
    if (g_ascii_isalnum (s[i]) || s[i] == '_' || s[i] == '.') {
      parse_error (p, i, "unexpected '%c' in a hexadecimal literal", s[i]);
      return FALSE;
    }
    p->tok.kind = TOK_INT;
    p->tok.value.big = (__int128) v;
    p->tok.len = i - start;
    return TRUE;
  }

  while (g_ascii_isdigit (s[i]))
    i++;
  if (s[i] == '.') {
    is_float = TRUE;
    i++;
    while (g_ascii_isdigit (s[i]))
      i++;
  }
  if (s[i] == 'e' || s[i] == 'E') {
    guint e = i + 1;
    if (s[e] == '+' || s[e] == '-')
      e++;
    if (!g_ascii_isdigit (s[e])) {
      parse_error (p, e, "expected digits in the exponent of a number");
      return FALSE;
    }
    is_float = TRUE;
    i = e;
    while (g_ascii_isdigit (s[i]))
      i++;
  }
  if ((s[i] == 'j' || s[i] == 'J') && !g_ascii_isalnum (s[i + 1])
      && s[i + 1] != '_' && s[i + 1] != '.') {
    /* An imaginary literal, as Python writes it: 1j, 2.5j, 1e-3J. */
    gchar *text = g_strndup (s + start, i - start);
    p->tok.kind = TOK_IMAG;
    p->tok.value.c128[0] = 0.0;
    p->tok.value.c128[1] = g_ascii_strtod (text, NULL);
    p->tok.len = i + 1 - start;
    g_free (text);
    return TRUE;
  }
  if (g_ascii_isalpha (s[i]) || s[i] == '_' || s[i] == '.') {
    parse_error (p, i, "unexpected '%c' after a number", s[i]);
    return FALSE;
  }
  p->tok.len = i - start;
  if (is_float) {
    gchar *text = g_strndup (s + start, i - start);
    p->tok.kind = TOK_FLOAT;
    p->tok.value.f64 = g_ascii_strtod (text, NULL);
    g_free (text);
  } else {
    unsigned __int128 v = 0;
    guint j, first = start;

    /* 017 is octal 15 in C and an error in Python: a leading zero would
     * silently mean one of them (00 is 0 in both). */
    while (first + 1 < i && s[first] == '0')
      first++;
    if (first > start && s[first] != '0') {
      parse_error (p, start, "the integer %.*s starts with 0, which C reads "
          "as octal and Python refuses; write %.*s (or 0x... for "
          "hexadecimal)", (gint) (i - start), s + start, (gint) (i - first),
          s + first);
      return FALSE;
    }
    for (j = start; j < i; j++) {
      v = v * 10 + (s[j] - '0');
      if (v > G_MAXUINT64) {
        parse_error (p, start, "integer literal is larger than 2**64 - 1");
        return FALSE;
      }
    }
    p->tok.kind = TOK_INT;
    p->tok.value.big = (__int128) v;
  }
  return TRUE;
}

static gboolean
next_token (Parser * p)
{
  const gchar *s = p->src;
  guint i = p->tok.pos + p->tok.len;
  guint k;

  while (i < p->src_len && g_ascii_isspace (s[i]))
    i++;
  memset (&p->tok, 0, sizeof (p->tok));
  p->tok.pos = i;

  if (i >= p->src_len) {
    p->tok.kind = TOK_END;
    return TRUE;
  }
  if (g_ascii_isdigit (s[i]) || (s[i] == '.' && g_ascii_isdigit (s[i + 1])))
    return lex_number (p, i);
  if (g_ascii_isalpha (s[i]) || s[i] == '_') {
    guint j = i;
    while (g_ascii_isalnum (s[j]) || s[j] == '_')
      j++;
    /* np.sin(x) and numpy.sin(x), as people paste them from Python: the
     * module prefix is dropped; the name after it must be a function or a
     * constant (the typing pass checks). */
    if (((j - i == 2 && strncmp (s + i, "np", 2) == 0)
            || (j - i == 5 && strncmp (s + i, "numpy", 5) == 0))
        && s[j] == '.' && (g_ascii_isalpha (s[j + 1]) || s[j + 1] == '_')) {
      p->tok.prefix = j + 1 - i;
      j++;
      while (g_ascii_isalnum (s[j]) || s[j] == '_')
        j++;
    }
    p->tok.kind = TOK_NAME;
    p->tok.len = j - i;
    if (p->tok.prefix > 0)
      return TRUE;
    if (p->tok.len == 3 && strncmp (s + i, "and", 3) == 0) {
      p->tok.kind = TOK_OP;
      p->tok.op = EXPR_OP_LAND;
    } else if (p->tok.len == 2 && strncmp (s + i, "or", 2) == 0) {
      p->tok.kind = TOK_OP;
      p->tok.op = EXPR_OP_LOR;
    } else if (p->tok.len == 3 && strncmp (s + i, "not", 3) == 0) {
      p->tok.kind = TOK_OP;
      p->tok.op = EXPR_OP_LNOT;
    }
    return TRUE;
  }
  p->tok.len = 1;
  switch (s[i]) {
    case '(':
      p->tok.kind = TOK_LPAREN;
      return TRUE;
    case ')':
      p->tok.kind = TOK_RPAREN;
      return TRUE;
    case ',':
      p->tok.kind = TOK_COMMA;
      return TRUE;
    case '?':
      p->tok.kind = TOK_QUESTION;
      return TRUE;
    case ':':
      p->tok.kind = TOK_COLON;
      return TRUE;
    default:
      break;
  }
  for (k = 0; k < G_N_ELEMENTS (op_spellings); k++) {
    guint n = strlen (op_spellings[k].text);
    if (strncmp (s + i, op_spellings[k].text, n) == 0) {
      p->tok.kind = TOK_OP;
      p->tok.op = op_spellings[k].op;
      p->tok.len = n;
      return TRUE;
    }
  }
  if (s[i] == '=') {
    parse_error (p, i, "'=' is not an operator; use '==' to compare");
  } else if ((guchar) s[i] >= 0x80) {
    parse_error (p, i, "unexpected non-ASCII character");
  } else if (g_ascii_isprint (s[i])) {
    parse_error (p, i, "unexpected character '%c'", s[i]);
  } else {
    parse_error (p, i, "unexpected control character 0x%02x",
        (guint) (guchar) s[i]);
  }
  return FALSE;
}

static gboolean
tok_is_op (Parser * p, ExprOp op)
{
  return p->tok.kind == TOK_OP && p->tok.op == op;
}

static ExprNode *parse_expr (Parser * p);

static ExprNode *
op_node (Parser * p, ExprOp op, guint pos, guint len, ExprNode * a,
    ExprNode * b, ExprNode * c)
{
  ExprNode *node = _plan_expr_node_new (p->arena, EXPR_NODE_OP, pos, len);

  node->op = op;
  node->args[0] = a;
  node->args[1] = b;
  node->args[2] = c;
  node->n_args = c ? 3 : b ? 2 : a ? 1 : 0;
  node->height = 1 + MAX (a ? a->height : 0, MAX (b ? b->height : 0,
          c ? c->height : 0));
  if (node->height > EXPR_MAX_HEIGHT) {
    parse_error (p, pos, "the expression has more than %d levels of "
        "operations", EXPR_MAX_HEIGHT);
    return NULL;
  }
  if (a) {
    node->start = MIN (pos, a->start);
    node->end = MAX (pos + len, (c ? c : b ? b : a)->end);
  }
  return node;
}

static ExprNode *
parse_call (Parser * p, guint name_pos, guint name_len, guint prefix)
{
  ExprNode *node = _plan_expr_node_new (p->arena, EXPR_NODE_OP, name_pos,
      name_len);
  GPtrArray *args = g_ptr_array_new ();
  guint i;

  node->name = g_string_chunk_insert_len (p->arena->strings,
      p->src + name_pos + prefix, name_len - prefix);
  if (!next_token (p))          /* skip '(' */
    goto out;
  if (p->tok.kind != TOK_RPAREN) {
    while (TRUE) {
      ExprNode *arg = parse_expr (p);
      if (arg == NULL)
        goto out;
      g_ptr_array_add (args, arg);
      if (p->tok.kind == TOK_COMMA) {
        if (!next_token (p))
          goto out;
        continue;
      }
      if (p->tok.kind == TOK_RPAREN)
        break;
      {
        gchar *t = tok_text (p);
        parse_error (p, p->tok.pos,
            "expected ',' or ')' in the arguments of '%s', found %s",
            node->name, t);
        g_free (t);
      }
      goto out;
    }
  }
  /* No function takes more than 3: the typer says what this one takes. */
  node->n_given = args->len;
  node->n_args = MIN (args->len, 3);
  for (i = 0; i < args->len; i++) {
    ExprNode *arg = g_ptr_array_index (args, i);

    node->height = MAX (node->height, arg->height + 1);
    if (i < node->n_args)
      node->args[i] = arg;
  }
  if (node->height > EXPR_MAX_HEIGHT) {
    parse_error (p, name_pos, "the expression has more than %d levels of "
        "operations", EXPR_MAX_HEIGHT);
    goto out;
  }
  node->end = p->tok.pos + 1;
  if (!next_token (p))          /* skip ')' */
    goto out;
  g_ptr_array_free (args, TRUE);
  return node;

out:
  g_ptr_array_free (args, TRUE);
  return NULL;
}

static ExprNode *
parse_primary (Parser * p)
{
  ExprNode *node;
  guint pos = p->tok.pos, len = p->tok.len;

  switch (p->tok.kind) {
    case TOK_INT:
    case TOK_FLOAT:
    case TOK_IMAG:
      node = _plan_expr_node_new (p->arena, EXPR_NODE_CONST, pos, len);
      node->weak = p->tok.kind == TOK_INT ? EXPR_WEAK_INT :
          p->tok.kind == TOK_FLOAT ? EXPR_WEAK_FLOAT : EXPR_WEAK_COMPLEX;
      node->value = p->tok.value;
      return next_token (p) ? node : NULL;
    case TOK_NAME:{
      guint prefix = p->tok.prefix;

      if (!next_token (p))
        return NULL;
      if (p->tok.kind == TOK_LPAREN) {
        node = parse_call (p, pos, len, prefix);
        if (node)
          node->numpy_prefix = prefix > 0;
        return node;
      }
      node = _plan_expr_node_new (p->arena, EXPR_NODE_NAME, pos, len);
      node->name = g_string_chunk_insert_len (p->arena->strings,
          p->src + pos + prefix, len - prefix);
      node->numpy_prefix = prefix > 0;
      return node;
    }
    case TOK_LPAREN:
      if (!next_token (p))
        return NULL;
      node = parse_expr (p);
      if (node == NULL)
        return NULL;
      if (p->tok.kind != TOK_RPAREN) {
        gchar *t = tok_text (p), *at = place_of (p->src, pos);
        parse_error (p, p->tok.pos, "expected ')' to close the '(' at "
            "%s, found %s", at, t);
        g_free (at);
        g_free (t);
        return NULL;
      }
      node->paren = TRUE;
      node->start = pos;
      node->end = p->tok.pos + 1;
      return next_token (p) ? node : NULL;
    case TOK_END:
      parse_error (p, pos, "the expression ends where an operand is expected");
      return NULL;
    default:{
      gchar *t = tok_text (p);
      parse_error (p, pos, "expected an operand, found %s", t);
      g_free (t);
      return NULL;
    }
  }
}

static ExprNode *parse_unary (Parser * p);

/* Steps over the operator at @pos to its operand, one level deeper (the
 * caller steps back out when the operand is parsed): FALSE, with the
 * error set, past MAX_NESTING levels or at a token that cannot be read. */
static gboolean
enter_operand (Parser * p, guint pos)
{
  if (++p->depth > MAX_DEPTH) {
    parse_error (p, pos, "the expression is nested more than %d deep",
        MAX_NESTING);
    return FALSE;
  }
  return next_token (p);
}

/* power := primary ['**' unary]; right associative and, as in Python,
 * tighter than a unary minus on its left: -x**2 is -(x**2). */
static ExprNode *
parse_power (Parser * p)
{
  ExprNode *base = parse_primary (p), *exponent;
  guint pos, len;

  if (base == NULL || !tok_is_op (p, EXPR_OP_POW))
    return base;
  pos = p->tok.pos;
  len = p->tok.len;
  if (!enter_operand (p, pos))
    return NULL;
  exponent = parse_unary (p);
  p->depth--;
  if (exponent == NULL)
    return NULL;
  return op_node (p, EXPR_OP_POW, pos, len, base, exponent, NULL);
}

static ExprNode *
parse_unary (Parser * p)
{
  ExprOp op = EXPR_OP_NONE;
  guint pos = p->tok.pos, len = p->tok.len;
  ExprNode *arg;

  if (p->tok.kind == TOK_OP) {
    switch (p->tok.op) {
      case EXPR_OP_SUB:
        op = EXPR_OP_NEG;
        break;
      case EXPR_OP_ADD:
        op = EXPR_OP_POS;
        break;
      case EXPR_OP_BNOT:
        op = EXPR_OP_BNOT;
        break;
      case EXPR_OP_LNOT:
        /* '!' here; the keyword 'not' is handled at its own, lower level
         * but is accepted as an operand too ("x + not y" is an error in
         * Python; we accept it as C's "x + !y"). */
        op = EXPR_OP_LNOT;
        break;
      default:
        break;
    }
  }
  if (op == EXPR_OP_NONE)
    return parse_power (p);

  if (!enter_operand (p, pos))
    return NULL;
  arg = parse_unary (p);
  p->depth--;
  if (arg == NULL)
    return NULL;
  return op_node (p, op, pos, len, arg, NULL, NULL);
}

/* Binary levels, lowest first, from the '|' level down. */
static const ExprOp level_ops[][5] = {
  {EXPR_OP_BOR},
  {EXPR_OP_BXOR},
  {EXPR_OP_BAND},
  {EXPR_OP_EQ, EXPR_OP_NE},
  {EXPR_OP_LT, EXPR_OP_LE, EXPR_OP_GT, EXPR_OP_GE},
  {EXPR_OP_SHL, EXPR_OP_SHR},
  {EXPR_OP_ADD, EXPR_OP_SUB},
  {EXPR_OP_MUL, EXPR_OP_DIV, EXPR_OP_FLOORDIV, EXPR_OP_MOD},
};

#define LEVEL_EQ 3
#define LEVEL_REL 4

static gboolean
is_comparison (const ExprNode * node)
{
  return node->kind == EXPR_NODE_OP && !node->paren && node->name == NULL
      && node->op >= EXPR_OP_LT && node->op <= EXPR_OP_NE;
}

static gboolean
level_has (guint level, Parser * p)
{
  guint k;

  if (p->tok.kind != TOK_OP)
    return FALSE;
  for (k = 0; k < 5 && level_ops[level][k] != EXPR_OP_NONE; k++)
    if (level_ops[level][k] == p->tok.op)
      return TRUE;
  return FALSE;
}

static ExprNode *
parse_level (Parser * p, guint level)
{
  ExprNode *lhs, *rhs;

  if (level >= G_N_ELEMENTS (level_ops))
    return parse_unary (p);

  lhs = parse_level (p, level + 1);
  while (lhs && level_has (level, p)) {
    ExprOp op = p->tok.op;
    guint pos = p->tok.pos, len = p->tok.len;

    /* C would read "a < b < c" as "(a < b) < c", Python as a chain; both
     * readings are plausible, so neither is guessed. */
    if ((level == LEVEL_EQ || level == LEVEL_REL) && is_comparison (lhs)) {
      parse_error (p, pos, "comparisons cannot be chained; write "
          "'(a < b) && (b < c)' or add parentheses");
      return NULL;
    }
    if (!enter_operand (p, pos))
      return NULL;
    rhs = parse_level (p, level + 1);
    p->depth--;
    if (rhs == NULL)
      return NULL;
    if (level == LEVEL_EQ && is_comparison (rhs)) {
      parse_error (p, pos, "comparisons cannot be chained; add parentheses");
      return NULL;
    }
    lhs = op_node (p, op, pos, len, lhs, rhs, NULL);
  }
  return lhs;
}

/* not_expr := 'not' not_expr | bitor; the keyword binds looser than
 * comparisons, as in Python: "not x == y" is "not (x == y)". */
static ExprNode *
parse_not (Parser * p)
{
  guint pos = p->tok.pos, len = p->tok.len;
  ExprNode *arg;

  if (!(tok_is_op (p, EXPR_OP_LNOT) && len == 3))
    return parse_level (p, 0);
  if (!enter_operand (p, pos))
    return NULL;
  arg = parse_not (p);
  p->depth--;
  if (arg == NULL)
    return NULL;
  return op_node (p, EXPR_OP_LNOT, pos, len, arg, NULL, NULL);
}

static ExprNode *
parse_logic (Parser * p, ExprOp op)
{
  ExprNode *lhs, *rhs;

  lhs = op == EXPR_OP_LOR ? parse_logic (p, EXPR_OP_LAND) : parse_not (p);
  while (lhs && tok_is_op (p, op)) {
    guint pos = p->tok.pos, len = p->tok.len;
    if (!enter_operand (p, pos))
      return NULL;
    rhs = op == EXPR_OP_LOR ? parse_logic (p, EXPR_OP_LAND) : parse_not (p);
    p->depth--;
    if (rhs == NULL)
      return NULL;
    lhs = op_node (p, op, pos, len, lhs, rhs, NULL);
  }
  return lhs;
}

/* expr := logic_or ['?' expr ':' expr] */
static ExprNode *
parse_expr (Parser * p)
{
  ExprNode *cond, *a, *b;
  guint pos, len;

  if (++p->depth > MAX_DEPTH) {
    parse_error (p, p->tok.pos, "the expression is nested more than %d deep",
        MAX_NESTING);
    return NULL;
  }
  cond = parse_logic (p, EXPR_OP_LOR);
  if (cond == NULL || p->tok.kind != TOK_QUESTION) {
    p->depth--;
    return cond;
  }
  pos = p->tok.pos;
  len = p->tok.len;
  if (!next_token (p))
    return NULL;
  a = parse_expr (p);
  if (a == NULL)
    return NULL;
  if (p->tok.kind != TOK_COLON) {
    gchar *t = tok_text (p), *at = place_of (p->src, pos);
    parse_error (p, p->tok.pos, "expected ':' of the '?' at %s, found %s",
        at, t);
    g_free (at);
    g_free (t);
    return NULL;
  }
  if (!next_token (p))
    return NULL;
  b = parse_expr (p);
  if (b == NULL)
    return NULL;
  p->depth--;
  return op_node (p, EXPR_OP_WHERE, pos, len, cond, a, b);
}

ExprNode *
_plan_expr_parse (ExprArena * arena, GError ** error)
{
  Parser p;
  ExprNode *root;
  gsize len = strlen (arena->source);

  memset (&p, 0, sizeof (p));
  p.arena = arena;
  p.src = arena->source;
  p.error = error;

  if (len > MAX_SOURCE_LEN) {
    g_set_error (error, PLAN_ERROR, PLAN_ERROR_SYNTAX,
        "the expression is %" G_GSIZE_FORMAT " bytes long; at most %d are "
        "accepted", len, MAX_SOURCE_LEN);
    return NULL;
  }
  p.src_len = len;

  if (!next_token (&p))
    return NULL;
  if (p.tok.kind == TOK_END) {
    parse_error (&p, 0, "the expression is empty");
    return NULL;
  }
  root = parse_expr (&p);
  if (root == NULL)
    return NULL;
  if (p.tok.kind != TOK_END) {
    gchar *t = tok_text (&p);
    if (p.tok.kind == TOK_RPAREN)
      parse_error (&p, p.tok.pos, "unmatched ')'");
    else
      parse_error (&p, p.tok.pos, "expected an operator or the end of the "
          "expression, found %s", t);
    g_free (t);
    return NULL;
  }
  return root;
}
