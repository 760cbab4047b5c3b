"""Models with a mistake each, for the error messages shown in docs/models.md.

Run one with ``perfectplay solve docs/examples/broken.py:Raises`` (or ``Floaty``,
``Grows --max-states 50``, ``Endless``): each stops with one line naming the method and
the state, and exit status 2.
"""

from __future__ import annotations

from collections.abc import Iterator


class Grows:
    """A chance model whose states never end: 0, 1, 2, ..."""

    start = 0

    def is_goal(self, s: int) -> bool:
        return False

    def choices(self, s: int) -> list[int]:
        return [s]

    def roll(self, s: int) -> list[tuple[int, int]]:
        return [(s + 1, 1)]


class Raises(Grows):
    """Its roll raises from state 3 on."""

    def roll(self, s: int) -> list[tuple[int, int]]:
        if s < 3:
            return [(s + 1, 1)]
        return [(s + 1, int(1 / 0))]


class Floaty(Grows):
    """Its weights are floats, which are not exact."""

    def roll(self, s: int) -> list[tuple[int, float]]:  # type: ignore[override]
        return [(s + 1, 1 / 3)]


class Endless:
    """A two-player model whose ``moves`` never stops giving moves."""

    start = 0

    def moves(self, p: int) -> Iterator[int]:
        while True:
            yield 1

    def play(self, p: int, m: int) -> int:
        return p + m

    def outcome(self, p: int) -> str | None:
        return None
