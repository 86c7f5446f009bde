#!/usr/bin/python3
"""planmap's broadcasting, array constants and live scalar parameters,
file to file through real pipelines, against numpy: streams whose inner
shapes broadcast, constants from .npy files broadcast against every row,
params (and a change of them while playing, through GObject
introspection), on the CPU and on the simulated device; and every error
case, which must fail at start naming what is wrong."""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import (Failure, assert_same, launch, random_array,  # noqa: E402
                      run_cases, tmpdir)


def save(d, name, a):
    path = os.path.join(d, name)
    np.save(path, a)
    return path


def run_map(expr, streams, extra=(), blocksize=None, env=None,
            expect_ok=True, device=False):
    """planmap over the arrays `streams` (one planfilesrc each, pads in
    order) with the properties `extra`; returns the result, or the output
    of a failed run. With `device`, the inputs are uploaded and the result
    downloaded, so that planmap runs on the device."""
    d = tmpdir()
    out = os.path.join(d, 'out.npy')
    up = ['!', 'planupload'] if device else []
    down = ['!', 'plandownload'] if device else []
    words = ['planmap', 'name=m', 'expr=%s' % expr] + list(extra) + down + \
        ['!', 'planfilesink', 'location=%s' % out]
    for i, a in enumerate(streams):
        src = save(d, 'in%d.npy' % i, a)
        words += ['planfilesrc', 'location=%s' % src]
        if blocksize:
            words += ['blocksize=%d' % (blocksize * a[0].nbytes)]
        words += up + ['!', 'm.sink_%d' % i]
    old = {}
    for k, v in (env or {}).items():
        old[k] = os.environ.get(k)
        os.environ[k] = v
    try:
        _, text = launch(*words, expect_ok=expect_ok)
    finally:
        for k, v in old.items():
            if v is None:
                del os.environ[k]
            else:
                os.environ[k] = v
    return np.load(out) if expect_ok else text


def constants_prop(d, **arrays):
    return 'constants=' + ','.join(
        '%s=%s' % (k, save(d, k + '.npy', v)) for k, v in arrays.items())


def expect_error(expr, streams, extra, *needles):
    text = run_map(expr, streams, extra, expect_ok=False)
    for n in needles:
        if n not in text:
            raise Failure('the error should say %r:\n%s' % (n, text))


rng = np.random.default_rng(18)


# ---- streams ----

def streams_case(sa, sb, da, db, expr, ref, rtol=0.0):
    def run():
        a = random_array(da, sa, rng)
        b = random_array(db, sb, rng)
        with np.errstate(all='ignore'):
            want = ref(a, b)
        # Small chunks, so rows meet the block and thread boundaries.
        got = run_map(expr, [a, b], blocksize=7)
        assert_same(got, want, '%s on %s %s and %s %s' % (expr, sa, da, sb,
                                                          db), rtol=rtol)
    return run


STREAM_CASES = [
    ((1000, 1), (1000, 3), 'float32', 'float32', 'x - y', lambda a, b: a - b),
    ((1000, 3), (1000, 1), 'float64', 'float32', 'x * y', lambda a, b: a * b),
    ((301, 4, 1), (301, 1, 5), 'int32', 'int16', 'x + y',
     lambda a, b: a + b),
    ((301, 1, 5), (301, 4, 5), 'uint8', 'float32', 'where(x > 100, x, y)',
     lambda a, b: np.where(a > 100, a, b)),
    # sin is within an ulp of numpy's, not always the same bits
    ((500, 2, 3), (500, 1, 1), 'float64', 'float64', 'x / y + sin(x)',
     lambda a, b: a / b + np.sin(a), 1e-13),
    # 16-byte values are gathered whole (both parts of a complex128)
    ((400, 1), (400, 3), 'complex128', 'int16', 'x + y',
     lambda a, b: a + b),
    ((400, 3), (400, 1), 'float32', 'complex128', 'x * y',
     lambda a, b: a * b),
    ((300, 2, 1), (300, 1, 3), 'complex64', 'complex128', 'x - y',
     lambda a, b: a - b),
]


