#!/usr/bin/python3
"""planmap, file to file through real pipelines, against numpy."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import (DTYPES, Failure, assert_same, launch, random_array,  # noqa: E402
                      run_cases, tmpdir)

EXPRS = {
    1: ('x + x', lambda a: a[0] + a[0]),
    2: ('x * y + x', lambda a: a[0] * a[1] + a[0]),
    3: ('x + y * z', lambda a: a[0] + a[1] * a[2]),
    5: ('in0 + in1 + in2 + in3 + in4',
        lambda a: a[0] + a[1] + a[2] + a[3] + a[4]),
}


def run_map(expr, arrays, blocksizes, extra=()):
    d = tmpdir()
    words = ['planmap', 'name=m', 'expr=%s' % expr] + list(extra) + \
        ['!', 'planfilesink', 'location=%s/out.npy' % d]
    for i, (a, bs) in enumerate(zip(arrays, blocksizes)):
        path = '%s/in%d.npy' % (d, i)
        np.save(path, a)
        words += ['planfilesrc', 'location=%s' % path, 'blocksize=%d' % bs,
                  '!', 'm.sink_%d' % i]
    launch(*words)
    return np.load('%s/out.npy' % d)


def case(n_inputs, dtype, length, inner):
    def run():
        rng = np.random.default_rng(length * 31 + n_inputs)
        shape = (length,) + inner
        arrays = [random_array(dtype, shape, rng) for _ in range(n_inputs)]
        row = int(np.prod(inner)) * np.dtype(dtype).itemsize
        # Different chunk sizes on each input: 7, 13, 3, 11, 5 rows.
        blocks = [row * r for r in (7, 13, 3, 11, 5)[:n_inputs]]
        expr, ref = EXPRS[n_inputs]
        with np.errstate(all='ignore'):
            want = ref(arrays)
        got = run_map(expr, arrays, blocks)
        assert_same(got, want, '%s on %s %s' % (expr, dtype, shape),
                    rtol=1e-6 if np.dtype(dtype).kind == 'f' else 0)
    return run


def test_nonlinear_float32():
    rng = np.random.default_rng(5)
    a = rng.standard_normal(100003).astype(np.float32)
    b = rng.standard_normal(100003).astype(np.float32)
    got = run_map('2*x*y + sin(x)', [a, b], [4096, 65536])
    if got.dtype != np.float32 or got.shape != a.shape:
        raise Failure('2*x*y + sin(x): got %s %s' % (got.dtype, got.shape))
    # Compare with the float64 result, allowing a few float32 rounding
    # errors on each term: the sum may cancel, so the bound scales with the
    # terms, not with the result.
    x, y = a.astype(np.float64), b.astype(np.float64)
    terms = np.abs(2 * x * y) + np.abs(np.sin(x))
    err = np.abs(got - (2 * x * y + np.sin(x)))
    bound = 4 * np.finfo(np.float32).eps * terms
    if np.any(err > bound):
        i = int(np.argmax(err / bound))
        raise Failure('2*x*y + sin(x) at %d: error %g exceeds %g' % (i, err[i], bound[i]))


def test_dtype_property():
    a = np.arange(-5, 6, dtype=np.float64) * 1.5
    got = run_map('x', [a], [16], extra=['dtype=int32'])
    assert_same(got, a.astype(np.int32), 'dtype=int32 cast')


def test_mismatched_lengths_fail():
    d = tmpdir()
    np.save(d + '/a.npy', np.zeros(10, np.float32))
    np.save(d + '/b.npy', np.zeros(7, np.float32))
    _, out = launch('planmap', 'name=m', 'expr=x+y', '!', 'planfilesink',
                    'location=%s/out.npy' % d,
                    'planfilesrc', 'location=%s/a.npy' % d, '!', 'm.sink_0',
                    'planfilesrc', 'location=%s/b.npy' % d, '!', 'm.sink_1',
                    expect_ok=False)
    if '10 rows' not in out or '7 rows' not in out:
        raise Failure('error does not name both lengths:\n' + out)
    if os.path.exists(d + '/out.npy'):
        raise Failure('a failed pipeline left out.npy behind')


def test_mismatched_shapes_fail():
    d = tmpdir()
    np.save(d + '/a.npy', np.zeros((10, 3), np.float32))
    np.save(d + '/b.npy', np.zeros((10, 4), np.float32))
    _, out = launch('planmap', 'name=m', 'expr=x+y', '!', 'planfilesink',
                    'location=%s/out.npy' % d,
                    'planfilesrc', 'location=%s/a.npy' % d, '!', 'm.sink_0',
                    'planfilesrc', 'location=%s/b.npy' % d, '!', 'm.sink_1',
                    expect_ok=False)
    if '(10, 3)' not in out or '(10, 4)' not in out:
        raise Failure('error does not name both shapes:\n' + out)


def test_invalid_expression_is_reported():
    d = tmpdir()
    np.save(d + '/a.npy', np.zeros(10, np.float32))
    _, out = launch('planfilesrc', 'location=%s/a.npy' % d, '!', 'planmap',
                    'expr=x +* 2', '!', 'planfilesink',
                    'location=%s/out.npy' % d, expect_ok=False)
    if 'x +* 2' not in out or '^' not in out:
        raise Failure('the compiler message is not shown:\n' + out)


def test_map_teed_into_file_and_reduction():
    """A map's output written to a file and reduced in one pipeline: the
    reduction's file sink gets its only buffer at EOS, which must not stall
    the other branch (planfilesink does not preroll)."""
    d = tmpdir()
    rng = np.random.default_rng(9)
    a = rng.standard_normal((300001, 2)).astype(np.float32)
    np.save(d + '/a.npy', a)
    launch('planfilesrc', 'location=%s/a.npy' % d, 'blocksize=65536', '!',
           'planmap', 'expr=x * 2', '!', 'tee', 'name=t',
           '!', 'queue', '!', 'planfilesink', 'location=%s/out.npy' % d,
           't.', '!', 'queue', '!', 'planreduce', 'op=max', '!',
           'planfilesink', 'location=%s/max.npy' % d, timeout=60)
    assert_same(np.load(d + '/out.npy'), a * 2, 'teed map output')
    assert_same(np.load(d + '/max.npy'), np.max(a * 2), 'teed reduction')


def with_device(target, fn):
    """Runs fn with GST_PLAN_DEVICE=sim for target=cuda (the GPU paths on
    the CPU), as it is otherwise."""
    if target == 'cpu':
        return fn()
    old = os.environ.get('GST_PLAN_DEVICE')
    os.environ['GST_PLAN_DEVICE'] = 'sim'
    try:
        return fn()
    finally:
        if old is None:
            del os.environ['GST_PLAN_DEVICE']
        else:
            os.environ['GST_PLAN_DEVICE'] = old


def test_zero_d_arrays():
    """A 0-d array (what a reduction writes) is one element: a map over a
    0-d .npy, over two of them, and over a reduction's result, on the CPU
    and on the (simulated) device, give numpy's 0-d results."""
    d = tmpdir()
    np.save(d + '/z.npy', np.array(3.5))
    np.save(d + '/w.npy', np.array(-1.25))
    np.save(d + '/i.npy', np.array(7, np.int16))
    a = (np.arange(1000) % 89 - 30).astype(np.float64)
    np.save(d + '/a.npy', a)
    out = d + '/out.npy'
    for target in ('cpu', 'cuda'):
        t = 'target=' + target
        with_device(target, lambda: launch(
            'planfilesrc', 'location=%s/z.npy' % d, '!', 'planmap', t,
            'expr=2 * x + 1', '!', 'planfilesink', 'location=' + out))
        assert_same(np.load(out), 2 * np.array(3.5) + 1, '0-d map ' + target)
        with_device(target, lambda: launch(
            'planfilesrc', 'location=%s/i.npy' % d, '!', 'planmap', t,
            'expr=x * x', '!', 'planfilesink', 'location=' + out))
        assert_same(np.load(out), np.array(49, np.int16),
                    '0-d int16 map ' + target)
        with_device(target, lambda: launch(
            'planmap', 'name=m', t, 'expr=x * y + x', '!', 'planfilesink',
            'location=' + out,
            'planfilesrc', 'location=%s/z.npy' % d, '!', 'm.sink_0',
            'planfilesrc', 'location=%s/w.npy' % d, '!', 'm.sink_1'))
        assert_same(np.load(out), np.array(3.5 * -1.25 + 3.5),
                    'map of two 0-d inputs ' + target)
        with_device(target, lambda: launch(
            'planfilesrc', 'location=%s/a.npy' % d, '!', 'planreduce', t,
            'op=sum', '!', 'planmap', t, 'expr=x / 1000', '!',
            'planfilesink', 'location=' + out))
        assert_same(np.load(out), np.array(a.sum() / 1000),
                    'planreduce ! planmap ' + target)


