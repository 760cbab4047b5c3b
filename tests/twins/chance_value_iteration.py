"""Brute-force twin of the chance solvers, for any objective: plain Python value iteration.

Independent of the package's algorithms: it reads a graph only through its plain lists
(never its kernels, reverse adjacency or safe set) and uses floats only.

* **Which nodes can end.** A node can end with probability one exactly when it lies in
  the greatest set ``S`` such that from every node of ``S`` a terminal is reachable using
  only rolls that stay in ``S`` (all outcomes in ``S``; with the retry rule, one outcome
  in ``S`` is enough, since the others can be rerolled). Computed by shrinking ``S`` until
  it is stable, each round a plain reachability search. Other nodes get
  ``objective.endless``. Under a probability a dead end (a non-terminal node without a
  choice) is a terminal worth 0: the play is over without the event.
* **Values.** In the minimising orientation (``orient * value``), value iteration from
  an upper bound: ``T^k J0 >= J*`` by monotonicity, and ``T^k J0 <= T_m^k J0 -> J_m = J*``
  for an optimal proper policy ``m``; so it converges to the optimum even where zero costs
  give the Bellman equation other fixed points (which iteration from below could find).
* **Outcome distribution** of a given policy by recursion on the remaining budget
  (:func:`outcome_cdf`), and the expected outcome by enumerating plays up to a depth.
"""

from __future__ import annotations

from functools import cache


def lists(g):
    """Plain lists of a ChanceGraph: terminal, terminal values, choices, outcomes, costs."""
    term = [bool(t) for t in g.terminal.tolist()]
    tv = [v / g.scale for v in g.terminal_value.tolist()]
    cp, ci = g.choice_ptr.tolist(), g.choice_idx.tolist()
    op, oi, ow = g.outcome_ptr.tolist(), g.outcome_idx.tolist(), g.outcome_weight.tolist()
    choices = [ci[cp[x] : cp[x + 1]] for x in range(len(term))]
    outcomes = [
        list(zip(oi[op[c] : op[c + 1]], ow[op[c] : op[c + 1]], strict=True))
        for c in range(len(op) - 1)
    ]
    costs = [c / g.scale for c in g.cost.tolist()]
    if g.objective.measure == "probability":
        # A dead end (no choice, not terminal) ends the play without the event: worth 0,
        # a terminal like any other (under a cost or a score it cannot end).
        term = [t or not cs for t, cs in zip(term, choices, strict=True)]
    return term, tv, choices, outcomes, costs


def may_reroll(g, choices, term, c, x) -> bool:
    """The implicit rule lets any outcome be rerolled; otherwise a non-terminal outcome
    that lists the roll among its choices."""
    return g.retry or (not term[x] and c in choices[x])


def can_end(g):
    """``(decision flags, chance flags)``: can the node end with probability one?"""
    term, _, choices, outcomes, _ = lists(g)
    nd, nc = len(term), len(outcomes)
    in_d, in_c = [True] * nd, [True] * nc
    while True:
        ok_c = []
        for c in range(nc):
            xs = [x for x, _ in outcomes[c]]
            if g.retry:
                ok_c.append(in_c[c] and any(in_d[x] for x in xs))
            else:
                ok_c.append(in_c[c] and all(in_d[x] for x in xs))
        reach_d = [term[x] for x in range(nd)]
        reach_c = [False] * nc
        changed = True
        while changed:
            changed = False
            for c in range(nc):
                if ok_c[c] and not reach_c[c] and any(reach_d[x] for x, _ in outcomes[c]):
                    reach_c[c] = changed = True
            for x in range(nd):
                if in_d[x] and not reach_d[x] and any(reach_c[c] for c in choices[x]):
                    reach_d[x] = changed = True
        new_d = [in_d[x] and reach_d[x] for x in range(nd)]
        new_c = [in_c[c] and reach_c[c] for c in range(nc)]
        if new_d == in_d and new_c == in_c:
            return in_d, in_c
        in_d, in_c = new_d, new_c


def values(g, tol: float = 1e-12, max_rounds: int = 200_000):
    """``(decision values, chance values)`` of the optimum, floats."""
    term, tv, choices, outcomes, costs = lists(g)
    obj = g.objective
    o = obj.orient
    nd, nc = len(term), len(outcomes)
    ok_d, ok_c = can_end(g)
    otv = [o * v for v in tv]
    ocost = [o * c for c in costs]
    top = max([otv[x] for x in range(nd) if term[x]] + [0.0])
    bound = top + 1e4 * (1.0 + max(ocost + [0.0]))
    vd = [otv[x] if term[x] else (bound if ok_d[x] else float("inf")) for x in range(nd)]
    vc = [bound if ok_c[c] else float("inf") for c in range(nc)]
    for _ in range(max_rounds):
        delta = 0.0
        for c in range(nc):
            if not ok_c[c]:
                continue
            tot = sum(w for _, w in outcomes[c])
            new = ocost[c]
            for x, w in outcomes[c]:
                v = vd[x]
                if may_reroll(g, choices, term, c, x):
                    v = min(v, vc[c])
                new += w / tot * v
            delta = max(delta, abs(new - vc[c]))
            vc[c] = new
        for x in range(nd):
            if term[x] or not ok_d[x]:
                continue
            new = min(vc[c] for c in choices[x])
            delta = max(delta, abs(new - vd[x]))
            vd[x] = new
        if delta <= tol * (1.0 + max([abs(v) for v in vd if v != float("inf")] + [0.0])):
            break
    else:
        raise AssertionError("value iteration did not converge")

    def back(v: float, ok: bool) -> float:
        return o * v if ok else obj.endless

    return (
        [tv[x] if term[x] else back(vd[x], ok_d[x]) for x in range(nd)],
        [back(vc[c], ok_c[c]) for c in range(nc)],
    )


def outcome_cdf(g, best, accept, k_max: int) -> list[float]:
    """P(outcome <= k) for ``k = 0..k_max`` when ``best`` / ``accept`` (lists) are played
    from the start; integer costs of at least 1 and integer terminal values."""
    term, tv, choices, outcomes, costs = lists(g)
    op = g.outcome_ptr.tolist()

    @cache
    def dec(x: int, k: int) -> float:
        if term[x]:
            return 1.0 if k >= tv[x] else 0.0
        return roll(best[x], k) if best[x] >= 0 else 0.0

    @cache
    def roll(c: int, k: int) -> float:
        j = k - int(costs[c])
        if j < 0:
            return 0.0
        tot = sum(w for _, w in outcomes[c])
        s = 0.0
        for i, (x, w) in enumerate(outcomes[c]):
            s += w / tot * (dec(x, j) if accept[op[c] + i] else roll(c, j))
        return s

    return [dec(g.start, k) for k in range(k_max + 1)]
