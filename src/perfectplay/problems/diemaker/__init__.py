"""ICPC Japan Domestic 2014 F, "A Die Maker": the lexicographically first roll sequence.

A blank die lies on a board; each roll (``E``, ``N``, ``S``, ``W``) tips it over one edge
and adds 1 to the face that comes to the bottom. Given six numbers (on the faces in any
arrangement), find the lexicographically first roll sequence that writes them, or report
that none exists.

* :func:`solve` ``(targets) -> str | None``: the whole sequence;
* :func:`find` ``(targets) -> Solution | None``: the sequence as runs, slices of it, and
  the die it makes (:meth:`Solution.faces`);
* :func:`parse` / :func:`format` / :func:`explain`: the official input and output, and
  an answer in words (modules :mod:`.instance`, :mod:`.report`);
* :class:`DieModel`: the model and its exact oracle (the proof is in :mod:`.model`).

>>> from perfectplay.problems.diemaker import find, solve
>>> solve([0, 0, 2, 2, 2, 4])
'EEENNSSNWE'
>>> find([2, 13, 22, 27, 31, 91]).runs()
['Ex11', '(WE)x28', 'W', '(NS)x27', '(SN)x22', '(WE)x10']
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from perfectplay.problems.diemaker.cli import PROBLEM
    from perfectplay.problems.diemaker.instance import Dataset, Instance, parse
    from perfectplay.problems.diemaker.model import DieModel
    from perfectplay.problems.diemaker.report import explain, format
    from perfectplay.problems.diemaker.solution import Solution, find, solve

# The names load on first use: `perfectplay --help` imports this package to reach cli.py.
_WHERE = {
    "PROBLEM": "cli",
    "Dataset": "instance",
    "Instance": "instance",
    "parse": "instance",
    "DieModel": "model",
    "explain": "report",
    "format": "report",
    "Solution": "solution",
    "find": "solution",
    "solve": "solution",
}

__all__ = [
    "PROBLEM",
    "Dataset",
    "DieModel",
    "Instance",
    "Solution",
    "explain",
    "find",
    "format",
    "parse",
    "solve",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])
