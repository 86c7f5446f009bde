"""planfilesrc and planfilesink against numpy: raw and .npy round trips for
every dtype, numpy's .npy versions 1.0, 2.0 and 3.0, shards, atomicity of
the sink, and a full disk."""
import io
import os
import signal
import subprocess
import time

import numpy as np

import plantest
from plantest import Failure, launch

RNG = np.random.default_rng(20261130)
# Not a multiple of any row size below, so chunks split unevenly.
BLOCKSIZE = 1000
# 0, 1, a prime, and a length that is not a multiple of the chunk rows.
LENGTHS = [0, 1, 997, 2500]
ROW_SHAPES = [(), (3,), (2, 5)]


def listing(d):
    return sorted(os.listdir(d))


def npy_round_trips():
    d = plantest.tmpdir()
    for dtype in plantest.DTYPES + plantest.COMPLEX_DTYPES + ["float16"]:
        for n in LENGTHS:
            for row in ROW_SHAPES:
                a = plantest.random_array(dtype, (n,) + row, RNG)
                src, dst = os.path.join(d, 'in.npy'), os.path.join(d, 'out.npy')
                np.save(src, a)
                launch('planfilesrc', 'location=' + src,
                       'blocksize=%d' % BLOCKSIZE, '!',
                       'planfilesink', 'location=' + dst)
                b = np.load(dst)
                plantest.assert_same(b, a, 'npy %s %s' % (dtype, a.shape))
                with open(dst, 'rb') as f:
                    f.read(8)
                    hlen = int.from_bytes(f.read(2), 'little')
                if (hlen + 10) % 64:
                    raise Failure('header of %d bytes is not aligned to 64' %
                                  (hlen + 10))
    if listing(d) != ['in.npy', 'out.npy']:
        raise Failure('files left behind: %s' % listing(d))


def raw_round_trips():
    d = plantest.tmpdir()
    for dtype in plantest.DTYPES + plantest.COMPLEX_DTYPES + ["float16"]:
        for n in LENGTHS:
            for row in ROW_SHAPES:
                a = plantest.random_array(dtype, (n,) + row, RNG)
                src, dst = os.path.join(d, 'in.raw'), os.path.join(d, 'out.raw')
                a.tofile(src)
                shape = '(-1%s)' % ''.join(', %d' % r for r in row)
                launch('planfilesrc', 'location=' + src, 'dtype=' + dtype,
                       'shape=' + shape, 'blocksize=%d' % BLOCKSIZE, '!',
                       'planfilesink', 'location=' + dst)
                b = np.fromfile(dst, dtype=dtype).reshape((-1,) + row)
                plantest.assert_same(b, a, 'raw %s %s' % (dtype, a.shape))


def raw_to_npy_keeps_shape():
    d = plantest.tmpdir()
    a = plantest.random_array('uint16', (41, 4, 3), RNG)
    src, dst = os.path.join(d, 'in.u16'), os.path.join(d, 'out.npy')
    a.tofile(src)
    launch('planfilesrc', 'location=' + src, 'dtype=uint16',
           'shape=(, 4, 3)', '!', 'planfilesink', 'location=' + dst)
    plantest.assert_same(np.load(dst), a, 'raw to npy')


def numpy_versions_read():
    d = plantest.tmpdir()
    for version in [(1, 0), (2, 0), (3, 0)]:
        a = plantest.random_array('float64', (123, 7), RNG)
        src = os.path.join(d, 'v%d.npy' % version[0])
        dst = os.path.join(d, 'out%d.npy' % version[0])
        with open(src, 'wb') as f:
            np.lib.format.write_array(f, a, version=version)
        launch('planfilesrc', 'location=' + src, '!',
               'planfilesink', 'location=' + dst)
        plantest.assert_same(np.load(dst), a, 'npy version %d.0' % version[0])


