"""Seeded simulation of the optimal policy (perfectplay.yahtzee.simulate): reproducible,
its mean within 4 standard errors of the value, every game equal to a plain-Python replay
that decides with YahtzeeSolution.options and reads the rules itself."""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from perfectplay.errors import InputError
from perfectplay.yahtzee import simulate as simulate_module
from perfectplay.yahtzee.ruleset import Category, Rules, n_of_a_kind, straight
from perfectplay.yahtzee.simulate import SimulationResult, simulate
from perfectplay.yahtzee.solution import Card, solve

_spec = importlib.util.spec_from_file_location(
    "scorecard_play", Path(__file__).resolve().parent.parent / "twins" / "scorecard_play.py"
)
twin = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(twin)  # type: ignore[union-attr]


@cache
def american():
    return solve("american")


@cache
def reduced():
    """Five dice, the upper section of four faces and two lower boxes with jokers."""
    boxes = (
        Category.upper(1, "ones"),
        Category.upper(2, "twos"),
        Category.upper(3, "threes"),
        Category.upper(4, "fours"),
        Category("run", straight(30, ((1, 2, 3, 4),)), joker=30),
        Category("yahtzee", n_of_a_kind(5, points=50)),
    )
    rules = Rules(
        "reduced", boxes, dice=5, faces=4, rolls=3, upper_threshold=25, upper_bonus=20,
        kind_box="yahtzee", kind_bonus=100, joker="free",
    )  # fmt: skip
    return solve(rules)


def test_same_seed_same_scores_any_chunking(monkeypatch):
    sol = american()
    a = simulate(sol, 300, seed=7)
    assert a.scores.tolist() == simulate(sol, 300, seed=7).scores.tolist()
    assert a.scores.tolist() != simulate(sol, 300, seed=8).scores.tolist()
    monkeypatch.setattr(simulate_module, "CHUNK", 64)
    assert a.scores.tolist() == simulate(sol, 300, seed=7).scores.tolist()
    assert a.scores[:50].tolist() == simulate(sol, 50, seed=7).scores.tolist()
    assert a.rules == "american" and a.seed == 7 and a.games == 300


@pytest.mark.parametrize(("make", "games"), [(american, 10_000), (reduced, 20_000)])
def test_mean_within_four_standard_errors(make, games):
    sol = make()
    run = simulate(sol, games, seed=11)
    assert run.standard_error > 0
    assert abs(run.mean - sol.value()) <= 4 * run.standard_error


@pytest.mark.parametrize("make", [american, reduced])
def test_every_game_equals_a_python_replay(make):
    sol = make()
    seed, games = 3, 12
    run = simulate(sol, games, seed=seed)
    rules = sol.rules
    rng = np.random.Generator(np.random.PCG64(seed))
    draws = rng.random((games, rules.n_categories, rules.rolls, rules.dice))
    assert [twin.play(sol, draws[g]) for g in range(games)] == run.scores.tolist()


def test_weighted_faces_follow_their_weights():
    # a die showing 1 twice as often as 2, one roll, one box: the score is the face
    sol = solve(Rules("loaded", (Category("chance", sum),), dice=1, faces=(1, 1, 2), rolls=1,
                      upper_threshold=0))  # fmt: skip
    run = simulate(sol, 30_000, seed=1)
    share = float((run.scores == 1).mean())
    assert abs(share - 2 / 3) <= 4 * np.sqrt(2 / 9 / run.games)
    assert set(run.scores.tolist()) == {1, 2}


def test_result_statistics():
    scores = np.array([3, 5, 5, 9, 13])
    r = SimulationResult("x", 0, scores)
    assert r.mean == scores.mean() and r.std == pytest.approx(scores.std(ddof=1))
    assert r.standard_error == pytest.approx(scores.std(ddof=1) / np.sqrt(5))
    counts, edges = r.histogram([0, 5, 10, 15])
    assert counts.tolist() == [1, 3, 1] and edges.tolist() == [0, 5, 10, 15]
    assert SimulationResult("x", 0, np.array([4])).std == 0.0
    summary = r.to_json([0, 5, 10, 15])
    assert summary["histogram"]["counts"] == [1, 3, 1] and summary["games"] == 5
    assert summary["std"] == r.std and summary["seed"] == 0


@pytest.mark.parametrize(
    ("games", "seed", "match"),
    [(0, 0, "games"), (2.5, 0, "games"), (True, 0, "games"), (5, -1, "seed"), (5, "a", "seed")],
)
def test_bad_arguments_are_one_line(games, seed, match):
    with pytest.raises(InputError, match=match):
        simulate(american(), games, seed=seed)


def test_memory_budget_is_checked_first(monkeypatch):
    from perfectplay.errors import ResourceLimitError

    sol = american()
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "64K")
    with pytest.raises(ResourceLimitError, match="simulating american"):
        simulate(sol, 10)


def test_from_a_card():
    sol = reduced()
    filled = {"yahtzee": 50, "fours": 16}
    card = Card(filled=filled)
    run = simulate(sol, 20_000, seed=4, card=card)
    assert abs(run.mean - sol.value(card)) <= 4 * run.standard_error
    rng = np.random.Generator(np.random.PCG64(4))
    draws = rng.random((6, 4, 3, 5))
    assert [twin.play(sol, draws[g], filled, 66) for g in range(6)] == run.scores[:6].tolist()
    full = Card(filled={c.name: 0 for c in sol.rules.categories})
    assert simulate(sol, 3, card=full).scores.tolist() == [0, 0, 0]
