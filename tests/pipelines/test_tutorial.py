"""docs/tutorial.md, as a newcomer runs it: every command of the tutorial
(after the build, which the test suite has done) runs in a fresh directory,
in order, and every result the tutorial shows (numpy's checks, the values
plan-launch prints, gst-inspect-1.0's lines) must be what the command
prints; progress bars, timings and the statistics table, which vary from
run to run, are not compared."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import plantest  # noqa: E402
from plantest import Failure  # noqa: E402

BUILD = os.path.abspath(os.environ.get('PLAN_BUILD_DIR', 'build'))
SOURCE = os.path.abspath(os.environ.get('PLAN_SOURCE_DIR', '.'))
TUTORIAL = os.path.join(SOURCE, 'docs', 'tutorial.md')

COMMANDS = ('plan-launch', '/usr/bin/python3', 'gst-inspect-1.0',
            'tools/bootstrap.sh', 'meson ', 'mkdir ')
# What the build and `meson devenv` already did for the test.
SKIPPED = ('tools/bootstrap.sh', 'meson ', 'mkdir ')
# Lines of output that vary from run to run, and the statistics table's
# (on standard error, which is not compared).
VARYING = re.compile(r'^(\[[#.?]+\]|Execution ended after|element |'
                     r'\S+\s+\S+\s+\d+\s|bounded by |\(buffers, rows )')


def blocks(text):
    """The indented code blocks of a markdown text, in order."""
    out, current, in_fence = [], [], False
    for line in text.splitlines():
        if line.startswith('```'):
            in_fence = not in_fence
            continue
        if not in_fence and line.startswith('    '):
            current.append(line[4:])
            continue
        if current and line.strip() == '' and not in_fence:
            out.append('\n'.join(current))
            current = []
    if current:
        out.append('\n'.join(current))
    return out


def steps(text):
    """(command, shown output or None) pairs."""
    result = []
    for block in blocks(text):
        if block.startswith(COMMANDS):
            result.append([block, None])
        elif result:
            # output may come in several blocks (a blank line inside it)
            result[-1][1] = (result[-1][1] + '\n' if result[-1][1] else '') \
                + block
        else:
            raise Failure('an output block with no command before it:\n'
                          + block)
    return result


def test_tutorial_runs_as_written():
    work = plantest.tmpdir()
    env = dict(os.environ)
    env['PATH'] = os.path.join(BUILD, 'tools') + os.pathsep + env['PATH']
    env['PLAN_PIPELINES_DIR'] = os.path.join(SOURCE, 'pipelines')
    ran = 0
    # A build without HDF5 or Zarr (-Dhdf5=disabled, -Dzarr=disabled)
    # cannot run their steps.
    with open(os.path.join(BUILD, 'config.h')) as f:
        config = f.read()
    no_hdf5 = '#define HAVE_HDF5 0' in config
    no_zarr = '#define HAVE_ZARR 0' in config
    for command, shown in steps(open(TUTORIAL).read()):
        if command.startswith(SKIPPED):
            continue
        if no_hdf5 and ('h5py' in command or '.h5' in command):
            continue
        if no_zarr and 'zarr' in command:
            continue
        p = subprocess.run(['bash', '-e', '-c', command], cwd=work, env=env,
                           capture_output=True, text=True, timeout=120)
        ran += 1
        if p.returncode != 0:
            raise Failure('exit %d: %s\n%s%s' % (p.returncode, command,
                                                  p.stdout, p.stderr))
        if shown is None:
            continue
        printed = p.stdout.splitlines()
        for line in shown.splitlines():
            if not line.strip() or VARYING.match(line):
                continue
            if line not in printed:
                raise Failure('the tutorial shows %r after\n%s\nbut it '
                              'printed:\n%s' % (line, command, p.stdout))
    if ran < 8:
        raise Failure('only %d commands found in the tutorial' % ran)


plantest.run_cases([('tutorial', test_tutorial_runs_as_written)])
