#!/usr/bin/python3
"""numpy as the oracle, property style, over every dtype.

planreduce: every op of docs/planreduce.md, every axis (all, 0, -1, and 1
on 2-D input), on 1-D, 2-D and 3-D arrays with axes of length 1 and empty
streams, with NaN, infinities, signed zeros and integer extremes among the
values, file to file (planfilesrc ! planreduce ! planfilesink, run in this
process). Result dtype and shape must be numpy's; values exactly numpy's
for integers, bools, indices and the order ops, and for float sums,
means, products and moments within the bounds the docs state against the
exact value (numpy rounds more often than planreduce does). Where numpy
raises (min of nothing, nanargmin of an all-NaN slice), the pipeline must
fail with an element error.

planmap: targeted expressions (floor division and remainder with negative
and zero operands, integer powers and shifts, casts out of range, NaN
through minimum/maximum, rounding, out-of-range literals in operations
numpy computes in float) file to file, and a fixed-seed sweep of random
expressions over random dtypes through libplan's evaluator, against numpy
with NEP 50 promotion (numpy 1.24's weak mode, which is numpy 2's rule)
and the differences docs/expressions.md lists.

PLAN_ORACLE_SEED and PLAN_ORACLE_N change the sweep (default: 20261203,
600 expressions). The reductions run half the shapes for each dtype (every
shape for every other dtype) unless PLAN_ORACLE_FULL=1, which takes about
twice as long."""
import os
import random
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import Failure, gst, run_cases, tmpdir  # noqa: E402
from planexpr_ctypes import Expr, ExprError  # noqa: E402

if not hasattr(np, '_set_promotion_state'):
    print('numpy has no NEP 50 switch; skipping')
    sys.exit(77)
np._set_promotion_state('weak')
warnings.simplefilter('ignore')

REAL = ['bool', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32',
        'int64', 'uint64', 'float16', 'float32', 'float64']
ALL = REAL + ['complex64', 'complex128']

OPS = ['sum', 'prod', 'min', 'max', 'mean', 'argmin', 'argmax', 'any', 'all',
       'nansum', 'nanprod', 'nanmin', 'nanmax', 'nanmean', 'nanargmin',
       'nanargmax', 'var', 'std', 'nanvar', 'nanstd', 'count_nonzero', 'ptp']
ORDER = ('min', 'max', 'nanmin', 'nanmax', 'ptp')
SHAPES = [(1,), (7,), (0,), (1, 1), (5, 1), (1, 4), (6, 5), (0, 3),
          (3, 1, 2), (2, 3, 4)]
D = tmpdir()


