"""planfilesrc reading Zarr v2 arrays (directory stores) against
zarr-python: every dtype, 1-D to 4-D, chunks that do not divide the shape,
larger than a buffer or of one row, the codecs none, zlib, gzip, zstd and
blosc (lz4, zstd), big-endian, '/' separators, fill values for missing
chunks, shards and seeks; and the errors of a missing array, a corrupt
chunk, an unsupported codec, dtype or order. And planfilesink writing
Zarr v2 stores that zarr-python reads: every dtype and codec, groups, the
add mode, and failures that leave what was there."""
import json
import os
import shutil
import subprocess
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
                # zarr-python 2 gives what numpy's empty chunk held; the
                # reader gives 0, as zarr-python 3 does (below).
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
        ('bytes', dict(data=np.array([b'ab', b'cd'])),
         "dtype '|S2' is not supported"),
        ('dates', dict(data=np.arange(10).astype('datetime64[s]')),
         "dtype '<M8[s]' is not supported"),
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
    # A Zarr v3 zarr.json with no data_type or codecs.
    v3 = os.path.join(d, 'v3.zarr')
    os.mkdir(v3)
    open(os.path.join(v3, 'zarr.json'), 'w').write(
        '{"zarr_format": 3, "node_type": "array"}')
    expect_error(['planfilesrc', 'location=' + v3, '!', 'planfilesink',
                  'location=' + out], "data_type (none) is not supported")
    # A dtype that is no string is named too: a v2 structured dtype (a list
    # of fields, as zarr-python 2 writes np.dtype([('a', '<i4'), ...])) by
    # its JSON, and a v3 data type spelt as an object (zarr-python 3's
    # datetime64 and fixed-length bytes) by its name; it was
    # "'(not a string)'", which named nothing.
    for name, meta, text in [
            ('.zarray', '{"zarr_format": 2, "shape": [4], "chunks": [2], '
             '"dtype": [["a", "<i4"], ["b", "<f8"]], "compressor": null, '
             '"fill_value": null, "order": "C", "filters": null}',
             'its dtype [["a","<i4"],["b","<f8"]] (a structured dtype, whose '
             'elements are records) is not supported'),
            ('zarr.json', '{"zarr_format": 3, "node_type": "array", '
             '"shape": [4], "data_type": {"name": "numpy.datetime64", '
             '"configuration": {"unit": "s", "scale_factor": 1}}, '
             '"chunk_grid": {"name": "regular", "configuration": '
             '{"chunk_shape": [2]}}, "chunk_key_encoding": {"name": '
             '"default"}, "fill_value": 0, "codecs": [{"name": "bytes", '
             '"configuration": {"endian": "little"}}]}',
             "its data_type 'numpy.datetime64' is not supported"),
            ('zarr.json', '{"zarr_format": 3, "node_type": "array", '
             '"shape": [4], "data_type": {"name": "null_terminated_bytes", '
             '"configuration": {"length_bytes": 4}}, "chunk_grid": {"name": '
             '"regular", "configuration": {"chunk_shape": [2]}}, '
             '"chunk_key_encoding": {"name": "default"}, "fill_value": "", '
             '"codecs": [{"name": "bytes"}]}',
             "its data_type 'null_terminated_bytes' is not supported"),
            # A chunk grid other than regular is named too.
            ('zarr.json', '{"zarr_format": 3, "node_type": "array", '
             '"shape": [4], "data_type": "int32", "chunk_grid": {"name": '
             '"rectilinear", "configuration": {"chunk_shapes": [[2, 2]]}}, '
             '"chunk_key_encoding": {"name": "default"}, "fill_value": 0, '
             '"codecs": [{"name": "bytes", "configuration": {"endian": '
             '"little"}}]}',
             "its chunk_grid 'rectilinear' is not a regular grid")]:
        store = os.path.join(d, 'typed%d.zarr' % len(text))
        os.mkdir(store)
        open(os.path.join(store, name), 'w').write(meta)
        expect_error(['planfilesrc', 'location=' + store, '!', 'planfilesink',
                      'location=' + out], "Could not read '%s'" % store, text)
        if os.path.exists(out):
            raise Failure('%s: an output was written' % store)


