#!/usr/bin/python3
"""Outputs and signals: planfilesink writes an unnamed file (O_TMPFILE)
linked into place at EOS, so gst-launch-1.0 killed by SIGTERM or SIGKILL
in the middle of a job leaves nothing in the output's directory; names of
any valid length work, with the unnamed file and with the named temporary
file of file systems without O_TMPFILE (made here by the failio module).
docs/reliability.md lists each behaviour with its test."""
import os
import signal
import stat
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plantest  # noqa: E402
from plantest import (Failure, assert_same, gst_launch_1_0, launch,  # noqa: E402
                      run_cases, tmpdir)

TIMEOUT = 60
# As on a file system without O_TMPFILE (NFS, FAT, ...).
NO_TMPFILE = {'PLAN_FAIL_TMPFILE': '95'}


def failio():
    build = os.environ.get('PLAN_BUILD_DIR', '')
    path = os.path.join(build, 'tests', 'pipelines', 'libfailio.so')
    return path if os.path.exists(path) else None


def env_with(extra):
    env = dict(os.environ)
    if extra:
        if failio() is None:
            raise Failure('libfailio.so was not built')
        env['LD_PRELOAD'] = failio()
        env.update(extra)
    return env


def gst_launch(words, extra=None):
    p = gst_launch_1_0(words, TIMEOUT, env=env_with(extra))
    if p.returncode != 0:
        raise Failure('failed (%d): %s\n%s' % (p.returncode, ' '.join(p.args),
                                              p.stdout))


def source(d, rows=20000):
    a = (np.arange(rows) % 251).astype(np.float32)
    src = os.path.join(d, 'in.npy')
    np.save(src, a)
    return a, src


def slow_job(src, dst):
    """planfilesrc ! planmap ! planfilesink, slowed down by identity to a
    chunk every 20 ms, for about 4 s: long enough to be killed while the
    output is half written."""
    return ['planfilesrc', 'location=' + src, 'blocksize=4000', '!',
            'identity', 'sleep-time=20000', '!', 'planmap', 'expr=x * 2',
            '!', 'planfilesink', 'location=' + dst]


def written_so_far(pid, d):
    """Bytes the process has written to files in @d, whatever their names
    (an unnamed file shows in /proc as '#inode (deleted)')."""
    total = 0
    fds = '/proc/%d/fd' % pid
    for fd in os.listdir(fds):
        try:
            target = os.readlink(os.path.join(fds, fd))
        except OSError:
            continue
        if target.startswith(d + '/') and not target.endswith('in.npy'):
            try:
                total += os.fstat(os.open(os.path.join(fds, fd),
                                          os.O_RDONLY)).st_size
            except OSError:
                pass
    return total


def kill_mid_job(sig, extra=None):
    """Starts the slow job, waits until part of the output is written,
    sends @sig, and returns the directory's listing afterwards (and the
    one before the job)."""
    d = tmpdir()
    a, src = source(d)
    dst = os.path.join(d, 'out.npy')
    before = sorted(os.listdir(d))
    p = subprocess.Popen(['gst-launch-1.0', '-q'] + slow_job(src, dst),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         env=env_with(extra))
    try:
        deadline = time.monotonic() + 10
        while written_so_far(p.pid, d) < 4096:
            if p.poll() is not None or time.monotonic() > deadline:
                raise Failure('the job wrote nothing: %s' %
                              (p.stdout.read() if p.poll() is not None
                               else 'timeout'))
            time.sleep(0.02)
        p.send_signal(sig)
        p.wait(timeout=TIMEOUT)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    if p.returncode == 0:
        raise Failure('the job was not killed: it had finished')
    return before, sorted(os.listdir(d))


def test_sigterm_leaves_nothing():
    before, after = kill_mid_job(signal.SIGTERM)
    if after != before:
        raise Failure('left after SIGTERM: %s' % sorted(set(after) -
                                                         set(before)))


def test_sigkill_leaves_nothing():
    before, after = kill_mid_job(signal.SIGKILL)
    if after != before:
        raise Failure('left after SIGKILL: %s' % sorted(set(after) -
                                                         set(before)))


