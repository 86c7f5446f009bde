#!/usr/bin/python3
"""Seeks every few chunks while playing, through map, reduce and stencil:
after each seek the rows sought are a stream of their own, and the output
of the last one is numpy's over its rows. (Cycles, many pipelines, EOS and
flush storms: tests/check/elements/stress.c.) docs/reliability.md lists
each behaviour with its test."""
import os
import sys
import threading

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import Failure, assert_same, run_cases, tmpdir  # noqa: E402

HANG = 20
CHUNK = 50                      # rows per chunk
SEEKS = 12                      # seeks per run, each after EVERY chunks
EVERY = 3


def gst():
    import gi
    gi.require_version('Gst', '1.0')
    from gi.repository import Gst
    if not Gst.is_initialized():
        Gst.init(None)
    return Gst


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


CASES = [
    ('seeks every few chunks while playing through map, reduce and '
     'stencil', test_seeks_every_few_chunks),
]

if __name__ == '__main__':
    run_cases(CASES)
