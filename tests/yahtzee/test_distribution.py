"""The exact final-score distribution (perfectplay.yahtzee.distribution): sums to 1, its
mean is the solved value, a Fraction brute force over every play of the advisor's policy
on reduced rules, a seeded simulation's histogram, the summary statistics, the plot."""

from __future__ import annotations

import importlib.util
import json
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from perfectplay.errors import InputError
from perfectplay.yahtzee.distribution import ScoreDistribution, plot, score_distribution
from perfectplay.yahtzee.ruleset import Category, Rules, n_of_a_kind, straight
from perfectplay.yahtzee.simulate import simulate
from perfectplay.yahtzee.solution import Card, solve

_spec = importlib.util.spec_from_file_location(
    "scorecard_play", Path(__file__).resolve().parent.parent / "twins" / "scorecard_play.py"
)
twin = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(twin)  # type: ignore[union-attr]


@cache
def american():
    sol = solve("american")
    return sol, score_distribution(sol)


def tiny(joker="free", kind_bonus=20, rolls=3, threshold=4):
    """Four boxes, three three-sided dice: an upper bonus, an n-of-a-kind box with an extra
    bonus and a joker value elsewhere."""
    jokers = joker != "none"
    boxes = (
        Category.upper(1, "ones"),
        Category.upper(2, "twos"),
        Category("triple", n_of_a_kind(3, points=15)),
        Category("run", straight(12, ((1, 2, 3),)), joker=12 if jokers else None),
    )
    return Rules(
        f"tiny-{joker}-{kind_bonus}-{rolls}",
        boxes,
        dice=3,
        faces=3,
        rolls=rolls,
        upper_threshold=threshold,
        upper_bonus=7,
        kind_box="triple" if (jokers or kind_bonus) else None,
        kind_bonus=kind_bonus,
        joker=joker,
    )


@pytest.mark.slow
def test_american_sums_to_one_and_mean_is_the_value():
    sol, d = american()
    assert abs(d.total - 1) < 1e-12
    assert abs(d.mean - sol.value()) < 1e-6
    assert (d.pmf >= 0).all() and d.low == 0
    # Glenn (2006) publishes the standard deviation 59.61 for these rules
    assert abs(d.std - 59.61) < 0.005
    assert d.percentiles([10, 50, 90]) == sorted(d.percentiles([10, 50, 90]))
    assert d.median == d.percentile(50)
    # 1575, the largest score of these rules (13 Yahtzees), has positive probability
    assert d.scores[d.pmf > 0].max() == 1575 == d.low + len(d.pmf) - 1
    summary = json.loads(json.dumps(d.to_json()))
    assert summary["percentiles"]["90"] == d.percentile(90) and len(summary["pmf"]) == 1576


@pytest.mark.parametrize(
    "rules",
    [
        tiny("free"),
        tiny("forced"),
        tiny("none"),
        tiny("none", kind_bonus=0),
        tiny("free", rolls=2, threshold=3),
    ],
    ids=lambda r: r.name,
)
def test_brute_force_twin_in_fractions(rules):
    sol = solve(rules)
    d = score_distribution(sol)
    exact = twin.exact_distribution(sol)
    assert sum(exact.values()) == 1
    assert d.low == min(0, min(exact))
    for s in range(d.low, d.low + len(d.pmf)):
        assert abs(d.probability(s) - float(exact.get(s, Fraction(0)))) < 1e-13, s
    assert set(exact) == {int(s) for s in d.scores[d.pmf > 0]}
    assert abs(d.mean - sol.value()) < 1e-9


def test_negative_scores_shift_low():
    boxes = (Category("penalty", lambda dice: -sum(dice)), Category("chance", sum))
    sol = solve(Rules("penalty", boxes, dice=2, faces=3, rolls=2, upper_threshold=0))
    d = score_distribution(sol)
    exact = twin.exact_distribution(sol)
    assert d.low == min(exact) < 0
    assert all(abs(d.probability(s) - float(p)) < 1e-13 for s, p in exact.items())
    assert abs(d.mean - sol.value()) < 1e-9


@pytest.mark.slow
def test_seeded_simulation_matches_the_exact_histogram():
    sol, d = american()
    run = simulate(sol, 20_000, seed=2024)
    edges = [0, 150, 175, 200, 225, 250, 275, 300, 350, 400, 500, 2000]
    cdf = np.concatenate(([0.0], d.cdf))
    counts, _ = run.histogram(edges)
    for a, b, got in zip(edges[:-1], edges[1:], counts, strict=True):
        p = cdf[min(b, len(cdf) - 1)] - cdf[min(a, len(cdf) - 1)]  # P(a <= score < b)
        expect = run.games * p
        assert abs(got - expect) <= 4 * np.sqrt(run.games * p * (1 - p)) + 1, (a, b, got, expect)


