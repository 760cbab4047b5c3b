"""The committed references (docs/reference/) match the docstrings and --help they come from."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygments")  # the site extra, which the test extra installs

from perfectplay.site import reference  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def test_committed_references_are_current():
    stale = reference.stale(ROOT)
    assert not stale, f"{', '.join(stale)} out of date: run 'perfectplay site reference'"


def test_the_references_cover_the_api_and_every_command():
    api = (ROOT / reference.FILES[0]).read_text()
    cli = (ROOT / reference.FILES[1]).read_text()
    for name in ("perfectplay.solvers.retry", "perfectplay.models", "perfectplay.graphs.chance"):
        assert f"\n## {name}\n" in api
    assert "### `solve_model(" in api and "### class `ChanceGraph" in api
    from perfectplay.cli import commands

    for name in commands():
        assert f"\n## perfectplay {name}\n" in cli
    # The docs a reader opens link to them.
    assert "(reference/api.md)" in (ROOT / "docs" / "api.md").read_text()
    assert "(reference/cli.md)" in (ROOT / "docs" / "cli.md").read_text()


def test_check_mode_reports_a_stale_file(tmp_path):
    for rel in ("archive", "docs/reference"):
        (tmp_path / rel).mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("")
    pkg = tmp_path / "src" / "perfectplay"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""A package."""\n\ndef f(x):\n    """Double ``x``."""\n')
    (pkg / "__main__.py").write_text("print('usage: perfectplay COMMAND')\n")
    (pkg / "cli").mkdir()
    (pkg / "cli" / "__init__.py").write_text("def commands():\n    return {}\n")
    run = [sys.executable, "-m", "perfectplay.site", "reference", "--root", str(tmp_path)]
    first = subprocess.run([*run, "--check"], capture_output=True, text=True)
    assert first.returncode == 1 and "docs/reference/api.md is out of date" in first.stderr
    assert subprocess.run(run, capture_output=True).returncode == 0
    api = (tmp_path / "docs" / "reference" / "api.md").read_text()
    assert "### `f(x)`\n\nDouble `x`." in api
    assert subprocess.run([*run, "--check"], capture_output=True).returncode == 0


def test_markdown_of_docstrings():
    doc = """Solve it, see :class:`~perfectplay.graphs.chance.ChanceGraph`.

    Example::

        g = build()

    >>> 1 + 1
    2

    After."""
    assert reference.markdown_doc(doc) == (
        "Solve it, see `ChanceGraph`.\n\nExample:\n\n```text\ng = build()\n```\n\n"
        "```pycon\n>>> 1 + 1\n2\n```\n\nAfter."
    )
