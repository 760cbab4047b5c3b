"""Cycles of any size: solve_ssp and exact_solution on large strongly connected components.

Oracles, each independent of the code under test:

* the symmetric random walk on 0..n (both ends terminal, one roll per step): the expected
  number of steps from k is ``k (n - k)`` (the gambler's ruin duration);
* :mod:`tests.twins.large_cycles`: vectorised value iteration (random cyclic graphs of
  4,000 to 20,000 rolls, each policy's graph one component because every choice keeps a
  ring edge), and the exact Bellman equations in fractions (small graphs);
* NumPy's dense solve for the linear systems of one component, against each of the three
  component methods (sparse LU, dense LU, Gauss-Seidel), compiled and interpreted.

Tolerances: 1e-9 relative against value iteration and dense solves (the documented
agreement of floats with exact values); exact values are compared exactly.
"""

from __future__ import annotations

import importlib.util
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from perfectplay.analysis.exact import exact_solution
from perfectplay.errors import ResourceLimitError
from perfectplay.graphs.chance import ChanceGraph
from perfectplay.objectives import Objective
from perfectplay.solvers import solve_chance
from perfectplay.solvers.policy_iteration import solve_component, solve_ssp

_spec = importlib.util.spec_from_file_location(
    "large_cycles", Path(__file__).resolve().parent.parent / "twins" / "large_cycles.py"
)
twin = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(twin)  # type: ignore[union-attr]

REL = 1e-9


