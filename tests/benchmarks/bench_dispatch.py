#!/usr/bin/python3
"""Per-dispatch cost and queued throughput of the plan API from Python
(gstplan), beside numpy's per-call time on the same arrays:

    meson devenv -C build --workdir . /usr/bin/python3 \\
        tests/benchmarks/bench_dispatch.py [--dispatches 2000] \\
        [--queued 10000] [--n 1000] [--target cpu]

1. latency: dispatch -> wait of a single map (x * 2) and of the seed's
   plan (x + y, the sum of x, the stencil "x y _"), on --n float32
   elements, outputs bound to the caller's arrays: median and p99 over
   --dispatches dispatches, after 100 to warm up. numpy: np.multiply(a, 2,
   out=f) for the map; np.add(a, b, out=f), a.sum(), and the stencil's two
   slices added for the seed.
2. throughput: --queued dispatches of the single map queued on one work
   (each its own input and future, max_queued 256: a dispatch refused as
   busy waits for the oldest future), against a dispatch -> wait loop and
   numpy's loop over the same arrays. Small dispatches of maps are
   computed by dispatch() itself and never wait; the same loops on a work
   realized with PLAN_DIRECT_MAX_ELEMENTS=0 measure queued runs of the
   pipeline.

Figures are microseconds per dispatch; nothing here is a pass/fail test.
"""
import argparse
import collections
import os
import time

import numpy as np

from gstplan import Plan, PlanError

ap = argparse.ArgumentParser()
ap.add_argument("--dispatches", type=int, default=2000)
ap.add_argument("--queued", type=int, default=10000)
ap.add_argument("--n", type=int, default=1000)
ap.add_argument("--target", default="cpu")
args = ap.parse_args()

rng = np.random.default_rng(1)
A = rng.random(args.n, dtype=np.float32)
B = rng.random(args.n, dtype=np.float32)
F = np.empty_like(A)
G = np.empty(1, np.float32)
H = np.empty_like(B)


def stats(times):
    t = np.sort(np.asarray(times)) * 1e6
    return np.median(t), t[int(0.99 * (len(t) - 1))]


def time_calls(call, count, warm=100):
    for _ in range(warm):
        call()
    times = []
    for _ in range(count):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return stats(times)


def row(what, plan_stats, numpy_stats):
    print("%-44s %9.1f %9.1f   %9.2f %9.2f   %7.0f x" % (
        what, plan_stats[0], plan_stats[1], numpy_stats[0], numpy_stats[1],
        plan_stats[0] / numpy_stats[0]))


plan = Plan(); a = plan.source(ndim=1); m = plan.map("x * 2", args=(a,))
one_map = plan.realize(target=args.target)

plan = Plan(); a = plan.source(ndim=1); b = plan.source(ndim=1)
c = plan.map(lambda x, y: x + y, args=(a, b)); d = plan.reduce(lambda x, y: x + y, args=(a,))
e = plan.stencil("x y _", lambda x, y: x + y, args=(b,))
f = plan.sink(c); g = plan.sink(d); h = plan.sink(e)
seed = plan.realize(target=args.target)


def numpy_seed():
    np.add(A, B, out=F)
    G[0] = A.sum()
    H[0] = B[0] + B[0]
    np.add(B[:-1], B[1:], out=H[1:])


print("dispatch -> wait, %d float32 elements, %s target, %d dispatches"
      % (args.n, args.target, args.dispatches))
print("%-44s %9s %9s   %9s %9s" % ("", "median µs", "p99 µs", "numpy µs",
                                    "p99 µs"))
row("single map x * 2",
    time_calls(lambda: one_map.dispatch(a=A, m=F).wait(), args.dispatches),
    time_calls(lambda: np.multiply(A, 2, out=F), args.dispatches))
row("the seed's plan (map, reduce, stencil)",
    time_calls(lambda: seed.dispatch(a=A, b=B, f=F, g=G, h=H).wait(),
               args.dispatches),
    time_calls(numpy_seed, args.dispatches))

# Throughput: queued dispatches, each with its own input and output.
inputs = [rng.random(args.n, dtype=np.float32) for _ in range(64)]
outputs = [np.empty(args.n, np.float32) for _ in range(args.queued)]


def queued(work):
    work.max_queued = 256
    t = time.perf_counter()
    pending = collections.deque()
    for i in range(args.queued):
        while True:
            try:
                pending.append(work.dispatch(a=inputs[i % 64], m=outputs[i]))
                break
            except PlanError as e:
                if "waiting" not in str(e):
                    raise
                pending.popleft().wait()
    while pending:
        pending.popleft().wait()
    took = (time.perf_counter() - t) / args.queued
    for i in range(0, args.queued, 997):
        assert np.array_equal(outputs[i], inputs[i % 64] * 2), i
    return took


def serial(work):
    t = time.perf_counter()
    for i in range(args.queued):
        work.dispatch(a=inputs[i % 64], m=outputs[i]).wait()
    return (time.perf_counter() - t) / args.queued


os.environ["PLAN_DIRECT_MAX_ELEMENTS"] = "0"
plan = Plan(); a = plan.source(ndim=1); m = plan.map("x * 2", args=(a,))
piped = plan.realize(target=args.target)
del os.environ["PLAN_DIRECT_MAX_ELEMENTS"]

t = time.perf_counter()
for i in range(args.queued):
    np.multiply(inputs[i % 64], 2, out=outputs[i])
numpy_loop = (time.perf_counter() - t) / args.queued

print()
print("%d dispatches of the single map, %d elements each, each into its own "
      "output array" % (args.queued, args.n))
for what, took in (
        ("queued (max_queued 256)", queued(one_map)),
        ("dispatch -> wait, one at a time", serial(one_map)),
        ("pipeline runs queued (max_queued 256)", queued(piped)),
        ("pipeline runs, dispatch -> wait", serial(piped))):
    print("%-44s %9.1f µs each, %8.0f dispatches/s" % (what, took * 1e6,
                                                      1 / took))
print("%-44s %9.2f µs each, %8.0f calls/s" % (
    "numpy np.multiply(a, 2, out=f)", numpy_loop * 1e6, 1 / numpy_loop))
