#!/usr/bin/python3
"""Seeks every few chunks while playing, through map, reduce and stencil:
after each seek the rows sought are a stream of their own, and the output
of the last one is numpy's over its rows. Flushing seeks in PAUSED with
spells of PLAYING between them: each range played to its end ends with
its own EOS and numpy's output over its rows. (Cycles, many pipelines,
EOS, flush and pause storms: tests/check/elements/stress.c.)
docs/reliability.md lists each behaviour with its test."""
import os
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import Failure, assert_same, gst, run_cases, tmpdir  # noqa: E402

HANG = 20
CHUNK = 50                      # rows per chunk
SEEKS = 12                      # seeks per run, each after EVERY chunks
EVERY = 3


def stencil_sum(b):
    z = np.zeros(1, b.dtype)
    p = np.concatenate([z, b, z])
    return p[:-2] + p[2:]


CASES_ELEMENTS = [
    ('planmap', 'planmap expr="x * 2 + 1"', lambda b: b * 2 + 1),
    ('planreduce sum', 'planreduce op=sum', lambda b: np.asarray(b.sum())),
    ('planreduce axis=-1', 'planreduce op=max axis=-1',
     lambda b: b.max(axis=1)),
    ('planstencil', 'planstencil window="x _ z" expr="x + z"', stencil_sum),
]


