#!/usr/bin/python3
"""The original design's example, line for line, through gstplan.

First in memory (numpy arrays in and out), then in the IO form, with the
sources and outputs connected to chunked .npy readers and writers; each
result checked against numpy and scipy.

    meson devenv -C build /usr/bin/python3 pipelines/seed_example.py [TARGET] [N]

TARGET is cpu (default), auto, or gpu (the map, reduce and stencil on the
GPU; GST_PLAN_DEVICE=sim runs the GPU path on the simulated device). N is the
number of elements (default 1,000,000).
"""
import os
import sys
import tempfile

import numpy as np
from scipy import ndimage

from gstplan import IO, Plan

target = sys.argv[1] if len(sys.argv) > 1 else "cpu"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000


class NpyReader:
    """Reads an .npy file in chunks of rows (a view of a memory map: no
    copy)."""

    def __init__(self, path, rows=1 << 16):
        self.array = np.load(path, mmap_mode="r")
        self.rows = rows

    def __call__(self, first_row):
        if first_row >= len(self.array):
            return None
        return self.array[first_row:first_row + self.rows]


class NpyWriter:
    """Writes chunks into an .npy file as they come."""

    def __init__(self, path, dtype, shape):
        self.out = np.lib.format.open_memmap(path, mode="w+", dtype=dtype,
                                             shape=shape)

    def __call__(self, rows, first_row):
        self.out[first_row:first_row + len(rows)] = rows

    def close(self):
        self.out.flush()
        del self.out


def expected(A, B):
    # x is the row before (reflected at the start), y the row itself
    prev = ndimage.shift(B, 1, order=0, mode="reflect")
    return A + B, np.float32(A.astype(np.float64).sum()), prev + B


def check(name, got, want, exact=True):
    got = np.asarray(got)
    want = np.asarray(want)
    ok = got.shape == want.shape and got.dtype == want.dtype and (
        np.array_equal(got, want) if exact else
        np.allclose(got, want, rtol=1e-6, atol=0))
    print("%-3s %s" % (name, "matches numpy" if ok else "DIFFERS"))
    return ok


rng = np.random.default_rng(2026)
A = rng.random(n, dtype=np.float32)
B = rng.random(n, dtype=np.float32)
# g as the design allocates it: an array of one element (float64: the
# float32 sum is cast into it, as numpy's out= does)
F = np.empty_like(A); G = np.empty(1); H = np.empty_like(B)

# --- the design, line for line ---
plan = Plan(); a = plan.source(ndim=1); b = plan.source(ndim=1)
c = plan.map(lambda x, y: x + y, args=(a, b)); d = plan.reduce(lambda x, y: x + y, args=(a,))
e = plan.stencil("x y _", lambda x, y: x + y, args=(b,))
f = plan.sink(c); g = plan.sink(d); h = plan.sink(e)      # sinks optional: c, d, e usable directly
work = plan.realize(target=target)
future = work.dispatch(a=A, b=B, f=F, g=G, h=H); future.wait()
# ---

want_f, want_g, want_h = expected(A, B)
ok = check("f", F, want_f) & \
    check("g", G, np.array([want_g], np.float64), exact=False) & \
    check("h", H, want_h)

# --- the IO form: the same work, streamed from and to files ---
with tempfile.TemporaryDirectory() as tmp:
    np.save(os.path.join(tmp, "a.npy"), A)
    np.save(os.path.join(tmp, "b.npy"), B)
    reader_a = NpyReader(os.path.join(tmp, "a.npy"))
    reader_b = NpyReader(os.path.join(tmp, "b.npy"))
    writer_f = NpyWriter(os.path.join(tmp, "f.npy"), A.dtype, A.shape)
    io = IO(work); io.connect(a, reader_a); io.connect(b, reader_b)
    io.connect(f, writer_f); io.connect(h, os.path.join(tmp, "h.npy"))
    io.start(); io.wait()
    writer_f.close()
    ok &= check("f", np.load(os.path.join(tmp, "f.npy")), want_f)
    ok &= check("g", io.future.result("g"), want_g, exact=False)
    ok &= check("h", np.load(os.path.join(tmp, "h.npy")), want_h)

print("target %s, %d elements: %s" % (target, n, "all match" if ok else
                                       "MISMATCH"))
sys.exit(0 if ok else 1)
