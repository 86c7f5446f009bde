#!/usr/bin/python3
"""numexpr's own list of test expressions, run through the expression
language and compared with numpy.

The list is imported from the installed numexpr test module
(numexpr/tests/test_numexpr.py: its `tests` sections MISC, OPERATIONS,
COMPARISONS, 1_ARG_FUNCS, 2_ARG_FUNCS and POW_TESTS), unchanged. numexpr's
suite evaluates each expression with numpy and with numexpr, on variables
a, a2, b, c, d, e of several dtypes, with a or b a scalar in two of its
three rounds; here the same variables are bound as inputs of the same
dtypes (a scalar becomes an input holding that value in every row, as a
stream would) and our result must match numpy's: the same dtype, the same
values (exactly for integers and bools, within a few ulp for floats, NaN
and infinities where numpy has them).

Every expression is evaluated through libplan's expression API (what
planmap compiles); the MISC section is also run through real planmap
pipelines, its variables renamed to planmap's input names in0, in1, ...

Skipped, with the reason printed:
  - numexpr's complex-valued round (the language has no complex dtype);
  - expressions reading an attribute (`(a-10).real`), which is not part of
    the language (it selects the real part of a complex number).
Where numpy raises (an integer to a negative integer power), our
documented result is checked instead (docs/expressions.md: 1 for a base
of 1, +-1 for -1, 0 otherwise).
"""
import os
import re
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from planexpr_ctypes import Expr, ExprError  # noqa: E402
from plantest import launch, tmpdir  # noqa: E402

try:
    from numexpr.tests import test_numexpr
except ImportError as exc:
    print('numexpr test module not installed (%s); skipping' % exc)
    sys.exit(77)

warnings.simplefilter('ignore')

VARIABLES = ['a', 'a2', 'b', 'c', 'd', 'e', 'x']
NAME_RE = re.compile(r'(?<![\w.])(%s)(?![\w(])' % '|'.join(
    sorted(VARIABLES, key=len, reverse=True)))

failures = []
run_count = 0
pipeline_count = 0
skipped = {}


def fail(msg):
    failures.append(msg)
    if len(failures) <= 30:
        print('FAIL:', msg)


def skip(reason):
    skipped[reason] = skipped.get(reason, 0) + 1


