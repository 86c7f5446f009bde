#!/usr/bin/python3
"""planstencil, file to file through gst-launch-1.0, against scipy.ndimage
(correlate, median_filter, maximum_filter) and numpy."""
import os
import sys

import numpy as np
from scipy import ndimage

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import (Failure, assert_same, expect_error, launch,  # noqa: E402
                      run_cases, tmpdir)

MODES = ['constant', 'nearest', 'reflect', 'mirror', 'wrap']


def run_stencil(a, window, expr, boundary, block_rows, cval=None):
    """Runs planfilesrc ! planstencil ! planfilesink on array a, read in
    chunks of block_rows rows; returns the output array."""
    d = tmpdir()
    np.save(d + '/in.npy', a)
    row = a.itemsize * (int(np.prod(a.shape[1:])) if a.ndim > 1 else 1)
    words = ['planfilesrc', 'location=%s/in.npy' % d,
             'blocksize=%d' % (row * block_rows), '!',
             'planstencil', 'window=%s' % window, 'expr=%s' % expr,
             'boundary=%s' % boundary]
    if cval is not None:
        words.append('cval=%r' % float(cval))
    words += ['!', 'planfilesink', 'location=%s/out.npy' % d]
    launch(*words)
    return np.load(d + '/out.npy')


def linear_window(weights):
    """A window picture naming every cell c<i>_<j> and the expression
    sum w * c<i>_<j> (zero weights left out, their cells drawn '_')."""
    w = np.atleast_2d(weights)
    rows, terms = [], []
    for i in range(w.shape[0]):
        cells = []
        for j in range(w.shape[1]):
            if w[i, j] == 0:
                cells.append('_')
                continue
            name = 'c%d_%d' % (i, j)
            cells.append(name)
            # Integral weights as integer literals, so that an integer
            # input keeps its dtype as in numpy.
            k = float(w[i, j])
            lit = '%d' % k if k == int(k) else repr(k)
            terms.append(name if k == 1 else '%s*%s' % (lit, name))
        rows.append(' '.join(cells))
    return '; '.join(rows), ' + '.join(terms)


def assert_close(got, want, what, scale):
    """Float results of different summation orders: equal within a few ulps
    of the magnitudes summed."""
    if got.dtype != want.dtype or got.shape != want.shape:
        raise Failure('%s: got %s %s, expected %s %s' %
                      (what, got.dtype, got.shape, want.dtype, want.shape))
    tol = 8 * np.finfo(got.dtype).eps * scale
    bad = np.abs(got.astype(np.float64) - want.astype(np.float64)) > tol
    if np.any(bad):
        i = tuple(np.argwhere(bad)[0])
        raise Failure('%s: %d values differ, first at %s: got %r, expected %r'
                      % (what, np.count_nonzero(bad), list(i), got[i], want[i]))


def check_linear(a, weights, mode, block_rows, cval=0.0):
    window, expr = linear_window(weights)
    w = np.asarray(weights, dtype=np.float64)
    if a.ndim == 2 and w.ndim == 1:
        w = w[np.newaxis, :]
    got = run_stencil(a, window, expr, mode, block_rows,
                      cval if mode == 'constant' else None)
    want = ndimage.correlate(a.astype(np.float64), w, mode=mode, cval=cval)
    what = '%s window %s mode %s blocks of %d rows' % (
        a.dtype, w.shape, mode, block_rows)
    if a.dtype.kind == 'f':
        scale = np.abs(w).sum() * max(np.abs(a).max(), abs(cval))
        assert_close(got, want.astype(a.dtype), what, scale)
    else:
        assert_same(got, want.astype(a.dtype), what)


