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
cores or machines: :func:`solve_all` hands the tiers to the tier runner
(:mod:`perfectplay.tiers`) as a plan and a :class:`ScorecardJob`, on the engine asked for.

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

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from perfectplay._util.memory import require
from perfectplay._util.progress import Progress
from perfectplay.tiers import Job, Plan, Store, Tier, TierDone, run
from perfectplay.yahtzee.kernels import solve_states

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from perfectplay.yahtzee.game import ScorecardGame
    from perfectplay.yahtzee.ruleset import Rules

__all__ = ["ScorecardJob", "solve_all", "solve_batch", "tier_batches", "tier_plan"]


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


def tier_plan(game: ScorecardGame) -> Plan:
    """The tiers of ``game`` for the tier runner: tier ``f`` holds the reachable states
    with ``f`` boxes filled, in order, and reads tier ``f + 1`` (the full card, tier
    ``n_categories``, is worth 0 and reads nothing).

    >>> from perfectplay.yahtzee.ruleset import rules
    >>> from perfectplay.yahtzee.game import ScorecardGame
    >>> plan = tier_plan(ScorecardGame(rules("american")))
    >>> [(t.id, t.items, t.reads) for t in plan.tiers][:2], plan.items
    ([(13, 128, ()), (12, 1598, (13,))], 536448)
    """
    top = game.n_categories
    return Plan(
        tuple(
            Tier(f, len(game.tier_states(f)), reads=() if f == top else (f + 1,))
            for f in range(top, -1, -1)
        )
    )


class ScorecardJob(Job):
    """The batches of a scorecard game for the tier runner: items ``start`` to ``stop``
    of tier ``f`` are ``game.tier_states(f)[start:stop]``, solved by :func:`solve_batch`
    into a value array of the whole game that holds the tier above, read from the store.
    A worker builds the game from its rules once and keeps that array between batches."""

    _game: ScorecardGame | None
    _values: NDArray[np.float64] | None
    _loaded: set[int]

    def __init__(self, rules: Rules, game: ScorecardGame | None = None) -> None:
        super().__init__()
        self.rules = rules
        self._game = game
        self.key = _digest(self.game())

    def _reset(self) -> None:
        super()._reset()
        self._game = getattr(self, "_game", None)
        self._values = None
        self._loaded = set()

    def game(self) -> ScorecardGame:
        """The game (built on first use in each worker)."""
        if self._game is None:
            from perfectplay.yahtzee.game import ScorecardGame

            self._game = ScorecardGame(self.rules)
        return self._game

    def identity(self) -> str:
        return f"yahtzee {self.rules.name} {self.key}"

    def prepare(self) -> None:
        self.game().tier_states(0)  # the game and its tiers' states, built once

    def align(self, tier: int) -> int:
        # With saved throws a tier lists each card's counts together, and one reroll
        # chain values them all: a batch that split a card would run its chain twice.
        return self.game().max_saved(tier) + 1

    def compute(self, tier: int, start: int, stop: int, store: Store) -> NDArray[np.float64]:
        game = self.game()
        states = game.tier_states(tier)[start:stop]
        if tier == game.n_categories:
            return np.zeros(len(states))
        with self._lock:
            values = self._with_tier(game, tier + 1, store)
        solve_batch(game, values, states)
        out: NDArray[np.float64] = values[states]
        return out

    def _with_tier(self, game: ScorecardGame, tier: int, store: Store) -> NDArray[np.float64]:
        if self._values is None:
            require(game.n_states * 8, f"the value table of {game.rules.name}")
            self._values = np.full(game.n_states, np.nan)
        if tier not in self._loaded:
            self._values[game.tier_states(tier)] = store.read(tier)
            self._loaded.add(tier)
        return self._values


def _digest(game: ScorecardGame) -> str:
    """A SHA-256 of everything the kernels read (the game's two records of arrays): a
    work directory of other rules is refused, whatever their names."""
    h = hashlib.sha256()
    for field in (*game.arrays, *game.lattice.arrays):
        a = np.ascontiguousarray(field)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def solve_all(
    game: ScorecardGame,
    engine: str = "threads",
    *,
    workdir: str | Path | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    tiers: int | None = None,
) -> NDArray[np.float64]:
    """The value of every reachable scorecard state (NaN elsewhere): the expected score
    still to come from the start of a turn under optimal play.

    The tiers run on ``engine`` (``threads``, ``processes`` or ``dask``; see
    :mod:`perfectplay.tiers`); ``workdir`` keeps every finished tier on disk, so a solve
    killed there resumes (the other engines need one), ``scheduler`` is a Dask
    scheduler's address (a local cluster without it). Every engine gives the same bytes.
    ``tiers`` solves only that many tiers from the full card down (the others stay NaN):
    the start of a long solve, to measure it or to compare engines on it.

    >>> from perfectplay.yahtzee.ruleset import rules
    >>> from perfectplay.yahtzee.game import ScorecardGame
    >>> g = ScorecardGame(rules("american"))
    >>> top = solve_all(g, tiers=2)
    >>> int((~np.isnan(top)).sum()) == len(g.tier_states(13)) + len(g.tier_states(12))
    True
    """
    require(game.n_states * 8 * 2, f"the value table of {game.rules.name}")
    plan = tier_plan(game) if tiers is None else tier_plan(game).first(tiers)
    job = ScorecardJob(game.rules, game)
    on_tier = None
    progress = Progress(f"solving {game.rules.name}")
    if workdir is None and engine == "threads":
        done = [0]

        def on_tier(d: TierDone) -> None:
            done[0] += d.items
            progress.update(done[0], "scorecards", total=plan.items)

    store = run(
        plan, job, engine, workdir=workdir, scheduler=scheduler, workers=workers, on_tier=on_tier
    )
    values = np.full(game.n_states, np.nan)
    for tier in plan.tiers:
        values[game.tier_states(tier.id)] = store.read(tier.id)
    progress.done()
    return values
