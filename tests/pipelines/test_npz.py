"""planfilesrc reading one array of a .npz file (numpy's savez and
savez_compressed) against np.load: every dtype, 1-D to 4-D, stored and
deflated, shards, seeks back into a deflated member; deflated members in
Fortran order, inflated once (not once a chunk) into a temporary file; the
errors of a wrong member name, a corrupt or truncated archive, and a
temporary file that cannot be made; and the raw-file heuristic
never taking a zip, HDF5 or compressed file for raw data."""
import gzip
import io
import os
import re
import resource
import signal
import subprocess
import warnings
import zipfile
import zlib

import numpy as np

import plantest
from plantest import Failure, expect_error, launch

RNG = np.random.default_rng(20261202)
BLOCKSIZE = 1000
SAVERS = {'stored': np.savez, 'deflated': np.savez_compressed}


def read_member(path, out, *props):
    launch('planfilesrc', 'location=' + path, 'blocksize=%d' % BLOCKSIZE,
           *props, '!', 'planfilesink', 'location=' + out)
    return np.load(out)


SHAPES = [(0,), (1,), (997,), (250, 3), (61, 2, 5), (13, 3, 1, 4)]


def every_dtype_and_rank():
    """Every dtype in two shapes, every shape in two dtypes, in one archive
    per dtype (members after the first start deep in the file)."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    for kind, save in SAVERS.items():
        for i, dtype in enumerate(plantest.DTYPES):
            shapes = SHAPES if dtype in ('bool', 'float64') else \
                [SHAPES[i % len(SHAPES)], SHAPES[(i + 3) % len(SHAPES)]]
            arrays = {'a%d_%d' % (len(s), s[0]):
                      plantest.random_array(dtype, s, RNG) for s in shapes}
            path = os.path.join(d, '%s-%s.npz' % (kind, dtype))
            save(path, **arrays)
            with np.load(path) as z:
                for name in arrays:
                    got = read_member(path, out, 'member=' + name)
                    plantest.assert_same(got, z[name], '%s %s %s' %
                                         (kind, dtype, name))


def only_member_is_the_default():
    d = plantest.tmpdir()
    a = plantest.random_array('float32', (5000, 3), RNG)
    for kind, save in SAVERS.items():
        path = os.path.join(d, kind + '.npz')
        save(path, a)
        got = read_member(path, os.path.join(d, 'out.npy'))
        plantest.assert_same(got, a, kind + ' only member')
        # The archive's own name of it works too.
        got = read_member(path, os.path.join(d, 'out.npy'),
                          'member=arr_0.npy')
        plantest.assert_same(got, a, kind + ' arr_0.npy')


def shards_and_io_modes():
    d = plantest.tmpdir()
    a = plantest.random_array('int32', (4099, 7), RNG)
    for kind, save in SAVERS.items():
        path = os.path.join(d, kind + '.npz')
        save(path, x=a, y=a[:10])
        for mode in ['auto', 'read']:
            for offset, length in [(0, -1), (1000, 17), (4000, -1),
                                   (4098, 1), (10, 0)]:
                got = read_member(path, os.path.join(d, 'out.npy'),
                                  'member=x', 'io-mode=' + mode,
                                  'offset=%d' % offset, 'length=%d' % length)
                want = a[offset:] if length < 0 else a[offset:offset + length]
                plantest.assert_same(got, want, '%s %s rows %d+%d' %
                                     (kind, mode, offset, length))


def data_offset(path, name):
    """Where the array data of a stored member starts in the file."""
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(name)
        with z.open(info) as f:
            np.lib.format.read_magic(f)
            np.lib.format.read_array_header_1_0(f)
            header = f.tell()
    with open(path, 'rb') as f:
        f.seek(info.header_offset + 26)
        n, m = np.frombuffer(f.read(4), '<u2')
    return info.header_offset + 30 + int(n) + int(m) + header


def stored_members_map_when_aligned():
    """A stored member whose data starts at a multiple of its element size
    is mapped; one that does not is read (auto), or refused (mmap), since
    mapped chunks would hold misaligned elements."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    seen = set()
    for pad in range(8):
        path = os.path.join(d, 'p%d.npz' % pad)
        a = plantest.random_array('float64', (100, 3), RNG)
        np.savez(path, **{'x' * (pad + 1): a})
        name = 'x' * (pad + 1)
        aligned = data_offset(path, name + '.npy') % 8 == 0
        seen.add(aligned)
        plantest.assert_same(read_member(path, out, 'io-mode=auto'), a,
                             'auto, pad %d' % pad)
        if aligned:
            plantest.assert_same(read_member(path, out, 'io-mode=mmap'), a,
                                 'mmap, pad %d' % pad)
        else:
            expect_error(['planfilesrc', 'location=' + path, 'io-mode=mmap',
                          '!', 'planfilesink', 'location=' + out],
                         'misaligned elements; read it instead')
    if seen != {True, False}:
        raise Failure('names of 1 to 8 bytes did not give both alignments')


