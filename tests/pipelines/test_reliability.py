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
from plantest import Failure, assert_same, launch, run_cases, tmpdir  # noqa: E402

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
]

if __name__ == '__main__':
    run_cases(CASES)
