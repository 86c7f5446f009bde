#!/usr/bin/python3
"""The plan API (PlanGraph -> realize -> dispatch -> future), driven through
plangraphrun and the design's example, against numpy and scipy: every node
kind alone and combined, in memory, on files and through chunk readers and
writers, on the CPU and on the simulated device, fused and unfused."""
import math
import os
import shlex
import subprocess
import sys

import numpy as np
from scipy import ndimage

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plantest  # noqa: E402
from plantest import Failure, assert_same, run_cases, tmpdir  # noqa: E402

BUILD = os.environ.get('PLAN_BUILD_DIR', 'build')
RUNNER = os.path.join(BUILD, 'tests', 'pipelines', 'plangraphrun')
EXAMPLE = os.path.join(BUILD, 'tests', 'examples', 'plan-example')


def run_graph(lines, outdir, env=None, expect_ok=True, preload=None):
    """Runs plangraphrun on tab-separated `lines`; returns (kernels,
    launch string, progress, stderr)."""
    e = dict(os.environ)
    e.update(env or {})
    if preload:
        e['LD_PRELOAD'] = preload
    p = subprocess.run([RUNNER, outdir], input='\n'.join(
        '\t'.join(str(f) for f in line) for line in lines) + '\n',
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        timeout=300, env=e)
    if expect_ok and p.returncode != 0:
        raise Failure('plangraphrun failed (%d): %s' % (p.returncode,
                                                        p.stderr))
    if not expect_ok and p.returncode == 0:
        raise Failure('plangraphrun should have failed:\n%s' % p.stdout)
    out = dict(line.split(' ', 1) for line in p.stdout.splitlines()
               if ' ' in line)
    return (int(out.get('kernels', -1)), out.get('launch', ''),
            out.get('progress', ''), p.stderr)


def save(d, name, a):
    path = os.path.join(d, name + '.npy')
    np.save(path, a)
    return path


TARGETS = [('cpu', {}), ('sim', {'GST_PLAN_DEVICE': 'sim'})]
MODES = ['array', 'file', 'reader']


def compute(nodes, inputs, outputs, mode, target, fuse=True):
    """Runs the graph `nodes` on `inputs` (name -> array), binding inputs by
    `mode`; returns name -> result array for `outputs` (bound to files in
    file mode, to arrays the future makes otherwise)."""
    d = tmpdir()
    lines = list(nodes)
    lines.append(('realize', 'auto' if target == 'sim' else 'cpu',
                  'fuse' if fuse else 'nofuse'))
    for name, a in inputs.items():
        path = save(d, 'in-' + name, a)
        if mode == 'reader':
            lines.append(('reader', name, path, 7))
        else:
            lines.append((mode, name, path))
    if mode == 'file':
        for name in outputs:
            lines.append(('file', name, os.path.join(d, name + '.npy')))
    kernels, launch, progress, _ = run_graph(lines, d, dict(TARGETS)[target])
    results = {name: np.load(os.path.join(d, name + '.npy'))
               for name in outputs}
    return results, kernels, launch, progress


def check_everywhere(nodes, inputs, want, rtol=0.0, modes=MODES):
    """The graph gives `want` in every mode and on every target, and fused
    and unfused give the same bytes."""
    for target, _ in TARGETS:
        for mode in modes:
            got, _, _, _ = compute(nodes, inputs, want, mode, target)
            unfused, _, _, _ = compute(nodes, inputs, want, mode, target,
                                       fuse=False)
            for name, w in want.items():
                what = '%s (%s, %s)' % (name, mode, target)
                assert_same(got[name], w, what, rtol=rtol)
                if got[name].tobytes() != unfused[name].tobytes():
                    raise Failure('%s: fused and unfused differ' % what)


def rng(seed):
    return np.random.default_rng(seed)


def case_map():
    r = rng(1)
    a = r.standard_normal((1003, 3)).astype(np.float32)
    b = r.standard_normal((1003, 3)).astype(np.float32)
    nodes = [('source', 'a', 2, '-'), ('source', 'b', 2, '-'),
             ('map', 'c', 'a,b', '-', '2*x*y + sin(x)')]
    # float32 sin differs from numpy's in the last bits: compare the
    # exact part bit for bit and sin within float32 rounding.
    check_everywhere(nodes[:2] + [('map', 'c', 'a,b', '-', '2*x*y + x')],
                     {'a': a, 'b': b}, {'c': 2 * a * b + a})
    got, _, _, _ = compute(nodes, {'a': a, 'b': b}, ['c'], 'array', 'cpu')
    want = 2 * a.astype(np.float64) * b + np.sin(a.astype(np.float64))
    if not np.allclose(got['c'], want, rtol=1e-5, atol=1e-6):
        raise Failure('2*x*y + sin(x) is not within float32 rounding')


