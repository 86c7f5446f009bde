#!/usr/bin/python3
"""Input files that change while planfilesrc reads them: cut short to their
header, written again in place (np.save over them), or replaced by another
file. In every io-mode (mapped chunks: a truncation takes their pages away
under the elements that read them, which would kill the process with
SIGBUS), through a kernel element and straight into planfilesink's writer:
the pipeline fails with an error naming the input and what became of it,
nothing is written, and the process is not killed. docs/reliability.md
lists each behaviour with its test."""
import os
import signal
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import Failure, launcher, run_cases, tmpdir  # noqa: E402

ROWS = 1 << 20                  # 4 MiB of float32
CHUNK = 1 << 16                 # bytes per chunk: 64 chunks
TIMEOUT = 120


def start(src, dst, io_mode, through):
    """Starts planfilesrc ! identity (30 ms a chunk: 2 s in all) ! [through]
    ! planfilesink and waits until the source has the file open and the
    job has gone on a little."""
    words = ['planfilesrc', 'location=' + src, 'io-mode=' + io_mode,
             'blocksize=%d' % CHUNK, 'max-chunks=2', '!',
             'identity', 'sleep-time=30000', '!']
    if through:
        words += through.split() + ['!']
    words += ['planfilesink', 'location=' + dst]
    p = subprocess.Popen(launcher() + ['-q'] + words, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    while not has_open(p.pid, src):
        if p.poll() is not None or time.monotonic() > deadline:
            p.kill()
            raise Failure('the job did not open %s: %s' % (src, p.stdout.read()))
        time.sleep(0.01)
    # A few chunks in: some passed, some in flight, most to come.
    time.sleep(0.3)
    return p


def has_open(pid, path):
    try:
        for fd in os.listdir('/proc/%d/fd' % pid):
            try:
                if os.readlink('/proc/%d/fd/%s' % (pid, fd)) == path:
                    return True
            except OSError:
                pass
    except OSError:
        pass
    return False


def finish(p, what, d, *needles):
    out, _ = p.communicate(timeout=TIMEOUT)
    if p.returncode in (-signal.SIGBUS, 128 + signal.SIGBUS):
        raise Failure('%s: killed by SIGBUS\n%s' % (what, out))
    if p.returncode == 0:
        raise Failure('%s: the pipeline succeeded\n%s' % (what, out))
    for n in needles:
        if n not in out:
            raise Failure('%s: the error does not say %r:\n%s' % (what, n, out))
    left = sorted(set(os.listdir(d)) - {'in.npy', 'other.npy'})
    if left:
        raise Failure('%s: written or left behind: %s\n%s' % (what, left, out))
    print('     %s: %s' % (what, [line for line in out.splitlines()
                                   if 'changed while' in line][0].strip()))


MAP = 'planmap expr=x*2'
# planreduce's worker threads go on reading a chunk after it is handed over
# (the chunk is held until they are done with it).
REDUCE = 'planreduce op=sum'
ALL = [(m, t) for m in ('auto', 'mmap', 'read') for t in (MAP, None)] + [
    ('mmap', REDUCE)]
# A change found at the end (the whole job's time): two of the ways.
SOME = [('mmap', MAP), ('read', None)]


def cases_of(change, ways):
    for io_mode, through in ways:
        d = tmpdir()
        src = os.path.join(d, 'in.npy')
        a = np.arange(ROWS, dtype=np.float32)
        np.save(src, a)
        p = start(src, os.path.join(d, 'out.npy'), io_mode, through)
        try:
            needles = change(src, a)
            finish(p, 'io-mode=%s%s' % (io_mode, ', ' + through.split()[0]
                                         if through else ''), d, *needles)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()


def test_truncated_to_its_header():
    def change(src, a):
        os.truncate(src, 128)
        return ["'%s' changed while it was read: it now ends at byte 128" %
                src]
    cases_of(change, ALL)


def test_written_again_in_place():
    # np.save opens the file with O_TRUNC and writes it again: the same
    # size at the end, other data.
    def change(src, a):
        np.save(src, a + 1)
        return ["'%s' changed while it was read" % src]
    cases_of(change, SOME)


def test_replaced_by_another_file():
    def change(src, a):
        other = os.path.join(os.path.dirname(src), 'other.npy')
        np.save(other, a + 1)
        os.replace(other, src)
        return ["'%s' changed while it was read: it was replaced by another "
                "file" % src]
    cases_of(change, SOME[::-1] + [('auto', REDUCE)])


def test_hdf5_cut_short():
    """An HDF5 file cut short while its chunks are read: libhdf5 fails on
    the chunk index or a chunk's bytes, and the error says that the file
    changed, as for a .npy (it said 'HDF5 cannot read rows 11400-11500 of
    its dataset '/x' (a corrupt chunk, ...): wrong B-tree signature')."""
    try:
        import h5py
    except ImportError:
        print('     (h5py not installed: skipped)')
        return
    if os.environ.get('PLAN_HAVE_HDF5', '1') == '0':
        print('     (built without HDF5: skipped)')
        return
    a = np.arange(ROWS, dtype=np.float32).reshape(-1, 16)
    for kw in [dict(chunks=(1024, 16)),
               dict(chunks=(1024, 16), compression='gzip', shuffle=True)]:
        src = os.path.join(tmpdir(), 'in.h5')
        with h5py.File(src, 'w') as f:
            f.create_dataset('x', data=a, **kw)
        d = tmpdir()
        p = start(src, os.path.join(d, 'out.npy'), 'auto', None)
        try:
            os.truncate(src, os.path.getsize(src) // 2)
            finish(p, 'HDF5, %s' % kw, d, "'%s' changed while it was read: "
                   "it now ends at byte %d" % (src, os.path.getsize(src)))
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()


if __name__ == '__main__':
    run_cases([
        ('an input cut short to its header', test_truncated_to_its_header),
        ('an input written again in place', test_written_again_in_place),
        ('an input replaced by another file', test_replaced_by_another_file),
        ('an HDF5 input cut short', test_hdf5_cut_short),
    ])
