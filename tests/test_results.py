"""The result types against independent brute force: value iteration for chance graphs,
plain recursive minimax with remoteness for acyclic game graphs."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest

from perfectplay.graphs.chance import ChanceGraph
from perfectplay.graphs.game import GameGraph, Outcome
from perfectplay.models import UnknownStateError, load_solution
from perfectplay.results import (
    TIE_TOLERANCE,
    ChanceResult,
    ExactValues,
    GameResult,
    Option,
    Result,
    is_tie,
    rank_options,
)
from perfectplay.results.options import best_actions
from perfectplay.solvers.policy_iteration import solve_ssp
from perfectplay.solvers.retrograde import solve_retrograde

# -- the tie rule and the outcome enum -------------------------------------------------------


def test_is_tie_is_relative_above_one_and_absolute_below():
    assert is_tie(1e6, 1e6 * (1 + TIE_TOLERANCE / 2))
    assert not is_tie(1e6, 1e6 * (1 + 3 * TIE_TOLERANCE))
    assert is_tie(0.0, TIE_TOLERANCE / 2) and not is_tie(0.0, 3 * TIE_TOLERANCE)
    assert is_tie(math.inf, math.inf) and not is_tie(math.inf, 1e300)
    assert not is_tie(math.inf, -math.inf)
    for a, b in [(2.0, 2.0 + 1e-10), (5.0, 5.1), (0.3, 0.1 + 0.2)]:
        assert is_tie(a, b) == is_tie(b, a)


def test_outcome_is_the_one_enum_with_words_at_the_edge():
    assert sorted(Outcome) == [Outcome.LOSE, Outcome.DRAW, Outcome.TIE, Outcome.WIN]
    for o in Outcome:
        assert Outcome.parse(str(o)) is o and f"{o}" == o.name.lower()
        assert o.for_opponent().for_opponent() is o
    with pytest.raises(ValueError, match="unknown outcome 'loss'"):
        Outcome.parse("loss")
    assert str(Result(Outcome.WIN, 3)) == "WIN in 3" and str(Result(Outcome.DRAW, None)) == "DRAW"


def test_ranking_marks_ties_and_measures_regret_in_the_objectives_sense():
    ranked = rank_options(["a", "b", "c"], [1.0, 3.0, 3.0], "c", maximise=True)
    assert [o.action for o in ranked] == ["c", "b", "a"]
    assert best_actions(ranked) == ["c", "b"]
    assert [o.regret for o in ranked] == [0.0, 0.0, 2.0]
    ranked = rank_options(["a", "b"], [1.0, 3.0])  # minimise
    assert [(o.action, o.regret, o.best) for o in ranked] == [("a", 0.0, True), ("b", 2.0, False)]
    worst = rank_options(["a", "b"], [-math.inf, 2.0], maximise=True)
    assert [(o.action, o.regret, o.best) for o in worst] == [
        ("b", 0.0, True),
        ("a", math.inf, False),
    ]
    hopeless = rank_options(["a", "b"], [math.inf, math.inf])  # no goal can be reached
    assert [o.best for o in hopeless] == [False, False]


# -- chance results ---------------------------------------------------------------------------


def random_chance_graph(rng: random.Random) -> ChanceGraph:
    """Goal 0; every roll reaches the goal with positive weight, so every value is finite;
    no retry rule, so policy iteration solves it."""
    nd = rng.randint(2, 7)
    nc = rng.randint(1, 5)
    goal = [x == 0 for x in range(nd)]
    choices = [[] if x == 0 else rng.sample(range(nc), rng.randint(1, nc)) for x in range(nd)]
    outcomes = []
    for _ in range(nc):
        targets = {0: rng.randint(1, 4)}
        for y in rng.sample(range(1, nd), rng.randint(0, nd - 1)):
            targets[y] = rng.randint(1, 4)
        outcomes.append(list(targets.items()))
    cost = [rng.randint(1, 3) for _ in range(nc)]
    return ChanceGraph.from_lists(goal, choices, outcomes, start=nd - 1, cost=cost)


def value_iteration(g: ChanceGraph) -> tuple[list[float], list[float]]:
    """Bellman's equation iterated to a fixpoint (the twin: no solver code)."""
    nd, nc = g.n_decision, g.n_chance
    v = [0.0] * nd
    q = [0.0] * nc
    for _ in range(20_000):
        q = []
        for c in range(nc):
            xs, ws = g.outcomes(c)
            total = int(ws.sum())
            future = sum(int(w) * v[int(y)] for y, w in zip(xs, ws, strict=True))
            q.append(int(g.cost[c]) + future / total)
        new = [0.0 if g.goal[x] else min(q[int(c)] for c in g.choices(x)) for x in range(nd)]
        if max(abs(a - b) for a, b in zip(new, v, strict=True)) < 1e-13:
            break
        v = new
    return v, q


