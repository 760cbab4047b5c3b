"""The gallery: one package per solved problem, all of one shape, found by a registry.

Every problem package has the same files (copy ``problems/_template/`` to start one, and
read ``docs/adding-a-problem.md``):

* ``__init__.py``: the package's public API, cheap to import (no numpy or numba);
* ``instance.py``: ``parse(text) -> Instance``, raising
  :class:`~perfectplay.errors.InputError` with the line of the first bad input;
* ``build.py`` or ``model.py``: the graph (or the model the explorer turns into one);
* ``solution.py``: the result plus the problem's decoder (its states in its own words);
* ``report.py``: ``format(solution) -> str``, the official output, and
  ``explain(solution) -> str``, the answer in words;
* ``cli.py``: the registry entry ``PROBLEM``, a :class:`Problem`, and its two hooks.

:data:`REGISTRY` maps each command name to its :class:`Problem`. It is discovered from the
subpackages of this package (names starting with ``_`` are skipped), so adding a problem
edits neither this file, nor the command line, nor the site. Discovery imports only each
package's ``cli.py``, which imports nothing but the standard library: ``perfectplay
--help`` stays instant.

>>> from perfectplay.problems import REGISTRY, discover
>>> REGISTRY["alea"].title
'Alea Iacta Est'
>>> sorted(REGISTRY) == sorted(discover())
True
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

__all__ = ["Problem", "REGISTRY", "discover", "get"]

#: Inputs larger than this are refused before they are parsed (see ``read_input``).
DEFAULT_MAX_INPUT_BYTES = 64 << 20


class Problem(NamedTuple):
    """A gallery problem as the command line and the site see it.

    Attributes:
        name: the command, ``perfectplay NAME``; also the package name.
        title: the problem's title as its contest gives it.
        summary: one line for ``perfectplay --help`` and the CLI reference.
        description: the ``--help`` text: the rules in brief, the input and the output.
        examples: the ``--help`` epilog, one command a line.
        example: an input in the official format, solved by ``--example``.
        add_options: adds the problem's own flags to an argparse parser (the runner adds
            ``FILE``, ``--example`` and ``--json``).
        run: ``run(args, text)`` parses ``text``, solves and returns the text to print
            (the runner adds a final newline), or writes it itself and returns the exit
            status. Errors are :class:`~perfectplay.errors.PerfectplayError`.
        usage: a usage line instead of argparse's, when the problem has subcommands.
        subcommands: ``perfectplay NAME SUB ...`` runs ``subcommands[SUB](argv)``.
        max_input_bytes: the largest input read.
        input_optional: without FILE, a terminal on stdin means an empty input (the
            problem answers something without input) instead of waiting for typing.
    """

    name: str
    title: str
    summary: str
    description: str
    examples: str
    example: str
    add_options: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, str], str | int]
    usage: str | None = None
    # A NamedTuple (not a dataclass) keeps `perfectplay --help` from importing dataclasses.
    subcommands: Mapping[str, Callable[[list[str]], int]] = MappingProxyType({})
    max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES
    input_optional: bool = False

    @property
    def package(self) -> str:
        """The problem's package: ``perfectplay.problems`` and then :attr:`name`."""
        return f"{__name__}.{self.name}"


def discover(path: Iterable[str] | None = None, prefix: str = f"{__name__}.") -> dict[str, Problem]:
    """Every problem package under ``path`` (default: this package), by command name.

    A package is a problem when its ``cli`` module defines ``PROBLEM``; packages whose
    name starts with ``_`` (the template) are skipped. The order is alphabetical, so the
    command list does not depend on the file system.
    """
    # A directory listing, not pkgutil.iter_modules: that imports inspect, a tenth of
    # `perfectplay --help`.
    names: set[str] = set()
    for base in __path__ if path is None else path:
        with os.scandir(base) as entries:
            names.update(e.name for e in entries
                         if e.is_dir() and os.path.isfile(os.path.join(e.path, "__init__.py")))
    return {name: _entry(name, prefix) for name in sorted(names)
            if name.isidentifier() and not name.startswith("_")}


def get(name: str) -> Problem | None:
    """The problem whose command is ``name``, or ``None``; imports that problem's
    ``cli.py`` alone (the command line runs one problem without discovering the rest).

    >>> get("alea").title, get("nonesuch"), get("_template")
    ('Alea Iacta Est', None, None)
    """
    if _registry is not None:
        return _registry.get(name)
    if not name.isidentifier() or name.startswith("_"):
        return None
    try:
        found = importlib.util.find_spec(f"{__name__}.{name}.cli")
    except ModuleNotFoundError:
        return None
    return None if found is None else _entry(name, f"{__name__}.")


def _entry(name: str, prefix: str) -> Problem:
    module = importlib.import_module(f"{prefix}{name}.cli")
    problem = getattr(module, "PROBLEM", None)
    if not isinstance(problem, Problem):
        raise TypeError(f"{module.__name__} has no PROBLEM entry (a Problem)")
    if problem.name != name:
        raise ValueError(f"{module.__name__}: PROBLEM.name {problem.name!r} is not "
                         f"the package name {name!r}")
    return problem


_registry: Mapping[str, Problem] | None = None


def __getattr__(name: str) -> Any:
    # Built on first use: importing perfectplay.problems alone imports no problem.
    global _registry
    if name == "REGISTRY":
        if _registry is None:
            _registry = MappingProxyType(discover())
        return _registry
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), "REGISTRY"])
