"""A command that needs an optional extra says so before any work starts."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from perfectplay._util.extras import EXTRAS, missing, require
from perfectplay.errors import PerfectplayError

ROOT = Path(__file__).resolve().parent.parent


def _without(
    modules: tuple[str, ...], argv: list[str]
) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run ``perfectplay ARGV`` in a Python where ``modules`` cannot be imported."""
    code = (
        "import sys\n"
        f"for name in {modules!r}: sys.modules[name] = None\n"
        "from perfectplay.cli import main\n"
        f"sys.exit(main({argv!r}))\n"
    )
    t0 = time.monotonic()
    res = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    return res, time.monotonic() - t0


def test_plot_without_matplotlib_fails_at_once_with_the_install_command() -> None:
    res, seconds = _without(("matplotlib",), ["yahtzee", "--distribution", "--plot", "d.png"])
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == ("perfectplay: --plot needs matplotlib: pip install 'perfectplay[plot]'\n")
    assert seconds < 20  # no solve (tens of seconds) before the check


def test_site_reference_without_pygments_names_the_extra() -> None:
    res, _ = _without(("pygments",), ["site", "reference", "--root", str(ROOT), "--check"])
    assert res.returncode == 2
    assert (
        res.stderr
        == "perfectplay: site reference needs pygments: pip install 'perfectplay[site]'\n"
    )


def test_the_extras_match_pyproject() -> None:
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert set(EXTRAS) <= set(extras)


def test_require_and_missing() -> None:
    assert missing(["json"]) == []
    with pytest.raises(PerfectplayError, match=r"pip install 'perfectplay\[plot\]'"):
        require("plot", "x", modules=("no_such_module_here",))
