""".npy as a byte stream: the typefinder, npyparse after filesrc and fdsrc,
npymux before filesink and fdsink (a shell pipe, a regular file, a pipe
that cannot seek), every dtype and shape through both, their errors, and a
seek sent before npyparse has read the header, checked with numpy's
np.load, np.save and slicing."""
import io
import os
import re
import subprocess
import time

import numpy as np

import plantest
from plantest import Failure, launch

RNG = np.random.default_rng(20261201)
SHAPES = [(0,), (1,), (997,), (0, 3), (250, 3), (40, 2, 5), ()]


def gst_launch(words, stdin=None, stdout=None, expect_ok=True):
    """Runs a pipeline with stdin and stdout of our choosing, with
    plan-launch -q: gst-launch-1.0 1.22 can miss an error posted before its
    main loop runs and then never return. Returns (returncode, stderr)."""
    p = subprocess.run(plantest.launcher() + ['-q'] + words, stdin=stdin,
                       stdout=stdout, stderr=subprocess.PIPE, timeout=120)
    err = p.stderr.decode(errors='replace')
    if expect_ok and p.returncode != 0:
        raise Failure('pipeline failed (%d): %s\n%s' %
                      (p.returncode, ' '.join(words), err))
    if not expect_ok and p.returncode == 0:
        raise Failure('pipeline should have failed: %s' % ' '.join(words))
    return p.returncode, err


def typefind():
    d = plantest.tmpdir()
    path = os.path.join(d, 'a.npy')
    np.save(path, np.arange(12, dtype=np.float32).reshape(4, 3))
    out = subprocess.run(['gst-typefind-1.0', path], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=60).stdout
    if '%s - application/x-npy' % path not in out:
        raise Failure('gst-typefind-1.0 says: %r' % out)


def uridecodebin_autoplugs_npyparse():
    """The typefinder and npyparse's rank let decodebin plug it: any URI."""
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'a.npy'), os.path.join(d, 'max.npy')
    a = plantest.random_array('float64', (3000, 2), RNG)
    np.save(path, a)
    launch('uridecodebin', 'uri=file://' + path, 'caps=array/x-raw', '!',
           'planreduce', 'op=max', 'axis=0', '!', 'planfilesink',
           'location=' + out)
    plantest.assert_same(np.load(out), a.max(axis=0), 'max via uridecodebin')
    # parsebin plugs it as well (docs/npyparse.md).
    launch('filesrc', 'location=' + path, '!', 'parsebin', '!', 'planreduce',
           'op=max', 'axis=0', '!', 'planfilesink', 'location=' + out)
    plantest.assert_same(np.load(out), a.max(axis=0), 'max via parsebin')


def every_dtype_and_shape_through_parse_and_mux():
    """filesrc ! npyparse ! npymux ! filesink gives back numpy's file."""
    d = plantest.tmpdir()
    src, dst = os.path.join(d, 'in.npy'), os.path.join(d, 'out.npy')
    for dtype in plantest.DTYPES + plantest.COMPLEX_DTYPES + ["float16"]:
        for shape in SHAPES:
            a = plantest.random_array(dtype, shape, RNG)
            np.save(src, a)
            # Small upstream blocks and chunks: rows straddle buffers.
            launch('filesrc', 'location=' + src, 'blocksize=333', '!',
                   'npyparse', 'blocksize=1000', '!', 'npymux', '!',
                   'filesink', 'location=' + dst)
            plantest.assert_same(np.load(dst), a, '%s %s' % (dtype, shape))


