#!/usr/bin/python3
"""Property values as a user types them on a gst-launch-1.0 line: values
that cannot work are errors at start (gst-launch-1.0 exits non-zero, the
message names the property and the value, nothing is written), and every
value scipy takes for cval works as scipy computes it. docs/reliability.md
lists each behaviour with its test."""
import os
import sys

import numpy as np
from scipy import ndimage

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import (Failure, assert_same, gst_launch_1_0, run_cases,
                      tmpdir)  # noqa: E402

TIMEOUT = 60


def gst_launch(*words, expect_ok=True):
    """Runs gst-launch-1.0 itself (what users and editors run); returns
    (returncode, output)."""
    p = gst_launch_1_0(words, TIMEOUT)
    if expect_ok and p.returncode != 0:
        raise Failure('failed (%d): %s\n%s' % (p.returncode, ' '.join(p.args),
                                              p.stdout))
    if not expect_ok and p.returncode == 0:
        raise Failure('exited 0: %s\n%s' % (' '.join(p.args), p.stdout))
    return p.returncode, p.stdout


def source(shape=(100,), dtype=np.float32):
    d = tmpdir()
    a = (np.arange(np.prod(shape)) % 13 - 6).astype(dtype).reshape(shape)
    path = os.path.join(d, 'in.npy')
    np.save(path, a)
    return a, path, d


def expect_refused(words, *needles):
    """The pipeline fails at start, saying each needle, and leaves its
    directory as it was."""
    d = os.path.dirname(words[1].split('=', 1)[1])
    before = sorted(os.listdir(d))
    _, out = gst_launch(*words, expect_ok=False)
    for n in needles:
        if n not in out:
            raise Failure('the error does not say %r:\n%s' % (n, out))
    if 'WARNING' in out and 'erroneous pipeline' not in out:
        raise Failure('a warning besides the error:\n%s' % out)
    if sorted(os.listdir(d)) != before:
        raise Failure('files left: %s' % sorted(os.listdir(d)))


def test_map_bad_dtype():
    """dtype is an enum (PlanDType): a name that is no dtype is refused
    with the line itself, naming the property and the value."""
    _, src, d = source()
    expect_refused(['planfilesrc', 'location=' + src, '!', 'planmap',
                    'expr=x * 2', 'dtype=flaot32', '!', 'planfilesink',
                    'location=' + os.path.join(d, 'out.npy')],
                   'could not set property "dtype"', '"flaot32"')


def test_reduce_bad_map_dtype():
    _, src, d = source()
    expect_refused(['planfilesrc', 'location=' + src, '!', 'planreduce',
                    'map=x * x', 'map-dtype=flaot64', '!', 'planfilesink',
                    'location=' + os.path.join(d, 'out.npy')],
                   'could not set property "map-dtype"', '"flaot64"')


def test_filesrc_bad_enum():
    """An enum value that is none of its nicks: gst-launch-1.0 refuses the
    line itself, naming the property and the value."""
    _, src, d = source()
    expect_refused(['planfilesrc', 'location=' + src, 'format=csv', '!',
                    'planfilesink', 'location=' + os.path.join(d, 'o.npy')],
                   'could not set property "format"', '"csv"')


def test_map_bad_expr():
    _, src, d = source()
    expect_refused(['planfilesrc', 'location=' + src, '!', 'planmap',
                    'expr=x * ', '!', 'planfilesink',
                    'location=' + os.path.join(d, 'out.npy')],
                   'planmap0, expr:', 'x * ')


def test_stencil_bad_window():
    _, src, d = source()
    expect_refused(['planfilesrc', 'location=' + src, '!', 'planstencil',
                    'window=x y', 'expr=x + y', '!', 'planfilesink',
                    'location=' + os.path.join(d, 'out.npy')],
                   'planstencil0, window', 'odd')


def test_upload_bad_device():
    _, src, d = source()
    expect_refused(['planfilesrc', 'location=' + src, '!', 'planupload',
                    'device=bogus', '!', 'plandownload', '!', 'planfilesink',
                    'location=' + os.path.join(d, 'out.npy')],
                   'device "bogus"', 'expected cuda, cuda:N, sim or auto')
    _, out = gst_launch('planfilesrc', 'location=' + src, '!', 'planupload',
                        'device=bogus', '!', 'fakesink', expect_ok=False)
    if 'cpu' in out:
        raise Failure('cpu offered as a device to upload to:\n' + out)


