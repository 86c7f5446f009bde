/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* CUDA C from a typed expression tree. The tree is already explicit about
 * every dtype (exprtype.c), so each node becomes one statement calling a
 * helper of kernels/cuda/expr_prelude.cuh or a CUDA math function; the
 * wrapper (element function, kernel, host entry) is the template
 * kernels/cuda/expr_kernel.cuh with its slots filled in. Both files are
 * embedded at build time. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "expr-private.h"
#include "expr-cuda-sources.h"

#include <math.h>
#include <string.h>

/* The CUDA C type of a dtype in the expression prelude (also the
 * stencil's and the reductions' kernels). */
const gchar *
_plan_cuda_type_name (PlanDType d)
{
  static const gchar *const names[PLAN_DTYPE_N] = {
    [PLAN_DTYPE_BOOL] = "plan_bool",[PLAN_DTYPE_INT8] = "plan_i8",
    [PLAN_DTYPE_UINT8] = "plan_u8",[PLAN_DTYPE_INT16] = "plan_i16",
    [PLAN_DTYPE_UINT16] = "plan_u16",[PLAN_DTYPE_INT32] = "plan_i32",
    [PLAN_DTYPE_UINT32] = "plan_u32",[PLAN_DTYPE_INT64] = "plan_i64",
    [PLAN_DTYPE_UINT64] = "plan_u64",[PLAN_DTYPE_FLOAT32] = "float",
    [PLAN_DTYPE_FLOAT64] = "double",[PLAN_DTYPE_COMPLEX64] = "plan_c64",
    [PLAN_DTYPE_COMPLEX128] = "plan_c128",[PLAN_DTYPE_FLOAT16] = "plan_f16",
  };
  g_assert (d > PLAN_DTYPE_UNKNOWN && d < PLAN_DTYPE_N);
  return names[d];
}

/* The CUDA math function of a float operation: its float64 name, to which
 * 'f' is appended for float32. */
static const gchar *
math_name (ExprOp op)
{
  switch (op) {
    case EXPR_OP_SQRT:
      return "sqrt";
    case EXPR_OP_CBRT:
      return "cbrt";
    case EXPR_OP_EXP:
      return "exp";
    case EXPR_OP_EXP2:
      return "exp2";
    case EXPR_OP_EXPM1:
      return "expm1";
    case EXPR_OP_LOG:
      return "log";
    case EXPR_OP_LOG2:
      return "log2";
    case EXPR_OP_LOG10:
      return "log10";
    case EXPR_OP_LOG1P:
      return "log1p";
    case EXPR_OP_SIN:
      return "sin";
    case EXPR_OP_COS:
      return "cos";
    case EXPR_OP_TAN:
      return "tan";
    case EXPR_OP_ASIN:
      return "asin";
    case EXPR_OP_ACOS:
      return "acos";
    case EXPR_OP_ATAN:
      return "atan";
    case EXPR_OP_SINH:
      return "sinh";
    case EXPR_OP_COSH:
      return "cosh";
    case EXPR_OP_TANH:
      return "tanh";
    case EXPR_OP_ASINH:
      return "asinh";
    case EXPR_OP_ACOSH:
      return "acosh";
    case EXPR_OP_ATANH:
      return "atanh";
    case EXPR_OP_FLOOR:
      return "floor";
    case EXPR_OP_CEIL:
      return "ceil";
    case EXPR_OP_RINT:
      return "rint";
    case EXPR_OP_TRUNC:
      return "trunc";
    case EXPR_OP_ATAN2:
      return "atan2";
    case EXPR_OP_HYPOT:
      return "hypot";
    default:
      return NULL;
  }
}