def hostile_metadata_fails():
    """Metadata that is wrong in type or range (found by the hostile-input
    audit) fails with one error naming what is wrong, rather than being
    read as something else: a fill value outside its integer dtype or not
    a whole number (256 for uint8 was read as 0, 2 for bool as a byte of
    2), a zarr_format or compressor of the wrong type, a v3 chunk key
    separator or codec configuration of the wrong type (a separator of 1
    was taken for the default, every chunk then missing and read as the
    fill value), a gzip, zstd or blosc configuration field of a type or
    value zarr-python 3 refuses (they were ignored), chunks of so many rows that the block of a chunk row
    wrapped around 2^64 bytes; metadata that is not JSON (a bare NaN) or
    not an object says so. Fill values at the ends of their dtype's range
    read as zarr-python reads them."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')

    def store(name, dtype, fill, **edit):
        path = os.path.join(d, name + '.zarr')
        z = zarr.open(path, mode='w', shape=(10,), chunks=(4,), dtype=dtype,
                      compressor=None)
        z[:4] = 1
        meta = json.load(open(os.path.join(path, '.zarray')))
        meta['fill_value'] = fill
        meta.update(edit)
        json.dump(meta, open(os.path.join(path, '.zarray'), 'w'))
        return path

    for dtype, fill in [('uint8', 256), ('uint8', -1), ('int8', 128),
                        ('int32', 2 ** 31), ('uint32', -1), ('int16', 2.5),
                        ('bool', 2), ('bool', 0.5), ('int64', 0.25),
                        ('uint16', 'NaN')]:
        path = store('f%s%s' % (dtype, fill), dtype, fill)
        expect_error(['planfilesrc', 'location=' + path, '!', 'planfilesink',
                      'location=' + out], "its fill_value %s does not fit "
                     "its dtype %s" % (json.dumps(fill), dtype))
        if os.path.exists(out):
            raise Failure('fill %r for %s: an output was written' %
                          (fill, dtype))
    for dtype, fill in [('uint8', 255), ('int8', -128), ('int32', 2 ** 31 - 1),
                        ('uint64', 2 ** 64 - 1), ('int16', 3.0), ('bool', 1),
                        ('bool', False), ('int64', -2 ** 63)]:
        path = store('ok%s%s' % (dtype, fill), dtype, fill)
        plantest.assert_same(read(path, out), zarr.open(path, 'r')[...],
                             'fill %r for %s' % (fill, dtype))

    # Integers 64 bits do not hold, which json-glib reads as others
    # (2^64 + 5 as -1, a fill value of all ones; -2^63 - 1 as 2^63 - 1).
    for name, fill, edit in [('big', 2 ** 64 + 5, {}),
                             ('small', 0, {'shape': [-2 ** 63 - 1]})]:
        path = store(name, 'uint64', fill, **edit)
        expect_error(['planfilesrc', 'location=' + path, '!', 'fakesink'],
                     "has the integer %d, which 64 bits do not hold" %
                     (fill or -2 ** 63 - 1))
    for name, edit, text in [
            ('format', {'zarr_format': '2'},
             'has no zarr_format that is an integer'),
            ('formatbool', {'zarr_format': True},
             'has no zarr_format that is an integer'),
            ('format25', {'zarr_format': 2.5},
             'its .zarray says zarr_format 2.5, which is not a whole number '
             'and so no Zarr version'),
            ('format30', {'zarr_format': 3.0},
             'its .zarray says zarr_format 3; only Zarr v2 is read'),
            ('compressor', {'compressor': 'zlib'},
             'its compressor is neither null nor an object with an id')]:
        path = store(name, 'float32', 0.0, **edit)
        expect_error(['planfilesrc', 'location=' + path, '!', 'planfilesink',
                      'location=' + out], text)

    # NaN and Infinity bare (Python's json.dump writes them so), not as
    # the strings Zarr writes: not JSON, said so, naming the file.
    path = store('bare', 'float32', 0.0)
    meta = open(os.path.join(path, '.zarray')).read()
    open(os.path.join(path, '.zarray'), 'w').write(
        meta.replace('"fill_value": 0.0', '"fill_value": NaN'))
    expect_error(['planfilesrc', 'location=' + path, '!', 'fakesink'],
                 'its .zarray is not valid JSON', 'NaN')

    # Rows of 8 GiB in chunks of 2^31 rows: 2^64 bytes a row of chunks.
    path = os.path.join(d, 'wrap.zarr')
    os.mkdir(path)
    json.dump({'zarr_format': 2, 'shape': [2, 2 ** 33],
               'chunks': [2 ** 31, 1], 'dtype': '|u1', 'fill_value': 0,
               'compressor': None, 'filters': None, 'order': 'C'},
              open(os.path.join(path, '.zarray'), 'w'))
    expect_error(['planfilesrc', 'location=' + path, '!', 'fakesink'],
                 'rows of 8589934592 bytes')

    def v3(name, **edit):
        path = os.path.join(d, name + '.zarr')
        os.makedirs(os.path.join(path, 'c'))
        meta = {'zarr_format': 3, 'node_type': 'array', 'shape': [4, 3],
                'data_type': 'float32', 'fill_value': 0.0,
                'chunk_grid': {'name': 'regular',
                               'configuration': {'chunk_shape': [4, 3]}},
                'chunk_key_encoding': {'name': 'default', 'configuration':
                                       {'separator': '.'}},
                'codecs': [{'name': 'bytes',
                            'configuration': {'endian': 'little'}}]}
        for key, value in edit.items():
            where = meta
            keys = key.split('/')
            for k in keys[:-1]:
                where = where[int(k) if k.isdigit() else k]
            where[keys[-1]] = value
        json.dump(meta, open(os.path.join(path, 'zarr.json'), 'w'))
        open(os.path.join(path, 'c.0.0'), 'wb').write(
            np.arange(12, dtype='<f4').tobytes())
        return path

    plantest.assert_same(read(v3('good'), out),
                         np.arange(12, dtype='f4').reshape(4, 3), 'v3')
    # zarr-python compares zarr_format with ==: 3.0 is 3 (and 2.0 is 2).
    plantest.assert_same(read(v3('good30', zarr_format=3.0), out),
                         np.arange(12, dtype='f4').reshape(4, 3), 'v3 3.0')
    path = store('format20', 'float32', 0.0, zarr_format=2.0)
    plantest.assert_same(read(path, out), zarr.open(path, 'r')[...],
                         'zarr_format 2.0')
    # A zarr.json that is not JSON or not an object: no array, and why
    # (it said only that no array was there).
    for name, text, why in [
            ('v3bare', '{"zarr_format": 3, "fill_value": -Infinity}',
             "zarr.json' is not valid JSON"),
            ('v3list', '[3]', "zarr.json' is not a JSON object")]:
        path = v3(name)
        open(os.path.join(path, 'zarr.json'), 'w').write(text)
        expect_error(['planfilesrc', 'location=' + path, '!', 'fakesink'],
                     'no Zarr array', why)
    sharded = [{'name': 'sharding_indexed', 'configuration': {
        'chunk_shape': [2, 3], 'codecs': [{'name': 'bytes', 'configuration':
                                     {'endian': 'little'}}],
        'index_codecs': [{'name': 'bytes', 'configuration':
                          {'endian': 'little'}}]}}]
    for name, edit, text in [
            ('sep', {'chunk_key_encoding/configuration/separator': 1},
             'chunk_key_encoding'),
            ('keyconf', {'chunk_key_encoding/configuration': 'x'},
             'chunk_key_encoding'),
            ('bytesconf', {'codecs/0/configuration': []},
             "its codec 'bytes' has a configuration that is not valid"),
            ('v3format', {'zarr_format': 3.5},
             'its zarr.json says zarr_format 3.5, which is not a whole '
             'number and so no Zarr version'),
            ('v3format2', {'zarr_format': 2.0},
             'its zarr.json says zarr_format 2; Zarr v2 (.zarray) and v3 '
             'are read'),
            ('indexconf', {'codecs': sharded,
                           'codecs/0/configuration/index_codecs/0/'
                           'configuration': 5},
             "index codec 'bytes' has a configuration that is not valid"),
            ('innerconf', {'codecs': sharded,
                           'codecs/0/configuration/codecs/0/'
                           'configuration': 'little'},
             "its codec 'bytes' has a configuration that is not valid")] + [
            # Compressor fields the reader does not need, of a type or
            # value zarr-python 3 refuses when it opens the array.
            ('conf-%s-%s-%d' % (codec, field, i),
             {'codecs': [{'name': 'bytes',
                          'configuration': {'endian': 'little'}},
                         {'name': codec, 'configuration': {field: value}}]},
             "its codec '%s' has %s %s, which is not %s" % (
                 codec, field, json.dumps(value), want))
            for i, (codec, field, value, want) in enumerate([
                ('gzip', 'level', [0], 'an integer from 0 to 9'),
                ('gzip', 'level', 10, 'an integer from 0 to 9'),
                ('zstd', 'level', '3', 'an integer up to 22'),
                ('zstd', 'level', 23, 'an integer up to 22'),
                ('zstd', 'checksum', 1, 'true or false'),
                ('blosc', 'typesize', '4', 'a positive integer'),
                ('blosc', 'typesize', 0, 'a positive integer'),
                ('blosc', 'cname', 'lz5', 'one of "lz4", "lz4hc"'),
                ('blosc', 'clevel', 5.0, 'an integer;'),
                ('blosc', 'shuffle', 1, 'one of "noshuffle"')])]:
        path = v3(name, **edit)
        if os.path.exists(out):
            os.unlink(out)
        expect_error(['planfilesrc', 'location=' + path, '!', 'planfilesink',
                      'location=' + out], path, text)
        if os.path.exists(out):
            raise Failure('%s: an output was written' % name)


def fill_values_from_2_63_and_null():
    """Fill values json-glib reads as int64 with their low 64 bits (2^63
    and up as negative numbers) are read exactly: a uint64's 2^63 + 5 and
    2^64 - 1, and a float's or a complex's written as an integer (2^64 - 1
    was read as -1.0), as zarr-python reads them; an int64's 2^63 and a
    uint64's -1 are refused rather than wrapped. A v2 fill_value null
    reads as 0, as zarr-python 3 reads it; a v3 one is refused (Zarr v3
    requires a value), as zarr-python 3 refuses it."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')

    def v2(name, dtype, fill):
        path = os.path.join(d, name + '.zarr')
        z = zarr.open(path, mode='w', shape=(6,), chunks=(2,), dtype=dtype,
                      compressor=None)
        z[:2] = 1
        meta = json.load(open(os.path.join(path, '.zarray')))
        meta['fill_value'] = fill
        json.dump(meta, open(os.path.join(path, '.zarray'), 'w'))
        return path

    def v3(name, dtype, fill):
        path = os.path.join(d, name + '.zarr')
        os.mkdir(path)
        json.dump({'zarr_format': 3, 'node_type': 'array', 'shape': [4],
                   'data_type': dtype, 'fill_value': fill,
                   'chunk_grid': {'name': 'regular',
                                  'configuration': {'chunk_shape': [2]}},
                   'chunk_key_encoding': {'name': 'default'},
                   'codecs': [{'name': 'bytes',
                               'configuration': {'endian': 'little'}}]},
                  open(os.path.join(path, 'zarr.json'), 'w'))
        os.mkdir(os.path.join(path, 'c'))
        open(os.path.join(path, 'c', '0'), 'wb').write(
            np.ones(2, dtype).tobytes())
        return path

    for i, (dtype, fill) in enumerate([
            ('uint64', 2 ** 63), ('uint64', 2 ** 63 + 5),
            ('uint64', 2 ** 64 - 1), ('float64', 2 ** 64 - 1),
            ('float32', 2 ** 63 + 5), ('float64', -2 ** 63),
            ('complex128', [2 ** 64 - 1, -1])]):
        name = '%s_%d' % (dtype, i)
        path = v2(name, dtype, fill)
        plantest.assert_bits(read(path, out), zarr.open(path, 'r')[...],
                             'v2 fill %r for %s' % (fill, dtype))
        want = np.ones(4, dtype)
        want[2:] = complex(*fill) if isinstance(fill, list) else fill
        plantest.assert_bits(read(v3('v3' + name, dtype, fill), out), want,
                             'v3 fill %r for %s' % (fill, dtype))
    for dtype, fill in [('int64', 2 ** 63), ('int64', 2 ** 64 - 1),
                        ('uint64', -1)]:
        for path in (v2('bad%s%d' % (dtype, fill), dtype, fill),
                     v3('bad3%s%d' % (dtype, fill), dtype, fill)):
            expect_error(['planfilesrc', 'location=' + path, '!',
                          'fakesink'], "its fill_value %d does not fit its "
                         "dtype %s" % (fill, dtype))
    path = v3('v3null', 'float32', None)
    expect_error(['planfilesrc', 'location=' + path, '!', 'fakesink'], path,
                 'its fill_value is null; Zarr v3 requires a value')
    path = v2('v2null', 'float64', None)
    got = read(path, out)
    plantest.assert_bits(got, np.array([1, 1, 0, 0, 0, 0], 'f8'), 'v2 null')
    if os.access(ZARR3, os.X_OK):
        p = subprocess.run([ZARR3, '-W', 'ignore', '-c',
                            'import sys, zarr, numpy as np; np.save(sys.argv'
                            '[2], zarr.open_array(sys.argv[1], mode="r")'
                            '[...])', path, out], capture_output=True,
                           text=True, timeout=120)
        if p.returncode != 0:
            raise Failure('zarr 3 could not read %s:\n%s' % (path, p.stderr))
        plantest.assert_bits(got, np.load(out), 'v2 null, as zarr 3 reads it')


