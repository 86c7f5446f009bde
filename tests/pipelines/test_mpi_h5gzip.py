"""One gzip-compressed HDF5 dataset written by the ranks of an MPI job
together (planfilesink shard-output=shared compression=N), launched by
mpirun with 1 to 4 ranks: each rank filters its chunks, rank 0 writes them
all. h5py reads the values, chunks and filters of the single-process run:
chunks that straddle the shares and larger than a share, the last chunk
short, several dtypes, the add mode. A rank whose spool file cannot be
written, or rank 0 unable to read one, fails the job on every rank and
leaves no output and no spool file."""
import os
import subprocess
import sys

import numpy as np

import plantest
from plantest import Failure, mpirun

MPIRUN = plantest.MPIRUN
D = plantest.tmpdir()
SRC = os.path.join(D, 'in.npy')
A = np.random.default_rng(30).standard_normal((20001, 3))
np.save(SRC, A)
WANT = A * 2 + 1


def sharded(out, *props, src=SRC, kernel=('planmap', 'expr=x*2+1')):
    middle = [*kernel, '!'] if kernel else []
    return ['planfilesrc', 'location=' + src, 'shard=mpi', '!', *middle,
            'planfilesink', 'location=' + out, *props]


def nothing_left(what):
    left = [n for n in os.listdir(D) if n.startswith('.')]
    if left:
        raise Failure('%s: left %s' % (what, left))


def same_dataset(got, want, what):
    """Values, dtype, chunks, filters and maximum shape of two h5py
    datasets: the ranks' and the single process's."""
    plantest.assert_same(got[...], want[...], what)
    for attr in ('dtype', 'shape', 'chunks', 'maxshape', 'compression',
                 'compression_opts', 'shuffle', 'fletcher32', 'scaleoffset'):
        if getattr(got, attr) != getattr(want, attr):
            raise Failure('%s: %s %r, the single process %r' % (
                what, attr, getattr(got, attr), getattr(want, attr)))


