"""The output: ``format`` prints the official answer, ``explain`` says why.

>>> from perfectplay.problems._template import parse, solve
>>> print(explain(solve(parse("6 5"))))
3.000000000
each roll shows 5..6 with probability 1/3, so 3 rolls on average (F / (F - T + 1))
"""

from __future__ import annotations

from perfectplay.text.numbers import DIGITS, decimal_text

from .solution import Solution


def format(solution: Solution, digits: int = DIGITS) -> str:
    """The official answer: the expected number of rolls with nine decimals (``digits``)."""
    return decimal_text(solution.value, digits)


def explain(solution: Solution, digits: int = DIGITS) -> str:
    """The answer and the reason in one more line."""
    inst, p = solution.instance, solution.hit_probability
    faces = f"{inst.target}..{inst.faces}" if inst.target < inst.faces else f"{inst.faces}"
    mean = 1 / p
    shown = str(mean.numerator) if mean.denominator == 1 else str(mean)
    return (
        f"{format(solution, digits)}\n"
        f"each roll shows {faces} with probability {p}, so {shown} rolls on average "
        "(F / (F - T + 1))"
    )
