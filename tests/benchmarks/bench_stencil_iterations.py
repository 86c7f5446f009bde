#!/usr/bin/python3
"""Benchmark for planstencil iterations=N: 8 steps of a 2-D 5-point Jacobi
relaxation, u = 0.2*(c + w + e + s + n) with boundary=nearest, on a
16384 x 16384 float32 array (1 GiB) file to file, three ways:

  - one planstencil with iterations=8 (each chunk through all 8
    applications while it is in the cache), with planfilesrc's chunks of
    8 MiB (the default; computed in 2 MiB slices) and smaller chunks, to
    see what the size of the block that goes through the 8 steps does;
  - 8 planstencil elements in a row (each step a pass over the array);
  - numpy: load, 8 steps of slicing over np.pad(edge), save;

and the IO-only bound (planfilesrc ! planfilesink); then the same without
writing the output (into fakesink, numpy without np.save), where the
page cache's write-back, which a loaded machine makes erratic, does not
count. The pipelines are timed in-process by plan-launch (tools/), numpy
inside this interpreter, numpy already imported. The outputs are checked against each other: the same
bytes (iterations=8 and the 8 elements) and numpy's values.

    tests/benchmarks/bench_stencil_iterations.py [build-dir] [--scale 1.0]
        [--repeat 2] [--iterations 8]

Prints seconds and ratios; nothing here is a pass/fail test."""
import argparse
import os
import subprocess
import tempfile
import time

import numpy as np

from benchcache import settle

ap = argparse.ArgumentParser()
ap.add_argument('build', nargs='?', default='build')
ap.add_argument('--scale', type=float, default=1.0,
                help='fraction of 1 GiB (16384 x 16384 float32)')
ap.add_argument('--repeat', type=int, default=2)
ap.add_argument('--iterations', type=int, default=8)
args = ap.parse_args()

build = os.path.abspath(args.build)
env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(build, 'plugins'))
tmp = tempfile.mkdtemp(prefix='plan-bench-', dir=os.environ.get('TMPDIR', '/tmp'))
side = int(16384 * args.scale ** 0.5)
n_it = args.iterations
WINDOW = '_ n _; w c e; _ s _'
EXPR = '0.2*(c + w + e + s + n)'

src = os.path.join(tmp, 'u0.npy')
outs = {}
rng = np.random.default_rng(0)
m = np.lib.format.open_memmap(src, mode='w+', dtype=np.float32,
                              shape=(side, side))
for i in range(0, side, 1024):
    m[i:i + 1024] = rng.standard_normal((min(1024, side - i), side),
                                        dtype=np.float32)
del m
settle([src])

plan_launch = os.path.join(build, 'tools', 'plan-launch')


def out_path(name):
    return os.path.join(tmp, name + '.npy')


def job_time(name, words):
    """Best of --repeat in-process times of a pipeline, from plan-launch's
    'Execution ended after S s'."""
    times = []
    for _ in range(args.repeat):
        if os.path.exists(out_path(name)):
            os.unlink(out_path(name))
        text = subprocess.run([plan_launch] + list(words), env=env, check=True,
                              capture_output=True, text=True).stdout
        times.append(float(text.split('Execution ended after ')[1].split()[0]))
    return min(times)


def stencil(iterations):
    return ['planstencil', 'window=' + WINDOW, 'expr=' + EXPR,
            'boundary=nearest', 'iterations=%d' % iterations, '!']


def pipeline(name, middle, blocksize=None, to_file=True):
    words = ['planfilesrc', 'location=' + src]
    if blocksize:
        words.append('blocksize=%d' % blocksize)
    sink = ['planfilesink', 'location=' + out_path(name)] if to_file else \
        ['fakesink']
    return words + ['!'] + middle + sink


def numpy_steps(to_file=True):
    u = np.load(src)
    for _ in range(n_it):
        p = np.pad(u, 1, mode='edge')
        u = np.float32(0.2) * (p[1:-1, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] +
                               p[2:, 1:-1] + p[:-2, 1:-1])
    if to_file:
        np.save(out_path('numpy'), u)


def best(fn):
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


nbytes = 4 * side * side
results = {}


def report(name, t):
    results[name] = t
    print('%-60s %7.3f s  %6.2f GB/s in' % (name, t, nbytes / t / 1e9),
          flush=True)


print('%d x %d float32 (%.2f GiB), %d Jacobi steps, best of %d, %d cores' %
      (side, side, nbytes / 2**30, n_it, args.repeat, os.cpu_count()))
report('io bound: planfilesrc ! planfilesink',
       job_time('io', pipeline('io', [])))
report('planstencil iterations=%d (8 MiB chunks)' % n_it,
       job_time('it', pipeline('it', stencil(n_it))))
for kib in (2048, 512, 128):
    name = 'it%d' % kib
    report('planstencil iterations=%d (%d KiB chunks)' % (n_it, kib),
           job_time(name, pipeline(name, stencil(n_it), kib << 10)))
report('%d planstencil elements in a row' % n_it,
       job_time('chain', pipeline('chain', stencil(1) * n_it)))
report('numpy slicing, %d steps' % n_it, best(numpy_steps))
print('\nwithout writing the output:')
report('planfilesrc ! fakesink', job_time('x', pipeline('x', [],
                                                        to_file=False)))
report('planstencil iterations=%d ! fakesink' % n_it,
       job_time('x', pipeline('x', stencil(n_it), to_file=False)))
report('planstencil iterations=%d ! fakesink (512 KiB chunks)' % n_it,
       job_time('x', pipeline('x', stencil(n_it), 512 << 10,
                              to_file=False)))
report('%d planstencil elements in a row ! fakesink' % n_it,
       job_time('x', pipeline('x', stencil(1) * n_it, to_file=False)))
report('numpy slicing, %d steps, no np.save' % n_it,
       best(lambda: numpy_steps(False)))

a = np.load(out_path('it'), mmap_mode='r')
b = np.load(out_path('chain'), mmap_mode='r')
c = np.load(out_path('numpy'), mmap_mode='r')
same = all(np.array_equal(np.load(out_path(n), mmap_mode='r'), b)
           for n in ('it', 'it2048', 'it512', 'it128'))
print('\niterations=%d and %d elements in a row: %s; largest difference '
      'from numpy %.3g' % (n_it, n_it, 'the same bytes' if same else
                           'DIFFERENT', float(np.max(np.abs(a - c)))))
r = results
for label, it, chain, npy in (
        ('file to file', 'planstencil iterations=%d (8 MiB chunks)',
         '%d planstencil elements in a row', 'numpy slicing, %d steps'),
        ('without writing', 'planstencil iterations=%d ! fakesink',
         '%d planstencil elements in a row ! fakesink',
         'numpy slicing, %d steps, no np.save')):
    t = r[it % n_it]
    print('%s: iterations=%d %.2fx the %d elements in a row, %.2fx numpy' %
          (label, n_it, r[chain % n_it] / t, n_it, r[npy % n_it] / t))
subprocess.run(['rm', '-rf', tmp])
