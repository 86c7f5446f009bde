#!/usr/bin/python3
"""plancustom with the example kernels (tests/examples/custom/) against numpy
and scipy, over several chunk sizes: a per-row softmax (C library, and the
CUDA source compiled with NVRTC and run on the simulated device through the
C kernel), a running histogram as a reduction, a prefix sum carried across
chunks in the element's state, a 3-row mean with a halo; and every error:
a missing library or symbol, a kernel not declared with PLAN_CUSTOM_EXPORT
or built for another version, a kernel that fails, a CUDA compile error
with NVRTC's log, properties that contradict each other."""
import os
import subprocess

import numpy as np
from scipy import ndimage

import plantest
from plantest import Failure, assert_same, launch, run_cases, tmpdir

BUILD = os.environ.get('PLAN_BUILD_DIR', 'build')
SRC = os.environ.get('PLAN_SOURCE_DIR', '.')
KERNELS = os.path.join(BUILD, 'tests', 'examples')
CUDA_DIR = os.path.join(SRC, 'tests', 'examples', 'custom')
rng = np.random.default_rng(14)


def have_nvrtc():
    """Whether libplan will find libnvrtc (plannvrtc.c's candidates)."""
    import ctypes
    import glob
    for name in ['libnvrtc.so', 'libnvrtc.so.13', 'libnvrtc.so.12'] + \
            glob.glob('/usr/local/cuda*/lib64/libnvrtc.so*'):
        try:
            ctypes.CDLL(name)
            return True
        except OSError:
            continue
    return False


def lib(name):
    return os.path.join(KERNELS, 'lib%s.so' % name)


def save(d, name, a):
    p = os.path.join(d, name + '.npy')
    np.save(p, a)
    return p


def run(d, a, words, blocksize=None, env=None):
    src = save(d, 'in', a)
    out = os.path.join(d, 'out.npy')
    bs = ['blocksize=%d' % blocksize] if blocksize else []
    cmd = plantest.launcher() + ['-q', 'planfilesrc', 'location=' + src] + bs + \
        ['!', 'plancustom'] + words + ['!', 'planfilesink', 'location=' + out]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120, env=dict(os.environ, **(env or {})))
    if p.returncode != 0:
        raise Failure('%s failed: %s' % (' '.join(cmd), p.stdout))
    return np.load(out)


def fails(d, a, words, *needles, env=None, blocksize=None):
    src = save(d, 'in', a)
    bs = ['blocksize=%d' % blocksize] if blocksize else []
    cmd = plantest.launcher() + ['-q', 'planfilesrc', 'location=' + src] + bs + \
        ['!', 'plancustom'] + words + ['!', 'fakesink']
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120, env=dict(os.environ, **(env or {})))
    if p.returncode == 0:
        raise Failure('should have failed: %s' % ' '.join(cmd))
    for n in needles:
        if n not in p.stdout:
            raise Failure('%r not in the error of %s:\n%s' % (n, ' '.join(cmd), p.stdout))


