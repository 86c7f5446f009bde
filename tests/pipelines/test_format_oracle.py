"""gst-plan's file formats against the reference libraries as oracles:
planfilesrc reads what numpy (np.save, np.savez, np.savez_compressed),
h5py and zarr-python write, with their values, dtypes and shapes, and
refuses what it does not read with an error naming it; planfilesink writes
what np.load, h5py and zarr read back equal (a .npy header numpy's own
parser takes, its data 64-byte aligned); and planfilesrc ! planfilesink
carries each format to each other one. The parts whose Python library is
missing, or that this gst-plan is built without, are skipped.

The pipelines run in this process (GStreamer through python3-gi), which
keeps some three hundred of them within seconds; the one case that must not
share libhdf5 with h5py (a filter h5py registers in it) runs in
plan-launch."""
import os
import sys

import numpy as np

import plantest
from plantest import Failure, expect_error

try:
    import h5py
except ImportError:
    h5py = None
try:
    import numcodecs
    import zarr
except ImportError:
    zarr = None

RNG = np.random.default_rng(20261203)
ALL_DTYPES = ['bool', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32',
              'int64', 'uint64', 'float16', 'float32', 'float64', 'complex64',
              'complex128']
Gst = plantest.gst()


def run(desc, timeout=60):
    """Runs a pipeline description in this process; returns None on EOS,
    the error's message on an error."""
    pipeline = Gst.parse_launch(desc)
    pipeline.set_state(Gst.State.PLAYING)
    msg = pipeline.get_bus().timed_pop_filtered(
        timeout * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if msg is None:
        raise Failure('pipeline did not finish in %d s: %s' % (timeout, desc))
    if msg.type == Gst.MessageType.ERROR:
        return msg.parse_error()[0].message
    return None


def copy(src, out, props=''):
    """planfilesrc location=src props ! planfilesink location=out; fails
    the test on an error."""
    err = run('planfilesrc location="%s" %s ! planfilesink location="%s"' %
              (src, props, out))
    if err:
        raise Failure('%s (%s): %s' % (src, props, err))


def refused(src, props, *texts):
    """Reading src must fail with each of texts in the message, and write
    nothing."""
    out = src + '.refused.npy'
    err = run('planfilesrc location="%s" %s ! planfilesink location="%s"' %
              (src, props, out))
    if err is None:
        raise Failure('%s (%s) was read; it should be refused' % (src, props))
    for t in texts:
        if t not in err:
            raise Failure('%s (%s): expected %r in %r' % (src, props, t, err))
    if os.path.exists(out):
        raise Failure('%s: an output was written' % src)


def same(got, want, what):
    """Equal values (NaNs equal), the dtype in the machine's order, the
    same shape."""
    want = np.asarray(want)
    plantest.assert_same(got, want.astype(want.dtype.newbyteorder('=')),
                         what)


def values(dtype, shape):
    """plantest.random_array's values, in any byte order."""
    dt = np.dtype(dtype)
    return plantest.random_array(dt.newbyteorder('='), shape, RNG).astype(dt)


def read_npy_checked(path):
    """np.load, after numpy's own header parser took the header, and
    checking that the data starts on a 64-byte boundary, as numpy puts
    it."""
    with open(path, 'rb') as f:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        else:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
        if f.tell() % 64:
            raise Failure('%s: data at byte %d, not a multiple of 64' %
                          (path, f.tell()))
    a = np.load(path)
    if a.shape != shape or fortran or a.dtype != dtype:
        raise Failure('%s: np.load disagrees with the header' % path)
    return a


# --- reading what the reference writers wrote -------------------------------

def npy_every_dtype_and_layout():
    """np.save of every dtype; 0-d, empty, one-row, very wide, a
    non-contiguous view (np.save writes it C-contiguous), Fortran order
    where it is the same bytes as C order; header versions 1.0, 2.0 and
    3.0 of every dtype, little- and big-endian, in C and Fortran order."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    cases = [(dt, s) for dt in ALL_DTYPES for s in [(37, 3), (), (0,)]]
    cases += [('float32', (0, 5)), ('int16', (1, 4)), ('float64', (2, 1 << 20)),
              ('uint8', (3, 2, 2, 2, 1, 2, 1, 3))]
    for i, (dtype, shape) in enumerate(cases):
        a = values(dtype, shape)
        path = os.path.join(d, 'a%d.npy' % i)
        np.save(path, a)
        copy(path, out)
        same(read_npy_checked(out), a, '%s %s' % (dtype, shape))
    base = values('float64', (10, 10))
    views = {'strided': base[::2, 1::3], 'fortran column':
             np.asfortranarray(base[:, :1]), 'fortran row':
             np.asfortranarray(base[:1]), 'fortran 1-d': np.asfortranarray(base[0])}
    for name, a in views.items():
        path = os.path.join(d, 'v.npy')
        np.save(path, a)
        copy(path, out)
        same(np.load(out), a, name)
    # Every header version numpy writes, with every dtype in both byte
    # orders, C and Fortran order, 0-d and empty: the copy has np.load's
    # values, bit for bit (NaN payloads of random bits included).
    for version in [(1, 0), (2, 0), (3, 0)]:
        for dtype in ALL_DTYPES:
            for order in '<>':
                dt = np.dtype(dtype).newbyteorder(order)
                for shape, fortran in [((5, 3), order == '>'), ((4, 3, 2), True),
                                       ((), False), ((0, 3), True)]:
                    n = int(np.prod(shape)) * dt.itemsize
                    a = RNG.integers(0, 256, n, np.uint8).view(dt).reshape(
                        shape) if dtype != 'bool' else \
                        RNG.integers(0, 2, shape).astype(bool)
                    if fortran:
                        a = np.asfortranarray(a)
                    path = os.path.join(d, 'v.npy')
                    with open(path, 'wb') as f:
                        np.lib.format.write_array(f, a, version=version)
                    copy(path, out)
                    want = np.load(path)
                    plantest.assert_bits(
                        np.load(out), want.astype(want.dtype.newbyteorder(
                            '='), order='C'),
                        'version %s %s %s%s' % (version, dt.str, shape,
                                                ' F' if fortran else ''))


def npy_refused_by_name():
    """What the .npy reader does not read is refused with an error naming
    it (docs/arrays.md, "Files"). (Big-endian and Fortran-ordered arrays
    are read: test_npy_layouts.py.)"""
    d = plantest.tmpdir()
    cases = [
        (np.zeros(3, [('a', '<i4'), ('b', '<f8')]), 'structured'),
        (np.array(['ab', 'c']), "'<U2'"),
        (np.array([b'ab', b'c']), "'|S2'"),
        (np.array(['2020-01-01'], 'M8[D]'), "'<M8[D]'"),
        (np.zeros(3, np.longdouble), "'<f16'"),
        (np.zeros((5, 0)), 'axis 1 has 0 elements'),
        (np.zeros((0, 0)), 'axis 1 has 0 elements'),
    ]
    for i, (a, text) in enumerate(cases):
        path = os.path.join(d, 'r%d.npy' % i)
        np.save(path, a)
        refused(path, '', text)
    path = os.path.join(d, 'obj.npy')
    np.save(path, np.array([1, 'a'], dtype=object), allow_pickle=True)
    refused(path, '', "'|O'")


def npz_members():
    """np.savez and np.savez_compressed archives of several members, with
    odd names (spaces, dots, slashes, non-ASCII), positional arr_N, empty
    and 0-d members, each read by member= against np.load."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    members = {'x': values('float64', (50, 4)), 'odd name': values('int8', (3,)),
               'a.b': values('uint16', (2, 2)), 'ü': values('complex64', (1, 4)),
               'z/sub': values('bool', (9,)), 'e': np.zeros((0, 3), 'f4'),
               's': np.float32(2.5)}
    for save in (np.savez, np.savez_compressed):
        path = os.path.join(d, save.__name__ + '.npz')
        save(path, **members)
        with np.load(path) as z:
            for k in z.files:
                copy(path, out, 'member="%s"' % k)
                same(np.load(out), z[k], '%s %r' % (save.__name__, k))
        path = os.path.join(d, save.__name__ + '-pos.npz')
        save(path, members['x'], members['a.b'])
        copy(path, out, 'member=arr_1')
        same(np.load(out), members['a.b'], save.__name__ + ' arr_1')


