"""Solving a :class:`~perfectplay.models.base.ChanceModel` and querying the result.

The explorer turns the model into a chance graph and
:func:`~perfectplay.solvers.solve_chance` picks the solver: label-setting
(:func:`~perfectplay.solvers.retry.solve_retry`, near-linear) where its proof holds (the
retry property: every outcome of a roll may choose that roll again; positive costs),
otherwise policy iteration (:func:`~perfectplay.solvers.policy_iteration.solve_ssp`:
linear where the policy has no cycle, a dense solve per cycle). The solution is a
:class:`~perfectplay.results.ChanceResult` plus the model's state index: queries take the
user's own state objects; values are floats (about 1e-12 relative; ties by
:func:`~perfectplay.results.is_tie`), and :meth:`ChanceModelSolution.exact` gives exact
fractions verified optimal.

>>> from perfectplay.models.base import ChanceModel
>>> class TwoCoins(ChanceModel):  # toss two coins until both show heads; keep a head or not
...     start = ()
...     def is_goal(self, s): return s == ("H", "H")
...     def choices(self, s): return [(), ("H",)] if "H" in s else [()]
...     def roll(self, kept):
...         fresh = [(c,) for c in "HT"] if kept else [(a, b) for a in "HT" for b in "HT"]
...         return [(tuple(sorted(kept + f)), 1) for f in fresh]
>>> sol = solve_chance_model(TwoCoins())
>>> round(sol.start_value, 12), sol.solver, sol.exact()
(2.666666666667, 'label-setting', Fraction(8, 3))
>>> [(o.action, round(o.value, 9), round(o.regret, 9)) for o in sol.options(("H", "T"))]
[(('H',), 2.0, 0.0), ((), 2.666666667, 0.666666667)]
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from perfectplay.errors import ModelError
from perfectplay.graphs.chance import ChanceGraph, ChanceSolution
from perfectplay.models.base import UnknownStateError
from perfectplay.models.explore import (
    DEFAULT_MAX_EDGES,
    DEFAULT_MAX_PER_CALL,
    DEFAULT_MAX_STATES,
    ChanceExploration,
    describe,
    explore_chance,
    model_attribute,
    model_name,
)
from perfectplay.objectives import MIN_COST, Objective
from perfectplay.results.graph import ChanceResult, ExactValues
from perfectplay.results.options import Option, rank_options
from perfectplay.results.surface import Solution

if TYPE_CHECKING:
    from pathlib import Path


__all__ = [
    "ChanceModelSolution",
    "Option",
    "solve_chance_graph",
    "solve_chance_model",
]


class ChanceModelSolution(Solution):
    """The solved model: a :class:`~perfectplay.results.ChanceResult` plus the model's
    state index, so every query takes the user's own states and choices (the
    :class:`~perfectplay.results.surface.Solution` surface).

    Attributes:
        model: the user's model.
        exploration: the graph and the key tables
            (:class:`~perfectplay.models.explore.ChanceExploration`).
        result: the :class:`~perfectplay.results.ChanceResult` (queries by node id).
        solution: the solver's arrays (:class:`~perfectplay.graphs.chance.ChanceSolution`).
        solver: the method that ran, ``"label-setting"``, ``"backward-induction"`` or
            ``"policy-iteration"`` (:func:`~perfectplay.solvers.solve_chance`).
        explore_seconds, solve_seconds: wall times of the two phases.
    """

    kind = "chance"

    def __init__(
        self,
        model: Any,
        exploration: ChanceExploration,
        solution: ChanceSolution,
        solver: str,
        solve_seconds: float,
    ) -> None:
        self.model = model
        self.exploration = exploration
        self.solution = solution
        self.result = ChanceResult(exploration.graph, solution)
        self._solver = solver
        self.explore_seconds = exploration.seconds
        self.solve_seconds = solve_seconds

    # -- sizes -------------------------------------------------------------------------
    @property
    def graph(self) -> ChanceGraph:
        return self.exploration.graph

    @property
    def n_states(self) -> int:
        """Distinct decision states (after canonical merging)."""
        return self.graph.n_decision

    @property
    def n_rolls(self) -> int:
        """Distinct pending rolls (chance nodes)."""
        return self.graph.n_chance

    @property
    def name(self) -> str:
        return model_name(self.model)

    @property
    def solver(self) -> str:
        """The method that ran: ``"label-setting"``, ``"backward-induction"`` or
        ``"policy-iteration"`` (:func:`~perfectplay.solvers.solve_chance`)."""
        return self._solver

    # -- values ------------------------------------------------------------------------
    @property
    def objective(self) -> Objective:
        """What the model optimises (:data:`~perfectplay.objectives.MIN_COST` by default)."""
        return self.graph.objective

    @property
    def objective_text(self) -> str:
        """The objective as reports word it: under the default objective (whose unit is
        rolls) a model that prices its rolls with ``cost()`` minimises its expected cost.

        >>> class Priced:
        ...     start = 0
        ...     def is_goal(self, s): return s == 1
        ...     def choices(self, s): return ["go"]
        ...     def cost(self, pending): return Fraction(3, 4)
        ...     def roll(self, pending): return [(1, 1)]
        >>> solve_chance_model(Priced()).objective_text
        'minimise expected cost'
        """
        obj = self.objective
        if obj == MIN_COST and model_attribute(self.model, "cost") is not None:
            return f"{obj.verb} expected cost"
        return obj.describe()

    @property
    def start_value(self) -> float:
        """Optimal expected outcome from the start (by default the expected cost; ``inf``:
        the goal is unreachable)."""
        return self.result.value()

    def state_id(self, state: Any) -> int:
        """Dense id of ``state``'s class; :class:`UnknownStateError` if it was not reached."""
        try:
            i = self.exploration.states.get(state)
        except Exception as exc:
            raise ModelError(f"cannot key state {describe(state)}: {exc}") from exc
        if i is None:
            raise UnknownStateError(
                f"state {describe(state)} is not reachable from the start of {self.name}"
            )
        return i

    def value(self, state: Any = None) -> float:
        """Optimal expected outcome from ``state`` (the start when omitted; by default the
        remaining cost: 0 at a goal, ``inf`` if no goal is reachable)."""
        return self.result.value(None if state is None else self.state_id(state))

    def is_over(self, state: Any) -> bool:
        """Whether ``state`` is a goal (the game is over)."""
        return self.result.is_terminal(self.state_id(state))

    def is_goal(self, state: Any) -> bool:
        """The same as :meth:`is_over`."""
        return self.is_over(state)

    def items(self) -> Iterator[tuple[Any, float]]:
        """Every solved state (one per class: the first met) with its value, by id."""
        reps = self.exploration.state_reps
        return ((reps[x], v) for x, v in self.result.items())

    def states(self) -> Iterator[Any]:
        """Every solved state (one per class: the first met), by id."""
        return iter(self.exploration.state_reps)

    def _choices(self, state: Any) -> dict[int, Any]:
        """Roll id -> the first of ``state``'s own choices that lands on it."""
        name = self.name
        try:
            listed = list(self.model.choices(state))
        except Exception as exc:
            raise ModelError(f"{name}.choices({describe(state)}) raised {exc!r}") from exc
        chances = self.exploration.chances
        out: dict[int, Any] = {}
        for pending in listed:
            try:
                c = chances.get(pending)
            except Exception as exc:
                raise ModelError(f"cannot key choice {describe(pending)}: {exc}") from exc
            if c is None:
                raise ModelError(
                    f"{name}.choices({describe(state)}) returned {describe(pending)}, which the "
                    "exploration never saw; the model must be deterministic"
                )
            out.setdefault(c, pending)
        return out

    def options(self, state: Any = None) -> list[Option]:
        """Every choice of ``state`` (the model's own objects) with its value and regret,
        best first.

        Empty at a goal. Choices that land on the same roll are listed once; equal values
        list the policy's choice first (:func:`~perfectplay.results.options.rank_options`).
        """
        if state is None:  # the start, as for value()
            state = self.exploration.state_reps[0]
        x = self.state_id(state)
        if self.result.is_terminal(x):
            return []
        mine = self._choices(state)
        values = self.solution.chance_value
        r = self.result
        policy = r.policy(x)
        rolls = list(mine)
        return rank_options(
            [mine[c] for c in rolls],
            [float(values[c]) for c in rolls],
            mine.get(policy) if policy is not None else None,
            r.maximise,
        )

    def policy_choice(self, state: Any) -> Any | None:
        """The single choice the solver's policy takes in ``state`` (its representative).

        ``None`` at a goal or where no goal can be reached.
        """
        c = self.result.policy(self.state_id(state))
        return None if c is None else self.exploration.chance_reps[c]

    # -- distribution, simulation, exact -------------------------------------------------
    def distribution(self, k_max: int) -> np.ndarray:
        """``P[k]`` = probability that optimal play reaches a goal with total cost ``<= k``."""
        return self.result.distribution(k_max)

    def quantile(self, q: float, limit: int = 1_000_000) -> int | None:
        """Smallest ``k`` with ``P[cost <= k] >= q`` (``None`` if beyond ``limit``)."""
        return self.result.quantile(q, limit)

    def simulate(self, runs: int, seed: int = 0) -> np.ndarray:
        """Total cost of ``runs`` seeded games played with the optimal policy (int64)."""
        return self.result.simulate(runs, seed)

    def exact_values(self) -> ExactValues:
        """Exact values of the optimal policy by node id, verified optimal in rational
        arithmetic (:class:`~perfectplay.results.ExactValues`: ``.value`` is a
        :class:`~fractions.Fraction`, or ``None`` for an infinite value: the goal is
        unreachable under a cost, or every play fails to finish under a score; never for
        a probability, where a play that stops or goes on for ever counts 0).
        """
        return self.result.exact()

    def exact(self, state: Any = None) -> Fraction | None:
        """Exact value from ``state`` (the start when omitted), verified optimal in rational
        arithmetic; ``None`` for infinity."""
        ex = self.exact_values()
        if state is None:
            return ex.value
        return ex[self.state_id(state)]

    def exact_value(self, state: Any = None) -> Fraction | None:
        """The same as :meth:`exact`."""
        return self.exact(state)

    # -- output --------------------------------------------------------------------------
    def save(self, path: str | Path, *, exact: bool = False) -> Path:
        """Write the solved table to ``path`` (``.npz``, see :mod:`~perfectplay.results.table`).

        With ``exact=True`` the table also holds every state's exact value.
        """
        from perfectplay.results.table import export_chance

        return export_chance(self, path, exact=exact)

    def summary(self) -> str:
        """A few lines a person reads: sizes, start value, solver and times."""
        g = self.graph
        v = self.start_value
        value = "inf (the goal cannot be reached)" if v == float("inf") else f"{v:.9f}"
        return "\n".join(
            [
                f"model: {self.name} (chance, {self.objective_text}, {self.solver})",
                f"states: {g.n_decision:,} decision, {g.n_chance:,} rolls, "
                f"{g.n_edges:,} edges; retry property: {'yes' if self.exploration.retry else 'no'}",
                f"start value: {value}",
                f"time: explore {self.explore_seconds:.3f} s, solve {self.solve_seconds:.3f} s",
            ]
        )

    def __repr__(self) -> str:
        return (
            f"<ChanceModelSolution {self.name}: {self.n_states:,} states, "
            f"start value {self.start_value:.9g}>"
        )


