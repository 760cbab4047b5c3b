"""The optimal policy of a solved scorecard game, one decision at a time (compiled).

:mod:`perfectplay.yahtzee.simulate` and :mod:`perfectplay.yahtzee.distribution` both
play the policy that :class:`~perfectplay.yahtzee.solution.YahtzeeSolution` advises, and
must agree with it and with each other on every tie. The rule, shared by all three: the
best option is the first of the highest value in the order
:meth:`~perfectplay.yahtzee.solution.YahtzeeSolution.options` lists them before sorting
(its sort is stable): the keeps by increasing keep index (smaller keeps first), the boxes
in scorecard order. The values compared are the ones ``options`` computes (the same
kernels, the same float operations), without the score so far added.

Points and next states come from :func:`perfectplay.yahtzee.kernels.box_values`, the
one place that applies the bonus and joker rules: called with a table of zeros it returns
a box's points (bonuses included), and with the table ``V[s] = s`` the points plus the
next state's number, exactly (integers below 2**53 are exact in floats).

>>> from perfectplay.yahtzee.ruleset import Category, Rules
>>> from perfectplay.yahtzee.solution import solve
>>> sol = solve(Rules("max", (Category("max", max),), dice=2, faces=2, rolls=1, upper_threshold=0))
>>> Vz, Vn = point_tables(sol.game)
>>> Vz.tolist(), Vn.tolist()
([0.0, 0.0], [0.0, 1.0])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from perfectplay.lattice.kernels import njit, reroll
from perfectplay.yahtzee.kernels import box_values

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from perfectplay.lattice.arrays import LatticeArrays
    from perfectplay.yahtzee.game import ScorecardArrays, ScorecardGame

__all__ = ["best_keep", "best_keeps", "choose_box", "keep_tables", "point_tables"]


def point_tables(game: ScorecardGame) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(Vz, Vn)``: zeros and the state numbers as floats, one entry per state number."""
    return np.zeros(game.n_states), np.arange(game.n_states, dtype=np.float64)


@njit(cache=True, boundscheck=False)
def keep_tables(cur: Any, Es: Any, M: Any, lat: LatticeArrays) -> None:
    """Rerolls on a batch of end values ``cur[h, b]``: ``Es[r - 1, k, b]`` receives keep
    ``k``'s value with ``r`` rolls left after it (what ``TurnLattice.keep_values`` gives
    for one column); ``cur`` ends as the values of the first roll's hands."""
    for r in range(Es.shape[0]):
        reroll(cur, Es[r], M, lat)


@njit(cache=True, boundscheck=False, inline="always")
def best_keep(E: Any, b: int, h: int, ptr: Any, keep: Any) -> int:
    """The first best keep of hand ``h`` (column ``b`` of keep values ``E``); ``ptr``,
    ``keep`` are ``TurnLattice.roll_to_keep``, whose keeps are in increasing index."""
    i = ptr[h]
    k0: int = keep[i]
    v = E[k0, b]
    for j in range(i + 1, ptr[h + 1]):
        k = keep[j]
        if E[k, b] > v:
            v = E[k, b]
            k0 = k
    return k0


@njit(cache=True, boundscheck=False)
def best_keeps(E: Any, lat: LatticeArrays, M: Any, A: Any) -> None:
    """``A[k, b]``: the first best sub-multiset of keep ``k`` for column ``b`` of keep
    values ``E`` (:func:`best_keep` for every hand at once, vectorised across the batch).

    The sub-multisets of ``K`` are ``K`` and those of each ``K - f``, so the best of
    ``K`` is the best of ``E[K]`` and the bests of the ``K - f`` (smaller keeps come first,
    as ``M[K] = max(E[K], M[K - f])`` in the rerolls); on equal values the smaller keep
    index wins, which makes it the first best in index order, as :func:`best_keep`."""
    remove = lat.remove
    n_keeps, n_faces = remove.shape
    nb = E.shape[1]
    for k in range(n_keeps):
        for b in range(nb):
            M[k, b] = E[k, b]
            A[k, b] = k
        for f in range(n_faces):
            r = remove[k, f]
            if r >= 0:
                # unconditional loads and selects, so the loop vectorises
                for b in range(nb):
                    mr = M[r, b]
                    mk = M[k, b]
                    ar = A[r, b]
                    ak = A[k, b]
                    take = (mr > mk) | ((mr == mk) & (ar < ak))
                    M[k, b] = mr if take else mk
                    A[k, b] = ar if take else ak


@njit(cache=True, boundscheck=False)
def choose_box(
    vals: Any, V: Any, Vz: Any, Vn: Any, mask: int, u: int, y: int, h: int, g: ScorecardArrays
) -> tuple[int, int, int]:
    """``(box, points, next state)`` of the first best box for hand ``h`` after the last
    roll in state ``(mask, u, y)``; ``vals`` is scratch of at least the number of boxes."""
    n_cat = g.score.shape[0]
    box_values(vals, V, mask, u, y, h, g)
    c0 = -1
    best = -np.inf
    for c in range(n_cat):
        if vals[c] > best:
            best = vals[c]
            c0 = c
    box_values(vals, Vz, mask, u, y, h, g)
    points = vals[c0]
    box_values(vals, Vn, mask, u, y, h, g)
    return c0, int(points), int(vals[c0] - points)
