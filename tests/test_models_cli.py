"""``perfectplay solve MODULE:OBJECT``: summaries, queries, exports and one-line errors."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from perfectplay import cli


def solve(capsys, *args):
    code = cli.main(["solve", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_five_dice_exact(capsys):
    code, out, err = solve(capsys, "perfectplay.examples.five_dice:FiveDice", "--exact")
    assert code == 0
    assert "exact: 191283/17248  (verified optimal)" in out
    assert "start value: 11.090155380" in out
    assert "states: 253 decision, 210 rolls" in out and "retry property: yes" in out
    assert "time: explore" in err and "time" not in out


def test_chance_query_distribution_and_simulation(capsys):
    code, out, _ = solve(
        capsys,
        "perfectplay.examples.five_dice:FiveDice",
        "--query",
        "(1, 2, 2, 5, 6)",
        "--query",
        "(4, 4, 4, 4, 4)",
        "--distribution",
        "3",
        "--simulate",
        "2000",
        "--exact",
        "-q",
    )
    assert code == 0
    assert "state (1, 2, 2, 5, 6): expected cost 10.460227273 = 1841/176" in out
    assert "  (2, 2)        10.460227273  best" in out
    assert "state (4, 4, 4, 4, 4): expected cost 0.000000000 = 0 (goal)" in out
    assert "    1  0.000771605" in out and "median 10, 90th percentile 19" in out
    assert "simulation: 2,000 games (seed 0): mean cost" in out


def test_game_summary_and_query(capsys):
    code, out, _ = solve(
        capsys, "perfectplay.examples.tictactoe:TicTacToe", "--query", "'X........'", "-q"
    )
    assert code == 0
    assert "start value: TIE in 9 for the player to move first" in out
    assert "positions: 5,478" in out
    assert "  4     TIE in 8  best" in out and "  1     LOSE in 6" in out


def test_params_and_loopy_game(capsys):
    code, out, _ = solve(capsys, "perfectplay.examples.dodgem:Dodgem", "-p", "n=3", "-q")
    assert code == 0 and "start value: WIN in 19" in out
    assert "best first moves: ((0, 2), 'E')" in out


def test_export_then_load(capsys, tmp_path):
    target = tmp_path / "table.npz"
    code, out, _ = solve(
        capsys,
        "perfectplay.examples.chutes_ladders:ChutesAndLadders",
        "--export",
        str(target),
        "-q",
    )
    assert code == 0 and f"table: {target} (82 rows)" in out
    from perfectplay.models import load_solution

    table = load_solution(target)
    assert abs(table.start_value - 39.225122308) < 1e-9


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_a_module_of_functions_is_a_model(capsys, tmp_path):
    path = write(
        tmp_path,
        "walk.py",
        """
        from fractions import Fraction

        start = 0

        def is_goal(pos):
            return pos >= 2

        def choices(pos):
            return [pos]          # roll from here

        def roll(pos):            # a fair coin: step forward or stay
            return [(pos + 1, Fraction(1, 2)), (pos, Fraction(1, 2))]
        """,
    )
    code, out, _ = solve(capsys, str(path), "--exact", "-q")
    assert code == 0 and "exact: 4  (verified optimal)" in out and "policy-iteration" in out


def test_a_class_with_parameters_from_a_file(capsys, tmp_path):
    path = write(
        tmp_path,
        "piles.py",
        """
        from perfectplay.models import GameModel

        class Subtract(GameModel):
            def __init__(self, n=7, take=(1, 2, 3)):
                self.start, self.take = n, take
            def moves(self, n):
                return [k for k in self.take if k <= n]
            def play(self, n, k):
                return n - k
        """,
    )
    code, out, _ = solve(capsys, f"{path}:Subtract", "-p", "n=8", "--query", "5", "-q")
    assert code == 0 and "start value: LOSE in 4" in out
    assert "position 5: WIN in 3 for the player to move" in out


def one_error_line(capsys, *args) -> str:
    code, out, err = solve(capsys, *args)
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and err.startswith("perfectplay: "), err
    assert "Traceback" not in err
    return err


def test_errors_are_one_line(capsys, tmp_path):
    assert "no such file" in one_error_line(capsys, str(tmp_path / "nope.py"))
    bad = write(tmp_path, "bad.py", "x = 1\ndef f(:\n")
    assert f"{bad}:2: syntax error" in one_error_line(capsys, f"{bad}:Model")
    assert "nothing after the colon" in one_error_line(capsys, f"{bad}:")
    assert "no 'Missing'" in one_error_line(capsys, "perfectplay.examples.five_dice:Missing")
    assert "no module named 'no_such_module'" in one_error_line(capsys, "no_such_module:X")
    err = one_error_line(capsys, "perfectplay.examples.five_dice:FiveDice", "-p", "dice=99")
    assert "FiveDice(dice=99) failed: InputError: dice must be 1..12" in err
    err = one_error_line(capsys, "perfectplay.examples.five_dice:FiveDice", "-p", "dice")
    assert "expected NAME=VALUE" in err
    err = one_error_line(capsys, "perfectplay.examples.five_dice:FiveDice", "--query", "(1, 2")
    assert "is not a Python literal" in err
    err = one_error_line(capsys, "perfectplay.examples.five_dice:FiveDice", "--query", "(1, 2)")
    assert "state (1, 2) is not reachable" in err
    err = one_error_line(capsys, "perfectplay.examples.tictactoe:TicTacToe", "--exact")
    assert "--exact applies to chance models" in err
    with pytest.raises(SystemExit) as stop:  # argparse's own refusal, one usage line
        solve(capsys, "perfectplay.examples.five_dice:FiveDice", "--distribution", "0")
    assert stop.value.code == 2
    assert "--distribution: expected a positive integer, got 0" in capsys.readouterr().err
    err = one_error_line(
        capsys, "perfectplay.examples.five_dice:FiveDice", "--distribution", "10000001"
    )
    assert "a distribution up to k = 10,000,001 is too much work" in err
    err = one_error_line(capsys, "perfectplay.examples.five_dice", "-q")
    assert "is not a model" in err
    importing = write(tmp_path, "raises.py", "raise RuntimeError('at import')\n")
    assert "importing" in one_error_line(capsys, str(importing))


def test_misbehaving_and_infinite_models_exit_2(capsys, tmp_path):
    path = write(
        tmp_path,
        "broken.py",
        """
        class Grows:
            start = 0
            def is_goal(self, s): return False
            def choices(self, s): return [s]
            def roll(self, s): return [(s + 1, 1)]

        class Raises(Grows):
            def roll(self, s): return [(s + 1, 1)] if s < 3 else 1 / 0

        class Floaty(Grows):
            def roll(self, s): return [(s + 1, 1 / 3)]
        """,
    )
    err = one_error_line(capsys, f"{path}:Grows", "--max-states", "50")
    assert "more than 50 states and rolls; the space may be infinite" in err
    err = one_error_line(capsys, f"{path}:Raises")
    assert "Raises.roll(3) raised ZeroDivisionError: division by zero" in err
    err = one_error_line(capsys, f"{path}:Floaty")
    assert "is a float; give an int or a fractions.Fraction" in err


def test_two_player_solve_needs_neither_numpy_nor_numba():
    code = (
        "import sys; from perfectplay import cli\n"
        "rc = cli.main(['solve', 'perfectplay.examples.tictactoe:TicTacToe', '-q'])\n"
        "bad = [m for m in ('numpy', 'numba') if m in sys.modules]\n"
        "print('imported:', bad)\n"
        "sys.exit(rc or len(bad))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "TIE in 9" in res.stdout and "imported: []" in res.stdout


def test_real_interpreter_exit_status(tmp_path):
    res = subprocess.run(
        [sys.executable, "-m", "perfectplay", "solve", "perfectplay.examples.five_dice:Nope"],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 2 and res.stderr.count("\n") == 1


def test_help_has_examples(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["solve", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "five_dice:FiveDice --exact" in out


# -- the reviewer's cases: each a one-line error with exit status 2 -----------------------


def test_seed_out_of_the_generators_range_is_refused(capsys):
    spec = "perfectplay.examples.five_dice:FiveDice"
    for seed in ("99999999999999999999999", "4294967296", "-1", "1e3"):
        with pytest.raises(SystemExit) as info:  # argparse: usage and the error, status 2
            cli.main(["solve", spec, "--simulate", "10", "--seed", seed, "-q"])
        err = capsys.readouterr().err
        assert info.value.code == 2 and "a seed is 0 to 4294967295" in err
    code, out, _ = solve(capsys, spec, "--simulate", "10", "--seed", "4294967295", "-q")
    assert code == 0 and "(seed 4294967295)" in out


def test_model_mistakes_named_on_the_command_line(capsys, tmp_path):
    path = write(
        tmp_path,
        "odd.py",
        """
        class RaisingStart:
            @property
            def start(self):
                raise RuntimeError("no board yet")
            def moves(self, p): return []
            def play(self, p, m): return p

        class Endless:
            start = 0
            def is_goal(self, s): return False
            def choices(self, s): return ["r"]
            def roll(self, p):
                while True:
                    yield (1, 1)

        class ListStart:
            start = [0]
            def moves(self, p): return []
            def play(self, p, m): return p
        """,
    )
    err = one_error_line(capsys, f"{path}:RaisingStart")
    assert "RaisingStart: reading the attribute start raised RuntimeError: no board yet" in err
    err = one_error_line(capsys, f"{path}:Endless", "--max-per-call", "500")
    assert "Endless.roll('r') gave more than 500 outcomes in one call" in err
    err = one_error_line(capsys, f"{path}:ListStart")
    assert "the start state [0] (the attribute ListStart.start) is not hashable" in err
    err = one_error_line(capsys, f"{path}:Endless", "--max-per-call", "0")
    assert "--max-per-call must be 1.." in err


def test_directories_and_non_models_are_named_for_what_they_are(capsys, tmp_path):
    err = one_error_line(capsys, str(tmp_path))
    assert "is a directory; give a .py file" in err and "no such file" not in err
    err = one_error_line(capsys, "os:path")
    assert "os:path: the module posixpath is not a model (it has neither roll() nor play())" in err
    err = one_error_line(capsys, "os:getcwd")
    assert "os:getcwd: the str '" in err and "is not a model" in err
    # a table path that cannot be written: status 1 (a file asked for, as --save), before
    # the solve prints anything
    code, out, err = solve(capsys, "perfectplay.examples.five_dice:FiveDice", "--export",
                           f"{tmp_path}/")  # fmt: skip
    assert code == 1 and out == "" and err.count("\n") == 1, (out, err)
    assert "is a directory; give the file to write" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "model, good, bad",
    [
        ("perfectplay.examples.five_dice:FiveDice", "(1,1,1,1,1)", "(9,9)"),
        ("perfectplay.examples.tictactoe:TicTacToe", "'.........'", "'XXXXXXXXX'"),
        ("perfectplay.examples.pig:Piglet", "(0,0,0)", "(99,0,0)"),
    ],
)
def test_a_refused_query_prints_nothing_else(capsys, model, good, bad):
    """A query refused after others were answered leaves stdout empty (one error line,
    exit 2), not a summary cut short."""
    code, out, err = solve(capsys, model, "--query", good, "--query", bad, "-q")
    assert code == 2 and out == "" and err.count("\n") == 1, (out, err)