def not_json_refused():
    """Metadata json-glib reads though it is not JSON, and zarr-python
    refuses, is refused, naming the file and where: octal and hexadecimal
    numbers (json-glib read a shape of [010] as 8 rows and a fill value of
    0x1ffffffffffffffff as -1), '1.', comments (one with a quote in it hid
    an integer beyond 64 bits from the check for those), single-quoted
    strings, a byte-order mark; a v2 fill value in hex (a v3 spelling) is
    not taken for a float's bits."""
    d = plantest.tmpdir()
    base = os.path.join(d, 'base.zarr')
    z = zarr.open(base, mode='w', shape=(10, 3), chunks=(4, 2), dtype='<f4',
                  compressor=None)
    z[...] = 1
    meta = json.dumps(json.load(open(os.path.join(base, '.zarray'))))
    fill = '"fill_value": 0.0'
    for i, (text, at) in enumerate([
            (meta.replace('[10, 3]', '[010, 3]'), '010, 3]'),
            (meta.replace('[10, 3]', '[0xa, 3]'), '0xa, 3]'),
            (meta.replace(fill, '"fill_value": 0x1ffffffffffffffff'), '0x1f'),
            (meta.replace(fill, '"fill_value": 1.'), '1., '),
            ('/* " */' + meta.replace(fill, '"fill_value": 2' + '0' * 20),
             '/* \\" */'),
            (meta.replace('"C"', "'C'"), "'C'"),
            ('\ufeff' + meta, '\\357\\273\\277')]):
        path = os.path.join(d, 'n%d.zarr' % i)
        shutil.copytree(base, path)
        with open(os.path.join(path, '.zarray'), 'w', encoding='utf-8') as f:
            f.write(text)
        expect_error(['planfilesrc', 'location=' + path, '!', 'fakesink'],
                     "'%s' is not valid JSON: at byte" %
                     os.path.join(path, '.zarray'), at)
    path = os.path.join(d, 'hex.zarr')
    shutil.copytree(base, path)
    with open(os.path.join(path, '.zarray'), 'w') as f:
        f.write(meta.replace(fill, '"fill_value": "0x7fc00000"'))
    expect_error(['planfilesrc', 'location=' + path, '!', 'fakesink'],
                 'its fill_value "0x7fc00000" does not fit its dtype float32')


def v3_bytes_without_endian():
    """A v3 bytes codec without an endian (array or shard index) is refused
    for elements of more than one byte, as Zarr v3 requires one and
    zarr-python 3 refuses it (it was read as little-endian); for bytes,
    it is not needed."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')

    def store(name, dtype, codecs, chunk):
        path = os.path.join(d, name + '.zarr')
        os.makedirs(os.path.join(path, 'c'))
        json.dump({'zarr_format': 3, 'node_type': 'array', 'shape': [6],
                   'data_type': dtype, 'fill_value': 0,
                   'chunk_grid': {'name': 'regular',
                                  'configuration': {'chunk_shape': [6]}},
                   'chunk_key_encoding': {'name': 'default'},
                   'codecs': codecs},
                  open(os.path.join(path, 'zarr.json'), 'w'))
        open(os.path.join(path, 'c', '0'), 'wb').write(chunk)
        return path

    a = np.arange(6, dtype='<i4')
    for i, conf in enumerate([None, {}, {'endian': None}]):
        codec = {'name': 'bytes'}
        if conf is not None:
            codec['configuration'] = conf
        path = store('i%d' % i, 'int32', [codec], a.tobytes())
        expect_error(['planfilesrc', 'location=' + path, '!', 'fakesink'],
                     path, "its codec 'bytes' has no endian; Zarr v3 "
                     'requires one for a data_type of more than one byte')
    little = {'name': 'bytes', 'configuration': {'endian': 'little'}}
    index = np.array([0, a.nbytes], '<u8').tobytes()
    for name, inner, idx, text in [
            ('shard', [{'name': 'bytes'}], [little], "its codec 'bytes'"),
            ('index', [little], [{'name': 'bytes'}],
             "its shards' index codec 'bytes' has no endian")]:
        path = store(name, 'int32', [{'name': 'sharding_indexed',
                                      'configuration': {
                                          'chunk_shape': [6], 'codecs': inner,
                                          'index_codecs': idx}}],
                     a.tobytes() + index)
        expect_error(['planfilesrc', 'location=' + path, '!', 'fakesink'],
                     path, text, 'no endian')
    path = store('shardok', 'int32', [{'name': 'sharding_indexed',
                                       'configuration': {
                                           'chunk_shape': [6],
                                           'codecs': [little],
                                           'index_codecs': [little]}}],
                 a.tobytes() + index)
    plantest.assert_bits(read(path, out), a.astype('=i4'), 'sharded, endian')
    b = np.arange(6, dtype='u1')
    path = store('u1', 'uint8', [{'name': 'bytes'}], b.tobytes())
    plantest.assert_bits(read(path, out), b, 'uint8 without endian')


def v3_attributes_of_any_size():
    """Integers beyond 64 bits in a v3 array's or group's attributes,
    which gst-plan does not read and zarr-python takes (Python's integers
    have any size), no longer make the store refused; beyond 64 bits
    anywhere else they still are."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    big = '{"big": %d, "list": [-%d, {"x": %d}], "s": "attributes"}' % (
        2 ** 70, 2 ** 70, 2 ** 65)
    group = os.path.join(d, 'g.zarr')
    os.makedirs(os.path.join(group, 'a', 'c'))
    with open(os.path.join(group, 'zarr.json'), 'w') as f:
        f.write('{"zarr_format": 3, "node_type": "group", "attributes": %s}'
                % big)
    meta = {'zarr_format': 3, 'node_type': 'array', 'shape': [3],
            'data_type': 'uint64', 'fill_value': 2 ** 64 - 1,
            'chunk_grid': {'name': 'regular',
                           'configuration': {'chunk_shape': [2]}},
            'chunk_key_encoding': {'name': 'default'},
            'codecs': [{'name': 'bytes',
                        'configuration': {'endian': 'little'}}],
            'attributes': 'ATTRS'}
    with open(os.path.join(group, 'a', 'zarr.json'), 'w') as f:
        f.write(json.dumps(meta).replace('"ATTRS"', big))
    open(os.path.join(group, 'a', 'c', '0'), 'wb').write(
        np.array([1, 2], '<u8').tobytes())
    plantest.assert_bits(read(group, out, 'dataset=a'),
                         np.array([1, 2, 2 ** 64 - 1], 'u8'), 'attributes')
    with open(os.path.join(group, 'a', 'zarr.json'), 'w') as f:
        f.write(json.dumps(meta).replace('"ATTRS"', big).replace(
            '"shape": [3]', '"shape": [%d]' % 2 ** 70))
    expect_error(['planfilesrc', 'location=' + group, 'dataset=a', '!',
                  'fakesink'], 'has the integer %d, which 64 bits do not '
                 'hold' % 2 ** 70)


# Zarr v3: stores written by zarr-python 3, which Debian 12 lacks;
# tools/bootstrap.sh installs it into a virtual environment of its own.
ZARR3 = os.environ.get('PLAN_ZARR3_PYTHON') or os.path.join(
    os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'),
    'gst-plan', 'zarr3', 'bin', 'python')

# Run by zarr 3's python in the directory given: writes v3 stores and, for
# each, the array zarr 3 reads back from it (want-NAME.npy).
V3_WRITER = r"""
import json, sys, numpy as np, zarr
from zarr.codecs import (BloscCodec, BytesCodec, Crc32cCodec, GzipCodec,
                         ZstdCodec)
rng = np.random.default_rng(int(sys.argv[1]))
DTYPES = sys.argv[2].split(',')
COMPRESSORS = {
    'none': None, 'zstd': [ZstdCodec(level=3)], 'gzip': [GzipCodec(level=5)],
    'blosc-lz4': [BloscCodec(cname='lz4', clevel=5, shuffle='shuffle')],
    'blosc-zstd': [BloscCodec(cname='zstd', clevel=3, shuffle='bitshuffle')],
    'zstd-crc32c': [ZstdCodec(level=1), Crc32cCodec()],
}
LAYOUTS = [((997,), (100,)), ((250, 3), (1, 3)), ((61, 2, 5), (7, 2, 3)),
           ((13, 3, 1, 4), (13, 2, 1, 3)), ((0, 4), (5, 4)), ((), ())]
names = []
for i, dtype in enumerate(DTYPES):
    for j, (shape, chunks) in enumerate(LAYOUTS):
        if dtype not in ('bool', 'float32') and j % 3 != i % 3:
            continue
        comp = list(COMPRESSORS)[(i + j) % len(COMPRESSORS)]
        endian = 'big' if (i + j) % 4 == 1 else 'little'
        keys = ({'name': 'v2', 'separator': '.'} if (i + j) % 3 == 2 else
                {'name': 'default', 'separator': '/' if j % 2 else '.'})
        if dtype == 'bool':
            a = rng.integers(0, 2, shape).astype(bool)
        elif dtype.startswith('float'):
            a = rng.standard_normal(shape).astype(dtype)
        else:
            info = np.iinfo(dtype)
            a = rng.integers(info.min, info.max, shape, dtype=dtype,
                             endpoint=True)
        name = 'a%d_%d.zarr' % (i, j)
        fill = {'bool': True}.get(dtype, 7)
        z = zarr.create_array(name, shape=shape, chunks=chunks,
                              dtype=dtype, compressors=COMPRESSORS[comp],
                              serializer=BytesCodec(endian=endian),
                              chunk_key_encoding=keys, fill_value=fill)
        # Rows past the first half stay unwritten: the fill value.
        if a.ndim:
            z[:(shape[0] + 1) // 2] = a[:(shape[0] + 1) // 2]
        else:
            z[...] = a
        np.save('want-%s.npy' % name, zarr.open_array(name, mode='r')[...])
        names.append('%s %s %s %s %s' % (name, dtype, comp, endian,
                                         keys['name']))
g = zarr.open_group('group.zarr', mode='w')
g.create_array('obs/t', shape=(50, 2), chunks=(7, 2), dtype='float64',
               fill_value=float('nan'))[:20] = rng.standard_normal((20, 2))
g.create_array('other', shape=(3,), dtype='int8')[:] = 1
np.save('want-group.npy', g['obs/t'][...])
z = zarr.create_array('crc.zarr', shape=(100,), chunks=(10,), dtype='int32',
                      compressors=[Crc32cCodec()])
z[:] = np.arange(100)
z = zarr.create_array('half.zarr', shape=(10,), dtype='float16')
z[:] = 1
# a data type gst-plan does not read, in place of float16, which it reads
meta = json.load(open('half.zarr/zarr.json'))
meta['data_type'] = 'bfloat16'
json.dump(meta, open('half.zarr/zarr.json', 'w'))
print('\n'.join(names))
"""


