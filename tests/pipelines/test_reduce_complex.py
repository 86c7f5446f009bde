#!/usr/bin/python3
"""planreduce over complex64, complex128 and float16 input, file to file
through gst-launch-1.0, against numpy: every op and axis, numpy's result
dtypes, NaN rules and complex order; the same bits for any chunking and
thread count; what stays refused."""
import math
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import (Failure, assert_same, launch, random_array,  # noqa: E402
                      run_cases, tmpdir)

warnings.filterwarnings('ignore')

OPS = ['sum', 'prod', 'min', 'max', 'mean', 'argmin', 'argmax', 'any', 'all',
       'nansum', 'nanprod', 'nanmin', 'nanmax', 'nanmean', 'nanargmin',
       'nanargmax', 'var', 'std', 'nanvar', 'nanstd', 'count_nonzero', 'ptp']
MOMENT_OPS = ['var', 'std', 'nanvar', 'nanstd']
AXES = ['all', '0', '-1']
NO_IDENTITY = ('min', 'max', 'argmin', 'argmax', 'nanmin', 'nanmax',
               'nanargmin', 'nanargmax', 'ptp')
DTYPES = ['complex64', 'complex128', 'float16']
SHAPES = [(0,), (7919,), (257, 13), (3, 2, 4)]


def axis_of(a, axis):
    if axis == 'all' or (axis == '0' and a.ndim == 1):
        return None
    if axis == '0':
        return 0
    return tuple(range(1, a.ndim))


def numpy_reduce(a, op, axis, ddof=0):
    """numpy's result of what planreduce computes (axis=-1 reduces each row
    over its inner axes)."""
    ax = axis_of(a, axis)
    with np.errstate(all='ignore'), warnings.catch_warnings():
        warnings.simplefilter('ignore')
        if op in MOMENT_OPS:
            return np.asarray(getattr(np, op)(a, axis=ax, ddof=ddof))
        if op == 'count_nonzero':
            return np.asarray(np.count_nonzero(a, axis=ax), dtype=np.int64)
        if op.endswith(('argmin', 'argmax')):
            f = getattr(np, op)
            if ax is None:
                return np.asarray(f(a), dtype=np.int64)
            if ax == 0:
                return f(a, axis=0).astype(np.int64)
            rows = a.reshape(a.shape[0], -1) if a.shape[0] else \
                a.reshape(0, int(np.prod(a.shape[1:])))
            if rows.shape[1] == 1:
                return np.zeros(a.shape[0], np.int64)
            return f(rows, axis=1).astype(np.int64)
        return np.asarray(getattr(np, op)(a, axis=ax))


def fsum_groups(b, axis):
    """math.fsum of each group the reduction sums (float64 values)."""
    if axis == 'all' or (axis == '0' and b.ndim == 1):
        return np.asarray(math.fsum(b.ravel())), b.size
    if axis == '0':
        cols = b.reshape(b.shape[0], -1) if b.shape[0] else \
            b.reshape(0, int(np.prod(b.shape[1:])))
        s = [math.fsum(cols[:, c]) for c in range(cols.shape[1])]
        return np.array(s).reshape(b.shape[1:]), b.shape[0]
    rows = b.reshape(b.shape[0], int(np.prod(b.shape[1:], dtype=np.int64)))
    return np.array([math.fsum(r) for r in rows]), rows.shape[1]


def isnan_c(a):
    return np.isnan(a)          # complex: either part


def check_sum_part(got, want, exact, what):
    """got at least as close to the exact value as numpy's result (want),
    within one ulp of got."""
    with np.errstate(all='ignore'):
        err = np.abs(got.astype(np.float64) - exact)
        nerr = np.abs(want.astype(np.float64) - exact)
        ok = (err <= nerr + np.spacing(np.abs(got)).astype(np.float64)) | \
            (np.isnan(got) & np.isnan(want)) | (np.isinf(got) & (got == want))
    if not np.all(ok):
        i = tuple(np.argwhere(~ok)[0])
        raise Failure('%s: error %r > numpy error %r (got %r, numpy %r)'
                      % (what, err[i], nerr[i], got[i], want[i]))