/* The prelude helper of an operation on integers and floats alike. */
static const gchar *
helper_name (ExprOp op)
{
  switch (op) {
    case EXPR_OP_ADD:
      return "plan_add";
    case EXPR_OP_SUB:
      return "plan_sub";
    case EXPR_OP_MUL:
      return "plan_mul";
    case EXPR_OP_FLOORDIV:
      return "plan_floordiv";
    case EXPR_OP_MOD:
      return "plan_mod";
    case EXPR_OP_FMOD:
      return "plan_fmod";
    case EXPR_OP_POW:
      return "plan_pow";
    case EXPR_OP_SHL:
      return "plan_shl";
    case EXPR_OP_SHR:
      return "plan_shr";
    case EXPR_OP_MIN:
      return "plan_min";
    case EXPR_OP_MAX:
      return "plan_max";
    case EXPR_OP_FMIN:
      return "plan_fmin";
    case EXPR_OP_FMAX:
      return "plan_fmax";
    case EXPR_OP_NEG:
      return "plan_neg";
    case EXPR_OP_ABS:
      return "plan_abs";
    case EXPR_OP_SIGN:
      return "plan_sign";
    case EXPR_OP_ISNAN:
      return "plan_isnan";
    case EXPR_OP_ISINF:
      return "plan_isinf";
    case EXPR_OP_ISFINITE:
      return "plan_isfinite";
    case EXPR_OP_SIGNBIT:
      return "plan_signbit";
    case EXPR_OP_NAN_TO_NUM:
      return "plan_nan_to_num";
    case EXPR_OP_RECIPROCAL:
      return "plan_reciprocal";
    case EXPR_OP_COPYSIGN:
      return "plan_copysign";
    case EXPR_OP_HEAVISIDE:
      return "plan_heaviside";
    case EXPR_OP_LOGADDEXP:
      return "plan_logaddexp";
    case EXPR_OP_LOGADDEXP2:
      return "plan_logaddexp2";
    default:
      return NULL;
  }
}

static const gchar *
c_operator (ExprOp op)
{
  switch (op) {
    case EXPR_OP_DIV:
      return "/";
    case EXPR_OP_BAND:
    case EXPR_OP_LAND:
      return "&";
    case EXPR_OP_BOR:
    case EXPR_OP_LOR:
      return "|";
    case EXPR_OP_BXOR:
      return "^";
    case EXPR_OP_LT:
      return "<";
    case EXPR_OP_LE:
      return "<=";
    case EXPR_OP_GT:
      return ">";
    case EXPR_OP_GE:
      return ">=";
    case EXPR_OP_EQ:
      return "==";
    case EXPR_OP_NE:
      return "!=";
    default:
      return NULL;
  }
}

static void append_const (GString * s, const ExprNode * c);

/* A complex constant: its parts as float constants. */
static void
append_complex_const (GString * s, const ExprNode * c)
{
  ExprNode part = *c;
  gboolean c64 = c->dtype == PLAN_DTYPE_COMPLEX64;
  guint i;

  part.dtype = c64 ? PLAN_DTYPE_FLOAT32 : PLAN_DTYPE_FLOAT64;
  g_string_append_printf (s, "%s (", c64 ? "plan_c64_make" :
      "plan_c128_make");
  for (i = 0; i < 2; i++) {
    memset (&part.value, 0, sizeof (part.value));
    if (c64)
      memcpy (part.value.bytes, &c->value.c64[i], 4);
    else
      memcpy (part.value.bytes, &c->value.c128[i], 8);
    append_const (s, &part);
    g_string_append (s, i ? ")" : ", ");
  }
}

