"""``perfectplay yahtzee``: the empty card's value, the official output, advise, tables,
user rules, JSON and every bad input as one line with exit status 2."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from perfectplay import cli
from perfectplay.problems.yahtzee import parse, solve
from perfectplay.problems.yahtzee.cli import EXAMPLE
from perfectplay.yahtzee import YahtzeeSolution, rules

# Verhoeff 1999 (254.5896), Glenn 2006, yatzy-solver; copied from
# ../shared/testdata/published/README.md ("Solitaire Yahtzee, optimal expected final score").
AMERICAN_VALUE = 254.5896095


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """The american table, solved once for the module (and kept by the process)."""
    path = tmp_path_factory.mktemp("yahtzee") / "american.table"
    solve(rules("american"), save=str(path))
    return str(path)


@pytest.fixture(scope="module")
def american():
    return solve(rules("american"))


def run(capsys, *argv: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        import io

        assert monkeypatch is not None
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    try:
        code = cli.main(["yahtzee", *argv])
    except SystemExit as exc:  # argparse's own errors and --help
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# --- values -------------------------------------------------------------------------------


def test_empty_input_prints_the_published_value(capsys, tmp_path, table):
    empty = write(tmp_path, "empty.txt", "")
    code, out, err = run(capsys, empty, "--load", table)
    assert code == 0 and err == "" and out == "254.5896095\n"
    assert abs(float(out) - AMERICAN_VALUE) <= 1e-6
    # solving in this process (the table is kept) gives the same line
    code, out2, _ = run(capsys, write(tmp_path, "c.txt", "# only a comment\n\nrules american\n"))
    assert code == 0 and out2 == out


def test_official_output_is_the_best_option_of_each_situation(capsys, tmp_path, american):
    code, out, err = run(capsys, "--example")
    assert code == 0 and err == ""
    inst = parse(EXAMPLE)
    lines = out.splitlines()
    assert len(lines) == len(inst.situations) == 3
    for line, sit in zip(lines, inst.situations, strict=True):
        best = american.options(sit.situation)[0]
        assert line == f"{best.action} {best.value:.7f}"
        assert len(line.rsplit(" ", 1)[1].split(".")[1]) == 7
    # the extra Yahtzee of the example: 100 bonus, joker in the large straight (free joker)
    assert lines[2].startswith("score large_straight ")


def test_example_text_and_json_agree_one_object_per_answer(capsys):
    code, text, _ = run(capsys, "--example")
    code2, out, _ = run(capsys, "--example", "--json")
    assert code == code2 == 0
    objects = [json.loads(line) for line in out.splitlines()]
    assert [o["answer"] for o in objects] == text.splitlines()
    for o in objects:
        assert set(o) == {"rules", "line", "situation", "answer", "action", "value", "keep", "box"}
        assert isinstance(o["value"], float) and o["rules"] == "american"
        assert set(o["situation"]) == {"dice", "rolls_left", "filled", "upper", "bonus", "score"}
        assert (o["keep"] is None) != (o["box"] is None)
    assert objects[0]["keep"] == [3, 3] and objects[0]["line"] == 3


def test_empty_input_json(capsys, tmp_path, table):
    code, out, _ = run(capsys, write(tmp_path, "e.txt", ""), "--load", table, "--json")
    obj = json.loads(out)
    assert code == 0 and obj == {
        "rules": "american",
        "answer": "254.5896095",
        "value": obj["value"],
    }
    assert isinstance(obj["value"], float) and abs(obj["value"] - AMERICAN_VALUE) < 1e-6


# --- advise -------------------------------------------------------------------------------

ADVISE = [
    "dice 1 3 3 5 6; rolls left 2; filled ones=3 fives=15 yahtzee=50",
    "dice 6 6 6 6 6; rolls 0; filled sixes=24 yahtzee=50",
    "dice 6 6 6 6 6; rolls 0; filled sixes yahtzee; upper 24; bonus yes; score 140",
    "dice 1 2 3 4 5; rolls 1; filled small_straight=30 large_straight=0",
    "dice 2 2 3 3 3; rolls 0",
]


@pytest.mark.parametrize("situation", ADVISE)
def test_advise_lists_every_option_as_the_api_does(capsys, table, american, situation):
    code, out, err = run(capsys, "advise", "--load", table, "--all", "--json", situation)
    assert code == 0 and err == ""
    obj = json.loads(out)
    sit = parse(situation).situations[0].situation
    api = american.options(sit)
    assert [o["action"] for o in obj["options"]] == [o.action for o in api]
    assert all(abs(o["value"] - a.value) < 1e-9 for o, a in zip(obj["options"], api, strict=True))
    assert obj["value"] == obj["options"][0]["value"] and obj["best"] == api[0].action
    assert obj["more_options"] == 0 and obj["rules"] == "american"
    values = [o["value"] for o in obj["options"]]
    assert values == sorted(values, reverse=True)
    if sit.rolls_left:
        kept = [tuple(o["keep"]) for o in obj["options"]]
        assert len(set(kept)) == len(kept) and tuple(sorted(sit.dice)) in kept and () in kept
    else:
        assert all(o["keep"] is None and o["box"] not in sit.card.filled for o in obj["options"])
    # the text lists the same options in the same order, 7 decimals
    code, text, _ = run(capsys, "advise", "--load", table, situation)
    rows = [line.split() for line in text.splitlines() if line.startswith("  ")]
    assert [" ".join(r[1:]) for r in rows] == [o.action for o in api]
    assert [r[0] for r in rows] == [f"{o.value:.7f}" for o in api]
    assert f"best: {api[0].action}, expected final score {api[0].value:.7f}" in text


def test_advise_top_and_unknown_score(capsys, table):
    code, out, _ = run(capsys, "advise", "--load", table, "--top", "3", "dice 1 3 3 5 6; rolls 2")
    lines = out.splitlines()
    assert code == 0 and lines[0] == (
        "american rules: 35 bonus at 63, 100 per extra Yahtzee, free joker (Verhoeff 1999). "
        "Optimal expected final score from an empty card: 254.5896095"
    )
    assert lines[1] == "situation: dice 1 3 3 5 6, 2 rolls left; empty card"
    assert sum(line.startswith("  ") and "more" not in line for line in lines) == 3
    assert lines[-1].startswith("  ... ") and "(--all shows them)" in lines[-1]
    code, out, _ = run(
        capsys, "advise", "--load", table, "--top", "3", "--json", "dice 1 3 3 5 6; rolls 2"
    )
    obj = json.loads(out)
    assert len(obj["options"]) == 3 and obj["more_options"] > 0 and obj["score_known"]
    code, out, _ = run(
        capsys, "advise", "--load", table, "dice 66666; rolls 0; filled sixes; upper 24"
    )
    assert code == 0 and "the score so far is unknown" in out


def test_advise_many_situations_from_a_file_and_stdin(
    capsys, tmp_path, table, monkeypatch, american
):
    text = "rules american\n" + "\n".join(ADVISE[:3]) + "\n"
    code, out, _ = run(
        capsys, "advise", "--load", table, "--top", "1", "--file", write(tmp_path, "s.txt", text)
    )
    assert code == 0 and out.count("best: ") == 3 and out.count("\n\n") == 2
    code, out2, _ = run(
        capsys, "advise", "--load", table, "--top", "1", "-", stdin=text, monkeypatch=monkeypatch
    )
    assert code == 0 and out2 == out
    code, out, _ = run(
        capsys, "advise", "--load", table, "--json", "--file", write(tmp_path, "s2.txt", text)
    )
    expected = [american.options(line.situation)[0].action for line in parse(text).situations]
    assert [json.loads(line)["best"] for line in out.splitlines()] == expected


def test_stdin_and_save_load_through_the_real_interpreter(tmp_path, american):
    saved = tmp_path / "t.table"
    res = subprocess.run(
        [sys.executable, "-m", "perfectplay", "yahtzee", "--save", str(saved)],
        input=b"dice 1 3 3 5 6; rolls left 2\n",
        capture_output=True,
    )
    assert res.returncode == 0
    best = american.options(parse("dice 13356; rolls 2").situations[0].situation)[0]
    assert best.action == "keep 3 3" and res.stdout.decode() == f"keep 3 3 {best.value:.7f}\n"
    loaded = YahtzeeSolution.load(saved)
    both = ~np.isnan(american.values)
    assert np.array_equal(np.isnan(loaded.values), ~both)
    assert np.array_equal(loaded.values[both], american.values[both])
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "perfectplay",
            "yahtzee",
            "advise",
            "--load",
            str(saved),
            "--top",
            "1",
            "dice 1 3 3 5 6; rolls left 2",
        ],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0 and res.stderr == "" and "best: keep 3 3" in res.stdout


# --- user rules ---------------------------------------------------------------------------

MINI = """\
from perfectplay.yahtzee import Category, Rules

