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
3. Where the bounds stall (an end component: both players can keep play going for ever,
   which is worth ``draw_value``), the component is solved by value iteration from the
   draw value to convergence instead and flagged ``endless``; no bound is claimed there,
   and :func:`exact_stochastic` (rational evaluation of the strategy pair, closed
   recurrent classes valued as draws, plus a check that no choice of either player
   improves any value) is the certificate.

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


@kernel
def _solve(order, comp_ptr, choice_ptr, outcome_ptr, target, weight, passes, terminal, tval,
           draw, fixed, tol, stall_sweeps, max_sweeps):  # fmt: skip
    n = terminal.shape[0]
    lo = np.zeros(n)
    hi = np.ones(n)
    best = np.empty(n, np.int64)
    endless = np.zeros(n, np.bool_)
    for s in range(n):
        best[s] = -1
        if terminal[s]:
            lo[s] = tval[s]
            hi[s] = tval[s]
    sweeps = 0
    worst = 0.0
    for k in range(comp_ptr.shape[0] - 1):
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
                lo[s] = bl
                hi[s] = bh
                best[s] = arg
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
        # End component: value iteration from the draw value (no bound claimed).
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
                    sl /= tw
                    if sl > bl:
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
            if change <= tol * 1e-3 or it > max_sweeps:
                break
        for q in range(a, b):
            s = order[q]
            hi[s] = lo[s]
    return lo, hi, best, endless, sweeps, worst


def solve_stochastic(
    graph: StochasticGraph,
    *,
    tol: float = DEFAULT_TOL,
    fixed: np.ndarray | None = None,
    compiled: bool | None = None,
) -> StochasticSolution:
    """Values and optimal choices of ``graph`` by components and interval iteration.

    ``fixed`` (``int64[n]``, ``-1`` where free) forces a chance node at some positions
    (see the module docstring). ``compiled`` picks numba (default: by size).

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
        compiled = compile_for(graph.n_outcomes, 20_000, _solve)
    ptr, idx = graph.position_adjacency()
    _, _, order, comp_ptr = strong_components(ptr, idx, compiled=compiled)
    scale = float(graph.scale)
    lo, hi, best, endless, sweeps, worst = _solve.run(
        order.astype(np.int32), comp_ptr, graph.choice_ptr, graph.outcome_ptr, graph.target,
        graph.weight, graph.passes, graph.terminal, graph.terminal_value / scale,
        float(graph.draw_value or 0) / scale, fix, float(tol), 200, 1_000_000,
        compiled=compiled,
    )  # fmt: skip
    return StochasticSolution(
        graph=graph,
        value=(lo + hi) / 2,  # within half the gap of the value
        best_choice=best,
        bound=float("nan") if endless.any() else float(worst) / 2,
        method="components + interval iteration"
        + (" (value iteration from the draw value in endless components)" if endless.any() else ""),
        sweeps=int(sweeps),
        endless=endless,
    )


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
