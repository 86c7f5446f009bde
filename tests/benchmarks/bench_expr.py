#!/usr/bin/python3
"""Benchmark of the expression evaluator (issue 3, item 7): in-memory
evaluation into a preallocated output of three float32 expressions on 64 Mi
elements, single-threaded and on all cores, side by side in one run with
numpy (with out= where numpy allows it, and as a user writes it), numexpr
and a plain C loop (the memory-bandwidth reference).

    tests/benchmarks/bench_expr.py [build-dir] [--mi 64] [--repeat 3]

Prints the best time of each, GB/s of array traffic (inputs read plus the
output written) and the ratios the issue sets as targets. Run on a quiet
machine; nothing here is a pass/fail test."""
import argparse
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import numexpr
except ImportError:
    numexpr = None

ap = argparse.ArgumentParser()
ap.add_argument('build', nargs='?', default='build')
ap.add_argument('--mi', type=int, default=64)
ap.add_argument('--repeat', type=int, default=3)
args = ap.parse_args()

here = os.path.dirname(os.path.abspath(__file__))
os.environ['PLAN_BUILD_DIR'] = os.path.abspath(args.build)
sys.path.insert(0, os.path.join(here, '..', 'pipelines'))
from planexpr_ctypes import Expr, lib  # noqa: E402

tmp = tempfile.mkdtemp(prefix='plan-bench-expr-')
so = os.path.join(tmp, 'cloop_expr.so')
subprocess.check_call(['cc', '-O3', '-march=native', '-fopenmp', '-shared',
                       '-fPIC', '-o', so, os.path.join(here, 'cloop_expr.c'),
                       '-lm'])
cl = ctypes.CDLL(so)
shutil.rmtree(tmp)                         # the library stays mapped

n = args.mi << 20
cores = lib().plan_parallel_get_n_cores()
rng = np.random.default_rng(0)
x = rng.standard_normal(n, dtype=np.float32) * 4
y = rng.standard_normal(n, dtype=np.float32)
out = np.empty(n, np.float32)
tmp1 = np.empty(n, np.float32)
out.fill(0)
tmp1.fill(0)
mask = np.empty(n, bool)
mask.fill(0)


def best(fn):
    fn()                                   # warm-up: page faults, caches
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def cfn(name):
    f = getattr(cl, name)
    f.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_size_t]
    return lambda: f(x.ctypes.data, y.ctypes.data, out.ctypes.data, n)


def np_axy_sin_out():
    np.multiply(x, 2, out=out)
    np.multiply(out, y, out=out)
    np.sin(x, out=tmp1)
    np.add(out, tmp1, out=out)


def np_where_out():
    np.greater(x, 0, out=mask)
    np.negative(x, out=out)
    np.sqrt(x, out=out, where=mask)


cases = [
    ('x + y', 2, 'cloop_add',
     lambda: np.add(x, y, out=out), lambda: x + y),
    ('2*x*y + sin(x)', 2, 'cloop_axy_sin',
     np_axy_sin_out, lambda: 2 * x * y + np.sin(x)),
    ('where(x > 0, sqrt(x), -x)', 1, 'cloop_where',
     np_where_out, lambda: np.where(x > 0, np.sqrt(x), -x)),
]

print('gst-plan expression benchmark: %d Mi float32 elements, %d cores, '
      'CPU kernels: %s, best of %d' % (args.mi, cores,
                                       lib().plan_expr_get_cpu_isa().decode(),
                                       args.repeat))
rows = []
for src, n_in, cname, np_out, np_user in cases:
    e = Expr(src, {'x': np.float32, 'y': np.float32})
    arrays = {'x': x, 'y': y}
    nbytes = 4 * n * (n_in + 1)
    r = {}
    r['plan 1 thread'] = best(lambda: e.eval(arrays, out, threads=1))
    r['plan all cores'] = best(lambda: e.eval(arrays, out, threads=0))
    r['C loop 1 thread'] = best(cfn(cname))
    r['C loop all cores (OpenMP)'] = best(cfn(cname + '_omp'))
    r['numpy, out='] = best(np_out)
    r['numpy as written'] = best(np_user)
    if numexpr is not None:
        ne_src = src
        numexpr.set_num_threads(1)
        r['numexpr 1 thread'] = best(
            lambda: numexpr.evaluate(ne_src, local_dict=arrays, out=out))
        numexpr.set_num_threads(cores)
        r['numexpr all cores'] = best(
            lambda: numexpr.evaluate(ne_src, local_dict=arrays, out=out))
    # check the result once, so a fast wrong answer cannot pass unnoticed
    e.eval(arrays, out, threads=0)
    ref = np_user()
    assert np.allclose(out, ref, rtol=1e-5, atol=1e-5, equal_nan=True), src
    print('\n%s  (%.0f MB of array traffic)' % (src, nbytes / 1e6))
    for k, t in r.items():
        print('  %-28s %8.1f ms  %6.2f GB/s' % (k, t * 1e3, nbytes / t / 1e9))
    rows.append((src, r))

print('\nTargets')
for src, r in rows:
    p1, pn = r['plan 1 thread'], r['plan all cores']
    if src == 'x + y':
        print('  %-28s plan 1 thread / C loop 1 thread = %.2f (target >= 0.9)'
              % (src, r['C loop 1 thread'] / p1))
        print('  %-28s all cores / 1 thread speed-up   = %.2f (target >= 1.7;'
              ' the OpenMP C loop gets %.2f on this machine)'
              % (src, p1 / pn, r['C loop 1 thread']
                 / r['C loop all cores (OpenMP)']))
    else:
        print('  %-28s vs numpy out= %.2fx, as written %.2fx (target >= 2)'
              % (src, r['numpy, out='] / p1, r['numpy as written'] / p1))
        if numexpr is not None:
            print('  %-28s vs numexpr: 1 thread %.2fx, all cores %.2fx '
                  '(target >= 2)' % ('', r['numexpr 1 thread'] / p1,
                                     r['numexpr all cores'] / pn))