def case_map_cast_and_long_names():
    r = rng(2)
    ins = {n: r.integers(-100, 100, 500).astype(np.int32) for n in 'pqrst'}
    nodes = [('source', n, 1, 'int32') for n in 'pqrst']
    nodes.append(('map', 'm', 'p,q,r,s,t', 'float32',
                  'in0 + in1 * in2 - in3 + in4'))
    want = (ins['p'] + ins['q'] * ins['r'] - ins['s'] + ins['t'])
    check_everywhere(nodes, ins, {'m': want.astype(np.float32)})


def case_reductions():
    r = rng(3)
    a = r.standard_normal((2001, 4)).astype(np.float64)
    nodes = [('source', 'a', 2, '-'),
             ('reduce', 's', 'a', 'sum', 'all'),
             ('reduce', 'mx', 'a', 'max', '0'),
             ('reduce', 'am', 'a', 'argmin', '-1'),
             ('reduce', 'mean', 'a', 'mean', 'all'),
             ('combine', 'cmax', 'a', 'all', '-inf', 'max(x, y)')]
    want = {'s': np.sum(a), 'mx': a.max(axis=0), 'am': a.argmin(axis=1),
            'mean': np.mean(a), 'cmax': np.max(a)}
    check_everywhere(nodes, {'a': a}, want, rtol=1e-12)
    # numpy's newer reductions go through the same node by their names
    b = a.copy()
    b[::9, 1] = np.nan
    nodes = [('source', 'b', 2, '-'),
             ('reduce', 'sd', 'b', 'std', '0'),
             ('reduce', 'nm', 'b', 'nanmean', 'all'),
             ('reduce', 'nv', 'b', 'nanvar', '-1'),
             ('reduce', 'pp', 'b', 'ptp', '0')]
    want = {'sd': np.std(b, axis=0), 'nm': np.nanmean(b),
            'nv': np.nanvar(b, axis=1), 'pp': np.ptp(b, axis=0)}
    check_everywhere(nodes, {'b': b}, want, rtol=1e-12)


def case_constants_and_broadcasting():
    """Array constants bound from memory (plan_graph_add_map_with_constants)
    and inputs that broadcast, row by row, against numpy."""
    r = rng(18)
    d = tmpdir()
    a = (r.standard_normal((1203, 3)) * 3 + 5).astype(np.float32)
    b = r.standard_normal((1203, 1)).astype(np.float32)
    mean = a.mean(axis=0)
    std = a.std(axis=0)
    consts = 'mean=%s,std=%s' % (save(d, 'mean', mean), save(d, 'std', std))
    nodes = [('source', 'a', 2, '-'), ('source', 'b', 2, '-'),
             ('map', 'n', 'a', '-', '(x - mean) / std', consts),
             ('map', 'p', 'a,b', '-', 'x * y'),
             ('map', 'q', 'a,b', '-', '(x - mean) / std - y', consts)]
    want = {'n': (a - mean) / std, 'p': a * b, 'q': (a - mean) / std - b}
    check_everywhere(nodes, {'a': a, 'b': b}, want)
    # a chain through a map with constants: it stays an element of its own
    nodes = [('source', 'a', 2, '-'),
             ('map', 'm', 'a', '-', 'x * 2'),
             ('map', 'n', 'm', '-', 'x - mean', consts),
             ('map', 'o', 'n', '-', 'x + 1')]
    got, kernels, _, _ = compute(nodes, {'a': a}, ['o'], 'array', 'cpu')
    assert_same(got['o'], (a * 2 - mean) + 1, 'a chain through constants')
    if kernels != 3:
        raise Failure('a map with constants was fused: %d kernels' % kernels)