def test_chance_result_queries_agree_with_value_iteration(tmp_path):
    rng = random.Random(11)
    for k in range(60):
        g = random_chance_graph(rng)
        r = ChanceResult(g, solve_ssp(g, progress=False))
        v, q = value_iteration(g)
        assert [x for x, _ in r.items()] == list(range(g.n_decision))
        for x, value in r.items():
            assert value == r.value(x) and math.isclose(value, v[x], rel_tol=1e-9), (k, x)
            opts = r.options(x)
            if g.goal[x]:
                assert opts == [] and r.best(x) == [] and r.is_terminal(x)
                continue
            assert sorted(o.choice for o in opts) == sorted(int(c) for c in g.choices(x))
            assert all(isinstance(o, Option) for o in opts)
            assert [o.value for o in opts] == sorted(o.value for o in opts)
            for o in opts:
                assert math.isclose(o.value, q[o.choice], rel_tol=1e-9)
            want = [o.choice for o in opts if abs(q[o.choice] - v[x]) <= 1e-7 * max(1, v[x])]
            assert sorted(r.best(x)) == sorted(want), (k, x)
            assert r.policy(x) in r.best(x)
        ex = r.exact()
        assert isinstance(ex, ExactValues) and ex is r.exact() and len(ex) == g.n_decision
        assert isinstance(ex.value, Fraction) and ex.value == ex[g.start]
        for x in range(g.n_decision):
            assert math.isclose(float(ex[x]), v[x], rel_tol=1e-9)
        if k % 10 == 0:
            path = r.export(tmp_path / f"g{k}", exact=True)
            table = load_solution(path)
            assert table.start_value == r.value() and table.exact_value() == ex.value
            assert list(table.items()) == list(r.items())
            for x in range(g.n_decision):
                assert table.options(x) == r.options(x) and table.best(x) == r.best(x)
                assert table.exact_value(x) == ex[x]
            with pytest.raises(UnknownStateError, match=f"{g.n_decision} is not in the table"):
                table.value(g.n_decision)


def test_distribution_quantile_and_simulation_agree():
    # one die until a six: P(done within k rolls) = 1 - (5/6)^k
    g = ChanceGraph.from_lists([False, True, False], [[0], [], [0]], [[(1, 1), (2, 5)]])
    r = ChanceResult(g, solve_ssp(g, progress=False))
    dist = r.distribution(30)
    assert np.allclose(dist, [1 - (5 / 6) ** k for k in range(31)])
    for q in (0.1, 0.5, 0.9, 0.99):
        k = r.quantile(q)
        assert dist[k] >= q and (k == 0 or dist[k - 1] < q)
    runs = r.simulate(20_000, seed=3)
    assert runs.min() >= 1 and abs(runs.mean() - 6.0) < 5 * runs.std() / math.sqrt(runs.size)
    assert (r.simulate(100, seed=4) == r.simulate(100, seed=4)).all()  # seeded


# -- game results -----------------------------------------------------------------------------


def random_dag(rng: random.Random) -> GameGraph:
    n = rng.randint(1, 9)
    moves = [sorted(rng.sample(range(p + 1, n), rng.randint(0, n - p - 1))) for p in range(n)]
    terminal = [
        rng.choice([0, 0, Outcome.WIN, Outcome.LOSE, Outcome.TIE]) if rng.random() < 0.3 else 0
        for _ in range(n)
    ]
    return GameGraph.from_lists(moves, terminal)


def minimax(g: GameGraph, p: int, memo: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """(score, remoteness) for the mover: score 1 win, 0 tie, -1 lose; wins hurry, losses
    delay, ties hurry (an acyclic game has no draw)."""
    if p in memo:
        return memo[p]
    t = int(g.terminal[p])
    if t:
        out = ({int(Outcome.WIN): 1, int(Outcome.TIE): 0, int(Outcome.LOSE): -1}[t], 0)
    elif len(g.moves(p)) == 0:
        out = (-1, 0)
    else:
        kids = [minimax(g, int(c), memo) for c in g.moves(p)]
        best = max(-s for s, _ in kids)
        rems = [r + 1 for s, r in kids if -s == best]
        out = (best, max(rems) if best < 0 else min(rems))
    memo[p] = out
    return out


WORD = {1: Outcome.WIN, 0: Outcome.TIE, -1: Outcome.LOSE}


def test_game_result_queries_agree_with_minimax(tmp_path):
    rng = random.Random(5)
    for k in range(200):
        g = random_dag(rng)
        r = GameResult(g, solve_retrograde(g))
        memo: dict[int, tuple[int, int]] = {}
        tally = dict.fromkeys(Outcome, 0)
        for p, value in r.items():
            s, rem = minimax(g, p, memo)
            assert value == r.value(p) == Result(WORD[s], rem), (k, p)
            tally[value.value] += 1
            opts = r.options(p)
            if g.terminal[p]:
                assert opts == [] and r.best(p) == []
                continue
            assert sorted(m.move for m in opts) == sorted(int(c) for c in g.moves(p))
            for m in opts:
                cs, cr = minimax(g, m.move, memo)
                assert m.value == Result(WORD[-cs], cr + 1) and m.state == m.action
            if opts:
                assert opts[0].value == value and opts[0].best
                assert all(opts[0].value == r.move_value(b) for b in r.best(p))
        assert r.counts() == tally
        if k % 25 == 0:
            table = load_solution(r.export(tmp_path / f"g{k}.npz"))
            assert table.counts() == tally and list(table.items()) == list(r.items())
            for p in range(g.n_positions):
                assert table.options(p) == r.options(p) and table.best(p) == r.best(p)


def test_loopy_game_values_are_draws_without_remoteness():
    g = GameGraph.from_lists([[1], [0]])  # two positions passing the turn forever
    r = GameResult(g, solve_retrograde(g))
    assert r.value() == Result(Outcome.DRAW, None) and r.best(0) == [1]
    assert [(o.action, o.value) for o in r.options(0)] == [(1, Result(Outcome.DRAW, None))]
