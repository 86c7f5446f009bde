"""Every element under GStreamer's conformance checker, gst-validate-1.0:
each representative pipeline played with no scenario reports no issue at
all (warnings included), and change_state_intensive (40 cycles of NULL ->
PLAYING -> NULL in a run) repeated on each pipeline reports no error and
no critical issue. The outputs of the runs without a scenario are checked
against numpy, and so are those of seek_with_stop, simple_seeks and
reverse_playback (refused: forwards only) into planfilesink through every
kind of element (about 100 s of play on 4 s of rows).

gst-validate is not packaged by Debian 12: the test is skipped, saying so,
where gst-validate-1.0 is not found (tools/bootstrap.sh says how to build
it; .ci/run builds it when ../shared/tools/gst-validate is there).

PLAN_VALIDATE_REPEATS sets how many times change_state_intensive runs on
each pipeline (default 20: 800 state cycles per pipeline; the whole test
took 217 s on the 2-core machine at load 7, about 100 s of it the
scenarios into planfilesink). PLAN_TEST_CASES picks cases
by name, as in the pipeline tests."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'pipelines'))
import plantest  # noqa: E402
from plantest import Failure  # noqa: E402

BUILD = os.environ.get('PLAN_BUILD_DIR', 'build')
REPEATS = int(os.environ.get('PLAN_VALIDATE_REPEATS', '20'))


def find_validate():
    """gst-validate-1.0 (meson's find, or PATH), with the environment its
    prefix needs (what PREFIX/env.sh of the build script sets)."""
    tool = os.environ.get('GST_VALIDATE_TOOL') or shutil.which(
        'gst-validate-1.0')
    if not tool or not os.access(tool, os.X_OK):
        return None, None
    prefix = os.path.dirname(os.path.dirname(os.path.realpath(tool)))
    env = dict(os.environ)
    lib = os.path.join(prefix, 'lib')
    env['LD_LIBRARY_PATH'] = lib + (':' + env['LD_LIBRARY_PATH']
                                    if env.get('LD_LIBRARY_PATH') else '')
    env.setdefault('GST_VALIDATE_PLUGIN_PATH',
                   os.path.join(lib, 'gstreamer-1.0', 'validate'))
    env.setdefault('GST_VALIDATE_SCENARIOS_PATH', os.path.join(
        prefix, 'share', 'gstreamer-1.0', 'validate', 'scenarios'))
    return tool, env


TOOL, ENV = find_validate()
D = plantest.tmpdir()
rng = np.random.default_rng(26)
A = rng.standard_normal(100000).astype(np.float32)
B = rng.standard_normal(100000).astype(np.float32)
IMG = rng.standard_normal((300, 200)).astype(np.float32)
M = rng.standard_normal((20000, 6)).astype(np.float64)
# 10 s at 1000 rows a second, for the scenarios that play in time.
T = rng.standard_normal((10000, 4)).astype(np.float32)
# 2 s at 1000 rows a second, for the scenarios through npyparse.
T2 = rng.standard_normal((2000, 4)).astype(np.float32)
# Its partner in maps of two inputs.
T3 = rng.standard_normal((2000, 4)).astype(np.float32)
# An array of no rows: the source's segment and its EOS, with one seqnum.
E = np.zeros((0, 3), np.float32)
# 4 s at 1000 rows a second, for the scenarios whose output is checked:
# a table, its partner, a 1-D signal and a stack of 6 x 5 planes.
T4 = rng.standard_normal((4000, 4)).astype(np.float32)
T4B = rng.standard_normal((4000, 4)).astype(np.float32)
S4 = rng.standard_normal(4000).astype(np.float32)
V4 = rng.standard_normal((4000, 6, 5)).astype(np.float32)
for name, arr in [('a', A), ('b', B), ('img', IMG), ('m', M), ('t', T),
                  ('t2', T2), ('t3', T3), ('empty', E), ('t4', T4),
                  ('t4b', T4B), ('s4', S4), ('v4', V4)]:
    np.save(os.path.join(D, name + '.npy'), arr)
SOFTMAX = os.path.join(BUILD, 'tests', 'examples', 'libsoftmax.so')


def path(name):
    return os.path.join(D, name)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def tolerance(expected):
    """The absolute tolerance of a comparison with numpy's result."""
    return 1e-5 * max(1.0, float(np.abs(expected).max(initial=0.0)))


def laplacian(img):
    p = np.pad(img, 1, mode='edge')
    return p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * img


# name, gst-launch words (OUT: the output file), environment, expected
# output (None: the pipeline writes none, or to fakesink).
PIPELINES = [
    ('copy', 'planfilesrc location=a.npy ! planfilesink location=OUT', {},
     lambda: A),
    ('map', 'planfilesrc location=a.npy ! planmap expr="2*x + 1" ! '
     'planfilesink location=OUT', {}, lambda: 2 * A + 1),
    ('map of two inputs, tee, reduce', 'planmap name=m expr="2*x*y + sin(x)" '
     '! tee name=t ! queue ! planfilesink location=OUT t. ! queue ! '
     'planreduce op=sum ! fakesink async=false planfilesrc location=a.npy ! '
     'm.sink_0 planfilesrc location=b.npy ! m.sink_1', {},
     lambda: 2 * A * B + np.sin(A)),
    ('map of two inputs, tee, reduce, sinks that preroll',
     'planmap name=m expr="2*x*y + sin(x)" ! tee name=t ! queue ! '
     'planfilesink async=true location=OUT t. ! queue ! planreduce op=sum ! '
     'planfilesink async=true location=OUT.sum.npy '
     'planfilesrc location=a.npy ! m.sink_0 planfilesrc location=b.npy ! '
     'm.sink_1', {}, lambda: 2 * A * B + np.sin(A)),
    ('reduce sum', 'planfilesrc location=m.npy ! planreduce op=sum ! '
     'planfilesink location=OUT', {}, lambda: np.array(M.sum())),
    ('reduce max axis=0', 'planfilesrc location=m.npy ! planreduce op=max '
     'axis=0 ! planfilesink location=OUT', {}, lambda: M.max(axis=0)),
    ('reduce mean axis=-1', 'planfilesrc location=m.npy ! planreduce op=mean '
     'axis=-1 ! planfilesink location=OUT', {}, lambda: M.mean(axis=-1)),
    ('stencil 2-D', 'planfilesrc location=img.npy ! planstencil '
     'window="_ n _; w c e; _ s _" expr="n + s + e + w - 4*c" '
     'boundary=nearest ! planfilesink location=OUT', {},
     lambda: laplacian(IMG)),
    ('custom', 'planfilesrc location=img.npy ! plancustom library=%s '
     'symbol=softmax ! planfilesink location=OUT' % SOFTMAX, {},
     lambda: softmax(IMG)),
    ('npyparse, npymux', 'filesrc location=a.npy ! npyparse ! '
     'planmap expr="2*x" ! npymux ! filesink location=OUT', {},
     lambda: 2 * A),
    ('map to fakesink', 'planfilesrc location=a.npy ! planmap expr="2*x" ! '
     'fakesink', {}, None),
    ('copy of no rows', 'planfilesrc location=empty.npy ! '
     'planfilesink location=OUT', {}, lambda: E),
    ('map and sum of no rows', 'planfilesrc location=empty.npy ! '
     'planmap expr="x + 1" ! tee name=t ! queue ! planfilesink location=OUT '
     't. ! queue ! planreduce op=sum ! fakesink', {}, lambda: E + 1),
    ('upload, map on the sim device, download', 'planfilesrc location=a.npy '
     '! planupload ! planmap expr="x - 1" ! plandownload ! '
     'planfilesink location=OUT', {'GST_PLAN_DEVICE': 'sim'},
     lambda: A - 1),
    ('stencil on the sim device', 'planfilesrc location=img.npy ! '
     'planstencil target=cuda window="_ n _; w c e; _ s _" '
     'expr="n + s + e + w - 4*c" boundary=nearest ! '
     'planfilesink location=OUT', {'GST_PLAN_DEVICE': 'sim'},
     lambda: laplacian(IMG)),
]


def validate(desc, env, scenario=None, timeout=120):
    """Runs gst-validate-1.0 on a pipeline description in the data
    directory; returns (return code, output, the issues reported: a list
    of (level, summary, the pads it was detected on))."""
    # gst-validate-1.0 takes the description as gst-launch words; the
    # shell splits it as a user's would.
    cmd = '%s %s %s' % (TOOL, '--set-scenario ' + scenario if scenario
                        else '', desc)
    p = subprocess.run(['/bin/sh', '-c', cmd], cwd=D, env=dict(ENV, **env),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=timeout)
    issues = []
    for m in re.finditer(r'^ +(warning|critical|issue) : (.*)\n'
                         r' +Detected on <([^>]*)>', p.stdout, re.M):
        issues.append((m.group(1), m.group(2), m.group(3)))
    return p.returncode, p.stdout, issues


def check_no_issue(name, words, env, want):
    out = path('out.npy')
    if os.path.exists(out):
        os.unlink(out)
    desc = words.replace('OUT', out)
    rc, text, issues = validate(desc, env)
    found = re.search(r'^Issues found: (\d+)', text, re.M)
    if rc != 0 or found is None:
        raise Failure('gst-validate-1.0 %s failed (%d):\n%s' %
                      (desc, rc, text[-3000:]))
    if int(found.group(1)) != 0 or issues:
        raise Failure('gst-validate-1.0 %s reported %s issues: %s\n%s' %
                      (desc, found.group(1), issues, text[-3000:]))
    if want is not None:
        got = np.load(out)
        expected = want().astype(got.dtype)
        if got.shape != expected.shape:
            raise Failure('%s: shape %s, numpy\'s %s' % (name, got.shape,
                                                         expected.shape))
        tol = tolerance(expected)
        if not np.allclose(got, expected, rtol=1e-5, atol=tol):
            raise Failure('%s: largest difference from numpy %g' %
                          (name, np.abs(got - expected).max()))


def check_state_changes(name, words, env):
    """No error and no critical issue (what change_state_intensive asks).
    Its lesser reports are printed, not counted: runs this fast bring out
    "received the same caps twice" on tee's sink pad (most runs of the
    pipeline with a tee) and a first buffer without DISCONT from filesrc
    (GstBaseSrc): races between the state changes and validate's pad
    monitors in GStreamer's own elements, which the runs without a
    scenario never show."""
    desc = words.replace('OUT', path('cycles.npy'))
    for i in range(REPEATS):
        rc, text, issues = validate(desc, env, 'change_state_intensive')
        if rc != 0 or 'Issues found:' not in text:
            raise Failure('run %d: gst-validate-1.0 --set-scenario '
                          'change_state_intensive %s failed (%d):\n%s' %
                          (i + 1, desc, rc, text[-3000:]))
        bad = [x for x in issues if x[0] == 'critical']
        if bad or re.search(r'^ERROR|error-on-bus', text, re.M):
            raise Failure('run %d of change_state_intensive on %s: %s\n%s' %
                          (i + 1, desc, bad, text[-3000:]))
        for x in issues:
            print('     run %d: %s (not counted): %s on %s' %
                  (i + 1, x[0], x[1], x[2]))


# Seeks from tests/validate/seekdriver.c, a C driver under validate's
# monitors (gst_validate_monitor_factory_create on the pipeline): name,
# paused or playing, pipeline (OUT: the output), seeks, numpy's output over
# the last range. Row seeks are accurate; byte seeks are not, since
# validate compares an accurate seek's start with the time of the segment
# that follows whatever its format, and a byte seek is answered by a
# segment in rows.
SEEKS = [
    ('planmap, row seeks in PAUSED', 'paused',
     'planfilesrc location=a.npy blocksize=40000 ! planmap expr="2*x + 1" ! '
     'planfilesink location=OUT', ['rows:100:5000', 'rows:2000:30000'],
     lambda: (2 * A + 1)[2000:30000]),
    ('planmap, byte seeks while playing', 'playing',
     'planfilesrc location=a.npy blocksize=40000 ! planmap expr="2*x" '
     'dtype=float64 ! planfilesink location=OUT',
     ['bytes:800:80000', 'bytes:16000:400000'],
     lambda: (2 * A.astype(np.float64))[2000:50000]),
    ('planmap of two inputs, row seek while playing', 'playing',
     'planmap name=m expr="x - y" ! planfilesink location=OUT '
     'planfilesrc location=a.npy blocksize=40000 ! m.sink_0 '
     'planfilesrc location=b.npy blocksize=40000 ! m.sink_1',
     ['rows:3000:-1'], lambda: (A - B)[3000:]),
    ('planreduce sum, row seeks in PAUSED', 'paused',
     'planfilesrc location=m.npy blocksize=4800 ! planreduce op=sum ! '
     'planfilesink location=OUT', ['rows:100:5000', 'rows:50:17000'],
     lambda: np.array(M[50:17000].sum())),
    ('planreduce max axis=0, row seek in PAUSED', 'paused',
     'planfilesrc location=m.npy blocksize=4800 ! planreduce op=max axis=0 ! '
     'planfilesink location=OUT', ['rows:50:170'],
     lambda: M[50:170].max(axis=0)),
    ('planreduce mean axis=-1, byte seek in PAUSED', 'paused',
     'planfilesrc location=m.npy blocksize=4800 ! planreduce op=mean '
     'axis=-1 ! planfilesink location=OUT', ['rows:7:900',
                                             'bytes:800:80000'],
     lambda: M[100:10000].mean(axis=-1)),
    ('planstencil 2-D, row seeks in PAUSED', 'paused',
     'planfilesrc location=img.npy blocksize=8000 ! planstencil '
     'window="_ n _; w c e; _ s _" expr="n + s + e + w - 4*c" '
     'boundary=nearest ! planfilesink location=OUT',
     ['rows:10:40', 'rows:50:170'], lambda: laplacian(IMG[50:170])),
    # npyparse makes each seek a seek upstream in bytes: filesrc's reads
    # (4 KiB, and 1000 bytes) end inside rows. Most sinks preroll
    # (async=true), so that the pipeline is PAUSED once npyparse has read
    # the header; with async=false it is PAUSED at once, and a seek that
    # comes before the header is kept and made after it.
    ('filesrc, npyparse, row seeks in PAUSED', 'paused',
     'filesrc location=a.npy ! npyparse blocksize=40000 ! '
     'planmap expr="2*x + 1" ! planfilesink async=true location=OUT',
     ['rows:100:5000', 'rows:2000:30000'], lambda: (2 * A + 1)[2000:30000]),
    ('filesrc, npyparse, row and byte seeks while playing', 'playing',
     'filesrc location=m.npy blocksize=1000 ! npyparse blocksize=4800 ! '
     'planmap expr="x - 1" ! planfilesink async=true location=OUT',
     ['rows:7:900', 'bytes:4810:96000', 'rows:15000:20000'],
     lambda: M[15000:] - 1),
    ('filesrc, npyparse, planreduce max axis=0, row seeks while playing',
     'playing', 'filesrc location=m.npy blocksize=1000 ! npyparse '
     'blocksize=4800 ! planreduce op=max axis=0 ! '
     'planfilesink async=true location=OUT', ['rows:7:900', 'rows:50:17000'],
     lambda: M[50:17000].max(axis=0)),
    ('filesrc, npyparse, byte seek in PAUSED', 'paused',
     'filesrc location=m.npy blocksize=1000 ! npyparse blocksize=4800 ! '
     'planfilesink async=true location=OUT', ['bytes:4810:96000'],
     lambda: M[100:2000]),
    ('filesrc, npyparse, byte seek in PAUSED, sink without preroll',
     'paused', 'filesrc location=m.npy blocksize=1000 ! npyparse '
     'blocksize=4800 ! planfilesink location=OUT', ['bytes:4810:96000'],
     lambda: M[100:2000]),
    # The same through kernel elements, which ask upstream whether it can
    # seek before they pass a seek on: npyparse answers yes before the
    # header (they refused every seek made there). A seek in rows goes on
    # to npyparse, which keeps it; one in bytes or time of planmap's
    # output waits in planmap for its caps.
    ('filesrc, npyparse, planmap, row seeks in PAUSED, sink without '
     'preroll', 'paused', 'filesrc location=a.npy ! npyparse '
     'blocksize=40000 ! planmap expr="2*x + 1" ! planfilesink location=OUT',
     ['rows:100:5000', 'rows:2000:30000'], lambda: (2 * A + 1)[2000:30000]),
    ('filesrc, npyparse, planmap, byte seek in PAUSED, sink without '
     'preroll', 'paused', 'filesrc location=a.npy ! npyparse '
     'blocksize=40000 ! planmap expr="2*x" dtype=float64 ! '
     'planfilesink location=OUT', ['bytes:800:80000'],
     lambda: (2 * A.astype(np.float64))[100:10000]),
    ('filesrc, npyparse, planmap, seek in time in PAUSED, sink without '
     'preroll', 'paused', 'filesrc location=t2.npy ! npyparse rate=1000/1 '
     'blocksize=1600 ! planmap expr="2*x" ! planfilesink location=OUT',
     ['ms:100:500'], lambda: (2 * T2)[100:500]),
    ('filesrc, npyparse, planreduce sum, row seek in PAUSED, sink without '
     'preroll', 'paused', 'filesrc location=m.npy ! npyparse '
     'blocksize=4800 ! planreduce op=sum ! planfilesink location=OUT',
     ['rows:50:17000'], lambda: np.array(M[50:17000].sum())),
    # Bytes of an output sampled in time: made in time (GstAggregator's
    # output segment is in time; a seek in rows there was a CRITICAL).
    ('planmap on rows sampled in time, byte seek in PAUSED', 'paused',
     'planfilesrc location=t2.npy rate=3/1 blocksize=1600 ! planmap '
     'expr="2*x" ! planfilesink async=true location=OUT', ['bytes:16:80'],
     lambda: (2 * T2)[1:5]),
    # Inputs that are not all sampled at the output's rate (the first
    # input's) are sought in rows, which pair up: a seek in time upstream
    # was refused by an input without a rate, after the others had taken
    # it. The time seek is not accurate (ms~): validate would compare its
    # start with the time of upstream's segments in rows.
    ('planmap of a sampled input and one without a rate, byte and time '
     'seeks in PAUSED', 'paused',
     'planmap name=m expr="x + 2*y" ! planfilesink location=OUT '
     'planfilesrc location=t2.npy rate=1000/1 blocksize=1600 ! m.sink_0 '
     'planfilesrc location=t3.npy blocksize=1600 ! m.sink_1',
     ['bytes:1600:8000', 'ms~:150:1200'], lambda: (T2 + 2 * T3)[150:1200]),
    ('planmap of inputs at two rates, byte and time seeks while playing',
     'playing',
     'planmap name=m expr="x - y" ! planfilesink location=OUT '
     'planfilesrc location=t2.npy rate=1000/1 blocksize=1600 ! m.sink_0 '
     'planfilesrc location=t3.npy rate=500/1 blocksize=1600 ! m.sink_1',
     ['bytes:1600:8000', 'ms~:300:1700'], lambda: (T2 - T3)[300:1700]),
    ('planmap of two inputs at one rate, time seek in PAUSED', 'paused',
     'planmap name=m expr="x * y" ! planfilesink location=OUT '
     'planfilesrc location=t2.npy rate=1000/1 blocksize=1600 ! m.sink_0 '
     'planfilesrc location=t3.npy rate=1000/1 blocksize=1600 ! m.sink_1',
     ['ms:250:900'], lambda: (T2 * T3)[250:900]),
]


# planarraysrc and planarraysink, which an application feeds: the driver
# binds a.npy's array to the planarraysrc `src` and saves what the
# planarraysink `sink` collected (--array, --collect). `cycles`: 40 state
# cycles as change_state_intensive makes them, then a run to EOS. The
# seeks through planarraysink failed before it took a seek's range
# ("received rows 2000-12000 after 0 rows"). A seek without a stop keeps
# the stop of the segment before (GStreamer's GST_SEEK_TYPE_NONE).
ARRAYS = ['--array', 'src=a.npy', '--collect', 'sink=OUT']
ARRAY_SEEKS = [
    ('planarraysrc, planmap, planarraysink, no seek', 'playing', ARRAYS,
     'planarraysrc name=src blocksize=40000 ! planmap expr="2*x + 1" ! '
     'planarraysink name=sink', [], lambda: 2 * A + 1),
    ('planarraysrc of no rows, planmap, planarraysink, no seek', 'playing',
     ['--array', 'src=empty.npy', '--collect', 'sink=OUT'],
     'planarraysrc name=src ! planmap expr="2*x + 1" ! '
     'planarraysink name=sink', [], lambda: 2 * E + 1),
    ('planarraysrc, planmap, planarraysink, state cycles', 'cycles', ARRAYS,
     'planarraysrc name=src blocksize=40000 ! planmap expr="2*x + 1" ! '
     'planarraysink name=sink', [], lambda: 2 * A + 1),
    ('planarraysrc, planmap, planarraysink, row seeks in PAUSED', 'paused',
     ARRAYS, 'planarraysrc name=src blocksize=40000 ! planmap '
     'expr="2*x + 1" ! planarraysink name=sink',
     ['rows:100:5000', 'rows:2000:30000'], lambda: (2 * A + 1)[2000:30000]),
    ('planarraysrc, planarraysink, row seeks while playing',
     'playing', ARRAYS, 'planarraysrc name=src blocksize=40000 ! '
     'planarraysink name=sink', ['rows:100:5000', 'rows:2000:60000'],
     lambda: A[2000:60000]),
    ('planarraysrc, planreduce sum, planarraysink, row seeks in PAUSED',
     'paused', ['--array', 'src=m.npy', '--collect', 'sink=OUT'],
     'planarraysrc name=src blocksize=4800 ! planreduce op=sum ! '
     'planarraysink name=sink', ['rows:100:5000', 'rows:50:17000'],
     lambda: np.array(M[50:17000].sum())),
    ('planarraysrc, planstencil 2-D, planarraysink, row seeks in PAUSED',
     'paused', ['--array', 'src=img.npy', '--collect', 'sink=OUT'],
     'planarraysrc name=src blocksize=8000 ! planstencil '
     'window="_ n _; w c e; _ s _" expr="n + s + e + w - 4*c" '
     'boundary=nearest ! planarraysink name=sink',
     ['rows:10:40', 'rows:50:170'], lambda: laplacian(IMG[50:170])),
    ('planfilesrc, planmap, planarraysink, row seeks in PAUSED', 'paused',
     ['--collect', 'sink=OUT'], 'planfilesrc location=a.npy '
     'blocksize=40000 ! planmap expr="2*x" ! planarraysink name=sink',
     ['rows:0:5000', 'rows:3000:-1'], lambda: (2 * A)[3000:5000]),
    ('planfilesrc, planmap, planarraysink, seek to no rows in PAUSED',
     'paused', ['--collect', 'sink=OUT'], 'planfilesrc location=a.npy '
     'blocksize=40000 ! planmap expr="2*x" ! planarraysink name=sink',
     ['rows:3000:3000'], lambda: (2 * A)[3000:3000]),
]


def check_seeks(name, mode, words, seeks, want, options=()):
    driver = os.environ.get('PLAN_SEEK_DRIVER')
    if not driver or not os.access(driver, os.X_OK):
        raise Failure('the seek driver was not built (gst-validate\'s '
                      'library was not found when meson set up the build)')
    out = path('seek.npy')
    if os.path.exists(out):
        os.unlink(out)
    cmd = [driver] + [o.replace('OUT', out) for o in options] + \
        [mode, words.replace('OUT', out)] + seeks
    # A GLib critical (a GStreamer one in a base class) aborts the driver.
    p = subprocess.run(cmd, cwd=D, env=dict(ENV, G_DEBUG='fatal-criticals'),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120)
    if p.returncode != 0:
        raise Failure('%s (%d):\n%s' % (' '.join(cmd), p.returncode,
                                         p.stdout[-4000:]))
    got = np.load(out)
    expected = want().astype(got.dtype)
    if got.shape != expected.shape:
        raise Failure('%s: shape %s, numpy\'s %s' % (name, got.shape,
                                                     expected.shape))
    tol = tolerance(expected)
    if not np.allclose(got, expected, rtol=1e-5, atol=tol):
        raise Failure('%s: largest difference from numpy %g' %
                      (name, np.abs(got - expected).max()))


# GStreamer's standard scenarios, which seek and wait in time, on rows
# sampled in time (planfilesrc rate=1000/1) through map, stencil and a
# per-row reduction, played to a sink that syncs to the clock: each takes
# the time it plays (about 50 s in all).
SCENARIOS = ['play_15s', 'pause_resume', 'seek_forward', 'seek_backward',
             'seek_with_stop', 'simple_seeks', 'scrub_forward_seeking']
RATE_PIPELINE = ('planfilesrc location=t.npy rate=1000/1 blocksize=1600 ! '
                 'planmap expr="2*x" ! planstencil window="a; _; b" '
                 'expr="a + b" ! planreduce op=mean axis=-1 ! '
                 'fakesink sync=true')


# The same scenarios through filesrc and npyparse, which seeks filesrc in
# bytes, on 2 s of rows (about 6 s in all).
NPYPARSE_SCENARIOS = ['seek_forward', 'seek_backward', 'seek_with_stop',
                      'scrub_forward_seeking']
NPYPARSE_PIPELINE = ('filesrc location=t2.npy ! npyparse rate=1000/1 '
                     'blocksize=1600 ! planmap expr="2*x" ! '
                     'fakesink sync=true')


# The same into planarraysink, which collects each range sought (it failed
# every seek but to row 0).
ARRAY_SINK_SCENARIOS = ['seek_forward', 'simple_seeks']
ARRAY_SINK_PIPELINE = ('planfilesrc location=t.npy rate=1000/1 '
                       'blocksize=1600 ! planmap expr="2*x" ! '
                       'planarraysink sync=true async=true')


# Through the elements the pipelines above leave out of the scenarios,
# with GStreamer's queue and identity around them: upload, map and
# download on the sim device, plancustom, on 2 s of rows through npyparse
# (about 3 s each; fast_forward plays at rate 2).
MORE_SCENARIOS = ['seek_forward', 'fast_forward']
MORE_PIPELINES = [
    ('upload, map, download on the sim device',
     'filesrc location=t2.npy ! npyparse rate=1000/1 blocksize=1600 ! queue '
     '! planupload ! planmap expr="2*x" ! plandownload ! identity ! '
     'fakesink sync=true', {'GST_PLAN_DEVICE': 'sim'}),
    ('plancustom', 'filesrc location=t2.npy ! npyparse rate=1000/1 '
     'blocksize=1600 ! plancustom library=%s symbol=softmax ! queue ! '
     'fakesink sync=true' % SOFTMAX, {}),
]


# The scenarios again, with the output written by planfilesink (async=true
# sync=true: a seek action completes when the sink has prerolled) and
# compared with numpy's over the last range the scenario asked for, on 4 s
# of rows through each kind of element. seek_with_stop plays 0 to 3 s
# (min(5, duration - 1)); simple_seeks ends on 2 s to 3 s. A scenario that
# plays backwards is refused (the seek returns FALSE, which validate
# reports as "seek event wasn't handled", its only issue) and the run goes
# on forwards to EOS: the output is numpy's over every row.
SCENARIO_ROWS = [('seek_with_stop', slice(0, 3000)),
                 ('simple_seeks', slice(2000, 3000)),
                 ('reverse_playback', slice(0, 4000))]
SRC4 = 'planfilesrc location=%s.npy rate=1000/1 blocksize=%d'
SYNC_SINK = 'planfilesink async=true sync=true location=OUT'
K5 = np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]], np.float32)
K7 = np.zeros((3, 3, 3), np.float32)
K7[1, 1, 1] = -6
for _i in [(0, 1, 1), (2, 1, 1), (1, 0, 1), (1, 2, 1), (1, 1, 0), (1, 1, 2)]:
    K7[_i] = 1


