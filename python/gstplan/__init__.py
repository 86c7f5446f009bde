# gst-plan
# Copyright (C) 2026 the gst-plan authors
# SPDX-License-Identifier: LGPL-2.0-or-later
"""gstplan: streaming numeric arrays through GStreamer pipelines, from Python.

The plan API of libplan (docs/plan-api.md) in the original design's words::

    plan = Plan(); a = plan.source(ndim=1); b = plan.source(ndim=1)
    c = plan.map(lambda x, y: x + y, args=(a, b))
    d = plan.reduce(lambda x, y: x + y, args=(a,))
    f = plan.sink(c); g = plan.sink(d)
    work = plan.realize(target='cpu')
    future = work.dispatch(a=A, b=B, f=F); future.wait()
    print(F, future.result('g'))

Arrays are bound without copying (numpy arrays and anything with
``__array_interface__`` or the buffer protocol; ``__cuda_array_interface__``
objects as device memory on ``target='cuda'``). See docs/python.md.
"""

import asyncio
import atexit
import collections.abc
import functools
import inspect
import itertools
import linecache
import math
import ast
import operator
import os
import threading
import time
import weakref

_HERE = os.path.dirname(os.path.abspath(__file__))


def _missing(what, package, pip=None):
    """The ImportError for a dependency that is not there, naming the
    package that provides it."""
    text = ("gstplan needs %s: install Debian's %s (apt-get install %s)"
            % (what, package, package))
    if pip:
        text += (", and in a virtual environment create it with "
                 "--system-site-packages (or pip install %s)" % pip)
    return ImportError(text)


try:
    import gi
except ImportError:
    raise _missing("PyGObject (the gi module)", "python3-gi",
                   "PyGObject") from None
try:
    import numpy as np
except ImportError:
    raise _missing("numpy", "python3-numpy", "numpy") from None

# An installed gstplan (meson install, a .deb, a wheel) carries
# _installed.py: where libplan, its typelib and the plugin are, relative
# to this directory. Run from the source tree, `meson devenv` sets the
# variables instead.
if os.path.exists(os.path.join(_HERE, "_installed.py")):
    from . import _installed

    gi.require_version("GIRepository", "2.0")
    from gi.repository import GIRepository  # noqa: E402

    GIRepository.Repository.prepend_search_path(
        os.path.normpath(os.path.join(_HERE, _installed.TYPELIB_DIR)))
    GIRepository.Repository.prepend_library_path(
        os.path.normpath(os.path.join(_HERE, _installed.LIBDIR)))
    _PLUGIN_DIR = os.path.normpath(os.path.join(_HERE, _installed.PLUGIN_DIR))
else:
    _PLUGIN_DIR = None

for _ns, _version, _package in (("GLib", "2.0", "gir1.2-glib-2.0"),
                                ("Gst", "1.0", "gir1.2-gstreamer-1.0"),
                                ("Plan", "1.0", "gir1.2-plan-1.0")):
    try:
        gi.require_version(_ns, _version)
    except ValueError:
        raise _missing("the GObject-introspection data of %s %s"
                       % (_ns, _version), _package) from None
from gi.repository import GLib, GObject, Gst, Plan as _P  # noqa: E402

from ._translate import (TranslationError, translate,  # noqa: E402
                         translate_call, is_library_function, with_article,
                         parameters, UFUNC_REDUCE_OPS as _UFUNC_REDUCE_OPS)

__all__ = ["Plan", "Node", "Work", "Future", "IO", "RawFile", "PlanError",
           "to_numpy",
           "TranslationError", "translate", "TARGETS"]

Gst.init(None)


def _use_own_plugin(plugin_dir):
    """Makes the plan plugin installed with this package (beside the
    libplan GI loads for it) the one of this process's registry: GStreamer
    does not look where it is (a prefix other than /usr, a wheel), and
    another plan plugin it knows of (the system's, or one on
    GST_PLUGIN_PATH) was built with another libplan, which its elements
    would load beside this one, or run against this one's functions."""
    registry = Gst.Registry.get()
    own = os.path.join(plugin_dir, "libgstplan.so")
    other = registry.find_plugin("plan")
    if other is not None:
        try:
            if os.path.samefile(other.get_filename() or "", own):
                return
        except OSError:
            pass
        if other.is_loaded():
            raise ImportError(
                "gstplan runs with the plan plugin installed beside it (%s), "
                "but this process had already loaded another one (%s): "
                "import gstplan before making any plan element"
                % (own, other.get_filename()))
        registry.remove_plugin(other)
    registry.scan_path(plugin_dir)


if _PLUGIN_DIR:
    _use_own_plugin(_PLUGIN_DIR)
_P.init()

#: The targets realize() takes: 'gpu' is the original design's word for
#: 'cuda'.
TARGETS = {"auto": _P.Target.AUTO, "cpu": _P.Target.CPU,
           "cuda": _P.Target.CUDA, "gpu": _P.Target.CUDA}

_BOUNDARIES = {"constant": _P.Boundary.CONSTANT,
               "nearest": _P.Boundary.NEAREST,
               "reflect": _P.Boundary.REFLECT, "mirror": _P.Boundary.MIRROR,
               "wrap": _P.Boundary.WRAP, "valid": _P.Boundary.VALID}

_OPS = {n: getattr(_P.ReduceOp, n.upper()) for n in (
    "sum", "prod", "min", "max", "mean", "argmin", "argmax", "any", "all",
    "nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanargmin",
    "nanargmax", "var", "std", "nanvar", "nanstd", "count_nonzero", "ptp")}

# Combiners that are built-in reductions (exact, faster): the expression a
# lambda of x and y translates to, either way round.
_COMBINER_OPS = {"x + y": "sum", "y + x": "sum", "x * y": "prod",
                 "y * x": "prod", "add(x, y)": "sum", "multiply(x, y)": "prod",
                 "max(x, y)": "max", "max(y, x)": "max",
                 "maximum(x, y)": "max", "maximum(y, x)": "max",
                 "min(x, y)": "min", "min(y, x)": "min",
                 "minimum(x, y)": "min", "minimum(y, x)": "min",
                 "logical_or(x, y)": "any", "logical_or(y, x)": "any",
                 "logical_and(x, y)": "all", "logical_and(y, x)": "all"}


# The value over nothing of each op a combiner is recognised as: a
# combiner given with another identity runs as the combiner it is, with
# that identity (which libplan checks), not as the op.
_OP_IDENTITIES = {"sum": 0.0, "prod": 1.0, "any": 0.0, "all": 1.0,
                  "max": -math.inf, "min": math.inf}


def _identity_value(identity):
    """identity= as a float (true and false as 1 and 0), or None where it
    is no number."""
    if isinstance(identity, str):
        word = identity.strip().lower()
        if word in ("true", "false"):
            return float(word == "true")
        identity = word
    try:
        return float(identity)
    except (TypeError, ValueError, OverflowError):
        return None


# numpy's other names of those reductions (np.product is np.prod)
_NUMPY_OP_ALIASES = {"amax": "max", "amin": "min", "product": "prod",
                     "sometrue": "any", "alltrue": "all"}


def _numpy_reduction_op(func):
    """The op name of a numpy reduction given as plan.reduce's func (np.sum,
    np.max, np.nanmean, np.maximum.reduce), or None for anything else."""
    owner = getattr(func, "__self__", None)
    if isinstance(owner, np.ufunc) and getattr(func, "__name__", None) == \
            "reduce":
        return _UFUNC_REDUCE_OPS.get(owner.__name__)
    for op in list(_OPS) + list(_NUMPY_OP_ALIASES):
        if func is getattr(np, op, None) and not isinstance(func, np.ufunc):
            return _NUMPY_OP_ALIASES.get(op, op)
    # Python's sum, any and all of an iterable: the array's
    return {id(sum): "sum", id(any): "any", id(all): "all"}.get(id(func))


def _by_nick(enum, nick):
    for value in enum.__enum_values__.values():
        if value.value_nick == nick:
            return value
    raise LookupError("%s has no value '%s'" % (enum.__name__, nick))


_AXES = {None: _by_nick(_P.ReduceAxis, "all"),
         0: _by_nick(_P.ReduceAxis, "0"),
         -1: _by_nick(_P.ReduceAxis, "-1"),
         1: _by_nick(_P.ReduceAxis, "1")}


class PlanError(Exception):
    """An error of libplan: the GError's message (with the expression's
    caret where there is one), its domain and its code."""

    def __init__(self, message, domain=None, code=None):
        super().__init__(message)
        self.message = message
        self.domain = domain
        self.code = code


def _shell_quote(value):
    """A property value for plan_graph_add_custom (shell quoting)."""
    import shlex
    if isinstance(value, bool):
        value = "true" if value else "false"
    return shlex.quote(str(value))


# What libplan's messages call its C functions, and what the Python user
# called instead.
_PYTHON_NAMES = (("by plan_future_cancel()", "by future.cancel()"),)


