"""A Die Maker: official data, the Python API and the command line."""

from __future__ import annotations

import doctest
import re
import subprocess
import sys
from pathlib import Path

import pytest

from perfectplay.cli import main as perfectplay_main
from perfectplay.errors import InputError
from perfectplay.problems.diemaker import find, format, parse, solve

DATA = Path(__file__).resolve().parent.parent / "data" / "diemaker"


def run_cli(capsys, argv, stdin_text=None, monkeypatch=None):
    if stdin_text is not None:
        import io

        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin_text.encode())))
    code = perfectplay_main(["diemaker", *argv])
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
    from perfectplay.problems.diemaker import solution as solver

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


# An independent die, written from the statement for these tests: the face at each
# position (Up, Down, North, South, East, West), named by where it started. Tipping the
# die over an edge carries four positions around a cycle: rolling east the top goes
# east, the east face down, the bottom west and the west face up.
_CYCLES = {"E": "UEDW", "W": "UWDE", "N": "UNDS", "S": "USDN"}
_START = {p: p.lower() for p in "UDNSEW"}


def _roll_die(moves: str, at: dict | None = None) -> tuple[dict, dict]:
    """Roll ``moves``; return the faces by position and the count written on each face."""
    at = dict(_START if at is None else at)
    counts = dict.fromkeys("udnsew", 0)
    for m in moves:
        c = _CYCLES[m]
        at.update({c[(i + 1) % 4]: at[c[i]] for i in range(4)})
        counts[at["D"]] += 1
    return at, counts


def _roll_runs(runs: list[tuple[str, int]]) -> tuple[dict, dict]:
    """``_roll_die`` on runs ``(block, times)`` without rolling every repetition: a
    rotation of the cube has order at most 4, so 12 repetitions of a block bring back
    the orientation they start from and write the same counts every time."""
    at, counts = dict(_START), dict.fromkeys("udnsew", 0)
    for block, times in runs:
        full, rest = divmod(times, 12)
        if full:
            after, cycle = _roll_die(block * 12, at)
            assert after == at  # back where it started, so the next 12 repeat it
            for f in counts:
                counts[f] += full * cycle[f]
        at, more = _roll_die(block * rest, at)
        for f in counts:
            counts[f] += more[f]
    return at, counts


def _runs(solution) -> list[tuple[str, int]]:
    return [(r, 1) if "x" not in r else _split_run(r) for r in solution.runs()]


def _split_run(run: str) -> tuple[str, int]:
    block, times = run.rsplit("x", 1)
    return block.strip("()"), int(times)


def _ends(runs: list[tuple[str, int]], n: int) -> tuple[str, str]:
    """The first and the last ``n`` characters the runs spell (``n`` repetitions of a
    block are at least ``n`` characters, so no run needs more)."""
    head = "".join(block * min(times, n) for block, times in runs)[:n]
    tail = "".join(block * min(times, n) for block, times in runs[-n:])[-n:]
    return head, tail


def test_independent_die_agrees_with_the_statement():
    at, counts = _roll_die("EEENEE")
    assert sorted(counts.values()) == [1] * 6 and at == _roll_die("EEENEE")[0]
    assert _roll_die("EEEE")[0] == _START  # four rolls one way: back to the start
    _, counts = _roll_die("EEENNSSNWE")
    assert sorted(counts.values()) == [0, 0, 2, 2, 2, 4]


