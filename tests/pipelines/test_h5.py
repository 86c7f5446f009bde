"""planfilesrc reading HDF5 datasets (and NetCDF-4 variables) against h5py:
every dtype, 1-D to 4-D and 0-d, contiguous and chunked (chunks that do not
divide the shape, larger than a buffer, of one row), compressed, big-endian,
empty; shards and seeks; and the errors of a missing dataset, a corrupt
chunk, a truncated file, a filter libhdf5 lacks and an unsupported dtype."""
import os
import shutil
import subprocess
import sys

import numpy as np

import plantest
from plantest import Failure, expect_error, launch

try:
    import h5py
except ImportError:
    print('h5py (python3-h5py) is not installed')
    sys.exit(77)

RNG = np.random.default_rng(20261203)
BLOCKSIZE = 1000


def skip_without_hdf5():
    """gst-plan may be built without HDF5 (-Dhdf5=disabled)."""
    d = plantest.tmpdir()
    path = os.path.join(d, 'probe.h5')
    with h5py.File(path, 'w') as f:
        f['x'] = np.arange(3)
    try:
        launch('planfilesrc', 'location=' + path, '!', 'fakesink')
    except Failure as e:
        if 'built without HDF5' not in str(e):
            raise
        print('gst-plan is built without HDF5')
        sys.exit(77)


def read(path, out, *props, blocksize=BLOCKSIZE):
    launch('planfilesrc', 'location=' + path, 'blocksize=%d' % blocksize,
           *props, '!', 'planfilesink', 'location=' + out)
    return np.load(out)


# Shapes and chunk shapes: chunks that do not divide the shape, chunks of
# one row, a chunk of more rows than a buffer of BLOCKSIZE bytes.
LAYOUTS = [
    ((997,), None),
    ((997,), (100,)),
    ((250, 3), (1, 3)),
    ((250, 3), (64, 2)),
    ((61, 2, 5), (7, 2, 3)),
    ((13, 3, 1, 4), (13, 2, 1, 3)),
    ((300, 7), (300, 7)),
]


def every_dtype_and_layout():
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    for i, dtype in enumerate(plantest.DTYPES + plantest.COMPLEX_DTYPES):
        layouts = LAYOUTS if dtype in ('bool', 'float32') else \
            [LAYOUTS[i % len(LAYOUTS)], LAYOUTS[(i + 3) % len(LAYOUTS)]]
        with h5py.File(path, 'w') as f:
            for j, (shape, chunks) in enumerate(layouts):
                a = plantest.random_array(dtype, shape, RNG)
                f.create_dataset('g/d%d' % j, data=a, chunks=chunks)
                f.create_dataset('g/z%d' % j, data=a, chunks=chunks or True,
                                 compression='gzip', shuffle=True)
                if dtype != 'bool':
                    f.create_dataset('be%d' % j, data=a.astype(
                        np.dtype(dtype).newbyteorder('>')), chunks=chunks)
        with h5py.File(path, 'r') as f:
            names = []
            f.visititems(lambda n, o: names.append(n)
                         if isinstance(o, h5py.Dataset) else None)
            for name in names:
                got = read(path, out, 'dataset=/' + name)
                want = f[name][...]
                plantest.assert_same(got, want.astype(want.dtype.newbyteorder(
                    '=')), '%s %s %s' % (dtype, name, f[name].chunks))


def scalar_and_empty():
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    with h5py.File(path, 'w') as f:
        f['scalar'] = np.float64(2.5)
        f.create_dataset('empty', shape=(0,), dtype='int32')
        f.create_dataset('empty2', shape=(0, 3), dtype='float32',
                         chunks=(4, 3), maxshape=(None, 3),
                         compression='gzip')
        f.create_dataset('noinner', shape=(5, 0), dtype='uint8')
        # Chunks never written read as the fill value.
        f.create_dataset('unwritten', shape=(40, 2), dtype='int16',
                         chunks=(8, 2), fillvalue=-7)
    with h5py.File(path, 'r') as f:
        for name in ['scalar', 'empty', 'empty2', 'unwritten']:
            got = read(path, out, 'dataset=' + name)
            plantest.assert_same(got, f[name][()] if name == 'scalar'
                                 else f[name][...], name)
    # An inner axis of length 0 is refused as it is in a .npy.
    expect_error(['planfilesrc', 'location=' + path, 'dataset=noinner', '!',
                  'planfilesink', 'location=' + out],
                 "its dataset '/noinner': shape (5, 0): axis 1 has 0 elements")


def shards_seeks_and_io_modes():
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    a = plantest.random_array('int32', (4099, 7), RNG)
    with h5py.File(path, 'w') as f:
        f['contig'] = a
        f.create_dataset('chunked', data=a, chunks=(300, 4),
                         compression='gzip')
    for name in ['contig', 'chunked']:
        modes = ['auto', 'read'] + (['mmap'] if name == 'contig' else [])
        for mode in modes:
            for offset, length in [(0, -1), (1000, 17), (250, 700),
                                   (4098, 1), (10, 0)]:
                got = read(path, out, 'dataset=/' + name, 'io-mode=' + mode,
                           'offset=%d' % offset, 'length=%d' % length)
                want = a[offset:] if length < 0 else a[offset:offset + length]
                plantest.assert_same(got, want, '%s %s rows %d+%d' %
                                     (name, mode, offset, length))


def buffer_rows(words):
    """The (OFFSET, OFFSET_END) of each buffer a source description sends
    to an appsink."""
    import gi
    gi.require_version('Gst', '1.0')
    from gi.repository import Gst
    Gst.init(None)
    pipeline = Gst.parse_launch(' '.join(words) + ' ! appsink name=s sync=false')
    sink = pipeline.get_by_name('s')
    pipeline.set_state(Gst.State.PLAYING)
    rows = []
    while True:
        sample = sink.emit('pull-sample')
        if sample is None:
            break
        buf = sample.get_buffer()
        rows.append((buf.offset, buf.offset_end))
    pipeline.set_state(Gst.State.NULL)
    return rows


def chunks_read_whole():
    """Buffers end at multiples of the dataset's chunk rows, so that each
    chunk is decompressed once: with chunks of 300 rows, a blocksize of
    1000 rows makes buffers of 900, and a shard from file row 250 starts
    with the 650 rows to file row 900."""
    d = plantest.tmpdir()
    path = os.path.join(d, 'in.h5')
    a = np.arange(4099 * 7, dtype=np.int32).reshape(4099, 7)
    with h5py.File(path, 'w') as f:
        f.create_dataset('chunked', data=a, chunks=(300, 4))
    rows = buffer_rows(['planfilesrc', 'location=' + path, 'offset=250',
                        'blocksize=%d' % (1000 * 28)])
    want = [(0, 650), (650, 1550), (1550, 2450), (2450, 3350), (3350, 3849)]
    if rows != want:
        raise Failure('buffers of rows %s, expected %s' % (rows, want))


