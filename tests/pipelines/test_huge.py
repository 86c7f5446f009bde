#!/usr/bin/python3
"""Arrays of more than 2**31 rows and elements, and shapes too large to
exist, through every element; docs/reliability.md ("Huge shapes") lists
each behaviour with its test.

The arrays are int8 in sparse files: zeros but for known values in their
first and last rows, so a result over all of it is known without numpy
reading 2 GiB. Reading a sparse file's holes costs no disk, but the first
pass fills the page cache (2 GiB of zeroed pages, a few seconds of system
time on a loaded machine); later passes over the same file cost only the
computation. So one file is read whole, by the few pipelines that must
traverse everything (a reduction over all rows counts every row), and a
second, of (2**31 + 5, 2), is only opened (caps) or sought near its end
(rows past 2**31 through every element), which reads a few pages.
Skipped (77) when the temporary directory's file system has no sparse
files."""
import os
import re
import shlex
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import Failure, assert_same, gst, launcher, run_cases, tmpdir  # noqa: E402

N = 2 ** 31 + 5             # rows: past the largest 32-bit int
EDGE = 64                   # rows of known values at each end
HANG = 120


def edge_values(n, seed):
    return (np.arange(n, dtype=np.int64) * seed % 251 - 125).astype(np.int8)


def sparse_npy(path, shape):
    """A .npy file of int8 zeros of `shape`, holes on disk but for its
    first and last EDGE rows, which hold edge_values(); returns the data
    offset."""
    row = int(np.prod(shape[1:], dtype=np.int64))
    with open(path, 'wb') as f:
        np.lib.format.write_array_header_1_0(
            f, {'descr': '|i1', 'fortran_order': False, 'shape': shape})
        offset = f.tell()
        f.write(edge_values(EDGE * row, 3).tobytes())
        f.truncate(offset + shape[0] * row)
        f.seek(offset + (shape[0] - EDGE) * row)
        f.write(edge_values(EDGE * row, 7).tobytes())
    if os.stat(path).st_blocks * 512 > 1 << 24:
        sys.exit(77)
    return offset


DIR = tmpdir()
FLAT = os.path.join(DIR, 'flat.npy')        # (N,): read whole
WIDE = os.path.join(DIR, 'wide.npy')        # (N, 2): opened and sought
FLAT_OFFSET = sparse_npy(FLAT, (N,))
sparse_npy(WIDE, (N, 2))
# The sum of every element of flat.npy.
FLAT_SUM = int(edge_values(EDGE, 3).sum(dtype=np.int64) +
               edge_values(EDGE, 7).sum(dtype=np.int64))
# x + x wraps round in int8, as numpy's does.
FLAT_DOUBLED_SUM = int(sum((e + e).sum(dtype=np.int64) for e in (
    edge_values(EDGE, 3), edge_values(EDGE, 7))))
FLAT_MAX = int(max(edge_values(EDGE, 3).max(), edge_values(EDGE, 7).max()))


def run(words, expect_ok=True, tool=None):
    """Runs a pipeline (plan-launch, or `tool`); returns its output, stdout
    and stderr together. A GLib/GStreamer CRITICAL or WARNING fails."""
    cmd = (tool or launcher()) + [str(w) for w in words]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=HANG, text=True)
    if (p.returncode == 0) != expect_ok:
        raise Failure('%s (%d): %s\n%s' % (
            'failed' if expect_ok else 'should have failed', p.returncode,
            ' '.join(cmd), p.stdout))
    if 'CRITICAL' in p.stdout or '-WARNING' in p.stdout:
        raise Failure('%s:\n%s' % (' '.join(cmd), p.stdout))
    return p.stdout


def results(out):
    """{reduction name: [values]} from plan-launch's result lines."""
    got = {}
    for m in re.finditer(r'^(\w+): \w+ = (.*) \((\w+), shape (.*)\)$', out,
                         re.M):
        got[m.group(1)] = [int(v) for v in re.findall(r'-?\d+', m.group(2))]
    return got


def expect_results(words, want):
    out = run(words)
    got = results(out)
    for name, values in want.items():
        if got.get(name) != values:
            raise Failure('%s: %s, expected %s\n%s' % (
                name, got.get(name), values, out))


# -- caps ------------------------------------------------------------------

