#!/usr/bin/python3
"""Benchmark for planreduce axis=0 (one value per column): sum, prod and
var of a float32 (N, C) file (512 MiB by default) for rows of 8 and of 256
columns, by planreduce against numpy on the whole file (a memory map,
`a.sum(axis=0)` etc.) and numpy chunked (1 MiB chunks read with fromfile,
each chunk's per-column sums added; var from per-chunk moments merged
with Chan's formula), and PlanReducer in process on the same values in
memory (columns_inproc, which leaves out reading the file and where the
heap puts the accumulators, on which gst-launch-1.0 runs vary by up to
1.7x with rows of 256). With --other BUILD the same pipelines (and
columns_inproc, when that build has it) also run on a second build, side
by side (to compare two versions). Every
contender reads the same file from the page cache; each is timed as the
best of --repeat runs, the contenders interleaved.

    tests/benchmarks/bench_columns.py [build-dir] [--mib 512] [--repeat 3]
        [--other BUILD]

Prints the figures; not a pass/fail test, and not run by meson test."""
import argparse
import os
import re
import subprocess
import tempfile
import time

import numpy as np

from benchcache import settle

ap = argparse.ArgumentParser()
ap.add_argument('build', nargs='?', default='build')
ap.add_argument('--mib', type=int, default=512)
ap.add_argument('--repeat', type=int, default=3)
ap.add_argument('--other', help='a second build to time side by side')
args = ap.parse_args()

tmp = tempfile.mkdtemp(prefix='plan-bench-', dir=os.environ.get('TMPDIR', '/tmp'))
OPS = ('sum', 'prod', 'var')


def make(cols):
    path = os.path.join(tmp, 'a%d.npy' % cols)
    n = (args.mib << 20) // 4 // cols
    rng = np.random.default_rng(cols)
    m = np.lib.format.open_memmap(path, mode='w+', dtype=np.float32,
                                  shape=(n, cols))
    step = max(1, (1 << 22) // cols)
    for i in range(0, n, step):
        k = min(step, n - i)
        # Near 1, so that products stay finite.
        m[i:i + k] = 1 + 1e-6 * rng.standard_normal((k, cols), dtype=np.float32)
    del m
    return path


def planreduce(build, path, op):
    env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(os.path.abspath(build),
                                                         'plugins'))
    t = time.perf_counter()
    p = subprocess.run(['gst-launch-1.0', '-q', 'planfilesrc', 'location=%s' % path,
                        '!', 'planreduce', 'op=%s' % op, 'axis=0', '!', 'fakesink'],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    t = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit('planreduce %s failed: %s' % (op, p.stdout))
    return t


def inproc(build, cols, op):
    exe = os.path.join(os.path.abspath(build), 'tests', 'benchmarks',
                       'columns_inproc')
    if not os.path.exists(exe):
        return None
    p = subprocess.run([exe, str(cols), op, str(args.mib), '1'],
                       stdout=subprocess.PIPE, text=True, check=True)
    return float(p.stdout)


def numpy_whole(path, op):
    t = time.perf_counter()
    a = np.load(path, mmap_mode='r')
    getattr(a, op)(axis=0)
    return time.perf_counter() - t


def numpy_chunked(path, op):
    t = time.perf_counter()
    a = np.load(path, mmap_mode='r')
    cols = a.shape[1]
    offset = a.offset
    n = a.shape[0]
    del a
    step = max(1, (1 << 18) // cols)
    acc = None
    count = 0
    with open(path, 'rb') as f:
        f.seek(offset)
        for i in range(0, n, step):
            c = np.fromfile(f, dtype=np.float32, count=min(step, n - i) * cols)
            c = c.reshape(-1, cols)
            if op == 'sum':
                s = c.sum(axis=0, dtype=np.float64)
                acc = s if acc is None else acc + s
            elif op == 'prod':
                s = c.prod(axis=0, dtype=np.float64)
                acc = s if acc is None else acc * s
            else:
                k = len(c)
                mean = c.mean(axis=0, dtype=np.float64)
                m2 = ((c - mean) ** 2).sum(axis=0)
                if acc is None:
                    acc = (mean, m2)
                else:
                    m0, q0 = acc
                    d = mean - m0
                    tot = count + k
                    acc = (m0 + d * k / tot, q0 + m2 + d * d * count * k / tot)
                count += k
    return time.perf_counter() - t


for cols in (8, 256):
    path = make(cols)
    settle([path])
    print('(%d, %d) float32, %d MiB, best of %d' % ((args.mib << 20) // 4 // cols,
                                                   cols, args.mib, args.repeat))
    for op in OPS:
        contenders = [('planreduce', lambda: planreduce(args.build, path, op))]
        if args.other:
            contenders.append(('planreduce (%s)' % args.other,
                               lambda: planreduce(args.other, path, op)))
        contenders += [('numpy whole file', lambda: numpy_whole(path, op)),
                       ('numpy chunked', lambda: numpy_chunked(path, op)),
                       ('in process', lambda: inproc(args.build, cols, op))]
        if args.other:
            contenders.append(('in process (%s)' % args.other,
                               lambda: inproc(args.other, cols, op)))
        best = {name: float('inf') for name, _ in contenders}
        for _ in range(args.repeat):
            for name, run in contenders:
                t = run()
                best[name] = min(best[name], t if t is not None else best[name])
        for name, _ in contenders:
            if best[name] == float('inf'):
                continue
            # Ratios: another contender's time over ours (above 1: ours
            # is faster), in process against in process.
            base = best['in process' if name.startswith('in process')
                        else 'planreduce']
            ratio = ('' if name in ('planreduce', 'in process')
                     else '  %.2fx' % (best[name] / base))
            print('  %-5s %-34s %.3f s%s' % (op, name, best[name], ratio))
    os.unlink(path)
os.rmdir(tmp)
