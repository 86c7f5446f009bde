#!/usr/bin/python3
"""planstencil sharded across MPI ranks (planfilesrc shard=mpi), run by
mpirun with 1, 2, 3 and 4 ranks on this machine: each rank writes its
output rows to a file of its own; the files in rank order (rotated by the
halo with boundary=wrap, whose last rank ends with global rows 0..h-1) must
be, byte for byte, what the single-process pipeline writes (which
test_stencil.py checks against scipy). Every boundary mode, 1-D, 2-D and
3-D inputs (a window over three axes), a stencil over two inputs, windows of radius 1 and 2 along the first axis, chunks smaller and
larger than the rows exchanged; planstencil ! planreduce op=sum must post
the single-process value bit for bit on every rank; rows in device memory
(the sim device) give the same rows; a rank with too few rows for the
window fails the job on every rank with a message naming it.

Skipped (77) when mpirun is not installed or the build has no MPI."""
import os
import re
import shlex
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import Failure, launch, launcher, run_cases, tmpdir  # noqa: E402

MODES = ['constant', 'nearest', 'reflect', 'mirror', 'wrap', 'valid']
RANKS = [1, 2, 3, 4]
TIMEOUT = 60

# (name, shape, dtype, window, expression, halo rows along the first axis,
#  rows per chunk[, iterations]): expressions that weigh every cell
# differently, so that a row out of place cannot give the right value.
CONFIGS = [
    ('1-D radius 1', (23,), 'float64', 'a b c', 'a - 2*b + 3.5*c', 1, 3),
    ('1-D radius 2', (29,), 'float64', 'a b c d e',
     'a + 2*b - c + 0.5*d - 3*e', 2, 3),
    ('2-D radius 1', (19, 6), 'float32', '_ n _; w c e; _ s _',
     'n - 2*s + e + 3*w - c', 1, 1),
    ('2-D radius 2', (21, 5), 'float32', 'a _ _; _ b _; c d e; _ f _; _ _ g',
     'a + 2*b - c + 0.5*d + e - 3*f + g', 2, 3),
    ('2-D int16 radius 2, whole shares', (17, 4), 'int16',
     'a; b; c; d; e', 'a - b + 2*c - 3*d + e', 2, 0),
    ('2-D one-row window (no rows exchanged)', (13, 7), 'float32', 'x y z',
     'x - 2*y + 0.25*z', 0, 2),
    # Applied several times: the halo exchanged is the window's times the
    # iterations.
    ('1-D radius 1, 3 iterations', (31,), 'float64', 'a b c',
     '0.25*a + 0.5*b - 0.125*c', 3, 2, 3),
    ('2-D radius 1, 2 iterations, int16 to float64', (23, 6), 'int16',
     '_ n _; w c e; _ s _', '(n - 2*s + e + 3*w) / 7 - c', 2, 3, 2),
    # A window over the three axes of a volume: planes are exchanged.
    ('3-D 7-point, 2 iterations', (17, 6, 5), 'float64',
     '_ _ _; _ b _; _ _ _ | _ n _; w c e; _ s _ | _ _ _; _ f _; _ _ _',
     '0.25*b - 0.5*f + n + 0.125*s + e - 0.375*w - c', 2, 3, 2),
]


def mpirun():
    return shutil.which('mpirun')


def mpi_command(n_ranks, words):
    """mpirun running the pipeline `words` on n_ranks ranks; a word may
    hold {rank}, which each rank makes its own rank."""
    parts = []
    for w in launcher() + ['-m'] + words:
        pieces = w.split('{rank}')
        parts.append('"$OMPI_COMM_WORLD_RANK"'.join(shlex.quote(p)
                                                   for p in pieces))
    return [mpirun(), '--allow-run-as-root', '--oversubscribe',
            '-np', str(n_ranks), 'sh', '-c', 'exec ' + ' '.join(parts)]


def run_mpi(n_ranks, words, expect_ok=True, env=None):
    cmd = mpi_command(n_ranks, words)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=TIMEOUT,
                           text=True, env=env)
    except subprocess.TimeoutExpired:
        raise Failure('mpirun -np %d did not finish in %d s: %s' %
                      (n_ranks, TIMEOUT, ' '.join(words)))
    if expect_ok and p.returncode != 0:
        raise Failure('mpirun -np %d failed (%d): %s\n%s' %
                      (n_ranks, p.returncode, ' '.join(words), p.stdout))
    if not expect_ok and p.returncode == 0:
        raise Failure('mpirun -np %d should have failed: %s\n%s' %
                      (n_ranks, ' '.join(words), p.stdout))
    return p.stdout


