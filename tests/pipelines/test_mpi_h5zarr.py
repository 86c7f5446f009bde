"""One HDF5 file or Zarr store written by the ranks of an MPI job together
(planfilesink shard-output=shared, the default), launched by mpirun with 1
to 4 ranks: h5py and zarr read the values of the single-process run; Zarr
chunks that straddle the ranks' shares (chunks larger than a share
included), v3, a stencil whose rows wrap around, the add mode; a rank
failing mid-run leaves no output. (A compressed HDF5 output:
test_mpi_h5gzip.)"""
import json
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
    return ['planfilesrc', 'location=' + src, 'shard=mpi', '!', *kernel, '!',
            'planfilesink', 'location=' + out, *props]


def nothing_left(what):
    left = [n for n in os.listdir(D) if n.startswith('.')]
    if left:
        raise Failure('%s: left %s' % (what, left))


def hdf5_shared():
    """Ranks write one HDF5 dataset (chunks of 777 rows, so that chunks
    straddle the shares) that h5py reads as the single process's; a
    dataset added to a file keeps its other datasets."""
    import h5py
    for n in (1, 2, 3, 4):
        out = os.path.join(D, 'o%d.h5' % n)
        mpirun(n, sharded(out, 'dataset=/g/m', 'chunk-rows=777'))
        with h5py.File(out, 'r') as f:
            plantest.assert_same(f['g/m'][...], WANT, 'HDF5 on %d ranks' % n)
            if f['g/m'].chunks != (777, 3) or f['g/m'].compression:
                raise Failure('HDF5 on %d ranks: chunks %s, compression %s'
                              % (n, f['g/m'].chunks, f['g/m'].compression))
    add = os.path.join(D, 'add.h5')
    with h5py.File(add, 'w') as f:
        f['keep'] = np.arange(5)
        f.attrs['note'] = 'mine'
    mpirun(3, sharded(add, 'file-mode=add', 'dataset=/new'))
    with h5py.File(add, 'r') as f:
        plantest.assert_same(f['new'][...], WANT, 'HDF5 added on 3 ranks')
        plantest.assert_same(f['keep'][...], np.arange(5), 'HDF5 kept')
        if f.attrs['note'] != 'mine':
            raise Failure('the file attribute was not kept')
    nothing_left('HDF5')


def zarr_shared():
    """Ranks write one Zarr v2 array, zstd-compressed, in chunks of 777
    rows (chunks straddle the shares) and of 9000 (a chunk spans three
    ranks' shares); a v3 one in a group; a stencil with boundary=wrap,
    whose ranks' rows wrap around the array's end. zarr reads the single
    process's values."""
    import zarr
    for n in (1, 2, 3, 4):
        for rows in (777, 9000):
            out = os.path.join(D, 'o%d-%d.zarr' % (n, rows))
            mpirun(n, sharded(out, 'chunk-rows=%d' % rows, 'compression=3'))
            z = zarr.open_array(out, mode='r')
            plantest.assert_same(z[...], WANT, 'Zarr on %d ranks, chunks of %d'
                                 % (n, rows))
            if z.chunks != (rows, 3) or z.compressor.codec_id != 'zstd':
                raise Failure('Zarr: chunks %s, compressor %s' % (
                    z.chunks, z.compressor))
    g = os.path.join(D, 'g3.zarr')
    mpirun(3, sharded(g, 'zarr-format=3', 'dataset=obs/m', 'chunk-rows=1000',
                      'compression=2', 'codec=blosc-lz4'))
    meta = json.load(open(os.path.join(g, 'obs', 'm', 'zarr.json')))
    if meta['shape'] != [20001, 3]:
        raise Failure('v3 on 3 ranks: shape %s' % meta['shape'])
    back = os.path.join(D, 'back.npy')
    plantest.launch('planfilesrc', 'location=' + g, 'dataset=obs/m', '!',
                    'planfilesink', 'location=' + back)
    plantest.assert_same(np.load(back), WANT, 'Zarr v3 on 3 ranks')
    stencil = ('planstencil', 'window=n;c;s', 'expr=n-2*c+s', 'boundary=wrap')
    single = os.path.join(D, 'st1.npy')
    plantest.launch('planfilesrc', 'location=' + SRC, '!', *stencil, '!',
                    'planfilesink', 'location=' + single)
    out = os.path.join(D, 'st3.zarr')
    mpirun(3, sharded(out, 'chunk-rows=500', kernel=stencil))
    plantest.assert_same(zarr.open_array(out, mode='r')[...], np.load(single),
                         'a wrapping stencil to Zarr on 3 ranks')
    nothing_left('Zarr')