def wrap_stencil_reads_back():
    """planstencil boundary=wrap asks the source for the rows at the other
    end (the plan-read-rows query): a deflated member is inflated again
    from its start for them."""
    d = plantest.tmpdir()
    a = RNG.standard_normal((3001, 5))
    for kind, save in SAVERS.items():
        path = os.path.join(d, kind + '.npz')
        save(path, grid=a)
        out = os.path.join(d, 'out.npy')
        launch('planfilesrc', 'location=' + path, 'member=grid',
               'blocksize=%d' % (a.itemsize * 5 * 100), '!',
               'planstencil', 'window=n; c; s', 'expr=n + s - 2*c',
               'boundary=wrap', '!', 'planfilesink', 'location=' + out)
        p = np.pad(a, ((1, 1), (0, 0)), mode='wrap')
        plantest.assert_same(np.load(out), p[:-2] + p[2:] - 2 * p[1:-1],
                             kind + ' wrap')


def zip64_records_read():
    """Members past 4 GiB, or archives with many of them, have their sizes
    and offsets in zip64 records; zipfile writes them for small archives
    too when its limits are lowered."""
    d = plantest.tmpdir()
    a = plantest.random_array('uint16', (3000, 2), RNG)
    path = os.path.join(d, 'z64.npz')
    limit, count = zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT
    zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = 100, 1
    try:
        np.savez_compressed(path, first=a[:5], second=a)
    finally:
        zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = limit, count
    with open(path, 'rb') as f:
        if b'PK\x06\x06' not in f.read():
            raise Failure('zipfile wrote no zip64 end record')
    got = read_member(path, os.path.join(d, 'out.npy'), 'member=second')
    plantest.assert_same(got, a, 'zip64')


def wrong_member_lists_the_names():
    d = plantest.tmpdir()
    path = os.path.join(d, 'two.npz')
    np.savez(path, temps=np.zeros(3), rain=np.ones(2))
    out = os.path.join(d, 'out.npy')
    expect_error(['planfilesrc', 'location=' + path, 'member=wind', '!',
                  'planfilesink', 'location=' + out],
                 "no array named 'wind'", "'temps' and 'rain'")
    expect_error(['planfilesrc', 'location=' + path, '!',
                  'planfilesink', 'location=' + out],
                 "holds 2 arrays, 'temps' and 'rain'")
    empty = os.path.join(d, 'empty.npz')
    np.savez(empty)
    expect_error(['planfilesrc', 'location=' + empty, '!',
                  'planfilesink', 'location=' + out], 'no arrays in it')
    if os.path.exists(out):
        raise Failure('an output was written')


def names_given_twice_as_np_load():
    """Of two members of one name, the last is read, and a member named
    exactly so comes before one with '.npy' added, as np.load() picks
    them (the first was read)."""
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'twice.npz'), os.path.join(d, 'out.npy')
    arrays = [np.arange(3.0), np.arange(5, dtype='int16'),
              np.ones((2, 2), 'uint8')]
    npys = []
    for a in arrays:
        f = io.BytesIO()
        np.lib.format.write_array(f, a)
        npys.append(f.getvalue())
    with zipfile.ZipFile(path, 'w') as z:
        z.writestr('a.npy', npys[0])
        z.writestr('b', npys[2])
        z.writestr('b.npy', npys[0])
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # zipfile: "Duplicate name"
            z.writestr('a.npy', npys[1])
    with np.load(path) as z:
        want = {'a': z['a'], 'b': z['b']}
    for member in ('a', 'a.npy', 'b'):
        plantest.assert_bits(read_member(path, out, 'member=' + member),
                             want[member[0]], 'member=' + member)


