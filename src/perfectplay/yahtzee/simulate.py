"""Seeded games of a scorecard game played by its optimal policy.

:func:`simulate` plays ``games`` whole games from the empty card with the policy of a
:class:`~perfectplay.yahtzee.solution.YahtzeeSolution`: the best keep before each reroll
and the best box after the last roll, ties going to the first option in the order
:meth:`~perfectplay.yahtzee.solution.YahtzeeSolution.options` lists them (smaller keeps
first, boxes in scorecard order; see :mod:`perfectplay.yahtzee._policy`). The dice come
from ``numpy.random.Generator(PCG64(seed))``: one uniform per die per roll, drawn in
Python in game order (``random(size=(games, open boxes, rolls, dice))``, the first uniforms of
a roll used for the dice rolled), so a seed gives the same scores on any machine and any
number of threads. A die shows face ``f`` when the uniform times the total face weight
falls in ``f``'s share of it. The games run in a compiled loop, in parallel across games.

>>> from perfectplay.yahtzee.ruleset import Category, Rules
>>> from perfectplay.yahtzee.solution import solve
>>> sol = solve(Rules("chance", (Category("chance", sum),), dice=2, rolls=1, upper_threshold=0))
>>> run = simulate(sol, 2000, seed=1)
>>> run.scores[:5].tolist() == simulate(sol, 5, seed=1).scores.tolist()
True
>>> abs(run.mean - sol.value()) < 4 * run.standard_error
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from perfectplay._util.memory import require
from perfectplay._util.progress import Progress
from perfectplay.errors import InputError
from perfectplay.lattice.kernels import njit, prange
from perfectplay.yahtzee._policy import best_keep, choose_box, keep_tables, point_tables
from perfectplay.yahtzee.cards import Card, refuse_saved_throws
from perfectplay.yahtzee.kernels import BATCH, decode, final_values

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from perfectplay.lattice.arrays import LatticeArrays
    from perfectplay.yahtzee.game import ScorecardArrays
    from perfectplay.yahtzee.solution import YahtzeeSolution

__all__ = ["SimulationResult", "simulate"]

#: Games whose uniforms are drawn at once (bounds the memory of a long run, not its result).
CHUNK = 8192


class DiceArrays(NamedTuple):
    """What the games read to roll the dice, beside the lattice's record: the cumulative
    face weights, the keeps of each hand (``TurnLattice.roll_to_keep``: ``keeps[ptr[h] :
    ptr[h + 1]]``) and each keep's number of dice."""

    face_cum: NDArray[np.float64]
    ptr: NDArray[np.int64]
    keeps: NDArray[np.int32]
    keep_size: NDArray[np.int64]


@dataclass(frozen=True)
class SimulationResult:
    """The final scores of simulated games (``scores[i]``: game ``i``), with their seed.

    >>> r = SimulationResult("demo", 0, np.array([200, 250, 300]))
    >>> r.games, r.mean, r.std, round(r.standard_error, 4)
    (3, 250.0, 50.0, 28.8675)
    >>> r.histogram(bins=2)[0].tolist()
    [1, 2]
    """

    rules: str
    seed: int
    scores: np.ndarray

    @property
    def games(self) -> int:
        """Number of games played."""
        return int(self.scores.shape[0])

    @property
    def mean(self) -> float:
        """Mean final score."""
        return float(self.scores.mean())

    @property
    def std(self) -> float:
        """Sample standard deviation of the final scores (``n - 1`` in the denominator)."""
        return float(self.scores.std(ddof=1)) if self.games > 1 else 0.0

    @property
    def standard_error(self) -> float:
        """Standard error of :attr:`mean` (``std / sqrt(games)``)."""
        return self.std / math.sqrt(self.games)

    def histogram(self, bins: int | Any = 20) -> tuple[np.ndarray, np.ndarray]:
        """``(counts, edges)`` of the scores, as :func:`numpy.histogram` (``bins`` a count
        of equal bins or the edges)."""
        counts, edges = np.histogram(self.scores, bins=bins)
        return counts, edges

    def to_json(self, bins: int | Any = 20) -> dict[str, Any]:
        """A JSON-ready summary: the statistics and the histogram (not the scores).

        >>> SimulationResult("demo", 3, np.array([1, 2])).to_json(bins=1)["histogram"]
        {'counts': [2], 'edges': [1.0, 2.0]}
        """
        counts, edges = self.histogram(bins)
        return {
            "rules": self.rules,
            "seed": self.seed,
            "games": self.games,
            "mean": self.mean,
            "std": self.std,
            "standard_error": self.standard_error,
            "histogram": {"counts": counts.tolist(), "edges": edges.tolist()},
        }


