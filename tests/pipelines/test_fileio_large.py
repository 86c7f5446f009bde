"""A .npy file of over 1 GiB copied by planfilesrc ! planfilesink in bounded
memory, in both of planfilesrc's io modes.

- io-mode=read: the peak resident set size of gst-launch-1.0 (VmHWM) must
  stay under MAX_RSS_MIB whatever the file size: read-ahead and
  write-behind hold a few chunks of 1 MiB.
- io-mode=mmap (the default): the chunks are the file's page-cache pages,
  mapped, and count in the RSS only while mapped. The process's own memory
  (RssAnon, sampled every 10 ms) must stay under MAX_RSS_MIB, and all of
  its RSS, mapped pages included, under MAX_MAPPED_RSS_MIB: the chunks in
  flight (2 MiB each by default), not the file.

Slow: it writes and reads 2.2 GiB per mode; the files are deleted
afterwards. Skipped (77) when the temporary directory has too little free
space."""
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
MAX_MAPPED_RSS_MIB = 192
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


def status_kib(pid, field):
    """A field of /proc/PID/status in KiB (VmHWM: the peak RSS since exec;
    RssAnon: the process's own memory now), 0 when it is gone."""
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith(field + ':'):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def copy(src, dst, d, mode):
    """Copies src to dst with io-mode=mode; returns None or a failure."""
    log = open(os.path.join(d, 'log.txt'), 'w+')
    t0 = time.monotonic()
    p = subprocess.Popen(['gst-launch-1.0', '-q', 'planfilesrc',
                          'io-mode=' + mode, 'location=' + src, '!',
                          'planfilesink', 'location=' + dst],
                         stdout=log, stderr=subprocess.STDOUT)
    # Not getrusage: a child forked from this (large) Python process keeps
    # Python's peak in its ru_maxrss across exec.
    hwm_kib = anon_kib = 0
    while p.poll() is None:
        hwm_kib = max(hwm_kib, status_kib(p.pid, 'VmHWM'))
        anon_kib = max(anon_kib, status_kib(p.pid, 'RssAnon'))
        time.sleep(0.01)
    elapsed = time.monotonic() - t0
    log.seek(0)
    out = log.read()
    size = os.path.getsize(src)
    print('io-mode=%s: copied %.2f GiB in %.2f s (%.0f MiB/s), peak RSS '
          '%.1f MiB, of it the process\'s own at most %.1f MiB' %
          (mode, size / 2**30, elapsed, size / 2**20 / elapsed,
           hwm_kib / 1024, anon_kib / 1024))
    if hwm_kib == 0 or anon_kib == 0:
        return 'could not read the memory use of gst-launch-1.0'
    if p.returncode != 0:
        return 'pipeline failed: %s' % out
    own = (hwm_kib if mode == 'read' else anon_kib) / 1024
    if own > MAX_RSS_MIB:
        return 'peak memory %.1f MiB is over %d MiB' % (own, MAX_RSS_MIB)
    if hwm_kib / 1024 > MAX_MAPPED_RSS_MIB:
        return 'peak RSS %.1f MiB is over %d MiB' % (hwm_kib / 1024,
                                                   MAX_MAPPED_RSS_MIB)
    return check_output(dst)


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
        for mode in ('read', 'mmap'):
            problem = copy(src, dst, d, mode)
            if problem:
                print('FAIL: io-mode=%s: %s' % (mode, problem))
                return 1
            os.unlink(dst)
        print('ok   large file copied in bounded memory, both io modes')
        return 0
    finally:
        shutil.rmtree(d, ignore_errors=True)


sys.exit(main())
