"""cost_distribution, quantile and simulate against brute force and the solved values.

* The distribution is compared with an enumeration of every sequence of roll outcomes
  (exact fractions) whose total cost stays within ``k``, on small random graphs (1e-12).
* Its mean, recovered as ``sum_k P(cost > k)``, must equal the solved expectation and its
  tail must reach 1 (1e-9).
* Simulated means land within 4 standard errors of the expectation (fixed seeds).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest

from perfectplay.analysis import distribution
from perfectplay.analysis import simulate as simulate_mod
from perfectplay.analysis.distribution import cost_distribution, quantile
from perfectplay.analysis.simulate import simulate
from perfectplay.errors import ResourceLimitError
from perfectplay.graphs.chance import ChanceGraph, ChanceSolution
from perfectplay.solvers.policy_iteration import solve_ssp
from perfectplay.solvers.retry import solve_retry


def random_graph(rng: random.Random, implicit: bool) -> ChanceGraph:
    """Small random graph with the retry rule (explicit or implicit) and a reachable goal."""
    nd = rng.randint(2, 7)
    nc = rng.randint(1, 5)
    goal = [x == 0 or rng.random() < 0.2 for x in range(nd)]
    outcomes = []
    for _ in range(nc):
        outs = [(rng.randrange(nd), rng.randint(1, 3)) for _ in range(rng.randint(1, 3))]
        outcomes.append(outs)
    choices = [
        [] if goal[x] else rng.sample(range(nc), rng.randint(1, min(2, nc))) for x in range(nd)
    ]
    if not implicit:
        for c, outs in enumerate(outcomes):
            for x, _ in outs:
                if not goal[x] and c not in choices[x]:
                    choices[x].append(c)
    cost = [rng.choice([1, 1, 2]) for _ in range(nc)]
    return ChanceGraph.from_lists(goal, choices, outcomes, rng.randrange(nd), cost, retry=implicit)


def brute_cdf(g: ChanceGraph, sol: ChanceSolution, k_max: int) -> list[Fraction]:
    """Enumerate every outcome sequence of total cost <= k_max under the policy."""
    mass = [Fraction(0)] * (k_max + 1)
    total = g.total_weight()

    def roll(c: int, paid: int, prob: Fraction) -> None:
        paid += int(g.cost[c])
        if paid > k_max:
            return
        for e in range(g.outcome_ptr[c], g.outcome_ptr[c + 1]):
            p = prob * Fraction(int(g.outcome_weight[e]), int(total[c]))
            if sol.accept[e]:
                land(int(g.outcome_idx[e]), paid, p)
            else:
                roll(c, paid, p)

    def land(x: int, paid: int, prob: Fraction) -> None:
        if g.goal[x]:
            mass[paid] += prob
        elif sol.best_choice[x] >= 0:
            roll(int(sol.best_choice[x]), paid, prob)

    land(g.start, 0, Fraction(1))
    out, acc = [], Fraction(0)
    for m in mass:
        acc += m
        out.append(acc)
    return out


@pytest.mark.parametrize("implicit", [False, True], ids=["explicit", "implicit"])
def test_distribution_matches_enumeration(implicit):
    rng = random.Random(17 + implicit)
    checked = 0
    for _ in range(60):
        g = random_graph(rng, implicit)
        sol = solve_retry(g)
        k = 7
        got = cost_distribution(g, sol, k)
        want = brute_cdf(g, sol, k)
        assert got.shape == (k + 1,)
        np.testing.assert_allclose(got, [float(v) for v in want], rtol=0, atol=1e-12)
        checked += math.isfinite(sol.value) and not g.goal[g.start]
    assert checked >= 20


def test_distribution_mean_and_limit():
    rng = random.Random(3)
    seen = 0
    while seen < 25:
        g = random_graph(rng, implicit=bool(seen % 2))
        sol = solve_retry(g)
        if not math.isfinite(sol.value) or sol.value > 60:
            continue
        seen += 1
        cdf = cost_distribution(g, sol, 4000)
        assert np.all(np.diff(cdf) >= -1e-15) and cdf[0] == float(g.goal[g.start])
        assert cdf[-1] == pytest.approx(1.0, abs=1e-9)
        # E[cost] = sum over k >= 0 of P(cost > k), for integer costs.
        assert np.sum(1.0 - cdf) == pytest.approx(sol.value, rel=1e-9, abs=1e-9)


def test_distribution_hand_made_and_quantile():
    g = ChanceGraph.from_lists([False, True, False], [[0], [], [0]], [[(1, 1), (2, 5)]])
    sol = solve_retry(g)
    cdf = cost_distribution(g, sol, 10)
    assert cdf.tolist() == pytest.approx([1 - (5 / 6) ** k for k in range(11)], abs=1e-15)
    median = quantile(g, sol, 0.5, limit=100)
    assert median == 4 and cdf[3] < 0.5 <= cdf[4]
    assert quantile(g, sol, 0.9, limit=100) == 13
    assert quantile(g, sol, 0.999, limit=20) is None  # needs 38 rolls
    assert quantile(g, sol, 0.999, limit=1000) == 38
    assert quantile(g, sol, 0.0, limit=5) == 0
    # A cost-2 roll with a forced retry of half the outcomes: mass only at even k.
    g2 = ChanceGraph.from_lists([False, True, False], [[0], [], [0]], [[(1, 1), (2, 1)]], cost=[2])
    cdf2 = cost_distribution(g2, solve_retry(g2), 6)
    assert cdf2.tolist() == [0.0, 0.0, 0.5, 0.5, 0.75, 0.75, 0.875]


def test_distribution_of_impossible_and_goal_starts():
    g = ChanceGraph.from_lists([False, False, True], [[0], [0], []], [[(0, 1), (1, 1)]])
    assert cost_distribution(g, solve_retry(g), 5).tolist() == [0.0] * 6
    g = ChanceGraph.from_lists([True, False], [[], [0]], [[(0, 1)]], start=0)
    assert cost_distribution(g, solve_retry(g), 2).tolist() == [1.0, 1.0, 1.0]


def test_distribution_follows_a_general_policy():
    # Without the retry rule (SSP policy, all outcomes kept, a loop back to the start).
    g = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1), (0, 2)]])
    sol = solve_ssp(g)
    cdf = cost_distribution(g, sol, 4)
    assert cdf.tolist() == pytest.approx([0, 1 / 3, 5 / 9, 19 / 27, 65 / 81], abs=1e-15)


def test_distribution_limits(monkeypatch):
    g = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]])
    sol = solve_retry(g)
    with pytest.raises(ValueError):
        cost_distribution(g, sol, -1)
    with pytest.raises(ResourceLimitError, match="too much work"):
        cost_distribution(g, sol, distribution.MAX_K + 1)
    monkeypatch.setattr(distribution, "MAX_WORK", 1000)
    with pytest.raises(ResourceLimitError):
        cost_distribution(g, sol, 1000)
    with pytest.raises(ValueError):
        quantile(g, sol, 1.5, limit=10)


@pytest.mark.parametrize("implicit", [False, True], ids=["explicit", "implicit"])
def test_simulated_mean_within_four_standard_errors(implicit):
    rng = random.Random(41 + implicit)
    done = 0
    while done < 8:
        g = random_graph(rng, implicit)
        sol = solve_retry(g)
        if not math.isfinite(sol.value) or g.goal[g.start]:
            continue
        runs = simulate(g, sol, runs=20_000, seed=done)
        assert runs.dtype == np.int64 and runs.shape == (20_000,)
        assert runs.min() >= 1
        se = runs.std(ddof=1) / math.sqrt(runs.size)
        assert abs(runs.mean() - sol.value) <= 4 * se + 1e-12, (runs.mean(), sol.value, se)
        done += 1


def test_simulate_is_reproducible_and_guarded(monkeypatch):
    g = ChanceGraph.from_lists([False, True, False], [[0], [], [0]], [[(1, 1), (2, 5)]])
    sol = solve_retry(g)
    a = simulate(g, sol, runs=500, seed=5)
    assert np.array_equal(a, simulate(g, sol, runs=500, seed=5))
    assert not np.array_equal(a, simulate(g, sol, runs=500, seed=6))
    assert simulate(g, sol, runs=0, seed=1).shape == (0,)
    # Impossible start.
    g_inf = ChanceGraph.from_lists([False, False, True], [[0], [0], []], [[(0, 1), (1, 1)]])
    with pytest.raises(ValueError, match="infinite"):
        simulate(g_inf, solve_retry(g_inf), runs=10, seed=1)
    # Too much expected work.
    monkeypatch.setattr(simulate_mod, "MAX_EXPECTED_STEPS", 100)
    with pytest.raises(ResourceLimitError, match="too much work"):
        simulate(g, sol, runs=1000, seed=1)
    monkeypatch.undo()
    # A policy that never keeps anything does not hang: the step cap stops it.
    stuck = ChanceSolution(
        g, sol.decision_value, sol.chance_value, sol.best_choice, np.zeros(2, bool)
    )
    with pytest.raises(ResourceLimitError, match="does not match"):
        simulate(g, stuck, runs=3, seed=1)


def test_simulate_stops_at_a_dead_end_policy():
    g = ChanceGraph.from_lists([False, True, False], [[0], [], [0]], [[(1, 1), (2, 5)]])
    sol = solve_retry(g)
    broken = ChanceSolution(
        g, sol.decision_value, sol.chance_value, np.array([0, -1, -1], np.int32), np.ones(2, bool)
    )
    with pytest.raises(ResourceLimitError, match="without a choice"):
        simulate(g, broken, runs=200, seed=1)