def zero_d_array():
    d = plantest.tmpdir()
    a = np.array(3.5, dtype=np.float32)
    src, dst = os.path.join(d, 'in.npy'), os.path.join(d, 'out.npy')
    np.save(src, a)
    launch('planfilesrc', 'location=' + src, '!',
           'planfilesink', 'location=' + dst)
    plantest.assert_same(np.load(dst), a, '0-d array')
    # Its one row is the whole window offset and length can select; one of
    # no rows would announce a value and send none.
    for offset, length in ((0, 1), (0, -1)):
        launch('planfilesrc', 'location=' + src, 'offset=%d' % offset,
               'length=%d' % length, '!', 'planfilesink', 'location=' + dst)
        plantest.assert_same(np.load(dst), a, '0-d array, length %d' % length)
    os.unlink(dst)
    for offset, length in ((0, 0), (1, -1), (1, 0)):
        plantest.expect_error(
            ['planfilesrc', 'location=' + src, 'offset=%d' % offset,
             'length=%d' % length, '!', 'planfilesink', 'location=' + dst],
            'planfilesrc0', 'offset %d and length %d select no row of %r'
            % (offset, length, src), 'holds a 0-d array')
        if os.path.exists(dst):
            raise Failure('a file was written for offset %d length %d'
                          % (offset, length))


def shards_concatenate():
    d = plantest.tmpdir()
    a = plantest.random_array('int32', (1009, 3), RNG)
    src = os.path.join(d, 'in.npy')
    np.save(src, a)
    for shard in [1, 100, 333, 1009, 2000]:
        parts = []
        for i, offset in enumerate(range(0, len(a), shard)):
            dst = os.path.join(d, 'part%d.npy' % i)
            launch('planfilesrc', 'location=' + src, 'offset=%d' % offset,
                   'length=%d' % shard, 'blocksize=%d' % BLOCKSIZE, '!',
                   'planfilesink', 'location=' + dst)
            part = np.load(dst)
            plantest.assert_same(part, a[offset:offset + shard],
                                 'shard %d+%d' % (offset, shard))
            parts.append(part)
            os.unlink(dst)
        plantest.assert_same(np.concatenate(parts), a, 'shards of %d' % shard)


def slow_copy(d, extra=()):
    """Starts a copy slowed down by identity, so it can be stopped
    mid-stream; returns (process, output path)."""
    a = np.arange(20000, dtype=np.float64)
    src, dst = os.path.join(d, 'in.npy'), os.path.join(d, 'out.npy')
    np.save(src, a)
    cmd = ['gst-launch-1.0', '-q', 'planfilesrc', 'location=' + src,
           'blocksize=80', '!', 'identity', 'sleep-time=2000'] + list(extra) + \
        ['!', 'planfilesink', 'location=' + dst]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    return p, dst


def writing(d, p):
    """Whether process p has the file it writes open in d: unnamed
    (O_TMPFILE: its /proc link reads '.../#inode (deleted)'), or the
    hidden temporary file of file systems without unnamed files."""
    if any(n.endswith('.part') for n in os.listdir(d)):
        return True
    fds = '/proc/%d/fd' % p.pid
    try:
        links = [os.readlink(os.path.join(fds, n)) for n in os.listdir(fds)]
    except OSError:
        return False
    return any(t.startswith(d + '/') and t.endswith(' (deleted)')
               for t in links)


