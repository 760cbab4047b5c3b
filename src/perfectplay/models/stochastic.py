"""Two-player games with dice between moves: the model protocol and the solution.

A :class:`StochasticGameModel` describes a zero-sum, perfect-information game in which
two players alternate and chance acts between moves (Pig, backgammon-like races). A
state is seen from the player to move (*mover-relative*: Pig's ``(my score, their score,
turn total)``), which halves the state space and lets both players share one table.
The value of a state is the winning chance of its mover (a tie counts one half; play
that never ends is a draw, worth one half to each player like a tie: in a zero-sum game
seen from the mover's side, any other value would depend on who happened to move).

Define:

* ``start`` (method or attribute): the first state;
* ``moves(state)``: the mover's choices (any objects);
* ``chances(state, move)``: the outcomes of a move as ``(next_state, weight, passes)``
  triples, or a mapping ``{(next_state, passes): weight}``; ``passes`` says whether the
  other player moves next (then ``next_state`` is seen from that player's side); integer
  or :class:`~fractions.Fraction` weights; a deterministic move is one outcome of weight 1;
* ``outcome(state)``: ``None`` while the game goes on, else ``"win"``, ``"lose"``,
  ``"tie"`` or an exact winning probability (int or Fraction in 0..1) for the mover.

Optional: ``canonical(state)`` (equal keys, equal values) and ``no_moves`` (the result
for a mover without moves, ``"lose"`` by default).

>>> class Race(StochasticGameModel):       # first to 2 heads; a tail passes the turn
...     start = (0, 0)
...     def outcome(self, s): return "lose" if s[1] >= 2 else None
...     def moves(self, s): return ["toss"]
...     def chances(self, s, m):
...         mine, theirs = s
...         return [((mine + 1, theirs), 1, False) if mine + 1 < 2 else ((theirs, 2), 1, True),
...                 ((theirs, mine), 1, True)]
>>> sol = solve_stochastic_model(Race())
>>> sol.exact_value()
Fraction(16, 27)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from itertools import islice
from typing import TYPE_CHECKING, Any, cast

from perfectplay.errors import InputError, ModelError, short_repr
from perfectplay.models.base import StochasticGameModel, UnknownStateError
from perfectplay.models.explore.callbacks import (
    MODEL_EXCEPTIONS,
    describe,
    model_attribute,
    model_name,
    start_state,
)
from perfectplay.models.explore.limits import (
    DEFAULT_MAX_EDGES,
    DEFAULT_MAX_PER_CALL,
    DEFAULT_MAX_STATES,
    ExploreLimits,
    per_call_error,
)
from perfectplay.models.explore.stochastic import Exploration, explore_stochastic
from perfectplay.objectives import WIN_CHANCE, Objective
from perfectplay.results.options import Option, rank_options
from perfectplay.results.surface import Solution

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np

    from perfectplay.analysis.distribution import MoveDistribution
    from perfectplay.graphs.stochastic import StochasticSolution

__all__ = [
    "StochasticGameModel",
    "StochasticModelSolution",
    "explore_stochastic",
    "solve_stochastic_model",
]


class StochasticModelSolution(Solution):
    """A solved :class:`StochasticGameModel`: values, options and strategies by state (the
    :class:`~perfectplay.results.surface.Solution` surface; values are the winning chance
    of the player to move).

    >>> from perfectplay.examples.pig import Piglet
    >>> sol = solve_stochastic_model(Piglet(goal=2))
    >>> [(o.action, round(o.regret, 6)) for o in sol.options((0, 0, 1))], sol.best_move((0, 0, 1))
    ([('roll', 0.0), ('hold', 0.114286)], 'roll')
    """

    kind = "stochastic"

    def __init__(
        self,
        model: Any,
        exploration: Exploration,
        solution: StochasticSolution,
        explore_seconds: float,
        solve_seconds: float,
        fixed: np.ndarray | None = None,
    ) -> None:
        self.model = model
        self._name = model_name(getattr(model, "inner", model))
        self.exploration = exploration
        self.graph = exploration.graph
        self.solution = solution
        self.explore_seconds = explore_seconds
        self.solve_seconds = solve_seconds
        self.fixed = fixed
        self._exact: Sequence[Fraction] | None = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def solver(self) -> str:
        """The method that ran (:func:`~perfectplay.solvers.stochastic.solve_stochastic`)."""
        return self.solution.method

    @property
    def objective(self) -> Objective:
        """The winning chance of the player to move, maximised by both players."""
        return WIN_CHANCE

    @property
    def n_positions(self) -> int:
        return self.graph.n_positions

    @property
    def start_value(self) -> float:
        """The first mover's winning chance."""
        return float(self.solution.value[0])

    def position_id(self, state: Any) -> int:
        """The position of ``state`` (raises :class:`UnknownStateError` if unreached)."""
        ex = self.exploration
        key = ex.canonical(state) if ex.canonical is not None else state
        try:
            return ex.ids[key]
        except (KeyError, TypeError):
            raise UnknownStateError(f"state {describe(state)} was not reached") from None

    def value(self, state: Any = None) -> float:
        """The mover's winning chance in ``state`` (default: the start)."""
        p = 0 if state is None else self.position_id(state)
        return float(self.solution.value[p])

    def options(self, state: Any = None) -> list[Option]:
        """Every move of ``state`` with the mover's winning chance after it, best first
        (the solved strategy's move first among equal chances)."""
        p = 0 if state is None else self.position_id(state)  # the start, as for value()
        g, v = self.graph, self.solution.value
        cs = range(int(g.choice_ptr[p]), int(g.choice_ptr[p + 1]))
        moves = [self.exploration.moves[c] for c in cs]
        best = int(self.solution.best_choice[p])
        return rank_options(
            moves,
            [float(g.chance_value(c, v)) for c in cs],
            self.exploration.moves[best] if best >= 0 else None,
            maximise=True,
        )

    def states(self) -> Iterator[Any]:
        """Every solved state (one per class: the first met), by position."""
        return iter(self.exploration.reps)

    def best_move(self, state: Any = None) -> Any:
        """The move the solved strategy plays in ``state`` (``None``: game over)."""
        p = 0 if state is None else self.position_id(state)
        c = int(self.solution.best_choice[p])
        return None if c < 0 else self.exploration.moves[c]

    def is_over(self, state: Any) -> bool:
        """Whether the game is over in ``state``."""
        return bool(self.graph.terminal[self.position_id(state)])

    def distribution(self, k_max: int) -> MoveDistribution:
        """The same as :meth:`move_distribution`."""
        return self.move_distribution(k_max)

    def exact(self, state: Any = None) -> Fraction:
        """The exact value of ``state`` (default: the start), verified optimal."""
        return self.exact_value(state)

    def save(self, path: str | Path, *, exact: bool = False) -> Path:
        """Write the solved table to ``path`` (``.npz``, see :mod:`~perfectplay.results.table`):
        every position with its value, solved move and every move's value; with
        ``exact=True`` also the exact values (verified first). Read it back with
        :func:`~perfectplay.models.load_solution`, which answers ``value``, ``options``,
        ``best_move`` and ``exact_value`` without solving again."""
        from perfectplay.results.table import export_stochastic

        return export_stochastic(self, path, exact=exact)

    def move_distribution(self, k_max: int) -> MoveDistribution:
        """How many moves the game lasts from the start under the solved strategies (both
        players; a fixed strategy plays its move), and how it ends for the first mover:
        see :func:`~perfectplay.analysis.distribution.move_distribution`.

        >>> from perfectplay.examples.pig import Piglet
        >>> d = solve_stochastic_model(Piglet(goal=2)).move_distribution(4)
        >>> d.exactly[1:].round(4).tolist(), round(d.results["win"], 6), d.never
        ([0.0, 0.25, 0.125, 0.125], 0.571429, 0.0)
        """
        from perfectplay.analysis.distribution import move_distribution

        return move_distribution(self.graph, self.solution.best_choice, k_max)

    def simulate(self, runs: int, seed: int = 0, max_steps: int = 1_000_000) -> Any:
        """Play ``runs`` games from the start with the solved strategies (both players),
        seeded; returns ``float64[runs]``: the first mover's result (1 win, 0 loss,
        1/2 tie, or a terminal's probability; 1/2 for a game cut at ``max_steps``).
        A game the strategies could play for ever is stopped after ``max_steps`` moves,
        and a line on stderr (when progress reports are on) says how many were; a long
        run reports its progress and the time it has left, past 2 s.

        >>> from perfectplay.examples.pig import Piglet
        >>> r = solve_stochastic_model(Piglet(goal=3)).simulate(2000, seed=1)
        >>> bool(abs(r.mean() - 0.5) < 0.1)
        True
        """
        import numpy as np

        from perfectplay._util.memory import require
        from perfectplay._util.progress import Progress, notice

        # A caller's bad count or seed is bad input, not numpy's ValueError from inside.
        for what, given, top in (
            ("runs", runs, None),
            ("seed", seed, 2**64),
            ("max_steps", max_steps, None),
        ):
            if (
                isinstance(given, bool)
                or not isinstance(given, int | np.integer)
                or given < 0
                or (top is not None and given >= top)
            ):
                limit = "an int >= 0" if top is None else "an int from 0 to 2**64-1"
                raise InputError(f"{self.name}: {what} must be {limit}, not {short_repr(given)}")
        g = self.graph
        rng = np.random.default_rng(seed)
        best = self.solution.best_choice.tolist()
        op, tg, ps = g.outcome_ptr.tolist(), g.target.tolist(), g.passes.tolist()
        cum = [np.cumsum(g.weight[op[c] : op[c + 1]]) for c in range(g.n_chance)]
        term, tval = g.terminal.tolist(), (g.terminal_value / g.scale).tolist()
        require(8 * runs, f"{runs:,} simulated games")
        out = np.empty(runs)
        progress = Progress("simulating", delay=2.0, interval=5.0, eta=True)
        cut = 0
        for n in range(runs):
            progress.update(n, "games", runs)
            p, first = 0, True
            for _ in range(max_steps):
                if term[p] or best[p] < 0:
                    v = tval[p] if term[p] else 0.0
                    out[n] = v if first else 1 - v
                    break
                c = best[p]
                w = cum[c]
                e = op[c] + int(np.searchsorted(w, rng.integers(w[-1]), side="right"))
                first ^= ps[e]
                p = tg[e]
            else:
                out[n] = 0.5
                cut += 1
        progress.done()
        if cut:
            notice(
                f"perfectplay: {cut:,} of {runs:,} games did not end within {max_steps:,} "
                "moves (the strategies can play for ever): stopped there and counted as 1/2"
            )
        return out

    def exact_values(self) -> Sequence[Fraction]:
        """Every position's exact value under the solved strategy pair, verified optimal:
        raises :class:`~perfectplay.errors.ModelError` if a choice would improve a value."""
        if self._exact is None:
            from perfectplay.solvers.stochastic import (
                endless_violations,
                exact_stochastic,
                verify_stochastic,
            )

            values = exact_stochastic(self.graph, self.solution.best_choice)
            bad = verify_stochastic(self.graph, values, self.fixed, self.solution.best_choice)
            endless = self.solution.endless
            if not bad and endless is not None and endless.any():
                fixed = self.fixed if self.fixed is not None else [-1] * self.n_positions
                stay = endless_violations(
                    self.graph, endless.nonzero()[0], values, self.solution.best_choice, fixed
                )
                if stay:
                    raise ModelError(
                        "exact verification failed: a player gains by never ending play "
                        f"from state {describe(self.exploration.reps[stay[0][0]])}"
                    )
            if bad:
                p, c, gain = bad[0]
                raise ModelError(
                    f"exact verification failed: in state {describe(self.exploration.reps[p])}"
                    f" the move {describe(self.exploration.moves[c])} gains {float(gain):.3g}"
                )
            self._exact = values
        return self._exact

    def exact_value(self, state: Any = None) -> Fraction:
        """The exact value of ``state`` (default: the start) as a Fraction."""
        p = 0 if state is None else self.position_id(state)
        return self.exact_values()[p]