V3_STORES = []


def zarr3_stores():
    """(the directory of the v3 stores V3_WRITER wrote, their names and
    what they are), written once; None without zarr 3."""
    if V3_STORES:
        return V3_STORES[0]
    if not os.access(ZARR3, os.X_OK):
        print('     zarr 3 is not installed (tools/bootstrap.sh installs it '
              'in %s): the v3 cases are skipped' % os.path.dirname(ZARR3))
        return None
    d = plantest.tmpdir()
    p = subprocess.run([ZARR3, '-c', V3_WRITER, '20261205',
                        ','.join(plantest.DTYPES)], cwd=d,
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise Failure('zarr 3 could not write the stores:\n' + p.stderr)
    V3_STORES.append((d, [line.split() for line in p.stdout.splitlines()]))
    return V3_STORES[0]


def v3_every_dtype_codec_and_layout():
    """Zarr v3 stores that zarr-python 3 wrote: every dtype, 0-d to 4-D,
    empty, the codecs bytes (little- and big-endian), zstd, gzip, blosc
    (lz4, zstd), crc32c, default and v2 chunk keys with either separator,
    fill values for the chunks never written, an array in a group; each
    read as zarr 3 reads it."""
    if zarr3_stores() is None:
        return
    d, stores = zarr3_stores()
    out = os.path.join(plantest.tmpdir(), 'out.npy')
    for name, *what in stores:
        got = read(os.path.join(d, name), out)
        want = np.load(os.path.join(d, 'want-%s.npy' % name))
        plantest.assert_same(got, want, 'v3 %s %s' % (name, what))
    got = read(os.path.join(d, 'group.zarr'), out, 'dataset=obs/t')
    plantest.assert_same(got, np.load(os.path.join(d, 'want-group.npy')),
                         'v3 group')
    expect_error(['planfilesrc', 'location=' + os.path.join(d, 'group.zarr'),
                  '!', 'fakesink'], "'/obs/t' and '/other'")


def v3_unsupported_and_corrupt_fail():
    """A bfloat16 v3 array and a chunk whose CRC32C does not match fail,
    naming what is wrong."""
    if zarr3_stores() is None:
        return
    d = zarr3_stores()[0]
    out = os.path.join(plantest.tmpdir(), 'out.npy')
    chunk = os.path.join(d, 'crc.zarr', 'c', '3')
    data = bytearray(open(chunk, 'rb').read())
    data[5] ^= 0x40
    open(chunk, 'wb').write(data)
    for name, texts in [('half.zarr', ["data_type 'bfloat16'"]),
                        ('crc.zarr', ["chunk", "fails its CRC32C checksum"])]:
        expect_error(['planfilesrc', 'location=' + os.path.join(d, name), '!',
                      'planfilesink', 'location=' + out], *texts)
        if os.path.exists(out):
            raise Failure('%s: a file was written' % name)



# Run by zarr 3's python: v3 stores whose chunks are transposed (the
# transpose codec: Fortran order, other permutations, two in a row), each
# with the array zarr 3 reads back (want-NAME.npy).
V3_TRANSPOSE_WRITER = r"""
import numpy as np, zarr
from zarr.codecs import TransposeCodec, ZstdCodec
rng = np.random.default_rng(7)
CASES = [((250, 3), (16, 3), [(1, 0)], 'float64'),
         ((61, 2, 5), (7, 2, 3), [(2, 1, 0)], 'float32'),
         ((61, 2, 5), (7, 2, 3), [(2, 0, 1)], 'int16'),
         ((61, 4, 5), (7, 3, 2), [(1, 2, 0), (2, 0, 1)], 'complex64'),
         ((13, 3, 1, 4), (5, 2, 1, 3), [(3, 2, 1, 0)], 'uint8'),
         ((40, 1, 6), (9, 1, 6), [(1, 0, 2)], 'int32'),
         ((997,), (100,), [(0,)], 'float32')]
for i, (shape, chunks, orders, dtype) in enumerate(CASES):
    a = (rng.standard_normal(shape) * 50).astype(dtype)
    name = 't%d.zarr' % i
    z = zarr.create_array(name, shape=shape, chunks=chunks, dtype=dtype,
                          filters=[TransposeCodec(order=o) for o in orders],
                          compressors=[ZstdCodec(level=1)] if i % 2 else None,
                          fill_value=3)
    z[:(shape[0] * 2) // 3] = a[:(shape[0] * 2) // 3]
    np.save('want-%s.npy' % name, zarr.open_array(name, mode='r')[...])
    print(name)
"""


def v3_transposed_chunks():
    """Zarr v3 stores whose chunks zarr-python 3 transposed (Fortran order,
    other permutations of 2 to 4 axes, two transposes in a row, with and
    without zstd, partial edge chunks, chunks never written): read as zarr
    3 reads them. A transpose order that is no permutation of the axes is
    refused, naming the codec."""
    if not os.access(ZARR3, os.X_OK):
        print('     zarr 3 is not installed: skipped')
        return
    d = plantest.tmpdir()
    p = subprocess.run([ZARR3, '-c', V3_TRANSPOSE_WRITER], cwd=d,
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise Failure('zarr 3 could not write the stores:\n' + p.stderr)
    out = os.path.join(d, 'out.npy')
    for name in p.stdout.split():
        got = read(os.path.join(d, name), out)
        plantest.assert_same(got, np.load(os.path.join(d, 'want-%s.npy' %
                                                       name)),
                             'v3 transposed %s' % name)
    meta_path = os.path.join(d, 't1.zarr', 'zarr.json')
    meta = json.load(open(meta_path))
    meta['codecs'][0]['configuration']['order'] = [2, 2, 0]
    json.dump(meta, open(meta_path, 'w'))
    expect_error(['planfilesrc', 'location=' + os.path.join(d, 't1.zarr'),
                  '!', 'planfilesink', 'location=' + out],
                 "its transpose codec's order is not a permutation of the "
                 "array's 3 axes")


# Run by zarr 3's python: sharded v3 stores (sharding_indexed), each with
# the array zarr 3 reads back (want-NAME.npy). Rows past `written` are
# never written: shards there are missing, inner chunks there empty; a
# block of fill values inside is an inner chunk zarr 3 leaves empty too.
V3_SHARDED_WRITER = r"""
import numpy as np, zarr
from zarr.codecs import (BloscCodec, BytesCodec, Crc32cCodec, GzipCodec,
                         ShardingCodec, TransposeCodec, ZstdCodec)
rng = np.random.default_rng(11)
# name, shape, shards, inner chunks, dtype, inner codecs, index codecs,
# index location, rows written
CASES = [
    ('s1', (1000,), (300,), (50,), 'int32',
     [BytesCodec(), ZstdCodec(level=1)], None, 'end', 650),
    ('s2', (97, 45), (40, 20), (10, 5), 'float64',
     [BytesCodec(), GzipCodec(level=4)], None, 'end', 60),
    ('s3', (23, 9, 14), (8, 6, 8), (4, 3, 4), 'uint16',
     [TransposeCodec(order=(2, 1, 0)), BytesCodec(endian='big'),
      ZstdCodec(level=3)],
     [BytesCodec(endian='big'), Crc32cCodec()], 'start', 17),
    ('s4', (31, 6), (16, 6), (4, 6), 'complex64',
     [BytesCodec(endian='big')], [BytesCodec()], 'end', 25),
    ('s5', (50, 7), (20, 7), (5, 7), 'int8',
     [BytesCodec(), BloscCodec(cname='lz4', clevel=5, shuffle='shuffle')],
     None, 'start', 50),
    ('s6', (40, 3, 5), (12, 3, 4), (3, 1, 2), 'float16',
     [TransposeCodec(order=(1, 2, 0)), BytesCodec(), GzipCodec(level=1),
      Crc32cCodec()], None, 'end', 33),
    ('s7', (77,), (16,), (4,), 'bool', [BytesCodec()], [BytesCodec()],
     'start', 70),
]
for name, shape, shards, inner, dtype, codecs, index, where, written in CASES:
    if dtype == 'bool':
        a = rng.integers(0, 2, shape).astype(bool)
    elif dtype.startswith(('float', 'complex')):
        a = (rng.standard_normal(shape) * 9).astype(dtype)
    else:
        a = rng.integers(-100 if dtype[0] == 'i' else 0, 100, shape,
                         dtype=dtype)
    kw = {} if index is None else {'index_codecs': index}
    z = zarr.create_array(name + '.zarr', shape=shape, chunks=shards,
                          dtype=dtype, compressors=None, fill_value=3,
                          serializer=ShardingCodec(chunk_shape=inner,
                                                   codecs=codecs,
                                                   index_location=where, **kw))
    a[written // 3:written // 3 + 2 * inner[0]] = 3
    z[:written] = a[:written]
    np.save('want-%s.npy' % name, zarr.open_array(name + '.zarr',
                                                  mode='r')[...])
    print(name)
# what zarr-python 3 writes with shards=: zstd and crc32c for the index
z = zarr.create_array('d.zarr', shape=(90, 4), chunks=(5, 2), shards=(30, 4),
                      dtype='float32', fill_value=-1)
z[:70] = rng.standard_normal((70, 4))
np.save('want-d.npy', zarr.open_array('d.zarr', mode='r')[...])
print('d')
"""


SHARDED_STORES = []


def sharded_stores():
    """(the directory of the stores V3_SHARDED_WRITER wrote, their names),
    written once; None without zarr 3."""
    if SHARDED_STORES:
        return SHARDED_STORES[0]
    if not os.access(ZARR3, os.X_OK):
        print('     zarr 3 is not installed (tools/bootstrap.sh installs it '
              'in %s): skipped' % os.path.dirname(ZARR3))
        return None
    d = plantest.tmpdir()
    p = subprocess.run([ZARR3, '-W', 'ignore', '-c', V3_SHARDED_WRITER],
                       cwd=d, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise Failure('zarr 3 could not write the stores:\n' + p.stderr)
    SHARDED_STORES.append((d, p.stdout.split()))
    return SHARDED_STORES[0]


def crc32c(data):
    """CRC-32C (Castagnoli), as Zarr v3's crc32c codec computes it."""
    crc = 0xffffffff
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 if crc & 1 else 0)
    return crc ^ 0xffffffff


def v3_sharded_arrays():
    """Sharded Zarr v3 arrays (sharding_indexed) that zarr-python 3 wrote:
    several dtypes, 1-D to 3-D, shards that do not divide the shape, inner
    chunks that do not divide it either, the index at the start and at the
    end (little- and big-endian, with and without its CRC32C), inner
    chunks with gzip, zstd, blosc, transposes, crc32c, missing shards and
    empty inner chunks (the fill value); each read as zarr 3 reads it,
    whole and from rows inside a shard, in blocks of several sizes."""
    if sharded_stores() is None:
        return
    d, names = sharded_stores()
    out = os.path.join(plantest.tmpdir(), 'out.npy')
    if len(names) != 8:
        raise Failure('zarr 3 wrote %s' % names)
    for name in names:
        store = os.path.join(d, name + '.zarr')
        want = np.load(os.path.join(d, 'want-%s.npy' % name))
        # what the test means to have: a missing shard, empty inner chunks
        if name == 's1' and (os.path.exists(os.path.join(store, 'c', '3'))
                             or not os.path.exists(os.path.join(store, 'c',
                                                                '2'))):
            raise Failure('s1: shard 3 was written, or shard 2 not')
        plantest.assert_same(read(store, out), want, 'v3 sharded %s' % name)
        row = want[0].nbytes
        for props, rows in [(['blocksize=%d' % row], slice(None)),
                            (['offset=7', 'length=%d' % (want.shape[0] - 9),
                              'blocksize=%d' % (3 * row)],
                             slice(7, want.shape[0] - 2))]:
            launch('planfilesrc', 'location=' + store, *props, '!',
                   'planfilesink', 'location=' + out)
            plantest.assert_same(np.load(out), want[rows],
                                 'v3 sharded %s %s' % (name, props))


def v3_sharded_corrupt_and_unsupported_fail():
    """A sharded v3 array whose shard is corrupt fails with one error
    naming the store, the shard and what is wrong: a byte of the index
    flipped (its CRC32C), a shard truncated (inside its data, and shorter
    than its index), an index entry past the end of the shard, one half
    empty (an offset of 2^64-1, a length not), an inner
    chunk that does not decode; nothing is written. Sharding zarr-python 3
    refuses or gst-plan does not read (inner chunks that do not divide the
    shard, nested sharding, an index codec other than bytes and crc32c,
    codecs beside sharding_indexed) is refused by name when the array is
    opened."""
    if sharded_stores() is None:
        return
    src = sharded_stores()[0]
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')

    def broken(name, shard, change):
        """A copy of store name with its shard changed by change(bytes)."""
        store = os.path.join(d, 'bad%d.zarr' % len(os.listdir(d)))
        shutil.copytree(os.path.join(src, name), store)
        path = os.path.join(store, *shard.split('/'))
        data = change(bytearray(open(path, 'rb').read()))
        open(path, 'wb').write(data)
        return store, path

    def flip(at):
        def change(data):
            data[at] ^= 0x10
            return data
        return change

    def entry_past_end(data):
        # s7: index at the start, no CRC; inner chunk 1 moved past the end
        data[16:24] = (len(data) - 3).to_bytes(8, 'little')
        return data

    def entry_half_empty(data):
        # s7: inner chunk 2 with the offset of an empty one, a length not
        data[32:40] = b'\xff' * 8
        return data

    def entry_past_end_crc(data):
        # d: index at the end with its CRC32C, made right again
        n = len(data) - 4 - 16 * 12
        data[n + 16 * 2:n + 16 * 2 + 8] = (len(data) + 100).to_bytes(
            8, 'little')
        data[-4:] = crc32c(bytes(data[n:-4])).to_bytes(4, 'little')
        return data

    def garble_inner(data):
        # s2: index at the end; the first inner chunk's gzip stream
        n = len(data) - 4 - 16 * 16
        off = int.from_bytes(data[n:n + 8], 'little')
        data[off + 12:off + 20] = b'\xff' * 8
        return data

    cases = [
        (broken('d.zarr', 'c/0/0', flip(-9)),
         ['the index at its end fails its CRC32C checksum']),
        (broken('s3.zarr', 'c/0/0/0', flip(5)),
         ['the index at its start fails its CRC32C checksum']),
        (broken('d.zarr', 'c/1/0', lambda b: b[:len(b) // 2]),
         ['fails its CRC32C checksum', 'corrupt or truncated']),
        (broken('s4.zarr', 'c/0/0', lambda b: b[:40]),
         ['fewer than its index of 64 bytes; it is truncated']),
        (broken('s7.zarr', 'c/2', entry_past_end),
         ['inner chunk (1) of the shard', 'outside the shard']),
        (broken('s7.zarr', 'c/2', entry_half_empty),
         ['inner chunk (2) of the shard', 'at offset 18446744073709551615, '
          'outside the shard']),
        (broken('d.zarr', 'c/0/0', entry_past_end_crc),
         ['inner chunk (1, 0) of the shard', 'outside the shard']),
        (broken('s2.zarr', 'c/0/0', garble_inner),
         ['inner chunk (0, 0) of the shard', 'does not decode']),
    ]
    for (store, path), texts in cases:
        if os.path.exists(out):
            os.unlink(out)
        err = expect_error(['planfilesrc', 'location=' + store, '!',
                            'planfilesink', 'location=' + out],
                           "its shard '%s'" % path if 'inner' not in texts[0]
                           else "of the shard '%s'" % path, *texts)
        if 'Could not read' not in err or store not in err:
            raise Failure('%s: the error does not name the store:\n%s' %
                          (store, err))
        if os.path.exists(out):
            raise Failure('%s: a file was written' % store)

    def edited(change):
        store = os.path.join(d, 'meta%d.zarr' % len(os.listdir(d)))
        shutil.copytree(os.path.join(src, 's2.zarr'), store)
        meta = json.load(open(os.path.join(store, 'zarr.json')))
        change(meta['codecs'][0]['configuration'], meta)
        json.dump(meta, open(os.path.join(store, 'zarr.json'), 'w'))
        return store

    def nest(conf, meta):
        conf['codecs'] = [{'name': 'sharding_indexed',
                           'configuration': dict(conf)}]

    for store, text in [
            (edited(lambda c, m: c.update(chunk_shape=[10, 6])),
             'inner chunk_shape does not fit its shards'),
            (edited(nest), 'nested sharding is not read'),
            (edited(lambda c, m: c['index_codecs'].insert(
                1, {'name': 'gzip', 'configuration': {'level': 1}})),
             "index codec 'gzip' is not supported"),
            (edited(lambda c, m: c.update(index_location='middle')),
             "index_location 'middle'"),
            (edited(lambda c, m: m['codecs'].append({'name': 'crc32c'})),
             'sharding_indexed beside other codecs')]:
        expect_error(['planfilesrc', 'location=' + store, '!',
                      'planfilesink', 'location=' + out], store, text)


SINK_SHAPES = [(), (0,), (1,), (997,), (250, 3), (61, 2, 5), (13, 3, 1, 4)]
SINK_CODECS = ['none', 'zstd', 'gzip', 'blosc-lz4', 'blosc-zstd']


def store_size(path):
    return sum(os.path.getsize(os.path.join(top, name))
               for top, _, names in os.walk(path) for name in names)


def default_chunks_fit_small_arrays():
    """With chunk-rows unset, an array of fewer rows than the default chunk
    of about 1 MiB is one chunk of its rows (a store of a few hundred
    bytes, not of 1 MiB), v2 and v3, compressed or not; an empty one
    chunks of one row. A larger array keeps the default, and chunk-rows
    given is kept whatever the rows. zarr-python reads each as numpy
    saved it (v3, which zarr-python 2 does not read: its zarr.json says
    the chunks, and its one chunk holds the array's bytes)."""
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.npy'), os.path.join(d, 'out.zarr')
    small = np.arange(12, dtype=np.float32).reshape(4, 3)
    cases = [
        (small, [], [4, 3], 4096),
        (small, ['compression=3'], [4, 3], 4096),
        (small, ['zarr-format=3'], [4, 3], 4096),
        (np.zeros((0, 3), np.float32), [], [1, 3], 4096),
        (RNG.standard_normal((100000, 3)).astype(np.float32), [],
         [87381, 3], None),
        (small, ['chunk-rows=1000'], [1000, 3], None),
    ]
    for a, props, chunks, most in cases:
        np.save(src, a)
        launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
               'location=' + out, *props)
        what = '%s %s' % (a.shape, props)
        if 'zarr-format=3' in props:
            meta = json.load(open(os.path.join(out, 'zarr.json')))
            got = meta['chunk_grid']['configuration']['chunk_shape']
            # One chunk, uncompressed: its bytes are the array's.
            chunk = open(os.path.join(out, 'c', '0', '0'), 'rb').read()
            plantest.assert_same(np.frombuffer(chunk, '<f4').reshape(
                a.shape), a, what)
        else:
            z = zarr.open(out, mode='r')
            plantest.assert_same(z[...], a, what)
            got = list(z.chunks)
        if got != chunks:
            raise Failure('%s: chunks %s, not %s' % (what, got, chunks))
        if most is not None and store_size(out) > most:
            raise Failure('%s: a store of %d bytes' %
                          (what, store_size(out)))


def sink_writes_what_zarr_reads():
    """planfilesink into a Zarr v2 store: every dtype, 0-d to 4-D, empty,
    chunks of odd rows (the last one partial), every codec; zarr-python
    reads what was sent, with the chunks and compressor asked for, and
    planfilesrc reads the first of each dtype back; nothing is left beside
    the store."""
    d = plantest.tmpdir()
    src = os.path.join(d, 'in.npy')
    out = os.path.join(d, 'out.zarr')
    for i, dtype in enumerate(plantest.DTYPES):
        shapes = SINK_SHAPES if dtype in ('bool', 'float32') else \
            [SINK_SHAPES[i % len(SINK_SHAPES)],
             SINK_SHAPES[(i + 3) % len(SINK_SHAPES)]]
        for j, shape in enumerate(shapes):
            a = plantest.random_array(dtype, shape, RNG)
            np.save(src, a)
            codec = SINK_CODECS[(i + j) % len(SINK_CODECS)]
            props = ['chunk-rows=7']
            if codec != 'none':
                props += ['compression=4', 'codec=' + codec]
            launch('planfilesrc', 'location=' + src, 'blocksize=1000', '!',
                   'planfilesink', 'location=' + out, *props)
            z = zarr.open(out, mode='r')
            what = 'zarr sink %s %s %s' % (dtype, shape, codec)
            plantest.assert_same(z[...], a, what)
            if a.ndim > 0 and z.chunks != (7,) + a.shape[1:] and \
                    not (0 in a.shape[1:]):
                raise Failure('%s: chunks %s' % (what, z.chunks))
            want = {'none': None, 'zstd': 'zstd', 'gzip': 'gzip',
                    'blosc-lz4': 'blosc', 'blosc-zstd': 'blosc'}[codec]
            got = z.compressor.codec_id if z.compressor else None
            if got != want or (want == 'blosc' and z.compressor.cname !=
                               codec.split('-')[1]):
                raise Failure('%s: compressor %s' % (what, z.compressor))
            if j == 0:
                back = os.path.join(d, 'back.npy')
                plantest.assert_same(read(out, back), a, what + ' read back')
                os.unlink(back)
    if sorted(os.listdir(d)) != ['in.npy', 'out.zarr']:
        raise Failure('files left behind: %s' % sorted(os.listdir(d)))


# Run by zarr 3's python: reads each store named on the command line (a
# path, or path:array in a group) and saves it as got-N.npy with its
# codecs in codecs-N.txt.
V3_READER = r"""
import sys, numpy as np, zarr
for i, spec in enumerate(sys.argv[1:]):
    path, _, name = spec.partition(':')
    z = zarr.open_group(path, mode='r')[name] if name else \
        zarr.open_array(path, mode='r')
    np.save('got-%d.npy' % i, z[...])
    open('codecs-%d.txt' % i, 'w').write(
        ' '.join(type(c).__name__ for c in z.metadata.codecs))
"""


def v3_sink_writes_what_zarr3_reads():
    """planfilesink zarr-format=3: every dtype, 0-d to 4-D, empty, every
    codec, an array in a group, and one added to a group zarr 3 made,
    keeping its other array; zarr 3 reads what was sent."""
    if zarr3_stores() is None:
        return
    d = plantest.tmpdir()
    src = os.path.join(d, 'in.npy')
    specs, wants = [], []
    for i, dtype in enumerate(plantest.DTYPES):
        shape = SINK_SHAPES[i % len(SINK_SHAPES)]
        a = plantest.random_array(dtype, shape, RNG)
        np.save(src, a)
        codec = SINK_CODECS[i % len(SINK_CODECS)]
        out = os.path.join(d, 'o%d.zarr' % i)
        props = ['chunk-rows=7', 'zarr-format=3']
        if codec != 'none':
            props += ['compression=3', 'codec=' + codec]
        launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
               'location=' + out, *props)
        specs.append(out)
        wants.append((a, codec, dtype, shape))
    a = RNG.standard_normal((100, 3))
    np.save(src, a)
    grp = os.path.join(d, 'g.zarr')
    launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
           'location=' + grp, 'zarr-format=3', 'dataset=obs/t')
    specs.append(grp + ':obs/t')
    wants.append((a, 'none', 'group', a.shape))
    plantest.assert_same(read(grp, os.path.join(d, 'back.npy'),
                              'dataset=obs/t'), a, 'v3 read back')
    made = os.path.join(d, 'made.zarr')
    p = subprocess.run([ZARR3, '-c', 'import zarr, numpy as np; '
                        'g = zarr.open_group(%r, mode="w"); '
                        'g.create_array("keep", data=np.arange(5))' % made],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise Failure('zarr 3 could not make a group:\n' + p.stderr)
    launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
           'location=' + made, 'file-mode=add', 'dataset=sub/new',
           'compression=2')
    specs += [made + ':sub/new', made + ':keep']
    wants += [(a, 'zstd', 'added', a.shape),
              (np.arange(5), 'none', 'kept', (5,))]
    p = subprocess.run([ZARR3, '-c', V3_READER] + specs, cwd=d,
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise Failure('zarr 3 could not read the stores:\n' + p.stderr)
    for i, (a, codec, what, shape) in enumerate(wants):
        got = np.load(os.path.join(d, 'got-%d.npy' % i))
        plantest.assert_same(got, a, 'v3 sink %s %s %s' % (what, shape,
                                                          codec))
        if what == 'kept':
            continue
        codecs = open(os.path.join(d, 'codecs-%d.txt' % i)).read().split()
        want = ['BytesCodec'] + {
            'none': [], 'zstd': ['ZstdCodec'], 'gzip': ['GzipCodec'],
            'blosc-lz4': ['BloscCodec'], 'blosc-zstd': ['BloscCodec']}[codec]
        if codecs != want:
            raise Failure('v3 sink %s %s: codecs %s' % (what, codec, codecs))


def sink_groups_replace_and_add():
    """An array at a path makes a group store; a store there is replaced
    whole; file-mode=add adds an array to a group made by zarr-python,
    keeping its other arrays and attributes and replacing one of the same
    path; the default format of a .zarr name is Zarr."""
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.npy'), os.path.join(d, 'g.zarr')
    a = RNG.standard_normal((300, 5)).astype(np.float64)
    np.save(src, a)
    launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
           'location=' + out, 'dataset=/obs/t', 'compression=1')
    g = zarr.open_group(out, mode='r')
    plantest.assert_same(g['obs/t'][...], a, 'array in a group')
    # A store there is replaced whole.
    launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
           'location=' + out, 'dataset=/x')
    if sorted(zarr.open_group(out, mode='r').keys()) != ['x']:
        raise Failure('the store was not replaced whole')
    # Added to a group zarr-python wrote.
    shutil.rmtree(out)
    g = zarr.open_group(out, mode='w')
    g.attrs['title'] = 'run 7'
    old = g.create_dataset('keep', data=np.arange(10), chunks=(3,))
    g.create_dataset('sub/t', data=np.zeros(4), chunks=(2,))
    old.attrs['units'] = 'K'
    for path in ['sub/t', 'sub/new/deep']:
        launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
               'location=' + out, 'file-mode=add', 'dataset=' + path,
               'compression=2', 'codec=blosc-lz4')
        g = zarr.open_group(out, mode='r')
        plantest.assert_same(g[path][...], a, 'added ' + path)
        plantest.assert_same(g['keep'][...], np.arange(10), 'kept array')
        if g.attrs['title'] != 'run 7' or g['keep'].attrs['units'] != 'K':
            raise Failure('attributes lost')
    if g['sub/t'].shape != a.shape:
        raise Failure('the array added first is gone')
    if sorted(os.listdir(d)) != ['g.zarr', 'in.npy'] or \
            [n for n in os.listdir(os.path.join(out, 'sub'))
             if n.startswith('.') and n != '.zgroup']:
        raise Failure('files left behind')