def run_pipeline(desc):
    """Runs a pipeline description in this process; None when it reached
    EOS, else the error's message."""
    Gst = gst()
    p = Gst.parse_launch(desc)
    p.set_state(Gst.State.PLAYING)
    msg = p.get_bus().timed_pop_filtered(
        60 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    if msg is None:
        raise Failure('did not end within 60 s: ' + desc)
    if msg.type == Gst.MessageType.ERROR:
        return msg.parse_error()[0].message
    return None


# ---- planreduce ----

def values(dtype, shape, rng, variant):
    """Random values of a dtype: integers over their whole range (sums and
    products wrap), floats of mixed magnitudes; variant 1 puts a NaN in,
    variant 2 infinities and signed zeros."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if dt == np.bool_:
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dt.kind in 'iu':
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        if n >= 3:
            a[:3] = [info.min, info.max, 0]
        return a.reshape(shape)
    real = np.dtype('f%d' % (dt.itemsize // 2)) if dt.kind == 'c' else dt
    f = (rng.standard_normal(n) * 10.0 ** rng.integers(-2, 3, n))
    if dt.kind == 'c':
        f = f + 1j * rng.standard_normal(n)
    f = f.astype(dt)
    if variant == 1 and n:
        f[rng.integers(0, n)] = np.nan
    if variant == 2 and n >= 4:
        f[:4] = np.array([np.inf, -0.0, 0.0, -np.inf]).astype(real)
    return f.reshape(shape)


def numpy_reduce(a, op, axis):
    """planreduce's result in numpy terms (docs/planreduce.md, Axes): all is
    axis=None, 0 is axis 0 (None on 1-D), -1 each row over its inner axes
    (numpy's axis=() on 1-D), 1 numpy's axis 1 of a 2-D array. Raises
    where numpy raises."""
    if axis == 'all' or (axis == '0' and a.ndim == 1):
        ax = None
    elif axis == '0':
        ax = 0
    elif axis == '1':
        ax = 1
    else:
        ax = tuple(range(1, a.ndim))
    with np.errstate(all='ignore'):
        if op == 'count_nonzero':
            return np.asarray(np.count_nonzero(a, axis=ax), dtype=np.int64)
        if 'arg' in op:
            f = getattr(np, op)
            if ax is None:
                return np.asarray(f(a), dtype=np.int64)
            rows = a if ax == 0 else a.reshape(
                a.shape[0], int(np.prod(a.shape[1:], dtype=np.int64)))
            if ax != 0 and rows.shape[1] == 1:
                if op.startswith('nan') and np.isnan(rows).any():
                    raise ValueError('All-NaN slice encountered')
                return np.zeros(a.shape[0], np.int64)
            return f(rows, axis=0 if ax == 0 else 1).astype(np.int64)
        return np.asarray(getattr(np, op)(a, axis=ax))


def reference(a, op, axis, dtype):
    """The exact value rounded to the result dtype, for the float ops
    planreduce computes in float64 and rounds once (docs/planreduce.md,
    Values): numpy's op on float64 (complex128) values."""
    wide = np.complex128 if a.dtype.kind == 'c' else np.float64
    if a.dtype.kind not in 'fc':
        wide = np.float64
    return numpy_reduce(a.astype(wide), op, axis).astype(dtype)


# The bounds the docs state, relative, by result dtype: sums and means are
# the float nearest the exact value or its neighbour, products within 2e-6
# (complex64) and 1e-12 (complex128), variances within 4e-7 (float32) and
# 1e-12 (float64), float16 within a float16 ulp.
RTOL = {'float16': 1e-3, 'float32': 4e-7, 'float64': 1e-12,
        'complex64': 2e-6, 'complex128': 1e-12}


def check_reduction(got, a, op, axis, what):
    want = numpy_reduce(a, op, axis)
    if got.dtype != want.dtype or got.shape != want.shape:
        raise Failure('%s: %s %s, numpy %s %s' % (what, got.dtype, got.shape,
                                                  want.dtype, want.shape))
    if got.dtype.kind in 'biu' or op in ORDER or 'arg' in op \
            or a.dtype.kind not in 'fc':
        if got.dtype.kind in 'biu':
            ok = got == want
        else:
            # numpy's own loops give either zero for min(0.0, -0.0), and
            # so may planreduce (docs/planreduce.md, Values)
            ok = (got == want) | (np.isnan(got) & np.isnan(want))
            if got.dtype.kind == 'f' and op not in ORDER:
                ok &= np.signbit(got) == np.signbit(want)
        if a.dtype.kind not in 'fc' and got.dtype.kind == 'f' \
                and op not in ORDER:
            # means and moments of integers: float64, as numpy's, within
            # rounding of the sums
            ok = np.isclose(got, want, rtol=1e-12, atol=0, equal_nan=True)
    else:
        ref = reference(a, op, axis, got.dtype)
        rtol = RTOL[got.dtype.name]
        with np.errstate(all='ignore'):
            ok = np.isclose(got, ref, rtol=rtol, atol=0, equal_nan=True)
            # the order ops of complex numbers stay exact; infinities must
            # be the same infinity
            ok |= (got == ref)
            fin = np.isfinite(ref)
            ok &= np.isfinite(got) == fin
            if got.dtype.kind == 'f':
                ok &= np.isnan(got) == np.isnan(ref)
    if not np.all(ok):
        i = np.argwhere(~np.asarray(ok))
        at = tuple(i[0]) if len(i) else ()
        raise Failure('%s: %d values differ, first at %s: got %r, numpy %r'
                      % (what, np.count_nonzero(~np.asarray(ok)), list(at),
                         got[at], want[at]))


def reduce_case(dtype):
    def run():
        rng = np.random.default_rng(ALL.index(dtype) * 101 + 7)
        k = 0
        full = os.environ.get('PLAN_ORACLE_FULL') == '1'
        for shape in SHAPES if full else SHAPES[ALL.index(dtype) % 2::2]:
            for variant in (0, 1, 2):
                if variant and np.dtype(dtype).kind not in 'fc':
                    continue
                a = values(dtype, shape, rng, variant)
                src = '%s/%s_%d.npy' % (D, dtype, k)
                k += 1
                np.save(src, a)
                axes = ['all', '0', '-1'] + (['1'] if a.ndim == 2 else [])
                for op in OPS:
                    if op == 'ptp' and dtype == 'bool':
                        continue
                    for axis in axes:
                        check_one(a, src, op, axis, dtype, shape, variant)
    return run


def check_one(a, src, op, axis, dtype, shape, variant):
    what = '%s axis=%s on %s %s (variant %d)' % (op, axis, dtype, shape,
                                                 variant)
    out = src[:-4] + '_out.npy'
    if os.path.exists(out):
        os.unlink(out)
    err = run_pipeline('planfilesrc location=%s ! planreduce op=%s axis=%s '
                       'post-messages=false ! planfilesink location=%s'
                       % (src, op, axis, out))
    try:
        numpy_reduce(a, op, axis)
        numpy_raises = None
    except ValueError as e:
        numpy_raises = e
    if numpy_raises is not None:
        if err is None:
            raise Failure('%s: numpy raises (%s), planreduce gave %r' %
                          (what, numpy_raises, np.load(out)))
        return
    if err is not None:
        raise Failure('%s failed: %s' % (what, err))
    check_reduction(np.load(out), a, op, axis, what)


# ---- planmap: targeted expressions, file to file ----

def numpy_cast(a, dtype):
    """docs/expressions.md, Casts: float to integer truncates, NaN gives 0,
    out of range saturates (numpy's result there is the CPU's)."""
    dt = np.dtype(dtype)
    if a.dtype.kind != 'f' or dt.kind not in 'iu':
        return a.astype(dt)
    info = np.iinfo(dt)
    t = np.trunc(a.astype(np.float64))
    out = np.zeros(a.shape, dt)
    lo, hi = t <= float(info.min), t >= float(info.max)
    mid = ~lo & ~hi & ~np.isnan(t)
    out[mid] = t[mid].astype(dt)
    out[lo] = info.min
    out[hi] = info.max
    return out


def int_samples(dtype):
    info = np.iinfo(dtype)
    v = [0, 1, 2, 3, 7, info.max, info.max - 1, info.min]
    if info.min < 0:
        v += [-1, -2, -3, -7, info.min + 1]
    return np.array(v, dtype)


FLOAT_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0,
                 -7.0, np.inf, -np.inf, np.nan, 1e10, -1e10, 2.0 ** 63,
                 -2.0 ** 63, 2.0 ** 64, 300.0, -129.0]


def pair_grid(a, b):
    ia, ib = np.meshgrid(np.arange(len(a)), np.arange(len(b)))
    return a[ia.ravel()], b[ib.ravel()]


def map_file(expr, x, y, what, want, zero_sign=True):
    """planmap expr on files x and y; compares with want bit for bit (NaN
    matching NaN; the sign of a zero too, with zero_sign)."""
    px, py, out = D + '/mx.npy', D + '/my.npy', D + '/mo.npy'
    np.save(px, x)
    np.save(py, y)
    if os.path.exists(out):
        os.unlink(out)
    err = run_pipeline('planmap name=m expr="%s" ! planfilesink location=%s '
                       'planfilesrc location=%s ! m.sink_0 '
                       'planfilesrc location=%s ! m.sink_1'
                       % (expr, out, px, py))
    if err is not None:
        raise Failure('%s: %s failed: %s' % (what, expr, err))
    got = np.load(out)
    same_values(got, np.asarray(want), '%s: %s' % (what, expr),
                {'x': x, 'y': y}, zero_sign=zero_sign)


def same_values(got, want, what, inputs, rtol=0.0, zero_sign=True):
    if got.dtype != want.dtype or got.shape != want.shape:
        raise Failure('%s: %s %s, numpy %s %s' % (what, got.dtype, got.shape,
                                                  want.dtype, want.shape))
    if got.dtype.kind in 'biu':
        ok = got == want
    else:
        with np.errstate(all='ignore'):
            gn, wn = np.isnan(got), np.isnan(want)
            if rtol:
                eq = np.isclose(got, want, rtol=rtol, atol=0) | (got == want)
            else:
                eq = got == want
                if zero_sign:
                    eq &= np.signbit(got) == np.signbit(want)
            ok = (gn & wn) | (~gn & ~wn & eq)
    if not np.all(ok):
        i = np.nonzero(~ok.ravel())[0][0]
        args = ', '.join('%s=%r' % (k, v.ravel()[i]) for k, v in inputs.items())
        raise Failure('%s: %d values differ, first at %s: got %r, numpy %r'
                      % (what, np.count_nonzero(~ok), args, got.ravel()[i],
                         want.ravel()[i]))


def test_integer_arithmetic():
    """Floor division and remainder (floor semantics, 0 for a zero
    divisor), wrap-around, shifts beyond the width, integer powers."""
    for dt in ['int8', 'uint8', 'int16', 'int32', 'uint32', 'int64',
               'uint64']:
        x, y = pair_grid(int_samples(dt), int_samples(dt))
        with np.errstate(all='ignore'):
            for expr, fn in [('x // y', np.floor_divide),
                             ('x % y', np.remainder),
                             ('x + y * y - x', lambda a, b: a + b * b - a),
                             ('x & y | x ^ ~y',
                              lambda a, b: a & b | a ^ ~b)]:
                want = fn(x, y)
                if expr in ('x // y', 'x % y'):
                    want = np.where(y == 0, want.dtype.type(0), want)
                map_file(expr, x, y, dt, want)
            sh = np.arange(-2, np.dtype(dt).itemsize * 8 + 3) % 256
            xs, ys = pair_grid(int_samples(dt), sh.astype(dt))
            for expr, fn in [('x << y', np.left_shift),
                             ('x >> y', np.right_shift)]:
                map_file(expr, xs, ys, dt + ' shifts', fn(xs, ys))
            e = np.arange(0, 9).astype(dt)
            xp, ep = pair_grid(int_samples(dt), e)
            map_file('x ** y', xp, ep, dt + ' powers', np.power(xp, ep))


def test_float_semantics():
    """Floor division, remainder and fmod of signed zeros, infinities and
    NaN; minimum/maximum propagate NaN, fmin/fmax ignore it; rounding
    halves to even; sqrt of a negative is NaN; casts out of range
    saturate."""
    for dt in ['float16', 'float32', 'float64']:
        s = np.array(FLOAT_SPECIAL).astype(dt)
        x, y = pair_grid(s, s)
        with np.errstate(all='ignore'):
            for expr, fn in [('x // y', np.floor_divide),
                             ('x % y', np.remainder), ('fmod(x, y)', np.fmod),
                             ('fmax(x, y) + fmin(x, y)',
                              lambda a, b: np.fmax(a, b) + np.fmin(a, b)),
                             ('isnan(minimum(x, y)) == isnan(maximum(x, y))',
                              lambda a, b: np.isnan(np.minimum(a, b)) ==
                              np.isnan(np.maximum(a, b))),
                             ('where(x < y, x, y) * 2',
                              lambda a, b: np.where(a < b, a, b) * 2),
                             ('clip(x, -1, y)', lambda a, b: np.clip(a, -1, b)),
                             ('rint(x) + floor(y) - ceil(x) * trunc(y)',
                              lambda a, b: np.rint(a) + np.floor(b) -
                              np.ceil(a) * np.trunc(b)),
                             ('sqrt(x) + abs(y)',
                              lambda a, b: np.sqrt(a) + np.abs(b))]:
                # which zero minimum(0.0, -0.0) and the like give is not
                # specified (numpy's SIMD and scalar loops differ)
                map_file(expr, x, y, dt, fn(x, y),
                         zero_sign=not any(f in expr for f in ZERO_SIGN))
            for to in ['int8', 'uint8', 'int32', 'uint64', 'int64']:
                map_file('%s(x) + %s(y)' % (to, to), x, y, dt,
                         numpy_cast(x, to) + numpy_cast(y, to))


def test_out_of_range_literal_in_float_loops():
    """A Python int outside an integer operand's range is no error where
    numpy computes in float (true division, arctan2, hypot, copysign,
    heaviside, logaddexp): numpy converts it to the float loop's dtype.
    planmap refused these ('the literal -5 is out of range for uint8')."""
    x = np.array([0, 1, 2, 100, 255], np.uint8)
    y = np.array([-128, -1, 0, 5, 127], np.int8)
    with np.errstate(all='ignore'):
        for expr, fn in [('x / -5 + y / 300', lambda a, b: a / -5 + b / 300),
                         ('-5 / (x + 1)', lambda a, b: -5 / (a + 1)),
                         ('copysign(x, -1) + heaviside(y, 1000)',
                          lambda a, b: np.copysign(a, -1) +
                          np.heaviside(b, 1000))]:
            map_file(expr, x, y, 'uint8, int8', fn(x, y))
        for expr, fn in [('arctan2(x, -1)', lambda a: np.arctan2(a, -1)),
                         ('hypot(x, 300)', lambda a: np.hypot(a, 300)),
                         ('logaddexp(x, -1)', lambda a: np.logaddexp(a, -1)),
                         ('logaddexp2(x, 70000)',
                          lambda a: np.logaddexp2(a, 70000))]:
            for a in (x, y, x.astype(np.uint16)):
                want = fn(a)
                got = Expr(expr, {'x': a.dtype}).eval({'x': a})
                same_values(got, want, '%s on %s' % (expr, a.dtype),
                            {'x': a}, rtol=2e-3 if want.dtype == np.float16
                            else 3e-7)


def test_comparisons_with_out_of_range_literals():
    """A literal outside the integer operand's range compares exactly, as
    numpy 2 compares Python ints: int64 against 2**63 to 2**64 - 1 was
    computed in float64, where 2**63 - 1 rounds to 2**63 and compared equal
    to it."""
    for dt in ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64',
               'uint64']:
        info = np.iinfo(dt)
        x = int_samples(dt)
        lits = sorted({0, 1000, -1000, 2 ** 63 - 1, 2 ** 63, 2 ** 63 + 1,
                       2 ** 64 - 1, -2 ** 63, info.max, info.max + 1,
                       info.min - 1, 2 ** 53 + 1})
        lits = [v for v in lits if -2 ** 63 <= v <= 2 ** 64 - 1]
        for lit in lits:
            for op in ['<', '<=', '>', '>=', '==', '!=']:
                for src, fn in [('x %s %d' % (op, lit),
                                 lambda v: eval('%d %s %d' % (v, op, lit))),
                                ('(%d) %s x' % (lit, op),
                                 lambda v: eval('%d %s %d' % (lit, op, v)))]:
                    want = np.array([fn(int(v)) for v in x])
                    got = Expr(src, {'x': x.dtype}).eval({'x': x})
                    same_values(got, want, '%s on %s' % (src, dt), {'x': x})
    x = int_samples('int64')
    map_file('(x < 9223372036854775808) & (x != 18446744073709551615)', x, x,
             'int64', np.ones(len(x), bool))


