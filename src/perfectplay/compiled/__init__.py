"""Compiled models: games of 10^8 positions written in a page of Python.

:class:`CompiledModel` declares a game by numba-compiled functions over ``int64``
states; :func:`solve_compiled` explores it in compiled code and solves it layer by
layer with certified bounds; :class:`CompiledSolution` is its result (the same surface
as every solved game) and :func:`load_compiled` reads its table back. See
``docs/models.md``, "Big games". :func:`njit` is numba's, numba imported as below.
"""

from __future__ import annotations

from perfectplay._util.jit import _import_numba

# The modules below import numba: it is made ready first, as for every other kernel of
# perfectplay (without SciPy behind it, the collector paused, and no AVX-512 code, which
# LLVM miscompiles), which works only before anything else imports numba.
_import_numba()

from perfectplay.compiled.kernels import njit  # noqa: E402
from perfectplay.compiled.model import CompiledModel, is_compiled_model  # noqa: E402
from perfectplay.compiled.solution import CompiledSolution, load_compiled  # noqa: E402
from perfectplay.compiled.solve import solve_compiled  # noqa: E402

__all__ = [
    "CompiledModel",
    "CompiledSolution",
    "is_compiled_model",
    "load_compiled",
    "njit",
    "solve_compiled",
]
