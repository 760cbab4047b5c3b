"""The one query surface of a solved graph: :class:`ChanceResult` and :class:`GameResult`.

A solver returns arrays (:class:`~perfectplay.graphs.chance.ChanceSolution`,
:class:`~perfectplay.graphs.game.GameSolution`); a *result* wraps a graph with its solution
and answers every question about it, keyed by node id, with the same names for every
graph kind: ``value``, ``options`` (every choice with its value, best first), ``best``
(all optimal choices), ``items`` (every node with its value) and ``export``; chance
results add ``exact``, ``distribution``, ``quantile`` and ``simulate``, game results
``counts``. A model's solution (:mod:`perfectplay.models`) is a result plus the model's
state index, and a gallery solution is a result plus its problem's decoder: both translate
their own states to node ids and ask the result.

Floats are compared with one rule, :func:`is_tie` (:data:`TIE_TOLERANCE`); exact values
(:meth:`ChanceResult.exact`) decide ties exactly.

Values follow Bertsekas and Tsitsiklis, "An analysis of stochastic shortest path
problems", Math. Oper. Res. 16 (1991) for chance graphs, and retrograde analysis with
remoteness for game graphs (see :mod:`perfectplay.solvers.retrograde`).

>>> from perfectplay.graphs.chance import ChanceGraph
>>> from perfectplay.solvers.retry import solve_retry
>>> g = ChanceGraph.from_lists(      # roll a die until it shows a six; 0 start, 1 six, 2 other
...     goal=[False, True, False], choices=[[0], [], [0]], outcomes=[[(1, 1), (2, 5)]])
>>> r = ChanceResult(g, solve_retry(g))
>>> r.value(), r.options(2), r.best(2), r.exact().value
(6.0, [Option(choice=0, value=6.0)], [0], Fraction(6, 1))
>>> list(r.items())
[(0, 6.0), (1, 0.0), (2, 6.0)]
>>> from perfectplay.graphs.game import GameGraph
>>> from perfectplay.solvers.retrograde import solve_retrograde
>>> gg = GameGraph.from_lists([[1, 2], [], [1]])   # 1: the mover is stuck and loses
>>> gr = GameResult(gg, solve_retrograde(gg))
>>> gr.value(), gr.best(0), gr.counts()[Outcome.LOSE]
(Result(value=<Outcome.WIN: 4>, remoteness=1), [1], 1)
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

from perfectplay.graphs.game import NOT_TERMINAL, GameGraph, GameSolution, Outcome

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np

    from perfectplay.analysis.exact import ExactSolution
    from perfectplay.graphs.chance import ChanceGraph, ChanceSolution

__all__ = [
    "TIE_TOLERANCE",
    "ChanceResult",
    "ExactValues",
    "GameResult",
    "MoveValue",
    "Option",
    "Outcome",
    "Result",
    "is_tie",
    "is_maximising",
    "rank_options",
    "rank_moves",
]

TIE_TOLERANCE = 1e-9
"""The one float tie rule of the package: two values tie when they differ by at most this
much relative to the larger magnitude (absolute below 1).

The solvers' floats carry about 1e-12 relative error, so values that are really equal
always tie, while real differences in the gallery and the examples are far larger; where a
decision must be right beyond doubt, :meth:`ChanceResult.exact` decides in rationals."""


def is_tie(a: float, b: float) -> bool:
    """Whether two float values are equal up to :data:`TIE_TOLERANCE` (infinities tie only
    with themselves).

    >>> is_tie(1.0, 1.0 + 1e-12), is_tie(1.0, 1.001), is_tie(math.inf, math.inf)
    (True, False, True)
    """
    if a == b:
        return True
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    return abs(a - b) <= TIE_TOLERANCE * max(1.0, abs(a), abs(b))


def is_maximising(graph: Any) -> bool:
    """Whether the graph's objective maximises (no objective: minimise expected cost).

    Reads ``graph.objective.sense`` when the graph has one; ``"max"``, ``"maximise"`` and an
    enum member named so all count.
    """
    objective = getattr(graph, "objective", None)
    sense = getattr(objective, "sense", "min")
    text = str(getattr(sense, "value", getattr(sense, "name", sense))).lower()
    return text.startswith("max")


class Option(NamedTuple):
    """One choice and the value of taking it (for a model: the model's own choice object;
    for a result: the chance node id)."""

    choice: Any
    value: float


class Result(NamedTuple):
    """A position's outcome for the player to move and its remoteness (``None``: a draw)."""

    value: Outcome
    remoteness: int | None

    def __str__(self) -> str:
        word = str(self.value).upper()
        return word if self.remoteness is None else f"{word} in {self.remoteness}"


class MoveValue(NamedTuple):
    """A move (a model's own object, or for a result the child node id) and what it is
    worth to the player making it (remoteness counts the move; ``None`` for a draw)."""

    move: Any
    value: Outcome
    remoteness: int | None