def chunks_decoded_on_workers():
    """Chunks of whole rows filtered by deflate and shuffle are decoded by
    gst-plan on several workers, not by libhdf5: shuffle alone, deflate
    alone, both, a chunk stored without deflate (marked so in its filter
    mask, as libhdf5 does where an optional filter fails), chunks never
    written (the fill value), a last partial chunk, a start inside a chunk and buffers
    of one chunk each (queued in order); each read as h5py reads it."""
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    a = RNG.standard_normal((5003, 6)).astype(np.float32)
    block = RNG.standard_normal((50, 5))
    with h5py.File(path, 'w') as f:
        f.create_dataset('shuffle', data=a, chunks=(100, 6), shuffle=True)
        f.create_dataset('deflate', data=a, chunks=(100, 6),
                         compression='gzip')
        f.create_dataset('both', data=a, chunks=(64, 6), compression='gzip',
                         shuffle=True)
        masked = f.create_dataset('masked', data=np.zeros((3001, 5)),
                                  chunks=(50, 5), compression='gzip',
                                  shuffle=True)
        # Shuffled (filter 0) but not deflated (filter 1).
        shuffled = block.view(np.uint8).reshape(-1, 8).T.tobytes()
        masked.id.write_direct_chunk((150, 0), shuffled, filter_mask=0b10)
        part = f.create_dataset('part', shape=(1000, 3), dtype='i8',
                                chunks=(30, 3), compression='gzip',
                                shuffle=True, fillvalue=-7)
        part[100:400] = np.arange(900).reshape(300, 3)
    with h5py.File(path, 'r') as f:
        plantest.assert_same(f['masked'][150:200], block, 'h5py, masked')
        for name in ['shuffle', 'deflate', 'both', 'masked', 'part']:
            want = f[name][...]
            for props in [[], ['offset=77', 'length=%d' % (len(want) - 90)],
                          ['blocksize=%d' % (want[:1].nbytes * 30)]]:
                got = read(path, out, 'dataset=' + name, *props)
                if props[:1] == ['offset=77']:
                    want_here = want[77:len(want) - 13]
                else:
                    want_here = want
                plantest.assert_same(got, want_here, '%s %s' % (name, props))


def unfiltered_chunks_mapped():
    """Unfiltered chunks of whole rows, 512 KiB and more, are mapped from
    the file one chunk a buffer (io-mode=auto and mmap), as the file has
    them; a chunk never written is the fill value, a last partial chunk
    ends at the dataset's end, a shard may start inside a chunk. Smaller
    chunks cannot be mapped and say so."""
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    a = RNG.standard_normal((10000, 16)).astype(np.float32)
    with h5py.File(path, 'w') as f:
        # 8192 rows of 64 bytes: chunks of 512 KiB, the last one partial.
        f.create_dataset('big', data=a, chunks=(8192, 16))
        holes = f.create_dataset('holes', shape=(40000, 4), dtype='f8',
                                 chunks=(16384, 4), fillvalue=-2.5)
        holes[:16384] = 1.5
        holes[32768:] = np.arange(7232 * 4).reshape(7232, 4)
        f.create_dataset('small', data=a, chunks=(100, 16))
    with h5py.File(path, 'r') as f:
        for name in ['big', 'holes']:
            want = f[name][...]
            for mode in ['auto', 'mmap']:
                for offset, length in [(0, -1), (8000, 300), (9000, -1),
                                       (20000, 13000)]:
                    if offset >= len(want):
                        continue
                    got = read(path, out, 'dataset=' + name,
                               'io-mode=' + mode, 'offset=%d' % offset,
                               'length=%d' % length)
                    want_here = (want[offset:] if length < 0
                                 else want[offset:offset + length])
                    plantest.assert_same(got, want_here, '%s %s rows %d+%d'
                                         % (name, mode, offset, length))
        rows = buffer_rows(['planfilesrc', 'location=' + path,
                            'dataset=big', 'offset=100'])
        if rows != [(0, 8092), (8092, 9900)]:
            raise Failure('mapped chunks in buffers of rows %s' % rows)
    expect_error(['planfilesrc', 'location=' + path, 'dataset=small',
                  'io-mode=mmap', '!', 'planfilesink', 'location=' + out],
                 "its dataset '/small' is compressed, not in the machine's "
                 "byte order, or chunked other than in whole rows of at "
                 "least 512 KiB a chunk, so it cannot be mapped")


def wrap_stencil_reads_back():
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    a = RNG.standard_normal((3001, 5))
    with h5py.File(path, 'w') as f:
        f.create_dataset('grid', data=a, chunks=(64, 5), compression='gzip')
    launch('planfilesrc', 'location=' + path, 'dataset=/grid',
           'blocksize=%d' % (a.itemsize * 5 * 100), '!',
           'planstencil', 'window=n; c; s', 'expr=n + s - 2*c',
           'boundary=wrap', '!', 'planfilesink', 'location=' + out)
    p = np.pad(a, ((1, 1), (0, 0)), mode='wrap')
    plantest.assert_same(np.load(out), p[:-2] + p[2:] - 2 * p[1:-1], 'wrap')


def netcdf4_variable():
    try:
        import netCDF4
    except ImportError:
        print('     (netCDF4 not installed: NetCDF-4 not tried)')
        return
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'climate.nc'), os.path.join(d, 'out.npy')
    a = RNG.standard_normal((50, 4, 6)).astype(np.float32)
    with netCDF4.Dataset(path, 'w', format='NETCDF4') as nc:
        nc.createDimension('time', None)
        nc.createDimension('lat', 4)
        nc.createDimension('lon', 6)
        v = nc.createVariable('temps', 'f4', ('time', 'lat', 'lon'),
                              zlib=True, chunksizes=(7, 4, 6))
        v[:] = a
    plantest.assert_same(read(path, out, 'dataset=/temps'), a, 'NetCDF-4')
    # Its only variable is read without a dataset: the datasets the
    # netCDF library makes for the dimensions time, lat and lon (which no
    # variable is named after) are not variables, and are not counted
    # (they were: 'it holds 4 datasets, ...').
    plantest.assert_same(read(path, out), a, 'NetCDF-4, its only variable')
    with netCDF4.Dataset(path, 'a') as nc:
        nc.createVariable('lat', 'f8', ('lat',))[:] = np.arange(4.0)
        nc.createVariable('pr', 'f4', ('time', 'lat', 'lon'))[:] = a
    expect_error(['planfilesrc', 'location=' + path, 'dataset=/wind', '!',
                  'fakesink'], "it has no dataset '/wind'; its datasets are "
                 "'/lat', '/pr' and '/temps'")


