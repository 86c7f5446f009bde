"""Plans sharded across MPI ranks (planfilesrc shard=mpi), launched by
mpirun with 1 to 4 ranks on this machine: every output must have the bytes
of the single-process run (and numpy's values), and a rank failing in the
middle must fail the job on every rank, with no output left."""
import glob
import math
import os
import re
import shutil
import stat
import subprocess
import sys

import numpy as np

import plantest
from plantest import Failure, mpirun

RANKS = (1, 2, 3, 4)
MPIRUN = plantest.MPIRUN


def same_bytes(a, b, what):
    with open(a, 'rb') as fa, open(b, 'rb') as fb:
        if fa.read() != fb.read():
            raise Failure('%s: %s differs from the single-process %s' % (what, a, b))


D = plantest.tmpdir()
rng = np.random.default_rng(17)
V32 = os.path.join(D, 'v32.npy')
M64 = os.path.join(D, 'm64.npy')
# Odd lengths: the ranks' shares differ, and blocks of the reduction tree
# straddle the ranks.
np.save(V32, (rng.standard_normal(200003) * 10.0 ** rng.integers(-3, 4, 200003))
        .astype(np.float32))
# Rows of 5: axis=0 reduces blocks of 13107 rows (docs/planreduce.md), four
# and an open one here, so that the columns' trees straddle the ranks.
m = rng.standard_normal((60001, 5))
m[rng.integers(0, 60001, 240), rng.integers(0, 5, 240)] = np.nan
np.save(M64, m)


def test_map_shared_output():
    a = np.load(M64)
    single = os.path.join(D, 'map1.npy')
    plantest.launch('planfilesrc', 'location=%s' % M64, '!', 'planmap',
                    'expr=x*2+x*x', '!', 'planfilesink',
                    'location=%s' % single)
    plantest.assert_same(np.load(single), a * 2 + a * a, 'map, one process')
    for n in RANKS:
        out = os.path.join(D, 'map-%d.npy' % n)
        mpirun(n, ['planfilesrc', 'location=%s' % M64, 'shard=mpi', '!', 'planmap',
                   'expr=x*2+x*x', '!', 'planfilesink', 'location=%s' % out])
        same_bytes(out, single, 'map on %d ranks' % n)
    if glob.glob(os.path.join(D, '.*.part')):
        raise Failure('temporary files left: %s' % glob.glob(os.path.join(D, '.*')))


def format_copies():
    """M64 as a deflated .npz member, a chunked gzip HDF5 dataset and a
    blosc Zarr array, where h5py and zarr are there; chunks of odd rows,
    so that the ranks' shares start and end inside chunks."""
    a = np.load(M64)
    out = {}
    npz = os.path.join(D, 'm64.npz')
    np.savez_compressed(npz, m=a)
    out['npz'] = npz
    try:
        import h5py
        if not plantest.built_with('hdf5'):
            raise ImportError('this build has no HDF5')
        h5 = os.path.join(D, 'm64.h5')
        with h5py.File(h5, 'w') as f:
            f.create_dataset('m', data=a, chunks=(1001, 3), compression='gzip')
        out['hdf5'] = h5
    except ImportError:
        pass
    try:
        import numcodecs
        import zarr
        if not plantest.built_with('zarr'):
            raise ImportError('this build has no Zarr')
        zs = os.path.join(D, 'm64.zarr')
        zarr.array(a, chunks=(777, 5), store=zs, compressor=numcodecs.Blosc())
        out['zarr'] = zs
    except ImportError:
        pass
    return out


def test_formats_sharded():
    """planfilesrc shard=mpi on a .npz member, an HDF5 dataset and a Zarr
    array: on 1-4 ranks, the shared output has the bytes of the
    single-process run (test_mpi_h5zarr.py writes HDF5 and Zarr outputs)."""
    single = os.path.join(D, 'fmt1.npy')
    plantest.launch('planfilesrc', 'location=%s' % M64, '!', 'planmap',
                    'expr=x*2+x*x', '!', 'planfilesink',
                    'location=%s' % single)
    for name, src in format_copies().items():
        for n in RANKS:
            out = os.path.join(D, 'fmt-%s-%d.npy' % (name, n))
            mpirun(n, ['planfilesrc', 'location=%s' % src, 'shard=mpi', '!',
                       'planmap', 'expr=x*2+x*x', '!', 'planfilesink',
                       'location=%s' % out])
            same_bytes(out, single, '%s on %d ranks' % (name, n))


def test_npz_output_per_rank_only():
    """A .npz output is one stream (checksummed, deflated): the ranks do not
    write one together (refused, nothing left), and per-rank writes one
    .npz each, whose arrays np.load gives back."""
    a = np.load(M64)
    d = plantest.tmpdir()
    out = os.path.join(d, 'o.npz')
    words = ['planfilesrc', 'location=%s' % M64, 'shard=mpi', '!',
             'planfilesink', 'location=%s' % out]
    text = mpirun(2, words, expect_ok=False)
    if 'do not write one .npz file together' not in text:
        raise Failure('shared .npz output: no clear error:\n%s' % text)
    if os.listdir(d):
        raise Failure('shared .npz output left %s' % os.listdir(d))
    mpirun(2, words + ['shard-output=per-rank', 'compression=1'])
    parts = []
    for r in range(2):
        with np.load(os.path.join(d, 'o.rank%d-of-2.npz' % r)) as z:
            parts.append(z['arr_0'])
    plantest.assert_same(np.concatenate(parts), a, '.npz per rank')


