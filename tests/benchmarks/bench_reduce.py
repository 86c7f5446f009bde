#!/usr/bin/python3
"""Benchmark for planreduce: the sum and the standard deviation of a float32
file (1 GiB by default) by planreduce, against numpy chunked (fromfile and
a reduction per chunk), numpy on the whole file, and planfilesrc ! fakesink
reading the file alone. Every contender reads the same file from the page
cache (one untimed read first); each is timed as the best of --repeat runs.

    tests/benchmarks/bench_reduce.py [build-dir] [--gib 1] [--repeat 3]
        [--ops sum,std]

Targets: planreduce sum at least 1.5 x numpy chunked, and at least 0.9 of
reading alone (time of reading alone / time of planreduce); planreduce std
at least 2 x numpy chunked (per-chunk moments merged with Chan's formula,
the correct way to stream a variance), with an error against an exact
reference no larger than numpy's whole-array np.std. The data are
3 + N(0, 1), so that the mean matters. Prints the figures; not a pass/fail
test, and not run by meson test."""
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
ap.add_argument('--ops', default='sum,std',
                help='which reductions to time: sum, std or both')
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
    m[i:i + (1 << 24)] = 3 + rng.standard_normal(min(1 << 24, n - i),
                                                  dtype=np.float32)
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


def plan_op(op, threads):
    def run():
        out = gst('planfilesrc', 'location=' + path, '!', 'planreduce',
                  'op=' + op, 'n-threads=%d' % threads, '!', 'fakesink')
        run.value = float(out.split('value=(double)')[1].split(',')[0])
    return run


def plan_sum(threads):
    return plan_op('sum', threads)


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


def chan(parts):
    """Merges per-chunk (count, mean, M2) moments pairwise (Chan, Golub and
    LeVeque), in float64; returns the population standard deviation."""
    n, mean, m2 = 0, 0.0, 0.0
    for nb, mb, m2b in parts:
        tot = n + nb
        delta = mb - mean
        mean += delta * nb / tot
        m2 += m2b + delta * delta * n * nb / tot
        n = tot
    return math.sqrt(m2 / n)


def numpy_std_chunked_f64():
    """Per chunk: mean and M2 accumulated in float64 (np.mean and np.var
    with dtype=float64), merged with Chan's formula."""
    f = open_npy()
    parts = []
    while True:
        x = np.fromfile(f, np.float32, args.chunk)
        if x.size == 0:
            break
        parts.append((x.size, float(x.mean(dtype=np.float64)),
                      float(x.var(dtype=np.float64)) * x.size))
    numpy_std_chunked_f64.value = chan(parts)


def numpy_std_chunked_f32():
    """Per chunk, in float32 as numpy computes a float32 variance: the mean,
    the deviations from it and their dot product, merged with Chan's
    formula in float64."""
    f = open_npy()
    parts = []
    while True:
        x = np.fromfile(f, np.float32, args.chunk)
        if x.size == 0:
            break
        m = x.mean()
        d = x - m
        parts.append((x.size, float(m), float(np.dot(d, d))))
    numpy_std_chunked_f32.value = chan(parts)


def numpy_std_whole():
    numpy_std_whole.value = float(np.load(path).std())


def exact_std():
    """The reference: a two-pass standard deviation in x87 long double
    (64-bit mantissa) of the float32 values, chunk by chunk; its relative
    error (about 1e-18) is far below float32's and float64's."""
    f = open_npy()
    total = np.longdouble(0)
    while True:
        x = np.fromfile(f, np.float32, 1 << 22)
        if x.size == 0:
            break
        total += x.astype(np.longdouble).sum()
    mean = total / n
    f = open_npy()
    m2 = np.longdouble(0)
    while True:
        x = np.fromfile(f, np.float32, 1 << 22)
        if x.size == 0:
            break
        d = x.astype(np.longdouble) - mean
        m2 += np.dot(d, d)
    return np.sqrt(m2 / n)


def best(fn):
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


read_only()  # into the page cache
ops = args.ops.split(',')
results = {}
print('%d float32 elements (%.2f GiB), best of %d, %d cores' %
      (n, nbytes / 2**30, args.repeat, os.cpu_count()))
contenders = [('read only: planfilesrc io-mode=read ! fakesink', read_only)]
if 'sum' in ops:
    contenders += [('planreduce sum (n-threads=0)', plan_sum(0)),
                   ('planreduce sum (n-threads=1)', plan_sum(1)),
                   ('numpy sum chunked', numpy_chunked),
                   ('numpy sum whole file', numpy_whole)]
if 'std' in ops:
    contenders += [('planreduce std (n-threads=0)', plan_op('std', 0)),
                   ('planreduce std (n-threads=1)', plan_op('std', 1)),
                   ('numpy std chunked, float64 moments',
                    numpy_std_chunked_f64),
                   ('numpy std chunked, float32 moments',
                    numpy_std_chunked_f32),
                   ('numpy std whole file', numpy_std_whole)]
for name, fn in contenders:
    t = best(fn)
    results[name] = t
    print('%-38s %7.3f s  %6.2f GB/s' % (name, t, nbytes / t / 1e9), flush=True)
read = results['read only: planfilesrc io-mode=read ! fakesink']

if 'sum' in ops:
    exact = math.fsum(np.load(path, mmap_mode='r').astype(np.float64))
    p = results['planreduce sum (n-threads=0)']
    print()
    print('planreduce sum vs numpy chunked      %.2fx (target >= 1.5)'
          % (results['numpy sum chunked'] / p))
    print('planreduce sum vs numpy whole file   %.2fx'
          % (results['numpy sum whole file'] / p))
    print('planreduce sum, fraction of read only %.2f (target >= 0.9)'
          % (read / p))
    ours = plan_sum(0)
    ours()
    print('error against math.fsum: planreduce %.4g, numpy chunked %.4g, '
          'numpy whole file %.4g' % (abs(ours.value - exact),
                                     abs(numpy_chunked.value - exact),
                                     abs(numpy_whole.value - exact)))

if 'std' in ops:
    ref = exact_std()
    p = results['planreduce std (n-threads=0)']
    fast = min(results['numpy std chunked, float64 moments'],
               results['numpy std chunked, float32 moments'])
    print()
    print('planreduce std vs numpy chunked (the faster of the two) %.2fx '
          '(target >= 2)' % (fast / p))
    print('planreduce std vs numpy chunked, float64 moments        %.2fx'
          % (results['numpy std chunked, float64 moments'] / p))
    print('planreduce std vs numpy whole file                      %.2fx'
          % (results['numpy std whole file'] / p))
    print('planreduce std, fraction of read only                   %.2f'
          % (read / p))
    ours = plan_op('std', 0)
    ours()

    def rel(v):
        return float(abs(np.longdouble(v) - ref) / ref)
    print('std %.10g; relative error against the long double reference: '
          'planreduce %.3g, numpy chunked float64 %.3g, numpy chunked '
          'float32 %.3g, numpy whole file %.3g (float32 spacing there: '
          '%.3g)' % (float(ref), rel(ours.value),
                     rel(numpy_std_chunked_f64.value),
                     rel(numpy_std_chunked_f32.value),
                     rel(numpy_std_whole.value),
                     float(np.spacing(np.float32(ref))) / float(ref)))
subprocess.run(['rm', '-rf', tmp])
