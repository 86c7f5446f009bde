#!/usr/bin/python3
"""planreduce, file to file through gst-launch-1.0, against numpy.

Every dtype, every op and axis, lengths 0, 1, prime and much larger than the
source's blocksize; float sums at least as accurate as numpy's against
math.fsum; the bad-input cases as gst-launch shows them."""
import math
import os
import subprocess
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import (DTYPES, Failure, assert_same, launch, random_array,  # noqa: E402
                      run_cases, tmpdir)

# numpy warns on the mean of nothing (and returns NaN, as planreduce does).
warnings.filterwarnings('ignore', 'Mean of empty slice')
warnings.filterwarnings('ignore', 'invalid value encountered')

OPS = ['sum', 'prod', 'min', 'max', 'mean', 'argmin', 'argmax', 'any', 'all']
# numpy's nan-aware reductions, moments, count_nonzero and ptp
NAN_OPS = ['nansum', 'nanprod', 'nanmin', 'nanmax', 'nanmean', 'nanargmin',
           'nanargmax']
MOMENT_OPS = ['var', 'std', 'nanvar', 'nanstd']
NEW_OPS = NAN_OPS + MOMENT_OPS + ['count_nonzero', 'ptp']
AXES = ['all', '0', '-1']
NO_IDENTITY = ('min', 'max', 'argmin', 'argmax', 'nanmin', 'nanmax',
               'nanargmin', 'nanargmax', 'ptp')
SHAPES_1D = [(0,), (1,), (7919,), (200003,)]
SHAPES_2D = [(0, 3), (1, 5), (257, 13), (3, 2, 4)]


def numpy_reduce(a, op, axis, ddof=0):
    """What planreduce computes, in numpy terms: axis=all is axis=None,
    0 is axis 0 (None on 1-D), -1 reduces each row over its inner axes."""
    if axis == 'all' or (axis == '0' and a.ndim == 1):
        ax = None
    elif axis == '0':
        ax = 0
    else:
        ax = tuple(range(1, a.ndim))
    with np.errstate(all='ignore'), warnings.catch_warnings():
        warnings.simplefilter('ignore')
        if op in MOMENT_OPS:
            return np.asarray(getattr(np, op)(a, axis=ax, ddof=ddof))
        if op == 'count_nonzero':
            return np.asarray(np.count_nonzero(a, axis=ax), dtype=np.int64)
        if op in ('argmin', 'argmax', 'nanargmin', 'nanargmax'):
            f = getattr(np, op)
            if ax is None:
                return np.asarray(f(a), dtype=np.int64)
            if ax == 0:
                return f(a, axis=0).astype(np.int64)
            rows = a.reshape(a.shape[0], int(np.prod(a.shape[1:], dtype=np.int64)))
            if rows.shape[1] == 1:
                return np.zeros(a.shape[0], np.int64)
            return f(rows, axis=1).astype(np.int64)
        return np.asarray(getattr(np, op)(a, axis=ax))


def exact_sums(a, axis):
    """math.fsum of each group the reduction sums, as float64."""
    b = a.astype(np.float64)
    if axis == 'all' or (axis == '0' and a.ndim == 1):
        return np.asarray(math.fsum(b.ravel())), b.size
    if axis == '0':
        cols = b.reshape(b.shape[0], int(np.prod(b.shape[1:], dtype=np.int64)))
        s = [math.fsum(cols[:, c]) for c in range(cols.shape[1])]
        return np.array(s).reshape(b.shape[1:]), b.shape[0]
    rows = b.reshape(b.shape[0], int(np.prod(b.shape[1:], dtype=np.int64)))
    if rows.shape[1] == 1:
        return rows[:, 0].copy(), 1
    return np.array([math.fsum(r) for r in rows]), rows.shape[1]


