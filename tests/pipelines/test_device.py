#!/usr/bin/python3
"""The device path, file to file, on the sim device (GST_PLAN_DEVICE=sim):
planupload / plandownload round trips, kernel elements taking and producing
device memory, against numpy."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import (COMPLEX_DTYPES, DTYPES, Failure, assert_same,  # noqa: E402
                      gst_launch_1_0, launch, random_array, run_cases,
                      tmpdir)

os.environ['GST_PLAN_DEVICE'] = 'sim'


def save(a, name):
    path = os.path.join(tmpdir(), name)
    np.save(path, a)
    return path


def round_trip(dtype):
    def run():
        rng = np.random.default_rng(len(dtype))
        a = random_array(dtype, (1001, 3), rng)
        src = save(a, 'in.npy')
        out = os.path.join(tmpdir(), 'out.npy')
        row = 3 * np.dtype(dtype).itemsize
        launch('planfilesrc', 'location=%s' % src, 'blocksize=%d' % (row * 64),
               '!', 'planupload', '!', 'plandownload', '!',
               'planfilesink', 'location=%s' % out)
        assert_same(np.load(out), a, 'upload ! download of %s' % dtype)
    return run


def test_upload_device_sim_without_environment():
    """planupload device=sim with GST_PLAN_DEVICE unset: planfilesrc reads
    into the host memory planupload offers, which must not need a GPU."""
    rng = np.random.default_rng(9)
    a = rng.standard_normal((300, 5))
    src = save(a, 'in.npy')
    out = os.path.join(tmpdir(), 'out.npy')
    env = os.environ.pop('GST_PLAN_DEVICE')
    try:
        launch('planfilesrc', 'location=%s' % src, 'blocksize=%d' % (40 * 16),
               '!', 'planupload', 'device=sim', '!', 'plandownload', '!',
               'planfilesink', 'location=%s' % out)
    finally:
        os.environ['GST_PLAN_DEVICE'] = env
    assert_same(np.load(out), a, 'upload device=sim without the variable')


def test_chain_on_device():
    """upload ! map ! map ! download: the maps take and produce device
    memory; several seeds give several interleavings."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((5000, 4)).astype(np.float32)
    src = save(a, 'in.npy')
    want = (a + a) * 3
    for seed in (1, 2, 3):
        os.environ['GST_PLAN_SIM_SEED'] = str(seed)
        out = os.path.join(tmpdir(), 'out.npy')
        launch('planfilesrc', 'location=%s' % src, 'blocksize=%d' % (16 * 300),
               '!', 'planupload', '!', 'planmap', 'expr=x + x', '!',
               'planmap', 'expr=x * 3', '!', 'plandownload', '!',
               'planfilesink', 'location=%s' % out)
        assert_same(np.load(out), want, 'chain with seed %d' % seed,
                    rtol=1e-6)
    del os.environ['GST_PLAN_SIM_SEED']


