"""General stochastic shortest path on chance graphs, by policy iteration.

This solver assumes nothing about the graph beyond the chance-graph semantics, so it is
the independent check of the fast special-purpose solvers (and the solver for graphs that
have no retry property, such as board games where a spin cannot be taken back), and the
solver of every objective label-setting cannot take (zero costs, maximising).

**Objectives.** Values are *oriented* first (``objective.orient * value``: a maximising
objective becomes the minimisation of its negation), solved as a minimisation, and turned
back at the end. The oriented costs must be ``>= 0`` (zero allowed) and a play that never
ends must be worth the worst value (``objective.endless``);
:func:`~perfectplay.solvers.solve_chance` checks both before calling. Terminal nodes are
worth their terminal values. Then three steps:

1. **Which nodes can finish at all.** A node has a finite value exactly when some policy
   reaches a terminal from it with probability one
   (:func:`perfectplay.graphs._csr.safe_set`). Every other node gets ``endless``.
2. **A first proper policy**: walk back from the terminals breadth-first; each decision
   node picks a choice one step closer, and (with the retry rule) each roll keeps only
   outcomes closer to a terminal than the roll itself.
3. **Policy iteration** (Howard 1960): evaluate the policy exactly (up to rounding), then
   switch every decision (and every keep/reroll decision under the retry rule) that
   improves by more than a relative ``1e-12``, until nothing changes.

**Why every policy met is proper** (reaches a terminal with probability one), even with
zero costs. Let ``m`` be proper with values ``J`` and ``m'`` its strict improvement
(``T_m' J <= J``, strictly at the switched nodes only). Suppose ``m'`` had a closed class
``C`` of non-terminal nodes. Summing ``T_m' J <= J`` over the stationary distribution of
``m'`` on ``C`` gives ``sum of oriented costs <= 0``, so every cost in ``C`` is 0 and
every inequality on ``C`` is an equality: no node of ``C`` switched. Then ``m`` agrees
with ``m'`` on ``C`` and ``C`` was closed under ``m`` too, contradicting that ``m`` is
proper. A proper policy with no strict improvement satisfies ``J = T J``; with some optimal
policy ``m*`` proper (a play that never ends is worth the worst value),
``J <= T_m* J <= ... -> J_m*`` proves it optimal (Bertsekas and Tsitsiklis, *An analysis
of stochastic shortest path problems*, Math. Oper. Res. 1991).

**Evaluation, one strongly connected component at a time.** Under a fixed policy a roll's
value depends only on the rolls its kept outcomes go on with: the *policy graph*. Its
strongly connected components, found by Tarjan's algorithm, come out successors first, so
each component is evaluated once every roll it leads out to is known. A component of one
roll (the common case: races, most dice games) is one division, its rerolls and
self-loops folded into the denominator, so acyclic parts cost O(edges). Only a true cycle
(a chute back to the start, say) needs a linear solve: a dense LU of the component alone,
refused above :data:`MAX_COMPONENT` rolls with
:class:`~perfectplay.errors.ResourceLimitError`. The graph as a whole has no size limit
beyond memory.

Safe set, first policy, the components and the back-substitution run in compiled kernels
(:mod:`perfectplay._util.jit`; small graphs run their Python source); the dense solves are
NumPy's LAPACK, and the improvement step is vectorised NumPy.

>>> from perfectplay.graphs.chance import ChanceGraph
>>> g = ChanceGraph.from_lists(          # no retry rule: a 5 forces a restart from node 0
...     goal=[False, True, False],
...     choices=[[0], [], [0]],
...     outcomes=[[(1, 1), (2, 1)]],
... )
>>> round(solve_ssp(g).value, 12)
2.0

References: policy iteration is Howard's (R. A. Howard, *Dynamic Programming and Markov
Processes*, MIT Press, 1960); its convergence to the optimum of a stochastic shortest path
problem, with improper policies valued infinite, is Bertsekas and Tsitsiklis, "An analysis
of stochastic shortest path problems", Mathematics of Operations Research 16(3), 1991.
Components are found by Tarjan's algorithm (R. E. Tarjan, "Depth-first search and linear
graph algorithms", SIAM Journal on Computing 1(2), 1972), which emits them successors
first. No archive entry needs this solver (the gallery's dice games have the retry
property); ``docs/models.md`` shows it on Chutes and Ladders.
"""

from __future__ import annotations

import numpy as np

from perfectplay._util.jit import compile_for, kernel
from perfectplay._util.memory import require
from perfectplay._util.progress import Progress
from perfectplay.errors import ResourceLimitError
from perfectplay.graphs import _csr
from perfectplay.graphs._csr import strong_components
from perfectplay.graphs.chance import ChanceGraph, ChanceSolution

__all__ = ["COMPILE_THRESHOLD", "MAX_COMPONENT", "solve_ssp"]

