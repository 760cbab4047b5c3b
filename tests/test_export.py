"""``perfectplay export``: saved tables as CSV, JSON lines and Parquet that other programs
(pandas here) read back with the same values."""

from __future__ import annotations

import json
import math

import pytest

import perfectplay
from perfectplay.cli import main
from perfectplay.examples.pig import Pig
from perfectplay.examples.threes import Threes
from perfectplay.results.table import key_value

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    folder = tmp_path_factory.mktemp("export")
    return {
        "threes": perfectplay.load(perfectplay.solve(Threes()).save(folder / "threes.npz")),
        "pig": perfectplay.load(perfectplay.solve(Pig(goal=20)).save(folder / "pig.npz")),
    }


@pytest.mark.parametrize("name", ["threes", "pig"])
@pytest.mark.parametrize("fmt", ["csv", "parquet", "jsonl"])
def test_rows_read_back_with_the_same_values(tables, tmp_path, capsys, name, fmt):
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    table = tables[name]
    source = tmp_path / f"{name}.npz"
    table.save(source)
    out = tmp_path / f"{name}.{fmt}"
    capsys.readouterr()
    assert main(["export", str(source), "--format", fmt, "-o", str(out)]) == 0
    if fmt == "csv":
        frame = pd.read_csv(out)
    elif fmt == "parquet":
        frame = pd.read_parquet(out)
    else:
        frame = pd.DataFrame([json.loads(line) for line in out.read_text().splitlines()])
    assert len(frame) == len(table)
    for key, value in zip(frame["key"], frame["value"], strict=True):
        assert value == table.value(key_value(key))  # the same float, bit for bit
    best = dict(zip(frame["key"], frame["best"].fillna(""), strict=True))
    state = next(s for s in table.states() if not table.is_over(s))
    assert best[repr(state)] == " | ".join(o.label for o in table.options(state) if o.best)


def test_one_row_per_option(tables, tmp_path, capsys):
    table = tables["pig"]
    source = table.save(tmp_path / "pig.npz")
    out = tmp_path / "moves.csv"
    assert main(["export", str(source), "--options", "-o", str(out)]) == 0
    frame = pd.read_csv(out)
    state = (0, 0, 15)
    rows = frame[frame["key"] == repr(state)]
    want = table.options(state)
    assert list(rows["option"]) == [o.label for o in want]
    assert all(
        math.isclose(a, o.regret, abs_tol=0) for a, o in zip(rows["regret"], want, strict=True)
    )
    assert list(rows["best"]) == [o.best for o in want]


def test_refusals_are_one_line(tmp_path, capsys):
    capsys.readouterr()
    assert main(["export", str(tmp_path / "missing.npz")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such file" in err


def test_a_table_of_another_kind_is_refused_with_one_prefix(tmp_path, capsys, monkeypatch):
    # A scorecard (Yahtzee) table loads but has no rows to export yet; the message must
    # not repeat the command's name after the "perfectplay: export: " prefix.
    class Scorecard:
        kind = "scorecard"

    monkeypatch.setattr(perfectplay, "load", lambda path: Scorecard())
    capsys.readouterr()
    assert main(["export", str(tmp_path / "american.table")]) == 2
    err = capsys.readouterr().err
    assert err == (
        "perfectplay: export: a scorecard table cannot be written as rows yet, "
        "only a model's table (.npz)\n"
    )


def test_dash_writes_the_rows_to_standard_output(tables, tmp_path, capsysbinary):
    """``-o -`` writes the rows to standard output (it wrote a file named '-'), the same
    bytes as the file; a binary format is refused to a terminal only."""
    source = tmp_path / "pig.npz"
    tables["pig"].save(source)
    out = tmp_path / "pig.csv"
    assert main(["export", str(source), "-o", str(out), "-q"]) == 0
    capsysbinary.readouterr()
    assert main(["export", str(source), "-o", "-"]) == 0
    assert capsysbinary.readouterr().out == out.read_bytes()
    assert not (tmp_path / "-").exists()