def _correlate(a, weights, mode):
    from scipy import ndimage
    return ndimage.correlate(a, weights, mode=mode)


SCENARIO_PIPELINES = [
    ('planmap of two inputs', 'planmap name=m expr="x - 2*y" ! ' +
     SYNC_SINK + ' ' + SRC4 % ('t4', 1600) + ' ! m.sink_0 ' +
     SRC4 % ('t4b', 1600) + ' ! m.sink_1', {}, lambda r: T4[r] - 2 * T4B[r]),
    ('planreduce mean axis=-1', SRC4 % ('t4', 1600) +
     ' ! planreduce op=mean axis=-1 ! ' + SYNC_SINK, {},
     lambda r: T4[r].mean(axis=-1)),
    ('planstencil 1-D, wrap', SRC4 % ('s4', 400) +
     ' ! planstencil window="a b c" expr="a + 2*b - c" boundary=wrap ! ' +
     SYNC_SINK, {},
     lambda r: _correlate(S4[r], np.array([1, 2, -1], np.float32), 'wrap')),
    ('planstencil 2-D, mirror', SRC4 % ('t4', 1600) +
     ' ! planstencil window="_ n _; w c e; _ s _" '
     'expr="n + s + e + w - 4*c" boundary=mirror ! ' + SYNC_SINK, {},
     lambda r: _correlate(T4[r], K5, 'mirror')),
    ('planstencil 3-D, constant', SRC4 % ('v4', 12000) +
     ' ! planstencil window="_ _ _; _ b _; _ _ _ | _ n _; w c e; _ s _ | '
     '_ _ _; _ f _; _ _ _" expr="b + f + n + s + e + w - 6*c" '
     'boundary=constant ! ' + SYNC_SINK, {},
     lambda r: _correlate(V4[r], K7, 'constant')),
    ('plancustom', SRC4 % ('t4', 1600) + ' ! plancustom library=%s '
     'symbol=softmax ! ' % SOFTMAX + SYNC_SINK, {},
     lambda r: softmax(T4[r])),
    ('planupload, planmap, plandownload on the sim device', SRC4 %
     ('t4', 1600) + ' ! planupload ! planmap expr="x - 1" ! plandownload ! ' +
     SYNC_SINK, {'GST_PLAN_DEVICE': 'sim'}, lambda r: T4[r] - 1),
    ('planstencil on the sim device', SRC4 % ('t4', 1600) +
     ' ! planstencil target=cuda window="_ n _; w c e; _ s _" '
     'expr="n + s + e + w - 4*c" boundary=nearest ! ' + SYNC_SINK,
     {'GST_PLAN_DEVICE': 'sim'}, lambda r: _correlate(T4[r], K5, 'nearest')),
    # Each seek reaches the source twice, once from each sink; the flush
    # of the first comes down the other branch before that branch's seek
    # has gone up it, which validate reports (below warning) on the first
    # pad there that the seek has not passed: tee's src_0 with identity
    # after the tee, planmap's src here (GStreamer's own filesrc !
    # rawaudioparse ! tee does the same, docs/reliability.md). It is
    # printed, not counted.
    ('tee, queue, planmap and planreduce', SRC4 % ('t4', 1600) +
     ' ! tee name=tt ! queue ! planmap expr="x*x" ! ' + SYNC_SINK +
     ' tt. ! queue ! planreduce op=sum axis=-1 ! fakesink sync=true', {},
     lambda r: T4[r] * T4[r]),
    ('filesrc, npyparse, planmap', 'filesrc location=t4.npy ! npyparse '
     'rate=1000/1 blocksize=1600 ! planmap expr="x + 3" ! ' + SYNC_SINK, {},
     lambda r: T4[r] + 3),
]


