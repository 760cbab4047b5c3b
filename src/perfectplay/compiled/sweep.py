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

**Extrapolation, certified.** Sweeps shrink a component's gaps by about the same factor
``rho`` each time (the chance that play goes once more round its cycles). Where the
component provably ends (below), the solver extrapolates the bounds' geometric tails
(Aitken: the limit is ``x + (x - x_prev) * rho / (1 - rho)``) to a box ``B`` of widths
proportional to the current gaps and at most a quarter of ``target``, and keeps it only
if one sweep started from ``B`` stays inside ``B``, each position's update within its
own interval: then the map ``G`` of the sweep, with the exits' true values (anywhere in
their proven bounds, by monotony), maps ``B`` into itself, and being continuous it has
a fixed point in ``B`` (Brouwer); the values of the game are ``G``'s only fixed point,
so they lie in ``B`` and in the box after that sweep. Otherwise the bounds are put back
and the sweeps go on (the box never replaces proven bounds unchecked).

Uniqueness: a component *provably ends* when no set ``S`` of its positions lets the
players (both choosing for that purpose) stay in ``S`` for ever, that is when the
largest ``S`` in which every outcome of every position has a move into ``S`` is empty
(:func:`_ends`, computed by removing positions until none is left, or the component is
not extrapolated). Then from every position, whatever the moves, play leaves the
component within ``N`` turns (its size) with probability at least ``p^N`` (``p`` the
least outcome probability), so ``N`` updates shrink the distance of any two solutions
by ``1 - p^N < 1``: the fixed point is unique. Pig and the Royal Game of Ur end in this
sense in every component.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

__all__ = ["MAXED", "OK", "STALLED", "solve_big", "solve_run"]

#: How a component ended: certified, out of sweeps, or its gap stopped shrinking.
OK, MAXED, STALLED = 0, 1, 2

# Extrapolate only when the gap's shrink factor is below this and steady to this much.
_RHO_MAX = 0.98
_RHO_STEADY = 0.02


@njit(cache=True)
def _bounds(lo: Any, hi: Any, table: Any, i: int) -> Any:
    """The bounds of position ``i`` that one update gives, ``(low, high)``, unwritten.
    ``table`` is the layer's successor table ``(roll_ptr, roll_prob, roll_const, eps,
    move_ptr, move_code)``: ``roll_const`` is the best value of an outcome's moves that
    leave the layer (-1: none), known to ``eps``; a move within it is ``2 * index +
    flip``."""
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
    return low, high


@njit(cache=True)
def _update(lo: Any, hi: Any, table: Any, row: int, i: int) -> Any:
    """Update both bounds of the position in slot ``i`` (its moves in ``row`` of the
    table) in place; returns its gap."""
    low, high = _bounds(lo, hi, table, row)
    # Two bounds of one value: keep the better of the old and the new (rounding could
    # otherwise step a bound back by an ulp).
    if low > lo[i]:
        lo[i] = low
    if high < hi[i]:
        hi[i] = high
    return hi[i] - lo[i]


@njit(cache=True)
def _sweep(lo: Any, hi: Any, table: Any, order: Any, a: int, b: int) -> float:
    """Update the positions in slots ``a .. b - 1`` in order (slot ``q``'s moves are row
    ``order[q]`` of the table); returns the largest gap after."""
    g = 0.0
    for q in range(a, b):
        g = max(g, _update(lo, hi, table, order[q], q))
    return g


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
def _ends(table: Any, order: Any, a: int, b: int, inside: Any) -> bool:
    """Whether the component in slots ``a .. b - 1`` provably ends (module docstring): removes
    positions with an outcome whose moves all leave the positions left, in passes (in
    the search's finishing order most go in the first), up to 64 passes (then it is not
    proven)."""
    roll_ptr, _, _, _, move_ptr, move_code = table
    for q in range(a, b):
        inside[q] = True
    left = b - a
    for _ in range(64):
        removed = False
        for q in range(a, b):
            if not inside[q]:
                continue
            i = order[q]
            for r in range(roll_ptr[i], roll_ptr[i + 1]):
                stays = False
                for j in range(move_ptr[r], move_ptr[r + 1]):
                    t = move_code[j] >> 1
                    if a <= t < b and inside[t]:
                        stays = True
                        break
                if not stays:
                    inside[q] = False
                    removed = True
                    left -= 1
                    break
        if left == 0 or not removed:
            break
    for q in range(a, b):
        inside[q] = False
    return left == 0


@njit(cache=True)
def _limits(q: int, rho: float, kept: Any, prev: Any) -> Any:
    """The extrapolated limits of the bounds of the component's ``q``-th position
    (module docstring) from its bounds now (``kept``) and before the last sweep
    (``prev``), and a thousandth of the part of its gap still shrinking."""
    low, high = kept[0, q], kept[1, q]
    f = rho / (1.0 - rho)
    el = min(max(low + (low - prev[0, q]) * f, low), high)
    eh = max(min(high - (prev[1, q] - high) * f, high), low)
    if el > eh:
        el = eh = 0.5 * (el + eh)
    return el, eh, 0.001 * ((high - low) - (eh - el)) + 1e-16


