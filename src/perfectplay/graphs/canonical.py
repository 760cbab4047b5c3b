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

__all__ = ["sorted_tuple", "StateIndex", "SortedTupleSpace"]


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


class SortedTupleSpace:
    """All non-decreasing tuples ``0 <= x[0] <= ... <= x[k-1]`` with ``x[i] <= bounds[i]``,
    numbered densely in lexicographic order without a dictionary.

    Sorted tuples are the canonical form of multisets: the faces of identical dice, or
    the sizes of groups of equal values. When a model's states are such multisets under
    per-position caps, this space is a perfect hash of the canonical keys: ranks are
    computed arithmetically (vectorised over many states at once), so a builder can
    enumerate every state, and find the id of a neighbour, with a few numpy operations
    instead of one dictionary look-up per edge.

    Because the tuple is sorted, a cap on position ``i`` also caps every earlier
    position; the caps are tightened to their suffix minima, so every tuple the space
    counts is reachable position by position.

    >>> s = SortedTupleSpace([1, 2])         # (0,0) (0,1) (0,2) (1,1) (1,2)
    >>> len(s), s.rank((1, 1)), s.unrank(4)
    (5, 3, (1, 2))
    >>> s.rows().tolist()
    [[0, 0], [0, 1], [0, 2], [1, 1], [1, 2]]
    >>> s.incremented_ranks(s.rows()).tolist()  # rank after adding 1 at position j
    [[-1, 1], [3, 2], [4, -1], [-1, 4], [-1, -1]]
    """

    def __init__(self, bounds: Iterable[int]) -> None:
        caps = [int(b) for b in bounds]
        if any(b < 0 for b in caps):
            raise ValueError("bounds must be non-negative")
        for i in range(len(caps) - 2, -1, -1):
            caps[i] = min(caps[i], caps[i + 1])
        self.bounds: tuple[int, ...] = tuple(caps)
        self.k = len(caps)
        width = (max(caps) if caps else 0) + 1
        # at_least[u]: suffixes from position i on whose first value is >= u.
        # exactly[i][u]: suffixes from position i on whose first value is exactly u.
        at_least = [1] * (width + 1)
        exactly: list[list[int]] = [[0] * width for _ in range(self.k)]
        for i in range(self.k - 1, -1, -1):
            row = exactly[i]
            for u in range(caps[i] + 1):
                row[u] = at_least[u]
            nxt = [0] * (width + 1)
            for u in range(width - 1, -1, -1):
                nxt[u] = nxt[u + 1] + row[u]
            at_least = nxt
        self._exactly = exactly
        # below[i][u]: tuples whose position i is < u (given the same prefix), as prefix sums.
        self._below = [[0, *_accumulate(row)] for row in exactly]
        self._size = at_least[0]

    def __len__(self) -> int:
        if self._size > 2**62:
            raise OverflowError("the space has more than 2**62 tuples")
        return self._size

    @property
    def size(self) -> int:
        """Number of tuples (a Python int, exact however large)."""
        return self._size

    def __contains__(self, t: Iterable[int]) -> bool:
        xs = tuple(t)
        if len(xs) != self.k:
            return False
        prev = 0
        for x, b in zip(xs, self.bounds, strict=True):
            if not prev <= x <= b:
                return False
            prev = x
        return True

    def rank(self, t: Iterable[int]) -> int:
        """Lexicographic rank of a tuple of the space (``ValueError`` if it is not one)."""
        xs = tuple(int(x) for x in t)
        if xs not in self:
            raise ValueError(f"{xs} is not a sorted tuple within the bounds {self.bounds}")
        r, prev = 0, 0
        for i, x in enumerate(xs):
            r += self._below[i][x] - self._below[i][prev]
            prev = x
        return r

    def unrank(self, r: int) -> tuple[int, ...]:
        """The tuple of rank ``r``."""
        if not 0 <= r < self._size:
            raise ValueError(f"rank {r} out of range 0..{self._size - 1}")
        out, u = [], 0
        for i in range(self.k):
            row = self._exactly[i]
            while r >= row[u]:
                r -= row[u]
                u += 1
            out.append(u)
        return tuple(out)

    def _tables(self) -> tuple[Any, Any]:
        import numpy as np  # lazily: StateIndex users should not pay for numpy

        if self._size > 2**62:
            raise OverflowError("the space is too large for 64-bit ranks")
        width = max(self.bounds, default=0) + 1
        below = np.zeros((self.k, width + 1), np.int64)
        exactly = np.zeros((self.k + 1, width + 1), np.int64)  # row k: past the end
        if self.k:
            below[:] = self._below
            exactly[: self.k, :-1] = self._exactly
        return below, exactly

    def rows(self, dtype: Any = None) -> Any:
        """Every tuple of the space as an array ``(len(self), k)`` in rank order.

        ``dtype`` defaults to ``int64``; a smaller one (``int8`` for caps below 128) saves
        memory and time. The caller should check the memory first.
        """
        import numpy as np

        dtype = np.dtype(np.int64 if dtype is None else dtype)
        if self.k and max(self.bounds) > np.iinfo(dtype).max:
            raise ValueError(f"{dtype} cannot hold values up to {max(self.bounds)}")
        n = len(self)
        # Level by level: each tuple of the first i positions is followed by every value
        # from its last one up to the cap. Only the parent of each new tuple is recorded;
        # the columns are gathered at the end, so the work is O(len(self) * k).
        caps = np.asarray(self.bounds, dtype=np.int64)
        values: list[Any] = []
        parents: list[Any] = []
        last = np.zeros(1, np.int64)
        for i in range(self.k):
            counts = caps[i] - last + 1
            total = int(counts.sum())
            parent = np.repeat(np.arange(last.shape[0], dtype=np.int64), counts)
            start = np.cumsum(counts) - counts
            last = np.arange(total, dtype=np.int64) - start[parent] + last[parent]
            values.append(last)
            parents.append(parent)
        out = np.empty((n, self.k), dtype)
        idx = np.arange(n, dtype=np.int64)
        for i in range(self.k - 1, -1, -1):
            out[:, i] = values[i][idx]
            idx = parents[i][idx]
        return out

    def rank_rows(self, rows: Any) -> Any:
        """Ranks (``int64``) of many tuples at once; every row must belong to the space."""
        import numpy as np

        x = np.atleast_2d(np.asarray(rows, dtype=np.int64))
        below, _ = self._tables()
        prev = np.zeros_like(x)
        prev[:, 1:] = x[:, :-1]
        pos = np.arange(self.k)
        return (below[pos, x] - below[pos, prev]).sum(axis=1, dtype=np.int64)

    def increment_offsets(self, positions: Any, values: Any) -> Any:
        """Rank change from adding 1 at ``positions[i]`` of a tuple holding ``values[i]`` there.

        Valid when the incremented tuple is still in the space (below the cap, and the
        next position holds more): only the rank terms of positions ``j`` and ``j + 1``
        change, so each neighbour costs O(1) whatever ``k`` is.
        """
        import numpy as np

        _, exactly = self._tables()
        j = np.asarray(positions, dtype=np.int64)
        v = np.asarray(values, dtype=np.int64)
        return exactly[j, v] - exactly[j + 1, v]

    def incremented_ranks(self, rows: Any, ranks: Any = None) -> Any:
        """``out[r, j]``: rank of ``rows[r]`` with 1 added at position ``j``, or -1 when that
        tuple is outside the space (it would exceed its cap or break the order).

        This is the move "one more die joins the group at position ``j``" of a multiset
        of group sizes. ``ranks`` (of the rows) is computed when omitted.
        """
        import numpy as np

        x = np.atleast_2d(np.asarray(rows, dtype=np.int64))
        r = self.rank_rows(x) if ranks is None else np.asarray(ranks, dtype=np.int64)
        delta = self.increment_offsets(np.arange(self.k)[None, :], x)
        ok = x < np.asarray(self.bounds, dtype=np.int64)
        ok[:, :-1] &= x[:, :-1] < x[:, 1:]
        return np.where(ok, r[:, None] + delta, -1)


def _accumulate(values: list[int]) -> list[int]:
    out, s = [], 0
    for v in values:
        s += v
        out.append(s)
    return out
