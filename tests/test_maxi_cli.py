"""Maxi Yatzy on the command line and in the saved table: the rule-set names, the
``saved N`` field of a situation, advice that lists the boxes while throws are left, and
the table saved and loaded, on a small card of the ``maxi-saved`` rules (a user's rule
set, so the test solves in a second)."""

from __future__ import annotations

import json
import random
import textwrap
from dataclasses import replace

import numpy as np
import pytest

from perfectplay import cli
from perfectplay.errors import InputError
from perfectplay.problems.yahtzee import parse, resolve_rules
from perfectplay.yahtzee import rules
from perfectplay.yahtzee.game import ScorecardGame
from perfectplay.yahtzee.solver import solve_all, solve_batch, tier_batches

SMALL = textwrap.dedent(
    """\
    from dataclasses import replace
    from perfectplay.yahtzee import rules

    base = rules("maxi-saved")
    R = replace(
        base,
        name="small-saved",
        categories=tuple(base.categories[base.index(b)] for b in ("ones", "twos", "one_pair")),
        dice=4,
        faces=3,
        upper_threshold=5,
    )
    """
)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = cli.main(["yahtzee", *argv])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def small(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFECTPLAY_NO_CACHE", "1")
    path = tmp_path / "small.py"
    path.write_text(SMALL)
    return f"{path}:R"


def test_the_names_are_built_in():
    assert resolve_rules("maxi").n_categories == 20
    assert resolve_rules("maxi-saved").save_throws
    inst = parse("rules maxi-saved\ndice 6 6 6 6 1 2; rolls 6; saved 4; filled ones=2 twos=4")
    sit = inst.situations[0].situation
    assert inst.rules.name == "maxi-saved" and sit.rolls_left == 6 and sit.card.saved == 4
    with pytest.raises(InputError, match="rolls left must be from 0 to 4"):
        parse("rules maxi-saved\ndice 666612; rolls 5; saved 2; filled ones=2")
    with pytest.raises(InputError, match="save no throws"):
        parse("rules maxi\ndice 666612; rolls 2; saved 1; filled ones=2")
    with pytest.raises(InputError, match="rolls left must be from 0 to 2"):
        parse("rules maxi\ndice 666612; rolls 3")


def test_advice_with_saved_throws(capsys, small, tmp_path):
    table = tmp_path / "small.table"
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    code, out, err = run(capsys, str(empty), "--rules", small, "--save", str(table))
    assert code == 0 and float(out) > 0, err
    line = "dice 1 1 2 3; rolls 3; saved 1; filled twos=4"
    code, out, err = run(capsys, "advise", "--load", str(table), "--rules", small, "--json", line)
    assert code == 0, err
    answer = json.loads(out)
    assert answer["situation"]["saved"] == 1 and answer["situation"]["rolls_left"] == 3
    actions = [o["action"] for o in answer["options"]]
    assert "score ones" in actions and "keep 1 1" in actions and "score twos" not in actions
    code, out, err = run(capsys, "advise", "--load", str(table), "--rules", small, line)
    assert code == 0 and "saved 1" in out and "score one_pair" in out, err
    # no throws left: the boxes only, as in every rule set
    code, out, err = run(
        capsys,
        "advise",
        "--load",
        str(table),
        "--rules",
        small,
        "--json",
        "dice 1 1 2 3; rolls 0; filled twos=4",
    )
    assert code == 0 and all(o["box"] for o in json.loads(out)["options"]), err
    code, out, err = run(
        capsys, "advise", "--load", str(table), "--rules", small, "dice 1 1 2 3; rolls 5; saved 1"
    )
    assert code == 2 and "saved with 0 boxes filled" in err
    code, out, err = run(
        capsys, str(empty), "--load", str(table), "--rules", small, "--simulate", "5"
    )
    assert code != 0 and "save throws" in err and "Traceback" not in err


def test_batches_keep_a_card_whole_and_solve_in_any_order():
    base = rules("maxi-saved")
    r = replace(
        base,
        name="batches",
        categories=tuple(base.categories[base.index(b)] for b in ("ones", "one_pair", "chance")),
        dice=4,
        faces=3,
        upper_threshold=3,
    )
    game = ScorecardGame(r)
    want = solve_all(game)
    got = np.full(game.n_states, np.nan)
    got[game.tier_states(game.n_categories)] = 0.0
    rng = random.Random(3)
    for t in range(game.n_categories - 1, -1, -1):
        batches = tier_batches(game, t, size=5)
        per_card = game.max_saved(t) + 1
        assert all(len(b) % per_card == 0 for b in batches)
        assert all(
            len({int(s) // game.n_saved_values for s in b}) == len(b) // per_card for b in batches
        )
        rng.shuffle(batches)
        for b in batches:
            solve_batch(game, got, b)
        # a batch that splits a card's counts gives the same values
        states = game.tier_states(t)
        for i in range(0, len(states), 3):
            part = np.full(game.n_states, np.nan)
            part[game.tier_states(t + 1)] = got[game.tier_states(t + 1)]
            solve_batch(game, part, states[i : i + 3])
            assert np.array_equal(part[states[i : i + 3]], want[states[i : i + 3]])
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(np.nan_to_num(got), np.nan_to_num(want))
