"""planfilesrc reading NetCDF classic (CDF-1), 64-bit offset (CDF-2) and
64-bit data (CDF-5) files, bit for bit against scipy.io.netcdf_file (the
writer and the reader of CDF-1 and CDF-2) and against numpy for files
written here by hand (CDF-5, streaming record counts, no records): every
type, 0-d to 3-D, record and non-record variables, one record variable and
several, shards and the io modes; the dataset property, the format
property and the typefinder; and the errors of corrupt and truncated
headers and data."""
import os
import struct
import sys

import numpy as np

import plantest
from plantest import Failure, expect_error, launch

try:
    import scipy.io
except ImportError:
    print('scipy (python3-scipy) is not installed')
    sys.exit(77)

RNG = np.random.default_rng(20261204)

# nc_type: the numpy dtype of its (big-endian) values.
NC_TYPES = {1: '>i1', 2: 'S1', 3: '>i2', 4: '>i4', 5: '>f4', 6: '>f8',
            7: '>u1', 8: '>u2', 9: '>u4', 10: '>i8', 11: '>u8'}
TYPE_CODES = {np.dtype(v).str: k for k, v in NC_TYPES.items() if k != 2}


def values(dtype, shape):
    """Random values of a dtype, with -0.0, infinities and a NaN with a
    payload among the floats (bit-for-bit comparisons see them)."""
    a = plantest.random_array(np.dtype(dtype).newbyteorder('='), shape, RNG)
    if a.dtype.kind == 'f' and a.size >= 4:
        flat = a.reshape(-1)
        flat[:3] = [-0.0, np.inf, -np.inf]
        bits = flat.view('u%d' % a.itemsize)
        bits[3] = 0x7ff0000000000123 if a.itemsize == 8 else 0x7fc00123
    return a


def read(path, out, *props, blocksize=None):
    words = ['planfilesrc', 'location=' + path]
    if blocksize:
        words.append('blocksize=%d' % blocksize)
    launch(*words, *props, '!', 'planfilesink', 'location=' + out)
    return np.load(out)


def native(a):
    return a.astype(a.dtype.newbyteorder('='))


def cdf(version, dims, variables, numrecs=None, streaming=False,
        begins_as=None):
    """A NetCDF file's bytes, written after the format specification.
    dims: [(name, length or None for the record dimension)]; variables:
    [(name, [dimension names], nc_type, numpy array of the values)], the
    record variables' first axis being the records. Non-record variables
    follow the header, each padded to 4 bytes, then the records.
    begins_as: {name: offset} written in the header instead of the
    right one."""
    big = version == 5
    count = (lambda n: struct.pack('>q', n)) if big else \
        (lambda n: struct.pack('>i', n))

    def name(s):
        b = s.encode()
        return count(len(b)) + b + bytes(-len(b) % 4)

    dim_len = dict(dims)
    dim_ids = {n: i for i, (n, _) in enumerate(dims)}
    rec = [v for v in variables if v[1] and dim_len[v[1][0]] is None]
    if numrecs is None:
        numrecs = len(rec[0][3]) if rec else 0

    def slab(v):
        return int(np.prod([dim_len[d] for d in v[1][1:]], dtype=np.int64)) \
            * np.dtype(NC_TYPES[v[2]]).itemsize

    def header(begins):
        h = b'CDF' + bytes([version])
        h += (struct.pack('>Q', 2 ** 64 - 1) if big else b'\xff' * 4) \
            if streaming else count(numrecs)
        h += (struct.pack('>i', 10) + count(len(dims)) if dims else
              bytes(4) + count(0))
        for n, length in dims:
            h += name(n) + count(length or 0)
        h += bytes(4) + count(0)  # no global attributes
        h += (struct.pack('>i', 11) + count(len(variables)) if variables
              else bytes(4) + count(0))
        for (n, vdims, t, data), begin in zip(variables, begins):
            h += name(n) + count(len(vdims))
            for d in vdims:
                h += count(dim_ids[d])
            h += bytes(4) + count(0)  # no attributes
            size = slab((n, vdims, t, data)) if (n, vdims, t, data) in rec \
                else data.nbytes
            h += struct.pack('>i', t)
            h += struct.pack('>Q' if big else '>I', size + (-size % 4))
            h += struct.pack('>I' if version == 1 else '>Q', begin)
        return h

    hsize = len(header([0] * len(variables)))
    begins, body, pos = [], b'', hsize
    for v in variables:
        if v in rec:
            begins.append(None)
            continue
        b = np.ascontiguousarray(v[3], NC_TYPES[v[2]]).tobytes()
        begins.append(pos)
        body += b + bytes(-len(b) % 4)
        pos += len(b) + (-len(b) % 4)
    pad = len(rec) > 1
    offsets, recsize = {}, 0
    for v in rec:
        offsets[v[0]] = recsize
        recsize += slab(v) + (-slab(v) % 4 if pad else 0)
    begins = [pos + offsets[v[0]] if b is None else b
              for v, b in zip(variables, begins)]
    begins = [(begins_as or {}).get(v[0], b) for v, b in zip(variables, begins)]
    records = b''
    for r in range(len(rec[0][3]) if rec else 0):
        for v in rec:
            b = np.ascontiguousarray(v[3][r], NC_TYPES[v[2]]).tobytes()
            records += b + (bytes(-len(b) % 4) if pad else b'')
    return header(begins) + body + records