# The seek scenarios through a whole reduction (its one result stands for
# all its input rows: not seekable, docs/reliability.md), of rows sampled
# in time into planfilesink: each seek is refused, which validate reports
# once ("seek event wasn't handled", its only issue), and the run ends at
# its stop action. They waited for ever (until the caller's timeout) for a
# position in time the reduction did not answer. The stop comes at a
# position (1 s in scrub_forward_seeking, 3 s of the 4 in seek_forward),
# which is how far the reduction has read: where it had read every row by
# then (it reads as fast as it can) the file holds numpy's reduction of
# them, and otherwise planfilesink leaves no file.
REDUCTION_SCENARIOS = ['seek_forward', 'seek_backward', 'fast_forward',
                       'scrub_forward_seeking']
REDUCTION_PIPELINES = [
    ('planreduce sum', SRC4 % ('t4', 1600) + ' ! planreduce op=sum ! ' +
     SYNC_SINK, lambda: np.array(T4.sum())),
    ('planmap, planreduce max axis=0', SRC4 % ('t4', 1600) +
     ' ! planmap expr="2*x" ! planreduce op=max axis=0 ! ' + SYNC_SINK,
     lambda: (2 * T4).max(axis=0)),
]


def check_reduction_scenario(scenario, words, want):
    out = path('scenario.npy')
    if os.path.exists(out):
        os.unlink(out)
    desc = words.replace('OUT', out)
    try:
        rc, text, issues = validate(desc, {}, scenario, timeout=60)
    except subprocess.TimeoutExpired:
        raise Failure('gst-validate-1.0 --set-scenario %s %s did not end '
                      'in 60 s' % (scenario, desc))
    found = re.search(r'^Issues found: (\d+)', text, re.M)
    if found is None or int(found.group(1)) != 1 or issues != [
            ('critical', "seek event wasn't handled", scenario)]:
        raise Failure('gst-validate-1.0 --set-scenario %s %s (%d): %s, '
                      'expected the refused seek alone\n%s' %
                      (scenario, desc, rc, issues, text[-3000:]))
    if not os.path.exists(out):
        print('     stopped before the reduction\'s end: no file')
        return
    got = np.load(out)
    expected = want().astype(got.dtype)
    if got.shape != expected.shape or not np.allclose(
            got, expected, rtol=1e-5, atol=tolerance(expected)):
        raise Failure('%s: got %s, numpy\'s %s' % (scenario, got, expected))


