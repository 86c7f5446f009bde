#!/usr/bin/python3
"""gstplan as applications use it: the seed's program as written, waits
that time out, Ctrl-C and asyncio cancellation, outputs that overlap
inputs, readers that refill one buffer, return nothing for ever or the
wrong thing, Python callbacks that exit, and the smaller edges (lambdas
over several lines, 0-d rows for writers, results of file outputs, a
missing device at realize). Every result is checked against numpy."""
import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
import traceback

import numpy as np

import gstplan
from gstplan import IO, Plan, PlanError, TranslationError

rng = np.random.default_rng(25)
TESTS = []


def test(func):
    TESTS.append(func)
    return func


def expect(exc, func, *needles):
    try:
        func()
    except exc as e:
        for n in needles:
            assert n in str(e), "%r not in %r" % (n, str(e))
        return e
    raise AssertionError("%s was not raised" % exc.__name__)


def seed_plan():
    plan = Plan(); a = plan.source(ndim=1); b = plan.source(ndim=1)
    c = plan.map(lambda x, y: x + y, args=(a, b)); d = plan.reduce(lambda x, y: x + y, args=(a,))
    e = plan.stencil("x y _", lambda x, y: x + y, args=(b,))
    f = plan.sink(c); g = plan.sink(d); h = plan.sink(e)
    return plan


def slow_reader(n_chunks, rows=1000, pause=0.2, dtype=np.float32):
    """A reader of n_chunks chunks of ones, pause seconds each."""
    def read(first_row):
        if first_row >= n_chunks * rows:
            return None
        time.sleep(pause)
        return np.ones(rows, dtype)
    return read


def sum_plan():
    plan = Plan(); a = plan.source(ndim=1)
    s = plan.reduce("sum", args=(a,))
    return plan, a


@test
def seed_program_as_written():
    """g = np.empty(1): a (1,) array takes the reduction's one value; on
    float32 data (np.empty(1, np.float32)) and float64 data (np.empty(1))."""
    for dtype in (np.float32, np.float64):
        plan = seed_plan()
        work = plan.realize(target='cpu')
        A = rng.random(10007).astype(dtype); B = rng.random(10007).astype(dtype)
        F = np.empty_like(A); G = np.empty(1, dtype); H = np.empty_like(B)
        for _ in range(2):   # the second dispatch restarts the pipeline
            G[:] = -1
            future = work.dispatch(a=A, b=B, f=F, g=G, h=H); future.wait()
            assert np.array_equal(F, A + B)
            np.testing.assert_allclose(G[0], A.astype(np.float64).sum(),
                                       rtol=1e-6)
            assert np.array_equal(H, np.concatenate([B[:1], B[:-1]]) + B)
            assert future.result('g') is G
    # np.empty(1) as the seed writes it: float64, for float32 data too (a
    # safe cast, as numpy's out= of a sum takes), in both kinds of run
    for work in (seed_plan().realize(target='cpu'),
                 realize_without_direct(seed_plan())):
        A = rng.random(10007, dtype=np.float32); B = rng.random(10007, dtype=np.float32)
        F = np.empty_like(A); G = np.empty(1); H = np.empty_like(B)
        for _ in range(2):
            future = work.dispatch(a=A, b=B, f=F, g=G, h=H); future.wait()
            want = work.dispatch(a=A, b=B).result('g')
            assert G[0] == np.float64(want), (G[0], want)
            assert future.result('g') is G
        # a cast that could lose values is refused
        expect(PlanError, lambda: work.dispatch(
            a=A.astype(np.float64), b=B.astype(np.float64),
            g=np.empty(1, np.float32)), "output 'g' is float64")
        expect(PlanError, lambda: work.dispatch(a=A, b=B,
                                                f=np.empty(10007)),
               "output 'f' is float32")
    # a reduction per column into an array of the same size, other shape
    plan = Plan(); a = plan.source(ndim=2)
    s = plan.reduce("sum", args=(a,), axis=0)
    work = plan.realize(target='cpu')
    A = rng.random((100, 3))
    S = np.empty((1, 3))
    work.dispatch(a=A, s=S).wait()
    np.testing.assert_allclose(S[0], A.sum(axis=0), rtol=1e-12)
    # other sizes are still refused, and maps never reshape
    expect(PlanError, lambda: work.dispatch(a=A, s=np.empty(2)),
           "output 's' is float64 of shape (3,)", "shape (2,)")
    plan = Plan(); a = plan.source(ndim=1); m = plan.map("x + 1", args=(a,))
    work = plan.realize(target='cpu')
    expect(PlanError, lambda: work.dispatch(a=np.ones(4), m=np.empty((2, 2))),
           "output 'm'", "shape (2, 2)")


