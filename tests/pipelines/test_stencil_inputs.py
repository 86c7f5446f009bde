#!/usr/bin/python3
"""planstencil over several inputs (request pads sink_N, each with its
window or its centre named by its variable), file to file, against numpy:
a 1-D, 2-D and 3-D wave equation step (u_next = 2u - u_prev + k lap u) in
every boundary mode and chunk size, a few time steps run one after the
other, a 2-D FDTD (Yee, TMz) step of three coupled fields, mixed dtypes,
the sim device (computed on the host, the same bytes), and the errors:
inputs of different shapes, a name in two windows, iterations, a window
on the sink pad, a bad pad window."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import (Failure, assert_bits, assert_same,  # noqa: E402
                      expect_error, launch, run_cases, tmpdir)

MODES = ['constant', 'nearest', 'reflect', 'mirror', 'wrap']
NP_MODE = {'nearest': 'edge', 'reflect': 'symmetric', 'mirror': 'reflect',
           'wrap': 'wrap'}


def pad(a, mode, cval, axes):
    """numpy's pad by one along the given axes, with scipy's mode names."""
    widths = [(1, 1) if k in axes else (0, 0) for k in range(a.ndim)]
    if mode == 'constant':
        return np.pad(a, widths, mode='constant', constant_values=cval)
    return np.pad(a, widths, mode=NP_MODE[mode])


def stencil_words(window, expr, mode, inputs, cval=None, extra=()):
    """planstencil name=s fed by planfilesrc from each (path, pad
    properties, block rows, row bytes) of inputs; output to out."""
    words = ['planstencil', 'name=s', 'window=%s' % window, 'expr=%s' % expr,
             'boundary=%s' % mode]
    if cval is not None:
        words.append('cval=%r' % float(cval))
    words += list(extra)
    for i, (path, props, rows, row_bytes) in enumerate(inputs):
        pad_name = 'sink' if i == 0 else 'sink_%d' % i
        words += ['%s::%s' % (pad_name, p) for p in props]
    return words


def run(window, expr, mode, arrays, props, block_rows, cval=None, device=False,
        extra=()):
    """Runs the stencil over arrays (the first into sink, the others into
    sink_1, sink_2, ... with the pad properties props[i]); returns the
    output array."""
    d = tmpdir()
    inputs = []
    for i, a in enumerate(arrays):
        path = os.path.join(d, 'in%d.npy' % i)
        np.save(path, a)
        inputs.append((path, props[i], block_rows, a[0].nbytes))
    out = os.path.join(d, 'out.npy')
    words = stencil_words(window, expr, mode, inputs, cval, extra)
    if device:
        words.append('target=cuda')
    words += ['!']
    if device:
        words += ['plandownload', '!']
    words += ['planfilesink', 'location=%s' % out]
    for i, (path, _, rows, row_bytes) in enumerate(inputs):
        words += ['planfilesrc', 'location=%s' % path,
                  'blocksize=%d' % (rows * row_bytes), '!']
        if device:
            words += ['planupload', '!']
        words.append('s.sink' if i == 0 else 's.sink_%d' % i)
    env = dict(os.environ)
    if device:
        os.environ['GST_PLAN_DEVICE'] = 'sim'
    try:
        launch(*words)
    finally:
        os.environ.clear()
        os.environ.update(env)
    return np.load(out)


K = 0.25


def wave_1d_want(u, p, mode, cval):
    if mode == 'valid':
        c = u[1:-1]
        return 2 * c - p[1:-1] + K * (u[:-2] - 2 * c + u[2:])
    q = pad(u, mode, cval, (0,))
    return 2 * u - p + K * (q[:-2] - 2 * u + q[2:])


def case_wave_1d(mode, block_rows):
    def run_case():
        rng = np.random.default_rng(block_rows + len(mode))
        u, p = rng.standard_normal(61), rng.standard_normal(61)
        got = run('l c r', '2*c - p + %r*(l - 2*c + r)' % K, mode, [u, p],
                  [[], ['variable=p']], block_rows, cval=0.5)
        assert_same(got, wave_1d_want(u, p, mode, 0.5),
                    '1-D wave step, %s, chunks of %d' % (mode, block_rows))
    return run_case


def wave_2d_want(u, p, mode, cval):
    if mode == 'valid':
        c = u[1:-1, 1:-1]
        return (2 * c - p[1:-1, 1:-1] + K * (u[:-2, 1:-1] + u[2:, 1:-1] +
                                             u[1:-1, 2:] + u[1:-1, :-2] - 4 * c))
    q = pad(u, mode, cval, (0, 1))
    return 2 * u - p + K * (q[:-2, 1:-1] + q[2:, 1:-1] + q[1:-1, 2:] +
                            q[1:-1, :-2] - 4 * u)


WAVE_2D = ('_ n _; w c e; _ s _', '2*c - p + %r*(n + s + e + w - 4*c)' % K)


def case_wave_2d(mode, block_rows):
    def run_case():
        rng = np.random.default_rng(block_rows * 3 + len(mode))
        u = rng.standard_normal((23, 17))
        p = rng.standard_normal((23, 17))
        got = run(*WAVE_2D, mode, [u, p], [[], ['variable=p']], block_rows,
                  cval=-1.0)
        assert_same(got, wave_2d_want(u, p, mode, -1.0),
                    '2-D wave step, %s, chunks of %d' % (mode, block_rows))
    return run_case


def test_wave_time_steps():
    """Five time steps of a 2-D wave, each a pipeline reading the two
    fields the steps before wrote: the field numpy's loop gives."""
    x = np.linspace(-1, 1, 31)
    u = np.exp(-20 * (x[:, None] ** 2 + x[None, :] ** 2))
    p = u.copy()
    want_u, want_p = u, p
    for step in range(5):
        nxt = run(*WAVE_2D, 'reflect', [u, p], [[], ['variable=p']], 7)
        u, p = nxt, u
        want_u, want_p = wave_2d_want(want_u, want_p, 'reflect', 0), want_u
    assert_same(u, want_u, 'wave after 5 steps')