def test_full_length_answers_are_cheap_and_right():
    """Near the limits the search jumps over long repetitions: a few hundred oracle calls."""
    for t in ([5000] * 6, [4000, 4999, 4321, 4567, 4888, 4111], [5000, 0, 0, 5000, 0, 1]):
        s = find(t)
        assert s is not None
        slow = find(t, jumps=False)
        assert s.text() == slow.text()
        assert s.path.stats.oracle_calls < 400 < slow.path.stats.oracle_calls
        # Rolled on the independent die the sequence makes the ordered die, and the
        # solver's description of the finished die is the one the rolls leave.
        at, counts = _roll_die(s.text())
        assert sorted(counts.values()) == sorted(t) and len(s.text()) == sum(t)
        positions = {"U": "top", "D": "bottom", "N": "north", "S": "south", "E": "east"}
        positions["W"] = "west"
        assert {positions[p]: counts[f] for p, f in at.items()} == s.faces()
        assert _roll_runs(_runs(s)) == (at, counts)
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
    # The printed runs, replayed on the independent die run by run, make the die...
    targets = [t, t, t - 1, t, t - 3, t]
    printed = [(r, 1) if "x" not in r else _split_run(r) for r in runs]
    _, counts = _roll_runs(printed)
    assert sorted(counts.values()) == sorted(targets)
    # ... and spell the sequence text() slices, at both ends.
    s = find(targets)
    assert s.text(1, 40) == _ends(printed, 40)[0] and s.text(1, 8) == "EEEEEEEE"
    assert s.text(6 * t - 43, 6 * t - 4) == _ends(printed, 40)[1]


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
    ("1 1 1 1 1 x\n1 2\n0 0 0 0 0 0\n", ":1: expected an integer t6, got 'x'"),
    ("1 1 1 1 1 1\n1\n0 0 0 0 0 0\n", ":2: expected 2 integers"),
    ("1 1 1 1 1 1\n", ":2: missing the line 'p q'"),
    ("1 1 1 1 1 1\n1 2\n0 0 0 0 0 0\n5\n", ":4: text after the terminating line"),
    ("1 1 1 1 1 1\n1 2\n" * 41 + "0 0 0 0 0 0\n", ":81: more than 40 datasets"),
    ("1 1 1 1 1 1\n1 " + "9" * 30 + "\n0 0 0 0 0 0\n", ":2: q = '99999999999999999999...' is out"),
    # Regression: beyond 4300 digits int() raised its own ValueError (a traceback).
    ("0" * 5000 + "9" * 21 + " 1 1 1 1 1\n1 2\n0 0 0 0 0 0\n", ":1: t1 = '00000000000000000000..."),
    ("1 1 1 1 1 1\n1 2\n0 0 0 0 0 " + "x" * 10**6 + "\n", ":3: expected an integer t6, got 'xxx"),
    ("1 1 1 1 1 1\f\n1 2\r0 0 0 0 0 0\r\n1\n", ":4: text after the terminating line"),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, text, message):
    f = tmp_path / "bad.txt"
    f.write_text(text)
    code, out, err = run_cli(capsys, [str(f)])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"perfectplay: {f}")
    assert message in err and len(err) < 300  # long tokens are cut in the message


def test_numbers_have_at_most_19_digits_leading_zeros_included(capsys, tmp_path):
    f = tmp_path / "zeros.txt"
    f.write_text("0001 1 1 1 1 1\n1 +0000000000000000006\n0 0 0 0 0 0\n")
    code, out, _ = run_cli(capsys, [str(f)])
    assert code == 0 and out == "EEENEE\n"
    # int() refuses over 4300 digits, zeros included: the length is checked first.
    f.write_text("1 1 1 1 1 1\n1 2\n0 0 0 0 0 " + "0" * 5000 + "\n")
    code, out, err = run_cli(capsys, [str(f)])
    assert code == 2 and ":3: t6 = '00000000000000000000...' is out of range" in err


def test_many_datasets_without_limits(capsys, tmp_path):
    f = tmp_path / "many.txt"
    f.write_text("1 1 1 1 1 1\n1 6\n" * 100 + "0 0 0 0 0 0\n")
    code, out, _ = run_cli(capsys, [str(f), "--no-limits"])
    assert code == 0 and out == "EEENEE\n" * 100


def test_missing_file_and_bad_flags(capsys, tmp_path):
    code, _, err = run_cli(capsys, [str(tmp_path / "nope.txt")])
    assert code == 2 and "no such file" in err
    with pytest.raises(SystemExit) as exc:
        perfectplay_main(["diemaker", "--example", str(tmp_path / "x")])
    assert exc.value.code == 2


def test_parse_and_format_directly():
    inst = parse("5 0 0 0 0 5\n2 3\n0 0 0 0 0 0\n")
    assert inst.datasets[0].targets == (5, 0, 0, 0, 0, 5) and inst.datasets[0].length == 10
    assert format(["EW", None]) == "EW\nimpossible\n"
    with pytest.raises(InputError) as exc:
        parse("1 2 3 4 5 6\n1 22\n0 0 0 0 0 0\n")
    assert exc.value.line == 2


DOCS = Path(__file__).resolve().parents[2] / "docs" / "diemaker.md"


def test_user_docs_python_examples():
    assert doctest.testfile(str(DOCS), module_relative=False).failed == 0


def test_user_docs_shell_examples():
    """Every ``$ printf ... | perfectplay diemaker`` block of the docs prints what it shows."""
    blocks = re.findall(r"```(?:console)?\n(\$ printf .*?)```", DOCS.read_text(), re.S)
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
        # Messages stay short and never fail on the value itself (10**400 is no float).
        ([10**400] * 6, "got <an integer of about 400 digits>"),
        ([10**5000] * 6, "got <an integer of about 5,000 digits>"),
        (["x" * 10**6] * 6, "not 'xxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxx'$"),
        ("x" * 10**6, "targets, not 'xxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxx'$"),
    ],
)
def test_api_rejects_what_is_not_six_integer_targets(targets, fragment):
    from perfectplay.errors import InputError
    from perfectplay.problems.diemaker import solve as api_solve

    with pytest.raises(InputError, match=fragment):
        api_solve(targets)
