#!/usr/bin/python3
"""Prints the include graph between libplan's layer folders and fails on an
include that points up a layer, or on an element that includes a private
header.

libplan is grouped by layer, one folder each (docs/architecture.md). A file
may include headers of its own layer and of the layers below it; an include
of a higher layer's header is an error, and so, therefore, is any cycle
between folders. The two umbrella headers, core/plan.h (the public one) and
core/plan-private.h (the private one, which includes plan.h), gather every
layer on purpose and are left out.

The elements (plugins/) and the tools (tools/) use the public API only:
they include libplan's headers as <libplan/NAME.h>, never a private
header by its folder path. So do the inner loops (kernels/), which lie
below every layer: what they share with libplan is in headers of their
own (kernels/cpu/exprtable.h, kernels/cpu/half.h) that libplan includes.

Usage: tools/check-layers.py [--quiet] [SOURCE_ROOT]
Exit status: 0 when the layering holds, 1 otherwise.
"""

import collections
import os
import re
import sys

# From the bottom up; a layer may include those before it.
LAYERS = ['core', 'device', 'io', 'expr', 'stencil', 'reduce', 'mpi',
          'element', 'graph']
UMBRELLAS = {'core/plan.h', 'core/plan-private.h'}
INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^">]+)[">]', re.M)


def layer_of(path):
    return path.split('/', 1)[0]


def main(argv):
    quiet = '--quiet' in argv
    args = [a for a in argv if a != '--quiet']
    root = args[0] if args else os.path.join(os.path.dirname(__file__), '..')
    lib = os.path.join(root, 'libplan')

    files = []
    for d, _, names in os.walk(lib):
        for n in names:
            if n.endswith(('.c', '.h')):
                files.append(os.path.relpath(os.path.join(d, n), lib))
    files.sort()
    # Public headers are included as <libplan/NAME.h> (installed flat).
    by_name = collections.defaultdict(list)
    for f in files:
        if f.endswith('.h'):
            by_name[os.path.basename(f)].append(f)

    errors = []
    for f in files:
        if '/' not in f:
            errors.append('%s: a file outside the layer folders' % f)
            continue
        if layer_of(f) not in LAYERS:
            errors.append('%s: %s/ is not a known layer (add it to LAYERS '
                          'in %s)' % (f, layer_of(f), sys.argv[0]))
    if errors:
        print('\n'.join(errors), file=sys.stderr)
        return 1

    edges = collections.defaultdict(list)
    for f in files:
        here = os.path.dirname(f)
        with open(os.path.join(lib, f), encoding='utf-8') as fh:
            text = fh.read()
        for quote, name in INCLUDE.findall(text):
            target = None
            if name.startswith('libplan/'):
                rest = name[len('libplan/'):]
                if '/' in rest:
                    target = rest
                elif len(by_name.get(rest, [])) == 1:
                    target = by_name[rest][0]
                elif rest in by_name:
                    errors.append('%s: <%s> is ambiguous: %s'
                                  % (f, name, ', '.join(by_name[rest])))
                    continue
                else:
                    errors.append('%s: includes %s, which is not in libplan'
                                  % (f, name))
                    continue
            elif quote == '"':
                local = os.path.normpath(os.path.join(here, name))
                if local in files:
                    target = local
            if target is None:
                continue        # system, generated or outside libplan
            a, b = layer_of(f), layer_of(target)
            if a == b:
                continue
            edges[(a, b)].append((f, target))
            if f not in UMBRELLAS and LAYERS.index(b) > LAYERS.index(a):
                errors.append('libplan/%s includes libplan/%s: %s/ is above '
                              '%s/' % (f, target, b, a))

    for top in ('plugins', 'tools', 'kernels'):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if not n.endswith(('.c', '.h')):
                    continue
                p = os.path.join(d, n)
                with open(p, encoding='utf-8') as fh:
                    text = fh.read()
                for quote, name in INCLUDE.findall(text):
                    if name.startswith('libplan/') and (
                            quote == '"' or '/' in name[len('libplan/'):]):
                        written = ('"%s"' if quote == '"' else '<%s>') % name
                        errors.append('%s includes %s: elements, tools '
                                      'and kernels use the public headers, '
                                      '<libplan/NAME.h>'
                                      % (os.path.relpath(p, root), written))

    if not quiet:
        print('libplan layers, bottom up: ' + ' < '.join(LAYERS))
        print('includes between folders (count), umbrellas %s left out:'
              % ' and '.join(sorted(UMBRELLAS)))
        for a in reversed(LAYERS):
            outs = []
            for b in LAYERS:
                n = sum(1 for f, _ in edges.get((a, b), [])
                        if f not in UMBRELLAS)
                if n:
                    outs.append('%s (%d)' % (b, n))
            print('  %-8s -> %s' % (a, ', '.join(outs) if outs else '-'))
    if errors:
        print('\n'.join(errors), file=sys.stderr)
        print('%d include(s) break the layering' % len(errors),
              file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
