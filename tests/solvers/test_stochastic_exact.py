"""Exact values of two-player dice games (solvers/stochastic.py: exact_stochastic and
verify_stochastic, on the integer elimination of solvers/chain.py: chain_values) against
the twins of tests/twins/stochastic_game.py: exact Markov-chain values of a strategy pair
in Fractions (dense Gauss-Jordan over (position, player) states), exhaustive minimax, and
value iteration; Pig and Piglet; and a verifier that must reject a wrong strategy."""

from __future__ import annotations

import importlib.util
import json
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from perfectplay.errors import ModelError
from perfectplay.examples.pig import Pig, Piglet
from perfectplay.graphs.stochastic import StochasticGraph
from perfectplay.models.stochastic import solve_stochastic_model
from perfectplay.solvers.chain import _elimination_order, chain_values
from perfectplay.solvers.stochastic import (
    PairValues,
    exact_stochastic,
    solve_stochastic,
    verify_stochastic,
)

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location(
    "stochastic_game", ROOT / "twins" / "stochastic_game.py"
)
twin = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(twin)  # type: ignore[union-attr]
PUBLISHED = json.loads((ROOT / "data" / "pig" / "published.json").read_text())


def cyclic_game(rng: random.Random, n: int, most: int = 3) -> StochasticGraph:
    """Free positions 0..n-1, each with one to three chance nodes whose outcomes go back
    among them (passing the turn or not) or to terminals worth lose, tie and win; a few
    positions only pass the turn (endless play, a draw, where nothing else leaves)."""
    tvals = [0, 1, 2]
    choices = []
    for p in range(n):
        cs = []
        for _ in range(rng.randint(1, most)):
            outs = [(rng.randrange(n), rng.randint(1, 6), rng.random() < 0.5)
                    for _ in range(rng.randint(1, 4))]  # fmt: skip
            if rng.random() < 0.6:
                outs.append((n + rng.randrange(len(tvals)), rng.randint(1, 6), rng.random() < 0.5))
            cs.append(outs)
        if rng.random() < 0.1:
            cs = [[((p + 1) % n, 1, True)]]
        choices.append(cs)
    return StochasticGraph.from_lists(
        [False] * n + [True] * len(tvals),
        choices + [[] for _ in tvals],
        terminal_value=[0] * n + tvals,
        scale=2,
    )


@pytest.mark.parametrize("compiled", [False, True])
def test_random_pairs_equal_the_twin_chain_values(compiled):
    rng = random.Random(2026 + compiled)
    for _ in range(40):
        n = rng.randint(2, 10)
        g = cyclic_game(rng, n)
        term, tval, choices = twin.game_lists(g)
        pick = {p: rng.randrange(len(choices[p])) for p in range(n)}
        choice = np.array([int(g.choice_ptr[p]) + pick[p] if p in pick else -1
                           for p in range(g.n_positions)])  # fmt: skip
        values = exact_stochastic(g, choice, compiled=compiled)
        for start in {0, n - 1, rng.randrange(g.n_positions)}:
            assert values[start] == twin.chain_value(term, tval, choices, pick, pick, start)


def test_random_games_exact_optimum_is_minimax_and_verifies():
    rng = random.Random(99)
    checked = 0
    for _ in range(40):
        g = cyclic_game(rng, rng.randint(2, 4), most=2)
        term, tval, choices = twin.game_lists(g)
        sol = solve_stochastic(g, compiled=False)
        values = exact_stochastic(g, sol.best_choice)
        assert verify_stochastic(g, values) == []
        assert verify_stochastic(g, values, choice=sol.best_choice) == []
        if sol.endless.any():
            continue  # minimax with endless play needs the end-component check too
        assert values[0] == twin.minimax(term, tval, choices, 0)
        checked += 1
    assert checked > 10


@pytest.mark.parametrize("goal", [2, 3, 4, 5, 6])
def test_piglet_exact_against_twins(goal):
    sol = solve_stochastic_model(Piglet(goal=goal))
    g = sol.graph
    term, tval, choices = twin.game_lists(g)
    best = sol.solution.best_choice
    pick = {p: int(best[p] - g.choice_ptr[p]) for p in range(g.n_positions) if best[p] >= 0}
    values = exact_stochastic(g, best)
    assert values[0] == twin.chain_value(term, tval, choices, pick, pick, 0)
    iterated = twin.value_iteration(term, tval, choices)
    assert max(abs(float(values[p]) - iterated[p]) for p in range(g.n_positions)) < 1e-12
    assert verify_stochastic(g, values, choice=best) == []


def test_pig_goal_10_exact_value():
    sol = solve_stochastic_model(Pig(goal=10))
    exact = sol.exact_value()
    assert isinstance(exact, Fraction)
    assert abs(float(exact) - PUBLISHED["pig_goal10_optimal"]) < 1e-12


