#!/usr/bin/env python3
# gst-plan: the expression evaluator against numpy (Debian's numpy 1.24 with
# NEP 50 "weak" promotion switched on, which is numpy 2's behaviour).
#
# For every operator and function, and every dtype (pair), the result dtype
# and the values of plan_expr_eval() must match numpy's:
#   - exactly (bit for bit, NaN matching NaN, the sign of zero included)
#     for integer operations, float arithmetic, comparisons, rounding,
#     floor division, remainder, casts and selections;
#   - within a stated ulp bound for transcendental functions, against the
#     float64 result rounded to float32 for float32 (ULP_F32 below) and
#     against numpy for float64 (ULP_F64);
#   - for float16, which numpy (and we) compute in float32 and round after
#     every operation, with the C library's float32 functions where numpy's
#     float16 loops use them: exactly, every float16 value through every
#     function and cast (test_float16_every_value);
# with NaN, +-inf, -0.0, subnormals, integer extremes (overflow, division
# by zero, shifts beyond the width) among the inputs. Where the language
# documents a difference from numpy (docs/expressions.md, "Differences from
# numpy"), the test checks the documented behaviour instead.

import itertools
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from planexpr_ctypes import Expr, ExprError  # noqa: E402

if not hasattr(np, '_set_promotion_state'):
    print('numpy has no NEP 50 switch; skipping')
    sys.exit(77)
np._set_promotion_state('weak')
warnings.simplefilter('ignore')

ALL = ['bool', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32',
       'int64', 'uint64', 'float16', 'float32', 'float64']
INTS = ALL[1:9]
FLOATS = ['float16', 'float32', 'float64']

# Stated accuracy of the float functions (ulp). float32 sin, cos, exp, log
# are our own vectorised code (sin and cos within 2 ulp with FMA, 1 ulp
# without); the others are glibc's.
ULP_F32 = {'sin': 2, 'cos': 2, 'exp': 1, 'log': 1}
ULP_F32_DEFAULT = 2
ULP_F64 = 4
# float64 against long double references: sin, cos, exp, log are our own
# vectorised code, the others glibc's (cbrt is 3 ulp off in places).
ULP_F64_LD = {'sin': 1, 'cos': 1, 'exp': 1, 'log': 1}
ULP_F64_LD_DEFAULT = 4
# float16 (where the float64 result rounded to float16 is the reference):
# the C library's float32 function rounded to float16.
ULP_F16 = 1

rng = np.random.default_rng(20261130)
failures = []
checked = 0


def fail(msg):
    failures.append(msg)
    if len(failures) <= 40:
        print('FAIL:', msg)


