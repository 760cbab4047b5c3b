"""Objectives, terminal values, zero costs and the solve_chance dispatcher, against the
value-iteration twin (tests/twins/chance_value_iteration.py) on random small graphs."""

from __future__ import annotations

import importlib.util
import math
import random
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from perfectplay.analysis.distribution import cost_distribution
from perfectplay.analysis.exact import exact_solution
from perfectplay.analysis.simulate import simulate
from perfectplay.errors import UnsupportedObjectiveError
from perfectplay.graphs.chance import ChanceGraph
from perfectplay.objectives import MIN_COST, Objective
from perfectplay.solvers import solve_chance
from perfectplay.solvers.retry import solve_retry

_spec = importlib.util.spec_from_file_location(
    "chance_value_iteration",
    Path(__file__).resolve().parent.parent / "twins" / "chance_value_iteration.py",
)
twin = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(twin)  # type: ignore[union-attr]

N_GRAPHS = 200


def random_graph(
    rng: random.Random,
    objective: Objective = MIN_COST,
    costs: tuple[int, int] = (0, 3),
    values: tuple[int, int] = (-3, 6),
    retry: bool | None = None,
    explicit_retry: bool = False,
) -> ChanceGraph:
    """A small random graph; terminal values in ``values``, costs in ``costs``."""
    nd = rng.randint(2, 7)
    nc = rng.randint(1, 5)
    terminal = [False] + [rng.random() < 0.35 for _ in range(nd - 1)]
    if not any(terminal):
        terminal[rng.randrange(1, nd)] = True
    tvals = [rng.randint(*values) if t else 0 for t in terminal]
    outcomes = [
        [(rng.randrange(nd), rng.randint(1, 4)) for _ in range(rng.randint(1, 3))]
        for _ in range(nc)
    ]
    choices = [
        [] if terminal[x] else sorted(rng.sample(range(nc), rng.randint(1, min(2, nc))))
        for x in range(nd)
    ]
    if explicit_retry:
        for c, outs in enumerate(outcomes):
            for x, _ in outs:
                if not terminal[x] and c not in choices[x]:
                    choices[x].append(c)
    if rng.random() < 0.1 and not explicit_retry:
        choices[rng.randrange(1, nd)] = [] if not terminal[-1] else choices[-1]
    return ChanceGraph.from_lists(
        terminal=terminal,
        terminal_value=tvals,
        choices=choices,
        outcomes=outcomes,
        cost=[rng.randint(*costs) for _ in range(nc)],
        retry=rng.random() < 0.5 if retry is None else retry,
        objective=objective,
    )


def close(a: float, b: float, rel: float = 1e-7) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= rel * (1.0 + abs(a) + abs(b))


def assert_matches_twin(g: ChanceGraph, sol) -> None:
    want_d, want_c = twin.values(g)
    for x, (got, want) in enumerate(zip(sol.decision_value.tolist(), want_d, strict=True)):
        assert close(got, want), (x, got, want, g)
    for c, (got, want) in enumerate(zip(sol.chance_value.tolist(), want_c, strict=True)):
        assert close(got, want), (c, got, want, g)


def label_setting_applies(g: ChanceGraph) -> bool:
    """Label-setting's conditions, read from plain lists (not the package's check)."""
    term, _, choices, outcomes, costs = twin.lists(g)
    retry_ok = g.retry or all(
        term[x] or c in choices[x] for c, outs in enumerate(outcomes) for x, _ in outs
    )
    tvs = {v for t, v in zip(term, twin.lists(g)[1], strict=True) if t}
    retry_ok = retry_ok and (g.retry or len(tvs) <= 1)
    return g.objective.sense == "min" and all(k > 0 for k in costs) and retry_ok


def auto_method(g):
    """What ``method="auto"`` must pick: label-setting where its proof holds, else
    backward induction on an acyclic graph, else policy iteration."""

    if label_setting_applies(g):
        return "label-setting"
    return "policy-iteration" if g.acyclic_order() is None else "backward-induction"


def test_min_cost_with_zero_costs_and_terminal_values():
    rng = random.Random(11)
    for _ in range(N_GRAPHS):
        g = random_graph(rng, costs=(0, 2))
        sol = solve_chance(g)
        assert_matches_twin(g, sol)
        assert sol.method == auto_method(g)


def test_max_score_with_terminal_values_zero_costs_and_cycles():
    rng = random.Random(12)
    cyclic = 0
    for _ in range(N_GRAPHS):
        g = random_graph(rng, Objective.score(), costs=(0, 0))
        sol = solve_chance(g)
        assert sol.method == auto_method(g)
        assert_matches_twin(g, sol)
        # Values are the terminal values reachable: never above the best one.
        fin = sol.decision_value[np.isfinite(sol.decision_value)]
        assert fin.size == 0 or fin.max() <= g.terminal_value.max() + 1e-9
        cyclic += any(x == 0 for outs in twin.lists(g)[3] for x, _ in outs)
    assert cyclic > 20  # many graphs lead back to the start


