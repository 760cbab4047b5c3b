"""General stochastic shortest path on chance graphs, by policy iteration.

This solver assumes nothing about the graph beyond the chance-graph semantics, so it is
the independent check of the fast special-purpose solvers (and the solver for small graphs
that have no retry property). It works in three steps:

1. **Which nodes can finish at all.** A node has a finite value exactly when some policy
   reaches a goal from it with probability one. Without the retry rule that is the
   classic almost-sure reachability fixpoint (a roll is safe only if *all* its outcomes
   are); with ``graph.retry`` a roll is safe as soon as *one* outcome is, because the
   player may reroll the others. Every other node gets ``inf``.
2. **A first proper policy**: walk back from the goals breadth-first; each decision node
   picks a choice one step closer, and (with the retry rule) each roll keeps only outcomes
   closer to a goal than the roll itself.
3. **Policy iteration**: evaluate the policy with a dense linear solve over the chance
   nodes, then switch every decision (and every keep/reroll decision under the retry
   rule) that improves by more than a relative ``1e-12``, until nothing changes. With
   positive costs every improvement of a proper policy is proper, so this terminates at
   the optimum.

The dense solve bounds the size: graphs with more than :data:`MAX_CHANCE` chance nodes are
refused with :class:`~perfectplay.errors.ResourceLimitError`.

>>> from perfectplay.core.chance_graph import ChanceGraph
>>> g = ChanceGraph.from_lists(          # no retry rule: a 5 forces a restart from node 0
...     goal=[False, True, False],
...     choices=[[0], [], [0]],
...     outcomes=[[(1, 1), (2, 1)]],
... )
>>> round(solve_ssp(g).value, 12)
2.0
"""

from __future__ import annotations

from collections import deque

import numpy as np

from perfectplay.core.chance_graph import ChanceGraph, ChanceSolution
from perfectplay.errors import ResourceLimitError

__all__ = ["MAX_CHANCE", "solve_ssp"]

MAX_CHANCE = 2000
"""Largest number of chance nodes :func:`solve_ssp` accepts (dense ``n x n`` solves)."""

_REL_TOL = 1e-12
_MAX_ITERATIONS = 10_000


def _safe_nodes(graph: ChanceGraph) -> tuple[np.ndarray, np.ndarray]:
    """Decision and chance nodes from which some policy reaches a goal almost surely."""
    nd, nc = graph.n_decision, graph.n_chance
    into: list[list[int]] = [[] for _ in range(nd)]  # decision -> rolls landing on it
    for c in range(nc):
        for x in graph.outcomes(c)[0].tolist():
            into[x].append(c)
    chooses: list[list[int]] = [[] for _ in range(nc)]  # roll -> decision nodes choosing it
    for x in range(nd):
        for c in graph.choices(x).tolist():
            chooses[c].append(x)
    dec_in = np.ones(nd, bool)
    ch_in = np.ones(nc, bool)
    while True:
        # Backward search from the goals inside the current candidate set.
        reach_d = graph.goal & dec_in
        reach_c = np.zeros(nc, bool)
        stack = np.flatnonzero(reach_d).tolist()
        while stack:
            x = stack.pop()
            for c in into[x]:
                if reach_c[c] or not ch_in[c]:
                    continue
                reach_c[c] = True
                for y in chooses[c]:
                    if not reach_d[y] and dec_in[y]:
                        reach_d[y] = True
                        stack.append(y)
        if not graph.retry:
            # A roll is safe only if every outcome stays in the safe set.
            for c in np.flatnonzero(reach_c).tolist():
                if not reach_d[graph.outcomes(c)[0]].all():
                    reach_c[c] = False
        if np.array_equal(reach_d, dec_in) and np.array_equal(reach_c, ch_in):
            return dec_in, ch_in
        dec_in, ch_in = reach_d, reach_c


