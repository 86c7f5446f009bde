"""float16 in HDF5 and Zarr, complex64 and complex128 in Zarr, read and
written, against h5py, zarr-python 2 and zarr 3: 1-D to 3-D, chunks that
do not divide the shape, compressed and not, big-endian, fill values of
chunks never written; and the 2-byte floats that are not IEEE binary16
(bfloat16) refused with a clear error."""
import json
import os
import subprocess
import sys

import numpy as np

import plantest
from plantest import Failure, expect_error, launch

try:
    import h5py
except ImportError:
    h5py = None
try:
    import numcodecs
    import zarr
except ImportError:
    zarr = None

RNG = np.random.default_rng(20261202)
ZARR3 = os.environ.get('PLAN_ZARR3_PYTHON') or os.path.join(
    os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'),
    'gst-plan', 'zarr3', 'bin', 'python')
DTYPES = ['float16', 'complex64', 'complex128']
LAYOUTS = [((997,), (100,)), ((61, 5), (7, 3)), ((23, 3, 4), (5, 2, 3))]


def values(dtype, shape):
    a = plantest.random_array(dtype, shape, RNG)
    flat = a.reshape(-1)
    if flat.size > 4:
        # the values that round-trip only when the bytes do
        special = [np.inf, -np.inf, np.nan, -0.0]
        if dtype == 'float16':
            special[3] = np.float16(6e-8)     # a subnormal
        flat[:4] = np.array(special).astype(dtype)
    return a


def read(path, out, *props):
    launch('planfilesrc', 'location=' + path, 'blocksize=1000', *props, '!',
           'planfilesink', 'location=' + out)
    return np.load(out)


def has_build(fmt, path):
    """Whether gst-plan reads @fmt (@path is such a file or store; any
    other error is left to the cases)."""
    try:
        launch('planfilesrc', 'location=' + path, '!', 'fakesink')
    except plantest.Failure as e:
        if 'built without' in str(e):
            print('     gst-plan is built without %s: skipped' % fmt)
            return False
    return True


def h5_float16():
    """h5py's float16 (contiguous, chunked, gzip+shuffle, big-endian, a
    fill value) read as float16; planfilesink's float16 dataset read by
    h5py as float16, bit for bit."""
    if h5py is None:
        print('     h5py is not installed: skipped')
        return
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    want = {}
    with h5py.File(path, 'w') as f:
        for i, (shape, chunks) in enumerate(LAYOUTS):
            a = values('float16', shape)
            f.create_dataset('c%d' % i, data=a, chunks=chunks,
                             compression='gzip' if i == 1 else None,
                             shuffle=i == 1)
            f.create_dataset('be%d' % i, data=a, dtype='>f2')
            want['c%d' % i] = want['be%d' % i] = a
        z = f.create_dataset('fill', shape=(50, 3), chunks=(8, 3),
                             dtype='f2', fillvalue=np.float16(-1.5))
        z[8:20] = values('float16', (12, 3))
        want['fill'] = z[...]
    if not has_build('HDF5', path):
        return
    for name, a in want.items():
        plantest.assert_same(read(path, out, 'dataset=' + name), a,
                             'h5 float16 ' + name)
    src, h5 = os.path.join(d, 'src.npy'), os.path.join(d, 'o.h5')
    for i, (shape, _) in enumerate(LAYOUTS):
        a = values('float16', shape)
        np.save(src, a)
        props = ['chunk-rows=7'] + (['compression=3'] if i == 1 else [])
        launch('planfilesrc', 'location=' + src, 'blocksize=1000', '!',
               'planfilesink', 'location=' + h5, 'dataset=/h', *props)
        with h5py.File(h5, 'r') as f:
            got = f['h'][...]
            if f['h'].chunks[0] != 7:
                raise Failure('h5 sink float16: chunks %s' % (f['h'].chunks,))
        plantest.assert_same(got, a, 'h5 sink float16 %s' % (shape,))
        plantest.assert_same(read(h5, out, 'dataset=/h'), a,
                             'h5 float16 read back %s' % (shape,))