static void
append_const (GString * s, const ExprNode * c)
{
  const gchar *t = _plan_cuda_type_name (c->dtype);

  if (plan_dtype_is_complex (c->dtype)) {
    append_complex_const (s, c);
  } else if (c->dtype == PLAN_DTYPE_FLOAT16) {
    guint16 h;
    memcpy (&h, c->value.bytes, 2);
    g_string_append_printf (s, "plan_f16_bits (0x%04x)", h);
  } else if (c->dtype == PLAN_DTYPE_FLOAT32) {
    gfloat f;
    guint32 bits;
    memcpy (&f, c->value.bytes, 4);
    memcpy (&bits, &f, 4);
    if (isfinite (f))
      g_string_append_printf (s, "%.9ef", (gdouble) f);
    else
      g_string_append_printf (s, "plan_f32_bits (0x%08xu)", bits);
  } else if (c->dtype == PLAN_DTYPE_FLOAT64) {
    gdouble d;
    guint64 bits;
    memcpy (&d, c->value.bytes, 8);
    memcpy (&bits, &d, 8);
    if (isfinite (d))
      g_string_append_printf (s, "%.17e", d);
    else
      g_string_append_printf (s, "plan_f64_bits (0x%016" G_GINT64_MODIFIER
          "xull)", bits);
  } else {
    guint64 u = 0;
    gsize size = plan_dtype_get_size (c->dtype);
    memcpy (&u, c->value.bytes, size);
    g_string_append_printf (s, "((%s) 0x%" G_GINT64_MODIFIER "xull)", t, u);
  }
}

typedef struct
{
  GString *body;
  guint n_temps;
} Gen;

/* float16 is converted to float first (exactly; to float64 directly, which
 * keeps a signalling NaN's bits), and everything but a float64 rounds to
 * it from float (integers too: see exprloops.c). */
static void
append_cast (GString * s, PlanDType from, PlanDType to, const gchar * arg)
{
  gchar *f32 = NULL;

  if (from == PLAN_DTYPE_FLOAT16 && to == PLAN_DTYPE_FLOAT64) {
    g_string_append_printf (s, "plan_f16_to_f64 (%s)", arg);
    return;
  }
  if (from == PLAN_DTYPE_FLOAT16 && to != PLAN_DTYPE_FLOAT16) {
    arg = f32 = g_strdup_printf ("plan_f16_to_f32 (%s)", arg);
    from = PLAN_DTYPE_FLOAT32;
  }
  if (to == PLAN_DTYPE_FLOAT16) {
    g_string_append_printf (s, from == PLAN_DTYPE_FLOAT64 ?
        "plan_f64_to_f16 (%s)" : "plan_f32_to_f16 ((float) %s)", arg);
  } else if (from == to) {
    g_string_append (s, arg);
  } else if (plan_dtype_is_complex (from) && to == PLAN_DTYPE_BOOL) {
    g_string_append_printf (s, "(plan_bool) (%s.re != 0 || %s.im != 0)", arg,
        arg);
  } else if (plan_dtype_is_complex (from)) {
    /* complex64 <-> complex128: a real dtype is never cast to. */
    g_string_append_printf (s, "%s_of (%s)", _plan_cuda_type_name (to), arg);
  } else if (plan_dtype_is_complex (to)) {
    const gchar *part = to == PLAN_DTYPE_COMPLEX64 ? "float" : "double";
    g_string_append_printf (s, "%s_make ((%s) %s, (%s) 0)",
        _plan_cuda_type_name (to), part, arg, part);
  } else if (to == PLAN_DTYPE_BOOL) {
    g_string_append_printf (s, "(plan_bool) (%s != 0)", arg);
  } else if (plan_dtype_is_float (from) && !plan_dtype_is_float (to)) {
    gint bits = (gint) plan_dtype_get_size (to) * 8;
    gboolean sgn = plan_dtype_is_signed (to);
    const gchar *t = _plan_cuda_type_name (to);
    guint64 min = sgn ? G_GUINT64_CONSTANT (1) << (bits - 1) : 0;
    guint64 max = sgn ? min - 1 : bits == 64 ? G_MAXUINT64
        : (G_GUINT64_CONSTANT (1) << bits) - 1;
    gdouble lo = sgn ? -ldexp (1.0, bits - 1) : 0.0;
    gdouble hi = ldexp (1.0, sgn ? bits - 1 : bits);

    /* The bounds are powers of two, exact in double; min and max are the
     * target's extremes, written as unsigned bit patterns. */
    g_string_append_printf (s, "plan_f2i<%s> ((double) %s, %.1f, %.1f, "
        "(%s) 0x%" G_GINT64_MODIFIER "xull, (%s) 0x%" G_GINT64_MODIFIER
        "xull)", t, arg, lo, hi, t, min, t, max);
  } else {
    g_string_append_printf (s, "(%s) %s", _plan_cuda_type_name (to), arg);
  }
  g_free (f32);
}

