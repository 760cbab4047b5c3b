"""The explorer's hash sets: open addressing on ``int64`` arrays, with prefetching.

A set is an ``int64`` array whose length is a power of two, :data:`EMPTY` in its free
slots (so the state -2**63 cannot be stored); a key's probe starts at its
:func:`home` slot (a multiplicative hash) and goes on linearly. Callers keep a set at
most half full (:func:`rehash` doubles it).

Why prefetching: a layer of a big game has millions of positions, so its set is far
larger than the processor's caches and nearly every probe waits on memory, while the
model's functions that make the next keys are cheap. The explorer makes the successors
of a few positions, asks for all their home slots (:func:`prefetch`, a hint that never
blocks) and only then adds them, so that the waits overlap each other and the work.

>>> import numpy as np
>>> s = new_set(3)
>>> [set_add(s, k) for k in (5, 9, 5)], len(s)
([True, True, False], 16)
>>> prefetch(s, 7)
>>> sorted(int(k) for k in rehash(s) if k != EMPTY)
[5, 9]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["EMPTY", "home", "new_set", "prefetch", "rehash", "set_add"]

EMPTY = np.iinfo(np.int64).min
_cg: Any = cgutils  # untyped
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _prefetch_typed(typingctx: Any, arr: Any, index: Any) -> Any:
    """LLVM's ``prefetch`` of ``arr[index]`` (read, keep in all cache levels), as a
    numba intrinsic (numba has no prefetch of its own)."""
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


_prefetch_item: Any = intrinsic(_prefetch_typed)


@njit(cache=True)
def new_set(size: int) -> Any:
    """An empty set with room for at least ``size`` keys at half load."""
    cap = 16
    while cap < 2 * size:
        cap *= 2
    return np.full(cap, EMPTY, np.int64)


@njit(cache=True)
def home(table: Any, key: int) -> Any:
    """The slot where the probe for ``key`` starts."""
    x = np.uint64(key) * _GOLDEN
    x ^= x >> np.uint64(31)
    return np.int64(x & np.uint64(len(table) - 1))  # int64: uint64 + int64 is a float


@njit(cache=True)
def prefetch(table: Any, key: int) -> None:
    """Ask the processor for ``key``'s home slot ahead of :func:`set_add` (a hint: it
    changes nothing and never waits)."""
    _prefetch_item(table, home(table, key))


@njit(cache=True)
def set_add(table: Any, key: int) -> bool:
    """Add ``key``; whether it was new."""
    mask = len(table) - 1
    h = home(table, key)
    while True:
        v = table[h]
        if v == EMPTY:
            table[h] = key
            return True
        if v == key:
            return False
        h = (h + 1) & mask


@njit(cache=True)
def rehash(table: Any) -> Any:
    """The same keys in a set twice the size."""
    out = np.full(2 * len(table), EMPTY, np.int64)
    for v in table:
        if v != EMPTY:
            set_add(out, v)
    return out