def test_output_not_a_regular_file():
    """The ranks' file is renamed over the output: a FIFO (or a device such
    as /dev/null) there is refused on every rank, and left as it was,
    where a rename would put a regular file in its place."""
    d = plantest.tmpdir()
    fifo = os.path.join(d, 'f.npy')
    os.mkfifo(fifo)
    text = mpirun(2, ['planfilesrc', 'location=%s' % M64, 'shard=mpi', '!',
                      'planfilesink', 'location=%s' % fifo], expect_ok=False)
    if 'must be a regular file or not exist yet, not a FIFO' not in text:
        raise Failure('a FIFO as a sharded output: no clear error:\n%s' % text)
    if not stat.S_ISFIFO(os.stat(fifo).st_mode) or os.listdir(d) != ['f.npy']:
        raise Failure('a FIFO as a sharded output was replaced or left '
                      'files: %s' % os.listdir(d))


def test_map_per_rank_files():
    a = np.load(V32)
    n = 3
    out = os.path.join(D, 'pr.npy')
    mpirun(n, ['planfilesrc', 'location=%s' % V32, 'shard=mpi', '!', 'planmap',
               'expr=x - 1', '!', 'planfilesink', 'location=%s' % out,
               'shard-output=per-rank'])
    parts = [np.load(os.path.join(D, 'pr.rank%d-of-%d.npy' % (r, n))) for r in range(n)]
    sizes = [len(p) for p in parts]
    if sizes != [66668, 66668, 66667]:
        raise Failure('per-rank shares %s, expected contiguous balanced shares' % sizes)
    plantest.assert_same(np.concatenate(parts), a - np.float32(1), 'per-rank files')


OPS = ['sum', 'prod', 'min', 'max', 'mean', 'argmin', 'argmax', 'any', 'all',
       'nansum', 'nanprod', 'nanmin', 'nanmax', 'nanmean', 'var', 'std',
       'nanvar', 'nanstd', 'count_nonzero', 'ptp']


def reduce_words(src, axes, shard):
    """One pipeline: every op and axis (and a custom combiner) on a tee,
    each result to its own file."""
    words = ['planfilesrc', 'location=%s' % src] + (['shard=mpi'] if shard else [])
    words += ['!', 'tee', 'name=t']
    files = []
    branches = [('op=%s' % op, op) for op in OPS]
    branches.append(('expr=x+y*1.0 identity=0', 'custom'))
    for axis in axes:
        for props, name in branches:
            f = '%s-%s' % (name, axis)
            files.append(f)
            words += ['t.', '!', 'queue', '!', 'planreduce'] + props.split() + [
                'axis=%s' % axis, '!', 'planfilesink', 'location=%s' % f]
    return words, files


def test_reductions_bit_identical():
    # Whole reductions of float32 and of 2-D float64 (with NaNs); per-column
    # (axis=0) and per-row (axis=-1) reductions of the 2-D array.
    for src, axes in ((V32, ['all']), (M64, ['all', '0', '-1'])):
        words, files = reduce_words(src, axes, False)
        base = os.path.join(D, 'red-1p')
        os.makedirs(base, exist_ok=True)
        plantest.launch(*[w if not w.startswith('location=') or w.endswith('.npy')
                          else 'location=%s/%s.npy' % (base, w[9:]) for w in words])
        if src == V32:
            a = np.load(src).astype(np.float64)
            want = np.float32(math.fsum(a))
            if np.load('%s/sum-all.npy' % base) != want:
                raise Failure('the single-process float32 sum is not the correctly '
                              'rounded %r' % want)
        for n in RANKS[1:]:
            d = os.path.join(D, 'red-%dp' % n)
            os.makedirs(d, exist_ok=True)
            words_n, _ = reduce_words(src, axes, True)
            mpirun(n, [w if not w.startswith('location=') or w.endswith('.npy')
                       else 'location=%s/%s.npy' % (d, w[9:]) for w in words_n])
            for f in files:
                what = '%s of %s on %d ranks' % (f, os.path.basename(src), n)
                same_bytes('%s/%s.npy' % (d, f), '%s/%s.npy' % (base, f), what)


def test_custom_kernel_sees_global_rows():
    # A plancustom kernel is told its rows' place in the whole stream
    # (first_row), as one process's is: fail_at (tests/examples) fails
    # from the call that holds row 190000 on. Sharded, each rank's kernel
    # counted from 0, so that no rank reached row 190000 and the job
    # succeeded where one process fails.
    fail = os.path.join(os.environ['PLAN_BUILD_DIR'], 'tests', 'examples',
                        'libfailing.so')
    out = os.path.join(D, 'custom.npy')
    kernel = ['plancustom', 'library=%s' % fail, 'symbol=fail_at']
    for n in RANKS:
        text = mpirun(n, ['planfilesrc', 'location=%s' % V32, 'shard=mpi',
                          'blocksize=40000', '!'] + kernel +
                      ['params=190000', '!', 'planfilesink',
                       'location=%s' % out], expect_ok=False)
        if 'bad value near row 190000' not in text or os.path.exists(out):
            raise Failure('%d ranks: the kernel did not fail at row 190000:\n%s'
                          % (n, text))
        mpirun(n, ['planfilesrc', 'location=%s' % V32, 'shard=mpi',
                   'blocksize=40000', '!'] + kernel + ['params=200003', '!',
                                                       'planfilesink',
                                                       'location=%s' % out])
        same_bytes(out, V32, 'fail_at past the end on %d ranks' % n)
        os.unlink(out)
    # After planstencil boundary=wrap the last rank's stream ends with the
    # first rows of the whole: they are a call of their own, from row 0.
    base = os.path.join(D, 'custom-wrap-1p.npy')
    words = ['planstencil', 'window=a b c', 'expr=a + b * c', 'boundary=wrap',
             '!'] + kernel + ['params=200003', '!', 'planfilesink']
    plantest.launch('planfilesrc', 'location=%s' % V32, '!', *words,
                    'location=%s' % base)
    for n in RANKS[1:]:
        mpirun(n, ['planfilesrc', 'location=%s' % V32, 'shard=mpi', '!'] +
               words + ['location=%s' % out])
        same_bytes(out, base, 'stencil wrap into plancustom on %d ranks' % n)
        os.unlink(out)


