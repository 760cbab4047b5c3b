"""What a solver's proof needs, declared beside the proof and read by the dispatcher.

Each chance-graph solver module ends with one :class:`ChanceSolver` record, ``SOLVER``: the
name ``method=`` takes, and the :class:`Condition` s its proof needs (``requires``), each
a check that answers why it fails on a graph (a sentence a person reads) or ``None``.
:func:`perfectplay.solvers.solve_chance` reads those records in the order of
:data:`perfectplay.solvers.CHANCE_SOLVERS` (fastest first) and runs the first whose
conditions all hold; a forced method whose conditions fail is refused with every reason.
The checks read what the graph computes once and caches (its retry property, acyclic
order, end components and safe set), so asking several solvers costs one analysis each.

The conditions several proofs share are here; those of one proof are in its module.

>>> from perfectplay.graphs.chance import ChanceGraph
>>> from perfectplay.objectives import Objective
>>> g = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]],
...                            objective=Objective.score("max"))
>>> MINIMISES.check(g)
'the objective maximises (maximise expected score)'
>>> NO_RETRY_RULE.check(g) is None, PROBABILITY_RANGE.check(g) is None
(True, True)
>>> blockers(g, (MINIMISES, NO_RETRY_RULE))
['the objective maximises (maximise expected score)']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from perfectplay.errors import UnsupportedObjectiveError

if TYPE_CHECKING:
    from perfectplay.graphs.chance import ChanceGraph, ChanceSolution

__all__ = [
    "BOUNDED",
    "ChanceSolver",
    "Condition",
    "MINIMISES",
    "NO_RETRY_RULE",
    "PROBABILITY",
    "PROBABILITY_RANGE",
    "UnboundedObjectiveError",
    "blockers",
    "unbounded_node",
]


@dataclass(frozen=True)
class Condition:
    """One hypothesis of a solver's proof. ``check(graph)``: why it fails on ``graph``, or
    ``None`` when it holds. A check may instead raise, when its failure is the answer
    (:data:`BOUNDED`: the value is unbounded, whatever the solver).

    >>> Condition("always", lambda graph: None).check(None) is None
    True
    """

    name: str
    check: Callable[[ChanceGraph], str | None]


def blockers(
    graph: ChanceGraph, conditions: tuple[Condition, ...], first: bool = False
) -> list[str]:
    """Why ``conditions`` do not all hold on ``graph`` (empty: they do), in their order;
    ``first``: stop at the first that fails (enough to decide, cheaper).

    >>> blockers(None, (Condition("no", lambda g: "it fails"),) * 2, first=True)
    ['it fails']
    """
    reasons = []
    for condition in conditions:
        reason = condition.check(graph)
        if reason is not None:
            reasons.append(reason)
            if first:
                break
    return reasons


@dataclass(frozen=True)
class ChanceSolver:
    """A chance-graph solver as the dispatcher sees it.

    Attributes:
        method: the name ``solve_chance(method=...)`` takes (several solvers may share
            one: a solver that completes another's proof).
        title: how a refusal names it (``"label-setting does not apply: ..."``).
        requires: the conditions its proof needs, cheapest first.
        solve: ``solve(graph, **options) -> ChanceSolution``.
        options: the keyword options of ``solve_chance`` it takes (``progress``,
            ``max_sweeps``).
        general: the solver whose failing conditions explain that no solver applies.

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> g = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]])
    >>> s = ChanceSolver("demo", "the demo", (MINIMISES,), lambda graph: "solved")
    >>> s.applies(g), s.run(g, {"progress": False})
    (True, 'solved')
    """

    method: str
    title: str
    requires: tuple[Condition, ...]
    solve: Callable[..., ChanceSolution]
    options: tuple[str, ...] = ()
    general: bool = False

    def blockers(self, graph: ChanceGraph, first: bool = False) -> list[str]:
        """Why this solver's proof does not hold on ``graph`` (empty: it holds)."""
        return blockers(graph, self.requires, first)

    def applies(self, graph: ChanceGraph) -> bool:
        """Whether every condition holds (stops at the first that fails)."""
        return not self.blockers(graph, first=True)

    def run(self, graph: ChanceGraph, options: Mapping[str, Any]) -> ChanceSolution:
        """``solve(graph)`` with the options it takes from ``options``."""
        return self.solve(graph, **{k: options[k] for k in self.options if k in options})


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
    (the value is unbounded there), or ``None``. With the retry rule every roll is such a
    component by itself (reject every outcome, roll again).

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
    if graph.retry:
        # The retry rule lets a player reject every outcome of a roll and roll again: each
        # roll is a cycle on its own, whatever its outcomes, so one that pays is unbounded.
        # Named: a decision node choosing it, else one of its outcomes (where the retry
        # is taken from).
        paying = oriented < 0
        chosen = np.flatnonzero(paying[graph.choice_idx])
        if chosen.size:
            return int(np.searchsorted(graph.choice_ptr, int(chosen[0]), side="right") - 1)
        c = int(np.flatnonzero(paying)[0])
        return int(graph.outcome_idx[graph.outcome_ptr[c]])
    dec, chance, _ = graph.end_components()
    bad = (chance >= 0) & (oriented < 0)
    if not bad.any():
        return None
    k = int(chance[np.flatnonzero(bad)[0]])
    return int(np.flatnonzero(dec == k)[0])


def _minimises(graph: ChanceGraph) -> str | None:
    if graph.objective.sense == "min":
        return None
    return f"the objective maximises ({graph.objective.describe()})"


def _no_retry_rule(graph: ChanceGraph) -> str | None:
    return "the graph has the retry rule (a roll can repeat)" if graph.retry else None


def _bounded(graph: ChanceGraph) -> str | None:
    node = unbounded_node(graph)
    if node is not None:
        raise UnboundedObjectiveError(
            f"the value is unbounded: to {graph.objective.describe()} a player can repeat "
            f"for ever a cycle that pays (through decision node {node})",
            node,
        )
    return None


def _probability(graph: ChanceGraph) -> str | None:
    if graph.objective.measure == "probability":
        return None
    return f"the objective is not a probability ({graph.objective.describe()})"


def _probability_range(graph: ChanceGraph) -> str | None:
    if graph.objective.measure != "probability":
        return None
    tv = graph.terminal_value[graph.terminal]
    if tv.size and (tv.min() < 0 or tv.max() > graph.scale):
        return "a probability needs terminal values between 0 and 1"
    return None


#: The objective minimises.
MINIMISES = Condition("a minimising objective", _minimises)
#: The graph has no implicit retry rule (every roll is a choice listed in the graph).
NO_RETRY_RULE = Condition("no retry rule", _no_retry_rule)
#: No policy can repeat for ever a cycle that pays the player; raises
#: :class:`UnboundedObjectiveError` naming a node of such a cycle otherwise.
BOUNDED = Condition("a bounded value", _bounded)
#: The objective is a probability.
PROBABILITY = Condition("a probability objective", _probability)
#: A probability's terminal values lie between 0 and 1 (other objectives: always holds).
PROBABILITY_RANGE = Condition("terminal values in [0, 1] for a probability", _probability_range)
