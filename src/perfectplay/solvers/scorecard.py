"""Tiered backward induction over the scorecards of a Yahtzee-family game.

Between turns the game is in a *scorecard state*: the set of filled boxes (a bit mask),
the upper-section total capped at the bonus threshold (larger totals earn the same
bonus), and, when the rules pay for extra n-of-a-kinds, whether the n-of-a-kind box holds
a non-zero score. Each turn fills exactly one box, so a state's successors all have one
more box filled: the states form *tiers* by the number of filled boxes, and solving the
tiers from the full card down to the empty one is backward induction (Bellman 1957) with
every value exact up to float rounding. Within a tier the states read only the finished
tier above, so a tier is a list of independent batches (:func:`tier_batches`); one call
of :func:`solve_batch` solves a batch, and the batches of a tier can run on any number of
cores or machines.

A state's value is one turn (:mod:`perfectplay.solvers.turns`): the end value of each hand
is the best open box for it (its points, the upper bonus when the total crosses the
threshold, the extra-n-of-a-kind bonus and joker values where the rules give them, plus
the value of the next state), then two rerolls on the turn lattice and the mean over the
first roll. Only reachable states are solved: an upper total is reachable when the
filled upper boxes can make it. The per-hand scoring runs one scorecard at a time, the
rerolls on batches of 16 scorecards at once (vectorised across the batch).

References: Verhoeff (1999), "Optimal solitaire Yahtzee advisor and Yahtzee proficiency
test"; Glenn (2006), "An optimal strategy for Yahtzee", CS-TR-0002, Loyola College.

>>> from perfectplay.yahtzee.ruleset import Category, Rules
>>> from perfectplay.yahtzee.game import ScorecardGame
>>> one_box = Rules("one box", (Category("chance", sum),), dice=1, rolls=2, upper_threshold=0)
>>> g = ScorecardGame(one_box)
>>> V = solve_all(g)
>>> float(V[g.state_index(0, 0, 0)])       # one die, reroll 1-3: 4.25
4.25
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from perfectplay._util.memory import require
from perfectplay._util.progress import Progress
from perfectplay.solvers.turns import njit, prange, turn_values

if TYPE_CHECKING:
    from perfectplay.yahtzee.game import ScorecardGame

__all__ = ["BATCH", "box_values", "solve_all", "solve_batch", "tier_batches"]

BATCH = 16
"""Scorecards whose rerolls are evaluated together (vectorised across the batch)."""

_JOKER = {"none": 0, "free": 1, "forced": 2}


@njit(cache=True, boundscheck=False, inline="always")
def _decode(s: int, n_u: int, n_y: int) -> tuple[int, int, int]:
    """``(mask, upper, kind)`` of state number ``s`` inside kernels (the numbering of
    :meth:`perfectplay.yahtzee.game.ScorecardGame.decode`)."""
    return s // (n_y * n_u), (s // n_y) % n_u, s % n_y


@njit(cache=True, boundscheck=False, inline="always")
def _place(
    V: Any,
    nm: int,
    u: int,
    y: int,
    c: int,
    s: int,
    upper: Any,
    thr: int,
    bonus: int,
    n_u: int,
    n_y: int,
    kind_box: int,
) -> float:
    """Points for ``s`` in box ``c`` (bonuses included) plus the next state's value."""
    g = float(s)
    nu = u
    ny = y
    if upper[c] and n_u > 1:
        nu = u + s
        if nu >= thr:
            nu = thr
            if u < thr:
                g += bonus
    if c == kind_box and n_y == 2 and s > 0:
        ny = 1
    return g + V[(nm * n_u + nu) * n_y + ny]


@njit(cache=True, boundscheck=False)
def _final_values(
    out: Any,
    col: int,
    V: Any,
    mask: int,
    u: int,
    y: int,
    score: Any,
    cls: Any,
    cls_score: Any,
    n_cls: Any,
    upper: Any,
    thr: int,
    bonus: int,
    n_u: int,
    n_y: int,
    kind_box: int,
    kind_bonus: int,
    joker: int,
    joker_score: Any,
    face_box: Any,
    kind_hand: Any,
    cv: Any,
) -> None:
    """``out[h, col]``: the value of ending the turn on hand ``h`` in state (mask, u, y)."""
    n_cat, n_hands = score.shape
    for h in range(n_hands):
        out[h, col] = -math.inf
    for c in range(n_cat):
        if (mask >> c) & 1:
            continue
        nm = mask | (1 << c)
        for k in range(n_cls[c]):
            cv[k] = _place(V, nm, u, y, c, cls_score[c, k], upper, thr, bonus, n_u, n_y, kind_box)
        for h in range(n_hands):
            v = cv[cls[c, h]]
            if v > out[h, col]:
                out[h, col] = v
    if kind_box < 0 or not (mask >> kind_box) & 1:
        return
    # An extra n-of-a-kind: the bonus, and where the rules say, joker values and placement.
    for f in range(kind_hand.shape[0]):
        h = kind_hand[f]
        box_values(
            cv,
            V,
            mask,
            u,
            y,
            h,
            score,
            upper,
            thr,
            bonus,
            n_u,
            n_y,
            kind_box,
            kind_bonus,
            joker,
            joker_score,
            face_box,
            kind_hand,
        )
        best = -math.inf
        for c in range(n_cat):
            if cv[c] > best:
                best = cv[c]
        out[h, col] = best


