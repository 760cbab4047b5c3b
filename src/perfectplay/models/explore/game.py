"""The game explorer: a two-player model, visited breadth-first, becomes a game graph.

Positions are numbered densely by their canonical keys in the order they are met; a
finished position (``outcome`` not ``None``) is terminal with its result for the player
to move, a position without moves is terminal with the model's ``no_moves`` result
(``"lose"`` by default, the normal play convention).

>>> class Take:  # a pile of 4; take 1 or 2; whoever cannot move loses
...     start = 4
...     def moves(self, n): return [k for k in (1, 2) if k <= n]
...     def play(self, n, k): return n - k
...     def outcome(self, n): return None
>>> ex = explore_game(Take())
>>> ex.reps, list(ex.graph.moves(0))
([4, 3, 2, 1, 0], [1, 2])
"""

from __future__ import annotations

import time
from array import array
from typing import Any, NamedTuple

from perfectplay.errors import ModelError
from perfectplay.graphs.canonical import StateIndex
from perfectplay.graphs.game import NOT_TERMINAL, GameGraph, Outcome
from perfectplay.models.explore.callbacks import (
    MODEL_EXCEPTIONS,
    add_start,
    call_text,
    callback_error,
    describe,
    method,
    model_attribute,
    model_name,
    read_start,
)
from perfectplay.models.explore.collector import sparing_collector
from perfectplay.models.explore.limits import CHECK_MASK, Budget, ExploreLimits

__all__ = ["GameExploration", "explore_game", "outcome_code"]


class GameExploration(NamedTuple):
    """The game graph of a two-player model and the tables that map it back to positions.

    Attributes:
        graph: the game graph; ``graph.index`` numbers positions by canonical key.
        positions: the same :class:`~perfectplay.graphs.canonical.StateIndex`.
        reps: one user position object per id (the first one met).
        seconds: wall time of the exploration.
    """

    graph: GameGraph
    positions: StateIndex
    reps: list[Any]
    seconds: float


_OUTCOMES = {"win": Outcome.WIN, "lose": Outcome.LOSE, "tie": Outcome.TIE}
# The codes of the usual spellings, looked up without a call per finished position.
_CODES = {word: int(v) for word, v in _OUTCOMES.items()}


def outcome_code(result: Any) -> int:
    """The terminal code of a model's result: ``"win"``, ``"lose"``, ``"tie"`` (any case).

    :class:`~perfectplay.graphs.game.Outcome` members are accepted too.

    >>> outcome_code("Lose") == Outcome.LOSE
    True
    """
    if isinstance(result, Outcome):
        if result == Outcome.DRAW:
            raise ValueError("a finished game cannot be a draw; a draw is a game that never ends")
        return int(result)
    if isinstance(result, str) and result.lower() in _OUTCOMES:
        return int(_OUTCOMES[result.lower()])
    raise ValueError(f"expected None, 'win', 'lose' or 'tie', not {describe(result)}")


def _no_moves_code(model: Any, name: str) -> int:
    """The code of the model's ``no_moves`` result (``"lose"`` when it declares none)."""
    declared = model_attribute(model, "no_moves")
    try:
        return outcome_code("lose" if declared is None else declared)
    except ValueError as exc:
        raise ModelError(f"{name}.no_moves: {exc}") from None


@sparing_collector
def explore_game(
    model: Any,
    *,
    max_states: int | None = None,
    max_edges: int | None = None,
    max_per_call: int | None = None,
    progress: bool = True,
    limits: ExploreLimits | None = None,
) -> GameExploration:
    """Visit every position reachable from the model's start; return its game graph.

    The arrays are ``array.array`` buffers (no numpy needed; the retrograde solver takes
    them as they are). Limits (``max_edges`` counts moves), progress and errors as in
    :func:`~perfectplay.models.explore.chance.explore_chance`.

    >>> class Up:  # an endless climb: refused at the state limit
    ...     start = 0
    ...     def moves(self, n): return [1]
    ...     def play(self, n, k): return n + k
    >>> explore_game(Up(), max_states=50)
    Traceback (most recent call last):
    perfectplay.models.explore.limits.SpaceLimitError: Up: more than 50 positions; ...
    """
    t0 = time.perf_counter()
    name = model_name(model)
    moves = method(model, "moves")
    play = method(model, "play")
    outcome = method(model, "outcome", required=False)
    canonical = method(model, "canonical", required=False)
    no_moves = _no_moves_code(model, name)
    limits = ExploreLimits.of(
        limits, max_states=max_states, max_edges=max_edges, max_per_call=max_per_call
    )
    budget = Budget(name, limits, "positions", progress)
    meter = budget.meter

    positions = StateIndex(canonical)
    reps: list[Any] = []
    indptr = array("q", [0])
    children = array("i")
    terminal = array("b")
    # The loop runs once per move, so it inlines StateIndex.add: one setdefault on the
    # index's dict (a single hash of the key) with the next id kept in a local.
    ids = positions._ids
    keys = positions._keys
    intern = ids.setdefault
    max_states, max_edges = limits.max_states, limits.max_edges
    # A list or tuple of moves this short cannot cross any limit but max_edges, so it is
    # read without counting items one by one; other iterables are counted as they come.
    short = min(budget.chunk_size, limits.max_per_call)

    add_start(read_start(model), name, canonical, positions, reps)
    n = 1
    i = 0
    where, position, move, child = "", None, None, None
    try:
        while i < n:
            position = reps[i]
            result = None
            if outcome is not None:
                where = "outcome"
                result = outcome(position)
            if result is not None:
                code = _CODES.get(result) if type(result) is str else None
                if code is None:
                    try:
                        code = outcome_code(result)
                    except ValueError as exc:
                        call = call_text(name, "outcome", (position,))
                        raise ModelError(f"{call} returned: {exc}") from None
                terminal.append(code)
            else:
                where = "moves"
                listed = moves(position)
                before = len(children)
                if type(listed) is not list and type(listed) is not tuple:  # may never end
                    listed = budget.counted("moves", (position,), listed, before, reps, keys)
                elif len(listed) > short or before + len(listed) > max_edges:
                    budget.take("moves", (position,), len(listed), before, reps, keys)
                for move in listed:
                    where = "play"
                    child = play(position, move)
                    where = "canonical_play"
                    key = child if canonical is None else canonical(child)
                    c = intern(key, n)
                    if c == n:
                        n += 1
                        keys.append(key)
                        reps.append(child)
                        if not c & CHECK_MASK or c >= max_states:
                            budget.check(n, len(children), reps, keys)
                    children.append(c)
                    where = "moves"
                terminal.append(NOT_TERMINAL if len(children) > before else no_moves)
            indptr.append(len(children))
            i += 1
            if meter is not None and not i & 1023:
                meter.update(i, "positions", n)
    except ModelError:
        raise
    except MODEL_EXCEPTIONS as exc:
        args = (position, move) if where in ("play", "canonical_play") else (position,)
        item = child if where == "canonical_play" else None
        raise callback_error(name, where, args, exc, canonical is not None, item) from exc
    budget.done(f"{len(keys):,} positions")
    budget.check(len(keys), len(children), reps, keys)
    graph = GameGraph(indptr, children, terminal, 0, positions)
    return GameExploration(graph, positions, reps, time.perf_counter() - t0)
