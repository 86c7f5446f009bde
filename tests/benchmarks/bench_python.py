#!/usr/bin/python3
"""Benchmark of the gstplan Python package against numpy and against the C
plan API, every contender in one run:

    meson devenv -C build --workdir . /usr/bin/python3 \\
        tests/benchmarks/bench_python.py [build-dir] [--repeat 5] [--mib 256]

1. work.dispatch of x + y on two float32 arrays into a caller's output,
   against np.add(a, b, out=f), and the C API doing the same;
2. the cost of the Python layer: the median dispatch -> wait of the
   design's example plan on 1,000-element arrays, from Python and from C
   (bench_plan latency, same plan, same bindings);
3. the design's example in Python (map, reduce, stencil; one dispatch)
   against numpy computing the same three results.

Python and numpy are timed in this process, the C side in
build-dir/tests/benchmarks/bench_plan. Best of --repeat (latencies: the
median of --cycles). Prints seconds and ratios; not a pass/fail test."""
import argparse
import os
import statistics
import subprocess
import time

import numpy as np

from gstplan import Plan

ap = argparse.ArgumentParser()
ap.add_argument("build", nargs="?", default="build")
ap.add_argument("--repeat", type=int, default=5)
ap.add_argument("--mib", type=int, default=256)
ap.add_argument("--cycles", type=int, default=1000)
args = ap.parse_args()
driver = os.path.join(os.path.abspath(args.build), "tests", "benchmarks",
                      "bench_plan")


def c_side(*words):
    out = subprocess.run([driver] + [str(w) for w in words], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    res = {}
    for line in out.splitlines():
        f = line.split()
        if f[0] == "result":
            res[f[1]] = float(f[2])
        elif f[0] == "latency":
            res[f[1]] = float(f[2]) * 1e-6
    return res


def best(fn):
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def goal(ratio, target, cmp=">="):
    met = ratio >= target if cmp == ">=" else ratio <= target
    return "(goal %s %g: %s)" % (cmp, target, "met" if met else "NOT met")


def example_plan(target="cpu"):
    plan = Plan(); a = plan.source(ndim=1); b = plan.source(ndim=1)
    c = plan.map(lambda x, y: x + y, args=(a, b)); d = plan.reduce(lambda x, y: x + y, args=(a,))
    e = plan.stencil("x y _", lambda x, y: x + y, args=(b,))
    f = plan.sink(c); g = plan.sink(d); h = plan.sink(e)
    return plan.realize(target=target)


n = (args.mib << 20) // 4
rng = np.random.default_rng(0)
a = rng.standard_normal(n, dtype=np.float32)
b = rng.standard_normal(n, dtype=np.float32)
out = np.zeros(n, np.float32)
print("gstplan benchmarks: best of %d, %d float32 elements (%d MiB) per "
      "array, %d cores; numpy single-threaded" % (args.repeat, n, args.mib,
                                                   os.cpu_count()))

# 1 ---------------------------------------------------------------------
plan = Plan(); x = plan.source(); y = plan.source()
plan.map(lambda p, q: p + q, args=(x, y), name="f")
add = plan.realize(target="cpu")
t_py = best(lambda: add.dispatch(x=a, y=b, f=out).wait())
assert np.array_equal(out, a + b)
t_np = best(lambda: np.add(a, b, out=out))
t_c = c_side("add", args.mib, args.repeat)["plan-add-bound"]
print("\n1. x + y into a caller's array")
print("  gstplan work.dispatch(x=a, y=b, f=out)  %8.4f s" % t_py)
print("  C plan_work_dispatch (same)             %8.4f s" % t_c)
print("  numpy np.add(a, b, out=f)               %8.4f s" % t_np)
print("  gstplan vs numpy: %.2fx %s; gstplan vs C: %.2fx" %
      (t_np / t_py, goal(t_np / t_py, 1.0), t_c / t_py))

# 3 ---------------------------------------------------------------------
work = example_plan()
F = np.zeros_like(a); G = np.zeros((), np.float32); H = np.zeros_like(b)
t_alloc = best(lambda: work.dispatch(a=a, b=b).result())
t_bound = best(lambda: work.dispatch(a=a, b=b, f=F, g=G, h=H).wait())


def numpy_example():
    # numpy's fastest way to each result (bench_plan.py's choices): a + b,
    # a float64 sum, and the stencil as one add into a fresh array
    e = np.empty_like(b)
    e[0] = b[0] + b[0]
    np.add(b[1:], b[:-1], out=e[1:])
    return a + b, np.sum(a, dtype=np.float64), e


def numpy_example_out():
    np.add(a, b, out=F)
    np.sum(a, dtype=np.float64)
    H[0] = b[0] + b[0]
    np.add(b[1:], b[:-1], out=H[1:])


t_np_alloc = best(numpy_example)
t_np_out = best(numpy_example_out)
print("\n3. the design's example (c = a + b, d = sum(a), e = stencil 'x y _' "
      "of b)")
print("  gstplan, results allocated              %8.4f s" % t_alloc)
print("  gstplan, into caller arrays             %8.4f s" % t_bound)
print("  numpy, allocating                       %8.4f s" % t_np_alloc)
print("  numpy, out= into given arrays           %8.4f s" % t_np_out)
print("  allocated vs allocating: %.2fx %s; caller arrays vs out=: %.2fx; "
      "caller arrays vs allocating: %.2fx" % (
          t_np_alloc / t_alloc, goal(t_np_alloc / t_alloc, 2.0),
          t_np_out / t_bound, t_np_alloc / t_bound))
del a, b, out, F, H

# 2 ---------------------------------------------------------------------
m = 1000
sa = np.ones(m, np.float32); sb = np.full(m, 7, np.float32)
sf = np.full(m, 3, np.float32)
work = example_plan()
# The Python layer against the C API it calls, interleaved in this process
# (the C call through PyGObject with a Plan.Bindings made once, as a C
# application keeps its bindings), and against bench_plan's C loop.
for _ in range(20):
    work.dispatch(a=sa, b=sb, f=sf).wait()
bindings = work._bindings(dict(a=sa, b=sb, f=sf), None)[0]
times, direct = [], []
for i in range(args.cycles + 10):
    t = time.perf_counter()
    work._work.dispatch(bindings).wait(-1)
    t1 = time.perf_counter()
    work.dispatch(a=sa, b=sb, f=sf).wait()
    t2 = time.perf_counter()
    if i >= 10:
        direct.append(t1 - t)
        times.append(t2 - t1)
py_med = statistics.median(times)
direct_med = statistics.median(direct)
c_med = c_side("latency", m, args.cycles)["plan-dispatch-wait"]
print("\n2. dispatch -> wait of the example plan, %d elements, median of %d"
      % (m, args.cycles))
print("  gstplan work.dispatch(...).wait()          %7.1f us" % (py_med * 1e6))
print("  the C API through PyGObject, same process  %7.1f us" % (direct_med * 1e6))
print("  the C API from C (bench_plan)              %7.1f us" % (c_med * 1e6))
print("  the Python layer adds %.1f us over the C API in the same process "
      "%s (%.1f us over bench_plan's C loop)" % (
          (py_med - direct_med) * 1e6, goal((py_med - direct_med) * 1e6, 50, "<="),
          (py_med - c_med) * 1e6))
