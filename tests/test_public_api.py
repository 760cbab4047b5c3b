"""The public API a reader meets: names the docs mention exist, packages say what they export.

* every dotted ``perfectplay.…`` name in README.md and docs/*.md resolves (by import, then
  attribute) and ``help()`` renders it, so a renamed function cannot leave the docs behind;
* every package and every module of the core has ``__all__``, each listed name exists, and
  a package that loads names lazily lists them in ``dir()``;
* the library prints nothing: ``print`` appears only in command-line and site code and in
  the progress reporter, which the command turns on.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import pydoc
import re
import subprocess
import sys
from pathlib import Path

import pytest

import perfectplay

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "perfectplay"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
NAME = re.compile(r"\bperfectplay(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


def _documented_names() -> list[str]:
    names = set()
    for page in DOCS:
        for match in NAME.finditer(page.read_text()):
            names.add(match.group(0).rstrip("."))
    return sorted(names)


def resolve(dotted: str):
    """The object a dotted name denotes: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(dotted)


def test_resolve_reports_a_missing_name():
    with pytest.raises(AttributeError):
        resolve("perfectplay.core_solve_retry")
    with pytest.raises(AttributeError):
        resolve("perfectplay.solvers.retry.no_such_function")


@pytest.mark.parametrize("dotted", _documented_names())
def test_every_documented_name_resolves_and_has_help(dotted):
    obj = resolve(dotted)
    text = pydoc.render_doc(obj, renderer=pydoc.plaintext)
    assert text.strip()


def test_the_docs_name_enough_to_be_checked():
    assert len(_documented_names()) >= 20


def _modules() -> list[tuple[str, bool]]:
    out = [(perfectplay.__name__, True)]
    for info in pkgutil.walk_packages(perfectplay.__path__, perfectplay.__name__ + "."):
        if not info.name.endswith("__main__"):
            out.append((info.name, info.ispkg))
    return out


CORE = ("graphs", "solvers", "analysis", "models", "examples", "_util", "site")
CHECKED = [
    name
    for name, ispkg in _modules()
    if ispkg or name == "perfectplay.errors" or name.split(".")[1] in CORE
]


@pytest.mark.parametrize("name", CHECKED)
def test_modules_declare_their_exports(name):
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert isinstance(exported, list), f"{name} has no __all__"
    for attr in exported:
        assert getattr(module, attr) is not None, f"{name}.{attr}"
    if "__getattr__" in vars(module):
        assert "__dir__" in vars(module), f"{name} loads names lazily but has no __dir__"
        assert set(exported) <= set(dir(module))


def test_package_exports_load_lazily():
    # Importing the packages must stay cheap: their exports load on first use.
    code = (
        "import sys, perfectplay.solvers, perfectplay.graphs, perfectplay.analysis, "
        "perfectplay.models\n"
        "print('numpy' in sys.modules)\n"
        "from perfectplay.solvers import solve_retry\n"
        "import perfectplay.solvers.retry as m\n"
        "print(solve_retry is m.solve_retry, 'numpy' in sys.modules)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.stdout.split() == ["False", "True", "True"], res.stderr


# Modules that talk to a terminal on purpose: the commands, the mechanics they share
# (their error lines), the site builder, the examples a user runs, and the progress
# reporter (off unless a command turns it on).
PRINTS_ALLOWED = ("cli/", "_util/command.py", "site/", "examples/", "_util/progress.py")


def test_the_library_prints_nothing():
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith(PRINTS_ALLOWED) or rel.endswith("/cli.py") or rel == "__main__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "print"
            ):
                offenders.append(f"{rel}:{node.lineno}")
    assert not offenders, "print() in library code: " + ", ".join(offenders)


def test_progress_is_silent_unless_enabled(capsys, monkeypatch):
    from perfectplay._util.progress import Progress, enable_progress, progress_enabled

    monkeypatch.delenv("PERFECTPLAY_QUIET", raising=False)
    assert not progress_enabled()
    Progress("quiet work", 0.0, 0.0).update(5, "items")
    assert capsys.readouterr().err == ""
    enable_progress()
    try:
        Progress("loud work", 0.0, 0.0).update(5, "items")
    finally:
        enable_progress(False)
    assert capsys.readouterr().err == "perfectplay: loud work: 5 items (0.0 s)\n"
