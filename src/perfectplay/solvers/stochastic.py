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

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, overload

import numpy as np

from perfectplay._util.jit import compile_for, kernel
from perfectplay._util.memory import require
from perfectplay.errors import ModelError
from perfectplay.graphs._csr import strong_components, transpose
from perfectplay.graphs.stochastic import StochasticGraph, StochasticSolution
from perfectplay.solvers.chain import chain_values

__all__ = [
    "DEFAULT_TOL",
    "PairValues",
    "exact_stochastic",
    "solve_stochastic",
    "verify_stochastic",
]

#: Default stopping gap of interval iteration (a proven bound on each value's error).
DEFAULT_TOL = 1e-12
#: Per-step draw probability of the contracted game solved in end components.
ENDLESS_EPS = 1e-3
#: Largest end component checked by a dense linear solve.
MAX_ENDLESS = 3_000
# Float chance values closer than this (plus the sum's rounding bound) to their position's
# value are compared exactly in verify_stochastic.
_VERIFY_MARGIN = 1e-12


@kernel
def _solve(
    k0: Any, lo: Any, hi: Any, best: Any, endless: Any, stats: Any, order: Any, comp_ptr: Any,
    choice_ptr: Any, outcome_ptr: Any, target: Any, weight: Any, passes: Any, terminal: Any,
    draw: Any, fixed: Any, tol: Any, stall_sweeps: Any, max_sweeps: Any, eps: Any,
) -> Any:  # fmt: skip
    # Solves components k0, k0+1, ... in place; returns after the first component where
    # play can go on for ever (the caller settles it), else the number of components.

    def bounds(c, lo, hi):  # type: (Any, Any, Any) -> tuple[Any, Any]
        # The mover's value of chance node c from bounds (lo, hi) of its successors: a
        # passing outcome swaps them. Called with lo for both, it is the plain value.
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
        return sl / tw, sh / tw

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
                    sl, sh = bounds(c, lo, hi)
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
                    sl = (1.0 - eps) * bounds(c, lo, lo)[0] + eps * draw
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
def _postorder(order: Any, comp_ptr: Any, comp: Any, ptr: Any, idx: Any) -> Any:
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


@kernel
def _reach_back(rptr: Any, rsrc: Any, seed: Any) -> Any:
    # Every node with a path to a seed node (the seeds included), by a stack over the
    # reversed edges.
    n = seed.shape[0]
    out = seed.copy()
    stack = np.empty(n, np.int64)
    top = 0
    for v in range(n):
        if seed[v]:
            stack[top] = v
            top += 1
    while top > 0:
        top -= 1
        v = stack[top]
        for k in range(rptr[v], rptr[v + 1]):
            u = rsrc[k]
            if not out[u]:
                out[u] = True
                stack[top] = u
                top += 1
    return out


def _pair_chain(
    graph: StochasticGraph, choice: Any, compiled: bool
) -> tuple[list[int], list[int], np.ndarray, np.ndarray, np.ndarray]:
    """The Markov chain of a strategy pair as the integer system of
    :func:`~perfectplay.solvers.chain.chain_values`, in units of ``1 / scale``:
    ``W x_p = sum_keep w x_t + sum_pass w (scale - x_t)`` at a position choosing a chance
    node of total weight ``W``; terminal positions are their value, positions without a
    choice 0, and positions that cannot end under the pair the draw."""
    n = graph.n_positions
    ch = np.asarray(choice, np.int64)
    if ch.shape != (n,):
        raise ModelError(f"the strategy must give one chance node per position ({n})")
    cp, op = graph.choice_ptr, graph.outcome_ptr
    live = ~graph.terminal & (ch >= 0)
    bad = live & ((ch < cp[:-1]) | (ch >= cp[1:]))
    if bad.any():
        p = int(np.flatnonzero(bad)[0])
        raise ModelError(f"chance node {int(ch[p])} is not a choice of position {p}")
    c = np.where(live, ch, 0)
    # Only live positions read ``op`` (a game with no chance node has ``op == [0]``).
    count = np.zeros(n, np.int64)
    count[live] = op[c[live] + 1] - op[c[live]]
    ptr = np.zeros(n + 1, np.int64)
    np.cumsum(count, out=ptr[1:])
    edge = np.repeat(op[c] - ptr[:-1], count) + np.arange(int(ptr[-1]))
    idx = graph.target[edge].astype(np.int32)
    w = graph.weight[edge]
    passes = graph.passes[edge]
    rptr, rsrc, _ = transpose(ptr, idx, n, edges=False, compiled=compiled)
    ends = _reach_back.run(rptr, rsrc, ~live, compiled=compiled)
    # A position that cannot end loses its edges: it is a constant, the draw.
    drop = np.repeat(~ends, count)
    keep_count = np.where(ends, count, 0)
    ptr[1:] = np.cumsum(keep_count)
    idx, w, passes = idx[~drop], w[~drop], passes[~drop]
    owner = np.repeat(np.arange(n), keep_count)
    total = np.where(live & ends, np.bincount(owner, w, minlength=n).astype(np.int64), 1)
    passed = np.bincount(owner[passes], w[passes], minlength=n).astype(np.int64)
    constant = np.where(graph.terminal, graph.terminal_value, 0)
    constant = np.where(live & ~ends, int(graph.draw_value or 0), constant)
    # Python ints: scale * passed may leave int64 on long games.
    const_l = [
        int(a) + graph.scale * int(b)
        for a, b in zip(constant.tolist(), passed.tolist(), strict=True)
    ]
    return const_l, total.tolist(), ptr, idx, np.where(passes, -w, w)


