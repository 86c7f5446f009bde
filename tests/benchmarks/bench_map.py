#!/usr/bin/python3
"""Benchmark for planmap and planreduce (issue 4), file to file, 1 GiB
float32 inputs, every contender in one run on the same files.

    tests/benchmarks/bench_map.py [build-dir] [--gib 1]

Prints seconds, GB/s of input read, and ratios. Run on a quiet machine;
nothing here is a pass/fail test."""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from benchcache import settle

try:
    import numexpr
except ImportError:
    numexpr = None

ap = argparse.ArgumentParser()
ap.add_argument('build', nargs='?', default='build')
ap.add_argument('--gib', type=float, default=1.0)
ap.add_argument('--repeat', type=int, default=2)
args = ap.parse_args()

build = os.path.abspath(args.build)
env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(build, 'plugins'))
here = os.path.dirname(os.path.abspath(__file__))
tmp = tempfile.mkdtemp(prefix='plan-bench-', dir=os.environ.get('TMPDIR', '/tmp'))
n = int(args.gib * (1 << 30)) // 4
CHUNK = 1 << 18

cloop = os.path.join(tmp, 'cloop_map')
subprocess.check_call(['cc', '-O3', '-march=native', '-o', cloop,
                       os.path.join(here, 'cloop_map.c'), '-lm'])
cpipe = os.path.join(tmp, 'cpipe_map')
subprocess.check_call(['cc', '-O3', '-march=native', '-pthread', '-o', cpipe,
                       os.path.join(here, 'cpipe_map.c')])
writebound = os.path.join(tmp, 'writebound')
subprocess.check_call(['cc', '-O2', '-o', writebound,
                       os.path.join(here, 'writebound.c')])

a_path, b_path, out = [os.path.join(tmp, f) for f in ('a.npy', 'b.npy', 'out.npy')]
rng = np.random.default_rng(0)
for p in (a_path, b_path):
    m = np.lib.format.open_memmap(p, mode='w+', dtype=np.float32, shape=(n,))
    for i in range(0, n, 1 << 24):
        m[i:i + (1 << 24)] = rng.standard_normal(min(1 << 24, n - i), dtype=np.float32)
    del m
settle([a_path, b_path])
nbytes = 4 * n


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


def plan_map(expr, io_mode='auto'):
    mode = 'io-mode=' + io_mode
    return lambda: gst('planmap', 'name=m', 'expr=' + expr, '!', 'planfilesink',
                       'location=' + out, 'planfilesrc', mode, 'location=' + a_path,
                       '!', 'm.sink_0', 'planfilesrc', mode, 'location=' + b_path,
                       '!', 'm.sink_1')


def io_only():
    gst('planfilesrc', 'location=' + a_path, '!', 'planfilesink', 'location=' + out)


def read_only():
    # io-mode=read: every byte is copied into the process. A mapped
    # planfilesrc ! fakesink never touches the bytes, so it bounds nothing.
    gst('planfilesrc', 'io-mode=read', 'location=' + a_path, '!', 'fakesink')


def open_npy(path):
    f = open(path, 'rb')
    np.lib.format.read_magic(f)
    np.lib.format.read_array_header_1_0(f)
    return f


def numpy_chunked(f):
    def run():
        fa, fb = open_npy(a_path), open_npy(b_path)
        with open(out, 'wb') as fo:
            while True:
                x = np.fromfile(fa, np.float32, CHUNK)
                if x.size == 0:
                    break
                y = np.fromfile(fb, np.float32, x.size)
                f(x, y).tofile(fo)
    return run


def numpy_tuned(kind):
    def run():
        fa, fb = open_npy(a_path), open_npy(b_path)
        x = np.empty(CHUNK, np.float32); y = np.empty(CHUNK, np.float32)
        o = np.empty(CHUNK, np.float32); t = np.empty(CHUNK, np.float32)
        with open(out, 'wb') as fo:
            while True:
                k = fa.readinto(x) // 4
                if k == 0:
                    break
                fb.readinto(y[:k])
                xs, ys, os_, ts = x[:k], y[:k], o[:k], t[:k]
                if kind == 'add':
                    np.add(xs, ys, out=os_)
                else:
                    np.multiply(xs, ys, out=os_); os_ *= 2
                    np.sin(xs, out=ts); os_ += ts
                fo.write(os_.data)
    return run


def numexpr_chunked(expr):
    def run():
        fa, fb = open_npy(a_path), open_npy(b_path)
        x = np.empty(CHUNK, np.float32); y = np.empty(CHUNK, np.float32)
        o = np.empty(CHUNK, np.float32)
        with open(out, 'wb') as fo:
            while True:
                k = fa.readinto(x) // 4
                if k == 0:
                    break
                fb.readinto(y[:k])
                numexpr.evaluate(expr, local_dict={'x': x[:k], 'y': y[:k]}, out=o[:k])
                fo.write(o[:k].data)
    return run


