#!/usr/bin/env python3
# gst-plan: expressions on complex64 and complex128 against numpy (Debian's
# numpy 1.24 with NEP 50 "weak" promotion, numpy 2's rules):
#   - result dtypes of promotion (names of every dtype with complex ones,
#     literals 1j and 2+3j);
#   - values: bit for bit for arithmetic, comparisons, casts, selections
#     and numpy's own formulas; within the ulp bounds docs/expressions.md
#     states for the rest (ULP below), on random values of mixed
#     magnitudes and on every pair of special values (0, -0, inf, nan,
#     subnormals, huge) as real and imaginary parts;
#   - errors for what numpy does not define on complex numbers (ordering,
#     floor division, ...) and for casts that would drop the imaginary part;
#   - planmap and planstencil on complex .npy files, on the CPU and on the
#     sim device, against numpy slicing (bit for bit) and
#     scipy.ndimage.correlate.

import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plantest  # noqa: E402
from planexpr_ctypes import Expr, ExprError  # noqa: E402
from plantest import Failure, launch  # noqa: E402

if not hasattr(np, '_set_promotion_state'):
    print('numpy has no NEP 50 switch; skipping')
    sys.exit(77)
np._set_promotion_state('weak')
warnings.simplefilter('ignore')

rng = np.random.default_rng(20261202)
COMPLEX = ['complex64', 'complex128']

# ulp bounds against numpy, per part; every other case must be exact.
# abs is glibc's hypot (within 1 ulp of the exact result), numpy 1.24's
# SIMD loop may be 1 ulp off the other way; angle is glibc's atan2 where
# numpy uses its SIMD arctan2.
ULP = {'abs(z)': 2, 'angle(z)': 2}

CASES = [
    ('z + w', lambda z, w: z + w), ('z - w', lambda z, w: z - w),
    ('z * w', lambda z, w: z * w), ('z / w', lambda z, w: z / w),
    ('z ** w', lambda z, w: z ** w), ('z ** 2', lambda z, w: z ** 2),
    ('z ** 3', lambda z, w: z ** 3), ('z ** -2', lambda z, w: z ** -2),
    ('z ** -1', lambda z, w: z ** -1), ('z ** 0.5', lambda z, w: z ** 0.5),
    ('pow(z, 0.5)', lambda z, w: np.power(z, 0.5)),
    ('1 / z', lambda z, w: 1 / z), ('-z', lambda z, w: -z),
    ('z * 2 + 1j', lambda z, w: z * 2 + 1j),
    ('z + (2+3j)', lambda z, w: z + (2 + 3j)),
    ('abs(z)', lambda z, w: np.abs(z)), ('real(z)', lambda z, w: z.real),
    ('imag(z)', lambda z, w: z.imag), ('conj(z)', lambda z, w: np.conj(z)),
    ('angle(z)', lambda z, w: np.angle(z)),
    ('square(z)', lambda z, w: np.square(z)),
    ('reciprocal(z)', lambda z, w: np.reciprocal(z)),
    ('rint(z)', lambda z, w: np.rint(z)),
    ('nan_to_num(z)', lambda z, w: np.nan_to_num(z)),
    ('z == w', lambda z, w: z == w), ('z != w', lambda z, w: z != w),
    ('isnan(z)', lambda z, w: np.isnan(z)),
    ('isinf(z)', lambda z, w: np.isinf(z)),
    ('isfinite(z)', lambda z, w: np.isfinite(z)),
    ('where(real(z) > 0, z, w)',
     lambda z, w: np.where(z.real > 0, z, w)),
    ('not z', lambda z, w: np.logical_not(z)),
    ('bool(z)', lambda z, w: z.astype(bool)),
]
for fn in ['sqrt', 'exp', 'log', 'exp2', 'log2', 'log10', 'expm1', 'log1p',
           'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'sinh', 'cosh',
           'tanh', 'arcsinh', 'arccosh', 'arctanh']:
    CASES.append(('%s(z)' % fn, (lambda f: lambda z, w: f(z))(getattr(np, fn))))

SPECIAL = [0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, 1e-310, 3e38,
           1e300]


def ulps(got, want):
    """The largest distance in ulp of the result's dtype, part by part;
    NaN matches NaN, and equal values (zeros of either sign) are 0."""
    def part(g, w):
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        same = (g64 == w64) | (np.isnan(g64) & np.isnan(w64))
        sp = np.spacing(np.abs(w).astype(w.dtype)).astype(np.float64)
        with np.errstate(all='ignore'):
            d = np.abs(g64 - w64) / sp
        return np.where(same, 0.0, np.where(np.isfinite(d), d, np.inf))
    if got.dtype.kind == 'c':
        return np.maximum(part(got.real, want.real), part(got.imag, want.imag))
    if got.dtype.kind == 'f':
        return part(got, want)
    return np.where(got == want, 0.0, np.inf)


def random_values(dtype, n):
    return plantest.random_array(dtype, (n,), rng)


