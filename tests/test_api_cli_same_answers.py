"""The command's ``--json`` and the Python API answer a query with the same records: every
option carries the fields of :meth:`perfectplay.Solution.options_json` (``action``,
``value``, ``regret``, ``best``) with the same values, for every kind of game.

Before, a chance model's options had ``choice`` and no ``regret``, a two-player dice
game's ``move`` (a repr) with ``best`` on the strategy's one move only, and a Yahtzee
advice's options neither ``regret`` nor ``best``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import perfectplay
from perfectplay import cli

FIELDS = ("action", "value", "regret", "best")


def run_json(capsys, *argv: str) -> dict:
    code = cli.main([*argv, "--json", "-q"])
    out, err = capsys.readouterr()
    assert code == 0, err
    (line,) = out.splitlines()
    return json.loads(line)


def solve_query(capsys, target: str, *options: str) -> dict:
    """The record of the one query of ``perfectplay solve TARGET OPTIONS --json``."""
    (query,) = run_json(capsys, "solve", target, *options)["queries"]
    return query


def same(cli_options: list[dict], api_options: list[dict]) -> None:
    assert [{k: o[k] for k in FIELDS} for o in cli_options] == api_options


def test_chance_model(capsys):
    from perfectplay.examples.five_dice import FiveDice

    query = solve_query(
        capsys, "perfectplay.examples.five_dice:FiveDice", "-p", "dice=3", "--query", "(1, 1, 2)"
    )
    api = perfectplay.solve(FiveDice(dice=3))
    same(query["options"], api.options_json((1, 1, 2)))
    assert query["options"][0]["choice"] == "(1, 1)"  # the old name stays


def test_two_player_dice_game_marks_ties_as_the_api_does(capsys):
    from perfectplay.examples.pig import Piglet

    query = solve_query(
        capsys, "perfectplay.examples.pig:Piglet", "-p", "goal=2", "--query", "(0, 0, 1)"
    )
    api = perfectplay.solve(Piglet(goal=2))
    same(query["options"], api.options_json((0, 0, 1)))
    assert [o["move"] for o in query["options"]] == ["'roll'", "'hold'"]


def test_game_without_dice(capsys):
    from perfectplay.examples.tictactoe import TicTacToe

    query = solve_query(
        capsys, "perfectplay.examples.tictactoe:TicTacToe", "--query", "'X........'"
    )
    api = perfectplay.solve(TicTacToe()).options_json("X........")
    assert [o["action"] for o in query["moves"]] == [o["action"] for o in api]
    assert [(o["regret"], o["best"]) for o in query["moves"]] == [
        (o["regret"], o["best"]) for o in api
    ]
    assert [(o["value"], o["remoteness"]) for o in query["moves"]] == [
        (o["value"]["outcome"], o["value"]["remoteness"]) for o in api
    ]


def test_compiled_model(capsys, tmp_path: Path):
    from perfectplay.examples.ur import Ur

    query = solve_query(capsys, "perfectplay.examples.ur:Ur", "-p", "pieces=1", "--query", "/:2")
    (outcome,) = query["outcomes"]
    api = perfectplay.solve(Ur(pieces=1), workdir=tmp_path / "ur")
    same(outcome["moves"], api.options_json("/:2"))


MINI = """
from perfectplay.yahtzee import Category, Rules
BOXES = (Category.upper(1, "ones"), Category.upper(2, "twos"), Category("chance", sum))
MINI = Rules("mini", BOXES, dice=3, faces=3, rolls=2, upper_threshold=5, upper_bonus=10)
"""


@pytest.mark.parametrize(
    "situation", ["dice 2 2 3; rolls left 1; filled ones=2", "dice 1 2 3; rolls left 0"]
)
def test_yahtzee_advice(capsys, monkeypatch, tmp_path: Path, situation):
    from perfectplay.problems.yahtzee import parse_situation

    monkeypatch.setenv("PERFECTPLAY_CACHE_DIR", str(tmp_path / "cache"))
    rules_file = tmp_path / "minirules.py"
    rules_file.write_text(MINI)
    out = run_json(capsys, "yahtzee", "advise", situation, "--rules", f"{rules_file}:MINI", "--all")
    namespace: dict = {}
    exec(MINI, namespace)
    api = perfectplay.solve(namespace["MINI"])
    same(out["options"], api.options_json(parse_situation(situation, api.game)))