def case_ddof():
    r = rng(19)
    a = r.standard_normal((999, 4)) * 1e-3 + 1e4
    a[::7, 2] = np.nan
    nodes = [('source', 'a', 2, '-'),
             ('reduce', 'v1', 'a', 'var', '0', 1),
             ('reduce', 's2', 'a', 'std', 'all', 2.5),
             ('reduce', 'nv', 'a', 'nanvar', '-1', 1),
             ('reduce', 'ns', 'a', 'nanstd', '0', 0)]
    want = {'v1': np.var(a, axis=0, ddof=1), 's2': np.std(a, ddof=2.5),
            'nv': np.nanvar(a, axis=1, ddof=1),
            'ns': np.nanstd(a, axis=0, ddof=0)}
    check_everywhere(nodes, {'a': a}, want, rtol=1e-9, modes=['array'])


def case_constant_errors():
    d = tmpdir()
    a = save(d, 'a', np.zeros((10, 3), np.float32))
    c4 = save(d, 'c4', np.zeros(4, np.float32))
    c3 = save(d, 'c3', np.zeros(3, np.float32))
    src = [('source', 'a', 2, '-')]
    for lines, message in [
            (src + [('map', 'm', 'a', '-', 'x - c', 'c=' + c4),
                    ('realize', 'cpu', 'fuse'), ('array', 'a', a)],
             "map 'm': the shapes"),
            (src + [('map', 'm', 'a', '-', 'x - c', 'c=%s,c=%s' % (c3, c3))],
             "map 'm': constant 'c' is given twice"),
            (src + [('map', 'm', 'a', '-', 'x - c', 'x=' + c3)],
             "map 'm': the name 'x' is bound twice"),
            (src + [('map', 'm', 'a', '-', 'x - k', 'c=' + c3)],
             "unknown name 'k'"),
            (src + [('reduce', 'r', 'a', 'var', '0', -1)],
             "reduce 'r': ddof -1 is not"),
            (src + [('reduce', 'r', 'a', 'var', '0', 'nan')],
             "reduce 'r': ddof nan is not")]:
        _, _, _, err = run_graph(lines, d, expect_ok=False)
        if message not in err:
            raise Failure('expected %r in the error, got %r' % (message, err))
    _, _, _, err = run_graph(src[:1] + [
        ('map', 'm', 'a', '-', 'x - c', 'c=' + c4),
        ('realize', 'cpu', 'fuse'), ('array', 'a', a)], d, expect_ok=False)
    for word in ['(4,)', '(10, 3)']:
        if word not in err:
            raise Failure('the shape error should name %s: %r' % (word, err))


def case_stencils():
    r = rng(4)
    b = r.standard_normal(777).astype(np.float32)
    img = r.standard_normal((61, 47)).astype(np.float64)
    nodes = [('source', 'b', 1, '-'), ('source', 'img', 2, '-'),
             ('stencil', 'e', 'b', 'constant', 0, 'x y _', 'x + y'),
             ('stencil', 'lap', 'img', 'nearest', 0, '_ n _; w c e; _ s _',
              'n + s + e + w - 4*c'),
             ('stencil', 'r', 'b', 'reflect', 0, 'l c r', 'l - r')]
    lap = ndimage.correlate(img, np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]],
                                          dtype=np.float64), mode='nearest')
    e = b + np.concatenate([[0], b[:-1]]).astype(np.float32)
    r = ndimage.correlate1d(b, [1, 0, -1], mode='reflect')
    check_everywhere(nodes, {'b': b, 'img': img},
                     {'e': e, 'lap': lap, 'r': r}, rtol=1e-6)
    # wrap needs the far end of the stream first: arrays and files give
    # it, a reader of unknown length cannot, and says so.
    wrap = [('source', 'b', 1, '-'),
            ('stencil', 'w', 'b', 'wrap', 0, 'l c r', 'l - r')]
    check_everywhere(wrap, {'b': b}, {'w': np.roll(b, 1) - np.roll(b, -1)},
                     modes=['array', 'file'])
    d = tmpdir()
    _, _, _, err = run_graph(wrap + [('realize', 'cpu', 'fuse'),
                                     ('reader', 'b', save(d, 'b', b), 7)],
                             d, expect_ok=False)
    if "node 'w'" not in err or 'wrap' not in err:
        raise Failure('wrap on a reader: %r' % err)