def write(path, data):
    with open(path, 'wb') as f:
        f.write(data)
    return path


def scipy_every_type_and_shape():
    """CDF-1 and CDF-2 files of scipy's: every classic type, 0-d to 3-D,
    non-record variables and several record variables (padded records),
    read whole and in small buffers, against scipy's reading of them."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    fixed = [('b0', 'b', ()), ('h1', 'h', ('x',)), ('i2', 'i', ('x', 'y')),
             ('f3', 'f', ('x', 'y', 'z')), ('d1', 'd', ('y',)),
             ('b3', 'b', ('x', 'y', 'z')), ('d0', 'd', ())]
    records = [('rf', 'f', ('t', 'x')), ('rb', 'b', ('t', 'y')),
               ('rh', 'h', ('t',)), ('rd', 'd', ('t', 'y', 'z')),
               ('ri', 'i', ('t',)), ('rb3', 'b', ('t', 'y', 'z'))]
    sizes = {'x': 5, 'y': 3, 'z': 2, 't': 7}
    for version in (1, 2):
        path = os.path.join(d, 'v%d.nc' % version)
        f = scipy.io.netcdf_file(path, 'w', version=version)
        f.createDimension('t', None)
        for n in 'xyz':
            f.createDimension(n, sizes[n])
        for n, t, dims in fixed + records:
            v = f.createVariable(n, t, dims)
            a = values(np.dtype(t), tuple(sizes[k] for k in dims))
            if dims:
                v[:] = a
            else:
                v.assignValue(a)
        f.close()
        with open(path, 'rb') as fh:
            if fh.read(4) != b'CDF' + bytes([version]):
                raise Failure('scipy did not write CDF-%d' % version)
        ref = scipy.io.netcdf_file(path, 'r', mmap=False, maskandscale=False)
        try:
            for i, (n, _, dims) in enumerate(fixed + records):
                want = native(np.asarray(ref.variables[n].data))
                for bs in (None, 40):
                    got = read(path, out, 'dataset=' + n, blocksize=bs)
                    plantest.assert_bits(got, want, 'CDF-%d %s blocksize %s' %
                                         (version, n, bs))
        finally:
            ref.close()


def one_record_variable():
    """A single record variable's records are not padded (scipy writes 3
    bytes a record for int8 (t, 3)); it is read like any other variable,
    and mapped when its elements are bytes."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    for t, shape in [('b', (9, 3)), ('h', (11,)), ('f', (4, 3, 2))]:
        path = os.path.join(d, 'one%s.nc' % t)
        f = scipy.io.netcdf_file(path, 'w', version=1)
        f.createDimension('t', None)
        dims = ['t']
        for k, n in enumerate(shape[1:]):
            f.createDimension('d%d' % k, n)
            dims.append('d%d' % k)
        v = f.createVariable('v', t, tuple(dims))
        v[:] = values(np.dtype(t), shape)
        f.close()
        ref = scipy.io.netcdf_file(path, 'r', mmap=False, maskandscale=False)
        want = native(np.asarray(ref.variables['v'].data))
        ref.close()
        if t == 'b' and os.path.getsize(path) % 4 != 3:
            raise Failure('scipy padded the records of one int8 variable')
        modes = ['io-mode=mmap', 'io-mode=read'] if t == 'b' else \
            ['io-mode=read']
        for mode in modes:
            got = read(path, out, mode, blocksize=7)
            plantest.assert_bits(got, want, '%s %s' % (t, mode))


