# gst-plan
# Copyright (C) 2026 the gst-plan authors
# SPDX-License-Identifier: LGPL-2.0-or-later
"""Python functions (lambdas) as expressions of the expression language.

The body of a lambda (or of a ``def`` whose body is one ``return``) is read
from its source with :mod:`ast` and written out in the expression language
(docs/expressions.md). Only what the language can say is accepted:
arithmetic, comparisons, ``and``/``or``/``not``, ``a if c else b``, calls of
``math``/``numpy`` functions and of ``abs``/``min``/``max``/``round``/
``pow``, numeric constants, and names of the function's arguments or of
numbers it closes over. Anything else raises :class:`TranslationError`,
which names the file and line of the function.
"""

import ast
import bisect
import dis
import inspect
import linecache
import math
import numbers
import operator
import textwrap

__all__ = ["TranslationError", "translate", "translate_call",
           "is_library_function", "parameters"]


def with_article(name):
    """@name (a type or dtype name) after its indefinite article, for
    messages: 'an int', 'an ndarray', 'an int8', but 'a uint8', 'a list'."""
    an = name[:1].lower() in "aeio" or name.startswith("nd")
    return ("an " if an else "a ") + name


class TranslationError(ValueError):
    """A Python function the expression language cannot express."""

    # Its public name, which a traceback prints: gstplan.TranslationError,
    # as gstplan.PlanError, not the private module it is defined in.
    __module__ = "gstplan"


# numpy's and math's names for the language's functions, where they differ.
_RENAMES = {
    "absolute": "abs",
    "arcsin": "asin", "arccos": "acos", "arctan": "atan",
    "arctan2": "atan2", "arcsinh": "asinh", "arccosh": "acosh",
    "arctanh": "atanh", "power": "pow", "around": "round",
    "round_": "round",
}

# numpy's reductions whose names are the language's elementwise min and max:
# np.max(x, 0) is the largest value along axis 0.
_NUMPY_REDUCTIONS = {"min": "minimum", "max": "maximum", "amin": "minimum",
                     "amax": "maximum"}

# cmath's functions of a complex result: cmath.sqrt(-1.0) is 1j, so the
# operand is made complex128 first, as cmath makes it a Python complex.
_CMATH_COMPLEX = {
    "sqrt", "exp", "log", "log10", "sin", "cos", "tan", "asin", "acos",
    "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
}

# Functions the language has (a call of anything else is refused here, with
# the lambda's line, rather than by the compiler).
_FUNCTIONS = {
    "abs", "fabs", "sign", "sqrt", "cbrt", "exp", "exp2", "expm1", "log",
    "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan",
    "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "floor", "ceil",
    "trunc", "rint", "round", "minimum", "min", "maximum", "max", "fmin",
    "fmax", "pow", "fmod", "hypot", "where", "clip", "isnan", "isinf",
    "isfinite", "bool", "int8", "int16", "int32", "int64", "uint8",
    "uint16", "uint32", "uint64", "float16", "float32", "float64",
    # numpy's names, which the language may know as well
    "square", "reciprocal", "negative", "positive", "deg2rad", "rad2deg",
    "radians", "degrees", "copysign", "signbit", "heaviside", "logaddexp",
    "logaddexp2", "nan_to_num", "remainder", "mod", "true_divide",
    "floor_divide", "logical_and", "logical_or", "logical_xor",
    "logical_not", "conj", "real", "copy", "ones_like", "imag", "angle",
    "conjugate", "complex64", "complex128", "float_power", "add",
    "subtract", "multiply", "divide", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not", "invert", "left_shift", "right_shift",
    "less", "less_equal", "greater", "greater_equal", "equal", "not_equal",
}

# How many arguments the language's functions take, by the names above: 3
# for these, 2 for the next, 1 for every other (the built-ins min and max
# take two or more).
_THREE_ARGS = {"where", "clip"}
_TWO_ARGS = {
    "atan2", "hypot", "minimum", "maximum", "fmin", "fmax", "pow", "fmod",
    "copysign", "heaviside", "logaddexp", "logaddexp2", "float_power",
    "remainder", "mod", "true_divide", "divide", "floor_divide",
    "logical_and", "logical_or", "logical_xor", "add", "subtract",
    "multiply", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
    "right_shift", "less", "less_equal", "greater", "greater_equal", "equal",
    "not_equal", "min", "max",
}

# Python's casts written as calls.
_BUILTIN_CASTS = {"float": "float64", "int": "int64", "bool": "bool"}

# math's functions that compute in float64 whatever their operands are, as
# Python's math does (math.pow(2, 3) is 8.0), where the language's pow and
# fmod are numpy's power and fmod, which keep integer and float32 dtypes:
# math.pow(x, y) is pow(float64(x), float64(y)).
_MATH_FLOAT64 = {"pow", "fmod"}

# Functions whose value for numbers Python computes rather than the
# language: round(2.7) and math.floor(2.7) are the ints 3 and 2, where the
# language's round and floor keep the operand's type (a float, 3.0), and
# math.pow(2, 3) is the weak float 8.0, not a float64 pow(float64(2), ...).
_FOLDED = (round, math.floor, math.ceil, math.trunc, math.pow, math.fmod)

_MODULES = {"math", "numpy", "cmath"}

_DTYPE_NAMES = {
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
}


def _numpy():
    import sys
    return sys.modules.get("numpy")


def np_bool():
    """numpy's bool scalar type, or a type nothing is an instance of."""
    np = _numpy()
    return np.bool_ if np is not None else type(None)


def is_numpy_scalar(value):
    np = _numpy()
    return np is not None and isinstance(value, np.generic)

_BINOPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/",
    ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<",
    ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
}
_UNARYOPS = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "not "}
_CMPOPS = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
    ast.NotEq: "!=",
}
# The same operators as Python computes them, for parts made of numbers
# only that Python decides (_Writer.value).
_PY_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod, ast.Pow: operator.pow, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}
_PY_UNARYOPS = {ast.USub: operator.neg, ast.UAdd: operator.pos,
                ast.Invert: operator.invert, ast.Not: operator.not_}
_PY_CMPOPS = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.Eq: operator.eq, ast.NotEq: operator.ne,
}
# Written with np. in front: a bare pi, e, inf or nan is shadowed by a
# bound name of the same spelling (a stencil's cell e, a lambda's argument
# e), and would read that name instead of the constant.
_CONSTANTS = {"pi": "np.pi", "e": "np.e", "inf": "np.inf", "nan": "np.nan"}


def _where(func):
    code = getattr(func, "__code__", None)
    if code is None:
        return repr(func)
    return "%s:%d" % (code.co_filename, code.co_firstlineno)


# How many lines after its first a lambda's source is looked for in (inspect
# gives only the first line of a lambda whose body is on the next).
_LAMBDA_LINES = 40


def _parse_trees(source):
    source = textwrap.dedent(source)
    try:
        return [ast.parse(source)]
    except SyntaxError:
        # A lambda is usually part of a larger statement that inspect cuts
        # at line boundaries: parse each lambda on its own, as the longest
        # text from its keyword that is an expression.
        return list(_lambda_trees(source))


def _no_source(func, why):
    return TranslationError(
        "%s: Python keeps no source for %r (%s), as for a function typed at "
        "the interactive prompt or given to python -c: pass the expression "
        "as a string instead (plan.map(\"x + y\", args=(a, b)) names the "
        "arguments x, y, z, w), or define the function in a file" %
        (_where(func), func, why))


def _function_node(func):
    """The ast node (Lambda or FunctionDef) of func's source."""
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError) as e:
        raise _no_source(func, e) from None
    code = func.__code__
    args = [code.co_varnames[i] for i in range(code.co_argcount)]
    want = ast.Lambda if func.__name__ == "<lambda>" else ast.FunctionDef

    def find(trees):
        return [n for tree in trees for n in ast.walk(tree)
                if isinstance(n, want) and [a.arg for a in n.args.posonlyargs +
                                            n.args.args] == args and
                (want is ast.Lambda or n.name == func.__name__)]
    trees = _parse_trees("".join(lines))
    found = find(trees)
    if not found and want is ast.Lambda:
        # a lambda whose body goes on past the lines inspect gave
        more = linecache.getlines(code.co_filename)[
            first - 1:first - 1 + _LAMBDA_LINES]
        if len(more) > len(lines):
            trees = _parse_trees("".join(more))
            found = find(trees)
    if not trees:
        raise TranslationError(
            "%s: cannot parse the source of the function; pass the expression "
            "as a string instead" % _where(func))
    if not found:
        raise TranslationError(
            "%s: cannot find the function in its source line; pass the "
            "expression as a string instead" % _where(func))
    if len(found) > 1:
        # Several lambdas of the same arguments on one line: tell them apart
        # by their compiled bodies.
        same = [n for n in found if _same_code(n, code)] or found
        if len({ast.dump(n) for n in same}) != 1:
            raise TranslationError(
                "%s: several functions of the arguments (%s) are defined "
                "there and their compiled code does not tell which this one "
                "is; put each on a line of its own, or pass the expression "
                "as a string" % (_where(func), ", ".join(args)))
        found = same
    return found[0], first - 1


def _lambda_trees(source):
    start = source.find("lambda")
    while start >= 0:
        ends = [i for i, ch in enumerate(source) if i > start and ch in ",)]}\n"]
        for end in reversed(ends + [len(source)]):
            try:
                # in parentheses, so that the body may go on the next lines
                tree = ast.parse("(" + source[start:end] + "\n)", mode="eval")
            except SyntaxError:
                continue
            if isinstance(tree.body, ast.Lambda):
                # line numbers of the text, counted from the source's first
                tree = ast.increment_lineno(tree, source.count("\n", 0, start))
                yield tree
                break
        start = source.find("lambda", start + 1)


def _instructions(code):
    """code's instructions, as far as they do not depend on where it was
    compiled: Python 3.11 loads a method of a name its module imports
    (np.sin) with LOAD_GLOBAL and LOAD_ATTR, and of any other name with
    LOAD_METHOD, and a name the lambda closes over with LOAD_DEREF, so a
    lambda compiled apart from its module differs there. LOAD_GLOBAL is
    followed by caches that LOAD_DEREF is not, which moves the offsets a
    jump (of a if c else b, of and/or) goes to: a jump's target is the
    index of the instruction it lands on."""
    kept = [ins for ins in dis.get_instructions(code) if ins.opname not in (
        "RESUME", "NOP", "CACHE", "PRECALL", "PUSH_NULL", "COPY_FREE_VARS",
        "MAKE_CELL")]
    offsets = [ins.offset for ins in kept]
    ops = []
    for ins in kept:
        name = ins.opname
        arg = ins.argval
        if name == "LOAD_METHOD":
            name = "LOAD_ATTR"
        elif name in ("LOAD_GLOBAL", "LOAD_DEREF", "LOAD_NAME",
                      "LOAD_CLASSDEREF"):
            name = "LOAD_OUTER"
        elif ins.opcode in dis.hasjrel or ins.opcode in dis.hasjabs:
            arg = bisect.bisect_left(offsets, arg)
        ops.append((name, repr(arg)))
    return ops


def _same_code(node, code):
    """Whether the lambda (or def) of node compiles to code."""
    try:
        expr = ast.Expression(body=node if isinstance(node, ast.Lambda)
                              else ast.Lambda(args=node.args, body=node.body))
        compiled = compile(ast.fix_missing_locations(expr), "<x>", "eval")
    except (SyntaxError, TypeError, ValueError):
        return False
    inner = [c for c in compiled.co_consts if inspect.iscode(c)]
    # (the names are in the instructions: co_names differs by the names
    # a closure holds)
    return bool(inner) and (_instructions(inner[0]), inner[0].co_consts) == \
        (_instructions(code), code.co_consts)


