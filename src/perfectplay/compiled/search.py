"""Binary search over sorted ``int64`` keys: how compiled tables find a state."""

from __future__ import annotations

from typing import Any

from numba import njit

__all__ = ["find_key", "find_layer"]


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