MINI = Rules(
    "mini",
    (Category.upper(1, "ones"), Category.upper(2, "twos"), Category("chance", sum)),
    dice=2, faces=3, rolls=2, upper_threshold=3, upper_bonus=5,
)
NOT_RULES = 42
"""


def test_rules_from_a_users_file(capsys, tmp_path):
    spec = write(tmp_path, "minirules.py", MINI) + ":MINI"
    empty = write(tmp_path, "empty.txt", "")
    saved = str(tmp_path / "mini.table")
    code, out, _ = run(capsys, empty, "--rules", spec, "--save", saved)
    from perfectplay.problems.yahtzee import resolve_rules

    value = solve(resolve_rules(spec)).value()
    assert code == 0 and out == f"{value:.7f}\n"
    code, out, _ = run(
        capsys,
        "advise",
        "--rules",
        spec,
        "--load",
        saved,
        "--json",
        "dice 1 2; rolls 1; filled twos=2",
    )
    obj = json.loads(out)
    assert code == 0 and obj["rules"] == "mini" and obj["options"][0]["keep"] is not None
    # a table of user rules needs those rules to be read
    code, _, err = run(capsys, empty, "--load", saved)
    assert code == 2 and "made for rules 'mini'" in err and err.count("\n") == 1
    code, _, err = run(capsys, empty, "--load", saved, "--rules", "american")
    assert code == 2 and "made for other rules" in err
    code, _, err = run(capsys, empty, "--rules", spec.replace(":MINI", ":NOT_RULES"))
    assert code == 2 and "names a int object, not a yahtzee Rules" in err
    # the same name after the user edited the rules: "made for other rules ('mini'), not
    # 'mini'" told nothing
    edited = write(tmp_path, "edited.py", MINI.replace("upper_bonus=5", "upper_bonus=6"))
    code, _, err = run(capsys, empty, "--load", saved, "--rules", edited + ":MINI")
    assert code == 2 and err.count("\n") == 1
    assert "made for another version of rules 'mini' (they have changed" in err


# --- bad input ----------------------------------------------------------------------------


def _bad_tables(tmp_path, table: str) -> dict[str, str]:
    data = open(table, "rb").read()
    header_end = data.index(b"\n", len(b"perfectplay yahtzee table\n")) + 1
    corrupt = bytearray(data)
    corrupt[header_end + 1000] ^= 0xFF
    files = {
        "truncated": data[: header_end + 4000],
        "corrupt": bytes(corrupt),
        "text": b"dice 1 2 3 4 5; rolls 0\n",
        "header": data[: header_end - 5],
        "json": b"perfectplay yahtzee table\n[1, 2]\n",
        "empty": b"",
    }
    out = {}
    for name, content in files.items():
        path = tmp_path / f"{name}.table"
        path.write_bytes(content)
        out[name] = str(path)
    return out


def test_bad_tables_are_one_line(capsys, tmp_path, table):
    situation = "dice 1 3 3 5 6; rolls 2"
    bad = _bad_tables(tmp_path, table)
    expected = {
        "truncated": "truncated or corrupt table",
        "corrupt": "checksum mismatch",
        "text": "not a perfectplay yahtzee table",
        "header": "corrupt header",
        "json": "corrupt header",
        "empty": "not a perfectplay yahtzee table",
    }
    for name, path in bad.items():
        for argv in (
            ["advise", "--load", path, situation],
            ["--load", path, write(tmp_path, "in.txt", situation)],
        ):
            code, out, err = run(capsys, *argv)
            assert code == 2 and out == "" and err.count("\n") == 1, (name, err)
            assert f"--load {path}: {expected[name]}" in err, err
    for path, fragment in (
        (str(tmp_path / "missing.table"), "No such file"),
        (str(tmp_path), "Is a directory"),
    ):
        code, _, err = run(capsys, "advise", "--load", path, situation)
        assert code == 2 and fragment in err and err.count("\n") == 1
    # a table of other rules
    code, _, err = run(capsys, "advise", "--load", table, "--rules", "yatzy", situation)
    assert code == 2 and "made for other rules ('american'), not 'yatzy'" in err
    code, _, err = run(capsys, "--load", table, write(tmp_path, "y.txt", "rules yatzy\n"))
    assert code == 2 and "y.txt:1: the input is for rules 'yatzy', not 'american'" in err


BAD_LINES = [
    ("dice 1 3 3 5; rolls 2", "dice: expected 5 dice, got 4"),
    ("dice 1 3 3 5 7; rolls 2", "7 is not a face of these dice"),
    ("dice 13356; rolls 3", "rolls left must be from 0 to 2, not 3"),
    ("dice 13356; rolls 2; filled ones=3 ones=2", "box 'ones' is filled twice"),
    ("dice 13356; rolls 2; filled onez", "'onez' is not a box of american"),
    ("dice 13356; rolls 2; filled fives=7", "box 'fives' cannot score 7"),
    ("dice 13356; rolls 2; filled ones; upper 7", "the filled upper boxes cannot total 7"),
    ("dice 13356; rolls 2; filled ones=1; upper 7", "does not match the upper boxes (1)"),
    ("dice 13356 rolls 2", "missing field 'rolls left'"),
    ("dice 13356; rolls 2; " + "Q" * 10**5, "'" + "Q" * 20 + "...'"),
    ("dice 13356; rolls " + "9" * 5000, "rolls left '99999999999999999999...' is out of range"),
]


@pytest.mark.parametrize(("line", "fragment"), BAD_LINES)
def test_bad_situations_are_one_line_naming_the_line(capsys, tmp_path, table, line, fragment):
    path = write(tmp_path, "in.txt", f"rules american\r\n# ok\r\n\r\n{line}\r\n")
    code, out, err = run(capsys, path, "--load", table)
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert "in.txt:4: " in err and fragment in err, err
    assert len(err) < 300
    code, out, err = run(capsys, "advise", "--load", table, line)
    assert code == 2 and err.startswith("perfectplay: situation: ") and fragment in err


def test_bad_arguments_are_one_line(capsys, tmp_path, table):
    cases = [
        (
            ["--rules", "nope", write(tmp_path, "e.txt", "")],
            "--rules: unknown rules 'nope'; known: american, american-forced-joker, "
            "american-no-joker, american-no-bonus, yatzy",
        ),
        (
            ["--rules", str(tmp_path / "none.py") + ":R", write(tmp_path, "e.txt", "")],
            "no such file",
        ),
        (["advise"], "give a SITUATION, --file FILE, or -"),
        (["advise", "x", "--file", "y"], "give SITUATION or --file, not both"),
        (["advise", "--top", "0", "x"], "expected a positive integer, got 0"),
        (["advise", "--top", "2", "--all", "x"], "not allowed with argument"),
        (["advise", "--load", "", "x"], "expected a file name"),
        (["--example", write(tmp_path, "in.txt", "")], "not both"),
        (
            ["advise", "--load", table, "--file", write(tmp_path, "blank.txt", "\n# none\n")],
            "no situation in the input",
        ),
        (["advise", "--load", table, "--file", str(tmp_path / "missing.txt")], "no such file"),
    ]
    for argv, fragment in cases:
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1, (argv, err)
        assert fragment in err, (argv, err)


def test_help(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "examples:" in out and "perfectplay yahtzee advise" in out
    assert "rules NAME" in out and "254.5896095" in out
    code, out, _ = run(capsys, "advise", "--help")
    assert code == 0 and "examples:" in out and "--load" in out and "--top" in out


def test_progress_goes_to_stderr_while_solving(tmp_path):
    mini = write(tmp_path, "m.py", MINI)
    res = subprocess.run(
        [sys.executable, "-m", "perfectplay", "yahtzee", "--rules", f"{mini}:MINI"],
        input=b"",
        capture_output=True,
    )
    value = float(res.stdout)
    assert res.returncode == 0 and math.isfinite(value)
    assert res.stdout.count(b"\n") == 1  # progress (if any: the solve is short) never on stdout


# --- the documentation page ---------------------------------------------------------------

DOC = Path(__file__).resolve().parents[2] / "docs" / "yahtzee.md"


def test_documentation_page_examples_are_real(tmp_path, monkeypatch, capsys, table):
    """Every `$ perfectplay yahtzee ...` line of docs/yahtzee.md prints what the page shows
    (files shown with `$ cat` are written first), and its Python examples run."""
    import doctest
    import shlex
    import shutil

    assert doctest.testfile(str(DOC), module_relative=False).failed == 0
    shutil.copy(table, tmp_path / "american.table")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PERFECTPLAY_QUIET", "1")  # progress of long runs is not the output
    checked = 0
    for block in DOC.read_text().split("```")[1::2]:
        lines = block.strip("\n").splitlines()
        for k, line in enumerate(lines):
            if not line.startswith("$ "):
                continue
            shown = []
            for out in lines[k + 1 :]:
                if out.startswith("$ "):
                    break
                shown.append(out)
            argv = shlex.split(line[2:])
            if argv[0] == "cat":
                (tmp_path / argv[1]).write_text("\n".join(shown) + "\n")
                continue
            assert argv[:2] == ["perfectplay", "yahtzee"], line
            import io

            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
            code = cli.main(argv[1:])
            out, err = capsys.readouterr()
            assert (out + err).splitlines() == shown, line
            assert code == (2 if err else 0), line
            checked += 1
    assert checked >= 4


def test_line_ends_and_white_space_as_every_command(capsys, tmp_path, table, american):
    # Lines end at \n, \r\n or a lone \r; a form feed or tab inside a line separates tokens.
    path = tmp_path / "cr.txt"
    path.write_bytes(
        b"rules american\r# c\rdice 1 3 3 5 6;\x0crolls\tleft 2\r\rdice 13356; rolls 9\r"
    )
    code, _, err = run(capsys, str(path), "--load", table)
    assert code == 2 and "cr.txt:5: rolls left must be from 0 to 2, not 9" in err
    path.write_bytes(b"rules american\r# c\rdice 1 3 3 5 6;\x0crolls\tleft 2\r")
    code, out, _ = run(capsys, str(path), "--load", table)
    best = american.options(parse("dice 1 3 3 5 6; rolls 2").situations[0].situation)[0]
    assert code == 0 and out == f"{best.action} {best.value:.7f}\n"


def test_a_terminal_on_stdin_means_the_empty_card_not_waiting_for_input():
    import pty

    _, terminal = pty.openpty()
    res = subprocess.run(
        [sys.executable, "-m", "perfectplay", "yahtzee", "--rules", "american-no-bonus"],
        stdin=terminal,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0 and res.stdout == "245.8707745\n"


# --- simulation and distribution ------------------------------------------------------------


def test_simulate_and_distribution_of_users_rules(capsys, tmp_path):
    spec = write(tmp_path, "minirules.py", MINI) + ":MINI"
    empty = write(tmp_path, "empty.txt", "")
    from perfectplay.problems.yahtzee import resolve_rules

    value = solve(resolve_rules(spec)).value()
    code, out, _ = run(
        capsys, empty, "--rules", spec, "--distribution", "--simulate", "4000", "--seed", "3"
    )
    assert code == 0
    assert out.startswith(f"{value:.7f}\nsimulated 4,000 games (seed 3): mean ")
    assert f"final score distribution (exact): mean {value:.7f}" in out
    code, out, _ = run(
        capsys,
        empty,
        "--rules",
        spec,
        "--json",
        "--distribution",
        "--simulate",
        "4000",
        "--seed",
        "3",
    )
    obj = json.loads(out)
    sim, dist = obj["simulation"], obj["distribution"]
    assert code == 0 and obj["value"] == pytest.approx(value, abs=1e-9)
    assert abs(sim["mean"] - value) < 4 * sim["standard_error"]
    assert sum(sim["histogram"]["counts"]) == 4000 and sim["seed"] == 3
    assert dist["mean"] == pytest.approx(value, abs=1e-9) and sum(dist["pmf"]) == pytest.approx(1)
    code, again, _ = run(
        capsys,
        empty,
        "--rules",
        spec,
        "--json",
        "--distribution",
        "--simulate",
        "4000",
        "--seed",
        "3",
    )
    assert again == out  # seeded: the same games


def test_simulate_american_from_a_table(capsys, table):
    code, out, _ = run(capsys, os.devnull, "--load", table, "--simulate", "2000", "--json")
    sim = json.loads(out)["simulation"]
    assert code == 0 and abs(sim["mean"] - AMERICAN_VALUE) < 4 * sim["standard_error"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--plot", "x.png"], "--plot draws the distribution: add --distribution"),
        (["--simulate", "0"], "argument --simulate: expected a positive integer, got 0"),
        (["--simulate", "10", "--seed", "-1"], "argument --seed: expected an integer from 0"),
    ],
)
def test_bad_simulation_arguments(capsys, argv, message):
    code, _, err = run(capsys, os.devnull, *argv)
    assert code == 2 and message in err and err.count("\n") == 1


BROKEN = """\
import sys
from perfectplay.yahtzee import Category, Rules
RAISES = Rules("raises", (Category("boom", lambda d: 1 // 0),), dice=2, upper_threshold=0)
FLOAT = Rules("float", (Category("half", lambda d: sum(d) / 2),), dice=2, upper_threshold=0)
EXITS = Rules("exits", (Category("out", lambda d: sys.exit(3)),), dice=2, upper_threshold=0)
HUGE = Rules("huge", (Category("x", sum),), dice=16, faces=64, upper_threshold=0)
WIDE = Rules("wide", tuple(Category.upper(1, f"u{i}") for i in range(20)),
             upper_threshold=10000, upper_bonus=5)
"""


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("RAISES", "category 'boom' failed for 1 1: ZeroDivisionError: integer division"),
        ("FLOAT", "category 'half' scored 1.0 for 1 1; scores must be ints"),
        ("EXITS", "category 'out' failed for 1 1: SystemExit: 3"),
        ("HUGE", "rules 'huge': 16 dice with 64 faces have"),
        ("WIDE", "needs about"),
    ],
)
def test_a_users_broken_rules_are_one_line(capsys, tmp_path, monkeypatch, name, message):
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "2G")
    spec = write(tmp_path, "broken.py", BROKEN) + f":{name}"
    code, out, err = run(capsys, os.devnull, "--rules", spec)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1
    code, out, err = run(capsys, "advise", "--rules", spec, "dice 1 1; rolls 0")
    assert code == 2 and out == "" and err.count("\n") == 1


def test_reachable_upper_totals_are_checked_before_they_are_allocated(monkeypatch):
    from perfectplay.errors import ResourceLimitError
    from perfectplay.yahtzee import Category, Rules, ScorecardGame

    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "1G")
    wide = Rules(
        "wide",
        tuple(Category.upper(1, f"u{i}") for i in range(20)),
        upper_threshold=10000,
        upper_bonus=5,
    )
    with pytest.raises(ResourceLimitError, match="reachable upper totals of wide"):
        assert ScorecardGame(wide).upper_reach is None  # never reached: refused first