class PairValues(Sequence[Fraction]):
    """Exact values of a strategy pair, by position: ``values[p]`` is a
    :class:`~fractions.Fraction` in lowest terms, made on first access.

    Long games have long denominators (Pig to 100: about 70,000 bits), and bringing every
    position's value to lowest terms would cost a gcd of such numbers each (quadratic in
    their length in Python); the values are kept as ``numerators[p] / denominators[p]``,
    not necessarily reduced, and compared or rounded from those. Equal to a list of the
    same Fractions.

    >>> from perfectplay.graphs.stochastic import StochasticGraph
    >>> g = StochasticGraph.from_lists([False, True], [[[(1, 1, False), (0, 1, True)]], []],
    ...                                terminal_value=[0, 1], scale=1, draw_value=0)
    >>> v = exact_stochastic(g, [0, -1])
    >>> isinstance(v, PairValues), v[0], len(v), v.floats().tolist()
    (True, Fraction(2, 3), 2, [0.6666666666666666, 1.0])
    """

    def __init__(self, numerators: list[int], denominators: list[int]) -> None:
        self.numerators = numerators
        self.denominators = denominators
        self._made: dict[int, Fraction] = {}

    def __len__(self) -> int:
        return len(self.numerators)

    @overload
    def __getitem__(self, p: int) -> Fraction: ...
    @overload
    def __getitem__(self, p: slice) -> list[Fraction]: ...
    def __getitem__(self, p: int | slice) -> Fraction | list[Fraction]:
        if isinstance(p, slice):
            return [self[i] for i in range(*p.indices(len(self)))]
        p = int(p)
        if p < 0:
            p += len(self)
        f = self._made.get(p)
        if f is None:
            f = self._made[p] = Fraction(self.numerators[p], self.denominators[p])
        return f

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PairValues):
            other = list(other)
        return isinstance(other, list) and list(self) == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if len(self) <= 20:  # small games read as the list they equal
            return repr(list(self))
        return f"<PairValues: {len(self):,} positions, start {self[0]!s:.40}...>"

    def floats(self) -> np.ndarray:
        """Correctly rounded floats of every value (Python's ``int / int`` is)."""
        return np.array([a / b for a, b in zip(self.numerators, self.denominators, strict=True)])


