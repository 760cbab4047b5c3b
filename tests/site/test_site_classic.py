"""Classic games in the archive: an entry without a contest (no ``contest``, ``problem``,
``year``) is listed under "Classic games" on the index and titled by its name alone; the
contest entries keep their table and pages. Also: a gallery package's page shows the
turn lattice and the scorecard package it imports (``CORE``)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("pygments")

from perfectplay.site import SiteError, build_site  # noqa: E402
from perfectplay.site.entries import discover, package_sources  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixture"
CONTEST = "archive/demo/2024/A-sum-of-numbers"
GAME = "archive/classic/sum-game"

try:
    from perfectplay.site.pandoc import pandoc as _find_pandoc

    _find_pandoc()
except SiteError:  # pragma: no cover - the site extra is part of the test extra
    pytest.skip("pandoc is not installed (pip install -e '.[site]')", allow_module_level=True)


def _with_game(tmp_path: Path) -> Path:
    """The fixture plus a classic-game entry: the demo entry's files, its meta without a
    contest."""
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    shutil.copytree(repo / CONTEST, repo / GAME)
    meta = repo / GAME / "meta.toml"
    text = meta.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^(contest|year|problem) = .*\n", "", text)
    meta.write_text(text.replace('"Sum of Numbers"', '"Solitaire Sums"'), encoding="utf-8")
    return repo


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("classic")
    repo = _with_game(base)
    out = base / "out"
    build_site(repo, out, quiet=True)
    return repo, out


def _table(index: str, heading_id: str) -> str:
    """The table that follows the heading ``heading_id`` on the index."""
    found = re.search(rf'<h2 id="{heading_id}">.*?</h2>\s*(<table.*?</table>)', index, re.DOTALL)
    assert found, heading_id
    return found.group(1)


def test_the_index_lists_classic_games_apart(built):
    _, out = built
    index = (out / "index.html").read_text(encoding="utf-8")
    games = _table(index, "classic-games")
    contests = _table(index, "contest-problems")
    assert 'data-entry="classic/sum-game"' in games
    assert 'data-entry="classic/sum-game"' not in contests
    assert 'data-entry="demo/2024/A-sum-of-numbers"' in contests
    assert "Solitaire Sums" in games and "<th>Game</th>" in games
    assert "2 entries." in index


def test_a_classic_page_is_titled_by_the_game(built):
    _, out = built
    page = (out / GAME / "index.html").read_text(encoding="utf-8")
    assert "<h1>Solitaire Sums</h1>" in page
    assert "<title>Solitaire Sums" in page
    assert "Classic games</a> › Solitaire Sums</p>" in page
    assert "the rules</a>" in page and ", problem" not in page
    contest = (out / CONTEST / "index.html").read_text(encoding="utf-8")
    assert "<h1>A. Sum of Numbers</h1>" in contest
    assert "Demo Contest 2024, problem A" in contest


def test_search_names_the_game_without_a_contest(built):
    _, out = built
    index = (out / "assets" / "search-index.js").read_text(encoding="utf-8")
    assert '"meta":"classic game \\u00b7 arithmetic, reading input"' in index
    assert '"title":"Solitaire Sums"' in index


def test_without_classic_games_the_index_has_one_table(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    out = tmp_path / "out"
    build_site(repo, out, quiet=True)
    index = (out / "index.html").read_text(encoding="utf-8")
    assert index.count("<table") == 1
    assert "Classic games" not in index and "contest-problems" not in index


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace('problem = "A"\n', ""), "missing key 'problem' (a contest problem"),
        (lambda t: t.replace('contest = "Demo Contest"\n', ""), "missing key 'contest'"),
        (
            lambda t: t.replace('contest = "Demo Contest"\n', "").replace('problem = "A"\n', ""),
            "'year' is the contest's year: a classic game has none",
        ),
    ],
)
def test_half_a_contest_is_refused(tmp_path, edit, message):
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    meta = repo / CONTEST / "meta.toml"
    meta.write_text(edit(meta.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(SiteError, match=re.escape(message)):
        discover(repo)


def test_a_game_package_shows_the_lattice_and_the_scorecard_core(tmp_path):
    src = tmp_path / "src" / "perfectplay"
    files = {
        "problems/game/__init__.py": "",
        "problems/game/solution.py": "from perfectplay.yahtzee import solve\n",
        "yahtzee/__init__.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from perfectplay.yahtzee.solution import solve\n"
        ),
        "yahtzee/solution.py": (
            "from perfectplay.yahtzee.game import ScorecardGame\n"
            "def solve():\n    from perfectplay.solvers import scorecard\n"
        ),
        "yahtzee/game.py": "from perfectplay.lattice import TurnLattice\n",
        "lattice.py": "from perfectplay.dice import Faces\n",
        "dice.py": "",
        "solvers/__init__.py": "",
        "solvers/scorecard.py": "from perfectplay.solvers.turns import reroll\n",
        "solvers/turns.py": "",
    }
    for name, text in files.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    shown = [p.removeprefix("src/perfectplay/") for p in package_sources(tmp_path, "game")]
    assert shown == [
        "problems/game/__init__.py",
        "problems/game/solution.py",
        # imported lazily (in a function, under TYPE_CHECKING) counts as imported;
        # dice.py is not core: contest pages that reach it stay as they were
        "lattice.py",
        "solvers/scorecard.py",
        "solvers/turns.py",
        "yahtzee/__init__.py",
        "yahtzee/game.py",
        "yahtzee/solution.py",
    ]
