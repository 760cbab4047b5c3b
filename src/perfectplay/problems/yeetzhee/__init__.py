"""Yeetzhee (Kick Start 2020 Round F): expected rolls to shape N dice into given groups.

``n`` dice with ``m`` faces are rolled one at a time; after each roll the player keeps the
die or rolls that same die again (every roll counts). At the end the ``n`` values must
form exactly the target groups: ``k`` distinct values, the ``i``-th appearing
``groups[i]`` times. :func:`solve` finds the minimal expected number of rolls and the
optimal rule, modelled as a chance graph over groupings up to symmetry (see
:mod:`~perfectplay.problems.yeetzhee.build`) and solved by the core's
:func:`~perfectplay.solvers.retry.solve_retry`.

>>> sol = solve(5, 2, [5])
>>> sol.value, sol.n_groupings
(9.0, 6)
>>> print(format_output([solve(3, 6, [1, 2]), sol]))
Case #1: 4.700000000
Case #2: 9.000000000
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

# Only the parser is imported eagerly: `perfectplay yeetzhee --help` must not load numpy.
from perfectplay.problems.yeetzhee.instance import Instance, check_instance, parse
from perfectplay.problems.yeetzhee.report import explain, format, format_output

if TYPE_CHECKING:
    from perfectplay.problems.yeetzhee.cli import PROBLEM
    from perfectplay.problems.yeetzhee.solution import Outcome, Rule, Solution

__all__ = [
    "PROBLEM",
    "Instance",
    "Outcome",
    "Rule",
    "Solution",
    "explain",
    "format",
    "format_output",
    "parse",
    "solve",
    "solve_instance",
]


def __getattr__(name: str) -> Any:
    if name in ("Outcome", "Rule", "Solution"):
        from perfectplay.problems.yeetzhee import solution

        return getattr(solution, name)
    if name == "PROBLEM":
        from perfectplay.problems.yeetzhee.cli import PROBLEM

        return PROBLEM
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def solve(n: int, m: int, groups: Iterable[int]) -> Solution:
    """Solve ``n`` dice with ``m`` faces and target group sizes ``groups`` (any order).

    Raises :class:`~perfectplay.errors.InputError` (a ``ValueError``) for sizes that are
    not positive integers summing to ``n``, and
    :class:`~perfectplay.errors.ResourceLimitError` when the groupings would not fit in
    memory. A target with more groups than faces gets the value ``inf``. The solver runs
    compiled or interpreted as the work's size decides
    (:func:`~perfectplay._util.jit.compile_for`).

    >>> solve(3, 6, (2, 1)).value
    4.7
    """
    sizes = check_instance(n, m, groups)
    from perfectplay.problems.yeetzhee.build import build
    from perfectplay.problems.yeetzhee.solution import Solution
    from perfectplay.solvers.retry import solve_retry

    model = build(int(n), int(m), sizes)
    return Solution(
        n=int(n),
        m=int(m),
        groups=sizes,
        model=model,
        chance=solve_retry(model.graph),
    )


def solve_instance(instance: Instance) -> Solution:
    """Solve a parsed :class:`Instance`."""
    return solve(instance.n, instance.m, instance.groups)


def __dir__() -> list[str]:
    # The lazily loaded names are listed too, so dir() and help() show the whole API.
    return sorted(set(globals()) | set(__all__))
