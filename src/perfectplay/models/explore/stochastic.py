"""The two-player dice explorer: a :class:`~perfectplay.models.StochasticGameModel`,
visited breadth-first, becomes a :class:`~perfectplay.graphs.stochastic.StochasticGraph`.

States are numbered densely by their canonical keys in the order they are met; each
move of a state is a chance node whose outcomes ``(next_state, weight, passes)`` are
edges. Limits and errors are those of the other explorers: one
:class:`~perfectplay.models.explore.limits.ExploreLimits` (``max_edges`` counts moves and
outcomes, ``max_per_call`` the items of one ``moves`` or ``chances`` call), and every
misbehaviour of a callback (raising, ``sys.exit``, an unhashable state, a malformed
outcome) is one :class:`~perfectplay.errors.ModelError` naming the method and the state.

>>> from perfectplay.examples.pig import Piglet
>>> ex = explore_stochastic(Piglet(goal=2))
>>> ex.graph.n_positions, ex.reps[0]
(10, (0, 0, 0))
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Hashable, Iterator, Mapping
from fractions import Fraction
from math import lcm
from typing import TYPE_CHECKING, Any, NamedTuple

from perfectplay.errors import ModelError
from perfectplay.graphs.canonical import StateIndex
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

if TYPE_CHECKING:
    from perfectplay.graphs.stochastic import StochasticGraph

__all__ = ["Exploration", "StochasticExploration", "explore_stochastic", "game_result"]


class StochasticExploration(NamedTuple):
    """The explored graph with the objects it was built from."""

    graph: StochasticGraph
    reps: list[Any]  # a representative state per position
    ids: dict[Any, int]  # canonical key -> position
    moves: list[Any]  # the move of each chance node
    canonical: Callable[[Any], Hashable] | None


#: The former name (``perfectplay.models.stochastic.Exploration``).
Exploration = StochasticExploration

_RESULT = {"win": Fraction(1), "lose": Fraction(0), "tie": Fraction(1, 2)}


def game_result(value: Any, state: Any, what: str) -> Fraction:
    """The mover's result of a finished game as an exact probability.

    ``value`` is ``"win"``, ``"lose"``, ``"tie"`` or an int or Fraction in 0..1;
    ``what`` names where it came from for the message.

    >>> game_result("tie", 0, "M.outcome"), game_result(Fraction(1, 3), 0, "M.outcome")
    (Fraction(1, 2), Fraction(1, 3))
    """
    if isinstance(value, str) and value in _RESULT:
        return _RESULT[value]
    if isinstance(value, int | Fraction) and not isinstance(value, bool) and 0 <= value <= 1:
        return Fraction(value)
    raise ModelError(
        f"{what} of state {describe(state)} is {describe(value)}: expected 'win', 'lose', "
        "'tie' or an exact probability 0..1 (int or Fraction)"
    )


def _triples(name: str, args: tuple[Any, Any], got: Mapping[Any, Any]) -> Iterator[Any]:
    """The outcomes of a mapping ``{(next_state, passes): weight}`` as triples."""
    for key, w in got.items():
        if type(key) is not tuple or len(key) != 2:
            raise ModelError(
                f"{call_text(name, 'chances', args)} gave the key {describe(key)}; a mapping's "
                "keys are pairs (next_state, passes)"
            )
        yield key[0], w, key[1]


@sparing_collector
def explore_stochastic(
    model: Any,
    *,
    max_states: int | None = None,
    max_edges: int | None = None,
    max_per_call: int | None = None,
    progress: bool = True,
    limits: ExploreLimits | None = None,
) -> StochasticExploration:
    """Breadth-first exploration of a :class:`StochasticGameModel` into a graph.

    Limits (``max_edges`` counts moves and outcomes), ``progress`` and errors as in
    :func:`~perfectplay.models.explore.chance.explore_chance`.

    >>> import itertools
    >>> class Endless:  # a chances() generator that never stops
    ...     start = 0
    ...     def moves(self, s): return ["go"]
    ...     def chances(self, s, m): return ((1, 1, True) for _ in itertools.count())
    >>> explore_stochastic(Endless(), max_per_call=100)
    Traceback (most recent call last):
    perfectplay.models.explore.limits.SpaceLimitError: Endless.chances(0, 'go') gave more than 100 outcomes in one call ...
    """  # noqa: E501
    hooks = _read_dice_model(model)
    limits = ExploreLimits.of(
        limits, max_states=max_states, max_edges=max_edges, max_per_call=max_per_call
    )
    budget = Budget(hooks.name, limits, "positions", progress)
    index = StateIndex(hooks.canonical)
    reps: list[Any] = []
    add_start(read_start(model), hooks.name, hooks.canonical, index, reps)
    found = _walk(hooks, budget, index, reps)
    budget.done(f"{len(reps):,} positions, {len(found.moves):,} moves")
    budget.check(len(reps), len(found.moves) + len(found.target), reps, index._keys)
    graph = _graph(found, reps, hooks.name)
    return StochasticExploration(graph, reps, index._ids, found.moves, hooks.canonical)


class _DiceHooks(NamedTuple):
    """A two-player dice model's callbacks and settings, read once."""

    name: str
    outcome: Callable[..., Any] | None
    moves: Callable[..., Any]
    chances: Callable[..., Any]
    canonical: Callable[..., Any] | None
    no_moves: Fraction  # the result of a mover without moves