class _Writer:
    def __init__(self, func, names, line_offset, defaults=None):
        self.func = func
        self.names = names
        # the arguments that take their default: numbers the function
        # closes over, which shadow its module's names
        self.defaults = defaults or {}
        self.line_offset = line_offset
        code = func.__code__
        self.closure = {}
        if func.__closure__:
            for name, cell in zip(code.co_freevars, func.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:
                    pass
        self.globals = func.__globals__
        self.filename = code.co_filename

    def fail(self, node, what):
        line = getattr(node, "lineno", 1) + self.line_offset
        raise TranslationError("%s:%d: %s" % (self.filename, line, what))

    def lookup(self, name):
        if name in self.defaults:
            return True, self.defaults[name]
        if name in self.closure:
            return True, self.closure[name]
        if name in self.globals:
            return True, self.globals[name]
        import builtins
        if hasattr(builtins, name):
            return True, getattr(builtins, name)
        return False, None

    def constant(self, node, value):
        if isinstance(value, (bool, np_bool())):
            return "true" if value else "false"
        if is_numpy_scalar(value):
            # A numpy scalar keeps its dtype (NEP 50, as numpy 2 and
            # numpy 1.24's weak promotion take it: float32 array *
            # np.float64(0.5) is float64), where a Python number is weak.
            name = value.dtype.name
            if name not in _DTYPE_NAMES:
                self.fail(node, "%r: the expression has no dtype %s" %
                          (value, name))
            return "%s(%s)" % (name, self.constant(node, value.item()))
        if isinstance(value, numbers.Integral):
            if not -2 ** 63 <= value <= 2 ** 64 - 1:
                digits = "%d" % value
                self.fail(node, "the integer %s is outside the 64-bit range "
                          "of the expression's integers (numpy raises "
                          "OverflowError for it too)" % (
                              digits if len(digits) <= 40 else
                              "%s... (%d digits)" % (digits[:20],
                                                     len(digits))))
            return "(%d)" % int(value) if value < 0 else "%d" % int(value)
        if isinstance(value, numbers.Real):
            v = float(value)
            if math.isnan(v):
                # the sign of a NaN is what copysign and signbit read
                return "(-np.nan)" if math.copysign(1.0, v) < 0 else "np.nan"
            if math.isinf(v):
                return "np.inf" if v > 0 else "(-np.inf)"
            text = repr(v)
            return "(%s)" % text if v < 0 else text
        if isinstance(value, numbers.Complex):
            return self.complex_constant(node, complex(value))
        self.fail(node, "%r is not a number the expression can hold" %
                  (value,))

    def complex_constant(self, node, value):
        """@value written so that the expression's literal arithmetic (which
        is Python's) gives it back with the sign of each part, zeros
        included: 're + ij' takes the real part's sign away from -0.0
        (-0.0 + 0.0 is 0.0) and 're - 0.0j' has the imaginary part +0.0
        (0.0 - 0.0), so those are written 'conj(re - ij)'. An infinite
        imaginary part is 1e999j, which Python reads as infj too; a NaN one
        has no such spelling."""
        re, im = value.real, value.imag
        if math.isnan(im):
            self.fail(node, "%r: a complex constant with a NaN imaginary "
                      "part cannot be written as a literal" % (value,))
        text_re = self.constant(node, re)
        mag = "1e999" if math.isinf(im) else repr(abs(im))
        neg_im = math.copysign(1.0, im) < 0
        neg_zero_re = re == 0 and math.copysign(1.0, re) < 0
        if neg_im and im != 0:
            # re - 0.0 is re, -0.0 included; 0.0 - |im| is im
            return "(%s - %sj)" % (text_re, mag)
        if im == 0 and neg_im:
            # conj of (re, 0.0 - 0.0): the imaginary part -0.0
            return "conj(%s - 0.0j)" % text_re
        if neg_zero_re:
            # -0.0 - 0.0 keeps the real part's sign, -0.0 + 0.0 does not
            return "(%s - 0.0j)" % text_re if im == 0 else \
                "conj(%s - %sj)" % (text_re, mag)
        return "(%s + %sj)" % (text_re, mag)

    def expr(self, node):
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp,
                             ast.Compare)):
            # Arithmetic of Python numbers only is Python's: True + True is
            # 2 (numpy's bool addition would give True), 2**64 - 1 fits
            # though 2**64 does not, (-8) ** (1/3) is complex.
            folded = self.python_number(node)
            if folded is not None:
                return self.constant(node, folded)
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            self.fail(node, "%s cannot be expressed (the expression language "
                      "has arithmetic, comparisons, conditionals and "
                      "function calls)" % type(node).__name__)
        return method(node)

    def number(self, node):
        """The Python number node stands for (a literal, a signed literal,
        a name holding a number or a call folded_call computes, such as
        float('inf')), or None."""
        if isinstance(node, ast.Call):
            return self.folded_call(node)
        if isinstance(node, ast.Constant) and isinstance(
                node.value, (int, float, complex)):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(
                node.op, (ast.USub, ast.UAdd)):
            v = self.number(node.operand)
            return None if v is None else -v if isinstance(
                node.op, ast.USub) else v
        if isinstance(node, ast.Name) and node.id not in self.names:
            found, value = self.lookup(node.id)
            if found and isinstance(value, numbers.Number):
                return value
        return None

    def python_number(self, node):
        """The value of node where it is arithmetic, comparisons and and/or
        of Python numbers only (literals, Python numbers the function closes
        over, math's and numpy's constants), computed as Python computes
        it; None where any part is something else (an argument, a numpy
        scalar, which keeps its dtype, a call). Where Python raises (1 / 0,
        10.0 ** 400), TranslationError: the function would raise too."""
        kinds = (bool, int, float, complex)
        if isinstance(node, ast.Constant):
            return node.value if type(node.value) in kinds else None
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return None
            found, v = self.lookup(node.id)
            return v if found and type(v) in kinds else None
        if isinstance(node, ast.Attribute):
            mod = self.module_attr(node)
            if mod is None and node.attr in ("real", "imag"):
                v = self.python_number(node.value)
                return None if v is None else getattr(v, node.attr)
            if not mod or mod[1] not in _CONSTANTS:
                return None
            v = getattr(self.lookup(node.value.id)[1], node.attr)
            return v if type(v) in kinds else None
        if isinstance(node, ast.UnaryOp):
            operands = [self.python_number(node.operand)]
            op = _PY_UNARYOPS[type(node.op)]
        elif isinstance(node, ast.BinOp):
            operands = [self.python_number(node.left),
                        self.python_number(node.right)]
            op = _PY_BINOPS.get(type(node.op))
            if op in (operator.pow, operator.lshift) and \
                    isinstance(operands[0], int) and \
                    isinstance(operands[1], int) and operands[1] > 4096:
                # an integer far beyond 64 bits: the language says so,
                # without computing it
                return None
        elif isinstance(node, (ast.BoolOp, ast.Compare)):
            parts = node.values if isinstance(node, ast.BoolOp) else \
                [node.left] + node.comparators
            if any(self.python_number(p) is None for p in parts):
                return None
            return self.value(node)
        else:
            return None
        if op is None or any(v is None for v in operands):
            return None
        try:
            return op(*operands)
        except (ArithmeticError, TypeError, ValueError) as e:
            self.fail(node, "%s raises %s: %s" % (
                ast.unparse(node), type(e).__name__, e))

    def value(self, node):
        """The Python value of node where it is made of numbers only
        (literals, numbers the function closes over or finds in its module,
        math's and numpy's constants), computed as Python computes it, or
        None: for anything else, and where Python raises (the expression
        language then computes it, or says why not)."""
        if isinstance(node, ast.Constant):
            v = node.value
            return v if isinstance(v, (int, float, complex)) else None
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return None
            found, v = self.lookup(node.id)
            return v if found and isinstance(
                v, (numbers.Number, np_bool())) else None
        if isinstance(node, ast.Attribute):
            mod = self.module_attr(node)
            return getattr(self.lookup(node.value.id)[1], node.attr) \
                if mod and mod[1] in _CONSTANTS else None
        if isinstance(node, ast.BoolOp):
            # as Python takes it: the first operand that decides, unread
            # operands after it
            for operand in node.values:
                v = self.value(operand)
                if v is None or bool(v) == isinstance(node.op, ast.Or):
                    break
            return v
        if isinstance(node, ast.IfExp):
            test = self.value(node.test)
            return None if test is None else self.value(
                node.body if test else node.orelse)
        if isinstance(node, ast.Call):
            return self.folded_call(node)
        if isinstance(node, ast.UnaryOp):
            operand = self.value(node.operand)
            return None if operand is None else self.python(
                _PY_UNARYOPS[type(node.op)], operand)
        if isinstance(node, ast.BinOp):
            op = _PY_BINOPS.get(type(node.op))
            left, right = self.value(node.left), self.value(node.right)
            if op is None or left is None or right is None or (
                    op in (operator.pow, operator.lshift) and
                    isinstance(right, int) and right > 4096):
                # (an integer far beyond 64 bits: the language says so)
                return None
            return self.python(op, left, right)
        if isinstance(node, ast.Compare):
            # Python chains comparisons: a < b < c is a < b and b < c
            left = self.value(node.left)
            result = True
            for op, right in zip(node.ops, node.comparators):
                right = self.value(right)
                if left is None or right is None or type(op) not in \
                        _PY_CMPOPS:
                    return None
                result = self.python(_PY_CMPOPS[type(op)], left, right)
                if result is None or not result:
                    break
                left = right
            return result
        return None

    def folded_call(self, node):
        """The value of a call of one of _FOLDED on numbers only, as Python
        computes it (round(k) of k = 2.7 is the int 3), of a cast float,
        int or bool of a number (a literal or a name holding one) and of
        float of a string (float('inf')), or None for any other call."""
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value,
                                                          ast.Name):
            found, owner = self.lookup(func.value.id)
            func = getattr(owner, func.attr, None) if found and \
                inspect.ismodule(owner) else None
        elif isinstance(func, ast.Name) and func.id not in self.names:
            func = self.lookup(func.id)[1]
        else:
            return None
        if node.keywords:
            return None
        if any(func is f for f in (float, int, bool)) and \
                len(node.args) == 1:
            arg = node.args[0]
            # float('inf'), float('nan'): Python's spellings of the float
            # constants, read as Python reads them
            args = [arg.value if func is float and isinstance(
                arg, ast.Constant) and isinstance(arg.value, str)
                else self.number(arg)]
        elif any(func is f for f in _FOLDED):
            args = [self.value(a) for a in node.args]
        else:
            return None
        if any(a is None for a in args):
            return None
        try:
            return func(*args)
        except (ArithmeticError, TypeError, ValueError) as e:
            self.fail(node, "%s(%s): %s" % (func.__name__, ", ".join(
                repr(a) for a in args), e))

    @staticmethod
    def python(op, *operands):
        """op(*operands), or None where Python raises."""
        try:
            return op(*operands)
        except (ArithmeticError, TypeError, ValueError):
            return None

    def visit_Constant(self, node):
        return self.constant(node, node.value)

    def visit_Name(self, node):
        if node.id in self.names:
            return self.names[node.id]
        found, value = self.lookup(node.id)
        if not found:
            self.fail(node, "unknown name '%s'" % node.id)
        if (isinstance(value, (numbers.Number, bool)) or
                is_numpy_scalar(value)) and not callable(value):
            return self.constant(node, value)
        self.fail(node, "'%s' is %s, not a number: a function may only "
                  "close over numbers" % (node.id,
                                          with_article(type(value).__name__)))

    def module_attr(self, node):
        """(module name, attribute) for np.sin, math.pi, numpy.float32."""
        if isinstance(node, ast.Attribute) and isinstance(node.value,
                                                          ast.Name):
            found, value = self.lookup(node.value.id)
            if found and inspect.ismodule(value):
                root = value.__name__.split(".")[0]
                if root in _MODULES:
                    return root, node.attr
                self.fail(node, "module '%s' has no functions the expression "
                          "knows" % value.__name__)
        return None

    def visit_Attribute(self, node):
        mod = self.module_attr(node)
        if mod and mod[1] in _CONSTANTS:
            return _CONSTANTS[mod[1]]
        if mod:
            self.fail(node, "%s.%s is not a constant the expression knows" %
                      mod)
        if node.attr in ("real", "imag"):
            # x.real and x.imag are numpy's np.real(x) and np.imag(x): of a
            # real array, the array itself and zeros of its dtype
            v = self.python_number(node.value)
            if v is not None:
                return self.constant(node, getattr(v, node.attr))
            return "%s(%s)" % (node.attr, self.expr(node.value))
        self.fail(node, "attributes cannot be expressed (but an array's "
                  ".real and .imag)")

    def method_call(self, node):
        """x.conj(), x.conjugate() and x.round(d) of an array, as numpy's
        np.conj(x) and np.round(x, d); None where node is no call of a
        method of a value (np.sin(x) is a function of a module)."""
        func = node.func
        if not isinstance(func, ast.Attribute) or \
                self.module_attr(func) is not None or \
                (isinstance(func.value, ast.Name) and
                 func.value.id not in self.names and
                 self.python_number(func.value) is None):
            return None
        if func.attr in ("conj", "conjugate"):
            if node.args or node.keywords:
                self.fail(node, "%s() takes no arguments" % func.attr)
            v = self.python_number(func.value)
            if v is not None:
                # a Python number's own method, as Python calls it (a
                # complex has conjugate(), not numpy's conj())
                method = getattr(v, func.attr, None)
                if method is None:
                    self.fail(node, "%s has no method %s(), which numpy's "
                              "arrays have" % (with_article(
                                  type(v).__name__), func.attr))
                return self.constant(node, method())
            return "conj(%s)" % self.expr(func.value)
        if func.attr == "round":
            return self.round_call(node, func.value, node.args,
                                   node.keywords, "decimals")
        return None

    def round_call(self, node, x, args, keywords, keyword):
        """np.round(x, decimals), x.round(decimals) and the built-in
        round(x, ndigits) of an array (ndarray.__round__, numpy's round):
        decimals=0 is plain rounding, halves to even, as round(x); other
        decimals depend on x's dtype in numpy, which the expression is
        written without."""
        given = list(args)
        for k in keywords:
            if k.arg != keyword or len(given) != 0:
                self.fail(node, _keywords_refused(keywords))
            given.append(k.value)
        if len(given) > 1:
            self.fail(node, "round() takes x and the number of decimals, "
                      "but %d arguments were given%s" % (
                          len(given) + 1, "; numpy's third argument is "
                          "out=, which has no place here: the map's output "
                          "is the node's result" if len(given) == 2 else ""))
        if not given:
            return "round(%s)" % self.expr(x)
        d = self.value(given[0])
        np = _numpy()
        if isinstance(d, bool) or not (isinstance(d, int) or (
                np is not None and isinstance(d, np.integer))):
            self.fail(node, "round(): the number of decimals must be an "
                      "integer known when the function is translated (a "
                      "literal or a number it closes over), not %s" %
                      ast.unparse(given[0]))
        d = int(d)
        if d == 0:
            return "round(%s)" % self.expr(x)
        f = "1e%d" % abs(d)
        self.fail(node, "round() to %d decimals: numpy computes it for a "
                  "float x as rint(x %s %s) %s %s in x's dtype, but returns "
                  "an integer x %s, and the expression is written without "
                  "knowing x's dtype; for a float x write that: "
                  "np.rint(x %s %s) %s %s" % (
                      d, "*" if d > 0 else "/", f, "/" if d > 0 else "*", f,
                      "as it is" if d > 0 else "rounded in float64 and cast "
                      "back", "*" if d > 0 else "/", f,
                      "/" if d > 0 else "*", f))

    def visit_BinOp(self, node):
        op = _BINOPS.get(type(node.op))
        if op is None:
            self.fail(node, "the operator %s cannot be expressed" %
                      type(node.op).__name__)
        return "(%s %s %s)" % (self.expr(node.left), op, self.expr(node.right))

    def visit_UnaryOp(self, node):
        op = _UNARYOPS[type(node.op)]
        return "(%s%s)" % (op, self.expr(node.operand))

    def visit_BoolOp(self, node):
        is_and = isinstance(node.op, ast.And)
        values = list(node.values)
        # Leading Python numbers are Python's to decide, as Python does: k
        # and x is k where k is false, else x itself (not a bool); k or x
        # is k where k is true, else x.
        while len(values) > 1:
            v = self.python_number(values[0])
            if v is None:
                break
            if bool(v) != is_and:
                return self.constant(values[0], v)
            values.pop(0)
        if len(values) == 1:
            return self.expr(values[0])
        op = " and " if is_and else " or "
        return "(%s)" % op.join(self.expr(v) for v in values)

    def visit_Compare(self, node):
        parts = []
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            sym = _CMPOPS.get(type(op))
            if sym is None:
                self.fail(node, "the comparison %s cannot be expressed" %
                          type(op).__name__)
            parts.append("(%s %s %s)" % (self.expr(left), sym,
                                         self.expr(right)))
            left = right
        # Python chains comparisons: a < b < c is a < b and b < c.
        return parts[0] if len(parts) == 1 else "(%s)" % " and ".join(parts)

    def visit_IfExp(self, node):
        test = self.value(node.test)
        if test is not None:
            # A test of numbers only is Python's to decide, and the branch
            # it takes is the value, as Python takes it: lo if c else hi,
            # of Python numbers, is a weak number, not a promotion of both.
            return self.expr(node.body if test else node.orelse)
        return "(%s ? %s : %s)" % (self.expr(node.test), self.expr(node.body),
                                   self.expr(node.orelse))

    def visit_Call(self, node):
        method = self.method_call(node)
        if method is not None:
            return method
        rounded = self.numpy_round(node)
        if rounded is not None:
            return rounded
        if node.keywords:
            self.fail(node, _keywords_refused(node.keywords))
        astype = self.astype(node)
        if astype is not None:
            return astype
        folded = self.folded_call(node)
        if folded is not None:
            # an int (round(2.7) is 3), weak as the Python number it is
            return self.constant(node, folded)
        mod = self.module_attr(node.func)
        module = None
        if mod:
            module, name = mod
        elif isinstance(node.func, ast.Name) and node.func.id not in \
                self.names:
            found, value = self.lookup(node.func.id)
            name = node.func.id
            if found and inspect.ismodule(value):
                self.fail(node, "a module cannot be called")
            if found and getattr(value, "__module__", None) in (
                    "math", "numpy", "cmath") and hasattr(value, "__name__"):
                name = value.__name__   # from math import sin
                module = value.__module__
            elif name in _BUILTIN_CASTS:
                name = _BUILTIN_CASTS[name]
        else:
            self.fail(node, "only functions of math, numpy and the built-ins "
                      "abs/min/max/round/pow can be called")
        name = _function_name(module, name, len(node.args),
                              lambda what: self.fail(node, what))
        if name == "clip" and len(node.args) == 3:
            return self.clip(node)
        return _call_text(module, name, [self.expr(a) for a in node.args])

    def numpy_round(self, node):
        """np.round(x, d), np.around, np.round_ and the built-in
        round(x, d) of an array, through round_call(); None for any other
        call, and for the built-in round of numbers only, which Python
        computes (folded_call())."""
        mod = self.module_attr(node.func)
        if mod is not None:
            if mod[0] != "numpy" or mod[1] not in ("round", "around",
                                                   "round_"):
                return None
            keyword = "decimals"
        elif isinstance(node.func, ast.Name) and \
                node.func.id not in self.names:
            found, value = self.lookup(node.func.id)
            np = _numpy()
            if found and value is round:
                keyword = "ndigits"
            elif found and np is not None and any(
                    value is getattr(np, n, None)
                    for n in ("round", "around", "round_")):
                keyword = "decimals"
            else:
                return None
            if keyword == "ndigits" and self.folded_call(node) is not None:
                return None
        else:
            return None
        if not node.args:
            return None
        if keyword == "ndigits" and len(node.args) == 1 and \
                not node.keywords:
            return None     # round(x): the function table's round
        return self.round_call(node, node.args[0], node.args[1:],
                               node.keywords, keyword)

    def is_none(self, node):
        if isinstance(node, ast.Constant):
            return node.value is None
        return isinstance(node, ast.Name) and node.id not in self.names and \
            self.lookup(node.id) == (True, None)

    def clip(self, node):
        """np.clip(x, lo, hi), where numpy takes None for a bound that is
        not there: np.clip(x, None, hi) is minimum(x, hi), as numpy
        computes it (a NaN stays NaN)."""
        x, lo, hi = node.args
        if self.is_none(lo) and self.is_none(hi):
            self.fail(node, "clip(x, None, None) has no bound: give a lower "
                      "or an upper one (numpy 1.24 raises 'One of max or "
                      "min must be given')")
        if self.is_none(lo):
            return "minimum(%s, %s)" % (self.expr(x), self.expr(hi))
        if self.is_none(hi):
            return "maximum(%s, %s)" % (self.expr(x), self.expr(lo))
        return "clip(%s, %s, %s)" % (self.expr(x), self.expr(lo),
                                     self.expr(hi))

    def astype(self, node):
        """x.astype(np.int16) as the cast int16(x), or None where node is
        no call of a method astype; numpy's astype casts unsafely, as the
        language's casts do (see its Differences for NaN and values out of
        range)."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "astype") \
                or self.module_attr(func) is not None:
            return None
        if len(node.args) != 1:
            self.fail(node, "astype() takes one argument here, the dtype "
                      "(x.astype(np.int16)), but %d were given" %
                      len(node.args))
        dtype = self.dtype_of(node.args[0])
        if dtype is None:
            self.fail(node, "astype(%s): the dtype must be written as "
                      "np.int16, 'int16', np.dtype('int16') or float, int "
                      "or bool" % ast.unparse(node.args[0]))
        return "%s(%s)" % (dtype, self.expr(func.value))

    def dtype_of(self, node):
        """The language's dtype name for a dtype written in the source
        (np.float32, 'float32', np.dtype('float32'), a name holding one,
        float), or None."""
        np = _numpy()
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            value = node.value
        elif isinstance(node, ast.Name) and node.id not in self.names:
            found, value = self.lookup(node.id)
            if not found:
                return None
        elif isinstance(node, ast.Attribute) and self.module_attr(node):
            value = getattr(self.lookup(node.value.id)[1], node.attr, None)
        elif isinstance(node, ast.Call) and len(node.args) == 1 and \
                not node.keywords and self.module_attr(node.func) == (
                    "numpy", "dtype"):
            return self.dtype_of(node.args[0])
        else:
            return None
        if value in (float, int, bool):
            return _BUILTIN_CASTS[value.__name__]
        if np is None:
            return None
        try:
            name = np.dtype(value).name
        except TypeError:
            return None
        return name if name in _DTYPE_NAMES | {"bool"} else None


def _function_name(module, name, n_args, fail):
    """The language's name for the function `name` of `module` (numpy,
    math, cmath or None for a built-in) called with n_args arguments;
    fail(message) raises for one it does not have, or has with another
    meaning."""
    if module == "numpy" and name in _NUMPY_REDUCTIONS:
        fail("numpy.%s is a reduction over an axis (np.max(x, "
             "0) is the largest value along axis 0), not elementwise: "
             "write np.%s(x, y) for the %s of two values, or "
             "plan.reduce() to reduce" % (
                 name, _NUMPY_REDUCTIONS[name],
                 "smaller" if "min" in name else "larger"))
    if module == "math" and name == "remainder":
        fail("math.remainder is IEEE 754's remainder (the "
             "quotient rounded to nearest), which the expression "
             "language does not have; x % y is Python's and numpy's "
             "remainder, math.fmod(x, y) C's")
    written = name
    name = _RENAMES.get(name, _numpy_dtype_name(name) if module == "numpy"
                        else name)
    if name not in _FUNCTIONS:
        fail("the function '%s' has no equivalent in the "
             "expression language" % name)
    if module == "numpy" and name != "round":
        np = _numpy()
        ufunc = getattr(np, written, None) if np is not None else None
        if isinstance(ufunc, np.ufunc) and \
                ufunc.nin < n_args <= ufunc.nin + ufunc.nout:
            fail("np.%s takes %d input%s; numpy reads the argument after "
                 "%s as out=, the array the result is written into, not "
                 "as another operand (%s), and out= has no place here: the "
                 "map's output is the node's result" % (
                     written, ufunc.nin, "" if ufunc.nin == 1 else "s",
                     "it" if ufunc.nin == 1 else "them",
                     "np.%s(a, b, c) is not the %s of three values: write "
                     "np.%s(np.%s(a, b), c)" % (
                         written, "largest" if name == "maximum" else
                         "smallest", written, written)
                     if name in ("maximum", "minimum") else
                     "np.%s(%s) writes into %s" % (
                         written, ", ".join("abcd"[:ufunc.nin + 1]),
                         "abcd"[ufunc.nin]) if ufunc.nin < 4 else
                     "np.%s(...) writes into its last argument" % written))
    if name == "round" and n_args != 1:
        fail("round() takes the number of decimals here only as a literal "
             "0 (np.round(x, 0)) or a number known when the function is "
             "translated")
    if module is None and name in ("min", "max") and n_args < 2:
        fail("%s() of %s is Python's %s of an iterable, which has no "
             "elementwise meaning here: give it two or more values, "
             "%s(x, y, z)" % (name, "one argument" if n_args else "nothing",
                              "largest" if name == "max" else "smallest",
                              name))
    if module is None and name in ("min", "max"):
        return name
    if module is None and name == "pow" and n_args == 3:
        fail("pow() with a modulus, pow(x, y, m), cannot be expressed "
             "(numpy has no such power): write pow(x, y) % m")
    if module in ("math", "cmath") and name == "log" and n_args == 2:
        return name     # log(x, base)
    want = 3 if name in _THREE_ARGS else 2 if name in _TWO_ARGS else 1
    if n_args != want:
        fail("%s() takes %d argument%s, %d given" % (
             written, want, "" if want == 1 else "s", n_args))
    return name


def _numpy_dtype_name(name):
    """numpy's dtype name for one of its other names of a scalar type
    (np.double is float64, np.bool_ bool), as np.dtype(np.double) gives
    it; any other name unchanged."""
    np = _numpy()
    value = getattr(np, name, None) if np is not None else None
    if isinstance(value, type) and issubclass(value, np.generic):
        dtype = np.dtype(value).name
        if dtype in _DTYPE_NAMES | {"bool"}:
            return dtype
    return name


# What to write instead of a ufunc's keyword arguments, which the language
# has no place for.
_KEYWORDS = {
    "dtype": "cast the operands (np.add(np.float32(x), np.float32(y))) or "
             "give the map dtype= for its result",
    "where": "write np.where(cond, f(x), other)",
    "out": "the map's output is the node's result",
    "casting": "write the casts",
}


def _keywords_refused(keywords):
    """The message refusing a call's keyword arguments, naming them."""
    names = [k.arg for k in keywords if k.arg is not None]
    hints = ["for %s=, %s" % (n, _KEYWORDS[n]) for n in names
             if n in _KEYWORDS]
    return "keyword arguments cannot be expressed (%s): give every argument " \
        "by position%s" % (", ".join("%s=" % n for n in names) or "**",
                           "; " + "; ".join(hints) if hints else "")


