#!/usr/bin/python3
"""The Python code blocks of README.md and docs/*.md run as written and give
numpy's results. Each block is read from its page (not copied here) and
run as a file of its own (gstplan reads a lambda's source), after a
prelude that makes the names the page assumes (the arrays A and B, a
reader, a file b.npy, the plan of the page's first example) and before
checks of what it made against numpy. A block no entry below knows is a
failure: add what it needs. Blocks that are fragments of a pipeline
application, not of a plan, are listed with why they are not run.

PLAN_TEST_CASES picks cases by name, as in the pipeline tests."""
import glob
import os
import re
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, '..', 'pipelines'))
import plantest  # noqa: E402
from plantest import Failure  # noqa: E402

SOURCE = os.path.join(here, '..', '..')

# The plan of python.md's first example (and the README's), for the blocks
# that use its names.
SEED_PLAN = '''
import numpy as np
from gstplan import Plan, IO
plan = Plan(); a = plan.source(ndim=1); b = plan.source(ndim=1)
c = plan.map(lambda x, y: x + y, args=(a, b)); d = plan.reduce(lambda x, y: x + y, args=(a,))
e = plan.stencil("x y _", lambda x, y: x + y, args=(b,))
f = plan.sink(c); g = plan.sink(d); h = plan.sink(e)
work = plan.realize(target='cpu')
'''

# Arrays, a reader over `data` and a writer into `out`, and b.npy.
ARRAYS = '''
import numpy as np
rng = np.random.default_rng(7)
A = rng.random(100003).astype(np.float32)
B = rng.random(100003).astype(np.float32)
F = np.empty_like(A); G = np.empty((), np.float32); H = np.empty_like(B)
BF = rng.random(100003).astype(np.float32)
np.save('b.npy', BF)
data = A
out = np.empty_like(A)
def reader(first_row):
    return data[first_row:first_row + 65536] if first_row < len(data) else None
def writer(rows, first_row):
    out[first_row:first_row + len(rows)] = rows
'''

CHECK_SEED = '''
from scipy import ndimage
assert np.array_equal(F, A + B), 'f: not A + B'
assert np.allclose(G, A.sum(dtype=np.float64), rtol=1e-6), (G, A.sum())
assert np.array_equal(H, ndimage.correlate1d(B, [1, 1, 0], mode='reflect')), 'h'
'''

CHECK_IO = '''
assert np.array_equal(out, A + BF), 'io: the writer did not get A + b.npy'
assert np.allclose(io.future.result('g'), A.sum(dtype=np.float64),
                   rtol=1e-6), io.future.result('g')
'''

