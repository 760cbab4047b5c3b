"""The explorer: a user's Python model, visited breadth-first, becomes graph arrays.

A model describes a game through a few callbacks (see :mod:`perfectplay.models` for the
user-facing classes). The explorer calls them once per state, numbers states densely by
their canonical key (:class:`~perfectplay.graphs.canonical.StateIndex`) and appends edges to
flat typed buffers (``array.array``), which become numpy arrays once at the end without a
copy. Nothing per state survives except the key table and one representative state
object per id (the solution needs both to answer queries by the user's own states).

Exploration is bounded, so a model whose space is infinite cannot hang the program:
``max_states`` caps the number of nodes, ``max_edges`` the number of callback items in
all, ``max_per_call`` the items a single call of ``choices``, ``roll`` or ``moves`` may
give (so a generator that never stops is caught after a million items, not two hundred
million), and an estimate of the memory in use is checked against
:func:`perfectplay._util.memory.available_bytes` as the space grows. Every misbehaviour
of a callback becomes a :class:`~perfectplay.errors.ModelError` naming the method and the
state it was called with.

Chance models (one player, dice) give::

    start()                 the initial decision state (or a plain attribute)
    is_goal(state)          True when the game is over
    choices(state)          the rolls the player may choose between: "pending" objects,
                            e.g. the dice kept, which identify the roll
    roll(pending)           iterable of (state, weight), or a mapping state -> weight;
                            weights are positive ints or fractions.Fraction, scaled to
                            integers per roll
    objective               optional, an Objective (attribute or method; default
                            MIN_COST, the least expected total cost)
    value(state)            optional, the value of a goal state (int or Fraction;
                            default 0, or 1 under a probability objective)
    cost(pending)           optional, what a roll costs: an int or a Fraction, any sign
                            (default 1 when minimising a cost, else 0); it worsens the
                            outcome whatever the sense (see :func:`roll_amount_rule`)
    reward(pending)         optional, what a roll pays: improves the outcome (a model
                            defines cost or reward, not both)
    canonical(state)        optional, hashable key of the state's symmetry class
    canonical_choice(p)     optional, hashable key of a pending roll

Two-player models give ``start``, ``moves(position)``, ``play(position, move)``,
``outcome(position)`` (``None`` or ``"win"``/``"lose"``/``"tie"`` for the player to move),
optionally ``canonical`` and the class attribute ``no_moves`` (the outcome of a
non-terminal position without moves for the player to move, default ``"lose"``, the normal
play convention).

>>> class Coin:  # toss a coin until heads
...     start = "toss"
...     def is_goal(self, s): return s == "heads"
...     def choices(self, s): return ["flip"]
...     def roll(self, p): return [("heads", 1), ("tails", 1)]
>>> ex = explore_chance(Coin())
>>> ex.graph.n_decision, ex.graph.n_chance, ex.retry
(3, 1, True)
"""

from __future__ import annotations

import functools
import gc
import reprlib
import sys
import time
from array import array
from collections.abc import Callable, Hashable, Mapping
from fractions import Fraction
from math import lcm
from numbers import Integral, Rational
from typing import TYPE_CHECKING, Any, NamedTuple, ParamSpec, TypeVar, cast, overload

from perfectplay._util.memory import available_bytes, format_bytes
from perfectplay._util.progress import Progress
from perfectplay.errors import ModelError, ResourceLimitError
from perfectplay.graphs.canonical import StateIndex
from perfectplay.graphs.game import NOT_TERMINAL, GameGraph, Value
from perfectplay.objectives import MIN_COST, Objective

if TYPE_CHECKING:
    from perfectplay.graphs.chance import ChanceGraph

__all__ = [
    "DEFAULT_MAX_STATES",
    "DEFAULT_MAX_EDGES",
    "DEFAULT_MAX_PER_CALL",
    "MAX_TOTAL_WEIGHT",
    "MAX_COST",
    "SpaceLimitError",
    "ChanceExploration",
    "GameExploration",
    "explore_chance",
    "explore_game",
    "has_retry_property",
    "model_name",
    "model_objective",
    "roll_amount_rule",
    "describe",
    "start_state",
]

DEFAULT_MAX_STATES = 5_000_000
DEFAULT_MAX_EDGES = 200_000_000
DEFAULT_MAX_PER_CALL = 1_000_000
MAX_TOTAL_WEIGHT = 1 << 62
MAX_COST = 1 << 31

# How often (in new nodes) the memory estimate is checked; a power of two minus one.
_CHECK_MASK = (1 << 14) - 1
# Most callback items between two checks of the limits and the memory estimate (and two
# progress reports, which a single long call would otherwise hold up).
_EDGE_CHUNK = 1 << 16
# What the items of each method are, for messages.
_ITEMS = {"choices": "choices", "roll": "outcomes", "moves": "moves"}
# Bytes per edge: the typed buffer (int32 index, int64 weight for outcomes) plus the
# solvers' reverse adjacency built from it; an estimate, on the high side.
_EDGE_BYTES = 24
# Python overhead per state besides the key objects: dict slot, list slots, id ints.
_STATE_OVERHEAD = 120

_short = reprlib.Repr()
_short.maxstring = 60
_short.maxother = 60
_short.maxtuple = _short.maxlist = _short.maxset = _short.maxfrozenset = 12
_short.maxdict = 8
_short.maxlevel = 4


