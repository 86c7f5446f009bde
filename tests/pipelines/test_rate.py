"""Arrays sampled in time: planfilesrc's rate goes into the caps (`rate`),
through planmap, planstencil and plancustom unchanged, through planreduce
as the reduction changes rows; buffers carry timestamps of their rows;
position and duration are answered in time, and seeks in time select the
rows sampled in the range (against numpy). Without a rate, time is
refused at once, as before."""
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import plantest  # noqa: E402
from plantest import Failure, gst  # noqa: E402

HANG = 30
BUILD = os.environ.get('PLAN_BUILD_DIR', 'build')
D = plantest.tmpdir()
rng = np.random.default_rng(8)
M = rng.standard_normal((5000, 3))      # 5 s at 1000 rows a second
SRC = os.path.join(D, 'm.npy')
np.save(SRC, M)


def pipeline(element, rate='1000/1', out=None, blocksize=2400):
    """planfilesrc rate=RATE ! element ! planfilesink (or fakesink)."""
    Gst = gst()
    sink = ('planfilesink name=sink location=%s' % out if out else
            'fakesink name=sink signal-handoffs=true')
    rate_words = 'rate=%s' % rate if rate else ''
    return Gst.parse_launch('planfilesrc name=src location=%s blocksize=%d '
                            '%s ! %s ! %s' % (SRC, blocksize, rate_words,
                                              element, sink))


