#!/usr/bin/python3
"""Errors that say what happened, when it happens: caps that an element
downstream does not take are one error naming the caps offered and the
caps wanted, and inputs whose lengths are known to differ fail before any
row is computed. docs/reliability.md lists each behaviour with its test."""
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import (Failure, assert_same, expect_error, gst_launch_1_0,  # noqa: E402
                      launch, run_cases, tmpdir)

TIMEOUT = 30


def gst_launch_fails(words):
    """Runs gst-launch-1.0 (what users run); it must fail, without leaving
    a file. Returns its output and the error lines."""
    p = gst_launch_1_0(words, TIMEOUT)
    if p.returncode == 0:
        raise Failure('exited 0: %s\n%s' % (' '.join(p.args), p.stdout))
    errors = [line for line in p.stdout.splitlines()
              if line.startswith('ERROR: from element')]
    return p.stdout, errors


def one_error(words, *needles):
    out, errors = gst_launch_fails(words)
    if len(errors) != 1:
        raise Failure('%d errors, not one:\n%s' % (len(errors), out))
    for n in needles:
        if n not in errors[0]:
            raise Failure('the error does not say %r:\n%s' % (n, out))
    return errors[0]


def files(n=1000, dtype=np.float32):
    d = tmpdir()
    src = os.path.join(d, 'in.npy')
    np.save(src, np.arange(n, dtype=dtype))
    return d, src


def left(d):
    return sorted(set(os.listdir(d)) - {'in.npy', 'b.npy'})


def test_source_caps_refused():
    """planfilesrc ! array/x-raw,dtype=float64 ! ... on a float32 file: one
    error, from planfilesrc, naming both caps, whatever follows."""
    for tail in (['planfilesink', 'location=OUT'],
                 ['planmap', 'expr=x * 2', '!', 'planfilesink',
                  'location=OUT'],
                 ['planreduce', '!', 'fakesink']):
        d, src = files()
        words = ['planfilesrc', 'location=' + src, '!',
                 'array/x-raw,dtype=float64', '!'] + \
            [w.replace('OUT', os.path.join(d, 'out.npy')) for w in tail]
        one_error(words, 'planfilesrc0', 'dtype=(string)float32',
                  'capsfilter0 does not accept', 'dtype=(string)float64')
        if left(d):
            raise Failure('left: %s' % left(d))


def test_source_caps_refused_later():
    """Caps that downstream stops taking while the stream runs (a caps
    filter set to another dtype): planfilesrc's negotiation fails with the
    error naming both caps, as at the start."""
    from plantest import gst
    Gst = gst()
    d, src = files(200000)
    p = Gst.parse_launch('planfilesrc location=%s blocksize=4096 ! '
                         'capsfilter name=f ! fakesink sync=true' % src)
    p.set_state(Gst.State.PAUSED)
    p.get_state(TIMEOUT * Gst.SECOND)
    p.get_by_name('f').set_property(
        'caps', Gst.Caps.from_string('array/x-raw,dtype=float64'))
    p.set_state(Gst.State.PLAYING)
    msg = p.get_bus().timed_pop_filtered(
        TIMEOUT * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    if msg is None or msg.type != Gst.MessageType.ERROR:
        raise Failure('no error: %s' % (msg and msg.type))
    err = msg.parse_error()[0].message
    want = ("'%s' holds array/x-raw, dtype=(string)float32, "
            "shape=(int)< 200000 >, which f does not accept: it takes "
            "array/x-raw, dtype=(string)float64." % src)
    if msg.src.get_name() != 'planfilesrc0' or err != want:
        raise Failure('from %s: %s' % (msg.src.get_name(), err))


def test_source_caps_taken_by_no_branch():
    """A tee whose branches each accept the file's caps (rows without a
    rate) but ask for different rates takes nothing: one error from
    planfilesrc at the start, saying so (it said that downstream took the
    caps, yet they could not be agreed on, then GstBaseSrc's "Internal
    data stream error")."""
    d, src = files()
    words = ['planfilesrc', 'location=' + src, '!', 'tee', 'name=t', '!',
             'queue', '!', 'array/x-raw,rate=10/1', '!', 'fakesink', 't.',
             '!', 'queue', '!', 'array/x-raw,rate=20/1', '!', 'fakesink']
    one_error(words, 'planfilesrc0', "holds array/x-raw, "
              "dtype=(string)float32, shape=(int)< 1000 >, which t does not "
              "accept: it takes nothing.")
    # branches that agree on a rate give it to the rows
    subprocess.run(['gst-launch-1.0', '-q', 'planfilesrc', 'location=' + src,
                    '!', 'tee', 'name=t', '!', 'queue', '!',
                    'array/x-raw,rate=10/1', '!', 'fakesink', 't.', '!',
                    'queue', '!', 'array/x-raw,rate=10/1', '!', 'fakesink'],
                   check=True, timeout=TIMEOUT)


def npy_with_rate(path, a, rate):
    """A .npy of the float32 1-D @a whose header carries a 'rate' key
    (which numpy does not write)."""
    header = ("{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), "
              "'rate': '%s', }" % (len(a), rate))
    pad = 64 - (10 + len(header) + 1) % 64
    header = (header + ' ' * (pad % 64) + '\n').encode('latin1')
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + len(header).to_bytes(2, 'little'))
        f.write(header)
        f.write(a.astype('<f4').tobytes())


