"""planfilesrc on damaged and hostile files: a small, fixed corpus of
mutations of files numpy, h5py and zarr write (truncations, overwritten
header, directory and chunk bytes), and the inputs the hostile-input audit
found defects with (a .npz entry pointing at another member's data, a Zarr
chunk that is a FIFO, symbolic links that loop, metadata nested 100000
deep, a v3 crc32c after an odd number of bytes).

Each input is read by `plan-launch planfilesrc location=F ! planreduce
op=sum ! fakesink`, and must either fail with one clear error (exit status
1, one ERROR line naming the file, no GLib critical or warning, within 20
s), or succeed with numpy's sum of what numpy (np.load, h5py, zarr) reads
from the same file. Deterministic and quick (about a hundred runs)."""
import json
import os
import re
import struct
import subprocess
import zlib

import numpy as np

import plantest
from plantest import Failure

A = (np.arange(300, dtype=np.float32).reshape(100, 3) / 7).astype(np.float32)
TIMEOUT = 20


def run(location, extra=()):
    """(exit status, output) of the reduction of @location (@extra: more
    properties of planfilesrc)."""
    cmd = plantest.launcher() + ['planfilesrc', 'location=' + location] + \
        list(extra) + ['!', 'planreduce', 'op=sum', '!', 'fakesink']
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True,
                           errors='replace', timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise Failure('%s: no end within %d s' % (location, TIMEOUT))
    return p.returncode, p.stdout


def oracle_sum(path, kind):
    """numpy's sum of what its readers read from @path, or None when they
    refuse it."""
    try:
        if kind == 'npy':
            a = np.load(path)
        elif kind == 'npz':
            with np.load(path) as z:
                a = z[z.files[0]]
        elif kind == 'h5':
            import h5py
            with h5py.File(path, 'r') as f:
                a = f['a'][()]
        else:
            import zarr
            a = zarr.open(path, 'r')[...]
        return float(np.sum(a, dtype=np.float64))
    except Exception:  # noqa: BLE001 - any refusal is the oracle's answer
        return None


def check(path, kind, what):
    """@path fails cleanly, or reads as numpy reads it."""
    rc, out = run(path)
    bad = [l for l in out.splitlines() if re.search(
        r'CRITICAL|-WARNING \*\*|runtime error|Sanitizer', l)]
    if bad:
        raise Failure('%s: %s' % (what, '\n'.join(bad)))
    if rc == 0:
        m = re.search(r'sum = (\S+)', out)
        want = oracle_sum(path, kind)
        if m is None or want is None:
            raise Failure('%s: read with exit status 0 (%s), where numpy '
                          'refuses it:\n%s' % (what, m and m.group(1), out))
        got = float(m.group(1))
        if not (np.isnan(got) and np.isnan(want)) and \
                abs(got - want) > 1e-3 * max(1.0, abs(want)):
            raise Failure('%s: sum %r, numpy %r' % (what, got, want))
        return
    errors = [l for l in out.splitlines() if l.startswith('ERROR')]
    if rc != 1 or len(errors) != 1 or path not in errors[0]:
        raise Failure('%s: exit status %d, not one error naming the file:\n%s'
                      % (what, rc, out))


def mutants(data, offsets, overwrites):
    """Truncations at @offsets (from the end when negative) and 0xff bytes
    written over @overwrites (offset, length)."""
    n = len(data)
    for o in offsets:
        o = o % n
        yield 'cut at %d' % o, data[:o]
    for o, k in overwrites:
        o = o % n
        yield '%d bytes 0xff at %d' % (k, o), \
            data[:o] + b'\xff' * k + data[o + k:]


def file_corpus(name, kind, data, offsets, overwrites):
    d = plantest.tmpdir()
    for what, mutant in mutants(data, offsets, overwrites):
        path = os.path.join(d, name)
        with open(path, 'wb') as f:
            f.write(mutant)
        check(path, kind, '%s, %s' % (name, what))


def npy_corpus():
    d = plantest.tmpdir()
    np.save(os.path.join(d, 'a.npy'), A)
    with open(os.path.join(d, 'a.npy'), 'rb') as f:
        data = f.read()
    # The magic, version, header length, header text, its end and the data.
    file_corpus('a.npy', 'npy', data, [0, 1, 6, 8, 9, 10, 60, 127, 128, 129,
                                       -1],
                [(6, 1), (7, 1), (8, 2), (20, 4), (45, 1), (60, 8),
                 (126, 2)])


