"""The statement's example: five dice, eight words, and the roll P X R E S.

Kept apart from the solver so that ``perfectplay alea --help`` can show it without
loading numpy.
"""

from __future__ import annotations

EXAMPLE_DICE: tuple[str, ...] = ("ABCDEP", "AEHOXU", "AISOLR", "ABCDEF", "ABCSCC")
EXAMPLE_WORDS: tuple[str, ...] = (
    "PARSE",
    "PAUSE",
    "PHASE",
    "POISE",
    "PROSE",
    "PULSE",
    "PURSE",
    "PEACE",
)
#: The first roll the statement talks about (dice in input order).
EXAMPLE_ROLL = "PXRES"
#: Its expected number of rolls with optimal play, to 9 decimals.
EXAMPLE_ANSWER = "9.677887141"


def example_text() -> str:
    """The example in the official input format.

    >>> print(example_text().splitlines()[0])
    5 8
    """
    lines = [f"{len(EXAMPLE_DICE)} {len(EXAMPLE_WORDS)}", *EXAMPLE_DICE, *EXAMPLE_WORDS]
    return "\n".join(lines) + "\n"