def lzf_read_as_h5py_reads():
    """h5py's own LZF filter (32000), which libhdf5 alone does not have:
    every dtype, with and without shuffle, chunks of whole rows (decoded
    by gst-plan on its workers) and chunks that cut the rows or a file in
    the other byte order (decoded by libhdf5 through the filter gst-plan
    registers), chunks that LZF does not make smaller (stored raw, marked
    in their filter mask), long runs (back-references of the longest
    length, overlapping what they copy); each read as h5py reads it."""
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    with h5py.File(path, 'w') as f:
        for i, dtype in enumerate(plantest.DTYPES + plantest.COMPLEX_DTYPES):
            shape, chunks = LAYOUTS[1 + i % (len(LAYOUTS) - 1)]
            a = plantest.random_array(dtype, shape, RNG)
            for shuffle in [False, True]:
                name = '%s_%s' % (dtype, 'shuffle' if shuffle else 'lzf')
                f.create_dataset(name, data=a, chunks=chunks,
                                 compression='lzf', shuffle=shuffle)
            if dtype != 'bool':
                f.create_dataset('be_' + dtype, data=a.astype(
                    np.dtype(dtype).newbyteorder('>')), chunks=chunks,
                    compression='lzf', shuffle=i % 2 == 0)
        # Runs: repeated values (back-references of up to 264 bytes, and of
        # an offset shorter than their length), steps, random noise (does
        # not compress: stored raw).
        runs = np.repeat(RNG.integers(0, 5, 400), RNG.integers(1, 300, 400))
        f.create_dataset('runs', data=runs[:60000].reshape(-1, 4),
                         chunks=(2500, 4), compression='lzf')
        f.create_dataset('steps', data=np.arange(80000.0).reshape(-1, 8),
                         chunks=(1000, 8), compression='lzf', shuffle=True)
        f.create_dataset('noise', data=RNG.standard_normal((3000, 5)),
                         chunks=(128, 5), compression='lzf')
        f.create_dataset('noise_cut', data=RNG.standard_normal((300, 50)),
                         chunks=(64, 7), compression='lzf')
        # Scale-offset before LZF (chunks of fewer bytes), a checksum
        # after it.
        f.create_dataset('scaled', data=RNG.integers(0, 1000, (2000, 3)),
                         chunks=(100, 3), compression='lzf', scaleoffset=0)
        f.create_dataset('summed', data=runs[:9000].reshape(-1, 3),
                         chunks=(100, 3), compression='lzf', shuffle=True,
                         fletcher32=True)
        part = f.create_dataset('part', shape=(1000, 3), dtype='i8',
                                chunks=(30, 3), compression='lzf',
                                fillvalue=-7)
        part[100:400] = np.arange(900).reshape(300, 3)
    with h5py.File(path, 'r') as f:
        masks = {name: {f[name].id.get_chunk_info(i).filter_mask
                        for i in range(f[name].id.get_num_chunks())}
                 for name in ['runs', 'noise', 'noise_cut']}
        if (masks['runs'] != {0} or 1 not in masks['noise']
                or 1 not in masks['noise_cut']):
            raise Failure('chunks compressed (0) or stored raw (1): %s'
                          % masks)
        for name in f:
            want = f[name][...]
            want = want.astype(want.dtype.newbyteorder('='))
            got = read(path, out, 'dataset=' + name)
            plantest.assert_same(got, want, name)
        for name in ['runs', 'steps', 'noise_cut', 'part']:
            want = f[name][...]
            got = read(path, out, 'dataset=' + name, 'offset=77',
                       'length=%d' % (len(want) - 90),
                       'blocksize=%d' % (want[:1].nbytes * 30))
            plantest.assert_same(got, want[77:len(want) - 13],
                                 name + ' rows 77-')


def lzf_plugin_is_left_in_place():
    """Where libhdf5 has a filter 32000 of its own (a plugin found in
    HDF5_PLUGIN_PATH), gst-plan does not register its LZF decoder over
    it: libhdf5 decodes through the plugin (here a test plugin that fails
    every chunk, saying so)."""
    build = os.environ.get('PLAN_BUILD_DIR')
    plugin = build and os.path.join(build, 'tests', 'pipelines',
                                    'libh5lzfplugin.so')
    if not plugin or not os.path.exists(plugin):
        print('     (the test plugin was not built: not tried)')
        return
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    plugins = os.path.join(d, 'plugins')
    os.mkdir(plugins)
    shutil.copy(plugin, plugins)
    with h5py.File(path, 'w') as f:
        f.create_dataset('be', data=np.arange(3000, dtype='>f8'),
                         chunks=(100,), compression='lzf')
    want = np.arange(3000.0)
    plantest.assert_same(read(path, out, 'dataset=be'), want, 'no plugin')
    os.environ['HDF5_PLUGIN_PATH'] = plugins
    try:
        expect_error(['planfilesrc', 'location=' + path, '!', 'planfilesink',
                      'location=' + out], "cannot read rows 0-",
                     "the test plugin's filter 32000 ran")
    finally:
        del os.environ['HDF5_PLUGIN_PATH']


def lzf_write_chunk(path, name, index, raw):
    with h5py.File(path, 'a') as f:
        ds = f[name]
        offset = (index * ds.chunks[0],) + (0,) * (ds.ndim - 1)
        ds.id.write_direct_chunk(offset, raw, filter_mask=0)


def lzf_corrupt_chunks_fail():
    """Corrupt LZF chunks fail with the rows they hold and what is wrong,
    whether gst-plan decodes them on its workers or libhdf5 through the
    filter gst-plan registers (a file of the other byte order): a
    back-reference to before the chunk's start, one of an offset past what
    is decoded, a chunk that decodes to more or to fewer bytes than a
    chunk has, a literal run or a back-reference cut off by the chunk's
    end; nothing written. (Run under ASan or valgrind, nothing is read or
    written outside the chunk.)"""
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    lit = bytes(range(32))
    # 100 rows of 2 float64: chunks of 1600 bytes.
    cases = [
        (b'\x00A\x20\x05', 'back-reference to before the start'),
        (b'\x1f' + lit + b'\x20\x20', 'back-reference to before the start'),
        (b'\x1f' + lit + b'\xe0\xff\x1f' * 7,
         'decodes to more'),
        (b'\x1f' + lit + b'\xe0\xff\x1f', 'decodes to fewer'),
        (b'\x1f' + lit[:5], 'literal run goes past the end'),
        (b'\x00A\xe0', 'cut off by the end'),
        (b'\x00A\xe0\x10', 'cut off by the end'),
        (b'\x00A\x20', 'cut off by the end'),
    ]
    for raw, text in cases:
        for order in ['<f8', '>f8']:
            with h5py.File(path, 'w') as f:
                f.create_dataset('x', data=np.arange(2000.0).reshape(1000, 2)
                                 .astype(order), chunks=(100, 2),
                                 compression='lzf')
            lzf_write_chunk(path, 'x', 7, raw)
            with h5py.File(path, 'r') as f:
                try:
                    f['x'][700:800]
                    h5py_reads = True
                except OSError:
                    h5py_reads = False
            # (h5py's own decoder takes a chunk of the wrong size, and
            # libhdf5 cuts or pads it.)
            if h5py_reads and 'decodes to' not in text:
                raise Failure('h5py reads the corrupt chunk %r' % raw)
            try:
                expect_error(['planfilesrc', 'location=' + path,
                              'blocksize=1600', '!', 'planfilesink',
                              'location=' + out],
                             "cannot read rows 700-800 of its dataset '/x'",
                             text)
            except Failure as e:
                raise Failure('%s chunk %r: %s' % (order, raw, e))
            if os.path.exists(out):
                raise Failure('an output was written from a corrupt chunk')


