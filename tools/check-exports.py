#!/usr/bin/python3
"""Checks that libplan exports exactly the functions its installed headers
declare with PLAN_API (and, in a build with tests, the test hooks of its
private headers, declared with PLAN_TEST_API), and that docs/api.md puts
every installed header in the class its header says: stable, or unstable
(a header that warns unless PLAN_USE_UNSTABLE_API is defined) and gives
the library's counts of exported functions in its table.

Prints the count of exported functions of each class.

Usage: tools/check-exports.py [--test-hooks | --no-test-hooks]
           [--api-doc docs/api.md] LIBRARY HEADER...
  LIBRARY   the built or installed libplan (its .so)
  HEADER    every installed header, and the private headers that declare
            test hooks (their PLAN_TEST_API functions are the test hooks)
  --test-hooks     the test hooks must be exported (a build with tests)
  --no-test-hooks  they must not be (the packages, the wheel)
Exit status: 0 when the exported set is the declared one, 1 otherwise.
"""

import os
import re
import subprocess
import sys

# A declaration: PLAN_API (or PLAN_TEST_API), the return type, the name,
# its opening parenthesis.
DECL = re.compile(r'\b(PLAN_API|PLAN_TEST_API)\s+[^;{}()#]*?\b([a-z_][a-z0-9_]*)'
                  r'\s*\(')
# A GObject type declared by its macro: NAME_get_type.
TYPE_DECL = re.compile(r'\b(PLAN_API|PLAN_TEST_API)\s+G_DECLARE_[A-Z_]*TYPE\s*'
                       r'\(\s*\w+\s*,\s*([a-z_][a-z0-9_]*)\s*,')
UNSTABLE = re.compile(r'#\s*ifndef\s+PLAN_USE_UNSTABLE_API\s*\n\s*#\s*warning')
PRIVATE = re.compile(r'(-private|plan-testing|-backend)\.h$')
HEADER_NAME = re.compile(r'`([a-z0-9-]+\.h)`')


def strip_comments(text):
    return re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)


def exported(lib):
    out = subprocess.run(['nm', '-D', '--defined-only', lib], check=True,
                         capture_output=True, text=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def doc_classes(path):
    """The headers docs/api.md lists under '## Stable' and '## Unstable'."""
    classes = {}
    section = None
    with open(path, encoding='utf-8') as fh:
        for line in fh:
            if line.startswith('## '):
                title = line[3:].strip().lower()
                section = title if title in ('stable', 'unstable') else None
                continue
            if section and line.startswith('|'):
                for name in HEADER_NAME.findall(line):
                    classes.setdefault(name, set()).add(section)
    return classes


# The rows of docs/api.md's table of exported functions, by their label.
COUNT_ROW = re.compile(r'^\|\s*(stable|unstable|test hooks|exported by the '
                       r'packages and the wheel)\b[^|]*\|\s*(\d+)\s*\|', re.M)


def doc_counts(path, counts, hooks):
    """The differences between the counts docs/api.md gives and those of
    the library, as errors."""
    with open(path) as f:
        rows = dict(COUNT_ROW.findall(f.read()))
    have = {'stable': counts.get('stable', 0),
            'unstable': counts.get('unstable', 0),
            'exported by the packages and the wheel':
            counts.get('stable', 0) + counts.get('unstable', 0)}
    if hooks:
        have['test hooks'] = counts.get('test hook', 0)
    errors = []
    for label, n in have.items():
        if label not in rows:
            errors.append('%s: no "%s" row in its table of exported functions'
                          % (path, label))
        elif int(rows[label]) != n:
            errors.append('%s: its table of exported functions gives %s '
                          'for "%s"; the library has %d'
                          % (path, rows[label], label, n))
    return errors


def main(argv):
    hooks = None
    api_doc = None
    args = []
    it = iter(argv)
    for a in it:
        if a == '--test-hooks':
            hooks = True
        elif a == '--no-test-hooks':
            hooks = False
        elif a == '--api-doc':
            api_doc = next(it)
        else:
            args.append(a)
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    lib, headers = args[0], args[1:]

    declared = {}               # name -> (class, header)
    header_class = {}
    for h in headers:
        name = os.path.basename(h)
        with open(h, encoding='utf-8') as fh:
            raw = fh.read()
        text = strip_comments(raw)
        if PRIVATE.search(name):
            cls = 'private'
        else:
            cls = 'unstable' if UNSTABLE.search(raw) else 'stable'
            header_class[name] = cls
        decls = DECL.findall(text) + [(m, f + '_get_type') for m, f in
                                       TYPE_DECL.findall(text)]
        if not decls and name in header_class:
            header_class[name] = 'any'      # nothing exported: any table
        for macro, func in decls:
            kind = 'test hook' if macro == 'PLAN_TEST_API' else cls
            if kind == 'private':
                print('%s: %s is declared PLAN_API in a private header: '
                      'exported, but no installed header declares it'
                      % (h, func), file=sys.stderr)
                kind = 'undeclared'
            declared.setdefault(func, (kind, name))

    have = exported(lib)
    errors = []
    for func in sorted(have):
        if func not in declared:
            errors.append('%s is exported but no header given declares it '
                          'with PLAN_API' % func)
        elif declared[func][0] == 'undeclared':
            errors.append('%s is exported from the private %s'
                          % (func, declared[func][1]))
        elif declared[func][0] == 'test hook' and hooks is False:
            errors.append('%s (a test hook of %s) is exported by a build '
                          'without tests' % (func, declared[func][1]))
    for func, (kind, h) in sorted(declared.items()):
        if func in have:
            continue
        if kind in ('stable', 'unstable'):
            errors.append('%s, declared PLAN_API in %s, is not exported'
                          % (func, h))
        elif kind == 'test hook' and hooks:
            errors.append('%s, a test hook of %s, is not exported by a build '
                          'with tests' % (func, h))

    if api_doc:
        documented = doc_classes(api_doc)
        for name, cls in sorted(header_class.items()):
            got = documented.get(name)
            if cls == 'any' and got:
                continue
            if not got:
                errors.append('%s: the %s header %s is in neither table of '
                              'its "## Stable" and "## Unstable" sections'
                              % (api_doc, cls, name))
            elif got != {cls}:
                errors.append('%s lists %s as %s; the header is %s'
                              % (api_doc, name, '/'.join(sorted(got)), cls))

    counts = {}
    for func in have:
        kind = declared.get(func, ('undeclared', None))[0]
        counts[kind] = counts.get(kind, 0) + 1
    print('%s exports %d functions: %s' % (os.path.basename(lib), len(have),
          ', '.join('%d %s' % (counts[k], k) for k in
                    ('stable', 'unstable', 'test hook', 'undeclared')
                    if k in counts)))
    if api_doc:
        errors += doc_counts(api_doc, counts, hooks)
    n_headers = {c: sum(1 for v in header_class.values() if v == c)
                 for c in ('stable', 'unstable', 'any')}
    print('installed headers: %d stable, %d unstable (and %d that declare '
          'no function)' % (n_headers['stable'], n_headers['unstable'],
                            n_headers['any']))
    if errors:
        print('\n'.join(errors), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