# Whether planfilesink places a sharded stream's rows in one shared file
# (its shard-output property; one file per rank when asked); without it,
# each rank writes the file its location names.
SHARED_SINK = False


def find_shared_sink():
    p = subprocess.run(['gst-inspect-1.0', 'planfilesink'],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=TIMEOUT, text=True)
    return 'shard-output' in p.stdout


def per_rank_sink(d, name):
    """planfilesink words writing one file per rank (rank_file())."""
    if SHARED_SINK:
        return ['planfilesink', 'shard-output=per-rank',
                'location=%s/%s.npy' % (d, name)]
    return ['planfilesink', 'location=%s/%s.{rank}.npy' % (d, name)]


def rank_file(d, name, rank, n_ranks):
    if SHARED_SINK:
        return '%s/%s.rank%d-of-%d.npy' % (d, name, rank, n_ranks)
    return '%s/%s.%d.npy' % (d, name, rank)


def assert_bytes(got, want, what):
    if got.dtype != want.dtype or got.shape != want.shape:
        raise Failure('%s: got %s %s, the single process %s %s' %
                      (what, got.dtype, got.shape, want.dtype, want.shape))
    if got.tobytes() != want.tobytes():
        bad = np.argwhere(got != want)
        raise Failure('%s: %d values differ from the single process, first '
                      'at %s' % (what, len(bad), bad[0].tolist()))


def row_bytes(shape, dtype):
    return np.dtype(dtype).itemsize * int(np.prod(shape[1:], dtype=np.int64))


def chain(src, config, mode, sink_words, sharded):
    """One planfilesrc ! planstencil ! ... chain of gst-launch words."""
    _, shape, dtype, window, expr, _, chunk = config[:7]
    words = ['planfilesrc', 'location=' + src]
    if chunk:
        words.append('blocksize=%d' % (row_bytes(shape, dtype) * chunk))
    if sharded:
        words.append('shard=mpi')
    words += ['!', 'planstencil', 'window=' + window, 'expr=' + expr,
              'boundary=' + mode]
    if len(config) > 7:
        words.append('iterations=%d' % config[7])
    return words + ['!'] + sink_words


def input_array(config, seed):
    _, shape, dtype, *_ = config
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == 'i':
        return rng.integers(-100, 100, size=shape).astype(dtype)
    return (rng.standard_normal(shape) * 10).astype(dtype)


def case_files(config, n_ranks, seed):
    """Every mode of one window on one input, as chains of one pipeline:
    one mpirun, one single-process run."""
    def run():
        h = config[5]
        d = tmpdir()
        src = d + '/in.npy'
        np.save(src, input_array(config, seed))
        single, sharded = [], []
        for mode in MODES:
            single += chain(src, config, mode, [
                'planfilesink', 'location=%s/%s.npy' % (d, mode)], False)
            sharded += chain(src, config, mode, per_rank_sink(d, mode), True)
            if SHARED_SINK:
                # The same rows at their global places in one file.
                sharded += chain(src, config, mode, [
                    'planfilesink',
                    'location=%s/%s.shared.npy' % (d, mode)], True)
        launch(*single)
        run_mpi(n_ranks, sharded)
        for mode in MODES:
            want = np.load('%s/%s.npy' % (d, mode))
            parts = [np.load(rank_file(d, mode, r, n_ranks))
                     for r in range(n_ranks)]
            got = np.concatenate(parts)
            if mode == 'wrap':
                # The rows are global rows h.., then 0..h-1 on the last rank.
                got = np.roll(got, h, axis=0)
            what = '%s, %s, %d ranks (rows per rank %s)' % (
                config[0], mode, n_ranks, [len(p) for p in parts])
            assert_bytes(got, want, what)
            if SHARED_SINK:
                assert_bytes(np.load('%s/%s.shared.npy' % (d, mode)), want,
                             what + ', one shared file')
    return run


