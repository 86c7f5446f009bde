#!/usr/bin/python3
"""planstencil iterations=N against N planstencil elements in a row, byte
for byte: every boundary mode, 1-D, 2-D and 3-D windows, an expression that
changes the dtype, chunks from one row to the whole array, on the CPU and
on the sim device. boundary=wrap along the streaming axis, which a second
element in a row cannot do, against N pipelines file to file. And the
PolyBench jacobi-1d kernel as an iterated plan against its C loops."""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import (Failure, assert_bits, launch, run_cases,  # noqa: E402
                      tmpdir)

MODES = ['constant', 'nearest', 'reflect', 'mirror', 'valid']

WINDOWS = {
    '1d': ('a b c d e', '0.25*a + 0.5*c - 0.125*(b + d) + 0.0625*e',
           (61,)),
    '2d': ('_ n _; w c e; _ s _', '0.2*(c + w + e + s + n)', (29, 17)),
    # int16 in, float64 out: every application after the first reads
    # float64, as a second element would.
    'dtype': ('_ n _; w c e; _ s _', '(n + s + e + w) / 3', (23, 9)),
    # A one-row window on a 2-D input: no halo along the streaming axis.
    'rows': ('x y z', 'x - 2*y + z', (19, 15)),
    # A window over the three axes of a volume.
    '3d': ('_ _ _; _ b _; _ _ _ | _ n _; w c e; _ s _ | _ _ _; _ f _; _ _ _',
           '0.125*(b + f + n + s + e + w) + 0.25*c', (13, 8, 9)),
}


def stencil_words(window, expr, mode, iterations, device):
    words = ['planstencil', 'window=%s' % window, 'expr=%s' % expr,
             'boundary=%s' % mode, 'cval=1.5']
    if iterations != 1:
        words.append('iterations=%d' % iterations)
    if device:
        words.append('target=cuda')
    return words + ['!']


def run(a, window, expr, mode, block_rows, iterations=1, chained=1,
        device=False, src=None):
    """planfilesrc ! (planstencil ! ) x chained ! planfilesink; each
    stencil with iterations=iterations."""
    d = tmpdir()
    if src is None:
        src = os.path.join(d, 'in.npy')
        np.save(src, a)
    out = os.path.join(d, 'out.npy')
    row = a.itemsize * (int(np.prod(a.shape[1:])) if a.ndim > 1 else 1)
    # More rows than the array has means the whole array in one chunk:
    # blocksize stays within planfilesrc's range (at most 1 GiB).
    block_rows = min(block_rows, max(1, a.shape[0] if a.ndim else 1))
    words = ['planfilesrc', 'location=%s' % src,
             'blocksize=%d' % (row * block_rows), '!']
    if device:
        words += ['planupload', '!']
    for _ in range(chained):
        words += stencil_words(window, expr, mode, iterations, device)
    if device:
        words += ['plandownload', '!']
    words += ['planfilesink', 'location=%s' % out]
    launch_on(device, words)
    return np.load(out)


def launch_on(device, words):
    """Runs a pipeline, with the sim device for target=cuda when
    device is set."""
    env = dict(os.environ)
    if device:
        os.environ['GST_PLAN_DEVICE'] = 'sim'
    try:
        launch(*words)
    finally:
        os.environ.clear()
        os.environ.update(env)


def sample(kind, seed):
    rng = np.random.default_rng(seed)
    shape = WINDOWS[kind][2]
    if kind == 'dtype':
        return rng.integers(-1000, 1000, size=shape).astype(np.int16)
    return rng.standard_normal(shape)


def case_same_as_chained(kind, mode, n, device):
    def check():
        window, expr, _ = WINDOWS[kind]
        a = sample(kind, n)
        # The reference: n elements in a row, the whole array in one chunk.
        want = run(a, window, expr, mode, 100000, chained=n)
        for block_rows in (1, 3, 8, 100000):
            got = run(a, window, expr, mode, block_rows, iterations=n,
                      device=device)
            assert_bits(got, want, '%s %s iterations=%d in chunks of %d '
                        'rows%s' % (kind, mode, n, block_rows,
                                    ' on the sim device' if device else ''))
    return check


