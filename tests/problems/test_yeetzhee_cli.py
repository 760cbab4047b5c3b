"""``perfectplay yeetzhee``: output, options and bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from perfectplay import cli

DATA = Path(__file__).resolve().parent.parent / "data" / "yeetzhee" / "data"
SAMPLE = DATA / "sample" / "1.in"


def run(capsys, *args: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        import io

        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    code = cli.main(["yeetzhee", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_official_output_from_file(capsys):
    code, out, err = run(capsys, str(SAMPLE))
    assert code == 0 and err == ""
    assert out == "Case #1: 4.700000000\nCase #2: 9.000000000\n"


def test_stdin_and_example(capsys, monkeypatch):
    code, out, _ = run(capsys, stdin=SAMPLE.read_text(), monkeypatch=monkeypatch)
    assert code == 0 and out.startswith("Case #1: 4.7")
    code, out2, _ = run(capsys, "--example")
    assert code == 0 and out2 == out


def test_exact_all_cases(capsys):
    code, out, _ = run(capsys, "--example", "--exact")
    assert code == 0 and out == "Case #1: 47/10\nCase #2: 9\n"


def test_case_explain_exact_distribution(capsys):
    code, out, _ = run(
        capsys, "--example", "--case", "1", "--explain", "--exact", "--distribution", "6"
    )
    assert code == 0
    assert "Expected rolls with optimal play: 4.700000000" in out
    assert "exact: 47/10" in out
    table = out[out.index("rolls  P(done within)") :].splitlines()
    assert table[1].split() == ["1", "0.000000000"]
    # Three rolls suffice only if no die is rerolled: new, new, then a repeat of either
    # (5/6 * 2/6), or new, a repeat, then a new value (1/6 * 5/6): 15/36.
    assert float(table[3].split()[1]) == pytest.approx(15 / 36, abs=1e-9)
    assert table[-1].startswith("mean 4.700000000 rolls, median ")


def test_single_case_case_option(capsys):
    code, out, _ = run(capsys, "--example", "--case", "2")
    assert code == 0 and out == "Case #2: 9.000000000\n"


def test_stats_on_stderr(capsys):
    code, out, err = run(capsys, "--example", "--stats")
    assert code == 0 and out.count("\n") == 2
    assert "case 1: 5 groupings" in err and "case 2: 6 groupings" in err


@pytest.mark.parametrize(
    "text,where,message",
    [
        ("", ":1:", "empty input"),
        ("x\n", ":1:", "expected an integer T, got 'x'"),
        ("0\n", ":1:", "T = 0 is out of range 1..100"),
        ("101\n", ":1:", "T = 101 is out of range"),
        ("1\n3 6 2\n1\n", ":3:", "case 1: the input ends where A_2 was expected"),
        ("1\n3 6\n", ":2:", "case 1: the input ends where K was expected"),
        ("2\n3 6 2\n1\n2\n", ":4:", "case 2: the input ends where N was expected"),
        ("1\n51 6 1\n51\n", ":2:", "case 1: N = 51 is out of range 2..50"),
        ("1\n1 6 1\n1\n", ":2:", "case 1: N = 1 is out of range 2..50"),
        ("1\n3 51 1\n3\n", ":2:", "case 1: M = 51 is out of range 2..50"),
        ("1\n3 2 3\n1\n1\n1\n", ":2:", "case 1: K = 3 is out of range 1..2"),
        ("1\n3 6 0\n", ":2:", "case 1: K = 0 is out of range"),
        ("1\n3 6 2\n2\n1\n", ":4:", "A_2 = 1 is smaller than A_1 = 2"),
        ("1\n3 6 2\n1\n1\n", ":4:", "case 1: the group sizes sum to 2, not N = 3"),
        ("1\n3 6 2\n1\n0\n", ":4:", "case 1: A_2 = 0 is out of range 1..3"),
        ("1\n3 6 2\n1\n2.0\n", ":4:", "case 1: expected an integer A_2, got '2.0'"),
        ("1\n3 6 2\n1\n2.0\n", ":4:", "expected an integer A_2"),
        ("1\n3 6 2\n1\n1_0\n", ":4:", "expected an integer A_2"),
        ("1\n3 6 2\n1\n99999999999999999999999\n", ":4:", "case 1: A_2 = 9999"),
        ("1\n3 6 2\n1\n2\n7\n", ":5:", "unexpected '7' after the last case (T = 1)"),
        ("1\n-3 6 2\n", ":2:", "case 1: N = -3 is out of range"),
        # A header line short of a number took K from the next line: the error came lines
        # later without a word about line 2.
        ("1\n3 6\n1\n2\n", ":4:", "sum to 2, not N = 3 (the case's 'N M K' was read from"),
        ("1\n3 6\n1\n2\n", ":4:", "lines 2 to 3: is a number missing on line 2?)"),
        ("1\n3 6\n7\n1\n", ":3:", "K = 7 is out of range 1..3 (the case's 'N M K' was"),
        # Regressions: a lone CR ends a line (the last line was counted by \n only), and
        # long tokens are cut with an ellipsis.
        ("1\r3 6 2\r1\r", ":3:", "case 1: the input ends where A_2 was expected"),
        ("1\n2 2 1\n2\n" + "y" * 10**6, ":4:", "unexpected 'yyyyyyyyyyyyyyyyyyyy...' after"),
        ("1\n2 2 1\n" + "y" * 10**6, ":3:", "got 'yyyyyyyyyyyyyyyyyyyy...'"),
        ("1\n2 2 1\n" + "0" * 5000 + "2", ":3:", "A_1 = 00000000000000000000... is out"),
    ],
)
def test_bad_input_is_one_line(capsys, monkeypatch, text, where, message):
    code, out, err = run(capsys, stdin=text, monkeypatch=monkeypatch)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("perfectplay: <stdin>" + where), err
    assert message in err and len(err) < 200, err


def test_usage_errors(capsys, tmp_path):
    code, _, err = run(capsys, "--example", "--explain")
    assert code == 2 and "choose one with --case I" in err and err.count("\n") == 1
    code, _, err = run(capsys, "--example", "--case", "3")
    assert code == 2 and "--case 3: the input has 2 case(s)" in err
    code, _, err = run(capsys, str(tmp_path / "missing.in"))
    assert code == 2 and "missing.in: no such file" in err
    with pytest.raises(SystemExit) as exc:
        run(capsys, "--example", "--distribution", "0")
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        run(capsys, "--example", str(SAMPLE))
    assert exc.value.code == 2


def test_non_ascii_and_binary_input(tmp_path, capsys):
    bad = tmp_path / "bad.in"
    bad.write_bytes(b"1\n3 6 2\n1\n\xff\n")
    code, _, err = run(capsys, str(bad))
    assert code == 2 and err.strip().endswith(
        "bad.in:4: non-ASCII byte 0xff in input (column 1); the input is plain ASCII"
    )
    # a UTF-8 byte-order mark first is read past (it was refused as a non-ASCII byte)
    good = tmp_path / "bom.in"
    good.write_bytes(b"\xef\xbb\xbf" + SAMPLE.read_bytes())
    assert run(capsys, str(good))[0] == 0


def test_subprocess_one_line_no_traceback(tmp_path):
    bad = tmp_path / "bad.in"
    bad.write_text("1\n4 6 2\n2\n3\n")
    res = subprocess.run(
        [sys.executable, "-m", "perfectplay", "yeetzhee", str(bad)], capture_output=True, text=True
    )
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == f"perfectplay: {bad}:4: case 1: the group sizes sum to 5, not N = 4\n"


def test_help_has_examples(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["yeetzhee", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "--explain" in out and "--distribution" in out


@pytest.mark.parametrize("value", ["9" * 5000, "x" + "9" * 5000])
def test_huge_option_values_are_one_short_line(capsys, value):
    # Regression: argparse's type=int echoed the whole value (and int() refuses 4300+ digits).
    with pytest.raises(SystemExit) as exc:
        run(capsys, "--example", "--case", value)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and len(err) < 150
    assert "argument --case: " in err and f"'{value[:20]}...'" in err


def test_explain_with_exact_shows_the_repaired_policy(capsys, tmp_path):
    # 48 values once and one twice with 49 faces: after one die, keeping a repeat of its
    # value and rerolling it differ by about 1e-16 of their value. Exact arithmetic finds
    # keeping strictly better (the float solver may order them either way), so the exact
    # policy reaches the grouping '2' and --explain --exact must show that policy.
    from perfectplay.problems.yeetzhee import solve

    path = tmp_path / "near_tie.in"
    path.write_text("1\n50 49 49\n" + "1\n" * 48 + "2\n")
    code, out, _ = run(capsys, str(path), "--explain", "--exact")
    sol = solve(50, 49, [1] * 48 + [2])
    exact = sol.exact_policy()
    assert code == 0 and out == exact.explain() + "\n" + f"exact: {sol.exact_value()}\n"
    assert exact.rule([1]).outcomes[0].keep and "\n2  " in out
    assert abs(exact.value - float(sol.exact_value())) <= 1e-12 * exact.value


def test_json_distribution_has_the_median_and_percentile_of_the_text(capsys):
    args = ["--example", "--case", "1", "--distribution", "12"]
    code, text, _ = run(capsys, *args)
    assert code == 0
    last = text.splitlines()[-1]  # "mean 4.700000000 rolls, median 4, 90th percentile 8"
    median, p90 = int(last.split("median ")[1].split(",")[0]), int(last.split()[-1])
    code, out, _ = run(capsys, *args, "--json")
    dist = json.loads(out)["distribution"]
    assert code == 0 and len(dist["within"]) == 12
    assert (dist["median"], dist["percentile_90"]) == (median, p90) == (4, 8)


def test_json_distribution_with_exact_follows_the_repaired_policy(capsys, monkeypatch):
    # The text prints the distribution of the exactly verified policy (Cases.first); the
    # JSON printed the float policy's. Told apart by the solution it is asked of.
    from perfectplay.problems.yeetzhee.solution import Solution

    verified: list[Solution] = []
    asked: list[Solution] = []
    real_policy, real_distribution = Solution.exact_policy, Solution.distribution

    def exact_policy(self):
        verified.append(real_policy(self))
        return verified[-1]

    def distribution(self, k_max):
        asked.append(self)
        return real_distribution(self, k_max)

    monkeypatch.setattr(Solution, "exact_policy", exact_policy)
    monkeypatch.setattr(Solution, "distribution", distribution)
    code, _, _ = run(capsys, "--example", "--case", "1", "--distribution", "3", "--exact", "--json")
    assert code == 0 and len(asked) == 1 and any(asked[0] is v for v in verified)


@pytest.mark.parametrize("fmt", [[], ["--json"]])
def test_a_distribution_too_large_to_write_is_refused(capsys, monkeypatch, fmt):
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "50M")
    code, out, err = run(capsys, "--example", "--case", "2", "--distribution", "2000000", *fmt)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "distribution table of 2,000,000 rows needs about" in err


def test_explain_follows_digits(capsys):
    # --digits N sets the decimals of every float a command prints; --explain kept 9 in
    # its headline and 6 in its table whatever N was.
    case = ["--example", "--case", "1", "--explain"]
    code, out, _ = run(capsys, *case, "--digits", "3")
    assert code == 0 and "Expected rolls with optimal play: 4.700.\n" in out
    table = out[out.index("\nkept") :]
    assert re.findall(r"\d\.\d+", table) == ["4.700", "3.700", "1.200", "3.000"]
    code, out, _ = run(capsys, *case)
    assert "Expected rolls with optimal play: 4.700000000.\n" in out
    assert "  4.700000  " in out  # the table's default: 6 decimals
