"""FiveHundredEleven's input: ``N``, then ``N`` card values from 0 to 511."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from perfectplay.errors import InputError, short_repr
from perfectplay.text.parse import int_in_range, iter_tokens, quote_token

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
        if isinstance(cards, str | bytes) or not isinstance(cards, Iterable):
            raise InputError(f"the cards are a list of integers 0..511, not {short_repr(cards)}")
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
    # Lazily: a bad token is reported without tokenising the rest of a huge input.
    tokens = iter_tokens(text)
    first = next(tokens, None)
    if first is None:
        raise InputError("empty input: expected N, the number of cards", line=1)
    tok, line = first
    n = int_in_range(tok, "N (the number of cards)", 1, MAX_CARDS, line)
    cards: list[int] = []
    for tok, line in tokens:
        if len(cards) == n:
            kind = "1 card" if n == 1 else f"{n} cards"
            raise InputError(f"unexpected {quote_token(tok)} after the {kind}", line=line)
        cards.append(int_in_range(tok, f"card {len(cards) + 1}", 0, FULL, line))
    if len(cards) < n:
        raise InputError(f"expected {n} card values, got {len(cards)}", line=line)
    return Instance(tuple(cards))