MAX_COMPONENT = 3000
"""Largest strongly connected component of a policy graph :func:`solve_ssp` evaluates
(rolls): a dense ``n x n`` LU, at this size about 150 MiB (the matrix and LAPACK's copy)
and one to two seconds per round of policy iteration."""

#: Graphs with at most this many nodes + edges run the kernels' Python source unless they
#: are loaded already (see :func:`perfectplay._util.jit.compile_for`). Lower than
#: solve_retry's threshold: policy iteration calls the kernels once per round.
COMPILE_THRESHOLD = 50_000

_REL_TOL = 1e-12
_MAX_ITERATIONS = 10_000


@kernel
def _first_policy(terminal, outcome_ptr, outcome_idx, rin_ptr, rin_c, rch_ptr, rch_x,
                  safe_d, safe_c, retry):  # fmt: skip
    """A proper policy on the safe nodes (step 2 of the module doc).

    Returns ``(best, accept)``. The safe set and the reverse adjacency come from
    :mod:`perfectplay.graphs._csr`. Arrays are made with np.empty and filled in loops, as
    in :mod:`perfectplay.solvers.retry` (fewer functions to compile).
    """
    nd = terminal.shape[0]
    nc = outcome_ptr.shape[0] - 1
    n_out = outcome_idx.shape[0]
    stack = np.empty(nd, np.int32)

    # Step 2: breadth-first ranks from the goals inside the safe set; each decision node
    # takes the roll that ranked it, each roll keeps (retry) only outcomes ranked lower.
    rank_d = np.empty(nd, np.int64)
    best = np.empty(nd, np.int32)
    head = 0
    tail = 0
    for x in range(nd):
        best[x] = -1
        rank_d[x] = -1
        if terminal[x]:
            rank_d[x] = 0
            stack[tail] = x
            tail += 1
    rank_c = np.empty(nc, np.int64)
    for c in range(nc):
        rank_c[c] = -1
    while head < tail:
        x = stack[head]
        head += 1
        for k in range(rin_ptr[x], rin_ptr[x + 1]):
            c = rin_c[k]
            if not safe_c[c] or rank_c[c] >= 0:
                continue
            rank_c[c] = rank_d[x] + 1
            for j in range(rch_ptr[c], rch_ptr[c + 1]):
                y = rch_x[j]
                if safe_d[y] and rank_d[y] < 0:
                    rank_d[y] = rank_c[c]
                    best[y] = c
                    stack[tail] = y
                    tail += 1
    accept = np.empty(n_out, np.bool_)
    for c in range(nc):
        for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
            r = rank_d[outcome_idx[e]]
            accept[e] = not retry or (r >= 0 and r < rank_c[c])
    return best, accept


@kernel
def _policy_graph(terminal, outcome_ptr, outcome_idx, best, accept, safe_c):
    """CSR of the policy graph: an edge ``c -> best[x]`` for every kept non-terminal
    outcome ``x`` of a safe roll ``c`` (self-loops left out)."""
    nc = outcome_ptr.shape[0] - 1
    ptr = np.empty(nc + 1, np.int64)
    idx = np.empty(outcome_idx.shape[0], np.int32)
    n = 0
    ptr[0] = 0
    for c in range(nc):
        if safe_c[c]:
            for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
                x = outcome_idx[e]
                if not accept[e] or terminal[x]:
                    continue
                b = best[x]
                if b >= 0 and b != c:
                    idx[n] = b
                    n += 1
        ptr[c + 1] = n
    return ptr, idx[:n]


