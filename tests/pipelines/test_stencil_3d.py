#!/usr/bin/python3
"""planstencil with windows over three axes (planes separated by '|'),
file to file, against scipy.ndimage.correlate on 3-D arrays and numpy
slicing: the 7-point and the 27-point Laplacian and an asymmetric window,
every boundary mode, volumes read in chunks of one plane to all of them,
a 3-D window over the last three axes of a 4-D input, and the error for
too few axes. The sim device against the CPU is in test_stencil_device.py,
iterations in test_stencil_iterations.py."""
import os
import sys

import numpy as np
from scipy import ndimage

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import (Failure, assert_same, expect_error, launch,  # noqa: E402
                      run_cases, tmpdir)

MODES = ['constant', 'nearest', 'reflect', 'mirror', 'wrap']

LAPLACE7 = ('_ _ _; _ b _; _ _ _ | _ n _; w c e; _ s _ | _ _ _; _ f _; _ _ _',
            'b + f + n + s + e + w - 6*c')


def run_stencil(a, window, expr, boundary, block_planes, cval=None):
    """planfilesrc ! planstencil ! planfilesink over a, read block_planes
    planes (rows of the streaming axis) at a time."""
    d = tmpdir()
    np.save(d + '/in.npy', a)
    words = ['planfilesrc', 'location=%s/in.npy' % d,
             'blocksize=%d' % (a[0].nbytes * block_planes), '!',
             'planstencil', 'window=%s' % window, 'expr=%s' % expr,
             'boundary=%s' % boundary]
    if cval is not None:
        words.append('cval=%r' % float(cval))
    words += ['!', 'planfilesink', 'location=%s/out.npy' % d]
    launch(*words)
    return np.load(d + '/out.npy')


def window_of(weights):
    """The picture naming every non-zero cell of a 3-D weight array and
    the weighted sum of those names."""
    planes, terms = [], []
    for z in range(weights.shape[0]):
        rows = []
        for y in range(weights.shape[1]):
            cells = []
            for x in range(weights.shape[2]):
                k = weights[z, y, x]
                if k == 0:
                    cells.append('_')
                    continue
                name = 'c%d_%d_%d' % (z, y, x)
                cells.append(name)
                lit = '%d' % k if k == int(k) else repr(float(k))
                terms.append(name if k == 1 else '%s*%s' % (lit, name))
            rows.append(' '.join(cells))
        planes.append('; '.join(rows))
    return ' | '.join(planes), ' + '.join(terms)