def wait_for_temp_file(d, p):
    """Waits until the sink's file is being written, so that the stop
    really is mid-stream, and a little more: gst-launch-1.0 installs its
    SIGINT handler only after it has started the pipeline (until then
    SIGINT kills it outright, which with the fallback's temporary file
    leaves it behind, though still nothing at the location). The copy
    takes at least 4 s."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if writing(d, p):
            time.sleep(0.5)
            return
        if p.poll() is not None:
            raise Failure('pipeline ended early: %s' % p.stdout.read())
        time.sleep(0.01)
    raise Failure('no temporary file appeared')


def interrupted_copy_leaves_nothing():
    d = plantest.tmpdir()
    p, dst = slow_copy(d)
    wait_for_temp_file(d, p)
    # Without -e, gst-launch stops the pipeline (to NULL) on SIGINT.
    p.send_signal(signal.SIGINT)
    out = p.communicate(timeout=30)[0]
    if os.path.exists(dst):
        raise Failure('an interrupted copy left %s' % dst)
    if listing(d) != ['in.npy']:
        raise Failure('files left behind: %s (%s)' % (listing(d), out))


def interrupted_copy_keeps_existing_file():
    d = plantest.tmpdir()
    with open(os.path.join(d, 'out.npy'), 'wb') as f:
        f.write(b'precious')
    p, dst = slow_copy(d)
    wait_for_temp_file(d, p)
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=30)
    with open(dst, 'rb') as f:
        if f.read() != b'precious':
            raise Failure('an interrupted copy changed the existing file')
    if listing(d) != ['in.npy', 'out.npy']:
        raise Failure('files left behind: %s' % listing(d))


def failed_pipeline_keeps_existing_file():
    d = plantest.tmpdir()
    with open(os.path.join(d, 'out.npy'), 'wb') as f:
        f.write(b'precious')
    # identity fails the pipeline after 50 buffers.
    p, dst = slow_copy(d, ['error-after=50'])
    out = p.communicate(timeout=60)[0]
    if p.returncode == 0:
        raise Failure('the pipeline should have failed: %s' % out)
    with open(dst, 'rb') as f:
        if f.read() != b'precious':
            raise Failure('a failed copy changed the existing file')
    if listing(d) != ['in.npy', 'out.npy']:
        raise Failure('files left behind: %s' % listing(d))


def full_disk_is_reported():
    """A 1 MiB tmpfs in a private mount namespace: writing 2 MiB fails
    with 'No space left', and nothing is left on it."""
    d = plantest.tmpdir()
    mnt = os.path.join(d, 'small')
    os.mkdir(mnt)
    src = os.path.join(d, 'in.npy')
    np.save(src, np.zeros(2 << 20, dtype=np.uint8))
    script = ('mount -t tmpfs -o size=1m none "$1" || exit 77; '
              'gst-launch-1.0 planfilesrc location="$2" ! '
              'planfilesink location="$1/out.npy"; rc=$?; ls -A "$1"; exit $rc')
    try:
        p = subprocess.run(['unshare', '-m', 'sh', '-c', script, 'sh', mnt, src],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=60)
    except FileNotFoundError:
        print('skip full_disk_is_reported: no unshare')
        return
    if p.returncode == 77 or 'unshare failed' in p.stdout:
        print('skip full_disk_is_reported: cannot mount a tmpfs here')
        return
    if p.returncode == 0 or 'No space left' not in p.stdout:
        raise Failure('expected a no-space error: %s' % p.stdout)
    if 'out.npy' in p.stdout.splitlines()[-1]:
        raise Failure('files left on the full disk: %s' % p.stdout)


def fortran_flag_where_orders_agree():
    """A .npy marked fortran_order=True (as column-major writers such as
    Julia's NPZ mark every array) is read as np.load reads it, whether its
    shape lays out the same bytes in both orders or not; and a structured
    dtype's error lists every dtype that is read."""
    from numpy.lib import format as npf
    d = plantest.tmpdir()
    src, dst = os.path.join(d, 'f.npy'), os.path.join(d, 'out.npy')
    for shape in [(5, 1), (1, 5), (1, 1), (0, 3), (2, 1, 1), (4, 3)]:
        a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
        with open(src, 'wb') as f:
            header = npf.header_data_from_array_1_0(a)
            header['fortran_order'] = True
            npf.write_array_header_1_0(f, header)
            f.write(a.tobytes(order='F'))
        launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
               'location=' + dst)
        plantest.assert_same(np.load(dst), np.load(src),
                             'Fortran-flagged %s' % (shape,))
    np.save(src, np.zeros(3, dtype=[('a', '<i4'), ('b', '<f8')]))
    _, out = launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
                    'location=' + dst, expect_ok=False)
    if 'structured dtypes' not in out or 'complex64' not in out:
        raise Failure('unclear error for a structured dtype: %s' % out)


