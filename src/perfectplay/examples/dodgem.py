"""Dodgem, Colin Vout's racing game, on an n x n board (a loopy game with draws).

Each player has ``n - 1`` cars. Blue's cars start on the left edge and drive east, off the
right edge; Red's start on the bottom edge and drive north, off the top edge; the bottom
left corner starts empty. A move takes one car one square forward or sideways (Blue:
east, north or south; Red: north, east or west) onto an empty square, or forward off the
board when the car is on its far edge. The first player with all cars off the board wins;
a player must also leave the opponent a move, so a player who has no move on their turn
wins (``no_moves = "win"``). Sideways moves can be undone, so play can go round in circles.

Berlekamp, Conway and Guy (*Winning Ways*, chapter 22) showed that the first player wins
on the 3 x 3 board, and desJardins (1996) that the 4 x 4 and 5 x 5 games are draws: with
perfect play neither side ever gets all cars off. The solver agrees on both: 3 x 3 is a
win in 19 moves for the first player and has no drawn position at all; on 4 x 4 (393,900
positions, a few seconds to explore) the start and 35,281 other positions are draws.

A position is ``(blue, red, mover)``: the sorted squares ``(column, row)`` of each side's
cars still on the board, and ``"B"`` or ``"R"``. A move is ``(square, direction)``, with
direction ``"N"``, ``"E"``, ``"S"`` or ``"W"``.

>>> from perfectplay.models import Outcome, solve_model
>>> sol = solve_model(Dodgem(3))
>>> sol.start_value, sol.counts()[Outcome.DRAW]
(Result(value=<Outcome.WIN: 4>, remoteness=19), 0)
>>> sol.best_moves(sol.exploration.reps[0])   # the only winning first move
[((0, 2), 'E')]
"""

from __future__ import annotations

from perfectplay.errors import InputError
from perfectplay.models.base import GameModel

__all__ = ["Dodgem"]

Square = tuple[int, int]
Position = tuple[tuple[Square, ...], tuple[Square, ...], str]

_STEP = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}
_DIRECTIONS = {"B": ("E", "N", "S"), "R": ("N", "E", "W")}


class Dodgem(GameModel):
    """Dodgem on an ``n`` x ``n`` board, Blue to move first."""

    no_moves = "win"

    def __init__(self, n: int = 3) -> None:
        if not 2 <= n <= 6:
            raise InputError("n must be 2..6")
        self.n = n

    def start(self) -> Position:
        blue = tuple((0, row) for row in range(1, self.n))
        red = tuple((col, 0) for col in range(1, self.n))
        return blue, red, "B"

    def outcome(self, position: Position) -> str | None:
        blue, red, mover = position
        # The player who just moved has driven their last car off: they won.
        return "lose" if not (red if mover == "B" else blue) else None

    def moves(self, position: Position) -> list[tuple[Square, str]]:
        blue, red, mover = position
        occupied = set(blue) | set(red)
        out = []
        for x, y in blue if mover == "B" else red:
            for d in _DIRECTIONS[mover]:
                dx, dy = _STEP[d]
                tx, ty = x + dx, y + dy
                if 0 <= tx < self.n and 0 <= ty < self.n:
                    if (tx, ty) not in occupied:
                        out.append(((x, y), d))
                elif d == _DIRECTIONS[mover][0]:  # forward off the far edge
                    out.append(((x, y), d))
        return out

    def play(self, position: Position, move: tuple[Square, str]) -> Position:
        blue, red, mover = position
        (x, y), d = move
        dx, dy = _STEP[d]
        to = (x + dx, y + dy)
        on_board = 0 <= to[0] < self.n and 0 <= to[1] < self.n
        kept = [c for c in (blue if mover == "B" else red) if c != (x, y)]
        if on_board:
            kept.append(to)
        cars = tuple(sorted(kept))
        return (cars, red, "R") if mover == "B" else (blue, cars, "B")