def test_source_rate_refused():
    """A rate downstream asks for is taken only by rows without one: a
    file of another rate (set, or in its header) is one error naming both
    caps, and so is a rate that is not positive."""
    d, src = files()
    words = ['planfilesrc', 'location=' + src, 'rate=50/1', '!',
             'array/x-raw,rate=100/1', '!', 'fakesink']
    one_error(words, 'planfilesrc0', 'rate=(fraction)50/1',
              'capsfilter0 does not accept', 'rate=(fraction)100/1')
    header = os.path.join(d, 'b.npy')
    npy_with_rate(header, np.arange(100, dtype=np.float32), '50/1')
    words = ['planfilesrc', 'location=' + header, '!',
             'array/x-raw,rate=100/1', '!', 'fakesink']
    one_error(words, 'planfilesrc0', 'rate=(fraction)50/1',
              'capsfilter0 does not accept', 'rate=(fraction)100/1')
    for asked in ('0/1', '[0/1,100/1]'):
        words = ['planfilesrc', 'location=' + src, '!',
                 'array/x-raw,rate=' + asked, '!', 'fakesink']
        one_error(words, 'planfilesrc0', 'rows without a rate of their own',
                  'capsfilter0 does not accept',
                  'whose rate is not a positive number of rows a second')


def test_kernel_output_caps_refused():
    """planmap ! array/x-raw,dtype=float64 when the map gives float32: one
    error from planmap naming both caps (it used to say that an input ended
    before its caps were known)."""
    d, src = files()
    one_error(['planfilesrc', 'location=' + src, '!', 'planmap',
               'expr=x * 2', '!', 'array/x-raw,dtype=float64', '!',
               'planfilesink', 'location=' + os.path.join(d, 'out.npy')],
              'planmap0 produces', 'dtype=(string)float32',
              'capsfilter0 does not accept', 'dtype=(string)float64')
    if left(d):
        raise Failure('left: %s' % left(d))


def test_kernel_output_rate_refused():
    """planmap over rows without a rate, then a caps filter asking for one:
    the filter would take the caps and write its rate into those it passes
    on, over buffers without times. One error from planmap naming both."""
    d, src = files()
    one_error(['planfilesrc', 'location=' + src, '!', 'planmap',
               'expr=x * 2', '!', 'array/x-raw,rate=100/1', '!',
               'fakesink'],
              'planmap0 produces', 'dtype=(string)float32',
              'capsfilter0 does not accept', 'rate=(fraction)100/1')
    # rows with a rate pass as they are
    out = os.path.join(d, 'out.npy')
    subprocess.run(['gst-launch-1.0', '-q', 'planfilesrc', 'location=' + src,
                    'rate=100/1', '!', 'planmap', 'expr=x * 2', '!',
                    'array/x-raw,rate=100/1', '!', 'planfilesink',
                    'location=' + out], check=True, timeout=TIMEOUT)
    if not np.array_equal(np.load(out), np.arange(1000, dtype=np.float32) * 2):
        raise Failure('rows at the asked rate were not passed on as numpy '
                      'computes them')


