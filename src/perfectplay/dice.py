"""Dice for models: the sorted outcomes of n dice, the dice that can be kept, a reroll.

A roll of interchangeable dice is a sorted tuple of faces (a multiset); its probability
is its number of orderings over ``faces ** n``. These helpers give those multisets with
exact integer weights (multinomial coefficients), the sub-multisets a player may keep,
and the roll of the dice not kept, so a dice model is a few lines:

>>> len(outcomes(5)), sum(w for _, w in outcomes(5)) == 6**5
(252, True)
>>> outcomes(2, faces=3)[:3]
[((1, 1), 1), ((1, 2), 2), ((1, 3), 2)]
>>> keeps((2, 2, 5))
[(), (2,), (5,), (2, 2), (2, 5), (2, 2, 5)]
>>> roll_rest((6, 6), 3)[:2]
[((1, 6, 6), 1), ((2, 6, 6), 1)]

Faces are ``1..faces`` for an int, or any sortable labels; a label listed twice weighs
twice (a die showing 1, 1, 2, 3, 4, 5):

>>> outcomes(1, faces=(1, 1, 2, 3, 4, 5))[:2]
[((1,), 2), ((2,), 1)]

Results are cached (``functools.lru_cache`` on the arguments, which are tuples), so a
model may call them once per state at no cost; treat the returned lists as read-only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from functools import lru_cache
from itertools import combinations_with_replacement, product
from math import factorial, prod
from typing import Any

__all__ = ["keeps", "outcomes", "roll_rest"]

Faces = int | Sequence[Any]


def _face_weights(faces: Faces) -> tuple[tuple[Any, int], ...]:
    """``((label, multiplicity), ...)`` sorted by label."""
    if isinstance(faces, bool) or not isinstance(faces, int | Sequence) or isinstance(faces, str):
        raise TypeError(f"faces must be an int or a sequence of face labels, not {faces!r}")
    if isinstance(faces, int):
        if faces < 1:
            raise ValueError(f"a die needs at least one face, not {faces}")
        return tuple((f, 1) for f in range(1, faces + 1))
    if not faces:
        raise ValueError("a die needs at least one face")
    for f in faces:
        if not isinstance(f, Hashable):
            raise TypeError(f"face labels must be hashable, not {f!r}")
    return tuple(sorted(Counter(faces).items()))


def outcomes(n: int, faces: Faces = 6) -> list[tuple[tuple[Any, ...], int]]:
    """Every sorted roll of ``n`` dice with its exact weight (number of orderings, times
    the multiplicity of repeated face labels); the weights sum to ``len(faces) ** n``.

    >>> outcomes(0), outcomes(1, faces=2)
    ([((), 1)], [((1,), 1), ((2,), 1)])
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"the number of dice must be an int >= 0, not {n!r}")
    return _outcomes(n, _faces_key(faces))


def _faces_key(faces: Faces) -> int | tuple[Any, ...]:
    """A hashable form of ``faces`` for the caches (checked once here)."""
    _face_weights(faces if isinstance(faces, int | str) else tuple(faces))
    return faces if isinstance(faces, int) else tuple(faces)


@lru_cache(maxsize=256)
def _outcomes(n: int, faces: int | tuple[Any, ...]) -> list[tuple[tuple[Any, ...], int]]:
    labels = _face_weights(faces)
    out = []
    for combo in combinations_with_replacement(range(len(labels)), n):
        counts = Counter(combo)
        orderings = factorial(n) // prod(factorial(k) for k in counts.values())
        weight = orderings * prod(labels[i][1] ** k for i, k in counts.items())
        out.append((tuple(labels[i][0] for i in combo), weight))
    return out


def keeps(roll: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Every distinct sub-multiset of ``roll`` (sorted tuples), from keeping nothing to
    keeping everything, shortest first. Over the 252 rolls of five six-sided dice there
    are 462 distinct keeps.

    >>> len({k for r, _ in outcomes(5) for k in keeps(r)})
    462
    """
    return _keeps(tuple(sorted(roll)))


@lru_cache(maxsize=4096)
def _keeps(roll: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    counts = sorted(Counter(roll).items())
    subs = [
        tuple(f for (f, _), k in zip(counts, ks, strict=True) for _ in range(k))
        for ks in product(*(range(c + 1) for _, c in counts))
    ]
    return sorted(subs, key=lambda k: (len(k), k))


def roll_rest(kept: Sequence[Any], n: int, faces: Faces = 6) -> list[tuple[tuple[Any, ...], int]]:
    """Keep ``kept`` and roll the other ``n - len(kept)`` dice: every sorted full roll of
    ``n`` dice with its exact weight.

    >>> roll_rest((), 1, faces=2)
    [((1,), 1), ((2,), 1)]
    """
    kept_t = tuple(sorted(kept))
    if len(kept_t) > n:
        raise ValueError(f"cannot keep {len(kept_t)} dice out of {n}")
    return _roll_rest(kept_t, n, _faces_key(faces))


@lru_cache(maxsize=4096)
def _roll_rest(
    kept: tuple[Any, ...], n: int, faces: int | tuple[Any, ...]
) -> list[tuple[tuple[Any, ...], int]]:
    return [(tuple(sorted(kept + fresh)), w) for fresh, w in _outcomes(n - len(kept), faces)]