def special_pairs(dtype):
    vals = np.array([complex(a, b) for a in SPECIAL for b in SPECIAL],
                    dtype=dtype)
    return np.repeat(vals, len(vals)), np.tile(vals, len(vals))


def values_match_numpy():
    failures = []
    for dtype in COMPLEX:
        rz, rw = random_values(dtype, 3000), random_values(dtype, 3000)
        sz, sw = special_pairs(dtype)
        z, w = np.concatenate([rz, sz]), np.concatenate([rw, sw])
        for src, ref in CASES:
            e = Expr(src, {'z': dtype, 'w': dtype})
            want = ref(z, w)
            got = e.eval({'z': z, 'w': w})
            if got.dtype != want.dtype:
                failures.append('%s on %s: dtype %s, numpy %s' %
                                (src, dtype, got.dtype, want.dtype))
                continue
            u = ulps(got, want)
            bound = ULP.get(src, 0)
            if u.max() > bound:
                i = int(np.argmax(u))
                failures.append('%s on %s: %.0f ulp (bound %d) at z=%r w=%r: '
                                'got %r, numpy %r' % (src, dtype, u[i], bound,
                                                      z[i], w[i], got[i],
                                                      want[i]))
            # Blocks of 1024: the parallel evaluator gives the same bits.
            par = e.eval({'z': z, 'w': w}, threads=2)
            if par.tobytes() != got.tobytes():
                failures.append('%s on %s: threads change the bits' %
                                (src, dtype))
    if failures:
        raise Failure('\n'.join(failures[:20]))


NAMES = {'f': 'float32', 'd': 'float64', 'c': 'complex64', 'C': 'complex128',
         'i': 'int16', 'j': 'int32', 'u': 'uint64', 'b': 'bool', 'k': 'int8'}


def promotion_is_numpys():
    exprs = ['f + 1j', 'f * (2+3j)', 'd + 1j', 'c + d', 'c + f', 'c + i',
             'c + j', 'c + C', 'b * 1j', 'i + 1j', 'c * 2.5', 'c + 1',
             'u + c', 'k * c', 'c / 2', 'c ** 2', 'c == 1j', 'abs(c)',
             'abs(C)', 'real(C)', 'imag(c)', 'where(b, c, C)',
             'where(b, f, c)', 'sqrt(c)', 'exp(C)']
    arrays = {k: plantest.random_array(v, (4,), rng) for k, v in
              NAMES.items()}
    funcs = {'abs': np.abs, 'real': np.real, 'imag': np.imag,
             'where': np.where, 'sqrt': np.sqrt, 'exp': np.exp}
    for src in exprs:
        want = eval(src, funcs, dict(arrays))
        got = Expr(src, NAMES).eval(arrays)
        if got.dtype != want.dtype:
            raise Failure('%s: dtype %s, numpy %s' % (src, got.dtype,
                                                      want.dtype))
        if ulps(got, want).max() > (ULP['abs(z)'] if 'abs' in src else 0):
            raise Failure('%s: %r, numpy %r' % (src, got, want))
    # Literals alone: Python's complex arithmetic, then complex128.
    for src, want in [('2+3j', 2 + 3j), ('(1j)**2', (1j) ** 2),
                      ('abs(3+4j)', 5.0), ('-1j', -1j), ('2j*1j', 2j * 1j),
                      ('conj(1+2j)', 1 - 2j), ('imag(2+3j)', 3.0)]:
        e = Expr(src, {})
        got = e.eval({}, out=np.empty(1, e.dtype))[0]
        if got != want or e.dtype != np.asarray(want).dtype:
            raise Failure('%s: %r %s, Python %r' % (src, got, e.dtype, want))


ERRORS = [
    ('c < f', "'<' is not defined for complex numbers"),
    ('c >= 1j', "'>=' is not defined for complex numbers"),
    ('1j < 2', "'<' is not defined for complex numbers"),
    ('minimum(c, c)', 'minimum is not defined for complex numbers'),
    ('clip(c, 0, 1)', 'clip is not defined for complex numbers'),
    ('c // 2', "'//' is not defined for complex numbers"),
    ('c % 2', "'%' is not defined for complex numbers"),
    ('floor(c)', 'floor is not defined for complex numbers'),
    ('sign(c)', 'sign is not defined for complex numbers'),
    ('c & 1', 'bitwise operations need integer or bool operands'),
    ('atan2(c, c)', 'atan2 is not defined for complex numbers'),
    ('fabs(C)', 'fabs is not defined for complex numbers'),
    ('signbit(c)', 'signbit is not defined'),
    ('float32(c)', "casting 'c' (complex64) to float32 would discard the "
     "imaginary part"),
    ('int8(1j)', 'would discard the imaginary part'),
]


