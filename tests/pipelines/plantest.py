"""Helpers for the pipeline tests: temporary files, running pipelines
(plan-launch, gst-launch-1.0's twin) with the test environment, and reading what elements post.

Each test script imports this module, runs real pipelines file to file and
compares the results with numpy or scipy."""
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

DTYPES = ['bool', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32',
          'int64', 'uint64', 'float32', 'float64']
COMPLEX_DTYPES = ['complex64', 'complex128']


class Failure(Exception):
    pass


def gst():
    """GStreamer through python3-gi, initialised once."""
    import gi
    gi.require_version('Gst', '1.0')
    from gi.repository import Gst
    if not Gst.is_initialized():
        Gst.init(None)
    return Gst


def tmpdir():
    """A temporary directory removed when the process exits."""
    d = tempfile.TemporaryDirectory(prefix='plan-test-')
    tmpdir.keep.append(d)
    return d.name


tmpdir.keep = []


def built_with(feature):
    """Whether this build has an optional format ('hdf5', 'zarr'), as
    meson tells the tests (PLAN_HAVE_HDF5, PLAN_HAVE_ZARR); outside meson,
    assumed."""
    return os.environ.get('PLAN_HAVE_' + feature.upper(), '1') != '0'


def libplan_alone(d):
    """A folder in @d holding a copy of the build's libplan and nothing
    else (no module beside it), for LD_LIBRARY_PATH; None without a build
    directory."""
    build = os.environ.get('PLAN_BUILD_DIR')
    lib = build and os.path.join(build, 'libplan', 'libplan-1.0.so.0')
    if not lib or not os.path.exists(lib):
        return None
    alone = os.path.join(d, 'alone')
    os.mkdir(alone)
    shutil.copy(lib, alone)
    return alone


def launcher():
    """The command that runs a pipeline description: the project's
    plan-launch (tools/plan-launch.c explains why not gst-launch-1.0), or
    gst-launch-1.0 outside the build tree."""
    build = os.environ.get('PLAN_BUILD_DIR')
    tool = os.path.join(build, 'tools', 'plan-launch') if build else None
    if tool and os.access(tool, os.X_OK):
        return [tool]
    return ['gst-launch-1.0']


MPIRUN = shutil.which('mpirun')


def mpirun(n, words, env=None, rank_env=None, expect_ok=True):
    """Runs the pipeline `words` (gst-launch words) on n ranks with
    mpirun; returns the ranks' combined output. env: variables for every
    rank; rank_env: {rank: {VAR: value}} set on that rank only. Fails the
    test on an unexpected outcome."""
    cmd = [MPIRUN, '--allow-run-as-root', '--oversubscribe', '-np', str(n)]
    launch = launcher() + ['-q'] + [str(w) for w in words]
    if rank_env:
        script = ''.join('if [ "$OMPI_COMM_WORLD_RANK" = %d ]; then export %s; fi; '
                         % (r, ' '.join('%s=%s' % kv for kv in e.items()))
                         for r, e in rank_env.items())
        cmd += ['sh', '-c', script + 'exec "$@"', 'sh'] + launch
    else:
        cmd += launch
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120, env=dict(os.environ, **(env or {})))
    if expect_ok and p.returncode != 0:
        raise Failure('%d ranks failed (%d): %s\n%s' % (n, p.returncode,
                                                        ' '.join(words), p.stdout))
    if not expect_ok and p.returncode == 0:
        raise Failure('%d ranks should have failed: %s' % (n, ' '.join(words)))
    return p.stdout


def mpi_rank_pid(rank, *markers):
    """The pid of the process of MPI rank `rank` (not mpirun) whose
    command line holds every one of `markers`, or None."""
    for q in os.listdir('/proc'):
        if not q.isdigit():
            continue
        try:
            with open('/proc/%s/cmdline' % q) as f:
                cmd = f.read()
            with open('/proc/%s/environ' % q) as f:
                env = f.read().split('\0')
        except OSError:
            continue
        if all(m in cmd for m in markers) and 'mpirun' not in cmd \
                and 'OMPI_COMM_WORLD_RANK=%d' % rank in env:
            return int(q)
    return None


