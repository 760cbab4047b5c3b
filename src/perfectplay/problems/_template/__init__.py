"""The template of a gallery problem: rolls of one fair die until a high enough face.

A die with ``faces`` faces (1 to ``faces``) is rolled until it shows ``target`` or more;
every roll counts. How many rolls does that take on average? (``faces / (faces - target
+ 1)``: a geometric wait; the template solves it the way every gallery problem is solved,
as a chance graph handed to the core's label-setting solver.)

Copy this folder to ``problems/NAME/`` to start a problem (``docs/adding-a-problem.md``
walks through it); a folder whose name starts with ``_`` is not in the registry, so this
one is not a command. Every import inside the package is relative, so the copy runs as
it is.

>>> from perfectplay.problems._template import format, parse, solve
>>> solution = solve(parse("6 6\\n"))
>>> print(format(solution))
6.000000000
>>> solution.value
6.0

Modules: :mod:`.instance` (the input), :mod:`.build` (the graph), :mod:`.solution` (the
result and its decoder), :mod:`.report` (the output), :mod:`.cli` (the registry entry).
Only the standard library is imported here: numpy loads when :func:`solve` runs.
"""

# ruff: noqa: F401 (the TYPE_CHECKING imports are this package's exports)
from __future__ import annotations

from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_package

if TYPE_CHECKING:  # what mypy reads (the names are re-exported)
    from perfectplay.problems._template.cli import PROBLEM
    from perfectplay.problems._template.instance import Instance, parse
    from perfectplay.problems._template.report import explain, format
    from perfectplay.problems._template.solution import Solution, solve

# The names load on first use: the registry imports this package on its way to cli.py, and
# `perfectplay --help` must not pay for the solver. The imports above are what mypy reads;
# tests/problems/test_template.py checks that they and this table agree.
__all__, __getattr__, __dir__ = lazy_package(
    __name__,
    {
        ".cli": ["PROBLEM"],
        ".instance": ["Instance", "parse"],
        ".report": ["explain", "format"],
        ".solution": ["Solution", "solve"],
    },
)
