#!/usr/bin/python3
"""planreduce target=cuda on the sim device (GST_PLAN_DEVICE=sim), file to
file: the device reduction after a map in device memory, against numpy,
and the same bytes as target=cpu."""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import Failure, assert_same, launch, run_cases, tmpdir  # noqa: E402

os.environ['GST_PLAN_DEVICE'] = 'sim'


def save(a, name):
    path = os.path.join(tmpdir(), name)
    np.save(path, a)
    return path


def reduce_file(src, row_bytes, props, target, upload):
    out = os.path.join(tmpdir(), 'out-%s.npy' % target)
    head = ['planfilesrc', 'location=%s' % src,
            'blocksize=%d' % (row_bytes * 333), '!']
    if upload:
        head += ['planupload', '!', 'planmap', 'expr=x*1', '!']
    launch(*(head + ['planreduce', 'target=%s' % target] + props +
             ['!', 'planfilesink', 'location=%s' % out]))
    return out


# (op, numpy function, float tolerance)
OPS = [
    ('sum', np.sum, 1e-12),
    ('mean', np.mean, 1e-12),
    ('std', lambda a, axis: np.std(a, axis=axis, ddof=1), 1e-10),
    ('min', np.min, 0.0),
    ('argmax', np.argmax, 0.0),
    ('nanmean', np.nanmean, 1e-12),
    ('count_nonzero', np.count_nonzero, 0.0),
    ('ptp', np.ptp, 0.0),
]


def numpy_reduce(fn, a, axis):
    if axis == 'all':
        return np.asarray(fn(a, axis=None))
    if axis == '0':
        return np.asarray(fn(a, axis=0))
    # 2-D input: the inner axes are axis 1
    return np.asarray(fn(a, axis=1))


def case(op, fn, tol, dtype, axis, upload):
    def run():
        rng = np.random.default_rng(7)
        if dtype == 'int32':
            a = rng.integers(-1000, 1000, size=(4001, 5)).astype(np.int32)
        else:
            a = (rng.standard_normal((4001, 5)) * 10 + 100).astype(dtype)
            a[17, 2] = np.nan if op == 'nanmean' else a[17, 2]
        src = save(a, 'in.npy')
        props = ['op=%s' % op, 'axis=%s' % axis, 'ddof=1']
        row = a.shape[1] * a.dtype.itemsize
        got = np.load(reduce_file(src, row, props, 'cuda', upload))
        cpu = np.load(reduce_file(src, row, props, 'cpu', upload))
        if got.tobytes() != cpu.tobytes():
            raise Failure('%s axis %s on %s: target=cuda is not target=cpu'
                          % (op, axis, dtype))
        want = numpy_reduce(fn, a, axis)
        if op == 'sum' and axis == 'all' and dtype == 'float64':
            want = np.asarray(math.fsum(a.ravel()))
        if op == 'argmax':
            got = got.astype(np.int64)
        assert_same(got, want.astype(got.dtype) if tol == 0.0 else want,
                    '%s axis %s on %s' % (op, axis, dtype), rtol=tol)
    return run


cases = []
for op, fn, tol in OPS:
    for dtype in ('float64', 'int32'):
        if op == 'nanmean' and dtype == 'int32':
            continue
        for axis in ('all', '0', '-1'):
            cases.append(('%s_%s_axis_%s' % (op, dtype, axis),
                          case(op, fn, tol, dtype, axis, axis != '-1')))
run_cases(cases)