def test_three_streams():
    a = random_array('float32', (700, 1, 3), rng)
    b = random_array('float32', (700, 2, 1), rng)
    c = random_array('float32', (700, 2, 3), rng)
    got = run_map('x * y + z', [a, b, c], blocksize=5)
    assert_same(got, a * b + c, 'three streams', rtol=0)


def test_stream_without_axis_is_refused():
    """numpy aligns the last axes: (N,) against (N, 3) would put the rows
    of one against the columns of the other, so it is refused, naming both
    shapes and the fix."""
    a = random_array('float32', (10,), rng)
    b = random_array('float32', (10, 3), rng)
    expect_error('x + y', [a, b], [], '(10,)', '(10, 3)', '(10, 1)',
                 'x is sink_0', 'y is sink_1')


def test_shapes_that_do_not_broadcast():
    a = random_array('float32', (10, 2), rng)
    b = random_array('float32', (10, 3), rng)
    expect_error('x + y', [a, b], [], 'do not broadcast', '(10, 2)',
                 '(10, 3)')


# ---- constants ----

def test_normalise_rows():
    """The motivating case: (x - mean) / std with mean, std of shape (3,)
    over an (N, 3) stream, in small chunks."""
    d = tmpdir()
    x = rng.standard_normal((5000, 3)).astype(np.float32) * 4 + 7
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    got = run_map('(x - mean) / std', [x],
                  [constants_prop(d, mean=mean, std=std)], blocksize=33)
    assert_same(got, (x - mean) / std, '(x - mean) / std')


def constant_case(xshape, xdtype, cshape, cdtype, expr, ref, blocksize):
    def run():
        d = tmpdir()
        x = random_array(xdtype, xshape, rng)
        c = random_array(cdtype, cshape, rng)
        with np.errstate(all='ignore'):
            want = ref(x, c)
        got = run_map(expr, [x], [constants_prop(d, c=c)],
                      blocksize=blocksize)
        assert_same(got, want, '%s: %s %s with constant %s %s' % (
            expr, xshape, xdtype, cshape, cdtype))
    return run


CONSTANT_CASES = [
    # a row of the output is shorter, as long as and longer than a block
    ((3000, 3), 'float32', (3,), 'float32', 'x - c', lambda x, c: x - c, 50),
    ((300, 1500), 'float64', (1500,), 'float64', 'x * c',
     lambda x, c: x * c, 3),
    ((40, 2, 700), 'float32', (1, 700), 'float64', 'x + c',
     lambda x, c: x + c, 7),
    # the constant grows the row: (N, 1, 3) against (4, 1) is (N, 4, 3)
    ((500, 1, 3), 'int32', (4, 1), 'int32', 'x * c', lambda x, c: x * c, 9),
    # as many axes as the stream, length 1 along the rows
    ((800, 3), 'int16', (1, 3), 'uint8', 'x + c', lambda x, c: x + c, 11),
    # a 0-d constant is a scalar
    ((800, 3), 'float32', (), 'float32', 'x * c', lambda x, c: x * c, 13),
    ((800, 5), 'uint16', (5,), 'bool', 'where(c, x, 0)',
     lambda x, c: np.where(c, x, np.uint16(0)), 17),
    ((900, 4), 'float64', (4,), 'complex128', 'x * c', lambda x, c: x * c,
     19),
    ((700, 3), 'complex128', (1, 3), 'complex128', 'x - c',
     lambda x, c: x - c, 23),
]


def test_constant_promotes_as_numpy():
    d = tmpdir()
    x = random_array('float32', (400, 3), rng)
    c = rng.standard_normal(3)            # float64
    got = run_map('x * c', [x], [constants_prop(d, c=c)])
    assert_same(got, x * c, 'float32 stream times a float64 constant')


