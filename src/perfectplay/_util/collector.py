"""Python's cyclic garbage collector around the few heavy imports a command pays for.

Importing numba and loading its first cached kernel create some 100,000 long-lived
objects (modules, types, registries). While they are created the collector keeps scanning
them, each full pass longer than the last, and a process that holds them pays again at
every later full pass and once more while the interpreter shuts down: on a
``perfectplay`` command that loads one kernel this is about a third of its CPU time.
Imports make almost no garbage, so :func:`heavy_imports` pauses the collector for the
block; in a process that asked for it (:func:`freeze_heavy_imports`, which the
``perfectplay`` command calls) it then moves every object alive into the permanent
generation (:func:`gc.freeze`), which later passes and the shutdown skip.

Freezing is a process-wide decision: a cycle alive at that moment and dropped later is
never collected. A command's process holds nothing but its own modules then; a program
that imports the library keeps the collector as it is unless it asks.

>>> import gc
>>> with heavy_imports():
...     gc.isenabled()
False
>>> gc.isenabled()
True
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["freeze_heavy_imports", "heavy_imports"]

_freeze = [False]


def freeze_heavy_imports(on: bool = True) -> None:
    """Let :func:`heavy_imports` freeze what the process holds after each heavy import (a
    process that is one command; see the module docstring).

    >>> freeze_heavy_imports(False)
    """
    _freeze[0] = on


@contextmanager
def heavy_imports() -> Iterator[None]:
    """Run a block of imports with the cyclic collector paused, then (if the process
    asked, :func:`freeze_heavy_imports`) freeze every object alive; the collector is
    enabled again afterwards if it was before."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if _freeze[0]:
            gc.freeze()
        if was_enabled:
            gc.enable()
