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

from itertools import combinations_with_replacement, product
from math import factorial

from perfectplay.models.base import ChanceModel

__all__ = ["FiveDice"]


class FiveDice(ChanceModel):
    """``dice`` dice with ``faces`` faces; the goal is all dice showing one face."""

    def __init__(self, dice: int = 5, faces: int = 6) -> None:
        if not (1 <= dice <= 12 and 1 <= faces <= 20):
            raise ValueError("dice must be 1..12 and faces 1..20")
        self.dice = dice
        self.faces = faces
        # Every multiset of n fresh dice with its number of orderings, for each n.
        self._fresh = [self._multisets(n) for n in range(dice + 1)]

    def _multisets(self, n: int) -> list[tuple[tuple[int, ...], int]]:
        out = []
        for faces in combinations_with_replacement(range(1, self.faces + 1), n):
            weight = factorial(n)
            for f in set(faces):
                weight //= factorial(faces.count(f))
            out.append((faces, weight))
        return out

    def start(self) -> tuple[int, ...]:
        return ()

    def is_goal(self, state: tuple[int, ...]) -> bool:
        return len(state) == self.dice and state[0] == state[-1]

    def choices(self, state: tuple[int, ...]) -> list[tuple[int, ...]]:
        # Every sub-multiset of the dice showing, except keeping them all (a wasted roll).
        counts = [(f, state.count(f)) for f in sorted(set(state))]
        kept = set()
        for ks in product(*(range(c + 1) for _, c in counts)):
            kept.add(tuple(f for (f, _), k in zip(counts, ks, strict=True) for _ in range(k)))
        if state:
            kept.discard(state)
        return sorted(kept, key=lambda k: (-len(k), k))

    def roll(self, kept: tuple[int, ...]) -> list[tuple[tuple[int, ...], int]]:
        return [
            (tuple(sorted(kept + fresh)), weight)
            for fresh, weight in self._fresh[self.dice - len(kept)]
        ]
