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
from numba import njit

from perfectplay.compiled.prefetch import prefetch_item

__all__ = ["EMPTY", "home", "new_set", "prefetch", "rehash", "set_add", "set_slot"]

EMPTY = np.iinfo(np.int64).min
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


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
    prefetch_item(table, home(table, key))


@njit(cache=True)
def set_slot(table: Any, key: int) -> int:
    """The slot that holds ``key``, else the free slot where :func:`set_add` would put it
    (so that a caller can make room first and then write the key there)."""
    mask = len(table) - 1
    h = home(table, key)
    while True:
        v = table[h]
        if v == EMPTY or v == key:
            return int(h)
        h = (h + 1) & mask


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
