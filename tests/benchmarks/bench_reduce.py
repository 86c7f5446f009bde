#!/usr/bin/python3
"""Benchmark for planreduce (issue 4, item 7): the sum of a float32 file
(1 GiB by default) by planreduce, against numpy chunked (fromfile and sum
per chunk), numpy on the whole file, and planfilesrc ! fakesink reading the
file alone. Every contender reads the same file from the page cache (one
untimed read first); each is timed as the best of --repeat runs.

    tests/benchmarks/bench_reduce.py [build-dir] [--gib 1] [--repeat 3]

Targets: planreduce sum at least 1.5 x numpy chunked, and at least 0.9 of
reading alone (time of reading alone / time of planreduce). Prints the
figures; not a pass/fail test, and not run by meson test."""
import argparse
import math
import os
import subprocess
import tempfile
import time

import numpy as np

from benchcache import settle

ap = argparse.ArgumentParser()
ap.add_argument('build', nargs='?', default='build')
ap.add_argument('--gib', type=float, default=1.0)
ap.add_argument('--repeat', type=int, default=3)
ap.add_argument('--chunk', type=int, default=1 << 18,
                help='elements per numpy chunk (default 256 Ki, 1 MiB)')
args = ap.parse_args()

build = os.path.abspath(args.build)
env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(build, 'plugins'))
tmp = tempfile.mkdtemp(prefix='plan-bench-', dir=os.environ.get('TMPDIR', '/tmp'))
path = os.path.join(tmp, 'a.npy')
n = int(args.gib * (1 << 30)) // 4
nbytes = 4 * n

rng = np.random.default_rng(0)
m = np.lib.format.open_memmap(path, mode='w+', dtype=np.float32, shape=(n,))
for i in range(0, n, 1 << 24):
    m[i:i + (1 << 24)] = rng.standard_normal(min(1 << 24, n - i), dtype=np.float32)
del m
settle([path])


def gst(*words):
    p = subprocess.run(['gst-launch-1.0', '-m'] + list(words), env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, check=True)
    return p.stdout


def open_npy():
    f = open(path, 'rb')
    np.lib.format.read_magic(f)
    np.lib.format.read_array_header_1_0(f)
    return f


def read_only():
    # io-mode=read copies every byte into the process; mapped, planfilesrc !
    # fakesink would never touch them.
    gst('planfilesrc', 'io-mode=read', 'location=' + path, '!', 'fakesink')


def plan_sum(threads):
    def run():
        out = gst('planfilesrc', 'location=' + path, '!', 'planreduce',
                  'op=sum', 'n-threads=%d' % threads, '!', 'fakesink')
        run.value = float(out.split('value=(double)')[1].split(',')[0])
    return run


def numpy_chunked():
    f = open_npy()
    total = 0.0
    while True:
        x = np.fromfile(f, np.float32, args.chunk)
        if x.size == 0:
            break
        total += float(x.sum())
    numpy_chunked.value = total


def numpy_whole():
    numpy_whole.value = float(np.load(path).sum())


def best(fn):
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


read_only()  # into the page cache
results = {}
print('%d float32 elements (%.2f GiB), best of %d, %d cores' %
      (n, nbytes / 2**30, args.repeat, os.cpu_count()))
for name, fn in (('read only: planfilesrc io-mode=read ! fakesink', read_only),
                 ('planreduce sum (n-threads=0)', plan_sum(0)),
                 ('planreduce sum (n-threads=1)', plan_sum(1)),
                 ('numpy sum chunked', numpy_chunked),
                 ('numpy sum whole file', numpy_whole)):
    t = best(fn)
    results[name] = t
    print('%-38s %7.3f s  %6.2f GB/s' % (name, t, nbytes / t / 1e9), flush=True)

exact = math.fsum(np.load(path, mmap_mode='r').astype(np.float64))
p = results['planreduce sum (n-threads=0)']
print()
print('planreduce sum vs numpy chunked      %.2fx (target >= 1.5)'
      % (results['numpy sum chunked'] / p))
print('planreduce sum vs numpy whole file   %.2fx'
      % (results['numpy sum whole file'] / p))
print('planreduce sum, fraction of read only %.2f (target >= 0.9)'
      % (results['read only: planfilesrc io-mode=read ! fakesink'] / p))
ours = plan_sum(0)
ours()
print('error against math.fsum: planreduce %.4g, numpy chunked %.4g, '
      'numpy whole file %.4g' % (abs(ours.value - exact),
                                 abs(numpy_chunked.value - exact),
                                 abs(numpy_whole.value - exact)))
subprocess.run(['rm', '-rf', tmp])