def test_constant_in_memory_tested_by_plan_api():
    """Bound from memory, the same arrays give the same values: see
    test_plan_api.py; here the constant and the stream are read together
    from two constants files too."""
    d = tmpdir()
    x = random_array('float64', (600, 2, 3), rng)
    a = rng.standard_normal((2, 1))
    b = rng.standard_normal(3)
    got = run_map('x * a + b', [x], [constants_prop(d, a=a, b=b)])
    assert_same(got, x * a + b, 'two constants')


def test_constant_that_does_not_broadcast():
    d = tmpdir()
    x = random_array('float32', (10, 3), rng)
    expect_error('x - c', [x], [constants_prop(d, c=np.zeros(4, np.float32))],
                 "'c'", '(4,)', '(10, 3)', 'do not broadcast')


def test_constant_along_the_rows_is_refused():
    d = tmpdir()
    x = random_array('float32', (10, 3), rng)
    expect_error('x - c', [x],
                 [constants_prop(d, c=np.zeros((10, 3), np.float32))],
                 "'c'", '(10, 3)', 'same for every row')


def test_constant_with_more_axes_is_refused():
    d = tmpdir()
    x = random_array('float32', (10, 3), rng)
    expect_error('x - c', [x],
                 [constants_prop(d, c=np.zeros((1, 1, 3), np.float32))],
                 "'c'", '(1, 1, 3)', 'more axes')


def test_constant_with_axes_over_0d_stream_is_refused():
    # numpy's np.array(2.0) * np.ones(1) has shape (1,), which a 0-d
    # stream cannot give: refused as a constant with more axes, where the
    # map gave a 0-d result, and the message names the stream's shape ().
    d = tmpdir()
    x = np.array(2.5)
    for c in (np.ones(1), np.ones((1, 1)), np.ones(3)):
        expect_error('x * c', [x], [constants_prop(d, c=c)], "'c'",
                     str(c.shape), "'x' of shape ()", 'more axes')
    got = run_map('x * c', [x], [constants_prop(d, c=np.array(3.0))])
    assert_same(got, np.array(7.5), '0-d constant over a 0-d stream')


def test_constant_too_large_is_refused():
    d = tmpdir()
    x = random_array('float32', (10, 3), rng)
    big = os.path.join(d, 'big.npy')
    with open(big, 'wb') as f:          # sparse: no 65 MiB written
        f.truncate(65 << 20)
    expect_error('x - c', [x], ['constants=c=%s' % big], "'c'", '64 MiB')


def test_constant_file_errors():
    d = tmpdir()
    x = random_array('float32', (10, 3), rng)
    expect_error('x - c', [x], ['constants=c=%s/missing.npy' % d], "'c'",
                 'missing.npy')
    expect_error('x - c', [x], ['constants=c'], 'not name=file.npy')
    expect_error('x - c', [x], ['constants=2c=%s/m.npy' % d], "'2c'",
                 'not a name')
    path = save(d, 'c.npy', np.zeros(3))
    expect_error('x - c', [x], ['constants=c=%s,c=%s' % (path, path)],
                 "'c' is given twice")
    expect_error('x - c', [x], ['constants=x=%s' % path], "'x'", 'twice')


def test_unknown_name_without_constant():
    x = random_array('float32', (10, 3), rng)
    expect_error('x - mean', [x], [], 'mean')


# ---- params ----