def h5_bfloat16_refused():
    """A 2-byte float that is not binary16 is refused, naming it."""
    if h5py is None:
        return
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'bf.h5'), os.path.join(d, 'out.npy')
    bf16 = h5py.h5t.IEEE_F32LE.copy()
    bf16.set_fields(15, 7, 8, 0, 7)
    bf16.set_size(2)
    bf16.set_ebias(127)
    with h5py.File(path, 'w') as f:
        space = h5py.h5s.create_simple((4,))
        h5py.h5d.create(f.id, b'bf', bf16, space).close()
    if not has_build('HDF5', path):
        return
    expect_error(['planfilesrc', 'location=' + path, 'dataset=bf', '!',
                  'planfilesink', 'location=' + out],
                 "'/bf'", 'not IEEE binary16')
    if os.path.exists(out):
        raise Failure('bfloat16: an output was written')


def zarr_v2():
    """zarr-python 2 writes float16, complex64 and complex128 arrays
    (little- and big-endian, compressed or not, fill values); planfilesrc
    reads them; planfilesink writes them and zarr reads them."""
    if zarr is None:
        print('     zarr is not installed: skipped')
        return
    d = plantest.tmpdir()
    store, out = os.path.join(d, 'g.zarr'), os.path.join(d, 'out.npy')
    g = zarr.open_group(store, mode='w')
    codecs = [None, numcodecs.Zstd(level=3),
              numcodecs.Blosc(cname='lz4', clevel=5)]
    want = {}
    for dtype in DTYPES:
        for i, (shape, chunks) in enumerate(LAYOUTS):
            a = values(dtype, shape)
            g.create_dataset('%s/c%d' % (dtype, i), data=a, chunks=chunks,
                             compressor=codecs[i])
            g.create_dataset('%s/be%d' % (dtype, i), data=a, chunks=chunks,
                             dtype=np.dtype(dtype).newbyteorder('>'),
                             compressor=codecs[(i + 1) % 3])
            want['%s/c%d' % (dtype, i)] = want['%s/be%d' % (dtype, i)] = a
        fill = {'float16': np.nan, 'complex64': 1.5 - 2j,
                'complex128': complex(np.nan, 3)}[dtype]
        z = g.create_dataset('%s/fill' % dtype, shape=(40, 3), chunks=(7, 2),
                             dtype=dtype, fill_value=fill)
        z[7:14, :2] = values(dtype, (7, 2))
        want['%s/fill' % dtype] = z[...]
    if not has_build('Zarr', os.path.join(store, 'float16', 'c0')):
        return
    for name, a in want.items():
        got = read(store, out, 'dataset=' + name)
        plantest.assert_same(got, a.astype(a.dtype.newbyteorder('=')),
                             'zarr v2 ' + name)
    src, o = os.path.join(d, 'src.npy'), os.path.join(d, 'o.zarr')
    for dtype in DTYPES:
        for i, (shape, _) in enumerate(LAYOUTS):
            a = values(dtype, shape)
            np.save(src, a)
            props = ['chunk-rows=7']
            if i > 0:
                props += ['compression=3', 'codec=' +
                          ['zstd', 'blosc-lz4'][i - 1]]
            launch('planfilesrc', 'location=' + src, 'blocksize=1000', '!',
                   'planfilesink', 'location=' + o, *props)
            z = zarr.open_array(o, mode='r')
            what = 'zarr v2 sink %s %s' % (dtype, shape)
            if z.dtype != np.dtype(dtype) or z.chunks[0] != 7:
                raise Failure('%s: dtype %s chunks %s' % (what, z.dtype,
                                                          z.chunks))
            plantest.assert_same(z[...], a, what)
            plantest.assert_same(read(o, out), a, what + ' read back')


