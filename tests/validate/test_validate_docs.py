"""gst-validate-1.0 over every pipeline the user docs (docs/*.md,
README.md) and pipelines/ show: each runs, on small inputs made here
under the names the docs use, with no issue reported at all (warnings
included), as test_validate's representative pipelines do.

The pipelines are read from the pages, not copied here: a gst-launch-1.0
or plan-launch command in a code block (lines joined at a trailing
backslash). plan-launch's options and gst-launch-1.0's are dropped,
environment assignments before the command are kept, `fdsink fd=1 >
FILE` writes to FILE through descriptor 3 (gst-validate-1.0 reports on
standard output). pipelines/*.plan run with the values of their usage
line; pipelines/*.sh run with a gst-launch-1.0 first on PATH that runs
gst-validate-1.0 instead and keeps its report. Runs that cannot be made
on a test machine are listed with the reason (SKIP lines): fragments
(`...`), MPI jobs (test_mpi and test_mpi_stencil run them), network
sources and sinks, plugins built outside the tree. GST_PLAN_DEVICE=sim
runs `target=cuda` without a GPU.

An example that reads a file not made here fails (gst-validate reports
that the file cannot be opened): add it to make_inputs().

PLAN_TEST_CASES picks cases by name, as in the pipeline tests."""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'pipelines'))
import plantest  # noqa: E402
from plantest import Failure  # noqa: E402

