"""The problem template: a working problem, and proof that adding one touches one folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from perfectplay import cli
from perfectplay.errors import InputError
from perfectplay.problems import REGISTRY, discover
from perfectplay.problems._template import PROBLEM, explain, format, parse, solve

SRC = Path(__file__).resolve().parents[2] / "src"


def _series(faces: int, target: int) -> float:
    """Twin: the mean of the number of rolls as sum over k >= 0 of P(more than k rolls)."""
    miss = Fraction(target - 1, faces)
    total, term = 0.0, 1.0
    while term > 1e-15:
        total += term
        term *= float(miss)
    return total


@pytest.mark.parametrize("faces,target", [(1, 1), (2, 2), (6, 1), (6, 5), (6, 6), (20, 17)])
def test_values_match_the_series_twin(faces, target):
    value = solve(parse(f"{faces} {target}\n")).value
    assert value == pytest.approx(_series(faces, target), rel=1e-12)


def test_format_and_explain():
    solution = solve(parse("6 6"))
    assert format(solution) == "6.000000000"
    assert explain(solution).splitlines()[1].startswith("each roll shows 6 with probability 1/6")


@pytest.mark.parametrize(
    "text,line,fragment",
    [
        ("", 1, "expected 'F T'"),
        ("6\n", 1, "expected 2 numbers"),
        ("6 7\n", 1, "T must be from 1 to F = 6, got 7"),
        ("0 1\n", 1, "F must be from 1"),
        ("6 x\n", 1, "T must be a positive integer, got 'x'"),
        ("6 5\n\n7\n", 3, "unexpected '7'"),
        ("9" * 5000 + " 1\n", 1, "F must be from 1 to 1000000000, got 99999"),
    ],
)
def test_parse_errors_name_the_line(text, line, fragment):
    with pytest.raises(InputError) as info:
        parse(text)
    assert info.value.line == line and fragment in info.value.message


def test_the_template_is_not_a_command():
    assert "_template" not in REGISTRY and "_template" not in discover()
    assert PROBLEM.name == "_template"
    assert cli.main(["_template"]) == 2


def test_the_generic_runner_serves_the_template(capsys, monkeypatch):
    from perfectplay.cli.problem import main

    assert main(PROBLEM, ["--example", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj == {"faces": 6, "target": 5, "answer": "3.000000000", "expected_rolls": 3.0}
    assert main(PROBLEM, ["--example", "--json", "--explain"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # one answer, one line
    explained = json.loads(out)
    assert explained.pop("explanation") == explain(solve(parse("6 5"))).rstrip("\n")
    assert explained == obj
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"4 5\n")))
    assert main(PROBLEM, []) == 2
    assert capsys.readouterr().err == "perfectplay: <stdin>:1: T must be from 1 to F = 4, got 5\n"


def test_a_copied_template_is_a_new_command_without_touching_anything_else(tmp_path):
    # Copy the package as it is, then add one problem folder: the copy of the template.
    tree = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(SRC / "perfectplay", tree / "perfectplay", ignore=ignore)
    before = {p.relative_to(tree).as_posix(): p.read_bytes() for p in tree.rglob("*.py")}
    problems = tree / "perfectplay" / "problems"
    shutil.copytree(problems / "_template", problems / "highface", ignore=ignore)

    env = {**os.environ, "PYTHONPATH": str(tree), "PERFECTPLAY_QUIET": "1"}

    def perfectplay(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "perfectplay", *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
        )

    usage = perfectplay("--help")
    assert usage.returncode == 0 and "highface " in usage.stdout
    assert "_template" not in usage.stdout and "template: expected rolls" in usage.stdout
    assert perfectplay("highface", "--help").stdout.startswith("usage: perfectplay highface")
    res = perfectplay("highface", stdin="6 6\n")
    assert (res.returncode, res.stdout, res.stderr) == (0, "6.000000000\n", "")
    res = perfectplay("highface", "--example", "--explain")
    assert res.returncode == 0 and res.stdout.startswith("3.000000000\neach roll")
    res = perfectplay("highface", "-", stdin="6 9\n")
    assert res.returncode == 2 and res.stderr == (
        "perfectplay: <stdin>:1: T must be from 1 to F = 6, got 9\n"
    )
    # The site shows the new package's files and the core modules it imports.
    from perfectplay.site.entries import package_sources

    shown = package_sources(tmp_path, "highface")
    assert shown[:6] == [
        f"src/perfectplay/problems/highface/{name}.py"
        for name in ("__init__", "instance", "build", "solution", "report", "cli")
    ]
    assert "src/perfectplay/solvers/retry.py" in shown
    assert "src/perfectplay/graphs/chance.py" in shown
    # Nothing outside the new folder was edited to get there.
    after = {p.relative_to(tree).as_posix(): p.read_bytes() for p in tree.rglob("*.py")}
    added = sorted(set(after) - set(before))
    assert all(name.startswith("perfectplay/problems/highface/") for name in added), added
    assert {k: after[k] for k in before} == before


PROBLEM_PACKAGES = sorted(p.parent.name for p in SRC.glob("perfectplay/problems/*/__init__.py"))


@pytest.mark.parametrize("folder", PROBLEM_PACKAGES)
def test_a_problem_package_exports_what_its_type_checking_imports_name(folder):
    import ast
    import importlib

    path = SRC / "perfectplay" / "problems" / folder / "__init__.py"
    guarded = [
        node
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    ]
    imported = {
        alias.name: node.module
        for block in guarded
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    package = importlib.import_module(f"perfectplay.problems.{folder}")
    assert sorted(package.__all__) == sorted(imported) and imported
    for name, module in imported.items():
        assert getattr(package, name) is getattr(importlib.import_module(module), name)
        assert name in dir(package)