def test_reduce_result_on_every_rank():
    out = mpirun(3, ['-m', 'planfilesrc', 'location=%s' % V32, 'shard=mpi', '!',
                     'planreduce', 'op=max', '!', 'fakesink'])
    lines = [l for l in out.splitlines() if 'plan-reduce' in l]
    want = 'value=(double)%r' % float(np.load(V32).max())
    if len(lines) != 3 or not all(want in l and 'rows=(guint64)200003' in l
                                  for l in lines):
        raise Failure('expected the whole result (%s, 200003 rows) posted on each '
                      'of 3 ranks:\n%s' % (want, '\n'.join(lines)))


def test_reduce_per_rank_files():
    """A whole reduction's result is the same on every rank: with
    shard-output=per-rank each rank writes it, whole, to its own file."""
    n = 3
    out = os.path.join(D, 'rsum.npy')
    base = os.path.join(D, 'rsum-1p.npy')
    plantest.launch('planfilesrc', 'location=%s' % V32, '!', 'planreduce',
                    'op=sum', '!', 'planfilesink', 'location=%s' % base)
    mpirun(n, ['planfilesrc', 'location=%s' % V32, 'shard=mpi', '!',
               'planreduce', 'op=sum', '!', 'planfilesink',
               'location=%s' % out, 'shard-output=per-rank'])
    for r in range(n):
        same_bytes(os.path.join(D, 'rsum.rank%d-of-%d.npy' % (r, n)), base,
                   'rank %d of %d, per-rank whole sum' % (r, n))


def test_row_messages_name_global_rows():
    """axis=-1 with chunk-messages: each rank posts its chunks' values;
    their first-row is the row of the whole stream, so that the values of
    every rank's messages together are numpy's, each at its row (every
    rank said first-row=0 for its first chunk)."""
    src = os.path.join(D, 'rows103.npy')
    a = np.random.default_rng(9).standard_normal((103, 4))
    np.save(src, a)
    want = a.sum(axis=1)
    for n in (2, 3):
        out = mpirun(n, ['-m', 'planfilesrc', 'location=%s' % src, 'shard=mpi',
                         'blocksize=320', '!', 'planreduce', 'op=sum', 'axis=-1',
                         'chunk-messages=true', '!', 'fakesink'])
        got = np.full(len(a), np.nan)
        for values, first in re.findall(r'values=\(double\)< ([^>]*) >.*?'
                                        r'first-row=\(guint64\)(\d+)', out):
            v = np.array([float(x) for x in values.split(',')])
            f = int(first)
            if f + len(v) > len(a) or not np.isnan(got[f:f + len(v)]).all():
                raise Failure('%d ranks: values at first-row=%d overlap or '
                              'pass the end:\n%s' % (n, f, out))
            got[f:f + len(v)] = v
        if not np.allclose(got, want, rtol=1e-12, atol=1e-12):
            raise Failure('%d ranks: the messages\' values at their first-row '
                          'are not numpy\'s row sums:\n%s' % (n, out))


def test_failing_rank_fails_the_job():
    failio = os.path.join(os.environ['PLAN_BUILD_DIR'], 'tests', 'pipelines',
                          'libfailio.so')
    out = os.path.join(D, 'fail.npy')
    for n, bad in ((2, 1), (4, 2)):
        text = mpirun(n, ['planfilesrc', 'location=%s' % M64, 'shard=mpi', '!',
                          'planmap', 'expr=x * 3', '!', 'planfilesink',
                          'location=%s' % out],
                      rank_env={bad: {'LD_PRELOAD': failio, 'PLAN_FAIL_MATCH': 'fail.npy',
                                      'PLAN_FAIL_PWRITE': '28'}},
                      expect_ok=False)
        if 'No space left on device' not in text:
            raise Failure('the failing rank did not say why:\n%s' % text)
        told = text.count('rank %d failed' % bad)
        if told < n - 1:
            raise Failure('%d of the %d other ranks said rank %d failed:\n%s'
                          % (told, n - 1, bad, text))
        left = [f for f in os.listdir(D) if f.startswith('fail') or 'fail.npy' in f]
        if left:
            raise Failure('a failed job left %s' % left)