# A tee whose other branch is a whole reduction: its sink prerolls on the
# reduction's GAP, but once PLAYING went by it needs something new to
# preroll on at each pause, and the reduction, whose input the paused
# branch holds back at the tee, has nothing to give until its end
# (GStreamer's own identity drop-probability=1.0 there does the same). A
# sink that does not preroll (async=false) is the remedy
# (docs/reliability.md): pause_resume then reports no issue.
TEE_REDUCTION_PIPELINE = ('planfilesrc location=t.npy rate=1000/1 '
                          'blocksize=1600 ! tee name=t ! queue ! '
                          'fakesink sync=true t. ! queue ! planreduce op=sum '
                          '! fakesink async=false')


# The report of a flush that comes down a tee's other branch before its
# seek (above).
TEE_FLUSH = ("FLUSH_START events that are part of the same pipeline "
             "'operation' should have the same seqnum")


def check_scenario_output(scenario, rows, words, env, want):
    out = path('scenario.npy')
    if os.path.exists(out):
        os.unlink(out)
    desc = words.replace('OUT', out)
    rc, text, issues = validate(desc, env, scenario)
    found = re.search(r'^Issues found: (\d+)', text, re.M)
    ignored = []
    if ' tee ' in desc:
        ignored = [x for x in issues if x[0] == 'issue' and x[1] == TEE_FLUSH]
        for x in ignored:
            print('     %s (not counted): %s on %s' % x)
            issues.remove(x)
    counted = int(found.group(1)) - len(ignored) if found else None
    if scenario == 'reverse_playback':
        refused = [x for x in issues if x[0] == 'critical' and
                   x[1] == "seek event wasn't handled"]
        if counted != 1 or len(refused) != 1 or len(issues) != 1:
            raise Failure('gst-validate-1.0 --set-scenario %s %s (%d): '
                          'not refused alone: %s\n%s' %
                          (scenario, desc, rc, issues, text[-3000:]))
    elif rc != 0 or counted != 0 or issues:
        raise Failure('gst-validate-1.0 --set-scenario %s %s (%d): %s\n%s' %
                      (scenario, desc, rc, issues, text[-3000:]))
    if not os.path.exists(out):
        raise Failure('--set-scenario %s %s: no output\n%s' %
                      (scenario, desc, text[-3000:]))
    got = np.load(out)
    expected = want(rows).astype(got.dtype)
    if got.shape != expected.shape:
        raise Failure('%s: shape %s, numpy\'s %s (rows %d to %d)' %
                      (scenario, got.shape, expected.shape, rows.start,
                       rows.stop))
    if not np.allclose(got, expected, rtol=1e-5, atol=tolerance(expected)):
        raise Failure('%s: largest difference from numpy %g' %
                      (scenario, np.abs(got - expected).max()))


