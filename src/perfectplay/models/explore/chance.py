"""The chance explorer: a one-player dice model, visited breadth-first, becomes a chance graph.

Decision states and pending rolls are numbered densely by their canonical keys
(:class:`~perfectplay.graphs.canonical.StateIndex`) in the order they are met; a state
lists the rolls it may choose, a roll its outcomes with positive weights (merged by state
and scaled to integers per roll). The work is split by node: :meth:`_ChanceWalk.expand_roll`
reads one ``roll(pending)``, :meth:`_ChanceWalk.expand_state` one decision state, and
:meth:`_ChanceWalk.graph` turns the buffers into the graph's arrays at the end.

>>> class Die:  # roll one die until it shows a six
...     def start(self): return 0
...     def is_goal(self, s): return s == 6
...     def choices(self, s): return ["roll"]
...     def roll(self, p): return [(face, 1) for face in range(1, 7)]
>>> ex = explore_chance(Die())
>>> ex.graph.n_decision, ex.state_reps[:3], ex.graph.outcomes(0)[1].tolist(), ex.retry
(7, [0, 1, 2], [1, 1, 1, 1, 1, 1], True)
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

from perfectplay.errors import ModelError
from perfectplay.graphs.canonical import StateIndex
from perfectplay.models.explore.amounts import (
    MAX_COST,
    MAX_TOTAL_WEIGHT,
    amount,
    amount_hook,
    conflicting_amounts,
    integer_weights,
    model_objective,
    numerators,
    weight_of,
)
from perfectplay.models.explore.callbacks import (
    MODEL_EXCEPTIONS,
    add_start,
    callback_error,
    describe,
    exc_text,
    method,
    model_attribute,
    model_name,
    read_start,
)
from perfectplay.models.explore.collector import sparing_collector
from perfectplay.models.explore.limits import CHECK_MASK, Budget, ExploreLimits
from perfectplay.objectives import Objective

if TYPE_CHECKING:
    from perfectplay.graphs.chance import ChanceGraph

__all__ = ["ChanceExploration", "explore_chance"]


class ChanceExploration(NamedTuple):
    """The chance graph of a model and the tables that map it back to the user's objects.

    Attributes:
        graph: the chance graph (decision ids index ``states``, chance ids ``chances``).
        states: canonical keys of decision states, numbered densely.
        state_reps: one user state object per decision id (the first one met).
        chances: canonical keys of pending rolls (chance nodes).
        chance_reps: one user pending object per chance id.
        seconds: wall time of the exploration.
    """

    graph: ChanceGraph
    states: StateIndex
    state_reps: list[Any]
    chances: StateIndex
    chance_reps: list[Any]
    seconds: float

    @property
    def retry(self) -> bool:
        """Whether every outcome of every roll may choose that same roll again (the retry
        property, which lets the fast label-setting solver run): the graph's own check,
        :meth:`~perfectplay.graphs.chance.ChanceGraph.has_retry_property`."""
        return self.graph.has_retry_property()


class _ChanceHooks(NamedTuple):
    """A chance model's callbacks and settings, read once before the exploration."""

    name: str
    is_goal: Callable[..., Any]
    choices: Callable[..., Any]
    roll: Callable[..., Any]
    canonical: Callable[..., Any] | None
    canonical_choice: Callable[..., Any] | None
    objective: Objective
    value_of: Callable[..., Any] | None
    amount_name: str  # "cost" or "reward"
    amount_of: Callable[..., Any] | None
    sign: int  # with which the amount enters the outcome
    default_cost: int


def _read_chance_model(model: Any) -> _ChanceHooks:
    name = model_name(model)
    is_goal = method(model, "is_goal")
    choices = method(model, "choices")
    roll = method(model, "roll")
    canonical = method(model, "canonical", required=False)
    canonical_choice = method(model, "canonical_choice", required=False)
    objective = model_objective(model)
    value_of = method(model, "value", required=False)
    amount_name, amount_of, sign = amount_hook(model, objective)
    _refuse_game_methods(model)
    return _ChanceHooks(
        name, is_goal, choices, roll, canonical, canonical_choice, objective, value_of,
        amount_name, amount_of, sign, 1 if objective.measure == "cost" else 0,
    )  # fmt: skip


