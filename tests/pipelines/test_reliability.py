#!/usr/bin/python3
"""What a user or a pipeline editor does besides running a pipeline to its
end: pipelines with nothing downstream or nothing upstream, FIFOs, seeks
and flushes through every kernel element, streams cut short, and the
messages a reduction posts. Results are compared with numpy over the rows
a seek selects; docs/reliability.md lists each behaviour with its test."""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import Failure, assert_same, gst, launch, run_cases, tmpdir  # noqa: E402

# A pipeline that hangs fails its test after this many seconds; one that
# works ends in well under a second.
HANG = 20


def expect_error(words, *needles, within=HANG):
    """Runs a pipeline that must fail at once with an error saying each of
    the needles; returns its output."""
    t = time.monotonic()
    _, out = launch(*words, expect_ok=False, timeout=within)
    for n in needles:
        if n not in out:
            raise Failure('the error does not say %r:\n%s' % (n, out))
    if time.monotonic() - t > within / 2:
        raise Failure('the error took %.1f s' % (time.monotonic() - t))
    return out


def source(rows=1000, dtype=np.float32, cols=None):
    d = tmpdir()
    shape = (rows,) if cols is None else (rows, cols)
    a = (np.arange(np.prod(shape)) % 97 - 40).astype(dtype).reshape(shape)
    path = os.path.join(d, 'in.npy')
    np.save(path, a)
    return a, path, d


# -- nothing downstream, nothing upstream ----------------------------------

def test_reduce_without_sink_fails_not_linked():
    _, src, _ = source()
    expect_error(['planfilesrc', 'location=' + src, '!', 'planreduce',
                  'op=sum'], 'planreduce0 has nothing linked downstream',
                 'not-linked')


def test_map_without_sink_fails_not_linked():
    _, src, _ = source()
    expect_error(['planfilesrc', 'location=' + src, '!', 'planmap',
                  'expr=x + 1'], 'planmap0 has nothing linked downstream')


def test_stencil_without_sink_fails_not_linked():
    _, src, _ = source()
    expect_error(['planfilesrc', 'location=' + src, '!', 'planstencil',
                  'window=x _ z', 'expr=x + z'],
                 'planstencil0 has nothing linked downstream')


def test_map_without_inputs_fails_at_start():
    d = tmpdir()
    out = os.path.join(d, 'out.npy')
    expect_error(['planmap', 'expr=1 + 2', '!', 'planfilesink',
                  'location=' + out], 'planmap0 has no inputs')
    if os.listdir(d):
        raise Failure('files left behind: %s' % os.listdir(d))


def test_reduce_without_input_fails_at_start():
    expect_error(['planreduce', 'op=sum', '!', 'fakesink'],
                 'Input sink of planreduce0 is not linked')


def test_fifo_without_writer_is_refused_at_once():
    d = tmpdir()
    fifo = os.path.join(d, 'in.npy')
    os.mkfifo(fifo)
    expect_error(['planfilesrc', 'location=' + fifo, '!', 'fakesink'],
                 'is a FIFO (named pipe), not a regular file', fifo)


# -- seeks and flushes through kernel elements -----------------------------

LAUNCH = os.path.join(os.environ.get('PLAN_BUILD_DIR', 'build'), 'tools',
                      'plan-launch')