def case_stencil_after_stencil():
    """Stencils in a row, with every binding: a kernel element between
    another and a sink that lends its array must not pass the lending on
    (both would write the array, the later one reading cells the earlier
    had overwritten)."""
    img = rng(10).standard_normal((37, 29))
    want = img
    nodes = [('source', 'img', 2, '-')]
    for k in range(3):
        p = np.pad(want, 1, mode='edge')
        want = 0.2 * (p[1:-1, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] +
                      p[2:, 1:-1] + p[:-2, 1:-1])
        nodes.append(('stencil', 's%d' % k, nodes[-1][1], 'nearest', 0,
                      '_ n _; w c e; _ s _', '0.2*(c + w + e + s + n)'))
    nodes.append(('map', 'm', 'img', '-', 'x * 2'))
    nodes.append(('stencil', 'ms', 'm', 'reflect', 0, 'a b c', 'a - c'))
    p = np.pad(img * 2, ((0, 0), (1, 1)), mode='symmetric')
    check_everywhere(nodes, {'img': img}, {'s2': want, 'ms': p[:, :-2] -
                                           p[:, 2:]}, rtol=1e-12)


def case_iterated_stencil():
    """iterations=4 of a Jacobi step: the bytes of four stencil nodes in
    a row (themselves numpy's repeated step, with arrays bound too); the
    output shrinks by 3 halos with valid and 3 iterations; 0 iterations
    is refused when the node is added."""
    img = rng(9).standard_normal((37, 29))
    step = ('_ n _; w c e; _ s _', '0.2*(c + w + e + s + n)')
    want = img
    for _ in range(4):
        p = np.pad(want, 1, mode='edge')
        want = 0.2 * (p[1:-1, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] +
                      p[2:, 1:-1] + p[:-2, 1:-1])
    chained = [('source', 'img', 2, '-')]
    prev = 'img'
    for k in range(4):
        chained.append(('stencil', 's%d' % k, prev, 'nearest', 0) + step)
        prev = 's%d' % k
    got, _, _, _ = compute(chained, {'img': img}, ['s3'], 'array', 'cpu')
    iterated = [('source', 'img', 2, '-'),
                ('stencil', 'j', 'img', 'nearest', 0) + step + (4,)]
    check_everywhere(iterated, {'img': img}, {'j': got['s3']})
    assert_same(got['s3'], want, 'four Jacobi steps', rtol=1e-12)
    # wrap reads the last rows of the bound array or file out of order,
    # 3 times the window's.
    periodic = img
    for _ in range(3):
        p = np.pad(periodic, 1, mode='wrap')
        periodic = 0.2 * (p[1:-1, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] +
                          p[2:, 1:-1] + p[:-2, 1:-1])
    wrap = [('source', 'img', 2, '-'),
            ('stencil', 'w', 'img', 'wrap', 0) + step + (3,)]
    check_everywhere(wrap, {'img': img}, {'w': periodic}, rtol=1e-12,
                     modes=['array', 'file'])
    valid = [('source', 'img', 2, '-'),
             ('stencil', 'v', 'img', 'valid', 0) + step + (3,)]
    check_everywhere(valid, {'img': img}, {'v': valid_steps(img, 3)},
                     rtol=1e-12, modes=['array'])
    d = tmpdir()
    _, _, _, err = run_graph([('source', 'img', 2, '-'),
                              ('stencil', 'z', 'img', 'nearest', 0) + step +
                              (0,)], d, expect_ok=False)
    if "stencil 'z'" not in err or 'iterations' not in err:
        raise Failure('0 iterations: %r' % err)


def valid_steps(a, n):
    for _ in range(n):
        a = 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] +
                   a[2:, 1:-1] + a[:-2, 1:-1])
    return a


def polybench_jacobi_2d(n, tsteps):
    """PolyBench's jacobi-2d run by its C loops (tests/pipelines/
    jacobi_ref.c): the final A."""
    exe = os.environ.get('PLAN_JACOBI_REF')
    if not exe:
        raise Failure('PLAN_JACOBI_REF is not set (meson sets it)')
    out = os.path.join(tmpdir(), 'ref.npy')
    subprocess.run([exe, '2d', str(n), str(tsteps), out], check=True)
    return np.load(out)