def check_result(got, a, op, axis, what, ddof=0):
    want = numpy_reduce(a, op, axis, ddof)
    if got.dtype != want.dtype or got.shape != want.shape:
        assert_same(got, want, what)
    if got.dtype.kind != 'f':
        assert_same(got, want, what)
        return
    if op in MOMENT_OPS:
        # numpy computes float32 moments in float32, we in float64 and
        # round once: compare with numpy's float64 moments, rounded.
        # (numpy's nanvar of integers is its var: keep that op for them.)
        ref = numpy_reduce(a.astype(np.float64),
                           op if a.dtype.kind in 'fc' else op.replace('nan', ''),
                           axis, ddof)
        assert_same(got, ref.astype(got.dtype), what,
                    rtol=4e-7 if got.dtype == np.float32 else 1e-12)
        return
    if op in ('nansum', 'nanmean', 'nanprod'):
        # as sum, mean and prod, with NaN as numpy's nan functions take it
        b = a.copy()
        b[np.isnan(b)] = 1 if op == 'nanprod' else 0
        if op == 'nanmean':
            with np.errstate(all='ignore'):
                cnt = numpy_reduce((~np.isnan(a)).astype(np.int64), 'sum',
                                   axis)
                tot = numpy_reduce(b.astype(np.float64), 'sum', axis)
                ref = (tot / cnt).astype(got.dtype)
            assert_same(got, ref, what, rtol=4e-7 if got.dtype == np.float32
                        else 1e-12)
            return
        check_result(got, b, op[3:], axis, what)
        return
    if op in ('sum', 'mean'):
        # At least as close to the exact value as numpy, within an ulp.
        exact, count = exact_sums(a, axis)
        if op == 'mean':
            exact = exact / max(count, 1) if count else exact * np.nan
        with np.errstate(all='ignore'):
            err = np.abs(got.astype(np.float64) - exact)
            nerr = np.abs(want.astype(np.float64) - exact)
        ok = (err <= nerr + np.spacing(np.abs(got)).astype(np.float64)) | \
            (np.isnan(got) & np.isnan(want))
        if not np.all(ok):
            i = np.argwhere(~ok)[0]
            raise Failure('%s: error %r > numpy error %r (got %r, numpy %r)'
                          % (what, err[tuple(i)], nerr[tuple(i)],
                             got[tuple(i)], want[tuple(i)]))
        return
    if op == 'prod' and got.dtype == np.float32:
        # numpy multiplies in float32, planreduce in float64: compare both
        # with the float64 product.
        with np.errstate(all='ignore'):
            exact = numpy_reduce(a.astype(np.float64), op, axis)
        err, nerr = np.abs(got - exact), np.abs(want - exact)
        if not np.all(err <= nerr + np.spacing(np.abs(got))):
            raise Failure('%s: further from the float64 product than numpy'
                          % what)
        return
    if op == 'prod':
        assert_same(got, want, what, rtol=1e-12)
        return
    assert_same(got, want, what)


def test_array(a, ops=OPS, axes=AXES, name='in', chunk_rows=(4096, 1000, 61),
               ddof=0):
    """Reduces `a` by every op and axis in one gst-launch run, each chain with
    its own source blocksize and thread count, and checks each result."""
    d = tmpdir()
    path = '%s/%s.npy' % (d, name)
    np.save(path, a)
    row = max(1, int(np.prod(a.shape[1:], dtype=np.int64)) * a.dtype.itemsize)
    words, outs = [], []
    k = 0
    for op in ops:
        for axis in axes:
            # Reducing nothing without an identity fails (tested apart).
            if a.shape[0] == 0 and op in NO_IDENTITY and axis != '-1':
                continue
            out = '%s/%s_%s_%s.npy' % (d, name, op, axis.replace('-', 'm'))
            blocksize = row * chunk_rows[k % len(chunk_rows)]
            words += ['planfilesrc', 'location=' + path, 'blocksize=%d' % blocksize,
                      '!', 'planreduce', 'op=' + op, 'axis=' + axis,
                      'n-threads=%d' % (k % 3), 'ddof=%r' % ddof, '!',
                      'planfilesink', 'location=' + out]
            outs.append((op, axis, out))
            k += 1
    if not words:
        return
    launch(*words, timeout=300)
    for op, axis, out in outs:
        check_result(np.load(out), a, op, axis,
                     '%s axis=%s ddof=%r on %s %s' % (op, axis, ddof, a.dtype,
                                                      a.shape), ddof)


def prod_friendly(a):
    """Values near 1 for floats, so that products of long streams stay in
    range and numpy's float32 intermediates do not overflow."""
    if a.dtype.kind != 'f':
        return a
    rng = np.random.default_rng(a.size)
    return (1 + 1e-3 * rng.standard_normal(a.shape)).astype(a.dtype)


def case(dtype, shape):
    def run():
        rng = np.random.default_rng(sum(shape) * 13 + DTYPES.index(dtype))
        a = random_array(dtype, shape, rng)
        test_array(a, ops=[o for o in OPS if o != 'prod'])
        test_array(prod_friendly(a), ops=['prod'], name='prod')
        new = [o for o in NEW_OPS if o != 'nanprod'
               and not (o == 'ptp' and dtype == 'bool')]
        test_array(a, ops=new, name='new')
        test_array(prod_friendly(a), ops=['nanprod'], name='nanprod')
    return run


def test_nan_as_numpy():
    for dtype in ('float32', 'float64'):
        a = np.array([3.0, -1.0, np.nan, -7.0, np.nan, 2.0] * 700, dtype=dtype)
        test_array(a, ops=['sum', 'min', 'max', 'mean', 'argmin', 'argmax',
                           'any', 'all'], axes=['all'])
        m = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, -6.0]] * 50, dtype=dtype)
        test_array(m, ops=['min', 'max', 'argmin', 'argmax', 'sum'],
                   axes=['0', '-1'], name='m')


def test_float32_sum_accuracy():
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(1 << 21) * 100 + 3).astype(np.float32)
    test_array(a, ops=['sum', 'mean'], axes=['all'])
    exact = math.fsum(a.astype(np.float64))
    d = tmpdir()
    np.save(d + '/a.npy', a)
    launch('planfilesrc', 'location=%s/a.npy' % d, 'blocksize=40000', '!',
           'planreduce', '!', 'planfilesink', 'location=%s/s.npy' % d)
    ours = float(np.load(d + '/s.npy'))
    if abs(ours - exact) > abs(float(a.sum()) - exact):
        raise Failure('float32 sum %r is further from fsum %r than numpy %r'
                      % (ours, exact, float(a.sum())))
    if ours != float(np.float32(exact)):
        raise Failure('float32 sum %r is not the float32 nearest fsum %r'
                      % (ours, exact))


