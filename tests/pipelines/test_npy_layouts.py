""".npy files numpy writes in another byte order or in Fortran order,
read against numpy: big-endian arrays of every multi-byte dtype (np.save of
a.astype('>f4')) and Fortran-ordered 2-D and 3-D arrays of every dtype
(np.save of np.asfortranarray(a)), 1-D to 3-D, rows that do not divide the
chunks, through planfilesrc ! planfilesink (bit for bit, NaN payloads
included) and planfilesrc ! planreduce op=sum axis=0; a shard, a seek and
planstencil's wrap (the plan-read-rows query) over a Fortran-ordered file;
.npz members of both kinds, stored and deflated; io-mode=mmap refused with
a clear error; npyparse on big-endian streams (and its error for Fortran
order, which a stream cannot transpose); and plan_array_load_npy() through
gstplan. Each group of arrays runs as one pipeline of many branches, to
keep the test short."""
import os
import subprocess

import numpy as np

import plantest
from plantest import Failure, assert_bits, assert_same, expect_error, launch

RNG = np.random.default_rng(20261203)
BIG = ['>f2', '>f4', '>f8', '>i2', '>i4', '>i8', '>u2', '>u4', '>u8', '>c8',
       '>c16']
ALL = plantest.DTYPES + ['float16'] + plantest.COMPLEX_DTYPES
SHAPES = [(997,), (61, 5), (23, 3, 4)]
F_SHAPES = [(61, 5), (23, 3, 4)]
# Chunks of a few rows: every shape above ends in a partial chunk.
BLOCK = 'blocksize=200'
# NaN payloads, quiet and signalling, that only a bit-exact swap keeps.
NANS = {2: [0x7e01, 0xfd55], 4: [0x7fc12345, 0xff812345],
        8: [0x7ff8000000012345, 0xfff0000000054321]}
D = plantest.tmpdir()


def native(dtype):
    return np.dtype(dtype).newbyteorder('=')


def values(dtype, shape):
    """Random values of dtype (any byte order), NaNs with payloads first
    for floats and complex numbers."""
    nat = native(dtype)
    a = plantest.random_array(nat, shape, RNG)
    if nat.kind in 'fc':
        part = nat.itemsize // (2 if nat.kind == 'c' else 1)
        bits = a.reshape(-1).view('u%d' % part)
        bits[:2] = NANS[part]
    return a.astype(np.dtype(dtype))


def sums(dtype, shape):
    """Small integers as dtype: every partial sum of a column is exact in
    every dtype (float16's too), so any order of summing gives numpy's."""
    return RNG.integers(-2, 3, size=shape).astype(native(dtype)) \
        .astype(np.dtype(dtype))


def name(prefix, dtype, shape):
    return os.path.join(D, '%s-%s-%s.npy' % (
        prefix, np.dtype(dtype).str.replace('<', 'le').replace('>', 'be')
        .replace('|', ''), 'x'.join(map(str, shape))))


def save(path, a, fortran=False):
    np.save(path, np.asfortranarray(a) if fortran else a)
    with open(path, 'rb') as f:
        head = f.read(128)
    want = b"'fortran_order': True" if fortran and a.ndim > 1 else \
        b"'fortran_order': False"
    if want not in head or (a.dtype.byteorder == '>') != (b"'>" in head):
        raise Failure('numpy did not write the layout meant: %r' % head)


def copy_branches(cases, element='planfilesrc', extra=()):
    """One pipeline: every (src, out) pair copied by its own branch."""
    words = []
    for src, out in cases:
        if element == 'npyparse':
            words += ['filesrc', 'location=' + src, 'blocksize=333', '!',
                      'npyparse', BLOCK]
        else:
            words += ['planfilesrc', 'location=' + src, BLOCK, *extra]
        words += ['!', 'planfilesink', 'location=' + out]
    launch(*words)


