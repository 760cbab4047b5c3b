"""Chutes and Ladders (Snakes and Ladders), Milton Bradley's board, one player.

The game a child plays: a token starts off the board (square 0); each turn a spinner
gives 1 to 6 and the token moves that many squares, climbing a ladder or sliding down a
chute when it lands at its foot or top. A spin that would pass square 100 leaves the
token where it is (the turn still counts), and the game ends on landing exactly on 100.
There is nothing to decide, so the question is only how long a game lasts: the expected
number of spins is the 60-digit fraction published by Althoen, King and Schilling
("How long is a game of Snakes and Ladders?", The Mathematical Gazette, 1993), about
39.2251; this model reproduces it exactly with ``--exact``.

It is also a chance graph *without* the retry property (a spin cannot be taken back), so
the explorer hands it to the general solver (policy iteration) instead of label-setting,
and the exact mode solves the cyclic policy (chutes lead back) by exact linear algebra.

>>> from perfectplay.models import solve_model
>>> sol = solve_model(ChutesAndLadders())
>>> sol.solver, round(sol.start_value, 4), sol.exact_value() == ALTHOEN_1993
('policy-iteration', 39.2251, True)
"""

from __future__ import annotations

from fractions import Fraction

from perfectplay.models.base import ChanceModel

__all__ = ["ChutesAndLadders", "LADDERS", "CHUTES", "ALTHOEN_1993"]

#: Milton Bradley's board: the foot of each ladder and the top of each chute, and where
#: it takes the token. (Some printings start the chute to 26 at 48; this is the 47 one.)
LADDERS = {1: 38, 4: 14, 9: 31, 21: 42, 28: 84, 36: 44, 51: 67, 71: 91, 80: 100}
CHUTES = {16: 6, 47: 26, 49: 11, 56: 53, 62: 19, 64: 60, 87: 24, 93: 73, 95: 75, 98: 78}

#: The expected number of spins found by Althoen, King and Schilling (1993).
ALTHOEN_1993 = Fraction(
    225837582538403273407117496273279920181931269186581786048583,
    5757472998140039232950575874628786131130999406013041613400,
)


class ChutesAndLadders(ChanceModel):
    """One token on a board of ``size`` squares with the given jumps; a spinner 1..``spinner``."""

    def __init__(
        self,
        jumps: dict[int, int] | None = None,
        size: int = 100,
        spinner: int = 6,
    ) -> None:
        self.jumps = {**LADDERS, **CHUTES} if jumps is None else dict(jumps)
        self.size = size
        self.spinner = spinner

    def start(self) -> int:
        return 0

    def is_goal(self, square: int) -> bool:
        return square == self.size

    def choices(self, square: int) -> list[int]:
        return [square]  # the only thing to do is spin; the roll is "spin from here"

    def roll(self, square: int) -> list[tuple[int, int]]:
        out = []
        for spin in range(1, self.spinner + 1):
            to = square + spin
            out.append((square if to > self.size else self.jumps.get(to, to), 1))
        return out
