"""Roll dice until they all show the same face, keeping any dice between rolls.

This is Yahtzee's famous question without the three-roll limit: five six-sided dice are
rolled; after each roll the player sets aside any of them and rolls the rest again, until
all five show one face. With the best strategy the expected number of rolls is exactly
191283/17248, about 11.0902 (a well-known result). The solver confirms the strategy a
player guesses, keep the dice of a most common face, and finds one tie worth knowing:
with five different faces, keeping one die is exactly as good as rerolling all five
(both leave 191283/17248 rolls to go).

States are the faces showing, sorted (the dice are interchangeable, so a sorted tuple is
already a canonical form); the start is the empty tuple, before the first roll. A choice
is the sorted tuple of dice kept; rolling the others gives every sorted outcome with its
multinomial weight.

>>> from perfectplay.models import solve_model
>>> sol = solve_model(FiveDice())
>>> sol.exact_value()
Fraction(191283, 17248)
>>> sol.best((1, 2, 2, 5, 6))
[(2, 2)]
>>> sol.exact_value((1, 2, 3, 4, 6)) == sol.exact_value()
True
"""

from __future__ import annotations

from perfectplay.dice import keeps, roll_rest
from perfectplay.errors import InputError, short_repr
from perfectplay.models.base import ChanceModel

__all__ = ["FiveDice"]


class FiveDice(ChanceModel):
    """``dice`` dice with ``faces`` faces; the goal is all dice showing one face."""

    def __init__(self, dice: int = 5, faces: int = 6) -> None:
        ok = all(isinstance(v, int) and not isinstance(v, bool) for v in (dice, faces))
        if not (ok and 1 <= dice <= 12 and 1 <= faces <= 20):
            raise InputError(
                f"dice must be 1..12 and faces 1..20, not {short_repr(dice)} and "
                f"{short_repr(faces)}"
            )
        self.dice = dice
        self.faces = faces

    def start(self) -> tuple[int, ...]:
        return ()

    def is_goal(self, state: tuple[int, ...]) -> bool:
        return len(state) == self.dice and state[0] == state[-1]

    def choices(self, state: tuple[int, ...]) -> list[tuple[int, ...]]:
        # Every sub-multiset of the dice showing, except keeping them all (a wasted roll).
        kept = [k for k in keeps(state) if not state or k != state]
        return sorted(kept, key=lambda k: (-len(k), k))

    def roll(self, kept: tuple[int, ...]) -> list[tuple[tuple[int, ...], int]]:
        return roll_rest(kept, self.dice, self.faces)
