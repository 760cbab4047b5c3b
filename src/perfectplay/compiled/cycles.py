"""The processor's cycle counter, read from compiled code (numba has no clock).

A compiled loop over many layers (:func:`perfectplay.compiled.layered.solve_layers`)
records when each layer's table was built and solved in cycles; the caller turns them
into seconds by the wall time of the whole call. LLVM's ``readcyclecounter``: the time
stamp counter on x86 (a constant rate), 0 where the target has none, so that a caller
sees that it cannot split the time.

>>> import numpy as np
>>> from numba import njit
>>> @njit
... def ticks():
...     a = cycles()
...     return cycles() - a
>>> ticks() >= 0
True
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["cycles"]

_cg: Any = cgutils  # untyped


def _cycles_typed(typingctx: Any) -> Any:
    """LLVM's ``readcyclecounter``, as an ``int64``."""
    sig = types.int64()

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = _cg.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(fn, [])

    return sig, codegen


cycles: Any = intrinsic(_cycles_typed)
