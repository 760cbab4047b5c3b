"""One entry point per graph kind: :func:`solve_chance` and :func:`solve_game`.

``method="auto"`` picks the fastest algorithm whose proof holds for the graph, like
SciPy's ``shortest_path``:

* chance graphs: **label-setting** (:func:`~perfectplay.solvers.retry.solve_retry`, a
  Dijkstra-like sweep) when the objective minimises, every cost is positive and the graph
  has the retry property; else **backward induction**
  (:func:`~perfectplay.solvers.backward.solve_backward`) when the graph has no cycle (any
  costs and terminal values, either sense); otherwise **policy iteration**
  (:func:`~perfectplay.solvers.policy_iteration.solve_ssp`; Howard 1960, Bertsekas and
  Tsitsiklis 1991), which handles zero costs and maximising objectives by orienting values;
* game graphs: retrograde analysis (:func:`~perfectplay.solvers.retrograde.solve_retrograde`);
* stochastic game graphs (two players with dice):
  :func:`~perfectplay.solvers.stochastic.solve_stochastic` (components and interval
  iteration; Condon 1992).

A forced method whose proof does not hold, or an objective no solver supports yet, raises
:class:`~perfectplay.errors.UnsupportedObjectiveError` naming what fails. Importing this
package is cheap: the solvers load on first use.

>>> from perfectplay.graphs.chance import ChanceGraph
>>> from perfectplay.objectives import Objective
>>> race = ChanceGraph.from_lists([False, True, False], [[0], [], [0]], [[(1, 1), (2, 5)]])
>>> sol = solve_chance(race)
>>> sol.method, sol.value
('label-setting', 6.0)
>>> bet = ChanceGraph.from_lists(   # stop with 2, or roll for 0 or 5 (zero cost): maximise
...     terminal=[False, True, True, True], terminal_value=[0, 2, 0, 5],
...     choices=[[0, 1], [], [], []], outcomes=[[(1, 1)], [(2, 1), (3, 1)]], cost=[0, 0],
...     objective=Objective.score(),
... )
>>> sol = solve_chance(bet)
>>> sol.method, sol.value, int(sol.best_choice[0])
('backward-induction', 2.5, 1)
>>> odds = ChanceGraph.from_lists(   # minimise the event: stop at the dead end 2, or roll
...     terminal=[False, True, False], terminal_value=[0, 1, 0],
...     choices=[[0, 1], [], []], outcomes=[[(2, 1)], [(1, 1), (2, 1)]], cost=[0, 0],
...     objective=Objective.probability("min"))
>>> sol = solve_chance(odds)
>>> sol.value, int(sol.best_choice[0]), sol.graph is odds
(0.0, 0, True)

Each solver declares the conditions its proof needs beside the proof (a ``SOLVER`` record,
see :mod:`perfectplay.solvers.conditions`); ``method="auto"`` reads them in the order of
:data:`CHANCE_SOLVERS` and runs the first whose conditions hold.

With cycles, the value is unbounded exactly when a policy can stay for ever in an *end
component* (:meth:`~perfectplay.graphs.chance.ChanceGraph.end_components`) holding a roll whose cost
favours the player (a negative *oriented* cost: a positive cost when maximising, a
negative one when minimising). Such graphs are refused with
:class:`UnboundedObjectiveError`, which names a decision node of the cycle:

>>> loop = ChanceGraph.from_lists(   # roll for +1 and come back, or stop
...     terminal=[False, True], choices=[[0, 1], []], outcomes=[[(0, 1)], [(1, 1)]],
...     cost=[1, 0], objective=Objective.score())
>>> try:
...     solve_chance(loop)
... except UnboundedObjectiveError as e:
...     print(e.node, str(e).split(":")[0])
0 the value is unbounded
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_exports
from perfectplay.errors import UnsupportedObjectiveError

if TYPE_CHECKING:
    from perfectplay.graphs.chance import ChanceGraph, ChanceSolution
    from perfectplay.graphs.game import GameGraph, GameSolution
    from perfectplay.solvers.backward import solve_backward
    from perfectplay.solvers.conditions import (
        ChanceSolver,
        UnboundedObjectiveError,
        unbounded_node,
    )
    from perfectplay.solvers.lexpath import LexModel, LexPath, LexStats, search
    from perfectplay.solvers.policy_iteration import solve_ssp
    from perfectplay.solvers.reach import solve_probability
    from perfectplay.solvers.retrograde import solve_retrograde
    from perfectplay.solvers.retry import settle_order, solve_retry
    from perfectplay.solvers.stochastic import solve_stochastic

# The algorithms themselves, one module each, loaded on first use.
_EXPORTS = {
    "solve_backward": "perfectplay.solvers.backward",
    "solve_probability": "perfectplay.solvers.reach",
    "solve_retry": "perfectplay.solvers.retry",
    "settle_order": "perfectplay.solvers.retry",
    "solve_ssp": "perfectplay.solvers.policy_iteration",
    "solve_retrograde": "perfectplay.solvers.retrograde",
    "solve_stochastic": "perfectplay.solvers.stochastic",
    "search": "perfectplay.solvers.lexpath",
    "ChanceSolver": "perfectplay.solvers.conditions",
    "UnboundedObjectiveError": "perfectplay.solvers.conditions",
    "unbounded_node": "perfectplay.solvers.conditions",
    "LexModel": "perfectplay.solvers.lexpath",
    "LexPath": "perfectplay.solvers.lexpath",
    "LexStats": "perfectplay.solvers.lexpath",
}
__all__ = [
    "CHANCE_METHODS",
    "CHANCE_SOLVERS",
    "ChanceSolver",
    "UnboundedObjectiveError",
    "chance_solvers",
    "solve_backward",
    "solve_probability",
    "LexModel",
    "LexPath",
    "LexStats",
    "label_setting_blockers",
    "search",
    "settle_order",
    "solve_chance",
    "solve_game",
    "solve_retrograde",
    "solve_retry",
    "solve_ssp",
    "unbounded_node",
    "solve_stochastic",
]

CHANCE_METHODS = ("auto", "label-setting", "backward-induction", "policy-iteration")
#: The modules whose ``SOLVER`` records :func:`solve_chance` reads, in the order
#: ``method="auto"`` tries them: the fastest sound solver first, the general one last
#: (collapsing end components completes policy iteration's proof for probabilities).
CHANCE_SOLVERS = (
    "perfectplay.solvers.retry",
    "perfectplay.solvers.backward",
    "perfectplay.solvers.policy_iteration",
    "perfectplay.solvers.reach",
)


def chance_solvers() -> tuple[ChanceSolver, ...]:
    """The chance-graph solvers in the order ``method="auto"`` tries them (fastest first),
    each the ``SOLVER`` record its module declares beside its proof (see
    :mod:`perfectplay.solvers.conditions`); modules load on first use.

    >>> [s.method for s in chance_solvers()]
    ['label-setting', 'backward-induction', 'policy-iteration', 'policy-iteration']
    """
    import importlib

    return tuple(importlib.import_module(name).SOLVER for name in CHANCE_SOLVERS)


def label_setting_blockers(graph: ChanceGraph) -> list[str]:
    """Why label-setting's proof does not hold on ``graph`` (empty: it holds).

    Its proof needs a minimising objective, every cost positive, finite terminal values
    (always: they are integers) and the retry property for every outcome: without the
    implicit rule a terminal outcome cannot be rerolled, so its terminal values must all be
    equal (then every roll is worth more than a terminal and keeps them all). The
    conditions are declared in :mod:`perfectplay.solvers.retry` (``SOLVER``).

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> g = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]], cost=[0])
    >>> label_setting_blockers(g)
    ['a roll costs 0 or less (label-setting needs every cost positive)']
    """
    from perfectplay.solvers.retry import SOLVER

    return SOLVER.blockers(graph)


def solve_chance(
    graph: ChanceGraph,
    *,
    method: str = "auto",
    progress: bool = True,
    max_sweeps: int | None = None,
) -> ChanceSolution:
    """Optimal values and policy of a chance graph for its objective.

    ``method``: ``"auto"`` (label-setting where its proof holds, else backward induction
    on an acyclic graph, else policy iteration), ``"label-setting"``,
    ``"backward-induction"`` or ``"policy-iteration"``. The solution's ``method`` names the one
    that ran. ``progress``: policy iteration reports long work on stderr when the caller
    turned reporting on (:func:`perfectplay.enable_progress`; the library is silent
    otherwise). ``max_sweeps``: policy iteration's limit for a cycle too wide for a
    direct solve (:func:`~perfectplay.solvers.policy_iteration.solve_component`).

    The choice reads the conditions each solver declares beside its proof
    (:func:`chance_solvers`): the first solver, among those ``method`` names, whose
    conditions all hold runs; each condition is asked at most once and reads what the
    graph computes once (its retry property, acyclic order, end components, safe set).
    Under a probability, dead ends (non-terminal nodes without a choice) are worth 0, the
    value of a play that never ends: the choice and the solver see them as terminals worth
    0 (:meth:`~perfectplay.graphs.chance.ChanceGraph.finish_dead_ends`, the same values),
    and the solution is the given graph's.

    Raises:
        UnsupportedObjectiveError: the forced method's proof does not hold, or no solver
            supports the objective on this graph yet.
        UnboundedObjectiveError: a policy can repeat a paying cycle for ever.
        ResourceLimitError: the work would not fit in memory.

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> g = ChanceGraph.from_lists([False, True, False], [[0], [], [0]], [[(1, 1), (2, 1)]])
    >>> solve_chance(g, method="policy-iteration").method
    'policy-iteration'
    """
    if method not in CHANCE_METHODS:
        raise ValueError(f"unknown method {method!r}; expected one of {', '.join(CHANCE_METHODS)}")
    finished = graph.finish_dead_ends()
    if finished is not graph:
        # A probability's dead ends are terminals worth 0 (the same values): every solver
        # and its conditions see that graph; the solution is the given graph's.
        import dataclasses

        done = solve_chance(finished, method=method, progress=progress, max_sweeps=max_sweeps)
        return dataclasses.replace(done, graph=graph)
    import importlib

    solvers = []
    for name in CHANCE_SOLVERS:  # imported one by one: label-setting needs no other module
        solver: ChanceSolver = importlib.import_module(name).SOLVER
        if method not in ("auto", solver.method):
            continue
        if solver.applies(graph):
            return solver.run(graph, {"progress": progress, "max_sweeps": max_sweeps})
        solvers.append(solver)
    general = [s for s in solvers if s.general]
    if not general:  # a special-purpose method was forced
        reasons = solvers[0].blockers(graph)
        raise UnsupportedObjectiveError(f"{solvers[0].title} does not apply: {'; '.join(reasons)}")
    reasons = general[0].blockers(graph)
    raise UnsupportedObjectiveError(
        f"no solver supports {graph.objective.describe()} here: {'; '.join(reasons)}"
    )


def solve_game(graph: GameGraph, *, method: str = "auto") -> GameSolution:
    """Value and remoteness of every position of a two-player game graph, by retrograde
    analysis. ``method``: ``"auto"``, ``"acyclic"`` or ``"loopy"`` (see
    :func:`~perfectplay.solvers.retrograde.solve_retrograde`).

    >>> from perfectplay.graphs.game import GameGraph, Outcome
    >>> str(solve_game(GameGraph.from_lists([[1], []], terminal=[0, Outcome.LOSE])).start_value)
    'win'
    """
    from perfectplay.solvers.retrograde import solve_retrograde

    return solve_retrograde(graph, method=method)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
