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

from __future__ import annotations

from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_exports

if TYPE_CHECKING:
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

__all__ = [
    "PROBLEM",
    "Answer",
    "Instance",
    "Line",
    "advice_text",
    "answer",
    "format",
    "parse",
    "parse_situation",
    "resolve_rules",
    "solve",
    "summary",
]

# The names load on first use: the registry imports this package on its way to cli.py, and
# `perfectplay --help` must not pay for the solver.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "PROBLEM": "perfectplay.problems.yahtzee.cli",
        "Answer": "perfectplay.problems.yahtzee.solution",
        "Instance": "perfectplay.problems.yahtzee.instance",
        "Line": "perfectplay.problems.yahtzee.instance",
        "advice_text": "perfectplay.problems.yahtzee.report",
        "answer": "perfectplay.problems.yahtzee.solution",
        "format": "perfectplay.problems.yahtzee.report",
        "parse": "perfectplay.problems.yahtzee.instance",
        "parse_situation": "perfectplay.problems.yahtzee.instance",
        "resolve_rules": "perfectplay.problems.yahtzee.instance",
        "solve": "perfectplay.problems.yahtzee.solution",
        "summary": "perfectplay.problems.yahtzee.report",
    },
)