@test
def bare_custom_says_what_to_pass_and_decorates():
    plan = Plan(); a = plan.source(ndim=1)
    expect(TypeError, lambda: plan.custom(), "args=", "@plan.custom(args=(a,))")

    @plan.custom(args=(a,))
    def twice(x):
        return 2 * x
    assert isinstance(twice, gstplan.Node) and twice.name == "twice"
    work = plan.realize(target='cpu')
    A = rng.random(5000)
    assert np.array_equal(work.dispatch(a=A).result('twice'), 2 * A)


@test
def waits_time_out_with_false():
    plan, a = sum_plan()
    work = plan.realize(target='cpu')
    io = IO(work); io.connect(a, slow_reader(20))
    future = io.start()
    t = time.monotonic()
    assert io.wait(timeout=0.05) is False
    assert future.wait(timeout=0.05) is False
    assert future.wait(timeout=0) is False
    assert time.monotonic() - t < 2
    assert not future.done()
    future.cancel()
    # the Python call, not the C function behind it
    e = expect(PlanError, lambda: future.wait(timeout=10),
               "cancelled by future.cancel()")
    assert "plan_future_cancel" not in e.message, e.message
    # and True once done
    io = IO(work); io.connect(a, slow_reader(2, pause=0))
    future = io.start()
    assert future.wait(timeout=30) is True
    assert future.result('s') == 2000


def interrupt_after(seconds):
    """SIGINT to this process after seconds; returns when it was sent."""
    sent = []

    def fire():
        time.sleep(seconds)
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)
    threading.Thread(target=fire, daemon=True).start()
    return sent


def check_interrupted(how):
    plan, a = sum_plan()
    work = plan.realize(target='cpu')
    io = IO(work); io.connect(a, slow_reader(40, pause=0.1))
    future = io.start()
    sent = interrupt_after(0.3)
    try:
        how(io, future)
    except KeyboardInterrupt:
        late = time.monotonic() - sent[0]
    else:
        raise AssertionError("%s: no KeyboardInterrupt" % how.__name__)
    # raised within the bound (20 ms slices; generous for a loaded machine)
    assert late < 0.1 * 5, "%s: KeyboardInterrupt %.3f s late" % (
        how.__name__, late)
    # and the run was cancelled, long before its 4 s
    expect(PlanError, lambda: future.wait(timeout=3), "cancelled")
    return late


@test
def ctrl_c_interrupts_waits_and_cancels():
    def wait(io, future):
        future.wait()

    def io_wait(io, future):
        io.wait()

    def result(io, future):
        future.result()

    def awaited(io, future):
        async def main():
            await future
        asyncio.run(main())
    for how in (wait, io_wait, result, awaited):
        late = check_interrupted(how)
        print("     KeyboardInterrupt in %s %.1f ms after SIGINT" % (
            how.__name__, late * 1e3))