@njit(cache=True, boundscheck=False)
def box_values(
    out: Any,
    V: Any,
    mask: int,
    u: int,
    y: int,
    h: int,
    score: Any,
    upper: Any,
    thr: int,
    bonus: int,
    n_u: int,
    n_y: int,
    kind_box: int,
    kind_bonus: int,
    joker: int,
    joker_score: Any,
    face_box: Any,
    kind_hand: Any,
) -> None:
    """``out[c]``: the value of scoring hand ``h`` in box ``c`` (points, bonuses, the next
    state's value), ``-inf`` where the box is filled or the rules forbid it. The one place
    that applies the extra n-of-a-kind bonus and the joker rules."""
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
                out[c] = _place(
                    V, mask | (1 << c), u, y, c, score[c, h], upper, thr, bonus, n_u, n_y, kind_box
                )
        return
    extra = float(kind_bonus) if y == 1 else 0.0
    fb = face_box[face]
    if joker == 2 and fb >= 0 and not (mask >> fb) & 1:
        # forced joker: the upper box of the face while it is open
        out[fb] = extra + _place(
            V, mask | (1 << fb), u, y, fb, score[fb, h], upper, thr, bonus, n_u, n_y, kind_box
        )
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
        out[c] = extra + _place(
            V, mask | (1 << c), u, y, c, s, upper, thr, bonus, n_u, n_y, kind_box
        )


@njit(cache=True, parallel=True, boundscheck=False)
def _solve_states(
    V: Any,
    states: Any,
    score: Any,
    cls: Any,
    cls_score: Any,
    n_cls: Any,
    upper: Any,
    thr: int,
    bonus: int,
    n_u: int,
    n_y: int,
    kind_box: int,
    kind_bonus: int,
    joker: int,
    joker_score: Any,
    face_box: Any,
    kind_hand: Any,
    add: Any,
    remove: Any,
    face_prob: Any,
    hand_prob: Any,
    rolls: int,
    batch: int,
) -> None:
    n_states = states.shape[0]
    n_hands = score.shape[1]
    n_keeps = add.shape[0]
    n_batches = (n_states + batch - 1) // batch
    for b in prange(n_batches):
        cur = np.zeros((n_hands, batch))
        E = np.empty((n_keeps, batch))
        M = np.empty((n_keeps, batch))
        cv = np.empty(max(cls_score.shape[1], score.shape[0]))
        vals = np.empty(batch)
        lo = b * batch
        hi = min(n_states, lo + batch)
        for j in range(hi - lo):
            mask, u, y = _decode(states[lo + j], n_u, n_y)
            _final_values(
                cur,
                j,
                V,
                mask,
                u,
                y,
                score,
                cls,
                cls_score,
                n_cls,
                upper,
                thr,
                bonus,
                n_u,
                n_y,
                kind_box,
                kind_bonus,
                joker,
                joker_score,
                face_box,
                kind_hand,
                cv,
            )
        turn_values(cur, E, M, add, remove, face_prob, hand_prob, rolls, vals)
        for j in range(hi - lo):
            V[states[lo + j]] = vals[j]


def _arguments(game: ScorecardGame) -> tuple[Any, ...]:
    lat = game.lattice
    return (
        game.score,
        game.cls,
        game.cls_score,
        game.n_cls,
        game.upper,
        game.threshold,
        game.bonus,
        game.n_upper_values,
        game.n_kind_values,
        game.kind_box,
        game.rules.kind_bonus,
        _JOKER[game.rules.joker],
        game.joker_score,
        game.face_box,
        game.kind_hand,
        lat.add,
        lat.remove,
        lat.face_prob,
        lat.hand_prob,
        lat.n_rolls,
    )


def solve_batch(game: ScorecardGame, values: np.ndarray, states: np.ndarray) -> None:
    """Solve the scorecard states ``states`` (one tier's batch) into ``values``, reading
    the values of the tier above, which must be solved.

    >>> from perfectplay.yahtzee.ruleset import Category, Rules
    >>> from perfectplay.yahtzee.game import ScorecardGame
    >>> g = ScorecardGame(Rules("one box", (Category("max", max),), dice=2, faces=2, rolls=1,
    ...                         upper_threshold=0))
    >>> V = np.zeros(g.n_states)
    >>> solve_batch(g, V, np.array([g.state_index(0, 0, 0)]))
    >>> float(V[0])                                  # max of two coins 1/2: 1.75
    1.75
    """
    _solve_states(values, np.ascontiguousarray(states, dtype=np.int64), *_arguments(game), BATCH)


def tier_batches(game: ScorecardGame, filled: int, size: int = 4096) -> list[np.ndarray]:
    """The reachable states with ``filled`` boxes filled, as independent batches of at most
    ``size`` states (each reads only states with ``filled + 1`` boxes).

    >>> from perfectplay.yahtzee.ruleset import rules
    >>> from perfectplay.yahtzee.game import ScorecardGame
    >>> g = ScorecardGame(rules("american"))
    >>> [len(b) for b in tier_batches(g, 0)], sum(len(b) for b in tier_batches(g, 13))
    ([1], 128)
    """
    states = game.tier_states(filled)
    return [states[i : i + size] for i in range(0, len(states), size)]


def solve_all(game: ScorecardGame) -> np.ndarray:
    """The value of every reachable scorecard state (NaN elsewhere): the expected score
    still to come from the start of a turn under optimal play."""
    require(game.n_states * 8 * 2, f"the value table of {game.rules.name}")
    values = np.full(game.n_states, np.nan)
    full = game.tier_states(game.n_categories)
    values[full] = 0.0
    args = _arguments(game)
    progress = Progress(f"solving {game.rules.name}")
    done = 0
    for filled in range(game.n_categories - 1, -1, -1):
        states = game.tier_states(filled)
        _solve_states(values, states, *args, BATCH)
        done += len(states)
        progress.update(done, "scorecards", total=game.n_reachable)
    progress.done()
    return values
