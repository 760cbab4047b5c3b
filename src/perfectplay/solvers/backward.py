"""Backward induction on acyclic chance graphs: any costs, any terminal values, min or max.

On a graph without cycles every play ends after at most as many rolls as there are chance
nodes, so the optimal value satisfies Bellman's equations (Bellman 1957, *Dynamic
Programming*) and can be computed by one sweep in reverse topological order: a terminal
node is worth its terminal value; a roll is worth its cost plus the weighted mean of its
outcomes; a decision node is worth the best of its choices. Each node is evaluated after
every node it leads to, so each value is exact up to float rounding, for costs and
terminal values of any sign and for either sense. A non-terminal node with no choice
cannot end the play and is worth ``objective.endless``.

The order is the graph's :meth:`~perfectplay.graphs.chance.ChanceGraph.acyclic_order`
(Kahn's algorithm over decision and chance nodes, computed once per graph); the sweep is a
compiled kernel. The proof's one condition, :data:`ACYCLIC`, is declared at the end of
the module (:data:`SOLVER`), where :func:`~perfectplay.solvers.solve_chance` reads it.

>>> from perfectplay.graphs.chance import ChanceGraph
>>> from perfectplay.objectives import Objective
>>> g = ChanceGraph.from_lists(   # stop with 2, or roll for 0 or 5 paying 1: maximise
...     terminal=[False, True, True, True], terminal_value=[0, 2, 0, 5],
...     choices=[[0, 1], [], [], []], outcomes=[[(1, 1)], [(2, 1), (3, 1)]], cost=[0, -1],
...     objective=Objective.score(),
... )
>>> sol = solve_backward(g)
>>> sol.method, sol.value, int(sol.best_choice[0])
('backward-induction', 2.0, 0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfectplay._util.jit import compile_for, kernel
from perfectplay._util.memory import require
from perfectplay.graphs import _csr
from perfectplay.graphs.chance import ChanceGraph, ChanceSolution
from perfectplay.solvers.conditions import ChanceSolver, Condition

__all__ = ["ACYCLIC", "COMPILE_THRESHOLD", "SOLVER", "backward_blockers", "solve_backward"]

COMPILE_THRESHOLD = 200_000
"""Graphs with fewer nodes plus edges run the kernel's Python source (no numba start-up)."""


def backward_blockers(graph: ChanceGraph) -> list[str]:
    """Why backward induction does not apply (empty: it does): it needs an acyclic graph
    (:data:`SOLVER`).

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> backward_blockers(ChanceGraph.from_lists([False, True], [[0], []], [[(0, 1), (1, 1)]]))
    ['the graph has a cycle (a state can repeat)']
    """
    return SOLVER.blockers(graph)


def _compiled(graph: ChanceGraph) -> bool:
    """Whether the topological order and the sweep should run compiled
    (:func:`~perfectplay._util.jit.compile_for`)."""
    size = graph.n_decision + graph.n_chance + graph.n_edges
    return compile_for(size, COMPILE_THRESHOLD, _sweep, _csr._kahn)


@kernel
def _sweep(
    order: Any, nd: Any, terminal: Any, tval: Any, choice_ptr: Any, choice_idx: Any,
    outcome_ptr: Any, outcome_idx: Any, outcome_weight: Any, cost: Any, endless: Any,
) -> Any:  # fmt: skip
    nc = cost.shape[0]
    dv = np.empty(nd)
    cv = np.empty(nc)
    best = np.full(nd, -1, np.int32)
    for k in range(order.shape[0]):
        v = order[k]
        if v >= nd:
            c = v - nd
            total = 0.0
            wsum = 0.0
            for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
                w = float(outcome_weight[e])
                total += w * dv[outcome_idx[e]]
                wsum += w
            cv[c] = cost[c] + total / wsum
        elif terminal[v]:
            dv[v] = tval[v]
        else:
            b = -1
            bv = endless
            for e in range(choice_ptr[v], choice_ptr[v + 1]):
                c = choice_idx[e]
                if b < 0 or cv[c] < bv:
                    b = c
                    bv = cv[c]
            dv[v] = bv
            best[v] = b if bv < np.inf else -1
    return dv, cv, best


def solve_backward(graph: ChanceGraph, *, compiled: bool | None = None) -> ChanceSolution:
    """Optimal values and policy of an acyclic chance graph by backward induction (see the
    module docstring); ties keep the first choice listed.

    Raises:
        UnsupportedObjectiveError: the graph has a cycle or the retry rule.
    """
    from perfectplay.errors import UnsupportedObjectiveError

    nd, nc = graph.n_decision, graph.n_chance
    require(nd * 30 + nc * 20 + graph.n_edges * 16, f"backward induction on {nd + nc:,} nodes")
    if compiled is None:
        compiled = _compiled(graph)
    order = graph.acyclic_order(compiled=compiled)
    if order is None:
        raise UnsupportedObjectiveError(
            "backward induction does not apply: " + "; ".join(backward_blockers(graph))
        )
    obj = graph.objective
    tv, cost = graph.float_values(oriented=True)
    endless = obj.orient * obj.endless
    a = graph.arrays()
    dv, cv, best = _sweep.run(
        order, nd, a[0], tv, a[1], a[2], a[3], a[4], a[5], cost, float(endless),
        compiled=compiled,
    )  # fmt: skip
    if obj.orient != 1:
        dv, cv = dv * obj.orient, cv * obj.orient
        dv[dv == 0] = 0.0  # no negative zeros in reports
        cv[cv == 0] = 0.0
    accept = np.ones(graph.outcome_idx.shape[0], np.bool_)
    return ChanceSolution(graph, dv, cv, best, accept, method="backward-induction")


def _acyclic(graph: ChanceGraph) -> str | None:
    if graph.retry:
        return "the graph has the retry rule (a roll can repeat)"
    if graph.acyclic_order(compiled=_compiled(graph)) is None:
        return "the graph has a cycle (a state can repeat)"
    return None


#: No cycle (and no retry rule, which is one): every play ends within as many rolls as
#: there are chance nodes, so one sweep in reverse topological order is exact.
ACYCLIC = Condition("an acyclic graph", _acyclic)
#: Backward induction as :func:`~perfectplay.solvers.solve_chance` sees it.
SOLVER = ChanceSolver("backward-induction", "backward induction", (ACYCLIC,), solve_backward)