@njit(cache=True, parallel=True, boundscheck=False)
def _play(
    out: Any,
    draws: Any,
    V: Any,
    Vz: Any,
    Vn: Any,
    start: int,
    so_far: int,
    dice: DiceArrays,
    g: ScorecardArrays,
    lat: LatticeArrays,
) -> None:
    """Play game ``i`` with the uniforms ``draws[i]`` into ``out[i]``."""
    face_cum, keep_size = dice.face_cum, dice.keep_size
    add = lat.add
    rolls = lat.rolls
    n_games, n_turns, _, n_dice = draws.shape
    n_cat, n_hands = g.score.shape
    n_keeps, n_faces = add.shape
    base = n_keeps - n_hands
    total_weight = face_cum[n_faces - 1]
    # Games go in batches whose turn tables are computed together: the rerolls then run
    # vectorised across the batch, as in the solver.
    for c in prange((n_games + BATCH - 1) // BATCH):
        lo = c * BATCH
        nb = min(n_games, lo + BATCH) - lo
        cur = np.empty((n_hands, nb))
        Es = np.empty((rolls - 1, n_keeps, nb))
        M = np.empty((n_keeps, nb))
        cv = np.empty(max(g.cls_score.shape[1], n_cat))
        states = np.full(nb, start)
        for j in range(nb):
            out[lo + j] = so_far
        for turn in range(n_turns):
            for j in range(nb):
                mask, u, y = decode(states[j], g)
                final_values(cur, j, V, mask, u, y, g, cv)
            keep_tables(cur, Es, M, lat)
            for j in range(nb):
                gi = lo + j
                k = 0
                hand = 0
                for roll in range(rolls):
                    if roll > 0:
                        k = best_keep(Es[rolls - 1 - roll], j, hand, dice.ptr, dice.keeps)
                    for d in range(n_dice - keep_size[k]):
                        x = draws[gi, turn, roll, d] * total_weight
                        f = 0
                        while f < n_faces - 1 and x >= face_cum[f]:
                            f += 1
                        k = add[k, f]
                    hand = k - base
                mask, u, y = decode(states[j], g)
                _, p, states[j] = choose_box(cv, V, Vz, Vn, mask, u, y, hand, g)
                out[gi] += p


def simulate(
    solution: YahtzeeSolution, games: int, seed: int = 0, card: Card | None = None
) -> SimulationResult:
    """Play ``games`` games from the start of a turn with ``card`` (the empty card by
    default; its score so far included in the scores) with the optimal policy of
    ``solution`` (see the module docstring for the dice and the ties; a card with ``n``
    open boxes draws ``n`` turns' uniforms per game); the same seed gives the same
    scores. Each game is a compiled loop over the turns: the turn's keep values are
    computed for the state at hand, as :meth:`YahtzeeSolution.options` does.

    >>> from perfectplay.yahtzee.ruleset import Category, Rules
    >>> from perfectplay.yahtzee.solution import solve
    >>> sol = solve(Rules("max", (Category("max", max),), dice=2, faces=2, rolls=1,
    ...                   upper_threshold=0))
    >>> sorted(set(simulate(sol, 100).scores.tolist()))
    [1, 2]
    """
    if isinstance(games, bool) or not isinstance(games, int | np.integer) or games < 1:
        raise InputError(f"games must be an int >= 1, not {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InputError(f"seed must be an int >= 0, not {seed!r}")
    game = solution.game
    refuse_saved_throws(game, "simulation")
    lat = game.lattice
    require(16 * game.n_states, f"simulating {game.rules.name}")
    Vz, Vn = point_tables(game)
    face_cum = np.cumsum(lat.face_weight).astype(np.float64)
    dice = DiceArrays(face_cum, *lat.roll_to_keep, lat.keep_size.astype(np.int64))
    V, g, turn = solution.values, game.arrays, lat.arrays
    start, so_far = solution._state(card or Card())
    open_boxes = game.n_categories - bin(game.decode(start)[0]).count("1")
    rng = np.random.Generator(np.random.PCG64(seed))
    shape = (open_boxes, lat.n_rolls, lat.n_dice)
    # the scores, and one chunk's uniforms
    require(8 * int(games) + 8 * CHUNK * math.prod(shape), f"simulating {games:,} games")
    scores = np.empty(int(games), dtype=np.int64)
    # a long run says how far it is and how long it has left, past 2 s
    progress = Progress(f"simulating {game.rules.name}", delay=2.0, interval=5.0, eta=True)
    for lo in range(0, int(games), CHUNK):
        n = min(CHUNK, int(games) - lo)
        draws = rng.random((n, *shape))
        _play(scores[lo : lo + n], draws, V, Vz, Vn, start, so_far, dice, g, turn)
        progress.update(lo + n, "games", int(games))
    progress.done()
    return SimulationResult(solution.rules.name, int(seed), scores)
