"""Pig with two dice, as a compiled model: the first to bank ``goal`` points wins.

On a turn the player throws two dice as often as they like, adding the sum to the turn's
total, and may hold to bank the total; a throw showing a 1 ends the turn with nothing.
"""

import numpy as np

from perfectplay.compiled import CompiledModel, njit  # perfectplay before numba

# A position, for the player to move: their banked score, the other's, the turn's total,
# and whether a throw is pending (they chose to roll), 6 bits a field.
F = 63


@njit(cache=True)
def pack(mine, theirs, turn, pending):
    return mine | theirs << 6 | turn << 12 | pending << 18


@njit(cache=True)
def start(p):
    return 0


@njit(cache=True)
def outcome(s, p):
    # The other player just banked the goal: the mover has lost. Else play goes on.
    return 0.0 if (s >> 6) & F >= p[0] else -1.0


@njit(cache=True)
def rolls(s, p, weights):
    if not s >> 18:  # a decision, no dice
        weights[0] = 1
        return 1
    weights[0] = 11  # of the 36 throws, 11 show a 1
    for k in range(9):  # sums 4..12 of two dice from 2 to 6
        weights[1 + k] = 5 - abs(k - 4)
    return 10


@njit(cache=True)
def moves(s, r, p, nexts, flips):
    mine, theirs, turn = s & F, (s >> 6) & F, (s >> 12) & F
    if s >> 18:  # the throw: a 1 hands the dice over, else the sum adds to the turn
        if r == 0:
            nexts[0], flips[0] = pack(theirs, mine, 0, 0), 1
        else:
            nexts[0], flips[0] = pack(mine, theirs, min(turn + r + 3, p[0] - mine), 0), 0
        return 1
    nexts[0], flips[0] = pack(mine, theirs, turn, 1), 0  # roll
    if turn == 0:
        return 1
    nexts[1], flips[1] = pack(theirs, mine + turn, 0, 0), 1  # hold
    return 2


@njit(cache=True)
def layer(s, p):
    return (s & F) + ((s >> 6) & F)  # banked points never go down


class TwoDicePig(CompiledModel):
    """Pig with two dice to ``goal`` (at most 63)."""

    max_rolls, max_moves = 10, 2
    start, outcome, rolls, moves, layer = start, outcome, rolls, moves, layer

    def __init__(self, goal: int = 30) -> None:
        if not 1 <= goal <= F:
            raise ValueError(f"goal must be 1..{F}, not {goal}")
        self.goal = goal
        self.params = np.array([goal], np.int64)

    def parameters(self) -> dict[str, int]:
        return {"goal": self.goal}

    def describe(self, s: int) -> str:
        text = f"{s & F},{(s >> 6) & F},{(s >> 12) & F}"
        return text + ("*" if s >> 18 else "")

    def parse(self, text: str) -> int:
        fields = text.strip().rstrip("*").split(",")
        if len(fields) != 3 or not all(f.strip().isdigit() for f in fields):
            raise ValueError(f"a position is MINE,THEIRS,TURN (* after it: a throw), not {text!r}")
        mine, theirs, turn = (int(f) for f in fields)
        return int(pack(mine, theirs, turn, int(text.strip().endswith("*"))))

    def roll_label(self, r: int) -> str:
        return "a 1" if r == 0 else f"sum {r + 3}"

    def move_label(self, s: int, r: int, i: int, next_state: int, flip: int) -> str:
        return "throw" if s >> 18 else ("roll", "hold")[i]