def walk(n: int) -> ChanceGraph:
    """Decision nodes 0..n, 0 and n terminal; node k rolls k-1 (one roll per node): a
    fair step to k - 1 or k + 1."""
    goal = [k in (0, n) for k in range(n + 1)]
    choices = [[] if goal[k] else [k - 1] for k in range(n + 1)]
    outcomes = [[(k - 1, 1), (k + 1, 1)] for k in range(1, n)]
    return ChanceGraph.from_lists(goal, choices, outcomes, start=n // 2)


def random_cycle(
    rng: random.Random,
    n: int,
    *,
    n_choices: int = 2,
    exit_weight: tuple[int, int] = (1, 3),
    costs: tuple[int, int] = (1, 4),
    objective: Objective | None = None,
    values: tuple[int, int] = (0, 0),
) -> ChanceGraph:
    """n decision nodes on a ring, each with ``n_choices`` rolls; every roll steps to the
    next node on the ring, to a few random nodes, and (half of them) to one of two
    terminals. The ring edge in every roll makes every policy's graph one component."""
    terminal = [False] * n + [True, True]
    choices, outcomes, cost = [], [], []
    for x in range(n):
        ids = []
        for _ in range(n_choices):
            ids.append(len(outcomes))
            outs = [((x + 1) % n, rng.randint(1, 5))]
            outs += [(rng.randrange(n), rng.randint(1, 5)) for _ in range(rng.randint(1, 5))]
            if rng.random() < 0.5:
                outs.append((n + rng.randrange(2), rng.randint(*exit_weight)))
            outcomes.append(outs)
            cost.append(rng.randint(*costs))
        choices.append(ids)
    choices += [[], []]
    kw = {} if objective is None else {"objective": objective}
    return ChanceGraph.from_lists(
        terminal=terminal, terminal_value=[0] * n + [rng.randint(*values), rng.randint(*values)],
        choices=choices, outcomes=outcomes, cost=cost, start=0, **kw,
    )  # fmt: skip


def assert_close(got, want, what: str) -> None:
    np.testing.assert_allclose(np.asarray(got, float), np.asarray(want, float), rtol=REL,
                               atol=REL, err_msg=what)  # fmt: skip


# ---------------------------------------------------------------- the random walk


def test_random_walk_of_5000_states_floats_and_exact():
    n = 5000
    g = walk(n)
    want = [k * (n - k) for k in range(n + 1)]
    sol = solve_ssp(g)
    assert_close(sol.decision_value, want, "gambler's ruin durations")
    ex = exact_solution(g, sol)
    assert [ex.decision_value(k) for k in range(n + 1)] == want


# ---------------------------------------------------------------- random cyclic graphs


@pytest.mark.parametrize(("n", "seed"), [(4000, 1), (9000, 2), (20000, 3)])
def test_random_cycles_against_value_iteration(n, seed):
    g = random_cycle(random.Random(seed), n)
    sol = solve_ssp(g)
    want_d, want_c = twin.value_iteration(g)
    assert_close(sol.chance_value, want_c, "rolls")
    assert_close(sol.decision_value, want_d, "decisions")
    # The policy picks a roll worth the node's value.
    live = ~g.terminal
    assert_close(sol.chance_value[sol.best_choice[live]], want_d[live], "policy")


def test_random_cycles_exact_values_satisfy_the_bellman_equations():
    rng = random.Random(11)
    for case in range(12):
        n = rng.randint(5, 60)
        objective = [None, Objective.score(), Objective.score("min")][case % 3]
        g = random_cycle(rng, n, costs=(0, 3), objective=objective, values=(-4, 9))
        sol = solve_ssp(g)
        ex = exact_solution(g, sol)
        chance = [ex.chance_value(c) for c in range(g.n_chance)]
        assert None not in chance
        assert twin.bellman_residuals_exact(g, chance) == [], f"case {case}"
        assert_close([float(v) for v in chance], sol.chance_value, f"case {case}")


def test_exact_values_of_a_large_wide_cycle_match_the_floats():
    # Wide: the elimination fills almost everything (the old exact limit was 150 rolls).
    g = random_cycle(random.Random(5), 200, n_choices=1)
    sol = solve_ssp(g)
    ex = exact_solution(g, sol)
    assert_close([float(ex.chance_value(c)) for c in range(g.n_chance)], sol.chance_value, "exact")


def test_negative_oriented_cost_on_a_transient_roll():
    # Maximise the score: roll 0 (at the start only) pays 7 once and leads into a cycle of
    # zero-cost rolls, whose exits are worth 0 or 12; roll 1 skips the reward.
    rng = random.Random(3)
    inner = random_cycle(rng, 30, n_choices=2, costs=(0, 0), values=(0, 0))
    n = inner.n_decision
    terminal = inner.terminal.tolist() + [False]
    values = [0] * (n - 2) + [0, 12, 0]
    xs = [inner.choices(x).tolist() for x in range(n)] + [[inner.n_chance, inner.n_chance + 1]]
    outcomes = [list(zip(*inner.outcomes(c), strict=True)) for c in range(inner.n_chance)]
    outcomes = [[(int(x), int(w)) for x, w in o] for o in outcomes]
    outcomes += [[(0, 1), (5, 1)], [(1, 1)]]
    g = ChanceGraph.from_lists(
        terminal=terminal, terminal_value=values, choices=xs, outcomes=outcomes,
        cost=[0] * inner.n_chance + [7, 0], start=n, objective=Objective.score(),
    )  # fmt: skip
    assert g.cost.max() > 0 and g.objective.orient == -1  # a negative oriented cost
    sol = solve_ssp(g)
    want_d, want_c = twin.value_iteration(g)
    assert_close(sol.chance_value, want_c, "rolls")
    assert sol.best_choice[n] == inner.n_chance  # the reward is worth taking
    ex = exact_solution(g, sol)
    chance = [ex.chance_value(c) for c in range(g.n_chance)]
    assert twin.bellman_residuals_exact(g, chance) == []
    assert ex.value == chance[inner.n_chance] and ex.value > 7


# ---------------------------------------------------------------- one component's methods


def component_system(rng: np.random.Generator, m: int, band: int, extra: int):
    """A random component: each row steps to rows within ``band`` and to ``extra`` random
    rows, keeps some weight for leaving; returns the CSR system and its dense matrix."""
    rows, cols = [], []
    for i in range(m):
        near = [(i + d) % m for d in range(1, band + 1)] + [(i - d) % m for d in range(1, band + 1)]
        for j in near + rng.integers(0, m, extra).tolist():
            if j != i:
                rows.append(i)
                cols.append(j)
    rows_a, cols_a = np.array(rows), np.array(cols, np.int32)
    w = rng.integers(1, 6, rows_a.size).astype(float)
    out = rng.integers(1, 4, m).astype(float)
    total = np.bincount(rows_a, weights=w, minlength=m) + out
    q = w / total[rows_a]
    diag = np.ones(m)
    ptr = np.zeros(m + 1, np.int64)
    np.cumsum(np.bincount(rows_a, minlength=m), out=ptr[1:])
    rhs = rng.integers(0, 5, m).astype(float)
    a = np.eye(m)
    np.subtract.at(a, (rows_a, cols_a), q)
    return (diag, rhs, ptr, cols_a, q), a


@pytest.mark.parametrize("method", ["sparse", "dense", "gauss-seidel", "auto"])
def test_a_2000_roll_cycle_matches_the_dense_solve(method):
    system, a = component_system(np.random.default_rng(7), 2000, band=2, extra=0)
    want = np.linalg.solve(a, system[1])
    assert_close(solve_component(*system, method=method), want, method)


@pytest.mark.parametrize("method", ["sparse", "gauss-seidel"])
def test_compiled_and_interpreted_kernels_agree(method):
    system, a = component_system(np.random.default_rng(8), 300, band=3, extra=1)
    want = np.linalg.solve(a, system[1])
    slow = solve_component(*system, method=method, compiled=False)
    fast = solve_component(*system, method=method, compiled=True)
    assert_close(slow, want, "interpreted")
    np.testing.assert_allclose(slow, fast, rtol=1e-13)


def test_a_wide_cycle_that_mixes_slowly_is_refused_with_the_option_named():
    rng = random.Random(9)
    g = random_cycle(rng, 6000, n_choices=1, exit_weight=(1, 1))
    with pytest.raises(ResourceLimitError, match=r"6,000 rolls.*--max-sweeps"):
        solve_ssp(g, max_sweeps=8)
    with pytest.raises(ResourceLimitError, match=r"6,000 rolls.*--max-sweeps"):
        solve_chance(g, method="policy-iteration", max_sweeps=8)  # the entry point passes it on
    assert np.isfinite(solve_ssp(g).value)  # the default budget is enough


def test_a_cycle_whose_factors_do_not_fit_is_refused(monkeypatch):
    system, _ = component_system(np.random.default_rng(1), 5000, band=1, extra=0)
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "64K")
    with pytest.raises(ResourceLimitError, match="5,000 rolls .sparse LU"):
        solve_component(*system)


