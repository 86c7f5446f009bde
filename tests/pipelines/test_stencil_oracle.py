#!/usr/bin/python3
"""planstencil against scipy.ndimage and numpy, property style: random
windows (odd, one cell wide, asymmetric, scipy's even windows and origins,
correlate and convolve), 1-D, 2-D and 3-D arrays of every dtype, arrays
shorter than the window, single rows, every boundary mode, cval, integer
overflow and result dtypes, NaN and inf, iterations, and chunk sizes from
one row to bytes that split rows, each against the whole-array result.

Two oracles:
- numpy, computing the expression as written on views of the array padded
  by scipy's rules (an index map of its own, not np.pad): the same bits
  (docs/planstencil.md promises numpy's bits for the same sums of slices,
  float16 and complex included; NaN matches NaN);
- scipy.ndimage (correlate, convolve, maximum_filter, generic_filter) in
  float64, which sums in its own order: within 16 ulps of the sum of the
  magnitudes; integers exactly where nothing overflows.

Many stencils run in one pipeline (independent branches of one
plan-launch) to keep the test short. PLAN_ORACLE_SEED=N and
PLAN_ORACLE_CASES=M run M random cases from seed N (default: a fixed set
that runs in well under a minute), with PLAN_ORACLE_DEVICE=sim through
planupload on the sim device."""
import os
import sys

import numpy as np
from scipy import ndimage

np.seterr(all="ignore")  # overflow and NaN are what the cases check

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import (Failure, assert_same, expect_error, launch,  # noqa: E402
                      run_cases, tmpdir)

MODES = ['constant', 'nearest', 'reflect', 'mirror', 'wrap']
INTS = ['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32',
        'uint64']
FLOATS = ['float16', 'float32', 'float64']
COMPLEX = ['complex64', 'complex128']


# ----------------------------------------------------------------- oracle

def map_index(i, n, mode):
    """scipy.ndimage's rule for the index i (an array) of an axis of n
    elements; -1 for a cell outside with mode constant."""
    if mode == 'constant':
        return np.where((i >= 0) & (i < n), i, -1)
    if mode == 'nearest':
        return np.clip(i, 0, n - 1)
    if mode == 'wrap':
        return np.mod(i, n)
    if mode == 'reflect':             # d c b a | a b c d | d c b a: period 2n
        j = np.mod(i, 2 * n)
        return np.where(j >= n, 2 * n - 1 - j, j)
    if mode == 'mirror':              # d c b | a b c d | c b a: period 2n - 2
        if n == 1:
            return np.zeros_like(i)
        j = np.mod(i, 2 * n - 2)
        return np.where(j >= n, 2 * n - 2 - j, j)
    raise ValueError(mode)


