#!/usr/bin/python3
"""The resident memory of file-to-file plans with the default settings:
what performance.md and planfilesrc.md promise.

- A map `x + y` of two 256 MiB float32 .npy files into a file stays at
  most 64 MiB resident (VmHWM, every page counted, mapped file pages
  included): mapped chunks count only while they are in flight, and a
  chunk's pages leave the process when it is freed.
- A copy (planfilesrc ! planfilesink) and a sum stay under it too.

The inputs are sparse files (a header, a first MiB of data, then a hole),
so the test writes little; the pages the plan maps count all the same.
The output's first MiB and its zeros are checked against numpy."""
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import Failure, run_cases, tmpdir  # noqa: E402

N = 64 << 20                # float32 elements: 256 MiB per input
HEAD = 1 << 18              # elements of real data at the start
MAX_RSS_MIB = 64


def sparse_input(path, seed):
    a = np.random.default_rng(seed).random(HEAD, dtype=np.float32)
    with open(path, 'wb') as f:
        np.lib.format.write_array_header_1_0(
            f, {'descr': '<f4', 'fortran_order': False, 'shape': (N,)})
        f.write(a.tobytes())
        f.truncate(f.tell() + (N - HEAD) * 4)
    return a


def status_kib(pid, field):
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith(field + ':'):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def peak_rss_mib(*words):
    """Runs gst-launch-1.0 with @words; its peak RSS in MiB. Not
    getrusage(): a child forked from this Python process keeps Python's
    peak across exec."""
    p = subprocess.Popen(['gst-launch-1.0', '-q'] + list(words),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    hwm = 0
    while p.poll() is None:
        hwm = max(hwm, status_kib(p.pid, 'VmHWM'))
        time.sleep(0.005)
    out = p.stdout.read()
    if p.returncode != 0:
        raise Failure('failed (%d): %s\n%s' % (p.returncode, ' '.join(words),
                                              out))
    if hwm == 0:
        raise Failure('could not read the memory use of gst-launch-1.0')
    return hwm / 1024


def inputs():
    d = tmpdir()
    x_path, y_path = os.path.join(d, 'x.npy'), os.path.join(d, 'y.npy')
    x, y = sparse_input(x_path, 1), sparse_input(y_path, 2)
    # Built before anything is measured: the plugin scanner it may spawn
    # would count as part of the first run's memory.
    subprocess.run(['gst-inspect-1.0', 'planfilesrc'],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return d, x_path, y_path, x, y


def check_limit(what, mib):
    print('%s: peak RSS %.1f MiB' % (what, mib))
    if mib > MAX_RSS_MIB:
        raise Failure('%s: peak RSS %.1f MiB is over %d MiB' % (
            what, mib, MAX_RSS_MIB))


def map_file_to_file():
    d, x_path, y_path, x, y = inputs()
    out = os.path.join(d, 'out.npy')
    check_limit('x + y file to file', peak_rss_mib(
        'planmap', 'name=m', 'expr=x + y', '!', 'planfilesink',
        'location=' + out, 'planfilesrc', 'location=' + x_path, '!',
        'm.sink_0', 'planfilesrc', 'location=' + y_path, '!', 'm.sink_1'))
    got = np.load(out, mmap_mode='r')
    if got.shape != (N,) or got.dtype != np.float32:
        raise Failure('output is %s %s' % (got.dtype, got.shape))
    if not np.array_equal(got[:HEAD], x + y):
        raise Failure('the output\'s first rows are not x + y')
    if np.count_nonzero(got[HEAD:]):
        raise Failure('the output is not zero where the inputs are')


def copy_and_sum():
    d, x_path, _, x, _ = inputs()
    out = os.path.join(d, 'out.npy')
    check_limit('copy', peak_rss_mib('planfilesrc', 'location=' + x_path,
                                     '!', 'planfilesink', 'location=' + out))
    with open(x_path, 'rb') as a, open(out, 'rb') as b:
        while True:
            p, q = a.read(1 << 20), b.read(1 << 20)
            if p != q:
                raise Failure('the copy differs from its input')
            if not p:
                break
    check_limit('sum', peak_rss_mib('planfilesrc', 'location=' + x_path, '!',
                                    'planreduce', 'op=sum', '!', 'fakesink'))


if __name__ == '__main__':
    sys.exit(run_cases([
        ('a file-to-file map in at most 64 MiB', map_file_to_file),
        ('a copy and a sum in at most 64 MiB', copy_and_sum),
    ]))
