"""Pig and Piglet as compiled models: the same games as :mod:`perfectplay.examples.pig`,
written for speed (``docs/models.md``, "Big games").

A position packs ``(my score, opponent's score, turn total, dice pending)`` into one
integer, a field of ``p[2]`` bits for each score and the turn total and one bit for the
dice: fields read by shifts and masks, since the kernels decode a position for every
move (a division by a field's size costs some twenty times as much). Pig decides
before it throws (roll or hold, then the die), while a compiled model throws first, so
rolling leads to a position of its own whose chance outcomes are the die's faces
(``pending``), each with its one forced move. The layer is the sum of both scores:
holding raises it, busting keeps it. A layer's positions are numbered by a perfect
index (my score, turn total, dice bit), which the explorer and the solver use instead of
searching.

>>> from perfectplay.compiled import solve_compiled
>>> round(solve_compiled(CompiledPig(goal=10)).value(), 10)     # published 0.7094243225983
0.7094243226
>>> round(solve_compiled(CompiledPiglet(goal=10)).value(), 12)  # published 0.5224794079488
0.522479407949
"""

from __future__ import annotations

from typing import Any

import numpy as np

# numba's njit, numba imported the way perfectplay imports it (not from numba: the first
# import of numba decides how it compiles).
from perfectplay.compiled import CompiledModel, njit
from perfectplay.errors import InputError, short_repr

__all__ = ["CompiledPig", "CompiledPiglet"]

# p = [goal, faces, bits (of a field: goal + faces does not fit it), hold_at_zero, what
# outcome r adds to the turn total beyond r (Pig: the die shows r + 1; Piglet: heads adds
# 1)]


@njit(cache=True)
def _pack(mine: int, theirs: int, turn: int, pending: int, p: Any) -> int:
    b: int = p[2]
    return (((((mine << b) | theirs) << b) | turn) << 1) | pending


@njit(cache=True)
def _fields(s: int, p: Any) -> tuple[int, int, int]:
    # (my score, opponent's score, turn total)
    b: int = p[2]
    mask = (1 << b) - 1
    return s >> (1 + 2 * b), (s >> (1 + b)) & mask, (s >> 1) & mask


@njit(cache=True)
def pig_start(p: Any) -> int:
    return 0


@njit(cache=True)
def pig_outcome(s: int, p: Any) -> float:
    mine, theirs, turn = _fields(s, p)
    if mine + turn >= p[0]:
        return 1.0
    if theirs >= p[0]:
        return 0.0
    return -1.0


@njit(cache=True)
def pig_rolls(s: int, p: Any, weights: Any) -> int:
    if s & 1 == 0:  # deciding: no dice yet
        weights[0] = 1
        return 1
    for f in range(p[1]):
        weights[f] = 1
    return int(p[1])


@njit(cache=True)
def pig_moves(s: int, roll: int, p: Any, nexts: Any, flips: Any) -> int:
    mine, theirs, turn = _fields(s, p)
    if s & 1:  # the die shows roll + 1
        if roll == 0:
            nexts[0] = _pack(theirs, mine, 0, 0, p)
            flips[0] = 1
        else:
            nexts[0] = _pack(mine, theirs, turn + roll + p[4], 0, p)
            flips[0] = 0
        return 1
    nexts[0] = s | 1  # roll
    flips[0] = 0
    if turn == 0 and p[3] == 0:
        return 1
    nexts[1] = _pack(theirs, mine + turn, 0, 0, p)  # hold
    flips[1] = 1
    return 2


@njit(cache=True)
def pig_layer(s: int, p: Any) -> int:
    mine, theirs, _ = _fields(s, p)
    return mine + theirs


# The perfect index: within layer S = mine + theirs, by my score from the least a layer
# allows (the opponent's is below the goal), then the turn total (below goal - mine:
# more has won) and the dice bit; my score m holds 2 * (goal - m) numbers.


@njit(cache=True)
def _before(mine: int, layer: int, goal: int) -> int:
    # The numbers of my scores below ``mine`` in ``layer``.
    low = max(0, layer - goal + 1)
    k = mine - low
    return 2 * k * goal - k * (low + mine - 1)


@njit(cache=True)
def pig_index(s: int, p: Any) -> int:
    mine, theirs, turn = _fields(s, p)
    return _before(mine, mine + theirs, p[0]) + 2 * turn + (s & 1)


