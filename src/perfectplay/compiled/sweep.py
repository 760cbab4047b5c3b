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
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

__all__ = ["sweep", "sweeps"]


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


@njit(cache=True, parallel=True)
def sweep(lo: Any, hi: Any, table: Any, chunks: int, backward: bool) -> Any:
    """One in-place sweep of both bounds over the layer, in parallel over ``chunks``
    (each in order, or in reverse when ``backward``); returns the largest gap ``U - L``
    after it."""
    n = len(lo)
    gaps = np.zeros(chunks)
    for c in prange(chunks):
        g = 0.0
        a = c * n // chunks
        b = (c + 1) * n // chunks
        for q in range(a, b):
            i = a + b - 1 - q if backward else q
            g = max(g, _update(lo, hi, table, i))
        gaps[c] = g
    return gaps.max()


@njit(cache=True)
def sweeps(lo: Any, hi: Any, table: Any, target: float, most: int) -> Any:
    """Up to ``most`` serial sweeps, alternately forward and backward (symmetric
    Gauss-Seidel: the order of the keys favours neither direction), until the gap is
    at most ``target``; returns ``(sweeps, gap)``."""
    n = len(lo)
    g = 1.0
    for count in range(1, most + 1):
        g = 0.0
        for q in range(n):
            g = max(g, _update(lo, hi, table, q if count % 2 else n - 1 - q))
        if g <= target:
            return count, g
    return most, g
