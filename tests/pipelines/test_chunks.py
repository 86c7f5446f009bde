"""The size of planfilesrc's chunks: with blocksize=0, a mapped file goes
out in 2 MiB chunks, or in the size downstream asks for in the allocation
query (planreduce on the CPU: 16 MiB); an explicit blocksize and read
chunks are not affected, and the reduction's result does not depend on
the chunking (against numpy, and byte for byte between chunkings)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import plantest  # noqa: E402
from plantest import Failure, gst  # noqa: E402

MIB = 1 << 20
D = plantest.tmpdir()
rng = np.random.default_rng(5)
# 40 MiB of float32 rows of 8, and 4 KiB: two 16 MiB chunks and the rest.
X = rng.standard_normal(((40 * MIB + 4096) // 32, 8)).astype(np.float32)
SRC = os.path.join(D, 'x.npy')
np.save(SRC, X)


def chunk_sizes(src_words, downstream, out=None):
    """Runs planfilesrc SRC_WORDS ! DOWNSTREAM ! planfilesink/fakesink and
    returns the sizes of the buffers planfilesrc pushed."""
    Gst = gst()
    sink = 'planfilesink location=%s' % out if out else 'fakesink'
    p = Gst.parse_launch('planfilesrc name=src location=%s %s ! %s ! %s'
                         % (SRC, src_words, downstream, sink))
    sizes = []

    def probe(pad, info):
        sizes.append(info.get_buffer().get_size())
        return Gst.PadProbeReturn.OK

    p.get_by_name('src').get_static_pad('src').add_probe(
        Gst.PadProbeType.BUFFER, probe)
    p.set_state(Gst.State.PLAYING)
    msg = p.get_bus().timed_pop_filtered(
        60 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    if msg is None:
        raise Failure('%s ! %s did not end' % (src_words, downstream))
    if msg.type == Gst.MessageType.ERROR:
        raise Failure('%s ! %s failed: %s' % (src_words, downstream,
                                              msg.parse_error()[0].message))
    if sum(sizes) != X.nbytes:
        raise Failure('%s ! %s: %d bytes pushed, not %d'
                      % (src_words, downstream, sum(sizes), X.nbytes))
    return sizes


def expect_chunks(sizes, chunk, what):
    want = [chunk] * (X.nbytes // chunk)
    if X.nbytes % chunk:
        want.append(X.nbytes % chunk)
    if sizes != want:
        raise Failure('%s: chunks of %s bytes, not %d' % (
            what, sorted(set(sizes)), chunk))


def test_reduction_asks_for_large_chunks():
    out = os.path.join(D, 'sum.npy')
    sizes = chunk_sizes('', 'planreduce op=sum axis=0', out)
    expect_chunks(sizes, 16 * MIB, 'planreduce')
    plantest.assert_same(np.load(out), X.sum(axis=0, dtype=np.float64).astype(
        np.float32), 'the column sums in 16 MiB chunks', rtol=1e-6)


def test_other_consumers_keep_the_default():
    expect_chunks(chunk_sizes('', 'planmap expr="x * 2"'), 2 * MIB,
                  'planmap')
    expect_chunks(chunk_sizes('', 'identity'), 2 * MIB, 'identity')


def test_explicit_blocksize_and_read_chunks_win():
    expect_chunks(chunk_sizes('blocksize=%d' % MIB, 'planreduce op=sum'),
                  MIB, 'blocksize=1 MiB into planreduce')
    expect_chunks(chunk_sizes('io-mode=read', 'planreduce op=sum'), MIB,
                  'io-mode=read into planreduce')


def test_result_does_not_depend_on_the_chunks():
    results = []
    for words in ('', 'blocksize=%d' % (3 * MIB + 32), 'io-mode=read'):
        out = os.path.join(D, 'r.npy')
        chunk_sizes(words, 'planreduce op=var axis=0', out)
        with open(out, 'rb') as f:
            results.append(f.read())
        got = np.load(out)
        os.unlink(out)
    if len(set(results)) != 1:
        raise Failure('the variances differ between chunkings')
    plantest.assert_same(got, X.var(axis=0, dtype=np.float64).astype(
        np.float32), 'the column variances', rtol=1e-5)


CASES = [
    ('planreduce asks planfilesrc for 16 MiB chunks',
     test_reduction_asks_for_large_chunks),
    ('other consumers get 2 MiB chunks', test_other_consumers_keep_the_default),
    ('an explicit blocksize and read chunks are kept',
     test_explicit_blocksize_and_read_chunks_win),
    ('the result is the same in any chunks',
     test_result_does_not_depend_on_the_chunks),
]

if __name__ == '__main__':
    plantest.run_cases(CASES)