def huge_chunk_rows_are_not_aligned():
    """Chunks of 2^31 rows of 8 GiB (an extendable dataset's chunks may be
    longer than the dataset): a block of whole chunks would be 2^64
    bytes, which wrapped to 0 ('a buffer of 0 bytes cannot hold 2
    rows'); the rows are not aligned to the chunks, and are refused as
    too large for a buffer, by their size."""
    d = plantest.tmpdir()
    path = os.path.join(d, 'wide.h5')
    with h5py.File(path, 'w') as f:
        f.create_dataset('x', shape=(2, 2 ** 33), maxshape=(None, 2 ** 33),
                         chunks=(2 ** 31, 1), dtype='u1')
    expect_error(['planfilesrc', 'location=' + path, '!', 'fakesink'],
                 'rows of 8589934592 bytes')


def missing_dataset_lists_the_names():
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    with h5py.File(path, 'w') as f:
        f['temps'] = np.zeros(3)
        f['g/rain'] = np.ones(2)
    expect_error(['planfilesrc', 'location=' + path, 'dataset=/wind', '!',
                  'planfilesink', 'location=' + out],
                 "no dataset '/wind'", "'/g/rain' and '/temps'")
    expect_error(['planfilesrc', 'location=' + path, 'dataset=/g', '!',
                  'planfilesink', 'location=' + out],
                 "'/g' is a group, not a dataset")
    expect_error(['planfilesrc', 'location=' + path, '!',
                  'planfilesink', 'location=' + out], 'holds 2 datasets')
    if os.path.exists(out):
        raise Failure('an output was written')


def hard_linked_dataset_is_one_dataset():
    """A dataset reachable through two hard links is one dataset, as h5py's
    visititems visits it once: a file whose only dataset has two paths is
    read without dataset=, and the list of datasets an error gives names
    it once, by the first of its paths in name order."""
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    a = np.arange(6, dtype=np.int16).reshape(3, 2)
    with h5py.File(path, 'w') as f:
        f['g/temps'] = a
        f['alias'] = f['g/temps']
        f['g/again'] = f['g/temps']
    seen = []
    with h5py.File(path, 'r') as f:
        f.visititems(lambda name, obj: seen.append(name)
                     if isinstance(obj, h5py.Dataset) else None)
    if len(seen) != 1:
        raise Failure('h5py visits %s' % seen)
    plantest.assert_same(read(path, out), a, 'the one dataset')
    text = expect_error(['planfilesrc', 'location=' + path, 'dataset=/wind',
                         '!', 'planfilesink', 'location=' + out],
                        "no dataset '/wind'; its datasets are '/alias'")
    if 'again' in text or '/g/temps' in text:
        raise Failure('a dataset listed twice:\n%s' % text)
    with h5py.File(path, 'a') as f:
        f['other'] = np.zeros(2)
    expect_error(['planfilesrc', 'location=' + path, '!', 'planfilesink',
                  'location=' + out], "holds 2 datasets, '/alias' and "
                 "'/other'; name the one to read")


def external_links_read_their_own_file():
    """A dataset reached through an external link lies in another file,
    at offsets of that file: it is read through libhdf5 (the values of
    the linked dataset, not the bytes at the same offsets of the file
    named), contiguous, chunked for mapping and compressed alike, and
    io-mode=mmap says why it cannot map it. The file here has datasets
    of its own at those offsets, of other values."""
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    other = os.path.join(d, 'other.h5')
    want = {
        'flat': np.arange(6.0),
        'big': RNG.standard_normal((9000, 16)).astype(np.float32),
        'gz': np.arange(3000.0).reshape(100, 30),
    }
    for name, f_path, sign in [('', other, 1), ('own', path, -1)]:
        with h5py.File(f_path, 'w') as f:
            f['flat'] = sign * want['flat']
            f.create_dataset('big', data=sign * want['big'],
                             chunks=(8192, 16))
            f.create_dataset('gz', data=sign * want['gz'], chunks=(10, 30),
                             compression='gzip', shuffle=True)
    with h5py.File(path, 'a') as f:
        for name in want:
            f['e' + name] = h5py.ExternalLink('other.h5', '/' + name)
    for name, a in want.items():
        for mode in ['auto', 'read']:
            got = read(path, out, 'dataset=/e' + name, 'io-mode=' + mode)
            plantest.assert_same(got, a, 'external %s %s' % (name, mode))
        expect_error(['planfilesrc', 'location=' + path,
                      'dataset=/e' + name, 'io-mode=mmap', '!',
                      'planfilesink', 'location=' + out],
                     "its dataset '/e%s' lies in '" % name, "other.h5' (an "
                     "external link leads there), and is read through "
                     "libhdf5, not mapped")


def links_to_nothing_say_so():
    """A dataset named through a soft or external link that leads nowhere
    is an error that says where the link leads, not a missing dataset or
    a file without datasets."""
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    with h5py.File(path, 'w') as f:
        f['soft'] = h5py.SoftLink('/gone')
        f['ext'] = h5py.ExternalLink('nofile.h5', '/d')
    words = ['planfilesrc', 'location=' + path, '!', 'planfilesink',
             'location=' + out]
    expect_error(words[:2] + ['dataset=/soft'] + words[2:],
                 "'/soft' is a soft link to '/gone', which is not in the "
                 "file; the file holds no datasets")
    expect_error(words[:2] + ['dataset=ext'] + words[2:],
                 "'ext' is an external link to '/d' in 'nofile.h5', which "
                 "HDF5 cannot open (unable to open external file")
    with h5py.File(path, 'a') as f:
        f['real'] = np.zeros(3)
        f['type'] = np.dtype('f4')
    expect_error(words[:2] + ['dataset=/soft'] + words[2:],
                 "'/soft' is a soft link to '/gone', which is not in the "
                 "file; its datasets are '/real'")
    expect_error(words[:2] + ['dataset=/type'] + words[2:],
                 "'/type' is a named datatype, not a dataset")
    if os.path.exists(out):
        raise Failure('an output was written')


def corrupt_chunk_fails():
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    a = RNG.standard_normal((2000, 8))
    with h5py.File(path, 'w') as f:
        f.create_dataset('x', data=a, chunks=(100, 8), compression='gzip')
    with h5py.File(path, 'r') as f:
        info = f['x'].id.get_chunk_info(7)
    data = bytearray(open(path, 'rb').read())
    data[info.byte_offset + 10:info.byte_offset + 60] = bytes(50)
    open(path, 'wb').write(data)
    # In buffers of one chunk each, the error names the rows of the
    # corrupt one.
    expect_error(['planfilesrc', 'location=' + path, 'blocksize=6400', '!',
                  'planfilesink', 'location=' + out],
                 "cannot read rows 700-800 of its dataset '/x'",
                 'inflate() failed')
    if os.path.exists(out):
        raise Failure('an output was written from a corrupt chunk')


