"""Solve two-player stochastic games (:class:`~perfectplay.graphs.stochastic.StochasticGraph`).

Algorithm (:func:`solve_stochastic`):

1. Strongly connected components of the position graph (Tarjan 1972), successors first:
   a component's values depend only on its own positions and on components already solved.
   In Pig a component is one unordered score pair (busts pass the turn back and forth
   within it); holds lead to later components, as in the score-sum ordering of T. Neller
   and C. Presser, *Optimal play of the dice game Pig*, The UMAP Journal 25(1), 2004.
2. Inside a component, **interval iteration**: Gauss-Seidel value iteration of a lower
   bound from 0 and an upper bound from 1 at once (the mover's operator is monotone in
   the pair, a passing outcome swapping the bounds), stopping when the largest gap is at
   most ``tol``. Every iterate brackets the value, so the stop is sound: the reported
   ``bound`` is proven (Condon 1992 for value iteration on simple stochastic games; the
   two-sided stopping rule as in Haddad and Monmege, *Interval iteration algorithm for
   MDPs and IMDPs*, TCS 735, 2018).
3. Where the bounds stall (an end component: play can go on for ever, which is worth
   ``draw_value``), the component is flagged ``endless``: value iteration on the game
   that ends in a draw with probability ``ENDLESS_EPS`` at each step (a contraction)
   gives a strategy pair; its evaluation on the component (closed classes: draws) is
   improved choice by choice until no choice gains, and then checked for end components
   where a player could gain by never ending (:func:`endless_violations`); a component
   that does not settle is refused (:class:`~perfectplay.errors.UnsupportedObjectiveError`).
   The optimality equation alone does not pin the value there (values above a draw can
   be sustained by loops that never realise them), hence the extra check.

Fixed strategies: ``fixed[p] >= 0`` forces chance node ``fixed[p]`` at position ``p``:
fixing every position evaluates a strategy pair (a Markov chain); fixing the positions of
one player in a graph whose positions say who moves gives the other's best response.

>>> from perfectplay.graphs.stochastic import StochasticGraph
>>> g = StochasticGraph.from_lists(       # hold for ever (a draw) or toss: 1 in 3 wins
...     [False, True, True], [[[(0, 1, True)], [(1, 1, False), (2, 2, False)]], [], []],
...     terminal_value=[0, 2, 0], scale=2)
>>> sol = solve_stochastic(g)
>>> float(sol.value[0]), int(sol.best_choice[0]), bool(sol.endless[0])
(0.5, 0, True)
>>> exact_stochastic(g, sol.best_choice)[0]
Fraction(1, 2)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from perfectplay._util.jit import compile_for, kernel
from perfectplay.errors import ModelError
from perfectplay.graphs._csr import strong_components
from perfectplay.graphs.stochastic import StochasticGraph, StochasticSolution

__all__ = ["DEFAULT_TOL", "exact_stochastic", "solve_stochastic", "verify_stochastic"]

#: Default stopping gap of interval iteration (a proven bound on each value's error).
DEFAULT_TOL = 1e-12
#: Per-step draw probability of the contracted game solved in end components.
ENDLESS_EPS = 1e-3
#: Largest end component checked by a dense linear solve.
MAX_ENDLESS = 3_000


@kernel
def _solve(k0, lo, hi, best, endless, stats, order, comp_ptr, choice_ptr, outcome_ptr, target,
           weight, passes, terminal, draw, fixed, tol, stall_sweeps, max_sweeps, eps):  # fmt: skip
    # Solves components k0, k0+1, ... in place; returns after the first component where
    # play can go on for ever (the caller settles it), else the number of components.
    sweeps = 0
    worst = stats[1]
    for k in range(k0, comp_ptr.shape[0] - 1):
        a = comp_ptr[k]
        b = comp_ptr[k + 1]
        ref_gap = 2.0
        since = 0
        it = 0
        gap = 0.0
        stalled = False
        while True:
            gap = 0.0
            for q in range(a, b):
                s = order[q]
                if terminal[s]:
                    continue
                c0 = choice_ptr[s]
                c1 = choice_ptr[s + 1]
                if fixed[s] >= 0:
                    c0 = fixed[s]
                    c1 = c0 + 1
                bl = -1.0
                bh = -1.0
                arg = -1
                for c in range(c0, c1):
                    sl = 0.0
                    sh = 0.0
                    tw = 0
                    for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
                        t = target[e]
                        w = weight[e]
                        tw += w
                        if passes[e]:
                            sl += w * (1.0 - hi[t])
                            sh += w * (1.0 - lo[t])
                        else:
                            sl += w * lo[t]
                            sh += w * hi[t]
                    sl /= tw
                    sh /= tw
                    if sl > bl:
                        bl = sl
                        arg = c
                    if sh > bh:
                        bh = sh
                if arg < 0:  # no choice: the explorer makes such positions terminal
                    bl = 0.0
                    bh = 0.0
                # Keep the choice that first raised the lower bound: a choice that only
                # ties it later may loop (stay put when a win is on offer) and never
                # realise the value; noise below 1e-15 is no improvement.
                if best[s] < 0 or bl > lo[s] + 1e-15:
                    best[s] = arg
                lo[s] = bl
                hi[s] = bh
                if bh - bl > gap:
                    gap = bh - bl
            sweeps += 1
            it += 1
            if gap <= tol:
                break
            if gap < 0.5 * ref_gap:
                ref_gap = gap
                since = 0
            else:
                since += 1
            if since > stall_sweeps or it > max_sweeps:
                stalled = True
                break
        if not stalled:
            if gap > worst:
                worst = gap
            continue
        # End component: the game that ends in a draw with probability eps at every
        # step is a contraction, whose optimal strategies are optimal here for eps small
        # enough; the caller checks them (exact evaluation and end components).
        for q in range(a, b):
            s = order[q]
            if not terminal[s]:
                lo[s] = draw
                endless[s] = True
        it = 0
        while True:
            change = 0.0
            for q in range(a, b):
                s = order[q]
                if terminal[s]:
                    continue
                c0 = choice_ptr[s]
                c1 = choice_ptr[s + 1]
                if fixed[s] >= 0:
                    c0 = fixed[s]
                    c1 = c0 + 1
                bl = -1.0
                arg = -1
                for c in range(c0, c1):
                    sl = 0.0
                    tw = 0
                    for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
                        t = target[e]
                        w = weight[e]
                        tw += w
                        if passes[e]:
                            sl += w * (1.0 - lo[t])
                        else:
                            sl += w * lo[t]
                    sl = (1.0 - eps) * sl / tw + eps * draw
                    # ties (within noise) go to the choice held so far
                    if sl > bl + 1e-15 or (c == best[s] and sl >= bl - 1e-15):
                        bl = sl
                        arg = c
                if arg < 0:
                    bl = 0.0
                if abs(bl - lo[s]) > change:
                    change = abs(bl - lo[s])
                lo[s] = bl
                best[s] = arg
            sweeps += 1
            it += 1
            if change <= tol * eps or it > max_sweeps:
                break
        for q in range(a, b):
            s = order[q]
            hi[s] = lo[s]
        stats[0] += sweeps
        stats[1] = worst
        return k
    stats[0] += sweeps
    stats[1] = worst
    return comp_ptr.shape[0] - 1


@kernel
def _postorder(order, comp_ptr, comp, ptr, idx):
    # Within each component, a depth-first post-order from its root (Tarjan emits the
    # root last): a position comes after the positions it leads to, except along back
    # edges, so one Gauss-Seidel sweep carries values further (Pig: about 1.7x fewer
    # sweeps than Tarjan's pop order).
    n = ptr.shape[0] - 1
    out = order.copy()
    seen = np.zeros(n, np.bool_)
    node = np.empty(n, np.int64)
    edge = np.empty(n, np.int64)
    for k in range(comp_ptr.shape[0] - 1):
        a = comp_ptr[k]
        b = comp_ptr[k + 1]
        if b - a < 3:
            continue
        root = order[b - 1]
        w = a
        depth = 1
        node[0] = root
        edge[0] = ptr[root]
        seen[root] = True
        while depth > 0:
            v = node[depth - 1]
            e = edge[depth - 1]
            if e < ptr[v + 1]:
                edge[depth - 1] = e + 1
                t = idx[e]
                if comp[t] == k and not seen[t]:
                    seen[t] = True
                    node[depth] = t
                    edge[depth] = ptr[t]
                    depth += 1
                continue
            depth -= 1
            out[w] = v
            w += 1
    return out


def solve_stochastic(
    graph: StochasticGraph,
    *,
    tol: float = DEFAULT_TOL,
    fixed: np.ndarray | None = None,
    compiled: bool | None = None,
    max_endless: int | None = None,
    progress: bool = True,
) -> StochasticSolution:
    """Values and optimal choices of ``graph`` by components and interval iteration.

    ``fixed`` (``int64[n]``, ``-1`` where free) forces a chance node at some positions
    (see the module docstring). ``compiled`` picks numba (default: by size).
    ``max_endless``: the largest component where play can go on for ever that is solved
    (default :data:`MAX_ENDLESS`; its strategy improvement evaluates the pair densely,
    so memory grows with the square: ``perfectplay solve --max-endless N``).
    ``progress``: report the positions solved on stderr while reports are on
    (:func:`perfectplay.enable_progress`; silent otherwise).

    >>> from perfectplay.graphs.stochastic import StochasticGraph
    >>> g = StochasticGraph.from_lists([False, True], [[[(1, 1, True)]], []],
    ...                                terminal_value=[0, 2])
    >>> solve_stochastic(g).value.tolist()     # moving to the opponent's win: I lose
    [0.0, 1.0]
    """
    n = graph.n_positions
    fix = np.full(n, -1, np.int64) if fixed is None else np.asarray(fixed, np.int64)
    if fix.shape != (n,):
        raise ModelError(f"fixed must have one entry per position ({n})")
    bad = (fix >= 0) & ((fix < graph.choice_ptr[:-1]) | (fix >= graph.choice_ptr[1:]))
    if bad.any():
        p = int(np.flatnonzero(bad)[0])
        raise ModelError(f"fixed choice {int(fix[p])} is not a choice of position {p}")
    if compiled is None:
        compiled = compile_for(graph.n_outcomes, 20_000, _solve, _postorder)
    ptr, idx = graph.position_adjacency()
    comp, _, order, comp_ptr = strong_components(ptr, idx, compiled=compiled)
    order = _postorder.run(order.astype(np.int32), comp_ptr, comp, ptr, idx, compiled=compiled)
    scale = float(graph.scale)
    lo = np.zeros(n)
    hi = np.ones(n)
    lo[graph.terminal] = hi[graph.terminal] = graph.terminal_value[graph.terminal] / scale
    best = np.full(n, -1, np.int64)
    endless = np.zeros(n, np.bool_)
    stats = np.zeros(2)
    k, n_comp = 0, comp_ptr.shape[0] - 1
    order = order.astype(np.int32)
    from perfectplay._util.progress import Progress

    meter = Progress("solving") if progress else None
    while k < n_comp:
        # Progress hook: the kernel stops where comp_ptr ends, so a truncated view runs
        # it on about 64k positions at a time and reports in between.
        stop = n_comp
        if meter is not None:
            stop = max(k + 1, int(np.searchsorted(comp_ptr, comp_ptr[k] + 65_536)) - 1)
            stop = min(stop, n_comp)
        k = _solve.run(
            k, lo, hi, best, endless, stats, order, comp_ptr[: stop + 1], graph.choice_ptr,
            graph.outcome_ptr, graph.target, graph.weight, graph.passes, graph.terminal,
            float(graph.draw_value or 0) / scale, fix, float(tol), 200, 1_000_000, ENDLESS_EPS,
            compiled=compiled,
        )  # fmt: skip
        if k < stop:
            members = order[comp_ptr[k] : comp_ptr[k + 1]]
            _settle_endless(graph, members, lo, best, fix, max_endless)
            hi[members] = lo[members]
            k += 1
        if meter is not None:
            meter.update(int(comp_ptr[k]), "positions", n)
    if meter is not None:
        meter.done(f"{n:,} positions")
    sweeps, worst = stats
    return StochasticSolution(
        graph=graph,
        value=(lo + hi) / 2,  # within half the gap of the value
        best_choice=best,
        bound=float(worst) / 2 + (1e-12 if endless.any() else 0.0),
        method="components + interval iteration"
        + (" (strategy improvement where play can go on for ever)" if endless.any() else ""),
        sweeps=int(sweeps),
        endless=endless,
    )


def _settle_endless(
    graph: StochasticGraph,
    members: np.ndarray,
    value: np.ndarray,
    best: np.ndarray,
    fixed: np.ndarray,
    max_endless: int | None = None,
) -> None:
    """Make the strategy of an end component optimal or refuse: evaluate the pair on the
    component (draws where it never leaves), switch choices that gain (at most 100
    rounds), then check end components of the mover's best-response game (see
    :func:`endless_violations`)."""
    from perfectplay.errors import UnsupportedObjectiveError

    m = len(members)
    limit = MAX_ENDLESS if max_endless is None else max_endless
    if m > limit:
        raise UnsupportedObjectiveError(
            f"a component of {m:,} positions where play can go on for ever (position "
            f"{int(members[0])}): over the {limit:,} that endless play is solved for "
            "(raise it with --max-endless N)"
        )
    where = {int(p): i for i, p in enumerate(members)}
    cp, op = graph.choice_ptr, graph.outcome_ptr
    tg, wt, ps = graph.target, graph.weight, graph.passes
    free = [int(p) for p in members if not graph.terminal[p] and fixed[p] < 0]
    for _ in range(100):
        u = _evaluate_pair(graph, members, where, value, best)
        value[members] = u
        changed = False
        for p in free:
            here = value[p]
            for c in range(int(cp[p]), int(cp[p + 1])):
                if graph.chance_value(c, value) > here + 1e-12:
                    best[p], here, changed = c, graph.chance_value(c, value), True
        if not changed:
            break
    else:
        changed = True
    bad = [] if changed else endless_violations(graph, members, value, best, fixed, 1e-12)
    if changed or bad:
        raise UnsupportedObjectiveError(
            f"play can go on for ever from position {int(members[0])} and no optimal strategy "
            "was found there (strategy improvement did not settle)"
        )
    del op, tg, wt, ps


def _evaluate_pair(
    graph: StochasticGraph,
    members: np.ndarray,
    where: dict[int, int],
    value: np.ndarray,
    best: np.ndarray,
) -> np.ndarray:
    m = len(members)
    a = np.eye(m)
    rhs = np.zeros(m)
    half = float(graph.draw_value or 0) / graph.scale
    inside: list[list[int]] = [[] for _ in range(m)]
    leaves = np.zeros(m, np.bool_)
    for i, p in enumerate(members.tolist()):
        if graph.terminal[p] or best[p] < 0:
            rhs[i] = value[p]
            leaves[i] = True
            continue
        c = int(best[p])
        lo, hi = int(graph.outcome_ptr[c]), int(graph.outcome_ptr[c + 1])
        total = float(graph.weight[lo:hi].sum())
        for e in range(lo, hi):
            t, f = int(graph.target[e]), graph.weight[e] / total
            sign = -1.0 if graph.passes[e] else 1.0
            rhs[i] += f if graph.passes[e] else 0.0
            if t in where:
                a[i, where[t]] -= sign * f
                inside[where[t]].append(i)
            else:
                rhs[i] += sign * f * value[t]
                leaves[i] = True
    stack = [i for i in range(m) if leaves[i]]
    while stack:  # who can leave under the pair; the rest never ends: a draw
        j = stack.pop()
        for i in inside[j]:
            if not leaves[i]:
                leaves[i] = True
                stack.append(i)
    stuck = ~leaves
    a[stuck] = 0.0
    a[stuck, stuck] = 1.0
    rhs[stuck] = half
    return np.linalg.solve(a, rhs)


def endless_violations(
    graph: StochasticGraph, members: Any, value: Any, best: Any, fixed: Any, tol: Any = 0
) -> list[tuple[int, int]]:
    """Where a player could do better by keeping play going for ever: ``(position,
    player)`` pairs lying in an end component (de Alfaro 1997) of the best-response
    game of player 0 against the strategy ``best`` (player 1's positions play ``best``),
    whose value to player 0 is below the draw's. Values at optimality satisfy the
    optimality equation and have no such pair: together that is sufficient, since under
    any strategy play either ends or stays in end components for ever.

    >>> from perfectplay.graphs.stochastic import StochasticGraph
    >>> g = StochasticGraph.from_lists([False, True], [[[(0, 1, False)], [(1, 1, False)]], []])
    >>> endless_violations(g, [0], [0.0, 0.0], [1, -1], [-1, -1])   # could stay for 1/2
    [(0, 0)]
    """
    half = Fraction(int(graph.draw_value or 0), graph.scale)
    mem = {int(p) for p in members if not graph.terminal[p]}
    cp, op = graph.choice_ptr.tolist(), graph.outcome_ptr.tolist()
    tg, ps = graph.target.tolist(), graph.passes.tolist()

    def actions(p: int, w: int) -> list[int]:
        if fixed[p] >= 0:
            return [int(fixed[p])]
        return list(range(cp[p], cp[p + 1])) if w == 0 else [int(best[p])]

    acts = {(p, w): actions(p, w) for p in mem for w in (0, 1)}
    while True:
        states = [s for s, a in acts.items() if a]
        index = {s: i for i, s in enumerate(states)}
        ptr: list[int] = [0]
        idx: list[int] = []
        for s in states:
            for c in acts[s]:
                idx.extend(index[(tg[e], s[1] ^ ps[e])] for e in range(op[c], op[c + 1])
                           if (tg[e], s[1] ^ ps[e]) in index)  # fmt: skip
            ptr.append(len(idx))
        comp = strong_components(np.asarray(ptr, np.int64), np.asarray(idx, np.int32),
                                 compiled=False)[0]  # fmt: skip
        changed = False
        for s in states:
            keep = [
                c for c in acts[s]
                if all(index.get((tg[e], s[1] ^ ps[e]), -1) >= 0
                       and comp[index[(tg[e], s[1] ^ ps[e])]] == comp[index[s]]
                       for e in range(op[c], op[c + 1]))
            ]  # fmt: skip
            if len(keep) < len(acts[s]):
                acts[s] = keep
                changed = True
        if not changed:
            break
    out = []
    for (p, w), a in sorted(acts.items()):
        if not a:
            continue
        mine = value[p] if w == 0 else 1 - value[p]
        if mine < half - tol:
            out.append((p, w))
    return out


def exact_stochastic(
    graph: StochasticGraph, choice: np.ndarray, *, compiled: bool = False
) -> list[Fraction]:
    """Exact values of the strategy pair ``choice`` (a chance node per non-terminal
    position): the absorption values of its Markov chain in rationals, one linear system
    per strongly connected component, solved by sparse Gaussian elimination in the
    component's order (closed recurrent classes of non-terminal positions: the draw value).

    >>> from perfectplay.graphs.stochastic import StochasticGraph
    >>> g = StochasticGraph.from_lists([False, True], [[[(1, 1, False), (0, 1, True)]], []],
    ...                                terminal_value=[0, 1], scale=1, draw_value=0)
    >>> exact_stochastic(g, [0, -1])            # v = 1/2 + (1 - v)/2
    [Fraction(2, 3), Fraction(1, 1)]
    """
    n = graph.n_positions
    ch = [int(c) for c in choice]
    scale = graph.scale
    draw = Fraction(int(graph.draw_value or 0), scale)
    values: list[Any] = [None] * n
    ptr, idx = graph.position_adjacency()
    comp, _, order, comp_ptr = strong_components(ptr, idx, compiled=compiled)
    op, tg, wt, ps = (graph.outcome_ptr.tolist(), graph.target.tolist(), graph.weight.tolist(),
                      graph.passes.tolist())  # fmt: skip
    term, tval = graph.terminal.tolist(), graph.terminal_value.tolist()
    order_l, cptr = order.tolist(), comp_ptr.tolist()
    comp_l = comp.tolist()
    for k in range(len(cptr) - 1):
        members = [s for s in order_l[cptr[k] : cptr[k + 1]]]
        rows: dict[int, dict[int, Fraction]] = {}
        rhs: dict[int, Fraction] = {}
        inside: dict[int, list[int]] = {}
        for s in members:
            if term[s]:
                values[s] = Fraction(tval[s], scale)
                continue
            c = ch[s]
            if c < 0:
                values[s] = Fraction(0)
                continue
            total = sum(wt[op[c] : op[c + 1]])
            row: dict[int, Fraction] = {s: Fraction(1)}
            b = Fraction(0)
            nbrs = []
            for e in range(op[c], op[c + 1]):
                t, f = tg[e], Fraction(wt[e], total)
                if ps[e]:
                    b += f
                    f = -f
                if comp_l[t] == k and not term[t]:
                    row[t] = row.get(t, Fraction(0)) - f
                    nbrs.append(t)
                else:
                    b += f * values[t]
            rows[s], rhs[s] = row, b
            inside[s] = nbrs
        if not rows:
            continue
        # Positions that cannot leave the component under the pair never end: draws.
        leaves = {s for s in rows if len(inside[s]) < op[ch[s] + 1] - op[ch[s]]}
        rev: dict[int, list[int]] = {}
        for s, nb in inside.items():
            for t in nb:
                rev.setdefault(t, []).append(s)
        stack = list(leaves)
        while stack:
            t = stack.pop()
            for s in rev.get(t, ()):
                if s not in leaves:
                    leaves.add(s)
                    stack.append(s)
        for s in list(rows):
            if s not in leaves:
                values[s] = draw
                del rows[s]
        for s in rows:  # the draws are constants of the other rows
            row = rows[s]
            for t in [t for t in row if t not in rows]:
                rhs[s] -= row.pop(t) * draw
        for s, v in _sparse_solve(rows, rhs, [s for s in members if s in rows]).items():
            values[s] = v
    return values


def _sparse_solve(
    rows: dict[int, dict[int, Fraction]], rhs: dict[int, Fraction], order: list[int]
) -> dict[int, Fraction]:
    """Solve ``sum(rows[s][t] * x[t]) = rhs[s]`` (row ``s`` pivots on ``x[s]``) by Gaussian
    elimination in ``order``, touching only the rows that hold each pivot's variable."""
    holders: dict[int, set[int]] = {}
    for s, row in rows.items():
        for t in row:
            holders.setdefault(t, set()).add(s)
    done: list[int] = []
    for p in order:
        row = rows[p]
        piv = row.get(p)
        if not piv:
            raise ModelError(f"singular system at position {p} (a strategy that never ends?)")
        for s in holders.get(p, set()) - {p}:
            if s in done:
                continue
            other = rows[s]
            f = other.pop(p) / piv
            for t, a in row.items():
                if t == p:
                    continue
                v = other.get(t, Fraction(0)) - f * a
                if v:
                    other[t] = v
                    holders.setdefault(t, set()).add(s)
                else:
                    other.pop(t, None)
                    holders.get(t, set()).discard(s)
            rhs[s] -= f * rhs[p]
        holders.pop(p, None)
        done.append(p)
    x: dict[int, Fraction] = {}
    for p in reversed(done):
        row = rows[p]
        acc = rhs[p] - sum(a * x[t] for t, a in row.items() if t != p)
        x[p] = acc / row[p]
    return x


def verify_stochastic(
    graph: StochasticGraph, values: list[Fraction], fixed: np.ndarray | None = None
) -> list[tuple[int, int, Fraction]]:
    """The choices that would improve an exact value: ``(position, chance node, gain)``
    for every free position and choice whose exact value exceeds the position's (empty:
    neither player can improve anything, so ``values`` is a fixed point of the game's
    optimality equation; where every strategy pair ends play with probability one that
    fixed point is unique, hence the game's value).

    >>> from perfectplay.graphs.stochastic import StochasticGraph
    >>> g = StochasticGraph.from_lists([False, True, True],
    ...     [[[(1, 1, False)], [(2, 1, False)]], [], []], terminal_value=[0, 1, 2])
    >>> verify_stochastic(g, exact_stochastic(g, [0, -1, -1]))
    [(0, 1, Fraction(1, 2))]
    """
    out = []
    cp = graph.choice_ptr.tolist()
    for s in range(graph.n_positions):
        if graph.terminal[s] or (fixed is not None and fixed[s] >= 0):
            continue
        for c in range(cp[s], cp[s + 1]):
            gain = graph.chance_value(c, values) - values[s]
            if gain > 0:
                out.append((s, c, gain))
    return out
