"""Brute-force oracles for one-player objectives, independent of the package's solvers.

They read a graph only through the plain lists of :func:`chance_value_iteration.lists`
(or lists given directly) and never call the package's kernels:

* :func:`exhaustive`: exact values of an acyclic graph by recursion in fractions (a
  non-terminal node without a choice is worth ``objective.endless``; ``None`` = endless
  for a cost or a score).
* :func:`unbounded_by_policies`: whether the value is unbounded, by enumerating every
  deterministic stationary policy and looking for a closed class (every node reachable
  from it leads back to it, no terminal) with a roll that pays the player.
* :func:`reach_value_iteration`: the best expected terminal value where endless plays
  count 0 (a probability), by value iteration from 0, a lower bound that increases to
  the optimum when maximising and, the values being non-negative, when minimising too
  (Bertsekas, *Dynamic Programming and Optimal Control*, positive cost models); or the
  value of a given policy.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
from fractions import Fraction
from functools import cache
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "chance_value_iteration", Path(__file__).resolve().parent / "chance_value_iteration.py"
)
twin = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(twin)  # type: ignore[union-attr]


def exhaustive(objective, terminal, tv, choices, outcomes, cost):
    """Exact values by recursion (the graph is acyclic): Fractions, ``None`` = endless."""
    endless = None if math.isinf(objective.endless) else Fraction(0)
    pick = max if objective.sense == "max" else min

    @cache
    def dec(x):
        if terminal[x]:
            return Fraction(tv[x])
        vals = [v for v in (chance(c) for c in choices[x]) if v is not None]
        return pick(vals) if vals else endless

    @cache
    def chance(c):
        total = sum(w for _, w in outcomes[c])
        acc = Fraction(cost[c])
        for x, w in outcomes[c]:
            v = dec(x)
            if v is None:
                return None
            acc += Fraction(w, total) * v
        return acc

    return dec, chance


def unbounded_by_policies(g) -> bool:
    """Some deterministic stationary policy has a closed class (every node reachable
    from it leads back to it, no terminal) holding a roll that pays the player."""
    terminal, _, choices, outcomes, costs = twin.lists(g)
    o = g.objective.orient
    live = [x for x in range(len(terminal)) if not terminal[x] and choices[x]]
    for policy in itertools.product(*(choices[x] for x in live)):
        pick = dict(zip(live, policy, strict=True))

        def succ(x, pick=pick):
            return [y for y, _ in outcomes[pick[x]]] if x in pick else []

        def reach(x, succ=succ):
            seen, todo = {x}, [x]
            while todo:
                for y in succ(todo.pop()):
                    if y not in seen:
                        seen.add(y)
                        todo.append(y)
            return seen

        for x in live:
            r = reach(x)
            closed = all(y in pick for y in r) and all(x in reach(y) for y in r)
            if closed and any(o * costs[pick[y]] < 0 for y in r):
                return True
    return False


def reach_value_iteration(g, policy=None, rounds=200_000, sense="max"):
    """Max expected terminal value (endless plays count 0) by value iteration from 0, a
    lower bound that increases to the optimum; with ``policy`` (decision -> roll, -1: no
    roll) the value of that policy instead."""
    term, tv, choices, outcomes, _ = twin.lists(g)
    v = [tv[x] if term[x] else 0.0 for x in range(len(term))]

    def roll(c, v=v):
        tot = sum(w for _, w in outcomes[c])
        return sum(w / tot * v[y] for y, w in outcomes[c])

    for _ in range(rounds):
        delta = 0.0
        for x in range(len(term)):
            if term[x]:
                continue
            if policy is None:
                pick = max if sense == "max" else min
                new = pick((roll(c) for c in choices[x]), default=0.0)
            else:
                new = roll(policy[x]) if policy[x] >= 0 else 0.0
            delta = max(delta, abs(new - v[x]))
            v[x] = new
        if delta < 1e-15:
            return v
    raise AssertionError("value iteration did not converge")