def case_1d_linear(mode, width, block_rows, dtype):
    def run():
        rng = np.random.default_rng(width * 7 + block_rows)
        if np.dtype(dtype).kind == 'f':
            a = rng.standard_normal(101).astype(dtype)
        else:
            a = rng.integers(-1000, 1000, size=101).astype(dtype)
        weights = rng.integers(-3, 4, size=width).astype(np.float64)
        weights[width // 2] = 5
        check_linear(a, weights, mode, block_rows, cval=2.0)
    return run


def case_2d_laplacian(mode, block_rows, dtype):
    def run():
        rng = np.random.default_rng(block_rows)
        if np.dtype(dtype).kind == 'f':
            a = rng.standard_normal((37, 23)).astype(dtype)
        else:
            a = rng.integers(-1000, 1000, size=(37, 23)).astype(dtype)
        got = run_stencil(a, '_ n _; w c e; _ s _', 'n + s + e + w - 4*c',
                          mode, block_rows,
                          -1.0 if mode == 'constant' else None)
        p = pad(a, 1, mode, -1.0)
        want = (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, 2:] + p[1:-1, :-2]
                - 4 * p[1:-1, 1:-1])
        what = 'laplacian %s %s blocks of %d rows' % (dtype, mode, block_rows)
        # numpy's operations in the order written: the same to the bit,
        # floats included (the fused weighted sum rounds as they do).
        assert_same(got, want, what)
        lap = ndimage.correlate(a.astype(np.float64),
                                [[0, 1, 0], [1, -4, 1], [0, 1, 0]],
                                mode=mode, cval=-1.0)
        if a.dtype.kind == 'f':
            assert_close(got, lap.astype(a.dtype), what + ' (scipy)',
                         8 * np.abs(a).max())
        else:
            assert_same(got, lap.astype(a.dtype), what + ' (scipy)')
    return run


def pad(a, h, mode, cval):
    """numpy's pad with scipy.ndimage's mode names."""
    np_mode = {'nearest': 'edge', 'reflect': 'symmetric', 'mirror': 'reflect',
               'wrap': 'wrap', 'constant': 'constant'}[mode]
    if mode == 'constant':
        return np.pad(a, h, mode='constant', constant_values=cval)
    return np.pad(a, h, mode=np_mode)


