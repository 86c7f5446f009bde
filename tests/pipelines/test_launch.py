"""plan-launch, the runner: its manual, .plan files and their variables,
the progress display on a terminal (a pseudo-terminal made by script(1))
and off one, reduction results checked against numpy, --stats, --graph,
--target, and SIGINT/SIGTERM leaving no output file behind."""
import ctypes.util
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import plantest  # noqa: E402
from plantest import Failure  # noqa: E402

BUILD = os.environ.get('PLAN_BUILD_DIR', 'build')
SOURCE = os.environ.get('PLAN_SOURCE_DIR', '.')
LAUNCH = os.path.join(BUILD, 'tools', 'plan-launch')
PIPELINES = os.path.join(SOURCE, 'pipelines')
RNG = np.random.default_rng(16)


def run(args, expect=0, env=None, timeout=60):
    """Runs plan-launch without a terminal; returns (stdout, stderr)."""
    p = subprocess.run([LAUNCH] + [str(a) for a in args], capture_output=True,
                       text=True, timeout=timeout, env=env)
    if p.returncode != expect:
        raise Failure('exit %d, expected %d: plan-launch %s\nstdout:\n%s\n'
                      'stderr:\n%s' % (p.returncode, expect, ' '.join(
                          map(str, args)), p.stdout, p.stderr))
    return p.stdout, p.stderr


def run_in_pty(args, timeout=60, columns=None, term=None):
    """Runs plan-launch on a pseudo-terminal (script -q -e -c), of
    `columns` columns if given, with TERM=term if given; returns what the
    terminal got, stdout and stderr together."""
    cmd = ' '.join(shlex_quote(a) for a in [LAUNCH] + [str(a) for a in args])
    if columns:
        cmd = 'stty cols %d; %s' % (columns, cmd)
    env = dict(os.environ, TERM=term) if term else None
    p = subprocess.run(['script', '-q', '-e', '-c', cmd, '/dev/null'],
                       capture_output=True, timeout=timeout,
                       stdin=subprocess.DEVNULL, env=env)
    out = p.stdout.decode(errors='replace')
    if p.returncode != 0:
        raise Failure('exit %d on a terminal: %s\n%r' % (p.returncode, cmd, out))
    return out


def shlex_quote(s):
    import shlex
    return shlex.quote(s)


def array_file(shape, dtype=np.float32):
    d = plantest.tmpdir()
    a = RNG.standard_normal(shape).astype(dtype)
    path = os.path.join(d, 'a.npy')
    np.save(path, a)
    return d, path, a


# Slow enough to be seen and interrupted, fast enough for a test: 50 buffers
# of 100 rows, each held 20 ms by identity.
def slow_words(path, out=None, rows_per_buffer=100, sleep_us=20000):
    words = ['planfilesrc', 'location=' + path,
             'blocksize=%d' % (rows_per_buffer * 3 * 4), '!',
             'identity', 'sleep-time=%d' % sleep_us, '!']
    if out:
        return words + ['planfilesink', 'location=' + out]
    return words + ['planreduce', 'op=sum', '!', 'fakesink']


RESULT = re.compile(r'^(\S+): (\S+) = (.*) \((\w+), shape (\(.*\))\)$', re.M)


def results(stdout):
    """{element: (op, value text, dtype, shape text)} from the result lines."""
    return {m.group(1): m.groups()[1:] for m in RESULT.finditer(stdout)}


def test_help_is_a_manual():
    out, err = run(['--help'])
    for section in ('NAME', 'SYNOPSIS', 'DESCRIPTION', 'OPTIONS', 'SIGNALS',
                    'EXIT STATUS', 'ENVIRONMENT', 'EXAMPLES'):
        if not re.search('^%s$' % section, out, re.M):
            raise Failure('no %s section in --help:\n%s' % (section, out))
    for option in ('--quiet', '--stats', '--graph', '--target',
                   '--eos-on-shutdown', '--timeout', '${NAME}'):
        if option not in out:
            raise Failure('%s not in --help' % option)
    if err:
        raise Failure('--help wrote to stderr: %r' % err)
    out2, _ = run(['-q', '-t', '5', '--help'])
    if out2 != out:
        raise Failure('--help after options gave another text')


def project_version():
    with open(os.path.join(SOURCE, 'meson.build')) as f:
        return re.search(r"version\s*:\s*'([^']+)'", f.read()).group(1)


def test_version():
    version = project_version()
    for args in (['--version'], ['-q', '-t', '5', '--version']):
        out, err = run(args)
        lines = out.splitlines()
        if len(lines) != 2 or lines[0] != 'plan-launch %s (gst-plan)' % version \
                or not re.match(r'GStreamer 1\.\d+\.\d+', lines[1]) or err:
            raise Failure('plan-launch %s gave %r (stderr %r)' % (
                ' '.join(args), out, err))
    # The plugin says the same version to gst-inspect-1.0.
    p = subprocess.run(['gst-inspect-1.0', 'plan'], capture_output=True,
                       text=True, timeout=60)
    if not re.search(r'^\s*Version\s+%s$' % re.escape(version), p.stdout,
                     re.M):
        raise Failure('gst-inspect-1.0 plan shows no version %s:\n%s' % (
            version, p.stdout))


def test_usage_errors():
    _, err = run([], expect=2)
    if 'usage: plan-launch' not in err:
        raise Failure(err)
    _, err = run(['--bogus', 'fakesink'], expect=2)
    if '--bogus' not in err:
        raise Failure(err)
    _, err = run(['--graph=g.jpg', 'fakesink'], expect=2)
    if '.svg, .png or .dot' not in err:
        raise Failure(err)
    _, err = run(['--target=gpu', 'fakesink'], expect=2)
    if 'cpu, cuda or auto' not in err:
        raise Failure(err)
    _, err = run(['planfilesrc', '!', 'nosuchelement'], expect=2)
    if 'could not be constructed' not in err or 'nosuchelement' not in err:
        raise Failure(err)


def test_options_after_the_pipeline():
    # gst-launch-1.0 takes options anywhere; after plan-launch's
    # description one was a bare 'syntax error'.
    d, path, a = array_file((10, 3))
    words = ['planfilesrc', 'location=' + path, '!', 'planreduce', '!',
             'fakesink']
    for option in ('-q', '--stats'):
        _, err = run(words + [option], expect=2)
        if "'%s' is a word of the pipeline description: options come " \
                "before it" % option not in err:
            raise Failure(err)
    _, err = run([os.path.join(PIPELINES, 'reduce.plan'), 'in=' + path, '-q'],
                 expect=2)
    if "'-q' after the .plan file is not NAME=VALUE: options come before " \
            "the file" not in err:
        raise Failure(err)
    # A syntax error of another kind says nothing of options, and a
    # negative number in an expression is the description's.
    _, err = run(['fakesrc', '!', '!', 'fakesink'], expect=2)
    if 'syntax error' not in err or 'options' in err:
        raise Failure(err)
    out, _ = run(words[:3] + ['planmap', 'expr=-x', '!'] + words[3:])
    want = np.float32(-math.fsum(a.ravel().astype(float)))
    if np.float32(results(out)['planreduce0'][1]) != want:
        raise Failure(out)


