"""One Yahtzee turn: the best chance of five of a kind with three rolls.

Five six-sided dice are rolled; the player may reroll any of them twice more (three rolls
in all) and wants all five to show one face at the end of the turn. The optimal chance
is exactly 347897/7558272, about 0.0460286 (Glenn 2006 gives "about 4.6%").

The objective is declared: ``objective = Objective.probability()`` (the default value of
a goal under a probability objective is 1; here a finished turn without five of a kind
is worth 0). The roll limit is part of the state, so the graph has no cycle and the
solver is backward induction.

A state is ``(rolls left, dice)``; a choice is ``(rolls left, kept dice)`` or ``"stop"``.

>>> from perfectplay.models import solve_model
>>> sol = solve_model(YahtzeeTurn())
>>> sol.exact_value(), sol.solver
(Fraction(347897, 7558272), 'backward-induction')
>>> sol.best((2, (1, 2, 2, 5, 6)))
[(2, (2, 2))]
"""

from __future__ import annotations

from perfectplay.dice import keeps, roll_rest
from perfectplay.errors import InputError
from perfectplay.models import ChanceModel, Objective

__all__ = ["YahtzeeTurn"]

State = tuple[int, tuple[int, ...]]
Pending = tuple[int, tuple[int, ...]]


class YahtzeeTurn(ChanceModel):
    """``dice`` six-sided dice (1..8), ``rolls`` rolls in the turn (1..10)."""

    objective = Objective.probability()

    def __init__(self, dice: int = 5, rolls: int = 3) -> None:
        if not (1 <= dice <= 8 and 1 <= rolls <= 10):
            raise InputError("dice must be 1..8 and rolls 1..10")
        self.dice = dice
        self.rolls = rolls

    def start(self) -> State:
        return (self.rolls, ())

    def is_goal(self, state: State) -> bool:
        left, dice = state
        return bool(dice) and (left == 0 or dice[0] == dice[-1])

    def value(self, state: State) -> int:
        dice = state[1]
        return int(dice[0] == dice[-1])

    def choices(self, state: State) -> list[Pending]:
        left, dice = state
        # Keeping every die ends the turn as it is: the same as rerolling none.
        return [(left, k) for k in keeps(dice) if len(k) < self.dice] + (
            [(0, dice)] if dice else []
        )

    def roll(self, pending: Pending) -> list[tuple[State, int]]:
        left, kept = pending
        if left == 0:  # stop: the turn ends with these dice
            return [((0, kept), 1)]
        return [((left - 1, dice), w) for dice, w in roll_rest(kept, self.dice)]
