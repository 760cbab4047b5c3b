"""One set of conventions for every command (docs/cli.md): quiet means quiet, ``--json``
is one object a line for every kind of game and carries ``--query``, numbers follow one
rule with ``--digits``, files written are reported, a terminal gets the usage; and the
library never imports its command line."""

from __future__ import annotations

import ast
import io
import json
import sys
from pathlib import Path

import pytest

from perfectplay import cli
from perfectplay._util import progress

SRC = Path(__file__).resolve().parent.parent / "src" / "perfectplay"
FIVE_DICE = "perfectplay.examples.five_dice:FiveDice"
TICTACTOE = "perfectplay.examples.tictactoe:TicTacToe"
PIGLET = "perfectplay.examples.pig:Piglet"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = cli.main(list(argv))
    except SystemExit as exc:  # argparse's own errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def eager_progress(monkeypatch):
    """Progress reports print from the first update (no delay), so a test sees them."""
    monkeypatch.delenv("PERFECTPLAY_QUIET", raising=False)
    monkeypatch.setattr(progress.Progress.__init__, "__defaults__", (0.0, 0.0, None))


# --- quiet --------------------------------------------------------------------------------


def test_q_silences_the_exact_evaluation_and_the_timings(capsys, eager_progress):
    code, out, err = run(capsys, "solve", PIGLET, "-p", "goal=4", "--exact")
    assert code == 0 and "perfectplay: " in err  # progress and timings when not quiet
    code, quiet_out, quiet_err = run(capsys, "solve", PIGLET, "-p", "goal=4", "--exact", "-q")
    assert code == 0 and quiet_err == "" and quiet_out == out


def test_the_environment_silences_the_time_line(capsys, monkeypatch):
    monkeypatch.delenv("PERFECTPLAY_QUIET", raising=False)
    code, out, err = run(capsys, "solve", FIVE_DICE)
    assert code == 0 and "time: explore" in err
    monkeypatch.setenv("PERFECTPLAY_QUIET", "1")
    code, quiet_out, quiet_err = run(capsys, "solve", FIVE_DICE)
    assert code == 0 and quiet_err == "" and quiet_out == out


def test_gallery_commands_take_q(capsys, eager_progress):
    code, out, err = run(capsys, "yeetzhee", "--example")
    assert code == 0 and "cases solved" in err
    code, quiet_out, quiet_err = run(capsys, "yeetzhee", "--example", "-q")
    assert code == 0 and quiet_err == "" and quiet_out == out


# --- JSON ---------------------------------------------------------------------------------


def one_object(out: str) -> dict:
    lines = out.splitlines()
    assert len(lines) == 1, out
    return json.loads(lines[0])


def test_json_for_a_two_player_model_with_queries(capsys):
    code, out, _ = run(capsys, "solve", TICTACTOE, "--json", "-q", "--query", "'X........'")
    obj = one_object(out)
    assert code == 0 and obj["kind"] == "game" and obj["value"] == "tie"
    assert obj["remoteness"] == 9 and obj["positions"] == 5478
    (query,) = obj["queries"]
    assert query["position"] == "'X........'" and query["value"] == "tie"
    best = [m["move"] for m in query["moves"] if m["best"]]
    assert best == ["4"]  # the centre is the only reply that keeps the tie


def test_json_carries_the_queries_of_a_chance_model(capsys):
    code, out, _ = run(
        capsys, "solve", FIVE_DICE, "--json", "--exact", "-q", "--query", "(1, 2, 2, 5, 6)"
    )
    (query,) = one_object(out)["queries"]
    assert code == 0 and query["state"] == "(1, 2, 2, 5, 6)" and not query["goal"]
    assert query["options"][0]["best"] and query["options"][0]["value"] == query["value"]
    assert "/" in query["exact"]


def test_json_carries_the_queries_of_a_two_player_dice_game(capsys):
    code, out, _ = run(
        capsys,
        "solve",
        PIGLET,
        "-p",
        "goal=2",
        "--json",
        "--exact",
        "-q",
        "--query",
        "(0, 0, 1)",
    )
    (query,) = one_object(out)["queries"]
    assert code == 0 and query["exact"] == "5/7"
    assert [(o["move"], o["best"]) for o in query["options"]] == [
        ("'roll'", True),
        ("'hold'", False),
    ]


@pytest.mark.parametrize(
    "argv",
    [
        ("alea", "--example", "--json", "--explain", "--distribution", "2"),
        ("alea", "advise", "--example", "--roll", "PXRES", "--json"),
    ],
)
def test_alea_json_is_one_line(capsys, argv):
    code, out, _ = run(capsys, *argv)
    assert code == 0 and isinstance(one_object(out), dict)