def case_wrap(kind, n, device):
    """wrap along the streaming axis: a stencil after another cannot read
    the last rows out of order, so the reference is n pipelines, each
    reading the file the one before wrote."""
    def check():
        window, expr, _ = WINDOWS[kind]
        a = sample(kind, 7 * n)
        d = tmpdir()
        cur = a
        for _ in range(n):
            path = os.path.join(d, 'step.npy')
            np.save(path, cur)
            cur = run(cur, window, expr, 'wrap', 100000, src=path)
        for block_rows in (1, 4, 100000):
            got = run(a, window, expr, 'wrap', block_rows, iterations=n,
                      device=device)
            assert_bits(got, cur, '%s wrap iterations=%d in chunks of %d rows'
                        '%s' % (kind, n, block_rows,
                                ' on the sim device' if device else ''))
    return check


def case_in_pieces(mode):
    """Rows of 16 KiB: a chunk goes through the applications before the
    last in pieces of a few rows (temporal blocking), gathered for the
    last; the same bytes as 3 elements in a row."""
    def check():
        window, expr = WINDOWS['2d'][:2]
        a = np.random.default_rng(5).standard_normal((150, 2048))
        if mode == 'wrap':
            d = tmpdir()
            want = a
            for _ in range(3):
                path = os.path.join(d, 'step.npy')
                np.save(path, want)
                want = run(want, window, expr, mode, 100000, src=path)
        else:
            want = run(a, window, expr, mode, 100000, chained=3)
        for block_rows in (100000, 37, 1):
            got = run(a, window, expr, mode, block_rows, iterations=3)
            assert_bits(got, want, 'rows of 16 KiB, %s, chunks of %d rows' %
                        (mode, block_rows))
    return check


def test_wrap_shorter_than_halo():
    """A stream of 3 rows, 4 iterations of a 5-wide window: the rows
    before and after it repeat periodically, as numpy's wrap padding."""
    a = np.arange(3, dtype=np.float64) * 1.5 + 1
    got = run(a, 'a b c d e', 'a + 2*b + 3*c + 4*d + 5*e', 'wrap', 1,
              iterations=4)
    cur = a
    for _ in range(4):
        p = np.pad(cur, 2, mode='wrap')
        cur = (p[:-4] + 2 * p[1:-3] + 3 * p[2:-2] + 4 * p[3:-1] +
               5 * p[4:])
    assert_bits(got, cur, 'wrap over a stream shorter than the halo')


def test_valid_too_short():
    """valid: each application shrinks the array; one that would leave
    nothing is an error naming it."""
    a = np.arange(9, dtype=np.float32)
    d = tmpdir()
    np.save(d + '/in.npy', a)
    rc, out = launch('planfilesrc', 'location=%s/in.npy' % d, '!',
                     'planstencil', 'window=a b c', 'expr=a + b + c',
                     'boundary=valid', 'iterations=5', '!', 'planfilesink',
                     'location=%s/out.npy' % d, expect_ok=False)
    if 'application 5 of 5' not in out:
        raise Failure('the error does not name the application:\n' + out)
    if os.path.exists(d + '/out.npy'):
        raise Failure('a failed run left an output file')


def test_wrap_behind_a_map_is_refused():
    """wrap along the streaming axis reads the stream's last rows out of
    order: behind planmap, which cannot give them, a clear error."""
    d = tmpdir()
    np.save(d + '/in.npy', np.arange(20, dtype=np.float64))
    rc, out = launch('planfilesrc', 'location=%s/in.npy' % d, '!', 'planmap',
                     'expr=x * 2', '!', 'planstencil', 'window=a b c',
                     'expr=a + b + c', 'boundary=wrap', 'iterations=3', '!',
                     'planfilesink', 'location=%s/out.npy' % d,
                     expect_ok=False)
    if 'last 3 rows' not in out or 'cannot give them' not in out:
        raise Failure('unexpected message:\n' + out)