def sink_add_keeps_consolidated_metadata():
    """file-mode=add into a group with consolidated metadata (a .zmetadata,
    what zarr.consolidate_metadata() and xarray's to_zarr() write, at the
    root or in a group on the way) brings it up to date: a reader that
    opens the store consolidated (zarr.open_consolidated, xarray's default)
    sees the array added, with its shape, dtype and values, and not the
    metadata of an array it replaced; the groups made on the way are in it
    too. A v3 group's inline consolidated metadata (zarr-python 3) gets
    the new array's zarr.json in the same way. A .zmetadata that is not JSON fails the run
    and leaves the store as it was."""
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.npy'), os.path.join(d, 'c.zarr')
    a = RNG.standard_normal((40, 3)).astype(np.float32)
    np.save(src, a)
    g = zarr.open_group(out, mode='w')
    old = g.create_dataset('old', data=np.arange(5), chunks=(2,))
    old.attrs['units'] = 'K'
    g.create_group('ds').create_dataset('v', data=np.arange(3))
    zarr.consolidate_metadata(out)
    zarr.consolidate_metadata(out + '/ds')

    def add(dataset):
        launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
               'location=' + out, 'file-mode=add', 'dataset=' + dataset)
    for dataset in ['old', 'ds/w', 'x/y/z']:
        add(dataset)
        c = zarr.open_consolidated(out, mode='r')
        plantest.assert_same(c[dataset][...], a, 'consolidated ' + dataset)
    if dict(c['old'].attrs):
        raise Failure('the replaced array keeps its attributes in '
                      '.zmetadata: %r' % dict(c['old'].attrs))
    if sorted(zarr.open_consolidated(out + '/ds', mode='r').array_keys()) \
            != ['v', 'w']:
        raise Failure('the group ds/.zmetadata was not brought up to date')
    if [f for f in os.listdir(out) if f.endswith('.part')]:
        raise Failure('temporary files are left: %s' % os.listdir(out))
    with open(os.path.join(out, '.zmetadata'), 'w') as f:
        f.write('{bad')
    before = sorted(os.listdir(out))
    expect_error(['planfilesrc', 'location=' + src, '!', 'planfilesink',
                  'location=' + out, 'file-mode=add', 'dataset=ds/u'],
                 "Could not add to '%s': cannot bring the consolidated "
                 "metadata of the group '%s' up to date: '%s' is not valid "
                 "JSON" % (out, out, os.path.join(out, '.zmetadata')))
    if sorted(os.listdir(out)) != before or \
            os.path.exists(os.path.join(out, 'ds', 'u')):
        raise Failure('a failed add changed the store')
    # v3: zarr-python 3 keeps consolidated metadata inline in zarr.json.
    v3 = os.path.join(d, 'v3.zarr')
    os.makedirs(v3)
    with open(os.path.join(v3, 'zarr.json'), 'w') as f:
        json.dump({'zarr_format': 3, 'node_type': 'group',
                   'attributes': {'title': 'x'}}, f)
    for dataset in ['old', 'ds/v']:
        launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
               'location=' + v3, 'file-mode=add', 'dataset=' + dataset)
    v3_consolidate(os.path.join(v3, 'ds'))
    v3_consolidate(v3)
    for dataset in ['t', 'old', 'ds/w', 'x/y/z']:
        launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
               'location=' + v3, 'file-mode=add', 'dataset=' + dataset)
        for group in [v3, os.path.join(v3, 'ds')]:
            with open(os.path.join(group, 'zarr.json')) as f:
                meta = json.load(f)
            got = meta.get('consolidated_metadata')
            want = v3_consolidated(group)
            if got != want:
                raise Failure('v3 consolidated metadata of %s after adding '
                              '%s:\n%r\nwanted\n%r' % (group, dataset,
                                                        got, want))
        if meta['attributes'] != {}:
            raise Failure('v3 group ds lost its own metadata: %r' % meta)
    with open(os.path.join(v3, 'zarr.json')) as f:
        meta = json.load(f)
    if meta['attributes'] != {'title': 'x'} or \
            sorted(meta['consolidated_metadata']['metadata']) != \
            ['ds', 'ds/v', 'ds/w', 'old', 't', 'x', 'x/y', 'x/y/z']:
        raise Failure('v3 root metadata after adds: %r' % meta)
    if os.access(ZARR3, os.X_OK):
        # zarr-python 3 itself, reading through the consolidated metadata.
        p = subprocess.run([ZARR3, '-W', 'ignore', '-c', V3_CONSOLIDATED_READ,
                            v3], capture_output=True, text=True)
        if p.returncode != 0:
            raise Failure('zarr-python 3 reading %s consolidated:\n%s' %
                          (v3, p.stdout + p.stderr))
        for name in ['t', 'old', 'ds/w', 'x/y/z']:
            plantest.assert_same(
                np.load(os.path.join(v3, '..', 'got-%s.npy' %
                                     name.replace('/', '-'))),
                a, 'zarr-python 3 consolidated ' + name)