def test_caps_of_wide_shapes():
    """(2**31 + 5, 2): every axis int64 in the caps, from planfilesrc and
    from npyparse after filesrc (cut after its first block, which npyparse
    then reports as truncated); no CRITICAL, no axis dropped."""
    want = 'shape=(gint64)< 2147483653, 2 >'
    for src, ok in (('planfilesrc location=%s' % WIDE, True),
                    ('filesrc location=%s num-buffers=1 ! npyparse' % WIDE,
                     False)):
        sink = ['fakesink'] + (['num-buffers=1'] if ok else [])
        out = run(['-v'] + src.split() + ['!'] + sink, expect_ok=ok,
                  tool=['gst-launch-1.0'])
        if want not in out:
            raise Failure('%s: the caps do not say %s:\n%s' % (src, want, out))


def test_shapes_too_large():
    """A .npy header whose shape's data would pass 2**63 bytes (its product
    wraps to 0 in 64 bits), through planfilesrc and npyparse, and a raw file
    given such a shape: "the shape ... is too large", exit non-zero."""
    path = os.path.join(DIR, 'huge.npy')
    with open(path, 'wb') as f:
        np.lib.format.write_array_header_1_0(
            f, {'descr': '|i1', 'fortran_order': False,
                'shape': (2 ** 32, 2 ** 32)})
        f.write(bytes(16))
    raw = os.path.join(DIR, 'raw.bin')
    with open(raw, 'wb') as f:
        f.write(bytes(16))
    say = 'the shape (4294967296, 4294967296) is too large'
    for words in (['planfilesrc', 'location=' + path],
                  ['filesrc', 'location=' + path, '!', 'npyparse'],
                  ['planfilesrc', 'location=' + raw, 'dtype=int8',
                   'shape=(4294967296, 4294967296)']):
        out = run(words + ['!', 'fakesink'], expect_ok=False)
        if say not in out or 'does not match' in out:
            raise Failure('%s: the error does not say %r:\n%s' %
                          (' '.join(words), say, out))


# -- every row of (2**31 + 5,) and a 2-D view of it --------------------------

def test_flat_through_every_element():
    """flat.npy, (2**31 + 5,) int8, read whole once through a tee into
    planreduce (whole and axis=0), planmap, planstencil and planupload to
    the sim device: each result counts every element, the known values at
    both ends included."""
    words = ('planfilesrc location=%s ! tee name=t '
             't. ! queue ! planreduce name=whole op=sum ! fakesink '
             't. ! queue ! planreduce name=rows0 op=sum axis=0 ! fakesink '
             't. ! queue ! planmap expr="x + x" ! planreduce name=mapped '
             'op=sum ! fakesink '
             't. ! queue ! planstencil window="w,c,e" expr="c" ! '
             'planreduce name=stencil op=max ! fakesink '
             't. ! queue ! planupload device=sim ! planreduce name=sim '
             'op=sum ! fakesink' % FLAT)
    expect_results(
        shlex.split(words),
        {'whole': [FLAT_SUM], 'rows0': [FLAT_SUM],
         'mapped': [FLAT_DOUBLED_SUM],
         'stencil': [FLAT_MAX], 'sim': [FLAT_SUM]})


def test_flat_through_npyparse():
    """The same file as a stream: filesrc ! npyparse ! planreduce."""
    expect_results(['filesrc', 'location=' + FLAT, 'blocksize=8388608', '!',
                    'npyparse', '!',
                    'planreduce', 'name=r', 'op=sum', '!', 'fakesink'],
                   {'r': [FLAT_SUM]})


def test_2d_rows_past_2_31():
    """The file's bytes read raw as a 2-D stream of (2**31 + 133, 1) int8
    (the .npy header is data there): every row summed, the header's bytes
    and the values at both ends included."""
    with open(FLAT, 'rb') as f:
        header = np.frombuffer(f.read(FLAT_OFFSET), np.int8)
    total = FLAT_SUM + int(header.sum(dtype=np.int64))
    expect_results(['planfilesrc', 'location=' + FLAT, 'format=raw',
                    'dtype=int8', 'shape=(-1, 1)', '!', 'planreduce',
                    'name=whole', 'op=sum', '!', 'fakesink'],
                   {'whole': [total]})