@njit(cache=True)
def _certify(
    lo: Any,
    hi: Any,
    table: Any,
    order: Any,
    a: int,
    b: int,
    rho: float,
    kept: Any,
    prev: Any,
) -> bool:
    """Try an extrapolated box for the component ``order[a:b]`` (module docstring): the
    limits, widened a little, within the proven bounds. On success the bounds are the
    box after the checking sweep (with the proven ones), else as before."""
    for q in range(a, b):
        kept[0, q - a] = lo[q]
        kept[1, q - a] = hi[q]
    for q in range(a, b):
        el, eh, w = _limits(q - a, rho, kept, prev)
        lo[q] = max(el - w, kept[0, q - a])
        hi[q] = min(eh + w, kept[1, q - a])
    ok = True
    for q in range(a, b):
        low, high = _bounds(lo, hi, table, order[q])  # the update from the box
        if low < lo[q] or high > hi[q]:
            ok = False
            break
        lo[q], hi[q] = low, high
    for q in range(a, b):
        if ok:  # both are bounds: keep the tighter of each
            lo[q] = max(lo[q], kept[0, q - a])
            hi[q] = min(hi[q], kept[1, q - a])
        else:
            lo[q] = kept[0, q - a]
            hi[q] = kept[1, q - a]
    return ok


@njit(cache=True)
def _solve_component(
    lo: Any,
    hi: Any,
    table: Any,
    order: Any,
    a: int,
    b: int,
    limits: Any,
    inside: Any,
    scratch: Any,
) -> Any:
    """Sweep the component in slots ``a .. b - 1`` until its gap is within the target,
    trying the certified extrapolation where it provably ends (asked after two sweeps:
    most positions on no cycle are done after one); returns ``(status, sweeps)``.
    ``inside`` is a False flag per slot; ``scratch`` two ``(2, size)`` arrays."""
    target, accept, stall, most = limits
    kept, prev = scratch
    best = np.array([np.inf, 0.0, stall])
    ends = False
    count = 0
    last = 1.0
    rho_last = 2.0
    wait = 0
    backoff = 1
    while True:
        if ends and wait <= 0:  # a check may follow this sweep: keep the bounds before it
            for q in range(a, b):
                prev[0, q - a] = lo[q]
                prev[1, q - a] = hi[q]
        g = _sweep(lo, hi, table, order, a, b)
        count += 1
        status = _judge(g, target, accept, best, count, int(most))
        if status >= 0:
            return status, count
        rho = g / last
        if count == 2:
            ends = _ends(table, order, a, b, inside)
        if (
            ends
            and wait <= 0
            and count >= 3
            and rho < _RHO_MAX
            and abs(rho - rho_last) < _RHO_STEADY
        ):
            if _certify(lo, hi, table, order, a, b, rho, kept, prev):
                count += 1
                g = 0.0
                for q in range(a, b):
                    g = max(g, hi[q] - lo[q])
                if g <= target:
                    return OK, count
                wait = 1
            else:  # a check that failed cost a sweep: wait longer after each
                wait = backoff
                backoff *= 2
        wait -= 1
        last, rho_last = g, rho


@njit(cache=True)
def solve_run(
    lo: Any, hi: Any, table: Any, order: Any, comp_ptr: Any, c0: int, c1: int, limits: Any
) -> Any:
    """Solve components ``c0 .. c1 - 1`` one after the other, serially (see the module
    docstring). Component ``c`` holds slots ``comp_ptr[c] .. comp_ptr[c + 1] - 1``, the
    bounds ``lo``, ``hi`` are per slot, the moves of slot ``q`` are row ``order[q]`` of
    the table and name their targets by slot; ``limits`` is ``(target, accept, stall,
    most)``. Returns ``(status, component, most sweeps of one, position updates, largest
    gap)``; a status other than :data:`OK` stops at the component that had it."""
    inside = np.zeros(len(lo), np.bool_)
    size = 1
    for c in range(c0, c1):
        size = max(size, comp_ptr[c + 1] - comp_ptr[c])
    kept = np.empty((2, size))
    prev = np.empty((2, size))
    most_sweeps = 0
    updates = 0
    worst = 0.0
    for c in range(c0, c1):
        a = comp_ptr[c]
        b = comp_ptr[c + 1]
        status, count = _solve_component(lo, hi, table, order, a, b, limits, inside, (kept, prev))
        updates += count * (b - a)
        most_sweeps = max(most_sweeps, count)
        if status != OK:
            for q in range(a, b):
                worst = max(worst, hi[q] - lo[q])
            return status, c, most_sweeps, updates, worst
    return OK, c1, most_sweeps, updates, worst


@njit(cache=True, parallel=True)
def solve_big(lo: Any, hi: Any, table: Any, order: Any, a: int, b: int, limits: Any) -> Any:
    """Solve the one large component in slots ``a .. b - 1``, each sweep in parallel over 64
    chunks of it (each chunk in order); returns ``(status, sweeps, largest gap,
    position updates)``."""
    target, accept, stall, most = limits
    best = np.array([np.inf, 0.0, stall])
    chunks = 64
    n = b - a
    gaps = np.zeros(chunks)
    count = 0
    while True:
        for c in prange(chunks):
            gaps[c] = _sweep(lo, hi, table, order, a + c * n // chunks, a + (c + 1) * n // chunks)
        count += 1
        status = _judge(gaps.max(), target, accept, best, count, int(most))
        if status >= 0:
            return status, count, gaps.max(), count * n