def polybench_jacobi_1d_reference(n, tsteps):
    """PolyBench's jacobi-1d, compiled from tests/pipelines/jacobi_ref.c
    (its loops as the benchmark writes them, double precision), run on
    PolyBench's initial arrays; the final A."""
    exe = os.environ.get('PLAN_JACOBI_REF')
    if not exe:
        raise Failure('PLAN_JACOBI_REF is not set (meson sets it)')
    d = tmpdir()
    out = os.path.join(d, 'ref.npy')
    subprocess.run([exe, '1d', str(n), str(tsteps), out], check=True)
    return np.load(out)


def jacobi_1d_plan(n, tsteps, block_rows, device=False):
    """jacobi-1d as one planstencil: a time step (B from A, then A from B)
    is one application of a 5-wide window; cells outside the array are NaN
    (cval=nan), which marks the fixed ends: A[0] and A[n-1] keep their
    values, and B[0], B[n-1], never written by the kernel, keep
    PolyBench's initial values 3/n and (n+2)/n."""
    b0 = repr((0 + 3.0) / n)
    bn = repr((n - 1 + 3.0) / n)
    left = 'where(isnan(a), %s, 0.33333 * (a + b + c))' % b0
    mid = '0.33333 * (b + c + d)'
    right = 'where(isnan(e), %s, 0.33333 * (c + d + e))' % bn
    expr = ('where(isnan(b) | isnan(d), c, 0.33333 * (%s + %s + %s))' %
            (left, mid, right))
    a = (np.arange(n, dtype=np.float64) + 2) / n
    d = tmpdir()
    np.save(d + '/a.npy', a)
    words = ['planfilesrc', 'location=%s/a.npy' % d,
             'blocksize=%d' % (8 * block_rows), '!']
    if device:
        words += ['planupload', '!']
    words += ['planstencil', 'window=a b c d e', 'expr=%s' % expr,
              'boundary=constant', 'cval=nan', 'iterations=%d' % tsteps]
    if device:
        words += ['target=cuda', '!', 'plandownload']
    words += ['!', 'planfilesink', 'location=%s/out.npy' % d]
    launch_on(device, words)
    return np.load(d + '/out.npy')


def test_polybench_jacobi_1d():
    for n, tsteps in ((30, 20), (120, 40), (400, 100)):
        want = polybench_jacobi_1d_reference(n, tsteps)
        for block_rows in (1, 7, n):
            got = jacobi_1d_plan(n, tsteps, block_rows)
            assert_bits(got, want, 'jacobi-1d n=%d tsteps=%d chunks of %d' %
                        (n, tsteps, block_rows))
        got = jacobi_1d_plan(n, tsteps, 7, device=True)
        assert_bits(got, want, 'jacobi-1d n=%d tsteps=%d on the sim device' %
                    (n, tsteps))


def main():
    cases = []
    for kind in WINDOWS:
        for mode in MODES:
            for n in ((3,) if kind == '3d' else (2, 3)):
                cases.append(('%s %s iterations=%d' % (kind, mode, n),
                              case_same_as_chained(kind, mode, n, False)))
            cases.append(('%s %s iterations=3 sim device' % (kind, mode),
                          case_same_as_chained(kind, mode, 3, True)))
        cases.append(('%s wrap iterations=3' % kind,
                      case_wrap(kind, 3, False)))
        cases.append(('%s wrap iterations=2 sim device' % kind,
                      case_wrap(kind, 2, True)))
    for mode in ('nearest', 'valid', 'wrap'):
        cases.append(('in pieces, %s' % mode, case_in_pieces(mode)))
    cases.append(('wrap over a stream shorter than the halo',
                  test_wrap_shorter_than_halo))
    cases.append(('valid: an application with nothing left',
                  test_valid_too_short))
    cases.append(('wrap behind a map is refused',
                  test_wrap_behind_a_map_is_refused))
    cases.append(('PolyBench jacobi-1d', test_polybench_jacobi_1d))
    run_cases(cases)


if __name__ == '__main__':
    main()