def _plan_error(e):
    message = e.message
    for c_name, py_name in _PYTHON_NAMES:
        message = message.replace(c_name, py_name)
    return PlanError(message, e.domain, e.code)


class _Errors:
    """The Python exceptions raised by readers, writers and kernels, which
    the runs they stopped raise again from wait(). A callback's exception
    travels through libplan as a GError whose message is `Type: text`; a
    failed run takes the exception its own message names, so that runs
    queued one after another each raise their own."""

    LIMIT = 32

    def __init__(self):
        self._lock = threading.Lock()
        self._items = []

    def raise_from(self, exc):
        """Records exc and raises the GError that carries it to libplan."""
        text = "%s: %s" % (type(exc).__name__, exc)
        with self._lock:
            self._items.append((text, exc))
            del self._items[:-self.LIMIT]
        raise GLib.Error(text) from None

    def take(self, message):
        """The exception the run's error message names, if any."""
        with self._lock:
            for i, (text, exc) in enumerate(self._items):
                if text in message:
                    del self._items[i]
                    return exc
        return None


def _refuse_nul(value):
    """libplan's strings end at a NUL byte: a string with one would lose
    what follows it (an expression 'x\\0 + 1' compiled as 'x')."""
    if isinstance(value, str):
        if "\0" in value:
            raise ValueError("%r has a NUL byte, where libplan's strings end: "
                             "what follows it would be lost" % value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _refuse_nul(v)


def _call(func, *args):
    """Calls a libplan function, turning its GError into a PlanError."""
    for a in args:
        _refuse_nul(a)
    try:
        return func(*args)
    except GLib.Error as e:
        raise _plan_error(e) from None


# dtypes

_PLAN_DTYPES = {}


def _plan_dtype(dtype, what=None):
    """libplan's dtype for a numpy dtype; what (the array or argument it
    is of) begins the TypeError of a dtype libplan does not stream."""
    if dtype is None:
        return _P.DType.UNKNOWN
    try:
        return _PLAN_DTYPES[dtype]
    except (KeyError, TypeError):
        pass
    dt = np.dtype(dtype)
    d = _P.dtype_from_string(dt.name)
    if d == _P.DType.UNKNOWN:
        raise TypeError("%sdtype %s is not one libplan streams (bool, int8 "
                        "... uint64, float16, float32, float64, complex64, "
                        "complex128)" % ("%s: " % what if what else "", dt))
    if dt.byteorder in "=|":
        # every array binds through here: look each dtype up once
        _PLAN_DTYPES[dtype] = d
    return d


def _native(dtype, what):
    """dtype (None, or anything np.dtype takes), refused with a ValueError
    naming what when it is not in this machine's byte order: gstplan
    computes and allocates in that order, so a result asked as '>f4'
    would silently come as '<f4' on x86-64."""
    if dtype is not None:
        dt = np.dtype(dtype)
        if not dt.isnative:
            raise ValueError(
                "%s: dtype %s is not in this machine's byte order, in which "
                "gstplan computes and allocates its results; give %s (and "
                "convert a result with .astype(%r) where you need the other "
                "order)" % (what, dt.str, dt.newbyteorder("=").str, dt.str))
    return dtype


def _numpy_dtype(plan_dtype):
    return np.dtype(_P.dtype_to_string(plan_dtype))


# Arrays: numpy and friends <-> PlanArray, without copies.

def _real(value, what, name):
    """value as a float, or a TypeError naming the argument."""
    if not isinstance(value, (int, float, np.integer, np.floating,
                              np.bool_)):
        raise TypeError("%s: %s must be a real number (an int or a float, "
                        "inf and nan too), not %r" % (what, name, value))
    return float(value)


class _Owner(GObject.Object):
    """What keeps a wrapped array's memory alive: libplan holds a reference
    to it (plan_array_new_for_owner) until the memory is free, and
    PyGObject keeps the Python object, with its `memory` (the numpy array
    or the device array's owner), alive as long as libplan does. An object
    rather than a release callback: PyGObject makes a closure for each
    callback it passes, and gobject-introspection 1.74 leaks part of it, so
    a callback per array grew the process by about 100 bytes for each
    array bound and each chunk a reader returned."""


def _owned(device, address, nbytes, dtype, shape, writable, memory,
           released=None, what=None):
    """A PlanArray over memory kept alive by `memory`; `released()` (if
    given) is called once libplan no longer uses it. what (the array it
    is) begins the PlanError of a shape libplan refuses."""
    owner = _Owner()
    owner.memory = memory
    if released is not None:
        weakref.finalize(owner, released)
    try:
        return _call(_P.Array.new_for_owner, device, address, nbytes, dtype,
                     shape, writable, owner)
    except PlanError as e:
        if what is None:
            raise
        raise PlanError("%s: %s" % (what, e.message), e.domain,
                        e.code) from None


class _View:
    """Exposes a PlanArray to numpy; the numpy array's base, so the
    PlanArray lives as long as the view of it."""

    def __init__(self, parray, readonly):
        self._parray = parray
        dtype = _numpy_dtype(parray.get_dtype())
        shape = tuple(parray.get_shape())
        addr = parray.get_address()
        if addr == 0:
            # an empty array: numpy needs some non-NULL pointer
            holder = np.empty(0, dtype)
            addr = holder.ctypes.data
            self._holder = holder
        self.__array_interface__ = {"version": 3, "shape": shape,
                                    "typestr": dtype.str,
                                    "data": (addr, readonly)}


def _to_numpy(parray, readonly=False):
    """A numpy array over a PlanArray's host memory, without a copy."""
    if parray.get_device_memory() is not None:
        raise PlanError("the array is in device memory; it has no host view")
    return np.asarray(_View(parray, readonly or not parray.is_writable()))


def to_numpy(parray):
    """A numpy array over a Plan.Array (a result, a reduction's `array`
    field), without a copy; it keeps the Plan.Array alive."""
    return _to_numpy(parray)


def _refuse_masked(value, what):
    """A masked array's mask would be dropped: libplan reads and writes
    the data alone."""
    if isinstance(value, np.ma.MaskedArray):
        raise TypeError(
            "%s is a masked array (numpy.ma), whose mask gstplan does not "
            "support: it would read or write the data alone, masked elements "
            "included; %s" % (what, "bind a plain array (or none) and mask "
                              "the result yourself"
                              if what.startswith("output") else
                              "pass a.filled(value) for the data with the "
                              "masked elements replaced (np.nan, 0), or "
                              "a.data to ignore the mask"))


def _as_host_array(value, what):
    _refuse_masked(value, what)
    if isinstance(value, np.ndarray):
        arr = value
    elif hasattr(value, "__array_interface__") or _has_buffer(value):
        arr = np.asarray(value)
    else:
        return None
    # A copy of an output would take the results, not the caller's array.
    out = what.startswith("output")
    if not arr.flags.c_contiguous:
        raise ValueError("%s is not C-contiguous (strides %s): gstplan binds "
                         "arrays without copying; %s" % (
                             what, arr.strides,
                             "bind a C-contiguous array (np.empty(shape, "
                             "dtype)), or none, and copy the result into "
                             "yours" if out else
                             "pass np.ascontiguousarray(...) to copy it"))
    if arr.dtype.byteorder not in "=|" and arr.dtype.itemsize > 1:
        raise ValueError("%s has non-native byte order (%s); %s" % (
            what, arr.dtype,
            "bind an array of native byte order, or none, and copy the "
            "result into yours" if out else
            "pass arr.astype(arr.dtype.newbyteorder('='))"))
    if not arr.flags.aligned:
        # numpy makes such views (np.frombuffer(b, offset=1)); libplan's
        # kernels read elements through typed pointers, which must be
        # aligned.
        raise ValueError("%s is not aligned: its data is at an address that "
                         "is not a multiple of its elements' alignment (%s, "
                         "%d bytes); %s" % (
                             what, arr.dtype, arr.dtype.alignment,
                             "bind an aligned array (np.empty(shape, "
                             "dtype)), or none, and copy the result into "
                             "yours" if out else "pass arr.copy() to copy it"))
    return arr


def _constant(value, what):
    """A map's constant: a C-contiguous copy of value in this machine's
    byte order, made as np.array(value) makes one (of an array, anything
    with __array_interface__ or the buffer protocol, a number or a list);
    what begins the error of a value numpy makes no numeric array of."""
    if isinstance(value, Node):
        raise TypeError("%s is a node of the plan, which streams; a constant "
                        "is an array given once: read the node through args"
                        % what)
    _refuse_masked(value, what)
    try:
        arr = np.array(value, order="C")
    except (TypeError, ValueError) as e:
        raise type(e)("%s: %s" % (what, e)) from None
    if arr.dtype == object:
        raise TypeError("%s must be an array, a number or a list of numbers "
                        "(as np.asarray takes it), not %s" %
                        (what, _describe_result(value)))
    if not arr.dtype.isnative:
        # a copy anyway: the same values, in the order libplan computes in
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr


def _layout(arr):
    return arr.shape, arr.strides, arr.dtype


def _has_buffer(value):
    try:
        memoryview(value)
        return True
    except TypeError:
        return False


def _wrap_host(arr, writable, what=None):
    """A PlanArray over a numpy array's memory; the numpy array is kept
    alive until libplan releases it. what names the array in errors."""
    shape = [int(s) for s in arr.shape]
    return _owned(None, arr.ctypes.data, arr.nbytes,
                  _plan_dtype(arr.dtype, what), shape,
                  writable and arr.flags.writeable, arr, what=what)


class _CudaArray:
    """What __cuda_array_interface__ says of a device array."""

    def __init__(self, value, what):
        iface = value.__cuda_array_interface__
        self.shape = tuple(int(s) for s in iface["shape"])
        self.dtype = np.dtype(iface["typestr"])
        strides = iface.get("strides")
        contiguous = np.empty(0, self.dtype).itemsize
        expect = []
        for s in reversed(self.shape):
            expect.insert(0, contiguous)
            contiguous *= s
        if strides is not None and tuple(strides) != tuple(expect) and \
                contiguous != 0:
            raise ValueError("%s is not C-contiguous on the device (strides "
                             "%s)" % (what, strides))
        self.ptr, self.readonly = iface["data"]
        self.nbytes = contiguous
        self.owner = value


def _wrap_device(cuda, device, what=None):
    return _owned(device, cuda.ptr, cuda.nbytes,
                  _plan_dtype(cuda.dtype, what), list(cuda.shape),
                  not cuda.readonly, cuda.owner, what=what)


class RawFile:
    """A file of bare data, without a header, to bind as an input or an
    output: its dtype and shape are given here (the first axis may be -1:
    as many rows as the file holds)."""

    def __init__(self, path, dtype, shape):
        self.path = _location(path, "RawFile")
        self.dtype = np.dtype(dtype)
        if self.dtype.byteorder not in "=|":
            raise ValueError(
                "RawFile %r: dtype %s is not in this machine's byte order, "
                "in which raw files are read and written; give %s, and swap "
                "the bytes with numpy (byteswap()) if the file holds the other "
                "order" % (self.path, self.dtype.str,
                           self.dtype.newbyteorder("=").str))
        try:
            self.shape = tuple(operator.index(s) for s in shape)
        except TypeError:
            raise TypeError("RawFile %r: shape must be a sequence of integers, "
                            "not %r" % (self.path, shape)) from None

    def __repr__(self):
        return "RawFile(%r, %s, %s)" % (self.path, self.dtype, self.shape)


def _shape(value, what):
    """value as a shape, taken as numpy takes one: an int or a sequence of
    ints (numpy integers too, not bools, floats or strings), none of them
    negative; the TypeError or ValueError begins with what."""
    dims = None
    if not isinstance(value, (bool, np.bool_, str, bytes)):
        try:
            dims = (operator.index(value),)
        except TypeError:
            try:
                dims = tuple(value)
                if any(isinstance(d, (bool, np.bool_)) for d in dims):
                    raise TypeError
                dims = tuple(operator.index(d) for d in dims)
            except TypeError:
                dims = None
    if dims is None:
        raise TypeError("%s must be an int or a sequence of ints, as a "
                        "numpy shape, not %r" % (what, value))
    if any(d < 0 for d in dims):
        raise ValueError("%s must not have a negative axis, not %r" %
                         (what, value))
    return dims


def _location(value, what):
    """The path @value names, as a str (os.fsdecode's: bytes that are not
    UTF-8 as lone surrogates): a NUL byte, which would end it there (and
    name another file), is refused."""
    path = os.fsdecode(os.fspath(value))
    if "\0" in path:
        raise ValueError("%s: the path %r has a NUL byte, which no file name "
                         "can hold" % (what, path))
    return path


def _c_path(path):
    """@path (a _location()) as libplan takes a file name: its bytes, as
    open() would give them to the system (os.fsencode), so that a name
    that is not UTF-8 names the same file."""
    return os.fsencode(path)


# Files holding several arrays: "file:array" names one of them.
_CONTAINERS = (".npz", ".h5", ".hdf5", ".nc", ".zarr")


def _file_dataset(value):
    """(path, dataset) when value names an array in a file that holds
    several: "data.h5:/temps", "data.npz:temps", "store.zarr:obs/t", an
    h5py Dataset or a zarr Array of a directory store; None otherwise (a
    plain path, which may still be a .npz, HDF5 or Zarr file of one
    array: then (path, None))."""
    module = type(value).__module__ or ""
    if module.startswith("h5py") and hasattr(value, "file") and \
            hasattr(value, "name"):
        return value.file.filename, value.name
    if module.startswith("zarr") and hasattr(value, "store"):
        root = getattr(value.store, "path", None)
        if root is None:
            raise ValueError("a zarr array is bound by its directory store; "
                             "%r is not in one" % (value,))
        return os.fspath(root), (getattr(value, "path", "") or None)
    if not isinstance(value, (str, os.PathLike)):
        return None
    text = os.fspath(value)
    for i in range(len(text) - 1, 0, -1):
        if text[i] == ":" and text[:i].lower().endswith(_CONTAINERS):
            return text[:i], text[i + 1:] or None
    if text.lower().rstrip("/").endswith(_CONTAINERS):
        return text, None
    return None


# The graph

def _map_inputs(n):
    """The names a map's expression calls its n inputs by (x, y, z, w for
    the first four, in0, in1, ... for each, as plan_graph_add_map names
    them), each to its input's index."""
    names = {"in%d" % i: i for i in range(n)}
    names.update({s: i for i, s in enumerate("xyzw"[:n])})
    return names


def _const_names(consts, n_inputs, expression):
    """The name the expression calls each constant by. A constant named as
    an input (x, in0) is a ValueError in an expression string, which
    means the input there; a function's names are translated, so there it
    is given a name of its own."""
    inputs = _map_inputs(n_inputs)
    called = {}
    for c in consts:
        if c in inputs and expression:
            i = inputs[c]
            raise ValueError(
                "map: the constant '%s' has the name of input %d (%s) in "
                "the expression, so the expression could not read both: "
                "rename the constant" % (
                    c, i, " or ".join(([] if i >= 4 else ["xyzw"[i]]) +
                                      ["in%d" % i])))
        e = c
        while e in inputs or e in called.values() or \
                (e != c and e in consts):
            e += "_"
        called[c] = e
    return called


def _arguments(params, defaults):
    """How many arguments a function of params takes, for a message: '2
    arguments', 'from 1 to 2 arguments'."""
    least = len(params) - len(defaults)
    return "%s argument%s" % (
        least if least == len(params) else
        "from %d to %d" % (least, len(params)),
        "" if len(params) == 1 else "s")


def _assigned_name(depth=2):
    """The variable a node is being assigned to, read from the caller's
    source: `a` for `a = plan.source(ndim=1)`; None when the call is not a
    plain assignment to a name."""
    frame = inspect.currentframe()
    try:
        for _ in range(depth):
            frame = frame.f_back
        info = inspect.getframeinfo(frame, context=0)
        pos = getattr(info, "positions", None)
        if pos is None or pos.col_offset is None or pos.lineno is None:
            return None
        lines = [linecache.getline(info.filename, n)
                 for n in range(pos.lineno, (pos.end_lineno or pos.lineno) + 1)]
        if not lines[0]:
            return None
        shift = len(lines[0]) - len(lines[0].lstrip())
        try:
            tree = ast.parse("".join(l[shift:] if l[:shift].isspace() else l
                                     for l in lines))
        except SyntaxError:
            return None
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                    isinstance(node.targets[0], ast.Name) and \
                    isinstance(node.value, ast.Call) and \
                    node.value.lineno == 1 and \
                    node.value.col_offset + shift == pos.col_offset:
                return node.targets[0].id
    finally:
        del frame
    return None


#: custom()'s default kernel: called without one, it is a decorator.
_DECORATE = object()

#: Numbers the Python kernels registered by this process's plans.
_KERNEL_NAMES = itertools.count()


class Node:
    """A node of a Plan: a source, a map, a reduction, a stencil, a custom
    kernel or a sink.

    A node is used by passing it in the args of map(), reduce(),
    stencil() or custom(), or to sink(). An intermediate node (one that
    other nodes read) streams its result to them, and keeps none of it.
    dispatch() binds nodes by name (node.name, or the caller's variable
    holding the node): each source to what it reads (an array, a file or
    a reader), each output to what it writes (an array or a file), or to
    nothing, for Future.result() to return it. The outputs are the
    sinks or, in a plan without sinks, every node no other node reads;
    for an intermediate node's result too, make it an output with
    plan.sink(node), and sink the others as well (in a plan with sinks,
    realize() refuses a node no sink uses). Binding a node that is
    neither a source nor an output is a PlanError at dispatch."""

    def __init__(self, plan, gnode):
        self._plan = plan
        self._node = gnode

    @property
    def name(self):
        """The node's name: the keyword that binds it in dispatch()."""
        return self._node.get_name()

    @property
    def kind(self):
        """'source', 'map', 'reduce', 'stencil', 'custom' or 'sink'."""
        return self._node.get_kind().value_nick

    @property
    def ndim(self):
        """The number of axes of the node's output: a source's as given,
        a map's, stencil's and sink's that of their (first) input, a
        reduction's 0 (axis=None), one less than its input's (axis=0) or 1
        (axis=-1)."""
        return self._node.get_ndim()

    @property
    def inputs(self):
        """The nodes this one reads, in order."""
        return [self._plan._wrap(self._node.get_input(i))
                for i in range(self._node.get_n_inputs())]

    def __repr__(self):
        return "<gstplan.Node %s %s>" % (self.kind, self.name)


class Plan:
    """A graph of nodes, the original design's Plan. Build it with
    source(), map(), reduce(), stencil() and sink(), then realize() it."""

    def __init__(self):
        self._graph = _P.Graph.new()
        self._nodes = {}
        self._registered = []
        self._kernel_errors = _Errors()

    def _wrap(self, gnode):
        key = gnode.get_name()
        node = self._nodes.get(key)
        if node is None:
            node = self._nodes[key] = Node(self, gnode)
        return node

    def _name(self, name):
        if name is not None:
            if not isinstance(name, str):
                raise TypeError("name must be a string (an identifier), not "
                                "%r" % (name,))
            return name
        name = _assigned_name(3)
        if name is None or self._graph.get_node(name) is not None:
            return None
        return name

    def _inputs(self, args, what):
        if isinstance(args, Node):
            args = (args,)
        try:
            args = tuple(args)
        except TypeError:
            raise TypeError("%s: args must be a node or a sequence of nodes "
                            "of this plan, not %r" % (what, args)) from None
        for a in args:
            if not isinstance(a, Node) or a._plan is not self:
                raise TypeError("%s: the arguments must be nodes of this plan, "
                                "not %r" % (what, a))
        return args

    def _input(self, args, what, role):
        """The one node of args (a node, or a sequence of one node), role
        saying what it is for in the ValueError of any other number."""
        nodes = self._inputs(args, what)
        if len(nodes) != 1:
            raise ValueError("%s: args must be one node, %s, not %d (%s)" % (
                what, role, len(nodes),
                ", ".join(n.name for n in nodes) or "none"))
        return nodes[0]

    def source(self, ndim=1, dtype=None, name=None):
        """An input, bound at dispatch to an array, a file or a reader.
        ndim: its number of axes (0 for a stream of single values); dtype:
        the only dtype it takes (None: any)."""
        if isinstance(ndim, bool) or not isinstance(ndim, (int, np.integer)):
            raise TypeError("source: ndim must be an int, the number of axes "
                            "of the arrays it takes, not %r" % (ndim,))
        if ndim < 0:
            raise ValueError("source: ndim must be 0 or more, not %d" % ndim)
        return self._wrap(_call(self._graph.add_source, self._name(name),
                                int(ndim), _plan_dtype(_native(
                                    dtype, "source"), "source")))

    def map(self, func, args, dtype=None, name=None, constants=None):
        """func(*args) elementwise: a lambda or a def (translated to the
        expression language), a function of numpy or math the language
        has (np.sqrt, np.add, np.clip, math.exp, abs, np.float32), called
        on args in order, or an expression string naming the arguments
        x, y, z, w (or in0, in1, ...). constants: a dict of small arrays
        (numpy, anything with __array_interface__, a number or a list, as
        np.asarray takes them) the function reads by name, broadcast
        against every row by numpy's rules; they are copied once, when
        the node is made."""
        args = self._inputs(args, "map")
        _native(dtype, "map")
        if not callable(func) and not isinstance(func, str):
            raise TypeError("map: func must be a lambda, a def, a numpy ufunc "
                            "or an expression string, not %r" % (func,))
        if constants is not None and not isinstance(
                constants, collections.abc.Mapping):
            raise TypeError("map: constants must be a mapping of the names "
                            "the function reads to arrays (constants="
                            "{'mean': m}), not %s" %
                            with_article(type(constants).__name__))
        consts = {cname: _constant(value, "map: constant '%s'" % cname)
                  for cname, value in (constants or {}).items()}
        called = _const_names(consts, len(args), isinstance(func, str))
        if callable(func) and is_library_function(func):
            # np.sqrt, np.add, math.exp, abs: called on the arguments
            func = translate_call(func, ["in%d" % i for i in
                                         range(len(args))])
        elif callable(func):
            params, defaults = parameters(func, "map")
            if not len(params) - len(defaults) <= len(args) <= len(params):
                raise TypeError("map: the function takes %s but %d %s given" %
                                (_arguments(params, defaults), len(args),
                                 "was" if len(args) == 1 else "were"))
            # an argument past args takes its default, even over a constant
            # of its name, as in Python
            names = {c: called[c] for c in consts if c not in params}
            names.update({p: "in%d" % i for i, p in enumerate(params)
                          if i < len(args)})
            func = translate(func, names)
        if not consts:
            return self._wrap(_call(self._graph.add_map, self._name(name),
                                    func, [a._node for a in args],
                                    _plan_dtype(dtype, "map")))
        return self._wrap(_call(self._graph.add_map_with_constants,
                                self._name(name), func,
                                [a._node for a in args],
                                _plan_dtype(dtype, "map"),
                                [called[c] for c in consts],
                                [_wrap_host(a, False, "map: constant '%s'"
                                            % c) for c, a in consts.items()]))

    def reduce(self, func, args, axis=None, identity=None, name=None,
               ddof=0):
        """A reduction of args[0]: an op name ('sum', 'prod', 'min', 'max',
        'mean', 'argmin', 'argmax', 'any', 'all', 'var', 'std', 'nansum',
        ... as planreduce names them, or numpy's reduction of that name:
        np.sum, np.max, np.maximum.reduce), or an associative combiner of two
        partial results (a lambda x, y, a string, or a numpy ufunc: np.add,
        np.multiply, np.maximum and np.minimum are 'sum', 'prod', 'max'
        and 'min'), with its identity.
        axis: None (everything), 0 (over rows), -1 (each row: everything
        but the first axis, which is numpy's axis=-1 on 2-D inputs only)
        or 1 (each row of a 2-D input, numpy's axis 1 there). ddof:
        numpy's, for 'var', 'std', 'nanvar' and 'nanstd'."""
        source = self._input(args, "reduce", "the array it reduces "
                             "(reduce several with a reduce of each)")
        ddof = _real(ddof, "reduce", "ddof")
        if axis is not None:
            # numpy refuses a float or a bool axis too (np.sum(a, axis=True))
            if isinstance(axis, bool) or not isinstance(axis,
                                                        (int, np.integer)):
                raise TypeError("reduce: axis must be None or an int (0, -1 "
                                "or 1), not %r" % (axis,))
            axis = int(axis)
        if axis not in _AXES:
            raise ValueError("reduce: axis must be None, 0, -1 or 1, not %r" %
                             (axis,))
        name = self._name(name)
        owner = getattr(func, "__self__", None)
        if isinstance(func, str) and func in _OPS or \
                callable(func) and _numpy_reduction_op(func) is not None:
            # an op's name, or np.sum, np.max, np.maximum.reduce: the
            # reduction itself, which has its own identity
            op = func if isinstance(func, str) else _numpy_reduction_op(func)
            if identity is not None:
                raise ValueError(
                    "reduce: identity=%r is given with the op '%s', which "
                    "has its own; identity= is the value over nothing of a "
                    "combiner of your own (a lambda x, y, an expression of "
                    "x and y or a numpy ufunc): leave it out" %
                    (identity, op))
        elif isinstance(owner, np.ufunc) and \
                getattr(func, "__name__", None) == "reduce":
            # np.fmax.reduce, np.subtract.reduce: no op of ours
            raise TypeError(
                "reduce: numpy.%s.reduce is not one of the reductions "
                "plan.reduce runs (numpy.%s.reduce); give the combiner "
                "numpy.%s itself, with identity= (its value over nothing), "
                "or an op's name" %
                (owner.__name__, ".reduce, numpy.".join(_UFUNC_REDUCE_OPS),
                 owner.__name__))
        elif isinstance(func, str) and func.isidentifier() and \
                func not in ("x", "y"):
            # a word that names neither an op nor the partial results
            raise ValueError("reduce: unknown op %r; the ops are %s, or give "
                             "a combiner of two partial results x and y (a "
                             "lambda x, y, an expression of x and y or a "
                             "numpy ufunc) with identity=" %
                             (func, ", ".join(_OPS)))
        elif not isinstance(func, str) and not callable(func):
            raise TypeError("reduce: func must be an op name (%s) or a "
                            "combiner (a lambda x, y, an expression of x and "
                            "y or a numpy ufunc), not %r" %
                            (", ".join(_OPS), func))
        else:
            if callable(func) and is_library_function(func):
                # np.add, np.maximum, max: called on the two partial results
                func = translate_call(func, ["x", "y"])
            elif callable(func):
                params, defaults = parameters(func, "reduce")
                if not len(params) - len(defaults) <= 2 <= len(params):
                    raise TypeError("reduce: a combiner takes two partial "
                                    "results (x, y), but the function takes "
                                    "%s" % _arguments(params, defaults))
                func = translate(func, {params[0]: "x", params[1]: "y"})
            op = _COMBINER_OPS.get(func)
            if op is not None and identity is not None and \
                    _identity_value(identity) != _OP_IDENTITIES[op]:
                # x + y with identity=5: the combiner with that identity,
                # as planreduce's expr, which refuses one that is none
                op = None
        if op is not None:
            return self._wrap(_call(self._graph.add_reduce_ddof, name,
                                    _OPS[op], _AXES[axis], ddof,
                                    source._node))
        if identity is None:
            raise ValueError("reduce: the combiner '%s' is not a built-in "
                             "reduction, so it needs identity= (its value "
                             "over nothing, such as 0 for a sum)" % func)
        if isinstance(identity, bool):
            identity = "true" if identity else "false"
        return self._wrap(_call(self._graph.add_reduce_custom, name, func,
                                str(identity), _AXES[axis], source._node))

    def stencil(self, window, func, args, boundary="reflect", cval=0.0,
                name=None, iterations=1):
        """A stencil over args[0]: window names the cells of the
        neighbourhood ('x y _': the row before, the row itself; '_' cells
        are not read), func combines them; its arguments are the cells
        they are named after (any others take their defaults), or where
        none is named after a cell, the cells in order. With iterations=N
        the window is applied N times, each time to the result of the
        time before (the same as N stencils in a row).

        Over several arrays of one shape, window is a list of windows,
        one per argument, and func reads the cells of all of them (a
        window of one cell, 'p', is that array's element at the point)::

            plan.stencil(["_ n _; w c e; _ s _", "p"],
                         lambda n, w, c, e, s, p: 2*c - p + k*(n + s + e + w - 4*c),
                         args=(u, u_prev))
        """
        sources = self._inputs(args, "stencil")
        cval = _real(cval, "stencil", "cval")
        if isinstance(window, str):
            windows = [window]
            if len(sources) != 1:
                raise ValueError(
                    "stencil: %d inputs need %d windows, a list with one "
                    "window per input in the order of args; got the one "
                    "window %r" % (len(sources), len(sources), window))
        else:
            windows = list(window) if isinstance(window, (list, tuple)) \
                else None
            if windows is None or not all(isinstance(w, str)
                                          for w in windows):
                raise TypeError("stencil: window must be a string or a list "
                                "of strings, one per input, not %r" %
                                (window,))
            if len(windows) != len(sources):
                raise ValueError(
                    "stencil: %d windows for %d inputs; give one window per "
                    "input, in the order of args" %
                    (len(windows), len(sources)))
        if not sources:
            raise ValueError("stencil: args is empty; a stencil needs at "
                             "least one input")
        if boundary not in _BOUNDARIES:
            raise ValueError("stencil: boundary must be one of %s, not %r" %
                             (", ".join(_BOUNDARIES), boundary))
        if callable(func):
            cells = [c for w in windows
                     for c in w.replace(";", " ").replace(",", " ")
                     .replace("|", " ").split() if c != "_"]
            library = is_library_function(func)
            params, defaults = ([], {}) if library else \
                parameters(func, "stencil")
            required = [p for p in params if p not in defaults]
            if library:
                # np.add over "x y": the function of the cells in order
                names = None
            elif not params or any(p in cells for p in params):
                # Named after a cell, an argument reads that cell; taken
                # in order, it would read another. Every argument is then
                # taken by name, and those that are not cells take their
                # defaults.
                others = [p for p in required if p not in cells]
                if others:
                    raise TypeError(
                        "stencil: the function's argument%s %s %s not %s "
                        "of the window%s, whose cells are %s: name every "
                        "argument after a cell (or give it a default), or "
                        "none (then they are the cells in order)" % (
                            "s" if len(others) > 1 else "",
                            ", ".join(repr(p) for p in others),
                            "are" if len(others) > 1 else "is",
                            "cells" if len(others) > 1 else "a cell",
                            "s" if len(windows) > 1 else "",
                            ", ".join(cells)))
                names = {p: p for p in params if p in cells}
            elif len(required) <= len(cells) <= len(params):
                # the cells in order; arguments past them take their
                # defaults
                names = dict(zip(params, cells))
            else:
                raise TypeError("stencil: the function's arguments %s are "
                                "neither the window's names %s nor as many" %
                                (params, cells))
            func = translate_call(func, cells) if library else \
                translate(func, names)
        if isinstance(iterations, bool) or not isinstance(iterations, int):
            raise TypeError("stencil: iterations must be an int, not %r" %
                            (iterations,))
        if len(sources) == 1:
            return self._wrap(_call(self._graph.add_stencil_iterated,
                                    self._name(name), windows[0], func,
                                    _BOUNDARIES[boundary], float(cval),
                                    iterations, sources[0]._node))
        if iterations != 1:
            raise ValueError(
                "stencil: iterations=%r with %d inputs: iterations apply the "
                "window to the stencil's own output, one array; a stencil "
                "of several inputs is applied once (make one stencil per "
                "step)" % (iterations, len(sources)))
        return self._wrap(_call(self._graph.add_stencil_inputs,
                                self._name(name), [a._node for a in sources],
                                windows, func, _BOUNDARIES[boundary],
                                float(cval)))

    def custom(self, kernel=_DECORATE, args=None, mode="map", out_dtype=None,
               out_shape=None, halo=0, boundary="reflect", cval=0.0,
               params=None, state_size=0, init=None, finish=None,
               name=None, **properties):
        """A custom kernel over args (plancustom, docs/plancustom.md).

        kernel is a Python function, or the name of a kernel registered in
        the process. Other kernels come as plancustom's properties:
        custom(None, args, library='./libk.so', symbol='k') or
        cuda_source='k.cu', cuda_function='k' (underscores for dashes).
        Without a kernel, custom(args=...) is a decorator: the function it
        decorates is the kernel, and the name it is defined under becomes
        the node (its name is the function's)::

            @plan.custom(args=(a,), out_dtype=np.float64)
            def soft(x):
                return np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)

        A Python function in mode='map' is called as kernel(*inputs) with
        numpy views of a chunk's rows (each input with `halo` rows before
        and after) and returns the chunk's output rows; in mode='reduce' as
        kernel(acc, *inputs), updating the accumulator `acc` (an array of
        out_shape, filled with `init` first, default 0) in place; `finish`,
        if given, is called as finish(acc) at the end. Python kernels run
        one chunk at a time holding the GIL: correct, not fast."""
        if args is None:
            raise TypeError(
                "custom: args= is missing: give the nodes the kernel reads, "
                "as in plan.custom(kernel, args=(a,)) with a Python function "
                "(or None with library=/symbol= or cuda_source=/"
                "cuda_function=, or a registered kernel's name), or use it "
                "as a decorator over a def: @plan.custom(args=(a,))")
        if kernel is _DECORATE:
            options = dict(mode=mode, out_dtype=out_dtype,
                           out_shape=out_shape, halo=halo,
                           boundary=boundary, cval=cval, params=params,
                           state_size=state_size, init=init, finish=finish,
                           **properties)

            def decorate(func):
                if not callable(func):
                    raise TypeError("custom: @plan.custom(args=...) "
                                    "decorates a function, not %r" % (func,))
                fname = getattr(func, "__name__", "")
                return self.custom(func, args, name=name if name is not None
                                   else fname if fname.isidentifier() and
                                   self._graph.get_node(fname) is None
                                   else None, **options)
            return decorate
        if not (kernel is None or callable(kernel) or
                isinstance(kernel, str)):
            raise TypeError(
                "custom: the kernel must be a Python function, the name of "
                "a registered kernel (a str), or None with library=/symbol= "
                "or cuda_source=/cuda_function=, not %r" % (kernel,))
        ins = self._inputs(args, "custom")
        name = self._name(name)
        props = {"mode": mode, "halo": halo, "boundary": boundary,
                 "cval": cval, "state-size": state_size}
        if out_dtype is not None:
            props["out-dtype"] = np.dtype(_native(out_dtype, "custom")).name
        if out_shape is not None:
            shape = _shape(out_shape, "custom: out_shape")
            props["out-shape"] = "()" if shape == () else \
                ",".join(str(s) for s in shape)
        if params is not None:
            props["params"] = params
        for key, value in properties.items():
            props[key.replace("_", "-")] = value
        if callable(kernel):
            props["kernel"] = self._register(kernel, mode, init, finish)
        elif kernel is not None:
            props["kernel"] = kernel
        text = " ".join("%s=%s" % (k, _shell_quote(v)) for k, v in
                        props.items())
        return self._wrap(_call(self._graph.add_custom, name,
                                [a._node for a in ins], text))

    def _register(self, func, mode, init, finish):
        """Registers a Python kernel under a name of its own, for as long
        as the plan lives: one name per node, since a function used by two
        nodes may be called with another mode, init or finish by each."""
        reg = "gstplan-%d" % next(_KERNEL_NAMES)
        errors = self._kernel_errors

        def call(phase, inputs, *rest):
            # PyGObject passes the inputs' count too, where it knows it
            # (phase, inputs, [n_inputs,] output, first_row, user_data)
            at = next(i for i, r in enumerate(rest)
                      if isinstance(r, _P.Array))
            output, first_row = rest[at], rest[at + 1]
            try:
                out = _to_numpy(output)
                if phase == _P.CustomPhase.INIT:
                    out[...] = 0 if init is None else init
                elif phase == _P.CustomPhase.FINISH:
                    if finish is not None:
                        finish(out)
                elif mode == "reduce":
                    func(out, *[_to_numpy(a, readonly=True) for a in inputs])
                else:
                    rows = func(*[_to_numpy(a, readonly=True)
                                  for a in inputs])
                    try:
                        np.copyto(out, rows, casting="same_kind")
                    except (TypeError, ValueError) as e:
                        raise type(e)(
                            "the custom kernel %s returned %s at row %d, "
                            "which does not fit the chunk's output, %s %s "
                            "(its rows, of out_shape, in a dtype that casts "
                            "to out_dtype as numpy's same_kind casting "
                            "does): %s" % (
                                _describe(func), _describe_result(rows),
                                first_row, out.dtype, out.shape, e)) from None
                return True
            except BaseException as e:
                # SystemExit and KeyboardInterrupt too: they end the run
                # and are raised as themselves by wait()
                errors.raise_from(e)
        _call(_P.custom_register_arrays, reg, call, None)
        self._registered.append(reg)
        return reg

    def __del__(self):
        for reg in getattr(self, "_registered", ()):
            try:
                _P.custom_unregister(reg)
            except Exception:
                pass

    def sink(self, node, name=None):
        """An output: node's result, bound at dispatch (or allocated)."""
        node = self._input(node, "sink", "the node whose result it outputs "
                           "(one sink per output)")
        return self._wrap(_call(self._graph.add_sink, self._name(name),
                                node._node))

    def node(self, name):
        """The node called name, or None."""
        gnode = self._graph.get_node(name)
        return self._wrap(gnode) if gnode is not None else None

    def realize(self, target="auto", fuse=True):
        """Builds the pipeline: 'cpu', 'cuda' (or 'gpu'), or 'auto'."""
        if target not in TARGETS:
            raise ValueError("realize: target must be one of %s, not %r" %
                             (", ".join(TARGETS), target))
        flags = _P.RealizeFlags.NONE if fuse else _P.RealizeFlags.NO_FUSE
        return Work(self, _call(self._graph.realize, TARGETS[target], flags),
                    target)


# Running

class Work:
    """A realized plan: dispatch it as often as you like. Runs go one at a
    time; a dispatch while one runs waits its turn (at most max_queued
    of them), and their futures complete in order."""

    def __init__(self, plan, work, target):
        self._plan = plan
        self._work = work
        #: the target the kernel elements were given: 'cpu', 'cuda' or
        #: 'auto'
        self.target = work.get_target().value_nick
        self.input_names = list(work.get_input_names())
        self.output_names = list(work.get_output_names())
        # The last dispatch's wrappers and bindings, for the next one to
        # reuse. Threads may dispatch at once: each binds into wrappers of
        # its own and takes this lock only to swap them in, so that no run
        # starts with another thread's arrays.
        self._last_wrapped = {}
        self._last_calls = None
        self._last_bindings = None
        self._lock = threading.Lock()

    @property
    def pipeline(self):
        """The GStreamer pipeline the plan runs as."""
        return self._work.get_pipeline()

    @property
    def launch_string(self):
        """The pipeline as gst-launch-1.0 syntax."""
        return self._work.to_launch_string()

    @property
    def n_kernels(self):
        """How many kernel elements (maps, reductions, stencils) the
        pipeline has: fewer than the plan's nodes when chains were
        fused."""
        return self._work.get_n_kernels()

    @property
    def max_queued(self):
        """How many dispatches may wait behind the running one (64 by
        default; 0: a dispatch while one runs is refused)."""
        return self._work.get_max_queued()

    @max_queued.setter
    def max_queued(self, value):
        if isinstance(value, bool) or not isinstance(value, int) or \
                not 0 <= value <= 0xffffffff:
            raise ValueError("max_queued is a number of dispatches, 0 to "
                             "4294967295, not %r" % (value,))
        self._work.set_max_queued(value)

    def _key(self, key, frame):
        if key in self.input_names or key in self.output_names:
            return key
        # dispatch(a=A) where `a` is a node variable of the caller's
        while frame is not None:
            for scope in (frame.f_locals, frame.f_globals):
                value = scope.get(key)
                if isinstance(value, Node) and value._plan is self._plan:
                    return value.name
            frame = frame.f_back
        raise KeyError("%r is neither an input (%s) nor an output (%s) of "
                       "the plan" % (key, ", ".join(self.input_names),
                                     ", ".join(self.output_names)))

    def _device(self):
        return _call(_P.Device.get, self.target)

    def _bind(self, bindings, name, value, keep, wrapped):
        """Binds value to name; the PlanArrays made over arrays go into the
        dict wrapped, for the next dispatch to reuse."""
        is_input = name in self.input_names
        if type(value) is np.ndarray:
            # the common case first: an array bound as it was last time
            parray = self._cached(value, not is_input, wrapped)
            if parray is not None:
                keep.append(value)
                bindings.set_array(name, parray)
                return
        what = "%s '%s'" % ("input" if is_input else "output", name)
        if value is None:
            if is_input:
                raise ValueError("the input '%s' needs an array, a file or a "
                                 "reader" % name)
            return
        in_file = _file_dataset(value)
        if in_file is not None:
            if in_file[1] is not None and "\0" in in_file[1]:
                raise ValueError("%s: the array name %r has a NUL byte"
                                 % (what, in_file[1]))
            bindings.set_file_dataset(
                name, _c_path(_location(in_file[0], what)), in_file[1])
            return
        if isinstance(value, (str, os.PathLike)):
            bindings.set_file(name, _c_path(_location(value, what)))
            return
        if isinstance(value, RawFile):
            bindings.set_raw_file(name, _c_path(value.path),
                                  _plan_dtype(value.dtype, what),
                                  list(value.shape))
            return
        if hasattr(value, "__cuda_array_interface__") and not \
                isinstance(value, np.ndarray):
            if self.target == "cpu":
                raise ValueError("%s is in device memory "
                                 "(__cuda_array_interface__) but the plan "
                                 "runs on the CPU: realize(target='cuda')" %
                                 what)
            cuda = _CudaArray(value, what)
            try:
                device = self._device()
            except PlanError as e:
                # 'auto' finds no device to read it on
                raise PlanError("%s is in device memory "
                                "(__cuda_array_interface__), but the plan "
                                "has no device to read it on: %s" %
                                (what, e.message), e.domain, e.code) from None
            parray = _wrap_device(cuda, device, what)
            keep.append(value)
            bindings.set_array(name, parray)
            return
        arr = _as_host_array(value, what)
        if arr is None:
            raise TypeError("%s: cannot bind %s (give a numpy array, an "
                            "object with __array_interface__, "
                            "__cuda_array_interface__ or the buffer "
                            "protocol, or a file name)%s" %
                            (what, with_article(type(value).__name__),
                             "; gstplan binds arrays without copying them: "
                             "np.asarray(value) makes one of a number or a "
                             "list" if is_input and isinstance(
                                 value, (int, float, complex, list, tuple))
                             else ""))
        if not is_input and not arr.flags.writeable:
            raise ValueError("%s is read-only" % what)
        keep.append(arr)
        bindings.set_array(name, self._wrapped(arr, not is_input, wrapped,
                                               what))

    def _wrapped(self, arr, writable, wrapped, what=None):
        """The PlanArray over arr: the one of the last dispatch when arr is
        bound again as it was (a loop dispatching the same arrays wraps
        them once), else a new one."""
        parray = self._cached(arr, writable, wrapped)
        if parray is None:
            parray = _wrap_host(arr, writable, what)
            wrapped[(id(arr), writable)] = (arr, parray, _layout(arr))
        return parray

    def _cached(self, arr, writable, wrapped):
        """The last dispatch's PlanArray over arr, if arr is the same object
        with the same layout (its memory cannot have moved: numpy does not
        resize an array others refer to, and the cache refers to it)."""
        key = (id(arr), writable)
        hit = self._last_wrapped.get(key)
        if hit is None or hit[0] is not arr or hit[2] != _layout(arr) or \
                (writable and not arr.flags.writeable):
            return None
        wrapped[key] = hit
        return hit[1]

    def _bindings(self, arrays, frame):
        # The wrappers of this dispatch replace the last one's; libplan's
        # sources hold the last arrays until the next dispatch anyway.
        wrapped = {}
        recorder = _Recorder()
        keep = []
        given = {}
        for key, value in arrays.items():
            name = self._key(key, frame)
            given[name] = value
            self._bind(recorder, name, value, keep, wrapped)
        missing = [n for n in self.input_names if n not in given]
        if missing:
            raise ValueError("dispatch: the input%s %s %s not bound" % (
                "s" if len(missing) > 1 else "", ", ".join(missing),
                "are" if len(missing) > 1 else "is"))
        # The same bindings as the last dispatch's: reuse them.
        calls = tuple(recorder.calls)
        with self._lock:
            self._last_wrapped = wrapped
            if calls != self._last_calls:
                self._last_bindings = recorder.replay()
                self._last_calls = calls
            return self._last_bindings, keep, given

    def dispatch(self, **arrays):
        """Starts a run with these inputs and outputs (by node name, or by
        the caller's variable names of the nodes); returns a Future.
        Outputs not given are allocated and returned by Future.result()."""
        if all(k in self.input_names or k in self.output_names
               for k in arrays):
            bindings, keep, given = self._bindings(arrays, None)
        else:
            frame = inspect.currentframe().f_back
            try:
                bindings, keep, given = self._bindings(arrays, frame)
            finally:
                del frame
        return self._start(bindings, keep, given, ())

    def _start(self, bindings, keep, given, errors):
        cfuture = _call(self._work.dispatch, bindings)
        _in_flight.add(cfuture)
        return Future(self, cfuture, keep, given,
                      (self._plan._kernel_errors,) + tuple(errors))


class _Recorder:
    """Collects a dispatch's bindings, to make a Plan.Bindings of them or
    to see that they are the last dispatch's."""

    def __init__(self):
        self.calls = []

    def set_array(self, name, array):
        self.calls.append(("set_array", name, array))

    def set_file(self, name, location):
        self.calls.append(("set_file", name, location))

    def set_file_dataset(self, name, location, dataset):
        self.calls.append(("set_file_dataset", name, location, dataset))

    def set_raw_file(self, name, location, dtype, shape):
        self.calls.append(("set_raw_file", name, location, dtype,
                           tuple(shape)))

    def replay(self):
        bindings = _P.Bindings.new()
        for call in self.calls:
            getattr(bindings, call[0])(*[list(a) if isinstance(a, tuple) else a
                                         for a in call[1:]])
        return bindings


#: How long wait() blocks in libplan before Python looks at its signals:
#: the bound on the time a Ctrl-C takes to interrupt a wait.
_SLICE_US = 20000


#: The work whose reader or writer this thread is calling, if any.
_calling = threading.local()


def _call_back(work, func, *args):
    """Calls an application's reader or writer for a run of work, marked so
    that a wait, inside it, for a run of the same work is refused: that run
    could never end."""
    outer = getattr(_calling, "work", None)
    _calling.work = work
    try:
        return func(*args)
    finally:
        _calling.work = outer


class _InFlight:
    """The runs not known to be done, for the interpreter's exit: a run
    calls Python (a reader, a writer, a kernel; the release of an array it
    holds) from its own threads, and once the interpreter is finalizing
    PyGObject no longer calls a Python callback, but returns to libplan
    without a value (a reader's chunk is then a stray pointer). So at exit
    every run still going is cancelled and waited for, while Python still
    answers its callbacks. A run leaves when its Future has waited for it
    or is dropped once done; one whose Future was dropped while it ran is
    swept out, once done, as later runs are added."""

    def __init__(self):
        self._lock = threading.Lock()
        self._futures = {}
        self._sweep_at = 64

    def add(self, cfuture):
        with self._lock:
            self._futures[id(cfuture)] = cfuture
            if len(self._futures) >= self._sweep_at:
                self._futures = {k: f for k, f in self._futures.items()
                                 if not f.is_done()}
                self._sweep_at = max(64, 2 * len(self._futures))

    def discard(self, cfuture):
        with self._lock:
            if self._futures.get(id(cfuture)) is cfuture:
                del self._futures[id(cfuture)]

    def stop_all(self):
        with self._lock:
            futures, self._futures = list(self._futures.values()), {}
        futures = [f for f in futures if not f.is_done()]
        for f in futures:
            f.cancel()
        for f in futures:
            try:
                # in slices, so that a Ctrl-C still ends a wait that a
                # blocked callback holds up
                while not f.wait(_SLICE_US):
                    pass
            except GLib.Error:
                pass    # cancelled, or failed: either way it has stopped


_in_flight = _InFlight()
atexit.register(_in_flight.stop_all)


def _deadline(timeout):
    """The time.monotonic() at which a wait of timeout seconds ends: None
    for no timeout (None or inf); a negative timeout is 0, as
    concurrent.futures takes it. NaN and what is not a number are refused
    here, before the wait, so that they never reach the run."""
    if timeout is None:
        return None
    try:
        if isinstance(timeout, (str, bytes, bytearray)):
            raise TypeError
        seconds = float(timeout)
    except OverflowError:
        # An integer past the floats (10**400): longer than any run.
        return None if timeout > 0 else time.monotonic()
    except (TypeError, ValueError):
        raise TypeError(f"timeout must be a number of seconds or None, "
                        f"not {type(timeout).__name__}") from None
    if math.isnan(seconds):
        raise ValueError("timeout must be a number of seconds or None, "
                         "not NaN")
    if math.isinf(seconds) and seconds > 0:
        return None
    return time.monotonic() + max(0.0, seconds)


class Future:
    """A run in flight. wait() for it (or `await` it), then read the
    outputs: the arrays given to dispatch() were written in place, the
    others are returned by result()."""

    def __init__(self, work, future, keep, given, errors):
        self._work = work
        self._future = future
        self._keep = keep
        self._given = given
        self._errors = errors
        self._exception = None
        self._exception_lock = threading.Lock()
        self._results = None
        self._writers = ()

    def wait(self, timeout=None):
        """Waits until the run ends (at most timeout seconds: returns False
        if it has not); raises the run's error, or the exception a reader,
        writer or kernel raised. Signals are handled while it waits: a
        Ctrl-C raises KeyboardInterrupt at once and cancels the run."""
        deadline = _deadline(timeout)
        if getattr(_calling, "work", None) is self._work and \
                not self._future.is_done():
            raise RuntimeError(
                "wait() inside a reader or writer of this work, for a run "
                "of the same work: it would never end, since the work runs "
                "one dispatch at a time and the run that called the reader "
                "or writer goes on only once it returns; wait outside the "
                "reader or writer, or dispatch to another work (realize the "
                "plan again)")
        error = None
        try:
            while True:
                us = _SLICE_US if deadline is None else max(0, min(
                    _SLICE_US, int((deadline - time.monotonic()) * 1e6)))
                try:
                    # False without an error: still running
                    if self._future.wait(us):
                        break
                except GLib.Error as e:
                    error = e
                    break
                if deadline is not None and time.monotonic() >= deadline:
                    return False
        except BaseException:
            # KeyboardInterrupt (or another exception a signal handler
            # raised) between two slices of the wait: the run is cancelled
            self._future.cancel()
            raise
        self._keep = []
        _in_flight.discard(self._future)
        if error is not None:
            # Threads waiting for one future all raise the exception, which
            # the first of them takes from the errors.
            with self._exception_lock:
                if self._exception is None:
                    for errors in self._errors:
                        self._exception = errors.take(error.message)
                        if self._exception is not None:
                            break
                exception = self._exception
            if exception is not None:
                raise exception from _plan_error(error)
            raise _plan_error(error) from None
        return True

    def done(self):
        """Whether the run has ended (successfully or not); never blocks."""
        return self._future.is_done()

    def __del__(self):
        try:
            if self._future.is_done():
                _in_flight.discard(self._future)
        except Exception:
            pass    # at the interpreter's exit, the module may be gone

    def cancel(self):
        """Stops the run; wait() then raises a PlanError (cancelled)."""
        self._future.cancel()

    @property
    def progress(self):
        """The fraction done, 0 to 1, or -1 when the total is unknown."""
        return self._future.get_progress()[0]

    @property
    def rows(self):
        """(rows done, rows in all or -1), all sources together."""
        _, done, total = self._future.get_progress()
        return done, total

    def result(self, name=None):
        """The output `name` as a numpy array (a 0-d reduction as a numpy
        scalar), the path of an output bound to a file, or a dict of every
        output. Waits for the run first."""
        self.wait()
        if self._results is None:
            results = {}
            outputs = self._work.output_names
            for n, value in self._given.items():
                if n not in outputs:
                    continue    # an input (a file or array read): no result
                if isinstance(value, (str, os.PathLike)):
                    results[n] = os.fspath(value)
                elif isinstance(value, RawFile):
                    results[n] = value.path
            for n in self._future.get_result_names():
                if n in self._given and self._given[n] is not None and \
                        n not in results:
                    results[n] = self._given[n]
                    continue
                parray = self._future.get_result(n)
                if parray is None:
                    results[n] = None
                    continue
                a = _to_numpy(parray)
                results[n] = a[()] if a.ndim == 0 else a
            self._results = results
        if name is None:
            return dict(self._results)
        if isinstance(name, Node):
            name = name.name
        if name not in self._results:
            if name in self._writers:
                raise KeyError("%r went to a writer, which was given its rows "
                               "as they came: the run keeps no result of it"
                               % (name,))
            raise KeyError("%r is not an output of the run (%s)" %
                           (name, ", ".join(self._results)))
        return self._results[name]

    def __await__(self):
        """`await future` waits in the loop's default executor and gives
        the future; cancelling the awaiting task cancels the run."""
        return self._wait_async().__await__()

    def _block(self):
        try:
            self._future.wait(-1)
        except GLib.Error:
            pass

    async def _wait_async(self):
        if not self._future.is_done():
            loop = asyncio.get_running_loop()
            try:
                await loop.run_in_executor(None, self._block)
            except BaseException:
                # the awaiting task was cancelled (asyncio.wait_for's
                # timeout, task.cancel(), Ctrl-C under asyncio.run): so is
                # the run
                self._future.cancel()
                raise
        self.wait()
        return self


# Streaming through application readers and writers

def _describe(func):
    return getattr(func, "__qualname__", None) or type(func).__name__


def _describe_result(value):
    """What a kernel returned, for a message: an array's dtype and shape."""
    if isinstance(value, np.ndarray):
        return "an array of %s %s" % (value.dtype, value.shape)
    return "None" if value is None else _describe_value(value)


def _describe_value(value):
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return "%s (%s)" % (with_article(type(value).__name__), text)


def _owner(arr):
    """The object that owns an array's memory: the end of its chain of
    bases (an ndarray, an mmap, a bytearray ...)."""
    while isinstance(arr, np.ndarray) and arr.base is not None:
        arr = arr.base
    return arr


def _check_reuse(rows, in_use, name, reader, first_row):
    """A reader that refilled memory libplan still held when it was called
    (the readinto pattern): the same owner, overlapping bytes."""
    owner = _owner(rows)
    start = rows.ctypes.data
    end = start + rows.nbytes
    for held_owner, s, e, row in in_use:
        if held_owner is owner and s < end and start < e:
            raise ValueError(
                "the reader of '%s' (%s) returned at row %d the memory of "
                "the rows it returned at row %d, which the plan had not "
                "finished with: return a new array for each chunk, or "
                "connect it with copy=True" % (name, _describe(reader),
                                               first_row, row))


class IO:
    """Binds sources to readers and outputs to writers, then runs: the
    original design's IO(work).connect(a, reader) ... start() ... wait().

    A reader is a callable reader(first_row) returning the next rows (any
    number, as a numpy array) or None (or an array of no rows) at the end,
    or an iterable of arrays. A writer is a callable writer(rows,
    first_row). Files (a path) and whole arrays are accepted too, as in
    dispatch()."""

    def __init__(self, work):
        self._work = work
        self._connections = {}
        self._future = None
        self._errors = _Errors()

    def connect(self, node, endpoint, dtype=None, shape=None, copy=False):
        """Connects the input or output node to endpoint. copy=True (for
        a reader) copies each chunk as it comes, so that the reader may
        refill one buffer (the readinto pattern); without it, the arrays a
        reader returns are streamed in place and must stay unchanged while
        the plan uses them."""
        name = node.name if isinstance(node, Node) else node
        if name not in self._work.input_names and \
                name not in self._work.output_names:
            raise KeyError("%r is neither an input nor an output of the plan"
                           % (name,))
        self._connections[name] = (endpoint, dtype, shape, copy)
        return self

    @staticmethod
    def _chunk(rows, name, reader, first_row):
        """The reader's rows as a host array, or a TypeError naming the
        reader and what it returned."""
        arr = None
        if not isinstance(rows, (str, bytes, list, tuple, dict)):
            try:
                arr = _as_host_array(rows, "the chunk of '%s' at row %d" %
                                     (name, first_row))
            except TypeError:
                if isinstance(rows, np.ma.MaskedArray):
                    raise
                arr = None
        if arr is None:
            raise TypeError(
                "the reader of '%s' (%s) returned %s at row %d: a reader "
                "returns the next rows as an array (numpy, or anything with "
                "__array_interface__ or the buffer protocol), or None at the "
                "end" % (name, _describe(reader), _describe_value(rows),
                         first_row))
        if arr.ndim == 0:
            raise TypeError(
                "the reader of '%s' (%s) returned a 0-d array at row %d: a "
                "chunk has rows (an array of at least one axis)" %
                (name, _describe(reader), first_row))
        return arr

    def _reader(self, name, endpoint, dtype, shape, copy, bindings, keep):
        if callable(endpoint):
            next_rows = endpoint
        else:
            it = iter(endpoint)

            def next_rows(first_row):
                return next(it, None)
        errors = self._errors
        work = self._work
        pending = []
        if dtype is None or shape is None:
            # Learn the stream's dtype and inner shape from its first chunk.
            first = next_rows(0)
            if first is not None:
                first = self._chunk(first, name, endpoint, 0)
                dtype = dtype if dtype is not None else first.dtype
                shape = shape if shape is not None else \
                    (-1,) + first.shape[1:]
                pending.append(np.array(first) if copy else first)
            elif dtype is None:
                raise ValueError("the reader of '%s' returned nothing: give "
                                 "dtype= and shape=" % name)
            else:
                shape = (0,) if shape is None else shape
        # The chunks libplan still holds: token -> (the memory's owner,
        # first byte, end, first row).
        held = {}
        counter = [0]

        def release(token):
            held.pop(token, None)

        def read(first_row, _user_data=None):
            try:
                in_use = list(held.values())
                rows = pending.pop() if pending else \
                    _call_back(work, next_rows, first_row)
                if rows is None:
                    return None
                rows = self._chunk(rows, name, endpoint, first_row)
                if copy:
                    rows = np.array(rows)
                elif rows.nbytes:
                    _check_reuse(rows, in_use, name, endpoint, first_row)
                counter[0] += 1
                token = counter[0]
                held[token] = (_owner(rows), rows.ctypes.data,
                               rows.ctypes.data + rows.nbytes, first_row)
                what = "the reader of '%s' (%s), at row %d" % (
                    name, _describe(endpoint), first_row)
                return _owned(None, rows.ctypes.data, rows.nbytes,
                              _plan_dtype(rows.dtype, what),
                              [int(n) for n in rows.shape], False, rows,
                              functools.partial(release, token), what)
            except BaseException as e:
                errors.raise_from(e)

        keep.append(read)
        what = "the reader of '%s' (%s)" % (name, _describe(endpoint))
        bindings.set_reader(name, _plan_dtype(dtype, what),
                            [int(s) for s in shape], read, None)

    def _writer(self, name, endpoint, bindings, keep):
        errors = self._errors
        work = self._work

        def write(chunk, first_row, _user_data=None):
            try:
                rows = _to_numpy(chunk, readonly=True)
                # a single value (a reduction's) comes as one row, so that
                # rows always have a first axis: len(rows) is 1
                _call_back(work, endpoint,
                           rows.reshape(1) if rows.ndim == 0 else rows,
                           first_row)
                return True
            except BaseException as e:
                errors.raise_from(e)

        keep.append(write)
        bindings.set_writer(name, write, None)

    def start(self):
        """Starts the run; returns its Future (also kept for wait())."""
        work = self._work
        bindings = _P.Bindings.new()
        keep = []
        given = {}
        writers = []
        # the readers' and writers' errors, for this run's future
        self._errors = _Errors()
        wrapped = {}
        for name, (endpoint, dtype, shape, copy) in \
                self._connections.items():
            is_input = name in work.input_names
            if callable(endpoint) or (is_input and not isinstance(
                    endpoint, (str, os.PathLike, np.ndarray)) and
                    hasattr(endpoint, "__iter__") and
                    not hasattr(endpoint, "__array_interface__") and
                    not hasattr(endpoint, "__cuda_array_interface__")):
                if is_input:
                    self._reader(name, endpoint, dtype, shape, copy,
                                 bindings, keep)
                else:
                    self._writer(name, endpoint, bindings, keep)
                    writers.append(name)
            else:
                work._bind(bindings, name, endpoint, keep, wrapped)
                given[name] = endpoint
        missing = [n for n in work.input_names if n not in self._connections]
        if missing:
            raise ValueError("IO: connect the input%s %s first" % (
                "s" if len(missing) > 1 else "", ", ".join(missing)))
        self._future = work._start(bindings, keep, given, (self._errors,))
        self._future._writers = tuple(writers)
        return self._future

    def wait(self, timeout=None):
        """Waits for the run, as Future.wait(): True when it is done, False
        when timeout seconds passed first."""
        if self._future is None:
            raise RuntimeError("IO.wait() before IO.start()")
        return self._future.wait(timeout)

    @property
    def future(self):
        """The Future of the run start() began (None before start())."""
        return self._future