@test
def asyncio_cancel_cancels_the_run():
    plan, a = sum_plan()
    work = plan.realize(target='cpu')
    io = IO(work); io.connect(a, slow_reader(40, pause=0.1))
    future = io.start()

    async def main():
        try:
            await asyncio.wait_for(future, 0.2)
        except asyncio.TimeoutError:
            return True
        return False
    t = time.monotonic()
    assert asyncio.run(main())
    expect(PlanError, lambda: future.wait(timeout=3), "cancelled")
    assert time.monotonic() - t < 3

    # task.cancel() too
    io = IO(work); io.connect(a, slow_reader(40, pause=0.1))
    future = io.start()

    async def cancel_task():
        task = asyncio.ensure_future(future)
        await asyncio.sleep(0.2)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return True
        return False
    assert asyncio.run(cancel_task())
    expect(PlanError, lambda: future.wait(timeout=3), "cancelled")


@test
def queued_dispatches_complete_in_order():
    plan = Plan(); a = plan.source(ndim=1); m = plan.map("x * 2", args=(a,))
    work = plan.realize(target='cpu')
    assert work.max_queued == 64
    work.max_queued = 3
    io = IO(work); io.connect(a, slow_reader(3, pause=0.1, dtype=np.float64))
    first = io.start()
    # checked at once, even when it would wait
    expect(PlanError, lambda: work.dispatch(a=np.ones((2, 2))), "shape (2, 2)")
    arrays = [rng.random(1000) for _ in range(3)]
    futures = [work.dispatch(a=A) for A in arrays]
    assert not first.done() and not any(f.done() for f in futures)
    e = expect(PlanError, lambda: work.dispatch(a=arrays[0]), "3 dispatches "
               "waiting")
    futures[1].cancel()
    expect(PlanError, lambda: futures[1].wait(timeout=0), "cancelled")
    futures[2].wait(timeout=30)
    assert first.done() and futures[0].done()
    assert np.array_equal(first.result('m'), np.full(3000, 2.0))
    assert np.array_equal(futures[0].result('m'), arrays[0] * 2)
    assert np.array_equal(futures[2].result('m'), arrays[2] * 2)
    # 1,000 queued dispatches of one work, each its own result
    work.max_queued = 1000
    arrays = [np.full(100, float(i)) for i in range(1000)]
    futures = [work.dispatch(a=A) for A in arrays]
    for i, f in enumerate(futures):
        assert np.array_equal(f.result('m'), arrays[i] * 2), i


def realize_without_direct(plan):
    """plan realized with small dispatches going through the pipeline."""
    os.environ["PLAN_DIRECT_MAX_ELEMENTS"] = "0"
    try:
        return plan.realize(target='cpu')
    finally:
        del os.environ["PLAN_DIRECT_MAX_ELEMENTS"]


