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

__all__ = ["components", "slot_layout", "slot_moves", "slot_rolls", "slot_table"]


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
def _linear(r: Any, move_ptr: Any, roll_const: Any) -> Any:
    """Whether outcome ``r`` is *linear*: one move, within the layer, and no way out of
    it, so that its value is that move's value (a sum term, no maximum)."""
    return move_ptr[r + 1] - move_ptr[r] == 1 and roll_const[r] < 0.0


@njit(cache=True)
def _count_rows(
    order: Any, roll_ptr: Any, move_ptr: Any, roll_const: Any, lin: Any, rolls: Any, a: int, b: int
) -> None:
    # Slot q's linear outcomes and other outcomes, at q + 1 (counts, for pointers).
    for q in range(a, b):
        i = order[q]
        k = 0
        for r in range(roll_ptr[i], roll_ptr[i + 1]):
            if _linear(r, move_ptr, roll_const):
                k += 1
        lin[q + 1] = k
        rolls[q + 1] = roll_ptr[i + 1] - roll_ptr[i] - k


@njit(cache=True)
def _count_moves(
    order: Any,
    roll_ptr: Any,
    move_ptr: Any,
    roll_const: Any,
    new_roll: Any,
    out: Any,
    a: int,
    b: int,
) -> None:
    # The moves of slot q's other outcomes, each at its new index + 1.
    for q in range(a, b):
        i = order[q]
        r2 = new_roll[q]
        for r in range(roll_ptr[i], roll_ptr[i + 1]):
            if not _linear(r, move_ptr, roll_const):
                out[r2 + 1] = move_ptr[r + 1] - move_ptr[r]
                r2 += 1


@njit(cache=True, parallel=True)
def _count_par(
    order: Any, roll_ptr: Any, move_ptr: Any, roll_const: Any, x: Any, y: Any, moves: bool
) -> None:
    n = len(order)
    for c in prange(_CHUNKS):
        a, b = c * n // _CHUNKS, (c + 1) * n // _CHUNKS
        if moves:
            _count_moves(order, roll_ptr, move_ptr, roll_const, x, y, a, b)
        else:
            _count_rows(order, roll_ptr, move_ptr, roll_const, x, y, a, b)


@njit(cache=True)
def _prefix_sums(x: Any) -> None:
    # x[0] stays; x[k] += x[k - 1] after it (counts into pointers, in place).
    for k in range(1, len(x)):
        x[k] += x[k - 1]


@njit(cache=True)
def slot_layout(order: Any, roll_ptr: Any, move_ptr: Any, roll_const: Any, threads: Any) -> Any:
    """The pointers ``(lin_ptr, roll_ptr, move_ptr)`` of the table in slot order (slot
    ``q`` is position ``order[q]``), as the sweeps read it
    (:mod:`perfectplay.compiled.sweep`): slot ``q``'s linear outcomes (:func:`_linear`)
    are ``lin_ptr[q] .. lin_ptr[q + 1] - 1`` of their own arrays (a probability and a
    move each: no pointer to the move, no exit value), its other outcomes ``roll_ptr[q]
    .. roll_ptr[q + 1] - 1`` as before. The sweeps then read the table front to back, a
    component's rows side by side, and only the bounds its moves name at random (on the
    Royal Game of Ur a sweep runs two to three times faster than through ``order``);
    a linear outcome (every throw of Pig's die) costs a multiply-add, a third of the
    time of an outcome with a maximum. The arrays follow, one at a time
    (:func:`slot_rolls`, :func:`slot_moves`, each while ``roll_const`` is still in
    position order: it tells the outcomes apart), so that the copy of the largest is all
    the memory the reordering adds. Each step puts a large layer's rows in order with
    all threads, unless ``threads`` is ``None``: then the threads' code is not even
    compiled (numba drops a branch on an argument's being ``None`` before it compiles),
    for the layers too small for them (a cold start of Pig compiles seconds less)."""
    n = len(order)
    lin = np.empty(n + 1, roll_ptr.dtype)
    new_roll = np.empty(n + 1, roll_ptr.dtype)
    lin[0] = new_roll[0] = 0
    serial = True
    if threads is not None:
        if n >= _PARALLEL_ROWS:
            _count_par(order, roll_ptr, move_ptr, roll_const, lin, new_roll, False)
            serial = False
    if serial:
        _count_rows(order, roll_ptr, move_ptr, roll_const, lin, new_roll, 0, n)
    _prefix_sums(lin)
    _prefix_sums(new_roll)
    new_move = np.empty(new_roll[n] + 1, move_ptr.dtype)
    new_move[0] = 0
    if threads is not None:
        if n >= _PARALLEL_ROWS:
            _count_par(order, roll_ptr, move_ptr, roll_const, new_roll, new_move, True)
    if serial:
        _count_moves(order, roll_ptr, move_ptr, roll_const, new_roll, new_move, 0, n)
    _prefix_sums(new_move)
    return lin, new_roll, new_move