def descr_spellings_numpy_reads():
    """A .npy whose descr is not numpy's own spelling but one np.load
    reads (no byte-order mark, numpy's type characters, as other writers
    write them) is read as numpy reads it."""
    d = plantest.tmpdir()
    src, dst = os.path.join(d, 'w.npy'), os.path.join(d, 'out.npy')
    for descr, dtype in [('f8', '<f8'), ('<e', '<f2'), ('|?', '|b1'),
                         ('<i', '<i4'), ('<F', '<c8')]:
        text = "{'descr': '%s', 'fortran_order': False, 'shape': (5,), }" \
            % descr
        text += ' ' * (63 - (10 + len(text)) % 64) + '\n'
        data = np.arange(5).astype(dtype)
        with open(src, 'wb') as f:
            f.write(b'\x93NUMPY\x01\x00' + len(text).to_bytes(2, 'little')
                    + text.encode() + data.tobytes())
        launch('planfilesrc', 'location=' + src, '!', 'planfilesink',
               'location=' + dst)
        plantest.assert_same(np.load(dst), np.load(src), 'descr ' + descr)


def npy_with_header(path, text, data, version=1):
    """Writes a .npy file whose header is @text, padded as numpy pads it."""
    prefix = 10 if version == 1 else 12
    text += ' ' * ((63 - (prefix + len(text)) % 64) % 64) + '\n'
    raw = text.encode('utf8' if version == 3 else 'latin1')
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY' + bytes([version, 0])
                + len(raw).to_bytes(2 if version == 1 else 4, 'little')
                + raw + data)


def header_spellings_as_numpy_reads():
    """numpy reads a .npy header with Python's literal_eval (and drops
    Python 2's L after integers before version 3.0): every spelling it
    reads, planfilesrc reads to the same array; every one it refuses,
    planfilesrc refuses with one error naming the file and the header."""
    import warnings
    d = plantest.tmpdir()
    src, dst = os.path.join(d, 'h.npy'), os.path.join(d, 'out.npy')
    a = np.arange(10, dtype='<f4')
    reads, refuses = 0, 0
    for version, text in [
            (1, "{'descr': u'<f4', 'fortran_order': False, 'shape': (5, 2), }"),
            (1, "{u'descr': u'<f4', u'fortran_order': False, u'shape': (10L,)}"),
            (2, "{'descr': r'<f4', 'fortran_order': False, 'shape': (10 L,)}"),
            (3, "{'descr': U'<f4', 'fortran_order': False, 'shape': (10,)}"),
            (1, "{ 'descr' :\t'<f4' ,\n 'fortran_order' : False ,\r\n"
                "  'shape' : ( 5 , 2 , ) , }"),
            (1, "{'shape': (10,), 'fortran_order': False, 'descr': '<f4'}"),
            (1, "{'descr': '<f4', 'fortran_order': False, 'shape': (10,)}"),
            (2, "{'descr': '<f4', 'fortran_order': False, 'shape': (10,), }"),
            (3, "{'descr': '<f4', 'fortran_order': False, 'shape': (10,), }"),
            (1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }"),
            (1, "{'descr': '\\x3cf4', 'fortran_order': False, 'shape': (10,)}"),
            (1, "{'descr': '<' 'f4', 'fortran_order': False, 'shape': (10,)}"),
            (1, "{'descr': '''<f4''', 'fortran_order': False, 'shape': (10,)}"),
            (1, "{'descr': 'float32', 'fortran_order': False, 'shape': (10,)}"),
            (1, "{'descr': 'single', 'fortran_order': False, 'shape': (10,)}"),
            (1, "{'descr': '<f4', 'fortran_order': (False), 'shape': ((5, 2))}"),
            (1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0x5, +2)}"),
            (1, "{'descr': '<f4', # a comment\n 'fortran_order': False, "
                "'shape': (1_0,)}"),
            (1, "({'descr': '<f4', 'fortran_order': False, 'shape': (10,)})"),
            (1, "{'descr': '<f4', 'fortran_order': False, 'shape': (10), }"),
            (1, "{'descr': '<f4', 'fortran_order': False, 'shape': [10], }"),
            (1, "{'descr': '<f4', 'fortran_order': False, 'shape': (010,), }"),
            (3, "{'descr': '<f4', 'fortran_order': False, 'shape': (10L,), }"),
            (1, "{'descr': '<f4', 'fortran_order': 0, 'shape': (10,), }"),
            (1, "{'descr': b'<f4', 'fortran_order': False, 'shape': (10,), }"),
            (1, "{'descr': '<f4', 'fortran_order': False, 'shape': (10.0,)}"),
            (1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1__0,)}"),
            (1, "{'descr': '<f4',, 'fortran_order': False, 'shape': (10,)}"),
            (1, "{'descr': '<f4', 'fortran_order': False, 'shape': (10,), "
                "'x': 1}"),
            (1, "{'descr': '<float32', 'fortran_order': False, 'shape': (10,)}"),
    ]:
        npy_with_header(src, text, a.tobytes(), version)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                want = np.load(src)
        except Exception:
            want = None
        rc, out = launch('planfilesrc', 'location=' + src, '!',
                         'planfilesink', 'location=' + dst,
                         expect_ok=want is not None)
        if want is not None:
            reads += 1
            plantest.assert_same(np.load(dst), want, 'header %r' % text)
            continue
        refuses += 1
        errors = [line for line in out.splitlines() if 'ERROR' in line]
        if rc == 0 or len(errors) != 1 or src not in errors[0] or not (
                'header' in errors[0] or 'dtype' in errors[0]):
            raise Failure('numpy refuses %r; planfilesrc (%d): %s' %
                          (text, rc, out))
    if reads != 19 or refuses != 11:
        raise Failure('numpy read %d headers and refused %d, not 19 and 11' %
                      (reads, refuses))
    # What numpy reads and gst-plan does not, each refused saying why.
    for text, data, why in [
            ("{'descr': [('a', '<i4'), ('b', '<f8')], 'fortran_order': False, "
             "'shape': (2,)}", bytes(24), 'structured dtypes'),
            ("{'descr': '<f4', 'fortran_order': False, "
             "'shape': (1, 1, 1, 1, 1, 1, 1, 1, 10)}", a.tobytes(),
             'more than 8 axes'),
    ]:
        npy_with_header(src, text, data)
        np.load(src)
        _, out = launch('planfilesrc', 'location=' + src, '!',
                        'planfilesink', 'location=' + dst, expect_ok=False)
        if why not in out or src not in out:
            raise Failure('unclear error for %r: %s' % (text, out))