def softmax_np(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def softmax():
    d = tmpdir()
    x = rng.standard_normal((3001, 37)).astype(np.float32) * 5
    for bs in (None, 37 * 4 * 7, 37 * 4 * 1000):
        got = run(d, x, ['library=' + lib('softmax'), 'symbol=softmax'], bs)
        assert_same(got, softmax_np(x), 'softmax blocksize %s' % bs, rtol=2e-6)


def parallel():
    # parallel=true splits each chunk's rows across the worker threads:
    # the same results, for kernels whose rows are independent
    d = tmpdir()
    x = rng.standard_normal((20011, 64)).astype(np.float32)
    for threads in (1, 2, 5):
        got = run(d, x, ['library=' + lib('softmax'), 'symbol=softmax',
                         'parallel=true', 'n-threads=%d' % threads], 64 * 4 * 7001)
        assert_same(got, softmax_np(x), 'softmax parallel %d' % threads, rtol=2e-6)
    got = run(d, x, ['library=' + lib('axpb'), 'symbol=axpb', 'parallel=true'])
    assert_same(got, x * np.float32(2) + np.float32(1), 'axpb parallel')
    fails(d, np.arange(10.0), ['library=' + lib('prefixsum'), 'symbol=prefixsum',
                               'state-size=8', 'parallel=true'], 'parallel is for')


def softmax_cuda_on_sim():
    # The CUDA source is compiled with NVRTC at start (errors now, even
    # without a GPU); on the simulated device the C kernel given with it
    # runs in stream order on device memory.
    d = tmpdir()
    if not have_nvrtc():
        print('     (no libnvrtc here: skipped)')
        return
    x = rng.standard_normal((2000, 16)).astype(np.float32)
    got = run(d, x, ['cuda-source=' + os.path.join(CUDA_DIR, 'softmax.cu'),
                     'cuda-function=softmax', 'library=' + lib('softmax'),
                     'symbol=softmax', 'target=cuda'], 16 * 4 * 300,
              env={'GST_PLAN_DEVICE': 'sim'})
    assert_same(got, softmax_np(x), 'softmax on sim', rtol=2e-6)
    # CUDA source alone cannot run on the simulated device (the device's
    # name, "Simulated device (seed N)", is not followed by another "device")
    fails(d, x, ['cuda-source=' + os.path.join(CUDA_DIR, 'softmax.cu'),
                 'cuda-function=softmax', 'target=cuda'],
          'on the Simulated device (seed ', 'CUDA source runs through a CPU '
          'kernel given with it', env={'GST_PLAN_DEVICE': 'sim'})


def histogram():
    d = tmpdir()
    x = np.concatenate([rng.random(100000), [0.0, 1.0, -0.1, 1.1, np.nan]])
    for bs in (None, 8 * 999, 8 * 50000):
        got = run(d, x, ['mode=reduce', 'library=' + lib('histogram'),
                         'symbol=histogram', 'out-dtype=int64', 'out-shape=64',
                         'params=0 1'], bs)
        assert_same(got, np.histogram(x[np.isfinite(x)], 64, range=(0, 1))[0]
                    .astype(np.int64), 'histogram blocksize %s' % bs)


def prefix_sum():
    d = tmpdir()
    x = rng.standard_normal(200003)
    for bs in (None, 8 * 1001, 8 * 65536):
        got = run(d, x, ['library=' + lib('prefixsum'), 'symbol=prefixsum',
                         'state-size=8'], bs)
        # the same additions in the same order as np.cumsum
        assert_same(got, np.cumsum(x), 'prefix sum blocksize %s' % bs)


def halo():
    d = tmpdir()
    x = rng.standard_normal((4001, 3))
    for mode in ('nearest', 'reflect', 'mirror', 'constant', 'wrap'):
        for bs in (24 * 10, 24 * 1000, None):
            got = run(d, x, ['library=' + lib('smooth3'), 'symbol=smooth3',
                             'halo=1', 'boundary=' + mode, 'cval=2.5'], bs)
            want = ndimage.uniform_filter1d(x, 3, axis=0, mode=mode, cval=2.5)
            # scipy sums the three in another order: a few ulps apart
            if got.shape != want.shape or not np.allclose(got, want, rtol=1e-12,
                                                          atol=1e-14):
                raise Failure('halo %s blocksize %s: differs from scipy' % (mode, bs))


def halo_valid():
    # boundary=valid: only the rows with a whole halo, as a 'valid'
    # correlation (scipy's uniform filter on the interior)
    d = tmpdir()
    x = rng.standard_normal((3001, 2))
    for bs in (16 * 7, None):
        got = run(d, x, ['library=' + lib('smooth3'), 'symbol=smooth3', 'halo=1',
                         'boundary=valid'], bs)
        want = ndimage.uniform_filter1d(x, 3, axis=0)[1:-1]
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-12, atol=1e-14):
            raise Failure('valid blocksize %s: %s, expected %s' % (bs, got.shape, want.shape))
    # a stream too short for one whole halo: the error names plancustom's
    # halo and boundary, not a stencil's window
    fails(d, x[:2], ['library=' + lib('smooth3'), 'symbol=smooth3', 'halo=1',
                     'boundary=valid'],
          'plancustom plancustom0: halo=1 with boundary=valid needs at least 3 rows '
          'of input 0, which has 2')