def test_an_almost_closed_cycle_keeps_its_relative_accuracy():
    # n rolls in a row, each on to the next (999) or back to the start (1): the expected
    # number of rolls to pass all n is ((1000/999)**n - 1) * 1000, about 5e11 for
    # n = 20,000. The system's condition number is of that order, so an elimination
    # that subtracts loses most digits; the subtraction-free one must not.
    n = 20_000
    g = ChanceGraph.from_lists(
        [False] * n + [True], [[i] for i in range(n)] + [[]],
        [[(i + 1, 999), (0, 1)] for i in range(n)],
    )  # fmt: skip
    want = float((Fraction(1000, 999) ** n - 1) * 1000)
    assert solve_ssp(g).value == pytest.approx(want, rel=1e-12)


def test_a_ring_of_5000_rolls_exactly():
    # Every value has a denominator of about 2**5000 here (1 - 2**-n), so the run time is
    # the gcds of the lowest terms; benchmarks/bench_core.py times 50,000 rolls.
    n = 5000
    g = ChanceGraph.from_lists(
        [False] * n + [True], [[i] for i in range(n)] + [[]],
        [[((i + 1) % n, 1), (n, 1)] for i in range(n)],
        cost=[1 + i % 3 for i in range(n)],
    )  # fmt: skip
    sol = solve_ssp(g)
    ex = exact_solution(g, sol)
    # V(i) = cost(i) + V(i+1) / 2 round the ring, checked exactly.
    v = [ex.chance_value(i) for i in range(n)]
    assert all(v[i] == 1 + i % 3 + v[(i + 1) % n] / 2 for i in range(n))
    assert_close([float(x) for x in v[:100]], sol.chance_value[:100], "floats")
    assert isinstance(ex.value, Fraction)


def test_the_command_line_option_max_sweeps():
    model = "perfectplay.examples.chutes_ladders:ChutesAndLadders"
    cmd = [sys.executable, "-m", "perfectplay", "solve", model, "-q"]
    ok = subprocess.run([*cmd, "--max-sweeps", "50"], capture_output=True, text=True)
    assert ok.returncode == 0 and "start value: 39.225122308" in ok.stdout
    bad = subprocess.run([*cmd, "--max-sweeps", "0"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "--max-sweeps must be 1.." in bad.stderr
    other = subprocess.run([*cmd, "--max-endless", "9"], capture_output=True, text=True)
    assert other.returncode == 2
    assert "--max-endless applies to two-player dice games" in other.stderr