def numpy_sum_chunked():
    fa = open_npy(a_path)
    total = 0.0
    while True:
        x = np.fromfile(fa, np.float32, CHUNK)
        if x.size == 0:
            break
        total += float(x.sum())


def numpy_sum_whole():
    float(np.load(a_path).sum())


def cloop_run(kind):
    return lambda: subprocess.run([cloop, kind, a_path, b_path, out], check=True,
                                  stdout=subprocess.DEVNULL)


results = {}


def measure(name, fn):
    t = best(fn)
    results[name] = t
    print('%-40s %7.3f s  %6.2f GB/s of a' % (name, t, nbytes / t / 1e9), flush=True)


print('%d float32 elements (%.2f GiB) per input, best of %d' % (n, nbytes / 2**30, args.repeat))
measure('io bound: planfilesrc ! planfilesink', io_only)
measure('read only: planfilesrc io-mode=read ! fakesink', read_only)
measure('write bound: C write() of a cached buffer', lambda: subprocess.run(
    [writebound, str(nbytes), out], check=True))
for name, expr, f in (('x + y', 'x + y', lambda x, y: x + y),
                      ('2*x*y + sin(x)', '2*x*y + sin(x)', lambda x, y: 2 * x * y + np.sin(x))):
    kind = 'add' if name == 'x + y' else 'nonlinear'
    measure('planmap %s' % name, plan_map(expr))
    measure('planmap %s, io-mode=read' % name, plan_map(expr, 'read'))
    measure('numpy chunked %s' % name, numpy_chunked(f))
    measure('numpy tuned %s' % name, numpy_tuned(kind))
    if numexpr:
        measure('numexpr %s' % name, numexpr_chunked(expr.replace('sin', 'sin')))
    measure('C loop %s' % name, cloop_run(kind))
    if kind == 'add':
        measure('C two-thread pipeline x + y', lambda: subprocess.run(
            [cpipe, a_path, b_path, out], check=True))
measure('planreduce sum', lambda: gst('planfilesrc', 'location=' + a_path, '!',
                                      'planreduce', 'op=sum', '!', 'fakesink'))
measure('planreduce sum, io-mode=read',
        lambda: gst('planfilesrc', 'io-mode=read', 'location=' + a_path, '!',
                    'planreduce', 'op=sum', '!', 'fakesink'))
measure('numpy sum chunked', numpy_sum_chunked)
measure('numpy sum whole file', numpy_sum_whole)
measure('C loop sum', cloop_run('sum'))

r = results
print()
print('ratios (higher is better for planmap/planreduce):')
for name in ('x + y', '2*x*y + sin(x)'):
    p = r['planmap %s' % name]
    print('  planmap %-16s vs numpy chunked %.2fx, vs numpy tuned %.2fx%s, vs C loop %.2fx, of io bound %.2f'
          % (name, r['numpy chunked %s' % name] / p, r['numpy tuned %s' % name] / p,
             (', vs numexpr %.2fx' % (r['numexpr %s' % name] / p)) if numexpr else '',
             r['C loop %s' % name] / p, r['io bound: planfilesrc ! planfilesink'] / p))
for name in ('x + y', '2*x*y + sin(x)'):
    p = r['planmap %s, io-mode=read' % name]
    print('  planmap %-16s io-mode=read: vs numpy chunked %.2fx, vs numpy tuned %.2fx'
          % (name, r['numpy chunked %s' % name] / p, r['numpy tuned %s' % name] / p))
print('  C two-thread pipeline x + y (mapped inputs, 1 MiB slices, a writer '
      'thread): %.2fx numpy chunked, planmap at %.2f of it'
      % (r['numpy chunked x + y'] / r['C two-thread pipeline x + y'],
         r['C two-thread pipeline x + y'] / r['planmap x + y']))
print('  write bound: numpy chunked x + y / write bound %.2f: the most any job '
      'writing its result through the page cache can be ahead of numpy '
      'chunked x + y here'
      % (r['numpy chunked x + y'] / r['write bound: C write() of a cached buffer']))
p = r['planreduce sum, io-mode=read']
print('  planreduce sum io-mode=read: vs numpy chunked %.2fx' % (r['numpy sum chunked'] / p))
p = r['planreduce sum']
print('  planreduce sum vs numpy chunked %.2fx, vs numpy whole %.2fx, vs C loop %.2fx, of read only %.2f'
      % (r['numpy sum chunked'] / p, r['numpy sum whole file'] / p, r['C loop sum'] / p,
         r['read only: planfilesrc io-mode=read ! fakesink'] / p))
subprocess.run(['rm', '-rf', tmp])