def variables(dtype, test_scalar):
    """numexpr's variables for one round (test_expressions() in its
    suite), with a scalar broadcast to a full input."""
    n = 100
    v = {
        'a': np.arange(2 * n, dtype=dtype)[::2].copy(),
        'a2': np.zeros([n, n], dtype=dtype),
        'b': np.arange(n, dtype=dtype) / n,
        'c': np.arange(n, dtype=dtype),
        'd': np.arange(n, dtype=dtype),
        'e': np.arange(n, dtype=dtype),
    }
    if test_scalar == 1:
        v['a'] = np.full(n, v['a'][n // 2])
    if test_scalar == 2:
        v['b'] = np.full(n, v['b'][n // 2])
    return v


def numpy_eval(expr, env):
    """The expression evaluated as numexpr's suite evaluates it with numpy:
    in the namespace of its test module."""
    ns = dict(vars(test_numexpr))
    ns.update(env)
    return eval(expr, ns)


def used_names(expr):
    return sorted(set(NAME_RE.findall(expr)))


def close(got, want):
    if got.dtype.kind in 'biu':
        return np.array_equal(got, want)
    if not np.array_equal(np.isnan(got), np.isnan(want)):
        return False
    if not np.array_equal(np.isinf(got) & (got > 0),
                          np.isinf(want) & (want > 0)):
        return False
    ok = np.isfinite(want)
    rtol = 4e-7 if got.dtype == np.float32 else 1e-15
    tiny = np.finfo(got.dtype).tiny
    return np.all(np.abs(got[ok] - want[ok]) <=
                  rtol * 4 * np.abs(want[ok]) + tiny)


def documented_negative_power(base, exponent):
    """Our integer power with a negative exponent (docs/expressions.md)."""
    out = np.zeros_like(base)
    out[base == 1] = 1
    out[base == -1] = 1 if exponent % 2 == 0 else -1
    return out


def check(expr, env, label):
    global run_count
    names = used_names(expr)
    n = len(env['a2'].ravel()) if 'a2' in names else 100
    arrays = {k: np.ascontiguousarray(env[k]).ravel() for k in names}
    try:
        want = numpy_eval(expr, env)
        raised = None
    except (ValueError, ZeroDivisionError) as exc:
        want, raised = None, exc
    try:
        e = Expr(expr, {k: arrays[k].dtype for k in names})
    except ExprError as exc:
        fail('%s: %r does not compile: %s' % (label, expr, exc.message))
        return
    if names:
        got = e.eval(arrays)
    else:
        got = e.eval({}, out=np.empty(n, e.dtype))
    run_count += 1
    if raised is not None:
        m = re.fullmatch(r'\(a\+1\)\s*\*\*\s*(-\d+)', expr)
        if m is None or env['a'].dtype.kind not in 'iu':
            fail('%s: numpy raises %r for %r, which we compute' %
                 (label, raised, expr))
            return
        want = documented_negative_power(arrays['a'] + 1, int(m.group(1)))
    want = np.broadcast_to(np.asarray(want), (n,) if 'a2' not in names
                           else env['a2'].shape).ravel()
    if got.dtype != want.dtype:
        fail('%s: %r gives %s, numpy %s' % (label, expr, got.dtype,
                                            want.dtype))
    elif not close(got, want):
        bad = np.nonzero(~np.isclose(got, want, equal_nan=True))[0]
        k = bad[0] if len(bad) else 0
        fail('%s: %r at %d: got %r, numpy %r' % (label, expr, k, got[k],
                                                 want[k]))


def run_pipelines(section, dtype):
    """The section through planmap: one pipeline per expression, the
    variables it uses on inputs in0, in1, ... (planmap's names)."""
    global run_count, pipeline_count
    env = variables(dtype, 0)
    d = tmpdir()
    for expr in section:
        if '.real' in expr:
            continue
        names = used_names(expr)
        if not names:
            continue            # planmap needs an input
        renamed = NAME_RE.sub(lambda m: 'in%d' % names.index(m.group(1)),
                              expr)
        words = ['planmap', 'name=m', 'expr=%s' % renamed, '!',
                 'planfilesink', 'location=%s/out.npy' % d]
        for i, k in enumerate(names):
            np.save('%s/in%d.npy' % (d, i), env[k])
            words += ['planfilesrc', 'location=%s/in%d.npy' % (d, i), '!',
                      'm.sink_%d' % i]
        launch(*words)
        got = np.load('%s/out.npy' % d)
        want = np.asarray(numpy_eval(expr, env))
        run_count += 1
        pipeline_count += 1
        if got.dtype != want.dtype or got.shape != want.shape \
                or not close(got.ravel(), want.ravel()):
            fail('planmap %s: %r (as %r) gives %s %s, numpy %s %s' %
                 (np.dtype(dtype).name, expr, renamed, got.dtype, got.shape,
                  want.dtype, want.shape))


def main():
    sections = test_numexpr.tests
    total = sum(len(s) for _, s in sections)
    print('numexpr %s test list: %d expressions in %d sections' %
          (getattr(test_numexpr.numexpr, '__version__', '?'), total,
           len(sections)))
    for test_scalar in (0, 1, 2):
        # numexpr's dtypes: int (twice in its list), float32, double,
        # complex
        for dtype in (int, np.float32, np.double, complex):
            for section_name, section in sections:
                for expr in section:
                    if dtype is complex:
                        skip('complex numbers: the language has no complex '
                             'dtype')
                        continue
                    if '.real' in expr:
                        skip("attribute access ('.real', the real part of a "
                             "complex number) is not part of the language")
                        continue
                    label = '%s %s scalar=%d' % (
                        section_name, np.dtype(dtype).name, test_scalar)
                    check(expr, variables(dtype, test_scalar), label)
    misc = dict(sections)['MISC']
    for dtype in (np.float32, int):
        run_pipelines(misc, dtype)
    print('run: %d expression evaluations (%d through planmap)' %
          (run_count, pipeline_count))
    for reason, count in skipped.items():
        print('skipped: %d, %s' % (count, reason))
    if failures:
        print('%d failures' % len(failures))
        return 1
    print('all passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
