"""The strongly connected components of one layer's successor table, in compiled code.

A layer's positions reach each other through its moves; its strongly connected
components (the sets of positions that reach each other both ways) are where its
cycles are. :func:`components` finds them by Tarjan's algorithm, iteratively (an
explicit stack, so a layer of 10^7 positions needs no deep recursion), and returns them
in the order Tarjan completes them, which is a reverse topological order: every move of
a component's positions stays in it or goes to a component listed before it. Within a
component the positions are in the order their depth-first search finished, so that a
position comes after the positions it reaches first (one in-place sweep in that order
carries values along the tree of the search at once).

>>> import numpy as np
>>> # 0 -> 1, 1 -> 2, 2 -> 1, 3 -> 0: the cycle {1, 2} is a sink, then 0, then 3.
>>> roll_ptr = np.arange(5, dtype=np.int64)
>>> move_ptr = np.array([0, 1, 2, 3, 4], np.int64)
>>> move_code = np.array([2, 4, 2, 0], np.int32)   # 2 * index + flip
>>> order, comp_ptr = components(roll_ptr, move_ptr, move_code)
>>> [sorted(order[a:b].tolist()) for a, b in zip(comp_ptr[:-1], comp_ptr[1:])]
[[1, 2], [0], [3]]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

__all__ = ["components", "slot_layout", "slot_moves", "slot_rolls"]


@njit(cache=True)
def components(roll_ptr: Any, move_ptr: Any, move_code: Any) -> Any:
    """``(order, comp_ptr)``: the positions grouped by component, component ``c`` being
    ``order[comp_ptr[c]:comp_ptr[c + 1]]``, components in reverse topological order (see
    the module docstring). The moves of position ``i`` are
    ``move_code[move_ptr[roll_ptr[i]]:move_ptr[roll_ptr[i + 1]]]``, each ``2 * j + flip``."""
    n = len(roll_ptr) - 1
    index = np.full(n, -1, np.int32)  # depth-first visit number, -1: not visited
    low = np.empty(n, np.int32)
    comp = np.full(n, -1, np.int32)  # component number, -1: not yet assigned
    finished = np.empty(n, np.int32)  # positions in the order their search finished
    stack = np.empty(n, np.int32)  # Tarjan's stack of open positions
    calls = np.empty(n, np.int32)  # the search's path
    edge = np.empty(n, np.int64)  # per position on the path, its next move to try
    visits = 0
    top = 0
    n_fin = 0
    n_comp = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        depth = 0
        calls[0] = root
        index[root] = low[root] = visits
        visits += 1
        stack[top] = root
        top += 1
        edge[root] = move_ptr[roll_ptr[root]]
        while depth >= 0:
            v = calls[depth]
            end = move_ptr[roll_ptr[v + 1]]
            descended = False
            while edge[v] < end:
                w = move_code[edge[v]] >> 1
                edge[v] += 1
                if index[w] < 0:
                    index[w] = low[w] = visits
                    visits += 1
                    stack[top] = w
                    top += 1
                    edge[w] = move_ptr[roll_ptr[w]]
                    depth += 1
                    calls[depth] = w
                    descended = True
                    break
                if comp[w] < 0 and index[w] < low[v]:  # w is open: on the stack
                    low[v] = index[w]
            if descended:
                continue
            finished[n_fin] = v
            n_fin += 1
            if low[v] == index[v]:  # v roots a component: pop it
                while True:
                    top -= 1
                    w = stack[top]
                    comp[w] = n_comp
                    if w == v:
                        break
                n_comp += 1
            depth -= 1
            if depth >= 0:
                u = calls[depth]
                if low[v] < low[u]:
                    low[u] = low[v]
    # Group by component (counting sort), keeping the finishing order within each.
    comp_ptr = np.zeros(n_comp + 1, np.int64)
    for i in range(n):
        comp_ptr[comp[i] + 1] += 1
    for c in range(n_comp):
        comp_ptr[c + 1] += comp_ptr[c]
    fill = comp_ptr[:-1].copy()
    order = np.empty(n, np.int32)
    for q in range(n):
        v = finished[q]
        order[fill[comp[v]]] = v
        fill[comp[v]] += 1
    return order, comp_ptr


# A layer this large has its rows put in slot order by all threads (a smaller one in
# the calling thread: waking the pool costs more than the copy). Each chunk of slots
# writes only its own slots' entries, so the result is the serial one.
_PARALLEL_ROWS = 50_000
_CHUNKS = 64


@njit(cache=True)
def _count_rolls(order: Any, roll_ptr: Any, out: Any, a: int, b: int) -> None:
    for q in range(a, b):
        i = order[q]
        out[q + 1] = roll_ptr[i + 1] - roll_ptr[i]


@njit(cache=True, parallel=True)
def _count_rolls_par(order: Any, roll_ptr: Any, out: Any) -> None:
    n = len(order)
    for c in prange(_CHUNKS):
        _count_rolls(order, roll_ptr, out, c * n // _CHUNKS, (c + 1) * n // _CHUNKS)


@njit(cache=True)
def _prefix_sums(x: Any) -> None:
    # x[0] stays; x[k] += x[k - 1] after it (counts into pointers, in place).
    for k in range(1, len(x)):
        x[k] += x[k - 1]


@njit(cache=True)
def slot_layout(order: Any, roll_ptr: Any, move_ptr: Any) -> Any:
    """The pointers ``(roll_ptr, move_ptr)`` of the table with its rows in slot order
    (slot ``q`` is position ``order[q]``). The sweeps then read the table front to back,
    a component's rows side by side, and only the bounds its moves name at random (on
    the Royal Game of Ur a sweep runs two to three times faster than through ``order``).
    The arrays follow, one at a time (:func:`slot_rolls`, :func:`slot_moves`), so that
    the copy of the largest is all the memory the reordering adds."""
    n = len(order)
    new_roll = np.empty(n + 1, roll_ptr.dtype)
    new_roll[0] = 0
    if n >= _PARALLEL_ROWS:
        _count_rolls_par(order, roll_ptr, new_roll)
    else:
        _count_rolls(order, roll_ptr, new_roll, 0, n)
    _prefix_sums(new_roll)
    new_move = np.empty(len(move_ptr), move_ptr.dtype)
    new_move[0] = 0
    # The moves of each outcome are a per-outcome array like any other.
    _rolls_into(order, roll_ptr, new_roll, move_ptr[1:] - move_ptr[:-1], new_move[1:])
    _prefix_sums(new_move)
    return new_roll, new_move


@njit(cache=True)
def _copy_rolls(
    order: Any, roll_ptr: Any, new_roll: Any, values: Any, out: Any, a: int, b: int
) -> None:
    for q in range(a, b):
        i = order[q]
        r2 = new_roll[q]
        for r in range(roll_ptr[i], roll_ptr[i + 1]):
            out[r2] = values[r]
            r2 += 1


@njit(cache=True, parallel=True)
def _copy_rolls_par(order: Any, roll_ptr: Any, new_roll: Any, values: Any, out: Any) -> None:
    n = len(order)
    for c in prange(_CHUNKS):
        _copy_rolls(
            order, roll_ptr, new_roll, values, out, c * n // _CHUNKS, (c + 1) * n // _CHUNKS
        )


@njit(cache=True)
def slot_rolls(order: Any, roll_ptr: Any, new_roll: Any, values: Any) -> Any:
    """A per-outcome array ``values`` in the outcome order of :func:`slot_layout`
    (``new_roll`` its outcome pointers)."""
    out = np.empty_like(values)
    _rolls_into(order, roll_ptr, new_roll, values, out)
    return out


@njit(cache=True)
def _rolls_into(order: Any, roll_ptr: Any, new_roll: Any, values: Any, out: Any) -> None:
    # slot_rolls into a given array (all threads for a big layer).
    n = len(order)
    if n >= _PARALLEL_ROWS:
        _copy_rolls_par(order, roll_ptr, new_roll, values, out)
    else:
        _copy_rolls(order, roll_ptr, new_roll, values, out, 0, n)


@njit(cache=True)
def _slots(order: Any, slot: Any, a: int, b: int) -> None:
    for q in range(a, b):
        slot[order[q]] = q


@njit(cache=True)
def _copy_moves(
    order: Any,
    roll_ptr: Any,
    move_ptr: Any,
    new_roll: Any,
    new_move: Any,
    codes: Any,
    slot: Any,
    out: Any,
    a: int,
    b: int,
) -> None:
    # Slot q's moves, renamed by slot, where the new pointers put them.
    for q in range(a, b):
        i = order[q]
        j2 = new_move[new_roll[q]]
        for j in range(move_ptr[roll_ptr[i]], move_ptr[roll_ptr[i + 1]]):
            c = codes[j]
            out[j2] = 2 * slot[c >> 1] + (c & 1)
            j2 += 1


@njit(cache=True, parallel=True)
def _copy_moves_par(
    order: Any,
    roll_ptr: Any,
    move_ptr: Any,
    new_roll: Any,
    new_move: Any,
    codes: Any,
    slot: Any,
    out: Any,
) -> None:
    n = len(order)
    for c in prange(_CHUNKS):
        a, b = c * n // _CHUNKS, (c + 1) * n // _CHUNKS
        _copy_moves(order, roll_ptr, move_ptr, new_roll, new_move, codes, slot, out, a, b)


@njit(cache=True, parallel=True)
def _slots_par(order: Any, slot: Any) -> None:
    n = len(order)
    for c in prange(_CHUNKS):
        _slots(order, slot, c * n // _CHUNKS, (c + 1) * n // _CHUNKS)


@njit(cache=True)
def slot_moves(
    order: Any, roll_ptr: Any, move_ptr: Any, new_roll: Any, new_move: Any, move_code: Any
) -> Any:
    """The moves ``move_code`` (``2 * position + flip``) in the order of
    :func:`slot_layout` (``new_roll``, ``new_move`` its pointers), each naming its
    target by slot (``2 * slot + flip``)."""
    n = len(order)
    slot = np.empty(n, order.dtype)
    out = np.empty_like(move_code)
    if n >= _PARALLEL_ROWS:
        _slots_par(order, slot)
        _copy_moves_par(order, roll_ptr, move_ptr, new_roll, new_move, move_code, slot, out)
    else:
        _slots(order, slot, 0, n)
        _copy_moves(order, roll_ptr, move_ptr, new_roll, new_move, move_code, slot, out, 0, n)
    return out