def _read_dice_model(model: Any) -> _DiceHooks:
    inner = model_attribute(model, "inner")  # a fixed strategy's wrapper: the game's name
    name = model_name(model if inner is None else inner)
    outcome = method(model, "outcome", required=False)
    moves = method(model, "moves")
    chances = model_attribute(model, "chances")
    if not callable(chances):
        raise ModelError(f"{name} has no chances(state, move) method")
    canonical = method(model, "canonical", required=False)
    declared = model_attribute(model, "no_moves")
    no_moves = game_result("lose" if declared is None else declared, "(any)", f"{name}.no_moves")
    return _DiceHooks(name, outcome, moves, chances, canonical, no_moves)


class _Found(NamedTuple):
    """What :func:`_walk` read, in the graph's order (weights and flags as given)."""

    ends: list[int]  # the finished states
    end_values: list[Fraction]  # and their values
    choice_ptr: array[int]
    outcome_ptr: array[int]
    moves: list[Any]  # the move of each chance node
    target: array[int]
    weight: list[Any]
    passes: list[Any]


def _walk(hooks: _DiceHooks, budget: Budget, index: StateIndex, reps: list[Any]) -> _Found:
    """Visit every state from the start (numbered 0 in ``index`` already), breadth-first.

    One loop, with the model's callbacks and the buffers' methods in locals: it runs
    once per outcome. Each stage records in ``where`` what it is doing, for the message
    of a callback that fails.
    """
    name, outcome, moves_of, chances, canonical, no_moves = hooks
    meter = budget.meter
    ids, keys = index._ids, index._keys
    # The finished states and their values (most states are not finished).
    ends: list[int] = []
    end_values: list[Fraction] = []
    # Typed buffers: numpy reads them without a conversion per item.
    choice_ptr = array("q", [0])
    outcome_ptr = array("q", [0])
    move_list: list[Any] = []
    target = array("i")
    weight: list[Any] = []
    passes: list[Any] = []
    intern, reps_append, keys_append = ids.setdefault, reps.append, keys.append
    target_append, weight_append, passes_append = target.append, weight.append, passes.append
    max_states, max_edges = budget.max_states, budget.max_edges
    # A list this short cannot cross any limit but max_edges, so it is read without
    # counting items one by one; other iterables are counted as they come.
    short = min(budget.chunk_size, budget.max_per_call)
    n_moves = 0  # moves listed so far: the edges are the moves and their outcomes
    n = 1  # states numbered so far
    i = 0
    where, s, m, item, t = "", None, None, None, None
    try:
        while i < n:
            s = reps[i]
            i += 1
            if meter is not None and not i & 4095:
                meter.update(i, "positions", len(reps))
            r = None
            if outcome is not None:
                where = "outcome"
                r = outcome(s)
            if r is None:
                where = "moves"
                ms = moves_of(s)
                used = n_moves + len(target)
                if type(ms) is not list and type(ms) is not tuple:  # may never end
                    ms = list(budget.counted("moves", (s,), ms, used, reps, keys))
                elif len(ms) > short or used + len(ms) > max_edges:
                    budget.take("moves", (s,), len(ms), used, reps, keys)
                n_moves += len(ms)
                if not ms:
                    r = no_moves
            else:
                r = game_result(r, s, f"{name}.outcome")
            if r is not None:
                ends.append(i - 1)
                end_values.append(r)
                choice_ptr.append(len(move_list))
                continue
            for m in ms:
                where = "chances"
                got = chances(s, m)
                used = n_moves + len(target)
                if type(got) is not list:  # read as it comes: a generator may never end
                    if isinstance(got, Mapping):
                        got = _triples(name, (s, m), got)
                    got = budget.counted("chances", (s, m), got, used, reps, keys)
                elif len(got) > short or used + len(got) > max_edges:
                    budget.take("chances", (s, m), len(got), used, reps, keys)
                first = len(target)
                # Weights and flags are checked in bulk after the exploration.
                for item in got:
                    where = "unpack"
                    t, w, f = item
                    where = "canonical_chance"
                    key = t if canonical is None else canonical(t)
                    j = intern(key, n)
                    if j == n:
                        n += 1
                        reps_append(t)
                        keys_append(key)
                        if not j & CHECK_MASK or j >= max_states:
                            budget.check(n, n_moves + len(target), reps, keys)
                    target_append(j)
                    weight_append(w)
                    passes_append(f)
                    where = "chances"
                if len(target) == first:
                    raise ModelError(
                        f"{name}.chances({describe(s)}, {describe(m)}) gave no outcome"
                    )
                move_list.append(m)
                outcome_ptr.append(len(target))
            choice_ptr.append(len(move_list))
    except ModelError:
        raise
    except MODEL_EXCEPTIONS as exc:  # the model's own bug: one line naming the state
        if where == "unpack":
            raise ModelError(
                f"{call_text(name, 'chances', (s, m))} gave {describe(item)}; each outcome "
                "must be a triple (next_state, weight, passes)"
            ) from exc
        args = (s,) if where in ("outcome", "moves") else (s, m)
        value = t if where == "canonical_chance" else None
        raise callback_error(name, where, args, exc, canonical is not None, value) from exc
    return _Found(ends, end_values, choice_ptr, outcome_ptr, move_list, target, weight, passes)


