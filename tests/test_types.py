"""Types hold: the documented ways of writing a model type-check, and CI checks the package.

The package itself is checked by ``python3 -m mypy`` in ``.ci/run`` (configuration in
``pyproject.toml``); here mypy checks a user's file written the ways ``docs/models.md``
describes: a plain class without a base, a subclass, ``start`` as a method or an
attribute, a module of functions. ``solve_model`` must give each the right solution type.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

USER_FILE = """
from collections import Counter
from typing import assert_type

import perfectplay
from perfectplay import Solution
from perfectplay.models import ChanceModel, GameModel, solve_model
from perfectplay.yahtzee import YahtzeeSolution
from perfectplay.models.chance import ChanceModelSolution
from perfectplay.models.game import GameModelSolution, Result

import user_dice_module


class PlainDice:                      # no base class: the documented minimum
    def start(self) -> tuple[int, ...]:
        return ()

    def is_goal(self, dice: tuple[int, ...]) -> bool:
        return len(dice) == 2 and dice[0] == dice[1]

    def choices(self, dice: tuple[int, ...]) -> list[tuple[int, ...]]:
        return [(), dice[:1]] if dice else [()]   # keep nothing, or the first die

    def roll(self, kept: tuple[int, ...]) -> Counter[tuple[int, ...]]:
        return Counter(tuple(sorted(kept + (f,))) for f in range(1, 7))


class SubclassedCoin(ChanceModel):
    start = "none"

    def is_goal(self, s: str) -> bool:
        return s == "heads"

    def choices(self, s: str) -> list[str]:
        return ["toss"]

    def roll(self, pending: str) -> list[tuple[str, int]]:
        return [("heads", 1), ("tails", 1)]

    def cost(self, pending: str) -> int:      # an optional hook
        return 2


class PlainPile:
    start = 6

    def moves(self, n: int) -> list[int]:
        return [k for k in (1, 2) if k <= n]

    def play(self, n: int, k: int) -> int:
        return n - k

    def outcome(self, n: int) -> str | None:  # an optional hook
        return None


class SubclassedPile(GameModel):
    no_moves = "win"

    def __init__(self, size: int = 3, symmetric: bool = False) -> None:
        self.size = size
        if symmetric:
            self.canonical = abs

    def start(self) -> int:
        return self.size

    def moves(self, n: int) -> list[int]:
        return [1] if n else []

    def play(self, n: int, k: int) -> int:
        return n - k


def types() -> None:
    assert_type(solve_model(PlainDice()), ChanceModelSolution)
    assert_type(solve_model(SubclassedCoin()), ChanceModelSolution)
    assert_type(solve_model(user_dice_module), ChanceModelSolution)
    assert_type(solve_model(PlainPile()), GameModelSolution)
    assert_type(solve_model(SubclassedPile(), max_states=10), GameModelSolution)
    assert_type(solve_model(PlainDice()).start_value, float)
    assert_type(solve_model(PlainPile()).start_value, Result)
    # the front door knows the result type of each kind of game
    assert_type(perfectplay.solve(PlainDice()), ChanceModelSolution)
    assert_type(perfectplay.solve(SubclassedPile(), max_states=10), GameModelSolution)
    assert_type(perfectplay.solve("american"), YahtzeeSolution)
    assert_type(perfectplay.load("table.npz"), Solution)
"""

MODULE_FILE = """
def start() -> int:
    return 0

def is_goal(s: int) -> bool:
    return s == 1

def choices(s: int) -> list[str]:
    return ["flip"]

def roll(pending: str) -> dict[int, int]:
    return {0: 1, 1: 1}
"""

NOT_A_MODEL = """
from perfectplay.models import solve_model

class Half:                            # has roll() but no is_goal() or choices()
    start = 0

    def roll(self, pending: int) -> list[tuple[int, int]]:
        return [(0, 1)]

solve_model(Half())
"""


def _mypy(tmp_path: Path, files: dict[str, str]) -> tuple[str, int]:
    api = pytest.importorskip("mypy.api")
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    out, err, status = api.run(
        [
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--python-version",
            "3.11",
            "--follow-imports",
            "silent",
            "--cache-dir",
            str(tmp_path / ".mypy_cache"),
            *(str(tmp_path / name) for name in files),
        ]
    )
    return out + err, status


def test_documented_models_type_check(tmp_path, monkeypatch):
    monkeypatch.setenv("MYPYPATH", f"{ROOT / 'src'}:{tmp_path}")
    report, status = _mypy(
        tmp_path, {"user_model.py": USER_FILE, "user_dice_module.py": MODULE_FILE}
    )
    assert status == 0, report
    # The file really runs too: the types describe objects the solver accepts.
    import importlib.util
    import sys

    monkeypatch.syspath_prepend(str(tmp_path))
    spec = importlib.util.spec_from_file_location("user_model", tmp_path / "user_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    solve = module.solve_model
    assert solve(module.SubclassedCoin()).start_value == 4.0
    assert solve(module.PlainDice()).start_value == 7.0  # one die kept: six rolls more
    assert solve(module.user_dice_module).start_value == 2.0
    assert str(solve(module.PlainPile()).start_value.value) == "lose"  # 6 = 0 mod 3
    # Three forced moves leave the opponent stuck, which wins under no_moves = "win".
    assert str(solve(module.SubclassedPile(3, symmetric=True)).start_value.value) == "lose"
    sys.modules.pop("user_dice_module", None)


def test_a_non_model_is_a_type_error(tmp_path, monkeypatch):
    monkeypatch.setenv("MYPYPATH", str(ROOT / "src"))
    report, status = _mypy(tmp_path, {"half.py": NOT_A_MODEL})
    assert status == 1 and 'No overload variant of "solve_model"' in report, report


def test_ci_type_checks_before_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    command = re.search(
        r"^(python3 -m pip install -e '\.\[test\]' && [^#\n]*?)\s*(#.*)?$", readme, re.M
    )
    assert command, "README.md no longer shows the test command"
    lines = [line.strip() for line in ci.splitlines()]
    assert command.group(1) in lines, ".ci/run must run the README's test command verbatim"
    assert "python3 -m mypy" in lines
    assert lines.index("python3 -m mypy") < lines.index(command.group(1))


def test_mypy_is_configured_for_the_package_and_its_examples():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    mypy = config["tool"]["mypy"]
    assert mypy["files"] == ["src/perfectplay"] and mypy["check_untyped_defs"] is True
    assert any("mypy" in dep for dep in config["project"]["optional-dependencies"]["test"])
    assert (ROOT / "src" / "perfectplay" / "examples" / "five_dice.py").is_file()
