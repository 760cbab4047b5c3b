"""Solitaire Yahtzee as a gallery problem: ``perfectplay yahtzee`` and its ``advise``.

A thin layer over :mod:`perfectplay.yahtzee` (the rules, the solver, the queries): the
situation format a person types (:mod:`.instance`), the table solved or read from a file
(:mod:`.solution`), the text and JSON (:mod:`.report`) and the command (:mod:`.cli`).

>>> from perfectplay.problems.yahtzee import parse, resolve_rules
>>> inst = parse("rules yatzy\\ndice 6 6 6 6 6; rolls left 0")
>>> inst.rules.name, inst.situations[0].situation.dice
('yatzy', (6, 6, 6, 6, 6))
>>> resolve_rules("american").kind_bonus
100

Only the standard library is imported here: numpy loads when a table is solved or read.
"""

# ruff: noqa: F401 (the TYPE_CHECKING imports are this package's exports)
from __future__ import annotations

from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_package

if TYPE_CHECKING:  # what mypy reads (the names are re-exported)
    from perfectplay.problems.yahtzee.cli import PROBLEM
    from perfectplay.problems.yahtzee.instance import (
        Instance,
        Line,
        parse,
        parse_situation,
        resolve_rules,
    )
    from perfectplay.problems.yahtzee.report import advice_text, format, summary
    from perfectplay.problems.yahtzee.solution import Answer, answer, solve

# The names load on first use: the registry imports this package on its way to cli.py, and
# `perfectplay --help` must not pay for the solver.
__all__, __getattr__, __dir__ = lazy_package(
    __name__,
    {
        ".cli": ["PROBLEM"],
        ".instance": ["Instance", "Line", "parse", "parse_situation", "resolve_rules"],
        ".report": ["advice_text", "format", "summary"],
        ".solution": ["Answer", "answer", "solve"],
    },
)