def cdf5_and_unsigned_types():
    """A CDF-5 file written here by hand: every type of it (ubyte, ushort,
    uint, int64, uint64 besides the classic ones), 0-d to 3-D, record and
    non-record variables, 64-bit counts and offsets."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    dims = [('t', None), ('x', 4), ('y', 3), ('z', 2)]
    sizes = dict(dims, t=6)
    variables = []
    for t in sorted(NC_TYPES):
        if t == 2:
            continue
        for shape_dims in [(), ('x',), ('x', 'y', 'z')]:
            shape = tuple(sizes[k] for k in shape_dims)
            variables.append(('v%d_%d' % (t, len(shape)), list(shape_dims), t,
                              values(NC_TYPES[t], shape)))
        rdims = ['t'] + (['y'] if t % 2 else ['y', 'z'])
        variables.append(('r%d' % t, rdims, t, values(
            NC_TYPES[t], tuple(sizes[k] for k in rdims))))
    path = write(os.path.join(d, 'five.nc'), cdf(5, dims, variables))
    for n, _, t, want in variables:
        got = read(path, out, 'dataset=/' + n, blocksize=50)
        plantest.assert_bits(got, want, 'CDF-5 ' + n)
        if got.dtype != np.dtype(NC_TYPES[t]).newbyteorder('='):
            raise Failure('%s: dtype %s' % (n, got.dtype))


def netcdf4_library_files():
    """Files of the netCDF C library (python3-netcdf4), when it is
    installed: NETCDF3_CLASSIC, NETCDF3_64BIT_OFFSET and NETCDF3_64BIT_DATA
    (CDF-5, with its unsigned and 64-bit types), record variables of
    several types, against the library's reading of them (no masking or
    scaling: the raw values)."""
    try:
        import netCDF4
    except ImportError:
        print('  (python3-netcdf4 is not installed: skipped)')
        return
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    formats = {'NETCDF3_CLASSIC': 1, 'NETCDF3_64BIT_OFFSET': 2,
               'NETCDF3_64BIT_DATA': 5}
    for fmt, version in formats.items():
        path = os.path.join(d, fmt + '.nc')
        types = ['i1', 'i2', 'i4', 'f4', 'f8']
        if version == 5:
            types += ['u1', 'u2', 'u4', 'i8', 'u8']
        with netCDF4.Dataset(path, 'w', format=fmt) as f:
            f.createDimension('time', None)
            f.createDimension('lat', 3)
            f.createDimension('lon', 5)
            for t in types:
                v = f.createVariable('c' + t, t, ('lat', 'lon'))
                v[:] = values(t, (3, 5))
                # Attributes are not applied: the raw values are read.
                v = f.createVariable('r' + t, t, ('time', 'lat'),
                                     fill_value=7)
                v.scale_factor = 2.0
                v.add_offset = 1.0
                v.set_auto_maskandscale(False)
                v[:] = values(t, (6, 3))
        with open(path, 'rb') as fh:
            if fh.read(4) != b'CDF' + bytes([version]):
                raise Failure('%s is not CDF-%d' % (fmt, version))
        with netCDF4.Dataset(path) as f:
            f.set_auto_maskandscale(False)
            for n, v in f.variables.items():
                want = np.ascontiguousarray(v[:])
                got = read(path, out, 'dataset=' + n, blocksize=30)
                plantest.assert_bits(got, want.astype(
                    want.dtype.newbyteorder('=')), '%s %s' % (fmt, n))


def hand_written_files_match_scipy():
    """The hand writer of these tests agrees with scipy on CDF-1 and CDF-2
    (so that its CDF-5 files are right too), and a streaming record count
    (numrecs all ones) is the number of records the file holds, the last
    one's padding not needed."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    dims = [('time', None), ('lat', 3), ('lon', 4)]
    variables = [('lat', ['lat'], 5, values('>f4', (3,))),
                 ('tas', ['time', 'lat', 'lon'], 3, values('>i2', (5, 3, 4))),
                 ('flag', ['time'], 1, values('>i1', (5,)))]
    for version in (1, 2):
        path = write(os.path.join(d, 'h%d.nc' % version),
                     cdf(version, dims, variables))
        ref = scipy.io.netcdf_file(path, 'r', mmap=False, maskandscale=False)
        for n, _, _, want in variables:
            plantest.assert_bits(native(np.asarray(ref.variables[n].data)),
                                 want, 'scipy reading CDF-%d %s' % (version, n))
        ref.close()
    for version in (1, 5):
        path = write(os.path.join(d, 's%d.nc' % version),
                     cdf(version, dims, variables, streaming=True))
        for n, _, _, want in variables:
            plantest.assert_bits(read(path, out, 'dataset=' + n), want,
                                 'streaming CDF-%d %s' % (version, n))
    # The last record's padding is not data: a file that ends without it
    # (flag's byte ends the records' data, 3 bytes before their end) still
    # holds every record; cut into that byte, the last record is gone.
    data = cdf(1, dims, variables, streaming=True)
    for cut, n_rec in [(1, 5), (3, 5), (4, 4)]:
        path = write(os.path.join(d, 'cut%d.nc' % cut), data[:-cut])
        for n, _, _, want in variables:
            want = want[:n_rec] if n != 'lat' else want
            plantest.assert_bits(read(path, out, 'dataset=' + n), want,
                                 'streaming, %d bytes cut, %s' % (cut, n))