def test_float64_sum_accuracy():
    rng = np.random.default_rng(2)
    # Large values that cancel, and small ones in between.
    big = rng.uniform(1e12, 1e16, 1 << 18)
    a = np.empty(3 << 18)
    a[0::3] = big
    a[1::3] = rng.standard_normal(1 << 18)
    a[2::3] = -big
    exact = math.fsum(a)
    d = tmpdir()
    np.save(d + '/a.npy', a)
    launch('planfilesrc', 'location=%s/a.npy' % d, 'blocksize=65536', '!',
           'planreduce', 'n-threads=2', '!', 'planfilesink',
           'location=%s/s.npy' % d)
    ours = float(np.load(d + '/s.npy'))
    theirs = float(a.sum())
    if abs(ours - exact) > abs(theirs - exact):
        raise Failure('float64 sum %r is further from fsum %r than numpy %r'
                      % (ours, exact, theirs))


def test_same_result_any_blocksize():
    rng = np.random.default_rng(3)
    a = (rng.standard_normal(20011) * 10.0 ** rng.integers(-3, 4, 20011))
    d = tmpdir()
    np.save(d + '/a.npy', a)
    words = []
    sizes = (8, 8 * 7, 8 * 2048, 8 * 3001, 1 << 20)
    for i, bs in enumerate(sizes):
        words += ['planfilesrc', 'location=%s/a.npy' % d, 'blocksize=%d' % bs,
                  '!', 'planreduce', 'n-threads=%d' % (i % 3), '!',
                  'planfilesink', 'location=%s/s%d.npy' % (d, i)]
    launch(*words, timeout=300)
    first = np.load(d + '/s0.npy').tobytes()
    for i in range(1, len(sizes)):
        if np.load('%s/s%d.npy' % (d, i)).tobytes() != first:
            raise Failure('sum differs with blocksize %d' % sizes[i])


def test_nan_ops_with_nans():
    """The nan ops ignore NaNs as numpy's; a column or row that is all NaN
    gives NaN for nanmin, nanmax, nanmean, nanvar (numpy warns)."""
    rng = np.random.default_rng(11)
    for dtype in ('float32', 'float64'):
        a = rng.standard_normal(30011).astype(dtype)
        a[rng.integers(0, len(a), 3000)] = np.nan
        a[:5] = np.nan
        test_array(a, ops=NAN_OPS + MOMENT_OPS + ['count_nonzero', 'ptp'],
                   axes=['all'], name='n1')
        m = rng.standard_normal((1003, 5)).astype(dtype)
        m[rng.integers(0, 1003, 300), rng.integers(0, 5, 300)] = np.nan
        test_array(m, ops=NAN_OPS + MOMENT_OPS, axes=['0', '-1'], name='n2')
        m[:, 3] = np.nan        # an all-NaN column
        m[7, :] = np.nan        # and an all-NaN row
        test_array(m, ops=['nansum', 'nanmin', 'nanmax', 'nanmean', 'nanvar',
                           'nanstd'], axes=['0', '-1'], name='n3')


def test_nanarg_counts_nan_as_inf():
    """numpy's nanargmin is argmin with every NaN replaced by inf (nanargmax:
    -inf): of a NaN and a later inf, the NaN's index is given, in one block
    and across blocks."""
    for dtype in ('float16', 'float32', 'float64'):
        m = np.array([[np.nan, np.inf, np.nan], [np.inf, np.nan, -np.inf],
                      [np.nan, -np.inf, 2.0]], dtype)
        test_array(m, ops=['nanargmin', 'nanargmax'], axes=['all', '0', '-1'],
                   name='ni')
        for x in (np.inf, -np.inf):
            a = np.full(5000, np.nan, dtype)
            a[4000] = x
            test_array(a, ops=['nanargmin', 'nanargmax'], axes=['all', '0'],
                       name='nl', chunk_rows=(4096, 61))


def test_ddof():
    rng = np.random.default_rng(12)
    m = rng.standard_normal((101, 3)) * 5 + 2
    m[::7, 1] = np.nan
    for ddof in (1, 2.5, 101, 150):
        test_array(m, ops=MOMENT_OPS, name='dd', ddof=ddof)
    test_array(rng.integers(-50, 50, 1001).astype(np.int16), ops=MOMENT_OPS,
               name='di', ddof=1)
    # numpy's nanvar of integers and bools is its var: inf where
    # n - ddof <= 0 and the values spread, not nanvar's NaN.
    for a in (np.array([[3, -4, 7], [1, 1, 1]], np.int16),
              np.array([True, False, True])):
        for ddof in (3, 5):
            test_array(a, ops=MOMENT_OPS, name='dn', ddof=ddof)