# (what the block holds, prelude, checks after it, environment). A prelude
# or check of None: the block is not run, the check says why.
BLOCKS = [
    ('future.wait()\nio = IO(work)',  # README.md
     ARRAYS, CHECK_SEED + CHECK_IO, {}),
    ('print(F[:3], future.result(\'g\'), H[:3])',  # python.md's first
     '', '''
from scipy import ndimage
assert np.array_equal(F, A + B)
assert np.allclose(future.result('g'), A.sum(dtype=np.float64), rtol=1e-5)
assert np.array_equal(H, ndimage.correlate1d(B, [1, 1, 0], mode='reflect'))
''', {}),
    ("work = plan.realize(target='gpu')",  # plan-api.md, on the sim device
     ARRAYS + 'from gstplan import Plan\n', CHECK_SEED,
     {'GST_PLAN_DEVICE': 'sim'}),
    ('U, P = work.dispatch(u=U, u_prev=P).result("u_next"), U',
     'import numpy as np\nfrom gstplan import Plan\n'
     'u0 = np.random.default_rng(3).standard_normal((40, 30))'
     '.astype(np.float32)\n', '''
V, Q = u0, u0.copy()
for step in range(100):
    q = np.pad(V, 1, mode="symmetric")
    V, Q = 2*V - Q + k*(q[:-2, 1:-1] + q[2:, 1:-1] + q[1:-1, 2:] + q[1:-1, :-2] - 4*V), V
assert np.allclose(U, V, rtol=1e-4, atol=1e-4 * np.abs(V).max()), np.abs(U - V).max()
''', {}),
    ('q = np.pad(U, 1, mode="symmetric")',  # numpy's side of the block above
     None, 'the numpy oracle of the wave step: the check of that block', {}),
    ('smooth = plan.custom(lambda x: (x[:-2] + x[1:-1] + x[2:]) / 3',
     'import numpy as np\nfrom gstplan import Plan\nplan = Plan()\n'
     'a = plan.source(ndim=2)\n', '''
s1, s2, s3 = plan.sink(soft), plan.sink(hist), plan.sink(smooth)
X = np.random.default_rng(4).random((5000, 8)).astype(np.float32)
r = plan.realize(target='cpu').dispatch(a=X).result()
ex = np.exp(X)
assert np.allclose(r[s1.name], ex / ex.sum(axis=1, keepdims=True), rtol=1e-5)
assert np.array_equal(r[s2.name], np.histogram(X, 64, range=(0, 1))[0])
p = np.pad(X, ((1, 1), (0, 0)), mode='symmetric')  # plancustom's boundary=reflect
assert np.allclose(r[s3.name], (p[:-2] + p[1:-1] + p[2:]) / 3, rtol=1e-5)
''', {}),
    ('@plan.custom(args=(a,), out_dtype=np.float64)',
     'import numpy as np\nfrom gstplan import Plan\nplan = Plan()\n'
     'a = plan.source(ndim=2)\n', '''
X = np.random.default_rng(5).random((3000, 6)).astype(np.float32)
r = plan.realize(target='cpu').dispatch(a=X).result(f.name)
assert r.dtype == np.float64, r.dtype
ex = np.exp(X.astype(np.float64))
assert np.allclose(r, ex / ex.sum(axis=1, keepdims=True), rtol=1e-6)
''', {}),
    ('pending.append(work.dispatch(a=block))',
     'import collections\nimport numpy as np\nfrom gstplan import Plan\n'
     'plan = Plan(); a = plan.source(ndim=1)\n'
     's = plan.sink(plan.reduce(lambda x, y: x + y, args=(a,)))\n'
     'work = plan.realize(target="cpu")\n'
     'blocks = [np.full(1000, i, np.float32) for i in range(200)]\n',
     '''
sums = [p.result(s.name) for p in pending]
assert sums == [1000.0 * i for i in range(200 - len(pending), 200)], sums
''', {}),
    ('async def main():', SEED_PLAN + ARRAYS, '''
import asyncio
got = asyncio.run(main())
assert np.allclose(got, A.sum(dtype=np.float64), rtol=1e-6), got
''', {}),
    ('total = io.future.result(\'g\')',  # python.md's streaming example
     SEED_PLAN + ARRAYS, CHECK_IO + '''
assert np.allclose(total, A.sum(dtype=np.float64), rtol=1e-6), total
''', {}),
    ('io.connect(a, reader, copy=True)',
     SEED_PLAN + ARRAYS + 'A.tofile("a.f32")\nfs = f\nf = open("a.f32", "rb")\n'
     'io = IO(work)\n', '''
io.connect(b, "b.npy"); io.connect(fs, writer)
io.start(); io.wait()
assert np.array_equal(out, A + BF)
''', {}),
    ('s = pipeline.get_by_name(\'r\').props.result', None,
     'a fragment of an application with a pipeline of its own', {}),
    ('plan.custom(lambda x: x / x.sum(axis=1, keepdims=True), args=(a,))',
     'import numpy as np\nfrom gstplan import Plan\nplan = Plan()\n'
     'a = plan.source(ndim=2)\n', '''
X = np.random.default_rng(6).random((2000, 5)).astype(np.float32)
(r,) = plan.realize(target='cpu').dispatch(a=X).result().values()
assert np.allclose(r, X / X.sum(axis=1, keepdims=True), rtol=1e-6)
''', {}),
]


def python_blocks():
    """(page, line, text) of every ```python block of README.md and docs/."""
    found = []
    for page in [os.path.join(SOURCE, 'README.md')] + \
            sorted(glob.glob(os.path.join(SOURCE, 'docs', '*.md'))):
        with open(page) as f:
            text = f.read()
        for m in re.finditer(r'^```python\n(.*?)^```', text, re.M | re.S):
            found.append((os.path.relpath(page, SOURCE),
                          text[:m.start()].count('\n') + 1, m.group(1)))
    return found


def run_block(where, block, prelude, check, env):
    d = tempfile.mkdtemp(prefix='snippet-', dir=D)
    script = os.path.join(d, 'snippet.py')
    with open(script, 'w') as f:
        f.write(prelude + '\n# ' + where + '\n' + block + '\n' + check)
    p = subprocess.run([sys.executable, script], cwd=d,
                       env=dict(os.environ, **env), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=240)
    if p.returncode != 0:
        raise Failure('%s, run as %s (%d):\n%s' % (where, script,
                                                    p.returncode,
                                                    p.stdout[-3000:]))


def cases():
    found = []
    for page, line, block in python_blocks():
        where = '%s:%d' % (page, line)
        known = [b for b in BLOCKS if b[0] in block]
        if len(known) != 1:
            found.append((where, lambda w=where, n=len(known): _unknown(w, n)))
            continue
        _, prelude, check, env = known[0]
        if prelude is None:
            print('SKIP %s: %s' % (where, check))
            continue
        found.append((where, lambda w=where, b=block, p=prelude, c=check,
                      e=env: run_block(w, b, p, c, e)))
    return found


def _unknown(where, n):
    raise Failure('%s: a Python block that %s entry of '
                  'tests/python/test_doc_snippets.py knows: add one with '
                  'what it needs and a check of its result' %
                  (where, 'no' if n == 0 else 'more than one'))


D = plantest.tmpdir()

if __name__ == '__main__':
    plantest.run_cases(cases())
