"""Compiled models: games of 10^8 positions written in a page of Python.

:class:`CompiledModel` declares a game by numba-compiled functions over ``int64``
states; :func:`solve_compiled` explores it in compiled code and solves it layer by
layer with certified bounds; :class:`CompiledSolution` is its result (the same surface
as every solved game) and :func:`load_compiled` reads its table back. See
``docs/models.md``, "Big games".
"""

from __future__ import annotations

from perfectplay.compiled.model import CompiledModel, is_compiled_model
from perfectplay.compiled.solution import CompiledSolution, load_compiled
from perfectplay.compiled.solve import solve_compiled

__all__ = [
    "CompiledModel",
    "CompiledSolution",
    "is_compiled_model",
    "load_compiled",
    "solve_compiled",
]
