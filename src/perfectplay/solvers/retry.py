"""Label-setting for chance graphs with the retry property.

When every outcome of a roll may be discarded in favour of rolling the same chance node
again (the *retry property*, explicit or implicit, see
:mod:`~perfectplay.graphs.chance`), the optimal player at chance node ``c`` keeps
exactly the outcomes worth less than ``c`` itself and rerolls the rest. If ``D`` is the
set of outcomes kept, the expected cost is a geometric number of attempts plus the mean
value of what is kept::

    V(c) = (cost(c) * W + sum_{x in D} w_x V(x)) / sum_{x in D} w_x

with ``W`` the total weight of ``c`` (outcomes of infinite value included). Only a prefix
of the outcomes sorted by value can be optimal, and the candidate built from the outcomes
finalised so far can only fall while they arrive in increasing order. So values can be
settled like Dijkstra's distances, smallest first, starting from the terminal nodes: a
decision node takes the value of the first of its choices to be settled, and a chance node
is settled at the smallest candidate among the unsettled nodes.

Terminal values are the initial labels: terminals enter in increasing value, interleaved
with the heap, exactly as the sources of a multi-source Dijkstra. The proof needs what
Dijkstra's needs, in this form: a minimising objective and every cost positive (then
``V(c)`` exceeds every outcome it keeps, so values settle in increasing order), and every
outcome may be rerolled (with the explicit property only non-terminal outcomes can be,
so there all terminal values must be equal). :func:`perfectplay.solvers.solve_chance`
sends everything else to policy iteration.

The computation is one compiled kernel over the CSR arrays and the reverse adjacency of
:mod:`perfectplay.graphs._csr`: an O(E) check of the retry property
(:func:`~perfectplay.graphs._csr.retry_holds`, the step the graph's own check runs), and the
label-setting loop with an indexed binary heap (decrease-key, no stale entries) over the
chance nodes. Decision nodes
never enter the heap: the moment their first choice is settled, so are they.

The policy follows the settling order: a decision node picks the choice that settled it,
and a chance node keeps the outcomes settled before it. Every kept outcome therefore leads
to a node settled earlier, so the policy reaches a goal with probability one whatever ties
or rounding do to the order.

>>> from perfectplay.graphs.chance import ChanceGraph
>>> g = ChanceGraph.from_lists(
...     goal=[False, True, False],
...     choices=[[0], [], [0]],
...     outcomes=[[(1, 1), (2, 5)]],
... )
>>> sol = solve_retry(g)
>>> sol.value, sol.accept.tolist()
(6.0, [True, False])

The proof's conditions are declared at the end of the module (:data:`SOLVER`), where
:func:`~perfectplay.solvers.solve_chance` reads them:

>>> free = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]], cost=[0])
>>> SOLVER.blockers(free), POSITIVE_COSTS.check(g) is None, RETRY_PROPERTY.check(g) is None
(['a roll costs 0 or less (label-setting needs every cost positive)'], True, True)

References: the problem is a stochastic shortest path problem (Bertsekas and Tsitsiklis,
"An analysis of stochastic shortest path problems", Mathematics of Operations Research
16(3), 1991), whose Bellman equation has a unique solution on the nodes that can finish;
the retry property makes it solvable in increasing order of value, like Dijkstra's
algorithm (Dijkstra, "A note on two problems in connexion with graphs", 1959). The proof
of the label-setting order is in the archive write-ups
``archive/icpc/2023/K-alea-iacta-est/solution.tex`` and
``archive/kickstart/2020/F-yeetzhee/solution.tex`` (also on the site's entry pages).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfectplay._util.jit import compile_for, kernel
from perfectplay._util.memory import require
from perfectplay.graphs import _csr
from perfectplay.graphs._csr import retry_holds
from perfectplay.graphs.chance import ChanceGraph, ChanceSolution
from perfectplay.solvers.conditions import MINIMISES, ChanceSolver, Condition

__all__ = ["POSITIVE_COSTS", "RETRY_PROPERTY", "SOLVER", "solve_retry", "settle_order"]

#: Graphs with at most this many nodes + edges are solved by the kernel's Python source
#: (about 2 us per item) unless the kernel is already loaded: below it, interpreting costs
#: less than importing numba and loading the cached kernel (0.3-0.5 s). A d = 6 Alea
#: dictionary whose words use few of the faces has about 50,000 items (0.2 s interpreted).
COMPILE_THRESHOLD = 100_000


# Built ahead of time too: a command that solves a file of small instances (Yeetzhee's
# test sets) is over in less time than numba's start-up (perfectplay._util.ahead).
@kernel(ahead=True)
def _label_setting(
    terminal: Any, tval: Any, choice_ptr: Any, choice_idx: Any, outcome_ptr: Any, outcome_idx: Any,
    outcome_weight: Any, cost: Any, rin_ptr: Any, rin_c: Any, rin_w: Any, rch_ptr: Any,
    rch_dec: Any, term_order: Any, check_retry: Any,
) -> Any:  # fmt: skip
    # Arrays are made with np.empty and filled in loops: every np.full / np.zeros / copy
    # variant is one more function for numba to compile on a first run. The reverse
    # adjacency comes from perfectplay.graphs._csr (computed once, cached on the graph).
    nd = terminal.shape[0]
    nc = cost.shape[0]
    n_out = outcome_idx.shape[0]
    inf = np.inf

    dval = np.empty(nd)
    best = np.empty(nd, np.int32)
    stamp_d = np.empty(nd, np.int64)  # settling time, -1 while unsettled
    for x in range(nd):
        dval[x] = inf
        best[x] = -1
        stamp_d[x] = -1
    cval = np.empty(nc)
    stamp_c = np.empty(nc, np.int64)
    pos = np.empty(nc, np.int32)  # heap slot; -1 before entering, -2 once settled
    mark = np.empty(nc, np.int32)  # scratch of the retry check
    # Per-chance record, one cache line per node: [key, kept sum w*v, kept weight, cost*W].
    rec = np.empty(4 * nc)
    for c in range(nc):
        cval[c] = inf
        stamp_c[c] = -1
        pos[c] = -1
        rec[4 * c] = inf
        rec[4 * c + 1] = 0.0
        rec[4 * c + 2] = 0.0
        tot = 0
        for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
            tot += outcome_weight[e]
        rec[4 * c + 3] = cost[c] * float(tot)
    accept = np.empty(n_out, np.bool_)
    order = np.empty(nc, np.int32)

    # Explicit retry property: each non-goal outcome x of c lists c among its choices.
    if check_retry and not retry_holds(terminal, choice_ptr, choice_idx, rin_ptr, rin_c, mark):
        return dval, cval, best, accept, order, -1

    # Indexed binary heap of chance nodes with the keys stored beside the ids, so that
    # sifting does not chase indices.
    hkey = np.empty(nc)
    hnode = np.empty(nc, np.int32)
    size = 0
    clock = 0  # one clock orders the settling of both kinds of node; it fixes the policy
    n_order = 0

    # Terminal nodes enter in increasing value (term_order), interleaved with the heap as
    # initial labels; every settled chance node settles the decision nodes it serves.
    queue = np.empty(nd, np.int32)
    q_len = 0
    n_term = term_order.shape[0]
    ti = 0

    while True:
        # Relax the outcome edges into each freshly settled decision node.
        for qi in range(q_len):
            x = queue[qi]
            v = dval[x]
            for k in range(rin_ptr[x], rin_ptr[x + 1]):
                c = rin_c[k]
                i = pos[c]
                if i == -2:
                    continue
                w = float(rin_w[k])
                b4 = 4 * c
                rec[b4 + 1] += w * v
                rec[b4 + 2] += w
                cand = (rec[b4 + 3] + rec[b4 + 1]) / rec[b4 + 2]
                if cand < rec[b4]:
                    rec[b4] = cand
                    if i < 0:
                        i = size
                        size += 1
                    while i > 0:  # sift up (new entry or decreased key)
                        p = (i - 1) >> 1
                        if hkey[p] <= cand:
                            break
                        hkey[i] = hkey[p]
                        hnode[i] = hnode[p]
                        pos[hnode[i]] = i
                        i = p
                    hkey[i] = cand
                    hnode[i] = c
                    pos[c] = i
        q_len = 0
        if ti < n_term and (size == 0 or tval[term_order[ti]] <= hkey[0]):
            # Settle every terminal worth the same at once (goals: all of them).
            v = tval[term_order[ti]]
            while ti < n_term and tval[term_order[ti]] == v:
                x = term_order[ti]
                ti += 1
                dval[x] = v
                stamp_d[x] = clock
                clock += 1
                queue[q_len] = x
                q_len += 1
            continue
        if size == 0:
            break

        # Settle the chance node with the smallest key.
        c = hnode[0]
        v = hkey[0]
        size -= 1
        pos[c] = -2
        if size > 0:
            lk = hkey[size]
            ln = hnode[size]
            i = 0
            while True:
                ch = 2 * i + 1
                if ch >= size:
                    break
                if ch + 1 < size and hkey[ch + 1] < hkey[ch]:
                    ch += 1
                if hkey[ch] >= lk:
                    break
                hkey[i] = hkey[ch]
                hnode[i] = hnode[ch]
                pos[hnode[i]] = i
                i = ch
            hkey[i] = lk
            hnode[i] = ln
            pos[ln] = i
        cval[c] = v
        stamp_c[c] = clock
        clock += 1
        order[n_order] = c
        n_order += 1
        for k in range(rch_ptr[c], rch_ptr[c + 1]):
            x = rch_dec[k]
            if stamp_d[x] >= 0 or terminal[x]:
                continue
            dval[x] = v
            best[x] = c
            stamp_d[x] = clock
            clock += 1
            queue[q_len] = x
            q_len += 1

    # Keep exactly the outcomes settled before their chance node.
    for c in range(nc):
        sc = stamp_c[c]
        for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
            sx = stamp_d[outcome_idx[e]]
            accept[e] = sc >= 0 and sx >= 0 and sx < sc
    return dval, cval, best, accept, order, n_order


def _run(graph: ChanceGraph, compiled: bool | None) -> tuple[Any, ...]:
    if not graph.retry and graph.has_terminal_values():
        tv = graph.terminal_value[graph.terminal]
        if int(tv.min()) != int(tv.max()):
            raise ValueError(
                "terminal values differ and the graph has no implicit retry rule: a terminal "
                "outcome worth more than its roll could not be rerolled (use policy iteration)"
            )
    nd, nc = graph.n_decision, graph.n_chance
    n_out, n_ch = graph.outcome_idx.shape[0], graph.choice_idx.shape[0]
    # Working arrays of the kernel, dominated by the reverse adjacency and the stamps.
    require(
        nd * 40 + nc * 88 + n_out * 29 + n_ch * 4,
        f"label-setting on {nd:,} decision and {nc:,} chance nodes",
    )
    if compiled is None:
        compiled = compile_for(
            nd + nc + n_out + n_ch, COMPILE_THRESHOLD, _label_setting, _csr._transpose
        )
    terminal, cp, ci, op, oi, ow, _ = graph.arrays()
    tval, cost = graph.float_values()
    terms = np.flatnonzero(terminal)
    if graph.has_terminal_values():
        terms = terms[np.argsort(tval[terms], kind="stable")]
    # Not kept on the graph: label-setting is usually the only pass, and the reverse
    # adjacency is the largest part of its memory.
    rin_ptr, rin_c, rin_w, rch_ptr, rch_x = graph.reverse(compiled=compiled, keep=False)
    out: tuple[Any, ...] = _label_setting.run(
        terminal, tval, cp, ci, op, oi, ow, cost, rin_ptr, rin_c, rin_w, rch_ptr, rch_x,
        terms.astype(np.int32), not graph.retry, compiled=compiled,
    )  # fmt: skip
    return out


def solve_retry(graph: ChanceGraph, *, compiled: bool | None = None) -> ChanceSolution:
    """Optimal values and policy of a chance graph with the retry property.

    The retry property may be explicit (every non-goal outcome of ``c`` lists ``c`` among
    its choices) or implicit (``graph.retry``). Nodes from which no goal can be reached get
    ``inf`` and ``best_choice == -1``. ``accept[e]`` tells whether the policy keeps outcome
    edge ``e`` (``False``: roll the same chance node again).

    ``compiled``: run the numba-compiled kernel (``True``), its Python source
    (``False``, same results), or decide by size (``None``, see :data:`COMPILE_THRESHOLD`).

    Raises:
        ValueError: the graph has neither the explicit nor the implicit retry rule.
        ResourceLimitError: the working arrays would not fit in memory.

    Example: a die must show a six (6 rolls on average, rerolling the rest), or the
    player may pay 3 once for a sure thing::

        >>> from perfectplay.graphs.chance import ChanceGraph
        >>> g = ChanceGraph.from_lists(
        ...     goal=[False, True, False],
        ...     choices=[[0, 1], [], [0, 1]],
        ...     outcomes=[[(1, 1), (2, 5)], [(1, 1)]],
        ...     cost=[1, 3],
        ...     retry=True,
        ... )
        >>> sol = solve_retry(g)
        >>> sol.value, int(sol.best_choice[0])
        (3.0, 1)
    """
    return settle_order(graph, compiled=compiled)[0]


def settle_order(
    graph: ChanceGraph, *, compiled: bool | None = None
) -> tuple[ChanceSolution, np.ndarray]:
    """Like :func:`solve_retry`, also returning the chance nodes in the order they settled.

    Only finite chance nodes appear in the order; every node a kept outcome leads to comes
    before the chance node that keeps it, which lets an exact evaluation run front to back.

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> g = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]])
    >>> settle_order(g)[1].tolist()
    [0]
    """
    dval, cval, best, accept, order, n_order = _run(graph, compiled)
    if n_order < 0:
        raise ValueError(
            "the graph has no retry property: an outcome of a chance node cannot choose "
            "that node again (set retry=True if the retry rule holds implicitly)"
        )
    sol = ChanceSolution(
        graph=graph,
        decision_value=dval,
        chance_value=cval,
        best_choice=best,
        accept=accept,
        method="label-setting",
    )
    return sol, order[:n_order]


def _positive_costs(graph: ChanceGraph) -> str | None:
    if graph.n_chance and int(graph.cost.min()) <= 0:
        return "a roll costs 0 or less (label-setting needs every cost positive)"
    return None


def _retry_property(graph: ChanceGraph) -> str | None:
    if not graph.has_retry_property():
        return "the graph has no retry property"
    tv = graph.terminal_value[graph.terminal]
    if not graph.retry and tv.size and int(tv.min()) != int(tv.max()):
        return (
            "terminal values differ and a terminal outcome cannot be rerolled without the "
            "implicit retry rule"
        )
    return None


#: Every roll costs more than 0: then a roll is worth more than every outcome it keeps,
#: so values settle in increasing order (as Dijkstra's distances need).
POSITIVE_COSTS = Condition("every cost positive", _positive_costs)
#: Every outcome may be rerolled: the retry property, explicit or implicit; with only
#: the explicit one, terminal outcomes cannot be rerolled, so their values must be equal.
RETRY_PROPERTY = Condition("the retry property", _retry_property)

#: Label-setting as :func:`~perfectplay.solvers.solve_chance` sees it: the proof of the
#: module docstring needs a minimising objective, positive costs and the retry property
#: (``SOLVER.blockers(graph)`` says which fail).
SOLVER = ChanceSolver(
    "label-setting", "label-setting", (MINIMISES, POSITIVE_COSTS, RETRY_PROPERTY), solve_retry
)