# ---- random expressions through the evaluator ----

BINOPS = {'+': np.add, '-': np.subtract, '*': np.multiply,
          '/': np.true_divide, '//': np.floor_divide, '%': np.remainder,
          '**': np.power, '&': np.bitwise_and, '|': np.bitwise_or,
          '^': np.bitwise_xor, '<<': np.left_shift, '>>': np.right_shift,
          '<': np.less, '<=': np.less_equal, '==': np.equal,
          '!=': np.not_equal, '>': np.greater, '&&': np.logical_and,
          '||': np.logical_or}
UNARY = ['abs', 'negative', 'sqrt', 'floor', 'ceil', 'trunc', 'rint',
         'square', 'sign', 'exp', 'log', 'sin', 'isnan', 'isfinite',
         'signbit', 'fabs', 'reciprocal', 'cbrt', 'logical_not', 'invert',
         'nan_to_num', 'expm1', 'log1p', 'tanh', 'arctan', 'deg2rad',
         'positive', 'conj']
BINFUNCS = ['minimum', 'maximum', 'fmin', 'fmax', 'fmod', 'arctan2', 'hypot',
            'copysign', 'logaddexp', 'float_power', 'logical_xor',
            'heaviside']
# not correctly rounded: compared within a tolerance
INEXACT = {'/', '**', 'sqrt', 'exp', 'log', 'sin', 'cbrt', 'expm1', 'log1p',
           'tanh', 'arctan', 'deg2rad', 'arctan2', 'hypot', 'logaddexp',
           'float_power', 'reciprocal'}
