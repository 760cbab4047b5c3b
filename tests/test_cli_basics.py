"""The command dispatcher and the shared CLI helpers."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from perfectplay import cli
from perfectplay.cli import common as cliutil
from perfectplay.errors import InputError, ResourceLimitError


def test_help_lists_every_command(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in cli.commands():
        assert name in out
    assert "examples:" in out


def test_no_arguments_prints_usage_and_fails(capsys):
    assert cli.main([]) == 2
    captured = capsys.readouterr()
    assert "usage: perfectplay" in captured.err and captured.out == ""


def test_unknown_command_is_one_line(capsys):
    assert cli.main(["no-such-game"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown command" in err


def test_help_does_not_import_numba_or_numpy():
    code = (
        "import sys; from perfectplay import cli; cli.main(['--help']);"
        "bad = [m for m in ('numba', 'numpy') if m in sys.modules]; print(bad); sys.exit(bool(bad))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.parametrize("name", sorted(cli.commands()))
def test_command_help_does_not_import_numba(name):
    code = (
        "import sys; from perfectplay import cli\n"
        f"try:\n    cli.main([{name!r}, '--help'])\nexcept SystemExit:\n    pass\n"
        "sys.exit('numba' in sys.modules)"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, f"{name} --help imported numba: {res.stderr}"


def test_version(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("perfectplay ")


def test_run_maps_input_error_to_one_line(capsys):
    def body():
        raise InputError("expected 6 symbols, got 5", line=3)

    assert cliutil.run(body, "dice.txt") == 2
    assert capsys.readouterr().err == "perfectplay: dice.txt:3: expected 6 symbols, got 5\n"


def test_run_maps_resource_error(capsys):
    def body():
        raise ResourceLimitError("too big")

    assert cliutil.run(body, "<stdin>") == 2
    assert capsys.readouterr().err == "perfectplay: too big\n"


def test_read_input_errors(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        cliutil.read_input(str(tmp_path / "missing.txt"))
    with pytest.raises(InputError, match="directory"):
        cliutil.read_input(str(tmp_path))
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 100)
    with pytest.raises(InputError, match="larger than"):
        cliutil.read_input(str(big), max_bytes=10)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n\xff\n")
    with pytest.raises(InputError) as info:
        cliutil.read_input(str(bad))
    assert info.value.line == 2
    bad.write_bytes(b"ok\rstill ok\r\n\xff\n")  # the same line rule as the parsers
    with pytest.raises(InputError) as info:
        cliutil.read_input(str(bad))
    assert info.value.line == 3


def test_help_is_fast():
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "perfectplay", "--help"], capture_output=True, check=True)
    # Generous bound: the 0.3 s target is measured in benchmarks/; this catches a heavy import.
    assert time.perf_counter() - t0 < 3.0


def test_every_command_numbers_lines_the_same_way(tmp_path):
    # Lines end at \n, \r\n or a lone \r; a form feed inside a line does not end it.
    from perfectplay.cli.common import input_lines

    assert input_lines("a\r\nb\rc\x0cd\n\ne") == ["a", "b", "c\x0cd", "", "e"]
    cases = {
        "yeetzhee": ("1\r\n3 6 2\x0c\n1\r1\n", ":4: case 1: the group sizes sum to 2"),
        "diemaker": ("1 1 1 1 1 1\x0c\n1 2\r0 0 0 0 0 0\r\n1\n", ":4: text after"),
        "alea": ("2 1\rABCDEF\x0c\rABCDE\rAB\r", ":3: die 2:"),
        "fivehundredeleven": ("2\r\n3\x0c\r5 6\n", ":3: unexpected '6'"),
        "dispdom": ("4 2 4\x0c\r\n00000\n", ":2:"),
    }
    for command, (text, fragment) in cases.items():
        path = tmp_path / f"{command}.txt"
        path.write_bytes(text.encode())
        res = subprocess.run(
            [sys.executable, "-m", "perfectplay", command, str(path)],
            capture_output=True,
            text=True,
        )
        assert res.returncode == 2 and res.stderr.count("\n") == 1, (command, res.stderr)
        assert fragment in res.stderr, (command, res.stderr)


def test_shared_message_helpers():
    from perfectplay.errors import short_repr

    assert cliutil.quote_token("ABC") == "'ABC'"
    assert cliutil.quote_token("x" * 10**6) == "'" + "x" * 20 + "...'"
    assert cliutil.unify_line_ends(b"a\r\nb\rc\n") == b"a\nb\nc\n"
    assert cliutil.unify_line_ends("no CR\x0c\n") == "no CR\x0c\n"
    assert [cliutil.int_arg(t) for t in ("7", "-007", "+0", " 12 ")] == [7, -7, 0, 12]
    for bad, fragment in (("1.5", "expected an integer"), ("9" * 5000, "out of range")):
        with pytest.raises(Exception, match=fragment) as info:
            cliutil.int_arg(bad)
        assert len(str(info.value)) < 60
    assert short_repr(10**5000) == "<an integer of about 5,000 digits>"
    assert len(short_repr("y" * 10**6)) < 50 and len(short_repr(list(range(10**5)))) < 50


def test_every_command_cuts_long_tokens_in_messages(tmp_path, capsys):
    # A megabyte token is echoed as its first 20 characters and an ellipsis, on one line.
    junk = "Q" * 10**6
    shown = "'" + "Q" * 20 + "...'"
    cases = {
        "yeetzhee": "1\n2 2 1\n2\n" + junk,
        "diemaker": "1 1 1 1 1 1\n1 2\n0 0 0 0 0 " + junk,
        "alea": "1 1\nABCDEF\n" + junk,
        "fivehundredeleven": "1\n" + junk,
        "dispdom": "1 1 1\n0\n" + junk,
    }
    for command, text in cases.items():
        path = tmp_path / f"{command}.txt"
        path.write_text(text)
        code = cli.main([command, str(path)])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1, (command, err[:300])
        assert shown in err and len(err) < 250, (command, err[:300])


def test_every_command_reads_5000_digit_numbers_without_a_traceback(tmp_path, capsys):
    # int() refuses strings of more than 4300 digits (leading zeros included).
    for digits in ("9" * 5000, "0" * 5000 + "1"):
        cases = {
            "yeetzhee": (f"1\n2 2 1\n{digits}\n", 3),
            "diemaker": (f"1 1 1 1 1 {digits}\n1 2\n0 0 0 0 0 0\n", 1),
            "alea": (f"2 {digits}\n", 1),
            "fivehundredeleven": (f"1\n{digits}\n", 2),
            "dispdom": (f"{digits} 1 1\n0\n", 1),
        }
        for command, (text, line) in cases.items():
            path = tmp_path / f"{command}.txt"
            path.write_text(text)
            code = cli.main([command, str(path)])  # a traceback would raise here
            err = capsys.readouterr().err
            assert code == 2 and err.count("\n") == 1 and "4300" not in err, (command, err)
            assert f"{command}.txt:{line}: " in err and len(err) < 250, err


def test_solve_messages_cut_long_arguments(capsys):
    model = "perfectplay.examples.five_dice:FiveDice"
    for argv in (
        ["--query", "(" * 5000],
        ["-p", "x" * 5000],
        ["-p", "dice=" + repr("z" * 5000)],
        ["--distribution", "9" * 5000],
        ["--max-states", "x" * 5000],
    ):
        try:
            code = cli.main(["solve", model, *argv])
        except SystemExit as exc:  # argparse's own errors
            code = exc.code
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and len(err) < 300, (argv[0], err[:300])


def test_the_registry_is_every_gallery_package():
    import pkgutil

    from perfectplay import problems

    packages = sorted(
        m.name
        for m in pkgutil.iter_modules(problems.__path__)
        if m.ispkg and not m.name.startswith("_")
    )
    assert sorted(problems.REGISTRY) == packages
    for name, problem in problems.REGISTRY.items():
        assert isinstance(problem, problems.Problem) and problem.name == name
        assert problem.package == f"perfectplay.problems.{name}"
        assert problem.summary and "\n" not in problem.summary and problem.example
    usage = cli.usage()
    assert all(f"  {name} " in usage for name in [*problems.REGISTRY, *cli.TOOLS])


@pytest.mark.parametrize(
    "name", sorted(["alea", "diemaker", "dispdom", "fivehundredeleven", "yeetzhee"])
)
def test_every_problem_answers_its_example_in_json(name, capsys):
    import json

    assert cli.main([name, "--example"]) == 0
    text = capsys.readouterr().out
    assert cli.main([name, "--example", "--json"]) == 0
    out = capsys.readouterr().out
    decoder, objects, at = json.JSONDecoder(), [], 0
    while out[at:].strip():
        at += len(out[at:]) - len(out[at:].lstrip())
        obj, at = decoder.raw_decode(out, at)
        objects.append(obj)
    # One object per answer: as many as the text has answer lines (alea and the games: one).
    answers = [line for line in text.splitlines() if line]
    assert len(objects) == len(answers) and all(isinstance(o, dict) for o in objects)
    shown = [o.get("answer", o.get("winner")) for o in objects]
    assert [s.removeprefix(f"Case #{i}: ") for i, s in enumerate(answers, 1)] == shown


def test_file_and_example_together_is_one_usage_line(tmp_path, capsys):
    for name in ("alea", "yeetzhee", "diemaker", "dispdom", "fivehundredeleven"):
        with pytest.raises(SystemExit) as info:
            cli.main([name, "--example", str(tmp_path / "in.txt")])
        err = capsys.readouterr().err
        assert info.value.code == 2 and err.count("\n") == 1 and "not both" in err, name
