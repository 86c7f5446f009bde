#!/usr/bin/python3
"""Benchmark for the plan API (libplan/graph/) against numpy, every
contender in one run:

    tests/benchmarks/bench_plan.py [build-dir] [--repeat 5] [--mib 256]
                                   [--gib 1] [--cycles 1000]

1. x + y on two float32 arrays in memory, into a caller's output array and
   into one the future allocates, against np.add(a, b, out=f) and a + b;
2. dispatch latency of the design's example plan on 1,000-element arrays,
   against a bare appsrc ! identity ! appsink state cycle;
3. the design's example (map, reduce, stencil) on two arrays in one
   dispatch, against numpy computing the same three results;
4. fusion: sum (x*x + 1) over a float32 .npy file, fused and unfused,
   through the plan API and as gst-launch-1.0 pipelines.

The plan side runs in build-dir/tests/benchmarks/bench_plan (bench_plan.c),
timed in that process; the numpy peers are timed in this one. Both take
the best of --repeat runs (latencies: the median of --cycles). Prints
seconds, GB/s of input and ratios; nothing here is a pass/fail test."""
import argparse
import os
import subprocess
import tempfile
import time

import numpy as np

from benchcache import settle

ap = argparse.ArgumentParser()
ap.add_argument('build', nargs='?', default='build')
ap.add_argument('--repeat', type=int, default=5)
ap.add_argument('--mib', type=int, default=256,
                help='size of each in-memory array (benchmarks 1 and 3)')
ap.add_argument('--gib', type=float, default=1.0,
                help='size of the fusion benchmark\'s file')
ap.add_argument('--cycles', type=int, default=1000)
ap.add_argument('--latency-n', type=int, default=1000)
args = ap.parse_args()

build = os.path.abspath(args.build)
driver = os.path.join(build, 'tests', 'benchmarks', 'bench_plan')
env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(build, 'plugins'))
tmp = tempfile.mkdtemp(prefix='plan-bench-', dir=os.environ.get('TMPDIR', '/tmp'))
results = {}
latencies = {}