def test_params_values_and_dtypes():
    x = random_array('float32', (2000, 3), rng)
    # A param is a strong 0-d value of its dtype (as np.float64(2.5) is
    # under NEP 50): 1-element arrays give numpy's result on any version.
    def p(v, dtype):
        return np.array([v], dtype)
    got = run_map('x * gain + offset', [x], ['params=gain=2.5,offset=-1'])
    assert_same(got, x * p(2.5, 'f8') + p(-1, 'f8'),
                'float64 params promote as numpy')
    got = run_map('x * gain', [x], ['params=gain:float32=0.1'])
    assert_same(got, x * p(0.1, 'f4'), 'a float32 param')
    i = random_array('int16', (2000, 3), rng)
    got = run_map('(x >> n) + k', [i], ['params=n:int16=3, k:uint8=200'])
    assert_same(got, (i >> p(3, 'i2')) + p(200, 'u1'), 'integer params')
    got = run_map('where(flag, x, -x)', [i], ['params=flag:bool=false'])
    assert_same(got, np.where(False, i, -i), 'a bool param')
    # a float16 param is numpy's np.float16 of the value, on the CPU and
    # the device (it was read as the low 16 bits of a float64: 1.0 gave 0)
    h = random_array('float16', (2000, 3), rng)
    for where in ({}, {'GST_PLAN_DEVICE': 'sim'}):
        for v in ('0.1', '1', '-3.5', '65504', '-inf'):
            got = run_map('x * g + 1', [h],
                          ['params=g:float16=%s' % v] +
                          (['target=cuda'] if where else []), env=where)
            assert_same(got, h * p(float(v), 'f2') + np.float16(1),
                        'a float16 param of %s %s' % (v, where))


def test_params_with_constants_and_broadcast():
    d = tmpdir()
    x = random_array('float64', (999, 4, 1), rng)
    y = random_array('float64', (999, 1, 3), rng)
    c = rng.standard_normal(3)
    got = run_map('(x + y - c) * gain', [x, y],
                  [constants_prop(d, c=c), 'params=gain=0.5'], blocksize=10)
    assert_same(got, (x + y - c) * 0.5, 'streams, constant and param')


def test_integer_param_literals():
    """An integer param takes what Python's int(text, 0) takes: a sign,
    decimal, 0x, 0o or 0b digits, '_' between digits; a value out of the
    dtype's range is an error (numpy 2 refuses np.int8(0x80); it never
    wraps), and so is a decimal with a leading zero (Python refuses it,
    C reads it as octal)."""
    x = random_array('int64', (50, 3), rng)
    for dtype, text in [('int8', '0x7f'), ('int8', '-0x80'), ('int8', '-128'),
                        ('uint8', '0xFF'), ('int16', '0o777'),
                        ('int32', '-0b1010'), ('uint64', '0xffff_ffff_ffff_ffff'),
                        ('int64', '-0x8000000000000000'), ('int32', '1_000'),
                        ('int16', '+0X_1f'), ('uint16', '00'), ('int8', '-0')]:
        v = int(text, 0)
        got = run_map('x + g', [x], ['params=g:%s=%s' % (dtype, text)])
        assert_same(got, x + np.array([v], dtype),
                    'g:%s=%s' % (dtype, text))
    for dtype, text, lo, hi in [('int8', '0x80', -128, 127),
                                ('int8', '-0x81', -128, 127),
                                ('uint8', '0x100', 0, 255),
                                ('uint16', '-0x1', 0, 65535),
                                ('int64', '0x8000000000000000',
                                 -2 ** 63, 2 ** 63 - 1),
                                ('uint64', '0x1_0000_0000_0000_0000',
                                 0, 2 ** 64 - 1)]:
        expect_error('x + g', [x], ['params=g:%s=%s' % (dtype, text)],
                     "params: parameter 'g': %s is out of range for %s "
                     "(%d to %d)" % (text, dtype, lo, hi))
    for text in ['0x', '0x_', '1__0', '_1', '1_', '0b2', '0o8', '0xg',
                 '1.0', '--1', '0x 1']:
        expect_error('x + g', [x], ['params=g:int32=%s' % text],
                     "params: parameter 'g': '%s' is not an int32 value "
                     "(an integer: decimal, or 0x, 0o or 0b" % text)
    expect_error('x + g', [x], ['params=g:int32=017'],
                 "params: parameter 'g': '017' is a decimal integer with a "
                 "leading zero")