@njit(cache=True)
def _copy_rolls(
    order: Any, old: Any, new: Any, values: Any, lin_out: Any, out: Any, a: int, b: int
) -> None:
    # Slot q's per-outcome values: the linear outcomes' into lin_out (when it has room),
    # the others' into out (``old``: the position-ordered roll_ptr, move_ptr, roll_const;
    # ``new``: lin_ptr, roll_ptr of slot order).
    roll_ptr, move_ptr, roll_const = old
    lin_ptr, new_roll = new
    keep = len(lin_out) > 0
    for q in range(a, b):
        i = order[q]
        k = lin_ptr[q]
        r2 = new_roll[q]
        for r in range(roll_ptr[i], roll_ptr[i + 1]):
            if _linear(r, move_ptr, roll_const):
                if keep:
                    lin_out[k] = values[r]
                k += 1
            else:
                out[r2] = values[r]
                r2 += 1


@njit(cache=True, parallel=True)
def _copy_rolls_par(order: Any, old: Any, new: Any, values: Any, lin_out: Any, out: Any) -> None:
    n = len(order)
    for c in prange(_CHUNKS):
        a, b = c * n // _CHUNKS, (c + 1) * n // _CHUNKS
        _copy_rolls(order, old, new, values, lin_out, out, a, b)


@njit(cache=True)
def slot_rolls(
    order: Any,
    roll_ptr: Any,
    move_ptr: Any,
    roll_const: Any,
    lin_ptr: Any,
    new_roll: Any,
    values: Any,
    linear: bool,
    threads: Any,
) -> Any:
    """A per-outcome array ``values`` in the order of :func:`slot_layout` (its pointers
    ``lin_ptr``, ``new_roll``; ``threads`` as there): ``(values of the linear outcomes,
    of the others)``, the first empty unless ``linear`` (the exit values: a linear
    outcome has none)."""
    lin_out = np.empty(lin_ptr[len(order)] if linear else 0, values.dtype)
    out = np.empty(new_roll[len(order)], values.dtype)
    old, new = (roll_ptr, move_ptr, roll_const), (lin_ptr, new_roll)
    serial = True
    if threads is not None:
        if len(order) >= _PARALLEL_ROWS:
            _copy_rolls_par(order, old, new, values, lin_out, out)
            serial = False
    if serial:
        _copy_rolls(order, old, new, values, lin_out, out, 0, len(order))
    return lin_out, out


@njit(cache=True)
def _slots(order: Any, slot: Any, a: int, b: int) -> None:
    for q in range(a, b):
        slot[order[q]] = q


@njit(cache=True)
def _copy_moves(
    order: Any,
    old: Any,
    new: Any,
    codes: Any,
    slot: Any,
    lin_out: Any,
    out: Any,
    a: int,
    b: int,
) -> None:
    # Slot q's moves, renamed by slot, where the new pointers put them (``old``: the
    # position-ordered roll_ptr, move_ptr, roll_const; ``new``: lin_ptr, roll_ptr,
    # move_ptr of slot order).
    roll_ptr, move_ptr, roll_const = old
    lin_ptr, new_roll, new_move = new
    for q in range(a, b):
        i = order[q]
        k = lin_ptr[q]
        r2 = new_roll[q]
        for r in range(roll_ptr[i], roll_ptr[i + 1]):
            if _linear(r, move_ptr, roll_const):
                c = codes[move_ptr[r]]
                lin_out[k] = 2 * slot[c >> 1] + (c & 1)
                k += 1
                continue
            j2 = new_move[r2]
            r2 += 1
            for j in range(move_ptr[r], move_ptr[r + 1]):
                c = codes[j]
                out[j2] = 2 * slot[c >> 1] + (c & 1)
                j2 += 1


@njit(cache=True, parallel=True)
def _copy_moves_par(
    order: Any, old: Any, new: Any, codes: Any, slot: Any, lin_out: Any, out: Any
) -> None:
    n = len(order)
    for c in prange(_CHUNKS):
        a, b = c * n // _CHUNKS, (c + 1) * n // _CHUNKS
        _copy_moves(order, old, new, codes, slot, lin_out, out, a, b)