def case_inputs(n_ranks):
    """A stencil over two inputs, each planfilesrc shard=mpi: the halo
    exchanged is the wider window's (the request pad's, 2 rows), each
    input's rows travel together; every mode, the single-process bytes."""
    def run():
        d = tmpdir()
        rng = np.random.default_rng(n_ranks)
        np.save(d + '/u.npy', rng.standard_normal((17, 5)))
        np.save(d + '/v.npy', rng.standard_normal((17, 5)).astype(np.float32))
        single, sharded = [], []

        def words(mode, sink, shard):
            name = 's_' + mode
            w = ['planstencil', 'name=' + name,
                 'window=_ n _; w c e; _ s _',
                 'expr=n - 2*s + e + 0.5*w - c + 0.25*t - 3*b',
                 'boundary=' + mode, 'sink_1::window=t; _; _; _; b', '!']
            w += sink
            for i, f in enumerate(('u', 'v')):
                w += ['planfilesrc', 'location=%s/%s.npy' % (d, f),
                      'blocksize=%d' % ((40, 20)[i] * 3)]
                if shard:
                    w.append('shard=mpi')
                w += ['!', '%s.%s' % (name, ('sink', 'sink_1')[i])]
            return w
        for mode in MODES:
            single += words(mode, ['planfilesink',
                                   'location=%s/%s.npy' % (d, mode)], False)
            sharded += words(mode, per_rank_sink(d, mode), True)
        launch(*single)
        run_mpi(n_ranks, sharded)
        for mode in MODES:
            want = np.load('%s/%s.npy' % (d, mode))
            parts = [np.load(rank_file(d, mode, r, n_ranks))
                     for r in range(n_ranks)]
            got = np.concatenate(parts)
            if mode == 'wrap':
                got = np.roll(got, 2, axis=0)
            assert_bytes(got, want, 'two inputs, %s, %d ranks (rows per rank '
                         '%s)' % (mode, n_ranks, [len(p) for p in parts]))
    return run


VALUE = re.compile(r'plan-reduce, element=\(string\)(\w+),.*?'
                   r'value=\(double\)([-+0-9.eEinfa]+)')


def reduce_values(output):
    """element name -> the values its plan-reduce messages posted."""
    values = {}
    for name, v in VALUE.findall(output):
        values.setdefault(name, []).append(v)
    return values


def case_reduce(config, n_ranks, seed):
    """planstencil ! planreduce op=sum in every mode: every rank posts
    the single-process sum, bit for bit (gst-launch prints doubles with
    17 significant digits)."""
    def run():
        d = tmpdir()
        src = d + '/in.npy'
        np.save(src, input_array(config, seed))
        single, sharded = [], []
        for mode in MODES:
            reduce = ['planreduce', 'name=sum_%s' % mode, 'op=sum', '!']
            single += chain(src, config, mode, reduce + [
                'planfilesink', 'location=%s/%s.npy' % (d, mode)], False)
            sharded += chain(src, config, mode,
                             reduce + per_rank_sink(d, mode), True)
        _, out = launch(*single, messages=True)
        want = reduce_values(out)
        got = reduce_values(run_mpi(n_ranks, sharded))
        for mode in MODES:
            name = 'sum_' + mode
            if len(want.get(name, [])) != 1:
                raise Failure('the single process posted %s for %s' %
                              (want.get(name), name))
            if got.get(name, []) != want[name] * n_ranks:
                raise Failure('%s, %s, %d ranks: the ranks posted %s, the '
                              'single process %s' % (config[0], mode,
                                                     n_ranks, got.get(name),
                                                     want[name][0]))
            # The result written on every rank is the single process's.
            single_bytes = np.load('%s/%s.npy' % (d, mode)).tobytes()
            for r in range(n_ranks):
                if np.load(rank_file(d, mode, r, n_ranks)).tobytes() != \
                        single_bytes:
                    raise Failure('%s, %s, %d ranks: rank %d wrote another '
                                  'sum' % (config[0], mode, n_ranks, r))
    return run


def test_device_memory():
    """Rows in device memory (the sim device): a sharded stencil computes
    on the host, and gives the same rows."""
    config = CONFIGS[3]
    d = tmpdir()
    src = d + '/in.npy'
    np.save(src, input_array(config, 11))
    launch(*chain(src, config, 'wrap', [
        'planfilesink', 'location=%s/single.npy' % d], False))
    words = chain(src, config, 'wrap', ['plandownload', '!'] +
                  per_rank_sink(d, 'out'), True)
    at = words.index('planstencil')
    words[at:at] = ['planupload', '!']
    env = dict(os.environ, GST_PLAN_DEVICE='sim')
    run_mpi(2, words, env=env)
    got = np.roll(np.concatenate([np.load(rank_file(d, 'out', r, 2))
                                  for r in range(2)]), config[5], axis=0)
    if got.tobytes() != np.load(d + '/single.npy').tobytes():
        raise Failure('through device memory, 2 ranks: not the single '
                      'process output')