def npz_corpus():
    d = plantest.tmpdir()
    for name, save in [('s.npz', np.savez), ('c.npz', np.savez_compressed)]:
        save(os.path.join(d, name), a=A)
        with open(os.path.join(d, name), 'rb') as f:
            data = f.read()
        # Local header, member data, the central directory (its sizes,
        # offset and name), the end record.
        # The last, a byte of the array data of s.npz (its CRC-32 tells).
        file_corpus(name, 'npz', data, [4, 30, 100, 300, -60, -22, -1],
                    [(0, 4), (18, 4), (26, 2), (60, 8), (-22 - 46 - 5 + 20, 4),
                     (-22 - 46 - 5 + 42, 4), (-22 - 5 + 1, 1), (-6, 4),
                     (-10, 4), (400, 1)])


def npz_entry_pointing_at_another_member():
    d = plantest.tmpdir()
    path = os.path.join(d, 'two.npz')
    np.savez(path, a=np.arange(10.0), b=np.arange(10.0, 20.0))
    with open(path, 'rb') as f:
        data = bytearray(f.read())
    second = data.find(b'PK\x01\x02', data.find(b'PK\x01\x02') + 4)
    struct.pack_into('<I', data, second + 42, 0)
    with open(path, 'wb') as f:
        f.write(data)
    # Member b, whose entry points at a's local header.
    cmd = plantest.launcher() + ['planfilesrc', 'location=' + path,
                                 'member=b', '!', 'planreduce', 'op=sum', '!',
                                 'fakesink']
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=TIMEOUT)
    if p.returncode != 1 or 'names another member' not in p.stdout:
        raise Failure('b read as a: %d\n%s' % (p.returncode, p.stdout))


def h5_corpus():
    if not plantest.built_with('hdf5'):
        return
    try:
        import h5py
    except ImportError:
        return
    d = plantest.tmpdir()
    for name, opts in [('contig.h5', {}),
                       ('gzip.h5', dict(chunks=(10, 3), compression='gzip',
                                        shuffle=True))]:
        with h5py.File(os.path.join(d, name), 'w') as f:
            f.create_dataset('a', data=A, **opts)
        with open(os.path.join(d, name), 'rb') as f:
            data = f.read()
        # The superblock, the root group's and the dataset's object
        # headers, the chunk index, the data.
        file_corpus(name, 'h5', data, [8, 96, 512, 800, 1400, 2000, -1200,
                                       -1],
                    [(0, 8), (8, 4), (40, 8), (96, 8), (800, 8), (1000, 8),
                     (1200, 8), (1400, 8), (-600, 8)])
    # The dataspace's extent made 2^56 + 100 rows, beyond its maximum of
    # 100: rows no chunk holds would be read as the fill value for ever.
    path = os.path.join(d, 'gzip.h5')
    with open(path, 'rb') as f:
        data = bytearray(f.read())
    extent = struct.pack('<4Q', 100, 3, 100, 3)
    at = data.find(extent)
    if at < 0:
        raise Failure('no dataspace message of (100, 3) in gzip.h5')
    data[at + 7] = 1
    with open(path, 'wb') as f:
        f.write(data)
    check(path, 'h5', 'gzip.h5, extent beyond its maximum')


def h5_layout_chunk_shape():
    """A chunk shape changed in the dataset's layout message (a chunked
    layout of version 3: the chunks' address, then each axis's chunk
    length and the element size as 32-bit numbers). libhdf5 1.10 reads the
    stored chunks as chunks of that shape: past the end of its buffers (a
    segmentation fault) where the shape is larger than the chunk's bytes,
    and leaving part of them unset (values that were never in the file,
    other on each run) where it is smaller. h5py reads some of these with
    such values; planfilesrc must refuse every one, saying the layout or
    the chunk index is corrupt. A length of 0, which libhdf5 refuses, was
    reported as a dataset the file does not have (or, with no dataset
    named, as a file with no datasets)."""
    if not plantest.built_with('hdf5'):
        return
    try:
        import h5py
    except ImportError:
        return
    d = plantest.tmpdir()
    dims = struct.pack('<3I', 10, 3, 4)
    for name, opts in [('raw', {}), ('gzip', dict(compression='gzip')),
                       ('shuffle-gzip', dict(compression='gzip',
                                             shuffle=True)),
                       ('lzf', dict(compression='lzf')),
                       ('fletcher32', dict(fletcher32=True)),
                       ('unlimited', dict(compression='gzip',
                                          maxshape=(None, None)))]:
        path = os.path.join(d, 'layout-%s.h5' % name)
        with h5py.File(path, 'w') as f:
            f.create_dataset('a', data=A, chunks=(10, 3), **opts)
        with open(path, 'rb') as f:
            data = f.read()
        at = data.find(dims)
        if at < 0 or data[at - 11:at - 8] != b'\x03\x02\x03':
            raise Failure('layout-%s.h5: no chunked layout message of '
                          'chunks (10, 3)' % name)
        for axis, length in [(1, 0x8003), (1, 0x10003), (1, 2), (1, 4),
                             (1, 0), (0, 9), (0, 11), (0, 0x8000a), (0, 0)]:
            bad = bytearray(data)
            struct.pack_into('<I', bad, at + 4 * axis, length)
            with open(path, 'wb') as f:
                f.write(bad)
            for extra in [['dataset=a']] + ([[]] if length == 0 else []):
                what = 'layout-%s.h5, chunk axis %d of %d%s' % (
                    name, axis, length, ', ' + extra[0] if extra else '')
                rc, out = run(path, extra)
                errors = [l for l in out.splitlines()
                          if l.startswith('ERROR')]
                if rc != 1 or len(errors) != 1 or path not in errors[0] or \
                        'corrupt' not in errors[0]:
                    raise Failure('%s: exit status %d, not one error saying '
                                  'the file is corrupt:\n%s' % (what, rc, out))