# Run by zarr 3's python: opens the store given consolidated (from the
# root's zarr.json alone: its nodes' zarr.json are hidden first) and saves
# each array beside the store.
V3_CONSOLIDATED_READ = '''
import os, sys, numpy as np, zarr
store = sys.argv[1]
names = ['t', 'old', 'ds/w', 'x/y/z']
hidden = [os.path.join(store, n, 'zarr.json') for n in names]
for h in hidden:
    os.rename(h, h + '.hidden')
try:
    g = zarr.open_consolidated(store, mode='r')
    want = {'ds', 'ds/v', 'ds/w', 'old', 't', 'x', 'x/y', 'x/y/z'}
    got = {k for k, _ in g.members(max_depth=None)}
    assert got == want, got
    for n in names:
        np.save(os.path.join(store, '..', 'got-%s.npy' % n.replace('/', '-')),
                g[n][...])
finally:
    for h in hidden:
        os.rename(h + '.hidden', h)
'''


def v3_consolidated(group):
    """What zarr-python 3's consolidate_metadata() puts in a group's
    zarr.json: the zarr.json of every node below it, keyed by its path from
    the group; a group among them keeps inline consolidated metadata of its
    own only as an empty one, and has none when it had none."""
    found = {}
    for top, dirs, files in os.walk(group):
        dirs.sort()
        if top == group or 'zarr.json' not in files:
            continue
        with open(os.path.join(top, 'zarr.json')) as f:
            node = json.load(f)
        if node['node_type'] == 'group':
            if node.get('consolidated_metadata'):
                node['consolidated_metadata']['metadata'] = {}
            else:
                node.pop('consolidated_metadata', None)
        found[os.path.relpath(top, group)] = node
    return {'kind': 'inline', 'must_understand': False, 'metadata': found}


