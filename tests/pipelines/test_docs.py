"""The user docs against the plugin: every element of gst-inspect-1.0 has a
page with its pads, properties, examples and errors; every property the
element defines is in its page's property table, and every property a
table names exists (so neither drifts); tables render (as many header
cells as delimiter cells); the pages speak to users (no references to
files outside the tree or to issues, no benchmark figures outside
docs/performance.md); the pictures they show exist."""
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import plantest  # noqa: E402
from plantest import Failure  # noqa: E402

SOURCE = os.environ.get('PLAN_SOURCE_DIR', '.')
DOCS = os.path.join(SOURCE, 'docs')
PAGES = sorted(glob.glob(os.path.join(DOCS, '*.md'))) + \
    [os.path.join(SOURCE, 'README.md')]


def inspect(*args):
    p = subprocess.run(['gst-inspect-1.0'] + list(args), capture_output=True,
                       text=True, timeout=60)
    if p.returncode != 0:
        raise Failure('gst-inspect-1.0 %s failed:\n%s' % (args, p.stderr))
    return p.stdout


def elements():
    """The element factories of the plugin, from gst-inspect-1.0 plan."""
    out = inspect('plan')
    names = re.findall(r'^  ([a-z0-9]+): ', out, re.M)
    if 'planmap' not in names:
        raise Failure('gst-inspect-1.0 plan lists no planmap:\n' + out)
    return names


def inspected_properties(name):
    """The property names of gst-inspect-1.0 NAME, and its whole output."""
    out = inspect(name)
    section = out.split('Element Properties:')[1]
    section = re.split(r'\n(Element Signals|Element Actions):', section)[0]
    return set(re.findall(r'^  ([a-z0-9-]+)\s*: ', section, re.M)), out


def own_properties(name):
    """The properties the element's own classes define (the plugin's and
    libplan's types, named Plan...), not GStreamer's base classes'."""
    try:
        import gi
        gi.require_version('Gst', '1.0')
        from gi.repository import Gst
    except (ImportError, ValueError) as e:
        raise Failure('GStreamer through GObject introspection is needed to '
                      'tell an element\'s own properties from its base '
                      'classes\' (python3-gi, gir1.2-gstreamer-1.0: '
                      'tools/bootstrap.sh installs them): %s' % e)
    Gst.init(None)
    e = Gst.ElementFactory.make(name, None)
    if e is None:
        raise Failure('cannot make %s through GObject introspection' % name)
    return {p.name for p in e.list_properties()
            if p.owner_type.name.startswith('Plan')}


def section(text, title):
    """The body of '## title' (up to the next ## heading), or None."""
    m = re.search(r'^## %s\s*$(.*?)(?=^## |\Z)' % re.escape(title), text,
                  re.M | re.S)
    return m.group(1) if m else None


def table_first_cells(body):
    """The `names` in the first column of the tables of body (a cell may
    name several, such as `sink_0`, `sink_1`)."""
    names = set()
    for line in body.splitlines():
        if not line.startswith('|') or re.match(r'^\|\s*-', line):
            continue
        first = line.split('|')[1]
        names.update(re.findall(r'`([^`]+)`', first))
    return names


def check_element_pages():
    problems = []
    for name in elements():
        path = os.path.join(DOCS, name + '.md')
        if not os.path.exists(path):
            problems.append('%s has no page docs/%s.md' % (name, name))
            continue
        text = open(path).read()
        for title in ('Pads', 'Properties', 'Examples', 'Errors'):
            if section(text, title) is None:
                problems.append('docs/%s.md has no "## %s"' % (name, title))
        props, out = inspected_properties(name)
        documented = table_first_cells(section(text, 'Properties') or '')
        own = own_properties(name)
        if not own <= set(props):
            problems.append('%s: gst-inspect-1.0 lacks %s' % (name, own - set(props)))
        for p in sorted(own - documented):
            problems.append('docs/%s.md does not document the property %s'
                            % (name, p))
        for p in sorted(documented - set(props)):
            problems.append('docs/%s.md documents %s, which %s does not have'
                            % (name, p, name))
        templates = set(re.findall(r"^  (?:SRC|SINK) template: '([^']+)'",
                                   out, re.M))
        pads = table_first_cells(section(text, 'Pads') or '')
        for t in sorted(templates - pads):
            problems.append('docs/%s.md does not list the pad %s' % (name, t))
        for t in sorted(pads - templates):
            problems.append('docs/%s.md lists a pad %s that %s does not have'
                            % (name, t, name))
        if not re.search(r'^## Examples\s*$.*?(gst-launch-1\.0|plan-launch|'
                         r'```c|language="C"|import gstplan)',
                         text, re.M | re.S):
            problems.append('docs/%s.md: its Examples have no example' % name)
    if problems:
        raise Failure('\n'.join(problems))