#: What a user's callback may raise that becomes a ModelError naming the callback. Beyond
#: ``Exception``: ``sys.exit()`` in a callback would otherwise end the command silently
#: with the model's status (``sys.exit(0)`` looks like success), and a stray
#: ``GeneratorExit`` would escape as a traceback. KeyboardInterrupt still interrupts.
_MODEL_EXCEPTIONS = (Exception, SystemExit, GeneratorExit)


def describe(obj: Any) -> str:
    """A short repr of a user object for error messages.

    >>> describe(tuple(range(100)))
    '(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ...)'
    """
    try:
        text = _short.repr(obj)
    except _MODEL_EXCEPTIONS:  # a user __repr__ that raises must not hide the real error
        return f"<{type(obj).__name__} object>"
    return text.replace(USER_MODULE_PREFIX, "")


def _value(obj: Any, width: int = 60) -> str:
    """:func:`describe` cut to about ``width`` characters (a value inside a sentence)."""
    text = describe(obj)
    return text if len(text) <= width else text[: width - 3] + "..."


# Python's cyclic garbage collector, left alone, walks every container still alive each
# time its oldest generation is collected, and an explorer keeps a growing table of
# states (about 10% of Dodgem 4x4's exploration). While an explorer runs, what it has kept
# is moved out of the collector's way at each budget check (gc.freeze) and young
# collections run less often; garbage with cycles made by the model's callbacks is still
# collected while young. Skipped where the caller has frozen objects or disabled the
# collector itself (their settings are theirs).
_YOUNG_THRESHOLD = 5000
_sparing = False  # whether an explorer runs under _sparing_collector now

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _sparing_collector(explore: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run an explorer with :func:`gc.freeze` at its budget checks (see above)."""

    @functools.wraps(explore)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        global _sparing
        if _sparing or not gc.isenabled() or gc.get_freeze_count():
            return explore(*args, **kwargs)
        threshold = gc.get_threshold()
        gc.set_threshold(max(threshold[0], _YOUNG_THRESHOLD), *threshold[1:])
        _sparing = True
        try:
            return explore(*args, **kwargs)
        finally:
            _sparing = False
            gc.unfreeze()
            gc.set_threshold(*threshold)

    return run


def _settle() -> None:
    """Move what the explorer holds now out of the collector's way, when it may."""
    if _sparing:
        gc.freeze()


class SpaceLimitError(ModelError, ResourceLimitError):
    """The model's state space grew past the state, edge or memory limit."""


#: Prefix of the module names under which ``perfectplay solve`` loads users' files (so a
#: file called ``random.py`` does not replace the standard module); hidden in messages.
USER_MODULE_PREFIX = "perfectplay_user_"


def model_name(model: Any) -> str:
    """The name used for a model in messages: its class name, or a module's name.

    >>> import fractions
    >>> model_name(fractions.Fraction(1)), model_name(fractions)
    ('Fraction', 'fractions')
    """
    if isinstance(model, type(sys)):
        return model.__name__.removeprefix(USER_MODULE_PREFIX)
    return type(model).__name__


def model_attribute(model: Any, attr: str) -> Any:
    """``getattr(model, attr, None)``, with a property that raises reported as the model's."""
    try:
        return getattr(model, attr, None)
    except _MODEL_EXCEPTIONS as exc:
        raise ModelError(
            f"{model_name(model)}: reading the attribute {attr} raised {_exc_text(exc)}"
        ) from exc


@overload
def _method(model: Any, name: str) -> Callable[..., Any]: ...


@overload
def _method(model: Any, name: str, required: bool) -> Callable[..., Any] | None: ...


def _method(model: Any, name: str, required: bool = True) -> Callable[..., Any] | None:
    fn = model_attribute(model, name)
    if fn is None:
        if required:
            raise ModelError(f"{model_name(model)} has no method {name}()")
        return None
    if not callable(fn):
        raise ModelError(f"{model_name(model)}.{name} is not callable")
    return fn


def start_state(model: Any) -> Any:
    """The model's start: ``model.start()`` when callable, else the attribute's value."""
    return _start(model)[0]


def _start(model: Any) -> tuple[Any, str]:
    """The start state and where it came from, for messages: ``"returned by M.start()"``
    or ``"the attribute M.start"``."""
    name = model_name(model)
    start = model_attribute(model, "start")
    if start is None:
        raise ModelError(f"{name} has no start (a method start() or an attribute)")
    if callable(start):
        try:
            return start(), f"returned by {name}.start()"
        except _MODEL_EXCEPTIONS as exc:
            raise ModelError(f"{name}.start() raised {_exc_text(exc)}") from exc
    return start, f"the attribute {name}.start"


def _exc_text(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _Budget:
    """Limits of one exploration, with the memory estimate that grows with it.

    The explorer loops count callback items down in one local counter per item and call
    :meth:`refill` when it runs out, so the limits cost one comparison per item. The
    counter's chunk ends exactly where a limit would be crossed (the per-call limit
    included), so every limit trips on the first item past it.
    """

    def __init__(
        self,
        name: str,
        max_states: int,
        max_edges: int,
        max_per_call: int,
        unit: str,
        meter: Progress | None,
    ) -> None:
        if not (1 <= max_states < 2**31 and 1 <= max_edges < 2**62 and 1 <= max_per_call):
            # ids are int32 in the graph arrays
            raise ValueError(
                "max_states must be 1..2**31-1, max_edges 1..2**62-1 and max_per_call >= 1"
            )
        self.name = name
        self.unit = unit
        self.max_states = max_states
        self.max_edges = max_edges
        self.max_per_call = max_per_call
        self.meter = meter
        self.memory = available_bytes()
        self.per_state = 0
        self.used = 0  # items of the chunks before the current one
        self.chunk = min(_EDGE_CHUNK, max_edges)
        # The callback being consumed (for messages) and the items used before it began.
        self.call: tuple[str, tuple[Any, ...]] = ("", ())
        self.mark = 0

    def begin(self, method: str, args: tuple[Any, ...], left: int, used: int | None = None) -> int:
        """A callback's iterator is about to be consumed; ``left`` is the loop's counter.

        ``used``, when given, is the number of items consumed so far (a loop that skips
        the counter for short lists knows it exactly) and ``left`` is ignored.
        Returns the counter to go on with: its chunk ends at the per-call limit.
        """
        self.used = self.used + self.chunk - left if used is None else used
        self.call = (method, args)
        self.mark = self.used
        self.chunk = min(_EDGE_CHUNK, self.max_edges - self.used, self.max_per_call)
        return self.chunk

    def _call_text(self) -> str:
        return _call(self.name, *self.call) if self.call[0] else self.name

    def refill(self, n_nodes: int, sample: list[Any], keys: list[Any]) -> int:
        """Account for a finished chunk (and the item that overran it); the next chunk."""
        self.used += self.chunk + 1
        in_call = self.used - self.mark
        if in_call > self.max_per_call:
            # A generator that never stops would otherwise run until the global limit.
            items = _ITEMS.get(self.call[0], "items")
            raise SpaceLimitError(
                f"{self._call_text()} gave more than {self.max_per_call:,} {items} in one "
                "call (the limit per call: max_per_call, --max-per-call); a finite model "
                "gives a finite list: does the generator ever stop?"
            )
        self.check(n_nodes, self.used, sample, keys)
        if self.meter is not None:
            self.meter.update(n_nodes, self.unit)
        self.chunk = min(_EDGE_CHUNK, self.max_edges - self.used, self.max_per_call - in_call)
        return self.chunk

    def check(self, n_nodes: int, n_edges: int, sample: list[Any], keys: list[Any]) -> None:
        _settle()
        if n_nodes > self.max_states:
            raise SpaceLimitError(
                f"{self.name}: more than {self.max_states:,} {self.unit}; the space may be "
                f"infinite (last state added: {describe(sample[-1])}); raise the limit "
                "(max_states, --max-states) if it is finite"
            )
        if n_edges > self.max_edges:
            raise SpaceLimitError(
                f"{self.name}: more than {self.max_edges:,} moves/outcomes in all (while "
                f"reading {self._call_text()}); raise the limit (max_edges, --max-edges) if "
                "the space is finite"
            )
        # Re-estimated at every check: states often grow as the exploration goes deeper.
        self.per_state = _STATE_OVERHEAD + _size_of_sample(sample, keys)
        need = n_nodes * self.per_state + n_edges * _EDGE_BYTES
        if need > self.memory:
            raise SpaceLimitError(
                f"{self.name}: {n_nodes:,} {self.unit} and {n_edges:,} edges already need about "
                f"{format_bytes(need)}, more than the {format_bytes(self.memory)} available "
                f"(last state added: {describe(sample[-1])})"
            )


def _deep_size(obj: Any, depth: int = 2) -> int:
    # Numbers are mostly shared (small ints are cached), so only containers and strings
    # count; the pointers to everything else are in the containers' own sizes.
    if isinstance(obj, tuple | list | frozenset | set):
        size = sys.getsizeof(obj)
        if depth:
            size += sum(_deep_size(x, depth - 1) for x in obj)
        return size
    if isinstance(obj, str | bytes):
        return sys.getsizeof(obj)
    return 0 if isinstance(obj, int | float) else sys.getsizeof(obj)


def _size_of_sample(reps: list[Any], keys: list[Any]) -> int:
    n = min(len(reps), 64)
    if n == 0:
        return 0
    total = 0
    for k in range(1, n + 1):
        total += _deep_size(reps[-k])
        if keys[-k] is not reps[-k]:  # a canonical key stored beside the state
            total += _deep_size(keys[-k])
    return total // n


class ChanceExploration(NamedTuple):
    """The chance graph of a model and the tables that map it back to the user's objects.

    Attributes:
        graph: the chance graph (decision ids index ``states``, chance ids ``chances``).
        states: canonical keys of decision states, numbered densely.
        state_reps: one user state object per decision id (the first one met).
        chances: canonical keys of pending rolls (chance nodes).
        chance_reps: one user pending object per chance id.
        retry: whether every outcome of every roll may choose that same roll again (the
            retry property, which lets the fast label-setting solver run).
        seconds: wall time of the exploration.
    """

    graph: ChanceGraph
    states: StateIndex
    state_reps: list[Any]
    chances: StateIndex
    chance_reps: list[Any]
    retry: bool
    seconds: float


def _weight_of(w: Any) -> int | Fraction:
    """Validate one outcome weight; ints pass through, exact rationals become Fractions."""
    if isinstance(w, bool):
        raise TypeError("is a bool")
    if isinstance(w, Integral):
        return int(w)
    if isinstance(w, Rational):
        return Fraction(int(w.numerator), int(w.denominator))
    if isinstance(w, float):
        raise TypeError("is a float; give an int or a fractions.Fraction so that it is exact")
    raise TypeError(f"is a {type(w).__name__}, not an int or a fractions.Fraction")


def _integer_weights(acc: dict[int, Any]) -> dict[int, int]:
    """Scale a roll's Fraction weights to integers by the common denominator."""
    den = 1
    for w in acc.values():
        if type(w) is not int:
            den = lcm(den, w.denominator)
    return {i: int(w * den) for i, w in acc.items()}


def model_objective(model: Any) -> Objective:
    """The model's :class:`~perfectplay.objectives.Objective`: its ``objective`` attribute
    (or the value its ``objective()`` method returns), :data:`MIN_COST` when absent.

    >>> class M:
    ...     objective = Objective.probability()
    >>> model_objective(M()).describe(), model_objective(object()).describe()
    ('maximise probability', 'minimise expected rolls')
    """
    obj = model_attribute(model, "objective")
    if obj is None:
        return MIN_COST
    name = model_name(model)
    if callable(obj) and not isinstance(obj, Objective):
        try:
            obj = obj()
        except _MODEL_EXCEPTIONS as exc:
            raise ModelError(f"{name}.objective() raised {_exc_text(exc)}") from exc
    if not isinstance(obj, Objective):
        raise ModelError(
            f"{name}.objective is {describe(obj)}, not an Objective (from perfectplay.models "
            "import Objective; Objective.score('max'), Objective.probability(), ...)"
        )
    return obj


def roll_amount_rule(objective: Objective, hook: str) -> int:
    """The sign with which ``cost(pending)`` or ``reward(pending)`` enters the outcome.

    One rule whatever the sense: a **cost worsens** the outcome and a **reward improves**
    it. When minimising, a cost adds to the outcome and a reward subtracts from it; when
    maximising, the reverse. So ``cost`` is the natural hook when minimising (rolls,
    points paid) and ``reward`` when maximising (points scored); a model defines at most
    one of them.

    >>> roll_amount_rule(MIN_COST, "cost"), roll_amount_rule(Objective.score(), "reward")
    (1, 1)
    >>> roll_amount_rule(Objective.score(), "cost"), roll_amount_rule(MIN_COST, "reward")
    (-1, -1)
    """
    return objective.orient * (1 if hook == "cost" else -1)


def _amount_hook(model: Any, objective: Objective) -> tuple[str, Callable[..., Any] | None, int]:
    """``(hook name, hook, sign)`` of the model's per-roll amount (``cost`` or ``reward``)."""
    name = model_name(model)
    cost = _method(model, "cost", required=False)
    reward = _method(model, "reward", required=False)
    if cost is not None and reward is not None:
        raise ModelError(
            f"{name} defines both cost() and reward(); define one (a cost worsens the outcome, "
            "a reward improves it)"
        )
    hook, fn = ("reward", reward) if reward is not None else ("cost", cost)
    if fn is not None and objective.measure == "probability":
        raise ModelError(
            f"{name} defines {hook}() but its objective is to {objective.describe()}: a "
            "probability has no per-roll amounts (mark the event with value(state))"
        )
    return hook, fn, roll_amount_rule(objective, hook)


def _refuse_game_methods(model: Any) -> None:
    """A chance model with two-player methods mixes kinds: refuse it by name."""
    for method in ("play", "moves", "outcome"):
        if callable(model_attribute(model, method)):
            raise ModelError(
                f"{model_name(model)} is a chance model (it has roll()) but also defines "
                f"{method}(), a two-player method; a model is one kind"
            )


def _amount(v: Any, name: str, method: str, arg: Any) -> int | Fraction:
    """Validate a value or cost returned by ``method(arg)``: an int or an exact rational."""
    if type(v) is int:
        return v
    try:
        return _weight_of(v)
    except TypeError as exc:
        raise ModelError(
            f"{name}.{method}({describe(arg)}) returned {describe(v)}; expected an int or a "
            f"fractions.Fraction (it {exc})"
        ) from None


def _conflicting_amounts(
    name: str, hook: str, first: Any, second: Any, a: Any, b: Any, key: Any
) -> ModelError:
    return ModelError(
        f"{name}.{hook}({describe(second)}) returned {describe(b)} but "
        f"{name}.{hook}({describe(first)}) returned {describe(a)} for the same roll "
        f"{describe(key)}; one roll has one {hook} (give the two choices different rolls)"
    )


def _numerators(
    name: str, costs: Any, values: dict[int, int | Fraction], n_states: int
) -> tuple[Any, Any, int]:
    """Integer numerators of the costs and terminal values over their common scale."""
    import numpy as np

    scale = 1
    for v in values.values():
        if type(v) is not int:
            scale = lcm(scale, v.denominator)
    if type(costs) is list:
        for c in costs:
            if type(c) is not int:
                scale = lcm(scale, c.denominator)
    limit = 1 << 62
    if type(costs) is list or scale != 1:
        nums = [int(c * scale) for c in costs]
        if nums and max(abs(min(nums)), abs(max(nums))) >= limit:
            raise ModelError(f"{name}: a cost is too large (over 2**62 after scaling to integers)")
        cost_num = np.array(nums, dtype=np.int64)
    else:
        cost_num = np.frombuffer(costs, dtype=np.int64)
    tv_num = None
    if values:
        tv_num = np.zeros(n_states, dtype=np.int64)
        for x, v in values.items():
            num = int(v * scale)
            if abs(num) >= limit:
                raise ModelError(f"{name}: a value is too large (over 2**62 after scaling)")
            tv_num[x] = num
    return cost_num, tv_num, scale


def _check_second_declarations(
    name: str,
    roll: Callable[..., Any],
    canonical: Callable[..., Any] | None,
    state_ids: dict[Any, int],
    chance_reps: list[Any],
    second: dict[int, Any],
    outcome_ptr: Any,
    outcome_idx: Any,
    outcome_weight: Any,
) -> None:
    """Refuse a roll whose outcomes differ between two pending objects with one
    ``canonical_choice`` key (the answer would depend on which was met first).

    One extra ``roll`` call per such roll: the second object met is compared with the
    representative, by the canonical keys of the outcomes and their probabilities.
    """
    for cid, pending in second.items():
        rep = chance_reps[cid]
        lo, hi = outcome_ptr[cid], outcome_ptr[cid + 1]
        first = dict(zip(outcome_idx[lo:hi], outcome_weight[lo:hi], strict=True))
        got: dict[int, Any] = {}
        try:
            outs = roll(pending)
            if isinstance(outs, Mapping):
                outs = outs.items()
            for item in outs:
                if type(item) is not tuple or len(item) != 2:
                    raise _malformed_outcome(name, pending, item)
                s, w = item
                try:
                    w = _weight_of(w)
                except TypeError as exc:
                    raise ModelError(
                        f"{name}.roll({describe(pending)}): the weight {describe(w)} of outcome "
                        f"{describe(s)} {exc}"
                    ) from None
                if w <= 0:
                    continue
                sid = state_ids.get(s if canonical is None else canonical(s), -1)
                got[sid] = got.get(sid, 0) + w
        except ModelError:
            raise
        except _MODEL_EXCEPTIONS as exc:
            raise ModelError(f"{name}.roll({describe(pending)}) raised {_exc_text(exc)}") from exc
        t1, t2 = sum(first.values()), sum(got.values())
        if got.keys() != first.keys() or any(first[k] * t2 != got[k] * t1 for k in first):
            raise ModelError(
                f"{name}.roll({describe(pending)}) and {name}.roll({describe(rep)}) differ but "
                "canonical_choice gives them the same key: one roll has one list of outcomes "
                "(up to canonical())"
            )


@_sparing_collector
def explore_chance(
    model: Any,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    max_edges: int = DEFAULT_MAX_EDGES,
    max_per_call: int = DEFAULT_MAX_PER_CALL,
    progress: bool = True,
) -> ChanceExploration:
    """Visit every state reachable from the model's start; return its chance graph.

    ``max_states`` bounds decision states plus pending rolls, ``max_edges`` the number of
    choices plus outcomes, ``max_per_call`` the items one call of ``choices`` or ``roll``
    may give; crossing any of them, or the memory available, raises
    :class:`SpaceLimitError`. Any other misbehaviour of the model raises
    :class:`~perfectplay.errors.ModelError` naming the method and the state.

    >>> class Die:  # roll one die until it shows a six
    ...     def start(self): return 0
    ...     def is_goal(self, s): return s == 6
    ...     def choices(self, s): return ["roll"]
    ...     def roll(self, p): return [(face, 1) for face in range(1, 7)]
    >>> ex = explore_chance(Die())
    >>> ex.graph.n_decision, ex.state_reps[:3], ex.graph.outcomes(0)[1].tolist()
    (7, [0, 1, 2], [1, 1, 1, 1, 1, 1])
    """
    import numpy as np

    from perfectplay.graphs.chance import ChanceGraph

    t0 = time.perf_counter()
    name = model_name(model)
    is_goal = _method(model, "is_goal")
    choices = _method(model, "choices")
    roll = _method(model, "roll")
    canonical = _method(model, "canonical", required=False)
    canonical_choice = _method(model, "canonical_choice", required=False)
    objective = model_objective(model)
    value_of = _method(model, "value", required=False)
    amount_name, amount_of, sign = _amount_hook(model, objective)
    default_cost = 1 if objective.measure == "cost" else 0
    _refuse_game_methods(model)
    meter = Progress(f"exploring {name}") if progress else None
    budget = _Budget(name, max_states, max_edges, max_per_call, "states and rolls", meter)

    states = StateIndex(canonical)
    chances = StateIndex(canonical_choice)
    state_reps: list[Any] = []
    chance_reps: list[Any] = []
    goal = bytearray()
    choice_ptr = array("q", [0])
    choice_idx = array("i")
    outcome_ptr = array("q", [0])
    outcome_idx = array("i")
    outcome_weight = array("q")
    costs: Any = array("q")  # a list once a cost is a Fraction or too large
    values: dict[int, int | Fraction] = {}  # nonzero terminal values by decision id
    second: dict[int, Any] = {}  # roll id -> another pending object with the same key
    # The loop below runs once per state and edge, so it inlines StateIndex.add on the
    # index's own dict and key list (saving a method call and a tuple per edge).
    state_ids = states._ids
    state_keys = states._keys
    chance_ids = chances._ids
    chance_keys = chances._keys
    edges_left = budget.chunk
    check_mask = _CHECK_MASK

    _add_start(_start(model), name, canonical, states, state_reps)
    i = j = 0
    where, args = "", cast(tuple[Any, ...], ())
    try:
        while True:
            if j < len(chance_reps):
                # A pending roll: its cost and its outcomes with integer weights.
                pending = chance_reps[j]
                args = (pending,)
                where = "roll"
                acc: dict[int, Any] = {}
                all_int = True
                outs = roll(pending)
                edges_left = budget.begin("roll", args, edges_left)
                if isinstance(outs, Mapping):  # {state: weight}, e.g. a Counter
                    outs = outs.items()
                for item in outs:
                    edges_left -= 1
                    if edges_left < 0:
                        n = len(state_keys) + len(chance_keys)
                        edges_left = budget.refill(n, state_reps, state_keys)
                    if type(item) is not tuple or len(item) != 2:
                        raise _malformed_outcome(name, pending, item)
                    s, w = item
                    if type(w) is not int:
                        try:
                            w = _weight_of(w)
                        except TypeError as exc:
                            raise ModelError(
                                f"{name}.roll({describe(pending)}): the weight {describe(w)} "
                                f"of outcome {describe(s)} {exc}"
                            ) from None
                        if type(w) is not int:
                            all_int = False
                    if w <= 0:
                        if w < 0:
                            raise ModelError(
                                f"{name}.roll({describe(pending)}): negative weight "
                                f"{describe(w)} for outcome {describe(s)}"
                            )
                        continue
                    where = "canonical"
                    key = s if canonical is None else canonical(s)
                    sid = state_ids.get(key)
                    if sid is None:
                        sid = len(state_keys)
                        state_ids[key] = sid
                        state_keys.append(key)
                        state_reps.append(s)
                        if not sid & check_mask or sid + len(chance_keys) >= max_states:
                            budget.check(
                                sid + 1 + len(chance_keys),
                                len(outcome_idx) + len(choice_idx),
                                state_reps,
                                state_keys,
                            )
                    where = "roll"
                    acc[sid] = acc.get(sid, 0) + w
                if not acc:
                    raise ModelError(
                        f"{name}.roll({describe(pending)}) gave no outcome with a positive "
                        "weight (the weights must sum to a positive total)"
                    )
                if not all_int:
                    acc = _integer_weights(acc)
                if sum(acc.values()) > MAX_TOTAL_WEIGHT:
                    raise ModelError(
                        f"{name}.roll({describe(pending)}): the weights sum to more than 2**62 "
                        "after scaling to integers; use smaller weights"
                    )
                outcome_idx.extend(acc.keys())
                outcome_weight.extend(acc.values())
                outcome_ptr.append(len(outcome_idx))
                j += 1
                if meter is not None and not (i + j) & 1023:
                    meter.update(len(state_keys) + len(chance_keys), "states and rolls")
            elif i < len(state_reps):
                # A decision state: a goal, or the rolls it may choose.
                state = state_reps[i]
                args = (state,)
                where = "is_goal"
                done = is_goal(state)
                if done is not True and done is not False and isinstance(done, str):
                    raise ModelError(
                        f"{name}.is_goal({describe(state)}) returned {describe(done)}; "
                        "expected True or False (a chance model's goal is worth value(state) "
                        "under its objective, not a win or a loss)"
                    )
                if done:
                    goal.append(1)
                    if value_of is not None:
                        where = "value"
                        v = _amount(value_of(state), name, "value", state)
                        if v:
                            values[i] = v
                else:
                    goal.append(0)
                    where = "choices"
                    edges_left = budget.begin("choices", args, edges_left)
                    for pending in choices(state):
                        edges_left -= 1
                        if edges_left < 0:
                            n = len(state_keys) + len(chance_keys)
                            edges_left = budget.refill(n, state_reps, state_keys)
                        where = "canonical_choice"
                        key = pending if canonical_choice is None else canonical_choice(pending)
                        cid = chance_ids.get(key)
                        if cid is None:
                            cid = len(chance_keys)
                            chance_ids[key] = cid
                            chance_keys.append(key)
                            chance_reps.append(pending)
                            if amount_of is not None:
                                where = amount_name  # args: (pending,), see below
                                a = _amount(amount_of(pending), name, amount_name, pending)
                                if type(a) is not int or not -MAX_COST <= a <= MAX_COST:
                                    if type(costs) is not list:
                                        costs = list(costs)
                                costs.append(a * sign)
                            else:
                                costs.append(default_cost)
                            if not cid & check_mask or cid + len(state_keys) >= max_states:
                                budget.check(
                                    cid + 1 + len(state_keys),
                                    len(outcome_idx) + len(choice_idx),
                                    state_reps,
                                    state_keys,
                                )
                        elif pending is not chance_reps[cid]:
                            # One roll, one cost: a second declaration of the same roll
                            # with another amount would make the answer depend on order.
                            if amount_of is not None:
                                where = amount_name  # args: (pending,), see below
                                a = _amount(amount_of(pending), name, amount_name, pending)
                                if a * sign != costs[cid]:
                                    raise _conflicting_amounts(
                                        name, amount_name, chance_reps[cid], pending,
                                        costs[cid] * sign, a, key,
                                    )  # fmt: skip
                            # A different object merged by canonical_choice: its outcomes
                            # are checked once per roll after the exploration.
                            if canonical_choice is not None and cid not in second:
                                where = "choices"
                                if pending != chance_reps[cid]:
                                    second[cid] = pending
                        where = "choices"
                        choice_idx.append(cid)
                choice_ptr.append(len(choice_idx))
                i += 1
                if meter is not None and not (i + j) & 1023:
                    meter.update(len(state_keys) + len(chance_keys), "states and rolls")
            else:
                break
    except ModelError:
        raise
    except _MODEL_EXCEPTIONS as exc:
        if where == amount_name:  # the hook's argument, not kept in args (a tuple per choice)
            args = (pending,)
        keyed = (canonical_choice if where == "canonical_choice" else canonical) is not None
        # The object being keyed, when the failure was in keying it.
        item = s if where == "canonical" else pending if where == "canonical_choice" else None
        raise _callback_error(name, where, args, exc, keyed, item) from exc
    if second:
        _check_second_declarations(
            name, roll, canonical, state_ids, chance_reps, second, outcome_ptr, outcome_idx,
            outcome_weight,
        )  # fmt: skip
    if meter is not None:
        meter.done(f"{len(state_keys):,} states, {len(chance_keys):,} rolls")

    n_edges = len(choice_idx) + len(outcome_idx)
    budget.check(len(state_keys) + len(chance_keys), n_edges, state_reps, state_keys)
    terminal = np.frombuffer(goal, dtype=np.bool_)
    cost_num, tv_num, scale = _numerators(name, costs, values, len(state_keys))
    if objective.measure == "probability" and value_of is None:
        tv_num = terminal.astype(np.int64)  # every goal is the event
    if objective.measure == "probability" and tv_num is not None:
        tv = tv_num[terminal]
        if tv.size and (int(tv.min()) < 0 or int(tv.max()) > scale):
            x = int(np.flatnonzero(terminal)[np.argmax((tv < 0) | (tv > scale))])
            bad = Fraction(int(tv_num[x]), scale)
            raise ModelError(
                f"{name}.value({describe(state_reps[x])}) returned "
                f"{describe(bad.numerator if bad.denominator == 1 else bad)}; a probability "
                "objective needs "
                "values between 0 and 1 (1 where the event happened)"
            )
    graph = ChanceGraph(
        terminal=terminal,
        terminal_value=tv_num,
        choice_ptr=np.frombuffer(choice_ptr, dtype=np.int64),
        choice_idx=np.frombuffer(choice_idx, dtype=np.int32),
        outcome_ptr=np.frombuffer(outcome_ptr, dtype=np.int64),
        outcome_idx=np.frombuffer(outcome_idx, dtype=np.int32),
        outcome_weight=np.frombuffer(outcome_weight, dtype=np.int64),
        cost=cost_num,
        start=0,
        scale=scale,
        objective=objective,
    )
    return ChanceExploration(
        graph=graph,
        states=states,
        state_reps=state_reps,
        chances=chances,
        chance_reps=chance_reps,
        retry=has_retry_property(graph),
        seconds=time.perf_counter() - t0,
    )


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


_OUTCOMES = {"win": Value.WIN, "lose": Value.LOSE, "tie": Value.TIE}
# The codes of the usual spellings, looked up without a call per finished position.
_CODES = {word: int(v) for word, v in _OUTCOMES.items()}


def outcome_code(result: Any) -> int:
    """The terminal code of a model's result: ``"win"``, ``"lose"``, ``"tie"`` (any case).

    :class:`~perfectplay.graphs.game.Value` members are accepted too.

    >>> outcome_code("Lose") == Value.LOSE
    True
    """
    if isinstance(result, Value):
        if result == Value.DRAW:
            raise ValueError("a finished game cannot be a draw; a draw is a game that never ends")
        return int(result)
    if isinstance(result, str) and result.lower() in _OUTCOMES:
        return int(_OUTCOMES[result.lower()])
    raise ValueError(f"expected None, 'win', 'lose' or 'tie', not {describe(result)}")


@_sparing_collector
def explore_game(
    model: Any,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    max_edges: int = DEFAULT_MAX_EDGES,
    max_per_call: int = DEFAULT_MAX_PER_CALL,
    progress: bool = True,
) -> GameExploration:
    """Visit every position reachable from the model's start; return its game graph.

    The arrays are ``array.array`` buffers (no numpy needed; the retrograde solver takes
    them as they are). Limits and errors as in :func:`explore_chance`.

    >>> class Take:  # a pile of 4; take 1 or 2; whoever cannot move loses
    ...     start = 4
    ...     def moves(self, n): return [k for k in (1, 2) if k <= n]
    ...     def play(self, n, k): return n - k
    ...     def outcome(self, n): return None
    >>> ex = explore_game(Take())
    >>> ex.reps, list(ex.graph.moves(0))
    ([4, 3, 2, 1, 0], [1, 2])
    """
    t0 = time.perf_counter()
    name = model_name(model)
    moves = _method(model, "moves")
    play = _method(model, "play")
    outcome = _method(model, "outcome", required=False)
    canonical = _method(model, "canonical", required=False)
    declared = model_attribute(model, "no_moves")
    try:
        no_moves = outcome_code("lose" if declared is None else declared)
    except ValueError as exc:
        raise ModelError(f"{name}.no_moves: {exc}") from None
    meter = Progress(f"exploring {name}") if progress else None
    budget = _Budget(name, max_states, max_edges, max_per_call, "positions", meter)

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
    check_mask = _CHECK_MASK
    # A list or tuple of moves this short cannot cross any limit but max_edges, so it is
    # read without counting items one by one; other iterables are counted as they come.
    short = min(_EDGE_CHUNK, max_per_call)

    _add_start(_start(model), name, canonical, positions, reps)
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
                        call = _call(name, "outcome", (position,))
                        raise ModelError(f"{call} returned: {exc}") from None
                terminal.append(code)
            else:
                where = "moves"
                listed = moves(position)
                before = len(children)
                if (
                    (type(listed) is list or type(listed) is tuple)
                    and len(listed) <= short
                    and before + len(listed) <= max_edges
                ):
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
                            if not c & check_mask or c >= max_states:
                                budget.check(n, len(children), reps, keys)
                        children.append(c)
                else:
                    edges_left = budget.begin("moves", (position,), 0, before)
                    for move in listed:
                        edges_left -= 1
                        if edges_left < 0:
                            edges_left = budget.refill(n, reps, keys)
                        where = "play"
                        child = play(position, move)
                        where = "canonical_play"
                        key = child if canonical is None else canonical(child)
                        c = intern(key, n)
                        if c == n:
                            n += 1
                            keys.append(key)
                            reps.append(child)
                            if not c & check_mask or c >= max_states:
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
    except _MODEL_EXCEPTIONS as exc:
        args = (position, move) if where in ("play", "canonical_play") else (position,)
        item = child if where == "canonical_play" else None
        raise _callback_error(name, where, args, exc, canonical is not None, item) from exc
    if meter is not None:
        meter.done(f"{len(keys):,} positions")
    budget.check(len(keys), len(children), reps, keys)
    graph = GameGraph(indptr, children, terminal, 0, positions)
    return GameExploration(graph, positions, reps, time.perf_counter() - t0)


def _add_start(
    start: tuple[Any, str],
    name: str,
    canonical: Callable[[Any], Hashable] | None,
    index: StateIndex,
    reps: list[Any],
) -> None:
    state, source = start
    try:
        index.add(state)
    except _MODEL_EXCEPTIONS as exc:
        raise _state_error(name, exc, state, source, canonical) from exc
    reps.append(state)


def has_retry_property(graph: ChanceGraph) -> bool:
    """Whether every non-goal outcome of every roll may choose that roll again.

    Vectorised: the (decision, chance) pairs of outcome edges must all be choice edges.

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> g = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1), (0, 1)]])
    >>> has_retry_property(g)
    True
    """
    import numpy as np

    nd, nc = graph.n_decision, graph.n_chance
    if nc == 0:
        return True
    choice_x = np.repeat(np.arange(nd, dtype=np.int64), np.diff(graph.choice_ptr))
    # Sorted, duplicates kept: searchsorted needs no more (np.unique, on numpy 2.4, hashes
    # about 100x slower than this sort on a million keys).
    have = np.sort(choice_x * nc + graph.choice_idx)
    out_c = np.repeat(np.arange(nc, dtype=np.int64), np.diff(graph.outcome_ptr))
    out_x = graph.outcome_idx.astype(np.int64)
    keep = ~graph.goal[out_x]
    need = out_x[keep] * nc + out_c[keep]
    if need.size == 0:
        return True
    pos = np.searchsorted(have, need)
    pos[pos == have.size] = 0
    return bool(np.all(have[pos] == need)) if have.size else False


def _malformed_outcome(name: str, pending: Any, item: Any) -> ModelError:
    return ModelError(
        f"{name}.roll({describe(pending)}) gave {describe(item)}; each outcome must be a "
        "tuple (state, weight)"
    )


def _call(name: str, method: str, args: tuple[Any, ...]) -> str:
    return f"{name}.{method}({', '.join(describe(a) for a in args)})"


def _unhashable(exc: BaseException) -> bool:
    return isinstance(exc, TypeError) and "unhashable" in str(exc)


def _state_error(
    name: str,
    exc: BaseException,
    state: Any,
    source: str,
    canonical: Callable[[Any], Hashable] | None,
) -> ModelError:
    """The error for a start state that cannot be keyed; ``source`` says where it came
    from (see :func:`_start`)."""
    shown = _value(state)
    if _unhashable(exc):
        what = "its canonical key" if canonical is not None else "it"
        return ModelError(
            f"the start state {shown} ({source}) is not hashable: {what} cannot be hashed "
            f"({exc}); use tuples, frozensets or other immutable values"
        )
    if canonical is not None:
        return ModelError(f"{name}.canonical({shown}) raised {_exc_text(exc)}")
    # No canonical(): the state itself was hashed (its __hash__ or __eq__ raised).
    return ModelError(f"hashing the start state {shown} ({source}) raised {_exc_text(exc)}")


# What each stage of the explorer loops was doing, for error messages: the method called
# (with the arguments recorded in ``args``) or the key lookup that followed it.
_KEYING = {
    "canonical": ("roll", "an outcome", "canonical", "states"),
    "canonical_choice": ("choices", "a choice", "canonical_choice", "choices"),
    "canonical_play": ("play", "the position", "canonical", "positions"),
}


def _callback_error(
    name: str,
    where: str,
    args: tuple[Any, ...],
    exc: BaseException,
    keyed: bool,
    value: Any = None,
) -> ModelError:
    """The ModelError for an exception raised at stage ``where`` of an explorer loop.

    ``keyed`` says whether the model has the canonical function used at that stage;
    ``value`` is the object being keyed at a keying stage (shown cut short).
    """
    if where in _KEYING:
        method, item, canon, plural = _KEYING[where]
        call = _call(name, method, args)
        shown = _value(value)
        if _unhashable(exc):
            if keyed:
                return ModelError(
                    f"{call} returned {item} {shown} whose {canon}() key cannot be hashed "
                    f"({exc}); {canon} keys must be immutable (tuples, frozensets, ...)"
                )
            return ModelError(
                f"{call} returned {item} {shown} that cannot be hashed ({exc}); {plural} "
                "must be immutable (tuples, frozensets, ...)"
            )
        if not keyed:  # no canonical(): the lookup hashed and compared the object itself
            return ModelError(f"hashing {item} {shown} returned by {call} raised {_exc_text(exc)}")
        return ModelError(f"{name}.{canon}({shown}) raised {_exc_text(exc)} on {item} of {call}")
    call = _call(name, where, args)
    if (
        isinstance(exc, TypeError)
        and "not iterable" in str(exc)
        and where
        in (
            "choices",
            "roll",
            "moves",
        )
    ):
        return ModelError(f"{call} did not return an iterable: {exc}")
    return ModelError(f"{call} raised {_exc_text(exc)}")