def _graph(found: _Found, reps: list[Any], name: str) -> StochasticGraph:
    """The graph's arrays: results over a common scale, weights scaled per move."""
    import numpy as np

    from perfectplay.graphs.stochastic import StochasticGraph

    n, ends, end_values = len(reps), found.ends, found.end_values
    scale = lcm(2, *{r.denominator for r in end_values})
    terminal = np.zeros(n, np.bool_)
    terminal[ends] = True
    tval = np.zeros(n, np.int64)
    tval[ends] = [r.numerator * (scale // r.denominator) for r in end_values]
    op = np.frombuffer(found.outcome_ptr, np.int64)
    cp = np.frombuffer(found.choice_ptr, np.int64)
    w_arr = _weights(found.weight, op, cp, reps, found.moves, name)
    _check_passes(found.passes, op, cp, reps, found.moves, name)
    f_arr = np.fromiter(found.passes, np.bool_, len(found.passes))
    return StochasticGraph(
        terminal=terminal,
        terminal_value=tval,
        choice_ptr=cp,
        outcome_ptr=op,
        target=np.frombuffer(found.target, np.int32),
        weight=w_arr,
        passes=f_arr,
        scale=scale,
        draw_value=scale // 2,
    )


def _check_passes(
    passes: list[Any], op: Any, cp: Any, reps: list[Any], moves: list[Any], name: str
) -> None:
    """Refuse a ``passes`` flag that is not a bool (or 0 or 1): read by its truth value,
    ``"no"`` or ``"False"`` would pass the turn, and ``None`` keep it, without a word."""
    import numpy as np

    ok = {bool, np.bool_}
    if set(map(type, passes)) <= ok:  # the usual case, read in one pass
        return
    for e, f in enumerate(passes):
        if type(f) in ok or (type(f) is int and f in (0, 1)):
            continue
        c = int(np.searchsorted(op, e, side="right")) - 1
        p = int(np.searchsorted(cp, c, side="right")) - 1
        raise ModelError(
            f"{name}.chances({describe(reps[p])}, {describe(moves[c])}) gave passes "
            f"{describe(f)}: it is True (the other player moves next) or False"
        )


def _weights(
    weight: list[Any], op: Any, cp: Any, reps: list[Any], moves: list[Any], name: str
) -> Any:
    """``int64`` weights: checked in bulk; Fractions scaled to integers per move; a
    weight that is not a positive int or Fraction refused naming its state and move."""
    import numpy as np

    def where(e: int) -> str:
        c = int(np.searchsorted(op, e, side="right")) - 1
        p = int(np.searchsorted(cp, c, side="right")) - 1
        return f"{name}.chances({describe(reps[p])}, {describe(moves[c])})"

    if set(map(type, weight)) <= {int}:  # the usual case, read in one pass
        try:
            arr = np.frombuffer(array("q", weight), np.int64)
        except OverflowError:
            pass
        else:
            if arr.size == 0 or arr.min() > 0:
                return arr
    out = list(weight)
    for c in range(len(op) - 1):
        lo, hi = int(op[c]), int(op[c + 1])
        ws = out[lo:hi]
        for k, w in enumerate(ws):
            if isinstance(w, bool) or not isinstance(w, int | Fraction) or w <= 0:
                raise ModelError(
                    f"{where(lo + k)} gave weight {describe(w)}: weights are positive ints "
                    "or Fractions"
                )
        if any(type(w) is not int for w in ws):
            den = lcm(*(Fraction(w).denominator for w in ws))
            out[lo:hi] = [int(w * den) for w in ws]
        if max(out[lo:hi]) >= 1 << 62:
            raise ModelError(f"{where(lo)} gave weights over 2**62 (after scaling fractions)")
    return np.asarray(out, np.int64)