def parse_into_planreduce():
    """The issue's line: filesrc ! npyparse ! planreduce op=sum ! fakesink,
    and the same sum written by planfilesink."""
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'a.npy'), os.path.join(d, 'sum.npy')
    a = RNG.integers(-1000, 1000, size=(5000, 4), dtype=np.int64)
    np.save(path, a)
    _, text = launch('filesrc', 'location=' + path, '!', 'npyparse', '!',
                     'planreduce', 'op=sum', '!', 'fakesink', messages=True)
    m = re.search(r'value=\(gint64\)(-?\d+)', text)
    if not m or int(m.group(1)) != int(a.sum()):
        raise Failure('planreduce after npyparse: %r, numpy %d' %
                      (text, a.sum()))
    launch('filesrc', 'location=' + path, '!', 'npyparse', 'blocksize=4000',
           '!', 'planreduce', 'op=sum', 'axis=0', '!', 'planfilesink',
           'location=' + out)
    plantest.assert_same(np.load(out), a.sum(axis=0), 'sum axis=0')


MAP_WORDS = ['fdsrc', 'fd=0', '!', 'npyparse', '!', 'planmap', 'expr=x*2',
             '!', 'npymux', '!', 'fdsink', 'fd=1']


def shell_pipe():
    """cat a.npy | gst-launch-1.0 -q fdsrc fd=0 ! npyparse ! planmap ! npymux
    ! fdsink fd=1 | (a pipe), through a real shell."""
    d = plantest.tmpdir()
    path = os.path.join(d, 'a.npy')
    a = plantest.random_array('float32', (30000, 3), RNG)
    np.save(path, a)
    cmd = 'cat %s | gst-launch-1.0 -q %s | cat' % (path, ' '.join(
        "'%s'" % w for w in MAP_WORDS))
    p = subprocess.run(['sh', '-c', cmd], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    if p.returncode != 0 or p.stderr:
        raise Failure('shell pipe: %d %s' % (p.returncode, p.stderr))
    plantest.assert_same(np.load(io.BytesIO(p.stdout)), a * 2, 'x*2 in a pipe')


def fdsink_to_a_regular_file():
    d = plantest.tmpdir()
    path, out = os.path.join(d, 'a.npy'), os.path.join(d, 'b.npy')
    a = plantest.random_array('int32', (1001, 2, 2), RNG)
    np.save(path, a)
    with open(path, 'rb') as fin, open(out, 'wb') as fout:
        gst_launch(MAP_WORDS, stdin=fin, stdout=fout)
    plantest.assert_same(np.load(out), a * 2, 'x*2 to a file')


RAW_CAPS = 'array/x-raw,dtype=(string)float64,shape=(int)<-1,3>'


def unknown_length_into_seekable_sinks():
    """Caps with shape <-1, 3>: the header is rewritten at EOS, through
    filesink and through fdsink on a regular file."""
    d = plantest.tmpdir()
    raw, out = os.path.join(d, 'a.f64'), os.path.join(d, 'b.npy')
    a = plantest.random_array('float64', (777, 3), RNG)
    a.tofile(raw)
    words = ['filesrc', 'location=' + raw, 'blocksize=%d' % (24 * 50), '!',
             RAW_CAPS, '!', 'npymux', '!']
    launch(*(words + ['filesink', 'location=' + out]))
    plantest.assert_same(np.load(out), a, 'unknown length, filesink')
    os.unlink(out)
    with open(out, 'wb') as fout:
        gst_launch(words + ['fdsink', 'fd=1'], stdout=fout)
    plantest.assert_same(np.load(out), a, 'unknown length, fdsink on a file')


def unknown_length_into_a_pipe_fails():
    d = plantest.tmpdir()
    raw = os.path.join(d, 'a.f64')
    np.zeros((10, 3)).tofile(raw)
    _, err = gst_launch(['filesrc', 'location=' + raw, '!', RAW_CAPS, '!',
                         'npymux', '!', 'fdsink', 'fd=1'],
                        stdout=subprocess.PIPE, expect_ok=False)
    if 'the number of rows is not known' not in err:
        raise Failure('no clear error: %s' % err)


def expect_parse_error(data, needle):
    d = plantest.tmpdir()
    path = os.path.join(d, 'bad.npy')
    with open(path, 'wb') as f:
        f.write(data)
    with open(path, 'rb') as fin:
        _, err = gst_launch(['fdsrc', 'fd=0', '!', 'npyparse', '!',
                             'fakesink'], stdin=fin, expect_ok=False)
    if needle not in err:
        raise Failure('expected %r in: %s' % (needle, err))


def npy_bytes(a):
    f = io.BytesIO()
    np.save(f, a)
    return f.getvalue()


def truncated_stream_fails():
    data = npy_bytes(np.arange(100, dtype=np.int16))
    expect_parse_error(data[:-7], 'The .npy stream is truncated: its header '
                       'says 100 rows of 2 bytes, but it ended after 96 rows')
    expect_parse_error(data[:50], 'truncated .npy header')


def unsupported_files_fail():
    # (big-endian streams are read: test_npy_layouts.py)
    expect_parse_error(npy_bytes(np.asfortranarray(np.ones((3, 2)))),
                       'read the file with planfilesrc')
    expect_parse_error(npy_bytes(np.zeros(2, dtype='clongdouble')),
                       "dtype '<c32' is not supported")
    expect_parse_error(b'not a .npy file at all', 'not a .npy file')
    expect_parse_error(b'', 'empty')


def bytes_after_the_array_fail():
    """Two .npy files one after another (what multifilesrc over f%d.npy or
    cat f0.npy f1.npy gives npyparse), and junk after an array: an error
    naming what follows the first array, exit non-zero, and no result of
    the first array alone passed off as the stream's."""
    a, b = np.arange(6, dtype=np.int64), np.arange(6, 12, dtype=np.int64)
    d = plantest.tmpdir()
    path = os.path.join(d, 'two.npy')
    with open(path, 'wb') as f:
        f.write(npy_bytes(a) + npy_bytes(b))
    for words in (['filesrc', 'location=' + path],
                  ['filesrc', 'location=' + path, 'blocksize=7']):
        p = subprocess.run(plantest.launcher() + words + [
            '!', 'npyparse', '!', 'planreduce', 'op=sum', '!', 'fakesink'],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120,
            text=True)
        if p.returncode == 0 or 'sum = ' in p.stdout:
            raise Failure('a result of the first array alone: %s' % p.stdout)
        if ('holds another array after the data of the first, at byte 176: '
                'int64 (6,) after int64 (6,)') not in p.stdout:
            raise Failure('no clear error: %s' % p.stdout)
    expect_parse_error(npy_bytes(a) + b'junk', 'goes on after its array\'s '
                       'data, from byte 176, with bytes that are not another '
                       '.npy array')


def seek_before_the_header():
    """A seek sent in PAUSED before npyparse has read the header (filesrc
    held back by a blocking probe) is kept, and made once the header has
    been read, as wavparse keeps one: the rows that come out are numpy's
    slice, in rows, in bytes of array data and in time."""
    Gst = plantest.gst()
    d = plantest.tmpdir()
    path = os.path.join(d, 'a.npy')
    a = plantest.random_array('float64', (5000, 3), RNG)
    np.save(path, a)
    row = a[0].nbytes
    flags = Gst.SeekFlags.FLUSH | Gst.SeekFlags.ACCURATE
    cases = [
        ('', Gst.Format.DEFAULT, flags, 1234, 4321, a[1234:4321]),
        ('', Gst.Format.DEFAULT, flags, 4990, -1, a[4990:]),
        ('', Gst.Format.BYTES, Gst.SeekFlags.FLUSH, 100 * row + 5, 200 * row,
         a[100:200]),
        ('', Gst.Format.DEFAULT, Gst.SeekFlags.NONE, 7, 9, a[7:9]),
        ('rate=1000/1', Gst.Format.TIME, flags,
         2 * Gst.SECOND + 500 * Gst.USECOND, 3 * Gst.SECOND, a[2000:3000]),
    ]
    for props, fmt, fl, start, stop, want in cases:
        what = '%s %s %s %d-%d' % (props, fmt.value_nick, int(fl), start,
                                   stop)
        pipe = Gst.parse_launch(
            'filesrc name=src location=%s blocksize=1000 ! npyparse '
            'blocksize=4096 %s ! appsink name=sink sync=false' % (path, props))
        pad = pipe.get_by_name('src').get_static_pad('src')
        probe = pad.add_probe(Gst.PadProbeType.BLOCK_DOWNSTREAM,
                              lambda p, i: Gst.PadProbeReturn.OK)
        try:
            if pipe.set_state(Gst.State.PAUSED) != \
                    Gst.StateChangeReturn.ASYNC:
                raise Failure('%s: PAUSED without waiting for filesrc' % what)
            if not pipe.seek(1.0, fmt, fl, Gst.SeekType.SET, start,
                             Gst.SeekType.SET if stop >= 0 else
                             Gst.SeekType.NONE, stop):
                raise Failure('%s: the seek before the header was refused'
                              % what)
            pad.remove_probe(probe)
            if pipe.get_state(10 * Gst.SECOND)[0] != \
                    Gst.StateChangeReturn.SUCCESS:
                raise Failure('%s: no preroll' % what)
            pipe.set_state(Gst.State.PLAYING)
            sink = pipe.get_by_name('sink')
            chunks = []
            while True:
                sample = sink.emit('try-pull-sample', 10 * Gst.SECOND)
                if sample is None:
                    break
                buf = sample.get_buffer()
                chunks.append(buf.extract_dup(0, buf.get_size()))
            err = pipe.get_bus().pop_filtered(Gst.MessageType.ERROR)
            if err is not None:
                raise Failure('%s: %s' % (what, err.parse_error()[0].message))
            if not sink.get_property('eos'):
                raise Failure('%s: no EOS within 10 s' % what)
        finally:
            pipe.set_state(Gst.State.NULL)
        got = np.frombuffer(b''.join(chunks), a.dtype).reshape(-1, 3)
        plantest.assert_same(got, want, what)


def seek_to_no_rows():
    """A row seek to a range of no rows (rows 2 to 2: no bytes upstream,
    whose filesrc then sends no segment before its EOS) through npyparse:
    the seek's segment comes before the EOS, so what follows gives numpy's
    result over a[2:2], where planmap and planreduce took the stream for
    the whole array cut short. A seek to no row of a 0-d array is refused,
    and the value comes whole."""
    Gst = plantest.gst()
    d = plantest.tmpdir()
    rows, zero_d = os.path.join(d, 'a.npy'), os.path.join(d, 'z.npy')
    out = os.path.join(d, 'out.npy')
    a = plantest.random_array('float64', (5, 3), RNG)
    np.save(rows, a)
    np.save(zero_d, np.array(2.5))
    cases = [(rows, '', 2, 2, True, a[2:2]),
             (rows, '! planmap expr="x * 2"', 2, 2, True, a[2:2] * 2),
             (rows, '! planreduce op=sum', 2, 2, True, np.asarray(a[2:2].sum())),
             (zero_d, '', 0, 0, False, np.array(2.5)),
             (zero_d, '', 1, -1, False, np.array(2.5))]
    for src, element, start, stop, made, want in cases:
        what = '%s %s rows %d to %d' % (os.path.basename(src), element,
                                        start, stop)
        if os.path.exists(out):
            os.unlink(out)
        pipe = Gst.parse_launch('filesrc location=%s ! npyparse name=parse '
                                '%s ! planfilesink location=%s' %
                                (src, element, out))
        pipe.set_state(Gst.State.PAUSED)
        pipe.get_state(10 * Gst.SECOND)
        # planfilesink does not preroll: the header read (a seek before
        # it is kept, and made or refused once it is read).
        pad = pipe.get_by_name('parse').get_static_pad('src')
        for _ in range(1000):
            if pad.has_current_caps():
                break
            time.sleep(0.01)
        ok = pipe.seek(1.0, Gst.Format.DEFAULT, Gst.SeekFlags.FLUSH,
                       Gst.SeekType.SET, start, Gst.SeekType.SET, stop)
        pipe.set_state(Gst.State.PLAYING)
        msg = pipe.get_bus().timed_pop_filtered(
            10 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
        pipe.set_state(Gst.State.NULL)
        if ok != made:
            raise Failure('%s: the seek was %s' % (
                what, 'refused' if made else 'made'))
        if msg is None or msg.type != Gst.MessageType.EOS:
            raise Failure('%s: no EOS: %s' % (
                what, msg and msg.parse_error()[0].message))
        plantest.assert_same(np.load(out), want, what)


def caps_refused_downstream_fail_clearly():
    """A caps filter that does not take the stream's array: npyparse says
    what the stream holds and what the filter takes, where filesrc's
    "Internal data stream error" (not-negotiated) said neither; caps that
    match still pass."""
    d = plantest.tmpdir()
    path = os.path.join(d, 'a.npy')
    np.save(path, np.arange(12, dtype=np.float32).reshape(4, 3))
    _, out = launch('filesrc', 'location=' + path, '!', 'npyparse', '!',
                    'array/x-raw,dtype=int32', '!', 'fakesink',
                    expect_ok=False)
    want = ('The .npy stream holds array/x-raw, dtype=(string)float32, '
            'shape=(int)< 4, 3 >, which capsfilter0 does not accept: it '
            'takes array/x-raw, dtype=(string)int32.')
    if want not in out:
        raise Failure('refused caps:\n%s' % out)
    launch('filesrc', 'location=' + path, '!', 'npyparse', '!',
           'array/x-raw,dtype=float32,shape=<4,3>', '!', 'queue', '!',
           'fakesink')
    # A caps filter asking for a rate accepts rows without one and wrote
    # its rate into the caps it passed on, over buffers without times:
    # refused, saying that the rows have no rate. With npyparse's rate set
    # to the one asked, the rows pass (timed) into planfilesink as numpy
    # reads them.
    _, out = launch('filesrc', 'location=' + path, '!', 'npyparse', '!',
                    'array/x-raw,rate=100/1', '!', 'fakesink',
                    expect_ok=False)
    want = ('The .npy stream holds array/x-raw, dtype=(string)float32, '
            'shape=(int)< 4, 3 >, rows without a rate, which capsfilter0 '
            'does not accept: it takes array/x-raw, rate=(fraction)100/1.')
    if want not in out:
        raise Failure('a rate asked for rows without one:\n%s' % out)
    dst = os.path.join(d, 'out.npy')
    launch('filesrc', 'location=' + path, '!', 'npyparse', 'rate=100/1',
           '!', 'array/x-raw,rate=100/1', '!', 'planfilesink',
           'location=' + dst)
    plantest.assert_same(np.load(dst), np.load(path), 'rows with the rate '
                         'asked for')


def main():
    plantest.run_cases([
        ('caps refused downstream fail clearly',
         caps_refused_downstream_fail_clearly),
        ('gst-typefind-1.0 reports application/x-npy', typefind),
        ('uridecodebin plugs npyparse', uridecodebin_autoplugs_npyparse),
        ('every dtype and shape through npyparse and npymux',
         every_dtype_and_shape_through_parse_and_mux),
        ('filesrc ! npyparse ! planreduce', parse_into_planreduce),
        ('cat | fdsrc ! npyparse ! planmap ! npymux ! fdsink | cat',
         shell_pipe),
        ('fdsink onto a regular file', fdsink_to_a_regular_file),
        ('unknown length: header rewritten by seeking',
         unknown_length_into_seekable_sinks),
        ('unknown length into a pipe fails clearly',
         unknown_length_into_a_pipe_fails),
        ('truncated streams fail', truncated_stream_fails),
        ('unsupported .npy files fail', unsupported_files_fail),
        ('bytes after the array fail', bytes_after_the_array_fail),
        ('a seek before the header is made after it', seek_before_the_header),
        ('a seek to no rows through npyparse', seek_to_no_rows),
    ])


if __name__ == '__main__':
    main()