def exact_stochastic(
    graph: StochasticGraph, choice: np.ndarray, *, compiled: bool | None = None
) -> PairValues:
    """Exact values of the strategy pair ``choice`` (a chance node per non-terminal
    position): the absorption values of its Markov chain in rationals (positions that
    cannot end under the pair: the draw value), by
    :func:`~perfectplay.solvers.chain.chain_values`: a topological order off cycles,
    sparse fraction-free integer elimination on each strongly connected component of the
    pair's graph (in Pig, the positions of one score pair the busts cycle through).

    >>> from perfectplay.graphs.stochastic import StochasticGraph
    >>> g = StochasticGraph.from_lists([False, True], [[[(1, 1, False), (0, 1, True)]], []],
    ...                                terminal_value=[0, 1], scale=1, draw_value=0)
    >>> exact_stochastic(g, [0, -1])            # v = 1/2 + (1 - v)/2
    [Fraction(2, 3), Fraction(1, 1)]
    """
    n = graph.n_positions
    if compiled is None:
        compiled = compile_for(graph.n_outcomes, 20_000, _reach_back)
    # Index arrays, the chain's edges and the lists of Python ints (about 40 bytes an
    # outcome, 300 a position); the big integers of long games come on top.
    require(graph.n_outcomes * 40 + n * 300, f"exact evaluation of {n:,} positions")
    constant, total, ptr, idx, w = _pair_chain(graph, choice, compiled)
    num, den = chain_values(constant, total, ptr, idx, w, unit="positions", reduce=False)
    if 0 in den:  # pragma: no cover - a proper chain's system is never singular
        raise ModelError(f"singular system at position {den.index(0)}")
    scale = graph.scale
    if scale != 1:
        # Many positions share one denominator object: scale each distinct one once.
        scaled: dict[int, int] = {}
        den = [scaled.get(id(d)) or scaled.setdefault(id(d), d * scale) for d in den]
    return PairValues(num, den)


def verify_stochastic(
    graph: StochasticGraph,
    values: Sequence[Fraction],
    fixed: np.ndarray | None = None,
    choice: np.ndarray | None = None,
) -> list[tuple[int, int, Fraction]]:
    """The choices that would improve an exact value: ``(position, chance node, gain)``
    for every free position and choice whose exact value exceeds the position's (empty:
    neither player can improve anything, so ``values`` is a fixed point of the game's
    optimality equation; where every strategy pair ends play with probability one that
    fixed point is unique, hence the game's value). ``choice``: the strategy pair that
    ``values`` are the exact values of (:func:`exact_stochastic`); its chance nodes are
    worth their position's value by construction and are not compared again.

    Vectorised: every chance node's value is first computed in floats from the correctly
    rounded values, and only the choices within :data:`_VERIFY_MARGIN` of their
    position's value (an error bound of that float sum) are compared exactly.

    >>> from perfectplay.graphs.stochastic import StochasticGraph
    >>> g = StochasticGraph.from_lists([False, True, True],
    ...     [[[(1, 1, False)], [(2, 1, False)]], [], []], terminal_value=[0, 1, 2])
    >>> verify_stochastic(g, exact_stochastic(g, [0, -1, -1]))
    [(0, 1, Fraction(1, 2))]
    """
    n = graph.n_positions
    if len(values) != n:
        raise ModelError(f"values must give one value per position ({n})")
    # Correctly rounded (int / int is): each float within 2**-53 of a value in [0, 1].
    if isinstance(values, PairValues):
        fv = values.floats()
    else:
        fv = np.array([v.numerator / v.denominator for v in values], np.float64)
    op = graph.outcome_ptr
    nc = graph.n_chance
    tv = fv[graph.target]
    part = graph.weight * np.where(graph.passes, 1.0 - tv, tv)
    start = op[:-1]
    nonempty = op[1:] > start
    fc = np.zeros(nc)
    tw = np.zeros(nc)
    if nonempty.any():
        fc[nonempty] = np.add.reduceat(part, start[nonempty])
        tw[nonempty] = np.add.reduceat(graph.weight.astype(np.float64), start[nonempty])
    fc = np.divide(fc, tw, out=np.zeros(nc), where=tw > 0)
    owner = np.repeat(np.arange(n), np.diff(graph.choice_ptr))
    free = ~graph.terminal[owner]
    if fixed is not None:
        free &= np.asarray(fixed)[owner] < 0
    if choice is not None:
        free[np.asarray(choice, np.int64)[np.asarray(choice) >= 0]] = False
    # Each product and sum rounds once (relative 2**-53) on numbers at most 1 in all.
    deg = int(np.diff(op).max()) if nc else 0
    margin = _VERIFY_MARGIN + (deg + 4) * 2.0**-50
    cand = np.flatnonzero(free & (fc > fv[owner] - margin))
    out = []
    for c in cand.tolist():
        s = int(owner[c])
        gain = graph.chance_value(c, values) - values[s]
        if gain > 0:
            out.append((s, c, gain))
    return out
