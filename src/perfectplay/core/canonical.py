"""Keying states by a canonical form.

Symmetry is the largest lever on the size of a state space: two states that are the same
up to a symmetry (a permutation of identical dice, of group sizes, of strip segments)
have the same value, so the explorer stores one of them. A model supplies
``canonical(state) -> key`` returning a hashable representative; :class:`StateIndex`
numbers the distinct keys densely so the solvers can work on arrays.

>>> idx = StateIndex(canonical=sorted_tuple)
>>> idx.add((3, 1, 2)), idx.add((2, 3, 1)), idx.add((1, 1))
((0, True), (0, False), (1, True))
>>> len(idx), idx.key(0)
(2, (1, 2, 3))
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any


def sorted_tuple(state: Iterable[Any]) -> tuple[Any, ...]:
    """Canonical form of a multiset: its elements in sorted order.

    >>> sorted_tuple([2, 0, 2, 1])
    (0, 1, 2, 2)
    """
    return tuple(sorted(state))


class StateIndex:
    """Dense numbering of states by canonical key.

    ``canonical`` maps a state to its hashable representative (identity when ``None``).
    Ids are assigned in insertion order, 0, 1, 2, ...
    """

    __slots__ = ("_canonical", "_ids", "_keys")

    def __init__(self, canonical: Callable[[Any], Hashable] | None = None) -> None:
        self._canonical = canonical
        self._ids: dict[Hashable, int] = {}
        self._keys: list[Hashable] = []

    def canonical(self, state: Any) -> Hashable:
        return state if self._canonical is None else self._canonical(state)

    def add(self, state: Any) -> tuple[int, bool]:
        """Id of ``state``'s class and whether it was new."""
        key = self.canonical(state)
        i = self._ids.get(key)
        if i is not None:
            return i, False
        i = len(self._keys)
        self._ids[key] = i
        self._keys.append(key)
        return i, True

    def get(self, state: Any) -> int | None:
        """Id of ``state``'s class, or ``None`` if it was never added."""
        return self._ids.get(self.canonical(state))

    def key(self, i: int) -> Hashable:
        """The canonical key stored for id ``i``."""
        return self._keys[i]

    def keys(self) -> list[Hashable]:
        return self._keys

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, state: Any) -> bool:
        return self.canonical(state) in self._ids
