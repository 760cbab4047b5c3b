"""Yeetzhee's output: ``Case #x: y`` lines (official), and a case's optimal rule in words.

Only the standard library is imported: the solutions come in already solved.

>>> from perfectplay.problems.yeetzhee import solve
>>> print(format([solve(3, 6, [1, 2]), solve(5, 2, [5])]))
Case #1: 4.700000000
Case #2: 9.000000000
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from perfectplay.problems.yeetzhee.solution import Solution


def format(solutions: Sequence[Solution]) -> str:
    """The official output: ``Case #x: y`` with nine decimals, one line per case."""
    return "\n".join(f"Case #{i}: {s.value:.9f}" for i, s in enumerate(solutions, start=1))


#: The name the package has always exported for :func:`format`.
format_output = format


def explain(solution: Solution) -> str:
    """One case in words: the optimal keep/reroll rule for every grouping play reaches."""
    return solution.explain()
