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

# ruff: noqa: F401 (the TYPE_CHECKING imports are this package's exports)
from __future__ import annotations

from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_package

if TYPE_CHECKING:  # what mypy reads (the names are re-exported)
    from perfectplay.problems.diemaker.cli import PROBLEM
    from perfectplay.problems.diemaker.instance import Dataset, Instance, parse
    from perfectplay.problems.diemaker.model import DieModel
    from perfectplay.problems.diemaker.report import explain, format
    from perfectplay.problems.diemaker.solution import Solution, find, solve

# The names load on first use: the registry imports this package on its way to cli.py, and
# `perfectplay --help` must not pay for the solver. The imports above are what mypy reads;
# tests/problems/test_template.py checks that they and this table agree.
__all__, __getattr__, __dir__ = lazy_package(
    __name__,
    {
        ".cli": ["PROBLEM"],
        ".instance": ["Dataset", "Instance", "parse"],
        ".model": ["DieModel"],
        ".report": ["explain", "format"],
        ".solution": ["Solution", "find", "solve"],
    },
)
