"""What a chance model's numbers mean: its objective, the per-roll amount, exact weights.

A chance model's weights, costs, rewards and goal values are ints or exact rationals
(:class:`fractions.Fraction`); the explorer checks each as it is read and scales them to
integer numerators over one common denominator at the end, so every probability and
value the solvers see is an exact rational.

>>> weight_of(Fraction(1, 3)), integer_weights({0: Fraction(1, 3), 1: Fraction(1, 2)})
(Fraction(1, 3), {0: 2, 1: 3})
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import lcm
from numbers import Integral, Rational
from typing import Any

from perfectplay.errors import ModelError
from perfectplay.models.explore.callbacks import (
    MODEL_EXCEPTIONS,
    describe,
    exc_text,
    method,
    model_attribute,
    model_name,
)
from perfectplay.objectives import MIN_COST, Objective

__all__ = [
    "MAX_COST",
    "MAX_TOTAL_WEIGHT",
    "amount",
    "amount_hook",
    "conflicting_amounts",
    "integer_weights",
    "model_objective",
    "numerators",
    "roll_amount_rule",
    "weight_of",
]

#: Most total weight of one roll after scaling to integers (the solvers sum in int64).
MAX_TOTAL_WEIGHT = 1 << 62
#: Costs beyond this magnitude are kept exactly in a list instead of the int64 buffer.
MAX_COST = 1 << 31
# Numerators of costs and values must stay below this after scaling.
_MAX_NUMERATOR = 1 << 62


def weight_of(w: Any) -> int | Fraction:
    """Validate one outcome weight; ints pass through, exact rationals become Fractions.

    >>> weight_of(0.5)
    Traceback (most recent call last):
    TypeError: is a float; give an int or a fractions.Fraction so that it is exact
    """
    if isinstance(w, bool):
        raise TypeError("is a bool")
    if isinstance(w, Integral):
        return int(w)
    if isinstance(w, Rational):
        return Fraction(int(w.numerator), int(w.denominator))
    if isinstance(w, float):
        raise TypeError("is a float; give an int or a fractions.Fraction so that it is exact")
    raise TypeError(f"is a {type(w).__name__}, not an int or a fractions.Fraction")


def integer_weights(acc: dict[int, Any]) -> dict[int, int]:
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
        except MODEL_EXCEPTIONS as exc:
            raise ModelError(f"{name}.objective() raised {exc_text(exc)}") from exc
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


def amount_hook(model: Any, objective: Objective) -> tuple[str, Callable[..., Any] | None, int]:
    """``(hook name, hook, sign)`` of the model's per-roll amount (``cost`` or ``reward``)."""
    name = model_name(model)
    cost = method(model, "cost", required=False)
    reward = method(model, "reward", required=False)
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


def amount(v: Any, name: str, hook: str, arg: Any) -> int | Fraction:
    """Validate a value or cost returned by ``hook(arg)``: an int or an exact rational."""
    if type(v) is int:
        return v
    try:
        return weight_of(v)
    except TypeError as exc:
        raise ModelError(
            f"{name}.{hook}({describe(arg)}) returned {describe(v)}; expected an int or a "
            f"fractions.Fraction (it {exc})"
        ) from None


def conflicting_amounts(
    name: str, hook: str, first: Any, second: Any, a: Any, b: Any, key: Any
) -> ModelError:
    """Two choices declare one roll (one ``canonical_choice`` key) with different amounts."""
    return ModelError(
        f"{name}.{hook}({describe(second)}) returned {describe(b)} but "
        f"{name}.{hook}({describe(first)}) returned {describe(a)} for the same roll "
        f"{describe(key)}; one roll has one {hook} (give the two choices different rolls)"
    )


def numerators(
    name: str, costs: Any, values: dict[int, int | Fraction], n_states: int
) -> tuple[Any, Any, int]:
    """Integer numerators of the costs and terminal values over their common scale.

    >>> from array import array
    >>> c, v, scale = numerators("M", array("q", [1, 1]), {1: Fraction(1, 2)}, 2)
    >>> c.tolist(), v.tolist(), scale
    ([2, 2], [0, 1], 2)
    """
    import numpy as np

    scale = 1
    for v in values.values():
        if type(v) is not int:
            scale = lcm(scale, v.denominator)
    if type(costs) is list:
        for c in costs:
            if type(c) is not int:
                scale = lcm(scale, c.denominator)
    if type(costs) is list or scale != 1:
        nums = [int(c * scale) for c in costs]
        if nums and max(abs(min(nums)), abs(max(nums))) >= _MAX_NUMERATOR:
            raise ModelError(f"{name}: a cost is too large (over 2**62 after scaling to integers)")
        cost_num = np.array(nums, dtype=np.int64)
    else:
        cost_num = np.frombuffer(costs, dtype=np.int64)
    tv_num = None
    if values:
        tv_num = np.zeros(n_states, dtype=np.int64)
        for x, v in values.items():
            num = int(v * scale)
            if abs(num) >= _MAX_NUMERATOR:
                raise ModelError(f"{name}: a value is too large (over 2**62 after scaling)")
            tv_num[x] = num
    return cost_num, tv_num, scale