def test_fdtd_2d():
    """Three steps of a 2-D FDTD (Yee grid, TMz: Ez, Hx, Hy) with zero
    fields outside (boundary=constant): each step updates Hx and Hy from
    Ez's neighbours, then Ez from theirs, each update a stencil over
    coupled fields; the same bits as numpy's slicing."""
    rng = np.random.default_rng(12)
    ez = rng.standard_normal((19, 21))
    hx = np.zeros_like(ez)
    hy = np.zeros_like(ez)
    w_ez, w_hx, w_hy = ez.copy(), hx.copy(), hy.copy()
    ch, ce = 0.5, 0.5
    for step in range(3):
        # Hx -= ch (Ez[i+1, j] - Ez[i, j]); Hy += ch (Ez[i, j+1] - Ez[i, j])
        hx_n = run('hx', 'hx - %r*(ezs - ez)' % ch, 'constant', [hx, ez],
                   [[], ['window=_; ez; ezs']], 5)
        hy_n = run('hy', 'hy + %r*(eze - ez)' % ch, 'constant', [hy, ez],
                   [[], ['window=_ ez eze']], 4)
        # Ez += ce ((Hy[i, j] - Hy[i, j-1]) - (Hx[i, j] - Hx[i-1, j]))
        ez = run('ez', 'ez + %r*((hy - hyw) - (hx - hxn))' % ce, 'constant',
                 [ez, hx_n, hy_n], [[], ['window=hxn; hx; _'],
                                    ['window=hyw hy _']], 3)
        hx, hy = hx_n, hy_n
        q = np.pad(w_ez, 1)
        w_hx = w_hx - ch * (q[2:, 1:-1] - w_ez)
        w_hy = w_hy + ch * (q[1:-1, 2:] - w_ez)
        qx, qy = np.pad(w_hx, 1), np.pad(w_hy, 1)
        w_ez = w_ez + ce * ((w_hy - qy[1:-1, :-2]) - (w_hx - qx[:-2, 1:-1]))
        assert_same(hx, w_hx, 'Hx after step %d' % (step + 1))
        assert_same(hy, w_hy, 'Hy after step %d' % (step + 1))
        assert_same(ez, w_ez, 'Ez after step %d' % (step + 1))


def test_wave_3d():
    """A volume's wave step: the 7-point window over (z, y, x) of u, the
    centre of u_prev, streamed plane by plane."""
    rng = np.random.default_rng(33)
    u = rng.standard_normal((9, 6, 7))
    p = rng.standard_normal((9, 6, 7))
    window = ('_ _ _; _ b _; _ _ _ | _ n _; w c e; _ s _ | '
              '_ _ _; _ f _; _ _ _')
    expr = '2*c - p + %r*(b + f + n + s + e + w - 6*c)' % K
    for mode in ('reflect', 'wrap', 'valid'):
        got = run(window, expr, mode, [u, p], [[], ['variable=p']], 2)
        if mode == 'valid':
            q, pc = u, p[1:-1, 1:-1, 1:-1]
        else:
            q, pc = pad(u, mode, 0, (0, 1, 2)), p
        c = q[1:-1, 1:-1, 1:-1]
        want = 2 * c - pc + K * (q[:-2, 1:-1, 1:-1] + q[2:, 1:-1, 1:-1] +
                                 q[1:-1, :-2, 1:-1] + q[1:-1, 2:, 1:-1] +
                                 q[1:-1, 1:-1, 2:] + q[1:-1, 1:-1, :-2] -
                                 6 * c)
        assert_same(got, want, '3-D wave step, %s' % mode)