def test_float_param_literals():
    """A float param takes what Python's float(text) takes ('_' between
    digits, inf, nan, any case) and refuses what it refuses: C's strtod
    read hex floats (0x1p3) and refused 1_000.5. A finite number beyond
    the dtype's range is an error, not inf (1e39 was float32's inf)."""
    x = random_array('float64', (50, 3), rng)
    for dtype, text in [('float64', '1_000.5'), ('float64', '1e3'),
                        ('float64', '-.5'), ('float64', '5.'),
                        ('float64', '1_0e1_0'), ('float64', '+INF'),
                        ('float64', '-Infinity'), ('float32', '3.4028235e38'),
                        ('float32', '-1e-50'), ('float16', '65519'),
                        ('float64', '1e-400')]:
        v = float(text)
        got = run_map('x + g', [x], ['params=g:%s=%s' % (dtype, text)])
        assert_same(got, x + np.array([v], dtype), 'g:%s=%s' % (dtype, text))
    got = run_map('x + g', [x], ['params=g=nan'])
    if not np.isnan(got).all():
        raise Failure('g=nan: %r' % got[:2])
    for text in ['0x1p3', '0X10', '1__0', '_1', '1_', '1_.5', '1._5', '1e_5',
                 '1_e5', '.', 'e5', '1e', 'nan(1)', 'infinit', '1.5f', '--1',
                 '1 000']:
        expect_error('x + g', [x], ['params=g:float32=%s' % text],
                     "params: parameter 'g': '%s' is not a float32 value "
                     "(a number as Python's float() reads it" % text)
    for dtype, text, big in [('float32', '1e39', '3.4028235e+38'),
                             ('float32', '-3.5e38', '3.4028235e+38'),
                             ('float16', '70000', '65504'),
                             ('float16', '65520', '65504'),
                             ('float64', '1e309', '1.7976931348623157e+308')]:
        expect_error('x + g', [x], ['params=g:%s=%s' % (dtype, text)],
                     "params: parameter 'g': %s is out of range for %s (its "
                     "largest finite value is %s; write inf for an infinity)"
                     % (text, dtype, big))


def test_param_errors():
    x = random_array('float32', (10, 3), rng)
    expect_error('x * g', [x], ['params=g=abc'], "'g'",
                 "'abc' is not a float64 value")
    expect_error('x * g', [x], ['params=g:int8=300'], "'g'",
                 "300 is out of range for int8 (-128 to 127)")
    expect_error('x * g', [x], ['params=g:uint8=-1'], "'g'",
                 "-1 is out of range for uint8 (0 to 255)")
    expect_error('x * g', [x], ['params=g:float=1'], "'g'", 'float')
    expect_error('x * g', [x], ['params=g'], 'not name=value')
    expect_error('x * g', [x], ['params=g=1,g=2'], "'g' is given twice")
    expect_error('x * g', [x], ['params=1g=1'], "'1g' is not a name")
    expect_error('x * y', [x], ['params=y=1,x=2'], "'x'", 'twice')


# ---- on the simulated device ----

def test_on_sim_device():
    """target=cuda on the sim device: the constants are copied to the
    device once, the params go with each launch."""
    d = tmpdir()
    x = rng.standard_normal((3000, 3)).astype(np.float32)
    y = rng.standard_normal((3000, 1)).astype(np.float32)
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    for seed in ('1', '2'):
        got = run_map('(x - mean) / std * gain + y', [x, y],
                      [constants_prop(d, mean=mean, std=std),
                       'params=gain:float32=3', 'target=cuda'],
                      blocksize=100, env={'GST_PLAN_DEVICE': 'sim',
                                          'GST_PLAN_SIM_SEED': seed},
                      device=True)
        assert_same(got, (x - mean) / std * np.float32(3) + y,
                    'on the sim device, seed %s' % seed)