def check_result(got, a, op, axis, what, ddof=0):
    want = numpy_reduce(a, op, axis, ddof)
    if got.dtype != want.dtype or got.shape != want.shape:
        assert_same(got, want, what)
    real = got.dtype.kind != 'c'
    if op in ('sum', 'mean', 'nansum', 'nanmean'):
        b = a.copy()
        nan = isnan_c(b)
        if op.startswith('nan'):
            b[nan] = 0
        for part in ((lambda z: z),) if real else (np.real, np.imag):
            exact, count = fsum_groups(part(b).astype(np.float64), axis)
            if op == 'mean':
                with np.errstate(all='ignore'):
                    exact = exact / count if count else exact * np.nan
            if op == 'nanmean':
                cnt = numpy_reduce((~nan).astype(np.int64), 'sum', axis)
                with np.errstate(all='ignore'):
                    exact = exact / cnt
            check_sum_part(part(got), part(want), exact, what)
        return
    if op in ('prod', 'nanprod'):
        b = a.astype(np.complex128 if not real else np.float64)
        if op == 'nanprod':
            b[isnan_c(a)] = 1
        exact = numpy_reduce(b, 'prod', axis)
        tol = {'complex64': 2e-6, 'complex128': 1e-12, 'float16': 1e-3}
        if not np.all(np.isclose(got, exact, rtol=tol[str(a.dtype)], atol=0,
                                 equal_nan=True)):
            raise Failure('%s: %r, float64 product %r' % (what, got, exact))
        return
    if op in MOMENT_OPS:
        # numpy computes complex64 and float16 moments in their precision,
        # planreduce in float64 and rounds once: against numpy in float64
        wide = np.complex128 if not real or a.dtype.kind == 'c' else np.float64
        ref = numpy_reduce(a.astype(wide), op, axis, ddof).astype(got.dtype)
        tol = {np.dtype(np.float16): 1e-3, np.dtype(np.float32): 4e-7,
               np.dtype(np.float64): 1e-12}[got.dtype]
        assert_same(got, ref, what, rtol=tol)
        return
    # min, max, the args, their nan versions, ptp, any, all, count_nonzero:
    # exactly numpy's
    assert_same(got, want, what)


def prod_friendly(a):
    rng = np.random.default_rng(a.size)
    v = 1 + 1e-3 * rng.standard_normal(a.shape)
    if a.dtype.kind == 'c':
        v = v + 1e-3j * rng.standard_normal(a.shape)
    return v.astype(a.dtype)


def test_array(a, ops=OPS, axes=AXES, name='in', chunk_rows=(4096, 1000, 61),
               ddof=0):
    d = tmpdir()
    path = '%s/%s.npy' % (d, name)
    np.save(path, a)
    row = max(1, int(np.prod(a.shape[1:], dtype=np.int64)) * a.dtype.itemsize)
    words, outs = [], []
    k = 0
    for op in ops:
        for axis in axes:
            if a.shape[0] == 0 and op in NO_IDENTITY and axis != '-1':
                continue
            out = '%s/%s_%s_%s.npy' % (d, name, op, axis.replace('-', 'm'))
            words += ['planfilesrc', 'location=' + path,
                      'blocksize=%d' % (row * chunk_rows[k % len(chunk_rows)]),
                      '!', 'planreduce', 'op=' + op, 'axis=' + axis,
                      'n-threads=%d' % (k % 3), 'ddof=%r' % ddof, '!',
                      'planfilesink', 'location=' + out]
            outs.append((op, axis, out))
            k += 1
    if not words:
        return
    launch(*words, timeout=300)
    for op, axis, out in outs:
        check_result(np.load(out), a, op, axis, '%s axis=%s on %s %s'
                     % (op, axis, a.dtype, a.shape), ddof)


def with_nans(a, rng, every=13):
    """NaNs in some elements: complex ones in one part or the other."""
    a = a.copy()
    flat = a.reshape(-1)
    idx = np.arange(3, flat.size, every)
    if a.dtype.kind == 'c':
        # NaN real parts, NaN imaginary parts, both
        flat.real[idx[idx % 3 != 1]] = np.nan
        flat.imag[idx[idx % 3 != 0]] = np.nan
    else:
        flat[idx] = np.nan
    return a


def ties(a, rng):
    """Real parts that repeat, so that the imaginary parts order the
    numbers; repeated values for float16."""
    b = a.copy()
    if a.dtype.kind == 'c':
        b.real = np.round(b.real * 2) / 2
        b.imag = np.round(b.imag)
    else:
        b = (np.round(b.astype(np.float32) * 2) / 2).astype(a.dtype)
    return b


