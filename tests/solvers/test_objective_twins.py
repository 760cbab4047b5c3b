"""Every one-player objective against brute-force twins on small random graphs.

* Acyclic graphs (backward induction): exhaustive recursion in exact fractions.
* Graphs with cycles and rolls that pay the player: the value is unbounded exactly when
  some deterministic stationary policy has a recurrent class holding such a roll (policy
  enumeration); bounded graphs are checked against the value-iteration twin.
* A maximised probability where play may go on for ever: value iteration from below.

The oracles are in tests/twins/ (chance_exhaustive.py, chance_value_iteration.py).
"""

from __future__ import annotations

import importlib.util
import math
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from perfectplay.analysis.distribution import cost_distribution, outcome_pmf
from perfectplay.analysis.exact import exact_solution
from perfectplay.errors import UnsupportedObjectiveError
from perfectplay.graphs._csr import maximal_end_components
from perfectplay.graphs.chance import ChanceGraph
from perfectplay.objectives import MIN_COST, Objective
from perfectplay.solvers import UnboundedObjectiveError, solve_chance
from perfectplay.solvers.backward import solve_backward

_spec = importlib.util.spec_from_file_location(
    "chance_value_iteration",
    Path(__file__).resolve().parent.parent / "twins" / "chance_value_iteration.py",
)
twin = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(twin)  # type: ignore[union-attr]
_spec2 = importlib.util.spec_from_file_location(
    "chance_exhaustive", Path(__file__).resolve().parent.parent / "twins" / "chance_exhaustive.py"
)
oracles = importlib.util.module_from_spec(_spec2)  # type: ignore[arg-type]
_spec2.loader.exec_module(oracles)  # type: ignore[union-attr]
exhaustive = oracles.exhaustive
unbounded_by_policies = oracles.unbounded_by_policies
reach_value_iteration = oracles.reach_value_iteration

OBJECTIVES = [
    MIN_COST,
    Objective.score("min"),
    Objective.score("max"),
    Objective.probability("max"),
    Objective.probability("min"),
]


def acyclic_graph(rng: random.Random, objective: Objective) -> tuple[ChanceGraph, list]:
    """A random layered (so acyclic) graph; also returns its plain lists."""
    nd = rng.randint(2, 9)
    nc = rng.randint(1, 6)
    prob = objective.measure == "probability"
    terminal = [False] + [rng.random() < 0.4 for _ in range(nd - 1)]
    terminal[-1] = True
    # Chance node c leads only to decision nodes above its level; decision node x chooses
    # chance nodes whose level is at least x: edges go up, no cycle.
    level = sorted(rng.randrange(nd - 1) for _ in range(nc))
    outcomes = [
        [(rng.randrange(level[c] + 1, nd), rng.randint(1, 4)) for _ in range(rng.randint(1, 3))]
        for c in range(nc)
    ]
    choices = []
    for x in range(nd):
        avail = [c for c in range(nc) if level[c] >= x]
        if terminal[x] or not avail or rng.random() < 0.08:
            choices.append([])  # terminal, or stuck (worth objective.endless)
        else:
            choices.append(sorted(rng.sample(avail, rng.randint(1, min(3, len(avail))))))
    if prob:
        tv = [rng.randint(0, 1) if t else 0 for t in terminal]
        cost = [0] * nc
    else:
        tv = [Fraction(rng.randint(-6, 6), rng.choice((1, 1, 2, 3))) if t else 0
              for t in terminal]  # fmt: skip
        cost = [rng.choice((-2, -1, 0, 0, 1, 2, Fraction(1, 2))) for _ in range(nc)]
    g = ChanceGraph.from_lists(terminal=terminal, terminal_value=tv, choices=choices,
                               outcomes=outcomes, cost=cost, objective=objective)  # fmt: skip
    return g, [terminal, tv, choices, outcomes, cost]