def gst_launch_fails(*args):
    """Runs gst-launch-1.0 itself, as a user would, expecting a failure;
    returns what it printed."""
    p = plantest.gst_launch_1_0(args, 60)
    if p.returncode == 0:
        raise Failure('should have failed: %s' % ' '.join(args))
    return p.returncode, p.stdout


def errors_name_the_file():
    d = plantest.tmpdir()
    missing = os.path.join(d, 'missing.npy')
    rc, out = gst_launch_fails('planfilesrc', 'location=' + missing, '!',
                               'fakesink')
    if missing not in out:
        raise Failure('the error does not name the file (exit %d): %s' %
                      (rc, out))
    bad = os.path.join(d, 'bad.npy')
    buf = io.BytesIO()
    np.save(buf, np.zeros((4, 4), dtype='<f4'))
    with open(bad, 'wb') as f:
        f.write(buf.getvalue()[:-10])
    _, out = gst_launch_fails('planfilesrc', 'location=' + bad, '!',
                              'fakesink')
    if bad not in out:
        raise Failure('the error for a truncated file does not name it: %s'
                      % out)


def gst_launch_errors_are_one_clear_error():
    """What gst-launch-1.0 prints for a file that cannot be read or
    written, or an expression that does not parse: one ERROR, from the
    element that failed, saying what and where; an exit code that is not
    0; no GLib warning or critical. (planfilesrc posted a second error
    after its own, GstBaseSrc's "state change failed and some element
    failed to post a proper error message", as filesrc does.)"""
    d = plantest.tmpdir()
    good = os.path.join(d, 'good.npy')
    np.save(good, np.arange(12, dtype=np.float32).reshape(4, 3))
    garbage = os.path.join(d, 'garbage.npy')
    with open(garbage, 'wb') as f:
        f.write(b'this is not an array')
    truncated = os.path.join(d, 'truncated.npy')
    with open(good, 'rb') as f:
        head = f.read(100)
    with open(truncated, 'wb') as f:
        f.write(head)
    out = os.path.join(d, 'out.npy')
    missing = os.path.join(d, 'missing.npy')
    cases = [
        ('a missing file', ['planfilesrc', 'location=' + missing],
         'planfilesrc0', [missing, 'No such file']),
        ('a directory', ['planfilesrc', 'location=' + d], 'planfilesrc0',
         [d, 'is a directory']),
        ('a malformed .npy', ['planfilesrc', 'format=npy',
                              'location=' + garbage], 'planfilesrc0',
         [garbage, 'not a .npy file']),
        ('a truncated .npy', ['planfilesrc', 'location=' + truncated],
         'planfilesrc0', [truncated, 'truncated .npy header']),
        ('a file of /proc, whose size says nothing of its contents',
         ['planfilesrc', 'format=raw', 'dtype=uint8',
          'location=/proc/self/status'], 'planfilesrc0',
         ['/proc/self/status', '/proc or /sys']),
        ('an expression that does not parse',
         ['planfilesrc', 'location=' + good, '!', 'planmap', 'expr=2*x +'],
         'planmap0', ['expr', 'column']),
        # A number outside its property's range: GLib would refuse it with
        # a warning and run with the old value.
        ('a read-ahead depth out of range',
         ['planfilesrc', 'location=' + good, 'max-chunks=0'], 'planfilesrc0',
         ['planfilesrc0', 'max-chunks=0', 'valid values are 1 to 1024']),
        ('a thread count out of range',
         ['planfilesrc', 'location=' + good, '!', 'planmap', 'expr=x',
          'n-threads=5000'], 'planmap0',
         ['planmap0', 'n-threads=5000', 'valid values are 0 to 1024']),
        ('a negative ddof',
         ['planfilesrc', 'location=' + good, '!', 'planreduce', 'op=var',
          'ddof=-1'], 'planreduce0',
         ['planreduce0', 'ddof=-1', 'valid values are 0 to 1e+18']),
        ('a write-behind depth out of range',
         ['planfilesrc', 'location=' + good, '!', 'planfilesink',
          'location=' + out, 'max-pending=0'], 'planfilesink0',
         ['planfilesink0', 'max-pending=0', 'valid values are 1 to 1024']),
    ]
    for what, words, element, needles in cases:
        if 'planfilesink' not in words:
            words = words + ['!', 'planfilesink', 'location=' + out]
        rc, text = gst_launch_fails(*words)
        errors = [line for line in text.splitlines()
                  if line.startswith('ERROR: from element')]
        if len(errors) != 1 or element not in errors[0]:
            raise Failure('%s: %d errors, not one from %s:\n%s' %
                          (what, len(errors), element, text))
        for n in needles:
            if n not in errors[0]:
                raise Failure('%s: the error does not say %r: %s' %
                              (what, n, errors[0]))
        if 'CRITICAL' in text or 'WARNING' in text:
            raise Failure('%s: a GLib warning or critical:\n%s' % (what, text))
        if os.path.exists(out):
            raise Failure('%s: %s was written' % (what, out))


plantest.run_cases([
    ('npy_round_trips', npy_round_trips),
    ('raw_round_trips', raw_round_trips),
    ('raw_to_npy_keeps_shape', raw_to_npy_keeps_shape),
    ('numpy_versions_read', numpy_versions_read),
    ('zero_d_array', zero_d_array),
    ('shards_concatenate', shards_concatenate),
    ('interrupted_copy_leaves_nothing', interrupted_copy_leaves_nothing),
    ('interrupted_copy_keeps_existing_file',
     interrupted_copy_keeps_existing_file),
    ('failed_pipeline_keeps_existing_file', failed_pipeline_keeps_existing_file),
    ('full_disk_is_reported', full_disk_is_reported),
    ('errors_name_the_file', errors_name_the_file),
    ('fortran_flag_where_orders_agree', fortran_flag_where_orders_agree),
    ('descr_spellings_numpy_reads', descr_spellings_numpy_reads),
    ('header_spellings_as_numpy_reads', header_spellings_as_numpy_reads),
    ('gst_launch_errors_are_one_clear_error',
     gst_launch_errors_are_one_clear_error),
])