def case(dtype, shape):
    def run():
        rng = np.random.default_rng(sum(shape) * 7 + DTYPES.index(dtype))
        a = random_array(dtype, shape, rng)
        plain = [o for o in OPS if o not in ('prod', 'nanprod')]
        test_array(a, ops=plain)
        test_array(prod_friendly(a), ops=['prod', 'nanprod'], name='prod')
        if a.size > 1:
            # (every 11th: no column of 13 is all NaN; the rows of a 1-D
            # array are single values, which nanargmin refuses when NaN)
            b = with_nans(ties(a, rng), rng, 11)
            nanarg = ('nanargmin', 'nanargmax')
            test_array(b, ops=[o for o in plain if o not in nanarg or
                               a.ndim > 1], name='nan')
            if a.ndim == 1:
                test_array(b, ops=nanarg, axes=['all', '0'], name='nanarg')
    return run


def test_all_nan_slices():
    """nanmin/nanmax of a slice that is all NaN: numpy's fmin gives the
    slice's first value (complex) or NaN (float16); nanargmin fails."""
    for dtype in ('complex64', 'complex128', 'float16'):
        m = np.ones((11, 3), dtype) * 2
        if dtype == 'float16':
            m[:, 1] = np.nan
        else:
            m[:, 1] = np.array([complex(np.nan, k) for k in range(11)])
            m[4, 2] = complex(1, np.nan)
        test_array(m, ops=['nanmin', 'nanmax', 'nansum', 'nanmean', 'nanvar',
                           'min', 'argmax'], axes=['0'], name='an')
        d = tmpdir()
        np.save(d + '/m.npy', m)
        _, out = launch('planfilesrc', 'location=%s/m.npy' % d, '!',
                        'planreduce', 'op=nanargmin', 'axis=0', '!',
                        'planfilesink', 'location=%s/o.npy' % d,
                        expect_ok=False)
        if 'All-NaN slice encountered' not in out:
            raise Failure('nanargmin of an all-NaN column:\n' + out)


def test_nanargmin_takes_nan_as_inf():
    """numpy's nanargmin replaces NaN by inf (nanargmax by -inf) and takes
    the first of equal values: a NaN before an equal inf wins."""
    a = np.array([complex(2, 0), complex(np.nan, 0), complex(np.inf, 0),
                  complex(np.inf, 0)] * 3, np.complex128)
    test_array(a[1:], ops=['nanargmin', 'nanargmax', 'argmin', 'argmax'],
               axes=['all'], name='ni')
    test_array(np.array([complex(np.nan, 1), complex(np.inf, 0)]),
               ops=['nanargmin'], axes=['all'], name='nj')


def test_same_bits_any_chunking():
    """Every op gives the same bytes for any blocksize and thread count."""
    rng = np.random.default_rng(5)
    for dtype in DTYPES:
        a = with_nans(ties(random_array(dtype, (20011,), rng), rng), rng, 101)
        m = with_nans(random_array(dtype, (3001, 7), rng), rng, 101)
        d = tmpdir()
        np.save(d + '/a.npy', a)
        np.save(d + '/m.npy', m)
        outs = []
        # One process per op: a few hundred pipelines in one process, their
        # streaming threads all posting to one bus at once, can stall in
        # GStreamer 1.22's lock-free bus queue on a 2-core machine.
        for op in OPS:
            words = []
            for f, axis, item in (('a', 'all', a.itemsize),
                                  ('m', '0', 7 * m.itemsize),
                                  ('m', '-1', 7 * m.itemsize)):
                for i, rows in enumerate((1 << 20, 61, 1)):
                    if f == 'a' and rows == 1:
                        rows = 2047
                    out = '%s/%s_%s_%d.npy' % (d, op, f + axis, i)
                    words += ['planfilesrc', 'location=%s/%s.npy' % (d, f),
                              'blocksize=%d' % (rows * item), '!',
                              'planreduce', 'op=' + op, 'axis=' + axis,
                              'n-threads=%d' % (i % 3), '!', 'planfilesink',
                              'location=' + out]
                    outs.append((op, f + axis, i, out))
            launch(*words, timeout=300)
        first = {}
        for op, what, i, out in outs:
            b = np.load(out).tobytes()
            if i == 0:
                first[(op, what)] = b
            elif b != first[(op, what)]:
                raise Failure('%s %s on %s: other bytes with chunking %d'
                              % (op, what, dtype, i))


def test_complex_variance_large_mean():
    """var of complex128 numbers with a large mean and a small spread: the
    exact variance (mean |x - mean|^2) of the values, computed on
    fractions."""
    from fractions import Fraction
    rng = np.random.default_rng(13)
    n = 4001
    a = (1e9 + rng.standard_normal(n)) + 1j * (-3e8 + rng.standard_normal(n))
    re = [Fraction(x) for x in a.real]
    im = [Fraction(x) for x in a.imag]
    mr, mi = sum(re) / n, sum(im) / n
    exact = float(sum((x - mr) ** 2 for x in re) / n +
                  sum((x - mi) ** 2 for x in im) / n)
    d = tmpdir()
    np.save(d + '/a.npy', a)
    launch('planfilesrc', 'location=%s/a.npy' % d, 'blocksize=3000', '!',
           'planreduce', 'op=var', '!', 'planfilesink',
           'location=%s/v.npy' % d)
    got = float(np.load(d + '/v.npy'))
    if abs(got - exact) > 1e-12 * exact:
        raise Failure('var %r, exact %r, numpy %r' % (got, exact, np.var(a)))


