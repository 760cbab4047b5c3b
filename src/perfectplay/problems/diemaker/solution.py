"""Solving one order: the lexicographically first roll sequence and the die it makes.

The search itself is the core's (:func:`perfectplay.solvers.lexpath.search`); this module
builds the model, keeps the answer and describes the finished die.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from perfectplay.problems.diemaker.die import ORIENTATIONS, POSITIONS
from perfectplay.problems.diemaker.model import DieModel, State
from perfectplay.solvers.lexpath import LexPath, search


@dataclass(frozen=True)
class Solution:
    """The lexicographically first roll sequence for ``targets`` (held as runs).

    >>> s = find([1, 1, 1, 1, 1, 1])
    >>> s.text(), s.text(4, 5), s.length
    ('EEENEE', 'NE', 6)
    >>> s.faces()
    {'top': 1, 'bottom': 1, 'north': 1, 'south': 1, 'east': 1, 'west': 1}
    """

    targets: tuple[int, ...]
    path: LexPath[State]

    @property
    def length(self) -> int:
        """Length of the whole sequence: the sum of the targets."""
        return sum(self.targets)

    def text(self, first: int = 1, last: int | None = None) -> str:
        """Characters ``first..last`` (1-based, inclusive) of the sequence."""
        return self.path.text(first, last)

    def chunks(self, first: int = 1, last: int | None = None, size: int = 1 << 22) -> Iterator[str]:
        """Characters ``first..last`` as pieces of at most ``size`` characters, in order.

        For printing answers of billions of characters: memory stays in proportion to
        ``size``, not to the answer.

        >>> list(find([1, 1, 1, 1, 1, 1]).chunks(2, 6, size=2))
        ['EE', 'NE', 'E']
        """
        last = self.length if last is None else min(last, self.length)
        for lo in range(first, last + 1, size):
            yield self.path.text(lo, min(lo + size - 1, last))

    def faces(self) -> dict[str, int]:
        """The number on each face at the end, by position (``top``, ``bottom``, ...)."""
        orientation, counts = self.path.final
        return {
            pos: counts[face]
            for pos, face in zip(POSITIONS, ORIENTATIONS[orientation], strict=True)
        }

    def runs(self) -> list[str]:
        """The sequence in run-length form, ``(SN)x64`` for 64 times ``SN`` (for people)."""
        if self.path.length <= _SHORT:
            return compress(self.text())
        # too long to spell out: tidy the search's own runs instead
        merged: list[list[Any]] = []
        for pattern, times in self.path.runs:
            pieces = [_parse_run(r) for r in compress(pattern)] if times == 1 else []
            for block, k in pieces or [(pattern, times)]:
                root = _root(block)
                k *= len(block) // len(root)
                if merged and merged[-1][0] == root:
                    merged[-1][1] += k
                else:
                    merged.append([root, k])
        return [_show(block, k) for block, k in merged]


_SHORT = 1 << 20


def _root(block: str) -> str:
    """The shortest ``r`` with ``block == r * k``."""
    for p in range(1, len(block)):
        if len(block) % p == 0 and block[:p] * (len(block) // p) == block:
            return block[:p]
    return block


def _show(block: str, times: int) -> str:
    if times == 1:
        return block
    return f"{block}x{times}" if len(block) == 1 else f"({block})x{times}"


def _parse_run(run: str) -> tuple[str, int]:
    if "x" not in run:
        return run, 1
    block, times = run.rsplit("x", 1)
    return block.strip("()"), int(times)


def compress(text: str, max_period: int = 4) -> list[str]:
    """Run-length form of ``text``: repeated blocks of up to ``max_period`` characters.

    >>> compress("EEEENSNSNSW")
    ['Ex4', '(NS)x3', 'W']
    """
    out: list[str] = []
    literal: list[str] = []
    i, n = 0, len(text)
    while i < n:
        best_p, best_k = 0, 1
        for p in range(1, max_period + 1):
            block, k = text[i : i + p], 1
            while text.startswith(block, i + k * p):
                k += 1
            if k >= 2 and p * k > best_p * best_k:
                best_p, best_k = p, k
        if best_p == 0:
            literal.append(text[i])
            i += 1
            continue
        if literal:
            out.append("".join(literal))
            literal = []
        block = text[i : i + best_p]
        out.append(_show(block, best_k))
        i += best_p * best_k
    if literal:
        out.append("".join(literal))
    return out


def find(targets: Sequence[int], stop: int | None = None, jumps: bool = True) -> Solution | None:
    """The answer for six targets (any order), or ``None`` when no sequence makes them.

    Targets are integers from 0 to 10**12 (the command's ``--no-limits`` range); anything
    else raises :class:`~perfectplay.errors.InputError`.

    ``stop``: only the first ``stop`` moves are needed (the rest is not searched, and
    :meth:`Solution.faces` then describes the die at that point). ``jumps=False`` walks
    step by step (for tests; same answer).

    >>> find([0, 0, 0, 0, 0, 2]) is None
    True
    """
    model = DieModel(targets)
    path = search(model, model.start(), stop=stop, jumps=jumps)
    if path is None:
        return None
    return Solution(tuple(targets), path)


def solve(targets: Sequence[int]) -> str | None:
    """The lexicographically first roll sequence making a die with these six numbers.

    Rolls are ``E``, ``N``, ``S``, ``W`` (ordered so); each adds 1 to the face that comes to
    the bottom. Returns ``None`` when no sequence works. Targets are integers from 0 to
    10**12 (see :func:`find`).

    >>> solve([1, 1, 1, 1, 1, 1])
    'EEENEE'
    >>> solve([2, 0, 0, 0, 0, 0]) is None
    True
    """
    solution = find(targets)
    return None if solution is None else solution.text()