def case_polybench_jacobi_2d():
    """PolyBench's jacobi-2d as a plan, byte for byte its C loops: each
    half step is a stencil over the whole array with NaN outside
    (cval=nan), which makes the edges NaN and leaves the interior exact,
    then a map that keeps the array's own edges (never written by the
    kernel: A's and B's initial values) where the stencil gave NaN."""
    n, tsteps = 30, 20
    i, j = np.mgrid[0:n, 0:n].astype(np.float64)
    a0 = (i * (j + 2) + 2) / n
    b0 = (i * (j + 3) + 3) / n
    nodes = [('source', 'A', 2, 'float64'), ('source', 'B', 2, 'float64')]
    cur = 'A'
    for t in range(tsteps):
        for half, keep in (('b', 'B'), ('a', 'A')):
            nodes.append(('stencil', 's%s%d' % (half, t), cur, 'constant',
                          'nan', '_ n _; w c e; _ s _',
                          '0.2 * (c + w + e + s + n)'))
            cur = '%s%d' % (half, t)
            nodes.append(('map', cur, 's%s%d,%s' % (half, t, keep), '-',
                          'where(isnan(x), y, x)'))
    want = polybench_jacobi_2d(n, tsteps)
    for mode in ('array', 'file'):
        for target in ('cpu', 'sim'):
            got, _, _, _ = compute(nodes, {'A': a0, 'B': b0}, [cur], mode,
                                   target)
            if got[cur].tobytes() != want.tobytes():
                raise Failure('jacobi-2d (%s, %s): %d values differ from '
                              'the C loops' % (mode, target, np.count_nonzero(
                                  got[cur] != want)))


def case_fused_chain():
    """map -> map -> sum and map -> map fuse into one element each; the
    results are bit-identical to the unfused pipeline and to numpy's
    elementwise values."""
    r = rng(5)
    a = r.standard_normal(100003).astype(np.float32)
    b = r.standard_normal(100003).astype(np.float32)
    nodes = [('source', 'a', 1, '-'), ('source', 'b', 1, '-'),
             ('map', 'sq', 'a', '-', 'x*x + 1'),
             ('reduce', 'total', 'sq', 'sum', 'all'),
             ('map', 'u', 'b', 'float64', 'x * 0.5'),
             ('map', 'v', 'u,a', '-', 'x - y'),
             ('sink', 'out_v', 'v'), ('sink', 'out_total', 'total')]
    got, kernels, _, _ = compute(nodes, {'a': a, 'b': b},
                                 ['out_v', 'out_total'], 'array', 'cpu')
    unfused, kernels_unfused, _, _ = compute(
        nodes, {'a': a, 'b': b}, ['out_v', 'out_total'], 'array', 'cpu',
        fuse=False)
    if (kernels, kernels_unfused) != (2, 4):
        raise Failure('kernels: %d fused and %d unfused, expected 2 and 4' %
                      (kernels, kernels_unfused))
    for name in got:
        if got[name].tobytes() != unfused[name].tobytes():
            raise Failure('%s: fused and unfused differ' % name)
    assert_same(got['out_v'], (b * 0.5).astype(np.float64) - a, 'out_v')
    want = np.sum((a * a + 1).astype(np.float64))
    assert_same(got['out_total'], np.float32(want), 'out_total', rtol=1e-6)


def case_example():
    """The design's example, in memory, on files and through readers and a
    writer, on the CPU and the simulated device."""
    r = rng(6)
    a = r.standard_normal(12345).astype(np.float32)
    b = r.standard_normal(12345).astype(np.float32)
    for target, env in TARGETS:
        for mode in ('memory', 'files', 'io'):
            d = tmpdir()
            pa, pb = save(d, 'a', a), save(d, 'b', b)
            p = subprocess.run([EXAMPLE, mode, 'auto' if target == 'sim' else
                                'cpu', pa, pb, d], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=120,
                               env=dict(os.environ, **env))
            if p.returncode != 0:
                raise Failure('plan-example %s %s: %s' % (mode, target,
                                                          p.stderr))
            what = 'example %s %s' % (mode, target)
            f = (np.fromfile(os.path.join(d, 'f.raw'), dtype=np.float32)
                 if mode == 'io' else np.load(os.path.join(d, 'f.npy')))
            assert_same(f, a + b, what + ' f')
            # the Python example's meaning: op=sum (exactly rounded) and
            # boundary=reflect (row -1 is row 0)
            assert_same(np.load(os.path.join(d, 'g.npy')),
                        np.float32(math.fsum(a.astype(np.float64))),
                        what + ' g')
            assert_same(np.load(os.path.join(d, 'h.npy')),
                        b + np.concatenate([b[:1], b[:-1]]), what + ' h')


