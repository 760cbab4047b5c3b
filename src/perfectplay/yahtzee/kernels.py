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

**Saved throws** (``Rules.save_throws``, Maxi Yatzy): a turn that carries ``s`` throws
has ``rolls + s``; after the first throw, with ``r`` throws left, the player may stop and
fill a box, carrying ``r`` into the next turn. Ending on hand ``h`` with ``r`` left is
worth ``F_r[h]``, the same box choice read from the next states with ``r`` saved
(:func:`saved_values`: the table's stride of the cards with ``r`` saved, so the scoring
kernels above serve unchanged), and a hand with ``r`` left is worth ``W_r = max(F_r,
reroll(W_{r-1}))``, ``W_0 = F_0``. ``W_r`` does not depend on the throws the turn
started with, so one chain of rerolls up to the most throws a card can carry gives the
value of every count at once: carrying ``s`` is worth the mean of ``W_{rolls - 1 + s}``
over the first throw (:func:`solve_saved_states`).

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

from perfectplay.lattice.kernels import njit, prange, reroll, threads, turn_values

if TYPE_CHECKING:
    from perfectplay.lattice.arrays import LatticeArrays
    from perfectplay.yahtzee.game import ScorecardArrays

__all__ = [
    "BATCH",
    "box_values",
    "decode",
    "final_values",
    "place",
    "saved_keep_values",
    "saved_values",
    "solve_plain_states",
    "solve_saved_states",
    "solve_states",
]

BATCH = 32
"""Scorecards whose rerolls are evaluated together (vectorised across the batch). Much of
a reroll's cost is setting up a loop per keep and face, shared by the whole batch: 16
took 27% more CPU to solve ``american``, 64 no less than 32 (and leaves fewer batches
to share among cores)."""

# SCRATCH: each thread of a prange loop takes one contiguous run of batches (numba's own
# static split) and allocates its scratch once. Allocated per batch, maxi's 236 KB
# arrays were each a fresh mmap and munmap wherever malloc's thresholds are fixed, as a
# Dask worker fixes them (MALLOC_TRIM_THRESHOLD_): its batches ran three times slower.


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
    # Each hand's best box is kept in ``row`` (contiguous) and written to ``out`` once:
    # ``out``'s column is strided, and updating it box by box took a third longer.
    # Allocating ``row`` here costs nothing measurable (one allocation a scorecard).
    row = np.empty(n_hands)
    for h in range(n_hands):
        row[h] = -math.inf
    for c in range(n_cat):
        if (mask >> c) & 1:
            continue
        nm = mask | (1 << c)
        for k in range(n_cls[c]):
            cv[k] = place(V, nm, u, y, c, cls_score[c, k], g)
        for h in range(n_hands):
            v = cv[cls[c, h]]
            t = row[h]
            row[h] = v if v > t else t
    for h in range(n_hands):
        out[h, col] = row[h]
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


def solve_states(V: Any, states: Any, g: ScorecardArrays, lat: LatticeArrays) -> None:
    """``V[s]`` for each state ``s`` of ``states``, reading ``V`` of the states one box
    fuller (which must be solved): :func:`solve_plain_states`, or
    :func:`solve_saved_states` for rules that save throws (chosen here, in Python, so that
    the other rule sets never compile the saved-throw kernel)."""
    if g.n_saved_values > 1:
        solve_saved_states(V, states, g, lat, threads())
    else:
        solve_plain_states(V, states, g, lat, threads())