def reduce_branches(cases):
    words = []
    for src, out in cases:
        words += ['planfilesrc', 'location=' + src, BLOCK, '!', 'planreduce',
                  'op=sum', 'axis=0', '!', 'planfilesink', 'location=' + out]
    launch(*words)


def check_copies(cases, what):
    for src, out in cases:
        want = np.load(src)
        want = want.astype(native(want.dtype))
        got = np.load(out)
        if got.dtype.byteorder == '>' or not got.flags.c_contiguous:
            raise Failure('%s %s: written as %s' % (what, src, got.dtype))
        assert_bits(got, want, '%s %s' % (what, os.path.basename(src)))


def check_sums(cases, what):
    for src, out in cases:
        a = np.load(src)
        want = np.asarray(np.sum(a.astype(native(a.dtype)),
                                 axis=None if a.ndim == 1 else 0))
        assert_same(np.load(out), want, '%s %s' % (what,
                                                   os.path.basename(src)))


def big_endian_copies():
    """Every big-endian dtype, 1-D to 3-D: the native values, bit for bit,
    and the native dtype in the output's header."""
    cases = []
    for dtype in BIG:
        for shape in SHAPES:
            src = name('be', dtype, shape)
            save(src, values(dtype, shape))
            cases.append((src, src[:-4] + '.out.npy'))
    copy_branches(cases)
    check_copies(cases, 'big-endian copy')


def big_endian_sums():
    cases = []
    for dtype in BIG:
        for shape in SHAPES:
            src = name('besum', dtype, shape)
            save(src, sums(dtype, shape))
            cases.append((src, src[:-4] + '.sum.npy'))
    reduce_branches(cases)
    check_sums(cases, 'big-endian sum')


def fortran_cases(prefix, make):
    """Fortran-ordered files of every dtype, 2-D and 3-D, and a few that
    are big-endian too."""
    cases = []
    for dtype in ALL + ['>f8', '>c8', '>i2']:
        for shape in F_SHAPES:
            src = name(prefix, dtype, shape)
            save(src, make(dtype, shape), fortran=True)
            cases.append(src)
    return cases


def fortran_copies():
    cases = [(s, s[:-4] + '.out.npy')
             for s in fortran_cases('f', values)]
    copy_branches(cases)
    check_copies(cases, 'Fortran copy')


def fortran_automatic_chunks():
    """The chunk size planfilesrc chooses for a Fortran-ordered file (rows
    enough for runs of 4 KiB, up to 16 MiB a chunk): 1024 rows of 1500,
    then the rest."""
    src = name('fa', 'float32', (1500, 700))
    a = values('float32', (1500, 700))
    save(src, a, fortran=True)
    out = src[:-4] + '.out.npy'
    launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
           'location=' + out)
    assert_bits(np.load(out), np.ascontiguousarray(a), 'Fortran, automatic')


def fortran_sums():
    cases = [(s, s[:-4] + '.sum.npy')
             for s in fortran_cases('fsum', lambda d, s: sums(d, s)
                                    if d != 'bool' else values(d, s))]
    reduce_branches(cases)
    check_sums(cases, 'Fortran sum')


