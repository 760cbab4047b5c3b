"""Solving DISPDOM: the plain game through the shared explorer, decoded into the answer.

**Reduction to the plain game** (the editorial's argument). During the first ``D`` turns
nothing has disappeared yet, so the game is the plain placement game. If it has not ended
by then, it never ends: on every turn ``T + D`` the cells of turn ``T``'s domino have just
become free, so the player to move has a move. Hence the only player who can win is the
winner of the plain game, and they win the disappearing game exactly when they can force
the plain game to end in fewer than ``D`` moves: when the plain game's *remoteness* (the
winner hurries, the loser delays; see :mod:`perfectplay.solvers.retrograde`) is below
``D``. Otherwise the answer is ``Draw``.

:func:`solve` explores :class:`~perfectplay.problems.dispdom.model.DispdomModel` with
:func:`perfectplay.models.solve_model` (breadth first, then retrograde analysis on the
acyclic graph) and wraps the result with the decoder from strips to canonical states.

>>> from perfectplay.problems.dispdom.instance import parse
>>> sol = solve(parse("10 2 10\\n0000011000\\n"))
>>> sol.verdict, sol.plain_winner, sol.length, sol.first_move
('Alice', 'Alice', 3, 0)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from perfectplay.errors import InputError, short_repr
from perfectplay.graphs.game import Outcome
from perfectplay.problems.dispdom.instance import Instance
from perfectplay.problems.dispdom.model import DispdomModel

if TYPE_CHECKING:
    from perfectplay.graphs.game import GameGraph, GameSolution
    from perfectplay.models.game import GameModelSolution

PLAYERS = ("Alice", "Bob")


class Solution:
    """The solved game.

    Attributes:
        instance: the input.
        model: the plain game as a model (:class:`DispdomModel`).
        result: the model's solution: value and remoteness of every canonical state
            reachable from the strip, for the player to move, queried by state.
    """

    __slots__ = ("instance", "model", "result")

    def __init__(self, instance: Instance, model: DispdomModel, result: GameModelSolution) -> None:
        self.instance = instance
        self.model = model
        self.result = result

    def __repr__(self) -> str:
        return f"<dispdom.Solution {self.verdict}: {self.n_states:,} canonical states>"

    @property
    def game(self) -> GameSolution:
        """The solver's arrays, indexed by position id."""
        return self.result.solution

    @property
    def graph(self) -> GameGraph:
        """The canonical game graph (``graph.index`` is keyed by canonical states)."""
        return self.result.graph

    @property
    def plain_winner(self) -> str:
        """Who wins the plain game (dominoes never disappear)."""
        return PLAYERS[0] if self.result.start_value.value is Outcome.WIN else PLAYERS[1]

    @property
    def length(self) -> int:
        """Moves the plain game lasts when the winner hurries and the loser delays."""
        remoteness = self.result.start_value.remoteness
        assert remoteness is not None  # the graph is acyclic: no draws
        return remoteness

    @property
    def verdict(self) -> str:
        """``Alice``, ``Bob`` or ``Draw`` for the disappearing game (the D rule above)."""
        return self.plain_winner if self.length < self.instance.d else "Draw"

    @property
    def n_states(self) -> int:
        return self.graph.n_positions

    @property
    def n_moves(self) -> int:
        return self.graph.n_moves

    def value_of_strip(self, strip: str) -> tuple[Outcome, int]:
        """Value and remoteness of any strip (for the player to move) with this K whose
        canonical state was explored; :class:`~perfectplay.models.UnknownStateError` (a
        ``KeyError``) otherwise."""
        p = self.result.position_id(self.model.state_of(strip))
        return self.game.value_of(p), self.game.remoteness_of(p)

    def line(self) -> list[int]:
        """One optimal line of play on the real strip: the first cell (0-based) covered by
        each move. Each player picks the leftmost placement that keeps the optimum."""
        k = self.instance.k
        cells = list(self.instance.strip)
        out: list[int] = []
        value, rem = self.value_of_strip(self.instance.strip)
        while rem > 0:
            for start in _placements(cells, k):
                after = cells[:start] + ["1"] * k + cells[start + k :]
                v, r = self.value_of_strip("".join(after))
                # The child must be the optimum seen from the other side, one move closer.
                if r == rem - 1 and v == value.for_opponent():
                    break
            else:  # pragma: no cover - the solution is inconsistent
                raise AssertionError("no optimal move found")
            out.append(start)
            cells[start : start + k] = ["1"] * k
            value, rem = v, r
        return out

    @property
    def first_move(self) -> int | None:
        """The first cell (0-based) of the plain game winner's first move on the optimal
        :meth:`line`, or ``None`` when the winner never moves (Alice is stuck at once)."""
        line = self.line()
        turn = 0 if self.plain_winner == PLAYERS[0] else 1
        return line[turn] if len(line) > turn else None


def _placements(cells: list[str], k: int) -> Iterator[int]:
    run = 0
    for i, c in enumerate(cells):
        run = run + 1 if c == "0" else 0
        if run >= k:
            yield i - k + 1


def solve(instance: Instance, *, progress: bool | None = None) -> Solution:
    """Explore and solve the canonical game of ``instance``; small instances run the
    solver's Python source without importing numpy or numba. ``progress=True`` reports
    long explorations on stderr (after a second); ``None`` (the default) does so only
    after :func:`perfectplay.enable_progress`, as the command does: the library prints
    nothing unless asked."""
    from perfectplay.models import solve_model

    if not isinstance(instance, Instance):
        raise InputError(
            f"solve takes an Instance (parse(text) or Instance.make(strip, k, d)), "
            f"not {short_repr(instance)}"
        )
    # An Instance built directly is checked as Instance.make checks one given from Python.
    checked = Instance.make(instance.strip, instance.k, instance.d)
    if instance.n != checked.n:
        raise InputError(f"N is {short_repr(instance.n)} but the strip has {checked.n} cells")
    model = DispdomModel(instance.strip, instance.k)
    return Solution(instance, model, solve_model(model, progress=progress))


__all__ = ["PLAYERS", "Solution", "solve"]