def fifo_job(words):
    """Runs plan-launch with @words in the background; returns the Popen."""
    import subprocess
    return subprocess.Popen([LAUNCH, '-q'] + words,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def writer_thread_runs(pid):
    """Whether process @pid has PlanFileWriter's thread."""
    try:
        for t in os.listdir('/proc/%d/task' % pid):
            with open('/proc/%d/task/%s/comm' % (pid, t)) as f:
                if f.read().strip() == 'planfilewriter':
                    return True
    except OSError:
        pass
    return False


def test_fifo_output_without_reader_can_be_stopped():
    # No reader: the pipeline starts and waits for one, and a signal or the
    # timeout ends it at once (an ordinary open() of the FIFO would block
    # the state change where nothing could interrupt it).
    import signal
    import subprocess
    a, src, _ = source()
    d = tmpdir()
    fifo = os.path.join(d, 'out.f32')
    os.mkfifo(fifo)
    job = ['planfilesrc', 'location=' + src, '!', 'planfilesink',
           'location=' + fifo]
    p = subprocess.run([LAUNCH, '-q', '-t', '0.5'] + job, timeout=HANG,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if p.returncode != 3 or 'did not finish within 0.5 s' not in p.stdout \
            or 'did not stop' in p.stdout:
        raise Failure('timeout: exit %d\n%s' % (p.returncode, p.stdout))
    p = fifo_job(job)
    try:
        # Once the writer's thread waits for a reader, plan-launch handles
        # signals (a SIGTERM before would end it by the default action).
        deadline = time.monotonic() + HANG
        while not writer_thread_runs(p.pid):
            if p.poll() is not None or time.monotonic() > deadline:
                raise Failure('planfilesink did not start')
            time.sleep(0.05)
        time.sleep(0.2)
        p.send_signal(signal.SIGTERM)
        out, _ = p.communicate(timeout=HANG)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    if p.returncode != 143 or 'did not stop' in out:
        raise Failure('SIGTERM: exit %d\n%s' % (p.returncode, out))
    if sorted(os.listdir(d)) != ['out.f32']:
        raise Failure('left behind: %s' % os.listdir(d))


def read_fifo_later(fifo, delay):
    """Opens @fifo for reading after @delay s on a thread; returns a
    function that gives what was read."""
    import threading
    got = []

    def reader():
        time.sleep(delay)
        with open(fifo, 'rb') as f:
            got.append(f.read())
    t = threading.Thread(target=reader)
    t.start()

    def result():
        t.join(HANG)
        return got[0] if got else None
    return result


def test_fifo_output_is_a_stream():
    # A reader that comes later gets the whole array, raw or .npy (whose
    # header, written first, says the rows the caps announce).
    import io
    a, src, _ = source(rows=20000)
    d = tmpdir()
    for name in ('out.f32', 'out.npy'):
        fifo = os.path.join(d, name)
        os.mkfifo(fifo)
        result = read_fifo_later(fifo, 0.3)
        launch('planfilesrc', 'location=' + src, 'blocksize=4000', '!',
               'planmap', 'expr=x + 1', '!', 'planfilesink',
               'location=' + fifo, timeout=HANG)
        data = result()
        got = np.load(io.BytesIO(data)) if name.endswith('.npy') else \
            np.frombuffer(data, np.float32)
        assert_same(got, a + 1, 'through the FIFO ' + name)


def run_seek(element, a, state, fmt, start, stop, chunk_rows=100):
    """planfilesrc ! element ! planfilesink over a, with a flushing seek
    from start to stop (in fmt: 'rows', 'bytes' or 'time') sent to the
    pipeline in PAUSED, or in PLAYING while rows have already been written
    (the source held after its first chunk). Returns (what the seek
    returned, the output file's array)."""
    import threading
    Gst = gst()
    d = tmpdir()
    src, dst = os.path.join(d, 'in.npy'), os.path.join(d, 'out.npy')
    np.save(src, a)
    p = Gst.parse_launch(
        'planfilesrc name=src blocksize=%d location=%s ! %s ! '
        'planfilesink name=sink location=%s' %
        (chunk_rows * a[0].nbytes, src, element, dst))
    arrived, held = threading.Event(), threading.Event()

    def seen(pad, info):
        arrived.set()
        return Gst.PadProbeReturn.OK
    p.get_by_name('sink').get_static_pad('sink').add_probe(
        Gst.PadProbeType.BUFFER, seen)
    srcpad = p.get_by_name('src').get_static_pad('src')
    count = [0]

    def hold(pad, info):
        count[0] += 1
        if count[0] < 2:
            return Gst.PadProbeReturn.PASS
        held.set()
        return Gst.PadProbeReturn.OK
    probe = None
    if state == 'playing':
        probe = srcpad.add_probe(Gst.PadProbeType.BLOCK |
                                 Gst.PadProbeType.BUFFER, hold)
        p.set_state(Gst.State.PLAYING)
        if not held.wait(HANG):
            raise Failure('the source did not reach its second chunk')
    else:
        p.set_state(Gst.State.PAUSED)
    # Output has reached the sink (prerolled in PAUSED, written in
    # PLAYING) before the seek, unless the element produces only at EOS.
    if 'planreduce' not in element or 'axis=-1' in element:
        if not arrived.wait(HANG):
            raise Failure('no output reached the sink before the seek')
    f = {'rows': Gst.Format.DEFAULT, 'bytes': Gst.Format.BYTES,
         'time': Gst.Format.TIME}[fmt]
    ok = p.seek(1.0, f, Gst.SeekFlags.FLUSH, Gst.SeekType.SET, start,
                Gst.SeekType.SET, stop)
    if probe is not None:
        srcpad.remove_probe(probe)
    p.set_state(Gst.State.PLAYING)
    msg = p.get_bus().timed_pop_filtered(
        HANG * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    if msg is None:
        raise Failure('%s after a %s seek in %s: no EOS within %d s' %
                      (element, fmt, state, HANG))
    if msg.type == Gst.MessageType.ERROR:
        raise Failure('%s after a %s seek in %s: %s' %
                      (element, fmt, state, msg.parse_error()[0].message))
    return ok, np.load(dst)


def stencil_sum(b, boundary):
    """x + z of the window "x _ z" over b as the whole array: numpy."""
    if boundary == 'valid':
        return b[:-2] + b[2:]
    if boundary == 'wrap':
        return np.roll(b, 1) + np.roll(b, -1)
    z = np.zeros(1, b.dtype)
    p = np.concatenate([z, b, z])
    return p[:-2] + p[2:]


SOUGHT = (130, 710)             # rows; chunks are 100 rows


def seek_cases():
    """(name, element, numpy of the rows a seek selects) for every kernel
    element, each way it maps input rows to output rows."""
    return [
        ('planmap', 'planmap expr="x * 2 + 1"', lambda b: b * 2 + 1),
        ('planreduce sum', 'planreduce op=sum', lambda b: np.asarray(b.sum())),
        ('planreduce max axis=-1 (2-D)', 'planreduce op=max axis=-1',
         lambda b: b.max(axis=1)),
        ('planstencil constant', 'planstencil window="x _ z" expr="x + z"',
         lambda b: stencil_sum(b, 'constant')),
        ('planstencil valid', 'planstencil window="x _ z" expr="x + z" '
         'boundary=valid', lambda b: stencil_sum(b, 'valid')),
        ('planstencil wrap', 'planstencil window="x _ z" expr="x + z" '
         'boundary=wrap', lambda b: stencil_sum(b, 'wrap')),
    ]


def array_for(name):
    if '2-D' in name:
        return (np.arange(1000 * 3) % 89 - 30).astype(np.int32).reshape(1000, 3)
    return (np.arange(1000) % 97 - 40).astype(np.float64)


def test_row_seeks():
    """A row seek through every element, in PAUSED and in PLAYING: the
    output is numpy's over the rows sought, and nothing of what came
    before the seek is left in it."""
    for name, element, want in seek_cases():
        a = array_for(name)
        for state in ('paused', 'playing'):
            ok, got = run_seek(element, a, state, 'rows', *SOUGHT)
            what = '%s, row seek in %s' % (name, state)
            if not ok:
                raise Failure('%s: the seek was refused' % what)
            assert_same(got, want(a[SOUGHT[0]:SOUGHT[1]]), what)


def test_seeks_to_no_rows():
    """A row seek to a range of no rows (rows 300 to 300) through every
    element: numpy's result over a[300:300] (a sum of 0, empty arrays),
    where the source sent no segment before its EOS and the elements took
    the stream for the whole file, cut short."""
    for name, element, want in seek_cases():
        if 'valid' in name:
            continue            # no rows are shorter than its window
        a = array_for(name)
        for state in ('paused', 'playing'):
            ok, got = run_seek(element, a, state, 'rows', 300, 300)
            what = '%s, seek to no rows in %s' % (name, state)
            if not ok:
                raise Failure('%s: the seek was refused' % what)
            assert_same(got, want(a[300:300]), what)


def test_seeks_selecting_nothing_refused_before_the_flush():
    """A row seek whose start comes after its stop, and one that selects
    no row of a 0-d array (numpy cannot slice one), are refused by each
    kernel element before GstAggregator flushes its output: the source
    would refuse them only after that flush, and the pipeline waited for
    ever. The seek returns FALSE and the pipeline goes on to EOS with the
    whole result, into planfilesink (which does not preroll, so the seek
    may come before the element has its caps) and into a fakesink."""
    Gst = gst()
    d = tmpdir()
    rows, zero_d = os.path.join(d, 'rows.npy'), os.path.join(d, 'zero_d.npy')
    a = np.arange(50.0)
    np.save(rows, a)
    np.save(zero_d, np.array(2.5))
    dst = os.path.join(d, 'out.npy')
    for element, want in (('planmap expr="x * 2"', lambda b: b * 2),
                          ('planreduce op=sum', lambda b: np.asarray(b.sum())),
                          ('planstencil window="x y z" expr="x + y + z" '
                           'boundary=constant', None)):
        for src, arr, start, stop in ((rows, a, 30, 10), (zero_d, None, 0, 0),
                                      (zero_d, None, 1, -1)):
            if arr is None and 'planstencil' in element:
                continue        # a stencil needs an axis
            for sink in ('planfilesink location=%s' % dst, 'fakesink'):
                if os.path.exists(dst):
                    os.unlink(dst)
                p = Gst.parse_launch('planfilesrc location=%s ! %s ! %s' %
                                     (src, element, sink))
                p.set_state(Gst.State.PAUSED)
                p.get_state(HANG * Gst.SECOND)
                ok = p.seek(1.0, Gst.Format.DEFAULT, Gst.SeekFlags.FLUSH,
                            Gst.SeekType.SET, start, Gst.SeekType.SET, stop)
                p.set_state(Gst.State.PLAYING)
                msg = p.get_bus().timed_pop_filtered(
                    HANG * Gst.SECOND,
                    Gst.MessageType.EOS | Gst.MessageType.ERROR)
                p.set_state(Gst.State.NULL)
                what = '%s, seek to rows %d to %d of %s into %s' % (
                    element, start, stop, os.path.basename(src),
                    sink.split()[0])
                if ok:
                    raise Failure('%s: the seek was made' % what)
                if msg is None or msg.type != Gst.MessageType.EOS:
                    raise Failure('%s: no EOS: %s' % (
                        what, msg and msg.parse_error()[0].message))
                if sink.startswith('planfilesink') and want is not None:
                    b = a if arr is not None else np.array(2.5)
                    assert_same(np.load(dst), want(b), what)


def test_seek_after_the_kept_stop_refused_before_the_flush():
    """A row seek that keeps the stop (GST_SEEK_TYPE_NONE) of an earlier
    seek to rows 0 to 3 and starts after it, at row 5: each kernel element
    refuses it before GstAggregator flushes (which then failed with a
    GStreamer-CRITICAL from gst_segment_do_seek() and left the pipeline
    without an EOS). The stream goes on with the earlier range, numpy's
    over a[0:3]."""
    Gst = gst()
    d = tmpdir()
    src, dst = os.path.join(d, 'rows.npy'), os.path.join(d, 'out.npy')
    a = np.arange(50.0)
    np.save(src, a)
    for element, want in (('planmap expr="x * 2"', a[0:3] * 2),
                          ('planreduce op=sum', np.asarray(a[0:3].sum())),
                          ('planstencil window="x y z" expr="x + y + z" '
                           'boundary=constant', None)):
        for sink in ('planfilesink location=%s' % dst, 'fakesink'):
            if os.path.exists(dst):
                os.unlink(dst)
            p = Gst.parse_launch('planfilesrc location=%s ! %s ! %s' %
                                 (src, element, sink))
            p.set_state(Gst.State.PAUSED)
            p.get_state(HANG * Gst.SECOND)
            what = '%s into %s' % (element, sink.split()[0])
            if not p.seek(1.0, Gst.Format.DEFAULT, Gst.SeekFlags.FLUSH,
                          Gst.SeekType.SET, 0, Gst.SeekType.SET, 3):
                raise Failure('%s: the seek to rows 0 to 3 was refused' %
                              what)
            p.get_state(HANG * Gst.SECOND)
            ok = p.seek(1.0, Gst.Format.DEFAULT, Gst.SeekFlags.FLUSH,
                        Gst.SeekType.SET, 5, Gst.SeekType.NONE, -1)
            p.set_state(Gst.State.PLAYING)
            msg = p.get_bus().timed_pop_filtered(
                HANG * Gst.SECOND,
                Gst.MessageType.EOS | Gst.MessageType.ERROR)
            p.set_state(Gst.State.NULL)
            if ok:
                raise Failure('%s: the seek from row 5 was made' % what)
            if msg is None or msg.type != Gst.MessageType.EOS:
                raise Failure('%s: no EOS: %s' % (
                    what, msg and msg.parse_error()[0].message))
            if sink.startswith('planfilesink') and want is not None:
                assert_same(np.load(dst), want, what)


def test_refused_time_seeks():
    """A seek in TIME (what pipeviz sends after every link, and
    GstPipelineStudio's slider) cannot be honoured: arrays have no
    timestamps. It is refused, nothing is flushed, and the pipeline runs on
    to EOS with the whole result."""
    for name, element, want in seek_cases():
        a = array_for(name)
        for state in ('paused', 'playing'):
            ok, got = run_seek(element, a, state, 'time', 0, Gst_second())
            what = '%s, time seek in %s' % (name, state)
            if ok:
                raise Failure('%s: the seek was accepted' % what)
            assert_same(got, want(a), what)


def Gst_second():
    return gst().SECOND


def test_byte_seek_through_map():
    """Bytes of planmap's output count its rows: a byte seek is the row
    seek of the rows holding those bytes (int16 output from float64
    input: 2 bytes a row)."""
    a = array_for('planmap')
    for state in ('paused', 'playing'):
        ok, got = run_seek('planmap expr="x" dtype=int16', a, state, 'bytes',
                           2 * SOUGHT[0], 2 * SOUGHT[1])
        if not ok:
            raise Failure('byte seek in %s refused' % state)
        assert_same(got, a[SOUGHT[0]:SOUGHT[1]].astype(np.int16),
                    'byte seek in %s' % state)


def test_byte_seek_refused_through_reduce():
    """A reduction's output bytes are not rows of its input: refused."""
    a = array_for('planreduce sum')
    ok, got = run_seek('planreduce op=sum', a, 'paused', 'bytes', 8, 80)
    if ok:
        raise Failure('a byte seek through planreduce was accepted')
    assert_same(got, np.asarray(a.sum()), 'planreduce after a refused seek')


def test_seek_in_two_input_map():
    """Both inputs of a map are sought: x + y over the rows sought."""
    Gst = gst()
    a = array_for('planmap')
    d = tmpdir()
    src, dst = os.path.join(d, 'in.npy'), os.path.join(d, 'out.npy')
    np.save(src, a)
    import threading
    p = Gst.parse_launch(
        'planmap name=m expr="x + 2 * y" ! planfilesink name=sink '
        'location=%s planfilesrc blocksize=800 location=%s ! m.sink_0 '
        'planfilesrc blocksize=560 location=%s ! m.sink_1' % (dst, src, src))
    arrived = threading.Event()
    p.get_by_name('sink').get_static_pad('sink').add_probe(
        Gst.PadProbeType.BUFFER,
        lambda pad, info: (arrived.set(), Gst.PadProbeReturn.OK)[1])
    p.set_state(Gst.State.PAUSED)
    # Prerolled: the first rows of x + 2 * y wait in the sink.
    if not arrived.wait(HANG):
        raise Failure('no output reached the sink before the seek')
    if not p.seek(1.0, Gst.Format.DEFAULT, Gst.SeekFlags.FLUSH,
                  Gst.SeekType.SET, SOUGHT[0], Gst.SeekType.SET, SOUGHT[1]):
        raise Failure('the seek was refused')
    p.set_state(Gst.State.PLAYING)
    msg = p.get_bus().timed_pop_filtered(
        HANG * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    if msg is None or msg.type != Gst.MessageType.EOS:
        raise Failure('no EOS: %s' % (msg and msg.parse_error()[0].message))
    b = a[SOUGHT[0]:SOUGHT[1]]
    assert_same(np.load(dst), b + 2 * b, 'x + 2 * y after a seek')


def test_backward_seeks_refused_by_the_source():
    """planfilesrc plays forwards only. A seek with a negative rate in its
    own format (rows, or time where the rows have a rate), which GstBaseSrc
    hands to the element without asking it to prepare the segment, is
    refused before anything is flushed, sent to the pipeline in PAUSED or
    PLAYING or to the source itself in READY; the pipeline goes on to EOS
    with every row, in order (it once played rows forwards under a segment
    of rate -1)."""
    Gst = gst()
    a, src, d = source(rows=1000, cols=2)
    dst = os.path.join(d, 'out.npy')
    cases = [('rows, PAUSED', '', Gst.State.PAUSED, Gst.Format.DEFAULT, 100,
              500),
             ('rows, PLAYING', '', Gst.State.PLAYING, Gst.Format.DEFAULT, 100,
              500),
             ('time, PAUSED', ' rate=100/1', Gst.State.PAUSED,
              Gst.Format.TIME, Gst.SECOND, 5 * Gst.SECOND),
             ('rows, sent to the source in READY', '', Gst.State.READY,
              Gst.Format.DEFAULT, 100, 500)]
    for what, rate, state, fmt, start, stop in cases:
        if os.path.exists(dst):
            os.unlink(dst)
        p = Gst.parse_launch('planfilesrc name=src blocksize=800 location=%s%s'
                             ' ! planfilesink location=%s' % (src, rate, dst))
        flushes = []
        p.get_by_name('src').get_static_pad('src').add_probe(
            Gst.PadProbeType.EVENT_FLUSH,
            lambda pad, info: (flushes.append(1), Gst.PadProbeReturn.OK)[1])
        p.set_state(state)
        p.get_state(HANG * Gst.SECOND)
        seek = Gst.Event.new_seek(-1.0, fmt, Gst.SeekFlags.FLUSH,
                                  Gst.SeekType.SET, start, Gst.SeekType.SET,
                                  stop)
        if state == Gst.State.READY:
            ok = p.get_by_name('src').send_event(seek)
        else:
            ok = p.send_event(seek)
        p.set_state(Gst.State.PLAYING)
        msg = p.get_bus().timed_pop_filtered(
            HANG * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
        p.set_state(Gst.State.NULL)
        if ok:
            raise Failure('%s: a backward seek was accepted' % what)
        if flushes:
            raise Failure('%s: the refused seek flushed the pipeline' % what)
        if msg is None or msg.type != Gst.MessageType.EOS:
            raise Failure('%s: no EOS: %s' %
                          (what, msg and msg.parse_error()[0].message))
        assert_same(np.load(dst), a, what)


def test_elements_reused_after_an_error():
    """One pipeline, set right after each error and played again from
    NULL: a file that is missing, then a good one, then one that is not an
    array, then an expression that does not parse, then the good ones
    again. Each failure is one error, from the element that failed; each
    good run writes numpy's result."""
    Gst = gst()
    a, src, d = source(rows=1000, cols=2)
    bad = os.path.join(d, 'bad.npy')
    with open(bad, 'wb') as f:
        f.write(b'not an array')
    dst = os.path.join(d, 'out.npy')
    p = Gst.parse_launch('planfilesrc name=src ! planmap name=map ! '
                         'planfilesink location=%s' % dst)
    runs = [(os.path.join(d, 'missing.npy'), 'x + 1', 'src'),
            (src, 'x + 1', None), (bad, 'x + 1', 'src'),
            (src, '2 * x +', 'map'), (src, '2 * x', None)]
    try:
        for location, expr, failing in runs:
            what = '%s, %s' % (os.path.basename(location), expr)
            if os.path.exists(dst):
                os.unlink(dst)
            p.get_by_name('src').set_property('location', location)
            p.get_by_name('map').set_property('expr', expr)
            p.set_state(Gst.State.PLAYING)
            bus = p.get_bus()
            msg = bus.timed_pop_filtered(
                HANG * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
            more = bus.pop_filtered(Gst.MessageType.ERROR)
            p.set_state(Gst.State.NULL)
            if msg is None:
                raise Failure('%s: neither EOS nor error' % what)
            if failing is None:
                if msg.type != Gst.MessageType.EOS:
                    raise Failure('%s: %s' % (what,
                                              msg.parse_error()[0].message))
                want = a + 1 if expr == 'x + 1' else 2 * a
                assert_same(np.load(dst), want, what)
                continue
            if msg.type != Gst.MessageType.ERROR or \
                    msg.src != p.get_by_name(failing):
                raise Failure('%s: no error from %s: %s' % (what, failing,
                                                            msg.type))
            if more is not None:
                raise Failure('%s: a second error: %s' %
                              (what, more.parse_error()[0].message))
    finally:
        p.set_state(Gst.State.NULL)


# -- preroll ---------------------------------------------------------------

def test_reduction_prerolls_before_computing():
    """A reduction pushes its result only at the end: a GAP lets the sink
    preroll after the first chunk, so PAUSED is reached (ASYNC_DONE)
    before the reduction is done, and the work happens in PLAYING, where
    position queries are answered: the share of the rows read, as that
    share of the result's bytes, short of its duration until the end."""
    Gst = gst()
    a, src, d = source(rows=100000)
    p = Gst.parse_launch('planfilesrc blocksize=80000 location=%s ! '
                         'planreduce name=r op=sum ! fakesink' % src)
    bus = p.get_bus()
    p.set_state(Gst.State.PAUSED)
    msg = bus.timed_pop_filtered(HANG * Gst.SECOND, Gst.MessageType.ASYNC_DONE |
                                 Gst.MessageType.ERROR | Gst.MessageType.ELEMENT)
    try:
        if msg is None or msg.type != Gst.MessageType.ASYNC_DONE:
            raise Failure('the pipeline did not preroll before the result: %s'
                          % (msg and msg.type))
        if p.get_by_name('r').get_property('result') is not None:
            raise Failure('the reduction was done in PAUSED')
        ok, pos = p.query_position(Gst.Format.BYTES)
        okd, dur = p.query_duration(Gst.Format.BYTES)
        if not ok or not okd or dur != a.itemsize or not 0 <= pos < dur:
            raise Failure('position in PAUSED: %s %s of %s %s' %
                          (ok, pos, okd, dur))
        p.set_state(Gst.State.PLAYING)
        msg = bus.timed_pop_filtered(HANG * Gst.SECOND, Gst.MessageType.EOS |
                                     Gst.MessageType.ERROR)
        if msg is None or msg.type != Gst.MessageType.EOS:
            raise Failure('no EOS: %s' % (msg and msg.parse_error()))
        got = p.get_by_name('r').get_property('result').get_value('value')
        if got != float(a.sum()):
            raise Failure('sum %r, numpy %r' % (got, float(a.sum())))
    finally:
        p.set_state(Gst.State.NULL)


def test_duration_and_position_of_the_output():
    """Each kernel element answers the duration of its output, in rows and
    bytes of the output (a reduction's one row, a valid stencil's 2 rows
    fewer, a map to int16 two bytes a row), and, where output rows are
    input rows, the position in them; a reduction of rows sampled in time
    answers the input's duration and position in time."""
    Gst = gst()
    a, src, d = source(rows=1000)            # float32: 4 bytes a row
    for element, rows, row_bytes in (
            ('planmap expr=x dtype=int16', 1000, 2),
            ('planreduce op=sum', 1, 4),
            ('planreduce op=max axis=-1', 1000, 4),
            ('planstencil window="x _ z" expr="x + z" boundary=valid', 998, 4),
            ('planstencil window="x _ z" expr="x + z"', 1000, 4)):
        p = Gst.parse_launch('planfilesrc blocksize=400 location=%s ! %s '
                             'name=k ! fakesink' % (src, element))
        try:
            p.set_state(Gst.State.PAUSED)
            p.get_state(HANG * Gst.SECOND)
            pad = p.get_by_name('k').get_static_pad('src')
            got = (pad.query_duration(Gst.Format.DEFAULT),
                   pad.query_duration(Gst.Format.BYTES))
            want = ((True, rows), (True, rows * row_bytes))
            if tuple(tuple(g) for g in got) != want:
                raise Failure('%s: duration %s, expected %s' %
                              (element, got, want))
            if 'planreduce op=sum' not in element:
                ok, rpos = pad.query_position(Gst.Format.DEFAULT)
                ok2, bpos = pad.query_position(Gst.Format.BYTES)
                if not (ok and ok2 and bpos == rpos * row_bytes and rpos > 0):
                    raise Failure('%s: position %s rows, %s bytes' %
                                  (element, rpos, bpos))
            if pad.query_duration(Gst.Format.TIME)[0]:
                raise Failure('%s: a duration in TIME was answered' % element)
        finally:
            p.set_state(Gst.State.NULL)
    # A reduction of rows sampled in time: its result has no rate, and
    # stands for the time its input spans: the input's duration and
    # position in time (the position was not answered, and gst-validate's
    # seek scenarios waited for ever for a time to seek at).
    for element in ('planreduce op=sum', 'planreduce op=max axis=0'):
        p = Gst.parse_launch('planfilesrc blocksize=400 rate=1000/1 '
                             'location=%s ! %s name=k ! fakesink' %
                             (src, element))
        try:
            p.set_state(Gst.State.PAUSED)
            p.get_state(HANG * Gst.SECOND)
            for target in (p.get_by_name('k').get_static_pad('src'), p):
                got = target.query_duration(Gst.Format.TIME)
                if tuple(got) != (True, Gst.SECOND):
                    raise Failure('%s: duration in time %s, expected 1 s' %
                                  (element, got))
                ok, pos = target.query_position(Gst.Format.TIME)
                if not ok or not 0 < pos <= Gst.SECOND:
                    raise Failure('%s: position in time %s' %
                                  (element, (ok, pos)))
        finally:
            p.set_state(Gst.State.NULL)


def test_seeking_query_speaks_of_the_output():
    """The seeking query is answered of the output, as the duration and the
    position are: a reduction of the rows or of everything (axis=all,
    axis=0), whose rows stand for all the input rows, is not seekable in
    any format (it said rows 0 to 1000 of its input, with a duration of 1
    row), and a row seek sent to it still reduces the rows sought; where
    output rows are input rows (axis=-1, map), the range is the output's,
    the duration."""
    Gst = gst()
    a, src, d = source(rows=1000, cols=3)    # float32: 12 bytes a row
    for element, seekable, rows, row_bytes in (
            ('planreduce op=sum', False, 1, 4),
            ('planreduce op=sum axis=0', False, 3, 4),
            ('planreduce op=max axis=-1', True, 1000, 4),
            ('planmap expr="x * 2"', True, 1000, 12)):
        p = Gst.parse_launch('planfilesrc blocksize=1200 location=%s ! %s '
                             'name=k ! fakesink' % (src, element))
        try:
            p.set_state(Gst.State.PAUSED)
            p.get_state(HANG * Gst.SECOND)
            for target in (p.get_by_name('k').get_static_pad('src'), p):
                for fmt, unit in ((Gst.Format.DEFAULT, 1),
                                  (Gst.Format.BYTES, row_bytes)):
                    q = Gst.Query.new_seeking(fmt)
                    if not target.query(q):
                        raise Failure('%s: no answer to the seeking query' %
                                      element)
                    _, got, start, end = q.parse_seeking()
                    ok, duration = target.query_duration(fmt)
                    want = (seekable, 0 if seekable else -1,
                            rows * unit if seekable else -1)
                    if (got, start, end) != want or not ok or \
                            duration != rows * unit:
                        raise Failure('%s: seeking %s in %s with duration '
                                      '%s, expected %s with duration %d' %
                                      (element, (got, start, end),
                                       fmt.value_nick, duration, want,
                                       rows * unit))
        finally:
            p.set_state(Gst.State.NULL)
    ok, got = run_seek('planreduce op=sum axis=0', a, 'paused', 'rows',
                       *SOUGHT)
    if not ok:
        raise Failure('a row seek to a reduction was refused')
    assert_same(got, a[SOUGHT[0]:SOUGHT[1]].sum(axis=0),
                'axis=0 over the rows sought')


# -- streams cut short -----------------------------------------------------

def test_truncated_stream_is_an_error():
    """num-buffers cuts planfilesrc short: a reduction over the rows that
    came would pass for the whole array's, so it is an error (as
    planfilesink makes it), and a map or a stencil says so too."""
    a, src, d = source(rows=1000)
    for element in (['planreduce', 'op=sum'], ['planmap', 'expr=x'],
                    ['planstencil', 'window=x _ z', 'expr=x + z']):
        expect_error(['planfilesrc', 'location=' + src, 'blocksize=400',
                      'num-buffers=1', '!'] + element + ['!', 'fakesink'],
                     'ended after 100 of the 1000 rows it announced')
    # The same reduction over the whole stream is fine, and numpy's.
    dst = os.path.join(d, 'sum.npy')
    launch('planfilesrc', 'location=' + src, 'blocksize=400', '!',
           'planreduce', 'op=sum', '!', 'planfilesink', 'location=' + dst)
    assert_same(np.load(dst), np.asarray(a.sum()), 'the whole sum')


def test_shard_is_not_truncation():
    """A shard (offset/length) announces its own rows: not cut short."""
    a, src, d = source(rows=1000)
    dst = os.path.join(d, 'sum.npy')
    launch('planfilesrc', 'location=' + src, 'offset=100', 'length=300',
           '!', 'planreduce', 'op=sum', '!', 'planfilesink',
           'location=' + dst)
    assert_same(np.load(dst), np.asarray(a[100:400].sum()), 'a shard\'s sum')


def test_streams_joined_into_planfilesink():
    """concat plays its inputs one after another as one output, each with
    its own STREAM_START: planfilesink, whose file holds one array,
    refuses the second stream as it begins, naming the rows of the first;
    no file is written. It wrote on, and at EOS said "5000 rows came, more
    than the 2000 the stream announced" (the last stream's caps). One
    stream through concat is written as it is."""
    a, src, d = source(rows=3000, cols=2)
    second = os.path.join(d, 'second.npy')
    np.save(second, a[:2000] + 1)
    dst = os.path.join(d, 'joined.npy')
    for first, then, rows in ((src, second, 3000), (second, src, 2000)):
        out = expect_error(
            ['concat', 'name=c', '!', 'planfilesink', 'location=' + dst,
             'planfilesrc', 'location=' + first, 'rate=1000/1', '!', 'c.',
             'planfilesrc', 'location=' + then, 'rate=1000/1', '!', 'c.'],
            'a second stream began after %d rows of the first' % rows,
            'a file holds one array')
        if 'more than the' in out or os.path.exists(dst):
            raise Failure('a second stream written on:\n%s' % out)
    launch('concat', 'name=c', '!', 'planfilesink', 'location=' + dst,
           'planfilesrc', 'location=' + src, 'rate=1000/1', '!', 'c.')
    assert_same(np.load(dst), a, 'one stream through concat')


# -- streams the application ends early ------------------------------------

def run_ended_early(branches, rows=10000, rate=1000, npyparse=False):
    """planfilesrc (rows sampled at rate, played in time by a planmap
    branch whose sink syncs) teed into branches, each a (launch text,
    output path) pair; once 300 rows have been written the application
    sends EOS to the pipeline. npyparse: filesrc ! npyparse instead of
    planfilesrc. Returns (the input array, the rows the source sent, the
    EOS each output got (name -> the plan-ended-early row or None), the
    error message or None)."""
    import threading
    Gst = gst()
    d = tmpdir()
    a = np.random.default_rng(5).standard_normal((rows, 3))
    src, played = os.path.join(d, 'in.npy'), os.path.join(d, 'played.npy')
    np.save(src, a)
    source = ('filesrc location=%s ! npyparse' if npyparse else
              'planfilesrc location=%s')
    text = (source + ' rate=%d/1 blocksize=%d ! tee name=t '
            't. ! queue ! planmap expr="2*x" ! planfilesink name=played '
            'sync=true location=%s ') % (src, rate, 50 * a[0].nbytes, played)
    for i, (branch, path) in enumerate(branches):
        text += 't. ! queue ! ' + branch % {'out': path, 'name': 'out%d' % i}
        text += ' '
    p = Gst.parse_launch(text)
    written, ends = threading.Event(), {}
    count = [0]

    def on_data(pad, info):
        name = pad.get_parent_element().get_name()
        if info.type & Gst.PadProbeType.BUFFER:
            if name != 'played':
                return Gst.PadProbeReturn.OK
            count[0] += info.get_buffer().get_size() // a[0].nbytes
            if count[0] >= 300:
                written.set()
        elif info.get_event().type == Gst.EventType.EOS:
            s = info.get_event().get_structure()
            ok, row = s.get_uint64('plan-ended-early') if s else (False, 0)
            ends[name] = row if ok else None
        return Gst.PadProbeReturn.OK
    names = ['played'] + ['out%d' % i for i in range(len(branches))]
    for name in names:
        p.get_by_name(name).get_static_pad('sink').add_probe(
            Gst.PadProbeType.BUFFER | Gst.PadProbeType.EVENT_DOWNSTREAM,
            on_data)
    p.set_state(Gst.State.PLAYING)
    if not written.wait(HANG):
        p.set_state(Gst.State.NULL)
        raise Failure('no rows were written')
    p.send_event(Gst.Event.new_eos())
    msg = p.get_bus().timed_pop_filtered(
        HANG * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    if msg is None:
        raise Failure('no EOS within %d s of the EOS sent' % HANG)
    error = msg.parse_error()[0].message \
        if msg.type == Gst.MessageType.ERROR else None
    got = np.load(played) if error is None else None
    n = len(got) if got is not None else None
    if got is not None:
        if not 300 <= n < rows:
            raise Failure('the stream ended after %d of %d rows: not where '
                          'the EOS was sent' % (n, rows))
        assert_same(got, 2 * a[:n], 'planmap over the rows sent')
        if ends.get('played') != n:
            raise Failure('the EOS at the map\'s sink says %r, not row %d' %
                          (ends.get('played'), n))
    return a, n, ends, error


def test_eos_sent_by_the_application():
    """An EOS the application sends ends the stream where it arrives (as
    gst-launch-1.0 -e and Ctrl-C do): planmap, planreduce, planfilesink
    and npymux into a seekable sink give their results over the rows the
    source sent, and the EOS says at which row the stream ended."""
    d = tmpdir()
    total, mean, npy = (os.path.join(d, n)
                        for n in ('sum.npy', 'mean.npy', 'mux.npy'))
    a, n, ends, error = run_ended_early([
        ('planreduce op=sum ! planfilesink name=%(name)s location=%(out)s',
         total),
        ('planreduce op=mean axis=-1 ! planfilesink name=%(name)s '
         'location=%(out)s', mean),
        ('npymux ! filesink name=%(name)s location=%(out)s', npy)])
    if error is not None:
        raise Failure('an EOS sent mid-stream gave an error: ' + error)
    assert_same(np.load(total), np.asarray(a[:n].sum()), 'the sum of the rows sent',
                rtol=1e-12)
    if ends.get('out0') != 1:
        raise Failure('the EOS after the sum says %r, not row 1' %
                      ends.get('out0'))
    assert_same(np.load(mean), a[:n].mean(axis=-1), 'row means', rtol=1e-12)
    assert_same(np.load(npy), a[:n], 'npymux\'s .npy of the rows sent')


def built_with(name):
    """Whether gst-plan is built with HAVE_<name> (HDF5, ZARR)."""
    config = os.path.join(os.environ.get('PLAN_BUILD_DIR', 'build'),
                          'config.h')
    with open(config) as f:
        return '#define HAVE_%s 1' % name in f.read()


def test_eos_sent_by_the_application_through_npyparse():
    """The same through filesrc ! npyparse: filesrc (GstBaseSrc) pushes the
    application's EOS under the application's seqnum, not its segment's,
    which npyparse tells from the end of a file cut short; it ended the
    stream with a truncation error ("The .npy stream is truncated")."""
    d = tmpdir()
    total, npy = (os.path.join(d, n) for n in ('sum.npy', 'mux.npy'))
    a, n, ends, error = run_ended_early([
        ('planreduce op=sum ! planfilesink name=%(name)s location=%(out)s',
         total),
        ('npymux ! filesink name=%(name)s location=%(out)s', npy)],
        npyparse=True)
    if error is not None:
        raise Failure('an EOS sent mid-stream through npyparse gave an '
                      'error: ' + error)
    assert_same(np.load(total), np.asarray(a[:n].sum()), 'the sum of the '
                'rows sent', rtol=1e-12)
    assert_same(np.load(npy), a[:n], 'npymux\'s .npy of the rows sent')


def test_eos_sent_by_the_application_into_every_format():
    """planfilesink writes the rows received in every format it writes:
    raw, and HDF5 and Zarr where gst-plan is built with them, whose
    datasets are created with the rows the caps announce."""
    d = tmpdir()
    outs = [('raw', os.path.join(d, 'o.f64'), ''),
            ('HDF5', os.path.join(d, 'o.h5'), ''),
            ('ZARR', os.path.join(d, 'o.zarr'), ' chunk-rows=100')]
    outs = [o for o in outs if o[0] == 'raw' or built_with(o[0])]
    a, n, _, error = run_ended_early([
        ('planfilesink name=%(name)s location=%(out)s' + extra, path)
        for _, path, extra in outs])
    if error is not None:
        raise Failure('an EOS sent mid-stream gave an error: ' + error)
    for kind, path, _ in outs:
        if kind == 'raw':
            got = np.fromfile(path).reshape(-1, 3)
        elif kind == 'HDF5':
            import h5py
            with h5py.File(path) as f:
                got = f['data'][...]
        else:
            import zarr
            got = zarr.open(path, mode='r')[...]
        assert_same(got, a[:n], '%s output of the rows sent' % kind)


def test_eos_sent_by_the_application_to_an_unseekable_npymux():
    """npymux has written a header of every row; downstream cannot seek
    back to say fewer: a clear error, not a .npy that lies."""
    _, _, _, error = run_ended_early([
        ('npymux ! fakesink name=%(name)s', None)])
    if error is None or 'cannot seek back to rewrite it' not in error:
        raise Failure('npymux into fakesink ended early: %r' % error)


def test_truncated_stream_into_planfilesink_is_an_error():
    """An EOS that no application sent (num-buffers) before the rows
    announced: planfilesink writes nothing, and says why."""
    a, src, d = source(rows=1000)
    dst = os.path.join(d, 'out.npy')
    expect_error(['planfilesrc', 'location=' + src, 'blocksize=400',
                  'num-buffers=1', '!', 'planfilesink', 'location=' + dst],
                 'ended after 100 of the 1000 rows it announced')
    if os.path.exists(dst):
        raise Failure('a stream cut short left ' + dst)


def playing_two_input_map(d, src_b):
    """planfilesrc a ! m.sink_0, SRC_B ! m.sink_1, planmap m (x + y) into a
    sink that plays 20 s of rows in time, started and PLAYING."""
    Gst = gst()
    a = np.arange(40000, dtype=np.float32).reshape(20000, 2)
    path = os.path.join(d, 'long.npy')
    np.save(path, a)
    p = Gst.parse_launch(
        'planfilesrc location=%s rate=1000/1 ! m.sink_0 %s ! m.sink_1 '
        'planmap name=m expr="x + y" ! fakesink sync=true'
        % (path, src_b % path))
    p.set_state(Gst.State.PLAYING)
    p.get_state(HANG * Gst.SECOND)
    time.sleep(0.3)
    return p


def next_problem(p, within=2):
    """(type, text) of the next error or warning on the bus, or None."""
    Gst = gst()
    msg = p.get_bus().timed_pop_filtered(
        int(within * Gst.SECOND), Gst.MessageType.ERROR |
        Gst.MessageType.WARNING | Gst.MessageType.EOS)
    if msg is None or msg.type == Gst.MessageType.EOS:
        return None
    if msg.type == Gst.MessageType.ERROR:
        return 'error', msg.parse_error()[0].message
    return 'warning', msg.parse_warning()[0].message


def test_input_released_while_playing_is_an_error():
    """An application that stops an input's source and releases its
    planmap pad in PLAYING: the map fails with an error that says why,
    where it went on reading the rows of the input that was gone (the
    pages of a file unmapped under it: a crash; a read chunk: its old
    rows). Mapped, read and npyparse sources."""
    Gst = gst()
    d = tmpdir()
    for src_b in ('planfilesrc name=b location=%s rate=1000/1 io-mode=mmap',
                  'planfilesrc name=b location=%s rate=1000/1 io-mode=read',
                  'filesrc location=%s ! npyparse name=b rate=1000/1'):
        p = playing_two_input_map(d, src_b)
        m, b = p.get_by_name('m'), p.get_by_name('b')
        pad = m.get_static_pad('sink_1')
        b.set_state(Gst.State.NULL)
        b.get_static_pad('src').unlink(pad)
        m.release_request_pad(pad)
        got = next_problem(p, within=HANG)
        p.set_state(Gst.State.NULL)
        want = ('m lost an input while it computes: it has 1 now, and it '
                'computes with 2')
        if got is None or got[0] != 'error' or want not in got[1]:
            raise Failure('%s released in PLAYING: %s' % (src_b, got))


def test_input_requested_while_playing_is_refused():
    """A pad requested from planmap while it computes is refused (NULL)
    with a warning, and the map goes on with its two inputs."""
    Gst = gst()
    d = tmpdir()
    p = playing_two_input_map(
        d, 'planfilesrc name=b location=%s rate=1000/1')
    pad = p.get_by_name('m').request_pad_simple('sink_%u')
    got = next_problem(p)
    problem = next_problem(p, within=0.5)
    p.set_state(Gst.State.NULL)
    if pad is not None:
        raise Failure('a pad was given in PLAYING: %s' % pad.get_name())
    if got is None or got[0] != 'warning' or (
            'an input cannot be added while the element computes'
            not in got[1]):
        raise Failure('no warning for the refused request: %s' % (got,))
    if problem is not None:
        raise Failure('the map did not go on: %s' % (problem,))


CASES = [
    ('planreduce without a sink fails: not linked',
     test_reduce_without_sink_fails_not_linked),
    ('planmap without a sink fails: not linked',
     test_map_without_sink_fails_not_linked),
    ('planstencil without a sink fails: not linked',
     test_stencil_without_sink_fails_not_linked),
    ('planmap without inputs fails at start',
     test_map_without_inputs_fails_at_start),
    ('planreduce without an input fails at start',
     test_reduce_without_input_fails_at_start),
    ('a FIFO without a writer is refused at once',
     test_fifo_without_writer_is_refused_at_once),
    ('a FIFO output without a reader can be stopped',
     test_fifo_output_without_reader_can_be_stopped),
    ('a FIFO output is written as a stream', test_fifo_output_is_a_stream),
    ('row seeks through map, reduce and stencil, in PAUSED and PLAYING',
     test_row_seeks),
    ('row seeks to no rows through map, reduce and stencil',
     test_seeks_to_no_rows),
    ('seeks selecting nothing refused before the flush, EOS follows',
     test_seeks_selecting_nothing_refused_before_the_flush),
    ('a seek starting after the stop it keeps refused before the flush',
     test_seek_after_the_kept_stop_refused_before_the_flush),
    ('TIME seeks refused, the pipeline goes on to EOS',
     test_refused_time_seeks),
    ('a byte seek through planmap', test_byte_seek_through_map),
    ('a byte seek through planreduce is refused',
     test_byte_seek_refused_through_reduce),
    ('a row seek through a map of two inputs', test_seek_in_two_input_map),
    ('backward seeks refused by planfilesrc, nothing flushed',
     test_backward_seeks_refused_by_the_source),
    ('elements reused after an error, from NULL',
     test_elements_reused_after_an_error),
    ('a reduction prerolls before computing', test_reduction_prerolls_before_computing),
    ('duration and position of each element\'s output',
     test_duration_and_position_of_the_output),
    ('the seeking query speaks of the output',
     test_seeking_query_speaks_of_the_output),
    ('a stream cut short (num-buffers) is an error',
     test_truncated_stream_is_an_error),
    ('a shard is not a stream cut short', test_shard_is_not_truncation),
    ('streams joined by concat into planfilesink: the second refused',
     test_streams_joined_into_planfilesink),
    ('an EOS the application sends ends the stream there',
     test_eos_sent_by_the_application),
    ('an EOS the application sends through filesrc and npyparse',
     test_eos_sent_by_the_application_through_npyparse),
    ('an EOS the application sends: raw, HDF5 and Zarr outputs',
     test_eos_sent_by_the_application_into_every_format),
    ('an EOS the application sends to an unseekable npymux is an error',
     test_eos_sent_by_the_application_to_an_unseekable_npymux),
    ('a stream cut short into planfilesink is an error',
     test_truncated_stream_into_planfilesink_is_an_error),
    ('an input released while PLAYING is an error',
     test_input_released_while_playing_is_an_error),
    ('an input requested while PLAYING is refused',
     test_input_requested_while_playing_is_refused),
]

if __name__ == '__main__':
    run_cases(CASES)
