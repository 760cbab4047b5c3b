"""Solving a :class:`~perfectplay.models.base.GameModel` and querying the result.

The explorer builds the game graph (:func:`~perfectplay.models.explore.explore_game`) and
:func:`~perfectplay.solvers.retrograde.solve_retrograde` labels every position ``win``,
``lose``, ``tie`` or ``draw`` for the player to move, with its remoteness: the number of
moves to the end when the winner hurries and the loser delays (for a tie: to the nearest
reachable tie; a draw never ends, so its remoteness is ``None``). Small games run the
solver's Python source and never import numpy or numba.

>>> from perfectplay.models.base import GameModel
>>> class Nim(GameModel):  # one pile of 4, take 1..3, taking the last counter wins
...     start = 4
...     def moves(self, n): return range(1, min(n, 3) + 1)
...     def play(self, n, k): return n - k
>>> sol = solve_game_model(Nim())
>>> sol.start_value, str(sol.value(3))
(Result(value=<Outcome.LOSE: 1>, remoteness=2), 'WIN in 1')
>>> o = sol.options(3)[0]
>>> o.action, str(o.value), o.state, o.best
(3, 'WIN in 1', 0, True)
>>> [(n, str(v)) for n, v in sol.items()]
[(4, 'LOSE in 2'), (3, 'WIN in 1'), (2, 'WIN in 1'), (1, 'WIN in 1'), (0, 'LOSE in 0')]
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from perfectplay.errors import ModelError
from perfectplay.graphs.game import GameGraph, GameSolution, Outcome
from perfectplay.models.base import UnknownStateError
from perfectplay.models.explore import (
    DEFAULT_MAX_EDGES,
    DEFAULT_MAX_PER_CALL,
    DEFAULT_MAX_STATES,
    GameExploration,
    describe,
    explore_game,
    model_name,
)
from perfectplay.objectives import Objective
from perfectplay.results.graph import GameResult
from perfectplay.results.options import Option, Result, rank_moves
from perfectplay.results.surface import Solution

if TYPE_CHECKING:
    from pathlib import Path


#: The word of each outcome, as the command line prints it.
VALUE_NAMES = {v: str(v) for v in Outcome}

__all__ = ["VALUE_NAMES", "GameModelSolution", "Result", "solve_game_model"]


class GameModelSolution(Solution):
    """The solved game: value and remoteness of every reachable position (the
    :class:`~perfectplay.results.surface.Solution` surface; values are
    :class:`~perfectplay.results.options.Result`).

    Attributes:
        model: the user's model.
        exploration: the graph and the position table.
        result: the :class:`~perfectplay.results.GameResult` (queries by position id).
        solution: the solver's arrays (:class:`~perfectplay.graphs.game.GameSolution`).
        explore_seconds, solve_seconds: wall times of the two phases.
    """

    kind = "game"

    def __init__(
        self,
        model: Any,
        exploration: GameExploration,
        solution: GameSolution,
        solve_seconds: float,
    ) -> None:
        self.model = model
        self.exploration = exploration
        self.solution = solution
        self.result = GameResult(exploration.graph, solution)
        self.explore_seconds = exploration.seconds
        self.solve_seconds = solve_seconds

    @property
    def graph(self) -> GameGraph:
        return self.exploration.graph

    @property
    def n_positions(self) -> int:
        return self.graph.n_positions

    @property
    def name(self) -> str:
        return model_name(self.model)

    @property
    def solver(self) -> str:
        return f"solve_retrograde ({self.solution.method})"

    @property
    def objective(self) -> Objective:
        """The best outcome for the player to move (:meth:`Objective.outcome`)."""
        return Objective.outcome()

    def position_id(self, position: Any) -> int:
        """Dense id of ``position``; :class:`UnknownStateError` if it was not reached."""
        try:
            i = self.exploration.positions.get(position)
        except Exception as exc:
            raise ModelError(f"cannot key position {describe(position)}: {exc}") from exc
        if i is None:
            raise UnknownStateError(
                f"position {describe(position)} is not reachable from the start of {self.name}"
            )
        return i

    @property
    def start_value(self) -> Result:
        """Value of the start position for the player to move first."""
        return self.result.value()

    def value(self, position: Any = None) -> Result:
        """Outcome and remoteness of ``position`` (the start when omitted) for the player
        to move."""
        return self.result.value(None if position is None else self.position_id(position))

    def is_over(self, position: Any) -> bool:
        """Whether the game is over in ``position``."""
        return self.result.is_terminal(self.position_id(position))

    def items(self) -> Iterator[tuple[Any, Result]]:
        """Every solved position (one per class: the first met) with its value, by id."""
        reps = self.exploration.reps
        return ((reps[p], v) for p, v in self.result.items())

    def states(self) -> Iterator[Any]:
        """Every solved position (one per class: the first met), by id."""
        return iter(self.exploration.reps)

    def listed_moves(self, position: Any) -> list[tuple[Any, int]]:
        """The model's moves of ``position`` with the id of the position each leads to
        (none at a finished position)."""
        if self.result.is_terminal(self.position_id(position)):
            return []
        name = self.name
        positions = self.exploration.positions
        try:
            listed = list(self.model.moves(position))
        except Exception as exc:
            raise ModelError(f"{name}.moves({describe(position)}) raised {exc!r}") from exc
        out = []
        for move in listed:
            try:
                child = self.model.play(position, move)
                c = positions.get(child)
            except Exception as exc:
                raise ModelError(
                    f"{name}.play({describe(position)}, {describe(move)}) raised {exc!r}"
                ) from exc
            if c is None:
                raise ModelError(
                    f"{name}.play({describe(position)}, {describe(move)}) gave a position the "
                    "exploration never saw; the model must be deterministic"
                )
            out.append((move, c))
        return out

    def options(self, position: Any = None) -> list[Option]:
        """Every move of ``position`` (the model's own objects) with its value for the
        mover and the position it leads to, best first (quick wins, quick ties, draws, slow
        losses); empty at a finished position."""
        if position is None:  # the start, as for value()
            position = self.exploration.reps[0]
        listed = self.listed_moves(position)
        reps = self.exploration.reps
        return rank_moves(
            [m for m, _ in listed],
            [self.result.move_value(c) for _, c in listed],
            states=[reps[c] for _, c in listed],
        )

    def moves(self, position: Any) -> list[Option]:
        """The same as :meth:`options`."""
        return self.options(position)

    def best_moves(self, position: Any) -> list[Any]:
        """The same as :meth:`best`."""
        return self.best(position)

    def counts(self) -> dict[Outcome, int]:
        """How many positions are won, lost, tied and drawn for the player to move."""
        return self.result.counts()

    def save(self, path: str | Path, *, exact: bool = False) -> Path:
        """Write the solved table to ``path`` (``.npz``); see :mod:`perfectplay.results.table`.
        A game without dice has no values to make exact: ``exact`` is refused."""
        from perfectplay.results.table import export_game

        if exact:
            from perfectplay.errors import UnsupportedError

            raise UnsupportedError(f"{self.name}: a game without dice has no exact values")
        return export_game(self, path)

    def summary(self) -> str:
        """A few lines a person reads: sizes, value of the start, solver and times."""
        counts = ", ".join(f"{k:,} {v}" for v, k in self.counts().items() if k)
        return "\n".join(
            [
                f"model: {self.name} (two-player, {self.solver})",
                f"positions: {self.n_positions:,}, moves: {self.graph.n_moves:,} ({counts})",
                f"start value: {self.start_value} (for the player to move first)",
                f"time: explore {self.explore_seconds:.3f} s, solve {self.solve_seconds:.3f} s",
            ]
        )

    def __repr__(self) -> str:
        return (
            f"<GameModelSolution {self.name}: {self.n_positions:,} positions, {self.start_value}>"
        )


def solve_game_model(
    model: Any,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    max_edges: int = DEFAULT_MAX_EDGES,
    max_per_call: int = DEFAULT_MAX_PER_CALL,
    progress: bool = True,
) -> GameModelSolution:
    """Explore ``model`` from its start and solve it by retrograde analysis."""
    from perfectplay.solvers.retrograde import solve_retrograde

    exploration = explore_game(
        model,
        max_states=max_states,
        max_edges=max_edges,
        max_per_call=max_per_call,
        progress=progress,
    )
    t0 = time.perf_counter()
    solution = solve_retrograde(exploration.graph)
    return GameModelSolution(model, exploration, solution, time.perf_counter() - t0)