def test_bad_property_values_say_what_the_property_takes():
    # GStreamer's 'could not set property "op" in element "planreduce" to
    # "summ"' did not say what op takes.
    d, path, a = array_file((10, 3))
    cases = [
        (['planreduce', 'name=r', 'op=summ'],
         "planreduce's op takes one of sum, prod, min, max, mean, argmin, "
         "argmax, any, all, nansum, nanprod, nanmin, nanmax, nanmean, "
         "nanargmin, nanargmax, var, std, nanvar, nanstd, count_nonzero or "
         "ptp"),
        (['planmap', 'expr=x', 'target=gpu'],
         "planmap's target takes one of auto, cpu or cuda"),
        (['planstencil', 'window=a b', 'expr=a', 'cval=x'],
         "planstencil's cval takes a number from -inf to inf"),
        (['identity', 'silent=maybe'], "identity's silent takes true or false"),
        (['identity', 'sleep-time=x'],
         "identity's sleep-time takes a whole number from 0 to 4294967295"),
    ]
    for element, want in cases:
        _, err = run(['planfilesrc', 'location=' + path, '!'] + element +
                     ['!', 'fakesink'], expect=2)
        if want not in err:
            raise Failure('%r not in\n%s' % (want, err))
    _, err = run([os.path.join(PIPELINES, 'laplacian.plan'), 'in=' + path,
                  'out=' + d + '/o.npy', 'boundary=near'], expect=2)
    if 'laplacian.plan:9: could not set property "boundary"' not in err or \
            "planstencil's boundary takes one of constant, nearest, " \
            "reflect, mirror, wrap or valid" not in err:
        raise Failure(err)


def test_missing_plugin_says_what_to_set():
    # Without the gst-plan plugin in GStreamer's registry a pipeline of its
    # elements failed with GStreamer's 'no element "planfilesrc"' and no
    # word of GST_PLUGIN_PATH; a plugin that fails to load, the same.
    d, path, a = array_file((10, 3))
    words = ['planfilesrc', 'location=' + path, '!', 'fakesink']
    paths = os.environ.get('GST_PLUGIN_PATH_1_0', '').split(os.pathsep)
    kept = [p for p in paths
            if p and not os.path.exists(os.path.join(p, 'libgstplan.so'))]
    env = dict(os.environ, GST_PLUGIN_PATH_1_0=os.pathsep.join(kept),
               GST_PLUGIN_PATH='', GST_REGISTRY_1_0=d + '/none.registry')
    _, err = run(words, expect=2, env=env)
    if 'no element "planfilesrc"' not in err or \
            'did not find the gst-plan plugin: set GST_PLUGIN_PATH' not in err:
        raise Failure(err)
    broken = os.path.join(d, 'plugins')
    os.mkdir(broken)
    with open(os.path.join(broken, 'libgstplan.so'), 'w') as f:
        f.write('not a shared object\n')
    env['GST_PLUGIN_PATH_1_0'] = os.pathsep.join(kept + [broken])
    env['GST_REGISTRY_1_0'] = d + '/broken.registry'
    _, err = run(words, expect=2, env=env)
    if 'the gst-plan plugin %s/libgstplan.so failed to load' % broken \
            not in err:
        raise Failure(err)
    # A pipeline file whose name does not end in .plan is taken for an
    # element: 'no element "pipe.txt"' said no more.
    txt = os.path.join(d, 'pipe.txt')
    with open(txt, 'w') as f:
        f.write('planfilesrc location=%s ! fakesink\n' % path)
    _, err = run([txt], expect=2)
    if '%s is a file, not an element: the name of a pipeline file ends in ' \
            '.plan' % txt not in err:
        raise Failure(err)
    # A misspelt element with the plugin there is GStreamer's message only.
    _, err = run(['planfilesrc', '!', 'planmapp'], expect=2)
    if 'no element "planmapp"' not in err or 'GST_PLUGIN_PATH' in err:
        raise Failure(err)


def test_reduce_plan_prints_results():
    d, path, a = array_file((3001, 3))
    out, err = run([os.path.join(PIPELINES, 'reduce.plan'), 'in=' + path])
    r = results(out)
    if set(r) != {'sum', 'mean', 'min', 'max'}:
        raise Failure('results: %r\n%s' % (r, out))
    for name in r:
        op, value, dtype, shape = r[name]
        if op != name or dtype != 'float32' or shape != '()':
            raise Failure('%s: %r' % (name, r[name]))
    exact = math.fsum(a.astype(np.float64).ravel())
    got = float(r['sum'][1])
    # float32's rounding of the sum, printed to round-trip as a float32
    if abs(got - exact) > max(abs(float(a.sum()) - exact), 1e-7 * abs(exact)) \
            + np.spacing(np.float32(abs(exact))):
        raise Failure('sum %r, exact %r' % (got, exact))
    if np.float32(r['min'][1]) != a.min() or np.float32(r['max'][1]) != a.max():
        raise Failure('min/max %r %r, numpy %r %r' % (r['min'][1], r['max'][1],
                                                      a.min(), a.max()))
    if abs(float(r['mean'][1]) - exact / a.size) > 1e-6:
        raise Failure('mean %r, numpy %r' % (r['mean'][1], a.mean()))
    if 'Execution ended after' not in out:
        raise Failure(out)