def test_sigterm_without_tmpfile_leaves_the_temporary_file():
    """Without O_TMPFILE a killed process cannot remove its temporary file:
    it is the hidden .NAME.XXXXXX.part the docs name, and the output is not
    there."""
    before, after = kill_mid_job(signal.SIGTERM, NO_TMPFILE)
    new = sorted(set(after) - set(before))
    if len(new) != 1 or not (new[0].startswith('.out.npy.')
                             and new[0].endswith('.part')):
        raise Failure('expected one .out.npy.XXXXXX.part, found %s' % new)


def test_long_basenames():
    """Output names of 243 to 255 bytes (the longest a name may be), ASCII
    and UTF-8, new and replacing a file, with and without O_TMPFILE."""
    d = tmpdir()
    a, src = source(d, rows=1000)
    names = ['a' * (n - 4) + '.npy' for n in (243, 250, 255)]
    names.append('é' * 125 + '.npy')          # 254 bytes, 2 per character
    for extra in (None, NO_TMPFILE):
        for name in names:
            dst = os.path.join(d, name)
            gst_launch(['planfilesrc', 'location=' + src, '!', 'planmap',
                        'expr=x + 1', '!', 'planfilesink',
                        'location=' + dst], extra)
            assert_same(np.load(dst), a + 1, '%d bytes' % len(name.encode()))
            # Again, over the file now there.
            gst_launch(['planfilesrc', 'location=' + src, '!', 'planmap',
                        'expr=x + 2', '!', 'planfilesink',
                        'location=' + dst], extra)
            assert_same(np.load(dst), a + 2, '%d bytes, replaced' %
                        len(name.encode()))
            os.unlink(dst)
        left = sorted(set(os.listdir(d)) - {'in.npy'})
        if left:
            raise Failure('left behind: %s' % left)


def test_replaces_whole_file_without_tmpfile():
    """The fallback puts the file in place as the unnamed file does."""
    d = tmpdir()
    a, src = source(d, rows=3000)
    dst = os.path.join(d, 'out.npy')
    np.save(dst, np.zeros(5))
    gst_launch(['planfilesrc', 'location=' + src, '!', 'planfilesink',
                'location=' + dst], NO_TMPFILE)
    assert_same(np.load(dst), a, 'copy through a temporary file')
    if sorted(os.listdir(d)) != ['in.npy', 'out.npy']:
        raise Failure('left behind: %s' % os.listdir(d))


def test_replaced_file_keeps_its_permissions():
    """A file replaced whole keeps its permissions, as np.save, cp and
    filesink (which write into it) keep them: a private 0600 file does not
    become 0644. Set-user-ID and the like are not taken. Each format, with
    and without O_TMPFILE; a new file is 0666 minus the umask."""
    for extra in (None, NO_TMPFILE):
        d = tmpdir()
        a, src = source(d, rows=100)
        for name in ('out.npy', 'out.npz', 'out.h5', 'out.f32'):
            if name.endswith('.h5') and not plantest.built_with('hdf5'):
                continue
            dst = os.path.join(d, name)
            job = ['planfilesrc', 'location=' + src, '!', 'planfilesink',
                   'location=' + dst]
            old = os.umask(0o022)
            try:
                gst_launch(job, extra)
            finally:
                os.umask(old)
            if stat.S_IMODE(os.stat(dst).st_mode) != 0o644:
                raise Failure('%s: a new file of mode %o' %
                              (name, stat.S_IMODE(os.stat(dst).st_mode)))
            for mode, want in ((0o600, 0o600), (0o4640, 0o640),
                               (0o444, 0o444)):
                os.chmod(dst, mode)
                gst_launch(job + ['replace-read-only=true'], extra)
                got = stat.S_IMODE(os.stat(dst).st_mode)
                if got != want:
                    raise Failure('%s (%s) of mode %o replaced by one of '
                                  'mode %o, not %o' % (
                                      name, 'no O_TMPFILE' if extra else
                                      'O_TMPFILE', mode, got, want))
        left = [f for f in os.listdir(d) if f.startswith('.')]
        if left:
            raise Failure('left behind: %s' % left)


NOBODY = 65534


def unprivileged():
    """(preexec_fn, uid): running as root, the pipeline runs as nobody, who
    is refused what a user is refused (root may write any file); otherwise
    as this user."""
    if os.geteuid() != 0:
        return None, os.geteuid()

    def drop():
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    return drop, NOBODY


