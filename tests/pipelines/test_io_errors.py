"""IO errors in the middle of a pipeline, which no file system here makes
on demand: the failio LD_PRELOAD module (failio.c) makes write(), pwrite(),
fallocate() and pread() fail on chosen files.

For every failure the pipeline must stop with an error that names the file
and the system's reason, an existing output file must be left as it was,
and no temporary file may be left behind; a failure to reserve blocks
ahead (fallocate) must not be an error at all, but for an HDF5 output,
whose blocks are reserved before libhdf5 writes them."""
import os
import subprocess
import sys

import numpy as np

import plantest
from plantest import Failure

ROWS = 1 << 20                  # 4 MiB of float32: several writes
# The file being written: unnamed (O_TMPFILE, its path in /proc ends
# "(deleted)") or, where the file system has no unnamed files, the hidden
# temporary file.
OUT = '.part|(deleted)'
# As on a file system without O_TMPFILE: the writer falls back to a named
# temporary file.
NO_TMPFILE = {'PLAN_FAIL_TMPFILE': 95}
# As between two file systems that cannot copy from one to the other: a
# chunk that is the input's own pages is written with write() instead of
# copy_file_range().
NO_COPY_RANGE = {'PLAN_FAIL_COPY_RANGE': 18}


def module():
    build = os.environ.get('PLAN_BUILD_DIR')
    path = os.path.join(build, 'tests', 'pipelines', 'libfailio.so') if build else ''
    return path if os.path.exists(path) else None


def run(words, **fail):
    env = dict(os.environ, LD_PRELOAD=module())
    env.update({k: str(v) for k, v in fail.items()})
    cmd = plantest.launcher() + ['-q'] + words
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120, env=env)
    return p.returncode, p.stdout


def setup(d):
    a = np.arange(ROWS, dtype=np.float32)
    src, dst = os.path.join(d, 'in.npy'), os.path.join(d, 'out.npy')
    np.save(src, a)
    old = np.full(7, -1.0)
    np.save(dst, old)
    return a, src, dst, old


def expect_failure(what, words, d, dst, old, reason, name, **fail):
    rc, out = run(words, **fail)
    if rc == 0:
        raise Failure('%s: the pipeline succeeded\n%s' % (what, out))
    if reason not in out or name not in out:
        raise Failure('%s: the error does not say "%s" about %s:\n%s' %
                      (what, reason, name, out))
    plantest.assert_same(np.load(dst), old, what + ': the old output')
    left = sorted(f for f in os.listdir(d) if f.startswith('.'))
    if left:
        raise Failure('%s: temporary files left: %s' % (what, left))
    print('ok   %s' % what)