class _Strategies:
    """The game with one or both players' moves fixed: states ``(state, player)`` with
    player 0 the first mover; ``passes`` toggles the player."""

    def __init__(self, model: Any, first: Callable[[Any], Any] | None,
                 second: Callable[[Any], Any] | None, max_per_call: int) -> None:  # fmt: skip
        self.inner = model
        self.strategy = (first, second)
        self.max_per_call = max_per_call
        self.start = (start_state(model), 0)
        no_moves = model_attribute(model, "no_moves")
        if no_moves is not None:
            self.no_moves = no_moves
        canonical = model_attribute(model, "canonical")
        if canonical is not None:
            self.canonical = lambda sp: (canonical(sp[0]), sp[1])

    def outcome(self, sp: tuple[Any, int]) -> Any:
        f = getattr(self.inner, "outcome", None)
        return None if f is None else f(sp[0])

    def moves(self, sp: tuple[Any, int]) -> Iterable[Any]:
        s, player = sp
        pick = self.strategy[player]
        if pick is None:  # the explorer counts what it reads
            return cast(Iterable[Any], self.inner.moves(s))
        # The legal moves, read up to the explorer's limit per call.
        legal = list(islice(self.inner.moves(s), self.max_per_call + 1))
        if len(legal) > self.max_per_call:
            call = f"{model_name(self.inner)}.moves({describe(s)})"
            raise per_call_error(call, "moves", self.max_per_call)
        if not legal:
            return legal
        name = getattr(pick, "__name__", "strategy")
        try:
            m = pick(s)
        except MODEL_EXCEPTIONS as exc:
            raise ModelError(
                f"strategy {name} failed in state {describe(s)}: {type(exc).__name__}: {exc}"
            ) from None
        if m not in legal:
            raise ModelError(
                f"strategy {name} picks {describe(m)} in state "
                f"{describe(s)}, which is not a move there ({describe(legal)})"
            )
        return [m]

    def chances(self, sp: tuple[Any, int], move: Any) -> Iterator[tuple[Any, Any, bool]]:
        # A generator, so that the explorer counts the outcomes as they come.
        got = self.inner.chances(sp[0], move)
        items = ((t, w, f) for (t, f), w in got.items()) if isinstance(got, Mapping) else got
        return (((t, sp[1] ^ bool(f)), w, bool(f)) for t, w, f in items)