@pytest.mark.parametrize("objective", OBJECTIVES, ids=lambda o: o.describe())
def test_backward_induction_matches_exhaustive_recursion(objective):
    rng = random.Random(hash(objective.describe()) % 1000)
    ties = 0
    for _ in range(150):
        g, lists = acyclic_graph(rng, objective)
        assert g.acyclic_order() is not None
        sol = solve_chance(g)
        assert sol.method == "backward-induction" or (
            sol.method == "label-setting" and objective.sense == "min"
        )
        dec, chance = exhaustive(objective, *lists)
        for x in range(g.n_decision):
            want = dec(x)
            got = sol.decision_value[x]
            if want is None:
                assert got == objective.endless, (x, g)
            else:
                assert math.isclose(got, float(want), rel_tol=1e-9, abs_tol=1e-9), (x, g)
        for x in range(g.n_decision):
            cs = lists[2][x]
            vals = [chance(c) for c in cs]
            ties += len(vals) != len(set(vals))
        stuck = any(not t and not cs for t, cs in zip(lists[0], lists[2], strict=True))
        if dec(0) is not None and sol.best_choice[0] >= 0 and not stuck:
            ex = exact_solution(g, sol)
            assert ex.value == dec(0)
    assert ties > 0  # ties are exercised


@pytest.mark.parametrize("objective", [Objective.score("min"), Objective.score("max")],
                         ids=["min", "max"])  # fmt: skip
def test_outcome_law_of_acyclic_graphs_matches_enumeration(objective):
    rng = random.Random(7)
    for _ in range(100):
        g, (terminal, tv, choices, outcomes, cost) = acyclic_graph(rng, objective)
        if g.scale != 1:
            continue
        sol = solve_backward(g)
        # Enumerate every play of the policy from the start.
        law: dict[int, Fraction] = {}

        best = sol.best_choice.tolist()

        def walk(x, paid, p, law=law, terminal=terminal, tv=tv, outcomes=outcomes, cost=cost,
                 best=best):  # fmt: skip
            if terminal[x]:
                law[paid + tv[x]] = law.get(paid + tv[x], 0) + p
                return
            c = best[x]
            if c < 0:
                return
            total = sum(w for _, w in outcomes[c])
            for y, w in outcomes[c]:
                walk(y, paid + cost[c], p * Fraction(w, total), law)

        walk(0, 0, Fraction(1))
        values, probs = outcome_pmf(g, sol)
        assert values.tolist() == sorted(law)
        for v, p in zip(values.tolist(), probs.tolist(), strict=True):
            assert math.isclose(p, float(law[v]), rel_tol=1e-12)
        if all(v >= 0 for v in law):
            cdf = cost_distribution(g, sol, 12)
            for k in range(13):
                want = float(sum(p for v, p in law.items() if v <= k))
                assert math.isclose(cdf[k], want, abs_tol=1e-12)


def cyclic_graph(rng: random.Random, objective: Objective) -> ChanceGraph:
    nd = rng.randint(2, 6)
    nc = rng.randint(1, 5)
    terminal = [False] + [rng.random() < 0.3 for _ in range(nd - 1)]
    terminal[-1] = True
    outcomes = [
        [(rng.randrange(nd), rng.randint(1, 3)) for _ in range(rng.randint(1, 3))]
        for _ in range(nc)
    ]
    choices = [
        [] if terminal[x] else sorted(rng.sample(range(nc), rng.randint(1, min(2, nc))))
        for x in range(nd)
    ]
    return ChanceGraph.from_lists(
        terminal=terminal,
        terminal_value=[rng.randint(-3, 5) if t else 0 for t in terminal],
        choices=choices,
        outcomes=outcomes,
        cost=[rng.randint(-2, 3) for _ in range(nc)],
        objective=objective,
    )


@pytest.mark.parametrize(
    "objective", [MIN_COST, Objective.score("max"), Objective.score("min")],
    ids=["min-cost", "max-score", "min-score"],
)  # fmt: skip
def test_cycles_with_rewards_refused_exactly_when_unbounded(objective):
    rng = random.Random(31 + len(objective.describe()))
    refused = solved = 0
    for _ in range(200):
        g = cyclic_graph(rng, objective)
        if g.acyclic_order() is not None:
            continue
        if unbounded_by_policies(g):
            with pytest.raises(UnboundedObjectiveError, match="unbounded") as err:
                solve_chance(g)
            d, _, _ = g.end_components(compiled=False)
            assert d[err.value.node] >= 0  # the named node lies in an end component
            refused += 1
            continue
        try:
            sol = solve_chance(g)
        except UnsupportedObjectiveError:
            raise
        want_d, _ = twin.values(g)
        for x, (got, want) in enumerate(zip(sol.decision_value.tolist(), want_d, strict=True)):
            assert (math.isinf(got) and got == want) or math.isclose(
                got, want, rel_tol=1e-7, abs_tol=1e-7
            ), (x, got, want, g)
        ex = exact_solution(g, sol).value  # exact on cycles with rolls that pay
        assert (ex is None and math.isinf(sol.value)) or math.isclose(
            float(ex), sol.value, abs_tol=1e-9
        )
        solved += 1
    assert refused > 10 and solved > 10