def rank_options(
    choices: Sequence[Any], values: Sequence[float], policy: Any, maximise: bool = False
) -> list[Option]:
    """Options best first: by value in the objective's sense, the policy's choice first
    among equal values, then in the order given. Shared by results, model solutions and
    loaded tables so that all three order alike.

    >>> rank_options(["a", "b", "c"], [2.0, 1.0, 1.0], "c")
    [Option(choice='c', value=1.0), Option(choice='b', value=1.0), Option(choice='a', value=2.0)]
    """
    sign = -1.0 if maximise else 1.0
    order = sorted(
        range(len(choices)), key=lambda k: (sign * values[k], choices[k] != policy)
    )
    return [Option(choices[k], float(values[k])) for k in order]


def best_of(options: list[Option], maximise: bool = False) -> list[Any]:
    """The choices tied (:func:`is_tie`) with the first option; none when the best value
    is infinite in the wrong direction (no goal can be reached)."""
    if not options:
        return []
    top = options[0].value
    if top == (-math.inf if maximise else math.inf):
        return []
    return [o.choice for o in options if is_tie(o.value, top)]


def move_value(move: Any, child_value: int, child_remoteness: int) -> MoveValue:
    """A move valued for its mover from the child's outcome for the opponent."""
    v = Outcome(int(child_value)).for_opponent()
    return MoveValue(move, v, None if v == Outcome.DRAW else int(child_remoteness) + 1)


def _move_rank(m: MoveValue) -> tuple[int, int]:
    # Smaller is better: wins and ties hurry, losses delay, draws have no remoteness.
    r = m.remoteness or 0
    if m.value == Outcome.WIN:
        return (0, r)
    if m.value == Outcome.TIE:
        return (1, r)
    if m.value == Outcome.DRAW:
        return (2, 0)
    return (3, -r)


def rank_moves(moves: list[MoveValue]) -> list[MoveValue]:
    """Moves best first for the mover: quick wins, quick ties, draws, slow losses (stable)."""
    return sorted(moves, key=_move_rank)


def best_moves(ranked: list[MoveValue]) -> list[Any]:
    """The moves of a best-first list that achieve the position's outcome and remoteness."""
    return [m.move for m in ranked if _move_rank(m) == _move_rank(ranked[0])] if ranked else []


def result_of(value: int, remoteness: int) -> Result:
    v = Outcome(int(value))
    return Result(v, None if v == Outcome.DRAW else int(remoteness))


class ExactValues:
    """Exact values of a verified optimal policy, by node: the one type ``exact()`` returns.

    ``value`` is the start's value; ``self[x]`` (or :meth:`decision_value`) a decision
    node's and :meth:`chance_value` a roll's, each a :class:`~fractions.Fraction`, or
    ``None`` where the value is infinite (no goal can be reached). ``solution`` is the
    policy that was verified (near-ties repaired in rationals, see
    :func:`perfectplay.analysis.exact.exact_solution`).
    """

    __slots__ = ("_exact",)

    def __init__(self, exact: ExactSolution) -> None:
        self._exact = exact

    @property
    def value(self) -> Fraction | None:
        return self._exact.value

    @property
    def solution(self) -> ChanceSolution:
        return self._exact.solution

    @property
    def graph(self) -> ChanceGraph:
        return self._exact.graph

    def decision_value(self, x: int) -> Fraction | None:
        return self._exact.decision_value(x)

    def chance_value(self, c: int) -> Fraction | None:
        return self._exact.chance_value(c)

    def __getitem__(self, x: int) -> Fraction | None:
        return self._exact.decision_value(x)

    def __len__(self) -> int:
        return self.graph.n_decision

    def __repr__(self) -> str:
        return f"<ExactValues: start {self.value}>"


