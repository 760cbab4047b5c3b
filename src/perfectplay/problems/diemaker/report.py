"""A Die Maker's output: the official lines, and each answer explained.

>>> from perfectplay.problems.diemaker.solution import find
>>> print(explain((1, 1, 1, 1, 1, 1), find([1, 1, 1, 1, 1, 1])), end="")
  1 1 1 1 1 1: 6 rolls: Ex3 N Ex2
  die at the end: top 1, bottom 1, north 1, south 1, east 1, west 1; opposite faces 1|1  1|1  1|1
  search: 6 single steps, 0 jumps over 0 rolls, 8 oracle calls, 0 backtracks
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from perfectplay.problems.diemaker.solution import Solution

IMPOSSIBLE = "impossible"


def format(answers: Sequence[str | None]) -> str:
    """The official output: one line per dataset (``None`` prints ``impossible``).

    >>> format(["NE", None])
    'NE\\nimpossible\\n'
    """
    return "".join(f"{IMPOSSIBLE if a is None else a}\n" for a in answers)


def explain(targets: Sequence[int], solution: Solution | None) -> str:
    """The answer in words: the sequence as runs, the finished die and the search's work,
    or why no sequence exists."""
    numbers = " ".join(map(str, targets))
    if solution is None:
        n = sum(targets)
        why = (
            f"{numbers}: however the numbers are placed, some pair of opposite faces would "
            f"need more than {(n + 1) // 2} of the {n} rolls; a pair gets at most every other "
            "roll, since the die never lands on the same opposite pair twice in a row"
        )
        return textwrap.fill(why, 88, initial_indent="  ", subsequent_indent="  ") + "\n"
    faces = solution.faces()
    runs = solution.runs()
    shown = " ".join(runs[:40]) + (f" ... ({len(runs) - 40} more runs)" if len(runs) > 40 else "")
    stats = solution.path.stats
    die = ", ".join(f"{pos} {n}" for pos, n in faces.items())
    opposite = (("top", "bottom"), ("north", "south"), ("east", "west"))
    pairs = "  ".join(f"{faces[a]}|{faces[b]}" for a, b in opposite)
    jumps = f"{stats.jumps} jump" + ("" if stats.jumps == 1 else "s")
    return (
        f"  {numbers}: {solution.length} rolls: {shown}\n"
        f"  die at the end: {die}; opposite faces {pairs}\n"
        f"  search: {stats.steps} single steps, {jumps} over {stats.jumped_moves} rolls, "
        f"{stats.oracle_calls} oracle calls, {stats.backtracks} backtracks\n"
    )