# which zero minimum(0.0, -0.0) gives is not specified (numpy's neither)
ZERO_SIGN = {'minimum', 'maximum', 'fmin', 'fmax', 'clip'}


class Skip(Exception):
    pass


def literal(r):
    c = r.random()
    if c < 0.5:
        return ('lit', r.choice([0, 1, 2, 3, 5, 7, 100]))
    if c < 0.85:
        return ('lit', r.choice([0.5, 1.5, 2.0, 0.25, 3.0, 1e3]))
    return ('lit', -r.choice([1, 2, 3, 1.5]))


def gen(r, depth):
    if depth == 0 or r.random() < 0.25:
        return ('name', r.choice('xyz'))
    c = r.random()
    if c < 0.45:
        op = r.choice(sorted(BINOPS))
        a = gen(r, depth - 1)
        if r.random() < 0.35:
            b = literal(r)
            if op == '**' and (not isinstance(b[1], int) or b[1] < 0):
                b = ('lit', r.choice([0, 1, 2, 3]))
            return ('bin', op, b, a) if r.random() < 0.5 and op != '**' \
                else ('bin', op, a, b)
        return ('bin', op, a, gen(r, depth - 1))
    if c < 0.7:
        return ('un', r.choice(UNARY), gen(r, depth - 1))
    if c < 0.8:
        return ('bf', r.choice(BINFUNCS), gen(r, depth - 1),
                gen(r, depth - 1) if r.random() < 0.7 else literal(r))
    if c < 0.88:
        return ('where', gen(r, depth - 1), gen(r, depth - 1),
                gen(r, depth - 1))
    if c < 0.93:
        return ('clip', gen(r, depth - 1), gen(r, depth - 1),
                gen(r, depth - 1))
    return ('cast', r.choice(REAL), gen(r, depth - 1))