def _initial_policy(
    graph: ChanceGraph, dec_in: np.ndarray, ch_in: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """A proper policy on the safe nodes: breadth-first ranks from the goals."""
    nd, nc = graph.n_decision, graph.n_chance
    into = [[] for _ in range(nd)]  # decision -> chance nodes having it as an outcome
    for c in range(nc):
        for x in graph.outcomes(c)[0]:
            into[int(x)].append(c)
    chooses = [[] for _ in range(nc)]  # chance -> decision nodes that may choose it
    for x in range(nd):
        for c in graph.choices(x):
            chooses[int(c)].append(x)
    rank_d = np.full(nd, -1, np.int64)
    rank_c = np.full(nc, -1, np.int64)
    best = np.full(nd, -1, np.int32)
    frontier = deque(int(x) for x in np.flatnonzero(graph.goal))
    for x in frontier:
        rank_d[x] = 0
    while frontier:
        x = frontier.popleft()
        for c in into[x]:
            if rank_c[c] >= 0 or not ch_in[c]:
                continue
            rank_c[c] = rank_d[x] + 1
            for y in chooses[c]:
                if rank_d[y] < 0 and dec_in[y]:
                    rank_d[y] = rank_c[c]
                    best[y] = c
                    frontier.append(y)
    accept = np.ones(graph.outcome_idx.shape[0], bool)
    if graph.retry:
        owner = np.repeat(np.arange(nc), np.diff(graph.outcome_ptr))
        rx = rank_d[graph.outcome_idx]
        accept = (rx >= 0) & (rx < rank_c[owner])
    return best, accept


def _evaluate(
    graph: ChanceGraph,
    ch_in: np.ndarray,
    best: np.ndarray,
    accept: np.ndarray,
) -> np.ndarray:
    """Values of the chance nodes under a proper policy (``inf`` outside the safe set)."""
    nc = graph.n_chance
    ids = np.flatnonzero(ch_in)
    local = np.full(nc, -1, np.int64)
    local[ids] = np.arange(ids.size)
    n = ids.size
    a = np.zeros((n, n))
    b = np.zeros(n)
    total = graph.total_weight()
    for i, c in enumerate(ids):
        wt = float(total[c])
        b[i] = float(graph.cost[c])
        a[i, i] += 1.0
        for e in range(graph.outcome_ptr[c], graph.outcome_ptr[c + 1]):
            x = graph.outcome_idx[e]
            p = float(graph.outcome_weight[e]) / wt
            if not accept[e]:
                a[i, i] -= p  # reroll: back to this very roll
            elif not graph.goal[x]:
                a[i, local[best[x]]] -= p
    values = np.full(nc, np.inf)
    if n:
        values[ids] = np.linalg.solve(a, b)
    return values


def solve_ssp(graph: ChanceGraph) -> ChanceSolution:
    """Optimal values and policy of any chance graph, by policy iteration.

    Honours ``graph.retry`` (after an outcome the player may also roll the same chance
    node again). Nodes with no proper policy get ``inf``. Floats; agreement with exact
    values is to about ``1e-9`` relative on well-conditioned graphs.

    Raises:
        ResourceLimitError: more than :data:`MAX_CHANCE` chance nodes.

    >>> from perfectplay.core.chance_graph import ChanceGraph
    >>> g = ChanceGraph.from_lists(   # the retry rule lets the player reroll a 5
    ...     goal=[False, True, False],
    ...     choices=[[0], [], []],
    ...     outcomes=[[(1, 1), (2, 1)]],
    ...     retry=True,
    ... )
    >>> round(solve_ssp(g).value, 12), solve_ssp(g).accept.tolist()
    (2.0, [True, False])
    """
    nc = graph.n_chance
    if nc > MAX_CHANCE:
        raise ResourceLimitError(
            f"solve_ssp handles at most {MAX_CHANCE:,} chance nodes (dense linear solves); "
            f"this graph has {nc:,}"
        )
    dec_in, ch_in = _safe_nodes(graph)
    best, accept = _initial_policy(graph, dec_in, ch_in)
    owner = np.repeat(np.arange(nc), np.diff(graph.outcome_ptr))
    for _ in range(_MAX_ITERATIONS):
        cval = _evaluate(graph, ch_in, best, accept)
        dval = np.where(graph.goal, 0.0, np.inf)
        live = dec_in & ~graph.goal
        dval[live] = cval[best[live]]
        changed = False
        for x in np.flatnonzero(live):
            cs = graph.choices(int(x))
            vs = cval[cs]
            k = int(np.argmin(vs))
            if vs[k] < dval[x] - _REL_TOL * (1.0 + abs(dval[x])):
                best[x] = cs[k]
                changed = True
        if graph.retry:
            vx = dval[graph.outcome_idx]
            vc = cval[owner]
            tol = _REL_TOL * (1.0 + np.abs(np.where(np.isfinite(vc), vc, 0.0)))
            better_keep = (vx < vc - tol) & ~accept
            better_reroll = (vx > vc + tol) & accept
            if better_keep.any() or better_reroll.any():
                accept = (accept | better_keep) & ~better_reroll
                changed = True
        if not changed:
            break
    else:  # pragma: no cover - policy iteration always ends on finite graphs
        raise RuntimeError("policy iteration did not converge")
    best = np.where(live, best, -1).astype(np.int32)
    if not graph.retry:
        accept = np.ones(graph.outcome_idx.shape[0], bool)
    return ChanceSolution(
        graph=graph, decision_value=dval, chance_value=cval, best_choice=best, accept=accept
    )
