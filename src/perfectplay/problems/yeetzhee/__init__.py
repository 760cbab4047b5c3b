"""Yeetzhee (Kick Start 2020 Round F): expected rolls to shape N dice into given groups.

``n`` dice with ``m`` faces are rolled one at a time; after each roll the player keeps the
die or rolls that same die again (every roll counts). At the end the ``n`` values must
form exactly the target groups: ``k`` distinct values, the ``i``-th appearing
``groups[i]`` times. :func:`solve` finds the minimal expected number of rolls and the
optimal rule, modelled as a chance graph over groupings up to symmetry (see
:mod:`~perfectplay.problems.yeetzhee.build`) and solved by the core's
:func:`~perfectplay.solvers.retry.solve_retry`.

>>> from perfectplay.problems.yeetzhee import format_output, solve
>>> sol = solve(5, 2, [5])
>>> sol.value, sol.n_groupings
(9.0, 6)
>>> print(format_output([solve(3, 6, [1, 2]), sol]))
Case #1: 4.700000000
Case #2: 9.000000000
"""

# ruff: noqa: F401 (the TYPE_CHECKING imports are this package's exports)
from __future__ import annotations

from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_package

if TYPE_CHECKING:  # what mypy reads (the names are re-exported)
    from perfectplay.problems.yeetzhee.cli import PROBLEM
    from perfectplay.problems.yeetzhee.instance import Instance, parse
    from perfectplay.problems.yeetzhee.report import explain, format, format_output
    from perfectplay.problems.yeetzhee.solution import Outcome, Rule, Solution, solve
    from perfectplay.problems.yeetzhee.solution import solve_instance as solve_instance

# The names load on first use: the registry imports this package on its way to cli.py, and
# `perfectplay --help` must not pay for the solver. The imports above are what mypy reads;
# tests/problems/test_template.py checks that they and this table agree.
__all__, __getattr__, __dir__ = lazy_package(
    __name__,
    {
        ".cli": ["PROBLEM"],
        ".instance": ["Instance", "parse"],
        ".report": ["explain", "format", "format_output"],
        ".solution": ["Outcome", "Rule", "Solution", "solve", "solve_instance"],
    },
)