def check_tables_render():
    problems = []
    for path in PAGES:
        lines = open(path).read().splitlines()
        in_code = False
        for i, line in enumerate(lines):
            if line.startswith('```'):
                in_code = not in_code
            if in_code or i == 0:
                continue
            if re.match(r'^\|(\s*:?-+:?\s*\|)+\s*$', line) and \
                    lines[i - 1].startswith('|'):
                head = lines[i - 1].strip().strip('|').split('|')
                delim = line.strip().strip('|').split('|')
                if len(head) != len(delim):
                    problems.append('%s:%d: %d header cells, %d delimiter cells'
                                    % (os.path.relpath(path, SOURCE), i,
                                       len(head), len(delim)))
    if problems:
        raise Failure('\n'.join(problems))


def check_code_fences():
    """A code block opens with ``` and a language at most, and closes with
    ``` alone on its line: text after a closing fence leaves the block
    open, and the rest of the page renders as code."""
    problems = []
    for path in PAGES:
        in_code = False
        n = 0
        for n, line in enumerate(open(path), 1):
            if not line.startswith('```'):
                continue
            rest = line[3:].strip()
            if in_code and rest:
                problems.append('%s:%d: text after a closing fence: %s' % (
                    os.path.relpath(path, SOURCE), n, line.strip()))
            elif not in_code and not re.match(r'^[\w+-]*$', rest):
                problems.append('%s:%d: an opening fence with more than a '
                                'language: %s' % (os.path.relpath(
                                    path, SOURCE), n, line.strip()))
            in_code = not in_code
        if in_code:
            problems.append('%s: a code block left open at the end' %
                            os.path.relpath(path, SOURCE))
    if problems:
        raise Failure('\n'.join(problems))


def check_no_references_outside():
    bad = [(r'DESIGN\.md', 'a file not in the tree'),
           (r'[Ii]ssue\s+#?\d+', 'an issue'),
           (r"\bdesign's\b", 'a design not in the tree'),
           (r'/work/', 'a path outside the tree'),
           (r'\.\./shared/', 'a path outside the tree')]
    problems = []
    for path in PAGES:
        for n, line in enumerate(open(path), 1):
            for pattern, what in bad:
                if re.search(pattern, line):
                    problems.append('%s:%d refers to %s: %s' % (
                        os.path.relpath(path, SOURCE), n, what, line.strip()))
    if problems:
        raise Failure('\n'.join(problems))


def check_figures_in_performance_md():
    """Pages describe; measured figures live in performance.md."""
    problems = []
    figure = re.compile(r'\bbest of \d|\d+(\.\d+)? ?(GiB|MiB|GB|MB)/s|'
                        r'\d+(\.\d+)? s per GiB|\d\.\d+ s\b')
    # the pages that show sample output of plan-launch keep it
    samples = {'performance.md', 'tutorial.md', 'plan-launch.md'}
    for path in PAGES:
        name = os.path.basename(path)[:-3]
        if os.path.basename(path) in samples:
            continue
        text = open(path).read()
        for title in ('Performance', 'Speed', 'What it costs'):
            body = section(text, title)
            if body is not None and figure.search(body):
                problems.append('%s.md: figures under "## %s"'
                                % (name, title))
        in_code = False
        for n, line in enumerate(text.splitlines(), 1):
            if line.startswith('```') or line.startswith('    '):
                in_code = line.startswith('```') != in_code
                continue
            if not in_code and figure.search(line):
                problems.append('%s.md:%d: a measured figure (move it '
                                'to performance.md): %s' % (name, n,
                                                            line.strip()))
    if problems:
        raise Failure('\n'.join(problems))


def check_index_and_pictures():
    index = open(os.path.join(DOCS, 'index.md')).read()
    problems = []
    for name in ['tutorial', 'plan-launch', 'performance'] + elements():
        if '(%s.md)' % name not in index:
            problems.append('docs/index.md does not link %s.md' % name)
    shown = set()
    for path in PAGES:
        for ref in re.findall(r'!\[[^\]]*\]\(([^)]+)\)', open(path).read()):
            target = os.path.normpath(os.path.join(os.path.dirname(path), ref))
            shown.add(target)
            if not os.path.exists(target):
                problems.append('%s shows %s, which does not exist'
                                % (os.path.relpath(path, SOURCE), ref))
    for svg in glob.glob(os.path.join(DOCS, 'graphs', '*.svg')):
        if os.path.normpath(svg) not in shown:
            problems.append('%s is shown by no page'
                            % os.path.relpath(svg, SOURCE))
        if '<svg' not in open(svg).read(4096):
            problems.append('%s is not an SVG' % os.path.relpath(svg, SOURCE))
    if not glob.glob(os.path.join(DOCS, 'graphs', '*.svg')):
        problems.append('no pipeline graphs in docs/graphs/')
    if problems:
        raise Failure('\n'.join(problems))