def case_2d_square(mode, size, block_rows):
    def run():
        rng = np.random.default_rng(size * 100 + block_rows)
        a = rng.standard_normal((29, 31)).astype(np.float64)
        w = rng.integers(-2, 3, size=(size, size)).astype(np.float64)
        w[size // 2, size // 2] = 1
        check_linear(a, w, mode, block_rows, cval=0.5)
    return run


def case_sliced_chunks(mode, shape, size):
    """Chunks larger than planstencil's 2 MiB host slices: the halo rows
    carry over between slices of one buffer as between buffers."""
    def run():
        rng = np.random.default_rng(size + len(shape))
        a = rng.standard_normal(shape).astype(np.float32)
        w = rng.integers(-2, 3, size=(size,) * len(shape)).astype(np.float64)
        w[(size // 2,) * len(shape)] = 1
        check_linear(a, w, mode, shape[0], cval=0.5)
    return run


def case_one_row_window_on_2d(mode):
    def run():
        rng = np.random.default_rng(3)
        a = rng.standard_normal((17, 40)).astype(np.float32)
        check_linear(a, [1.0, -1.0, 2.0, 0.0, 3.0], mode, 4)
    return run


def case_3d_planes(mode):
    """A 2-D window on a 3-D input works on each plane on its own."""
    def run():
        rng = np.random.default_rng(19)
        a = rng.standard_normal((6, 11, 13)).astype(np.float64)
        w = np.array([[1.0, 0.0, 2.0], [0.0, -3.0, 1.0], [4.0, 1.0, 0.0]])
        window, expr = linear_window(w)
        got = run_stencil(a, window, expr, mode, 4, 0.5 if mode == 'constant'
                          else None)
        want = ndimage.correlate(a, w[np.newaxis], mode=mode, cval=0.5)
        assert_close(got, want, '3-D planes %s' % mode,
                     np.abs(w).sum() * np.abs(a).max())
    return run


def case_window_larger_than_array(mode):
    def run():
        a = np.array([3.0, -1.0, 4.0], dtype=np.float64)
        check_linear(a, np.arange(1.0, 10.0), mode, 1, cval=1.5)
        b = np.arange(6.0).reshape(2, 3)
        check_linear(b, np.arange(1.0, 50.0).reshape(7, 7), mode, 1,
                     cval=1.5)
    return run


def case_max3(mode, block_rows, dtype):
    def run():
        rng = np.random.default_rng(11)
        a = rng.integers(-100, 100, size=200).astype(dtype)
        got = run_stencil(a, 'x y z', 'max(max(x, y), z)', mode, block_rows,
                          7 if mode == 'constant' else None)
        want = ndimage.maximum_filter(a, size=3, mode=mode, cval=7)
        assert_same(got, want, 'max3 %s %s' % (dtype, mode))
    return run


def case_median3(mode, block_rows):
    def run():
        rng = np.random.default_rng(13)
        a = rng.standard_normal(300).astype(np.float32)
        got = run_stencil(a, 'x y z', 'max(min(x, y), min(max(x, y), z))',
                          mode, block_rows)
        want = ndimage.median_filter(a, size=3, mode=mode)
        assert_same(got, want, 'median3 %s' % mode)
        want2 = ndimage.generic_filter(a.astype(np.float64), np.median,
                                       size=3, mode=mode).astype(np.float32)
        assert_same(got, want2, 'median3 %s (generic_filter)' % mode)
    return run


def case_valid(shape, window_shape, block_rows):
    def run():
        rng = np.random.default_rng(17)
        a = rng.standard_normal(shape)
        w = rng.integers(-2, 3, size=window_shape).astype(np.float64)
        w.flat[w.size // 2] = 1
        window, expr = linear_window(w)
        got = run_stencil(a, window, expr, 'valid', block_rows)
        full = ndimage.correlate(a, w if a.ndim == w.ndim else w[0],
                                 mode='constant')
        hs = [s // 2 for s in w.shape][-a.ndim:]
        want = full[tuple(slice(h, full.shape[k] - h)
                          for k, h in enumerate(hs))]
        assert_close(got, want, 'valid %s window %s' % (shape, w.shape),
                     np.abs(w).sum() * np.abs(a).max())
    return run


def case_no_rows(mode):
    """An array of no rows whose window does not reach along the rows (a
    one-row window on (0, 8), a 3 x 3 window on each plane of (0, 5, 8))
    gives no rows, as numpy's slicing does: with valid, of the inner
    axes shrunk."""
    def run():
        for shape, wshape in (((0, 8), (1, 3)), ((0, 5, 8), (3, 3))):
            a = np.zeros(shape)
            w = np.arange(1.0, 1.0 + np.prod(wshape)).reshape(wshape)
            window, expr = linear_window(w)
            got = run_stencil(a, window, expr, mode, 2)
            hs = [s // 2 for s in wshape][-(a.ndim - 1):]
            want = np.zeros(shape[:1] + tuple(
                n - 2 * h if mode == 'valid' else n
                for n, h in zip(shape[1:], hs)))
            assert_same(got, want, 'no rows %s window %s %s' %
                        (shape, wshape, mode))
    return run


def run_appsrc(a, window, boundary, rows_known=True):
    """Streams a from an appsrc (a source that cannot read rows out of
    order) through planstencil into an appsink; returns (error message or
    None, output bytes). Without rows_known the caps say -1 rows, so the
    stream's length is known only at its end."""
    import gi
    gi.require_version('Gst', '1.0')
    from gi.repository import Gst
    if not Gst.is_initialized():
        # appsrc and appsink come from gst-plugins-base, which the test
        # environment leaves out; allow it here, with a registry of our own.
        saved = dict(os.environ)
        os.environ['GST_PLUGIN_LOADING_WHITELIST'] = \
            saved.get('GST_PLUGIN_LOADING_WHITELIST', '') + ':gst-plugins-base'
        os.environ['GST_REGISTRY_1_0'] = tmpdir() + '/registry.bin'
        os.environ['GST_PLUGIN_SYSTEM_PATH_1_0'] = ''
        Gst.init(None)
        os.environ.clear()
        os.environ.update(saved)
    shape = ', '.join(str(n) for n in
                      (a.shape if rows_known else (-1,) + a.shape[1:]))
    p = Gst.parse_launch(
        'appsrc name=src format=buffers caps="array/x-raw, dtype=%s, '
        'shape=(int)<%s>" ! planstencil window="%s" expr="x + z" boundary=%s '
        '! appsink name=sink sync=false wait-on-eos=false' % (a.dtype, shape, window, boundary))
    src, sink = p.get_by_name('src'), p.get_by_name('sink')
    p.set_state(Gst.State.PLAYING)
    row = a.itemsize * int(np.prod(a.shape[1:]))
    for i in range(0, len(a), 4):
        buf = Gst.Buffer.new_wrapped(a[i:i + 4].tobytes())
        buf.offset, buf.offset_end = i, min(i + 4, len(a))
        src.emit('push-buffer', buf)
    src.emit('end-of-stream')
    msg = p.get_bus().timed_pop_filtered(
        10 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
    out = b''
    while True:
        sample = sink.emit('try-pull-sample', 0)
        if sample is None:
            break
        b = sample.get_buffer()
        out += b.extract_dup(0, b.get_size())
    p.set_state(Gst.State.NULL)
    if msg is None:
        raise Failure('appsrc pipeline neither ended nor failed')
    if msg.type == Gst.MessageType.ERROR:
        return msg.parse_error()[0].message, out
    assert row > 0
    return None, out


def test_wrap_needs_random_access_source():
    try:
        import gi  # noqa: F401
    except ImportError:
        print('  (skipped: no python3-gi)')
        return
    a = np.arange(24, dtype=np.float32).reshape(12, 2)
    err, _ = run_appsrc(a, 'x; _; z', 'wrap')
    if err is None or 'planfilesrc' not in err:
        raise Failure('wrap along the rows from appsrc: expected an error '
                      'naming planfilesrc, got %r' % err)
    # appsrc is no kernel element: the reason given is its own
    if 'does not read rows out of order' not in err or \
            'behind a kernel element' in err:
        raise Failure('wrap along the rows from appsrc: the error gives '
                      'the reason for a kernel element: %r' % err)
    # Along each row, wrap needs nothing from the source.
    err, out = run_appsrc(a, 'x _ z', 'wrap')
    if err is not None:
        raise Failure('wrap along each row from appsrc failed: %s' % err)
    got = np.frombuffer(out, np.float32).reshape(a.shape)
    want = np.roll(a, 1, axis=1) + np.roll(a, -1, axis=1)
    assert_same(got, want, 'wrap along each row from appsrc')


def test_wrap_behind_npyparse():
    """filesrc ! npyparse (a parser, not a kernel element) cannot give the
    last rows: the error says so, and what to read the file with."""
    d = tmpdir()
    np.save(d + '/a.npy', np.arange(24.0).reshape(12, 2))
    out = expect_error(['filesrc', 'location=%s/a.npy' % d, '!', 'npyparse',
                        '!', 'planstencil', 'window=x; _; z', 'expr=x + z',
                        'boundary=wrap', '!', 'planfilesink',
                        'location=%s/o.npy' % d],
                       'needs the last row of', 'npyparse0 cannot give them',
                       'does not read rows out of order',
                       'read the input with planfilesrc')
    if 'behind a kernel element' in out:
        raise Failure('npyparse is no kernel element: %s' % out)
    # behind a kernel element, that is the reason
    expect_error(['planfilesrc', 'location=%s/a.npy' % d, '!', 'planmap',
                  'expr=x * 2', '!', 'planstencil', 'window=x; _; z',
                  'expr=x + z', 'boundary=wrap', '!', 'planfilesink',
                  'location=%s/o.npy' % d],
                 'planmap0 cannot give them (behind a kernel element')


def test_valid_no_rows_of_unknown_length():
    """boundary=valid with a window that does not reach along the rows,
    over a stream whose length comes only with its end: no rows give no
    rows (numpy's slicing), checked at EOS rather than from the caps."""
    try:
        import gi  # noqa: F401
    except ImportError:
        print('  (skipped: no python3-gi)')
        return
    for n in (0, 5):
        a = np.arange(n * 8, dtype=np.float32).reshape(n, 8)
        err, out = run_appsrc(a, 'x _ z', 'valid', rows_known=False)
        if err is not None:
            raise Failure('valid over %d rows of unknown length failed: %s'
                          % (n, err))
        got = np.frombuffer(out, np.float32).reshape(n, 6)
        assert_same(got, a[:, :-2] + a[:, 2:], 'valid over %d rows' % n)
    err, _ = run_appsrc(np.zeros((2, 8), np.float32), 'x; _; z', 'valid',
                        rows_known=False)
    if err is None or 'the stream has 2 rows but the window spans 3' not in err:
        raise Failure('a window along 2 rows of unknown length: expected the '
                      'error at the end, got %r' % err)


def test_wrap_within_a_shard():
    """A shard (planfilesrc offset/length) is the stream: wrap joins its
    own ends, with the last rows read through the source."""
    d = tmpdir()
    a = np.arange(100, dtype=np.float64).reshape(50, 2)
    np.save(d + '/in.npy', a)
    launch('planfilesrc', 'location=%s/in.npy' % d, 'offset=10', 'length=20',
           'blocksize=48', '!', 'planstencil', 'window=n; c; s',
           'expr=n + 100*c + 10000*s', 'boundary=wrap', '!', 'planfilesink',
           'location=%s/out.npy' % d)
    want = ndimage.correlate(a[10:30], [[1], [100], [10000]], mode='wrap')
    assert_same(np.load(d + '/out.npy'), want, 'wrap within rows 10..29')


def test_bad_window_shows_picture():
    d = tmpdir()
    np.save(d + '/in.npy', np.zeros((4, 4), np.float32))
    _, out = launch('planfilesrc', 'location=%s/in.npy' % d, '!',
                    'planstencil', 'window=a b c; d e', 'expr=a', '!',
                    'planfilesink', 'location=%s/out.npy' % d,
                    expect_ok=False)
    if 'row 2 has 2 cells' not in out or 'a b c' not in out:
        raise Failure('error does not show the window:\n' + out)
    if os.path.exists(d + '/out.npy'):
        raise Failure('a failed pipeline left out.npy behind')


def test_output_shape_and_dtype_from_expression():
    a = np.arange(20, dtype=np.int16).reshape(4, 5)
    got = run_stencil(a, 'x y z', '(x + y + z) / 3', 'nearest', 3)
    p = np.pad(a, ((0, 0), (1, 1)), mode='edge')
    want = (p[:, :-2] + p[:, 1:-1] + p[:, 2:]) / 3
    assert_close(got, want, 'true division of int16', 3 * 20)


def main():
    cases = []
    for mode in MODES:
        for width, rows, dtype in ((3, 1, 'float32'), (5, 7, 'float64'),
                                   (9, 1000, 'float32'), (3, 13, 'int32'),
                                   (9, 2, 'int64')):
            cases.append(('1-D width %d %s %s blocks %d' %
                          (width, dtype, mode, rows),
                          case_1d_linear(mode, width, rows, dtype)))
        for rows, dtype in ((1, 'float32'), (7, 'float64'), (100, 'int32')):
            cases.append(('2-D laplacian %s %s blocks %d' % (mode, dtype, rows),
                          case_2d_laplacian(mode, rows, dtype)))
        for size, rows in ((5, 3), (9, 11)):
            cases.append(('2-D %dx%d %s blocks %d' % (size, size, mode, rows),
                          case_2d_square(mode, size, rows)))
        cases.append(('chunks in slices, 2-D 3x3 %s' % mode,
                      case_sliced_chunks(mode, (1100, 1024), 3)))
        cases.append(('chunks in slices, 1-D width 9 %s' % mode,
                      case_sliced_chunks(mode, (1500007,), 9)))
        cases.append(('one-row window on 2-D %s' % mode,
                      case_one_row_window_on_2d(mode)))
        cases.append(('3-D input, 2-D window on each plane %s' % mode,
                      case_3d_planes(mode)))
        cases.append(('window larger than array %s' % mode,
                      case_window_larger_than_array(mode)))
        cases.append(('max of 3 %s' % mode, case_max3(mode, 7, 'int16')))
        cases.append(('median of 3 %s' % mode, case_median3(mode, 1)))
    for shape, wshape, rows in (((50,), (1, 5), 1), ((50,), (1, 9), 13),
                                ((21, 19), (3, 3), 1), ((21, 19), (5, 9), 5),
                                ((21, 19), (9, 3), 100)):
        cases.append(('valid %s window %s blocks %d' % (shape, wshape, rows),
                      case_valid(shape, wshape, rows)))
    for mode in MODES + ['valid']:
        cases.append(('no rows, window not along them, %s' % mode,
                      case_no_rows(mode)))
    cases.append(('bad window shows picture', test_bad_window_shows_picture))
    cases.append(('wrap within a shard', test_wrap_within_a_shard))
    cases.append(('valid over no rows of unknown length',
                  test_valid_no_rows_of_unknown_length))
    cases.append(('wrap along the rows needs a random-access source',
                  test_wrap_needs_random_access_source))
    cases.append(('wrap behind npyparse', test_wrap_behind_npyparse))
    cases.append(('dtype from expression',
                  test_output_shape_and_dtype_from_expression))
    run_cases(cases)


if __name__ == '__main__':
    main()
