"""A .npy file of over 1 GiB copied by planfilesrc ! planfilesink in bounded
memory: the peak resident set size of gst-launch-1.0 must stay under
MAX_RSS_MIB, whatever the file size (read-ahead and write-behind hold a few
chunks of about 1 MiB each). Slow: it writes and reads 2.2 GiB; the files
are deleted afterwards. Skipped (77) when the temporary directory has too
little free space."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ROWS = 4_500_000
COLS = 64                  # float32: 256 bytes a row, 1.07 GiB in all
MAX_RSS_MIB = 64
CHUNK_ROWS = 1 << 18


def rows_block(start, n):
    """Rows [start, start + n): row r holds r + column / 64."""
    r = np.arange(start, start + n, dtype=np.float64)[:, None]
    c = np.arange(COLS, dtype=np.float64)[None, :] / COLS
    return (r + c).astype(np.float32)


def write_input(path):
    with open(path, 'wb') as f:
        np.lib.format.write_array_header_1_0(
            f, {'descr': '<f4', 'fortran_order': False, 'shape': (ROWS, COLS)})
        for start in range(0, ROWS, CHUNK_ROWS):
            f.write(rows_block(start, min(CHUNK_ROWS, ROWS - start)).tobytes())


def check_output(path):
    b = np.load(path, mmap_mode='r')
    if b.shape != (ROWS, COLS) or b.dtype != np.float32:
        return 'output is %s %s' % (b.dtype, b.shape)
    for start in range(0, ROWS, CHUNK_ROWS):
        n = min(CHUNK_ROWS, ROWS - start)
        if not np.array_equal(b[start:start + n], rows_block(start, n)):
            return 'rows %d-%d differ' % (start, start + n)
    return None


def vm_hwm_kib(pid):
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith('VmHWM:'):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main():
    d = tempfile.mkdtemp(prefix='plan-large-')
    try:
        need = 2 * ROWS * COLS * 4 + (256 << 20)
        if shutil.disk_usage(d).free < need:
            print('skip: less than %d MiB free in %s' % (need >> 20, d))
            return 77
        src, dst = os.path.join(d, 'in.npy'), os.path.join(d, 'out.npy')
        write_input(src)
        size = os.path.getsize(src)
        # Build the registry first: the plugin scanner it may spawn loads
        # every plugin and would count as part of the copy's peak RSS.
        subprocess.run(['gst-inspect-1.0', 'planfilesrc'],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t0 = time.monotonic()
        log = open(os.path.join(d, 'log.txt'), 'w+')
        p = subprocess.Popen(['gst-launch-1.0', '-q', 'planfilesrc',
                              'location=' + src, '!', 'planfilesink',
                              'location=' + dst],
                             stdout=log, stderr=subprocess.STDOUT)
        # VmHWM, the peak RSS of the process image since exec. Not
        # getrusage: a child forked from this (large) Python process keeps
        # Python's peak in its ru_maxrss across exec.
        hwm_kib = 0
        while p.poll() is None:
            hwm_kib = max(hwm_kib, vm_hwm_kib(p.pid))
            time.sleep(0.01)
        elapsed = time.monotonic() - t0
        log.seek(0)
        out = log.read()
        rss_mib = hwm_kib / 1024
        print('copied %.2f GiB in %.2f s (%.0f MiB/s), peak RSS %.1f MiB' %
              (size / 2**30, elapsed, size / 2**20 / elapsed, rss_mib))
        if hwm_kib == 0:
            print('FAIL: could not read the peak RSS of gst-launch-1.0')
            return 1
        if p.returncode != 0:
            print('FAIL: pipeline failed: %s' % out)
            return 1
        if rss_mib > MAX_RSS_MIB:
            print('FAIL: peak RSS %.1f MiB is over %d MiB' % (rss_mib,
                                                            MAX_RSS_MIB))
            return 1
        problem = check_output(dst)
        if problem:
            print('FAIL: %s' % problem)
            return 1
        print('ok   large file copied in bounded memory')
        return 0
    finally:
        shutil.rmtree(d, ignore_errors=True)


sys.exit(main())
