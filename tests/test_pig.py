"""Pig and Piglet (perfectplay.examples.pig) against the published values in tests/data/pig
(see its PROVENANCE.md), independent twins, the command line and bad input."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest

from perfectplay.errors import ModelError
from perfectplay.examples.pig import Pig, Piglet, hold_at, hold_at_20, hold_table
from perfectplay.models import model_kind, solve_model
from perfectplay.models.stochastic import explore_stochastic, solve_stochastic_model

DATA = Path(__file__).resolve().parent / "data" / "pig"
PUBLISHED = json.loads((DATA / "published.json").read_text())

_spec = importlib.util.spec_from_file_location(
    "stochastic_game", Path(__file__).resolve().parent / "twins" / "stochastic_game.py"
)
twin = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(twin)  # type: ignore[union-attr]


@cache
def pig100():
    return solve_stochastic_model(Pig(goal=100))


def test_pig_goal_100_both_optimal():
    sol = pig100()
    assert abs(sol.start_value - PUBLISHED["pig_goal100_optimal"]) <= 1e-9
    assert sol.solution.bound <= 1e-11
    assert model_kind(Pig()) == "stochastic"


def test_pig_goal_10_and_piglet_goal_10():
    assert abs(solve_model(Pig(goal=10)).start_value - PUBLISHED["pig_goal10_optimal"]) <= 1e-9
    got = solve_model(Piglet(goal=10)).start_value
    assert abs(got - PUBLISHED["piglet_goal10_optimal"]) <= 1e-9


@pytest.mark.parametrize("goal", [3, 6, 9])
@pytest.mark.parametrize("hold_at_zero", [False, True])
def test_piglet_hold_tables(goal, hold_at_zero):
    sol = solve_stochastic_model(Piglet(goal=goal, hold_at_zero=hold_at_zero))
    assert hold_table(sol, goal) == PUBLISHED["piglet_hold_tables"][str(goal)]


def test_holding_at_zero_changes_no_value():
    a = solve_stochastic_model(Pig(goal=12))
    b = solve_stochastic_model(Pig(goal=12, hold_at_zero=True))
    for state, p in a.exploration.ids.items():
        assert abs(b.value(state) - a.solution.value[p]) <= 1e-11


def test_hold_at_20_against_itself():
    sol = solve_stochastic_model(Pig(), first=hold_at_20, second=hold_at_20)
    assert abs(sol.start_value - PUBLISHED["pig_goal100_hold20_both"]) <= 1e-9


@pytest.mark.parametrize("goal", [2, 3, 4])
def test_piglet_small_goals_against_value_iteration(goal):
    sol = solve_stochastic_model(Piglet(goal=goal))
    term, tval, choices = twin.game_lists(sol.graph)
    want = twin.value_iteration(term, tval, choices)
    assert max(abs(a - b) for a, b in zip(sol.solution.value.tolist(), want, strict=True)) < 1e-9
    exact = sol.exact_value()
    assert abs(float(exact) - want[0]) < 1e-12


def test_piglet_goal_2_against_exhaustive_minimax():
    sol = solve_stochastic_model(Piglet(goal=2))
    term, tval, choices = twin.game_lists(sol.graph)
    assert sol.exact_value() == twin.minimax(term, tval, choices, 0)


def _pig_best_response(goal, faces, fixed, first_is_free):
    """Independent twin: Pig in absolute form (scores of the free and the fixed player),
    Jacobi value iteration from 0 of the free player's winning chance."""
    states = [
        (a, b, k, w)
        for a in range(goal)
        for b in range(goal)
        for w in (0, 1)
        for k in range(goal - (a if w == 0 else b))
    ]
    v = dict.fromkeys(states, 0.0)

    def val(a, b, k, w):
        if w == 0 and a + k >= goal:
            return 1.0
        if w == 1 and b + k >= goal:
            return 0.0
        return v[(a, b, k, w)]

    for _ in range(5000):
        new = {}
        for a, b, k, w in states:
            if w == 0:
                roll = val(a, b, 0, 1) + sum(val(a, b, k + f, 0) for f in range(2, faces + 1))
                options = [roll / faces] + ([val(a + k, b, 0, 1)] if k else [])
                new[(a, b, k, w)] = max(options)
            else:
                move = fixed((b, a, k))
                if move == "hold":
                    new[(a, b, k, w)] = val(a, b + k, 0, 0)
                else:
                    rolls = val(a, b, 0, 0) + sum(val(a, b, k + f, 1) for f in range(2, faces + 1))
                    new[(a, b, k, w)] = rolls / faces
        done = max(abs(new[s] - v[s]) for s in states) < 1e-14
        v = new
        if done:
            break
    return v[(0, 0, 0, 0 if first_is_free else 1)]


@pytest.mark.parametrize("free_first", [True, False])
def test_best_response_to_hold_at_3(free_first):
    h = hold_at(3)
    goal, faces = 8, 4
    if free_first:
        sol = solve_stochastic_model(Pig(goal=goal, faces=faces), second=h)
        want = _pig_best_response(goal, faces, h, True)
        assert abs(sol.start_value - want) < 1e-9
    else:
        sol = solve_stochastic_model(Pig(goal=goal, faces=faces), first=h)
        want = _pig_best_response(goal, faces, h, False)
        assert abs((1 - sol.start_value) - want) < 1e-9
    pair = solve_stochastic_model(Pig(goal=goal, faces=faces), first=h, second=h).start_value
    assert (sol.start_value >= pair) if free_first else (sol.start_value <= pair)


