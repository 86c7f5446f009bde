"""planfilesink writing .npz files, against numpy and zipfile as the
oracle: every dtype, 0-d and 1-D to 4-D, empty, stored (np.savez) and
deflated (np.savez_compressed), the member's name, zip64 records (from a
smaller size on through a test hook), planfilesrc reading back what was
written, and what is refused: member names np.load() cannot give back,
codecs other than deflate, a FIFO; file-mode=add adding a member to an
archive numpy wrote (or replacing one) and keeping the others as they
are."""
import io
import os
import zipfile

import numpy as np

import plantest
from plantest import Failure, expect_error, launch

RNG = np.random.default_rng(20261204)
DTYPES = plantest.DTYPES + plantest.COMPLEX_DTYPES + ['float16']
SHAPES = [(), (0,), (1,), (997,), (250, 3), (61, 2, 5), (13, 3, 1, 4),
          (0, 4, 2)]
# np.savez and np.savez_compressed
KINDS = {'stored': ([], zipfile.ZIP_STORED),
         'deflated': (['compression=6'], zipfile.ZIP_DEFLATED)}


def write(src, out, *props, env=None):
    words = ['planfilesrc', 'location=' + src, 'blocksize=4000', '!',
             'planfilesink', 'location=' + out] + list(props)
    if env is None:
        launch(*words)
        return
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        launch(*words)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def check_archive(out, name, want, compress_type, what):
    """The archive holds one member, `name`, as numpy would: np.load gives
    the array bit for bit, zipfile finds every CRC right."""
    with zipfile.ZipFile(out) as z:
        infos = z.infolist()
        if [i.filename for i in infos] != [name + '.npy']:
            raise Failure('%s: members %s, expected %s.npy' %
                          (what, [i.filename for i in infos], name))
        if infos[0].compress_type != compress_type:
            raise Failure('%s: compression %d, expected %d' %
                          (what, infos[0].compress_type, compress_type))
        bad = z.testzip()
        if bad is not None:
            raise Failure('%s: zipfile finds %s corrupt' % (what, bad))
    with np.load(out) as z:
        if list(z.keys()) != [name]:
            raise Failure('%s: np.load keys %s' % (what, list(z.keys())))
        plantest.assert_bits(z[name], want, what)


def every_dtype_and_rank():
    """Every dtype in two shapes and every shape in two dtypes, stored and
    deflated; planfilesrc reads each back."""
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.npy'), os.path.join(d, 'out.npz')
    back = os.path.join(d, 'back.npy')
    for i, dtype in enumerate(DTYPES):
        shapes = SHAPES if dtype in ('bool', 'complex128') else \
            [SHAPES[i % len(SHAPES)], SHAPES[(i + 3) % len(SHAPES)]]
        for j, shape in enumerate(shapes):
            a = plantest.random_array(dtype, shape, RNG)
            np.save(src, a)
            kind = list(KINDS)[(i + j) % 2]
            props, ctype = KINDS[kind]
            what = '%s %s %s' % (kind, dtype, shape)
            write(src, out, *props)
            check_archive(out, 'arr_0', a, ctype, what)
            launch('planfilesrc', 'location=' + out, '!', 'planfilesink',
                   'location=' + back)
            plantest.assert_bits(np.load(back), a, what + ' read back')


def stored_and_deflated_many_chunks():
    """A stream of many chunks (4 MiB), stored and deflated at the
    fastest and the smallest level; the deflated one is smaller."""
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.npy'), os.path.join(d, 'out.npz')
    a = np.repeat(RNG.integers(0, 50, size=(1 << 17, 1)), 4,
                  axis=1).astype(np.int16)
    a = np.concatenate([a, a]).reshape(-1, 4, 2)
    np.save(src, a)
    sizes = {}
    for props, ctype in (([], zipfile.ZIP_STORED),
                         (['compression=1'], zipfile.ZIP_DEFLATED),
                         (['compression=9', 'codec=gzip'],
                          zipfile.ZIP_DEFLATED)):
        write(src, out, *props)
        check_archive(out, 'arr_0', a, ctype, ' '.join(props) or 'stored')
        sizes[' '.join(props)] = os.path.getsize(out)
    if not sizes['compression=1'] < sizes[''] / 2:
        raise Failure('deflated %s, stored %s' % (sizes['compression=1'],
                                                  sizes['']))


