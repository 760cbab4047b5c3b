"""A hint to the processor: fetch an array's item into the caches now, without waiting.

Big layers are far larger than the caches, and both the explorer's hash sets and the
sweeps read them at places that follow no pattern the hardware can guess, so nearly
every such read waits on memory. Asking for the items a little ahead of their use
(the hash slots of a batch of successors; the bounds the next few positions' moves
name) lets those waits overlap each other and the work in between. numba has no
prefetch of its own: :func:`prefetch_item` is LLVM's, as a numba intrinsic.

>>> import numpy as np
>>> from numba import njit
>>> @njit
... def first_after_hint(a):
...     prefetch_item(a, 2)   # changes nothing, returns nothing
...     return a[2]
>>> int(first_after_hint(np.arange(4)))
2
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["prefetch_item"]

_cg: Any = cgutils  # untyped


def _prefetch_typed(typingctx: Any, arr: Any, index: Any) -> Any:
    """LLVM's ``prefetch`` of ``arr[index]`` (read, keep in all cache levels)."""
    if not isinstance(arr, types.Array) or not isinstance(index, types.Integer):
        return None
    sig = types.void(arr, index)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = _cg.get_item_pointer(context, builder, aryty, ary, [args[1]])
        byte_ptr = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32])
        fn = _cg.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        # rw = 0 (read), locality = 3 (keep), cache type = 1 (data)
        builder.call(fn, [builder.bitcast(ptr, byte_ptr), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


prefetch_item: Any = intrinsic(_prefetch_typed)
