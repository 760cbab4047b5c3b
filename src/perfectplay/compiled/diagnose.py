"""A compiled model's mistakes that numba finds, as one line naming the function.

The kernels compile the model's functions into themselves on their first call, so a
mistake in one of them (a name misspelt, a function that returns a tuple) surfaces as
numba's error about the *kernel*: dozens of lines about generated code the user never
wrote. :class:`Guarded` wraps a kernel; when numba refuses it, each of the model's own
functions is compiled alone with the types the kernels give it, and the first one that
fails (or returns the wrong kind of value) is named, with numba's own first line about
it. Nothing of this runs unless something failed: a model that compiles pays nothing.

>>> from perfectplay.compiled import njit
>>> @njit(cache=False)
... def start(p):
...     return (0, 0)
>>> print(explain(("start",), (start,)))
start (start in ...): returns UniTuple(... x 2), where an integer is needed
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from perfectplay._util.interrupts import deferred_interrupt
from perfectplay.errors import ModelError

__all__ = ["Guarded", "StartGuarded", "explain"]

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _signatures() -> dict[str, tuple[Any, ...]]:
    # The types the kernels call each function with (the template's buffers are int64,
    # ``p`` a contiguous int64 array, states and outcome numbers int64).
    from numba import types

    arr = types.int64[::1]
    i = types.int64
    return {
        "start": (arr,),
        "outcome": (i, arr),
        "rolls": (i, arr, arr),
        "moves": (i, i, arr, arr, arr),
        "layer": (i, arr),
        "index": (i, arr),
        "layer_size": (i, arr),
    }


def _where(fn: Any) -> str:
    py = getattr(fn, "py_func", fn)
    code = getattr(py, "__code__", None)
    if code is None:
        return getattr(py, "__name__", "?")
    return f"{py.__name__} in {code.co_filename}:{code.co_firstlineno}"


def _first_line(exc: BaseException) -> str:
    """numba's message without colours, the pipeline's headings and its traces."""
    for line in _ANSI.sub("", str(exc)).splitlines():
        text = line.strip()
        if not text or text.startswith(("Failed in ", "During:", "File ", "<source")):
            continue
        return text
    return type(exc).__name__


def explain(names: Sequence[str], fns: Sequence[Any]) -> str | None:
    """The first of the model's functions ``fns`` (called ``names``) that does not
    compile alone, or returns the wrong kind of value, and why; ``None`` when all do."""
    from numba import types
    from numba.core.errors import NumbaError

    sigs = _signatures()
    for name, fn in zip(names, fns, strict=True):
        if name not in sigs or not hasattr(fn, "compile"):
            continue
        if getattr(fn, "__module__", "") == "perfectplay.compiled.defaults":
            continue  # a default of ours
        try:
            fn.compile(sigs[name])
        except NumbaError as exc:
            return f"{name} ({_where(fn)}) does not compile: {_first_line(exc)}"
        ret = fn.overloads[sigs[name]].signature.return_type
        wanted: tuple[type, ...] = (types.Integer, types.Boolean)
        kind = "an integer"
        if name == "outcome":
            wanted = (types.Integer, types.Float, types.Boolean)
            kind = "a number"
        if not isinstance(ret, wanted):
            return f"{name} ({_where(fn)}): returns {ret}, where {kind} is needed"
    return None


class Guarded:
    """A kernel whose numba errors name the model's function at fault, in one line."""

    __slots__ = ("_fn", "_names", "_fns")

    def __init__(self, fn: Any, names: Sequence[str], fns: Sequence[Any]) -> None:
        self._fn = fn
        self._names = tuple(names)
        self._fns = tuple(fns)

    def __call__(self, *args: Any) -> Any:
        from numba.core.errors import NumbaError

        try:
            with deferred_interrupt():
                return self._fn(*args)
        except NumbaError as exc:
            why = explain(self._names, self._fns)
            raise ModelError(why or f"the model does not compile: {_first_line(exc)}") from None
        except IndexError as exc:  # only with NUMBA_BOUNDSCHECK=1: a model wrote off a buffer
            raise ModelError(
                f"a compiled function indexed outside an array ({exc}): a model function "
                "that writes past the buffers it is given (weights, nexts, flips)?"
            ) from None
        except MemoryError:
            raise
        except Exception as exc:
            # The kernels raise nothing of their own: this is a model function's
            # ``raise`` (or numba's ZeroDivisionError), which compiled code reports
            # without the position it was called with; raised on one of the threads of
            # a parallel kernel, it comes as a SystemError caused by it.
            cause: BaseException = exc
            if isinstance(exc, SystemError) and exc.__cause__ is not None:
                cause = exc.__cause__
                if isinstance(cause, MemoryError):
                    raise cause from None
            text = f"{type(cause).__name__}: {cause}" if str(cause) else type(cause).__name__
            raise ModelError(
                f"a model function raised {text} (compiled code does not say at which "
                "position: call the functions from Python to find it)"
            ) from None

    def __getattr__(self, name: str) -> Any:  # py_func, signatures, ... of the kernel
        return getattr(self._fn, name)


class StartGuarded(Guarded):
    """The start kernel: numba compiles a ``start`` that returns a tuple, so its value is
    checked too."""

    __slots__ = ()

    def __call__(self, *args: Any) -> Any:
        import numpy as np

        state = super().__call__(*args)
        if not isinstance(state, (int, np.integer)) or isinstance(state, bool):
            why = explain(self._names, self._fns)
            raise ModelError(why or f"start returns {state!r}, where an integer state is needed")
        if state == -(2**63):
            raise ModelError("start returns -2**63, the one int64 no position may be")
        return state