def no_records():
    """numrecs 0: a record variable has no rows (an empty array); the
    non-record ones read as ever."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    dims = [('t', None), ('x', 3)]
    x = values('>f8', (3,))
    for version in (1, 2, 5):
        path = write(os.path.join(d, 'e%d.nc' % version), cdf(
            version, dims, [('x', ['x'], 6, x),
                            ('r', ['t', 'x'], 4, np.zeros((0, 3), '>i4')),
                            ('s', ['t'], 3, np.zeros((0,), '>i2'))]))
        plantest.assert_bits(read(path, out, 'dataset=r'),
                             np.zeros((0, 3), np.int32), 'CDF-%d r' % version)
        plantest.assert_bits(read(path, out, 'dataset=s'),
                             np.zeros((0,), np.int16), 'CDF-%d s' % version)
        plantest.assert_bits(read(path, out, 'dataset=x'), x,
                             'CDF-%d x' % version)
    # scipy's file of no records agrees.
    path = os.path.join(d, 'scipy0.nc')
    f = scipy.io.netcdf_file(path, 'w', version=2)
    f.createDimension('t', None)
    f.createDimension('x', 3)
    f.createVariable('r', 'f', ('t', 'x'))
    f.createVariable('q', 'h', ('t',))
    f.close()
    plantest.assert_bits(read(path, out, 'dataset=r'),
                         np.zeros((0, 3), np.float32), 'scipy r')


def shards_and_io_modes():
    """offset and length read a shard of rows (records) of a non-record
    and of a record variable; a record variable among others cannot be
    mapped, a non-record one can."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    path = os.path.join(d, 'shard.nc')
    f = scipy.io.netcdf_file(path, 'w', version=2)
    f.createDimension('t', None)
    f.createDimension('x', 50)
    f.createDimension('y', 3)
    a = values('>f8', (50, 3))
    r = values('>i2', (40, 3))
    s = values('>i1', (40,))
    f.createVariable('a', 'd', ('x', 'y'))[:] = a
    f.createVariable('r', 'h', ('t', 'y'))[:] = r
    f.createVariable('s', 'b', ('t',))[:] = s
    f.close()
    for offset, length in [(0, 10), (7, 13), (35, -1), (39, 1)]:
        props = ['offset=%d' % offset, 'length=%d' % length]
        end = None if length < 0 else offset + length
        plantest.assert_bits(read(path, out, 'dataset=a', *props, blocksize=48),
                             native(a[offset:end]), 'a %s' % props)
        plantest.assert_bits(read(path, out, 'dataset=r', *props, blocksize=12),
                             native(r[offset:end]), 'r %s' % props)
        plantest.assert_bits(read(path, out, 'dataset=s', *props),
                             native(s[offset:end]), 's %s' % props)
    plantest.assert_bits(read(path, out, 'dataset=a', 'io-mode=read'),
                         native(a), 'a read')
    expect_error(['planfilesrc', 'location=' + path, 'dataset=s',
                  'io-mode=mmap', '!', 'fakesink'], "record variable 's'",
                 'read it instead')
    expect_error(['planfilesrc', 'location=' + path, 'dataset=a',
                  'io-mode=mmap', '!', 'fakesink'], 'read it instead')