def truncated_file_fails():
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    with h5py.File(path, 'w') as f:
        f.create_dataset('x', data=np.arange(100000.0), chunks=(1000,))
    data = open(path, 'rb').read()
    open(path, 'wb').write(data[:len(data) // 2])
    expect_error(['planfilesrc', 'location=' + path, '!', 'planfilesink',
                  'location=' + out], 'HDF5 cannot open it', 'truncated')
    if os.path.exists(out):
        raise Failure('an output was written from a truncated file')


def unsupported_dtype_and_filter_fail():
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    with h5py.File(path, 'w') as f:
        f['long'] = np.ones(4, np.longdouble)
        f['rec'] = np.zeros(4, [('a', '<i4'), ('b', '<f4')])
        f['text'] = np.array([b'ab', b'cd'])
        # Filter 32001 (blosc): a plugin, not installed here.
        blosc = f.create_dataset('blosc', shape=(1000,), dtype='f8',
                                 chunks=(100,), compression=32001,
                                 allow_unknown_filter=True)
        blosc.id.write_direct_chunk((0,), bytes(100), filter_mask=0)
    for name, text in [('long', '16-byte floats'), ('rec', 'compound'),
                       ('text', 'string'),
                       ('blosc', 'through the HDF5 filter 32001')]:
        expect_error(['planfilesrc', 'location=' + path, 'dataset=' + name,
                      '!', 'planfilesink', 'location=' + out], text,
                     "'/%s'" % name)
        if os.path.exists(out):
            raise Failure('%s: an output was written' % name)


def non_ieee_floats_fail():
    """A 4- or 8-byte float that is not IEEE binary32 or binary64 (another
    exponent bias, no implied mantissa bit; libhdf5 makes them, h5py reads
    the first as float64) is refused by name, not read as float32 with its
    large values turned into infinities; and so are complex numbers of
    such parts. IEEE floats in either byte order are read."""
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    values = np.array([2.0 ** 140, 2.0 ** -140, 1.0])
    with h5py.File(path, 'w') as f:
        space = h5py.h5s.create_simple((3,))

        def make(name, base, ebias=None, norm=None):
            t = base.copy()
            if ebias is not None:
                t.set_ebias(ebias)
            if norm is not None:
                t.set_norm(norm)
            h5py.h5d.create(f.id, name.encode(), t, space).write(
                h5py.h5s.ALL, h5py.h5s.ALL, values)
            return t
        part = make('bias', h5py.h5t.IEEE_F32LE, ebias=100)
        make('bias64', h5py.h5t.IEEE_F64LE, ebias=900)
        make('nonorm', h5py.h5t.IEEE_F32BE, norm=h5py.h5t.NORM_NONE)
        make('ieee_be', h5py.h5t.IEEE_F64BE)
        cplx = h5py.h5t.create(h5py.h5t.COMPOUND, 8)
        cplx.insert(b'r', 0, part)
        cplx.insert(b'i', 4, part)
        h5py.h5d.create(f.id, b'cplx', cplx, space)
        if f['bias'][()][0] != values[0]:
            raise Failure('h5py reads %r' % f['bias'][()])
    for name, text in [('bias', '4-byte floats that are not IEEE binary32'),
                       ('nonorm', '4-byte floats that are not IEEE binary32'),
                       ('bias64', '8-byte floats that are not IEEE binary64'),
                       ('cplx', 'compound')]:
        expect_error(['planfilesrc', 'location=' + path, 'dataset=' + name,
                      '!', 'planfilesink', 'location=' + out], text,
                     "'/%s'" % name)
        if os.path.exists(out):
            raise Failure('%s: an output was written' % name)
    plantest.assert_same(read(path, out, 'dataset=ieee_be'), values,
                         'big-endian IEEE float64')


def bool_and_complex_as_h5py_reads_them():
    """h5py reads an enum of FALSE = 0 and TRUE = 1 as bool whatever its
    integer (it writes int8), and a compound of two floats of one size,
    'r' then 'i', as complex at any offsets (it writes them packed): such
    datasets were refused as an enum or a compound. Records that h5py
    keeps as records ('i' before 'r', parts of two sizes) and other enums
    are still refused."""
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.npy')
    flags = np.array([[0, 1, 1], [1, 0, 0], [1, 1, 0]])
    z = RNG.standard_normal((5, 2)) + 1j * RNG.standard_normal((5, 2))
    with h5py.File(path, 'w') as f:
        for base in ['i1', 'u1', 'i2', '>i2', 'u4', '>i8', 'u8']:
            f.create_dataset('b' + base.replace('>', 'be'), data=flags.astype(
                base), dtype=h5py.enum_dtype({'FALSE': 0, 'TRUE': 1},
                                             basetype=base))
            f.create_dataset('c' + base.replace('>', 'be'), data=flags.astype(
                base), dtype=h5py.enum_dtype({'TRUE': 1, 'FALSE': 0},
                                             basetype=base), chunks=(2, 3),
                             compression='gzip')
        for part, off, size in [('<f4', 8, 16), ('>f4', 4, 12),
                                ('<f8', 16, 32), ('>f8', 8, 24)]:
            dt = np.dtype({'names': ['r', 'i'], 'formats': [part, part],
                           'offsets': [0, off], 'itemsize': size})
            rec = np.zeros(z.shape, dt)
            rec['r'], rec['i'] = z.real, z.imag
            f.create_dataset('z%s%d' % (part[0] == '>' and 'be' or '', size),
                             data=rec)
        f.create_dataset('ir', data=np.zeros(3, [('i', '<f4'), ('r', '<f4')]))
        f.create_dataset('mixed', data=np.zeros(3, [('r', '<f4'),
                                                     ('i', '<f8')]))
        f.create_dataset('en', shape=(3,), dtype=h5py.enum_dtype(
            {'FALSE': 0, 'TRUE': 2}, basetype='i2'))
    with h5py.File(path, 'r') as f:
        names = [n for n in f if n not in ('ir', 'mixed', 'en')]
        for name in names:
            want = f[name][...]
            if want.dtype.kind not in 'bc':
                raise Failure('h5py reads %s as %s' % (name, want.dtype))
            got = read(path, out, 'dataset=/' + name)
            plantest.assert_same(got, want.astype(want.dtype.newbyteorder(
                '=')), name)
    for name, text in [('ir', 'compound'), ('mixed', 'compound'),
                       ('en', 'enum')]:
        expect_error(['planfilesrc', 'location=' + path, 'dataset=' + name,
                      '!', 'planfilesink', 'location=' + out], text,
                     "'/%s'" % name)


SINK_SHAPES = [(), (0,), (1,), (997,), (250, 3), (61, 2, 5), (13, 3, 1, 4)]


def sink_writes_what_h5py_reads():
    """planfilesink into HDF5: every dtype, 0-d to 4-D, empty, chunked in
    odd chunk rows, compressed or not; h5py reads what was sent."""
    d = plantest.tmpdir()
    src = os.path.join(d, 'in.npy')
    for i, dtype in enumerate(plantest.DTYPES + plantest.COMPLEX_DTYPES):
        shapes = SINK_SHAPES if dtype in ('bool', 'float64') else \
            [SINK_SHAPES[i % len(SINK_SHAPES)],
             SINK_SHAPES[(i + 2) % len(SINK_SHAPES)]]
        for j, shape in enumerate(shapes):
            a = plantest.random_array(dtype, shape, RNG)
            np.save(src, a)
            out = os.path.join(d, 'out.h5')
            props = ['dataset=/g/%s' % dtype]
            if (i + j) % 2:
                props += ['compression=6', 'chunk-rows=7']
            launch('planfilesrc', 'location=' + src, 'blocksize=1000', '!',
                   'planfilesink', 'location=' + out, *props)
            with h5py.File(out, 'r') as f:
                ds = f['g/' + dtype]
                plantest.assert_same(ds[()], a, 'h5 sink %s %s %s' %
                                     (dtype, shape, props))
                if (i + j) % 2 and a.ndim > 0:
                    if ds.chunks[0] != 7 or ds.compression != 'gzip' or \
                            not ds.shuffle:
                        raise Failure('layout %s %s %s' % (
                            ds.chunks, ds.compression, ds.shuffle))
    if sorted(os.listdir(d)) != ['in.npy', 'out.h5']:
        raise Failure('files left behind: %s' % sorted(os.listdir(d)))


def netcdf_sees_bool_and_complex():
    """The netCDF library (netCDF4-python, xarray) passes over a dataset
    whose enum or compound type is not a named datatype of the file: the
    sink names h5py's bool and complex types in the root group, so a .nc
    output shows them as variables (bool as an enum of int8, complex as
    the nc-complex convention's compound of r and i), and h5py and
    planfilesrc still read bool and complex; the named types are no
    datasets, and a second dataset added reuses them."""
    try:
        import netCDF4
    except ImportError:
        print('netCDF4 (python3-netcdf4) is not installed: skipped')
        return
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.npy'), os.path.join(d, 'out.nc')
    back = os.path.join(d, 'back.npy')
    for dtype, name in [('bool', '_plan_bool_type'),
                        ('complex64', '_PFNC_FLOAT_COMPLEX_TYPE'),
                        ('complex128', '_PFNC_DOUBLE_COMPLEX_TYPE')]:
        a = plantest.random_array(dtype, (20, 3), RNG)
        np.save(src, a)
        if os.path.exists(out):
            os.unlink(out)
        launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
               'location=' + out, 'dataset=/v')
        launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
               'location=' + out, 'dataset=/g/w', 'file-mode=add')
        with netCDF4.Dataset(out) as f:
            f.set_auto_maskandscale(False)
            if 'v' not in f.variables or 'w' not in f['g'].variables:
                raise Failure('%s: netCDF4 sees %s and %s' % (
                    dtype, list(f.variables), list(f['g'].variables)))
            got = np.asarray(f['v'][...])
        if dtype == 'bool':
            got = got.astype(bool)
        else:
            got = got['r'] + 1j * got['i']
        plantest.assert_bits(got.astype(dtype), a, '%s through netCDF4' % dtype)
        with h5py.File(out, 'r') as f:
            if f['v'].dtype != a.dtype or f['g/w'].dtype != a.dtype:
                raise Failure('%s: h5py reads %s' % (dtype, f['v'].dtype))
            if not isinstance(f[name], h5py.Datatype) or sorted(f) != \
                    sorted([name, 'g', 'v']):
                raise Failure('%s: the file holds %s' % (dtype, list(f)))
        for ds in ['/v', '/g/w']:
            plantest.assert_bits(read(out, back, 'dataset=' + ds), a,
                                 '%s %s read back' % (dtype, ds))


