"""Checkers as their authors meant them (testlib, Kattis, built-in comparisons), samples
judged like tests, and a build that reports: a failing entry is shown failing, the others
are built, the build exits 1 and remembers its verdicts (issue 25, items 1 and 3)."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("pygments")

import perfectplay.site.checks as site_checks  # noqa: E402
from perfectplay.site import SiteError, build_site  # noqa: E402
from perfectplay.site.checkers import (  # noqa: E402
    CheckerFailed,
    Compare,
    compare,
    parse_checker,
    program_verdict,
)
from perfectplay.site.cli import main as site_main  # noqa: E402

try:
    from perfectplay.site.pandoc import pandoc as _find_pandoc

    _find_pandoc()
except SiteError:  # pragma: no cover
    pytest.skip("pandoc is not installed (pip install -e '.[site]')", allow_module_level=True)

# The task: print two positive numbers whose sum is N. Many outputs are right, so only a
# checker can judge; the answer file holds one of them.
RIGHT = "n = int(input())\nprint(n - 1, 1)\n"
WRONG = "n = int(input())\nprint(1, 1)\n"
# testlib's protocol: INPUT OUTPUT ANSWER. Called in the old order (INPUT ANSWER OUTPUT) it
# would read the jury's answer as the contestant's and accept anything.
TESTLIB = """\
import sys
inp, out, ans = sys.argv[1:4]
n = int(open(inp).read())
int(open(ans).read().split()[0])  # the jury's answer must be readable: else FAIL
try:
    a, b = map(int, open(out).read().split())
except ValueError:
    sys.stderr.write("wrong answer: not two numbers\\n")
    sys.exit(2)
if a < 1 or b < 1 or a + b != n:
    sys.stderr.write(f"wrong answer: {a} + {b} is not {n}\\n")
    sys.exit(1)
sys.stderr.write("ok\\n")
"""
# Kattis' protocol: INPUT ANSWER FEEDBACK_DIR < OUTPUT, exit 42 or 43.
KATTIS = """\
import os
import sys
inp, ans, feedback = sys.argv[1:4]
n = int(open(inp).read())
a, b = map(int, sys.stdin.read().split())
if a < 1 or b < 1 or a + b != n:
    with open(os.path.join(feedback, "judgemessage.txt"), "w") as f:
        f.write(f"sum {a + b}, expected {n}\\n")
    sys.exit(43)
sys.exit(42)
"""
CASES = {"samples": {"1": "5"}, "tests": {"1": "3", "2": "10", "3": "100"}}


def _entry(
    folder: Path, solution: str, meta: str = "", files: dict[str, str] | None = None
) -> None:
    folder.mkdir(parents=True)
    (folder / "meta.toml").write_text(
        f'title = "{folder.name}"\nlink = "https://example.org/{folder.name}"\n'
        f'techniques = ["none"]\ncompare = "exact"\n{meta}'
    )
    (folder / "statement.md").write_text("## Task\n\nPrint two numbers summing to N.\n")
    (folder / "solution.tex").write_text("\\section*{Idea}\nPrint $N-1$ and $1$.\n")
    (folder / "solution.py").write_text(solution)
    for sub, cases in CASES.items():
        (folder / sub).mkdir()
        for name, n in cases.items():
            (folder / sub / f"{name}.in").write_text(f"{n}\n")
            (folder / sub / f"{name}.ans").write_text(f"1 {int(n) - 1}\n")
    for name, text in (files or {}).items():
        (folder / name).write_text(text)


def checker_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "site.toml").write_text('title = "Checkers"\nentries = ["problems/*"]\n')
    p = repo / "problems"
    testlib = 'checker = "testlib:check.py"\n'
    kattis = 'checker = "kattis:validate.py"\n'
    _entry(p / "testlib-right", RIGHT, testlib, {"check.py": TESTLIB})
    _entry(p / "testlib-wrong", WRONG, testlib, {"check.py": TESTLIB})
    _entry(p / "kattis-right", RIGHT, kattis, {"validate.py": KATTIS})
    _entry(p / "kattis-wrong", WRONG, kattis, {"validate.py": KATTIS})
    # Built-in comparisons: the answer "1 N-1" spelt otherwise.
    _entry(
        p / "tokens-right",
        "n = int(input())\nprint(' 1\\n\\n', n - 1, ' ')\n",
        'checker = "tokens"\n',
    )
    _entry(p / "exact-wrong", "n = int(input())\nprint(' 1', n - 1)\n")
    return repo


def judge_line(out: Path, entry: str) -> str:
    page = (out / "archive" / entry / "index.html").read_text()
    found = re.search(r'<p class="judge"[^>]*>(.*?)</p>', page, re.DOTALL)
    assert found, "no judge badge"
    return " ".join(re.sub(r"<[^>]*>", "", found.group(1)).split())


def sample_verdicts(out: Path, entry: str) -> list[str]:
    page = (out / "archive" / entry / "index.html").read_text()
    return [
        html.unescape(" ".join(re.sub(r"<[^>]*>", "", v).split()))
        for v in re.findall(r'<h3>Sample \S+ <span class="verdict (?:ok|fail)">(.*?)</span>', page)
    ]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The checker archive built once (keep going), with its result and output folder."""
    tmp = tmp_path_factory.mktemp("checkers")
    repo = checker_repo(tmp)
    out = tmp / "out"
    result = build_site(repo, out, cache=tmp / "cache", keep_going=True)
    return repo, out, result, tmp