def _call_text(module, name, args):
    """The call of the language's function name (of module, as
    _function_name gives it) on the expressions args."""
    if module in ("math", "cmath") and name == "log" and len(args) == 2:
        # math.log(x, base) is log(x) / log(base), as Python computes it
        return "(%s / %s)" % (_call_text(module, name, args[:1]),
                              _call_text(module, name, args[1:]))
    if module is None and name in ("min", "max") and len(args) > 2:
        # the built-in of several values, elementwise: max(x, y, z) is
        # max(max(x, y), z), each pair as the built-in of two
        return _call_text(module, name,
                          [_call_text(module, name, args[:-1]), args[-1]])
    if module == "cmath" and name in _CMATH_COMPLEX:
        args = ["complex128(%s)" % a for a in args]
    elif module == "math" and name in _MATH_FLOAT64:
        args = ["float64(%s)" % a for a in args]
    return "%s(%s)" % (name, ", ".join(args))


def is_library_function(func):
    """Whether func is a function of numpy, math or cmath (np.sqrt,
    np.clip, math.exp), a built-in function or a cast: translate_call()'s,
    not read from its source."""
    if not hasattr(func, "__code__"):
        return True
    module = getattr(func, "__module__", None) or ""
    return module.split(".")[0] in _MODULES


# The reductions of ufuncs that are built-in ops of plan.reduce:
# np.maximum.reduce is 'max'.
UFUNC_REDUCE_OPS = {"add": "sum", "multiply": "prod", "maximum": "max",
                    "minimum": "min", "logical_or": "any",
                    "logical_and": "all"}


