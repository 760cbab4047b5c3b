"""Served games shared by the server's tests: solved once per session."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "starlette", reason="the serve extra is not installed (pip install -e '.[test]')"
)
pytest.importorskip("httpx", reason="httpx is not installed (pip install -e '.[test]')")


def _mini():
    # By its path: the file is also what `perfectplay serve --rules FILE:MINI` loads.
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "serve_mini_rules", Path(__file__).with_name("mini_rules.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.MINI


MINI = _mini()

import perfectplay  # noqa: E402
from perfectplay.examples.pig import Pig  # noqa: E402
from perfectplay.examples.tictactoe import TicTacToe  # noqa: E402


@pytest.fixture(scope="session")
def race_game():
    """A one-player game whose rolls cost 1 or 2 (its model's ``cost``)."""
    import sys
    from pathlib import Path

    from perfectplay.serve.games import ModelGame

    sys.path.insert(0, str(Path(__file__).parent))
    try:
        from race_model import Race
    finally:
        sys.path.pop(0)
    return ModelGame("race", perfectplay.solve(Race()), "Race", Race())


@pytest.fixture(scope="session")
def mini_table():
    return perfectplay.solve(MINI)


@pytest.fixture(scope="session")
def american():
    """The American table, solved once for the session (seconds)."""
    return perfectplay.solve("american")


@pytest.fixture(scope="session")
def pig_solution():
    return perfectplay.solve(Pig(goal=20))


@pytest.fixture(scope="session")
def tictactoe_solution():
    return perfectplay.solve(TicTacToe())


@pytest.fixture(scope="session")
def alea_solution():
    from perfectplay.problems.alea import EXAMPLE_DICE, EXAMPLE_WORDS, solve

    return solve(list(EXAMPLE_DICE), list(EXAMPLE_WORDS))


@pytest.fixture(scope="session")
def ur2_table(tmp_path_factory):
    """2-piece Ur as `perfectplay serve --load` serves it: solved, saved as a table
    directory, loaded back with its model (seconds)."""
    from perfectplay.compiled import solve_compiled
    from perfectplay.examples.ur import Ur

    path = solve_compiled(Ur(pieces=2)).save(tmp_path_factory.mktemp("ur") / "ur2")
    return perfectplay.load(path, Ur(pieces=2))


@pytest.fixture(scope="session")
def games(mini_table, pig_solution, tictactoe_solution, alea_solution):
    from perfectplay.serve.gallery import AleaGame
    from perfectplay.serve.games import ModelGame, ScorecardTable

    return [
        ScorecardTable("yahtzee-mini", MINI, mini_table),
        ModelGame("pig", pig_solution, "Pig(goal=20)"),
        ModelGame("tictactoe", tictactoe_solution, "TicTacToe"),
        AleaGame("alea", alea_solution),
    ]


@pytest.fixture(scope="session")
def client(games):
    from starlette.testclient import TestClient

    from perfectplay.serve.app import create_app

    with TestClient(create_app(games)) as c:
        yield c
