"""The best chance of an event (highest or lowest) on a graph where play may go on for ever.

A probability counts a play that never ends as 0. Where play can go on for ever, a
policy may cycle at no cost, which breaks the assumption of policy iteration that every
improper policy is infinitely bad. The classical remedy
(de Alfaro 1997, *Formal Verification of Probabilistic Systems*, ch. 3; Baier and Katoen
2008, *Principles of Model Checking*, 10.6) collapses each maximal end component
(:meth:`~perfectplay.graphs.chance.ChanceGraph.end_components`) into one decision node:

* its choices are the rolls that leave the component, plus a roll "stay for ever" to a
  terminal worth 0 (what endless play inside the component is worth);
* every outcome that lands in the component lands on that node.

A dead end (a non-terminal node without a choice) is a play that stops without the
event: the quotient makes it a terminal worth 0
(:meth:`~perfectplay.graphs.chance.ChanceGraph.finish_dead_ends`), as
:func:`~perfectplay.solvers.solve_chance` does for every probability graph.

Within an end component the player can reach any of its states with probability one, so
all its states share one value, that of the collapsed node. The collapsed graph has no
end component left, so every policy ends with probability one and policy iteration's
proof holds (Bertsekas and Tsitsiklis 1991). The policy is mapped back: a state of a
component walks, inside it, to the state that takes the chosen exit (an attractor
computed backwards from that state: every step has a positive chance to get closer and
the play never leaves the component), or stays in it when staying is best. The exact
verifier checks its certificate on the same quotient
(:func:`perfectplay.analysis.exact.exact_solution`), where every play ends.

>>> from perfectplay.graphs.chance import ChanceGraph
>>> from perfectplay.objectives import Objective
>>> g = ChanceGraph.from_lists(   # 0 and 1 may bounce for ever; 1 may also try for the event
...     terminal=[False, False, True, True], terminal_value=[0, 0, 1, 0],
...     choices=[[0], [1, 2], [], []], outcomes=[[(1, 1)], [(0, 1)], [(2, 1), (3, 3)]],
...     cost=[0, 0, 0], objective=Objective.probability())
>>> sol = solve_probability(g)
>>> sol.value, sol.best_choice.tolist(), sol.method
(0.25, [0, 2, -1, -1], 'policy-iteration, end components collapsed')
>>> low = solve_probability(ChanceGraph.from_lists(   # the same, minimised: bounce for ever
...     terminal=[False, False, True, True], terminal_value=[0, 0, 1, 0],
...     choices=[[0], [1, 2], [], []], outcomes=[[(1, 1)], [(0, 1)], [(2, 1), (3, 3)]],
...     cost=[0, 0, 0], objective=Objective.probability("min")))
>>> low.value, low.best_choice.tolist()
(0.0, [0, 1, -1, -1])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from perfectplay.graphs.chance import ChanceGraph, ChanceSolution
from perfectplay.solvers.conditions import (
    BOUNDED,
    NO_RETRY_RULE,
    PROBABILITY,
    PROBABILITY_RANGE,
    ChanceSolver,
)

__all__ = ["SOLVER", "Quotient", "collapse", "solve_probability"]


@dataclass(frozen=True, eq=False)
class Quotient:
    """A probability graph with its end components collapsed and its dead ends finished
    (:func:`collapse`): every policy on :attr:`graph` ends with probability one.

    Attributes:
        source: the graph collapsed.
        graph: the quotient. Decision node ``x`` of ``source`` outside every component
            keeps its id (a dead end is a terminal worth 0 there, see
            :meth:`~perfectplay.graphs.chance.ChanceGraph.finish_dead_ends`); component
            ``k`` is node ``nd + k`` and its members' own slots are unreachable terminals;
            node ``nd + n_ec`` is the terminal "stayed for ever", worth 0. Rolls keep their
            ids; roll ``nc + k`` is component ``k``'s "stay for ever".
        qid: ``int32[nd]``, each decision node's node in the quotient.
        dec_ec, ch_ec, n_ec: the maximal end components
            (:meth:`~perfectplay.graphs.chance.ChanceGraph.end_components`).
        exits: component ``k``'s exits, the rolls of its members that leave it (each once).
    """

    source: ChanceGraph
    graph: ChanceGraph
    qid: np.ndarray
    dec_ec: np.ndarray
    ch_ec: np.ndarray
    n_ec: int
    exits: list[list[int]]

    def policy_of(self, solution: ChanceSolution) -> ChanceSolution:
        """``solution``'s policy (a solution of :attr:`source`) on the quotient: each
        component takes the best, by the float values, of the exits its members take, or
        stays; a node the policy leaves without a choice takes its best choice by those
        values. The values are the floats of ``solution`` (0 for staying).

        >>> from perfectplay.graphs.chance import ChanceGraph
        >>> from perfectplay.objectives import Objective
        >>> g = ChanceGraph.from_lists(   # 0 loops (roll 0) or tries (roll 1)
        ...     terminal=[False, True, False], terminal_value=[0, 1, 0],
        ...     choices=[[0, 1], [], []], outcomes=[[(0, 1)], [(1, 1), (2, 1)]],
        ...     cost=[0, 0], objective=Objective.probability())
        >>> collapse(g).policy_of(solve_probability(g)).best_choice.tolist()
        [-1, -1, -1, 1, -1]
        """
        source, q = self.source, self.graph
        nd, nc = source.n_decision, source.n_chance
        o = source.objective.orient
        cv = np.concatenate((np.asarray(solution.chance_value, np.float64), np.zeros(self.n_ec)))
        q_best = np.full(q.n_decision, -1, np.int32)
        q_best[:nd] = solution.best_choice
        for x in np.flatnonzero(~q.terminal[:nd] & (q_best[:nd] < 0)).tolist():
            cs = q.choices(x)
            q_best[x] = int(cs[np.argmin(o * cv[cs])])
        for k in range(self.n_ec):
            taken = {int(b) for b in solution.best_choice[self.dec_ec == k] if b >= 0}
            exits = [c for c in self.exits[k] if c in taken] + [nc + k]
            q_best[nd + k] = min(exits, key=lambda c: o * cv[c])
        q_best[q.terminal] = -1
        dv = np.where(q.terminal, q.terminal_value / q.scale, 0.0)
        live = q_best >= 0
        dv[live] = cv[q_best[live]]
        accept = np.ones(q.outcome_idx.shape[0], np.bool_)
        return ChanceSolution(q, dv, cv, q_best, accept, method=solution.method)

    def lift(self, q_best: np.ndarray, exit_of: Sequence[int]) -> np.ndarray:
        """A policy of :attr:`source` from a policy ``q_best`` of the quotient:
        ``exit_of[k]`` is the exit component ``k`` walks to (``-1``: it stays for ever);
        nodes outside components take their choice in ``q_best``, terminals and dead ends
        ``-1``."""
        source, dec_ec = self.source, self.dec_ec
        nd = source.n_decision
        best = np.where(dec_ec >= 0, -1, q_best[:nd]).astype(np.int32)
        best[self.graph.terminal[:nd] & (dec_ec < 0)] = -1
        for k in range(self.n_ec):
            members = np.flatnonzero(dec_ec == k)
            _walk_to_exit(source, members, k, int(exit_of[k]), self.ch_ec, best)
        return best


def collapse(graph: ChanceGraph) -> Quotient:
    """The quotient of a probability graph without the retry rule (see :class:`Quotient`
    and the module docstring).

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> from perfectplay.objectives import Objective
    >>> g = ChanceGraph.from_lists(   # 0 loops on itself or tries: 1 the event, 2 a dead end
    ...     terminal=[False, True, False], terminal_value=[0, 1, 0],
    ...     choices=[[0, 1], [], []], outcomes=[[(0, 1)], [(1, 1), (2, 1)]],
    ...     cost=[0, 0], objective=Objective.probability())
    >>> q = collapse(g)
    >>> isinstance(q, Quotient), q.qid.tolist(), q.exits, q.graph.terminal.tolist()
    (True, [3, 1, 2], [[1]], [True, True, True, False, True])
    >>> q.lift(np.array([-1, -1, -1, 1, -1]), exit_of=[1]).tolist()   # the exit: roll 1
    [1, -1, -1]
    """
    from perfectplay.errors import UnsupportedObjectiveError

    obj = graph.objective
    if obj.measure != "probability" or graph.retry:
        raise UnsupportedObjectiveError(
            "collapsing end components needs a probability objective without the retry rule"
        )
    nd, nc = graph.n_decision, graph.n_chance
    dec_ec, ch_ec, n_ec = graph.end_components()
    # Dead ends are terminals worth 0 (they are in no component: they have no choice).
    terminal, cptr, cidx, optr, oidx, ow, cost, tval = graph.finish_dead_ends().arrays(values=True)
    # Quotient ids: decision nodes outside components keep theirs (their slots of
    # component members stay as unreachable copies), component k is nd + k, the shared
    # "stay for ever" terminal is nd + n_ec; roll nc + k is component k's stay.
    qd = nd + n_ec + 1
    stay = nd + n_ec
    qid = np.where(dec_ec >= 0, nd + dec_ec, np.arange(nd)).astype(np.int32)
    q_terminal = np.concatenate((terminal, np.zeros(n_ec, np.bool_), [True]))
    # Members of a component become terminals: nothing leads to them any more.
    q_terminal[:nd] |= dec_ec >= 0
    q_tval = np.concatenate((np.where(dec_ec >= 0, 0, tval), np.zeros(n_ec + 1, np.int64)))
    choices: list[list[int]] = [[] for _ in range(qd)]
    for x in range(nd):
        cs = cidx[cptr[x] : cptr[x + 1]].tolist()
        k = int(dec_ec[x])
        if k < 0:
            choices[x] = cs
        else:
            # Exits of component k: rolls not inside it (each listed once).
            own = choices[nd + k]
            for c in cs:
                if ch_ec[c] != k and c not in own:
                    own.append(c)
    exits = [list(choices[nd + k]) for k in range(n_ec)]
    for k in range(n_ec):
        choices[nd + k].append(nc + k)
    q_cptr = np.zeros(qd + 1, np.int64)
    q_cptr[1:] = np.cumsum([len(c) for c in choices])
    q_cidx = np.array([c for cs in choices for c in cs], np.int32)
    q_optr = np.concatenate((optr, optr[-1] + np.arange(1, n_ec + 1)))
    q_oidx = np.concatenate((qid[oidx], np.full(n_ec, stay, np.int32)))
    q_ow = np.concatenate((ow, np.ones(n_ec, np.int64)))
    q_cost = np.concatenate((cost, np.zeros(n_ec, np.int64)))
    quotient = ChanceGraph(
        terminal=q_terminal, terminal_value=q_tval, choice_ptr=q_cptr, choice_idx=q_cidx,
        outcome_ptr=q_optr, outcome_idx=q_oidx, outcome_weight=q_ow, cost=q_cost,
        start=int(qid[graph.start]), scale=graph.scale, objective=obj,
    )  # fmt: skip
    return Quotient(graph, quotient, qid, dec_ec, ch_ec, int(n_ec), exits)


def solve_probability(
    graph: ChanceGraph, *, progress: bool = True, max_sweeps: int | None = None
) -> ChanceSolution:
    """Optimal values and policy of a graph that maximises or minimises a probability
    (endless play and dead ends counting 0), by collapsing its end components (see the
    module docstring). When minimising, every state of an end component is worth 0: the
    player stays in it for ever.

    Raises:
        UnsupportedObjectiveError: the objective is not a probability, or the graph has
            the retry rule (not supported here).
    """
    from perfectplay.solvers.policy_iteration import solve_ssp

    q = collapse(graph)
    nd, nc = graph.n_decision, graph.n_chance
    qsol = solve_ssp(q.graph, progress=progress, max_sweeps=max_sweeps)
    dv = qsol.decision_value[q.qid].copy()
    cv = qsol.chance_value[:nc].copy()
    dv[dv == 0] = 0.0  # no negative zeros (values were oriented) in reports
    cv[cv == 0] = 0.0
    o = graph.objective.orient
    exit_of = []
    for k, exits in enumerate(q.exits):
        exit_c = int(qsol.best_choice[nd + k])
        if exit_c >= nc or exit_c < 0:
            # Staying is best (worth 0): a tying exit still ends the play, so prefer it.
            tied = [c for c in exits if o * cv[c] <= o * qsol.decision_value[nd + k] + 1e-12]
            exit_c = tied[0] if tied else -1
        exit_of.append(exit_c)
    best = q.lift(qsol.best_choice, exit_of)
    # Named apart from plain policy iteration: the values come from the quotient graph.
    return ChanceSolution(graph, dv, cv, best, np.ones(graph.outcome_idx.shape[0], np.bool_),
                          method="policy-iteration, end components collapsed")  # fmt: skip


def _walk_to_exit(
    graph: ChanceGraph,
    members: np.ndarray,
    k: int,
    exit_c: int,
    ch_ec: np.ndarray,
    best: np.ndarray,
) -> None:
    """Set ``best`` on the members of component ``k``: the exit roll where it is offered,
    elsewhere a roll inside the component with an outcome closer to such a state (or,
    with no exit, any roll inside the component: play stays for ever)."""
    reached = set()
    if exit_c >= 0:
        for x in members.tolist():
            if exit_c in graph.choices(x).tolist():
                best[x] = exit_c
                reached.add(x)
    inside = [
        (x, [c for c in graph.choices(x).tolist() if ch_ec[c] == k]) for x in members.tolist()
    ]
    if not reached:
        for x, cs in inside:
            best[x] = cs[0]
        return
    changed = True
    while changed:  # grow the attractor of the exit states, one layer at a time
        changed = False
        layer = []
        for x, cs in inside:
            if x in reached:
                continue
            for c in cs:
                if any(int(y) in reached for y in graph.outcomes(c)[0].tolist()):
                    best[x] = c
                    layer.append(x)
                    break
        if layer:
            reached.update(layer)
            changed = True


#: Collapsing end components as :func:`~perfectplay.solvers.solve_chance` sees it: a
#: probability (endless play worth 0), no retry rule, a bounded value. It completes policy
#: iteration's proof where plays may go on for ever, so it answers to the same method
#: name, after policy iteration itself.
SOLVER = ChanceSolver(
    "policy-iteration",
    "collapsing end components",
    (BOUNDED, PROBABILITY, NO_RETRY_RULE, PROBABILITY_RANGE),
    solve_probability,
    options=("progress", "max_sweeps"),
)