def failing_rank_leaves_nothing():
    """A rank whose writes fail (a full disk) fails the job on every rank;
    no HDF5 file or Zarr store is left, nor a temporary one."""
    failio = os.path.join(os.environ['PLAN_BUILD_DIR'], 'tests', 'pipelines',
                          'libfailio.so')
    for name, var in (('fail.h5', 'PLAN_FAIL_PWRITE'),
                      ('fail.zarr', 'PLAN_FAIL_WRITE')):
        if not plantest.built_with('hdf5' if name.endswith('.h5') else
                                   'zarr'):
            continue
        out = os.path.join(D, name)
        text = mpirun(3, sharded(out, 'chunk-rows=1000'), rank_env={
            1: {'LD_PRELOAD': failio, 'PLAN_FAIL_MATCH': name, var: '28'}},
            expect_ok=False)
        if 'No space left on device' not in text or \
                text.count('rank 1 failed') < 2:
            raise Failure('%s: the failure was not told to every rank:\n%s'
                          % (name, text))
        if os.path.exists(out):
            raise Failure('%s was written by a failed job' % name)
        nothing_left(name)


def killed_rank_leaves_no_zarr_directory():
    """A rank killed with SIGKILL while the ranks write a Zarr store:
    mpirun ends the others with SIGTERM, which gst-launch-1.0 does not
    handle, and rank 0's temporary directory (.kill.zarr.XXXXXX.part)
    stayed behind, full of chunks; rank 0's handler removes it (a v3
    store's chunks in folders of their own, which the other ranks' writers
    would make again in it, included)."""
    import shutil
    import signal
    import time
    src = os.path.join(D, 'kill-in.npy')
    np.save(src, np.random.default_rng(4).standard_normal((200000, 4)))
    out = os.path.join(D, 'kill.zarr')
    for version, victim in ((2, 1), (3, 1)):
        # Removing the temporary files after a SIGKILL is best effort (Open
        # MPI may end rank 0 before its handler is done, on a loaded
        # machine): a second try must leave nothing either.
        for attempt in (1, 2):
            cmd = [MPIRUN, '--allow-run-as-root', '--oversubscribe', '-np', '2',
                   shutil.which('gst-launch-1.0'), '-q', 'planfilesrc',
                   'location=' + src, 'shard=mpi', 'blocksize=32000', '!',
                   'identity', 'sleep-time=50000', '!', 'planfilesink',
                   'location=' + out, 'zarr-format=%d' % version,
                   'chunk-rows=20000']
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
            what = 'rank %d killed writing a v%d store' % (victim, version)
            killed = False
            try:
                deadline = time.monotonic() + 60
                pid = None
                while p.poll() is None and time.monotonic() < deadline:
                    pid = pid or plantest.mpi_rank_pid(victim, 'kill.zarr')
                    temps = [os.path.join(D, n) for n in os.listdir(D)
                             if n.startswith('.kill.zarr.')]
                    chunks = sum(len(files) for t in temps
                                 for _, _, files in os.walk(t))
                    if pid and chunks >= 2:
                        os.kill(pid, signal.SIGKILL)
                        killed = True
                        break
                    time.sleep(0.02)
                text, _ = p.communicate(timeout=60)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.communicate()
            if not killed:
                raise Failure('%s: no chunk written before the end:\n%s' %
                              (what, text))
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


def main():
    if MPIRUN is None:
        print('skip: no mpirun (Open MPI: openmpi-bin)')
        return 77
    probe = subprocess.run(plantest.launcher() + [
        '-q', 'planfilesrc', 'location=' + SRC, 'shard=mpi', '!', 'fakesink'],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if 'no MPI support' in probe.stdout:
        print('skip: this build has no MPI support')
        return 77
    cases = []
    try:
        import h5py  # noqa: F401
        if plantest.built_with('hdf5'):
            cases += [('HDF5 shared by 1-4 ranks', hdf5_shared)]
        else:
            print('this build has no HDF5: the HDF5 cases are skipped')
    except ImportError:
        print('h5py is not installed: the HDF5 cases are skipped')
    try:
        import zarr  # noqa: F401
        if plantest.built_with('zarr'):
            cases += [('Zarr shared by 1-4 ranks', zarr_shared),
                      ('a rank killed: no Zarr directory left',
                       killed_rank_leaves_no_zarr_directory)]
        else:
            print('this build has no Zarr: the Zarr cases are skipped')
    except ImportError:
        print('zarr is not installed: the Zarr cases are skipped')
    if plantest.built_with('hdf5') or plantest.built_with('zarr'):
        cases += [('a failing rank leaves no output',
                   failing_rank_leaves_nothing)]
    plantest.run_cases(cases)


sys.exit(main())
