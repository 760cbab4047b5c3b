"""Solved games as one surface: options and their ranking, results by node id, the base
of every solution, and the table format on disk.

* :mod:`~perfectplay.results.options`: :class:`Option`, the one ranking of choices and
  moves, the float tie rule and :class:`Result` (an outcome with remoteness);
* :mod:`~perfectplay.results.graph`: :class:`ChanceResult` and :class:`GameResult`, a
  solved graph queried by node id;
* :mod:`~perfectplay.results.surface`: :class:`Solution`, the base that every solved
  model, rule set and loaded table shares;
* :mod:`~perfectplay.results.table`: the ``.npz`` table format, its writers and
  :func:`load_solution`.
"""

from __future__ import annotations

from perfectplay.graphs.game import Outcome
from perfectplay.results.graph import ChanceResult, ExactValues, GameResult
from perfectplay.results.options import (
    TIE_TOLERANCE,
    Option,
    Result,
    is_tie,
    rank_moves,
    rank_options,
    result_of,
)
from perfectplay.results.surface import Solution

__all__ = [
    "TIE_TOLERANCE",
    "ChanceResult",
    "ExactValues",
    "GameResult",
    "Option",
    "Outcome",
    "Result",
    "Solution",
    "is_tie",
    "rank_moves",
    "rank_options",
    "result_of",
]
