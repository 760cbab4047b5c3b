"""Model your own game in a few lines of Python and solve it exactly.

Write a :class:`ChanceModel` (one player, dice: the least expected number of rolls to a
goal, or the :class:`Objective` it declares: the best expected score, the best chance of
an event), a :class:`GameModel` (two players: win, lose, tie or draw with remoteness)
or a :class:`StochasticGameModel` (two players with dice: the mover's winning chance),
then call :func:`solve_model`. The dice helpers of :mod:`perfectplay.dice`
(:func:`outcomes`, :func:`keeps`, :func:`roll_rest`) are exported here too. The
explorer visits every reachable state breadth-first and the solvers of
:mod:`perfectplay.solvers` do the rest; the solution answers queries by your own state
objects and can be exported to a ``.npz`` table that :func:`load_solution` reads back
without solving again. Guide: ``docs/models.md``.

>>> from perfectplay.examples.tictactoe import TicTacToe
>>> solve_model(TicTacToe()).start_value
Result(value=<Outcome.TIE: 3>, remoteness=9)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_exports
from perfectplay.dice import keeps, outcomes, roll_rest
from perfectplay.models.base import (
    LOSE,
    TIE,
    WIN,
    ChanceModel,
    GameModel,
    StochasticGameModel,
    UnknownStateError,
    model_kind,
)
from perfectplay.models.solve import solve_model
from perfectplay.objectives import MIN_COST, Objective
from perfectplay.results.options import TIE_TOLERANCE, Option, Outcome, Result, is_tie

if TYPE_CHECKING:
    from perfectplay.results.table import SolvedTable, load_solution

__all__ = [
    "LOSE",
    "MIN_COST",
    "TIE",
    "TIE_TOLERANCE",
    "WIN",
    "ChanceModel",
    "GameModel",
    "Objective",
    "Option",
    "Outcome",
    "Result",
    "SolvedTable",
    "StochasticGameModel",
    "UnknownStateError",
    "is_tie",
    "keeps",
    "load_solution",
    "model_kind",
    "outcomes",
    "roll_rest",
    "solve_model",
]


# The table module needs numpy; small two-player models are solved without it.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {"SolvedTable": "perfectplay.results.table", "load_solution": "perfectplay.results.table"},
)
