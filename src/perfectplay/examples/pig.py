"""Pig and Piglet: two players, dice between moves, first to the goal wins.

**Pig.** On a turn the player rolls a die as often as they like: a 1 ends the turn and
loses the turn total; any other face adds to it. Holding banks the turn total and passes
the turn. The first player to reach ``goal`` (100) wins. With optimal play the first
player wins with probability 0.5305927... (T. Neller and C. Presser, *Optimal play of
the dice game Pig*, The UMAP Journal 25(1), 2004); both holding at 20 (or at the goal),
the first player wins 0.5346983... (Neller's Nifty Assignment, 2010).

**Piglet** is Pig with a coin: heads adds 1 to the turn total, tails loses it.

A state is ``(my score, opponent's score, turn total)`` for the player to move. A player
whose score plus turn total reaches the goal has won (holding then is automatic).
Holding at turn total 0 only passes the turn; it is not a move unless
``hold_at_zero=True``. Neither choice changes a value (holding at 0 hands the opponent
the same position, never better than rolling; the tests check both give the same values
and hold tables). Without it every play ends with probability one; with it both players
could hold at 0 for ever, a draw, yet the interval bounds still close (the solver
reports no endless component).

>>> from perfectplay.models.stochastic import solve_stochastic_model
>>> sol = solve_stochastic_model(Pig(goal=10))
>>> round(sol.start_value, 10)      # published 0.7094243225983
0.7094243226
>>> sol.best_move((0, 0, 4)), sol.best_move((0, 0, 0))
('roll', 'roll')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from perfectplay.errors import InputError, short_repr
from perfectplay.models.stochastic import StochasticGameModel

__all__ = ["Pig", "Piglet", "check_pig_parameters", "hold_at", "hold_at_20", "hold_table"]

State = tuple[int, int, int]


class Pig(StochasticGameModel):
    """Pig to ``goal`` with a ``faces``-sided die (a 1 busts)."""

    start = (0, 0, 0)

    def __init__(self, goal: int = 100, faces: int = 6, hold_at_zero: bool = False) -> None:
        check_pig_parameters(goal, faces, hold_at_zero)
        self.goal = goal
        self.faces = faces
        self.hold_at_zero = bool(hold_at_zero)
        self._roll_cache: dict[State, list[tuple[State, int, bool]]] = {}

    def outcome(self, s: State) -> str | None:
        mine, theirs, turn = s
        if mine + turn >= self.goal:
            return "win"
        if theirs >= self.goal:
            return "lose"
        return None

    def moves(self, s: State) -> list[str]:
        return ["roll", "hold"] if s[2] or self.hold_at_zero else ["roll"]

    def chances(self, s: State, move: str) -> list[tuple[State, int, bool]]:
        mine, theirs, turn = s
        if move == "hold":
            return [((theirs, mine + turn, 0), 1, True)]
        return [((theirs, mine, 0), 1, True)] + [
            ((mine, theirs, turn + f), 1, False) for f in range(2, self.faces + 1)
        ]


class Piglet(Pig):
    """Pig with a coin: heads adds 1, tails busts (``goal`` 10 by default).

    >>> from perfectplay.models.stochastic import solve_stochastic_model
    >>> round(solve_stochastic_model(Piglet(goal=10)).start_value, 12)
    0.522479407949
    """

    def __init__(self, goal: int = 10, hold_at_zero: bool = False) -> None:
        super().__init__(goal=goal, faces=2, hold_at_zero=hold_at_zero)

    def chances(self, s: State, move: str) -> list[tuple[State, int, bool]]:
        mine, theirs, turn = s
        if move == "hold":
            return [((theirs, mine + turn, 0), 1, True)]
        return [((theirs, mine, 0), 1, True), ((mine, theirs, turn + 1), 1, False)]


def check_pig_parameters(goal: object, faces: object, hold_at_zero: object) -> None:
    """Refuse what is no goal, die or switch, for both Pig models alike: a bool is no
    number, and ``hold_at_zero="no"`` would read as True.

    >>> check_pig_parameters(100, 6, "no")
    Traceback (most recent call last):
    perfectplay.errors.InputError: hold_at_zero must be True or False, not 'no'
    """
    if isinstance(goal, bool) or not (isinstance(goal, int) and 1 <= goal <= 1000):
        raise InputError(f"goal must be an integer 1..1000, not {short_repr(goal)}")
    if isinstance(faces, bool) or not (isinstance(faces, int) and 2 <= faces <= 100):
        raise InputError(f"faces must be an integer 2..100, not {short_repr(faces)}")
    if not isinstance(hold_at_zero, bool):
        raise InputError(f"hold_at_zero must be True or False, not {short_repr(hold_at_zero)}")


def hold_at(n: int) -> Callable[[State], str]:
    """The strategy "hold when the turn total reaches ``n``" (or the goal: such states
    are won already).

    >>> hold_at(20)((0, 0, 19)), hold_at(20)((0, 0, 20))
    ('roll', 'hold')
    """

    def strategy(s: State) -> str:
        return "hold" if s[2] >= n else "roll"

    strategy.__name__ = strategy.__qualname__ = f"hold_at({n})"
    return strategy


#: Hold at 20, for ``perfectplay solve perfectplay.examples.pig:Pig --strategy
#: perfectplay.examples.pig:hold_at_20``.
hold_at_20 = hold_at(20)


def hold_table(sol: Any, goal: int) -> list[list[int]]:
    """Neller's Piglet table from a solved game: row ``i`` (the mover's score), column
    ``j`` (the opponent's): the smallest turn total at which the optimal mover holds.

    >>> from perfectplay.models.stochastic import solve_stochastic_model
    >>> hold_table(solve_stochastic_model(Piglet(goal=3)), 3)
    [[1, 3, 3], [2, 2, 2], [1, 1, 1]]
    """
    table = []
    for i in range(goal):
        row = []
        for j in range(goal):
            k = 1
            while i + k < goal and sol.best_move((i, j, k)) != "hold":
                k += 1
            row.append(k)
        table.append(row)
    return table