def test_lengths_known_to_differ_fail_at_start():
    """Inputs of 6 and 100000 rows (their caps say so): the error comes
    before any row is computed. The long input is slowed down by identity
    to a chunk every 300 ms, so a check at its EOS would come after 30 s;
    the error must come within 10 s (starting the pipeline on a machine
    loaded by other tests can take seconds)."""
    d = tmpdir()
    a = os.path.join(d, 'in.npy')
    b = os.path.join(d, 'b.npy')
    np.save(a, np.arange(6, dtype=np.float32))
    np.save(b, np.arange(100000, dtype=np.float32))
    t = time.monotonic()
    one_error(['planmap', 'name=m', 'expr=x + y', '!', 'planfilesink',
               'location=' + os.path.join(d, 'out.npy'),
               'planfilesrc', 'location=' + a, '!', 'm.sink_0',
               'planfilesrc', 'location=' + b, 'blocksize=4000', '!',
               'identity', 'sleep-time=300000', '!', 'm.sink_1'],
              'Inputs have different lengths', 'sink_0 has 6 rows',
              'sink_1 has 100000 rows')
    took = time.monotonic() - t
    if took > 10:
        raise Failure('the error took %.1f s: found at EOS?' % took)
    if left(d):
        raise Failure('left: %s' % left(d))


def test_one_row_against_many_says_rows_do_not_broadcast():
    """numpy broadcasts a (1, 4) array against a (3, 4) one; streams meet
    row for row, and the error says so and what to do instead."""
    d = tmpdir()
    a, b = os.path.join(d, 'in.npy'), os.path.join(d, 'b.npy')
    np.save(a, np.ones((1, 4), np.float32))
    np.save(b, np.ones((3, 4), np.float32))
    one_error(['planmap', 'name=m', 'expr=x + y', '!', 'planfilesink',
               'location=' + os.path.join(d, 'out.npy'),
               'planfilesrc', 'location=' + a, '!', 'm.sink_0',
               'planfilesrc', 'location=' + b, '!', 'm.sink_1'],
              'sink_0 has 1 row but sink_1 has 3 rows',
              'Rows are not broadcast', 'constant')
    if left(d):
        raise Failure('left: %s' % left(d))


def test_stock_source_in_bytes():
    """filesrc numbers its buffers in bytes (its segment is in bytes): the
    rows a capsfilter makes of them are read as numpy.fromfile reads the
    file, and a buffer that jumps ahead is still refused as skipped rows."""
    d = tmpdir()
    raw = os.path.join(d, 'in.f32')
    a = np.arange(40000, dtype=np.float32).reshape(-1, 4)
    a.tofile(raw)
    caps = 'array/x-raw,dtype=float32,shape=<-1,4>'
    out = os.path.join(d, 'out.npy')
    launch('filesrc', 'location=' + raw, 'blocksize=4096', '!', caps, '!',
           'planmap', 'expr=2*x', '!', 'planfilesink', 'location=' + out)
    assert_same(np.load(out), 2 * a, 'filesrc ! planmap')
    launch('filesrc', 'location=' + raw, '!', caps, '!', 'planreduce',
           'op=sum', 'axis=0', '!', 'planfilesink', 'location=' + out)
    assert_same(np.load(out), a.sum(axis=0, dtype=np.float64)
                .astype(np.float32), 'filesrc ! planreduce axis=0', rtol=1e-7)
    # identity drops the first buffer (the discont one): the next starts
    # at byte 4096
    expect_error(['filesrc', 'location=' + raw, 'blocksize=4096', '!',
                  'identity', 'drop-buffer-flags=discont', '!', caps, '!',
                  'planmap', 'expr=2*x', '!', 'fakesink'],
                 'expected row 0 but got byte 4096 of its segment')

CASES = [
    ('caps a source offers and downstream refuses: one error naming both',
     test_source_caps_refused),
    ('caps downstream stops taking while the stream runs: the error '
     'naming both', test_source_caps_refused_later),
    ('a rate downstream asks for that the file cannot have: one error',
     test_source_rate_refused),
    ('caps that no branch of a tee takes: one error saying so',
     test_source_caps_taken_by_no_branch),
    ('caps a kernel element produces and downstream refuses: one error',
     test_kernel_output_caps_refused),
    ('a rate asked after a kernel element over rows without one: one '
     'error', test_kernel_output_rate_refused),
    ('inputs whose lengths are known to differ fail at start',
     test_lengths_known_to_differ_fail_at_start),
    ('a one-row input against many rows: the error says rows do not '
     'broadcast', test_one_row_against_many_says_rows_do_not_broadcast),
    ('a stock source numbering its buffers in bytes', test_stock_source_in_bytes),
]

if __name__ == '__main__':
    run_cases(CASES)