def errors_are_clear():
    for src, text in ERRORS:
        try:
            Expr(src, NAMES)
        except ExprError as e:
            if text not in e.message:
                raise Failure('%s: %r does not say %r' % (src, e.message,
                                                          text))
            continue
        raise Failure('%s compiled' % src)


def save(a, name):
    path = os.path.join(plantest.tmpdir(), name)
    np.save(path, a)
    return path


def map_and_stencil_pipelines():
    """planmap and planstencil on complex files, CPU and sim device, in
    uneven chunks: numpy slicing bit for bit, and scipy.ndimage."""
    import scipy.ndimage as ndi
    for dtype in COMPLEX:
        a = plantest.random_array(dtype, (301, 7), rng)
        src = save(a, 'in.npy')
        out = os.path.join(plantest.tmpdir(), 'out.npy')
        row = 7 * np.dtype(dtype).itemsize
        m = a * (2 - 1j) - np.conj(a) / 3
        p = np.pad(m, 1)
        want = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, 2:] + p[1:-1, :-2] - \
            4 * p[1:-1, 1:-1]
        k = np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]])
        near = ndi.correlate(m, k, mode='nearest')
        for device in (None, 'sim'):
            words = ['planfilesrc', 'location=' + src,
                     'blocksize=%d' % (row * 13), '!']
            if device:
                os.environ['GST_PLAN_DEVICE'] = device
                words += ['planupload', '!']
            words += ['planmap', 'expr=x * (2-1j) - conj(x) / 3', '!',
                      'planstencil', 'window=_ n _; w c e; _ s _',
                      'expr=n + s + e + w - 4*c']
            try:
                launch(*words, '!', 'planfilesink', 'location=' + out)
                plantest.assert_same(np.load(out), want, 'map ! stencil %s %s'
                                     % (dtype, device or 'cpu'))
                launch(*words, 'boundary=nearest', '!', 'planfilesink',
                       'location=' + out)
                got = np.load(out)
                tol = 1e-5 if dtype == 'complex64' else 1e-13
                plantest.assert_same(got, near.astype(dtype), 'stencil '
                                     'nearest against scipy.ndimage %s %s' %
                                     (dtype, device or 'cpu'),
                                     rtol=tol)
            finally:
                os.environ.pop('GST_PLAN_DEVICE', None)


def real_output_dtype_is_refused():
    a = plantest.random_array('complex64', (10,), rng)
    src = save(a, 'in.npy')
    out = os.path.join(plantest.tmpdir(), 'out.npy')
    plantest.expect_error(['planfilesrc', 'location=' + src, '!', 'planmap',
                           'expr=x * 2', 'dtype=float32', '!', 'planfilesink',
                           'location=' + out],
                          'casting it to float32 would discard the imaginary '
                          'part')
    plantest.expect_error(['planfilesrc', 'location=' + src, '!', 'planmap',
                           'expr=x * g', 'params=g:complex64=1', '!',
                           'fakesink'], 'a parameter is a real number')
    launch('planfilesrc', 'location=' + src, '!', 'planmap', 'expr=abs(x)',
           'dtype=float64', '!', 'planfilesink', 'location=' + out)
    plantest.assert_same(np.load(out), np.abs(a).astype(np.float64),
                         'abs to float64', rtol=1e-6)


def reductions_of_complex_through_a_map():
    a = plantest.random_array('complex128', (500, 3), rng)
    a[::7] = 0
    src = save(a, 'in.npy')
    out = os.path.join(plantest.tmpdir(), 'out.npy')
    # complex input is reduced directly too (compensated: within rounding
    # of numpy's pairwise sum)
    launch('planfilesrc', 'location=' + src, 'blocksize=1000', '!',
           'planreduce', 'op=sum', 'axis=0', '!', 'planfilesink',
           'location=' + out)
    plantest.assert_same(np.load(out), a.sum(axis=0), 'op=sum of complex',
                         rtol=1e-13)
    for words, want in [(['map=abs(x)', 'op=max'], np.abs(a).max(axis=0)),
                        (['map=x != 0', 'op=sum'],
                         np.count_nonzero(a, axis=0).astype(np.int64)),
                        (['map=real(x)', 'op=min'], a.real.min(axis=0))]:
        launch('planfilesrc', 'location=' + src, 'blocksize=1000', '!',
               'planreduce', *words, 'axis=0', '!', 'planfilesink',
               'location=' + out)
        # abs: within 2 ulp of numpy's (see ULP)
        plantest.assert_same(np.load(out), want, ' '.join(words),
                             rtol=1e-15 if 'abs' in words[0] else 0.0)


def main():
    plantest.run_cases([
        ('values match numpy', values_match_numpy),
        ('promotion is numpy\'s', promotion_is_numpys),
        ('errors are clear', errors_are_clear),
        ('map and stencil pipelines', map_and_stencil_pipelines),
        ('a real output dtype is refused', real_output_dtype_is_refused),
        ('reductions of complex through a map',
         reductions_of_complex_through_a_map),
    ])


if __name__ == '__main__':
    main()