@njit(cache=True, parallel=True, boundscheck=False)
def solve_plain_states(
    V: Any, states: Any, g: ScorecardArrays, lat: LatticeArrays, n_threads: int
) -> None:
    """:func:`solve_states` without saved throws: :data:`BATCH` states at a time, in
    parallel on ``n_threads``."""
    n_states = states.shape[0]
    n_hands = g.score.shape[1]
    n_keeps = lat.add.shape[0]
    width = max(g.cls_score.shape[1], g.score.shape[0])
    n_batches = (n_states + BATCH - 1) // BATCH
    runs = min(n_batches, max(1, n_threads))
    for t in prange(runs):  # a thread's run of batches, its scratch allocated once (SCRATCH)
        cur = np.empty((n_hands, BATCH))
        E = np.empty((n_keeps, BATCH))
        M = np.empty((n_keeps, BATCH))
        cv = np.empty(width)
        vals = np.empty(BATCH)
        for b in range(t * n_batches // runs, (t + 1) * n_batches // runs):
            cur[:] = 0.0
            lo = b * BATCH
            hi = min(n_states, lo + BATCH)
            for j in range(hi - lo):
                mask, u, y = decode(states[lo + j], g)
                final_values(cur, j, V, mask, u, y, g, cv)
            turn_values(cur, E, M, lat, vals)
            for j in range(hi - lo):
                V[states[lo + j]] = vals[j]


@njit(cache=True, boundscheck=False, inline="always")
def saved_values(V: Any, r: int, g: ScorecardArrays) -> Any:
    """The values of ``V`` for every card with ``r`` throws saved (capped at the most the
    rules carry): a stride of the table, indexed by card number, which is what
    :func:`place` reads."""
    n_s = g.n_saved_values
    return V[min(r, n_s - 1) :: n_s]


@njit(cache=True, parallel=True, boundscheck=False)
def solve_saved_states(
    V: Any, states: Any, g: ScorecardArrays, lat: LatticeArrays, n_threads: int
) -> None:
    """:func:`solve_states` for rules that save throws: ``states`` holds the counts of one
    card consecutively (as ``ScorecardGame.tier_states`` lists them); one chain of rerolls
    per card gives every count it holds (see the module docstring), :data:`BATCH` cards
    at a time, in parallel."""
    n_s = g.n_saved_values
    n = states.shape[0]
    starts = np.empty(n + 1, dtype=np.int64)
    n_cards = 0
    for i in range(n):
        if i == 0 or states[i] // n_s != states[i - 1] // n_s:
            starts[n_cards] = i
            n_cards += 1
    starts[n_cards] = n
    n_hands = g.score.shape[1]
    n_keeps = lat.add.shape[0]
    width = max(g.cls_score.shape[1], g.score.shape[0])
    first = lat.rolls - 1  # throws left after the first throw of a turn that carries none
    hand_prob = lat.hand_prob
    n_batches = (n_cards + BATCH - 1) // BATCH
    runs = min(n_batches, max(1, n_threads))
    for t in prange(runs):  # a thread's run of batches, its scratch allocated once (SCRATCH)
        cur = np.empty((n_hands, BATCH))
        tmp = np.empty((n_hands, BATCH))
        E = np.empty((n_keeps, BATCH))
        M = np.empty((n_keeps, BATCH))
        cv = np.empty(width)
        for b in range(t * n_batches // runs, (t + 1) * n_batches // runs):
            cur[:] = 0.0
            tmp[:] = 0.0
            lo = b * BATCH
            nb = min(n_cards, lo + BATCH) - lo
            top = 0
            for i in range(starts[lo], starts[lo + nb]):
                top = max(top, states[i] % n_s)
            for r in range(first + top + 1):
                if r > 0:
                    reroll(cur, E, M, lat)
                Vr = saved_values(V, r, g)
                for j in range(nb):
                    mask, u, y = decode(states[starts[lo + j]] // n_s, g)
                    final_values(tmp, j, Vr, mask, u, y, g, cv)
                for h in range(n_hands):
                    for j in range(nb):
                        if r == 0 or tmp[h, j] > cur[h, j]:
                            cur[h, j] = tmp[h, j]
                if r < first:
                    continue
                for j in range(nb):
                    for i in range(starts[lo + j], starts[lo + j + 1]):
                        if states[i] % n_s == r - first:
                            total = 0.0
                            for h in range(n_hands):
                                total += hand_prob[h] * cur[h, j]
                            V[states[i]] = total


@njit(cache=True, boundscheck=False)
def saved_keep_values(
    V: Any, mask: int, u: int, y: int, r: int, g: ScorecardArrays, lat: LatticeArrays
) -> Any:
    """Every keep's value with ``r >= 1`` throws left in the card ``(mask, u, y)`` of rules
    that save throws: keep, throw the other dice, and go on with ``r - 1`` left (the chain
    ``W`` of the module docstring up to ``W_{r - 1}``, then one more reroll)."""
    n_hands = g.score.shape[1]
    n_keeps = lat.add.shape[0]
    cur = np.empty((n_hands, 1))
    tmp = np.empty((n_hands, 1))
    E = np.empty((n_keeps, 1))
    M = np.empty((n_keeps, 1))
    cv = np.empty(max(g.cls_score.shape[1], g.score.shape[0]))
    final_values(cur, 0, saved_values(V, 0, g), mask, u, y, g, cv)
    for j in range(1, r):
        reroll(cur, E, M, lat)
        final_values(tmp, 0, saved_values(V, j, g), mask, u, y, g, cv)
        for h in range(n_hands):
            if tmp[h, 0] > cur[h, 0]:
                cur[h, 0] = tmp[h, 0]
    reroll(cur, E, M, lat)
    return E[:, 0].copy()