def hdf5_compressed():
    """Ranks write one gzip-compressed HDF5 dataset (shuffle first) that
    h5py reads as the single process's: chunks that straddle the shares
    (777 rows), a chunk larger than a share (9000 rows of 20001 on 3 and 4
    ranks), the last chunk short; int16 rows of 4x5 (2-byte shuffle),
    uint8 (1 byte: shuffle does nothing, gzip alone), complex64 (h5py's
    compound, shuffled as 8-byte elements); the add mode."""
    import h5py
    rng = np.random.default_rng(6)
    i16 = os.path.join(D, 'i16.npy')
    np.save(i16, rng.integers(-300, 300, (1001, 4, 5), dtype=np.int16))
    u8 = os.path.join(D, 'u8.npy')
    np.save(u8, (np.arange(12345) // 7 % 256).astype(np.uint8))
    c64 = os.path.join(D, 'c64.npy')
    np.save(c64, (rng.standard_normal(3333) + 1j * rng.standard_normal(
        3333)).astype(np.complex64))
    cases = [(SRC, ('planmap', 'expr=x*2+1'), WANT, ranks, rows, level)
             for ranks, rows, level in ((1, 777, 4), (2, 777, 1), (4, 777, 9),
                                        (3, 9000, 4), (4, 9000, 6))]
    cases += [(i16, None, np.load(i16), 3, 100, 5),
              (u8, None, np.load(u8), 4, 1000, 3),
              (c64, None, np.load(c64), 2, 500, 2)]
    for src, kernel, want, ranks, rows, level in cases:
        what = 'gzip %d on %d ranks, %s in chunks of %d rows' % (
            level, ranks, os.path.basename(src), rows)
        props = ('dataset=/g/m', 'chunk-rows=%d' % rows,
                 'compression=%d' % level)
        out = os.path.join(D, 'c.h5')
        single = os.path.join(D, 'c1.h5')
        mpirun(ranks, sharded(out, *props, src=src, kernel=kernel))
        plantest.launch('planfilesrc', 'location=' + src, '!',
                        *((*kernel, '!') if kernel else ()), 'planfilesink',
                        'location=' + single, *props)
        with h5py.File(out, 'r') as f, h5py.File(single, 'r') as g:
            plantest.assert_same(f['g/m'][...], want, what)
            same_dataset(f['g/m'], g['g/m'], what)
            if f['g/m'].compression != 'gzip' or not f['g/m'].shuffle:
                raise Failure('%s: not gzip after shuffle' % what)
        nothing_left(what)
    add = os.path.join(D, 'cadd.h5')
    with h5py.File(add, 'w') as f:
        f['keep'] = np.arange(5)
    mpirun(4, sharded(add, 'file-mode=add', 'dataset=/new', 'compression=4',
                      'chunk-rows=3000'))
    with h5py.File(add, 'r') as f:
        plantest.assert_same(f['new'][...], WANT, 'gzip added on 4 ranks')
        plantest.assert_same(f['keep'][...], np.arange(5), 'HDF5 kept')
    nothing_left('compressed HDF5')


def failures_leave_nothing():
    """Rank 1 cannot write its spool (a full disk); rank 0 cannot read
    rank 2's: every rank fails, no output and no spool file are left."""
    failio = os.path.join(os.environ['PLAN_BUILD_DIR'], 'tests', 'pipelines',
                          'libfailio.so')
    out = os.path.join(D, 'failz.h5')
    # (only the spool of rank 1 matches: '.failz.h5.XXXXXX.s1')
    text = mpirun(3, sharded(out, 'chunk-rows=1000', 'compression=4'),
                  rank_env={1: {'LD_PRELOAD': failio, 'PLAN_FAIL_MATCH': '.s1',
                                'PLAN_FAIL_PWRITE': '28'}}, expect_ok=False)
    if ".s1': No space left on device" not in text or \
            text.count('rank 1 failed') < 2:
        raise Failure('a spool that cannot be written: not told to every '
                      'rank:\n' + text)
    if os.path.exists(out):
        raise Failure('failz.h5 was written by a failed job')
    nothing_left('failz.h5')
    out = os.path.join(D, 'failr.h5')
    text = mpirun(3, sharded(out, 'chunk-rows=1000', 'compression=4'),
                  rank_env={0: {'LD_PRELOAD': failio, 'PLAN_FAIL_MATCH':
                                '.s2', 'PLAN_FAIL_PREAD': '5'}},
                  expect_ok=False)
    if 'Input/output error' not in text or text.count('was not written') < 3:
        raise Failure('a spool rank 0 cannot read: not told to every '
                      'rank:\n' + text)
    if os.path.exists(out):
        raise Failure('failr.h5 was written by a failed job')
    nothing_left('failr.h5')


def stopped_while_filtering():
    """SIGTERM to rank 0 while its pool filters chunks and writes them
    into the file: planfilesink closed the file before it stopped the
    pool, and each chunk whose filtering ended in between was a critical
    (_plan_file_writer_write_shared_chunk: assertion ... failed), or a
    write into the dataset being closed. Every rank fails, nothing is
    left. Which chunks are in flight is up to the threads: a few tries,
    each stopped once rank 0 has written some of the file."""
    import signal
    import time
    src = os.path.join(D, 'stop-in.npy')
    np.save(src, np.random.default_rng(8).standard_normal((600000, 8)))
    out = os.path.join(D, 'stop.h5')
    cmd = [MPIRUN, '--allow-run-as-root', '--oversubscribe', '-np', '3'] + \
        plantest.launcher() + ['-q'] + sharded(
            out, 'compression=3', 'chunk-rows=1000', src=src,
            kernel=('planmap', 'expr=sin(x)*cos(x)+exp(x)'))
    stopped = 0
    for attempt in range(3):
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        try:
            deadline = time.monotonic() + 60
            pid = None
            while p.poll() is None and time.monotonic() < deadline:
                pid = pid or plantest.mpi_rank_pid(0, 'stop.h5')
                parts = [os.path.join(D, n) for n in os.listdir(D)
                         if n.startswith('.stop.h5.') and n.endswith('.part')]
                try:
                    if pid and parts and os.path.getsize(parts[0]) > 1 << 20:
                        os.kill(pid, signal.SIGTERM)
                        break
                except OSError:
                    pass
                time.sleep(0.01)
            text, _ = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
        if 'CRITICAL' in text or 'assertion' in text:
            raise Failure('rank 0 stopped while the chunks were filtered '
                          '(try %d):\n%s' % (attempt + 1, text))
        if p.returncode == 0:
            os.unlink(out)      # it ended before the signal
            continue
        stopped += 1
        if os.path.exists(out):
            raise Failure('a stopped job left stop.h5 (exit %d):\n%s' %
                          (p.returncode, text))
        nothing_left('stopped while filtering')
    if not stopped:
        raise Failure('every job ended before rank 0 was stopped')
    os.unlink(src)


def killed_while_spooling():
    """A rank but 0 killed with SIGKILL while it spools its filtered
    chunks: it cannot remove its spool, and its spool stayed behind
    (.stop.h5.XXXXXX.s1) when mpirun ended the others. Rank 0 removes the
    other ranks' spools too, on SIGTERM (gst-launch-1.0) and when its
    pipeline stops (plan-launch handles SIGTERM itself)."""
    import shutil
    import signal
    import time
    src = os.path.join(D, 'spool-in.npy')
    np.save(src, np.random.default_rng(9).standard_normal((200000, 4)))
    out = os.path.join(D, 'spool.h5')
    for launch in ([shutil.which('gst-launch-1.0')], plantest.launcher()):
        for victim in (1, 2):
            # Removing the temporary files after a SIGKILL is best effort (Open
            # MPI may end rank 0 before its handler is done, on a loaded
            # machine): a second try must leave nothing either.
            for attempt in (1, 2):
                cmd = [MPIRUN, '--allow-run-as-root', '--oversubscribe', '-np',
                       '3'] + launch + ['-q', 'planfilesrc', 'location=' + src,
                                        'shard=mpi', 'blocksize=32000', '!',
                                        'identity', 'sleep-time=50000', '!',
                                        'planfilesink', 'location=' + out,
                                        'compression=1', 'chunk-rows=500']
                p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
                what = 'rank %d of %s killed' % (victim, os.path.basename(launch[0]))
                try:
                    deadline = time.monotonic() + 60
                    pid = None
                    spool = None
                    while p.poll() is None and time.monotonic() < deadline:
                        pid = pid or plantest.mpi_rank_pid(victim,
                                                           'spool.h5')
                        spools = [os.path.join(D, n) for n in os.listdir(D)
                                  if n.startswith('.spool.h5.')
                                  and n.endswith('.s%d' % victim)]
                        try:
                            if pid and spools and os.path.getsize(spools[0]) > 0:
                                spool = spools[0]
                                os.kill(pid, signal.SIGKILL)
                                break
                        except OSError:
                            pass
                        time.sleep(0.01)
                    text, _ = p.communicate(timeout=60)
                finally:
                    if p.poll() is None:
                        p.kill()
                        p.communicate()
                if spool is None:
                    raise Failure('%s: no spool seen:\n%s' % (what, text))
                if p.returncode == 0 or os.path.exists(out):
                    raise Failure('%s: exit %d, %s' % (what, p.returncode,
                                                       os.listdir(D)))
                left = [n for n in os.listdir(D) if n.startswith('.')]
                if not left or attempt == 2:
                    break
                print('# %s: left %s; once more' % (what, left))
                for n in left:
                    shutil.rmtree(os.path.join(D, n), ignore_errors=True)
                    if os.path.lexists(os.path.join(D, n)):
                        os.unlink(os.path.join(D, n))
            nothing_left(what)
    os.unlink(src)


def killed_at_the_verdict():
    """A rank but 0 killed with SIGKILL: the others reach EOS and wait
    for its outcome, which never comes, until mpirun's SIGTERM (after
    --mca odls_base_sigkill_timeout seconds; its SIGKILL follows as long
    after). plan-launch could not stop its pipeline then (planfilesink
    waited in the shard writer's verdict and held its stream lock), gave
    up after 5 s and left the temporary file and every spool; and at exit
    it finalized MPI, which waits for the dead rank, until the SIGKILL.
    Now the survivors stop at the SIGTERM, remove everything and end
    before the SIGKILL."""
    import signal
    import time
    timeout = 10
    if plantest.launcher()[0].endswith('gst-launch-1.0'):
        print('# skip: plan-launch is not built')
        return
    src = os.path.join(D, 'verdict-in.npy')
    np.save(src, np.random.default_rng(9).standard_normal((200000, 4)))
    out = os.path.join(D, 'verdict.h5')
    cmd = [MPIRUN, '--allow-run-as-root', '--oversubscribe', '--mca',
           'odls_base_sigkill_timeout', str(timeout), '-np', '3'] + \
        plantest.launcher() + ['-q', 'planfilesrc', 'location=' + src,
                               'shard=mpi', 'blocksize=32000', '!',
                               'identity', 'sleep-time=50000', '!',
                               'planfilesink', 'location=' + out,
                               'compression=1', 'chunk-rows=500']
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    killed = None
    try:
        deadline = time.monotonic() + 60
        pids = {}
        while p.poll() is None and time.monotonic() < deadline:
            for r in (0, 1, 2):
                pids[r] = (pids.get(r)
                           or plantest.mpi_rank_pid(r, 'verdict.h5'))
            spools = [n for n in os.listdir(D)
                      if n.startswith('.verdict.h5.') and n.endswith('.s1')]
            try:
                if all(pids.values()) and spools and \
                        os.path.getsize(os.path.join(D, spools[0])) > 0:
                    os.kill(pids[1], signal.SIGKILL)
                    killed = time.monotonic()
                    break
            except OSError:
                pass
            time.sleep(0.01)
        if killed is None:
            raise Failure('rank 1 not killed: %s' % (p.communicate(
                timeout=60)[0] if p.poll() is not None else 'no spool'))
        # The survivors end on their own: well before mpirun's SIGKILL.
        ended = None
        while time.monotonic() < killed + 2 * timeout + 10:
            if all(not os.path.exists('/proc/%d/cmdline' % pids[r])
                   or open('/proc/%d/cmdline' % pids[r]).read() == ''
                   for r in (0, 2)):
                ended = time.monotonic() - killed
                break
            time.sleep(0.05)
        text, _ = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    if ended is None or ended > 2 * timeout - 3:
        raise Failure('ranks 0 and 2 ended %s s after rank 1 was killed, '
                      'mpirun sends SIGTERM after %d s:\n%s' % (
                          ended, timeout, text))
    if 'did not stop within' in text:
        raise Failure('a rank could not stop its pipeline:\n%s' % text)
    if p.returncode == 0 or os.path.exists(out):
        raise Failure('exit %d, %s' % (p.returncode, os.listdir(D)))
    nothing_left('rank 1 killed before the verdict')
    os.unlink(src)


def main():
    if MPIRUN is None:
        print('skip: no mpirun (Open MPI: openmpi-bin)')
        return 77
    try:
        import h5py  # noqa: F401
    except ImportError:
        print('skip: h5py is not installed')
        return 77
    if not plantest.built_with('hdf5'):
        print('skip: this build has no HDF5')
        return 77
    probe = subprocess.run(plantest.launcher() + [
        '-q', 'planfilesrc', 'location=' + SRC, 'shard=mpi', '!', 'fakesink'],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if 'no MPI support' in probe.stdout:
        print('skip: this build has no MPI support')
        return 77
    plantest.run_cases([
        ('compressed HDF5 shared by 1-4 ranks', hdf5_compressed),
        ('a failing rank leaves no output and no spool',
         failures_leave_nothing),
        ('stopped while the pool filters: no critical, nothing left',
         stopped_while_filtering),
        ('a rank killed while it spools: no spool left',
         killed_while_spooling),
        ('a rank killed: the others stop at SIGTERM, nothing left',
         killed_at_the_verdict)])


sys.exit(main())