def test_chained_map_stencil_reduce():
    # map -> stencil -> (the stencil's rows to one shared file, and their
    # sum and max per column), every boundary mode along the first axis,
    # against one process running the map to a file and the stencil on it
    # (behind a kernel element, wrap cannot read its input's last rows out
    # of order in one process; the ranks pass them on).
    src = os.path.join(D, 'chain.npy')
    mapped = os.path.join(D, 'chain-mapped.npy')
    np.save(src, np.random.default_rng(3).standard_normal((3001, 9)))
    plantest.launch('planfilesrc', 'location=%s' % src, '!', 'planmap', 'expr=x*x-1',
                    '!', 'planfilesink', 'location=%s' % mapped)
    stencil = ['planstencil', 'window=_,n,_;w,c,e;_,s,_', 'expr=n+s+e+w-4*c']

    def tail(mode, tag):
        return (stencil + ['boundary=%s' % mode, '!', 'tee', 'name=t',
                           't.', '!', 'queue', '!', 'planfilesink',
                           'location=%s/chain-%s-%s.npy' % (D, mode, tag),
                           't.', '!', 'queue', '!', 'planreduce', 'op=sum', '!',
                           'planfilesink',
                           'location=%s/chain-sum-%s-%s.npy' % (D, mode, tag),
                           't.', '!', 'queue', '!', 'planreduce', 'op=max', 'axis=0',
                           '!', 'planfilesink',
                           'location=%s/chain-max-%s-%s.npy' % (D, mode, tag)])
    for mode in ('constant', 'nearest', 'reflect', 'mirror', 'wrap', 'valid'):
        plantest.launch(*(['planfilesrc', 'location=%s' % mapped, '!'] +
                          tail(mode, '1p')))
        for n in RANKS:
            mpirun(n, ['planfilesrc', 'location=%s' % src, 'shard=mpi', '!', 'planmap',
                       'expr=x*x-1', '!'] + tail(mode, '%dp' % n))
            for kind in ('chain', 'chain-sum', 'chain-max'):
                same_bytes('%s/%s-%s-%dp.npy' % (D, kind, mode, n),
                           '%s/%s-%s-1p.npy' % (D, kind, mode),
                           '%s with boundary=%s on %d ranks' % (kind, mode, n))
    _, out = plantest.launch('planfilesrc', 'location=%s' % src, '!', 'planmap',
                             'expr=x*x-1', '!', *stencil, 'boundary=wrap', '!',
                             'fakesink', expect_ok=False)
    if 'planmap0 cannot give them' not in out:
        raise Failure('wrap behind planmap in one process: no clear error:\n%s' % out)


def test_more_ranks_than_rows():
    # A rank without rows is refused (its elements would never learn the
    # stream's caps), and every rank says why; nothing is written.
    src = os.path.join(D, 'tiny.npy')
    out = os.path.join(D, 'tiny-out.npy')
    np.save(src, np.arange(3.0))
    text = mpirun(4, ['planfilesrc', 'location=%s' % src, 'shard=mpi', '!', 'planmap',
                      'expr=x+1', '!', 'planfilesink', 'location=%s' % out],
                  expect_ok=False)
    if text.count('rank 3 of 4 has no rows') < 4:
        raise Failure('not every rank said that rank 3 has no rows:\n%s' % text)
    if os.path.exists(out):
        raise Failure('a refused job wrote %s' % out)
    # An array without rows: no number of ranks would do, and the error
    # says so (it advised "run at most 1 ranks", on 1 rank too).
    empty = os.path.join(D, 'empty.npy')
    np.save(empty, np.zeros((0, 3)))
    words = ['planfilesrc', 'location=%s' % empty, 'shard=mpi', '!', 'planreduce',
             'op=sum', '!', 'planfilesink', 'location=%s' % out]
    needle = 'there are none to share (the array has none, or the offset and ' \
        'length read select none), and a sharded run needs a row on every ' \
        'rank; read it without shard=mpi'
    text = mpirun(2, words, expect_ok=False)
    if text.count(needle) < 2 or 'at most' in text:
        raise Failure('no rows on 2 ranks: not every rank said %r:\n%s' % (needle, text))
    plantest.expect_error(words, 'rank 0 of 1 has no rows: ' + needle)
    if os.path.exists(out):
        raise Failure('a refused job wrote %s' % out)
    # Rows that offset and length leave none of (the array has 3): the
    # message said 'the array has none'; one row on 2 ranks said '1 rows
    # are shared ...; run at most 1 ranks'.
    for n, select, said in ((2, 'offset=3', needle),
                            (2, 'offset=2', '1 row is shared among 2 ranks; '
                             'run 1 rank, or read it without shard=mpi')):
        words = ['planfilesrc', 'location=%s' % src, select, 'shard=mpi', '!',
                 'planfilesink', 'location=%s' % out]
        text = mpirun(n, words, expect_ok=False)
        if text.count(said) < 1 or 'rows are' in text or 'at most' in text:
            raise Failure('%s on %d ranks: not said %r:\n%s' % (select, n, said, text))
        if os.path.exists(out):
            raise Failure('a refused job wrote %s' % out)


