"""Rule variants as a user types them: bad settings of Ur and Pig refused in one line (a
setting the kernels would misread, such as ``safe_rosettes=2``, never solves silently),
``--query`` notation refused without a traceback, the position a user typed named in the
refusal, a finished game answered alike by the compiled and the Python-object Pig, and
``python -m perfectplay.examples.ur`` refusing bad input in one line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from perfectplay.cli import main
from perfectplay.compiled import solve_compiled
from perfectplay.errors import InputError
from perfectplay.examples.pig import Pig, Piglet
from perfectplay.examples.pig_compiled import CompiledPig, CompiledPiglet
from perfectplay.examples.ur import Ur
from perfectplay.examples.ur import main as ur_main
from perfectplay.models.stochastic import solve_stochastic_model

UR = "perfectplay.examples.ur:Ur"
CPIG = "perfectplay.examples.pig_compiled:CompiledPig"


def one_line_refusal(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


# -- Ur's settings ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("parts", "says"),
    [
        # The kernels read a flag as "== 1": 2 was solved as unsafe rosettes, silently.
        ({"safe_rosettes": 2}, "safe_rosettes must be True or False, not 2"),
        ({"rosette_extra": None}, "rosette_extra must be True or False, not None"),
        ({"capture_extra": "no"}, "capture_extra must be True or False, not 'no'"),
        ({"pieces": True}, "pieces must be 1..15, not True"),
        ({"dice": False}, "dice must be 1..8, not False"),
        ({"path": "nosuch"}, "no Ur path 'nosuch'; known: bell, masters"),
        ({"path": [1, 2]}, "light's tiles as (column, row) pairs of ints, not [1, 2]"),
        ({"path": [(1.5, 2)]}, "pairs of ints"),
    ],
)
def test_ur_refuses_settings_it_would_misread(parts, says):
    with pytest.raises(ValueError, match=None) as info:
        Ur("finkel", **parts)
    assert says in str(info.value)


def test_ur_refuses_rules_of_another_type():
    with pytest.raises(ValueError, match="rules must be a rule set's name"):
        Ur(3)  # type: ignore[arg-type]


def test_ur_settings_refused_in_one_line_on_the_command_line(capsys):
    err = one_line_refusal(["solve", UR, "-p", "pieces=1", "-p", "safe_rosettes=2"], capsys)
    assert "safe_rosettes must be True or False, not 2" in err


def test_ur_masters_zero_is_labelled_with_what_it_counts():
    masters, finkel = Ur("masters", pieces=1), Ur("finkel", pieces=1)
    assert masters.roll_label(0) == "throw 0 (counts 4)"
    assert masters.roll_label(3) == "throw 3"
    assert finkel.roll_label(0) == "throw 0"


def test_ur_notation_says_what_is_wrong_with_borne_off():
    with pytest.raises(ValueError, match=r"\+N counts the pieces borne off"):
        Ur("finkel", pieces=2).parse("4+-1/")


# -- --query notation -------------------------------------------------------------------


@pytest.fixture(scope="module")
def ur1_table(tmp_path_factory):
    path = tmp_path_factory.mktemp("ur") / "ur1"
    assert main(["solve", UR, "-p", "pieces=1", "-q", "--export", str(path)]) == 0
    return path


@pytest.mark.parametrize("query", ["4/6:x", "4/6:9", "4/6:-1"])
def test_a_bad_throw_after_the_colon_is_refused_in_one_line(query, capsys, ur1_table):
    says = "after ':' comes the number of one of the position's outcomes, 0..4"
    err = one_line_refusal(["solve", UR, "-p", "pieces=1", "-q", "--query", query], capsys)
    assert says in err and "0: throw 0" in err
    err = one_line_refusal(["query", str(ur1_table), query, "--model", UR], capsys)
    assert says in err


def test_masters_refusal_lists_what_each_outcome_is(capsys):
    argv = ["solve", UR, "-p", "rules='masters'", "-p", "pieces=1", "-q", "--query", "/:4"]
    err = one_line_refusal(argv, capsys)
    assert "0..3 (0: throw 0 (counts 4), 1: throw 1, 2: throw 2, 3: throw 3), not '4'" in err


def test_an_unreached_position_is_named_as_typed(capsys):
    # (0, 0, 1) cannot happen with a die (a 1 busts); the refusal named "(0, 0, 1)
    # rolling", a position the user never typed.
    err = one_line_refusal(["solve", CPIG, "-p", "goal=10", "-q", "--query", "(0, 0, 1)"], capsys)
    assert "(0, 0, 1) is not in the table" in err
    assert "rolling" not in err


@pytest.mark.parametrize(
    ("state", "value"), [((9, 0, 5), 1.0), ((4, 7, 6), 1.0), ((0, 10, 0), 0.0)]
)
def test_a_finished_game_has_the_same_value_in_both_pig_models(state, value):
    python = solve_stochastic_model(Pig(goal=10))
    compiled = solve_compiled(CompiledPig(goal=10))
    if state != (0, 10, 0):  # reached by play in the Python-object model
        assert python.value(state) == value
    assert compiled.value(str(state)) == value
    assert compiled.options((str(state), 0)) == []


def test_a_finished_game_on_the_command_line(capsys):
    capsys.readouterr()
    argv = ["solve", CPIG, "-p", "goal=10", "-q", "--json", "--query", "(9, 0, 5)"]
    assert main(argv) == 0
    q = json.loads(capsys.readouterr().out)["queries"][0]
    assert q["value"] == 1.0 and q["outcomes"][0]["moves"] == []


# -- Pig's settings ---------------------------------------------------------------------


@pytest.mark.parametrize("cls", [Pig, CompiledPig])
@pytest.mark.parametrize(
    ("parts", "says"),
    [
        # "no" was a hold at zero for the Python-object model, an int() error compiled
        ({"hold_at_zero": "no"}, "hold_at_zero must be True or False, not 'no'"),
        ({"hold_at_zero": 2}, "hold_at_zero must be True or False, not 2"),
        ({"goal": True}, "goal must be an integer 1..1000, not True"),
        ({"faces": True}, "faces must be an integer 2..100, not True"),
    ],
)
def test_pig_models_refuse_the_same_settings(cls, parts, says):
    with pytest.raises(ValueError) as info:
        cls(**parts)
    assert says in str(info.value)


@pytest.mark.parametrize("cls", [Piglet, CompiledPiglet])
def test_piglet_models_refuse_a_hold_at_zero_that_is_no_bool(cls):
    with pytest.raises(ValueError, match="hold_at_zero must be True or False"):
        cls(goal=10, hold_at_zero="yes")


# -- python -m perfectplay.examples.ur --------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "says"),
    [
        (["finkel two"], "line 1: the pieces are a number 1..15, not 'two'"),
        (["finkel 1 extra"], "line 1: expected 'RULES [PIECES]'"),
        (["foo 1"], "line 1: no Ur rule set 'foo'"),
        (["finkel 1", "", "4/6:x"], "line 3: '4/6:x': after ':'"),
        (["finkel 1", "bad"], "line 2: Ur(finkel+pieces=1): an Ur position is LIGHT/DARK"),
    ],
)
def test_ur_main_names_the_line(lines, says):
    with pytest.raises(InputError) as info:
        ur_main(lines)
    assert says in str(info.value)


def test_ur_module_refuses_bad_input_in_one_line():
    run = subprocess.run(
        [sys.executable, "-m", "perfectplay.examples.ur"],
        input="finkel x\n",
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 2
    assert run.stderr == "perfectplay: <stdin>:1: the pieces are a number 1..15, not 'x'\n"


def test_compiled_pig_reads_back_the_positions_it_prints(capsys):
    # The moves of a roll lead to "(0, 0, 2) rolling", which --query refused to read.
    pig = CompiledPig(goal=10)
    assert pig.describe(pig.parse("(0, 0, 2) rolling")) == "(0, 0, 2) rolling"
    capsys.readouterr()
    argv = ["solve", CPIG, "-p", "goal=10", "-q", "--query", "(0, 0, 2) rolling"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "position (0, 0, 2) rolling: 0.748198157 for the player to move" in out
    assert "face 6 (weight 1):" in out


@pytest.mark.parametrize("tile", [(2, 9), (1, 5), (3, 6), (0, 1), (4, 4)])
def test_ur_refuses_a_path_off_the_board(tile):
    # A typo in a path of one's own was solved silently as a tile of its own.
    with pytest.raises(ValueError, match=rf"tile \({tile[0]}, {tile[1]}\) is not on the board"):
        Ur("finkel", pieces=1, path=[(1, 4), (1, 3), tile])


def test_the_board_has_twenty_tiles_and_the_standard_paths_are_on_it():
    from perfectplay.examples.ur import BOARD, PATHS, ROSETTES

    assert len(BOARD) == 20 and ROSETTES <= BOARD
    for tiles in PATHS.values():
        assert set(tiles) <= BOARD and {(4 - x, y) for x, y in tiles} <= BOARD


def test_a_pig_decision_has_no_face_in_json(capsys):
    # --json labelled the one outcome of a decision (no dice yet) "face 1".
    capsys.readouterr()
    argv = ["solve", CPIG, "-p", "goal=10", "-q", "--json", "--query", "(0, 0, 2)"]
    assert main(argv) == 0
    q = json.loads(capsys.readouterr().out)["queries"][0]
    assert [o["label"] for o in q["outcomes"]] == ["no throw (roll or hold)"]
    argv[-1] = "(0, 0, 2) rolling"
    assert main(argv) == 0
    q = json.loads(capsys.readouterr().out)["queries"][0]
    assert [o["label"] for o in q["outcomes"]] == [f"face {k}" for k in range(1, 7)]
