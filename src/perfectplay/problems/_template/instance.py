"""The input: one line ``F T``, the number of faces and the target face (``1 <= T <= F``).

>>> parse("6 5\\n")
Instance(faces=6, target=5)
>>> parse("6 7\\n")
Traceback (most recent call last):
...
perfectplay.errors.InputError: line 1: T must be from 1 to F = 6, got 7
"""

from __future__ import annotations

from dataclasses import dataclass

from perfectplay.errors import InputError
from perfectplay.text.parse import input_lines, quote_token

#: The largest die: the graph has three nodes whatever F is; the limit keeps weights small.
MAX_FACES = 10**9


@dataclass(frozen=True)
class Instance:
    """One die and its target face."""

    faces: int
    target: int


def parse(text: str) -> Instance:
    """Read ``F T``; raise :class:`~perfectplay.errors.InputError` at the first bad line."""
    lines = input_lines(text)
    if not lines or not lines[0].split():
        raise InputError("expected 'F T', the number of faces and the target", line=1)
    words = lines[0].split()
    if len(words) != 2:
        raise InputError(f"expected 2 numbers 'F T', got {len(words)}", line=1)
    faces = _number(words[0], "F", 1, MAX_FACES)
    target = _number(words[1], "T", 1, faces, bound="F = ")
    for k, line in enumerate(lines[1:], start=2):
        if line.split():
            raise InputError(f"unexpected {quote_token(line.split()[0])} after 'F T'", line=k)
    return Instance(faces, target)


def _number(word: str, what: str, lo: int, hi: int, bound: str = "") -> int:
    if not (word.isascii() and word.isdigit()):
        raise InputError(f"{what} must be a positive integer, got {quote_token(word)}", line=1)
    digits = word.lstrip("0") or "0"
    value = int(digits) if len(digits) <= 18 else hi + 1
    if not lo <= value <= hi:
        shown = digits if len(digits) <= 20 else digits[:20] + "..."
        raise InputError(f"{what} must be from {lo} to {bound}{hi}, got {shown}", line=1)
    return value
