"""Game graphs as arrays: chance graphs, game graphs and canonical state indexes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_exports

if TYPE_CHECKING:
    from perfectplay.graphs.canonical import SortedTupleSpace, StateIndex, sorted_tuple
    from perfectplay.graphs.chance import ChanceGraph, ChanceSolution
    from perfectplay.graphs.game import NOT_TERMINAL, GameGraph, GameSolution, Move, Outcome

_EXPORTS = {
    "ChanceGraph": "perfectplay.graphs.chance",
    "ChanceSolution": "perfectplay.graphs.chance",
    "GameGraph": "perfectplay.graphs.game",
    "GameSolution": "perfectplay.graphs.game",
    "Move": "perfectplay.graphs.game",
    "Outcome": "perfectplay.graphs.game",
    "NOT_TERMINAL": "perfectplay.graphs.game",
    "StateIndex": "perfectplay.graphs.canonical",
    "SortedTupleSpace": "perfectplay.graphs.canonical",
    "sorted_tuple": "perfectplay.graphs.canonical",
}
__all__ = [
    "ChanceGraph",
    "ChanceSolution",
    "GameGraph",
    "GameSolution",
    "Move",
    "NOT_TERMINAL",
    "SortedTupleSpace",
    "StateIndex",
    "Outcome",
    "sorted_tuple",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
