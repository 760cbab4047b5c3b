"""``perfectplay query``: any saved table answered from the command line, without the model,
with the same numbers as the library."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import perfectplay
from perfectplay.cli import main
from perfectplay.examples.five_dice import FiveDice
from perfectplay.examples.tictactoe import TicTacToe

MINI = Path(__file__).resolve().parent / "serve" / "mini_rules.py"


def _run(capsys, *args):
    capsys.readouterr()
    code = main(["query", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    folder = tmp_path_factory.mktemp("query")
    dice = perfectplay.solve(FiveDice(dice=3))
    ttt = perfectplay.solve(TicTacToe())
    from perfectplay.problems.yahtzee.instance import resolve_rules

    mini = perfectplay.solve(resolve_rules(f"{MINI}:MINI"))
    return {
        "dice": (dice, dice.save(folder / "dice.npz")),
        "ttt": (ttt, ttt.save(folder / "ttt.npz")),
        "mini": (mini, mini.save(folder / "mini.table")),
    }


def test_a_model_table_answers_as_the_library(tables, capsys):
    sol, path = tables["dice"]
    code, out, err = _run(capsys, path, "(1, 1, 2)", "--json")
    assert code == 0 and err == ""
    got = json.loads(out)
    assert got["value"] == sol.value((1, 1, 2))
    assert got["options"] == sol.options_json((1, 1, 2))
    code, out, _ = _run(capsys, path, "(1, 1, 2)", "--top", "1", "--digits", "3")
    assert code == 0 and out.splitlines()[0] == "(1, 1, 2): 6.000 (minimise expected rolls)"
    assert out.splitlines()[-1].split() == ["6.000", "0.000", "(1,", "1)", "best"]
    code, out, _ = _run(capsys, path)
    assert out.startswith(f"start: {sol.value():.9f}")


def test_a_game_table_and_ties(tables, capsys):
    sol, path = tables["ttt"]
    code, out, _ = _run(capsys, path, "'X...O....'", "--json")
    got = json.loads(out)
    assert code == 0 and got["value"] == {"outcome": "tie", "remoteness": 7}
    assert got["options"] == sol.options_json("X...O....")
    assert sum(o["best"] for o in got["options"]) == len(sol.best("X...O....")) > 1


def test_a_yahtzee_table_of_a_users_rules(tables, capsys):
    sol, path = tables["mini"]
    situation = "dice 1 1 3; rolls left 1"
    code, out, _ = _run(capsys, path, situation, "--rules", f"{MINI}:MINI", "--json")
    assert code == 0
    from perfectplay.problems.yahtzee.instance import parse_situation

    want = sol.options(parse_situation(situation, sol.game))
    got = json.loads(out)
    assert [(o["action"], o["value"]) for o in got["options"]] == [(o.label, o.value) for o in want]
    assert got["value"] == want[0].value


@pytest.mark.parametrize(
    "args, message",
    [
        (["missing.npz"], "no such file"),
        (["{dice}", "import os"], "is not a stored key"),
        (["{dice}", "(9, 9)"], "is not in the table"),
        (["{mini}", "dice 1 1 3"], "pass those rules"),
    ],
)
def test_bad_tables_and_states_are_one_line(tables, capsys, tmp_path, args, message):
    paths = {"dice": tables["dice"][1], "mini": tables["mini"][1]}
    args = [a.format(**paths) for a in args]
    if args[0] == "missing.npz":
        args[0] = str(tmp_path / "missing.npz")
    code, out, err = _run(capsys, *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["export", "non_literal_keys.npz", "--format", "csv", "-o", "{tmp}/x.csv"],
        ["export", "non_literal_choices.npz", "--format", "csv", "-o", "{tmp}/y.csv"],
        ["query", "non_literal_choices.npz", "(1, 1, 2)"],
    ],
)
def test_a_table_whose_stored_keys_are_not_literals_is_one_line(argv, tmp_path, capsys):
    """A table made by hand or damaged, with key texts that are no Python literal: one
    line, status 2 (it was a 55-line traceback), and nothing of the text evaluated."""
    from pathlib import Path

    from perfectplay.cli import main

    data = Path(__file__).parent / "data" / "tables"
    args = [str(data / a) if a.endswith(".npz") else a.format(tmp=tmp_path) for a in argv]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a stored key is not a Python literal" in err, err


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_a_bad_state_after_good_ones_prints_nothing_else(tables, capsys, json_flag):
    # The answers to the states before the bad one were printed, then status 2: output
    # that looked like answers although the command refused its input.
    _, path = tables["dice"]
    code, out, err = _run(capsys, path, "(1, 1, 2)", "(9, 9, 9)", *json_flag)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "(9, 9, 9)" in err