/* An operation on complex operands: the prelude's plan_c* functions. */
static void
append_complex_op (GString * e, ExprOp op, gchar ** args)
{
  const gchar *fn = math_name (op);

  switch (op) {
    case EXPR_OP_SQUARE:
      g_string_append_printf (e, "plan_mul (%s, %s)", args[0], args[0]);
      return;
    case EXPR_OP_REAL:
      g_string_append_printf (e, "%s.re", args[0]);
      return;
    case EXPR_OP_IMAG:
      g_string_append_printf (e, "%s.im", args[0]);
      return;
    case EXPR_OP_CONJ:
      fn = "plan_conj";
      break;
    case EXPR_OP_ANGLE:
      fn = "plan_angle";
      break;
    case EXPR_OP_DIV:
      fn = "plan_div";
      break;
    case EXPR_OP_EQ:
      fn = "plan_eq";
      break;
    case EXPR_OP_NE:
      fn = "plan_ne";
      break;
    case EXPR_OP_RINT:
      fn = "plan_crint";
      break;
    default:
      if (fn != NULL) {
        /* sqrt ... atanh: plan_csqrt ... plan_catanh */
        g_string_append_printf (e, "plan_c%s (%s)", fn, args[0]);
        return;
      }
      fn = helper_name (op);
      break;
  }
  g_assert (fn != NULL);
  g_string_append_printf (e, "%s (%s%s%s)", fn, args[0], args[1] ? ", " : "",
      args[1] ? args[1] : "");
}

/* Emits the statements computing @node; returns the name of its value. */
static gchar *
gen_node (Gen * g, const ExprNode * node)
{
  gchar *args[3] = { NULL, NULL, NULL }, *result;
  GString *e;
  PlanDType ad;
  guint i;
  const gchar *name;

  if (node->kind == EXPR_NODE_NAME) {
    if (node->dtype == PLAN_DTYPE_BOOL)
      return g_strdup_printf ("plan_bool_of (v%u)", node->name_index);
    return g_strdup_printf ("v%u", node->name_index);
  }
  if (node->kind == EXPR_NODE_CONST) {
    e = g_string_new (NULL);
    append_const (e, node);
    return g_string_free (e, FALSE);
  }

  for (i = 0; i < node->n_args; i++)
    args[i] = gen_node (g, node->args[i]);
  ad = _plan_expr_node_arg_dtype (node);
  e = g_string_new (NULL);

  if (node->op == EXPR_OP_CAST) {
    append_cast (e, ad, node->dtype, args[0]);
  } else if (plan_dtype_is_complex (ad) && node->op != EXPR_OP_WHERE) {
    append_complex_op (e, node->op, args);
  } else if (node->op == EXPR_OP_SQUARE) {
    g_string_append_printf (e, "plan_mul (%s, %s)", args[0], args[0]);
  } else if (node->op == EXPR_OP_WHERE) {
    g_string_append_printf (e, "%s ? %s : %s", args[0], args[1], args[2]);
  } else if (ad == PLAN_DTYPE_BOOL) {
    /* Logical meaning on 0/1 values, as the CPU's bool kernels. */
    switch (node->op) {
      case EXPR_OP_ADD:
      case EXPR_OP_MAX:
      case EXPR_OP_FMAX:
      case EXPR_OP_BOR:
      case EXPR_OP_LOR:
        g_string_append_printf (e, "(plan_bool) (%s | %s)", args[0], args[1]);
        break;
      case EXPR_OP_MUL:
      case EXPR_OP_MIN:
      case EXPR_OP_FMIN:
      case EXPR_OP_BAND:
      case EXPR_OP_LAND:
        g_string_append_printf (e, "(plan_bool) (%s & %s)", args[0], args[1]);
        break;
      case EXPR_OP_BXOR:
        g_string_append_printf (e, "(plan_bool) (%s != %s)", args[0], args[1]);
        break;
      case EXPR_OP_LNOT:
      case EXPR_OP_BNOT:
        g_string_append_printf (e, "(plan_bool) (%s == 0)", args[0]);
        break;
      case EXPR_OP_ABS:
        g_string_append (e, args[0]);
        break;
      default:
        g_assert (c_operator (node->op) != NULL);
        g_string_append_printf (e, "(plan_bool) (%s %s %s)", args[0],
            c_operator (node->op), args[1]);
        break;
    }
  } else if ((name = math_name (node->op)) != NULL) {
    g_string_append_printf (e, "%s%s (%s%s%s)", name,
        ad == PLAN_DTYPE_FLOAT32 ? "f" : "", args[0], args[1] ? ", " : "",
        args[1] ? args[1] : "");
  } else if ((name = helper_name (node->op)) != NULL) {
    g_string_append_printf (e, "%s (%s%s%s)", name, args[0],
        args[1] ? ", " : "", args[1] ? args[1] : "");
  } else if (node->op == EXPR_OP_BNOT) {
    g_string_append_printf (e, "(%s) ~%s", _plan_cuda_type_name (ad), args[0]);
  } else {
    const gchar *cop = c_operator (node->op);
    g_assert (cop != NULL);
    g_string_append_printf (e, "(%s) (%s %s %s)", _plan_cuda_type_name (node->dtype),
        args[0], cop, args[1]);
  }

  result = g_strdup_printf ("t%u", g->n_temps++);
  g_string_append_printf (g->body, "  const %s %s = %s;\n",
      _plan_cuda_type_name (node->dtype), result, e->str);
  g_string_free (e, TRUE);
  for (i = 0; i < 3; i++)
    g_free (args[i]);
  return result;
}

