"""The official input and output of "A Die Maker".

Input: datasets of two lines, six targets ``t1 .. t6`` and then ``p q``; a line of six
zeros ends the input. Output: one line per dataset, characters ``p..q`` of the answer or
``impossible``.

>>> inst = parse("1 1 1 1 1 1\\n4 5\\n0 0 0 0 0 2\\n1 2\\n0 0 0 0 0 0\\n")
>>> [(d.targets, d.first, d.last) for d in inst.datasets]
[((1, 1, 1, 1, 1, 1), 4, 5), ((0, 0, 0, 0, 0, 2), 1, 2)]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from perfectplay.cli.common import input_lines, quote_token
from perfectplay.errors import InputError

MAX_TARGET = 5000  #: the problem's limit on each t
MAX_DATASETS = 40  #: the problem's limit on the number of datasets
#: limits with ``limits=False``: the search does not care, the output must still fit
MAX_TARGET_UNLIMITED = 10**12
#: longest number read (leading zeros count): any longer one is out of range
MAX_DIGITS = 20
_INT = re.compile(r"[+-]?[0-9]+\Z")
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
    words = text.split()
    if len(words) != len(names):
        what = " ".join(names) if len(names) < 6 else f"{names[0]} .. {names[-1]}"
        raise InputError(f"expected {len(names)} integers ({what}), got {len(words)}", line=lineno)
    values = []
    for name, w in zip(names, words, strict=True):
        if not _INT.match(w):
            raise InputError(f"expected an integer {name}, got {quote_token(w)}", line=lineno)
        # Checked before int(), which refuses strings of over 4300 digits (zeros too).
        if len(w.lstrip("+-")) > MAX_DIGITS:
            raise InputError(f"{name} = {quote_token(w)} is out of range", line=lineno)
        values.append(int(w))
    return values


def parse(text: str, limits: bool = True) -> Instance:
    """Parse the official input; raise :class:`InputError` on anything malformed.

    ``limits=False`` lifts the problem's limits (t <= 5000, at most 40 datasets) to
    t <= 10^12 and any number of datasets. A number longer than :data:`MAX_DIGITS`
    digits (leading zeros included) is out of range.
    """
    max_t = MAX_TARGET if limits else MAX_TARGET_UNLIMITED
    lines = [(i, line) for i, line in enumerate(input_lines(text), start=1) if line.strip()]
    datasets: list[Dataset] = []
    k = 0
    while True:
        if k >= len(lines):
            where = lines[-1][0] + 1 if lines else 1
            raise InputError("missing the terminating line '0 0 0 0 0 0'", line=where)
        lineno, line = lines[k]
        targets = _ints(line, lineno, _TARGETS)
        k += 1
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
        if k >= len(lines):
            raise InputError(
                f"missing the line 'p q' after the targets on line {lineno}", line=lineno + 1
            )
        pline, ptext = lines[k]
        first, last = _ints(ptext, pline, ("p", "q"))
        k += 1
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
    if k < len(lines):
        raise InputError("text after the terminating line '0 0 0 0 0 0'", line=lines[k][0])
    return Instance(tuple(datasets))