def check_scenario(scenario, pipeline=RATE_PIPELINE, env=None):
    rc, text, issues = validate(pipeline, env or {}, scenario)
    found = re.search(r'^Issues found: (\d+)', text, re.M)
    if rc != 0 or found is None or int(found.group(1)) != 0 or issues:
        raise Failure('gst-validate-1.0 --set-scenario %s %s (%d): %s\n%s' %
                      (scenario, pipeline, rc, issues, text[-3000:]))


CASES = []
for name, words, env, want in PIPELINES:
    CASES.append(('no issue: ' + name,
                  lambda w=words, e=env, n=name, f=want:
                  check_no_issue(n, w, e, f)))
for name, words, env, want in PIPELINES:
    CASES.append(('change_state_intensive x%d: %s' % (REPEATS, name),
                  lambda w=words, e=env, n=name: check_state_changes(n, w, e)))

for name, mode, words, seeks, want in SEEKS:
    CASES.append(('seeks under validate: ' + name,
                  lambda n=name, m=mode, w=words, k=seeks, f=want:
                  check_seeks(n, m, w, k, f)))

for name, mode, options, words, seeks, want in ARRAY_SEEKS:
    CASES.append(('seeks under validate: ' + name,
                  lambda n=name, m=mode, w=words, k=seeks, f=want,
                  o=options: check_seeks(n, m, w, k, f, o)))