static void
mark_used (const ExprNode * node, gboolean * used)
{
  guint i;

  if (node->kind == EXPR_NODE_NAME)
    used[node->name_index] = TRUE;
  for (i = 0; i < node->n_args; i++)
    mark_used (node->args[i], used);
}

static void
fill (GString * src, const gchar * slot, const gchar * value)
{
  g_string_replace (src, slot, value, 0);
}

/* The index function of a broadcast name: see ExprBcast. */
static void
append_bcast_index (GString * s, const gchar * fn, guint k,
    const ExprBcast * b, guint64 row_elements)
{
  guint a;

  g_string_append_printf (s, "__host__ __device__ static inline unsigned "
      "long long\n%s_bidx%u (unsigned long long e)\n{\n"
      "  const unsigned long long j = e %% %" G_GUINT64_FORMAT "ull;\n"
      "  (void) j;\n  return (e / %" G_GUINT64_FORMAT "ull) * %"
      G_GUINT64_FORMAT "ull", fn, k, row_elements, row_elements,
      b->row_stride);
  for (a = 0; a < b->ndim; a++) {
    if (b->strides[a] == 0)
      continue;
    g_string_append_printf (s, "\n      + (j / %" G_GUINT64_FORMAT "ull %% %"
        G_GUINT64_FORMAT "ull) * %" G_GUINT64_FORMAT "ull", b->out_stride[a],
        b->dims[a], b->strides[a]);
  }
  g_string_append (s, ";\n}\n\n");
}