def run(element, want, a):
    """Plays planfilesrc ! element ! planfilesink and, every EVERY chunks
    the source pushes, seeks (flushing) to another range of rows; the last
    range runs to EOS. Returns the output and that range."""
    Gst = gst()
    d = tmpdir()
    src, dst = os.path.join(d, 'in.npy'), os.path.join(d, 'out.npy')
    np.save(src, a)
    p = Gst.parse_launch(
        'planfilesrc name=src blocksize=%d location=%s ! identity '
        'sleep-time=2000 ! %s ! planfilesink location=%s' %
        (CHUNK * a[0].nbytes, src, element, dst))
    rng = np.random.default_rng(7)
    pushed = [0]
    tick = threading.Condition()

    def count(pad, info):
        with tick:
            pushed[0] += 1
            tick.notify_all()
        return Gst.PadProbeReturn.OK
    p.get_by_name('src').get_static_pad('src').add_probe(
        Gst.PadProbeType.BUFFER, count)
    p.set_state(Gst.State.PLAYING)
    last = None
    for k in range(SEEKS):
        with tick:
            target = pushed[0] + EVERY
            if not tick.wait_for(lambda: pushed[0] >= target, HANG):
                raise Failure('%s: the source stopped before seek %d' %
                              (element, k))
        start = int(rng.integers(0, len(a) - 40 * CHUNK))
        stop = start + int(rng.integers(30 * CHUNK, 40 * CHUNK))
        if not p.seek(1.0, Gst.Format.DEFAULT, Gst.SeekFlags.FLUSH,
                      Gst.SeekType.SET, start, Gst.SeekType.SET, stop):
            raise Failure('%s: seek %d to [%d, %d) refused' %
                          (element, k, start, stop))
        last = (start, stop)
    msg = p.get_bus().timed_pop_filtered(
        HANG * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    if msg is None:
        raise Failure('%s: no EOS within %d s' % (element, HANG))
    if msg.type == Gst.MessageType.ERROR:
        raise Failure('%s: %s' % (element, msg.parse_error()[0].message))
    return np.load(dst), last


def test_seeks_every_few_chunks():
    for name, element, want in CASES_ELEMENTS:
        if 'axis=-1' in element:
            a = (np.arange(6000 * 3) % 89 - 30).astype(np.int32).reshape(
                6000, 3)
        else:
            a = (np.arange(6000) % 97 - 40).astype(np.float64)
        got, (start, stop) = run(element, want, a)
        assert_same(got, want(a[start:stop]), '%s, last range [%d, %d)' %
                    (name, start, stop))


def pause(p, what):
    Gst = gst()
    p.set_state(Gst.State.PAUSED)
    if p.get_state(HANG * Gst.SECOND)[0] != Gst.StateChangeReturn.SUCCESS:
        raise Failure('%s: PAUSED not reached within %d s' % (what, HANG))


def seek_rows(p, start, stop, what):
    """A flushing seek to rows [start, stop); returns its seqnum, which
    the pipeline's EOS message for that range carries."""
    Gst = gst()
    ev = Gst.Event.new_seek(1.0, Gst.Format.DEFAULT, Gst.SeekFlags.FLUSH,
                            Gst.SeekType.SET, start, Gst.SeekType.SET, stop)
    seqnum = ev.get_seqnum()
    if not p.send_event(ev):
        raise Failure('%s: seek to [%d, %d) refused' % (what, start, stop))
    return seqnum


SPELLS = 3                      # spells of PLAYING before each check
CHECKS = 6                      # ranges played to their end per pipeline


def test_flush_storm_playing_spells():
    """Per pipeline, CHECKS times: SPELLS flushing seeks in PAUSED, each
    followed by up to 2 ms of PLAYING and PAUSED again (ranges end while
    playing, while the pipeline goes to PAUSED, or not at all), then a
    last seek played to EOS. That EOS must be the range's own (the
    seqnum of its seek), not one left over from a range before, and the
    file numpy's over its rows."""
    Gst = gst()
    cases = [('planfilesrc ! planfilesink', '', lambda b: b)] + \
        CASES_ELEMENTS
    for name, element, want in cases:
        if 'axis=-1' in element:
            a = (np.arange(2000 * 3) % 89 - 30).astype(np.int32).reshape(
                2000, 3)
        else:
            a = (np.arange(2000) % 97 - 40).astype(np.float64)
        d = tmpdir()
        src, dst = os.path.join(d, 'in.npy'), os.path.join(d, 'out.npy')
        np.save(src, a)
        p = Gst.parse_launch(
            'planfilesrc blocksize=%d location=%s ! %s%splanfilesink '
            'location=%s' % (100 * a[0].nbytes, src, element,
                             ' ! ' if element else '', dst))
        bus = p.get_bus()
        rng = np.random.default_rng(11)
        try:
            pause(p, name)
            for c in range(CHECKS):
                for k in range(SPELLS):
                    start = int(rng.integers(0, len(a) - 10))
                    seek_rows(p, start, int(rng.integers(start + 5, len(a))),
                              name)
                    p.set_state(Gst.State.PLAYING)
                    time.sleep(float(rng.random()) * 0.002)
                    pause(p, name)
                # The EOS messages of ranges that ended while playing; no
                # error (a range the seek after it interrupts is not taken
                # for one cut short).
                while True:
                    msg = bus.pop()
                    if msg is None:
                        break
                    if msg.type == Gst.MessageType.ERROR:
                        raise Failure('%s, check %d: %s' % (
                            name, c, msg.parse_error()[0].message))
                start = int(rng.integers(0, len(a) // 2))
                stop = int(rng.integers(start + 100, len(a)))
                seqnum = seek_rows(p, start, stop, name)
                p.set_state(Gst.State.PLAYING)
                msg = bus.timed_pop_filtered(
                    HANG * Gst.SECOND,
                    Gst.MessageType.EOS | Gst.MessageType.ERROR)
                if msg is None:
                    raise Failure('%s: no EOS within %d s' % (name, HANG))
                if msg.type == Gst.MessageType.ERROR:
                    raise Failure('%s: %s' % (
                        name, msg.parse_error()[0].message))
                if msg.get_seqnum() != seqnum:
                    raise Failure(
                        '%s, check %d: the EOS of an earlier range (seqnum '
                        '%d), not of rows [%d, %d) (seqnum %d)' % (
                            name, c, msg.get_seqnum(), start, stop, seqnum))
                assert_same(np.load(dst), want(a[start:stop]),
                            '%s, check %d, rows [%d, %d)' % (
                                name, c, start, stop))
                pause(p, name)
        finally:
            p.set_state(Gst.State.NULL)


CASES = [
    ('seeks every few chunks while playing through map, reduce and '
     'stencil', test_seeks_every_few_chunks),
    ('flush storm with spells of PLAYING through map, reduce and stencil',
     test_flush_storm_playing_spells),
]

if __name__ == '__main__':
    run_cases(CASES)