def test_float16_sum_rounds_once():
    """float16 sums accumulate in float64 and round once to float16: the
    float16 nearest the exact sum, where numpy's float32 pairwise sum
    may be a float16 ulp off."""
    rng = np.random.default_rng(9)
    a = (rng.standard_normal(100003) * 4).astype(np.float16)
    d = tmpdir()
    np.save(d + '/a.npy', a)
    launch('planfilesrc', 'location=%s/a.npy' % d, 'blocksize=1000', '!',
           'planreduce', 'op=sum', '!', 'planfilesink',
           'location=%s/s.npy' % d,
           'planfilesrc', 'location=%s/a.npy' % d, '!',
           'planreduce', 'op=mean', '!', 'planfilesink',
           'location=%s/m.npy' % d)
    exact = math.fsum(a.astype(np.float64))
    s, m = np.load(d + '/s.npy'), np.load(d + '/m.npy')
    if s.dtype != np.float16 or s != np.float16(exact):
        raise Failure('sum %r, exact %r' % (s, exact))
    if m.dtype != np.float16 or m != np.float16(exact / a.size):
        raise Failure('mean %r, exact %r' % (m, exact / a.size))


def test_message_values():
    """The message's value of a complex result is < real, imag >; of a
    float16 one a double."""
    d = tmpdir()
    np.save(d + '/c.npy', np.array([1 + 2j, 3 - 1j], np.complex64))
    np.save(d + '/h.npy', np.array([1.5, 2.25], np.float16))
    _, out = launch('planfilesrc', 'location=%s/c.npy' % d, '!', 'planreduce',
                    'name=c', 'op=sum', '!', 'fakesink',
                    'planfilesrc', 'location=%s/h.npy' % d, '!', 'planreduce',
                    'name=h', 'op=sum', '!', 'fakesink', messages=True)
    for want in ('value=(double)< 4, 1 >', 'dtype=(string)complex64',
                 'value=(double)3.75', 'dtype=(string)float16'):
        if want.replace('(double)', '') not in out.replace('(double)', ''):
            raise Failure('%r not in the messages:\n%s' % (want, out))


