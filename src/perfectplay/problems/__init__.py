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
import pkgutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = ["Problem", "REGISTRY", "discover"]

#: Inputs larger than this are refused before they are parsed (see ``read_input``).
DEFAULT_MAX_INPUT_BYTES = 64 << 20


@dataclass(frozen=True)
class Problem:
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
    subcommands: Mapping[str, Callable[[list[str]], int]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES

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
    found: dict[str, Problem] = {}
    for info in sorted(pkgutil.iter_modules(__path__ if path is None else list(path)),
                       key=lambda i: i.name):
        if not info.ispkg or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{prefix}{info.name}.cli")
        problem = getattr(module, "PROBLEM", None)
        if not isinstance(problem, Problem):
            raise TypeError(f"{module.__name__} has no PROBLEM entry (a Problem)")
        if problem.name != info.name:
            raise ValueError(f"{module.__name__}: PROBLEM.name {problem.name!r} is not "
                             f"the package name {info.name!r}")
        found[problem.name] = problem
    return found


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