def cval_as(cval, dtype):
    """The constant converted as docs/planstencil.md says: integers
    truncated toward zero and clamped, NaN 0; floats rounded to nearest;
    complex: the real part."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return np.bool_(cval != 0)
    if dt.kind in 'iu':
        if np.isnan(cval):
            return dt.type(0)
        info = np.iinfo(dt)
        if cval >= info.max:
            return dt.type(info.max)
        if cval <= info.min:
            return dt.type(info.min)
        return dt.type(int(np.trunc(cval)))
    return np.array(cval).astype(dt)[()]


def padded(a, halo, mode, cval):
    """a padded by halo[k] along its last len(halo) axes."""
    k0 = a.ndim - len(halo)
    for k, h in enumerate(halo):
        if h == 0:
            continue
        ax = k0 + k
        n = a.shape[ax]
        idx = map_index(np.arange(-h, n + h), n, mode)
        out = np.take(a, np.maximum(idx, 0), axis=ax)
        if mode == 'constant':
            sl = [slice(None)] * a.ndim
            sl[ax] = idx < 0
            out[tuple(sl)] = cval_as(cval, a.dtype)
        a = out
    return a


def cell_views(a, offsets, halo, mode, cval):
    """For each offset (per window axis), the array of that cell for every
    output: views of the padded array (mode 'valid': of the array)."""
    nd = len(halo)
    if mode == 'valid':
        p, start, out_shape = a, halo, [
            a.shape[a.ndim - nd + k] - 2 * halo[k] for k in range(nd)]
    else:
        p, start = padded(a, halo, mode, cval), halo
        out_shape = list(a.shape[a.ndim - nd:])
    views = []
    for off in offsets:
        sl = [slice(None)] * (a.ndim - nd)
        for k in range(nd):
            b = start[k] + off[k]
            sl.append(slice(b, b + out_shape[k]))
        views.append(p[tuple(sl)])
    return views


def eval_linear(views, weights, dtype):
    """sum w*v in the order of the expression; weights are weak integer
    literals (they take the cells' dtype, NEP 50)."""
    t = np.dtype(dtype).type
    acc = None
    for v, w in zip(views, weights):
        term = v if abs(w) == 1 else t(abs(w)) * v
        if acc is None:
            acc = -term if w < 0 else term
        else:
            acc = acc - term if w < 0 else acc + term
    return acc


# ------------------------------------------------------------ the windows

def picture(cells, radius):
    """The window picture naming cells {offset: name}, radius per axis
    (1 to 3 axes: row, rows, planes)."""
    nd = len(radius)
    shape = [2 * r + 1 for r in radius]
    grid = np.full(shape, '_', dtype=object)
    for off, name in cells.items():
        grid[tuple(o + r for o, r in zip(off, radius))] = name
    if nd == 1:
        return ' '.join(grid)
    if nd == 2:
        return '; '.join(' '.join(row) for row in grid)
    return ' | '.join('; '.join(' '.join(row) for row in plane)
                      for plane in grid)


def linear_expr(names, weights):
    terms = []
    for i, (n, w) in enumerate(zip(names, weights)):
        t = n if abs(w) == 1 else '%d*%s' % (abs(w), n)
        if i == 0:
            terms.append('-(%s)' % t if w < 0 else t)
        else:
            terms.append(('- ' if w < 0 else '+ ') + t)
    return ' '.join(terms)


def scipy_offsets(weights, origin, convolve):
    """The cells scipy.ndimage.correlate (or convolve) reads for weights of
    any size and origin: [(offset, weight)] over the nonzero weights."""
    w = np.asarray(weights)
    origin = list(origin)
    if convolve:
        # convolve is correlate with the weights reversed and the origin
        # negated, moved by one along even axes (scipy's _correlate_or_convolve)
        w = w[(slice(None, None, -1),) * w.ndim]
        origin = [-o - (1 - s % 2) for o, s in zip(origin, w.shape)]
    centre = [s // 2 + o for s, o in zip(w.shape, origin)]
    cells = []
    for j in np.ndindex(*w.shape):
        if w[j] != 0:
            cells.append((tuple(jj - c for jj, c in zip(j, centre)),
                          int(w[j])))
    return cells


class Stencil:
    """One stencil case: the cells, the array, the element's settings."""

    def __init__(self, a, cells, mode, cval=0.0, iterations=1,
                 block=None, expr_kind='linear', what=''):
        self.a = a
        self.cells = cells                      # [(offset, weight)]
        self.mode = mode
        self.cval = cval
        self.iterations = iterations
        self.block = block                      # bytes per buffer
        self.expr_kind = expr_kind
        nd = len(cells[0][0])
        self.radius = [max(abs(c[0][k]) for c in cells) for k in range(nd)]
        self.names = ['c%d' % i for i in range(len(cells))]
        self.window = picture({c[0]: n for c, n in zip(cells, self.names)},
                              self.radius)
        weights = [c[1] for c in cells]
        if expr_kind == 'linear':
            self.expr = linear_expr(self.names, weights)
        elif expr_kind == 'mean':               # int: wraps, then float64
            self.expr = '(%s) / %d' % (' + '.join(self.names), len(cells))
        elif expr_kind == 'max':
            e = self.names[0]
            for n in self.names[1:]:
                e = 'max(%s, %s)' % (e, n)
            self.expr = e
        elif expr_kind == 'poly':               # c0*c1 - c2 (+ ...)
            self.expr = ' - '.join(['%s*%s' % tuple(self.names[:2])] +
                                   self.names[2:])
        self.what = '%s %s %s window "%s" expr "%s" boundary=%s cval=%r ' \
            'iterations=%d blocksize=%s' % (
                what, a.dtype, a.shape, self.window, self.expr, mode, cval,
                iterations, block)

    def once(self, a):
        """One application by numpy."""
        offs = [c[0] for c in self.cells]
        views = cell_views(a, offs, self.radius, self.mode, self.cval)
        if self.expr_kind == 'linear':
            return eval_linear(views, [c[1] for c in self.cells], a.dtype)
        if self.expr_kind == 'mean':
            s = views[0]
            for v in views[1:]:
                s = s + v
            return s / a.dtype.type(len(views))
        if self.expr_kind == 'max':
            m = views[0]
            for v in views[1:]:
                m = np.maximum(m, v)
            return m
        if self.expr_kind == 'poly':
            r = views[0] * views[1]
            for v in views[2:]:
                r = r - v
            return r
        raise ValueError(self.expr_kind)

    def numpy(self):
        r = self.a
        for _ in range(self.iterations):
            r = self.once(r)
        return r

    def words(self, d, i, device=False, threads=0):
        np.save('%s/in%d.npy' % (d, i), self.a)
        w = ['planfilesrc', 'location=%s/in%d.npy' % (d, i)]
        if self.block:
            w.append('blocksize=%d' % self.block)
        w += ['!'] + (['planupload', '!'] if device else [])
        w += ['planstencil', 'window=%s' % self.window,
              'expr=%s' % self.expr, 'boundary=%s' % self.mode,
              'cval=%r' % float(self.cval),
              'iterations=%d' % self.iterations,
              'target=%s' % ('cuda' if device else 'cpu'),
              'n-threads=%d' % threads, '!']
        w += (['plandownload', '!'] if device else [])
        w += ['planfilesink', 'location=%s/out%d.npy' % (d, i)]
        return w


def run_all(stencils, per_launch=40, device=False, threads=0):
    """Runs every stencil, many per pipeline; returns their outputs.
    device: through planupload on the sim device (GST_PLAN_DEVICE=sim,
    the CUDA kernel's index arithmetic run on the host)."""
    d = tmpdir()
    outs = []
    old = os.environ.get('GST_PLAN_DEVICE')
    if device:
        os.environ['GST_PLAN_DEVICE'] = 'sim'
    try:
        for s0 in range(0, len(stencils), per_launch):
            words = []
            batch = range(s0, min(s0 + per_launch, len(stencils)))
            for i in batch:
                words += stencils[i].words(d, i, device, threads)
            try:
                launch(*words, timeout=300)
            except Failure:
                # find the one that fails, and say which
                for i in batch:
                    try:
                        launch(*stencils[i].words(d, i, device, threads))
                    except Failure as e:
                        raise Failure('%s: %s' % (stencils[i].what, e))
                raise
            outs += [np.load('%s/out%d.npy' % (d, i)) for i in batch]
    finally:
        if device:
            if old is None:
                del os.environ['GST_PLAN_DEVICE']
            else:
                os.environ['GST_PLAN_DEVICE'] = old
    return outs


# -------------------------------------------------------- case generation

def random_array(dtype, shape, rng, special=False):
    """Full-range integers (overflow on every sum); floats of mixed
    magnitudes, with NaN, inf and -inf sprinkled in when special."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dt.kind in 'iu':
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, size=shape, dtype=dt,
                            endpoint=True)
    if dt.kind == 'c':
        real = 'float%d' % (dt.itemsize * 4)
        z = np.empty(shape, dt)
        z.real = random_array(real, shape, rng, special)
        z.imag = random_array(real, shape, rng, special)
        return z
    a = (rng.standard_normal(shape) *
         10.0 ** rng.integers(-2, 3, size=shape)).astype(dt)
    if special and a.size:
        flat = a.reshape(-1)
        k = max(1, a.size // 10)
        flat[rng.integers(0, a.size, k)] = np.nan
        flat[rng.integers(0, a.size, k)] = np.inf
        flat[rng.integers(0, a.size, k)] = -np.inf
    return a


def random_cells(rng, nd, radius_max=3, even=False):
    """Random scipy weights of nd axes (odd or even sizes, origins within
    scipy's limits, correlate or convolve) as the cells they read."""
    while True:
        shape = []
        for _ in range(nd):
            s = int(rng.integers(1, 2 * radius_max + 1))
            if even and s % 2:
                s = s + 1 if s < 2 * radius_max else s - 1
            shape.append(s)
        w = rng.integers(-3, 4, size=shape)
        if not np.any(w):
            continue
        # scipy: -(s // 2) <= origin <= (s - 1) // 2
        origin = [int(rng.integers(-(s // 2), (s - 1) // 2 + 1))
                  for s in shape]
        conv = bool(rng.integers(0, 2))
        cells = scipy_offsets(w, origin, conv)
        if max(abs(o) for c in cells for o in c[0]) <= radius_max:
            return cells, w, origin, conv


SHAPES = {1: [(1,), (2,), (5,), (17,), (64,)],
          2: [(1, 9), (9, 1), (3, 2), (12, 7), (16, 16)],
          3: [(1, 1, 4), (2, 3, 4), (5, 4, 6), (6, 5, 3)],
          4: [(2, 3, 4, 5), (3, 1, 2, 4)]}


def draw_case(rng, i):
    nd = int(rng.integers(1, 4))
    # a window runs along the last axes of arrays of more axes: each row,
    # each plane, each volume separately
    ndim = nd + int(rng.integers(0, 2))
    shape = SHAPES[ndim][int(rng.integers(0, len(SHAPES[ndim])))]
    kind = rng.choice(['int', 'float', 'complex', 'bool'],
                      p=[0.42, 0.38, 0.14, 0.06])
    pool = {'int': INTS, 'float': FLOATS, 'complex': COMPLEX,
            'bool': ['bool']}[kind]
    dtype = pool[int(rng.integers(0, len(pool)))]
    radius_max = [[3, 9][int(rng.integers(0, 2))], 3, 1][nd - 1]
    cells, w, origin, conv = random_cells(
        rng, nd, radius_max, even=bool(rng.integers(0, 2)))
    mode = ['constant', 'nearest', 'reflect', 'mirror', 'wrap',
            'valid'][int(rng.integers(0, 6))]
    radius = [max(abs(c[0][k]) for c in cells) for k in range(nd)]
    if mode == 'valid' and any(shape[len(shape) - nd + k] < 2 * r + 1
                               for k, r in enumerate(radius)):
        mode = 'wrap'
    cval = float(rng.choice([0.0, 2.0, -1.5, 7.75, 1e3, np.nan, np.inf,
                             -np.inf, 0.1, -0.0, 1e300, 2.0**63, 2.0**64,
                             -2.0**63 - 4096,
                             # float16 from the double, not through float32
                             1 + 2.0**-11 + 2.0**-40]))
    a = random_array(dtype, shape, rng, special=bool(rng.integers(0, 3) == 0))
    row = a.itemsize * int(np.prod(shape[1:]))
    block = [None, row, 2 * row, 3 * row + a.itemsize,
             row * 5 - a.itemsize, a.itemsize][int(rng.integers(0, 6))]
    if block is not None and block <= 0:
        block = None
    iterations = 1
    if rng.integers(0, 4) == 0 and np.dtype(dtype).kind != 'c':
        iterations = int(rng.integers(2, 4))
        if mode == 'valid' and any(
                shape[len(shape) - nd + k] < iterations * 2 * r + 1
                for k, r in enumerate(radius)):
            mode = 'nearest'
    what = 'case %d: %s weights %s origin %s' % (
        i, 'convolve' if conv else 'correlate', w.tolist(), origin)
    kind = ['linear', 'linear', 'linear', 'mean', 'max',
            'poly'][int(rng.integers(0, 6))]
    if kind == 'poly' and len(cells) < 3:
        kind = 'linear'
    if kind == 'max' and a.dtype.kind == 'c':
        kind = 'linear'     # complex numbers have no order: an error
    if a.dtype == np.bool_:
        # + is or, max is or; cval is cval != 0 (NaN: True)
        cells = [(c[0], 1) for c in cells]
        kind = 'linear' if kind == 'linear' else 'max'
    return Stencil(a, cells, mode, cval, iterations, block, kind, what)


# ---------------------------------------------------------------- checks

def check_numpy(s, got):
    want = s.numpy()
    assert_same(got, want, s.what)


def check_scipy_linear(s, got):
    """float64 scipy.ndimage.correlate with the cells' weights (scipy reads
    them as the picture does): within rounding for floats, exactly for
    integers where no sum leaves the dtype's range."""
    if (s.mode == 'valid' or s.iterations != 1 or s.expr_kind != 'linear'
            or s.a.dtype == np.bool_):
        return
    nd = len(s.radius)
    if s.mode == 'reflect' and any(
            r > 3 * s.a.shape[s.a.ndim - nd + k]
            for k, r in enumerate(s.radius)):
        return      # scipy's own reflect is wrong there (docs/planstencil.md)
    nd = len(s.radius)
    w = np.zeros([2 * r + 1 for r in s.radius])
    for off, k in s.cells:
        w[tuple(o + r for o, r in zip(off, s.radius))] = k
    w = w.reshape((1,) * (s.a.ndim - nd) + w.shape)
    a = s.a
    if a.dtype.kind == 'c':
        if not np.all(np.isfinite(a)):
            return
        want = (ndimage.correlate(a.real.astype(np.float64), w, mode=s.mode,
                                  cval=s.cval) +
                1j * ndimage.correlate(a.imag.astype(np.float64), w,
                                       mode=s.mode, cval=0.0))
        if np.isnan(s.cval):
            return
    else:
        if a.dtype.kind == 'f' and not np.all(np.isfinite(a)):
            return
        cval = float(cval_as(s.cval, a.dtype).real)
        if not np.isfinite(cval):
            return
        want = ndimage.correlate(a.astype(np.float64), w, mode=s.mode,
                                 cval=cval)
    if a.dtype.kind in 'iu':
        info = np.iinfo(a.dtype)
        # scipy sums in float64: exact below 2**53
        exact = np.abs(a.astype(np.float64)).max() * np.abs(w).sum() < 2.0**53
        fits = np.all((want >= info.min) & (want <= info.max))
        if exact and fits:
            assert_same(got, want.astype(a.dtype), s.what + ' (scipy)')
        return
    scale = np.abs(w).sum() * max(np.abs(a).max(initial=0),
                                  abs(float(np.real(cval_as(s.cval,
                                                            a.dtype)))))
    eps = np.finfo(got.dtype).eps
    bad = np.abs(got.astype(np.complex128) - want) > 16 * eps * scale
    if np.any(bad):
        j = tuple(np.argwhere(bad)[0])
        raise Failure('%s (scipy): %d values differ, first at %s: got %r, '
                      'scipy %r' % (s.what, np.count_nonzero(bad), list(j),
                                    got[j], want[j]))


def case_random(seed, n, device=False):
    def run():
        rng = np.random.default_rng(seed)
        stencils = [draw_case(rng, i) for i in range(n)]
        outs = run_all(stencils, device=device)
        for s, got in zip(stencils, outs):
            check_numpy(s, got)
            check_scipy_linear(s, got)
    return run


def case_modes_scipy():
    """Each mode against scipy directly (correlate and convolve), float64,
    odd, even and one-wide weights, arrays shorter than the window: the
    index map the numpy oracle uses is scipy's."""
    def run():
        rng = np.random.default_rng(11)
        stencils, wants = [], []
        for mode in MODES:
            for n, weights, origin, conv in [
                    (9, [1, 2, 3], 0, False), (9, [1, 2, 3], 0, True),
                    (9, [4, -1], 0, False), (9, [4, -1], 0, True),
                    (9, [1, 2, 3, 4], -1, True), (9, [5], 0, False),
                    (2, [1, 2, 3, 4, 5, 6, 7], 0, False),
                    (3, [1, -2, 3, 5, 7, 2, 1], 2, True),
                    (1, [1, 2, 3, 4, 5], 0, False)]:
                a = rng.standard_normal(n)
                cells = scipy_offsets(np.array(weights), [origin], conv)
                stencils.append(Stencil(a, cells, mode, 1.25,
                                        what='%s %s' % (
                                            'convolve' if conv else
                                            'correlate', weights)))
                f = ndimage.convolve1d if conv else ndimage.correlate1d
                wants.append(f(a, weights, mode=mode, cval=1.25,
                               origin=origin))
            a2 = rng.standard_normal((6, 5))
            w2 = rng.integers(-3, 4, size=(2, 3))
            for conv in (False, True):
                cells = scipy_offsets(w2, [0, 1], conv)
                stencils.append(Stencil(a2, cells, mode, -2.0,
                                        what='2-D %s' % conv))
                f = ndimage.convolve if conv else ndimage.correlate
                wants.append(f(a2, w2.astype(float), mode=mode, cval=-2.0,
                               origin=[0, 1]))
        outs = run_all(stencils)
        for s, got, want in zip(stencils, outs, wants):
            scale = 30 * np.abs(s.a).max() + 10
            if np.any(np.abs(got - want) > 1e-13 * scale):
                raise Failure('%s: got %s, scipy %s' % (s.what, got, want))
            assert_same(got, s.numpy(), s.what + ' (numpy)')
    return run


def case_filters():
    """maximum_filter and generic_filter with footprints, max over the
    cells and a polynomial of them; the mean of an integer window (sums
    that wrap, then float64 division, numpy's result dtype)."""
    def run():
        rng = np.random.default_rng(5)
        stencils, wants = [], []
        fp = np.array([[0, 1, 1], [1, 1, 0], [0, 1, 0]], bool)
        cells = [((j[0] - 1, j[1] - 1), 1) for j in np.ndindex(3, 3) if fp[j]]
        for mode in MODES:
            a = rng.standard_normal((11, 8))
            stencils.append(Stencil(a, cells, mode, 0.5, expr_kind='max',
                                    what='maximum_filter'))
            wants.append(ndimage.maximum_filter(a, footprint=fp, mode=mode,
                                                cval=0.5))
            stencils.append(Stencil(a, cells, mode, 0.5, block=8 * 8 * 3,
                                    expr_kind='poly',
                                    what='generic_filter'))
            wants.append(ndimage.generic_filter(
                a, lambda v: v[0] * v[1] - v[2] - v[3] - v[4], footprint=fp,
                mode=mode, cval=0.5))
            for dt in ('int8', 'uint16', 'int64'):
                ai = random_array(dt, (7, 9), rng)
                stencils.append(Stencil(ai, cells, mode, 3.0,
                                        block=ai.itemsize * 9 * 2,
                                        expr_kind='mean', what='mean'))
                wants.append(None)
        outs = run_all(stencils)
        for s, got, want in zip(stencils, outs, wants):
            check_numpy(s, got)
            if want is not None:
                assert_same(got, want, s.what + ' (scipy)', rtol=1e-15)
    return run


def case_iterations_scipy():
    """iterations=N against N applications of scipy.ndimage.correlate, in
    every mode, with chunks that split rows."""
    def run():
        rng = np.random.default_rng(3)
        w = np.array([[0, 1, 0], [1, -3, 2], [0, 1, 0]], float)
        cells = [((j[0] - 1, j[1] - 1), int(w[j])) for j in np.ndindex(3, 3)
                 if w[j]]
        stencils, wants = [], []
        for mode in MODES:
            for n_it, shape, block in [(2, (9, 7), None), (3, (2, 7), 20),
                                       (4, (13, 3), 8 * 3 * 2 + 8)]:
                a = rng.integers(-50, 50, size=shape).astype(np.float64)
                stencils.append(Stencil(a, cells, mode, 2.0, n_it, block,
                                        what='iterated'))
                r = a
                for _ in range(n_it):
                    r = ndimage.correlate(r, w, mode=mode, cval=2.0)
                wants.append(r)
        outs = run_all(stencils)
        for s, got, want in zip(stencils, outs, wants):
            # small integers in float64: every sum exact, in any order
            assert_same(got, want, s.what + ' (scipy)')
            check_numpy(s, got)
    return run


def case_large():
    """Arrays large enough for the element's fast paths: rows read in
    place with their ends recomputed from padded strips, chunks cut into
    2 MiB host slices, blocks shared between threads (n-threads=2); the
    same bits as numpy, with chunk sizes that split rows."""
    def run():
        rng = np.random.default_rng(8)
        stencils = []
        a1 = random_array('float32', (700001,), rng, special=True)
        a2 = random_array('float64', (611, 733), rng)
        a3 = random_array('int16', (97, 1301), rng)
        a4 = random_array('float32', (40, 30, 70), rng, special=True)
        cells1 = scipy_offsets(np.array([1, -2, 3, 0, 2, 1, -1, 2]), [1],
                               False)
        cells2 = scipy_offsets(rng.integers(-2, 3, (9, 9)), [0, -1], True)
        cells3 = scipy_offsets(np.array([[1, 2, 1], [2, -12, 2], [1, 2, 3]]),
                               [0, 0], False)
        cells4 = scipy_offsets(rng.integers(-2, 3, (3, 3, 3)), [0, 0, 0],
                               False)
        for mode in MODES + ['valid']:
            stencils.append(Stencil(a1, cells1, mode, 1.5,
                                    block=4 * 99991, what='1-D large'))
            stencils.append(Stencil(a2, cells2, mode, -0.5,
                                    block=None if mode != 'wrap' else
                                    8 * 733 * 37 + 8, what='9 x 9 large'))
            stencils.append(Stencil(a3, cells3, mode, 9.0, 2,
                                    block=2 * 1301 * 5 + 6, what='int16'))
            stencils.append(Stencil(a4, cells4, mode, 0.25,
                                    block=4 * 30 * 70 * 3 + 4,
                                    what='27-point'))
            # temporal blocking: pieces of 64 KiB through every application
            stencils.append(Stencil(a1[:300007].astype(np.float64), cells1,
                                    mode, 0.5, 5, block=8 * 65537 + 8,
                                    expr_kind='mean', what='1-D iterated'))
            stencils.append(Stencil(a4, cells4[:7], mode, 0.5, 4,
                                    block=4 * 30 * 70 * 2 + 8,
                                    what='volume iterated'))
        outs = run_all(stencils, per_launch=12, threads=2)
        for s, got in zip(stencils, outs):
            check_numpy(s, got)
    return run


def case_wide():
    """Windows 255 wide and 255 tall (the most a picture draws), sparse,
    on arrays from one element to longer than the window, in every mode,
    on the CPU and the sim device."""
    def run():
        rng = np.random.default_rng(12)
        stencils = []
        for n in (1, 2, 3, 130, 300):
            for mode in MODES + ['valid']:
                if mode == 'valid' and n < 255:
                    continue
                cells = [((-127,), 1), ((-50,), 2), ((0,), -3), ((1,), 1),
                         ((127,), 5)]
                stencils.append(Stencil(rng.standard_normal(n), cells, mode,
                                        0.5, block=8 * 7, what='wide'))
                if mode == 'valid':
                    continue
                a2 = rng.integers(-9, 9, (min(n, 40), 7)).astype(np.int32)
                cells2 = [((-127, 0), 1), ((0, -3), 2), ((0, 0), -3),
                          ((2, 3), 1), ((127, 1), 5)]
                stencils.append(Stencil(a2, cells2, mode, 3,
                                        2 if mode != 'wrap' else 1,
                                        block=4 * 7 * 3 + 4, what='tall'))
        for device in (False, True):
            outs = run_all(stencils, per_launch=10, device=device)
            for s, got in zip(stencils, outs):
                check_numpy(s, got)
                check_scipy_linear(s, got)
    return run


def case_custom_halo():
    """plancustom's halo (the smooth3 example, (x[r-1] + x[r] + x[r+1])
    / 3 along the first axis) on streams shorter than the halo, single
    rows and one-row chunks, in every mode, against numpy on the padded
    array: the same bits."""
    def run():
        build = os.environ.get('PLAN_BUILD_DIR', 'build')
        lib = os.path.join(build, 'tests', 'examples', 'libsmooth3.so')
        if not os.path.exists(lib):
            raise Failure('%s is not built' % lib)
        rng = np.random.default_rng(9)
        d = tmpdir()
        runs = []
        words = []
        for mode in MODES + ['valid']:
            for rows in (1, 2, 3, 7):
                for halo in (1, 2, 5):
                    if mode == 'valid' and rows < 2 * halo + 1:
                        continue
                    a = rng.standard_normal((rows, 3))
                    a[rng.integers(0, rows), 1] = np.nan
                    i = len(runs)
                    np.save('%s/c%d.npy' % (d, i), a)
                    runs.append((a, mode, halo))
                    words += ['planfilesrc', 'location=%s/c%d.npy' % (d, i),
                              'blocksize=%d' % (24 if rows % 2 else 48), '!',
                              'plancustom', 'library=' + lib,
                              'symbol=smooth3', 'halo=%d' % halo,
                              'boundary=' + mode, 'cval=-3.5', '!',
                              'planfilesink',
                              'location=%s/co%d.npy' % (d, i)]
        launch(*words, timeout=300)
        for i, (a, mode, halo) in enumerate(runs):
            got = np.load('%s/co%d.npy' % (d, i))
            # the kernel reads rows r - 1, r, r + 1 of the halo'd data
            if mode == 'valid':
                p = a
                n = a.shape[0] - 2 * halo
            else:
                p = padded(a.T, [halo], mode, -3.5).T
                n = a.shape[0]
            want = (p[halo - 1:halo - 1 + n] + p[halo:halo + n] +
                    p[halo + 1:halo + 1 + n]) / 3
            assert_same(got, want, 'plancustom smooth3 halo=%d boundary=%s '
                        'on %d rows' % (halo, mode, a.shape[0]))
    return run


def run_one(a, window, expr, **props):
    d = tmpdir()
    np.save(d + '/a.npy', a)
    launch('planfilesrc', 'location=%s/a.npy' % d, '!', 'planstencil',
           'window=' + window, 'expr=' + expr,
           *['%s=%s' % (k, v) for k, v in props.items()],
           '!', 'planfilesink', 'location=%s/o.npy' % d)
    return np.load(d + '/o.npy')


def case_documented_differences():
    """The differences from scipy.ndimage that docs/planstencil.md
    ("Against scipy.ndimage") states, with its figures."""
    def run():
        a = np.array([1, 2, 3], np.int16)
        got = run_one(a, 'a b c', 'a + b + c', boundary='constant',
                      cval=-1.5)
        assert_same(got, np.array([2, 6, 4], np.int16), 'int16 cval=-1.5')
        assert_same(ndimage.correlate(a, [1, 1, 1], mode='constant',
                                      cval=-1.5),
                    np.array([1, 6, 3], np.int16), 'scipy int16 cval=-1.5')
        a = np.array([1, 2, 4, 7, -5], np.int16)
        got = run_one(a, 'a b c', '(a + b + c) / 3', boundary='nearest')
        p = np.pad(a, 1, 'edge')
        assert_same(got, (p[:-2] + p[1:-1] + p[2:]) / 3, 'int16 mean')
        assert_same(ndimage.correlate(a, [1 / 3] * 3, mode='nearest'),
                    np.array([1, 2, 4, 1, -1], np.int16), 'scipy mean')
        # a cast truncates as scipy does, but saturates where scipy wraps
        a = np.array([100, 100, 100, -7], np.int8)
        got = run_one(a, 'a b c', 'int8(0.5*a + 0.5*b + 0.5*c)',
                      boundary='nearest')
        assert_same(got, np.array([127, 127, 96, 43], np.int8), 'int8 cast')
        assert_same(ndimage.correlate1d(a, [0.5] * 3, mode='nearest'),
                    np.array([-106, -106, 96, 43], np.int8), 'scipy int8')
        a = np.array([1, np.nan, 3, 0, 5, 2])
        got = run_one(a, 'a b c', 'max(max(a, b), c)', boundary='nearest')
        assert_same(got, np.array([np.nan, np.nan, np.nan, 5, 5, 5]), 'max')
        got = run_one(a, 'a b c', 'fmax(fmax(a, b), c)', boundary='nearest')
        want = ndimage.maximum_filter(a, 3, mode='nearest')
        assert_same(want, np.array([1, 3, 3, 5, 5, 5.0]), 'scipy max')
        assert_same(got, want, 'fmax')
        a = np.array([True, True, True])
        for cval, edge in ((0.0, False), (0.5, True), (np.nan, True)):
            got = run_one(a, 'a b c', 'a & b & c', boundary='constant',
                          cval=cval)
            assert_same(got, np.array([edge, True, edge]),
                        'bool cval=%r' % cval)
        d = tmpdir()
        np.save(d + '/a.npy', np.arange(3.0))
        expect_error(['planfilesrc', 'location=%s/a.npy' % d, '!',
                      'planstencil', 'window=a b c', 'expr=a+b+c',
                      'boundary=grid-wrap', '!',
                      'planfilesink', 'location=%s/o.npy' % d],
                     'boundary')
    return run


def case_errors():
    """Windows scipy takes but planstencil does not draw: an even picture
    (use '_' cells to place an even window, as the other cases do), and
    'valid' on an array shorter than the window."""
    def run():
        d = tmpdir()
        np.save(d + '/a.npy', np.arange(3.0))
        expect_error(['planfilesrc', 'location=%s/a.npy' % d, '!',
                      'planstencil', 'window=a b', 'expr=a+b', '!',
                      'planfilesink', 'location=%s/o.npy' % d],
                     'odd')
        expect_error(['planfilesrc', 'location=%s/a.npy' % d, '!',
                      'planstencil', 'window=a b c d e', 'expr=a+e',
                      'boundary=valid', '!',
                      'planfilesink', 'location=%s/o.npy' % d],
                     'window')
    return run


def main():
    seed = os.environ.get('PLAN_ORACLE_SEED')
    if seed is not None:
        n = int(os.environ.get('PLAN_ORACLE_CASES', '200'))
        device = os.environ.get('PLAN_ORACLE_DEVICE') == 'sim'
        cases = [('random seed %s, %d cases%s' % (
            seed, n, ' on the sim device' if device else ''),
            case_random(int(seed), n, device))]
    else:
        cases = [('random seed %d' % s, case_random(s, 60)) for s in (1, 2)]
        cases += [('random seed 3 on the sim device',
                   case_random(3, 60, device=True)),
                  ('large arrays, threads, slices', case_large()),
                  ('windows 255 wide', case_wide()),
                  ('plancustom halo', case_custom_halo()),
                  ('documented differences', case_documented_differences())]
        cases += [('modes against scipy', case_modes_scipy()),
                  ('filters against scipy', case_filters()),
                  ('iterations against scipy', case_iterations_scipy()),
                  ('errors', case_errors())]
    run_cases(cases)


if __name__ == '__main__':
    main()
