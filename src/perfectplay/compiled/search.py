"""How compiled code finds a state: binary search over sorted ``int64`` keys (tables),
and open-addressing hash sets on arrays (exploration).

A hash set is an ``int64`` array whose length is a power of two, :data:`EMPTY` in its
free slots (so the state -2**63 cannot be stored); linear probing from a multiplicative
hash of the key. Callers keep it at most half full (:func:`rehash` doubles it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

__all__ = ["EMPTY", "find_key", "find_layer", "grow", "new_set", "rehash", "set_add"]

EMPTY = np.iinfo(np.int64).min
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def find_key(keys: Any, lo: int, hi: int, key: int) -> int:
    """The index of ``key`` in the sorted slice ``keys[lo:hi]``, or -1 when absent."""
    end = hi
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    if lo < end and keys[lo] == key:
        return lo
    return -1


@njit(cache=True)
def find_layer(layers: Any, layer: int) -> int:
    """The position of ``layer`` in the sorted array ``layers``, or -1."""
    return find_key(layers, 0, len(layers), layer)


@njit(cache=True)
def new_set(size: int) -> Any:
    """An empty hash set with room for at least ``size`` keys at half load."""
    cap = 16
    while cap < 2 * size:
        cap *= 2
    return np.full(cap, EMPTY, np.int64)


@njit(cache=True)
def set_add(table: Any, key: int) -> bool:
    """Add ``key``; whether it was new."""
    mask = len(table) - 1
    x = np.uint64(key) * _GOLDEN
    x ^= x >> np.uint64(31)
    h = np.int64(x & np.uint64(mask))  # int64: uint64 + int64 would be a float
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


@njit(cache=True)
def grow(arr: Any) -> Any:
    """``arr`` copied into an array twice as long."""
    out = np.empty(2 * len(arr), arr.dtype)
    out[: len(arr)] = arr
    return out
