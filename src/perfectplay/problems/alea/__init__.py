"""ICPC World Finals 2023 problem K, "Alea Iacta Est": the fewest expected rolls to a word.

``d`` dice carry a symbol on each face. Roll them all; after each roll keep any dice and
reroll the others, until the symbols showing can be arranged into a dictionary word. The
optimal strategy and its expected number of rolls are computed exactly on the
problem's chance graph (canonical rolls and kept sets, see
:mod:`~perfectplay.problems.alea.build`) by the core's label-setting solver.

>>> from perfectplay.problems.alea import format_answer, solve
>>> sol = solve(["ABCDEP", "AEHOXU", "AISOLR", "ABCDEF", "ABCSCC"],
...             ["PARSE", "PAUSE", "PHASE", "POISE", "PROSE", "PULSE", "PURSE", "PEACE"])
>>> print(format_answer(sol.value))
9.677887141
>>> print(sol.best_keep("PXRES"))
keep P R E S (dice 1 3 4 5), reroll die 2: 2.000000000 rolls

Modules: :mod:`.instance` (the input format), :mod:`.layout` (numbering and symmetry), :mod:`.build`
(the graph), :mod:`.solution` (solving and queries), :mod:`.report` (text), :mod:`.cli`.
The names below load lazily, so importing this package is cheap.
"""

# ruff: noqa: F401 (the TYPE_CHECKING imports are this package's exports)
from __future__ import annotations

from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_package

if TYPE_CHECKING:  # what mypy reads (the names are re-exported)
    from perfectplay.problems.alea.cli import PROBLEM
    from perfectplay.problems.alea.example import EXAMPLE_DICE, EXAMPLE_WORDS
    from perfectplay.problems.alea.instance import Instance, parse
    from perfectplay.problems.alea.report import format_answer
    from perfectplay.problems.alea.solution import (
        AleaSolution,
        FirstRoll,
        Keep,
        solve,
        solve_instance,
        symmetry_counts,
    )

# The names load on first use: the registry imports this package on its way to cli.py, and
# `perfectplay --help` must not pay for the solver. The imports above are what mypy reads;
# tests/problems/test_template.py checks that they and this table agree.
__all__, __getattr__, __dir__ = lazy_package(
    __name__,
    {
        ".cli": ["PROBLEM"],
        ".example": ["EXAMPLE_DICE", "EXAMPLE_WORDS"],
        ".instance": ["Instance", "parse"],
        ".report": ["format_answer"],
        ".solution": [
            "AleaSolution",
            "FirstRoll",
            "Keep",
            "solve",
            "solve_instance",
            "symmetry_counts",
        ],
    },
)