@njit(cache=True, parallel=True)
def _slots_par(order: Any, slot: Any) -> None:
    n = len(order)
    for c in prange(_CHUNKS):
        _slots(order, slot, c * n // _CHUNKS, (c + 1) * n // _CHUNKS)


@njit(cache=True)
def slot_moves(order: Any, old: Any, new: Any, move_code: Any, threads: Any) -> Any:
    """The moves ``move_code`` (``2 * position + flip``) in the order of
    :func:`slot_layout`, each naming its target by slot (``2 * slot + flip``):
    ``(the move of each linear outcome, the moves of the others)``. ``old`` is the
    table's ``(roll_ptr, move_ptr, roll_const)`` in position order, ``new`` the pointers
    of :func:`slot_layout` (``threads`` as there)."""
    n = len(order)
    slot = np.empty(n, order.dtype)
    lin_out = np.empty(new[0][n], move_code.dtype)
    out = np.empty(new[2][len(new[2]) - 1], move_code.dtype)
    serial = True
    if threads is not None:
        if n >= _PARALLEL_ROWS:
            _slots_par(order, slot)
            _copy_moves_par(order, old, new, move_code, slot, lin_out, out)
            serial = False
    if serial:
        _slots(order, slot, 0, n)
        _copy_moves(order, old, new, move_code, slot, lin_out, out, 0, n)
    return lin_out, out


@njit(cache=True)
def slot_table(
    order: Any,
    roll_ptr: Any,
    roll_prob: Any,
    roll_const: Any,
    move_ptr: Any,
    move_code: Any,
    eps: float,
    threads: Any,
) -> Any:
    """The whole table in slot order as the sweeps read it, ``(lin_ptr, lin_prob,
    lin_code, roll_ptr, roll_prob, roll_const, eps, move_ptr, move_code)``: with
    ``threads``, the steps :func:`slot_layout`, :func:`slot_rolls` (probabilities),
    :func:`slot_moves`, :func:`slot_rolls` (exit values) in the order that
    :func:`perfectplay.compiled.layered.solve_layer` takes them one by one (where it
    spills the arrays they copy to a file between them); without (``None``: a layer
    too small for the threads, see :func:`slot_layout`), the same arrays in one pass
    over the slots (:func:`_slot_table_serial`)."""
    if threads is None:
        return _slot_table_serial(order, roll_ptr, roll_prob, roll_const, move_ptr, move_code, eps)
    lin_ptr, new_roll, new_move = slot_layout(order, roll_ptr, move_ptr, roll_const, threads)
    lin_prob, prob = slot_rolls(
        order, roll_ptr, move_ptr, roll_const, lin_ptr, new_roll, roll_prob, True, threads
    )
    old = (roll_ptr, move_ptr, roll_const)
    new = (lin_ptr, new_roll, new_move)
    lin_code, codes = slot_moves(order, old, new, move_code, threads)
    _, const = slot_rolls(
        order, roll_ptr, move_ptr, roll_const, lin_ptr, new_roll, roll_const, False, threads
    )
    return lin_ptr, lin_prob, lin_code, new_roll, prob, const, eps, new_move, codes


@njit(cache=True)
def _slot_table_serial(
    order: Any,
    roll_ptr: Any,
    roll_prob: Any,
    roll_const: Any,
    move_ptr: Any,
    move_code: Any,
    eps: float,
) -> Any:
    """:func:`slot_table` in the calling thread, in one pass over the slots: each
    pointer is a running count there, so nothing is counted first, and each outcome is
    read once (a third of the time of the four steps on Pig's layers). The arrays are
    made as long as they could need (every outcome linear, or none) and returned cut
    to what was written: a small layer's, for which the room is nothing."""
    n = len(order)
    n_r = roll_ptr[n]
    slot = np.empty(n, order.dtype)
    _slots(order, slot, 0, n)
    lin_ptr = np.empty(n + 1, roll_ptr.dtype)
    new_roll = np.empty(n + 1, roll_ptr.dtype)
    new_move = np.empty(n_r + 1, move_ptr.dtype)
    lin_prob = np.empty(n_r, roll_prob.dtype)
    lin_code = np.empty(n_r, move_code.dtype)
    prob = np.empty(n_r, roll_prob.dtype)
    const = np.empty(n_r, roll_const.dtype)
    codes = np.empty(move_ptr[n_r], move_code.dtype)
    lin_ptr[0] = new_roll[0] = new_move[0] = 0
    k_lin = 0
    k_roll = 0
    k_move = 0
    for q in range(n):
        i = order[q]
        for r in range(roll_ptr[i], roll_ptr[i + 1]):
            if _linear(r, move_ptr, roll_const):
                c = move_code[move_ptr[r]]
                lin_prob[k_lin] = roll_prob[r]
                lin_code[k_lin] = 2 * slot[c >> 1] + (c & 1)
                k_lin += 1
                continue
            prob[k_roll] = roll_prob[r]
            const[k_roll] = roll_const[r]
            for j in range(move_ptr[r], move_ptr[r + 1]):
                c = move_code[j]
                codes[k_move] = 2 * slot[c >> 1] + (c & 1)
                k_move += 1
            k_roll += 1
            new_move[k_roll] = k_move
        lin_ptr[q + 1] = k_lin
        new_roll[q + 1] = k_roll
    return (
        lin_ptr,
        lin_prob[:k_lin],
        lin_code[:k_lin],
        new_roll,
        prob[:k_roll],
        const[:k_roll],
        eps,
        new_move[: k_roll + 1],
        codes[:k_move],
    )
