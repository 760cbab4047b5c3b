"""Certified in-place sweeps over one layer's successor table.

The value of a position for the mover is ``V(s) = sum_r P(r) max_m v_m`` where a move
that keeps the mover gives ``V(t)`` and one that hands the dice over gives ``1 - V(t)``.
Because of that ``1 - V`` the operator is not monotone in ``V`` alone, but it is in the
pair of bounds ``(L, U)``:

    L(s) <- sum_r P(r) max_m (flip ? 1 - U(t) : L(t)),
    U(s) <- sum_r P(r) max_m (flip ? 1 - L(t) : U(t)).

Started from ``L = 0`` and ``U = 1``, the least and greatest values a position can have,
every update keeps ``L <= V* <= U`` for *every* fixed point ``V*`` (induction: each
update applies a monotone map to bounds), so the two meet only when the value is
certain, and their gap is the error bound reported. The updates are in place
(Gauss-Seidel) and run in parallel over chunks of the layer; that is sound because any
order of such updates keeps the invariant (a chunk may read a neighbour's older bound,
which is still a bound). A layer whose play can go on for ever with some probability
under some pair of strategies has several fixed points: its gap stops shrinking and the
solver says so instead of stopping early.

**Components.** A layer is solved one strongly connected component at a time
(:mod:`perfectplay.compiled.components`), in reverse topological order: every move of a
component's positions stays in it or reaches a component already solved (or a finished
layer). Sweeping one component while the others stand still is one particular order of
the updates above, so the invariant holds whatever the order; the order only makes it
fast: a component's moves out of it read bounds that are already as tight as they will
get, so it converges as fast as its own cycles allow, and a position on no cycle (a
component of one, without a move to itself) is solved in one update. Within a
component the sweeps run forward in the order its depth-first search finished, so one
sweep carries values along the whole tree of the search. A component is done when its
largest gap is within ``target``; one whose gap stops shrinking is accepted when the
gap is within ``accept`` (what the layer promises), else the layer does not contract.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

__all__ = ["OK", "MAXED", "STALLED", "solve_big", "solve_run"]

#: How a component ended: certified, out of sweeps, or its gap stopped shrinking.
OK, MAXED, STALLED = 0, 1, 2


@njit(cache=True)
def _update(lo: Any, hi: Any, table: Any, i: int) -> Any:
    """Update both bounds of position ``i`` in place; returns its gap. ``table`` is the
    layer's successor table ``(roll_ptr, roll_prob, roll_const, eps, move_ptr,
    move_code)``: ``roll_const`` is the best value of an outcome's moves that leave the
    layer (-1: none), known to ``eps``; a move within it is ``2 * index + flip``."""
    roll_ptr, roll_prob, roll_const, eps, move_ptr, move_code = table
    low = 0.0
    high = 0.0
    for r in range(roll_ptr[i], roll_ptr[i + 1]):
        k = roll_const[r]
        bl = -1.0
        bh = -1.0
        if k >= 0.0:
            bl = max(k - eps, 0.0)
            bh = min(k + eps, 1.0)
        for j in range(move_ptr[r], move_ptr[r + 1]):
            code = move_code[j]
            t = code >> 1
            if code & 1:
                vl = 1.0 - hi[t]
                vh = 1.0 - lo[t]
            else:
                vl = lo[t]
                vh = hi[t]
            if vl > bl:
                bl = vl
            if vh > bh:
                bh = vh
        low += roll_prob[r] * bl
        high += roll_prob[r] * bh
    # Two bounds of one value: keep the better of the old and the new (rounding could
    # otherwise step a bound back by an ulp).
    if low > lo[i]:
        lo[i] = low
    if high < hi[i]:
        hi[i] = high
    return hi[i] - lo[i]


@njit(cache=True)
def _sweep_active(lo: Any, hi: Any, table: Any, order: Any, a: int, b: int, target: float) -> Any:
    """Update the positions ``order[a:b]`` in order; keep those whose gap is still above
    a quarter of ``target`` at the front, in order. Returns ``(largest gap, how many were
    kept)``. Skipping a position whose gap is that small is sound: its bounds stay
    bounds and its gap never grows again (the lower bound only rises, the upper only
    falls); it is left well within the target so that the positions that read it can
    still close within the target (their gaps tend to the gaps they read, plus
    rounding)."""
    keep = 0.25 * target
    g = 0.0
    m = a
    for q in range(a, b):
        i = order[q]
        d = _update(lo, hi, table, i)
        if d > keep:
            order[m] = i
            m += 1
            if d > g:
                g = d
    return g, m - a


@njit(cache=True)
def _judge(g: float, target: float, accept: float, best: Any, count: int, most: int) -> int:
    """After ``count`` sweeps of a component with gap ``g``: -1 to go on, else how it
    ended. ``best`` holds ``[smallest gap so far, sweeps since, stall limit]``."""
    if g <= target:
        return OK
    if g < best[0] * (1.0 - 1e-9):
        best[0] = g
        best[1] = 0.0
    else:
        best[1] += 1.0
        if best[1] >= best[2]:
            return OK if g <= accept else STALLED
    if count >= most:
        return MAXED
    return -1


@njit(cache=True)
def solve_run(
    lo: Any, hi: Any, table: Any, order: Any, comp_ptr: Any, c0: int, c1: int, limits: Any
) -> Any:
    """Solve components ``c0 .. c1 - 1`` one after the other, serially (see the module
    docstring); ``limits`` is ``(target, accept, stall, most)``. Returns ``(status,
    component, most sweeps of one, position updates, largest gap)``; a status other than
    :data:`OK` stops at the component that had it."""
    target, accept, stall, most = limits
    best = np.zeros(3)
    most_sweeps = 0
    updates = 0
    worst = 0.0
    for c in range(c0, c1):
        a = comp_ptr[c]
        b = comp_ptr[c + 1]
        best[0] = np.inf
        best[1] = 0.0
        best[2] = stall
        count = 0
        m = b - a
        while True:
            updates += m
            g, m = _sweep_active(lo, hi, table, order, a, a + m, target)
            count += 1
            status = _judge(g, target, accept, best, count, int(most))
            if status >= 0:
                break
        most_sweeps = max(most_sweeps, count)
        worst = max(worst, g)
        if status != OK:
            return status, c, most_sweeps, updates, worst
    return OK, c1, most_sweeps, updates, worst


@njit(cache=True, parallel=True)
def solve_big(lo: Any, hi: Any, table: Any, order: Any, a: int, b: int, limits: Any) -> Any:
    """Solve the one large component ``order[a:b]``, each sweep in parallel over 64
    chunks of it (each chunk in order, keeping its unfinished positions at its front);
    returns ``(status, sweeps, largest gap of the unfinished, position updates)``."""
    target, accept, stall, most = limits
    best = np.array([np.inf, 0.0, stall])
    chunks = 64
    n = b - a
    gaps = np.zeros(chunks)
    starts = np.empty(chunks, np.int64)
    active = np.empty(chunks, np.int64)
    for c in range(chunks):
        starts[c] = a + c * n // chunks
        active[c] = a + (c + 1) * n // chunks - starts[c]
    count = 0
    updates = 0
    while True:
        updates += active.sum()
        for c in prange(chunks):
            gaps[c], active[c] = _sweep_active(
                lo, hi, table, order, starts[c], starts[c] + active[c], target
            )
        count += 1
        status = _judge(gaps.max(), target, accept, best, count, int(most))
        if status >= 0:
            return status, count, gaps.max(), updates