def source(n):
    k = n[0]
    if k == 'name':
        return n[1]
    if k == 'lit':
        return '(%r)' % n[1] if n[1] < 0 else repr(n[1])
    if k == 'bin':
        return '(%s %s %s)' % (source(n[2]), n[1], source(n[3]))
    if k == 'un':
        return '%s(%s)' % (n[1], source(n[2]))
    if k == 'cast':
        return '%s(%s)' % (n[1], source(n[2]))
    return '%s(%s)' % (n[0] if k in ('where', 'clip') else n[1],
                       ', '.join(source(a) for a in n[1 + (k == 'bf'):]))


def evaluate(n, env, used):
    """numpy's value of the tree, with the documented differences:
    rounding functions keep integers as they are, reciprocal(0) of an
    integer is 0, float to integer casts saturate, and three-operand
    promotion is numpy 2's (a literal meets the operands' promotion)."""
    k = n[0]
    if k == 'name':
        return env[n[1]]
    if k == 'lit':
        return n[1]
    if k == 'cast':
        used.add('cast')
        return numpy_cast(np.asarray(evaluate(n[2], env, used)), n[1])
    if k in ('where', 'clip'):
        a, b, c = [evaluate(m, env, used) for m in n[1:]]
        used.add(k)
        if k == 'where':
            return np.where(a, b, c).astype(np.result_type(b, c))
        s = np.result_type(np.result_type(b, c), a) \
            if not isinstance(a, np.ndarray) else np.result_type(a, b, c)
        if s.kind == 'c':
            raise Skip()
        return np.minimum(np.maximum(a, b, dtype=s), c, dtype=s)
    used.add(n[1])
    if k == 'un':
        a = evaluate(n[2], env, used)
        f = n[1]
        if f in ('floor', 'ceil', 'trunc', 'rint') and a.dtype.kind in 'biu':
            return a.copy()
        if f == 'reciprocal' and a.dtype.kind in 'biu':
            b = a.astype(np.int8) if a.dtype == np.bool_ else a
            return np.where(b == 0, 0, np.reciprocal(np.where(b == 0, 1, b))
                            ).astype(b.dtype)
        return getattr(np, f)(a)
    a = evaluate(n[2], env, used)
    b = evaluate(n[3], env, used)
    if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
        raise Skip()  # literal-only arithmetic is Python's
    if k == 'bf':
        return getattr(np, n[1])(a, b)
    op = n[1]
    if op in ('<', '<=', '==', '!=', '>'):
        for arr, lit in ((a, b), (b, a)):
            if isinstance(lit, int) and arr.dtype.kind in 'iu':
                info = np.iinfo(arr.dtype)
                if not info.min <= lit <= info.max:
                    # compared exactly, as numpy 2 does
                    ao = a.astype(object) if isinstance(a, np.ndarray) else a
                    bo = b.astype(object) if isinstance(b, np.ndarray) else b
                    return BINOPS[op](ao, bo).astype(bool)
    s = np.result_type(a, b)
    if op == '**':
        if isinstance(b, np.ndarray) and s.kind in 'iu' and np.any(b < 0):
            raise Skip()  # numpy raises; documented: 0, 1 or -1
        if not isinstance(b, np.ndarray) and isinstance(a, np.ndarray):
            if a.dtype == np.bool_ and isinstance(b, int):
                return np.power(a, b, dtype=np.int64)
            return a ** b
    if s == np.bool_ and op in ('//', '%', '**', '<<', '>>'):
        return BINOPS[op](a, b, dtype=np.int8)
    return BINOPS[op](a, b)


