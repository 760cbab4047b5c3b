"""Brute-force twins for large cyclic chance graphs (no retry rule): vectorised value
iteration and an exact Bellman check in fractions.

Independent of the package's algorithms: they read a graph only through its plain CSR
arrays, never its kernels, components, orders or linear solvers.

* :func:`value_iteration`: Jacobi value iteration in the minimising orientation
  (``orient * value``) started from an upper bound, vectorised with NumPy (one sweep is a
  gather, a weighted sum per roll and a minimum per decision node), so graphs of tens of
  thousands of rolls that leave their cycles fast converge in a fraction of a second.
  From above, ``T^k J0 >= J*`` by monotonicity and ``T^k J0 -> J*`` for a proper optimal
  policy, so it is right even with zero costs. Every node must be able to end (the
  callers build such graphs).
* :func:`bellman_residuals_exact`: substitutes exact values into the Bellman equations
  ``V(c) = cost(c) + sum_x p(x) V(x)`` and ``V(x) = best over choices`` in
  :class:`~fractions.Fraction` arithmetic and returns what does not hold exactly.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np


def value_iteration(g, tol: float = 1e-14, max_sweeps: int = 1_000_000):
    """``(decision values, chance values)`` of the optimum, floats (no retry rule)."""
    assert not g.retry
    o = g.objective.orient
    term = g.terminal.astype(bool)
    tv = o * g.terminal_value.astype(float) / g.scale
    cost = o * g.cost.astype(float) / g.scale
    nc = cost.shape[0]
    owner_c = np.repeat(np.arange(nc), np.diff(g.outcome_ptr))
    tot = np.bincount(owner_c, weights=g.outcome_weight.astype(float), minlength=nc)
    p = g.outcome_weight / tot[owner_c]
    live = np.flatnonzero(~term)
    starts = g.choice_ptr[:-1][live]
    assert (np.diff(g.choice_ptr)[live] > 0).all(), "every non-terminal needs a choice"
    bound = np.abs(tv[term]).max(initial=0.0) + 1e7 * (1.0 + np.abs(cost).max(initial=0.0))
    vd = np.where(term, tv, bound)
    vc = np.full(nc, bound)
    for _ in range(max_sweeps):
        vc_new = cost + np.bincount(owner_c, weights=p * vd[g.outcome_idx], minlength=nc)
        vd_new = vd.copy()
        vd_new[live] = np.minimum.reduceat(vc_new[g.choice_idx], starts)
        delta = max(np.abs(vc_new - vc).max(initial=0.0), np.abs(vd_new - vd).max(initial=0.0))
        vc, vd = vc_new, vd_new
        if delta <= tol * (1.0 + np.abs(vd).max()):
            return o * vd, o * vc
    raise AssertionError("value iteration did not converge")


def bellman_residuals_exact(g, chance: list[Fraction]) -> list[str]:
    """Where exact chance values break the Bellman optimality equations (no retry)."""
    o = g.objective.orient
    scale = g.scale
    term = g.terminal.tolist()
    tv = g.terminal_value.tolist()
    cp, ci = g.choice_ptr.tolist(), g.choice_idx.tolist()
    op, oi, ow = g.outcome_ptr.tolist(), g.outcome_idx.tolist(), g.outcome_weight.tolist()
    # Oriented: every decision takes the least of its choices.
    dec = [
        Fraction(o * tv[x], scale) if term[x] else min(o * chance[c] for c in ci[cp[x] : cp[x + 1]])
        for x in range(len(term))
    ]
    bad = []
    for c in range(len(op) - 1):
        total = sum(ow[op[c] : op[c + 1]])
        want = Fraction(o * int(g.cost[c]), scale)
        outs = zip(oi[op[c] : op[c + 1]], ow[op[c] : op[c + 1]], strict=True)
        want += sum(Fraction(w, total) * dec[x] for x, w in outs)
        if o * chance[c] != want:
            bad.append(f"roll {c}: {o * chance[c]} != {want}")
    return bad