def test_mixed_dtypes_and_default_names():
    """Inputs of different dtypes promote as numpy does; an input with
    neither window nor variable is named in<N>; cval is converted to each
    input's dtype."""
    rng = np.random.default_rng(3)
    u = rng.integers(-100, 100, size=(12, 5)).astype(np.int16)
    v = rng.standard_normal((12, 5)).astype(np.float32)
    got = run('a; b; c', 'a - c + b * in1', 'constant', [u, v], [[], []], 5,
              cval=7.9)
    q = np.pad(u, ((1, 1), (0, 0)), constant_values=7)
    want = q[:-2] - q[2:] + u * v
    assert_same(got, want, 'int16 window with a float32 centre')


def test_sim_device_same_bytes():
    """upload ! planstencil target=cuda ! download on the sim device: each
    input's halo rows kept on the device (wrap: each input's last rows
    uploaded), inputs of two dtypes and a window on the request pad; the
    CPU's bytes, chunks of one row and of several."""
    rng = np.random.default_rng(9)
    u = rng.standard_normal((40, 11))
    p = rng.standard_normal((40, 11)).astype(np.float32)
    expr = '2*c - p + 0.25*(n + s + e + w - 4*c) - 0.5*q'
    for mode in MODES + ['valid']:
        for rows in (1, 6):
            want = run(WAVE_2D[0], expr, mode, [u, p], [[], ['window=_; p; q']],
                       rows, cval=0.75)
            got = run(WAVE_2D[0], expr, mode, [u, p], [[], ['window=_; p; q']],
                      rows, cval=0.75, device=True)
            assert_bits(got, want, 'sim device, %s, chunks of %d' % (mode,
                                                                     rows))


def failing(window, expr, arrays, props, *texts, extra=()):
    d = tmpdir()
    words = ['planstencil', 'name=s', 'window=%s' % window,
             'expr=%s' % expr] + list(extra)
    for i, pr in enumerate(props):
        words += ['%s::%s' % ('sink' if i == 0 else 'sink_%d' % i, p)
                  for p in pr]
    words += ['!', 'planfilesink', 'location=%s/out.npy' % d]
    for i, a in enumerate(arrays):
        np.save('%s/in%d.npy' % (d, i), a)
        words += ['planfilesrc', 'location=%s/in%d.npy' % (d, i), '!',
                  's.sink' if i == 0 else 's.sink_%d' % i]
    expect_error(words, *texts)
    if os.path.exists(d + '/out.npy'):
        raise Failure('a failed pipeline left out.npy behind')


def test_errors():
    a = np.zeros((6, 5))
    failing('l c r', 'c + p', [a, np.zeros((6, 4))], [[], ['variable=p']],
            'input 1 has the shape (6, 4) but input 0 has (6, 5)',
            'input 1 is sink_1')
    failing('l c r', 'c + r', [a, a], [[], ['window=r']],
            "'r' names a cell of the window of input 0 and one of input 1")
    failing('l c r', 'c + p', [a, a], [[], ['variable=p']],
            'iterations=3 with 2 inputs', extra=['iterations=3'])
    failing('l c r', 'c + p', [a, a], [['window=x y z'], ['variable=p']],
            'the window of sink is the element\'s window property')
    failing('l c r', 'c + p', [a, a], [[], ['window=p q']],
            'input sink_1 (window "p q")', 'both must be odd')
    failing('l c r', 'c + p', [a, a], [[], ['variable=max']],
            'input sink_1 (variable "max")', 'reserved word')


def main():
    cases = []
    for mode in MODES + ['valid']:
        for rows in (1, 7, 1000):
            cases.append(('1-D wave %s chunks of %d' % (mode, rows),
                          case_wave_1d(mode, rows)))
        for rows in (1, 5, 1000):
            cases.append(('2-D wave %s chunks of %d' % (mode, rows),
                          case_wave_2d(mode, rows)))
    cases += [('wave, 5 time steps', test_wave_time_steps),
              ('2-D FDTD, 3 steps', test_fdtd_2d),
              ('3-D wave', test_wave_3d),
              ('mixed dtypes, default names', test_mixed_dtypes_and_default_names),
              ('sim device', test_sim_device_same_bytes),
              ('errors', test_errors)]
    run_cases(cases)


if __name__ == '__main__':
    main()