def h5_layouts_and_filters():
    """h5py's contiguous, chunked and compact layouts; gzip, shuffle,
    fletcher32, scale-offset; big-endian types; partial last chunks,
    chunks splitting the inner axes, a resized dataset, chunks never
    written (the fill value); nested groups; 0-d and empty datasets. Read
    whole and as a shard, against h5py."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    path = os.path.join(d, 'h.h5')
    big = values('float64', (1003, 5))
    with h5py.File(path, 'w') as f:
        f['contig'] = big
        f.create_dataset('chunked', data=big, chunks=(100, 5))
        f.create_dataset('inner', data=big, chunks=(64, 2))
        f.create_dataset('partial', data=big[:1000], chunks=(300, 3))
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_layout(h5py.h5d.COMPACT)
        dsid = h5py.h5d.create(f.id, b'compact', h5py.h5t.IEEE_F64LE,
                               h5py.h5s.create_simple((10, 5)), dcpl=dcpl)
        dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(big[:10]))
        f.create_dataset('gzip', data=big, chunks=(64, 5), compression='gzip',
                         compression_opts=6)
        f.create_dataset('gzip_shuffle', data=big, chunks=(64, 5),
                         compression='gzip', shuffle=True)
        f.create_dataset('gzip_inner', data=big, chunks=(64, 3),
                         compression='gzip', shuffle=True)
        f.create_dataset('fletcher', data=big, chunks=(64, 5), fletcher32=True)
        f.create_dataset('scaleoffset_i', data=(big * 1000).astype('i4'),
                         chunks=(64, 5), scaleoffset=0)
        f.create_dataset('scaleoffset_f', data=big, chunks=(64, 5),
                         scaleoffset=3)
        f['be_f8'] = big.astype('>f8')
        f.create_dataset('be_i4_gzip', data=(big * 100).astype('>i4'),
                         chunks=(77, 5), compression='gzip')
        f['be_c16'] = (big + 1j * big).astype('>c16')
        f['be_f2'] = big.astype('>f2')
        ds = f.create_dataset('resized', shape=(10, 5), maxshape=(None, 5),
                              chunks=(4, 5), dtype='f4')
        ds[:] = big[:10]
        ds.resize((23, 5))
        ds[10:] = big[10:23]
        ds = f.create_dataset('fill', shape=(30, 2), chunks=(7, 2), dtype='i8',
                              fillvalue=-5)
        ds[0:7] = 1
        ds[21:28] = 2
        f.create_group('g/h').create_dataset('deep', data=big[:7, 0])
        f['scalar'] = np.float32(4.5)
        f['empty'] = np.zeros((0, 3), 'i2')
        f.create_dataset('empty_chunked', shape=(0, 3), maxshape=(None, 3),
                         chunks=(10, 3), dtype='f4', compression='gzip')
        for dt in ALL_DTYPES:
            f['dt_' + dt] = values(dt, (20, 3))
        f['str'] = np.array([b'a', b'b'])
    with h5py.File(path, 'r') as f:
        names = []
        f.visititems(lambda k, v: names.append(k)
                     if isinstance(v, h5py.Dataset) else None)
        for k in names:
            if k == 'str':
                continue
            want = f[k][()]
            copy(path, out, 'dataset=/' + k)
            same(np.load(out), want, 'h5 ' + k)
            if f[k].chunks and len(want) > 17:
                copy(path, out, 'dataset=/%s offset=5 length=12 blocksize=8'
                     % k)
                same(np.load(out), want[5:17], 'h5 %s[5:17]' % k)
    refused(path, 'dataset=/str', 'string')


def h5_missing_filter_named():
    """A dataset stored through a filter libhdf5 lacks (32001, blosc's, a
    plugin not installed here) is refused at the start, naming the filter,
    rather than with libhdf5's plugin search when its first chunk is read.
    A dataset with no chunk stored needs no filter and reads as its fill
    value. (h5py's own lzf, 32000, gst-plan reads: test_h5.py.)"""
    d = plantest.tmpdir()
    path = os.path.join(d, 'blosc.h5')
    with h5py.File(path, 'w') as f:
        b = f.create_dataset('b', shape=(1000,), dtype='f8', chunks=(100,),
                             compression=32001, allow_unknown_filter=True)
        b.id.write_direct_chunk((0,), bytes(100), filter_mask=0)
        f.create_dataset('unwritten', shape=(50,), chunks=(10,), dtype='i4',
                         compression=32001, allow_unknown_filter=True,
                         fillvalue=3)
    out = os.path.join(d, 'out.npy')
    expect_error(['planfilesrc', 'location=' + path, 'dataset=/b', '!',
                  'planfilesink', 'location=' + out],
                 "its dataset '/b'", "HDF5 filter 32001",
                 'which this libhdf5 does not have')
    if os.path.exists(out):
        raise Failure('blosc: an output was written')
    plantest.launch('planfilesrc', 'location=' + path, 'dataset=/unwritten',
                    '!', 'planfilesink', 'location=' + out)
    same(np.load(out), np.full(50, 3, 'i4'), 'blosc never written')


def zarr_arrays():
    """zarr-python's v2 arrays: every dtype, big-endian ones, every
    compressor gst-plan reads (and the others refused by name), both
    dimension separators, fill values with chunks missing, partial edge
    chunks, chunks larger than the array, 0-d and empty arrays, groups;
    Fortran order (chunks transposed as they are read), whole and as a
    shard."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    n = [0]

    def make(data=None, **kw):
        n[0] += 1
        path = os.path.join(d, 'a%d.zarr' % n[0])
        shape = kw.pop('shape', None if data is None else data.shape)
        dtype = kw.pop('dtype', None if data is None else data.dtype)
        z = zarr.open(path, mode='w', shape=shape, dtype=dtype, **kw)
        if data is not None:
            z[...] = data
        return path, z

    def check(what, z, path, props=''):
        copy(path, out, props)
        same(np.load(out), z[...], what)

    big = values('float64', (103, 7))
    comps = {'none': None, 'zlib': numcodecs.Zlib(3), 'gzip': numcodecs.GZip(5),
             'zstd': numcodecs.Zstd(3),
             'blosc-lz4': numcodecs.Blosc('lz4', shuffle=1),
             'blosc-zstd-bit': numcodecs.Blosc('zstd', shuffle=2),
             'blosc-noshuffle': numcodecs.Blosc('blosclz', shuffle=0)}
    for name, c in comps.items():
        path, z = make(big, chunks=(10, 3), compressor=c)
        check('compressor ' + name, z, path)
    for c, name in [(numcodecs.LZ4(), 'lz4'), (numcodecs.BZ2(), 'bz2')]:
        path, z = make(big, chunks=(10, 3), compressor=c)
        refused(path, '', "compressor '%s' is not supported" % name)
    for dt in ALL_DTYPES + ['>i4', '>u2', '>f2', '>f8', '>c8', '>c16']:
        path, z = make(values(dt, (41, 3)), chunks=(16, 2))
        check('dtype ' + dt, z, path)
    for sep in '/.':
        path, z = make(big, chunks=(10, 3), dimension_separator=sep)
        check('separator ' + sep, z, path)
    for dt, fill in [('float32', -1.5), ('float64', np.nan), ('int16', -7),
                     ('int16', None), ('bool', True), ('complex64', 1 + 2j),
                     ('float32', -np.inf), ('uint64', 2 ** 64 - 1),
                     ('int64', -2 ** 63), ('float16', 0.1)]:
        path, z = make(shape=(50, 4), chunks=(8, 3), dtype=dt,
                       fill_value=fill)
        z[10:20, 0:2] = 1
        # zarr-python reads a missing chunk of fill value None as
        # uninitialised memory; the specification (and gst-plan) says 0.
        want = z[...] if fill is not None else np.where(
            (np.arange(50)[:, None] >= 10) & (np.arange(50)[:, None] < 20)
            & (np.arange(4) < 2), 1, 0).astype(dt)
        copy(path, out)
        same(np.load(out), want, 'fill %r' % (fill,))
    path, z = make(big[:101, :5], chunks=(25, 3))
    check('edge chunks', z, path)
    copy(path, out, 'offset=30 length=47 blocksize=8')
    same(np.load(out), z[30:77], 'edge chunks, a shard')
    path, z = make(big, chunks=(1000, 100))
    check('chunk larger than the array', z, path)
    path, z = make(np.array(2.5), chunks=())
    check('0-d', z, path)
    path, z = make(np.zeros((0, 3)), chunks=(5, 3))
    check('empty', z, path)
    path, z = make(values('float32', (3, 100000)), chunks=(1, 30000))
    check('wide rows', z, path)
    for dtype, shape, chunks, c in [
            ('int32', (30, 1), (7, 1), None), ('int32', (4, 9), (1, 4), None),
            ('int32', (20,), (6,), None), ('int32', (5, 6, 2), (1, 6, 1), None),
            ('float64', (103, 7), (10, 3), None),
            ('>c16', (41, 5), (8, 5), numcodecs.Zstd(1)),
            ('uint16', (23, 4, 3), (5, 3, 2), numcodecs.Blosc('lz4', shuffle=1)),
            ('bool', (64, 6), (64, 6), numcodecs.Zlib(1))]:
        path, z = make(values(dtype, shape), chunks=chunks, order='F',
                       compressor=c)
        check('order F, %s chunks %s' % (dtype, chunks), z, path)
        copy(path, out, 'offset=3 length=11 blocksize=8')
        same(np.load(out), z[3:14], 'order F, %s chunks %s, a shard' %
             (dtype, chunks))
    path, z = make(shape=(30, 4), chunks=(7, 3), dtype='float32', order='F',
                   fill_value=-2.5)
    z[8:20, 1:] = values('float32', (12, 3))
    check('order F, chunks missing', z, path)
    path, z = make(big, chunks=(10, 7), filters=[numcodecs.Delta('f8')])
    refused(path, '', 'filters')
    path, z = make(np.array(['a', 'bc']), chunks=(1,))
    refused(path, '', "'<U2'")
    path = os.path.join(d, 'group.zarr')
    g = zarr.open_group(path, mode='w')
    z = g.create_dataset('obs/temps', data=big, chunks=(20, 7))
    check('a group\'s array', z, path, 'dataset=obs/temps')


# --- what planfilesink writes, read by the reference readers ----------------

SINK_SHAPES = [(37, 3), (1,), (1, 4), (0,), (0, 5), (), (5, 2, 3)]


def sink_every_format_and_dtype():
    """Every dtype in every shape (empty, one row, 0-d included) written as
    .npy, HDF5 and Zarr v2, read back by np.load (its header through
    numpy's own parser), h5py and zarr; raw output is the array's bytes."""
    d = plantest.tmpdir()
    src = os.path.join(d, 'in.npy')
    formats = ['npy', 'raw']
    if h5py is not None and plantest.built_with('hdf5'):
        formats.append('h5')
    if zarr is not None and plantest.built_with('zarr'):
        formats.append('zarr')
    for dtype in ALL_DTYPES:
        for shape in SINK_SHAPES:
            a = values(dtype, shape)
            np.save(src, a)
            for fmt in formats:
                out = os.path.join(d, 'out.' + fmt)
                copy(src, out)
                what = '%s %s %s' % (fmt, dtype, shape)
                if fmt == 'npy':
                    same(read_npy_checked(out), a, what)
                elif fmt == 'raw':
                    with open(out, 'rb') as f:
                        if f.read() != a.tobytes():
                            raise Failure(what + ': not the array\'s bytes')
                elif fmt == 'h5':
                    with h5py.File(out, 'r') as f:
                        same(f['data'][()], a, what)
                else:
                    same(zarr.open(out, mode='r')[...], a, what)


def sink_after_planmap_and_options():
    """planmap changing the dtype before the sink; HDF5 and Zarr outputs
    in a nested dataset, compressed with every codec, in chunks that do not
    divide the rows; read back by the reference readers."""
    d = plantest.tmpdir()
    src = os.path.join(d, 'in.npy')
    a = RNG.standard_normal((100, 3))  # x * 100 fits in int16
    np.save(src, a)
    maps = [('x', 'float32', a.astype('f4')), ('x > 0', None, a > 0),
            ('x', 'complex64', a.astype('c8')),
            ('x * 100', 'int16', (a * 100).astype('i2'))]
    readers = {'npy': read_npy_checked}
    if h5py is not None and plantest.built_with('hdf5'):
        def read_h5(p, ds='data'):
            with h5py.File(p, 'r') as f:
                return f[ds][()]
        readers['h5'] = read_h5
    if zarr is not None and plantest.built_with('zarr'):
        readers['zarr'] = lambda p, ds=None: (
            zarr.open(p, mode='r')[ds] if ds else zarr.open(p, mode='r'))[...]
    for expr, dtype, want in maps:
        for fmt, read in readers.items():
            out = os.path.join(d, 'map.' + fmt)
            err = run('planfilesrc location=%s ! planmap expr="%s" %s ! '
                      'planfilesink location=%s' %
                      (src, expr, 'dtype=' + dtype if dtype else '', out))
            if err:
                raise Failure('%s %s: %s' % (fmt, expr, err))
            same(read(out), want, '%s after planmap %s %s' % (fmt, expr, dtype))
    codecs = {'h5': ['gzip'], 'zarr': ['gzip', 'zstd', 'blosc-lz4', 'blosc-zstd']}
    for fmt in [f for f in readers if f != 'npy']:
        for codec in codecs[fmt]:
            for dtype, shape in [('complex128', (50, 2)), ('bool', (50,)),
                                 ('float16', (0, 2)), ('int32', ())]:
                b = values(dtype, shape)
                np.save(src, b)
                out = os.path.join(d, 'c.' + fmt)
                err = run('planfilesrc location=%s ! planfilesink location=%s '
                          'dataset=g/h/x compression=7 chunk-rows=7 codec=%s' %
                          (src, out, codec))
                if err:
                    raise Failure('%s %s: %s' % (fmt, codec, err))
                same(readers[fmt](out, 'g/h/x'), b,
                     '%s %s %s %s' % (fmt, codec, dtype, shape))


def round_trips():
    """planfilesrc location=in ! planfilesink location=out from each
    format the reference libraries write to each format gst-plan writes;
    the values, dtype and shape survive each."""
    d = plantest.tmpdir()
    a = values('complex64', (257, 3))
    ins = {}
    ins['npy'] = (os.path.join(d, 'in.npy'), '')
    np.save(ins['npy'][0], a)
    ins['npz'] = (os.path.join(d, 'in.npz'), 'member=b')
    np.savez_compressed(ins['npz'][0], a=a[:3], b=a)
    outs = ['npy', 'raw']
    if h5py is not None and plantest.built_with('hdf5'):
        ins['h5'] = (os.path.join(d, 'in.h5'), 'dataset=/g/a')
        with h5py.File(ins['h5'][0], 'w') as f:
            f.create_dataset('g/a', data=a.astype('>c8'), chunks=(10, 3),
                             compression='gzip', shuffle=True)
        outs.append('h5')
    if zarr is not None and plantest.built_with('zarr'):
        ins['zarr'] = (os.path.join(d, 'in.zarr'), '')
        zarr.open(ins['zarr'][0], mode='w', shape=a.shape, chunks=(20, 2),
                  dtype='>c8', compressor=numcodecs.Zstd(1))[...] = a
        outs.append('zarr')
    for fin, (path, props) in ins.items():
        for fout in outs:
            out = os.path.join(d, 'out.' + fout)
            copy(path, out, props)
            what = '%s to %s' % (fin, fout)
            if fout == 'npy':
                same(read_npy_checked(out), a, what)
            elif fout == 'raw':
                with open(out, 'rb') as f:
                    if f.read() != a.tobytes():
                        raise Failure(what + ': not the array\'s bytes')
            elif fout == 'h5':
                with h5py.File(out, 'r') as f:
                    same(f['data'][()], a, what)
            else:
                same(zarr.open(out, mode='r')[...], a, what)


def special_float_bits():
    """-0.0, infinities, subnormals and NaNs with payloads (and a sign)
    keep their bits through every output format and back, and the
    reference readers see the same bits."""
    d = plantest.tmpdir()
    src = os.path.join(d, 'in.npy')
    back = os.path.join(d, 'back.npy')
    outs = {'npy': np.load,
            'raw': None}
    if h5py is not None and plantest.built_with('hdf5'):
        def read_h5(p):
            with h5py.File(p, 'r') as f:
                return f['data'][()]
        outs['h5'] = read_h5
    if zarr is not None and plantest.built_with('zarr'):
        outs['zarr'] = lambda p: zarr.open(p, mode='r')[...]
    for dtype in ['float16', 'float32', 'float64', 'complex64', 'complex128']:
        real = np.dtype('f%d' % (np.dtype(dtype).itemsize //
                                 (2 if dtype.startswith('complex') else 1)))
        uint = np.dtype('u%d' % real.itemsize)
        with np.errstate(all='ignore'):
            bits = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40,
                             5e-324, 6e-8], real).view(uint)
        sign = np.array(1, uint) << np.array(real.itemsize * 8 - 1, uint)
        bits = np.append(bits, [bits[4] | np.array(1, uint),
                                bits[4] | np.array(2, uint) | sign]).astype(uint)
        a = bits.view(real)
        if real != np.dtype(dtype):
            a = np.stack([a, a[::-1]], -1).copy().view(dtype).ravel()
        np.save(src, a)
        for fmt, read in outs.items():
            out = os.path.join(d, 'out.' + fmt)
            copy(src, out)
            copy(out, back, 'dtype=' + dtype if fmt == 'raw' else '')
            plantest.assert_bits(np.load(back), a, '%s through %s' %
                                 (dtype, fmt))
            got = np.fromfile(out, dtype) if read is None else read(out)
            plantest.assert_bits(got, a, '%s in %s' % (dtype, fmt))


cases = [('npy every dtype and layout', npy_every_dtype_and_layout),
         ('npy refused by name', npy_refused_by_name),
         ('npz members', npz_members)]
if h5py is None:
    print('     h5py (python3-h5py) is not installed: the HDF5 cases are '
          'skipped')
elif not plantest.built_with('hdf5'):
    print('     gst-plan is built without HDF5: the HDF5 cases are skipped')
else:
    cases += [('h5 layouts and filters', h5_layouts_and_filters),
              ('h5 missing filter named', h5_missing_filter_named)]
if zarr is None:
    print('     zarr (python3-zarr) is not installed: the Zarr cases are '
          'skipped')
elif not plantest.built_with('zarr'):
    print('     gst-plan is built without Zarr: the Zarr cases are skipped')
else:
    cases.append(('zarr arrays', zarr_arrays))
cases += [('sink every format and dtype', sink_every_format_and_dtype),
          ('sink after planmap and options', sink_after_planmap_and_options),
          ('round trips', round_trips),
          ('special float bits', special_float_bits)]

if __name__ == '__main__':
    plantest.run_cases(cases)
    sys.exit(0)