def v3_consolidate(group):
    """Consolidates a v3 group's metadata in its zarr.json, as zarr-python
    3's zarr.consolidate_metadata() does."""
    path = os.path.join(group, 'zarr.json')
    with open(path) as f:
        meta = json.load(f)
    meta['consolidated_metadata'] = v3_consolidated(group)
    with open(path, 'w') as f:
        json.dump(meta, f)


def sink_failures_leave_the_store():
    """A run that fails upstream, a directory that is not a Zarr store, a
    file, adding to an array or onto a group, adding without a name, a
    dataset path with '.' or '..' or a metadata file's name, and an HDF5
    codec other than gzip fail with a clear error and leave what was there
    as it was (and nothing beside it)."""
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.npy'), os.path.join(d, 'g.zarr')
    np.save(src, np.arange(3000, dtype=np.float32))
    bad = os.path.join(d, 'bad.zarr')
    zarr.array(RNG.standard_normal(2000), chunks=(100,), store=bad,
               compressor=numcodecs.Zstd(level=1))
    open(os.path.join(bad, '7'), 'wb').write(b'not zstd at all')
    g = zarr.open_group(out, mode='w')
    g.create_dataset('old', data=np.arange(7.0), chunks=(2,))
    g.create_dataset('grp/x', data=np.arange(3))
    plain = os.path.join(d, 'plain')
    os.mkdir(plain)
    open(os.path.join(plain, 'notes.txt'), 'w').write('mine')
    afile = os.path.join(d, 'file.zarr')
    open(afile, 'w').write('a file')

    def snapshot():
        files = {}
        for root in [out, plain]:
            for dirpath, _, names in os.walk(root):
                for n in names:
                    p = os.path.join(dirpath, n)
                    files[p] = open(p, 'rb').read()
        return files, open(afile).read()

    before = snapshot()
    cases = [
        (['planfilesrc', 'location=' + bad, 'blocksize=800', '!',
          'planfilesink', 'location=' + out], ['is corrupt']),
        (['planfilesrc', 'location=' + bad, 'blocksize=800', '!',
          'planfilesink', 'location=' + out, 'file-mode=add',
          'dataset=old'], ['is corrupt']),
        (['planfilesrc', 'location=' + src, '!', 'planfilesink',
          'location=' + plain, 'format=zarr'],
         ['is a directory that is not a Zarr store', 'left as it is']),
        (['planfilesrc', 'location=' + src, '!', 'planfilesink',
          'location=' + afile], ['it is a file, not a Zarr store']),
        (['planfilesrc', 'location=' + src, '!', 'planfilesink',
          'location=' + out, 'file-mode=add', 'dataset=grp'],
         ["'/grp' in it is not a Zarr array"]),
        (['planfilesrc', 'location=' + src, '!', 'planfilesink',
          'location=' + out, 'file-mode=add', 'dataset=old/x'],
         ['is a Zarr array, not a group']),
        (['planfilesrc', 'location=' + src, '!', 'planfilesink',
          'location=' + out, 'file-mode=add'],
         ['name the array to add']),
        (['planfilesrc', 'location=' + src, '!', 'planfilesink',
          'location=' + os.path.join(out, 'old'), 'format=zarr',
          'file-mode=add', 'dataset=y'],
         ['it is a Zarr array, not a Zarr group']),
    ]
    # A dataset path that leaves the store ('..' wrote the array beside
    # it, outside the temporary store, and left it there) or names a
    # metadata file: refused before anything is made, as zarr-python
    # refuses '.' and '..'.
    for ds, text in (('../evil', "has a part '..'"),
                     ('a/../../evil', "has a part '..'"),
                     ('x/./y', "has a part '.'"),
                     ('.zarray', "has a part '.zarray', the name of a "
                      "Zarr metadata file"),
                     ('a/zarr.json', "has a part 'zarr.json', the name of a "
                      "Zarr metadata file")):
        for mode in ('replace', 'add'):
            cases.append((['planfilesrc', 'location=' + src, '!',
                           'planfilesink', 'location=' + out,
                           'file-mode=' + mode, 'dataset=' + ds],
                          ["the dataset '%s' %s" % (ds, text)]))
    for words, texts in cases:
        expect_error(words, *texts)
        if snapshot() != before:
            raise Failure('%s changed what was there' % ' '.join(words))
    if plantest.built_with('hdf5'):
        h5 = os.path.join(d, 'x.h5')
        expect_error(['planfilesrc', 'location=' + src, '!', 'planfilesink',
                      'location=' + h5, 'compression=1', 'codec=zstd'],
                     'HDF5 output is compressed with gzip')
    left = sorted(n for n in os.listdir(d))
    if left != ['bad.zarr', 'file.zarr', 'g.zarr', 'in.npy', 'plain']:
        raise Failure('files left behind: %s' % left)
    hidden = [os.path.join(p, n) for p, dirs, _ in os.walk(out)
              for n in dirs if n.startswith('.')]
    if hidden:
        raise Failure('temporary directories left: %s' % hidden)