def zarr_store(d, name):
    """A v2 zlib store of A in chunks of (16, 2) by zarr, or None."""
    try:
        import numcodecs
        import zarr
    except ImportError:
        return None
    path = os.path.join(d, name)
    z = zarr.open(path, mode='w', shape=A.shape, chunks=(16, 2),
                  dtype=A.dtype, compressor=numcodecs.Zlib())
    z[:] = A
    return path


def zarr_corpus():
    if not plantest.built_with('zarr'):
        return
    d = plantest.tmpdir()
    store = zarr_store(d, 'z.zarr')
    if store is None:
        return
    meta_path = os.path.join(store, '.zarray')
    with open(meta_path) as f:
        meta = json.load(f)
    chunk_path = os.path.join(store, '1.0')
    with open(chunk_path, 'rb') as f:
        chunk = f.read()
    edits = [('shape', [100, 0]), ('shape', [-1, 3]), ('shape', [2 ** 63, 3]),
             ('chunks', [0, 2]), ('chunks', [2 ** 40, 2 ** 40]),
             ('chunks', [16]), ('dtype', [['a', '<f4']]), ('dtype', '<U4'),
             ('order', {}), ('fill_value', 1e300), ('compressor', {'id': 5}),
             ('dimension_separator', ['/']), ('zarr_format', '2')]
    for key, value in edits:
        with open(meta_path, 'w') as f:
            json.dump(dict(meta, **{key: value}), f)
        check(store, 'zarr', 'z.zarr, %s %r' % (key, value))
    for text in ['', '[' * 100000, '{"zarr_format": 2']:
        with open(meta_path, 'w') as f:
            f.write(text)
        check(store, 'zarr', 'z.zarr, .zarray %r' % text[:10])
    with open(meta_path, 'w') as f:
        json.dump(meta, f)
    for what, mutant in mutants(chunk, [0, 1, len(chunk) // 2],
                                [(0, 2), (len(chunk) // 2, 4)]):
        with open(chunk_path, 'wb') as f:
            f.write(mutant)
        check(store, 'zarr', 'z.zarr, chunk 1.0 %s' % what)
    # A chunk that is a FIFO: an error at once, not a wait for a writer.
    os.unlink(chunk_path)
    os.mkfifo(chunk_path)
    rc, out = run(store)
    if rc != 1 or 'is a FIFO (named pipe), not a regular file' not in out:
        raise Failure('FIFO chunk: %d\n%s' % (rc, out))


def zarr_symlink_loops():
    if not plantest.built_with('zarr'):
        return
    d = plantest.tmpdir()
    for i in range(8):
        os.symlink('.', os.path.join(d, 'loop%d' % i))
    rc, out = run(d)
    if rc != 1 or 'no Zarr array' not in out:
        raise Failure('symbolic link loops: %d\n%s' % (rc, out))


def crc32c(data):
    crc = 0xffffffff
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = 0x82f63b78 ^ (crc >> 1) if crc & 1 else crc >> 1
    return crc ^ 0xffffffff


def zarr_v3_crc32c():
    """A v3 array, gzip then crc32c, written here: read as written, and a
    chunk whose checksum does not match is an error."""
    if not plantest.built_with('zarr'):
        return
    d = plantest.tmpdir()
    store = os.path.join(d, 'v3.zarr')
    os.makedirs(os.path.join(store, 'c'))
    with open(os.path.join(store, 'zarr.json'), 'w') as f:
        json.dump({'zarr_format': 3, 'node_type': 'array', 'shape': [100, 3],
                   'data_type': 'float32', 'fill_value': 0.0,
                   'chunk_grid': {'name': 'regular', 'configuration':
                                  {'chunk_shape': [16, 3]}},
                   'chunk_key_encoding': {'name': 'default'},
                   'codecs': [{'name': 'bytes',
                               'configuration': {'endian': 'little'}},
                              {'name': 'gzip', 'configuration': {'level': 5}},
                              {'name': 'crc32c'}]}, f)
    odd = False
    for i in range(7):
        block = np.zeros((16, 3), np.float32)
        part = A[i * 16:(i + 1) * 16]
        block[:len(part)] = part
        c = zlib.compressobj(5, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        enc = c.compress(block.tobytes()) + c.flush()
        odd |= len(enc) % 4 != 0
        os.makedirs(os.path.join(store, 'c', str(i)))
        with open(os.path.join(store, 'c', str(i), '0'), 'wb') as f:
            f.write(enc + struct.pack('<I', crc32c(enc)))
    if not odd:
        raise Failure('no chunk of an odd size: the case is not made')
    rc, out = run(store)
    m = re.search(r'sum = (\S+)', out)
    if rc != 0 or m is None or \
            abs(float(m.group(1)) - float(A.sum(dtype=np.float64))) > 1e-2:
        raise Failure('v3 crc32c: %d\n%s' % (rc, out))
    with open(os.path.join(store, 'c', '3', '0'), 'r+b') as f:
        f.seek(5)
        f.write(b'\x00\x01')
    rc, out = run(store)
    if rc != 1 or 'fails its CRC32C checksum' not in out:
        raise Failure('corrupt v3 chunk: %d\n%s' % (rc, out))


ZARR3 = os.environ.get('PLAN_ZARR3_PYTHON') or os.path.join(
    os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'),
    'gst-plan', 'zarr3', 'bin', 'python')


def zarr_v3_two_array_to_bytes_codecs():
    """v3 metadata with two array -> bytes codecs, which the Zarr v3 spec
    forbids (exactly one): one error naming the store and both codecs, as
    zarr-python 3 refuses them (where tools/bootstrap.sh installed it)."""
    if not plantest.built_with('zarr'):
        return
    d = plantest.tmpdir()
    stores = []
    for i, codecs in enumerate((['bytes', 'bytes'], ['bytes', 'gzip', 'bytes'],
                                ['bytes', 'sharding_indexed'])):
        store = os.path.join(d, 'two%d.zarr' % i)
        os.makedirs(os.path.join(store, 'c', '0'))
        with open(os.path.join(store, 'zarr.json'), 'w') as f:
            json.dump({'zarr_format': 3, 'node_type': 'array',
                       'shape': [4, 3], 'data_type': 'float32',
                       'fill_value': 0.0,
                       'chunk_grid': {'name': 'regular', 'configuration':
                                      {'chunk_shape': [4, 3]}},
                       'chunk_key_encoding': {'name': 'default'},
                       'codecs': [dict(name=c, configuration={
                           'endian': 'little'}) if c == 'bytes' else
                                  {'name': c} for c in codecs]}, f)
        with open(os.path.join(store, 'c', '0', '0'), 'wb') as f:
            f.write(A[:4].tobytes())
        stores.append((store, codecs))
        rc, out = run(store)
        errors = [l for l in out.splitlines() if l.startswith('ERROR')]
        want = ("its codecs have two array -> bytes codecs, 'bytes' and then "
                "'%s'; Zarr v3 takes exactly one" % codecs[-1])
        if rc != 1 or len(errors) != 1 or store not in errors[0] or \
                want not in errors[0]:
            raise Failure('v3 codecs %s: exit status %d, not one error naming '
                          'the store and the codecs:\n%s' % (codecs, rc, out))
    if not os.access(ZARR3, os.X_OK):
        print('     zarr 3 is not installed: its refusal is not checked')
        return
    p = subprocess.run([ZARR3, '-c', 'import sys, zarr\n'
                        'for s in sys.argv[1:]:\n'
                        '    try:\n'
                        '        zarr.open_array(s, mode="r")[...]\n'
                        '        print("read", s)\n'
                        '    except ValueError as e:\n'
                        '        print("refused", e)\n'] +
                       [s for s, _ in stores], capture_output=True,
                       text=True, timeout=60)
    if p.returncode != 0 or p.stdout.count('refused') != len(stores):
        raise Failure('zarr 3 reads a store with two array -> bytes codecs:'
                      '\n%s%s' % (p.stdout, p.stderr))


def zarr_v3_shard_index_entries():
    """A sharded v3 array (sharding_indexed, raw inner chunks of (10, 3),
    four to a shard, the index at the end) whose shard index is mutated:
    each entry of the first shard set to offsets and lengths near 2^64,
    past the end, inside the index, of 0 bytes; the shard emptied or cut
    to less than its index. Each fails with one error naming the shard,
    but the entry (2^64-1, 2^64-1), an inner chunk never written, which
    reads as the fill value (0)."""
    if not plantest.built_with('zarr'):
        return
    d = plantest.tmpdir()
    m = 2 ** 64 - 1
    meta = {'zarr_format': 3, 'node_type': 'array', 'shape': [100, 3],
            'data_type': 'float32', 'fill_value': 0.0,
            'chunk_grid': {'name': 'regular',
                           'configuration': {'chunk_shape': [40, 3]}},
            'chunk_key_encoding': {'name': 'default'},
            'codecs': [{'name': 'sharding_indexed', 'configuration': {
                'chunk_shape': [10, 3], 'codecs': [{'name': 'bytes', 'configuration':
                                             {'endian': 'little'}}],
                'index_codecs': [{'name': 'bytes', 'configuration':
                                  {'endian': 'little'}}],
                'index_location': 'end'}}]}

    def shard(k):
        data, index = b'', b''
        for e in range(4):
            rows = A[k * 40 + e * 10:k * 40 + e * 10 + 10]
            if len(rows) == 0:
                index += struct.pack('<QQ', m, m)
                continue
            index += struct.pack('<QQ', len(data), rows.nbytes)
            data += rows.tobytes()
        return data + index

    shard0 = shard(0)
    size = len(shard0)
    cases = [(e, entry) for e in range(4) for entry in [
        (m, 0), (0, m), (2 ** 64 - 16, 16), (size, 0), (0, 0), (size - 1, 1),
        (2 ** 63, 2 ** 63), (m - 5, 10), (5, m - 5), (size - 64, 120),
        (m, m)]]
    cases += [(None, b''), (None, shard0[:63]), (None, shard0[-64:])]
    for n, (e, entry) in enumerate(cases):
        store = os.path.join(d, 's%d.zarr' % n)
        for k in range(3):
            os.makedirs(os.path.join(store, 'c', str(k)))
            data = shard(k)
            if k == 0 and e is None:
                data = entry
            elif k == 0:
                data = bytearray(data)
                at = size - 64 + 16 * e
                data[at:at + 16] = struct.pack('<QQ', *entry)
            with open(os.path.join(store, 'c', str(k), '0'), 'wb') as f:
                f.write(data)
        with open(os.path.join(store, 'zarr.json'), 'w') as f:
            json.dump(meta, f)
        what = 'v3 shard, entry %s = %r' % (e, entry if e is not None
                                            else '%d bytes' % len(entry))
        rc, out = run(store)
        bad = [l for l in out.splitlines() if re.search(
            r'CRITICAL|-WARNING \*\*|runtime error|Sanitizer', l)]
        errors = [l for l in out.splitlines() if l.startswith('ERROR')]
        if bad:
            raise Failure('%s: %s' % (what, '\n'.join(bad)))
        if entry == (m, m):
            want = A.astype(np.float64).sum() - \
                A[e * 10:e * 10 + 10].astype(np.float64).sum()
            got = re.search(r'sum = (\S+)', out)
            if rc != 0 or got is None or abs(float(got.group(1)) - want) > 1e-2:
                raise Failure('%s: not the fill value (%s):\n%s' %
                              (what, want, out))
        elif rc != 1 or len(errors) != 1 or \
                os.path.join(store, 'c', '0', '0') not in errors[0]:
            raise Failure('%s: exit status %d, not one error naming the '
                          'shard:\n%s' % (what, rc, out))


plantest.run_cases([
    ('.npy mutations', npy_corpus),
    ('.npz mutations, stored and deflated', npz_corpus),
    ('a .npz entry pointing at another member', npz_entry_pointing_at_another_member),
    ('HDF5 mutations, contiguous and gzip', h5_corpus),
    ('HDF5 chunk shapes changed in the layout', h5_layout_chunk_shape),
    ('Zarr metadata and chunk mutations', zarr_corpus),
    ('Zarr symbolic link loops', zarr_symlink_loops),
    ('Zarr v3 crc32c', zarr_v3_crc32c),
    ('Zarr v3 with two array -> bytes codecs',
     zarr_v3_two_array_to_bytes_codecs),
    ('Zarr v3 shard index entries', zarr_v3_shard_index_entries),
])
