"""A Die Maker: official data, the Python API and the command line."""

from __future__ import annotations

import doctest
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from perfectplay.errors import InputError
from perfectplay.games.diemaker import find, format, parse, solve
from perfectplay.games.diemaker.cli import main

DATA = Path(__file__).resolve().parent.parent / "data" / "diemaker"


def run_cli(capsys, argv, stdin_text=None, monkeypatch=None):
    if stdin_text is not None:
        import io

        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin_text.encode())))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", ["sample", "reference"])
def test_official_and_reference_data(capsys, name):
    code, out, err = run_cli(capsys, [str(DATA / f"{name}.in")])
    assert code == 0 and err == ""
    assert out == (DATA / f"{name}.ans").read_text()


def test_python_api():
    assert solve([1, 1, 1, 1, 1, 1]) == "EEENEE"
    assert solve((4, 0, 2, 2, 2, 0)) == solve([0, 0, 2, 2, 2, 4]) == "EEENNSSNWE"
    assert solve([0, 0, 0, 0, 0, 2]) is None
    s = find([2, 13, 22, 27, 31, 91])
    assert s is not None and s.length == 186
    assert s.text(100, 170) == (DATA / "sample.ans").read_text().splitlines()[-1]
    assert sorted(s.faces().values()) == [2, 13, 22, 27, 31, 91]
    assert "".join(_expand(r) for r in s.runs()) == s.text()


def _expand(run: str) -> str:
    if "x" not in run:
        return run
    block, times = run.rsplit("x", 1)
    return block.strip("()") * int(times)


def test_runs_of_long_answers_come_from_the_search(monkeypatch):
    from perfectplay.games.diemaker import solver

    for t in ([4000, 4100, 4200, 4300, 4400, 4500], [2, 13, 22, 27, 31, 91], [0, 0, 0, 5, 5, 0]):
        s = find(t)
        short = s.runs()
        monkeypatch.setattr(solver, "_SHORT", 0)
        long = s.runs()
        monkeypatch.undo()
        assert "".join(map(_expand, long)) == "".join(map(_expand, short)) == s.text()
        assert len(long) <= len(short) + 4


def test_stop_searches_only_a_prefix():
    t = [4000, 4100, 4200, 4300, 4400, 4500]
    whole = find(t)
    part = find(t, stop=50)
    assert part is not None and not part.path.complete
    assert part.text(1, 50) == whole.text(1, 50)


def test_full_length_answers_are_cheap_and_right():
    """Near the limits the search jumps over long repetitions: a few hundred oracle calls."""
    for t in ([5000] * 6, [4000, 4999, 4321, 4567, 4888, 4111], [5000, 0, 0, 5000, 0, 1]):
        s = find(t)
        assert s is not None
        slow = find(t, jumps=False)
        assert s.text() == slow.text()
        assert s.path.stats.oracle_calls < 400 < slow.path.stats.oracle_calls
    assert find([5000, 4998, 0, 0, 0, 0]) is None and find([5000, 4998, 1, 0, 0, 0]) is not None


def test_no_limits_handles_huge_targets(capsys, tmp_path):
    f = tmp_path / "big.in"
    t = 10**12
    f.write_text(f"{t} {t} {t - 1} {t} {t - 3} {t}\n1 8\n0 0 0 0 0 0\n")
    code, out, err = run_cli(capsys, [str(f), "--no-limits"])
    assert code == 0 and out == "EEEEEEEE\n"
    code, out, err = run_cli(capsys, [str(f)])
    assert code == 2 and "above the limit of 5000" in err
    code, out, err = run_cli(capsys, [str(f), "--no-limits", "--explain"])
    lines = out.splitlines()
    assert code == 0 and lines[0] == "EEEEEEEE" and "5999999999996 rolls: Ex" in lines[1]
    runs = lines[1].split("rolls: ")[1].split()
    assert sum(int(r.rsplit("x", 1)[1]) * len(r.split("x")[0].strip("()")) if "x" in r
               else len(r) for r in runs) == 6 * t - 4  # fmt: skip


def test_full_and_explain(capsys, tmp_path):
    f = tmp_path / "in.txt"
    f.write_text("0 0 2 2 2 4\n5 9\n0 0 0 0 0 2\n1 2\n0 0 0 0 0 0\n")
    code, out, _ = run_cli(capsys, [str(f), "--full"])
    assert code == 0 and out == "EEENNSSNWE\nimpossible\n"
    code, out, _ = run_cli(capsys, [str(f), "--explain"])
    lines = out.splitlines()
    assert lines[0] == "NSSNW"
    assert "10 rolls" in lines[1]
    assert "die at the end" in lines[2] and "bottom 4" in lines[2]
    assert "0 backtracks" in lines[3]
    assert lines[4] == "impossible" and "more than 1 of the 2 rolls" in lines[6]


def test_example(capsys):
    code, out, _ = run_cli(capsys, ["--example"])
    assert code == 0 and out == "EEENEE\nEEENNSSNWE\nimpossible\n"


def test_stdin(capsys, monkeypatch):
    code, out, _ = run_cli(capsys, ["-"], "1 1 1 1 1 1\n4 5\n0 0 0 0 0 0\n", monkeypatch)
    assert code == 0 and out == "NE\n"


