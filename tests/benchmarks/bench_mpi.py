#!/usr/bin/python3
"""Benchmark for plans sharded across MPI ranks, on one machine:

  sum:       planreduce op=sum of a float32 file (2 GiB at --scale 1)
  laplacian: a 5-point Laplacian (boundary=nearest) of a square float32
             array (2 GiB at --scale 1), file to file
  h5gzip:    the float32 file written to one HDF5 dataset, gzip level 1
             after shuffle (planfilesink compression=1): sharded, each
             rank filters its chunks and rank 0 writes them all

each run as one process (no mpirun) and sharded (planfilesrc shard=mpi)
on 1, 2 and 4 ranks with mpirun, in one run on the same files, warm page
cache, the previous run's output synced to disk before each run. Prints
seconds, the speed-up over the single process, and the bytes
the ranks sent each other (from the planshard debug category). On a
2-core machine 2 ranks is the meaningful point; 4 shows the cost of
oversubscription. Nothing here is a pass/fail test.

    tests/benchmarks/bench_mpi.py [build-dir] [--scale 1.0] [--repeat 2]
        [--jobs sum,laplacian,h5gzip]
"""
import argparse
import os
import re
import shutil
import subprocess
import tempfile
import time

import numpy as np


def timed(cmd, env):
    # The last run's output written back first, so that no run pays for
    # another's dirty pages.
    os.sync()
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=env)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit('failed: %s\n%s' % (' '.join(cmd), p.stdout[-3000:]))
    sent = sum(int(n) for n in re.findall(r'sent (\d+) bytes to rank', p.stdout))
    spools = re.findall(r"other ranks' spools in ([0-9.]+) s", p.stdout)
    return dt, sent, float(spools[0]) if spools else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('build', nargs='?', default='build')
    ap.add_argument('--scale', type=float, default=1.0)
    ap.add_argument('--repeat', type=int, default=2)
    ap.add_argument('--jobs', default='sum,laplacian,h5gzip')
    args = ap.parse_args()
    env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(args.build, 'plugins'),
               GST_DEBUG='planshard:6,planshardwriter:4',
               GST_DEBUG_NO_COLOR='1')
    mpirun = [shutil.which('mpirun'), '--allow-run-as-root', '--oversubscribe',
              '--bind-to', 'none']
    d = tempfile.mkdtemp(prefix='bench-mpi-', dir=os.environ.get('TMPDIR', '/tmp'))
    n = int((2 << 30) * args.scale) // 4
    side = int(n ** 0.5)
    vec, sq, out = (os.path.join(d, f) for f in ('v.npy', 'sq.npy', 'out.npy'))
    rng = np.random.default_rng(0)
    for path, shape in ((vec, (n,)), (sq, (side, side))):
        a = np.lib.format.open_memmap(path, 'w+', np.float32, shape)
        flat = a.reshape(-1)
        for i in range(0, flat.size, 1 << 24):
            flat[i:i + (1 << 24)] = rng.standard_normal(min(1 << 24, flat.size - i))
        a.flush()
        del a
    jobs = {
        'sum': lambda shard: ['gst-launch-1.0', '-q', 'planfilesrc', 'location=' + vec]
        + shard + ['!', 'planreduce', 'op=sum', '!', 'fakesink'],
        'laplacian': lambda shard: ['gst-launch-1.0', '-q', 'planfilesrc',
                                    'location=' + sq] + shard +
        ['!', 'planstencil', 'window=_,n,_;w,c,e;_,s,_', 'expr=n+s+e+w-4*c',
         'boundary=nearest', '!', 'planfilesink', 'location=' + out],
        'h5gzip': lambda shard: ['gst-launch-1.0', '-q', 'planfilesrc',
                                 'location=' + vec] + shard +
        ['!', 'planfilesink', 'location=' + os.path.join(d, 'out.h5'),
         'compression=1'],
    }
    jobs = {k: v for k, v in jobs.items() if k in args.jobs.split(',')}
    print('%d float32 (%.2f GiB); %dx%d float32 (%.2f GiB); best of %d' %
          (n, n * 4 / 2 ** 30, side, side, side * side * 4 / 2 ** 30, args.repeat))
    for name, words in jobs.items():
        timed(words([]), env)   # warm the page cache
        base = min(timed(words([]), env)[0] for _ in range(args.repeat))
        print('%-9s one process   %7.3f s' % (name, base))
        for ranks in (1, 2, 4):
            # mpirun's own start-up and teardown, which a longer job pays once.
            launch = min(timed(mpirun + ['-np', str(ranks), 'true'], env)[0]
                         for _ in range(args.repeat))
            runs = [timed(mpirun + ['-np', str(ranks)] + words(['shard=mpi']), env)
                    for _ in range(args.repeat)]
            t = min(r[0] for r in runs)
            best = min(runs, key=lambda r: r[0])
            print('%-9s %d rank%s      %7.3f s  %.2fx   without mpirun\'s %.3f s: '
                  '%.2fx  %d bytes exchanged%s' %
                  (name, ranks, 's' if ranks > 1 else ' ', t, base / t, launch,
                   base / max(t - launch, 1e-9), runs[0][1],
                   '' if best[2] is None else
                   ', rank 0 copying the spools %.3f s' % best[2]))
    shutil.rmtree(d)


main()