def corrupt_member_fails():
    d = plantest.tmpdir()
    a = RNG.standard_normal((20000, 4))
    path = os.path.join(d, 'c.npz')
    np.savez_compressed(path, a=a)
    data = bytearray(open(path, 'rb').read())
    out = os.path.join(d, 'out.npy')
    # Garbage in the middle of the deflate stream.
    bad = bytearray(data)
    mid = len(bad) // 2
    bad[mid:mid + 64] = bytes(range(64))
    open(path, 'wb').write(bad)
    expect_error(['planfilesrc', 'location=' + path, '!', 'planfilesink',
                  'location=' + out], "member 'a.npy' is corrupt")
    # A directory CRC that does not match the data.
    bad = bytearray(data)
    cd = bad.rindex(b'PK\x01\x02')
    bad[cd + 16] ^= 0xff
    open(path, 'wb').write(bad)
    expect_error(['planfilesrc', 'location=' + path, '!', 'planfilesink',
                  'location=' + out], 'CRC-32 does not match')
    if os.path.exists(out):
        raise Failure('an output was written from a corrupt member')


def flip_data_byte(path, name, at):
    """Flips one bit of byte @at of member @name's array data; returns the
    member's CRC-32 as the directory has it and as its bytes now are."""
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(name)
    assert info.compress_type == zipfile.ZIP_STORED
    start = data_offset(path, name)
    data = bytearray(open(path, 'rb').read())
    local = info.header_offset
    member = local + 30 + int.from_bytes(data[local + 26:local + 28],
                                         'little') + \
        int.from_bytes(data[local + 28:local + 30], 'little')
    data[start + at] ^= 0x01
    open(path, 'wb').write(data)
    return info.CRC, zlib.crc32(data[member:member + info.file_size])


def stored_member_crc_checked():
    """A stored member with one data byte changed is refused, as np.load
    refuses it (zipfile: Bad CRC-32), mapped and read, in one chunk or many,
    with one error naming the file, the member and both CRCs, and no output
    written; the intact archive reads. A read of some of the rows cannot
    check the member, and reads them."""
    d = plantest.tmpdir()
    a = RNG.standard_normal((20000, 4))
    path = os.path.join(d, 's.npz')
    out = os.path.join(d, 'out.npy')
    # A name that puts the data at a multiple of 8 bytes, so that it maps.
    for n in range(1, 9):
        name = 'x' * n
        np.savez(path, other=np.zeros(3), **{name: a})
        if data_offset(path, name + '.npy') % 8 == 0:
            break
    else:
        raise Failure('no name of 1 to 8 bytes aligns the data')
    for mode in ['mmap', 'read']:
        for blocksize in ['blocksize=%d' % BLOCKSIZE, 'blocksize=0']:
            np.savez(path, other=np.zeros(3), **{name: a})
            got = read_member(path, out, 'member=' + name, 'io-mode=' + mode,
                              blocksize)
            plantest.assert_same(got, a, 'intact stored member')
            os.unlink(out)
            want, now = flip_data_byte(path, name + '.npy', 12345)
            try:
                with np.load(path) as z:
                    z[name]
            except zipfile.BadZipFile as e:
                if 'CRC' not in str(e):
                    raise Failure('numpy refuses it otherwise: %s' % e)
            else:
                raise Failure('numpy reads the changed member')
            expect_error(['planfilesrc', 'location=' + path,
                          'member=' + name, 'io-mode=' + mode, blocksize, '!',
                          'planfilesink', 'location=' + out],
                         "'%s'" % path, "member '%s.npy' is corrupt" % name,
                         'CRC-32 does not match',
                         '0x%08x read, 0x%08x in the directory' % (now, want))
            if os.path.exists(out):
                raise Failure('an output was written from a corrupt member')
    # The first rows, before the changed byte: read, not checked.
    got = read_member(path, out, 'member=' + name, 'length=100')
    plantest.assert_same(got, a[:100], 'the first rows of a changed member')