def default_chunks_fit_small_arrays():
    """With chunk-rows unset, an array of fewer rows than the default chunk
    of about 1 MiB is one chunk of its rows (a file of a few KiB, not of
    1 MiB), compressed or not; an empty one chunks of one row. A larger
    array keeps the default, and chunk-rows given is kept whatever the
    rows. h5py reads each as numpy saved it."""
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.npy'), os.path.join(d, 'out.h5')
    small = np.arange(12, dtype=np.float32).reshape(4, 3)
    cases = [
        (small, [], (4, 3), 16384),
        (small, ['compression=4'], (4, 3), 16384),
        (np.zeros((0, 3), np.float32), [], (1, 3), 16384),
        (RNG.standard_normal((100000, 3)).astype(np.float32), [],
         (87381, 3), None),
        (small, ['chunk-rows=1000'], (1000, 3), None),
    ]
    for a, props, chunks, most in cases:
        np.save(src, a)
        launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
               'location=' + out, *props)
        what = '%s %s' % (a.shape, props)
        with h5py.File(out, 'r') as f:
            plantest.assert_same(f['data'][()], a, what)
            if f['data'].chunks != chunks:
                raise Failure('%s: chunks %s, not %s' %
                              (what, f['data'].chunks, chunks))
        if most is not None and os.path.getsize(out) > most:
            raise Failure('%s: a file of %d bytes' %
                          (what, os.path.getsize(out)))


def h5_to_h5_and_default_name():
    """An HDF5 dataset copied into a new HDF5 file, through a map; the
    dataset is /data unless named. A NetCDF name is HDF5 too."""
    d = plantest.tmpdir()
    src = os.path.join(d, 'in.h5')
    a = RNG.standard_normal((5000, 4)).astype(np.float32)
    with h5py.File(src, 'w') as f:
        f.create_dataset('x', data=a, chunks=(333, 4), compression='gzip')
    for name in ['out.h5', 'out.nc']:
        out = os.path.join(d, name)
        launch('planfilesrc', 'location=' + src, '!', 'planmap',
               'expr=2*x + 1', '!', 'planfilesink', 'location=' + out)
        with h5py.File(out, 'r') as f:
            plantest.assert_same(f['data'][...], 2 * a + 1, name)


def failed_run_leaves_old_file():
    """A run that fails (a corrupt chunk upstream) leaves no new file and
    the file that was at the location as it was; the temporary is gone."""
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.h5'), os.path.join(d, 'out.h5')
    a = RNG.standard_normal((2000, 8))
    with h5py.File(src, 'w') as f:
        f.create_dataset('x', data=a, chunks=(100, 8), compression='gzip')
        info = f['x'].id.get_chunk_info(15)
    data = bytearray(open(src, 'rb').read())
    data[info.byte_offset + 10:info.byte_offset + 60] = bytes(50)
    open(src, 'wb').write(data)
    with h5py.File(out, 'w') as f:
        f['old'] = np.arange(5)
    before = open(out, 'rb').read()
    expect_error(['planfilesrc', 'location=' + src, 'blocksize=6400', '!',
                  'planfilesink', 'location=' + out], 'cannot read rows')
    if open(out, 'rb').read() != before:
        raise Failure('the file at the location changed')
    if sorted(os.listdir(d)) != ['in.h5', 'out.h5']:
        raise Failure('files left behind: %s' % sorted(os.listdir(d)))


def existing_file_is_replaced_whole():
    """A new HDF5 output replaces the file at the location whole, as every
    planfilesink output does: datasets that were there are gone."""
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.npy'), os.path.join(d, 'out.h5')
    np.save(src, np.arange(10, dtype=np.int16))
    with h5py.File(out, 'w') as f:
        f['old'] = np.arange(5)
    launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
           'location=' + out, 'dataset=new')
    with h5py.File(out, 'r') as f:
        if sorted(f.keys()) != ['new']:
            raise Failure('datasets %s' % sorted(f.keys()))


