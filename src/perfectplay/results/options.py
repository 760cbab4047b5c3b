"""Options and their ranking: the one way every solved thing lists what a player may do.

An :class:`Option` is a choice (a keep, a box, a move, a hold) with what it is worth, how
much worse it is than the best (its *regret*), a label a person reads and, where one state
follows, the state it leads to. :func:`rank_options` orders options whose values are
numbers (expected costs, scores, winning chances) and :func:`rank_moves` those of a game
without dice, whose values are outcomes with remoteness; both mark the options tied with
the best (``best=True``), so ties show as ties, and both are used by every result, live
or loaded from disk.

Floats tie by one rule, :func:`is_tie` (:data:`TIE_TOLERANCE`).

>>> [(o.label, o.value, o.regret, o.best) for o in rank_options(["a", "b"], [2.0, 1.0], "b")]
[('b', 1.0, 0.0, True), ('a', 2.0, 1.0, False)]
>>> moves = rank_moves(["x", "y"], [Result(Outcome.LOSE, 2), Result(Outcome.WIN, 1)])
>>> [(o.action, str(o.value), o.regret) for o in moves]
[('y', 'WIN in 1', 0.0), ('x', 'LOSE in 2', 1.0)]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from perfectplay.graphs.game import Outcome, move_rank

__all__ = [
    "TIE_TOLERANCE",
    "Option",
    "Outcome",
    "Result",
    "is_tie",
    "label_of",
    "outcome_score",
    "rank_moves",
    "rank_options",
    "result_of",
    "value_json",
]

TIE_TOLERANCE = 1e-9
"""The one float tie rule of the package: two values tie when they differ by at most this
much relative to the larger magnitude (absolute below 1).

The solvers' floats carry about 1e-12 relative error, so values that are really equal
always tie, while real differences in the gallery and the examples are far larger; where a
decision must be right beyond doubt, exact values decide in rationals."""


def is_tie(a: float, b: float) -> bool:
    """Whether two float values are equal up to :data:`TIE_TOLERANCE` (infinities tie only
    with themselves).

    >>> is_tie(1.0, 1.0 + 1e-12), is_tie(1.0, 1.001), is_tie(math.inf, math.inf)
    (True, False, True)
    """
    if a == b:
        return True
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    return abs(a - b) <= TIE_TOLERANCE * max(1.0, abs(a), abs(b))


class Result(NamedTuple):
    """A position's outcome for the player to move and its remoteness (``None``: a draw)."""

    value: Outcome
    remoteness: int | None

    def __str__(self) -> str:
        word = str(self.value).upper()
        return word if self.remoteness is None else f"{word} in {self.remoteness}"


def result_of(value: int, remoteness: int) -> Result:
    """The :class:`Result` of an outcome code and a stored remoteness (ignored for a draw)."""
    v = Outcome(int(value))
    return Result(v, None if v == Outcome.DRAW else int(remoteness))


def outcome_score(outcome: Outcome) -> float:
    """What an outcome is worth to its player, for regrets: a win 1, a tie or a draw 1/2, a
    loss 0 (a game without dice has no finer value; remoteness orders, it does not score).

    >>> [outcome_score(o) for o in (Outcome.WIN, Outcome.TIE, Outcome.DRAW, Outcome.LOSE)]
    [1.0, 0.5, 0.5, 0.0]
    """
    return {Outcome.WIN: 1.0, Outcome.LOSE: 0.0}.get(Outcome(outcome), 0.5)


def label_of(action: Any) -> str:
    """The text a person reads for a model's own choice or move: a string as it is, anything
    else as its ``repr`` (``(2, 2)``, ``3``)."""
    return action if isinstance(action, str) else repr(action)