def test_a_testlib_checker_accepts_a_right_program_and_rejects_a_wrong_one(built):
    _, out, _, _ = built
    right = judge_line(out, "testlib-right")
    assert right.startswith("Judge data: passed 3 of 3 tests"), right
    assert "(testlib protocol)" in right
    assert sample_verdicts(out, "testlib-right") == [
        "accepted by (the testlib checker problems/testlib-right/check.py)"
    ]
    wrong = judge_line(out, "testlib-wrong")
    assert wrong.startswith("Judge data: passed 0 of 3 tests"), wrong
    assert "first failure: sample 1: wrong answer: 1 + 1 is not 5" in wrong
    assert sample_verdicts(out, "testlib-wrong") == ["wrong answer: 1 + 1 is not 5"]


def test_a_kattis_validator_accepts_a_right_program_and_rejects_a_wrong_one(built):
    _, out, _, _ = built
    assert judge_line(out, "kattis-right").startswith("Judge data: passed 3 of 3 tests")
    assert sample_verdicts(out, "kattis-right") == [
        "accepted by (the kattis checker problems/kattis-right/validate.py)"
    ]
    wrong = judge_line(out, "kattis-wrong")
    assert wrong.startswith("Judge data: passed 0 of 3 tests"), wrong
    # After a failed sample, the tests are not run.
    manifest = json.loads((out / "manifest.json").read_text())
    tests = {e["id"]: e["tests"] for e in manifest["entries"]}["kattis-wrong"]
    assert [t["problem"] for t in tests] == ["not run: sample 1 failed"] * 3
    assert "sample 1: rejected by the validator: sum 2, expected 5" in wrong
    assert sample_verdicts(out, "kattis-wrong") == ["rejected by the validator: sum 2, expected 5"]


def test_samples_are_judged_by_the_entry_checker(built):
    _, out, _, _ = built
    assert sample_verdicts(out, "tokens-right") == ["matches (tokens)"]
    assert judge_line(out, "tokens-right").startswith("Judge data: passed 3 of 3 tests")
    assert sample_verdicts(out, "exact-wrong") == [
        "wrong answer: line 1: got ' 1 4', expected '1 4'"
    ]


def test_a_failing_entry_is_shown_failing_and_the_others_are_built(built):
    _, out, result, _ = built
    assert result.entries == 6
    assert sorted(f.split(":")[0] for f in result.failed) == [
        "exact-wrong",
        "kattis-wrong",
        "testlib-wrong",
    ]
    index = (out / "index.html").read_text()
    assert 'data-failing="3"' in index
    row = re.search(r'<tr data-entry="kattis-wrong">(.*?)</tr>', index, re.DOTALL)
    assert row and '<span class="verdict fail"' in row.group(1) and "1 ✗" in row.group(1)
    row = re.search(r'<tr data-entry="kattis-right">(.*?)</tr>', index, re.DOTALL)
    assert row and '<span class="verdict ok"' in row.group(1) and "1 ✓" in row.group(1)