def _refuse_game_methods(model: Any) -> None:
    """A chance model with two-player methods mixes kinds: refuse it by name."""
    for attr in ("play", "moves", "outcome"):
        if callable(model_attribute(model, attr)):
            raise ModelError(
                f"{model_name(model)} is a chance model (it has roll()) but also defines "
                f"{attr}(), a two-player method; a model is one kind"
            )


@sparing_collector
def explore_chance(
    model: Any,
    *,
    max_states: int | None = None,
    max_edges: int | None = None,
    max_per_call: int | None = None,
    progress: bool = True,
    limits: ExploreLimits | None = None,
) -> ChanceExploration:
    """Visit every state reachable from the model's start; return its chance graph.

    ``limits`` (an :class:`~perfectplay.models.explore.limits.ExploreLimits`, default
    its defaults), with ``max_states``, ``max_edges`` and ``max_per_call`` replacing its
    fields when given: ``max_states`` bounds decision states plus pending rolls,
    ``max_edges`` the number of choices plus outcomes, ``max_per_call`` the items one call
    of ``choices`` or ``roll`` may give; crossing any of them, or the memory available,
    raises :class:`~perfectplay.models.explore.limits.SpaceLimitError`. Any other
    misbehaviour of the model raises :class:`~perfectplay.errors.ModelError` naming the
    method and the state. ``progress``: report the states found on stderr while reports
    are on (:func:`perfectplay.enable_progress`).

    >>> class Coin:  # toss a coin until heads
    ...     start = "toss"
    ...     def is_goal(self, s): return s == "heads"
    ...     def choices(self, s): return ["flip"]
    ...     def roll(self, p): return [("heads", 1), ("tails", 1)]
    >>> ex = explore_chance(Coin(), max_states=10)
    >>> ex.graph.n_decision, ex.graph.n_chance, ex.retry
    (3, 1, True)
    """
    t0 = time.perf_counter()
    hooks = _read_chance_model(model)
    limits = ExploreLimits.of(
        limits, max_states=max_states, max_edges=max_edges, max_per_call=max_per_call
    )
    walk = _ChanceWalk(hooks, Budget(hooks.name, limits, "states and rolls", progress))
    add_start(read_start(model), hooks.name, hooks.canonical, walk.states, walk.state_reps)
    walk.run()
    graph = walk.graph()
    return ChanceExploration(
        graph,
        walk.states,
        walk.state_reps,
        walk.chances,
        walk.chance_reps,
        time.perf_counter() - t0,
    )