def test_results_print_as_numpy_prints_them():
    """A complex result is printed as numpy prints one, (1+2.1j), not as
    the message's array of two doubles; float16 and complex64 values with
    the digits that read back as the same value of their dtype."""
    d = plantest.tmpdir()
    cases = [(np.array([1 + 2j, 0.1j], np.complex64), '(1+2.1j)', 'complex64'),
             (np.array([1 - 2.5j, 0.1j], np.complex128), '(1-2.4j)',
              'complex128'),
             (np.array([0.1, 0.2, 3.14159], np.float16), '3.441', 'float16'),
             # numpy's positional digits up to 1e16, not %g's 3e+01
             (np.array([10, 20], np.float32), '30', 'float32'),
             (np.array([50, 50], np.float64), '100', 'float64'),
             (np.array([123456792, 0], np.float32), '123456790', 'float32'),
             (np.array([-4e15, -1e15], np.float64), '-5000000000000000',
              'float64'),
             (np.array([1e16, 1e16], np.float64), '2e+16', 'float64'),
             (np.array([3e-5, 0], np.float64), '3e-05', 'float64')]
    for k, (a, text, dtype) in enumerate(cases):
        path = os.path.join(d, 'r%d.npy' % k)
        np.save(path, a)
        out, err = run(['planfilesrc', 'location=' + path, '!', 'planreduce',
                        'name=r', 'op=sum', '!', 'fakesink'])
        want = 'r: sum = %s (%s, shape ())' % (text, dtype)
        if want not in out:
            raise Failure('expected %r in:\n%s' % (want, out))
        if np.dtype(dtype).type(complex(text) if 'j' in text else
                                float(text)) != a.sum():
            raise Failure('%s is not numpy\'s %r' % (text, a.sum()))


def test_plan_variable_defaults_and_columns():
    d, path, a = array_file((500, 3))
    out, _ = run([os.path.join(PIPELINES, 'reduce.plan'), 'in=' + path,
                  'axis=0'])
    op, value, dtype, shape = results(out)['max']
    if shape != '(3,)':
        raise Failure('axis=0 shape %s' % shape)
    got = np.array([np.float32(v) for v in value.strip('[]').split(', ')])
    if not np.array_equal(got, a.max(axis=0)):
        raise Failure('column max %s, numpy %s' % (got, a.max(axis=0)))


def test_plan_file_errors():
    d, path, a = array_file((10, 3))
    plan = os.path.join(PIPELINES, 'map.plan')
    _, err = run([plan, 'out=' + d + '/o.npy'], expect=2)
    if "map.plan:7: ${in} is not set" not in err or 'give in=VALUE' not in err:
        raise Failure(err)
    if 'plan-launch map.plan in=a.npy out=b.npy' not in err:
        raise Failure('the usage comment was not printed:\n' + err)
    _, err = run([plan, 'in=' + path, 'nonsense'], expect=2)
    if "'nonsense' after the .plan file is not NAME=VALUE" not in err:
        raise Failure(err)
    bad = os.path.join(d, 'bad.plan')
    with open(bad, 'w') as f:
        f.write('# a comment\nplanfilesrc location=${in ! fakesink\n')
    _, err = run([bad], expect=2)
    if "bad.plan:2: '${' without its '}'" not in err:
        raise Failure(err)
    _, err = run([os.path.join(d, 'missing.plan')], expect=2)
    if 'missing.plan' not in err:
        raise Failure(err)
    # A NUL byte ended the description there, and the pipeline before it
    # ran as if it were all; bytes that are not UTF-8 made an "empty
    # pipeline".
    cut = os.path.join(d, 'cut.plan')
    with open(cut, 'wb') as f:
        f.write(b'planfilesrc location=%s ! planreduce op=sum ! fakesink\n'
                b'\0 ! planmap expr=x\n' % path.encode())
    out, err = run([cut], expect=2)
    if 'cut.plan:2: a NUL byte at byte' not in err or 'sum =' in out:
        raise Failure(out + err)
    latin = os.path.join(d, 'latin.plan')
    with open(latin, 'wb') as f:
        f.write(b'# caf\xe9\nplanfilesrc location=%s ! fakesink\n' %
                path.encode())
    _, err = run([latin], expect=2)
    if 'latin.plan:1: bytes that are not UTF-8 at byte 5' not in err:
        raise Failure(err)


def test_plan_file_pipeline_errors_name_the_file_and_line():
    # GStreamer's own message ('no element "planmapp"', 'syntax error',
    # 'empty pipeline not allowed') named neither the .plan file nor the
    # line; a name found nowhere did not say where it was looked for.
    d, path, a = array_file((10, 3))

    def plan(name, text):
        with open(os.path.join(d, name), 'w') as f:
            f.write(text)
        return os.path.join(d, name)

    cases = [
        (plan('el.plan', '# usage\nplanfilesrc location="${in}"\n'
              '  ! planmapp expr=x ! fakesink\n'),
         'el.plan:3: no element "planmapp"'),
        (plan('prop.plan', 'planfilesrc location="${in}"\n'
              '  ! planreduce op=sum\n  ! fakesink nosuch=1\n'),
         'prop.plan:3: no property "nosuch" in element'),
        (plan('value.plan', '# one\n# two\nplanfilesrc location="${in}"\n'
              '  ! tee name=t t. ! queue ! planreduce op=sum ! fakesink\n'
              '  t. ! queue ! planreduce op=${op} ! fakesink\n'),
         'value.plan:5: could not set property "op" in element'),
        (plan('syntax.plan', 'planfilesrc location="${in}" ! ! fakesink\n'),
         'syntax.plan: syntax error'),
        (plan('empty.plan', ''), 'empty.plan: no pipeline description in it'),
        (plan('comments.plan', '# nothing but\n# comments\n'),
         'comments.plan: no pipeline description in it'),
    ]
    for file, want in cases:
        args = [file, 'in=' + path] if 'in}' in open(file).read() else [file]
        if 'op}' in open(file).read():
            args.append('op=summ')
        _, err = run(args, expect=2)
        if want not in err:
            raise Failure('plan-launch %s: %r not in\n%s' % (
                ' '.join(args), want, err))
    # Line numbers count the file's comment lines: the error of a variable
    # without a leading comment prints no empty usage heading.
    _, err = run([plan('bare.plan', 'planfilesrc location="${in}" ! '
                       'fakesink\n')], expect=2)
    if err.splitlines()[0] != \
            'plan-launch: %s:1: ${in} is not set: give in=VALUE after the ' \
            'file name (or set it in the environment)' % (d + '/bare.plan'):
        raise Failure(err)
    env = dict(os.environ, PLAN_PIPELINES_DIR=d)
    _, err = run(['nowhere.plan'], expect=2, env=env)
    if 'no file nowhere.plan here, in $PLAN_PIPELINES_DIR (%s) or in the ' \
            'installed pipelines (' % d not in err:
        raise Failure(err)


