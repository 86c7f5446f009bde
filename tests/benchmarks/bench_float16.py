#!/usr/bin/python3
"""Benchmark of float16 functions: the evaluator, one thread, into a
preallocated output, beside numpy, on 4 Mi random float16 values in
[-10, 10]. float16 functions call the C library's float32 function per
element (as numpy's float16 loops do, so that the bits are numpy's).

    tests/benchmarks/bench_float16.py [build-dir] [--mi 4] [--repeat 5]

Prints the best time per value of each. Nothing here is a pass/fail
test."""
import argparse
import os
import sys
import time
import warnings

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument('build', nargs='?', default='build')
ap.add_argument('--mi', type=int, default=4)
ap.add_argument('--repeat', type=int, default=5)
args = ap.parse_args()

here = os.path.dirname(os.path.abspath(__file__))
os.environ['PLAN_BUILD_DIR'] = os.path.abspath(args.build)
sys.path.insert(0, os.path.join(here, '..', 'pipelines'))
from planexpr_ctypes import Expr  # noqa: E402

warnings.simplefilter('ignore')
h = np.random.default_rng(1).uniform(-10, 10, args.mi << 20) \
    .astype(np.float16)
out = np.empty_like(h)


def best(fn):
    t = 1e9
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t / len(h) * 1e9


print('%-8s %12s %12s' % ('function', 'plan ns/val', 'numpy ns/val'))
for f in ['sin', 'exp', 'log1p', 'arctan', 'tanh']:
    e = Expr(f + '(a)', {'a': np.float16})
    npf = getattr(np, f)
    print('%-8s %12.1f %12.1f' % (f, best(lambda: e.eval({'a': h}, out)),
                                  best(lambda: npf(h, out=out))))