def test_variance_overflow_is_inf():
    """Finite values whose squared deviations pass the largest double have
    an infinite variance, as numpy's, on every axis: not the NaN (or -inf)
    of inf - inf in the algorithm's corrections; an infinite value still
    gives NaN."""
    big = np.finfo(np.float64).max
    m = np.array([[1e200, big], [0.0, -big], [0.0, 0.0]])
    test_array(m, ops=MOMENT_OPS, axes=['all', '0', '-1'], name='vo')
    test_array(np.array([1e200, 0.0, 0.0, 2.0]), ops=MOMENT_OPS,
               axes=['all'], name='vb')
    m[1, 0] = np.inf
    test_array(m, ops=MOMENT_OPS, axes=['all', '0', '-1'], name='vi')
    # Where the lanes' sums overflow to +inf and -inf, the mean is taken
    # again from scaled values: the exact variances, inf and 0, where
    # numpy's own sums overflow (it gives NaN and inf).
    d = tmpdir()
    for a, want in ((np.tile([big, -big], 3000), np.inf),
                    (np.full(3000, big), 0.0)):
        np.save(d + '/a.npy', a)
        for axis in ('all', '0'):
            launch('planfilesrc', 'location=%s/a.npy' % d, '!', 'planreduce',
                   'op=var', 'axis=' + axis, '!', 'planfilesink',
                   'location=%s/o.npy' % d)
            got = np.load(d + '/o.npy')
            if got != want:
                raise Failure('var axis=%s of %r x %d: %r, not %r' %
                              (axis, a[:2], len(a), got, want))


def test_variance_large_mean_small_spread():
    """Where the naive formula mean(x**2) - mean(x)**2 loses every digit:
    against the exact variance of the values (statistics.pvariance on
    fractions) and numpy's float64 np.var, in several chunkings and thread
    counts, which must give the same bits."""
    from fractions import Fraction
    import statistics
    rng = np.random.default_rng(13)
    n = 20011
    cases = [(1e9 + rng.standard_normal(n), 'float64'),
             ((1e3 + 0.1 * rng.standard_normal(n)).astype(np.float32),
              'float32')]
    for a, name in cases:
        d = tmpdir()
        np.save(d + '/a.npy', a)
        exact = statistics.pvariance([Fraction(float(v)) for v in a])
        # in the input's dtype, as a naive float32 program would
        naive = np.mean(a * a) - np.mean(a) ** 2
        numpy_err = abs(Fraction(float(np.var(a.astype(np.float64)))) - exact)
        if abs(Fraction(float(naive)) - exact) < exact / 10:
            raise Failure('%s: the naive formula is not bad here; the test '
                          'data is too easy' % name)
        words = []
        sizes = (a.itemsize * 7, a.itemsize * 2048, a.itemsize * 3001,
                 1 << 20)
        for i, bs in enumerate(sizes):
            for op in ('var', 'std'):
                words += ['planfilesrc', 'location=%s/a.npy' % d,
                          'blocksize=%d' % bs, '!', 'planreduce', 'op=' + op,
                          'n-threads=%d' % (i % 3), '!', 'planfilesink',
                          'location=%s/%s%d.npy' % (d, op, i)]
        launch(*words, timeout=300)
        for op in ('var', 'std'):
            first = np.load('%s/%s0.npy' % (d, op))
            for i in range(1, len(sizes)):
                if np.load('%s/%s%d.npy' % (d, op, i)).tobytes() != \
                        first.tobytes():
                    raise Failure('%s %s differs with blocksize %d' %
                                  (name, op, sizes[i]))
        var = np.load(d + '/var0.npy')
        std = np.load(d + '/std0.npy')
        if var.dtype != a.dtype or std.dtype != a.dtype:
            raise Failure('%s: var is %s, std %s' % (name, var.dtype,
                                                     std.dtype))
        err = abs(Fraction(float(var)) - exact)
        # float64: at least as close as numpy's two-pass np.var (and
        # within 1e-12 relative); float32: the float32 nearest the exact
        # variance, or its neighbour.
        if name == 'float64':
            ok = err <= max(numpy_err, exact * Fraction(1, 10 ** 12))
        else:
            ok = err <= Fraction(float(np.spacing(np.float32(var))))
        if not ok:
            raise Failure('%s: var %r, exact %r, error %g (numpy %g)' % (
                name, float(var), float(exact), float(err),
                float(numpy_err)))
        sd = math.sqrt(float(exact))
        if abs(float(std) - sd) > 2 * float(np.spacing(std.astype(
                np.float64 if name == 'float64' else np.float32))):
            raise Failure('%s: std %r, exact %r' % (name, float(std), sd))
        # per column (axis=0, accumulated row by row) and per row (axis=-1)
        for axis, m in (('0', a[:20000].reshape(10000, 2)),
                        ('-1', a[:20010].reshape(2, 10005))):
            np.save(d + '/m.npy', m)
            launch('planfilesrc', 'location=%s/m.npy' % d, 'blocksize=%d'
                   % (m.itemsize * m.shape[1] * 999), '!', 'planreduce',
                   'op=var', 'axis=' + axis, '!', 'planfilesink',
                   'location=%s/mv.npy' % d)
            got = np.load(d + '/mv.npy')
            groups = m.T if axis == '0' else m
            for k, g in enumerate(groups):
                ex = statistics.pvariance([Fraction(float(v)) for v in g])
                e = abs(Fraction(float(got[k])) - ex)
                ne = abs(Fraction(float(np.var(g.astype(np.float64)))) - ex)
                lim = max(ne, ex * Fraction(1, 10 ** 12)) if \
                    name == 'float64' else \
                    Fraction(float(np.spacing(np.float32(got[k]))))
                if e > lim:
                    raise Failure('%s axis=%s group %d: var %r, exact %r' %
                                  (name, axis, k, float(got[k]), float(ex)))


