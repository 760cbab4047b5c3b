"""The front door: every kind of game through perfectplay.solve / perfectplay.load, one
vocabulary, and docs/api.md's page run as a doctest."""

from __future__ import annotations

import doctest
import math
import re
from fractions import Fraction
from pathlib import Path

import pytest

import perfectplay
from perfectplay.errors import InputError, ModelError, UnsupportedError
from perfectplay.examples.five_dice import FiveDice
from perfectplay.examples.pig import Piglet
from perfectplay.examples.tictactoe import TicTacToe
from perfectplay.results.surface import Solution

ROOT = Path(__file__).resolve().parent.parent


def test_the_api_page_runs_as_a_doctest():
    """Every ```pycon block of docs/api.md, in order, as one doctest (one namespace)."""
    text = (ROOT / "docs" / "api.md").read_text()
    blocks = re.findall(r"^```pycon\n(.*?)^```", text, flags=re.S | re.M)
    test = doctest.DocTestParser().get_doctest(
        "\n".join(blocks), {}, "docs/api.md", str(ROOT / "docs" / "api.md"), 0
    )
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 20 and result.failed == 0


def _mini_rules():
    from perfectplay.yahtzee import Category, Rules

    boxes = (Category.upper(1, "ones"), Category("chance", sum))
    return Rules("tiny", boxes, dice=2, faces=3, rolls=2, upper_threshold=0)


@pytest.fixture(scope="module")
def solved():
    return {
        "chance": perfectplay.solve(FiveDice(dice=3)),
        "game": perfectplay.solve(TicTacToe()),
        "stochastic": perfectplay.solve(Piglet(goal=4)),
        "scorecard": perfectplay.solve(_mini_rules()),
    }


def _a_state(sol):
    """A state with options, from the solution's own states."""
    if sol.kind == "scorecard":
        from perfectplay.yahtzee import Card, Situation

        return Situation(Card(), (1, 3), 1)
    for state in sol.states():
        if sol.options(state):
            return state
    raise AssertionError("no state with options")


@pytest.mark.parametrize("kind", ["chance", "game", "stochastic", "scorecard"])
def test_every_kind_answers_the_same_questions(solved, kind, tmp_path):
    sol = solved[kind]
    assert isinstance(sol, Solution) and sol.kind == kind
    assert sol.name and sol.solver and sol.objective.describe()
    state = _a_state(sol)
    options = sol.options(state)
    assert options and options[0].best and options[0].regret == 0
    assert all(o.regret >= 0 and o.label for o in options)
    # best first in the objective's sense, ties marked as ties
    best = [o.action for o in options if o.best]
    assert sol.best(state) == best
    assert [o["action"] for o in sol.options_json(state)] == [o.label for o in options]
    if kind != "game":
        values = [o.value for o in options]
        sign = 1 if sol.objective.sense == "max" else -1
        assert all(sign * (a - b) >= -1e-12 for a, b in zip(values, values[1:], strict=False))
        for o in options:
            assert math.isclose(o.regret, sign * (options[0].value - o.value), abs_tol=1e-12)
    path = sol.save(tmp_path / ("t.table" if kind == "scorecard" else "t.npz"))
    back = perfectplay.load(path, rules=_mini_rules() if kind == "scorecard" else None)
    assert isinstance(back, Solution) and back.kind == kind
    assert back.value() == sol.value()
    if kind != "scorecard":  # tables without the model answer by stored keys: same here
        assert back.options(state) == options and back.best(state) == best
    else:
        assert back.options(state) == options


def test_exact_where_the_kind_has_it_and_one_line_where_not(solved):
    assert solved["chance"].exact() == Fraction(63, 8)
    assert isinstance(solved["stochastic"].exact(), Fraction)
    with pytest.raises(UnsupportedError, match="not available for a game"):
        solved["game"].exact()
    with pytest.raises(UnsupportedError, match="scorecard"):
        solved["scorecard"].exact()
    with pytest.raises(UnsupportedError, match="no outcome distribution"):
        solved["game"].distribution(5)


def test_bad_games_and_tables_are_one_line(tmp_path):
    with pytest.raises(ModelError, match="pass an instance: FiveDice()"):
        perfectplay.solve(FiveDice)
    with pytest.raises(InputError, match="no such file"):
        perfectplay.load(tmp_path / "missing.npz")
    (tmp_path / "junk.bin").write_bytes(b"hello")
    with pytest.raises(InputError, match="not a perfectplay table"):
        perfectplay.load(tmp_path / "junk.bin")
    with pytest.raises(InputError):
        perfectplay.solve("no-such-rules")


def test_a_failed_save_leaves_the_old_table(solved, tmp_path):
    sol = solved["chance"]
    path = sol.save(tmp_path / "t.npz")
    before = path.read_bytes()

    class Boom(Exception):
        pass

    import numpy as np

    real = np.savez_compressed

    def failing(fh, **arrays):
        fh.write(b"half a table")
        raise Boom

    np.savez_compressed = failing
    try:
        with pytest.raises(Boom):
            sol.save(path)
    finally:
        np.savez_compressed = real
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.npz"]