def launch_as_user(d, words, extra=None):
    """Runs gst-launch-1.0 as unprivileged() in @d (made writable for it);
    returns (returncode, output)."""
    drop, _ = unprivileged()
    os.chmod(d, 0o777)
    env = env_with(extra)
    env['GST_REGISTRY_1_0'] = os.path.join(d, 'registry.bin')
    p = gst_launch_1_0(words, TIMEOUT, env=env, preexec_fn=drop, cwd=d)
    os.unlink(env['GST_REGISTRY_1_0'])
    return p.returncode, p.stdout


def test_read_only_output_is_not_replaced():
    """A file at the location that the user could not open for writing
    (0444, theirs or another's) is left as it is, as cp, np.save and
    filesink leave it, although the directory would let a rename replace
    it; with and without O_TMPFILE. replace-read-only=true replaces it."""
    _, uid = unprivileged()
    for owner in sorted({0, uid}):
        for extra in (None, NO_TMPFILE):
            d = tmpdir()
            a, src = source(d, rows=1000)
            dst = os.path.join(d, 'out.npy')
            old = np.arange(7.0)
            np.save(dst, old)
            os.chown(dst, owner, -1)
            os.chmod(dst, 0o444)
            os.chmod(src, 0o444)
            job = ['planfilesrc', 'location=' + src, '!', 'planfilesink',
                   'location=' + dst]
            rc, out = launch_as_user(d, job, extra)
            what = 'owner %d, %s' % (owner, 'no O_TMPFILE' if extra else
                                     'O_TMPFILE')
            if rc == 0 or "Could not write '%s': Permission denied: the " \
                    "file there is read-only for this user" % dst not in out:
                raise Failure('%s: exit %d:\n%s' % (what, rc, out))
            assert_same(np.load(dst), old, what + ': the file kept')
            if sorted(os.listdir(d)) != ['in.npy', 'out.npy']:
                raise Failure('%s: left behind: %s' % (what, os.listdir(d)))
            rc, out = launch_as_user(d, job + ['replace-read-only=true'], extra)
            if rc != 0:
                raise Failure('%s, replace-read-only=true: exit %d:\n%s' %
                              (what, rc, out))
            assert_same(np.load(dst), a, what + ': replaced when asked to')
            if sorted(os.listdir(d)) != ['in.npy', 'out.npy']:
                raise Failure('%s: left behind: %s' % (what, os.listdir(d)))


def test_stream_without_caps_writes_nothing():
    """A stream that ends before any caps: a clear error for each output
    format, and no file (in a build without HDF5 or Zarr, that format's
    own refusal)."""
    d = tmpdir()
    for name, without in (('out.npy', None), ('out.zarr', 'built without Zarr'),
                          ('out.h5', 'built without HDF5')):
        path = os.path.join(d, name)
        rc, out = launch('fakesrc', 'num-buffers=0', '!', 'planfilesink',
                         'location=' + path, expect_ok=False)
        if ('the stream ended before its dtype and shape were known'
                not in out and (without is None or without not in out)):
            raise Failure('%s: no clear error:\n%s' % (name, out))
        if os.listdir(d):
            raise Failure('%s: left %s' % (name, os.listdir(d)))


CASES = [
    ('SIGTERM to gst-launch-1.0 leaves nothing', test_sigterm_leaves_nothing),
    ('SIGKILL to gst-launch-1.0 leaves nothing', test_sigkill_leaves_nothing),
    ('without O_TMPFILE, SIGTERM leaves the documented temporary file',
     test_sigterm_without_tmpfile_leaves_the_temporary_file),
    ('basenames of 243 to 255 bytes', test_long_basenames),
    ('without O_TMPFILE, a file is replaced whole',
     test_replaces_whole_file_without_tmpfile),
    ('a read-only output is not replaced', test_read_only_output_is_not_replaced),
    ('a replaced file keeps its permissions',
     test_replaced_file_keeps_its_permissions),
    ('a stream without caps writes nothing, with a clear error',
     test_stream_without_caps_writes_nothing),
]

if __name__ == '__main__':
    run_cases(CASES)