# ---- a change while playing ----

LIVE_SCRIPT = r'''
import sys
import gi
gi.require_version('Gst', '1.0')
from gi.repository import Gst
Gst.init(None)
src, out, device = sys.argv[1], sys.argv[2], sys.argv[3]
up, down = ('! planupload', '! plandownload') if device == 'sim' else ('', '')
p = Gst.parse_launch('planfilesrc location=%s blocksize=%s %s ! planmap '
                     'name=m expr="x * gain + bias" params="gain=2,bias=1" '
                     '%s ! planfilesink location=%s' % (src, sys.argv[4], up,
                                                        down, out))
m = p.get_by_name('m')
changed = []


def probe(pad, info):
    buf = info.get_buffer()
    if not changed and buf.offset_end >= 1000:
        # Rows from the next chunk on use the new values.
        m.set_property('params', 'gain=-3,bias=0.25')
        changed.append(buf.offset_end)
    return Gst.PadProbeReturn.OK


m.get_static_pad('src').add_probe(Gst.PadProbeType.BUFFER, probe)
p.set_state(Gst.State.PLAYING)
msg = p.get_bus().timed_pop_filtered(60 * Gst.SECOND,
                                     Gst.MessageType.EOS |
                                     Gst.MessageType.ERROR)
p.set_state(Gst.State.NULL)
if msg is None or msg.type != Gst.MessageType.EOS:
    print('failed:', msg.parse_error() if msg else 'timeout')
    sys.exit(1)
print(changed[0])
'''


def live_change(device):
    def run():
        x = rng.standard_normal((5000, 4))
        d = tmpdir()
        src = save(d, 'x.npy', x)
        out = os.path.join(d, 'out.npy')
        env = dict(os.environ)
        if device == 'sim':
            env['GST_PLAN_DEVICE'] = 'sim'
        p = subprocess.run([sys.executable, '-c', LIVE_SCRIPT, src, out,
                            device, str(x[0].nbytes * 300)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=120, env=env)
        if p.returncode != 0:
            raise Failure('live change failed: %s' % p.stdout)
        row = int(p.stdout.strip().splitlines()[-1])
        if not 1000 <= row < 5000:
            raise Failure('changed at row %d' % row)
        want = np.concatenate([x[:row] * 2.0 + 1.0,
                               x[row:] * -3.0 + 0.25])
        assert_same(np.load(out), want, 'params changed at row %d' % row)
    return run


def test_live_change_refuses_new_names():
    """While playing, only the values may change: new names are the
    element's error at the next chunk, naming the params."""
    script = LIVE_SCRIPT.replace("'gain=-3,bias=0.25'", "'gain=-3'")
    x = rng.standard_normal((5000, 4))
    d = tmpdir()
    src = save(d, 'x.npy', x)
    p = subprocess.run([sys.executable, '-c', script, src,
                        os.path.join(d, 'out.npy'), 'cpu',
                        str(x[0].nbytes * 300)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120)
    if p.returncode == 0 or 'names or dtypes' not in p.stdout:
        raise Failure('a new set of names should fail: %s' % p.stdout)


def main():
    cases = []
    for c in STREAM_CASES:
        cases.append(('streams %s %s %s' % (c[0], c[1], c[4]),
                      streams_case(*c)))
    for (xs, xd, cs, cd, expr, ref, bs) in CONSTANT_CASES:
        cases.append(('constant %s %s over %s %s' % (cs, cd, xs, xd),
                      constant_case(xs, xd, cs, cd, expr, ref, bs)))
    cases.append(('live change cpu', live_change('cpu')))
    cases.append(('live change sim', live_change('sim')))
    for name, fn in sorted(globals().items()):
        if name.startswith('test_') and callable(fn):
            cases.append((name, fn))
    run_cases(cases)


if __name__ == '__main__':
    main()