# --- numbers ------------------------------------------------------------------------------


def test_digits(capsys):
    code, out, _ = run(capsys, "solve", FIVE_DICE, "-q", "--digits", "3")
    assert code == 0 and "start value: 11.090\n" in out
    code, out, _ = run(capsys, "solve", PIGLET, "-p", "goal=2", "-q", "--digits", "4")
    assert code == 0 and "start value: 0.5714  (" in out
    code, out, _ = run(capsys, "alea", "--example", "--digits", "12")
    assert code == 0 and out == "9.677887141370\n"
    code, out, _ = run(capsys, "yeetzhee", "--example", "-q", "--digits", "2")
    assert code == 0 and out == "Case #1: 4.70\nCase #2: 9.00\n"
    code, _, err = run(capsys, "alea", "--example", "--digits", "18")
    assert code == 2 and "expected 0 to 17 decimals" in err


def test_the_same_kind_of_value_has_the_same_decimals(capsys):
    # a one-player expected cost and a two-player winning chance: 9 decimals each
    _, one, _ = run(capsys, "solve", FIVE_DICE, "-q")
    _, two, _ = run(capsys, "solve", PIGLET, "-p", "goal=2", "-q")
    for out in (one, two):
        line = next(x for x in out.splitlines() if x.startswith("start value: "))
        number = line.removeprefix("start value: ").split()[0]
        assert len(number.partition(".")[2]) == 9, line


# --- files written, input from a terminal -------------------------------------------------


def test_export_says_what_it_wrote(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("PERFECTPLAY_QUIET", raising=False)
    target = tmp_path / "t.npz"
    code, _, err = run(capsys, "solve", FIVE_DICE, "--export", str(target))
    assert code == 0 and f"perfectplay: wrote the table to {target} (253 rows)" in err
    code, _, err = run(capsys, "solve", FIVE_DICE, "--export", str(target), "-q")
    assert code == 0 and err == ""


def test_save_says_what_it_wrote(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("PERFECTPLAY_QUIET", raising=False)
    rules = tmp_path / "minirules.py"
    rules.write_text(
        "from perfectplay.yahtzee import Category, Rules\n"
        "MINI = Rules('mini', (Category.upper(1, 'ones'), Category('chance', sum)), dice=2,\n"
        "             faces=3, rolls=2, upper_threshold=0)\n"
    )
    saved = tmp_path / "mini.table"
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    argv = ("yahtzee", str(empty), "--rules", f"{rules}:MINI", "--save", str(saved))
    code, _, err = run(capsys, *argv)
    assert code == 0 and f"perfectplay: saved the table of mini to {saved}" in err
    code, _, err = run(capsys, *argv, "-q")
    assert code == 0 and err == ""
    assert saved.exists()


def test_a_terminal_on_stdin_gets_the_usage(capsys, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Terminal())
    code, out, err = run(capsys, "alea")
    assert code == 2 and out == "" and err.startswith("usage: perfectplay alea")
    assert "give FILE, pipe the input to stdin, or use --example" in err
    # '-' still reads the terminal on purpose, and --example needs no input
    code, out, _ = run(capsys, "dispdom", "--example")
    assert code == 0 and out == "Alice\n"


# --- layers -------------------------------------------------------------------------------


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_the_library_never_imports_its_command_line():
    # site/ has its own helper and the entry point __main__.py is the command itself.
    offenders = [
        path.relative_to(SRC).as_posix()
        for path in sorted(SRC.rglob("*.py"))
        if not path.relative_to(SRC).as_posix().startswith(("cli/", "site/", "__main__.py"))
        and any(
            m == "perfectplay.cli" or m.startswith("perfectplay.cli.")
            for m in imported_modules(path)
        )
    ]
    assert not offenders, f"import perfectplay.cli outside cli/: {offenders}"


def test_every_gallery_entry_runs_through_hooks():
    from perfectplay.problems import REGISTRY, Problem

    for problem in REGISTRY.values():
        entries = [problem, *problem.subcommands.values()]
        for entry in entries:
            assert isinstance(entry, Problem)
            assert callable(entry.parse) and callable(entry.solve) and callable(entry.format)
            assert entry.to_json is not None, f"{entry.name}: --json needs to_json"


def test_plot_without_matplotlib_is_refused_before_any_work(capsys, monkeypatch, tmp_path):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "matplotlib" else real(name, *a),
    )
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    code, out, err = run(capsys, "yahtzee", str(empty), "--distribution", "--plot", "d.png")
    assert code == 2 and out == ""
    assert err == "perfectplay: --plot needs matplotlib: pip install 'perfectplay[plot]'\n"