def main():
    if module() is None:
        print('skip: libfailio.so was not built')
        return 77
    d = plantest.tmpdir()
    a, src, dst, old = setup(d)
    copy = ['planfilesrc', 'location=' + src, '!', 'planfilesink',
            'location=' + dst]

    for how, extra in (('', {}), (' (temporary file)', NO_TMPFILE),
                       (' (no copy_file_range)', NO_COPY_RANGE)):
        expect_failure('EIO from write() after 1 MiB' + how, copy, d, dst,
                       old, 'Input/output error', dst, PLAN_FAIL_MATCH=OUT,
                       PLAN_FAIL_WRITE=5, PLAN_FAIL_AFTER=1 << 20, **extra)
        expect_failure('a disk that fills up after 2 MiB (fallocate and '
                       'write fail with ENOSPC)' + how, copy, d, dst, old,
                       'No space left on device', dst, PLAN_FAIL_MATCH=OUT,
                       PLAN_FAIL_FALLOCATE=28, PLAN_FAIL_WRITE=28,
                       PLAN_FAIL_AFTER=(2 << 20) + 100, **extra)
        expect_failure('EIO completing the .npy header at the end' + how,
                       copy, d, dst, old, 'Input/output error', dst,
                       PLAN_FAIL_MATCH=OUT, PLAN_FAIL_PWRITE=5, **extra)
    expect_failure('EIO reading the input (io-mode=read)',
                   ['planfilesrc', 'io-mode=read', 'location=' + src, '!',
                    'planfilesink', 'location=' + dst], d, dst, old,
                   'Input/output error', src, PLAN_FAIL_MATCH='in.npy',
                   PLAN_FAIL_PREAD=5)

    # fsync=true: the file flushed failing is the write's failure; the
    # directory it was put in place in is flushed too (a rename or a link
    # is data of the directory: without it the new file could be missing
    # after a crash of the machine), and that failing is an error that
    # says the file is in place. Each format that the sink renames.
    synced = copy + ['fsync=true']
    expect_failure('EIO flushing the file (fsync=true)', synced, d, dst, old,
                   'Could not flush to disk', dst, PLAN_FAIL_MATCH=OUT,
                   PLAN_FAIL_FSYNC=5)
    rc, out = run(synced, PLAN_FAIL_MATCH=d + '$', PLAN_FAIL_FSYNC=5)
    if rc != 1 or ("Could not flush the directory '%s' to disk once '%s' "
                   "was put in place: Input/output error" % (d, dst)
                   ) not in out:
        raise Failure('EIO flushing the directory: rc %d:\n%s' % (rc, out))
    plantest.assert_same(np.load(dst), a, 'the file put in place')
    np.save(dst, old)
    print('ok   EIO flushing the directory the file went in (fsync=true)')
    for name in ('synced.h5', 'synced.zarr', 'synced.npz'):
        if name.endswith('.h5') and not plantest.built_with('hdf5'):
            continue
        if name.endswith('.zarr') and not plantest.built_with('zarr'):
            continue
        target = os.path.join(d, name)
        rc, out = run(['planfilesrc', 'location=' + src, '!', 'planfilesink',
                       'location=' + target, 'fsync=true'],
                      PLAN_FAIL_MATCH=d + '$', PLAN_FAIL_FSYNC=5)
        if rc != 1 or "Could not flush the directory '%s'" % d not in out:
            raise Failure('EIO flushing the directory of %s: rc %d:\n%s' %
                          (name, rc, out))
        print('ok   EIO flushing the directory of %s' % name)
    rc, out = run(synced)
    if rc != 0:
        raise Failure('fsync=true without failures failed:\n%s' % out)
    plantest.assert_same(np.load(dst), a, 'fsync=true')
    np.save(dst, old)

    # Reserving blocks ahead failing is no error: the writes go on.
    for err, name in ((28, 'ENOSPC'), (95, 'EOPNOTSUPP')):
        rc, out = run(copy, PLAN_FAIL_MATCH=OUT, PLAN_FAIL_FALLOCATE=err)
        if rc != 0:
            raise Failure('fallocate failing with %s failed the copy:\n%s' %
                          (name, out))
        plantest.assert_same(np.load(dst), a, 'copy without preallocation')
        np.save(dst, old)
        print('ok   fallocate failing with %s: the copy is complete' % name)

    # A chunk that is pages of the input file is copied by the kernel
    # (copy_file_range), and a failure there is the write's failure.
    expect_failure('EIO from copy_file_range()', copy, d, dst, old,
                   'Input/output error', dst, PLAN_FAIL_MATCH=OUT,
                   PLAN_FAIL_COPY_RANGE=5)
    for err, name in ((18, 'EXDEV'), (95, 'EOPNOTSUPP')):
        rc, out = run(copy, PLAN_FAIL_MATCH=OUT, PLAN_FAIL_COPY_RANGE=err)
        if rc != 0:
            raise Failure('copy_file_range() failing with %s failed the '
                          'copy:\n%s' % (name, out))
        plantest.assert_same(np.load(dst), a, 'copy with write()')
        np.save(dst, old)
        print('ok   copy_file_range() failing with %s: written instead'
              % name)

    # planfilesink writes a file in pieces of at most 64 KiB (larger
    # writes make the kernel allocate large page-cache folios, which cost
    # the most on virtual machines that report free memory to the host).
    # (The kernel's copy_file_range() moves 64 KiB at a time itself.)
    for words, what in ((copy, 'copy'),
                        (['planfilesrc', 'location=' + src, '!', 'planmap',
                          'expr=x + 1', '!', 'planfilesink',
                          'location=' + dst], 'map')):
        rc, out = run(words, PLAN_FAIL_MATCH=OUT, PLAN_FAIL_WRITE_OVER=65536,
                      **NO_COPY_RANGE)
        if rc != 0:
            raise Failure('a %s wrote more than 64 KiB in one write():\n%s'
                          % (what, out))
        plantest.assert_same(np.load(dst), a + (what == 'map'),
                             what + ' in 64 KiB writes')
        np.save(dst, old)
    expect_failure('a write() over 1 KiB refused (the module works)', copy,
                   d, dst, old, 'File too large', dst, PLAN_FAIL_MATCH=OUT,
                   PLAN_FAIL_WRITE_OVER=1024, **NO_COPY_RANGE)
    print('ok   a copy writes in pieces of at most 64 KiB')

    # A .npz output, stored and deflated: a write failing in the middle of
    # the member, and the sizes, CRC-32 and .npy header written over at the
    # end failing, leave the archive there as it was.
    npz = os.path.join(d, 'out.npz')
    np.savez(npz, old=old)
    for props in ([], ['compression=1']):
        words = ['planfilesrc', 'location=' + src, '!', 'planfilesink',
                 'location=' + npz] + props
        for what, reason, fail in (
                ('EIO from write() after 1 MiB', 'Input/output error',
                 dict(PLAN_FAIL_WRITE=5, PLAN_FAIL_AFTER=1 << 20)),
                ('a disk full after 100 KiB', 'No space left on device',
                 dict(PLAN_FAIL_WRITE=28, PLAN_FAIL_AFTER=100 << 10)),
                ('EIO completing the sizes and CRC-32 at the end',
                 'Input/output error', dict(PLAN_FAIL_PWRITE=5)),
                ('file-mode=add: EIO copying the members there',
                 'Input/output error', dict(PLAN_FAIL_COPY_RANGE=5,
                                            extra=['file-mode=add'])),
                ('file-mode=add: EIO writing them (no copy_file_range)',
                 'Input/output error', dict(PLAN_FAIL_WRITE=5,
                                            extra=['file-mode=add'],
                                            **NO_COPY_RANGE))):
            what = '.npz %s: %s' % (' '.join(props) or 'stored', what)
            fail = dict(fail)
            rc, out = run(words + fail.pop('extra', []), PLAN_FAIL_MATCH=OUT,
                          **fail)
            if rc == 0:
                raise Failure('%s: the pipeline succeeded\n%s' % (what, out))
            if reason not in out or npz not in out:
                raise Failure('%s: the error does not say "%s" about %s:\n%s'
                              % (what, reason, npz, out))
            with np.load(npz) as z:
                plantest.assert_same(z['old'], old, what + ': the old output')
            left = sorted(f for f in os.listdir(d) if f.startswith('.'))
            if left:
                raise Failure('%s: temporary files left: %s' % (what, left))
            print('ok   %s' % what)
        rc, out = run(words)
        if rc != 0:
            raise Failure('.npz without failures failed:\n%s' % out)
        with np.load(npz) as z:
            plantest.assert_same(z['arr_0'], a, '.npz without failures')
        np.savez(npz, old=old)

    # An HDF5 output: the blocks of the chunks rows go to are reserved
    # before libhdf5 writes them, so a full disk is the system's error,
    # said before libhdf5 meets it (a write libhdf5 cannot finish loses
    # what it holds, and HDF5 1.10 then prints "HDF5: infinite loop
    # closing library" at exit). A file system without fallocate is
    # written without reserving.
    if plantest.built_with('hdf5'):
        import h5py
        h5 = os.path.join(d, 'out.h5')
        with h5py.File(h5, 'w') as f:
            f['old'] = old
        words = ['planfilesrc', 'location=' + src, '!', 'planfilesink',
                 'location=' + h5]
        for what, extra in (('', []), (', file-mode=add',
                                       ['file-mode=add', 'dataset=/new'])):
            what = 'HDF5%s: a full disk (fallocate fails with ENOSPC)' % what
            rc, out = run(words + extra, PLAN_FAIL_MATCH=OUT,
                          PLAN_FAIL_FALLOCATE=28)
            if rc == 0:
                raise Failure('%s: the pipeline succeeded\n%s' % (what, out))
            if ("Could not write to '%s': No space left on device" % h5
                    not in out or 'HDF5' in out):
                raise Failure('%s: not the system\'s error alone, or '
                              'libhdf5 wrote to standard error:\n%s'
                              % (what, out))
            with h5py.File(h5, 'r') as f:
                if list(f) != ['old']:
                    raise Failure('%s: the old file changed: %s' %
                                  (what, list(f)))
                plantest.assert_same(f['old'][...], old, what)
            left = sorted(f for f in os.listdir(d) if f.startswith('.'))
            if left:
                raise Failure('%s: temporary files left: %s' % (what, left))
            print('ok   %s' % what)
        # A disk that fills as the chunks go in (PLAN_FAIL_DISK: 4,000,000
        # bytes for 4 MiB of rows): the chunks libhdf5 holds in its cache are not
        # in the file yet, and each reservation starts past the last one,
        # not at the file's end, so the disk is found full before libhdf5
        # writes (it started at the end and met it in libhdf5's own
        # writes at close: "the HDF5 library gave no reason").
        what = 'HDF5: a disk that fills as the chunks are written'
        rc, out = run(words, PLAN_FAIL_MATCH=OUT,
                      PLAN_FAIL_DISK=4000000)
        if rc == 0:
            raise Failure('%s: the pipeline succeeded\n%s' % (what, out))
        if ("Could not write to '%s': No space left on device" % h5
                not in out or 'HDF5' in out):
            raise Failure('%s: not the system\'s error alone, or libhdf5 '
                          'wrote to standard error:\n%s' % (what, out))
        with h5py.File(h5, 'r') as f:
            plantest.assert_same(f['old'][...], old, what)
        print('ok   %s' % what)
        # Writes failing in libhdf5 (a disk full before any block could be
        # reserved, or a compressed output, whose chunks are not): the
        # system's error, not libhdf5's text with its time and pointers.
        for props in ([], ['compression=4']):
            what = 'HDF5 %s: pwrite() fails with ENOSPC' % (
                ' '.join(props) or 'uncompressed')
            rc, out = run(words + props, PLAN_FAIL_MATCH=OUT,
                          PLAN_FAIL_PWRITE=28)
            want = ("Could not write '%s': HDF5 cannot create the file: "
                    "No space left on device\n" % h5)
            if rc == 0 or want not in out or 'errno' in out:
                raise Failure('%s: rc %d, not "%s":\n%s' % (what, rc, want,
                                                            out))
            with h5py.File(h5, 'r') as f:
                plantest.assert_same(f['old'][...], old, what)
            left = sorted(f for f in os.listdir(d) if f.startswith('.'))
            if left:
                raise Failure('%s: temporary files left: %s' % (what, left))
            print('ok   %s' % what)
        rc, out = run(words, PLAN_FAIL_MATCH=OUT, PLAN_FAIL_FALLOCATE=95)
        if rc != 0:
            raise Failure('HDF5 with fallocate failing with EOPNOTSUPP '
                          'failed:\n%s' % out)
        with h5py.File(h5, 'r') as f:
            plantest.assert_same(f['data'][...], a, 'HDF5 without fallocate')
        rc, out = run(words)
        if rc != 0:
            raise Failure('HDF5 without failures failed:\n%s' % out)
        with h5py.File(h5, 'r') as f:
            plantest.assert_same(f['data'][...], a, 'HDF5 without failures')
        # The blocks reserved past the end are given back.
        st = os.stat(h5)
        if st.st_blocks * 512 > st.st_size + (64 << 10):
            raise Failure('HDF5: %d bytes of blocks for a file of %d' %
                          (st.st_blocks * 512, st.st_size))
        print('ok   HDF5 without fallocate, and without failures')

    # A file size limit (ulimit -f, RLIMIT_FSIZE) under the output's size:
    # the write fails with EFBIG and the error says so, file named; the
    # process is not killed by SIGXFSZ (plan-launch ignores it, as Python
    # does, and the writer thread blocks it). An HDF5 output is refused
    # before libhdf5 writes past the limit (libhdf5 1.10 would then fail
    # to truncate the file as it closes it, and crash at exit).
    def limited():
        import resource
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
    outs = [dst]
    if plantest.built_with('hdf5'):
        outs.append(os.path.join(d, 'out.h5'))
    for out_path in outs:
        keep = open(out_path, 'rb').read()
        p = subprocess.run(plantest.launcher() + [
            '-q', 'planfilesrc', 'location=' + src, '!', 'planfilesink',
            'location=' + out_path], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, timeout=120,
            preexec_fn=limited)
        what = 'a file size limit of 1 MiB, %s' % os.path.basename(out_path)
        want = "Could not write to '%s': File too large" % out_path
        if p.returncode != 1 or want not in p.stdout or 'HDF5' in p.stdout:
            raise Failure('%s: rc %d, not "%s" alone:\n%s' % (
                what, p.returncode, want, p.stdout))
        if open(out_path, 'rb').read() != keep:
            raise Failure('%s: the old output changed' % what)
        left = sorted(f for f in os.listdir(d) if f.startswith('.'))
        if left:
            raise Failure('%s: temporary files left: %s' % (what, left))
        print('ok   %s' % what)

    # A compressed HDF5 output has no blocks reserved ahead (a chunk's size
    # is known once it is compressed), so libhdf5 met the limit itself:
    # the write failed, then the truncation as it closed the file, and
    # HDF5 1.10 crashed in its exit handler (plan-launch: SIGSEGV);
    # gst-launch-1.0, which does not ignore SIGXFSZ, was killed by it as
    # the streaming thread closed the file, leaving the hidden .part file.
    # It is refused before libhdf5 could pass the limit, under both.
    if plantest.built_with('hdf5'):
        noise = os.path.join(d, 'noise.npy')
        np.save(noise, np.random.default_rng(7).random(1 << 19))
        h5 = os.path.join(d, 'out.h5')
        keep = open(h5, 'rb').read()
        for tool in (plantest.launcher(), ['gst-launch-1.0']):
            p = subprocess.run(tool + [
                '-q', 'planfilesrc', 'location=' + noise, '!',
                'planfilesink', 'location=' + h5, 'compression=4'],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                timeout=120, preexec_fn=limited)
            what = ('a file size limit of 1 MiB, compressed HDF5, %s' %
                    os.path.basename(tool[0]))
            want = "Could not write to '%s': File too large" % h5
            if p.returncode != 1 or want not in p.stdout:
                raise Failure('%s: rc %d, not "%s":\n%s' % (
                    what, p.returncode, want, p.stdout))
            if open(h5, 'rb').read() != keep:
                raise Failure('%s: the old output changed' % what)
            left = sorted(f for f in os.listdir(d) if f.startswith('.'))
            if left:
                raise Failure('%s: temporary files left: %s' % (what, left))
            print('ok   %s' % what)
        os.unlink(noise)

    # An address-space limit (ulimit -v) under the chunks planfilesrc reads
    # ahead into (io-mode=read: three of 1 GiB, of a sparse file that costs
    # no disk): the pool's g_malloc() aborted the program (GLib-ERROR,
    # SIGTRAP); the reader says it cannot have them. Smaller chunks read.
    sparse = os.path.join(d, 'sparse.raw')
    with open(sparse, 'wb') as f:
        f.truncate(1 << 30)

    def small_address_space():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (3 << 29, 3 << 29))
    # AddressSanitizer reserves terabytes of address space for its shadow
    # memory, so an address-space limit stops a sanitized build at start.
    ldd = subprocess.run(['ldd', plantest.launcher()[0]], text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    sanitized = 'libasan' in ldd.stdout or 'libtsan' in ldd.stdout
    for blocksize, ok in ((1 << 30, False), (1 << 20, True)):
        if sanitized:
            print('skip ulimit -v: a sanitized build')
            break
        p = subprocess.run(plantest.launcher() + [
            '-q', 'planfilesrc', 'location=' + sparse, 'format=raw',
            'dtype=int8', 'io-mode=read', 'blocksize=%d' % blocksize, '!',
            'planreduce', 'op=max', '!', 'fakesink'],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=120, preexec_fn=small_address_space)
        what = 'ulimit -v of 1.5 GiB, chunks of %d bytes' % blocksize
        want = ("Could not read '%s': cannot allocate 3 chunks of %d bytes: "
                "not enough memory" % (sparse, blocksize))
        if ok and p.returncode != 0:
            raise Failure('%s: rc %d:\n%s' % (what, p.returncode, p.stdout))
        if not ok and (p.returncode != 1 or want not in p.stdout):
            raise Failure('%s: rc %d, not "%s":\n%s' % (
                what, p.returncode, want, p.stdout))
        print('ok   %s' % what)
    os.unlink(sparse)

    # The module really fails the calls it is asked to: the same copy
    # without it works.
    rc, out = run(copy)
    if rc != 0:
        raise Failure('the copy failed without failures:\n%s' % out)
    plantest.assert_same(np.load(dst), a, 'copy')
    print('ok   the same copy without failures')
    return 0


sys.exit(main())