def test_verifier_rejects_a_wrong_strategy():
    sol = solve_stochastic_model(Pig(goal=10))
    g = sol.graph
    best = sol.solution.best_choice.copy()
    # Hold at once wherever the optimal mover rolls with a turn total of at least 2.
    wrong = best.copy()
    for p in range(g.n_positions):
        c0, c1 = int(g.choice_ptr[p]), int(g.choice_ptr[p + 1])
        if c1 - c0 == 2 and best[p] >= 0:
            wrong[p] = c1 - 1 if best[p] == c0 else c0
    values = exact_stochastic(g, wrong)
    bad = verify_stochastic(g, values, choice=wrong)
    assert bad and all(gain > 0 for _, _, gain in bad)
    for p, c, gain in bad[:20]:
        assert g.chance_value(c, values) - values[p] == gain
    assert verify_stochastic(g, values) == bad  # the choice only skips known ties
    # Through the model: the solution's exact values refuse the wrong pair.
    sol.solution.best_choice = wrong
    sol._exact = None
    with pytest.raises(ModelError, match="exact verification failed"):
        sol.exact_values()


def test_pair_values_are_lazy_fractions():
    g = StochasticGraph.from_lists([False, True], [[[(1, 1, False), (0, 1, True)]], []],
                                   terminal_value=[0, 1], scale=1, draw_value=0)  # fmt: skip
    v = exact_stochastic(g, [0, -1])
    assert isinstance(v, PairValues) and len(v) == 2
    assert v == [Fraction(2, 3), Fraction(1)] and v[-1] == 1 and v[0:1] == [Fraction(2, 3)]
    assert v.floats().tolist() == [2 / 3, 1.0]
    with pytest.raises(ModelError, match="not a choice of position 0"):
        exact_stochastic(g, [5, -1])


def dense_solution(constant, total, ptr, idx, weight):
    """x = (constant + W x) / total by Gauss-Jordan in Fractions (None: singular)."""
    n = len(total)
    a = [[Fraction(0)] * (n + 1) for _ in range(n)]
    for c in range(n):
        a[c][c] += total[c]
        a[c][n] = Fraction(constant[c])
        for e in range(ptr[c], ptr[c + 1]):
            a[c][idx[e]] -= int(weight[e])
    for col in range(n):
        piv = next((r for r in range(col, n) if a[r][col] != 0), None)
        if piv is None:
            return None
        a[col], a[piv] = a[piv], a[col]
        a[col] = [x / a[col][col] for x in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0:
                f = a[r][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
    return [a[c][n] for c in range(n)]


@pytest.mark.parametrize("reduce", [True, False])
def test_chain_values_against_dense_fractions(reduce):
    # Signed chains (a pass is a negative weight) with cycles; each node keeps some
    # weight for leaving, so the chain is proper.
    rng = random.Random(7 + reduce)
    for _ in range(60):
        n = rng.randint(1, 30)
        ptr, idx, weight, total, constant = [0], [], [], [], []
        for _c in range(n):
            outs = [(rng.randrange(n), rng.randint(1, 5) * rng.choice([1, -1]))
                    for _ in range(rng.randint(0, 4))]  # fmt: skip
            idx += [t for t, _ in outs]
            weight += [w for _, w in outs]
            ptr.append(len(idx))
            total.append(sum(abs(w) for _, w in outs) + rng.randint(1, 3))
            constant.append(rng.randint(-(10**30), 10**30))
        args = (constant, total, np.array(ptr), np.array(idx, np.int64), np.array(weight))
        num, den = chain_values(*args, reduce=reduce)
        want = dense_solution(constant, total, ptr, idx, weight)
        assert [Fraction(a, b) for a, b in zip(num, den, strict=True)] == want
        if reduce:
            assert all(Fraction(a, b).denominator == b for a, b in zip(num, den, strict=True))


def test_elimination_order_keeps_hub_fill_small():
    # Pig's shape: a chain of positions that each fall back to one entry position.
    m = 200
    pr, pc = [0], []
    for i in range(m):
        pc += [j for j in (i + 1, i + 2, 0) if j < m and j != i]
        pr.append(len(pc))
    perm, first = _elimination_order(m, pr, pc)
    assert sorted(perm.tolist()) == list(range(m))
    assert int((np.arange(m) - first).sum()) <= 4 * m


def test_exact_values_that_would_not_fit_are_refused_in_one_line(monkeypatch):
    from perfectplay.errors import ResourceLimitError

    sol = solve_stochastic_model(Pig(goal=30))
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "200K")
    with pytest.raises(ResourceLimitError, match=r"exact evaluation of [0-9,]+ positions") as e:
        exact_stochastic(sol.graph, sol.solution.best_choice)
    assert "\n" not in str(e.value)