def test_reduce_identity_without_expr():
    """identity belongs to a custom combiner: set with a built-in op, it
    would be ignored, so the pipeline does not start."""
    _, src, d = source()
    expect_refused(['planfilesrc', 'location=' + src, '!', 'planreduce',
                    'op=max', 'identity=0', '!', 'planfilesink',
                    'location=' + os.path.join(d, 'out.npy')],
                   'identity=0 is set without expr')


def test_expr_names_checked_at_caps():
    """Names and functions an expression does not know are found when
    the input's caps arrive; the message names expr (and shows it with a
    caret), as a syntax error found at start does."""
    _, src, d = source()
    out = os.path.join(d, 'out.npy')
    for element, needles in (
            (['planmap', 'expr=foo(x)'],
             ['planmap0, expr: column 1: unknown function', 'foo(x)']),
            (['planreduce', 'expr=x + z', 'identity=0'],
             ['planreduce0, expr: column 5: unknown name', 'x + z']),
            (['planstencil', 'window=w c e', 'expr=c + q'],
             ['planstencil0, window "w c e", expr: column 5: unknown name',
              'c + q'])):
        expect_refused(['planfilesrc', 'location=' + src, '!'] + element
                       + ['!', 'planfilesink', 'location=' + out], *needles)


def test_stencil_cval_nan_and_inf():
    """cval=nan, inf and -inf, as scipy.ndimage.correlate computes them,
    on 1-D and 2-D float inputs."""
    for shape, window, weights in [
            ((100,), 'x y z', np.ones(3)),
            ((20, 30), '_ n _; w c e; _ s _',
             np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]]))]:
        for dtype in (np.float32, np.float64):
            a, src, d = source(shape, dtype)
            expr = 'x + y + z' if len(shape) == 1 else 'n + w + c + e + s'
            for cval in ('nan', 'inf', '-inf', '-2.5'):
                dst = os.path.join(d, 'out.npy')
                gst_launch('planfilesrc', 'location=' + src, '!',
                           'planstencil', 'window=' + window, 'expr=' + expr,
                           'boundary=constant', 'cval=' + cval, '!',
                           'planfilesink', 'location=' + dst)
                want = ndimage.correlate(a, weights.astype(dtype),
                                         mode='constant', cval=float(cval))
                assert_same(np.load(dst), want,
                            '%s %s cval=%s' % (shape, np.dtype(dtype), cval))


def test_stencil_window_with_commas():
    """The blank-free spelling GstPipelineStudio can write unquoted, against
    scipy, and the same as the spelling with blanks."""
    a, src, d = source((20, 30))
    k = np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]], np.float32)
    want = ndimage.correlate(a, k, mode='nearest')
    for window in ('_,n,_;w,c,e;_,s,_', '_ n _; w c e; _ s _'):
        dst = os.path.join(d, 'out.npy')
        gst_launch('planfilesrc', 'location=' + src, '!', 'planstencil',
                   'window=' + window, 'expr=n + s + e + w - 4*c',
                   'boundary=nearest', '!', 'planfilesink', 'location=' + dst)
        assert_same(np.load(dst), want, window)


