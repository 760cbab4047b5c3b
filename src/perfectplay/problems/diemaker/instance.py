"""The official input and output of "A Die Maker".

Input: datasets of two lines, six targets ``t1 .. t6`` and then ``p q``; a line of six
zeros ends the input. Output: one line per dataset, characters ``p..q`` of the answer or
``impossible``.

>>> inst = parse("1 1 1 1 1 1\\n4 5\\n0 0 0 0 0 2\\n1 2\\n0 0 0 0 0 0\\n")
>>> [(d.targets, d.first, d.last) for d in inst.datasets]
[((1, 1, 1, 1, 1, 1), 4, 5), ((0, 0, 0, 0, 0, 2), 1, 2)]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from perfectplay.errors import InputError
from perfectplay.text.parse import INT_LIMIT, int_token, iter_lines, quote_token, split_tokens

MAX_TARGET = 5000  #: the problem's limit on each t
MAX_DATASETS = 40  #: the problem's limit on the number of datasets
#: limits with ``limits=False``: the search does not care, the output must still fit
MAX_TARGET_UNLIMITED = 10**12
_TARGETS = ("t1", "t2", "t3", "t4", "t5", "t6")


@dataclass(frozen=True)
class Dataset:
    """One order: the six targets as given, the 1-based range ``first..last`` to print."""

    targets: tuple[int, ...]
    first: int
    last: int
    line: int  #: line of the targets in the input (for messages)

    @property
    def length(self) -> int:
        return sum(self.targets)


@dataclass(frozen=True)
class Instance:
    datasets: tuple[Dataset, ...]


def _ints(text: str, lineno: int, names: Sequence[str]) -> list[int]:
    words = split_tokens(text)
    if len(words) != len(names):
        what = " ".join(names) if len(names) < 6 else f"{names[0]} .. {names[-1]}"
        raise InputError(f"expected {len(names)} integers ({what}), got {len(words)}", line=lineno)
    values = []
    for name, w in zip(names, words, strict=True):
        value = int_token(w)  # the number rule of every command
        if value is None:
            raise InputError(f"expected an integer {name}, got {quote_token(w)}", line=lineno)
        if abs(value) >= INT_LIMIT:
            raise InputError(f"{name} = {quote_token(w)} is out of range", line=lineno)
        values.append(value)
    return values


def _content_lines(text: str) -> Iterator[tuple[int, str]]:
    """The lines that are not blank, with their numbers, lazily (reading stops at the
    first bad line, however long the input)."""
    return ((i, line) for i, line in iter_lines(text) if split_tokens(line))


def parse(text: str, limits: bool = True) -> Instance:
    """Parse the official input; raise :class:`InputError` on anything malformed.

    ``limits=False`` lifts the problem's limits (t <= 5000, at most 40 datasets) to
    t <= 10^12 and any number of datasets. Tokens and numbers follow the rules of every
    command (:mod:`perfectplay.text.parse`).
    """
    max_t = MAX_TARGET if limits else MAX_TARGET_UNLIMITED
    lines = _content_lines(text)
    datasets: list[Dataset] = []
    last_line = 0
    while True:
        item = next(lines, None)
        if item is None:
            raise InputError("missing the terminating line '0 0 0 0 0 0'", line=last_line + 1)
        lineno, line = item
        last_line = lineno
        targets = _ints(line, lineno, _TARGETS)
        if not any(targets):
            break
        for j, t in enumerate(targets, start=1):
            if t < 0:
                raise InputError(f"t{j} = {t} is negative", line=lineno)
            if t > max_t:
                hint = " (--no-limits raises it)" if limits else ""
                raise InputError(f"t{j} = {t} is above the limit of {max_t}{hint}", line=lineno)
        if limits and len(datasets) == MAX_DATASETS:
            raise InputError(
                f"more than {MAX_DATASETS} datasets (--no-limits lifts the limit)", line=lineno
            )
        item = next(lines, None)
        if item is None:
            raise InputError(
                f"missing the line 'p q' after the targets on line {lineno}", line=lineno + 1
            )
        pline, ptext = item
        last_line = pline
        first, last = _ints(ptext, pline, ("p", "q"))
        length = sum(targets)
        if first < 1:
            raise InputError(f"p = {first} must be at least 1", line=pline)
        if first > last:
            raise InputError(f"p = {first} is greater than q = {last}", line=pline)
        if last > length:
            raise InputError(
                f"q = {last} is beyond the sequence length {length} (the sum of the targets)",
                line=pline,
            )
        datasets.append(Dataset(tuple(targets), first, last, lineno))
    extra = next(lines, None)
    if extra is not None:
        raise InputError("text after the terminating line '0 0 0 0 0 0'", line=extra[0])
    return Instance(tuple(datasets))
