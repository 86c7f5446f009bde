#!/usr/bin/python3
"""planstencil target=cuda on the sim device (GST_PLAN_DEVICE=sim) against
planstencil target=cpu on the same file: the same bits for every boundary
mode, 1-D, 2-D and 3-D windows, several chunk sizes and dtypes (float16
among them), with the halo kept in
device memory between chunks; and the device-resident plan upload ! map !
stencil ! download. The CPU target itself is checked against scipy in
test_stencil.py."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import (Failure, assert_bits, launch, run_cases,  # noqa: E402
                      tmpdir)

MODES = ['constant', 'nearest', 'reflect', 'mirror', 'wrap', 'valid']

WINDOWS = {
    '1d': ('a b c d e', 'a - 2*b + c*d + e'),
    '2d': ('_ n _; w c e; _ s _', 'n + s + e + w - 4*c'),
    '2d5': ('p q _ _ _; _ n _ _ _; w c e _ r; _ s _ _ _; _ _ _ _ t',
            'p*q + n + s + e + w - 4*c + r - t'),
    # over the three axes of a volume, 2 planes each side
    '3d': ('_ _ _; _ a _; _ _ _ | _ _ _; _ b _; _ _ _ | _ n _; w c e; _ s _ '
           '| _ _ _; _ f _; _ _ _ | _ _ _; _ g _; _ _ _',
           'a - g + b*f + n + s + e + w - 6*c'),
}


# A one-row window on a 2-D input runs along its rows (no halo along the
# streaming axis); a 2-D window on a 3-D input covers each plane.
SHAPES = {'1d': (53,), 'rows': (37, 11), 'planes': (9, 8, 7), '3d': (9, 8, 7)}


def run(a, window, expr, boundary, block_rows, device, seed=1):
    d = tmpdir()
    src = os.path.join(d, 'in.npy')
    out = os.path.join(d, 'out-%s.npy' % device)
    np.save(src, a)
    row = a.itemsize * (int(np.prod(a.shape[1:])) if a.ndim > 1 else 1)
    words = ['planfilesrc', 'location=%s' % src,
             'blocksize=%d' % (row * block_rows), '!']
    if device:
        words += ['planupload', '!']
    words += ['planstencil', 'window=%s' % window, 'expr=%s' % expr,
              'boundary=%s' % boundary, 'cval=1.5',
              'target=%s' % ('cuda' if device else 'cpu'), '!']
    if device:
        words += ['plandownload', '!']
    words += ['planfilesink', 'location=%s' % out]
    env = dict(os.environ)
    os.environ['GST_PLAN_SIM_SEED'] = str(seed)
    try:
        launch(*words)
    finally:
        os.environ.clear()
        os.environ.update(env)
    return np.load(out)


def same_as_cpu(kind, mode, dtype):
    def check():
        rng = np.random.default_rng(len(kind) * 7 + len(mode))
        window, expr = WINDOWS[kind]
        shape = SHAPES.get(kind, (41, 13))
        a = (rng.standard_normal(shape) * 100).astype(dtype)
        for block_rows, seed in ((1, 3), (4, 5), (7, 11), (1000, 2)):
            want = run(a, window, expr, mode, block_rows, False)
            got = run(a, window, expr, mode, block_rows, True, seed)
            assert_bits(got, want, '%s %s %s in chunks of %d rows' %
                        (kind, mode, dtype, block_rows))
    return check


def test_short_streams():
    """Streams shorter than the halo and chunks of single rows: every row
    the windows read is still kept on the device."""
    window, expr = WINDOWS['2d5']
    for n in (1, 2, 3, 5):
        a = np.arange(n * 6, dtype=np.float64).reshape(n, 6) ** 1.5
        for mode in MODES[:5]:
            want = run(a, window, expr, mode, 1, False)
            got = run(a, window, expr, mode, 1, True)
            assert_bits(got, want, '%d rows, %s' % (n, mode))


def test_map_then_stencil_on_device():
    """upload ! map ! stencil ! download: the map's device output feeds the
    stencil without a host copy; the same bits as on the CPU."""
    rng = np.random.default_rng(8)
    a = rng.standard_normal((300, 17))
    d = tmpdir()
    src = os.path.join(d, 'in.npy')
    np.save(src, a)
    outs = []
    for device in (True, False):
        out = os.path.join(d, 'out-%d.npy' % device)
        t = 'target=%s' % ('cuda' if device else 'cpu')
        launch('planfilesrc', 'location=%s' % src, 'blocksize=%d' % (136 * 9),
               '!', *(['planupload', '!'] if device else []),
               'planmap', 'expr=x * 0.5 + 1', t, '!',
               'planstencil', 'window=_ n _; w c e; _ s _',
               'expr=n + s + e + w - 4*c', 'boundary=reflect', t, '!',
               *(['plandownload', '!'] if device else []),
               'planfilesink', 'location=%s' % out)
        outs.append(np.load(out))
    assert_bits(outs[0], outs[1], 'upload ! map ! stencil ! download')


def run_sought(a, element, start, stop, device):
    """planfilesrc ! [planupload !] element ! [plandownload !] planfilesink
    over a in chunks of 100 rows, with a flushing seek to rows
    [start, stop) once prerolled; returns the output file's array."""
    import gi
    gi.require_version('Gst', '1.0')
    from gi.repository import Gst
    if not Gst.is_initialized():
        Gst.init(None)
    d = tmpdir()
    src, dst = os.path.join(d, 'in.npy'), os.path.join(d, 'out.npy')
    np.save(src, a)
    p = Gst.parse_launch(
        'planfilesrc blocksize=%d location=%s ! %s %s ! %s planfilesink '
        'location=%s' % (100 * a[0].nbytes, src,
                         'planupload !' if device else '', element,
                         'plandownload !' if device else '', dst))
    p.set_state(Gst.State.PAUSED)
    if p.get_state(30 * Gst.SECOND)[0] != Gst.StateChangeReturn.SUCCESS:
        raise Failure('%s did not preroll' % element)
    if not p.seek(1.0, Gst.Format.DEFAULT, Gst.SeekFlags.FLUSH,
                  Gst.SeekType.SET, start, Gst.SeekType.SET, stop):
        raise Failure('the seek was refused')
    p.set_state(Gst.State.PLAYING)
    msg = p.get_bus().timed_pop_filtered(
        30 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    if msg is None or msg.type == Gst.MessageType.ERROR:
        raise Failure('%s after a seek: %s' % (element, 'no EOS' if msg is
                                                None else msg.parse_error()[0].message))
    return np.load(dst)


def test_seek_on_device():
    """A seek to rows [130, 710) with boundary=wrap along the streaming
    axis: the device drops its halo rows and wraps round the range sought,
    as the CPU does."""
    rng = np.random.default_rng(21)
    a = rng.standard_normal((1000, 9))
    window, expr = WINDOWS['2d']
    for mode in ('wrap', 'reflect'):
        element = ('planstencil window="%s" expr="%s" boundary=%s target=%%s'
                   % (window, expr, mode))
        want = run_sought(a, element % 'cpu', 130, 710, False)
        got = run_sought(a, element % 'cuda', 130, 710, True)
        if want.shape != (580, 9):
            raise Failure('the CPU gave %s rows' % (want.shape,))
        assert_bits(got, want, 'rows 130 to 710, %s' % mode)


os.environ['GST_PLAN_DEVICE'] = 'sim'
cases = []
for kind in WINDOWS:
    for mode in MODES:
        cases.append(('%s_%s' % (kind, mode),
                      same_as_cpu(kind, mode, np.float64)))
WINDOWS['rows'] = WINDOWS['1d']
WINDOWS['planes'] = WINDOWS['2d5']
for mode in ('constant', 'mirror', 'wrap', 'valid'):
    cases += [('rows_%s' % mode, same_as_cpu('rows', mode, np.float64)),
              ('planes_%s' % mode, same_as_cpu('planes', mode, np.float64))]
cases += [('2d_nearest_float32', same_as_cpu('2d', 'nearest', np.float32)),
          ('1d_wrap_int32', same_as_cpu('1d', 'wrap', np.int32)),
          ('2d5_reflect_int16', same_as_cpu('2d5', 'reflect', np.int16)),
          # float16 computes in float32 rounded per operation on both
          ('2d_reflect_float16', same_as_cpu('2d', 'reflect', np.float16)),
          ('1d_wrap_float16', same_as_cpu('1d', 'wrap', np.float16)),
          ('short_streams', test_short_streams),
          ('seek_on_device', test_seek_on_device),
          ('map_then_stencil_on_device', test_map_then_stencil_on_device)]
run_cases(cases)