def test_the_verdicts_are_remembered_and_the_command_line_exits_1(built, monkeypatch, capsys):
    repo, _, _, tmp = built
    ran: list[str] = []
    for name in ("run_sample", "run_test"):
        real = getattr(site_checks, name)

        def counted(*args, _real=real, **kwargs):
            ran.append(args[1].id)
            return _real(*args, **kwargs)

        monkeypatch.setattr(site_checks, name, counted)
    argv = [
        "build",
        "--root",
        str(repo),
        "--out",
        str(tmp / "again"),
        "--cache",
        str(tmp / "cache"),
    ]
    assert site_main([*argv, "--quiet"]) == 1
    assert ran == []  # every verdict, failures too, came from the cache
    err = capsys.readouterr().err
    assert "perfectplay: site: failed: testlib-wrong: sample 1: wrong answer:" in err
    assert "3 entries failed" in err
    # --fail-fast: the first failure stops the build, in one line, and writes nothing.
    assert site_main([*argv, "--out", str(tmp / "stopped"), "--quiet", "--fail-fast"]) == 2
    assert not (tmp / "stopped").exists()
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_a_checker_that_fails_is_its_entry_failure(tmp_path):
    repo = checker_repo(tmp_path)
    check = repo / "problems" / "testlib-right" / "check.py"
    check.write_text(check.read_text().replace(".split()[0])", ".split()[0] + 'x')"))
    result = build_site(repo, tmp_path / "out", cache=tmp_path / "cache", keep_going=True)
    failed = dict(f.split(": ", 1) for f in result.failed)
    assert failed["testlib-right"].startswith(
        "sample 1: error: problems/testlib-right/check.py: the checker crashed on sample 1: "
        "exited with status 1: ValueError"
    ), failed
    for wrong in ("exact-wrong", "kattis-wrong", "testlib-wrong"):
        shutil.rmtree(repo / "problems" / wrong)
    with pytest.raises(SiteError, match="the checker crashed on sample 1"):
        build_site(repo, tmp_path / "out2", cache=tmp_path / "cache")


# ---- the built-in comparisons, and what a checker value may say -----------------------

SAME = {
    "exact": ("1 4 \n\n", "1 4\n"),
    "tokens": (" 1\n4  ", "1 4\n"),
    "tokens-nocase": ("yes  Alice\n", "YES alice"),
    "float 1e-6": ("1.0000005 2000000.5", "1 2000000"),
    "float 1e-3 0": ("0.0005", "0"),
    "float 0 1e-3": ("1000.5", "1000"),
}
DIFFERENT = {
    "exact": ("1  4\n", "1 4\n"),
    "tokens": ("yes", "YES"),
    "tokens-nocase": ("1 4 5", "1 4"),
    "float 1e-6": ("1.00001", "1"),
    "float 1e-3 0": ("1000.5", "1000"),
    "float 0 1e-3": ("0.0005", "0"),
}


@pytest.mark.parametrize("how", sorted(SAME))
def test_each_comparison_accepts_the_same_answer_spelt_otherwise(how):
    spec = parse_checker(how)
    assert isinstance(spec, Compare)
    assert compare(*SAME[how], spec) is None


@pytest.mark.parametrize("how", sorted(DIFFERENT))
def test_each_comparison_rejects_a_wrong_answer(how):
    spec = parse_checker(how)
    assert isinstance(spec, Compare)
    assert compare(*DIFFERENT[how], spec) is not None


def test_a_bare_checker_name_is_refused_with_what_to_write(tmp_path):
    repo = checker_repo(tmp_path)
    meta = repo / "problems" / "testlib-right" / "meta.toml"
    meta.write_text(meta.read_text().replace("testlib:check.py", "check.py"))
    with pytest.raises(SiteError) as exc:
        build_site(repo, tmp_path / "out", cache=tmp_path / "cache")
    message = str(exc.value)
    assert "problems/testlib-right/meta.toml:5: 'checker' \"check.py\" names no protocol" in message
    for protocol in ("testlib", "kattis", "perfectplay"):
        assert f'"{protocol}:check.py"' in message


def test_build_errors_of_an_entry_are_its_failure(tmp_path):
    repo = checker_repo(tmp_path)
    p = repo / "problems"
    (p / "tokens-right" / "meta.toml").write_text("title = \n")  # not TOML
    (p / "kattis-right" / "solution.tex").write_text("\\section*{Idea}\n$O(\\badmacro{n})$\n")
    out = tmp_path / "out"
    result = build_site(repo, out, cache=tmp_path / "cache", keep_going=True)
    failed = dict(f.split(": ", 1) for f in result.failed)
    assert failed["tokens-right"].startswith(
        "error: problems/tokens-right/meta.toml:1: malformed TOML"
    )
    assert "problems/kattis-right/solution.tex" in failed["kattis-right"]
    assert "pandoc cannot convert the math" in failed["kattis-right"]
    assert result.entries == 5  # the entry that cannot be read is left out, the others built
    index = (out / "index.html").read_text()
    assert 'data-failing="5"' in index
    assert '<li data-broken="tokens-right">' in index
    page = (out / "archive" / "kattis-right" / "index.html").read_text()
    assert '<p class="failure">' in page and "pandoc cannot convert the math" in page
    with pytest.raises(SiteError, match="malformed TOML"):
        build_site(repo, tmp_path / "out2", cache=tmp_path / "cache")


