"""The tree's own command line: ``perfectplay --help`` and the command registry, run from
the tree being built (its ``src`` first on the path), for the CLI reference."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from perfectplay.site.errors import SiteError

__all__ = ["commands", "help_text", "tree_python"]


def commands(root: Path) -> dict[str, str]:
    """Every command of the tree's ``perfectplay`` with its summary, from the registry.

    The tree's own package is imported in a child process (as ``--help`` is run), so the
    reference documents the tree being built, not the perfectplay running the build.
    """
    code = "import json; from perfectplay.cli import commands; print(json.dumps(commands()))"
    out = tree_python(root, ["-c", code], "src/perfectplay/problems/__init__.py",
                  "the command registry")
    try:
        found = json.loads(out)
    except ValueError:
        raise SiteError("docs", "src/perfectplay/problems/__init__.py",
                        "the command registry printed no JSON") from None
    return {str(name): str(summary) for name, summary in found.items()}


def help_text(root: Path, args: list[str]) -> str:
    return tree_python(root, ["-m", "perfectplay", *args], "src/perfectplay/cli/__init__.py",
                   f"`perfectplay {' '.join(args)}`")


def tree_python(root: Path, argv: list[str], source: str, what: str) -> str:
    """Run the tree's Python (``src`` first on the path) and return its standard output."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root / "src"), env.get("PYTHONPATH")) if p)
    env["COLUMNS"] = "100"  # argparse wraps to the terminal; fix it so builds agree
    env["PYTHONHASHSEED"] = "0"
    cmd = [sys.executable, *argv]
    try:
        proc = subprocess.run(cmd, capture_output=True, cwd=root, env=env, timeout=120)
    except subprocess.TimeoutExpired:
        raise SiteError("docs", source, f"{what} hung") from None
    if proc.returncode != 0:
        last = (proc.stderr.decode("utf-8", "replace").strip().splitlines() or ["no message"])[-1]
        raise SiteError("docs", source, f"{what} failed: {last}")
    return proc.stdout.decode("utf-8", "replace")