@test
def small_map_dispatches_run_on_the_callers_thread():
    """A dispatch in memory of a plan of maps of up to 4 Mi elements a node
    is done when dispatch() returns, with the same bytes as the pipeline
    gives (a mid-size one's maps split across threads); larger ones and
    other plans still run through the pipeline."""
    plan = Plan(); a = plan.source(ndim=2); b = plan.source(ndim=2)
    i = plan.source(ndim=2)
    m1 = plan.map(lambda x, y: x * y + np.sin(x), args=(a, b))
    m2 = plan.map(lambda x: x / 3 - 1, args=(m1,), dtype=np.float32)
    m3 = plan.map(lambda x, y: x // 7 + y, args=(i, a))
    m4 = plan.map("(x - mean) / std", args=(a,), constants={
        "mean": np.array([0.1, 0.2, 0.3]),
        "std": np.array([1., 2., 3.], np.float32)})
    m5 = plan.map("x % 5", args=(i,), dtype=np.int16)
    m6 = plan.map("x + 1", args=(m5,))
    direct = plan.realize(target='cpu')
    piped = realize_without_direct(plan)
    # 4 Mi elements a node at most: 1.4 million rows of 3 are past it
    for rows in (500, 40000, 1400000):
        A = rng.random((rows, 3), dtype=np.float32)
        B = rng.random((rows, 1))
        I = rng.integers(-100, 100, (rows, 3)).astype(np.int32)
        f = direct.dispatch(a=A, b=B, i=I)
        assert f.done() == (rows < 1400000)
        got = f.result()
        want = piped.dispatch(a=A, b=B, i=I).result()
        assert sorted(got) == sorted(want) == ["m2", "m3", "m4", "m6"]
        for k in got:
            assert got[k].dtype == want[k].dtype and \
                got[k].shape == want[k].shape, k
            assert got[k].tobytes() == want[k].tobytes(), k
        np.testing.assert_allclose(got["m2"], ((A * B + np.sin(A)) / 3 - 1)
                                   .astype(np.float32), rtol=1e-6)
        assert np.array_equal(got["m6"], (I % 5).astype(np.int16) + 1)
    # into the caller's arrays, two outputs of one map, and errors as before
    plan = Plan(); a = plan.source(ndim=1); m = plan.map("x * 2", args=(a,))
    f = plan.sink(m); g = plan.sink(m)
    work = plan.realize(target='cpu')
    A = rng.random(1000); F = np.empty(1000); G = np.empty(1000)
    fut = work.dispatch(a=A, f=F, g=G)
    assert fut.done() and fut.result('f') is F and fut.result('g') is G
    assert np.array_equal(F, 2 * A) and np.array_equal(G, 2 * A)
    assert fut.progress == 1.0
    expect(PlanError, lambda: work.dispatch(a=A, f=A), "shares memory")


@test
def small_dispatches_of_reductions_and_stencils_too():
    """Reductions (every op, every axis, a fused map, a combiner, ddof)
    and stencils (every boundary, iterations) run on the caller's thread
    for small arrays, with the bytes the pipeline gives; the seed's plan
    among them."""
    plan = Plan(); a = plan.source(ndim=2); b = plan.source(ndim=1)
    for op in ("sum", "prod", "min", "max", "mean", "argmin", "argmax",
               "any", "all", "nansum", "nanmean", "var", "std", "nanstd",
               "count_nonzero", "ptp"):
        for axis in (None, 0, -1):
            plan.reduce(op, args=(a,), axis=axis, name="r_%s_%s" % (
                op, {None: "all", 0: "rows", -1: "each"}[axis]))
    plan.reduce("var", args=(a,), ddof=1, name="var1")
    sq = plan.map("x*x + 1", args=(b,), name="sq")
    plan.reduce("sum", args=(sq,), name="sumsq")
    plan.reduce(lambda x, y: max(abs(x), abs(y)), args=(b,), identity=0,
                name="cust")
    for bd in ("constant", "nearest", "reflect", "mirror", "wrap", "valid"):
        plan.stencil("x y z", lambda x, y, z: x - 2*y + z, args=(b,),
                     boundary=bd, cval=1.5, name="s_" + bd)
        plan.stencil("_ n _; w c e; _ s _", "n + s + e + w - 4*c", args=(a,),
                     boundary=bd, name="s2_" + bd)
    direct = plan.realize(target='cpu')
    piped = realize_without_direct(plan)
    for rows in (3, 300):
        A = rng.random((rows, 3)); B = rng.random(rows).astype(np.float32)
        A[rows // 2, 1] = np.nan
        f = direct.dispatch(a=A, b=B)
        assert f.done()
        got = f.result()
        want = piped.dispatch(a=A, b=B).result()
        assert sorted(got) == sorted(want) and len(got) == 63
        for k in got:
            g, w = np.asarray(got[k]), np.asarray(want[k])
            assert g.dtype == w.dtype and g.shape == w.shape, k
            assert g.tobytes() == w.tobytes(), k
    np.testing.assert_allclose(got["r_sum_each"], A.sum(axis=-1))
    np.testing.assert_allclose(got["s_reflect"], np.concatenate(
        [B[:1], B[:-1]]) - 2 * B + np.concatenate([B[1:], B[-1:]]),
        rtol=1e-6)
    # the seed's plan, and a reduction bound to a (1,) array
    work = seed_plan().realize(target='cpu')
    A = rng.random(1000, dtype=np.float32); B = rng.random(1000, dtype=np.float32)
    F = np.empty_like(A); G = np.empty(1, np.float32); H = np.empty_like(B)
    future = work.dispatch(a=A, b=B, f=F, g=G, h=H)
    assert future.done()
    assert np.array_equal(F, A + B)
    np.testing.assert_allclose(G[0], A.astype(np.float64).sum(), rtol=1e-6)
    assert np.array_equal(H, np.concatenate([B[:1], B[:-1]]) + B)


@test
def stencils_over_volumes():
    """A window of planes separated by '|' over a 3-D source: the 7-point
    Laplacian, dispatched and piped, against scipy.ndimage.correlate; on
    a 2-D source the node is refused naming the axes."""
    from scipy import ndimage
    window = "_ _ _; _ b _; _ _ _ | _ n _; w c e; _ s _ | _ _ _; _ f _; _ _ _"
    plan = Plan(); v = plan.source(ndim=3)
    for bd in ("reflect", "wrap", "valid"):
        plan.stencil(window, "b + f + n + s + e + w - 6*c", args=(v,),
                     boundary=bd, name="lap_" + bd)
    k = np.zeros((3, 3, 3)); k[1, 1, 1] = -6
    for z, y, x in ((0, 1, 1), (2, 1, 1), (1, 0, 1), (1, 2, 1), (1, 1, 0),
                    (1, 1, 2)):
        k[z, y, x] = 1
    V = rng.random((7, 5, 6))
    for work in (plan.realize(target='cpu'), realize_without_direct(plan)):
        got = work.dispatch(v=V).result()
        for bd in ("reflect", "wrap"):
            np.testing.assert_allclose(got["lap_" + bd], ndimage.correlate(
                V, k, mode=bd), atol=1e-12)
        np.testing.assert_allclose(got["lap_valid"], ndimage.correlate(
            V, k, mode="constant")[1:-1, 1:-1, 1:-1], atol=1e-12)
    flat = Plan(); a = flat.source(ndim=2)
    expect(PlanError, lambda: flat.stencil(window, "c", args=(a,)),
           "3 planes", "2 axes")


@test
def outputs_overlapping_inputs_are_refused():
    plan = seed_plan()
    work = plan.realize(target='cpu')
    A = rng.random(5000, dtype=np.float32); B = rng.random(5000, dtype=np.float32)
    for bad, what in ((dict(f=A), "input 'a'"), (dict(f=B[:]), "input 'b'"),
                      (dict(g=A[7:8]), "input 'a'"),
                      (dict(h=B.view(np.float32)), "input 'b'")):
        assert any(np.shares_memory(v, A) or np.shares_memory(v, B)
                   for v in bad.values())
        expect(PlanError, lambda: work.dispatch(a=A, b=B, **bad),
               "shares memory with the %s" % what)
    F = np.empty(5000, np.float32)
    expect(PlanError, lambda: work.dispatch(a=A, b=B, f=F, h=F),
           "outputs 'f' and 'h' share memory")
    # nothing was touched, and a good dispatch still runs right
    r = work.dispatch(a=A, b=B, f=F).result()
    assert np.array_equal(F, A + B)
    np.testing.assert_allclose(r['g'], A.astype(np.float64).sum(), rtol=1e-6)


def refilling_reader(data, rows, buf):
    """The readinto pattern: one buffer, refilled for every chunk."""
    def read(first_row):
        if first_row >= len(data):
            return None
        n = min(rows, len(data) - first_row)
        buf[:n] = data[first_row:first_row + n]
        return buf[:n]
    return read


@test
def readers_that_refill_one_buffer():
    """A reader that refills its buffer while the plan still holds the last
    chunk is an error (never a wrong sum); with copy=True it is correct."""
    data = rng.random(20000)
    plan = Plan(); a = plan.source(ndim=1)

    def slow(x):
        time.sleep(0.02)
        return x * 2
    k = plan.custom(slow, args=(a,))
    s = plan.reduce("sum", args=(a,))
    work = plan.realize(target='cpu')
    io = IO(work)
    io.connect(a, refilling_reader(data, 1000, np.empty(1000)))
    io.start()
    e = expect(ValueError, lambda: io.wait(timeout=60), "reader of 'a'",
               "had not finished with", "copy=True")
    io = IO(work)
    io.connect(a, refilling_reader(data, 1000, np.empty(1000)), copy=True)
    io.start(); assert io.wait(timeout=60)
    assert np.array_equal(io.future.result('k'), data * 2)
    np.testing.assert_allclose(io.future.result('s'), data.sum(), rtol=1e-12)
    # views of different rows of one array are no reuse
    io = IO(work)
    io.connect(a, lambda r: data[r:r + 1000] if r < len(data) else None)
    io.start(); assert io.wait(timeout=60)
    assert np.array_equal(io.future.result('k'), data * 2)


@test
def readers_returning_nothing_or_the_wrong_thing():
    plan, a = sum_plan()
    work = plan.realize(target='cpu')
    # empty chunks end the stream (a reader returning them for ever would
    # otherwise spin): the rows before count
    calls = [0]

    def empties(first_row):
        calls[0] += 1
        return np.ones(100, np.float32) if first_row < 300 else \
            np.empty(0, np.float32)
    io = IO(work); io.connect(a, empties)
    io.start(); assert io.wait(timeout=30)
    assert io.future.result('s') == 300 and calls[0] == 4, calls
    # a list or a string: a TypeError naming the reader
    for value, kind in (([1.0, 2.0], "list"), ("abc", "str")):
        def bad_reader(first_row, value=value):
            return np.ones(4, np.float32) if first_row == 0 else value
        io = IO(work); io.connect(a, bad_reader)
        io.start()
        expect(TypeError, lambda: io.wait(timeout=30), "bad_reader",
               "returned a %s" % kind, "at row 4")

        def first_bad(first_row, value=value):
            return value
        io = IO(work); io.connect(a, first_bad)
        expect(TypeError, io.start, "first_bad", "returned a %s" % kind)


@test
def python_callbacks_that_exit():
    """SystemExit and KeyboardInterrupt raised by a kernel or a reader end
    the run, and wait() raises them as themselves."""
    plan = Plan(); a = plan.source(ndim=1)

    def exits(x):
        sys.exit(3)
    k = plan.custom(exits, args=(a,))
    work = plan.realize(target='cpu')
    f = work.dispatch(a=np.ones(100))
    e = expect(SystemExit, lambda: f.wait(timeout=30))
    assert e.code == 3

    plan, a = sum_plan()
    work = plan.realize(target='cpu')
    for exc in (SystemExit, KeyboardInterrupt):
        def reader(first_row, exc=exc):
            if first_row == 0:
                return np.ones(10, np.float32)
            raise exc()
        io = IO(work); io.connect(a, reader)
        io.start()
        expect(exc, lambda: io.wait(timeout=30))
        assert io.future.done()

        def writer(rows, first_row, exc=exc):
            raise exc()
        io = IO(work); io.connect(a, np.ones(10, np.float32))
        io.connect('s', writer)
        io.start()
        expect(exc, lambda: io.wait(timeout=30))


EXITS_WITH_RUNS_IN_FLIGHT = """
import sys, time
import numpy as np
from gstplan import IO, Plan
plan = Plan(); a = plan.source(ndim=1)
s = plan.reduce("sum", args=(a,)); m = plan.map("x + 1", args=(a,))
works = [plan.realize(target="cpu") for _ in range(2)]
for work in works:
    io = IO(work)
    io.connect(a, lambda first_row: np.ones(1000))   # for ever
    io.connect(m, lambda rows, first_row: None)
    io.start()
c = Plan(); x = c.source(ndim=1); k = c.custom(lambda v: v * 2, args=(x,))
c.realize(target="cpu").dispatch(x=np.ones(10_000_000, np.float32))
time.sleep(float(sys.argv[1]))
print("exiting")
"""


@test
def exiting_with_runs_in_flight():
    """A script that ends while runs call its readers, writers and kernels
    exits cleanly: the runs are cancelled and waited for at exit. They went
    on calling Python while the interpreter was finalizing, and PyGObject,
    which then calls no Python function, handed the reader's source a
    stray pointer for a chunk: a CRITICAL and a segfault, about one exit
    in three."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, "exits.py")
        with open(script, "w") as f:
            f.write(EXITS_WITH_RUNS_IN_FLIGHT)
        for i in range(8):
            p = subprocess.run([sys.executable, script, str(0.01 * i)],
                               capture_output=True, text=True, timeout=60)
            assert p.returncode == 0 and p.stdout == "exiting\n" and \
                "CRITICAL" not in p.stderr, (i, p.returncode, p.stdout,
                                             p.stderr[-2000:])


@test
def waiting_inside_a_callback_for_the_same_work_is_refused():
    """A reader or writer that waits for a run of its own work (its own
    run, or one it dispatched, queued behind its own) would wait for ever:
    the wait is a RuntimeError that says so, which stops the run. It hung
    (io.wait() timed out, and the script could not exit)."""
    plan = Plan(); a = plan.source(ndim=1)
    m = plan.map("x + 1", args=(a,))
    work = plan.realize(target='cpu')
    other = plan.realize(target='cpu')
    for how in ("own", "queued"):
        io = IO(work)
        started = threading.Event()

        def writer(rows, first_row, io=io, how=how, started=started):
            if how == "own":
                # The writer may run before start() has set io.future.
                started.wait(30)
                io.future.wait()
            else:
                work.dispatch(a=np.ones(10)).result('m')
        io.connect(a, np.ones(100)); io.connect(m, writer)
        io.start(); started.set()
        t0 = time.monotonic()
        expect(RuntimeError, lambda: io.wait(timeout=30),
               "inside a reader or writer of this work", "never end")
        assert time.monotonic() - t0 < 10
    # another work's runs may be waited for, as may a reader's own work
    # outside the reader
    got = []

    def reader(first_row):
        if first_row >= 30:
            return None
        got.append(other.dispatch(a=np.arange(3.0)).result('m'))
        return np.ones(10)
    io = IO(work); io.connect(a, reader); io.connect(m, lambda r, f: None)
    io.start(); assert io.wait(timeout=30)
    assert len(got) == 3 and all(np.array_equal(g, [1, 2, 3]) for g in got)
    assert np.array_equal(work.dispatch(a=np.ones(2)).result('m'), [2, 2])


@test
def waiting_inside_a_kernel_for_the_same_work_is_refused():
    """A Python kernel that waits for the run that called it: libplan
    refuses the wait (the kernel's exception stops the run, and wait()
    raises it), where it hung for ever."""
    plan = Plan(); a = plan.source(ndim=1)
    holder = {}
    ready = threading.Event()

    def kernel(x):
        # The kernel may run before dispatch() has returned the future.
        ready.wait(30)
        holder['future'].wait()
        return x
    plan.custom(kernel, args=(a,))
    work = plan.realize(target='cpu')
    holder['future'] = f = work.dispatch(a=np.ones(100))
    ready.set()
    t0 = time.monotonic()
    expect(Exception, lambda: f.wait(timeout=30),
           "inside a reader, writer or kernel of this work", "never end")
    assert time.monotonic() - t0 < 10


@test
def lambda_over_several_lines():
    plan = Plan(); x = plan.source(ndim=1); y = plan.source(ndim=1)
    m = plan.map(
        lambda u, v:
        u*2 + v, args=(x, y))
    assert gstplan.translate(
        lambda u, v:
            u - v) == "u - v"
    work = plan.realize(target='cpu')
    X = rng.random(100); Y = rng.random(100)
    assert np.array_equal(work.dispatch(x=X, y=Y).result('m'), X * 2 + Y)


@test
def lambda_without_source_says_what_to_do():
    code = ("from gstplan import Plan\n"
            "plan = Plan(); a = plan.source(ndim=1)\n"
            "plan.map(lambda x: x * 2, args=(a,))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode != 0
    for n in ("TranslationError", "python -c", "pass the expression as a "
              "string", "define the function in a file"):
        assert n in p.stderr, (n, p.stderr)


@test
def writer_of_a_single_value_gets_one_row():
    """The docs' writer (out[first_row:first_row + len(rows)] = rows) on a
    reduction's output."""
    plan, a = sum_plan()
    work = plan.realize(target='cpu')
    out = np.zeros(1, np.float64)
    got = []

    def writer(rows, first_row):
        got.append(rows.shape)
        out[first_row:first_row + len(rows)] = rows
    io = IO(work); io.connect(a, np.arange(10.0)); io.connect('s', writer)
    io.start(); assert io.wait(timeout=30)
    assert got == [(1,)] and out[0] == 45.0
    expect(KeyError, lambda: io.future.result('s'), "went to a writer")


@test
def result_of_a_file_output_is_its_path():
    import tempfile
    d = tempfile.mkdtemp()
    plan, a = sum_plan()
    work = plan.realize(target='cpu')
    path = os.path.join(d, "s.npy")
    f = work.dispatch(a=np.arange(10.0), s=path)
    assert f.result('s') == path
    assert f.result()['s'] == path
    assert np.load(path) == 45.0


@test
def missing_device_is_reported_at_realize():
    if os.environ.get("GST_PLAN_DEVICE"):
        return
    try:
        gstplan._P.Device.get("cuda")
        return   # a real GPU: nothing to report
    except Exception:
        pass
    plan, a = sum_plan()
    expect(PlanError, lambda: plan.realize(target='gpu'), "target cuda",
           "GST_PLAN_DEVICE=sim")
    plan.realize(target='cpu')


class NotOnAnyDevice:
    """What a CuPy array says of itself, with no device behind it."""
    __cuda_array_interface__ = {"shape": (10,), "typestr": "<f4",
                                "data": (0x10000, False), "version": 3}


@test
def device_array_without_a_device_names_the_input():
    """On 'auto' without a device, an array in device memory is refused
    with the input's name: the device's error alone said nothing of it."""
    if os.environ.get("GST_PLAN_DEVICE"):
        return
    try:
        gstplan._P.Device.get("cuda")
        return   # a real GPU: the array would be read there
    except Exception:
        pass
    plan, a = sum_plan()
    work = plan.realize(target='auto')
    expect(PlanError, lambda: work.dispatch(a=NotOnAnyDevice()),
           "input 'a' is in device memory", "no device to read it on",
           "Cannot open cuda device")


@test
def seed_program_on_the_sim_device():
    if os.environ.get("GST_PLAN_DEVICE") != "sim":
        return
    plan = seed_plan()
    work = plan.realize(target='gpu')
    A = rng.random(5003, dtype=np.float32); B = rng.random(5003, dtype=np.float32)
    F = np.empty_like(A); G = np.empty(1, np.float32); H = np.empty_like(B)
    future = work.dispatch(a=A, b=B, f=F, g=G, h=H); future.wait()
    assert np.array_equal(F, A + B)
    np.testing.assert_allclose(G[0], A.astype(np.float64).sum(), rtol=1e-6)
    assert np.array_equal(H, np.concatenate([B[:1], B[:-1]]) + B)


def main():
    sim = len(sys.argv) > 1 and sys.argv[1] == "sim"
    tests = [seed_program_on_the_sim_device] if sim else TESTS
    failed = 0
    for t in tests:
        try:
            t()
            print("ok   %s" % t.__name__)
        except BaseException:
            failed += 1
            print("FAIL %s" % t.__name__)
            traceback.print_exc()
    if not sim:
        env = dict(os.environ, GST_PLAN_DEVICE="sim")
        p = subprocess.run([sys.executable, __file__, "sim"], env=env)
        failed += p.returncode != 0
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