def test_new_ops_same_result_any_blocksize():
    rng = np.random.default_rng(14)
    a = rng.standard_normal((4099, 3)) * 10.0 ** rng.integers(-3, 4, (4099, 3))
    a[::13, 0] = np.nan
    d = tmpdir()
    np.save(d + '/a.npy', a)
    ops = ['nansum', 'nanmean', 'var', 'nanstd', 'nanargmax']
    sizes = (24, 24 * 7, 24 * 2048, 24 * 3001, 1 << 20)
    for axis in AXES:
        words = []
        for i, bs in enumerate(sizes):
            for op in ops:
                words += ['planfilesrc', 'location=%s/a.npy' % d,
                          'blocksize=%d' % bs, '!', 'planreduce', 'op=' + op,
                          'axis=' + axis, 'n-threads=%d' % (i % 3), '!',
                          'planfilesink', 'location=%s/%s%d.npy' % (d, op, i)]
        launch(*words, timeout=300)
        for op in ops:
            first = np.load('%s/%s0.npy' % (d, op)).tobytes()
            for i in range(1, len(sizes)):
                if np.load('%s/%s%d.npy' % (d, op, i)).tobytes() != first:
                    raise Failure('%s axis=%s differs with blocksize %d' %
                                  (op, axis, sizes[i]))


def test_nanargmin_all_nan_fails_as_numpy():
    d = tmpdir()
    np.save(d + '/a.npy', np.full(100, np.nan))
    m = np.ones((10, 3))
    m[:, 1] = np.nan
    np.save(d + '/m.npy', m)
    np.save(d + '/r.npy', m.T.copy())
    for op in ('nanargmin', 'nanargmax'):
        for f, axis in (('a', 'all'), ('m', '0'), ('r', '-1')):
            expect_failure(['planfilesrc', 'location=%s/%s.npy' % (d, f), '!',
                            'planreduce', 'op=' + op, 'axis=' + axis, '!',
                            'planfilesink', 'location=%s/o.npy' % d],
                           op, 'All-NaN slice encountered')


def test_ptp_of_bool_fails_as_numpy():
    d = tmpdir()
    np.save(d + '/a.npy', np.array([True, False]))
    expect_failure(['planfilesrc', 'location=%s/a.npy' % d, '!', 'planreduce',
                    'op=ptp', '!', 'fakesink'], 'ptp is not defined for bool',
                   'map="int8(x)"')
    # bools a map gives: its advice was map="int8(x)", which would replace
    # the map (and cast the float input, not the comparison); it names the
    # map and map-dtype=int8, which then gives numpy's ptp of the cast
    np.save(d + '/f.npy', np.array([0.5, 3.5, 2.0]))
    for words in (['map=x > 1'], ['map=x', 'map-dtype=bool']):
        _, out = launch('planfilesrc', 'location=%s/f.npy' % d, '!', 'planreduce',
                        'name=r', 'op=ptp', *words, '!', 'fakesink', expect_ok=False)
        for needle in ('ptp is not defined for bool values, and the map "%s" '
                       'gives bools' % words[0][4:], 'map-dtype=int8'):
            if needle not in out:
                raise Failure('%r not in the output:\n%s' % (needle, out))
        if 'map="int8(x)"' in out:
            raise Failure('the advice replaces the map:\n' + out)
    launch('planfilesrc', 'location=%s/f.npy' % d, '!', 'planreduce', 'op=ptp',
           'map=x > 1', 'map-dtype=int8', '!', 'planfilesink',
           'location=%s/p.npy' % d)
    assert_same(np.load(d + '/p.npy'),
                np.asarray(np.ptp((np.array([0.5, 3.5, 2.0]) > 1).astype(np.int8))),
                'ptp of map="x > 1" map-dtype=int8')


def test_zero_d_axes_as_numpy():
    """A 0-d file: numpy's reductions take axis 0 and -1 as axis=None
    (axis=-1 gave shape (1,)), but its mean, var and std raise AxisError,
    as every op does for axis 1, and so do nanmean, nanvar and nanstd of
    integers (numpy hands them to mean, var and std)."""
    d = tmpdir()
    for a, op, axis in (
            [(np.array(3.5, np.float32), op, axis) for op, axis in
             (('sum', '-1'), ('argmax', '0'), ('std', '-1'), ('mean', '0'),
              ('max', '1'), ('nanmean', '0'), ('nanstd', '-1'))] +
            [(np.array(7, np.int32), op, axis) for op, axis in
             (('nanmean', '0'), ('nanvar', '-1'), ('nanstd', '0'),
              ('nansum', '0'))] +
            [(np.array(True), 'nanmean', '-1')]):
        np.save(d + '/a.npy', a)
        try:
            want = np.asarray(getattr(np, op)(a, axis=int(axis)))
        except np.AxisError:
            expect_failure(['planfilesrc', 'location=%s/a.npy' % d, '!',
                            'planreduce', 'op=' + op, 'axis=' + axis, '!',
                            'planfilesink', 'location=%s/o.npy' % d],
                           'axis=%s is out of bounds for this stream, which '
                           'has 0 dimensions' % axis)
            continue
        launch('planfilesrc', 'location=%s/a.npy' % d, '!', 'planreduce',
               'op=' + op, 'axis=' + axis, '!', 'planfilesink',
               'location=%s/o.npy' % d)
        got = np.load(d + '/o.npy')
        if got.shape != () or got != want:
            raise Failure('%s axis=%s of a 0-d array: %r, numpy %r' %
                          (op, axis, got, want))


