#!/usr/bin/python3
"""Benchmark for array constants in planmap: `(x - mean) / std` over an
(N, 256) float32 .npy file of 1 GiB, mean and std of shape (256,) given
as constants (planmap constants=...), file to file, against numpy doing
the same with broadcasting chunk by chunk, every contender in one run on
the same files.

    tests/benchmarks/bench_normalize.py [build-dir] [--gib 1] [--repeat 3]

Prints seconds, GB/s of input and the ratios; checks that planmap's output
equals numpy's. Run on a quiet machine; nothing here is a pass/fail test."""
import argparse
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
args = ap.parse_args()

build = os.path.abspath(args.build)
env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(build, 'plugins'))
tmp = tempfile.mkdtemp(prefix='plan-bench-', dir=os.environ.get('TMPDIR', '/tmp'))
COLS = 256
rows = int(args.gib * (1 << 30)) // (4 * COLS)
CHUNK_ROWS = 1024                  # 1 MiB per chunk, as bench_map.py

x_path, out = os.path.join(tmp, 'x.npy'), os.path.join(tmp, 'out.npy')
mean_path, std_path = os.path.join(tmp, 'mean.npy'), os.path.join(tmp, 'std.npy')
rng = np.random.default_rng(0)
m = np.lib.format.open_memmap(x_path, mode='w+', dtype=np.float32,
                              shape=(rows, COLS))
for i in range(0, rows, 1 << 14):
    k = min(1 << 14, rows - i)
    m[i:i + k] = rng.standard_normal((k, COLS), dtype=np.float32) * 3 + 10
del m
mean = (rng.standard_normal(COLS) + 10).astype(np.float32)
std = (rng.random(COLS) * 2 + 2).astype(np.float32)
np.save(mean_path, mean)
np.save(std_path, std)
settle([x_path])
nbytes = 4 * rows * COLS


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


def planmap():
    gst('planfilesrc', 'location=' + x_path, '!', 'planmap',
        'expr=(x - mean) / std',
        'constants=mean=%s,std=%s' % (mean_path, std_path), '!',
        'planfilesink', 'location=' + out)


def io_only():
    gst('planfilesrc', 'location=' + x_path, '!', 'planfilesink',
        'location=' + out)


def open_npy(path):
    f = open(path, 'rb')
    np.lib.format.read_magic(f)
    np.lib.format.read_array_header_1_0(f)
    return f


def numpy_chunked():
    fx = open_npy(x_path)
    with open(out, 'wb') as fo:
        while True:
            x = np.fromfile(fx, np.float32, CHUNK_ROWS * COLS)
            if x.size == 0:
                break
            ((x.reshape(-1, COLS) - mean) / std).tofile(fo)


def numpy_tuned():
    fx = open_npy(x_path)
    x = np.empty((CHUNK_ROWS, COLS), np.float32)
    o = np.empty((CHUNK_ROWS, COLS), np.float32)
    with open(out, 'wb') as fo:
        while True:
            k = fx.readinto(x) // (4 * COLS)
            if k == 0:
                break
            np.subtract(x[:k], mean, out=o[:k])
            np.divide(o[:k], std, out=o[:k])
            fo.write(o[:k].data)


results = {}


def measure(name, fn):
    t = best(fn)
    results[name] = t
    print('%-44s %7.3f s  %6.2f GB/s' % (name, t, nbytes / t / 1e9), flush=True)


print('(%d, %d) float32 (%.2f GiB), constants of shape (%d,), best of %d; '
      'load average %s' % (rows, COLS, nbytes / 2**30, COLS, args.repeat,
                           ' '.join('%.2f' % v for v in os.getloadavg())))
measure('io bound: planfilesrc ! planfilesink', io_only)
measure('planmap (x - mean) / std, constants', planmap)
got = np.load(out, mmap_mode='r')
for lo in (0, rows // 2, rows - 3):
    want = (np.asarray(np.load(x_path, mmap_mode='r')[lo:lo + 3]) - mean) / std
    if not np.array_equal(got[lo:lo + 3], want):
        raise SystemExit('planmap differs from numpy at rows %d..%d' %
                         (lo, lo + 3))
del got
measure('numpy chunked (x - mean) / std', numpy_chunked)
measure('numpy tuned (readinto, out=)', numpy_tuned)
print('planmap: %.2f x numpy chunked, %.2f x numpy tuned, %.2f of the io '
      'bound' % (results['numpy chunked (x - mean) / std'] /
                 results['planmap (x - mean) / std, constants'],
                 results['numpy tuned (readinto, out=)'] /
                 results['planmap (x - mean) / std, constants'],
                 results['io bound: planfilesrc ! planfilesink'] /
                 results['planmap (x - mean) / std, constants']))
for p in (x_path, out, mean_path, std_path):
    if os.path.exists(p):
        os.unlink(p)
os.rmdir(tmp)