def _components(
    terminal: np.ndarray,
    outcome_ptr: np.ndarray,
    outcome_idx: np.ndarray,
    best: np.ndarray,
    accept: np.ndarray,
    safe_c: np.ndarray,
    compiled: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Strongly connected components of the policy graph (:func:`_policy_graph`),
    successors first; see :func:`perfectplay.graphs._csr.strong_components`."""
    ptr, idx = _policy_graph.run(
        terminal, outcome_ptr, outcome_idx, best, accept, safe_c, compiled=compiled
    )
    return strong_components(ptr, idx, safe_c, compiled=compiled)


@kernel
def _back_substitute(
    k0, comp, pos, order, comp_ptr, terminal, tval, outcome_ptr, outcome_idx, outcome_weight,
    cost, best, accept, cval,
):  # fmt: skip
    """Evaluate components ``k0, k0+1, ...`` of one roll each into ``cval``.

    Stops at the first component of several rolls and returns ``(k, a, b)``: its index
    and the dense system ``a v = b`` of its values (row and column ``pos[c]`` for roll
    ``c``), the values it leads out to already folded into ``b``. Returns
    ``(n_components, empty, empty)`` when every component is done.
    """
    n_comp = comp_ptr.shape[0] - 1
    for k in range(k0, n_comp):
        lo = comp_ptr[k]
        m = comp_ptr[k + 1] - lo
        if m == 1:
            # v = (cost * W + sum of kept w * v(next)) / (kept weight not coming back), the
            # terminal outcomes' values among the v(next).
            c = order[lo]
            total = 0.0
            kept = 0.0
            acc = 0.0
            for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
                w = float(outcome_weight[e])
                total += w
                if not accept[e]:
                    continue  # a reroll: back to c
                x = outcome_idx[e]
                if terminal[x]:
                    kept += w
                    acc += w * tval[x]
                    continue
                b = best[x]
                if b == c:
                    continue  # goes on with c itself: the same as a reroll
                kept += w
                acc += w * cval[b]
            cval[c] = (cost[c] * total + acc) / kept if kept > 0.0 else np.inf
            continue
        # A cycle: rows are (1 - p_self) v_c - sum p v_b = cost + sum p v(outside).
        a = np.zeros((m, m))  # not a fill loop: m * m steps in the Python source
        rhs = np.empty(m)
        for i in range(m):
            c = order[lo + i]
            total = 0.0
            for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
                total += float(outcome_weight[e])
            a[i, i] = 1.0
            rhs[i] = cost[c]
            for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
                p = float(outcome_weight[e]) / total
                if not accept[e]:
                    a[i, i] -= p
                    continue
                x = outcome_idx[e]
                if terminal[x]:
                    rhs[i] += p * tval[x]
                    continue
                b = best[x]
                if comp[b] == k:
                    a[i, pos[b]] -= p
                else:
                    rhs[i] += p * cval[b]
        return k, a, rhs
    return n_comp, np.empty((0, 0)), np.empty(0)


def _evaluate(
    graph: ChanceGraph,
    arrays: tuple[np.ndarray, ...],
    safe_c: np.ndarray,
    best: np.ndarray,
    accept: np.ndarray,
    compiled: bool,
) -> np.ndarray:
    """Oriented values of the rolls under a proper policy (``inf`` outside the safe set)."""
    terminal, outcome_ptr, outcome_idx, outcome_weight, tval, cost = arrays
    comp, pos, order, comp_ptr = _components(
        terminal, outcome_ptr, outcome_idx, best, accept, safe_c, compiled
    )
    sizes = np.diff(comp_ptr)
    largest = int(sizes.max()) if sizes.size else 0
    if largest > MAX_COMPONENT:
        raise ResourceLimitError(
            f"solve_ssp: the policy has a cycle through {largest:,} rolls (one strongly "
            f"connected component); it evaluates cycles of at most {MAX_COMPONENT:,} rolls "
            "(dense linear solves)"
        )
    if largest > 1:
        # The matrix, LAPACK's copy of it and the pivots.
        require(largest * largest * 16 + largest * 64, f"a cycle through {largest:,} rolls")
    cval = np.full(graph.n_chance, np.inf)
    n_comp = sizes.size
    k = 0
    while k < n_comp:
        k, a, rhs = _back_substitute.run(
            k, comp, pos, order, comp_ptr, terminal, tval, outcome_ptr, outcome_idx,
            outcome_weight, cost, best, accept, cval, compiled=compiled,
        )  # fmt: skip
        if k < n_comp:
            cval[order[comp_ptr[k] : comp_ptr[k + 1]]] = np.linalg.solve(a, rhs)
            k += 1
    return cval


def _best_choices(
    graph: ChanceGraph, cval: np.ndarray, owner: np.ndarray, starts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For every decision node: the smallest value among its choices, and the first
    choice (position in ``choice_idx``) that has it (-1 for nodes without choices)."""
    nd = graph.n_decision
    vals = cval[graph.choice_idx]
    low = np.full(nd, np.inf)
    first = np.full(nd, -1, np.int64)
    if vals.size:
        has = np.diff(graph.choice_ptr) > 0
        low[has] = np.minimum.reduceat(vals, starts)
        at = np.flatnonzero(vals == low[owner])
        nodes, where = np.unique(owner[at], return_index=True)
        first[nodes] = at[where]
    return low, first


def solve_ssp(
    graph: ChanceGraph, *, compiled: bool | None = None, progress: bool = True
) -> ChanceSolution:
    """Optimal values and policy of any chance graph, by policy iteration.

    Honours ``graph.retry`` (after an outcome the player may also roll the same chance
    node again). Nodes with no proper policy get ``inf``. Floats; agreement with exact
    values is to about ``1e-9`` relative on well-conditioned graphs.

    ``compiled``: run the numba-compiled kernels (``True``), their Python source
    (``False``, same results), or decide by size (``None``, see :data:`COMPILE_THRESHOLD`).
    ``progress``: report the rounds on stderr when they take more than a second.

    Raises:
        ResourceLimitError: a policy met on the way has a cycle (strongly connected
            component) of more than :data:`MAX_COMPONENT` rolls, or the working arrays
            would not fit in memory.

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> g = ChanceGraph.from_lists(   # the retry rule lets the player reroll a 5
    ...     goal=[False, True, False],
    ...     choices=[[0], [], []],
    ...     outcomes=[[(1, 1), (2, 1)]],
    ...     retry=True,
    ... )
    >>> round(solve_ssp(g).value, 12), solve_ssp(g).accept.tolist()
    (2.0, [True, False])
    """
    nd, nc = graph.n_decision, graph.n_chance
    n_out, n_ch = graph.outcome_idx.shape[0], graph.choice_idx.shape[0]
    # Kernel working arrays (reverse adjacency, Tarjan's stacks) plus the NumPy
    # temporaries of the improvement step.
    require(
        nd * 90 + nc * 100 + n_out * 30 + n_ch * 40,
        f"policy iteration on {nd:,} decision and {nc:,} chance nodes",
    )
    if compiled is None:
        compiled = compile_for(
            nd + nc + n_out + n_ch, COMPILE_THRESHOLD, _first_policy, _back_substitute,
            _policy_graph,
            _csr._transpose, _csr._safe_set, _csr._tarjan,
        )  # fmt: skip
    terminal, _, _, outcome_ptr, outcome_idx, outcome_weight, _ = graph.arrays()
    orient = graph.objective.orient
    tval, cost = graph.float_values(oriented=True)
    # Oriented, every objective is a minimisation; terminal values only matter at terminals.
    tval = np.where(terminal, tval, 0.0)
    arrays = (terminal, outcome_ptr, outcome_idx, outcome_weight, tval, cost)
    # The reverse adjacency without edge weights (neither step needs them), not kept.
    rin_ptr, rin_c, _ = _csr.transpose(outcome_ptr, outcome_idx, nd, edges=False, compiled=compiled)
    rch_ptr, rch_x, _ = _csr.transpose(
        graph.choice_ptr, graph.choice_idx, nc, edges=False, compiled=compiled
    )
    safe_d, safe_c = _csr.safe_set(
        graph, compiled=compiled, reverse=(rin_ptr, rin_c, rch_ptr, rch_x)
    )
    best, accept = _first_policy.run(
        terminal, outcome_ptr, outcome_idx, rin_ptr, rin_c, rch_ptr, rch_x, safe_d, safe_c,
        bool(graph.retry), compiled=compiled,
    )  # fmt: skip
    live = safe_d & ~terminal
    live_ids = np.flatnonzero(live)
    owner = np.repeat(np.arange(nd), np.diff(graph.choice_ptr))
    starts = graph.choice_ptr[:-1][np.diff(graph.choice_ptr) > 0]
    out_owner = np.repeat(np.arange(nc), np.diff(graph.outcome_ptr)) if graph.retry else None
    meter = Progress("solve_ssp: policy iteration") if progress else None
    for rounds in range(1, _MAX_ITERATIONS + 1):
        cval = _evaluate(graph, arrays, safe_c, best, accept, compiled)
        dval = np.where(terminal, tval, np.inf)
        dval[live_ids] = cval[best[live_ids]]
        low, first = _best_choices(graph, cval, owner, starts)
        better = live & (low < dval - _REL_TOL * (1.0 + np.abs(np.where(live, dval, 0.0))))
        changed = bool(better.any())
        if changed:
            best[better] = graph.choice_idx[first[better]]
        if out_owner is not None:
            vx = dval[graph.outcome_idx]
            vc = cval[out_owner]
            tol = _REL_TOL * (1.0 + np.abs(np.where(np.isfinite(vc), vc, 0.0)))
            better_keep = (vx < vc - tol) & ~accept
            better_reroll = (vx > vc + tol) & accept
            if better_keep.any() or better_reroll.any():
                accept = (accept | better_keep) & ~better_reroll
                changed = True
        if not changed:
            break
        if meter is not None:
            meter.update(rounds, "rounds")
    else:  # pragma: no cover - policy iteration always ends on finite graphs
        raise RuntimeError("policy iteration did not converge")
    if meter is not None:
        meter.done(f"{rounds} rounds")
    best = np.where(live, best, -1).astype(np.int32)
    if orient != 1:
        dval, cval = dval * orient, cval * orient
    if graph.objective.endless != orient * np.inf:
        # A probability: a play that never ends is worth 0 (solve_chance only sends graphs
        # where every node can end, so this only matters for direct callers).
        dval[~np.isfinite(dval)] = graph.objective.endless
        cval[~np.isfinite(cval)] = graph.objective.endless
    return ChanceSolution(
        graph=graph, decision_value=dval, chance_value=cval, best_choice=best, accept=accept,
        method="policy-iteration",
    )  # fmt: skip