class ChanceResult:
    """A solved :class:`~perfectplay.graphs.chance.ChanceGraph`, queried by node id.

    Attributes:
        graph: the graph; its ``objective`` (when it has one) gives the sense and wording.
        solution: the solver's arrays.
    """

    __slots__ = ("graph", "solution", "_exact")

    def __init__(self, graph: ChanceGraph, solution: ChanceSolution) -> None:
        self.graph = graph
        self.solution = solution
        self._exact: ExactValues | None = None

    def __repr__(self) -> str:
        return (
            f"<ChanceResult: {self.graph.n_decision:,} nodes, start value {self.value():.9g}>"
        )

    @property
    def start(self) -> int:
        return int(self.graph.start)

    @property
    def maximise(self) -> bool:
        return is_maximising(self.graph)

    @property
    def unit(self) -> str:
        """What a value counts, for text (``"rolls"`` without an objective that says)."""
        return str(getattr(getattr(self.graph, "objective", None), "unit", "rolls"))

    def value(self, node: int | None = None) -> float:
        """Value of decision node ``node`` (the start when omitted)."""
        return float(self.solution.decision_value[self.start if node is None else node])

    def is_terminal(self, node: int) -> bool:
        """Whether the game is over at ``node`` (it has no choice to make)."""
        return bool(self.graph.terminal[node])

    def policy(self, node: int) -> int | None:
        """The roll the solver's policy takes at ``node`` (``None``: terminal or hopeless)."""
        c = int(self.solution.best_choice[node])
        return None if c < 0 else c

    def options(self, node: int) -> list[Option]:
        """Every choice (chance node id) of ``node`` with its value, best first (empty at a
        terminal node); see :func:`rank_options` for the order of equal values."""
        if self.is_terminal(node):
            return []
        choices = [int(c) for c in self.graph.choices(node)]
        values = [float(self.solution.chance_value[c]) for c in choices]
        return rank_options(choices, values, self.policy(node), self.maximise)

    def best(self, node: int) -> list[int]:
        """All optimal choices of ``node``, ties by :func:`is_tie`."""
        return best_of(self.options(node), self.maximise)

    def items(self) -> Iterator[tuple[int, float]]:
        """Every decision node with its value, by id."""
        values = self.solution.decision_value
        return ((x, float(values[x])) for x in range(self.graph.n_decision))

    def exact(self) -> ExactValues:
        """Exact values of the policy, verified optimal in rational arithmetic (computed
        once; a float near-tie decided the wrong way is repaired by exact policy
        improvement)."""
        if self._exact is None:
            from perfectplay.analysis.exact import exact_solution

            self._exact = ExactValues(exact_solution(self.graph, self.solution, improve=True))
        return self._exact

    def distribution(self, k_max: int) -> np.ndarray:
        """``float64[k_max + 1]``: probability that optimal play ends with total cost ``<= k``."""
        from perfectplay.analysis.distribution import cost_distribution

        return cost_distribution(self.graph, self.solution, k_max)

    def quantile(self, q: float, limit: int = 1_000_000) -> int | None:
        """Smallest ``k <= limit`` with probability at least ``q`` of ending within ``k``."""
        from perfectplay.analysis.distribution import quantile

        return quantile(self.graph, self.solution, q, limit)

    def simulate(self, runs: int, seed: int = 0) -> np.ndarray:
        """Total cost of ``runs`` seeded games played with the policy (``int64[runs]``)."""
        from perfectplay.analysis.simulate import simulate

        return simulate(self.graph, self.solution, runs, seed)

    def export(self, path: str | Path, exact: bool = False, name: str = "graph") -> Path:
        """Write the solved table (keys: node ids) to ``path``; read it with
        :func:`perfectplay.models.load_solution`. Returns the path written."""
        from perfectplay.models.table import write_chance_table

        n, m = self.graph.n_decision, self.graph.n_chance
        return write_chance_table(
            path, self, name, [repr(x) for x in range(n)], [repr(c) for c in range(m)], exact
        )


class GameResult:
    """A solved :class:`~perfectplay.graphs.game.GameGraph`, queried by position id.

    Outcomes are for the player to move (:class:`~perfectplay.graphs.game.Outcome`);
    remoteness is ``None`` for a draw.
    """

    __slots__ = ("graph", "solution")

    def __init__(self, graph: GameGraph, solution: GameSolution) -> None:
        self.graph = graph
        self.solution = solution

    def __repr__(self) -> str:
        return f"<GameResult: {self.graph.n_positions:,} positions, start {self.value()}>"

    @property
    def start(self) -> int:
        return int(self.graph.start)

    def value(self, node: int | None = None) -> Result:
        """Outcome and remoteness of position ``node`` (the start when omitted)."""
        p = self.start if node is None else node
        return result_of(self.solution.value[p], self.solution.remoteness[p])

    def is_terminal(self, node: int) -> bool:
        return self.graph.terminal[node] != NOT_TERMINAL

    def move_value(self, move: Any, child: int) -> MoveValue:
        """``move`` (any label) leading to position ``child``, valued for the mover."""
        return move_value(move, self.solution.value[child], self.solution.remoteness[child])

    def options(self, node: int) -> list[MoveValue]:
        """Every move of ``node`` (labelled by the child position) with its value, best
        first; empty at a terminal position."""
        if self.is_terminal(node):
            return []
        return rank_moves([self.move_value(int(c), int(c)) for c in self.graph.moves(node)])

    def best(self, node: int) -> list[int]:
        """The child positions of the moves that achieve ``node``'s value and remoteness."""
        return best_moves(self.options(node))

    def counts(self) -> dict[Outcome, int]:
        """How many positions have each outcome for the player to move."""
        return self.solution.counts()

    def items(self) -> Iterator[tuple[int, Result]]:
        """Every position with its value, by id."""
        return ((p, self.value(p)) for p in range(self.graph.n_positions))

    def export(self, path: str | Path, name: str = "graph") -> Path:
        """Write the solved table (keys: position ids, moves: child ids) to ``path``."""
        from perfectplay.models.table import write_game_table

        n = self.graph.n_positions

        def listed(p: int) -> list[tuple[Any, int]]:
            return [(int(c), int(c)) for c in self.graph.moves(p)]

        return write_game_table(path, self, name, [repr(p) for p in range(n)], listed)