def test_custom_combiner():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5003, 3)).astype(np.float64)
    d = tmpdir()
    np.save(d + '/a.npy', a)
    launch('planfilesrc', 'location=%s/a.npy' % d, 'blocksize=3000', '!',
           'planreduce', 'expr=max(x, y)', 'identity=-inf', '!',
           'planfilesink', 'location=%s/max.npy' % d,
           'planfilesrc', 'location=%s/a.npy' % d, '!',
           'planreduce', 'expr=x + y', 'identity=0', 'axis=0', '!',
           'planfilesink', 'location=%s/sum0.npy' % d,
           'planfilesrc', 'location=%s/a.npy' % d, 'blocksize=480', '!',
           'planreduce', 'expr=min(x, y)', 'identity=inf', 'axis=-1',
           'n-threads=2', '!', 'planfilesink', 'location=%s/minrow.npy' % d)
    assert_same(np.load(d + '/max.npy'), np.asarray(a.max()), 'max(x, y)')
    assert_same(np.load(d + '/sum0.npy'), a.sum(axis=0), 'x + y axis=0',
                rtol=1e-12)
    assert_same(np.load(d + '/minrow.npy'), a.min(axis=-1), 'min(x, y) axis=-1')


def fused_and_unfused(a, chains, name='m'):
    """Runs each (map, map_dtype, reduce words, blocksize) chain of `chains`
    twice in one gst-launch run, as planreduce map=... and as planmap
    expr=... ! planreduce; returns the (fused, unfused) results of each."""
    d = tmpdir()
    path = '%s/%s.npy' % (d, name)
    np.save(path, a)
    words, outs = [], []
    for k, (expr, dtype, reduce_words, blocksize) in enumerate(chains):
        src = ['planfilesrc', 'location=' + path, 'blocksize=%d' % blocksize]
        fused = ['planreduce', 'map=' + expr] + reduce_words
        unfused = ['planmap', 'expr=' + expr, '!', 'planreduce'] + reduce_words
        if dtype:
            fused.append('map-dtype=' + dtype)
            unfused.insert(2, 'dtype=' + dtype)
        out = ['%s/%s_%d_%s.npy' % (d, name, k, w) for w in ('f', 'u')]
        words += src + ['!'] + fused + ['!', 'planfilesink', 'location=' + out[0]]
        words += src + ['!'] + unfused + ['!', 'planfilesink', 'location=' + out[1]]
        outs.append(out)
    launch(*words, timeout=300)
    return [(np.load(f), np.load(u)) for f, u in outs]


def check_map_chains(a, chains, mapped, name):
    """planreduce map=... gives the bits of planmap ! planreduce, and what
    numpy gives for the reduction of `mapped(a, map_dtype)`."""
    for (fused, unfused), (expr, dtype, words, bs) in \
            zip(fused_and_unfused(a, chains, name), chains):
        what = 'map=%s %s%s on %s %s, blocksize %d' % (
            expr, ' '.join(words), ' map-dtype=' + dtype if dtype else '',
            a.dtype, a.shape, bs)
        if fused.dtype != unfused.dtype or fused.shape != unfused.shape or \
                fused.tobytes() != unfused.tobytes():
            raise Failure('%s: %r is not the planmap ! planreduce result %r'
                          % (what, fused, unfused))
        m = mapped(a, dtype)
        axis = next((w[5:] for w in words if w.startswith('axis=')), 'all')
        op = next((w[3:] for w in words if w.startswith('op=')), 'sum')
        if any(w.startswith('expr=') for w in words):
            assert_same(fused, np.asarray(m.max()), what)
        else:
            check_result(fused, m, op, axis, what)


def test_map_float32_as_planmap_and_numpy():
    rng = np.random.default_rng(5)
    a = random_array('float32', (200003,), rng)
    g = random_array('float32', (3001, 7), rng)

    def square_plus_1(x, dtype):
        with np.errstate(all='ignore'):
            return (x * x + np.float32(1)).astype(dtype or x.dtype)
    # Chunks of 40000 bytes: many, none a multiple of a block.
    check_map_chains(a, [('x*x + 1', None, ['op=sum'], 40000),
                         ('x*x + 1', None, ['op=mean', 'n-threads=1'], 1 << 20),
                         ('x*x + 1', 'float64', ['op=sum'], 40000)],
                     square_plus_1, 'flat')
    check_map_chains(g, [('x*x + 1', None, ['op=sum', 'axis=0'], 7 * 4 * 61),
                         ('in0*in0 + 1', None, ['op=sum', 'axis=-1'], 7 * 4 * 1000),
                         ('x*x + 1', None, ['op=max', 'axis=-1'], 7 * 4 * 13)],
                     square_plus_1, 'grid')


