"""Solved Yahtzee tables are cached on disk by the rules' fingerprint, so a second
``perfectplay yahtzee advise`` reads the table instead of solving again."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfectplay.cli import main
from perfectplay.problems.yahtzee import solution as problem_solution

MINI = Path(__file__).resolve().parent.parent / "serve" / "mini_rules.py"
SITUATION = "dice 1 1 3; rolls left 1"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.delenv("PERFECTPLAY_NO_CACHE", raising=False)
    monkeypatch.setenv("PERFECTPLAY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(problem_solution, "_SOLVED", {})  # no table kept in this process
    return tmp_path / "cache"


def _advise(capsys, *extra):
    capsys.readouterr()
    problem_solution._SOLVED.clear()
    code = main(["yahtzee", "advise", "--rules", f"{MINI}:MINI", *extra, SITUATION])
    return code, capsys.readouterr().out


def test_the_second_run_reads_the_cached_table(cache, capsys, monkeypatch):
    code, first = _advise(capsys)
    files = list(cache.glob("yahtzee-*/*.table"))
    assert code == 0 and len(files) == 1
    from perfectplay.yahtzee import solution as yz

    def no_solving(game):
        raise AssertionError("solved again instead of reading the cache")

    monkeypatch.setattr(yz, "solve", no_solving)
    code, second = _advise(capsys)
    assert code == 0 and second == first


def test_no_cache_solves_and_a_damaged_cache_is_replaced(cache, capsys, monkeypatch):
    code, first = _advise(capsys)
    (path,) = cache.glob("yahtzee-*/*.table")
    path.write_bytes(path.read_bytes()[:1000])  # truncated
    code, again = _advise(capsys)
    assert code == 0 and again == first and path.stat().st_size > 1000
    from perfectplay.yahtzee import solution as yz

    calls = []
    real = yz.solve
    monkeypatch.setattr(yz, "solve", lambda game: calls.append(1) or real(game))
    code, fresh = _advise(capsys, "--no-cache")
    assert code == 0 and fresh == first and calls == [1]


def test_an_unwritable_cache_is_skipped(tmp_path, capsys, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.delenv("PERFECTPLAY_NO_CACHE", raising=False)
    monkeypatch.setenv("PERFECTPLAY_CACHE_DIR", str(blocker / "cache"))
    code, out = _advise(capsys)
    assert code == 0 and "keep" in out
