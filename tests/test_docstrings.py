"""Every docstring example in the package runs, found by walking the package.

The list of modules is discovered, not kept by hand, so a new module's examples are run
from the day it is added. Each module is one test so that a failure names its module.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re

import pytest

import perfectplay


def _modules() -> list[str]:
    names = [perfectplay.__name__]
    for info in pkgutil.walk_packages(perfectplay.__path__, perfectplay.__name__ + "."):
        # Importing ``__main__`` would run the command line.
        if not info.name.endswith(".__main__"):
            names.append(info.name)
    return sorted(names)


MODULES = _modules()

# The core's public functions and classes each show how they are called.
CORE = ("perfectplay._util", "perfectplay.graphs", "perfectplay.solvers", "perfectplay.analysis")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    # Run as written: a package with lazy exports has none of them in its namespace until
    # first use, so an example that uses one without importing it fails here as it fails
    # for a reader who pastes it (the names were once injected, and two examples relied on it).
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_walk_finds_the_package():
    # Guards the discovery itself: a broken walk would make the test above vacuous.
    for expected in (
        "perfectplay.solvers.retry",
        "perfectplay.models.explore",
        "perfectplay.problems.alea.solution",
        "perfectplay.examples.dodgem",
    ):
        assert expected in MODULES
    finder = doctest.DocTestFinder()
    examples = sum(
        len(t.examples) for n in MODULES for t in finder.find(importlib.import_module(n))
    )
    assert examples > 250


def _public_callables(module):
    exported = getattr(module, "__all__", None)
    for name, obj in vars(module).items():
        if name.startswith("_") or (exported is not None and name not in exported):
            continue
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module.__name__:
            yield name, obj


@pytest.mark.parametrize("name", [m for m in MODULES if m.startswith(CORE)])
def test_core_public_names_have_examples(name):
    """Each public function and class of the core appears in some example of its module
    (its own docstring, a method's, or the module's); exceptions and protocols (types a
    caller implements, never calls) are exempt."""
    module = importlib.import_module(name)
    shown = "\n".join(
        ex.source for test in doctest.DocTestFinder().find(module) for ex in test.examples
    )
    missing = [
        attr
        for attr, obj in _public_callables(module)
        if not (inspect.isclass(obj) and issubclass(obj, BaseException))
        and not getattr(obj, "_is_protocol", False)
        and not re.search(rf"\b{attr}\b", shown)
    ]
    assert not missing, f"{name}: no example for {', '.join(missing)}"