def translate_call(func, args):
    """The expression calling func, a function without Python code (a
    numpy ufunc such as np.sqrt or np.add, a function of math or cmath, a
    built-in abs/min/max/round/pow, a cast float/int/bool or a numpy
    scalar type such as np.float32), on the expressions args in order.
    TypeError for any other callable or the wrong number of arguments,
    TranslationError for a function the language does not have."""
    np = _numpy()
    described = getattr(func, "__name__", None) or repr(func)

    def fail(what):
        raise TranslationError("%s: %s" % (described, what))
    owner = getattr(func, "__self__", None)
    if np is not None and isinstance(owner, np.ufunc):
        raise TypeError(
            "numpy.%s.%s is a method of the ufunc over whole arrays, not "
            "elementwise: give numpy.%s itself, called on the arguments in "
            "order%s" % (owner.__name__, func.__name__, owner.__name__,
                         " (plan.reduce takes numpy.%s.reduce as its op)" %
                         owner.__name__ if func.__name__ == "reduce" and
                         owner.__name__ in UFUNC_REDUCE_OPS else ""))
    if np is not None and isinstance(func, np.ufunc):
        if func.nin != len(args):
            raise TypeError("numpy.%s takes %d argument%s but %d were given" %
                            (func.__name__, func.nin,
                             "" if func.nin == 1 else "s", len(args)))
        module, name = "numpy", func.__name__
    elif func in (float, int, bool):
        module, name = None, _BUILTIN_CASTS[func.__name__]
    elif np is not None and isinstance(func, type) and \
            issubclass(func, np.generic) and \
            np.dtype(func).name in _DTYPE_NAMES | {"bool"}:
        module, name = "numpy", np.dtype(func).name
    elif is_library_function(func) and hasattr(func, "__name__") and \
            func.__module__.split(".")[0] == "numpy":
        # numpy's functions written in Python: np.clip, np.where, np.max
        module, name = "numpy", func.__name__
    elif inspect.isbuiltin(func) and getattr(func, "__module__", None) in (
            "math", "cmath", "builtins"):
        module = None if func.__module__ == "builtins" else func.__module__
        name = func.__name__
        if module is None and name not in ("abs", "min", "max", "round",
                                           "pow"):
            fail("only the built-ins abs, min, max, round and pow (and the "
                 "casts float, int and bool) can be called")
    else:
        raise TypeError(
            "%r is neither an expression string, a lambda or a def, nor a "
            "numpy ufunc (np.sqrt, np.add) or a function of math" % (func,))
    if name in _DTYPE_NAMES | {"bool"} and len(args) != 1:
        raise TypeError("%s() takes one argument but %d were given" %
                        (described, len(args)))
    name = _function_name(module, name, len(args), fail)
    return _call_text(module, name, args)