def test_simulation_of_tiny_rules_matches_every_score():
    sol = solve(tiny("free"))
    d = score_distribution(sol)
    run = simulate(sol, 20_000, seed=5)
    got = np.bincount(run.scores - d.low, minlength=len(d.pmf))
    assert len(got) == len(d.pmf)
    assert (got[d.pmf == 0] == 0).all()
    sigma = np.sqrt(run.games * d.pmf * (1 - d.pmf))
    assert (np.abs(got - run.games * d.pmf) <= 4 * sigma + 1).all()


def test_statistics_of_a_known_distribution():
    pmf = np.array([0.1, 0.0, 0.2, 0.3, 0.4])
    d = ScoreDistribution("x", pmf, low=-1)
    scores = np.arange(-1, 4)
    assert d.scores.tolist() == scores.tolist()
    assert d.mean == pytest.approx(float(pmf @ scores))
    assert d.variance == pytest.approx(float(pmf @ scores**2) - d.mean**2)
    assert d.cdf.tolist() == pytest.approx([0.1, 0.1, 0.3, 0.6, 1.0])
    assert d.percentiles([0, 10, 10.5, 30, 31, 60, 100]) == [-1, -1, 1, 1, 2, 2, 3]
    assert d.median == 2 and d.probability(0) == 0.0 and d.probability(3) == 0.4
    assert d.probability(-5) == 0.0 and d.probability(9) == 0.0
    with pytest.raises(InputError, match="between 0 and 100"):
        d.percentile(101)


def test_plot_writes_an_image_or_names_matplotlib(tmp_path, monkeypatch):
    d = ScoreDistribution("x", np.array([0.25, 0.5, 0.25]))
    path = tmp_path / "dist.png"
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        with pytest.raises(InputError, match="matplotlib"):
            plot(d, path)
    else:
        plot(d, path)
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(InputError, match=r"pip install 'perfectplay\[plot\]'"):
        plot(d, path)


def test_memory_budget_is_checked_first(monkeypatch):
    from perfectplay.errors import ResourceLimitError

    sol = solve(tiny("free"))
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "1K")
    with pytest.raises(ResourceLimitError, match="score distribution of tiny"):
        score_distribution(sol)


def test_interpreted_kernels_give_the_same_bits():
    """PERFECTPLAY_NO_JIT=1 runs the kernels' Python source: the same floats and games."""
    import os
    import subprocess
    import sys

    code = (
        "import json\n"
        "from perfectplay.yahtzee.ruleset import Category, Rules, n_of_a_kind, straight\n"
        "from perfectplay.yahtzee.solution import Card, solve\n"
        "from perfectplay.yahtzee.distribution import score_distribution\n"
        "from perfectplay.yahtzee.simulate import simulate\n"
        "boxes = (Category.upper(1, 'ones'), Category.upper(2, 'twos'),\n"
        "         Category('triple', n_of_a_kind(3, points=15)),\n"
        "         Category('run', straight(12, ((1, 2, 3),)), joker=12))\n"
        "r = Rules('t', boxes, dice=3, faces=3, rolls=3, upper_threshold=4, upper_bonus=7,\n"
        "          kind_box='triple', kind_bonus=20, joker='free')\n"
        "sol = solve(r)\n"
        "print(json.dumps([score_distribution(sol).pmf.tolist(),\n"
        "                  simulate(sol, 50, seed=3).scores.tolist()]))\n"
    )
    outs = []
    for flag in ("1", ""):
        env = dict(os.environ, PERFECTPLAY_NO_JIT=flag)
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stderr
        outs.append(json.loads(done.stdout))
    assert outs[0] == outs[1]
    assert abs(sum(outs[0][0]) - 1) < 1e-12


def test_from_a_card_against_the_twin():
    sol = solve(tiny("free"))
    filled = {"triple": 15, "ones": 2}
    card = Card(filled=filled)
    d = score_distribution(sol, card)
    so_far = 17
    exact = twin.exact_distribution(sol, filled, so_far)
    assert min(exact) >= so_far and d.probability(so_far - 1) == 0
    assert set(exact) == {int(s) for s in d.scores[d.pmf > 0]}
    assert all(abs(d.probability(s) - float(p)) < 1e-13 for s, p in exact.items())
    assert abs(d.mean - sol.value(card)) < 1e-9
    full = Card(filled={"ones": 3, "twos": 2, "triple": 0, "run": 12}, score=24)
    assert score_distribution(sol, full).pmf.nonzero()[0].tolist() == [24]