def test_inputs_of_different_lengths():
    """A planmap of two sharded inputs of 11 and 12 rows: the ranks' shares
    differ, and every rank fails naming both streams' lengths (on 2 ranks,
    rank 0 has rows 0 + 6 of both, which alone does not show why), with
    no output left."""
    d = plantest.tmpdir()
    a11, a12 = os.path.join(d, 'a11.npy'), os.path.join(d, 'a12.npy')
    np.save(a11, np.arange(11.0))
    np.save(a12, np.arange(12.0))
    out = os.path.join(d, 'sum.npy')
    for n in (1, 2, 3):
        text = mpirun(n, ['planmap', 'name=m', 'expr=x+y', '!', 'planfilesink',
                          'location=%s' % out, 'planfilesrc', 'location=%s' % a11,
                          'shard=mpi', '!', 'm.sink_0', 'planfilesrc',
                          'location=%s' % a12, 'shard=mpi', '!', 'm.sink_1'],
                      expect_ok=False)
        lines = [l for l in text.splitlines() if 'different shares' in l]
        if len(lines) != n or not all(
                ' of 12' in l and ' of 11' in l and 'the same number of rows' in l
                for l in lines):
            raise Failure('%d ranks, inputs of 11 and 12 rows: not every rank '
                          'named both lengths:\n%s' % (n, text))
        left = sorted(set(os.listdir(d)) - {'a11.npy', 'a12.npy'})
        if left:
            raise Failure('a refused job left %s' % left)


def test_sharded_and_whole_inputs():
    """A planmap of a sharded input of 10 rows and one of 5 read without
    shard=mpi: on 2 ranks each rank's share (5 rows) met the whole other
    input row for row, and the job wrote a[5:] + b[:5] in rows 5-9 with
    status 0; every rank must refuse it, saying which input is not
    sharded. On 3 ranks the lengths differ, and the error says why."""
    d = plantest.tmpdir()
    a10, b5 = os.path.join(d, 'a10.npy'), os.path.join(d, 'b5.npy')
    np.save(a10, np.arange(10.0))
    np.save(b5, np.arange(5.0) * 100)
    out = os.path.join(d, 'mix.npy')
    words = ['planmap', 'name=m', 'expr=x+y', '!', 'planfilesink',
             'location=%s' % out, 'planfilesrc', 'location=%s' % a10,
             'shard=mpi', '!', 'm.sink_0', 'planfilesrc', 'location=%s' % b5,
             '!', 'm.sink_1']
    for n, needle in ((2, 'but sink_1 is not sharded, so every rank has all '
                          'of its rows'),
                      (3, 'Some inputs are this rank\'s share of a sharded '
                          'stream and others are not')):
        text = mpirun(n, words, expect_ok=False)
        if text.count(needle) != n or text.count('shard=mpi (planfilesrc)') != n:
            raise Failure('%d ranks, a sharded and a whole input: not every rank '
                          'said so (%r):\n%s' % (n, needle, text))
        left = sorted(set(os.listdir(d)) - {'a10.npy', 'b5.npy'})
        if left:
            raise Failure('a refused job left %s' % left)


SEEK_SCRIPT = """
import sys, gi
gi.require_version('Gst', '1.0')
from gi.repository import Gst
Gst.init(None)
p = Gst.parse_launch(sys.argv[1])
p.set_state(Gst.State.PAUSED)
p.get_state(10 * Gst.SECOND)
ok = p.seek(1.0, Gst.Format.DEFAULT, Gst.SeekFlags.FLUSH, Gst.SeekType.SET, 10,
            Gst.SeekType.SET, 20)
p.set_state(Gst.State.PLAYING)
m = p.get_bus().timed_pop_filtered(30 * Gst.SECOND,
                                   Gst.MessageType.EOS | Gst.MessageType.ERROR)
p.set_state(Gst.State.NULL)
sys.stdout.write('seek %s end %s\\n' % (ok, m.type.first_value_nick if m else None))
sys.stdout.flush()
"""


def test_seek_refused_when_sharded():
    # Each rank's seek would be its own: refused, and the run goes on to
    # its end with the whole result.
    out = os.path.join(D, 'seek-sum.npy')
    cmd = [MPIRUN, '--allow-run-as-root', '--oversubscribe', '-np', '2',
           '/usr/bin/python3', '-c', SEEK_SCRIPT,
           'planfilesrc location=%s shard=mpi ! planmap expr=x*2 ! planreduce '
           'op=sum ! planfilesink location=%s' % (V32, out)]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120)
    # The ranks' lines may interleave, even within a line ('seek False end
    # seek False end eoseos'): count the pieces.
    if (p.returncode != 0 or p.stdout.count('seek False') != 2
            or p.stdout.count('eos') != 2 or 'True' in p.stdout
            or 'error' in p.stdout):
        raise Failure('expected the seek refused and EOS on both ranks:\n%s'
                      % p.stdout)
    one = os.path.join(D, 'seek-sum-1.npy')
    plantest.launch('planfilesrc', 'location=%s' % V32, '!', 'planmap', 'expr=x*2',
                    '!', 'planreduce', 'op=sum', '!', 'planfilesink',
                    'location=%s' % one)
    same_bytes(out, one, 'the sum after a refused seek')


def test_without_mpi_build():
    # The same pipeline outside mpirun is a job of one rank.
    out = os.path.join(D, 'solo.npy')
    plantest.launch('planfilesrc', 'location=%s' % V32, 'shard=mpi', '!',
                    'planfilesink', 'location=%s' % out)
    same_bytes(out, V32, 'shard=mpi without mpirun')


