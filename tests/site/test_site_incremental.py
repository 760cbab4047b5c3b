"""Incremental builds: entries unchanged since a build that checked them are not run again,
and the output is byte-identical to a full build."""

from __future__ import annotations

import shutil

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("pygments")

import perfectplay.site.checks as site_checks  # noqa: E402
import perfectplay.site.output as site_output  # noqa: E402
import perfectplay.site.pandoc as site_pandoc  # noqa: E402
from perfectplay.site import SiteError, build_site  # noqa: E402
from perfectplay.site.cache import Store  # noqa: E402
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


@pytest.fixture
def counted(monkeypatch):
    """The entries whose samples were run, one item per run."""
    runs: list[str] = []
    real = site_checks.run_sample

    def run_sample(root, entry, sample, argv=None, **sandbox):
        runs.append(entry.id)
        return real(root, entry, sample, argv, **sandbox)

    monkeypatch.setattr(site_checks, "run_sample", run_sample)
    return runs


@pytest.fixture
def converted(monkeypatch):
    files: list[str] = []
    real = site_pandoc.convert

    def convert(root, source, where, **options):
        files.append(source)
        return real(root, source, where, **options)

    monkeypatch.setattr(site_pandoc, "convert", convert)
    return files


def test_unchanged_entries_are_not_run_again(tmp_path, counted, converted, snapshot, own_archive):
    repo = own_archive(tmp_path)
    cache = tmp_path / "cache"
    first = build_site(repo, tmp_path / "full", cache=cache)
    assert sorted(set(counted)) == ["demo/2024/A-dice-sum", "demo/2024/B-all-heads"]
    assert len(counted) == 4 and len(converted) == 4 and first.reused == 0
    counted.clear(), converted.clear()

    again = build_site(repo, tmp_path / "again", cache=cache)
    assert counted == [] and converted == [] and again.reused == 2
    assert snapshot(tmp_path / "again") == snapshot(tmp_path / "full")

    # One solution changes: only its entry runs, and the result equals a full build.
    solution = repo / PY / "solution.py"
    solution.write_text(solution.read_text().replace(":.12f", ":.10f"))
    build_site(repo, tmp_path / "incremental", cache=cache)
    assert counted == ["demo/2024/B-all-heads"] * 2 and converted == []
    counted.clear()
    build_site(repo, tmp_path / "forced", cache=cache, force=True)
    assert len(counted) == 4 and len(converted) == 4
    assert snapshot(tmp_path / "incremental") == snapshot(tmp_path / "forced")
    assert snapshot(tmp_path / "incremental") != snapshot(tmp_path / "full")


CHANGES = {
    "an included header": lambda r: (r / "lib" / "io.h").write_text(
        (r / "lib" / "io.h").read_text() + "// edited\n"
    ),
    "a sample answer": lambda r: (r / CPP / "samples" / "2.ans").write_text("14.0\n"),
    # Same size, written at once: the stat that remembers a test's hash still changes.
    "a judge answer of the same size": lambda r: (r / CPP / "tests" / "1.ans").write_text(
        (r / CPP / "tests" / "1.ans").read_text().replace("7", "8")
    ),
    "the runner's flags": lambda r: (r / "site.toml").write_text(
        (r / "site.toml").read_text().replace("-Wall", "-Wall -Wextra")
    ),
    "the time limit": lambda r: (r / "site.toml").write_text(
        (r / "site.toml").read_text().replace("time_limit = 10", "time_limit = 11")
    ),
    "the comparison": lambda r: (r / CPP / "meta.toml").write_text(
        (r / CPP / "meta.toml").read_text().replace("1e-6", "1e-7")
    ),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_what_a_check_depends_on_reruns_it(change, tmp_path, counted, own_archive):
    repo = own_archive(tmp_path)
    cache = tmp_path / "cache"
    build_site(repo, tmp_path / "out", cache=cache)
    counted.clear()
    CHANGES[change](repo)
    build_site(repo, tmp_path / "out", cache=cache)
    assert "demo/2024/A-dice-sum" in counted


def test_force_from_the_command_line(tmp_path, counted, capsys, own_archive):
    repo = own_archive(tmp_path)
    argv = [
        "build",
        "--root",
        str(repo),
        "--out",
        str(tmp_path / "out"),
        "--cache",
        str(tmp_path / "cache"),
    ]
    assert site_main(argv) == 0
    assert site_main(argv) == 0
    assert "4 samples run and checked, 2 unchanged since the last build" in capsys.readouterr().err
    counted.clear()
    assert site_main([*argv, "--force"]) == 0
    assert len(counted) == 4
    assert "unchanged" not in capsys.readouterr().err


def test_a_failed_build_records_nothing_for_the_failing_entry(tmp_path, counted, own_archive):
    repo = own_archive(tmp_path)
    cache = tmp_path / "cache"
    (repo / PY / "samples" / "1.ans").write_text("0.25\n")
    for _ in range(2):
        with pytest.raises(SiteError, match="1.ans: the output"):
            build_site(repo, tmp_path / "out", cache=cache)
    assert counted.count("demo/2024/B-all-heads") >= 2  # checked again, not remembered
    assert not (tmp_path / "out").exists()


def test_a_damaged_record_is_ignored(tmp_path):
    store = Store(tmp_path)
    store.put("runs", "k", {"samples": []})
    assert store.get("runs", "k") == {"samples": []}
    (tmp_path / "runs" / "k.json").write_text("{not json")
    assert store.get("runs", "k") is None
    assert Store(tmp_path, force=True).get("runs", "k") is None
    assert [p.name for p in (tmp_path / "runs").iterdir()] == ["k.json"]  # no temporary left


def test_unchanged_output_files_are_linked_not_written_again(tmp_path, own_archive):
    repo = own_archive(tmp_path)
    out, cache = tmp_path / "out", tmp_path / "cache"
    build_site(repo, out, cache=cache)
    page_cpp = out / "archive/demo/2024/A-dice-sum/index.html"
    page_py = out / "archive/demo/2024/B-all-heads/index.html"
    before = {p: p.stat().st_ino for p in (page_cpp, page_py)}
    statement = repo / PY / "statement.md"
    statement.write_text(statement.read_text().replace("Toss", "Throw"))
    build_site(repo, out, cache=cache)
    assert page_cpp.stat().st_ino == before[page_cpp]  # the same file, linked over
    assert page_py.stat().st_ino != before[page_py] and "Throw" in page_py.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "out", "repo"]


def test_a_large_previous_build_is_removed_in_the_background(
    tmp_path, monkeypatch, snapshot, own_archive
):
    import time

    monkeypatch.setattr(site_output, "BACKGROUND_REMOVAL", 0)
    repo = own_archive(tmp_path)
    out, cache = tmp_path / "out", tmp_path / "cache"
    build_site(repo, out, cache=cache)
    first = snapshot(out)
    build_site(repo, out, cache=cache)
    assert snapshot(out) == first
    for _ in range(200):
        if sorted(p.name for p in tmp_path.iterdir()) == ["cache", "out", "repo"]:
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"left over: {sorted(p.name for p in tmp_path.iterdir())}")