def test_map_int32_as_planmap_and_numpy():
    rng = np.random.default_rng(6)
    a = rng.integers(-100000, 100000, (5003, 5), dtype=np.int32)

    def square_plus_1(x, dtype):
        # int32 products wrap around, as numpy's do.
        with np.errstate(all='ignore'):
            return (x * x + np.int32(1)).astype(dtype or x.dtype)
    check_map_chains(a, [('x*x + 1', None, ['op=sum'], 5 * 4 * 77),
                         ('x*x + 1', None, ['op=sum', 'axis=0'], 5 * 4 * 1000),
                         ('x*x + 1', None, ['op=sum', 'axis=-1'], 5 * 4 * 333),
                         ('x*x + 1', 'int16', ['op=min', 'axis=-1'], 5 * 4 * 333)],
                     square_plus_1, 'i32')


def test_map_with_custom_combiner():
    rng = np.random.default_rng(7)
    a = random_array('float64', (100003,), rng)
    check_map_chains(a, [('abs(x)', None, ['expr=max(x, y)', 'identity=0'],
                          8 * 999)],
                     lambda x, dtype: np.abs(x), 'abs')


def test_invalid_map_shows_compiler_message():
    d = tmpdir()
    np.save(d + '/a.npy', np.arange(5, dtype=np.float32))
    expect_failure(['planfilesrc', 'location=%s/a.npy' % d, '!', 'planreduce',
                    'map=x +* 2', '!', 'fakesink'],
                   'map "x +* 2"', 'column 4', '^')


def test_map_naming_y_fails():
    d = tmpdir()
    np.save(d + '/a.npy', np.arange(5, dtype=np.float32))
    expect_failure(['planfilesrc', 'location=%s/a.npy' % d, '!', 'planreduce',
                    'name=r', 'map=x + y', '!', 'fakesink'],
                   'planreduce r, map "x + y": ', "unknown name 'y'")


def test_map_dtype_without_map_fails():
    """map-dtype casts the map's result; without a map it was ignored, so
    that op=sum map-dtype=int8 gave the float sum, silently. It now fails
    at start, as identity without expr does; map="x" casts the input."""
    d = tmpdir()
    a = np.array([0.5, 1.75, -2.5, 100.25])
    np.save(d + '/a.npy', a)
    for empty_map in ([], ['map=""']):
        expect_failure(['planfilesrc', 'location=%s/a.npy' % d, '!', 'planreduce',
                        'name=r', 'op=sum', 'map-dtype=int8'] + empty_map +
                       ['!', 'fakesink'],
                       'map-dtype=int8 is set without map', 'map="x" map-dtype=int8')
    out = d + '/s.npy'
    launch('planfilesrc', 'location=%s/a.npy' % d, '!', 'planreduce', 'op=sum',
           'map=x', 'map-dtype=int8', '!', 'planfilesink', 'location=' + out)
    assert_same(np.load(out), np.asarray(np.sum(a.astype(np.int8))),
                'sum of map=x map-dtype=int8')


def expect_failure(words, *needles):
    _, out = launch(*words, expect_ok=False)
    for n in needles:
        if n not in out:
            raise Failure('%r not in the output:\n%s' % (n, out))


def test_invalid_expr_shows_compiler_message():
    d = tmpdir()
    np.save(d + '/a.npy', np.arange(5, dtype=np.float32))
    expect_failure(['planfilesrc', 'location=%s/a.npy' % d, '!', 'planreduce',
                    'expr=x +* y', 'identity=0', '!', 'fakesink'],
                   'column 4', 'x +* y', '^')


def test_unknown_op_fails():
    d = tmpdir()
    np.save(d + '/a.npy', np.arange(5, dtype=np.float32))
    expect_failure(['planfilesrc', 'location=%s/a.npy' % d, '!', 'planreduce',
                    'op=median', '!', 'fakesink'], '"op"', 'median')


def test_combiner_without_identity_fails():
    d = tmpdir()
    np.save(d + '/a.npy', np.arange(5, dtype=np.float32))
    expect_failure(['planfilesrc', 'location=%s/a.npy' % d, '!', 'planreduce',
                    'expr=x * y', '!', 'fakesink'], 'identity', 'x * y')