def test_max_probability_where_every_play_can_end():
    rng = random.Random(13)
    seen = 0
    while seen < 60:
        g = random_graph(rng, Objective.probability(), costs=(0, 0), values=(0, 1))
        if not all(twin.can_end(g)[0]):
            # Acyclic graphs, and cyclic ones without the retry rule, count an endless
            # play as 0 (test_objective_twins.py checks them).
            if auto_method(g) == "policy-iteration" and g.retry:
                with pytest.raises(UnsupportedObjectiveError, match="endless"):
                    solve_chance(g)
            continue
        seen += 1
        sol = solve_chance(g)
        assert_matches_twin(g, sol)
        assert ((sol.decision_value >= -1e-12) & (sol.decision_value <= 1 + 1e-12)).all()


def test_auto_picks_label_setting_exactly_when_its_proof_holds():
    rng = random.Random(14)
    picked = {"label-setting": 0, "policy-iteration": 0, "backward-induction": 0}
    for i in range(N_GRAPHS):
        objective = MIN_COST if i % 4 else Objective.score(sense="min")
        g = random_graph(rng, objective, costs=(0, 2) if i % 3 else (1, 3),
                         explicit_retry=i % 2 == 0)  # fmt: skip
        sol = solve_chance(g)
        want = auto_method(g)
        assert sol.method == want
        picked[want] += 1
        assert_matches_twin(g, sol)
    assert min(picked["label-setting"], picked["policy-iteration"]) > 30


def test_forcing_label_setting_where_its_proof_fails_raises():
    rng = random.Random(15)
    for _ in range(50):
        g = random_graph(rng, Objective.score(), costs=(0, 0), retry=True)
        with pytest.raises(UnsupportedObjectiveError, match="maximises"):
            solve_chance(g, method="label-setting")
        g = random_graph(rng, costs=(0, 0), retry=True)
        with pytest.raises(UnsupportedObjectiveError, match="costs 0"):
            solve_chance(g, method="label-setting")
        g = random_graph(rng, costs=(1, 2), retry=True)
        assert solve_chance(g, method="label-setting").method == "label-setting"


def test_unsupported_objectives_raise_one_line():
    rng = random.Random(16)
    g = random_graph(rng, Objective.score(), costs=(1, 1))
    with pytest.raises(UnsupportedObjectiveError, match="unbounded") as err:
        solve_chance(g)
    assert "\n" not in str(err.value)
    g = random_graph(rng, Objective.probability(sense="min"), costs=(0, 0), values=(0, 1),
                     retry=True)  # fmt: skip
    with pytest.raises(UnsupportedObjectiveError, match="probability"):
        solve_chance(g)
    with pytest.raises(ValueError, match="unknown method"):
        solve_chance(g, method="dijkstra")


@pytest.mark.parametrize("objective", [MIN_COST, Objective.score()], ids=["min", "max"])
def test_exact_solution_verifies_and_matches_the_twin(objective):
    rng = random.Random(17)
    for _ in range(N_GRAPHS):
        costs = (0, 3) if objective.sense == "min" else (0, 0)
        g = random_graph(rng, objective, costs=costs)
        sol = solve_chance(g)
        ex = exact_solution(g, sol, improve=True)
        want_d, want_c = twin.values(g)
        for c, want in enumerate(want_c):
            got = ex.chance_value(c)
            assert (got is None) == math.isinf(want), (c, got, want)
            if got is not None:
                assert close(float(got), want)
        for x, want in enumerate(want_d):
            got = ex.decision_value(x)
            if got is not None:
                assert close(float(got), want)


def test_exact_solution_rejects_a_worse_policy_under_max():
    g = ChanceGraph.from_lists(
        terminal=[False, True, True, True], terminal_value=[0, 2, 0, 5],
        choices=[[0, 1], [], [], []], outcomes=[[(1, 1)], [(2, 1), (3, 1)]], cost=[0, 0],
        objective=Objective.score(),
    )  # fmt: skip
    sol = solve_chance(g)
    assert exact_solution(g, sol).value == Fraction(5, 2)
    worse = type(sol)(g, sol.decision_value, sol.chance_value,
                      np.array([0, -1, -1, -1], np.int32), sol.accept)  # fmt: skip
    from perfectplay.analysis.exact import VerificationError

    with pytest.raises(VerificationError, match="better"):
        exact_solution(g, worse)


def test_fractional_values_keep_exact_scale():
    g = ChanceGraph.from_lists(
        terminal=[False, True, True], terminal_value=[0, Fraction(1, 3), Fraction(1, 2)],
        choices=[[0], [], []], outcomes=[[(1, 1), (2, 1)]], cost=[Fraction(1, 4)],
    )  # fmt: skip
    assert g.scale == 12
    ex = exact_solution(g, solve_chance(g))
    assert ex.value == Fraction(1, 4) + Fraction(1, 2) * (Fraction(1, 3) + Fraction(1, 2))