def dataset_names():
    """The dataset names the variable, with or without a leading '/';
    unset, a file of several variables fails listing them, as does a name
    it does not have; text (NC_CHAR) is refused."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    path = os.path.join(d, 'names.nc')
    f = scipy.io.netcdf_file(path, 'w', version=1)
    f.createDimension('x', 4)
    f.createDimension('n', 5)
    f.createVariable('tas', 'f', ('x',))[:] = np.arange(4)
    f.createVariable('pr', 'd', ('x',))[:] = np.arange(4) * 2
    f.createVariable('label', 'c', ('x', 'n'))[:] = np.array(
        [list('abcde')] * 4, 'S1')
    f.close()
    for name in ('tas', '/tas'):
        plantest.assert_bits(read(path, out, 'dataset=' + name),
                             np.arange(4, dtype=np.float32), name)
    expect_error(['planfilesrc', 'location=' + path, '!', 'fakesink'], path,
                 'holds 3 variables, ', "'tas'", "'pr'", "'label'",
                 'name the one to read')
    expect_error(['planfilesrc', 'location=' + path, 'dataset=nope', '!',
                  'fakesink'], "no variable 'nope'; its variables are ",
                 "'tas'", "'pr'", "'label'")
    expect_error(['planfilesrc', 'location=' + path, 'dataset=label', '!',
                  'fakesink'], "'label' holds text (NC_CHAR)")
    one = write(os.path.join(d, 'one.nc'), cdf(
        1, [('x', 3)], [('only', ['x'], 4, np.arange(3, dtype='>i4'))]))
    plantest.assert_bits(read(one, out), np.arange(3, dtype=np.int32), 'only')


def formats_and_typefind():
    """format=netcdf and format=hdf5 read a classic file (.nc is either),
    and format=netcdf a NetCDF-4 file, which is HDF5; format=netcdf
    refuses a file that is not NetCDF; planfilesink refuses
    to write NetCDF classic; filesrc ! typefind says application/x-netcdf
    for CDF-1, -2 and -5 files, and still application/x-hdf5 for a
    NetCDF-4 one."""
    import gi
    gi.require_version('Gst', '1.0')
    from gi.repository import Gst
    Gst.init(None)
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    x = values('>f4', (6,))
    paths = []
    for version in (1, 2, 5):
        paths.append(write(os.path.join(d, 'f%d.nc' % version),
                           cdf(version, [('x', 6)], [('x', ['x'], 5, x)])))
    for p in paths:
        for fmt in ('netcdf', 'hdf5', 'auto'):
            plantest.assert_bits(read(p, out, 'format=' + fmt), native(x),
                                 '%s format=%s' % (p, fmt))
    npy = os.path.join(d, 'x.npy')
    np.save(npy, np.arange(3.0))
    expect_error(['planfilesrc', 'location=' + npy, 'format=netcdf', '!',
                  'fakesink'], npy, 'not a NetCDF classic')
    expect_error(['planfilesrc', 'location=' + npy, '!', 'planfilesink',
                  'format=netcdf', 'location=' + os.path.join(d, 'o.nc')],
                 'NetCDF classic files are read, not written')
    cases = [(p, 'application/x-netcdf') for p in paths]
    if plantest.built_with('hdf5'):
        try:
            import h5py
            h5 = os.path.join(d, 'four.nc')
            with h5py.File(h5, 'w') as f:
                f['x'] = np.arange(3.0)
            cases.append((h5, 'application/x-hdf5'))
            # A NetCDF-4 file asked for as NetCDF is read as the HDF5 file
            # it is (it was refused as no NetCDF classic file), after a
            # user block too.
            ub = os.path.join(d, 'four-ub.nc')
            with h5py.File(ub, 'w', userblock_size=512) as f:
                f['x'] = np.arange(3.0)
            for p in (h5, ub):
                plantest.assert_bits(read(p, out, 'format=netcdf'),
                                     np.arange(3.0), p + ' format=netcdf')
        except ImportError:
            pass
    for p, want in cases:
        pipeline = Gst.parse_launch('filesrc location=%s ! typefind name=t '
                                    '! fakesink' % p)
        pipeline.set_state(Gst.State.PAUSED)
        pipeline.get_state(10 * Gst.SECOND)
        caps = pipeline.get_by_name('t').get_property('caps')
        pipeline.set_state(Gst.State.NULL)
        if caps is None or caps.to_string() != want:
            raise Failure('%s: typefind says %s, expected %s' %
                          (p, caps and caps.to_string(), want))


def a_name_given_twice():
    """Of two variables of one name, the last is read, as scipy and the
    netCDF library read it (the first was)."""
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'twice.nc'), os.path.join(d, 'out.npy')
    write(path, cdf(1, [('x', 3)], [('a', ['x'], 6, values('>f8', (3,))),
                                    ('a', ['x'], 4, values('>i4', (3,)))]))
    with scipy.io.netcdf_file(path, 'r', mmap=False) as nc:
        want = native(nc.variables['a'].data.copy())
    plantest.assert_bits(read(path, out, 'dataset=a'), want, 'a')


def corrupt_files_fail():
    """Truncated headers, counts, lengths and offsets beyond the file, an
    unknown type, dimensions whose product overflows, data past the end
    and records the file does not hold: one error each, naming the file
    and what is wrong."""
    d = plantest.tmpdir()
    dims = [('t', None), ('x', 3)]
    good = [('a', ['x'], 6, values('>f8', (3,))),
            ('r', ['t', 'x'], 3, values('>i2', (4, 3))),
            ('s', ['t'], 5, values('>f4', (4,)))]
    ok = cdf(1, dims, good)
    hsize = len(ok) - 24 - 4 * 12
    big = 2 ** 31 - 1

    def patch(data, old, new):
        if data.count(old) != 1:
            raise Failure('the pattern %r is not in the file once' % old)
        return data.replace(old, new)

    cases = [
        ('no magic', b'CDF', 'netcdf', 'a', 'header is truncated'),
        ('version 3', b'CDF\x03' + ok[4:], 'netcdf', 'a',
         'version 1, 2 or 5'),
    ]
    for cut in (4, 7, 12, 20, 45, hsize - 3):
        cases.append(('header cut at %d' % cut, ok[:cut], 'auto', 'a',
                      'NetCDF header is truncated'))
    cases += [
        ('dimension count', patch(ok, b'\x00\x00\x00\x0a\x00\x00\x00\x02',
                                  b'\x00\x00\x00\x0a\x7f\xff\xff\xff'),
         'auto', 'a', 'more than the file'),
        ('negative count', patch(ok, b'\x00\x00\x00\x0a\x00\x00\x00\x02',
                                 b'\x00\x00\x00\x0a\xff\xff\xff\xf0'),
         'auto', 'a', 'is negative'),
        ('name length', patch(ok, b'\x00\x00\x00\x01t\x00\x00\x00',
                              struct.pack('>i', big) + b't\x00\x00\x00'),
         'auto', 'a', 'bytes long'),
        ('list tag', patch(ok, b'\x00\x00\x00\x0b\x00\x00\x00\x03',
                           b'\x00\x00\x00\x0d\x00\x00\x00\x03'),
         'auto', 'a', 'has tag 0xd'),
        ('unknown type', cdf(1, dims, [('a', ['x'], 7, np.zeros(3, '>u1'))]),
         'auto', 'a', "'a' has type 7", 'no type of a CDF-1 file'),
        ('dimension id', patch(cdf(1, [('x', 3)], [('a', ['x'], 4, np.zeros(
            3, '>i4'))]), b'\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00'
            b'\x00\x00\x00\x00\x00\x00\x00\x04',
            b'\x00\x00\x00\x01\x00\x00\x00\x09\x00\x00\x00\x00'
            b'\x00\x00\x00\x00\x00\x00\x00\x04'), 'auto', 'a',
         'dimension id 9'),
        ('record axis not first', cdf(1, dims, [
            ('a', ['x', 't'], 4, np.zeros((3, 0), '>i4'))]), 'auto', 'a',
         'only the first axis'),
        ('two record dimensions', cdf(1, [('t', None), ('u', None)], []),
         'auto', 'a', 'two record'),
        ('dimensions overflow', cdf(
            5, [('x', big), ('y', big), ('z', big)],
            [('a', ['x', 'y', 'z'], 6, np.zeros((0, 0, 0)))]), 'auto', 'a',
         "variable 'a' cannot be read"),
        ('data past the end', ok[:hsize + 20], 'auto', 'a',
         "variable 'a' (3 rows of 8 bytes", 'truncated'),
        ('records past the end', ok[:-11], 'auto', 'r',
         "variable 'r' has 4 records", 'holds 3 of them'),
        ('numrecs too large', patch(ok, b'CDF\x01\x00\x00\x00\x04',
                                    b'CDF\x01\x00\x00\x01\x00'),
         'auto', 's', "variable 's' has 256 records"),
        ('offset past the end', cdf(2, dims, good, begins_as={
            'a': 2 ** 62}), 'auto', 'a', 'does not fit in the file'),
        ('record offset past the end', cdf(1, dims, good, begins_as={
            'r': 2 ** 32 - 8}), 'auto', 'r', 'holds 0 of them'),
    ]
    for name, data, fmt, dataset, *texts in cases:
        path = write(os.path.join(d, 'bad.nc'), data)
        try:
            expect_error(['planfilesrc', 'location=' + path, 'format=' + fmt,
                          'dataset=' + dataset, '!', 'fakesink'],
                         "Could not read '%s'" % path, *texts)
        except Failure as e:
            raise Failure('%s: %s' % (name, e))


def mutated_headers_never_crash():
    """Headers with random bytes changed, or cut at random places: each
    read either succeeds or fails with an error naming the file, never
    crashes or hangs."""
    d = plantest.tmpdir()
    rng = np.random.default_rng(7)
    dims = [('t', None), ('x', 3), ('y', 2)]
    good = [('a', ['x', 'y'], 6, values('>f8', (3, 2))),
            ('r', ['t', 'x'], 3, values('>i2', (5, 3))),
            ('s', ['t'], 1, values('>i1', (5,)))]
    seeds = [cdf(1, dims, good), cdf(2, dims, good), cdf(5, dims, good)]
    path = os.path.join(d, 'm.nc')
    for i in range(90):
        data = bytearray(seeds[i % 3])
        hsize = len(data) - 48 - 5 * 12
        if i % 5 == 4:
            data = data[:rng.integers(4, len(data))]
        else:
            for _ in range(rng.integers(1, 4)):
                at = rng.integers(4, hsize)
                data[at] = rng.choice([0, 1, 0x7f, 0x80, 0xff,
                                       rng.integers(0, 256)])
        write(path, bytes(data))
        p = plantest.run_or_show_threads(plantest.launcher() + [
            '-q', 'planfilesrc', 'location=' + path,
            'dataset=' + 'ars'[i % 3], '!', 'fakesink'], 60)
        # A signal (a crash, an abort) is a negative status.
        if p.returncode < 0 or (p.returncode != 0 and
                                "Could not read '%s'" % path not in p.stdout):
            raise Failure('mutation %d: rc %d\n%s' % (i, p.returncode,
                                                       p.stdout[-2000:]))


plantest.run_cases([
    ('scipy: every type and shape, CDF-1 and CDF-2',
     scipy_every_type_and_shape),
    ('one record variable', one_record_variable),
    ('CDF-5 and its unsigned and 64-bit types', cdf5_and_unsigned_types),
    ('files of the netCDF library', netcdf4_library_files),
    ('hand-written files match scipy; streaming',
     hand_written_files_match_scipy),
    ('no records', no_records),
    ('shards and io modes', shards_and_io_modes),
    ('dataset names', dataset_names),
    ('formats and typefind', formats_and_typefind),
    ('a name given twice', a_name_given_twice),
    ('corrupt files fail', corrupt_files_fail),
    ('mutated headers never crash', mutated_headers_never_crash),
])