SOURCE = os.environ.get('PLAN_SOURCE_DIR',
                        os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('PLAN_BUILD_DIR', 'build')
sys.path.insert(0, os.path.dirname(__file__))
from test_validate import TOOL, ENV  # noqa: E402

# Why a command is not run, by what it holds.
SKIPS = [
    (re.compile(r'\.\.\.|\u2026'), 'a fragment of a pipeline'),
    (re.compile(r'\b(mpirun|srun)\b'), 'an MPI job (test_mpi, test_mpi_stencil '
     'run these pipelines on 1-4 ranks)'),
    (re.compile(r'uri=https?:|tcp(server|client)sink'), 'a network source or sink'),
    (re.compile(r'examplesquare|libtwice'), 'an element or kernel the page\'s '
     'reader builds outside the tree (tests/examples builds and runs them)'),
    (re.compile(r'\.plan\b'), 'a .plan file: run from pipelines/ below'),
    (re.compile(r'\[|\bFILE\b|ELEMENT'), 'a synopsis, not a pipeline'),
]
HDF5 = re.compile(r'\.(h5|nc)\b')
ZARR = re.compile(r'\.zarr\b')


def code_commands(text):
    """The commands of a page's code blocks (fenced, or indented four
    spaces), continuation lines joined."""
    lines, fenced = [], False
    for line in text.split('\n'):
        if line.strip().startswith('```'):
            fenced = not fenced
            lines.append(None)
        elif fenced or line.startswith('    '):
            lines.append(line.strip())
        else:
            lines.append(None)
    commands, cur = [], None
    for line in lines + [None]:
        if line is None:
            if cur:
                commands.append(cur)
            cur = None
            continue
        if cur is not None:
            cur += ' ' + line.rstrip('\\').strip()
        else:
            cur = line.rstrip('\\').strip()
        if not line.endswith('\\'):
            commands.append(cur)
            cur = None
    return commands


def launch_words(command):
    """(environment, stdin file, the pipeline's words, stdout file) of a
    shell command that runs gst-launch-1.0 or plan-launch, or None."""
    try:
        words = shlex.split(command.lstrip('$ '))
    except ValueError:
        return None
    env, stdin, stdout = {}, None, None
    if len(words) > 3 and words[0] == 'cat' and words[2] == '|':
        stdin, words = words[1], words[3:]
    if words[:3] == ['meson', 'devenv', '-C']:
        words = words[4:]
        while words[:1] == ['--workdir']:
            words = words[2:]
    while words and re.match(r'^[A-Z_][A-Z0-9_]*=', words[0]):
        k, v = words.pop(0).split('=', 1)
        env[k] = v
    if not words or words[0] not in ('gst-launch-1.0', 'plan-launch'):
        return None
    words = words[1:]
    while words and words[0].startswith('-'):
        words.pop(0)
    if len(words) >= 2 and words[-2] == '>':
        stdout, words = words[-1], words[:-2]
    if not words or '!' not in words:
        return None
    return env, stdin, words, stdout


def doc_pipelines():
    """(name, command) of every gst-launch-1.0 or plan-launch command of
    the docs, in page order."""
    found = []
    for page in sorted(glob.glob(os.path.join(SOURCE, 'docs', '*.md'))) + \
            [os.path.join(SOURCE, 'README.md')]:
        with open(page) as f:
            commands = code_commands(f.read())
        n = 0
        for c in commands:
            # a shell comment may name them too (# plan-launch ...)
            if not re.search(r'(^|[\s|$])(gst-launch-1\.0|plan-launch) ',
                             re.sub(r'(^|\s)#.*', '', c)):
                continue
            n += 1
            found.append(('%s #%d' % (os.path.basename(page), n), c))
    return found


def plan_files():
    """(name, pipeline text) of pipelines/*.plan with the values of their
    usage line (`plan-launch X.plan in=a.npy out=b.npy`)."""
    found = []
    for path in sorted(glob.glob(os.path.join(SOURCE, 'pipelines',
                                              '*.plan'))):
        with open(path) as f:
            text = f.read()
        # The usage line, continued on the next comment line after a '\'.
        usage = re.search(r'plan-launch \S+\.plan ((?:.*\\\n#)*.*)',
                          text).group(1)
        usage = re.sub(r'\\\n#', ' ', usage)
        values = dict(w.split('=', 1) for w in
                      shlex.split(re.sub(r'\[.*?\]', '', usage)))
        body = ' '.join(line for line in text.split('\n')
                        if not line.startswith('#'))

        def value(m):
            name, default = m.group(1), m.group(3)
            if name in values:
                return values[name]
            if default is None:
                raise Failure('%s: ${%s} has no value in its usage line' %
                              (path, name))
            return default
        body = re.sub(r'\$\{(\w+)(:-([^}]*))?\}', value, body)
        found.append(('pipelines/' + os.path.basename(path), body))
    return found


def make_inputs(d):
    """Every file the docs' pipelines read, small, under its name."""
    rng = np.random.default_rng(26)

    def f32(*shape):
        return rng.standard_normal(shape).astype(np.float32)
    arrays = {
        # planfilesrc.md selects rows 1000000..1500000 of it
        'in.npy': f32(1500100),
        'a.npy': f32(20000), 'b.npy': f32(20000), 'out.npy': f32(20000),
        'x.npy': rng.random((500, 16)).astype(np.float32),
        'signal.npy': f32(5000), 'img.npy': f32(120, 80),
        'ct.npy': f32(12, 20, 16), 'u0.npy': f32(60, 50),
        'vol.npy': f32(12, 20, 16), 'u.npy': f32(60, 50),
        'u_prev.npy': f32(60, 50), 'ez.npy': f32(40, 30),
        'hx.npy': f32(40, 30), 'hy.npy': f32(40, 30),
    }
    for name, a in arrays.items():
        np.save(os.path.join(d, name), a)
    f32(3000, 3).tofile(os.path.join(d, 'in.f32'))
    np.savez(os.path.join(d, 'weather.npz'), temps=f32(2000, 4),
             pressure=f32(2000))
    np.savez(os.path.join(d, 'one.npz'), f32(2000, 4))
    if h5py_ok():
        import h5py
        for name, dataset, a in [('data.h5', 'obs/temps', f32(2000, 4)),
                                 ('weather.h5', 'obs/temps', f32(2000, 4)),
                                 ('out.h5', 'obs/temps', f32(2000, 4)),
                                 ('climate.nc', 'tas', f32(30, 10, 8)),
                                 ('one.h5', 'x', f32(3000, 2))]:
            with h5py.File(os.path.join(d, name), 'w') as h:
                h.create_dataset(dataset, data=a)
    if zarr_ok():
        import zarr
        zarr.save_array(os.path.join(d, 'temps.zarr'), f32(2000, 4),
                        chunks=(500, 4))
        zarr.save_array(os.path.join(d, 'weather.zarr'), f32(2000, 4),
                        chunks=(500, 4))
        g = zarr.open_group(os.path.join(d, 'climate.zarr'), mode='w')
        g.create_dataset('obs/temps', data=f32(2000, 4), chunks=(500, 4))
    examples = os.path.join(BUILD, 'tests', 'examples')
    for lib in glob.glob(os.path.join(examples, 'lib*.so')):
        os.symlink(os.path.abspath(lib), os.path.join(d,
                                                      os.path.basename(lib)))


# Inputs one page needs other than the common ones: (what the command
# holds, file, array).
OVERRIDES = [
    ('libprefixsum', 'x.npy',
     lambda: np.random.default_rng(1).standard_normal(3000)),
]


def built_with(name):
    try:
        with open(os.path.join(BUILD, 'config.h')) as f:
            return '#define HAVE_%s 1' % name in f.read()
    except OSError:
        return True


def h5py_ok():
    try:
        import h5py  # noqa: F401
    except ImportError:
        return False
    return built_with('HDF5')


def zarr_ok():
    try:
        import zarr  # noqa: F401
    except ImportError:
        return False
    return built_with('ZARR')


def check_report(what, rc, text):
    found = re.search(r'^Issues found: (\d+)', text, re.M)
    issues = re.findall(r'^ +(?:warning|critical|issue) : .*', text, re.M)
    if rc != 0 or found is None:
        raise Failure('gst-validate-1.0 %s failed (%d):\n%s' %
                      (what, rc, text[-3000:]))
    if int(found.group(1)) != 0 or issues:
        raise Failure('gst-validate-1.0 %s reported %s issues: %s\n%s' %
                      (what, found.group(1), issues, text[-3000:]))


def run_pipeline(d, command, env=None, stdin=None, stdout=None):
    """gst-validate-1.0 on a pipeline (gst-launch words) in d."""
    words = list(command)
    if stdout is not None:
        # The report goes to standard output: the data goes to fd 3.
        words = ['fd=3' if w == 'fd=1' else w for w in words]
    cmd = '%s %s' % (shlex.quote(TOOL), ' '.join(shlex.quote(w)
                                                 for w in words))
    if stdin is not None:
        cmd += ' < ' + shlex.quote(stdin)
    if stdout is not None:
        cmd += ' 3> ' + shlex.quote(stdout)
    p = subprocess.run(['/bin/sh', '-c', cmd], cwd=d,
                       env=dict(ENV, **dict({'GST_PLAN_DEVICE': 'sim'},
                                            **(env or {}))),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120)
    check_report(' '.join(words), p.returncode, p.stdout)


def skip_reason(command):
    for pattern, reason in SKIPS:
        if pattern.search(command):
            return reason
    if HDF5.search(command) and not h5py_ok():
        return 'gst-plan built without HDF5, or no h5py'
    if ZARR.search(command) and not zarr_ok():
        return 'gst-plan built without Zarr, or no zarr-python'
    return None


def case_dir(name):
    """A directory of its own for a run, with links to every input:
    a pipeline that writes a file another one reads (planfilesrc.md makes
    its in.npy from in.f32) changes nothing for the others (planfilesink
    renames its output over the link, not into the input)."""
    d = os.path.join(D, re.sub(r'[^A-Za-z0-9.]+', '_', name))
    os.makedirs(d)
    for f in os.listdir(INPUTS):
        os.symlink(os.path.join(INPUTS, f), os.path.join(d, f))
    return d


def check_doc(name, command):
    parsed = launch_words(command)
    if parsed is None:
        raise Failure('%s: cannot read the command %r' % (name, command))
    env, stdin, words, stdout = parsed
    d = case_dir(name)
    for holds, fname, make in OVERRIDES:
        if holds in command:
            os.unlink(os.path.join(d, fname))
            np.save(os.path.join(d, fname), make())
    run_pipeline(d, words, env, stdin, stdout)


def check_plan(name, text):
    run_pipeline(case_dir(name), shlex.split(text))


GST_LAUNCH_SHIM = '''#!/bin/sh
# gst-launch-1.0 as gst-validate-1.0: options dropped, the report kept.
while [ $# -gt 0 ]; do
  case "$1" in -*) shift ;; *) break ;; esac
done
n=$(ls "$PLAN_VALIDATE_LOGS" | wc -l)
exec "$PLAN_VALIDATE_TOOL" "$@" > "$PLAN_VALIDATE_LOGS/run$n.log" 2>&1
'''

# Scripts of pipelines/ with arguments that keep their inputs small.
SCRIPTS = [
    ('copy.sh', lambda d: [os.path.join(d, 'a.npy'),
                           os.path.join(d, 'copy.npy')]),
    ('laplacian.sh', lambda d: [BUILD, os.path.join(d, 'img.npy'),
                                os.path.join(d, 'lap.npy')]),
    ('reduce.sh', lambda d: [BUILD, os.path.join(d, 'rm.npy')]),
]
# demo.sh makes two 2000003-row arrays and reads the sum from
# gst-launch-1.0 -m: its pipeline is test_validate's "map of two inputs,
# tee, reduce" on small arrays.


def check_script(script, args):
    d = case_dir(script)
    shim = os.path.join(d, 'shim')
    logs = os.path.join(d, 'logs-' + script)
    os.makedirs(shim, exist_ok=True)
    os.makedirs(logs)
    with open(os.path.join(shim, 'gst-launch-1.0'), 'w') as f:
        f.write(GST_LAUNCH_SHIM)
    os.chmod(os.path.join(shim, 'gst-launch-1.0'), 0o755)
    np.save(os.path.join(d, 'rm.npy'),
            np.random.default_rng(2).standard_normal((3000, 4)).astype(
                np.float32))
    env = dict(ENV, PATH=shim + ':' + ENV.get('PATH', ''),
               PLAN_VALIDATE_LOGS=logs, PLAN_VALIDATE_TOOL=TOOL,
               PLAN_BUILD_DIR=BUILD, PYTHON='/usr/bin/python3')
    p = subprocess.run(['bash', os.path.join(SOURCE, 'pipelines', script)]
                       + args(d), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=120)
    runs = sorted(os.listdir(logs))
    for r in runs:
        with open(os.path.join(logs, r)) as f:
            check_report('in pipelines/%s' % script, 0, f.read())
    if p.returncode != 0:
        raise Failure('pipelines/%s (%d):\n%s' % (script, p.returncode,
                                                   p.stdout[-3000:]))
    if not runs:
        raise Failure('pipelines/%s ran no gst-launch-1.0' % script)


D = plantest.tmpdir()
INPUTS = os.path.join(D, 'inputs')


def cases():
    """The cases, and the SKIP lines of the commands not run."""
    found, skipped = [], []
    for name, command in doc_pipelines():
        reason = skip_reason(command)
        if reason is not None:
            skipped.append('SKIP %s: %s: %s' % (name, reason, command))
            continue
        found.append(('docs: %s: %s' % (name, command[:60]),
                      lambda n=name, c=command: check_doc(n, c)))
    for name, text in plan_files():
        found.append((name, lambda n=name, t=text: check_plan(n, t)))
    for script, args in SCRIPTS:
        found.append(('pipelines/' + script,
                      lambda s=script, a=args: check_script(s, a)))
    return found, skipped

if __name__ == '__main__':
    if TOOL is None:
        print('SKIP: gst-validate-1.0 not found (see test_validate).')
        sys.exit(77)
    CASES, SKIPPED = cases()
    print('\n'.join(SKIPPED))
    os.makedirs(INPUTS)
    make_inputs(INPUTS)
    plantest.run_cases(CASES)