def member_names():
    """The member is named as np.savez names it: arr_0 by default, the key
    given, '.npy' not doubled, UTF-8 names, names with a '/' between
    parts (np.savez(f, **{'obs/temps': a}) writes 'obs/temps.npy', and
    np.load(f)['obs/temps'] reads it); planfilesrc finds it by name.
    format=npz writes a .npz under any name, and .NPZ is .npz."""
    d = plantest.tmpdir()
    src = os.path.join(d, 'in.npy')
    a = plantest.random_array('float32', (300, 2), RNG)
    np.save(src, a)
    back = os.path.join(d, 'back.npy')
    for member, name, loc, extra in (
            (None, 'arr_0', 'a.NPZ', []),
            ('temps', 'temps', 'b.npz', []),
            ('temps.npy', 'temps', 'c.npz', ['compression=3']),
            ('température', 'température', 'd.npz', []),
            ('rain', 'rain', 'e.bin', ['format=npz']),
            ('obs/temps', 'obs/temps', 'f.npz', []),
            ('obs/t.npy', 'obs/t', 'g.npz', ['compression=3'])):
        out = os.path.join(d, loc)
        props = extra + (['member=' + member] if member else [])
        write(src, out, *props)
        ctype = zipfile.ZIP_DEFLATED if extra[:1] == ['compression=3'] \
            else zipfile.ZIP_STORED
        check_archive(out, name, a, ctype, 'member %s' % member)
        launch('planfilesrc', 'location=' + out, 'member=' + name, '!',
               'planfilesink', 'location=' + back)
        plantest.assert_bits(np.load(back), a, 'member %s read back' % name)
    with zipfile.ZipFile(os.path.join(d, 'd.npz')) as z:
        if not z.infolist()[0].flag_bits & 0x800:
            raise Failure('a UTF-8 name is not flagged UTF-8')


def zip64_records():
    """Sizes and offsets past the zip64 limit are written in zip64 records,
    which numpy, zipfile and planfilesrc read. A test hook lowers the limit
    from 4 GiB to 1000 bytes, so that this takes no gigabytes."""
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.npy'), os.path.join(d, 'out.npz')
    back = os.path.join(d, 'back.npy')
    a = plantest.random_array('float64', (5000, 3), RNG)
    np.save(src, a)
    for props, ctype in (([], zipfile.ZIP_STORED),
                         (['compression=2'], zipfile.ZIP_DEFLATED)):
        write(src, out, *props, env={'PLAN_TEST_ZIP64_LIMIT': '1000'})
        with open(out, 'rb') as f:
            data = f.read()
        # The zip64 end record and its locator, and the end record's
        # offset of the directory saying to look there.
        if b'PK\x06\x06' not in data or b'PK\x06\x07' not in data:
            raise Failure('%s: no zip64 end record' % props)
        if data[-6:-2] != b'\xff\xff\xff\xff':
            raise Failure('%s: the end record has the directory\'s offset'
                          % props)
        with zipfile.ZipFile(out) as z:
            info = z.infolist()[0]
            if not (a.nbytes < info.file_size <= a.nbytes + 4096
                    and info.extract_version >= 45):
                raise Failure('%s: zipfile reads %d bytes, version %d' %
                              (props, info.file_size, info.extract_version))
        check_archive(out, 'arr_0', a, ctype, 'zip64 %s' % props)
        launch('planfilesrc', 'location=' + out, '!', 'planfilesink',
               'location=' + back)
        plantest.assert_bits(np.load(back), a, 'zip64 %s read back' % props)
    # Without the hook: no zip64 end record for a small file.
    write(src, out)
    with open(out, 'rb') as f:
        if b'PK\x06\x06' in f.read():
            raise Failure('a small archive has a zip64 end record')


def refused():
    """What is refused says so and leaves the file there as it was."""
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.npy'), os.path.join(d, 'out.npz')
    np.save(src, np.arange(10.0))
    old = np.arange(3)
    np.savez(out, old=old)
    copy = ['planfilesrc', 'location=' + src, '!', 'planfilesink',
            'location=' + out]
    for props, says in (
            (['member=""'], 'the member name is empty'),
            (['member=.npy'], 'the member name is empty'),
            (['member=/a'], "the member name '/a' starts with a '/' or "
             "has a part between '/'s that is empty, '.' or '..'"),
            (['member=a//b'], "the member name 'a//b' starts with a '/'"),
            (['member=../b'], "the member name '../b' starts with a '/'"),
            (['member=' + 'x' * 65532], 'at most 65535 bytes'),
            (['compression=3', 'codec=zstd'],
             'compressed with deflate (codec auto or gzip)'),
            (['file-mode=add', 'member=a/./b'], "is empty, '.' or '..'")):
        expect_error(copy + props, "Could not write '%s'" % out, says)
        with np.load(out) as z:
            if list(z.keys()) != ['old']:
                raise Failure('%s: the old file changed' % props)
        left = [f for f in os.listdir(d) if f.startswith('.')]
        if left:
            raise Failure('%s: left %s' % (props, left))
    fifo = os.path.join(d, 'f.npz')
    os.mkfifo(fifo)
    expect_error(['planfilesrc', 'location=' + src, '!', 'planfilesink',
                  'location=' + fifo], 'must be a regular file')


def raw_members(path):
    with zipfile.ZipFile(path) as z:
        return {i.filename: (z.read(i), i.compress_type, i.CRC)
                for i in z.infolist()}


