# gst-plan: a small ctypes binding of libplan's expression API, for the
# numpy comparison test (test_expr_numpy.py) and the benchmark
# (tests/benchmarks/bench_expr.py). Not an installed module.

import ctypes
import os

import numpy as np

DTYPES = ['unknown', 'bool', 'int8', 'uint8', 'int16', 'uint16', 'int32',
          'uint32', 'int64', 'uint64', 'float32', 'float64', 'complex64',
          'complex128', 'float16']


class _GError(ctypes.Structure):
    _fields_ = [('domain', ctypes.c_uint32), ('code', ctypes.c_int),
                ('message', ctypes.c_char_p)]


class ExprError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def _find_lib():
    build = os.environ.get('PLAN_BUILD_DIR')
    if not build:
        here = os.path.dirname(os.path.abspath(__file__))
        build = os.path.join(here, '..', '..', 'build')
    return os.path.join(build, 'libplan', 'libplan-1.0.so')


_lib = None


def lib():
    global _lib
    if _lib is not None:
        return _lib
    gst = ctypes.CDLL('libgstreamer-1.0.so.0')
    gst.gst_init(None, None)
    L = ctypes.CDLL(_find_lib())
    L.plan_init()
    vp, sz = ctypes.c_void_p, ctypes.c_size_t
    L.plan_expr_compile.restype = vp
    L.plan_expr_compile.argtypes = [
        ctypes.c_char_p, ctypes.c_uint, ctypes.POINTER(ctypes.c_char_p),
        ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.POINTER(_GError))]
    L.plan_expr_get_dtype.argtypes = [vp]
    L.plan_expr_unref.argtypes = [vp]
    L.plan_expr_eval.argtypes = [vp, ctypes.POINTER(vp), vp, sz]
    L.plan_expr_eval_parallel.argtypes = [vp, ctypes.POINTER(vp), vp, sz,
                                          ctypes.c_uint]
    L.plan_expr_to_cuda.restype = ctypes.c_void_p
    L.plan_expr_to_cuda.argtypes = [vp, ctypes.c_char_p]
    L.plan_expr_get_cpu_isa.restype = ctypes.c_char_p
    L.plan_parallel_get_n_cores.restype = ctypes.c_uint
    L.g_free = ctypes.CDLL('libglib-2.0.so.0').g_free
    L.g_free.argtypes = [vp]
    L.g_error_free = ctypes.CDLL('libglib-2.0.so.0').g_error_free
    _lib = L
    return L


class Expr:
    """A compiled expression; names maps each bound name to a numpy dtype."""

    def __init__(self, source, names):
        L = lib()
        keys = list(names)
        n = len(keys)
        cnames = (ctypes.c_char_p * max(n, 1))(*[k.encode() for k in keys])
        cdt = (ctypes.c_int * max(n, 1))(
            *[DTYPES.index(np.dtype(names[k]).name) for k in keys])
        err = ctypes.POINTER(_GError)()
        self._e = L.plan_expr_compile(source.encode(), n, cnames, cdt,
                                      ctypes.byref(err))
        if not self._e:
            code, msg = err.contents.code, err.contents.message.decode()
            L.g_error_free(err)
            raise ExprError(code, msg)
        self.names = keys
        self.dtype = np.dtype(DTYPES[L.plan_expr_get_dtype(self._e)])

    def __del__(self):
        if getattr(self, '_e', None):
            lib().plan_expr_unref(self._e)

    def _args(self, arrays, out):
        arrs = [np.ascontiguousarray(arrays[k]) for k in self.names]
        n = len(out)
        for a in arrs:
            assert len(a) == n
        ins = (ctypes.c_void_p * max(len(arrs), 1))(
            *[a.ctypes.data for a in arrs])
        return arrs, ins, n

    def eval(self, arrays, out=None, threads=1):
        """arrays: dict name -> 1-D array of the bound dtype."""
        if out is None:
            n = len(arrays[self.names[0]]) if self.names else 1
            out = np.empty(n, self.dtype)
        arrs, ins, n = self._args(arrays, out)
        if threads == 1:
            lib().plan_expr_eval(self._e, ins, out.ctypes.data, n)
        else:
            lib().plan_expr_eval_parallel(self._e, ins, out.ctypes.data, n,
                                          threads)
        return out

    def to_cuda(self, name):
        p = lib().plan_expr_to_cuda(self._e, name.encode())
        s = ctypes.string_at(p).decode()
        lib().g_free(p)
        return s
