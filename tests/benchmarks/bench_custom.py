#!/usr/bin/python3
"""Benchmark for plancustom, file to file, every contender in one run on
the same files:

    tests/benchmarks/bench_custom.py [build-dir] [--gib 1] [--repeat 2]

1. a per-row softmax over an (N, 256) float32 .npy file: plancustom with
   the example C kernel (tests/examples/custom/softmax.c), on one thread and
   with parallel=true, against numpy over chunks of rows
   (np.exp(x - x.max(1, keepdims=True)), then / its row sums);
2. x * 2 + 1 over a float32 file: plancustom with the example kernel
   axpb.c (parallel=true) against planmap expr="x * 2 + 1".

The kernels are compiled here with -O3 -march=native -ffast-math, as a
user who wants speed builds them. Prints seconds, GB/s of input and ratios (best of --repeat, gst-launch-1.0
as a user runs it, process start included). Not a pass/fail test."""
import argparse
import os
import subprocess
import tempfile
import time

import numpy as np

from benchcache import settle

ap = argparse.ArgumentParser()
ap.add_argument("build", nargs="?", default="build")
ap.add_argument("--gib", type=float, default=1.0)
ap.add_argument("--repeat", type=int, default=2)
args = ap.parse_args()

build = os.path.abspath(args.build)
here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(here, "..", "examples", "custom")
env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(build, "plugins"))
tmp = tempfile.mkdtemp(prefix="plan-bench-", dir=os.environ.get("TMPDIR", "/tmp"))
rows = int(args.gib * (1 << 30)) // (256 * 4)
# The kernels built as a user would for speed (the test build uses -O3
# without machine-specific flags).
kernels = tmp
cflags = subprocess.check_output(["pkg-config", "--cflags", "gstreamer-1.0"],
                                 text=True).split()
for k in ("softmax", "axpb"):
    subprocess.check_call(["cc", "-O3", "-march=native", "-ffast-math", "-shared",
                           "-fPIC", "-I" + os.path.join(here, "..", ".."),
                           "-I" + os.path.join(build), "-o",
                           os.path.join(tmp, "lib%s.so" % k),
                           os.path.join(src, k + ".c"), "-lm",
                           "-L" + os.path.join(build, "libplan"), "-lplan-1.0",
                           "-Wl,-rpath," + os.path.join(build, "libplan")] + cflags)
x_path = os.path.join(tmp, "x.npy")
v_path = os.path.join(tmp, "v.npy")
out = os.path.join(tmp, "out.npy")
rng = np.random.default_rng(0)
m = np.lib.format.open_memmap(x_path, mode="w+", dtype=np.float32, shape=(rows, 256))
for i in range(0, rows, 1 << 14):
    m[i:i + (1 << 14)] = rng.standard_normal((min(1 << 14, rows - i), 256),
                                             dtype=np.float32)
del m
m = np.lib.format.open_memmap(v_path, mode="w+", dtype=np.float32, shape=(rows * 256,))
m[:] = np.memmap(x_path, dtype=np.float32, mode="r", offset=128, shape=(rows * 256,))
del m
settle([x_path, v_path])
nbytes = rows * 256 * 4


def best(fn):
    times = []
    for _ in range(args.repeat):
        if os.path.exists(out):
            os.unlink(out)
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def launch(*words):
    subprocess.run(["gst-launch-1.0", "-q"] + list(words), env=env, check=True)


def show(name, t):
    print("  %-46s %8.3f s  %6.2f GB/s" % (name, t, nbytes / t / 1e9), flush=True)


def numpy_softmax():
    x = np.load(x_path, mmap_mode="r")
    y = np.lib.format.open_memmap(out, mode="w+", dtype=np.float32, shape=x.shape)
    step = (8 << 20) // (256 * 4)     # 8 MiB chunks, as planfilesrc reads
    for i in range(0, len(x), step):
        c = x[i:i + step]
        e = np.exp(c - c.max(axis=1, keepdims=True))
        e /= e.sum(axis=1, keepdims=True)
        y[i:i + step] = e
    y.flush()
    del y


print("plancustom benchmarks: %.2f GiB float32 files, best of %d, %d cores"
      % (args.gib, args.repeat, os.cpu_count()))
print("\n1. softmax over each row of (%d, 256)" % rows)
soft = ["library=" + os.path.join(kernels, "libsoftmax.so"), "symbol=softmax"]
t1 = best(lambda: launch("planfilesrc", "location=" + x_path, "!", "plancustom", *soft,
                         "!", "planfilesink", "location=" + out))
y = np.load(out, mmap_mode="r")
x = np.load(x_path, mmap_mode="r")
e = np.exp(x[:1000] - x[:1000].max(1, keepdims=True))
assert np.allclose(y[:1000], e / e.sum(1, keepdims=True), rtol=1e-5)
del x, y
tp = best(lambda: launch("planfilesrc", "location=" + x_path, "!", "plancustom", *soft,
                         "parallel=true", "!", "planfilesink", "location=" + out))
tn = best(numpy_softmax)
show("plancustom softmax.c, one thread", t1)
show("plancustom softmax.c, parallel=true", tp)
show("numpy, 8 MiB chunks", tn)
print("  vs numpy: one thread %.2fx, parallel %.2fx (goal >= 2)" % (tn / t1, tn / tp))

print("\n2. x * 2 + 1 over %d float32" % (rows * 256))
tm = best(lambda: launch("planfilesrc", "location=" + v_path, "!", "planmap",
                         "expr=x * 2 + 1", "!", "planfilesink", "location=" + out))
tc = best(lambda: launch("planfilesrc", "location=" + v_path, "!", "plancustom",
                         "library=" + os.path.join(kernels, "libaxpb.so"), "symbol=axpb",
                         "parallel=true", "!", "planfilesink", "location=" + out))
show("planmap expr=\"x * 2 + 1\"", tm)
show("plancustom axpb.c, parallel=true", tc)
print("  plancustom is %.1f %% %s than planmap (goal: at most 5 %% slower)" %
      (abs(tc / tm - 1) * 100, "slower" if tc > tm else "faster"))
import shutil
shutil.rmtree(tmp)