def c_calls(text):
    """The plan_graph_add_* calls of C text, without spaces, `&` or the
    left-hand side, so that the README's lines and the example's compare."""
    calls = re.findall(r'(plan_graph_add_\w+\s*\([^;]*\))', text)
    return [re.sub(r'[\s&]', '', c) for c in calls]


def check_readme_examples_agree():
    """The README's C example builds what tests/examples/plan-example.c
    builds (which test_plan_api checks against numpy, with the Python
    example's meaning: a sum and a reflected stencil), so the README's C
    and Python examples compute the same thing."""
    readme = open(os.path.join(SOURCE, 'README.md')).read()
    c_block = re.search(r'```c\n(.*?)```', readme, re.S).group(1)
    example = open(os.path.join(SOURCE, 'tests', 'examples',
                                'plan-example.c')).read()
    built = c_calls(example)
    problems = ['README.md builds %s, which plan-example.c does not' % c
                for c in c_calls(c_block) if c not in built]
    if 'plan.reduce(lambda x, y: x + y' in readme and \
            'PLAN_REDUCE_OP_SUM' not in c_block:
        problems.append('README.md: the Python example\'s reduce is a sum, '
                        'the C example\'s is not')
    if 'PLAN_BOUNDARY_REFLECT' not in c_block:
        problems.append('README.md: the Python example\'s stencil reflects '
                        '(the default), the C example\'s does not')
    if problems:
        raise Failure('\n'.join(problems))


def check_stdout_examples_quiet():
    """A plan-launch example that writes its stream to standard output
    (fdsink fd=1) has -q: otherwise its results and 'Execution ended
    after' lines go into the same output, after the data."""
    problems = []
    for path in PAGES:
        text = open(path).read().replace('\\\n', ' ')
        for n, line in enumerate(text.splitlines(), 1):
            if 'plan-launch ' in line and re.search(r'fdsink\s+fd=1', line) \
                    and not re.search(r'plan-launch\s+(-\S+\s+)*(-q|--quiet)\b',
                                      line):
                problems.append('%s: plan-launch writes to standard output '
                                'without -q: %s' % (
                                    os.path.relpath(path, SOURCE),
                                    ' '.join(line.split())))
    if problems:
        raise Failure('\n'.join(problems))


def check_plan_files_listed():
    """plan-launch.md's table of the tree's pipelines/ names every .plan
    file there (the element pages send readers to laplacian3d.plan and
    wave.plan by name), and names no file that is not there."""
    page = open(os.path.join(DOCS, 'plan-launch.md')).read()
    listed = set(re.findall(r'^\| `([\w-]+\.plan)` \|', page, re.M))
    there = set(os.path.basename(f) for f in glob.glob(
        os.path.join(SOURCE, 'pipelines', '*.plan')))
    problems = ['docs/plan-launch.md: pipelines/%s is not in the table of '
                'the tree\'s pipelines' % f for f in sorted(there - listed)]
    problems += ['docs/plan-launch.md lists %s, which pipelines/ does not '
                 'have' % f for f in sorted(listed - there)]
    if problems:
        raise Failure('\n'.join(problems))


def check_python_blocks_fenced_python():
    """A code block of Python (a lambda or gstplan's Plan()) is fenced as
    python, so a reader of a page about the C API does not take it for
    C, and it is highlighted as Python."""
    problems = []
    for path in PAGES:
        lang, body, start = None, [], 0
        for n, line in enumerate(open(path), 1):
            if not line.startswith('```'):
                if lang is not None:
                    body.append(line)
                continue
            if lang is None:
                lang, body, start = line[3:].strip(), [], n
                continue
            text = ''.join(body)
            if lang not in ('python', 'py', 'pycon') and \
                    re.search(r'\blambda\b.*:|\bPlan\(\)', text):
                problems.append('%s:%d: a block of Python fenced as %r' % (
                    os.path.relpath(path, SOURCE), start, lang or ''))
            lang = None
    if problems:
        raise Failure('\n'.join(problems))


plantest.run_cases([
    ('README\'s C and Python examples agree', check_readme_examples_agree),
    ('plan-launch to standard output is quiet', check_stdout_examples_quiet),
    ('element pages', check_element_pages),
    ('tables render', check_tables_render),
    ('code blocks close', check_code_fences),
    ('Python blocks are fenced as python', check_python_blocks_fenced_python),
    ('plan-launch.md lists every .plan file', check_plan_files_listed),
    ('no references outside the tree', check_no_references_outside),
    ('figures only in performance.md', check_figures_in_performance_md),
    ('index and pictures', check_index_and_pictures),
])