def errors():
    d = tmpdir()
    x = np.arange(1000.0)
    fails(d, x, ['library=/nonexistent/libk.so', 'symbol=k'],
          '/nonexistent/libk.so')
    fails(d, x, ['library=' + lib('failing'), 'symbol=nothere'],
          "has no symbol 'nothere'")
    # A library path that is not a regular file is refused before the
    # loader opens it: a FIFO without a writer would wait forever, and a
    # directory was reported under its name with '.so' added.
    fifo = os.path.join(d, 'k.so')
    os.mkfifo(fifo)
    for path, why in [(fifo, 'a FIFO (named pipe)'), (d, 'a directory'),
                      ('/dev/zero', 'a device'),
                      (fifo[:-3], 'a FIFO (named pipe)')]:
        fails(d, x, ['library=' + path, 'symbol=k'],
              "Could not load the kernel library '%s': it is %s, not a "
              "shared library" % (fifo if path == fifo[:-3] else path, why))
    os.unlink(fifo)
    fails(d, x, ['library=' + lib('failing'), 'symbol=undeclared'],
          'PLAN_CUSTOM_EXPORT (undeclared)')
    fails(d, x, ['library=' + lib('failing'), 'symbol=future'],
          'version 2', 'version 1')
    # The kernel's failure names the rows of the call that failed (the
    # chunk of 1000 rows here), or a reduction's init or finish call,
    # which have no rows.
    fails(d, x, ['library=' + lib('failing'), 'symbol=fail_at', 'params=500'],
          'fail_at in %s failed in the call for rows 0 to 999: bad value '
          'near row 500' % lib('failing'))
    fails(d, x, ['library=' + lib('failing'), 'symbol=reduce_fails',
                 'mode=reduce', 'params=init'],
          'reduce_fails in %s failed in its init call: nothing to give'
          % lib('failing'))
    fails(d, x, ['library=' + lib('failing'), 'symbol=reduce_fails',
                 'mode=reduce'],
          'reduce_fails in %s failed in its finish call: nothing to give'
          % lib('failing'))
    fails(d, x, [], 'has no kernel')
    fails(d, x, ['library=' + lib('failing')], 'needs symbol=')
    fails(d, x, ['kernel=nobody'], "No custom kernel is registered as 'nobody'")
    fails(d, x, ['kernel=k', 'library=' + lib('failing'), 'symbol=fail_at'],
          'not both')
    fails(d, x, ['library=' + lib('prefixsum'), 'symbol=prefixsum'],
          'state-size=8')
    fails(d, x, ['library=' + lib('smooth3'), 'symbol=smooth3',
                 'out-shape=0'], 'out-shape')
    fails(d, x, ['library=' + lib('smooth3'), 'symbol=smooth3',
                 'out-dtype=flaot32'], 'out-dtype', 'flaot32')
    # The example map kernels refuse to run as reductions, or with an
    # output they were not written for, instead of reading inputs the init
    # phase does not have or writing past the output.
    x32 = np.arange(12, dtype=np.float32).reshape(6, 2)
    for name in ('axpb', 'softmax'):
        fails(d, x32, ['library=' + lib(name), 'symbol=' + name,
                       'mode=reduce'], '%s is a map kernel' % name)
        fails(d, x32, ['library=' + lib(name), 'symbol=' + name,
                       'out-dtype=int8'],
              '%s takes and gives float32 rows of one shape' % name)
    fails(d, x, ['library=' + lib('smooth3'), 'symbol=smooth3', 'mode=reduce',
                 'out-dtype=float64'], 'smooth3 needs mode=map')
    fails(d, x, ['library=' + lib('prefixsum'), 'symbol=prefixsum',
                 'state-size=8', 'mode=reduce'], 'prefixsum needs mode=map')
    # Output rows too large for memory: an error that says so (GLib would
    # abort on the allocation; a buffer pool's sizes stop at 4 GiB).
    fails(d, x32, ['library=' + lib('axpb'), 'symbol=axpb',
                   'out-shape=99999999,99999999'],
          'Could not allocate an output buffer (rows of 39999999200000004 '
          'bytes')
    # A cuda-source that is not a regular file is refused at once (a FIFO
    # without a writer would wait for one), as is one that is missing.
    fifo = os.path.join(d, 'k.cu')
    os.mkfifo(fifo)
    for src, why in [(fifo, 'a FIFO (named pipe), not a regular file'),
                     (d, 'a directory, not a regular file'),
                     (os.path.join(d, 'none.cu'), 'No such file')]:
        fails(d, x, ['cuda-source=' + src, 'cuda-function=k',
                     'library=' + lib('softmax'), 'symbol=softmax',
                     'target=cpu'], 'cuda-source: ' + src, why)
    os.unlink(fifo)
    # CUDA source alone with target=cpu can never run: an error at start,
    # also over an empty stream, which has no chunk to find it at.
    for a in (x, np.zeros((0, 4), np.float32)):
        fails(d, a, ['cuda-source=' + os.path.join(CUDA_DIR, 'softmax.cu'),
                     'cuda-function=softmax', 'target=cpu'],
              'plancustom plancustom0 has only a CUDA kernel, and target=cpu: '
              'give a CPU kernel too')
    if not have_nvrtc():
        print('     (no libnvrtc here: the CUDA compile error is not checked)')
        return
    src = os.path.join(d, 'bad.cu')
    with open(src, 'w') as f:
        f.write('extern "C" __global__ void k (plan_chunk c)\n{\n  int x = ;\n}\n')
    fails(d, x, ['cuda-source=' + src, 'cuda-function=k', 'library=' + lib('failing'),
                 'symbol=fail_at'], 'bad.cu(3)')
    fails(d, x, ['cuda-source=' + src], 'cuda-function')
    # A function the source does not define: an error at start, also when
    # the CPU kernel given with it is what runs.
    for target in ('cpu', 'auto'):
        fails(d, x, ['cuda-source=' + os.path.join(CUDA_DIR, 'softmax.cu'),
                     'cuda-function=sofmtax', 'library=' + lib('softmax'),
                     'symbol=softmax', 'target=' + target],
              "softmax.cu: the CUDA source defines no kernel 'sofmtax'",
              'it defines softmax')


