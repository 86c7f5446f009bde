/* gst-plan
 * Copyright (C) 2026 the gst-plan authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libFuzzer target for the expression compiler: any byte string must
 * either compile or fail with an error, never crash, leak or trip a
 * sanitizer; what compiles is evaluated on a small array and translated to
 * CUDA. The first byte picks the dtypes bound to the names, the rest is
 * the expression. Built with clang -fsanitize=fuzzer,address,undefined by
 * tests/fuzz/meson.build and run for a bounded time by `meson test`. */

#include <libplan/planexpr.h>
#include <libplan/planerror.h>

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

#define N 37
/* The widest element: complex128. */
#define ELEMENT_MAX 16

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  static const gchar *const names[] = { "x", "y", "i", "b", "e" };
  PlanDType dtypes[5];
  static guint8 inputs[5][N * ELEMENT_MAX];
  static guint8 out[N * ELEMENT_MAX];
  gconstpointer in[5];
  GError *err = NULL;
  PlanExpr *expr;
  gchar *src, *cuda;
  guint k;

  if (size == 0)
    return 0;
  for (k = 0; k < 5; k++) {
    dtypes[k] = (PlanDType) (1 + (data[0] + k * 3) % (PLAN_DTYPE_N - 1));
    in[k] = inputs[k];
  }
  for (k = 0; k < sizeof (inputs); k++)
    ((guint8 *) inputs)[k] = (guint8) (k * 37 + 11);
  src = g_strndup ((const gchar *) data + 1, size - 1);

  if (!plan_expr_check (src, &err)) {
    g_assert (err != NULL && err->domain == PLAN_ERROR);
    g_clear_error (&err);
  }
  expr = plan_expr_compile (src, 5, names, dtypes, &err);
  if (expr == NULL) {
    g_assert (err != NULL && err->domain == PLAN_ERROR);
    g_assert (err->message != NULL && strchr (err->message, '^'));
    g_clear_error (&err);
  } else {
    g_assert (err == NULL);
    plan_expr_eval (expr, in, out, N);
    cuda = plan_expr_to_cuda (expr, "fuzz");
    g_assert (cuda != NULL);
    g_free (cuda);
    plan_expr_unref (expr);
  }
  g_free (src);
  return 0;
}