def test_distribution_and_simulation_on_terminal_values_match_the_twin():
    rng = random.Random(18)
    checked = 0
    while checked < N_GRAPHS:
        g = random_graph(rng, costs=(1, 3), values=(0, 4))
        sol = solve_chance(g)
        if not math.isfinite(sol.value):
            continue
        checked += 1
        cdf = cost_distribution(g, sol, 12)
        want = twin.outcome_cdf(g, sol.best_choice.tolist(), sol.accept.tolist(), 12)
        assert np.allclose(cdf, want, atol=1e-12), (cdf, want)
        if checked % 10 == 0:
            runs = simulate(g, sol, runs=4000, seed=checked)
            assert runs.min() >= 0
            emp = [(runs <= k).mean() for k in range(13)]
            assert np.allclose(emp, want, atol=0.05)
            spread = runs.std() / math.sqrt(runs.size)
            assert abs(runs.mean() - sol.value) < 5 * spread + 1e-9


def test_distribution_and_simulation_refuse_unsupported_objectives():
    rng = random.Random(19)
    g = random_graph(rng, Objective.score(), costs=(0, 0))
    sol = solve_chance(g)
    with pytest.raises(UnsupportedObjectiveError, match="maximise"):
        cost_distribution(g, sol, 3)
    with pytest.raises(UnsupportedObjectiveError, match="maximise"):
        simulate(g, sol, 3, 1)
    g = random_graph(rng, costs=(0, 0))
    with pytest.raises(UnsupportedObjectiveError, match="costs 0"):
        cost_distribution(g, solve_chance(g), 3)


def test_validate_accepts_zero_and_negative_costs():
    g = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]], cost=[-1])
    assert solve_chance(g).value == -1.0
    g = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]], cost=[0])
    assert solve_chance(g).value == 0.0
    with pytest.raises(ValueError, match="numerators"):
        ChanceGraph(
            terminal=g.terminal, terminal_value=np.array([0.0, 0.5]), choice_ptr=g.choice_ptr,
            choice_idx=g.choice_idx, outcome_ptr=g.outcome_ptr, outcome_idx=g.outcome_idx,
            outcome_weight=g.outcome_weight, cost=g.cost,
        ).validate()  # fmt: skip
    assert g.goal is g.terminal


@pytest.mark.slow
def test_label_setting_on_a_million_edge_retry_graph():
    # A chain: roll i lands on i + 1 or stays (weight 1 each); the retry rule is implicit.
    n = 340_000
    nxt = np.arange(1, n + 1, dtype=np.int32)
    outcome_idx = np.stack([nxt, nxt - 1], axis=1).ravel()
    g = ChanceGraph(
        terminal=np.arange(n + 1) == n,
        choice_ptr=np.minimum(np.arange(n + 2), n).astype(np.int64),
        choice_idx=np.arange(n, dtype=np.int32),
        outcome_ptr=np.arange(0, 2 * n + 1, 2, dtype=np.int64),
        outcome_idx=outcome_idx,
        outcome_weight=np.ones(2 * n, np.int64),
        cost=np.ones(n, np.int64),
        start=0,
        retry=True,
    )
    g.validate()
    assert g.n_edges >= 1_000_000
    t0 = time.perf_counter()
    sol = solve_chance(g)
    elapsed = time.perf_counter() - t0
    assert sol.method == "label-setting"
    assert sol.value == pytest.approx(2.0 * n)
    assert elapsed < 30.0
    low = solve_retry(g)  # the algorithm stays importable and agrees with the dispatcher
    assert np.array_equal(low.decision_value, sol.decision_value)


def test_objective_wording_and_helpers():
    assert MIN_COST == Objective.cost() and MIN_COST.describe() == "minimise expected rolls"
    best = Objective.score(unit="points")
    assert best.describe() == "maximise expected points" and best.noun == "expected points"
    assert best.better(2, 1) and not MIN_COST.better(2, 1) and best.prefers(1, 1)
    assert best.best_of([3, 9, 4]) == 9 and MIN_COST.best_of([3, 9, 4]) == 3
    assert (MIN_COST.endless, best.endless) == (math.inf, -math.inf)
    with pytest.raises(ValueError, match="sense"):
        Objective("most")  # type: ignore[arg-type]


def test_graphs_are_immutable_and_pickle():
    import copy
    import pickle

    g = random_graph(random.Random(20), Objective.score(), costs=(0, 0))
    with pytest.raises(AttributeError, match="immutable"):
        g.start = 1  # type: ignore[misc]
    for h in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g)):
        assert h.objective == g.objective and h.scale == g.scale
        assert np.array_equal(h.terminal_value, g.terminal_value)
        assert solve_chance(h).value == solve_chance(g).value