@dataclass(frozen=True)
class Option:
    """One thing the player may do and what it is worth.

    Attributes:
        action: the choice itself: the model's own choice or move object (for a result
            queried by node id, the node id; for a Yahtzee rule set, the option's text).
        value: its value: a float in the objective's unit (expected cost, score, winning
            chance of the player making it), or for a game without dice a :class:`Result`
            (outcome and remoteness for the player making the move).
        regret: how much worse than the best option it is, in the same unit (``0.0`` for
            the best; for a game without dice the difference of :func:`outcome_score`).
        label: the text a person reads (``"keep 3 3"``, ``"(2, 2)"``, ``"hold"``).
        state: the state it leads to where one state does (a move of a game without
            dice, a compiled model's move after a throw), else ``None`` (a choice whose
            dice decide what follows: a keep, a roll, a hold).
        best: whether it is tied with the best option (several can be).
    """

    action: Any
    value: Any
    regret: float = 0.0
    label: str = ""
    state: Any = None
    best: bool = False

    @property
    def choice(self) -> Any:
        """The same as :attr:`action` (its name before the result surface was one)."""
        return self.action

    @property
    def move(self) -> Any:
        """The same as :attr:`action` (its name before the result surface was one)."""
        return self.action

    @property
    def remoteness(self) -> int | None:
        """For a game without dice, the value's remoteness (``None`` otherwise)."""
        return self.value.remoteness if isinstance(self.value, Result) else None

    def to_json(self) -> dict[str, Any]:
        """The option as JSON data: what a page or another program needs and nothing more.

        >>> Option("hold", 0.75, 0.125, "hold", None, False).to_json()
        {'action': 'hold', 'value': 0.75, 'regret': 0.125, 'best': False}
        >>> Option(3, Result(Outcome.WIN, 1), 0.0, "3", 1, True).to_json()["value"]
        {'outcome': 'win', 'remoteness': 1}
        """
        regret: Any = self.regret if math.isfinite(self.regret) else "inf"
        return {
            "action": self.label, "value": value_json(self.value), "regret": regret,
            "best": self.best,
        }  # fmt: skip


def value_json(value: Any) -> Any:
    """A value as JSON data: a game's outcome as ``{"outcome", "remoteness"}``, a float as
    itself, ``"inf"``/``"-inf"`` (JSON has no infinity) or ``None`` for NaN.

    >>> value_json(Result(Outcome.DRAW, None)), value_json(2.5), value_json(math.inf)
    ({'outcome': 'draw', 'remoteness': None}, 2.5, 'inf')
    """
    if isinstance(value, Result):
        return {"outcome": str(value.value), "remoteness": value.remoteness}
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def _regret(best: float, value: float, maximise: bool) -> float:
    if is_tie(best, value):
        return 0.0
    gap = best - value if maximise else value - best
    return gap if not math.isnan(gap) else math.inf


def rank_options(
    actions: Sequence[Any],
    values: Sequence[float],
    policy: Any = None,
    maximise: bool = False,
    *,
    labels: Sequence[str] | None = None,
    states: Sequence[Any] | None = None,
) -> list[Option]:
    """Options with number values, best first: by value in the objective's sense, the
    policy's choice first among equal values, then in the order given. Regrets are
    measured from the best; options that tie with it (:func:`is_tie`) are ``best``, unless
    the best is infinite in the wrong direction (no goal can be reached: nothing is best).

    >>> [o.action for o in rank_options(["a", "b", "c"], [2.0, 1.0, 1.0], "c")]
    ['c', 'b', 'a']
    >>> [o.best for o in rank_options(["a", "b"], [math.inf, math.inf])]
    [False, False]
    """
    sign = -1.0 if maximise else 1.0
    order = sorted(range(len(actions)), key=lambda k: (sign * values[k], actions[k] != policy))
    if not order:
        return []
    top = float(values[order[0]])
    hopeless = top == (-math.inf if maximise else math.inf)
    out = []
    for k in order:
        v = float(values[k])
        out.append(
            Option(
                actions[k],
                v,
                _regret(top, v, maximise),
                labels[k] if labels is not None else label_of(actions[k]),
                states[k] if states is not None else None,
                not hopeless and is_tie(v, top),
            )
        )
    return out


def rank_moves(
    actions: Sequence[Any],
    values: Sequence[Result],
    *,
    labels: Sequence[str] | None = None,
    states: Sequence[Any] | None = None,
) -> list[Option]:
    """Moves of a game without dice, best first for the mover: quick wins, quick ties,
    draws, slow losses (stable). ``best`` marks the moves that achieve the position's
    outcome *and* remoteness; regrets compare outcomes only (:func:`outcome_score`)."""
    order = sorted(range(len(actions)), key=lambda k: move_rank(*values[k]))
    if not order:
        return []
    top = values[order[0]]
    top_rank, top_score = move_rank(*top), outcome_score(top.value)
    return [
        Option(
            actions[k],
            values[k],
            top_score - outcome_score(values[k].value),
            labels[k] if labels is not None else label_of(actions[k]),
            states[k] if states is not None else None,
            move_rank(*values[k]) == top_rank,
        )
        for k in order
    ]


def move_result(child_value: int, child_remoteness: int) -> Result:
    """A move's value for its mover from the outcome of the position it leads to (which is
    the opponent's to move); the move itself counts in the remoteness."""
    v = Outcome(int(child_value)).for_opponent()
    return Result(v, None if v == Outcome.DRAW else int(child_remoteness) + 1)


def best_actions(options: Sequence[Option]) -> list[Any]:
    """The actions of the options marked best."""
    return [o.action for o in options if o.best]