def test_plan_found_by_name_and_environment():
    d, path, a = array_file((100, 3))
    env = dict(os.environ, PLAN_PIPELINES_DIR=PIPELINES, in_file=path)
    with open(os.path.join(d, 'env.plan'), 'w') as f:
        f.write('planfilesrc location="${in_file}" ! planreduce name=s '
                'op=max ! fakesink\n')
    env['PLAN_PIPELINES_DIR'] = d
    out, _ = run(['env.plan'], env=env)
    if np.float32(results(out)['s'][1]) != a.max():
        raise Failure(out)
    env['PLAN_PIPELINES_DIR'] = PIPELINES
    out, _ = run(['map.plan', 'in=' + path, 'out=' + d + '/o.npy',
                  'expr=x*3'], env=env)
    plantest.assert_same(np.load(d + '/o.npy'), a * np.float32(3), 'map.plan')


def test_stencil_plans():
    """pipelines/laplacian3d.plan and wave.plan (two fields into one
    stencil) as written, against numpy."""
    d = plantest.tmpdir()
    vol = RNG.standard_normal((6, 5, 7))
    np.save(d + '/vol.npy', vol)
    run([os.path.join(PIPELINES, 'laplacian3d.plan'), 'in=%s/vol.npy' % d,
         'out=%s/lap.npy' % d])
    p = np.pad(vol, 1, mode='edge')
    want = (p[:-2, 1:-1, 1:-1] + p[2:, 1:-1, 1:-1] + p[1:-1, :-2, 1:-1] +
            p[1:-1, 2:, 1:-1] + p[1:-1, 1:-1, 2:] + p[1:-1, 1:-1, :-2] -
            6 * vol)
    plantest.assert_same(np.load(d + '/lap.npy'), want, 'laplacian3d.plan')
    u, prev = RNG.standard_normal((9, 8)), RNG.standard_normal((9, 8))
    np.save(d + '/u.npy', u)
    np.save(d + '/prev.npy', prev)
    run([os.path.join(PIPELINES, 'wave.plan'), 'u=%s/u.npy' % d,
         'prev=%s/prev.npy' % d, 'out=%s/next.npy' % d, 'k=0.5'])
    q = np.pad(u, 1, mode='symmetric')
    want = 2 * u - prev + 0.5 * (q[:-2, 1:-1] + q[2:, 1:-1] + q[1:-1, 2:] +
                                 q[1:-1, :-2] - 4 * u)
    plantest.assert_same(np.load(d + '/next.npy'), want, 'wave.plan')


def test_progress_lines_without_terminal():
    d, path, a = array_file((5000, 3))
    out, err = run(slow_words(path, rows_per_buffer=500, sleep_us=1000))
    lines = [l for l in err.splitlines() if l.startswith('progress: ')]
    if not lines or lines[-1].split()[1:3] != ['done:', '5000']:
        raise Failure('progress lines: %r' % err)
    if '\r' in err or '\x1b' in err:
        raise Failure('terminal control characters off a terminal: %r' % err)
    if 'MiB/s' not in lines[-1] and 'KiB/s' not in lines[-1]:
        raise Failure(lines[-1])


def test_progress_bar_on_terminal():
    if shutil.which('script') is None:
        raise Failure('script(1) (util-linux) is needed for the terminal test')
    d, path, a = array_file((5000, 3))
    out = run_in_pty(slow_words(path))
    if '\r\x1b[K[' not in out:
        raise Failure('no bar redrawn in place: %r' % out[:400])
    bars = re.findall(r'\r\x1b\[K\[([#.?]{30})\] ([^\r\n]*)', out)
    middle = [b for b in bars if 'ETA' in b[1]]
    if not middle:
        raise Failure('no bar with an ETA: %r' % bars)
    for bar, text in middle:
        m = re.match(r'\s*(\d+) %  (\S+)/5000 rows  (.+)/(.+)  (.+)/s  ETA ',
                     text)
        if not m:
            raise Failure('bar text %r' % text)
        # the bar and the percentage round down from the same rows
        if abs(bar.count('#') - int(m.group(1)) * 30 / 100) > 1:
            raise Failure('bar %r for %s %%' % (bar, m.group(1)))
    if bars[-1][0] != '#' * 30 or not bars[-1][1].startswith('5000 rows, '):
        raise Failure('last bar %r' % (bars[-1],))
    # The result comes after the finished bar, on a line of its own.
    if not re.search(r'\n[^\r\n]*: sum = ', out):
        raise Failure('no result line: %r' % out[-400:])


def test_progress_bar_fits_a_narrow_terminal():
    if shutil.which('script') is None:
        raise Failure('script(1) (util-linux) is needed for the terminal test')
    d, path, a = array_file((5000, 3))
    out = run_in_pty(slow_words(path), columns=60)
    bars = re.findall(r'\r\x1b\[K(\[[#.?]{10,30}\] [^\r\n]*)', out)
    middle = [b for b in bars if 'ETA' in b]
    if not middle:
        raise Failure('no bar with an ETA on 60 columns: %r' % bars)
    for b in middle:
        if len(b) > 59 or not re.search(r' %  .+/s  ETA \d+ s$', b):
            raise Failure('bar %r on 60 columns' % b)


def test_progress_lines_on_a_dumb_terminal():
    # On a terminal that cannot move the cursor (TERM=dumb, as in Emacs's
    # shell) the bar's carriage returns and escape codes showed as they
    # are: there the lines are the plain ones of a pipe.
    if shutil.which('script') is None:
        raise Failure('script(1) (util-linux) is needed for the terminal test')
    d, path, a = array_file((5000, 3))
    out = run_in_pty(slow_words(path), term='dumb')
    if '\x1b' in out or '\r\x1b' in out or \
            not re.search(r'^progress: done: 5000 rows', out, re.M):
        raise Failure('on TERM=dumb: %r' % out[-600:])


def test_quiet_prints_nothing():
    d, path, a = array_file((5000, 3))
    out, err = run(['-q'] + slow_words(path, rows_per_buffer=1000,
                                        sleep_us=1000))
    if out or err:
        raise Failure('-q printed %r %r' % (out, err))
    if shutil.which('script'):
        out = run_in_pty(['-q'] + slow_words(path, rows_per_buffer=1000,
                                              sleep_us=1000))
        if out.strip():
            raise Failure('-q printed on a terminal: %r' % out)


def test_messages_as_before():
    """What the pipeline tests and benchmarks read: -m's lines and the time."""
    d, path, a = array_file((20,), np.int32)
    out, _ = run(['-m', 'planfilesrc', 'location=' + path, '!', 'planreduce',
                  'name=r', 'op=max', '!', 'fakesink'])
    if 'Got message from element "/GstPipeline:pipeline0/PlanReduce:r": ' \
            'plan-reduce, element=(string)r' not in out:
        raise Failure(out)
    if not re.search(r'^Execution ended after \d+\.\d{3} s$', out, re.M):
        raise Failure(out)
    if results(out)['r'] != ('max', str(a.max()), 'int32', '()'):
        raise Failure('%r' % results(out))