def add_mode():
    """file-mode=add adds the member to a .npz numpy wrote, or replaces
    one of the same name, and keeps the others byte for byte (stored and
    deflated) and the archive's comment, whether the offsets need zip64
    records or not; with nothing there it writes a new archive."""
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.npy'), os.path.join(d, 'w.npz')
    back = os.path.join(d, 'back.npy')
    a = plantest.random_array('int32', (700, 3), RNG)
    np.save(src, a)
    temps = plantest.random_array('float64', (500,), RNG)
    rain = plantest.random_array('bool', (20, 2), RNG)
    for limit in (None, '1000'):
        env = {'PLAN_TEST_ZIP64_LIMIT': limit} if limit else {}
        for save in (np.savez, np.savez_compressed):
            save(out, temps=temps, rain=rain)
            comment = b'' if save is np.savez else b'kept \xff' * 40
            with zipfile.ZipFile(out, 'a') as z:
                z.comment = comment
            before = raw_members(out)
            write(src, out, 'file-mode=add', 'member=wind', env=env)
            after = raw_members(out)
            if sorted(after) != ['rain.npy', 'temps.npy', 'wind.npy'] or \
                    any(after[k] != before[k] for k in before):
                raise Failure('%s add: members %s, the others changed: %s'
                              % (save.__name__, sorted(after), [
                                  k for k in before if after.get(k) !=
                                  before[k]]))
            with zipfile.ZipFile(out) as z:
                if z.testzip() is not None:
                    raise Failure('add: zipfile finds it corrupt')
                if z.comment != comment:
                    raise Failure('add: the comment %r became %r' %
                                  (comment, z.comment))
            with np.load(out) as z:
                plantest.assert_bits(z['wind'], a, 'added')
                plantest.assert_bits(z['temps'], temps, 'kept')
                plantest.assert_bits(z['rain'], rain, 'kept')
            # The same name again: replaced, deflated this time.
            write(src, out, 'file-mode=add', 'member=temps.npy',
                  'compression=4', env=env)
            after = raw_members(out)
            if sorted(after) != ['rain.npy', 'temps.npy', 'wind.npy'] or \
                    after['rain.npy'] != before['rain.npy'] or \
                    after['temps.npy'][1] != zipfile.ZIP_DEFLATED:
                raise Failure('replace: members %s' % sorted(after))
            with zipfile.ZipFile(out) as z:
                if z.comment != comment:
                    raise Failure('replace: the comment %r became %r' %
                                  (comment, z.comment))
            with np.load(out) as z:
                plantest.assert_bits(z['temps'], a, 'replaced')
                plantest.assert_bits(z['rain'], rain, 'kept')
            launch('planfilesrc', 'location=' + out, 'member=rain', '!',
                   'planfilesink', 'location=' + back)
            plantest.assert_bits(np.load(back), rain, 'kept, read back')
        if limit:
            with open(out, 'rb') as f:
                if b'PK\x06\x06' not in f.read():
                    raise Failure('no zip64 end record with the hook')
    os.unlink(out)
    write(src, out, 'file-mode=add', 'member=t')
    check_archive(out, 't', a, zipfile.ZIP_STORED, 'add to nothing')


def add_mode_refused():
    """A file there that is not a zip archive, a truncated one, or one
    whose member has a data descriptor is not added to, and is left as it
    is."""
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in.npy'), os.path.join(d, 'w.npz')
    np.save(src, np.arange(10.0))
    np.savez(out, old=np.arange(3))
    with open(out, 'rb') as f:
        whole = f.read()
    # zipfile writing to a stream it cannot seek puts a data descriptor
    # after each member.
    class Stream(io.RawIOBase):
        def __init__(self):
            self.data = bytearray()

        def writable(self):
            return True

        def write(self, b):
            self.data += b
            return len(b)
    stream = Stream()
    with zipfile.ZipFile(stream, 'w') as z:
        with z.open('old.npy', 'w') as f:
            np.lib.format.write_array(f, np.arange(3))
    for content, says in (
            (b'not a zip archive at all', 'is not a .npz file (a zip '
             'archive) to add a member to'),
            (whole[:-10], 'no end record'),
            (bytes(stream.data), "its member 'old.npy' is followed by a "
             'data descriptor')):
        with open(out, 'wb') as f:
            f.write(content)
        expect_error(['planfilesrc', 'location=' + src, '!', 'planfilesink',
                      'location=' + out, 'file-mode=add', 'member=new'],
                     "Could not add to '%s'" % out, says, 'left as it is')
        with open(out, 'rb') as f:
            if f.read() != content:
                raise Failure('%s: the file changed' % says)
        left = [f for f in os.listdir(d) if f.startswith('.')]
        if left:
            raise Failure('%s: left %s' % (says, left))


plantest.run_cases([
    ('every dtype and rank, stored and deflated', every_dtype_and_rank),
    ('many chunks, stored and deflated', stored_and_deflated_many_chunks),
    ('member names', member_names),
    ('zip64 records', zip64_records),
    ('what is refused', refused),
    ('file-mode=add adds or replaces a member', add_mode),
    ('file-mode=add refuses what it cannot add to', add_mode_refused),
])
