"""``perfectplay alea``: official output, explain, advise, distribution, exact, JSON, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from perfectplay import cli

DATA = Path(__file__).resolve().parent.parent / "data" / "aleaiactaest"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["alea", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("case", [1, 2, 3, 4])
def test_samples_through_the_command(capsys, case):
    code, out, err = run(capsys, str(DATA / f"{case}.in"))
    expected = (DATA / f"{case}.ans").read_text().strip()
    assert code == 0 and err == ""
    if expected == "impossible":
        assert out == "impossible\n"
    else:
        assert len(out.splitlines()) == 1
        assert abs(float(out) - float(expected)) <= 1e-6 * max(1.0, float(expected))
        assert len(out.strip().split(".")[1]) == 9


def test_stdin_with_the_real_interpreter():
    res = subprocess.run(
        [sys.executable, "-m", "perfectplay", "alea"],
        input=(DATA / "1.in").read_bytes(),
        capture_output=True,
    )
    # stderr holds at most the one-line notice of a first compile (a cold kernel cache)
    notice = b"perfectplay: compiling the kernels this command needs"
    assert res.returncode == 0 and res.stdout == b"9.677887141\n"
    assert res.stderr == b"" or (res.stderr.startswith(notice) and res.stderr.count(b"\n") == 1)


def test_example_explain(capsys):
    code, out, _ = run(capsys, "--example", "--explain")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "9.677887141"
    assert "First move: roll all 5 dice." in out
    assert "it already spells a word" in out and "reroll everything" in out
    # The statement's roll P X R E S: keep P R E S, reroll die 2; 2 rolls expected.
    text = " ".join(out.split())
    assert "first roll of P X R E S, keep P R E S (dice 1, 3, 4, 5) and reroll die 2" in text
    assert "2.000000000 rolls still expected" in text
    # The percentages of what happens after the first roll add up to 100%.
    shares = [
        float(line.split("%")[0])
        for line in lines
        if line.strip().endswith(("word", "everything", "die", "dice")) and "%" in line
    ]
    assert sum(shares) == pytest.approx(100.0, abs=0.05)


def test_explain_impossible(capsys):
    code, out, _ = run(capsys, str(DATA / "4.in"), "--explain")
    assert code == 0 and out.startswith("impossible\nNo word can be formed")


def test_advise(capsys):
    code, out, _ = run(capsys, "advise", "--example", "--roll", "PXRES", "--top", "3")
    lines = out.splitlines()
    assert code == 0
    assert lines[0] == "roll P X R E S: keep P R E S (dice 1, 3, 4, 5) and reroll die 2."
    assert "2.000000000" in lines[1]
    options = [line.split() for line in lines[3:6]]
    assert [o[0] for o in options] == ["2.000000000", "3.333333333", "4.000000000"]
    assert options[0][1:] == ["P", "_", "R", "E", "S"]
    assert "28 more options" in lines[6]


def test_advise_exact_and_word(capsys):
    code, out, _ = run(capsys, "advise", "--example", "--roll", "p x r e s", "--exact", "--all")
    assert code == 0 and "= 10/3" in out and "more options" not in out
    code, out, _ = run(capsys, "advise", "--example", "--roll", "PEAEC")
    assert code == 0 and out == "P E A E C spells PEACE: done, no more rolls needed.\n"


def test_advise_json(capsys):
    code, out, _ = run(capsys, "advise", "--example", "--roll", "PXRES", "--json", "--top", "2")
    obj = json.loads(out)
    assert code == 0 and obj["roll"] == "PXRES" and obj["word"] is None
    assert obj["options"][0] == {
        "keep": [1, 3, 4, 5],
        "reroll": [2],
        "letters": "PRES",
        "expected_rolls": 2.0,
    }
    assert obj["more_options"] == 29


def test_distribution(capsys):
    code, out, _ = run(capsys, str(DATA / "3.in"), "--distribution", "5")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "10.555444555"
    assert lines[2].split() == ["1", f"{1 / 216:.9f}"]
    assert len(lines) == 2 + 5 + 1 and "median" in lines[-1] and "90th percentile" in lines[-1]


def test_exact(capsys):
    code, out, _ = run(capsys, "--example", "--exact")
    assert code == 0
    value = Fraction(out.strip())
    assert f"{float(value):.9f}" == "9.677887141"
    code, out, _ = run(capsys, str(DATA / "4.in"), "--exact")
    assert out == "impossible\n"


def test_json(capsys):
    code, out, _ = run(
        capsys, "--example", "--json", "--explain", "--distribution", "3", "--exact", "--stats"
    )
    obj = json.loads(out)
    assert code == 0 and obj["answer"] == "9.677887141"
    assert Fraction(obj["exact"]) == pytest.approx(obj["expected_rolls"], rel=1e-15)
    assert obj["first_roll"]["example"]["keep"] == [1, 3, 4, 5]
    assert len(obj["distribution"]["within"]) == 3 and obj["distribution"]["median"] == 9
    # 2,880 canonical rolls + start: faces no word uses (X, H, I, L, ...) are one blank face
    assert obj["graph"]["decision_nodes"] == 2881


def test_stats_go_to_stderr(capsys):
    code, out, err = run(capsys, "--example", "--stats", "--symmetry", "none")
    assert code == 0 and out == "9.677887141\n"
    assert "7,777 decision nodes" in err and "time:" in err


BAD = [
    ("", 1, "empty input"),
    ("\n\n", 1, "empty input"),
    ("0 1\n", 1, "d = 0 is out of range"),
    ("7 1\n", 1, "d = 7 is out of range"),
    ("two 1\n", 1, "must be an integer"),
    ("2\n", 2, "expected the number of words"),
    ("2 200001\n", 1, "w = 200001 is out of range"),
    ("2 1\nABCDE\nABCDEF\nAB\n", 2, "die 1: 'ABCDE' must have exactly 6 symbols"),
    ("2 1\nABCDEF\nABCDEFG\nAB\n", 3, "die 2: 'ABCDEFG' must have exactly 6 symbols"),
    ("2 1\nABCDEF\nABC?EF\nAB\n", 3, "symbol '?' is not an uppercase letter"),
    ("2 1\nABCDEF\n", 3, "expected 2 dice, the input ends after 1"),
    ("2 2\nABCDEF\nABCDEF\nAB\n", 5, "expected 2 words, the input ends after 1"),
    ("2 2\nABCDEF\nABCDEF\nAB\nA\n", 5, "word 2: 'A' must have 2 symbols"),
    ("2 1\nABCDEF\nABCDEF\nab\n", 4, "symbol 'a'"),
    ("2 1\nABCDEF\nABCDEF\nAB\nGARBAGE\n", 5, "unexpected 'GARBAGE' after the last word"),
    ("2 1\nABCDEF\nABCDEF\nAB extra\n", 4, "unexpected 'extra'"),
    # A third number on the first line was read as die 1 with no hint of why.
    ("2 1 5\nABCDEF\nABCDEF\nAB\n", 1, "die 1: '5' must have exactly 6 symbols (one per"),
    ("2 1 5\nABCDEF\nABCDEF\nAB\n", 1, "(it follows d and w on their line; the dice start"),
]


@pytest.mark.parametrize("text,line,fragment", BAD)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, text, line, fragment):
    path = tmp_path / "game.txt"
    path.write_text(text)
    code, out, err = run(capsys, str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"perfectplay: {path}:{line}: ") and fragment in err


def test_bad_input_through_the_real_interpreter():
    res = subprocess.run(
        [sys.executable, "-m", "perfectplay", "alea"],
        input=b"2 1\nABCDEF\nABCDEF\nA\n",
        capture_output=True,
    )
    assert res.returncode == 2 and res.stdout == b""
    assert res.stderr == (
        b"perfectplay: <stdin>:4: word 1: 'A' must have 2 symbols (one per die), it has 1\n"
    )


@pytest.mark.parametrize(
    "argv,fragment",
    [
        (["advise", "--example", "--roll", "PXRE"], "one symbol per die (5)"),
        (["advise", "--example", "--roll", "PXRZS"], "die 4 (ABCDEF) has no face 'Z'"),
        (["--distribution", "0", "--example"], "expected a positive integer"),
        (["--example", "game.txt"], "not both"),
        (["no-such-file.txt"], "no such file"),
    ],
)
def test_bad_arguments(capsys, argv, fragment):
    try:
        code = cli.main(["alea", *argv])
    except SystemExit as exc:  # argparse errors exit directly
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and fragment in err


DOC = Path(__file__).resolve().parents[2] / "docs" / "alea.md"


@pytest.mark.skipif(not DOC.exists(), reason="docs/alea.md not present")
def test_documentation_examples_are_real(tmp_path, monkeypatch, capsys):
    """Every `$ perfectplay alea ...` block of docs/alea.md prints what the page shows."""
    import doctest
    import shlex

    from perfectplay.problems.alea.example import example_text

    assert doctest.testfile(str(DOC), module_relative=False).failed == 0
    (tmp_path / "game.txt").write_text(example_text())
    monkeypatch.chdir(tmp_path)
    checked = 0
    for block in DOC.read_text().split("```")[1::2]:
        lines = block.strip("\n").splitlines()
        for k, line in enumerate(lines):
            if not line.startswith("$ perfectplay alea") or "|" in line:
                continue
            shown = []
            for out in lines[k + 1 :]:
                if out.startswith("$ "):
                    break
                shown.append(out)
            code = cli.main(shlex.split(line)[2:])
            out, _ = capsys.readouterr()
            assert code == 0 and out.splitlines() == shown, line
            checked += 1
    assert checked >= 5


def test_refuses_what_does_not_fit_in_memory(tmp_path, monkeypatch, capsys):
    path = tmp_path / "six.txt"
    # Every face is in some word, so no face is blank and the graph has full size.
    words = "AGMSY4 BHNTZ5 CIOU06 DJPV17 EKQW28 FLRX39"
    path.write_text("6 6\nABCDEF\nGHIJKL\nMNOPQR\nSTUVWX\nYZ0123\n456789\n" + words + "\n")
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "20M")
    code, out, err = run(capsys, str(path))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "2,939,328 edges needs about" in err and "20.0 MiB is available" in err


def test_explain_when_the_statement_roll_is_itself_a_word(tmp_path, capsys):
    # Regression: the statement's dice with P X R E S as the only word used to crash
    # --explain, which showed the fixed example roll P X R E S without checking it.
    path = tmp_path / "pxres.txt"
    path.write_text("5 1\nABCDEP\nAEHOXU\nAISOLR\nABCDEF\nABCSCC\nPXRES\n")
    code, out, err = run(capsys, str(path), "--explain")
    assert code == 0 and err == "" and "Example: on a first roll of" in out
    assert "P X R E S" not in out.split("Example:")[1]
    code, out, _ = run(capsys, str(path), "--explain", "--json")
    example = json.loads(out)["first_roll"]["example"]
    assert code == 0 and example["roll"] != "PXRES" and example["keep"]


@pytest.mark.parametrize(
    "text,line,fragment",
    [
        ("2 " + "9" * 5000 + "\n", 1, "w = '99999999999999999999...' is out of range"),
        ("9" * 5000 + " 1 2\n", 1, "d = '99999999999999999999...' is out of range"),
        ("2 1\n" + "A" * 1_000_000 + "\n", 2, "'AAAAAAAAAAAAAAAAAAAA...' must have exactly 6"),
        ("2 1\rABCDEF\rABCDE\rAB\r", 3, "die 2: 'ABCDE' must have exactly 6"),
        # Leading zeros count: int() refuses 4300+ digits whatever they are.
        ("2 " + "0" * 5000 + "1\n", 1, "w = '00000000000000000000...' is out of range"),
        ("0" * 5000 + "2 1\nABCDEF\n", 1, "d = '00000000000000000000...' is out of range"),
        ("2 1\nABCDEF\nABCDEF\nAB " + "Z" * 10**6, 4, "unexpected 'ZZZZZZZZZZZZZZZZZZZZ...'"),
        ("2 1\r\nABCDEF\r\n\r\nABCDEF\r\nA\r\n", 5, "word 1: 'A' must have 2 symbols"),
    ],
)
def test_huge_tokens_and_odd_line_ends_give_short_messages(tmp_path, capsys, text, line, fragment):
    path = tmp_path / "bad.txt"
    path.write_text(text, newline="")
    code, out, err = run(capsys, str(path))
    assert code == 2 and out == "" and err.count("\n") == 1 and len(err) < 200
    assert f"bad.txt:{line}: " in err and fragment in err, err


def test_example_prints_the_statement_answer(capsys):
    from perfectplay.problems.alea.example import EXAMPLE_ANSWER

    code, out, err = run(capsys, "--example")
    assert code == 0 and err == "" and out == EXAMPLE_ANSWER + "\n"


def test_keep_reads_die_for_one_die():
    from perfectplay.problems.alea import EXAMPLE_DICE, EXAMPLE_WORDS, solve

    sol = solve(EXAMPLE_DICE, EXAMPLE_WORDS)
    assert str(sol.best_keep("PXRES")) == (
        "keep P R E S (dice 1 3 4 5), reroll die 2: 2.000000000 rolls"
    )
    two = solve(["AAAAAB", "AAAAAB"], ["BB"]).options("AA")[0]
    assert str(two).startswith("keep nothing, reroll dice 1 2: ")


def test_exact_is_annotated_and_returns_the_exact_solution():
    import inspect

    from perfectplay.problems.alea import solve
    from perfectplay.problems.alea.solution import AleaSolution
    from perfectplay.results import ExactValues

    assert inspect.signature(AleaSolution.exact).return_annotation == "ExactValues"
    sol = solve(["123456"], ["6"])
    assert isinstance(sol.exact(), ExactValues) and sol.exact() is sol.exact()


def test_explain_without_an_example_keep(capsys, monkeypatch):
    # best_keep() is None for a word: --explain and --json --explain then leave the
    # example out instead of failing (example_roll avoids words, this guards the rest).
    from perfectplay.problems.alea.solution import AleaSolution

    monkeypatch.setattr(AleaSolution, "example_roll", lambda self: "PEAEC")
    code, out, err = run(capsys, "--example", "--explain")
    assert code == 0 and err == "" and "First move" in out and "Example:" not in out
    code, out, err = run(capsys, "--example", "--explain", "--json")
    first = json.loads(out)["first_roll"]
    assert code == 0 and err == "" and "example" not in first and first["keep_counts"]


@pytest.mark.parametrize("option", ["--top", "--distribution"])
def test_huge_option_values_are_one_short_line(capsys, option):
    argv = ["advise", "--roll", "PXRES"] if option == "--top" else []
    with pytest.raises(SystemExit) as exc:
        cli.main(["alea", *argv, "--example", option, "9" * 5000])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and len(err) < 150
    assert "expected a positive integer, got '99999999999999999999...'" in err


@pytest.mark.parametrize("fmt", [[], ["--json"]])
def test_a_distribution_too_large_to_write_is_refused_first(capsys, tmp_path, monkeypatch, fmt):
    # Two million rows is little work on a one-die game (no "too much work" refusal), but
    # its text took about 270 MiB, which was built without asking the memory budget.
    path = tmp_path / "one.in"
    path.write_text("1 1\nABCDEF\nA\n")
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "50M")
    code, out, err = run(capsys, str(path), "--distribution", "2000000", *fmt)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "distribution table of 2,000,000 rows needs about" in err and "50.0 MiB" in err