def solve_stochastic_model(
    model: Any,
    *,
    first: Callable[[Any], Any] | None = None,
    second: Callable[[Any], Any] | None = None,
    max_states: int = DEFAULT_MAX_STATES,
    max_edges: int = DEFAULT_MAX_EDGES,
    max_per_call: int = DEFAULT_MAX_PER_CALL,
    tol: float | None = None,
    max_endless: int | None = None,
    progress: bool = True,
) -> StochasticModelSolution:
    """Explore and solve ``model``; ``first`` / ``second`` fix the first or second mover's
    strategy (a function state -> move; the other player then plays its best response;
    both given: the exact value of the pair). With a strategy given, states are
    ``(state, player)`` pairs, player 0 being the first mover. ``progress``: report long
    explorations and solves on stderr while reports are on
    (:func:`perfectplay.enable_progress`; the library is silent otherwise).

    >>> from perfectplay.examples.pig import Pig, hold_at
    >>> h = hold_at(2)
    >>> round(solve_stochastic_model(Pig(goal=4), first=h, second=h).start_value, 6)
    0.69621
    """
    import numpy as np

    from perfectplay.solvers.stochastic import DEFAULT_TOL, solve_stochastic

    wrapped = (
        model
        if first is None and second is None
        else _Strategies(model, first, second, max_per_call)
    )
    t0 = time.perf_counter()
    ex = explore_stochastic(
        wrapped,
        limits=ExploreLimits(max_states, max_edges, max_per_call),
        progress=progress,
    )
    t1 = time.perf_counter()
    fixed = None
    if wrapped is not model:
        # A strategy offers one move: mark those positions fixed, so the exact
        # verification checks only the free player's choices.
        cp = ex.graph.choice_ptr
        players = np.fromiter((r[1] for r in ex.reps), np.int64, len(ex.reps))
        chosen = np.array([first is not None, second is not None])[players]
        fixed = np.where(chosen & (cp[1:] > cp[:-1]), cp[:-1], -1).astype(np.int64)
    sol = solve_stochastic(
        ex.graph,
        tol=DEFAULT_TOL if tol is None else tol,
        fixed=fixed,
        max_endless=max_endless,
        progress=progress,
    )
    return StochasticModelSolution(wrapped, ex, sol, t1 - t0, time.perf_counter() - t1, fixed=fixed)
