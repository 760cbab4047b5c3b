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

A state's value is one turn, computed by the kernels of :mod:`perfectplay.yahtzee.kernels`
(the best box for each hand, then the rerolls on the turn lattice). Only reachable states
are solved: an upper total is reachable when the filled upper boxes can make it.

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

from typing import TYPE_CHECKING

import numpy as np

from perfectplay._util.memory import require
from perfectplay._util.progress import Progress
from perfectplay.yahtzee.kernels import solve_states

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from perfectplay.yahtzee.game import ScorecardGame

__all__ = ["solve_all", "solve_batch", "tier_batches"]


def solve_batch(
    game: ScorecardGame, values: NDArray[np.float64], states: NDArray[np.int64]
) -> None:
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
    states = np.ascontiguousarray(states, dtype=np.int64)
    solve_states(values, states, game.arrays, game.lattice.arrays)


def tier_batches(game: ScorecardGame, filled: int, size: int = 4096) -> list[NDArray[np.int64]]:
    """The reachable states with ``filled`` boxes filled, as independent batches of at most
    ``size`` states (each reads only states with ``filled + 1`` boxes).

    >>> from perfectplay.yahtzee.ruleset import rules
    >>> from perfectplay.yahtzee.game import ScorecardGame
    >>> g = ScorecardGame(rules("american"))
    >>> [len(b) for b in tier_batches(g, 0)], sum(len(b) for b in tier_batches(g, 13))
    ([1], 128)
    """
    states = game.tier_states(filled)
    # with saved throws a card's counts stay in one batch (one reroll chain values them all)
    per_card = game.max_saved(filled) + 1
    size = max(per_card, size // per_card * per_card)
    return [states[i : i + size] for i in range(0, len(states), size)]


def solve_all(game: ScorecardGame) -> NDArray[np.float64]:
    """The value of every reachable scorecard state (NaN elsewhere): the expected score
    still to come from the start of a turn under optimal play."""
    require(game.n_states * 8 * 2, f"the value table of {game.rules.name}")
    values = np.full(game.n_states, np.nan)
    full = game.tier_states(game.n_categories)
    values[full] = 0.0
    arrays, lattice = game.arrays, game.lattice.arrays
    progress = Progress(f"solving {game.rules.name}")
    done = 0
    for filled in range(game.n_categories - 1, -1, -1):
        states = game.tier_states(filled)
        solve_states(values, states, arrays, lattice)
        done += len(states)
        progress.update(done, "scorecards", total=game.n_reachable)
    progress.done()
    return values