def sought(source, out, start, stop):
    """source ! planfilesink location=out, with a flushing seek to rows
    [start, stop) in PAUSED (prerolled: npyparse has read the header)."""
    Gst = plantest.gst()
    p = Gst.parse_launch('%s ! planfilesink async=true location=%s'
                         % (source, out))
    try:
        p.set_state(Gst.State.PAUSED)
        if p.get_state(60 * Gst.SECOND)[0] != Gst.StateChangeReturn.SUCCESS:
            raise Failure('%s: did not reach PAUSED' % source)
        if not p.seek(1.0, Gst.Format.DEFAULT, Gst.SeekFlags.FLUSH,
                      Gst.SeekType.SET, start, Gst.SeekType.SET, stop):
            raise Failure('%s: the seek was refused' % source)
        p.set_state(Gst.State.PLAYING)
        msg = p.get_bus().timed_pop_filtered(
            60 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    finally:
        p.set_state(Gst.State.NULL)
    if msg is None or msg.type == Gst.MessageType.ERROR:
        raise Failure('%s, sought: %s' % (source,
                                          msg and msg.parse_error()[1]))


def fortran_shard_seek_wrap():
    """A shard (offset, length) of a Fortran-ordered and of a big-endian
    file; a flushing seek to rows 17-40 of a Fortran-ordered one; and
    planstencil's wrap, which reads rows from the other end of the array
    with the plan-read-rows query."""
    f = name('fs', 'float64', (101, 3, 2))
    a = values('float64', (101, 3, 2))
    save(f, a, fortran=True)
    b = name('bs', '>i4', (101, 3))
    save(b, values('>i4', (101, 3)))
    outs = [os.path.join(D, 'shard-%d.npy' % i) for i in range(2)]
    launch('planfilesrc', 'location=' + f, 'offset=7', 'length=43', BLOCK,
           '!', 'planfilesink', 'location=' + outs[0],
           'planfilesrc', 'location=' + b, 'offset=50', 'length=45', BLOCK,
           '!', 'planfilesink', 'location=' + outs[1])
    assert_bits(np.load(outs[0]), np.ascontiguousarray(a[7:50]),
                'Fortran shard')
    assert_bits(np.load(outs[1]), np.load(b)[50:95].astype('=i4'),
                'big-endian shard')

    out = os.path.join(D, 'sought.npy')
    sought('planfilesrc location=%s blocksize=200' % f, out, 17, 40)
    assert_bits(np.load(out), np.ascontiguousarray(a[17:40]), 'Fortran seek')

    w = name('fw', 'float64', (53, 4))
    c = sums('float64', (53, 4))
    save(w, c, fortran=True)
    out = os.path.join(D, 'wrap.npy')
    launch('planfilesrc', 'location=' + w, BLOCK, '!', 'planstencil',
           'window=n;c;s', 'expr=n + c + s', 'boundary=wrap', '!',
           'planfilesink', 'location=' + out)
    assert_bits(np.load(out), np.roll(c, 1, 0) + c + np.roll(c, -1, 0),
                'Fortran stencil wrap')


def npz_members():
    """Big-endian and Fortran-ordered members of a stored and of a
    deflated .npz (a stored member's CRC-32 is checked on the file's
    bytes, before the swap)."""
    be = values('>c16', (37, 3))
    fo = values('int16', (29, 3, 5))
    cases = []
    for i, fn in enumerate((np.savez, np.savez_compressed)):
        z = os.path.join(D, 'z%d.npz' % i)
        fn(z, be=be, fo=np.asfortranarray(fo))
        for m, want in (('be', be), ('fo', fo)):
            cases.append((z, m, want, os.path.join(D, 'z%d-%s.npy' % (i, m))))
    words = []
    for z, m, _, out in cases:
        words += ['planfilesrc', 'location=' + z, 'member=' + m, BLOCK, '!',
                  'planfilesink', 'location=' + out]
    launch(*words)
    for z, m, want, out in cases:
        assert_bits(np.load(out), np.ascontiguousarray(
            want.astype(native(want.dtype))), '.npz %s %s' % (z, m))


def mmap_refused():
    be = name('bem', '>f4', (10, 2))
    save(be, values('>f4', (10, 2)))
    fo = name('fom', 'float32', (10, 2))
    save(fo, values('float32', (10, 2)), fortran=True)
    for path, text in ((be, 'big-endian'), (fo, 'Fortran order')):
        expect_error(['planfilesrc', 'location=' + path, 'io-mode=mmap', '!',
                      'fakesink'], "Could not map '%s'" % path, text,
                     'read it instead')


def npyparse_big_endian():
    """npyparse swaps big-endian streams as it cuts them into chunks (after
    a seek too), and refuses Fortran order with an error that says so."""
    cases = []
    for dtype in BIG:
        shape = SHAPES[BIG.index(dtype) % len(SHAPES)]
        src = name('pbe', dtype, shape)
        save(src, values(dtype, shape))
        cases.append((src, src[:-4] + '.out.npy'))
    copy_branches(cases, element='npyparse')
    check_copies(cases, 'npyparse big-endian')
    src = cases[2][0]   # >f8 (23, 3, 4)
    out = os.path.join(D, 'pbe-sought.npy')
    sought('filesrc location=%s ! npyparse blocksize=200' % src, out, 5, 19)
    assert_bits(np.load(out), np.load(src)[5:19].astype('=f8'),
                'npyparse big-endian seek')
    fo = name('pfo', 'float32', (10, 2))
    save(fo, values('float32', (10, 2)), fortran=True)
    expect_error(['filesrc', 'location=' + fo, '!', 'npyparse', '!',
                  'fakesink'], 'Fortran')


PY_LOAD = '''
import sys, numpy as np
import gstplan
from gstplan import to_numpy
from gi.repository import Plan
for path in sys.argv[1:]:
    got = to_numpy(Plan.Array.load_npy(path))
    want = np.load(path)
    want = np.ascontiguousarray(want.astype(want.dtype.newbyteorder('=')))
    if got.dtype != want.dtype or got.shape != want.shape \\
            or got.tobytes() != want.tobytes():
        print('differs: %s: %s %s' % (path, got.dtype, got.shape))
        sys.exit(1)
print('ok', len(sys.argv) - 1)
'''


def python_load():
    """Plan.Array.load_npy (plan_array_load_npy) of big-endian and
    Fortran-ordered files: numpy's np.load, in C order and native bytes."""
    build = os.environ.get('PLAN_BUILD_DIR', '')
    if not os.path.exists(os.path.join(build, 'libplan', 'Plan-1.0.typelib')):
        print('     (built without introspection: gstplan not tested)')
        return
    paths = []
    for dtype, shape, fortran in (('>f2', (33,), False),
                                  ('>c16', (7, 3), False),
                                  ('>u8', (5, 2, 3), False),
                                  ('bool', (9, 4), True),
                                  ('float32', (6, 5, 7), True),
                                  ('>i4', (11, 3, 2), True),
                                  ('complex64', (4, 3), True)):
        p = name('py', dtype, shape)
        save(p, values(dtype, shape), fortran=fortran)
        paths.append(p)
    env = dict(os.environ)
    env['GI_TYPELIB_PATH'] = os.path.join(build, 'libplan')
    env['LD_LIBRARY_PATH'] = os.path.join(build, 'libplan')
    env['PYTHONPATH'] = os.path.join(env.get('PLAN_SOURCE_DIR', ''), 'python')
    p = subprocess.run(['/usr/bin/python3', '-c', PY_LOAD] + paths,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120, env=env)
    if p.returncode != 0 or 'CRITICAL' in p.stdout:
        raise Failure('rc %d:\n%s' % (p.returncode, p.stdout))


plantest.run_cases([
    ('big-endian copies, every dtype, 1-D to 3-D', big_endian_copies),
    ('big-endian sums along axis 0', big_endian_sums),
    ('Fortran-ordered copies, every dtype, 2-D and 3-D', fortran_copies),
    ('Fortran-ordered sums along axis 0', fortran_sums),
    ('Fortran-ordered, automatic chunk size', fortran_automatic_chunks),
    ('a shard, a seek and wrap over a Fortran-ordered file',
     fortran_shard_seek_wrap),
    ('.npz members, big-endian and Fortran-ordered', npz_members),
    ('io-mode=mmap refused', mmap_refused),
    ('npyparse reads big-endian streams', npyparse_big_endian),
    ('plan_array_load_npy through gstplan', python_load),
])