def run_driver(*words):
    """Runs bench_plan; its result and latency lines go into the tables,
    its info lines are printed as they are."""
    out = subprocess.run([driver] + [str(w) for w in words], env=env,
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if f[0] == 'result':
            results[f[1]] = float(f[2])
        elif f[0] == 'latency':
            latencies[f[1]] = tuple(float(x) for x in f[2:5])
        else:
            print('  ' + line[5:] if f[0] == 'info' else line, flush=True)


def best(fn, before=None):
    times = []
    for _ in range(args.repeat):
        if before:
            before()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def show(name, gbytes=None):
    t = results[name]
    rate = '  %6.2f GB/s of input' % (gbytes / t) if gbytes else ''
    print('  %-44s %9.4f s%s' % (name, t, rate), flush=True)


def show_latency(name):
    med, p10, p90 = latencies[name]
    print('  %-42s median %7.1f us  p10 %7.1f  p90 %7.1f' % (name, med, p10, p90),
          flush=True)


def goal(ratio, target, cmp='>='):
    met = ratio >= target if cmp == '>=' else ratio <= target
    return '(goal %s %.1f: %s)' % (cmp, target, 'met' if met else 'NOT met')


n = (args.mib << 20) // 4
in_gb = 2 * 4 * n / 1e9
print('plan API benchmarks: best of %d, %d float32 elements (%d MiB) per '
      'in-memory array; plan on the CPU target, n-threads=0 (one per core: '
      '%d); numpy single-threaded' % (args.repeat, n, args.mib, os.cpu_count()))

# 1. x + y in memory ------------------------------------------------------
print('\n1. in-memory x + y')
run_driver('add', args.mib, args.repeat)
rng = np.random.default_rng(0)
a = rng.standard_normal(n, dtype=np.float32)
b = rng.standard_normal(n, dtype=np.float32)
f = np.empty(n, np.float32)
f.fill(0)   # the output's pages are faulted in before timing, as in C
results['numpy np.add(a, b, out=f)'] = best(lambda: np.add(a, b, out=f))
holder = []
results['numpy f = a + b'] = best(lambda: holder.append(a + b),
                                  before=holder.clear)
holder.clear()
# numpy asks for transparent huge pages on large blocks; without them its
# fresh result faults in 4 KiB pages, as the plan's future-allocated one.
madvise = getattr(np.core.multiarray, '_set_madvise_hugepage', None)
if madvise:
    was = madvise(False)
    results['numpy f = a + b, no madvise hugepage'] = best(
        lambda: holder.append(a + b), before=holder.clear)
    holder.clear()
    madvise(was)
print('  (inputs filled and the output array written once before timing, '
      'on both sides; unbound plan outputs and numpy a + b pay their fresh '
      'result\'s page faults)')
for name in ('plan-add-bound', 'plan-add-unbound', 'numpy np.add(a, b, out=f)',
             'numpy f = a + b', 'numpy f = a + b, no madvise hugepage',
             'c-loop-add'):
    if name in results:
        show(name, in_gb)
for name in ('c-memcpy', 'c-fresh-touch-4k', 'c-fresh-touch-thp'):
    show(name)
print('  c-*: one thread of C in the driver; c-fresh-touch: writing a fresh '
      'block of one array\'s size once, in 4 KiB pages or with '
      'madvise(MADV_HUGEPAGE)')

# 3. the example -----------------------------------------------------------
print('\n3. the design\'s example: c = a + b, d = sum(a), e = stencil "x y _" of b')
run_driver('example', args.mib, args.repeat)
z1 = np.zeros(1, np.float32)


def st_concat():
    return b + np.concatenate((z1, b[:-1]))


def st_out():
    e = np.empty_like(b)
    e[0] = b[0]
    np.add(b[1:], b[:-1], out=e[1:])
    return e


variants = {
    'sum': {'a.sum()': lambda: a.sum(),
            'np.sum(a, dtype=np.float64)': lambda: np.sum(a, dtype=np.float64)},
    'stencil': {'b + np.concatenate((zeros(1, f4), b[:-1]))': st_concat,
                'np.add(b[1:], b[:-1], out=e[1:])': st_out},
}
chosen = {}
for part, fns in variants.items():
    times = {k: best(fn) for k, fn in fns.items()}
    for k, t in times.items():
        print('  numpy %-38s %9.4f s' % (k, t))
    chosen[part] = min(times, key=times.get)
sum_fn = variants['sum'][chosen['sum']]
st_fn = variants['stencil'][chosen['stencil']]
print('  numpy uses: a + b, %s, %s' % (chosen['sum'], chosen['stencil']))


def numpy_example():
    holder.append((a + b, sum_fn(), st_fn()))


results['numpy example'] = best(numpy_example, before=holder.clear)
holder.clear()
e_out = np.empty_like(b)
e_out.fill(0)


def numpy_example_out():
    np.add(a, b, out=f)
    sum_fn()
    e_out[0] = b[0]
    np.add(b[1:], b[:-1], out=e_out[1:])


results['numpy example, out= written arrays'] = best(numpy_example_out)
del e_out
for name in ('plan-example', 'numpy example', 'plan-example-bound',
             'numpy example, out= written arrays'):
    show(name, in_gb)
del a, b, f

# 2. latency ---------------------------------------------------------------
print('\n2. dispatch latency: the example plan on %d-element float32 arrays, '
      '%d cycles' % (args.latency_n, args.cycles))
run_driver('latency', args.latency_n, args.cycles)
for name in latencies:
    show_latency(name)
print('  plan-dispatch-call: plan_work_dispatch() alone (checks, binding, '
      'hand-off); parsed-*: the work\'s launch string in gst_parse_launch, '
      'cycled by hand (:to-playing, :to-eos, :to-rest split each cycle into '
      'set_state (PLAYING), the EOS message and set_state back); '
      'thread-handoff: a GThreadPool push and a GCond wait')

# 4. fusion ----------------------------------------------------------------
m = int(args.gib * (1 << 30)) // 4
path = os.path.join(tmp, 'a.npy')
print('\n4. fusion: sum(x*x + 1) over a %.2f GiB float32 .npy file (%d elements)'
      % (m * 4 / 2**30, m))
mm = np.lib.format.open_memmap(path, mode='w+', dtype=np.float32, shape=(m,))
for i in range(0, m, 1 << 24):
    mm[i:i + (1 << 24)] = rng.standard_normal(min(1 << 24, m - i), dtype=np.float32)
del mm
settle([path])
run_driver('fusion', path, args.repeat)


def gst(*words):
    subprocess.run(['gst-launch-1.0', '-q', 'planfilesrc', 'location=' + path, '!']
                   + list(words) + ['!', 'fakesink'], env=env, check=True,
                   stdout=subprocess.DEVNULL)


results['gst-launch planreduce map="x*x + 1" op=sum'] = best(
    lambda: gst('planreduce', 'map=x*x + 1', 'op=sum'))
results['gst-launch planmap expr="x*x + 1" ! planreduce op=sum'] = best(
    lambda: gst('planmap', 'expr=x*x + 1', '!', 'planreduce', 'op=sum'))


def numpy_chunked():
    with open(path, 'rb') as fa:
        np.lib.format.read_magic(fa)
        np.lib.format.read_array_header_1_0(fa)
        x = np.empty(1 << 18, np.float32)
        total = 0.0
        while True:
            k = fa.readinto(x) // 4
            if k == 0:
                break
            y = x[:k]
            np.multiply(y, y, out=y)
            y += 1
            total += float(y.sum())


results['numpy chunked sum(x*x + 1)'] = best(numpy_chunked)
fgb = 4 * m / 1e9
for name in ('plan-fused', 'plan-unfused',
             'gst-launch planreduce map="x*x + 1" op=sum',
             'gst-launch planmap expr="x*x + 1" ! planreduce op=sum',
             'numpy chunked sum(x*x + 1)'):
    show(name, fgb)
print('  (gst-launch-1.0 figures include process start-up, about 5 ms)')

# ratios -------------------------------------------------------------------
r = results
print('\nratios (numpy or other time / plan time; higher is better for the plan API):')
p = r['plan-add-bound']
x = r['numpy np.add(a, b, out=f)'] / p
print('  1. x + y into a caller array: vs np.add(out=f) %.2fx %s' % (x, goal(x, 1.0)))
x = r['numpy f = a + b'] / p
print('     vs f = a + b %.2fx %s' % (x, goal(x, 1.5)))
pu = r['plan-add-unbound']
print('     unbound (future-allocated): vs f = a + b %.2fx, vs np.add(out=f) %.2fx;'
      ' unbound / bound %.2f' % (r['numpy f = a + b'] / pu,
                                 r['numpy np.add(a, b, out=f)'] / pu, pu / p))
print('     one-thread C loop / plan bound %.2f; a %d MiB memcpy is %.0f%% of '
      'plan bound' % (r['c-loop-add'] / p, args.mib, 100 * r['c-memcpy'] / p))
print('     unbound - bound %.4f s; fresh 4 KiB-page touch %.4f s, with THP %.4f s'
      % (pu - p, r['c-fresh-touch-4k'], r['c-fresh-touch-thp']))
med = latencies['plan-dispatch-wait'][0]
cyc = latencies['appsrc-null-playing-null'][0]
x = med / cyc
print('  2. plan dispatch->wait median / appsrc cycle median %.2f %s'
      % (x, goal(x, 2.5, '<=')))
pr = latencies['parsed-ready-playing-ready'][0]
print('     parsed pipeline READY cycle / appsrc cycle %.2f; plan / parsed READY '
      'cycle %.2f (what PlanWork adds over its pipeline: %+.0f us); of the '
      'parsed cycle, PLAYING->READY is %.0f%%'
      % (pr / cyc, med / pr, med - pr,
         100 * latencies['parsed-ready-playing-ready:to-rest'][0] / pr))
x = r['numpy example'] / r['plan-example']
print('  3. example: numpy / plan %.2fx %s' % (x, goal(x, 2.0)))
print('     into written arrays (f, h bound; numpy out=): numpy / plan %.2fx'
      % (r['numpy example, out= written arrays'] / r['plan-example-bound']))
print('  4. fusion: plan API unfused / fused %.2fx; gst-launch unfused / fused '
      '%.2fx; numpy chunked / plan fused %.2fx'
      % (r['plan-unfused'] / r['plan-fused'],
         r['gst-launch planmap expr="x*x + 1" ! planreduce op=sum']
         / r['gst-launch planreduce map="x*x + 1" op=sum'],
         r['numpy chunked sum(x*x + 1)'] / r['plan-fused']))
subprocess.run(['rm', '-rf', tmp])