def test_end_components_compiled_and_interpreted_agree():
    rng = random.Random(5)
    for _ in range(100):
        g = cyclic_graph(rng, MIN_COST)
        # The array-level function: the graph's own method caches its first answer.
        t, cp, ci, op, oi = g.arrays()[:5]
        a = maximal_end_components(t, cp, ci, op, oi, retry=g.retry, compiled=False)
        b = maximal_end_components(t, cp, ci, op, oi, retry=g.retry, compiled=True)
        assert g.end_components(compiled=True)[2] == a[2]
        assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()
        assert a[2] == b[2]


def test_end_component_of_the_retry_rule():
    # One roll whose outcome is not terminal: with the retry rule it can be made for ever.
    g = ChanceGraph.from_lists([False, False, True], [[0], [1], []],
                               [[(1, 1)], [(2, 1)]], retry=True)  # fmt: skip
    d, c, n = g.end_components(compiled=False)
    assert n == 1 and d.tolist() == [-1, 0, -1] and c.tolist() == [0, -1]


def test_forced_backward_induction_on_a_cycle_is_refused():
    g = ChanceGraph.from_lists([False, True], [[0], []], [[(0, 1), (1, 1)]])
    with pytest.raises(UnsupportedObjectiveError, match="backward induction does not apply"):
        solve_chance(g, method="backward-induction")
    assert solve_chance(g, method="policy-iteration").value == pytest.approx(2.0)


@pytest.mark.parametrize("sense", ["max", "min"])
def test_probability_with_endless_plays_collapses_end_components(sense):
    rng = random.Random(41)
    endless = 0
    for _ in range(300):
        g = cyclic_graph(rng, Objective.probability(sense))
        g = ChanceGraph.from_lists(
            terminal=g.terminal.tolist(),
            terminal_value=[int(v > 1) for v in g.terminal_value.tolist()],
            choices=[g.choices(x).tolist() for x in range(g.n_decision)],
            outcomes=[list(zip(*map(np.ndarray.tolist, g.outcomes(c)), strict=True))
                      for c in range(g.n_chance)],
            cost=[0] * g.n_chance, objective=Objective.probability(sense),
        )  # fmt: skip
        if g.acyclic_order() is not None:
            continue
        sol = solve_chance(g)
        want = reach_value_iteration(g, sense=sense)
        got = sol.decision_value.tolist()
        assert all(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(got, want, strict=True)), (
            got,
            want,
            g,
        )
        # The policy mapped back achieves the values (it walks to the exits it picked).
        achieved = reach_value_iteration(g, sol.best_choice.tolist(), sense=sense)
        assert all(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(achieved, want, strict=True))
        endless += not all(twin.can_end(g)[0])
    assert endless > 20


@pytest.mark.parametrize("loop_at_end", [False, True])
def test_end_components_of_a_long_chain(loop_at_end):
    # Decision i rolls to i+1 or back to 0; the last decision exits (or loops on itself).
    # Peeling the chain one node per round of components would take n rounds.
    n = 3000
    choices = [[i] for i in range(n)] + [[]]
    outcomes = [[(i + 1, 1), (0, 1)] for i in range(n)]
    if loop_at_end:
        outcomes[-1] = [(n - 1, 1)]
    g = ChanceGraph.from_lists([False] * n + [True], choices, outcomes)
    d, c, k = g.end_components(compiled=False)
    if loop_at_end:
        # Only the last decision and its roll form one: every other roll may land on the
        # last decision, from which nothing leads back.
        assert k == 1 and d[n - 1] == 0 and c[n - 1] == 0
        assert (d[: n - 1] == -1).all() and (c[: n - 1] == -1).all()
    else:
        assert k == 0 and (d == -1).all() and (c == -1).all()
