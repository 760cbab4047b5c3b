"""The DISPDOM input: ``N K D`` and the strip, read into an :class:`Instance`.

>>> parse("4 2 3\\n0100\\n")
Instance(n=4, k=2, d=3, strip='0100')
"""

from __future__ import annotations

from typing import NamedTuple

from perfectplay.errors import InputError, short_repr
from perfectplay.text.parse import int_in_range, iter_lines, quote_token, split_tokens

#: Largest strip accepted. The canonical state space grows like the number of partitions of
#: N (doubling about every 5 cells for K = 2); at N = 64 the worst case (K = 2) explores
#: about 1e5 states in a few seconds. Measured in docs/dispdom.md.
MAX_N = 64
#: D only meets the game length (at most N / K), so any D beyond that means the same; the
#: bound just keeps the input sane.
MAX_D = 10**18


class Instance(NamedTuple):
    """One game: strip length, domino length, disappearing delay, and the strip itself
    (``'1'`` blocked, ``'0'`` empty)."""

    n: int
    k: int
    d: int
    strip: str

    @classmethod
    def make(cls, strip: str, k: int, d: int) -> Instance:
        """Validate values given from Python.

        >>> Instance.make("0000", k=2, d=3).n
        4
        """
        n = len(strip)
        if not 1 <= n <= MAX_N:
            raise InputError(f"the strip must have 1 to {MAX_N} cells, got {n}")
        if set(strip) - {"0", "1"}:
            raise InputError("the strip may contain only '0' (empty) and '1' (blocked)")
        _check_range("K", k, 1, n)
        _check_range("D", d, 1, MAX_D)
        return cls(n, k, d, strip)


def _check_range(name: str, x: object, lo: int, hi: int, line: int | None = None) -> None:
    if isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi:
        raise InputError(
            f"{name} must be an integer from {lo} to {hi}, got {short_repr(x)}", line=line
        )


def parse(text: str) -> Instance:
    """Read ``N K D`` on the first line and the strip of ``N`` characters on the next.

    Errors are :class:`~perfectplay.errors.InputError` with the line number.

    >>> parse("4 2 3\\n0100\\n")
    Instance(n=4, k=2, d=3, strip='0100')
    >>> parse("3 2 1\\n0000\\n")
    Traceback (most recent call last):
    ...
    perfectplay.errors.InputError: line 2: the strip has 4 cells, expected N = 3
    """
    # Lazily, the lines that have tokens: reading stops at the third, however long the input.
    lines = ((i, tokens) for i, line in iter_lines(text) if (tokens := split_tokens(line)))
    first = next(lines, None)
    if first is None:
        raise InputError("empty input: expected 'N K D' and then the strip", line=1)
    line, head = first
    if len(head) != 3:
        got = "1 token" if len(head) == 1 else f"{len(head)} tokens"
        raise InputError(f"expected three integers 'N K D', got {got}", line=line)
    n = int_in_range(head[0], "N", 1, MAX_N, line)
    k = int_in_range(head[1], "K", 1, n, line)
    d = int_in_range(head[2], "D", 1, MAX_D, line)
    second = next(lines, None)
    if second is None:
        raise InputError(f"missing the strip of {n} cells after 'N K D'", line=line)
    line, rest = second
    if len(rest) != 1:
        raise InputError("the strip must be one word of '0' and '1' characters", line=line)
    strip = rest[0]
    bad = next((c for c in strip if c not in "01"), None)
    if bad is not None:
        raise InputError(f"the strip may contain only '0' and '1', found {bad!r}", line=line)
    if len(strip) != n:
        raise InputError(f"the strip has {len(strip)} cells, expected N = {n}", line=line)
    third = next(lines, None)
    if third is not None:
        line, extra = third
        raise InputError(f"unexpected {quote_token(extra[0])} after the strip", line=line)
    return Instance(n, k, d, strip)


__all__ = ["MAX_D", "MAX_N", "InputError", "Instance", "parse"]