def test_map_pad_variables():
    """Each pad names its variable (sink_N::variable), whatever the order
    the pads were linked or numbered in; a name given twice is an error."""
    d = tmpdir()
    p, q = os.path.join(d, 'p.npy'), os.path.join(d, 'q.npy')
    a = np.arange(50, dtype=np.float32)
    b = (np.arange(50) * 7 % 11).astype(np.float32)
    np.save(p, a)
    np.save(q, b)
    dst = os.path.join(d, 'out.npy')
    gst_launch('planmap', 'name=m', 'expr=a - 2*b', 'sink_0::variable=b',
               'sink_1::variable=a', '!', 'planfilesink', 'location=' + dst,
               'planfilesrc', 'location=' + p, '!', 'm.sink_1',
               'planfilesrc', 'location=' + q, '!', 'm.sink_0')
    assert_same(np.load(dst), a - 2 * b, 'a - 2*b')
    # Without variables, x and y by pad number, as before.
    gst_launch('planmap', 'name=m', 'expr=x - 2*y', '!', 'planfilesink',
               'location=' + dst, 'planfilesrc', 'location=' + p, '!',
               'm.sink_1', 'planfilesrc', 'location=' + q, '!', 'm.sink_0')
    assert_same(np.load(dst), b - 2 * a, 'x - 2*y')
    _, out = gst_launch('planmap', 'name=m', 'expr=x - y',
                        'sink_0::variable=y', '!', 'fakesink',
                        'planfilesrc', 'location=' + p, '!', 'm.sink_1',
                        'planfilesrc', 'location=' + q, '!', 'm.sink_0',
                        expect_ok=False)
    if "sink_0 and sink_1 are both named 'y'" not in out:
        raise Failure('the error does not name both pads:\n%s' % out)


def test_reduce_axis_1():
    """axis=1 is numpy's per-row axis of a 2-D stream (as -1) and refused on
    a 3-D one, where numpy's axis 1 is not each row's inner axes; a number
    that is no nick (2) is refused as the property is set."""
    a, src, d = source((10, 4))
    for axis in ('1', '-1'):
        dst = os.path.join(d, 'out%s.npy' % axis)
        gst_launch('planfilesrc', 'location=' + src, '!', 'planreduce',
                   'axis=' + axis, '!', 'planfilesink', 'location=' + dst)
        assert_same(np.load(dst), a.sum(axis=1), 'axis=' + axis)
    b, src3, _ = source((5, 2, 3))
    _, out = gst_launch('planfilesrc', 'location=' + src3, '!', 'planreduce',
                        'axis=1', '!', 'fakesink', expect_ok=False)
    if 'axis=1' not in out or '3 dimensions' not in out:
        raise Failure(out)
    _, out = gst_launch('planfilesrc', 'location=' + src, '!', 'planreduce',
                        'axis=2', '!', 'fakesink', expect_ok=False)
    if 'could not set property "axis"' not in out:
        raise Failure(out)


def test_filesink_compression_of_uncompressed_format():
    """compression=1..9 for a .npy or raw output, which has no compression,
    is refused at start, naming the property, the format and the formats
    that compress; compression=0 writes them as before."""
    a, src, d = source()
    for name, fmt, extra in (('out.npy', 'npy', []),
                             ('out.bin', 'raw', []),
                             ('out.dat', 'raw', ['format=raw']),
                             ('forced.h5', 'npy', ['format=npy'])):
        dst = os.path.join(d, name)
        expect_refused(['planfilesrc', 'location=' + src, '!',
                        'planfilesink', 'location=' + dst,
                        'compression=6'] + extra,
                       'compression=6', 'the %s format' % fmt,
                       'only HDF5, Zarr and .npz outputs are compressed')
    dst = os.path.join(d, 'plain.npy')
    gst_launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
               'location=' + dst, 'compression=0')
    assert_same(np.load(dst), a, 'compression=0 .npy')


CASES = [
    ('planmap dtype=flaot32 is refused', test_map_bad_dtype),
    ('planreduce map-dtype=flaot64 is refused', test_reduce_bad_map_dtype),
    ('an enum value that does not exist fails', test_filesrc_bad_enum),
    ('planmap with an expression that does not parse fails at start',
     test_map_bad_expr),
    ('planstencil with a window that cannot work fails at start',
     test_stencil_bad_window),
    ('planupload device=bogus fails at start', test_upload_bad_device),
    ('planreduce identity without expr fails at start',
     test_reduce_identity_without_expr),
    ('unknown names in expr: the message names expr',
     test_expr_names_checked_at_caps),
    ('planstencil cval=nan, inf, -inf as scipy', test_stencil_cval_nan_and_inf),
    ('a stencil window spelled with commas', test_stencil_window_with_commas),
    ('planmap pads name their variables', test_map_pad_variables),
    ('planreduce axis=1 on 2-D, refused on 3-D', test_reduce_axis_1),
    ('planfilesink compression for a .npy or raw output is refused',
     test_filesink_compression_of_uncompressed_format),
]

if __name__ == '__main__':
    run_cases(CASES)
