#!/usr/bin/python3
"""Benchmark for planstencil (issue 5), file to file, every contender in one
run on the same files:

  1-D: 3-point stencil 0.25*x + 0.5*y + 0.25*z on 256 Mi float32 (1 GiB)
  2-D: 5-point Laplacian n + s + e + w - 4*c on 8192 x 8192 float32

both with boundary=nearest, against numpy slicing and scipy.ndimage.correlate
doing the same job from file to file, a plain C loop, and the IO-only bound
(planfilesrc ! planfilesink).

The numpy and scipy jobs are timed inside this interpreter, numpy and scipy
already imported. planstencil is timed two ways: as a gst-launch-1.0
command (its start-up included) and, like the peers, inside a running
process: plan-launch (tools/) prints the time from setting the pipeline to
PLAYING to having set it back to NULL, files opened, written and renamed
into place. The in-process ratios compare like with like.

    tests/benchmarks/bench_stencil.py [build-dir] [--scale 1.0] [--repeat 2]

Prints seconds and ratios; nothing here is a pass/fail test. Targets: 1-D at
least 2x the faster peer and 0.7 of the IO bound; 2-D at least 4x the faster
peer. Run on a quiet machine."""
import argparse
import os
import subprocess
import tempfile
import time

import numpy as np
from scipy import ndimage

from benchcache import settle

ap = argparse.ArgumentParser()
ap.add_argument('build', nargs='?', default='build')
ap.add_argument('--scale', type=float, default=1.0,
                help='fraction of the issue\'s sizes (1.0 = 256 Mi and 8192^2)')
ap.add_argument('--repeat', type=int, default=2)
args = ap.parse_args()

build = os.path.abspath(args.build)
env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(build, 'plugins'))
here = os.path.dirname(os.path.abspath(__file__))
tmp = tempfile.mkdtemp(prefix='plan-bench-', dir=os.environ.get('TMPDIR', '/tmp'))
n1 = int((256 << 20) * args.scale)
side = int(8192 * args.scale ** 0.5)

cloop = os.path.join(tmp, 'cloop_stencil')
subprocess.check_call(['cc', '-O3', '-march=native', '-o', cloop,
                       os.path.join(here, 'cloop_stencil.c')])

a1, a2, out = [os.path.join(tmp, f) for f in ('a1.npy', 'a2.npy', 'out.npy')]
rng = np.random.default_rng(0)
for p, shape in ((a1, (n1,)), (a2, (side, side))):
    m = np.lib.format.open_memmap(p, mode='w+', dtype=np.float32, shape=shape)
    flat = m.reshape(-1)
    for i in range(0, flat.size, 1 << 24):
        flat[i:i + (1 << 24)] = rng.standard_normal(min(1 << 24, flat.size - i),
                                                    dtype=np.float32)
    del m, flat
settle([a1, a2])


def best(fn):
    times = []
    for _ in range(args.repeat):
        if os.path.exists(out):
            os.unlink(out)
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def gst(*words):
    subprocess.run(['gst-launch-1.0', '-q'] + list(words), env=env, check=True,
                   stdout=subprocess.DEVNULL)


plan_launch = os.path.join(build, 'tools', 'plan-launch')


def job_time(words):
    """Best of --repeat in-process times of a pipeline, from plan-launch's
    'Execution ended after S s'."""
    times = []
    for _ in range(args.repeat):
        if os.path.exists(out):
            os.unlink(out)
        text = subprocess.run([plan_launch] + list(words), env=env, check=True,
                              capture_output=True, text=True).stdout
        times.append(float(text.split('Execution ended after ')[1].split()[0]))
    return min(times)


def stencil_words(path, window, expr):
    return ['planfilesrc', 'location=' + path, '!', 'planstencil',
            'window=' + window, 'expr=' + expr, 'boundary=nearest', '!',
            'planfilesink', 'location=' + out]


def io_words(path):
    return ['planfilesrc', 'location=' + path, '!', 'planfilesink',
            'location=' + out]


