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

With cycles, the value is unbounded exactly when a policy can stay for ever in an *end
component* (:func:`~perfectplay.graphs._csr.end_components`) holding a roll whose cost
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
    "LexModel": "perfectplay.solvers.lexpath",
    "LexPath": "perfectplay.solvers.lexpath",
    "LexStats": "perfectplay.solvers.lexpath",
}
__all__ = [
    "CHANCE_METHODS",
    "UnboundedObjectiveError",
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


class UnboundedObjectiveError(UnsupportedObjectiveError):
    """The objective's value is unbounded: a policy can repeat, for ever, a cycle that
    pays the player. ``node`` is a decision node of that cycle (the model layer names its
    state).

    >>> UnboundedObjectiveError("the value is unbounded", node=3).node
    3
    """

    def __init__(self, message: str, node: int) -> None:
        super().__init__(message)
        self.node = node


def unbounded_node(graph: ChanceGraph) -> int | None:
    """A decision node of an end component holding a roll with a negative oriented cost
    (the value is unbounded there), or ``None``.

    Proof sketch: inside an end component some policy stays for ever and makes every roll
    of it infinitely often (de Alfaro 1997), so one roll that pays the player makes the
    value unbounded. Conversely, without such a roll every policy that stays for ever in
    an end component collects oriented costs ``>= 0`` there, so it is never better than
    leaving, and the stochastic shortest path assumptions of policy iteration hold
    (Bertsekas and Tsitsiklis 1991).

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> unbounded_node(ChanceGraph.from_lists([False, True], [[0], []], [[(0, 1), (1, 1)]]))
    """
    import numpy as np

    if not graph.n_chance:
        return None
    oriented = graph.cost * graph.objective.orient
    if int(oriented.min()) >= 0:
        return None
    from perfectplay.graphs._csr import end_components

    dec, chance, n = end_components(graph, compiled=graph.n_edges > 100_000)
    bad = (chance >= 0) & (oriented < 0)
    if not bad.any():
        return None
    k = int(chance[np.flatnonzero(bad)[0]])
    return int(np.flatnonzero(dec == k)[0])


def label_setting_blockers(graph: ChanceGraph) -> list[str]:
    """Why label-setting's proof does not hold on ``graph`` (empty: it holds).

    Its proof needs a minimising objective, every cost positive, finite terminal values
    (always: they are integers) and the retry property for every outcome: without the
    implicit rule a terminal outcome cannot be rerolled, so its terminal values must all be
    equal (then every roll is worth more than a terminal and keeps them all).

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> g = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]], cost=[0])
    >>> label_setting_blockers(g)
    ['a roll costs 0 or less (label-setting needs every cost positive)']
    """
    reasons = []
    if graph.objective.sense != "min":
        reasons.append(f"the objective maximises ({graph.objective.describe()})")
    if graph.n_chance and int(graph.cost.min()) <= 0:
        reasons.append("a roll costs 0 or less (label-setting needs every cost positive)")
    if not graph.has_retry_property():
        reasons.append("the graph has no retry property")
    elif not graph.retry and _terminal_values_differ(graph):
        reasons.append(
            "terminal values differ and a terminal outcome cannot be rerolled without the "
            "implicit retry rule"
        )
    return reasons


def _terminal_values_differ(graph: ChanceGraph) -> bool:
    tv = graph.terminal_value[graph.terminal]
    return bool(tv.size) and int(tv.min()) != int(tv.max())


_ENDLESS = (
    "some plays cannot end with probability one (endless plays), which a probability "
    "objective supports only without the retry rule"
)


def _policy_iteration_blockers(graph: ChanceGraph) -> list[str]:
    """Why policy iteration cannot answer ``graph``'s objective (empty: it can)."""
    import numpy as np

    obj = graph.objective
    reasons = []
    # Rolls that pay the player are fine outside end components (unbounded_node refuses
    # the others before this is asked).
    if obj.measure == "probability":
        tv = graph.terminal_value[graph.terminal]
        if tv.size and (tv.min() < 0 or tv.max() > graph.scale):
            reasons.append("a probability needs terminal values between 0 and 1")
        if obj.sense == "min":
            from perfectplay.graphs._csr import end_components

            if end_components(graph, compiled=graph.n_edges > 100_000)[2]:
                reasons.append(_ENDLESS)
        else:
            from perfectplay.graphs._csr import safe_set

            safe_d, _ = safe_set(graph, compiled=graph.n_edges > 100_000)
            if not bool(np.all(safe_d)):
                reasons.append(_ENDLESS)
    return reasons


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
    if method in ("auto", "label-setting"):
        blockers = label_setting_blockers(graph)
        if not blockers:
            from perfectplay.solvers.retry import solve_retry

            return solve_retry(graph)
        if method == "label-setting":
            raise UnsupportedObjectiveError(f"label-setting does not apply: {'; '.join(blockers)}")
    if method in ("auto", "backward-induction"):
        from perfectplay.solvers.backward import backward_blockers, solve_backward

        blockers = backward_blockers(graph)
        if not blockers:
            return solve_backward(graph)
        if method == "backward-induction":
            raise UnsupportedObjectiveError(
                f"backward induction does not apply: {'; '.join(blockers)}"
            )
    node = unbounded_node(graph)
    if node is not None:
        raise UnboundedObjectiveError(
            f"the value is unbounded: to {graph.objective.describe()} a player can repeat "
            f"for ever a cycle that pays (through decision node {node})",
            node,
        )
    blockers = _policy_iteration_blockers(graph)
    if blockers == [_ENDLESS] and not graph.retry:
        # A probability where play may go on for ever: collapse the end components,
        # then policy iteration's proof holds (solvers/reach.py).
        from perfectplay.solvers.reach import solve_probability

        return solve_probability(graph, progress=progress, max_sweeps=max_sweeps)
    if blockers:
        raise UnsupportedObjectiveError(
            f"no solver supports {graph.objective.describe()} here: {'; '.join(blockers)}"
        )
    from perfectplay.solvers.policy_iteration import solve_ssp

    return solve_ssp(graph, progress=progress, max_sweeps=max_sweeps)


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
