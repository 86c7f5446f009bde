"""planfilesrc reading Zarr v2 arrays (directory stores) against
zarr-python: every dtype, 1-D to 4-D, chunks that do not divide the shape,
larger than a buffer or of one row, the codecs none, zlib, gzip, zstd and
blosc (lz4, zstd), big-endian, '/' separators, fill values for missing
chunks, shards and seeks; and the errors of a missing array, a corrupt
chunk, an unsupported codec, dtype or order."""
import os
import shutil
import sys

import numpy as np

import plantest
from plantest import Failure, expect_error, launch

try:
    import numcodecs
    import zarr
except ImportError:
    print('zarr (python3-zarr) is not installed')
    sys.exit(77)

RNG = np.random.default_rng(20261204)
BLOCKSIZE = 1000

CODECS = {
    'none': None,
    'zlib': numcodecs.Zlib(level=3),
    'gzip': numcodecs.GZip(level=5),
    'zstd': numcodecs.Zstd(level=3),
    'blosc-lz4': numcodecs.Blosc(cname='lz4', clevel=5,
                                 shuffle=numcodecs.Blosc.SHUFFLE),
    'blosc-zstd': numcodecs.Blosc(cname='zstd', clevel=3,
                                  shuffle=numcodecs.Blosc.BITSHUFFLE),
}

LAYOUTS = [
    ((997,), (100,)),
    ((250, 3), (1, 3)),
    ((250, 3), (64, 2)),
    ((61, 2, 5), (7, 2, 3)),
    ((13, 3, 1, 4), (13, 2, 1, 3)),
    ((300, 7), (300, 7)),
    ((0, 4), (5, 4)),
]


def skip_without_zarr():
    d = plantest.tmpdir()
    path = os.path.join(d, 'probe.zarr')
    zarr.array(np.arange(3), store=path)
    try:
        launch('planfilesrc', 'location=' + path, '!', 'fakesink')
    except Failure as e:
        if 'built without Zarr' not in str(e):
            raise
        print('gst-plan is built without Zarr')
        sys.exit(77)


def read(path, out, *props):
    launch('planfilesrc', 'location=' + path, 'blocksize=%d' % BLOCKSIZE,
           *props, '!', 'planfilesink', 'location=' + out)
    return np.load(out)


def every_dtype_layout_and_codec():
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    codecs = list(CODECS.items())
    for i, dtype in enumerate(plantest.DTYPES):
        store = os.path.join(d, dtype + '.zarr')
        g = zarr.open_group(store, mode='w')
        layouts = LAYOUTS if dtype in ('bool', 'float32') else \
            [LAYOUTS[i % len(LAYOUTS)], LAYOUTS[(i + 3) % len(LAYOUTS)]]
        names = []
        for j, (shape, chunks) in enumerate(layouts):
            name, codec = codecs[(i + j) % len(codecs)]
            a = plantest.random_array(dtype, shape, RNG)
            g.create_dataset('c%d/%s' % (j, name), data=a, chunks=chunks,
                             compressor=codec)
            names.append('c%d/%s' % (j, name))
            if dtype not in ('bool', 'int8', 'uint8'):
                g.create_dataset('be%d' % j, data=a, chunks=chunks,
                                 dtype=np.dtype(dtype).newbyteorder('>'),
                                 compressor=codec)
                names.append('be%d' % j)
        for name in names:
            want = g[name][...]
            got = read(store, out, 'dataset=' + name)
            plantest.assert_same(got, want.astype(want.dtype.newbyteorder(
                '=')), '%s %s %s' % (dtype, name, g[name].chunks))


