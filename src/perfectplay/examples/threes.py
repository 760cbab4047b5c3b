"""Threes: keep at least one die per roll, threes count zero, lowest total wins.

Five six-sided dice are rolled; after each roll the player sets aside at least one of
the dice rolled (kept dice are final) and rolls the rest, until every die is kept. A 3
counts 0, every other face its pips; the player minimises the expected final total. The
optimum is exactly 504205555/80621568, about 6.253979 (algomath 2012 publishes the
decimal; the fraction is recomputed here); with 2 dice it is 79/18, with 1 die 3.

The objective is declared, not encoded: ``objective = Objective.score("min")`` and the
final total is the goal state's ``value``. The graph has no cycle (each roll keeps a
die), so the solver is backward induction.

A state is ``(kept, rolled)``: the sorted dice kept so far and the sorted dice just
rolled (``()`` before the first roll); a choice is the non-empty sub-multiset of
``rolled`` to keep.

>>> from perfectplay.models import solve_model
>>> sol = solve_model(Threes())
>>> sol.exact_value(), sol.solver
(Fraction(504205555, 80621568), 'backward-induction')
>>> sol.best(((), (1, 3, 4, 5, 6)))     # keep the 3 (a zero) alone
[((), (3,))]
>>> solve_model(Threes(dice=2)).exact_value()
Fraction(79, 18)
"""

from __future__ import annotations

from perfectplay.dice import keeps, roll_rest
from perfectplay.errors import InputError
from perfectplay.models import ChanceModel, Objective

__all__ = ["Threes"]

State = tuple[tuple[int, ...], tuple[int, ...]]


class Threes(ChanceModel):
    """Threes with ``dice`` six-sided dice (1..8)."""

    objective = Objective.score("min")

    def __init__(self, dice: int = 5) -> None:
        if not 1 <= dice <= 8:
            raise InputError("dice must be 1..8")
        self.dice = dice

    def start(self) -> State:
        return ((), ())

    def is_goal(self, state: State) -> bool:
        return len(state[0]) == self.dice

    def value(self, state: State) -> int:
        return sum(0 if f == 3 else f for f in state[0])

    def choices(self, state: State) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        kept, rolled = state
        if not rolled:  # the first roll: nothing to keep yet
            return [(kept, ())]
        return [(kept, k) for k in keeps(rolled) if k]

    def roll(self, pending: tuple[tuple[int, ...], tuple[int, ...]]) -> list[tuple[State, int]]:
        kept = tuple(sorted(pending[0] + pending[1]))
        n = self.dice - len(kept)
        if n == 0:
            return [((kept, ()), 1)]
        return [((kept, rolled), w) for rolled, w in roll_rest((), n)]

    def canonical_choice(self, pending: tuple[tuple[int, ...], tuple[int, ...]]) -> tuple[int, ...]:
        # Keeping a at one roll and b at the next is the same roll as keeping them together.
        return tuple(sorted(pending[0] + pending[1]))
