#!/usr/bin/python3
"""Benchmark for reading HDF5 and Zarr: planfilesrc into planreduce op=sum,
and into planmap ! planfilesink, side by side with h5py and zarr-python
reading the same data chunk by chunk into numpy, and with dask.array
(python3-dask) where it is installed. float32, chunked, uncompressed and
compressed (HDF5: gzip level 1 with shuffle, since libhdf5 has no zstd
filter of its own; Zarr: zstd level 1).

    tests/benchmarks/bench_formats.py [build-dir] [--gib 1] [--repeat 2]

Prints seconds and the ratio of each peer's time to gst-plan's (above 1:
gst-plan is faster). Nothing here is a pass/fail test; run it on a quiet
machine."""
import argparse
import os
import subprocess
import tempfile
import time

import numpy as np

from benchcache import settle

import h5py
import numcodecs
import zarr

try:
    import dask.array as da
except ImportError:
    da = None

ap = argparse.ArgumentParser()
ap.add_argument('build', nargs='?', default='build')
ap.add_argument('--gib', type=float, default=1.0)
ap.add_argument('--repeat', type=int, default=2)
args = ap.parse_args()

build = os.path.abspath(args.build)
env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(build, 'plugins'))
launch = os.path.join(build, 'tools', 'plan-launch')
tmp = tempfile.mkdtemp(prefix='plan-bench-', dir=os.environ.get('TMPDIR', '/tmp'))
COLS = 64
CHUNK_ROWS = 16384                      # 4 MiB chunks of whole rows
rows = int(args.gib * (1 << 30)) // (4 * COLS)
rng = np.random.default_rng(5)


def write_inputs():
    files = {}
    block = rng.standard_normal((CHUNK_ROWS * 8, COLS)).astype(np.float32)
    for name, kw in [('h5-none', {}),
                     ('h5-gzip', dict(compression='gzip',
                                      compression_opts=1, shuffle=True))]:
        path = os.path.join(tmp, name + '.h5')
        with h5py.File(path, 'w') as f:
            d = f.create_dataset('x', shape=(rows, COLS), dtype='f4',
                                 chunks=(CHUNK_ROWS, COLS), **kw)
            for r in range(0, rows, len(block)):
                n = min(len(block), rows - r)
                d[r:r + n] = block[:n]
        files[name] = path
    for name, codec in [('zarr-none', None),
                        ('zarr-zstd', numcodecs.Zstd(level=1))]:
        path = os.path.join(tmp, name + '.zarr')
        z = zarr.open(path, mode='w', shape=(rows, COLS), dtype='f4',
                      chunks=(CHUNK_ROWS, COLS), compressor=codec)
        for r in range(0, rows, len(block)):
            n = min(len(block), rows - r)
            z[r:r + n] = block[:n]
        files[name] = path
    return files


def opened(path):
    if path.endswith('.h5'):
        f = h5py.File(path, 'r')
        return f['x'], f
    return zarr.open(path, mode='r'), None


def chunked_sum(path):
    d, f = opened(path)
    total = 0.0
    for r in range(0, rows, CHUNK_ROWS):
        total += float(d[r:r + CHUNK_ROWS].sum(dtype=np.float64))
    if f:
        f.close()
    return total


def chunked_map(path, out):
    d, f = opened(path)
    o = np.lib.format.open_memmap(out, mode='w+', dtype='f4',
                                  shape=(rows, COLS))
    for r in range(0, rows, CHUNK_ROWS):
        o[r:r + CHUNK_ROWS] = 2 * d[r:r + CHUNK_ROWS] + 1
    o.flush()
    del o
    if f:
        f.close()


def dask_sum(path):
    d, f = opened(path)
    x = da.from_array(d, chunks=(CHUNK_ROWS, COLS))
    s = float(x.sum(dtype=np.float64).compute())
    if f:
        f.close()
    return s


def plan(words):
    subprocess.run([launch, '-q'] + words, env=env, check=True,
                   stdout=subprocess.DEVNULL)


def best(fn):
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


files = write_inputs()
for p in files.values():
    if os.path.isdir(p):
        settle([os.path.join(p, n) for n in os.listdir(p)])
    else:
        settle([p])
out = os.path.join(tmp, 'out.npy')
size = rows * COLS * 4
print('%d rows x %d float32 (%.2f GiB), chunks of %d rows, best of %d'
      % (rows, COLS, size / (1 << 30), CHUNK_ROWS, args.repeat))
for name, path in files.items():
    lib = 'h5py' if name.startswith('h5') else 'zarr'
    t_plan = best(lambda: plan(['planfilesrc', 'location=' + path, '!',
                                'planreduce', 'op=sum', '!', 'fakesink']))
    t_lib = best(lambda: chunked_sum(path))
    line = '%-10s sum:  gst-plan %6.3f s  %s %6.3f s (x%.2f)' % (
        name, t_plan, lib, t_lib, t_lib / t_plan)
    if da is not None:
        t_dask = best(lambda: dask_sum(path))
        line += '  dask %6.3f s (x%.2f)' % (t_dask, t_dask / t_plan)
    print(line, flush=True)
    t_plan = best(lambda: plan(['planfilesrc', 'location=' + path, '!',
                                'planmap', 'expr=2*x + 1', '!',
                                'planfilesink', 'location=' + out]))
    t_lib = best(lambda: chunked_map(path, out))
    print('%-10s map:  gst-plan %6.3f s  %s %6.3f s (x%.2f)' % (
        name, t_plan, lib, t_lib, t_lib / t_plan), flush=True)
subprocess.run(['rm', '-rf', tmp])