def test_python_reduce_past_2_31_rows():
    """gstplan: a reduction along the rows (axis=0) of a (2**31 + 5, 1)
    int8 array (flat.npy's data mapped, not copied), streamed from memory
    by planarraysrc into an output array of shape (1,): planreduce axis=0
    over every row. The one test here that runs a reduction along the
    rows of all of it (a few seconds: one column is its slowest case)."""
    code = '''
import sys, numpy as np
from gstplan import Plan
a = np.load(sys.argv[1], mmap_mode='r').reshape(-1, 1)
plan = Plan(); x = plan.source(ndim=2)
r = plan.reduce('sum', args=(x,), axis=0); plan.sink(r, name='out')
f = plan.realize(target='cpu').dispatch(x=a); f.wait()
print(f.result('out').tolist())
'''
    env = dict(os.environ)
    build = env.get('PLAN_BUILD_DIR', '')
    if not os.path.exists(os.path.join(build, 'libplan', 'Plan-1.0.typelib')):
        print('     (built without introspection: gstplan not tested)')
        return
    env['GI_TYPELIB_PATH'] = os.path.join(build, 'libplan')
    env['LD_LIBRARY_PATH'] = os.path.join(build, 'libplan')
    env['PYTHONPATH'] = os.path.join(env.get('PLAN_SOURCE_DIR', ''), 'python')
    p = subprocess.run(['/usr/bin/python3', '-c', code, FLAT],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=HANG, env=env)
    if (p.returncode != 0 or p.stdout.strip() != str([FLAT_SUM])
            or 'CRITICAL' in p.stdout):
        raise Failure('rc %d, expected [%d]:\n%s' %
                      (p.returncode, FLAT_SUM, p.stdout))


# -- rows past 2**31 of (2**31 + 5, 2), sought ------------------------------

SOUGHT = (2 ** 31 - 11, N)     # the last 16 rows, across row 2**31


def run_sought(element):
    """planfilesrc wide.npy ! element ! planfilesink, with a flushing row
    seek to SOUGHT in PAUSED; returns the output file's array."""
    Gst = gst()
    dst = os.path.join(DIR, 'out.npy')
    p = Gst.parse_launch('planfilesrc location=%s ! %s planfilesink '
                         'location=%s' % (WIDE, element + ' !' if element
                                          else '', dst))
    try:
        p.set_state(Gst.State.PAUSED)
        if p.get_state(HANG * Gst.SECOND)[0] != Gst.StateChangeReturn.SUCCESS:
            raise Failure('%s: did not reach PAUSED' % element)
        if not p.seek(1.0, Gst.Format.DEFAULT, Gst.SeekFlags.FLUSH,
                      Gst.SeekType.SET, SOUGHT[0], Gst.SeekType.SET,
                      SOUGHT[1]):
            raise Failure('%s: the seek was refused' % element)
        p.set_state(Gst.State.PLAYING)
        msg = p.get_bus().timed_pop_filtered(
            HANG * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    finally:
        p.set_state(Gst.State.NULL)
    if msg is None:
        raise Failure('%s: no EOS within %d s' % (element, HANG))
    if msg.type == Gst.MessageType.ERROR:
        raise Failure('%s: %s' % (element, msg.parse_error()[1]))
    return np.load(dst)


def test_rows_past_2_31_sought():
    """Rows 2**31 - 11 to 2**31 + 5 of (2**31 + 5, 2) int8 through
    planfilesink alone (a copy), planmap, planreduce (whole and axis=-1),
    planstencil and plancustom (the example kernel axpb, which takes
    float32): numpy's over those rows."""
    a = np.load(WIDE, mmap_mode='r')
    b = np.array(a[SOUGHT[0]:SOUGHT[1]])
    p = np.concatenate([np.zeros((1, 2), np.int8), b, np.zeros((1, 2), np.int8)])
    for element, want in (
            ('', b),
            ('planmap expr="x + x"', b + b),
            ('planreduce op=sum', np.asarray(b.sum(dtype=np.int64))),
            ('planreduce op=max axis=-1', b.max(axis=1)),
            ('planstencil window="n;c;s" expr="n + c + s"',
             p[:-2] + p[1:-1] + p[2:]),
            ('planmap expr=x dtype=float32 ! plancustom library=%s '
             'symbol=axpb' % os.path.join(os.environ.get('PLAN_BUILD_DIR', ''),
                                          'tests', 'examples', 'libaxpb.so'),
             b.astype(np.float32) * 2 + 1)):
        assert_same(run_sought(element), want, element or 'planfilesink')


CASES = [
    ('caps of (2**31 + 5, 2): one type, every axis',
     test_caps_of_wide_shapes),
    ('shapes too large: npy header, npyparse, raw', test_shapes_too_large),
    ('(2**31 + 5,) through reduce, map, stencil, sim device',
     test_flat_through_every_element),
    ('(2**31 + 5,) through filesrc ! npyparse', test_flat_through_npyparse),
    ('(2**31 + 133, 1) raw: every row summed', test_2d_rows_past_2_31),
    ('gstplan reduce axis=0 along 2**31 + 5 rows',
     test_python_reduce_past_2_31_rows),
    ('rows past 2**31 sought through every element',
     test_rows_past_2_31_sought),
]

if __name__ == '__main__':
    run_cases(CASES)
