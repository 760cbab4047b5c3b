"""Judge data beyond the samples: tests/ folders, a float tolerance or a checker program,
and the verdict badge on the page and the index (fixture: tests/site/fixtures/own-archive)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("pygments")

import perfectplay.site.checks as site_checks  # noqa: E402
from perfectplay.site import SiteError, build_site  # noqa: E402
from perfectplay.site.cli import main as site_main  # noqa: E402

try:
    from perfectplay.site.pandoc import pandoc as _find_pandoc

    _find_pandoc()
except SiteError:  # pragma: no cover
    pytest.skip("pandoc is not installed (pip install -e '.[site]')", allow_module_level=True)

if shutil.which("g++") is None:  # pragma: no cover
    pytest.skip("g++ is not installed", allow_module_level=True)

CPP = "competitive_programming/demo/2024/A-dice-sum"
PY = "competitive_programming/demo/2024/B-all-heads"


def judge_line(out: Path, entry: str) -> str:
    page = (out / "archive" / entry.split("/", 1)[1] / "index.html").read_text()
    found = re.search(r'<p class="judge"[^>]*>(.*?)</p>', page, re.DOTALL)
    assert found, "no judge badge"
    return " ".join(re.sub(r"<[^>]*>", "", found.group(1)).split())


def index_badges(out: Path) -> dict[str, str]:
    index = (out / "index.html").read_text()
    rows = re.findall(r'<tr data-entry="([^"]+)">(.*?)</tr>', index, re.DOTALL)
    return {
        entry: " ".join(re.sub(r"<[^>]*>", "", cells.split('<td class="num">')[-1]).split())
        for entry, cells in rows
    }


def test_every_test_runs_and_the_badges_say_so(tmp_path, own_archive):
    repo = own_archive(tmp_path)
    out = tmp_path / "out"
    build_site(repo, out, cache=tmp_path / "cache")
    n_cpp = len(list((repo / CPP / "tests").glob("*.in")))
    n_py = len(list((repo / PY / "tests").glob("*.in")))
    assert judge_line(out, CPP).startswith(
        f"Judge data: passed {n_cpp} of {n_cpp} tests, slowest under "
    )
    assert "checked by comparison (float 1e-06)" in judge_line(out, CPP)
    assert f"checked by the checker {PY}/checker.py" in judge_line(out, PY)
    assert index_badges(out) == {
        "demo/2024/A-dice-sum": f"{n_cpp}/{n_cpp}",
        "demo/2024/B-all-heads": f"{n_py}/{n_py}",
    }
    manifest = json.loads((out / "manifest.json").read_text())
    tests = {e["id"]: e["tests"] for e in manifest["entries"]}
    assert [t["name"] for t in tests["demo/2024/A-dice-sum"]] == ["1", "2", "3"]
    assert all(t["passed"] and t["problem"] == "" for t in tests["demo/2024/B-all-heads"])
    assert (out / "raw" / PY / "checker.py").read_bytes() == (repo / PY / "checker.py").read_bytes()


def test_a_failed_test_is_a_verdict_not_a_stop(tmp_path, own_archive):
    repo = own_archive(tmp_path)
    (repo / CPP / "tests" / "2.ans").write_text("36.000000\n")  # 3.5 * 10 = 35
    (repo / PY / "tests" / "3.ans").write_text("0.5\n")
    out = tmp_path / "out"
    build_site(repo, out, cache=tmp_path / "cache")
    line = judge_line(out, CPP)
    assert line.startswith("Judge data: passed 2 of 3 tests")
    assert "first failure: test 2: wrong answer: token 1: got 35.000000, expected 36.000000" in line
    assert "test 3: rejected by the checker: expected 0.5, got 9.31" in judge_line(out, PY)
    assert index_badges(out) == {"demo/2024/A-dice-sum": "2/3", "demo/2024/B-all-heads": "2/3"}
    page = (out / "archive/demo/2024/A-dice-sum/index.html").read_text()
    assert '<span class="verdict fail">passed 2 of 3 tests' in page


def test_a_solution_that_hangs_on_a_test_fails_that_test_only(tmp_path, own_archive):
    repo = own_archive(tmp_path)
    solution = repo / PY / "solution.py"
    solution.write_text(
        solution.read_text().replace(
            "n = int(sys.stdin.read())", "n = int(sys.stdin.read())\nwhile n == 30:\n    pass"
        )
    )
    meta = repo / PY / "meta.toml"
    meta.write_text(meta.read_text() + "timeout = 1\n")
    out = tmp_path / "out"
    build_site(repo, out, cache=tmp_path / "cache")
    assert "passed 2 of 3 tests, slowest under 2 s" in judge_line(out, PY)
    assert "first failure: test 3: ran longer than 1 s" in judge_line(out, PY)


def test_tests_are_remembered_with_the_samples(tmp_path, monkeypatch, snapshot, own_archive):
    repo = own_archive(tmp_path)
    ran: list[str] = []
    real = site_checks.run_test

    def run_test(root, entry, test, argv=None, checker=None, **sandbox):
        ran.append(f"{entry.id}/{test.name}")
        return real(root, entry, test, argv, checker, **sandbox)

    monkeypatch.setattr(site_checks, "run_test", run_test)
    cache = tmp_path / "cache"
    build_site(repo, tmp_path / "one", cache=cache)
    assert len(ran) == 6
    build_site(repo, tmp_path / "two", cache=cache)
    assert len(ran) == 6
    assert snapshot(tmp_path / "one") == snapshot(tmp_path / "two")
    checker = repo / PY / "checker.py"
    checker.write_text(checker.read_text() + "# edited\n")
    build_site(repo, tmp_path / "three", cache=cache)
    assert sorted(ran[6:]) == [f"demo/2024/B-all-heads/{i}" for i in (1, 2, 3)]


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


BAD = {
    "a test without its answer": (
        lambda r: (r / CPP / "tests" / "2.ans").unlink(),
        f"{CPP}/tests/2.in: test 2.in has no answer (2.ans)",
    ),
    "an answer without its test": (
        lambda r: (r / CPP / "tests" / "2.in").unlink(),
        f"{CPP}/tests/2.ans: answer without an input (.in) file",
    ),
    "a test that links outside the repository": (
        lambda r: (
            (r.parent / "secret.in").write_text("1\n"),
            (r / CPP / "tests" / "2.in").unlink(),
            (r / CPP / "tests" / "2.in").symlink_to(r.parent / "secret.in"),
        ),
        f"{CPP}/tests/2.in: file '{CPP}/tests/2.in' is outside the repository",
    ),
    "a checker that crashes": (
        lambda r: _edit(r / PY / "checker.py", "want = float(", "want = 1 / 0 + float("),
        f"{PY}/checker.py: the checker crashed on sample 1: exited with status 1: "
        "ZeroDivisionError: ",
    ),
    "a checker that exits oddly": (
        lambda r: _edit(r / PY / "checker.py", "import sys\n", "import sys\nsys.exit(7)\n"),
        f"{PY}/checker.py: the checker crashed on sample 1: exited with status 7",
    ),
    "a checker in no known language": (
        lambda r: (
            (r / PY / "checker.py").rename(r / PY / "checker.awk"),
            _edit(r / PY / "meta.toml", ':checker.py"', ':checker.awk"'),
        ),
        f"{PY}/checker.awk: no built-in runner for '.awk' checkers",
    ),
    "a checker that is not there": (
        lambda r: (r / PY / "checker.py").unlink(),
        f"{PY}/meta.toml: 'checker' '{PY}/checker.py': no such file",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_judge_data_is_one_line_and_the_output_stays(
    case, tmp_path, capsys, snapshot, own_archive
):
    repo = own_archive(tmp_path)
    out = tmp_path / "out"
    argv = [
        "build",
        "--root",
        str(repo),
        "--out",
        str(out),
        "--cache",
        str(tmp_path / "c"),
        "--quiet",
        "--fail-fast",
    ]
    assert site_main(argv) == 0
    before = snapshot(out)
    breaks, expected = BAD[case]
    breaks(repo)
    capsys.readouterr()
    code = site_main(argv)
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1, lines
    assert lines[0].startswith("perfectplay: site: demo/2024/"), lines[0]
    assert expected in lines[0], lines[0]
    assert snapshot(out) == before