def test_zero_d_errors_kept():
    """Where a 0-d stream cannot work, the error says why: beside a stream
    with axes in one map (the streams line up row by row), and under a
    stencil (a window needs an axis)."""
    d = tmpdir()
    np.save(d + '/z.npy', np.array(3.5))
    np.save(d + '/one.npy', np.array([2.0]))
    _, out = launch('planmap', 'name=m', 'expr=x * y', '!', 'planfilesink',
                    'location=%s/out.npy' % d,
                    'planfilesrc', 'location=%s/z.npy' % d, '!', 'm.sink_0',
                    'planfilesrc', 'location=%s/one.npy' % d, '!', 'm.sink_1',
                    expect_ok=False)
    if 'the shapes () of \'x\' and (1,) of \'y\' do not broadcast' not in out:
        raise Failure('the error does not name both shapes:\n' + out)
    _, out = launch('planfilesrc', 'location=%s/z.npy' % d, '!',
                    'planstencil', 'window=w,c,e', 'expr=w + c + e', '!',
                    'planfilesink', 'location=%s/out.npy' % d,
                    expect_ok=False)
    if 'of shape (), has 0 axes' not in out:
        raise Failure('the stencil does not say why:\n' + out)
    if os.path.exists(d + '/out.npy'):
        raise Failure('a failed pipeline left out.npy behind')


cases = []
for n in (1, 2, 3, 5):
    for dtype in DTYPES + ["float16"]:
        for length in (0, 1, 101, 5003):
            inner = (3,) if length == 101 else ()
            cases.append(('map %d inputs %s len %d' % (n, dtype, length),
                          case(n, dtype, length, inner)))
cases += [
    ('nonlinear float32', test_nonlinear_float32),
    ('dtype property', test_dtype_property),
    ('mismatched lengths', test_mismatched_lengths_fail),
    ('mismatched shapes', test_mismatched_shapes_fail),
    ('invalid expression', test_invalid_expression_is_reported),
    ('map teed into a file and a reduction', test_map_teed_into_file_and_reduction),
    ('0-d arrays, CPU and sim device', test_zero_d_arrays),
    ('0-d arrays: errors where they cannot work', test_zero_d_errors_kept),
]
run_cases(cases)