def test_combiner_with_a_wrong_identity_fails():
    """An identity the combiner does not give back on either side (or a
    combiner that ignores one of its arguments) fails at start, before a
    wrong result is computed (x + 1 with 0 gave 3 for a sum of nothing but
    ones); true identities of several dtypes pass."""
    d = tmpdir()
    np.save(d + '/a.npy', np.arange(5, dtype=np.float32))
    np.save(d + '/b.npy', np.array([True, False, True]))
    np.save(d + '/i.npy', np.arange(5, dtype=np.uint8))
    for expr, identity, xy in (('x + 1', '0', 'x = 0 and y = 0'),
                               ('x * y', '0', 'x = 1 and y = 0'),
                               ('max(x, y)', '3', 'x = 1 and y = 3'),
                               ('x + y', '1', 'x = 1 and y = 1'),
                               ('x', '0', 'x = 0 and y = 1'),
                               ('x + 0.5 * y', '0', 'x = 0 and y = 1')):
        expect_failure(['planfilesrc', 'location=%s/a.npy' % d, '!',
                        'planreduce', 'expr=' + expr, 'identity=' + identity,
                        '!', 'fakesink'],
                       "the identity '%s' is no identity of the combiner "
                       "'%s': with %s" % (identity, expr, xy))
    expect_failure(['planfilesrc', 'location=%s/b.npy' % d, '!', 'planreduce',
                    'expr=x & y', 'identity=false', '!', 'fakesink'],
                   "the identity 'false' is no identity")
    for path, expr, identity, want in (
            ('a', 'x * y', '1', np.prod(np.arange(5, dtype=np.float32))),
            ('a', 'fmax(x, y)', 'nan', np.float32(4)),
            ('b', 'x & y', 'true', np.False_),
            ('b', 'x | y', 'false', np.True_),
            ('i', 'min(x, y)', '255', np.uint8(0)),
            ('i', 'x ^ y', '0',
             np.bitwise_xor.reduce(np.arange(5, dtype=np.uint8)))):
        launch('planfilesrc', 'location=%s/%s.npy' % (d, path), '!',
               'planreduce', 'expr=' + expr, 'identity=' + identity, '!',
               'planfilesink', 'location=%s/o.npy' % d)
        got = np.load(d + '/o.npy')
        if got.shape != () or got != want:
            raise Failure('%s with identity %s: %r, numpy %r' %
                          (expr, identity, got, want))


def test_empty_min_fails_as_numpy():
    d = tmpdir()
    np.save(d + '/a.npy', np.zeros(0, np.float64))
    for op in NO_IDENTITY:
        expect_failure(['planfilesrc', 'location=%s/a.npy' % d, '!',
                        'planreduce', 'op=' + op, '!', 'planfilesink',
                        'location=%s/o.npy' % d], 'empty', op)
        if os.path.exists(d + '/o.npy'):
            raise Failure('a failed reduction left o.npy behind')


def test_columns_over_many_blocks():
    """axis=0 over many column blocks (docs/planreduce.md: blocks of
    max(64, 65536 / row elements) rows, merged by a tree): every op against
    numpy, rows of 3 (21845 rows a block) and of 300 (218 rows a block),
    NaNs among the floats."""
    rng = np.random.default_rng(23)
    for dtype, shape in (('float64', (100003, 3)), ('float32', (100003, 3)),
                         ('int32', (100003, 3)), ('float32', (8000, 300))):
        a = random_array(dtype, shape, rng)
        if a.dtype.kind == 'f':
            a[rng.integers(0, shape[0], 500), rng.integers(0, shape[1], 500)] = np.nan
        test_array(a, ops=[o for o in OPS + NEW_OPS
                           if o not in ('prod', 'nanprod', 'nanargmin', 'nanargmax')],
                   axes=['0'], name='cb', chunk_rows=(4096, 21845, 997))
        test_array(prod_friendly(a), ops=['prod', 'nanprod', 'nanargmin', 'nanargmax'],
                   axes=['0'], name='cbp', chunk_rows=(4096, 21845, 997))


def test_message_and_result():
    d = tmpdir()
    np.save(d + '/a.npy', np.arange(10, dtype=np.int16))
    # Without -q, so that gst-launch prints messages and property changes.
    out = subprocess.run(['gst-launch-1.0', '-m', '-v', 'planfilesrc',
                          'location=%s/a.npy' % d, '!', 'planreduce', 'name=r',
                          'op=max', '!', 'fakesink'], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=60).stdout
    if 'plan-reduce, element=(string)r' not in out or \
            'value=(gint64)9' not in out or 'dtype=(string)int16' not in out:
        raise Failure('no plan-reduce message with the value:\n' + out)
    if 'PlanReduce:r: result = plan-reduce' not in out:
        raise Failure('the result property was not notified:\n' + out)


cases = []
for dt in DTYPES:
    for shape in SHAPES_1D + SHAPES_2D:
        cases.append(('%s %s' % (dt, shape), case(dt, shape)))
cases += [(f.__name__, f) for f in (
    test_nan_as_numpy, test_float32_sum_accuracy, test_float64_sum_accuracy,
    test_same_result_any_blocksize, test_custom_combiner,
    test_nan_ops_with_nans, test_nanarg_counts_nan_as_inf, test_ddof,
    test_variance_overflow_is_inf, test_variance_large_mean_small_spread,
    test_new_ops_same_result_any_blocksize,
    test_nanargmin_all_nan_fails_as_numpy, test_ptp_of_bool_fails_as_numpy,
    test_zero_d_axes_as_numpy,
    test_invalid_expr_shows_compiler_message, test_unknown_op_fails,
    test_combiner_without_identity_fails,
    test_combiner_with_a_wrong_identity_fails, test_empty_min_fails_as_numpy,
    test_message_and_result, test_columns_over_many_blocks,
    test_map_float32_as_planmap_and_numpy,
    test_map_int32_as_planmap_and_numpy, test_map_with_custom_combiner,
    test_invalid_map_shows_compiler_message, test_map_naming_y_fails,
    test_map_dtype_without_map_fails)]
if len(sys.argv) > 1:
    cases = [c for c in cases if any(w in c[0] for w in sys.argv[1:])]
run_cases(cases)