def test_exact_values_are_verified_fractions():
    sol = solve_stochastic_model(Pig(goal=6, faces=3))
    exact = sol.exact_value()
    assert isinstance(exact, Fraction) and abs(float(exact) - sol.start_value) < 1e-12
    pair = solve_stochastic_model(Pig(goal=6, faces=3), first=hold_at(2), second=hold_at(2))
    assert abs(float(pair.exact_value()) - pair.start_value) < 1e-12


@pytest.mark.parametrize("model", [Pig(goal=10), Piglet(goal=6)])
def test_seeded_simulation_within_four_standard_errors(model):
    sol = solve_stochastic_model(model)
    results = sol.simulate(4000, seed=11)
    se = results.std(ddof=1) / len(results) ** 0.5
    assert abs(results.mean() - sol.start_value) <= 4 * se
    assert (sol.simulate(50, seed=2) == sol.simulate(50, seed=2)).all()


class _Model:
    start = 0

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def moves(self, s):
        return ["go"]


def test_bad_models_are_refused_naming_the_state():
    float_weight = _Model(outcome=lambda s: None, chances=lambda s, m: [(1, 0.5, False)])
    with pytest.raises(ModelError, match=r"chances\(0, 'go'\) gave weight 0\.5"):
        explore_stochastic(float_weight)
    bad_outcome = _Model(outcome=lambda s: "draw", chances=lambda s, m: [])
    with pytest.raises(ModelError, match="outcome of state 0 is 'draw'"):
        explore_stochastic(bad_outcome)
    mixed = _Model(chances=lambda s, m: [], roll=lambda p: [])
    with pytest.raises(ModelError, match="a model is one kind"):
        model_kind(mixed)
    with pytest.raises(ModelError, match=r"picks 'pass' in state \(0, 0, 0\)"):
        solve_stochastic_model(Pig(goal=5), first=lambda s: "pass")


def _cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "perfectplay", "solve", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
    )


def test_cli_exact_query_and_strategies():
    run = _cli("perfectplay.examples.pig:Piglet", "-p", "goal=4", "--exact", "-q",
               "--query", "(0, 0, 1)")  # fmt: skip
    assert run.returncode == 0, run.stderr
    want = solve_stochastic_model(Piglet(goal=4))
    exact = want.exact_value()
    assert f"exact: {exact.numerator}/{exact.denominator}  (verified optimal)" in run.stdout
    assert "'roll'" in run.stdout and "best" in run.stdout
    run = _cli("perfectplay.examples.pig:Pig", "-p", "goal=10", "-q",
               "--strategy", "perfectplay.examples.pig:hold_at_20")  # fmt: skip
    assert run.returncode == 0, run.stderr
    pair = solve_stochastic_model(Pig(goal=10), first=hold_at_20, second=hold_at_20)
    # 9 decimals, as every value the commands print (docs/cli.md, "Numbers")
    assert f"start value: {pair.start_value:.9f}  (" in run.stdout


def test_cli_json_and_seeded_simulation():
    run = _cli("perfectplay.examples.pig:Piglet", "-p", "goal=6", "--exact", "--json",
               "--simulate", "4000", "--seed", "5", "-q")  # fmt: skip
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    exact = solve_stochastic_model(Piglet(goal=6)).exact_value()
    assert out["exact"] == f"{exact.numerator}/{exact.denominator}"
    assert abs(out["value"] - float(exact)) < 1e-9
    sim = out["simulation"]
    assert sim["games"] == 4000 and sim["seed"] == 5
    assert abs(sim["mean"] - out["value"]) <= 4 * sim["standard_error"]
    again = _cli("perfectplay.examples.pig:Piglet", "-p", "goal=6", "--json",
                 "--simulate", "4000", "--seed", "5", "-q")  # fmt: skip
    assert json.loads(again.stdout)["simulation"] == sim  # seeded: the same games


def test_cli_bad_input_is_one_line(tmp_path):
    (tmp_path / "bad.py").write_text(
        "class Bad:\n"
        "    start = 0\n"
        "    def moves(self, s): return ['go']\n"
        "    def outcome(self, s): return 'maybe' if s else None\n"
        "    def chances(self, s, m): return [(1, 1, True)]\n"
    )
    run = _cli("bad.py:Bad", cwd=tmp_path)
    assert run.returncode == 2
    assert len(run.stderr.strip().splitlines()) == 1 and "state 1" in run.stderr
    run = _cli("perfectplay.examples.pig:Pig", "-p", "goal=5", "--first", "os:getcwd", "-q")
    assert run.returncode == 2 and "Traceback" not in run.stderr
    run = _cli("perfectplay.examples.pig:Pig", "--max-sweeps", "3")
    assert run.returncode == 2 and "not available" in run.stderr