def case_launch_string_round_trip():
    """plan_work_to_launch_string() of a work dispatched on files runs with
    gst-launch-1.0 and computes the same files."""
    r = rng(7)
    a = r.standard_normal((5000, 2)).astype(np.float32)
    d = tmpdir()
    nodes = [('source', 'a', 2, '-'), ('map', 'm', 'a', '-', 'x*x + 1'),
             ('reduce', 's', 'm', 'sum', '0'), ('sink', 'f', 's'),
             ('stencil', 't', 'a', 'reflect', 0, 'l c r', 'l + c + r'),
             ('sink', 'g', 't'), ('realize', 'cpu', 'fuse'),
             ('file', 'a', save(d, 'a', a)),
             ('file', 'f', os.path.join(d, 'f.npy')),
             ('file', 'g', os.path.join(d, 'g.npy'))]
    _, launch, _, _ = run_graph(nodes, d)
    f, g = np.load(os.path.join(d, 'f.npy')), np.load(os.path.join(d, 'g.npy'))
    os.remove(os.path.join(d, 'f.npy'))
    os.remove(os.path.join(d, 'g.npy'))
    plantest.launch(*shlex.split(launch))
    assert_same(np.load(os.path.join(d, 'f.npy')), f, 'f from the launch string')
    assert_same(np.load(os.path.join(d, 'g.npy')), g, 'g from the launch string')
    assert_same(f, np.sum((a * a + 1).astype(np.float64), axis=0).astype(
        np.float32), 'f', rtol=1e-6)


def case_writer_and_progress():
    r = rng(8)
    a = r.integers(0, 1000, (3001, 5)).astype(np.int16)
    d = tmpdir()
    raw = os.path.join(d, 'out.raw')
    nodes = [('source', 'a', 2, 'int16'), ('map', 'm', 'a', '-', 'x * 2'),
             ('realize', 'cpu', 'fuse'), ('array', 'a', save(d, 'a', a)),
             ('writer', 'm', raw)]
    _, _, progress, _ = run_graph(nodes, d)
    assert_same(np.fromfile(raw, dtype=np.int16).reshape(-1, 5), a * 2,
                'the writer\'s rows')
    if progress != '3001 3001':
        raise Failure('progress %r, expected 3001 of 3001 rows' % progress)


def case_errors_at_dispatch():
    d = tmpdir()
    a = save(d, 'a', np.zeros(10, np.float32))
    b = save(d, 'b', np.zeros(12, np.float32))
    c = save(d, 'c', np.zeros(10, np.int32))
    c8 = save(d, 'c8', np.zeros(10, np.int8))
    m = [('source', 'a', 1, '-'), ('source', 'b', 1, '-'),
         ('map', 'm', 'a,b', '-', 'x + y'), ('realize', 'cpu', 'fuse')]
    for lines, message in [
            (m + [('array', 'a', a), ('array', 'b', b)],
             "map 'm': its inputs must have the same number of rows"),
            (m + [('array', 'a', a)], "source 'b' is not bound"),
            (m + [('array', 'a', a), ('array', 'b', a), ('array', 'q', a)],
             "'q' is bound but is neither an input nor an output"),
            (m + [('array', 'a', a), ('array', 'b', a), ('array', 'm', c)],
             "output 'm' is float32 of shape (10,), but it is bound to an "
             "int32 array"),
            ([('source', 'a', 2, '-'), ('map', 'm', 'a', '-', 'x'),
              ('realize', 'cpu', 'fuse'), ('array', 'a', a)],
             "source 'a': it takes arrays of 2 axes"),
            ([('source', 'a', 1, 'int32'), ('map', 'm', 'a', '-', 'x'),
              ('realize', 'cpu', 'fuse'), ('array', 'a', a)],
             "source 'a': it takes int32 but is bound to float32 data"),
            ([('source', 'a', 1, '-'), ('map', 'm', 'a', '-', 'x'),
              ('realize', 'cpu', 'fuse'),
              ('file', 'a', os.path.join(d, 'missing.npy'))],
             "source 'a': Could not open"),
            ([('source', 'a', 1, '-'), ('map', 'm', 'a', '-', 'x + 300'),
              ('realize', 'cpu', 'fuse'), ('array', 'a', c8)],
             "map 'm': column 5: the literal 300 is out of range for int8")]:
        _, _, _, err = run_graph(lines, d, expect_ok=False)
        if message not in err:
            raise Failure('expected %r in the error, got %r' % (message, err))