def test_mpi_loaded_on_first_use():
    """Open MPI is loaded by a process that asks for its communicator
    (shard=mpi), not by one that runs no sharded plan; without the MPI
    module beside libplan, shard=mpi fails with an error naming the module
    and where it was looked for (a plan without it still runs)."""
    d = plantest.tmpdir()

    def run(shard, **env):
        words = ['planfilesrc', 'location=%s' % V32] + \
            (['shard=mpi'] if shard else []) + \
            ['!', 'planreduce', 'op=sum', '!', 'fakesink']
        p = subprocess.run(plantest.launcher() + ['-q'] + words,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=120, env=dict(os.environ, **env))
        return p.returncode, p.stdout

    for shard in (False, True):
        rc, out = run(shard, LD_DEBUG='files')
        if rc != 0:
            raise Failure('shard=mpi %s: rc %d\n%s' % (shard, rc, out[-2000:]))
        if ('libmpi.so' in out) != shard:
            raise Failure('libmpi %s' % ('not loaded by shard=mpi' if shard
                                         else 'loaded at start-up'))

    # libplan alone in a folder the dynamic linker searches first.
    alone = plantest.libplan_alone(d)
    if alone is None:
        return
    rc, out = run(True, LD_LIBRARY_PATH=alone)
    if rc == 0 or "MPI module (libplan-mpi.so) could not be loaded" \
            not in out or os.path.join(alone, 'libplan-mpi.so') not in out:
        raise Failure('no module: rc %d\n%s' % (rc, out))
    rc, out = run(False, LD_LIBRARY_PATH=alone)
    if rc != 0:
        raise Failure('no module, not sharded: rc %d\n%s' % (rc, out))


def mpmd(*rank_words, timeout=60):
    """Runs one pipeline per rank (mpirun's MPMD form, one rank each);
    returns (returncode, output). A job that hangs fails the test."""
    cmd = [MPIRUN, '--allow-run-as-root', '--oversubscribe']
    for i, words in enumerate(rank_words):
        cmd += ([':'] if i else []) + ['-np', '1'] + plantest.launcher() + \
            ['-q'] + [str(w) for w in words]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failure('the job hung: %s' % ' '.join(cmd))
    return p.returncode, p.stdout


def test_ranks_must_run_the_same_plan():
    # Each difference fails every rank at start, naming it, where the job
    # gave a wrong result (sum on one rank, max on the other) or hung.
    src = ['planfilesrc', 'location=%s' % V32, 'shard=mpi', '!']
    red = ['planreduce', 'op=sum', '!', 'fakesink']
    cases = [
        (src + red, src + ['planreduce', 'op=max', '!', 'fakesink'],
         'planreduce0 has op=max on rank 1 but op=(default) on rank 0'),
        (src + red, src + ['planstencil', 'window=w c e', 'expr=w + c + e',
                           '!', 'fakesink'],
         'planfilesrc0 has src->/GstPipeline:pipeline0/PlanStencil:'
         'planstencil0.sink on rank 1'),
        (src + red, src + ['planreduce', 'name=total', 'op=sum', '!',
                           'fakesink'],
         'planfilesrc0 has src->/GstPipeline:pipeline0/PlanReduce:total.sink '
         'on rank 1'),
        (src + red, src[:2] + ['!'] + red,
         'planfilesrc0 has shard=(default) on rank 1 but shard=mpi on rank 0'),
    ]
    for a, b, needle in cases:
        rc, text = mpmd(a, b)
        if rc == 0 or 'the ranks do not run the same plan' not in text \
                or needle not in text:
            raise Failure('exit %d, expected an error saying %r:\n%s' %
                          (rc, needle, text))
        if text.count('the ranks do not run the same plan') < 2:
            raise Failure('not every rank said so:\n%s' % text)
    # The same plan given twice this way runs.
    rc, text = mpmd(src + red, src + red)
    if rc != 0:
        raise Failure('the same plan on both ranks failed:\n%s' % text)


def test_killed_rank_leaves_no_temporary_file():
    # Rank 1 or 2 killed while the ranks write the shared output: mpirun
    # ends the others with SIGTERM, which gst-launch-1.0 does not handle;
    # rank 0 removes its .NAME.XXXXXX.part all the same.
    import signal
    import time
    gst = shutil.which('gst-launch-1.0')
    d = plantest.tmpdir()
    out = os.path.join(d, 'killme.npy')
    for sig, victim in ((signal.SIGKILL, 1), (signal.SIGTERM, 2)):
        cmd = [MPIRUN, '--allow-run-as-root', '--oversubscribe', '-np', '3',
               gst, '-q', 'planfilesrc', 'location=%s' % V32, 'shard=mpi',
               'blocksize=4000', '!', 'identity', 'sleep-time=50000', '!',
               'planmap', 'expr=x * 2', '!', 'planfilesink',
               'location=%s' % out]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        try:
            deadline = time.monotonic() + 60
            pid = None
            while pid is None or not glob.glob(d + '/.killme.npy.*.part'):
                if p.poll() is not None or time.monotonic() > deadline:
                    raise Failure('no shared output being written: %s' %
                                  (p.stdout.read() if p.poll() is not None
                                   else 'timeout'))
                time.sleep(0.05)
                pid = pid or plantest.mpi_rank_pid(victim, 'gst-launch-1.0',
                                                   'killme.npy')
            os.kill(pid, sig)
            text, _ = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        if p.returncode == 0:
            raise Failure('the job ended well after rank %d was killed' %
                          victim)
        if os.listdir(d):
            raise Failure('%s to rank %d left %s' % (sig.name, victim,
                                                    os.listdir(d)))