def samples(dtype, n=300, kind='any'):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return np.array([False, True] * (n // 2))
    if dt.kind in 'iu':
        info = np.iinfo(dt)
        special = [0, 1, 2, 3, 7, info.max, info.max - 1, info.min,
                   info.min + 1]
        if dt.kind == 'i':
            special += [-1, -2, -3, -7, -8]
        small = rng.integers(max(info.min, -20), min(info.max, 20), n // 3,
                             dtype=dt, endpoint=True)
        wide = rng.integers(info.min, info.max, n - n // 3 - len(special),
                            dtype=dt, endpoint=True)
        return np.concatenate([np.array(special, dt), small, wide])
    f = dt.type
    tiny = np.finfo(dt).tiny
    special = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.5, np.inf,
               -np.inf, np.nan, tiny, -tiny, tiny / 4, np.finfo(dt).max,
               -np.finfo(dt).max, 3.0, 7.0, -7.0, 1e10, -1e10, 127.5, 128.0,
               -129.0, 255.9, 65536.5, 2.0 ** 31, -2.0 ** 31, 2.0 ** 63,
               2.0 ** 64]
    if kind == 'pos':
        vals = np.exp(rng.uniform(-80, 80, n - len(special)))
    elif kind == 'unit':
        vals = rng.uniform(-1, 1, n - len(special))
    elif kind == 'trig':
        vals = np.concatenate([rng.uniform(-10, 10, (n - len(special)) // 2),
                               rng.uniform(-1e6, 1e6, (n - len(special))
                                           - (n - len(special)) // 2)])
    else:
        vals = np.concatenate([rng.normal(0, 10, (n - len(special)) // 2),
                               rng.normal(0, 1e6, (n - len(special))
                                          - (n - len(special)) // 2)])
    return np.concatenate([np.array(special, dtype=np.float64).astype(f),
                           vals.astype(f)])


def pairs(da, db, n=240):
    a, b = samples(da, n), samples(db, n)
    # every special value against every other, plus random pairs
    ia, ib = np.meshgrid(np.arange(40), np.arange(40))
    a2 = np.concatenate([a[:40][ia.ravel()], a])
    b2 = np.concatenate([b[:40][ib.ravel()], rng.permutation(b)])
    return a2, b2


def same(got, want, exact=True, ulp=0, ignore_zero_sign=False):
    """Elementwise equality; returns the index of the first mismatch."""
    if got.dtype != want.dtype:
        return 'dtype'
    if got.dtype.kind in 'biu':
        bad = np.nonzero(got != want)[0]
        return bad[0] if len(bad) else None
    gn, wn = np.isnan(got), np.isnan(want)
    bad = gn != wn
    ok = ~gn & ~wn
    if exact and ulp == 0:
        eq = got == want
        if not ignore_zero_sign:
            eq &= np.signbit(got) == np.signbit(want)
        bad |= ok & ~eq
    else:
        bad |= ok & (ulps(got, want) > ulp)
    bad = np.nonzero(bad)[0]
    return bad[0] if len(bad) else None


def ulps(a, b):
    if a.dtype == np.float16:
        ia = a.view(np.uint16).astype(np.int64)
        ib = b.view(np.uint16).astype(np.int64)
        ia = np.where(ia & 0x8000, -(ia & 0x7fff), ia)
        ib = np.where(ib & 0x8000, -(ib & 0x7fff), ib)
        return np.where(np.isinf(a) != np.isinf(b), 1 << 40,
                        np.abs(ia - ib))
    it = np.int32 if a.dtype == np.float32 else np.int64
    ia, ib = a.view(it).astype(np.int64), b.view(it).astype(np.int64)
    big = np.int64(1) << (31 if it == np.int32 else 62)
    ia = np.where(ia < 0, -(ia & (big * 2 - 1 if it == np.int32 else
                                  np.int64(0x7fffffffffffffff))), ia)
    ib = np.where(ib < 0, -(ib & (big * 2 - 1 if it == np.int32 else
                                  np.int64(0x7fffffffffffffff))), ib)
    d = np.abs(ia - ib)
    # inf against a finite value is never within a small bound
    d = np.where(np.isinf(a) != np.isinf(b), 1 << 40, d)
    return d


def run(src, arrays, names=None):
    names = names or {k: v.dtype for k, v in arrays.items()}
    e = Expr(src, names)
    return e.eval(arrays)


def compare(src, arrays, want, label, **kw):
    global checked
    checked += 1
    try:
        got = run(src, arrays)
    except ExprError as e:
        fail('%s: %s does not compile: %s' % (label, src, e.message))
        return
    k = same(got, want, **kw)
    if k == 'dtype':
        fail('%s: %s gives %s, numpy %s' % (label, src, got.dtype,
                                            want.dtype))
    elif k is not None:
        args = ', '.join('%s=%r' % (n, a[k]) for n, a in arrays.items())
        fail('%s: %s at %s: got %r, numpy %r' % (label, src, args, got[k],
                                                 want[k]))


def numpy_or_error(fn):
    try:
        return fn()
    except (TypeError, ValueError, OverflowError, np.core._exceptions
            ._UFuncNoLoopError):
        return None


def expect_error(src, names, label):
    global checked
    checked += 1
    try:
        Expr(src, names)
    except ExprError:
        return
    fail('%s: %s compiles, but numpy raises' % (label, src))


def float_for(dt):
    """The dtype float functions compute an integer operand in (numpy's:
    the smallest float that holds it exactly)."""
    dt = np.dtype(dt)
    if dt.kind == 'f':
        return dt
    if dt.itemsize == 1:
        return np.dtype('float16')
    return np.dtype('float32') if dt.itemsize <= 2 else np.dtype('float64')


def float_for2(da, db):
    """The dtype a float function of two operands computes in: numpy's
    first float loop both cast to safely, the wider of each one's float
    (arctan2 of int8 and uint8 is float16, not float_for of their
    promotion int16). Checked against numpy's own choice."""
    ft = max(float_for(da), float_for(db), key=lambda d: d.itemsize)
    assert np.arctan2(np.ones(1, da), np.ones(1, db)).dtype == ft
    return ft


def rounded_ref(fn, ft, *args):
    """The float64 result of fn rounded to ft, and the bound against it."""
    ref = fn(*[a.astype(np.float64) for a in args]).astype(ft)
    return ref, ULP_F16 if ft == np.float16 else ULP_F32_DEFAULT


def strided(a):
    """a as a view with a stride of two elements."""
    b = np.empty(2 * len(a), a.dtype)
    b[::2] = a
    return b[::2]


def numpy_f16(fn, *args):
    """numpy's float16 loop: fn on strided float16 operands. numpy 1.24
    computes a float16 function by converting each value to float32,
    calling the C library's float32 function (sinf, expf, ...) and rounding
    to float16; on CPUs with AVX-512 it has vectorised loops (Intel's SVML)
    for contiguous arrays of some functions, which strided operands avoid."""
    return fn(*[strided(a) for a in args])


# ---- binary operators, every dtype pair ----

BINARY = [
    ('+', np.add), ('-', np.subtract), ('*', np.multiply),
    ('/', np.true_divide), ('//', np.floor_divide), ('%', np.remainder),
    ('<<', np.left_shift), ('>>', np.right_shift), ('&', np.bitwise_and),
    ('|', np.bitwise_or), ('^', np.bitwise_xor), ('<', np.less),
    ('<=', np.less_equal), ('>', np.greater), ('>=', np.greater_equal),
    ('==', np.equal), ('!=', np.not_equal), ('&&', np.logical_and),
    ('||', np.logical_or),
]

BINARY_FUNCS = [
    ('minimum', np.minimum), ('maximum', np.maximum), ('fmin', np.fmin),
    ('fmax', np.fmax), ('fmod', np.fmod), ('pow', np.power),
]


def test_binary():
    for da, db in itertools.product(ALL, ALL):
        a, b = pairs(da, db)
        arrays = {'a': a, 'b': b}
        names = {'a': da, 'b': db}
        for op, fn in BINARY + [('**', np.power)]:
            src = 'a %s b' % op
            check_binary(src, fn, arrays, names, da, db)
        for name, fn in BINARY_FUNCS:
            check_binary('%s(a, b)' % name, fn, arrays, names, da, db)


def check_binary(src, fn, arrays, names, da, db):
    a, b = arrays['a'], arrays['b']
    label = '%s,%s' % (da, db)
    is_pow = 'pow' in src or '**' in src
    want = numpy_or_error(lambda: fn(a[:1], b[:1]))
    if want is None:
        expect_error(src, names, label)
        return
    if is_pow and want.dtype.kind in 'iu':
        # numpy raises for negative integer exponents; we define them
        # (docs): compare the others.
        keep = ~(b < 0) if np.dtype(db).kind in 'iu' else \
            np.ones(len(b), bool)
        arrays = {'a': a[keep], 'b': b[keep]}
        a, b = arrays['a'], arrays['b']
    want = fn(a, b)
    if want.dtype == np.float16:
        # numpy's float16 loop, bit for bit (** is powf's, rounded)
        compare(src, arrays, numpy_f16(fn, a.astype(np.float16),
                                       b.astype(np.float16)), label,
                ignore_zero_sign='min' in src or 'max' in src)
        return
    if want.dtype.kind == 'f' and is_pow:
        compare(src, arrays, want, label, exact=False,
                ulp={np.dtype('float16'): ULP_F16,
                     np.dtype('float32'): ULP_F32_DEFAULT}.get(want.dtype,
                                                                ULP_F64))
        return
    compare(src, arrays, want, label,
            ignore_zero_sign='min' in src or 'max' in src)


def test_negative_integer_power():
    for dt in ['int8', 'int32', 'int64']:
        base = np.array([2, 1, -1, -1, 0, 5], dt)
        exp = np.array([-1, -5, -3, -4, -2, -1], dt)
        got = run('a ** b', {'a': base, 'b': exp})
        want = np.array([0, 1, -1, 1, 0, 0], dt)
        if not np.array_equal(got, want):
            fail('%s ** negative: got %r, documented %r' % (dt, got, want))


# ---- weak literals (NEP 50) ----

def test_weak_literals():
    for dt in ALL:
        a = samples(dt, 60)
        for src, fn in [('a + 1', lambda a: a + 1), ('a * 2.5',
                        lambda a: a * 2.5), ('a - 3', lambda a: a - 3),
                        ('2 * a', lambda a: 2 * a), ('a / 2',
                        lambda a: a / 2), ('a > 1', lambda a: a > 1),
                        ('a ** 2', lambda a: a ** 2),
                        ('a ** 2.0', lambda a: a ** 2.0),
                        ('maximum(a, 0)', lambda a: np.maximum(a, 0)),
                        # numpy 1.24 applies NEP 50 to ufuncs only; numpy
                        # 2 (and we) keep a's dtype in where() too.
                        ('where(a > 0, a, 0)',
                         lambda a: np.where(a > 0, a, 0 if a.dtype == bool
                                            else a.dtype.type(0))),
                        ('a // 4', lambda a: a // 4),
                        ('a % 3', lambda a: a % 3),
                        ('1.5 + a * 0.5', lambda a: 1.5 + a * 0.5)]:
            want = numpy_or_error(lambda: fn(a))
            if dt == 'bool' and src.startswith('a ** 2'):
                # numpy 1.24's weak mode picks int8 for bool ** literal,
                # unlike for the other operators (bool + 1 is int64, bool *
                # 1.0 float64); we are consistent.
                want = a.astype(np.int64 if src == 'a ** 2'
                                else np.float64) ** 2
            if want is None:
                expect_error(src, {'a': dt}, dt)
            else:
                # a ** 2 is exact (computed as a * a, as numpy does)
                compare(src, {'a': a}, want, dt,
                        ignore_zero_sign='maximum' in src)


def test_float_scalar_powers():
    """x ** k for a float x and a literal k of 0.5, -1, 0, 1, 2 is
    ndarray.__pow__'s fast path, sqrt(x), reciprocal(x), ones, x,
    square(x): bit for bit (sqrt(-0) is -0, sqrt(-inf) NaN)."""
    for dt in FLOATS:
        a = samples(dt, 600)
        for k in ['0.5', '-1', '-1.0', '0', '1', '1.0', '2', '0.0']:
            src = 'a ** %s' % k
            compare(src, {'a': a}, eval(src), dt)


# ---- unary operators and functions ----

UNARY_OPS = [('-a', np.negative), ('~a', np.invert), ('!a', np.logical_not),
             ('abs(a)', np.absolute), ('sign(a)', np.sign),
             ('isnan(a)', np.isnan), ('isinf(a)', np.isinf),
             ('isfinite(a)', np.isfinite)]

FLOAT_FUNCS = [('sqrt', np.sqrt, 'pos'), ('cbrt', np.cbrt, 'any'),
               ('exp', np.exp, 'any'), ('exp2', np.exp2, 'any'),
               ('expm1', np.expm1, 'any'), ('log', np.log, 'pos'),
               ('log2', np.log2, 'pos'), ('log10', np.log10, 'pos'),
               ('log1p', np.log1p, 'pos'), ('sin', np.sin, 'trig'),
               ('cos', np.cos, 'trig'), ('tan', np.tan, 'trig'),
               ('asin', np.arcsin, 'unit'), ('acos', np.arccos, 'unit'),
               ('atan', np.arctan, 'any'), ('sinh', np.sinh, 'unit'),
               ('cosh', np.cosh, 'unit'), ('tanh', np.tanh, 'any'),
               ('asinh', np.arcsinh, 'any'), ('acosh', np.arccosh, 'pos'),
               ('atanh', np.arctanh, 'unit')]

ROUND_FUNCS = [('floor', np.floor), ('ceil', np.ceil), ('rint', np.rint),
               ('round', np.round), ('trunc', np.trunc)]

EXACT_FLOAT_FUNCS = {'sqrt'}


def test_unary():
    for dt in ALL:
        a = samples(dt, 400)
        for src, fn in UNARY_OPS:
            want = numpy_or_error(lambda: fn(a))
            if want is None:
                expect_error(src, {'a': dt}, dt)
            else:
                compare(src, {'a': a}, want, dt)
        for name, fn in ROUND_FUNCS:
            # integers: returned unchanged, in their own dtype (docs)
            want = fn(a) if np.dtype(dt).kind == 'f' else a
            compare('%s(a)' % name, {'a': a}, want, dt)


def test_float_functions():
    for dt in ALL:
        for name, fn, kind in FLOAT_FUNCS:
            a = samples(dt, 3000, kind)
            ft = float_for(dt)
            label = '%s(%s)' % (name, dt)
            if name in EXACT_FLOAT_FUNCS:
                compare('%s(a)' % name, {'a': a}, fn(a.astype(ft)), label)
                continue
            if ft == np.float16:
                compare('%s(a)' % name, {'a': a},
                        numpy_f16(fn, a.astype(ft)), label)
                ref, ulp = rounded_ref(fn, ft, a.astype(ft))
                compare('%s(a)' % name, {'a': a}, ref, label, exact=False,
                        ulp=ulp)
            elif ft == np.float32:
                # against the float64 result rounded to float32
                ref = fn(a.astype(np.float64)).astype(np.float32)
                compare('%s(a)' % name, {'a': a}, ref, label, exact=False,
                        ulp=ULP_F32.get(name, ULP_F32_DEFAULT))
            else:
                # against numpy's x87 long double result rounded to float64
                ref = fn(a.astype(ft).astype(np.longdouble))
                ref = ref.astype(np.float64)
                compare('%s(a)' % name, {'a': a}, ref, label, exact=False,
                        ulp=ULP_F64_LD.get(name, ULP_F64_LD_DEFAULT))


def test_signed_zeros():
    """Every function of ±0, ±inf and NaN, bit for bit as numpy (NaN as
    NaN): the ulp comparisons above do not see the sign of a zero, and the
    odd functions keep it (sin(-0) is -0). Zeros alone too: a block with
    an infinity or NaN may take another path (the C library's)."""
    for dt in FLOATS:
        for vals in [[-0.0, 0.0], [-0.0, 0.0, np.inf, -np.inf, np.nan]]:
            a = np.array(vals * 300, dt)
            for name, fn, _ in FLOAT_FUNCS:
                compare('%s(a)' % name, {'a': a}, fn(a), '%s(%s) of %s' % (
                    name, dt, vals))


def test_float_binary_functions():
    for da, db in itertools.product(ALL, ALL):
        a, b = pairs(da, db)
        ft = float_for2(da, db)
        for name, fn in [('atan2', np.arctan2), ('hypot', np.hypot)]:
            label = '%s,%s' % (da, db)
            if ft == np.float16:
                # numpy's float16 loop (bit for bit), and within 1 ulp of
                # the float64 result rounded
                compare('%s(a, b)' % name, {'a': a, 'b': b},
                        numpy_f16(fn, a.astype(ft), b.astype(ft)), label)
                ref, ulp = rounded_ref(fn, ft, a.astype(ft), b.astype(ft))
                compare('%s(a, b)' % name, {'a': a, 'b': b}, ref, label,
                        exact=False, ulp=ulp)
            elif ft == np.float32:
                ref = fn(a.astype(np.float64), b.astype(np.float64))
                ref = ref.astype(np.float32)
                compare('%s(a, b)' % name, {'a': a, 'b': b}, ref, label,
                        exact=False, ulp=ULP_F32_DEFAULT)
            else:
                compare('%s(a, b)' % name, {'a': a, 'b': b},
                        fn(a.astype(ft), b.astype(ft)), label, exact=False,
                        ulp=ULP_F64)


# ---- casts ----

def test_casts():
    for src_dt, dst_dt in itertools.product(ALL, ALL):
        a = samples(src_dt, 400)
        want = a.astype(dst_dt)
        if np.dtype(src_dt).kind == 'f' and np.dtype(dst_dt).kind in 'iu':
            # numpy leaves NaN and out-of-range values to the CPU; we
            # saturate (docs): compare the in-range values, check the rest.
            info = np.iinfo(dst_dt)
            t = np.trunc(a.astype(np.float64))
            # the bounds as exact powers of two: [min, max + 1)
            inr = ~np.isnan(a) & (t >= float(info.min)) & \
                (t < 2.0 ** info.bits / (2 if info.min < 0 else 1))
            compare('%s(a)' % dst_dt, {'a': a[inr]}, want[inr],
                    '%s->%s' % (src_dt, dst_dt))
            got = run('%s(a)' % dst_dt, {'a': a})
            sat = np.full(len(a), info.max, dtype=dst_dt)
            sat[t < float(info.min)] = info.min
            sat[np.isnan(a)] = 0
            if not np.array_equal(got[~inr], sat[~inr]):
                fail('%s->%s: saturation' % (src_dt, dst_dt))
        else:
            compare('%s(a)' % dst_dt, {'a': a}, want,
                    '%s->%s' % (src_dt, dst_dt))


# ---- selections ----

def test_where_and_clip():
    c = rng.integers(0, 2, 520).astype(bool)
    for da, db in itertools.product(ALL, ALL):
        a, b = pairs(da, db)
        cc = np.resize(c, len(a))
        arrays = {'c': cc, 'a': a, 'b': b}
        label = '%s,%s' % (da, db)
        compare('where(c, a, b)', arrays, np.where(cc, a, b), label)
        compare('c ? a : b', arrays, np.where(cc, a, b), label)
    for dt in ALL[1:]:
        a = samples(dt, 400)
        lo, hi = (-3, 100) if np.dtype(dt).kind != 'u' else (3, 100)
        want = np.clip(a, lo, hi)
        compare('clip(a, %d, %d)' % (lo, hi), {'a': a}, want, dt,
                ignore_zero_sign=True)
    # Three arrays: numpy's result_type of the three, which is not the
    # pairwise one (int8, uint8, float16 is float16, not float32).
    for da, db, dc in [('int8', 'uint8', 'float16'),
                       ('uint16', 'int8', 'float32'),
                       ('float16', 'int16', 'uint16'),
                       ('int32', 'uint32', 'float32'), ('int8', 'uint8', 'int8')]:
        a = np.arange(-20, 20).astype(da) if da[0] != 'u' else np.arange(40).astype(da)
        lo = np.full(40, 3).astype(db)
        hi = np.full(40, 12.5 if np.dtype(dc).kind == 'f' else 12).astype(dc)
        compare('clip(a, b, c)', {'a': a, 'b': lo, 'c': hi},
                np.clip(a, lo, hi), '%s,%s,%s' % (da, db, dc),
                ignore_zero_sign=True)


# ---- numpy's names, the np. prefix and the ufuncs added for them ----

# numpy's (and numexpr's) name -> the language's own spelling of it.
ALIASES = [
    ('arcsin(a)', 'asin(a)'), ('arccos(a)', 'acos(a)'),
    ('arctan(a)', 'atan(a)'), ('arctan2(a, b)', 'atan2(a, b)'),
    ('arcsinh(a)', 'asinh(a)'), ('arccosh(a)', 'acosh(a)'),
    ('arctanh(a)', 'atanh(a)'), ('absolute(a)', 'abs(a)'),
    ('power(a, b)', 'a ** b'), ('true_divide(a, b)', 'a / b'),
    ('divide(a, b)', 'a / b'), ('floor_divide(a, b)', 'a // b'),
    ('remainder(a, b)', 'a % b'), ('mod(a, b)', 'a % b'),
    ('add(a, b)', 'a + b'), ('subtract(a, b)', 'a - b'),
    ('multiply(a, b)', 'a * b'), ('negative(a)', '-a'),
    ('logical_and(a, b)', 'a && b'), ('logical_or(a, b)', 'a || b'),
    ('logical_not(a)', '!a'), ('bitwise_and(a, b)', 'a & b'),
    ('bitwise_or(a, b)', 'a | b'), ('bitwise_xor(a, b)', 'a ^ b'),
    ('bitwise_not(a)', '~a'), ('invert(a)', '~a'),
    ('left_shift(a, b)', 'a << b'), ('right_shift(a, b)', 'a >> b'),
    ('less(a, b)', 'a < b'), ('less_equal(a, b)', 'a <= b'),
    ('greater(a, b)', 'a > b'), ('greater_equal(a, b)', 'a >= b'),
    ('equal(a, b)', 'a == b'), ('not_equal(a, b)', 'a != b'),
    ('around(a)', 'round(a)'), ('radians(a)', 'deg2rad(a)'),
    ('degrees(a)', 'rad2deg(a)'), ('np.sin(a)', 'sin(a)'),
    ('numpy.sqrt(a)', 'sqrt(a)'), ('np.float32(a) * np.pi', 'float32(a) * pi'),
    ('np.where(a > b, a, b)', 'where(a > b, a, b)'),
]


def test_numpy_aliases():
    """Every alias gives the bits and the dtype of the language's own
    spelling (which the tests above check against numpy), or the same
    error."""
    for da, db in [('float32', 'float32'), ('float64', 'int32'),
                   ('int32', 'int32'), ('uint8', 'int16'), ('bool', 'bool')]:
        a, b = pairs(da, db, 80)
        names = {'a': da, 'b': db}
        for alias, own in ALIASES:
            label = 'alias %s,%s' % (da, db)
            try:
                want = run(own, {'a': a, 'b': b}, names)
            except ExprError:
                expect_error(alias, names, label)
                continue
            compare(alias, {'a': a, 'b': b}, want, label)



# numpy's other names for its scalar types, as pasted numpy code calls them
# (np.double(x)); each is a cast to numpy's dtype for it on this machine.
NUMPY_TYPE_NAMES = ['bool_', 'bool8', 'byte', 'ubyte', 'short', 'ushort',
                    'intc', 'uintc', 'int_', 'intp', 'longlong', 'uint',
                    'uintp', 'ulonglong', 'half', 'single', 'double',
                    'float_', 'csingle', 'singlecomplex', 'cdouble', 'cfloat',
                    'complex_']


def test_numpy_type_names():
    """np.double(x) is numpy's float64(x): the dtype numpy gives the type,
    the bits of the cast of that dtype (which test_casts checks against
    numpy). They were unknown functions, with suggestions such as 'did you
    mean angle?' for np.single and 'sqrt' for np.short."""
    global checked
    for name in NUMPY_TYPE_NAMES:
        t = getattr(np, name, None)
        if t is None:
            continue
        dt = np.dtype(t).name
        for src_dt in ['bool', 'int16', 'uint64', 'float16', 'float64']:
            a = samples(src_dt, 200)
            label = 'np.%s(%s)' % (name, src_dt)
            want = run('%s(a)' % dt, {'a': a})
            for src in ['np.%s(a)' % name, '%s(a)' % name]:
                checked += 1
                try:
                    got = run(src, {'a': a})
                except ExprError as e:
                    fail('%s: %s does not compile: %s' % (label, src,
                                                          e.message))
                    continue
                if got.dtype != np.dtype(t):
                    fail('%s: %s gives %s, numpy %s' % (label, src,
                                                       got.dtype, dt))
                elif got.tobytes() != want.tobytes():
                    fail('%s: %s differs from %s(a)' % (label, src, dt))

# name, numpy function, sample kind, exact (else the float function ulp
# bounds); the reference is numpy on the operand converted to float_for().
NEW_UNARY = [
    ('square', np.square, 'any', True), ('negative', np.negative, 'any', True),
    ('positive', np.positive, 'any', True),
    ('deg2rad', np.deg2rad, 'any', True), ('rad2deg', np.rad2deg, 'any', True),
    ('signbit', np.signbit, 'any', True),
    ('nan_to_num', np.nan_to_num, 'any', True),
    ('fabs', np.fabs, 'any', True), ('absolute', np.absolute, 'any', True),
    ('copy', np.copy, 'any', True), ('ones_like', np.ones_like, 'any', True),
    ('conj', np.conj, 'any', True), ('conjugate', np.conjugate, 'any', True),
    ('real', np.real, 'any', True), ('reciprocal', np.reciprocal, 'any', True),
]
FLOATING = {'deg2rad', 'rad2deg', 'signbit', 'fabs'}

NEW_BINARY = [
    ('copysign', np.copysign, True), ('heaviside', np.heaviside, True),
    ('logaddexp', np.logaddexp, False), ('logaddexp2', np.logaddexp2, False),
    ('float_power', np.float_power, False),
    ('logical_xor', np.logical_xor, True),
]


def test_new_unary():
    for dt in ALL:
        a = samples(dt, 400)
        for name, fn, kind, exact in NEW_UNARY:
            src = '%s(a)' % name
            label = '%s(%s)' % (name, dt)
            arg = a.astype(float_for(dt)) if name in FLOATING else a
            want = numpy_or_error(lambda: fn(arg))
            if want is None:
                expect_error(src, {'a': dt}, label)
                continue
            if name == 'reciprocal' and np.dtype(dt).kind in 'biu':
                # numpy converts 1 / 0 to the integer its CPU gives (the
                # smallest int32 or int64, 0 for narrower ones); we give 0
                # (docs, as for integer division by zero).
                want = want.copy()
                want[a == 0] = 0
            compare(src, {'a': a}, want, label)
    # numpy's special cases, spelled out
    x = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0], np.float32)
    compare('nan_to_num(a)', {'a': x}, np.array(
        [0, np.finfo(np.float32).max, -np.finfo(np.float32).max, -0.0, 0, 1],
        np.float32), 'nan_to_num special')
    compare('signbit(a)', {'a': np.array([-0.0, 0.0, -np.nan, np.nan])},
            np.array([True, False, True, False]), 'signbit of zeros, NaNs')
    compare('reciprocal(a)', {'a': np.array([0, 1, -1, 2, -2, 5], np.int32)},
            np.array([0, 1, -1, 0, 0, 0], np.int32), 'reciprocal documented')
    compare('ones_like(a) + a', {'a': np.arange(5, dtype=np.uint8)},
            np.arange(1, 6, dtype=np.uint8), 'ones_like')


def test_new_binary():
    for da, db in itertools.product(ALL, ALL):
        a, b = pairs(da, db)
        label = '%s,%s' % (da, db)
        for name, fn, exact in NEW_BINARY:
            src = '%s(a, b)' % name
            if name in ('logical_xor', 'float_power'):
                ft = None
            else:
                ft = float_for2(da, db)
            x, y = (a, b) if ft is None else (a.astype(ft), b.astype(ft))
            want = numpy_or_error(lambda: fn(x, y))
            if want is None:
                expect_error(src, {'a': da, 'b': db}, label)
                continue
            if exact:
                compare(src, {'a': a, 'b': b}, want, label)
            elif want.dtype in (np.float16, np.float32):
                ref, ulp = rounded_ref(fn, want.dtype, x, y)
                compare(src, {'a': a, 'b': b}, ref, label, exact=False,
                        ulp=ulp)
            else:
                compare(src, {'a': a, 'b': b}, want, label, exact=False,
                        ulp=ULP_F64)
    # heaviside's and logaddexp's special cases
    x = np.array([np.nan, -1.0, -0.0, 0.0, 2.0, np.inf, -np.inf])
    h = np.array([0.5, 0.5, 0.25, np.nan, 0.5, 0.5, 0.5])
    compare('heaviside(a, b)', {'a': x, 'b': h}, np.heaviside(x, h),
            'heaviside special')
    u = np.array([np.inf, -np.inf, np.inf, np.nan, 1.0, -np.inf])
    v = np.array([np.inf, -np.inf, -np.inf, 1.0, np.nan, 3.0])
    for name, fn in [('logaddexp', np.logaddexp),
                     ('logaddexp2', np.logaddexp2)]:
        compare('%s(a, b)' % name, {'a': u, 'b': v}, fn(u, v),
                '%s special' % name)


def test_numpy_prefix_errors():
    # np.NAME must be a function or numpy's constant; a bound name is not
    # numpy's.
    for src in ['np.a + 1', 'np.sine(a)', 'numpy.foo', 'np. sin(a)',
                'positive(c)', 'np.a(1)']:
        expect_error(src, {'a': 'float32', 'c': 'bool'}, 'prefix')
    compare('np.e * np.inf', {'a': np.zeros(2, np.float32)},
            np.full(2, np.inf), 'np constants')


# ---- the benchmark expressions, fused, on a longer array ----

def test_benchmark_expressions():
    x = rng.normal(0, 3, 100003).astype(np.float32)
    y = rng.normal(0, 3, 100003).astype(np.float32)
    x[::1000] = np.nan
    got = run('2*x*y + sin(x)', {'x': x, 'y': y})
    ref = (2 * x * y).astype(np.float64) + np.sin(x.astype(np.float64))
    if not np.allclose(got, ref.astype(np.float32), rtol=1e-6, atol=1e-6,
                       equal_nan=True):
        fail('2*x*y + sin(x)')
    got = run('where(x > 0, sqrt(x), -x)', {'x': x})
    want = np.where(x > 0, np.sqrt(x), -x)
    if same(got, want) is not None:
        fail('where(x > 0, sqrt(x), -x)')


# ---- float16: every value, against numpy's own float16 loops ----

F16_UNARY = ['sqrt', 'floor', 'ceil', 'rint', 'trunc', 'absolute', 'sign',
             'square', 'reciprocal', 'negative', 'positive', 'deg2rad',
             'rad2deg', 'nan_to_num', 'fabs', 'isnan', 'isinf', 'isfinite',
             'signbit', 'exp', 'exp2', 'expm1', 'log', 'log2', 'log10',
             'log1p', 'cbrt', 'sin', 'cos', 'tan', 'arcsin', 'arccos',
             'arctan', 'sinh', 'cosh', 'tanh', 'arcsinh', 'arccosh',
             'arctanh']

F16_BINARY = [
    ('a + b', np.add), ('a - b', np.subtract), ('a * b', np.multiply),
    ('a / b', np.divide), ('a // b', np.floor_divide),
    ('a % b', np.remainder), ('fmod(a, b)', np.fmod), ('a ** b', np.power),
    ('arctan2(a, b)', np.arctan2), ('hypot(a, b)', np.hypot),
    ('logaddexp(a, b)', np.logaddexp), ('logaddexp2(a, b)', np.logaddexp2),
    ('minimum(a, b)', np.minimum), ('maximum(a, b)', np.maximum),
    ('fmin(a, b)', np.fmin), ('fmax(a, b)', np.fmax),
    ('copysign(a, b)', np.copysign), ('heaviside(a, b)', np.heaviside),
    ('a < b', np.less), ('a == b', np.equal)]


def f16_values():
    return np.arange(65536, dtype=np.uint16).view(np.float16)


def compare_bits(src, arrays, want, label):
    """Bit for bit, NaN payloads included."""
    global checked
    checked += 1
    got = run(src, arrays)
    if got.dtype != want.dtype:
        fail('%s: %s gives %s, numpy %s' % (label, src, got.dtype,
                                            want.dtype))
        return
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.uint64}
    g, w = got.view(u[got.itemsize]), want.view(u[got.itemsize])
    bad = np.nonzero(g != w)[0]
    if len(bad):
        k = bad[0] // (2 if got.itemsize == 16 else 1)
        args = ', '.join('%s=0x%x' % (n, a[k:k + 1].view(u[a.itemsize])[0])
                         for n, a in arrays.items())
        fail('%s: %s at %s: got 0x%x, numpy 0x%x (%d values differ)' % (
            label, src, args, g[bad[0]], w[bad[0]], len(bad)))


def test_float16_every_value():
    """numpy computes a float16 function in float32 and rounds the result
    to float16, calling the C library's float32 function (sinf, atan2f,
    ...) for the transcendental ones: so do we, and every float16 value
    gives numpy's bits through every function (NaN compared as NaN) and
    every cast (NaN payloads included)."""
    h = f16_values()
    simd = []
    for name in F16_UNARY:
        fn = getattr(np, name)
        want = numpy_f16(fn, h)
        compare('%s(a)' % name, {'a': h}, want,
                '%s(float16, every value)' % name)
        # numpy's own loop for contiguous arrays: its SIMD loops on CPUs
        # with AVX-512 may differ from its float16 loop (reported only)
        contiguous = fn(h)
        if same(contiguous, want) is not None:
            simd.append(name)
        if F16_UNARY.index(name) >= F16_UNARY.index('exp'):
            # and within 1 ulp of the correctly rounded float16
            ref = fn(h.astype(np.float64)).astype(np.float16)
            compare('%s(a)' % name, {'a': h}, ref,
                    '%s(float16, every value) vs rounded' % name,
                    exact=False, ulp=1)
    if simd:
        print('numpy on this CPU: contiguous float16 %s differ from its '
              'strided loop (vectorised loops); ours equal the strided '
              'one' % ', '.join(simd))
    # binary: every value against every value in a shuffled order, and
    # every special value against every value on either side
    r = np.random.default_rng(7)
    sp = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 65504,
                   6e-8, -2.5], np.float16)
    a = np.concatenate([h, np.repeat(sp, 65536), np.tile(h, len(sp))])
    b = np.concatenate([r.permutation(h), np.tile(h, len(sp)),
                        np.repeat(sp, 65536)])
    for src, fn in F16_BINARY:
        compare(src, {'a': a, 'b': b}, numpy_f16(fn, a, b),
                'float16 ' + src + ', every value',
                ignore_zero_sign='min' in src or 'max' in src)
    # casts keep NaN payloads as numpy's do (a signalling NaN stays one);
    # float32 and float64 NaNs keep their sign and the top 10 bits of
    # their payload, which become 1 where those are 0
    for to in ['float16', 'float32', 'float64', 'complex64', 'complex128']:
        compare_bits('%s(a)' % to, {'a': h}, h.astype(to),
                     'float16 to %s, every value' % to)
    p32 = np.arange(1 << 12, dtype=np.uint32)
    f = np.concatenate([0x7f800000 | (p32 << 11) | (p32 & 7),
                        0xff800000 | (p32 << 11) | 1, p32 << 19]) \
        .astype(np.uint32).view(np.float32)
    p64 = p32.astype(np.uint64)
    d = np.concatenate([0x7ff0000000000000 | (p64 << 40) | (p64 & 7),
                        0xfff0000000000000 | (p64 << 40) | 1, p64 << 51]) \
        .astype(np.uint64).view(np.float64)
    compare_bits('float16(a)', {'a': f}, f.astype(np.float16),
                 'float32 NaNs and others to float16')
    compare_bits('float16(a)', {'a': d}, d.astype(np.float16),
                 'float64 NaNs and others to float16')
    # several operations round after each, as numpy: not once at the end
    x, y = h[r.integers(0, 65536, 100000)], h[r.integers(0, 65536, 100000)]
    compare('2*x*y + sin(x) - y / 3', {'x': x, 'y': y},
            2 * x * y + numpy_f16(np.sin, x) - y / 3, 'float16 chain')
    compare('x * y + x', {'x': x, 'y': y}, x * y + x, 'float16 x*y + x')
    # promotion, as numpy: float16 with 8-bit integers stays float16, with
    # 16-bit integers and float32 becomes float32, with wider float64
    for other, want in [('int8', 'float16'), ('uint8', 'float16'),
                        ('bool', 'float16'), ('int16', 'float32'),
                        ('float32', 'float32'), ('int32', 'float64'),
                        ('float64', 'float64')]:
        o = samples(other, len(x))[:len(x)]
        compare('x + o', {'x': x, 'o': o}, x + o, 'float16 + ' + other)
        if np.result_type(x, o) != np.dtype(want):
            fail('numpy promotes float16 + %s to %s, the test expects %s'
                 % (other, np.result_type(x, o), want))
    compare('x * 0.1 + 3', {'x': x}, x * 0.1 + 3, 'float16 weak literals')
    # with complex numbers: through float32, exactly, as numpy
    z = (x[::-1] + 1j * x).astype(np.complex64)
    for src, want in [('x + z', x + z), ('x * 1j', x * 1j),
                      ('complex128(x)', x.astype(np.complex128))]:
        got = run(src, {'x': x, 'z': z})
        parts = np.float32 if want.dtype == np.complex64 else np.float64
        if got.dtype != want.dtype or not np.array_equal(
                got.view(parts), want.view(parts), equal_nan=True):
            fail('float16 with complex: %s gives %s, numpy %s' % (
                src, got.dtype, want.dtype))


def main():
    for t in [test_binary, test_negative_integer_power, test_weak_literals,
              test_float_scalar_powers,
              test_unary, test_float_functions, test_signed_zeros,
              test_float_binary_functions,
              test_casts, test_numpy_type_names, test_where_and_clip,
              test_numpy_aliases,
              test_new_unary, test_new_binary, test_numpy_prefix_errors,
              test_benchmark_expressions, test_float16_every_value]:
        t()
        print('%s: %d checks so far, %d failures' % (t.__name__, checked,
                                                     len(failures)))
    if failures:
        print('%d of %d checks failed' % (len(failures), checked))
        return 1
    print('all %d checks passed' % checked)
    return 0


if __name__ == '__main__':
    rc = main()
    # The kernels are built once per instruction set; check the lower ones
    # too (PLAN_CPU_ISA only lowers the choice, never raises it).
    if rc == 0 and 'PLAN_CPU_ISA' not in os.environ:
        import subprocess
        for isa in ['avx2', 'default']:
            print('== again with PLAN_CPU_ISA=%s' % isa)
            rc = subprocess.call([sys.executable, __file__],
                                 env=dict(os.environ, PLAN_CPU_ISA=isa))
            if rc != 0:
                break
    sys.exit(rc)