def samples(dtype, rng, n=40):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind in 'iu':
        s = int_samples(dt)
        small = rng.integers(max(np.iinfo(dt).min, -9), 10, n // 2)
        wide = rng.integers(np.iinfo(dt).min, np.iinfo(dt).max,
                            n - n // 2 - len(s), dtype=dt, endpoint=True)
        return np.concatenate([s, small.astype(dt), wide])
    v = np.concatenate([rng.normal(0, 4, n // 2), rng.normal(0, 1e4, n // 2)])
    v[::5] = np.round(v[::5])
    v[:10] = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, np.inf, -np.inf, np.nan, 3.0]
    return v.astype(dt)


def ulps(a, b):
    it = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    m = np.int64((1 << (8 * a.dtype.itemsize - 1)) - 1)
    ia, ib = a.view(it).astype(np.int64), b.view(it).astype(np.int64)
    ia = np.where(ia < 0, -(ia & m), ia)
    ib = np.where(ib < 0, -(ib & m), ib)
    return np.abs(ia - ib)


def test_random_expressions():
    seed = int(os.environ.get('PLAN_ORACLE_SEED', '20261203'))
    count = int(os.environ.get('PLAN_ORACLE_N', '600'))
    r = random.Random(seed)
    rng = np.random.default_rng(seed)
    bad, checked = [], 0
    for _ in range(count):
        dts = {k: r.choice(REAL) for k in 'xyz'}
        tree = gen(r, r.choice([1, 2, 2, 3]))
        src = source(tree)
        env = {k: samples(dts[k], rng) for k in 'xyz'}
        used = set()
        try:
            with np.errstate(all='ignore'):
                want = np.asarray(evaluate(tree, env, used))
            numpy_error = None
        except Skip:
            continue
        except (TypeError, ValueError, OverflowError) as e:
            numpy_error = e
        try:
            got = Expr(src, dts).eval(env)
            ours = None
        except ExprError as e:
            ours = e
        checked += 1
        what = '%s with %s' % (src, dts)
        if numpy_error is not None or ours is not None:
            if (numpy_error is None) != (ours is None):
                bad.append('%s: numpy %s, ours %s' % (
                    what, 'raises %r' % numpy_error if numpy_error else 'ok',
                    'an error: %s' % ours.message.splitlines()[0] if ours
                    else 'ok'))
            continue
        if want.shape == ():
            want = np.full(len(got), want)
        if used & ZERO_SIGN and want.dtype == got.dtype \
                and want.dtype.kind == 'f':
            # the zero they give may differ in sign, and so may what
            # follows from it (1 / -0.0 is -inf)
            with np.errstate(all='ignore'):
                want = np.where(got == -want, got, want)
        try:
            if want.dtype.kind == 'f' and used & INEXACT:
                # the float functions' bounds compound through the tree
                rtol = 4e-3 if want.dtype == np.float16 else 2e-5
                if want.dtype == got.dtype:
                    close = ulps(got, want) <= 4
                    want = np.where(close, got, want)
                same_values(got, want, what, env, rtol=rtol)
            else:
                same_values(got, want, what, env,
                            zero_sign=not used & ZERO_SIGN)
        except Failure as e:
            bad.append(str(e))
    if bad:
        raise Failure('%d of %d expressions differ from numpy:\n  %s' %
                      (len(bad), checked, '\n  '.join(bad[:20])))
    print('     %d random expressions match numpy' % checked)


cases = [('reduce ' + dt, reduce_case(dt)) for dt in ALL]
cases += [(f.__name__, f) for f in (
    test_integer_arithmetic, test_float_semantics,
    test_out_of_range_literal_in_float_loops,
    test_comparisons_with_out_of_range_literals, test_random_expressions)]
run_cases(cases)