# Run by zarr 3's python in a directory: writes the v3 arrays the test
# reads, saves what zarr 3 reads of them (want-NAME.npy) and reads back
# the stores named on the command line (got-N.npy).
V3_SCRIPT = r"""
import sys, numpy as np, zarr
from zarr.codecs import BytesCodec, ZstdCodec
rng = np.random.default_rng(int(sys.argv[1]))
if sys.argv[2] == 'write':
    layouts = [((997,), (100,)), ((61, 5), (7, 3)), ((23, 3, 4), (5, 2, 3))]
    for dtype in ['float16', 'complex64', 'complex128']:
        for i, (shape, chunks) in enumerate(layouts):
            a = rng.standard_normal(shape)
            if dtype != 'float16':
                a = a + 1j * rng.standard_normal(shape)
            a = a.astype(dtype)
            for endian in ['little', 'big']:
                name = '%s-%d-%s.zarr' % (dtype, i, endian)
                z = zarr.create_array(
                    name, shape=shape, chunks=chunks, dtype=dtype,
                    serializer=BytesCodec(endian=endian),
                    compressors=[ZstdCodec(level=3)] if i == 1 else None)
                z[...] = a
                np.save('want-' + name + '.npy', z[...])
        fill = {'float16': np.nan, 'complex64': 1.5 - 2j,
                'complex128': complex(np.nan, 3)}[dtype]
        name = '%s-fill.zarr' % dtype
        z = zarr.create_array(name, shape=(40, 3), chunks=(7, 2), dtype=dtype,
                              fill_value=fill)
        z[7:14, :2] = np.ones((7, 2), dtype)
        np.save('want-' + name + '.npy', z[...])
else:
    for i, path in enumerate(sys.argv[3:]):
        np.save('got-%d.npy' % i, zarr.open_array(path, mode='r')[...])
"""


def zarr_v3():
    """zarr 3 writes float16, complex64 and complex128 arrays (bytes
    little and big, zstd, fill values NaN and complex); planfilesrc reads
    them; planfilesink zarr-format=3 writes them and zarr 3 reads them."""
    if not os.access(ZARR3, os.X_OK):
        print('     zarr 3 is not installed (tools/bootstrap.sh installs it '
              'in %s): skipped' % os.path.dirname(ZARR3))
        return
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    p = subprocess.run([ZARR3, '-c', V3_SCRIPT, '7', 'write'], cwd=d,
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise Failure('zarr 3 could not write the stores:\n' + p.stderr)
    names = sorted(n for n in os.listdir(d) if n.endswith('.zarr'))
    if not has_build('Zarr', os.path.join(d, names[0])):
        return
    for name in names:
        plantest.assert_same(read(os.path.join(d, name), out),
                             np.load(os.path.join(d, 'want-%s.npy' % name)),
                             'zarr v3 ' + name)
    src = os.path.join(d, 'src.npy')
    stores, wants = [], []
    for dtype in DTYPES:
        for i, (shape, _) in enumerate(LAYOUTS):
            a = values(dtype, shape)
            np.save(src, a)
            o = os.path.join(d, 'o-%s-%d.zarr' % (dtype, i))
            props = ['chunk-rows=7', 'zarr-format=3']
            if i > 0:
                props += ['compression=3', 'codec=' +
                          ['zstd', 'blosc-zstd'][i - 1]]
            launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
                   'location=' + o, *props)
            meta = json.load(open(os.path.join(o, 'zarr.json')))
            if meta['data_type'] != dtype:
                raise Failure('v3 sink %s: data_type %s' % (dtype,
                                                            meta['data_type']))
            stores.append(o)
            wants.append(a)
    p = subprocess.run([ZARR3, '-c', V3_SCRIPT, '7', 'read'] + stores, cwd=d,
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise Failure('zarr 3 could not read the stores:\n' + p.stderr)
    for i, a in enumerate(wants):
        plantest.assert_same(np.load(os.path.join(d, 'got-%d.npy' % i)), a,
                             'zarr v3 sink ' + stores[i])


plantest.run_cases([
    ('HDF5 float16', h5_float16),
    ('HDF5 bfloat16 is refused', h5_bfloat16_refused),
    ('Zarr v2 float16 and complex', zarr_v2),
    ('Zarr v3 float16 and complex', zarr_v3),
])