class _ChanceWalk:
    """One breadth-first exploration of a chance model: the tables it fills as it goes.

    Rolls are expanded as soon as they are met (before the next decision state), so the
    ids of both kinds follow the breadth-first order of the model's own graph. The loops
    inline :meth:`StateIndex.add` on the indexes' own dicts and key lists (saving a method
    call and a tuple per edge), and count items down in ``edges_left`` (see
    :class:`~perfectplay.models.explore.limits.Budget`).
    """

    def __init__(self, hooks: _ChanceHooks, budget: Budget) -> None:
        self.hooks = hooks
        self.budget = budget
        self.states = StateIndex(hooks.canonical)
        self.chances = StateIndex(hooks.canonical_choice)
        self.state_reps: list[Any] = []
        self.chance_reps: list[Any] = []
        self.goal = bytearray()
        self.choice_ptr = array("q", [0])
        self.choice_idx = array("i")
        self.outcome_ptr = array("q", [0])
        self.outcome_idx = array("i")
        self.outcome_weight = array("q")
        self.costs: Any = array("q")  # a list once a cost is a Fraction or too large
        self.values: dict[int, int | Fraction] = {}  # nonzero terminal values by decision id
        self.second: dict[int, Any] = {}  # roll id -> another pending object with its key
        self.edges_left = budget.chunk

    def run(self) -> None:
        """Expand every node reachable from the start (numbered 0 already)."""
        state_reps, chance_reps = self.state_reps, self.chance_reps
        meter = self.budget.meter
        i = j = 0
        while True:
            if j < len(chance_reps):
                self.expand_roll(chance_reps[j])
                j += 1
            elif i < len(state_reps):
                self.expand_state(i, state_reps[i])
                i += 1
            else:
                break
            if meter is not None and not (i + j) & 1023:
                meter.update(len(state_reps) + len(chance_reps), "states and rolls")
        if self.second:
            self._check_second_declarations()
        self.budget.done(f"{len(state_reps):,} states, {len(chance_reps):,} rolls")

    def _n_nodes(self) -> int:
        return len(self.state_reps) + len(self.chance_reps)

    def _n_edges(self) -> int:
        return len(self.outcome_idx) + len(self.choice_idx)

    def expand_roll(self, pending: Any) -> None:
        """A pending roll: its outcomes with positive integer weights, merged by state."""
        hooks, budget = self.hooks, self.budget
        name, canonical = hooks.name, hooks.canonical
        state_ids, state_keys, state_reps = self.states._ids, self.states._keys, self.state_reps
        max_states, n_chances = budget.max_states, len(self.chance_reps)
        acc: dict[int, Any] = {}
        all_int = True
        where, s = "roll", None
        try:
            outs = hooks.roll(pending)
            edges_left = budget.begin("roll", (pending,), self.edges_left)
            if isinstance(outs, Mapping):  # {state: weight}, e.g. a Counter
                outs = outs.items()
            for item in outs:
                edges_left -= 1
                if edges_left < 0:
                    edges_left = budget.refill(self._n_nodes(), state_reps, state_keys)
                if type(item) is not tuple or len(item) != 2:
                    raise _malformed_outcome(name, pending, item)
                s, w = item
                if type(w) is not int:
                    w = _outcome_weight(name, pending, s, w)
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
                    if not sid & CHECK_MASK or sid + n_chances >= max_states:
                        budget.check(sid + 1 + n_chances, self._n_edges(), state_reps, state_keys)
                where = "roll"
                acc[sid] = acc.get(sid, 0) + w
        except ModelError:
            raise
        except MODEL_EXCEPTIONS as exc:
            raise callback_error(name, where, (pending,), exc, canonical is not None, s) from exc
        self.edges_left = edges_left
        self._add_outcomes(pending, acc if all_int else integer_weights(acc))

    def _add_outcomes(self, pending: Any, acc: dict[int, int]) -> None:
        name = self.hooks.name
        if not acc:
            raise ModelError(
                f"{name}.roll({describe(pending)}) gave no outcome with a positive "
                "weight (the weights must sum to a positive total)"
            )
        if sum(acc.values()) > MAX_TOTAL_WEIGHT:
            raise ModelError(
                f"{name}.roll({describe(pending)}): the weights sum to more than 2**62 "
                "after scaling to integers; use smaller weights"
            )
        self.outcome_idx.extend(acc.keys())
        self.outcome_weight.extend(acc.values())
        self.outcome_ptr.append(len(self.outcome_idx))

    def expand_state(self, i: int, state: Any) -> None:
        """Decision state ``i``: a goal (with its value), or the rolls it may choose."""
        hooks = self.hooks
        where, args = "is_goal", (state,)
        try:
            done = hooks.is_goal(state)
            if done is not True and done is not False and isinstance(done, str):
                raise ModelError(
                    f"{hooks.name}.is_goal({describe(state)}) returned {describe(done)}; "
                    "expected True or False (a chance model's goal is worth value(state) "
                    "under its objective, not a win or a loss)"
                )
            done = bool(done)  # read once, inside the guard: a user __bool__ may raise
            if done:
                self.goal.append(1)
                if hooks.value_of is not None:
                    where = "value"
                    v = amount(hooks.value_of(state), hooks.name, "value", state)
                    if v:
                        self.values[i] = v
        except ModelError:
            raise
        except MODEL_EXCEPTIONS as exc:
            raise callback_error(hooks.name, where, args, exc, False) from exc
        if not done:
            self.goal.append(0)
            self._expand_choices(state)
        self.choice_ptr.append(len(self.choice_idx))

    def _expand_choices(self, state: Any) -> None:
        """The rolls a non-goal state may choose: each numbered (a new one with its cost)."""
        hooks, budget = self.hooks, self.budget
        name, canonical_choice = hooks.name, hooks.canonical_choice
        chance_ids, chance_keys = self.chances._ids, self.chances._keys
        chance_reps, choice_idx = self.chance_reps, self.choice_idx
        where, args, pending = "choices", (state,), None
        try:
            edges_left = budget.begin("choices", args, self.edges_left)
            for pending in hooks.choices(state):
                edges_left -= 1
                if edges_left < 0:
                    edges_left = budget.refill(self._n_nodes(), self.state_reps, self.states._keys)
                where = "canonical_choice"
                key = pending if canonical_choice is None else canonical_choice(pending)
                cid = chance_ids.get(key)
                if cid is None:
                    cid = len(chance_keys)
                    chance_ids[key] = cid
                    chance_keys.append(key)
                    chance_reps.append(pending)
                    where = hooks.amount_name
                    self._add_cost(pending)
                    if not cid & CHECK_MASK or self._n_nodes() > budget.max_states:
                        budget.check(
                            self._n_nodes(), self._n_edges(), self.state_reps, self.states._keys
                        )
                elif pending is not chance_reps[cid]:
                    # One roll, one cost: a second declaration of the same roll with
                    # another amount would make the answer depend on the order met.
                    if hooks.amount_of is not None:
                        where = hooks.amount_name
                        self._same_amount(hooks.amount_of, cid, pending, key)
                    where = "choices"
                    # A different object merged by canonical_choice: its outcomes are
                    # checked once per roll after the exploration.
                    if canonical_choice is not None and cid not in self.second:
                        if pending != chance_reps[cid]:
                            self.second[cid] = pending
                where = "choices"
                choice_idx.append(cid)
        except ModelError:
            raise
        except MODEL_EXCEPTIONS as exc:
            if where == hooks.amount_name:
                args = (pending,)
            item = pending if where == "canonical_choice" else None
            raise callback_error(
                name, where, args, exc, canonical_choice is not None, item
            ) from exc
        self.edges_left = edges_left

    def _add_cost(self, pending: Any) -> None:
        """The cost of a new roll (``cost`` or ``reward`` times its sign, or the default)."""
        hooks = self.hooks
        if hooks.amount_of is None:
            self.costs.append(hooks.default_cost)
            return
        a = amount(hooks.amount_of(pending), hooks.name, hooks.amount_name, pending)
        if type(self.costs) is not list and (type(a) is not int or not -MAX_COST <= a <= MAX_COST):
            self.costs = list(self.costs)
        self.costs.append(a * hooks.sign)

    def _same_amount(self, amount_of: Callable[..., Any], cid: int, pending: Any, key: Any) -> None:
        """A second pending object with roll ``cid``'s key must declare the same amount."""
        hooks = self.hooks
        a = amount(amount_of(pending), hooks.name, hooks.amount_name, pending)
        if a * hooks.sign != self.costs[cid]:
            raise conflicting_amounts(
                hooks.name, hooks.amount_name, self.chance_reps[cid], pending,
                self.costs[cid] * hooks.sign, a, key,
            )  # fmt: skip

    def _check_second_declarations(self) -> None:
        """Refuse a roll whose outcomes differ between two pending objects with one
        ``canonical_choice`` key (the answer would depend on which was met first).

        One extra ``roll`` call per such roll: the second object met is compared with the
        representative, by the canonical keys of the outcomes and their probabilities.
        """
        name, roll, canonical = self.hooks.name, self.hooks.roll, self.hooks.canonical
        state_ids = self.states._ids
        for cid, pending in self.second.items():
            rep = self.chance_reps[cid]
            lo, hi = self.outcome_ptr[cid], self.outcome_ptr[cid + 1]
            first = dict(zip(self.outcome_idx[lo:hi], self.outcome_weight[lo:hi], strict=True))
            got: dict[int, Any] = {}
            try:
                outs = roll(pending)
                if isinstance(outs, Mapping):
                    outs = outs.items()
                for item in outs:
                    if type(item) is not tuple or len(item) != 2:
                        raise _malformed_outcome(name, pending, item)
                    s, w = item
                    w = _outcome_weight(name, pending, s, w)
                    if w <= 0:
                        continue
                    sid = state_ids.get(s if canonical is None else canonical(s), -1)
                    got[sid] = got.get(sid, 0) + w
            except ModelError:
                raise
            except MODEL_EXCEPTIONS as exc:
                raise ModelError(
                    f"{name}.roll({describe(pending)}) raised {exc_text(exc)}"
                ) from exc
            t1, t2 = sum(first.values()), sum(got.values())
            if got.keys() != first.keys() or any(first[k] * t2 != got[k] * t1 for k in first):
                raise ModelError(
                    f"{name}.roll({describe(pending)}) and {name}.roll({describe(rep)}) differ "
                    "but canonical_choice gives them the same key: one roll has one list of "
                    "outcomes (up to canonical())"
                )

    def graph(self) -> ChanceGraph:
        """The chance graph of what was explored, its amounts scaled to integers."""
        import numpy as np

        from perfectplay.graphs.chance import ChanceGraph

        hooks, n_states = self.hooks, len(self.state_reps)
        self.budget.check(self._n_nodes(), self._n_edges(), self.state_reps, self.states._keys)
        terminal = np.frombuffer(self.goal, dtype=np.bool_)
        cost_num, tv_num, scale = numerators(hooks.name, self.costs, self.values, n_states)
        if hooks.objective.measure == "probability":
            if hooks.value_of is None:
                tv_num = terminal.astype(np.int64)  # every goal is the event
            self._check_probabilities(terminal, tv_num, scale)
        return ChanceGraph(
            terminal=terminal,
            terminal_value=tv_num,
            choice_ptr=np.frombuffer(self.choice_ptr, dtype=np.int64),
            choice_idx=np.frombuffer(self.choice_idx, dtype=np.int32),
            outcome_ptr=np.frombuffer(self.outcome_ptr, dtype=np.int64),
            outcome_idx=np.frombuffer(self.outcome_idx, dtype=np.int32),
            outcome_weight=np.frombuffer(self.outcome_weight, dtype=np.int64),
            cost=cost_num,
            start=0,
            scale=scale,
            objective=hooks.objective,
        )

    def _check_probabilities(self, terminal: Any, tv_num: Any, scale: int) -> None:
        """A probability objective's goal values lie in 0..1."""
        import numpy as np

        if tv_num is None:
            return
        tv = tv_num[terminal]
        if tv.size and (int(tv.min()) < 0 or int(tv.max()) > scale):
            x = int(np.flatnonzero(terminal)[np.argmax((tv < 0) | (tv > scale))])
            bad = Fraction(int(tv_num[x]), scale)
            raise ModelError(
                f"{self.hooks.name}.value({describe(self.state_reps[x])}) returned "
                f"{describe(bad.numerator if bad.denominator == 1 else bad)}; a probability "
                "objective needs values between 0 and 1 (1 where the event happened)"
            )


def _outcome_weight(name: str, pending: Any, s: Any, w: Any) -> int | Fraction:
    """An outcome's weight, validated (see :func:`weight_of`), refused naming the roll."""
    try:
        return weight_of(w)
    except TypeError as exc:
        raise ModelError(
            f"{name}.roll({describe(pending)}): the weight {describe(w)} of outcome "
            f"{describe(s)} {exc}"
        ) from None


def _malformed_outcome(name: str, pending: Any, item: Any) -> ModelError:
    return ModelError(
        f"{name}.roll({describe(pending)}) gave {describe(item)}; each outcome must be a "
        "tuple (state, weight)"
    )