def zero_d():
    # A 0-d input (a reduction's result) is one element: a map kernel over
    # it gives a 0-d output, read from a .npy and after planreduce.
    d = tmpdir()
    got = run(d, np.array(1.5, np.float32), ['library=' + lib('axpb'),
                                             'symbol=axpb'])
    assert_same(got, np.array(4.0, np.float32), 'axpb over a 0-d array')
    x = rng.standard_normal(1001).astype(np.float32)
    src = save(d, 'x', x)
    out = os.path.join(d, 'out.npy')
    launch('planfilesrc', 'location=' + src, '!', 'planreduce', 'op=max', '!',
           'plancustom', 'library=' + lib('axpb'), 'symbol=axpb', '!',
           'planfilesink', 'location=' + out)
    assert_same(np.load(out), x.max() * np.float32(2) + np.float32(1),
                'planreduce ! plancustom')
    # A halo over one value has no rows to give: an error that says so,
    # not the halo's own words about a stencil.
    fails(d, np.array(1.5, np.float32), ['library=' + lib('axpb'),
                                         'symbol=axpb', 'halo=1'],
          'halo=1 gives the kernel the rows around each chunk',
          'input 0 is a single value (0-d')


def check_mode():
    # Check mode (PLAN_CUSTOM_CHECK=1, which the test environment sets, or
    # check=true): writes outside the output, before it, into an input or
    # past a reduction's accumulator are errors naming the kernel and what
    # it did, where they went unseen (exit 0) or crashed.
    d = tmpdir()
    x = np.arange(1000.0)
    on = {'PLAN_CUSTOM_CHECK': '1'}
    fails(d, x, ['library=' + lib('failing'), 'symbol=overrun_after'],
          'The custom kernel overrun_after in', 'wrote outside its output '
          '(16 bytes after the end)', env=on)
    fails(d, x, ['library=' + lib('failing'), 'symbol=overrun_before'],
          'wrote outside its output (64 bytes before the start)', env=on)
    fails(d, x, ['library=' + lib('failing'), 'symbol=writes_input'],
          'wrote into its input 0, which it may only read (at byte 8 of the '
          'rows it was given)', env=on)
    # A write into the halo rows around the call's rows says so, instead
    # of giving a negative byte of the rows.
    fails(d, x, ['library=' + lib('failing'), 'symbol=writes_halo', 'halo=1'],
          'wrote into its input 0, which it may only read (in its halo, 1 '
          'byte before its first row), in the call for row', env=on)
    fails(d, x, ['library=' + lib('failing'), 'symbol=writes_halo', 'halo=1',
                 'params=after'],
          'wrote into its input 0, which it may only read (in its halo, 1 '
          'byte after its last row), in the call for row', env=on)
    fails(d, x, ['library=' + lib('failing'), 'symbol=reduce_overrun',
                 'mode=reduce', 'out-shape=4'],
          'wrote outside its output (16 bytes after the end)', env=on)
    # Output rows the kernel never writes: pool buffers hold an earlier
    # chunk's rows, which passed for results (exit 0, plausible values).
    # Check mode names the rows, the kernel and its call.
    fails(d, x, ['library=' + lib('failing'), 'symbol=skips_rows'],
          'plancustom0', 'The custom kernel skips_rows in',
          'did not write 10 of its 64 output rows (rows 100 to 109 of the '
          'stream), in the call for rows 64 to 127', env=on,
          blocksize=8 * 64)
    fails(d, x, ['library=' + lib('failing'), 'symbol=skips_rows',
                 'parallel=true', 'n-threads=2', 'params=0'],
          'did not write 10 of its', '(rows 0 to 9 of the stream)', env=on,
          blocksize=8 * 64)
    got = run(d, x, ['library=' + lib('failing'), 'symbol=skips_rows'], 8 * 64,
              env={'PLAN_CUSTOM_CHECK': '0'})
    assert not np.array_equal(got[100:110], x[100:110]), \
        'normal mode changed: the unwritten rows hold what they did'
    # The property alone, without the environment variable.
    fails(d, x, ['library=' + lib('failing'), 'symbol=overrun_after',
                 'check=true'], '16 bytes after the end',
          env={'PLAN_CUSTOM_CHECK': '0'})
    # A kernel that keeps to its buffers gives numpy's result, in check
    # mode and with threads.
    y = rng.standard_normal((5000, 16)).astype(np.float32)
    got = run(d, y, ['library=' + lib('softmax'), 'symbol=softmax',
                     'parallel=true'], env=on)
    assert_same(got, softmax_np(y), 'softmax checked', rtol=2e-6)