def scipy_want(a, weights, mode, cval):
    """scipy.ndimage.correlate, with boundary=valid as the interior of
    mode constant."""
    if mode != 'valid':
        return ndimage.correlate(a, weights, mode=mode, cval=cval)
    full = ndimage.correlate(a, weights, mode='constant')
    h = [s // 2 for s in weights.shape]
    return full[tuple(slice(h[k], full.shape[k] - h[k])
                      for k in range(full.ndim))]


def assert_close(got, want, what, scale):
    if got.dtype != want.dtype or got.shape != want.shape:
        raise Failure('%s: got %s %s, expected %s %s' %
                      (what, got.dtype, got.shape, want.dtype, want.shape))
    bad = np.abs(got - want) > 8 * np.finfo(got.dtype).eps * scale
    if np.any(bad):
        i = tuple(np.argwhere(bad)[0])
        raise Failure('%s: %d values differ, first at %s: got %r, expected %r'
                      % (what, np.count_nonzero(bad), list(i), got[i], want[i]))


def pad(a, mode, cval):
    np_mode = {'nearest': 'edge', 'reflect': 'symmetric', 'mirror': 'reflect',
               'wrap': 'wrap'}
    if mode == 'constant':
        return np.pad(a, 1, mode='constant', constant_values=cval)
    return np.pad(a, 1, mode=np_mode[mode])


def case_laplace7(mode, block_planes):
    """The 7-point Laplacian: numpy slicing of the padded volume in the
    expression's order gives the same bits; scipy agrees within rounding."""
    def run():
        a = np.random.default_rng(block_planes).standard_normal((11, 9, 8))
        cval = -1.25
        got = run_stencil(a, *LAPLACE7, mode, block_planes,
                          cval if mode == 'constant' else None)
        k = np.zeros((3, 3, 3))
        k[1, 1, 1] = -6
        for z, y, x in ((0, 1, 1), (2, 1, 1), (1, 0, 1), (1, 2, 1),
                        (1, 1, 0), (1, 1, 2)):
            k[z, y, x] = 1
        what = '7-point %s, chunks of %d planes' % (mode, block_planes)
        if mode != 'valid':
            p = pad(a, mode, cval)
            c = p[1:-1, 1:-1, 1:-1]
            want = (p[:-2, 1:-1, 1:-1] + p[2:, 1:-1, 1:-1] + p[1:-1, :-2, 1:-1]
                    + p[1:-1, 2:, 1:-1] + p[1:-1, 1:-1, 2:]
                    + p[1:-1, 1:-1, :-2] - 6 * c)
            assert_same(got, want, what + ' (numpy)')
        assert_close(got, scipy_want(a, k, mode, cval), what + ' (scipy)',
                     12 * max(np.abs(a).max(), abs(cval)))
    return run


def case_laplace27(mode, block_planes):
    """The 27-point Laplacian (26 neighbours - 26 centre)."""
    def run():
        a = np.random.default_rng(27).standard_normal((10, 7, 9))
        k = np.ones((3, 3, 3))
        k[1, 1, 1] = -26
        window, expr = window_of(k)
        got = run_stencil(a, window, expr, mode, block_planes,
                          0.5 if mode == 'constant' else None)
        assert_close(got, scipy_want(a, k, mode, 0.5),
                     '27-point %s, chunks of %d planes' % (mode, block_planes),
                     52 * np.abs(a).max())
    return run


def case_asymmetric_int(mode):
    """A 5 x 3 x 3 window of integer weights on int32 data (exact): the
    planes before and after the centre's are told apart, the halo along
    the streaming axis is 2 planes."""
    def run():
        rng = np.random.default_rng(5)
        a = rng.integers(-1000, 1000, size=(13, 6, 5)).astype(np.int32)
        k = rng.integers(-3, 4, size=(5, 3, 3)).astype(np.float64)
        k[2, 1, 1] = 7
        k[0, 0, 0] = 2
        k[4, 2, 2] = -5
        window, expr = window_of(k)
        got = run_stencil(a, window, expr, mode, 2,
                          9 if mode == 'constant' else None)
        want = scipy_want(a.astype(np.float64), k, mode, 9.0).astype(np.int32)
        assert_same(got, want, '5x3x3 on int32, %s' % mode)
    return run


def test_volumes_of_a_4d_input():
    """A 3-D window on a 4-D input (n, z, y, x) covers each volume on its
    own: nothing crosses from one volume to the next."""
    a = np.random.default_rng(4).standard_normal((5, 6, 7, 8))
    for mode in ('reflect', 'wrap', 'valid'):
        got = run_stencil(a, *LAPLACE7, mode, 2)
        k = np.zeros((1, 3, 3, 3))
        k[0, 1, 1, 1] = -6
        for z, y, x in ((0, 1, 1), (2, 1, 1), (1, 0, 1), (1, 2, 1),
                        (1, 1, 0), (1, 1, 2)):
            k[0, z, y, x] = 1
        want = scipy_want(a, k, mode, 0.0)
        if mode == 'valid':
            want = ndimage.correlate(a, k, mode='constant')[:, 1:-1, 1:-1,
                                                            1:-1]
        assert_close(got, want, '4-D input, %s' % mode, 12 * np.abs(a).max())


def test_too_few_axes():
    d = tmpdir()
    np.save(d + '/in.npy', np.zeros((6, 5)))
    expect_error(['planfilesrc', 'location=%s/in.npy' % d, '!', 'planstencil',
                  'window=%s' % LAPLACE7[0], 'expr=%s' % LAPLACE7[1], '!',
                  'planfilesink', 'location=%s/out.npy' % d],
                 'the window has 3 planes but the input, of shape (6, 5), '
                 'has 2 axes')
    if os.path.exists(d + '/out.npy'):
        raise Failure('a failed pipeline left out.npy behind')


def test_bad_planes_show_picture():
    d = tmpdir()
    np.save(d + '/in.npy', np.zeros((4, 4, 4)))
    out = expect_error(['planfilesrc', 'location=%s/in.npy' % d, '!',
                        'planstencil', 'window=a b c | d e f; g h i',
                        'expr=a', '!', 'planfilesink',
                        'location=%s/out.npy' % d],
                       'plane 2 has 2 rows but plane 1 has 1')
    if 'a b c\n    |\n    d e f' not in out:
        raise Failure('the error does not draw the planes:\n' + out)


def main():
    cases = []
    for mode in MODES + ['valid']:
        for planes in (1, 3, 100):
            cases.append(('7-point %s chunks of %d' % (mode, planes),
                          case_laplace7(mode, planes)))
        for planes in (2, 100):
            cases.append(('27-point %s chunks of %d' % (mode, planes),
                          case_laplace27(mode, planes)))
        cases.append(('5x3x3 int32 %s' % mode, case_asymmetric_int(mode)))
    cases.append(('volumes of a 4-D input', test_volumes_of_a_4d_input))
    cases.append(('too few axes', test_too_few_axes))
    cases.append(('bad planes show the picture', test_bad_planes_show_picture))
    run_cases(cases)


if __name__ == '__main__':
    main()