def stored_fortran_member_crc_checked():
    """A stored member holding a Fortran-ordered array (read run by run and
    transposed, not in the file's order) is checked too: its bytes are read
    again at the end. One changed byte is refused, as np.load refuses it,
    in one chunk or many; the intact member reads as numpy reads it."""
    d = plantest.tmpdir()
    a = np.asfortranarray(RNG.standard_normal((5000, 6)))
    path = os.path.join(d, 'f.npz')
    out = os.path.join(d, 'out.npy')
    for blocksize in ['blocksize=%d' % BLOCKSIZE, 'blocksize=0']:
        np.savez(path, f=a)
        got = read_member(path, out, blocksize)
        plantest.assert_same(got, a, 'intact Fortran-ordered member')
        os.unlink(out)
        want, now = flip_data_byte(path, 'f.npy', 7777)
        try:
            with np.load(path) as z:
                z['f']
        except zipfile.BadZipFile as e:
            if 'CRC' not in str(e):
                raise Failure('numpy refuses it otherwise: %s' % e)
        else:
            raise Failure('numpy reads the changed member')
        expect_error(['planfilesrc', 'location=' + path, blocksize, '!',
                      'planfilesink', 'location=' + out],
                     "member 'f.npy' is corrupt", 'CRC-32 does not match',
                     '0x%08x read, 0x%08x in the directory' % (now, want))
        if os.path.exists(out):
            raise Failure('an output was written from a corrupt member')


FORTRAN_SHAPES = [(997, 3), (250, 3, 5), (61, 2, 5, 3), (4000, 8), (7, 1)]


def deflated_fortran_members():
    """Fortran-ordered arrays deflated by np.savez_compressed, every dtype
    in a shape of 2 to 4 axes, read whole in small and automatic chunks, in
    shards, and back through planstencil boundary=wrap (rows read beside
    the worker), as np.load reads them."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    for i, dtype in enumerate(plantest.DTYPES):
        shape = FORTRAN_SHAPES[i % len(FORTRAN_SHAPES)]
        a = np.asfortranarray(plantest.random_array(dtype, shape, RNG))
        path = os.path.join(d, 'f-%s.npz' % dtype)
        np.savez_compressed(path, first=a[:3], f=a)
        with np.load(path) as z:
            want = z['f']
        for props in [['blocksize=%d' % (a.itemsize * a[0].size * 7)],
                      ['blocksize=0'], ['offset=5', 'length=17'],
                      ['offset=%d' % (len(a) - 2)]]:
            got = read_member(path, out, 'member=f', *props)
            o = int(props[0][7:]) if props[0].startswith('offset=') else 0
            n = int(props[1][7:]) if len(props) > 1 else len(a)
            plantest.assert_same(got, want[o:o + n], '%s %s %s' %
                                 (dtype, shape, ' '.join(props)))
    a = np.asfortranarray(RNG.standard_normal((3001, 5)))
    path = os.path.join(d, 'grid.npz')
    np.savez_compressed(path, grid=a)
    launch('planfilesrc', 'location=' + path,
           'blocksize=%d' % (a.itemsize * 5 * 100), '!',
           'planstencil', 'window=n; c; s', 'expr=n + s - 2*c',
           'boundary=wrap', '!', 'planfilesink', 'location=' + out)
    p = np.pad(a, ((1, 1), (0, 0)), mode='wrap')
    plantest.assert_same(np.load(out), p[:-2] + p[2:] - 2 * p[1:-1],
                         'Fortran-ordered wrap')


def matches_past_a_chunks_end():
    """A deflated member whose compressed data is all taken in while zlib
    still holds output (the rest of a long match of zeros) is read whole:
    chunks ending in the last match of np.savez_compressed's zeros, C order
    read in chunks, and Fortran order inflated into its temporary file in
    pieces of 256 KiB (the last piece inside the last match). Both were
    refused as ending early ('its compressed data ends after 4000 of its
    4232 bytes')."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    path = os.path.join(d, 'zeros.npz')
    a = np.zeros(1026, np.float32)
    np.savez_compressed(path, a=a)
    for rows in [968, 980, 1000, 1020, 1025]:
        launch('planfilesrc', 'location=' + path, 'blocksize=%d' % (rows * 4),
               '!', 'planfilesink', 'location=' + out)
        plantest.assert_same(np.load(out), a, 'zeros, chunks of %d rows' %
                             rows)
    # 128 bytes of header, then 262120 of data: the last 104 bytes of the
    # stream, past 256 KiB, are the end of the last match.
    f = np.asfortranarray(np.zeros((32765, 2), np.float32))
    np.savez_compressed(path, f=f)
    launch('planfilesrc', 'location=' + path, '!', 'planfilesink',
           'location=' + out)
    plantest.assert_same(np.load(out), f, 'Fortran-ordered zeros')


def inflated_bytes(*words, env=None):
    """Runs a pipeline with planfilereader's log on; returns the bytes it
    inflated and the member's size, as the reader logs them at close."""
    cmd = plantest.launcher() + ['-q'] + [str(w) for w in words]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120, env=dict(
                           os.environ, GST_DEBUG='planfilereader:4',
                           GST_DEBUG_NO_COLOR='1', **(env or {})))
    if p.returncode != 0:
        raise Failure('pipeline failed: %s\n%s' % (' '.join(cmd),
                                                   p.stdout[-4000:]))
    found = re.findall(r'inflated (\d+) bytes of the (\d+)-byte member',
                       p.stdout)
    if len(found) != 1:
        raise Failure('expected one count of inflated bytes, got %r:\n%s' %
                      (found, p.stdout[-4000:]))
    return int(found[0][0]), int(found[0][1])