def run_or_show_threads(cmd, timeout):
    """subprocess.run(cmd) with stdout and stderr together; a process still
    running after `timeout` seconds is a Failure that shows where each of
    its threads waits (gdb's backtraces, where gdb is installed and may
    attach), so that a rare hang can be told from a slow machine."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        threads = 'gdb is not installed: no backtraces'
        if shutil.which('gdb'):
            try:
                threads = subprocess.run(
                    ['gdb', '-batch', '-nx', '-p', str(proc.pid),
                     '-ex', 'thread apply all bt'],
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                    text=True, timeout=60).stdout
            except subprocess.TimeoutExpired:
                threads = 'gdb did not finish within 60 s'
        proc.kill()
        out, _ = proc.communicate()
        shown = ' '.join(cmd)
        if len(shown) > 2000:
            shown = shown[:2000] + ' ...'
        raise Failure('pipeline did not finish within %g s: %s\n%s\n'
                      'its threads:\n%s' % (timeout, shown, out[-4000:],
                                            threads[-30000:]))
    return subprocess.CompletedProcess(cmd, proc.returncode, out)


# What gst-launch-1.0 prints after the error of a pipeline that fails while
# it prerolls.
PREROLL_REFUSED = "ERROR: pipeline doesn't want to preroll."


def gst_launch_1_0(words, timeout, env=None, **popen_args):
    """Runs `gst-launch-1.0 -q words` as a user would; returns a
    subprocess.CompletedProcess with stdout and stderr together.

    gst-launch-1.0 1.22 can hang after printing an error: it quits its main
    loop from a bus sync handler, in the thread that posts the error, and
    an error posted while the pipeline prerolls but before that loop has
    started loses the quit (GStreamer's own elements meet it too:
    videotestsrc ! identity error-after=1 ! fakesink hangs in about 1 run
    in 40 on a busy machine). A run that printed PREROLL_REFUSED and is
    still there 10 s later (stopping a pipeline takes milliseconds) is
    stopped and returned with exit code 1, what gst-launch-1.0 returns
    after an error, its output as printed. Any other run still going after
    `timeout` seconds raises subprocess.TimeoutExpired, as subprocess.run
    does."""
    cmd = ['gst-launch-1.0', '-q'] + [str(w) for w in words]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env,
                            **popen_args)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout),
                              daemon=True)
    reader.start()
    start, refused_at = time.monotonic(), None
    while proc.poll() is None:
        now = time.monotonic()
        if refused_at is None and any(PREROLL_REFUSED in line
                                      for line in list(lines)):
            refused_at = now
        stuck = refused_at is not None and now - refused_at > 10
        if stuck or now - start > timeout:
            proc.kill()
            proc.wait()
            reader.join()
            if not stuck:
                raise subprocess.TimeoutExpired(cmd, timeout, ''.join(lines))
            return subprocess.CompletedProcess(cmd, 1, ''.join(lines))
        time.sleep(0.05)
    reader.join()
    return subprocess.CompletedProcess(cmd, proc.returncode, ''.join(lines))


def launch(*args, expect_ok=True, timeout=120, messages=False):
    """Runs a pipeline given as gst-launch words; returns (returncode,
    combined output). Fails the test on an unexpected outcome, and on a
    pipeline that does not finish within `timeout` seconds.

    With PLAN_TEST_CPU_CHECK=1 (the sim sweep, tests/pipelines/sim_sweep.py,
    which also sets GST_PLAN_DEVICE=sim), a pipeline that succeeds is run a
    second time on the CPU (GST_PLAN_DEVICE unset, target=cuda made
    target=cpu), and every file its planfilesinks wrote must have the same
    bytes as the CPU's."""
    words = [str(a) for a in args]
    cmd = launcher() + (['-m'] if messages else ['-q']) + words
    p = run_or_show_threads(cmd, timeout)
    if expect_ok and p.returncode != 0:
        raise Failure('pipeline failed (%d): %s\n%s' %
                      (p.returncode, ' '.join(cmd), p.stdout))
    if not expect_ok and p.returncode == 0:
        raise Failure('pipeline should have failed: %s\n%s' %
                      (' '.join(cmd), p.stdout))
    if (p.returncode == 0 and os.environ.get('PLAN_TEST_CPU_CHECK') == '1'
            and os.environ.get('GST_PLAN_DEVICE')):
        check_same_as_cpu(words, timeout)
    return p.returncode, p.stdout


def expect_error(words, *texts):
    """Runs a pipeline that must fail, with each of texts in its output;
    returns the output."""
    rc, out = launch(*words, expect_ok=False)
    for t in texts:
        if t not in out:
            raise Failure('expected %r in the error of %s:\n%s' %
                          (t, ' '.join(words), out))
    return out


