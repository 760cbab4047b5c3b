"""The explorer's seeds: states that a finished layer reached in higher layers, waiting
until their own layer is explored.

Each explored layer hands over one *chunk* (its outside successors, each once), which is
sorted by layer and appended to one growing ``int64`` buffer, with a row per layer it
reaches (a *segment*: the layer and where its states lie). The layers are explored in
ascending order and no chunk reaches below the layer being explored (the search stops
with an error at a move to a lower layer), so a chunk's next segment is always its
lowest layer still waiting: a layer's seeds are the next segments of the chunks whose
next segment is that layer. Filing and taking are compiled loops,
not a Python list of arrays per layer reached (Pig 100's layers each reach about 99
others: twenty thousand small arrays), and the room of consumed chunks is reclaimed by
moving the rest down once it is larger than what still waits. More than
``MERGE_CHUNKS`` chunks waiting are merged into one, each layer's states once (a game
of thousands of layers would otherwise hold a state reached from each many times, and
look through all its chunks for each layer).

>>> store = SeedStore()
>>> store.add(np.array([7, 5, 9, 6], np.int64), np.array([3, 2, 3, 2], np.int64))
>>> store.add(np.array([4, 8], np.int64), np.array([2, 4], np.int64))
>>> [(lid, s.tolist()) for lid, s in iter(store.take, None)]
[(2, [5, 6, 4]), (3, [7, 9]), (4, [8])]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

__all__ = ["SeedStore"]

#: Where a chunk's row keeps its first segment still waiting and its end.
_CUR, _END = 0, 1
#: A segment's row: its layer, where its states start and end in the buffer.
_LAYER, _LO, _HI = 0, 1, 2
_NONE = np.iinfo(np.int64).max
#: The most chunks waiting before they are merged into one (:meth:`SeedStore._merge`).
MERGE_CHUNKS = 256


@njit(cache=True)
def _order(layers: Any) -> Any:
    """The order that sorts ``layers`` stably and how many distinct layers they hold, by
    counting where their range is not far wider than their number (a layer's successors
    reach nearby layers; four times as fast as numpy's stable sort on Pig's), else
    ``(None, -1)`` for the caller to sort."""
    lo, hi = layers[0], layers[0]
    for x in layers:
        lo, hi = min(lo, x), max(hi, x)
    # Differences as unsigned: layers far apart (of either sign) would overflow int64.
    if np.uint64(hi - lo) > np.uint64(4 * len(layers) + 64):
        return None, -1
    starts = np.zeros(hi - lo + 2, np.int64)
    for x in layers:
        starts[x - lo + 1] += 1
    k = 0
    for i in range(1, len(starts)):
        k += starts[i] > 0
        starts[i] += starts[i - 1]
    order = np.empty(len(layers), np.int64)
    for i in range(len(layers)):
        j = layers[i] - lo
        order[starts[j]] = i
        starts[j] += 1
    return order, k


@njit(cache=True)
def _file(states: Any, layers: Any, order: Any, buf: Any, nbuf: int, segs: Any, nseg: int) -> int:
    """Append a chunk (``states`` and their ``layers``, ``order`` sorting them by layer)
    to ``buf`` from ``nbuf``, and its segments to ``segs`` from ``nseg``; returns the
    segments written."""
    k = nseg
    for i in range(len(order)):
        j = order[i]
        lid = layers[j]
        if k == nseg or segs[k - 1, _LAYER] != lid:
            segs[k, _LAYER] = lid
            segs[k, _LO] = nbuf + i
            k += 1
        buf[nbuf + i] = states[j]
        segs[k - 1, _HI] = nbuf + i + 1
    return k - nseg


@njit(cache=True)
def _lowest(segs: Any, chunks: Any, nchunk: int) -> Any:
    """The lowest layer waiting (``_NONE`` when none) and how many seeds it has."""
    low = _NONE
    count = 0
    for c in range(nchunk):
        cur = chunks[c, _CUR]
        if cur < chunks[c, _END]:
            lid = segs[cur, _LAYER]
            if lid < low:
                low, count = lid, 0
            if lid == low:
                count += segs[cur, _HI] - segs[cur, _LO]
    return low, count


@njit(cache=True)
def _take(buf: Any, segs: Any, chunks: Any, nchunk: int, lid: int, out: Any) -> None:
    """Copy the seeds of layer ``lid`` (the lowest waiting) into ``out`` and pass them."""
    m = 0
    for c in range(nchunk):
        cur = chunks[c, _CUR]
        if cur < chunks[c, _END] and segs[cur, _LAYER] == lid:
            for i in range(segs[cur, _LO], segs[cur, _HI]):
                out[m] = buf[i]
                m += 1
            chunks[c, _CUR] = cur + 1


@njit(cache=True)
def _compact(buf: Any, segs: Any, chunks: Any, nchunk: int) -> Any:
    """Move what still waits to the front of the buffer and the tables (in their order,
    so nothing is overwritten before it is moved); returns the new lengths."""
    nb = 0
    ns = 0
    nc = 0
    for c in range(nchunk):
        cur, end = chunks[c, _CUR], chunks[c, _END]
        if cur == end:
            continue
        chunks[nc, _CUR] = ns
        for s in range(cur, end):
            lo, hi = segs[s, _LO], segs[s, _HI]
            segs[ns, _LAYER] = segs[s, _LAYER]
            segs[ns, _LO] = nb
            for i in range(lo, hi):
                buf[nb] = buf[i]
                nb += 1
            segs[ns, _HI] = nb
            ns += 1
        chunks[nc, _END] = ns
        nc += 1
    return nb, ns, nc


@njit(cache=True)
def _merge(buf: Any, segs: Any, chunks: Any, nchunk: int, newbuf: Any, newsegs: Any) -> Any:
    """Write what still waits into ``newbuf`` and ``newsegs`` as one chunk, each layer's
    states sorted and once; returns their lengths."""
    m = 0
    for c in range(nchunk):
        m += chunks[c, _END] - chunks[c, _CUR]
    rows = np.empty(m, np.int64)
    lids = np.empty(m, np.int64)
    m = 0
    for c in range(nchunk):
        for r in range(chunks[c, _CUR], chunks[c, _END]):
            rows[m], lids[m] = r, segs[r, _LAYER]
            m += 1
    order = np.argsort(lids)
    nb = 0
    ns = 0
    i = 0
    while i < m:
        lid = lids[order[i]]
        start = nb
        while i < m and lids[order[i]] == lid:
            r = rows[order[i]]
            for t in range(segs[r, _LO], segs[r, _HI]):
                newbuf[nb] = buf[t]
                nb += 1
            i += 1
        newbuf[start:nb].sort()
        w = start
        for t in range(start, nb):
            if t == start or newbuf[t] != newbuf[w - 1]:
                newbuf[w] = newbuf[t]
                w += 1
        nb = w
        newsegs[ns, _LAYER], newsegs[ns, _LO], newsegs[ns, _HI] = lid, start, nb
        ns += 1
    return nb, ns


class SeedStore:
    """The seeds waiting, filed by :meth:`add` and handed out, lowest layer first, by
    :meth:`take` (module docstring). Its memory: 8 bytes a waiting seed and 24 a layer
    a chunk reaches, at most three times over (arrays grow by half, consumed room is
    reclaimed once it exceeds what waits, all of it once nothing waits), and at most
    ``MERGE_CHUNKS`` copies of a state (the chunks are merged, each state once, when
    more wait)."""

    def __init__(self) -> None:
        self._empty()

    def _empty(self) -> None:
        self._buf = np.empty(1024, np.int64)
        self._segs = np.empty((256, 3), np.int64)
        self._chunks = np.empty((64, 2), np.int64)
        self._nbuf = self._nseg = self._nchunk = 0
        self._waiting = 0  # seeds filed and not yet taken

    def add(self, states: np.ndarray, layers: np.ndarray) -> None:
        """File a chunk: ``states`` reached in higher layers, with their ``layers``."""
        n = int(states.size)
        if not n:
            return
        if self._nchunk > MERGE_CHUNKS:
            self._merge()
        elif self._nbuf - self._waiting > self._waiting:  # mostly consumed: reclaim
            self._nbuf, self._nseg, self._nchunk = (
                int(x) for x in _compact(self._buf, self._segs, self._chunks, self._nchunk)
            )
        order, k = _order(layers)
        if order is None:
            order = np.argsort(layers, kind="stable")
            k = int(np.count_nonzero(np.diff(layers[order]))) + 1
        self._buf = _room(self._buf, self._nbuf + n)
        self._segs = _room(self._segs, self._nseg + int(k))
        self._chunks = _room(self._chunks, self._nchunk + 1)
        k = int(_file(states, layers, order, self._buf, self._nbuf, self._segs, self._nseg))
        self._chunks[self._nchunk] = (self._nseg, self._nseg + k)
        self._nchunk += 1
        self._nbuf += n
        self._nseg += k
        self._waiting += n

    def _merge(self) -> None:
        """Merge the chunks waiting into one, each state once a layer: a layer reached
        from many lower layers waits in at most ``MERGE_CHUNKS`` copies, and a layer's
        seeds are gathered from at most as many chunks."""
        newbuf = np.empty(max(self._waiting, 1024), np.int64)
        newsegs = np.empty((max(self._nseg, 256), 3), np.int64)
        nb, ns = _merge(self._buf, self._segs, self._chunks, self._nchunk, newbuf, newsegs)
        self._buf, self._segs = newbuf, newsegs
        self._nbuf = self._waiting = int(nb)
        self._nseg = int(ns)
        self._chunks[0] = (0, self._nseg)
        self._nchunk = 1

    def take(self) -> tuple[int, np.ndarray] | None:
        """The lowest layer waiting and its seeds (not deduplicated: a state reached from
        several layers is there once for each), or None when none waits."""
        low, count = _lowest(self._segs, self._chunks, self._nchunk)
        if low == _NONE:
            return None
        out = np.empty(int(count), np.int64)
        _take(self._buf, self._segs, self._chunks, self._nchunk, int(low), out)
        self._waiting -= int(count)
        if not self._waiting:  # all taken: the room is given back, not kept for later
            self._empty()
        return int(low), out


def _room(arr: np.ndarray, n: int) -> np.ndarray:
    """``arr``, or a copy at least half as long again, so that it holds ``n`` rows."""
    if n <= len(arr):
        return arr
    out = np.empty((max(n, len(arr) * 3 // 2), *arr.shape[1:]), arr.dtype)
    out[: len(arr)] = arr
    return out