def run_to_eos(p):
    Gst = gst()
    p.set_state(Gst.State.PLAYING)
    msg = p.get_bus().timed_pop_filtered(
        HANG * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    if msg is None:
        raise Failure('no EOS within %d s' % HANG)
    if msg.type == Gst.MessageType.ERROR:
        raise Failure(msg.parse_error()[0].message)


def sink_caps(element, rate='1000/1', blocksize=2400):
    """The caps at the sink, and the (pts, duration, offset, offset_end)
    of every buffer it received."""
    Gst = gst()
    p = pipeline(element, rate, blocksize=blocksize)
    got = []

    def handoff(sink, buf, pad):
        got.append((buf.pts, buf.duration, buf.offset, buf.offset_end))
    p.get_by_name('sink').connect('handoff', handoff)
    caps = []

    def on_caps(pad, info):
        ev = info.get_event()
        if ev.type == Gst.EventType.CAPS:
            caps.append(ev.parse_caps().get_structure(0))
        return Gst.PadProbeReturn.OK
    p.get_by_name('sink').get_static_pad('sink').add_probe(
        Gst.PadProbeType.EVENT_DOWNSTREAM, on_caps)
    run_to_eos(p)
    if not caps:
        raise Failure('%s: no caps at the sink' % element)
    return caps[-1], got


def rate_of(s):
    ok, n, d = s.get_fraction('rate')
    return (n, d) if ok else None


def test_rate_through_elements():
    """The rate is the caps' as each element changes rows: kept by maps,
    stencils, custom kernels and per-row reductions, dropped by a reduction
    of many rows into one."""
    softmax = os.path.join(BUILD, 'tests', 'examples', 'libsoftmax.so')
    cases = [
        ('planmap expr="2*x"', (1000, 1)),
        ('planstencil window="a _ b" expr="a + b"', (1000, 1)),
        ('planmap expr="x" dtype=float32 ! plancustom library=%s '
         'symbol=softmax' % softmax, (1000, 1)),
        ('planreduce op=mean axis=-1', (1000, 1)),
        ('planreduce op=sum', None),
        ('planreduce op=max axis=0', None),
    ]
    for element, want in cases:
        s, _ = sink_caps(element)
        if rate_of(s) != want:
            raise Failure('%s: rate %s at the sink, expected %s (%s)' %
                          (element, rate_of(s), want, s.to_string()))
    s, _ = sink_caps('planmap expr="2*x"', rate=None)
    if rate_of(s) is not None:
        raise Failure('a rate without one asked: %s' % s.to_string())


def test_buffers_carry_time():
    """Each buffer's timestamp is its first row's time, its duration its
    rows' (1000 rows a second: rows 0-800 are 0 s to 0.8 s); without a
    rate, none."""
    Gst = gst()
    for element in ('planmap expr="2*x"', 'planreduce op=mean axis=-1'):
        _, bufs = sink_caps(element, rate='1000/1')
        if not bufs:
            raise Failure('%s: no buffers' % element)
        for pts, dur, off, end in bufs:
            if pts != off * Gst.MSECOND or dur != (end - off) * Gst.MSECOND:
                raise Failure('%s: rows %d-%d at %s for %s' %
                              (element, off, end, pts, dur))
    _, bufs = sink_caps('planmap expr="2*x"', rate='3/2')
    pts, dur, off, end = bufs[1]
    if pts != Gst.util_uint64_scale(off, 2 * Gst.SECOND, 3):
        raise Failure('rate 3/2: row %d at %s' % (off, pts))
    _, bufs = sink_caps('planmap expr="2*x"', rate=None)
    if any(b[0] != Gst.CLOCK_TIME_NONE for b in bufs):
        raise Failure('timestamps without a rate: %s' % bufs[:2])


def query_in(p, name, fmt):
    Gst = gst()
    pad = p.get_by_name(name).get_static_pad('src')
    ok, dur = pad.query_duration(fmt)
    okp, pos = pad.query_position(fmt)
    return (dur if ok else None), (pos if okp else None)


def test_time_queries():
    """Duration and position in time, at the source and after a map; after
    a whole reduction, whose result stands for the time its input spans,
    the input's; none anywhere without a rate."""
    Gst = gst()
    p = pipeline('planmap name=k expr="2*x" ! planreduce name=r op=sum')
    p.set_state(Gst.State.PAUSED)
    p.get_state(HANG * Gst.SECOND)
    for name in ('src', 'k'):
        dur, pos = query_in(p, name, Gst.Format.TIME)
        if dur != 5 * Gst.SECOND or pos is None or pos > dur:
            raise Failure('%s: duration %s, position %s in time' %
                          (name, dur, pos))
    dur, pos = query_in(p, 'r', Gst.Format.TIME)
    if dur != 5 * Gst.SECOND or pos is None or pos > dur:
        raise Failure('a whole reduction: duration %s, position %s in time' %
                      (dur, pos))
    p.set_state(Gst.State.NULL)
    p = pipeline('planmap name=k expr="2*x"', rate=None)
    p.set_state(Gst.State.PAUSED)
    p.get_state(HANG * Gst.SECOND)
    dur, _ = query_in(p, 'k', Gst.Format.TIME)
    p.set_state(Gst.State.NULL)
    if dur is not None:
        raise Failure('a duration in time without a rate: %s' % dur)


def seek_when_arrived(p, out, flags, start, stop, playing=False):
    """A seek in time with @flags on @p, in PAUSED (or PLAYING) once
    something reached its sink; runs it to EOS and returns (what the seek
    returned, the output file @out)."""
    Gst = gst()
    arrived = threading.Event()

    def seen(pad, info):
        arrived.set()
        return Gst.PadProbeReturn.OK
    p.get_by_name('sink').get_static_pad('sink').add_probe(
        Gst.PadProbeType.BUFFER | Gst.PadProbeType.EVENT_DOWNSTREAM, seen)
    p.set_state(Gst.State.PLAYING if playing else Gst.State.PAUSED)
    if not arrived.wait(HANG):
        raise Failure('nothing reached the sink')
    ok = p.seek(1.0, Gst.Format.TIME, flags, Gst.SeekType.SET, start,
                Gst.SeekType.SET, stop)
    run_to_eos(p)
    return ok, np.load(out)


def seek_time(element, start, stop, rate='1000/1', playing=False):
    """A flushing seek in time on planfilesrc ! element ! planfilesink in
    PAUSED (or PLAYING); returns (what it returned, the output)."""
    Gst = gst()
    out = os.path.join(D, 'out.npy')
    if os.path.exists(out):
        os.unlink(out)
    return seek_when_arrived(pipeline(element, rate, out), out,
                             Gst.SeekFlags.FLUSH, start, stop, playing)


def test_time_seeks():
    """A seek from 1.2 s to 2.5 s selects rows 1200 to 2500 at 1000 rows a
    second, through each element, as numpy slices them; a reduction's
    result is over those rows."""
    Gst = gst()
    s = Gst.MSECOND
    cases = [
        ('planmap expr="2*x"', lambda a: 2 * a),
        ('planreduce op=mean axis=-1', lambda a: a.mean(axis=-1)),
        ('planstencil window="a; _; b" expr="a + b" boundary=nearest',
         lambda a: np.vstack([a[:1], a[:-1]]) + np.vstack([a[1:], a[-1:]])),
    ]
    for element, f in cases:
        for playing in (False, True):
            ok, got = seek_time(element, 1200 * s, 2500 * s, playing=playing)
            if not ok:
                raise Failure('%s: time seek refused' % element)
            plantest.assert_same(got, f(M[1200:2500]), element, rtol=1e-12)
    ok, got = seek_time('planmap expr="x"', 333 * s + 1, 1000 * s - 1,
                        rate='3/1')
    # At 3 rows a second row 0 spans 0 to 1/3 s and holds 0.333 s; the
    # rows that start before 1 s are 0, 1 and 2.
    if not ok:
        raise Failure('time seek at rate 3 refused')
    plantest.assert_same(got, M[0:3], 'rate 3: 0.333 s to 1 s')


def segment_at_sink(element, rate):
    Gst = gst()
    p = pipeline(element, rate)
    segs = []

    def on_event(pad, info):
        ev = info.get_event()
        if ev.type == Gst.EventType.SEGMENT:
            segs.append(ev.parse_segment())
        return Gst.PadProbeReturn.OK
    p.get_by_name('sink').get_static_pad('sink').add_probe(
        Gst.PadProbeType.EVENT_DOWNSTREAM, on_event)
    run_to_eos(p)
    return segs[-1]


def test_segments_in_time():
    """Rows sampled in time go in segments in time (sinks can sync to
    them), from the source and after map, stencil and a per-row reduction;
    in rows after a whole reduction and without a rate."""
    Gst = gst()
    chain = ('planmap expr="2*x" ! planstencil window="a; _; b" '
             'expr="a + b" ! planreduce op=mean axis=-1')
    seg = segment_at_sink(chain, '1000/1')
    if seg.format != Gst.Format.TIME or seg.stop not in (
            Gst.CLOCK_TIME_NONE, 5 * Gst.SECOND):
        raise Failure('after %s: %s' % (chain, seg.to_string()
                                         if hasattr(seg, 'to_string')
                                         else (seg.format, seg.stop)))
    for element, rate in (('planreduce op=sum', '1000/1'),
                          ('planmap expr="x"', None)):
        seg = segment_at_sink(element, rate)
        if seg.format != Gst.Format.DEFAULT:
            raise Failure('%s (rate %s): a segment in %s' %
                          (element, rate, seg.format))


def test_npyparse_rate():
    """npyparse's rate: caps, timestamps, a segment and a duration in
    time, through planmap."""
    Gst = gst()
    p = Gst.parse_launch('filesrc location=%s ! npyparse name=parse '
                         'rate=1000/1 blocksize=24000 ! planmap expr="2*x" '
                         '! fakesink name=sink signal-handoffs=true' % SRC)
    got, segs, caps = [], [], []

    def handoff(sink, buf, pad):
        got.append((buf.pts, buf.duration, buf.offset, buf.offset_end))

    def on_event(pad, info):
        ev = info.get_event()
        if ev.type == Gst.EventType.SEGMENT:
            segs.append(ev.parse_segment().format)
        elif ev.type == Gst.EventType.CAPS:
            caps.append(ev.parse_caps().get_structure(0))
        return Gst.PadProbeReturn.OK
    sink = p.get_by_name('sink')
    sink.connect('handoff', handoff)
    sink.get_static_pad('sink').add_probe(Gst.PadProbeType.EVENT_DOWNSTREAM,
                                          on_event)
    p.set_state(Gst.State.PAUSED)
    p.get_state(HANG * Gst.SECOND)
    ok, dur = p.get_by_name('parse').get_static_pad('src').query_duration(
        Gst.Format.TIME)
    if not ok or dur != 5 * Gst.SECOND:
        raise Failure('npyparse rate=1000/1: duration %s in time' % dur)
    run_to_eos(p)
    if not caps or rate_of(caps[-1]) != (1000, 1):
        raise Failure('npyparse rate=1000/1: caps %s' % caps)
    if segs[-1] != Gst.Format.TIME:
        raise Failure('npyparse rate=1000/1: a segment in %s' % segs[-1])
    for pts, dur, off, end in got:
        if pts != off * Gst.MSECOND or dur != (end - off) * Gst.MSECOND:
            raise Failure('npyparse: rows %d-%d at %s for %s' %
                          (off, end, pts, dur))


def handoff_rows(description):
    """The rows of each buffer that reaches `fakesink name=sink` of the
    pipeline `description`."""
    Gst = gst()
    p = Gst.parse_launch(description)
    got = []

    def handoff(sink, buf, pad):
        got.append(buf.offset_end - buf.offset)
    sink = p.get_by_name('sink')
    sink.set_property('signal-handoffs', True)
    sink.connect('handoff', handoff)
    run_to_eos(p)
    return got


def test_chunks_are_paced():
    """Rows sampled in time go in chunks of 100 ms of rows, or of 4 KiB
    where that is more, when the element chooses the size (a sink that
    syncs plays them in steps, an EOS on Ctrl-C ends them soon); a
    blocksize that is set is kept. M's rows are 24 bytes: 4 KiB is 170."""
    cases = [
        ('planfilesrc location=%s rate=1000/1' % SRC, 170),
        ('planfilesrc location=%s rate=20000/1' % SRC, 2000),
        ('planfilesrc location=%s rate=1000/1 blocksize=48000' % SRC, 2000),
        ('planfilesrc location=%s rate=1000/1 io-mode=read' % SRC, 170),
        ('filesrc location=%s blocksize=1048576 ! npyparse rate=1000/1'
         % SRC, 170),
        ('filesrc location=%s ! npyparse rate=1000/1 blocksize=48000' % SRC,
         2000),
        ('planfilesrc location=%s' % SRC, 5000),
    ]
    for src, want in cases:
        rows = handoff_rows(src + ' ! planmap expr="2*x" ! '
                            'fakesink name=sink')
        if sum(rows) != len(M) or max(rows) != want:
            raise Failure('%s: chunks of %s rows, expected at most %d, '
                          'and %d in all' % (src, rows[:4], want, len(M)))


def test_gst_launch_eos_on_interrupt():
    """gst-launch-1.0 -e and Ctrl-C 1 s into a 20 s stream played by a
    sink that syncs: the EOS ends it within a chunk, gst-launch exits 0,
    and planfilesink writes the rows that came, a valid .npy, where a
    chunk of the whole array had the sink wait for its end."""
    gst_launch = shutil.which('gst-launch-1.0')
    if gst_launch is None:
        print('     skipped: no gst-launch-1.0')
        return
    long_path = os.path.join(D, 'long.npy')
    a = np.arange(40000, dtype=np.float32).reshape(20000, 2)
    np.save(long_path, a)
    out = os.path.join(D, 'interrupted.npy')
    p = subprocess.Popen([gst_launch, '-e', 'planfilesrc', 'location=' +
                          long_path, 'rate=1000/1', '!', 'planmap',
                          'expr=x*2', '!', 'planfilesink', 'location=' + out,
                          'sync=true'], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    try:
        time.sleep(1.0)
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        log, _ = p.communicate(timeout=HANG)
        took = time.monotonic() - t0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    if p.returncode != 0 or 'CRITICAL' in log or 'WARNING' in log:
        raise Failure('gst-launch-1.0 -e exit %d:\n%s' % (p.returncode, log))
    if took > 10:
        raise Failure('the EOS took %.1f s to end the stream' % took)
    got = np.load(out)
    if not 0 < len(got) < len(a):
        raise Failure('%d of %d rows written' % (len(got), len(a)))
    plantest.assert_same(got, a[:len(got)] * 2, 'the rows before the EOS')


def test_time_refused_without_rate():
    """Without a rate, a seek in time is refused and the whole stream is
    written."""
    Gst = gst()
    ok, got = seek_time('planmap expr="x"', Gst.SECOND, 2 * Gst.SECOND,
                        rate=None)
    if ok:
        raise Failure('a time seek without a rate was accepted')
    plantest.assert_same(got, M, 'after a refused time seek')


ASK = 'array/x-raw,rate=1000/1'


def test_rate_asked_by_caps_filter():
    """planfilesrc without a rate of its own, a caps filter asking for
    rate=1000/1 downstream: the rows are read as rate=1000/1 reads them
    (the caps' rate, each buffer's time, the segment and queries in time,
    seeks in time, chunks of 100 ms of rows, a sink that syncs playing
    them in real time), not caps with a rate over buffers without time."""
    Gst = gst()
    s, bufs = sink_caps(ASK + ' ! planmap expr="2*x"', rate=None)
    want_s, want_bufs = sink_caps('planmap expr="2*x"', rate='1000/1')
    if rate_of(s) != (1000, 1) or bufs != want_bufs:
        raise Failure('with a caps filter: %s, buffers %s; rate=1000/1: '
                      '%s, buffers %s' % (s.to_string(), bufs[:2],
                                          want_s.to_string(), want_bufs[:2]))
    seg = segment_at_sink(ASK + ' ! planmap expr="x"', None)
    if seg.format != Gst.Format.TIME:
        raise Failure('a segment in %s' % seg.format)
    p = pipeline(ASK + ' ! planmap name=k expr="2*x"', rate=None)
    p.set_state(Gst.State.PAUSED)
    p.get_state(HANG * Gst.SECOND)
    for name in ('src', 'k'):
        dur, _ = query_in(p, name, Gst.Format.TIME)
        if dur != 5 * Gst.SECOND:
            p.set_state(Gst.State.NULL)
            raise Failure('%s: duration %s in time' % (name, dur))
    p.set_state(Gst.State.NULL)
    ok, got = seek_time(ASK + ' ! planmap expr="2*x"', 1200 * Gst.MSECOND,
                        2500 * Gst.MSECOND, rate=None)
    if not ok:
        raise Failure('a time seek refused')
    plantest.assert_same(got, 2 * M[1200:2500], 'a seek from 1.2 s to 2.5 s')
    rows = handoff_rows('planfilesrc location=%s ! %s ! fakesink name=sink'
                        % (SRC, ASK))
    if sum(rows) != len(M) or max(rows) != 170:
        raise Failure('chunks of %s rows, expected 170' % rows[:4])
    # 400 rows at 1000 a second, played by a sink that syncs: 0.4 s.
    short = os.path.join(D, 'short.npy')
    np.save(short, M[:400])
    t0 = time.monotonic()
    handoff_rows('planfilesrc location=%s ! %s ! fakesink name=sink '
                 'sync=true' % (short, ASK))
    took = time.monotonic() - t0
    if took < 0.3:
        raise Failure('0.4 s of rows played in %.3f s' % took)


def mixed_seek(flags, start, stop, rate2=None):
    """planmap of M sampled at 1000/1 and of N without a rate (sought in
    rows) into planfilesink; a seek in time with @flags once a row has
    reached the sink: returns (what the seek returned, the output)."""
    Gst = gst()
    out = os.path.join(D, 'mixed.npy')
    if os.path.exists(out):
        os.unlink(out)
    p = Gst.parse_launch(
        'planmap name=m expr="x - 2*y" ! planfilesink name=sink location=%s '
        'planfilesrc location=%s rate=1000/1 blocksize=2400 ! m.sink_0 '
        'planfilesrc location=%s %s blocksize=2400 ! m.sink_1'
        % (out, SRC, os.path.join(D, 'n.npy'),
           'rate=' + rate2 if rate2 else ''))
    return seek_when_arrived(p, out, flags, start, stop)


def test_mixed_rates_seek():
    """Inputs not all at the output's rate are sought in rows: a flushing
    seek in time gives numpy's rows of those times; one without FLUSH,
    which would start the output's running time again, is refused and the
    whole stream is written."""
    Gst = gst()
    s = Gst.MSECOND
    N = rng.standard_normal(M.shape)
    np.save(os.path.join(D, 'n.npy'), N)
    ok, got = mixed_seek(Gst.SeekFlags.FLUSH, 1200 * s, 2500 * s)
    if not ok:
        raise Failure('a flushing time seek of mixed rates was refused')
    plantest.assert_same(got, (M - 2 * N)[1200:2500], 'flushing seek')
    ok, got = mixed_seek(Gst.SeekFlags.ACCURATE, 1200 * s, 2500 * s)
    if ok:
        raise Failure('a seek without FLUSH of mixed rates was accepted')
    plantest.assert_same(got, M - 2 * N, 'after a refused seek')


def test_unflushed_seek_of_inputs():
    """A seek without FLUSH of a map of two inputs (both at the output's
    rate) is refused, and the whole stream is written: made, the chunk one
    input had sent before it paired with the other's first chunk after it
    (rows 1500-1600 twice, 1700-1800 missing), now and then."""
    Gst = gst()
    s = Gst.MSECOND
    N = rng.standard_normal(M.shape)
    np.save(os.path.join(D, 'n.npy'), N)
    ok, got = mixed_seek(Gst.SeekFlags.ACCURATE, 1500 * s, 1800 * s,
                         rate2='1000/1')
    if ok:
        raise Failure('a seek without FLUSH of two inputs was accepted')
    plantest.assert_same(got, M - 2 * N, 'after a refused seek')


CASES = [
    ('the rate through each element', test_rate_through_elements),
    ('buffers carry their rows\' time', test_buffers_carry_time),
    ('duration and position in time', test_time_queries),
    ('seeks in time through map, per-row reduce and stencil',
     test_time_seeks),
    ('segments in time', test_segments_in_time),
    ('npyparse rate', test_npyparse_rate),
    ('time refused without a rate', test_time_refused_without_rate),
    ('a rate asked for by a caps filter is taken',
     test_rate_asked_by_caps_filter),
    ('inputs at mixed rates: flushing seeks in rows, others refused',
     test_mixed_rates_seek),
    ('a seek without FLUSH of two inputs refused',
     test_unflushed_seek_of_inputs),
    ('chunks of rows sampled in time are paced', test_chunks_are_paced),
    ('gst-launch-1.0 -e ends a synced stream on Ctrl-C',
     test_gst_launch_eos_on_interrupt),
]

if __name__ == '__main__':
    plantest.run_cases(CASES)
