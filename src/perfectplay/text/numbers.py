"""How the package writes numbers: decimals for floats, ``p/q`` for exact values.

One rule for every command (``docs/cli.md``, "Numbers"): a float value in text output,
whatever it measures (expected rolls, a cost, a score, a probability, a winning chance),
has :data:`DIGITS` (9) decimals unless the user asks for more with ``--digits N``; an exact
value is the fraction ``p/q`` in lowest terms. The official outputs of the contest
problems keep the format their statement requires (each problem's ``report.py`` says so).

>>> decimal_text(2 / 3), decimal_text(2 / 3, 3), decimal_text(float("inf"))
('0.666666667', '0.667', 'inf')
>>> from fractions import Fraction
>>> fraction_text(Fraction(47, 10)), fraction_text(Fraction(3)), fraction_text(None)
('47/10', '3', 'inf')
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # fractions and the objectives load when a value is written, not before:
    # the command line's options read this module, and `--help` must stay instant.
    from fractions import Fraction

    from perfectplay.objectives import Objective

__all__ = ["DIGITS", "MAX_DIGITS", "decimal_text", "fraction_text", "probability_text"]

#: Decimals of a float value in text output (``--digits`` changes it).
DIGITS = 9
#: The most decimals ``--digits`` accepts: a double holds about 17 significant digits.
MAX_DIGITS = 17


def decimal_text(value: float, digits: int = DIGITS) -> str:
    """``value`` with ``digits`` decimals; ``inf``, ``-inf`` and ``nan`` as words."""
    if not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return f"{value:.{digits}f}"


def probability_text(p: float, digits: int = DIGITS) -> str:
    """A probability: ``0`` when it is exactly zero (an event that cannot happen), else
    :func:`decimal_text`.

    >>> probability_text(0.0), probability_text(0.25)
    ('0', '0.250000000')
    """
    return "0" if p == 0 else decimal_text(p, digits)


def fraction_text(value: Fraction | None, objective: Objective | None = None) -> str:
    """``p/q`` (``p`` alone for an integer), or the objective's value of a play that never
    ends for ``None`` (``inf`` when minimising a cost, the default objective: no goal
    reachable)."""
    if value is None:
        if objective is None:
            from perfectplay.objectives import MIN_COST

            objective = MIN_COST
        endless = objective.endless
        return ("-inf" if endless < 0 else "inf") if math.isinf(endless) else f"{endless:g}"
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"