def test_the_site_checker_judges_every_entry_without_its_own(tmp_path):
    repo = tmp_path / "repo"
    (repo / "judges").mkdir(parents=True)
    (repo / "judges" / "check.py").write_text(TESTLIB)
    (repo / "site.toml").write_text(
        'title = "Site checker"\nentries = ["problems/*"]\nchecker = "testlib:judges/check.py"\n'
    )
    _entry(repo / "problems" / "right", RIGHT)
    _entry(repo / "problems" / "wrong", WRONG)
    _entry(repo / "problems" / "own", RIGHT, 'checker = "exact"\n')
    out = tmp_path / "out"
    result = build_site(repo, out, cache=tmp_path / "cache", keep_going=True)
    assert sample_verdicts(out, "right") == ["accepted by (the testlib checker judges/check.py)"]
    assert sorted(f.split(":")[0] for f in result.failed) == ["own", "wrong"]
    assert sample_verdicts(out, "own") == ["wrong answer: line 1: got '4 1', expected '1 4'"]


VERDICTS = {
    ("testlib", 0, b"ok fine"): None,
    ("testlib", 1, b"wrong answer 3rd token differs"): "wrong answer 3rd token differs",
    ("testlib", 2, b"extra output"): "presentation error: extra output",
    ("testlib", 7, b"points 0.5"): "partially accepted (testlib points): points 0.5",
    ("kattis", 42, b""): None,
    ("kattis", 43, b"from stderr"): "rejected by the validator: from stderr",
    ("perfectplay", 0, b""): None,
    ("perfectplay", 1, b"no"): "rejected by the checker: no",
}


@pytest.mark.parametrize("call", sorted(VERDICTS, key=str))
def test_each_protocol_reads_its_exit_statuses(call):
    protocol, status, said = call
    assert program_verdict(protocol, status, b"", said) == VERDICTS[call]


@pytest.mark.parametrize(
    "call", [("testlib", 3), ("testlib", 4), ("kattis", 0), ("kattis", 1), ("perfectplay", 5)]
)
def test_an_ending_that_is_no_verdict_is_the_checker_failing(call):
    with pytest.raises(CheckerFailed):
        program_verdict(*call, b"", b"")
    with pytest.raises(CheckerFailed, match="ZeroDivisionError"):
        program_verdict(call[0], 1, b"", b"Traceback (most recent call last):\nZeroDivisionError")


def test_an_unreadable_sample_is_its_entry_failure_build_after_build(tmp_path):
    repo = checker_repo(tmp_path)
    (repo / "problems" / "tokens-right" / "samples" / "1.in").write_bytes(b"\xff\xfe5\n")
    for out in ("out", "again"):
        result = build_site(repo, tmp_path / out, cache=tmp_path / "cache", keep_going=True)
        failed = dict(f.split(": ", 1) for f in result.failed)
        assert failed["tokens-right"] == (
            "sample 1: error: problems/tokens-right/samples/1.in: not UTF-8 text"
        )


# The same testlib checker in C++ (without testlib.h: its exit statuses and argument order).
TESTLIB_CPP = """\
#include <cstdio>
int main(int argc, char** argv) {
    if (argc < 4) return 3;
    long n, a, b, jury;
    FILE* in = std::fopen(argv[1], "r");
    FILE* out = std::fopen(argv[2], "r");
    FILE* ans = std::fopen(argv[3], "r");
    if (!in || !out || !ans || std::fscanf(in, "%ld", &n) != 1) return 3;
    if (std::fscanf(ans, "%ld", &jury) != 1) return 3;
    if (std::fscanf(out, "%ld %ld", &a, &b) != 2) {
        std::fprintf(stderr, "wrong output format: not two numbers\\n");
        return 2;
    }
    if (a < 1 || b < 1 || a + b != n) {
        std::fprintf(stderr, "wrong answer %ld + %ld is not %ld\\n", a, b, n);
        return 1;
    }
    std::fprintf(stderr, "ok\\n");
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_a_compiled_testlib_checker(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "site.toml").write_text('title = "C++ checker"\nentries = ["problems/*"]\n')
    meta = 'checker = "testlib:check.cpp"\n'
    _entry(repo / "problems" / "right", RIGHT, meta, {"check.cpp": TESTLIB_CPP})
    _entry(repo / "problems" / "wrong", WRONG, meta, {"check.cpp": TESTLIB_CPP})
    out = tmp_path / "out"
    result = build_site(repo, out, cache=tmp_path / "cache", keep_going=True)
    assert result.failed == ("wrong: sample 1: wrong answer 1 + 1 is not 5",)
    assert judge_line(out, "right").startswith("Judge data: passed 3 of 3 tests")
    assert sample_verdicts(out, "right") == [
        "accepted by (the testlib checker problems/right/check.cpp)"
    ]