@njit(cache=True)
def pig_layer_size(layer: int, p: Any) -> int:
    top = min(layer, p[0] - 1)
    if top < max(0, layer - p[0] + 1):
        return 0
    return _before(top + 1, layer, p[0])


class CompiledPig(CompiledModel):
    """Pig to ``goal`` with a ``faces``-sided die, compiled (a 1 busts)."""

    max_rolls = 100
    max_moves = 2
    start = pig_start
    outcome = pig_outcome
    rolls = pig_rolls
    moves = pig_moves
    layer = pig_layer
    index = pig_index
    layer_size = pig_layer_size

    def __init__(self, goal: int = 100, faces: int = 6, hold_at_zero: bool = False) -> None:
        if not (isinstance(goal, int) and 1 <= goal <= 1000):
            raise InputError(f"goal must be an integer 1..1000, not {short_repr(goal)}")
        if not (isinstance(faces, int) and 2 <= faces <= 100):
            raise InputError(f"faces must be an integer 2..100, not {short_repr(faces)}")
        self.goal, self.faces, self.hold_at_zero = goal, faces, bool(hold_at_zero)
        bits = (goal + faces).bit_length()
        self.params = np.array([goal, faces, bits, int(hold_at_zero), 1], np.int64)

    def parameters(self) -> dict[str, Any]:
        return {"goal": self.goal, "faces": self.faces, "hold_at_zero": self.hold_at_zero}

    def unpack(self, state: int) -> tuple[int, int, int, bool]:
        """``(my score, opponent's score, turn total, dice pending)`` of a position.

        >>> pig = CompiledPig(goal=100)
        >>> pig.unpack(pig.pack(7, 93, 12, True))
        (7, 93, 12, True)
        """
        mine, theirs, turn = _fields(state, self.params)  # the kernels' own decoding
        return mine, theirs, turn, bool(state & 1)

    def pack(self, mine: int, theirs: int, turn: int, pending: bool = False) -> int:
        """The position of the fields (the inverse of :meth:`unpack`); a field its bits
        do not hold is a :class:`ValueError` (it would read as another position).

        >>> CompiledPig(goal=100).pack(0, 0, 200)
        Traceback (most recent call last):
        ValueError: a Pig score or turn total is 0..127, not 200
        """
        b = int(self.params[2])
        for field in (mine, theirs, turn):
            if not 0 <= field < 1 << b:
                raise ValueError(f"a Pig score or turn total is 0..{(1 << b) - 1}, not {field}")
        return _pack(mine, theirs, turn, int(pending), self.params)

    def describe(self, state: int) -> str:
        mine, theirs, turn, pending = self.unpack(state)
        return f"({mine}, {theirs}, {turn})" + (" rolling" if pending else "")

    def parse(self, text: str) -> int:
        import ast

        try:
            mine, theirs, turn = ast.literal_eval(text)
            fields = int(mine), int(theirs), int(turn)
        except (ValueError, SyntaxError, TypeError):
            raise ValueError(
                f"a Pig position is (my score, opponent's score, turn total), not {text!r}"
            ) from None
        return self.pack(*fields)

    def roll_label(self, roll: int) -> str:
        return f"face {roll + 1}"

    def move_label(self, state: int, roll: int, index: int, next_state: int, flip: int) -> str:
        if state % 2:
            return "bust" if roll == 0 else f"face {roll + 1}"
        return "roll" if index == 0 else "hold"


class CompiledPiglet(CompiledPig):
    """Piglet (a coin: heads adds 1, tails busts), compiled."""

    def __init__(self, goal: int = 10, hold_at_zero: bool = False) -> None:
        super().__init__(goal=goal, faces=2, hold_at_zero=hold_at_zero)
        self.params[4] = 0

    def roll_label(self, roll: int) -> str:
        return "heads" if roll else "tails"

    def move_label(self, state: int, roll: int, index: int, next_state: int, flip: int) -> str:
        if state % 2:
            return "heads" if roll else "tails"
        return super().move_label(state, roll, index, next_state, flip)

    def parameters(self) -> dict[str, Any]:
        return {"goal": self.goal, "hold_at_zero": self.hold_at_zero}