STATS_ROW = re.compile(r'^(\S+)\s+(\S+)\s+(\d+)\s+(\S+)\s+(\S+ \S+)\s+'
                       r'(\S+ \S+)\s+(\S+ \S+|-)\s+(\d+)%$', re.M)


def test_stats_names_the_slow_element():
    d, path, a = array_file((2000, 3))
    # identity holds each of the 20 buffers 20 ms: it bounds the run.
    words = ['planfilesrc', 'location=' + path, 'blocksize=1200', '!',
             'planmap', 'name=m', 'expr=x+1', '!', 'identity', 'name=slow',
             'sleep-time=20000', '!', 'planfilesink', 'location=' + d + '/o.npy']
    out, err = run(['--stats'] + words)
    rows = {m.group(1): m.groups() for m in STATS_ROW.finditer(err)}
    for name, factory in (('planfilesrc0', 'planfilesrc'), ('m', 'planmap'),
                          ('slow', 'identity'),
                          ('planfilesink0', 'planfilesink')):
        if name not in rows or rows[name][1] != factory:
            raise Failure('no row for %s:\n%s' % (name, err))
        if rows[name][3] != '2000' or rows[name][4] != '23.4 KiB':
            raise Failure('%s: rows %s bytes %s' % (name, rows[name][3],
                                                    rows[name][4]))
    if rows['planfilesrc0'][2] != '20':
        raise Failure('planfilesrc pushed %s buffers' % rows['planfilesrc0'][2])
    m = re.search(r'^bounded by (\S+): busy (\d+) % of the', err, re.M)
    if not m or m.group(1) != 'slow':
        raise Failure('not bounded by identity:\n' + err)
    # 20 x 20 ms of sleep in a run of a little more than that
    if not 50 <= int(m.group(2)) <= 100 or int(rows['slow'][7]) < 50:
        raise Failure('identity busy %s %%:\n%s' % (m.group(2), err))
    plantest.assert_same(np.load(d + '/o.npy'), a + np.float32(1), 'output')


def test_stats_kernel_time_is_cpu_not_waiting():
    """planreduce waits for a slow source: its time is its own work."""
    d, path, a = array_file((5000, 3))
    out, err = run(['--stats'] + slow_words(path, rows_per_buffer=500,
                                            sleep_us=30000))
    rows = {m.group(1): m.groups() for m in STATS_ROW.finditer(err)}
    if 'planreduce0' not in rows or int(rows['planreduce0'][7]) > 20:
        raise Failure('planreduce counted waiting as work:\n' + err)
    if not re.search(r'^bounded by identity0:', err, re.M):
        raise Failure(err)


def test_graph_files():
    d, path, a = array_file((100, 3))
    words = ['planfilesrc', 'location=' + path, '!', 'planmap', 'name=m',
             'expr=x*2', '!', 'planfilesink', 'location=' + d + '/o.npy']
    run(['-q', '--graph=' + d + '/g.dot'] + words)
    dot = open(d + '/g.dot').read()
    for s in ('digraph', 'planfilesrc0', 'PlanMap', 'planfilesink0',
              'array/x-raw', 'dtype: float32', 'x*2'):
        if s not in dot:
            raise Failure('%r not in the graph' % s)
    # A pointer (GStreamer's dumps print element addresses); the test's
    # own directory, whose random name may hold "0x", is left out.
    addresses = re.findall(r'.{0,30}0x[0-9a-fA-F]{6,}',
                           dot.replace(d, 'DIR'))
    if addresses:
        raise Failure('an address in the graph: %s' % addresses)
    if shutil.which('dot'):
        run(['-q', '--graph=' + d + '/g.svg'] + words)
        svg = open(d + '/g.svg').read()
        if '<svg' not in svg or 'planfilesrc0' not in svg:
            raise Failure('not an SVG of the graph')
        run(['-q', '--graph=' + d + '/g.png'] + words)
        if open(d + '/g.png', 'rb').read(8) != b'\x89PNG\r\n\x1a\n':
            raise Failure('not a PNG')
        # dot failing part way (here a file size limit the .dot text is
        # under and the SVG over; a full disk alike): exit status 4, the
        # reason, and no SVG cut short under the graph's name (dot wrote
        # it in place and left it there).
        limit = len(dot) + 512

        def small_files():
            import resource
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        p = subprocess.run([LAUNCH, '-q', '--graph=' + d + '/cut.svg'] +
                           words, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60,
                           preexec_fn=small_files)
        left = [f for f in os.listdir(d) if 'cut' in f]
        if (p.returncode != 4 or "Graphviz's dot failed" not in p.stderr
                or left):
            raise Failure('dot failing: exit %d, left %s:\n%s' % (
                p.returncode, left, p.stderr))
    # Without Graphviz: a clear message, the .dot beside, exit status 4.
    env = dict(os.environ, PATH=d)
    _, err = run(['-q', '--graph=' + d + '/h.svg'] + words, expect=4, env=env)
    if "Graphviz's dot is not installed" not in err or \
            not os.path.exists(d + '/h.svg.dot') or os.path.exists(d + '/h.svg'):
        raise Failure(err)


def test_target_sets_every_kernel_element():
    d, path, a = array_file((300, 3))
    words = ['planfilesrc', 'location=' + path, '!', 'planmap', 'name=m',
             'expr=x*2', '!', 'tee', 'name=t', '!', 'queue', '!',
             'planfilesink', 'location=' + d + '/o.npy', 't.', '!', 'queue',
             '!', 'planreduce', 'name=r', 'op=sum', '!', 'fakesink']
    # both kernel elements take the target (cuda on the simulated device)
    # and compute the same sum
    env = dict(os.environ, GST_PLAN_DEVICE='sim')
    exact = math.fsum((a * np.float32(2)).astype(np.float64).ravel())
    for target in ('cpu', 'cuda'):
        out, _ = run(['--target=' + target, '--graph=' + d + '/g.dot'] + words,
                     env=env)
        if open(d + '/g.dot').read().count('target=' + target) != 2:
            raise Failure('target=%s not on both kernel elements' % target)
        if abs(float(results(out)['r'][1]) - exact) > 1e-3:
            raise Failure('sum %s, exact %r' % (results(out)['r'][1], exact))
    # without a device, target=cuda is an error naming the element
    if ctypes.util.find_library('cuda') is None:
        no_device = dict(os.environ)
        no_device.pop('GST_PLAN_DEVICE', None)
        _, err = run(['-q', '--target=cuda'] + words, expect=1, env=no_device)
        if 'No device to compute on' not in err:
            raise Failure(err)
    # cuda runs on the simulated device here
    words = ['planfilesrc', 'location=' + path, '!', 'planmap', 'expr=x*2',
             '!', 'planmap', 'expr=x+1', '!', 'planfilesink',
             'location=' + d + '/o.npy']
    for target in ('cpu', 'cuda'):
        run(['-q', '--target=' + target, '--graph=' + d + '/g.dot'] + words,
            env=env)
        if open(d + '/g.dot').read().count('target=' + target) != 2:
            raise Failure('target=%s not on both maps' % target)
        plantest.assert_same(np.load(d + '/o.npy'),
                             a * np.float32(2) + np.float32(1),
                             'target=' + target)
    _, err = run(['--target=cpu', 'fakesrc', 'num-buffers=1', '!', 'fakesink'])
    if 'no kernel element' not in err:
        raise Failure(err)


