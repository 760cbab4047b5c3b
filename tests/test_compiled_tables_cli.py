"""A compiled model's saved table on the command line: ``perfectplay query`` answers its
positions with the model's class (rebuilt from the table's parameters), and ``perfectplay
export`` writes it one row per position in every format."""

from __future__ import annotations

import csv
import json

import pytest

import perfectplay
from perfectplay.cli import main

UR = "perfectplay.examples.ur:Ur"


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("ur") / "ur1"
    assert main(["solve", UR, "-p", "pieces=1", "-q", "--export", str(path)]) == 0
    return path


def test_query_answers_positions_with_the_models_class(table, capsys):
    capsys.readouterr()
    assert main(["query", str(table)]) == 0
    assert capsys.readouterr().out == "start: 0.530049840 (winning chance)\n"
    assert main(["query", str(table), "/:2", "--model", UR]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "position /: 0.530049840 for the player to move"
    assert out[-1] == "    enter to 2  0.526944188  best"
    assert main(["query", str(table), "/:2", "--model", UR, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["outcomes"][0]["moves"][0]["move"] == "enter to 2"
    # the number of a state, as an exported row gives it, reads as itself
    assert main(["query", str(table), str(data["state"]), "--model", UR]) == 0
    assert capsys.readouterr().out.startswith("position /: 0.530049840")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["/:2"], "give --model MODULE:CLASS"),
        (["/:2", "--model", "perfectplay.examples.pig_compiled:CompiledPig"], "not CompiledPig"),
        (["nonsense", "--model", UR], "an Ur position is LIGHT/DARK"),
        (["/", "--model", "nosuch.py:Ur"], "--model nosuch.py:Ur: no such file"),
        (["/", "--model", " "], "--model names a model's class"),
    ],
)
def test_query_refuses_in_one_line(table, capsys, argv, says):
    capsys.readouterr()
    assert main(["query", str(table), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0], err


def test_export_writes_a_row_per_position(table, tmp_path, capsys):
    sol = perfectplay.load(table)
    out = tmp_path / "ur1.csv"
    assert main(["export", str(table), "-o", str(out), "-q"]) == 0
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == sol.n_positions == 217
    assert {r["layer"] for r in rows} == {str(lid) for lid in sol.layers}
    for r in rows[::17]:
        assert float(r["value"]) == sol.value(int(r["key"]))
    out = tmp_path / "ur1.jsonl"
    assert main(["export", str(table), "--format", "jsonl", "-o", str(out), "-q"]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(d["key"], d["value"]) for d in lines] == [
        (int(r["key"]), float(r["value"])) for r in rows
    ]
    capsys.readouterr()
    assert main(["export", str(table), "--options", "-o", str(tmp_path / "x.csv")]) == 2
    assert "one row per position" in capsys.readouterr().err


def test_export_as_parquet(table, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet", reason="the parquet extra is not installed")
    out = tmp_path / "ur1.parquet"
    assert main(["export", str(table), "--format", "parquet", "-o", str(out), "-q"]) == 0
    t = pq.read_table(out)
    assert t.column_names == ["key", "layer", "value"] and t.num_rows == 217