def test_no_transfer_elements_needed():
    """planmap target=cuda between file elements: no upload or download in
    the pipeline string, system memory at both ends."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal(3001)
    y = rng.standard_normal(3001)
    out = os.path.join(tmpdir(), 'out.npy')
    launch('planmap', 'name=m', 'target=cuda', 'expr=x * y + x', '!',
           'planmap', 'target=cuda', 'expr=x - 1', '!',
           'planfilesink', 'location=%s' % out,
           'planfilesrc', 'location=%s' % save(x, 'x.npy'), 'blocksize=800',
           '!', 'm.sink_0',
           'planfilesrc', 'location=%s' % save(y, 'y.npy'), 'blocksize=1600',
           '!', 'm.sink_1')
    assert_same(np.load(out), x * y + x - 1, 'x * y + x - 1', rtol=1e-12)


F16_FUNCS = [('sin(x)', np.sin), ('cos(x)', np.cos), ('tan(x)', np.tan),
             ('exp(x)', np.exp), ('exp2(x)', np.exp2),
             ('expm1(x)', np.expm1), ('log(x)', np.log),
             ('log2(x)', np.log2), ('log10(x)', np.log10),
             ('log1p(x)', np.log1p), ('cbrt(x)', np.cbrt),
             ('arcsin(x)', np.arcsin), ('arccos(x)', np.arccos),
             ('arctan(x)', np.arctan), ('sinh(x)', np.sinh),
             ('cosh(x)', np.cosh), ('tanh(x)', np.tanh),
             ('arcsinh(x)', np.arcsinh), ('arccosh(x)', np.arccosh),
             ('arctanh(x)', np.arctanh), ('sqrt(x)', np.sqrt),
             ('arctan2(x, y)', np.arctan2), ('hypot(x, y)', np.hypot),
             ('x ** y', np.power), ('logaddexp(x, y)', np.logaddexp),
             ('logaddexp2(x, y)', np.logaddexp2), ('x % y', np.remainder),
             ('float16(float64(x) * 3)', lambda x: (
                 x.astype(np.float64) * 3).astype(np.float16))]


def test_float16_functions_every_value():
    """Every float16 value through every float16 function on the device
    (a planmap of target=cuda on the sim device), bit for bit numpy's
    float16 loop (NaN as NaN): function i is applied where z == i."""
    h = np.arange(65536, dtype=np.uint16).view(np.float16)
    y = np.random.default_rng(5).permutation(h)
    n = len(F16_FUNCS)
    x, yy = np.tile(h, n), np.tile(y, n)
    k = np.repeat(np.arange(n, dtype=np.int8), 65536)
    expr = 'x'
    for i in reversed(range(n)):
        expr = 'where(z == %d, %s, %s)' % (i, F16_FUNCS[i][0], expr)
    want = np.empty_like(x)
    np.seterr(all='ignore')
    for i, (src, fn) in enumerate(F16_FUNCS):
        # numpy's float16 loop: strided operands (on CPUs with AVX-512
        # numpy has vectorised loops for contiguous ones)
        a, b = np.empty(2 * 65536, np.float16), np.empty(2 * 65536,
                                                         np.float16)
        a[::2], b[::2] = h, y
        want[i * 65536:(i + 1) * 65536] = (fn(a[::2]) if 'y' not in src
                                           else fn(a[::2], b[::2]))
    out = os.path.join(tmpdir(), 'out.npy')
    launch('planmap', 'name=m', 'target=cuda', 'expr=%s' % expr, '!',
           'planfilesink', 'location=%s' % out,
           'planfilesrc', 'location=%s' % save(x, 'x.npy'),
           'blocksize=300000', '!', 'm.sink_0',
           'planfilesrc', 'location=%s' % save(yy, 'y.npy'),
           'blocksize=200000', '!', 'm.sink_1',
           'planfilesrc', 'location=%s' % save(k, 'k.npy'),
           'blocksize=100000', '!', 'm.sink_2')
    got = np.load(out)
    if got.dtype != np.float16:
        raise Failure('float16 functions give %s' % got.dtype)
    bad = np.nonzero((got.view(np.uint16) != want.view(np.uint16))
                     & ~(np.isnan(got) & np.isnan(want)))[0]
    if len(bad):
        i = bad[0]
        raise Failure('%s at x=%r, y=%r: got %r, numpy %r (%d differ)' % (
            F16_FUNCS[i // 65536][0], x[i], yy[i], got[i], want[i],
            len(bad)))


def test_cuda_without_driver_is_a_clear_error():
    env = dict(os.environ)
    os.environ.pop('GST_PLAN_DEVICE')
    os.environ['GST_PLAN_CUDA_LIBRARY'] = '/nonexistent/libcuda.so.1'
    try:
        src = save(np.zeros(10, np.float32), 'z.npy')
        # gst-launch-1.0 prints errors posted while going to PAUSED
        p = gst_launch_1_0(['planfilesrc', 'location=%s' % src,
                            '!', 'planmap', 'expr=x + 1',
                            'target=cuda', '!', 'fakesink'], 60)
        text = p.stdout
        if p.returncode == 0:
            raise Failure('target=cuda without a driver did not fail')
        if 'NVIDIA driver' not in text or 'libcuda.so.1' not in text:
            raise Failure('no clear error: %s' % text)
    finally:
        os.environ.clear()
        os.environ.update(env)


cases = [('round_trip_%s' % t, round_trip(t))
         for t in DTYPES + COMPLEX_DTYPES + ['float16']]
cases += [('upload_device_sim_without_environment',
           test_upload_device_sim_without_environment),
          ('chain_on_device', test_chain_on_device),
          ('no_transfer_elements_needed', test_no_transfer_elements_needed),
          ('float16_functions_every_value',
           test_float16_functions_every_value),
          ('cuda_without_driver_is_a_clear_error',
           test_cuda_without_driver_is_a_clear_error)]
run_cases(cases)