def test_too_few_rows():
    """5 rows on 3 ranks (2, 2, 1) and a window reaching 2 rows: each rank
    sends 4 rows, which no rank has; the job fails on every rank, in time,
    saying which rank has how many rows, and writes nothing."""
    d = tmpdir()
    np.save(d + '/in.npy', np.arange(5.0))
    out = run_mpi(3, ['planfilesrc', 'location=%s/in.npy' % d, 'shard=mpi',
                      '!', 'planstencil', 'window=a b c d e', 'expr=a + e',
                      'boundary=nearest', '!'] + per_rank_sink(d, 'out'),
                 expect_ok=False)
    for want in ('rank 1 of 3 has 2 rows, from global row 2 of 5',
                 'rank 2 of 3 has 1 row, from global row 4 of 5',
                 'window "a b c d e" reaches 2 rows', 'at least 4 rows',
                 'at most 1 rank for 5 rows'):
        if want not in out:
            raise Failure('the error does not say %r:\n%s' % (want, out))
    left = [f for f in os.listdir(d) if f.startswith('out.')]
    if left:
        raise Failure('a failed job left %s' % left)


def test_too_few_rows_for_iterations():
    """12 rows on 3 ranks and a 3-wide window applied 3 times: each rank
    sends 6 rows and has 4; the message says the window's reach is the
    iterations'."""
    d = tmpdir()
    np.save(d + '/in.npy', np.arange(12.0))
    out = run_mpi(3, ['planfilesrc', 'location=%s/in.npy' % d, 'shard=mpi',
                      '!', 'planstencil', 'window=a b c', 'expr=a + c',
                      'boundary=nearest', 'iterations=3', '!'] +
                  per_rank_sink(d, 'out'), expect_ok=False)
    for want in ('rank 1 of 3 has 4 rows', 'applied 3 times reaches 3 rows',
                 'at least 6 rows', 'at most 2 ranks for 12 rows'):
        if want not in out:
            raise Failure('the error does not say %r:\n%s' % (want, out))


def test_wrap_one_rank_too_few_rows():
    """boundary=wrap on one rank sends its first 2h rows to itself: a
    stream shorter than that is an error, not garbage."""
    d = tmpdir()
    np.save(d + '/in.npy', np.arange(3.0))
    out = run_mpi(1, ['planfilesrc', 'location=%s/in.npy' % d, 'shard=mpi',
                      '!', 'planstencil', 'window=a b c d e', 'expr=a + e',
                      'boundary=wrap', '!', 'planfilesink',
                      'location=%s/out.npy' % d], expect_ok=False)
    if 'rank 0 of 1 has 3 rows' not in out:
        raise Failure('the error does not name the rank:\n%s' % out)


def has_mpi():
    """Whether this build runs shard=mpi (a build without MPI refuses it)."""
    d = tmpdir()
    np.save(d + '/in.npy', np.arange(4.0))
    cmd = launcher() + ['-q', 'planfilesrc', 'location=%s/in.npy' % d,
                        'shard=mpi', '!', 'planfilesink',
                        'location=%s/out.npy' % d]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=TIMEOUT, text=True)
    if 'no MPI support' in p.stdout:
        return False
    if p.returncode != 0:
        raise Failure('a sharded run on one process failed:\n%s' % p.stdout)
    return True


def main():
    if mpirun() is None:
        print('mpirun not found (Debian: openmpi-bin): skipped')
        sys.exit(77)
    try:
        ok = has_mpi()
    except Failure as e:
        print('FAIL %s' % e)
        sys.exit(1)
    if not ok:
        print('this build has no MPI support: skipped')
        sys.exit(77)
    global SHARED_SINK
    SHARED_SINK = find_shared_sink()
    cases = []
    for i, config in enumerate(CONFIGS):
        for n in RANKS:
            cases.append(('%s, %d ranks, every mode' % (config[0], n),
                          case_files(config, n, i)))
    for n in RANKS:
        cases.append(('two inputs, %d ranks, every mode' % n, case_inputs(n)))
    for n in RANKS:
        cases.append(('stencil ! planreduce op=sum, %d ranks' % n,
                      case_reduce(CONFIGS[3], n, 100 + n)))
    cases.append(('1-D stencil ! planreduce op=sum, 3 ranks',
                  case_reduce(CONFIGS[1], 3, 7)))
    cases.append(('rows in device memory, 2 ranks, wrap', test_device_memory))
    cases.append(('a rank with too few rows fails every rank',
                  test_too_few_rows))
    cases.append(('too few rows for the iterations',
                  test_too_few_rows_for_iterations))
    cases.append(('wrap on one rank with too few rows',
                  test_wrap_one_rank_too_few_rows))
    run_cases(cases)


if __name__ == '__main__':
    main()