def fill_values_and_separators():
    """Chunks never written are the fill value (NaN, a number, 0 for
    none); '/' separates chunk indices in nested stores."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    cases = [('float64', np.nan), ('float32', -2.5), ('int16', -7),
             ('uint8', 200), ('bool', True), ('int32', None)]
    for dtype, fill in cases:
        for sep in ['.', '/']:
            store = os.path.join(d, '%s%s.zarr' % (dtype, sep == '/'))
            z = zarr.open(zarr.DirectoryStore(store, dimension_separator=sep),
                          mode='w', shape=(50, 6), chunks=(8, 4),
                          dtype=dtype, fill_value=fill,
                          compressor=CODECS['zstd'])
            z[8:16, :] = plantest.random_array(dtype, (8, 6), RNG)
            z[40:42, 4:] = plantest.random_array(dtype, (2, 2), RNG)
            want = z[...]
            if fill is None:
                # zarr-python gives what numpy's empty chunk held; the
                # reader gives 0, as the specification leaves it open.
                want[np.isin(np.arange(50), np.r_[8:16, 40:42]) == 0] = 0
                want[40:42, :4] = 0
            got = read(store, out)
            plantest.assert_same(got, want, '%s fill %r sep %r' %
                                 (dtype, fill, sep))


def shards_and_wrap():
    d = plantest.tmpdir()
    store = os.path.join(d, 'a.zarr')
    out = os.path.join(d, 'out.npy')
    a = RNG.standard_normal((3001, 5))
    zarr.array(a, chunks=(64, 3), store=store, compressor=CODECS['blosc-lz4'])
    for offset, length in [(0, -1), (1000, 17), (100, 700), (3000, 1)]:
        got = read(store, out, 'offset=%d' % offset, 'length=%d' % length)
        want = a[offset:] if length < 0 else a[offset:offset + length]
        plantest.assert_same(got, want, 'rows %d+%d' % (offset, length))
    launch('planfilesrc', 'location=' + store, 'blocksize=4000', '!',
           'planstencil', 'window=n; c; s', 'expr=n + s - 2*c',
           'boundary=wrap', '!', 'planfilesink', 'location=' + out)
    p = np.pad(a, ((1, 1), (0, 0)), mode='wrap')
    plantest.assert_same(np.load(out), p[:-2] + p[2:] - 2 * p[1:-1], 'wrap')


def missing_array_lists_the_names():
    d = plantest.tmpdir()
    store, out = os.path.join(d, 'g.zarr'), os.path.join(d, 'out.npy')
    g = zarr.open_group(store, mode='w')
    g.create_dataset('temps', data=np.zeros(3))
    g.create_dataset('obs/rain', data=np.ones(2))
    expect_error(['planfilesrc', 'location=' + store, 'dataset=wind', '!',
                  'planfilesink', 'location=' + out],
                 "no Zarr array 'wind'", "'/obs/rain' and '/temps'")
    expect_error(['planfilesrc', 'location=' + store, '!',
                  'planfilesink', 'location=' + out],
                 "Zarr group of 2 arrays")
    empty = os.path.join(d, 'empty')
    os.mkdir(empty)
    expect_error(['planfilesrc', 'location=' + empty, '!',
                  'planfilesink', 'location=' + out], 'is a directory')
    if os.path.exists(out):
        raise Failure('an output was written')


def corrupt_and_truncated_chunks_fail():
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    for name in ['zstd', 'blosc-lz4', 'zlib', 'none']:
        store = os.path.join(d, name + '.zarr')
        zarr.array(RNG.standard_normal((400, 4)), chunks=(100, 4),
                   store=store, compressor=CODECS[name])
        chunk = os.path.join(store, '2.0')
        data = open(chunk, 'rb').read()
        open(chunk, 'wb').write(data[:len(data) // 2])
        expect_error(['planfilesrc', 'location=' + store, '!',
                      'planfilesink', 'location=' + out],
                     "chunk '%s'" % chunk, 'it is corrupt')
        if os.path.exists(out):
            raise Failure('%s: an output was written' % name)


def unsupported_metadata_fails():
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    cases = [
        ('lzma', dict(data=np.arange(10.0), compressor=numcodecs.LZMA()),
         "compressor 'lzma' is not supported"),
        ('half', dict(data=np.arange(10, dtype=np.float16)),
         "dtype '<f2' is not supported"),
        ('cplx', dict(data=np.arange(10, dtype=np.complex64)),
         "dtype '<c8' is not supported"),
        ('fortran', dict(data=np.ones((4, 3)), order='F'),
         "order 'F'"),
        ('delta', dict(data=np.arange(10), filters=[
            numcodecs.Delta(dtype='i8')]), 'filters'),
    ]
    for name, kw, text in cases:
        store = os.path.join(d, name + '.zarr')
        zarr.array(store=store, **kw)
        expect_error(['planfilesrc', 'location=' + store, '!',
                      'planfilesink', 'location=' + out], text)
        if os.path.exists(out):
            raise Failure('%s: an output was written' % name)
    # A Zarr v3 store is not read.
    v3 = os.path.join(d, 'v3.zarr')
    os.mkdir(v3)
    open(os.path.join(v3, 'zarr.json'), 'w').write(
        '{"zarr_format": 3, "node_type": "array"}')
    expect_error(['planfilesrc', 'location=' + v3, '!', 'planfilesink',
                  'location=' + out], 'Zarr v3')


def zarr_is_not_written():
    d = plantest.tmpdir()
    src = os.path.join(d, 'in.npy')
    np.save(src, np.arange(10.0))
    out = os.path.join(d, 'out.zarr')
    expect_error(['planfilesrc', 'location=' + src, '!', 'planfilesink',
                  'location=' + out], 'Zarr stores are read')
    if os.path.exists(out):
        raise Failure('a .zarr was written')
    shutil.rmtree(d, ignore_errors=True)


skip_without_zarr()
plantest.run_cases([
    ('every dtype, layout and codec', every_dtype_layout_and_codec),
    ('fill values and separators', fill_values_and_separators),
    ('shards and wrap', shards_and_wrap),
    ('a missing array lists the names', missing_array_lists_the_names),
    ('corrupt and truncated chunks fail', corrupt_and_truncated_chunks_fail),
    ('unsupported metadata fails', unsupported_metadata_fails),
    ('Zarr is not written', zarr_is_not_written),
])
