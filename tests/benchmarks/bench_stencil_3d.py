#!/usr/bin/python3
"""Benchmark of planstencil on a volume: the 7-point 3-D Laplacian
b + f + n + s + e + w - 6*c over a (z, y, x) float32 volume of 1 GiB
(1024 x 512 x 512), boundary=nearest, file to file, against numpy slicing
of the padded volume, scipy.ndimage.correlate with the 3 x 3 x 3 kernel
and scipy.ndimage.laplace (the same sum, axis by axis), each doing the
same job from file to file, and the IO-only bound (planfilesrc !
planfilesink).

numpy and scipy are timed inside this interpreter, already imported, the
whole volume in memory (they need it: several times its size); planstencil
streams it plane by plane, as a gst-launch-1.0 command and in-process
(plan-launch's time from PLAYING to NULL, files opened, written and
renamed into place).

    tests/benchmarks/bench_stencil_3d.py [build-dir] [--scale 1.0] [--repeat 2]

--scale shrinks the number of planes (1.0 = 1024 planes of 512 x 512).
Prints seconds and ratios; nothing here is a pass/fail test. Run on a
quiet machine."""
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
                help='fraction of the 1024 planes of 512 x 512 float32')
ap.add_argument('--repeat', type=int, default=2)
args = ap.parse_args()

build = os.path.abspath(args.build)
env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(build, 'plugins'))
tmp = tempfile.mkdtemp(prefix='plan-bench-', dir=os.environ.get('TMPDIR', '/tmp'))
shape = (max(3, int(1024 * args.scale)), 512, 512)
src, out = os.path.join(tmp, 'vol.npy'), os.path.join(tmp, 'out.npy')

rng = np.random.default_rng(0)
m = np.lib.format.open_memmap(src, mode='w+', dtype=np.float32, shape=shape)
for z in range(0, shape[0], 16):
    m[z:z + 16] = rng.standard_normal((min(16, shape[0] - z),) + shape[1:],
                                      dtype=np.float32)
del m
settle([src])

WINDOW = '_ _ _; _ b _; _ _ _ | _ n _; w c e; _ s _ | _ _ _; _ f _; _ _ _'
EXPR = 'b + f + n + s + e + w - 6*c'


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
    times = []
    for _ in range(args.repeat):
        if os.path.exists(out):
            os.unlink(out)
        text = subprocess.run([plan_launch] + list(words), env=env, check=True,
                              capture_output=True, text=True).stdout
        times.append(float(text.split('Execution ended after ')[1].split()[0]))
    return min(times)


def numpy_slicing():
    a = np.load(src)
    p = np.pad(a, 1, mode='edge')
    o = (p[:-2, 1:-1, 1:-1] + p[2:, 1:-1, 1:-1] + p[1:-1, :-2, 1:-1] +
         p[1:-1, 2:, 1:-1] + p[1:-1, 1:-1, 2:] + p[1:-1, 1:-1, :-2] - 6 * a)
    np.save(out, o)


KERNEL = np.zeros((3, 3, 3), np.float32)
KERNEL[1, 1, 1] = -6
for i in ((0, 1, 1), (2, 1, 1), (1, 0, 1), (1, 2, 1), (1, 1, 0), (1, 1, 2)):
    KERNEL[i] = 1


def scipy_correlate():
    np.save(out, ndimage.correlate(np.load(src), KERNEL, mode='nearest'))


def scipy_laplace():
    np.save(out, ndimage.laplace(np.load(src), mode='nearest'))


results = {}
nbytes = 4 * shape[0] * shape[1] * shape[2]


def measure(name, fn, t=None):
    t = best(fn) if t is None else t
    results[name] = t
    print('%-48s %7.3f s  %6.2f GB/s in' % (name, t, nbytes / t / 1e9),
          flush=True)


def measure_plan(name, words):
    measure(name, lambda: gst(*words))
    measure(name + ' (in-process)', None, job_time(words))


print('7-point Laplacian over %s float32 (%.2f GiB), boundary=nearest; best '
      'of %d; %d cores' % (shape, nbytes / 2**30, args.repeat,
                           os.cpu_count()))
measure_plan('io bound: planfilesrc ! planfilesink',
             ['planfilesrc', 'location=' + src, '!', 'planfilesink',
              'location=' + out])
measure_plan('planstencil', ['planfilesrc', 'location=' + src, '!',
                             'planstencil', 'window=' + WINDOW, 'expr=' + EXPR,
                             'boundary=nearest', '!', 'planfilesink',
                             'location=' + out])
measure('numpy slicing', numpy_slicing)
measure('scipy.ndimage.correlate (3x3x3)', scipy_correlate)
measure('scipy.ndimage.laplace', scipy_laplace)

r = results
peer = min(r['numpy slicing'], r['scipy.ndimage.correlate (3x3x3)'],
           r['scipy.ndimage.laplace'])
print()
print('planstencil: %.2fx the fastest peer, both in-process (%.2fx as a '
      'command); numpy %.2fx, correlate %.2fx, laplace %.2fx; %.2f of the '
      'io bound (%.2f in-process)' % (
          peer / r['planstencil (in-process)'], peer / r['planstencil'],
          r['numpy slicing'] / r['planstencil (in-process)'],
          r['scipy.ndimage.correlate (3x3x3)'] / r['planstencil (in-process)'],
          r['scipy.ndimage.laplace'] / r['planstencil (in-process)'],
          r['io bound: planfilesrc ! planfilesink'] / r['planstencil'],
          r['io bound: planfilesrc ! planfilesink (in-process)'] /
          r['planstencil (in-process)']))
subprocess.run(['rm', '-rf', tmp])
