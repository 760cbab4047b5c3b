"""CodeChef DISPDOM, "Disappearing Dominoes": a placement game on a strip whose pieces vanish.

A strip of ``N`` cells has some cells blocked. Alice and Bob alternate, Alice first; a move
covers ``K`` consecutive empty cells with a domino, and a domino placed on turn ``T``
disappears at the start of turn ``T + D``. Whoever cannot move loses. Who wins, or does
the game go on forever?

The package follows the gallery's layout:

* :mod:`~perfectplay.problems.dispdom.instance`: :func:`parse` the input into an
  :class:`Instance`;
* :mod:`~perfectplay.problems.dispdom.model`: the plain placement game (dominoes never
  disappear) as a :class:`~perfectplay.models.GameModel` on canonical states, multisets of
  empty-segment lengths (for ``N = 60, K = 2`` about 5.5e4 of them, where bitmasks would
  need up to 2^60);
* :mod:`~perfectplay.problems.dispdom.solution`: :func:`solve` runs the model through the
  shared explorer and retrograde solver, and decodes the answer: the plain game's winner
  wins the disappearing game if and only if its remoteness is below ``D``, else ``Draw``;
* :mod:`~perfectplay.problems.dispdom.report`: :func:`format` and :func:`explain`.

The write-up with the proofs: ``archive/codechef/starters/DISPDOM-disappearing-dominoes``.

>>> from perfectplay.problems.dispdom import canonical, format, parse, solve
>>> sol = solve(parse("10 2 10\\n0000011000\\n"))
>>> format(sol), sol.plain_winner, sol.length
('Alice', 'Alice', 3)
>>> canonical([1, 3, 7, 2], k=2)   # 1 is dead, 3 acts like 2
(2, 2, 7)
"""

# ruff: noqa: F401 (the TYPE_CHECKING imports are this package's exports)
from __future__ import annotations

from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_package

if TYPE_CHECKING:  # what mypy reads (the names are re-exported)
    from perfectplay.problems.dispdom.cli import PROBLEM
    from perfectplay.problems.dispdom.instance import MAX_D, MAX_N, Instance, parse
    from perfectplay.problems.dispdom.model import (
        DispdomModel,
        canonical,
        next_states,
        segments,
        split_table,
    )
    from perfectplay.problems.dispdom.report import explain, format
    from perfectplay.problems.dispdom.solution import PLAYERS, Solution, solve

# The names load on first use: the registry imports this package on its way to cli.py, and
# `perfectplay --help` must not pay for the solver. The imports above are what mypy reads;
# tests/problems/test_template.py checks that they and this table agree.
__all__, __getattr__, __dir__ = lazy_package(
    __name__,
    {
        ".cli": ["PROBLEM"],
        ".instance": ["MAX_D", "MAX_N", "Instance", "parse"],
        ".model": ["DispdomModel", "canonical", "next_states", "segments", "split_table"],
        ".report": ["explain", "format"],
        ".solution": ["PLAYERS", "Solution", "solve"],
    },
)