def test_hangup_that_does_not_end_a_rank():
    # A SIGHUP that rank 0 survives (gst-launch-1.0 takes it to write its
    # graph; plan-launch under nohup ignores it) while the ranks write the
    # shared output: the run goes on, so its file must stay, where the
    # SIGTERM handler's cleanup removed it and the job failed at its end
    # ("could not rename ...: No such file or directory").
    import signal
    import time
    d = plantest.tmpdir()
    out = os.path.join(d, 'hupme.npy')
    launchers = [([shutil.which('gst-launch-1.0')], 'gst-launch-1.0'),
                 (['sh', '-c', 'trap "" HUP; exec "$@"', 'sh'] +
                  plantest.launcher(), plantest.launcher()[0])]
    for fmt in ('npy', 'h5'):
        target = out if fmt == 'npy' else out[:-4] + '.h5'
        extra = [] if fmt == 'npy' else ['compression=1']
        for launch, name in launchers:
            cmd = [MPIRUN, '--allow-run-as-root', '--oversubscribe', '-np',
                   '2'] + launch + ['-q', 'planfilesrc', 'location=%s' % V32,
                                    'shard=mpi', 'blocksize=4000', '!',
                                    'identity', 'sleep-time=50000', '!',
                                    'planmap', 'expr=x * 2', '!',
                                    'planfilesink', 'location=%s' % target,
                                    'name=hupme'] + extra
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
            try:
                deadline = time.monotonic() + 60
                pid = None
                # Rank 1's spool: rank 0 has made the compressed file.
                while pid is None or not glob.glob(d + '/.hupme.*.' + (
                        'part' if fmt == 'npy' else 's1')):
                    if p.poll() is not None or time.monotonic() > deadline:
                        raise Failure('no shared output being written: %s' %
                                      (p.stdout.read() if p.poll() is not None
                                       else 'timeout'))
                    time.sleep(0.05)
                    pid = pid or plantest.mpi_rank_pid(0, name, 'hupme')
                os.kill(pid, signal.SIGHUP)
                text, _ = p.communicate(timeout=120)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.wait()
            what = 'SIGHUP to rank 0 of %s writing .%s' % (name, fmt)
            if p.returncode != 0:
                raise Failure('%s failed the job:\n%s' % (what, text))
            if os.listdir(d) != [os.path.basename(target)]:
                raise Failure('%s left %s' % (what, os.listdir(d)))
            if fmt == 'npy':
                plantest.assert_same(np.load(target), np.load(V32) * np.float32(2),
                                     what)
            os.unlink(target)


def own_view(n, words, rank, mounts, timeout=60):
    """Runs `words` on n ranks, rank `rank` in a mount namespace of its
    own where the shell commands `mounts` ran first: the view of a host
    whose files differ from the others'. Returns (returncode, output); a
    job that hangs fails the test."""
    script = ('if [ "$OMPI_COMM_WORLD_RANK" = %d ]; then exec unshare -m sh -c '
              '\'%s && exec "$@"\' sh "$@"; fi; exec "$@"'
              % (rank, ' && '.join(mounts)))
    cmd = [MPIRUN, '--allow-run-as-root', '--oversubscribe', '-np', str(n),
           'sh', '-c', script, 'sh'] + plantest.launcher() + ['-q'] + \
        [str(w) for w in words]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    try:
        text, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # mpirun passes SIGTERM on to the ranks; SIGKILL would leave them.
        p.terminate()
        try:
            p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
        raise Failure('the job hung: %s' % ' '.join(cmd))
    return p.returncode, text