def failing_on_sim():
    # On the simulated device the kernel runs later, on the stream's worker
    # thread: its failure still fails the pipeline with the kernel's
    # message, before EOS, and planfilesink commits no output. With small
    # blocks the next chunk finds it; with one block, the end of the stream.
    d = tmpdir()
    x = np.arange(1000.0)
    src = save(d, 'in', x)
    out = os.path.join(d, 'out.npy')
    sim = dict(os.environ, GST_PLAN_DEVICE='sim')
    words = ['library=' + lib('failing'), 'symbol=fail_at', 'params=500']
    fails(d, x, words, 'bad value near row 500', env=sim)
    for bs in (None, 8 * 64):
        for sink in (['fakesink'], ['planfilesink', 'location=' + out]):
            cmd = plantest.launcher() + ['-q', 'planfilesrc', 'location=' + src] + \
                (['blocksize=%d' % bs] if bs else []) + ['!', 'plancustom'] + \
                words + ['!'] + sink
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=120, env=sim)
            if p.returncode == 0 or 'bad value near row 500' not in p.stdout:
                raise Failure('should have failed with the kernel\'s error: %s:\n%s'
                              % (' '.join(cmd), p.stdout))
            if os.path.exists(out):
                raise Failure('planfilesink committed %s after the kernel failed' % out)
    fails(d, x, ['library=' + lib('failing'), 'symbol=overrun_after'],
          'wrote outside its output (16 bytes after the end)',
          env=dict(sim, PLAN_CUSTOM_CHECK='1'))


def sharded():
    # Sharded across MPI ranks (planfilesrc shard=mpi), a map without halo
    # or state computes each rank's rows as the whole; a halo (the rows of
    # the neighbouring ranks), state carried from row to row and a
    # reduction (one rank's part) would give wrong rows at the seams or a
    # part for the whole, with exit 0: refused on every rank, saying why.
    if plantest.MPIRUN is None:
        print('     (no mpirun here: skipped)')
        return
    d = tmpdir()
    x = rng.standard_normal((5001, 3))
    src = save(d, 'in', x)
    out = os.path.join(d, 'out.npy')
    probe = subprocess.run(plantest.launcher() + ['-q', 'planfilesrc', 'location=' + src,
                                                  'shard=mpi', '!', 'fakesink'],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if 'no MPI support' in probe.stdout:
        print('     (no MPI support in this build: skipped)')
        return
    head = ['planfilesrc', 'location=' + src, 'shard=mpi', '!', 'plancustom']
    tail = ['!', 'planfilesink', 'location=' + out]
    # fail_at copies its rows until the row of params, beyond the stream's
    plantest.mpirun(2, head + ['library=' + lib('failing'), 'symbol=fail_at',
                               'params=99999'] + tail)
    assert_same(np.load(out), x, 'sharded copy')
    for words, why in [
            (['library=' + lib('smooth3'), 'symbol=smooth3', 'halo=1'],
             'halo=1 needs the rows of the neighbouring ranks'),
            (['library=' + lib('prefixsum'), 'symbol=prefixsum', 'state-size=8'],
             'state-size=8 carries state from row to row'),
            (['library=' + lib('histogram'), 'symbol=histogram', 'mode=reduce',
              'out-dtype=int64', 'out-shape=64'],
             'mode=reduce would fold only this rank\'s rows')]:
        text = plantest.mpirun(2, head + words + tail, expect_ok=False)
        if 'plancustom0 cannot run sharded: ' + why not in text:
            raise Failure('sharded %s: not refused with %r:\n%s' % (words, why, text))


cases = [('softmax', softmax), ('parallel', parallel), ('histogram', histogram),
         ('prefix_sum', prefix_sum), ('halo', halo), ('halo_valid', halo_valid),
         ('errors', errors), ('check_mode', check_mode),
         ('failing_on_sim', failing_on_sim),
         ('softmax_cuda_on_sim', softmax_cuda_on_sim), ('zero_d', zero_d),
         ('sharded', sharded)]
run_cases(cases)