for scenario in SCENARIOS:
    CASES.append(('%s on rows sampled in time' % scenario,
                  lambda sc=scenario: check_scenario(sc)))
for scenario in NPYPARSE_SCENARIOS:
    CASES.append(('%s through filesrc and npyparse' % scenario,
                  lambda sc=scenario: check_scenario(sc, NPYPARSE_PIPELINE)))
for scenario in MORE_SCENARIOS:
    for what, words, env in MORE_PIPELINES:
        CASES.append(('%s through %s' % (scenario, what),
                      lambda sc=scenario, w=words, e=env:
                      check_scenario(sc, w, e)))
# The refusal of backward playback is the sources' (every element passes
# the seek on): on one pipeline of each source and of each way of seeking
# two inputs.
REVERSE_ON = ['planmap of two inputs', 'planstencil 1-D, wrap',
              'planupload, planmap, plandownload on the sim device',
              'filesrc, npyparse, planmap']
for scenario, rows in SCENARIO_ROWS:
    for what, words, env, want in SCENARIO_PIPELINES:
        if scenario == 'reverse_playback' and what not in REVERSE_ON:
            continue
        CASES.append(('%s into planfilesink, checked: %s' % (scenario, what),
                      lambda sc=scenario, r=rows, w=words, e=env, f=want:
                      check_scenario_output(sc, r, w, e, f)))
CASES.append(('pause_resume with a tee into a whole reduction, its sink '
              'without preroll',
              lambda: check_scenario('pause_resume', TEE_REDUCTION_PIPELINE)))
for scenario in REDUCTION_SCENARIOS:
    for what, words, want in REDUCTION_PIPELINES:
        CASES.append(('%s through a whole reduction, refused: %s' %
                      (scenario, what),
                      lambda sc=scenario, w=words, f=want:
                      check_reduction_scenario(sc, w, f)))
for scenario in ARRAY_SINK_SCENARIOS:
    CASES.append(('%s on rows sampled in time into planarraysink' % scenario,
                  lambda sc=scenario: check_scenario(sc, ARRAY_SINK_PIPELINE)))

if __name__ == '__main__':
    if TOOL is None:
        print('SKIP: gst-validate-1.0 not found. Build it with '
              '../shared/tools/gst-validate/build.sh (GStreamer 1.22.0\'s '
              'gst-devtools; it prints its PREFIX) and run '
              '`. PREFIX/env.sh` before `meson setup`, or set '
              'GST_VALIDATE_TOOL to its gst-validate-1.0.')
        sys.exit(77)
    plantest.run_cases(CASES)