def can_mount():
    """Whether this process may give a child a mount namespace of its own
    (root, or a user namespace's root)."""
    d = plantest.tmpdir()
    p = subprocess.run(['unshare', '-m', 'sh', '-c', 'mount -t tmpfs tmpfs %s' % d],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.returncode == 0


def view_dirs():
    d = plantest.tmpdir()
    src, out = os.path.join(d, 'in'), os.path.join(d, 'out')
    os.mkdir(src)
    os.mkdir(out)
    return d, src, out


def expect_every_rank(n, rc, text, needle, out_dir):
    if rc == 0:
        raise Failure('the job ended well:\n%s' % text)
    if text.count(needle) < n:
        raise Failure('not every rank of %d said %r:\n%s' % (n, needle, text))
    if os.listdir(out_dir):
        raise Failure('a failed job left %s' % os.listdir(out_dir))


def test_input_missing_on_one_rank():
    # Rank 1 cannot open its input (its host lacks the file): every rank
    # fails, naming rank 1 and why, where the others waited for ever.
    if not can_mount():
        print('  (skipped: no mount namespace for one rank)')
        return
    d, src, out = view_dirs()
    shutil.copy(M64, os.path.join(src, 'm.npy'))
    for n, tail in ((2, ['planmap', 'expr=x * 3', '!', 'planfilesink',
                         'location=%s/o.npy' % out]),
                    (3, ['planreduce', 'op=sum', '!', 'planfilesink',
                         'location=%s/o.npy' % out])):
        rc, text = own_view(n, ['planfilesrc', 'location=%s/m.npy' % src,
                                'shard=mpi', '!'] + tail, 1,
                            ['mount -t tmpfs tmpfs %s' % src])
        expect_every_rank(n, rc, text, "Could not open '%s/m.npy'" % src, out)
        if text.count('rank 1 failed') < n - 1:
            raise Failure('the other ranks did not name rank 1:\n%s' % text)


def test_input_differs_on_one_rank():
    # Rank 1's copy of the input has another dtype, or fewer rows: the
    # ranks refuse at start, every one naming the difference, where the
    # job wrote rank 1's float32 rows into the float64 file (and reported
    # success) or summed rows that do not line up.
    if not can_mount():
        print('  (skipped: no mount namespace for one rank)')
        return
    d, src, out = view_dirs()
    a = np.load(M64)
    np.save(os.path.join(src, 'm.npy'), a)
    np.save(os.path.join(d, 'f32.npy'), a.astype(np.float32))
    np.save(os.path.join(d, 'short.npy'), a[:50000])
    cases = ((2, 'f32.npy', ['planmap', 'expr=x * 3'],
              'rank 1 has 60001 rows of float32 (5,) where rank 0 has 60001 rows '
              'of float64 (5,)'),
             (3, 'short.npy', ['planreduce', 'op=sum'],
              'rank 1 has 50000 rows of float64 (5,) where rank 0 has 60001 rows '
              'of float64 (5,)'))
    for n, other, element, needle in cases:
        rc, text = own_view(n, ['planfilesrc', 'location=%s/m.npy' % src,
                                'shard=mpi', '!'] + element +
                            ['!', 'planfilesink', 'location=%s/o.npy' % out], 1,
                            ['mount --bind %s/%s %s/m.npy' % (d, other, src)])
        expect_every_rank(n, rc, text, needle, out)
        if text.count('the ranks do not read the same array') < n:
            raise Failure('not every rank said why:\n%s' % text)


def test_output_unseen_by_one_rank():
    # Rank 1 does not see the directory rank 0 made the shared output's
    # temporary file in (its host lacks the shared file system): every
    # rank fails naming rank 1, where rank 1 waited for a verdict that
    # never came and rank 0 for rank 1's rows.
    if not can_mount():
        print('  (skipped: no mount namespace for one rank)')
        return
    d, src, out = view_dirs()
    for n in (2, 3):
        rc, text = own_view(n, ['planfilesrc', 'location=%s' % M64, 'shard=mpi',
                                '!', 'planmap', 'expr=x * 3', '!', 'planfilesink',
                                'location=%s/o.npy' % out], 1,
                            ['mount -t tmpfs tmpfs %s' % out])
        expect_every_rank(n, rc, text, 'rank 1 does not see the shared output', out)


def main():
    if MPIRUN is None:
        print('skip: no mpirun (Open MPI: openmpi-bin)')
        return 77
    probe = subprocess.run(plantest.launcher() + ['-q', 'planfilesrc', 'location=%s' % V32,
                                                  'shard=mpi', '!', 'fakesink'],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if 'no MPI support' in probe.stdout:
        print('skip: this build has no MPI support')
        return 77
    plantest.run_cases([
        ('a map on 1-4 ranks writes the single-process file', test_map_shared_output),
        ('one file per rank, balanced contiguous shares', test_map_per_rank_files),
        ('a .npz output: per rank only', test_npz_output_per_rank_only),
        ('.npz, HDF5 and Zarr sources on 1-4 ranks', test_formats_sharded),
        ('every reduce op and axis on 1-4 ranks is bit-identical',
         test_reductions_bit_identical),
        ('a custom kernel sees the rows of the whole stream',
         test_custom_kernel_sees_global_rows),
        ('the result is posted on every rank', test_reduce_result_on_every_rank),
        ('a whole result, per-rank: every rank writes it whole',
         test_reduce_per_rank_files),
        ('axis=-1 chunk messages give rows of the whole stream',
         test_row_messages_name_global_rows),
        ('a rank failing mid-run fails every rank, no output', test_failing_rank_fails_the_job),
        ('a FIFO as the output: refused, left in place',
         test_output_not_a_regular_file),
        ('map -> stencil -> file, sum and max on 1-4 ranks, every boundary mode',
         test_chained_map_stencil_reduce),
        ('more ranks than rows: refused on every rank', test_more_ranks_than_rows),
        ('sharded inputs of different lengths: every rank names both',
         test_inputs_of_different_lengths),
        ('a sharded and a whole input: refused on every rank',
         test_sharded_and_whole_inputs),
        ('a seek in a sharded run is refused, the run ends whole',
         test_seek_refused_when_sharded),
        ('shard=mpi outside mpirun', test_without_mpi_build),
        ('Open MPI is loaded on first use', test_mpi_loaded_on_first_use),
        ('ranks that run different plans fail together at start',
         test_ranks_must_run_the_same_plan),
        ('a rank killed mid-write: no temporary file left',
         test_killed_rank_leaves_no_temporary_file),
        ('a SIGHUP that rank 0 survives: the shared output is written',
         test_hangup_that_does_not_end_a_rank),
        ('the input missing on one rank: every rank fails, naming it',
         test_input_missing_on_one_rank),
        ('the input differs on one rank: every rank refuses it at start',
         test_input_differs_on_one_rank),
        ('the output unseen by one rank: every rank fails, naming it',
         test_output_unseen_by_one_rank),
    ])


sys.exit(main())