def custom_tree(a, f, identity, block=2048):
    """A custom combiner's result over the flat array @a as planreduce
    computes it: each block of 2048 padded with the identity to a power of
    two and combined by halves, the blocks merged by a binary counter,
    the pending results folded most recent first."""
    def reduce_block(b):
        p = 1
        while p < b.size:
            p *= 2
        cur = np.concatenate([b, np.full(p - b.size, identity, b.dtype)])
        while p > 1:
            p //= 2
            cur = f(cur[:p], cur[p:2 * p])
        return cur[0]
    stack = []                  # (level, value)
    flat = a.reshape(-1)
    k = 0
    for k in range(0, flat.size - block + 1, block):
        acc, level = reduce_block(flat[k:k + block]), 0
        while stack and stack[-1][0] == level:
            acc = f(stack.pop()[1], acc)
            level += 1
        stack.append((level, acc))
    done = (flat.size // block) * block
    if done < flat.size:
        acc = reduce_block(flat[done:])
    elif stack:
        acc = stack.pop()[1]
    else:
        return identity
    while stack:
        acc = f(stack.pop()[1], acc)
    return acc


def test_float16_custom_combiners():
    """Custom combiners over float16 compute in float16, as numpy's float16
    arithmetic does (in float32, rounded to float16 after each operation):
    max, min and products of powers of two are numpy's exactly on every
    axis; x + y equals numpy's float16 additions in planreduce's tree, bit
    for bit, for any chunking and thread count."""
    rng = np.random.default_rng(17)
    a = (rng.standard_normal(20011) * 3).astype(np.float16)
    neg = -np.abs(a) - np.float16(1)
    m = neg[:3001 * 5].reshape(3001, 5)
    # signs, and ten 2s and ten 0.5s: every partial product is exact
    pw = np.where(rng.random((701, 3)) < 0.5, -1, 1).astype(np.float16)
    pw.reshape(-1)[rng.choice(pw.size, 20, replace=False)] *= \
        np.repeat(np.float16([2, 0.5]), 10)
    d = tmpdir()
    for name, arr in (('a', a), ('neg', neg), ('m', m), ('pw', pw)):
        np.save('%s/%s.npy' % (d, name), arr)
    ident = {'max(x, y)': '-inf', 'min(x, y)': 'inf', 'x * y': '1',
             'x + y': '0'}
    runs = [('neg', 'max(x, y)', 'all'), ('a', 'min(x, y)', 'all'),
            ('m', 'max(x, y)', '0'), ('m', 'max(x, y)', '-1'),
            ('pw', 'x * y', 'all'), ('pw', 'x * y', '0'),
            ('pw', 'x * y', '-1')]
    words, outs = [], []
    for k, (name, expr, axis) in enumerate(runs):
        out = '%s/r%d.npy' % (d, k)
        words += ['planfilesrc', 'location=%s/%s.npy' % (d, name),
                  'blocksize=%d' % (2 * (61 if name != 'a' else 1000)), '!',
                  'planreduce', 'expr=' + expr, 'identity=' + ident[expr],
                  'axis=' + axis, 'n-threads=%d' % (k % 3), '!',
                  'planfilesink', 'location=' + out]
        outs.append((name, expr, axis, out))
    sums = []
    for i, rows in enumerate((1 << 20, 1000, 61, 1)):
        out = '%s/s%d.npy' % (d, i)
        words += ['planfilesrc', 'location=%s/a.npy' % d,
                  'blocksize=%d' % (2 * rows), '!', 'planreduce',
                  'expr=x + y', 'identity=0', 'n-threads=%d' % (i % 3), '!',
                  'planfilesink', 'location=' + out]
        sums.append(out)
    launch(*words, timeout=300)
    fns = {'max(x, y)': np.max, 'min(x, y)': np.min, 'x * y': np.prod}
    arrays = {'a': a, 'neg': neg, 'm': m, 'pw': pw}
    for name, expr, axis, out in outs:
        arr = arrays[name]
        ax = None if axis == 'all' else (0 if axis == '0' else 1)
        assert_same(np.load(out), np.asarray(fns[expr](arr, axis=ax)),
                    '%s axis=%s on float16 %s' % (expr, axis, arr.shape))
    want = custom_tree(a, lambda x, y: x + y, np.float16(0))
    for i, out in enumerate(sums):
        got = np.load(out)
        if got.dtype != np.float16 or got.tobytes() != want.tobytes():
            raise Failure('x + y on float16, chunking %d: %r, numpy float16 '
                          'in the same tree %r' % (i, got, want))
    # an identity beyond float16's range (65504) is refused
    _, out = launch('planfilesrc', 'location=%s/a.npy' % d, '!', 'planreduce',
                    'expr=max(x, y)', 'identity=1e5', '!', 'fakesink',
                    expect_ok=False)
    if "the identity '1e5' is not a valid float16 value" not in out:
        raise Failure('identity 1e5 on float16: no clear refusal:\n' + out)
    # so is one beyond float64's, which would parse as infinity (inf is
    # spelled inf)
    _, out = launch('planfilesrc', 'location=%s/a.npy' % d, '!', 'planreduce',
                    'expr=max(x, y)', 'identity=-1e400', '!', 'fakesink',
                    expect_ok=False)
    if "the identity '-1e400' is not a valid float16 value" not in out:
        raise Failure('identity -1e400 on float16: no clear refusal:\n' + out)


def test_custom_combiner_on_complex_refused():
    d = tmpdir()
    np.save(d + '/c.npy', np.array([1 + 2j, 3 - 1j], np.complex128))
    _, out = launch('planfilesrc', 'location=%s/c.npy' % d, '!', 'planreduce',
                    'expr=x + y', 'identity=0', '!', 'fakesink',
                    expect_ok=False)
    if 'cannot reduce complex128 input' not in out:
        raise Failure('no clear refusal:\n' + out)


cases = []
for dt in DTYPES:
    for shape in SHAPES:
        cases.append(('%s %s' % (dt, shape), case(dt, shape)))
cases += [(f.__name__, f) for f in (
    test_all_nan_slices, test_nanargmin_takes_nan_as_inf,
    test_same_bits_any_chunking, test_complex_variance_large_mean,
    test_float16_sum_rounds_once, test_message_values,
    test_float16_custom_combiners,
    test_custom_combiner_on_complex_refused)]
if len(sys.argv) > 1:
    cases = [c for c in cases if any(w in c[0] for w in sys.argv[1:])]
run_cases(cases)