def numpy_1d():
    a = np.load(a1)
    o = np.empty_like(a)
    o[1:-1] = 0.25 * a[:-2] + 0.5 * a[1:-1] + 0.25 * a[2:]
    o[0] = 0.75 * a[0] + 0.25 * a[1]
    o[-1] = 0.25 * a[-2] + 0.75 * a[-1]
    np.save(out, o)


def numpy_2d():
    a = np.load(a2)
    p = np.pad(a, 1, mode='edge')
    o = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, 2:] + p[1:-1, :-2] - 4 * a
    np.save(out, o)


def scipy_1d():
    np.save(out, ndimage.correlate(np.load(a1), np.array([0.25, 0.5, 0.25],
                                                          np.float32),
                                   mode='nearest'))


def scipy_2d():
    w = np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]], np.float32)
    np.save(out, ndimage.correlate(np.load(a2), w, mode='nearest'))


results = {}


def measure(name, fn, nbytes, t=None):
    t = best(fn) if t is None else t
    results[name] = t
    print('%-56s %7.3f s  %6.2f GB/s in' % (name, t, nbytes / t / 1e9), flush=True)


def measure_plan(name, words, nbytes):
    """A pipeline as a gst-launch-1.0 command, and in-process."""
    measure(name, lambda: gst(*words), nbytes)
    measure(name + ' (in-process)', None, nbytes, job_time(words))


b1, b2 = 4 * n1, 4 * side * side
print('1-D: %d float32 (%.2f GiB); 2-D: %d x %d float32 (%.2f GiB); best of %d; '
      '%d cores' % (n1, b1 / 2**30, side, side, b2 / 2**30, args.repeat,
                    os.cpu_count()))
measure_plan('1-D io bound: planfilesrc ! planfilesink', io_words(a1), b1)
measure_plan('1-D planstencil', stencil_words(a1, 'x y z',
                                              '0.25*x + 0.5*y + 0.25*z'), b1)
measure('1-D numpy slicing', numpy_1d, b1)
measure('1-D scipy.ndimage.correlate', scipy_1d, b1)
measure('1-D C loop', lambda: subprocess.run([cloop, '1d', str(n1), a1, out],
                                             check=True), b1)
measure_plan('2-D io bound: planfilesrc ! planfilesink', io_words(a2), b2)
measure_plan('2-D planstencil', stencil_words(a2, '_ n _; w c e; _ s _',
                                              'n + s + e + w - 4*c'), b2)
measure('2-D numpy slicing', numpy_2d, b2)
measure('2-D scipy.ndimage.correlate', scipy_2d, b2)
measure('2-D C loop', lambda: subprocess.run([cloop, '2d', str(side), str(side),
                                              a2, out], check=True), b2)

# The peers above run inside this interpreter, numpy and scipy already
# imported; run as a command, as gst-launch-1.0 is, they also pay for this.
measure('python3 -c "import numpy, scipy.ndimage" (startup)',
        lambda: subprocess.run(['/usr/bin/python3', '-c',
                                'import numpy, scipy.ndimage'], check=True), 1)

r = results
start = r['python3 -c "import numpy, scipy.ndimage" (startup)']
print()
for d, target in (('1-D', 2), ('2-D', 4)):
    p = r['%s planstencil' % d]
    pj = r['%s planstencil (in-process)' % d]
    io = '%s io bound: planfilesrc ! planfilesink' % d
    peer = min(r['%s numpy slicing' % d], r['%s scipy.ndimage.correlate' % d])
    print('%s planstencil: %.2fx the faster peer, both timed in-process '
          '(target %dx); as a command, %.2fx (%.2fx counting the peer\'s '
          'interpreter start-up); %.2fx the C loop; %.2f of the io bound '
          '(%.2f in-process)' % (d, peer / pj, target, peer / p,
                                 (peer + start) / p, r['%s C loop' % d] / p,
                                 r[io] / p, r[io + ' (in-process)'] / pj))
subprocess.run(['rm', '-rf', tmp])
