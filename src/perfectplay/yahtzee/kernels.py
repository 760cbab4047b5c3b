"""Compiled kernels of the scorecard solver: the value of a turn from a scorecard state.

A state's value is one turn (:mod:`perfectplay.lattice.kernels`): the end value of each
hand is the best open box for it (its points, the upper bonus when the total crosses the
threshold, the extra-n-of-a-kind bonus and joker values where the rules give them, plus
the value of the next state), then the rerolls on the turn lattice and the mean over the
first roll. The per-hand scoring runs one scorecard at a time, the rerolls on batches of
:data:`BATCH` scorecards at once (vectorised across the batch).

Every kernel reads the game through one record,
:class:`~perfectplay.yahtzee.game.ScorecardArrays` (``g`` below), and the turn through
the lattice's, :class:`~perfectplay.lattice.LatticeArrays` (``lat``); two records rather
than one nested in the other, because numba's parallel loops take tuples of arrays and
scalars but not tuples of tuples. :mod:`perfectplay.yahtzee.solver` runs these kernels
tier by tier; the policy, the score distribution and the simulation call the same ones,
so every path scores a hand the same way. ``PERFECTPLAY_NO_JIT=1`` runs the same source
as Python (:mod:`perfectplay.lattice.kernels`).

>>> import numpy as np
>>> from perfectplay.yahtzee.ruleset import Category, Rules
>>> from perfectplay.yahtzee.game import ScorecardGame
>>> g = ScorecardGame(Rules("max", (Category("max", max),), dice=2, faces=2, rolls=1,
...                         upper_threshold=0))
>>> V = np.zeros(g.n_states)
>>> solve_states(V, np.array([g.state_index(0, 0, 0)]), g.arrays, g.lattice.arrays)
>>> float(V[0])                                  # max of two coins 1/2: 1.75
1.75
>>> decode(g.state_index(0, 0, 0), g.arrays)    # (filled boxes, upper total, kind)
(0, 0, 0)
>>> place(V, 1, 0, 0, 0, 2, g.arrays)            # 2 points, then the full card: 0
2.0
>>> out = np.empty(1)
>>> box_values(out, V, 0, 0, 0, 1, g.arrays)      # hand 1 (1 2) in the box: 2 points
>>> out.tolist()
[2.0]
>>> final = np.empty((g.lattice.n_hands, 1))
>>> final_values(final, 0, V, 0, 0, 0, g.arrays, np.empty(2))
>>> final[:, 0].tolist()                          # hands 1 1, 1 2, 2 2
[1.0, 2.0, 2.0]
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from perfectplay.lattice.kernels import njit, prange, turn_values

if TYPE_CHECKING:
    from perfectplay.lattice.arrays import LatticeArrays
    from perfectplay.yahtzee.game import ScorecardArrays

__all__ = ["BATCH", "box_values", "decode", "final_values", "place", "solve_states"]

BATCH = 16
"""Scorecards whose rerolls are evaluated together (vectorised across the batch)."""


@njit(cache=True, boundscheck=False, inline="always")
def decode(s: int, g: ScorecardArrays) -> tuple[int, int, int]:
    """``(mask, upper, kind)`` of state number ``s`` inside kernels (the numbering of
    :meth:`perfectplay.yahtzee.game.ScorecardGame.decode`)."""
    n_u = g.n_upper_values
    n_y = g.n_kind_values
    return s // (n_y * n_u), (s // n_y) % n_u, s % n_y


@njit(cache=True, boundscheck=False, inline="always")
def place(V: Any, nm: int, u: int, y: int, c: int, s: int, g: ScorecardArrays) -> float:
    """Points for ``s`` in box ``c`` (bonuses included) plus the value ``V`` gives the
    next state (filled boxes ``nm``, from upper total ``u`` and kind flag ``y``)."""
    n_u = g.n_upper_values
    n_y = g.n_kind_values
    thr = g.threshold
    gain = float(s)
    nu = u
    ny = y
    if g.upper[c] and n_u > 1:
        nu = u + s
        if nu >= thr:
            nu = thr
            if u < thr:
                gain += g.bonus
    if c == g.kind_box and n_y == 2 and s > 0:
        ny = 1
    result: float = gain + V[(nm * n_u + nu) * n_y + ny]
    return result


@njit(cache=True, boundscheck=False)
def final_values(
    out: Any, col: int, V: Any, mask: int, u: int, y: int, g: ScorecardArrays, cv: Any
) -> None:
    """``out[h, col]``: the value of ending the turn on hand ``h`` in state (mask, u, y);
    ``cv`` is scratch of at least ``max(classes, boxes)``."""
    score = g.score
    cls = g.cls
    cls_score = g.cls_score
    n_cls = g.n_cls
    kind_box = g.kind_box
    n_cat, n_hands = score.shape
    for h in range(n_hands):
        out[h, col] = -math.inf
    for c in range(n_cat):
        if (mask >> c) & 1:
            continue
        nm = mask | (1 << c)
        for k in range(n_cls[c]):
            cv[k] = place(V, nm, u, y, c, cls_score[c, k], g)
        for h in range(n_hands):
            v = cv[cls[c, h]]
            if v > out[h, col]:
                out[h, col] = v
    if kind_box < 0 or not (mask >> kind_box) & 1:
        return
    # An extra n-of-a-kind: the bonus, and where the rules say, joker values and placement.
    kind_hand = g.kind_hand
    for f in range(kind_hand.shape[0]):
        h = kind_hand[f]
        box_values(cv, V, mask, u, y, h, g)
        best = -math.inf
        for c in range(n_cat):
            if cv[c] > best:
                best = cv[c]
        out[h, col] = best


@njit(cache=True, boundscheck=False)
def box_values(out: Any, V: Any, mask: int, u: int, y: int, h: int, g: ScorecardArrays) -> None:
    """``out[c]``: the value of scoring hand ``h`` in box ``c`` (points, bonuses, the next
    state's value), ``-inf`` where the box is filled or the rules forbid it. The one place
    that applies the extra n-of-a-kind bonus and the joker rules."""
    score = g.score
    upper = g.upper
    kind_box = g.kind_box
    kind_hand = g.kind_hand
    joker = g.joker
    joker_score = g.joker_score
    n_cat = score.shape[0]
    face = -1
    if kind_box >= 0 and (mask >> kind_box) & 1:
        for f in range(kind_hand.shape[0]):
            if kind_hand[f] == h:
                face = f
    for c in range(n_cat):
        out[c] = -math.inf
    if face < 0:
        for c in range(n_cat):
            if not (mask >> c) & 1:
                out[c] = place(V, mask | (1 << c), u, y, c, score[c, h], g)
        return
    extra = float(g.kind_bonus) if y == 1 else 0.0
    fb = g.face_box[face]
    if joker == 2 and fb >= 0 and not (mask >> fb) & 1:
        # forced joker: the upper box of the face while it is open
        out[fb] = extra + place(V, mask | (1 << fb), u, y, fb, score[fb, h], g)
        return
    lower_open = False
    if joker == 2:
        for c in range(n_cat):
            if not (mask >> c) & 1 and not upper[c]:
                lower_open = True
    active = joker == 2 or (joker == 1 and (fb < 0 or (mask >> fb) & 1))
    for c in range(n_cat):
        if (mask >> c) & 1 or (lower_open and upper[c]):
            continue
        s = joker_score[c] if active and joker_score[c] >= 0 else score[c, h]
        out[c] = extra + place(V, mask | (1 << c), u, y, c, s, g)


@njit(cache=True, parallel=True, boundscheck=False)
def solve_states(V: Any, states: Any, g: ScorecardArrays, lat: LatticeArrays) -> None:
    """``V[s]`` for each state ``s`` of ``states``, reading ``V`` of the states one box
    fuller (which must be solved); :data:`BATCH` states at a time, in parallel."""
    n_states = states.shape[0]
    n_hands = g.score.shape[1]
    n_keeps = lat.add.shape[0]
    width = max(g.cls_score.shape[1], g.score.shape[0])
    for b in prange((n_states + BATCH - 1) // BATCH):
        cur = np.zeros((n_hands, BATCH))
        E = np.empty((n_keeps, BATCH))
        M = np.empty((n_keeps, BATCH))
        cv = np.empty(width)
        vals = np.empty(BATCH)
        lo = b * BATCH
        hi = min(n_states, lo + BATCH)
        for j in range(hi - lo):
            mask, u, y = decode(states[lo + j], g)
            final_values(cur, j, V, mask, u, y, g, cv)
        turn_values(cur, E, M, lat, vals)
        for j in range(hi - lo):
            V[states[lo + j]] = vals[j]