def deflated_fortran_member_inflated_once():
    """Each chunk of a Fortran-ordered array needs bytes from all over the
    member, and deflate is read from its start: the member is inflated
    once, whatever the number of chunks (a hundred here) or shard, not
    once a chunk."""
    d = plantest.tmpdir()
    a = np.asfortranarray(RNG.standard_normal((100_000, 8)))
    path = os.path.join(d, 'f.npz')
    np.savez_compressed(path, f=a)
    out = os.path.join(d, 'out.npy')
    for props in [['blocksize=%d' % (a.nbytes // 100)], ['blocksize=0'],
                  ['offset=50000', 'blocksize=%d' % (a.nbytes // 100)]]:
        n, size = inflated_bytes('planfilesrc', 'location=' + path, *props,
                                 '!', 'planfilesink', 'location=' + out)
        # The member once, and its .npy header once more at open.
        if not size < n <= size + 4096:
            raise Failure('%s: inflated %d bytes of a %d-byte member' %
                          (' '.join(props), n, size))
        o = int(props[0][7:]) if props[0].startswith('offset=') else 0
        plantest.assert_same(np.load(out), a[o:], ' '.join(props))


def deflate_stream(data):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def handmade_npz(path, name, cdata, size, crc):
    """A zip of one deflated member with the compressed bytes, size and
    CRC-32 given, whatever they are."""
    n = name.encode()
    local = (b'PK\x03\x04' + (20).to_bytes(2, 'little') + bytes(2) +
             (8).to_bytes(2, 'little') + bytes(4) + crc.to_bytes(4, 'little') +
             len(cdata).to_bytes(4, 'little') + size.to_bytes(4, 'little') +
             len(n).to_bytes(2, 'little') + bytes(2) + n)
    central = (b'PK\x01\x02' + (20).to_bytes(2, 'little') +
               (20).to_bytes(2, 'little') + bytes(2) +
               (8).to_bytes(2, 'little') + bytes(4) +
               crc.to_bytes(4, 'little') + len(cdata).to_bytes(4, 'little') +
               size.to_bytes(4, 'little') + len(n).to_bytes(2, 'little') +
               bytes(12) + (0).to_bytes(4, 'little') + n)
    end = (b'PK\x05\x06' + bytes(4) + (1).to_bytes(2, 'little') +
           (1).to_bytes(2, 'little') + len(central).to_bytes(4, 'little') +
           (len(local) + len(cdata)).to_bytes(4, 'little') + bytes(2))
    with open(path, 'wb') as f:
        f.write(local + cdata + central + end)


def deflated_member_header_errors_name_it_once():
    """A deflated member whose .npy header does not inflate, or whose
    size leaves no room for its data, fails when the element starts with
    one error naming the file and the member once (it named them twice)."""
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'h.npz'), os.path.join(d, 'out.npy')
    f = io.BytesIO()
    np.lib.format.write_array(f, np.arange(12, dtype='<f4').reshape(4, 3))
    npy = f.getvalue()
    cdata = deflate_stream(npy)
    for what, cut, size, text in [
            ('cut', cdata[:20], len(npy), "its member 'a.npy' is corrupt: "
             'its compressed data ends'),
            ('small', cdata, 150, "its member 'a.npy' is truncated: its "
             'header says float32 (4, 3)')]:
        handmade_npz(path, 'a.npy', cut, size, zlib.crc32(npy))
        got = expect_error(['planfilesrc', 'location=' + path, '!',
                            'planfilesink', 'location=' + out],
                           "Could not read '%s': %s" % (path, text))
        if got.count(path) != 1 or got.count("'a.npy'") != 1:
            raise Failure('%s: the file or the member named more than once:'
                          '\n%s' % (what, got))


def deflated_fortran_member_errors():
    """A Fortran-ordered deflated member that is cut short, fails its
    CRC-32, or cannot be inflated into a temporary file (none can be made,
    or there is no room for it) fails with one error naming the file and
    the member, and no output; np.load refuses the first two."""
    d = plantest.tmpdir()
    a = np.asfortranarray(RNG.standard_normal((20000, 4)))
    member = io.BytesIO()
    np.save(member, a)
    data = member.getvalue()
    cdata = deflate_stream(data)
    out = os.path.join(d, 'out.npy')
    cases = {
        'cut': (cdata[:len(cdata) // 2], zlib.crc32(data),
                'its compressed data ends after'),
        'crc': (cdata, zlib.crc32(data) ^ 1, 'CRC-32 does not match'),
    }
    for what, (c, crc, text) in cases.items():
        path = os.path.join(d, what + '.npz')
        handmade_npz(path, 'f.npy', c, len(data), crc)
        try:
            with np.load(path) as z:
                z['f']
        except Exception:  # noqa: BLE001 - zipfile, zlib or EOFError
            pass
        else:
            raise Failure('numpy reads the %s member' % what)
        expect_error(['planfilesrc', 'location=' + path, 'blocksize=8000',
                      '!', 'planfilesink', 'location=' + out],
                     "'%s'" % path, "member 'f.npy' is corrupt", text)
        if os.path.exists(out):
            raise Failure('%s: an output was written' % what)
    path = os.path.join(d, 'good.npz')
    handmade_npz(path, 'f.npy', cdata, len(data), zlib.crc32(data))
    with np.load(path) as z:
        plantest.assert_same(read_member(path, out), z['f'], 'handmade')
    os.unlink(out)
    words = plantest.launcher() + ['-q', 'planfilesrc', 'location=' + path,
                                   '!', 'planfilesink', 'location=' + out]
    nowhere = os.path.join(d, 'no-such-dir')
    p = subprocess.run(words, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120,
                       env=dict(os.environ, TMPDIR=nowhere))
    for t in ["'%s'" % path, "member 'f.npy'", "temporary file in '%s'" %
              nowhere, 'No such file or directory']:
        if p.returncode == 0 or t not in p.stdout:
            raise Failure('expected %r in the error:\n%s' % (t, p.stdout))

    # No room for the member inflated: files may not grow past 64 KiB. The
    # pipeline writes no file of its own, so only the temporary file meets
    # the limit.
    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))
    words = plantest.launcher() + ['-q', 'planfilesrc', 'location=' + path,
                                   '!', 'planreduce', 'op=sum', '!',
                                   'fakesink']
    p = subprocess.run(words, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120, preexec_fn=small_files)
    for t in ["'%s'" % path, "member 'f.npy'", 'temporary file in',
              'File too large']:
        if p.returncode == 0 or t not in p.stdout:
            raise Failure('expected %r in the error:\n%s' % (t, p.stdout))


def truncated_archive_fails():
    d = plantest.tmpdir()
    path = os.path.join(d, 't.npz')
    np.savez(path, a=np.arange(1000.0))
    data = open(path, 'rb').read()
    out = os.path.join(d, 'out.npy')
    for keep in [len(data) - 10, len(data) // 2, 30]:
        open(path, 'wb').write(data[:keep])
        expect_error(['planfilesrc', 'location=' + path, '!', 'planfilesink',
                      'location=' + out], 'truncated')
    if os.path.exists(out):
        raise Failure('an output was written from a truncated archive')


def other_files_are_not_npz():
    """A file of another kind read as a .npz (format=npz) is said not to be
    one, not taken for a truncated archive: a .npy, raw data, a NetCDF
    classic file, a file shorter than a zip signature."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    cases = {
        'a.npy': None,
        'a.f32': np.arange(1000, dtype=np.float32).tobytes(),
        'a.nc': b'CDF\x01' + bytes(4092),
        'short.npz': b'PK',
    }
    for name, data in cases.items():
        path = os.path.join(d, name)
        if data is None:
            np.save(path, np.arange(12, dtype=np.float32).reshape(4, 3))
        else:
            open(path, 'wb').write(data)
        text = expect_error(['planfilesrc', 'location=' + path, 'format=npz',
                             '!', 'planfilesink', 'location=' + out],
                            "Could not read '%s': not a .npz file: it does "
                            "not start as a zip archive" % path)
        if 'end record' in text:
            raise Failure('%s: taken for a truncated archive:\n%s' %
                          (name, text))
        if os.path.exists(out):
            raise Failure('%s: an output was written' % name)


def known_formats_are_not_raw():
    """A file that starts as HDF5, gzip or another known format is refused
    even with a dtype given, unless format=raw says to read its bytes."""
    d = plantest.tmpdir()
    out = os.path.join(d, 'out.npy')
    raw = np.arange(4096, dtype=np.uint8)
    cases = {
        # Read as HDF5 (and found broken), or refused by a build without
        # HDF5; never raw.
        'h5': (b'\x89HDF\r\n\x1a\n' + bytes(4088), 'HDF5'),
        'gz': (gzip.compress(raw.tobytes()), 'gzip-compressed',
               'ask for the raw format'),
        # Read as NetCDF classic (a header of no variables); never raw.
        'nc': (b'CDF\x01' + bytes(4092), 'NetCDF classic',
               'no variables'),
    }
    for name, (data, *texts) in cases.items():
        path = os.path.join(d, 'f.' + name)
        open(path, 'wb').write(data)
        expect_error(['planfilesrc', 'location=' + path, 'dtype=uint8', '!',
                      'planfilesink', 'location=' + out], *texts)
        if os.path.exists(out):
            raise Failure('%s: an output was written' % name)
        launch('planfilesrc', 'location=' + path, 'dtype=uint8',
               'format=raw', '!', 'planfilesink', 'location=' + out)
        plantest.assert_same(np.load(out), np.frombuffer(data, np.uint8),
                             name + ' as raw')
        os.unlink(out)
    # A zip that is not a .npz (no .npy inside) is not raw data either.
    path = os.path.join(d, 'notes.zip')
    with zipfile.ZipFile(path, 'w') as z:
        z.writestr('notes.txt', 'hello')
    expect_error(['planfilesrc', 'location=' + path, 'dtype=uint8', '!',
                  'planfilesink', 'location=' + out], 'notes.txt')


def compressed_member_cannot_be_mapped():
    d = plantest.tmpdir()
    path = os.path.join(d, 'c.npz')
    np.savez_compressed(path, a=np.arange(100.0))
    expect_error(['planfilesrc', 'location=' + path, 'io-mode=mmap', '!',
                  'planfilesink', 'location=' + os.path.join(d, 'o.npy')],
                 'compressed data cannot be mapped')


plantest.run_cases([
    ('every dtype and rank, stored and deflated', every_dtype_and_rank),
    ('the only member is the default', only_member_is_the_default),
    ('shards and io modes', shards_and_io_modes),
    ('stored members map when aligned', stored_members_map_when_aligned),
    ('wrap stencil reads rows back', wrap_stencil_reads_back),
    ('zip64 records', zip64_records_read),
    ('a wrong member lists the names', wrong_member_lists_the_names),
    ('names given twice, as np.load', names_given_twice_as_np_load),
    ('a corrupt member fails', corrupt_member_fails),
    ('a stored member\'s CRC-32 is checked', stored_member_crc_checked),
    ('a stored Fortran-ordered member\'s CRC-32 is checked',
     stored_fortran_member_crc_checked),
    ('deflated Fortran-ordered members', deflated_fortran_members),
    ('matches past a chunk\'s end', matches_past_a_chunks_end),
    ('a deflated Fortran-ordered member is inflated once',
     deflated_fortran_member_inflated_once),
    ('a deflated Fortran-ordered member\'s errors',
     deflated_fortran_member_errors),
    ('a deflated member\'s header errors name it once',
     deflated_member_header_errors_name_it_once),
    ('a truncated archive fails', truncated_archive_fails),
    ('other files are not .npz files', other_files_are_not_npz),
    ('known formats are not raw data', known_formats_are_not_raw),
    ('a compressed member cannot be mapped', compressed_member_cannot_be_mapped),
])