# Elements that need a device in any case: no CPU twin of their pipeline.
DEVICE_ONLY = ('planupload', 'plandownload')


def file_outputs(words):
    """The indices of the location= words of the planfilesinks in a
    pipeline description given as gst-launch words."""
    element, found = None, []
    for i, w in enumerate(words):
        if w == '!' or ('.' in w and '=' not in w):
            element = None  # a link, or a pad reference such as t.
        elif '=' not in w:
            element = w
        elif element == 'planfilesink' and w.startswith('location='):
            found.append(i)
    return found


def check_same_as_cpu(words, timeout):
    """Runs `words` again with every kernel element on the CPU and
    compares what the planfilesinks wrote, byte for byte."""
    outs = file_outputs(words)
    if not outs or any(w in DEVICE_ONLY for w in words):
        return
    twin = list(words)
    for k, i in enumerate(outs):
        twin[i] = '%s.cpu%d.npy' % (words[i], k)
    twin = ['target=cpu' if w == 'target=cuda' else w for w in twin]
    env = dict(os.environ)
    del env['GST_PLAN_DEVICE']
    cmd = launcher() + ['-q'] + twin
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout, text=True, env=env)
    if p.returncode != 0:
        raise Failure('the CPU twin failed (%d): %s\n%s' %
                      (p.returncode, ' '.join(cmd), p.stdout))
    for k, i in enumerate(outs):
        dev, cpu = words[i][len('location='):], twin[i][len('location='):]
        with open(dev, 'rb') as f:
            a = f.read()
        with open(cpu, 'rb') as f:
            b = f.read()
        os.unlink(cpu)
        if a != b:
            raise Failure('%s on %s (seed %s) is not the CPU\'s bytes: %s' %
                          (dev, os.environ['GST_PLAN_DEVICE'],
                           os.environ.get('GST_PLAN_SIM_SEED', 'drawn'),
                           ' '.join(words)))


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
    if dt.kind == 'c':
        real = np.dtype('f%d' % (dt.itemsize // 2))
        return (random_array(real, shape, rng) +
                1j * random_array(real, shape, rng)).astype(dt)
    return (rng.standard_normal(shape) *
            10.0 ** rng.integers(-3, 4, size=shape)).astype(dt)


def assert_same(got, want, what, rtol=0.0):
    """Same dtype, same shape, and equal values: exactly, or within rtol for
    floats and complex numbers; NaNs match NaNs."""
    if got.dtype != want.dtype:
        raise Failure('%s: dtype %s, expected %s' % (what, got.dtype, want.dtype))
    if got.shape != want.shape:
        raise Failure('%s: shape %s, expected %s' % (what, got.shape, want.shape))
    if got.dtype.kind in 'fc' and rtol > 0:
        ok = np.isclose(got, want, rtol=rtol, atol=0, equal_nan=True)
    elif got.dtype.kind == 'f':
        ok = (got == want) | (np.isnan(got) & np.isnan(want))
    elif got.dtype.kind == 'c':
        ok = (((got.real == want.real) | (np.isnan(got.real) & np.isnan(want.real)))
              & ((got.imag == want.imag) | (np.isnan(got.imag) & np.isnan(want.imag))))
    else:
        ok = got == want
    if not np.all(ok):
        bad = np.argwhere(~ok)[:5]
        raise Failure('%s: %d values differ, first at %s: got %s, expected %s' %
                      (what, np.count_nonzero(~ok), bad.tolist(),
                       got[tuple(bad[0])], want[tuple(bad[0])]))


def assert_bits(got, want, what):
    """Same dtype, same shape and the same bytes (NaN payloads and the
    sign of zeros included)."""
    if got.dtype != want.dtype or got.shape != want.shape:
        raise Failure('%s: got %s %s, expected %s %s' %
                      (what, got.dtype, got.shape, want.dtype, want.shape))
    if got.tobytes() != want.tobytes():
        bad = np.flatnonzero(got.reshape(-1).view(np.uint8) !=
                             want.reshape(-1).view(np.uint8))
        raise Failure('%s: %d bytes differ, first at byte %d' %
                      (what, len(bad), bad[0]))


def run_cases(cases):
    """Runs (name, function) pairs; prints one line each and a summary; exits
    non-zero when any failed. PLAN_TEST_CASES, substrings separated by |,
    runs only the cases whose names contain one of them."""
    only = [w for w in os.environ.get('PLAN_TEST_CASES', '').split('|') if w]
    if only:
        cases = [c for c in cases if any(w in c[0] for w in only)]
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
