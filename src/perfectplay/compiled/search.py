"""How compiled code finds a state in a table: binary search over sorted ``int64`` keys,
narrowed first by a directory (the explorer's hash sets are in
:mod:`perfectplay.compiled.hashset`).

A *directory* of a sorted slice ``keys[lo:hi]`` cuts the range of its keys into about a
quarter as many buckets of equal width as it has keys and records where each bucket
starts, so that a lookup binary-searches one bucket (a few keys) instead of the whole
slice (twenty-odd steps, each a cache miss, on a layer of millions). It is an ``int64``
array ``[base, shift, buckets, start_0, ..., start_buckets]`` within a larger array at
an offset, so that one array holds the directories of many slices:

>>> keys = np.array([3, 5, 8, 13, 21, 34, 55, 89, 144], np.int64)
>>> d = np.zeros(directory_size(len(keys)), np.int64)
>>> fill_directory(keys, 0, len(keys), d, 0)
>>> [find_in(keys, d, 0, x) for x in (3, 21, 144, 4, 200, -7)]
[0, 4, 8, -1, -1, -1]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from perfectplay.compiled.hashset import EMPTY
from perfectplay.compiled.model import ERR_BAD_INDEX, ERR_SAME_INDEX

__all__ = [
    "dense_span",
    "directory_size",
    "fill_directory",
    "find_in",
    "find_key",
    "find_layer",
    "grow",
    "number_by_index",
    "pair_by_index",
]


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


#: The most numbers of a layer's perfect index held in an array (128 MiB of pairs), and
#: per position of the layer.
DENSE_MOST = 1 << 23
DENSE_PER_POSITION = 4


def dense_span(size: int, n: int) -> int:
    """How many numbers of a layer's perfect index to hold in an array, 0 for none
    (``size``: the model's ``layer_size``, negative when it has none; ``n``: the
    layer's positions): a layer found by its index instead of a directory, unless its
    index is far sparser than its positions or too large.

    >>> dense_span(-1, 10), dense_span(1000, 400), dense_span(1000, 10)
    (0, 1000, 0)
    """
    if size < 0 or size > DENSE_MOST or size > DENSE_PER_POSITION * n + 64:
        return 0
    return size


def _bucket_bits(n: int) -> int:
    k = 1
    while (1 << k) < n // 4:
        k += 1
    return k


bucket_bits = njit(cache=True)(_bucket_bits)


def directory_size(n: int) -> int:
    """The room the directory of a slice of ``n`` keys takes (``int64`` entries)."""
    return (1 << _bucket_bits(n)) + 4


@njit(cache=True)
def fill_directory(keys: Any, lo: int, hi: int, out: Any, off: int) -> None:
    """Write the directory of the sorted slice ``keys[lo:hi]`` into ``out`` at ``off``
    (:func:`directory_size` entries; the module docstring)."""
    k = bucket_bits(hi - lo)
    if hi <= lo:
        out[off], out[off + 1], out[off + 2] = 0, 0, 0
        return
    base = keys[lo]
    # Differences as unsigned: keys far apart (of either sign) would overflow int64.
    span = np.uint64(keys[hi - 1] - base)
    shift = 0
    while (span >> np.uint64(shift)) >= np.uint64(1 << k):
        shift += 1
    buckets = np.int64(span >> np.uint64(shift)) + 1
    out[off], out[off + 1], out[off + 2] = base, shift, buckets
    b = 0
    for i in range(lo, hi):
        kb = np.int64(np.uint64(keys[i] - base) >> np.uint64(shift))
        while b <= kb:
            out[off + 3 + b] = i
            b += 1
    while b <= buckets:
        out[off + 3 + b] = hi
        b += 1


@njit(cache=True)
def find_in(keys: Any, d: Any, off: int, key: int) -> int:
    """The index of ``key`` in the slice whose directory is ``d`` at ``off``, or -1."""
    base = d[off]
    if d[off + 2] == 0 or key < base:
        return -1
    b = np.uint64(key - base) >> np.uint64(d[off + 1])
    if b >= np.uint64(d[off + 2]):
        return -1
    i = np.int64(b)
    return find_key(keys, d[off + 3 + i], d[off + 4 + i], key)


@njit(cache=True)
def number_by_index(keys: Any, idx: Any, where: Any, err: Any) -> None:
    """``where[idx[i]] = i`` for the positions ``i`` of a layer (``keys``, ``idx`` their
    perfect index), -1 at a number no position has; an index out of range or a number
    given twice is written to ``err`` as the kernels write errors (and stops).

    >>> where, err = np.empty(4, np.int64), np.zeros(4, np.int64)
    >>> number_by_index(np.array([10, 20]), np.array([3, 0]), where, err)
    >>> where.tolist(), err.tolist()
    ([1, -1, -1, 0], [0, 0, 0, 0])
    """
    where[:] = -1
    for i in range(len(idx)):
        x = idx[i]
        if x < 0 or x >= len(where):
            err[0], err[1], err[2], err[3] = ERR_BAD_INDEX, keys[i], 0, x
            return
        if where[x] >= 0:
            err[0], err[1], err[2], err[3] = ERR_SAME_INDEX, keys[i], 0, keys[where[x]]
            return
        where[x] = i


@njit(cache=True)
def pair_by_index(keys: Any, values: Any, where: Any, pairs: Any, off: int) -> None:
    """Write each position's key and value (its bits) side by side at twice its number
    from ``off`` (``where``: :func:`number_by_index`), :data:`EMPTY` where none: the
    keys (:func:`pair_keys`), then the values (:func:`pair_values`)."""
    pair_keys(keys, where, pairs, off)
    pair_values(values, where, pairs, off)


@njit(cache=True)
def pair_keys(keys: Any, where: Any, pairs: Any, off: int) -> None:
    """The keys of :func:`pair_by_index` alone (the values 0 until :func:`pair_values`
    writes them): a layer's keys can be looked up before its values are known."""
    for x in range(len(where)):
        g = where[x]
        j = 2 * (off + x)
        pairs[j] = EMPTY if g < 0 else keys[g]
        pairs[j + 1] = 0


@njit(cache=True)
def pair_values(values: Any, where: Any, pairs: Any, off: int) -> None:
    """The values (their bits) of :func:`pair_by_index` beside the keys
    :func:`pair_keys` wrote."""
    bits = values.view(np.int64)
    for x in range(len(where)):
        g = where[x]
        if g >= 0:
            pairs[2 * (off + x) + 1] = bits[g]


@njit(cache=True)
def find_layer(layers: Any, layer: int) -> int:
    """The position of ``layer`` in the sorted array ``layers``, or -1: read at once
    where the layers are numbered without gaps (Pig's: a lookup per move that leaves a
    layer), else searched."""
    if len(layers):
        guess: int = layer - layers[0]
        if 0 <= guess < len(layers) and layers[guess] == layer:
            return guess
    return find_key(layers, 0, len(layers), layer)


@njit(cache=True)
def grow(arr: Any) -> Any:
    """``arr`` copied into an array twice as long."""
    out = np.empty(2 * len(arr), arr.dtype)
    out[: len(arr)] = arr
    return out
