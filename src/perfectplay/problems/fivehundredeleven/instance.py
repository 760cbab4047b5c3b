"""FiveHundredEleven's input: ``N``, then ``N`` card values from 0 to 511."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from perfectplay.cli.common import input_lines, quote_token
from perfectplay.errors import InputError, short_repr

MAX_CARDS = 50
FULL = 511
PLAYERS = ("Fox Ciel", "Toastman")


@dataclass(frozen=True)
class Instance:
    """The cards of one game, in input order."""

    cards: tuple[int, ...]

    @classmethod
    def from_cards(cls, cards: Iterable[int]) -> Instance:
        """Validate card values given from Python.

        >>> Instance.from_cards([511]).cards
        (511,)
        """
        values = tuple(cards)
        if not 1 <= len(values) <= MAX_CARDS:
            raise InputError(
                f"the number of cards must be from 1 to {MAX_CARDS}, got {len(values)}"
            )
        for i, x in enumerate(values):
            if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= FULL:
                raise InputError(
                    f"card {i + 1} must be an integer from 0 to {FULL}, got {short_repr(x)}"
                )
        return cls(values)


def parse(text: str) -> Instance:
    """Read ``N`` and then ``N`` card values (any whitespace separates them).

    >>> parse("5\\n3 5 7 9 510\\n").cards
    (3, 5, 7, 9, 510)
    """
    tokens = [(tok, k + 1) for k, line in enumerate(input_lines(text)) for tok in line.split()]
    if not tokens:
        raise InputError("empty input: expected N, the number of cards")
    tok, line = tokens[0]
    n = _integer(tok, line, "N (the number of cards)", 1, MAX_CARDS)
    if len(tokens) - 1 < n:
        last = tokens[-1][1]
        raise InputError(f"expected {n} card values, got {len(tokens) - 1}", line=last)
    cards = [
        _integer(tok, line, f"card {i + 1}", 0, FULL)
        for i, (tok, line) in enumerate(tokens[1 : n + 1])
    ]
    if len(tokens) > n + 1:
        tok, line = tokens[n + 1]
        cards = "1 card" if n == 1 else f"{n} cards"
        raise InputError(f"unexpected {quote_token(tok)} after the {cards}", line=line)
    return Instance(tuple(cards))


def _integer(tok: str, line: int, what: str, lo: int, hi: int) -> int:
    digits = tok[1:] if tok[0] in "+-" else tok
    if not (digits.isascii() and digits.isdigit()):
        raise InputError(f"{what} must be an integer, got {quote_token(tok)}", line=line)
    if len(digits) > 18 or not lo <= int(tok) <= hi:
        shown = tok if len(tok) <= 20 else tok[:20] + "..."
        raise InputError(f"{what} must be from {lo} to {hi}, got {shown}", line=line)
    return int(tok)

