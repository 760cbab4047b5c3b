"""What a solved game says about itself through the API: a ``repr`` that names it and its
start value for every kind, no output on stderr unless asked, and a saved table read only
through the model class that solved it.

Each case here was found by using the library as documented and failed before its fix.
"""

from __future__ import annotations

import pathlib

import pytest

import perfectplay
from perfectplay.errors import InputError


def test_every_kind_has_a_useful_repr(mini, tmp_path: pathlib.Path):
    from perfectplay.examples.pig import Piglet
    from perfectplay.examples.ur import Ur
    from perfectplay.problems import alea

    pig = perfectplay.solve(Piglet(goal=2))
    assert repr(pig) == "<StochasticModelSolution Piglet (stochastic): start 0.571428571>"
    assert repr(mini).startswith("<YahtzeeSolution mini (scorecard): start 22.58985")
    ur = perfectplay.solve(Ur(pieces=1), workdir=tmp_path / "ur")
    assert repr(ur).startswith("<CompiledSolution Ur(finkel+pieces=1) (stochastic): start 0.53")
    assert repr(perfectplay.load(tmp_path / "ur")) == repr(ur)
    sol = alea.solve(alea.EXAMPLE_DICE, alea.EXAMPLE_WORDS)
    assert repr(sol) == (
        "<alea.AleaSolution 5 dice (ABCDEP AEHOXU AISOLR ABCDEF ABCSCC), 8 words: "
        "9.677887141 rolls>"
    )


def test_dispdom_prints_nothing_unless_asked(capsys, monkeypatch):
    import perfectplay.models
    from perfectplay.problems import dispdom

    real, asked = perfectplay.models.solve_model, []

    def spy(model, **options):
        asked.append(options.get("progress"))
        return real(model, **options)

    monkeypatch.setattr(perfectplay.models, "solve_model", spy)
    sol = dispdom.solve(dispdom.parse("10 2 10\n0000011000\n"))
    assert sol.plain_winner == "Alice"
    # None: the process-wide setting (off in a program, on in the command) decides; it
    # was True, which reported long explorations on stderr from a library call.
    assert asked == [None]
    assert capsys.readouterr().err == ""


def test_a_table_is_loaded_with_its_own_model_only(tmp_path: pathlib.Path):
    from perfectplay.examples.pig import Piglet
    from perfectplay.examples.tictactoe import TicTacToe

    path = perfectplay.solve(TicTacToe()).save(tmp_path / "t.npz")
    # It answered TicTacToe's values through a Pig model, without a word.
    with pytest.raises(InputError, match="the table of TicTacToe, not of Piglet"):
        perfectplay.load(path, Piglet(goal=3))
    assert str(perfectplay.load(path, TicTacToe()).value()) == "TIE in 9"


def test_options_and_best_default_to_the_start_as_value_does(tmp_path: pathlib.Path):
    from perfectplay.examples.five_dice import FiveDice
    from perfectplay.examples.pig import Piglet
    from perfectplay.examples.tictactoe import TicTacToe

    # sol.value() was the start's value, but sol.options() a TypeError and
    # sol.options(None) an UnknownStateError.
    for game, start in (
        (FiveDice(dice=3), ()),
        (Piglet(goal=3), (0, 0, 0)),
        (TicTacToe(), "........."),
    ):
        sol = perfectplay.solve(game)
        table = perfectplay.load(sol.save(tmp_path / f"{type(game).__name__}.npz"))
        assert sol.options() == sol.options(None) == sol.options(start) != []
        assert sol.best() == sol.best(start) == table.best() != []
        assert table.options() == table.options(start) == sol.options()
        assert sol.options_json() == sol.options_json(start)


@pytest.mark.parametrize("json", [False, True])
def test_a_query_of_none_is_a_state_not_the_start(capsys, json):
    from perfectplay import cli

    # options(None) is the start's now; the command's --query None still names a state.
    argv = ["solve", "perfectplay.examples.tictactoe:TicTacToe", "--query", "None", "-q"]
    assert cli.main(argv + (["--json"] if json else [])) == 2
    out, err = capsys.readouterr()
    assert out == "" and "position None is not reachable" in err


def test_all_exact_values_go_by_one_name():
    from fractions import Fraction

    from perfectplay.examples.five_dice import FiveDice
    from perfectplay.problems import alea, yeetzhee

    # A model's exact() is the start's Fraction and exact_values() every state's; alea's
    # and yeetzhee's exact() are every state's, and they had no exact_values().
    model = perfectplay.solve(FiveDice(dice=2))
    for sol in (model, alea.solve(["123456"], ["6"]), yeetzhee.solve(3, 6, [1, 2])):
        values = sol.exact_values()
        assert isinstance(values.value, Fraction) and values.value == sol.exact_value()
    assert model.exact() == model.exact_value() == Fraction(6)  # 1 roll, then 6 more 5 times in 6


def test_a_model_table_is_loaded_with_an_instance_not_a_class(tmp_path: pathlib.Path):
    from perfectplay.errors import ModelError

    class Walk:
        start = 0

        def is_goal(self, s):
            return s >= 2

        def choices(self, s):
            return ["r"]

        def roll(self, p):
            return [(1, 1), (2, 1), (-1, 1)]

        def canonical(self, s):
            return abs(s)

    path = perfectplay.solve(Walk()).save(tmp_path / "walk.npz")
    # The class loaded, then every lookup called Walk.canonical(s): a TypeError.
    with pytest.raises(ModelError, match=r"load got the class Walk; pass an instance: Walk\(\)"):
        perfectplay.load(path, Walk)
    assert perfectplay.load(path, Walk()).value(-1) == 3.0