gchar *
_plan_expr_cuda_generate (ExprNode * root, guint n_names,
    const PlanDType * dtypes, const ExprBcast * bcast, guint64 row_elements,
    const gchar * function_name)
{
  GString *src = g_string_new (plan_expr_cuda_prelude);
  GString *tmpl = g_string_new (plan_expr_cuda_kernel);
  GString *params = g_string_new (NULL), *elem_params = g_string_new (NULL);
  GString *args = g_string_new (NULL), *vec_args = g_string_new (NULL);
  GString *host_args = g_string_new (NULL), *loads = g_string_new (NULL);
  GString *aligned = g_string_new ("PLAN_ALIGNED4 (out)");
  GString *index_fns = g_string_new (NULL);
  Gen g = { g_string_new (NULL), 0 };
  gboolean *used = g_new0 (gboolean, MAX (n_names, 1));
  gchar *value;
  guint i;

  mark_used (root, used);
  value = gen_node (&g, root);
  g_string_append_printf (g.body, "  return %s;", value);
  g_free (value);

  for (i = 0; i < n_names; i++) {
    const gchar *t = _plan_cuda_type_name (dtypes[i]);
    const gchar *sep = i ? ", " : "";
    g_string_append_printf (elem_params, "%s%s v%u", sep, t, i);
    /* An input the expression does not read is never loaded: it may be
     * NULL, as on the CPU. */
    if (!used[i]) {
      g_string_append_printf (params, "const %s *__restrict__ in%u,", t, i);
      g_string_append_printf (args, "%s%s ()", sep, t);
      g_string_append_printf (vec_args, "%s%s ()", sep, t);
      g_string_append_printf (host_args, "%s%s ()", sep, t);
      continue;
    }
    /* A scalar parameter is an argument of the kernel, by value; a
     * broadcast name is read at its own index. */
    if (bcast && bcast[i].kind == EXPR_BCAST_SCALAR) {
      g_string_append_printf (params, "const %s in%u,", t, i);
      g_string_append_printf (args, "%sin%u", sep, i);
      g_string_append_printf (vec_args, "%sin%u", sep, i);
      g_string_append_printf (host_args, "%s(*(const %s *) in[%u])", sep, t,
          i);
      continue;
    }
    g_string_append_printf (params, "const %s *__restrict__ in%u,", t, i);
    if (bcast && bcast[i].kind == EXPR_BCAST_GATHER) {
      append_bcast_index (index_fns, function_name, i, &bcast[i],
          row_elements);
      g_string_append_printf (args, "%sin%u[%s_bidx%u (j)]", sep, i,
          function_name, i);
      g_string_append_printf (vec_args, "%sin%u[%s_bidx%u (j * 4 + q)]",
          sep, i, function_name, i);
      g_string_append_printf (host_args, "%s((const %s *) in[%u])"
          "[%s_bidx%u (j)]", sep, t, i, function_name, i);
      continue;
    }
    g_string_append_printf (args, "%sPLAN_A1 (%u)", sep, i);
    g_string_append_printf (vec_args, "%sPLAN_A4 (%u)", sep, i);
    g_string_append_printf (host_args, "%sPLAN_H1 (%s, %u)", sep, t, i);
    g_string_append_printf (loads, "PLAN_LOAD4 (%s, %u) ", t, i);
    g_string_append_printf (aligned, " && PLAN_ALIGNED4 (in%u)", i);
  }
  g_free (used);

  fill (tmpl, "@NAME@", function_name);
  fill (tmpl, "@OUT_T@", _plan_cuda_type_name (root->dtype));
  fill (tmpl, "@ELEM_PARAMS@", elem_params->str);
  fill (tmpl, "@BODY@", g.body->str);
  fill (tmpl, "@PARAMS@", params->str);
  fill (tmpl, "@ARGS@", args->str);
  fill (tmpl, "@VEC_ARGS@", vec_args->str);
  fill (tmpl, "@HOST_ARGS@", host_args->str);
  fill (tmpl, "@VEC_LOADS@", loads->str);
  fill (tmpl, "@ALIGNED@", aligned->str);
  g_string_append_c (src, '\n');
  g_string_append (src, index_fns->str);
  g_string_append (src, tmpl->str);

  g_string_free (tmpl, TRUE);
  g_string_free (params, TRUE);
  g_string_free (elem_params, TRUE);
  g_string_free (args, TRUE);
  g_string_free (vec_args, TRUE);
  g_string_free (host_args, TRUE);
  g_string_free (loads, TRUE);
  g_string_free (aligned, TRUE);
  g_string_free (index_fns, TRUE);
  g_string_free (g.body, TRUE);
  return g_string_free (src, FALSE);
}
