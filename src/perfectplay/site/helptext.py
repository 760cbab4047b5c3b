"""The tree's own command line: ``perfectplay --help`` and the command registry, run from
the tree being built (its ``src`` first on the path), for the CLI reference."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from perfectplay.site.contained import run_contained
from perfectplay.site.errors import SiteError
from perfectplay.site.sandbox import Jail, jail_for

LIMIT = 120.0  # seconds one run may take

__all__ = ["commands", "help_text", "tree_python"]


def commands(root: Path, jail: Jail | None = None) -> dict[str, str]:
    """Every command of the tree's ``perfectplay`` with its summary, from the registry.

    The tree's own package is imported in a child process (as ``--help`` is run), so the
    reference documents the tree being built, not the perfectplay running the build.
    """
    code = "import json; from perfectplay.cli import commands; print(json.dumps(commands()))"
    out = tree_python(
        root, ["-c", code], "src/perfectplay/problems/__init__.py", "the command registry", jail
    )
    try:
        found = json.loads(out)
    except ValueError:
        raise SiteError(
            "docs", "src/perfectplay/problems/__init__.py", "the command registry printed no JSON"
        ) from None
    return {str(name): str(summary) for name, summary in found.items()}


def help_text(root: Path, args: list[str], jail: Jail | None = None) -> str:
    return tree_python(
        root,
        ["-m", "perfectplay", *args],
        "src/perfectplay/cli/__init__.py",
        f"`perfectplay {' '.join(args)}`",
        jail,
    )


def tree_python(
    root: Path, argv: list[str], source: str, what: str, jail: Jail | None = None
) -> str:
    """Run the tree's Python (``src`` first on the path) in ``jail`` and return its standard
    output. Without a jail: sandboxed where a sandbox is available, else as a plain child
    (``site reference`` is run by the maintainers of the tree on their own checkout)."""
    env = {
        "PYTHONPATH": os.pathsep.join(
            p for p in (str(root / "src"), os.environ.get("PYTHONPATH")) if p
        ),
        "COLUMNS": "100",  # argparse wraps to the terminal; fix it so builds agree
        "PYTHONHASHSEED": "0",
    }
    run = run_contained(
        [sys.executable, *argv],
        b"",
        time_limit=LIMIT,
        output_limit=16 << 20,
        env=env,
        jail=jail or jail_for(root, None, trust=True),
    )
    if run.timed_out:
        raise SiteError("docs", source, f"{what} hung")
    if run.returncode != 0 or run.overflow:
        last = (run.stderr.decode("utf-8", "replace").strip().splitlines() or ["no message"])[-1]
        raise SiteError("docs", source, f"{what} failed: {last}")
    return run.stdout.decode("utf-8", "replace")