def interrupt(args, sig, d, after=0.0, stdout=False):
    """Starts plan-launch, waits for its first progress line and then
    @after seconds, sends sig; returns (returncode, stderr), and stdout
    after them if asked. SIGHUP starts at its default action: a test run
    under nohup would otherwise hand its ignored SIGHUP on, which
    plan-launch keeps ignoring."""
    p = subprocess.Popen([LAUNCH] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGHUP,
                                                          signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 30
        line = p.stderr.readline()
        while not line.startswith('progress:'):
            if not line or time.monotonic() > deadline:
                raise Failure('no progress line before the end: %r' % line)
            line = p.stderr.readline()
        time.sleep(after)
        p.send_signal(sig)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    if stdout:
        return p.returncode, line + err, out
    return p.returncode, line + err


def test_sigint_stops_and_leaves_no_file():
    d, path, a = array_file((5000, 3))
    out = d + '/o.npy'
    rc, err = interrupt(slow_words(path, out), signal.SIGINT, d)
    if rc != 130 or 'SIGINT: stopping the pipeline' not in err:
        raise Failure('exit %d:\n%s' % (rc, err))
    if sorted(os.listdir(d)) != ['a.npy']:
        raise Failure('left behind: %s' % os.listdir(d))


def test_sigterm_leaves_no_hdf5_or_zarr_part():
    """HDF5 files and Zarr stores are written under a hidden name (not an
    unnamed file), which plan-launch removes when a signal stops it:
    SIGHUP too (a closed terminal), whose default action killed it and
    left the hidden file."""
    for name, needs in (('o.h5', 'hdf5'), ('o.zarr', 'zarr')):
        if not plantest.built_with(needs):
            continue
        d, path, a = array_file((5000, 3))
        for sig, code in ((signal.SIGTERM, 143), (signal.SIGINT, 130),
                          (signal.SIGHUP, 129)):
            rc, err = interrupt(slow_words(path, d + '/' + name), sig, d)
            if rc != code:
                raise Failure('%s, %s: exit %d:\n%s' % (name, sig.name, rc,
                                                          err))
            if sorted(os.listdir(d)) != ['a.npy']:
                raise Failure('%s, %s: left behind: %s' % (
                    name, sig.name, os.listdir(d)))


def test_sighup_ignored_at_start_stays_ignored():
    """Under nohup (SIGHUP ignored when plan-launch starts) a SIGHUP does
    not stop the run: it writes its output to the end."""
    d, path, a = array_file((5000, 3))
    out = d + '/o.npy'
    p = subprocess.Popen(
        [LAUNCH] + slow_words(path, out), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    try:
        line = p.stderr.readline()
        while line and not line.startswith('progress:'):
            line = p.stderr.readline()
        p.send_signal(signal.SIGHUP)
        out_text, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    if p.returncode != 0 or 'SIGHUP' in err:
        raise Failure('exit %d:\n%s' % (p.returncode, err))
    plantest.assert_same(np.load(out), a, 'the output under nohup')


def test_sigterm_with_eos_on_shutdown():
    # The first progress line comes when planfilesrc has read its first
    # block, which GstBaseSrc drops if the EOS is already pending before
    # it is pushed: the EOS is sent a moment later, when rows have passed
    # (a buffer every 20 ms), and long before the 2 s stream ends.
    d, path, a = array_file((10000, 3))
    out = d + '/o.npy'
    rc, err = interrupt(['-e'] + slow_words(path, out), signal.SIGTERM, d,
                        after=0.3)
    if rc != 143 or 'SIGTERM: sending EOS' not in err:
        raise Failure('exit %d:\n%s' % (rc, err))
    # The EOS ends the stream where it reaches the source, on purpose:
    # planfilesink writes the rows that came, a valid .npy of them.
    if sorted(os.listdir(d)) != ['a.npy', 'o.npy']:
        raise Failure('%s\n%s' % (os.listdir(d), err))
    got = np.load(out)
    if not 0 < len(got) < len(a):
        raise Failure('%d of %d rows written' % (len(got), len(a)))
    plantest.assert_same(got, a[:len(got)], 'the rows before the EOS')


def test_eos_on_shutdown_prints_the_results():
    # With -e the reductions give their results over the rows that came
    # (planreduce posts them), and plan-launch printed none: the run's
    # status (130) was taken as a failure.
    d, path, a = array_file((10000, 3))
    rc, err, out = interrupt(['-e'] + slow_words(path), signal.SIGINT, d,
                             after=0.3, stdout=True)
    if rc != 130 or 'SIGINT: sending EOS' not in err:
        raise Failure('exit %d:\n%s' % (rc, err))
    got = results(out).get('planreduce0')
    if got is None:
        raise Failure('no result printed:\n%s\n%s' % (out, err))
    op, value, dtype, shape = got
    if op != 'sum' or dtype != 'float32' or shape != '()':
        raise Failure(out)
    # The sum of a prefix of whole rows: a float32 nearest math.fsum of one
    # of them, shorter than the file.
    sums = np.cumsum(a.astype(np.float64).sum(axis=1))
    want = [np.float32(math.fsum(a[:n].ravel().astype(float)))
            for n in range(1, len(a))
            if abs(sums[n - 1] - float(value)) < 1e-3 * (1 + abs(sums[n - 1]))]
    if np.float32(value) not in want:
        raise Failure('sum %s is not that of a prefix of the rows' % value)
    if 'Execution ended' in out:
        raise Failure('an interrupted run says it ended:\n' + out)


def test_timeout():
    d, path, a = array_file((5000, 3))
    _, err = run(['-q', '-t', '0.3'] + slow_words(path), expect=3)
    if 'did not finish within 0.3 s' not in err:
        raise Failure(err)
    # The timeout's source is removed once, by itself: no GLib-CRITICAL
    # "Source ID ... was not found" when the run ends.
    if 'CRITICAL' in err or 'was not found' in err:
        raise Failure('the timeout is reported with a warning from GLib:\n'
                      + err)


def test_timeout_ends_a_kernel_that_never_returns():
    # A plancustom kernel that never returns cannot be interrupted: after
    # the timeout plan-launch gives the pipeline 5 s to stop, then ends the
    # process itself with the timeout's status and says why.
    d, path, a = array_file((100, 3))
    kernels = os.path.join(BUILD, 'tests', 'examples')
    t0 = time.monotonic()
    _, err = run(['-q', '-t', '0.5', 'planfilesrc', 'location=' + path, '!',
                  'plancustom', 'library=' + kernels + '/libfailing.so',
                  'symbol=never_returns', '!', 'fakesink'], expect=3,
                 timeout=120)
    if ('did not finish within 0.5 s' not in err
            or 'did not stop within 5 s of the timeout' not in err
            or 'cannot be interrupted' not in err):
        raise Failure(err)
    # Not a timing assertion: only that it ended by itself, long before
    # the subprocess timeout above would have.
    print('     ended %.1f s after the start' % (time.monotonic() - t0))


def thread_named(pid, name):
    """Whether process @pid has a thread called @name (GStreamer names a
    pad's streaming thread after the pad, cut to 15 bytes)."""
    try:
        for t in os.listdir('/proc/%d/task' % pid):
            with open('/proc/%d/task/%s/comm' % (pid, t)) as f:
                if f.read().strip() == name[:15]:
                    return True
    except OSError:
        pass
    return False


def test_sigterm_ends_a_kernel_that_never_returns():
    d, path, a = array_file((100, 3))
    kernels = os.path.join(BUILD, 'tests', 'examples')
    p = subprocess.Popen([LAUNCH, '-q', 'planfilesrc', 'location=' + path,
                          '!', 'plancustom',
                          'library=' + kernels + '/libfailing.so',
                          'symbol=never_returns', '!', 'fakesink'],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        # Once the element's streaming thread runs (the kernel is called
        # there), plan-launch handles signals: a SIGTERM before would end
        # it by the default action.
        deadline = time.monotonic() + 60
        while not thread_named(p.pid, 'plancustom0:src'):
            if p.poll() is not None or time.monotonic() > deadline:
                raise Failure('the kernel never ran')
            time.sleep(0.05)
        time.sleep(0.2)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    if p.returncode != 143 or 'SIGTERM: stopping the pipeline' not in err:
        raise Failure('exit %d:\n%s' % (p.returncode, err))
    if 'did not stop within 5 s of SIGTERM' not in err:
        raise Failure('no reason given:\n' + err)


def test_results_that_cannot_be_written_are_an_error():
    # stdout on /dev/full: the reduction's value is not printed, so the run
    # fails, with the reason on stderr.
    d, path, a = array_file((1000, 3))
    with open('/dev/full', 'w') as full:
        p = subprocess.run([LAUNCH, 'planfilesrc', 'location=' + path, '!',
                            'planreduce', 'op=sum', '!', 'fakesink'],
                           stdout=full, stderr=subprocess.PIPE, text=True,
                           timeout=60)
    if p.returncode != 1 or ('could not write the results to standard '
                             'output: No space left on device') not in p.stderr:
        raise Failure('exit %d:\n%s' % (p.returncode, p.stderr))
    with open('/dev/full', 'w') as full:
        p = subprocess.run([LAUNCH, '--help'], stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=60)
    if p.returncode != 1:
        raise Failure('--help to /dev/full: exit %d' % p.returncode)


def test_closed_standard_streams():
    """Standard output and error closed at start were taken by GStreamer's
    wake-up sockets: the progress and results written there woke its bus
    and clock at random (a run synced to a clock spun the processor) and
    results were lost with exit status 0."""
    d, path, a = array_file((1000, 3))
    words = [LAUNCH, 'planfilesrc', 'location=' + path, 'rate=1000/1',
             'blocksize=120', '!', 'planmap', 'expr=x + 1', '!', 'fakesink',
             'sync=true']

    def closed(*fds):
        return lambda: [os.close(fd) for fd in fds]
    before = os.times()
    p = subprocess.run(words, stdin=subprocess.DEVNULL,
                       preexec_fn=closed(1, 2), timeout=60)
    after = os.times()
    cpu = (after.children_user + after.children_system
           - before.children_user - before.children_system)
    # About 1 s of rows at their rate: waiting costs a few ms of processor.
    # 'Execution ended after' cannot be printed: exit status 1.
    if p.returncode != 1 or cpu > 0.4:
        raise Failure('stdout and stderr closed: exit %d, %.2f s of '
                      'processor for 1 s of rows' % (p.returncode, cpu))
    p = subprocess.run([LAUNCH, 'planfilesrc', 'location=' + path, '!',
                        'planreduce', 'op=sum', '!', 'fakesink'],
                       stderr=subprocess.PIPE, text=True,
                       preexec_fn=closed(1), timeout=60)
    if p.returncode != 1 or ('could not write the results to standard '
                             'output: Bad file descriptor') not in p.stderr:
        raise Failure('stdout closed: exit %d:\n%s' % (p.returncode,
                                                       p.stderr))
    p = subprocess.run([LAUNCH, '-q', 'planfilesrc', 'location=' + path,
                        '!', 'planreduce', 'op=sum', '!', 'fakesink'],
                       stderr=subprocess.PIPE, text=True,
                       preexec_fn=closed(1), timeout=60)
    if p.returncode != 0:
        raise Failure('-q, stdout closed: exit %d:\n%s' % (p.returncode,
                                                           p.stderr))


def test_help_gst_lists_gstreamer_options():
    # --help names --help-gst for GStreamer's own options; it was refused
    # as an unknown option.
    out, err = run(['--help-gst'])
    if '--gst-debug' not in out or '--gst-plugin-path' not in out:
        raise Failure('--help-gst:\n%s\n%s' % (out, err))
    # Its usage line named the program "(null)".
    if not re.search(r'^  plan-launch \[OPTION.*\] PIPELINE-DESCRIPTION', out,
                     re.M) or '(null)' in out:
        raise Failure('--help-gst usage line:\n%s' % out)
    # --help-all, which gst-launch-1.0 users type, was an unknown option:
    # it is the manual, then GStreamer's options.
    manual, _ = run(['--help'])
    for args in (['--help-all'], ['-q', '-t', '5', '--help-all']):
        out, err = run(args)
        if not out.startswith(manual) or '--gst-debug' not in out or err:
            raise Failure('plan-launch %s:\n%s\n%s' % (' '.join(args), out,
                                                     err))


def test_timeout_values():
    # -t inf ran into the timeout at once (its milliseconds overflowed a
    # guint), and a negative or NaN timeout was taken as none.
    d, path, a = array_file((100, 3))
    words = ['planfilesrc', 'location=' + path, '!', 'planreduce', 'op=sum',
             '!', 'fakesink']
    for value in ('inf', '1e10', '0'):
        run(['-q', '-t', value] + words)
    for value in ('-1', 'nan', '-inf'):
        _, err = run(['-t', value] + words, expect=2)
        if '--timeout=%s' % value not in err or 'seconds' not in err:
            raise Failure('-t %s: %s' % (value, err))


def test_plan_variables_unknown_and_repeated():
    # A misspelt variable (boundry=reflect) was ignored without a word and
    # the default ran; of a variable given twice the first won.
    d, path, a = array_file((10, 3))
    plan = os.path.join(PIPELINES, 'map.plan')
    _, err = run([plan, 'in=' + path, 'out=' + d + '/o.npy', 'exprr=x'],
                 expect=2)
    if "map.plan has no variable 'exprr'" not in err \
            or 'its variables are in, expr, out' not in err:
        raise Failure(err)
    if os.path.exists(d + '/o.npy'):
        raise Failure('the plan ran')
    run(['-q', plan, 'in=' + path, 'out=' + d + '/o.npy', 'expr=x',
         'expr=3*x'])
    plantest.assert_same(np.load(d + '/o.npy'), a * np.float32(3),
                         'the last expr=')


def test_plan_variable_misspelt_and_required_missing():
    # With in= misspelt (inn=), the missing ${in} was reported and the
    # misspelt name, its cause, not at all: the unknown name comes first,
    # with the file's closest name.
    d, path, a = array_file((10, 3))
    plan = os.path.join(PIPELINES, 'map.plan')
    _, err = run([plan, 'inn=' + path, 'out=' + d + '/o.npy'], expect=2)
    if "map.plan has no variable 'inn' (did you mean 'in'?)" not in err \
            or 'its variables are in, expr, out' not in err \
            or 'is not set' in err:
        raise Failure(err)
    # no suggestion for a name like none of the file's
    _, err = run([plan, 'in=' + path, 'out=' + d + '/o.npy',
                  'blocksize=9'], expect=2)
    if "map.plan has no variable 'blocksize': its variables" not in err:
        raise Failure(err)
    if os.path.exists(d + '/o.npy'):
        raise Failure('the plan ran')


def test_non_ascii_messages_in_a_utf8_locale():
    # Without setlocale() GLib printed every non-ASCII character of a
    # message as '?' (a window cell, a file name), where gst-launch-1.0
    # prints it.
    d, path, a = array_file((10,))
    env = dict(os.environ, LC_ALL='C.UTF-8')
    _, err = run(['planfilesrc', 'location=' + path, '!', 'planstencil',
                  'window=\u00e9 b c', 'expr=b', '!', 'fakesink'], expect=1,
                 env=env)
    if "'\u00e9' (row 1, cell 1) is not a name" not in err:
        raise Failure(err)
    # Numbers keep their decimal point whatever the locale.
    out, _ = run(['planfilesrc', 'location=' + path, '!', 'planreduce',
                  'name=r', 'op=sum', '!', 'fakesink'], env=env)
    if not re.search(r'^r: sum = -?\d+\.\d+ \(float32', out, re.M):
        raise Failure(out)


def test_non_ascii_messages_in_the_c_locale():
    # In the C locale (no LANG: containers, cron) GLib printed each
    # non-ASCII character of a message as '?': 'Could not open
    # 'donn?es/...'' named a file that is not the one given, and GLib's
    # own quotes came out as '?'. The results on standard output were
    # UTF-8 already.
    d = plantest.tmpdir()
    missing = os.path.join(d, 'donn\u00e9es', '\u00e9t\u00e9.npy')
    env = dict(os.environ, LC_ALL='C', LANG='C')
    env.pop('LANGUAGE', None)
    _, err = run(['planfilesrc', 'location=' + missing, '!', 'fakesink'],
                 expect=1, env=env)
    if "Could not open '%s'" % missing not in err:
        raise Failure(err)
    _, err = run(['-t', '1x', 'fakesink'], expect=2, env=env)
    if 'Cannot parse double value \u201c1x\u201d' not in err:
        raise Failure(err)
    # Numbers keep their decimal point.
    d, path, a = array_file((10,))
    out, _ = run(['planfilesrc', 'location=' + path, '!', 'planreduce',
                  'name=r\u00e9', 'op=mean', '!', 'fakesink'], env=env)
    if not re.search(r'^r\u00e9: mean = -?\d+\.\d+ \(float32', out, re.M):
        raise Failure(out)


plantest.run_cases([(f.__name__, f) for f in (
    test_help_is_a_manual,
    test_version,
    test_usage_errors,
    test_missing_plugin_says_what_to_set,
    test_bad_property_values_say_what_the_property_takes,
    test_options_after_the_pipeline,
    test_reduce_plan_prints_results, test_results_print_as_numpy_prints_them,
    test_plan_variable_defaults_and_columns,
    test_plan_file_errors,
    test_plan_file_pipeline_errors_name_the_file_and_line,
    test_plan_found_by_name_and_environment,
    test_stencil_plans,
    test_progress_lines_without_terminal,
    test_progress_bar_on_terminal,
    test_progress_bar_fits_a_narrow_terminal,
    test_progress_lines_on_a_dumb_terminal,
    test_quiet_prints_nothing,
    test_messages_as_before,
    test_stats_names_the_slow_element,
    test_stats_kernel_time_is_cpu_not_waiting,
    test_graph_files,
    test_target_sets_every_kernel_element,
    test_sigint_stops_and_leaves_no_file,
    test_sigterm_leaves_no_hdf5_or_zarr_part,
    test_sighup_ignored_at_start_stays_ignored,
    test_sigterm_with_eos_on_shutdown,
    test_eos_on_shutdown_prints_the_results,
    test_timeout,
    test_timeout_ends_a_kernel_that_never_returns,
    test_sigterm_ends_a_kernel_that_never_returns,
    test_results_that_cannot_be_written_are_an_error,
    test_closed_standard_streams,
    test_help_gst_lists_gstreamer_options,
    test_timeout_values,
    test_plan_variables_unknown_and_repeated,
    test_plan_variable_misspelt_and_required_missing,
    test_non_ascii_messages_in_a_utf8_locale,
    test_non_ascii_messages_in_the_c_locale,
)])