def parameters(func, what):
    """func's parameters, in order, and a dict of the values of those that
    have a default. A translated function is called with one input per
    parameter, by position: *args, **kwargs and keyword-only parameters
    cannot be bound, and are a TypeError that begins with what."""
    params = []
    defaults = {}
    for p in inspect.signature(func).parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            params.append(p.name)
            if p.default is not p.empty:
                defaults[p.name] = p.default
            continue
        written = {p.VAR_POSITIONAL: "parameter *%s",
                   p.VAR_KEYWORD: "parameter **%s",
                   p.KEYWORD_ONLY: "keyword-only parameter %s"}[p.kind]
        raise TypeError(
            "%s: the function's %s cannot be bound: its arguments are given "
            "by position, one per input (a stencil's: per cell of the "
            "window, a reduction's combiner: x and y); name each one, as "
            "in lambda x, y: ..." % (what, written % p.name))
    return params, defaults


def translate(func, names=None):
    """The expression for the body of func.

    names maps the function's argument names to the names the expression
    uses for them (by default each argument keeps its name); an argument
    not in names stands for its default value, read now, as a number the
    function closes over (lambda x, k=k: x * k), folded as one (round(k)
    of k=2.7 is the weak int 3)."""
    if isinstance(func, str):
        return func
    if not callable(func) or not hasattr(func, "__code__"):
        raise TranslationError("%r is neither an expression string nor a "
                               "Python function" % (func,))
    params, defaults = parameters(func, _where(func))
    node, offset = _function_node(func)
    if isinstance(node, ast.Lambda):
        body = node.body
    else:
        stmts = [s for s in node.body if not (isinstance(s, ast.Expr) and
                 isinstance(getattr(s, "value", None), ast.Constant))]
        if len(stmts) != 1 or not isinstance(stmts[0], ast.Return) or \
                stmts[0].value is None:
            raise TranslationError(
                "%s: only a function whose body is one 'return EXPR' can be "
                "translated" % _where(func))
        body = stmts[0].value
    names = {a: a for a in params} if names is None else dict(names)
    taken = {p: defaults.get(p) for p in params if p not in names}
    writer = _Writer(func, names, offset, taken)
    for p, value in taken.items():
        if p not in defaults:
            raise TranslationError("%s: the argument '%s' is bound to no "
                                   "input" % (_where(func), p))
        if not (isinstance(value, numbers.Number) or
                is_numpy_scalar(value)):
            writer.fail(node, "the argument '%s' takes its default, %s, "
                        "which is not a number" % (p, _short(value)))
    text = writer.expr(body)
    if text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        text = text[1:-1]
    return text


def _short(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _balanced(text):
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0