def sink_replaces_a_link_not_its_store():
    """A symbolic link at the location (or at the path of an array added
    to a group) to a store elsewhere is replaced by the new store, as a
    link to a file is: the store it points to is left as it was. The old
    store was exchanged with the new one and then removed through the
    link: its files were deleted and a dangling link was left beside."""
    d = plantest.tmpdir()
    src = os.path.join(d, 'in.npy')
    a = np.arange(600, dtype=np.float32).reshape(200, 3)
    np.save(src, a)
    real = os.path.join(d, 'real')
    os.mkdir(real)
    kept = os.path.join(real, 'kept.zarr')
    old = np.arange(10.0)
    zarr.array(old, chunks=(4,), store=kept)
    link = os.path.join(d, 'link.zarr')
    os.symlink(kept, link)
    launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
           'location=' + link)
    if os.path.islink(link):
        raise Failure('the link is still there')
    plantest.assert_same(zarr.open_array(link, mode='r')[...], a,
                         'the new store')
    plantest.assert_same(zarr.open_array(kept, mode='r')[...], old,
                         'the store the link pointed to')
    # file-mode=add over an array of the group that is a link.
    g = os.path.join(d, 'g.zarr')
    zarr.open_group(g, mode='w').create_dataset('x', data=np.arange(3))
    os.symlink(kept, os.path.join(g, 'y'))
    launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
           'location=' + g, 'file-mode=add', 'dataset=y')
    plantest.assert_same(zarr.open_group(g, mode='r')['y'][...], a,
                         'the array added')
    plantest.assert_same(zarr.open_array(kept, mode='r')[...], old,
                         'the store the array\'s link pointed to')
    left = sorted(n for n in os.listdir(d) if n.startswith('.'))
    left += sorted(n for n in os.listdir(g) if n.startswith('.') and
                   n != '.zgroup')
    if left:
        raise Failure('left beside: %s' % left)


def blosc_opened_on_first_use():
    """libblosc is opened by a process that reads or writes blosc chunks,
    not by one that reads a .npy file or a Zarr array of another codec."""
    d = plantest.tmpdir()
    npy = os.path.join(d, 'x.npy')
    np.save(npy, np.arange(100.0))
    zstd, blosc = os.path.join(d, 'zstd.zarr'), os.path.join(d, 'blosc.zarr')
    zarr.array(np.arange(100.0), chunks=(30,), store=zstd,
               compressor=CODECS['zstd'])
    zarr.array(np.arange(100.0), chunks=(30,), store=blosc,
               compressor=CODECS['blosc-lz4'])
    out = os.path.join(d, 'out.zarr')
    for words, opens in [
            (['planfilesrc', 'location=' + npy, '!', 'fakesink'], False),
            (['planfilesrc', 'location=' + zstd, '!', 'fakesink'], False),
            (['planfilesrc', 'location=' + blosc, '!', 'fakesink'], True),
            (['planfilesrc', 'location=' + npy, '!', 'planfilesink',
              'location=' + out, 'compression=3', 'codec=blosc-zstd'],
             True)]:
        p = subprocess.run(plantest.launcher() + ['-q'] + words,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=120,
                           env=dict(os.environ, LD_DEBUG='files'))
        if p.returncode != 0:
            raise Failure('%s: rc %d\n%s' % (' '.join(words), p.returncode,
                                              p.stdout[-2000:]))
        if ('libblosc' in p.stdout) != opens:
            raise Failure('%s: libblosc %s' % (
                ' '.join(words), 'not opened' if opens else
                'opened though no blosc chunk was read or written'))
    plantest.assert_same(zarr.open(out, mode='r')[...], np.arange(100.0),
                         'blosc-zstd output')


skip_without_zarr()
plantest.run_cases([
    ('every dtype, layout and codec', every_dtype_layout_and_codec),
    ('fill values and separators', fill_values_and_separators),
    ('shards and wrap', shards_and_wrap),
    ('a missing array lists the names', missing_array_lists_the_names),
    ('corrupt and truncated chunks fail', corrupt_and_truncated_chunks_fail),
    ('unsupported metadata fails', unsupported_metadata_fails),
    ('hostile metadata fails', hostile_metadata_fails),
    ('fill values from 2^63, and null', fill_values_from_2_63_and_null),
    ('metadata that is not JSON is refused', not_json_refused),
    ('v3: bytes without endian', v3_bytes_without_endian),
    ('v3: attributes of any size', v3_attributes_of_any_size),
    ('v3: every dtype, codec and layout', v3_every_dtype_codec_and_layout),
    ('v3: unsupported and corrupt fail', v3_unsupported_and_corrupt_fail),
    ('v3: transposed chunks', v3_transposed_chunks),
    ('v3: sharded arrays', v3_sharded_arrays),
    ('v3: corrupt and unsupported sharding fails',
     v3_sharded_corrupt_and_unsupported_fail),
    ('default chunks fit small arrays', default_chunks_fit_small_arrays),
    ('the sink writes what zarr reads', sink_writes_what_zarr_reads),
    ('groups, replace and add', sink_groups_replace_and_add),
    ('add keeps consolidated metadata', sink_add_keeps_consolidated_metadata),
    ('v3: the sink writes what zarr 3 reads', v3_sink_writes_what_zarr3_reads),
    ('sink failures leave the store', sink_failures_leave_the_store),
    ('the sink replaces a link, not its store',
     sink_replaces_a_link_not_its_store),
    ('blosc is opened on first use', blosc_opened_on_first_use),
])