def add_mode_keeps_the_other_datasets():
    """file-mode=add adds the dataset to the HDF5 file there: its other
    datasets, groups and attributes stay as h5py wrote them, a dataset of
    the same path is replaced, groups on the way are made, the file keeps
    its mode; without a file there, a new one is written."""
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.npy'), os.path.join(d, 'out.h5')
    a = RNG.standard_normal((700, 3)).astype(np.float32)
    np.save(src, a)
    old = RNG.integers(0, 100, (50, 2)).astype(np.int64)
    with h5py.File(out, 'w') as f:
        f.attrs['title'] = 'run 7'
        f['keep/x'] = old
        f['keep/x'].attrs['units'] = 'K'
        f.create_dataset('g/t', data=np.arange(4.0), chunks=(2,),
                         compression='gzip')
    os.chmod(out, 0o640)
    for dataset, want in [('/g/t', a), ('/g/new/deep', a)]:
        launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
               'location=' + out, 'file-mode=add', 'dataset=' + dataset,
               'compression=3', 'chunk-rows=64')
        with h5py.File(out, 'r') as f:
            plantest.assert_same(f[dataset][...], want, 'added ' + dataset)
            plantest.assert_same(f['keep/x'][...], old, 'kept dataset')
            if f.attrs['title'] != 'run 7' or \
                    f['keep/x'].attrs['units'] != 'K':
                raise Failure('attributes lost: %s' % dict(f.attrs))
            if dataset == '/g/new/deep' and f['g/t'].shape != a.shape:
                raise Failure('the dataset added first is gone')
    if os.stat(out).st_mode & 0o777 != 0o640:
        raise Failure('mode %o' % (os.stat(out).st_mode & 0o777))
    fresh = os.path.join(d, 'fresh.h5')
    launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
           'location=' + fresh, 'file-mode=add', 'dataset=v')
    with h5py.File(fresh, 'r') as f:
        if list(f.keys()) != ['v']:
            raise Failure('new file holds %s' % list(f.keys()))
        plantest.assert_same(f['v'][...], a, 'add to no file')
    if sorted(os.listdir(d)) != ['fresh.h5', 'in.npy', 'out.h5']:
        raise Failure('files left behind: %s' % sorted(os.listdir(d)))


def add_mode_failures_leave_the_file():
    """In add mode, a run that fails upstream, a group or a dataset in the
    way, a file that is not HDF5 and a non-HDF5 format each fail with a
    clear error and leave the file byte for byte as it was."""
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.npy'), os.path.join(d, 'out.h5')
    np.save(src, np.arange(3000, dtype=np.float64))
    bad = os.path.join(d, 'bad.h5')
    with h5py.File(bad, 'w') as f:
        f.create_dataset('x', data=RNG.standard_normal(2000), chunks=(100,),
                         compression='gzip')
        info = f['x'].id.get_chunk_info(7)
    data = bytearray(open(bad, 'rb').read())
    data[info.byte_offset + 10:info.byte_offset + 60] = bytes(50)
    open(bad, 'wb').write(data)
    with h5py.File(out, 'w') as f:
        f['grp/x'] = np.arange(5)
        f['old'] = np.arange(7)
    before = open(out, 'rb').read()
    cases = [
        (['planfilesrc', 'location=' + bad, 'blocksize=800', '!',
          'planfilesink', 'location=' + out, 'file-mode=add',
          'dataset=/old'], ['cannot read rows']),
        (['planfilesrc', 'location=' + src, '!', 'planfilesink',
          'location=' + out, 'file-mode=add', 'dataset=/grp'],
         ["'/grp' is a group in the file, not a dataset"]),
        (['planfilesrc', 'location=' + src, '!', 'planfilesink',
          'location=' + out, 'file-mode=add', 'dataset=/old/sub'],
         ["'/old' is a dataset in the file, not a group"]),
    ]
    for words, texts in cases:
        expect_error(words, *texts)
        if open(out, 'rb').read() != before:
            raise Failure('%s changed the file' % ' '.join(words))
    text = os.path.join(d, 'notes.h5')
    open(text, 'w').write('not HDF5\n')
    expect_error(['planfilesrc', 'location=' + src, '!', 'planfilesink',
                  'location=' + text, 'file-mode=add'],
                 'not an HDF5 file', 'it is left as it is')
    if open(text).read() != 'not HDF5\n':
        raise Failure('the file that is not HDF5 changed')
    npy = os.path.join(d, 'out.npy')
    np.save(npy, np.arange(3))
    expect_error(['planfilesrc', 'location=' + src, '!', 'planfilesink',
                  'location=' + npy, 'file-mode=add'],
                 'the add mode adds a dataset to an HDF5 file',
                 'npy files hold one array')
    plantest.assert_same(np.load(npy), np.arange(3), 'npy left as it was')
    if sorted(os.listdir(d)) != ['bad.h5', 'in.npy', 'notes.h5', 'out.h5',
                                 'out.npy']:
        raise Failure('files left behind: %s' % sorted(os.listdir(d)))


def dataset_naming_no_dataset_fails():
    """A dataset path that names no dataset ("", "/", "//": the file's root
    group) fails as the sink starts, once, naming the property; nothing is
    made and a file there is left as it was. A Zarr store takes "/" as
    the store itself."""
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.npy'), os.path.join(d, 'out.h5')
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.save(src, a)
    with h5py.File(out, 'w') as f:
        f['old'] = np.arange(5)
    before = open(out, 'rb').read()
    for dataset, shown in [('""', ''), ('/', '/'), ('//', '//')]:
        for mode in ['replace', 'add']:
            text = expect_error(
                ['planfilesrc', 'location=' + src, '!', 'planfilesink',
                 'location=' + out, 'dataset=' + dataset, 'file-mode=' + mode],
                "Could not write '%s': dataset \"%s\" names no dataset: "
                "give a name such as /x or group/x" % (out, shown))
            if text.count('ERROR: from element') != 1 or 'HDF5' in text:
                raise Failure('dataset=%s: not one clear error:\n%s' %
                              (dataset, text))
            if open(out, 'rb').read() != before:
                raise Failure('dataset=%s changed the file' % dataset)
    if sorted(os.listdir(d)) != ['in.npy', 'out.h5']:
        raise Failure('files left behind: %s' % sorted(os.listdir(d)))
    if os.environ.get('PLAN_HAVE_ZARR') == '1':
        store = os.path.join(d, 'out.zarr')
        launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
               'location=' + store, 'dataset=/')
        if not os.path.exists(os.path.join(store, '.zarray')):
            raise Failure('dataset=/ did not make the store the array: %s' %
                          sorted(os.listdir(store)))


