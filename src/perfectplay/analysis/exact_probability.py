"""Exact values of a probability objective where plays may stop or go on for ever.

A probability counts a play that never reaches a terminal, stopped at a dead end or
going round an end component for ever, as 0 (the event did not happen). The verifier of
:mod:`perfectplay.analysis.exact` reads such plays as infinite values (its proof is the
stochastic shortest path one, where a play must end), so a probability graph with dead
ends or end components is verified on its quotient instead
(:func:`~perfectplay.solvers.reach.collapse`: dead ends become terminals worth 0, each
maximal end component one node that may also "stay for ever" for 0). Every policy of the
quotient ends with probability one, so its Bellman equation has one solution and the
verifier's certificate is a proof there; the quotient has the same values as the graph
(de Alfaro 1997, *Formal Verification of Probabilistic Systems*, ch. 3; Baier and Katoen
2008, *Principles of Model Checking*, 10.6), and the verified policy is lifted back to the
graph the way :func:`~perfectplay.solvers.reach.solve_probability` lifts its own.

>>> from perfectplay.graphs.chance import ChanceGraph
>>> from perfectplay.objectives import Objective
>>> from perfectplay.solvers import solve_chance
>>> g = ChanceGraph.from_lists(   # roll: 1:1 the event (1) or a dead end (2); 3 loops
...     terminal=[False, True, False, False], terminal_value=[0, 1, 0, 0],
...     choices=[[0], [], [], [1]], outcomes=[[(1, 1), (2, 1), (3, 2)], [(3, 1)]],
...     cost=[0, 0], objective=Objective.probability())
>>> needs_quotient(g)   # a dead end, and a loop that never ends
True
>>> ex = exact_probability(g, solve_chance(g))
>>> ex.value, [ex.decision_value(x) for x in range(4)]
(Fraction(1, 4), [Fraction(1, 4), Fraction(1, 1), Fraction(0, 1), Fraction(0, 1)])
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from perfectplay.analysis.exact import ExactSolution, exact_solution
from perfectplay.graphs.chance import ChanceGraph, ChanceSolution
from perfectplay.solvers.reach import Quotient, collapse

__all__ = ["exact_probability", "needs_quotient"]


def needs_quotient(graph: ChanceGraph) -> bool:
    """Whether ``graph`` is a probability whose exact values need
    :func:`exact_probability`: it has a dead end or (without the retry rule) an end
    component."""
    if graph.objective.measure != "probability":
        return False
    if graph.dead_ends().any():
        return True
    return not graph.retry and graph.end_components()[2] > 0


def exact_probability(
    graph: ChanceGraph, solution: ChanceSolution, improve: bool = False
) -> ExactSolution:
    """Exact values of a probability graph and a proof that they are optimal, on its
    quotient (see the module docstring); ``improve`` as in
    :func:`~perfectplay.analysis.exact.exact_solution`. The returned solution's policy is
    ``solution``'s where it verifies unchanged; its dead ends are worth 0 (no choice).

    Raises:
        VerificationError: as :func:`~perfectplay.analysis.exact.exact_solution`, on the
            quotient.
    """
    if graph.retry:
        # No quotient with the retry rule (every roll is a cycle of its own); its dead
        # ends are still terminals worth 0.
        done = exact_solution(graph.finish_dead_ends(), solution, improve)
        return _on(graph, solution, done.solution.best_choice, done.numerators,
                   done.denominators, done.solution.accept)  # fmt: skip
    q = collapse(graph)
    nd, nc = graph.n_decision, graph.n_chance
    qex = exact_solution(q.graph, _quotient_policy(graph, solution, q), improve)
    q_best = qex.solution.best_choice
    exit_of = []
    for k, exits in enumerate(q.exits):
        c = int(q_best[nd + k])
        if c >= nc:
            # Staying for ever is best (worth 0): an exit worth exactly as much still
            # ends the play, so walk to it.
            stay = qex.decision_value(nd + k)
            c = next((e for e in exits if qex.chance_value(e) == stay), -1)
        exit_of.append(c)
    best = q.lift(q_best, exit_of)
    accept = np.ones(graph.outcome_idx.shape[0], np.bool_)
    return _on(graph, solution, best, qex.numerators[:nc], qex.denominators[:nc], accept)


def _quotient_policy(graph: ChanceGraph, solution: ChanceSolution, q: Quotient) -> ChanceSolution:
    """``solution``'s policy on the quotient ``q``: each component takes the best (by the
    float values) of the exits its members take, or stays; a node the policy leaves
    without a choice takes its best choice by the float values."""
    nd, nc = graph.n_decision, graph.n_chance
    qg = q.graph
    o = graph.objective.orient
    cv = np.concatenate((np.asarray(solution.chance_value, np.float64), np.zeros(q.n_ec)))
    q_best = np.full(qg.n_decision, -1, np.int32)
    q_best[:nd] = solution.best_choice
    for x in np.flatnonzero(~qg.terminal[:nd] & (q_best[:nd] < 0)).tolist():
        cs = qg.choices(x)
        q_best[x] = int(cs[np.argmin(o * cv[cs])])
    for k in range(q.n_ec):
        taken = {int(b) for b in solution.best_choice[q.dec_ec == k] if b >= 0}
        exits = [c for c in q.exits[k] if c in taken] + [nc + k]
        q_best[nd + k] = min(exits, key=lambda c: o * cv[c])
    q_best[qg.terminal] = -1
    dv = np.zeros(qg.n_decision)
    live = q_best >= 0
    dv[live] = cv[q_best[live]]
    accept = np.ones(qg.outcome_idx.shape[0], np.bool_)
    return ChanceSolution(qg, dv, cv, q_best, accept, method=solution.method)


def _on(
    graph: ChanceGraph,
    solution: ChanceSolution,
    best: np.ndarray,
    num: list[int],
    den: list[int],
    accept: np.ndarray,
) -> ExactSolution:
    """The exact values as :class:`~perfectplay.analysis.exact.ExactSolution` of ``graph``
    (``solution`` itself when its policy is the verified one, else that policy with the
    floats of the exact values)."""
    same = np.array_equal(best, solution.best_choice) and np.array_equal(accept, solution.accept)
    if not same:
        cv = np.array([float(Fraction(n, d)) for n, d in zip(num, den, strict=True)])
        dv = np.where(graph.terminal, graph.terminal_value / graph.scale, 0.0)
        live = best >= 0
        dv[live] = cv[best[live]]
        solution = ChanceSolution(graph, dv, cv, best, accept, method=solution.method)
    return ExactSolution(graph=graph, solution=solution, numerators=num, denominators=den)
