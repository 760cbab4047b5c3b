"""Results by node id: :class:`ChanceResult` and :class:`GameResult`.

A solver returns arrays (:class:`~perfectplay.graphs.chance.ChanceSolution`,
:class:`~perfectplay.graphs.game.GameSolution`); a result wraps a graph with its solution
and answers every question about it keyed by node id: ``value``, ``options`` (every
choice with its value and regret, best first, ties marked; see
:mod:`perfectplay.results.options`), ``best``, ``items``; chance results add ``exact``,
``distribution``, ``quantile`` and ``simulate``, game results ``counts``. The solutions of
models, rule sets and tables (:class:`~perfectplay.results.surface.Solution`) translate
their own states to node ids and ask these.

Values follow Bertsekas and Tsitsiklis, "An analysis of stochastic shortest path
problems", Math. Oper. Res. 16 (1991) for chance graphs, and retrograde analysis with
remoteness for game graphs (see :mod:`perfectplay.solvers.retrograde`).

>>> from perfectplay.graphs.chance import ChanceGraph
>>> from perfectplay.solvers.retry import solve_retry
>>> g = ChanceGraph.from_lists(      # roll a die until it shows a six; 0 start, 1 six, 2 other
...     goal=[False, True, False], choices=[[0], [], [0]], outcomes=[[(1, 1), (2, 5)]])
>>> r = ChanceResult(g, solve_retry(g))
>>> r.value(), [(o.action, o.value) for o in r.options(2)], r.best(2), r.exact().value
(6.0, [(0, 6.0)], [0], Fraction(6, 1))
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

from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from perfectplay.graphs.game import NOT_TERMINAL, GameGraph, GameSolution, Outcome
from perfectplay.results.options import (
    Option,
    Result,
    best_actions,
    move_result,
    rank_moves,
    rank_options,
    result_of,
)

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np

    from perfectplay.analysis.exact import ExactSolution
    from perfectplay.graphs.chance import ChanceGraph, ChanceSolution

__all__ = ["ChanceResult", "ExactValues", "GameResult"]


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
        return f"<ChanceResult: {self.graph.n_decision:,} nodes, start value {self.value():.9g}>"

    @property
    def start(self) -> int:
        return int(self.graph.start)

    @property
    def maximise(self) -> bool:
        return self.graph.objective.sense == "max"

    @property
    def unit(self) -> str:
        """What a value counts, for text (``"rolls"`` without an objective that says)."""
        return self.graph.objective.unit

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
        terminal node); see :func:`~perfectplay.results.options.rank_options`."""
        if self.is_terminal(node):
            return []
        choices = [int(c) for c in self.graph.choices(node)]
        values = [float(self.solution.chance_value[c]) for c in choices]
        return rank_options(choices, values, self.policy(node), self.maximise)

    def best(self, node: int) -> list[int]:
        """All optimal choices of ``node`` (ties by
        :func:`~perfectplay.results.options.is_tie`)."""
        return best_actions(self.options(node))

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

    def save(self, path: str | Path, exact: bool = False, name: str = "graph") -> Path:
        """Write the solved table (keys: node ids) to ``path``; read it with
        :func:`perfectplay.load`. Returns the path written."""
        from perfectplay.results.table import write_chance_table

        n, m = self.graph.n_decision, self.graph.n_chance
        return write_chance_table(
            path, self, name, [repr(x) for x in range(n)], [repr(c) for c in range(m)], exact
        )

    export = save


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
        return bool(self.graph.terminal[node] != NOT_TERMINAL)

    def move_value(self, child: int) -> Result:
        """The value, for the mover, of a move to position ``child``."""
        return move_result(self.solution.value[child], self.solution.remoteness[child])

    def options(self, node: int) -> list[Option]:
        """Every move of ``node`` (its action and state: the child position) with its value,
        best first; empty at a terminal position."""
        if self.is_terminal(node):
            return []
        children = [int(c) for c in self.graph.moves(node)]
        return rank_moves(children, [self.move_value(c) for c in children], states=children)

    def best(self, node: int) -> list[int]:
        """The child positions of the moves that achieve ``node``'s value and remoteness."""
        return best_actions(self.options(node))

    def counts(self) -> dict[Outcome, int]:
        """How many positions have each outcome for the player to move."""
        return self.solution.counts()

    def items(self) -> Iterator[tuple[int, Result]]:
        """Every position with its value, by id."""
        return ((p, self.value(p)) for p in range(self.graph.n_positions))

    def save(self, path: str | Path, name: str = "graph") -> Path:
        """Write the solved table (keys: position ids, moves: child ids) to ``path``."""
        from perfectplay.results.table import write_game_table

        n = self.graph.n_positions

        def listed(p: int) -> list[tuple[Any, int]]:
            return [(int(c), int(c)) for c in self.graph.moves(p)]

        return write_game_table(path, self, name, [repr(p) for p in range(n)], listed)

    export = save