def case_errors_at_run():
    """A run that fails surfaces in wait with the element's message and the
    node's name: inputs of different lengths behind readers (known only at
    the end), and a disk that fills up under planfilesink."""
    d = tmpdir()
    a = save(d, 'a', np.zeros(100, np.float32))
    b = save(d, 'b', np.zeros(90, np.float32))
    lines = [('source', 'a', 1, '-'), ('source', 'b', 1, '-'),
             ('map', 'm', 'a,b', '-', 'x + y'), ('realize', 'cpu', 'fuse'),
             ('reader', 'a', a, 7), ('reader', 'b', b, 7)]
    _, _, _, err = run_graph(lines, d, expect_ok=False)
    if "node 'm'" not in err or 'different lengths' not in err:
        raise Failure('different lengths: %r' % err)

    failio = os.path.join(BUILD, 'tests', 'pipelines', 'libfailio.so')
    big = save(d, 'big', np.arange(1 << 20, dtype=np.float32))
    out = os.path.join(d, 'out.npy')
    lines = [('source', 'a', 1, '-'), ('map', 'm', 'a', '-', 'x + 1'),
             ('sink', 'f', 'm'), ('realize', 'cpu', 'fuse'),
             ('file', 'a', big), ('file', 'f', out)]
    # The file written: unnamed (O_TMPFILE) or the fallback's '.part'.
    env = {'PLAN_FAIL_MATCH': '.part|(deleted)', 'PLAN_FAIL_WRITE': '28',
           'PLAN_FAIL_FALLOCATE': '28', 'PLAN_FAIL_AFTER': str(1 << 20)}
    _, _, _, err = run_graph(lines, d, env, expect_ok=False, preload=failio)
    if "node 'f'" not in err or 'No space left on device' not in err:
        raise Failure('disk full: %r' % err)
    if os.path.exists(out) or any(n.endswith('.part') for n in os.listdir(d)):
        raise Failure('disk full: files left: %s' % os.listdir(d))


def case_cancel_leaves_no_file():
    """Cancelling a 1 GiB file job in the middle leaves no output and no
    temporary file."""
    d = tmpdir()
    src = os.path.join(d, 'big.npy')
    big = np.lib.format.open_memmap(src, mode='w+', dtype=np.float32,
                                    shape=(1 << 28,))
    big[:] = 1.0
    del big
    out = os.path.join(d, 'out.npy')
    lines = [('source', 'a', 1, '-'),
             ('map', 'm', 'a', '-', 'sin(x) * cos(x) + exp(x * 0.01)'),
             ('sink', 'f', 'm'), ('realize', 'cpu', 'fuse'),
             ('file', 'a', src), ('file', 'f', out), ('cancel', 5000000)]
    _, _, progress, err = run_graph(lines, d, expect_ok=False)
    if 'cancelled' not in err:
        raise Failure('cancel: %r' % err)
    done, total = (int(x) for x in progress.split())
    if not 0 < done < total:
        raise Failure('cancel: progress %s is not in the middle' % progress)
    left = [n for n in os.listdir(d) if n != 'big.npy']
    if left:
        raise Failure('cancel left files: %s' % left)


if __name__ == '__main__':
    if not os.access(RUNNER, os.X_OK):
        print('skip: %s was not built' % RUNNER)
        sys.exit(77)
    run_cases([
        ('map in every mode and target', case_map),
        ('map with a cast and five inputs', case_map_cast_and_long_names),
        ('reductions', case_reductions),
        ('constants and broadcasting', case_constants_and_broadcasting),
        ('ddof', case_ddof),
        ('constant and ddof errors', case_constant_errors),
        ('stencils against scipy', case_stencils),
        ('stencil after stencil or map', case_stencil_after_stencil),
        ('iterated stencil', case_iterated_stencil),
        ('PolyBench jacobi-2d', case_polybench_jacobi_2d),
        ('fused chains: fewer elements, same bytes', case_fused_chain),
        ('the design\'s example', case_example),
        ('launch string round trip', case_launch_string_round_trip),
        ('chunk writer and progress', case_writer_and_progress),
        ('errors at dispatch', case_errors_at_dispatch),
        ('errors while running', case_errors_at_run),
        ('cancel a 1 GiB job', case_cancel_leaves_no_file),
    ])