BAD = [
    ("1 1 1 1 -1 1\n1 2\n0 0 0 0 0 0\n", ":1: t5 = -1 is negative"),
    ("1 1 1 1 1 1\n3 2\n0 0 0 0 0 0\n", ":2: p = 3 is greater than q = 2"),
    ("1 1 1 1 1 1\n0 2\n0 0 0 0 0 0\n", ":2: p = 0 must be at least 1"),
    ("1 1 1 1 1 1\n1 7\n0 0 0 0 0 0\n", ":2: q = 7 is beyond the sequence length 6"),
    ("1 1 1 1 1 1\n1 2\n", ":3: missing the terminating line"),
    ("", ":1: missing the terminating line"),
    ("1 1 1 1 1 5001\n1 2\n0 0 0 0 0 0\n", ":1: t6 = 5001 is above the limit of 5000"),
    ("1 1 1 1 1\n1 2\n0 0 0 0 0 0\n", ":1: expected 6 integers"),
    ("1 1 1 1 1 x\n1 2\n0 0 0 0 0 0\n", ":1: expected an integer, got 'x'"),
    ("1 1 1 1 1 1\n1\n0 0 0 0 0 0\n", ":2: expected 2 integers"),
    ("1 1 1 1 1 1\n", ":2: missing the line 'p q'"),
    ("1 1 1 1 1 1\n1 2\n0 0 0 0 0 0\n5\n", ":4: text after the terminating line"),
    ("1 1 1 1 1 1\n1 2\n" * 41 + "0 0 0 0 0 0\n", ":81: more than 40 datasets"),
    ("1 1 1 1 1 1\n1 " + "9" * 30 + "\n0 0 0 0 0 0\n", ":2: 99999999999999999999... is out of"),
    ("1 1 1 1 1 1\f\n1 2\r0 0 0 0 0 0\r\n1\n", ":4: text after the terminating line"),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, text, message):
    f = tmp_path / "bad.txt"
    f.write_text(text)
    code, out, err = run_cli(capsys, [str(f)])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"perfectplay: {f}")
    assert message in err


def test_many_datasets_without_limits(capsys, tmp_path):
    f = tmp_path / "many.txt"
    f.write_text("1 1 1 1 1 1\n1 6\n" * 100 + "0 0 0 0 0 0\n")
    code, out, _ = run_cli(capsys, [str(f), "--no-limits"])
    assert code == 0 and out == "EEENEE\n" * 100


def test_missing_file_and_bad_flags(capsys, tmp_path):
    code, _, err = run_cli(capsys, [str(tmp_path / "nope.txt")])
    assert code == 2 and "no such file" in err
    with pytest.raises(SystemExit) as exc:
        main(["--example", str(tmp_path / "x")])
    assert exc.value.code == 2


def test_parse_and_format_directly():
    inst = parse("5 0 0 0 0 5\n2 3\n0 0 0 0 0 0\n")
    assert inst.datasets[0].targets == (5, 0, 0, 0, 0, 5) and inst.datasets[0].length == 10
    assert format(["EW", None]) == "EW\nimpossible\n"
    with pytest.raises(InputError) as exc:
        parse("1 2 3 4 5 6\n1 22\n0 0 0 0 0 0\n")
    assert exc.value.line == 2


@pytest.mark.parametrize("module", ["", ".die", ".model", ".solver", ".dataset", ".cli"])
def test_docstring_examples(module):
    mod = importlib.import_module("perfectplay.games.diemaker" + module)
    result = doctest.testmod(mod)
    assert result.failed == 0


DOCS = Path(__file__).resolve().parents[2] / "docs" / "diemaker.md"


def test_user_docs_python_examples():
    assert doctest.testfile(str(DOCS), module_relative=False).failed == 0


def test_user_docs_shell_examples():
    """Every ``$ printf ... | perfectplay diemaker`` block of the docs prints what it shows."""
    blocks = re.findall(r"```\n(\$ printf .*?)```", DOCS.read_text(), re.S)
    assert len(blocks) >= 3
    for block in blocks:
        command, *expected = block.splitlines()
        shell = command[2:].replace("perfectplay", f"{sys.executable} -m perfectplay")
        res = subprocess.run(["bash", "-c", shell], capture_output=True, text=True)
        assert (res.stdout + res.stderr).splitlines() == expected, command


def test_whole_run_imports_neither_numpy_nor_numba():
    code = (
        "import sys\n"
        "from perfectplay.cli import main\n"
        f"rc = main(['diemaker', {str(DATA / 'sample.in')!r}])\n"
        "sys.exit(rc or any(m in sys.modules for m in ('numpy', 'numba')))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout == (DATA / "sample.ans").read_text()


@pytest.mark.parametrize(
    "targets,fragment",
    [
        ([1.5, 1, 1, 1, 1, 1], "must be an integer, not 1.5"),
        ("111111", "give 6 integer targets"),
        ([True] * 6, "must be an integer, not True"),
        ([10**30] * 6, "from 0 to 1,000,000,000,000"),
        ([-1, 1, 1, 1, 1, 1], "got -1"),
        ([1] * 5, "a die has 6 faces"),
    ],
)
def test_api_rejects_what_is_not_six_integer_targets(targets, fragment):
    from perfectplay.errors import InputError
    from perfectplay.games.diemaker import solve as api_solve

    with pytest.raises(InputError, match=fragment):
        api_solve(targets)
