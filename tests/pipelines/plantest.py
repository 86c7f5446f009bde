"""Helpers for the pipeline tests: temporary files, running pipelines
(plan-launch, gst-launch-1.0's twin) with the test environment, and reading what elements post.

Each test script imports this module, runs real pipelines file to file and
compares the results with numpy or scipy."""
import os
import subprocess
import sys
import tempfile

import numpy as np

DTYPES = ['bool', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32',
          'int64', 'uint64', 'float32', 'float64']


class Failure(Exception):
    pass


def tmpdir():
    """A temporary directory removed when the process exits."""
    d = tempfile.TemporaryDirectory(prefix='plan-test-')
    tmpdir.keep.append(d)
    return d.name


tmpdir.keep = []


def launcher():
    """The command that runs a pipeline description: the project's
    plan-launch (tools/plan-launch.c explains why not gst-launch-1.0), or
    gst-launch-1.0 outside the build tree."""
    build = os.environ.get('PLAN_BUILD_DIR')
    tool = os.path.join(build, 'tools', 'plan-launch') if build else None
    if tool and os.access(tool, os.X_OK):
        return [tool]
    return ['gst-launch-1.0']


def launch(*args, expect_ok=True, timeout=120, messages=False):
    """Runs a pipeline given as gst-launch words; returns (returncode,
    combined output). Fails the test on an unexpected outcome, and on a
    pipeline that does not finish within `timeout` seconds."""
    cmd = launcher() + (['-m'] if messages else ['-q']) + [str(a) for a in args]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout, text=True)
    if expect_ok and p.returncode != 0:
        raise Failure('pipeline failed (%d): %s\n%s' %
                      (p.returncode, ' '.join(cmd), p.stdout))
    if not expect_ok and p.returncode == 0:
        raise Failure('pipeline should have failed: %s\n%s' %
                      (' '.join(cmd), p.stdout))
    return p.returncode, p.stdout


def random_array(dtype, shape, rng):
    """Values that exercise a dtype: the full range for integers, a mix of
    magnitudes and signs for floats."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dt.kind in 'iu':
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, size=shape, dtype=dt,
                            endpoint=True)
    return (rng.standard_normal(shape) *
            10.0 ** rng.integers(-3, 4, size=shape)).astype(dt)


def assert_same(got, want, what, rtol=0.0):
    """Same dtype, same shape, and equal values: exactly, or within rtol for
    floats; NaNs match NaNs."""
    if got.dtype != want.dtype:
        raise Failure('%s: dtype %s, expected %s' % (what, got.dtype, want.dtype))
    if got.shape != want.shape:
        raise Failure('%s: shape %s, expected %s' % (what, got.shape, want.shape))
    if got.dtype.kind == 'f' and rtol > 0:
        ok = np.isclose(got, want, rtol=rtol, atol=0, equal_nan=True)
    elif got.dtype.kind == 'f':
        ok = (got == want) | (np.isnan(got) & np.isnan(want))
    else:
        ok = got == want
    if not np.all(ok):
        bad = np.argwhere(~ok)[:5]
        raise Failure('%s: %d values differ, first at %s: got %s, expected %s' %
                      (what, np.count_nonzero(~ok), bad.tolist(),
                       got[tuple(bad[0])], want[tuple(bad[0])]))


def run_cases(cases):
    """Runs (name, function) pairs; prints one line each and a summary; exits
    non-zero when any failed."""
    failed = 0
    for name, fn in cases:
        try:
            fn()
            print('ok   %s' % name)
        except Exception as e:  # noqa: BLE001 - report every failure
            failed += 1
            print('FAIL %s: %s' % (name, e))
    print('%d passed, %d failed' % (len(cases) - failed, failed))
    sys.exit(1 if failed else 0)
