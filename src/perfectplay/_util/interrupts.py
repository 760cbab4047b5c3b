"""Signals held while compiled code runs.

A numba kernel calls back into Python now and then (numba unpickles a constant there),
and an exception that a signal handler raises inside such a call is an error numba's
compiled code does not expect: Ctrl-C during a compiled model's exploring crashed the
process (SIGSEGV) instead of stopping it. :func:`deferred_interrupt` holds Ctrl-C, and
the handlers marked :func:`deferrable`, while a kernel runs and calls them when it
returns.

>>> import os, signal
>>> try:
...     with deferred_interrupt():
...         os.kill(os.getpid(), signal.SIGINT)
...         held = "still running"
... except KeyboardInterrupt:
...     print(held, "then interrupted")
still running then interrupted
"""

from __future__ import annotations

import contextlib
import importlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

__all__ = ["deferrable", "deferred_interrupt"]

Handler = TypeVar("Handler", bound=Callable[[int, Any], Any])

# The functions of signal without its enums: signal.signal and signal.getsignal turn a
# handler that is a function into an enum member by trying and failing (an exception
# each time), 50 to 70 microseconds a block, and a solve calls kernels hundreds of times
# (Pig 100: 1,200 blocks, 60 ms of a solve whose kernels take 150 ms). CPython's _signal
# takes and returns the same handlers, without the enums: 10 microseconds a block.
try:
    _raw: Any = importlib.import_module("_signal")
except ImportError:  # another Python: the public module
    _raw = signal
_HELD = (int(signal.SIGINT), int(signal.SIGTERM))


def deferrable(handler: Handler) -> Handler:
    """Mark a signal handler (one that raises to stop the program) as one that
    :func:`deferred_interrupt` may hold until compiled code returns.

    >>> @deferrable
    ... def stop(signum, frame):
    ...     raise SystemExit(143)
    >>> stop.deferrable
    True
    """
    handler.deferrable = True  # type: ignore[attr-defined]
    return handler


@contextlib.contextmanager
def deferred_interrupt() -> Iterator[None]:
    """SIGINT (Python's own handler) and SIGINT or SIGTERM handled by a
    :func:`deferrable` handler, arriving inside the block, are handled when it ends. Only
    in the main thread, where handlers run; other handlers are left alone."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    hit: list[int] = []
    held: dict[int, Callable[[int, Any], Any]] = {}
    for sig in _HELD:
        handler = _raw.getsignal(sig)
        if callable(handler) and (
            handler is signal.default_int_handler or getattr(handler, "deferrable", False)
        ):
            held[sig] = handler
            _raw.signal(sig, lambda signum, frame: hit.append(signum))
    try:
        yield
    finally:
        for number, before in held.items():
            _raw.signal(number, before)
        if hit:
            held[hit[0]](hit[0], None)  # raises KeyboardInterrupt, or the handler's own