def solve_chance_graph(
    graph: ChanceGraph, progress: bool = True, max_sweeps: int | None = None
) -> tuple[ChanceSolution, str]:
    """Solve ``graph`` with :func:`~perfectplay.solvers.solve_chance` (``method="auto"``);
    returns the solution and the name of the method that ran."""
    from perfectplay.solvers import solve_chance

    solution = solve_chance(graph, progress=progress, max_sweeps=max_sweeps)
    return solution, solution.method


def solve_chance_model(
    model: Any,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    max_edges: int = DEFAULT_MAX_EDGES,
    max_per_call: int = DEFAULT_MAX_PER_CALL,
    progress: bool = True,
    max_sweeps: int | None = None,
) -> ChanceModelSolution:
    """Explore ``model`` from its start and solve it (see the module docstring);
    ``max_sweeps`` as in :func:`~perfectplay.solvers.solve_chance`."""
    exploration = explore_chance(
        model,
        max_states=max_states,
        max_edges=max_edges,
        max_per_call=max_per_call,
        progress=progress,
    )
    t0 = time.perf_counter()
    from perfectplay.solvers import UnboundedObjectiveError

    try:
        solution, solver = solve_chance_graph(exploration.graph, progress, max_sweeps)
    except UnboundedObjectiveError as exc:
        # Name the user's state instead of a node id.
        state = describe(exploration.state_reps[exc.node])
        raise UnboundedObjectiveError(
            f"{model_name(model)}: the value is unbounded: to "
            f"{exploration.graph.objective.describe()} a player can repeat for ever a cycle "
            f"that pays, through the state {state}",
            exc.node,
        ) from None
    return ChanceModelSolution(model, exploration, solution, solver, time.perf_counter() - t0)
