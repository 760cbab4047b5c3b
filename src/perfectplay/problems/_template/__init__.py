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

from __future__ import annotations

from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_exports

if TYPE_CHECKING:
    from perfectplay.problems._template.cli import PROBLEM
    from perfectplay.problems._template.instance import Instance, parse
    from perfectplay.problems._template.report import explain, format
    from perfectplay.problems._template.solution import Solution, solve

__all__ = [
    "PROBLEM",
    "Instance",
    "Solution",
    "explain",
    "format",
    "parse",
    "solve",
]

# The names load on first use: the registry imports this package on its way to cli.py, and
# `perfectplay --help` must not pay for the solver.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "PROBLEM": "perfectplay.problems._template.cli",
        "Instance": "perfectplay.problems._template.instance",
        "Solution": "perfectplay.problems._template.solution",
        "explain": "perfectplay.problems._template.report",
        "format": "perfectplay.problems._template.report",
        "parse": "perfectplay.problems._template.instance",
        "solve": "perfectplay.problems._template.solution",
    },
)