def dataset_path_dotdot_or_group_fails():
    """HDF5 has no parent reference: '..' is an ordinary link name (h5py
    makes a group '..' for 'a/../b'), and a path ending in '/' is a
    group's. Such a dataset path fails as the sink starts, naming it; the
    file is left as it was. Repeated '/'s and a part '.' are HDF5's own
    ('a//b' and 'a/./b' are 'a/b'), and write where h5py reads them."""
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.npy'), os.path.join(d, 'out.h5')
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.save(src, a)
    with h5py.File(out, 'w') as f:
        f['old'] = np.arange(5)
    before = open(out, 'rb').read()
    for dataset, text in [
            ('a/../b', "the dataset 'a/../b' has a part '..', which in HDF5 "
             "is a name, not the group above"),
            ('..', "the dataset '..' has a part '..'"),
            ('/../x', "the dataset '/../x' has a part '..'"),
            ('obs/', "the dataset 'obs/' ends in '/', which names a group, "
             "not a dataset; give the dataset's name after the last '/', "
             "such as obs/x"),
            ('/obs/t/', "the dataset '/obs/t/' ends in '/'")]:
        for mode in ['replace', 'add']:
            out_text = expect_error(
                ['planfilesrc', 'location=' + src, '!', 'planfilesink',
                 'location=' + out, 'dataset=' + dataset,
                 'file-mode=' + mode], "Could not write '%s': " % out, text)
            if out_text.count('ERROR: from element') != 1:
                raise Failure('dataset=%s: not one clear error:\n%s' %
                              (dataset, out_text))
            if open(out, 'rb').read() != before:
                raise Failure('dataset=%s changed the file' % dataset)
    if sorted(os.listdir(d)) != ['in.npy', 'out.h5']:
        raise Failure('files left behind: %s' % sorted(os.listdir(d)))
    for dataset, name in [('a//b', 'a/b'), ('./c', 'c'), ('x/./y', 'x/y')]:
        launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
               'location=' + out, 'dataset=' + dataset, 'file-mode=add')
        with h5py.File(out, 'r') as f:
            plantest.assert_same(f[name][...], a, 'dataset=' + dataset)


def h5_sink_refuses_a_fifo():
    d = plantest.tmpdir()
    src, fifo = os.path.join(d, 'in.npy'), os.path.join(d, 'out.h5')
    np.save(src, np.arange(10.0))
    os.mkfifo(fifo)
    expect_error(['planfilesrc', 'location=' + src, '!', 'planfilesink',
                  'location=' + fifo], 'must be a regular file')


def typefinder_reports_hdf5():
    """filesrc ! typefind says application/x-hdf5 (GStreamer's own
    typefinders alone take this file for MPEG video), also after a user
    block of 512 bytes."""
    import gi
    gi.require_version('Gst', '1.0')
    from gi.repository import Gst
    Gst.init(None)
    d = plantest.tmpdir()
    for userblock in [0, 512]:
        path = os.path.join(d, 'u%d.h5' % userblock)
        with h5py.File(path, 'w', userblock_size=userblock) as f:
            f['x'] = np.arange(10.0)
        pipeline = Gst.parse_launch('filesrc location=%s ! typefind name=t '
                                    '! fakesink' % path)
        pipeline.set_state(Gst.State.PAUSED)
        pipeline.get_state(10 * Gst.SECOND)
        caps = pipeline.get_by_name('t').get_property('caps')
        pipeline.set_state(Gst.State.NULL)
        if caps is None or caps.to_string() != 'application/x-hdf5':
            raise Failure('user block %d: typefind says %s' %
                          (userblock, caps and caps.to_string()))
        # planfilesrc reads a file with a user block too.
        got = read(path, os.path.join(d, 'out.npy'))
        plantest.assert_same(got, np.arange(10.0), 'user block %d' % userblock)


def hdf5_loaded_on_first_use():
    """libhdf5 (and the libraries it links) is loaded by a process that
    reads an HDF5 file, not by one that reads a .npy file; without the HDF5
    module beside libplan, reading an HDF5 file fails with an error naming
    the module (a .npy file still reads)."""
    d = plantest.tmpdir()
    npy, h5 = os.path.join(d, 'x.npy'), os.path.join(d, 'x.h5')
    np.save(npy, np.arange(10.0))
    with h5py.File(h5, 'w') as f:
        f['x'] = np.arange(10.0)

    def run(path, **env):
        p = subprocess.run(
            plantest.launcher() + ['-q', 'planfilesrc', 'location=' + path,
                                   '!', 'planreduce', 'op=sum', '!',
                                   'fakesink'],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=120, env=dict(os.environ, **env))
        return p.returncode, p.stdout

    for path, loads in [(npy, False), (h5, True)]:
        rc, out = run(path, LD_DEBUG='files')
        if rc != 0:
            raise Failure('%s: rc %d\n%s' % (path, rc, out[-2000:]))
        if ('libhdf5' in out) != loads:
            raise Failure('%s: libhdf5 %s' % (
                path, 'not loaded' if loads else 'loaded at start-up'))

    # libplan alone in a folder the dynamic linker searches first.
    alone = plantest.libplan_alone(d)
    if alone is None:
        return
    rc, out = run(h5, LD_LIBRARY_PATH=alone)
    if rc == 0 or "HDF5 module (libplan-hdf5.so) could not be loaded" \
            not in out or alone not in out:
        raise Failure('no module: rc %d\n%s' % (rc, out))
    rc, out = run(npy, LD_LIBRARY_PATH=alone)
    if rc != 0:
        raise Failure('no module, .npy: rc %d\n%s' % (rc, out))


skip_without_hdf5()
plantest.run_cases([
    ('every dtype and layout', every_dtype_and_layout),
    ('scalar, empty and unwritten datasets', scalar_and_empty),
    ('shards, seeks and io modes', shards_seeks_and_io_modes),
    ('chunks are read whole', chunks_read_whole),
    ('chunks decoded on workers', chunks_decoded_on_workers),
    ('unfiltered chunks are mapped', unfiltered_chunks_mapped),
    ('wrap stencil reads rows back', wrap_stencil_reads_back),
    ('a NetCDF-4 variable', netcdf4_variable),
    ('huge chunk rows are not aligned', huge_chunk_rows_are_not_aligned),
    ('a missing dataset lists the names', missing_dataset_lists_the_names),
    ('external links read their own file',
     external_links_read_their_own_file),
    ('links to nothing say so', links_to_nothing_say_so),
    ('LZF is read as h5py reads it', lzf_read_as_h5py_reads),
    ('an LZF plugin is left in place', lzf_plugin_is_left_in_place),
    ('corrupt LZF chunks fail', lzf_corrupt_chunks_fail),
    ('a corrupt chunk fails', corrupt_chunk_fails),
    ('a truncated file fails', truncated_file_fails),
    ('unsupported dtypes and filters fail', unsupported_dtype_and_filter_fail),
    ('non-IEEE floats fail', non_ieee_floats_fail),
    ('bool and complex as h5py reads them',
     bool_and_complex_as_h5py_reads_them),
    ('the sink writes what h5py reads', sink_writes_what_h5py_reads),
    ('NetCDF sees bool and complex', netcdf_sees_bool_and_complex),
    ('default chunks fit small arrays', default_chunks_fit_small_arrays),
    ('HDF5 to HDF5, default dataset name', h5_to_h5_and_default_name),
    ('a failed run leaves the old file', failed_run_leaves_old_file),
    ('an existing file is replaced whole', existing_file_is_replaced_whole),
    ('add mode keeps the other datasets', add_mode_keeps_the_other_datasets),
    ('add mode failures leave the file', add_mode_failures_leave_the_file),
    ('a dataset with two hard links is one dataset',
     hard_linked_dataset_is_one_dataset),
    ('a dataset naming no dataset fails', dataset_naming_no_dataset_fails),
    ("a dataset path with '..' or ending in '/' fails",
     dataset_path_dotdot_or_group_fails),
    ('the HDF5 sink refuses a FIFO', h5_sink_refuses_a_fifo),
    ('the typefinder reports HDF5', typefinder_reports_hdf5),
    ('HDF5 is loaded on first use', hdf5_loaded_on_first_use),
])
